/*
 * index.c - the served index, below every area: where it is, which
 * repository it belongs to, the lazily opened query handle (reopened when a
 * rebuild replaces the data file), the trees index_codebase may build, and
 * the server log.
 */
#include "area.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- log ---------------------------------------------------------------------- */

void mi_mcp_log(mi_mcp_env *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	mi_mcp_logv(e->log, MI_LOG_INFO, fmt, ap);
	va_end(ap);
}

void mi_mcp_log_at(mi_mcp_env *e, int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	mi_mcp_logv(e->log, level, fmt, ap);
	va_end(ap);
}

/* ---- paths ---------------------------------------------------------------------- */

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *abs_path(const char *p)
{
	char *r = realpath(p, NULL);
	mi_buf b = {0};
	char cwd[PATH_MAX];
	if (r)
		return r;
	if (p[0] == '/' || !getcwd(cwd, sizeof cwd))
		return mi_xstrdup(p);
	mi_buf_addf(&b, "%s/%s", cwd, p);
	return mi_buf_detach(&b);
}

static bool base_is_index(const char *p)
{
	size_t n = strlen(p);
	while (n > 1 && p[n - 1] == '/')
		n--;
	return n >= 7 && memcmp(p + n - 7, ".mcpidx", 7) == 0 &&
	       (n == 7 || p[n - 8] == '/');
}

/* INDEX may name an index directory, a packed index file or a repository
 * (whose index is REPO/.mcpidx, possibly not built yet). */
static void resolve_index(const char *given, char **index, char **repo)
{
	struct stat st;
	mi_buf b = {0};
	char *a = abs_path(given && *given ? given : ".");
	char *d;
	mi_buf_addf(&b, "%s/data.mdb", a);
	if ((stat(a, &st) == 0 && S_ISREG(st.st_mode)) ||
	    access(b.buf, F_OK) == 0 || base_is_index(a)) {
		*index = a;
		d = mi_xstrdup(a);
		*repo = mi_xstrdup(dirname(d));
		free(d);
	} else {
		mi_buf_reset(&b);
		mi_buf_addf(&b, "%s/.mcpidx", a);
		*index = mi_buf_detach(&b);
		*repo = a;
	}
	mi_buf_release(&b);
}

/* The file whose identity tells whether the index was replaced. */
static void data_file(const char *index, mi_buf *out)
{
	mi_buf_reset(out);
	if (is_dir(index))
		mi_buf_addf(out, "%s/data.mdb", index);
	else
		mi_buf_adds(out, index);
}

/* ---- the query handle -------------------------------------------------------------- */

