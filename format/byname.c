/*
 * byname.c - definitions and references by name (MI_DB_NAMES, MI_DB_REFS),
 * and the blocks of postings (MI_DB_POST) that are laid out the same way.
 *
 * One entry per (name, file) keyed `name \0 be32(file_id)`: a key names its
 * file by id, not by path, and a file's uses of one name share a key, so
 * the two databases cost a few bytes per definition or reference instead
 * of a key each.  docs/format.md gives the layout and its cost.
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

static int bn_put(const mi_parsed *p, bool refs, uint32_t fid, mi_kv_fn fn, void *ctx)
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
				mi_buf_addc(&v, (char)((sy->kind & 0x7f) | (sy->vis ? 0x80 : 0)));
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

int mi_byname_put_names(const mi_parsed *p, uint32_t fid, mi_kv_fn fn, void *ctx)
{
	return bn_put(p, false, fid, fn, ctx);
}

int mi_byname_put_refs(const mi_parsed *p, uint32_t fid, mi_kv_fn fn, void *ctx)
{
	return bn_put(p, true, fid, fn, ctx);
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

/* Takes the value of key k (a key of it->name) as the current one; false
 * when it is not of that shape or its file has no path. */
static bool bn_take(mi_byname *it, const void *k, size_t kl, const void *v, size_t vl)
{
	const void *pv;
	size_t pvl;
	if (kl != it->nl + 5) {
		it->damaged = true;
		return false;
	}
	uint32_t fid = mi_rd32((const uint8_t *)k + it->nl + 1);
	if (!it->path || fid != it->fid) {
		uint8_t b4[4];
		mi_be32(b4, fid);
		if (mi_get(it->t, MI_DB_FILEIDS, b4, 4, &pv, &pvl)) {
			it->damaged = true;
			return false;
		}
		it->path = pv;
		it->pl = pvl;
	}
	it->fid = fid;
	it->p = v;
	it->end = it->p + vl;
	it->idx = it->line = it->lbyte = 0;
	it->first = true;
	return true;
}

static int bn_open(mi_txn *t, const char *name, const char *path, size_t pl, bool refs,
		   mi_byname *it)
{
	*it = (mi_byname){.t = t, .refs = refs, .nl = strlen(name)};
	it->name = mi_xstrndup(name, it->nl);
	int rc;
	const void *k, *v;
	size_t kl, vl;
	if (path) {
		uint32_t fid;
		uint8_t key[BN_MAX_NAME + 5];
		it->done = true;
		if (it->nl > BN_MAX_NAME || mi_file_id(t, path, pl, &fid))
			return 0;
		memcpy(key, name, it->nl + 1);
		mi_be32(key + it->nl + 1, fid);
		if (mi_get(t, refs ? MI_DB_REFS : MI_DB_NAMES, key, it->nl + 5, &v, &vl))
			return 0;
		it->done = !bn_take(it, key, it->nl + 5, v, vl);
		return 0;
	}
	if ((rc = mi_cursor_open(t, refs ? MI_DB_REFS : MI_DB_NAMES, &it->cur)))
		return rc;
	for (rc = mi_cursor_seek_prefix(it->cur, name, it->nl + 1, &k, &kl, &v, &vl); !rc;
	     rc = mi_cursor_next(it->cur, &k, &kl, &v, &vl))
		if (bn_take(it, k, kl, v, vl))
			return 0;
	it->done = true;
	return rc == MI_ERR_NOTFOUND ? 0 : rc;
}

int mi_names_open(mi_txn *t, const char *name, const char *path, size_t pl, mi_byname *it)
{
	return bn_open(t, name, path, pl, false, it);
}

int mi_refs_open(mi_txn *t, const char *callee, const char *path, size_t pl, mi_byname *it)
{
	return bn_open(t, callee, path, pl, true, it);
}

int mi_byname_entry(mi_txn *t, bool refs, const void *k, size_t kl, const void *v, size_t vl,
		    mi_byname *it)
{
	*it = (mi_byname){.t = t, .refs = refs, .nl = strnlen(k, kl), .done = true};
	it->name = mi_xstrndup(k, it->nl);
	if (kl == it->nl + 5)
		it->done = !bn_take(it, k, kl, v, vl);
	return 0;
}

/* Moves to the next value with something left; false at the end. */
static bool bn_more(mi_byname *it)
{
	const void *k, *v;
	size_t kl, vl;
	while (!it->done && it->p == it->end) {
		if (!it->cur) {
			it->done = true;
			break;
		}
		int rc = mi_cursor_next(it->cur, &k, &kl, &v, &vl);
		while (!rc && !bn_take(it, k, kl, v, vl))
			rc = mi_cursor_next(it->cur, &k, &kl, &v, &vl);
		if (rc)
			it->done = true;
	}
	return !it->done;
}

int mi_names_next(mi_byname *it, const char **path, size_t *pl, uint32_t *idx)
{
	uint64_t d;
	while (bn_more(it)) {
		if (!mi_varint_get(&it->p, it->end, &d) || d > UINT32_MAX - it->idx ||
		    (!it->first && !d) || it->p == it->end) {
			it->p = it->end; /* a damaged value: its file is skipped */
			it->damaged = true;
			continue;
		}
		it->idx += (uint32_t)d;
		it->kind = *it->p & 0x7f;
		it->vis = *it->p++ >> 7;
		it->first = false;
		*path = it->path;
		*pl = it->pl;
		*idx = it->idx;
		return 0;
	}
	return MI_ERR_NOTFOUND;
}

int mi_refs_next(mi_byname *it, const char **path, size_t *pl, mi_ref *r)
{
	uint64_t dl, ci, db;
	while (bn_more(it)) {
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
		*path = it->path;
		*pl = it->pl;
		return 0;
	}
	return MI_ERR_NOTFOUND;
}

void mi_byname_close(mi_byname *it)
{
	mi_cursor_close(it->cur);
	free(it->name);
	*it = (mi_byname){0};
}

bool mi_names_in(mi_txn *t, const char *name, const char *path, size_t pl)
{
	mi_byname it;
	const char *fp;
	size_t fl;
	uint32_t idx;
	bool found = !mi_names_open(t, name, path, pl, &it) && !mi_names_next(&it, &fp, &fl, &idx);
	mi_byname_close(&it);
	return found;
}

/* ---- postings blocks (MI_DB_POST values) --------------------------------------- */

void mi_post_add(mi_buf *blk, uint32_t prev, uint32_t fid, const void *g, size_t gl)
{
	bn_varint(blk, blk->len ? fid - prev : fid);
	bn_varint(blk, gl);
	mi_buf_add(blk, g, gl);
}

bool mi_post_next(mi_post_blk *b, uint32_t *fid, const uint8_t **g, size_t *gl)
{
	uint64_t d, n;
	if (b->bad || b->p >= b->e)
		return false;
	if (!mi_varint_get(&b->p, b->e, &d) || !mi_varint_get(&b->p, b->e, &n) ||
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
