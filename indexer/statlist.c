/*
 * statlist.c - the index's stat list: every file record's path, mtime and
 * size in one meta value ("files.stat"), in the order a walk finds the
 * files.  An update compares its walk with it in one pass, as git compares
 * a work tree with its index, instead of reading all of the file records
 * (74,000 on the kernel: a tenth of a second of CPU and 2,500 page faults,
 * beside the walk on the same two cores); it reads the records of the few
 * files that changed or went away only.
 *
 * Value: "MIS1", be32 count, then per file be16 path length, the path,
 * be64 mtime (ns), be64 size.  Written in the transaction that writes the
 * records, by both builds; trusted only when its count is the records'.
 */
#include "walk.h"

#include <stdlib.h>
#include <string.h>

#define SL_MAGIC "MIS1"
#define SL_HEAD 8

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

void mi_stat_list_add(mi_buf *b, const char *path, int64_t mtime, uint64_t size)
{
	size_t pl = strlen(path);
	uint8_t h[8];
	if (!b->len)
		mi_buf_add(b, SL_MAGIC "\0\0\0\0", SL_HEAD);
	if (pl > 0xffff)
		pl = 0xffff; /* never: the walk keeps paths under 512 bytes */
	h[0] = (uint8_t)(pl >> 8);
	h[1] = (uint8_t)pl;
	mi_buf_add(b, h, 2);
	mi_buf_add(b, path, pl);
	be64(h, (uint64_t)mtime);
	mi_buf_add(b, h, 8);
	be64(h, size);
	mi_buf_add(b, h, 8);
}

int mi_stat_list_put(mi_txn *t, mi_buf *b, uint32_t n)
{
	if (!b->len)
		mi_buf_add(b, SL_MAGIC "\0\0\0\0", SL_HEAD);
	mi_be32((uint8_t *)b->buf + 4, n);
	return mi_put(t, MI_DB_META, MI_STAT_LIST_KEY, strlen(MI_STAT_LIST_KEY), b->buf, b->len);
}

bool mi_stat_list_open(mi_txn *t, mi_stat_list *sl)
{
	const void *v;
	size_t vl;
	memset(sl, 0, sizeof(*sl));
	if (mi_get(t, MI_DB_META, MI_STAT_LIST_KEY, strlen(MI_STAT_LIST_KEY), &v, &vl) ||
	    vl < SL_HEAD || memcmp(v, SL_MAGIC, 4))
		return false;
	sl->n = mi_rd32((const uint8_t *)v + 4);
	if (sl->n != mi_db_count(t, MI_DB_FILES))
		return false;
	sl->p = (const uint8_t *)v + SL_HEAD;
	sl->e = (const uint8_t *)v + vl;
	return true;
}

bool mi_stat_list_next(mi_stat_list *sl, mi_stat_entry *e)
{
	if (sl->e - sl->p < 2)
		return false;
	size_t pl = (size_t)sl->p[0] << 8 | sl->p[1];
	if ((size_t)(sl->e - sl->p) < 2 + pl + 16) {
		sl->bad = true;
		return false;
	}
	e->path = (const char *)sl->p + 2;
	e->pl = pl;
	e->mtime = (int64_t)rd64(sl->p + 2 + pl);
	e->size = rd64(sl->p + 2 + pl + 8);
	sl->p += 2 + pl + 16;
	return true;
}
