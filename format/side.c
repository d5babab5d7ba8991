/*
 * side.c - the side store: a writable LMDB environment beside a read-only
 * index, holding records of one shape in named sub-databases (side.h).
 * Storage goes through store.c's generic opener; this file never includes
 * lmdb.h.
 */
#include "side.h"
#include "mp_read.h"

#include <errno.h>
#include <limits.h>
#include <msgpack.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define SIDE_FIELDS 8      /* fields of a record value, version 1 */
#define SIDE_MAX_KEY 500   /* LMDB's limit is 511 */

static const char *const side_names[MI_SIDE__COUNT] = {
	[MI_SIDE_META] = "meta", [MI_SIDE_ARTIFACTS] = "artifacts",
	[MI_SIDE_DIAGS] = "diags", [MI_SIDE_ALIASES] = "aliases",
	[MI_SIDE_APPROVALS] = "approvals", [MI_SIDE_LOG] = "log",
	[MI_SIDE_CHAINS] = "chains",
};

/* Logs: keyed by be64(seq), written with mi_side_append. */
static const bool side_is_log[MI_SIDE__COUNT] = {[MI_SIDE_LOG] = true};

/* mi_meta_* read and write db 0, which is the side store's meta too. */
_Static_assert((int)MI_SIDE_META == (int)MI_DB_META, "side meta must be db 0");

/*
 * One environment per store per process, shared by every opener: LMDB's
 * locks are the process's, so a second environment on the same files in
 * one process takes them as if alone and resets the shared reader table
 * and writer mutex under the first (compiles ending together deadlocked
 * in mdb_txn_begin, and lost or damaged the store).
 */
struct mi_side {
	mi_store *st;  /* the environment */
	char *dir;     /* where it was opened */
	char *key;     /* its real path: what openers share it by */
	int refs;      /* openers (side_mu) */
	pthread_rwlock_t lk; /* held shared by each transaction, alone to grow
			      * the map (LMDB: no transaction may be open) */
	struct mi_side *next; /* in side_open */
};

static pthread_mutex_t side_mu = PTHREAD_MUTEX_INITIALIZER;
static mi_side *side_open;

struct mi_side_txn {
	mi_side *s;    /* owning store */
	mi_txn *t;     /* the store transaction */
	char **mem;    /* decoded records' string blocks, freed at the end */
	size_t nmem;   /* used */
	size_t capmem; /* allocated */
};

const char *mi_side_db_name(int db)
{
	return db >= 0 && db < MI_SIDE__COUNT ? side_names[db] : NULL;
}

int mi_side_db_find(const char *name)
{
	for (int i = 0; i < MI_SIDE__COUNT; i++)
		if (strcmp(side_names[i], name) == 0)
			return i;
	return -1;
}

int64_t mi_side_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- where it lives ------------------------------------------------------------ */

char *mi_side_locate(const char *index_path, const char *override)
{
	const char *env = getenv("MCPIDX_SIDE");
	struct stat sb;
	mi_buf b = {0};
	if (override && *override)
		return mi_xstrdup(override);
	if (env && *env)
		return mi_xstrdup(env);
	if (!index_path || stat(index_path, &sb) != 0)
		return NULL;
	if (S_ISDIR(sb.st_mode))
		mi_buf_addf(&b, "%s/side", index_path);
	else if (S_ISREG(sb.st_mode))
		mi_buf_addf(&b, "%s.side", index_path);
	else
		return NULL;
	return mi_buf_detach(&b);
}

/* Records the layout version in a new store, or checks an existing one. */
static int check_version(mi_side_txn *t, void *ctx)
{
	int64_t v;
	int rc = mi_meta_get_int(t->t, "version", &v);
	if (rc == MI_ERR_NOTFOUND)
		return mi_meta_put_int(t->t, "version", MI_SIDE_VERSION);
	if (rc)
		return rc;
	return v == MI_SIDE_VERSION ? 0 : MI_ERR_VERSION;
}

/* The store's directory and files are its own: not links (a link in a
 * shipped or committed index would have the store write where it points)
 * and, when present, a directory and regular files.  0 or MI_ERR_LINK. */
