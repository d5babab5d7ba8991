/*
 * test_search.c - search_code and search_docs on testdata/search, a small
 * repository where the right answers are known: split and renamed
 * identifiers, doc-only matches, filters, private symbols, test and
 * generated code, bad input, and statistics that stay right across
 * incremental builds.
 */
#include "format/format.h"
#include "indexer/indexer_int.h"
#include "query/query.h"
#include "tests/unit/test.h"

#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

#define REPO "testdata/search/"

/* Stable file ids: the index in this table. */
static const char *const files[] = {
	"README.md", "docs/guide.md", "server/http.go", "src/config.c",
	"src/config.h", "tools/cache.py", "web/config.js", "server/http_test.go",
	"server/status.pb.go",
};
#define NFILES (sizeof(files) / sizeof(files[0]))

typedef struct tfile {
	uint32_t fid;
	const char *path;
	const char *src;   /* NULL: read REPO path */
} tfile;

static char tmp_root[] = "/tmp/mi-test-search-XXXXXX";

static int put_kv(void *ctx, const void *k, size_t kl, const void *v, size_t vl)
{
	return mi_put(ctx, MI_DB_SYMS, k, kl, v, vl);
}

static int put_one(mi_txn *t, const tfile *f)
{
	char *src = NULL, full[512];
	size_t len;
	mi_parsed p;
	uint8_t k[4];
	int lang = mi_lang_detect(f->path), err;

	if (f->src) {
		src = mi_xstrdup(f->src);
		len = strlen(src);
	} else {
		snprintf(full, sizeof(full), REPO "%s", f->path);
		if ((err = mi_read_file(full, &src, &len)))
			return err;
	}
	mi_parsed_init(&p);
	err = mi_parse_source(lang, src, len, &p);
	/* An edit: the old version out first, as a build takes it out. */
	if (!err)
		err = mi_search_del_file(t, f->fid, f->path);
	mi_be32(k, f->fid);
	if (!err)
		err = mi_put(t, MI_DB_FILEIDS, k, 4, f->path, strlen(f->path));
	if (!err)
		err = mi_put(t, MI_DB_SRC, f->path, strlen(f->path), src, len);
	if (!err) {
		/* The symbols, as a build writes them: a hit's signature and doc
		 * comment are its symbol's. */
		mi_buf pk = { 0 };
		mi_buf_add(&pk, f->path, strlen(f->path) + 1);
		err = mi_del_prefix(t, MI_DB_SYMS, pk.buf, pk.len);
		if (err == MI_ERR_NOTFOUND)
			err = 0;
		if (!err)
			err = mi_syms_put(&p, f->path, strlen(f->path), put_kv, t);
		mi_buf_release(&pk);
	}
	if (!err) {
		/* The file record, as a build writes it (search reads the id). */
		mi_file_rec rec = { .file_id = f->fid, .lang = (uint8_t)lang, .size = len };
		mi_buf rb = { 0 };
		mi_file_encode(&rec, &rb);
		err = mi_put(t, MI_DB_FILES, f->path, strlen(f->path), rb.buf, rb.len);
		mi_buf_release(&rb);
	}
	if (!err)
		err = mi_search_put_file(t, f->fid, f->path, &p, src, len);
	mi_parsed_release(&p);
	free(src);
	return err;
}

/* One build step in dir: put files, delete ids, finish. */
static int build(const char *dir, const tfile *put, size_t nput,
		 const uint32_t *del, size_t ndel, size_t *nchunks)
{
	mi_store *st = NULL;
	mi_txn *t = NULL;
	int err;

	if ((err = mi_store_open(dir, MI_STORE_CREATE, &st)))
		return err;
	if ((err = mi_txn_begin(st, true, &t)))
		goto out;
	err = mi_meta_put_int(t, "version", MI_FORMAT_VERSION);
	for (size_t i = 0; i < ndel && !err; i++) {
		uint8_t k[4];
		mi_be32(k, del[i]);
		const void *pv;
		size_t pvl;
		char *path = NULL;
		err = mi_get(t, MI_DB_FILEIDS, k, 4, &pv, &pvl);
		if (!err) {
			path = mi_xstrndup(pv, pvl);
			err = mi_search_del_file(t, del[i], path);
			free(path);
		}
		if (!err)
			err = mi_del(t, MI_DB_FILEIDS, k, 4);
	}
	for (size_t i = 0; i < nput && !err; i++)
		err = put_one(t, &put[i]);
	if (!err)
		err = mi_search_finish(t, nchunks);
	if (err)
		mi_txn_abort(t);
	else
		err = mi_txn_commit(t);
out:
	mi_store_close(st);
	return err;
}

static void all_files(tfile *out)
{
	for (size_t i = 0; i < NFILES; i++)
		out[i] = (tfile){ (uint32_t)i, files[i], NULL };
}

static mi_query *open_index(const char *name)
{
	char dir[256];
	tfile fs[NFILES];
	size_t n = 0;
	mi_query *q = NULL;
	mi_buf err = { 0 };

	snprintf(dir, sizeof(dir), "%s/%s", tmp_root, name);
	all_files(fs);
	if (access(dir, F_OK) && build(dir, fs, NFILES, NULL, 0, &n))
		return NULL;
	if (mi_query_open(dir, &q, &err))
		printf("# %s\n", mi_buf_str(&err));
	mi_buf_release(&err);
	return q;
}

/* Runs a search; returns the parsed JSON answer (caller decrefs) or NULL,
 * with *rc the return code and text (if given) the text form. */
static json_t *run(mi_query *q, bool docs, const char *query, const char *filter,
		   const char *exts, bool all, const char *format, int *rc,
		   mi_buf *text)
{
	mi_search_opts o = { .query = query, .path_filter = filter,
			     .extensions = exts, .all = all, .format = format };
	mi_out out = { 0 };
	json_t *j;
	json_error_t je;
	int r = docs ? mi_query_docs(q, &o, &out) : mi_query_search(q, &o, &out);

	if (rc)
		*rc = r;
	j = json_loads(mi_buf_str(&out.json), 0, &je);
	if (!j)
		printf("# bad json: %s\n%s\n", je.text, mi_buf_str(&out.json));
	if (text)
		mi_buf_add(text, out.text.buf, out.text.len);
	mi_out_release(&out);
	return j;
}

static const char *res_str(json_t *j, size_t i, const char *field)
{
	json_t *r = json_array_get(json_object_get(j, "results"), i);
	json_t *v = r ? json_object_get(r, field) : NULL;

	return json_is_string(v) ? json_string_value(v) : "";
}

static long res_int(json_t *j, size_t i, const char *field)
{
	json_t *r = json_array_get(json_object_get(j, "results"), i);
	json_t *v = r ? json_object_get(r, field) : NULL;

	return json_is_integer(v) ? (long)json_integer_value(v) : -1;
}

static double res_num(json_t *j, size_t i, const char *field)
{
	json_t *r = json_array_get(json_object_get(j, "results"), i);

	return r ? json_number_value(json_object_get(r, field)) : -1;
}

static size_t nres(json_t *j)
{
	return json_array_size(json_object_get(j, "results"));
}

/* Index of the first result whose breadcrumb ends in name, or -1. */
static int rank_of(json_t *j, const char *name)
{
	for (size_t i = 0; i < nres(j); i++) {
		const char *b = res_str(j, i, "breadcrumb");
		size_t bl = strlen(b), nl = strlen(name);
		if (bl >= nl && !strcmp(b + bl - nl, name))
			return (int)i;
	}
	return -1;
}

TEST(split_identifiers_find_both_spellings)
{
	mi_query *q = open_index("main");
	json_t *j;
	int r1, r2;

	if (!q) {
		CHECK(!"the test index builds and opens");
		return;
	}
	j = run(q, false, "parse config", NULL, NULL, false, "json", NULL, NULL);
	r1 = rank_of(j, "parse_config");
	r2 = rank_of(j, "parseConfig");
	CHECK(r1 >= 0 && r1 < 3);
	CHECK(r2 >= 0 && r2 < 3);
	CHECK_INT(res_int(j, 0, "relevance_percent"), 100);
	CHECK(json_integer_value(json_object_get(j, "total")) == (json_int_t)nres(j));
	json_decref(j);
	mi_query_close(q);
}

TEST(renamed_identifier_spellings)
{
	mi_query *q = open_index("main");
	json_t *j;

	if (!q) {
		CHECK(!"the test index builds and opens");
		return;
	}
	/* snake_case query, PascalCase code. */
	j = run(q, false, "start_http_server", NULL, NULL, false, "json", NULL, NULL);
	CHECK_STR(res_str(j, 0, "breadcrumb"), "StartHTTPServer");
	CHECK_STR(res_str(j, 0, "path"), "server/http.go");
	CHECK_STR(res_str(j, 0, "kind"), "function");
	CHECK_CONTAINS(res_str(j, 0, "signature"), "func StartHTTPServer(addr string) error");
	CHECK_CONTAINS(res_str(j, 0, "doc_comment"), "listens on addr");
	CHECK_CONTAINS(res_str(j, 0, "content"), "func StartHTTPServer");
	CHECK_INT(res_int(j, 0, "start_line"), 10);
	json_decref(j);
	/* camelCase query, snake_case code. */
	j = run(q, false, "tokenizeLine", NULL, NULL, false, "json", NULL, NULL);
	CHECK_STR(res_str(j, 0, "breadcrumb"), "tokenize_line");
	json_decref(j);
	/* The whole identifier beats its parts. */
	j = run(q, false, "LRUCache", NULL, NULL, false, "json", NULL, NULL);
	CHECK_STR(res_str(j, 0, "breadcrumb"), "LRUCache");
	CHECK_STR(res_str(j, 0, "kind"), "class");
	json_decref(j);
	mi_query_close(q);
}

