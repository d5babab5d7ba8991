/*
 * sorter.c - an external merge sort of key/value records in bounded memory,
 * so a fresh build can write the databases whose keys do not follow the
 * file order (names, references, postings) with MDB_APPEND at the end.
 *
 * Each lane belongs to one thread and needs no lock: records are appended
 * to the lane's buffer; when it passes the lane's budget it is sorted and
 * written to a run file.  mi_sorter_finish sorts what is left in memory
 * and opens a k-way merge over every run of every lane and the in-memory
 * rests.  Keys compare like LMDB's default (memcmp, then the shorter
 * first).
 */
#include "indexer_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SORT_READBUF (1u << 20) /* buffered reading of one run */
#define SORT_AHEAD 16           /* records prefetched ahead in a lane's rest */

/* One record in a lane's buffer: its first 8 key bytes big-endian (zero
 * padded) to sort most records without touching the buffer. */
typedef struct srt_ent {
	uint64_t prefix;   /* first 8 key bytes, big-endian */
	uint64_t off;      /* record offset in the lane's buffer */
} srt_ent;

typedef struct srt_lane {
	mi_buf data;       /* records: varint klen, varint vlen, key, value */
	srt_ent *ents;     /* one per record */
	size_t n, cap;
	size_t spills;     /* runs written */
	uint64_t *runn;    /* records of each run */
} srt_lane;

/* A source of the merge: a run file being read, or a lane's sorted rest. */
typedef struct srt_src {
	FILE *f;           /* the run, or NULL for a lane in memory */
	srt_lane *lane;    /* the lane in memory */
	size_t at;         /* next entry of lane */
	uint64_t left;     /* records of the run not read yet */
	mi_buf rec;        /* the current record's key and value (runs) */
	const uint8_t *k, *v;
	size_t kl, vl;
} srt_src;

struct mi_sorter {
	char *dir;         /* where run files go */
	char *name;        /* their name prefix */
	size_t budget;     /* bytes per lane before a spill */
	int nlanes;
	srt_lane *lanes;
	srt_src *srcs;     /* the merge: sources */
	int nsrcs;
	int *heap;         /* indexes of srcs, smallest key first */
	int nheap;
	int err;           /* first I/O error */
	uint64_t records;  /* added in all */
};

mi_sorter *mi_sorter_new(const char *dir, const char *name, int lanes, size_t budget)
{
	mi_sorter *s = mi_xcalloc(1, sizeof(*s));
	s->dir = mi_xstrdup(dir);
	s->name = mi_xstrdup(name);
	s->budget = budget < (1u << 20) ? (1u << 20) : budget;
	s->nlanes = lanes < 1 ? 1 : lanes;
	s->lanes = mi_xcalloc((size_t)s->nlanes, sizeof(*s->lanes));
	return s;
}

static int key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	return c ? c : (al > bl) - (al < bl);
}

/* Reads a record's key and value at p (a lane buffer). */
static const uint8_t *rec_at(const uint8_t *p, size_t *kl, const uint8_t **v, size_t *vl)
{
	uint64_t a, b;
	const uint8_t *end = p + 20;
	mi_varint_get(&p, end, &a);
	mi_varint_get(&p, end, &b);
	*kl = (size_t)a;
	*vl = (size_t)b;
	*v = p + a;
	return p;
}

static uint64_t key_prefix(const uint8_t *k, size_t kl)
{
	uint64_t x = 0;
	for (size_t i = 0; i < 8; i++)
		x = x << 8 | (i < kl ? k[i] : 0);
	return x;
}

void mi_sorter_add(mi_sorter *s, int lane, const void *k, size_t kl, const void *v, size_t vl)
{
	srt_lane *l = &s->lanes[lane];
	uint8_t hdr[20];
	size_t h = mi_varint_put(hdr, kl);
	h += mi_varint_put(hdr + h, vl);
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 4096;
		l->ents = mi_xrealloc(l->ents, l->cap * sizeof(*l->ents));
	}
	l->ents[l->n].prefix = key_prefix(k, kl);
	l->ents[l->n++].off = l->data.len;
	mi_buf_add(&l->data, hdr, h);
	mi_buf_add(&l->data, k, kl);
	mi_buf_add(&l->data, v, vl);
	if (l->data.len + l->n * sizeof(*l->ents) > s->budget)
		mi_sorter_spill(s, lane);
}

/* The buffer qsort compares into (one lane sorts at a time per thread). */
static __thread const uint8_t *cmp_base;

