/*
 * test_side.c - the side store: where it lives, records round-trip, keyed
 * replace and delete, prefix scans, the append-only log, damaged values,
 * version checks, map growth, writers in several processes at once and a
 * writer killed in the middle of a transaction.
 */
#include "test.h"
#include "../../format/side.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/mcpidx-side.XXXXXX";
	return mkdtemp(tmpl) ? mi_xstrdup(tmpl) : NULL;
}

static void rmtree(const char *dir)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("warning: could not remove %s\n", dir);
}

static mi_side_rec rec(const char *path, const char *kind, const char *name,
		       const char *text)
{
	mi_side_rec r;
	memset(&r, 0, sizeof r);
	r.path = path;
	r.kind = kind;
	r.name = name;
	r.corr = "ch-test";
	r.text = text;
	r.text_len = strlen(text);
	return r;
}

typedef struct put_ctx {
	const mi_side_rec *r; /* record to store */
	int db;               /* where */
	uint64_t seq;         /* append: the number it got */
} put_ctx;

static int do_put(mi_side_txn *t, void *ctx)
{
	put_ctx *c = ctx;
	return mi_side_put(t, c->db, c->r);
}

static int do_append(mi_side_txn *t, void *ctx)
{
	put_ctx *c = ctx;
	return mi_side_append(t, c->db, c->r, &c->seq);
}

TEST(locate)
{
	char *d = tmpdir(), path[300];
	char *s;
	FILE *f;
	unsetenv("MCPIDX_SIDE");
	s = mi_side_locate(d, NULL);
	snprintf(path, sizeof path, "%s/side", d);
	CHECK_STR(s, path);
	free(s);
	snprintf(path, sizeof path, "%s/pack.idx", d);
	f = fopen(path, "w");
	fclose(f);
	s = mi_side_locate(path, "");
	snprintf(path, sizeof path, "%s/pack.idx.side", d);
	CHECK_STR(s, path);
	free(s);
	s = mi_side_locate(path, "/elsewhere");
	CHECK_STR(s, "/elsewhere");
	free(s);
	setenv("MCPIDX_SIDE", "/from-env", 1);
	s = mi_side_locate(d, NULL);
	CHECK_STR(s, "/from-env");
	free(s);
	unsetenv("MCPIDX_SIDE");
	CHECK(mi_side_locate("/no/such/index", NULL) == NULL);
	CHECK_INT(mi_side_db_find("artifacts"), MI_SIDE_ARTIFACTS);
	CHECK_STR(mi_side_db_name(MI_SIDE_LOG), "log");
	CHECK_INT(mi_side_db_find("nope"), -1);
	rmtree(d);
	free(d);
}

typedef struct collect {
	mi_buf out;  /* "path|kind|name|text;" per record */
	int n;       /* records seen */
	int stop_at; /* stop after this many (0: never) */
	long first;  /* count_fn: num of the first record */
} collect;

static int collect_fn(void *ctx, const mi_side_rec *r)
{
	collect *c = ctx;
	mi_buf_addf(&c->out, "%s|%s|%s|%s;", r->path, r->kind, r->name, r->text);
	c->n++;
	return c->stop_at && c->n >= c->stop_at ? 1 : 0;
}

static int count_fn(void *ctx, const mi_side_rec *r)
{
	collect *c = ctx;
	if (!c->n)
		c->first = (long)r->num;
	c->n++;
	return 0;
}

