/*
 * build_fresh.c - a fresh build (a first build, --force, a rebuild of an
 * older format) in bounded memory: the worker threads read, hash, parse,
 * render, encode and tokenize each file whole; the writer appends the
 * records of each file in path order (MDB_APPEND: keys that follow the file
 * order) in transactions of bounded size; names, references and postings,
 * whose keys do not follow it, go through external sorters and are appended
 * at the end.  Everything lands in the MI_STORE_FRESH store the caller
 * publishes.
 */
#include "walk.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FR_WINDOW 512                 /* files a worker may run ahead */
#define FR_PENDING (96u << 20)        /* bytes of records waiting for the writer */
#define FR_TXN_BYTES (64u << 20)      /* records per write transaction */
#define FR_SORT_BUDGET (48u << 20)    /* per sorter lane before a run is written */
#define FR_MAX_LANES 64
#define FR_SAMPLE_FILES 256           /* files the dictionaries are trained on */
#define FR_SAMPLE_SRC (8u << 20)      /* bytes of sources among them, at most */
#define FR_BATCH_FILES 128            /* files a worker packs together, at most */
#define FR_BATCH_BYTES (2u << 20)     /* and their records' bytes */
#define FR_POST_SPLIT 'c'             /* terms from this byte on: the second postings sorter */

struct fr_pool;

/* One file of the build.  Its records: u8 db, varint key length, key,
 * varint value length, value (as stored). */
typedef struct fr_job {
	struct fr_pool *p;     /* its pool */
	mi_walk_file *wf;      /* walk entry */
	uint32_t fid;          /* file id: its place in path order */
	int state;             /* FR_*: set under the pool's lock only, with its
				* records counted in pending (the writer reads it) */
	int outcome;           /* FR_READY or FR_SKIPPED, as fr_file found it */
	int skip;              /* MI_SKIP_* when state is FR_SKIPPED */
	int perr;              /* parse error, 0 if fine */
	uint64_t len;          /* bytes read: its record's size */
	uint32_t nsyms, nrefs, ndiags; /* counts for the statistics */
	mi_buf recs;           /* its records for the writer */
} fr_job;

enum { FR_PENDING_STATE, FR_READY, FR_SKIPPED };

typedef struct fr_pool {
	const mi_build_opts *o;
	mi_store *st;          /* the fresh store (packs values) */
	bool sample;           /* the dictionary pass: plain values, no sorters */
	const char *root;
	int rootfd;                /* root opened for mi_read_file_beneath, or -1 */
	uint64_t max_size;
	fr_job *jobs;
	size_t n;
	size_t next;           /* next job to take */
	size_t written;        /* jobs the writer is done with */
	size_t pending;        /* bytes of records of ready jobs not written */
	size_t done;           /* jobs finished, for progress */
	pthread_mutex_t mu;    /* guards the four counters above and job states */
	pthread_cond_t ready;  /* a job became ready */
	pthread_cond_t room;   /* the writer made room */
	mi_sorter *names, *refs;
	mi_sorter *post[2];    /* postings: terms below FR_POST_SPLIT, the rest */
	mi_search_totals tot[FR_MAX_LANES]; /* per lane */
	double parse_end;      /* when the last worker ran out of work */
} fr_pool;

typedef struct fr_lane {
	fr_pool *p;
	int lane;
} fr_lane;

/* Appends one record for the writer, its value as it is: the worker packs
 * a batch of files' values together (fr_publish) before the writer sees
 * them. */
static void rec_add(fr_job *j, int db, const void *k, size_t kl, const void *v, size_t vl)
{
	uint8_t hdr[21];
	size_t h = 0;
	mi_buf *b = &j->recs;
	hdr[h++] = (uint8_t)db;
	h += mi_varint_put(hdr + h, kl);
	mi_buf_add(b, hdr, h);
	mi_buf_add(b, k, kl);
	h = mi_varint_put(hdr, vl);
	mi_buf_add(b, hdr, h);
	mi_buf_add(b, v, vl);
}

static int fr_put_chunk(void *ctx, const uint8_t *key8, const void *val, size_t vlen)
{
	rec_add(ctx, MI_DB_CHUNKS, key8, 8, val, vlen);
	return 0;
}

static int fr_rec_syms(void *ctx, const void *k, size_t kl, const void *v, size_t vl)
{
	rec_add(ctx, MI_DB_SYMS, k, kl, v, vl);
	return 0;
}

