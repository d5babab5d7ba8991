/*
 * test_store.c - the storage layer's promises about files that change
 * under it: a read of a page cut away while mapped is survived and turns
 * into MI_ERR_DAMAGED, a fresh store is invisible until published and then
 * seen by the next transaction, a writer of a replaced file is told so, a
 * linked .mcpidx is not opened, a grown file is cut back; packed values and
 * a file's references read back as written.
 */
#include "test.h"
#include "../../format/format.h"
#include "../../indexer/indexer.h"
#include "../../indexer/walk.h"

#include <dirent.h>
#include <lmdb.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

static char *tmpdir(void)
{
	char *d = strdup("/tmp/mcpidx-store-XXXXXX");
	return mkdtemp(d);
}

static void rm_rf(const char *dir)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

/* Writes an index at dir (in place) with one big value in a database whose
 * values are not packed (so a read of it is a read of the map). */
static void write_index(const char *dir, int version, size_t big)
{
	mi_store *st;
	mi_txn *t;
	char *v = malloc(big);
	memset(v, 'x', big);
	CHECK_INT(mi_store_open(dir, MI_STORE_CREATE, &st), 0);
	CHECK_INT(mi_txn_begin(st, true, &t), 0);
	CHECK_INT(mi_meta_put_int(t, "version", version), 0);
	CHECK_INT(mi_put(t, MI_DB_TERMS, "big.c", 5, v, big), 0);
	CHECK_INT(mi_put(t, MI_DB_FILES, "big.c", 5, "x", 1), 0);
	CHECK_INT(mi_txn_commit(t), 0);
	mi_store_close(st);
	free(v);
}

static size_t file_size(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 ? (size_t)sb.st_size : 0;
}

TEST(read_of_a_cut_page_is_survived)
{
	char *dir = tmpdir(), data[300], copy[300];
	snprintf(data, sizeof data, "%s/data.mdb", dir);
	snprintf(copy, sizeof copy, "%s/good", dir);
	write_index(dir, MI_FORMAT_VERSION, 400000);
	size_t size = file_size(data);
	char cmd[700];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", data, copy);
	CHECK_INT(system(cmd), 0);

	mi_store *st;
	mi_txn *t;
	const void *v;
	size_t vl;
	CHECK_INT(mi_store_open(dir, MI_STORE_RDONLY, &st), 0);
	CHECK_INT(mi_txn_begin(st, false, &t), 0);
	CHECK_INT(mi_get(t, MI_DB_TERMS, "big.c", 5, &v, &vl), 0);
	CHECK_INT(vl, 400000);
	/* Cut the file under the open transaction, then read the value's
	 * last byte: past the new end of the file. */
	CHECK_INT(truncate(data, 3 * 4096), 0);
	volatile char last = ((const volatile char *)v)[vl - 1];
	CHECK_INT(last, 0); /* the guard's page of zeros */
	CHECK_INT(mi_get(t, MI_DB_TERMS, "big.c", 5, &v, &vl), MI_ERR_DAMAGED);
	mi_txn_abort(t);
	CHECK_INT(mi_txn_begin(st, false, &t), MI_ERR_DAMAGED);
	/* The file copied back whole: the next transaction maps it afresh. */
	snprintf(cmd, sizeof cmd, "cat '%s' > '%s'", copy, data);
	CHECK_INT(system(cmd), 0);
	CHECK_INT(file_size(data), size);
	CHECK_INT(mi_txn_begin(st, false, &t), 0);
	CHECK_INT(mi_get(t, MI_DB_TERMS, "big.c", 5, &v, &vl), 0);
	CHECK_INT(((const char *)v)[vl - 1], 'x');
	mi_txn_abort(t);
	mi_store_close(st);
	/* Opening a cut file is refused before it is mapped. */
	CHECK_INT(truncate(data, size - 4096), 0);
	CHECK_INT(mi_store_open(dir, MI_STORE_RDONLY, &st), MI_ERR_DAMAGED);
	CHECK_INT(mi_store_check(dir, false), MI_ERR_DAMAGED);
	rm_rf(dir);
	free(dir);
}

static int count_fresh_dirs(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	while (d && (de = readdir(d)))
		n += !strncmp(de->d_name, ".build-", 7);
	if (d)
		closedir(d);
	return n;
}