TEST(records)
{
	char *d = tmpdir(), dir[300];
	mi_side *s;
	mi_side_txn *t;
	mi_side_rec a = rec("src/a.c", "summarize", "", "parses the config");
	mi_side_rec b = rec("src/a.c", "annotate", "main", "entry point");
	mi_side_rec c = rec("src/b/c.c", "summarize", "", "other");
	mi_side_rec got;
	put_ctx pc = {&a, MI_SIDE_ARTIFACTS, 0};
	collect col = {0};

	snprintf(dir, sizeof dir, "%s/idx/side", d);
	CHECK_INT(mi_side_open(dir, 0, &s), MI_ERR_NOINDEX);
	CHECK_INT(mi_side_open(dir, MI_SIDE_CREATE, &s), 0);
	CHECK_STR(mi_side_dir(s), dir);
	mi_hash128("x", 1, a.hash);
	a.has_hash = true;
	a.num = -7;
	CHECK_INT(mi_side_write(s, do_put, &pc), 0);
	pc.r = &b;
	CHECK_INT(mi_side_write(s, do_put, &pc), 0);
	pc.r = &c;
	CHECK_INT(mi_side_write(s, do_put, &pc), 0);
	/* The same key replaces. */
	b.text = "the entry point";
	b.text_len = strlen(b.text);
	pc.r = &b;
	CHECK_INT(mi_side_write(s, do_put, &pc), 0);

	CHECK_INT(mi_side_begin(s, false, &t), 0);
	CHECK_INT(mi_side_get(t, MI_SIDE_ARTIFACTS, "src/a.c", "summarize", "", &got), 0);
	CHECK_STR(got.text, "parses the config");
	CHECK_STR(got.corr, "ch-test");
	CHECK(got.has_hash && memcmp(got.hash, a.hash, 16) == 0);
	CHECK_INT(got.num, -7);
	CHECK(got.created_ms > 1600000000000LL);
	CHECK_INT(mi_side_get(t, MI_SIDE_ARTIFACTS, "src/a.c", "summarize", "x", &got),
		  MI_ERR_NOTFOUND);
	CHECK_INT(mi_side_get(t, MI_SIDE_DIAGS, "src/a.c", "summarize", "", &got),
		  MI_ERR_NOTFOUND);
	CHECK_INT(mi_side_count(t, MI_SIDE_ARTIFACTS), 3);
	CHECK_INT(mi_side_gen(t, MI_SIDE_ARTIFACTS), 4);
	CHECK_INT(mi_side_gen(t, MI_SIDE_DIAGS), 0);
	/* One file: "path\0". */
	CHECK_INT(mi_side_scan(t, MI_SIDE_ARTIFACTS, "src/a.c", 8, collect_fn, &col), 0);
	CHECK_STR(col.out.buf, "src/a.c|annotate|main|the entry point;"
		  "src/a.c|summarize||parses the config;");
	mi_buf_reset(&col.out);
	/* A directory. */
	CHECK_INT(mi_side_scan(t, MI_SIDE_ARTIFACTS, "src/b/", 6, collect_fn, &col), 0);
	CHECK_STR(col.out.buf, "src/b/c.c|summarize||other;");
	mi_buf_reset(&col.out);
	col.n = 0;
	col.stop_at = 2;
	CHECK_INT(mi_side_scan(t, MI_SIDE_ARTIFACTS, "", 0, collect_fn, &col), 0);
	CHECK_INT(col.n, 2);
	CHECK_INT(mi_side_scan(t, MI_SIDE__COUNT, "", 0, collect_fn, &col), MI_ERR_ARG);
	mi_side_abort(t);

	CHECK_INT(mi_side_begin(s, true, &t), 0);
	CHECK_INT(mi_side_del(t, MI_SIDE_ARTIFACTS, "src/a.c", "annotate", "main"), 0);
	CHECK_INT(mi_side_del(t, MI_SIDE_ARTIFACTS, "src/a.c", "annotate", "main"),
		  MI_ERR_NOTFOUND);
	CHECK_INT(mi_side_commit(t), 0);
	mi_side_close(s);

	/* Reopened: what was committed is there. */
	CHECK_INT(mi_side_open(dir, 0, &s), 0);
	CHECK_INT(mi_side_begin(s, false, &t), 0);
	CHECK_INT(mi_side_count(t, MI_SIDE_ARTIFACTS), 2);
	CHECK_INT(mi_side_gen(t, MI_SIDE_ARTIFACTS), 5);
	mi_side_abort(t);
	mi_side_close(s);
	mi_buf_release(&col.out);
	rmtree(d);
	free(d);
}

/* MI_SIDE_LOG_KEEP + 2 appends in one transaction. */
static int do_append_many(mi_side_txn *t, void *ctx)
{
	put_ctx *c = ctx;
	int rc = 0;
	mi_side_rec x = *c->r;
	for (int i = 0; i < MI_SIDE_LOG_KEEP + 2 && !rc; i++) {
		x.num = 3 + i + 1; /* its seq: three are in before */
		rc = mi_side_append(t, c->db, &x, &c->seq);
	}
	return rc;
}

