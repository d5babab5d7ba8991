/*
 * tool_meta.c - the meta-server's tools: find_tools, describe_tools,
 * execute, list_namespaces.  A group of its own, listed only when the
 * served index holds a tool catalog; thin over query/catalog.c and
 * mcp/meta.c (connections, policy, confirmations).
 */
#include "area.h"

#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

static struct {
	pthread_mutex_t mu;
	mi_mcp_env *env;           /* where list_changed is announced */
	mi_meta *meta;             /* opened on first use */
} M = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* A background re-index changed the catalog: the tool list may change. */
static void changed(void *ctx)
{
	mi_mcp_env *e = ctx;
	if (e && e->changed)
		e->changed(e, MI_CHANGE_TOOLS, NULL);
}

static mi_meta *meta_get(mi_mcp_env *e)
{
	mi_meta *m;
	pthread_mutex_lock(&M.mu);
	if (!M.meta) {
		mi_buf err = {0};
		mi_meta_opts o = {.index = e->index_path, .self_exe = e->self_exe,
				  .changed = changed, .changed_ctx = e};
		M.env = e;
		mi_meta_open(&o, &M.meta, &err);
		mi_buf_release(&err);
	}
	m = M.meta;
	pthread_mutex_unlock(&M.mu);
	return m;
}

static void meta_release(void)
{
	mi_meta *m;
	pthread_mutex_lock(&M.mu);
	m = M.meta;
	M.meta = NULL;
	pthread_mutex_unlock(&M.mu);
	mi_meta_close(m);
}

void mi_mcp_meta_reindex(mi_mcp_env *e, const char *server)
{
	mi_meta *m = meta_get(e);
	if (m)
		mi_meta_reindex(m, server);
}

/* Listed when the index holds a tool catalog. */
static bool meta_applies(mi_mcp_env *e)
{
	mi_query *q;
	mi_buf err = {0};
	bool has = false;
	if (!mi_mcp_index_get(e, &q, &err)) {
		has = mi_query_tool_count(q) > 0;
		mi_mcp_index_put(e);
	}
	mi_buf_release(&err);
	return has;
}

static int t_find_tools(mi_mcp_ctx *c, mi_query *q, json_t *args, mi_mcp_result *r)
{
	mi_meta *m = meta_get(c->env);
	mi_tools_opts fo = {.query = mi_mcp_arg_str(args, "query", ""),
			    .limit = (size_t)mi_mcp_arg_int(args, "limit", 0),
			    .policy = m ? mi_meta_policy(m) : NULL,
			    .related = m ? mi_meta_related : NULL, .related_ctx = m};
	return mi_query_find_tools(q, &fo, &r->out);
}

static int t_describe_tools(mi_mcp_ctx *c, mi_query *q, json_t *args,
			    mi_mcp_result *r)
{
	mi_meta *m = meta_get(c->env);
	json_t *nv = json_object_get(args, "names"), *x;
	const char *names[64];
	size_t n = 0, i;
	int level = mi_tool_level(mi_mcp_arg_str(args, "level", "L2"));
	if (level < 0)
		return mi_mcp_result_error(r, "describe_tools takes level L0, L1 or L2");
	json_array_foreach(nv, i, x)
		if (json_is_string(x) && n < 64)
			names[n++] = json_string_value(x);
	return mi_query_describe_tools(q, names, n, level, m ? mi_meta_policy(m) : NULL,
				       &r->out);
}

static int t_list_namespaces(mi_mcp_ctx *c, mi_query *q, json_t *args,
			     mi_mcp_result *r)
{
	return mi_query_namespaces(q, &r->out);
}

static void req_progress(void *ctx, double done, double total, const char *msg)
{
	mi_mcp_ctx *c = ctx;
	c->progress(c, done, total, msg);
}

static bool req_cancelled(void *ctx)
{
	mi_mcp_ctx *c = ctx;
	return c->cancelled(c);
}

static int req_ask(void *ctx, const char *method, const char *params, int timeout_ms,
		   mi_buf *out)
{
	mi_mcp_ctx *c = ctx;
	return c->ask(c, method, params, timeout_ms, out);
}

/* The session executions are grouped by for bundles: the client's HTTP
 * session, else this process (a stdio server serves one client). */
static void bundle_session(const mi_mcp_ctx *c, char *out, size_t n)
{
	static atomic_llong started;
	long long none = 0;
	atomic_compare_exchange_strong(&started, &none, (long long)time(NULL));
	if (c->session && *c->session)
		snprintf(out, n, "http-%s", c->session);
	else
		snprintf(out, n, "serve-%ld-%lld", (long)getpid(), atomic_load(&started));
}

/* Holds the text of an isError result (raw JSON) to max_tokens. */
static void cap_error(mi_buf *raw, long mt)
{
	json_t *j = json_loadb(raw->buf ? raw->buf : "", raw->len, 0, NULL);
	json_t *t = json_object_get(json_array_get(json_object_get(j, "content"), 0), "text");
	mi_buf text = {0};
	if (json_is_string(t)) {
		mi_buf_add(&text, json_string_value(t), json_string_length(t));
		if (mi_mcp_cap_text(&text, mt >= 100 && mt <= 200000 ? (size_t)mt : 20000,
				    "the message quotes a long argument")) {
			char *s;
			json_object_set_new(json_array_get(json_object_get(j, "content"), 0), "text",
					    json_stringn(text.buf, text.len));
			if ((s = json_dumps(j, JSON_COMPACT))) {
				mi_buf_reset(raw);
				mi_buf_adds(raw, s);
				free(s);
			}
		}
	}
	mi_buf_release(&text);
	json_decref(j);
}

