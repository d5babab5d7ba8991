/*
 * search_bench.c - the mcpidx side of `make bench-search`.
 *
 *   search_bench prep SRC_DIR OUT_DIR EXTS   copy SRC_DIR's files with the
 *       given extensions into OUT_DIR/tree with every doc comment blanked
 *       (line numbers kept), write OUT_DIR/queries.jsonl (the first sentence
 *       of each documented function's doc comment, CodeSearchNet style, with
 *       the function as the answer; plus identifier queries), index the copy
 *       into OUT_DIR/index and dump the function chunks for FTS5 into
 *       OUT_DIR/chunks.jsonl.
 *   search_bench run OUT_DIR   answers every query in-process (warm) and
 *       writes OUT_DIR/mcpidx.json: MRR@10, Recall@10, latency p50/p99 per
 *       query kind, index size.
 */
#include "format/format.h"
#include "indexer/indexer.h"
#include "indexer/indexer_int.h" /* mi_search_doc_start: the same doc span the index uses */
#include "query/query.h"

#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_NL_QUERIES 500
#define MAX_ID_QUERIES 300

static const char *g_src, *g_out, *g_exts;
static size_t g_src_len;
static FILE *g_queries;
static json_t *g_nl;              /* candidate NL queries */
static size_t g_files;

static int mkdirs(const char *path)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0777) && errno != EEXIST)
			return errno;
		*p = '/';
	}
	if (mkdir(buf, 0777) && errno != EEXIST)
		return errno;
	return 0;
}

static bool has_ext(const char *path)
{
	const char *dot = strrchr(path, '.');
	char want[32];

	if (!dot)
		return false;
	snprintf(want, sizeof(want), ",%s,", dot + 1);
	char list[256];
	snprintf(list, sizeof(list), ",%s,", g_exts);
	return strstr(list, want) != NULL;
}

/* Blanks s[a..b) keeping newlines. */
static void blank(char *s, size_t a, size_t b)
{
	for (size_t i = a; i < b; i++)
		if (s[i] != '\n')
			s[i] = ' ';
}

/* Python: the docstring that opens the body of the symbol at [start,end):
 * the first string literal that starts a line.  Replaced by `pass`. */
static void strip_docstring(char *src, size_t start, size_t end)
{
	for (size_t i = start; i < end; i++) {
		if (src[i] != '\n')
			continue;
		size_t j = i + 1;
		while (j < end && (src[j] == ' ' || src[j] == '\t'))
			j++;
		if (j >= end || src[j] == '\n' || src[j] == '#')
			continue;
		size_t q = j;
		while (q < end && strchr("rRbBuU", src[q]))
			q++;
		if (q >= end || (src[q] != '"' && src[q] != '\''))
			return; /* first statement is not a string */
		char c = src[q];
		bool triple = q + 2 < end && src[q + 1] == c && src[q + 2] == c;
		size_t k = q + (triple ? 3 : 1);
		for (; k < end; k++) {
			if (src[k] == '\\') {
				k++;
				continue;
			}
			if (src[k] == c && (!triple || (k + 2 < end && src[k + 1] == c &&
							 src[k + 2] == c)))
				break;
		}
		if (k >= end)
			return;
		k += triple ? 3 : 1;
		blank(src, j, k);
		if (k - j >= 4)
			memcpy(src + j, "pass", 4);
		return;
	}
}

/* First sentence of a doc comment, kernel-doc "name - " prefix removed. */
static char *first_sentence(const char *doc, const char *name)
{
	mi_buf b = { 0 };
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
		if (*q == '-' || *q == ':') {
			q++;
			p = q;
		}
	}
	for (; *p; p++) {
		if (*p == '@' && (b.len == 0 || p[-1] == '\n'))
			break;
		if (*p == '\n' && (p[1] == '\n' || p[1] == 0))
			break;
		if (*p == '.' && (p[1] == ' ' || p[1] == '\n' || p[1] == 0))
			break;
		mi_buf_addc(&b, *p == '\n' || *p == '\t' ? ' ' : *p);
	}
	return mi_buf_detach(&b);
}

