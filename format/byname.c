/*
 * byname.c - definitions and references by name (MI_DB_NAMES, MI_DB_REFS),
 * and the blocks of postings (MI_DB_POST) that are laid out the same way.
 *
 * One entry per (name, file), in key order `name \0 be32(file_id)`: an
 * entry names its file by id, not by path, and a file's uses of one name
 * share it.  Entries are kept in front-coded blocks of many names (most
 * names are defined in one file), so the two databases cost a few bytes
 * per definition or reference.  docs/format.md gives the layout and its
 * cost.
 */
#include "format.h"

#include <stdlib.h>
#include <string.h>

#define BN_MAX_NAME 200

/* ---- writing --------------------------------------------------------------- */

typedef struct bn_sort {
	const mi_parsed *p;
	bool refs;
} bn_sort;

static const char *bn_name(const bn_sort *s, uint32_t i)
{
	return s->refs ? s->p->refs[i].callee : s->p->syms[i].name;
}

/* qsort has no context argument: the writer is reentrant through this
 * thread-local one. */
static _Thread_local const bn_sort *bn_cur;

static int bn_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(bn_name(bn_cur, x), bn_name(bn_cur, y));
	if (c)
		return c;
	if (bn_cur->refs && bn_cur->p->refs[x].line != bn_cur->p->refs[y].line)
		return bn_cur->p->refs[x].line < bn_cur->p->refs[y].line ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void bn_varint(mi_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	mi_buf_add(b, tmp, mi_varint_put(tmp, v));
}

bool mi_path_testlike(const char *path, size_t pl)
{
	return memmem(path, pl, "test", 4) || memmem(path, pl, "example", 7);
}

static int bn_put(const mi_parsed *p, bool refs, uint32_t fid, bool testlike, mi_kv_fn fn,
		  void *ctx)
{
	bn_sort s = {p, refs};
	size_t n = refs ? p->nrefs : p->nsyms, m = 0;
	uint32_t *ix = mi_xmalloc((n ? n : 1) * sizeof(*ix));
	for (size_t i = 0; i < n; i++) {
		const char *nm = bn_name(&s, (uint32_t)i);
		if (nm && nm[0] && strlen(nm) <= BN_MAX_NAME)
			ix[m++] = (uint32_t)i;
	}
	const bn_sort *saved = bn_cur;
	bn_cur = &s;
	qsort(ix, m, sizeof(*ix), bn_cmp);
	bn_cur = saved;
	mi_buf k = {0}, v = {0};
	int rc = 0;
	for (size_t i = 0; i < m && !rc;) {
		const char *nm = bn_name(&s, ix[i]);
		uint32_t prev = 0, pbyte = 0;
		mi_buf_reset(&k);
		mi_buf_reset(&v);
		mi_buf_adds(&k, nm);
		mi_buf_addc(&k, 0);
		uint8_t b4[4];
		mi_be32(b4, fid);
		mi_buf_add(&k, b4, 4);
		for (; i < m && !strcmp(bn_name(&s, ix[i]), nm); i++) {
			if (!refs) {
				const mi_symbol *sy = &p->syms[ix[i]];
				bn_varint(&v, ix[i] - prev);
				mi_buf_addc(&v, (char)((sy->kind & 0x3f) | (testlike ? 0x40 : 0) |
						       (sy->vis ? 0x80 : 0)));
				prev = ix[i];
				continue;
			}
			const mi_ref *r = &p->refs[ix[i]];
			int64_t d = (int64_t)r->line_byte - (int64_t)pbyte;
			bn_varint(&v, r->line - prev);
			bn_varint(&v, (uint64_t)((int64_t)r->caller_idx + 1));
			bn_varint(&v, d < 0 ? ((uint64_t)(-d) << 1) - 1 : (uint64_t)d << 1);
			mi_buf_addc(&v, (char)r->kind);
			prev = r->line;
			pbyte = r->line_byte;
		}
		rc = fn(ctx, k.buf, k.len, v.buf ? v.buf : "", v.len);
	}
	mi_buf_release(&k);
	mi_buf_release(&v);
	free(ix);
	return rc;
}

int mi_byname_put_names(const mi_parsed *p, uint32_t fid, const char *path, mi_kv_fn fn,
			void *ctx)
{
	return bn_put(p, false, fid, mi_path_testlike(path, strlen(path)), fn, ctx);
}

int mi_byname_put_refs(const mi_parsed *p, uint32_t fid, mi_kv_fn fn, void *ctx)
{
	return bn_put(p, true, fid, false, fn, ctx);
}

/* ---- names in blocks (MI_DB_NAMES) ------------------------------------------ */

/*
 * A names value is a block of (name, file) records in key order, each
 *	varint shared   bytes of the name the record before has too
 *	varint rest     then the rest of the name
 *	bytes           the rest
 *	varint file     file id; for the same name as the record before,
 *	                minus that record's (>= 1)
 *	varint len      then the file's definitions of the name (see above)
 *	bytes
 * keyed `name \0 be32(file_id)` of its last record.  A name's records may
 * span blocks; a block holds many names.
 */
typedef struct nb_rec {
	char name[BN_MAX_NAME + 1];
	size_t nl;
	uint32_t fid;
	const uint8_t *v;
	size_t vl;
} nb_rec;

/* Decodes the record at *p (prev: the one before in the block, nl 0 and
 * first set for none): 1, 0 at the end, -1 damaged. */
