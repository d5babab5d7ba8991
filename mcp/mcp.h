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
	const char *self_exe;  /* path of the mcpidx binary (for index_codebase) */
	bool allow_remote;     /* allow binding a non-loopback address */
} mi_mcp_opts;

/* Serves until stdin closes (stdio) or SIGINT/SIGTERM (HTTP).  Returns 0 or
 * an error after printing why to the log. */
int mi_mcp_serve(const mi_mcp_opts *o);

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

#endif