static size_t count_words(const char *s)
{
	size_t n = 0;
	bool in = false;

	for (; *s; s++) {
		bool w = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z');
		if (w && !in)
			n++;
		in = w || (in && *s != ' ');
	}
	return n;
}

static int copy_one(const char *fpath, const struct stat *sb, int type,
		    struct FTW *ftw)
{
	char dst[4096], *src = NULL;
	size_t len;
	const char *rel = fpath + g_src_len;
	mi_parsed p;
	int lang;
	FILE *f;

	(void)ftw;
	if (type != FTW_F || !has_ext(fpath) || sb->st_size > (1 << 20))
		return 0;
	if (strstr(rel, "/site-packages/") || strstr(rel, "/dist-packages/"))
		return 0;
	while (*rel == '/')
		rel++;
	lang = mi_lang_detect(fpath);
	if (lang == MI_LANG_NONE || mi_read_file(fpath, &src, &len))
		return 0;
	mi_parsed_init(&p);
	if (!mi_parse_source(lang, src, len, &p)) {
		char *orig = mi_xmalloc(len + 1);
		memcpy(orig, src, len + 1);
		for (size_t i = 0; i < p.nsyms; i++) {
			const mi_symbol *s = &p.syms[i];
			if (!s->doc || !*s->doc || s->end_byte > len)
				continue;
			if (lang == MI_LANG_PYTHON)
				strip_docstring(src, s->start_byte, s->end_byte);
			else
				blank(src, mi_search_doc_start(orig, s->start_byte), s->start_byte);
			if (s->kind != MI_KIND_FUNCTION && s->kind != MI_KIND_METHOD)
				continue;
			char *q = first_sentence(s->doc, s->name);
			size_t nw = count_words(q);
			if (nw >= 3 && nw <= 30) {
				json_t *o = json_pack("{s:s,s:s,s:i,s:s,s:s}", "query", q,
						      "path", rel, "line", (int)s->start_line,
						      "name", s->name, "kind", "nl");
				json_array_append_new(g_nl, o);
			}
			free(q);
		}
		free(orig);
	}
	mi_parsed_release(&p);
	snprintf(dst, sizeof(dst), "%s/tree/%s", g_out, rel);
	{
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s", dst);
		char *slash = strrchr(dir, '/');
		*slash = 0;
		mkdirs(dir);
	}
	if ((f = fopen(dst, "wb"))) {
		fwrite(src, 1, len, f);
		fclose(f);
		g_files++;
	}
	free(src);
	return 0;
}