TEST(fresh_store_is_published_by_rename)
{
	char *dir = tmpdir(), data[300];
	snprintf(data, sizeof data, "%s/data.mdb", dir);
	write_index(dir, MI_FORMAT_VERSION, 100);
	struct stat before;
	CHECK_INT(stat(data, &before), 0);

	mi_store *reader, *writer, *fresh;
	mi_txn *t;
	const void *v;
	size_t vl;
	CHECK_INT(mi_store_open(dir, MI_STORE_RDONLY, &reader), 0);
	CHECK_INT(mi_store_open(dir, 0, &writer), 0);
	CHECK_INT(mi_store_open(dir, MI_STORE_FRESH, &fresh), 0);
	CHECK_INT(count_fresh_dirs(dir), 1);
	CHECK_INT(mi_txn_begin(fresh, true, &t), 0);
	CHECK_INT(mi_meta_put_int(t, "version", MI_FORMAT_VERSION), 0);
	CHECK_INT(mi_put(t, MI_DB_SRC, "new.c", 5, "new", 3), 0);
	CHECK_INT(mi_txn_commit(t), 0);
	/* Not visible before publishing. */
	CHECK_INT(mi_txn_begin(reader, false, &t), 0);
	CHECK_INT(mi_get(t, MI_DB_SRC, "new.c", 5, &v, &vl), MI_ERR_NOTFOUND);
	mi_txn_abort(t);
	bool aside = true;
	CHECK_INT(mi_store_publish(fresh, &aside), 0);
	CHECK(!aside);
	CHECK_INT(count_fresh_dirs(dir), 0);
	struct stat after;
	CHECK_INT(stat(data, &after), 0);
	CHECK(after.st_ino != before.st_ino);
	/* The reader follows the new file at its next transaction. */
	CHECK_INT(mi_txn_begin(reader, false, &t), 0);
	CHECK_INT(mi_get(t, MI_DB_SRC, "new.c", 5, &v, &vl), 0);
	CHECK_INT(mi_get(t, MI_DB_TERMS, "big.c", 5, &v, &vl), MI_ERR_NOTFOUND);
	mi_txn_abort(t);
	/* A writer of the replaced file is told, not let to write into it. */
	CHECK_INT(mi_txn_begin(writer, true, &t), MI_ERR_STALE);
	mi_store_close(writer);
	mi_store_close(fresh);
	mi_store_close(reader);

	/* An unpublished fresh store leaves nothing; a dead build's folder is
	 * removed by the next fresh open. */
	CHECK_INT(mi_store_open(dir, MI_STORE_FRESH, &fresh), 0);
	mi_store_close(fresh);
	CHECK_INT(count_fresh_dirs(dir), 0);
	char stale[400];
	snprintf(stale, sizeof stale, "%s/.build-dead01", dir);
	CHECK_INT(mkdir(stale, 0777), 0);
	snprintf(stale, sizeof stale, "%s/.build-dead01/data.mdb", dir);
	FILE *f = fopen(stale, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	CHECK_INT(mi_store_open(dir, MI_STORE_FRESH, &fresh), 0);
	CHECK_INT(count_fresh_dirs(dir), 1);
	mi_store_close(fresh);
	CHECK_INT(count_fresh_dirs(dir), 0);
	rm_rf(dir);
	free(dir);
}

/* A block of symbols that does not decode: the scan's open says so and
 * holds nothing after it (callers return on the error without closing;
 * the sanitized pass's leak check fails this test if the cursor stays). */
TEST(failed_symbol_scan_holds_nothing)
{
	char *dir = tmpdir();
	mi_store *st;
	mi_txn *t;
	mi_syms it;
	uint8_t key[4 + 4] = { 'a', '.', 'c', 0 };
	const uint8_t bad[] = { 0x7f, 1, 2 }; /* 127 records in 2 bytes, block of 1 */
	CHECK_INT(mi_store_open(dir, MI_STORE_CREATE, &st), 0);
	CHECK_INT(mi_txn_begin(st, true, &t), 0);
	CHECK_INT(mi_meta_put_int(t, "version", MI_FORMAT_VERSION), 0);
	mi_be32(key + 4, 0);
	CHECK_INT(mi_put(t, MI_DB_SYMS, key, sizeof key, bad, sizeof bad), 0);
	CHECK_INT(mi_txn_commit(t), 0);
	CHECK_INT(mi_txn_begin(st, false, &t), 0);
	CHECK_INT(mi_syms_open(t, "a.c", 3, 0, &it), MI_ERR_CORRUPT);
	CHECK(it.cur == NULL);
	mi_syms_close(&it); /* and a close after it does nothing */
	CHECK_INT(mi_syms_open(t, "b.c", 3, 0, &it), 0); /* no such file: nothing, no error */
	const void *rec;
	size_t len;
	uint32_t idx;
	CHECK_INT(mi_syms_next(&it, &rec, &len, &idx), MI_ERR_NOTFOUND);
	mi_syms_close(&it);
	mi_txn_abort(t);
	mi_store_close(st);
	rm_rf(dir);
	free(dir);
}

TEST(damaged_file_is_moved_aside)
{
	char *dir = tmpdir(), data[300], aside_path[300];
	snprintf(data, sizeof data, "%s/data.mdb", dir);
	snprintf(aside_path, sizeof aside_path, "%s/data.mdb.damaged", dir);
	write_index(dir, MI_FORMAT_VERSION, 200000);
	CHECK_INT(truncate(data, 5 * 4096), 0);
	mi_store *fresh;
	mi_txn *t;
	CHECK_INT(mi_store_open(dir, MI_STORE_FRESH, &fresh), 0);
	CHECK_INT(mi_txn_begin(fresh, true, &t), 0);
	CHECK_INT(mi_meta_put_int(t, "version", MI_FORMAT_VERSION), 0);
	CHECK_INT(mi_txn_commit(t), 0);
	bool aside = false;
	CHECK_INT(mi_store_publish(fresh, &aside), 0);
	CHECK(aside);
	CHECK_INT(file_size(aside_path), 5 * 4096);
	CHECK_INT(mi_store_check(dir, false), 0);
	mi_store_close(fresh);
	rm_rf(dir);
	free(dir);
}

TEST(linked_index_folder_is_not_opened)
{
	char *dir = tmpdir(), target[300], link[300], lock[300];
	snprintf(target, sizeof target, "%s/elsewhere", dir);
	snprintf(link, sizeof link, "%s/.mcpidx", dir);
	snprintf(lock, sizeof lock, "%s/lock.mdb", target);
	CHECK_INT(mkdir(target, 0777), 0);
	write_index(target, MI_FORMAT_VERSION, 100);
	unlink(lock);
	CHECK_INT(symlink(target, link), 0);
	mi_store *st;
	CHECK_INT(mi_store_open(link, MI_STORE_RDONLY, &st), MI_ERR_SYMLINK);
	CHECK_INT(mi_store_open(link, MI_STORE_FRESH, &st), MI_ERR_SYMLINK);
	CHECK(access(lock, F_OK) != 0);
	/* Named by its real place, it opens. */
	CHECK_INT(mi_store_open(target, MI_STORE_RDONLY, &st), 0);
	mi_store_close(st);
	rm_rf(dir);
	free(dir);
}

TEST(grown_file_is_trimmed)
{
	char *dir = tmpdir(), data[300];
	snprintf(data, sizeof data, "%s/data.mdb", dir);
	write_index(dir, MI_FORMAT_VERSION, 100);
	size_t size = file_size(data);
	CHECK_INT(truncate(data, (off_t)size + 1000000), 0);
	mi_store *st;
	CHECK_INT(mi_store_open(dir, 0, &st), 0);
	CHECK_INT(mi_store_trim(st), 0);
	CHECK_INT(file_size(data), size);
	CHECK(mi_store_is_nospace(st, ENOSPC));
	CHECK(!mi_store_is_nospace(st, EACCES));
	mi_store_close(st);
	rm_rf(dir);
	free(dir);
}

/* Writes files of several languages (names with no '.' before a '/', so
 * the walk's order is the path order and both builds give the same ids). */
static void write_repo(const char *dir, int files)
{
	char path[512];
	snprintf(path, sizeof path, "%s/src", dir);
	mkdir(path, 0777);
	snprintf(path, sizeof path, "%s/src/sub", dir);
	mkdir(path, 0777);
	for (int i = 0; i < files; i++) {
		snprintf(path, sizeof path, "%s/src/%sf%02d.%s", dir, i % 3 ? "" : "sub/", i,
			 i % 4 == 1 ? "py" : i % 4 == 2 ? "md" : "c");
		FILE *f = fopen(path, "w");
		if (!f)
			continue;
		for (int j = 0; j < 30; j++) {
			if (i % 4 == 1)
				fprintf(f, "def fn_%d_%d(x):\n    \"\"\"Adds %d.\"\"\"\n    return helper(x) + %d\n\n", i, j, j, j);
			else if (i % 4 == 2)
				fprintf(f, "## Section %d of %d\n\nText about open connections %d.\n\n", j, i, j);
			else
				fprintf(f, "/* Computes %d. */\nint fn_%d_%d(int x) { return helper_%d(x) * %d; }\n", j, i, j, j % 5, j);
		}
		fclose(f);
	}
}

/* A fresh build of write_repo(a, files) into a/.mcpidx (its path in ia). */
static void fresh_index(const char *a, int files, char *ia, size_t n)
{
	mi_build_opts o = {.jobs = 2, .repo = a};
	mi_build_stats bs;
	mi_buf err = {0};
	snprintf(ia, n, "%s/.mcpidx", a);
	write_repo(a, files);
	CHECK_INT(mi_build(&o, &bs, &err), 0);
	CHECK(bs.fresh);
	mi_build_stats_release(&bs);
	mi_buf_release(&err);
}

/* Every entry of every database but meta, in order, as one string. */
static void dump_index(const char *idx, mi_buf *out)
{
	mi_store *st;
	mi_txn *t;
	CHECK_INT(mi_store_open(idx, MI_STORE_RDONLY, &st), 0);
	CHECK_INT(mi_txn_begin(st, false, &t), 0);
	for (int db = MI_DB_META + 1; db < MI_DB__COUNT; db++) {
		mi_cursor *c;
		const void *k, *v;
		size_t kl, vl;
		mi_buf_addf(out, "db %d\n", db);
		CHECK_INT(mi_cursor_open(t, db, &c), 0);
		for (int rc = mi_cursor_seek(c, NULL, 0, &k, &kl, &v, &vl); !rc;
		     rc = mi_cursor_next(c, &k, &kl, &v, &vl)) {
			if (db == MI_DB_NAMES || db == MI_DB_REFS) {
				/* Blocks end where the order of writes put them:
				 * every definition and reference, not the blocks,
				 * must match. */
				mi_byname it;
				const char *p;
				size_t pl;
				uint32_t idx;
				mi_ref r;
				mi_byname_entry(t, db == MI_DB_REFS, k, kl, v, vl, &it);
				if (db == MI_DB_NAMES)
					while (!mi_names_next(&it, &p, &pl, &idx))
						mi_buf_addf(out, "%s %.*s %u %u %u\n", it.name, (int)pl,
							    p, idx, it.kind, it.vis);
				else
					while (!mi_refs_next(&it, &p, &pl, &r))
						mi_buf_addf(out, "%s %.*s %u %d %u %u\n", it.name, (int)pl,
							    p, r.line, r.caller_idx, r.line_byte, r.kind);
				CHECK(!it.damaged);
				mi_byname_close(&it);
				continue;
			}
			mi_buf_addf(out, "%zu %zu ", kl, vl);
			mi_buf_add(out, k, kl);
			mi_file_rec f;
			if (db == MI_DB_FILES && !mi_file_decode(v, vl, &f)) {
				f.mtime = 0; /* the two trees were written apart */
				mi_file_encode(&f, out);
				mi_file_rec_release(&f);
			} else {
				mi_buf_add(out, v, vl);
			}
			mi_buf_addc(out, '\n');
		}
		mi_cursor_close(c);
	}
	mi_txn_abort(t);
	mi_store_close(st);
}

/* A fresh build (parsed on worker threads, written in path order, names,
 * references and postings through the sorters) writes exactly what the
 * in-place path writes for the same files. */
TEST(fresh_build_equals_update)
{
	char *a = tmpdir(), *b = tmpdir(), ia[300], ib[300];
	mi_build_opts o = {.jobs = 2};
	mi_build_stats bs;
	mi_buf err = {0}, da = {0}, db = {0};
	snprintf(ia, sizeof ia, "%s/.mcpidx", a);
	snprintf(ib, sizeof ib, "%s/.mcpidx", b);
	write_repo(a, 40);
	o.repo = a;
	CHECK_INT(mi_build(&o, &bs, &err), 0);
	CHECK(bs.fresh);
	CHECK_INT(bs.files, 40);
	mi_build_stats_release(&bs);
	/* b: an empty first build, then every file added in place. */
	o.repo = b;
	CHECK_INT(mi_build(&o, &bs, &err), 0);
	mi_build_stats_release(&bs);
	write_repo(b, 40);
	CHECK_INT(mi_build(&o, &bs, &err), 0);
	CHECK(!bs.fresh);
	CHECK_INT(bs.indexed, 40);
	mi_build_stats_release(&bs);
	dump_index(ia, &da);
	dump_index(ib, &db);
	CHECK(da.len > 10000);
	CHECK_INT(da.len, db.len);
	CHECK(da.len == db.len && !memcmp(da.buf, db.buf, da.len));
	mi_buf_release(&da);
	mi_buf_release(&db);
	mi_buf_release(&err);
	rm_rf(a);
	rm_rf(b);
	free(a);
	free(b);
}

static void write_file(const char *dir, const char *rel, const char *fmt, int n, int a);

#define SL_MANY 4500    /* files beside the few edited: three pieces of the list */

/* The stat list of idx agrees with its file records: one entry each, in
 * strictly increasing walk order, with the record's mtime and size. */
static void check_stat_list(const char *idx)
{
	mi_store *st;
	mi_txn *t;
	mi_stat_list sl;
	mi_stat_entry e, prev = {0};
	uint32_t n = 0;
	CHECK_INT(mi_store_open(idx, MI_STORE_RDONLY, &st), 0);
	CHECK_INT(mi_txn_begin(st, false, &t), 0);
	CHECK(mi_stat_list_open(t, &sl));
	while (mi_stat_list_next(&sl, &e)) {
		const void *v;
		size_t vl;
		mi_file_rec f;
		if (n)
			CHECK(mi_walk_order(prev.path, prev.pl, e.path, e.pl) < 0);
		CHECK_INT(mi_get(t, MI_DB_FILES, e.path, e.pl, &v, &vl), 0);
		CHECK_INT(mi_file_decode_head(v, vl, &f), 0);
		CHECK_INT(f.mtime, e.mtime);
		CHECK_INT(f.size, e.size);
		prev = e;
		n++;
	}
	CHECK(!sl.bad);
	CHECK_INT(n, mi_db_count(t, MI_DB_FILES));
	mi_txn_abort(t);
	mi_store_close(st);
}

/* Replaces idx's stat list: none (rev < 0), or its entries with the first
 * two swapped (out of order, the count right). */
static void spoil_stat_list(const char *idx, int rev)
{
	mi_store *st;
	mi_txn *t, *r;
	mi_stat_list sl;
	mi_stat_entry e[2], x;
	mi_stat_writer w;
	char path[600];
	CHECK_INT(mi_store_open(idx, 0, &st), 0);
	CHECK_INT(mi_txn_begin(st, true, &t), 0);
	if (rev < 0) {
		CHECK_INT(mi_del(t, MI_DB_META, MI_STAT_LIST_KEY, strlen(MI_STAT_LIST_KEY)), 0);
	} else {
		/* read on the last snapshot while the writer rewrites it */
		CHECK_INT(mi_txn_begin(st, false, &r), 0);
		CHECK(mi_stat_list_open(r, &sl));
		CHECK(mi_stat_list_next(&sl, &e[0]) && mi_stat_list_next(&sl, &e[1]));
		mi_stat_writer_begin(&w, t);
		for (int i = 1; i >= 0; i--) {
			snprintf(path, sizeof path, "%.*s", (int)e[i].pl, e[i].path);
			mi_stat_writer_add(&w, path, e[i].mtime, e[i].size);
		}
		while (mi_stat_list_next(&sl, &x)) {
			snprintf(path, sizeof path, "%.*s", (int)x.pl, x.path);
			mi_stat_writer_add(&w, path, x.mtime, x.size);
		}
		CHECK_INT(w.n, sl.n);
		CHECK_INT(mi_stat_writer_end(&w), 0);
		mi_txn_abort(r);
	}
	CHECK_INT(mi_txn_commit(t), 0);
	mi_store_close(st);
}

/* The same edits to both trees: an edit, a delete, two new files (one in
 * the middle of the walk order), a file touched with its bytes unchanged. */
static void stat_edits(const char *dir, int round)
{
	char path[512];
	write_file(dir, round % 2 ? "x-y/b.c" : "xy/c.c", "int e%d_%d(void) { return %d; }\n",
		   3 + round, round);
	snprintf(path, sizeof path, "%s/%s", dir, round == 0 ? "x/a.c" : round == 1 ? "x.c" : "y.c");
	unlink(path);
	snprintf(path, sizeof path, "x/n%d.c", round);
	write_file(dir, path, "int n%d_%d(void) { return %d; }\n", 2, round);
	snprintf(path, sizeof path, "w%d.c", round);
	write_file(dir, path, "int w%d_%d(void) { return %d; }\n", 2, round);
	snprintf(path, sizeof path, "m/%04d.c", 1000 + round);
	write_file(dir, path, "int m%d_%d(void) { return %d; }\n", 2, round);
	snprintf(path, sizeof path, "%s/%s", dir, round ? "x/z/d.c" : "y.c");
	struct timespec ts[2] = {{0, UTIME_OMIT}, {1000000 + round, 0}};
	utimensat(AT_FDCWD, path, ts, 0);
	/* a touch alone in another piece of the list */
	snprintf(path, sizeof path, "%s/m/%04d.c", dir, 3000 + round);
	utimensat(AT_FDCWD, path, ts, 0);
}

/* An update compares the walk with the stat list (git's index, in effect)
 * instead of reading every file record: after edits, deletes, new files
 * and a touch it writes exactly what an update that read every record
 * writes (the other tree's list removed or spoiled before each), and the
 * list stays true to the records; a list that is missing or out of order
 * is not trusted. */
TEST(stat_list_updates_equal_record_reads)
{
	char *a = tmpdir(), *b = tmpdir(), ia[300], ib[300];
	const char *dirs[] = {"x", "x-y", "xy", "x/z"};
	mi_build_opts o = {.jobs = 2};
	mi_build_stats bs;
	mi_buf err = {0}, da = {0}, db = {0};
	char path[512];
	for (int k = 0; k < 2; k++) {
		const char *d = k ? b : a;
		write_repo(d, 24);
		for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
			snprintf(path, sizeof path, "%s/%s", d, dirs[i]);
			mkdir(path, 0777);
		}
		write_file(d, "x/a.c", "int a%d_%d(void) { return %d; }\n", 3, 0);
		write_file(d, "x.c", "int x%d_%d(void) { return %d; }\n", 3, 0);
		write_file(d, "x-y/b.c", "int b%d_%d(void) { return %d; }\n", 3, 0);
		write_file(d, "xy/c.c", "int c%d_%d(void) { return %d; }\n", 3, 0);
		write_file(d, "x/z/d.c", "int d%d_%d(void) { return %d; }\n", 3, 0);
		write_file(d, "y.c", "int y%d_%d(void) { return %d; }\n", 3, 0);
		/* Files enough for several pieces of the list. */
		snprintf(path, sizeof path, "%s/m", d);
		mkdir(path, 0777);
		for (int i = 0; i < SL_MANY; i++) {
			snprintf(path, sizeof path, "m/%04d.c", i);
			write_file(d, path, "int m%d_%d(void) { return %d; }\n", 1, i);
		}
		o.repo = d;
		CHECK_INT(mi_build(&o, &bs, &err), 0);
		CHECK(bs.fresh);
		CHECK_INT(bs.files, 30 + SL_MANY);
		mi_build_stats_release(&bs);
	}
	snprintf(ia, sizeof ia, "%s/.mcpidx", a);
	snprintf(ib, sizeof ib, "%s/.mcpidx", b);
	check_stat_list(ia);
	for (int round = 0; round < 3; round++) {
		stat_edits(a, round);
		stat_edits(b, round);
		spoil_stat_list(ib, round == 1 ? 0 : -1);
		o.repo = a;
		CHECK_INT(mi_build(&o, &bs, &err), 0);
		CHECK_INT(bs.indexed, 4);
		CHECK_INT(bs.removed, 1);
		CHECK_INT(bs.unchanged, 30 + SL_MANY + round - 3);
		mi_build_stats_release(&bs);
		o.repo = b;
		CHECK_INT(mi_build(&o, &bs, &err), 0);
		CHECK_INT(bs.indexed, 4);
		CHECK_INT(bs.removed, 1);
		mi_build_stats_release(&bs);
		check_stat_list(ia);
		check_stat_list(ib);
		mi_buf_reset(&da);
		mi_buf_reset(&db);
		dump_index(ia, &da);
		dump_index(ib, &db);
		CHECK(da.len > 10000);
		CHECK_INT(da.len, db.len);
		CHECK(da.len == db.len && !memcmp(da.buf, db.buf, da.len));
	}
	/* A no-op leaves the list as it was. */
	o.repo = a;
	CHECK_INT(mi_build(&o, &bs, &err), 0);
	CHECK_INT(bs.indexed, 0);
	CHECK_INT(bs.unchanged, 33 + SL_MANY);
	mi_build_stats_release(&bs);
	check_stat_list(ia);
	mi_buf_release(&da);
	mi_buf_release(&db);
	mi_buf_release(&err);
	rm_rf(a);
	rm_rf(b);
	free(a);
	free(b);
}