static int t_execute(mi_mcp_ctx *c, mi_query *q, json_t *args, mi_mcp_result *r)
{
	char session[80];
	mi_meta *m = meta_get(c->env);
	json_t *av = json_object_get(args, "arguments");
	/* A person confirms through the client (elicitation) when the client
	 * declared it; otherwise through the confirm-token round trip. */
	bool elicit = mi_mcp_ctx_has_cap(c, "elicitation");
	bool modern = c->version && !strcmp(c->version, MI_MCP_MODERN);
	mi_meta_req req = {.progress = req_progress, .cancelled = req_cancelled,
			   .ask = elicit && !modern ? req_ask : NULL,
			   .ctx = c, .session = session,
			   /* 2026-07-28: the question goes back as input_required */
			   .can_input = elicit && modern, .input = c->input_responses,
			   .state = c->request_state, .input_required = &r->input_required};
	if (!m)
		return mi_mcp_result_error(r, "the meta-server could not start");
	bundle_session(c, session, sizeof(session));
	/* The upstream tool's result goes back as it came; our own error
	 * holds to max_tokens as every tool's error does. */
	if (mi_meta_execute(m, q, mi_mcp_arg_str(args, "tool_name", ""),
			    json_is_object(av) ? av : NULL,
			    mi_mcp_arg_str(args, "confirm", NULL), &req, &r->raw) > 0)
		cap_error(&r->raw, mi_mcp_arg_int(args, "max_tokens", 20000));
	return 0;
}

static const mi_mcp_tool meta_tools[] = {
{
	"find_tools", "Find tools",
	"Finds the tools of the connected MCP servers that fit a task, described in your own words (BM25F over names, descriptions, parameters and task phrasings). Returns up to `limit` tools as `server/tool`, a one-line summary and a signature like (path: string, recursive?: boolean). Call describe_tools with level L2 for the full schema, then execute.",
	"{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\",\"description\":\"The task, e.g. 'turn an address into coordinates'\"},\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":50,\"default\":5}},\"required\":[\"query\"]}",
	"{\"type\":\"object\",\"properties\":{\"tools\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"server\":{\"type\":\"string\"},\"summary\":{\"type\":\"string\"},\"signature\":{\"type\":\"string\"},\"score\":{\"type\":\"number\"}},\"required\":[\"name\",\"server\",\"summary\",\"score\"]}},\"total\":{\"type\":\"integer\"}},\"required\":[\"tools\"]}",
	MI_TOOL_READ_ONLY | MI_TOOL_IDEMPOTENT | MI_TOOL_INDEX, t_find_tools, NULL, NULL, NULL, NULL, NULL
},
{
	"describe_tools", "Describe tools",
	"Describes tools found by find_tools: level L0 (names), L1 (summary and signature) or L2 (description and the full inputSchema/outputSchema needed to call it).",
	"{\"type\":\"object\",\"properties\":{\"names\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"server/tool names\"},\"level\":{\"type\":\"string\",\"enum\":[\"L0\",\"L1\",\"L2\"],\"default\":\"L2\"}},\"required\":[\"names\"]}",
	"{\"type\":\"object\",\"properties\":{\"tools\":{\"type\":\"array\"},\"missing\":{\"type\":\"array\"}},\"required\":[\"tools\"]}",
	MI_TOOL_READ_ONLY | MI_TOOL_IDEMPOTENT | MI_TOOL_INDEX, t_describe_tools, NULL, NULL, NULL, NULL, NULL
},
{
	"execute", "Execute a tool",
	"Calls a tool of a connected MCP server (`server/tool`, from find_tools) with its arguments and returns that tool's result unchanged. Tools that change or delete things need a person's confirmation first; the answer says how.",
	"{\"type\":\"object\",\"properties\":{\"tool_name\":{\"type\":\"string\"},\"arguments\":{\"type\":\"object\",\"description\":\"as the tool's inputSchema says\"},\"confirm\":{\"type\":\"string\",\"description\":\"the one-time code a person got from `mcpidx tools confirm`\"}},\"required\":[\"tool_name\"]}",
	NULL,
	MI_TOOL_DESTRUCTIVE | MI_TOOL_OPEN_WORLD | MI_TOOL_INDEX | MI_TOOL_SLOW, t_execute, NULL, NULL, NULL, NULL, NULL
},
{
	"list_namespaces", "List tool servers",
	"Lists the connected MCP servers (namespaces) with their tool counts and any error from their last fetch.",
	"{\"type\":\"object\",\"properties\":{}}",
	"{\"type\":\"object\",\"properties\":{\"namespaces\":{\"type\":\"array\"}},\"required\":[\"namespaces\"]}",
	MI_TOOL_READ_ONLY | MI_TOOL_IDEMPOTENT | MI_TOOL_INDEX, t_list_namespaces, NULL, NULL, NULL, NULL, NULL
},
};

const mi_mcp_tool_group mi_mcp_tools_meta = {
	"meta", meta_tools, sizeof meta_tools / sizeof *meta_tools, meta_applies,
	meta_release,
};
