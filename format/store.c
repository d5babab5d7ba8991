/*
 * store.c - the LMDB environment behind an index: opening with version
 * checks, transactions, cursors, map growth.  The only file that includes
 * lmdb.h.
 */
#include "format.h"

#include <errno.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <msgpack.h>

#define MI_INITIAL_MAP (1ull << 30) /* grows by doubling on MDB_MAP_FULL */

static const char *const db_names[MI_DB__COUNT] = {
	[MI_DB_META] = "meta", [MI_DB_FILES] = "files", [MI_DB_SRC] = "src",
	[MI_DB_SYMS] = "syms", [MI_DB_NAMES] = "names", [MI_DB_REFS] = "refs",
	[MI_DB_FREFS] = "frefs", [MI_DB_FILEIDS] = "fileids",
	[MI_DB_CHUNKS] = "chunks", [MI_DB_POST] = "post", [MI_DB_TERMS] = "terms",
	[MI_DB_OUTLINES] = "outlines",
	[MI_DB_SERVERS] = "servers", [MI_DB_TOOLS] = "tools", [MI_DB_TOOLIDS] = "toolids",
	[MI_DB_TPOST] = "tpost",
};

bool mi_db_is_catalog(int db)
{
	return db == MI_DB_SERVERS || db == MI_DB_TOOLS || db == MI_DB_TOOLIDS ||
	       db == MI_DB_TPOST;
}

struct mi_store {
	MDB_env *env;              /* the environment */
	MDB_dbi dbi[MI_STORE_MAXDBS]; /* named databases, opened once */
	int ndbs;                  /* how many: MI_DB__COUNT for an index */
	bool index;                /* an index (version checks apply) */
	int flags;                 /* MI_STORE_* given to open */
	int version;               /* format version found, 0 if none */
	char *path;                /* as opened */
};

struct mi_txn {
	mi_store *st;   /* owning store */
	MDB_txn *txn;   /* LMDB transaction */
	bool write;     /* write transaction */
};

struct mi_cursor {
	MDB_cursor *cur; /* LMDB cursor, closed with the handle */
	uint8_t *pfx;    /* keys must start with this (mi_cursor_seek_prefix), or NULL */
	size_t plen;     /* its length */
};

const char *mi_strerror(int err)
{
	switch (err) {
	case 0: return "success";
	case MI_ERR_VERSION: return "index has another format version";
	case MI_ERR_NOINDEX: return "no index at that path";
	case MI_ERR_CORRUPT: return "index record is damaged";
	case MI_ERR_NOTFOUND: return "not found";
	case MI_ERR_ARG: return "invalid argument";
	case MI_ERR_PATH: return "path is outside the repository or malformed";
	case MI_ERR_TOOBIG: return "input is over the size limit";
	case MI_ERR_PARSE: return "parser could not run";
	case MI_ERR_CANCELLED: return "cancelled";
	}
	if (err < 0 && err >= MDB_KEYEXIST && err <= MDB_LAST_ERRCODE)
		return mdb_strerror(err);
	if (err > 0)
		return strerror(err);
	return "unknown error";
}

/* Maps LMDB's not-found onto ours so callers test one code. */
static int map_err(int rc)
{
	return rc == MDB_NOTFOUND ? MI_ERR_NOTFOUND : rc;
}

static int read_version(mi_store *st)
{
	MDB_txn *txn;
	int rc = mdb_txn_begin(st->env, NULL, MDB_RDONLY, &txn);
	if (rc)
		return rc;
	MDB_val k = {7, "version"}, v;
	st->version = 0;
	if (mdb_get(txn, st->dbi[MI_DB_META], &k, &v) == 0) {
		int64_t ver;
		st->version = mi_mp_get_int(v.mv_data, v.mv_size, &ver) || ver < 1 ||
					      ver > 1000000 ? -1 : (int)ver;
	}
	mdb_txn_abort(txn);
	return 0;
}

/* A named database is missing from a read-only open: no index at all, or
 * one whose meta says another format version (an older layout). */