/* The zstd frames of an index's packed values (tag MI_VAL_ZSTD) in database
 * name, raw from LMDB: how many, and how many name a dictionary or start
 * with zstd's magic number (neither is stored). */
static void count_frames(const char *idx, const char *name, int *frames, int *named)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_cursor *c;
	MDB_val k, v;
	*frames = *named = 0;
	CHECK_INT(mdb_env_create(&env), 0);
	mdb_env_set_maxdbs(env, 32);
	CHECK_INT(mdb_env_open(env, idx, MDB_RDONLY, 0644), 0);
	CHECK_INT(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), 0);
	CHECK_INT(mdb_dbi_open(txn, name, 0, &dbi), 0);
	CHECK_INT(mdb_cursor_open(txn, dbi, &c), 0);
	for (int rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); !rc;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
		const uint8_t *p = v.mv_data;
		if (v.mv_size < 2 || p[0] != MI_VAL_ZSTD)
			continue;
		(*frames)++;
		/* Stored without zstd's magic number: the frame header
		 * descriptor comes first; its low two bits size the
		 * dictionary id (0: none). */
		*named += !memcmp(p + 1, "\x28\xb5\x2f\xfd", 4) || (p[1] & 3) != 0;
	}
	mdb_cursor_close(c);
	mdb_txn_abort(txn);
	mdb_env_close(env);
}