static int nb_next(const uint8_t **p, const uint8_t *e, nb_rec *r, bool first)
{
	uint64_t sh, sl, f, vl;
	if (*p >= e)
		return 0;
	if (!mi_varint_get(p, e, &sh) || sh > (first ? 0 : r->nl) || !mi_varint_get(p, e, &sl) ||
	    sh + sl == 0 || sh + sl > BN_MAX_NAME || sl > (uint64_t)(e - *p))
		return -1;
	bool same = !first && !sl && sh == r->nl;
	memcpy(r->name + sh, *p, sl);
	*p += sl;
	r->nl = sh + sl;
	r->name[r->nl] = 0;
	if (memchr(r->name, 0, r->nl) || !mi_varint_get(p, e, &f) ||
	    (same && (!f || f > UINT32_MAX - r->fid)) || f > UINT32_MAX ||
	    !mi_varint_get(p, e, &vl) || vl > (uint64_t)(e - *p))
		return -1;
	r->fid = same ? r->fid + (uint32_t)f : (uint32_t)f;
	r->v = *p;
	r->vl = vl;
	*p += vl;
	return 1;
}

/* Appends record (name, fid, v) to blk after prev (NULL: the first). */
static void nb_add(mi_buf *blk, const nb_rec *prev, const char *name, size_t nl, uint32_t fid,
		   const void *v, size_t vl)
{
	size_t sh = 0;
	if (prev)
		while (sh < prev->nl && sh < nl && prev->name[sh] == name[sh])
			sh++;
	bool same = prev && sh == nl && nl == prev->nl;
	bn_varint(blk, sh);
	bn_varint(blk, nl - sh);
	mi_buf_add(blk, name + sh, nl - sh);
	bn_varint(blk, same ? fid - prev->fid : fid);
	bn_varint(blk, vl);
	mi_buf_add(blk, v, vl);
}

/* Compares record r with (name, fid) in key order. */
static int nb_cmp(const nb_rec *r, const char *name, size_t nl, uint32_t fid)
{
	int c = memcmp(r->name, name, r->nl < nl ? r->nl : nl);
	if (c)
		return c;
	if (r->nl != nl)
		return r->nl < nl ? -1 : 1;
	return r->fid < fid ? -1 : r->fid > fid;
}

static void nb_key(mi_buf *k, const char *name, size_t nl, uint32_t fid)
{
	uint8_t b4[4];
	mi_buf_reset(k);
	mi_buf_add(k, name, nl);
	mi_buf_addc(k, 0);
	mi_be32(b4, fid);
	mi_buf_add(k, b4, 4);
}

int mi_names_writer_add(mi_names_writer *w, const void *k, size_t kl, const void *v, size_t vl,
			mi_kv_fn fn, void *ctx)
{
	size_t nl = kl >= 5 ? strnlen(k, kl - 4) : kl;
	if (nl + 5 != kl || !nl || nl > BN_MAX_NAME)
		return 0; /* not a names key */
	uint32_t fid = mi_rd32((const uint8_t *)k + nl + 1);
	nb_rec *prev = w->blk.len ? w->last : NULL;
	if (!w->last)
		w->last = mi_xcalloc(1, sizeof(*w->last));
	nb_add(&w->blk, prev, k, nl, fid, v, vl);
	memcpy(w->last->name, k, nl);
	w->last->nl = nl;
	w->last->fid = fid;
	if (w->blk.len < MI_NAMES_BLOCK)
		return 0;
	return mi_names_writer_flush(w, fn, ctx);
}

int mi_names_writer_flush(mi_names_writer *w, mi_kv_fn fn, void *ctx)
{
	int rc = 0;
	if (w->blk.len) {
		nb_key(&w->key, w->last->name, w->last->nl, w->last->fid);
		rc = fn(ctx, w->key.buf, w->key.len, w->blk.buf, w->blk.len);
	}
	mi_buf_reset(&w->blk);
	return rc;
}

void mi_names_writer_release(mi_names_writer *w)
{
	mi_buf_release(&w->blk);
	mi_buf_release(&w->key);
	free(w->last);
	w->last = NULL;
}

/* A block's records, copied out of the map (puts move it). */
typedef struct nb_list {
	nb_rec *r;
	size_t n, cap;
	mi_buf vals;      /* the records' values, r[i].v an offset into it */
} nb_list;

static int nb_load(nb_list *l, const void *v, size_t vl)
{
	const uint8_t *p = v, *e = p + vl;
	nb_rec cur = {0};
	int got;
	l->n = 0;
	mi_buf_reset(&l->vals);
	while ((got = nb_next(&p, e, &cur, l->n == 0)) == 1) {
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 64;
			l->r = mi_xrealloc(l->r, l->cap * sizeof(*l->r));
		}
		l->r[l->n] = cur;
		l->r[l->n].v = (const uint8_t *)(uintptr_t)l->vals.len;
		mi_buf_add(&l->vals, cur.v, cur.vl);
		l->n++;
	}
	return got < 0 ? MI_ERR_CORRUPT : 0;
}

/* Writes records [from, to) of l as one block under its last record's key. */
static int nb_store(mi_txn *t, int db, const nb_list *l, size_t from, size_t to, mi_buf *k,
		    mi_buf *b)
{
	mi_buf_reset(b);
	for (size_t i = from; i < to; i++)
		nb_add(b, i > from ? &l->r[i - 1] : NULL, l->r[i].name, l->r[i].nl, l->r[i].fid,
		       l->vals.buf + (uintptr_t)l->r[i].v, l->r[i].vl);
	nb_key(k, l->r[to - 1].name, l->r[to - 1].nl, l->r[to - 1].fid);
	return mi_put(t, db, k->buf, k->len, b->buf, b->len);
}

