/*
 * test_format.c - the shared utilities and the on-disk records: JSON
 * escaping, paths, globs, msgpack round trips, corrupt records, the store's
 * version check.
 */
#include "test.h"
#include "../../format/format.h"
#include "../../query/query.h"

#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <stdlib.h>
#include <unistd.h>

TEST(json_escape)
{
	mi_buf b = {0};
	mi_buf_add_json_str(&b, "a\"b\\c\n\x01\xc3\xa9\xff", 10);
	CHECK_STR(b.buf, "\"a\\\"b\\\\c\\n\\u0001\xc3\xa9\\ufffd\"");
	mi_buf_release(&b);
}

TEST(utf8)
{
	CHECK(mi_utf8_valid("h\xc3\xa9llo", 6));
	CHECK(!mi_utf8_valid("\xc3\x28", 2));
	CHECK(!mi_utf8_valid("\xed\xa0\x80", 3)); /* surrogate */
	CHECK(!mi_utf8_valid("\xc0\xaf", 2));     /* overlong */
	/* A cut that ends inside a character loses that character only. */
	CHECK(mi_utf8_clip("ab\xe6\x97\xa5", 5) == 5);
	CHECK(mi_utf8_clip("ab\xe6\x97\xa5", 4) == 2);
	CHECK(mi_utf8_clip("ab\xe6\x97\xa5", 3) == 2);
	CHECK(mi_utf8_clip("h\xc3\xa9", 2) == 1);
	CHECK(mi_utf8_clip("\xf0\x9f\x98\x80", 3) == 0);
	CHECK(mi_utf8_clip("\xf0\x9f\x98\x80", 4) == 4);
	CHECK(mi_utf8_clip("abc", 3) == 3 && mi_utf8_clip("", 0) == 0);
	CHECK(mi_utf8_cut("ab\xe6\x97\xa5", 3) == 2);
}

TEST(paths)
{
	mi_buf b = {0};
	CHECK_INT(mi_path_normalize("./src//a.c", &b), 0);
	CHECK_STR(b.buf, "src/a.c");
	CHECK_INT(mi_path_normalize("../etc/passwd", &b), MI_ERR_PATH);
	CHECK_INT(mi_path_normalize("src/../../x", &b), MI_ERR_PATH);
	CHECK_INT(mi_path_normalize("/etc/passwd", &b), MI_ERR_PATH);
	CHECK_INT(mi_path_normalize("", &b), MI_ERR_PATH);
	mi_buf_release(&b);
	/* below a root: the rest, "" for the root itself, NULL outside (a
	 * sibling sharing the root's name as a prefix is outside) */
	CHECK_STR(mi_path_below("/srv/repo", "/srv/repo/src/a.c"), "src/a.c");
	CHECK_STR(mi_path_below("/srv/repo", "/srv/repo"), "");
	CHECK(mi_path_below("/srv/repo", "/srv/repo2/a.c") == NULL);
	CHECK(mi_path_below("/srv/repo", "/srv") == NULL);
	CHECK(mi_path_below("/srv/repo", "srv/repo/a.c") == NULL);
	CHECK_STR(mi_path_below("/", "/etc/passwd"), "etc/passwd");
	CHECK_STR(mi_path_below("/", "/"), "");
	CHECK(mi_path_below("/", "etc") == NULL);
}

TEST(globs)
{
	CHECK(mi_glob_match("src/**", "src/a/b.c"));
	CHECK(mi_glob_match("**/*.c", "a/b/c.c"));
	CHECK(mi_glob_match("*.c", "deep/dir/x.c")); /* no '/': base name */
	CHECK(!mi_glob_match("src/*.c", "src/a/b.c"));
	CHECK(mi_glob_match("src/[ab].c", "src/a.c"));
	CHECK(!mi_glob_match("src/[!ab].c", "src/a.c"));
	CHECK(mi_glob_match("Sources/Auth/**", "Sources/Auth/Login.swift"));
	CHECK(!mi_glob_match("Sources/Auth/**", "Sources/Other/Login.swift"));
	CHECK(!mi_glob_match("[", "a"));
	CHECK(mi_glob_match("**/*.c", "top.c"));      /* zero directories */
	CHECK(mi_glob_match("src/**/x.c", "src/x.c"));
	CHECK(mi_glob_match("src/**/x.c", "src/a/b/x.c"));
	CHECK(!mi_glob_match("src/**/x.c", "src/a/b/y.c"));
	CHECK(mi_glob_match("a\\*b", "a*b"));
	CHECK(!mi_glob_match("a\\*b", "axb"));
	/* Many stars: linear time, not exponential backtracking. */
	char pat[200] = "src/";
	for (int i = 0; i < 64; i++)
		strcat(pat, i % 2 ? "*" : "**");
	strcat(pat, "x");
	char path[300];
	memset(path, 'a', 250);
	memcpy(path, "src/", 4);
	path[120] = '/';
	path[250] = 0;
	CHECK(!mi_glob_match(pat, path));
	path[249] = 'x';
	CHECK(mi_glob_match(pat, path));
}