int mi_mcp_index_get(mi_mcp_env *e, mi_query **q, mi_buf *err)
{
	mi_buf df = {0}, oerr = {0};
	struct stat st;
	int rc = 0, tries;
	*q = NULL;
	for (tries = 0; tries < 4; tries++) {
		bool have;
		pthread_rwlock_rdlock(&e->qlock);
		data_file(e->index_path, &df);
		have = stat(df.buf, &st) == 0;
		if (have && e->q && e->q_dev == st.st_dev && e->q_ino == st.st_ino) {
			*q = e->q;
			goto out;
		}
		if (!have) {
			mi_buf_addf(err, "No index at %s. Run: mcpidx build %s "
				    "(or call the index_codebase tool).",
				    e->index_path, e->repo_path);
			pthread_rwlock_unlock(&e->qlock);
			rc = MI_ERR_NOINDEX;
			goto out;
		}
		pthread_rwlock_unlock(&e->qlock);
		pthread_rwlock_wrlock(&e->qlock);
		data_file(e->index_path, &df);
		if (stat(df.buf, &st) == 0 &&
		    !(e->q && e->q_dev == st.st_dev && e->q_ino == st.st_ino)) {
			mi_query *nq = NULL;
			if (e->q)
				mi_query_close(e->q);
			e->q = NULL;
			mi_buf_reset(&oerr);
			rc = mi_query_open(e->index_path, &nq, &oerr);
			if (rc) {
				if (oerr.len)
					mi_buf_add(err, oerr.buf, oerr.len);
				if (oerr.len && rc == MI_ERR_VERSION)
					mi_buf_adds(err, " (or call the index_codebase tool "
						    "with force true).");
				else if (!oerr.len)
					mi_buf_addf(err, "cannot open the index at %s: %s. "
						    "Rebuild it: mcpidx build --force %s",
						    e->index_path, mi_strerror(rc),
						    e->repo_path);
				pthread_rwlock_unlock(&e->qlock);
				goto out;
			}
			/* A workspace merges search hits by their scores. */
			mi_query_set_scores(nq, e->opts && e->opts->repo_indexes &&
					    e->opts->repo_indexes[0] &&
					    e->opts->repo_indexes[1]);
			e->q = nq;
			e->q_dev = st.st_dev;
			e->q_ino = st.st_ino;
			atomic_fetch_add(&e->generation, 1);
			mi_mcp_log(e, "opened index %s", e->index_path);
		}
		pthread_rwlock_unlock(&e->qlock);
	}
	mi_buf_addf(err, "the index at %s keeps changing under the server; "
		    "retry when the build has finished", e->index_path);
	rc = MI_ERR_CORRUPT;
out:
	mi_buf_release(&df);
	mi_buf_release(&oerr);
	return rc;
}

void mi_mcp_index_put(mi_mcp_env *e)
{
	pthread_rwlock_unlock(&e->qlock);
}

uint64_t mi_mcp_index_poll(mi_mcp_env *e)
{
	mi_query *q;
	mi_buf err = {0};
	uint64_t g = 0;
	for (size_t i = 0; i < e->nrepos; i++) {
		mi_mcp_env *r = e->repos ? e->repos[i] : e;
		mi_buf_reset(&err);
		if (mi_mcp_index_get(r, &q, &err) == 0)
			mi_mcp_index_put(r);
		g += atomic_load(&r->generation);
	}
	mi_buf_release(&err);
	return g;
}

/* ---- lifecycle ------------------------------------------------------------------------ */

/* The part of an env every repository has: its index, repository, the
 * trees index_codebase may build and the binary it runs. */
static int env_setup(mi_mcp_env *e, const mi_mcp_opts *o, const char *index)
{
	struct stat st;
	pthread_rwlock_init(&e->qlock, NULL);
	resolve_index(index, &e->index_path, &e->repo_path);
	e->packed = stat(e->index_path, &st) == 0 && S_ISREG(st.st_mode);
	e->repo_real = realpath(e->repo_path, NULL);
	for (size_t i = 0; o->allow_roots && o->allow_roots[i]; i++) {
		char *r = realpath(o->allow_roots[i], NULL);
		if (!r || stat(r, &st) != 0 || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "mcpidx serve: --allow-root %s: %s\n",
				o->allow_roots[i], r ? "not a directory" : strerror(errno));
			free(r);
			return MI_ERR_ARG;
		}
		e->allow_real = mi_xrealloc(e->allow_real, (i + 2) * sizeof *e->allow_real);
		e->allow_real[i] = r;
		e->allow_real[i + 1] = NULL;
	}
	if (o->self_exe && *o->self_exe)
		e->self_exe = abs_path(o->self_exe);
	else
		e->self_exe = mi_exe_path(NULL);
	return 0;
}

