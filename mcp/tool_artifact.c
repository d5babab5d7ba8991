/*
 * tool_artifact.c - the artifact tools: generate_prompt, store_llm_result,
 * get_artifact, list_artifacts, delete_artifact and generate_artifact (seed
 * 002's surface: reads and side effects apart in names and annotations).  A
 * group of its own, listed when the server was started with --artifacts;
 * rows and arguments only: the reads and prompts are in query/artifacts.c,
 * the writes and chains in mcp/artifacts.c.  Every answer carries the
 * structured object {status, data, error, nextAction, ...} as
 * structuredContent, errors included.
 */
#include "area.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR "{\"type\":\"string\"}"
#define OBJ_OR_NULL "{\"anyOf\":[{\"type\":\"object\"},{\"type\":\"null\"}]}"
#define STR_OR_NULL "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]}"

/* The structured answer every artifact tool gives. */
#define ART_OUT "{\"type\":\"object\",\"properties\":{" \
	"\"status\":{\"type\":\"string\",\"enum\":[\"success\",\"error\"," \
	"\"prompt_ready\"]},\"data\":" OBJ_OR_NULL ",\"error\":" STR_OR_NULL "," \
	"\"nextAction\":" STR ",\"promptForHostLLM\":" STR ",\"callbackTool\":" STR \
	",\"callbackArgs\":{\"type\":\"object\"}},\"required\":[\"status\"]}"

#define P_PATH "\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":" \
	"\"Repo-relative file, or tool:server/tool for a catalog tool.\"}"
#define P_SYMBOL "\"symbol\":{\"type\":\"string\",\"description\":\"NAME or " \
	"Parent.NAME.\"}"
#define P_CHAIN "\"chain\":{\"type\":\"string\",\"description\":\"From " \
	"callbackArgs.\"}"
#define P_TASK "\"task\":{\"type\":\"string\",\"description\":\"Only this task.\"}"
#define TASKS "[\"annotate\",\"summarize\",\"document\",\"test-plan\",\"aliases\"]"

/* ---- the handle ---------------------------------------------------------------- */

static struct {
	pthread_mutex_t mu;
	mi_art *art;               /* opened on first use */
} A = {.mu = PTHREAD_MUTEX_INITIALIZER};

mi_art *mi_mcp_art_handle(mi_mcp_env *e)
{
	mi_art *a;
	pthread_mutex_lock(&A.mu);
	if (!A.art) {
		mi_art_opts o = {0};
		if (e->opts && e->opts->art)
			o = *e->opts->art;
		o.index = e->index_path;
		o.repo = e->repo_real ? e->repo_real : e->repo_path;
		A.art = mi_art_new(&o);
	}
	a = A.art;
	pthread_mutex_unlock(&A.mu);
	return a;
}

static void art_release(void)
{
	pthread_mutex_lock(&A.mu);
	mi_art_free(A.art);
	A.art = NULL;
	pthread_mutex_unlock(&A.mu);
}

bool mi_mcp_art_enabled(const mi_mcp_env *e)
{
	return e->opts && e->opts->artifacts;
}

static bool art_applies(mi_mcp_env *e)
{
	return mi_mcp_art_enabled(e);
}

/* ---- the call ---------------------------------------------------------------------- */

typedef int (*art_fn)(mi_art *, mi_query *, const mi_art_req *, mi_out *);

/* The answer: success and prompt_ready go through tools.c as they are; an
 * error answer keeps its structured object (status, error, nextAction), so
 * it is written here as a whole CallToolResult. */
static int answer(mi_mcp_ctx *c, mi_out *o, mi_mcp_result *r)
{
	if (!o->is_error) {
		mi_out_release(&r->out);
		r->out = *o;
		memset(o, 0, sizeof *o);
		return 0;
	}
	mi_buf_adds(&r->raw, "{\"content\":[{\"type\":\"text\",\"text\":");
	mi_buf_add_json_str(&r->raw, mi_buf_str(&o->text), o->text.len);
	mi_buf_adds(&r->raw, "}]");
	if (o->json.len && mi_mcp_version_has(c->version, "structured"))
		mi_buf_addf(&r->raw, ",\"structuredContent\":%s", o->json.buf);
	mi_buf_adds(&r->raw, ",\"isError\":true}");
	return 0;
}

