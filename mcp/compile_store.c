/*
 * compile_store.c - the latest compile beside the index: its task log (the last
 * MI_COMPILE_KEEP of them, so read_task_log works from any process) and the
 * diagnostics of each file it names, with the file's content hash, in the
 * side store (format/side.h).  The index itself is never written.
 */
#include "compile_int.h"
#include "../format/side.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TASK_KIND "task"          /* task logs: "" \0 "task" \0 task id */
#define LATEST_KIND "compile-latest" /* "" \0 "compile-latest" \0 "": corr = task id */
/* Files over this are not hashed: the build's default --max-size, so the
 * index does not hold them (and a message cannot make us read 800 MB). */
#define MI_COMPILE_FILE_MAX ((size_t)1 << 20)

/* One file's diagnostics, built before the write transaction. */
typedef struct file_diags {
	char *path;          /* repo-relative */
	uint8_t hash[16];    /* content hash now */
	mi_buf text;         /* mi_cdiag lines */
} file_diags;

/* A stored task log and when it was written. */
typedef struct task_age {
	char *id;
	int64_t ms;
} task_age;

/* What the write transaction does, from this only (it may be redone). */
typedef struct store_ctx {
	const mi_compile_log *log;
	const char *json;          /* the log as JSON */
	file_diags *files;
	size_t nfiles;
	/* collected inside the transaction */
	char **old;                /* paths with diagnostics from before */
	size_t nold, capold;
	task_age *tasks;
	size_t ntasks, captasks;
} store_ctx;

static int collect(void *ctx, const mi_side_rec *r)
{
	store_ctx *c = ctx;
	if (r->path[0] && !strcmp(r->kind, MI_CDIAG_KIND)) {
		if (c->nold == c->capold) {
			c->capold = c->capold ? 2 * c->capold : 16;
			c->old = mi_xrealloc(c->old, c->capold * sizeof *c->old);
		}
		c->old[c->nold++] = mi_xstrdup(r->path);
	} else if (!r->path[0] && !strcmp(r->kind, TASK_KIND)) {
		if (c->ntasks == c->captasks) {
			c->captasks = c->captasks ? 2 * c->captasks : 16;
			c->tasks = mi_xrealloc(c->tasks, c->captasks * sizeof *c->tasks);
		}
		c->tasks[c->ntasks].id = mi_xstrdup(r->name);
		c->tasks[c->ntasks++].ms = r->created_ms;
	}
	return 0;
}

static void collected_release(store_ctx *c)
{
	for (size_t i = 0; i < c->nold; i++)
		free(c->old[i]);
	for (size_t i = 0; i < c->ntasks; i++)
		free(c->tasks[i].id);
	free(c->old);
	free(c->tasks);
	c->old = NULL;
	c->tasks = NULL;
	c->nold = c->capold = c->ntasks = c->captasks = 0;
}

static int cmp_task_age(const void *a, const void *b)
{
	const task_age *x = a, *y = b;
	return (x->ms < y->ms) - (x->ms > y->ms); /* newest first */
}

static int write_fn(mi_side_txn *t, void *ctx)
{
	store_ctx *c = ctx;
	mi_side_rec r;
	int rc;
	collected_release(c);
	if ((rc = mi_side_scan(t, MI_SIDE_DIAGS, NULL, 0, collect, c)))
		return rc;
	/* the previous compile's diagnostics go, whatever it named */
	for (size_t i = 0; i < c->nold; i++)
		if ((rc = mi_side_del(t, MI_SIDE_DIAGS, c->old[i], MI_CDIAG_KIND, "")) &&
		    rc != MI_ERR_NOTFOUND)
			return rc;
	for (size_t i = 0; i < c->nfiles; i++) {
		memset(&r, 0, sizeof r);
		r.path = c->files[i].path;
		r.kind = MI_CDIAG_KIND;
		r.name = "";
		memcpy(r.hash, c->files[i].hash, 16);
		r.has_hash = true;
		r.corr = c->log->task_id;
		r.text = c->files[i].text.buf;
		r.text_len = c->files[i].text.len;
		if ((rc = mi_side_put(t, MI_SIDE_DIAGS, &r)))
			return rc;
	}
	memset(&r, 0, sizeof r);
	r.kind = TASK_KIND;
	r.name = c->log->task_id;
	r.corr = c->log->task_id;
	r.num = c->log->exit_code;
	r.text = c->json;
	r.text_len = strlen(c->json);
	if ((rc = mi_side_put(t, MI_SIDE_DIAGS, &r)))
		return rc;
	memset(&r, 0, sizeof r);
	r.kind = LATEST_KIND;
	r.corr = c->log->task_id;
	r.text = c->log->target;
	r.text_len = strlen(c->log->target);
	if ((rc = mi_side_put(t, MI_SIDE_DIAGS, &r)))
		return rc;
	/* keep the newest MI_COMPILE_KEEP logs, this one among them */
	if (c->ntasks)
		qsort(c->tasks, c->ntasks, sizeof *c->tasks, cmp_task_age);
	for (size_t i = MI_COMPILE_KEEP - 1; i < c->ntasks; i++)
		if (strcmp(c->tasks[i].id, c->log->task_id) &&
		    (rc = mi_side_del(t, MI_SIDE_DIAGS, "", TASK_KIND, c->tasks[i].id)) &&
		    rc != MI_ERR_NOTFOUND)
			return rc;
	return 0;
}

