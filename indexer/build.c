/*
 * build.c - the build pipeline: walk, hash, parse the changed files on all
 * cores, and write everything in one LMDB write transaction so that a build
 * killed at any point leaves the previous index whole.
 */
#include "walk.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* One file to (re)index. */
typedef struct job {
	mi_walk_file *wf;      /* walk entry */
	char *src;             /* content, malloc'd */
	size_t len;            /* its length */
	uint8_t hash[16];      /* xxh3-128 */
	uint32_t file_id;      /* id to store under */
	bool existed;          /* the path was in the index before */
	const struct old_rec *old; /* its record then, when it existed */
	int err;               /* parse error, 0 if fine */
	mi_parsed parsed;      /* result */
	mi_out outline;        /* its stored outline's text */
	mi_outline_rec orec;   /* and record (orec.text in outline) */
} job;

typedef struct pool {
	job *jobs;             /* work items */
	size_t n;              /* how many */
	size_t next;           /* next item to take */
	size_t done;           /* items finished */
	bool *ready;           /* ready[i]: jobs[i] parsed */
	pthread_mutex_t mu;    /* guards next/done/ready */
	pthread_cond_t cv;     /* signalled when an item is ready */
	double parse_end;      /* when the last parser ran out of work */
	const mi_build_opts *o;/* for progress */
} pool;

static const char *const skip_names[MI_SKIP__COUNT] = {
	"ignored", "binary", "too_big", "symlink", "unreadable", "vendored",
	"unsupported", "too_long",
};

const char *mi_skip_name(int reason)
{
	return reason >= 0 && reason < MI_SKIP__COUNT ? skip_names[reason] : "?";
}

double mi_build_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void mi_build_progress(const mi_build_opts *o, size_t done, size_t n)
{
	if (o->on_progress)
		o->on_progress(o->progress_ctx, done, n);
	if (o->progress && (done % 64 == 0 || done == n)) {
		int w = 30, f = n ? (int)(done * w / n) : w;
		fprintf(stderr, "\r[%.*s%*s] %zu/%zu files", f,
			"##############################", w - f, "", done, n);
		if (done == n)
			fputc('\n', stderr);
		fflush(stderr);
	}
}

/* Blocks until jobs[i] is parsed: the writer follows the parsers. */
static void wait_ready(pool *p, size_t i)
{
	pthread_mutex_lock(&p->mu);
	while (!p->ready[i])
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

static void *worker(void *arg)
{
	pool *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		size_t i = p->next++;
		pthread_mutex_unlock(&p->mu);
		if (i >= p->n) {
			pthread_mutex_lock(&p->mu);
			p->parse_end = mi_build_now();
			pthread_mutex_unlock(&p->mu);
			break;
		}
		job *j = &p->jobs[i];
		mi_parsed_init(&j->parsed);
		j->err = mi_parse_detected(j->wf->lang, j->src, j->len, &j->parsed);
		mi_render_outline(j->wf->path, j->src, j->len, &j->parsed, &j->outline, &j->orec);
		pthread_mutex_lock(&p->mu);
		size_t done = ++p->done;
		p->ready[i] = true;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		mi_build_progress(p->o, done, p->n);
	}
	return NULL;
}

/* ---- writing ------------------------------------------------------------------ */

/* Key helper: a \0 b \0 be32(n) ... built in buf. */
static void key2(mi_buf *k, const char *a, const char *b)
{
	mi_buf_reset(k);
	mi_buf_adds(k, a);
	mi_buf_addc(k, 0);
	if (b) {
		mi_buf_adds(k, b);
		mi_buf_addc(k, 0);
	}
}

/* A database of a write transaction, for the entries mi_syms_put gives. */
typedef struct db_txn {
	mi_txn *t;
	int db;
} db_txn;

static int put_entry(void *ctx, const void *k, size_t kl, const void *v, size_t vl)
{
	const db_txn *d = ctx;
	return mi_put(d->t, d->db, k, kl, v, vl);
}

/* Removes every record of path (whose file id is id) from the index; its
 * names and references entries go into nb, to be applied. */
static int delete_file(mi_txn *t, const char *path, uint32_t id, mi_byname_batch *nb)
{
	int rc = 0;
	mi_buf k = {0}, k2 = {0};
	mi_parsed tmp;
	mi_parsed_init(&tmp);
	mi_cursor *cur = NULL;
	const void *vp;
	size_t vl;

	/* Its search data first: it is found again from its source and
	 * symbols. */
	if ((rc = mi_search_del_file(t, id, path)))
		goto out;
	/* Its names and references, from its symbols and its references. */
	key2(&k, path, NULL);
	mi_syms si;
	uint32_t i;
	if ((rc = mi_syms_open(t, path, strlen(path), 0, &si)))
		goto out;
	while (!(rc = mi_syms_next(&si, &vp, &vl, &i))) {
		while (tmp.nsyms <= i && tmp.nsyms < 1u << 24)
			mi_parsed_add_sym(&tmp);
		if (i < tmp.nsyms && mi_symbol_decode(vp, vl, &tmp.syms[i], &tmp))
			tmp.syms[i].name = "";
	}
	mi_syms_close(&si);
	mi_frefs fr;
	if ((rc = mi_frefs_open(t, path, strlen(path), &fr)))
		goto out;
	while (!(rc = mi_frefs_next(&fr, &vp, &vl, NULL))) {
		mi_ref *r = mi_parsed_add_ref(&tmp);
		if (mi_ref_decode(vp, vl, r, &tmp))
			tmp.nrefs--;
	}
	if (rc != MI_ERR_NOTFOUND && rc != MI_ERR_CORRUPT)
		goto out;
	mi_byname_op dn = {nb, MI_DB_NAMES, -1}, dr = {nb, MI_DB_REFS, -1};
	if ((rc = mi_byname_put_names(&tmp, id, path, mi_byname_batch_add, &dn)) ||
	    (rc = mi_byname_put_refs(&tmp, id, mi_byname_batch_add, &dr)))
		goto out;
	if ((rc = mi_del_prefix(t, MI_DB_SYMS, k.buf, k.len)) ||
	    (rc = mi_del(t, MI_DB_FREFS, path, strlen(path))) ||
	    (rc = mi_del(t, MI_DB_SRC, path, strlen(path))) ||
	    (rc = mi_del(t, MI_DB_FILES, path, strlen(path))))
		goto out;
	/* An index whose outlines were not kept has none to delete. */
	if ((rc = mi_del(t, MI_DB_OUTLINES, path, strlen(path))) && rc != MI_ERR_NOTFOUND)
		goto out;
	uint8_t idk[4];
	mi_be32(idk, id);
	rc = mi_del(t, MI_DB_FILEIDS, idk, 4);
out:
	mi_cursor_close(cur);
	mi_parsed_release(&tmp);
	mi_buf_release(&k);
	mi_buf_release(&k2);
	return rc == MI_ERR_NOTFOUND ? 0 : rc;
}

