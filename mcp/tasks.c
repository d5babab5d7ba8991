/*
 * tasks.c - index_codebase: runs `mcpidx build` as a child process (its
 * progress read from a pipe and relayed as notifications/progress), either
 * within the tools/call or as an MCP task (2025-11-25: tasks/get, tasks/list,
 * tasks/result, tasks/cancel, and notifications/tasks/status to a stdio
 * client on each terminal transition) that outlives the request.
 * Cancelling kills the child; the build commits atomically, so the old
 * index stays whole.
 */
#include "mcp_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MI_OUTPUT_CAP 16384           /* build output kept for the answer */
#define MI_TASK_TTL_MS 3600000        /* default retention of a finished task */
#define MI_TASK_TTL_MAX 86400000
#define MI_POLL_MS 500

enum { T_WORKING, T_COMPLETED, T_FAILED, T_CANCELLED };
static const char *const mi_task_status[] = {
	"working", "completed", "failed", "cancelled",
};

typedef struct mi_task {
	char id[48];               /* taskId */
	char sid[40];              /* owning session ("" = stdio) */
	int status;                /* T_* */
	char *message;             /* statusMessage, malloc'd */
	char created[32];          /* ISO 8601 */
	char updated[32];
	int64_t created_ms;        /* monotonic, for the ttl */
	int64_t ttl_ms;            /* retention after creation */
	mi_buf result;             /* CallToolResult once terminal */
	atomic_int cancel;         /* set by tasks/cancel or shutdown */
	char *path;                /* what to build */
	bool force;                /* --force */
	mi_mcp_job job;            /* other work than a build (job.run set) */
	pthread_t th;              /* runner thread */
	bool has_thread;           /* th was started */
	mi_mcp_session sess;       /* private view of the session for progress */
	mi_mcp_call call;          /* carries the progress token */
	struct mi_task *next;      /* in tk_list */
} mi_task;

static pthread_mutex_t tk_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tk_cv = PTHREAD_COND_INITIALIZER;
static mi_task *tk_list;
static uint64_t tk_seq;

/* Paths with a build running (one per repository at a time). */
typedef struct mi_building {
	char *path;                /* absolute repository path */
	struct mi_building *next;  /* next running build */
} mi_building;
static mi_building *tk_building;

/* The task whose thread this is, for status messages. */
static __thread struct mi_task *tk_current;

/* ---- running the build --------------------------------------------------- */

static bool claim_path(const char *path)
{
	mi_building *b;
	pthread_mutex_lock(&tk_mu);
	for (b = tk_building; b; b = b->next)
		if (strcmp(b->path, path) == 0) {
			pthread_mutex_unlock(&tk_mu);
			return false;
		}
	b = mi_xmalloc(sizeof *b);
	b->path = mi_xstrdup(path);
	b->next = tk_building;
	tk_building = b;
	pthread_mutex_unlock(&tk_mu);
	return true;
}

static void release_path(const char *path)
{
	mi_building **pp, *b;
	pthread_mutex_lock(&tk_mu);
	for (pp = &tk_building; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->path, path) == 0) {
			b = *pp;
			*pp = b->next;
			free(b->path);
			free(b);
			break;
		}
	pthread_mutex_unlock(&tk_mu);
}

/* Keeps the last MI_OUTPUT_CAP bytes of the child's output. */
static void keep_tail(mi_buf *b, const char *data, size_t n)
{
	mi_buf_add(b, data, n);
	if (b->len > 2 * MI_OUTPUT_CAP) {
		memmove(b->buf, b->buf + b->len - MI_OUTPUT_CAP, MI_OUTPUT_CAP);
		b->len = MI_OUTPUT_CAP;
		b->buf[b->len] = 0;
	}
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
	mi_mcp_call *call;   /* for progress; may be NULL */
	mi_task *task;       /* for statusMessage; may be NULL */
	mi_buf line;         /* partial progress line */
	double last;         /* last progress value */
	double total;        /* last total reported, 0 = unknown */
} mi_build_state;