int mi_compile_store(const char *index_path, const char *root, const mi_compile_log *l,
		     mi_buf *err)
{
	store_ctx c = {.log = l};
	mi_buf json = {0};
	mi_side *side = NULL;
	char *dir = mi_side_locate(index_path, NULL);
	int rc;

	if (!dir) {
		mi_buf_addf(err, "no index at %s, so the compile's diagnostics cannot be kept "
			    "beside it; build one first: mcpidx build %s", index_path, root);
		return MI_ERR_NOINDEX;
	}
	/* the files the messages name, each once, with its hash now (read
	 * as the build reads them: a link out of the repository, a FIFO or
	 * a file over MI_COMPILE_FILE_MAX is none of its files) */
	int rootfd = mi_dir_open(root);
	for (size_t i = 0; i < l->n; i++) {
		const mi_compile_msg *m = &l->msgs[i];
		file_diags *f = NULL;
		char *src = NULL;
		size_t len = 0;
		if (m->group == MI_GROUP_INFO || !m->path || m->path[0] == '/')
			continue;
		for (size_t k = 0; k < c.nfiles && !f; k++)
			if (!strcmp(c.files[k].path, m->path))
				f = &c.files[k];
		if (!f) {
			if (mi_read_file_beneath(root, rootfd, m->path, MI_COMPILE_FILE_MAX, &src, &len))
				continue; /* not a file of the repository */
			c.files = mi_xrealloc(c.files, (c.nfiles + 1) * sizeof *c.files);
			f = &c.files[c.nfiles++];
			memset(f, 0, sizeof *f);
			f->path = mi_xstrdup(m->path);
			mi_hash128(src, len, f->hash);
			free(src);
		}
		mi_cdiag_add(&f->text, m->group == MI_GROUP_ERROR ? 'E' : 'W', m->line, m->col, m->text);
		if (m->hint)
			mi_cdiag_add(&f->text, 'H', m->line, m->col, m->hint);
	}
	if (rootfd >= 0)
		close(rootfd);
	mi_compile_log_json(l, &json);
	c.json = json.buf;
	if ((rc = mi_side_open(dir, MI_SIDE_CREATE, &side))) {
		mi_buf_addf(err, "cannot open the side store %s: %s (set MCPIDX_SIDE to a "
			    "writable directory)", dir, mi_strerror(rc));
		goto out;
	}
	if ((rc = mi_side_write(side, write_fn, &c)))
		mi_buf_addf(err, "cannot store the compile in %s: %s", dir, mi_strerror(rc));
out:
	collected_release(&c);
	for (size_t i = 0; i < c.nfiles; i++) {
		free(c.files[i].path);
		mi_buf_release(&c.files[i].text);
	}
	free(c.files);
	mi_side_close(side);
	mi_buf_release(&json);
	free(dir);
	return rc;
}

int mi_compile_load(const char *index_path, const char *task_id, mi_compile_log *l)
{
	char *dir = mi_side_locate(index_path, NULL);
	mi_side *side = NULL;
	mi_side_txn *t = NULL;
	mi_side_rec r;
	int rc;

	memset(l, 0, sizeof *l);
	if (!dir)
		return MI_ERR_NOTFOUND;
	if ((rc = mi_side_open(dir, 0, &side)))
		goto out;
	if ((rc = mi_side_begin(side, false, &t)))
		goto out;
	if (!(rc = mi_side_get(t, MI_SIDE_DIAGS, "", TASK_KIND, task_id, &r)))
		rc = mi_compile_log_parse(r.text, r.text_len, l);
	mi_side_abort(t);
out:
	if (rc == MI_ERR_NOINDEX)
		rc = MI_ERR_NOTFOUND;
	mi_side_close(side);
	free(dir);
	return rc;
}