TEST(doc_only_match)
{
	mi_query *q = open_index("main");
	json_t *j;

	if (!q) {
		CHECK(!"the test index builds and opens");
		return;
	}
	/* "run-length encoding" appears only in shrink_blob's doc comment. */
	j = run(q, false, "run-length encoding", NULL, NULL, false, "json", NULL, NULL);
	CHECK_STR(res_str(j, 0, "breadcrumb"), "shrink_blob");
	json_decref(j);
	/* Natural language against a docstring. */
	j = run(q, false, "discard oldest entry when the cache is full", NULL, NULL,
		false, "json", NULL, NULL);
	CHECK_STR(res_str(j, 0, "breadcrumb"), "LRUCache");
	json_decref(j);
	mi_query_close(q);
}

/* A chunk owns its whole doc comment, however many lines it runs over (Go's
 * net.Dial has one comment per line, over a hundred of them); a comment a
 * blank line above is not its own. */
TEST(chunk_owns_a_long_doc_comment)
{
	mi_buf b = { 0 };
	mi_parsed p;
	uint32_t doc_at, other_end;

	mi_buf_adds(&b, "package net\n\n// Unrelated comment.\n\n");
	other_end = (uint32_t)b.len;
	doc_at = (uint32_t)b.len;
	mi_buf_adds(&b, "// Dial connects to the address on the named network.\n");
	for (int i = 0; i < 120; i++)
		mi_buf_addf(&b, "// line %d of the doc comment.\n", i);
	mi_buf_adds(&b, "func Dial(network, address string) (Conn, error) {\n\treturn nil, nil\n}\n");
	mi_parsed_init(&p);
	CHECK(mi_parse_source(MI_LANG_GO, b.buf, b.len, &p) == 0);
	for (size_t i = 0; i < p.nsyms; i++) {
		const mi_symbol *s = &p.syms[i];
		if (strcmp(s->name, "Dial"))
			continue;
		CHECK(s->doc && !strncmp(s->doc, "Dial connects", 13));
		CHECK_INT(mi_search_doc_start(b.buf, s->start_byte), doc_at);
		CHECK(doc_at >= other_end);
	}
	mi_parsed_release(&p);
	mi_buf_release(&b);
}

/* Rust writes the doc comment above the attributes (#[stable], a
 * #[cfg_attr] over several lines): the chunk owns both; attributes with no
 * comment above them do not start it, nor does an array ending a line.
 * A doc of several /// lines is read whole (each line comment holds its
 * newline, so the one above it ends on its row at column 0). */
TEST(chunk_owns_a_doc_comment_above_attributes)
{
	static const char src[] =
		"const T: [u8; 2] = [1, 2];\n"          /* ends in ']', not an attribute */
		"/// Creates owned data from borrowed data.\n"
		"///\n"
		"/// # Examples\n"
		"#[stable(feature = \"rust1\", since = \"1.0.0\")]\n"
		"#[cfg_attr(\n    not(test),\n    rustc_diagnostic_item = \"to_owned\"\n)]\n"
		"pub fn to_owned() {}\n"
		"\n"
		"#[inline]\n"
		"pub fn bare() {}\n"
		"\n"
		"/// Grows the buffer.\n"
		"/// Panics when it overflows.\n"
		"pub fn grow() {}\n"
		"\n"
		"const U: [u8; 1] = [0];\n"
		"pub fn after_array() {}\n";
	const char *doc = strstr(src, "/// Creates");
	mi_parsed p;
	int seen = 0;

	mi_parsed_init(&p);
	CHECK(mi_parse_source(MI_LANG_RUST, src, sizeof(src) - 1, &p) == 0);
	for (size_t i = 0; i < p.nsyms; i++) {
		const mi_symbol *s = &p.syms[i];
		uint32_t at = mi_search_doc_start(src, s->start_byte);
		if (!strcmp(s->name, "to_owned")) {
			CHECK_STR(s->doc, "Creates owned data from borrowed data.\n# Examples");
			CHECK_INT(at, (uint32_t)(doc - src));
			seen++;
		} else if (!strcmp(s->name, "grow")) {
			CHECK_STR(s->doc, "Grows the buffer.\nPanics when it overflows.");
			CHECK_INT(at, (uint32_t)(strstr(src, "/// Grows") - src));
			seen++;
		} else if (!strcmp(s->name, "bare") || !strcmp(s->name, "after_array")) {
			CHECK_INT(at, s->start_byte);
			seen++;
		}
	}
	CHECK_INT(seen, 4);
	mi_parsed_release(&p);
}

TEST(path_filter_and_extensions)
{
	mi_query *q = open_index("main");
	json_t *j;

	if (!q) {
		CHECK(!"the test index builds and opens");
		return;
	}
	j = run(q, false, "parse config", "web/**", NULL, false, "json", NULL, NULL);
	CHECK(nres(j) >= 1);
	for (size_t i = 0; i < nres(j); i++)
		CHECK_STR(res_str(j, i, "path"), "web/config.js");
	json_decref(j);
	j = run(q, false, "parse config", "src", NULL, false, "json", NULL, NULL);
	CHECK(nres(j) >= 1);
	for (size_t i = 0; i < nres(j); i++)
		CHECK(!strncmp(res_str(j, i, "path"), "src/", 4));
	json_decref(j);
	j = run(q, false, "parse config", NULL, "h", false, "json", NULL, NULL);
	CHECK(nres(j) >= 1);
	for (size_t i = 0; i < nres(j); i++)
		CHECK_STR(res_str(j, i, "path"), "src/config.h");
	json_decref(j);
	j = run(q, false, "parse config", "*.js", ".c,.js", false, "json", NULL, NULL);
	CHECK(nres(j) >= 1 && rank_of(j, "parseConfig") == 0);
	CHECK(rank_of(j, "parse_config") < 0);
	json_decref(j);
	j = run(q, false, "parse config", "nowhere/**", NULL, false, "json", NULL, NULL);
	CHECK_INT(nres(j), 0);
	json_decref(j);
	mi_query_close(q);
}

TEST(private_symbols_need_all)
{
	mi_query *q = open_index("main");
	json_t *j;

	if (!q) {
		CHECK(!"the test index builds and opens");
		return;
	}
	j = run(q, false, "free entries", NULL, NULL, false, "json", NULL, NULL);
	CHECK(rank_of(j, "free_entries") < 0);
	json_decref(j);
	j = run(q, false, "free entries", NULL, NULL, true, "json", NULL, NULL);
	CHECK_INT(rank_of(j, "free_entries"), 0);
	json_decref(j);
	mi_query_close(q);
}

TEST(ranking_defaults_match_the_index_weights)
{
	/* The WAND bounds are stored with the index's weights: the default
	 * ranking must score with the same ones or it loses its pruning. */
	const mi_bm25f *P = &mi_bm25f_params;

	CHECK(mi_rank_defaults.k1 == P->k1[MI_SM_CODE]);
	for (int f = 0; f < MI_SF__COUNT; f++) {
		CHECK(mi_rank_defaults.w[f] == P->w[MI_SM_CODE][f]);
		CHECK(mi_rank_defaults.b[f] == P->b[MI_SM_CODE][f]);
		CHECK(mi_rank_defaults.cap[f] == P->cap[MI_SM_CODE][f]);
	}
	/* Priors are factors <= 1, or the bounds would not hold. */
	CHECK(mi_rank_defaults.aux <= 1 && mi_rank_defaults.priv <= 1 &&
	      mi_rank_defaults.test <= 1 && mi_rank_defaults.gen <= 1);
}

TEST(test_code_yields_unless_asked_for)
{
	mi_query *q = open_index("main");
	json_t *j;

	if (!q) {
		CHECK(!"the test index builds and opens");
		return;
	}
	/* The test's name and body say every word of the question too; the
	 * code it tests is the answer. */
	j = run(q, false, "start the http server", NULL, NULL, true, "json", NULL, NULL);
	CHECK_INT(rank_of(j, "StartHTTPServer"), 0);
	CHECK(rank_of(j, "TestStartHTTPServer") > 0);
	json_decref(j);
	/* A question about tests finds the test first. */
	j = run(q, false, "test that starting the http server on a busy address fails",
		NULL, NULL, true, "json", NULL, NULL);
	CHECK_INT(rank_of(j, "TestStartHTTPServer"), 0);
	json_decref(j);
	mi_query_close(q);
}

TEST(generated_code_ranks_below_written_code)
{
	mi_query *q = open_index("main");
	json_t *j;

	if (!q) {
		CHECK(!"the test index builds and opens");
		return;
	}
	/* status.pb.go says "DO NOT EDIT": its String answers the question as
	 * well as describeHealth, and ranks below it; it is still found. */
	j = run(q, false, "name of a health state", NULL, NULL, true, "json", NULL, NULL);
	CHECK_INT(rank_of(j, "describeHealth"), 0);
	CHECK(rank_of(j, "Health > String") > 0);
	json_decref(j);
	j = run(q, false, "EnumDescriptor", NULL, NULL, true, "json", NULL, NULL);
	CHECK_STR(res_str(j, 0, "path"), "server/status.pb.go");
	json_decref(j);
	mi_query_close(q);
}

/* A search with semantic evidence; returns the parsed answer. */
static json_t *run_ev(mi_query *q, const char *query, const mi_search_evidence *ev,
		      size_t nev, float w)
{
	mi_search_opts o = { .query = query, .format = "json", .all = true,
			     .evidence = ev, .nevidence = nev, .semantic_weight = w };
	mi_out out = { 0 };
	json_t *j;

	mi_query_search(q, &o, &out);
	j = json_loads(mi_buf_str(&out.json), 0, NULL);
	mi_out_release(&out);
	return j;
}