/* Puts job j's records in; its names and references entries go into nb. */
static int put_file(mi_txn *t, job *j, mi_byname_batch *nb)
{
	int rc;
	const char *path = j->wf->path;
	mi_parsed *p = &j->parsed;
	mi_buf k = {0}, v = {0};
	db_txn ds = {t, MI_DB_SYMS};
	mi_byname_op dn = {nb, MI_DB_NAMES, +1}, dr = {nb, MI_DB_REFS, +1};
	if ((rc = mi_syms_put(p, path, strlen(path), put_entry, &ds)) ||
	    (rc = mi_byname_put_names(p, j->file_id, path, mi_byname_batch_add, &dn)) ||
	    (rc = mi_byname_put_refs(p, j->file_id, mi_byname_batch_add, &dr)))
		goto out;
	mi_buf_reset(&v);
	for (size_t i = 0; i < p->nrefs; i++)
		mi_frefs_add(&v, &p->refs[i]);
	if (p->nrefs && (rc = mi_put(t, MI_DB_FREFS, path, strlen(path), v.buf, v.len)))
		goto out;
	if ((rc = mi_put(t, MI_DB_SRC, path, strlen(path), j->len ? j->src : "", j->len)))
		goto out;
	if (j->orec.text) {
		mi_buf_reset(&v);
		mi_outline_encode(&j->orec, &v);
		if ((rc = mi_put(t, MI_DB_OUTLINES, path, strlen(path), v.buf, v.len)))
			goto out;
	}
	mi_file_rec f = {
		.file_id = j->file_id, .lang = (uint8_t)p->lang, .size = j->len,
		.lines = mi_count_lines(j->src, j->len), .mtime = j->wf->mtime_ns,
		.nsyms = (uint32_t)p->nsyms, .nrefs = (uint32_t)p->nrefs,
		.ndiags = (uint32_t)p->ndiags, .diags = p->diags,
	};
	memcpy(f.hash, j->hash, 16);
	mi_buf_reset(&v);
	mi_file_encode(&f, &v);
	if ((rc = mi_put(t, MI_DB_FILES, path, strlen(path), v.buf, v.len)))
		goto out;
	uint8_t idk[4];
	mi_be32(idk, j->file_id);
	if ((rc = mi_put(t, MI_DB_FILEIDS, idk, 4, path, strlen(path))))
		goto out;
	rc = mi_search_put_file(t, j->file_id, path, p, j->src, j->len);
out:
	mi_buf_release(&k);
	mi_buf_release(&v);
	return rc;
}

/* Whether s is an object id: 40 (SHA-1) or 64 (SHA-256) hex digits. */
static bool is_object_id(const char *s, size_t n)
{
	if (n != 40 && n != 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
			return false;
	return true;
}

/* Reads .git/HEAD and resolves one level of ref, without running git.
 * Only an object id is kept, and a ref must be refs/... without "..": the
 * head is stored in the index and served, so "ref: ../../../etc/passwd"
 * in a crafted .git must not copy a file from outside the repository.
 * (mi_read_file reads regular files only: a FIFO or a link to /dev/zero
 * in a tarball's .git neither blocks nor fills the build.) */
#define GIT_REF_MAX 4096                /* bytes of HEAD or a ref file */
#define GIT_PACKED_MAX (64u << 20)      /* bytes of packed-refs */

static char *git_head(const char *root)
{
	char path[PATH_MAX], *buf = NULL, *res = NULL;
	size_t len;
	snprintf(path, sizeof(path), "%s/.git/HEAD", root);
	if (mi_read_file_max(path, GIT_REF_MAX, &buf, &len))
		return NULL;
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		buf[--len] = 0;
	if (!strncmp(buf, "ref: ", 5)) {
		char *ref = buf + 5, *rbuf = NULL;
		size_t rl;
		if (strncmp(ref, "refs/", 5) || strstr(ref, "..") || strchr(ref, '\n')) {
			free(buf);
			return NULL;
		}
		snprintf(path, sizeof(path), "%s/.git/%s", root, ref);
		if (!mi_read_file_max(path, GIT_REF_MAX, &rbuf, &rl)) {
			while (rl && (rbuf[rl - 1] == '\n' || rbuf[rl - 1] == '\r'))
				rbuf[--rl] = 0;
			if (is_object_id(rbuf, rl))
				res = rbuf;
			else
				free(rbuf);
		} else {
			/* packed-refs: "<sha> <ref>" lines */
			char *pk = NULL;
			size_t pl;
			snprintf(path, sizeof(path), "%s/.git/packed-refs", root);
			if (!mi_read_file_max(path, GIT_PACKED_MAX, &pk, &pl)) {
				for (char *line = strtok(pk, "\n"); line; line = strtok(NULL, "\n")) {
					char *sp = strchr(line, ' ');
					if (sp && !strcmp(sp + 1, ref) && is_object_id(line, (size_t)(sp - line))) {
						res = mi_xstrndup(line, (size_t)(sp - line));
						break;
					}
				}
				free(pk);
			}
		}
	} else if (is_object_id(buf, len)) {
		res = mi_xstrdup(buf);
	}
	free(buf);
	return res;
}

typedef struct old_rec {
	uint8_t hash[16];     /* stored content hash */
	uint64_t size;        /* stored size */
	int64_t mtime;        /* stored mtime, ns */
	uint32_t file_id;     /* stored id */
	uint32_t nsyms, nrefs, ndiags; /* its counts, for the index's totals */
	bool seen;            /* still in the tree */
} old_rec;

/* Old records by path: a sorted array searched with bsearch. */
typedef struct old_entry {
	char *path;           /* owned */
	old_rec r;            /* record */
} old_entry;

static int cmp_old(const void *a, const void *b)
{
	return strcmp(((const old_entry *)a)->path, ((const old_entry *)b)->path);
}

/* Appends path's record f to *out, not yet seen in the tree. */
static old_entry *old_append(old_entry **out, size_t *n, size_t *cap, const char *path,
			     size_t pl, const mi_file_rec *f)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 1024;
		*out = mi_xrealloc(*out, *cap * sizeof(**out));
	}
	old_entry *e = &(*out)[(*n)++];
	e->path = mi_xstrndup(path, pl);
	memcpy(e->r.hash, f->hash, 16);
	e->r.size = f->size;
	e->r.mtime = f->mtime;
	e->r.file_id = f->file_id;
	e->r.nsyms = f->nsyms;
	e->r.nrefs = f->nrefs;
	e->r.ndiags = f->ndiags;
	e->r.seen = false;
	return e;
}

