/*
 * mcp_int.h - internals shared by the files of mcp/ (not public): the
 * server and session state, one request in flight, the tool table and the
 * task table.  Transports (stdio.c, http.c) feed raw messages to server.c,
 * which dispatches them to tools.c and tasks.c.
 */
#ifndef MI_MCP_INT_H
#define MI_MCP_INT_H

#include "mcp.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/types.h>

#define MI_MCP_MAX_MSG ((size_t)16 << 20)   /* largest message we accept */
#define MI_MCP_LATEST "2025-11-25"

/* The server's icon (serverInfo and every tool): folded lines, as SVG. */
#define MI_MCP_ICONS "[{\"src\":\"data:image/svg+xml;base64," \
	"PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxNiAxNiI+PHBhdGggZD0iTTEgM2g5TTQgOGgxMU00IDEzaDciIHN0cm9rZT0iIzNhNmVhNSIgc3Ryb2tlLXdpZHRoPSIyLjIiIHN0cm9rZS1saW5lY2FwPSJyb3VuZCIvPjwvc3ZnPg==\",\"mimeType\":\"image/svg+xml\",\"sizes\":[\"any\"]}]"

/* JSON-RPC error codes. */
enum {
	MI_RPC_PARSE = -32700,
	MI_RPC_INVALID_REQUEST = -32600,
	MI_RPC_NO_METHOD = -32601,
	MI_RPC_INVALID_PARAMS = -32602,
	MI_RPC_INTERNAL = -32603,
};

/* Log levels of logging/setLevel, in order of severity (RFC 5424). */
enum {
	MI_LOG_DEBUG, MI_LOG_INFO, MI_LOG_NOTICE, MI_LOG_WARNING, MI_LOG_ERROR,
	MI_LOG_CRITICAL, MI_LOG_ALERT, MI_LOG_EMERGENCY, MI_LOG_OFF
};

/* Where outgoing messages (notifications, responses) of a session go.  send
 * is called with one complete JSON-RPC message, no trailing newline; it must
 * be safe to call from several threads. */
typedef struct mi_mcp_sink {
	void (*send)(void *ctx, const char *msg, size_t len); /* NULL: drop */
	void *ctx;                                             /* send's state */
} mi_mcp_sink;

typedef struct mi_mcp_server mi_mcp_server;
typedef struct mi_mcp_session mi_mcp_session;

/* One client (stdio has exactly one; HTTP one per Mcp-Session-Id). */
struct mi_mcp_session {
	mi_mcp_server *srv;         /* the server it belongs to */
	char sid[40];               /* HTTP session id; "" on stdio */
	atomic_int state;           /* 0 new, 1 initialize answered, 2 initialized */
	char version[16];           /* negotiated protocol version */
	atomic_int log_level;       /* MI_LOG_*: lowest level sent to the client */
	mi_mcp_sink sink;           /* session-wide notifications */
	pthread_mutex_t mu;         /* guards calls and refs */
	struct mi_mcp_call *calls;  /* requests in flight, for cancellation */
	int refs;                   /* calls + transport holding this session */
	atomic_llong last_used_ms;  /* monotonic time of the last message */
	struct mi_mcp_session *next;/* in the HTTP session list */
};

/* One request in flight. */
typedef struct mi_mcp_call {
	mi_mcp_session *sess;       /* the session it came in on */
	json_t *root;               /* the parsed message (owned) */
	const char *method;         /* points into root */
	json_t *params;             /* borrowed from root; may be NULL */
	char *id;                   /* the request id as JSON text, echoed back */
	char *progress;             /* _meta.progressToken as JSON text or NULL */
	const char *tool;           /* tool name for tools/call, else NULL */
	atomic_int cancelled;       /* set by notifications/cancelled */
	mi_mcp_sink sink;           /* where this call's notifications go */
	uint64_t cid;               /* correlation id in the log */
	int64_t start_us;           /* monotonic start, for the log line */
	double progress_n;          /* last progress value sent */
	char outcome[96];           /* for the log: "ok", "tool-error: ..." */
	struct mi_mcp_call *next;   /* in sess->calls */
} mi_mcp_call;

/* The whole server: one per process. */
struct mi_mcp_server {
	const mi_mcp_opts *opts;    /* as given to mi_mcp_serve */
	char *self_exe;             /* mcpidx binary for index_codebase */
	char *index_path;           /* resolved index path */
	char *repo_path;            /* repository the index belongs to */
	pthread_rwlock_t qlock;     /* readers use q; a reopen takes it for writing */
	mi_query *q;                /* NULL until the index opens */
	dev_t q_dev;                /* identity of the data file q opened: */
	ino_t q_ino;                /* a new inode means a rebuilt index */
	FILE *log;                  /* log stream (stderr or --log FILE) */
	pthread_mutex_t log_mu;     /* one log line at a time */
	atomic_uint_fast64_t next_cid; /* correlation ids */
	pthread_mutex_t run_mu;     /* guards running */
	pthread_cond_t run_cv;      /* signalled when running drops */
	int running;                /* worker threads alive */
	atomic_int stopping;        /* set at shutdown: cancel everything */
};

