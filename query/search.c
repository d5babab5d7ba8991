/*
 * search.c - search_code and search_docs: BM25F over the chunk postings with
 * WAND dynamic pruning, so the work done depends on k and the score bounds,
 * not on how many chunks match.  docs/format-search.md has the layout.
 */
#include "query_int.h"

#include <float.h>
#include <stdatomic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define Q_MAX_TERMS 32          /* distinct query terms kept */
#define Q_MAX_JOINED 8          /* joined-word terms added to a query */
#define Q_JOIN_WORDS 16         /* query words considered for joining */
#define Q_JOIN_WORD_MAX 24      /* longer words are not joined */
#define Q_JOIN_GAP 2            /* content words joined at most this far apart */
#define Q_MAX_ABBR 8            /* abbreviation terms added to a query */
#define Q_ABBR_MIN 3            /* shortest abbreviation tried */
#define Q_ABBR_PER_WORD 2       /* abbreviations kept per query word */
#ifndef Q_ABBR_FIELDS
#define Q_ABBR_FIELDS (1u << MI_SF_NAME | 1u << MI_SF_SIG | 1u << MI_SF_PATH)
#endif
#define Q_MAX_QUERY 4096        /* query bytes tokenized */
#define Q_MAX_LIMIT 200         /* results per call */
#define Q_SNIP_LINES 5          /* source lines in a folded snippet */
#define Q_SNIP_COLS 160         /* bytes per snippet line */
#define Q_DOC_CHARS 600         /* doc text in docs results */
#define Q_END UINT64_MAX
#define Q_NAMED 0x10000u        /* q_score: the chunk is named as the identifier asked for */
#define Q_TFX 32                /* term frequencies whose bound parts are kept in a table */

/* Fitted on the tuning halves of bench/search's query sets, except where a
 * comment says otherwise (docs/benchmarks.md has what each earned).  k1, w
 * and b are the index's own (mi_bm25f_params, code mode): the WAND bounds
 * stored with the terms were computed with them. */
const mi_rank_params mi_rank_defaults = {
	.k1 = 2.4f,
	/*     name   path  sig   doc   body */
	/* doc: set, not fitted.  The stripped query sets have no docs; the
	 * docs-kept ones (the question is the doc's own first sentence) reward
	 * any larger doc weight without limit.  3 (from 1.5) is where a
	 * function whose doc says the question stops losing to its siblings. */
	.w = { 3.75f, 2.0f, 1.9f, 3.0f, 0.45f },
	.b = { 0.7f, 1.0f, 0.75f, 0.75f, 0.85f },
	.cap = { [MI_SF_BODY] = 3.0f }, /* fitted: 3 and 4 tie, 3 prunes more */
	.aux = 0.45f,
	.join = 0.4f,
	.priv = 0.95f,      /* set, not fitted: "public a little higher" (fitting says 1) */
	.cover = 0.125f,    /* fitted: 0.125 (0.5 costs more than it earns) */
	.test = 0.8f,
	.gen = 0.5f,        /* set, not fitted: few answers are generated */
	.name_share = 1.0f,
	.abbr = 0.35f,       /* fitted: 0.34 */
	.inexact = 0.7f,     /* set on kernel identifiers (docs/benchmarks.md) */
};

/* ---- one term's postings, read in document order ----------------------------- */

typedef struct q_it {
	mi_cursor *c;              /* over MI_DB_POST */
	uint8_t key[MI_TOK_MAX + 5]; /* term \0 be32(fid) */
	size_t tl;                 /* term length */
	const uint8_t *p, *e;      /* unread part of the current file's entries */
	const uint8_t *bp, *be;    /* the current block's files after it */
	uint32_t blast;            /* the block's last file id (its key's) */
	uint8_t bq;                /* the block's tfn bound (mi_post_q) in the mode searched */
	uint8_t bq2;               /* the same over its postings without the name field */
	uint8_t bqn, bqo;          /* search_code's bounds for a query of this one word:
				    * of the chunks it alone names, of the others with
				    * their name share (MI_POST_HDR) */
	bool docs;                 /* search_docs: the docs-mode bounds */
	float bmax;                /* bound of this term's score in the block, < 0 not yet known */
	float bmax2;               /* the same for a chunk the term does not name */
	float bone, bone2;         /* the block's one-word bounds (q_one_bound), of the
				    * chunks it alone names and of the others; < 0
				    * not yet known */
	uint8_t idx;               /* place among the query's terms: the order scores are summed in */
	bool bfirst;               /* the next file is the block's first */
	uint32_t fid, n;           /* current chunk */
	bool first;                /* next entry is the first of the value */
	uint64_t doc;              /* fid << 32 | n, Q_END when done */
	unsigned flags;            /* field bits of the current entry */
	bool ones;                 /* each of its fields holds the term once */
	bool tfok;                 /* tf holds the current entry's (it_tf) */
	const uint8_t *tfp;        /* its tf varints, unless ones */
	uint32_t tf[MI_SF__COUNT];
	float w;                   /* idf times query frequency */
	bool joined;               /* a joined-word term (not a query word) */
	bool abbr;                 /* an abbreviation of a query word */
	bool whole;                /* the whole form of a query word of several parts */
	uint64_t covers;           /* the query words it meets (bits by idx): its own,
				    * or a join's or abbreviation's words */
	unsigned fmask;            /* fields scored (joined terms: name only) */
	float ub;                  /* bound of this term's score contribution */
	float cov1;                /* q_cover of its own words: a chunk it alone meets */
	float ones_ub[1u << MI_SF__COUNT]; /* q_tf_bound of a chunk holding it once per
				    * field, by its fields (after fmask) */
	float one_ub[MI_SF__COUNT][Q_TFX]; /* the same for a chunk holding it in one
				    * field f, tf times (tf < Q_TFX) */
	uint32_t df;               /* chunks holding the term */
	int err;                   /* MI_ERR_CORRUPT on bad bytes */
} q_it;

/* mi_varint_get, inlined for the posting loop. */
static inline bool q_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;

	if (q < end && *q < 0x80) {
		*v = *q;
		*p = q + 1;
		return true;
	}
	if (q + 1 < end && q[1] < 0x80) {
		*v = (uint64_t)(q[0] & 0x7f) | (uint64_t)q[1] << 7;
		*p = q + 2;
		return true;
	}
	return mi_varint_get(p, end, v);
}

/* Set bits of a posting's field bits. */
static const uint8_t q_nfields[1u << MI_SF__COUNT] = {
	0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
	1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5,
};

/* Steps *p over k varints; false when they run past end. */
static inline bool q_skip_varints(const uint8_t **p, const uint8_t *end, unsigned k)
{
	const uint8_t *q = *p;

	while (k) {
		if (q >= end)
			return false;
		if (*q++ < 0x80)
			k--;
	}
	*p = q;
	return true;
}

static void it_end(q_it *it, int err)
{
	it->doc = Q_END;
	if (err && err != MI_ERR_NOTFOUND)
		it->err = err;
}

/* Moves to the block's next file; false (the iterator ended) when there
 * is none or its bytes are bad. */
static bool it_group(q_it *it)
{
	uint64_t d = 0, n;

	if (it->bp >= it->be)
		return false;
	if (it->bfirst)
		it->fid = 0;
	bool ok = q_varint(&it->bp, it->be, &d);
	n = d & MI_POST_LENS;
	d >>= MI_POST_LBITS;
	if (!ok || (n == MI_POST_LENS && (!q_varint(&it->bp, it->be, &n) ||
					  (n += MI_POST_LENS) < MI_POST_LENS)) ||
	    (!d && !it->bfirst) || d > UINT32_MAX - it->fid || n > (uint64_t)(it->be - it->bp)) {
		it_end(it, MI_ERR_CORRUPT);
		return false;
	}
	it->bfirst = false;
	it->fid += (uint32_t)d;
	it->p = it->bp;
	it->e = it->p + n;
	it->bp = it->e;
	it->first = true;
	return true;
}

/* it_group until the file at or after fid or the block's last, in one
 * loop; false (the iterator ended) when the block's bytes are bad. */
static inline bool it_walk(q_it *it, uint32_t fid)
{
	const uint8_t *bp = it->bp, *be = it->be;
	uint32_t at = it->fid;

	if (at >= fid || bp >= be)
		return true;
	while (at < fid && bp < be) {
		uint64_t d, n;
		if (!q_varint(&bp, be, &d))
			goto corrupt;
		n = d & MI_POST_LENS;
		d >>= MI_POST_LBITS;
		if (n == MI_POST_LENS && (!q_varint(&bp, be, &n) || (n += MI_POST_LENS) < MI_POST_LENS))
			goto corrupt;
		if (!d || d > UINT32_MAX - at || n > (uint64_t)(be - bp))
			goto corrupt;
		at += (uint32_t)d;
		it->p = bp;
		bp += n;
	}
	it->e = bp;
	it->bp = bp;
	it->fid = at;
	it->first = true;
	return true;
corrupt:
	it_end(it, MI_ERR_CORRUPT);
	return false;
}

/* Takes the cursor's entry as the current block (rc from the cursor call)
 * and its first file. */
static void it_value(q_it *it, int rc, const void *k, size_t kl,
		     const void *v, size_t vl)
{
	if (rc || kl != it->tl + 5 || memcmp(k, it->key, it->tl + 1)) {
		it_end(it, rc);
		return;
	}
	if (vl < MI_POST_HDR) {
		it_end(it, MI_ERR_CORRUPT);
		return;
	}
	it->blast = mi_rd32((const uint8_t *)k + it->tl + 1);
	it->bq = ((const uint8_t *)v)[it->docs ? 1 : 0];
	it->bq2 = ((const uint8_t *)v)[it->docs ? 3 : 2];
	it->bqn = ((const uint8_t *)v)[4];
	it->bqo = ((const uint8_t *)v)[5];
	it->bmax = it->bmax2 = it->bone = -1;
	it->bp = (const uint8_t *)v + MI_POST_HDR;
	vl -= MI_POST_HDR;
	it->be = it->bp + vl;
	it->bfirst = true;
	if (!it_group(it))
		it_end(it, MI_ERR_CORRUPT);
}

/* Moves to the next entry. */
/* Moves to the next entry in a field the term is scored in: a joined
 * term counts in a name only and an abbreviation in a name, signature or
 * path, so their other entries (most of a common abbreviation's: `req`
 * of "required", 68,459 postings on the Linux kernel) add nothing to any
 * score and are stepped over here, not offered to WAND one by one. */
static void it_next(q_it *it)
{
	uint64_t x;

	do {
		while (it->doc != Q_END && it->p >= it->e) {
			const void *k, *v;
			size_t kl, vl;
			if (it->bp < it->be) {
				it_group(it);
				continue;
			}
			int rc = mi_cursor_next(it->c, &k, &kl, &v, &vl);
			it_value(it, rc, k, kl, v, vl);
		}
		if (it->doc == Q_END)
			return;
		if (!q_varint(&it->p, it->e, &x) || (x >> MI_POST_NSHIFT) > UINT32_MAX)
			goto corrupt;
		it->n = it->first ? (uint32_t)(x >> MI_POST_NSHIFT) :
				    it->n + (uint32_t)(x >> MI_POST_NSHIFT);
		it->first = false;
		it->flags = (unsigned)(x & MI_POST_FIELDS);
		it->ones = (x & MI_POST_ONES) != 0;
		/* The tf varints are stepped over; it_tf reads them when asked. */
		if (!it->ones) {
			it->tfp = it->p;
			if (!q_skip_varints(&it->p, it->e, q_nfields[it->flags]))
				goto corrupt;
		}
	} while (!(it->flags & it->fmask));
	it->tfok = false;
	it->doc = (uint64_t)it->fid << 32 | it->n;
	return;
corrupt:
	it_end(it, MI_ERR_CORRUPT);
}

/* The current entry's term frequency per field (0 for the fields it is
 * not in); zeros and it->err set when its bytes are bad. */
static const uint32_t *it_tf(q_it *it)
{
	if (it->tfok)
		return it->tf;
	it->tfok = true;
	if (it->ones) {
		for (int f = 0; f < MI_SF__COUNT; f++)
			it->tf[f] = (it->flags >> f) & 1;
		return it->tf;
	}
	const uint8_t *p = it->tfp;
	memset(it->tf, 0, sizeof(it->tf));
	/* Only the fields it is in: most entries are in one, the body. */
	for (unsigned m = it->flags & MI_POST_FIELDS; m; m &= m - 1) {
		uint64_t x;
		if (!q_varint(&p, it->e, &x) || x > UINT32_MAX) {
			memset(it->tf, 0, sizeof(it->tf));
			it->err = MI_ERR_CORRUPT;
			return it->tf;
		}
		it->tf[__builtin_ctz(m)] = (uint32_t)x;
	}
	return it->tf;
}

/* Steps over the current file's entries before chunk n, undecoded: the
 * next it_next reads the first at or after it. */
static void it_skip_to(q_it *it, uint32_t n)
{
	const uint8_t *p = it->p;
	uint32_t cur = it->n;

	while (p < it->e) {
		const uint8_t *q = p;
		uint64_t x;
		if (!q_varint(&q, it->e, &x) || (x >> MI_POST_NSHIFT) > UINT32_MAX - cur)
			return; /* it_next reports it */
		uint32_t nn = cur + (uint32_t)(x >> MI_POST_NSHIFT);
		if (nn >= n)
			break;
		if (!(x & MI_POST_ONES) &&
		    !q_skip_varints(&q, it->e, q_nfields[x & MI_POST_FIELDS]))
			return;
		cur = nn;
		p = q;
	}
	it->p = p;
	it->n = cur;
}

/* Moves to the first entry >= target. */
static void it_seek(q_it *it, uint64_t target)
{
	uint32_t tfid = (uint32_t)(target >> 32);

	if (it->doc >= target)
		return;
	if (tfid > it->fid) {
		if (tfid > it->blast) {
			/* Past this block: the block holding the target file is
			 * the first whose last file is at or after it, often the
			 * next one (a step, not a search from the root). */
			const void *k, *v;
			size_t kl, vl;
			int rc = mi_cursor_next(it->c, &k, &kl, &v, &vl);
			it_value(it, rc, k, kl, v, vl);
			if (it->doc != Q_END && tfid > it->blast) {
				mi_be32(it->key + it->tl + 1, tfid);
				rc = mi_cursor_seek(it->c, it->key, it->tl + 5, &k, &kl, &v, &vl);
				it_value(it, rc, k, kl, v, vl);
			}
		}
		/* Skip the block's files before it, undecoded. */
		if (it->doc == Q_END || !it_walk(it, tfid))
			return;
		it->p = it->fid < tfid ? it->e : it->p;
		it->doc = 0; /* value loaded; decode its entries */
		it_next(it);
	}
	if (it->doc < target && it->fid == tfid) {
		/* In the target's file: step over the entries before it. */
		it_skip_to(it, (uint32_t)target);
		it_next(it);
	}
	while (it->doc < target)
		it_next(it);
}