TEST(lines)
{
	CHECK_INT(mi_count_lines("", 0), 0);
	CHECK_INT(mi_count_lines("a", 1), 1);
	CHECK_INT(mi_count_lines("a\n", 2), 1);
	CHECK_INT(mi_count_lines("a\nb", 3), 2);
}

TEST(symbol_roundtrip)
{
	mi_parsed p, q;
	mi_parsed_init(&p);
	mi_parsed_init(&q);
	mi_symbol *s = mi_parsed_add_sym(&p);
	s->name = "login";
	s->parent = "app.User";
	s->sig = "pub fn login(name: String) -> bool";
	s->doc = "Logs in.\nTwo lines.";
	s->parent_idx = 3;
	s->kind = MI_KIND_METHOD;
	s->vis = MI_VIS_PRIVATE;
	s->level = 2;
	s->start_line = 10;
	s->end_line = 20;
	s->start_byte = 100;
	s->end_byte = 400;
	s->body_byte = 140;
	s->body_line = 10;
	mi_buf b = {0};
	mi_symbol_encode(s, &b);
	mi_symbol d;
	CHECK_INT(mi_symbol_decode(b.buf, b.len, &d, &q), 0);
	CHECK_STR(d.name, "login");
	CHECK_STR(d.parent, "app.User");
	CHECK_STR(d.sig, s->sig);
	CHECK_STR(d.doc, s->doc);
	CHECK_INT(d.parent_idx, 3);
	CHECK_INT(d.kind, MI_KIND_METHOD);
	CHECK_INT(d.vis, MI_VIS_PRIVATE);
	CHECK_INT(d.end_byte, 400);
	CHECK_INT(d.body_line, 10);
	/* Every truncation of the record is refused, never misread. */
	for (size_t n = 0; n < b.len; n++)
		CHECK_INT(mi_symbol_decode(b.buf, n, &d, &q), MI_ERR_CORRUPT);
	/* A wrong type in a field is refused. */
	CHECK_INT(mi_symbol_decode("\x91\x01", 2, &d, &q), MI_ERR_CORRUPT);
	mi_buf_release(&b);
	mi_parsed_release(&p);
	mi_parsed_release(&q);
}

TEST(file_roundtrip)
{
	mi_diag diags[2] = {{3, 'E', "syntax error: missing ';'"}, {9, 'W', "unused"}};
	mi_file_rec f = {.file_id = 7, .lang = MI_LANG_C, .size = 1234, .lines = 50,
			 .mtime = 1700000000123456789ll, .nsyms = 4, .nrefs = 5,
			 .ndiags = 2, .diags = diags};
	for (int i = 0; i < 16; i++)
		f.hash[i] = (uint8_t)(i * 17);
	mi_buf b = {0};
	mi_file_encode(&f, &b);
	mi_file_rec g;
	CHECK_INT(mi_file_decode(b.buf, b.len, &g), 0);
	CHECK_INT(g.file_id, 7);
	CHECK_INT(g.mtime, 1700000000123456789ll);
	CHECK_INT(g.ndiags, 2);
	CHECK_STR(g.diags[0].msg, "syntax error: missing ';'");
	CHECK_INT(g.diags[1].severity, 'W');
	CHECK(!memcmp(g.hash, f.hash, 16));
	mi_file_rec_release(&g);
	for (size_t n = 0; n < b.len; n++)
		CHECK_INT(mi_file_decode(b.buf, n, &g), MI_ERR_CORRUPT);
	mi_buf_release(&b);
}