/* Bytes records [from, to) take in a block (about: prefixes not shared). */
static size_t nb_size(const nb_list *l, size_t from, size_t to)
{
	size_t s = 0;
	for (size_t i = from; i < to; i++)
		s += l->r[i].nl + l->r[i].vl + 4;
	return s;
}

/*
 * Puts (sign > 0) or deletes one (name, file) entry of an update, key
 * `name \0 be32(fid)`: into or out of the block whose key is the first at
 * or after it.  A record past the last block joins that block while it is
 * short, else starts one (as a fresh build ends a block); a block that
 * grows past twice MI_NAMES_BLOCK is split in two; one left empty goes.
 */
static int bn_update(mi_txn *t, int db, const void *key, size_t kl, const void *v, size_t vl,
		     int sign)
{
	size_t nl = kl >= 5 ? strnlen(key, kl - 4) : kl;
	if (nl + 5 != kl || !nl || nl > BN_MAX_NAME)
		return 0;
	const char *name = key;
	uint32_t fid = mi_rd32((const uint8_t *)key + nl + 1);
	mi_cursor *c = NULL;
	const void *k, *bv;
	size_t bkl, bvl;
	nb_list l = {0};
	mi_buf ok = {0}, nk = {0}, b = {0};
	int rc = mi_cursor_open(t, db, &c);
	if (rc)
		return rc;
	rc = mi_cursor_seek(c, key, kl, &k, &bkl, &bv, &bvl);
	bool past = rc == MI_ERR_NOTFOUND;
	if (past && sign > 0)
		rc = mi_cursor_prev(c, &k, &bkl, &bv, &bvl);
	if (rc == MI_ERR_NOTFOUND) {
		rc = 0;
		if (sign > 0) { /* the first block, or past a full last one */
			mi_buf_reset(&b);
			nb_add(&b, NULL, name, nl, fid, v, vl);
			rc = mi_put(t, db, key, kl, b.buf, b.len);
		}
		goto out;
	}
	if (rc)
		goto out;
	mi_buf_add(&ok, k, bkl);
	if ((rc = nb_load(&l, bv, bvl)))
		goto out;
	/* Where (name, fid) goes in the block. */
	size_t at = 0;
	while (at < l.n && nb_cmp(&l.r[at], name, nl, fid) < 0)
		at++;
	bool here = at < l.n && !nb_cmp(&l.r[at], name, nl, fid);
	if (sign < 0) {
		if (past || !here)
			goto out; /* not indexed */
		memmove(&l.r[at], &l.r[at + 1], (l.n - at - 1) * sizeof(*l.r));
		l.n--;
		if (!l.n || at == l.n)
			rc = mi_del(t, db, ok.buf, ok.len);
		if (!rc && l.n)
			rc = nb_store(t, db, &l, 0, l.n, &nk, &b);
		goto out;
	}
	if (past && nb_size(&l, 0, l.n) >= MI_NAMES_BLOCK) {
		mi_buf_reset(&b);
		nb_add(&b, NULL, name, nl, fid, v, vl);
		rc = mi_put(t, db, key, kl, b.buf, b.len);
		goto out;
	}
	nb_rec nr = {0};
	memcpy(nr.name, name, nl);
	nr.nl = nl;
	nr.fid = fid;
	nr.v = (const uint8_t *)(uintptr_t)l.vals.len;
	nr.vl = vl;
	mi_buf_add(&l.vals, v, vl);
	if (here) {
		l.r[at] = nr;
	} else {
		if (l.n == l.cap) {
			l.cap = l.cap ? 2 * l.cap : 64;
			l.r = mi_xrealloc(l.r, l.cap * sizeof(*l.r));
		}
		memmove(&l.r[at + 1], &l.r[at], (l.n - at) * sizeof(*l.r));
		l.r[at] = nr;
		l.n++;
	}
	if (past) /* the last block takes a new last record: a new key */
		rc = mi_del(t, db, ok.buf, ok.len);
	if (!rc && l.n > 1 && nb_size(&l, 0, l.n) > 2 * MI_NAMES_BLOCK) {
		size_t half = 0, s = 0, all = nb_size(&l, 0, l.n);
		while (half < l.n - 1 && s < all / 2) {
			s += l.r[half].nl + l.r[half].vl + 4;
			half++;
		}
		if ((rc = nb_store(t, db, &l, 0, half, &nk, &b)))
			goto out;
		rc = nb_store(t, db, &l, half, l.n, &nk, &b);
	} else if (!rc) {
		rc = nb_store(t, db, &l, 0, l.n, &nk, &b);
	}
out:
	mi_cursor_close(c);
	free(l.r);
	mi_buf_release(&l.vals);
	mi_buf_release(&ok);
	mi_buf_release(&nk);
	mi_buf_release(&b);
	return rc;
}

/* The value of entry (name, fid) of db (pointing into the transaction's
 * copy of its block): 0 or MI_ERR_NOTFOUND. */