TEST(semantic_evidence_weighs_against_bm25f)
{
	mi_query *q = open_index("main");
	const mi_search_evidence ev[] = {
		{ "tools/cache.py", "LRUCache.get", 11, 4.0f },
		{ "tools/cache.py", "tokenize_line", 0, 2.0f },
		{ "no/such/file.c", "x", 3, 9.0f },     /* ignored */
	};
	json_t *j;

	if (!q) {
		CHECK(!"the test index builds and opens");
		return;
	}
	/* Without evidence the weight changes nothing. */
	j = run_ev(q, "run-length encoding", NULL, 0, 0.9f);
	CHECK_STR(res_str(j, 0, "breadcrumb"), "shrink_blob");
	json_decref(j);
	/* Weight 0: BM25F alone, the evidence's chunks join at the end. */
	j = run_ev(q, "run-length encoding", ev, 3, 0);
	CHECK_STR(res_str(j, 0, "breadcrumb"), "shrink_blob");
	json_decref(j);
	/* The default (0.7): the best evidence outweighs the best BM25F hit;
	 * a chunk only the evidence names is a hit. */
	j = run_ev(q, "run-length encoding", ev, 3, -1);
	CHECK_STR(res_str(j, 0, "breadcrumb"), "LRUCache > get");
	CHECK_INT(res_int(j, 0, "start_line"), 11);
	CHECK(rank_of(j, "tokenize_line") > 0);
	CHECK(rank_of(j, "shrink_blob") > 0);
	json_decref(j);
	/* Weight 0.2: BM25F leads again. */
	j = run_ev(q, "run-length encoding", ev, 3, 0.2f);
	CHECK_STR(res_str(j, 0, "breadcrumb"), "shrink_blob");
	json_decref(j);
	mi_query_close(q);
}

TEST(limit_and_text_formats)
{
	mi_query *q = open_index("main");
	mi_search_opts o = { .query = "settings", .limit = 2 };
	mi_out out = { 0 };
	mi_buf text = { 0 };
	json_t *j;

	if (!q) {
		CHECK(!"the test index builds and opens");
		return;
	}
	CHECK_INT(mi_query_search(q, &o, &out), 0);
	j = json_loads(mi_buf_str(&out.json), 0, NULL);
	CHECK_INT(nres(j), 2);
	/* toon: a header row of field names, then one row per hit. */
	CHECK(!strncmp(mi_buf_str(&out.text), "results[2]{path,start_line,end_line,"
		       "relevance_percent,kind,", 40));
	/* ... and, the page being full, where the next one starts */
	CHECK_INT(mi_count_lines(out.text.buf, out.text.len), 4);
	CHECK_CONTAINS(mi_buf_str(&out.text), "V* more results may follow: offset 2\n");
	CHECK_INT(json_integer_value(json_object_get(j, "next_offset")), 2);
	json_decref(j);
	mi_out_release(&out);
	j = run(q, false, "start http server", NULL, NULL, false, "human", NULL, &text);
	CHECK_CONTAINS(mi_buf_str(&text), "server/http.go:10-15  function  StartHTTPServer  (100%)");
	CHECK_CONTAINS(mi_buf_str(&text), "  | func StartHTTPServer(addr string) error {");
	json_decref(j);
	mi_buf_release(&text);
	mi_query_close(q);
}

TEST(search_docs_sections_and_doc_comments)
{
	mi_query *q = open_index("main");
	json_t *j;

	if (!q) {
		CHECK(!"the test index builds and opens");
		return;
	}
	j = run(q, true, "installation", NULL, NULL, false, "json", NULL, NULL);
	CHECK_STR(res_str(j, 0, "path"), "docs/guide.md");
	CHECK_CONTAINS(res_str(j, 0, "heading"), "Installation");
	CHECK_INT(res_int(j, 0, "start_line"), 5);
	CHECK_CONTAINS(res_str(j, 0, "content"), "Download the release archive");
	json_decref(j);
	/* Doc comments count; code bodies do not. */
	j = run(q, true, "serves requests until it fails", NULL, NULL, false, "json",
		NULL, NULL);
	CHECK_STR(res_str(j, 0, "path"), "server/http.go");
	CHECK_CONTAINS(res_str(j, 0, "heading"), "StartHTTPServer");
	CHECK_CONTAINS(res_str(j, 0, "content"), "listens on addr");
	json_decref(j);
	/* A private symbol's doc needs all=true, as in search_code. */
	j = run(q, true, "liveness probes", NULL, NULL, false, "json", NULL, NULL);
	CHECK(nres(j) == 0 || strcmp(res_str(j, 0, "path"), "server/http.go"));
	json_decref(j);
	j = run(q, true, "liveness probes", NULL, NULL, true, "json", NULL, NULL);
	CHECK_STR(res_str(j, 0, "path"), "server/http.go");
	CHECK_CONTAINS(res_str(j, 0, "content"), "answers liveness probes");
	json_decref(j);
	j = run(q, true, "mux", NULL, NULL, true, "json", NULL, NULL);
	CHECK_INT(nres(j), 0);
	json_decref(j);
	j = run(q, true, "settings file", "docs/*.md", NULL, false, "json", NULL, NULL);
	CHECK(nres(j) >= 1);
	for (size_t i = 0; i < nres(j); i++)
		CHECK_STR(res_str(j, i, "path"), "docs/guide.md");
	json_decref(j);
	mi_query_close(q);
}

TEST(bad_input_gets_a_clear_answer)
{
	mi_query *q = open_index("main");
	mi_buf text = { 0 };
	char *big;
	json_t *j;
	int rc;

	if (!q) {
		CHECK(!"the test index builds and opens");
		return;
	}
	j = run(q, false, "", NULL, NULL, false, NULL, &rc, &text);
	CHECK(rc != 0);
	CHECK_CONTAINS(mi_buf_str(&text), "query is empty");
	json_decref(j);
	mi_buf_reset(&text);
	j = run(q, false, "the of and is", NULL, NULL, false, NULL, &rc, &text);
	CHECK(rc != 0);
	CHECK_CONTAINS(mi_buf_str(&text), "no searchable words");
	json_decref(j);
	mi_buf_reset(&text);
	/* one word longer than a term: the message says why it is dropped */
	j = run(q, false, "supercalifragilisticexpialidocioussupercalifragilistic",
		NULL, NULL, false, NULL, &rc, &text);
	CHECK(rc != 0);
	CHECK_CONTAINS(mi_buf_str(&text), "words over 48 bytes");
	json_decref(j);
	mi_buf_reset(&text);
	j = run(q, false, "parse", "src/[abc", NULL, false, NULL, &rc, &text);
	CHECK(rc != 0);
	CHECK_CONTAINS(mi_buf_str(&text), "without a closing ']'");
	json_decref(j);
	mi_buf_reset(&text);
	j = run(q, false, "x", NULL, NULL, false, "yaml", &rc, &text);
	CHECK(rc != 0);
	CHECK_CONTAINS(mi_buf_str(&text), "toon, json, human");
	json_decref(j);
	mi_buf_reset(&text);
	j = run(q, false, "bad \xff\xfe utf8", NULL, NULL, false, NULL, &rc, &text);
	CHECK(rc != 0);
	CHECK_CONTAINS(mi_buf_str(&text), "UTF-8");
	json_decref(j);
	/* Regex-looking input is searched as its words. */
	j = run(q, false, "parse.*config(|)+", NULL, NULL, false, "json", &rc, NULL);
	CHECK_INT(rc, 0);
	CHECK(rank_of(j, "parse_config") >= 0);
	json_decref(j);
	/* Non-ASCII words: a valid answer, here empty. */
	j = run(q, false, "größe straße", NULL, NULL, false, "json", &rc, NULL);
	CHECK_INT(rc, 0);
	CHECK_INT(nres(j), 0);
	json_decref(j);
	/* A 10,000-character query: terms are capped, the answer still comes. */
	big = mi_xmalloc(10001);
	for (size_t i = 0; i < 10000; i++)
		big[i] = "parse config word "[i % 18];
	big[10000] = 0;
	for (size_t i = 0; i < 10000; i += 97)
		big[i] = (char)('a' + i % 26);
	mi_buf_reset(&text);
	j = run(q, false, big, NULL, NULL, false, NULL, &rc, &text);
	CHECK_INT(rc, 0);
	CHECK_CONTAINS(mi_buf_str(&text), "only the first 4096 bytes");
	json_decref(j);
	free(big);
	mi_buf_release(&text);
	mi_query_close(q);
}

/* A one-identifier query answers with the chunks holding the identifier,
 * in either spelling, not with chunks that only share a part. */
TEST(identifier_query_requires_the_identifier)
{
	mi_query *q = open_index("main");
	json_t *j;

	if (!q) {
		CHECK(!"the test index builds and opens");
		return;
	}
	j = run(q, false, "parse_config", NULL, NULL, false, "json", NULL, NULL);
	CHECK(rank_of(j, "parse_config") >= 0 && rank_of(j, "parse_config") < 3);
	CHECK(rank_of(j, "parseConfig") >= 0 && rank_of(j, "parseConfig") < 3);
	CHECK_INT(rank_of(j, "config_release"), -1);
	CHECK_INT(rank_of(j, "renderPanel"), -1);
	CHECK_INT(rank_of(j, "config_set_line"), -1);
	json_decref(j);
	/* Not in the index: its parts are searched instead. */
	j = run(q, false, "parse_configs", NULL, NULL, false, "json", NULL, NULL);
	CHECK(nres(j) >= 2);
	json_decref(j);
	/* Two words are not an identifier: parts count, the join ranks first. */
	j = run(q, false, "config release", NULL, NULL, false, "json", NULL, NULL);
	CHECK_INT(rank_of(j, "config_release"), 0);
	CHECK(nres(j) >= 2);
	json_decref(j);
	mi_query_close(q);
}