/* A fresh build of 40 files trains dictionaries; its frames do not name
 * them (the reader knows the database) nor start with zstd's magic number,
 * and every value reads back as a build without dictionaries stores it
 * (fresh_build_equals_update). */
TEST(packed_frames_name_no_dictionary)
{
	char *a = tmpdir(), ia[300];
	fresh_index(a, 40, ia, sizeof ia);
	mi_store *st;
	mi_txn *t;
	const void *v;
	size_t vl;
	CHECK_INT(mi_store_open(ia, MI_STORE_RDONLY, &st), 0);
	CHECK_INT(mi_txn_begin(st, false, &t), 0);
	CHECK_INT(mi_get(t, MI_DB_META, "zdict.syms", 10, &v, &vl), 0);
	CHECK(vl > 1024);
	CHECK_INT(mi_get(t, MI_DB_META, "zdict.chunks", 12, &v, &vl), 0);
	mi_txn_abort(t);
	mi_store_close(st);
	static const char *const dbs[] = {"syms", "chunks", "outlines"};
	for (size_t i = 0; i < sizeof dbs / sizeof dbs[0]; i++) {
		int frames, named;
		count_frames(ia, dbs[i], &frames, &named);
		if (frames < 10 || named)
			TEST_FAIL_("%s: %d frames, %d with a dictionary id or magic", dbs[i], frames,
				   named);
	}
	rm_rf(a);
	free(a);
}

/* A packed value of database name as zstd gives it, unpacked here apart
 * from the store (the magic number put back, the index's dictionary). */