/* A sorter lane, for the entries mi_byname_put_* give. */
typedef struct fr_sort_to {
	mi_sorter *s;
	int lane;
} fr_sort_to;

static int fr_sort_add(void *ctx, const void *k, size_t kl, const void *v, size_t vl)
{
	const fr_sort_to *to = ctx;
	mi_sorter_add(to->s, to->lane, k, kl, v, vl);
	return 0;
}

/* A posting (or a file's chunk lengths, key \0...) to its sorter. */
static void fr_post_add(void *ctx, const void *k, size_t kl, const void *v, size_t vl)
{
	const fr_lane *l = ctx;
	mi_sorter *s = l->p->post[*(const uint8_t *)k >= FR_POST_SPLIT];
	mi_sorter_add(s, l->lane, k, kl, v, vl);
}

static bool fr_binary(const char *s, size_t n)
{
	return memchr(s, 0, n < 8192 ? n : 8192) != NULL;
}

/* Everything one file puts in the index, into j->recs and the sorters. */
static void fr_file(fr_pool *p, int lane, fr_job *j)
{
	const char *path = j->wf->path;
	size_t pl = strlen(path);
	char *src = NULL;
	size_t len = 0;
	mi_parsed parsed;
	mi_out outline = {0};
	mi_outline_rec orec = {0};
	mi_buf k = {0}, v = {0};
	uint8_t b4[4];

	/* no more than the cap (the file may have grown since the walk) */
	int rr = mi_read_file_beneath(p->root, p->rootfd, path, p->max_size, &src, &len);
	if (rr == MI_ERR_TOOBIG) {
		src = NULL;
		len = p->max_size + 1;
	} else if (rr) {
		j->outcome = FR_SKIPPED;
		j->skip = MI_SKIP_UNREADABLE;
		return;
	}
	if (len > p->max_size || fr_binary(src, len)) {
		j->outcome = FR_SKIPPED;
		j->skip = len > p->max_size ? MI_SKIP_TOOBIG : MI_SKIP_BINARY;
		free(src);
		return;
	}
	mi_parsed_init(&parsed);
	j->perr = mi_parse_detected(j->wf->lang, src, len, &parsed);
	mi_render_outline(path, src, len, &parsed, &outline, &orec);

	/* Records whose keys follow the path order, in key order per db. */
	mi_file_rec f = {
		.file_id = j->fid, .lang = (uint8_t)parsed.lang, .size = len,
		.lines = mi_count_lines(src, len), .mtime = j->wf->mtime_ns,
		.nsyms = (uint32_t)parsed.nsyms, .nrefs = (uint32_t)parsed.nrefs,
		.ndiags = (uint32_t)parsed.ndiags, .diags = parsed.diags,
	};
	mi_hash128(src, len, f.hash);
	mi_file_encode(&f, &v);
	j->len = len;
	rec_add(j, MI_DB_FILES, path, pl, v.buf, v.len);
	mi_be32(b4, j->fid);
	rec_add(j, MI_DB_FILEIDS, b4, 4, path, pl);
	rec_add(j, MI_DB_SRC, path, pl, len ? src : "", len);
	if (orec.text) {
		mi_buf_reset(&v);
		mi_outline_encode(&orec, &v);
		rec_add(j, MI_DB_OUTLINES, path, pl, v.buf, v.len);
	}
	mi_syms_put(&parsed, path, pl, fr_rec_syms, j);
	/* frefs: the file's references in one value */
	mi_buf_reset(&v);
	for (size_t i = 0; i < parsed.nrefs; i++)
		mi_frefs_add(&v, &parsed.refs[i]);
	if (parsed.nrefs)
		rec_add(j, MI_DB_FREFS, path, pl, v.buf, v.len);
	if (!p->sample) {
		fr_sort_to s1 = {p->names, lane}, s2 = {p->refs, lane};
		mi_byname_put_names(&parsed, j->fid, path, fr_sort_add, &s1);
		mi_byname_put_refs(&parsed, j->fid, fr_sort_add, &s2);
	}
	fr_lane to = {p, lane};
	if (mi_search_file(j->fid, path, &parsed, src, len, fr_put_chunk, j,
			   p->sample ? NULL : fr_post_add, &to, &p->tot[lane]) && !j->perr)
		j->perr = MI_ERR_PARSE;
	j->nsyms = (uint32_t)parsed.nsyms;
	j->nrefs = (uint32_t)parsed.nrefs;
	j->ndiags = (uint32_t)parsed.ndiags;
	j->outcome = FR_READY;
	mi_parsed_release(&parsed);
	mi_out_release(&outline);
	mi_buf_release(&k);
	mi_buf_release(&v);
	free(src);
}

