/*
 * tools_art.c - the artifact tools over MCP: generate_prompt,
 * store_llm_result, get_artifact, list_artifacts, delete_artifact and
 * generate_artifact (seed 002's surface: reads and side effects apart in
 * names and annotations).  Rows and arguments only; the work is in
 * query/artifacts.c (reads, prompts) and mcp/artifacts.c (writes, chains).
 * Every result carries the structured answer {status, data, error,
 * nextAction, ...} as structuredContent, errors included.
 */
#include "mcp_int.h"

#include <stdlib.h>
#include <string.h>

/* The structured answer every artifact tool gives. */
#define ART_OUT "{\"type\":\"object\",\"properties\":{" \
	"\"status\":{\"type\":\"string\",\"enum\":[\"success\",\"error\",\"prompt_ready\"]}," \
	"\"data\":{\"type\":[\"object\",\"null\"]},\"error\":{\"type\":[\"string\",\"null\"]}," \
	"\"nextAction\":{\"type\":\"string\"},\"promptForHostLLM\":{\"type\":\"string\"}," \
	"\"callbackTool\":{\"type\":\"string\"},\"callbackArgs\":{\"type\":\"object\"}}," \
	"\"required\":[\"status\",\"nextAction\"]}"

#define P_PATH "\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":\"Source " \
	"file, relative to the repository root (\\\"src/cache.c\\\"), or \\\"tool:server/tool\\\" " \
	"for a tool of the catalog (task aliases).\"}"
#define P_SYMBOL "\"symbol\":{\"type\":\"string\",\"description\":\"One symbol of the " \
	"file: NAME or Parent.NAME.\"}"
#define P_CHAIN "\"chain\":{\"type\":\"string\",\"description\":\"The chain id from " \
	"callbackArgs, to continue a workflow; omit to start one.\"}"

typedef int (*art_fn)(mi_art *, mi_query *, const mi_art_req *, mi_out *);

/* One artifact tool. */
typedef struct art_tool {
	const char *name;          /* tools/call name */
	const char *title;         /* display name */
	const char *description;   /* for the model */
	const char *input_schema;  /* JSON Schema of the arguments */
	bool read_only;            /* annotations.readOnlyHint */
	bool destructive;          /* annotations.destructiveHint */
	bool idempotent;           /* annotations.idempotentHint */
	art_fn fn;                 /* the work */
} art_tool;

static const art_tool art_tools[] = {
{
	"generate_prompt", "Prompt for your model",
	"Builds a prompt for YOUR OWN model about one file (or one symbol): the folded "
	"outline and only the bodies the task needs, within a token budget. The server "
	"never calls a model and needs no API key. Returns {status: \"prompt_ready\", "
	"promptForHostLLM, callbackTool: \"store_llm_result\", callbackArgs}: run the "
	"prompt with your model, then call store_llm_result with callbackArgs plus "
	"\"result\" (the model's answer). Tasks: annotate (one line per function), "
	"summarize, document, test-plan; aliases for a catalog tool (path "
	"\"tool:server/tool\").",
	"{\"type\":\"object\",\"properties\":{" P_PATH ","
	"\"task\":{\"type\":\"string\",\"enum\":[\"annotate\",\"summarize\",\"document\","
	"\"test-plan\",\"aliases\"],\"description\":\"What to ask the model for.\"},"
	P_SYMBOL "," P_CHAIN "},\"required\":[\"path\",\"task\"],\"additionalProperties\":false}",
	true, false, false, mi_mcp_art_prompt,
},
{
	"store_llm_result", "Store your model's answer",
	"Stores what your model answered to a generate_prompt prompt as an artifact, "
	"pinned to the content hash of the source the prompt described (it shows as "
	"stale once the file changes). Pass callbackArgs unchanged plus \"result\". An "
	"annotate answer of \"NAME: text\" lines is also stored per function. Stored "
	"summaries and annotations are searchable with search_code. Returns "
	"{status, data: {artifact, step, max_steps}, nextAction}.",
	"{\"type\":\"object\",\"properties\":{" P_PATH ","
	"\"task\":{\"type\":\"string\",\"enum\":[\"annotate\",\"summarize\",\"document\","
	"\"test-plan\",\"aliases\"]},"
	"\"result\":{\"type\":\"string\",\"minLength\":1,\"description\":\"The model's "
	"answer to the prompt.\"}," P_SYMBOL "," P_CHAIN ","
	"\"step\":{\"type\":\"integer\",\"description\":\"From callbackArgs (the server "
	"counts steps itself).\"},"
	"\"hash\":{\"type\":\"string\",\"description\":\"From callbackArgs: the source the "
	"prompt described.\"}},\"required\":[\"path\",\"task\",\"result\"],"
	"\"additionalProperties\":false}",
	false, false, true, mi_mcp_art_store,
},
{
	"get_artifact", "Read artifacts",
	"Returns the artifacts stored for a file (summaries, annotations, docs, test "
	"plans), each with its text, the chain that made it and whether it is stale (the "
	"file changed since). Narrow with task and symbol; path \"tool:server/tool\" "
	"returns a tool's aliases. Returns {status, data: {path, count, stale, "
	"artifacts: [...]}, nextAction}.",
	"{\"type\":\"object\",\"properties\":{" P_PATH ","
	"\"task\":{\"type\":\"string\",\"description\":\"Only this task.\"}," P_SYMBOL "},"
	"\"required\":[\"path\"],\"additionalProperties\":false}",
	true, false, true, mi_art_get,
},
{
	"list_artifacts", "List artifacts",
	"Lists the stored artifacts as a directory tree, each file with its artifacts "
	"(task, symbol, stale or not). Narrow with directory and type (a task). "
	"Returns {status, data: {total, files, stale, tree}, nextAction}.",
	"{\"type\":\"object\",\"properties\":{"
	"\"directory\":{\"type\":\"string\",\"description\":\"Only under this directory, "
	"e.g. \\\"src/net\\\".\"},"
	"\"type\":{\"type\":\"string\",\"description\":\"Only this task, e.g. "
	"\\\"summarize\\\".\"}},\"additionalProperties\":false}",
	true, false, true, mi_art_list,
},
{
	"delete_artifact", "Delete artifacts",
	"Deletes the stored artifacts of a file: all of them, or those of one task "
	"and/or symbol. Returns {status, data: {path, deleted}, nextAction}.",
	"{\"type\":\"object\",\"properties\":{" P_PATH ","
	"\"task\":{\"type\":\"string\",\"description\":\"Only this task.\"}," P_SYMBOL "},"
	"\"required\":[\"path\"],\"additionalProperties\":false}",
	false, true, true, mi_mcp_art_delete,
},
{
	"generate_artifact", "Generate an artifact",
	"task parse answers at once with the file's structure from the index (the "
	"folded outline of every symbol); annotate and summarize answer prompt_ready "
	"like generate_prompt, with options.focusOn naming the symbols whose bodies the "
	"prompt carries. Returns {status, data, nextAction, promptForHostLLM?, "
	"callbackTool?, callbackArgs?}.",
	"{\"type\":\"object\",\"properties\":{" P_PATH ","
	"\"task\":{\"type\":\"string\",\"enum\":[\"parse\",\"annotate\",\"summarize\"]},"
	"\"options\":{\"type\":\"object\",\"description\":\"{focusOn: [symbol names]}\"},"
	P_CHAIN "},\"required\":[\"path\",\"task\"],\"additionalProperties\":false}",
	true, false, false, mi_mcp_art_generate,
},
};

