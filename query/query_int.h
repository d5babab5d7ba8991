/*
 * query_int.h - internals shared by the files of query/ (not public).
 */
#ifndef MI_QUERY_INT_H
#define MI_QUERY_INT_H

#include "query.h"

struct mi_query {
	mi_store *st;   /* read-only store; each call opens its own read txn */
	char *path;     /* index path as given */
};

#define MI_DEFAULT_MAX_TOKENS 20000

/*
 * Loads one indexed file inside read transaction t: its record, its source
 * (pointing into the map, valid until t ends) and its symbols/diags decoded
 * into p (strings owned by p's arena).  Returns 0, MI_ERR_NOTFOUND when the
 * path is not in the index, or MI_ERR_CORRUPT.
 */
int mi_q_load_file(mi_txn *t, const char *path, mi_file_rec *rec,
		   const char **src, size_t *len, mi_parsed *p);

/* The path of a file id (malloc'd) or NULL. */
char *mi_q_file_path(mi_txn *t, uint32_t file_id);

#endif