static int nb_get(mi_txn *t, int db, const char *name, size_t nl, uint32_t fid, const void **v,
		  size_t *vl)
{
	uint8_t key[BN_MAX_NAME + 5];
	const void *k, *bv;
	size_t kl, bvl;
	mi_cursor *c;
	nb_rec r = {0};
	if (!nl || nl > BN_MAX_NAME)
		return MI_ERR_NOTFOUND;
	memcpy(key, name, nl);
	key[nl] = 0;
	mi_be32(key + nl + 1, fid);
	int rc = mi_cursor_open(t, db, &c);
	if (rc)
		return rc;
	rc = mi_cursor_seek(c, key, nl + 5, &k, &kl, &bv, &bvl);
	if (!rc) {
		const uint8_t *p = bv, *e = p + bvl;
		int got, cmp = -1;
		for (bool first = true; (got = nb_next(&p, e, &r, first)) == 1; first = false)
			if ((cmp = nb_cmp(&r, name, nl, fid)) >= 0)
				break;
		rc = got < 0 ? MI_ERR_CORRUPT : got == 1 && !cmp ? 0 : MI_ERR_NOTFOUND;
		if (!rc) {
			*v = r.v;
			*vl = r.vl;
		}
	}
	mi_cursor_close(c);
	return rc;
}

/* ---- reading --------------------------------------------------------------- */

int mi_file_id(mi_txn *t, const char *path, size_t pl, uint32_t *fid)
{
	const void *v;
	size_t vl;
	mi_file_rec f;
	int rc = mi_get(t, MI_DB_FILES, path, pl, &v, &vl);
	if (rc)
		return rc;
	if ((rc = mi_file_decode(v, vl, &f)))
		return rc;
	*fid = f.file_id;
	mi_file_rec_release(&f);
	return 0;
}

/* The current value's path, looked up once per value; false (the value
 * skipped, it->damaged set) when its file has no path. */
static bool bn_path(mi_byname *it)
{
	const void *k, *pv;
	size_t kl, pvl;
	uint8_t b4[4];
	if (it->path)
		return true;
	/* One cursor for the scan: file ids come in ascending order, often
	 * on the page it is at already. */
	mi_be32(b4, it->fid);
	if ((!it->fcur && mi_cursor_open(it->t, MI_DB_FILEIDS, &it->fcur)) ||
	    mi_cursor_seek(it->fcur, b4, 4, &k, &kl, &pv, &pvl) || kl != 4 || memcmp(k, b4, 4)) {
		it->damaged = true;
		it->p = it->end;
		return false;
	}
	it->path = pv;
	it->pl = pvl;
	return true;
}

static int bn_open(mi_txn *t, const char *name, const char *path, size_t pl, bool refs,
		   const uint32_t *fid, mi_byname *it)
{
	*it = (mi_byname){.t = t, .refs = refs, .nl = strlen(name)};
	it->name = mi_xstrndup(name, it->nl);
	int rc;
	const void *k, *v;
	size_t kl, vl;
	/* The block holding the name's first entry (of the file's). */
	uint8_t key[BN_MAX_NAME + 5];
	size_t klen = it->nl + 1;
	it->rec = mi_xcalloc(1, sizeof(*it->rec));
	it->done = true;
	if (!it->nl || it->nl > BN_MAX_NAME)
		return 0;
	memcpy(key, name, it->nl + 1);
	if (path || fid) {
		if (fid)
			it->onefid = *fid;
		else if (mi_file_id(t, path, pl, &it->onefid))
			return 0;
		mi_be32(key + klen, it->onefid);
		klen += 4;
		it->one = true;
	}
	if ((rc = mi_cursor_open(t, refs ? MI_DB_REFS : MI_DB_NAMES, &it->cur))) {
		mi_byname_close(it); /* a failed open leaves nothing to close */
		return rc;
	}
	if ((rc = mi_cursor_seek(it->cur, key, klen, &k, &kl, &v, &vl))) {
		/* a block that does not unpack: the scan finds nothing, damaged */
		it->damaged = rc != MI_ERR_NOTFOUND;
		return 0;
	}
	it->done = false;
	it->bp = v;
	it->be = it->bp + vl;
	it->bfirst = true;
	return 0;
}

int mi_names_open(mi_txn *t, const char *name, const char *path, size_t pl, mi_byname *it)
{
	return bn_open(t, name, path, pl, false, NULL, it);
}

int mi_names_open_file(mi_txn *t, const char *name, uint32_t fid, mi_byname *it)
{
	return bn_open(t, name, NULL, 0, false, &fid, it);
}

int mi_refs_open(mi_txn *t, const char *callee, const char *path, size_t pl, mi_byname *it)
{
	return bn_open(t, callee, path, pl, true, NULL, it);
}

int mi_byname_entry(mi_txn *t, bool refs, const void *k, size_t kl, const void *v, size_t vl,
		    mi_byname *it)
{
	*it = (mi_byname){.t = t, .refs = refs, .all = true, .bfirst = true};
	it->name = mi_xcalloc(1, BN_MAX_NAME + 1);
	it->rec = mi_xcalloc(1, sizeof(*it->rec));
	it->bp = v;
	it->be = it->bp + vl;
	return 0;
}

/* Moves to the next (name, file) entry of the scan with something left;
 * false at the end.  Count entries (refs) are passed over. */