/* Function chunks for FTS5, and identifier queries. */
static int dump_chunks(const char *idx, json_t *idq)
{
	mi_store *st;
	mi_txn *t;
	mi_cursor *c;
	const void *k, *v;
	size_t kl, vl;
	char path[4096];
	FILE *f;
	int err;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/chunks.jsonl", g_out);
	if (!(f = fopen(path, "w")))
		return errno;
	if ((err = mi_store_open(idx, MI_STORE_RDONLY, &st)))
		return err;
	mi_txn_begin(st, false, &t);
	mi_cursor_open(t, MI_DB_CHUNKS, &c);
	for (int rc = mi_cursor_seek(c, NULL, 0, &k, &kl, &v, &vl); !rc;
	     rc = mi_cursor_next(c, &k, &kl, &v, &vl)) {
		mi_chunk ch;
		const uint8_t *kk = k;
		uint8_t fk[4];
		const void *pv, *sv;
		size_t pl, sl;
		if (kl != 8 || mi_rd32(kk + 4) == 0xffffffffu ||
		    mi_chunk_decode(v, vl, &ch) ||
		    (ch.kind != MI_KIND_FUNCTION && ch.kind != MI_KIND_METHOD))
			continue;
		memcpy(fk, kk, 4);
		if (mi_get(t, MI_DB_FILEIDS, fk, 4, &pv, &pl))
			continue;
		char *p = mi_xstrndup(pv, pl);
		if (mi_get(t, MI_DB_SRC, p, pl, &sv, &sl)) {
			free(p);
			continue;
		}
		/* Lines start_line..end_line of the (doc-free) source. */
		const char *s = sv, *e = s + sl, *a = s;
		uint32_t line = 1;
		while (a < e && line < ch.start_line) {
			const char *nl = memchr(a, '\n', (size_t)(e - a));
			if (!nl) { a = e; break; }
			a = nl + 1;
			line++;
		}
		const char *b = a;
		while (b < e && line <= ch.end_line) {
			const char *nl = memchr(b, '\n', (size_t)(e - b));
			b = nl ? nl + 1 : e;
			line++;
		}
		json_t *o = json_pack("{s:s,s:i,s:s%,s:s%,s:s%}", "path", p,
				      "line", (int)ch.start_line, "name", ch.name,
				      (size_t)ch.name_len, "sig", ch.sig ? ch.sig : "",
				      (size_t)ch.sig_len, "body", a, (size_t)(b - a));
		if (o) {
			char *js = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
			if (js)
				fprintf(f, "%s\n", js);
			free(js);
			json_decref(o);
		}
		/* Every 37th function name is an identifier query. */
		if (n++ % 37 == 0 && json_array_size(idq) < MAX_ID_QUERIES) {
			char *nm = mi_xstrndup(ch.name, ch.name_len);
			json_array_append_new(idq, json_pack("{s:s,s:s,s:i,s:s,s:s}",
				"query", nm, "path", p, "line", (int)ch.start_line,
				"name", nm, "kind", "ident"));
			free(nm);
		}
		free(p);
	}
	mi_cursor_close(c);
	mi_txn_abort(t);
	mi_store_close(st);
	fclose(f);
	return 0;
}

