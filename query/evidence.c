/*
 * evidence.c - stored summaries and annotations as search evidence: an
 * in-memory term index over the artifacts' texts (the index's own
 * tokenizer), rebuilt when the side store's artifacts change, scored with
 * BM25 against a query.  Only artifacts still fresh against the index count.
 */
#include "query_int.h"
#include "../format/side.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EV_K1 1.2f
#define EV_B 0.75f

/* One artifact text in the term index. */
typedef struct ev_doc {
	char *path;        /* file */
	char *symbol;      /* "" for a whole file */
	uint32_t line;     /* the symbol's start line, 0 for a file */
	uint32_t len;      /* terms */
	uint8_t hash[16];  /* of the source it describes */
} ev_doc;

/* One term's postings. */
typedef struct ev_term {
	char *term;        /* NUL-terminated */
	uint32_t *doc;     /* doc indexes, ascending */
	uint32_t *tf;      /* occurrences in each */
	uint32_t n, cap;   /* postings used, allocated */
} ev_term;

struct mi_art_ev {
	int64_t gen;       /* side store generation it was built from */
	ev_doc *docs;      /* the texts */
	size_t ndocs, capdocs;
	ev_term *terms;    /* open-addressed hash table */
	size_t nterms, capterms; /* used, slots (a power of two) */
	double avglen;     /* average doc length in terms */
};

void mi_art_ev_free(struct mi_art_ev *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->ndocs; i++) {
		free(e->docs[i].path);
		free(e->docs[i].symbol);
	}
	for (size_t i = 0; i < e->capterms; i++) {
		free(e->terms[i].term);
		free(e->terms[i].doc);
		free(e->terms[i].tf);
	}
	free(e->docs);
	free(e->terms);
	free(e);
}

static ev_term *term_slot(struct mi_art_ev *e, const char *t, size_t n, bool add)
{
	size_t mask = e->capterms - 1, i = (size_t)mi_hash64(t, n) & mask;
	for (;; i = (i + 1) & mask) {
		ev_term *s = &e->terms[i];
		if (!s->term) {
			if (!add)
				return NULL;
			s->term = mi_xstrndup(t, n);
			e->nterms++;
			return s;
		}
		if (strlen(s->term) == n && memcmp(s->term, t, n) == 0)
			return s;
	}
}

static void grow_terms(struct mi_art_ev *e)
{
	ev_term *old = e->terms;
	size_t oldcap = e->capterms;
	e->capterms = oldcap ? oldcap * 2 : 1024;
	e->terms = mi_xcalloc(e->capterms, sizeof *e->terms);
	e->nterms = 0;
	for (size_t i = 0; i < oldcap; i++) {
		ev_term *s;
		if (!old[i].term)
			continue;
		s = term_slot(e, old[i].term, strlen(old[i].term), true);
		free(s->term);
		*s = old[i];
	}
	free(old);
}

typedef struct build_ctx {
	struct mi_art_ev *e; /* being built */
	mi_tok *tk;          /* tokenizer */
	uint32_t doc;        /* current doc */
	uint64_t total;      /* terms over all docs */
} build_ctx;

static void add_term(void *ctx, const char *term, size_t len)
{
	build_ctx *b = ctx;
	struct mi_art_ev *e = b->e;
	ev_term *s;
	if ((e->nterms + 1) * 2 > e->capterms)
		grow_terms(e);
	s = term_slot(e, term, len, true);
	if (s->n && s->doc[s->n - 1] == b->doc) {
		s->tf[s->n - 1]++;
	} else {
		if (s->n == s->cap) {
			s->cap = s->cap ? s->cap * 2 : 4;
			s->doc = mi_xrealloc(s->doc, s->cap * sizeof *s->doc);
			s->tf = mi_xrealloc(s->tf, s->cap * sizeof *s->tf);
		}
		s->doc[s->n] = b->doc;
		s->tf[s->n++] = 1;
	}
	e->docs[b->doc].len++;
	b->total++;
}

/* Tasks whose text describes what code does (a test plan does not). */
static bool describes(const mi_side_rec *r)
{
	if (!strcmp(r->kind, "annotate"))
		return *r->name != 0; /* a file's answer repeats its symbols' lines */
	return !strcmp(r->kind, "summarize") || !strcmp(r->kind, "document");
}

static int build_fn(void *ctx, const mi_side_rec *r)
{
	build_ctx *b = ctx;
	struct mi_art_ev *e = b->e;
	ev_doc *d;
	if (!describes(r) || !r->has_hash)
		return 0;
	if (e->ndocs == e->capdocs) {
		e->capdocs = e->capdocs ? e->capdocs * 2 : 64;
		e->docs = mi_xrealloc(e->docs, e->capdocs * sizeof *e->docs);
	}
	d = &e->docs[e->ndocs];
	memset(d, 0, sizeof *d);
	d->path = mi_xstrdup(r->path);
	d->symbol = mi_xstrdup(r->name);
	d->line = r->num > 0 && r->num <= UINT32_MAX ? (uint32_t)r->num : 0;
	memcpy(d->hash, r->hash, 16);
	b->doc = (uint32_t)e->ndocs++;
	mi_tok_run(b->tk, r->text, r->text_len, 0, add_term, b);
	return 0;
}

/* The term index of the artifacts as of t, rebuilt when they changed since
 * (*mi_art_ev_slot(a)) was built.  Called with a->mu held. */
