/*
 * search_write.c - turns parsed files into search chunks and BM25F postings
 * (MI_DB_CHUNKS, MI_DB_POST, MI_DB_TERMS) and keeps the collection
 * statistics right across incremental builds.  docs/format-search.md has the
 * layout.
 *
 * The three entry points run inside the build's one write transaction.
 * Chunks go out at once; a file's postings to remove and the new ones are
 * gathered in memory and written in key order by mi_search_finish (a term
 * a changed file still holds is rewritten once, not taken out and put
 * back), which also applies the document
 * frequency and length deltas and raises the per-term score bounds.  That
 * per-build state is tied to the transaction by a nonce stored under
 * "search.pending": a transaction that never saw it (a new or retried build)
 * starts from a clean state.
 */
#include "indexer_int.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SW_BOUND_SLACK 1.25f        /* bounds hold until an average grows by this */
#define SW_MAX_SYMS_LISTED 8        /* names in a chunk's symbols list */
#define SW_FORMAT 7                 /* meta "search.format": this layout */
#define SW_GEN_SCAN 1024            /* head bytes searched for a generated-code mark */

/* ---- string-keyed hash map: keys in an arena, values by index ------------- */

typedef struct sw_ent {
	uint32_t off, len;         /* key bytes in the map's arena */
	uint32_t slot;             /* slot index, to clear quickly */
	uint32_t a, b;             /* user values */
	uint32_t h;                /* the key's hash */
	int64_t df;                /* user value: document frequency delta */
	uint32_t tf[MI_SF__COUNT]; /* user values: per-field counts */
	mi_buf post;               /* user value: posting bytes */
} sw_ent;

typedef struct sw_map {
	uint32_t *slots;           /* 0 empty, else entry index + 1 */
	uint32_t cap;              /* slots, a power of two */
	sw_ent *ents;              /* entries in insertion order */
	uint32_t n, capents;
	mi_buf keys;               /* key arena */
} sw_map;

static const char *sw_key(const sw_map *m, const sw_ent *e)
{
	return m->keys.buf + e->off;
}

static void sw_map_grow(sw_map *m)
{
	uint32_t ncap = m->cap ? m->cap * 2 : 256;

	free(m->slots);
	m->slots = mi_xcalloc(ncap, sizeof(*m->slots));
	m->cap = ncap;
	for (uint32_t i = 0; i < m->n; i++) {
		sw_ent *e = &m->ents[i];
		uint32_t s = e->h & (ncap - 1);
		while (m->slots[s])
			s = (s + 1) & (ncap - 1);
		m->slots[s] = i + 1;
		e->slot = s;
	}
}

/* The entry for key, whose hash is h, added zeroed when missing. */
static sw_ent *sw_map_get_h(sw_map *m, const char *key, size_t len, uint32_t h)
{
	uint32_t s;
	sw_ent *e;

	if ((m->n + 1) * 2 > m->cap)
		sw_map_grow(m);
	for (s = h & (m->cap - 1); m->slots[s]; s = (s + 1) & (m->cap - 1)) {
		e = &m->ents[m->slots[s] - 1];
		if (e->h == h && e->len == len && !memcmp(sw_key(m, e), key, len))
			return e;
	}
	if (m->n == m->capents) {
		uint32_t old = m->capents;
		m->capents = m->capents ? m->capents * 2 : 256;
		m->ents = mi_xrealloc(m->ents, m->capents * sizeof(*m->ents));
		memset(m->ents + old, 0, (m->capents - old) * sizeof(*m->ents));
	}
	e = &m->ents[m->n];
	{
		mi_buf keep = e->post; /* reused entries keep their buffer */
		memset(e, 0, sizeof(*e));
		e->post = keep;
		e->post.len = 0;
	}
	e->off = (uint32_t)m->keys.len;
	e->len = (uint32_t)len;
	e->slot = s;
	e->h = h;
	mi_buf_add(&m->keys, key, len);
	mi_buf_addc(&m->keys, 0);
	m->slots[s] = ++m->n;
	return e;
}

static sw_ent *sw_map_get(sw_map *m, const char *key, size_t len)
{
	return sw_map_get_h(m, key, len, (uint32_t)mi_hash64(key, len));
}

/* Empties the map, keeping its memory (posting buffers too). */
static void sw_map_clear(sw_map *m)
{
	for (uint32_t i = 0; i < m->n; i++) {
		m->slots[m->ents[i].slot] = 0;
		mi_buf_reset(&m->ents[i].post);
	}
	m->n = 0;
	mi_buf_reset(&m->keys);
}

static void sw_map_release(sw_map *m)
{
	for (uint32_t i = 0; i < m->capents; i++)
		mi_buf_release(&m->ents[i].post);
	free(m->slots);
	free(m->ents);
	mi_buf_release(&m->keys);
	memset(m, 0, sizeof(*m));
}

/* ---- per-build state ---------------------------------------------------------- */

typedef struct sw_post {
	uint32_t term;             /* index in sw_state.terms */
	uint32_t fid;              /* file id */
	uint64_t off;              /* posting bytes in sw_state.bytes */
	uint32_t len;              /* SW_POST_DEL: the file's postings of the term go */
} sw_post;
#define SW_POST_DEL UINT32_MAX

typedef struct sw_state {
	mi_txn *t;                 /* the transaction this state belongs to */
	int64_t nonce;             /* also stored as meta "search.pending" */
	mi_tok *tk;                /* tokenizer (one per writer) */
	sw_map terms;              /* every term touched: df delta in .df */
	sw_post *posts;            /* new postings, written by finish */
	size_t nposts, capposts;
	mi_buf bytes;              /* posting bytes of posts */
	int64_t dn;                /* chunk count delta */
	int64_t dlen[MI_SF__COUNT];/* field length total deltas */
	sw_map file;               /* per file: term -> postings, chunk count */
	sw_map chunk;              /* per chunk: term -> tf per field */
	mi_buf scratch;            /* record encoding */
	mi_buf lens;               /* the file's chunk lengths value (mi_lens_encode) */
	mi_buf lensraw;            /* its chunks' MI_LENS_W uint32 values */
	struct sw_lens *lc;        /* files' chunk lengths read back, by file id */
	uint32_t nlc, caplc;       /* (open addressing, caplc a power of two) */
} sw_state;

/* A file's chunk lengths, decoded: per chunk its MI_POSTF_* bits, then its
 * MI_SF__COUNT field lengths. */
typedef struct sw_lens {
	uint32_t fid;
	bool used;
	uint32_t n;                /* chunks */
	uint32_t *v;               /* n * SW_LENS_W values */
} sw_lens;
#define SW_LENS_W MI_LENS_W

/* Each thread has its own: the build's writer for the in-place path, and
 * every worker thread of a fresh build (mi_search_file). */
static __thread sw_state sw;

static void sw_reset(void)
{
	mi_tok *tk = sw.tk;

	sw_map_release(&sw.terms);
	sw_map_release(&sw.file);
	sw_map_release(&sw.chunk);
	free(sw.posts);
	mi_buf_release(&sw.bytes);
	mi_buf_release(&sw.scratch);
	mi_buf_release(&sw.lens);
	mi_buf_release(&sw.lensraw);
	for (uint32_t i = 0; i < sw.caplc; i++)
		free(sw.lc[i].v);
	free(sw.lc);
	memset(&sw, 0, sizeof(sw));
	sw.tk = tk;
}

/* Makes sw belong to transaction t (see the file comment). */
static int sw_begin(mi_txn *t)
{
	static int64_t counter;
	int64_t v = 0;
	struct timespec ts;
	int err;

	if (sw.t == t && sw.nonce && !mi_meta_get_int(t, "search.pending", &v) &&
	    v == sw.nonce)
		return 0;
	sw_reset();
	if (!sw.tk && (err = mi_tok_new(&sw.tk)))
		return err;
	clock_gettime(CLOCK_REALTIME, &ts);
	sw.nonce = ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec) ^ (++counter << 48);
	if (sw.nonce <= 0)
		sw.nonce = -sw.nonce + 1;
	sw.t = t;
	return mi_meta_put_int(t, "search.pending", sw.nonce);
}

/* ---- deleting a file's search data ---------------------------------------------- */

static void sw_chunk_key(uint8_t k[8], uint32_t fid, uint32_t n)
{
	mi_be32(k, fid);
	mi_be32(k + 4, n);
}

/* ---- files' chunk lengths (MI_DB_POST, \0 be32(fid / MI_LENS_GROUP)) ---------------- */

/* The key of the group of files holding fid's chunk lengths. */
static void sw_lens_key(uint8_t k[5], uint32_t fid)
{
	k[0] = 0;
	mi_be32(k + 1, fid / MI_LENS_GROUP);
}

/* Appends a group's value: the be32 offsets, then the files' bytes
 * (slice i of file first + i: v[i], vl[i]). */
static void sw_lens_group(mi_buf *out, const void *const *v, const size_t *vl)
{
	uint32_t at = 0;
	uint8_t b[4];

	for (size_t i = 0; i <= MI_LENS_GROUP; i++) {
		mi_be32(b, at);
		mi_buf_add(out, b, 4);
		if (i < MI_LENS_GROUP)
			at += (uint32_t)vl[i];
	}
	for (size_t i = 0; i < MI_LENS_GROUP; i++)
		if (vl[i])
			mi_buf_add(out, v[i], vl[i]);
}

/* Puts (v, vl) as file fid's chunk lengths (vl 0: removes them), keeping
 * the rest of its group. */
static int sw_lens_set(mi_txn *t, uint32_t fid, const void *v, size_t vl)
{
	const void *sv[MI_LENS_GROUP] = { 0 };
	size_t sl[MI_LENS_GROUP] = { 0 }, any = 0;
	uint8_t k[5];
	const void *gv;
	size_t gl;
	mi_buf old = { 0 }, nv = { 0 };
	int err;

	sw_lens_key(k, fid);
	err = mi_get(t, MI_DB_POST, k, 5, &gv, &gl);
	if (err && err != MI_ERR_NOTFOUND)
		return err;
	if (!err) {
		/* a copy: the put below may move the value */
		mi_buf_add(&old, gv, gl);
		for (uint32_t i = 0; i < MI_LENS_GROUP; i++)
			if (!mi_lens_file(old.buf, old.len, i, &sv[i], &sl[i])) {
				mi_buf_release(&old);
				return MI_ERR_CORRUPT;
			}
	}
	sv[fid % MI_LENS_GROUP] = v;
	sl[fid % MI_LENS_GROUP] = vl;
	for (uint32_t i = 0; i < MI_LENS_GROUP; i++)
		any += sl[i];
	if (!any) {
		err = mi_del(t, MI_DB_POST, k, 5);
		if (err == MI_ERR_NOTFOUND)
			err = 0;
	} else {
		sw_lens_group(&nv, sv, sl);
		err = mi_put(t, MI_DB_POST, k, 5, nv.buf, nv.len);
	}
	mi_buf_release(&old);
	mi_buf_release(&nv);
	return err;
}