static int side_not_linked(const char *dir)
{
	static const char *const files[] = { "", "/data.mdb", "/lock.mdb" };
	char p[PATH_MAX];
	struct stat sb;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(p, sizeof p, "%s%s", dir, files[i]);
		if (lstat(p, &sb) != 0)
			continue;
		if (S_ISLNK(sb.st_mode) || (i ? !S_ISREG(sb.st_mode) : !S_ISDIR(sb.st_mode)))
			return MI_ERR_LINK;
	}
	return 0;
}

int mi_side_open(const char *dir, int flags, mi_side **out)
{
	struct stat sb;
	char data[PATH_MAX], real[PATH_MAX];
	const char *key;
	mi_side *s;
	int rc;

	*out = NULL;
	if (!dir || !*dir)
		return MI_ERR_ARG;
	snprintf(data, sizeof data, "%s/data.mdb", dir);
	if (!(flags & MI_SIDE_CREATE) && stat(data, &sb) != 0)
		return MI_ERR_NOINDEX;
	if (stat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode))
		return ENOTDIR;
	if ((rc = side_not_linked(dir)))
		return rc;
	if ((flags & MI_SIDE_CREATE) && (rc = mi_make_dirs(dir)))
		return rc;
	key = realpath(dir, real) ? real : dir;
	pthread_mutex_lock(&side_mu);
	for (s = side_open; s; s = s->next)
		if (strcmp(s->key, key) == 0) {
			s->refs++;
			pthread_mutex_unlock(&side_mu);
			*out = s;
			return 0;
		}
	s = mi_xcalloc(1, sizeof *s);
	s->dir = mi_xstrdup(dir);
	s->key = mi_xstrdup(key);
	s->refs = 1;
	pthread_rwlock_init(&s->lk, NULL);
	rc = mi_store_open_dbs(dir, 0, side_names, MI_SIDE__COUNT, &s->st);
	if (rc)
		goto out_free;
	rc = mi_side_write(s, check_version, NULL);
	if (rc)
		goto out_close;
	s->next = side_open;
	side_open = s;
	pthread_mutex_unlock(&side_mu);
	*out = s;
	return 0;

out_close:
	mi_store_close(s->st);
out_free:
	pthread_mutex_unlock(&side_mu);
	pthread_rwlock_destroy(&s->lk);
	free(s->dir);
	free(s->key);
	free(s);
	return rc;
}

void mi_side_close(mi_side *s)
{
	mi_side **pp;
	if (!s)
		return;
	pthread_mutex_lock(&side_mu);
	if (--s->refs > 0) {
		pthread_mutex_unlock(&side_mu);
		return;
	}
	for (pp = &side_open; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	pthread_mutex_unlock(&side_mu);
	mi_store_close(s->st);
	pthread_rwlock_destroy(&s->lk);
	free(s->dir);
	free(s->key);
	free(s);
}

const char *mi_side_dir(const mi_side *s)
{
	return s->dir;
}

/* ---- transactions -------------------------------------------------------------- */

int mi_side_begin(mi_side *s, bool write, mi_side_txn **out)
{
	mi_txn *t;
	pthread_rwlock_rdlock(&s->lk);
	int rc = mi_txn_begin(s->st, write, &t);
	if (rc) {
		pthread_rwlock_unlock(&s->lk);
		return rc;
	}
	*out = mi_xcalloc(1, sizeof **out);
	(*out)->s = s;
	(*out)->t = t;
	return 0;
}

static void txn_free(mi_side_txn *t)
{
	for (size_t i = 0; i < t->nmem; i++)
		free(t->mem[i]);
	free(t->mem);
	free(t);
}

int mi_side_commit(mi_side_txn *t)
{
	mi_side *s = t->s;
	int rc = mi_txn_commit(t->t);
	txn_free(t);
	pthread_rwlock_unlock(&s->lk);
	return rc;
}

void mi_side_abort(mi_side_txn *t)
{
	if (!t)
		return;
	mi_side *s = t->s;
	mi_txn_abort(t->t);
	txn_free(t);
	pthread_rwlock_unlock(&s->lk);
}

int mi_side_write(mi_side *s, mi_side_write_fn fn, void *ctx)
{
	mi_side_txn *t;
	int rc;
	for (int tries = 0; tries < 16; tries++) {
		rc = mi_side_begin(s, true, &t);
		if (rc)
			return rc;
		rc = fn(t, ctx);
		if (rc)
			mi_side_abort(t);
		else
			rc = mi_side_commit(t);
		if (!mi_store_is_full(rc))
			return rc;
		/* No transaction of this process may be open while the map
		 * grows: wait for the others' to end (a thread holding one
		 * while it writes would wait for itself: after 5 s it grows
		 * as before). */
		struct timespec dl;
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += 5;
		bool alone = pthread_rwlock_timedwrlock(&s->lk, &dl) == 0;
		rc = mi_store_grow(s->st);
		if (alone)
			pthread_rwlock_unlock(&s->lk);
		if (rc)
			return rc;
	}
	return rc;
}

/* ---- records ------------------------------------------------------------------- */

static int buf_write(void *data, const char *buf, size_t len)
{
	mi_buf_add(data, buf, len);
	return 0;
}

static void pack_str(msgpack_packer *pk, const char *s, size_t n)
{
	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s ? s : "", n);
}