/* The file records of keys from..to (NULL: from the first, to past the
 * last) appended to *out, in key order. */
static void load_range(mi_txn *t, const char *from, const char *to, old_entry **out,
		       size_t *n, size_t *cap, uint32_t *next_id)
{
	mi_cursor *cur;
	const void *kp, *vp;
	size_t kl, vl, tl = to ? strlen(to) : 0;
	int rc;

	if (mi_cursor_open(t, MI_DB_FILES, &cur))
		return;
	for (rc = mi_cursor_seek(cur, from, from ? strlen(from) : 0, &kp, &kl, &vp, &vl); !rc;
	     rc = mi_cursor_next(cur, &kp, &kl, &vp, &vl)) {
		mi_file_rec f;
		if (to) {
			int c = memcmp(kp, to, kl < tl ? kl : tl);
			if (c > 0 || (!c && kl >= tl))
				break;
		}
		if (mi_file_decode_head(vp, vl, &f))
			continue;
		old_append(out, n, cap, kp, kl, &f);
		if (f.file_id >= *next_id)
			*next_id = f.file_id + 1;
	}
	mi_cursor_close(cur);
}

#define OLD_PARTS 8             /* threads that read the file records of a large index */
#define OLD_PARTS_MIN 8192      /* records from which they do */

/* One range of the file records, read on a thread of its own. */
typedef struct old_part {
	mi_txn *t;
	const char *from, *to;
	old_entry *v;
	size_t n, cap;
	uint32_t next_id;
} old_part;

static void *old_part_run(void *arg)
{
	old_part *p = arg;
	load_range(p->t, p->from, p->to, &p->v, &p->n, &p->cap, &p->next_id);
	return NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Cuts the file records into up to OLD_PARTS ranges of about as many
 * records: the paths of file ids at even steps below the largest (ids
 * follow path order after a fresh build; an update's new files only
 * make the ranges less even).  The number of cuts, sorted and distinct,
 * into cut (owned).
 */
static size_t old_cuts(mi_txn *t, char **cut)
{
	mi_cursor *c;
	const void *kp, *vp;
	size_t kl, vl, n = 0;
	uint8_t k[4];

	if (mi_cursor_open(t, MI_DB_FILEIDS, &c))
		return 0;
	if (!mi_cursor_prev(c, &kp, &kl, &vp, &vl) && kl == 4) {
		uint32_t top = mi_rd32(kp);
		for (uint32_t i = 1; i < OLD_PARTS; i++) {
			mi_be32(k, (uint32_t)((uint64_t)top * i / OLD_PARTS));
			if (!mi_cursor_seek(c, k, 4, &kp, &kl, &vp, &vl) && vl &&
			    !memchr(vp, 0, vl))
				cut[n++] = mi_xstrndup(vp, vl);
		}
	}
	mi_cursor_close(c);
	if (n)
		qsort(cut, n, sizeof(*cut), cmp_str);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && !strcmp(cut[m - 1], cut[i]))
			free(cut[i]);
		else
			cut[m++] = cut[i];
	}
	return m;
}

/*
 * The index's file records, sorted by path, and the next free file id.  A
 * large index's are read in ranges on several threads, each with a read
 * transaction on the same snapshot: with the index not in the page cache
 * (a host that pages out what was not used for a minute) each record page
 * is a read from the disk, and reads in flight together take less time
 * than one after another (kernel tree, 2,972 pages: 0.75 s alone).
 */
static int load_old(mi_store *st, old_entry **out, size_t *n, uint32_t *next_id)
{
	mi_txn *t;
	int rc = mi_txn_begin(st, false, &t);
	*out = NULL;
	*n = 0;
	*next_id = 1;
	if (rc)
		return rc;
	/* Part 0 is this thread's, on t: all of the records unless cut. */
	char *cut[OLD_PARTS];
	size_t ncut = mi_db_count(t, MI_DB_FILES) >= OLD_PARTS_MIN ? old_cuts(t, cut) : 0;
	old_part part[OLD_PARTS];
	pthread_t th[OLD_PARTS];
	size_t np = 1, started = 1, total = 0;
	part[0] = (old_part){.t = t, .next_id = 1};
	for (size_t i = 0; i < ncut; i++) {
		mi_txn *pt = NULL;
		if (mi_txn_begin(st, false, &pt) || !mi_txn_same(t, pt)) {
			mi_txn_abort(pt);
			break;
		}
		part[np - 1].to = cut[i];
		part[np++] = (old_part){.t = pt, .from = cut[i], .next_id = 1};
	}
	for (; started < np; started++)
		if (pthread_create(&th[started], NULL, old_part_run, &part[started]))
			break;
	for (size_t i = started; i < np; i++)
		old_part_run(&part[i]); /* no thread: read here */
	old_part_run(&part[0]);
	for (size_t i = 1; i < started; i++)
		pthread_join(th[i], NULL);
	/* The ranges follow each other: the others appended to part 0's
	 * records in order, they are in key order. */
	for (size_t i = 0; i < np; i++)
		total += part[i].n;
	if (np > 1 && total > part[0].cap)
		part[0].v = mi_xrealloc(part[0].v, total * sizeof(*part[0].v));
	*out = part[0].v;
	for (size_t i = 0; i < np; i++) {
		if (i) {
			memcpy(*out + *n, part[i].v, part[i].n * sizeof(**out));
			free(part[i].v);
			mi_txn_abort(part[i].t);
		}
		*n += part[i].n;
		if (part[i].next_id > *next_id)
			*next_id = part[i].next_id;
	}
	for (size_t i = 0; i < ncut; i++)
		free(cut[i]);
	mi_txn_abort(t);
	/* Key order is path order (LMDB compares keys as bytes, as strcmp
	 * does paths), so this only checks it: sorting 74,000 sorted
	 * records cost a one-file update of the kernel 1.2 M strcmp. */
	for (size_t i = 1; i < *n; i++)
		if (cmp_old(&(*out)[i - 1], &(*out)[i]) > 0) {
			qsort(*out, *n, sizeof(**out), cmp_old);
			break;
		}
	return 0;
}

