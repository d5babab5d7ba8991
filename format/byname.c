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
 * when it is not of that shape.  Its file's path is looked up when a
 * record of it is given (bn_path). */
static bool bn_take(mi_byname *it, const void *k, size_t kl, const void *v, size_t vl)
{
	if (kl != it->nl + 5) {
		it->damaged = true;
		return false;
	}
	uint32_t fid = mi_rd32((const uint8_t *)k + it->nl + 1);
	if (fid == MI_REFS_COUNT_FID)
		return false; /* a name's count entry (refs), not a file's */
	if (fid != it->fid || !it->started)
		it->path = NULL;
	it->fid = fid;
	it->started = true;
	it->p = v;
	it->end = it->p + vl;
	it->idx = it->line = it->lbyte = 0;
	it->first = true;
	return true;
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
	while (bn_more(it)) {
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

/* ---- a name's reference counts (MI_DB_REFS `name \0 ff ff ff ff`) ------- */

/* Adds the references of one refs value to *calls and *all; false when it
 * does not decode. */
static bool bn_tally(const void *v, size_t vl, uint64_t *calls, uint64_t *all)
{
	const uint8_t *p = v, *end = p + vl;
	uint64_t x;
	while (p < end) {
		if (!mi_varint_get(&p, end, &x) || !mi_varint_get(&p, end, &x) ||
		    !mi_varint_get(&p, end, &x) || p == end)
			return false;
		*calls += *p++ == MI_REF_CALL;
		++*all;
	}
	return true;
}

static void bn_count_value(mi_buf *b, uint64_t calls, uint64_t all)
{
	mi_buf_reset(b);
	bn_varint(b, calls);
	bn_varint(b, all);
}

static bool bn_count_decode(const void *v, size_t vl, uint64_t *calls, uint64_t *all)
{
	const uint8_t *p = v, *end = p + vl;
	return mi_varint_get(&p, end, calls) && mi_varint_get(&p, end, all) && p == end &&
	       *calls <= *all;
}

int mi_refs_count(mi_txn *t, const char *callee, uint64_t *calls, uint64_t *all)
{
	size_t nl = strlen(callee);
	uint8_t key[BN_MAX_NAME + 5];
	const void *v;
	size_t vl;
	if (nl > BN_MAX_NAME)
		return MI_ERR_NOTFOUND;
	memcpy(key, callee, nl + 1);
	mi_be32(key + nl + 1, MI_REFS_COUNT_FID);
	int rc = mi_get(t, MI_DB_REFS, key, nl + 5, &v, &vl);
	if (rc)
		return rc;
	*calls = *all = 0;
	return bn_count_decode(v, vl, calls, all) ? 0 : MI_ERR_DAMAGED;
}

int mi_refs_count_adjust(mi_txn *t, const void *k, size_t kl, const void *v, size_t vl,
			 int sign)
{
	uint64_t c = 0, a = 0, sc, sa;
	const void *cv;
	size_t cvl;
	uint8_t key[BN_MAX_NAME + 5];
	if (kl < 5 || kl > sizeof(key) || mi_rd32((const uint8_t *)k + kl - 4) == MI_REFS_COUNT_FID)
		return 0;
	memcpy(key, k, kl - 4);
	mi_be32(key + kl - 4, MI_REFS_COUNT_FID);
	int rc = mi_get(t, MI_DB_REFS, key, kl, &cv, &cvl);
	if (rc == MI_ERR_NOTFOUND)
		return 0; /* no count kept for this name: readers count */
	if (rc)
		return rc;
	if (!bn_count_decode(cv, cvl, &sc, &sa) || !bn_tally(v, vl, &c, &a))
		return mi_del(t, MI_DB_REFS, key, kl); /* unsure: readers count */
	if (sign < 0 && (c > sc || a > sa))
		return mi_del(t, MI_DB_REFS, key, kl);
	sc = sign < 0 ? sc - c : sc + c;
	sa = sign < 0 ? sa - a : sa + a;
	if (!sa)
		return mi_del(t, MI_DB_REFS, key, kl);
	mi_buf b = {0};
	bn_count_value(&b, sc, sa);
	rc = mi_put(t, MI_DB_REFS, key, kl, b.buf, b.len);
	mi_buf_release(&b);
	return rc;
}

static int bn_counter_flush(mi_refs_counter *c, mi_kv_fn fn, void *ctx);

int mi_refs_counter_add(mi_refs_counter *c, const void *k, size_t kl, const void *v, size_t vl,
			mi_kv_fn fn, void *ctx)
{
	int rc = 0;
	if (c->name.len && (kl != c->name.len + 4 || memcmp(k, c->name.buf, c->name.len)))
		rc = bn_counter_flush(c, fn, ctx);
	if (rc || kl < 5)
		return rc;
	if (!c->name.len)
		mi_buf_add(&c->name, k, kl - 4);
	c->files++;
	if (!bn_tally(v, vl, &c->calls, &c->all))
		c->bad = true; /* a count would be wrong: none is written */
	return 0;
}

/* Hands fn the count entry of the name being counted (when it has one)
 * and starts over. */
static int bn_counter_flush(mi_refs_counter *c, mi_kv_fn fn, void *ctx)
{
	int rc = 0;
	if (c->name.len && c->files >= MI_REFS_COUNT_MIN && !c->bad) {
		mi_buf v = {0};
		uint8_t b4[4];
		mi_be32(b4, MI_REFS_COUNT_FID);
		mi_buf_add(&c->name, b4, 4);
		bn_count_value(&v, c->calls, c->all);
		rc = fn(ctx, c->name.buf, c->name.len, v.buf, v.len);
		mi_buf_release(&v);
	}
	mi_buf_reset(&c->name);
	c->files = c->calls = c->all = 0;
	c->bad = false;
	return rc;
}

int mi_refs_counter_finish(mi_refs_counter *c, mi_kv_fn fn, void *ctx)
{
	int rc = bn_counter_flush(c, fn, ctx);
	mi_buf_release(&c->name);
	return rc;
}

void mi_byname_close(mi_byname *it)
{
	mi_cursor_close(it->cur);
	mi_cursor_close(it->fcur);
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
