/*
 * side.h - the side store: a small writable LMDB environment kept beside an
 * index for what is not derived from the source tree and must survive a
 * rebuild: artifacts written by the host's model, compile diagnostics, tool
 * aliases, approvals, an execution log.  The index itself stays read-only
 * and shippable; nothing here is ever written into it.
 *
 * Where it lives (mi_side_locate): for an index directory D, D/side/; for a
 * packed index file F, F.side/ beside it; an explicit directory (--side DIR,
 * or the MCPIDX_SIDE environment variable) overrides both.  A rebuild
 * replaces the index's own files only, never D/side/.
 *
 * Layout: one LMDB environment with the sub-databases of enum mi_side_db.
 * Every record has the same shape (mi_side_rec): what it describes (path,
 * kind, name), the content hash of that thing when it was written, the time,
 * the correlation id of the call or chain that wrote it, a number and a text
 * body.  Keyed databases store a record under path \0 kind \0 name (one
 * record per key: a put replaces); logs (mi_side_append) under be64(seq),
 * numbered from 1 in commit order.  Values are msgpack arrays:
 *
 *   [path, kind, name, hash (bin 16, or nil), created_ms, corr, num, text]
 *
 * Fields are append-only.  docs/format.md, "The side store", is the long form.
 *
 * Concurrency and durability: every write is one LMDB write transaction,
 * committed with a sync.  Writers in several processes are serialised by
 * LMDB's lock file, so two servers storing at once lose nothing; a process
 * killed mid-write leaves the last committed state whole.  Readers never
 * block writers.
 */
#ifndef MI_SIDE_H
#define MI_SIDE_H

#include "format.h"

#define MI_SIDE_VERSION 1   /* side store layout; bump on incompatible change */

/* Sub-databases.  Append only; a new kind of record is a new row here and
 * in side.c's name table. */
/* Records an append-only log keeps: each append past it drops the oldest
 * (a client calling in a loop must not fill the disk). */
#define MI_SIDE_LOG_KEEP 100000

typedef enum mi_side_db {
	MI_SIDE_META,      /* "version", counters: msgpack ints (not records) */
	MI_SIDE_ARTIFACTS, /* artifacts: path \0 task \0 symbol */
	MI_SIDE_DIAGS,     /* compile diagnostics per file: path \0 source \0 "" */
	MI_SIDE_ALIASES,   /* tool aliases: "server/tool" \0 "alias" \0 phrasing id */
	MI_SIDE_APPROVALS, /* approval / quarantine of tools: "server/tool" \0 state \0 "" */
	MI_SIDE_LOG,       /* append-only execution log: be64(seq), the last
			    * MI_SIDE_LOG_KEEP records kept */
	MI_SIDE_CHAINS,    /* bounded chains: chain id \0 "" \0 "", num = steps */
	MI_SIDE__COUNT
} mi_side_db;

/* The name of a sub-database ("artifacts"), or NULL when out of range. */
const char *mi_side_db_name(int db);
/* The sub-database called name, or -1. */
int mi_side_db_find(const char *name);

/*
 * One record.  On input (put, append) the strings are the caller's and may
 * be NULL (stored as ""); created_ms 0 means now.  On output (get, scan) they
 * are NUL-terminated copies owned by the transaction, valid until it ends.
 */
typedef struct mi_side_rec {
	const char *path;     /* what it describes: a repo-relative file, "server/tool" */
	const char *kind;     /* its type in the db: a task ("summarize"), "alias" */
	const char *name;     /* sub-key: a symbol, a phrasing id; "" when none */
	uint8_t hash[16];     /* content hash of what it describes (xxh3-128) */
	bool has_hash;        /* false: no hash recorded */
	int64_t created_ms;   /* wall clock, ms since the epoch */
	const char *corr;     /* correlation id of the call or chain that wrote it */
	int64_t num;          /* a number the db gives meaning to (chain steps...) */
	const char *text;     /* body: free text or JSON */
	size_t text_len;      /* its length (text may hold NULs) */
	uint64_t seq;         /* logs: sequence number (set by append and scan) */
} mi_side_rec;

typedef struct mi_side mi_side;
typedef struct mi_side_txn mi_side_txn;

/*
 * Where the side store of the index at index_path lives: override when it is
 * non-NULL and non-empty, else $MCPIDX_SIDE when set and non-empty, else
 * index_path/side for an index directory, else index_path.side for a packed
 * file.  Returns a malloc'd path, or NULL when index_path is neither a
 * directory nor a file (no index yet).
 */
