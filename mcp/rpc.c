/*
 * rpc.c - JSON-RPC 2.0 messages (parse, classify, write), newline framing
 * and the table of MCP protocol versions.  Used by both ends of a
 * connection; knows nothing of what the methods mean.
 */
#include "rpc.h"

#include <stdlib.h>
#include <string.h>

#define MI_LINES_CHUNK 65536

/* ---- versions -------------------------------------------------------------------- */

const char *const mi_mcp_versions[] = {
	"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL,
};
const char mi_mcp_versions_json[] =
	"[\"2026-07-28\",\"2025-11-25\",\"2025-06-18\",\"2025-03-26\",\"2024-11-05\"]";

/* The first version with each feature (versions compare as strings). */
static const struct {
	const char *feature;
	const char *since;
} mi_features[] = {
	{ "annotations", "2024-11-05" },
	{ "audio", "2025-03-26" },
	{ "tool_annotations", "2025-03-26" },
	{ "completions", "2025-03-26" },
	{ "structured", "2025-06-18" },
	{ "title", "2025-06-18" },
	{ "resource_link", "2025-06-18" },
	{ "elicitation", "2025-06-18" },
	{ "icons", "2025-11-25" },
	{ "tasks", "2025-11-25" },
	{ "result_type", "2026-07-28" },
};

bool mi_mcp_version_known(const char *v)
{
	size_t i;
	for (i = 0; v && mi_mcp_versions[i]; i++)
		if (strcmp(v, mi_mcp_versions[i]) == 0)
			return true;
	return false;
}

bool mi_mcp_version_stateless(const char *v)
{
	return v && strcmp(v, MI_MCP_MODERN) >= 0;
}

const char *mi_mcp_version_negotiate(const char *v)
{
	size_t i;
	for (i = 0; v && mi_mcp_versions[i]; i++)
		if (strcmp(v, mi_mcp_versions[i]) == 0 &&
		    !mi_mcp_version_stateless(mi_mcp_versions[i]))
			return mi_mcp_versions[i];
	return MI_MCP_LEGACY;
}

bool mi_mcp_version_has(const char *v, const char *feature)
{
	size_t i;
	for (i = 0; i < sizeof mi_features / sizeof *mi_features; i++)
		if (strcmp(mi_features[i].feature, feature) == 0)
			return v && strcmp(v, mi_features[i].since) >= 0;
	return false;
}

/* ---- parsing ------------------------------------------------------------------------- */

void mi_rpc_msg_release(mi_rpc_msg *m)
{
	json_decref(m->root);
	free(m->id_text);
	memset(m, 0, sizeof *m);
}

int mi_rpc_parse(const char *data, size_t len, mi_rpc_msg *m, mi_buf *err)
{
	json_error_t jerr;
	json_t *jv, *meth;
	memset(m, 0, sizeof *m);
	if (len > MI_RPC_MAX_MSG) {
		mi_buf_addf(err, "message of %zu bytes is over the %zu MiB limit; send "
			    "smaller requests", len, MI_RPC_MAX_MSG >> 20);
		return MI_RPC_INVALID_REQUEST;
	}
	m->root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!m->root) {
		if (strstr(jerr.text, "JSON_ALLOW_NUL"))
			mi_buf_addf(err, "Parse error: a string holds \\u0000 (NUL), which "
				    "no name, path or query can contain, at line %d column %d",
				    jerr.line, jerr.column);
		else
			mi_buf_addf(err, "Parse error: %s at line %d column %d", jerr.text,
				    jerr.line, jerr.column);
		return MI_RPC_PARSE;
	}
	if (json_is_array(m->root)) {
		mi_buf_adds(err, "Invalid Request: batch arrays are not supported "
			    "(removed in MCP 2025-06-18); send one message at a time");
		return MI_RPC_INVALID_REQUEST;
	}
	if (!json_is_object(m->root)) {
		mi_buf_adds(err, "Invalid Request: a message must be a JSON object");
		return MI_RPC_INVALID_REQUEST;
	}
	m->id = json_object_get(m->root, "id");
	if (m->id && (json_is_string(m->id) || json_is_integer(m->id)))
		m->id_text = json_dumps(m->id, JSON_ENCODE_ANY | JSON_COMPACT);
	jv = json_object_get(m->root, "jsonrpc");
	if (!json_is_string(jv) || strcmp(json_string_value(jv), "2.0")) {
		mi_buf_adds(err, "Invalid Request: \"jsonrpc\" must be \"2.0\"");
		return MI_RPC_INVALID_REQUEST;
	}
	if (m->id && !m->id_text) {
		m->id = NULL;
		mi_buf_adds(err, "Invalid Request: \"id\" must be a string or an integer");
		return MI_RPC_INVALID_REQUEST;
	}
	meth = json_object_get(m->root, "method");
	if (!meth) {
		m->result = json_object_get(m->root, "result");
		m->error = json_object_get(m->root, "error");
		if (m->id && (m->result || json_is_object(m->error))) {
			m->kind = MI_RPC_RESPONSE;
			return 0;
		}
		if (m->result || m->error) {
			/* A malformed response: never answered (its id is one
			 * of ours, and a client could take the error for its
			 * own request's). */
			m->kind = MI_RPC_RESPONSE;
			mi_buf_adds(err, "Invalid Response: a response needs an id and a "
				    "result or an error object");
			return MI_RPC_INVALID_REQUEST;
		}
		mi_buf_adds(err, "Invalid Request: missing \"method\"");
		return MI_RPC_INVALID_REQUEST;
	}
	if (!json_is_string(meth)) {
		mi_buf_adds(err, "Invalid Request: \"method\" must be a string");
		return MI_RPC_INVALID_REQUEST;
	}
	m->method = json_string_value(meth);
	m->params = json_object_get(m->root, "params");
	if (m->params && json_is_null(m->params))
		m->params = NULL;
	m->kind = m->id ? MI_RPC_REQUEST : MI_RPC_NOTIFICATION;
	if (m->params && !json_is_object(m->params)) {
		mi_buf_adds(err, "Invalid params: \"params\" must be an object");
		return MI_RPC_INVALID_PARAMS;
	}
	return 0;
}