/* Decodes a file's chunk lengths value (mi_lens_encode) into L. */
static int sw_lens_decode(const uint8_t *p, size_t len, sw_lens *L)
{
	uint32_t n = mi_lens_count(p, len);

	if (n == UINT32_MAX)
		return MI_ERR_CORRUPT;
	L->v = mi_xrealloc(L->v, ((size_t)n + 1) * SW_LENS_W * sizeof(*L->v));
	L->n = n;
	for (uint32_t i = 0; i < n; i++)
		if (!mi_lens_get(p, len, i, L->v + (size_t)i * SW_LENS_W))
			return MI_ERR_CORRUPT;
	return 0;
}

/* The slot of fid in sw.lc: its own, or the empty one it would take. */
static sw_lens *sw_lens_slot(uint32_t fid)
{
	uint32_t s;

	if ((sw.nlc + 1) * 2 > sw.caplc) {
		uint32_t ncap = sw.caplc ? sw.caplc * 2 : 64;
		sw_lens *old = sw.lc, *nl = mi_xcalloc(ncap, sizeof(*nl));
		for (uint32_t i = 0; i < sw.caplc; i++) {
			if (!old[i].used)
				continue;
			for (s = (old[i].fid * 2654435761u) & (ncap - 1); nl[s].used;
			     s = (s + 1) & (ncap - 1))
				;
			nl[s] = old[i];
		}
		free(old);
		sw.lc = nl;
		sw.caplc = ncap;
	}
	for (s = (fid * 2654435761u) & (sw.caplc - 1); sw.lc[s].used && sw.lc[s].fid != fid;
	     s = (s + 1) & (sw.caplc - 1))
		;
	return &sw.lc[s];
}

/* File fid's chunk lengths as t holds them, read once per build. */
static int sw_lens_get(mi_txn *t, uint32_t fid, const sw_lens **out)
{
	sw_lens *L = sw_lens_slot(fid);
	uint8_t k[5];
	const void *v;
	size_t vl;
	int err;

	if (L->used && L->v) {
		*out = L;
		return 0;
	}
	sw_lens_key(k, fid);
	if ((err = mi_get(t, MI_DB_POST, k, 5, &v, &vl)))
		return err == MI_ERR_NOTFOUND ? MI_ERR_CORRUPT : err;
	if (!mi_lens_file(v, vl, fid, &v, &vl) || !vl)
		return MI_ERR_CORRUPT;
	if (!L->used) {
		L->used = true;
		L->fid = fid;
		sw.nlc++;
	}
	if ((err = sw_lens_decode(v, vl, L)))
		return err;
	*out = L;
	return 0;
}

/* Drops what sw_lens_get read of fid (its chunks are being replaced). */
static void sw_lens_forget(uint32_t fid)
{
	sw_lens *L;

	if (!sw.caplc)
		return;
	L = sw_lens_slot(fid);
	if (L->used) {
		free(L->v);
		L->v = NULL;
		L->n = 0;
	}
}

/* Raises the bounds ub (MI_POST_HDR: code, docs, then the same over the
 * postings that do not name the term; then code mode for a query of this
 * one word: over the chunks it alone names, and over the others with
 * their name weighed by the share of it the word is) by one posting's
 * tfn. */
static void sw_bound(float ub[MI_POST_HDR], unsigned flags, const uint32_t *tf,
		     const uint32_t *len, const float *avg)
{
	float a = mi_bm25f_tfn(MI_SM_CODE, flags, tf, len, avg);
	float b = mi_bm25f_tfn(MI_SM_DOCS_MD, flags, tf, len, avg);
	bool named = flags & (1u << MI_SF_NAME);

	ub[0] = a > ub[0] ? a : ub[0];
	ub[1] = b > ub[1] ? b : ub[1];
	if (!named) {
		ub[2] = a > ub[2] ? a : ub[2];
		ub[3] = b > ub[3] ? b : ub[3];
	}
	if (named && len[MI_SF_NAME] == 1) {
		ub[4] = a > ub[4] ? a : ub[4];
	} else {
		float s = named ? mi_name_share(tf[MI_SF_NAME], len[MI_SF_NAME]) : 1;
		float c = s < 1 ? mi_bm25f_tfn_share(MI_SM_CODE, flags, tf, len, avg, s) : a;
		ub[5] = c > ub[5] ? c : ub[5];
	}
}

/* Raises ub (see sw_bound) by the tfn of file fid's stored
 * entries (g, gl) of one term, with the file's chunk lengths. */
static int sw_file_bounds(mi_txn *t, uint32_t fid, const uint8_t *p, size_t len,
			  const float *avg, float ub[MI_POST_HDR])
{
	const uint8_t *e = p + len;
	const sw_lens *L;
	uint32_t n = 0;
	bool first = true;
	int err = sw_lens_get(t, fid, &L);

	while (!err && p < e) {
		uint64_t x;
		uint32_t tf[MI_SF__COUNT] = { 0 };
		unsigned fields;
		if (!mi_varint_get(&p, e, &x) || (x >> MI_POST_NSHIFT) > UINT32_MAX ||
		    (!first && (x >> MI_POST_NSHIFT) > UINT32_MAX - n))
			return MI_ERR_CORRUPT;
		n = first ? (uint32_t)(x >> MI_POST_NSHIFT) : n + (uint32_t)(x >> MI_POST_NSHIFT);
		first = false;
		fields = (unsigned)(x & MI_POST_FIELDS);
		bool ones = x & MI_POST_ONES;
		if (n >= L->n)
			return MI_ERR_CORRUPT;
		for (int f = 0; f < MI_SF__COUNT; f++) {
			if (!(fields & (1u << f)))
				continue;
			if (ones)
				x = 1;
			else if (!mi_varint_get(&p, e, &x) || x > UINT32_MAX)
				return MI_ERR_CORRUPT;
			tf[f] = (uint32_t)x;
		}
		const uint32_t *c = L->v + (size_t)n * SW_LENS_W;
		sw_bound(ub, fields | c[0], tf, c + 1, avg);
	}
	return err;
}

/*
 * A file's entries of one term as the builder makes them (n-delta, all
 * flags, tf and field length per field) into the stored form (out,
 * appended: varint n-delta << 6 | MI_POST_ONES when every tf is 1 | field
 * bits, then, unless every tf is 1, tf per field), raising
 * *ub_code / *ub_docs to their largest tfn with averages avg.
 */
static int sw_narrow(const uint8_t *p, size_t len, mi_buf *out, const float *avg,
		     float ub[MI_POST_HDR])
{
	const uint8_t *e = p + len;

	while (p < e) {
		uint64_t dn, x;
		uint32_t tf[MI_SF__COUNT] = { 0 }, fl[MI_SF__COUNT] = { 0 };
		uint8_t tmp[10 * (1 + MI_SF__COUNT)];
		size_t k;
		unsigned flags;

		if (!mi_varint_get(&p, e, &dn) || !mi_varint_get(&p, e, &x) || x > UINT32_MAX ||
		    dn > UINT32_MAX)
			return MI_ERR_CORRUPT;
		flags = (unsigned)x;
		bool ones = true;
		for (int f = 0; f < MI_SF__COUNT; f++) {
			if (!(flags & (1u << f)))
				continue;
			if (!mi_varint_get(&p, e, &x) || x > UINT32_MAX || !x)
				return MI_ERR_CORRUPT;
			tf[f] = (uint32_t)x;
			ones = ones && x == 1;
			if (!mi_varint_get(&p, e, &x) || x > UINT32_MAX)
				return MI_ERR_CORRUPT;
			fl[f] = (uint32_t)x;
		}
		k = mi_varint_put(tmp, dn << MI_POST_NSHIFT | (ones ? MI_POST_ONES : 0) |
				  (flags & MI_POST_FIELDS));
		for (int f = 0; f < MI_SF__COUNT && !ones; f++)
			if (tf[f])
				k += mi_varint_put(tmp + k, tf[f]);
		mi_buf_add(out, tmp, k);
		sw_bound(ub, flags, tf, fl, avg);
	}
	return 0;
}


/* ---- postings blocks, changed in place -------------------------------------------- */

/* The header of a block of files (MI_POST_HDR): its largest tfn in code
 * and docs mode with the bounds' averages, rounded up. */
static int sw_block_hdr(mi_txn *t, const uint8_t *files, size_t len, const float *bavg,
			uint8_t hdr[MI_POST_HDR], float *ub_code, float *ub_docs)
{
	mi_post_blk b = { .p = files, .e = files + len };
	float ub[MI_POST_HDR] = { 0 };
	uint32_t fid;
	const uint8_t *g;
	size_t gl;
	int err = 0;

	while (!err && mi_post_next(&b, &fid, &g, &gl))
		err = sw_file_bounds(t, fid, g, gl, bavg, ub);
	if (!err && b.bad)
		err = MI_ERR_CORRUPT;
	for (int i = 0; i < MI_POST_HDR; i++)
		hdr[i] = mi_post_q(ub[i]);
	*ub_code = ub[0] > *ub_code ? ub[0] : *ub_code;
	*ub_docs = ub[1] > *ub_docs ? ub[1] : *ub_docs;
	return err;
}

/* The block of term that holds fid if any does (the first key at or after
 * term \0 be32(fid)), else the term's last block: its files copied into
 * val, its header into hdr, its key's file id in *last; *have false when
 * the term has none. */
