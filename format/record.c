/*
 * record.c - msgpack encodings of the index records (symbols, references,
 * file records) and the arena that owns a parsed file's strings.
 *
 * Records are msgpack arrays of fixed order (see docs/format.md); decoders
 * check every type and length and answer MI_ERR_CORRUPT instead of trusting
 * the bytes.
 */
#include "format.h"
#include "mp_read.h"

#include <msgpack.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena --------------------------------------------------------------------- */

struct mi_arena {
	struct mi_arena_block *head; /* newest block first */
};

struct mi_arena_block {
	struct mi_arena_block *next; /* older block */
	size_t used, cap;            /* bytes of data[] used / available */
	char data[];
};

static void *arena_alloc(struct mi_arena *a, size_t n)
{
	struct mi_arena_block *b = a->head;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 16384 ? n : 16384;
		b = mi_xmalloc(sizeof(*b) + cap);
		b->next = a->head;
		b->used = 0;
		b->cap = cap;
		a->head = b;
	}
	void *p = b->data + b->used;
	b->used += n;
	return p;
}

void mi_parsed_init(mi_parsed *p)
{
	memset(p, 0, sizeof(*p));
	p->arena = mi_xcalloc(1, sizeof(*p->arena));
}

void mi_parsed_release(mi_parsed *p)
{
	if (p->arena) {
		struct mi_arena_block *b = p->arena->head;
		while (b) {
			struct mi_arena_block *next = b->next;
			free(b);
			b = next;
		}
		free(p->arena);
	}
	free(p->syms);
	free(p->refs);
	free(p->diags);
	memset(p, 0, sizeof(*p));
}

const char *mi_parsed_strndup(mi_parsed *p, const char *s, size_t n)
{
	if (!n)
		return "";
	char *d = arena_alloc(p->arena, n + 1);
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

#define GROW(arr, n, cap) do { \
	if ((n) == (cap)) { \
		(cap) = (cap) ? (cap) * 2 : 16; \
		(arr) = mi_xrealloc((arr), (cap) * sizeof(*(arr))); \
	} \
} while (0)

mi_symbol *mi_parsed_add_sym(mi_parsed *p)
{
	GROW(p->syms, p->nsyms, p->capsyms);
	mi_symbol *s = &p->syms[p->nsyms++];
	memset(s, 0, sizeof(*s));
	s->name = s->parent = s->sig = s->doc = "";
	s->parent_idx = -1;
	return s;
}

mi_ref *mi_parsed_add_ref(mi_parsed *p)
{
	GROW(p->refs, p->nrefs, p->caprefs);
	mi_ref *r = &p->refs[p->nrefs++];
	memset(r, 0, sizeof(*r));
	r->callee = "";
	r->caller_idx = -1;
	return r;
}

mi_diag *mi_parsed_add_diag(mi_parsed *p)
{
	GROW(p->diags, p->ndiags, p->capdiags);
	mi_diag *d = &p->diags[p->ndiags++];
	memset(d, 0, sizeof(*d));
	d->msg = "";
	return d;
}

/* ---- encoding ------------------------------------------------------------------ */

static int buf_write(void *data, const char *buf, size_t len)
{
	mi_buf_add(data, buf, len);
	return 0;
}

static void pack_str(msgpack_packer *pk, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s ? s : "", n);
}

#define SYM_FIELDS 15

void mi_symbol_encode(const mi_symbol *s, mi_buf *out)
{
	msgpack_packer pk;
	msgpack_packer_init(&pk, out, buf_write);
	msgpack_pack_array(&pk, SYM_FIELDS);
	pack_str(&pk, s->name);
	pack_str(&pk, s->parent);
	pack_str(&pk, s->sig);
	pack_str(&pk, s->doc);
	msgpack_pack_int32(&pk, s->parent_idx);
	msgpack_pack_uint8(&pk, s->kind);
	msgpack_pack_uint8(&pk, s->vis);
	msgpack_pack_uint8(&pk, s->level);
	msgpack_pack_uint8(&pk, s->flags);
	msgpack_pack_uint32(&pk, s->start_line);
	msgpack_pack_uint32(&pk, s->end_line);
	msgpack_pack_uint32(&pk, s->start_byte);
	msgpack_pack_uint32(&pk, s->end_byte);
	msgpack_pack_uint32(&pk, s->body_byte);
	msgpack_pack_uint32(&pk, s->body_line);
}