static int missing_db(MDB_txn *txn, mi_store *st, int i)
{
	MDB_val k = {7, "version"}, v;
	int64_t ver;
	if (i > MI_DB_META && mdb_get(txn, st->dbi[MI_DB_META], &k, &v) == 0 &&
	    !mi_mp_get_int(v.mv_data, v.mv_size, &ver) && ver != MI_FORMAT_VERSION) {
		st->version = ver < 1 || ver > 1000000 ? -1 : (int)ver;
		return MI_ERR_VERSION;
	}
	return MI_ERR_NOINDEX;
}

_Static_assert(MI_DB__COUNT <= MI_STORE_MAXDBS, "raise MI_STORE_MAXDBS");

/* Opens an environment with the named databases names[0..n); index: the
 * names are the index's, so its format version is checked. */
static int store_open(const char *path, int flags, const char *const *names,
		      int n, bool index, mi_store **out)
{
	int rc;
	struct stat sb;
	bool rdonly = flags & MI_STORE_RDONLY;
	unsigned envflags = MDB_NOTLS | MDB_NORDAHEAD;
	mi_store *st;

	if (n < 1 || n > MI_STORE_MAXDBS)
		return MI_ERR_ARG;
	st = mi_xcalloc(1, sizeof(*st));
	st->flags = flags;
	st->ndbs = n;
	st->index = index;
	st->path = mi_xstrdup(path);

	if (flags & MI_STORE_FILE) {
		envflags |= MDB_NOSUBDIR;
		if (stat(path, &sb) < 0) {
			rc = errno == ENOENT ? MI_ERR_NOINDEX : errno;
			goto out_free;
		}
	} else if (stat(path, &sb) < 0) {
		if (errno != ENOENT || rdonly || !(flags & MI_STORE_CREATE)) {
			rc = errno == ENOENT ? MI_ERR_NOINDEX : errno;
			goto out_free;
		}
		if (mkdir(path, 0777) < 0) {
			rc = errno;
			goto out_free;
		}
	} else if (!S_ISDIR(sb.st_mode)) {
		rc = MI_ERR_NOINDEX;
		goto out_free;
	} else if (rdonly) {
		char data[4096];
		snprintf(data, sizeof(data), "%s/data.mdb", path);
		if (access(data, F_OK) < 0) {
			rc = MI_ERR_NOINDEX;
			goto out_free;
		}
	}
	if (rdonly)
		envflags |= MDB_RDONLY;
	if (flags & MI_STORE_NOLOCK)
		envflags |= MDB_NOLOCK;

	rc = mdb_env_create(&st->env);
	if (rc)
		goto out_free;
	mdb_env_set_maxdbs(st->env, (MDB_dbi)n + 4);
	mdb_env_set_maxreaders(st->env, 254);
	if (!rdonly) {
		/* MCPIDX_INITIAL_MAP (bytes) exists so tests can exercise growth. */
		const char *env = getenv("MCPIDX_INITIAL_MAP");
		unsigned long long sz = env ? strtoull(env, NULL, 10) : 0;
		mdb_env_set_mapsize(st->env, sz >= 65536 ? sz : MI_INITIAL_MAP);
	}
	rc = mdb_env_open(st->env, path, envflags, 0666);
	if (rc)
		goto out_env;

	MDB_txn *txn;
	rc = mdb_txn_begin(st->env, NULL, rdonly ? MDB_RDONLY : 0, &txn);
	if (rc)
		goto out_env;
	for (int i = 0; i < n; i++) {
		rc = mdb_dbi_open(txn, names[i], rdonly ? 0 : MDB_CREATE, &st->dbi[i]);
		if (rc) {
			if (rc == MDB_NOTFOUND)
				rc = index ? missing_db(txn, st, i) : MI_ERR_NOINDEX;
			mdb_txn_abort(txn);
			goto out_env;
		}
	}
	rc = mdb_txn_commit(txn);
	if (rc)
		goto out_env;
	rc = index ? read_version(st) : 0;
	if (rc || !index)
		goto out_ok;
	if (rdonly && st->version == 0) {
		rc = MI_ERR_NOINDEX;
		goto out_env;
	}
	if (st->version != 0 && st->version != MI_FORMAT_VERSION && rdonly) {
		rc = MI_ERR_VERSION;
		goto out_env;
	}
out_ok:
	if (rc)
		goto out_env;
	*out = st;
	return 0;

out_env:
	mdb_env_close(st->env);
out_free:
	free(st->path);
	free(st);
	return rc;
}