/* One record of a batch being packed: where its key and value are in its
 * job's records, and its value as the store keeps it in the batch's
 * output. */
typedef struct fr_rec {
	int db;
	size_t job;            /* index in the batch */
	size_t ko, kl, vo, vl; /* key and value in that job's records */
	size_t po, pl;         /* packed value in the output */
} fr_rec;

/* The packed databases in the order a batch is packed: all values of one
 * database one after another, so its dictionary's tables stay in the
 * cache (packed as each was made, between parses, the same values took
 * about twice the CPU); then the rest, copied. */
static const int fr_pack_order[] = {MI_DB_SRC, MI_DB_SYMS, MI_DB_CHUNKS, MI_DB_OUTLINES,
				    MI_DB_FREFS, -1};

/* Packs the values of the batch's jobs' records, in place of them. */
static void fr_pack(fr_pool *p, fr_job **jobs, size_t nj)
{
	fr_rec *r = NULL;
	size_t nr = 0, cap = 0;
	mi_buf out = {0}, recs = {0};
	for (size_t b = 0; b < nj; b++) {
		if (!jobs[b]->recs.len)
			continue; /* skipped: no records */
		const uint8_t *base = (const uint8_t *)jobs[b]->recs.buf, *q = base,
			      *e = base + jobs[b]->recs.len;
		while (q < e) {
			fr_rec x = {.db = *q++, .job = b};
			uint64_t kl, vl;
			if (!mi_varint_get(&q, e, &kl) || (uint64_t)(e - q) < kl)
				abort(); /* written by rec_add just before */
			x.ko = (size_t)(q - base);
			x.kl = (size_t)kl;
			q += kl;
			if (!mi_varint_get(&q, e, &vl) || (uint64_t)(e - q) < vl)
				abort();
			x.vo = (size_t)(q - base);
			x.vl = (size_t)vl;
			q += vl;
			x.po = SIZE_MAX;
			if (nr == cap) {
				cap = cap ? 2 * cap : 256;
				r = mi_xrealloc(r, cap * sizeof(*r));
			}
			r[nr++] = x;
		}
	}
	for (size_t o = 0; o < sizeof(fr_pack_order) / sizeof(fr_pack_order[0]); o++)
		for (size_t i = 0; i < nr; i++) {
			if (r[i].po != SIZE_MAX || (fr_pack_order[o] >= 0 && r[i].db != fr_pack_order[o]))
				continue;
			r[i].po = out.len;
			mi_value_pack(p->st, r[i].db, jobs[r[i].job]->recs.buf + r[i].vo, r[i].vl, &out);
			r[i].pl = out.len - r[i].po;
		}
	for (size_t i = 0, b = 0; b < nj; b++) {
		const char *base = jobs[b]->recs.buf;
		uint8_t hdr[21];
		mi_buf_reset(&recs);
		for (; i < nr && r[i].job == b; i++) {
			size_t h = 0;
			hdr[h++] = (uint8_t)r[i].db;
			h += mi_varint_put(hdr + h, r[i].kl);
			mi_buf_add(&recs, hdr, h);
			mi_buf_add(&recs, base + r[i].ko, r[i].kl);
			mi_buf_add(&recs, hdr, mi_varint_put(hdr, r[i].pl));
			mi_buf_add(&recs, out.buf ? out.buf + r[i].po : "", r[i].pl);
		}
		mi_buf t = jobs[b]->recs;
		jobs[b]->recs = recs;
		recs = t;
	}
	mi_buf_release(&recs);
	mi_buf_release(&out);
	free(r);
}

/* Packs a worker's batch and hands its jobs to the writer. */
static void fr_publish(fr_pool *p, fr_job **jobs, size_t nj)
{
	size_t done = 0;
	fr_pack(p, jobs, nj);
	/* Published under the lock together with their bytes: a writer
	 * that saw the state first would subtract bytes not yet added,
	 * and with its records released, the add would be 0 and
	 * pending would wrap, holding every other worker back. */
	pthread_mutex_lock(&p->mu);
	for (size_t b = 0; b < nj; b++) {
		jobs[b]->state = jobs[b]->outcome == FR_READY ? FR_READY : FR_SKIPPED;
		p->pending += jobs[b]->recs.len;
	}
	p->done += nj;
	done = p->done;
	pthread_cond_broadcast(&p->ready);
	pthread_mutex_unlock(&p->mu);
	mi_build_progress(p->o, done, p->n);
}