/* ---- server.c ---------------------------------------------------------- */

/* Sets up the server from opts (resolves the index path, opens the log).
 * Does not open the index: that happens on the first call needing it. */
int mi_mcp_server_init(mi_mcp_server *s, const mi_mcp_opts *o);
/* Cancels running work, waits for worker threads, frees everything. */
void mi_mcp_server_release(mi_mcp_server *s);

void mi_mcp_session_init(mi_mcp_session *ss, mi_mcp_server *s, mi_mcp_sink sink);
void mi_mcp_session_release(mi_mcp_session *ss);

/*
 * Handles one raw message from a transport.  Returns:
 *   0  and *out filled with the response (empty when none is due),
 *   1  and *callp set: a request that should run on its own thread
 *      (tools/call, tasks/result); pass it to mi_mcp_call_run, which writes
 *      the response into its out.  Before returning 1 the call is already
 *      registered for cancellation.
 * call_sink is where the call's notifications go (stdio: the session sink).
 */
int mi_mcp_handle(mi_mcp_session *ss, const char *data, size_t len,
		  mi_mcp_sink call_sink, bool inline_only, mi_buf *out,
		  mi_mcp_call **callp);
/* Runs a call handed out by mi_mcp_handle, writes the response into out
 * (empty when the call was cancelled) and frees the call. */
void mi_mcp_call_run(mi_mcp_call *c, mi_buf *out);
/* The error response for a message we could not even parse. */
void mi_mcp_error_response(mi_buf *out, const char *id, int code,
			   const char *msg);

/* True when the call was cancelled or the server is stopping. */
bool mi_mcp_cancelled(mi_mcp_call *c);
/* Sends notifications/progress for c when the client asked for it. */
void mi_mcp_progress(mi_mcp_call *c, double progress, double total,
		     const char *message);
/* notifications/message when level passes the session's threshold, sent to
 * sink (a call's stream) or, when NULL, to the session's sink. */