static int sw_post_find(mi_txn *t, const char *term, size_t tl, uint32_t fid, mi_buf *val,
			uint8_t hdr[MI_POST_HDR], uint32_t *last, bool *have)
{
	uint8_t key[MI_TOK_MAX + 5];
	mi_cursor *c;
	const void *k, *v;
	size_t kl, vl;
	int rc;

	*have = false;
	memcpy(key, term, tl);
	key[tl] = 0;
	mi_be32(key + tl + 1, fid);
	if ((rc = mi_cursor_open(t, MI_DB_POST, &c)))
		return rc;
	mi_cursor_bound(c, key, tl + 1);
	rc = mi_cursor_seek(c, key, tl + 5, &k, &kl, &v, &vl);
	if (rc == MI_ERR_NOTFOUND)
		rc = mi_cursor_prev(c, &k, &kl, &v, &vl);
	if (!rc && (kl != tl + 5 || vl < MI_POST_HDR))
		rc = MI_ERR_CORRUPT;
	if (!rc) {
		*last = mi_rd32((const uint8_t *)k + tl + 1);
		memcpy(hdr, v, MI_POST_HDR);
		mi_buf_reset(val);
		mi_buf_add(val, (const uint8_t *)v + MI_POST_HDR, vl - MI_POST_HDR);
		*have = true;
	}
	mi_cursor_close(c);
	return rc == MI_ERR_NOTFOUND ? 0 : rc;
}

/* Writes the block of files (v, vl) under last with header hdr (del:
 * removes the key). */
static int sw_post_write(mi_txn *t, const char *term, size_t tl, uint32_t last,
			 const void *v, size_t vl, bool del, const uint8_t hdr[MI_POST_HDR])
{
	uint8_t key[MI_TOK_MAX + 5];
	mi_buf val = {0};
	int err;

	memcpy(key, term, tl);
	key[tl] = 0;
	mi_be32(key + tl + 1, last);
	if (del)
		return mi_del(t, MI_DB_POST, key, tl + 5);
	mi_buf_add(&val, hdr, MI_POST_HDR);
	mi_buf_add(&val, v, vl);
	err = mi_put(t, MI_DB_POST, key, tl + 5, val.buf, val.len);
	mi_buf_release(&val);
	return err;
}

/*
 * Puts (g, gl) as file fid's postings of term (gl 0: removes the file's),
 * keeping the term's blocks in order: a file past the last block joins it
 * while it is short; a block grown past twice the block size is split.
 * q is the header of the new postings alone (their largest tfn, made
 * with the bounds' averages): a block they join keeps the larger of its
 * header and q, so a header stays an upper bound of its block without
 * reading the other files' chunk lengths; files taken out leave it as
 * it is (mi_search_finish makes them all exact when it rescans).
 */
static int sw_post_set(mi_txn *t, const char *term, size_t tl, uint32_t fid,
		       const uint8_t *g, size_t gl, const uint8_t q[MI_POST_HDR])
{
	mi_buf val = {0}, nb = {0}, half = {0};
	uint32_t last = 0, prev = 0, f;
	uint8_t hdr[MI_POST_HDR] = { 255, 255, 255, 255, 255, 255 };
	bool have;
	const uint8_t *x;
	size_t xl;
	int err = sw_post_find(t, term, tl, fid, &val, hdr, &last, &have);

	if (err || (!have && !gl) || (have && last < fid && !gl))
		goto out; /* nothing to remove */
	if (!have || (last < fid && val.len >= MI_POST_BLOCK)) {
		mi_post_add(&nb, 0, fid, g, gl);
		err = sw_post_write(t, term, tl, fid, nb.buf, nb.len, false, q);
		goto out;
	}
	uint8_t was[MI_POST_HDR];
	memcpy(was, hdr, MI_POST_HDR);
	if (gl)
		for (int i = 0; i < MI_POST_HDR; i++)
			hdr[i] = q[i] > hdr[i] ? q[i] : hdr[i];
	/* The block with fid in its place (added, replaced or removed). */
	mi_post_blk b = { .p = (const uint8_t *)val.buf, .e = (const uint8_t *)val.buf + val.len };
	bool done = false;
	size_t n = 0;
	while (mi_post_next(&b, &f, &x, &xl)) {
		if (!done && f >= fid) {
			if (gl) {
				mi_post_add(&nb, prev, fid, g, gl);
				prev = fid;
				n++;
			}
			done = true;
			if (f == fid)
				continue;
		}
		mi_post_add(&nb, prev, f, x, xl);
		prev = f;
		n++;
	}
	if (b.bad) {
		err = MI_ERR_CORRUPT;
		goto out;
	}
	if (!done && gl) {
		mi_post_add(&nb, prev, fid, g, gl);
		prev = fid;
		n++;
	}
	if ((!n || prev != last) && (err = sw_post_write(t, term, tl, last, NULL, 0, true, hdr)))
		goto out;
	if (!n)
		goto out;
	if (nb.len <= 2 * MI_POST_BLOCK || n < 2) {
		/* A file whose postings of the term came back as they were
		 * leaves the block alone: no page of it is copied or written. */
		if (prev == last && nb.len == val.len && !memcmp(nb.buf, val.buf, nb.len) &&
		    !memcmp(hdr, was, MI_POST_HDR))
			goto out;
		err = sw_post_write(t, term, tl, prev, nb.buf, nb.len, false, hdr);
		goto out;
	}
	/* Split in two: the first files up to half its length, then the rest. */
	mi_buf rest = {0};
	uint32_t p1 = 0, p2 = 0;
	b = (mi_post_blk){ .p = (const uint8_t *)nb.buf, .e = (const uint8_t *)nb.buf + nb.len };
	while (mi_post_next(&b, &f, &x, &xl)) {
		if (half.len < nb.len / 2 || !half.len) {
			mi_post_add(&half, p1, f, x, xl);
			p1 = f;
		} else {
			mi_post_add(&rest, p2, f, x, xl);
			p2 = f;
		}
	}
	if (!(err = sw_post_write(t, term, tl, p1, half.buf, half.len, false, hdr)) &&
	    rest.len)
		err = sw_post_write(t, term, tl, p2, rest.buf, rest.len, false, hdr);
	mi_buf_release(&rest);
out:
	mi_buf_release(&val);
	mi_buf_release(&nb);
	mi_buf_release(&half);
	return err;
}

/* A new entry at the end of sw.posts. */
static sw_post *sw_post_new(void)
{
	if (sw.nposts == sw.capposts) {
		sw.capposts = sw.capposts ? sw.capposts * 2 : 1024;
		sw.posts = mi_xrealloc(sw.posts, sw.capposts * sizeof(*sw.posts));
	}
	return &sw.posts[sw.nposts++];
}

/* Receives one chunk record (key 8 bytes) of a file. */
typedef int (*sw_put_fn)(void *ctx, const uint8_t *key, const void *val, size_t vlen);
static int sw_file_chunks(uint32_t file_id, const char *path, const mi_parsed *p,
			  const char *src, size_t len, sw_put_fn put, void *ctx,
			  uint32_t *nchunks_out, uint64_t *totals);

static int sw_put_none(void *ctx, const uint8_t *key, const void *val, size_t vlen)
{
	return 0;
}

/*
 * Takes file fid (path) out of the search data: its chunks, and its
 * entries in the postings of each of its terms.  Its terms are those of
 * its chunks as they were written, so its stored source and symbols are
 * cut into chunks and tokenized again (no list of a file's terms is
 * kept): call it before the file's source, symbols or record change.
 */
static int sw_del_existing(mi_txn *t, uint32_t fid, const char *path)
{
	uint8_t k[4];
	const void *v, *kk;
	size_t vl, kl, pl = strlen(path);
	uint64_t totals[MI_SF__COUNT];
	uint32_t nch = 0, i;
	mi_cursor *c;
	mi_parsed old;
	mi_file_rec rec;
	mi_syms si;
	char *src = NULL;
	int err;

	mi_be32(k, fid);
	if ((err = mi_cursor_open(t, MI_DB_CHUNKS, &c)))
		return err;
	err = mi_cursor_seek_prefix(c, k, 4, &kk, &kl, &v, &vl);
	mi_cursor_close(c);
	if (err)
		return err == MI_ERR_NOTFOUND ? 0 : err; /* no chunks: nothing else */
	/* The file as it was written. */
	mi_parsed_init(&old);
	if ((err = mi_get(t, MI_DB_FILES, path, pl, &v, &vl)) ||
	    (err = mi_file_decode(v, vl, &rec)))
		goto out;
	old.lang = rec.lang;
	mi_file_rec_release(&rec);
	if ((err = mi_syms_open(t, path, pl, 0, &si)) && err != MI_ERR_NOTFOUND)
		goto out;
	while (!err && !(err = mi_syms_next(&si, &v, &vl, &i))) {
		while (old.nsyms <= i && old.nsyms < 1u << 24)
			mi_parsed_add_sym(&old);
		if (i >= old.nsyms || mi_symbol_decode(v, vl, &old.syms[i], &old))
			err = MI_ERR_CORRUPT;
	}
	mi_syms_close(&si);
	if (err != MI_ERR_NOTFOUND)
		goto out;
	if ((err = mi_get(t, MI_DB_SRC, path, pl, &v, &vl)))
		goto out;
	src = mi_xmalloc(vl + 1); /* the deletes below may move the map */
	memcpy(src, v, vl);
	src[vl] = 0;
	if ((err = sw_file_chunks(fid, path, &old, src, vl, sw_put_none, NULL, &nch, totals)))
		goto out;
	sw.dn -= (int64_t)nch;
	for (int f = 0; f < MI_SF__COUNT; f++)
		sw.dlen[f] -= (int64_t)totals[f];
	for (i = 0; i < sw.file.n && !err; i++) {
		sw_ent *fe = &sw.file.ents[i];
		sw_ent *ge = sw_map_get(&sw.terms, sw_key(&sw.file, fe), fe->len);
		ge->df -= fe->df;
		/* Taken out by mi_search_finish, unless the file is put back
		 * with the term (then its new postings replace these). */
		*sw_post_new() = (sw_post){ .term = (uint32_t)(ge - sw.terms.ents), .fid = fid,
					    .len = SW_POST_DEL };
	}
	if (!err)
		err = mi_del_prefix(t, MI_DB_CHUNKS, k, 4);
	if (!err)
		err = sw_lens_set(t, fid, NULL, 0); /* its chunk lengths in MI_DB_POST */
	sw_lens_forget(fid);
out:
	free(src);
	mi_parsed_release(&old);
	/* chunks without a source or file record: a damaged index */
	return err == MI_ERR_NOTFOUND ? MI_ERR_CORRUPT : err;
}

