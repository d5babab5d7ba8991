/*
 * mcp.h - the Model Context Protocol server: JSON-RPC 2.0 over stdio or
 * streamable HTTP on loopback, a thin layer over query/.
 */
#ifndef MI_MCP_H
#define MI_MCP_H

#include "../query/query.h"

#include <stdatomic.h>

typedef struct mi_mcp_opts {
	const char *index;     /* index dir or packed file; may not exist yet */
	const char *http;      /* "127.0.0.1:PORT" to serve HTTP, NULL = stdio */
	const char *log_file;  /* log destination, NULL = stderr */
	const char *log_level; /* lowest level logged: debug (one line per call),
				  info, warning, error, off; NULL = debug with
				  log_file, info on stderr */
	const char *self_exe;  /* path of the mcpidx binary (for index_codebase) */
	bool allow_remote;     /* allow binding a non-loopback address */
	const char *const *allow_hosts; /* extra Host/Origin names accepted over
					   HTTP besides loopback; NULL-terminated */
	const char *const *allow_roots; /* directories index_codebase may build
					   besides the served repository */
	const char *token;     /* bearer token HTTP requests must carry, or NULL */
	unsigned max_connections; /* HTTP connections at once, 0 = 1000 */
	unsigned idle_timeout; /* seconds before an idle HTTP connection is
				  closed, 0 = 30 */
	unsigned max_requests; /* HTTP requests worked on at once, 0 = 64 */
	/* Several repositories served at once (a workspace): their indexes
	 * (as index) and names, NULL-terminated and of equal length; NULL =
	 * index alone.  index is then ignored. */
	const char *const *repo_indexes;
	const char *const *repo_names;
	bool artifacts;        /* list the artifact tools (serve --artifacts) */
	const mi_art_opts *art;/* artifact store and chain limits; NULL = defaults */
	mi_parse_fn parse;     /* diff mode's parser and language detector */
	mi_detect_fn detect;   /* (mi_parse_source, mi_lang_detect); NULL: the
				  diff tools answer that they cannot run */
	mi_indexable_fn indexable; /* diff mode's filter (mi_build_would_index) */
} mi_mcp_opts;

/* What one server offers: its identity and the tables of its tools,
 * resources and prompts (mcp/area.h says how to fill one). */
typedef struct mi_mcp_spec mi_mcp_spec;

/* Serves mcpidx's index until stdin closes (stdio) or SIGINT/SIGTERM
 * (HTTP).  Returns 0 or an error after printing why to the log. */
int mi_mcp_serve(const mi_mcp_opts *o);
/* The same for another spec (a test fixture's tools, prompts, resources). */
int mi_mcp_serve_spec(const mi_mcp_opts *o, const mi_mcp_spec *spec);

/* ---- client (client.c): mcpidx as a client of upstream MCP servers ------ */

#include <jansson.h>
#include <stdatomic.h>
#include <sys/types.h>

enum { MI_MCP_STDIO, MI_MCP_HTTP, MI_MCP_SSE };

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
	bool sse;                       /* url is a legacy HTTP+SSE stream (2024-11-05):
					 * GET it, POST to the endpoint it names */
	const char *const *headers;     /* HTTP: "Name: value", NULL-ended */
	int timeout_ms;                 /* default per request, 0 = 60 s */
	/* NULL: initialize offering the newest session version, server/discover
	 * when initialize is refused; a session version: initialize offering
	 * it; "2026-07-28": server/discover only, no handshake. */
	const char *protocol;
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
/* True when v is a protocol version the client speaks (2024-11-05 to
 * 2026-07-28). */