TEST(log_and_limits)
{
	char *d = tmpdir();
	mi_side *s;
	mi_side_txn *t;
	mi_side_rec r = rec("read_file", "call", "", "{\"ok\":true}");
	put_ctx pc = {&r, MI_SIDE_LOG, 0};
	collect col = {0};
	char longpath[700];

	CHECK_INT(mi_side_open(d, MI_SIDE_CREATE, &s), 0);
	for (int i = 1; i <= 3; i++) {
		CHECK_INT(mi_side_write(s, do_append, &pc), 0);
		CHECK_INT(pc.seq, i);
	}
	CHECK_INT(mi_side_begin(s, false, &t), 0);
	CHECK_INT(mi_side_scan(t, MI_SIDE_LOG, "", 0, collect_fn, &col), 0);
	CHECK_INT(col.n, 3);
	mi_side_abort(t);

	/* The log keeps its last MI_SIDE_LOG_KEEP records: the oldest go. */
	CHECK_INT(mi_side_write(s, do_append_many, &pc), 0);
	CHECK_INT(pc.seq, 3 + MI_SIDE_LOG_KEEP + 2);
	col.n = 0;
	CHECK_INT(mi_side_begin(s, false, &t), 0);
	CHECK_INT(mi_side_scan(t, MI_SIDE_LOG, "", 0, count_fn, &col), 0);
	mi_side_abort(t);
	CHECK_INT(col.n, MI_SIDE_LOG_KEEP);
	CHECK_INT(col.first, 3 + 2 + 1); /* seq 1..5 dropped */

	memset(longpath, 'a', sizeof longpath - 1);
	longpath[sizeof longpath - 1] = 0;
	r.path = longpath;
	pc.db = MI_SIDE_ARTIFACTS;
	CHECK_INT(mi_side_write(s, do_put, &pc), MI_ERR_TOOBIG);
	pc.db = MI_SIDE_META; /* not a record db */
	r.path = "x";
	CHECK_INT(mi_side_write(s, do_put, &pc), MI_ERR_ARG);
	mi_side_close(s);
	mi_buf_release(&col.out);
	rmtree(d);
	free(d);
}

TEST(damaged_values)
{
	mi_side_rec r = rec("p", "k", "n", "text with \0 nul"), got;
	mi_buf b = {0};
	char *mem;
	r.text_len = 15;
	mi_side_rec_encode(&r, &b);
	CHECK_INT(mi_side_rec_decode(b.buf, b.len, &got, &mem), 0);
	CHECK_INT(got.text_len, 15);
	CHECK(memcmp(got.text, "text with \0 nul", 15) == 0);
	CHECK(!got.has_hash);
	free(mem);
	/* Every truncation and every single-byte change decodes or fails
	 * cleanly (ASan watches). */
	for (size_t n = 0; n < b.len; n++) {
		int rc = mi_side_rec_decode(b.buf, n, &got, &mem);
		CHECK(rc == MI_ERR_CORRUPT && mem == NULL);
	}
	for (size_t i = 0; i < b.len; i++)
		for (int v = 0; v < 256; v += 17) {
			char save = b.buf[i];
			b.buf[i] = (char)v;
			if (mi_side_rec_decode(b.buf, b.len, &got, &mem) == 0)
				free(mem);
			b.buf[i] = save;
		}
	CHECK_INT(mi_side_rec_decode("\x93\x01\x02\x03", 4, &got, &mem), MI_ERR_CORRUPT);
	mi_buf_release(&b);
}

TEST(version_and_place)
{
	char *d = tmpdir(), path[300];
	mi_side *s;
	FILE *f;
	CHECK_INT(mi_side_open(d, MI_SIDE_CREATE, &s), 0);
	mi_side_close(s);
	{ /* a store written by a later layout */
		mi_store *st;
		mi_txn *t;
		const char *names[] = {"meta"};
		CHECK_INT(mi_store_open_dbs(d, 0, names, 1, &st), 0);
		CHECK_INT(mi_txn_begin(st, true, &t), 0);
		CHECK_INT(mi_meta_put_int(t, "version", 99), 0);
		CHECK_INT(mi_txn_commit(t), 0);
		mi_store_close(st);
	}
	CHECK_INT(mi_side_open(d, 0, &s), MI_ERR_VERSION);
	/* A file where the directory should be. */
	snprintf(path, sizeof path, "%s/file", d);
	f = fopen(path, "w");
	fclose(f);
	CHECK_INT(mi_side_open(path, MI_SIDE_CREATE, &s), ENOTDIR);
	/* Not writable: the error says so (root bypasses permissions). */
	if (geteuid() != 0) {
		snprintf(path, sizeof path, "%s/ro", d);
		mkdir(path, 0555);
		snprintf(path, sizeof path, "%s/ro/side", d);
		CHECK_INT(mi_side_open(path, MI_SIDE_CREATE, &s), EACCES);
	}
	rmtree(d);
	free(d);
}