/* load_old on a thread of its own, beside the walk. */
typedef struct old_load {
	mi_store *st;
	old_entry *old;
	size_t nold;
	uint32_t next_id;
	int rc;
} old_load;

static void *old_load_run(void *arg)
{
	old_load *l = arg;
	l->rc = load_old(l->st, &l->old, &l->nold, &l->next_id);
	return NULL;
}

/* A walked file's match in the stat list: its entry in old, or one of these. */
#define SL_NONE ((size_t)-1)    /* not in the index */
#define SL_SAME ((size_t)-2)    /* in it with the same mtime and size */
#define SL_OUT UINT64_MAX       /* a walked file left out of the index */

/* The record of path appended to *v, in the tree (seen) or not. */
static int old_add(mi_txn *t, const char *path, size_t pl, bool seen, old_entry **v, size_t *n,
		   size_t *cap)
{
	const void *vp;
	size_t vl;
	mi_file_rec f;
	int rc = mi_get(t, MI_DB_FILES, path, pl, &vp, &vl);
	if (rc || (rc = mi_file_decode_head(vp, vl, &f)))
		return rc;
	old_append(v, n, cap, path, pl, &f)->r.seen = seen;
	return 0;
}

/*
 * The walk against the stat list, both in walk order, in one pass: each
 * walked file's match (SL_*, or its record's place in *old, read for a file
 * whose mtime or size changed), the records of files gone from the tree
 * appended to *old unseen, and the next free file id.  MI_ERR_CORRUPT when
 * either is out of order or a listed record is missing: the caller reads
 * every record instead.
 */
static int stat_compare(mi_txn *t, mi_stat_list *sl, const mi_walk *w, old_entry **old,
			size_t *nold, uint32_t *next_id, size_t **match)
{
	size_t *m = mi_xmalloc((w->n ? w->n : 1) * sizeof(*m));
	old_entry *v = NULL;
	size_t n = 0, cap = 0, listed = 0, pl, lastl = 0;
	const char *last = NULL;
	mi_stat_entry e, prev = {0};
	int rc = MI_ERR_CORRUPT;
	bool have = mi_stat_list_next(sl, &e);
	for (size_t i = 0; i < w->n; i++) {
		const mi_walk_file *wf = &w->files[i];
		pl = strlen(wf->path);
		if (last && mi_walk_order(last, lastl, wf->path, pl) >= 0)
			goto bad;
		last = wf->path;
		lastl = pl;
		int c = 1;
		while (have && (c = mi_walk_order(e.path, e.pl, wf->path, pl)) < 0) {
			if ((listed && mi_walk_order(prev.path, prev.pl, e.path, e.pl) >= 0) ||
			    old_add(t, e.path, e.pl, false, &v, &n, &cap))
				goto bad; /* out of order, or no record: not to be trusted */
			prev = e;
			listed++;
			have = mi_stat_list_next(sl, &e);
		}
		m[i] = SL_NONE;
		if (!have || c)
			continue;
		if (listed && mi_walk_order(prev.path, prev.pl, e.path, e.pl) >= 0)
			goto bad;
		if (e.mtime == wf->mtime_ns && e.size == wf->size) {
			m[i] = SL_SAME;
		} else {
			if (old_add(t, e.path, e.pl, true, &v, &n, &cap))
				goto bad;
			m[i] = n - 1;
		}
		prev = e;
		listed++;
		have = mi_stat_list_next(sl, &e);
	}
	for (; have; have = mi_stat_list_next(sl, &e)) {
		if ((listed && mi_walk_order(prev.path, prev.pl, e.path, e.pl) >= 0) ||
		    old_add(t, e.path, e.pl, false, &v, &n, &cap))
			goto bad;
		prev = e;
		listed++;
	}
	if (sl->bad || listed != sl->n)
		goto bad;
	/* The largest file id is the last key of fileids. */
	mi_cursor *c;
	const void *kp, *vp;
	size_t kl, vl;
	*next_id = 1;
	if (!mi_cursor_open(t, MI_DB_FILEIDS, &c)) {
		if (!mi_cursor_prev(c, &kp, &kl, &vp, &vl) && kl == 4)
			*next_id = mi_rd32(kp) + 1;
		mi_cursor_close(c);
	}
	*old = v;
	*nold = n;
	*match = m;
	return 0;
bad:
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
	free(m);
	return rc;
}

/* The build's metadata and statistics (meta db). */
static int put_meta(mi_txn *t, const mi_build_stats *bs, const char *root)
{
	int rc;
	char *head = git_head(root);
	(void)((rc = mi_meta_put_int(t, "version", MI_FORMAT_VERSION)) ||
	    (rc = mi_meta_put_int(t, "view", MI_VIEW_VERSION)) ||
	    (rc = mi_meta_put_str(t, "tool", "mcpidx " MI_VERSION)) ||
	    (rc = mi_meta_put_int(t, "built", (int64_t)time(NULL))) ||
	    (rc = mi_meta_put_str(t, "root", root)) ||
	    (rc = mi_meta_put_str(t, "head", head ? head : "")) ||
	    (rc = mi_meta_put_int(t, "files", (int64_t)bs->files)) ||
	    (rc = mi_meta_put_int(t, "symbols", (int64_t)bs->symbols)) ||
	    (rc = mi_meta_put_int(t, "refs", (int64_t)bs->refs)) ||
	    (rc = mi_meta_put_int(t, "diags", (int64_t)bs->diags)) ||
	    (rc = mi_meta_put_int(t, "chunks", (int64_t)bs->chunks)));
	free(head);
	return rc;
}

/* The index's symbols, references and diagnostics: the stored totals moved
 * by what this update took out and put in (a scan of every file record
 * when there are none to move). */