int mi_store_open(const char *path, int flags, mi_store **out)
{
	return store_open(path, flags, db_names, MI_DB__COUNT, true, out);
}

int mi_store_open_dbs(const char *path, int flags, const char *const *names,
		      int n, mi_store **out)
{
	return store_open(path, flags, names, n, false, out);
}

void mi_store_close(mi_store *st)
{
	if (!st)
		return;
	mdb_env_close(st->env);
	free(st->path);
	free(st);
}

int mi_store_version(mi_store *st)
{
	return st->version;
}

uint64_t mi_store_size(mi_store *st)
{
	MDB_envinfo info;
	MDB_stat ms;
	mdb_env_info(st->env, &info);
	mdb_env_stat(st->env, &ms);
	return (uint64_t)(info.me_last_pgno + 1) * ms.ms_psize;
}

int mi_store_grow(mi_store *st)
{
	MDB_envinfo info;
	mdb_env_info(st->env, &info);
	return mdb_env_set_mapsize(st->env, info.me_mapsize * 2);
}

bool mi_store_is_full(int err)
{
	return err == MDB_MAP_FULL;
}

int mi_store_copy(mi_store *st, const char *dst_file)
{
	return mdb_env_copy2(st->env, dst_file, MDB_CP_COMPACT);
}

/* ---- transactions ----------------------------------------------------------------- */

int mi_txn_begin(mi_store *st, bool write, mi_txn **out)
{
	MDB_txn *txn;
	int rc = mdb_txn_begin(st->env, NULL, write ? 0 : MDB_RDONLY, &txn);
	if (rc == MDB_MAP_RESIZED) {
		/* Another process grew the map: adopt its size and retry. */
		mdb_env_set_mapsize(st->env, 0);
		rc = mdb_txn_begin(st->env, NULL, write ? 0 : MDB_RDONLY, &txn);
	}
	if (rc)
		return rc;
	mi_txn *t = mi_xmalloc(sizeof(*t));
	t->st = st;
	t->txn = txn;
	t->write = write;
	*out = t;
	return 0;
}

int mi_txn_commit(mi_txn *t)
{
	int rc = mdb_txn_commit(t->txn);
	free(t);
	return rc;
}

void mi_txn_abort(mi_txn *t)
{
	if (!t)
		return;
	mdb_txn_abort(t->txn);
	free(t);
}

int mi_get(mi_txn *t, int db, const void *key, size_t klen,
	   const void **val, size_t *vlen)
{
	MDB_val k = {klen, (void *)key}, v;
	if (klen == 0 || klen > 511)
		return MI_ERR_NOTFOUND;
	int rc = mdb_get(t->txn, t->st->dbi[db], &k, &v);
	if (rc)
		return map_err(rc);
	*val = v.mv_data;
	*vlen = v.mv_size;
	return 0;
}

int mi_put(mi_txn *t, int db, const void *key, size_t klen,
	   const void *val, size_t vlen)
{
	MDB_val k = {klen, (void *)key}, v = {vlen, (void *)val};
	if (klen == 0 || klen > 511)
		return MI_ERR_TOOBIG;
	return mdb_put(t->txn, t->st->dbi[db], &k, &v, 0);
}

int mi_del(mi_txn *t, int db, const void *key, size_t klen)
{
	MDB_val k = {klen, (void *)key};
	if (klen == 0 || klen > 511)
		return 0;
	int rc = mdb_del(t->txn, t->st->dbi[db], &k, NULL);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

int mi_del_prefix(mi_txn *t, int db, const void *prefix, size_t plen)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(t->txn, t->st->dbi[db], &cur);
	if (rc)
		return rc;
	MDB_val k = {plen, (void *)prefix}, v;
	rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	while (rc == 0) {
		if (k.mv_size < plen || memcmp(k.mv_data, prefix, plen))
			break;
		rc = mdb_cursor_del(cur, 0);
		if (rc)
			break;
		rc = mdb_cursor_get(cur, &k, &v, MDB_GET_CURRENT);
		if (rc == MDB_NOTFOUND || rc == EINVAL)
			rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
	}
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

uint64_t mi_db_count(mi_txn *t, int db)
{
	MDB_stat ms;
	if (mdb_stat(t->txn, t->st->dbi[db], &ms))
		return 0;
	return ms.ms_entries;
}

int mi_db_clear(mi_txn *t, int db)
{
	return mdb_drop(t->txn, t->st->dbi[db], 0);
}

/* ---- cursors ---------------------------------------------------------------------- */

int mi_cursor_open(mi_txn *t, int db, mi_cursor **out)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(t->txn, t->st->dbi[db], &cur);
	if (rc)
		return rc;
	mi_cursor *c = mi_xcalloc(1, sizeof(*c));
	c->cur = cur;
	*out = c;
	return 0;
}