static bool unzstd_apart(MDB_txn *txn, MDB_dbi meta, const char *name, const MDB_val *v,
			 mi_buf *out)
{
	char key[64];
	snprintf(key, sizeof key, "zdict.%s", name);
	MDB_val k = {strlen(key), key}, d = {0, NULL};
	mdb_get(txn, meta, &k, &d);
	uint8_t *in = malloc(v->mv_size + 3);
	memcpy(in, "\x28\xb5\x2f\xfd", 4);
	memcpy(in + 4, (const uint8_t *)v->mv_data + 1, v->mv_size - 1);
	unsigned long long n = ZSTD_getFrameContentSize(in, v->mv_size + 3);
	bool ok = n < (1u << 24);
	if (ok) {
		ZSTD_DCtx *dc = ZSTD_createDCtx();
		mi_buf_reset(out);
		mi_buf_grow(out, (size_t)n + 1);
		size_t got = ZSTD_decompress_usingDict(dc, out->buf, (size_t)n, in, v->mv_size + 3,
						       d.mv_data, d.mv_size);
		ok = !ZSTD_isError(got) && got == n;
		out->len = (size_t)n;
		ZSTD_freeDCtx(dc);
	}
	free(in);
	return ok;
}

static const struct { const char *name; int db; } packed_dbs[] = {
	{"syms", MI_DB_SYMS}, {"chunks", MI_DB_CHUNKS}, {"outlines", MI_DB_OUTLINES},
	{"src", MI_DB_SRC}, {"frefs", MI_DB_FREFS},
};

/* Reads every zstd value of the five packed databases of index ia, one
 * value of each database in turn, from each of the nt transactions in
 * turn, against zstd's own unpacking; how many values. */
static int values_match_zstd(const char *ia, mi_txn **t, int nt)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi meta;
	MDB_cursor *c[5];
	mi_buf want = {0};
	int done = 0, checked = 0;
	CHECK_INT(mdb_env_create(&env), 0);
	mdb_env_set_maxdbs(env, 32);
	CHECK_INT(mdb_env_open(env, ia, MDB_RDONLY, 0644), 0);
	CHECK_INT(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), 0);
	CHECK_INT(mdb_dbi_open(txn, "meta", 0, &meta), 0);
	for (size_t d = 0; d < 5; d++) {
		MDB_dbi dbi;
		CHECK_INT(mdb_dbi_open(txn, packed_dbs[d].name, 0, &dbi), 0);
		CHECK_INT(mdb_cursor_open(txn, dbi, &c[d]), 0);
	}
	for (int first = 1; done < 5; first = 0) {
		done = 0;
		for (size_t d = 0; d < 5; d++) {
			MDB_val k, v;
			if (mdb_cursor_get(c[d], &k, &v, first ? MDB_FIRST : MDB_NEXT)) {
				done++;
				continue;
			}
			if (v.mv_size < 2 || ((const uint8_t *)v.mv_data)[0] != MI_VAL_ZSTD)
				continue;
			if (!unzstd_apart(txn, meta, packed_dbs[d].name, &v, &want))
				TEST_FAIL_("%s: a value zstd does not unpack", packed_dbs[d].name);
			for (int i = 0; i < nt; i++) {
				const void *got;
				size_t gl;
				CHECK_INT(mi_get(t[i], packed_dbs[d].db, k.mv_data, k.mv_size, &got, &gl), 0);
				if (gl != want.len || memcmp(got, want.buf, gl))
					TEST_FAIL_("%s: value %d of store %d differs", packed_dbs[d].name,
						   checked, i);
			}
			checked++;
		}
	}
	for (size_t d = 0; d < 5; d++)
		mdb_cursor_close(c[d]);
	mdb_txn_abort(txn);
	mdb_env_close(env);
	mi_buf_release(&want);
	return checked;
}

/* Every packed value of five databases reads back as zstd unpacks it,
 * read by one thread from one store (past its first 64 values of a
 * dictionary the thread unpacks behind its own copy of it), then from
 * three other stores of the same index in turn (15 (store, database)
 * pairs take its eight copies in turn). */
TEST(unpacked_values_match_zstd)
{
	char *a = tmpdir(), ia[300];
	fresh_index(a, 120, ia, sizeof ia);
	mi_store *st[4];
	mi_txn *t[4];
	for (int i = 0; i < 4; i++) {
		CHECK_INT(mi_store_open(ia, MI_STORE_RDONLY, &st[i]), 0);
		CHECK_INT(mi_txn_begin(st[i], false, &t[i]), 0);
	}
	CHECK(values_match_zstd(ia, t, 1) > 5 * 64);
	values_match_zstd(ia, t + 1, 3);
	for (int i = 0; i < 4; i++) {
		mi_txn_abort(t[i]);
		mi_store_close(st[i]);
	}
	rm_rf(a);
	free(a);
}

/* Every definition and reference the names and refs databases hold, by
 * name and path. */
static void dump_names(const char *idx, mi_buf *out)
{
	mi_store *st;
	mi_txn *t;
	mi_cursor *c;
	const void *k, *v;
	size_t kl, vl;
	CHECK_INT(mi_store_open(idx, MI_STORE_RDONLY, &st), 0);
	CHECK_INT(mi_txn_begin(st, false, &t), 0);
	for (int refs = 0; refs < 2; refs++) {
		CHECK_INT(mi_cursor_open(t, refs ? MI_DB_REFS : MI_DB_NAMES, &c), 0);
		for (int rc = mi_cursor_seek(c, NULL, 0, &k, &kl, &v, &vl); !rc;
		     rc = mi_cursor_next(c, &k, &kl, &v, &vl)) {
			mi_byname it;
			const char *p;
			size_t pl;
			uint32_t i;
			mi_ref r;
			mi_byname_entry(t, refs, k, kl, v, vl, &it);
			if (!refs)
				while (!mi_names_next(&it, &p, &pl, &i))
					mi_buf_addf(out, "%s %.*s %u %u\n", it.name, (int)pl, p, i,
						    it.kind);
			else
				while (!mi_refs_next(&it, &p, &pl, &r))
					mi_buf_addf(out, "ref %s %.*s %u %d\n", it.name, (int)pl, p,
						    r.line, r.caller_idx);
			CHECK(!it.damaged);
			mi_byname_close(&it);
		}
		mi_cursor_close(c);
	}
	mi_txn_abort(t);
	mi_store_close(st);
}

static void write_file(const char *dir, const char *rel, const char *fmt, int n, int a)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	for (int j = 0; j < n; j++)
		fprintf(f, fmt, a, j, j);
	fclose(f);
}

/* Names are kept in blocks of many names: updates that add, edit and
 * delete files (splitting blocks, emptying them, changing their last
 * name) leave every definition a fresh build of the same tree has, and
 * lookups by name and by file find them. */