static int it_open(q_it *it, mi_txn *t, const char *term, size_t tl)
{
	const void *k, *v;
	size_t kl, vl;
	int rc, err;

	memcpy(it->key, term, tl);
	it->key[tl] = 0;
	it->tl = tl;
	if ((err = mi_cursor_open(t, MI_DB_POST, &it->c)))
		return err;
	rc = mi_cursor_seek(it->c, it->key, tl + 1, &k, &kl, &v, &vl);
	it->doc = 0;
	it_value(it, rc, k, kl, v, vl);
	if (it->doc != Q_END)
		it_next(it);
	return 0;
}

/* ---- the query: terms, filters, statistics ----------------------------------- */

typedef struct q_term {
	char s[MI_TOK_MAX];
	uint8_t len;
	uint16_t qtf;              /* times in the query */
	bool joined;               /* made by joining query words */
	bool abbr;                 /* a prefix of a query word the index holds */
	bool whole;                /* the whole form of an identifier in the query */
	uint8_t part[2];           /* a join's or abbreviation's query words (q_term
				    * index + 1, 0 none): what it meets of the question */
} q_term;

typedef struct q_terms {
	q_term t[Q_MAX_TERMS + Q_MAX_JOINED + Q_MAX_ABBR];
	size_t n;
	size_t dropped;            /* distinct terms over the cap */
} q_terms;

static void q_on_term(void *ctx, const char *s, size_t len)
{
	q_terms *qt = ctx;

	for (size_t i = 0; i < qt->n; i++)
		if (qt->t[i].len == len && !memcmp(qt->t[i].s, s, len)) {
			qt->t[i].qtf++;
			return;
		}
	if (qt->n == Q_MAX_TERMS || len > MI_TOK_MAX) {
		qt->dropped++;
		return;
	}
	memcpy(qt->t[qt->n].s, s, len);
	qt->t[qt->n].len = (uint8_t)len;
	qt->t[qt->n].qtf = 1;
	qt->n++;
}

/* Marks the terms that are the whole form of an identifier written in
 * the query (parse_config, parseConfig -> "parseconfig"). */
static void q_mark_whole(const char *q, size_t qlen, q_terms *qt)
{
	for (size_t i = 0; i < qlen;) {
		char w[MI_TOK_MAX];
		size_t wl = 0, j = i;
		bool parts = false;
		while (j < qlen && ((q[j] >= 'a' && q[j] <= 'z') || (q[j] >= 'A' && q[j] <= 'Z') ||
				    (q[j] >= '0' && q[j] <= '9') || q[j] == '_')) {
			char c = q[j];
			if (c == '_' || (c >= '0' && c <= '9') ||
			    (j > i && c >= 'A' && c <= 'Z' && q[j - 1] >= 'a' && q[j - 1] <= 'z'))
				parts = true;
			if (c != '_' && wl < sizeof(w))
				w[wl++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
			j++;
		}
		for (size_t t = 0; parts && t < qt->n; t++)
			if (qt->t[t].len == wl && !memcmp(qt->t[t].s, w, wl))
				qt->t[t].whole = true;
		i = j > i ? j : i + 1;
	}
}

/* true when a query term is about testing ("tests", "unittest",
 * "benchmarks"): then test code is an answer like any other. */
static bool q_speaks_of_tests(const q_terms *qt)
{
	static const char *const words[] = {
		"test", "unittest", "benchmark", "bench", "fuzz", "mock", "kunit",
	};

	for (size_t i = 0; i < qt->n; i++)
		for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++)
			if (qt->t[i].len == strlen(words[w]) &&
			    !memcmp(qt->t[i].s, words[w], qt->t[i].len))
				return true;
	return false;
}

/* Collects the single term of one word into a buffer. */
typedef struct q_one {
	char s[MI_TOK_MAX];
	size_t len;
	int n;                     /* terms seen */
} q_one;

static void q_on_one(void *ctx, const char *s, size_t len)
{
	q_one *o = ctx;

	if (o->n++ == 0 && len <= MI_TOK_MAX) {
		memcpy(o->s, s, len);
		o->len = len;
	}
}

/* 1 + the index in qt of the term of word o (q_one), 0 when none. */
static uint8_t q_find(const q_terms *qt, const q_one *o)
{
	for (size_t i = 0; o->n == 1 && i < qt->n; i++)
		if (qt->t[i].len == o->len && !memcmp(qt->t[i].s, o->s, o->len))
			return (uint8_t)(i + 1);
	return 0;
}

/* Adds term s when the index has it and the query does not yet; it stands
 * for query terms pa and pb. */
static void q_join_add(q_terms *qt, mi_txn *t, const char *s, size_t len, uint8_t pa,
		       uint8_t pb)
{
	const void *v;
	size_t vl;

	if (len < 4 || len > MI_TOK_MAX || qt->n >= Q_MAX_TERMS + Q_MAX_JOINED)
		return;
	for (size_t i = 0; i < qt->n; i++)
		if (qt->t[i].len == len && !memcmp(qt->t[i].s, s, len))
			return;
	if (mi_get(t, MI_DB_TERMS, s, len, &v, &vl))
		return;
	memcpy(qt->t[qt->n].s, s, len);
	qt->t[qt->n].len = (uint8_t)len;
	qt->t[qt->n].qtf = 1;
	qt->t[qt->n].joined = true;
	qt->t[qt->n].part[0] = pa;
	qt->t[qt->n].part[1] = pb;
	qt->n++;
}

/* Tries a+b as a term both as written (the whole form of a_b or aB) and
 * as one word run through the tokenizer (its stem: "writelines"). */
static void q_join_try(mi_tok *tk, q_terms *qt, mi_txn *t, const char *a,
		       size_t al, const char *b, size_t bl, uint8_t pa, uint8_t pb)
{
	char buf[2 * Q_JOIN_WORD_MAX + 2];
	q_one o = { .n = 0 };

	if (al + bl > MI_TOK_MAX)
		return;
	memcpy(buf, a, al);
	memcpy(buf + al, b, bl);
	q_join_add(qt, t, buf, al + bl, pa, pb);
	mi_tok_run(tk, buf, al + bl, 0, q_on_one, &o);
	if (o.n == 1)
		q_join_add(qt, t, o.s, o.len, pa, pb);
}

/* The query's next run of ASCII letters and digits at or after *i: its
 * start and length, *i past it; false at the end. */
static bool q_word(const char *q, size_t qlen, size_t *i, size_t *at, size_t *n)
{
	size_t j = *i;
	while (j < qlen && !((q[j] >= 'a' && q[j] <= 'z') || (q[j] >= 'A' && q[j] <= 'Z') ||
			     (q[j] >= '0' && q[j] <= '9')))
		j++;
	*at = j;
	while (j < qlen && ((q[j] >= 'a' && q[j] <= 'z') || (q[j] >= 'A' && q[j] <= 'Z') ||
			    (q[j] >= '0' && q[j] <= '9')))
		j++;
	*n = j - *at;
	*i = j;
	return *n > 0;
}

static void q_lower(char *out, const char *s, size_t n)
{
	for (size_t x = 0; x < n; x++)
		out[x] = (char)(s[x] >= 'A' && s[x] <= 'Z' ? s[x] + 32 : s[x]);
}

/*
 * Query words written apart are often one identifier in the code: "write
 * lines" is writelines(), "read chunk" is read_chunk() (whose whole form is
 * "readchunk"), "iterator over keys" is iterkeys().  Joins nearby content
 * words in order (at most Q_JOIN_GAP apart once stop words are gone, so
 * "write a list of lines" still joins write+lines), as written and with
 * the first word's term ("iter" + "keys"), and adds the joins the index
 * holds as extra query terms, scored on the name field only, at
 * the ranking's join weight.
 */
static void q_joined(mi_tok *tk, const char *q, size_t qlen, q_terms *qt, mi_txn *t)
{
	char w[Q_JOIN_WORDS][Q_JOIN_WORD_MAX];
	size_t wl[Q_JOIN_WORDS], nw = 0;
	q_one st[Q_JOIN_WORDS];

	for (size_t i = 0, at, n; nw < Q_JOIN_WORDS && q_word(q, qlen, &i, &at, &n);) {
		if (n >= 2 && n <= Q_JOIN_WORD_MAX) {
			q_lower(w[nw], q + at, n);
			wl[nw] = n;
			if (!mi_tok_is_stop(w[nw], wl[nw])) {
				memset(&st[nw], 0, sizeof(st[nw]));
				mi_tok_run(tk, w[nw], wl[nw], 0, q_on_one, &st[nw]);
				nw++;
			}
		}
	}
	for (size_t gap = 1; gap <= Q_JOIN_GAP; gap++)
		for (size_t i = 0; i + gap < nw; i++) {
			size_t j = i + gap;
			uint8_t pa = q_find(qt, &st[i]), pb = q_find(qt, &st[j]);
			q_join_try(tk, qt, t, w[i], wl[i], w[j], wl[j], pa, pb);
			if (st[i].n == 1 &&
			    (st[i].len != wl[i] || memcmp(st[i].s, w[i], wl[i])))
				q_join_try(tk, qt, t, st[i].s, st[i].len, w[j], wl[j], pa, pb);
		}
}

/*
 * Code abbreviates what a question spells out: "reinitialize" is reinit,
 * "decrement" dec, "statistics" stat, "information" info, "allocate"
 * alloc.  For each content word of the query, the longest prefixes
 * (at least Q_ABBR_MIN letters, two shorter than the word, shorter than the
 * word's own stem) the index holds as terms are added, at most
 * Q_ABBR_PER_WORD per word, scored where a chunk names or declares them
 * (name, signature, path) at the ranking's abbr weight.
 */
static void q_abbrev(mi_tok *tk, const char *q, size_t qlen, q_terms *qt, mi_txn *t)
{
	if (qlen == 0)
		return;
	for (size_t i = 0; i < qlen;) {
		size_t j = i;
		while (j < qlen && ((q[j] >= 'a' && q[j] <= 'z') || (q[j] >= 'A' && q[j] <= 'Z')))
			j++;
		if (j == i) {
			i++;
			continue;
		}
		size_t wl = j - i;
		char w[Q_JOIN_WORD_MAX];
		q_one st = { .n = 0 };
		int kept = 0;
		if (wl < Q_ABBR_MIN + 2 || wl > Q_JOIN_WORD_MAX) {
			i = j;
			continue;
		}
		for (size_t x = 0; x < wl; x++)
			w[x] = (char)(q[i + x] >= 'A' && q[i + x] <= 'Z' ? q[i + x] + 32 : q[i + x]);
		i = j;
		/* Words of several parts (camelCase) are identifiers, not prose. */
		for (size_t x = 1; x < wl; x++)
			if (q[j - wl + x] >= 'A' && q[j - wl + x] <= 'Z')
				goto next;
		if (mi_tok_is_stop(w, wl))
			continue;
		mi_tok_run(tk, w, wl, 0, q_on_one, &st);
		if (st.n != 1)
			continue;
		for (size_t pl = wl - 2; pl >= Q_ABBR_MIN && kept < Q_ABBR_PER_WORD; pl--) {
			const void *v;
			size_t vl, before = qt->n;
			if (pl >= st.len || qt->n >= Q_MAX_TERMS + Q_MAX_JOINED + Q_MAX_ABBR)
				continue;
			if (mi_tok_is_stop(w, pl) || mi_get(t, MI_DB_TERMS, w, pl, &v, &vl))
				continue;
			for (size_t x = 0; x < qt->n; x++)
				if (qt->t[x].len == pl && !memcmp(qt->t[x].s, w, pl))
					goto dup;
			memcpy(qt->t[qt->n].s, w, pl);
			qt->t[qt->n].len = (uint8_t)pl;
			qt->t[qt->n].qtf = 1;
			qt->t[qt->n].abbr = true;
			qt->t[qt->n].part[0] = q_find(qt, &st);
			qt->n++;
		dup:
			kept += qt->n > before;
		}
	next:;
	}
}

typedef struct q_filter {
	const char *glob;          /* path_filter, NULL = any */
	bool glob_plain;           /* no metacharacters: a directory or a file */
	size_t glob_len;
	char exts[16][16];         /* extensions without the dot */
	size_t nexts;
	uint32_t last_fid;         /* cache of the last decision */
	int last_ok;               /* -1 unknown, 0 no, 1 yes */
} q_filter;

/* Checks a glob for syntax errors; NULL when fine, else what is wrong. */
static const char *q_glob_error(const char *g)
{
	for (const char *p = g; *p; p++) {
		if (*p == '\\') {
			if (!p[1])
				return "ends with a lone '\\'";
			p++;
		} else if (*p == '[') {
			const char *q = p + 1;
			if (*q == '!' || *q == '^')
				q++;
			if (*q == ']')
				q++;
			while (*q && *q != ']')
				q++;
			if (!*q)
				return "has '[' without a closing ']'";
			p = q;
		} else if (*p == ']') {
			return "has ']' without an opening '['";
		} else if ((unsigned char)*p < 0x20) {
			return "contains a control character";
		}
	}
	return NULL;
}

static int q_filter_init(q_filter *f, const mi_search_opts *o, mi_out *out)
{
	const char *e;
	const char *why;

	memset(f, 0, sizeof(*f));
	f->last_ok = -1;
	if (o->path_filter && *o->path_filter) {
		f->glob = o->path_filter;
		while (f->glob[0] == '.' && f->glob[1] == '/')
			f->glob += 2;
		if ((why = q_glob_error(f->glob)))
			return mi_out_error(out, MI_ERR_ARG,
					    "path_filter \"%s\" %s. Use a glob such as "
					    "\"src/**\" or \"*.c\".", o->path_filter, why);
		f->glob_plain = !strpbrk(f->glob, "*?[");
		f->glob_len = strlen(f->glob);
		while (f->glob_plain && f->glob_len && f->glob[f->glob_len - 1] == '/')
			f->glob_len--;
		if (!*f->glob || (f->glob_plain && !f->glob_len))
			f->glob = NULL;
	}
	for (e = o->extensions; e && *e;) {
		size_t n;
		while (*e == ',' || *e == ' ' || *e == '.' || *e == '*')
			e++;
		n = strcspn(e, ", ");
		if (!n)
			break;
		if (n >= sizeof(f->exts[0]) || f->nexts == 16)
			return mi_out_error(out, MI_ERR_ARG,
					    "extensions \"%s\" is not a short comma-separated "
					    "list; give up to 16 extensions like \"c,h\".",
					    o->extensions);
		memcpy(f->exts[f->nexts], e, n);
		f->exts[f->nexts][n] = 0;
		f->nexts++;
		e += n;
	}
	return 0;
}

static bool q_path_ok(const q_filter *f, const char *path)
{
	if (f->glob) {
		if (f->glob_plain) {
			if (strncmp(path, f->glob, f->glob_len) ||
			    (path[f->glob_len] && path[f->glob_len] != '/'))
				return false;
		} else if (!mi_glob_match(f->glob, path)) {
			/* "*.c" names files at any depth, like ripgrep's -g. */
			const char *base = strrchr(path, '/');
			if (strchr(f->glob, '/') || !base || !mi_glob_match(f->glob, base + 1))
				return false;
		}
	}
	if (f->nexts) {
		const char *base = strrchr(path, '/');
		const char *dot = strrchr(base ? base + 1 : path, '.');
		bool ok = false;
		for (size_t i = 0; dot && i < f->nexts && !ok; i++)
			ok = !strcasecmp(dot + 1, f->exts[i]);
		if (!ok)
			return false;
	}
	return true;
}

