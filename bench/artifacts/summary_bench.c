/*
 * summary_bench.c - what stored summaries do to search relevance, measured
 * with a proxy (no model runs here): on the search bench's doc-stripped
 * corpus (bench/search, `search_bench prep`), each documented function of
 * the original tree gets its real doc comment stored as its "summarize"
 * artifact in a fresh side store, and every natural-language query is
 * answered twice: BM25F alone, and BM25F fused with the artifacts' evidence
 * (mi_art_evidence) at several weights.
 *
 *   summary_bench OUT_DIR ORIG_INDEX MODE
 *       OUT_DIR     a `search_bench prep` output (index/, queries.jsonl)
 *       ORIG_INDEX  an index of the original, documented tree
 *       MODE        full: the whole doc comment is the summary (the query,
 *                   its first sentence, is inside it: an upper bound);
 *                   rest: the doc comment without its first sentence (the
 *                   summary never contains the query's sentence).
 *
 * Fusion is search_code's own: the evidence goes to mi_query_search
 * (mi_search_opts.evidence), which scales both lists by their best score
 * and ranks by (1 - w) * bm25f + w * evidence.  Prints MRR@10 and Recall@10 on all
 * queries, the tuning half and the held-out half (search_bench's split),
 * and the evidence lookup's latency.
 */
#include "format/format.h"
#include "format/side.h"
#include "query/query.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NW 6
static const double weights[NW] = {0.0, 0.2, 0.3, 0.5, 0.7, 0.9};

/* A summary to store. */
typedef struct sum {
	char *path, *name, *text; /* owned */
	uint32_t line;             /* symbol start line */
	uint8_t hash[16];          /* of the stripped file (what the index holds) */
} sum;