static bool nb_more(mi_byname *it)
{
	const void *k, *v;
	size_t kl, vl;
	while (!it->done && it->p == it->end) {
		if (it->bp == it->be) {
			int rc = !it->cur || it->one ? MI_ERR_NOTFOUND
						     : mi_cursor_next(it->cur, &k, &kl, &v, &vl);
			if (rc) {
				it->damaged |= rc != MI_ERR_NOTFOUND;
				it->done = true;
				break;
			}
			it->bp = v;
			it->be = it->bp + vl;
			it->bfirst = true;
			continue;
		}
		nb_rec *r = it->rec;
		int got = nb_next(&it->bp, it->be, r, it->bfirst);
		it->bfirst = false;
		if (got <= 0) {
			it->damaged |= got < 0;
			it->bp = it->be;
			continue;
		}
		if (r->fid == MI_REFS_COUNT_FID)
			continue; /* a name's count entry (refs), not a file's */
		if (it->all) {
			memcpy(it->name, r->name, r->nl + 1);
			it->nl = r->nl;
		} else {
			int c = memcmp(r->name, it->name, r->nl < it->nl ? r->nl : it->nl);
			if (!c)
				c = (r->nl > it->nl) - (r->nl < it->nl);
			if (!c && it->one)
				c = (r->fid > it->onefid) - (r->fid < it->onefid);
			if (c < 0)
				continue;
			if (c > 0) {
				it->done = true;
				break;
			}
			if (it->one)
				it->be = it->bp; /* the file's one entry */
		}
		if (r->fid != it->fid || !it->started)
			it->path = NULL;
		it->fid = r->fid;
		it->started = true;
		it->p = r->v;
		it->end = r->v + r->vl;
		it->idx = it->line = it->lbyte = 0;
		it->first = true;
	}
	return !it->done;
}

int mi_names_next(mi_byname *it, const char **path, size_t *pl, uint32_t *idx)
{
	uint64_t d;
	while (nb_more(it)) {
		if (!it->nopath && !bn_path(it))
			continue;
		if (!mi_varint_get(&it->p, it->end, &d) || d > UINT32_MAX - it->idx ||
		    (!it->first && !d) || it->p == it->end) {
			it->p = it->end; /* a damaged value: its file is skipped */
			it->damaged = true;
			continue;
		}
		it->idx += (uint32_t)d;
		it->kind = *it->p & 0x3f;
		it->testlike = *it->p >> 6 & 1;
		it->vis = *it->p++ >> 7;
		it->first = false;
		*path = it->nopath ? NULL : it->path;
		*pl = it->nopath ? 0 : it->pl;
		*idx = it->idx;
		return 0;
	}
	return MI_ERR_NOTFOUND;
}

int mi_refs_next(mi_byname *it, const char **path, size_t *pl, mi_ref *r)
{
	uint64_t dl, ci, db;
	while (nb_more(it)) {
		if (!it->nopath && !bn_path(it))
			continue;
		if (!mi_varint_get(&it->p, it->end, &dl) || !mi_varint_get(&it->p, it->end, &ci) ||
		    !mi_varint_get(&it->p, it->end, &db) || it->p == it->end ||
		    dl > UINT32_MAX - it->line || ci > INT32_MAX) {
			it->p = it->end;
			it->damaged = true;
			continue;
		}
		int64_t d = db & 1 ? -(int64_t)((db + 1) >> 1) : (int64_t)(db >> 1);
		int64_t b = (int64_t)it->lbyte + d;
		if (b < 0 || b > UINT32_MAX) {
			it->p = it->end;
			it->damaged = true;
			continue;
		}
		it->line += (uint32_t)dl;
		it->lbyte = (uint32_t)b;
		*r = (mi_ref){.callee = it->name, .line = it->line, .caller_idx = (int32_t)ci - 1,
			      .line_byte = it->lbyte, .kind = *it->p++};
		*path = it->nopath ? NULL : it->path;
		*pl = it->nopath ? 0 : it->pl;
		return 0;
	}
	return MI_ERR_NOTFOUND;
}

/* ---- a name's counts (`name \0 ff ff ff ff` in MI_DB_NAMES and MI_DB_REFS) -- */

/* Adds sign times the entries of one names or refs value, by kind byte,
 * to h, and marks the kind bytes it holds in kinds (may be NULL); false
 * when it does not decode. */
static bool bn_tally(int db, const void *v, size_t vl, int64_t sign, int64_t h[256],
		     uint64_t kinds[4])
{
	const uint8_t *p = v, *end = p + vl;
	uint64_t x;
	int skip = db == MI_DB_REFS ? 3 : 1; /* varints before an entry's kind byte */
	while (p < end) {
		for (int i = 0; i < skip; i++)
			if (!mi_varint_get(&p, end, &x))
				return false;
		if (p == end)
			return false;
		if (kinds)
			kinds[*p >> 6] |= 1ull << (*p & 63);
		h[*p++] += sign;
	}
	return true;
}

/* A count value: varint how many kind bytes, then each (ascending) with
 * varint count << 1 | listed; a listed kind (names only: held by at most
 * MI_COUNT_FILES files) follows with varint how many files, then their
 * ids, ascending (the first as it is, then differences). */
static void bn_count_value(mi_buf *b, int db, const mi_name_count *c)
{
	unsigned n = 0;
	mi_buf_reset(b);
	for (int k = 0; k < 256; k++)
		n += c->n[k] > 0;
	bn_varint(b, n);
	for (int k = 0; k < 256; k++) {
		if (!c->n[k])
			continue;
		bool listed = db == MI_DB_NAMES && c->listed[k] && c->nfiles[k];
		mi_buf_addc(b, (char)k);
		bn_varint(b, c->n[k] << 1 | listed);
		if (!listed)
			continue;
		bn_varint(b, c->nfiles[k]);
		for (unsigned i = 0; i < c->nfiles[k]; i++)
			bn_varint(b, c->files[k][i] - (i ? c->files[k][i - 1] : 0));
	}
}

/* Decodes a count value of db into n (and, when lists is not NULL, the
 * files listed: a kind byte no entry has is listed with none). */