static void *fr_worker(void *arg)
{
	fr_lane *ln = arg;
	fr_pool *p = ln->p;
	fr_job *held[FR_BATCH_FILES];
	size_t nheld = 0, bytes = 0;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		size_t i = p->next++;
		if (i >= p->n) {
			p->parse_end = mi_build_now();
			pthread_mutex_unlock(&p->mu);
			break;
		}
		/* Bounded memory: wait while far ahead of the writer (never for
		 * the file it waits for), after handing it what this worker
		 * holds (which it may be waiting for). */
		while (i > p->written && (i >= p->written + FR_WINDOW || p->pending > FR_PENDING)) {
			if (nheld) {
				pthread_mutex_unlock(&p->mu);
				fr_publish(p, held, nheld);
				nheld = bytes = 0;
				pthread_mutex_lock(&p->mu);
				continue;
			}
			pthread_cond_wait(&p->room, &p->mu);
		}
		pthread_mutex_unlock(&p->mu);
		fr_job *j = &p->jobs[i];
		fr_file(p, ln->lane, j);
		held[nheld++] = j;
		bytes += j->recs.len;
		if (nheld == FR_BATCH_FILES || bytes >= FR_BATCH_BYTES) {
			fr_publish(p, held, nheld);
			nheld = bytes = 0;
		}
	}
	if (nheld)
		fr_publish(p, held, nheld);
	mi_search_thread_done();
	return NULL;
}

/* A transaction of bounded size: commits and begins another when the
 * records since the last commit pass FR_TXN_BYTES, making sure beforehand
 * the map has room for the next one. */
typedef struct fr_txn {
	mi_store *st;
	mi_txn *t;
	size_t bytes;          /* written in t */
} fr_txn;

static int fr_begin(fr_txn *x)
{
	int rc = mi_store_reserve(x->st, 4ull * FR_TXN_BYTES);
	if (!rc)
		rc = mi_txn_begin(x->st, true, &x->t);
	x->bytes = 0;
	return rc;
}

static int fr_account(fr_txn *x, size_t bytes)
{
	int rc;
	x->bytes += bytes;
	if (x->bytes < FR_TXN_BYTES)
		return 0;
	rc = mi_txn_commit(x->t);
	x->t = NULL;
	return rc ? rc : fr_begin(x);
}

/* Appends the records of one job. */
static int fr_write_job(fr_txn *x, fr_job *j)
{
	const uint8_t *p = (const uint8_t *)j->recs.buf, *e = p + j->recs.len;
	while (p < e) {
		int db = *p++;
		uint64_t kl, vl;
		const uint8_t *k;
		if (!mi_varint_get(&p, e, &kl) || (uint64_t)(e - p) < kl)
			return MI_ERR_CORRUPT;
		k = p;
		p += kl;
		if (!mi_varint_get(&p, e, &vl) || (uint64_t)(e - p) < vl)
			return MI_ERR_CORRUPT;
		int rc = mi_put_stored(x->t, db, k, kl, p, vl, true);
		if (rc)
			return rc;
		p += vl;
	}
	return fr_account(x, j->recs.len);
}

/* Blocks of names or references (mi_names_writer) appended to db. */
typedef struct fr_blocks {
	fr_txn *x;
	int db;
	mi_names_writer w;
} fr_blocks;

static int fr_put_block(void *ctx, const void *k, size_t kl, const void *v, size_t vl)
{
	fr_blocks *b = ctx;
	return mi_put_append(b->x->t, b->db, k, kl, v, vl);
}

/* One entry, a name's count entry too (mi_byname_counter's fn). */
static int fr_put_entry(void *ctx, const void *k, size_t kl, const void *v, size_t vl)
{
	fr_blocks *b = ctx;
	int rc = mi_names_writer_add(&b->w, k, kl, v, vl, fr_put_block, b);
	return rc ? rc : fr_account(b->x, kl + vl + 16);
}

/* Appends a sorter's records into db (names and references: in blocks),
 * or feeds a postings writer (x unused). */