int mi_search_del_file(mi_txn *t, uint32_t file_id, const char *path)
{
	int err = sw_begin(t);

	if (!err)
		err = sw_del_existing(t, file_id, path);
	return err;
}

/* ---- what kind of code a file is ------------------------------------------------ */

/* Test files, by name: the conventions of the supported languages. */
static const char *const sw_test_suffixes[] = {
	"_test.go", "_test.py", "_tests.py", "_test.c", "_test.cc", "_test.cpp",
	"_kunit.c", "-test.c", ".test.js", ".test.ts", ".test.jsx", ".test.tsx",
	".test.mjs", ".spec.js", ".spec.ts", ".spec.jsx", ".spec.tsx", "_spec.rb",
	"_test.rb", "Test.java", "Tests.java", "Test.kt", "Tests.kt", "Tests.swift",
	"Test.swift", "Test.php", "Test.cs", "Tests.cs", "_test.rs", "_test.sh",
};
static const char *const sw_test_prefixes[] = { "test_", "test-" };
static const char *const sw_test_dirs[] = {
	"test", "tests", "__tests__", "selftests", "unittests",
};
/* Generated files, by name and by the mark generators leave in the head
 * (searched case-insensitively in the first SW_GEN_SCAN bytes). */
static const char *const sw_gen_suffixes[] = {
	".pb.go", ".pb.gw.go", "_pb2.py", "_pb2_grpc.py", ".pb.cc", ".pb.h",
	".pb.c", ".g.dart", ".designer.cs", ".Designer.cs", ".min.js",
};
static const char *const sw_gen_marks[] = {
	"do not edit", "@generated", "auto-generated", "autogenerated",
	"automatically generated", "generated by the protocol buffer compiler",
};

static bool sw_ends_with(const char *s, size_t n, const char *suf)
{
	size_t m = strlen(suf);

	return n >= m && !memcmp(s + n - m, suf, m);
}

/* MI_POSTF_TEST and MI_POSTF_GEN as the file's path and head say. */
static unsigned sw_file_class(const char *path, const char *src, size_t len)
{
	const char *base = strrchr(path, '/');
	size_t bl;
	unsigned cls = 0;

	base = base ? base + 1 : path;
	bl = strlen(base);
	for (size_t i = 0; i < sizeof(sw_test_suffixes) / sizeof(*sw_test_suffixes); i++)
		if (sw_ends_with(base, bl, sw_test_suffixes[i]))
			cls |= MI_POSTF_TEST;
	for (size_t i = 0; i < sizeof(sw_test_prefixes) / sizeof(*sw_test_prefixes); i++)
		if (!strncmp(base, sw_test_prefixes[i], strlen(sw_test_prefixes[i])))
			cls |= MI_POSTF_TEST;
	for (const char *d = path; d < base;) {
		const char *sl = strchr(d, '/');
		for (size_t i = 0; i < sizeof(sw_test_dirs) / sizeof(*sw_test_dirs); i++)
			if ((size_t)(sl - d) == strlen(sw_test_dirs[i]) &&
			    !memcmp(d, sw_test_dirs[i], (size_t)(sl - d)))
				cls |= MI_POSTF_TEST;
		d = sl + 1;
	}
	for (size_t i = 0; i < sizeof(sw_gen_suffixes) / sizeof(*sw_gen_suffixes); i++)
		if (sw_ends_with(base, bl, sw_gen_suffixes[i]) ||
		    !strncmp(base, "zz_generated", 12))
			cls |= MI_POSTF_GEN;
	if (!(cls & MI_POSTF_GEN)) {
		char head[SW_GEN_SCAN + 1];
		size_t n = len < SW_GEN_SCAN ? len : SW_GEN_SCAN;
		for (size_t i = 0; i < n; i++)
			head[i] = (char)(src[i] >= 'A' && src[i] <= 'Z' ? src[i] + 32 :
					 src[i] ? src[i] : ' ');
		head[n] = 0;
		for (size_t i = 0; i < sizeof(sw_gen_marks) / sizeof(*sw_gen_marks); i++)
			if (strstr(head, sw_gen_marks[i]))
				cls |= MI_POSTF_GEN;
	}
	return cls;
}

/* ---- chunking ----------------------------------------------------------------- */

typedef struct sw_span {
	int sym;                   /* symbol index, -1 for the file */
	uint32_t start, end;       /* bytes */
	int parent;                /* index in the span array, -1 top */
} sw_span;

static bool sw_is_chunk_kind(const mi_symbol *s)
{
	switch (s->kind) {
	case MI_KIND_FUNCTION: case MI_KIND_METHOD: case MI_KIND_CLASS:
	case MI_KIND_STRUCT: case MI_KIND_ENUM: case MI_KIND_TRAIT:
	case MI_KIND_POINTCUT: case MI_KIND_MODULE: case MI_KIND_HEADING:
	case MI_KIND_UNION:
		return true;
	case MI_KIND_MACRO: case MI_KIND_TYPEDEF:
		return s->end_line > s->start_line; /* one-liners go to the file */
	default:
		return false;
	}
}

/* Comments of one doc block followed up: as many as the parser reads into
 * a symbol's doc (a Go doc comment is one comment per line and may run over
 * a hundred lines, net.Dial's does). */
#ifndef SW_DOC_BLOCKS_MAX
#define SW_DOC_BLOCKS_MAX 4096
#endif

/* Lines an attribute may span (Rust's #[cfg_attr(...)] over several). */
#define SW_ATTR_LINES 32

/* Start of the Rust attribute (`#[...]`, `#![...]`) whose last line is the
 * one from ls to j, or UINT32_MAX when that line ends none: a line that
 * opens one, or the last of one opened at most SW_ATTR_LINES lines above
 * whose brackets close there. */
static uint32_t sw_attr_start(const char *src, uint32_t ls, uint32_t j)
{
	uint32_t a = ls;

	if (src[j - 1] != ']')
		return UINT32_MAX;
	for (int lines = 0; lines < SW_ATTR_LINES; lines++) {
		if (j - a >= 2 && src[a] == '#' && (src[a + 1] == '[' ||
						    (src[a + 1] == '!' && j - a >= 3 && src[a + 2] == '['))) {
			long depth = 0;
			for (uint32_t i = a; i < j; i++)
				depth += (src[i] == '[') - (src[i] == ']');
			return depth == 0 ? a : UINT32_MAX;
		}
		while (a > 0 && src[a - 1] != '\n')
			a--;
		if (a < 2)
			break;
		a--; /* the line above: its start, less its indent */
		while (a > 0 && src[a - 1] != '\n')
			a--;
		while (src[a] == ' ' || src[a] == '\t')
			a++;
	}
	return UINT32_MAX;
}

/* Start of the comment block right above byte `start` (no blank line in
 * between), so a symbol's chunk owns its doc comment; `start` if none.
 * Rust's attributes between the two (`#[derive(Debug)]`, `#[stable(...)]`:
 * the doc comment is written above them) are passed over into the chunk. */
uint32_t mi_search_doc_start(const char *src, uint32_t start)
{
	uint32_t doc = start;

	uint32_t b = start;

	for (int blocks = 0; blocks < SW_DOC_BLOCKS_MAX; blocks++) {
		uint32_t j = b, nl = 0, ls;
		while (j > 0 && (src[j - 1] == ' ' || src[j - 1] == '\t' ||
				 src[j - 1] == '\n' || src[j - 1] == '\r')) {
			nl += src[j - 1] == '\n';
			j--;
		}
		if (nl > 1 || j == 0)
			break;
		if (j >= 2 && src[j - 2] == '*' && src[j - 1] == '/') {
			uint32_t k = j - 2;
			while (k >= 2 && !(src[k - 2] == '/' && src[k - 1] == '*'))
				k--;
			if (k < 2)
				break;
			doc = b = k - 2;
			continue;
		}
		ls = j;
		while (ls > 0 && src[ls - 1] != '\n')
			ls--;
		while (ls < j && (src[ls] == ' ' || src[ls] == '\t'))
			ls++;
		uint32_t a = sw_attr_start(src, ls, j);
		if (a != UINT32_MAX) {
			b = a;
			continue;
		}
		if ((j - ls >= 2 && src[ls] == '/' && src[ls + 1] == '/') ||
		    (src[ls] == '#' && (j - ls == 1 || src[ls + 1] == ' ' ||
					src[ls + 1] == '#' || src[ls + 1] == '!'))) {
			doc = b = ls;
			continue;
		}
		break;
	}
	return doc;
}

static int sw_span_cmp(const void *a, const void *b)
{
	const sw_span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->sym - y->sym;
}

typedef struct sw_tokctx {
	int field;
	uint32_t len;              /* terms emitted into the field */
} sw_tokctx;

static void sw_on_term(void *ctx, const char *term, size_t len)
{
	sw_tokctx *c = ctx;
	sw_ent *e = sw_map_get(&sw.chunk, term, len);

	e->tf[c->field]++;
	c->len++;
}

static uint32_t sw_tok_field(int field, const char *s, size_t len, int flags)
{
	sw_tokctx c = { field, 0 };

	if (s && len)
		mi_tok_run(sw.tk, s, len, flags, sw_on_term, &c);
	return c.len;
}

/* Appends "A > B > name" for symbol i (parents by index, or the parent
 * string when the index is missing). */
static void sw_crumb(const mi_parsed *p, int i, mi_buf *out, int depth)
{
	const mi_symbol *s = &p->syms[i];

	if (depth < 8 && s->parent_idx >= 0 && (size_t)s->parent_idx < p->nsyms &&
	    s->parent_idx != i) {
		sw_crumb(p, s->parent_idx, out, depth + 1);
		mi_buf_adds(out, " > ");
	} else if (s->parent && *s->parent) {
		mi_buf_adds(out, s->parent);
		mi_buf_adds(out, " > ");
	}
	mi_buf_adds(out, s->name ? s->name : "");
}

/* Line number (1-based) of byte offset off. */
static uint32_t sw_line_of(const char *src, size_t len, uint32_t off,
			   uint32_t from_byte, uint32_t from_line)
{
	uint32_t line = from_line;

	for (size_t i = from_byte; i < off && i < len; i++)
		if (src[i] == '\n')
			line++;
	return line;
}