static const char *names_c =
	"#define pr_vlog(fmt, ...) vlog(\"[x] \" fmt)\n"
	"static void vlog(const char *fmt, ...)\n"
	"{\n"
	"\tvprintf(fmt, 0);\n"
	"\tputs(\"done\");\n"
	"}\n"
	"\n"
	"int con_config(struct con *c, struct config *cfg)\n"
	"{\n"
	"\treturn c->config = cfg->config;\n"
	"}\n"
	"\n"
	"struct config {\n"
	"\tint config;\n"
	"};\n"
	"\n"
	"#define SYSHUBMMREGIND_DMA_CLK0_SW2_CL0_CNTL__QOS_STATIC_OVERRIDE_VALUE__SHIFT 0x0\n"
	"#define SYSHUBMMREGIND_DMA_CLK0_SW2_CL0_CNTL__QOS_STATIC_OVERRIDE_VALUE_MASK 0x1\n"
	"\n"
	"int dma_clk0_sw2_cl0_cntl_qos(int static_override, int value, int shift)\n"
	"{\n"
	"\treturn static_override + value + shift;\n"
	"}\n";

static const char *gpu_yaml =
	"title: GPU\n"
	"properties:\n"
	"  compatible:\n"
	"    const: acme,gpu\n"
	"  power-domains:\n"
	"    maxItems: 1\n"
	"    description: the power domain the gpu sits in\n"
	"  clocks:\n"
	"    maxItems: 2\n";

static const char *power_c =
	"/* Counts the power domains of the gpu. */\n"
	"int gpu_power_domains_count(struct gpu *gpu)\n"
	"{\n"
	"\treturn gpu->power_domains + gpu->power_domains_extra;\n"
	"}\n";

/* Where breadcrumb j's hit i is exactly name, its rank; else -1. */
static int rank_exact(json_t *j, const char *name)
{
	for (size_t i = 0; i < nres(j); i++)
		if (!strcmp(res_str(j, i, "breadcrumb"), name))
			return (int)i;
	return -1;
}

/* A one-identifier query, power-domains too, ranks what is named so first
 * (vlog before the file's pr_vlog, struct config before con_config: the query's abbreviations, "con" of
 * "config", do not count); an identifier longer than a term (MI_TOK_MAX)
 * requires its rarest part, so only the chunks that can hold it answer. */
/* Builds files fs[0..n) into tmp_root/name and opens the index: NULL (and
 * a failed check) when it does not build or open. */
static mi_query *built(const char *name, const tfile *fs, size_t n)
{
	char dir[256];
	size_t nchunks = 0;
	mi_query *q = NULL;
	mi_buf err = { 0 };

	snprintf(dir, sizeof(dir), "%s/%s", tmp_root, name);
	CHECK_INT(build(dir, fs, n, NULL, 0, &nchunks), 0);
	if (mi_query_open(dir, &q, &err)) {
		CHECK(!"index opens");
		q = NULL;
	}
	mi_buf_release(&err);
	return q;
}

TEST(identifier_query_ranks_its_own_name_first)
{
	tfile f = { 0, "names.c", names_c };
	tfile g[2] = { { 0, "gpu.yaml", gpu_yaml }, { 1, "power.c", power_c } };
	mi_query *q = built("names", &f, 1);
	json_t *j;
	static const char *const lng =
		"SYSHUBMMREGIND_DMA_CLK0_SW2_CL0_CNTL__QOS_STATIC_OVERRIDE_VALUE__SHIFT";

	if (!q)
		return;
	/* (the macros are the file's chunk, names.c) */
	j = run(q, false, "vlog", NULL, NULL, true, "json", NULL, NULL);
	CHECK_INT(rank_exact(j, "vlog"), 0);
	CHECK(rank_exact(j, "names.c") > 0);
	json_decref(j);
	j = run(q, false, "config", NULL, NULL, true, "json", NULL, NULL);
	CHECK_INT(rank_exact(j, "config"), 0);
	CHECK(rank_exact(j, "con_config") > 0);
	json_decref(j);
	CHECK(strlen(lng) - 8 > MI_TOK_MAX); /* its whole form is no term */
	j = run(q, false, lng, NULL, NULL, true, "json", NULL, NULL);
	CHECK_INT(rank_exact(j, "names.c"), 0);
	CHECK_INT(rank_exact(j, "dma_clk0_sw2_cl0_cntl_qos"), -1);
	CHECK_INT(nres(j), 1);
	json_decref(j);
	mi_query_close(q);
	/* A name written with hyphens is one too: the devicetree binding's
	 * property before the C function whose name and body hold its words. */
	if (!(q = built("names-yaml", g, 2)))
		return;
	j = run(q, false, "power-domains", NULL, NULL, true, "json", NULL, NULL);
	CHECK_INT(rank_exact(j, "properties > power-domains"), 0);
	CHECK(rank_exact(j, "gpu_power_domains_count") > 0);
	json_decref(j);
	/* Two words are prose: the function they describe comes first. */
	j = run(q, false, "power domains", NULL, NULL, true, "json", NULL, NULL);
	CHECK_INT(rank_exact(j, "gpu_power_domains_count"), 0);
	json_decref(j);
	mi_query_close(q);
}

static const char *stream_py =
	"class Sink:\n"
	"    def write(self, data):\n"
	"        # the data goes to the stream\n"
	"        self.buf.append(data)\n"
	"\n"
	"    def writelines(self, seq):\n"
	"        for s in seq:\n"
	"            self.out(s)\n"
	"\n"
	"    def iterkeys(self):\n"
	"        return iter(self.keys)\n"
	"\n"
	"    def flush(self):\n"
	"        self.write(b'')\n"
	"\n"
	"    def close(self):\n"
	"        self.write(None)\n"
	"\n"
	"    def write_header(self):\n"
	"        self.write(self.header)\n";

/* Query words written apart meet a name written as one word. */
TEST(joined_query_words_meet_one_word_names)
{
	char dir[256];
	tfile f = { 0, "stream.py", stream_py };
	size_t n = 0;
	mi_query *q = NULL;
	mi_buf err = { 0 };
	json_t *j;

	snprintf(dir, sizeof(dir), "%s/joined", tmp_root);
	CHECK_INT(build(dir, &f, 1, NULL, 0, &n), 0);
	if (mi_query_open(dir, &q, &err)) {
		CHECK(!"index opens");
		mi_buf_release(&err);
		return;
	}
	j = run(q, false, "Write a list of lines to the stream", NULL, NULL, true,
		"json", NULL, NULL);
	CHECK_INT(rank_of(j, "writelines"), 0);
	CHECK(rank_of(j, "write") > 0);
	json_decref(j);
	j = run(q, false, "Return an iterator over keys", NULL, NULL, true, "json",
		NULL, NULL);
	CHECK_INT(rank_of(j, "iterkeys"), 0);
	json_decref(j);
	mi_query_close(q);
	mi_buf_release(&err);
}

static const char *completion_c =
	"struct completion { unsigned int done; };\n"
	"void complete_all(struct completion *x)\n{\n\tx->done = ~0u;\n}\n"
	"void reinit_completion(struct completion *x)\n{\n\tx->done = 0;\n}\n"
	"int completion_done(struct completion *x)\n{\n\treturn x->done != 0;\n}\n";

/* The rank of name in the answer to query, ranked with rp. */
static int rank_with(mi_query *q, const char *query, const mi_rank_params *rp,
		     const char *name)
{
	mi_search_opts o = { .query = query, .format = "json", .all = true, .rank = rp };
	mi_out out = { 0 };
	json_t *j;
	int r;

	mi_query_search(q, &o, &out);
	j = json_loads(mi_buf_str(&out.json), 0, NULL);
	r = rank_of(j, name);
	json_decref(j);
	mi_out_release(&out);
	return r;
}

static const char *pool_c =
	"int sweep(int a)\n{\n\treturn slot(a) + slot(a) + slot(a) + slot(a) +\n"
	"\t       slot(a) + slot(a) + slot(a) + slot(a) +\n"
	"\t       slot(a) + slot(a) + slot(a) + slot(a) +\n"
	"\t       slot(a) + slot(a) + slot(a) + slot(a);\n}\n"
	"int attach(struct slot *s, int v)\n{\n\ts->v = v;\n\treturn 0;\n}\n"
	"int grow(struct pool *p, int by)\n{\n\tp->size += by;\n\treturn p->size;\n}\n"
	"void drain(struct pool *p)\n{\n\tp->size = 0;\n\tp->used = 0;\n}\n";

TEST(body_mentions_count_up_to_a_cap)
{
	tfile f = { 0, "pool.c", pool_c };
	mi_query *q = built("pool", &f, 1);
	mi_rank_params none = mi_rank_defaults;

	if (!q)
		return;
	/* Sixteen calls of slot in sweep's body weigh no more than three
	 * mentions in an average body: the function whose signature takes a
	 * slot comes first.  Uncapped, the body's count wins. */
	CHECK_INT(rank_with(q, "slot", NULL, "attach"), 0);
	CHECK_INT(rank_with(q, "slot", NULL, "sweep"), 1);
	memset(none.cap, 0, sizeof(none.cap));
	CHECK_INT(rank_with(q, "slot", &none, "sweep"), 0);
	mi_query_close(q);
}

TEST(spelled_out_words_meet_abbreviated_names)
{
	char dir[256];
	tfile f = { 0, "completion.c", completion_c };
	size_t n = 0;
	mi_query *q = NULL;
	mi_buf err = { 0 };
	mi_rank_params none = mi_rank_defaults;

	snprintf(dir, sizeof(dir), "%s/abbrev", tmp_root);
	CHECK_INT(build(dir, &f, 1, NULL, 0, &n), 0);
	if (mi_query_open(dir, &q, &err)) {
		CHECK(!"index opens");
		mi_buf_release(&err);
		return;
	}
	/* "reinitialize" is reinit: the function that says it comes first;
	 * without abbreviations a sibling that only shares "completion" does. */
	CHECK_INT(rank_with(q, "reinitialize a completion structure", NULL,
			    "reinit_completion"), 0);
	none.abbr = 0;
	CHECK(rank_with(q, "reinitialize a completion structure", &none,
			"reinit_completion") != 0);
	mi_query_close(q);
	mi_buf_release(&err);
}

