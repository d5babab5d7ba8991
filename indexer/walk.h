/*
 * walk.h - the repository walk (indexer internal).
 */
#ifndef MI_WALK_H
#define MI_WALK_H

#include "indexer_int.h"

typedef struct mi_walk_file {
	char *path;        /* repo-relative, '/' separated; owned */
	uint64_t size;     /* bytes at walk time */
	int64_t mtime_ns;  /* modification time, ns */
	int lang;          /* mi_lang_id */
} mi_walk_file;

/* One skipped path, when the walk lists them. */
typedef struct mi_walk_skip {
	char *path;        /* repo-relative; a folder ends with '/'; owned */
	int reason;        /* MI_SKIP_* */
} mi_walk_skip;

typedef struct mi_walk {
	const char *root;        /* absolute, real path of the repo */
	const char *index_dir;   /* absolute index dir to leave out, or NULL */
	uint64_t max_size;       /* size cap */
	bool no_ignore;          /* ignore files are not read */
	mi_walk_file *files;     /* result, sorted by path within directories */
	size_t n, cap;
	size_t skipped[MI_SKIP__COUNT]; /* counts by reason */
	bool list;               /* also record each skipped path in skips */
	int threads;             /* > 1: folders walked by that many threads */
	mi_walk_skip *skips;     /* skipped paths in walk order, when list */
	size_t nskips, capskips;
	char *dents;             /* the walk's buffer for a folder's entries */
} mi_walk;

/* Counts a skip (and records path when w->list); is_dir adds a '/'. */
void mi_walk_skip_add(mi_walk *w, int reason, const char *path, bool is_dir);

int mi_walk_run(mi_walk *w);
void mi_walk_release(mi_walk *w);
int mi_walk_cmp(const void *a, const void *b);

/* What a fresh build reports to its caller (build.c) while it runs. */
typedef struct mi_build_fresh_out {
	void *ctx;
	void (*skip)(void *ctx, int reason, const char *path); /* found unreadable, binary, too big */
	void (*fail)(void *ctx, int err, const char *path);    /* a parse that failed */
	int (*meta)(void *ctx, mi_txn *t);                     /* the meta records, last */
} mi_build_fresh_out;

/*
 * Writes every file of the walk into the empty MI_STORE_FRESH store st
 * (build_fresh.c): sorts w->files by path, gives file ids in that order,
 * parses on o->jobs threads in bounded memory, keeps sorter runs in tmpdir.
 * Fills bs's counts and parse_seconds.  The caller publishes st.
 */
int mi_build_fresh(const mi_build_opts *o, mi_store *st, const char *root, int rootfd,
		   const char *tmpdir, mi_walk *w, mi_build_stats *bs, mi_build_fresh_out *out);

/*
 * The stat list (statlist.c): the path, mtime and size of every file record
 * in one meta value, in walk order, written by both builds in the
 * transaction that writes the records.  mi_walk_order compares two paths
 * as the walk orders them (by folder, each folder's names by strcmp).
 */
#define MI_STAT_LIST_KEY "files.stat"
typedef struct mi_stat_list {
	mi_txn *t;
	const uint8_t *p, *e;   /* the piece's entries left, in the map */
	uint32_t n;             /* entries in all */
	uint32_t piece, npieces;
	bool bad;               /* a piece missing, or an entry past its end */
} mi_stat_list;
typedef struct mi_stat_entry {
	const char *path;       /* not 0-terminated */
	size_t pl;
	int64_t mtime;
	uint64_t size;
} mi_stat_entry;
int mi_walk_order(const char *a, size_t al, const char *b, size_t bl);
/* Writes the list in t, entry by entry in walk order: the pieces whose
 * bytes are not stored already, then the head. */
typedef struct mi_stat_writer {
	mi_txn *t;
	mi_buf piece;           /* the piece being filled */
	uint32_t n, inpiece;    /* entries in all, in the piece */
	uint32_t i, old;        /* the piece's number; pieces stored before */
	int rc;
} mi_stat_writer;
void mi_stat_writer_begin(mi_stat_writer *w, mi_txn *t);
void mi_stat_writer_add(mi_stat_writer *w, const char *path, int64_t mtime, uint64_t size);
int mi_stat_writer_end(mi_stat_writer *w);
/* The stored list, when there is one whose count is the file records'. */
bool mi_stat_list_open(mi_txn *t, mi_stat_list *sl);
bool mi_stat_list_next(mi_stat_list *sl, mi_stat_entry *e);

/* Shared by both builds (build.c): a monotonic clock in seconds, and one
 * progress step (the on_progress callback, the bar on stderr). */
double mi_build_now(void);
void mi_build_progress(const mi_build_opts *o, size_t done, size_t n);
/* Threads to walk and parse with: --jobs, else one per core (1-64). */
int mi_build_threads(const mi_build_opts *o);

#endif