static int index_totals(mi_txn *t, const job *jobs, size_t nj, const old_entry *old,
			size_t nold, bool clear, mi_build_stats *bs)
{
	int64_t sy, rf, dg;
	if (!clear && !mi_meta_get_int(t, "symbols", &sy) && !mi_meta_get_int(t, "refs", &rf) &&
	    !mi_meta_get_int(t, "diags", &dg)) {
		for (size_t i = 0; i < nold; i++) {
			if (old[i].r.seen)
				continue;
			sy -= old[i].r.nsyms;
			rf -= old[i].r.nrefs;
			dg -= old[i].r.ndiags;
		}
		for (size_t i = 0; i < nj; i++) {
			const job *j = &jobs[i];
			if (j->old) {
				sy -= j->old->nsyms;
				rf -= j->old->nrefs;
				dg -= j->old->ndiags;
			}
			sy += (int64_t)j->parsed.nsyms;
			rf += (int64_t)j->parsed.nrefs;
			dg += (int64_t)j->parsed.ndiags;
		}
		if (sy >= 0 && rf >= 0 && dg >= 0) {
			bs->symbols = (size_t)sy;
			bs->refs = (size_t)rf;
			bs->diags = (size_t)dg;
			return 0;
		}
	}
	mi_cursor *cur;
	const void *kp, *vp;
	size_t kl, vl;
	int rc = mi_cursor_open(t, MI_DB_FILES, &cur);
	if (rc)
		return rc;
	bs->symbols = bs->refs = bs->diags = 0;
	for (rc = mi_cursor_seek(cur, NULL, 0, &kp, &kl, &vp, &vl); !rc;
	     rc = mi_cursor_next(cur, &kp, &kl, &vp, &vl)) {
		mi_file_rec f;
		if (!mi_file_decode_head(vp, vl, &f)) {
			bs->diags += f.ndiags;
			bs->symbols += f.nsyms;
			bs->refs += f.nrefs;
		}
	}
	mi_cursor_close(cur);
	return 0;
}

int mi_build_threads(const mi_build_opts *o)
{
	int n = o->jobs > 0 ? o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 64 ? 64 : n;
}

/* Threads that walk the tree: -j's, else the cores' and at least eight.
 * A walk of a tree whose folders are not in the page cache waits on the
 * disk, not a core: on the kernel tree (two cores) with the page cache
 * dropped, the walk took 0.43-0.57 s with four walkers and 0.40-0.42 s
 * with eight; with all cached, 0.17-0.22 s either way. */
static int walk_threads(const mi_build_opts *o)
{
	int n = mi_build_threads(o);
	return o->jobs > 0 || n >= 8 ? n : 8;
}

#define WRITE_HEAP_AHEAD (20u << 20) /* heap made ahead of an update's write */

/*
 * Makes bytes of heap ahead, its pages mapped in one call, and keeps it for
 * the write that follows.  LMDB mallocs each page the write dirties, and a
 * large index's one-file update dirties thousands (every postings block and
 * term it rewrites, and the branch pages above them): on a guest where a
 * page fault costs 15 us, touching fresh heap page by page was a sixth
 * of that write (kernel tree, five alternated pairs: the write 0.23-0.28 s
 * and 4,830 faults, 0.20-0.23 s and 190-200 faults with 20 MiB made
 * ahead, which costs 4 ms; 32 MiB no better, 12 MiB less).  The threshold
 * settings keep the block on the main heap, and free keeps it there; this
 * process ends with the build.
 */
static void heap_ahead(size_t bytes)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, (int)(2 * bytes));
	mallopt(M_TRIM_THRESHOLD, (int)(4 * bytes));
#endif
	char *p = malloc(bytes);
	if (!p)
		return;
#ifdef MADV_POPULATE_WRITE
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + pg - 1) & ~(pg - 1), e = ((uintptr_t)p + bytes) & ~(pg - 1);
	if (e > a)
		madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#endif
	free(p);
}

static int write_all(mi_store *st, pool *pl, job *jobs, size_t nj,
		     old_entry *old, size_t nold, mi_walk_file **touched, size_t ntouched,
		     const mi_walk *w, const uint64_t *lsize, bool slist_same,
		     mi_build_stats *bs, const char *root, bool clear)
{
	mi_txn *t;
	int rc = mi_txn_begin(st, true, &t);
	if (rc)
		return rc;
	/* Deleted files, then changed ones (old records out first).  A
	 * changed file's names and references go out and in as one batch: an
	 * entry that comes back as it was is not written at all. */
	mi_byname_batch nb = {0};
	for (size_t i = 0; i < nold && !clear; i++) {
		if (old[i].r.seen)
			continue;
		if ((rc = delete_file(t, old[i].path, old[i].r.file_id, &nb)) ||
		    (rc = mi_byname_batch_apply(t, &nb)))
			goto fail;
	}
	for (size_t i = 0; i < nj; i++) {
		/* The old file goes out while its new text is parsed. */
		if (jobs[i].existed && !clear &&
		    (rc = delete_file(t, jobs[i].wf->path, jobs[i].file_id, &nb)))
			goto fail;
		wait_ready(pl, i);
		if ((rc = put_file(t, &jobs[i], &nb)) || (rc = mi_byname_batch_apply(t, &nb)))
			goto fail;
	}
	mi_byname_batch_release(&nb);
	/* Same content, new mtime: refresh the record so the next build can
	 * skip hashing. */
	for (size_t i = 0; i < ntouched && !clear; i++) {
		const void *vp;
		size_t vl;
		mi_file_rec f;
		const char *path = touched[i]->path;
		if (mi_get(t, MI_DB_FILES, path, strlen(path), &vp, &vl) ||
		    mi_file_decode(vp, vl, &f))
			continue;
		f.mtime = touched[i]->mtime_ns;
		mi_buf v = {0};
		mi_file_encode(&f, &v);
		rc = mi_put(t, MI_DB_FILES, path, strlen(path), v.buf, v.len);
		mi_buf_release(&v);
		mi_file_rec_release(&f);
		if (rc)
			goto fail;
	}
	/* The records' mtimes and sizes, for the next update's walk (the
	 * list it compared with stays when nothing moved). */
	if (!slist_same) {
		mi_stat_writer sw;
		mi_stat_writer_begin(&sw, t);
		for (size_t i = 0; i < w->n; i++)
			if (lsize[i] != SL_OUT)
				mi_stat_writer_add(&sw, w->files[i].path, w->files[i].mtime_ns, lsize[i]);
		if ((rc = mi_stat_writer_end(&sw)))
			goto fail;
	}
	size_t nchunks = 0;
	if ((rc = mi_search_finish(t, &nchunks)))
		goto fail;
	bs->files = mi_db_count(t, MI_DB_FILES);
	bs->chunks = nchunks;
	if ((rc = index_totals(t, jobs, nj, old, nold, clear, bs)))
		goto fail;
	if ((rc = put_meta(t, bs, root)))
		goto fail;
	return mi_txn_commit(t);
fail:
	mi_byname_batch_release(&nb);
	mi_txn_abort(t);
	return rc;
}

/* The MI_VIEW_VERSION the index's outlines were rendered with, 0 if none. */
static int64_t stored_view(mi_store *st)
{
	mi_txn *t;
	int64_t v = 0;
	if (mi_txn_begin(st, false, &t))
		return 0;
	if (mi_meta_get_int(t, "view", &v))
		v = 0;
	mi_txn_abort(t);
	return v;
}

