/*
 * spans.c - the index as spans rather than text: one file's source and
 * symbols decoded for a front end that computes positions itself (the
 * language server), the repository root, and a workspace-wide symbol
 * lookup by name.
 */
#include "query_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int mi_query_file_load(mi_query *q, const char *path, mi_query_file *f)
{
	mi_txn *t = NULL;
	mi_file_rec rec;
	const char *src;
	size_t len;
	mi_buf norm = {0};
	int rc;

	memset(f, 0, sizeof *f);
	mi_parsed_init(&f->parsed);
	if (!path || mi_path_normalize(path, &norm)) {
		rc = MI_ERR_PATH;
		goto out;
	}
	if ((rc = mi_txn_begin(q->st, false, &t)))
		goto out;
	if ((rc = mi_q_load_file(t, norm.buf, NULL, &rec, &src, &len, &f->parsed)))
		goto out_abort;
	f->src = mi_xmalloc(len + 1);
	memcpy(f->src, src, len);
	f->src[len] = 0;
	f->len = len;
	memcpy(f->hash, rec.hash, sizeof f->hash);
	mi_file_rec_release(&rec);
out_abort:
	mi_txn_abort(t);
out:
	mi_buf_release(&norm);
	if (rc)
		mi_query_file_release(f);
	return rc;
}

void mi_query_file_release(mi_query_file *f)
{
	mi_parsed_release(&f->parsed);
	free(f->src);
	f->src = NULL;
	f->len = 0;
}

int mi_query_source(mi_query *q, const char *path, char **src, size_t *len)
{
	mi_txn *t;
	const void *v;
	size_t vl;
	int rc;

	*src = NULL;
	*len = 0;
	if ((rc = mi_txn_begin(q->st, false, &t)))
		return rc;
	rc = mi_get(t, MI_DB_SRC, path, strlen(path), &v, &vl);
	if (!rc) {
		*src = mi_xmalloc(vl + 1);
		memcpy(*src, v, vl);
		(*src)[vl] = 0;
		*len = vl;
	}
	mi_txn_abort(t);
	return rc;
}

char *mi_query_root(mi_query *q)
{
	mi_txn *t;
	char *root = NULL;
	if (mi_txn_begin(q->st, false, &t))
		return NULL;
	if (mi_meta_get_str(t, "root", &root))
		root = NULL;
	mi_txn_abort(t);
	return root;
}

/* How well a name matches: 0 exact, 1 prefix, 2 substring (all ignoring
 * case), 3 no match. */
static int name_rank(const char *name, size_t nl, const char *needle, size_t ql)
{
	if (ql == 0)
		return 1;
	if (ql > nl)
		return 3;
	for (size_t i = 0; i + ql <= nl; i++) {
		size_t j = 0;
		while (j < ql && tolower((unsigned char)name[i + j]) ==
				 tolower((unsigned char)needle[j]))
			j++;
		if (j == ql)
			return i ? 2 : ql == nl ? 0 : 1;
	}
	return 3;
}

/* The matches of one rank, in key order: the definitions' paths, copied. */
typedef struct sym_bucket {
	char **keys;   /* paths */
	uint32_t *idx; /* symbol indexes */
	size_t n;      /* definitions held (at most the limit) */
} sym_bucket;

int mi_query_symbols(mi_query *q, const char *needle, size_t limit,
		     mi_query_sym_fn fn, void *ctx)
{
	mi_txn *t;
	mi_cursor *cur = NULL;
	const void *kp, *vp;
	size_t kl, vl, ql = needle ? strlen(needle) : 0, shown = 0, i;
	sym_bucket b[3];
	mi_parsed arena;
	int rc, r;

	if (!limit)
		limit = 100;
	if ((rc = mi_txn_begin(q->st, false, &t)))
		return rc;
	for (r = 0; r < 3; r++) {
		b[r].keys = mi_xcalloc(limit, sizeof *b[r].keys);
		b[r].idx = mi_xcalloc(limit, sizeof *b[r].idx);
		b[r].n = 0;
	}
	mi_parsed_init(&arena);
	if ((rc = mi_cursor_open(t, MI_DB_NAMES, &cur)))
		goto out;
	/* Exact matches first, then prefixes, then substrings, each in key
	 * order: a rank stops collecting once it and the better ranks hold
	 * `limit` keys, so the answer does not depend on when the scan ends. */
	bool full = false;
	for (rc = mi_cursor_seek(cur, NULL, 0, &kp, &kl, &vp, &vl); !rc && !full;
	     rc = mi_cursor_next(cur, &kp, &kl, &vp, &vl)) {
		mi_byname it;
		const char *path;
		size_t pl;
		uint32_t idx;
		/* Each (name, file) entry of the block; paths only of the kept. */
		mi_byname_entry(t, false, kp, kl, vp, vl, &it);
		it.nopath = true;
		while (!mi_names_next(&it, &path, &pl, &idx)) {
			size_t better = 0, fl;
			const char *fp;
			r = name_rank(it.name, it.nl, needle, ql);
			if (r == 3)
				continue;
			for (int k = 0; k <= r; k++)
				better += b[k].n;
			if (better >= limit || mi_q_fid_path(t, it.fid, &fp, &fl))
				continue;
			b[r].keys[b[r].n] = mi_xstrndup(fp, fl);
			b[r].idx[b[r].n++] = idx;
			if (ql == 0 && b[r].n == limit) {
				full = true; /* every name matches: the first ones in key order */
				break;
			}
		}
		mi_byname_close(&it);
	}
	rc = 0;
	for (r = 0; r < 3; r++)
		for (i = 0; i < b[r].n && shown < limit; i++, shown++) {
			const char *p = b[r].keys[i];
			mi_symbol s;
			if (!mi_q_load_sym(t, p, strlen(p), b[r].idx[i], &s, &arena))
				fn(ctx, p, &s);
		}
out:
	for (r = 0; r < 3; r++) {
		for (i = 0; i < b[r].n; i++)
			free(b[r].keys[i]);
		free(b[r].keys);
		free(b[r].idx);
	}
	mi_cursor_close(cur);
	mi_parsed_release(&arena);
	mi_txn_abort(t);
	return rc;
}
