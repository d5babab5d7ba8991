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
	const mi_art_opts *art;/* artifact store and chain limits; NULL = defaults */
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

/* Polled while a request waits: true once the caller gave up on it. */
typedef struct mi_mcp_cancel {
	bool (*fn)(void *ctx);
	void *ctx;
} mi_mcp_cancel;

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
 * connection's default), polling cancel (may be NULL).  On timeout or
 * cancellation the server is sent notifications/cancelled.  Returns 0 with
 * *result the result object (caller decrefs); MI_ERR_ARG when the server
 * answered with a JSON-RPC error (*result is the error object); ETIMEDOUT,
 * MI_ERR_CANCELLED, EPIPE (the server died) or EPROTO otherwise, with a
 * message in err.  Safe to call from several threads at once.
 */
int mi_mcp_client_request(mi_mcp_client *c, const char *method, json_t *params,
			  int timeout_ms, const mi_mcp_cancel *cancel, json_t **result,
			  mi_buf *err);
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

/* ---- the meta-server (meta.c): upstream tools served to a client -------- */

typedef struct mi_meta mi_meta;

/* What the request asking to execute offers.  Every field may be NULL. */
typedef struct mi_meta_req {
	/* notifications/progress to the client (only when it asked for them) */
	void (*progress)(void *ctx, double done, double total, const char *msg);
	bool (*cancelled)(void *ctx);  /* the client cancelled the request */
	/* a request to the client (elicitation/create): 0 with the result
	 * JSON in out, else it could not ask */
	int (*ask)(void *ctx, const char *method, const char *params, int timeout_ms,
		   mi_buf *out);
	void *ctx;
	const char *session;           /* groups executions into bundles */
} mi_meta_req;

typedef struct mi_meta_opts {
	const char *index;             /* the index holding the catalog */
	const char *servers;           /* servers file; NULL = the one the catalog was built from */
	const char *side;              /* side store dir; NULL = beside the index (mi_side_locate) */
	const char *self_exe;          /* mcpidx, for background re-indexing; NULL = none */
	void (*changed)(void *ctx);    /* called after a background re-index */
	void *changed_ctx;
} mi_meta_opts;

/* Sets up the meta-server: servers file, side store, and a poller when the
 * servers file asks for one ("mcpidx": {"poll": SECONDS}).  Connections
 * start on first use.  0, or an error with a message in err. */
int mi_meta_open(const mi_meta_opts *o, mi_meta **out, mi_buf *err);
/* Stops the poller and any child build, closes every connection. */
void mi_meta_close(mi_meta *m);
/* Hides quarantined tools (pin changed since approved) and denied ones
 * (allow/deny lists of the servers file, re-read when it changes). */
const mi_tools_policy *mi_meta_policy(mi_meta *m);
/* For mi_tools_opts.related: tools often used in one session with name. */
void mi_meta_related(void *m, const char *name, mi_buf *out);
/*
 * execute: calls tool ("server/tool") with args (may be NULL) upstream and
 * writes the CallToolResult into out: the upstream result unchanged, or an
 * isError result saying what to do (unknown, quarantined, denied, needs
 * confirmation, server unreachable or dead, timed out, cancelled).  A tool
 * marked destructive or listed as sensitive runs only after a person
 * confirmed: by elicitation when req->ask works, else by the one-time code
 * of `mcpidx tools confirm ID`, passed back as confirm.  Every call is
 * appended to the execution log.  Returns 0.
 */
int mi_meta_execute(mi_meta *m, mi_query *q, const char *tool, json_t *args,
		    const char *confirm, const mi_meta_req *req, mi_buf *out);
/* Starts a background re-index of one server (NULL: all) as a child build. */
void mi_meta_reindex(mi_meta *m, const char *only);

/*
 * Approvals in the side store of the index: with no names and !all, pins
 * every tool seen for the first time and reports those whose pin changed
 * (quarantined); names or all approve the current pins.  Appends one line
 * per approval or quarantine to report.
 */
int mi_meta_pin(const char *index, const char *side, const char *const *names, size_t n,
		bool all, mi_buf *report, mi_buf *err);
/* `mcpidx tools confirm ID`: describes the pending call into report and,
 * unless dry, confirms it: code receives the one-time code to give back. */
int mi_meta_confirm(const char *index, const char *side, const char *id, bool dry,
		    mi_buf *report, char code[24], mi_buf *err);
/* For mi_catalog_opts.aliases with an open side store (mi_side *) as ctx. */
void mi_meta_side_aliases(void *side, const char *tool, const uint8_t hash[16], mi_buf *out);

/*
 * The artifact tools that write (mcp/artifacts.c), shared with the command
 * line: generate_prompt (a prompt for the host's model, counted as a step of
 * a bounded chain), generate_artifact (parse at once; annotate/summarize as
 * generate_prompt), store_llm_result (the model's answer, pinned to the
 * source's content hash, "NAME: text" lines of an annotation also stored per
 * symbol) and delete_artifact.  Answers as query.h's artifact section says;
 * a chain over its budget (MAX_STEPS, age, callback timeout) is refused with
 * an "error" answer whose nextAction says what to do.  0 or the error.
 */
int mi_mcp_art_prompt(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out);
int mi_mcp_art_generate(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out);
int mi_mcp_art_store(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out);
int mi_mcp_art_delete(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out);

#endif