TEST(names_blocks_after_updates_equal_a_fresh_build)
{
	char *a = tmpdir(), ia[300], rel[64];
	mi_build_opts o = {.jobs = 2, .repo = a};
	mi_build_stats bs;
	mi_buf err = {0}, inc = {0}, fresh = {0};
	snprintf(ia, sizeof ia, "%s/.mcpidx", a);
	write_repo(a, 60);
	CHECK_INT(mi_build(&o, &bs, &err), 0);
	CHECK(bs.fresh);
	mi_build_stats_release(&bs);
	for (int i = 0; i < 60; i += 3) { /* delete a third, edit a third */
		snprintf(rel, sizeof rel, "src/%sf%02d.%s", i % 3 ? "" : "sub/", i,
			 i % 4 == 1 ? "py" : i % 4 == 2 ? "md" : "c");
		char path[512];
		snprintf(path, sizeof path, "%s/%s", a, rel);
		CHECK_INT(unlink(path), 0);
		snprintf(rel, sizeof rel, "src/f%02d.c", i + 1);
		if ((i + 1) % 4 != 1 && (i + 1) % 4 != 2)
			write_file(a, rel, "int gn_%d_%d(void) { return %d; }\n", 40, i + 1);
	}
	static const int grown[] = {11, 20, 23, 32, 35, 44};
	for (size_t g = 0; g < sizeof grown / sizeof *grown; g++) {
		/* a line added: most entries come back as they were */
		int i = grown[g];
		char path[512];
		snprintf(path, sizeof path, "%s/src/f%02d.c", a, i);
		FILE *f = fopen(path, "a");
		if (f) {
			fprintf(f, "int extra_%d(void) { return helper(%d); }\n", i, i);
			fclose(f);
		}
	}
	for (int i = 0; i < 12; i++) { /* new files, some names shared */
		snprintf(rel, sizeof rel, "src/new%02d.c", i);
		write_file(a, rel, "int fn_5_%d_%d(void) { return helper(1); }\nint helper(void);\n",
			   25, i % 3);
	}
	CHECK_INT(mi_build(&o, &bs, &err), 0);
	CHECK(!bs.fresh);
	mi_build_stats_release(&bs);
	dump_names(ia, &inc);
	{
		mi_store *st;
		mi_txn *t;
		CHECK_INT(mi_store_open(ia, MI_STORE_RDONLY, &st), 0);
		CHECK_INT(mi_txn_begin(st, false, &t), 0);
		CHECK(mi_names_in(t, "gn_4_39", "src/f04.c", 9));
		CHECK(!mi_names_in(t, "fn_4_3", "src/f04.c", 9));
		CHECK(!mi_names_in(t, "fn_0_3", "src/sub/f00.c", 13));
		CHECK(mi_names_in(t, "fn_5_0_24", "src/new00.c", 11));
		CHECK(mi_names_in(t, "fn_5_0_24", "src/new09.c", 11));
		CHECK(!mi_names_in(t, "fn_5_0_24", "src/new01.c", 11));
		mi_txn_abort(t);
		mi_store_close(st);
	}
	o.force = true;
	CHECK_INT(mi_build(&o, &bs, &err), 0);
	CHECK(bs.fresh);
	mi_build_stats_release(&bs);
	dump_names(ia, &fresh);
	CHECK(inc.len > 20000);
	CHECK_CONTAINS(mi_buf_str(&inc), "helper src/new11.c");
	CHECK_CONTAINS(mi_buf_str(&inc), "ref helper src/new11.c 25");
	CHECK(!strstr(mi_buf_str(&inc), "ref helper_0 src/sub/f00.c"));
	CHECK_CONTAINS(mi_buf_str(&inc), "ref helper_0 src/f08.c");
	CHECK_CONTAINS(mi_buf_str(&inc), "extra_11 src/f11.c");
	CHECK(!strstr(mi_buf_str(&inc), "fn_0_3 "));
	CHECK_STR(mi_buf_str(&inc), mi_buf_str(&fresh));
	mi_buf_release(&inc);
	mi_buf_release(&fresh);
	mi_buf_release(&err);
	rm_rf(a);
	free(a);
}

/* Sources are stored compressed with a checksum: they read back the same,
 * and a flipped byte in a stored one is refused, not served. */
TEST(packed_values)
{
	char *dir = tmpdir(), data[300];
	snprintf(data, sizeof data, "%s/data.mdb", dir);
	mi_store *st;
	mi_txn *t;
	const void *v;
	size_t vl;
	mi_buf src = {0}, stored = {0};
	for (int i = 0; i < 60; i++)
		mi_buf_addf(&src, "int f%d(void) { return %d; }\n", i, i * 7);
	CHECK(src.len <= MI_SRC_FRAME);
	CHECK(mi_db_packed(MI_DB_SRC) && mi_db_packed(MI_DB_NAMES) && mi_db_packed(MI_DB_REFS) &&
	      !mi_db_packed(MI_DB_TERMS));
	CHECK_INT(mi_store_open(dir, MI_STORE_CREATE, &st), 0);
	CHECK_INT(mi_value_pack(st, MI_DB_SRC, src.buf, src.len, &stored), 0);
	CHECK(stored.len < src.len / 3 && stored.buf[0] == MI_VAL_ZSTD);
	CHECK_INT(mi_txn_begin(st, true, &t), 0);
	CHECK_INT(mi_meta_put_int(t, "version", MI_FORMAT_VERSION), 0);
	CHECK_INT(mi_put(t, MI_DB_FILES, "a.c", 3, "x", 1), 0);
	CHECK_INT(mi_put(t, MI_DB_SRC, "a.c", 3, src.buf, src.len), 0);
	CHECK_INT(mi_put(t, MI_DB_SRC, "b.c", 3, "tiny", 4), 0);
	CHECK_INT(mi_txn_commit(t), 0);
	mi_store_close(st);
	CHECK_INT(mi_store_open(dir, MI_STORE_RDONLY, &st), 0);
	CHECK_INT(mi_txn_begin(st, false, &t), 0);
	CHECK_INT(mi_get(t, MI_DB_SRC, "a.c", 3, &v, &vl), 0);
	CHECK(vl == src.len && !memcmp(v, src.buf, vl));
	CHECK_INT(mi_get(t, MI_DB_SRC, "b.c", 3, &v, &vl), 0);
	CHECK(vl == 4 && !memcmp(v, "tiny", 4));
	mi_txn_abort(t);
	mi_store_close(st);
	/* Flip one byte inside the stored frame (found by its bytes). */
	char *file;
	size_t flen;
	CHECK_INT(mi_read_file(data, &file, &flen), 0);
	char *at = memmem(file, flen, stored.buf + 8, 16);
	CHECK(at != NULL);
	if (at) {
		at[8] ^= 0x20;
		FILE *f = fopen(data, "r+b");
		fseek(f, at + 8 - file, SEEK_SET);
		fputc(at[8], f);
		fclose(f);
	}
	free(file);
	CHECK_INT(mi_store_open(dir, MI_STORE_RDONLY, &st), 0);
	CHECK_INT(mi_txn_begin(st, false, &t), 0);
	CHECK_INT(mi_get(t, MI_DB_SRC, "a.c", 3, &v, &vl), MI_ERR_DAMAGED);
	mi_txn_abort(t);
	mi_store_close(st);
	mi_buf_release(&src);
	mi_buf_release(&stored);
	rm_rf(dir);
	free(dir);
}

/* Checks that span [off, off + want) of a.c reads as src does. */
static void check_span(mi_txn *t, const mi_buf *src, size_t off, size_t want)
{
	const char *b;
	size_t n, total;
	CHECK_INT(mi_src_span(t, "a.c", 3, off, want, &b, &n, &total), 0);
	CHECK_INT(total, src->len);
	size_t need = off >= src->len ? 0 : src->len - off < want ? src->len - off : want;
	if (n < need || (off < src->len && n > src->len - off) ||
	    (need && memcmp(b, src->buf + off, n)))
		TEST_FAIL_("span %zu+%zu: %zu bytes that differ from the source", off, want, n);
}