static bool bn_count_decode(int db, const void *v, size_t vl, uint64_t n[256],
			    mi_name_count *lists)
{
	const uint8_t *p = v, *end = p + vl;
	uint64_t nk, c, nf, f;
	int prev = -1;
	memset(n, 0, 256 * sizeof(*n));
	if (lists)
		for (int k = 0; k < 256; k++) {
			lists->listed[k] = db == MI_DB_NAMES;
			lists->nfiles[k] = 0;
		}
	if (!mi_varint_get(&p, end, &nk) || !nk || nk > 256)
		return false;
	for (uint64_t i = 0; i < nk; i++) {
		if (p == end || *p <= prev)
			return false;
		prev = *p++;
		if (!mi_varint_get(&p, end, &c) || c < 2 || c >> 1 > INT64_MAX / 256)
			return false;
		n[prev] = c >> 1;
		if (lists)
			lists->listed[prev] = c & 1;
		if (!(c & 1))
			continue;
		if (db != MI_DB_NAMES || !mi_varint_get(&p, end, &nf) || !nf ||
		    nf > MI_COUNT_FILES || nf > n[prev])
			return false;
		uint64_t at = 0;
		for (uint64_t j = 0; j < nf; j++) {
			if (!mi_varint_get(&p, end, &f) || (j && !f) || f > UINT32_MAX - at)
				return false;
			at += f;
			if (lists)
				lists->files[prev][j] = (uint32_t)at;
		}
		if (lists)
			lists->nfiles[prev] = (uint8_t)nf;
	}
	return p == end;
}

/* name's count entry in db, decoded as bn_count_decode does. */
static int bn_count_get(mi_txn *t, int db, const char *name, uint64_t n[256],
			mi_name_count *lists)
{
	const void *v;
	size_t vl;
	int rc = nb_get(t, db, name, strlen(name), MI_REFS_COUNT_FID, &v, &vl);
	if (rc)
		return rc == MI_ERR_CORRUPT ? MI_ERR_DAMAGED : rc;
	return bn_count_decode(db, v, vl, n, lists) ? 0 : MI_ERR_DAMAGED;
}

int mi_byname_count(mi_txn *t, int db, const char *name, uint64_t counts[256])
{
	return bn_count_get(t, db, name, counts, NULL);
}

int mi_names_count(mi_txn *t, const char *name, mi_name_count *c)
{
	return bn_count_get(t, MI_DB_NAMES, name, c->n, c);
}

int mi_refs_count(mi_txn *t, const char *callee, uint64_t *calls, uint64_t *all)
{
	uint64_t h[256];
	int rc = mi_byname_count(t, MI_DB_REFS, callee, h);
	if (rc)
		return rc;
	*calls = h[MI_REF_CALL];
	*all = 0;
	for (int k = 0; k < 256; k++)
		*all += h[k];
	return 0;
}

/* A file that came to hold (sign > 0) or no longer holds a kind byte of a
 * name: a listed kind's files follow it. */
typedef struct bn_ev {
	uint32_t fid;
	uint8_t kind;
	int8_t sign;
} bn_ev;

/* The files of kind k in c after ev. */
static void bn_files_move(mi_name_count *c, int k, const bn_ev *ev)
{
	uint32_t *f = c->files[k];
	unsigned n = c->nfiles[k], i = 0;
	while (i < n && f[i] < ev->fid)
		i++;
	bool has = i < n && f[i] == ev->fid;
	if (ev->sign < 0 && has) {
		memmove(f + i, f + i + 1, (n - i - 1) * sizeof(*f));
		c->nfiles[k]--;
	} else if (ev->sign > 0 && !has) {
		if (n == MI_COUNT_FILES) {
			c->listed[k] = false;
			return;
		}
		memmove(f + i + 1, f + i, (n - i) * sizeof(*f));
		f[i] = ev->fid;
		c->nfiles[k]++;
	}
}

/* Moves name's count entry in db (when it has one) by delta and, for the
 * kinds it lists the files of, by ev; unsure (a value that did not
 * decode) takes it out, and readers count. */
static int bn_count_move(mi_txn *t, int db, const char *name, size_t nl, const int64_t delta[256],
			 const bn_ev *ev, size_t nev, bool unsure)
{
	const void *cv;
	size_t cvl;
	uint8_t key[BN_MAX_NAME + 5];
	bool moved = unsure || nev, left = false, neg = false;
	for (int k = 0; k < 256 && !moved; k++)
		moved = delta[k] != 0;
	if (!nl || nl > BN_MAX_NAME || !moved)
		return 0;
	memcpy(key, name, nl);
	key[nl] = 0;
	mi_be32(key + nl + 1, MI_REFS_COUNT_FID);
	int rc = nb_get(t, db, name, nl, MI_REFS_COUNT_FID, &cv, &cvl);
	if (rc == MI_ERR_NOTFOUND)
		return 0; /* no count kept for this name: readers count */
	if (rc)
		return rc;
	mi_name_count *c = mi_xmalloc(sizeof(*c));
	if (unsure || !bn_count_decode(db, cv, cvl, c->n, c)) {
		free(c);
		return bn_update(t, db, key, nl + 5, NULL, 0, -1);
	}
	for (int k = 0; k < 256; k++) {
		int64_t v = (int64_t)c->n[k] + delta[k];
		neg |= v < 0;
		left |= v > 0;
		c->n[k] = v > 0 ? (uint64_t)v : 0;
	}
	for (size_t i = 0; i < nev; i++)
		if (c->listed[ev[i].kind])
			bn_files_move(c, ev[i].kind, &ev[i]);
	for (int k = 0; k < 256; k++) /* a list that cannot be right is dropped */
		if (c->listed[k] && (c->nfiles[k] > c->n[k] || (c->n[k] && !c->nfiles[k])))
			c->listed[k] = false;
	if (neg || !left) {
		free(c);
		return bn_update(t, db, key, nl + 5, NULL, 0, -1);
	}
	mi_buf b = {0};
	bn_count_value(&b, db, c);
	rc = bn_update(t, db, key, nl + 5, b.buf, b.len, +1);
	mi_buf_release(&b);
	free(c);
	return rc;
}