static bool looks_binary(const char *s, size_t n)
{
	return memchr(s, 0, n < 8192 ? n : 8192) != NULL;
}

/*
 * A fresh build replaces the whole file, but the tool catalog of upstream
 * MCP servers (written by mi_catalog_write, not by the code build) belongs
 * to the index too: copy its databases and "tools.*" meta from the index
 * being replaced, when there is one of this format that opens.
 */
static int carry_catalog(mi_store *fresh, const char *idx)
{
	mi_store *old = NULL;
	mi_txn *from = NULL, *to = NULL;
	int rc = 0;
	if (mi_store_check(idx, false) || mi_store_open(idx, MI_STORE_RDONLY, &old))
		return 0; /* nothing to carry */
	if ((rc = mi_txn_begin(old, false, &from)))
		goto out;
	if (mi_db_count(from, MI_DB_TOOLS) == 0 && mi_db_count(from, MI_DB_SERVERS) == 0)
		goto out;
	if ((rc = mi_txn_begin(fresh, true, &to)))
		goto out;
	for (int db = 0; db < MI_DB__COUNT && !rc; db++)
		if (mi_db_is_catalog(db))
			rc = mi_db_copy(from, to, db, "", 0);
	if (!rc)
		rc = mi_db_copy(from, to, MI_DB_META, "tools.", 6);
	if (!rc) {
		rc = mi_txn_commit(to);
		to = NULL;
	}
out:
	mi_txn_abort(to);
	mi_txn_abort(from);
	mi_store_close(old);
	return rc;
}

/* What the fresh writer reports back (mi_build_fresh_out). */
typedef struct fresh_ctx {
	const mi_build_opts *o;
	mi_build_stats *bs;
	const char *root;
} fresh_ctx;

static void note_add(mi_build_note **v, size_t *n, const char *path, int reason,
		     const char *why);
static const char *parse_failure(int err);

static void fresh_skip(void *ctx, int reason, const char *path)
{
	fresh_ctx *c = ctx;
	c->bs->skipped[reason]++;
	if (c->o->details)
		note_add(&c->bs->skips, &c->bs->nskips, path, reason, NULL);
}

static void fresh_fail(void *ctx, int err, const char *path)
{
	fresh_ctx *c = ctx;
	c->bs->errors++;
	if (c->o->details)
		note_add(&c->bs->fails, &c->bs->nfails, path, err, parse_failure(err));
}

static int fresh_meta(void *ctx, mi_txn *t)
{
	fresh_ctx *c = ctx;
	return put_meta(t, c->bs, c->root);
}

static void note_add(mi_build_note **v, size_t *n, const char *path, int reason,
		     const char *why)
{
	/* Capacity: 16, then doubled each time n reaches a power of two. */
	if (*n == 0 || (*n >= 16 && !(*n & (*n - 1))))
		*v = mi_xrealloc(*v, (*n ? *n * 2 : 16) * sizeof(**v));
	(*v)[*n].path = mi_xstrdup(path);
	(*v)[*n].reason = reason;
	(*v)[*n].why = why ? mi_xstrdup(why) : NULL;
	(*n)++;
}

void mi_build_stats_release(mi_build_stats *st)
{
	for (size_t i = 0; i < st->nskips; i++)
		free(st->skips[i].path);
	for (size_t i = 0; i < st->nfails; i++) {
		free(st->fails[i].path);
		free(st->fails[i].why);
	}
	free(st->skips);
	free(st->fails);
	st->skips = st->fails = NULL;
	st->nskips = st->nfails = 0;
}

/* What a failed parse means, for the failures list. */
static const char *parse_failure(int err)
{
	switch (err) {
	case MI_ERR_PARSE:
		return "the parser gave up on it (over the time limit, or the language's "
		       "query did not compile)";
	case MI_ERR_TOOBIG: return "too large for the parser";
	case MI_ERR_ARG: return "no parser for its language";
	}
	return mi_strerror(err);
}

/* Skips found while reading (binary, too big, unreadable), counted and
 * listed like the walk's. */
static void read_skip(mi_build_stats *bs, const mi_build_opts *o, int reason,
		      const char *path)
{
	bs->skipped[reason]++;
	if (o->details)
		note_add(&bs->skips, &bs->nskips, path, reason, NULL);
}

/* The message for a write that failed with rc. */
static void write_failed(mi_buf *err, mi_store *st, const char *idx, int rc, bool fresh)
{
	if (mi_store_is_nospace(st, rc))
		mi_buf_addf(err, "writing index '%s' failed: no space left on device; %s "
			    "(free some space and build again)", idx,
			    fresh ? "nothing was left behind and the previous index is unchanged"
				  : "the previous index is unchanged and its file was cut back");
	else
		mi_buf_addf(err, "writing index '%s' failed: %s; the previous index is unchanged",
			    idx, mi_strerror(rc));
}