/* One line per artifact call in the server log: the chain and its step. */
static void log_step(mi_mcp_ctx *c, const char *tool, const mi_out *o)
{
	json_t *j = json_loadb(o->json.buf ? o->json.buf : "", o->json.len, 0, NULL);
	json_t *d = json_object_get(j, "data");
	json_t *cb = json_object_get(j, "callbackArgs");
	const char *chain = mi_mcp_arg_str(d, "chain", mi_mcp_arg_str(cb, "chain",
				mi_mcp_arg_str(json_object_get(d, "artifact"), "chain", "")));
	long long step = mi_mcp_arg_int(d, "step", mi_mcp_arg_int(cb, "step", 0));
	mi_mcp_log_at(c->env, MI_LOG_INFO, "artifact tool=%s status=%s chain=%s step=%lld",
		      tool, mi_mcp_arg_str(j, "status", "error"), *chain ? chain : "-",
		      step);
	json_decref(j);
}

static int run(mi_mcp_ctx *c, mi_query *q, json_t *args, mi_mcp_result *r,
	       const char *tool, art_fn fn)
{
	const char *focus[64];
	mi_out o = {0};
	mi_art_req rq;
	json_t *fv, *x;
	size_t i;
	memset(&rq, 0, sizeof rq);
	rq.tool = tool;
	rq.path = mi_mcp_arg_str(args, "path", NULL);
	rq.task = mi_mcp_arg_str(args, "task", NULL);
	rq.symbol = mi_mcp_arg_str(args, "symbol", NULL);
	rq.result = mi_mcp_arg_str(args, "result", NULL);
	rq.chain = mi_mcp_arg_str(args, "chain", NULL);
	rq.hash = mi_mcp_arg_str(args, "hash", NULL);
	rq.directory = mi_mcp_arg_str(args, "directory", NULL);
	rq.type = mi_mcp_arg_str(args, "type", NULL);
	fv = json_object_get(json_object_get(args, "options"), "focusOn");
	json_array_foreach(fv, i, x)
		if (json_is_string(x) && rq.nfocus < 64)
			focus[rq.nfocus++] = json_string_value(x);
	rq.focus = rq.nfocus ? focus : NULL;
	fn(mi_mcp_art_handle(c->env), q, &rq, &o);
	log_step(c, tool, &o);
	answer(c, &o, r);
	mi_out_release(&o);
	return 0;
}

static int t_prompt(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	return run(c, q, a, r, "generate_prompt", mi_mcp_art_prompt);
}

static int t_store(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	const char *path = mi_mcp_arg_str(a, "path", "");
	const char *slash = strchr(path, '/');
	size_t pre = strlen(MI_ART_TOOL_PREFIX);
	run(c, q, a, r, "store_llm_result", mi_mcp_art_store);
	/* A tool's new aliases: re-index its server's catalog so find_tools
	 * matches them (in the background; list_changed follows). */
	if (!r->out.is_error && !r->raw.len && strncmp(path, MI_ART_TOOL_PREFIX, pre) == 0 &&
	    slash && slash > path + pre) {
		char server[128];
		snprintf(server, sizeof server, "%.*s", (int)(slash - path - pre), path + pre);
		mi_mcp_meta_reindex(c->env, server);
	}
	return 0;
}

static int t_get(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	return run(c, q, a, r, "get_artifact", mi_art_get);
}

static int t_list(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	return run(c, q, a, r, "list_artifacts", mi_art_list);
}

static int t_delete(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	return run(c, q, a, r, "delete_artifact", mi_mcp_art_delete);
}

static int t_generate(mi_mcp_ctx *c, mi_query *q, json_t *a, mi_mcp_result *r)
{
	return run(c, q, a, r, "generate_artifact", mi_mcp_art_generate);
}

/* ---- the table ------------------------------------------------------------------- */

#define RO (MI_TOOL_READ_ONLY | MI_TOOL_INDEX)