void mi_ref_encode(const mi_ref *r, mi_buf *out)
{
	msgpack_packer pk;
	msgpack_packer_init(&pk, out, buf_write);
	msgpack_pack_array(&pk, 5);
	pack_str(&pk, r->callee);
	msgpack_pack_uint32(&pk, r->line);
	msgpack_pack_int32(&pk, r->caller_idx);
	msgpack_pack_uint32(&pk, r->line_byte);
	msgpack_pack_uint8(&pk, r->kind); /* last: readers peek at it */
}

void mi_frefs_add(mi_buf *v, const mi_ref *r)
{
	mi_buf rec = {0};
	uint8_t tmp[10];
	mi_ref_encode(r, &rec);
	mi_buf_add(v, tmp, mi_varint_put(tmp, rec.len));
	mi_buf_add(v, rec.buf, rec.len);
	mi_buf_release(&rec);
}

int mi_frefs_open(mi_txn *t, const char *path, size_t pl, mi_frefs *it)
{
	const void *v;
	size_t vl;
	int rc = mi_get(t, MI_DB_FREFS, path, pl, &v, &vl);
	*it = (mi_frefs){0};
	if (rc == MI_ERR_NOTFOUND)
		return 0;
	if (rc)
		return rc;
	it->p = v;
	it->end = it->p + vl;
	return 0;
}

int mi_frefs_next(mi_frefs *it, const void **rec, size_t *len, uint32_t *seq)
{
	uint64_t n;
	if (it->p == it->end)
		return MI_ERR_NOTFOUND;
	if (!mi_varint_get(&it->p, it->end, &n) || !n || n > (uint64_t)(it->end - it->p)) {
		it->p = it->end;
		return MI_ERR_CORRUPT;
	}
	*rec = it->p;
	*len = (size_t)n;
	if (seq)
		*seq = it->seq;
	it->seq++;
	it->p += n;
	return 0;
}

/* ---- a file's symbols in blocks ---------------------------------------------- */

/* A block ends after this many symbols or bytes of records: small enough
 * that a lookup of one symbol unpacks little, large enough to compress. */
#ifndef MI_SYMS_BLOCK
#define MI_SYMS_BLOCK 16
#endif
#ifndef MI_SYMS_BLOCK_BYTES
#define MI_SYMS_BLOCK_BYTES 2048
#endif

static void syms_flush(mi_buf *k, size_t pl, uint32_t last, uint32_t n, const mi_buf *recs,
		       mi_buf *v)
{
	uint8_t tmp[10];
	k->len = pl + 1;
	mi_be32(tmp, last);
	mi_buf_add(k, tmp, 4);
	mi_buf_reset(v);
	mi_buf_add(v, tmp, mi_varint_put(tmp, n));
	mi_buf_add(v, recs->buf, recs->len);
}

int mi_syms_put(const mi_parsed *p, const char *path, size_t pl, mi_kv_fn fn, void *ctx)
{
	mi_buf k = {0}, v = {0}, recs = {0}, rec = {0};
	uint32_t n = 0;
	int rc = 0;
	uint8_t tmp[10];
	mi_buf_add(&k, path, pl);
	mi_buf_addc(&k, 0);
	for (size_t i = 0; i < p->nsyms && !rc; i++) {
		mi_buf_reset(&rec);
		mi_symbol_encode(&p->syms[i], &rec);
		mi_buf_add(&recs, tmp, mi_varint_put(tmp, rec.len));
		mi_buf_add(&recs, rec.buf, rec.len);
		if (++n == MI_SYMS_BLOCK || recs.len >= MI_SYMS_BLOCK_BYTES || i + 1 == p->nsyms) {
			syms_flush(&k, pl, (uint32_t)i, n, &recs, &v);
			rc = fn(ctx, k.buf, k.len, v.buf, v.len);
			mi_buf_reset(&recs);
			n = 0;
		}
	}
	mi_buf_release(&k);
	mi_buf_release(&v);
	mi_buf_release(&recs);
	mi_buf_release(&rec);
	return rc;
}

/* Takes the block a cursor is at; MI_ERR_NOTFOUND when it is not one of
 * the file's (or does not hold symbol `from`), MI_ERR_CORRUPT when it does
 * not decode. */