void mi_side_rec_encode(const mi_side_rec *r, mi_buf *out)
{
	msgpack_packer pk;
	msgpack_packer_init(&pk, out, buf_write);
	msgpack_pack_array(&pk, SIDE_FIELDS);
	pack_str(&pk, r->path, r->path ? strlen(r->path) : 0);
	pack_str(&pk, r->kind, r->kind ? strlen(r->kind) : 0);
	pack_str(&pk, r->name, r->name ? strlen(r->name) : 0);
	if (r->has_hash) {
		msgpack_pack_bin(&pk, 16);
		msgpack_pack_bin_body(&pk, r->hash, 16);
	} else {
		msgpack_pack_nil(&pk);
	}
	msgpack_pack_int64(&pk, r->created_ms ? r->created_ms : mi_side_now_ms());
	pack_str(&pk, r->corr, r->corr ? strlen(r->corr) : 0);
	msgpack_pack_int64(&pk, r->num);
	pack_str(&pk, r->text, r->text ? r->text_len : 0);
}

int mi_side_rec_decode(const void *data, size_t len, mi_side_rec *r, char **mem)
{
	const uint8_t *sp[5];
	size_t sn[5], total = 0;
	const char **dst[5] = {&r->path, &r->kind, &r->name, &r->corr, &r->text};
	mp_rd in = {data, (const uint8_t *)data + len, false};
	const uint8_t *h;
	size_t hn;
	char *p;

	*mem = NULL;
	memset(r, 0, sizeof *r);
	if (rd_array(&in) < SIDE_FIELDS || in.bad)
		return MI_ERR_CORRUPT;
	for (int i = 0; i < 3; i++)
		sp[i] = rd_raw(&in, false, &sn[i]);
	if (in.p < in.end && *in.p == 0xc0) {
		in.p++;
	} else {
		h = rd_raw(&in, true, &hn);
		if (!in.bad && hn != 16)
			in.bad = true;
		if (!in.bad) {
			memcpy(r->hash, h, 16);
			r->has_hash = true;
		}
	}
	r->created_ms = rd_int(&in);
	sp[3] = rd_raw(&in, false, &sn[3]);
	r->num = rd_int(&in);
	sp[4] = rd_raw(&in, false, &sn[4]);
	if (in.bad) {
		memset(r, 0, sizeof *r);
		return MI_ERR_CORRUPT;
	}
	for (int i = 0; i < 5; i++)
		total += sn[i] + 1;
	p = *mem = mi_xmalloc(total);
	for (int i = 0; i < 5; i++) {
		if (sn[i])
			memcpy(p, sp[i], sn[i]);
		p[sn[i]] = 0;
		*dst[i] = p;
		p += sn[i] + 1;
	}
	r->text_len = sn[4];
	return 0;
}

