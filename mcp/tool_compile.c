/*
 * tool_compile.c - the compile task tools: run_compile starts a target the
 * repository's .mcpidx.toml names as a task (an MCP task when the client
 * asks for one, otherwise a task id answered at once) and streams its
 * output lines as progress; read_task_log shows the log's groups collapsed
 * to counts or expanded.  A group of its own, listed only when the config
 * names targets; thin over compile_*.c and the task table of tasks.c.
 */
#include "area.h"
#include "compile_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MI_WAIT_DEFAULT_S 30   /* read_task_log waits this long for a running task */
#define MI_WAIT_MAX_S 120
#define MI_PROGRESS_LINES 500  /* output lines sent as progress, at most */

/* The config of the served repository; NULL (err set) when it has none. */
static mi_compile_config *config_of(mi_mcp_env *e, mi_buf *err)
{
	mi_compile_config *cfg = NULL;
	if (mi_compile_config_load(e->repo_path, &cfg, err))
		return NULL;
	return cfg;
}

/* Listed when the served repository's config names targets. */
static bool compile_applies(mi_mcp_env *e)
{
	mi_buf err = {0};
	mi_compile_config *cfg = config_of(e, &err);
	bool r = cfg && cfg->n > 0;
	if (!cfg && err.len && !strstr(err.buf, "no " MI_COMPILE_CONFIG))
		mi_mcp_log(e, "compile tools hidden: %s", err.buf);
	mi_compile_config_free(cfg);
	mi_buf_release(&err);
	return r;
}

/* run_compile's arguments with the config's targets as an enum. */
static void run_schema(mi_mcp_env *e, mi_buf *out)
{
	mi_buf err = {0};
	mi_compile_config *cfg = config_of(e, &err);
	mi_buf_adds(out, "{\"type\":\"object\",\"properties\":{\"target\":{\"type\":"
		    "\"string\"");
	if (cfg && cfg->n) {
		mi_buf_adds(out, ",\"enum\":[");
		for (size_t i = 0; i < cfg->n; i++) {
			if (i)
				mi_buf_addc(out, ',');
			mi_buf_add_json_str(out, cfg->targets[i].name,
					    strlen(cfg->targets[i].name));
		}
		mi_buf_addc(out, ']');
	}
	mi_buf_adds(out, "},\"flags\":{\"type\":\"array\",\"items\":{\"type\":"
		    "\"string\"},\"description\":\"Extra flags the target allows.\"}},"
		    "\"required\":[\"target\"],\"additionalProperties\":false}");
	mi_compile_config_free(cfg);
	mi_buf_release(&err);
}

/* ---- run_compile -------------------------------------------------------------- */

/* The compiles running in this process, one per target of a repository:
 * each starts processes, and 80 of one target at once were 80 builds
 * fighting over the same outputs. */
typedef struct running {
	uint64_t serial;     /* what releases it */
	char *root, *target;
	char *id;            /* its task id; NULL while the task starts */
	struct running *next;
} running;

static pthread_mutex_t run_mu = PTHREAD_MUTEX_INITIALIZER;
static running *run_list;
static uint64_t run_serial;

/* Claims root's target for one compile (task id, or NULL until
 * claim_name): its serial, or 0 with the running compile's id (or "")
 * in held. */
static uint64_t claim(const char *root, const char *target, const char *id, mi_buf *held)
{
	running *r;
	uint64_t serial = 0;
	pthread_mutex_lock(&run_mu);
	for (r = run_list; r; r = r->next)
		if (!strcmp(r->root, root) && !strcmp(r->target, target))
			break;
	if (r) {
		mi_buf_adds(held, r->id ? r->id : "");
	} else {
		r = mi_xcalloc(1, sizeof *r);
		r->serial = serial = ++run_serial;
		r->root = mi_xstrdup(root);
		r->target = mi_xstrdup(target);
		r->id = id ? mi_xstrdup(id) : NULL;
		r->next = run_list;
		run_list = r;
	}
	pthread_mutex_unlock(&run_mu);
	return serial;
}

static void claim_name(uint64_t serial, const char *id)
{
	pthread_mutex_lock(&run_mu);
	for (running *r = run_list; r; r = r->next)
		if (r->serial == serial && !r->id)
			r->id = mi_xstrdup(id);
	pthread_mutex_unlock(&run_mu);
}