TEST(outline_record_roundtrip)
{
	mi_outline_rec r = {.text = "F> int main(void) { ... }\n", .need = 37, .lines = 12,
			    .nsyms = 3, .saved = -1};
	r.text_len = strlen(r.text);
	mi_buf b = {0};
	mi_outline_encode(&r, &b);
	mi_outline_rec g;
	CHECK_INT(mi_outline_decode(b.buf, b.len, &g), 0);
	CHECK_INT(g.text_len, r.text_len);
	CHECK(!memcmp(g.text, r.text, r.text_len));
	CHECK_INT(g.need, 37);
	CHECK_INT(g.lines, 12);
	CHECK_INT(g.nsyms, 3);
	CHECK_INT(g.saved, -1);
	for (size_t n = 0; n < b.len; n++)
		CHECK_INT(mi_outline_decode(b.buf, n, &g), MI_ERR_CORRUPT);
	mi_buf_release(&b);
}

TEST(hash_is_xxh3_128)
{
	uint8_t h[16];
	char hex[33];
	mi_hash128("", 0, h);
	mi_hash_hex(h, hex);
	/* XXH3_128bits of the empty input */
	CHECK_STR(hex, "99aa06d3014798d86001c324468d497f");
}

TEST(store_version_check)
{
	char dir[] = "/tmp/mcpidx-fmt-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	mi_store *st;
	CHECK_INT(mi_store_open(dir, MI_STORE_RDONLY, &st), MI_ERR_NOINDEX);
	CHECK_INT(mi_store_open(dir, MI_STORE_CREATE, &st), 0);
	mi_txn *t;
	CHECK_INT(mi_txn_begin(st, true, &t), 0);
	CHECK_INT(mi_meta_put_int(t, "version", 99), 0);
	CHECK_INT(mi_put(t, MI_DB_FILES, "a", 1, "x", 1), 0);
	CHECK_INT(mi_txn_commit(t), 0);
	mi_store_close(st);
	CHECK_INT(mi_store_open(dir, MI_STORE_RDONLY, &st), MI_ERR_VERSION);
	mi_query *q;
	mi_buf err = {0};
	CHECK_INT(mi_query_open(dir, &q, &err), MI_ERR_VERSION);
	CHECK_CONTAINS(err.buf, "another format version");
	CHECK_CONTAINS(err.buf, "mcpidx build --force");
	mi_buf_release(&err);
	/* A writer sees the old version and can replace it. */
	CHECK_INT(mi_store_open(dir, MI_STORE_CREATE, &st), 0);
	CHECK_INT(mi_store_version(st), 99);
	mi_store_close(st);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
}

/* An index of an older layout (version 1: no "outlines" database) is
 * refused as another format version, not taken for a missing index. */
TEST(older_layout_is_a_version_error)
{
	char dir[] = "/tmp/mcpidx-v1-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi meta, files;
	CHECK_INT(mdb_env_create(&env), 0);
	mdb_env_set_maxdbs(env, 16);
	CHECK_INT(mdb_env_open(env, dir, 0, 0644), 0);
	CHECK_INT(mdb_txn_begin(env, NULL, 0, &txn), 0);
	CHECK_INT(mdb_dbi_open(txn, "meta", MDB_CREATE, &meta), 0);
	CHECK_INT(mdb_dbi_open(txn, "files", MDB_CREATE, &files), 0);
	MDB_val k = {7, "version"}, v = {1, "\x01"}; /* msgpack 1 */
	CHECK_INT(mdb_put(txn, meta, &k, &v, 0), 0);
	CHECK_INT(mdb_txn_commit(txn), 0);
	mdb_env_close(env);
	mi_store *st;
	CHECK_INT(mi_store_open(dir, MI_STORE_RDONLY, &st), MI_ERR_VERSION);
	mi_query *q;
	mi_buf err = {0};
	CHECK_INT(mi_query_open(dir, &q, &err), MI_ERR_VERSION);
	CHECK_CONTAINS(err.buf, "mcpidx build --force");
	mi_buf_release(&err);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
}