int mi_mcp_env_init(mi_mcp_env *e, const mi_mcp_opts *o)
{
	mi_buf err = {0};
	size_t n = 0;
	int level, rc;
	memset(e, 0, sizeof *e);
	e->opts = o;
	level = o->log_level ? mi_mcp_level_parse(o->log_level) :
		o->log_file && *o->log_file ? MI_LOG_DEBUG : MI_LOG_INFO;
	if (level < 0) {
		fprintf(stderr, "mcpidx serve: unknown --log-level %s: use debug, "
			"info, warning, error or off\n", o->log_level);
		return MI_ERR_ARG;
	}
	rc = mi_mcp_log_open(&e->log, o->log_file, level, &err);
	if (rc) {
		fprintf(stderr, "mcpidx serve: %s\n", err.buf);
		mi_buf_release(&err);
		return rc;
	}
	while (o->repo_indexes && o->repo_indexes[n])
		n++;
	e->nrepos = 1;
	rc = env_setup(e, o, n ? o->repo_indexes[0] : o->index);
	if (!rc && n)
		e->name = o->repo_names[0];
	if (!rc && n > 1) {
		e->repos = mi_xcalloc(n + 1, sizeof *e->repos);
		e->repos[0] = e;
		for (size_t i = 1; i < n && !rc; i++) {
			mi_mcp_env *r = mi_xcalloc(1, sizeof *r);
			r->opts = o;
			r->log = e->log;
			r->shared = true;
			r->name = o->repo_names[i];
			r->nrepos = 1;
			e->repos[i] = r;
			rc = env_setup(r, o, o->repo_indexes[i]);
		}
		e->nrepos = n;
	}
	if (rc)
		mi_mcp_env_release(e);
	return rc;
}

void mi_mcp_env_release(mi_mcp_env *e)
{
	for (size_t i = 1; e->repos && e->repos[i]; i++) {
		mi_mcp_env_release(e->repos[i]);
		free(e->repos[i]);
	}
	free(e->repos);
	e->repos = NULL;
	if (e->q)
		mi_query_close(e->q);
	e->q = NULL;
	if (!e->shared) {
		if (mi_mcp_log_dropped(e->log))
			mi_mcp_log_at(e, MI_LOG_WARNING, "%llu log lines were dropped in all",
				      (unsigned long long)mi_mcp_log_dropped(e->log));
		mi_mcp_log_close(e->log);
	}
	e->log = NULL;
	free(e->repo_real);
	for (size_t i = 0; e->allow_real && e->allow_real[i]; i++)
		free(e->allow_real[i]);
	free(e->allow_real);
	free(e->index_path);
	free(e->repo_path);
	free(e->self_exe);
	pthread_rwlock_destroy(&e->qlock);
	memset(e, 0, sizeof *e);
}

/* ---- a workspace ------------------------------------------------------------------------ */

mi_mcp_env *mi_mcp_env_repo(mi_mcp_env *e, const char *name)
{
	if (!e->repos)
		return !name || (e->name && strcmp(e->name, name) == 0) ? e : NULL;
	for (size_t i = 0; e->repos[i]; i++)
		if (name && strcmp(e->repos[i]->name, name) == 0)
			return e->repos[i];
	return NULL;
}

bool mi_mcp_env_holds(mi_mcp_env *e, const char *path, mi_buf *norm)
{
	const char *repo = e->repo_real ? e->repo_real : e->repo_path;
	mi_buf n = {0}, err = {0};
	mi_query *q;
	char *src = NULL;
	size_t len;
	bool ok = false;
	if (path[0] == '/' && (!(path = mi_path_below(repo, path)) || !*path))
		goto out;
	if (mi_path_normalize(path, &n) || mi_mcp_index_get(e, &q, &err))
		goto out;
	ok = mi_query_source(q, n.buf, &src, &len) == 0;
	mi_mcp_index_put(e);
	if (ok && norm) {
		mi_buf_reset(norm);
		mi_buf_add(norm, n.buf, n.len);
	}
out:
	free(src);
	mi_buf_release(&n);
	mi_buf_release(&err);
	return ok;
}

void mi_mcp_env_names(const mi_mcp_env *e, mi_buf *out)
{
	for (size_t i = 0; e->repos && e->repos[i]; i++)
		mi_buf_addf(out, "%s%s", i ? ", " : "", e->repos[i]->name);
	if (!e->repos && e->name)
		mi_buf_adds(out, e->name);
}