/* Ends a claim; again, or for 0, nothing. */
static void claim_release(uint64_t serial)
{
	running **pp, *r;
	pthread_mutex_lock(&run_mu);
	for (pp = &run_list; (r = *pp); pp = &r->next)
		if (r->serial == serial) {
			*pp = r->next;
			free(r->root);
			free(r->target);
			free(r->id);
			free(r);
			break;
		}
	pthread_mutex_unlock(&run_mu);
}

/* What a compile runs with; owned by the task. */
typedef struct job_arg {
	mi_compile_config *cfg;
	char *target;
	char **flags;        /* NULL-terminated */
	size_t nflags;
	char *index_path;
	uint64_t claim;      /* its target's claim, released when it ends */
} job_arg;

/* Freed when its task is dropped, or when it never started: the claim
 * goes then at the latest. */
static void job_free(void *p)
{
	job_arg *a = p;
	claim_release(a->claim);
	mi_compile_config_free(a->cfg);
	free(a->target);
	for (size_t i = 0; i < a->nflags; i++)
		free(a->flags[i]);
	free(a->flags);
	free(a->index_path);
	free(a);
}

/* Streams output lines as progress (a task's progress is its status). */
typedef struct line_ctx {
	mi_mcp_ctx *c;       /* the task's request */
	size_t n;            /* lines seen */
} line_ctx;

static void on_line(void *ctx, const char *line, size_t len)
{
	line_ctx *l = ctx;
	char msg[200];
	snprintf(msg, sizeof msg, "%.*s", (int)(len < sizeof msg - 1 ? len : sizeof msg - 1),
		 line);
	l->n++;
	if (len && l->n <= MI_PROGRESS_LINES)
		l->c->progress(l->c, (double)l->n, 0, msg);
}

/* The compile, then its log's counts as the answer.  A compile that fails
 * is an answer like any other (its status says so); only a command that
 * could not run is a tool error. */
static int compile_now(mi_mcp_ctx *c, job_arg *a, mi_mcp_result *r)
{
	line_ctx lc = {.c = c};
	mi_compile_req req = {.config = a->cfg, .target = a->target,
			      .flags = (const char *const *)a->flags, .nflags = a->nflags,
			      .index_path = a->index_path, .task_id = c->task_id,
			      .cancel = c->cancel, .on_line = on_line, .ctx = &lc};
	mi_compile_log log;
	mi_buf err = {0};
	int rc = 0;
	if (mi_compile_run(&req, &log, &err)) {
		rc = mi_mcp_result_error(r, "%s", err.buf);
		goto out;
	}
	mi_compile_log_render(&log, -1, false, &r->out);
	if (err.len)
		mi_buf_addf(&r->out.text, "V* the log could not be kept beside the index: %s\n",
			    err.buf);
	mi_mcp_log(c->env, "compile %s: %s exit %d", c->task_id ? c->task_id : "",
		   log.target, log.exit_code);
	mi_compile_log_release(&log);
out:
	claim_release(a->claim);
	mi_buf_release(&err);
	return rc;
}

/* A background compile the client did not ask to follow as a task. */
static int job_run(mi_mcp_ctx *c, void *arg, mi_buf *out, mi_buf *msg)
{
	mi_mcp_result r;
	memset(&r, 0, sizeof r);
	compile_now(c, arg, &r);
	mi_buf_adds(out, "{\"content\":[{\"type\":\"text\",\"text\":");
	mi_buf_add_json_str(out, mi_buf_str(&r.out.text), r.out.text.len);
	mi_buf_adds(out, "}]");
	if (!r.out.is_error && r.out.json.len)
		mi_buf_addf(out, ",\"structuredContent\":%s", r.out.json.buf);
	mi_buf_addf(out, ",\"isError\":%s}", r.out.is_error ? "true" : "false");
	mi_mcp_result_release(&r);
	return 0;
}