static const mi_mcp_tool art_tools[] = {
{
	"generate_prompt", "Prompt for your model",
	"A prompt for YOUR model about a file or symbol (outline + needed bodies; "
	"no API key here). Returns prompt_ready with promptForHostLLM: run it, then "
	"call store_llm_result with callbackArgs plus result.",
	"{\"type\":\"object\",\"properties\":{" P_PATH ","
	"\"task\":{\"type\":\"string\",\"enum\":" TASKS "}," P_SYMBOL "," P_CHAIN "},"
	"\"required\":[\"path\",\"task\"],\"additionalProperties\":false}",
	ART_OUT, RO, t_prompt, NULL, NULL, NULL, NULL, NULL
},
{
	"store_llm_result", "Store your model's answer",
	"Stores your model's answer to a generate_prompt prompt, pinned to the "
	"source (stale once it changes); summaries become searchable.",
	"{\"type\":\"object\",\"properties\":{" P_PATH ","
	"\"task\":{\"type\":\"string\",\"enum\":" TASKS "},"
	"\"result\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The "
	"model's answer.\"}," P_SYMBOL "," P_CHAIN ","
	"\"step\":{\"type\":\"integer\",\"description\":\"From callbackArgs.\"},"
	"\"hash\":{\"type\":\"string\",\"description\":\"From callbackArgs.\"}},"
	"\"required\":[\"path\",\"task\",\"result\"],\"additionalProperties\":false}",
	ART_OUT, MI_TOOL_IDEMPOTENT | MI_TOOL_INDEX, t_store, NULL, NULL, NULL, NULL, NULL
},
{
	"get_artifact", "Read artifacts",
	"The stored artifacts of a file (or tool:server/tool aliases): text, "
	"chain, and whether the source changed since (stale).",
	"{\"type\":\"object\",\"properties\":{" P_PATH "," P_TASK "," P_SYMBOL "},"
	"\"required\":[\"path\"],\"additionalProperties\":false}",
	ART_OUT, RO | MI_TOOL_IDEMPOTENT, t_get, NULL, NULL, NULL, NULL, NULL
},
{
	"list_artifacts", "List artifacts",
	"The stored artifacts as a directory tree, each file with its tasks and "
	"stale marks.",
	"{\"type\":\"object\",\"properties\":{"
	"\"directory\":{\"type\":\"string\",\"description\":\"Only under it.\"},"
	"\"type\":{\"type\":\"string\",\"description\":\"Only this task.\"}},"
	"\"additionalProperties\":false}",
	ART_OUT, RO | MI_TOOL_IDEMPOTENT, t_list, NULL, NULL, NULL, NULL, NULL
},
{
	"delete_artifact", "Delete artifacts",
	"Deletes a file's stored artifacts: all, or one task's or symbol's.",
	"{\"type\":\"object\",\"properties\":{" P_PATH "," P_TASK "," P_SYMBOL "},"
	"\"required\":[\"path\"],\"additionalProperties\":false}",
	ART_OUT, MI_TOOL_DESTRUCTIVE | MI_TOOL_IDEMPOTENT | MI_TOOL_INDEX, t_delete,
	NULL, NULL, NULL, NULL, NULL
},
{
	"generate_artifact", "Generate an artifact",
	"parse: the file's structure from the index, at once; annotate or "
	"summarize: prompt_ready as generate_prompt, bodies of options.focusOn.",
	"{\"type\":\"object\",\"properties\":{" P_PATH ","
	"\"task\":{\"type\":\"string\",\"enum\":[\"parse\",\"annotate\",\"summarize\"]},"
	"\"options\":{\"type\":\"object\",\"description\":\"{focusOn: [symbols]}\"},"
	P_CHAIN "},\"required\":[\"path\",\"task\"],\"additionalProperties\":false}",
	ART_OUT, RO, t_generate, NULL, NULL, NULL, NULL, NULL
},
};

const mi_mcp_tool_group mi_mcp_tools_artifact = {
	"artifact", art_tools, sizeof art_tools / sizeof *art_tools, art_applies,
	art_release,
};
