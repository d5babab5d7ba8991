/*
 * build.c - index_codebase's work: which tree a request may build (the
 * served repository, or one under an --allow-root; never a packed index),
 * and `mcpidx build` run as a child process whose progress lines (read from
 * --progress-fd) become progress on the request.  Cancelling kills the
 * child; the build commits in one transaction, so the old index stays whole.
 */
#include "area.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MI_OUTPUT_CAP 16384           /* build output kept for the answer */

static pthread_mutex_t bd_mu = PTHREAD_MUTEX_INITIALIZER;

/* Paths with a build running (one per repository at a time). */
typedef struct mi_building {
	char *path;                /* absolute repository path */
	struct mi_building *next;  /* next running build */
} mi_building;
static mi_building *bd_building;


/* ---- running the build --------------------------------------------------- */

static bool claim_path(const char *path)
{
	mi_building *b;
	pthread_mutex_lock(&bd_mu);
	for (b = bd_building; b; b = b->next)
		if (strcmp(b->path, path) == 0) {
			pthread_mutex_unlock(&bd_mu);
			return false;
		}
	b = mi_xmalloc(sizeof *b);
	b->path = mi_xstrdup(path);
	b->next = bd_building;
	bd_building = b;
	pthread_mutex_unlock(&bd_mu);
	return true;
}

static void release_path(const char *path)
{
	mi_building **pp, *b;
	pthread_mutex_lock(&bd_mu);
	for (pp = &bd_building; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->path, path) == 0) {
			b = *pp;
			*pp = b->next;
			free(b->path);
			free(b);
			break;
		}
	pthread_mutex_unlock(&bd_mu);
}

/* A progress line: "DONE/TOTAL message", "DONE TOTAL message" or text. */
static void parse_progress(const char *line, double *done, double *total)
{
	char *end;
	const char *p = line;
	*done = -1;
	*total = 0;
	while (*p && (*p < '0' || *p > '9'))
		p++;
	if (!*p)
		return;
	*done = strtod(p, &end);
	if (*end == '/' || *end == ' ') {
		char *e2;
		double t = strtod(end + 1, &e2);
		if (e2 != end + 1)
			*total = t;
	}
}

typedef struct mi_build_state {
	mi_mcp_ctx *c;       /* the request: progress goes there */
	mi_mcp_env *env;     /* the server: stopping ends the build too */
	double last;         /* last progress value */
	double total;        /* last total reported, 0 = unknown */
} mi_build_state;

/* A line of the build's --progress-fd (mi_child_opts.on_fd3). */
static void on_progress_line(void *arg, const char *raw, size_t len)
{
	mi_build_state *st = arg;
	double done, total;
	char nice[96];
	const char *line = raw;
	parse_progress(raw, &done, &total);
	if (strncmp(raw, "progress ", 9) == 0 && done >= 0) {
		if (total > 0)
			snprintf(nice, sizeof nice, "indexed %.0f of %.0f files",
				 done, total);
		else
			snprintf(nice, sizeof nice, "indexed %.0f files", done);
		line = nice;
	}
	if (total > 0)
		st->total = total;
	if (done < 0) {
		/* A line of text: a step forward, never past the total. */
		done = st->last + 1;
		if (st->total > 0 && done >= st->total)
			return;
	} else if (done <= st->last) {
		return;        /* no step forward: progress only rises */
	}
	st->last = done;
	st->c->progress(st->c, done, total, line);
}


/* Whether the build should end: the request cancelled, or the server
 * stopping (mi_child_opts.stop). */
static bool build_stop(void *arg)
{
	mi_build_state *st = arg;
	return st->c->cancelled(st->c) || atomic_load(&st->env->stopping);
}

/* Runs one child build (mi_child_run: its own process group, killed with
 * what it started when cancelled); the last MI_OUTPUT_CAP bytes of its
 * output in r->output. */