static int t_run_compile(mi_mcp_ctx *c, mi_query *q, json_t *args, mi_mcp_result *r)
{
	json_t *fv = json_object_get(args, "flags"), *x;
	mi_buf err = {0}, started = {0};
	mi_compile_config *cfg;
	const mi_compile_target *t;
	char **argv = NULL;
	job_arg *a;
	size_t i;
	int rc = 0;

	if (!(cfg = config_of(c->env, &err))) {
		rc = mi_mcp_result_error(r, "%s", err.buf);
		goto out;
	}
	a = mi_xcalloc(1, sizeof *a);
	a->cfg = cfg;
	a->target = mi_xstrdup(mi_mcp_arg_str(args, "target", ""));
	a->flags = mi_xcalloc(json_array_size(fv) + 1, sizeof *a->flags);
	json_array_foreach(fv, i, x)
		a->flags[a->nflags++] = mi_xstrdup(json_string_value(x));
	a->index_path = mi_xstrdup(c->env->index_path);
	/* Refuse what the config does not allow before anything starts. */
	t = mi_compile_target_find(cfg, a->target);
	if (!t) {
		mi_buf_addf(&err, "target \"%s\" is not in %s; it names:", a->target, cfg->file);
		for (i = 0; i < cfg->n; i++)
			mi_buf_addf(&err, " %s", cfg->targets[i].name);
	} else if (!mi_compile_argv(t, (const char *const *)a->flags, a->nflags, &argv,
				    &err)) {
		mi_compile_argv_free(argv);
	}
	if (err.len) {
		rc = mi_mcp_result_error(r, "%s", err.buf);
		job_free(a);
		goto out;
	}
	/* One compile of a target at a time: a second one follows the first. */
	if (!(a->claim = claim(cfg->root, t->name, c->task_id, &err))) {
		if (err.len)
			rc = mi_mcp_result_error(r, "Target \"%s\" is already compiling as task "
						 "%s; read_task_log {\"task_id\": \"%s\"} follows "
						 "it. One compile of a target runs at a time.",
						 t->name, err.buf, err.buf);
		else
			rc = mi_mcp_result_error(r, "Target \"%s\" is already compiling (its "
						 "task is starting); ask again in a moment. One "
						 "compile of a target runs at a time.", t->name);
		job_free(a);
		goto out;
	}
	if (c->task_id) {
		/* Already the client's task: compile on its thread. */
		rc = compile_now(c, a, r);
		job_free(a);
		goto out;
	}
	{
		/* Started in the background; read_task_log follows it by id. */
		mi_mcp_task_run run = { "compile", job_run, a, job_free };
		uint64_t claim_serial = a->claim; /* a is the task's from here */
		json_t *j;
		const char *id;
		if (mi_mcp_task_start(c, "", false, 0, &run, NULL, NULL, &started, &err)) {
			rc = mi_mcp_result_error(r, "%s", mi_buf_str(&err));
			goto out;
		}
		j = json_loadb(started.buf, started.len, 0, NULL);
		id = mi_mcp_arg_str(json_object_get(j, "task"), "taskId", "");
		claim_name(claim_serial, id);
		mi_buf_addf(&r->out.text, "V* task: %s (running)\nV* task_id: %s\n"
			    "read_task_log {\"task_id\": \"%s\"} gives the log when it ends.\n",
			    t->name, id, id);
		mi_buf_adds(&r->out.json, "{\"task_id\":");
		mi_buf_add_json_str(&r->out.json, id, strlen(id));
		mi_buf_adds(&r->out.json, ",\"target\":");
		mi_buf_add_json_str(&r->out.json, t->name, strlen(t->name));
		mi_buf_adds(&r->out.json, ",\"status\":\"working\"}");
		json_decref(j);
	}
out:
	mi_buf_release(&err);
	mi_buf_release(&started);
	return rc;
}

/* ---- read_task_log ------------------------------------------------------------- */

