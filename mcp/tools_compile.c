/*
 * tools_compile.c - the compile task tools: run_compile starts a target the
 * repository's .mcpidx.toml names as a task (an MCP task when the client
 * asks for one, otherwise a task id answered at once) and streams its
 * output lines as progress; read_task_log shows the log's groups collapsed
 * to counts or expanded.  Listed only when the config names targets; thin
 * over compile_*.c and the task table of tasks.c.
 */
#include "mcp_int.h"
#include "compile_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MI_WAIT_DEFAULT_S 30   /* read_task_log waits this long for a running task */
#define MI_WAIT_MAX_S 120
#define MI_PROGRESS_LINES 500  /* output lines sent as progress, at most */

static const char *const compile_names[] = {"run_compile", "read_task_log"};

bool mi_mcp_compile_is_tool(const char *name)
{
	for (size_t i = 0; i < sizeof compile_names / sizeof compile_names[0]; i++)
		if (!strcmp(compile_names[i], name))
			return true;
	return false;
}

/* The two rows, with the config's targets named in run_compile. */
static void rows(const mi_compile_config *cfg, mi_buf *out)
{
	mi_buf names = {0};
	for (size_t i = 0; i < cfg->n; i++) {
		if (i)
			mi_buf_addc(&names, ',');
		mi_buf_add_json_str(&names, cfg->targets[i].name, strlen(cfg->targets[i].name));
	}
	mi_buf_adds(out, "{\"name\":\"run_compile\",\"title\":\"Compile a target\","
		    "\"description\":\"Runs one of the compile targets the repository's "
		    ".mcpidx.toml names (no other command can run) and returns a task_id at "
		    "once. read_task_log {task_id} then gives the log: counts of INFO, WARN and "
		    "ERROR, or one group's messages with file:line and the compiler's hint. The "
		    "errors also appear as V* [E] lines in read_file outlines of their files.\","
		    "\"inputSchema\":{\"type\":\"object\",\"properties\":{"
		    "\"target\":{\"type\":\"string\",\"enum\":[");
	mi_buf_add(out, names.buf, names.len);
	mi_buf_adds(out, "]},\"flags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
		    "\"description\":\"Extra flags, only those the target allows\"}},"
		    "\"required\":[\"target\"]},"
		    "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
		    "\"task_id\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},"
		    "\"status\":{\"type\":\"string\"}},\"required\":[\"task_id\"]},"
		    "\"annotations\":{\"readOnlyHint\":false,\"destructiveHint\":false,"
		    "\"idempotentHint\":false,\"openWorldHint\":false},"
		    "\"execution\":{\"taskSupport\":\"optional\"}},"
		    "{\"name\":\"read_task_log\",\"title\":\"Read a compile log\","
		    "\"description\":\"The log of a run_compile task: by default one count per "
		    "group (V* INFO x18, V* WARN x2, V* ERROR x1); with group the messages of that "
		    "group (file:line, text, hint); expand:true shows WARN and ERROR messages. "
		    "Waits up to wait_seconds for a task still running.\","
		    "\"inputSchema\":{\"type\":\"object\",\"properties\":{"
		    "\"task_id\":{\"type\":\"string\"},"
		    "\"group\":{\"type\":\"string\",\"enum\":[\"INFO\",\"WARN\",\"ERROR\"]},"
		    "\"expand\":{\"type\":\"boolean\",\"description\":\"Show messages, not counts "
		    "(default: true when group is given)\"},"
		    "\"wait_seconds\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":120,"
		    "\"default\":30}},\"required\":[\"task_id\"]},"
		    "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
		    "\"task_id\":{\"type\":\"string\"},\"status\":{\"type\":\"string\"},"
		    "\"exit_code\":{\"type\":\"integer\"},\"counts\":{\"type\":\"object\"},"
		    "\"messages\":{\"type\":\"array\"},\"text\":{\"type\":\"string\"}},"
		    "\"required\":[\"task_id\",\"status\"]},"
		    "\"annotations\":{\"readOnlyHint\":true,\"idempotentHint\":true,"
		    "\"openWorldHint\":false},\"execution\":{\"taskSupport\":\"forbidden\"}}");
	mi_buf_release(&names);
}