static int ev_current(mi_art *a, mi_side_txn *t)
{
	int64_t gen = mi_side_gen(t, MI_SIDE_ARTIFACTS);
	build_ctx b;
	int rc;
	if ((*mi_art_ev_slot(a)) && (*mi_art_ev_slot(a))->gen == gen)
		return 0;
	mi_art_ev_free((*mi_art_ev_slot(a)));
	(*mi_art_ev_slot(a)) = NULL;
	memset(&b, 0, sizeof b);
	b.e = mi_xcalloc(1, sizeof *b.e);
	b.e->gen = gen;
	grow_terms(b.e);
	if ((rc = mi_tok_new(&b.tk))) {
		mi_art_ev_free(b.e);
		return rc;
	}
	rc = mi_side_scan(t, MI_SIDE_ARTIFACTS, "", 0, build_fn, &b);
	mi_tok_free(b.tk);
	if (rc) {
		mi_art_ev_free(b.e);
		return rc;
	}
	b.e->avglen = b.e->ndocs ? (double)b.total / (double)b.e->ndocs : 1.0;
	(*mi_art_ev_slot(a)) = b.e;
	return 0;
}

typedef struct q_ctx {
	mi_buf terms;  /* NUL-separated, unique */
} q_ctx;

static void q_term(void *ctx, const char *term, size_t len)
{
	q_ctx *c = ctx;
	for (size_t off = 0; off < c->terms.len; off += strlen(c->terms.buf + off) + 1)
		if (strlen(c->terms.buf + off) == len && !memcmp(c->terms.buf + off, term, len))
			return;
	mi_buf_add(&c->terms, term, len);
	mi_buf_addc(&c->terms, 0);
}

static int by_score(const void *x, const void *y)
{
	const mi_art_hit *a = x, *b = y;
	return a->score < b->score ? 1 : a->score > b->score ? -1 : 0;
}

void mi_art_evidence_free(mi_art_hit *ev, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)ev[i].path);
		free((char *)ev[i].symbol);
	}
	free(ev);
}

int mi_art_evidence(mi_art *a, mi_query *q, const char *query, size_t max,
		    mi_art_hit **out, size_t *nout)
{
	mi_side *s;
	mi_side_txn *t = NULL;
	mi_out ignore;
	mi_tok *tk = NULL;
	q_ctx qc = {{0}};
	float *score = NULL;
	mi_art_hit *ev = NULL;
	size_t n = 0;
	int rc;

	*out = NULL;
	*nout = 0;
	memset(&ignore, 0, sizeof ignore);
	rc = mi_art_side(a, false, &s, &ignore);
	mi_out_release(&ignore);
	if (rc)
		return rc == MI_ERR_NOINDEX ? 0 : rc;
	if ((rc = mi_tok_new(&tk)))
		return rc;
	mi_tok_run(tk, query, strlen(query), 0, q_term, &qc);
	mi_tok_free(tk);
	if (!qc.terms.len)
		goto out;
	if ((rc = mi_side_begin(s, false, &t)))
		goto out;
	mi_art_lock(a);
	rc = ev_current(a, t);
	if (!rc && (*mi_art_ev_slot(a))->ndocs) {
		struct mi_art_ev *e = (*mi_art_ev_slot(a));
		score = mi_xcalloc(e->ndocs, sizeof *score);
		for (size_t off = 0; off < qc.terms.len; off += strlen(qc.terms.buf + off) + 1) {
			const char *term = qc.terms.buf + off;
			ev_term *ts = term_slot(e, term, strlen(term), false);
			double idf;
			if (!ts)
				continue;
			idf = log(1.0 + ((double)e->ndocs - ts->n + 0.5) / (ts->n + 0.5));
			for (uint32_t i = 0; i < ts->n; i++) {
				double tf = ts->tf[i], len = e->docs[ts->doc[i]].len;
				score[ts->doc[i]] += (float)(idf * tf * (EV_K1 + 1) /
					(tf + EV_K1 * (1 - EV_B + EV_B * len / e->avglen)));
			}
		}
		ev = mi_xcalloc(e->ndocs, sizeof *ev);
		for (size_t i = 0; i < e->ndocs; i++) {
			if (score[i] <= 0)
				continue;
			ev[n].path = e->docs[i].path;   /* borrowed until copied below */
			ev[n].symbol = e->docs[i].symbol;
			ev[n].line = e->docs[i].line;
			ev[n].score = score[i];
			memcpy(ev[n].hash, e->docs[i].hash, 16);
			n++;
		}
		qsort(ev, n, sizeof *ev, by_score);
		/* Keep fresh ones only, up to max, with their own strings. */
		{
			size_t k = 0;
			for (size_t i = 0; i < n && k < max; i++) {
				uint8_t h[16];
				if (q && (mi_query_file_hash(q, ev[i].path, h) ||
					  memcmp(h, ev[i].hash, 16) != 0))
					continue;
				ev[k] = ev[i];
				ev[k].path = mi_xstrdup(ev[i].path);
				ev[k].symbol = mi_xstrdup(ev[i].symbol);
				k++;
			}
			n = k;
		}
	}
	mi_art_unlock(a);
	mi_side_abort(t);
	if (!rc) {
		*out = ev;
		*nout = n;
		ev = NULL;
	}
out:
	free(ev);
	free(score);
	mi_buf_release(&qc.terms);
	return rc;
}