/* ---- incremental statistics ------------------------------------------------ */

/* Everything the scores depend on, as text: meta counts, df per term,
 * posting bytes. */
/* File fid's chunk lengths (MI_DB_POST \0 be32(fid / MI_LENS_GROUP)): per chunk its flags and
 * field lengths, malloc'd into *out; the number of chunks, -1 when the
 * file has none stored or they do not decode. */
static int file_lens(mi_txn *t, uint32_t fid, uint32_t (**out)[1 + MI_SF__COUNT])
{
	uint8_t k[5] = { 0 };
	const void *v;
	size_t vl;
	int n;

	*out = NULL;
	mi_be32(k + 1, fid / MI_LENS_GROUP);
	if (mi_get(t, MI_DB_POST, k, 5, &v, &vl))
		return -1;
	CHECK(mi_lens_file(v, vl, fid, &v, &vl));
	if (!vl)
		return -1;
	n = (int)mi_lens_count(v, vl);
	CHECK(n >= 0);
	if (n <= 0)
		return -1;
	*out = malloc((size_t)n * sizeof(**out));
	for (int i = 0; i < n; i++)
		CHECK(mi_lens_get(v, vl, (uint32_t)i, (*out)[i]));
	uint32_t past[MI_LENS_W];
	CHECK(!mi_lens_get(v, vl, (uint32_t)n, past)); /* no chunk past the last */
	return n;
}

/* A postings block's header bounds every tfn of its entries g of file
 * fid (computed with the averages the index's bounds were made with, and
 * the file's chunk lengths), whatever updates, deletions and splits the
 * block went through; every entry's chunk has its lengths. */
static void check_block_bounds(mi_txn *t, const uint8_t *hdr, uint32_t fid,
			       const uint8_t *g, size_t gl)
{
	static const char *const bk[MI_SF__COUNT] = {
		"search.bavg.name", "search.bavg.path", "search.bavg.sig",
		"search.bavg.doc", "search.bavg.body",
	};
	float bavg[MI_SF__COUNT];
	const uint8_t *e = g + gl;
	uint32_t (*lens)[1 + MI_SF__COUNT];
	int nl = file_lens(t, fid, &lens);
	uint64_t n = 0;
	bool first = true;

	CHECK(nl > 0);
	for (int f = 0; f < MI_SF__COUNT; f++) {
		int64_t x = 1000;
		mi_meta_get_int(t, bk[f], &x);
		bavg[f] = (float)x / 1000;
	}
	while (g < e && nl > 0) {
		uint64_t x;
		uint32_t tf[MI_SF__COUNT] = { 0 };
		unsigned fl;
		if (!mi_varint_get(&g, e, &x)) {
			CHECK(!"entries decode");
			break;
		}
		n = first ? x >> MI_POST_NSHIFT : n + (x >> MI_POST_NSHIFT);
		first = false;
		fl = (unsigned)(x & MI_POST_FIELDS);
		CHECK(fl != 0);
		bool ones = x & MI_POST_ONES;
		for (int f = 0; f < MI_SF__COUNT; f++)
			if (fl & (1u << f)) {
				if (ones)
					tf[f] = 1;
				else if (mi_varint_get(&g, e, &x))
					tf[f] = (uint32_t)x;
				CHECK(tf[f] > 0);
			}
		if (n >= (uint64_t)nl) {
			CHECK(!"every posting's chunk has its lengths");
			break;
		}
		fl |= lens[n][0];
		for (int f = 0; f < MI_SF__COUNT; f++)
			if (tf[f])
				CHECK(lens[n][1 + f] >= tf[f]);
		CHECK(mi_bm25f_tfn(MI_SM_CODE, fl, tf, lens[n] + 1, bavg) <= mi_post_dq(hdr[0]));
		CHECK(mi_bm25f_tfn(MI_SM_DOCS_MD, fl, tf, lens[n] + 1, bavg) <= mi_post_dq(hdr[1]));
		/* A chunk the term does not name: the lower bounds hold too. */
		if (!(fl & (1u << MI_SF_NAME))) {
			CHECK(mi_bm25f_tfn(MI_SM_CODE, fl, tf, lens[n] + 1, bavg) <=
			      mi_post_dq(hdr[2]));
			CHECK(mi_bm25f_tfn(MI_SM_DOCS_MD, fl, tf, lens[n] + 1, bavg) <=
			      mi_post_dq(hdr[3]));
		}
	}
	free(lens);
}

static void dump_stats(const char *dir, mi_buf *out)
{
	static const char *const keys[] = {
		"search.chunks", "search.len.name", "search.len.path",
		"search.len.sig", "search.len.doc", "search.len.body",
	};
	mi_store *st;
	mi_txn *t;
	mi_cursor *c;
	const void *k, *v;
	size_t kl, vl;
	int64_t x;

	if (mi_store_open(dir, MI_STORE_RDONLY, &st))
		return;
	mi_txn_begin(st, false, &t);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		x = -1;
		mi_meta_get_int(t, keys[i], &x);
		mi_buf_addf(out, "%s=%lld\n", keys[i], (long long)x);
	}
	mi_cursor_open(t, MI_DB_TERMS, &c);
	for (int rc = mi_cursor_seek(c, NULL, 0, &k, &kl, &v, &vl); !rc;
	     rc = mi_cursor_next(c, &k, &kl, &v, &vl)) {
		mi_term_stats ts = { 0 };
		mi_term_stats_decode(v, vl, &ts);
		mi_buf_addf(out, "df %.*s %u\n", (int)kl, (const char *)k, ts.df);
	}
	mi_cursor_close(c);
	mi_cursor_open(t, MI_DB_POST, &c);
	for (int rc = mi_cursor_seek(c, NULL, 0, &k, &kl, &v, &vl); !rc;
	     rc = mi_cursor_next(c, &k, &kl, &v, &vl)) {
		if (kl == 5 && !*(const char *)k)
			continue; /* a file's chunk lengths, dumped below */
		/* per file, whatever blocks an update left them in */
		CHECK(vl > MI_POST_HDR);
		mi_post_blk b = { .p = (const uint8_t *)v + MI_POST_HDR,
				  .e = (const uint8_t *)v + vl };
		uint32_t fid;
		const uint8_t *g;
		size_t gl;
		while (mi_post_next(&b, &fid, &g, &gl)) {
			mi_buf_addf(out, "post %.*s %u:", (int)(kl - 5), (const char *)k, fid);
			for (size_t i = 0; i < gl; i++)
				mi_buf_addf(out, "%02x", g[i]);
			mi_buf_addc(out, '\n');
			check_block_bounds(t, v, fid, g, gl);
		}
		CHECK(!b.bad && fid == mi_rd32((const uint8_t *)k + kl - 4));
	}
	mi_cursor_close(c);
	/* Each file's chunk lengths and flags, one per chunk it has. */
	mi_cursor_open(t, MI_DB_FILEIDS, &c);
	for (int rc = mi_cursor_seek(c, NULL, 0, &k, &kl, &v, &vl); !rc;
	     rc = mi_cursor_next(c, &k, &kl, &v, &vl)) {
		uint32_t fid = mi_rd32(k), n;
		uint32_t (*lens)[1 + MI_SF__COUNT];
		int nl, nch = 0;
		mi_syms ci;
		const void *cv;
		size_t cvl;
		if (!mi_chunks_open(t, fid, 0, &ci))
			while (!mi_syms_next(&ci, &cv, &cvl, &n))
				nch++;
		mi_syms_close(&ci);
		if (!nch)
			continue;
		nl = file_lens(t, fid, &lens);
		CHECK_INT(nl, nch);
		mi_buf_addf(out, "lens %u:", fid);
		for (int i = 0; i < nl; i++)
			mi_buf_addf(out, " %x/%u,%u,%u,%u,%u", lens[i][0], lens[i][1], lens[i][2],
				    lens[i][3], lens[i][4], lens[i][5]);
		mi_buf_addc(out, '\n');
		free(lens);
	}
	mi_cursor_close(c);
	mi_txn_abort(t);
	mi_store_close(st);
}

/* true when dir's index holds chunk lengths for file fid. */
static bool has_lens(const char *dir, uint32_t fid)
{
	mi_store *st;
	mi_txn *t;
	uint32_t (*lens)[1 + MI_SF__COUNT] = NULL;
	int n = -1;

	if (mi_store_open(dir, MI_STORE_RDONLY, &st))
		return false;
	if (!mi_txn_begin(st, false, &t)) {
		n = file_lens(t, fid, &lens);
		mi_txn_abort(t);
	}
	free(lens);
	mi_store_close(st);
	return n > 0;
}

static const char *edited_c =
	"/* config.c - reading the settings file, renamed. */\n"
	"/** Loads the settings from a TOML document. */\n"
	"int load_settings(const char *path)\n{\n\treturn toml_read(path);\n}\n";
static const char *added_rs =
	"/// Checks a license key against the vendor list.\n"
	"pub fn verify_license(key: &str) -> bool {\n    key.len() == 16\n}\n";

