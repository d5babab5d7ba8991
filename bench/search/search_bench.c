/*
 * search_bench.c - the mcpidx side of `make bench-search`.
 *
 *   search_bench prep SRC_DIR OUT_DIR EXTS [SKIP]   copy SRC_DIR's files
 *       with the given extensions (less the SKIP path prefixes, or
 *       substrings when they start with '/') into OUT_DIR/tree with every doc
 *       comment blanked (line numbers kept; SEARCH_BENCH_KEEP_DOCS=1 keeps
 *       them), write OUT_DIR/queries.jsonl (the first sentence of each
 *       documented function's doc comment, CodeSearchNet style, with the
 *       function as the answer, each in the tuning or the held-out half by
 *       its file; 2,000 of them, sampled by hash, SEARCH_BENCH_NL=N sets
 *       how many; plus identifier queries), index the copy into
 *       OUT_DIR/index and dump the function chunks for FTS5 into
 *       OUT_DIR/chunks.jsonl.
 *   search_bench run OUT_DIR   answers every query in-process (warm) and
 *       writes OUT_DIR/mcpidx.json: per half MRR@10, Recall@10 and the mean
 *       lines of the top-10 hits; latency p50/p99 per query kind; index
 *       size.  MI_RANK="name=value,..." ranks with other parameters.
 *   search_bench tune PARAMS OUT_DIR...   fits ranking parameters on the
 *       tuning halves (see cmd_tune).
 */
#include "format/format.h"
#include "indexer/indexer.h"
#include "indexer/indexer_int.h" /* mi_search_doc_start: the same doc span the index uses */
#include "query/query.h"

#include <errno.h>
#include <stddef.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_NL_QUERIES 2000
#define MAX_ID_QUERIES 300

static const char *g_src, *g_out, *g_exts, *g_skip;
static size_t g_src_len;
static FILE *g_queries;
static size_t g_files;
static bool g_keep_docs;          /* SEARCH_BENCH_KEEP_DOCS: doc comments stay */

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

/* Blanks the comments of [a, b), a doc block as mi_search_doc_start finds
 * it: its lines of // or # comments and its block comments, not the
 * attributes between it and its symbol (Rust's #[stable(...)]). */
static void blank_doc(char *s, size_t a, size_t b)
{
	bool in_block = false;

	for (size_t i = a; i < b;) {
		size_t e = i, t = i;
		while (e < b && s[e] != '\n')
			e++;
		while (t < e && (s[t] == ' ' || s[t] == '\t'))
			t++;
		bool attr = e - t >= 2 && s[t] == '#' &&
			    (s[t + 1] == '[' || (e - t >= 3 && s[t + 1] == '!' && s[t + 2] == '['));
		if (in_block || (e - t >= 2 && s[t] == '/' && s[t + 1] == '*')) {
			size_t c = in_block ? t : t + 2;
			while (c + 1 < e && !(s[c] == '*' && s[c + 1] == '/'))
				c++;
			in_block = !(c + 1 < e);
			blank(s, t, in_block ? e : c + 2);
		} else if ((e - t >= 2 && s[t] == '/' && s[t + 1] == '/') ||
			   (t < e && s[t] == '#' && !attr)) {
			blank(s, t, e);
		}
		i = e + 1;
	}
}

/* Python: the docstring that opens the body of the symbol at [start,end):
 * the first string literal that starts a line.  Replaced by a statement
 * that does nothing, line numbers kept. */
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
		/* A statement in the literal's first line, never over a newline
		 * (that would shift every line below). */
		{
			const char *eol = memchr(src + j, '\n', k - j);
			size_t room = eol ? (size_t)(eol - (src + j)) : k - j;
			const char *stmt = room >= 4 ? "pass" : room == 3 ? "..." : "0";
			memcpy(src + j, stmt, strlen(stmt) < room ? strlen(stmt) : room);
		}
		return;
	}
}

/* Appends doc text with markup removed: Javadoc/JSDoc inline tags
 * ({@code x}, {@link A#b} keep their text), HTML tags (<p>, <code>) and
 * the commonest entities. */
static void add_plain(mi_buf *b, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '{' && i + 1 < n && p[i + 1] == '@') {
			while (i < n && p[i] != ' ' && p[i] != '}')
				i++;
			if (i < n && p[i] == '}')
				continue;
			continue; /* the space after the tag name */
		}
		if (p[i] == '}')
			continue;
		if (p[i] == '<' && i + 1 < n &&
		    ((p[i + 1] >= 'a' && p[i + 1] <= 'z') || p[i + 1] == '/')) {
			const char *gt = memchr(p + i, '>', n - i);
			if (gt && gt - (p + i) < 40) {
				i = (size_t)(gt - p);
				continue;
			}
		}
		if (p[i] == '&') {
			static const char *const ent[][2] = {
				{ "&lt;", "<" }, { "&gt;", ">" }, { "&amp;", "&" },
				{ "&quot;", "\"" }, { "&nbsp;", " " },
			};
			bool done = false;
			for (size_t e = 0; e < sizeof(ent) / sizeof(ent[0]) && !done; e++) {
				size_t el = strlen(ent[e][0]);
				if (n - i >= el && !memcmp(p + i, ent[e][0], el)) {
					mi_buf_adds(b, ent[e][1]);
					i += el - 1;
					done = true;
				}
			}
			if (done)
				continue;
		}
		mi_buf_addc(b, p[i] == '\n' || p[i] == '\t' ? ' ' : p[i]);
	}
}