static int syms_take(mi_syms *it, const void *k, size_t kl, const void *v, size_t vl,
		     uint32_t from)
{
	uint64_t n;
	if (kl != it->plen + 4)
		return MI_ERR_NOTFOUND;
	uint32_t last = mi_rd32((const uint8_t *)k + it->plen);
	if (it->chunks && last == UINT32_MAX)
		return MI_ERR_NOTFOUND; /* the file's term list: past its chunks */
	it->p = v;
	it->end = it->p + vl;
	if (!mi_varint_get(&it->p, it->end, &n) || !n || n > (uint64_t)last + 1 ||
	    n > (uint64_t)(it->end - it->p)) {
		it->left = 0;
		return MI_ERR_CORRUPT;
	}
	it->idx = last + 1 - (uint32_t)n;
	it->left = (uint32_t)n;
	/* skip to `from` */
	while (it->left && it->idx < from) {
		uint64_t len;
		if (!mi_varint_get(&it->p, it->end, &len) || len > (uint64_t)(it->end - it->p)) {
			it->left = 0;
			return MI_ERR_CORRUPT;
		}
		it->p += len;
		it->idx++;
		it->left--;
	}
	return it->left ? 0 : MI_ERR_NOTFOUND;
}

/* Starts a scan of the blocks under prefix at record `from`. */
static int blk_open(mi_txn *t, int db, const void *prefix, size_t plen, uint32_t from,
		    mi_syms *it)
{
	const void *k, *v;
	size_t kl, vl;
	uint8_t key[4];
	it->plen = plen;
	int rc = mi_cursor_open(t, db, &it->cur);
	if (rc)
		return rc;
	mi_buf pfx = {0};
	mi_buf_add(&pfx, prefix, plen);
	/* bound the cursor to the prefix, then go to the block holding `from` */
	mi_cursor_bound(it->cur, pfx.buf, pfx.len);
	mi_be32(key, from);
	mi_buf_add(&pfx, key, 4);
	rc = mi_cursor_seek(it->cur, pfx.buf, pfx.len, &k, &kl, &v, &vl);
	mi_buf_release(&pfx);
	if (!rc)
		rc = syms_take(it, k, kl, v, vl, from);
	if (rc == MI_ERR_NOTFOUND)
		rc = 0; /* nothing from there: next says so */
	if (rc) /* a failed open leaves nothing to close */
		mi_syms_close(it);
	return rc;
}

int mi_syms_open(mi_txn *t, const char *path, size_t pl, uint32_t from, mi_syms *it)
{
	*it = (mi_syms){0};
	mi_buf pfx = {0};
	mi_buf_add(&pfx, path, pl);
	mi_buf_addc(&pfx, 0);
	int rc = blk_open(t, MI_DB_SYMS, pfx.buf, pfx.len, from, it);
	mi_buf_release(&pfx);
	return rc;
}

int mi_chunks_open(mi_txn *t, uint32_t fid, uint32_t from, mi_syms *it)
{
	uint8_t pfx[4];
	*it = (mi_syms){.chunks = true};
	mi_be32(pfx, fid);
	return blk_open(t, MI_DB_CHUNKS, pfx, 4, from, it);
}

int mi_chunk_get(mi_txn *t, uint32_t fid, uint32_t n, const void **rec, size_t *len)
{
	mi_syms it;
	uint32_t at;
	int rc = mi_chunks_open(t, fid, n, &it);
	if (!rc)
		rc = mi_syms_next(&it, rec, len, &at);
	if (!rc && at != n)
		rc = MI_ERR_NOTFOUND;
	mi_syms_close(&it);
	return rc;
}

int mi_syms_next(mi_syms *it, const void **rec, size_t *len, uint32_t *idx)
{
	uint64_t n;
	if (!it->left) {
		const void *k, *v;
		size_t kl, vl;
		int rc;
		if (!it->cur || it->p == NULL)
			return MI_ERR_NOTFOUND;
		if ((rc = mi_cursor_next(it->cur, &k, &kl, &v, &vl)))
			return rc;
		if ((rc = syms_take(it, k, kl, v, vl, 0)))
			return rc;
	}
	if (!mi_varint_get(&it->p, it->end, &n) || !n || n > (uint64_t)(it->end - it->p)) {
		it->left = 0;
		return MI_ERR_CORRUPT;
	}
	*rec = it->p;
	*len = (size_t)n;
	if (idx)
		*idx = it->idx;
	it->p += n;
	it->idx++;
	it->left--;
	return 0;
}

void mi_syms_close(mi_syms *it)
{
	mi_cursor_close(it->cur);
	*it = (mi_syms){0};
}

int mi_syms_get(mi_txn *t, const char *path, size_t pl, uint32_t idx, const void **rec,
		size_t *len)
{
	mi_syms it;
	uint32_t at;
	int rc = mi_syms_open(t, path, pl, idx, &it);
	if (!rc)
		rc = mi_syms_next(&it, rec, len, &at);
	if (!rc && at != idx)
		rc = MI_ERR_NOTFOUND;
	mi_syms_close(&it);
	return rc;
}