bool mi_mcp_client_speaks(const char *v);
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
	char *protocol;      /* "protocolVersion": the version to speak, or NULL */
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
	/* 2026-07-28: no request of ours on the client's stream; a client that
	 * declared elicitation (can_input) answers our question by calling
	 * again with inputResponses (input) and our requestState (state).
	 * input_required receives the InputRequiredResult fields (no braces). */
	bool can_input;
	json_t *input;
	const char *state;
	mi_buf *input_required;
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
 * appended to the execution log.  Returns 0 when out is the upstream's
 * result, 1 when it is our own error (whose text a caller may hold to a
 * budget).
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
/* Stores task phrasings for tool (one per line in text, from the host's
 * model or a person) in the side store, pinned to the tool as the catalog
 * has it now; the next build (--offline is enough) indexes them. */
int mi_meta_store_aliases(const char *index, const char *side, const char *tool,
			  const char *text, mi_buf *err);
/* For mi_catalog_opts.aliases with an open side store (mi_side *) as ctx. */
void mi_meta_side_aliases(void *side, const char *tool, const uint8_t hash[16], mi_buf *out);

/* ---- the language server (lsp*.c) -------------------------------------------
 * `mcpidx lsp`: folding ranges, document and workspace symbols, definitions,
 * references and the latest compile's diagnostics for an editor, over LSP
 * (JSON-RPC 2.0 with Content-Length framing).  Open buffers are parsed with
 * the indexer's parser (indexer <- mcp).  docs/editors.md. */

typedef struct mi_lsp_opts {
	const char *index;    /* index dir or packed file; NULL: the nearest
	                         .mcpidx at or above the client's root folder */
	const char *log_file; /* log destination, NULL = stderr */
	int in_fd;            /* messages in (0) */
	int out_fd;           /* messages out (1) */
} mi_lsp_opts;

/* Serves one client until it sends `exit` or closes in_fd.  Returns the
 * exit status LSP asks for: 0 after shutdown + exit, 1 otherwise. */
int mi_lsp_serve(const mi_lsp_opts *o);

/* ---- compile tasks (compile_*.c) ---------------------------------------------
 * The targets a repository's .mcpidx.toml names, run as child processes (no
 * shell; flags only from the target's allowlist), their output read into
 * INFO/WARN/ERROR groups by a table of compiler rules, the log kept in the
 * side store with each named file's diagnostics.  docs/compile.md. */

#define MI_COMPILE_CONFIG ".mcpidx.toml"
#define MI_COMPILE_TIMEOUT 300          /* default seconds */
#define MI_COMPILE_TIMEOUT_MAX 3600

/* One [compile.NAME] table. */
typedef struct mi_compile_target {
	char *name;          /* NAME */
	char **argv;         /* program and arguments, NULL-terminated */
	size_t argc;
	char *cwd;           /* repo-relative working directory, "" = the root */
	int timeout_s;       /* seconds */
	char **env;          /* names passed from our environment, NULL-terminated */
	size_t nenv;
	char **flags;        /* flags a caller may append (exact strings), NULL-terminated */
	size_t nflags;
	char *parser;        /* a mi_compile_parsers name, or "auto" */
} mi_compile_target;

typedef struct mi_compile_config {
	char *root;                  /* absolute repository root */
	char *file;                  /* the config file read */
	mi_compile_target *targets;  /* in file order */
	size_t n;
} mi_compile_config;

/*
 * Reads root/.mcpidx.toml.  Returns 0, MI_ERR_NOTFOUND when there is no
 * config or it names no target (*out NULL), or MI_ERR_ARG with
 * "FILE:LINE: what is wrong and how to write it" in err for a config that
 * is malformed or asks for something we refuse (a shell string for argv, a
 * working directory outside the repository, an unknown parser or key).
 */
int mi_compile_config_load(const char *root, mi_compile_config **out, mi_buf *err);
void mi_compile_config_free(mi_compile_config *c);
/* The target called name, or NULL. */
const mi_compile_target *mi_compile_target_find(const mi_compile_config *c,
						const char *name);

/* Levels of a task's log groups, in display order. */
enum { MI_GROUP_INFO, MI_GROUP_WARN, MI_GROUP_ERROR, MI_GROUP__COUNT };
/* "INFO", "WARN", "ERROR". */
const char *mi_compile_group_name(int g);
/* The group called name (any case), or -1. */
int mi_compile_group_find(const char *name);