TEST(incremental_statistics_match_a_fresh_build)
{
	char inc[256], fresh[256];
	tfile fs[NFILES + 1], ch[2];
	uint32_t del[1];
	size_t n1 = 0, n2 = 0, nf = 0, nfresh = 0;
	mi_buf a = { 0 }, b = { 0 };
	mi_query *q;
	mi_buf err = { 0 };
	json_t *j;

	snprintf(inc, sizeof(inc), "%s/inc", tmp_root);
	snprintf(fresh, sizeof(fresh), "%s/fresh", tmp_root);
	all_files(fs);
	CHECK_INT(build(inc, fs, NFILES, NULL, 0, &n1), 0);
	CHECK(n1 > 10);
	CHECK(has_lens(inc, 5));
	/* Edit src/config.c, delete tools/cache.py, add lib/license.rs. */
	ch[0] = (tfile){ 3, "src/config.c", edited_c };
	ch[1] = (tfile){ (uint32_t)NFILES, "lib/license.rs", added_rs };
	del[0] = 5;
	CHECK_INT(build(inc, ch, 2, del, 1, &n2), 0);
	CHECK(n2 < n1);
	/* The deleted file's lengths go with it; the new file has its own. */
	CHECK(!has_lens(inc, 5));
	CHECK(has_lens(inc, (uint32_t)NFILES));
	/* The same final tree, from scratch. */
	for (size_t i = 0; i < NFILES; i++) {
		if (i == 5)
			continue;
		fs[nf++] = i == 3 ? ch[0] : (tfile){ (uint32_t)i, files[i], NULL };
	}
	fs[nf++] = ch[1];
	CHECK_INT(build(fresh, fs, nf, NULL, 0, &nfresh), 0);
	CHECK_INT(n2, nfresh);
	dump_stats(inc, &a);
	dump_stats(fresh, &b);
	CHECK(a.len > 100);
	CHECK_STR(mi_buf_str(&a), mi_buf_str(&b));
	/* Terms of the deleted file are gone, new ones are found. */
	CHECK(!strstr(mi_buf_str(&a), "df lrucach"));
	CHECK_CONTAINS(mi_buf_str(&a), "df licens 1");

	/* A rebuild that changes nothing keeps everything. */
	CHECK_INT(build(inc, NULL, 0, NULL, 0, &n2), 0);
	CHECK_INT(n2, nfresh);
	mi_buf_reset(&b);
	dump_stats(inc, &b);
	CHECK_STR(mi_buf_str(&a), mi_buf_str(&b));

	/* Search sees the edit. */
	if (!mi_query_open(inc, &q, &err)) {
		j = run(q, false, "load settings toml", NULL, NULL, false, "json", NULL, NULL);
		CHECK_STR(res_str(j, 0, "breadcrumb"), "load_settings");
		/* Signature and doc comment come from the edited symbol. */
		CHECK_STR(res_str(j, 0, "signature"), "int load_settings(const char *path)");
		CHECK_CONTAINS(res_str(j, 0, "doc_comment"), "Loads the settings from a TOML");
		json_decref(j);
		/* Hit for hit what the fresh build answers. */
		{
			mi_query *qf;
			const char *qs[] = { "load settings toml", "verify license key",
					     "parse config", "settings" };
			CHECK_INT(mi_query_open(fresh, &qf, &err), 0);
			for (size_t i = 0; qf && i < sizeof(qs) / sizeof(*qs); i++) {
				json_t *ji = run(q, false, qs[i], NULL, NULL, true, "json", NULL, NULL);
				json_t *jf = run(qf, false, qs[i], NULL, NULL, true, "json", NULL, NULL);
				char *si = json_dumps(ji, JSON_SORT_KEYS), *sf = json_dumps(jf, JSON_SORT_KEYS);
				CHECK(si && strlen(si) > 40);
				CHECK_STR(si, sf);
				free(si);
				free(sf);
				json_decref(ji);
				json_decref(jf);
			}
			if (qf)
				mi_query_close(qf);
		}
		j = run(q, false, "LRUCache", NULL, NULL, false, "json", NULL, NULL);
		CHECK_INT(nres(j), 0);
		json_decref(j);
		j = run(q, false, "verify license key", NULL, NULL, false, "json", NULL, NULL);
		CHECK_STR(res_str(j, 0, "path"), "lib/license.rs");
		json_decref(j);
		mi_query_close(q);
	} else {
		CHECK(!"index opens");
	}
	mi_buf_release(&err);
	mi_buf_release(&a);
	mi_buf_release(&b);
}

/* Pruning must not change the answer: compare the top hits of a small limit
 * with the head of a large one. */
/* Meta "search.wsig" of the index in dir (-1 when absent). */
static int64_t stored_wsig(const char *dir)
{
	mi_store *st;
	mi_txn *t;
	int64_t ws = -1;

	if (mi_store_open(dir, MI_STORE_RDONLY, &st))
		return -1;
	if (!mi_txn_begin(st, false, &t)) {
		mi_meta_get_int(t, "search.wsig", &ws);
		mi_txn_abort(t);
	}
	mi_store_close(st);
	return ws;
}

/* Fresh and incremental builds both record the weights their bounds were
 * made with, so a later build under other weights knows to redo them. */
TEST(index_records_its_ranking_weights)
{
	char idx[256], dir[256];
	mi_build_opts bo = { .repo = "testdata/search", .out_dir = idx, .jobs = 1 };
	mi_build_stats bs;
	mi_buf err = { 0 };
	tfile f = { 0, "completion.c", completion_c };
	size_t n = 0;

	CHECK(mi_bm25f_sig() > 0);
	snprintf(idx, sizeof(idx), "%s/wsig-fresh", tmp_root);
	CHECK_INT(mi_build(&bo, &bs, &err), 0);
	CHECK(stored_wsig(idx) == mi_bm25f_sig());
	{
		/* A fresh build's postings: each chunk has its lengths, each
		 * block's bounds hold (dump_stats checks both). */
		mi_buf d = { 0 };
		dump_stats(idx, &d);
		CHECK_CONTAINS(mi_buf_str(&d), "lens ");
		CHECK_CONTAINS(mi_buf_str(&d), "post ");
		mi_buf_release(&d);
	}
	snprintf(dir, sizeof(dir), "%s/wsig-incr", tmp_root);
	CHECK_INT(build(dir, &f, 1, NULL, 0, &n), 0);
	CHECK(stored_wsig(dir) == mi_bm25f_sig());
	mi_buf_release(&err);
}

/* Files i = 0..n-1 of the postings block test: f%03d.c, each naming the
 * shared terms once, or `big` times in as many functions. */
static void block_files(tfile *fs, char **srcs, char **paths, size_t from, size_t n, int big)
{
	for (size_t i = from; i < from + n; i++) {
		mi_buf b = { 0 }, p = { 0 };
		for (int j = 0; j < (big ? big : 1); j++)
			mi_buf_addf(&b, "/* Steps the gamma counter. */\n"
				    "int alpha_%zu_%d(int beta) { return beta + %d; }\n", i, j, j);
		mi_buf_addf(&p, "f%03zu.c", i);
		srcs[i] = mi_buf_detach(&b);
		paths[i] = mi_buf_detach(&p);
		fs[i - from] = (tfile){ (uint32_t)i + 1, paths[i], srcs[i] };
	}
}

TEST(postings_blocks_updated_in_place_match_a_fresh_build)
{
	enum { N = 300 };
	char inc[256], fresh[256];
	static tfile fs[N], ch[N];
	static char *srcs[N], *big[N], *paths[N], *bpaths[N];
	uint32_t del[N];
	size_t n1 = 0, n2 = 0, nf = 0, nd = 0, nfresh = 0;
	mi_buf a = { 0 }, b = { 0 };

	snprintf(inc, sizeof(inc), "%s/blocks-inc", tmp_root);
	snprintf(fresh, sizeof(fresh), "%s/blocks-fresh", tmp_root);
	/* 300 files: every shared term's postings fill several blocks. */
	block_files(fs, srcs, paths, 0, N, 0);
	CHECK_INT(build(inc, fs, N, NULL, 0, &n1), 0);
	/* Files 100..139 grow 30 functions each: the blocks holding them
	 * outgrow twice the block size and split; files 140..149 are
	 * rewritten with none of their terms (each posting of theirs goes,
	 * new terms come); files 0..49 and 250..299 go: blocks shrink,
	 * empty ones go, the last files move. */
	block_files(ch, big, bpaths, 100, 40, 30);
	static char *other[10];
	for (size_t i = 0; i < 10; i++) {
		mi_buf ob = { 0 };
		mi_buf_addf(&ob, "int delta_%zu(int epsilon) { return epsilon; }\n", i);
		other[i] = mi_buf_detach(&ob);
		ch[40 + i] = (tfile){ (uint32_t)(141 + i), paths[140 + i], other[i] };
	}
	/* Files 200..219 are put again as they were: their postings come
	 * back the same, and the blocks and term statistics holding them are
	 * left as they are rather than written again. */
	for (size_t i = 0; i < 20; i++)
		ch[50 + i] = fs[200 + i];
	for (uint32_t i = 0; i < 50; i++)
		del[nd++] = i + 1;
	for (uint32_t i = 250; i < N; i++)
		del[nd++] = i + 1;
	CHECK_INT(build(inc, ch, 70, del, nd, &n2), 0);
	for (size_t i = 50; i < 250; i++)
		fs[nf++] = i >= 100 && i < 150 ? ch[i - 100] : fs[i];
	CHECK_INT(build(fresh, fs, nf, NULL, 0, &nfresh), 0);
	CHECK_INT(n2, nfresh);
	dump_stats(inc, &a);
	dump_stats(fresh, &b);
	CHECK_CONTAINS(mi_buf_str(&a), "post beta 139:");
	CHECK_CONTAINS(mi_buf_str(&a), "lens 101:");
	CHECK(!has_lens(inc, 1) && !has_lens(inc, 50) && !has_lens(inc, 300));
	CHECK(has_lens(inc, 51) && has_lens(inc, 250));
	CHECK(!strstr(mi_buf_str(&a), "post beta 300:"));
	CHECK(!strstr(mi_buf_str(&a), "post beta 141:"));
	CHECK_CONTAINS(mi_buf_str(&a), "post epsilon 141:");
	CHECK_STR(mi_buf_str(&a), mi_buf_str(&b));
	for (size_t i = 0; i < 10; i++)
		free(other[i]);
	for (size_t i = 0; i < N; i++) {
		free(srcs[i]);
		free(big[i]);
		free(paths[i]);
		free(bpaths[i]);
	}
	mi_buf_release(&a);
	mi_buf_release(&b);
}

