/*
 * tasks.c - requests that outlive their request: the dispatcher hands over
 * a function to run on its own thread, and clients follow it by id.  Two
 * wire forms over one table: the 2025-11-25 core tasks (CreateTaskResult
 * {task}, tasks/get, tasks/list, tasks/result blocking, tasks/cancel
 * answering the task, notifications/tasks/status on stdio) and the
 * io.modelcontextprotocol/tasks extension of 2026-07-28 (a flat task with
 * resultType "task", tasks/get carrying the result once done, tasks/update,
 * tasks/cancel acknowledged; no tasks/list).  The task's own ctx turns
 * progress into its statusMessage; a cancelled task keeps saying so.
 */
#include "area.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MI_TASK_TTL_MS 3600000        /* default retention of a finished task */
#define MI_TASK_TTL_MAX 86400000
#define MI_POLL_MS 500
#define MI_TASKS_WORKING 32           /* tasks running at once */
#define MI_TASKS_KEPT 256             /* finished tasks kept for their results */

enum { T_WORKING, T_COMPLETED, T_FAILED, T_CANCELLED };
static const char *const mi_task_status[] = {
	"working", "completed", "failed", "cancelled",
};

typedef struct mi_task {
	mi_mcp_ctx ctx;            /* the runner's request (progress, cancel) */
	char id[72];               /* taskId: kind-seq-128 random bits */
	char *owner;               /* session that may see it ("" = any) */
	char version[16];          /* protocol version of the creating request */
	json_t *caps;              /* its client capabilities (owned) */
	char *name;                /* tool name */
	char *method;              /* method of the creating request */
	int status;                /* T_* */
	char *message;             /* statusMessage, malloc'd */
	char created[32];          /* ISO 8601 */
	char updated[32];
	int64_t created_ms;        /* monotonic, for the ttl */
	int64_t ttl_ms;            /* retention after creation */
	mi_buf result;             /* the request's result (JSON) once terminal */
	int err_code;              /* a JSON-RPC error instead of a result */
	atomic_int cancel;         /* set by tasks/cancel or shutdown */
	mi_mcp_task_run run;       /* what to do */
	mi_mcp_sink notify;        /* notifications after the request ended */
	char *progress;            /* progress token (JSON text) or NULL */
	double progress_n;         /* last progress sent */
	bool done;                 /* the runner ended (or never started): it
				    * no longer touches the task */
	int waiters;               /* tasks/result calls holding it: not freed */
	bool modern;               /* created through the 2026-07-28 extension */
	struct mi_task *next;      /* in tk_list */
} mi_task;

static pthread_mutex_t tk_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tk_cv = PTHREAD_COND_INITIALIZER;
static mi_task *tk_list;
static uint64_t tk_seq;

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the task's ctx ------------------------------------------------------------------ */

static void task_progress(mi_mcp_ctx *c, double done, double total, const char *msg)
{
	mi_task *t = c->self;
	mi_buf b = {0};
	pthread_mutex_lock(&tk_mu);
	if (t->status == T_WORKING && msg && strcmp(msg, "done")) {
		/* A cancelled task keeps the message that says so. */
		free(t->message);
		t->message = mi_xstrdup(msg);
		mi_mcp_iso_time(t->updated);
	}
	if (t->progress && t->notify.send && t->status == T_WORKING) {
		if (done <= t->progress_n && t->progress_n > 0) {
			/* Progress only rises, and never past the total. */
			done = t->progress_n + 0.001;
			if (total > 0 && done > total)
				goto unlock;
		}
		t->progress_n = done;
		mi_buf_addf(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
			    "\"params\":{\"progressToken\":%s,\"progress\":%.10g",
			    t->progress, done);
		if (total > 0)
			mi_buf_addf(&b, ",\"total\":%.10g", total);
		if (msg) {
			mi_buf_adds(&b, ",\"message\":");
			mi_buf_add_json_str(&b, msg, strlen(msg));
		}
		mi_buf_addf(&b, ",\"_meta\":{\"" MI_META_RELATED_TASK "\":{\"taskId\":\"%s\"}}}}",
			    t->id);
		t->notify.send(t->notify.ctx, b.buf, b.len);
	}
unlock:
	pthread_mutex_unlock(&tk_mu);
	mi_buf_release(&b);
}