/* The path of a file id into out; false when unknown. */
static bool q_fid_path(mi_txn *t, uint32_t fid, mi_buf *out)
{
	uint8_t k[4];
	const void *v;
	size_t vl;

	mi_be32(k, fid);
	mi_buf_reset(out);
	if (mi_get(t, MI_DB_FILEIDS, k, 4, &v, &vl))
		return false;
	while (vl && ((const char *)v)[vl - 1] == 0)
		vl--;
	mi_buf_add(out, v, vl);
	return true;
}

static bool q_fid_ok(mi_txn *t, q_filter *f, uint32_t fid, mi_buf *scratch)
{
	if (!f->glob && !f->nexts)
		return true;
	if (f->last_ok >= 0 && f->last_fid == fid)
		return f->last_ok;
	f->last_fid = fid;
	f->last_ok = q_fid_path(t, fid, scratch) && q_path_ok(f, mi_buf_str(scratch));
	return f->last_ok;
}

/* ---- top-k ---------------------------------------------------------------------- */

typedef struct q_hit {
	float score;
	uint64_t doc;
} q_hit;

/* true when a ranks below b (lower score, or equal and later). */
static bool q_below(const q_hit *a, const q_hit *b)
{
	return a->score < b->score || (a->score == b->score && a->doc > b->doc);
}