/* ---- an update's batch ------------------------------------------------------ */

typedef struct bn_op {
	int db, sign;
	size_t seq;             /* order added: the later op of a key wins */
	size_t k, kl, v, vl;    /* offsets into the batch's data */
} bn_op;

static _Thread_local const mi_byname_batch *bn_batch;

static int bn_op_cmp(const void *a, const void *b)
{
	const bn_op *x = a, *y = b;
	if (x->db != y->db)
		return x->db < y->db ? -1 : 1;
	const uint8_t *d = (const uint8_t *)bn_batch->data.buf;
	size_t n = x->kl < y->kl ? x->kl : y->kl;
	int c = memcmp(d + x->k, d + y->k, n);
	if (c)
		return c;
	if (x->kl != y->kl)
		return x->kl < y->kl ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int mi_byname_batch_add(void *ctx, const void *k, size_t kl, const void *v, size_t vl)
{
	const mi_byname_op *o = ctx;
	mi_byname_batch *b = o->b;
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 256;
		b->ops = mi_xrealloc(b->ops, b->cap * sizeof(*b->ops));
	}
	bn_op *op = &b->ops[b->n];
	*op = (bn_op){.db = o->db, .sign = o->sign, .seq = b->n, .k = b->data.len, .kl = kl};
	mi_buf_add(&b->data, k, kl);
	op->v = b->data.len;
	op->vl = vl;
	mi_buf_add(&b->data, v, vl);
	b->n++;
	return 0;
}

int mi_byname_batch_apply(mi_txn *t, mi_byname_batch *b)
{
	int rc = 0;
	bn_batch = b;
	if (b->n)
		qsort(b->ops, b->n, sizeof(*b->ops), bn_op_cmp);
	const uint8_t *d = (const uint8_t *)b->data.buf;
	/* the count of the name whose entries are being met, and its db */
	const uint8_t *cname = NULL;
	size_t cnl = 0, nev = 0, cap = 0;
	int cdb = 0;
	int64_t *delta = mi_xcalloc(256, sizeof(*delta));
	bn_ev *ev = NULL;
	bool unsure = false;
	for (size_t i = 0; i < b->n && !rc;) {
		const bn_op *first = &b->ops[i], *last = first;
		size_t j = i + 1;
		while (j < b->n && b->ops[j].db == first->db && b->ops[j].kl == first->kl &&
		       !memcmp(d + b->ops[j].k, d + first->k, first->kl))
			last = &b->ops[j++];
		const uint8_t *k = d + first->k;
		size_t kl = first->kl;
		if ((first->db == MI_DB_REFS || first->db == MI_DB_NAMES) && kl >= 5 &&
		    mi_rd32(k + kl - 4) != MI_REFS_COUNT_FID) {
			size_t nl = kl - 5;
			if (cname && (cdb != first->db || nl != cnl || memcmp(cname, k, nl))) {
				rc = bn_count_move(t, cdb, (const char *)cname, cnl, delta, ev, nev,
						   unsure);
				memset(delta, 0, 256 * sizeof(*delta));
				nev = 0;
				unsure = false;
			}
			cname = k;
			cnl = nl;
			cdb = first->db;
			for (size_t x = i; x < j && !rc; x++) {
				uint64_t kinds[4] = {0};
				if (!bn_tally(cdb, d + b->ops[x].v, b->ops[x].vl, b->ops[x].sign, delta,
					      kinds)) {
					unsure = true;
					continue;
				}
				for (int kb = 0; kb < 256 && cdb == MI_DB_NAMES; kb++) {
					if (!(kinds[kb >> 6] >> (kb & 63) & 1))
						continue;
					if (nev == cap) {
						cap = cap ? 2 * cap : 64;
						ev = mi_xrealloc(ev, cap * sizeof(*ev));
					}
					ev[nev++] = (bn_ev){.fid = mi_rd32(k + kl - 4), .kind = (uint8_t)kb,
							    .sign = (int8_t)(b->ops[x].sign < 0 ? -1 : 1)};
				}
			}
		}
		/* Taken out and put back as it was: nothing to write. */
		bool same = first != last && first->sign < 0 && last->sign > 0 &&
			    first->vl == last->vl && !memcmp(d + first->v, d + last->v, last->vl);
		if (!rc && !same)
			rc = bn_update(t, first->db, k, kl, d + last->v, last->vl, last->sign);
		i = j;
	}
	if (!rc && cname)
		rc = bn_count_move(t, cdb, (const char *)cname, cnl, delta, ev, nev, unsure);
	free(delta);
	free(ev);
	b->n = 0;
	mi_buf_reset(&b->data);
	return rc;
}

void mi_byname_batch_release(mi_byname_batch *b)
{
	free(b->ops);
	b->ops = NULL;
	b->n = b->cap = 0;
	mi_buf_release(&b->data);
}