/* Source i of framed_source_tails: lines of varied words, i * 700 + 2500
 * bytes, which packs to a value of about a third of that. */
static void tail_source(int i, mi_buf *out)
{
	uint32_t x = 77u + (uint32_t)i;
	mi_buf_reset(out);
	while (out->len < (size_t)i * 700 + 2500) {
		x = x * 1103515245u + 12345u;
		mi_buf_addf(out, "static int f%u_%d(int v) { return v * %u + g%u(v); }\n",
			    (x >> 8) % 5000, i, (x >> 4) % 97, (x >> 12) % 300);
	}
}

/* The last frames of a source whose value would end in a half-empty
 * overflow page are kept in a tail entry: every source reads back whole
 * and by spans, an update to a source without a tail removes the old one,
 * a deletion removes both, and cursors see one entry per source. */
TEST(framed_source_tails)
{
	char *dir = tmpdir(), path[32];
	mi_store *st;
	mi_txn *t;
	const void *v;
	const char *b;
	size_t vl, n, total;
	mi_buf src = {0};
	enum { NSRC = 40 };
	CHECK_INT(mi_store_open(dir, MI_STORE_CREATE, &st), 0);
	CHECK_INT(mi_txn_begin(st, true, &t), 0);
	for (int i = 0; i < NSRC; i++) {
		tail_source(i, &src);
		snprintf(path, sizeof path, "s/%02d.c", i);
		CHECK_INT(mi_put(t, MI_DB_SRC, path, strlen(path), src.buf, src.len), 0);
	}
	CHECK_INT(mi_txn_commit(t), 0);
	CHECK_INT(mi_txn_begin(st, false, &t), 0);
	uint64_t entries = mi_db_count(t, MI_DB_SRC);
	CHECK(entries > NSRC + 5); /* tails kept apart */
	for (int i = 0; i < NSRC; i++) {
		tail_source(i, &src);
		snprintf(path, sizeof path, "s/%02d.c", i);
		CHECK_INT(mi_get(t, MI_DB_SRC, path, strlen(path), &v, &vl), 0);
		CHECK(vl == src.len && !memcmp(v, src.buf, vl));
		for (size_t off = 0; off < src.len; off += MI_SRC_FRAME / 2 + 7) {
			CHECK_INT(mi_src_span(t, path, strlen(path), off, 300, &b, &n, &total), 0);
			CHECK(total == src.len && n >= (src.len - off < 300 ? src.len - off : 300) &&
			      !memcmp(b, src.buf + off, n < 300 ? n : 300));
		}
		char *buf = calloc(1, src.len);
		size_t gf, gt;
		CHECK_INT(mi_src_fill(t, path, strlen(path), src.len - 10, src.len, buf, src.len,
				      &gf, &gt), 0);
		CHECK(gt == src.len && !memcmp(buf + gf, src.buf + gf, gt - gf));
		free(buf);
	}
	mi_cursor *c;
	const void *k;
	size_t kl, seen = 0;
	CHECK_INT(mi_cursor_open(t, MI_DB_SRC, &c), 0);
	for (int rc = mi_cursor_seek(c, NULL, 0, &k, &kl, &v, &vl); !rc;
	     rc = mi_cursor_next(c, &k, &kl, &v, &vl), seen++) {
		snprintf(path, sizeof path, "s/%02zu.c", seen);
		CHECK(kl == strlen(path) && !memcmp(k, path, kl));
		tail_source((int)seen, &src);
		CHECK(vl == src.len && !memcmp(v, src.buf, vl));
	}
	CHECK_INT(seen, NSRC);
	mi_cursor_close(c);
	mi_txn_abort(t);
	/* Smaller sources in place (no tail), then half deleted. */
	CHECK_INT(mi_txn_begin(st, true, &t), 0);
	for (int i = 0; i < NSRC; i++) {
		snprintf(path, sizeof path, "s/%02d.c", i);
		CHECK_INT(mi_put(t, MI_DB_SRC, path, strlen(path), "int x;\n", 7), 0);
	}
	CHECK_INT(mi_db_count(t, MI_DB_SRC), NSRC);
	for (int i = 0; i < NSRC; i += 2) {
		tail_source(i, &src);
		snprintf(path, sizeof path, "s/%02d.c", i);
		CHECK_INT(mi_put(t, MI_DB_SRC, path, strlen(path), src.buf, src.len), 0);
	}
	CHECK(mi_db_count(t, MI_DB_SRC) > NSRC + 2);
	for (int i = 0; i < NSRC; i += 2) {
		snprintf(path, sizeof path, "s/%02d.c", i);
		CHECK_INT(mi_del(t, MI_DB_SRC, path, strlen(path)), 0);
	}
	CHECK_INT(mi_db_count(t, MI_DB_SRC), NSRC / 2);
	CHECK_INT(mi_get(t, MI_DB_SRC, "s/01.c", 6, &v, &vl), 0);
	CHECK(vl == 7 && !memcmp(v, "int x;\n", 7));
	CHECK_INT(mi_get(t, MI_DB_SRC, "s/02.c", 6, &v, &vl), MI_ERR_NOTFOUND);
	CHECK_INT(mi_txn_commit(t), 0);
	mi_store_close(st);
	mi_buf_release(&src);
	rm_rf(dir);
	free(dir);
}

/* A source over MI_SRC_FRAME bytes is stored in frames: it reads back
 * whole, any span of it reads back from the frames that hold it (a frame
 * that does not compress is kept as it is), a small source is one piece,
 * and a flipped byte in one frame is refused when that frame is read while
 * the others still read. */