static void task_log(mi_mcp_ctx *c, int level, const char *msg)
{
}

static bool task_cancelled(mi_mcp_ctx *c)
{
	mi_task *t = c->self;
	return atomic_load(&t->cancel) || atomic_load(&c->env->stopping);
}

static int task_ask(mi_mcp_ctx *c, const char *method, const char *params,
		    int timeout_ms, mi_buf *result)
{
	mi_buf_adds(result, "a task cannot ask the client");
	return MI_RPC_NO_METHOD;
}

/* ---- wire forms ---------------------------------------------------------------------- */

static void task_fields(mi_buf *b, const mi_task *t)
{
	mi_buf_adds(b, "\"taskId\":");
	mi_buf_add_json_str(b, t->id, strlen(t->id));
	mi_buf_addf(b, ",\"status\":\"%s\"", mi_task_status[t->status]);
	if (t->message) {
		mi_buf_adds(b, ",\"statusMessage\":");
		mi_buf_add_json_str(b, t->message, strlen(t->message));
	}
	mi_buf_addf(b, ",\"createdAt\":\"%s\",\"lastUpdatedAt\":\"%s\"", t->created,
		    t->updated);
	if (t->modern)
		mi_buf_addf(b, ",\"ttlMs\":%lld,\"pollIntervalMs\":%d",
			    (long long)t->ttl_ms, MI_POLL_MS);
	else
		mi_buf_addf(b, ",\"ttl\":%lld,\"pollInterval\":%d",
			    (long long)t->ttl_ms, MI_POLL_MS);
}

/* The task as tasks/get shows it (an object). */
static void task_json(mi_buf *b, const mi_task *t)
{
	mi_buf_addc(b, '{');
	task_fields(b, t);
	if (t->modern && t->result.len) {
		if (t->err_code) {
			mi_buf_adds(b, ",\"error\":");
			mi_buf_add(b, t->result.buf, t->result.len);
		} else if (t->status == T_COMPLETED) {
			mi_buf_adds(b, ",\"result\":");
			mi_buf_add(b, t->result.buf, t->result.len);
		}
	}
	mi_buf_addc(b, '}');
}

/* notifications/tasks/status, built while tk_mu is held. */
static void send_status_locked(const mi_task *t)
{
	mi_buf b = {0};
	if (!t->notify.send || t->modern)
		return;
	mi_buf_adds(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tasks/status\","
		    "\"params\":");
	task_json(&b, t);
	mi_buf_addc(&b, '}');
	t->notify.send(t->notify.ctx, b.buf, b.len);
	mi_buf_release(&b);
}

/* ---- running ---------------------------------------------------------------------------- */

static void task_free(mi_task *t)
{
	if (t->run.free_arg)
		t->run.free_arg(t->run.arg);
	mi_buf_release(&t->result);
	json_decref(t->caps);
	free(t->owner);
	free(t->name);
	free(t->method);
	free(t->message);
	free(t->progress);
	free(t);
}

/* A task that may be freed: its runner is gone and no tasks/result
 * call is waiting on it. */
static bool task_idle(const mi_task *t)
{
	return t->done && t->waiters == 0;
}

/* Drops finished tasks past their ttl, and the oldest finished ones
 * beyond MI_TASKS_KEPT (newest first in tk_list).  Caller holds tk_mu. */
