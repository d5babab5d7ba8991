/*
 * query_int.h - internals shared by the files of query/ (not public).
 */
#ifndef MI_QUERY_INT_H
#define MI_QUERY_INT_H

#include "query.h"

#include <pthread.h>

struct mi_query {
	mi_store *st;   /* read-only store; each call opens its own read txn */
	char *path;     /* index path as given */
	struct mi_side *side;     /* side store beside the index, opened on first use */
	pthread_mutex_t side_mu;  /* guards opening side and blame */
	mi_store *blame;          /* blame beside the index, opened on first use */
	bool scores;    /* search answers carry each hit's score (a workspace) */
	bool exhaustive; /* search scores every chunk holding a query term */
	size_t split_min; /* mi_query_set_split (0: the default) */
};

/*
 * Loads one indexed file inside read transaction t: its record, its source
 * (pointing into the map, valid until t ends), diagnostics, implementation
 * references and symbols, decoded into p (strings owned by p's arena).
 * With a selector (an expand_at NAME or Parent.NAME) only the symbols that
 * expansion can show are loaded when the language allows it: the named
 * symbols, their ancestors and their descendants.  Returns 0,
 * MI_ERR_NOTFOUND when the path is not in the index, or MI_ERR_CORRUPT.
 */
int mi_q_load_file(mi_txn *t, const char *path, const char *selector, mi_file_rec *rec,
		   const char **src, size_t *len, mi_parsed *p);

/* How goto_definition orders a name's definitions, lower first: by kind
 * (types, functions, ..., prototypes), public before private, tests and
 * examples last (testlike: the names entry's mark, mi_path_testlike). */
int mi_q_def_rank(int kind, int vis, bool testlike);
#define MI_Q_DEF_RANKS 64       /* ranks mi_q_def_rank gives are below this */
/* A name's definitions by rank from its count entry (a name defined in
 * many files, mi_byname_count) into by_rank: how many in all, 0 when no
 * count is kept (walk the entries). */
size_t mi_q_def_counts(mi_txn *t, const char *name, size_t by_rank[MI_Q_DEF_RANKS]);
/* Symbol idx of path (pl bytes) into s, strings in arena's. */
int mi_q_load_sym(mi_txn *t, const char *path, size_t pl, uint32_t idx, mi_symbol *s,
		  mi_parsed *arena);

/* read_file {xrefs}: one malloc'd note per symbol of p ("called by: a, b
 * (+3)", "implemented by: A"), NULL where there is none (xrefs.c). */
char **mi_q_xrefs(mi_txn *t, const char *path, const mi_parsed *p);
void mi_q_xrefs_free(char **notes, size_t n);
/* read_file {with_blame}: adds "last commit abc1234 by A, 2026-11-20" to
 * (*notes)[i] of each symbol the stored blame names (allocating *notes,
 * p->nsyms + 1 entries, when NULL).  0, or an error answer in out when the
 * index keeps no blame or it is older than the file (blame.c). */
int mi_q_blame(mi_query *q, const char *path, const uint8_t hash[16],
	       const mi_parsed *p, char ***notes, mi_out *out);

/* The path of a file id (malloc'd) or NULL. */
char *mi_q_file_path(mi_txn *t, uint32_t file_id);
/* The path of a file id in the map (valid while t lasts): 0 or an error. */
int mi_q_fid_path(mi_txn *t, uint32_t file_id, const char **path, size_t *pl);

/*
 * The second thread of a query that splits its work in two (pair.c): one
 * per process, kept, so its unpacking contexts stay warm.  mi_q_pair_start
 * hands it fn(arg) and returns true, or returns false when it is busy
 * with another query's half or could not start (the caller then does all
 * the work itself).  After a true, mi_q_pair_wait returns once fn has run,
 * or at once when the thread had not taken fn yet (fn then does not run,
 * and its share is the caller's): so fn should take its work from what
 * the caller leaves, not from a fixed part.
 */
bool mi_q_pair_start(void (*fn)(void *arg), void *arg);
/* Whether there is a second thread at all (none on one core): the core
 * count is read once per process. */
bool mi_q_pair_up(void);
void mi_q_pair_wait(void);

/* True when the latest compile left diagnostics for path.  (cdiags.c) */
bool mi_q_has_compile_diags(mi_query *q, const char *path);
/* Appends path's compile diagnostics to p when they were made against
 * content with this hash; returns how many.  (cdiags.c) */
int mi_q_compile_diags(mi_query *q, const char *path, const uint8_t hash[16], mi_parsed *p);

/* ---- artifacts (artifacts.c, evidence.c) ------------------------------------ */

struct mi_art_ev;
/* The handle's lock (guards its side store handle and evidence index). */
void mi_art_lock(mi_art *a);
void mi_art_unlock(mi_art *a);
/* Where the handle keeps its evidence term index (use under the lock). */
struct mi_art_ev **mi_art_ev_slot(mi_art *a);
/* Frees an evidence term index (evidence.c). */
void mi_art_ev_free(struct mi_art_ev *e);

#endif