static int build_once(const mi_build_opts *o, mi_build_stats *bs, mi_buf *err)
{
	int rc = 0;
	double t0 = mi_build_now();
	char root[PATH_MAX], idx[PATH_MAX];
	mi_store *st = NULL;
	mi_walk w = {0};
	old_entry *old = NULL;
	size_t nold = 0;
	job *jobs = NULL;
	size_t nj = 0;
	mi_walk_file **touched = NULL;
	size_t ntouched = 0;
	uint32_t next_id = 1;
	size_t *match = NULL;   /* per walked file, from the stat list: SL_* or its old record */
	uint64_t *lsize = NULL; /* per walked file: its record's size, SL_OUT when not indexed */
	struct stat sb;
	bool fresh = o->force;
	int rootfd = -1;
	memset(bs, 0, sizeof(*bs));

	if (!realpath(o->repo, root)) {
		rc = errno;
		mi_buf_addf(err, "cannot read repository '%s': %s", o->repo, strerror(rc));
		return rc;
	}
	if (stat(root, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
		mi_buf_addf(err, "'%s' is not a directory: give the repository's root folder", o->repo);
		return ENOTDIR;
	}
	rootfd = mi_dir_open(root); /* -1: files are read by path */
	if (o->out_dir)
		snprintf(idx, sizeof(idx), "%s", o->out_dir);
	else
		snprintf(idx, sizeof(idx), "%s/.mcpidx", root);
	if (!fresh) {
		rc = mi_store_check(idx, false);
		if (rc == MI_ERR_NOINDEX) {
			fresh = true; /* a first build */
			rc = 0;
		} else if (!rc) {
			rc = mi_store_open(idx, 0, &st);
		}
	}
	if (rc == MI_ERR_DAMAGED) {
		mi_buf_addf(err, "index at %s is truncated or damaged: run mcpidx build --force %s "
			    "(or copy the artifact again)", idx, o->repo);
		goto out;
	}
	if (!rc && st) {
		int ver = mi_store_version(st);
		if (ver < 0 || ver > MI_FORMAT_VERSION) {
			mi_buf_addf(err, "index '%s' has format version %d, newer than the version %d this "
				    "mcpidx writes (or unreadable). Use the mcpidx that wrote it, or replace "
				    "it: mcpidx build --force %s", idx, ver, MI_FORMAT_VERSION, o->repo);
			rc = MI_ERR_VERSION;
			goto out;
		}
		/* An older format is a cache of the tree: rebuild it whole.  Outlines
		 * rendered by another renderer: every file is redone too. */
		if (ver > 0 && ver < MI_FORMAT_VERSION)
			bs->rebuilt_from = ver;
		if (bs->rebuilt_from || (ver == MI_FORMAT_VERSION && stored_view(st) != MI_VIEW_VERSION)) {
			mi_store_close(st);
			st = NULL;
			fresh = true;
		}
	}
	if (!rc && fresh)
		rc = mi_store_open(idx, MI_STORE_FRESH, &st);
	if (rc) {
		if (rc == MI_ERR_SYMLINK) {
			char target[PATH_MAX];
			ssize_t n = readlink(idx, target, sizeof(target) - 1);
			target[n > 0 ? n : 0] = 0;
			mi_buf_addf(err, "'%s' is a symbolic link (to '%s'): mcpidx does not write an "
				    "index or its lock file through a link in the repository, which may "
				    "have come with it. Remove the link, or build elsewhere with -o DIR "
				    "and serve DIR", idx, target);
		} else if (rc == MI_ERR_DAMAGED) {
			mi_buf_addf(err, "index at %s is truncated or damaged: run mcpidx build --force "
				    "%s (or copy the artifact again)", idx, o->repo);
		} else if (mi_store_is_nospace(NULL, rc)) {
			mi_buf_addf(err, "cannot create index '%s': no space left on device", idx);
		} else {
			mi_buf_addf(err, "cannot open index '%s' for writing: %s", idx, mi_strerror(rc));
			if (rc == EACCES || rc == EROFS)
				mi_buf_adds(err, " (choose a writable folder with -o DIR)");
		}
		goto out;
	}
	bs->fresh = fresh;
	char real_idx[PATH_MAX];
	w.root = root;
	w.index_dir = realpath(idx, real_idx) ? real_idx : NULL;
	w.max_size = o->max_file_size ? o->max_file_size : (1u << 20);
	w.no_ignore = o->no_ignore;
	w.list = o->details;
	w.threads = walk_threads(o);
	/* An update compares the walk with the index's stat list; without
	 * one (an index of an older mcpidx) it reads every file record while
	 * the tree is walked. */
	old_load ol = {.st = st, .next_id = 1};
	mi_stat_list sl;
	mi_txn *slt = NULL;
	bool listed = !fresh && !mi_txn_begin(st, false, &slt) && mi_stat_list_open(slt, &sl);
	pthread_t olt;
	bool ol_thread = !fresh && !listed && !pthread_create(&olt, NULL, old_load_run, &ol);
	mi_walk_run(&w);
	if (listed && stat_compare(slt, &sl, &w, &ol.old, &ol.nold, &ol.next_id, &match))
		listed = false;
	mi_txn_abort(slt);
	if (ol_thread)
		pthread_join(olt, NULL);
	else if (!fresh && !listed)
		old_load_run(&ol);
	old = ol.old;
	nold = ol.nold;
	next_id = ol.next_id;
	memcpy(bs->skipped, w.skipped, sizeof(bs->skipped));
	if (o->details) {
		for (size_t i = 0; i < w.nskips; i++)
			note_add(&bs->skips, &bs->nskips, w.skips[i].path, w.skips[i].reason, NULL);
	}

	if (fresh) {
		fresh_ctx fc = {.o = o, .bs = bs, .root = root};
		mi_build_fresh_out fo = {.ctx = &fc, .skip = fresh_skip, .fail = fresh_fail,
					 .meta = fresh_meta};
		double t1 = mi_build_now();
		bs->walk_seconds = t1 - t0;
		rc = mi_build_fresh(o, st, root, rootfd, mi_store_fresh_dir(st), &w, bs, &fo);
		if (!rc && !bs->rebuilt_from)
			rc = carry_catalog(st, idx);
		if (!rc)
			rc = mi_store_publish(st, &bs->moved_aside);
		bs->write_seconds = mi_build_now() - t1 - bs->parse_seconds;
		if (rc)
			write_failed(err, st, idx, rc, true);
		goto out;
	}
	if ((rc = ol.rc)) {
		if (rc == MI_ERR_DAMAGED)
			mi_buf_addf(err, "index at %s is truncated or damaged: run mcpidx build --force "
				    "%s (or copy the artifact again)", idx, o->repo);
		else
			mi_buf_addf(err, "cannot read index '%s': %s", idx, mi_strerror(rc));
		goto out;
	}
	jobs = mi_xcalloc(w.n ? w.n : 1, sizeof(*jobs));
	touched = mi_xcalloc(w.n ? w.n : 1, sizeof(*touched));
	lsize = mi_xmalloc((w.n ? w.n : 1) * sizeof(*lsize));
	for (size_t i = 0; i < w.n; i++)
		lsize[i] = SL_OUT;
	for (size_t i = 0; i < w.n; i++) {
		mi_walk_file *wf = &w.files[i];
		old_entry key = {.path = wf->path}, *e = NULL;
		if (match && match[i] == SL_SAME) {
			bs->unchanged++;
			lsize[i] = wf->size;
			continue;
		}
		if (match)
			e = match[i] == SL_NONE ? NULL : &old[match[i]];
		else if (nold)
			e = bsearch(&key, old, nold, sizeof(*old), cmp_old);
		if (e) {
			e->r.seen = true;
			if (e->r.mtime == wf->mtime_ns && e->r.size == wf->size) {
				bs->unchanged++;
				lsize[i] = wf->size;
				continue;
			}
		}
		char *src = NULL;
		size_t len;
		/* Read no more than the cap allows (a file swapped for a huge one
		 * after the walk saw it small used to be read whole). */
		int rr = mi_read_file_beneath(root, rootfd, wf->path, w.max_size, &src, &len);
		if (rr == MI_ERR_TOOBIG)
			len = w.max_size + 1;
		else if (rr) {
			read_skip(bs, o, MI_SKIP_UNREADABLE, wf->path);
			if (e)
				e->r.seen = false; /* vanished: remove it */
			continue;
		}
		if (len > w.max_size) {
			read_skip(bs, o, MI_SKIP_TOOBIG, wf->path);
			free(src);
			if (e)
				e->r.seen = false;
			continue;
		}
		if (looks_binary(src, len)) {
			read_skip(bs, o, MI_SKIP_BINARY, wf->path);
			free(src);
			if (e)
				e->r.seen = false;
			continue;
		}
		uint8_t h[16];
		mi_hash128(src, len, h);
		if (e && !memcmp(h, e->r.hash, 16)) {
			bs->unchanged++;
			touched[ntouched++] = wf;
			lsize[i] = e->r.size;
			free(src);
			continue;
		}
		job *j = &jobs[nj++];
		j->wf = wf;
		j->src = src;
		j->len = len;
		memcpy(j->hash, h, 16);
		j->existed = e != NULL;
		j->old = e ? &e->r : NULL;
		j->file_id = e ? e->r.file_id : next_id++;
		lsize[i] = len;
	}

	double t1 = mi_build_now();
	bs->walk_seconds = t1 - t0;
	/* Parse on all cores; this thread writes the results as they come, in
	 * order, inside the one write transaction. */
	pool p = {.jobs = jobs, .n = nj, .o = o};
	p.ready = mi_xcalloc(nj ? nj : 1, sizeof(*p.ready));
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	int nth = mi_build_threads(o);
	if ((size_t)nth > nj)
		nth = nj ? (int)nj : 1;
	pthread_t th[64];
	int started = 0;
	for (int i = 0; i < nth; i++)
		if (!pthread_create(&th[started], NULL, worker, &p))
			started++;
	if (!started)
		worker(&p); /* no threads: parse here, then write */
	double t2 = mi_build_now();
	/* Room in the map for the pages this transaction copies and adds: a
	 * fresh build leaves the file just as large as its data, so without
	 * it an update of one file ran out of map at its commit and did all
	 * its work twice. */
	size_t grow = 64u << 20;
	for (size_t i = 0; i < nj; i++)
		grow += 16 * jobs[i].len;
	mi_store_reserve(st, grow);
	if (nj && w.n >= OLD_PARTS_MIN)
		heap_ahead(WRITE_HEAP_AHEAD);
	for (int attempt = 0;; attempt++) {
		rc = write_all(st, &p, jobs, nj, old, nold, touched, ntouched, &w, lsize,
			       match && !nold && !nj && !ntouched, bs, root, fresh);
		if (mi_store_is_full(rc) && attempt < 16 && !mi_store_grow(st))
			continue;
		break;
	}
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	bs->parse_seconds = p.parse_end - t1;
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	free(p.ready);
	for (size_t i = 0; i < nj; i++) {
		if (!jobs[i].err)
			continue;
		bs->errors++;
		if (o->details)
			note_add(&bs->fails, &bs->nfails, jobs[i].wf->path, jobs[i].err,
				 parse_failure(jobs[i].err));
	}
	bs->indexed = nj;
	for (size_t i = 0; i < nold; i++)
		if (!old[i].r.seen)
			bs->removed++;
	bs->write_seconds = mi_build_now() - t2;
	if (rc == MI_ERR_STALE)
		goto out; /* mi_build starts again on the new file */
	if (rc) {
		if (!fresh)
			mi_store_trim(st);
		write_failed(err, st, idx, rc, fresh);
	}
out:
	for (size_t i = 0; i < nj; i++) {
		free(jobs[i].src);
		mi_parsed_release(&jobs[i].parsed);
		mi_out_release(&jobs[i].outline);
	}
	free(jobs);
	free(touched);
	free(match);
	free(lsize);
	for (size_t i = 0; i < nold; i++)
		free(old[i].path);
	free(old);
	mi_walk_release(&w);
	mi_store_close(st);
	if (rootfd >= 0)
		close(rootfd);
	bs->seconds = mi_build_now() - t0;
	return rc;
}

int mi_build(const mi_build_opts *o, mi_build_stats *bs, mi_buf *err)
{
	int rc;
	/* Another build replaced the index while this one read the old one:
	 * start again from the new one. */
	for (int attempt = 0;; attempt++) {
		rc = build_once(o, bs, err);
		if (rc != MI_ERR_STALE)
			break;
		mi_build_stats_release(bs);
		if (attempt == 4) {
			mi_buf_addf(err, "the index keeps being replaced by other builds; run "
				    "mcpidx build %s again when they are done", o->repo);
			break;
		}
	}
	return rc;
}

int mi_build_list(const mi_build_opts *o, char ***paths, size_t *n, mi_buf *err)
{
	char root[PATH_MAX], idx[PATH_MAX], real_idx[PATH_MAX];
	struct stat sb;
	mi_walk w = {0};
	*paths = NULL;
	*n = 0;
	if (!realpath(o->repo, root) || stat(root, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
		mi_buf_addf(err, "'%s' is not a readable directory", o->repo);
		return ENOTDIR;
	}
	if (o->out_dir)
		snprintf(idx, sizeof(idx), "%s", o->out_dir);
	else
		snprintf(idx, sizeof(idx), "%s/.mcpidx", root);
	w.root = root;
	w.index_dir = realpath(idx, real_idx) ? real_idx : NULL;
	w.max_size = o->max_file_size ? o->max_file_size : (1u << 20);
	w.no_ignore = o->no_ignore;
	w.threads = walk_threads(o);
	mi_walk_run(&w);
	char **out = mi_xcalloc(w.n ? w.n : 1, sizeof(*out));
	size_t k = 0;
	int rootfd = mi_dir_open(root);
	for (size_t i = 0; i < w.n; i++) {
		char *src = NULL;
		size_t len;
		int rr = mi_read_file_beneath(root, rootfd, w.files[i].path, w.max_size, &src, &len);
		if (rr == MI_ERR_TOOBIG)
			len = w.max_size + 1;
		else if (rr)
			continue;
		bool skip = len > w.max_size || looks_binary(src, len);
		free(src);
		if (!skip) {
			out[k++] = w.files[i].path;
			w.files[i].path = NULL;
		}
	}
	mi_walk_release(&w);
	if (rootfd >= 0)
		close(rootfd);
	if (k)
		qsort(out, k, sizeof(*out), mi_walk_cmp);
	*paths = out;
	*n = k;
	return 0;
}

void mi_build_list_free(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}