static void purge_locked(void)
{
	mi_task **pp = &tk_list, *t;
	int64_t now = now_ms();
	size_t kept = 0;
	while ((t = *pp)) {
		if (task_idle(t) && (now - t->created_ms > t->ttl_ms || kept >= MI_TASKS_KEPT)) {
			*pp = t->next;
			task_free(t);
		} else {
			kept += t->done;
			pp = &t->next;
		}
	}
}

static void *task_main(void *arg)
{
	mi_task *t = arg;
	mi_buf res = {0}, msg = {0};
	int code = t->run.fn(&t->ctx, t->run.arg, &res, &msg);
	bool is_err = !code && strstr(mi_buf_str(&res), "\"isError\":true") != NULL;
	pthread_mutex_lock(&tk_mu);
	if (code) {
		mi_buf_reset(&res);
		mi_buf_addf(&res, "{\"code\":%d,\"message\":", code);
		mi_buf_add_json_str(&res, mi_buf_str(&msg), msg.len);
		mi_buf_addc(&res, '}');
		t->err_code = code;
	}
	mi_buf_reset(&t->result);
	mi_buf_add(&t->result, res.buf, res.len);
	if (t->status == T_WORKING) {
		t->status = atomic_load(&t->cancel) ? T_CANCELLED :
			    code || (is_err && !t->modern) ? T_FAILED : T_COMPLETED;
		free(t->message);
		t->message = mi_xstrdup(t->status == T_COMPLETED ? "done" :
					t->status == T_CANCELLED ? "cancelled" :
					"failed; see the result");
		mi_mcp_iso_time(t->updated);
		/* The status notification goes out before tasks/result can
		 * answer (it waits for tk_mu), so a client sees that order. */
		send_status_locked(t);
	}
	/* From here the task is the table's: a purge may free it as soon
	 * as tk_mu is released, so what the log needs is copied first. */
	char id[sizeof t->id];
	const char *status = mi_task_status[t->status];
	mi_mcp_env *env = t->ctx.env;
	memcpy(id, t->id, sizeof id);
	t->done = true;
	pthread_cond_broadcast(&tk_cv);
	pthread_mutex_unlock(&tk_mu);
	mi_mcp_log(env, "task %s: %s", id, status);
	mi_buf_release(&res);
	mi_buf_release(&msg);
	return NULL;
}

/* A task id: its kind, a sequence number, and 128 bits from
 * /dev/urandom (the id is all a client needs to read or cancel a task of
 * a stateless request, so it must not be guessable). */
static void task_id(mi_task *t, const char *kind, uint64_t seq)
{
	char hex[33];
	mi_random_hex(hex, 16);
	snprintf(t->id, sizeof t->id, "%s-%llu-%s", kind ? kind : "task",
		 (unsigned long long)seq, hex);
}

