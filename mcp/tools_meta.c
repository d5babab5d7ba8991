/*
 * tools_meta.c - the meta-server's MCP tools: find_tools, describe_tools,
 * execute, list_namespaces.  Listed beside the code tools only when the
 * served index holds a tool catalog; thin over query/catalog.c and
 * mcp/meta.c.
 */
#include "mcp_int.h"

#include <stdlib.h>
#include <string.h>

static const char meta_rows[] =
	"{\"name\":\"find_tools\",\"title\":\"Find tools\","
	"\"description\":\"Finds the tools of the connected MCP servers that fit a task, "
	"described in your own words (BM25F over names, descriptions, parameters and task "
	"phrasings). Returns up to `limit` tools as `server/tool`, a one-line summary and a "
	"signature like (path: string, recursive?: boolean). Call describe_tools with level L2 "
	"for the full schema, then execute.\","
	"\"inputSchema\":{\"type\":\"object\",\"properties\":{"
	"\"query\":{\"type\":\"string\",\"description\":\"The task, e.g. 'turn an address into coordinates'\"},"
	"\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":50,\"default\":5}},"
	"\"required\":[\"query\"]},"
	"\"outputSchema\":{\"type\":\"object\",\"properties\":{\"tools\":{\"type\":\"array\",\"items\":"
	"{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},\"server\":{\"type\":\"string\"},"
	"\"summary\":{\"type\":\"string\"},\"signature\":{\"type\":\"string\"},\"score\":{\"type\":\"number\"}},"
	"\"required\":[\"name\",\"server\",\"summary\",\"score\"]}},\"total\":{\"type\":\"integer\"}},"
	"\"required\":[\"tools\"]},"
	"\"annotations\":{\"readOnlyHint\":true,\"idempotentHint\":true,\"openWorldHint\":false}},"
	"{\"name\":\"describe_tools\",\"title\":\"Describe tools\","
	"\"description\":\"Describes tools found by find_tools: level L0 (names), L1 (summary and "
	"signature) or L2 (description and the full inputSchema/outputSchema needed to call it).\","
	"\"inputSchema\":{\"type\":\"object\",\"properties\":{"
	"\"names\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"server/tool names\"},"
	"\"level\":{\"type\":\"string\",\"enum\":[\"L0\",\"L1\",\"L2\"],\"default\":\"L2\"}},"
	"\"required\":[\"names\"]},"
	"\"outputSchema\":{\"type\":\"object\",\"properties\":{\"tools\":{\"type\":\"array\"},"
	"\"missing\":{\"type\":\"array\"}},\"required\":[\"tools\"]},"
	"\"annotations\":{\"readOnlyHint\":true,\"idempotentHint\":true,\"openWorldHint\":false}},"
	"{\"name\":\"execute\",\"title\":\"Execute a tool\","
	"\"description\":\"Calls a tool of a connected MCP server (`server/tool`, from find_tools) "
	"with its arguments and returns that tool's result unchanged. Tools that change or delete "
	"things need a person's confirmation first; the answer says how.\","
	"\"inputSchema\":{\"type\":\"object\",\"properties\":{"
	"\"tool_name\":{\"type\":\"string\"},"
	"\"arguments\":{\"type\":\"object\",\"description\":\"as the tool's inputSchema says\"},"
	"\"confirm\":{\"type\":\"string\",\"description\":\"the one-time code a person got from "
	"`mcpidx tools confirm`\"}},\"required\":[\"tool_name\"]},"
	"\"annotations\":{\"readOnlyHint\":false,\"destructiveHint\":true,\"openWorldHint\":true}},"
	"{\"name\":\"list_namespaces\",\"title\":\"List tool servers\","
	"\"description\":\"Lists the connected MCP servers (namespaces) with their tool counts and "
	"any error from their last fetch.\","
	"\"inputSchema\":{\"type\":\"object\",\"properties\":{}},"
	"\"outputSchema\":{\"type\":\"object\",\"properties\":{\"namespaces\":{\"type\":\"array\"}},"
	"\"required\":[\"namespaces\"]},"
	"\"annotations\":{\"readOnlyHint\":true,\"idempotentHint\":true,\"openWorldHint\":false}}";

static const char *const meta_names[] = {"find_tools", "describe_tools", "execute",
					 "list_namespaces"};

static struct {
	pthread_mutex_t mu;
	mi_mcp_server *srv;
	mi_meta *meta;
	mi_mcp_session *last;      /* where list_changed goes */
	bool has_catalog;          /* seen at the last tools/list */
} M = {.mu = PTHREAD_MUTEX_INITIALIZER};

bool mi_mcp_meta_is_tool(const char *name)
{
	for (size_t i = 0; i < sizeof(meta_names) / sizeof(meta_names[0]); i++)
		if (!strcmp(meta_names[i], name))
			return true;
	return false;
}

static void changed(void *ctx)
{
	static const char note[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}";
	pthread_mutex_lock(&M.mu);
	if (M.last && M.last->sink.send)
		M.last->sink.send(M.last->sink.ctx, note, sizeof(note) - 1);
	pthread_mutex_unlock(&M.mu);
}