static int cmd_prep(void)
{
	char path[4096], idx[4096];
	mi_build_opts bo = { 0 };
	mi_build_stats bs = { 0 };
	mi_buf err = { 0 };
	json_t *idq = json_array();
	struct timespec t0, t1;
	int rc;

	g_src_len = strlen(g_src);
	g_nl = json_array();
	snprintf(path, sizeof(path), "rm -rf '%s/tree' '%s/index'", g_out, g_out);
	if (system(path))
		return 1;
	mkdirs(g_out);
	if (nftw(g_src, copy_one, 64, FTW_PHYS)) {
		fprintf(stderr, "search_bench: cannot walk %s\n", g_src);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/tree", g_out);
	snprintf(idx, sizeof(idx), "%s/index", g_out);
	bo.repo = path;
	bo.out_dir = idx;
	bo.force = true;
	bo.no_ignore = true;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((rc = mi_build(&bo, &bs, &err))) {
		fprintf(stderr, "search_bench: build failed: %s\n", mi_buf_str(&err));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "search_bench: %zu files copied, indexed %zu files, %zu chunks "
		"in %.1fs\n", g_files, bs.files, bs.chunks,
		(double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	if ((rc = dump_chunks(idx, idq))) {
		fprintf(stderr, "search_bench: cannot dump chunks: %s\n", mi_strerror(rc));
		return 1;
	}
	/* A deterministic sample of the NL queries. */
	snprintf(path, sizeof(path), "%s/queries.jsonl", g_out);
	g_queries = fopen(path, "w");
	if (!g_queries)
		return 1;
	size_t nnl = json_array_size(g_nl), step = nnl > MAX_NL_QUERIES ?
		(nnl + MAX_NL_QUERIES - 1) / MAX_NL_QUERIES : 1, kept = 0;
	for (size_t i = 0; i < nnl; i += step, kept++) {
		char *js = json_dumps(json_array_get(g_nl, i), JSON_COMPACT | JSON_ENSURE_ASCII);
		fprintf(g_queries, "%s\n", js);
		free(js);
	}
	for (size_t i = 0; i < json_array_size(idq); i++) {
		char *js = json_dumps(json_array_get(idq, i), JSON_COMPACT | JSON_ENSURE_ASCII);
		fprintf(g_queries, "%s\n", js);
		free(js);
	}
	fclose(g_queries);
	fprintf(stderr, "search_bench: %zu NL queries (of %zu documented functions), "
		"%zu identifier queries\n", kept, nnl, json_array_size(idq));
	json_decref(idq);
	json_decref(g_nl);
	mi_buf_release(&err);
	return 0;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double pct(double *v, size_t n, double p)
{
	if (!n)
		return 0;
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);
	return v[i];
}

static int cmd_run(void)
{
	char path[4096];
	FILE *f;
	json_t *qs = json_array(), *res = json_object();
	mi_query *q;
	mi_buf err = { 0 };
	char line[65536];
	double *lat[2];
	size_t nlat[2] = { 0, 0 }, nq[2] = { 0, 0 };
	double rr = 0, hit = 0, rrh[2] = { 0, 0 };
	size_t nqh[2] = { 0, 0 };
	FILE *ranks;

	snprintf(path, sizeof(path), "%s/mcpidx_ranks.tsv", g_out);
	if (!(ranks = fopen(path, "w")))
		return 1;
	snprintf(path, sizeof(path), "%s/queries.jsonl", g_out);
	if (!(f = fopen(path, "r")))
		return 1;
	while (fgets(line, sizeof(line), f))
		json_array_append_new(qs, json_loads(line, 0, NULL));
	fclose(f);
	snprintf(path, sizeof(path), "%s/index", g_out);
	if (mi_query_open(path, &q, &err)) {
		fprintf(stderr, "search_bench: %s\n", mi_buf_str(&err));
		return 1;
	}
	lat[0] = mi_xcalloc(json_array_size(qs) + 1, sizeof(double));
	lat[1] = mi_xcalloc(json_array_size(qs) + 1, sizeof(double));
	/* SEARCH_BENCH_QUICK=1: NL queries only, one cold pass (relevance only). */
	bool quick = getenv("SEARCH_BENCH_QUICK") != NULL;
	for (int pass = quick; pass < 2; pass++) {
		for (size_t i = 0; i < json_array_size(qs); i++) {
			json_t *o = json_array_get(qs, i);
			const char *qq = json_string_value(json_object_get(o, "query"));
			int kind = !strcmp(json_string_value(json_object_get(o, "kind")), "nl") ? 0 : 1;
			if (quick && kind)
				continue;
			mi_search_opts so = { .query = qq, .limit = kind ? 20 : 10,
					      .format = "json", .all = true };
			mi_out out = { 0 };
			struct timespec t0, t1;
			double ms = 1e9;
			/* Warm latency: the best of three runs, so a busy machine's
			 * preemptions do not pass for search time (same for FTS5). */
			for (int rep = 0; rep < (pass && !quick ? 3 : 1); rep++) {
				mi_out_reset(&out);
				clock_gettime(CLOCK_MONOTONIC, &t0);
				mi_query_search(q, &so, &out);
				clock_gettime(CLOCK_MONOTONIC, &t1);
				double one = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
					     (t1.tv_nsec - t0.tv_nsec) / 1e6;
				if (one < ms)
					ms = one;
			}
			if (pass == 1) {
				lat[kind][nlat[kind]++] = ms;
				if (getenv("SEARCH_BENCH_SLOW") && ms > atof(getenv("SEARCH_BENCH_SLOW")))
					fprintf(stderr, "slow %.2f ms: %s\n", ms, qq);
				if (kind == 0) {
					int rank = 0;
					json_t *j = json_loads(mi_buf_str(&out.json), 0, NULL);
					json_t *r = json_object_get(j, "results");
					const char *ap = json_string_value(json_object_get(o, "path"));
					json_int_t al = json_integer_value(json_object_get(o, "line"));
					for (size_t x = 0; x < json_array_size(r) && x < 10; x++) {
						json_t *h = json_array_get(r, x);
						if (!strcmp(json_string_value(json_object_get(h, "path")), ap) &&
						    json_integer_value(json_object_get(h, "start_line")) == al) {
							rr += 1.0 / (double)(x + 1);
							hit += 1;
							rank = (int)x + 1;
							break;
						}
					}
					/* Even NL queries are the tuning half, odd ones held out. */
					rrh[nq[0] % 2] += rank ? 1.0 / rank : 0;
					nqh[nq[0] % 2]++;
					fprintf(ranks, "%zu\t%d\t%.3f\t%s", nq[0], rank, ms, qq);
					/* SEARCH_BENCH_TOP=1: the answer and the top hits too. */
					if (getenv("SEARCH_BENCH_TOP")) {
						fprintf(ranks, "\t=%s", json_string_value(json_object_get(o, "name")));
						for (size_t x = 0; x < json_array_size(r) && x < 10; x++) {
							json_t *h = json_array_get(r, x);
							fprintf(ranks, "\t%s:%s", json_string_value(json_object_get(h, "kind")),
								json_string_value(json_object_get(h, "breadcrumb")));
						}
					}
					fputc('\n', ranks);
					json_decref(j);
				}
				nq[kind]++;
			}
			mi_out_release(&out);
		}
	}
	fclose(ranks);
	qsort(lat[0], nlat[0], sizeof(double), dcmp);
	qsort(lat[1], nlat[1], sizeof(double), dcmp);
	json_object_set_new(res, "mrr10", json_real(nq[0] ? rr / (double)nq[0] : 0));
	json_object_set_new(res, "mrr10_tune", json_real(nqh[0] ? rrh[0] / (double)nqh[0] : 0));
	json_object_set_new(res, "mrr10_heldout", json_real(nqh[1] ? rrh[1] / (double)nqh[1] : 0));
	json_object_set_new(res, "recall10", json_real(nq[0] ? hit / (double)nq[0] : 0));
	json_object_set_new(res, "nl_queries", json_integer((json_int_t)nq[0]));
	json_object_set_new(res, "id_queries", json_integer((json_int_t)nq[1]));
	json_object_set_new(res, "nl_p50_ms", json_real(pct(lat[0], nlat[0], 0.5)));
	json_object_set_new(res, "nl_p99_ms", json_real(pct(lat[0], nlat[0], 0.99)));
	json_object_set_new(res, "id_p50_ms", json_real(pct(lat[1], nlat[1], 0.5)));
	json_object_set_new(res, "id_p99_ms", json_real(pct(lat[1], nlat[1], 0.99)));
	json_object_set_new(res, "index_bytes",
			    json_integer((json_int_t)mi_store_size(mi_query_store(q))));
	/* The search databases' own payload (keys + values). */
	{
		mi_txn *t;
		uint64_t bytes = 0;
		mi_txn_begin(mi_query_store(q), false, &t);
		int dbs[] = { MI_DB_CHUNKS, MI_DB_POST, MI_DB_TERMS };
		for (int d = 0; d < 3; d++) {
			mi_cursor *c;
			const void *k, *v;
			size_t kl, vl;
			mi_cursor_open(t, dbs[d], &c);
			for (int rc = mi_cursor_seek(c, NULL, 0, &k, &kl, &v, &vl); !rc;
			     rc = mi_cursor_next(c, &k, &kl, &v, &vl))
				bytes += kl + vl;
			mi_cursor_close(c);
		}
		mi_txn_abort(t);
		json_object_set_new(res, "search_payload_bytes", json_integer((json_int_t)bytes));
	}
	snprintf(path, sizeof(path), "%s/mcpidx.json", g_out);
	json_dump_file(res, path, JSON_INDENT(1));
	mi_query_close(q);
	free(lat[0]);
	free(lat[1]);
	json_decref(qs);
	json_decref(res);
	mi_buf_release(&err);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "prep")) {
		g_src = argv[2];
		g_out = argv[3];
		g_exts = argv[4];
		return cmd_prep();
	}
	if (argc == 3 && !strcmp(argv[1], "run")) {
		g_out = argv[2];
		return cmd_run();
	}
	fprintf(stderr, "usage: search_bench prep SRC_DIR OUT_DIR EXTS | run OUT_DIR\n");
	return 2;
}