void mi_file_encode(const mi_file_rec *f, mi_buf *out)
{
	msgpack_packer pk;
	msgpack_packer_init(&pk, out, buf_write);
	msgpack_pack_array(&pk, 9);
	msgpack_pack_uint32(&pk, f->file_id);
	msgpack_pack_uint8(&pk, f->lang);
	msgpack_pack_bin(&pk, 16);
	msgpack_pack_bin_body(&pk, f->hash, 16);
	msgpack_pack_uint64(&pk, f->size);
	msgpack_pack_uint32(&pk, f->lines);
	msgpack_pack_int64(&pk, f->mtime);
	msgpack_pack_uint32(&pk, f->nsyms);
	msgpack_pack_uint32(&pk, f->nrefs);
	msgpack_pack_array(&pk, f->ndiags);
	for (uint32_t i = 0; i < f->ndiags; i++) {
		msgpack_pack_array(&pk, 3);
		msgpack_pack_uint32(&pk, f->diags[i].line);
		msgpack_pack_uint8(&pk, (uint8_t)f->diags[i].severity);
		pack_str(&pk, f->diags[i].msg);
	}
}

void mi_outline_encode(const mi_outline_rec *o, mi_buf *out)
{
	msgpack_packer pk;
	msgpack_packer_init(&pk, out, buf_write);
	msgpack_pack_array(&pk, 5);
	msgpack_pack_str(&pk, o->text_len);
	msgpack_pack_str_body(&pk, o->text, o->text_len);
	msgpack_pack_uint32(&pk, o->need);
	msgpack_pack_uint32(&pk, o->lines);
	msgpack_pack_uint32(&pk, o->nsyms);
	msgpack_pack_int32(&pk, o->saved);
}

/* ---- decoding ------------------------------------------------------------------ */

static inline uint32_t rd_u32(mp_rd *r)
{
	int64_t v = rd_int(r);
	if (v < 0 || v > UINT32_MAX)
		r->bad = true;
	return (uint32_t)v;
}

static inline uint8_t rd_u8(mp_rd *r)
{
	int64_t v = rd_int(r);
	if (v < 0 || v > 255)
		r->bad = true;
	return (uint8_t)v;
}

static inline int32_t rd_i32(mp_rd *r)
{
	int64_t v = rd_int(r);
	if (v < INT32_MIN || v > INT32_MAX)
		r->bad = true;
	return (int32_t)v;
}

static inline const char *rd_str(mp_rd *r, mi_parsed *owner)
{
	if (r->p < r->end && *r->p == 0xa0) {
		r->p++; /* empty string: no copy */
		return "";
	}
	uint8_t c = (uint8_t)rd_be(r, 1);
	uint64_t n = 0;
	if (c >= 0xa0 && c <= 0xbf)
		n = c & 0x1f;
	else if (c == 0xd9)
		n = rd_be(r, 1);
	else if (c == 0xda)
		n = rd_be(r, 2);
	else if (c == 0xdb)
		n = rd_be(r, 4);
	else
		r->bad = true;
	if (r->bad || (uint64_t)(r->end - r->p) < n) {
		r->bad = true;
		return "";
	}
	const char *s = mi_parsed_strndup(owner, (const char *)r->p, n);
	r->p += n;
	return s;
}

int mi_mp_get_int(const void *data, size_t len, int64_t *v)
{
	mp_rd r = {data, (const uint8_t *)data + len, false};
	*v = rd_int(&r);
	return r.bad ? MI_ERR_CORRUPT : 0;
}

int mi_mp_get_str(const void *data, size_t len, const char **s, size_t *n)
{
	mp_rd r = {data, (const uint8_t *)data + len, false};
	*s = (const char *)rd_raw(&r, false, n);
	return r.bad ? MI_ERR_CORRUPT : 0;
}

int mi_symbol_decode(const void *data, size_t len, mi_symbol *s, mi_parsed *owner)
{
	mp_rd r = {data, (const uint8_t *)data + len, false};
	memset(s, 0, sizeof(*s));
	if (rd_array(&r) < SYM_FIELDS || r.bad)
		return MI_ERR_CORRUPT;
	s->name = rd_str(&r, owner);
	s->parent = rd_str(&r, owner);
	s->sig = rd_str(&r, owner);
	s->doc = rd_str(&r, owner);
	s->parent_idx = rd_i32(&r);
	s->kind = rd_u8(&r);
	s->vis = rd_u8(&r);
	s->level = rd_u8(&r);
	s->flags = rd_u8(&r);
	s->start_line = rd_u32(&r);
	s->end_line = rd_u32(&r);
	s->start_byte = rd_u32(&r);
	s->end_byte = rd_u32(&r);
	s->body_byte = rd_u32(&r);
	s->body_line = rd_u32(&r);
	if (r.bad || s->kind >= MI_KIND__COUNT)
		return MI_ERR_CORRUPT;
	return 0;
}