void mi_mcp_notify_log(mi_mcp_session *ss, const mi_mcp_sink *sink, int level,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* One line in the server log. */
void mi_mcp_log(mi_mcp_server *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Borrows the query handle, opening or reopening the index when needed.
 * Returns 0 with *q set (release with mi_mcp_query_put), or an error with a
 * message saying what to do in err.
 */
int mi_mcp_query_get(mi_mcp_server *s, mi_query **q, mi_buf *err);
void mi_mcp_query_put(mi_mcp_server *s);
/* After a build of repo: serve its index if ours did not exist. */
void mi_mcp_index_built(mi_mcp_server *s, const char *repo);

int64_t mi_mcp_now_us(void);      /* monotonic microseconds */
void mi_mcp_iso_time(char out[32]); /* wall clock, ISO 8601 UTC with ms */

/* ---- tools.c ------------------------------------------------------------- */

/* Appends the tools/list result object. */
void mi_mcp_tools_list(mi_buf *out);
/* Looks a tool up; NULL when unknown.  *task_support is "forbidden",
 * "optional" or "required". */
const struct mi_mcp_tool *mi_mcp_tool_find(const char *name,
					    const char **task_support);
/* Runs a tool and appends the CallToolResult object to out.  Tool errors
 * are results with isError; returns nonzero only for protocol errors
 * (then out holds nothing, *code and msg say why). */
int mi_mcp_tool_call(mi_mcp_call *c, const char *name, json_t *args,
		     mi_buf *out, int *code, mi_buf *msg);
/* Appends a CallToolResult with isError true and the message as text. */
void mi_mcp_tool_error(mi_buf *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Checks args against a tool's inputSchema (required, unknown, types,
 * enums, ranges, minLength, items): 0, or -1 with the message in err. */
int mi_mcp_args_check(const char *tool, json_t *schema, json_t *args, mi_buf *err);
/* Validates the tool table's schemas (for tests): 0 or -1. */
int mi_mcp_tools_selftest(mi_buf *err);

/* ---- tasks.c --------------------------------------------------------------- */

/*
 * Runs `self_exe build PATH [--force]` for index_codebase.  progress goes to c
 * (may be NULL); cancel is polled.  Appends a CallToolResult to out.
 */
void mi_mcp_build_run(mi_mcp_server *s, mi_mcp_call *c, atomic_int *cancel,
		      const char *path, bool force, mi_buf *out);
/* tools/call with a task param: starts the build in the background and
 * appends the CreateTaskResult object to out. */
int mi_mcp_task_start(mi_mcp_call *c, const char *path, bool force,
		      int64_t ttl_ms, mi_buf *out);
/* Work a task runs other than index_codebase (compile tasks): run writes
 * a CallToolResult into out on the task's thread; c carries the client's
 * progress token (may be NULL), cancel is set by tasks/cancel. */
typedef struct mi_mcp_job {
	const char *kind;          /* task id prefix and log word: "compile" */
	const char *start_msg;     /* statusMessage while it starts */
	const char *done_msg;      /* statusMessage when it completed */
	const char *fail_msg;      /* statusMessage when its result is an error */
	void (*run)(mi_mcp_server *s, mi_mcp_call *c, atomic_int *cancel,
		    const char *task_id, void *arg, mi_buf *out);
	void *arg;                 /* run's, owned by the task */
	void (*free_arg)(void *arg); /* frees arg with the task (may be NULL) */
} mi_mcp_job;
/* Starts job as a task of c's session, its id into id.  out (may be NULL)
 * gets the CreateTaskResult object.  0. */
int mi_mcp_task_start_job(mi_mcp_call *c, const mi_mcp_job *job, int64_t ttl_ms,
			  mi_buf *out, char id[48]);
/* The status ("working", "completed", ...) of task id of c's session, its
 * statusMessage appended to msg (may be NULL); NULL when there is none. */
const char *mi_mcp_task_state(mi_mcp_call *c, const char *id, mi_buf *msg);
/* Sets the statusMessage of the task whose thread this is (no-op elsewhere). */
void mi_mcp_task_note(const char *message);
/* tasks/get, tasks/list, tasks/result, tasks/cancel: append the result
 * object to out, or return a JSON-RPC error code with msg. */
int mi_mcp_tasks_method(mi_mcp_call *c, const char *method, json_t *params,
			mi_buf *out, mi_buf *msg);
/* Kills running builds and frees the task table (shutdown). */
void mi_mcp_tasks_shutdown(void);

/* ---- stdio.c / http.c ------------------------------------------------------ */

/* Serves one client on stdin/stdout until stdin closes; 0. */
int mi_mcp_serve_stdio(mi_mcp_server *s);
/* Serves streamable HTTP on addr ("127.0.0.1:PORT") until SIGINT/SIGTERM.
 * Returns 0, or an error after logging why (bad or non-loopback address,
 * port in use). */
int mi_mcp_serve_http(mi_mcp_server *s, const char *addr);

/* ---- tools_meta.c: find_tools, describe_tools, execute, list_namespaces -- */

/* true for the meta-server's tool names. */
bool mi_mcp_meta_is_tool(const char *name);
/* Appends the meta tools to a tools/list result when the index holds a
 * tool catalog. */
void mi_mcp_meta_list(mi_mcp_server *s, mi_buf *out);
/* Runs a meta tool as mi_mcp_tool_call does. */
int mi_mcp_meta_call(mi_mcp_call *c, const char *name, json_t *args, mi_buf *out,
		     int *code, mi_buf *msg);
/* Closes upstream connections and stops background re-indexing. */
void mi_mcp_meta_release(void);

/* ---- tools_compile.c: run_compile, read_task_log --------------------------- */

/* true for the compile tools' names. */
bool mi_mcp_compile_is_tool(const char *name);
/* Appends the compile tools to a tools/list result when the served
 * repository's .mcpidx.toml names targets. */
void mi_mcp_compile_list(mi_mcp_server *s, mi_buf *out);
/* Runs a compile tool as mi_mcp_tool_call does. */
int mi_mcp_compile_call(mi_mcp_call *c, const char *name, json_t *args, mi_buf *out,
			int *code, mi_buf *msg);

/* ---- tools_art.c: the artifact tools ------------------------------------- */

/* true for generate_prompt, store_llm_result, get_artifact, list_artifacts,
 * delete_artifact and generate_artifact. */
bool mi_mcp_art_is_tool(const char *name);
/* Appends the artifact tools to a tools/list result. */
void mi_mcp_art_list(mi_buf *out);
/* Runs an artifact tool as mi_mcp_tool_call does. */
int mi_mcp_art_call(mi_mcp_call *c, const char *name, json_t *args, mi_buf *out,
		    int *code, mi_buf *msg);
/* Closes the artifact store (shutdown). */
void mi_mcp_art_release(void);
/* The server's artifact handle (for read_file summaries, expand_at docs,
 * search_code evidence), opened on first use. */
mi_art *mi_mcp_art_handle(mi_mcp_server *s);

#endif