static void on_progress_line(mi_build_state *st, const char *raw)
{
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
	if (done < 0)
		done = st->last + 1;
	if (done <= st->last)
		done = st->last + 0.001;
	st->last = done;
	if (total > 0)
		st->total = total;
	if (st->call)
		mi_mcp_progress(st->call, done, total, line);
	if (st->task) {
		pthread_mutex_lock(&tk_mu);
		free(st->task->message);
		st->task->message = mi_xstrdup(line);
		mi_mcp_iso_time(st->task->updated);
		pthread_mutex_unlock(&tk_mu);
	}
}

static void on_progress(mi_build_state *st, const char *data, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		if (data[i] == '\n' || data[i] == '\r') {
			if (st->line.len)
				on_progress_line(st, st->line.buf);
			mi_buf_reset(&st->line);
		} else if (st->line.len < 4096) {
			mi_buf_addc(&st->line, data[i]);
		}
	}
}

/* Runs one child build; returns its wait status or -1 (errno in *err). */
static int spawn_build(mi_mcp_server *s, const char *path, bool force,
		       bool progress_fd, atomic_int *cancel, mi_build_state *st,
		       mi_buf *output, bool *cancelled, int *err)
{
	int opipe[2], ppipe[2] = {-1, -1}, wstatus = -1;
	struct pollfd pf[2];
	int64_t kill_at = 0;
	pid_t pid;
	char buf[8192];
	const char *argv[8];
	int argc = 0;

	argv[argc++] = s->self_exe;
	argv[argc++] = "build";
	argv[argc++] = path;
	if (force)
		argv[argc++] = "--force";
	if (progress_fd) {
		argv[argc++] = "--progress-fd";
		argv[argc++] = "3";
	}
	argv[argc] = NULL;
	if (mi_pipe_cloexec(opipe) != 0 ||
	    (progress_fd && mi_pipe_cloexec(ppipe) != 0)) {
		*err = errno;
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		*err = errno;
		close(opipe[0]);
		close(opipe[1]);
		if (progress_fd) {
			close(ppipe[0]);
			close(ppipe[1]);
		}
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(opipe[1], 1);
		dup2(opipe[1], 2);
		if (progress_fd)
			dup2(ppipe[1], 3);
		execv(argv[0], (char *const *)argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(opipe[1]);
	if (progress_fd)
		close(ppipe[1]);
	pf[0].fd = opipe[0];
	pf[0].events = POLLIN;
	pf[1].fd = ppipe[0];
	pf[1].events = POLLIN;
	while (pf[0].fd >= 0 || pf[1].fd >= 0) {
		int i, n = poll(pf, 2, 100);
		if (n < 0 && errno != EINTR)
			break;
		if ((atomic_load(cancel) || atomic_load(&s->stopping)) && !*cancelled) {
			*cancelled = true;
			kill(-pid, SIGTERM);
			kill(pid, SIGTERM);
			kill_at = mi_mcp_now_us() + 3000000;
		}
		if (kill_at && mi_mcp_now_us() > kill_at) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			kill_at = 0;
		}
		for (i = 0; i < 2 && n > 0; i++) {
			ssize_t r;
			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = read(pf[i].fd, buf, sizeof buf);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				close(pf[i].fd);
				pf[i].fd = -1;
				continue;
			}
			if (i == 0)
				keep_tail(output, buf, (size_t)r);
			else
				on_progress(st, buf, (size_t)r);
		}
	}
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	if (pf[0].fd >= 0)
		close(pf[0].fd);
	if (pf[1].fd >= 0)
		close(pf[1].fd);
	return wstatus;
}

static void trim_output(mi_buf *o)
{
	while (o->len && (o->buf[o->len - 1] == '\n' || o->buf[o->len - 1] == ' '))
		o->buf[--o->len] = 0;
}