int mi_mcp_task_start(mi_mcp_ctx *origin, const char *owner, bool modern,
		      int64_t ttl_ms, const mi_mcp_task_run *run,
		      const mi_mcp_sink *notify, const char *progress, mi_buf *out,
		      mi_buf *msg)
{
	mi_task *t;
	size_t working = 0;
	int rc = 0;
	pthread_mutex_lock(&tk_mu);
	purge_locked();
	for (t = tk_list; t; t = t->next)
		working += !t->done;
	pthread_mutex_unlock(&tk_mu);
	if (working >= MI_TASKS_WORKING) {
		if (run->free_arg)
			run->free_arg(run->arg);
		mi_buf_addf(msg, "%zu tasks are running, the most at once; wait for one "
			    "to end or cancel one (tasks/cancel), then ask again", working);
		return MI_RPC_INVALID_REQUEST;
	}
	t = mi_xcalloc(1, sizeof *t);
	t->owner = mi_xstrdup(owner ? owner : "");
	snprintf(t->version, sizeof t->version, "%s", origin->version);
	t->caps = origin->caps ? json_deep_copy(origin->caps) : json_object();
	t->name = mi_xstrdup(origin->name ? origin->name : "");
	t->method = mi_xstrdup(origin->method ? origin->method : "");
	t->status = T_WORKING;
	t->message = mi_xstrdup("starting");
	mi_mcp_iso_time(t->created);
	memcpy(t->updated, t->created, sizeof t->updated);
	t->created_ms = now_ms();
	t->ttl_ms = ttl_ms > 0 ? (ttl_ms < MI_TASK_TTL_MAX ? ttl_ms : MI_TASK_TTL_MAX)
			       : MI_TASK_TTL_MS;
	t->run = *run;
	t->modern = modern;
	if (notify)
		t->notify = *notify;
	if (progress && notify && notify->send)
		t->progress = mi_xstrdup(progress);
	t->ctx = *origin;
	t->ctx.version = t->version;
	t->ctx.caps = t->caps;
	t->ctx.name = t->name;
	t->ctx.method = t->method;
	t->ctx.input_responses = NULL;
	t->ctx.request_state = NULL;
	t->ctx.progress = task_progress;
	t->ctx.log = task_log;
	t->ctx.cancelled = task_cancelled;
	t->ctx.ask = task_ask;
	t->ctx.task_id = t->id;
	t->ctx.cancel = &t->cancel;
	t->ctx.self = t;
	pthread_mutex_lock(&tk_mu);
	task_id(t, run->kind, ++tk_seq);
	t->next = tk_list;
	tk_list = t;
	/* Detached: a finished runner's thread is gone at once, not kept
	 * until its task's ttl ends (up to a day). */
	pthread_t th;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	bool started = pthread_create(&th, &at, task_main, t) == 0;
	pthread_attr_destroy(&at);
	if (!started) {
		t->done = true;
		t->status = T_FAILED;
		free(t->message);
		t->message = mi_xstrdup("could not start a thread");
		mi_buf_adds(&t->result, "{\"code\":-32603,\"message\":\"could not start "
			    "a thread\"}");
		t->err_code = MI_RPC_INTERNAL;
	}
	if (modern) {
		mi_buf_adds(out, "{\"resultType\":\"task\",");
		task_fields(out, t);
		mi_buf_addc(out, '}');
	} else {
		mi_buf_adds(out, "{\"task\":");
		task_json(out, t);
		mi_buf_addc(out, '}');
	}
	/* Logged while held: once tk_mu is released a fast task may end and
	 * be purged. */
	mi_mcp_log(origin->env, "task %s: %s", t->id, t->name);
	pthread_mutex_unlock(&tk_mu);
	return rc;
}

/* Finds a task the owner may see.  Caller holds tk_mu. */
static mi_task *task_find(const char *owner, json_t *params, mi_buf *msg)
{
	json_t *id = params ? json_object_get(params, "taskId") : NULL;
	mi_task *t;
	if (!json_is_string(id)) {
		mi_buf_adds(msg, "params.taskId must be the string id the task was "
			    "created with");
		return NULL;
	}
	for (t = tk_list; t; t = t->next)
		if (strcmp(t->id, json_string_value(id)) == 0 &&
		    (!t->owner[0] || strcmp(t->owner, owner) == 0))
			return t;
	mi_buf_addf(msg, "No task %s (unknown or expired)", json_string_value(id));
	return NULL;
}

/* Appends the stored CallToolResult with the related-task _meta. */
static void task_result(mi_buf *out, const mi_task *t)
{
	const mi_buf *r = &t->result;
	size_t n = r->len;
	while (n && r->buf[n - 1] != '}')
		n--;
	if (n == 0 || t->err_code) {
		mi_buf_adds(out, "{\"content\":[{\"type\":\"text\",\"text\":\"the task "
			    "ended without a result\"}],\"isError\":true}");
		return;
	}
	mi_buf_add(out, r->buf, n - 1);
	mi_buf_adds(out, ",\"_meta\":{\"" MI_META_RELATED_TASK "\":{\"taskId\":");
	mi_buf_add_json_str(out, t->id, strlen(t->id));
	mi_buf_adds(out, "}}}");
}