#define NART (sizeof art_tools / sizeof *art_tools)

static struct {
	pthread_mutex_t mu;       /* guards the fields below */
	mi_art *art;              /* opened on the first call */
	json_t *schemas[NART];    /* parsed inputSchemas */
	char *rows;               /* the tools/list rows, comma-separated */
} A = {.mu = PTHREAD_MUTEX_INITIALIZER};

bool mi_mcp_art_is_tool(const char *name)
{
	for (size_t i = 0; i < NART; i++)
		if (!strcmp(art_tools[i].name, name))
			return true;
	return false;
}

/* Builds the rows and schemas once; call with A.mu held. */
static void rows_build(void)
{
	mi_buf b = {0};
	if (A.rows)
		return;
	for (size_t i = 0; i < NART; i++) {
		const art_tool *t = &art_tools[i];
		A.schemas[i] = json_loads(t->input_schema, JSON_REJECT_DUPLICATES, NULL);
		mi_buf_adds(&b, i ? ",{\"name\":" : "{\"name\":");
		mi_buf_add_json_str(&b, t->name, strlen(t->name));
		mi_buf_adds(&b, ",\"title\":");
		mi_buf_add_json_str(&b, t->title, strlen(t->title));
		mi_buf_adds(&b, ",\"description\":");
		mi_buf_add_json_str(&b, t->description, strlen(t->description));
		mi_buf_addf(&b, ",\"inputSchema\":%s,\"outputSchema\":" ART_OUT
			    ",\"annotations\":{\"title\":", t->input_schema);
		mi_buf_add_json_str(&b, t->title, strlen(t->title));
		mi_buf_addf(&b, ",\"readOnlyHint\":%s,", t->read_only ? "true" : "false");
		if (!t->read_only)
			mi_buf_addf(&b, "\"destructiveHint\":%s,", t->destructive ? "true" : "false");
		mi_buf_addf(&b, "\"idempotentHint\":%s,\"openWorldHint\":false},"
			    "\"execution\":{\"taskSupport\":\"forbidden\"},\"icons\":" MI_MCP_ICONS "}",
			    t->idempotent ? "true" : "false");
	}
	A.rows = mi_buf_detach(&b);
}

void mi_mcp_art_list(mi_buf *out)
{
	pthread_mutex_lock(&A.mu);
	rows_build();
	/* out ends with "]}" of {"tools":[...]} */
	while (out->len && out->buf[out->len - 1] != ']')
		out->len--;
	if (out->len) {
		out->buf[--out->len] = 0;
		if (out->len && out->buf[out->len - 1] != '[')
			mi_buf_addc(out, ',');
		mi_buf_adds(out, A.rows);
		mi_buf_adds(out, "]}");
	}
	pthread_mutex_unlock(&A.mu);
}