/*
 * First sentence of a doc comment, as a person would ask for the function:
 * kernel-doc's "name - " prefix and Go's leading name ("Copy copies ...")
 * are removed, markup is plain text, and the sentence ends at ". ", a
 * blank line or a tag line (@param, :param).
 */
static char *first_sentence(const char *doc, const char *name)
{
	mi_buf raw = { 0 }, b = { 0 };
	const char *p = doc;
	size_t nl = strlen(name);

	while (*p == ' ' || *p == '\n' || *p == '*')
		p++;
	if (nl && !strncmp(p, name, nl)) {
		const char *q = p + nl;
		if (!strncmp(q, "()", 2))
			q += 2;
		while (*q == ' ')
			q++;
		if (*q == '-' || *q == ':') {
			p = q + 1;
		} else if (q > p + nl && *q >= 'a' && *q <= 'z') {
			p = q; /* "Copy copies ..." */
		}
	}
	for (; *p; p++) {
		if (*p == '@' && (raw.len == 0 || p[-1] == '\n' ||
				  (p[-1] == ' ' && strchr(" \n*", p[-2] ? p[-2] : ' '))))
			break;
		if (*p == '\n' && (p[1] == '\n' || p[1] == 0))
			break;
		if (*p == '\n') {
			const char *q = p + 1;
			while (*q == ' ' || *q == '*')
				q++;
			if (*q == '@' || *q == '\n' || (*q == ':' && q[1] >= 'a' && q[1] <= 'z'))
				break;
		}
		if (*p == '.' && (p[1] == ' ' || p[1] == '\n' || p[1] == 0))
			break;
		mi_buf_addc(&raw, *p);
	}
	add_plain(&b, raw.buf ? raw.buf : "", raw.len);
	mi_buf_release(&raw);
	/* Blanks folded, ends trimmed. */
	{
		size_t w = 0;
		char *s = b.buf ? b.buf : NULL;
		for (size_t i = 0; s && i < b.len; i++) {
			if (s[i] == ' ' && (w == 0 || s[w - 1] == ' '))
				continue;
			s[w++] = s[i];
		}
		while (w && s[w - 1] == ' ')
			w--;
		b.len = w;
		if (s)
			s[w] = 0;
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

/* A candidate NL query: a documented function and its first sentence. */
typedef struct cand {
	char *query, *path, *name;
	uint32_t line;
	bool ambiguous;            /* its file has another symbol of the same
				    * parent, name and signature */
	uint64_t pick;             /* the sample takes the smallest */
} cand;

static cand *g_cands;
static size_t g_ncands, g_capcands;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cand_cmp(const void *a, const void *b)
{
	const cand *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int cand_qcmp(const void *a, const void *b)
{
	const cand *x = *(cand *const *)a, *y = *(cand *const *)b;

	return strcasecmp(x->query, y->query);
}

static bool same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* Path prefixes or substrings the corpus leaves out (argument SKIP). */
static bool skipped(const char *rel)
{
	char list[1024];

	if (!g_skip)
		return false;
	snprintf(list, sizeof(list), "%s", g_skip);
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
		if (tok[0] == '/' ? strstr(rel - 1, tok) != NULL : !strncmp(rel, tok, strlen(tok)))
			return true;
	return false;
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
	if (skipped(rel))
		return 0;
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
			if (g_keep_docs)
				; /* the doc-kept variant: the question is in the index */
			else if (lang == MI_LANG_PYTHON)
				strip_docstring(src, s->start_byte, s->end_byte);
			else
				blank_doc(src, mi_search_doc_start(orig, s->start_byte), s->start_byte);
			if (s->kind != MI_KIND_FUNCTION && s->kind != MI_KIND_METHOD)
				continue;
			char *q = first_sentence(s->doc, s->name);
			size_t nw = count_words(q);
			if (nw < 3 || nw > 30) {
				free(q);
				continue;
			}
			bool amb = false;
			for (size_t j = 0; j < p.nsyms && !amb; j++) {
				const mi_symbol *o = &p.syms[j];
				amb = j != i && same_str(o->name, s->name) &&
				      same_str(o->parent, s->parent) && same_str(o->sig, s->sig);
			}
			if (g_ncands == g_capcands) {
				g_capcands = g_capcands ? 2 * g_capcands : 1024;
				g_cands = mi_xrealloc(g_cands, g_capcands * sizeof(*g_cands));
			}
			g_cands[g_ncands++] = (cand){ q, mi_xstrdup(rel), mi_xstrdup(s->name),
						      s->start_line, amb, 0 };
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

/* Function chunks for FTS5, and identifier queries.  Values read in a
 * transaction live until it ends (decompressed copies), so the walk reads
 * each file's source once and starts a new transaction every 500 files:
 * memory stays bounded on the whole kernel. */
static int dump_chunks(const char *idx, json_t *idq)
{
	mi_store *st;
	mi_txn *t;
	mi_cursor *c;
	const void *k, *v;
	size_t kl, vl;
	char path[4096];
	FILE *f;
	int err, rc;
	size_t n = 0, files = 0;

	snprintf(path, sizeof(path), "%s/chunks.jsonl", g_out);
	if (!(f = fopen(path, "w")))
		return errno;
	if ((err = mi_store_open(idx, MI_STORE_RDONLY, &st)))
		return err;
	mi_txn_begin(st, false, &t);
	/* every file's chunks, in file id order */
	mi_cursor_open(t, MI_DB_FILEIDS, &c);
	for (rc = mi_cursor_seek(c, NULL, 0, &k, &kl, &v, &vl); !rc;
	     rc = mi_cursor_next(c, &k, &kl, &v, &vl)) {
		mi_syms ci;
		const void *cv, *sv;
		size_t cvl, sl;
		uint8_t fk[4];
		char *p, *src;
		if (kl != 4)
			continue;
		if (++files % 500 == 0) {
			memcpy(fk, k, 4);
			mi_cursor_close(c);
			mi_txn_abort(t);
			mi_txn_begin(st, false, &t);
			mi_cursor_open(t, MI_DB_FILEIDS, &c);
			if (mi_cursor_seek(c, fk, 4, &k, &kl, &v, &vl) || kl != 4 ||
			    memcmp(k, fk, 4))
				break;
		}
		p = mi_xstrndup(v, vl);
		if (mi_get(t, MI_DB_SRC, p, vl, &sv, &sl)) {
			free(p);
			continue;
		}
		src = mi_xstrndup(sv, sl);
		int crc = mi_chunks_open(t, mi_rd32(k), 0, &ci);
		while (!crc && !mi_syms_next(&ci, &cv, &cvl, NULL)) {
			mi_chunk ch;
			if (mi_chunk_decode(cv, cvl, &ch) ||
			    (ch.kind != MI_KIND_FUNCTION && ch.kind != MI_KIND_METHOD) ||
			    mi_chunk_sym(t, p, vl, &ch))
				continue;
			/* Lines start_line..end_line of the (doc-free) source. */
			const char *s = src, *e = s + sl, *a = s;
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
		}
		mi_syms_close(&ci);
		free(src);
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
	g_keep_docs = getenv("SEARCH_BENCH_KEEP_DOCS") != NULL;
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
	/*
	 * The NL queries, the same for every run on the same corpus: candidates
	 * in (path, line) order; a sentence that documents two functions, or a
	 * function its file defines twice (platform variants), has no single
	 * answer and is left out; then a sample by hash.  A query's half (tuning
	 * or held out) follows from its file's path, so one file's functions
	 * never tune the weights they are measured with.
	 */
	qsort(g_cands, g_ncands, sizeof(*g_cands), cand_cmp);
	{
		cand **byq = mi_xmalloc((g_ncands + 1) * sizeof(*byq));
		for (size_t i = 0; i < g_ncands; i++)
			byq[i] = &g_cands[i];
		qsort(byq, g_ncands, sizeof(*byq), cand_qcmp);
		for (size_t i = 0; i + 1 < g_ncands; i++)
			if (!strcasecmp(byq[i]->query, byq[i + 1]->query))
				byq[i]->ambiguous = byq[i + 1]->ambiguous = true;
		free(byq);
	}
	size_t nok = 0, dropped = 0;
	for (size_t i = 0; i < g_ncands; i++) {
		if (g_cands[i].ambiguous) {
			free(g_cands[i].query);
			free(g_cands[i].path);
			free(g_cands[i].name);
			dropped++;
			continue;
		}
		g_cands[nok++] = g_cands[i];
	}
	snprintf(path, sizeof(path), "%s/queries.jsonl", g_out);
	g_queries = fopen(path, "w");
	if (!g_queries)
		return 1;
	size_t most = getenv("SEARCH_BENCH_NL") ? strtoul(getenv("SEARCH_BENCH_NL"), NULL, 10) :
						  MAX_NL_QUERIES;
	size_t kept = nok < most ? nok : most;
	/* The sample: the candidates whose (path, name) hash smallest, so a
	 * change that adds or drops a few candidates changes as few of the
	 * questions (an even spacing shifted them all). */
	uint64_t cut = UINT64_MAX;
	if (kept < nok) {
		uint64_t *h = mi_xmalloc(nok * sizeof(*h));
		for (size_t i = 0; i < nok; i++) {
			mi_buf k = { 0 };
			mi_buf_addf(&k, "%s\n%s\n%s", g_cands[i].path, g_cands[i].name,
				    g_cands[i].query);
			h[i] = g_cands[i].pick = mi_hash64(k.buf, k.len);
			mi_buf_release(&k);
		}
		qsort(h, nok, sizeof(*h), cmp_u64);
		cut = h[kept - 1];
		free(h);
	}
	for (size_t j = 0; j < nok; j++) {
		cand *c = &g_cands[j];
		if (kept < nok && c->pick > cut)
			continue;
		json_t *o = json_pack("{s:s,s:s,s:i,s:s,s:s,s:i}", "query", c->query,
				      "path", c->path, "line", (int)c->line, "name", c->name,
				      "kind", "nl", "half",
				      (int)(mi_hash64(c->path, strlen(c->path)) & 1));
		char *js = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
		fprintf(g_queries, "%s\n", js);
		free(js);
		json_decref(o);
	}
	for (size_t i = 0; i < json_array_size(idq); i++) {
		char *js = json_dumps(json_array_get(idq, i), JSON_COMPACT | JSON_ENSURE_ASCII);
		fprintf(g_queries, "%s\n", js);
		free(js);
	}
	fclose(g_queries);
	fprintf(stderr, "search_bench: %zu NL queries (of %zu documented functions, "
		"%zu without a single answer), %zu identifier queries\n", kept, g_ncands,
		dropped, json_array_size(idq));
	for (size_t i = 0; i < nok; i++) {
		free(g_cands[i].query);
		free(g_cands[i].path);
		free(g_cands[i].name);
	}
	json_decref(idq);
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

/* ---- answering the queries ----------------------------------------------- */

typedef struct qry {
	char *query, *path, *name;
	int line;
	int kind;                  /* 0 NL, 1 identifier */
	int half;                  /* 0 tuning, 1 held out */
} qry;

/* One prepared corpus: its queries and its index. */
typedef struct qset {
	const char *dir;
	qry *q;
	size_t n;
	mi_query *idx;
} qset;

/* Figures of one half (or of identifier queries). */
typedef struct half_m {
	double rr, hits, n;        /* reciprocal ranks, hits in the top 10, queries */
	double span, nspan;        /* lines of the top-10 hits */
} half_m;

static int qset_open(qset *qs, const char *dir)
{
	char path[4096], line[65536];
	FILE *f;
	mi_buf err = { 0 };
	size_t cap = 0;

	memset(qs, 0, sizeof(*qs));
	qs->dir = dir;
	snprintf(path, sizeof(path), "%s/queries.jsonl", dir);
	if (!(f = fopen(path, "r"))) {
		fprintf(stderr, "search_bench: no %s; run prep first\n", path);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		json_t *o = json_loads(line, 0, NULL);
		if (!o)
			continue;
		if (qs->n == cap) {
			cap = cap ? 2 * cap : 1024;
			qs->q = mi_xrealloc(qs->q, cap * sizeof(*qs->q));
		}
		qry *q = &qs->q[qs->n++];
		q->query = mi_xstrdup(json_string_value(json_object_get(o, "query")));
		q->path = mi_xstrdup(json_string_value(json_object_get(o, "path")));
		q->name = mi_xstrdup(json_string_value(json_object_get(o, "name")));
		q->line = (int)json_integer_value(json_object_get(o, "line"));
		q->kind = strcmp(json_string_value(json_object_get(o, "kind")), "nl") != 0;
		q->half = (int)json_integer_value(json_object_get(o, "half"));
		json_decref(o);
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/index", dir);
	if (mi_query_open(path, &qs->idx, &err)) {
		fprintf(stderr, "search_bench: %s\n", mi_buf_str(&err));
		mi_buf_release(&err);
		return 1;
	}
	return 0;
}

static void qset_close(qset *qs)
{
	for (size_t i = 0; i < qs->n; i++) {
		free(qs->q[i].query);
		free(qs->q[i].path);
		free(qs->q[i].name);
	}
	free(qs->q);
	mi_query_close(qs->idx);
}

/* Rank (1-based, 0 = not in the top 10) of q's answer in the JSON answer j;
 * adds the top hits' spans to m. */
static int rank_of(const qry *q, json_t *j, half_m *m, FILE *top)
{
	json_t *r = json_object_get(j, "results");
	int rank = 0;
	/* SEARCH_BENCH_TOP=N: the first N hits (10 for 1 or no number) */
	const char *tn = getenv("SEARCH_BENCH_TOP");
	size_t top_n = tn && atoi(tn) > 1 ? (size_t)atoi(tn) : 10;

	for (size_t x = 0; x < json_array_size(r); x++) {
		json_t *h = json_array_get(r, x);
		json_int_t sl = json_integer_value(json_object_get(h, "start_line"));
		json_int_t el = json_integer_value(json_object_get(h, "end_line"));
		if (!rank && !strcmp(json_string_value(json_object_get(h, "path")), q->path) &&
		    sl == q->line)
			rank = (int)x + 1;
		if (x < 10) {
			m->span += (double)(el - sl + 1);
			m->nspan++;
		}
		if (top && x < top_n)
			fprintf(top, "\t%s:%s@%s:%d=%.6g", json_string_value(json_object_get(h, "kind")),
				json_string_value(json_object_get(h, "breadcrumb")),
				json_string_value(json_object_get(h, "path")), (int)sl,
				json_number_value(json_object_get(h, "score")));
	}
	return rank;
}

/*
 * Answers qs's NL queries of half `half` (-1: both, and the identifier
 * queries) with ranking rp and adds the figures to m[0..1] (by half) and
 * m[2] (identifiers: the function so named is the answer).  With lat, every
 * query is timed, best of three, into lat[kind] (nlat counts), and the
 * per-query ranks go to OUT/mcpidx_ranks.tsv.
 */
static void qset_eval(qset *qs, const mi_rank_params *rp, int half, half_m *m,
		      double **lat, size_t *nlat)
{
	char path[4096];
	FILE *ranks = NULL;
	bool top = getenv("SEARCH_BENCH_TOP") != NULL;

	/* SEARCH_BENCH_TOP=1: the top 10 hits with their scores in the
	 * ranks file, so two builds' rankings can be compared hit by hit;
	 * SEARCH_BENCH_TOP=N the top N (with SEARCH_BENCH_DEPTH >= N, to
	 * rerank them offline). */
	mi_query_set_scores(qs->idx, top);
	if (lat || getenv("SEARCH_BENCH_RANKS")) {
		snprintf(path, sizeof(path), "%s/mcpidx_ranks.tsv", qs->dir);
		ranks = fopen(path, "w");
	}
	for (size_t i = 0; i < qs->n; i++) {
		qry *q = &qs->q[i];
		if (!lat && half >= 0 && (q->kind || q->half != half))
			continue;
		/* SEARCH_BENCH_DEPTH=N: rank NL answers down to N (the figures
		 * stay @10; the ranks file shows how deep the misses are). */
		size_t depth = getenv("SEARCH_BENCH_DEPTH") ? (size_t)atoi(getenv("SEARCH_BENCH_DEPTH")) : 10;
		mi_search_opts so = { .query = q->query, .limit = q->kind ? 20 : depth,
				      .format = "json", .rank = rp,
				      /* SEARCH_BENCH_PUBLIC=1: the old default, filter public */
				      .all = getenv("SEARCH_BENCH_PUBLIC") == NULL };
		mi_out out = { 0 };
		double ms = 1e9;
		/* Warm latency: the best of three runs, so a busy machine's
		 * preemptions do not pass for search time (same for FTS5). */
		/* SEARCH_BENCH_CLOCK=cpu: the thread's CPU time, which a busy
		 * machine's waits for a core do not inflate (fts5.py likewise). */
		clockid_t clk = getenv("SEARCH_BENCH_CLOCK") &&
				!strcmp(getenv("SEARCH_BENCH_CLOCK"), "cpu") ?
				CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
		for (int rep = 0; rep < (lat ? 3 : 1); rep++) {
			struct timespec t0, t1;
			mi_out_reset(&out);
			clock_gettime(clk, &t0);
			mi_query_search(qs->idx, &so, &out);
			clock_gettime(clk, &t1);
			double one = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
				     (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
			if (one < ms)
				ms = one;
		}
		if (lat) {
			lat[q->kind][nlat[q->kind]++] = ms;
			if (getenv("SEARCH_BENCH_SLOW") && ms > atof(getenv("SEARCH_BENCH_SLOW")))
				fprintf(stderr, "slow %.2f ms: %s\n", ms, q->query);
		}
		{
			json_t *j = json_loads(mi_buf_str(&out.json), 0, NULL);
			half_m *hm = &m[q->kind ? 2 : q->half];
			if (ranks)
				fprintf(ranks, "%zu\t%d\t%.3f\t%s\t=%s", i, q->half, ms, q->query, q->name);
			int rank = rank_of(q, j, hm, ranks && top ? ranks : NULL);
			if (ranks)
				fprintf(ranks, "\t@%d\n", rank);
			if (rank > 10)
				rank = 0;
			hm->rr += rank ? 1.0 / rank : 0;
			hm->hits += rank ? 1 : 0;
			hm->n++;
			json_decref(j);
		}
		mi_out_release(&out);
	}
	if (ranks)
		fclose(ranks);
}

static json_t *half_json(const half_m *m)
{
	return json_pack("{s:f,s:f,s:f,s:i}", "mrr10", m->n ? m->rr / m->n : 0,
			 "recall10", m->n ? m->hits / m->n : 0,
			 "span", m->nspan ? m->span / m->nspan : 0, "n", (int)m->n);
}

/* ---- ranking parameters by name (MI_RANK="w.name=3,b.body=0.6") ------------ */

static const char *const field_names[MI_SF__COUNT] = { "name", "path", "sig", "doc", "body" };

/* The address of parameter `name` in rp, or NULL. */
static float *param_ref(mi_rank_params *rp, const char *name)
{
	static const struct { const char *name; size_t off; } scalars[] = {
		{ "k1", offsetof(mi_rank_params, k1) },
		{ "aux", offsetof(mi_rank_params, aux) },
		{ "join", offsetof(mi_rank_params, join) },
		{ "priv", offsetof(mi_rank_params, priv) },
		{ "cover", offsetof(mi_rank_params, cover) },
		{ "test", offsetof(mi_rank_params, test) },
		{ "gen", offsetof(mi_rank_params, gen) },
		{ "name_share", offsetof(mi_rank_params, name_share) },
		{ "abbr", offsetof(mi_rank_params, abbr) },
		{ "inexact", offsetof(mi_rank_params, inexact) },
	};

	for (int f = 0; f < MI_SF__COUNT; f++) {
		if (!strncmp(name, "w.", 2) && !strcmp(name + 2, field_names[f]))
			return &rp->w[f];
		if (!strncmp(name, "b.", 2) && !strcmp(name + 2, field_names[f]))
			return &rp->b[f];
		if (!strncmp(name, "cap.", 4) && !strcmp(name + 4, field_names[f]))
			return &rp->cap[f];
	}
	for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++)
		if (!strcmp(name, scalars[i].name))
			return (float *)((char *)rp + scalars[i].off);
	return NULL;
}

static int params_parse(mi_rank_params *rp, const char *spec)
{
	char buf[1024];

	*rp = mi_rank_defaults;
	if (!spec)
		return 0;
	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *tok = strtok(buf, ", "); tok; tok = strtok(NULL, ", ")) {
		char *eq = strchr(tok, '=');
		float *v;
		if (!eq)
			return 1;
		*eq = 0;
		if (!(v = param_ref(rp, tok))) {
			fprintf(stderr, "search_bench: unknown ranking parameter %s\n", tok);
			return 1;
		}
		*v = strtof(eq + 1, NULL);
	}
	return 0;
}

static int cmd_run(void)
{
	char path[4096];
	json_t *res = json_object();
	qset qs;
	mi_rank_params rp;
	double *lat[2];
	size_t nlat[2] = { 0, 0 };
	half_m m[3];

	memset(m, 0, sizeof(m));
	if (params_parse(&rp, getenv("MI_RANK")) || qset_open(&qs, g_out))
		return 1;
	lat[0] = mi_xcalloc(qs.n + 1, sizeof(double));
	lat[1] = mi_xcalloc(qs.n + 1, sizeof(double));
	/* SEARCH_BENCH_QUICK=1: relevance only, one pass, no timing. */
	if (getenv("SEARCH_BENCH_QUICK")) {
		qset_eval(&qs, &rp, -1, m, NULL, NULL);
	} else {
		half_m warm[3];
		memset(warm, 0, sizeof(warm));
		qset_eval(&qs, &rp, -1, warm, NULL, NULL); /* warm the map */
		qset_eval(&qs, &rp, -1, m, lat, nlat);
	}
	qsort(lat[0], nlat[0], sizeof(double), dcmp);
	qsort(lat[1], nlat[1], sizeof(double), dcmp);
	json_object_set_new(res, "tune", half_json(&m[0]));
	json_object_set_new(res, "heldout", half_json(&m[1]));
	json_object_set_new(res, "ident", half_json(&m[2]));
	json_object_set_new(res, "nl_queries", json_integer((json_int_t)(m[0].n + m[1].n)));
	json_object_set_new(res, "id_queries", json_integer((json_int_t)nlat[1]));
	json_object_set_new(res, "nl_p50_ms", json_real(pct(lat[0], nlat[0], 0.5)));
	json_object_set_new(res, "nl_p99_ms", json_real(pct(lat[0], nlat[0], 0.99)));
	json_object_set_new(res, "id_p50_ms", json_real(pct(lat[1], nlat[1], 0.5)));
	json_object_set_new(res, "id_p99_ms", json_real(pct(lat[1], nlat[1], 0.99)));
	json_object_set_new(res, "index_bytes",
			    json_integer((json_int_t)mi_store_size(mi_query_store(qs.idx))));
	/* The search databases' own payload (keys + values). */
	{
		mi_txn *t;
		uint64_t bytes = 0;
		mi_txn_begin(mi_query_store(qs.idx), false, &t);
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
	if (getenv("SEARCH_BENCH_QUICK"))
		printf("%s: tune %.3f / %.3f  held-out %.3f / %.3f  (MRR@10 / R@10)  span %.1f"
		       "  identifiers %.3f / %.3f\n",
		       g_out, m[0].n ? m[0].rr / m[0].n : 0, m[0].n ? m[0].hits / m[0].n : 0,
		       m[1].n ? m[1].rr / m[1].n : 0, m[1].n ? m[1].hits / m[1].n : 0,
		       (m[0].span + m[1].span) / (m[0].nspan + m[1].nspan + 1e-9),
		       m[2].n ? m[2].rr / m[2].n : 0, m[2].n ? m[2].hits / m[2].n : 0);
	qset_close(&qs);
	free(lat[0]);
	free(lat[1]);
	json_decref(res);
	return 0;
}

/*
 * search_bench tune PARAMS DIR...: coordinate ascent of the named ranking
 * parameters (comma-separated) on the tuning halves of the given corpora,
 * maximising the mean over corpora of MRR@10, from MI_RANK or the
 * defaults.  Each step tries the value times and divided by a factor that
 * shrinks when no step helps.  Prints the path it took and, at the end,
 * the held-out figures of the start and of the result.
 */
static double tune_score(qset *sets, int nsets, const mi_rank_params *rp, int half,
			 double *per)
{
	double sum = 0;

	for (int i = 0; i < nsets; i++) {
		half_m m[3];
		memset(m, 0, sizeof(m));
		qset_eval(&sets[i], rp, half, m, NULL, NULL);
		per[i] = m[half].n ? m[half].rr / m[half].n : 0;
		sum += per[i];
	}
	return sum / nsets;
}

static void print_params(const mi_rank_params *rp)
{
	printf("k1=%.3g,aux=%.3g,join=%.3g,priv=%.3g,cover=%.3g,test=%.3g,gen=%.3g,name_share=%.3g",
	       rp->k1, rp->aux, rp->join, rp->priv, rp->cover, rp->test, rp->gen, rp->name_share);
	for (int f = 0; f < MI_SF__COUNT; f++)
		printf(",w.%s=%.3g", field_names[f], rp->w[f]);
	for (int f = 0; f < MI_SF__COUNT; f++)
		printf(",b.%s=%.3g", field_names[f], rp->b[f]);
	printf("\n");
}

static int cmd_tune(const char *names, char **dirs, int ndirs)
{
	qset sets[8];
	double per[8];
	mi_rank_params rp, start;
	char buf[1024];
	const char *pn[32];
	int np = 0;

	if (ndirs > 8 || params_parse(&rp, getenv("MI_RANK")))
		return 2;
	start = rp;
	snprintf(buf, sizeof(buf), "%s", names);
	for (char *tok = strtok(buf, ","); tok && np < 32; tok = strtok(NULL, ","))
		if (param_ref(&rp, tok))
			pn[np++] = tok;
	for (int i = 0; i < ndirs; i++)
		if (qset_open(&sets[i], dirs[i]))
			return 1;
	double best = tune_score(sets, ndirs, &rp, 0, per);
	printf("start %.4f\n", best);
	for (double step = 1.5; step > 1.04; step = 1 + (step - 1) / 2) {
		bool moved = true;
		while (moved) {
			moved = false;
			for (int i = 0; i < np; i++) {
				for (int dir = 0; dir < 2; dir++) {
					mi_rank_params t = rp;
					float *v = param_ref(&t, pn[i]);
					float nv = dir ? *v / (float)step : *v * (float)step;
					bool is_b = !strncmp(pn[i], "b.", 2) || !strcmp(pn[i], "aux") ||
						    !strcmp(pn[i], "join") || !strcmp(pn[i], "priv") ||
						    !strcmp(pn[i], "test") || !strcmp(pn[i], "gen");
					if (*v == 0)
						nv = dir ? 0 : 0.1f;
					if (is_b && nv > 1)
						nv = 1;
					if (nv == *v)
						continue;
					*v = nv;
					double sc = tune_score(sets, ndirs, &t, 0, per);
					if (sc > best + 1e-4) {
						best = sc;
						rp = t;
						moved = true;
						printf("%.4f  %s=%.4g\n", best, pn[i], nv);
						fflush(stdout);
						break;
					}
				}
			}
		}
	}
	printf("best tuning MRR %.4f with ", best);
	print_params(&rp);
	tune_score(sets, ndirs, &start, 1, per);
	printf("held out, start: ");
	for (int i = 0; i < ndirs; i++)
		printf(" %s %.4f", dirs[i], per[i]);
	tune_score(sets, ndirs, &rp, 1, per);
	printf("\nheld out, tuned: ");
	for (int i = 0; i < ndirs; i++)
		printf(" %s %.4f", dirs[i], per[i]);
	printf("\n");
	for (int i = 0; i < ndirs; i++)
		qset_close(&sets[i]);
	return 0;
}

static int cmp_ms(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * search_bench list INDEX FILE [code|docs] [LIMIT]: each line of FILE a
 * query, asked as search_code (limit 20) or search_docs (limit 10) are,
 * once untimed, then timed: per query the best of three (SEARCH_BENCH_REPS=N:
 * of N; CPU time with
 * SEARCH_BENCH_CLOCK=cpu: the calling thread's, so a split query's second
 * pass is not in it; SEARCH_BENCH_SPLIT=N splits queries of N postings or
 * more, 1000000000 none).  Prints p50/p99/max and the slowest queries;
 * SEARCH_BENCH_DUMP=FILE writes each answer with its scores, so two
 * builds' answers can be compared hit for hit, SEARCH_BENCH_TIMES=FILE
 * each query's time.  For the query set of
 * bench-mcp (the names of its sampled functions split into words).
 */
static int cmd_list(const char *index, const char *file, bool docs, size_t limit)
{
	char line[4096];
	char **qs = NULL;
	size_t n = 0, cap = 0;
	mi_query *idx;
	mi_buf err = { 0 };
	FILE *f = fopen(file, "r"), *dump = NULL;
	clockid_t clk = getenv("SEARCH_BENCH_CLOCK") && !strcmp(getenv("SEARCH_BENCH_CLOCK"), "cpu") ?
			CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;

	if (!f) {
		fprintf(stderr, "search_bench: cannot read %s: %s\n", file, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!*line)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			qs = realloc(qs, cap * sizeof(*qs));
		}
		qs[n++] = strdup(line);
	}
	fclose(f);
	if (!n || mi_query_open(index, &idx, &err)) {
		fprintf(stderr, "search_bench: %s\n", n ? mi_buf_str(&err) : "no queries");
		mi_buf_release(&err);
		return 1;
	}
	if (getenv("SEARCH_BENCH_DUMP") && !(dump = fopen(getenv("SEARCH_BENCH_DUMP"), "w"))) {
		fprintf(stderr, "search_bench: cannot write %s\n", getenv("SEARCH_BENCH_DUMP"));
		return 1;
	}
	mi_query_set_scores(idx, dump != NULL);
	if (getenv("SEARCH_BENCH_SPLIT")) /* postings from which a query splits */
		mi_query_set_split(idx, strtoull(getenv("SEARCH_BENCH_SPLIT"), NULL, 10));
	double *ms = calloc(n, sizeof(*ms)), *sorted = calloc(n, sizeof(*ms));
	int reps = getenv("SEARCH_BENCH_REPS") ? atoi(getenv("SEARCH_BENCH_REPS")) : 3;

	if (reps < 1)
		reps = 1;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			mi_search_opts so = { .query = qs[i], .limit = limit, .format = "json",
					      .all = true };
			mi_out out = { 0 };
			ms[i] = 1e9;
			for (int rep = 0; rep < (pass ? reps : 1); rep++) {
				struct timespec t0, t1;
				mi_out_reset(&out);
				clock_gettime(clk, &t0);
				if (docs)
					mi_query_docs(idx, &so, &out);
				else
					mi_query_search(idx, &so, &out);
				clock_gettime(clk, &t1);
				double one = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
					     (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
				ms[i] = one < ms[i] ? one : ms[i];
			}
			if (pass && dump)
				fprintf(dump, "%s\t%s\n", qs[i], mi_buf_str(&out.json));
			mi_out_release(&out);
		}
	memcpy(sorted, ms, n * sizeof(*ms));
	qsort(sorted, n, sizeof(*sorted), cmp_ms);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += ms[i];
	printf("%s n=%zu p50 %.3f ms p90 %.3f p99 %.3f max %.3f mean %.3f (%s, best of %d)\n",
	       docs ? "search_docs" : "search_code", n, sorted[n / 2], sorted[n * 9 / 10],
	       sorted[(n - 1) * 99 / 100], sorted[n - 1], sum / n,
	       clk == CLOCK_MONOTONIC ? "wall" : "CPU", reps);
	if (getenv("SEARCH_BENCH_TIMES")) { /* each query's time, for comparing two builds */
		FILE *tf = fopen(getenv("SEARCH_BENCH_TIMES"), "w");
		for (size_t i = 0; tf && i < n; i++)
			fprintf(tf, "%.3f\t%s\n", ms[i], qs[i]);
		if (tf)
			fclose(tf);
	}
	for (int s = 0; s < 8; s++) {
		size_t w = 0;
		for (size_t i = 1; i < n; i++)
			if (ms[i] > ms[w])
				w = i;
		printf("  slow %.2f ms: %s\n", ms[w], qs[w]);
		ms[w] = -1;
	}
	if (dump)
		fclose(dump);
	for (size_t i = 0; i < n; i++)
		free(qs[i]);
	free(qs);
	free(ms);
	free(sorted);
	mi_query_close(idx);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "prep")) {
		/* The walk does not follow links: a corpus that is one
		 * (build/corpus/linux -> a shared copy) is walked where it is. */
		static char real[PATH_MAX];
		g_src = realpath(argv[2], real) ? real : argv[2];
		g_out = argv[3];
		g_exts = argv[4];
		g_skip = argc == 6 ? argv[5] : NULL;
		return cmd_prep();
	}
	if (argc == 3 && !strcmp(argv[1], "run")) {
		g_out = argv[2];
		return cmd_run();
	}
	if (argc >= 4 && !strcmp(argv[1], "tune"))
		return cmd_tune(argv[2], argv + 3, argc - 3);
	if (argc >= 4 && argc <= 6 && !strcmp(argv[1], "list")) {
		bool docs = argc >= 5 && !strcmp(argv[4], "docs");
		return cmd_list(argv[2], argv[3], docs,
				argc == 6 ? (size_t)atoi(argv[5]) : docs ? 10 : 20);
	}
	fprintf(stderr, "usage: search_bench prep SRC_DIR OUT_DIR EXTS [SKIP] | run OUT_DIR"
		" | tune PARAMS OUT_DIR...\n"
		"       | list INDEX FILE [code|docs] [LIMIT]\n");
	return 2;
}