static int t_read_task_log(mi_mcp_ctx *c, mi_query *q, json_t *args, mi_mcp_result *r)
{
	const char *id = mi_mcp_arg_str(args, "task_id", "");
	const char *gname = mi_mcp_arg_str(args, "group", NULL);
	json_t *ev = json_object_get(args, "expand");
	int group = gname ? mi_compile_group_find(gname) : -1;
	int64_t wait_s = mi_mcp_arg_int(args, "wait_seconds", MI_WAIT_DEFAULT_S);
	const char *state;
	mi_compile_log log;
	mi_buf note = {0};
	int64_t until;
	int rc = 0;

	if (wait_s > MI_WAIT_MAX_S)
		wait_s = MI_WAIT_MAX_S;
	until = mi_mcp_now_us() + wait_s * 1000000;
	while ((state = mi_mcp_task_state("", id, NULL)) && !strcmp(state, "working") &&
	       mi_mcp_now_us() < until && !c->cancelled(c)) {
		struct timespec ts = {0, 100 * 1000000};
		nanosleep(&ts, NULL);
	}
	state = mi_mcp_task_state("", id, &note);
	if (state && !strcmp(state, "working")) {
		mi_buf_addf(&r->out.text, "V* task %s is still running: %s\nCall "
			    "read_task_log again (wait_seconds up to %d).\n", id,
			    mi_buf_str(&note), MI_WAIT_MAX_S);
		mi_buf_adds(&r->out.json, "{\"task_id\":");
		mi_buf_add_json_str(&r->out.json, id, strlen(id));
		mi_buf_adds(&r->out.json, ",\"status\":\"working\",\"text\":");
		mi_buf_add_json_str(&r->out.json, r->out.text.buf, r->out.text.len);
		mi_buf_addc(&r->out.json, '}');
		goto out;
	}
	if (mi_compile_load(c->env->index_path, id, &log)) {
		rc = mi_mcp_result_error(r, "No task log %s%s%s. run_compile returns the "
					 "task_id; the last %d compiles are kept beside the "
					 "index.", id, note.len ? ": " : "", mi_buf_str(&note),
					 MI_COMPILE_KEEP);
		goto out;
	}
	mi_compile_log_render(&log, group, ev ? json_is_true(ev) : group >= 0, &r->out);
	mi_compile_log_release(&log);
out:
	mi_buf_release(&note);
	return rc;
}

static const mi_mcp_tool compile_tools[] = {
{
	.name = "run_compile", .title = "Compile a target",
	.description = "Runs a compile target the repository's .mcpidx.toml names "
	"(nothing else can run) and returns a task_id at once; read_task_log "
	"gives its log. Errors also show as V* [E] lines in read_file outlines.",
	.input_schema = "{\"type\":\"object\",\"properties\":{"
	"\"target\":{\"type\":\"string\",\"minLength\":1,\"description\":\"A target "
	"named in .mcpidx.toml.\"},"
	"\"flags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":"
	"\"Extra flags the target allows.\"}},\"required\":[\"target\"],"
	"\"additionalProperties\":false}",
	.output_schema = "{\"type\":\"object\",\"properties\":{\"task_id\":{\"type\":"
	"\"string\"},\"target\":{\"type\":\"string\"},\"status\":{\"type\":\"string\"}}}",
	.flags = MI_TOOL_SLOW | MI_TOOL_TASK_OPTIONAL, .fn = t_run_compile,
	.task_kind = "compile", .schema_fn = run_schema,
},
{
	.name = "read_task_log", .title = "Read a compile log",
	.description = "A run_compile log: counts per group (V* ERROR x1) by default; "
	"with group, that group's messages (file:line, text, hint). Waits up to "
	"wait_seconds for a running task.",
	.input_schema = "{\"type\":\"object\",\"properties\":{"
	"\"task_id\":{\"type\":\"string\",\"minLength\":1,\"description\":\"From "
	"run_compile.\"},"
	"\"group\":{\"type\":\"string\",\"enum\":[\"INFO\",\"WARN\",\"ERROR\"]},"
	"\"expand\":{\"type\":\"boolean\",\"description\":\"Messages, not counts.\"},"
	"\"wait_seconds\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":120,"
	"\"default\":30,\"description\":\"Wait for a running task.\"}},"
	"\"required\":[\"task_id\"],\"additionalProperties\":false}",
	.output_schema = "{\"type\":\"object\",\"properties\":{\"task_id\":{\"type\":"
	"\"string\"},\"status\":{\"type\":\"string\"},\"exit_code\":{\"type\":\"integer\"},"
	"\"counts\":{\"type\":\"object\"},\"messages\":{\"type\":\"array\"},\"text\":"
	"{\"type\":\"string\"}}}",
	.flags = MI_TOOL_READ_ONLY | MI_TOOL_IDEMPOTENT | MI_TOOL_SLOW,
	.fn = t_read_task_log,
},
};

const mi_mcp_tool_group mi_mcp_tools_compile = {
	.name = "compile", .tools = compile_tools,
	.n = sizeof compile_tools / sizeof *compile_tools, .applies = compile_applies,
};