static void q_heap_down(q_hit *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && q_below(&h[l], &h[m]))
			m = l;
		if (r < n && q_below(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		q_hit tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

static void q_heap_push(q_hit *h, size_t *n, size_t k, q_hit x)
{
	size_t i;

	if (*n < k) {
		i = (*n)++;
		h[i] = x;
		while (i && q_below(&h[i], &h[(i - 1) / 2])) {
			q_hit tmp = h[i];
			h[i] = h[(i - 1) / 2];
			h[(i - 1) / 2] = tmp;
			i = (i - 1) / 2;
		}
	} else if (q_below(&h[0], &x)) {
		h[0] = x;
		q_heap_down(h, *n, 0);
	}
}

static int q_hit_cmp(const void *a, const void *b)
{
	const q_hit *x = a, *y = b;

	if (q_below(x, y))
		return 1;
	if (q_below(y, x))
		return -1;
	return 0;
}

static int q_hit_doc_cmp(const void *a, const void *b)
{
	const q_hit *x = a, *y = b;

	return (x->doc > y->doc) - (x->doc < y->doc);
}

/* ---- WAND ------------------------------------------------------------------------ */

typedef struct q_ctx {
	mi_txn *t;
	const mi_rank_params *rp;  /* search_code ranking */
	bool docs;                 /* search_docs scoring */
	bool all;                  /* include private symbols */
	bool tests;                /* the query speaks of tests */
	bool ident;                /* the query is one identifier (q_required, q_kebab) */
	uint32_t ident_len;        /* then the terms a name that is the identifier holds */
	float wsum;                /* sum of the query words' weights (joins aside) */
	float wof[Q_MAX_TERMS + Q_MAX_JOINED + Q_MAX_ABBR]; /* a query word's weight by
				    * iterator idx (0: joins, abbreviations) */
	bool bounds;               /* the index's bounds hold for this ranking */
	bool prune;                /* skip what bounds say cannot reach the top k */
	bool one;                  /* search_code of one term alone, scored as the
				    * index's one-word bounds were made (q_block_bound) */
	float avg[MI_SF__COUNT];   /* average field lengths */
	q_filter filt;
	mi_buf scratch;
	/* The chunk lengths of the file the iterators stand on (candidates
	 * come in file order): read once per file, decoded up to the chunk
	 * asked for. */
	struct {
		uint32_t fid;
		bool have;
		const void *v;             /* the file's (mi_lens_get) */
		size_t vl;
		uint32_t group;            /* the group of files read */
		bool ghave;
		const void *gv;            /* its value (mi_lens_file) */
		size_t gl;
		mi_cursor *c;              /* over the groups: the next one is near */
		uint32_t n;                /* the chunk last asked for */
		uint32_t cur[MI_LENS_W];   /* its values */
	} lens;
	int err;                   /* MI_ERR_CORRUPT: a file's lengths are bad or missing */
	/* q_tf_bound's part of field f for a term frequency below Q_TFX, per
	 * scoring mode (search_docs has two), and whether f's weights are out
	 * of the range its argument needs (q_tfx_init). */
	float tfx[2][MI_SF__COUNT][Q_TFX];
	bool tfx_bad[2][MI_SF__COUNT];
	uint64_t end;              /* chunks from here on are another pass's (q_wand_split) */
	size_t split_min;          /* postings of a query worth a second pass (q_wand_split) */
	_Atomic uint32_t *shared;  /* the k-th score of the passes, as float bits, or NULL */
	struct {
		uint64_t cov;              /* q_cover's last answers, by words met + 1 (0: none) */
		float f;
	} covm[256];
} q_ctx;

/* Chunk doc's flags (MI_POSTF_*) and field lengths: MI_LENS_W values,
 * valid until the next call; zeros (and qc->err set) when the index does
 * not hold them. */
static const uint32_t *q_chunk(q_ctx *qc, uint64_t doc)
{
	static const uint32_t none[MI_LENS_W];
	uint32_t fid = (uint32_t)(doc >> 32), n = (uint32_t)doc;

	if (qc->lens.have && qc->lens.fid == fid && qc->lens.n == n)
		return qc->lens.cur;
	if (!qc->lens.have || qc->lens.fid != fid) {
		qc->lens.have = false;
		if (!qc->lens.ghave || qc->lens.group != fid / MI_LENS_GROUP) {
			uint8_t key[5] = { 0 };
			const void *k;
			size_t kl;
			mi_be32(key + 1, fid / MI_LENS_GROUP);
			qc->lens.ghave = false;
			/* A cursor: LMDB looks on its current page first, and
			 * the files asked for come in order.  Not packed: the
			 * value stays in the map while the transaction lives. */
			if ((!qc->lens.c && mi_cursor_open(qc->t, MI_DB_POST, &qc->lens.c)) ||
			    mi_cursor_seek(qc->lens.c, key, 5, &k, &kl, &qc->lens.gv,
					   &qc->lens.gl) ||
			    kl != 5 || memcmp(k, key, 5)) {
				qc->err = MI_ERR_CORRUPT;
				return none;
			}
			qc->lens.group = fid / MI_LENS_GROUP;
			qc->lens.ghave = true;
		}
		if (!mi_lens_file(qc->lens.gv, qc->lens.gl, fid, &qc->lens.v, &qc->lens.vl) ||
		    !qc->lens.vl) {
			qc->err = MI_ERR_CORRUPT;
			return none;
		}
		qc->lens.fid = fid;
		qc->lens.have = true;
	}
	if (!mi_lens_get(qc->lens.v, qc->lens.vl, n, qc->lens.cur)) {
		qc->err = MI_ERR_CORRUPT;
		qc->lens.have = false;
		return none;
	}
	qc->lens.n = n;
	return qc->lens.cur;
}

/* mi_bm25f_tfn's code mode with the ranking's own weights. */
static float q_tfn(const mi_rank_params *rp, float name_share, unsigned flags,
		   const uint32_t *tf, const uint32_t *len, const float *avg)
{
	float t = 0;

	if (flags & MI_POSTF_MD)
		return 0;
	for (int f = 0; f < MI_SF__COUNT; f++) {
		if (!(flags & (1u << f)) || rp->w[f] == 0)
			continue;
		float x = (float)tf[f] / (1 - rp->b[f] + rp->b[f] * (float)len[f] / avg[f]);
		if (rp->cap[f] > 0 && x > rp->cap[f])
			x = rp->cap[f];
		t += rp->w[f] * (f == MI_SF_NAME ? name_share : 1) * x;
	}
	return t;
}

/*
 * How much of chunk pdoc's name the query says, as a factor of the name
 * field's weight: a name is strong evidence when the question names it
 * whole (parse_config for "parse config"), weak when it shares one word and
 * says others the question does not (unparse for "parse", join_path for
 * "split path").  (met parts / parts)^rp->name_share; 1 when the query
 * meets the whole identifier (its whole form, or a join).
 */
static float q_name_share(const mi_rank_params *rp, q_it **its, size_t nit, uint64_t pdoc,
			  uint32_t name_len)
{
	uint32_t met = 0, len = 0;

	if (rp->name_share <= 0)
		return 1;
	for (size_t i = 0; i < nit && its[i]->doc == pdoc; i++) {
		q_it *it = its[i];
		if (!(it->flags & (1u << MI_SF_NAME)))
			continue;
		len = name_len;
		if (it->joined || it->whole)
			return 1;
		met += it_tf(it)[MI_SF_NAME];
	}
	float s = mi_name_share(met, len);
	return s < 1 ? powf(s, rp->name_share) : 1;
}

/* true when rp scores with the weights the index's bounds were made with. */
static bool q_bounds_hold(const mi_rank_params *rp)
{
	const mi_bm25f *P = &mi_bm25f_params;

	if (rp->k1 != P->k1[MI_SM_CODE])
		return false;
	for (int f = 0; f < MI_SF__COUNT; f++) {
		float c = P->cap[MI_SM_CODE][f];
		if (rp->w[f] != P->w[MI_SM_CODE][f] || rp->b[f] != P->b[MI_SM_CODE][f])
			return false;
		/* a cap of its own no looser than the index's keeps its bounds */
		if (c > 0 && !(rp->cap[f] > 0 && rp->cap[f] <= c))
			return false;
	}
	return true;
}

/* Sorts its[0..n) by doc when its[m..n) already is: each of the first m
 * moves right to its place (they are the iterators just advanced). */
static void q_resort(q_it **its, size_t n, size_t m)
{
	for (size_t i = m; i-- > 0;) {
		q_it *x = its[i];
		uint64_t d = x->doc;
		size_t j = i;
		while (j + 1 < n && its[j + 1]->doc < d) {
			its[j] = its[j + 1];
			j++;
		}
		its[j] = x;
	}
}

static void q_sort_its(q_it **its, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		q_it *x = its[i];
		size_t j = i;
		while (j && its[j - 1]->doc > x->doc) {
			its[j] = its[j - 1];
			j--;
		}
		its[j] = x;
	}
}

/* score times the priors of a chunk with posting flags `flags`, each a
 * factor <= 1 so the WAND bounds still hold (search_code). */
static float q_priors(const q_ctx *qc, unsigned flags, float score)
{
	const mi_rank_params *rp = qc->rp;

	/* A description of behaviour is answered by a function; an
	 * identifier by whatever it names, and first by what is named so
	 * (vlog before pr_vlog and bpf_vlog_reset). */
	if ((flags & MI_POSTF_AUX) && !qc->ident)
		score *= rp->aux;
	if (qc->ident && !(flags & Q_NAMED))
		score *= rp->inexact;
	if (flags & MI_POSTF_PRIVATE)
		score *= rp->priv;
	if ((flags & MI_POSTF_TEST) && !qc->tests)
		score *= rp->test;
	if (flags & MI_POSTF_GEN)
		score *= rp->gen;
	return score;
}

/*
 * Bound of the coverage factor q_score gives a chunk that meets at most the
 * query words in cov (bits by iterator idx, as it->covers): the factor only
 * grows with the words met, so it bounds every chunk holding a subset of
 * the terms whose covers make cov.  1 when no factor applies.
 */
static float q_cover_slow(q_ctx *qc, uint64_t cov, size_t h);

static inline float q_cover(q_ctx *qc, uint64_t cov)
{
	size_t h = (size_t)((cov * 0x9e3779b97f4a7c15ull) >> 56);
	if (qc->covm[h].cov == cov + 1) /* the memo answers nearly every call */
		return qc->covm[h].f;
	return q_cover_slow(qc, cov, h);
}

static float q_cover_slow(q_ctx *qc, uint64_t cov, size_t h)
{
	const mi_rank_params *rp = qc->rp;
	float matched = 0;

	if (qc->docs || !(rp->cover > 0) || !(qc->wsum > 0)) {
		qc->covm[h].cov = cov + 1;
		qc->covm[h].f = 1;
		return 1;
	}
	/* Summed in q_score's order: a superset's sum is never smaller. */
	for (uint64_t c = cov; c; c &= c - 1)
		matched += qc->wof[__builtin_ctzll(c)];
	float f = 1;
	if (matched < qc->wsum) {
		float x = matched / qc->wsum;
		/* The fitted exponent, 1/8, by square roots (correctly
		 * rounded, within the margin of powf's answer). */
		f = rp->cover == 0.125f ? sqrtf(sqrtf(sqrtf(x))) : powf(x, rp->cover);
		f = f * 1.0001f + 1e-6f;
		f = f < 1 ? f : 1;
	}
	qc->covm[h].cov = cov + 1;
	qc->covm[h].f = f;
	return f;
}

/* q_cover of the words the first n iterators meet. */
static float q_cover_its(q_ctx *qc, q_it **its, size_t n)
{
	uint64_t cov = 0;

	for (size_t i = 0; i < n; i++)
		cov |= its[i]->covers;
	return q_cover(qc, cov);
}

/* Scores chunk pdoc from the iterators standing on it (the first ones of
 * its, which is sorted by doc), moves them past it and offers it to the
 * heap. */
static void q_score(q_ctx *qc, q_it **its, size_t nit, uint64_t pdoc,
		    q_hit *heap, size_t k, size_t *nh, float *theta)
{
	const mi_rank_params *rp = qc->rp;
	const float k1 = qc->docs ? mi_bm25f_params.k1[MI_SM_DOCS_MD] : rp->k1;
	float score = 0, matched = 0, part[Q_MAX_TERMS + Q_MAX_JOINED + Q_MAX_ABBR];
	uint64_t cov = 0;
	const uint32_t *cl = q_chunk(qc, pdoc), *clen = cl + 1;
	unsigned cflags = cl[0];
	bool skip = !qc->all && (cflags & MI_POSTF_PRIVATE);
	float ns = qc->docs ? 1 : q_name_share(rp, its, nit, pdoc, clen[MI_SF_NAME]);
	uint8_t lo = UINT8_MAX, hi = 0;
	uint32_t named = 0;

	for (size_t i = 0; i < nit && its[i]->doc == pdoc; i++) {
		q_it *it = its[i];
		float tfn;
		named += qc->ident && !it->joined && !it->abbr &&
			 (it->flags & (1u << MI_SF_NAME));
		if (!skip) {
			unsigned fl = (it->flags | cflags) & it->fmask;
			tfn = qc->docs ? mi_bm25f_tfn(MI_SM_DOCS_MD, fl, it_tf(it), clen, qc->avg) :
					 q_tfn(rp, ns, fl, it_tf(it), clen, qc->avg);
			if (tfn > 0) {
				for (; hi < it->idx + 1; hi++)
					part[hi] = 0;
				part[it->idx] = it->w * tfn * (k1 + 1) / (k1 + tfn);
				lo = it->idx < lo ? it->idx : lo;
				cov |= it->covers;
			}
		}
		it_next(it);
	}
	/* Summed in the terms' order, not the order the iterators arrived
	 * in: a chunk's score is the same whatever was skipped before it. */
	for (unsigned i = lo; i < hi; i++)
		score += part[i];
	if (!qc->docs && score > 0) {
		/* Named exactly by the identifier asked for: its name holds
		 * the query's own terms (parts, whole form) and no other. */
		if (qc->ident && named == qc->ident_len && clen[MI_SF_NAME] == qc->ident_len)
			cflags |= Q_NAMED;
		score = q_priors(qc, cflags, score);
		/* Coverage: a chunk that meets only some of the question's
		 * words (a name sharing one of them) yields to one that meets
		 * most of them; a word is met by itself, a join of it
		 * (writelines for "write lines") or its abbreviation. */
		for (unsigned b = 0; cov; b++, cov >>= 1)
			if (cov & 1)
				matched += qc->wof[b];
		if (rp->cover > 0 && qc->wsum > 0 && matched < qc->wsum)
			score *= powf(matched / qc->wsum, rp->cover);
	}
	if (score > 0) {
		q_hit h = { score, pdoc };
		q_heap_push(heap, nh, k, h);
		if (*nh == k && heap[0].score > *theta)
			*theta = heap[0].score;
	}
}

/* true when term it alone scores a search_code chunk as the index's
 * one-word bounds were made: a word of the query, its name share with
 * the exponent those bounds take (1) or a larger one. */
static bool q_one_term(const q_ctx *qc, const q_it *it)
{
	return !qc->docs && qc->prune && qc->bounds && !it->joined && !it->abbr &&
	       !it->whole && qc->rp->name_share >= 1;
}

/*
 * Bound of what term it adds to the score of any chunk of its current block
 * (block-max WAND): the block's stored tfn bound (made with the index's
 * weights, like the term's) through the same saturation as the term's own
 * bound, never above that.  The name share, a joined term's name-only
 * fields and the priors only lower a score, so it holds for them too.
 */
static float q_block_bound_of(const q_ctx *qc, const q_it *it, uint8_t q)
{
	const float k1 = qc->docs ? mi_bm25f_params.k1[MI_SM_DOCS_MD] : qc->rp->k1;
	float tb = mi_post_dq(q), bmax = it->ub;

	if (qc->bounds && tb < INFINITY) {
		float b = it->w * tb * (k1 + 1) / (k1 + tb) * 1.0001f + 1e-6f;
		if (b < bmax)
			bmax = b;
	}
	return bmax;
}

/* Bound of what term req adds to any chunk of its block that no other
 * query term stands on (q_one_term): a chunk it alone names scores at
 * most the block's bound of those; any other's name counts by the share
 * of it the term is (q_name_share, whose exponent q_one_term asks to be at
 * least 1) and, in a one-identifier query (ident), takes the inexact
 * factor.  On the kernel nearly every block of `write` holds a name
 * that says it (sys_write, afs_file_write), so the plain block bound
 * passes over none of its 94,000 postings; few hold a function named
 * write. */
static float q_one_bound(const q_ctx *qc, q_it *req, bool ident)
{
	if (req->bone < 0) {
		float n = req->bqn ? q_block_bound_of(qc, req, req->bqn) : 0;
		float o = req->bqo ? q_block_bound_of(qc, req, req->bqo) : 0;
		req->bone = n;
		req->bone2 = o;
	}
	float o = ident ? req->bone2 * qc->rp->inexact : req->bone2;
	return req->bone > o ? req->bone : o;
}

/* The same for its current block, kept; a query of one term alone also
 * weighs a name by the share of it the term is (q_name_share), which the
 * block's one-word bounds hold (MI_POST_HDR). */
static float q_block_bound(const q_ctx *qc, q_it *it)
{
	if (it->bmax < 0) {
		it->bmax = q_block_bound_of(qc, it, it->bq);
		if (qc->one) {
			float o = q_one_bound(qc, it, false);
			it->bmax = o < it->bmax ? o : it->bmax;
		}
	}
	return it->bmax;
}

/* The weights, length normalisations and caps of scoring mode sm
 * (search_docs has two: Markdown sections and code chunks). */
static void q_mode(const q_ctx *qc, int sm, const float **w, const float **b,
		   const float **cap)
{
	int m = sm ? MI_SM_DOCS_CODE : MI_SM_DOCS_MD;
	*w = qc->docs ? mi_bm25f_params.w[m] : qc->rp->w;
	*b = qc->docs ? mi_bm25f_params.b[m] : qc->rp->b;
	*cap = qc->docs ? mi_bm25f_params.cap[m] : qc->rp->cap;
}

/* Field f's part of q_tf_bound in scoring mode sm for term frequency tf. */
static float q_tf_part(const q_ctx *qc, int sm, int f, uint32_t tf)
{
	const float *w, *b, *cap;
	q_mode(qc, sm, &w, &b, &cap);
	if (w[f] == 0)
		return 0;
	float x = (float)tf / (1 - b[f] + b[f] * (float)tf / qc->avg[f]);
	if (cap[f] > 0 && x > cap[f])
		x = cap[f];
	return w[f] * x;
}

/* Fills qc->tfx and qc->tfx_bad once the average lengths are known. */
static void q_tfx_init(q_ctx *qc)
{
	for (int sm = 0; sm < (qc->docs ? 2 : 1); sm++) {
		const float *w, *b, *cap;
		q_mode(qc, sm, &w, &b, &cap);
		for (int f = 0; f < MI_SF__COUNT; f++) {
			qc->tfx_bad[sm][f] = w[f] != 0 && (w[f] < 0 || !(b[f] >= 0 && b[f] <= 1));
			for (uint32_t tf = 0; tf < Q_TFX; tf++)
				qc->tfx[sm][f][tf] = q_tf_part(qc, sm, f, tf);
		}
	}
}

/*
 * Bound of the tfn of a posting in fields fl with term frequencies tf,
 * whatever its chunk: a field holding the term tf times is at least tf
 * terms long, so each field's part is at most w tf / (1 - b + b tf / avg),
 * the value at the shortest length it can have (search_docs: the larger
 * of a Markdown section's and a code chunk's).  INFINITY when a weight
 * or length normalisation is out of the range that argument needs.
 */
static float q_tf_bound(const q_ctx *qc, unsigned fl, const uint32_t *tf)
{
	float best = 0;

	/* Summed field by field in order, a part from the table or not: the
	 * same float as computing each. */
	for (int sm = 0; sm < (qc->docs ? 2 : 1); sm++) {
		float t = 0;
		for (unsigned m = fl & MI_POST_FIELDS; m; m &= m - 1) {
			int f = __builtin_ctz(m);
			if (qc->tfx_bad[sm][f])
				return INFINITY;
			t += tf[f] < Q_TFX ? qc->tfx[sm][f][tf[f]] : q_tf_part(qc, sm, f, tf[f]);
		}
		best = t > best ? t : best;
	}
	return best;
}

/* A term's score part for a chunk whose tfn is at most tb, rounded up. */
static float q_part_bound(const q_ctx *qc, const q_it *it, float tb)
{
	const float k1 = qc->docs ? mi_bm25f_params.k1[MI_SM_DOCS_MD] : qc->rp->k1;

	if (!(tb < INFINITY))
		return it->ub;
	return it->w * tb * (k1 + 1) / (k1 + tb) * 1.0001f + 1e-6f;
}

/* Fills it->ones_ub and it->one_ub. */
static void q_ones_init(const q_ctx *qc, q_it *it)
{
	static const uint32_t one[MI_SF__COUNT] = { 1, 1, 1, 1, 1 };

	for (unsigned fl = 0; fl < (1u << MI_SF__COUNT); fl++) {
		float b = q_part_bound(qc, it, q_tf_bound(qc, fl, one));
		it->ones_ub[fl] = b < it->ub ? b : it->ub;
	}
	for (int f = 0; f < MI_SF__COUNT; f++)
		for (uint32_t n = 0; n < Q_TFX; n++) {
			uint32_t tf[MI_SF__COUNT] = { 0 };
			tf[f] = n;
			float b = q_part_bound(qc, it, q_tf_bound(qc, 1u << f, tf));
			it->one_ub[f][n] = b < it->ub ? b : it->ub;
		}
}

/* The bound of what term it adds to its current chunk: its block's
 * bound, or when the chunk is not named by it, the block's bound over
 * such postings (a common word's body mentions are bounded far lower
 * than the chunks it names); and what its fields and term frequencies
 * allow at any length (q_tf_bound), when that is lower. */
static float q_entry_bound(const q_ctx *qc, q_it *it)
{
	float b, t;
	unsigned fl = it->flags & it->fmask & MI_POST_FIELDS;

	if (it->flags & (1u << MI_SF_NAME)) {
		b = q_block_bound(qc, it);
	} else {
		if (it->bmax2 < 0)
			it->bmax2 = q_block_bound_of(qc, it, it->bq2);
		b = it->bmax2;
	}
	if (it->ones) {
		t = it->ones_ub[fl];
	} else if (fl && !(fl & (fl - 1)) && it_tf(it)[__builtin_ctz(fl)] < Q_TFX) {
		int f = __builtin_ctz(fl); /* one field (most often the body): from the table */
		t = it->one_ub[f][it->tf[f]];
	} else {
		t = q_part_bound(qc, it, q_tf_bound(qc, fl, it_tf(it)));
	}
	return t < b ? t : b;
}

/*
 * Top-k when one term is required (the whole form of a one-identifier
 * query): only the chunks holding it are candidates, so its postings drive
 * and the other terms are sought to each of them.  Stops when even every
 * term at its bound cannot beat the k-th score.
 */
/* The end of a WAND pass: the first error of its iterators or of the
 * scoring, else the number of hits kept. */
static int q_wand_end(const q_ctx *qc, q_it **its, size_t nit, size_t nh, size_t *nhits)
{
	for (size_t i = 0; i < nit; i++)
		if (its[i]->err)
			return its[i]->err;
	if (qc->err)
		return qc->err;
	*nhits = nh;
	return 0;
}

static void q_theta_sync(q_ctx *qc, float *theta);

/* true when a search_code query is the one word of iterator req alone
 * (its abbreviations aside: an identifier is searched as written), scored
 * as the index's one-word bounds were made (q_one_bound). */
static bool q_one_word(const q_ctx *qc, const q_it *req, size_t nit)
{
	return nit == 1 && q_one_term(qc, req) && qc->ident && qc->ident_len == 1 &&
	       qc->rp->inexact >= 0 && qc->rp->inexact <= 1;
}

static int q_wand_req(q_ctx *qc, q_it **its, size_t nit, q_it *req,
		      q_hit *heap, size_t k, float theta, size_t *nhits)
{
	float all = 0;
	size_t nh = *nhits;
	bool one = q_one_word(qc, req, nit);

	for (size_t i = 0; i < nit; i++)
		all += its[i]->ub;
	while (req->doc < qc->end && !(theta > 0 && all <= theta) && !qc->err) {
		uint64_t pdoc = req->doc;
		if (qc->shared)
			q_theta_sync(qc, &theta);
		if (!q_fid_ok(qc->t, &qc->filt, (uint32_t)(pdoc >> 32), &qc->scratch)) {
			if ((pdoc >> 32) == UINT32_MAX)
				break;
			it_seek(req, ((pdoc >> 32) + 1) << 32);
			continue;
		}
		/* Once k hits are in: the identifier's chunks that its
		 * block's bound, or its posting's, with every other term at
		 * its own bound, keep under the k-th score are passed over
		 * without reading their lengths (the whole block at once). */
		/* A chunk whose name does not hold the identifier is not
		 * named by it: its score takes the inexact factor, a prior of
		 * search_code's alone (q_priors).  search_docs scores a
		 * section whose heading does not say the word as it scores
		 * one whose heading does. */
		float named = qc->docs || (req->flags & (1u << MI_SF_NAME)) ? 1 : qc->rp->inexact;
		if (theta > 0 && qc->prune && qc->bounds) {
			float others = all - req->ub;
			if (q_block_bound(qc, req) + others <= theta ||
			    (one && q_one_bound(qc, req, true) * 1.0001f <= theta)) {
				it_seek(req, req->blast == UINT32_MAX ? Q_END :
					     ((uint64_t)req->blast + 1) << 32);
				continue;
			}
			if ((q_entry_bound(qc, req) + others) * named <= theta) {
				it_next(req);
				continue;
			}
		}
		for (size_t i = 0; i < nit; i++)
			if (its[i] != req)
				it_seek(its[i], pdoc);
		q_sort_its(its, nit);
		/* The same with the other terms as they stand on it. */
		if (theta > 0 && qc->prune && qc->bounds && nit > 1) {
			float esum = 0;
			size_t last;
			for (last = 0; last < nit && its[last]->doc == pdoc; last++)
				esum += q_entry_bound(qc, its[last]);
			if (esum * named <= theta) {
				for (size_t i = 0; i < last; i++)
					it_next(its[i]);
				continue;
			}
		}
		q_score(qc, its, nit, pdoc, heap, k, &nh, &theta);
	}
	return q_wand_end(qc, its, nit, nh, nhits);
}

#define Q_SEED_POSTINGS 4096    /* postings the seed reads at most */
/* Candidates scored per hit asked for.  A candidate's weight from its
 * postings (average lengths, no name share) foretells its exact score
 * poorly: search_code's first threshold, at 4 per hit, was a median 0.49
 * of the final k-th score on the kernel's slowest searches, 0.74 at 16
 * (and those searches 7% faster in all); search_docs asks for fewer hits
 * and is slower with more candidates (docs/benchmarks.md). */
#define Q_SEED_PER_K 16
#define Q_SEED_PER_K_DOCS 4
#define Q_SEED_MAX 512

/*
 * A first k-th score for the main pass.  WAND's threshold starts at 0 and
 * rises only as hits come in, in file order; on a large index the best
 * hits of a query often sit in late files, and until then every chunk
 * holding a few of its common words is scored (on the whole kernel, 16,000
 * chunks for "mpi3mr cfg get sas phy pg1", 600 once the threshold is
 * known).  So first the postings of the query's rarest terms are read
 * (bounded), the chunks where those terms weigh most are scored exactly,
 * and the k-th best of those scores, being the score of k real chunks,
 * cannot exceed the final k-th score: the main pass prunes from there at
 * once and finds the same top k.  0 when fewer than k candidates score.
 */
/* A seed candidate's tfn from its posting alone, with average field
 * lengths.  search_docs weighs a code chunk by its doc comment alone and
 * a Markdown section by its heading, path and body, and whether a chunk
 * is a section is not in its postings: a posting in a doc comment is
 * weighed as a code chunk's, any other as a section's at a quarter (most
 * chunks are code, and those only score by their doc comments). */
static float q_seed_tfn(const q_ctx *qc, q_it *it, const uint32_t *alen)
{
	unsigned fl = it->flags & it->fmask;

	if (!qc->docs)
		return q_tfn(qc->rp, 1, fl, it_tf(it), alen, qc->avg);
	if (fl & (1u << MI_SF_DOC))
		return mi_bm25f_tfn(MI_SM_DOCS_MD, fl & ~MI_POSTF_MD, it_tf(it), alen, qc->avg);
	return 0.25f * mi_bm25f_tfn(MI_SM_DOCS_MD, fl | MI_POSTF_MD, it_tf(it), alen, qc->avg);
}

#define Q_SEED_RUN_WORDS 8      /* query words whose runs are tried as identifiers */
#define Q_SEED_RUN_POSTINGS 64  /* postings read per such identifier */

/*
 * Candidates for the seed from identifiers the query spells out word by
 * word: "v4l2 spi new subdev" is v4l2_spi_new_subdev, whose whole form
 * (lowercased, '_' removed: "v4l2spinewsubdev") is a term of the chunks
 * naming or calling it.  Each run of two or more consecutive query words
 * (of the first Q_SEED_RUN_WORDS), longest first, is looked up as a term
 * and its chunks (at most Q_SEED_RUN_POSTINGS each, half the seed's
 * candidates in all) are put in cand before any other: they are only
 * candidates, scored exactly with the query's own terms like the rest, so
 * a run that is no identifier costs a lookup and changes no score.
 */
static void q_seed_runs(q_ctx *qc, mi_txn *t, const char *q, size_t qlen, const q_it *its,
			size_t nit, q_hit *cand, size_t *nc, size_t cap)
{
	char w[Q_SEED_RUN_WORDS][MI_TOK_MAX];
	size_t wl[Q_SEED_RUN_WORDS], nw = 0, room = cap / 2;

	for (size_t i = 0, at, n; nw < Q_SEED_RUN_WORDS && q_word(q, qlen, &i, &at, &n);) {
		if (n <= MI_TOK_MAX) {
			q_lower(w[nw], q + at, n);
			wl[nw++] = n;
		}
	}
	for (size_t len = nw; len >= 2 && room; len--)
		for (size_t a = 0; a + len <= nw && room; a++) {
			char term[MI_TOK_MAX];
			size_t tl = 0;
			const void *v;
			size_t vl;
			bool fits = true, dup = false;
			for (size_t x = a; x < a + len && fits; x++) {
				fits = tl + wl[x] <= MI_TOK_MAX;
				if (fits) {
					memcpy(term + tl, w[x], wl[x]);
					tl += wl[x];
				}
			}
			for (size_t i = 0; fits && i < nit && !dup; i++)
				dup = its[i].tl == tl && !memcmp(its[i].key, term, tl);
			if (!fits || dup || mi_get(t, MI_DB_TERMS, term, tl, &v, &vl))
				continue;
			q_it it;
			memset(&it, 0, sizeof(it));
			it.fmask = ~0u; /* every posting is a candidate */
			if (it_open(&it, t, term, tl)) {
				mi_cursor_close(it.c);
				continue;
			}
			for (size_t n = 0; it.doc != Q_END && n < Q_SEED_RUN_POSTINGS && room; n++) {
				if (q_fid_ok(t, &qc->filt, (uint32_t)(it.doc >> 32), &qc->scratch)) {
					q_heap_push(cand, nc, cap, (q_hit){ FLT_MAX, it.doc });
					room--;
				}
				it_next(&it);
			}
			mi_cursor_close(it.c);
		}
}

#define Q_SEED_MORE 2           /* common terms whose best blocks the seed reads */
#define Q_SEED_MORE_MIN 256     /* budget left for that */
#define Q_SEED_BLOCKS 2         /* blocks read per such term */
#define Q_SEED_HEADS 4096       /* block heads looked at per such term */

/*
 * Seed candidates from a term too common to read whole: the heads of its
 * postings blocks (at most Q_SEED_HEADS) are looked at, and the
 * Q_SEED_BLOCKS with the highest bounds are read (within *budget
 * postings), each chunk weighed by what the term gives it with average
 * field lengths.
 */
static void q_seed_best_blocks(q_ctx *qc, mi_txn *t, const q_it *src, const uint32_t *alen,
			       q_hit *cand, size_t *nc, size_t cap, size_t *budget)
{
	const float k1 = qc->docs ? mi_bm25f_params.k1[MI_SM_DOCS_MD] : qc->rp->k1;
	uint32_t best[Q_SEED_BLOCKS];
	int bq[Q_SEED_BLOCKS];
	size_t nb = 0;
	const void *k, *v;
	size_t kl, vl;
	mi_cursor *c;
	q_it it;

	memset(&it, 0, sizeof(it));
	memcpy(it.key, src->key, src->tl + 1);
	it.tl = src->tl;
	it.w = src->w;
	it.fmask = src->fmask;
	it.docs = src->docs;
	if (mi_cursor_open(t, MI_DB_POST, &c))
		return;
	int rc = mi_cursor_seek(c, it.key, it.tl + 1, &k, &kl, &v, &vl);
	for (size_t h = 0; !rc && h < Q_SEED_HEADS; h++) {
		if (kl != it.tl + 5 || memcmp(k, it.key, it.tl + 1) || vl < MI_POST_HDR)
			break;
		int q = ((const uint8_t *)v)[it.docs ? 1 : 0];
		size_t at = nb < Q_SEED_BLOCKS ? nb++ : Q_SEED_BLOCKS;
		if (at == Q_SEED_BLOCKS) {
			size_t lo = 0;
			for (size_t i = 1; i < nb; i++)
				lo = bq[i] < bq[lo] ? i : lo;
			at = q > bq[lo] ? lo : Q_SEED_BLOCKS;
		}
		if (at < Q_SEED_BLOCKS) {
			bq[at] = q;
			best[at] = mi_rd32((const uint8_t *)k + it.tl + 1);
		}
		rc = mi_cursor_next(c, &k, &kl, &v, &vl);
	}
	it.c = c;
	for (size_t b = 0; b < nb && *budget; b++) {
		mi_be32(it.key + it.tl + 1, best[b]);
		rc = mi_cursor_seek(c, it.key, it.tl + 5, &k, &kl, &v, &vl);
		it.doc = 0;
		it_value(&it, rc, k, kl, v, vl);
		if (it.doc != Q_END)
			it_next(&it);
		while (it.doc != Q_END && it.blast == best[b] && *budget) {
			if (q_fid_ok(t, &qc->filt, (uint32_t)(it.doc >> 32), &qc->scratch)) {
				float tfn = q_seed_tfn(qc, &it, alen);
				if (tfn > 0)
					q_heap_push(cand, nc, cap,
						    (q_hit){ it.w * tfn * (k1 + 1) / (k1 + tfn), it.doc });
			}
			it_next(&it);
			(*budget)--;
		}
	}
	mi_cursor_close(c);
}

static float q_seed(q_ctx *qc, mi_txn *t, q_it *its, size_t nit, size_t k,
		    const char *q, size_t qlen)
{
	const float k1 = qc->docs ? mi_bm25f_params.k1[MI_SM_DOCS_MD] : qc->rp->k1;
	size_t nc = 0, cap = k * (qc->docs ? Q_SEED_PER_K_DOCS : Q_SEED_PER_K);
	size_t budget = Q_SEED_POSTINGS, n2 = 0, nd = 0;
	bool used[Q_MAX_TERMS + Q_MAX_JOINED + Q_MAX_ABBR] = { false };
	q_it seeds[Q_MAX_TERMS + Q_MAX_JOINED + Q_MAX_ABBR], *sit = NULL, **sp = NULL;
	size_t ns = 0;
	q_hit *cand, *h2 = NULL;
	float theta0 = 0, th2 = 0;

	uint32_t alen[MI_SF__COUNT];

	if (cap > Q_SEED_MAX)
		cap = Q_SEED_MAX;
	if (nit < 2 || k > cap)
		return 0;
	for (int f = 0; f < MI_SF__COUNT; f++)
		alen[f] = (uint32_t)lroundf(qc->avg[f]);
	cand = mi_xmalloc(cap * sizeof(*cand));
	q_seed_runs(qc, t, q, qlen, its, nit, cand, &nc, cap);
	/* The rarest terms whose postings fit the budget (at least the
	 * rarest, then read in part), merged: a chunk's candidate score is
	 * what those terms give it together. */
	for (size_t left = budget; ns < nit;) {
		size_t j = nit;
		for (size_t i = 0; i < nit; i++)
			if (!used[i] && (j == nit || its[i].df < its[j].df))
				j = i;
		if (j == nit || (ns && its[j].df > left))
			break;
		used[j] = true;
		left -= its[j].df < left ? its[j].df : left;
		memset(&seeds[ns], 0, sizeof(seeds[ns]));
		seeds[ns].w = its[j].w;
		seeds[ns].fmask = its[j].fmask;
		seeds[ns].docs = its[j].docs;
		if (it_open(&seeds[ns], t, (const char *)its[j].key, its[j].tl))
			break;
		ns++;
	}
	while (budget) {
		uint64_t d = Q_END;
		float sum = 0;
		for (size_t i = 0; i < ns; i++)
			if (seeds[i].doc < d)
				d = seeds[i].doc;
		if (d == Q_END)
			break;
		bool ok = q_fid_ok(t, &qc->filt, (uint32_t)(d >> 32), &qc->scratch);
		for (size_t i = 0; i < ns; i++) {
			q_it *it = &seeds[i];
			if (it->doc != d)
				continue;
			if (ok) {
				/* A candidate's weight from its postings alone, with
				 * average field lengths (the chunk's own are read
				 * for the few scored below, not for every posting). */
				float tfn = q_seed_tfn(qc, it, alen);
				if (tfn > 0)
					sum += it->w * tfn * (k1 + 1) / (k1 + tfn);
			}
			it_next(it);
			budget -= budget > 0;
		}
		if (sum > 0)
			q_heap_push(cand, &nc, cap, (q_hit){ sum, d });
	}
	for (size_t i = 0; i < ns; i++)
		mi_cursor_close(seeds[i].c);
	/* The next rarest terms, too common to read whole: their blocks with
	 * the highest bounds (the chunks they name), with what is left of the
	 * budget. */
	for (int more = 0; more < Q_SEED_MORE && budget >= Q_SEED_MORE_MIN; more++) {
		size_t j = nit;
		for (size_t i = 0; i < nit; i++)
			if (!used[i] && !its[i].joined && !its[i].abbr &&
			    (j == nit || its[i].df < its[j].df))
				j = i;
		if (j == nit)
			break;
		used[j] = true;
		q_seed_best_blocks(qc, t, &its[j], alen, cand, &nc, cap, &budget);
	}
	qsort(cand, nc, sizeof(*cand), q_hit_doc_cmp);
	for (size_t i = 0; i < nc; i++)
		if (!nd || cand[nd - 1].doc != cand[i].doc)
			cand[nd++] = cand[i];
	if (nd < k)
		goto out;
	/* The candidates' exact scores, from iterators of their own. */
	sit = mi_xcalloc(nit, sizeof(*sit));
	sp = mi_xmalloc(nit * sizeof(*sp));
	h2 = mi_xmalloc(k * sizeof(*h2));
	for (size_t i = 0; i < nit; i++) {
		sit[i] = its[i];
		sit[i].c = NULL;
		if (it_open(&sit[i], t, (const char *)its[i].key, its[i].tl))
			goto out;
		sp[i] = &sit[i];
	}
	for (size_t c = 0; c < nd; c++) {
		for (size_t i = 0; i < nit; i++)
			it_seek(sp[i], cand[c].doc);
		q_sort_its(sp, nit);
		if (sp[0]->doc == cand[c].doc)
			q_score(qc, sp, nit, cand[c].doc, h2, k, &n2, &th2);
	}
	/* A hair under, so a chunk tied with the k-th is still weighed. */
	if (n2 == k)
		theta0 = h2[0].score * (1 - 1e-4f);
out:
	for (size_t i = 0; sit && i < nit; i++)
		mi_cursor_close(sit[i].c);
	free(sit);
	free(sp);
	free(h2);
	free(cand);
	return theta0;
}

/*
 * Moves it past the chunks before lim and inside its current block whose
 * score, with it their only query term, cannot beat theta: their tfn with
 * the whole name weight gives a bound q_score's name share and priors only
 * lower.  Each costs a decode and a tfn, not a sort, a pivot and a
 * scoring.  true when it moved.
 */
static bool q_lone_skip(q_ctx *qc, q_it *it, uint64_t lim, float theta)
{
	const float k1 = qc->docs ? mi_bm25f_params.k1[MI_SM_DOCS_MD] : qc->rp->k1;
	uint32_t blast = it->blast;
	bool moved = false;

	/* Its chunks here meet no other query word: their coverage factor
	 * is its own. */
	theta /= it->cov1;
	while (it->doc < lim && it->blast == blast) {
		if (qc->bounds && q_entry_bound(qc, it) <= theta) {
			it_next(it); /* bounded without reading the chunk's lengths */
			moved = true;
			continue;
		}
		const uint32_t *cl = q_chunk(qc, it->doc);
		unsigned fl = (it->flags | cl[0]) & it->fmask;
		float tfn = qc->docs ? mi_bm25f_tfn(MI_SM_DOCS_MD, fl, it_tf(it), cl + 1, qc->avg) :
				       q_tfn(qc->rp, 1, fl, it_tf(it), cl + 1, qc->avg);
		if (qc->err || it->w * tfn * (k1 + 1) / (k1 + tfn) * 1.0001f + 1e-6f > theta)
			break;
		it_next(it);
		moved = true;
	}
	return moved;
}

/* theta = the larger of it and the k-th score another pass has (scores
 * are >= 0, so their float bits order like the floats), and the same for
 * the shared one. */
static void q_theta_sync(q_ctx *qc, float *theta)
{
	uint32_t mine, seen = atomic_load_explicit(qc->shared, memory_order_relaxed);
	float other;

	memcpy(&other, &seen, sizeof(other));
	if (other > *theta) {
		*theta = other;
		return;
	}
	memcpy(&mine, theta, sizeof(mine));
	while (mine > seen &&
	       !atomic_compare_exchange_weak_explicit(qc->shared, &seen, mine,
						      memory_order_relaxed, memory_order_relaxed))
		;
}

/* Top k of the chunks from the iterators' places up to qc->end into heap,
 * which holds *nhits already (and holds *nhits after). */
static int q_wand(q_ctx *qc, q_it **its, size_t nit, q_hit *heap, size_t k,
		  float theta, size_t *nhits)
{
	size_t nh = *nhits, moved = nit;

	while (!qc->err) {
		size_t pivot = nit, i;
		float acc = 0;
		uint64_t pdoc;

		if (qc->shared)
			q_theta_sync(qc, &theta);
		/* Only the iterators the last step advanced are out of order. */
		q_resort(its, nit, moved);
		/* A chunk before its[i]'s holds none but its[0..i), so their
		 * bounds and the coverage factor of their words bound it. */
		uint64_t cov = 0;
		for (i = 0; i < nit && its[i]->doc != Q_END; i++) {
			acc += its[i]->ub;
			cov |= its[i]->covers;
			if (acc > theta && acc * q_cover(qc, cov) > theta) {
				pivot = i;
				break;
			}
		}
		if (pivot == nit)
			break;
		pdoc = its[pivot]->doc;
		if (pdoc >= qc->end)
			break;
		size_t last;
		for (last = pivot + 1; last < nit && its[last]->doc == pdoc; last++)
			;
		if (its[0]->doc != pdoc) {
			/* Before the iterators behind move to pdoc: the chunks
			 * from pdoc up to the end of the first block known to
			 * hold them (and before the next term's chunk) can only
			 * hold the terms up to pdoc's, each at most its block's
			 * bound where its current block reaches pdoc's file, else
			 * its own bound; when those cannot beat the k-th score,
			 * the iterators skip them all undecoded. */
			uint64_t next = last < nit ? its[last]->doc : Q_END;
			if (theta > 0 && qc->prune) {
				uint32_t pf = (uint32_t)(pdoc >> 32);
				float bsum = 0;
				for (i = 0; i < last; i++) {
					if (its[i]->blast >= pf) {
						bsum += q_block_bound(qc, its[i]);
						if (its[i]->blast != UINT32_MAX &&
						    ((uint64_t)its[i]->blast + 1) << 32 < next)
							next = ((uint64_t)its[i]->blast + 1) << 32;
					} else {
						bsum += its[i]->ub;
					}
				}
				if (bsum * q_cover_its(qc, its, last) <= theta) {
					for (i = 0; i < last; i++)
						it_seek(its[i], next);
					moved = last;
					continue;
				}
			}
			for (i = 0; i < pivot; i++)
				it_seek(its[i], pdoc);
			moved = pivot;
			continue;
		}
		/* Block-max: pdoc and the chunks after it up to the end of the
		 * first of the blocks holding it (and before the next term's
		 * chunk) can only hold the terms standing on pdoc, each at most
		 * its block's bound: when those cannot beat the k-th score, they
		 * are all skipped. */
		if (theta > 0 && qc->prune) {
			float bsum = 0, cf = q_cover_its(qc, its, last);
			uint32_t end = UINT32_MAX;
			for (i = 0; i < last; i++) {
				bsum += q_block_bound(qc, its[i]);
				if (its[i]->blast < end)
					end = its[i]->blast;
			}
			if (bsum * cf <= theta) {
				uint64_t next = end == UINT32_MAX ? Q_END : (uint64_t)(end + 1) << 32;
				if (last < nit && its[last]->doc < next)
					next = its[last]->doc;
				for (i = 0; i < last; i++)
					it_seek(its[i], next);
				moved = last;
				continue;
			}
			/* One term alone up to the next term's chunk (a common
			 * word beside rarer ones: `write` beside its
			 * abbreviations `writ` and `wri` for "writes"): its
			 * chunks there meet no other term, so their names count
			 * by its share of them alone, which the block's one-word
			 * bounds hold; when those cannot beat the k-th score the
			 * block is passed over up to the next term's chunk. */
			if (last == 1 && !qc->one && q_one_term(qc, its[0]) &&
			    q_one_bound(qc, its[0], false) * cf <= theta) {
				uint64_t next = its[0]->blast == UINT32_MAX ? Q_END :
						((uint64_t)its[0]->blast + 1) << 32;
				if (nit > 1 && its[1]->doc < next)
					next = its[1]->doc;
				it_seek(its[0], next);
				moved = 1;
				continue;
			}
			/* Else its chunks that cannot make the top k are passed
			 * over one by one, cheaply. */
			if (last == 1 && q_lone_skip(qc, its[0], nit > 1 ? its[1]->doc : Q_END,
						     theta)) {
				moved = 1;
				continue;
			}
			/* pdoc alone: its terms' bounds as its postings say
			 * (named or not), read before its lengths are. */
			float esum = 0;
			for (i = 0; i < last; i++)
				esum += q_entry_bound(qc, its[i]);
			if (esum * cf <= theta) {
				for (i = 0; i < last; i++)
					it_next(its[i]);
				moved = last;
				continue;
			}
		}
		if (!q_fid_ok(qc->t, &qc->filt, (uint32_t)(pdoc >> 32), &qc->scratch)) {
			uint64_t next = ((pdoc >> 32) + 1) << 32;
			if ((pdoc >> 32) == UINT32_MAX)
				next = Q_END;
			for (i = 0; i < nit && its[i]->doc < next; i++)
				it_seek(its[i], next);
			moved = i;
			continue;
		}
		q_score(qc, its, nit, pdoc, heap, k, &nh, &theta);
		moved = last;
	}
	return q_wand_end(qc, its, nit, nh, nhits);
}

#ifndef Q_SPLIT_MIN
#define Q_SPLIT_MIN 100000      /* postings of a query worth a second thread */
#endif
#define Q_SPLIT_HEADS 8192      /* block heads looked at for the slices */
#define Q_SLICES 64             /* slices of the file ids the two passes share out (8 left
				 * one pass most of a query whose words crowd one part of
				 * the tree: "test" in tools/testing/) */