/* The top k of a query with every pruning (WAND bounds, the seed, the
 * blocks' own bounds) are the top k of scoring every chunk that holds a
 * query term: same chunks, same order, same scores.  Returns how many
 * results the pruned answer had. */
static size_t same_as_exhaustive(mi_query *q, bool docs, const char *query, size_t k)
{
	mi_search_opts o = { .query = query, .limit = k, .format = "json" };
	mi_out a = { 0 }, b = { 0 };
	json_t *ja, *jb;
	size_t n;

	mi_query_set_scores(q, true);
	mi_query_set_exhaustive(q, false);
	CHECK_INT(docs ? mi_query_docs(q, &o, &a) : mi_query_search(q, &o, &a), 0);
	mi_query_set_exhaustive(q, true);
	CHECK_INT(docs ? mi_query_docs(q, &o, &b) : mi_query_search(q, &o, &b), 0);
	mi_query_set_exhaustive(q, false);
	ja = json_loads(mi_buf_str(&a.json), 0, NULL);
	jb = json_loads(mi_buf_str(&b.json), 0, NULL);
	n = nres(ja);
	CHECK_INT(n, nres(jb));
	for (size_t r = 0; r < n && r < nres(jb); r++) {
		if (strcmp(res_str(ja, r, "path"), res_str(jb, r, "path")) ||
		    res_int(ja, r, "start_line") != res_int(jb, r, "start_line") ||
		    res_num(ja, r, "score") != res_num(jb, r, "score"))
			printf("# %s '%s' k=%zu #%zu: %s:%ld %g vs %s:%ld %g\n",
			       docs ? "docs" : "code", query, k, r, res_str(ja, r, "path"),
			       res_int(ja, r, "start_line"), res_num(ja, r, "score"),
			       res_str(jb, r, "path"), res_int(jb, r, "start_line"),
			       res_num(jb, r, "score"));
		CHECK_STR(res_str(ja, r, "path"), res_str(jb, r, "path"));
		CHECK_INT(res_int(ja, r, "start_line"), res_int(jb, r, "start_line"));
		CHECK(res_num(ja, r, "score") == res_num(jb, r, "score"));
	}
	json_decref(ja);
	json_decref(jb);
	mi_out_release(&a);
	mi_out_release(&b);
	return n;
}

/* same_as_exhaustive of each of the nq queries at each of the nk sizes
 * (code: k hits each; docs as they come), in one pass and then with every
 * query cut in two passes, one of them in a thread. */
static void same_as_exhaustive_cut(mi_query *q, const char *const *qs, size_t nq,
				   const size_t *ks, size_t nk)
{
	for (int split = 0; split < 2; split++) {
		mi_query_set_split(q, split ? 1 : 0);
		for (size_t i = 0; i < nq; i++)
			for (size_t j = 0; j < nk; j++) {
				CHECK_INT(same_as_exhaustive(q, false, qs[i], ks[j]), ks[j]);
				same_as_exhaustive(q, true, qs[i], ks[j]);
			}
	}
	mi_query_set_split(q, 0);
}

TEST(pruned_top_k_equals_exhaustive)
{
	mi_query *q = open_index("main");
	const char *qs[] = { "config settings file", "parse", "cache value key",
			     "server http", "the settings panel element" };

	if (!q) {
		CHECK(!"the test index builds and opens");
		return;
	}
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		CHECK(same_as_exhaustive(q, false, qs[i], 3) > 0);
		same_as_exhaustive(q, false, qs[i], 1);
		same_as_exhaustive(q, true, qs[i], 3);
	}
	mi_query_close(q);
}

/* Writes the path and source of file i of a generated tree (gen_tree). */
typedef void (*gen_file)(size_t i, mi_buf *path, mi_buf *src);

/* Builds the index of the n files gen makes (file ids 1..n) under
 * tmp_root/name and opens it: NULL, the check failed, when it does not
 * build or open. */
static mi_query *gen_tree(const char *name, size_t n, gen_file gen)
{
	char dir[256];
	tfile *fs = mi_xcalloc(n, sizeof(*fs));
	mi_buf *paths = mi_xcalloc(n, sizeof(*paths)), *srcs = mi_xcalloc(n, sizeof(*srcs));
	mi_buf err = { 0 };
	mi_query *q = NULL;
	size_t nf = 0;

	snprintf(dir, sizeof(dir), "%s/%s", tmp_root, name);
	for (size_t i = 0; i < n; i++) {
		gen(i, &paths[i], &srcs[i]);
		fs[i] = (tfile){ (uint32_t)i + 1, mi_buf_str(&paths[i]), mi_buf_str(&srcs[i]) };
	}
	CHECK_INT(build(dir, fs, n, NULL, 0, &nf), 0);
	if (mi_query_open(dir, &q, &err)) {
		CHECK(!"index opens");
		q = NULL;
	}
	for (size_t i = 0; i < n; i++) {
		mi_buf_release(&paths[i]);
		mi_buf_release(&srcs[i]);
	}
	free(fs);
	free(paths);
	free(srcs);
	mi_buf_release(&err);
	return q;
}

static void gen_blockmax(size_t i, mi_buf *p, mi_buf *b)
{
	mi_buf_addf(b, "/* Counts gamma for %zu. */\n"
		    "int alpha_%zu(int beta)\n{\n\treturn gamma(beta) + counter(%zu);\n}\n",
		    i, i, i);
	if (i % 40 == 7) {
		mi_buf_adds(b, "/* Sums");
		for (size_t j = 0; j <= i / 40; j++)
			mi_buf_adds(b, " gamma");
		mi_buf_addf(b, ". */\nint gamma_counter_sum_%zu(int beta)\n{\n\tint s = 0;\n", i);
		for (size_t j = 0; j <= i / 40; j++)
			mi_buf_addf(b, "\ts += gamma(beta + %zu);\n", j);
		mi_buf_adds(b, "\treturn s;\n}\n");
	}
	mi_buf_addf(p, "g%03zu.c", i);
}

/* Block-max pruning must not skip a block that holds a winner: 400 files,
 * every one saying "gamma counter" once in a function body (postings over
 * many blocks), and every 40th one a gamma_counter_sum_N whose doc says
 * gamma more often the later its file (a body's count is capped), so the
 * best hits sit in the last blocks. */
TEST(block_max_pruning_keeps_the_best_hits)
{
	const char *qs[] = { "gamma counter", "counter sum", "gamma", "steps the gamma",
			     "alpha 377 counter", "beta counter 12", "gamma sum 7" };
	mi_query *q = gen_tree("blockmax", 400, gen_blockmax);

	if (!q)
		return;
	json_t *j = run(q, false, "gamma counter", NULL, NULL, true, "json", NULL, NULL);
	CHECK_STR(res_str(j, 0, "breadcrumb"), "gamma_counter_sum_367");
	CHECK_STR(res_str(j, 1, "breadcrumb"), "gamma_counter_sum_327");
	CHECK_STR(res_str(j, 2, "breadcrumb"), "gamma_counter_sum_287");
	json_decref(j);
	same_as_exhaustive_cut(q, qs, sizeof(qs) / sizeof(qs[0]), (const size_t[]){ 1, 12 }, 2);
	mi_query_close(q);
}

static void gen_identprune(size_t i, mi_buf *p, mi_buf *b)
{
	mi_buf_addf(b, "int fill_%zu(int v)\n{\n\treturn ring_buffer(v) + ring(v) + "
		    "buffer(%zu);\n}\n", i, i);
	if (i % 10 == 0) {
		mi_buf_addf(b, "/* Pushes onto the ring_buffer. */\n"
			    "int ring_buffer_push_%zu(int v)\n{\n\tint s = 0;\n", i);
		for (size_t j = 0; j <= i / 30; j++)
			mi_buf_addf(b, "\ts += ring_buffer(v + %zu);\n", j);
		mi_buf_adds(b, "\treturn s;\n}\n");
	}
	mi_buf_addf(p, "r%03zu.c", i);
}

/* A query that is one identifier ranks only the chunks holding it, and
 * once k are in, those its block's bound or its posting's keep under the
 * k-th score are passed over unread: 300 files each calling ring_buffer
 * and ring and buffer apart, every 10th also a ring_buffer_push_N saying
 * ring_buffer more often the later its file.  The answers stay those of
 * scoring every chunk, also when two passes share the identifier's
 * blocks out. */
TEST(identifier_pruning_keeps_the_top_k)
{
	const char *qs[] = { "ring_buffer", "ring", "ringBuffer", "buffer" };
	mi_query *q = gen_tree("identprune", 300, gen_identprune);

	if (!q)
		return;
	/* Also cut in two passes over the identifier's blocks, one of them
	 * in a thread. */
	same_as_exhaustive_cut(q, qs, sizeof(qs) / sizeof(qs[0]), (const size_t[]){ 1, 12 }, 2);
	mi_query_close(q);
}