TEST(framed_sources)
{
	char *dir = tmpdir(), data[300];
	snprintf(data, sizeof data, "%s/data.mdb", dir);
	mi_store *st;
	mi_txn *t;
	const void *v;
	const char *b;
	size_t vl, n, total;
	mi_buf src = {0}, stored = {0};
	for (int i = 0; i < 900; i++)
		mi_buf_addf(&src, "int f%d(void) { return %d; }\n", i, i * 7);
	/* the third frame is random bytes: kept raw */
	uint32_t x = 12345;
	size_t at3 = 2 * MI_SRC_FRAME;
	mi_buf noise = {0};
	for (size_t i = 0; i < MI_SRC_FRAME; i++) {
		x = x * 1103515245u + 12345u;
		mi_buf_addc(&noise, (char)(x >> 16));
	}
	memcpy(src.buf + at3, noise.buf, MI_SRC_FRAME);
	CHECK(src.len > 3 * MI_SRC_FRAME && src.len % MI_SRC_FRAME);
	CHECK_INT(mi_store_open(dir, MI_STORE_CREATE, &st), 0);
	CHECK_INT(mi_value_pack(st, MI_DB_SRC, src.buf, src.len, &stored), 0);
	CHECK(stored.buf[0] == MI_VAL_FRAMES && stored.len < src.len / 2);
	CHECK_INT(mi_txn_begin(st, true, &t), 0);
	CHECK_INT(mi_meta_put_int(t, "version", MI_FORMAT_VERSION), 0);
	CHECK_INT(mi_put(t, MI_DB_FILES, "a.c", 3, "x", 1), 0);
	CHECK_INT(mi_put(t, MI_DB_SRC, "a.c", 3, src.buf, src.len), 0);
	CHECK_INT(mi_put(t, MI_DB_SRC, "b.c", 3, "int small(void) { return 1; } /* small */", 41), 0);
	CHECK_INT(mi_txn_commit(t), 0);
	mi_store_close(st);
	CHECK_INT(mi_store_open(dir, MI_STORE_RDONLY, &st), 0);
	CHECK_INT(mi_txn_begin(st, false, &t), 0);
	CHECK_INT(mi_get(t, MI_DB_SRC, "a.c", 3, &v, &vl), 0);
	CHECK(vl == src.len && !memcmp(v, src.buf, vl));
	static const size_t offs[] = {0, 1, MI_SRC_FRAME - 1, MI_SRC_FRAME, MI_SRC_FRAME + 1,
				      2 * MI_SRC_FRAME + 77, 3 * MI_SRC_FRAME - 3};
	static const size_t wants[] = {0, 1, 100, MI_SRC_FRAME, 3 * MI_SRC_FRAME};
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		for (size_t k = 0; k < sizeof(wants) / sizeof(wants[0]); k++)
			check_span(t, &src, offs[i], wants[k]);
	check_span(t, &src, src.len - 1, 10);
	check_span(t, &src, src.len, 10);
	check_span(t, &src, src.len + 5, 10);
	CHECK_INT(mi_src_span(t, "b.c", 3, 4, 5, &b, &n, &total), 0);
	CHECK(total == 41 && n == 37 && !memcmp(b, "small", 5));
	CHECK_INT(mi_src_span(t, "c.c", 3, 0, 5, &b, &n, &total), MI_ERR_NOTFOUND);
	mi_txn_abort(t);
	mi_store_close(st);
	/* Flip one byte inside the second frame (found by its bytes: the
	 * frames follow the directory of their lengths). */
	const uint8_t *p = (const uint8_t *)stored.buf + 1, *end = p + stored.len - 1;
	uint64_t len = 0, fs = 1, l0 = 0, l1 = 0;
	CHECK(mi_varint_get(&p, end, &len) && mi_varint_get(&p, end, &fs) && fs == MI_SRC_FRAME);
	CHECK(mi_varint_get(&p, end, &l0) && mi_varint_get(&p, end, &l1) && !(l0 & 1) && !(l1 & 1));
	uint64_t skip;
	for (uint64_t f = 2; f < (len + fs - 1) / fs; f++)
		CHECK(mi_varint_get(&p, end, &skip));
	const char *frame1 = (const char *)p + (l0 >> 1);
	char *file;
	size_t flen;
	CHECK_INT(mi_read_file(data, &file, &flen), 0);
	char *at = memmem(file, flen, frame1, 16);
	CHECK(at != NULL && (l1 >> 1) > 24);
	if (at) {
		FILE *f = fopen(data, "r+b");
		fseek(f, at + 20 - file, SEEK_SET);
		fputc(at[20] ^ 0x20, f);
		fclose(f);
	}
	free(file);
	CHECK_INT(mi_store_open(dir, MI_STORE_RDONLY, &st), 0);
	CHECK_INT(mi_txn_begin(st, false, &t), 0);
	CHECK_INT(mi_get(t, MI_DB_SRC, "a.c", 3, &v, &vl), MI_ERR_DAMAGED);
	CHECK_INT(mi_src_span(t, "a.c", 3, MI_SRC_FRAME + 10, 10, &b, &n, &total), MI_ERR_DAMAGED);
	check_span(t, &src, 10, 100);
	check_span(t, &src, 2 * MI_SRC_FRAME + 10, 100);
	mi_txn_abort(t);
	mi_store_close(st);
	mi_buf_release(&src);
	mi_buf_release(&noise);
	mi_buf_release(&stored);
	rm_rf(dir);
	free(dir);
}

/* A file's references are one packed value: they read back in order with
 * their sequence numbers; a path without any is an empty list; a record
 * length past the value's end is MI_ERR_CORRUPT, not a read past it. */
TEST(file_references)
{
	char *dir = tmpdir();
	mi_store *st;
	mi_txn *t;
	mi_buf v = {0};
	mi_frefs fr;
	const void *rec;
	size_t rl;
	uint32_t seq = 99;
	mi_parsed owner;
	mi_parsed_init(&owner);
	char name[32];
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof name, "callee_%d", i % 17);
		mi_ref r = {.callee = name, .line = (uint32_t)i + 1, .caller_idx = i % 5 - 1,
			    .kind = (uint8_t)(i % 5), .line_byte = (uint32_t)i * 40};
		mi_frefs_add(&v, &r);
	}
	CHECK(mi_db_packed(MI_DB_FREFS));
	CHECK_INT(mi_store_open(dir, MI_STORE_CREATE, &st), 0);
	CHECK_INT(mi_txn_begin(st, true, &t), 0);
	CHECK_INT(mi_meta_put_int(t, "version", MI_FORMAT_VERSION), 0);
	CHECK_INT(mi_put(t, MI_DB_FREFS, "a.c", 3, v.buf, v.len), 0);
	CHECK_INT(mi_put(t, MI_DB_FREFS, "bad.c", 5, "\005ab", 3), 0);
	CHECK_INT(mi_txn_commit(t), 0);
	CHECK_INT(mi_txn_begin(st, false, &t), 0);
	CHECK_INT(mi_frefs_open(t, "a.c", 3, &fr), 0);
	int n = 0, same = 0;
	while (!mi_frefs_next(&fr, &rec, &rl, &seq)) {
		mi_ref r;
		snprintf(name, sizeof name, "callee_%d", n % 17);
		if (!mi_ref_decode(rec, rl, &r, &owner) && seq == (uint32_t)n && !strcmp(r.callee, name) &&
		    r.line == (uint32_t)n + 1 && r.caller_idx == n % 5 - 1 && r.kind == n % 5 &&
		    r.line_byte == (uint32_t)n * 40)
			same++;
		n++;
	}
	CHECK_INT(n, 300);
	CHECK_INT(same, 300);
	CHECK_INT(mi_frefs_open(t, "none.c", 6, &fr), 0);
	CHECK_INT(mi_frefs_next(&fr, &rec, &rl, NULL), MI_ERR_NOTFOUND);
	CHECK_INT(mi_frefs_open(t, "bad.c", 5, &fr), 0);
	CHECK_INT(mi_frefs_next(&fr, &rec, &rl, NULL), MI_ERR_CORRUPT);
	CHECK_INT(mi_frefs_next(&fr, &rec, &rl, NULL), MI_ERR_NOTFOUND);
	mi_txn_abort(t);
	mi_store_close(st);
	mi_parsed_release(&owner);
	mi_buf_release(&v);
	rm_rf(dir);
	free(dir);
}

int main(void)
{
	RUN(read_of_a_cut_page_is_survived);
	RUN(fresh_store_is_published_by_rename);
	RUN(failed_symbol_scan_holds_nothing);
	RUN(damaged_file_is_moved_aside);
	RUN(linked_index_folder_is_not_opened);
	RUN(grown_file_is_trimmed);
	RUN(fresh_build_equals_update);
	RUN(stat_list_updates_equal_record_reads);
	RUN(packed_frames_name_no_dictionary);
	RUN(unpacked_values_match_zstd);
	RUN(names_blocks_after_updates_equal_a_fresh_build);
	RUN(packed_values);
	RUN(framed_sources);
	RUN(framed_source_tails);
	RUN(file_references);
	return test_done();
}