static mi_meta *meta_get(mi_mcp_server *s)
{
	mi_meta *m;
	pthread_mutex_lock(&M.mu);
	if (!M.meta) {
		mi_buf err = {0};
		mi_meta_opts o = {.index = s->index_path, .self_exe = s->self_exe,
				  .changed = changed};
		mi_meta_open(&o, &M.meta, &err);
		mi_buf_release(&err);
	}
	m = M.meta;
	pthread_mutex_unlock(&M.mu);
	return m;
}

void mi_mcp_meta_release(void)
{
	pthread_mutex_lock(&M.mu);
	mi_meta *m = M.meta;
	M.meta = NULL;
	M.last = NULL;
	pthread_mutex_unlock(&M.mu);
	mi_meta_close(m);
}

void mi_mcp_meta_list(mi_mcp_server *s, mi_buf *out)
{
	mi_query *q;
	mi_buf err = {0};
	bool has = false;
	if (!mi_mcp_query_get(s, &q, &err)) {
		has = mi_query_tool_count(q) > 0;
		mi_mcp_query_put(s);
	}
	mi_buf_release(&err);
	if (!has)
		return;
	/* out ends with "]}" of {"tools":[...]} */
	while (out->len && out->buf[out->len - 1] != ']')
		out->len--;
	if (out->len) {
		out->len--;
		out->buf[out->len] = 0;
		mi_buf_adds(out, ",");
		mi_buf_adds(out, meta_rows);
		mi_buf_adds(out, "]}");
	}
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

static void req_progress(void *ctx, double done, double total, const char *msg)
{
	mi_mcp_progress(ctx, done, total, msg);
}

static bool req_cancelled(void *ctx)
{
	return mi_mcp_cancelled(ctx);
}

int mi_mcp_meta_call(mi_mcp_call *c, const char *name, json_t *args, mi_buf *out, int *code,
		     mi_buf *msg)
{
	mi_mcp_server *s = c->sess->srv;
	mi_query *q = NULL;
	mi_buf err = {0};
	mi_out o = {0};
	mi_meta *m;
	int rc = 0;
	pthread_mutex_lock(&M.mu);
	M.last = c->sess;
	pthread_mutex_unlock(&M.mu);
	if (args && !json_is_object(args)) {
		mi_buf_addf(msg, "%s: arguments must be an object", name);
		*code = MI_RPC_INVALID_PARAMS;
		return -1;
	}
	if (mi_mcp_query_get(s, &q, &err)) {
		mi_mcp_tool_error(out, "%s", err.buf);
		goto done;
	}
	m = meta_get(s);
	if (!strcmp(name, "find_tools")) {
		json_t *qv = json_object_get(args, "query"), *lv = json_object_get(args, "limit");
		if (!json_is_string(qv) || (lv && !json_is_integer(lv))) {
			mi_mcp_tool_error(out, "find_tools takes {\"query\": string, \"limit\": integer "
					  "1..50}; query is the task in a few words");
			goto put;
		}
		mi_tools_opts fo = {.query = json_string_value(qv),
				    .limit = lv ? (size_t)json_integer_value(lv) : 0,
				    .policy = m ? mi_meta_policy(m) : NULL,
				    .related = m ? mi_meta_related : NULL, .related_ctx = m};
		mi_query_find_tools(q, &fo, &o);
		result(out, &o);
	} else if (!strcmp(name, "describe_tools")) {
		json_t *nv = json_object_get(args, "names"), *lv = json_object_get(args, "level"), *x;
		const char *names[64];
		size_t n = 0, i;
		int level = lv ? mi_tool_level(json_string_value(lv)) : MI_TOOL_L2;
		if (!json_is_array(nv) || level < 0) {
			mi_mcp_tool_error(out, "describe_tools takes {\"names\": [\"server/tool\", ...], "
					  "\"level\": \"L0\"|\"L1\"|\"L2\"}");
			goto put;
		}
		json_array_foreach(nv, i, x)
			if (json_is_string(x) && n < 64)
				names[n++] = json_string_value(x);
		mi_query_describe_tools(q, names, n, level, m ? mi_meta_policy(m) : NULL, &o);
		result(out, &o);
	} else if (!strcmp(name, "list_namespaces")) {
		mi_query_namespaces(q, &o);
		result(out, &o);
	} else {
		json_t *tv = json_object_get(args, "tool_name"), *av = json_object_get(args, "arguments");
		json_t *cv = json_object_get(args, "confirm");
		if (!json_is_string(tv) || (av && !json_is_object(av) && !json_is_null(av))) {
			mi_mcp_tool_error(out, "execute takes {\"tool_name\": \"server/tool\", "
					  "\"arguments\": {...}}; find_tools gives the names");
			goto put;
		}
		mi_meta_req req = {.progress = c->progress ? req_progress : NULL,
				   .cancelled = req_cancelled, .ctx = c,
				   .session = c->sess->sid[0] ? c->sess->sid : "stdio"};
		if (!m) {
			mi_mcp_tool_error(out, "the meta-server could not start");
			goto put;
		}
		mi_meta_execute(m, q, json_string_value(tv), json_is_object(av) ? av : NULL,
				json_is_string(cv) ? json_string_value(cv) : NULL, &req, out);
	}
put:
	mi_mcp_query_put(s);
done:
	snprintf(c->outcome, sizeof c->outcome, "%s", strstr(mi_buf_str(out), "\"isError\":true") ?
		 "tool-error" : "ok");
	mi_out_release(&o);
	mi_buf_release(&err);
	return rc;
}