static void gen_oneword(size_t i, mi_buf *p, mi_buf *b)
{
	mi_buf_addf(b, "int counter_step_%zu(int v)\n{\n\treturn v + %zu;\n}\n", i, i);
	if (i % 50 == 25) {
		mi_buf_adds(b, "/* Adds to the");
		for (size_t j = 0; j <= i / 50; j++)
			mi_buf_adds(b, " counter");
		mi_buf_addf(b, ". */\nint counter(int v)\n{\n\treturn counter_step_%zu(v);\n}\n", i);
	}
	mi_buf_addf(p, "c%03zu.c", i);
}

/* A query of one word skips the blocks whose chunks it names only in
 * part (counter_step_N: a third of the name) or not at all, by the blocks'
 * one-word bounds, but not those holding a function named by the word
 * alone: 400 files of counter_step_N, every 50th also a function named
 * counter whose doc says the word more often the later its file, so the
 * best hits sit in the last blocks. */
TEST(one_word_bounds_keep_the_top_k)
{
	const char *qs[] = { "counter", "step", "counters" };
	mi_query *q = gen_tree("oneword", 400, gen_oneword);

	if (!q)
		return;
	json_t *j = run(q, false, "counter", NULL, NULL, true, "json", NULL, NULL);
	CHECK_STR(res_str(j, 0, "path"), "c375.c");
	CHECK_STR(res_str(j, 0, "breadcrumb"), "counter");
	json_decref(j);
	same_as_exhaustive_cut(q, qs, sizeof(qs) / sizeof(qs[0]), (const size_t[]){ 1, 3, 12 }, 3);
	mi_query_close(q);
}

static void gen_docsident(size_t i, mi_buf *p, mi_buf *b)
{
	if (i < 40) {
		/* named: a body longer with each file, so no two tie */
		mi_buf_addf(b, "# Gamma notes %zu\n\nThe notes of the loader", i);
		for (size_t j = 0; j < i; j++)
			mi_buf_adds(b, " part");
		mi_buf_adds(b, ".\n");
		mi_buf_addf(p, "doc%02zu.md", i);
	} else if (i < 48) {
		mi_buf_addf(b, "# Interfaces\n\nStatically define the value:");
		for (size_t j = 0; j <= i - 40; j++)
			mi_buf_adds(b, " gamma");
		mi_buf_adds(b, ".\n");
		mi_buf_addf(p, "zz%02zu.md", i);
	} else {
		mi_buf_addf(b, "# Other %zu\n\nNothing of the kind here, file %zu.\n", i, i);
		mi_buf_addf(p, "other%03zu.md", i);
	}
}

/* search_docs of one identifier: a Markdown section whose body says it,
 * under a heading that does not, scores as a section naming it would (the
 * inexact factor is search_code's alone), so pruning may not pass it over
 * for its heading: 40 sections named "Gamma notes" saying gamma once, then
 * sections titled "Interfaces" whose bodies say gamma more and more often,
 * the best of them last (on the kernel, "mutex" lost mutex-design.rst's
 * "Interfaces" this way). */
TEST(docs_identifier_pruning_keeps_unnamed_sections)
{
	const char *qs[] = { "gamma", "interfaces" };
	mi_query *q = gen_tree("docsident", 160, gen_docsident);

	if (!q)
		return;
	json_t *j = run(q, true, "gamma", NULL, NULL, false, "json", NULL, NULL);
	CHECK_STR(res_str(j, 0, "path"), "zz47.md");
	json_decref(j);
	for (int split = 0; split < 2; split++) {
		mi_query_set_split(q, split ? 1 : 0);
		for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
			for (size_t k = 1; k <= 10; k += 3)
				CHECK(same_as_exhaustive(q, true, qs[i], k) > 0);
	}
	mi_query_set_split(q, 0);
	mi_query_close(q);
}

static void gen_seeded(size_t i, mi_buf *p, mi_buf *b)
{
	mi_buf_addf(b, "/* Reads the frame buffer for %zu. */\n"
		    "int read_frame_%zu(int buffer)\n{\n"
		    "\treturn frame(buffer) + read(buffer) + cache(%zu) + device(buffer);\n}\n",
		    i, i, i);
	if (i % 100 == 7) {
		mi_buf_addf(b, "int read_frame_cache_device_%zu(int buffer)\n{\n", i);
		for (size_t j = 0; j <= i / 100; j++)
			mi_buf_addf(b, "\tcache(device(read(frame(buffer + %zu))));\n", j);
		mi_buf_adds(b, "\treturn 0;\n}\n");
	}
	mi_buf_addf(p, "s%04zu.c", i);
}

/* The seed of the threshold reads identifiers the query spells word by
 * word and the best blocks of terms too common to read whole: 1,200
 * files each saying read, frame, buffer, cache and device in one
 * function (postings past the seed's budget), every 100th one also a
 * read_frame_cache_device_N saying them more often.  The answers stay
 * those of scoring every chunk. */
TEST(seeded_threshold_keeps_the_top_k)
{
	const char *qs[] = { "read frame cache device", "read frame cache device 707",
			     "frame buffer cache", "device read", "read frame" };
	mi_query *q = gen_tree("seeded", 1200, gen_seeded);

	if (!q)
		return;
	json_t *j = run(q, false, "read frame cache device 707", NULL, NULL, true, "json", NULL,
			NULL);
	/* the two functions of s0707.c, whose names say 707 */
	CHECK(!strcmp(res_str(j, 0, "path"), "s0707.c") && !strcmp(res_str(j, 1, "path"), "s0707.c"));
	json_decref(j);
	/* Every query also cut in two passes, one of them in a thread. */
	same_as_exhaustive_cut(q, qs, sizeof(qs) / sizeof(qs[0]), (const size_t[]){ 1, 5, 20 }, 3);
	mi_query_close(q);
}

/* A snippet of a chunk deep in a large file (its source stored in
 * frames, read by the frames holding the snippet) is the chunk's own first
 * lines, also across a frame boundary. */
TEST(snippets_of_large_files_are_their_chunks_lines)
{
	enum { NF = 70 };
	char dir[256];
	mi_buf src = { 0 }, err = { 0 };
	tfile f;
	size_t n = 0;
	mi_query *q = NULL;

	snprintf(dir, sizeof(dir), "%s/bigsrc", tmp_root);
	for (size_t i = 0; i < NF; i++) {
		mi_buf_addf(&src, "int zeta_fn_%zu(int a)\n{\n", i);
		for (size_t l = 0; l < 3 + i % 5; l++)
			mi_buf_addf(&src, "\ta = a * %zu + %zu; /* step %zu of zeta function %zu */\n",
				    l + 3, i, l, i);
		mi_buf_adds(&src, "\treturn a;\n}\n\n");
	}
	CHECK(src.len > 2 * MI_SRC_FRAME);
	f = (tfile){ 1, "big.c", mi_buf_str(&src) };
	CHECK_INT(build(dir, &f, 1, NULL, 0, &n), 0);
	if (mi_query_open(dir, &q, &err)) {
		CHECK(!"index opens");
		goto out;
	}
	for (size_t i = 0; i < NF; i++) {
		char name[64], head[64];
		mi_buf want = { 0 };
		size_t body = 3 + i % 5;
		snprintf(name, sizeof(name), "zeta_fn_%zu", i);
		json_t *j = run(q, false, name, NULL, NULL, true, "json", NULL, NULL);
		CHECK_STR(res_str(j, 0, "breadcrumb"), name);
		/* the signature, the brace, then the first three steps */
		snprintf(head, sizeof(head), "int zeta_fn_%zu(int a)\n{\n", i);
		mi_buf_adds(&want, head);
		for (size_t l = 0; l < 3; l++)
			mi_buf_addf(&want, "\ta = a * %zu + %zu; /* step %zu of zeta function %zu */%s",
				    l + 3, i, l, i, l < 2 ? "\n" : "");
		mi_buf_addf(&want, "\n    ... (%zu more lines)", body + 4 - 5);
		CHECK_STR(res_str(j, 0, "content"), mi_buf_str(&want));
		mi_buf_release(&want);
		json_decref(j);
	}
	mi_query_close(q);
out:
	mi_buf_release(&src);
	mi_buf_release(&err);
}

int main(void)
{
	char cmd[300];
	int rc;

	if (!mkdtemp(tmp_root)) {
		printf("FAIL setup: mkdtemp\n");
		return 1;
	}
	RUN(split_identifiers_find_both_spellings);
	RUN(renamed_identifier_spellings);
	RUN(doc_only_match);
	RUN(chunk_owns_a_long_doc_comment);
	RUN(chunk_owns_a_doc_comment_above_attributes);
	RUN(path_filter_and_extensions);
	RUN(private_symbols_need_all);
	RUN(ranking_defaults_match_the_index_weights);
	RUN(test_code_yields_unless_asked_for);
	RUN(generated_code_ranks_below_written_code);
	RUN(semantic_evidence_weighs_against_bm25f);
	RUN(limit_and_text_formats);
	RUN(search_docs_sections_and_doc_comments);
	RUN(bad_input_gets_a_clear_answer);
	RUN(identifier_query_requires_the_identifier);
	RUN(identifier_query_ranks_its_own_name_first);
	RUN(joined_query_words_meet_one_word_names);
	RUN(body_mentions_count_up_to_a_cap);
	RUN(spelled_out_words_meet_abbreviated_names);
	RUN(incremental_statistics_match_a_fresh_build);
	RUN(postings_blocks_updated_in_place_match_a_fresh_build);
	RUN(pruned_top_k_equals_exhaustive);
	RUN(seeded_threshold_keeps_the_top_k);
	RUN(block_max_pruning_keeps_the_best_hits);
	RUN(identifier_pruning_keeps_the_top_k);
	RUN(docs_identifier_pruning_keeps_unnamed_sections);
	RUN(one_word_bounds_keep_the_top_k);
	RUN(snippets_of_large_files_are_their_chunks_lines);
	RUN(index_records_its_ranking_weights);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_root);
	rc = system(cmd);
	(void)rc;
	return test_done();
}
