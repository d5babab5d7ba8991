/*
 * mcp.h - the Model Context Protocol server: JSON-RPC 2.0 over stdio or
 * streamable HTTP on loopback, a thin layer over query/.
 */
#ifndef MI_MCP_H
#define MI_MCP_H

#include "../query/query.h"

typedef struct mi_mcp_opts {
	const char *index;     /* index dir or packed file; may not exist yet */
	const char *http;      /* "127.0.0.1:PORT" to serve HTTP, NULL = stdio */
	const char *log_file;  /* log destination, NULL = stderr */
	const char *self_exe;  /* path of the mcpidx binary (for index_codebase) */
	bool allow_remote;     /* allow binding a non-loopback address */
} mi_mcp_opts;

/* Serves until stdin closes (stdio) or SIGINT/SIGTERM (HTTP).  Returns 0 or
 * an error after printing why to the log. */
int mi_mcp_serve(const mi_mcp_opts *o);

/* ---- client (client.c): mcpidx as a client of upstream MCP servers ------ */

#include <jansson.h>
#include <stdatomic.h>
#include <sys/types.h>

enum { MI_MCP_STDIO, MI_MCP_HTTP };

/* Receives a notification from an upstream server (on the connection's
 * reader thread for stdio; during a request for HTTP).  params may be NULL
 * and is borrowed for the call. */
typedef void (*mi_mcp_note_fn)(void *ctx, const char *method, json_t *params);

/* How to reach one upstream server.  All strings are the caller's. */
typedef struct mi_mcp_upstream {
	const char *name;               /* for messages */
	const char *command;            /* stdio: program (PATH searched) */
	const char *const *args;        /* stdio: argv, args[0] = command, NULL-ended */
	const char *const *env;         /* stdio: "KEY=VALUE" added to ours, NULL-ended */
	const char *cwd;                /* stdio: working directory or NULL */
	int stderr_fd;                  /* stdio: child's stderr, -1 = /dev/null */
	const char *url;                /* streamable HTTP endpoint (instead of command) */
	const char *const *headers;     /* HTTP: "Name: value", NULL-ended */
	int timeout_ms;                 /* default per request, 0 = 60 s */
	mi_mcp_note_fn note;            /* notifications, may be NULL */
	void *note_ctx;
} mi_mcp_upstream;

typedef struct mi_mcp_client mi_mcp_client;

/*
 * Connects: starts the stdio server (in its own process group) or reaches
 * the HTTP one, and negotiates the protocol: initialize offering 2025-11-25
 * and accepting 2024-11-05 .. 2025-11-25, or, when initialize is refused,
 * server/discover and 2026-07-28 (per-request _meta).  Returns 0 or an
 * error with a message naming the server in err.
 */
int mi_mcp_client_open(const mi_mcp_upstream *u, mi_mcp_client **out, mi_buf *err);
/* Ends the connection: closes the server's input, waits 2 s, then
 * SIGTERM, then SIGKILL to its process group.  NULL is fine. */
void mi_mcp_client_close(mi_mcp_client *c);
/* false once the server exited or the connection broke. */
bool mi_mcp_client_alive(mi_mcp_client *c);
/* The negotiated version, serverInfo JSON (or NULL), instructions (or
 * NULL), child pid (0 for HTTP); valid until close. */
const char *mi_mcp_client_version(const mi_mcp_client *c);
const char *mi_mcp_client_info(const mi_mcp_client *c);
const char *mi_mcp_client_instructions(const mi_mcp_client *c);
pid_t mi_mcp_client_pid(const mi_mcp_client *c);
/* true when the server declared capability cap (with sub true, if given):
 * ("tools", "listChanged"). */
bool mi_mcp_client_has(const mi_mcp_client *c, const char *cap, const char *sub);

/*
 * Sends a request and waits for its answer, at most timeout_ms (0: the
 * connection's default), polling *cancel (may be NULL).  On timeout or
 * cancellation the server is sent notifications/cancelled.  Returns 0 with
 * *result the result object (caller decrefs); MI_ERR_ARG when the server
 * answered with a JSON-RPC error (*result is the error object); ETIMEDOUT,
 * MI_ERR_CANCELLED, EPIPE (the server died) or EPROTO otherwise, with a
 * message in err.  Safe to call from several threads at once.
 */
int mi_mcp_client_request(mi_mcp_client *c, const char *method, json_t *params,
			  int timeout_ms, atomic_int *cancel, json_t **result, mi_buf *err);
/* Sends a notification (params borrowed, may be NULL). */
void mi_mcp_client_notify(mi_mcp_client *c, const char *method, json_t *params);
/* Pages through tools/list; *tools is the array of every tool (caller
 * decrefs).  0 or an error as mi_mcp_client_request. */
int mi_mcp_client_list_tools(mi_mcp_client *c, int timeout_ms, json_t **tools, mi_buf *err);

/* ---- the servers file (upstream.c) ------------------------------------- */

/*
 * One upstream server of the servers file:
 *   {"mcpServers": {"NAME": {"command": "npx", "args": [...], "env": {...},
 *     "cwd": DIR} | {"url": "http://...", "headers": {...}, "type": "http"|"sse"},
 *     "disabled": true, "allow": [GLOB...], "deny": [GLOB...],
 *     "sensitive": [GLOB...], "aliases": {"TOOL": ["phrasing", ...]},
 *     "timeout": MS}}, "mcpidx": {"poll": SECONDS}}
 * Globs match upstream tool names (fnmatch).  env and headers are secrets:
 * they are used to run the server and never stored or printed.
 */
typedef struct mi_server_cfg {
	char *name;          /* namespace */
	char *command;       /* stdio program, or NULL */
	char **args;         /* argv (args[0] = command), NULL-ended */
	char **env;          /* "KEY=VALUE", NULL-ended */
	char *cwd;           /* or NULL */
	char *url;           /* HTTP endpoint, or NULL */
	char **headers;      /* "Name: value", NULL-ended */
	bool sse;            /* "type": "sse" (legacy transport) */
	bool disabled;       /* "disabled": true: no tool of it is served */
	bool has_allow;      /* an allow list was given */
	char **allow, **deny, **sensitive; /* tool-name globs, NULL-ended */
	json_t *aliases;     /* {"TOOL": ["phrasing", ...]} or NULL */
	int timeout_ms;      /* per request, 0 = default */
} mi_server_cfg;

typedef struct mi_servers {
	mi_server_cfg *v;    /* in file order */
	size_t n;
	char *path;          /* absolute path of the file */
	int poll_seconds;    /* "mcpidx": {"poll": N}; 0 = no polling */
} mi_servers;

/* Reads the servers file; 0 or MI_ERR_ARG with a message naming the file,
 * the server and what is wrong (never a secret). */
int mi_servers_load(const char *path, mi_servers *out, mi_buf *err);
void mi_servers_release(mi_servers *s);
/* The server called name[0..len), or NULL. */
const mi_server_cfg *mi_servers_find(const mi_servers *s, const char *name, size_t len);
/* false when the server is disabled or its allow/deny lists keep tool out. */
bool mi_server_cfg_allows(const mi_server_cfg *s, const char *tool);
/* true when tool is listed as sensitive (execute asks for confirmation). */
bool mi_server_cfg_sensitive(const mi_server_cfg *s, const char *tool);
/* Connects to the server as mi_mcp_client_open does. */
int mi_server_connect(const mi_server_cfg *s, mi_mcp_note_fn note, void *ctx,
		      mi_mcp_client **out, mi_buf *err);

#endif