/* First line of a symbol's span that names it (skips a leading comment). */
static uint32_t sw_snip_line(const mi_symbol *s, const char *src, size_t len,
			     uint32_t *byte)
{
	size_t nl = s->name ? strlen(s->name) : 0;
	uint32_t line = s->start_line, b = s->start_byte;

	while (b > 0 && b <= len && src[b - 1] != '\n')
		b--; /* the start of the symbol's first line */
	*byte = b;
	if (!nl || s->kind == MI_KIND_HEADING)
		return s->start_line;
	for (int tries = 0; tries < 40 && b < s->end_byte && b < len; tries++) {
		const char *eol = memchr(src + b, '\n', len - b);
		size_t ll = eol ? (size_t)(eol - (src + b)) : len - b;
		if (memmem(src + b, ll, s->name, nl)) {
			*byte = b;
			return line;
		}
		if (!eol)
			break;
		b += (uint32_t)ll + 1;
		line++;
	}
	return s->start_line;
}

typedef struct sw_chunkinfo {
	uint32_t flags;            /* MI_POSTF_* besides field bits */
	uint32_t len[MI_SF__COUNT];
} sw_chunkinfo;

/* Moves the chunk's term table into per-file postings, in the builder's
 * form (n-delta, all flags, tf and field length per field: a posting
 * scored alone); sw_narrow makes the stored form. */
static void sw_chunk_postings(uint32_t n, const sw_chunkinfo *ci, uint32_t *last_n)
{
	for (uint32_t i = 0; i < sw.chunk.n; i++) {
		sw_ent *ce = &sw.chunk.ents[i];
		sw_ent *fe = sw_map_get_h(&sw.file, sw_key(&sw.chunk, ce), ce->len, ce->h);
		uint8_t tmp[10 * (2 + 2 * MI_SF__COUNT)];
		size_t k = 0;
		uint32_t flags = ci->flags;

		for (int f = 0; f < MI_SF__COUNT; f++)
			if (ce->tf[f])
				flags |= 1u << f;
		k += mi_varint_put(tmp + k, fe->df ? n - last_n[fe - sw.file.ents] : n);
		k += mi_varint_put(tmp + k, flags);
		for (int f = 0; f < MI_SF__COUNT; f++) {
			if (!ce->tf[f])
				continue;
			k += mi_varint_put(tmp + k, ce->tf[f]);
			k += mi_varint_put(tmp + k, ci->len[f]);
		}
		mi_buf_add(&fe->post, tmp, k);
		last_n[fe - sw.file.ents] = n;
		fe->df++;
	}
}

/* Tokenizes one chunk's fields into sw.chunk; returns the terms in it. */
static uint32_t sw_chunk_terms(const char *name, size_t name_len,
			       const char *crumb, size_t crumb_len,
			       const char *path, const char *sig, const char *doc,
			       const char *src, const uint32_t *ranges, size_t nranges,
			       int body_flags, sw_chunkinfo *ci)
{
	uint32_t total = 0;

	sw_map_clear(&sw.chunk);
	ci->len[MI_SF_NAME] = sw_tok_field(MI_SF_NAME, name, name_len, 0);
	ci->len[MI_SF_PATH] = sw_tok_field(MI_SF_PATH, crumb, crumb_len, 0) +
			      sw_tok_field(MI_SF_PATH, path, strlen(path), 0);
	ci->len[MI_SF_SIG] = sw_tok_field(MI_SF_SIG, sig, sig ? strlen(sig) : 0,
					  MI_TOK_CODE);
	ci->len[MI_SF_DOC] = sw_tok_field(MI_SF_DOC, doc, doc ? strlen(doc) : 0, 0);
	ci->len[MI_SF_BODY] = 0;
	for (size_t r = 0; r < nranges; r++)
		ci->len[MI_SF_BODY] += sw_tok_field(MI_SF_BODY, src + ranges[2 * r],
						    ranges[2 * r + 1] - ranges[2 * r],
						    body_flags);
	for (int f = 0; f < MI_SF__COUNT; f++)
		total += ci->len[f];
	return total;
}

/* Byte ranges of span si not covered by its child spans, into *r. */
static size_t sw_own_ranges(const sw_span *sp, size_t nsp, size_t si,
			    uint32_t **r, size_t *cap)
{
	size_t n = 0;
	uint32_t at = sp[si].start;

	for (size_t j = si + 1; j < nsp && sp[j].start < sp[si].end; j++) {
		if (sp[j].parent != (int)si)
			continue;
		if (sp[j].start > at) {
			if (2 * n + 2 > *cap) {
				*cap = *cap ? *cap * 2 : 16;
				*r = mi_xrealloc(*r, *cap * sizeof(**r));
			}
			(*r)[2 * n] = at;
			(*r)[2 * n + 1] = sp[j].start;
			n++;
		}
		if (sp[j].end > at)
			at = sp[j].end;
	}
	if (sp[si].end > at) {
		if (2 * n + 2 > *cap) {
			*cap = *cap ? *cap * 2 : 16;
			*r = mi_xrealloc(*r, *cap * sizeof(**r));
		}
		(*r)[2 * n] = at;
		(*r)[2 * n + 1] = sp[si].end;
		n++;
	}
	return n;
}

static bool sw_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return false;
	return true;
}

/*
 * Cuts one file into chunks, tokenizes them and gathers its postings in
 * sw.file (the calling thread's): each chunk record goes to put; the
 * number of chunks and the field length totals come back.
 */
/* A block of chunks ends after this many or bytes of records (the layout
 * of a block of symbols, format.h mi_chunks_open). */
#define SW_CHUNK_BLOCK 16
#define SW_CHUNK_BLOCK_BYTES 4096

/* Puts the block of n chunk records in blk, the last chunk `last`. */
static int sw_chunk_block(uint32_t file_id, uint32_t last, uint32_t n, mi_buf *blk,
			  sw_put_fn put, void *ctx)
{
	uint8_t k[8], tmp[10];
	mi_buf v = { 0 };
	int err;
	sw_chunk_key(k, file_id, last);
	mi_buf_add(&v, tmp, mi_varint_put(tmp, n));
	mi_buf_add(&v, blk->buf, blk->len);
	err = put(ctx, k, v.buf, v.len);
	mi_buf_release(&v);
	mi_buf_reset(blk);
	return err;
}