/* The config of the served repository; NULL (err set) when it has none. */
static mi_compile_config *config_of(mi_mcp_server *s, mi_buf *err)
{
	mi_compile_config *cfg = NULL;
	if (mi_compile_config_load(s->repo_path, &cfg, err))
		return NULL;
	return cfg;
}

void mi_mcp_compile_list(mi_mcp_server *s, mi_buf *out)
{
	mi_buf err = {0};
	mi_compile_config *cfg = config_of(s, &err);
	if (!cfg) {
		if (err.len && !strstr(err.buf, "no " MI_COMPILE_CONFIG))
			mi_mcp_log(s, "compile tools hidden: %s", err.buf);
		mi_buf_release(&err);
		return;
	}
	/* out ends with "]}" of {"tools":[...]} */
	while (out->len && out->buf[out->len - 1] != ']')
		out->len--;
	if (out->len) {
		out->buf[--out->len] = 0;
		if (out->len && out->buf[out->len - 1] != '[')
			mi_buf_addc(out, ',');
		rows(cfg, out);
		mi_buf_adds(out, "]}");
	}
	mi_compile_config_free(cfg);
}

/* ---- run_compile -------------------------------------------------------------- */

/* What a compile task runs with; owned by the task. */
typedef struct job_arg {
	mi_compile_config *cfg;
	char *target;
	char **flags;        /* NULL-terminated */
	size_t nflags;
	char *index_path;
} job_arg;

static void job_free(void *p)
{
	job_arg *a = p;
	mi_compile_config_free(a->cfg);
	free(a->target);
	for (size_t i = 0; i < a->nflags; i++)
		free(a->flags[i]);
	free(a->flags);
	free(a->index_path);
	free(a);
}

/* Streams output lines as progress (and the last one as the status). */
typedef struct line_ctx {
	mi_mcp_call *c;      /* may be NULL */
	size_t n;            /* lines seen */
} line_ctx;

static void on_line(void *ctx, const char *line, size_t len)
{
	line_ctx *l = ctx;
	char msg[200];
	snprintf(msg, sizeof msg, "%.*s", (int)(len < sizeof msg - 1 ? len : sizeof msg - 1), line);
	l->n++;
	if (!len)
		return;
	mi_mcp_task_note(msg);
	if (l->c && l->n <= MI_PROGRESS_LINES)
		mi_mcp_progress(l->c, (double)l->n, 0, msg);
}

static void result(mi_buf *out, const mi_out *o)
{
	mi_buf_adds(out, "{\"content\":[{\"type\":\"text\",\"text\":");
	mi_buf_add_json_str(out, mi_buf_str(&o->text), o->text.len);
	mi_buf_adds(out, "}]");
	if (!o->is_error && o->json.len)
		mi_buf_addf(out, ",\"structuredContent\":%s", o->json.buf);
	mi_buf_addf(out, ",\"isError\":%s}", o->is_error ? "true" : "false");
}

/* The task's work: the compile, then its log's counts as the result.  A
 * compile that fails is a result like any other (its status says so); only
 * a command that could not run is a tool error. */
static void job_run(mi_mcp_server *s, mi_mcp_call *c, atomic_int *cancel, const char *id,
		    void *arg, mi_buf *out)
{
	job_arg *a = arg;
	line_ctx lc = {.c = c};
	mi_compile_req req = {.config = a->cfg, .target = a->target,
			      .flags = (const char *const *)a->flags, .nflags = a->nflags,
			      .index_path = a->index_path, .task_id = id, .cancel = cancel,
			      .on_line = on_line, .ctx = &lc};
	mi_compile_log log;
	mi_buf err = {0};
	mi_out o = {0};
	if (mi_compile_run(&req, &log, &err)) {
		mi_mcp_tool_error(out, "%s", err.buf);
		goto out;
	}
	mi_compile_log_render(&log, -1, false, &o);
	if (err.len)
		mi_buf_addf(&o.text, "V* the log could not be kept beside the index: %s\n", err.buf);
	result(out, &o);
	mi_mcp_log(s, "compile %s: %s exit %d", id, log.target, log.exit_code);
	mi_compile_log_release(&log);
out:
	mi_out_release(&o);
	mi_buf_release(&err);
}