static int ent_cmp(const void *a, const void *b)
{
	const srt_ent *x = a, *y = b;
	if (x->prefix != y->prefix)
		return x->prefix < y->prefix ? -1 : 1;
	size_t xl, yl, xv, yv;
	const uint8_t *xvp, *yvp;
	const uint8_t *xk = rec_at(cmp_base + x->off, &xl, &xvp, &xv);
	const uint8_t *yk = rec_at(cmp_base + y->off, &yl, &yvp, &yv);
	return key_cmp(xk, xl, yk, yl);
}

/* Sorts a lane's entries: a radix sort on the 8-byte prefix (four 16-bit
 * passes), then each run of equal prefixes by the whole key. */
static void lane_sort(srt_lane *l)
{
	size_t n = l->n;
	if (n < 2)
		return;
	srt_ent *tmp = mi_xmalloc(n * sizeof(*tmp)), *a = l->ents, *b = tmp;
	size_t *count = mi_xmalloc(65536 * sizeof(*count));
	for (int pass = 0; pass < 4; pass++) {
		int shift = 16 * pass;
		memset(count, 0, 65536 * sizeof(*count));
		for (size_t i = 0; i < n; i++)
			count[(a[i].prefix >> shift) & 0xffff]++;
		size_t sum = 0;
		for (size_t d = 0; d < 65536; d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			b[count[(a[i].prefix >> shift) & 0xffff]++] = a[i];
		srt_ent *t = a;
		a = b;
		b = t;
	}
	/* Four passes: the result is back in l->ents. */
	free(tmp);
	free(count);
	/* A run of equal prefixes is most often in order already (a term's
	 * postings come in file order): checked in one pass, sorted if not. */
	cmp_base = (const uint8_t *)l->data.buf;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		bool sorted = true;
		while (j < n && l->ents[j].prefix == l->ents[i].prefix) {
			if (sorted && ent_cmp(&l->ents[j - 1], &l->ents[j]) > 0)
				sorted = false;
			j++;
		}
		if (!sorted)
			qsort(l->ents + i, j - i, sizeof(*l->ents), ent_cmp);
		i = j;
	}
}

void mi_sorter_spill(mi_sorter *s, int lane)
{
	srt_lane *l = &s->lanes[lane];
	mi_buf path = {0};
	if (!l->n)
		return;
	lane_sort(l);
	mi_buf_addf(&path, "%s/%s.%d.%zu", s->dir, s->name, lane, l->spills);
	FILE *f = fopen(path.buf, "wb");
	if (!f) {
		if (!s->err)
			s->err = errno;
	} else {
		setvbuf(f, NULL, _IOFBF, SORT_READBUF);
		for (size_t i = 0; i < l->n; i++) {
			const uint8_t *p = (const uint8_t *)l->data.buf + l->ents[i].off, *v;
			size_t kl, vl;
			const uint8_t *k = rec_at(p, &kl, &v, &vl);
			size_t total = (size_t)(v + vl - p);
			if (fwrite(p, 1, total, f) != total && !s->err)
				s->err = errno ? errno : EIO;
			(void)k;
		}
		if (fclose(f) && !s->err)
			s->err = errno;
		l->runn = mi_xrealloc(l->runn, (l->spills + 1) * sizeof(*l->runn));
		l->runn[l->spills++] = l->n;
	}
	s->records += l->n;
	l->n = 0;
	mi_buf_reset(&l->data);
	mi_buf_release(&path);
}

/* Reads the next record of a run into src; false at its end (a run
 * shorter or longer than it was written is an I/O error). */
static bool run_next(mi_sorter *s, srt_src *src)
{
	uint64_t kl = 0, vl = 0;
	int c;
	if (!src->left) {
		if (getc_unlocked(src->f) != EOF)
			s->err = s->err ? s->err : EIO;
		return false;
	}
	src->left--;
	for (int field = 0; field < 2; field++) {
		uint64_t x = 0;
		int shift = 0;
		do {
			if ((c = getc_unlocked(src->f)) == EOF) {
				s->err = s->err ? s->err : EIO; /* cut short */
				return false;
			}
			x |= (uint64_t)(c & 0x7f) << shift;
			shift += 7;
		} while ((c & 0x80) && shift < 64);
		if (field)
			vl = x;
		else
			kl = x;
	}
	mi_buf_reset(&src->rec);
	mi_buf_grow(&src->rec, kl + vl);
	if (fread_unlocked(src->rec.buf, 1, kl + vl, src->f) != kl + vl) {
		s->err = s->err ? s->err : EIO;
		return false;
	}
	src->k = (const uint8_t *)src->rec.buf;
	src->kl = kl;
	src->v = src->k + kl;
	src->vl = vl;
	return true;
}