/* The slices of a split query: slice s is the chunks of files cut[s] to
 * cut[s + 1] - 1 (the last: to the end); each pass takes the next one not
 * taken. */
typedef struct q_slices {
	uint32_t cut[Q_SLICES];
	size_t n;
	_Atomic size_t next;
} q_slices;

/* One pass of a split query: q_wand (q_wand_req when a term is required)
 * over each slice it takes, in order (so its iterators only move
 * forward), into one heap. */
static int q_wand_slices(q_ctx *qc, q_it **its, size_t nit, q_it *req, q_hit *heap, size_t k,
			 float theta, size_t *nhits, q_slices *sl)
{
	int err = 0;

	for (size_t s; !err && (s = atomic_fetch_add(&sl->next, 1)) < sl->n;) {
		uint64_t from = (uint64_t)sl->cut[s] << 32;
		qc->end = s + 1 < sl->n ? (uint64_t)sl->cut[s + 1] << 32 : Q_END;
		/* q_wand_req seeks the other terms to each chunk req is on */
		for (size_t i = 0; i < nit; i++)
			if (!req || its[i] == req)
				it_seek(its[i], from);
		if (*nhits == k && heap[0].score > theta)
			theta = heap[0].score;
		err = req ? q_wand_req(qc, its, nit, req, heap, k, theta, nhits) :
			    q_wand(qc, its, nit, heap, k, theta, nhits);
	}
	return err;
}

