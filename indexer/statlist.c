/*
 * statlist.c - the index's stat list: every file record's path, mtime and
 * size, in the order a walk finds the files.  An update compares its walk
 * with it in one pass, as git compares a work tree with its index, instead
 * of reading all of the file records (74,000 on the kernel: a tenth of a
 * second of CPU and 2,500 page faults, beside the walk on the same two
 * cores); it reads the records of the few files that changed or went away.
 *
 * In meta: "files.stat" holds "MIS2", be32 count, be32 pieces; the entries
 * follow in pieces of SL_PIECE, "files.stat" be32(i) each, an entry being
 * be16 path length, the path, be64 mtime (ns), be64 size.  An update
 * rewrites the pieces whose bytes changed only (the list of the kernel is
 * 3.8 MiB; one edited file changes one piece of 110 KiB).  Written in the
 * transaction that writes the records, by both builds; trusted only when
 * its count is the records'.
 */
#include "walk.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SL_MAGIC "MIS2"
#define SL_HEAD 12
#define SL_PIECE 2048           /* entries in a piece */
#define SL_KEY_MAX 32

static void be64(uint8_t *p, uint64_t v)
{
	mi_be32(p, (uint32_t)(v >> 32));
	mi_be32(p + 4, (uint32_t)v);
}

static uint64_t rd64(const uint8_t *p)
{
	return (uint64_t)mi_rd32(p) << 32 | mi_rd32(p + 4);
}

/* A path byte as the walk orders paths: component by component, each by
 * strcmp (a folder's files sit where its name sorts among its siblings). */
static int order_byte(unsigned char c)
{
	return c == '/' ? 0 : c ? c : -1;
}

int mi_walk_order(const char *a, size_t al, const char *b, size_t bl)
{
	size_t n = al < bl ? al : bl;
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return order_byte((unsigned char)a[i]) - order_byte((unsigned char)b[i]);
	return al < bl ? -1 : al > bl;
}

/* Piece i's key into k; its length. */
static size_t piece_key(uint8_t *k, uint32_t i)
{
	size_t n = strlen(MI_STAT_LIST_KEY);
	memcpy(k, MI_STAT_LIST_KEY, n);
	mi_be32(k + n, i);
	return n + 4;
}

/* The piece in w->piece as piece w->i: written unless stored already. */
static void flush_piece(mi_stat_writer *w)
{
	uint8_t k[SL_KEY_MAX];
	const void *v;
	size_t vl, kl = piece_key(k, w->i);
	if (w->i >= w->old || mi_get(w->t, MI_DB_META, k, kl, &v, &vl) || vl != w->piece.len ||
	    memcmp(v, w->piece.buf, vl))
		if (!w->rc)
			w->rc = mi_put(w->t, MI_DB_META, k, kl, w->piece.buf, w->piece.len);
	mi_buf_reset(&w->piece);
	w->inpiece = 0;
	w->i++;
}

void mi_stat_writer_begin(mi_stat_writer *w, mi_txn *t)
{
	const void *v;
	size_t vl;
	memset(w, 0, sizeof(*w));
	w->t = t;
	if (!mi_get(t, MI_DB_META, MI_STAT_LIST_KEY, strlen(MI_STAT_LIST_KEY), &v, &vl) &&
	    vl >= SL_HEAD && !memcmp(v, SL_MAGIC, 4))
		w->old = mi_rd32((const uint8_t *)v + 8);
}

void mi_stat_writer_add(mi_stat_writer *w, const char *path, int64_t mtime, uint64_t size)
{
	size_t pl = strlen(path);
	uint8_t h[8];
	if (pl > 0xffff)
		pl = 0xffff; /* never: the walk keeps paths under 512 bytes */
	h[0] = (uint8_t)(pl >> 8);
	h[1] = (uint8_t)pl;
	mi_buf_add(&w->piece, h, 2);
	mi_buf_add(&w->piece, path, pl);
	be64(h, (uint64_t)mtime);
	mi_buf_add(&w->piece, h, 8);
	be64(h, size);
	mi_buf_add(&w->piece, h, 8);
	w->n++;
	if (++w->inpiece == SL_PIECE)
		flush_piece(w);
}

int mi_stat_writer_end(mi_stat_writer *w)
{
	uint8_t k[SL_KEY_MAX], head[SL_HEAD];
	if (w->inpiece)
		flush_piece(w);
	for (uint32_t j = w->i; j < w->old && !w->rc; j++)
		w->rc = mi_del(w->t, MI_DB_META, k, piece_key(k, j));
	memcpy(head, SL_MAGIC, 4);
	mi_be32(head + 4, w->n);
	mi_be32(head + 8, w->i);
	if (!w->rc)
		w->rc = mi_put(w->t, MI_DB_META, MI_STAT_LIST_KEY, strlen(MI_STAT_LIST_KEY), head,
			       SL_HEAD);
	mi_buf_release(&w->piece);
	return w->rc;
}

/* The bytes of the entry at p, or 0 past e. */
static size_t entry_len(const uint8_t *p, const uint8_t *e)
{
	if (e - p < 2)
		return 0;
	size_t n = 2 + ((size_t)p[0] << 8 | p[1]) + 16;
	return (size_t)(e - p) < n ? 0 : n;
}

/* Piece sl->piece into sl->p..e, its pages mapped in one call (the map is
 * read at random: a page a fault otherwise). */
static bool load_piece(mi_stat_list *sl)
{
	uint8_t k[SL_KEY_MAX];
	const void *v;
	size_t vl;
	if (mi_get(sl->t, MI_DB_META, k, piece_key(k, sl->piece), &v, &vl))
		return false;
	sl->p = v;
	sl->e = sl->p + vl;
#ifdef MADV_POPULATE_READ
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)v & ~(pg - 1);
	if (vl >= 4 * pg)
		madvise((void *)a, (uintptr_t)sl->e - a, MADV_POPULATE_READ);
#endif
	return true;
}

bool mi_stat_list_open(mi_txn *t, mi_stat_list *sl)
{
	const void *v;
	size_t vl;
	memset(sl, 0, sizeof(*sl));
	if (mi_get(t, MI_DB_META, MI_STAT_LIST_KEY, strlen(MI_STAT_LIST_KEY), &v, &vl) ||
	    vl != SL_HEAD || memcmp(v, SL_MAGIC, 4))
		return false;
	sl->t = t;
	sl->n = mi_rd32((const uint8_t *)v + 4);
	sl->npieces = mi_rd32((const uint8_t *)v + 8);
	if (sl->n != mi_db_count(t, MI_DB_FILES))
		return false;
	return !sl->npieces || load_piece(sl);
}

bool mi_stat_list_next(mi_stat_list *sl, mi_stat_entry *e)
{
	while (sl->p == sl->e) {
		if (++sl->piece >= sl->npieces)
			return false;
		if (!load_piece(sl)) {
			sl->bad = true;
			return false;
		}
	}
	size_t n = entry_len(sl->p, sl->e);
	if (!n) {
		sl->bad = true;
		return false;
	}
	e->pl = n - 18;
	e->path = (const char *)sl->p + 2;
	e->mtime = (int64_t)rd64(sl->p + 2 + e->pl);
	e->size = rd64(sl->p + 2 + e->pl + 8);
	sl->p += n;
	return true;
}