int mi_mcp_tasks_method(mi_mcp_ctx *c, const char *owner, bool modern,
			const char *method, json_t *params, mi_buf *out, mi_buf *msg)
{
	mi_task *t;
	int rc = 0;
	pthread_mutex_lock(&tk_mu);
	purge_locked();
	if (strcmp(method, "tasks/list") == 0) {
		bool first = true;
		mi_buf_adds(out, "{\"tasks\":[");
		for (t = tk_list; t; t = t->next) {
			if (t->modern || strcmp(t->owner, owner))
				continue;
			if (!first)
				mi_buf_addc(out, ',');
			task_json(out, t);
			first = false;
		}
		mi_buf_adds(out, "]}");
		goto out;
	}
	t = task_find(owner, params, msg);
	if (!t) {
		rc = MI_RPC_INVALID_PARAMS;
		goto out;
	}
	if (strcmp(method, "tasks/get") == 0) {
		task_json(out, t);
	} else if (strcmp(method, "tasks/update") == 0) {
		/* No task of ours waits for input: nothing to deliver. */
		mi_buf_adds(out, "{}");
	} else if (strcmp(method, "tasks/cancel") == 0) {
		if (t->status != T_WORKING && !modern) {
			mi_buf_addf(msg, "Task %s is already %s; only working tasks can "
				    "be cancelled", t->id, mi_task_status[t->status]);
			rc = MI_RPC_INVALID_PARAMS;
			goto out;
		}
		if (t->status == T_WORKING) {
			atomic_store(&t->cancel, 1);
			t->status = T_CANCELLED;
			free(t->message);
			t->message = mi_xstrdup("cancelled by the client; the previous "
						"index is unchanged");
			mi_mcp_iso_time(t->updated);
			pthread_cond_broadcast(&tk_cv);
			send_status_locked(t);
		}
		if (modern)
			mi_buf_adds(out, "{}");
		else
			task_json(out, t);
	} else {
		/* tasks/result: wait until the runner has stored the result.
		 * The wait lets go of tk_mu; while it is counted a waiter the
		 * task is not purged under it. */
		t->waiters++;
		while (!t->done && !c->cancelled(c)) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 200000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&tk_cv, &tk_mu, &ts);
		}
		t->waiters--;
		pthread_cond_broadcast(&tk_cv);
		if (t->done && t->result.len) {
			task_result(out, t);
		} else {
			mi_buf_adds(msg, "tasks/result cancelled");
			rc = MI_RPC_INTERNAL;
		}
	}
out:
	pthread_mutex_unlock(&tk_mu);
	return rc;
}

const char *mi_mcp_task_state(const char *owner, const char *id, mi_buf *msg)
{
	const char *st = NULL;
	mi_task *t;
	pthread_mutex_lock(&tk_mu);
	for (t = tk_list; t; t = t->next)
		if (!strcmp(t->id, id) && (!t->owner[0] || !strcmp(t->owner, owner))) {
			st = mi_task_status[t->status];
			if (msg && t->message)
				mi_buf_adds(msg, t->message);
			break;
		}
	pthread_mutex_unlock(&tk_mu);
	return st;
}

void mi_mcp_tasks_shutdown(void)
{
	mi_task *t;
	pthread_mutex_lock(&tk_mu);
	for (t = tk_list; t; t = t->next)
		atomic_store(&t->cancel, 1);
	pthread_cond_broadcast(&tk_cv);
	/* Each task once its runner has ended and no tasks/result waits on
	 * it (those end when the server stops). */
	while ((t = tk_list)) {
		if (!task_idle(t)) {
			pthread_cond_wait(&tk_cv, &tk_mu);
			continue;
		}
		tk_list = t->next;
		task_free(t);
	}
	pthread_mutex_unlock(&tk_mu);
}