static int cursor_get(mi_cursor *c, MDB_val *k, MDB_cursor_op op,
		      const void **kp, size_t *kl, const void **vp, size_t *vl)
{
	MDB_val v;
	int rc = mdb_cursor_get(c->cur, k, &v, op);
	if (rc)
		return map_err(rc);
	if (c->pfx && (k->mv_size < c->plen || memcmp(k->mv_data, c->pfx, c->plen)))
		return MI_ERR_NOTFOUND;
	if (kp)
		*kp = k->mv_data;
	if (kl)
		*kl = k->mv_size;
	if (vp)
		*vp = v.mv_data;
	if (vl)
		*vl = v.mv_size;
	return 0;
}

int mi_cursor_seek(mi_cursor *c, const void *key, size_t klen,
		   const void **k, size_t *kl, const void **v, size_t *vl)
{
	MDB_val kk = {klen, (void *)key};
	if (klen == 0)
		return cursor_get(c, &kk, MDB_FIRST, k, kl, v, vl);
	if (klen > 511)
		return MI_ERR_NOTFOUND;
	return cursor_get(c, &kk, MDB_SET_RANGE, k, kl, v, vl);
}

int mi_cursor_seek_prefix(mi_cursor *c, const void *prefix, size_t plen,
			  const void **k, size_t *kl, const void **v, size_t *vl)
{
	free(c->pfx);
	c->pfx = mi_xmalloc(plen ? plen : 1);
	if (plen)
		memcpy(c->pfx, prefix, plen);
	c->plen = plen;
	return mi_cursor_seek(c, prefix, plen, k, kl, v, vl);
}

int mi_cursor_next(mi_cursor *c, const void **k, size_t *kl,
		   const void **v, size_t *vl)
{
	MDB_val kk;
	return cursor_get(c, &kk, MDB_NEXT, k, kl, v, vl);
}

void mi_cursor_close(mi_cursor *c)
{
	if (!c)
		return;
	mdb_cursor_close(c->cur);
	free(c->pfx);
	free(c);
}

/* ---- meta ------------------------------------------------------------------------- */

static int meta_buf_write(void *data, const char *buf, size_t len)
{
	mi_buf_add(data, buf, len);
	return 0;
}

int mi_meta_put_int(mi_txn *t, const char *key, int64_t v)
{
	mi_buf b = {0};
	msgpack_packer pk;
	msgpack_packer_init(&pk, &b, meta_buf_write);
	msgpack_pack_int64(&pk, v);
	int rc = mi_put(t, MI_DB_META, key, strlen(key), b.buf, b.len);
	mi_buf_release(&b);
	return rc;
}

int mi_meta_put_str(mi_txn *t, const char *key, const char *v)
{
	mi_buf b = {0};
	msgpack_packer pk;
	msgpack_packer_init(&pk, &b, meta_buf_write);
	size_t n = strlen(v);
	msgpack_pack_str(&pk, n);
	msgpack_pack_str_body(&pk, v, n);
	int rc = mi_put(t, MI_DB_META, key, strlen(key), b.buf, b.len);
	mi_buf_release(&b);
	return rc;
}

int mi_meta_get_int(mi_txn *t, const char *key, int64_t *v)
{
	const void *val;
	size_t vl;
	int rc = mi_get(t, MI_DB_META, key, strlen(key), &val, &vl);
	if (rc)
		return rc;
	return mi_mp_get_int(val, vl, v);
}

int mi_meta_get_str(mi_txn *t, const char *key, char **v)
{
	const void *val;
	const char *s;
	size_t vl, n;
	int rc = mi_get(t, MI_DB_META, key, strlen(key), &val, &vl);
	if (rc)
		return rc;
	if ((rc = mi_mp_get_str(val, vl, &s, &n)))
		return rc;
	*v = mi_xstrndup(s, n);
	return 0;
}