static int spawn_build(mi_mcp_env *s, const mi_mcp_target *bt, bool force,
		       bool progress_fd, mi_build_state *st, mi_child_result *r)
{
	const char *argv[10];
	int argc = 0;

	argv[argc++] = s->self_exe;
	argv[argc++] = "build";
	argv[argc++] = bt->root;
	if (force)
		argv[argc++] = "--force";
	if (bt->index) {
		argv[argc++] = "--out";
		argv[argc++] = bt->index;
	}
	if (progress_fd) {
		argv[argc++] = "--progress-fd";
		argv[argc++] = "3";
	}
	argv[argc] = NULL;
	mi_child_opts o = {.argv = (char *const *)argv, .cap = MI_OUTPUT_CAP, .tail = true,
			   .stop = build_stop, .ctx = st,
			   .on_fd3 = progress_fd ? on_progress_line : NULL};
	return mi_child_run(&o, r);
}

static void trim_output(mi_buf *o)
{
	while (o->len && (o->buf[o->len - 1] == '\n' || o->buf[o->len - 1] == ' '))
		o->buf[--o->len] = 0;
}

/* True when dir is root or lies under it (both real paths). */
static bool path_within(const char *dir, const char *root)
{
	return mi_path_below(root, dir) != NULL;
}

/* The repository the served index was built from: the parent of a .mcpidx
 * directory, or the root recorded in an index kept elsewhere (--out). */
static char *served_root(mi_mcp_env *s, mi_buf *err)
{
	mi_query *q;
	json_t *j, *root;
	char *r = NULL;
	size_t n = strlen(s->index_path);
	if (n >= 8 && strcmp(s->index_path + n - 8, "/.mcpidx") == 0)
		return s->repo_real ? mi_xstrdup(s->repo_real) : NULL;
	if (mi_mcp_index_get(s, &q, err))
		return NULL;
	{
		mi_out o;
		memset(&o, 0, sizeof o);
		if (!mi_query_stats(q, &o) && o.json.len) {
			j = json_loadb(o.json.buf, o.json.len, 0, NULL);
			root = json_object_get(j, "root");
			if (json_is_string(root))
				r = realpath(json_string_value(root), NULL);
			json_decref(j);
		}
		mi_out_release(&o);
	}
	mi_mcp_index_put(s);
	if (!r)
		mi_buf_addf(err, "the index at %s does not name a repository on this "
			    "machine; serve the repository's directory instead",
			    s->index_path);
	return r;
}