/* Moves src to its next record; false at its end. */
static bool src_next(mi_sorter *s, srt_src *src)
{
	if (src->f)
		return run_next(s, src);
	if (src->at >= src->lane->n)
		return false;
	/* Sorted entries point all over the lane's buffer: ask for the
	 * records a few steps ahead so they are in cache when merged. */
	if (src->at + SORT_AHEAD < src->lane->n)
		__builtin_prefetch(src->lane->data.buf + src->lane->ents[src->at + SORT_AHEAD].off);
	const uint8_t *p = (const uint8_t *)src->lane->data.buf + src->lane->ents[src->at++].off;
	src->k = rec_at(p, &src->kl, &src->v, &src->vl);
	return true;
}

static bool src_less(const mi_sorter *s, int a, int b)
{
	const srt_src *x = &s->srcs[a], *y = &s->srcs[b];
	int c = key_cmp(x->k, x->kl, y->k, y->kl);
	return c < 0 || (c == 0 && a < b);
}

static void heap_down(mi_sorter *s, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < s->nheap && src_less(s, s->heap[l], s->heap[m]))
			m = l;
		if (r < s->nheap && src_less(s, s->heap[r], s->heap[m]))
			m = r;
		if (m == i)
			return;
		int t = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = t;
		i = m;
	}
}

int mi_sorter_finish(mi_sorter *s)
{
	size_t nruns = 0;
	for (int i = 0; i < s->nlanes; i++)
		nruns += s->lanes[i].spills + 1;
	s->srcs = mi_xcalloc(nruns, sizeof(*s->srcs));
	s->heap = mi_xcalloc(nruns, sizeof(*s->heap));
	for (int i = 0; i < s->nlanes; i++) {
		srt_lane *l = &s->lanes[i];
		s->records += l->n;
		lane_sort(l);
		for (size_t r = 0; r < l->spills; r++) {
			mi_buf path = {0};
			mi_buf_addf(&path, "%s/%s.%d.%zu", s->dir, s->name, i, r);
			srt_src *src = &s->srcs[s->nsrcs];
			src->f = fopen(path.buf, "rb");
			if (!src->f) {
				s->err = s->err ? s->err : errno;
			} else {
				setvbuf(src->f, NULL, _IOFBF, SORT_READBUF);
				src->left = l->runn[r];
				unlink(path.buf); /* gone once closed */
				s->nsrcs++;
			}
			mi_buf_release(&path);
		}
		s->srcs[s->nsrcs].lane = l;
		s->nsrcs++;
	}
	for (int i = 0; i < s->nsrcs; i++)
		if (src_next(s, &s->srcs[i]))
			s->heap[s->nheap++] = i;
	for (int i = s->nheap / 2 - 1; i >= 0; i--)
		heap_down(s, i);
	return s->err;
}

int mi_sorter_next(mi_sorter *s, const void **k, size_t *kl, const void **v, size_t *vl)
{
	static const uint8_t none;
	if (s->err)
		return s->err;
	if (!s->nheap)
		return MI_ERR_NOTFOUND;
	srt_src *src = &s->srcs[s->heap[0]];
	*k = src->kl ? src->k : &none;
	*kl = src->kl;
	*v = src->vl ? src->v : &none;
	*vl = src->vl;
	return 0;
}

int mi_sorter_pop(mi_sorter *s)
{
	srt_src *src = &s->srcs[s->heap[0]];
	if (!src_next(s, src))
		s->heap[0] = s->heap[--s->nheap];
	if (s->nheap)
		heap_down(s, 0);
	return s->err;
}

uint64_t mi_sorter_count(const mi_sorter *s)
{
	return s->records;
}

void mi_sorter_free(mi_sorter *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nsrcs; i++) {
		if (s->srcs[i].f)
			fclose(s->srcs[i].f);
		mi_buf_release(&s->srcs[i].rec);
	}
	for (int i = 0; i < s->nlanes; i++) {
		srt_lane *l = &s->lanes[i];
		/* Runs not merged (an error before finish) are removed. */
		if (!s->srcs) {
			for (size_t r = 0; r < l->spills; r++) {
				mi_buf path = {0};
				mi_buf_addf(&path, "%s/%s.%d.%zu", s->dir, s->name, i, r);
				unlink(path.buf);
				mi_buf_release(&path);
			}
		}
		mi_buf_release(&l->data);
		free(l->ents);
		free(l->runn);
	}
	free(s->lanes);
	free(s->srcs);
	free(s->heap);
	free(s->dir);
	free(s->name);
	free(s);
}