static int run_compile(mi_mcp_call *c, json_t *args, mi_buf *out, int *code, mi_buf *msg)
{
	mi_mcp_server *s = c->sess->srv;
	json_t *tv = json_object_get(args, "target"), *fv = json_object_get(args, "flags"), *x;
	json_t *task = c->params && strcmp(c->sess->version, "2025-11-25") >= 0 ?
		       json_object_get(c->params, "task") : NULL;
	mi_buf err = {0};
	mi_compile_config *cfg;
	const mi_compile_target *t;
	char **argv = NULL, id[48];
	job_arg *a;
	size_t i;

	if (!json_is_string(tv) || (fv && !json_is_array(fv))) {
		mi_mcp_tool_error(out, "run_compile takes {\"target\": NAME, \"flags\": [...]} "
				  "with a target the repository's %s names", MI_COMPILE_CONFIG);
		return 0;
	}
	json_array_foreach(fv, i, x)
		if (!json_is_string(x)) {
			mi_mcp_tool_error(out, "flags holds strings only");
			return 0;
		}
	if (task && !json_is_null(task) && !json_is_object(task)) {
		mi_buf_adds(msg, "tools/call: params.task must be an object such as {\"ttl\": 60000}");
		*code = MI_RPC_INVALID_PARAMS;
		return -1;
	}
	if (!(cfg = config_of(s, &err))) {
		mi_mcp_tool_error(out, "%s", err.buf);
		mi_buf_release(&err);
		return 0;
	}
	a = mi_xcalloc(1, sizeof *a);
	a->cfg = cfg;
	a->target = mi_xstrdup(json_string_value(tv));
	a->flags = mi_xcalloc(json_array_size(fv) + 1, sizeof *a->flags);
	json_array_foreach(fv, i, x)
		a->flags[a->nflags++] = mi_xstrdup(json_string_value(x));
	a->index_path = mi_xstrdup(s->index_path);
	/* refuse what the config does not allow before anything starts */
	t = mi_compile_target_find(cfg, a->target);
	if (!t) {
		mi_buf_addf(&err, "target \"%s\" is not in %s; it names:", a->target, cfg->file);
		for (i = 0; i < cfg->n; i++)
			mi_buf_addf(&err, " %s", cfg->targets[i].name);
	} else if (!mi_compile_argv(t, (const char *const *)a->flags, a->nflags, &argv, &err)) {
		mi_compile_argv_free(argv);
	}
	if (err.len) {
		mi_mcp_tool_error(out, "%s", err.buf);
		snprintf(c->outcome, sizeof c->outcome, "tool-error: refused");
		job_free(a);
		mi_buf_release(&err);
		return 0;
	}
	mi_mcp_job job = {.kind = "compile", .start_msg = "compile starting",
			  .done_msg = "compile finished; tasks/result or read_task_log has its log",
			  .fail_msg = "the command could not run; see tasks/result",
			  .run = job_run, .arg = a, .free_arg = job_free};
	if (task && json_is_object(task)) {
		json_t *ttl = json_object_get(task, "ttl");
		mi_mcp_task_start_job(c, &job, json_is_integer(ttl) ? json_integer_value(ttl) : 0,
				      out, id);
	} else {
		mi_buf text = {0};
		mi_mcp_task_start_job(c, &job, 0, NULL, id);
		mi_buf_addf(&text, "V* task: %s (running)\nV* task_id: %s\nread_task_log "
			    "{\"task_id\": \"%s\"} gives its log once it ends.\n", t->name, id, id);
		mi_buf_adds(out, "{\"content\":[{\"type\":\"text\",\"text\":");
		mi_buf_add_json_str(out, text.buf, text.len);
		mi_buf_adds(out, "}],\"structuredContent\":{\"task_id\":");
		mi_buf_add_json_str(out, id, strlen(id));
		mi_buf_adds(out, ",\"target\":");
		mi_buf_add_json_str(out, t->name, strlen(t->name));
		mi_buf_adds(out, ",\"status\":\"working\"},\"isError\":false}");
		mi_buf_release(&text);
	}
	snprintf(c->outcome, sizeof c->outcome, "task %s", id);
	return 0;
}