TEST(cursor_prefix_scan)
{
	char dir[] = "/tmp/mcpidx-cur-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	mi_store *st;
	CHECK_INT(mi_store_open(dir, MI_STORE_CREATE, &st), 0);
	mi_txn *t;
	CHECK_INT(mi_txn_begin(st, true, &t), 0);
	const char *keys[] = {"a\0x", "b\0one", "b\0two", "c"};
	size_t lens[] = {3, 5, 5, 1};
	for (int i = 0; i < 4; i++)
		CHECK_INT(mi_put(t, MI_DB_NAMES, keys[i], lens[i], "", 0), 0);
	CHECK_INT(mi_del_prefix(t, MI_DB_NAMES, "b\0", 2), 0);
	CHECK_INT(mi_db_count(t, MI_DB_NAMES), 2);
	mi_cursor *c;
	const void *k, *v;
	size_t kl, vl;
	CHECK_INT(mi_cursor_open(t, MI_DB_NAMES, &c), 0);
	CHECK_INT(mi_cursor_seek(c, "b", 1, &k, &kl, &v, &vl), 0);
	CHECK_INT(kl, 1);
	CHECK(!memcmp(k, "c", 1));
	CHECK_INT(mi_cursor_next(c, &k, &kl, &v, &vl), MI_ERR_NOTFOUND);
	mi_cursor_close(c);
	mi_txn_abort(t);
	mi_store_close(st);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
}

/* Reads beneath a folder: links that stay inside are followed, a path or
 * link that leads out is refused (EXDEV), and nothing is read from it. */
TEST(read_beneath)
{
	char dir[] = "/tmp/mi-beneath-XXXXXX", path[256], cmd[512];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && mkdir -p root/sub out && echo inside > root/sub/a.c && "
		 "echo secret > out/s.c && ln -s sub/a.c root/in.c && "
		 "ln -s ../out/s.c root/up.c && ln -s %s/out/s.c root/abs.c && "
		 "ln -s ../../out root/sub/door && mkfifo root/fifo && "
		 "ln -s %s/root/sub/a.c root/absin.c", dir, dir, dir);
	CHECK_INT(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/root", dir);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(fd >= 0);
	/* with the folder open (openat2 on Linux), then by realpath alone */
	for (int k = 0; k < 2; k++) {
		int d = k ? -1 : fd;
		char *s = NULL;
		size_t n = 0;
		CHECK_INT(mi_read_file_beneath(path, d, "sub/a.c", 100, &s, &n), 0);
		CHECK_STR(s, "inside\n");
		free(s);
		CHECK_INT(mi_read_file_beneath(path, d, "in.c", 100, &s, &n), 0);
		CHECK_STR(s, "inside\n");
		free(s);
		s = NULL;
		/* an absolute link naming a file inside, as the walk follows it */
		CHECK_INT(mi_read_file_beneath(path, d, "absin.c", 100, &s, &n), 0);
		CHECK_STR(s, "inside\n");
		free(s);
		s = NULL;
		CHECK_INT(mi_read_file_beneath(path, d, "up.c", 100, &s, &n), EXDEV);
		CHECK_INT(mi_read_file_beneath(path, d, "abs.c", 100, &s, &n), EXDEV);
		CHECK_INT(mi_read_file_beneath(path, d, "sub/door/s.c", 100, &s, &n), EXDEV);
		CHECK_INT(mi_read_file_beneath(path, d, "../out/s.c", 100, &s, &n), EXDEV);
		CHECK(s == NULL);
		CHECK_INT(mi_read_file_beneath(path, d, "fifo", 100, &s, &n), MI_ERR_NOTREG);
		CHECK_INT(mi_read_file_beneath(path, d, "sub/a.c", 3, &s, &n), MI_ERR_TOOBIG);
	}
	close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
}

int main(void)
{
	RUN(json_escape);
	RUN(utf8);
	RUN(paths);
	RUN(globs);
	RUN(lines);
	RUN(symbol_roundtrip);
	RUN(file_roundtrip);
	RUN(hash_is_xxh3_128);
	RUN(outline_record_roundtrip);
	RUN(store_version_check);
	RUN(older_layout_is_a_version_error);
	RUN(cursor_prefix_scan);
	RUN(read_beneath);
	return test_done();
}