static int sw_file_chunks(uint32_t file_id, const char *path, const mi_parsed *p,
			  const char *src, size_t len, sw_put_fn put, void *ctx,
			  uint32_t *nchunks_out, uint64_t *totals)
{
	mi_buf blk = { 0 };
	uint32_t inblk = 0;
	uint8_t tmp[10];
	sw_span *sp = NULL;
	size_t nsp = 0, rcap = 0, nr;
	uint32_t *ranges = NULL, *last_n = NULL, nchunks = 0;
	int body_flags = mi_lang_flags(p->lang) & MI_LANGF_PROSE ? 0 : MI_TOK_CODE;
	const char *base = strrchr(path, '/');
	mi_buf crumb = { 0 }, syms = { 0 };
	unsigned fclass;
	int err = 0;

	base = base ? base + 1 : path;
	fclass = sw_file_class(path, src, len);
	memset(totals, 0, MI_SF__COUNT * sizeof(*totals));
	sw_map_clear(&sw.file);
	mi_buf_reset(&sw.lens);
	mi_buf_reset(&sw.lensraw);

	/* The file itself is the root span; chunk symbols nest inside it. */
	sp = mi_xmalloc((p->nsyms + 1) * sizeof(*sp));
	sp[nsp++] = (sw_span){ -1, 0, (uint32_t)len, -1 };
	for (size_t i = 0; i < p->nsyms; i++) {
		const mi_symbol *s = &p->syms[i];
		if (!sw_is_chunk_kind(s) || s->start_byte >= s->end_byte ||
		    s->end_byte > len || !s->name)
			continue;
		sp[nsp++] = (sw_span){ (int)i, s->doc && *s->doc ?
				       mi_search_doc_start(src, s->start_byte) : s->start_byte,
				       s->end_byte, -1 };
	}
	qsort(sp + 1, nsp - 1, sizeof(*sp), sw_span_cmp);
	{
		size_t *stack = mi_xmalloc(nsp * sizeof(*stack)), depth = 1;
		stack[0] = 0;
		for (size_t i = 1; i < nsp; i++) {
			while (depth > 1 && sp[stack[depth - 1]].end < sp[i].end)
				depth--;
			sp[i].parent = (int)stack[depth - 1];
			stack[depth++] = i;
		}
		free(stack);
	}

	for (size_t si = 0; si < nsp; si++) {
		const mi_symbol *s = sp[si].sym >= 0 ? &p->syms[sp[si].sym] : NULL;
		sw_chunkinfo ci = { 0 };
		mi_chunk c = { 0 };
		uint32_t nterms;

		nr = sw_own_ranges(sp, nsp, si, &ranges, &rcap);
		mi_buf_reset(&crumb);
		mi_buf_reset(&syms);
		if (s) {
			sw_crumb(p, sp[si].sym, &crumb, 0);
			nterms = sw_chunk_terms(s->name, strlen(s->name),
						crumb.buf, crumb.len - strlen(s->name),
						path, s->sig, s->doc, src, ranges, nr,
						s->kind == MI_KIND_HEADING ? 0 : body_flags, &ci);
			ci.flags |= fclass;
			if (s->flags & MI_SYMF_TEST)
				ci.flags |= MI_POSTF_TEST;
			if (s->vis == MI_VIS_PRIVATE)
				ci.flags |= MI_POSTF_PRIVATE;
			if (s->kind == MI_KIND_HEADING || (mi_lang_flags(p->lang) & MI_LANGF_PROSE))
				ci.flags |= MI_POSTF_MD;
			if (s->kind != MI_KIND_FUNCTION && s->kind != MI_KIND_METHOD)
				ci.flags |= MI_POSTF_AUX;
			c.kind = s->kind;
			c.vis = s->vis;
			c.level = s->level;
			c.start_line = s->start_line;
			c.end_line = s->end_line;
			c.snip_line = sw_snip_line(s, src, len, &c.snip_byte);
			c.name = s->name;
			c.name_len = (uint32_t)strlen(s->name);
			/* Signature and doc comment: the symbol's (mi_chunk_sym). */
			c.sym = (uint32_t)sp[si].sym + 1;
			mi_buf_adds(&syms, s->name);
		} else {
			/* What no symbol chunk covers; only kept when it says something. */
			size_t keep = 0;
			for (size_t r = 0; r < nr; r++)
				if (!sw_blank(src + ranges[2 * r], ranges[2 * r + 1] - ranges[2 * r]))
					ranges[2 * keep] = ranges[2 * r],
					ranges[2 * keep + 1] = ranges[2 * r + 1], keep++;
			nr = keep;
			if (!nr)
				continue;
			nterms = sw_chunk_terms(base, strlen(base), NULL, 0, path, NULL,
						NULL, src, ranges, nr, body_flags, &ci);
			ci.flags |= MI_POSTF_AUX | fclass;
			if (mi_lang_flags(p->lang) & MI_LANGF_PROSE)
				ci.flags |= MI_POSTF_MD;
			c.kind = MI_KIND_NONE;
			c.vis = MI_VIS_PUBLIC;
			{
				uint32_t b = ranges[0];
				while (b < ranges[1] && (src[b] == '\n' || src[b] == '\r' ||
							 src[b] == ' ' || src[b] == '\t'))
					b++;
				c.start_line = sw_line_of(src, len, b, 0, 1);
				while (b > 0 && src[b - 1] != '\n')
					b--;
				c.snip_byte = b;
				b = ranges[2 * nr - 1];
				while (b > ranges[2 * nr - 2] && sw_blank(src + b - 1, 1))
					b--;
				c.end_line = sw_line_of(src, len, b ? b - 1 : 0,
							0, 1);
				if (c.end_line < c.start_line)
					c.end_line = c.start_line;
			}
			c.snip_line = c.start_line;
			c.name = base;
			c.name_len = (uint32_t)strlen(base);
			mi_buf_adds(&crumb, path);
		}
		/* Symbols listed: the chunk's own and its non-chunk members. */
		if (!s || s->kind == MI_KIND_CLASS || s->kind == MI_KIND_STRUCT ||
		    s->kind == MI_KIND_ENUM || s->kind == MI_KIND_TRAIT ||
		    s->kind == MI_KIND_MODULE || s->kind == MI_KIND_UNION) {
			int listed = s ? 1 : 0;
			for (size_t i = 0; i < p->nsyms && listed < SW_MAX_SYMS_LISTED; i++) {
				const mi_symbol *m = &p->syms[i];
				if (sw_is_chunk_kind(m) || !m->name || !*m->name ||
				    m->start_byte < sp[si].start || m->end_byte > sp[si].end)
					continue;
				/* Only members not inside a child chunk. */
				bool inside = false;
				for (size_t j = si + 1; j < nsp && sp[j].start < sp[si].end; j++)
					if (sp[j].parent == (int)si && m->start_byte >= sp[j].start &&
					    m->end_byte <= sp[j].end) {
						inside = true;
						break;
					}
				if (inside)
					continue;
				if (syms.len)
					mi_buf_adds(&syms, ", ");
				mi_buf_adds(&syms, m->name);
				listed++;
			}
		}
		if (nterms == 0)
			continue;
		c.crumb = crumb.buf;
		c.crumb_len = (uint32_t)crumb.len;
		c.syms = syms.buf;
		c.syms_len = (uint32_t)syms.len;
		mi_buf_reset(&sw.scratch);
		mi_chunk_encode(&c, &sw.scratch);
		mi_buf_add(&blk, tmp, mi_varint_put(tmp, sw.scratch.len));
		mi_buf_add(&blk, sw.scratch.buf, sw.scratch.len);
		if (++inblk == SW_CHUNK_BLOCK || blk.len >= SW_CHUNK_BLOCK_BYTES) {
			if ((err = sw_chunk_block(file_id, nchunks, inblk, &blk, put, ctx)))
				goto out;
			inblk = 0;
		}
		/* last_n is indexed like sw.file.ents; grow it alongside. */
		last_n = mi_xrealloc(last_n, (sw.file.n + sw.chunk.n + 1) *
				     sizeof(*last_n));
		sw_chunk_postings(nchunks, &ci, last_n);
		mi_buf_add(&sw.lensraw, &ci.flags, sizeof(ci.flags));
		mi_buf_add(&sw.lensraw, ci.len, sizeof(ci.len));
		for (int f = 0; f < MI_SF__COUNT; f++)
			totals[f] += ci.len[f];
		nchunks++;
	}

	if (inblk && (err = sw_chunk_block(file_id, nchunks - 1, inblk, &blk, put, ctx)))
		goto out;
	mi_lens_encode((const uint32_t *)(void *)sw.lensraw.buf, nchunks, &sw.lens);
	*nchunks_out = nchunks;
out:
	mi_buf_release(&blk);
	free(sp);
	free(ranges);
	free(last_n);
	mi_buf_release(&crumb);
	mi_buf_release(&syms);
	return err;
}

static int sw_put_chunk(void *ctx, const uint8_t *key, const void *val, size_t vlen)
{
	return mi_put(ctx, MI_DB_CHUNKS, key, 8, val, vlen);
}

int mi_search_put_file(mi_txn *t, uint32_t file_id, const char *path,
		       const mi_parsed *p, const char *src, size_t len)
{
	uint64_t totals[MI_SF__COUNT];
	uint32_t nchunks = 0;
	int err;

	if ((err = sw_begin(t)) || (err = sw_del_existing(t, file_id, path)) ||
	    (err = sw_file_chunks(file_id, path, p, src, len, sw_put_chunk, t, &nchunks, totals)))
		return err;
	/* Queue the postings and count df for mi_search_finish. */
	for (uint32_t i = 0; i < sw.file.n; i++) {
		sw_ent *fe = &sw.file.ents[i];
		sw_ent *ge = sw_map_get_h(&sw.terms, sw_key(&sw.file, fe), fe->len, fe->h);
		sw_post *po;

		ge->df += fe->df;
		po = sw_post_new();
		po->term = (uint32_t)(ge - sw.terms.ents);
		po->fid = file_id;
		po->off = sw.bytes.len;
		po->len = (uint32_t)fe->post.len;
		mi_buf_add(&sw.bytes, fe->post.buf, fe->post.len);
	}
	sw.dn += nchunks;
	for (int f = 0; f < MI_SF__COUNT; f++)
		sw.dlen[f] += (int64_t)totals[f];
	sw_lens_forget(file_id);
	if (nchunks)
		err = sw_lens_set(t, file_id, sw.lens.buf, sw.lens.len);
	return err;
}

/* ---- fresh builds: files on the worker threads, postings sorted ---------------------- */

int mi_search_file(uint32_t file_id, const char *path, const mi_parsed *p,
		   const char *src, size_t len, mi_search_put put, void *ctx,
		   mi_search_post post, void *post_ctx, mi_search_totals *tot)
{
	uint64_t totals[MI_SF__COUNT];
	uint32_t nchunks = 0;
	uint8_t key[MI_TOK_MAX + 5];
	mi_buf v = { 0 };
	int err;

	if (!sw.tk && (err = mi_tok_new(&sw.tk)))
		return err;
	if ((err = sw_file_chunks(file_id, path, p, src, len, (sw_put_fn)put, ctx,
				  &nchunks, totals)))
		return err;
	/* A posting: term \0 be32(fid) -> varint chunks holding the term, then
	 * the posting bytes (the count becomes df when they are written). */
	for (uint32_t i = 0; i < sw.file.n; i++) {
		sw_ent *fe = &sw.file.ents[i];
		uint8_t tmp[10];
		memcpy(key, sw_key(&sw.file, fe), fe->len);
		key[fe->len] = 0;
		mi_be32(key + fe->len + 1, file_id);
		mi_buf_reset(&v);
		mi_buf_add(&v, tmp, mi_varint_put(tmp, (uint64_t)fe->df));
		mi_buf_add(&v, fe->post.buf, fe->post.len);
		if (post)
			post(post_ctx, key, fe->len + 5, v.buf, v.len);
	}
	mi_buf_release(&v);
	tot->nchunks += nchunks;
	for (int f = 0; f < MI_SF__COUNT; f++)
		tot->len[f] += (int64_t)totals[f];
	if (nchunks && post) {
		/* The chunk lengths sort before every term's postings. */
		key[0] = 0;
		mi_be32(key + 1, file_id);
		post(post_ctx, key, 5, sw.lens.buf, sw.lens.len);
	}
	return err;
}

void mi_search_thread_done(void)
{
	sw_reset();
	mi_tok_free(sw.tk);
	sw.tk = NULL;
}

/* ---- finish: write postings, statistics, bounds ------------------------------------ */

static const char *const sw_len_keys[MI_SF__COUNT] = {
	"search.len.name", "search.len.path", "search.len.sig",
	"search.len.doc", "search.len.body",
};
static const char *const sw_bavg_keys[MI_SF__COUNT] = {
	"search.bavg.name", "search.bavg.path", "search.bavg.sig",
	"search.bavg.doc", "search.bavg.body",
};

static uint32_t *sw_rank; /* term index -> rank in key order, for sorting */