static int fr_drain(fr_txn *x, mi_sorter *s, int db, mi_search_fresh *post)
{
	const void *k, *v;
	size_t kl, vl;
	mi_byname_counter cnt = {.db = db};
	fr_blocks bw = {.x = x, .db = db};
	int rc = mi_sorter_finish(s);
	while (!rc && !(rc = mi_sorter_next(s, &k, &kl, &v, &vl))) {
		/* a name's count entry follows its last file's entry */
		if (db == MI_DB_REFS || db == MI_DB_NAMES)
			rc = mi_byname_counter_add(&cnt, k, kl, v, vl, fr_put_entry, &bw);
		if (!rc)
			rc = post ? mi_search_fresh_put(post, k, kl, v, vl)
			     : db == MI_DB_NAMES || db == MI_DB_REFS ? fr_put_entry(&bw, k, kl, v, vl)
				  : mi_put_append(x->t, db, k, kl, v, vl);
		if (!rc && !post && db != MI_DB_NAMES && db != MI_DB_REFS)
			rc = fr_account(x, kl + vl + 16);
		if (!rc)
			rc = mi_sorter_pop(s);
	}
	if (rc == MI_ERR_NOTFOUND)
		rc = mi_byname_counter_finish(&cnt, fr_put_entry, &bw);
	if (!rc)
		rc = mi_names_writer_flush(&bw.w, fr_put_block, &bw);
	mi_names_writer_release(&bw.w);
	mi_buf_release(&cnt.name);
	free(cnt.c);
	return rc;
}

/* A postings writer's entry appended to the store now. */
static int fr_out_put(void *ctx, int db, const void *k, size_t kl, const void *v, size_t vl)
{
	fr_txn *x = ctx;
	int rc = mi_put_append(x->t, db, k, kl, v, vl);
	return rc ? rc : fr_account(x, kl + vl + 16);
}

/*
 * The second range of terms, made on its own thread while the writer
 * appends names, references and the first range: its entries (u8 db,
 * varint key length, varint value length, key, value) go to a spool file
 * that the writer reads from a handle of its own and appends, in the same
 * order, as soon as it is done with the first range, up to what the
 * thread has flushed (whole entries only) until it is done.
 */
#define FR_SPOOL_STEP (4u << 20) /* bytes between flushes of the spool */

typedef struct fr_spool {
	mi_sorter *s;
	mi_search_fresh *f;
	FILE *out, *in;        /* the thread's handle, the writer's */
	uint64_t written;      /* bytes written to out */
	pthread_mutex_t mu;
	pthread_cond_t more;
	uint64_t ready;        /* bytes flushed, whole entries (under mu) */
	bool done;             /* the thread is done (under mu) */
	int rc;                /* its outcome, read once done */
} fr_spool;

/* Makes what was written readable to the writer. */
static int fr_spool_flush(fr_spool *sp, bool done)
{
	int rc = fflush(sp->out) ? (errno ? errno : EIO) : 0;
	pthread_mutex_lock(&sp->mu);
	if (!rc)
		sp->ready = sp->written;
	sp->done = done;
	pthread_cond_signal(&sp->more);
	pthread_mutex_unlock(&sp->mu);
	return rc;
}

static int fr_spool_out(void *ctx, int db, const void *k, size_t kl, const void *v, size_t vl)
{
	fr_spool *sp = ctx;
	uint8_t hdr[21];
	size_t h = 0;
	hdr[h++] = (uint8_t)db;
	h += mi_varint_put(hdr + h, kl);
	h += mi_varint_put(hdr + h, vl);
	if (fwrite(hdr, 1, h, sp->out) != h || fwrite(k, 1, kl, sp->out) != kl ||
	    fwrite(v, 1, vl, sp->out) != vl)
		return errno ? errno : EIO;
	sp->written += h + kl + vl;
	return sp->written - sp->ready >= FR_SPOOL_STEP ? fr_spool_flush(sp, false) : 0;
}

static void *fr_spool_worker(void *arg)
{
	fr_spool *sp = arg;
	int rc = fr_drain(NULL, sp->s, MI_DB_POST, sp->f);
	if (!rc)
		rc = mi_search_fresh_end(sp->f);
	sp->rc = rc;
	rc = fr_spool_flush(sp, true);
	if (!sp->rc)
		sp->rc = rc;
	return NULL;
}

/* Reads one varint of the spool; false when cut short. */
static bool fr_spool_varint(FILE *f, uint64_t *v, uint64_t *pos)
{
	int c, shift = 0;
	*v = 0;
	do {
		if ((c = getc_unlocked(f)) == EOF)
			return false;
		++*pos;
		*v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	} while ((c & 0x80) && shift < 64);
	return true;
}