TEST(map_grows)
{
	char *d = tmpdir(), name[32], text[2048];
	mi_side *s;
	mi_side_txn *t;
	mi_side_rec r;
	put_ctx pc = {&r, MI_SIDE_ARTIFACTS, 0};
	memset(text, 'x', sizeof text - 1);
	text[sizeof text - 1] = 0;
	setenv("MCPIDX_INITIAL_MAP", "131072", 1);
	CHECK_INT(mi_side_open(d, MI_SIDE_CREATE, &s), 0);
	unsetenv("MCPIDX_INITIAL_MAP");
	for (int i = 0; i < 400; i++) {
		snprintf(name, sizeof name, "f%d", i);
		r = rec("src/big.c", "annotate", name, text);
		CHECK_INT(mi_side_write(s, do_put, &pc), 0);
	}
	CHECK_INT(mi_side_begin(s, false, &t), 0);
	CHECK_INT(mi_side_count(t, MI_SIDE_ARTIFACTS), 400);
	mi_side_abort(t);
	mi_side_close(s);
	rmtree(d);
	free(d);
}

/* Writers in NPROC processes at once, each storing NPUT records and log
 * entries: every one of them is there afterwards. */
#define NPROC 4
#define NPUT 50
TEST(concurrent_writers)
{
	char *d = tmpdir();
	pid_t pids[NPROC];
	mi_side *s;
	mi_side_txn *t;
	CHECK_INT(mi_side_open(d, MI_SIDE_CREATE, &s), 0);
	mi_side_close(s);
	for (int p = 0; p < NPROC; p++) {
		pids[p] = fork();
		if (pids[p] == 0) {
			char name[32];
			int bad = 0;
			if (mi_side_open(d, MI_SIDE_CREATE, &s))
				_exit(3);
			for (int i = 0; i < NPUT; i++) {
				mi_side_rec r;
				put_ctx pc = {&r, MI_SIDE_ARTIFACTS, 0};
				snprintf(name, sizeof name, "w%d-%d", p, i);
				r = rec("src/shared.c", "annotate", name, name);
				bad |= mi_side_write(s, do_put, &pc);
				pc.db = MI_SIDE_LOG;
				bad |= mi_side_write(s, do_append, &pc);
			}
			mi_side_close(s);
			_exit(bad ? 4 : 0);
		}
	}
	for (int p = 0; p < NPROC; p++) {
		int st = -1;
		waitpid(pids[p], &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	CHECK_INT(mi_side_open(d, 0, &s), 0);
	CHECK_INT(mi_side_begin(s, false, &t), 0);
	CHECK_INT(mi_side_count(t, MI_SIDE_ARTIFACTS), NPROC * NPUT);
	CHECK_INT(mi_side_count(t, MI_SIDE_LOG), NPROC * NPUT);
	mi_side_abort(t);
	mi_side_close(s);
	rmtree(d);
	free(d);
}

/* Stores records, then tells the parent it is inside the transaction and
 * waits to be killed. */
/* Threads of one process, each opening the store itself, as compile
 * tasks and tool calls do: one environment is shared (two on the same
 * files in one process deadlocked or damaged the store). */
typedef struct th_arg {
	const char *dir;
	int n, bad;
} th_arg;

static void *thread_writer(void *arg)
{
	th_arg *a = arg;
	mi_side *s;
	char name[32];
	for (int i = 0; i < NPUT; i++) {
		mi_side_rec r;
		put_ctx pc = {&r, MI_SIDE_ARTIFACTS, 0};
		if (mi_side_open(a->dir, MI_SIDE_CREATE, &s)) {
			a->bad = 1;
			return NULL;
		}
		snprintf(name, sizeof name, "t%d-%d", a->n, i);
		r = rec("src/shared.c", "annotate", name, name);
		a->bad |= mi_side_write(s, do_put, &pc);
		mi_side_close(s);
	}
	return NULL;
}

TEST(threads_share_one_environment)
{
	enum { NTH = 8 };
	char *d = tmpdir();
	pthread_t th[NTH];
	th_arg a[NTH];
	mi_side *s, *s2;
	mi_side_txn *t;
	CHECK_INT(mi_side_open(d, MI_SIDE_CREATE, &s), 0);
	CHECK_INT(mi_side_open(d, 0, &s2), 0);
	CHECK(s == s2);
	mi_side_close(s2);
	for (int i = 0; i < NTH; i++) {
		a[i] = (th_arg){d, i, 0};
		pthread_create(&th[i], NULL, thread_writer, &a[i]);
	}
	for (int i = 0; i < NTH; i++) {
		pthread_join(th[i], NULL);
		CHECK_INT(a[i].bad, 0);
	}
	CHECK_INT(mi_side_begin(s, false, &t), 0);
	CHECK_INT(mi_side_count(t, MI_SIDE_ARTIFACTS), NTH * NPUT);
	mi_side_abort(t);
	mi_side_close(s);
	rmtree(d);
	free(d);
}

/* A side store, or its data.mdb or lock.mdb, that is a link is refused:
 * nothing is written where it points. */
TEST(links_are_refused)
{
	char *d = tmpdir(), side[512], victim[512], p[600];
	mi_side *s;
	struct stat sb;
	FILE *f;
	snprintf(victim, sizeof victim, "%s/victim.txt", d);
	f = fopen(victim, "w");
	fputs("IMPORTANT DATA\n", f);
	fclose(f);
	snprintf(side, sizeof side, "%s/side", d);
	CHECK_INT(mkdir(side, 0777), 0);
	snprintf(p, sizeof p, "%s/lock.mdb", side);
	CHECK_INT(symlink(victim, p), 0);
	CHECK_INT(mi_side_open(side, MI_SIDE_CREATE, &s), MI_ERR_LINK);
	CHECK_INT(stat(victim, &sb), 0);
	CHECK_INT((int)sb.st_size, 15);
	unlink(p);
	snprintf(p, sizeof p, "%s/data.mdb", side);
	CHECK_INT(symlink("nowhere", p), 0);
	CHECK_INT(mi_side_open(side, MI_SIDE_CREATE, &s), MI_ERR_LINK);
	unlink(p);
	rmdir(side);
	CHECK_INT(symlink(d, side), 0);
	CHECK_INT(mi_side_open(side, MI_SIDE_CREATE, &s), MI_ERR_LINK);
	snprintf(p, sizeof p, "%s/data.mdb", d);
	CHECK(stat(p, &sb) != 0);
	unlink(side);
	CHECK_INT(mi_side_open(side, MI_SIDE_CREATE, &s), 0);
	mi_side_close(s);
	rmtree(d);
	free(d);
}

static int write_then_hang(mi_side_txn *t, void *ctx)
{
	int fd = *(int *)ctx;
	char name[32];
	for (int i = 0; i < 200; i++) {
		mi_side_rec r;
		snprintf(name, sizeof name, "torn%d", i);
		r = rec("src/a.c", "annotate", name, "never committed");
		if (mi_side_put(t, MI_SIDE_ARTIFACTS, &r))
			return -1;
	}
	if (write(fd, "x", 1) != 1)
		return -1;
	pause();
	return 0;
}

TEST(killed_mid_write)
{
	char *d = tmpdir(), c;
	int fds[2];
	pid_t pid;
	int st;
	mi_side *s;
	mi_side_txn *t;
	mi_side_rec r = rec("src/a.c", "summarize", "", "kept"), got;
	put_ctx pc = {&r, MI_SIDE_ARTIFACTS, 0};

	CHECK_INT(mi_side_open(d, MI_SIDE_CREATE, &s), 0);
	CHECK_INT(mi_side_write(s, do_put, &pc), 0);
	mi_side_close(s);
	CHECK_INT(pipe(fds), 0);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		if (mi_side_open(d, 0, &s))
			_exit(3);
		mi_side_write(s, write_then_hang, &fds[1]);
		_exit(0);
	}
	close(fds[1]);
	CHECK_INT(read(fds[0], &c, 1), 1);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	close(fds[0]);
	CHECK(WIFSIGNALED(st));

	/* The committed record is whole, the torn transaction left nothing,
	 * and the next writer is not blocked by the dead one's lock. */
	CHECK_INT(mi_side_open(d, 0, &s), 0);
	r.kind = "annotate";
	r.name = "after";
	r.text = "written after the kill";
	r.text_len = strlen(r.text);
	CHECK_INT(mi_side_write(s, do_put, &pc), 0);
	CHECK_INT(mi_side_begin(s, false, &t), 0);
	CHECK_INT(mi_side_get(t, MI_SIDE_ARTIFACTS, "src/a.c", "summarize", "", &got), 0);
	CHECK_STR(got.text, "kept");
	CHECK_INT(mi_side_get(t, MI_SIDE_ARTIFACTS, "src/a.c", "annotate", "torn0", &got),
		  MI_ERR_NOTFOUND);
	CHECK_INT(mi_side_count(t, MI_SIDE_ARTIFACTS), 2);
	mi_side_abort(t);
	mi_side_close(s);
	rmtree(d);
	free(d);
}

TEST(export)
{
	char *d = tmpdir(), src[300], dst[300];
	static const int dbs[] = {MI_SIDE_ARTIFACTS, MI_SIDE_ALIASES};
	mi_side *s, *o;
	mi_side_txn *t;
	mi_side_rec a = rec("src/a.c", "summarize", "", "kept"), l = rec("x/y", "alias", "", "say hi");
	mi_side_rec g = rec("read_file", "ok", "", "{}");
	put_ctx pc = {&a, MI_SIDE_ARTIFACTS, 0};
	uint64_t n = 0;
	snprintf(src, sizeof src, "%s/src", d);
	snprintf(dst, sizeof dst, "%s/dst.side", d);
	CHECK_INT(mi_side_open(src, MI_SIDE_CREATE, &s), 0);
	CHECK_INT(mi_side_write(s, do_put, &pc), 0);
	pc.r = &l;
	pc.db = MI_SIDE_ALIASES;
	CHECK_INT(mi_side_write(s, do_put, &pc), 0);
	pc.r = &g;
	pc.db = MI_SIDE_LOG;
	CHECK_INT(mi_side_write(s, do_append, &pc), 0);
	CHECK_INT(mi_side_export(s, dst, dbs, 2, &n), 0);
	CHECK_INT(n, 2);
	/* Again after a delete: the copy follows, it does not accumulate. */
	CHECK_INT(mi_side_begin(s, true, &t), 0);
	CHECK_INT(mi_side_del(t, MI_SIDE_ALIASES, "x/y", "alias", ""), 0);
	CHECK_INT(mi_side_commit(t), 0);
	CHECK_INT(mi_side_export(s, dst, dbs, 2, &n), 0);
	CHECK_INT(n, 1);
	CHECK_INT(mi_side_open(dst, 0, &o), 0);
	CHECK_INT(mi_side_begin(o, false, &t), 0);
	CHECK_INT(mi_side_count(t, MI_SIDE_ARTIFACTS), 1);
	CHECK_INT(mi_side_count(t, MI_SIDE_ALIASES), 0);
	CHECK_INT(mi_side_count(t, MI_SIDE_LOG), 0); /* not asked for */
	mi_side_abort(t);
	mi_side_close(o);
	mi_side_close(s);
	rmtree(d);
	free(d);
}

/* Opening while another process commits and grows the file: the data
 * file's size was taken before its meta page was read, and a commit in
 * between made a whole file look truncated (one of four concurrent
 * writers failed to open now and then). */
TEST(open_while_another_process_grows_it)
{
	char *d = tmpdir(), data[400];
	mi_side *s;
	CHECK_INT(mi_side_open(d, MI_SIDE_CREATE, &s), 0);
	mi_side_close(s);
	snprintf(data, sizeof data, "%s/data.mdb", d);
	pid_t w = fork();
	if (w == 0) {
		char name[32];
		int bad = 0;
		if (mi_side_open(d, MI_SIDE_CREATE, &s))
			_exit(3);
		for (int i = 0; i < 400; i++) {
			mi_side_rec r;
			put_ctx pc = {&r, MI_SIDE_ARTIFACTS, 0};
			char big[2048];
			memset(big, 'x', sizeof big - 1);
			big[sizeof big - 1] = 0;
			snprintf(name, sizeof name, "g%d", i);
			r = rec("src/grow.c", "annotate", name, big);
			bad |= mi_side_write(s, do_put, &pc);
		}
		mi_side_close(s);
		_exit(bad ? 4 : 0);
	}
	int fails = 0, checks = 0, st = -1;
	while (waitpid(w, &st, WNOHANG) == 0) {
		fails += mi_store_check(d, false) != 0;
		checks++;
	}
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(checks > 0);
	CHECK_INT(fails, 0);
	rmtree(d);
	free(d);
}

int main(void)
{
	RUN(locate);
	RUN(records);
	RUN(log_and_limits);
	RUN(damaged_values);
	RUN(version_and_place);
	RUN(map_grows);
	RUN(concurrent_writers);
	RUN(open_while_another_process_grows_it);
	RUN(threads_share_one_environment);
	RUN(links_are_refused);
	RUN(killed_mid_write);
	RUN(export);
	return test_done();
}