static int sw_term_cmp(const void *a, const void *b)
{
	const sw_ent *x = &sw.terms.ents[*(const uint32_t *)a];
	const sw_ent *y = &sw.terms.ents[*(const uint32_t *)b];
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(sw_key(&sw.terms, x), sw_key(&sw.terms, y), n);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int sw_post_cmp(const void *a, const void *b)
{
	const sw_post *x = a, *y = b;
	uint32_t rx = sw_rank[x->term], ry = sw_rank[y->term];

	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (x->fid != y->fid)
		return x->fid < y->fid ? -1 : 1;
	/* a removal before the postings that replace it */
	return (y->len == SW_POST_DEL) - (x->len == SW_POST_DEL);
}

/* Recomputes every term's bounds from all postings in the store. */
static int sw_rescan_bounds(mi_txn *t, const float *bavg)
{
	mi_cursor *c = NULL;
	const void *k, *v;
	size_t kl, vl;
	char cur[MI_TOK_MAX + 1];
	size_t curl = 0;
	float uc = 0, ud = 0;
	int err, rc;

	if ((err = mi_cursor_open(t, MI_DB_POST, &c)))
		return err;
	rc = mi_cursor_seek(c, NULL, 0, &k, &kl, &v, &vl);
	for (;;) {
		const char *key = k;
		size_t tl = rc ? 0 : strnlen(key, kl);
		if (curl && (rc || tl != curl || memcmp(key, cur, tl))) {
			const void *tv;
			size_t tvl;
			mi_term_stats ts;
			uint8_t enc[MI_TERM_STATS_MAX];
			if (!mi_get(t, MI_DB_TERMS, cur, curl, &tv, &tvl) &&
			    !mi_term_stats_decode(tv, tvl, &ts)) {
				ts.ub_code = uc;
				ts.ub_docs = ud;
				size_t el = mi_term_stats_encode(&ts, enc);
				if ((err = mi_put(t, MI_DB_TERMS, cur, curl, enc, el)))
					break;
			}
			curl = 0;
		}
		if (rc)
			break;
		if (tl == 0 && kl == 5) {
			/* a file's chunk lengths */
			rc = mi_cursor_next(c, &k, &kl, &v, &vl);
			continue;
		}
		if (tl == 0 || tl > MI_TOK_MAX || tl + 5 != kl) {
			err = MI_ERR_CORRUPT;
			break;
		}
		if (!curl) {
			memcpy(cur, key, tl);
			curl = tl;
			uc = ud = 0;
		}
		if (vl < MI_POST_HDR) {
			err = MI_ERR_CORRUPT;
			break;
		}
		/* The block's own bounds, made with the new averages, and the
		 * term's. */
		uint8_t hdr[MI_POST_HDR];
		err = sw_block_hdr(t, (const uint8_t *)v + MI_POST_HDR, vl - MI_POST_HDR,
				   bavg, hdr, &uc, &ud);
		if (!err && memcmp(hdr, v, MI_POST_HDR)) {
			mi_buf nv = {0};
			mi_buf_add(&nv, hdr, MI_POST_HDR);
			mi_buf_add(&nv, (const uint8_t *)v + MI_POST_HDR, vl - MI_POST_HDR);
			err = mi_put(t, MI_DB_POST, k, kl, nv.buf, nv.len);
			mi_buf_release(&nv);
			/* The cursor stays on the key: same length, same place. */
		}
		if (err)
			break;
		rc = mi_cursor_next(c, &k, &kl, &v, &vl);
	}
	mi_cursor_close(c);
	return err;
}

/* ---- reading ahead of the writer ----------------------------------------------- */

#define SW_PF_THREADS 8         /* readers ahead of mi_search_finish's writer */
#define SW_PF_MIN 64            /* postings changes from which they start */
#define SW_PF_MAX 4000000       /* ... up to which */
#define SW_PF_STEP 32           /* changes a reader takes at a time */

/*
 * An update rewrites the postings block and the statistics of every term a
 * changed file holds, one after another in key order: with the index out
 * of the page cache (a host that pages out what was not used for a
 * minute), each is a read from the disk the writer waits for (kernel
 * tree, kernel/fork.c: 4,100 of them, 0.45 s).  Readers on threads of
 * their own, each with a read transaction, look the same keys up first,
 * so the pages are read with many in flight; they take the changes from
 * where the writer is (sw_pf_at moves their start up to it), so a
 * reader never reads what the writer has passed.  The writer reads the
 * same pages of the same file, or its own copies of those it changed.
 */
typedef struct sw_pf {
	_Atomic size_t next;       /* the next change no one has taken */
	_Atomic bool stop;
	const sw_state *w;         /* the writer's (sw is per thread) */
	struct sw_pf_reader {
		struct sw_pf *pf;
		mi_txn *t;
		pthread_t th;
	} r[SW_PF_THREADS];
	int n;                     /* readers running */
} sw_pf;

static void *sw_pf_run(void *arg)
{
	struct sw_pf_reader *r = arg;
	sw_pf *pf = r->pf;
	const sw_state *w = pf->w;
	mi_cursor *c = NULL;
	uint8_t key[MI_TOK_MAX + 5];
	const void *k, *v;
	size_t kl, vl;

	if (mi_cursor_open(r->t, MI_DB_POST, &c))
		goto out;
	while (!atomic_load_explicit(&pf->stop, memory_order_relaxed)) {
		size_t i = atomic_fetch_add(&pf->next, SW_PF_STEP);
		size_t end = i + SW_PF_STEP < w->nposts ? i + SW_PF_STEP : w->nposts;
		if (i >= w->nposts)
			break;
		for (; i < end; i++) {
			const sw_post *po = &w->posts[i];
			const sw_ent *e = &w->terms.ents[po->term];
			if (e->len > MI_TOK_MAX)
				continue;
			memcpy(key, sw_key(&w->terms, e), e->len);
			key[e->len] = 0;
			mi_be32(key + e->len + 1, po->fid);
			if (mi_cursor_seek(c, key, e->len + 5, &k, &kl, &v, &vl) == MI_ERR_NOTFOUND)
				mi_cursor_prev(c, &k, &kl, &v, &vl);
			if (i == 0 || w->posts[i - 1].term != po->term)
				mi_get(r->t, MI_DB_TERMS, key, e->len, &v, &vl);
		}
	}
out:
	mi_cursor_close(c);
	mi_txn_abort(r->t);
	return NULL;
}

/* Starts the readers when the changes are many enough to pay for them and
 * the store gives read transactions. */
static void sw_pf_start(sw_pf *pf, mi_txn *t)
{
	pf->n = 0;
	if (sw.nposts < SW_PF_MIN || sw.nposts > SW_PF_MAX)
		return;
	pf->w = &sw;
	atomic_init(&pf->next, 0);
	atomic_init(&pf->stop, false);
	for (int i = 0; i < SW_PF_THREADS; i++) {
		struct sw_pf_reader *r = &pf->r[pf->n];
		r->pf = pf;
		if (mi_txn_begin(mi_txn_store(t), false, &r->t))
			break;
		if (pthread_create(&r->th, NULL, sw_pf_run, r)) {
			mi_txn_abort(r->t);
			break;
		}
		pf->n++;
	}
}

/* The writer is at change i: the readers go on from there, not behind. */
static void sw_pf_at(sw_pf *pf, size_t i)
{
	size_t cur = atomic_load_explicit(&pf->next, memory_order_relaxed);
	while (cur < i && !atomic_compare_exchange_weak_explicit(&pf->next, &cur, i,
								  memory_order_relaxed,
								  memory_order_relaxed))
		;
}

static void sw_pf_stop(sw_pf *pf)
{
	atomic_store(&pf->stop, true);
	for (int i = 0; i < pf->n; i++)
		pthread_join(pf->r[i].th, NULL);
	pf->n = 0;
}

int mi_search_finish(mi_txn *t, size_t *nchunks)
{
	int64_t n = 0, tot[MI_SF__COUNT] = { 0 }, bav;
	float avg[MI_SF__COUNT], bavg[MI_SF__COUNT];
	bool rescan = false, had_index;
	uint32_t *order = NULL;
	sw_pf pf = { .n = 0 };
	int err = 0;

	if ((err = sw_begin(t)))
		goto out;
	had_index = mi_db_count(t, MI_DB_TERMS) > 0;
	if (had_index) {
		int64_t ws = 0;
		mi_meta_get_int(t, "search.chunks", &n);
		for (int f = 0; f < MI_SF__COUNT; f++)
			mi_meta_get_int(t, sw_len_keys[f], &tot[f]);
		/* Bounds made with other weights are recomputed. */
		if (mi_meta_get_int(t, "search.wsig", &ws) || ws != mi_bm25f_sig())
			rescan = true;
	}
	n += sw.dn;
	if (n < 0)
		n = 0;
	for (int f = 0; f < MI_SF__COUNT; f++) {
		tot[f] += sw.dlen[f];
		if (tot[f] < 0)
			tot[f] = 0;
		avg[f] = n ? (float)tot[f] / (float)n : 1;
		if (avg[f] <= 0)
			avg[f] = 1;
		if (!had_index || mi_meta_get_int(t, sw_bavg_keys[f], &bav) || bav <= 0)
			rescan = true;
		else
			bavg[f] = (float)bav / 1000;
		if (!rescan && avg[f] > bavg[f])
			rescan = true;
	}
	if (rescan)
		for (int f = 0; f < MI_SF__COUNT; f++)
			bavg[f] = ceilf(avg[f] * SW_BOUND_SLACK * 1000) / 1000;
	/* A rescan reads every posting; needless when all are new. */
	bool need_scan = rescan && mi_db_count(t, MI_DB_POST) > 0;

	/* Postings in key order. */
	order = mi_xmalloc((sw.terms.n + 1) * sizeof(*order));
	sw_rank = mi_xmalloc((sw.terms.n + 1) * sizeof(*sw_rank));
	for (uint32_t i = 0; i < sw.terms.n; i++)
		order[i] = i;
	qsort(order, sw.terms.n, sizeof(*order), sw_term_cmp);
	for (uint32_t i = 0; i < sw.terms.n; i++) {
		sw_rank[order[i]] = i;
		sw.terms.ents[i].a = 0; /* float bits of ub_code */
		sw.terms.ents[i].b = 0; /* float bits of ub_docs */
	}
	if (sw.nposts)
		qsort(sw.posts, sw.nposts, sizeof(*sw.posts), sw_post_cmp);
	sw_pf_start(&pf, t);
	for (size_t i = 0; i < sw.nposts; i++) {
		sw_post *po = &sw.posts[i];
		sw_ent *e = &sw.terms.ents[po->term];
		float uc, ud, fb[MI_POST_HDR] = { 0 }, fuc, fud;
		uint8_t q[MI_POST_HDR];

		if (pf.n)
			sw_pf_at(&pf, i);

		if (po->len == SW_POST_DEL) {
			const sw_post *nx = i + 1 < sw.nposts ? &sw.posts[i + 1] : NULL;
			if (nx && nx->term == po->term && nx->fid == po->fid &&
			    nx->len != SW_POST_DEL)
				continue; /* replaced by the next */
			if ((err = sw_post_set(t, sw_key(&sw.terms, e), e->len, po->fid, NULL, 0,
					       NULL)))
				goto out;
			continue;
		}
		mi_buf_reset(&sw.scratch);
		if ((err = sw_narrow((const uint8_t *)sw.bytes.buf + po->off, po->len,
				     &sw.scratch, bavg, fb)))
			goto out;
		for (int j = 0; j < MI_POST_HDR; j++)
			q[j] = mi_post_q(fb[j]);
		fuc = fb[0];
		fud = fb[1];
		if ((err = sw_post_set(t, sw_key(&sw.terms, e), e->len, po->fid,
				       (const uint8_t *)sw.scratch.buf, sw.scratch.len, q)))
			goto out;
		memcpy(&uc, &e->a, 4);
		memcpy(&ud, &e->b, 4);
		uc = fuc > uc ? fuc : uc;
		ud = fud > ud ? fud : ud;
		memcpy(&e->a, &uc, 4);
		memcpy(&e->b, &ud, 4);
	}
	sw_pf_stop(&pf);

	/* Term statistics. */
	for (uint32_t i = 0; i < sw.terms.n; i++) {
		sw_ent *e = &sw.terms.ents[order[i]];
		const char *term = sw_key(&sw.terms, e);
		mi_term_stats ts = { 0 };
		const void *v = NULL;
		size_t vl = 0;
		uint8_t enc[MI_TERM_STATS_MAX];
		float uc, ud;
		int64_t df;

		if (mi_get(t, MI_DB_TERMS, term, e->len, &v, &vl))
			v = NULL;
		else if (mi_term_stats_decode(v, vl, &ts))
			memset(&ts, 0, sizeof(ts));
		df = (int64_t)ts.df + e->df;
		if (df <= 0) {
			if ((err = mi_del(t, MI_DB_TERMS, term, e->len)))
				goto out;
			continue;
		}
		memcpy(&uc, &e->a, 4);
		memcpy(&ud, &e->b, 4);
		ts.df = (uint32_t)df;
		if (rescan) {
			ts.ub_code = uc;
			ts.ub_docs = ud;
		} else {
			ts.ub_code = uc > ts.ub_code ? uc : ts.ub_code;
			ts.ub_docs = ud > ts.ub_docs ? ud : ts.ub_docs;
		}
		size_t el = mi_term_stats_encode(&ts, enc);
		if (v && vl == el && !memcmp(v, enc, vl))
			continue; /* as it was: its page stays clean */
		if ((err = mi_put(t, MI_DB_TERMS, term, e->len, enc, el)))
			goto out;
	}
	if (need_scan && (err = sw_rescan_bounds(t, bavg)))
		goto out;

	if ((err = mi_meta_put_int(t, "search.chunks", n)))
		goto out;
	for (int f = 0; f < MI_SF__COUNT; f++) {
		if ((err = mi_meta_put_int(t, sw_len_keys[f], tot[f])) ||
		    (err = mi_meta_put_int(t, sw_bavg_keys[f],
					   (int64_t)lroundf(bavg[f] * 1000))))
			goto out;
	}
	if ((err = mi_meta_put_int(t, "search.format", SW_FORMAT)) ||
	    (err = mi_meta_put_int(t, "search.wsig", mi_bm25f_sig())))
		goto out;
	err = mi_del(t, MI_DB_META, "search.pending", strlen("search.pending"));
	if (nchunks)
		*nchunks = (size_t)n;
out:
	sw_pf_stop(&pf);
	free(order);
	free(sw_rank);
	sw_rank = NULL;
	sw_reset();
	return err;
}

struct mi_search_fresh {
	mi_search_out out;         /* where stored entries go, in key order */
	void *ctx;
	float bavg[MI_SF__COUNT];  /* the bounds' average lengths */
	mi_search_totals tot;      /* chunk count and field length totals */
	char term[MI_TOK_MAX + 1]; /* the term being written */
	size_t tl;                 /* its length, 0 before the first */
	uint64_t df;               /* its chunk count so far */
	float uc, ud;              /* its score bounds so far */
	float bb[MI_POST_HDR];     /* the bounds of the block being filled */
	mi_buf blk;                /* its postings block being filled */
	mi_buf val;                /* the block with its header */
	mi_buf nar;                /* a file's entries in their stored form */
	uint32_t last;             /* file id of the block's last file */
	uint32_t lg;               /* group of chunk lengths being filled, UINT32_MAX none */
	const void *lv[MI_LENS_GROUP]; /* its files' (into lbuf, as offsets until written) */
	size_t lo[MI_LENS_GROUP], ll[MI_LENS_GROUP];
	mi_buf lbuf;
};

/* Writes the group of chunk lengths being filled. */
static int fresh_lens(mi_search_fresh *f)
{
	uint8_t k[5];
	mi_buf v = { 0 };
	int err;

	if (f->lg == UINT32_MAX)
		return 0;
	for (size_t i = 0; i < MI_LENS_GROUP; i++)
		f->lv[i] = f->lbuf.buf + f->lo[i];
	sw_lens_group(&v, f->lv, f->ll);
	k[0] = 0;
	mi_be32(k + 1, f->lg);
	err = f->out(f->ctx, MI_DB_POST, k, 5, v.buf, v.len);
	mi_buf_release(&v);
	mi_buf_reset(&f->lbuf);
	memset(f->ll, 0, sizeof(f->ll));
	memset(f->lo, 0, sizeof(f->lo));
	f->lg = UINT32_MAX;
	return err;
}

/* Takes one file's chunk lengths (key \0 be32(fid), in file order). */
static int fresh_lens_put(mi_search_fresh *f, const void *key, const void *val, size_t vl)
{
	uint32_t fid = mi_rd32((const uint8_t *)key + 1);
	int err;

	if (f->tl)
		return MI_ERR_CORRUPT; /* they come before every term */
	if (f->lg != fid / MI_LENS_GROUP && (err = fresh_lens(f)))
		return err;
	f->lg = fid / MI_LENS_GROUP;
	f->lo[fid % MI_LENS_GROUP] = f->lbuf.len;
	f->ll[fid % MI_LENS_GROUP] = vl;
	mi_buf_add(&f->lbuf, val, vl);
	return 0;
}

mi_search_fresh *mi_search_fresh_new(const mi_search_totals *tot, mi_search_out out,
				     void *ctx)
{
	mi_search_fresh *f = mi_xcalloc(1, sizeof(*f));
	f->out = out;
	f->ctx = ctx;
	f->tot = *tot;
	f->lg = UINT32_MAX;
	for (int i = 0; i < MI_SF__COUNT; i++) {
		float avg = tot->nchunks ? (float)tot->len[i] / (float)tot->nchunks : 1;
		if (avg <= 0)
			avg = 1;
		f->bavg[i] = ceilf(avg * SW_BOUND_SLACK * 1000) / 1000;
	}
	return f;
}

/* Writes the postings block being filled. */
static int fresh_block(mi_search_fresh *f)
{
	uint8_t key[MI_TOK_MAX + 5];
	int err;
	if (!f->blk.len)
		return 0;
	memcpy(key, f->term, f->tl);
	key[f->tl] = 0;
	mi_be32(key + f->tl + 1, f->last);
	mi_buf_reset(&f->val);
	for (int i = 0; i < MI_POST_HDR; i++)
		mi_buf_addc(&f->val, (char)mi_post_q(f->bb[i]));
	mi_buf_add(&f->val, f->blk.buf, f->blk.len);
	err = f->out(f->ctx, MI_DB_POST, key, f->tl + 5, f->val.buf, f->val.len);
	mi_buf_reset(&f->blk);
	memset(f->bb, 0, sizeof(f->bb));
	return err;
}

/* Writes the statistics of the term just finished. */
static int fresh_flush(mi_search_fresh *f)
{
	mi_term_stats ts = { .df = (uint32_t)f->df, .ub_code = f->uc, .ub_docs = f->ud };
	uint8_t enc[MI_TERM_STATS_MAX];
	int err;
	if (!f->tl)
		return 0;
	if ((err = fresh_block(f)))
		return err;
	size_t el = mi_term_stats_encode(&ts, enc);
	return f->out(f->ctx, MI_DB_TERMS, f->term, f->tl, enc, el);
}

int mi_search_fresh_put(mi_search_fresh *f, const void *key, size_t kl,
			const void *val, size_t vl)
{
	const uint8_t *p = val, *e = p + vl;
	size_t tl = strnlen(key, kl);
	uint64_t cnt;
	int err;

	if (tl == 0 && kl == 5) /* a file's chunk lengths: before every term */
		return fresh_lens_put(f, key, val, vl);
	if (tl == 0 || tl > MI_TOK_MAX || tl + 5 != kl || !mi_varint_get(&p, e, &cnt))
		return MI_ERR_CORRUPT;
	if (!f->tl && (err = fresh_lens(f)))
		return err;
	if (tl != f->tl || memcmp(key, f->term, tl)) {
		if ((err = fresh_flush(f)))
			return err;
		memcpy(f->term, key, tl);
		f->tl = tl;
		f->df = 0;
		f->uc = f->ud = 0;
	}
	uint32_t fid = mi_rd32((const uint8_t *)key + tl + 1);
	if (f->blk.len && fid <= f->last)
		return MI_ERR_CORRUPT;
	mi_buf_reset(&f->nar);
	if ((err = sw_narrow(p, (size_t)(e - p), &f->nar, f->bavg, f->bb)))
		return err;
	mi_post_add(&f->blk, f->last, fid, f->nar.buf, f->nar.len);
	f->last = fid;
	f->uc = f->bb[0] > f->uc ? f->bb[0] : f->uc;
	f->ud = f->bb[1] > f->ud ? f->bb[1] : f->ud;
	if (f->blk.len >= MI_POST_BLOCK && (err = fresh_block(f)))
		return err;
	f->df += cnt;
	return 0;
}

int mi_search_fresh_end(mi_search_fresh *f)
{
	int err = fresh_lens(f);
	if (!err)
		err = fresh_flush(f);
	f->tl = 0;
	return err;
}

int mi_search_fresh_finish(mi_search_fresh *f, mi_txn *t, size_t *nchunks)
{
	int err;
	if ((err = mi_search_fresh_end(f)) ||
	    (err = mi_meta_put_int(t, "search.chunks", f->tot.nchunks)))
		return err;
	for (int i = 0; i < MI_SF__COUNT; i++)
		if ((err = mi_meta_put_int(t, sw_len_keys[i], f->tot.len[i])) ||
		    (err = mi_meta_put_int(t, sw_bavg_keys[i],
					   (int64_t)lroundf(f->bavg[i] * 1000))))
			return err;
	if ((err = mi_meta_put_int(t, "search.format", SW_FORMAT)) ||
	    (err = mi_meta_put_int(t, "search.wsig", mi_bm25f_sig())))
		return err;
	if (nchunks)
		*nchunks = (size_t)f->tot.nchunks;
	return 0;
}

void mi_search_fresh_free(mi_search_fresh *f)
{
	if (f) {
		mi_buf_release(&f->blk);
		mi_buf_release(&f->val);
		mi_buf_release(&f->nar);
		mi_buf_release(&f->lbuf);
	}
	free(f);
}