/* One message of a task's output. */
typedef struct mi_compile_msg {
	int group;           /* MI_GROUP_* */
	char *path;          /* repo-relative when inside the root, else as printed; NULL */
	uint32_t line, col;  /* 1-based; 0 = none */
	char *text;          /* the message, one line */
	char *hint;          /* the compiler's suggestion (help:, note:, did you mean), NULL */
	char *code;          /* the compiler's code (E0308, TS2322), NULL */
} mi_compile_msg;

/* A finished compile: what read_task_log shows. */
typedef struct mi_compile_log {
	char *task_id;       /* "compile-3-a1b2c3d4" */
	char *target;        /* target name */
	char *command;       /* argv joined with spaces, for `V* task:` */
	int exit_code;       /* as mi_child_result */
	bool timed_out, cancelled;
	size_t dropped;      /* output bytes past the cap */
	double seconds;
	int64_t finished_ms; /* wall clock */
	mi_compile_msg *msgs;
	size_t n;
} mi_compile_log;

void mi_compile_log_release(mi_compile_log *l);
/*
 * read_task_log: group -1 shows every group, else only that one; expand
 * shows the messages (at most 50 per group, then a count), else one count
 * line per group.  Fills out->text (V* lines) and out->json
 * ({task_id, target, command, status, exit_code, seconds, counts, messages, text}).
 */
void mi_compile_log_render(const mi_compile_log *l, int group, bool expand, mi_out *out);

#define MI_COMPILE_KEEP 20   /* task logs kept beside the index */
/* Loads the task log id from the side store: 0, MI_ERR_NOTFOUND, or an
 * error. */
int mi_compile_load(const char *index_path, const char *task_id, mi_compile_log *l);

typedef struct mi_compile_req {
	const mi_compile_config *config;
	const char *target;          /* a target the config names */
	const char *const *flags;    /* from the target's allowlist */
	size_t nflags;
	const char *index_path;      /* its side store keeps the result; NULL = not kept */
	const char *task_id;         /* NULL: one is made ("compile-MS-PID") */
	atomic_int *cancel;          /* may be NULL */
	void (*on_line)(void *ctx, const char *line, size_t len); /* progress, may be NULL */
	void *ctx;
} mi_compile_req;

/*
 * Runs a target: refuses a target the config does not name and a flag its
 * allowlist does not hold (MI_ERR_ARG, err says what is allowed), runs the
 * command in the target's directory with only the allowed environment
 * variables (and LC_ALL=C, so messages are stable), reads the output into
 * *log, and stores the log and its diagnostics beside the index.  Returns 0
 * when the command ran (whatever its exit status: see log->exit_code), else
 * an error with a message in err.  A failure to store is reported in err
 * with 0 returned (the log is still good).
 */
int mi_compile_run(const mi_compile_req *req, mi_compile_log *log, mi_buf *err);

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

/* search_code with the host's model (seed 003's expand_query and
 * synthesize through the prompt_ready round trip; no API key). */
typedef struct mi_art_search {
	mi_search_opts so;     /* the search as asked */
	bool expand;           /* expand_query */
	bool synthesize;       /* synthesize */
	const char *result;    /* the host model's answer to an expand prompt */
	const char *chain;     /* callbackArgs.chain */
	uint64_t call_id;      /* correlation id for the log */
} mi_art_search;
/*
 * expand_query without result: the plain search's answer plus status
 * "prompt_ready", a prompt asking the host's model for related words and
 * identifiers, callbackTool "search_code" and callbackArgs (a chain step).
 * expand_query with result: the search run with the expanded query
 * (expanded_query in the answer).  synthesize: the answer plus a prompt for
 * a summary and follow-up questions.  The search's JSON object gains those
 * fields; 0 or the error (out says it).
 */
int mi_mcp_art_search(mi_art *a, mi_query *q, const mi_art_search *r, mi_out *out);

#endif