void mi_mcp_art_release(void)
{
	pthread_mutex_lock(&A.mu);
	mi_art_free(A.art);
	A.art = NULL;
	for (size_t i = 0; i < NART; i++) {
		json_decref(A.schemas[i]);
		A.schemas[i] = NULL;
	}
	free(A.rows);
	A.rows = NULL;
	pthread_mutex_unlock(&A.mu);
}

mi_art *mi_mcp_art_handle(mi_mcp_server *s)
{
	mi_art *a;
	pthread_mutex_lock(&A.mu);
	if (!A.art) {
		mi_art_opts o = {0};
		if (s->opts && s->opts->art)
			o = *s->opts->art;
		o.index = s->index_path;
		o.repo = s->repo_path;
		A.art = mi_art_new(&o);
	}
	a = A.art;
	pthread_mutex_unlock(&A.mu);
	return a;
}

static const char *arg_str(json_t *args, const char *k)
{
	json_t *v = args ? json_object_get(args, k) : NULL;
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The CallToolResult of an artifact answer: the text, and the structured
 * answer as structuredContent whether it is an error or not. */
static void result(mi_buf *out, const mi_out *o)
{
	mi_buf_adds(out, "{\"content\":[{\"type\":\"text\",\"text\":");
	mi_buf_add_json_str(out, mi_buf_str(&o->text), o->text.len);
	mi_buf_adds(out, "}]");
	if (o->json.len)
		mi_buf_addf(out, ",\"structuredContent\":%s", o->json.buf);
	mi_buf_addf(out, ",\"isError\":%s}", o->is_error ? "true" : "false");
}

int mi_mcp_art_call(mi_mcp_call *c, const char *name, json_t *args, mi_buf *out,
		    int *code, mi_buf *msg)
{
	mi_mcp_server *s = c->sess->srv;
	const art_tool *t = NULL;
	const char *focus[64];
	mi_query *q = NULL;
	mi_buf err = {0};
	mi_out o = {0};
	mi_art_req r;
	json_t *schema, *fv, *x;
	size_t i;

	for (i = 0; i < NART; i++)
		if (!strcmp(art_tools[i].name, name))
			t = &art_tools[i];
	if (!t) {
		mi_buf_addf(msg, "Unknown tool: %s", name);
		*code = MI_RPC_INVALID_PARAMS;
		return -1;
	}
	pthread_mutex_lock(&A.mu);
	rows_build();
	schema = A.schemas[t - art_tools];
	pthread_mutex_unlock(&A.mu);
	if (mi_mcp_args_check(name, schema, args, &err)) {
		mi_mcp_tool_error(out, "%s", err.buf);
		snprintf(c->outcome, sizeof c->outcome, "tool-error: %.70s", err.buf);
		goto out;
	}
	memset(&r, 0, sizeof r);
	r.tool = name;
	r.path = arg_str(args, "path");
	r.task = arg_str(args, "task");
	r.symbol = arg_str(args, "symbol");
	r.result = arg_str(args, "result");
	r.chain = arg_str(args, "chain");
	r.hash = arg_str(args, "hash");
	r.directory = arg_str(args, "directory");
	r.type = arg_str(args, "type");
	r.call_id = c->cid;
	fv = json_object_get(json_object_get(args, "options"), "focusOn");
	json_array_foreach(fv, i, x)
		if (json_is_string(x) && r.nfocus < 64)
			focus[r.nfocus++] = json_string_value(x);
	r.focus = r.nfocus ? focus : NULL;
	if (mi_mcp_query_get(s, &q, &err)) {
		mi_mcp_tool_error(out, "%s", err.buf);
		snprintf(c->outcome, sizeof c->outcome, "tool-error: no index");
		goto out;
	}
	t->fn(mi_mcp_art_handle(s), q, &r, &o);
	mi_mcp_query_put(s);
	result(out, &o);
	{
		/* The log line: the outcome and, for a chain step, its id and count. */
		json_t *j = json_loadb(o.json.buf ? o.json.buf : "", o.json.len, 0, NULL);
		json_t *d = json_object_get(j, "data");
		json_t *ch = json_object_get(d, "chain"), *st = json_object_get(d, "step");
		json_t *cb = json_object_get(json_object_get(j, "callbackArgs"), "chain");
		const char *chain = json_is_string(ch) ? json_string_value(ch) :
				    json_is_string(cb) ? json_string_value(cb) :
				    json_string_value(json_object_get(json_object_get(d, "artifact"), "chain"));
		snprintf(c->outcome, sizeof c->outcome, "%s%s%s step=%lld",
			 json_string_value(json_object_get(j, "status")) ?
			 json_string_value(json_object_get(j, "status")) : "error",
			 chain ? " chain=" : "", chain ? chain : "",
			 (long long)json_integer_value(st));
		json_decref(j);
	}
out:
	mi_out_release(&o);
	mi_buf_release(&err);
	return 0;
}