static int bn_counter_flush(mi_byname_counter *c, mi_kv_fn fn, void *ctx);

int mi_byname_counter_add(mi_byname_counter *c, const void *k, size_t kl, const void *v,
			  size_t vl, mi_kv_fn fn, void *ctx)
{
	int rc = 0;
	if (c->name.len && (kl != c->name.len + 4 || memcmp(k, c->name.buf, c->name.len)))
		rc = bn_counter_flush(c, fn, ctx);
	if (rc || kl < 5)
		return rc;
	if (!c->c)
		c->c = mi_xcalloc(1, sizeof(*c->c));
	if (!c->name.len) { /* a name's first entry: every kind listed, with no file */
		mi_buf_add(&c->name, k, kl - 4);
		memset(c->c->listed, true, sizeof(c->c->listed));
		memset(c->c->nfiles, 0, sizeof(c->c->nfiles));
	}
	c->files++;
	uint64_t kinds[4] = {0};
	if (!bn_tally(c->db, v, vl, 1, c->h, kinds)) {
		c->bad = true; /* a count would be wrong: none is written */
		return 0;
	}
	/* Entries come in key order: a name's files ascending. */
	uint32_t fid = mi_rd32((const uint8_t *)k + kl - 4);
	for (int w = 0; w < 4 && c->db == MI_DB_NAMES; w++)
		for (uint64_t m = kinds[w]; m; m &= m - 1) { /* the kinds present, not all 256 */
			int kb = w * 64 + __builtin_ctzll(m);
			if (!c->c->listed[kb])
				continue;
			unsigned n = c->c->nfiles[kb];
			if (n == MI_COUNT_FILES || (n && c->c->files[kb][n - 1] >= fid))
				c->c->listed[kb] = false;
			else
				c->c->files[kb][c->c->nfiles[kb]++] = fid;
		}
	return 0;
}

/* Hands fn the count entry of the name being counted (when it has one)
 * and starts over. */
static int bn_counter_flush(mi_byname_counter *c, mi_kv_fn fn, void *ctx)
{
	int rc = 0;
	if (c->name.len && c->files >= MI_REFS_COUNT_MIN && !c->bad) {
		mi_buf v = {0};
		uint8_t b4[4];
		mi_be32(b4, MI_REFS_COUNT_FID);
		mi_buf_add(&c->name, b4, 4);
		for (int k = 0; k < 256; k++)
			c->c->n[k] = c->h[k] > 0 ? (uint64_t)c->h[k] : 0;
		bn_count_value(&v, c->db, c->c);
		rc = fn(ctx, c->name.buf, c->name.len, v.buf, v.len);
		mi_buf_release(&v);
	}
	mi_buf_reset(&c->name);
	memset(c->h, 0, sizeof(c->h));
	c->files = 0;
	c->bad = false;
	return rc;
}

int mi_byname_counter_finish(mi_byname_counter *c, mi_kv_fn fn, void *ctx)
{
	int rc = bn_counter_flush(c, fn, ctx);
	mi_buf_release(&c->name);
	free(c->c);
	c->c = NULL;
	return rc;
}

void mi_byname_close(mi_byname *it)
{
	mi_cursor_close(it->cur);
	mi_cursor_close(it->fcur);
	free(it->name);
	free(it->rec);
	*it = (mi_byname){0};
}

bool mi_names_in(mi_txn *t, const char *name, const char *path, size_t pl)
{
	mi_byname it;
	const char *fp;
	size_t fl;
	uint32_t idx;
	bool found = false;
	/* A prototype (`int foo(int);` above its callers) declares the name
	 * and defines nothing: the file's calls still mean the definition
	 * elsewhere. */
	if (!mi_names_open(t, name, path, pl, &it))
		while (!found && !mi_names_next(&it, &fp, &fl, &idx))
			found = it.kind != MI_KIND_PROTOTYPE;
	mi_byname_close(&it);
	return found;
}

/* ---- postings blocks (MI_DB_POST values) --------------------------------------- */

void mi_post_add(mi_buf *blk, uint32_t prev, uint32_t fid, const void *g, size_t gl)
{
	uint64_t d = blk->len ? fid - prev : fid;
	uint64_t c = gl < MI_POST_LENS ? gl : MI_POST_LENS;

	bn_varint(blk, d << MI_POST_LBITS | c);
	if (c == MI_POST_LENS)
		bn_varint(blk, gl - MI_POST_LENS);
	mi_buf_add(blk, g, gl);
}

bool mi_post_next(mi_post_blk *b, uint32_t *fid, const uint8_t **g, size_t *gl)
{
	uint64_t d, n;
	if (b->bad || b->p >= b->e)
		return false;
	if (!mi_varint_get(&b->p, b->e, &d)) {
		b->bad = true;
		return false;
	}
	n = d & MI_POST_LENS;
	d >>= MI_POST_LBITS;
	if ((n == MI_POST_LENS && (!mi_varint_get(&b->p, b->e, &n) ||
				   (n += MI_POST_LENS) < MI_POST_LENS)) ||
	    d > UINT32_MAX - (b->started ? b->fid : 0) || (b->started && !d) ||
	    n > (uint64_t)(b->e - b->p)) {
		b->bad = true;
		return false;
	}
	b->fid = b->started ? b->fid + (uint32_t)d : (uint32_t)d;
	b->started = true;
	*fid = b->fid;
	*g = b->p;
	*gl = (size_t)n;
	b->p += n;
	return true;
}
