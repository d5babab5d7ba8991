/*
 * compile_task.c - one compile from start to end: check the request against the
 * config, run the command, read its output, keep the result beside the
 * index.
 */
#include "compile_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* "NAME=value" for each allowed variable we have, then LC_ALL=C. */
static char **child_env(const mi_compile_target *t)
{
	char **env = mi_xcalloc(t->nenv + 2, sizeof *env);
	size_t n = 0;
	for (size_t i = 0; i < t->nenv; i++) {
		const char *v = getenv(t->env[i]);
		mi_buf b = {0};
		if (!v || !strcmp(t->env[i], "LC_ALL"))
			continue;
		mi_buf_addf(&b, "%s=%s", t->env[i], v);
		env[n++] = mi_buf_detach(&b);
	}
	env[n] = mi_xstrdup("LC_ALL=C");
	return env;
}

static int64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int mi_compile_run(const mi_compile_req *req, mi_compile_log *log, mi_buf *err)
{
	const mi_compile_config *c = req->config;
	const mi_compile_target *t = mi_compile_target_find(c, req->target);
	char **argv = NULL, **env = NULL;
	mi_buf cwd = {0}, cmd = {0}, id = {0};
	mi_child_result rr;
	mi_child_opts ro = {0};
	int rc;

	memset(log, 0, sizeof *log);
	memset(&rr, 0, sizeof rr);
	if (!t) {
		mi_buf_addf(err, "target \"%s\" is not in %s; it names:", req->target ? req->target : "",
			    c->file);
		for (size_t i = 0; i < c->n; i++)
			mi_buf_addf(err, " %s", c->targets[i].name);
		return MI_ERR_ARG;
	}
	if ((rc = mi_compile_argv(t, req->flags, req->nflags, &argv, err)))
		return rc;
	env = child_env(t);
	mi_buf_addf(&cwd, "%s%s%s", c->root, t->cwd[0] ? "/" : "", t->cwd);
	for (size_t i = 0; argv[i]; i++)
		mi_buf_addf(&cmd, "%s%s", i ? " " : "", argv[i]);
	if (req->task_id)
		mi_buf_adds(&id, req->task_id);
	else
		mi_buf_addf(&id, "compile-%lld-%d", (long long)wall_ms(), (int)getpid());
	ro.argv = argv;
	ro.cwd = cwd.buf;
	ro.env = env;
	ro.timeout_s = t->timeout_s;
	ro.cancel = req->cancel;
	ro.on_line = req->on_line;
	ro.ctx = req->ctx;
	if ((rc = mi_child_run(&ro, &rr))) {
		mi_buf_addf(err, "cannot run %s in %s: %s", argv[0], cwd.buf, strerror(rc));
		goto out;
	}
	log->task_id = mi_buf_detach(&id);
	log->target = mi_xstrdup(t->name);
	log->command = mi_buf_detach(&cmd);
	log->exit_code = rr.exit_code;
	log->timed_out = rr.timed_out;
	log->cancelled = rr.cancelled;
	log->dropped = rr.dropped;
	log->seconds = rr.seconds;
	log->finished_ms = wall_ms();
	mi_compile_parse(rr.output.buf, rr.output.len, t->parser, c->root, cwd.buf, &log->msgs,
			 &log->n);
	if (req->index_path)
		mi_compile_store(req->index_path, c->root, log, err);
out:
	mi_child_result_release(&rr);
	mi_compile_argv_free(argv);
	mi_compile_argv_free(env);
	mi_buf_release(&cwd);
	mi_buf_release(&cmd);
	mi_buf_release(&id);
	return rc;
}
