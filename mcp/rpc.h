/*
 * rpc.h - JSON-RPC 2.0 framing and the MCP protocol versions, shared by
 * every speaker of them: the MCP server (mcp/), an MCP client of upstream
 * servers, and the language server.  Nothing here knows about tools,
 * sessions or transports: it reads one message, classifies it, and writes
 * requests, notifications, results and errors.
 *
 * Messages are parsed with jansson (64-bit ids, strict UTF-8, duplicate keys
 * refused) and written with our own escaping string builder (mi_buf), so a
 * large result is never a jansson tree.
 */
#ifndef MI_RPC_H
#define MI_RPC_H

#include "../format/format.h"

#include <jansson.h>
#include <stdbool.h>

/* JSON-RPC and MCP error codes. */
enum {
	MI_RPC_PARSE = -32700,          /* not JSON, duplicate keys, bad UTF-8 */
	MI_RPC_INVALID_REQUEST = -32600, /* not a request (also: not initialized) */
	MI_RPC_NO_METHOD = -32601,       /* unknown method */
	MI_RPC_INVALID_PARAMS = -32602,  /* bad params, unknown tool or resource */
	MI_RPC_INTERNAL = -32603,        /* our fault */
	MI_RPC_RESOURCE_NOT_FOUND_OLD = -32002, /* resources/read, up to 2025-11-25 */
	MI_RPC_HEADER_MISMATCH = -32020,        /* 2026-07-28: HTTP headers vs body */
	MI_RPC_MISSING_CAPABILITY = -32021,     /* 2026-07-28 */
	MI_RPC_UNSUPPORTED_VERSION = -32022,    /* 2026-07-28 */
};

#define MI_RPC_MAX_MSG ((size_t)16 << 20) /* largest message we accept */

/* ---- reading one message -------------------------------------------------- */

typedef enum mi_rpc_kind {
	MI_RPC_REQUEST,        /* method and id */
	MI_RPC_NOTIFICATION,   /* method, no id */
	MI_RPC_RESPONSE,       /* id and result or error */
} mi_rpc_kind;

/* One parsed message.  Every pointer is borrowed from root and lives until
 * mi_rpc_msg_release. */
typedef struct mi_rpc_msg {
	json_t *root;          /* the whole message (owned) */
	mi_rpc_kind kind;      /* what it is */
	const char *method;    /* request or notification; else NULL */
	json_t *params;        /* may be NULL; an object when present */
	json_t *id;            /* request or response id; else NULL */
	char *id_text;         /* id as compact JSON text ("7", "\"a\""), malloc'd */
	json_t *result;        /* response: the result; else NULL */
	json_t *error;         /* response: the error object; else NULL */
} mi_rpc_msg;

/*
 * Parses data[0..len) as one JSON-RPC 2.0 message into *m.  Returns 0, or a
 * JSON-RPC error code with the message in err and, when the id could be
 * read, m->id_text set (so the error can name the request), and m->kind
 * what the message was meant to be (a notification or a response, which
 * no error may answer); release *m either way.  Batches (arrays) are refused: MCP removed them in 2025-06-18.
 */
int mi_rpc_parse(const char *data, size_t len, mi_rpc_msg *m, mi_buf *err);
void mi_rpc_msg_release(mi_rpc_msg *m);

/* ---- writing ---------------------------------------------------------------- */

/* {"jsonrpc":"2.0","id":ID,"result":RESULT}; id is JSON text ("null" if NULL). */
void mi_rpc_put_result(mi_buf *out, const char *id, const char *result, size_t len);
/* An error response; data (JSON text) may be NULL. */
void mi_rpc_put_error(mi_buf *out, const char *id, int code, const char *msg,
		      const char *data);
/* A request or, with id NULL, a notification; params (JSON text) may be NULL. */
void mi_rpc_put_request(mi_buf *out, const char *id, const char *method,
			const char *params);

/* ---- newline-delimited framing (stdio) ---------------------------------------- */

/*
 * Splits a byte stream into lines of at most MI_RPC_MAX_MSG bytes without
 * ever holding more than that: a longer line is skipped as it arrives and
 * reported once its end is seen.
 */
typedef struct mi_rpc_lines {
	char *buf;             /* bytes not yet returned */
	size_t len, cap;       /* used and allocated */
	size_t scan;           /* bytes already searched for '\n' */
	size_t start;          /* first byte of the next line */
	bool skipping;         /* inside a line over the limit */
	size_t skipped;        /* its bytes so far */
} mi_rpc_lines;

/* Space to read into: *n bytes at the returned pointer; then mi_rpc_lines_got. */
char *mi_rpc_lines_space(mi_rpc_lines *l, size_t *n);
void mi_rpc_lines_got(mi_rpc_lines *l, size_t n);
/*
 * The next complete line (without '\n' and trailing '\r'/blanks): returns 1
 * with *line and *len set (valid until the next call), 2 when a line over the
 * limit ended (*len = its size), 0 when more input is needed.
 */
int mi_rpc_lines_next(mi_rpc_lines *l, const char **line, size_t *len);
/* At end of input: the unterminated last line, if any (1), else 0. */
int mi_rpc_lines_rest(mi_rpc_lines *l, const char **line, size_t *len);
void mi_rpc_lines_release(mi_rpc_lines *l);

/* ---- MCP protocol versions ----------------------------------------------------- */

#define MI_MCP_MODERN "2026-07-28"    /* newest; stateless (per-request _meta) */
#define MI_MCP_LEGACY "2025-11-25"    /* newest that initializes */

/* _meta keys of the stateless protocol. */
#define MI_META_VERSION "io.modelcontextprotocol/protocolVersion"
#define MI_META_CAPS "io.modelcontextprotocol/clientCapabilities"
#define MI_META_CLIENT "io.modelcontextprotocol/clientInfo"
#define MI_META_SERVER "io.modelcontextprotocol/serverInfo"
#define MI_META_LOG_LEVEL "io.modelcontextprotocol/logLevel"
#define MI_META_SUBSCRIPTION "io.modelcontextprotocol/subscriptionId"
#define MI_META_RELATED_TASK "io.modelcontextprotocol/related-task"
#define MI_EXT_TASKS "io.modelcontextprotocol/tasks"

/* Every version we speak, newest first, NULL-terminated. */
extern const char *const mi_mcp_versions[];
/* The same as a JSON array text: ["2026-07-28",...]. */
extern const char mi_mcp_versions_json[];

/* True when v is one of mi_mcp_versions. */
bool mi_mcp_version_known(const char *v);
/* True for versions without initialize (2026-07-28 and later). */
bool mi_mcp_version_stateless(const char *v);
/* The version an initialize asking for v gets: v when we speak it and it
 * initializes, else the newest that initializes. */
const char *mi_mcp_version_negotiate(const char *v);
/* True when version v has feature f: "tasks" (2025-11-25 core tasks),
 * "structured" (structuredContent, outputSchema), "title", "icons",
 * "resource_link", "audio", "annotations", "elicitation", "result_type". */
bool mi_mcp_version_has(const char *v, const char *feature);

#endif