/* Decodes into r with the strings owned by t. */
static int txn_decode(mi_side_txn *t, const void *data, size_t len, mi_side_rec *r)
{
	char *mem;
	int rc = mi_side_rec_decode(data, len, r, &mem);
	if (rc)
		return rc;
	if (t->nmem == t->capmem) {
		t->capmem = t->capmem ? t->capmem * 2 : 8;
		t->mem = mi_xrealloc(t->mem, t->capmem * sizeof *t->mem);
	}
	t->mem[t->nmem++] = mem;
	return 0;
}

void mi_side_key(mi_buf *out, const char *path, const char *kind, const char *name)
{
	mi_buf_reset(out);
	mi_buf_adds(out, path ? path : "");
	mi_buf_addc(out, 0);
	mi_buf_adds(out, kind ? kind : "");
	mi_buf_addc(out, 0);
	mi_buf_adds(out, name ? name : "");
}

static bool db_ok(int db)
{
	return db > MI_SIDE_META && db < MI_SIDE__COUNT;
}

/* Counts writes to db, so readers can tell when a cache of it is old. */
static int bump_gen(mi_side_txn *t, int db)
{
	char key[64];
	int64_t g = 0;
	int rc;
	snprintf(key, sizeof key, "gen.%s", side_names[db]);
	rc = mi_meta_get_int(t->t, key, &g);
	if (rc && rc != MI_ERR_NOTFOUND)
		return rc;
	return mi_meta_put_int(t->t, key, g + 1);
}

int64_t mi_side_gen(mi_side_txn *t, int db)
{
	char key[64];
	int64_t g = 0;
	if (!db_ok(db))
		return 0;
	snprintf(key, sizeof key, "gen.%s", side_names[db]);
	mi_meta_get_int(t->t, key, &g);
	return g;
}

int mi_side_put(mi_side_txn *t, int db, const mi_side_rec *r)
{
	mi_buf k = {0}, v = {0};
	int rc;
	if (!db_ok(db))
		return MI_ERR_ARG;
	mi_side_key(&k, r->path, r->kind, r->name);
	if (k.len > SIDE_MAX_KEY) {
		rc = MI_ERR_TOOBIG;
		goto out;
	}
	mi_side_rec_encode(r, &v);
	rc = mi_put(t->t, db, k.buf, k.len, v.buf, v.len);
	if (!rc)
		rc = bump_gen(t, db);
out:
	mi_buf_release(&k);
	mi_buf_release(&v);
	return rc;
}

int mi_side_get(mi_side_txn *t, int db, const char *path, const char *kind,
		const char *name, mi_side_rec *r)
{
	mi_buf k = {0};
	const void *v;
	size_t vl;
	int rc;
	if (!db_ok(db))
		return MI_ERR_ARG;
	mi_side_key(&k, path, kind, name);
	rc = mi_get(t->t, db, k.buf, k.len, &v, &vl);
	if (!rc)
		rc = txn_decode(t, v, vl, r);
	mi_buf_release(&k);
	return rc;
}

int mi_side_del(mi_side_txn *t, int db, const char *path, const char *kind,
		const char *name)
{
	mi_buf k = {0};
	const void *v;
	size_t vl;
	int rc;
	if (!db_ok(db))
		return MI_ERR_ARG;
	mi_side_key(&k, path, kind, name);
	rc = mi_get(t->t, db, k.buf, k.len, &v, &vl);
	if (!rc)
		rc = mi_del(t->t, db, k.buf, k.len);
	if (!rc)
		rc = bump_gen(t, db);
	mi_buf_release(&k);
	return rc;
}