/* Appends the spool's entries as the thread makes them readable. */
static int fr_spool_replay(fr_txn *x, fr_spool *sp)
{
	mi_buf b = {0};
	uint64_t pos = 0, ready = 0;
	int rc = 0;
	for (;;) {
		if (pos == ready) {
			bool done;
			pthread_mutex_lock(&sp->mu);
			while (sp->ready == pos && !sp->done)
				pthread_cond_wait(&sp->more, &sp->mu);
			ready = sp->ready;
			done = sp->done;
			pthread_mutex_unlock(&sp->mu);
			if (pos == ready && done)
				break;
		}
		uint64_t kl, vl;
		int db = getc_unlocked(sp->in);
		pos++;
		if (db == EOF || !fr_spool_varint(sp->in, &kl, &pos) ||
		    !fr_spool_varint(sp->in, &vl, &pos) || kl > 511 || pos + kl + vl > ready) {
			rc = EIO;
			break;
		}
		mi_buf_reset(&b);
		mi_buf_grow(&b, kl + vl);
		if (fread(b.buf, 1, kl + vl, sp->in) != kl + vl) {
			rc = EIO;
			break;
		}
		pos += kl + vl;
		if ((rc = fr_out_put(x, db, b.buf, kl, b.buf + kl, vl)))
			break;
	}
	mi_buf_release(&b);
	return rc;
}

/* Postings: the second range on a thread, the first here, then the
 * second's entries from its spool. */
static int fr_postings(fr_txn *x, fr_pool *p, const mi_search_totals *tot, const char *tmpdir,
		       size_t *nchunks)
{
	mi_search_fresh *lo = mi_search_fresh_new(tot, fr_out_put, x);
	fr_spool sp = {.s = p->post[1]};
	mi_buf path = {0};
	pthread_t th;
	bool threaded = false;
	int rc = 0;

	pthread_mutex_init(&sp.mu, NULL);
	pthread_cond_init(&sp.more, NULL);
	mi_buf_addf(&path, "%s/post.spool", tmpdir);
	sp.out = fopen(path.buf, "wb");
	sp.in = sp.out ? fopen(path.buf, "rb") : NULL;
	if (!sp.in)
		rc = errno ? errno : EIO;
	if (sp.out)
		unlink(path.buf); /* gone once both are closed */
	sp.f = mi_search_fresh_new(tot, fr_spool_out, &sp);
	if (!rc)
		threaded = !pthread_create(&th, NULL, fr_spool_worker, &sp);
	if (!rc)
		rc = fr_drain(x, p->names, MI_DB_NAMES, NULL);
	if (!rc)
		rc = fr_drain(x, p->refs, MI_DB_REFS, NULL);
	if (!rc)
		rc = fr_drain(x, p->post[0], MI_DB_POST, lo);
	if (!rc)
		rc = mi_search_fresh_end(lo);
	if (!rc && !threaded)
		fr_spool_worker(&sp);
	if (!rc)
		rc = fr_spool_replay(x, &sp);
	if (threaded)
		pthread_join(th, NULL);
	if (!rc)
		rc = sp.rc;
	if (!rc)
		rc = mi_search_fresh_finish(lo, x->t, nchunks);
	if (sp.out)
		fclose(sp.out);
	if (sp.in)
		fclose(sp.in);
	pthread_cond_destroy(&sp.more);
	pthread_mutex_destroy(&sp.mu);
	mi_search_fresh_free(sp.f);
	mi_search_fresh_free(lo);
	mi_buf_release(&path);
	return rc;
}

/* Runs fr_file over p->jobs[0..p->n) on nth threads, the writer's window
 * open (for the dictionary sample). */
static void *fr_sample_worker(void *arg)
{
	fr_lane *ln = arg;
	fr_pool *p = ln->p;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		size_t i = p->next++;
		pthread_mutex_unlock(&p->mu);
		if (i >= p->n)
			break;
		fr_file(p, ln->lane, &p->jobs[i]);
	}
	mi_search_thread_done(); /* the sample's chunks went through the search writer */
	return NULL;
}