void mi_mcp_build_run(mi_mcp_server *s, mi_mcp_call *c, atomic_int *cancel,
		      const char *path, bool force, mi_buf *out)
{
	mi_build_state st;
	mi_buf output = {0}, qerr = {0};
	mi_out stats;
	mi_query *q;
	char *abs = realpath(path, NULL);
	struct stat sb;
	bool cancelled = false;
	int wstatus, err = 0, code;
	int64_t t0 = mi_mcp_now_us();
	double secs;

	memset(&st, 0, sizeof st);
	memset(&stats, 0, sizeof stats);
	st.call = c;
	st.task = tk_current;
	if (!abs || stat(abs, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		mi_mcp_tool_error(out, "Path does not exist or is not a directory: %s. "
				  "Pass the repository's directory (absolute, or "
				  "relative to %s).", path, s->repo_path);
		goto out;
	}
	if (!claim_path(abs)) {
		mi_mcp_tool_error(out, "A build of %s is already running; wait for it "
				  "(tasks/result) or cancel it (tasks/cancel).", abs);
		goto out;
	}
	mi_mcp_log(s, "build %s%s: starting %s", abs, force ? " --force" : "",
		   s->self_exe);
	mi_mcp_progress(st.call, 0, 0, "starting the build");
	wstatus = spawn_build(s, abs, force, true, cancel, &st, &output,
			      &cancelled, &err);
	if (wstatus >= 0 && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 2 &&
	    strstr(mi_buf_str(&output), "progress-fd") && !cancelled) {
		/* A build command without --progress-fd: run it without. */
		mi_buf_reset(&output);
		wstatus = spawn_build(s, abs, force, false, cancel, &st, &output,
				      &cancelled, &err);
	}
	if (st.line.len)
		on_progress_line(&st, st.line.buf);
	release_path(abs);
	secs = (double)(mi_mcp_now_us() - t0) / 1e6;
	trim_output(&output);
	if (wstatus < 0) {
		mi_mcp_tool_error(out, "Could not start %s build %s: %s.", s->self_exe,
				  abs, strerror(err));
		goto out;
	}
	if (cancelled) {
		mi_mcp_log(s, "build %s: cancelled after %.1fs", abs, secs);
		mi_mcp_tool_error(out, "Build of %s cancelled after %.1fs; the "
				  "previous index (if any) is unchanged.", abs, secs);
		goto out;
	}
	code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
	if (code != 0) {
		mi_mcp_log(s, "build %s: failed with exit %d", abs, code);
		mi_mcp_tool_error(out, "mcpidx build %s failed (exit %d) after %.1fs; "
				  "the previous index (if any) is unchanged.\n%s", abs,
				  code, secs, mi_buf_str(&output));
		goto out;
	}
	mi_mcp_log(s, "build %s: done in %.1fs", abs, secs);
	mi_mcp_index_built(s, abs);
	if (st.total <= 0 || st.last < st.total)
		mi_mcp_progress(st.call, st.total > st.last ? st.total : st.last + 1,
				st.total > st.last ? st.total : st.last + 1,
				"build finished");
	if (mi_mcp_query_get(s, &q, &qerr) == 0) {
		mi_query_stats(q, &stats);
		mi_mcp_query_put(s);
	}
	mi_buf_adds(out, "{\"content\":[{\"type\":\"text\",\"text\":");
	{
		mi_buf t = {0};
		mi_buf_addf(&t, "Indexed %s in %.1fs.\n", abs, secs);
		if (output.len)
			mi_buf_addf(&t, "%s\n", output.buf);
		mi_buf_add_json_str(out, t.buf, t.len);
		mi_buf_release(&t);
	}
	mi_buf_adds(out, "}],\"structuredContent\":{\"path\":");
	mi_buf_add_json_str(out, abs, strlen(abs));
	mi_buf_addf(out, ",\"status\":\"completed\",\"exit_code\":0,"
		    "\"seconds\":%.3f,\"stats\":", secs);
	if (!stats.is_error && stats.json.len)
		mi_buf_add(out, stats.json.buf, stats.json.len);
	else
		mi_buf_adds(out, "null");
	mi_buf_adds(out, ",\"output\":");
	mi_buf_add_json_str(out, mi_buf_str(&output), output.len);
	mi_buf_adds(out, "},\"isError\":false}");
out:
	mi_out_release(&stats);
	mi_buf_release(&output);
	mi_buf_release(&qerr);
	mi_buf_release(&st.line);
	free(abs);
}

/* ---- tasks ------------------------------------------------------------------ */

static mi_mcp_server *tk_srv;

static void task_json(mi_buf *b, const mi_task *t)
{
	mi_buf_adds(b, "{\"taskId\":");
	mi_buf_add_json_str(b, t->id, strlen(t->id));
	mi_buf_addf(b, ",\"status\":\"%s\"", mi_task_status[t->status]);
	if (t->message) {
		mi_buf_adds(b, ",\"statusMessage\":");
		mi_buf_add_json_str(b, t->message, strlen(t->message));
	}
	mi_buf_addf(b, ",\"createdAt\":\"%s\",\"lastUpdatedAt\":\"%s\","
		    "\"ttl\":%lld,\"pollInterval\":%d}", t->created, t->updated,
		    (long long)t->ttl_ms, MI_POLL_MS);
}

/* notifications/tasks/status: the task as tasks/get shows it, for a client
 * that can hear it after the creating request ended (stdio).  Built while
 * tk_mu is held, sent after it is released. */
typedef struct status_note {
	mi_mcp_sink sink;
	mi_buf msg;
} status_note;

static void note_status(const mi_task *t, status_note *n)
{
	if (!t->sess.sink.send)
		return;
	n->sink = t->sess.sink;
	mi_buf_adds(&n->msg, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tasks/status\","
		    "\"params\":");
	task_json(&n->msg, t);
	mi_buf_addc(&n->msg, '}');
}

static void send_status(status_note *n)
{
	if (n->sink.send && n->msg.len)
		n->sink.send(n->sink.ctx, n->msg.buf, n->msg.len);
	mi_buf_release(&n->msg);
}

static void task_free(mi_task *t)
{
	if (t->job.free_arg)
		t->job.free_arg(t->job.arg);
	mi_buf_release(&t->result);
	free(t->message);
	free(t->path);
	free(t->call.progress);
	free(t);
}

/* Drops finished tasks past their ttl.  Caller holds tk_mu. */
static void purge_locked(void)
{
	mi_task **pp = &tk_list, *t;
	int64_t now = mi_mcp_now_us() / 1000;
	while ((t = *pp)) {
		if (t->result.len && now - t->created_ms > t->ttl_ms) {
			*pp = t->next;
			if (t->has_thread)
				pthread_join(t->th, NULL);
			task_free(t);
		} else {
			pp = &t->next;
		}
	}
}

static void *task_main(void *arg)
{
	mi_task *t = arg;
	mi_buf res = {0};
	bool is_err;
	status_note note = {0};
	tk_current = t;
	if (t->job.run)
		t->job.run(tk_srv, t->call.progress ? &t->call : NULL, &t->cancel, t->id,
			   t->job.arg, &res);
	else
		mi_mcp_build_run(tk_srv, t->call.progress ? &t->call : NULL, &t->cancel,
				 t->path, t->force, &res);
	is_err = strstr(mi_buf_str(&res), "\"isError\":true") != NULL;
	pthread_mutex_lock(&tk_mu);
	if (t->status == T_WORKING) {
		t->status = atomic_load(&t->cancel) ? T_CANCELLED :
			    is_err ? T_FAILED : T_COMPLETED;
		free(t->message);
		t->message = mi_xstrdup(t->status == T_COMPLETED ?
					(t->job.run ? t->job.done_msg : "index built") :
					t->status == T_CANCELLED ? "cancelled" :
					t->job.run ? t->job.fail_msg : "build failed; see tasks/result");
		mi_mcp_iso_time(t->updated);
		note_status(t, &note);
	}
	/* The status notification goes out before tasks/result can answer,
	 * so a client sees it before the result (and is never blocked on). */
	pthread_mutex_unlock(&tk_mu);
	send_status(&note);
	pthread_mutex_lock(&tk_mu);
	mi_buf_reset(&t->result);
	mi_buf_add(&t->result, res.buf, res.len);
	pthread_cond_broadcast(&tk_cv);
	pthread_mutex_unlock(&tk_mu);
	mi_mcp_log(tk_srv, "task %s: %s", t->id, mi_task_status[t->status]);
	mi_buf_release(&res);
	return NULL;
}

/* A new working task of c's session; not yet listed or started. */
static mi_task *task_new(mi_mcp_call *c, int64_t ttl_ms, const char *message)
{
	mi_task *t = mi_xcalloc(1, sizeof *t);
	mi_mcp_session *ss = c->sess;
	tk_srv = ss->srv;
	snprintf(t->sid, sizeof t->sid, "%s", ss->sid);
	t->status = T_WORKING;
	t->message = mi_xstrdup(message);
	mi_mcp_iso_time(t->created);
	memcpy(t->updated, t->created, sizeof t->updated);
	t->created_ms = mi_mcp_now_us() / 1000;
	t->ttl_ms = ttl_ms > 0 ? (ttl_ms < MI_TASK_TTL_MAX ? ttl_ms : MI_TASK_TTL_MAX)
			       : MI_TASK_TTL_MS;
	/* Progress after the request returned goes to a stdio client only: an
	 * HTTP request's stream has ended by then. */
	t->sess.srv = ss->srv;
	t->sess.sink = ss->sid[0] ? (mi_mcp_sink){0} : ss->sink;
	atomic_store(&t->sess.log_level, MI_LOG_OFF);
	t->call.sess = &t->sess;
	t->call.sink = t->sess.sink;
	if (c->progress && !ss->sid[0])
		t->call.progress = mi_xstrdup(c->progress);
	return t;
}

int mi_mcp_task_start_job(mi_mcp_call *c, const mi_mcp_job *job, int64_t ttl_ms,
			  mi_buf *out, char id[48])
{
	mi_task *t = task_new(c, ttl_ms, job->start_msg);
	t->job = *job;
	pthread_mutex_lock(&tk_mu);
	purge_locked();
	snprintf(t->id, sizeof t->id, "%s-%llu-%08lx", job->kind,
		 (unsigned long long)++tk_seq, (unsigned long)(mi_mcp_now_us() & 0xffffffff));
	memcpy(id, t->id, sizeof t->id);
	t->next = tk_list;
	tk_list = t;
	t->has_thread = pthread_create(&t->th, NULL, task_main, t) == 0;
	if (!t->has_thread) {
		t->status = T_FAILED;
		free(t->message);
		t->message = mi_xstrdup("could not start a thread");
		mi_mcp_tool_error(&t->result, "could not start the %s thread", job->kind);
	}
	if (out) {
		mi_buf_adds(out, "{\"task\":");
		task_json(out, t);
		mi_buf_adds(out, "}");
	}
	pthread_mutex_unlock(&tk_mu);
	mi_mcp_log(c->sess->srv, "task %s: %s", t->id, job->kind);
	return 0;
}

const char *mi_mcp_task_state(mi_mcp_call *c, const char *id, mi_buf *msg)
{
	const char *st = NULL;
	pthread_mutex_lock(&tk_mu);
	for (mi_task *t = tk_list; t; t = t->next)
		if (!strcmp(t->id, id) && !strcmp(t->sid, c->sess->sid)) {
			st = mi_task_status[t->status];
			if (msg && t->message)
				mi_buf_adds(msg, t->message);
			break;
		}
	pthread_mutex_unlock(&tk_mu);
	return st;
}

void mi_mcp_task_note(const char *message)
{
	mi_task *t = tk_current;
	if (!t)
		return;
	pthread_mutex_lock(&tk_mu);
	if (t->status == T_WORKING) {
		free(t->message);
		t->message = mi_xstrdup(message);
		mi_mcp_iso_time(t->updated);
	}
	pthread_mutex_unlock(&tk_mu);
}

int mi_mcp_task_start(mi_mcp_call *c, const char *path, bool force,
		      int64_t ttl_ms, mi_buf *out)
{
	mi_task *t = task_new(c, ttl_ms, "build starting");
	mi_mcp_session *ss = c->sess;
	t->path = mi_xstrdup(path);
	t->force = force;
	pthread_mutex_lock(&tk_mu);
	purge_locked();
	snprintf(t->id, sizeof t->id, "build-%llu-%08lx",
		 (unsigned long long)++tk_seq, (unsigned long)(mi_mcp_now_us() & 0xffffffff));
	t->next = tk_list;
	tk_list = t;
	t->has_thread = pthread_create(&t->th, NULL, task_main, t) == 0;
	if (!t->has_thread) {
		t->status = T_FAILED;
		free(t->message);
		t->message = mi_xstrdup("could not start a thread");
		mi_mcp_tool_error(&t->result, "could not start the build thread");
	}
	mi_buf_adds(out, "{\"task\":");
	task_json(out, t);
	mi_buf_adds(out, "}");
	pthread_mutex_unlock(&tk_mu);
	mi_mcp_log(ss->srv, "task %s: build %s%s", t->id, path, force ? " --force" : "");
	return 0;
}

/* Finds a task of this session.  Caller holds tk_mu. */
static mi_task *task_find(mi_mcp_call *c, json_t *params, mi_buf *msg)
{
	json_t *id = params ? json_object_get(params, "taskId") : NULL;
	mi_task *t;
	if (!json_is_string(id)) {
		mi_buf_adds(msg, "params.taskId must be the string id from the "
			    "CreateTaskResult");
		return NULL;
	}
	for (t = tk_list; t; t = t->next)
		if (strcmp(t->id, json_string_value(id)) == 0 &&
		    strcmp(t->sid, c->sess->sid) == 0)
			return t;
	mi_buf_addf(msg, "No task %s (unknown or expired); tasks/list shows the "
		    "current ones", json_string_value(id));
	return NULL;
}

/* Appends the stored CallToolResult with the related-task _meta. */
static void task_result(mi_buf *out, const mi_task *t)
{
	const mi_buf *r = &t->result;
	size_t n = r->len;
	while (n && r->buf[n - 1] != '}')
		n--;
	if (n == 0) {
		mi_mcp_tool_error(out, "task %s ended without a result", t->id);
		return;
	}
	mi_buf_add(out, r->buf, n - 1);
	mi_buf_adds(out, ",\"_meta\":{\"io.modelcontextprotocol/related-task\":"
		    "{\"taskId\":");
	mi_buf_add_json_str(out, t->id, strlen(t->id));
	mi_buf_adds(out, "}}}");
}

int mi_mcp_tasks_method(mi_mcp_call *c, const char *method, json_t *params,
			mi_buf *out, mi_buf *msg)
{
	mi_task *t;
	int rc = 0;
	status_note note = {0};
	pthread_mutex_lock(&tk_mu);
	purge_locked();
	if (strcmp(method, "tasks/list") == 0) {
		bool first = true;
		mi_buf_adds(out, "{\"tasks\":[");
		for (t = tk_list; t; t = t->next) {
			if (strcmp(t->sid, c->sess->sid))
				continue;
			if (!first)
				mi_buf_addc(out, ',');
			task_json(out, t);
			first = false;
		}
		mi_buf_adds(out, "]}");
		goto out;
	}
	t = task_find(c, params, msg);
	if (!t) {
		rc = MI_RPC_INVALID_PARAMS;
		goto out;
	}
	if (strcmp(method, "tasks/get") == 0) {
		task_json(out, t);
	} else if (strcmp(method, "tasks/cancel") == 0) {
		if (t->status != T_WORKING) {
			mi_buf_addf(msg, "Task %s is already %s; only working tasks can "
				    "be cancelled", t->id, mi_task_status[t->status]);
			rc = MI_RPC_INVALID_PARAMS;
			goto out;
		}
		atomic_store(&t->cancel, 1);
		t->status = T_CANCELLED;
		free(t->message);
		t->message = mi_xstrdup("cancelled by the client; the previous index "
					"is unchanged");
		mi_mcp_iso_time(t->updated);
		pthread_cond_broadcast(&tk_cv);
		task_json(out, t);
		note_status(t, &note);
	} else {
		/* tasks/result: wait until the runner has stored the result. */
		while (t->result.len == 0 && !mi_mcp_cancelled(c)) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 200000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&tk_cv, &tk_mu, &ts);
		}
		if (t->result.len)
			task_result(out, t);
		else {
			mi_buf_adds(msg, "tasks/result cancelled");
			rc = MI_RPC_INTERNAL;
		}
	}
out:
	pthread_mutex_unlock(&tk_mu);
	send_status(&note);
	return rc;
}

void mi_mcp_tasks_shutdown(void)
{
	mi_task *t;
	pthread_mutex_lock(&tk_mu);
	for (t = tk_list; t; t = t->next)
		atomic_store(&t->cancel, 1);
	pthread_cond_broadcast(&tk_cv);
	while ((t = tk_list)) {
		tk_list = t->next;
		pthread_mutex_unlock(&tk_mu);
		if (t->has_thread)
			pthread_join(t->th, NULL);
		task_free(t);
		pthread_mutex_lock(&tk_mu);
	}
	pthread_mutex_unlock(&tk_mu);
}