/* The second pass of q_wand_split. */
typedef struct q_half {
	q_ctx qc;
	q_it its[Q_MAX_TERMS + Q_MAX_JOINED + Q_MAX_ABBR];
	q_it *itp[Q_MAX_TERMS + Q_MAX_JOINED + Q_MAX_ABBR];
	q_it *req;                 /* the required term's, or NULL */
	size_t nit, k, nh;
	q_hit *heap;
	float theta;
	q_slices *sl;
	int err;
} q_half;

static void q_half_main(void *arg)
{
	q_half *h = arg;

	h->err = q_wand_slices(&h->qc, h->itp, h->nit, h->req, h->heap, h->k, h->theta, &h->nh,
			       h->sl);
}

/* Cuts term it's postings blocks into up to Q_SLICES runs of as many
 * blocks: sl->cut the first file id of each; false when it has fewer
 * than two blocks. */
static bool q_split_cuts(mi_txn *t, const q_it *it, q_slices *sl)
{
	uint32_t last[Q_SPLIT_HEADS];
	size_t n = 0;
	const void *k, *v;
	size_t kl, vl;
	mi_cursor *c;

	if (mi_cursor_open(t, MI_DB_POST, &c))
		return false;
	int rc = mi_cursor_seek(c, it->key, it->tl + 1, &k, &kl, &v, &vl);
	while (!rc && n < Q_SPLIT_HEADS && kl == it->tl + 5 && !memcmp(k, it->key, it->tl + 1)) {
		last[n++] = mi_rd32((const uint8_t *)k + it->tl + 1);
		rc = mi_cursor_next(c, &k, &kl, &v, &vl);
	}
	mi_cursor_close(c);
	sl->cut[0] = 0;
	sl->n = 1;
	for (size_t s = 1; s < Q_SLICES && n >= 2; s++) {
		size_t b = n * s / Q_SLICES;
		uint32_t f = b ? last[b - 1] : 0;
		if (b && f != UINT32_MAX && f + 1 > sl->cut[sl->n - 1])
			sl->cut[sl->n++] = f + 1;
	}
	atomic_init(&sl->next, 0);
	return sl->n >= 2;
}

/*
 * q_wand over slices of the file ids shared out between two passes, the
 * second on the query's helper thread (pair.c; here when it is busy)
 * with a read transaction of its own (on the same snapshot), each taking
 * the next slice no pass has taken, both pruning with the larger of their
 * k-th scores: a chunk one pass passes over cannot beat k chunks the
 * other has, so the best k of the two heaps are the best k of one pass.
 * Taken as they come, the slices keep both passes busy to the end
 * whatever each costs, and a pass that gets no core leaves its share to
 * the other.  On a query whose terms hold many postings the search takes
 * about half the time on an idle second core.  false (nothing done) when
 * the query is small, the machine has one core (no helper), the postings
 * do not split or no second transaction
 * on the same snapshot can be had; the caller then runs q_wand alone.
 * Else *err is q_wand's.  its holds the query's nall terms, itp the nit
 * of them searched; with req (the required term of a one-identifier
 * query, which drives q_wand_req) the slices are its blocks.
 */
static bool q_wand_split(q_ctx *qc, mi_store *st, q_it *its, size_t nall, q_it **itp,
			 size_t nit, q_it *req, q_hit *heap, size_t k, float theta,
			 size_t *nhits, int *err)
{
	size_t total = 0, big = 0;
	q_half *h;
	mi_txn *t2 = NULL;
	_Atomic uint32_t shared;
	uint32_t bits;
	q_slices sl;

	if (req) {
		total = req->df; /* the postings q_wand_req walks */
	} else {
		for (size_t i = 0; i < nit; i++) {
			total += itp[i]->df;
			big = itp[i]->df > itp[big]->df ? i : big;
		}
	}
	if (total < qc->split_min || (nit < 2 && !req) || !mi_q_pair_up() ||
	    !q_split_cuts(qc->t, req ? req : itp[big], &sl))
		return false;
	if (mi_txn_begin(st, false, &t2) || !mi_txn_same(qc->t, t2)) {
		mi_txn_abort(t2);
		return false;
	}
	h = mi_xcalloc(1, sizeof(*h));
	h->qc = *qc;
	h->qc.t = t2;
	h->qc.scratch = (mi_buf){ 0 };
	memset(&h->qc.lens, 0, sizeof(h->qc.lens));
	h->nit = nit;
	h->k = k;
	h->theta = theta;
	h->sl = &sl;
	h->heap = mi_xmalloc(k * sizeof(*h->heap));
	bool done = true;
	for (size_t i = 0; i < nall && done; i++) {
		h->its[i] = its[i];
		h->its[i].c = NULL;
		done = !it_open(&h->its[i], t2, (const char *)its[i].key, its[i].tl);
	}
	for (size_t i = 0; i < nit; i++)
		h->itp[i] = &h->its[itp[i] - its];
	h->req = req ? &h->its[req - its] : NULL;
	if (!done)
		goto out;
	memcpy(&bits, &theta, sizeof(bits));
	atomic_init(&shared, bits);
	qc->shared = h->qc.shared = &shared;
	bool threaded = mi_q_pair_start(q_half_main, h);
	size_t na = 0;
	*err = q_wand_slices(qc, itp, nit, req, heap, k, theta, &na, &sl);
	if (threaded)
		mi_q_pair_wait();
	else
		q_half_main(h);
	qc->shared = NULL;
	qc->end = Q_END;
	if (!*err)
		*err = h->err;
	if (!*err) {
		/* The best k of both heaps, in heap's room. */
		q_hit *all = mi_xmalloc((na + h->nh + 1) * sizeof(*all));
		memcpy(all, heap, na * sizeof(*all));
		memcpy(all + na, h->heap, h->nh * sizeof(*all));
		qsort(all, na + h->nh, sizeof(*all), q_hit_cmp);
		*nhits = na + h->nh < k ? na + h->nh : k;
		memcpy(heap, all, *nhits * sizeof(*all));
		free(all);
	}
out:
	for (size_t i = 0; i < nall; i++)
		mi_cursor_close(h->its[i].c);
	mi_cursor_close(h->qc.lens.c);
	mi_buf_release(&h->qc.scratch);
	free(h->heap);
	free(h);
	mi_txn_abort(t2);
	return done;
}

/* The query without the blanks around it. */
static void q_trim(const char **q, size_t *qlen)
{
	while (*qlen && ((*q)[*qlen - 1] == ' ' || (*q)[*qlen - 1] == '\t' ||
			 (*q)[*qlen - 1] == '\n'))
		(*qlen)--;
	while (*qlen && (**q == ' ' || **q == '\t' || **q == '\n')) {
		(*q)++;
		(*qlen)--;
	}
}

/* A byte of an identifier: a letter, a digit, '_' or part of a UTF-8
 * character. */
static bool q_ident_byte(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c >= 0x80;
}

/* Whether the query (blanks around it aside) is one name written with
 * hyphens between its words: identifier bytes and '-', a hyphen between
 * two of the others. */
static bool q_kebab(const char *q, size_t qlen)
{
	bool hyphen = false;

	q_trim(&q, &qlen);
	for (size_t i = 0; i < qlen; i++) {
		if (q[i] == '-') {
			if (!i || i + 1 == qlen || q[i + 1] == '-')
				return false;
			hyphen = true;
		} else if (!q_ident_byte((uint8_t)q[i])) {
			return false;
		}
	}
	return hyphen;
}

/*
 * A query that is one identifier ("ext4_mb_new_blocks", "parseConfig",
 * spaces around it aside) requires its whole form when that is a term: the
 * chunks that hold the identifier are the answer, like grep, and a chunk
 * that merely shares a part ("new", "block") is not.  Returns the whole
 * form's iterator, or NULL for any other query or when the index does not
 * hold the identifier (then the parts are searched as usual).  A whole
 * form longer than a term (MI_TOK_MAX: register macros such as
 * SYSHUBMMREGIND_DMA_CLK0_SW2_CL0_CNTL__QOS_STATIC_OVERRIDE_VALUE__SHIFT)
 * is not in the index, but every chunk holding the identifier holds each
 * of its parts: when all nparts are terms, the rarest is required.
 */