int mi_ref_decode(const void *data, size_t len, mi_ref *ref, mi_parsed *owner)
{
	mp_rd r = {data, (const uint8_t *)data + len, false};
	memset(ref, 0, sizeof(*ref));
	uint32_t fields = rd_array(&r);
	if (fields < 5 || r.bad)
		return MI_ERR_CORRUPT;
	if (owner) {
		ref->callee = rd_str(&r, owner);
	} else {
		size_t n;
		rd_raw(&r, false, &n); /* the caller has the name already */
	}
	ref->line = rd_u32(&r);
	ref->caller_idx = rd_i32(&r);
	ref->line_byte = rd_u32(&r);
	ref->kind = rd_u8(&r);
	return r.bad ? MI_ERR_CORRUPT : 0;
}

int mi_outline_decode(const void *data, size_t len, mi_outline_rec *o)
{
	mp_rd r = {data, (const uint8_t *)data + len, false};
	memset(o, 0, sizeof(*o));
	if (rd_array(&r) < 5)
		return MI_ERR_CORRUPT;
	o->text = (const char *)rd_raw(&r, false, &o->text_len);
	o->need = rd_u32(&r);
	o->lines = rd_u32(&r);
	o->nsyms = rd_u32(&r);
	o->saved = rd_i32(&r);
	if (r.bad || !o->text) {
		memset(o, 0, sizeof(*o));
		return MI_ERR_CORRUPT;
	}
	return 0;
}

/* Everything before the diagnostics; *n their count, r left at the first. */
static int file_head(mp_rd *rr, mi_file_rec *f, uint32_t *ndiags)
{
	mp_rd r = *rr;
	size_t hl;
	memset(f, 0, sizeof(*f));
	if (rd_array(&r) < 9 || r.bad)
		return MI_ERR_CORRUPT;
	f->file_id = rd_u32(&r);
	f->lang = rd_u8(&r);
	const uint8_t *h = rd_raw(&r, true, &hl);
	if (r.bad || hl != 16)
		return MI_ERR_CORRUPT;
	memcpy(f->hash, h, 16);
	int64_t size = rd_int(&r);
	f->size = size < 0 ? 0 : (uint64_t)size;
	f->lines = rd_u32(&r);
	f->mtime = rd_int(&r);
	f->nsyms = rd_u32(&r);
	f->nrefs = rd_u32(&r);
	uint32_t n = rd_array(&r);
	/* Each diagnostic takes at least 4 bytes: a count over that is a lie. */
	if (r.bad || size < 0 || n > (size_t)(r.end - r.p) / 4)
		return MI_ERR_CORRUPT;
	*rr = r;
	*ndiags = n;
	return 0;
}

int mi_file_decode_head(const void *data, size_t len, mi_file_rec *f)
{
	mp_rd r = {data, (const uint8_t *)data + len, false};
	uint32_t n;
	int rc = file_head(&r, f, &n);
	if (!rc)
		f->ndiags = n;
	return rc;
}

int mi_file_decode(const void *data, size_t len, mi_file_rec *f)
{
	mp_rd r = {data, (const uint8_t *)data + len, false};
	uint32_t n;
	int rc = file_head(&r, f, &n);
	if (rc || !n)
		return rc;
	/* Two passes: size the one allocation (array, then the messages), then
	 * fill it. */
	mp_rd first = r;
	size_t bytes = n * sizeof(mi_diag);
	for (uint32_t i = 0; i < n; i++) {
		size_t ml;
		if (rd_array(&r) < 3)
			return MI_ERR_CORRUPT;
		rd_u32(&r);
		rd_u8(&r);
		rd_raw(&r, false, &ml);
		if (r.bad)
			return MI_ERR_CORRUPT;
		bytes += ml + 1;
	}
	r = first;
	f->diags = mi_xmalloc(bytes);
	char *strs = (char *)(f->diags + n);
	for (uint32_t i = 0; i < n; i++) {
		size_t ml;
		rd_array(&r);
		f->diags[i].line = rd_u32(&r);
		f->diags[i].severity = (char)rd_u8(&r);
		const uint8_t *m = rd_raw(&r, false, &ml);
		if (ml)
			memcpy(strs, m, ml);
		strs[ml] = 0;
		f->diags[i].msg = strs;
		strs += ml + 1;
	}
	f->ndiags = n;
	return 0;
}

void mi_file_rec_release(mi_file_rec *f)
{
	free(f->diags);
	f->diags = NULL;
	f->ndiags = 0;
}
