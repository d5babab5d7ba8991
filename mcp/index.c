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
	if (mi_mcp_index_get(e, &q, &err) == 0)
		mi_mcp_index_put(e);
	mi_buf_release(&err);
	return atomic_load(&e->generation);
}

/* ---- lifecycle ------------------------------------------------------------------------ */

int mi_mcp_env_init(mi_mcp_env *e, const mi_mcp_opts *o)
{
	mi_buf err = {0};
	struct stat st;
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
	pthread_rwlock_init(&e->qlock, NULL);
	resolve_index(o->index, &e->index_path, &e->repo_path);
	e->packed = stat(e->index_path, &st) == 0 && S_ISREG(st.st_mode);
	e->repo_real = realpath(e->repo_path, NULL);
	for (size_t i = 0; o->allow_roots && o->allow_roots[i]; i++) {
		char *r = realpath(o->allow_roots[i], NULL);
		if (!r || stat(r, &st) != 0 || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "mcpidx serve: --allow-root %s: %s\n",
				o->allow_roots[i], r ? "not a directory" : strerror(errno));
			free(r);
			mi_mcp_env_release(e);
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

void mi_mcp_env_release(mi_mcp_env *e)
{
	if (e->q)
		mi_query_close(e->q);
	e->q = NULL;
	if (mi_mcp_log_dropped(e->log))
		mi_mcp_log_at(e, MI_LOG_WARNING, "%llu log lines were dropped in all",
			      (unsigned long long)mi_mcp_log_dropped(e->log));
	mi_mcp_log_close(e->log);
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