/* ---- writing ---------------------------------------------------------------------------- */

void mi_rpc_put_result(mi_buf *out, const char *id, const char *result, size_t len)
{
	mi_buf_addf(out, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":", id ? id : "null");
	mi_buf_add(out, result, len);
	mi_buf_addc(out, '}');
}

void mi_rpc_put_error(mi_buf *out, const char *id, int code, const char *msg,
		      const char *data)
{
	mi_buf_addf(out, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":%d,"
		    "\"message\":", id ? id : "null", code);
	mi_buf_add_json_str(out, msg, strlen(msg));
	if (data) {
		mi_buf_adds(out, ",\"data\":");
		mi_buf_adds(out, data);
	}
	mi_buf_adds(out, "}}");
}

void mi_rpc_put_request(mi_buf *out, const char *id, const char *method,
			const char *params)
{
	mi_buf_adds(out, "{\"jsonrpc\":\"2.0\",");
	if (id)
		mi_buf_addf(out, "\"id\":%s,", id);
	mi_buf_adds(out, "\"method\":");
	mi_buf_add_json_str(out, method, strlen(method));
	if (params) {
		mi_buf_adds(out, ",\"params\":");
		mi_buf_adds(out, params);
	}
	mi_buf_addc(out, '}');
}

/* ---- newline framing -------------------------------------------------------------------- */

char *mi_rpc_lines_space(mi_rpc_lines *l, size_t *n)
{
	if (l->start) {
		memmove(l->buf, l->buf + l->start, l->len - l->start);
		l->len -= l->start;
		l->scan -= l->start;
		l->start = 0;
	}
	if (l->cap - l->len < MI_LINES_CHUNK / 2) {
		l->cap = l->cap ? l->cap * 2 : MI_LINES_CHUNK;
		l->buf = mi_xrealloc(l->buf, l->cap);
	}
	*n = l->cap - l->len;
	return l->buf + l->len;
}

void mi_rpc_lines_got(mi_rpc_lines *l, size_t n)
{
	l->len += n;
}

static void trim(const char *line, size_t *len)
{
	while (*len && (line[*len - 1] == '\r' || line[*len - 1] == ' ' ||
			line[*len - 1] == '\t'))
		(*len)--;
}

int mi_rpc_lines_next(mi_rpc_lines *l, const char **line, size_t *len)
{
	char *nl = l->scan < l->len ? memchr(l->buf + l->scan, '\n', l->len - l->scan)
				    : NULL;
	if (!nl) {
		l->scan = l->len;
		if (l->len - l->start > MI_RPC_MAX_MSG) {
			/* Over the limit: drop what we hold and skip to its end. */
			l->skipping = true;
			l->skipped += l->len - l->start;
			l->len = l->scan = l->start = 0;
			if (l->cap > 4 * MI_LINES_CHUNK) {
				free(l->buf);
				l->buf = NULL;
				l->cap = 0;
			}
		}
		return 0;
	}
	*line = l->buf + l->start;
	*len = (size_t)(nl - l->buf) - l->start;
	l->start += *len + 1;
	l->scan = l->start;
	if (l->skipping) {
		*len += l->skipped;
		l->skipping = false;
		l->skipped = 0;
		return 2;
	}
	trim(*line, len);
	return 1;
}

int mi_rpc_lines_rest(mi_rpc_lines *l, const char **line, size_t *len)
{
	if (l->skipping || l->len == l->start)
		return 0;
	*line = l->buf + l->start;
	*len = l->len - l->start;
	l->start = l->len;
	trim(*line, len);
	return *len ? 1 : 0;
}

void mi_rpc_lines_release(mi_rpc_lines *l)
{
	free(l->buf);
	memset(l, 0, sizeof *l);
}