char *mi_side_locate(const char *index_path, const char *override);

#define MI_SIDE_CREATE 0x1  /* create the directory and environment if missing */

/*
 * Opens the side store in directory dir.  Without MI_SIDE_CREATE a missing
 * store is MI_ERR_NOINDEX (callers treat it as empty).  A store of another
 * MI_SIDE_VERSION is MI_ERR_VERSION.  EACCES/EROFS mean the place is not
 * writable: say so and suggest --side DIR.  The handle may be shared by
 * threads; each thread uses its own transactions.
 */
int mi_side_open(const char *dir, int flags, mi_side **out);
void mi_side_close(mi_side *s);
/* The directory it was opened at. */
const char *mi_side_dir(const mi_side *s);

/*
 * Transactions.  A read transaction is a snapshot; only one write
 * transaction runs at a time across every process sharing the store.
 * commit and abort free the handle and everything decoded under it.
 */
int mi_side_begin(mi_side *s, bool write, mi_side_txn **out);
int mi_side_commit(mi_side_txn *t);
void mi_side_abort(mi_side_txn *t);

/*
 * Runs fn inside one write transaction and commits it.  When the map is
 * full the transaction is aborted, the map grown and fn run again from the
 * start, so fn must only depend on ctx and the transaction.  fn returning
 * nonzero aborts; that value is returned.
 */
typedef int (*mi_side_write_fn)(mi_side_txn *t, void *ctx);
int mi_side_write(mi_side *s, mi_side_write_fn fn, void *ctx);

/* Stores r under path \0 kind \0 name, replacing any record there.
 * MI_ERR_TOOBIG when the key is over 500 bytes, MI_ERR_ARG for a bad db. */
int mi_side_put(mi_side_txn *t, int db, const mi_side_rec *r);
/* Reads the record at path \0 kind \0 name into r: 0 or MI_ERR_NOTFOUND. */
int mi_side_get(mi_side_txn *t, int db, const char *path, const char *kind,
		const char *name, mi_side_rec *r);
/* Deletes it: 0 or MI_ERR_NOTFOUND. */
int mi_side_del(mi_side_txn *t, int db, const char *path, const char *kind,
		const char *name);
/* Appends r to a log db under the next sequence number, which goes to
 * *seq_out (may be NULL). */
int mi_side_append(mi_side_txn *t, int db, const mi_side_rec *r, uint64_t *seq_out);

/*
 * Calls fn for each record whose key starts with prefix[0..plen), in key
 * order (plen 0: all; logs: in sequence order).  fn returns 0 to go on, 1
 * to stop (scan returns 0), anything else to stop and return it.  Handy
 * prefixes: "dir/" for a directory's files, mi_side_key(path, "", "") minus
 * its last two NULs for one file ("path\0").  The record is valid until the
 * transaction ends.
 */
typedef int (*mi_side_fn)(void *ctx, const mi_side_rec *r);
int mi_side_scan(mi_side_txn *t, int db, const void *prefix, size_t plen,
		 mi_side_fn fn, void *ctx);
/* Number of records in db. */
uint64_t mi_side_count(mi_side_txn *t, int db);
/* db's generation: a number that changes with every put, del or append
 * committed to it (0 when never written), for caches of its contents. */
int64_t mi_side_gen(mi_side_txn *t, int db);

/*
 * Makes the side store at dst_dir (created when missing) hold exactly the
 * records src has in the databases dbs[0..ndbs): each is cleared and filled
 * in one write transaction, so a reader sees the old copy or the new one.
 * The records copied go to *n (may be NULL).  For shipping artifacts beside
 * a packed index (mcpidx pack --with-artifacts).  0 or an error.
 */
int mi_side_export(mi_side *src, const char *dst_dir, const int *dbs, size_t ndbs,
		   uint64_t *n);

/* Builds the key path \0 kind \0 name into out (reset first). */
void mi_side_key(mi_buf *out, const char *path, const char *kind, const char *name);

/* Encodes / decodes a record value (what put stores).  Decoding copies the
 * strings into one malloc'd block, *mem (the caller frees it when done with
 * r; NULL on error): 0 or MI_ERR_CORRUPT, never a crash on bad bytes. */
void mi_side_rec_encode(const mi_side_rec *r, mi_buf *out);
int mi_side_rec_decode(const void *data, size_t len, mi_side_rec *r, char **mem);

/* Wall clock in ms since the epoch. */
int64_t mi_side_now_ms(void);

#endif