static q_it *q_required(const char *q, size_t qlen, q_it *its, size_t nit, size_t nparts)
{
	char whole[MI_TOK_MAX];
	size_t wl = 0;
	bool longer = false;

	q_trim(&q, &qlen);
	for (size_t i = 0; i < qlen; i++) {
		uint8_t c = (uint8_t)q[i];
		if (!q_ident_byte(c))
			return NULL;
		if (c == '_')
			continue;
		if (wl == sizeof(whole))
			longer = true;
		else
			whole[wl++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	if (wl < 2)
		return NULL;
	q_it *rare = NULL;
	size_t found = 0;
	for (size_t i = 0; i < nit; i++) {
		if (!longer && its[i].tl == wl && !memcmp(its[i].key, whole, wl))
			return &its[i];
		if (its[i].joined || its[i].abbr)
			continue;
		found++;
		if (!rare || its[i].df < rare->df)
			rare = &its[i];
	}
	return longer && found == nparts ? rare : NULL;
}

/* ---- semantic evidence -------------------------------------------------------------- */

#define Q_EVIDENCE_POOL 100     /* BM25F candidates weighed against evidence */

/* The chunk (fid << 32 | n) evidence e names, or Q_END: the file's chunk
 * when e names no symbol, else the chunk starting at e->line, else the
 * first one named like e->symbol's last part. */
static uint64_t q_evidence_doc(mi_txn *t, const mi_search_evidence *e)
{
	const void *v;
	size_t vl;
	mi_file_rec rec;
	uint64_t doc = Q_END, by_name = Q_END;
	const char *sym = e->symbol ? e->symbol : "";
	const char *dot = strrchr(sym, '.');
	const char *base = dot ? dot + 1 : sym;
	size_t bl = strlen(base);

	if (!e->path || mi_get(t, MI_DB_FILES, e->path, strlen(e->path), &v, &vl) ||
	    mi_file_decode(v, vl, &rec))
		return Q_END;
	mi_file_rec_release(&rec);
	mi_syms it;
	uint32_t n;
	if (mi_chunks_open(t, rec.file_id, 0, &it)) {
		mi_syms_close(&it);
		return Q_END;
	}
	while (doc == Q_END && !mi_syms_next(&it, &v, &vl, &n)) {
		mi_chunk ch;
		if (mi_chunk_decode(v, vl, &ch))
			continue;
		uint64_t d = (uint64_t)rec.file_id << 32 | n;
		if (!*sym) {
			if (ch.kind == MI_KIND_NONE)
				doc = d;
		} else if (e->line && ch.start_line == e->line && ch.kind != MI_KIND_NONE) {
			doc = d;
		} else if (by_name == Q_END && ch.kind != MI_KIND_NONE && ch.name_len == bl &&
			   !memcmp(ch.name, base, bl)) {
			by_name = d;
		}
	}
	mi_syms_close(&it);
	return doc != Q_END ? doc : by_name;
}

/*
 * Weighs the evidence against the BM25F hits heap[0..*nh) (sorted, best
 * first): each list scaled by its best score, (1 - w) * bm25f + w *
 * evidence (a chunk's best evidence item), a chunk only the evidence names
 * joining with its evidence alone.  Leaves the best k, sorted, in *heap
 * (reallocated).
 */
static void q_weigh_evidence(mi_txn *t, const mi_search_opts *o, q_hit **heap,
			     size_t *nh, size_t k)
{
	float w = o->semantic_weight < 0 ? MI_SEMANTIC_WEIGHT_DEFAULT :
		  o->semantic_weight > 1 ? 1 : o->semantic_weight;
	float bmax = *nh ? (*heap)[0].score : 0, emax = 0;
	size_t nb = *nh, ne = 0, n = 0;
	q_hit *bm = *heap, *ev = mi_xmalloc((o->nevidence + 1) * sizeof(*ev));
	q_hit *all = mi_xmalloc((nb + o->nevidence + 1) * sizeof(*all));

	for (size_t i = 0; i < o->nevidence; i++)
		if (o->evidence[i].score > emax)
			emax = o->evidence[i].score;
	for (size_t i = 0; i < o->nevidence && emax > 0; i++) {
		const mi_search_evidence *e = &o->evidence[i];
		uint64_t doc;
		if (e->score > 0 && (doc = q_evidence_doc(t, e)) != Q_END)
			ev[ne++] = (q_hit){ w * e->score / emax, doc };
	}
	for (size_t i = 0; i < nb; i++)
		bm[i].score = bmax > 0 ? (1 - w) * bm[i].score / bmax : 0;
	qsort(bm, nb, sizeof(*bm), q_hit_doc_cmp);
	qsort(ev, ne, sizeof(*ev), q_hit_doc_cmp);
	/* Union by chunk: BM25F share plus the best evidence. */
	for (size_t i = 0, j = 0; i < nb || j < ne;) {
		if (j == ne || (i < nb && bm[i].doc < ev[j].doc)) {
			all[n++] = bm[i++];
			continue;
		}
		q_hit h = { 0, ev[j].doc };
		if (i < nb && bm[i].doc == ev[j].doc)
			h.score = bm[i++].score;
		float best = 0;
		for (uint64_t d = ev[j].doc; j < ne && ev[j].doc == d; j++)
			best = ev[j].score > best ? ev[j].score : best;
		h.score += best;
		all[n++] = h;
	}
	qsort(all, n, sizeof(*all), q_hit_cmp);
	free(bm);
	free(ev);
	*heap = all;
	*nh = n < k ? n : k;
}

/* ---- rendering --------------------------------------------------------------------- */

typedef struct q_res {
	uint64_t doc;
	int pct;
	float score;               /* BM25F (mi_query_set_scores) */
	mi_chunk c;                /* points into the map */
	char *path;                /* malloc'd */
	char *content;             /* malloc'd snippet */
	const void *src;           /* the file's source, once read (until the txn ends) */
	size_t src_len;
} q_res;

/* Folded snippet: lines [from, to] of src, at most Q_SNIP_LINES of them,
 * then a line saying how many more were folded. */
static char *q_snippet(const char *src, size_t len, uint32_t from, uint32_t to,
		       uint32_t from_byte)
{
	mi_buf b = { 0 };
	uint32_t line = 1, shown = 0;
	size_t i = 0;

	/* The record says where line `from` starts; trust it when it looks right. */
	if (from_byte && from_byte < len && src[from_byte - 1] == '\n') {
		i = from_byte;
		line = from;
	}

	while (i < len && line < from) {
		const char *nl = memchr(src + i, '\n', len - i);
		if (!nl) {
			i = len;
			break;
		}
		i = (size_t)(nl - src) + 1;
		line++;
	}
	while (i < len && line <= to && shown < Q_SNIP_LINES) {
		const char *nl = memchr(src + i, '\n', len - i);
		size_t ll = nl ? (size_t)(nl - (src + i)) : len - i;
		size_t cut = ll > Q_SNIP_COLS ? Q_SNIP_COLS : ll;
		if (ll && src[i + ll - 1] == '\r' && cut == ll)
			cut--;
		mi_buf_add(&b, src + i, cut);
		if (cut < ll && ll > Q_SNIP_COLS)
			mi_buf_adds(&b, " ...");
		mi_buf_addc(&b, '\n');
		shown++;
		line++;
		i += ll + (nl ? 1 : 0);
	}
	if (line <= to)
		mi_buf_addf(&b, "    ... (%u more line%s)\n", to - line + 1,
			    to - line + 1 == 1 ? "" : "s");
	if (b.len && b.buf[b.len - 1] == '\n')
		b.buf[--b.len] = 0;
	return mi_buf_detach(&b);
}

static void q_json_strn(mi_buf *b, const char *key, const char *s, size_t n)
{
	mi_buf_addf(b, "\"%s\":", key);
	mi_buf_add_json_str(b, s ? s : "", s ? n : 0);
}

/* TOON cell: bare when safe, else a JSON string. */
static void q_toon_cell(mi_buf *b, const char *s, size_t n)
{
	bool bare = n > 0 && s[0] != ' ' && s[n - 1] != ' ';

	for (size_t i = 0; i < n && bare; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\\' ||
		    s[i] == ':' || (unsigned char)s[i] < 0x20)
			bare = false;
	if (bare)
		mi_buf_add(b, s, n);
	else
		mi_buf_add_json_str(b, s ? s : "", s ? n : 0);
}

/* First line of a doc comment, for compact rows. */
static size_t q_first_line(const char *s, size_t n)
{
	const char *nl = memchr(s, '\n', n);

	return nl ? (size_t)(nl - s) : n;
}

static const char *q_kind(const mi_chunk *c)
{
	return c->kind == MI_KIND_NONE ? "file" : mi_kind_name(c->kind);
}

/* A folded snippet for people: each line indented under its hit. */
static void put_snippet(mi_buf *t, const char *content)
{
	for (const char *p = content; *p;) {
		const char *nl = strchr(p, '\n');
		size_t ll = nl ? (size_t)(nl - p) : strlen(p);
		mi_buf_addf(t, "  | %.*s\n", (int)ll, p);
		p += ll + (nl ? 1 : 0);
	}
}

static void q_put_score(mi_buf *j, bool scores, const q_res *r)
{
	if (scores)
		mi_buf_addf(j, "\"score\":%.6g,", r->score);
}

/* The JSON answer's end: total, and where the next page starts when more
 * may follow (next, 0: none). */
static void q_put_total(mi_buf *j, size_t total, size_t next)
{
	mi_buf_addf(j, "],\"total\":%zu", total);
	if (next)
		mi_buf_addf(j, ",\"next_offset\":%zu", next);
	mi_buf_addc(j, '}');
}

/* The text's last line when more may follow. */
static void q_put_more(mi_buf *t, const char *fmt, size_t next)
{
	if (next && strcmp(fmt, "json"))
		mi_buf_addf(t, "V* more results may follow: offset %zu\n", next);
}

static void q_render_code(const mi_search_opts *o, q_res *r, size_t n, size_t total,
			  size_t next, bool scores, mi_out *out)
{
	const char *fmt = o->format && *o->format ? o->format : "toon";
	mi_buf *j = &out->json, *t = &out->text;

	mi_buf_adds(j, "{\"results\":[");
	for (size_t i = 0; i < n; i++) {
		mi_chunk *c = &r[i].c;
		const char *s = c->syms, *e = s + c->syms_len;
		if (i)
			mi_buf_addc(j, ',');
		mi_buf_addc(j, '{');
		q_json_strn(j, "path", r[i].path, strlen(r[i].path));
		mi_buf_addf(j, ",\"start_line\":%u,\"end_line\":%u,\"relevance_percent\":%d,",
			    c->start_line, c->end_line, r[i].pct);
		q_put_score(j, scores, &r[i]);
		q_json_strn(j, "kind", q_kind(c), strlen(q_kind(c)));
		mi_buf_adds(j, ",\"symbols\":[");
		for (bool first = true; s < e; first = false) {
			const char *sep = memmem(s, (size_t)(e - s), ", ", 2);
			size_t len = sep ? (size_t)(sep - s) : (size_t)(e - s);
			if (!first)
				mi_buf_addc(j, ',');
			mi_buf_add_json_str(j, s, len);
			s += len + (sep ? 2 : 0);
		}
		mi_buf_adds(j, "],");
		q_json_strn(j, "signature", c->sig, c->sig_len);
		mi_buf_addc(j, ',');
		q_json_strn(j, "breadcrumb", c->crumb, c->crumb_len);
		mi_buf_addc(j, ',');
		q_json_strn(j, "doc_comment", c->doc, c->doc_len);
		mi_buf_addc(j, ',');
		q_json_strn(j, "content", r[i].content, strlen(r[i].content));
		mi_buf_addc(j, '}');
	}
	q_put_total(j, total, next);

	if (!strcmp(fmt, "json")) {
		mi_buf_add(t, j->buf, j->len);
	} else if (!strcmp(fmt, "human")) {
		if (!n)
			mi_buf_addf(t, "no matches for \"%s\"\n", o->query);
		for (size_t i = 0; i < n; i++) {
			mi_chunk *c = &r[i].c;
			mi_buf_addf(t, "%s:%u-%u  %s  %.*s  (%d%%)\n", r[i].path,
				    c->start_line, c->end_line, q_kind(c),
				    (int)c->crumb_len, c->crumb, r[i].pct);
			if (c->doc_len)
				mi_buf_addf(t, "  // %.*s\n", (int)q_first_line(c->doc, c->doc_len),
					    c->doc);
			put_snippet(t, r[i].content);
			mi_buf_addc(t, '\n');
		}
	} else {
		mi_buf_addf(t, "results[%zu]{path,start_line,end_line,relevance_percent,"
			    "kind,breadcrumb,signature,doc}:\n", n);
		for (size_t i = 0; i < n; i++) {
			mi_chunk *c = &r[i].c;
			mi_buf_adds(t, "  ");
			q_toon_cell(t, r[i].path, strlen(r[i].path));
			mi_buf_addf(t, ",%u,%u,%d,%s,", c->start_line, c->end_line,
				    r[i].pct, q_kind(c));
			q_toon_cell(t, c->crumb, c->crumb_len);
			mi_buf_addc(t, ',');
			q_toon_cell(t, c->sig, c->sig_len);
			mi_buf_addc(t, ',');
			q_toon_cell(t, c->doc, q_first_line(c->doc, c->doc_len));
			mi_buf_addc(t, '\n');
		}
	}
	q_put_more(t, fmt, next);
}

static void q_render_docs(const mi_search_opts *o, q_res *r, size_t n, size_t total,
			  size_t next, bool scores, mi_out *out)
{
	const char *fmt = o->format && *o->format ? o->format : "toon";
	mi_buf *j = &out->json, *t = &out->text;

	mi_buf_adds(j, "{\"results\":[");
	for (size_t i = 0; i < n; i++) {
		mi_chunk *c = &r[i].c;
		if (i)
			mi_buf_addc(j, ',');
		mi_buf_addc(j, '{');
		q_json_strn(j, "path", r[i].path, strlen(r[i].path));
		mi_buf_addf(j, ",\"start_line\":%u,\"end_line\":%u,", c->start_line,
			    c->end_line);
		q_json_strn(j, "heading", c->crumb, c->crumb_len);
		mi_buf_addf(j, ",\"relevance_percent\":%d,", r[i].pct);
		q_put_score(j, scores, &r[i]);
		q_json_strn(j, "content", r[i].content, strlen(r[i].content));
		mi_buf_addc(j, '}');
	}
	q_put_total(j, total, next);

	if (!strcmp(fmt, "json")) {
		mi_buf_add(t, j->buf, j->len);
	} else if (!strcmp(fmt, "human")) {
		if (!n)
			mi_buf_addf(t, "no matches for \"%s\"\n", o->query);
		for (size_t i = 0; i < n; i++) {
			mi_buf_addf(t, "%s:%u-%u  %.*s  (%d%%)\n", r[i].path,
				    r[i].c.start_line, r[i].c.end_line,
				    (int)r[i].c.crumb_len, r[i].c.crumb, r[i].pct);
			put_snippet(t, r[i].content);
			mi_buf_addc(t, '\n');
		}
	} else {
		mi_buf_addf(t, "results[%zu]{path,start_line,end_line,relevance_percent,"
			    "heading,first_line}:\n", n);
		for (size_t i = 0; i < n; i++) {
			const char *ct = r[i].content;
			mi_buf_adds(t, "  ");
			q_toon_cell(t, r[i].path, strlen(r[i].path));
			mi_buf_addf(t, ",%u,%u,%d,", r[i].c.start_line, r[i].c.end_line,
				    r[i].pct);
			q_toon_cell(t, r[i].c.crumb, r[i].c.crumb_len);
			mi_buf_addc(t, ',');
			q_toon_cell(t, ct, q_first_line(ct, strlen(ct)));
			mi_buf_addc(t, '\n');
		}
	}
	q_put_more(t, fmt, next);
}

/* ---- entry points ------------------------------------------------------------------ */

/*
 * The source of result r's file: read once per call for the results of one
 * file (sources are stored compressed, whole files, and hits cluster in
 * files: on the kernel subset 10 hits come from 4 files).  The pointer
 * lives until the transaction ends.
 */
/*
 * The snippet of result r from the frames of its file's source that hold
 * it, when the chunk says where its snippet starts: a large file is not
 * unpacked whole for five lines.  NULL when that does not work out (then
 * the caller reads the whole source).
 */
static char *q_span_snippet(mi_txn *t, const q_res *r)
{
	uint32_t from = r->c.snip_line ? r->c.snip_line : r->c.start_line;
	size_t at = r->c.snip_line ? r->c.snip_byte : 0, off = at ? at - 1 : 0;
	const char *s;
	size_t got, total;

	if (from > 1 && !at)
		return NULL;
	for (size_t want = Q_SNIP_LINES * (Q_SNIP_COLS + 1) + 1;; want *= 8) {
		if (mi_src_span(t, r->path, strlen(r->path), off, want, &s, &got, &total) ||
		    at > total || (at && (!got || s[0] != '\n')))
			return NULL;
		const char *ls = s + (at - off);
		size_t avail = got - (at - off), nl = 0;
		for (const char *p = ls; nl < Q_SNIP_LINES &&
		     (p = memchr(p, '\n', avail - (size_t)(p - ls))); p++)
			nl++;
		/* Whole lines enough for the snippet, or the end of the file. */
		if (nl >= Q_SNIP_LINES || off + got >= total)
			return q_snippet(ls, avail, 1, r->c.end_line >= from ?
					 r->c.end_line - from + 1 : 0, 0);
	}
}

static bool q_result_src(mi_txn *t, q_res *res, size_t nres, q_res *r,
			 const void **src, size_t *sl)
{
	for (size_t i = 0; i < nres; i++)
		if (res[i].src && (res[i].doc >> 32) == (r->doc >> 32)) {
			r->src = res[i].src;
			r->src_len = res[i].src_len;
			break;
		}
	if (!r->src && mi_get(t, MI_DB_SRC, r->path, strlen(r->path), &r->src, &r->src_len))
		return false;
	*src = r->src;
	*sl = r->src_len;
	return true;
}

static int q_run(mi_query *q, const mi_search_opts *o, bool docs, mi_out *out)
{
	q_terms qt = { .n = 0 };
	q_ctx qc = { .docs = docs, .all = o->all,
		     .rp = o->rank ? o->rank : &mi_rank_defaults,
		     .prune = !q->exhaustive };
	q_it its[Q_MAX_TERMS + Q_MAX_JOINED + Q_MAX_ABBR];
	q_it *itp[Q_MAX_TERMS + Q_MAX_JOINED + Q_MAX_ABBR];
	size_t nit = 0, k, kb, nh = 0, qlen;
	q_hit *heap = NULL;
	q_it *req;
	q_res *res = NULL;
	mi_tok *tk = NULL;
	mi_txn *t = NULL;
	int64_t n = 0, tot;
	const char *fmt = o->format;
	int err;

	memset(its, 0, sizeof(its));
	if (!o->query || !*o->query) {
		err = mi_out_error(out, MI_ERR_ARG, "query is empty: give words or an "
				   "identifier to search for, e.g. \"parse config\".");
		goto out;
	}
	if (fmt && *fmt && strcmp(fmt, "toon") && strcmp(fmt, "json") &&
	    strcmp(fmt, "human")) {
		err = mi_out_error(out, MI_ERR_ARG, "format \"%s\" is not one of "
				   "toon, json, human.", fmt);
		goto out;
	}
	qlen = strlen(o->query);
	if (qlen > Q_MAX_QUERY)
		qlen = Q_MAX_QUERY;
	while (qlen && ((unsigned char)o->query[qlen] & 0xc0) == 0x80 &&
	       qlen < strlen(o->query))
		qlen--; /* do not cut a UTF-8 sequence */
	if (!mi_utf8_valid(o->query, qlen)) {
		err = mi_out_error(out, MI_ERR_ARG, "query is not valid UTF-8; send "
				   "the words as UTF-8 text.");
		goto out;
	}
	if ((err = q_filter_init(&qc.filt, o, out)))
		goto out;
	if ((err = mi_tok_new(&tk))) {
		err = mi_out_error(out, err, "the English stemmer is unavailable; "
				   "install libstemmer0d.");
		goto out;
	}
	mi_tok_run(tk, o->query, qlen, 0, q_on_term, &qt);
	if (!qt.n) {
		err = mi_out_error(out, MI_ERR_ARG, "query \"%.80s\" has no searchable "
				   "words (only stop words, symbols, one-letter words or "
				   "words over %d bytes); use names or specific words.",
				   o->query, MI_TOK_MAX);
		goto out;
	}
	qc.tests = q_speaks_of_tests(&qt);
	q_mark_whole(o->query, qlen, &qt);
	k = o->limit ? o->limit : docs ? 10 : 20;
	if (k > Q_MAX_LIMIT)
		k = Q_MAX_LIMIT;

	if ((err = mi_txn_begin(mi_query_store(q), false, &t))) {
		mi_out_error(out, err, "cannot read the index at %s: %s. Rebuild it: "
			     "mcpidx build --force REPO", mi_query_path(q), mi_strerror(err));
		goto out;
	}
	if (mi_meta_get_int(t, "search.chunks", &n)) {
		err = mi_out_error(out, MI_ERR_NOINDEX, "the index at %s has no search "
				   "data. Rebuild it: mcpidx build --force REPO",
				   mi_query_path(q));
		goto out;
	}
	/* A page: rank offset + limit, show the last limit.  No offset
	 * reaches past the index's chunks (a huge one wrapped the heap's
	 * size: a 320-byte heap written as a large one). */
	k += o->offset < (uint64_t)(n > 0 ? n : 0) ? (size_t)o->offset : (size_t)(n > 0 ? n : 0);
	{
		static const char *const lk[MI_SF__COUNT] = {
			"search.len.name", "search.len.path", "search.len.sig",
			"search.len.doc", "search.len.body",
		};
		for (int f = 0; f < MI_SF__COUNT; f++) {
			tot = 0;
			mi_meta_get_int(t, lk[f], &tot);
			qc.avg[f] = n > 0 ? (float)tot / (float)n : 1;
			if (qc.avg[f] <= 0)
				qc.avg[f] = 1;
		}
	}
	qc.t = t;
	qc.bounds = docs || q_bounds_hold(qc.rp);
	q_tfx_init(&qc);
	q_joined(tk, o->query, qlen, &qt, t);
	/* A name written with hyphens (power-domains, i2c1-default: the
	 * identifiers of devicetree, YAML, CSS) is searched as written too. */
	bool kebab = !docs && q_kebab(o->query, qlen);
	if (!docs && qc.rp->abbr > 0 && !kebab)
		q_abbrev(tk, o->query, qlen, &qt, t);
	uint8_t it_of[Q_MAX_TERMS + Q_MAX_JOINED + Q_MAX_ABBR] = { 0 }; /* qt -> its, + 1 */
	for (size_t i = 0; i < qt.n; i++) {
		const void *v;
		size_t vl;
		mi_term_stats ts;
		float idf, ub, k1 = docs ? mi_bm25f_params.k1[MI_SM_DOCS_MD] : qc.rp->k1;
		if (mi_get(t, MI_DB_TERMS, qt.t[i].s, qt.t[i].len, &v, &vl) ||
		    mi_term_stats_decode(v, vl, &ts) || ts.df == 0)
			continue;
		idf = logf(1 + ((float)n - (float)ts.df + 0.5f) / ((float)ts.df + 0.5f));
		if (idf < 0.01f)
			idf = 0.01f;
		ub = docs ? ts.ub_docs : ts.ub_code;
		its[nit].w = idf * qt.t[i].qtf * (qt.t[i].joined ? qc.rp->join :
						  qt.t[i].abbr ? qc.rp->abbr : 1);
		its[nit].joined = qt.t[i].joined;
		its[nit].abbr = qt.t[i].abbr;
		its[nit].whole = qt.t[i].whole;
		if (!qt.t[i].joined && !qt.t[i].abbr) {
			qc.wsum += its[nit].w;
			qc.wof[nit] = its[nit].w;
			its[nit].covers = 1ull << nit;
		}
		for (int p = 0; p < 2; p++)
			if (qt.t[i].part[p] && it_of[qt.t[i].part[p] - 1])
				its[nit].covers |= 1ull << (it_of[qt.t[i].part[p] - 1] - 1);
		it_of[i] = (uint8_t)(nit + 1);
		/* A joined term counts where it names the chunk, not where the
		 * chunk merely calls it. */
		its[nit].fmask = qt.t[i].joined ? (1u << MI_SF_NAME | MI_POSTF_PRIVATE |
						   MI_POSTF_MD | MI_POSTF_AUX) :
				 qt.t[i].abbr ? (Q_ABBR_FIELDS | MI_POSTF_PRIVATE |
						 MI_POSTF_MD | MI_POSTF_AUX) : ~0u;
		its[nit].ub = its[nit].w * ub * (k1 + 1) / (k1 + ub) * 1.0001f + 1e-6f;
		its[nit].df = ts.df;
		if (!qc.bounds)
			its[nit].ub = its[nit].w * (k1 + 1); /* tfn unbounded */
		if (!qc.prune)
			its[nit].ub = INFINITY;
		its[nit].docs = docs;
		its[nit].idx = (uint8_t)nit;
		q_ones_init(&qc, &its[nit]);
		if ((err = it_open(&its[nit], t, qt.t[i].s, qt.t[i].len))) {
			mi_out_error(out, err, "cannot read the search postings: %s",
				     mi_strerror(err));
			goto out;
		}
		itp[nit] = &its[nit];
		nit++;
	}
	for (size_t i = 0; i < nit; i++)
		its[i].cov1 = q_cover(&qc, its[i].covers);
	qc.one = nit == 1 && q_one_term(&qc, &its[0]);
	/* With evidence to weigh, a deeper BM25F pool to weigh it against. */
	kb = !docs && o->nevidence && k < Q_EVIDENCE_POOL ? Q_EVIDENCE_POOL : k;
	heap = mi_xmalloc(kb * sizeof(*heap));
	size_t nparts = 0;
	for (size_t i = 0; i < qt.n; i++)
		nparts += !qt.t[i].joined && !qt.t[i].abbr;
	req = q_required(o->query, qlen, its, nit, nparts);
	qc.ident = req != NULL || kebab;
	qc.ident_len = (uint32_t)nparts;
	float th0 = req || !qc.prune ? 0 : q_seed(&qc, t, its, nit, kb, o->query, qlen);
	qc.end = Q_END;
	qc.split_min = q->split_min ? q->split_min : Q_SPLIT_MIN;
	if (req) {
		/* An identifier is searched as written: abbreviations of it
		 * ("con" of "config", "sta" of "status") would rank con_config
		 * above config. */
		size_t nreq = 0;
		for (size_t i = 0; i < nit; i++)
			if (!its[i].abbr)
				itp[nreq++] = &its[i];
		if (!qc.prune || !q_wand_split(&qc, mi_query_store(q), its, nit, itp, nreq, req,
					       heap, kb, 0, &nh, &err))
			err = q_wand_req(&qc, itp, nreq, req, heap, kb, 0, &nh);
	}
	else if (!qc.prune || !q_wand_split(&qc, mi_query_store(q), its, nit, itp, nit, NULL, heap,
					    kb, th0, &nh, &err))
		err = q_wand(&qc, itp, nit, heap, kb, th0, &nh);
	if (err) {
		mi_out_error(out, err, "the search data of %s is damaged (%s). Rebuild "
			     "it: mcpidx build --force REPO", mi_query_path(q),
			     mi_strerror(err));
		goto out;
	}
	qsort(heap, nh, sizeof(*heap), q_hit_cmp);
	if (!docs && o->nevidence)
		q_weigh_evidence(t, o, &heap, &nh, k);

	res = mi_xcalloc(nh ? nh : 1, sizeof(*res));
	size_t nres = 0;
	for (size_t i = o->offset; i < nh; i++) {
		q_res *r = &res[nres];
		const void *v, *src;
		size_t vl, sl;
		mi_buf pb = { 0 };

		if (mi_chunk_get(t, (uint32_t)(heap[i].doc >> 32), (uint32_t)heap[i].doc, &v, &vl) ||
		    mi_chunk_decode(v, vl, &r->c) ||
		    !q_fid_path(t, (uint32_t)(heap[i].doc >> 32), &pb) ||
		    mi_chunk_sym(t, pb.buf, pb.len, &r->c)) {
			mi_buf_release(&pb);
			continue;
		}
		r->doc = heap[i].doc;
		r->pct = (int)lroundf(100.0f * heap[i].score / heap[0].score);
		r->score = heap[i].score;
		if (r->pct < 1)
			r->pct = 1;
		r->path = mi_buf_detach(&pb);
		if (docs && !(r->c.kind == MI_KIND_HEADING || r->c.kind == MI_KIND_NONE)) {
			size_t dl = r->c.doc_len > Q_DOC_CHARS ? Q_DOC_CHARS : r->c.doc_len;
			r->content = mi_xstrndup(r->c.doc, dl);
		} else if ((r->content = q_span_snippet(t, r))) {
			/* from the frames that hold it */
		} else if (q_result_src(t, res, nres, r, &src, &sl)) {
			uint32_t from = r->c.snip_line ? r->c.snip_line : r->c.start_line;
			r->content = q_snippet(src, sl, from, r->c.end_line,
					       r->c.snip_line ? r->c.snip_byte : 0);
		} else {
			r->content = mi_xstrdup("");
		}
		nres++;
	}
	/* total counts from the first result, so a page at an offset and
	 * the budget's next_offset speak of the same list. */
	size_t total = (nh > o->offset ? o->offset : nh) + nres;
	/* A full page from a full top-k may have more after it: total then
	 * counts what was ranked, and next_offset says where the next page
	 * starts (a client saw "total": 5 of 425 hits and stopped). */
	size_t next = nh == kb && nres && (uint64_t)n > kb ? o->offset + nres : 0;
	if (docs)
		q_render_docs(o, res, nres, total, next, q->scores, out);
	else
		q_render_code(o, res, nres, total, next, q->scores, out);
	if (qt.dropped && (!fmt || strcmp(fmt, "json")))
		mi_buf_addf(&out->text, "note: the query was cut to its first %d terms\n",
			    Q_MAX_TERMS);
	if (strlen(o->query) > Q_MAX_QUERY && (!fmt || strcmp(fmt, "json")))
		mi_buf_addf(&out->text, "note: only the first %d bytes of the query "
			    "were used\n", Q_MAX_QUERY);
	for (size_t i = 0; i < nres; i++) {
		free(res[i].path);
		free(res[i].content);
	}
	err = 0;
out:
	for (size_t i = 0; i < nit; i++)
		mi_cursor_close(its[i].c);
	mi_buf_release(&qc.scratch);
	mi_cursor_close(qc.lens.c);
	free(heap);
	free(res);
	mi_txn_abort(t);
	mi_tok_free(tk);
	return err;
}

int mi_query_search(mi_query *q, const mi_search_opts *o, mi_out *out)
{
	return q_run(q, o, false, out);
}

int mi_query_docs(mi_query *q, const mi_search_opts *o, mi_out *out)
{
	return q_run(q, o, true, out);
}

void mi_query_set_scores(mi_query *q, bool on)
{
	q->scores = on;
}

void mi_query_set_exhaustive(mi_query *q, bool on)
{
	q->exhaustive = on;
}

void mi_query_set_split(mi_query *q, size_t min_postings)
{
	q->split_min = min_postings;
}