/* The values of db among the sample's records, end to end, with sizes. */
static void fr_collect(fr_job *jobs, size_t n, int db, size_t cap, mi_buf *all, size_t **sizes,
		       unsigned *ns)
{
	*ns = 0;
	*sizes = NULL;
	size_t capn = 0;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *p = (const uint8_t *)jobs[i].recs.buf, *e = p + jobs[i].recs.len;
		while (p < e) {
			int d = *p++;
			uint64_t kl, vl;
			if (!mi_varint_get(&p, e, &kl))
				break;
			p += kl;
			if (!mi_varint_get(&p, e, &vl))
				break;
			if (d == db && vl >= 16 && all->len + vl <= cap) {
				if (*ns == capn) {
					capn = capn ? capn * 2 : 1024;
					*sizes = mi_xrealloc(*sizes, capn * sizeof(**sizes));
				}
				(*sizes)[(*ns)++] = (size_t)vl;
				mi_buf_add(all, p, (size_t)vl);
			}
			p += vl;
		}
	}
}

/*
 * Dictionaries for the packed databases of the sources, symbols,
 * outlines and references of files, trained on FR_SAMPLE_FILES files spread over the tree (parsed
 * once more later: a fraction of a percent of the work).  Small values
 * compress far better with one; docs/format.md gives the figures.
 */
static void fr_train(mi_store *st, const mi_build_opts *o, const char *root, int rootfd,
		     mi_walk *w, int nth)
{
	static const struct { int db; size_t cap, dict; } what[] = {
		{MI_DB_SRC, FR_SAMPLE_SRC, 256u << 10},
		{MI_DB_SYMS, 4u << 20, 128u << 10},
		{MI_DB_OUTLINES, 4u << 20, 64u << 10},
		{MI_DB_FREFS, 4u << 20, 128u << 10},
		{MI_DB_CHUNKS, 4u << 20, 128u << 10},
	};
	size_t stride = w->n / FR_SAMPLE_FILES + 1, n = 0;
	fr_pool p = {.o = o, .root = root, .rootfd = rootfd, .max_size = w->max_size, .st = st,
		     .sample = true};
	fr_lane lanes[FR_MAX_LANES];
	pthread_t th[FR_MAX_LANES];
	int started = 0;
	if (w->n < 32)
		return; /* too small to be worth one */
	p.jobs = mi_xcalloc(w->n / stride + 1, sizeof(*p.jobs));
	for (size_t i = 0; i < w->n; i += stride) {
		p.jobs[n].p = &p;
		p.jobs[n].wf = &w->files[i];
		p.jobs[n++].fid = (uint32_t)i + 1;
	}
	p.n = n;
	pthread_mutex_init(&p.mu, NULL);
	for (int i = 0; i < nth; i++) {
		lanes[i] = (fr_lane){&p, i};
		if (!pthread_create(&th[started], NULL, fr_sample_worker, &lanes[i]))
			started++;
	}
	if (!started) {
		fr_lane one = {&p, 0};
		fr_sample_worker(&one);
	}
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&p.mu);
	for (size_t k = 0; k < sizeof(what) / sizeof(what[0]); k++) {
		mi_buf all = {0}, dict = {0};
		size_t *sizes;
		unsigned ns;
		fr_collect(p.jobs, n, what[k].db, what[k].cap, &all, &sizes, &ns);
		if (ns >= 64 && !mi_dict_train(all.buf, sizes, ns, what[k].dict, &dict))
			mi_store_set_dict(st, what[k].db, dict.buf, dict.len);
		free(sizes);
		mi_buf_release(&all);
		mi_buf_release(&dict);
	}
	for (size_t i = 0; i < n; i++)
		mi_buf_release(&p.jobs[i].recs);
	free(p.jobs);
}

static int fr_walk_cmp(const void *a, const void *b)
{
	const char *x = (*(fr_job *const *)a)->wf->path, *y = (*(fr_job *const *)b)->wf->path;
	return mi_walk_order(x, strlen(x), y, strlen(y));
}

/* The stat list of the files written, in walk order (theirs is path order
 * here), for the first update. */
static int fr_stat_list(fr_txn *x, fr_pool *p)
{
	fr_job **v = mi_xmalloc((p->n ? p->n : 1) * sizeof(*v));
	size_t n = 0;
	mi_stat_writer sw;
	for (size_t i = 0; i < p->n; i++)
		if (p->jobs[i].state != FR_SKIPPED)
			v[n++] = &p->jobs[i];
	qsort(v, n, sizeof(*v), fr_walk_cmp);
	mi_stat_writer_begin(&sw, x->t);
	for (size_t i = 0; i < n; i++)
		mi_stat_writer_add(&sw, v[i]->wf->path, v[i]->wf->mtime_ns, v[i]->len);
	free(v);
	return mi_stat_writer_end(&sw);
}