typedef struct sums {
	sum *v;
	size_t n, cap;
} sums;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The doc comment without its first sentence (search_bench's rule), or
 * NULL when nothing is left. */
static char *rest_of(const char *doc, const char *name)
{
	const char *p = doc;
	size_t nl = strlen(name);
	while (*p == ' ' || *p == '\n' || *p == '*')
		p++;
	if (!strncmp(p, name, nl)) {
		const char *q = p + nl;
		if (!strncmp(q, "()", 2))
			q += 2;
		while (*q == ' ')
			q++;
		if (*q == '-' || *q == ':')
			p = q + 1;
	}
	for (; *p; p++) {
		if (*p == '@' && p > doc && p[-1] == '\n')
			break;
		if (*p == '\n' && (p[1] == '\n' || p[1] == 0))
			break;
		if (*p == '.' && (p[1] == ' ' || p[1] == '\n' || p[1] == 0)) {
			p++;
			break;
		}
	}
	while (*p == ' ' || *p == '\n' || *p == '.')
		p++;
	return strlen(p) >= 12 ? mi_xstrdup(p) : NULL;
}

/* Collects the documented functions of one file. */
static void collect_file(mi_txn *t, mi_query *q, const char *path, bool rest, sums *out)
{
	mi_syms si;
	const void *v;
	size_t vl;
	if (mi_syms_open(t, path, strlen(path), 0, &si))
		return;
	while (!mi_syms_next(&si, &v, &vl, NULL)) {
		mi_parsed p;
		mi_symbol s;
		uint8_t h[16];
		char *text;
		mi_parsed_init(&p);
		if (mi_symbol_decode(v, vl, &s, &p) || !s.doc || !*s.doc ||
		    (s.kind != MI_KIND_FUNCTION && s.kind != MI_KIND_METHOD) ||
		    mi_query_file_hash(q, path, h)) {
			mi_parsed_release(&p);
			continue;
		}
		text = rest ? rest_of(s.doc, s.name) : mi_xstrdup(s.doc);
		if (text) {
			sum *x;
			if (out->n == out->cap) {
				out->cap = out->cap ? out->cap * 2 : 1024;
				out->v = mi_xrealloc(out->v, out->cap * sizeof *out->v);
			}
			x = &out->v[out->n++];
			x->path = mi_xstrdup(path);
			if (*s.parent) {
				mi_buf b = {0};
				mi_buf_addf(&b, "%s.%s", s.parent, s.name);
				x->name = mi_buf_detach(&b);
			} else {
				x->name = mi_xstrdup(s.name);
			}
			x->text = text;
			x->line = s.start_line;
			memcpy(x->hash, h, 16);
		}
		mi_parsed_release(&p);
	}
	mi_syms_close(&si);
}

/* Collects the documented functions of the original index. */
static int collect(mi_store *orig, mi_query *q, bool rest, sums *out)
{
	mi_txn *t;
	mi_cursor *c;
	const void *k, *v;
	size_t kl, vl;
	int rc = mi_txn_begin(orig, false, &t);
	if (rc)
		return rc;
	if ((rc = mi_cursor_open(t, MI_DB_FILES, &c))) {
		mi_txn_abort(t);
		return rc;
	}
	for (rc = mi_cursor_seek(c, NULL, 0, &k, &kl, &v, &vl); !rc;
	     rc = mi_cursor_next(c, &k, &kl, &v, &vl)) {
		char *path = mi_xstrndup(k, kl);
		collect_file(t, q, path, rest, out);
		free(path);
	}
	mi_cursor_close(c);
	mi_txn_abort(t);
	return rc == MI_ERR_NOTFOUND ? 0 : rc;
}

static int store_all(mi_side_txn *t, void *ctx)
{
	sums *s = ctx;
	for (size_t i = 0; i < s->n; i++) {
		mi_side_rec r;
		int rc;
		memset(&r, 0, sizeof r);
		r.path = s->v[i].path;
		r.kind = "summarize";
		r.name = s->v[i].name;
		memcpy(r.hash, s->v[i].hash, 16);
		r.has_hash = true;
		r.corr = "summary-bench";
		r.num = s->v[i].line;
		r.text = s->v[i].text;
		r.text_len = strlen(s->v[i].text);
		if ((rc = mi_side_put(t, MI_SIDE_ARTIFACTS, &r)) && rc != MI_ERR_TOOBIG)
			return rc;
	}
	return 0;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	mi_buf err = {0}, path = {0};
	mi_query *q = NULL;
	mi_store *orig = NULL;
	mi_side *side = NULL;
	sums s = {0};
	json_t *qs = json_array();
	char line[65536];
	FILE *f;
	double rr[NW][3] = {{0}}, hit[NW][3] = {{0}}, *lat;
	size_t nq[3] = {0}, nlat = 0, nl = 0;
	bool rest;

	if (argc != 4 || (strcmp(argv[3], "full") && strcmp(argv[3], "rest"))) {
		fprintf(stderr, "usage: summary_bench OUT_DIR ORIG_INDEX full|rest\n");
		return 2;
	}
	rest = !strcmp(argv[3], "rest");
	mi_buf_addf(&path, "%s/index", argv[1]);
	if (mi_query_open(path.buf, &q, &err) ||
	    mi_store_open(argv[2], MI_STORE_RDONLY, &orig)) {
		fprintf(stderr, "summary_bench: cannot open the indexes: %s\n", mi_buf_str(&err));
		return 1;
	}
	if (collect(orig, q, rest, &s)) {
		fprintf(stderr, "summary_bench: cannot read %s\n", argv[2]);
		return 1;
	}
	mi_buf_reset(&path);
	mi_buf_addf(&path, "rm -rf '%s/side-%s'", argv[1], argv[3]);
	if (system(path.buf) != 0)
		return 1;
	mi_buf_reset(&path);
	mi_buf_addf(&path, "%s/side-%s", argv[1], argv[3]);
	if (mi_side_open(path.buf, MI_SIDE_CREATE, &side) ||
	    mi_side_write(side, store_all, &s)) {
		fprintf(stderr, "summary_bench: cannot fill the side store %s\n", path.buf);
		return 1;
	}
	mi_side_close(side);

	mi_art_opts ao = {.index = NULL, .side = path.buf};
	mi_art *a = mi_art_new(&ao);

	mi_buf_reset(&path);
	mi_buf_addf(&path, "%s/queries.jsonl", argv[1]);
	if (!(f = fopen(path.buf, "r")))
		return 1;
	while (fgets(line, sizeof line, f)) {
		json_t *o = json_loads(line, 0, NULL);
		if (o && !strcmp(json_string_value(json_object_get(o, "kind")), "nl"))
			json_array_append_new(qs, o);
		else
			json_decref(o);
	}
	fclose(f);
	lat = mi_xcalloc(json_array_size(qs) + 1, sizeof *lat);

	/* Warm the evidence term index once (built on first use). */
	{
		mi_art_hit *h;
		size_t n;
		double t0 = now_ms();
		mi_art_evidence(a, q, "warm", 1, &h, &n);
		mi_art_evidence_free(h, n);
		printf("term index over %zu summaries built in %.0f ms\n", s.n, now_ms() - t0);
	}
	for (size_t i = 0; i < json_array_size(qs); i++) {
		json_t *o = json_array_get(qs, i);
		const char *qq = json_string_value(json_object_get(o, "query"));
		char want[600];
		mi_art_hit *h = NULL;
		mi_search_evidence *ev;
		size_t nh = 0;
		double t0;
		int half = (int)(nl % 2);

		snprintf(want, sizeof want, "%s:%lld", json_string_value(json_object_get(o, "path")),
			 (long long)json_integer_value(json_object_get(o, "line")));
		t0 = now_ms();
		mi_art_evidence(a, q, qq, 100, &h, &nh);
		lat[nlat++] = now_ms() - t0;
		ev = mi_xcalloc(nh + 1, sizeof *ev);
		for (size_t x = 0; x < nh; x++) {
			ev[x].path = h[x].path;
			ev[x].symbol = h[x].symbol;
			ev[x].line = h[x].line;
			ev[x].score = h[x].score;
		}
		for (int w = 0; w < NW; w++) {
			/* search_code's own path: the evidence weighed by search. */
			mi_search_opts so = {.query = qq, .limit = 10, .format = "json", .all = true,
					     .evidence = w ? ev : NULL, .nevidence = w ? nh : 0,
					     .semantic_weight = (float)weights[w]};
			mi_out out = {0};
			json_t *j, *r;
			int rank = 0;
			mi_query_search(q, &so, &out);
			j = json_loads(mi_buf_str(&out.json), 0, NULL);
			r = json_object_get(j, "results");
			for (size_t x = 0; x < json_array_size(r) && !rank; x++) {
				json_t *e = json_array_get(r, x);
				char key[600];
				snprintf(key, sizeof key, "%s:%lld",
					 json_string_value(json_object_get(e, "path")),
					 (long long)json_integer_value(json_object_get(e, "start_line")));
				if (!strcmp(key, want))
					rank = (int)x + 1;
			}
			if (rank) {
				rr[w][0] += 1.0 / rank;
				rr[w][1 + half] += 1.0 / rank;
				hit[w][0]++;
				hit[w][1 + half]++;
			}
			json_decref(j);
			mi_out_release(&out);
		}
		free(ev);
		mi_art_evidence_free(h, nh);
		nq[0]++;
		nq[1 + half]++;
		nl++;
	}
	qsort(lat, nlat, sizeof *lat, dcmp);
	printf("summaries: %s (%s), %zu functions, %zu NL queries (tuning half %zu, held-out %zu)\n",
	       argv[3], rest ? "doc comment without the query's sentence" :
	       "whole doc comment, query sentence included: upper bound", s.n, nq[0], nq[1], nq[2]);
	printf("%-26s %8s %8s %8s %8s\n", "", "MRR@10", "R@10", "MRR tune", "MRR held");
	for (int w = 0; w < NW; w++) {
		char label[64];
		if (w == 0)
			snprintf(label, sizeof label, "BM25F only");
		else
			snprintf(label, sizeof label, "with summaries w=%.1f", weights[w]);
		printf("%-26s %8.3f %8.3f %8.3f %8.3f\n", label, rr[w][0] / (double)nq[0],
		       hit[w][0] / (double)nq[0], rr[w][1] / (double)nq[1],
		       rr[w][2] / (double)nq[2]);
	}
	printf("evidence lookup: p50 %.3f ms, p99 %.3f ms\n",
	       nlat ? lat[nlat / 2] : 0, nlat ? lat[(size_t)(nlat * 0.99)] : 0);
	mi_art_free(a);
	mi_query_close(q);
	mi_store_close(orig);
	for (size_t i = 0; i < s.n; i++) {
		free(s.v[i].path);
		free(s.v[i].name);
		free(s.v[i].text);
	}
	free(s.v);
	free(lat);
	json_decref(qs);
	mi_buf_release(&err);
	mi_buf_release(&path);
	return 0;
}
