/*
 * cdiags.c - the latest compile's diagnostics, read from the side store
 * beside the index (format.h, "compile diagnostics"): joined to a file's
 * own diagnostics in the folded views when they were made against the
 * content the index holds, and listed for the language server.
 */
#include "query_int.h"
#include "../format/side.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LATEST_KIND "compile-latest"

/* The side store, opened on first use once it exists.  NULL: none. */
static mi_side *side_get(mi_query *q)
{
	mi_side *s;
	pthread_mutex_lock(&q->side_mu);
	if (!q->side) {
		char *dir = mi_side_locate(q->path, NULL);
		mi_buf data = {0};
		struct stat sb;
		if (dir) {
			mi_buf_addf(&data, "%s/data.mdb", dir);
			if (stat(data.buf, &sb) == 0 && mi_side_open(dir, 0, &q->side))
				q->side = NULL;
		}
		mi_buf_release(&data);
		free(dir);
	}
	s = q->side;
	pthread_mutex_unlock(&q->side_mu);
	return s;
}

/* Calls fn with the record of path's diagnostics; 0, MI_ERR_NOTFOUND. */
static int with_record(mi_query *q, const char *path,
		       int (*fn)(void *ctx, const mi_side_rec *r), void *ctx)
{
	mi_side *s = side_get(q);
	mi_side_txn *t;
	mi_side_rec r;
	int rc;
	if (!s)
		return MI_ERR_NOTFOUND;
	if ((rc = mi_side_begin(s, false, &t)))
		return rc;
	rc = mi_side_get(t, MI_SIDE_DIAGS, path, MI_CDIAG_KIND, "", &r);
	if (!rc)
		rc = fn(ctx, &r);
	mi_side_abort(t);
	return rc;
}

bool mi_q_has_compile_diags(mi_query *q, const char *path)
{
	mi_side *s = side_get(q);
	mi_side_txn *t;
	mi_side_rec r;
	bool has = false;
	if (s && !mi_side_begin(s, false, &t)) {
		has = !mi_side_get(t, MI_SIDE_DIAGS, path, MI_CDIAG_KIND, "", &r);
		mi_side_abort(t);
	}
	return has;
}

typedef struct add_ctx {
	const uint8_t *hash;   /* NULL: any content */
	mi_parsed *p;          /* mi_q_compile_diags */
	mi_query_diag_fn fn;   /* mi_query_compile_diags */
	void *fn_ctx;
	int n;                 /* diagnostics passed on */
} add_ctx;

static int add_record(void *ctx, const mi_side_rec *r)
{
	add_ctx *a = ctx;
	const char *p = r->text, *end = r->text + r->text_len;
	mi_cdiag d;
	if (a->hash && (!r->has_hash || memcmp(r->hash, a->hash, 16)))
		return 0; /* made against other content: dropped */
	while (mi_cdiag_next(&p, end, &d)) {
		if (a->p) {
			mi_diag *x = mi_parsed_add_diag(a->p);
			x->line = d.line;
			x->severity = d.severity;
			x->msg = mi_parsed_strndup(a->p, d.msg, d.msg_len);
		} else {
			a->fn(a->fn_ctx, &d);
		}
		a->n++;
	}
	return 0;
}

int mi_q_compile_diags(mi_query *q, const char *path, const uint8_t hash[16], mi_parsed *p)
{
	add_ctx a = {.hash = hash, .p = p};
	with_record(q, path, add_record, &a);
	return a.n;
}

int mi_query_compile_diags(mi_query *q, const char *path, const uint8_t hash[16],
			   mi_query_diag_fn fn, void *ctx)
{
	add_ctx a = {.hash = hash, .fn = fn, .fn_ctx = ctx};
	int rc = with_record(q, path, add_record, &a);
	return rc == MI_ERR_NOTFOUND ? 0 : rc;
}

typedef struct files_ctx {
	mi_query_cfile_fn fn;
	void *ctx;
} files_ctx;

static int each_file(void *ctx, const mi_side_rec *r)
{
	files_ctx *f = ctx;
	if (r->path[0] && !strcmp(r->kind, MI_CDIAG_KIND))
		f->fn(f->ctx, r->path, r->has_hash ? r->hash : NULL, r->text, r->text_len);
	return 0;
}

int mi_query_compile_files(mi_query *q, mi_query_cfile_fn fn, void *ctx, char **latest)
{
	mi_side *s = side_get(q);
	mi_side_txn *t;
	mi_side_rec r;
	files_ctx f = {fn, ctx};
	int rc;
	if (latest)
		*latest = NULL;
	if (!s)
		return 0;
	if ((rc = mi_side_begin(s, false, &t)))
		return rc;
	if (latest && !mi_side_get(t, MI_SIDE_DIAGS, "", LATEST_KIND, "", &r))
		*latest = mi_xstrdup(r.corr ? r.corr : "");
	if (fn)
		rc = mi_side_scan(t, MI_SIDE_DIAGS, NULL, 0, each_file, &f);
	mi_side_abort(t);
	return rc;
}