int mi_build_fresh(const mi_build_opts *o, mi_store *st, const char *root, int rootfd,
		   const char *tmpdir, mi_walk *w, mi_build_stats *bs, mi_build_fresh_out *out)
{
	fr_pool p = {.o = o, .root = root, .rootfd = rootfd, .max_size = w->max_size, .st = st};
	fr_txn x = {.st = st};
	fr_lane lanes[FR_MAX_LANES];
	pthread_t th[FR_MAX_LANES];
	int started = 0, rc;
	double t1 = mi_build_now();

	/* Path order: the keys of files, src, outlines, syms and frefs (path
	 * first) and of fileids and chunks (ids given in this order) follow it. */
	if (w->n)
		qsort(w->files, w->n, sizeof(*w->files), mi_walk_cmp);
	p.n = w->n;
	p.jobs = mi_xcalloc(p.n ? p.n : 1, sizeof(*p.jobs));
	for (size_t i = 0; i < p.n; i++) {
		p.jobs[i].p = &p;
		p.jobs[i].wf = &w->files[i];
		p.jobs[i].fid = (uint32_t)i + 1;
	}
	int nth = mi_build_threads(o);
	if (nth > FR_MAX_LANES)
		nth = FR_MAX_LANES;
	fr_train(st, o, root, rootfd, w, nth);
	p.names = mi_sorter_new(tmpdir, "names", nth, FR_SORT_BUDGET / 2);
	p.refs = mi_sorter_new(tmpdir, "refs", nth, FR_SORT_BUDGET);
	p.post[0] = mi_sorter_new(tmpdir, "post0", nth, FR_SORT_BUDGET / 2);
	p.post[1] = mi_sorter_new(tmpdir, "post1", nth, FR_SORT_BUDGET);
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.ready, NULL);
	pthread_cond_init(&p.room, NULL);
	for (int i = 0; i < nth; i++) {
		lanes[i] = (fr_lane){&p, i};
		if (!pthread_create(&th[started], NULL, fr_worker, &lanes[i]))
			started++;
	}
	if (!started) {
		/* No threads: parse everything here first (unbounded window). */
		fr_lane one = {&p, 0};
		p.written = p.n;
		fr_worker(&one);
		p.written = 0;
	}

	rc = fr_begin(&x);
	for (size_t i = 0; i < p.n; i++) {
		fr_job *j = &p.jobs[i];
		pthread_mutex_lock(&p.mu);
		while (j->state == FR_PENDING_STATE)
			pthread_cond_wait(&p.ready, &p.mu);
		pthread_mutex_unlock(&p.mu);
		if (j->state == FR_SKIPPED) {
			out->skip(out->ctx, j->skip, j->wf->path);
		} else if (!rc) {
			rc = fr_write_job(&x, j);
			bs->files++;
			bs->symbols += j->nsyms;
			bs->refs += j->nrefs;
			bs->diags += j->ndiags;
			bs->indexed++;
			if (j->perr)
				out->fail(out->ctx, j->perr, j->wf->path);
		}
		pthread_mutex_lock(&p.mu);
		p.pending -= j->recs.len;
		p.written = i + 1;
		pthread_cond_broadcast(&p.room);
		pthread_mutex_unlock(&p.mu);
		mi_buf_release(&j->recs);
	}
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	bs->parse_seconds = (started ? p.parse_end : mi_build_now()) - t1;

	/* The sorted databases, then the statistics. */
	mi_search_totals tot = {0};
	for (int i = 0; i < nth; i++) {
		tot.nchunks += p.tot[i].nchunks;
		for (int f = 0; f < MI_SF__COUNT; f++)
			tot.len[f] += p.tot[i].len[f];
	}
	if (!rc)
		rc = fr_postings(&x, &p, &tot, tmpdir, &bs->chunks);
	if (!rc)
		rc = fr_stat_list(&x, &p);
	if (!rc)
		rc = out->meta(out->ctx, x.t);
	if (!rc) {
		rc = mi_txn_commit(x.t);
		x.t = NULL;
	}
	mi_txn_abort(x.t);
	mi_sorter_free(p.names);
	mi_sorter_free(p.refs);
	mi_sorter_free(p.post[0]);
	mi_sorter_free(p.post[1]);
	pthread_cond_destroy(&p.ready);
	pthread_cond_destroy(&p.room);
	pthread_mutex_destroy(&p.mu);
	for (size_t i = 0; i < p.n; i++)
		mi_buf_release(&p.jobs[i].recs);
	free(p.jobs);
	return rc;
}