int mi_side_append(mi_side_txn *t, int db, const mi_side_rec *r, uint64_t *seq_out)
{
	char ck[64];
	uint8_t key[8];
	int64_t seq = 0;
	mi_buf v = {0};
	int rc;
	if (!db_ok(db))
		return MI_ERR_ARG;
	snprintf(ck, sizeof ck, "seq.%s", side_names[db]);
	rc = mi_meta_get_int(t->t, ck, &seq);
	if (rc && rc != MI_ERR_NOTFOUND)
		return rc;
	seq++;
	for (int i = 0; i < 8; i++)
		key[i] = (uint8_t)((uint64_t)seq >> (56 - 8 * i));
	mi_side_rec_encode(r, &v);
	rc = mi_put(t->t, db, key, 8, v.buf, v.len);
	if (!rc && side_is_log[db] && seq > MI_SIDE_LOG_KEEP) {
		/* the one that falls out of the window (gone already when an
		 * earlier append dropped it or the log is new) */
		uint8_t old[8];
		uint64_t o = (uint64_t)seq - MI_SIDE_LOG_KEEP;
		for (int i = 0; i < 8; i++)
			old[i] = (uint8_t)(o >> (56 - 8 * i));
		rc = mi_del(t->t, db, old, 8);
		if (rc == MI_ERR_NOTFOUND)
			rc = 0;
	}
	if (!rc)
		rc = mi_meta_put_int(t->t, ck, seq);
	if (!rc)
		rc = bump_gen(t, db);
	if (!rc && seq_out)
		*seq_out = (uint64_t)seq;
	mi_buf_release(&v);
	return rc;
}

int mi_side_scan(mi_side_txn *t, int db, const void *prefix, size_t plen,
		 mi_side_fn fn, void *ctx)
{
	mi_cursor *cur;
	const void *k, *v;
	size_t kl, vl;
	mi_side_rec r;
	int rc;
	if (!db_ok(db))
		return MI_ERR_ARG;
	rc = mi_cursor_open(t->t, db, &cur);
	if (rc)
		return rc;
	for (rc = mi_cursor_seek_prefix(cur, prefix, plen, &k, &kl, &v, &vl); !rc;
	     rc = mi_cursor_next(cur, &k, &kl, &v, &vl)) {
		rc = txn_decode(t, v, vl, &r);
		if (rc)
			break;
		if (kl == 8 && side_is_log[db])
			for (int i = 0; i < 8; i++)
				r.seq = r.seq << 8 | ((const uint8_t *)k)[i];
		rc = fn(ctx, &r);
		if (rc)
			break;
	}
	mi_cursor_close(cur);
	return rc == MI_ERR_NOTFOUND || rc == 1 ? 0 : rc;
}

uint64_t mi_side_count(mi_side_txn *t, int db)
{
	return db_ok(db) ? mi_db_count(t->t, db) : 0;
}

/* ---- copying records into another side store ---------------------------------------- */

typedef struct export_ctx {
	mi_side *src;          /* where from */
	const int *dbs;        /* which databases */
	size_t ndbs;
	uint64_t n;            /* records copied */
} export_ctx;

typedef struct copy_ctx {
	mi_side_txn *dst;      /* the write transaction */
	int db;                /* the database being copied */
	uint64_t n;            /* records copied */
} copy_ctx;

static int copy_fn(void *ctx, const mi_side_rec *r)
{
	copy_ctx *c = ctx;
	int rc = side_is_log[c->db] ? mi_side_append(c->dst, c->db, r, NULL) :
				       mi_side_put(c->dst, c->db, r);
	if (!rc)
		c->n++;
	return rc;
}

static int export_fn(mi_side_txn *t, void *ctx)
{
	export_ctx *e = ctx;
	mi_side_txn *st;
	int rc = mi_side_begin(e->src, false, &st);
	if (rc)
		return rc;
	e->n = 0;
	for (size_t i = 0; !rc && i < e->ndbs; i++) {
		copy_ctx c = {t, e->dbs[i], 0};
		if (!db_ok(e->dbs[i])) {
			rc = MI_ERR_ARG;
			break;
		}
		rc = mi_db_clear(t->t, e->dbs[i]);
		if (!rc)
			rc = mi_side_scan(st, e->dbs[i], "", 0, copy_fn, &c);
		e->n += c.n;
	}
	mi_side_abort(st);
	return rc;
}

int mi_side_export(mi_side *src, const char *dst_dir, const int *dbs, size_t ndbs,
		   uint64_t *n)
{
	mi_side *dst;
	export_ctx e = {src, dbs, ndbs, 0};
	int rc = mi_side_open(dst_dir, MI_SIDE_CREATE, &dst);
	if (rc)
		return rc;
	rc = mi_side_write(dst, export_fn, &e);
	mi_side_close(dst);
	if (n)
		*n = rc ? 0 : e.n;
	return rc;
}