/* ---- read_task_log ------------------------------------------------------------- */

static int read_task_log(mi_mcp_call *c, json_t *args, mi_buf *out)
{
	mi_mcp_server *s = c->sess->srv;
	json_t *iv = json_object_get(args, "task_id"), *gv = json_object_get(args, "group");
	json_t *ev = json_object_get(args, "expand"), *wv = json_object_get(args, "wait_seconds");
	int group = gv ? mi_compile_group_find(json_string_value(gv)) : -1;
	int64_t wait_s = json_is_integer(wv) ? json_integer_value(wv) : MI_WAIT_DEFAULT_S;
	const char *id, *state;
	mi_compile_log log;
	mi_buf note = {0};
	mi_out o = {0};
	int64_t until;

	if (!json_is_string(iv) || (gv && group < 0) || (ev && !json_is_boolean(ev)) ||
	    (wv && !json_is_integer(wv))) {
		mi_mcp_tool_error(out, "read_task_log takes {\"task_id\": ID from run_compile, "
				  "\"group\": \"INFO\"|\"WARN\"|\"ERROR\", \"expand\": bool, "
				  "\"wait_seconds\": 0..120}");
		return 0;
	}
	id = json_string_value(iv);
	if (wait_s < 0)
		wait_s = 0;
	if (wait_s > MI_WAIT_MAX_S)
		wait_s = MI_WAIT_MAX_S;
	until = mi_mcp_now_us() + wait_s * 1000000;
	while ((state = mi_mcp_task_state(c, id, NULL)) && !strcmp(state, "working") &&
	       mi_mcp_now_us() < until && !mi_mcp_cancelled(c)) {
		struct timespec ts = {0, 100 * 1000000};
		nanosleep(&ts, NULL);
	}
	state = mi_mcp_task_state(c, id, &note);
	if (state && !strcmp(state, "working")) {
		mi_buf_addf(&o.text, "V* task %s is still running: %s\nCall read_task_log again "
			    "(wait_seconds up to %d).\n", id, note.buf ? note.buf : "", MI_WAIT_MAX_S);
		mi_buf_adds(&o.json, "{\"task_id\":");
		mi_buf_add_json_str(&o.json, id, strlen(id));
		mi_buf_adds(&o.json, ",\"status\":\"working\",\"text\":");
		mi_buf_add_json_str(&o.json, o.text.buf, o.text.len);
		mi_buf_addc(&o.json, '}');
		result(out, &o);
		goto out;
	}
	if (mi_compile_load(s->index_path, id, &log)) {
		mi_mcp_tool_error(out, "No task log %s%s%s. run_compile returns the task_id; the "
				  "last %d compiles are kept beside the index.", id,
				  note.len ? ": " : "", mi_buf_str(&note), MI_COMPILE_KEEP);
		goto out;
	}
	mi_compile_log_render(&log, group, ev ? json_is_true(ev) : group >= 0, &o);
	result(out, &o);
	mi_compile_log_release(&log);
out:
	mi_out_release(&o);
	mi_buf_release(&note);
	return 0;
}

int mi_mcp_compile_call(mi_mcp_call *c, const char *name, json_t *args, mi_buf *out,
			int *code, mi_buf *msg)
{
	int rc;
	if (args && !json_is_object(args)) {
		mi_buf_addf(msg, "%s: arguments must be an object", name);
		*code = MI_RPC_INVALID_PARAMS;
		return -1;
	}
	rc = !strcmp(name, "run_compile") ? run_compile(c, args, out, code, msg) :
	     read_task_log(c, args, out);
	if (!rc && !c->outcome[0])
		snprintf(c->outcome, sizeof c->outcome, "%s",
			 strstr(mi_buf_str(out), "\"isError\":true") ? "tool-error" : "ok");
	return rc;
}
