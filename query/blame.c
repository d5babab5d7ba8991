/*
 * blame.c - read_file {with_blame}: the last commit of each symbol, as
 * `mcpidx build --blame` stored it beside the index (format.h "blame"),
 * written under the symbol as "V* last commit abc1234 by Ann Lee,
 * 2026-11-20".  Git never runs here: a file whose content changed since
 * its blame was computed is an error that says to rebuild with --blame.
 */
#include "query_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The blame store, opened on first use once it exists.  NULL: none. */
static mi_store *blame_get(mi_query *q)
{
	mi_store *s;
	pthread_mutex_lock(&q->side_mu);
	if (!q->blame) {
		char *dir = mi_blame_locate(q->path);
		if (dir && mi_store_open_dbs(dir, MI_STORE_RDONLY, mi_blame_dbs, 1, &q->blame) &&
		    mi_store_open_dbs(dir, MI_STORE_RDONLY | MI_STORE_NOLOCK, mi_blame_dbs, 1,
				      &q->blame))
			q->blame = NULL;
		free(dir);
	}
	s = q->blame;
	pthread_mutex_unlock(&q->side_mu);
	return s;
}

/* Appends line to *note ('\n' between lines). */
static void note_add(char **note, const char *line)
{
	mi_buf b = {0};
	if (*note) {
		mi_buf_adds(&b, *note);
		mi_buf_addc(&b, '\n');
		free(*note);
	}
	mi_buf_adds(&b, line);
	*note = mi_buf_detach(&b);
}

int mi_q_blame(mi_query *q, const char *path, const uint8_t hash[16],
	       const mi_parsed *p, char ***notes, mi_out *out)
{
	mi_store *bs = blame_get(q);
	mi_txn *t;
	const void *v;
	size_t vl, n = 0;
	mi_blame_sym *syms = NULL;
	int rc;
	if (!bs)
		return mi_out_error(out, MI_ERR_NOTFOUND, "This index keeps no blame: build it "
				    "with `mcpidx build --blame REPO` (git is read at build time, "
				    "never by read_file).");
	if ((rc = mi_txn_begin(bs, false, &t)))
		return mi_out_error(out, rc, "Cannot read the blame beside %s: %s", q->path,
				    mi_strerror(rc));
	rc = mi_get(t, 0, path, strlen(path), &v, &vl);
	if (!rc)
		rc = mi_blame_decode(v, vl, hash, &syms, &n);
	mi_txn_abort(t);
	if (rc == MI_ERR_NOTFOUND || rc == ESTALE)
		return mi_out_error(out, rc, "The blame of %s is older than the index: run "
				    "`mcpidx build --blame REPO` again.", path);
	if (rc)
		return mi_out_error(out, rc, "The blame of %s cannot be read: %s; run `mcpidx "
				    "build --blame REPO` again.", path, mi_strerror(rc));
	if (!*notes)
		*notes = mi_xcalloc(p->nsyms + 1, sizeof(**notes));
	for (size_t i = 0; i < n; i++) {
		mi_buf line = {0};
		if (syms[i].idx >= p->nsyms)
			continue;
		if (!strcmp(syms[i].commit, "uncommitted"))
			mi_buf_adds(&line, "last change not committed yet");
		else
			mi_buf_addf(&line, "last commit %s by %s, %s", syms[i].commit,
				    syms[i].author, syms[i].date);
		note_add(&(*notes)[syms[i].idx], line.buf);
		mi_buf_release(&line);
	}
	mi_blame_free(syms, n);
	return 0;
}