int mi_mcp_build_target(mi_mcp_env *s, const char *given, mi_mcp_target *bt,
			mi_buf *err)
{
	mi_buf p = {0};
	struct stat sb;
	char *served = NULL, *real = NULL;
	char **ar;
	int rc = MI_ERR_ARG;

	memset(bt, 0, sizeof *bt);
	if (s->packed) {
		mi_buf_addf(err, "The served index %s is a packed, read-only artifact: "
			    "index_codebase cannot rebuild it. Rebuild it where it was "
			    "made (mcpidx build REPO; mcpidx pack REPO/.mcpidx -o FILE), "
			    "or serve the repository directory instead.", s->index_path);
		goto out;
	}
	served = served_root(s, err);
	if (!served) {
		if (!err->len)
			mi_buf_addf(err, "The served repository %s does not exist.",
				    s->repo_path);
		goto out;
	}
	if (!given || !*given)
		given = served;
	if (given[0] != '/')
		mi_buf_addf(&p, "%s/%s", served, given);
	else
		mi_buf_adds(&p, given);
	real = realpath(p.buf, NULL);
	if (!real || stat(real, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		mi_buf_addf(err, "Path does not exist or is not a directory: %s. Pass "
			    "the repository's directory (relative paths start at %s).",
			    given, served);
		goto out;
	}
	if (strcmp(real, served) == 0) {
		size_t n = strlen(s->index_path);
		bt->served = true;
		if (!(n >= 8 && strcmp(s->index_path + n - 8, "/.mcpidx") == 0))
			bt->index = mi_xstrdup(s->index_path);
	} else {
		for (ar = s->allow_real; ar && *ar; ar++)
			if (path_within(real, *ar))
				break;
		if (!ar || !*ar) {
			mi_buf_addf(err, "index_codebase builds only the repository this "
				    "server serves (%s); %s is outside it. To let it build "
				    "other trees, start the server with --allow-root DIR.",
				    served, real);
			goto out;
		}
	}
	bt->root = real;
	real = NULL;
	rc = 0;
out:
	free(real);
	free(served);
	mi_buf_release(&p);
	return rc;
}

void mi_mcp_target_release(mi_mcp_target *bt)
{
	free(bt->root);
	free(bt->index);
	memset(bt, 0, sizeof *bt);
}

void mi_mcp_build_run(mi_mcp_ctx *c, const mi_mcp_target *bt, bool force,
		      mi_mcp_result *r)
{
	mi_build_state st;
	mi_child_result run = {0};
	mi_buf qerr = {0}, idx = {0};
	mi_buf *output = &run.output;
	mi_out stats;
	mi_query *q;
	mi_mcp_env *s = c->env;
	const char *abs = bt->root;
	int err;
	int64_t t0 = mi_mcp_now_us();
	double secs;

	memset(&st, 0, sizeof st);
	memset(&stats, 0, sizeof stats);
	st.c = c;
	st.env = s;
	if (!claim_path(abs)) {
		mi_mcp_result_error(r, "A build of %s is already running; wait for it "
				  "(tasks/result) or cancel it (tasks/cancel).", abs);
		goto out;
	}
	mi_mcp_log(s, "build %s%s: starting %s", abs, force ? " --force" : "",
		   s->self_exe);
	c->progress(c, 0, 0, "starting the build");
	err = spawn_build(s, bt, force, true, &st, &run);
	if (!err && run.exit_code == 2 && strstr(mi_buf_str(output), "progress-fd") &&
	    !run.cancelled) {
		/* A build command without --progress-fd: run it without. */
		mi_child_result_release(&run);
		err = spawn_build(s, bt, force, false, &st, &run);
	}
	release_path(abs);
	secs = (double)(mi_mcp_now_us() - t0) / 1e6;
	trim_output(output);
	if (err) {
		mi_mcp_result_error(r, "Could not start %s build %s: %s.", s->self_exe,
				  abs, strerror(err));
		goto out;
	}
	if (run.cancelled) {
		mi_mcp_log(s, "build %s: cancelled after %.1fs", abs, secs);
		mi_mcp_result_error(r, "Build of %s cancelled after %.1fs; the "
				  "previous index (if any) is unchanged.", abs, secs);
		goto out;
	}
	if (run.exit_code != 0) {
		mi_mcp_log(s, "build %s: failed with exit %d", abs, run.exit_code);
		mi_mcp_result_error(r, "mcpidx build %s failed (exit %d) after %.1fs; "
				  "the previous index (if any) is unchanged.\n%s", abs,
				  run.exit_code, secs, mi_buf_str(output));
		goto out;
	}
	mi_mcp_log(s, "build %s: done in %.1fs", abs, secs);
	if (st.total <= 0 || st.last < st.total)
		c->progress(c, st.total > st.last ? st.total : st.last + 1,
			    st.total > st.last ? st.total : st.last + 1, "build finished");
	if (bt->served) {
		if (mi_mcp_index_get(s, &q, &qerr) == 0) {
			mi_query_stats(q, &stats);
			mi_mcp_index_put(s);
		}
	} else {
		/* Another allowed tree: report its index, never serve it. */
		mi_buf_addf(&idx, "%s/.mcpidx", abs);
		if (mi_query_open(idx.buf, &q, &qerr) == 0) {
			mi_query_stats(q, &stats);
			mi_query_close(q);
		}
	}
	mi_buf_addf(&r->out.text, "Indexed %s in %.1fs.\n", abs, secs);
	if (output->len)
		mi_buf_addf(&r->out.text, "%s\n", output->buf);
	mi_buf_adds(&r->out.json, "{\"path\":");
	mi_buf_add_json_str(&r->out.json, abs, strlen(abs));
	mi_buf_addf(&r->out.json, ",\"status\":\"completed\",\"exit_code\":0,"
		    "\"seconds\":%.3f", secs);
	if (!stats.is_error && stats.json.len) {
		mi_buf_adds(&r->out.json, ",\"stats\":");
		mi_buf_add(&r->out.json, stats.json.buf, stats.json.len);
	}
	mi_buf_adds(&r->out.json, ",\"output\":");
	mi_buf_add_json_str(&r->out.json, mi_buf_str(output), output->len);
	mi_buf_addc(&r->out.json, '}');
out:
	mi_out_release(&stats);
	mi_child_result_release(&run);
	mi_buf_release(&qerr);
	mi_buf_release(&idx);
}

