/*
 * area.h - what the areas of the MCP server (tools, resources, prompts,
 * tasks) see, and all they see: the request they serve, as an mi_mcp_ctx
 * handed down by the dispatcher, the served index (mi_mcp_env), and the
 * tables they fill.  Areas never name the dispatcher or a transport: what
 * they need from above (progress, log messages, cancellation, a question
 * to the client) goes through the ctx's function pointers.
 *
 *   transports (stdio.c, http.c)
 *       -> dispatcher (dispatch.c: versions, methods, sessions)
 *           -> areas (tools.c + tool_*.c, resources.c, prompts.c, tasks.c)
 *               -> the served index (index.c) -> query/
 *
 * Adding a tool: one row in a group's table (tool_code.c, tool_index.c, or a
 * new tool_<area>.c with its group), its handler beside it, and a golden
 * test in tests/mcp/golden/.  A new group is one line in mi_mcp_groups[]
 * (tools.c); its applies() says when it is listed.
 */
#ifndef MI_MCP_AREA_H
#define MI_MCP_AREA_H

#include "mcp.h"
#include "rpc.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/types.h>

/* Log levels (RFC 5424 order), for the server log and notifications/message. */
enum {
	MI_LOG_DEBUG, MI_LOG_INFO, MI_LOG_NOTICE, MI_LOG_WARNING, MI_LOG_ERROR,
	MI_LOG_CRITICAL, MI_LOG_ALERT, MI_LOG_EMERGENCY, MI_LOG_OFF
};

typedef struct mi_mcp_env mi_mcp_env;
typedef struct mi_mcp_ctx mi_mcp_ctx;
typedef struct mi_mcp_logger mi_mcp_logger;

/* Where outgoing messages go: send gets one complete JSON-RPC message (no
 * newline) and must be safe to call from several threads. */
typedef struct mi_mcp_sink {
	void (*send)(void *ctx, const char *msg, size_t len); /* NULL: drop */
	void *ctx;                                             /* send's state */
} mi_mcp_sink;

/* ---- the log (log.c): a bounded queue, never blocks serving ---------------------- */

/* Opens the log (path NULL = stderr) writing lines at or above level.
 * Returns 0, or an errno with a message in err. */
int mi_mcp_log_open(mi_mcp_logger **out, const char *path, int level,
		    mi_buf *err);
/* Waits for queued lines to be written while the stream takes them (it
 * gives up after a second in which nothing could be written), then frees. */
void mi_mcp_log_close(mi_mcp_logger *l);
/* True when a line at level would be written. */
bool mi_mcp_log_wants(const mi_mcp_logger *l, int level);
/* Appends one line; never blocks on the stream (drops and counts). */
void mi_mcp_logf(mi_mcp_logger *l, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void mi_mcp_logv(mi_mcp_logger *l, int level, const char *fmt, va_list ap);
/* Holds back this thread's lines (queued, the writer not woken) until the
 * matching release, which wakes the writer if lines wait: a request's lines
 * are written after its answer is.  Holds nest. */
void mi_mcp_log_hold(void);
void mi_mcp_log_release(void);
/* Lines dropped so far because the stream was not being read. */
uint64_t mi_mcp_log_dropped(mi_mcp_logger *l);
/* "debug".."emergency", "off"; and back (-1 when unknown). */
const char *mi_mcp_level_name(int level);
int mi_mcp_level_parse(const char *name);
/* Wall clock, ISO 8601 UTC with milliseconds; monotonic microseconds. */
void mi_mcp_iso_time(char out[32]);
int64_t mi_mcp_now_us(void);

/* ---- the request, as an area sees it --------------------------------------------- */

/*
 * One request being served.  The dispatcher fills it and keeps it valid
 * until the handler returns (a task's ctx lives as long as the task).
 * Every function pointer is set; they may be called from any thread.
 */
struct mi_mcp_ctx {
	mi_mcp_env *env;             /* the served index, options, the log */
	const char *version;         /* protocol version of this request */
	json_t *caps;                /* client capabilities (borrowed; never NULL) */
	const char *method;          /* "tools/call", "resources/read", ... */
	const char *name;            /* tool or prompt name, or resource URI */
	json_t *input_responses;     /* 2026-07-28 retry: answers to our input
					requests (borrowed), else NULL */
	const char *request_state;   /* 2026-07-28 retry: our requestState, else NULL */
	const char *task_id;         /* the task this request runs as, or NULL */
	const char *session;         /* its HTTP session id; "" on stdio and for
					stateless requests */
	atomic_int *cancel;          /* the flag cancelled() reads (for code that
					polls a flag, such as a child runner) */
	/* notifications/progress when the client sent a progress token */
	void (*progress)(mi_mcp_ctx *c, double done, double total, const char *msg);
	/* notifications/message when the client asked for this level */
	void (*log)(mi_mcp_ctx *c, int level, const char *msg);
	/* true once the client cancelled the request or the server stops */
	bool (*cancelled)(mi_mcp_ctx *c);
	/*
	 * A request to the client (sampling/createMessage, elicitation/create,
	 * roots/list) on the request's own stream, waiting up to timeout_ms for
	 * its answer: 0 with the result (JSON text) in result, or a JSON-RPC
	 * error code with its message in result.  Only where the protocol lets
	 * a server ask (up to 2025-11-25); MI_RPC_NO_METHOD elsewhere.
	 */
	int (*ask)(mi_mcp_ctx *c, const char *method, const char *params,
		   int timeout_ms, mi_buf *result);
	void *self;                  /* the state of whoever made the ctx */
};

/* Convenience wrappers (printf-style log). */
void mi_mcp_ctx_logf(mi_mcp_ctx *c, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* True when the client declared capability path ("elicitation",
 * "sampling", "roots", "extensions/io.modelcontextprotocol/tasks"). */
bool mi_mcp_ctx_has_cap(const mi_mcp_ctx *c, const char *path);

/* ---- the served index (index.c) ----------------------------------------------------- */

struct mi_mcp_env {
	const mi_mcp_opts *opts;     /* as given to mi_mcp_serve */
	char *index_path;            /* index dir or packed file */
	char *repo_path;             /* repository it belongs to (for messages) */
	char *repo_real;             /* its real path, NULL if it does not exist */
	bool packed;                 /* a packed, read-only index */
	char **allow_real;           /* real paths of --allow-root, NULL-ended */
	char *self_exe;              /* mcpidx binary, for index_codebase */
	mi_mcp_logger *log;          /* the server log */
	atomic_int stopping;         /* set at shutdown: cancel everything */
	atomic_ullong generation;    /* bumped each time a new index is opened */
	/* Set by the dispatcher: what the server offers changed (MI_CHANGE_*;
	 * uri names one updated resource, or NULL): listeners are told. */
	void (*changed)(mi_mcp_env *e, unsigned what, const char *uri);
	void *changed_ctx;           /* for changed */
	pthread_rwlock_t qlock;      /* readers use q; a reopen takes it for writing */
	mi_query *q;                 /* NULL until the index opens */
	dev_t q_dev;                 /* identity of the data file q opened: */
	ino_t q_ino;                 /* a new inode means a rebuilt index */
	/* A workspace (several repositories served at once): every repository's
	 * env, this one first, NULL-terminated; nrepos is 1 and repos NULL when
	 * one repository is served.  Each has its own index and query handle
	 * and shares the log and options of the first. */
	const char *name;            /* the repository's name in a workspace */
	mi_mcp_env **repos;          /* the first env's list (NULL on the others) */
	size_t nrepos;               /* repositories served */
	bool shared;                 /* log and options belong to the first env */
};

/* What changed, for env->changed. */
enum {
	MI_CHANGE_TOOLS = 1 << 0,     /* the tool list */
	MI_CHANGE_PROMPTS = 1 << 1,   /* the prompt list */
	MI_CHANGE_RESOURCES = 1 << 2, /* the resource list (and every resource) */
};

/* Sets up env from opts: resolves the index path, opens the log.  The index
 * itself opens on first use.  Returns 0 or an error after printing why. */
int mi_mcp_env_init(mi_mcp_env *e, const mi_mcp_opts *o);
void mi_mcp_env_release(mi_mcp_env *e);
/*
 * Borrows the query handle, opening or reopening the index when it was
 * rebuilt.  Returns 0 with *q set (give it back with mi_mcp_index_put), or
 * an error with what to do in err ("No index at ... Run: mcpidx build").
 */
int mi_mcp_index_get(mi_mcp_env *e, mi_query **q, mi_buf *err);
void mi_mcp_index_put(mi_mcp_env *e);
/* A cheap check that reopens the index if a rebuild replaced it (so change
 * notifications go out); the generation after it (summed over a
 * workspace's repositories). */
uint64_t mi_mcp_index_poll(mi_mcp_env *e);
/* The workspace repository named name, or NULL.  With one repository
 * served, its env when name is NULL or that repository's name. */
mi_mcp_env *mi_mcp_env_repo(mi_mcp_env *e, const char *name);
/* True when e's index holds the repo-relative (or absolute, inside the
 * repository) path; the repo-relative form in norm when norm is not NULL. */
bool mi_mcp_env_holds(mi_mcp_env *e, const char *path, mi_buf *norm);
/* "a, b, c": the names of the served repositories. */
void mi_mcp_env_names(const mi_mcp_env *e, mi_buf *out);

/* The server log: one line at info, or at the given level. */
void mi_mcp_log(mi_mcp_env *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void mi_mcp_log_at(mi_mcp_env *e, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- tools (tools.c) ----------------------------------------------------------------------- */

/*
 * A tool's answer.  Most tools fill out (the folded text, which becomes the
 * text block, and the SPEC §3.1 JSON object, which becomes
 * structuredContent) and let tools.c hold both to max_tokens.  blocks adds
 * content blocks after the text (resource links, images: JSON objects
 * separated by commas); input_required (2026-07-28) replaces the result
 * with an InputRequiredResult body (its fields, without braces).
 */
typedef struct mi_mcp_result {
	mi_out out;                  /* text block + structuredContent */
	mi_buf blocks;               /* more content blocks, comma-separated */
	bool no_text;                /* no text block (blocks only) */
	bool no_struct;              /* no structuredContent */
	mi_buf input_required;       /* "inputRequests":{...},"requestState":"..." */
	mi_buf meta;                 /* fields of the result's _meta, or empty */
	mi_buf raw;                  /* a whole CallToolResult passed through
					as it came (an upstream tool's), or empty */
} mi_mcp_result;

void mi_mcp_result_release(mi_mcp_result *r);
/* A tool error: isError with msg as the text (a JSON-RPC error is for
 * protocol faults only). */
int mi_mcp_result_error(mi_mcp_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Appends a resource_link block for an indexed file, lines from..to (0: the
 * whole file), with a one-line description. */
void mi_mcp_result_link(mi_mcp_result *r, const char *path, unsigned from,
			unsigned to, const char *description);

/*
 * A handler: reads its arguments (already checked against input_schema;
 * absent optional ones get their defaults from the helpers below) and fills
 * *r.  q is the query handle when the row has MI_TOOL_INDEX, else NULL.
 * Returns 0; a nonzero return with nothing in r becomes a tool error, and a
 * JSON-RPC code (-32768..-32000) a protocol error whose message is r's text.
 */
typedef int (*mi_mcp_tool_fn)(mi_mcp_ctx *c, mi_query *q, json_t *args,
			      mi_mcp_result *r);

/* Row flags. */
enum {
	MI_TOOL_READ_ONLY = 1 << 0,  /* annotations.readOnlyHint */
	MI_TOOL_IDEMPOTENT = 1 << 1, /* annotations.idempotentHint */
	MI_TOOL_DESTRUCTIVE = 1 << 2, /* annotations.destructiveHint */
	MI_TOOL_OPEN_WORLD = 1 << 3, /* annotations.openWorldHint */
	MI_TOOL_INDEX = 1 << 4,      /* borrow the query handle for the handler */
	MI_TOOL_SLOW = 1 << 5,       /* may take long: runs on its own thread */
	MI_TOOL_TASK_OPTIONAL = 1 << 6, /* may run as a task */
	MI_TOOL_TASK_REQUIRED = 1 << 7, /* must run as a task */
	MI_TOOL_BUDGET = 1 << 8,     /* takes max_tokens: tools.c fits the answer */
	MI_TOOL_PAGED = 1 << 9,      /* takes offset and limit over items */
};

/* One tool. */
typedef struct mi_mcp_tool {
	const char *name;            /* tools/call name */
	const char *title;           /* display name */
	const char *description;     /* for the model: what, when, what it returns */
	const char *input_schema;    /* JSON Schema (2020-12) of the arguments */
	const char *output_schema;   /* JSON Schema of structuredContent, or NULL */
	unsigned flags;              /* MI_TOOL_* */
	mi_mcp_tool_fn fn;           /* the handler */
	const char *narrow;          /* how to narrow an answer cut to max_tokens */
	const char *items;           /* MI_TOOL_PAGED: the result array's key */
	const char *requires;        /* a client capability the tool needs
					("sampling", "elicitation"), or NULL */
	const char *task_kind;       /* its tasks' id prefix ("build"), or NULL */
	/* Renders input_schema for this environment (an enum of what the
	 * repository offers), or NULL: input_schema as is.  Calls are still
	 * checked against input_schema. */
	void (*schema_fn)(mi_mcp_env *e, mi_buf *out);
} mi_mcp_tool;

/* A group of tools listed together, and only when they apply. */
typedef struct mi_mcp_tool_group {
	const char *name;            /* "code", "index", "meta", ... */
	const mi_mcp_tool *tools;    /* rows, in tools/list order */
	size_t n;                    /* rows */
	bool (*applies)(mi_mcp_env *e); /* NULL: always listed */
	void (*release)(void);       /* at server shutdown, or NULL */
} mi_mcp_tool_group;

/* Argument helpers: the value, or def when absent or null. */
const char *mi_mcp_arg_str(json_t *args, const char *key, const char *def);
long long mi_mcp_arg_int(json_t *args, const char *key, long long def);
bool mi_mcp_arg_bool(json_t *args, const char *key, bool def);
double mi_mcp_arg_num(json_t *args, const char *key, double def);
/* read_file's seed-000 meta object, spliced into r's JSON (with_meta). */
void mi_mcp_with_meta(mi_mcp_result *r, json_t *args);
/* mcpidx://KIND/PATH, the path percent-encoded. */
void mi_mcp_file_uri(mi_buf *b, const char *kind, const char *path);

/* The tool groups of mcpidx (tool_code.c, tool_index.c). */
extern const mi_mcp_tool_group mi_mcp_tools_code;
extern const mi_mcp_tool_group mi_mcp_tools_index;
extern const mi_mcp_tool_group mi_mcp_tools_meta;
extern const mi_mcp_tool_group mi_mcp_tools_compile;
extern const mi_mcp_tool_group mi_mcp_tools_artifact;

/* The artifact handle of the served index (tool_artifact.c), opened on
 * first use: read_file summaries, expand_at docs, search_code evidence. */
mi_art *mi_mcp_art_handle(mi_mcp_env *e);
/* Re-indexes one upstream server's catalog in the background, as after its
 * list_changed (tool_meta.c): new aliases reach find_tools. */
void mi_mcp_meta_reindex(mi_mcp_env *e, const char *server);
/* True when the server lists the artifact tools (serve --artifacts). */
bool mi_mcp_art_enabled(const mi_mcp_env *e);
extern const mi_mcp_tool_group mi_mcp_tools_views;
/* read_file {diff: true}: path's changed symbols (tool_views.c). */
int mi_mcp_read_diff(mi_mcp_ctx *c, mi_query *q, const char *path, json_t *args,
		     mi_mcp_result *r);

/* The registry of one server's tools (used by the dispatcher). */
typedef struct mi_mcp_tools mi_mcp_tools;
mi_mcp_tools *mi_mcp_tools_new(const mi_mcp_spec *spec);
void mi_mcp_tools_free(mi_mcp_tools *ts);
/* Appends "tools":[...] (the groups that apply, in order) for version. */
void mi_mcp_tools_list(mi_mcp_tools *ts, mi_mcp_env *env, const char *version,
		       mi_buf *out);
/* The row named name, or NULL.  A group that does not apply is not listed,
 * but its tools still answer (their handlers say why they cannot run). */
const mi_mcp_tool *mi_mcp_tools_find(mi_mcp_tools *ts, mi_mcp_env *env,
				      const char *name);
/*
 * Runs a tool and appends its CallToolResult object to out.  Tool errors
 * (bad arguments, no index) are results with isError; returns nonzero only
 * for protocol errors (a JSON-RPC code, message in msg, out untouched).
 * outcome gets a short word for the log.
 */
int mi_mcp_tools_call(mi_mcp_tools *ts, mi_mcp_ctx *c, const char *name,
		      json_t *args, mi_buf *out, mi_buf *msg, char *outcome,
		      size_t outcome_len);
/* The parsed inputSchema of the row named name (borrowed), or NULL. */
json_t *mi_mcp_tools_schema(mi_mcp_tools *ts, mi_mcp_env *env, const char *name);
/* Checks every row's schemas parse and flags agree: 0 or -1 with err. */
int mi_mcp_tools_selftest(mi_mcp_tools *ts, mi_buf *err);

/* ---- budgets (budget.c) --------------------------------------------------------------- */

/* What a budget cut removed from a paged answer. */
typedef struct mi_mcp_cut {
	bool cut;            /* items were left out */
	bool paged;          /* the tool takes offset: say next_offset */
	const char *items;   /* key of the paged array */
	size_t total;        /* items the request matched */
	size_t offset;       /* where this page starts */
} mi_mcp_cut;

/* The part of max a fitted answer may fill (the rest is for the note). */
size_t mi_mcp_room(size_t max);
/* Estimated tokens of s[0..n). */
size_t mi_mcp_tokens(const char *s, size_t n);
/* Whether s's estimate is at most max (without reading it when n <= max). */
bool mi_mcp_tokens_within(const char *s, size_t n, size_t max);
/* Cuts text to max tokens at a line boundary, ending with a V* line that
 * carries note (how to see the rest).  True when it cut. */
bool mi_mcp_cap_text(mi_buf *t, size_t max, const char *note);
/* Fits the JSON object in json to max tokens (longest strings first, then
 * the tail of the longest array) and, when anything is missing, adds
 * truncated: true, total and (paged) next_offset.  True when it changed. */
bool mi_mcp_cap_json(mi_buf *json, size_t max, const mi_mcp_cut *cut);
/* Elements of the array json[key], and json.total (or that count). */
size_t mi_mcp_count_items(const mi_buf *json, const char *key, size_t *total);

/* ---- index_codebase's builds (build.c) ---------------------------------------------------- */

/* What index_codebase builds. */
typedef struct mi_mcp_target {
	char *root;      /* real path of the repository to build */
	char *index;     /* --out for an index kept outside root, else NULL */
	bool served;     /* root is the repository this server serves */
} mi_mcp_target;

/*
 * Resolves index_codebase's path argument (NULL or "" = the served
 * repository; relative paths start at it) into *bt.  Only the served
 * repository, or a directory under an --allow-root, is accepted; a packed
 * index is refused.  Returns 0, or MI_ERR_ARG with what to do in err.
 * Release *bt with mi_mcp_target_release (also after an error).
 */
int mi_mcp_build_target(mi_mcp_env *e, const char *path, mi_mcp_target *bt,
			mi_buf *err);
void mi_mcp_target_release(mi_mcp_target *bt);
/* Runs `mcpidx build ROOT [--force] [--out INDEX]`: progress and
 * cancellation through c; the answer ({path, status, ..., stats}) in r. */
void mi_mcp_build_run(mi_mcp_ctx *c, const mi_mcp_target *bt, bool force,
		      mi_mcp_result *r);

/* ---- resources (resources.c) ----------------------------------------------------------- */

/* One kind of resource, addressed by a URI template. */
typedef struct mi_mcp_resource_kind {
	const char *name;            /* "file" */
	const char *title;           /* display name */
	const char *uri_template;    /* RFC 6570, e.g. "mcpidx://file/{+path}" */
	const char *description;     /* for the model */
	const char *mime_type;       /* of every resource of this kind, or NULL */
	/* Lists resources after cursor (NULL = from the start): appends up to
	 * limit Resource objects (comma-separated) to out and the next cursor
	 * to next (empty when done).  NULL: this kind is not listed. */
	int (*list)(mi_mcp_ctx *c, const char *cursor, size_t limit, mi_buf *out,
		    mi_buf *next);
	/* Reads uri (which matched the template): appends the contents array's
	 * items to out.  Returns 0, MI_ERR_NOTFOUND (unknown resource) or an
	 * error with its message in err. */
	int (*read)(mi_mcp_ctx *c, const char *uri, mi_buf *out, mi_buf *err);
	/* Completion of a template variable (completion/complete), or NULL. */
	int (*complete)(mi_mcp_ctx *c, const char *var, const char *prefix,
			mi_buf *values, size_t *total);
} mi_mcp_resource_kind;

/* The two kinds mcpidx serves: file text and folded outline. */
extern const mi_mcp_resource_kind mi_mcp_resource_file;
extern const mi_mcp_resource_kind mi_mcp_resource_outline;

/* resources/list: every listable kind, one cursor across them. */
int mi_mcp_resources_list(mi_mcp_ctx *c, const mi_mcp_spec *spec, json_t *params,
			  mi_buf *out, mi_buf *msg);
/* resources/templates/list (with a {repo} segment when env serves several). */
void mi_mcp_resources_templates(const mi_mcp_spec *spec, mi_mcp_env *env, mi_buf *out);
/* completion/complete of a resource template in a workspace (a {repo}
 * segment): 1 when ref names one (values filled), else 0. */
int mi_mcp_resources_ws_complete(mi_mcp_ctx *c, const mi_mcp_spec *spec,
				 const char *uri, const char *var, const char *prefix,
				 mi_buf *values, size_t *total, int *rc);
/* resources/read: the result, or a JSON-RPC code with msg and (resource not
 * found) the error's data object in data. */
int mi_mcp_resources_read(mi_mcp_ctx *c, const mi_mcp_spec *spec, json_t *params,
			  mi_buf *out, mi_buf *msg, mi_buf *data);
/* The kind whose template matches uri, or NULL. */
const mi_mcp_resource_kind *mi_mcp_resource_match(const mi_mcp_spec *spec,
						   const char *uri);
/* A TextResourceContents (or, for bytes that are not UTF-8 text,
 * BlobResourceContents) object for data. */
void mi_mcp_resource_contents(mi_buf *out, const char *uri, const char *mime,
			      const char *data, size_t n);
/* The MIME type of a path by its extension ("text/plain" when unknown). */
const char *mi_mcp_mime_type(const char *path);
/* Appends data as standard base64. */
void mi_mcp_base64(mi_buf *out, const void *data, size_t n);

/* ---- prompts (prompts.c) ---------------------------------------------------------------- */

typedef struct mi_mcp_prompt {
	const char *name;            /* prompts/get name */
	const char *title;           /* display name */
	const char *description;     /* for the model */
	const char *arguments;       /* JSON array of PromptArgument, or NULL */
	/* Appends the GetPromptResult's fields (messages, description) to out,
	 * or returns a JSON-RPC error code with its message in err. */
	int (*get)(mi_mcp_ctx *c, json_t *args, mi_buf *out, mi_buf *err);
	/* Completion of an argument, or NULL. */
	int (*complete)(mi_mcp_ctx *c, const char *arg, const char *prefix,
			mi_buf *values, size_t *total);
} mi_mcp_prompt;

/* mcpidx's prompts (prompt_code.c). */
extern const mi_mcp_prompt mi_mcp_prompt_outline;
extern const mi_mcp_prompt mi_mcp_prompt_explain_symbol;

void mi_mcp_prompts_list(const mi_mcp_spec *spec, mi_buf *out);
int mi_mcp_prompts_get(mi_mcp_ctx *c, const mi_mcp_spec *spec, json_t *params,
		       mi_buf *out, mi_buf *msg);
/* completion/complete for a prompt argument or a template variable. */
int mi_mcp_complete(mi_mcp_ctx *c, const mi_mcp_spec *spec, json_t *params,
		    mi_buf *out, mi_buf *msg);
/* True when some prompt or resource kind completes its arguments. */
bool mi_mcp_spec_completes(const mi_mcp_spec *spec);

/* ---- tasks (tasks.c) -------------------------------------------------------------------- */

/* What a task runs: fn writes the request's result (a JSON object) into out,
 * or returns a JSON-RPC error code with its message in msg. */
typedef struct mi_mcp_task_run {
	const char *kind;            /* id prefix ("build", "compile"), or NULL */
	int (*fn)(mi_mcp_ctx *c, void *arg, mi_buf *out, mi_buf *msg);
	void *arg;                   /* fn's argument, owned by the task */
	void (*free_arg)(void *arg); /* frees arg, or NULL */
} mi_mcp_task_run;

/*
 * Starts run on its own thread as a task of owner (a session id; "" for
 * stateless requests) and appends the creating answer to out: {task: {...}}
 * (2025-11-25) or a flat task with resultType "task" (modern).  The task's
 * ctx is a copy of origin's whose progress sets the statusMessage and, with
 * a progress token and a notify sink, is also sent there.  With
 * MI_TASKS_WORKING tasks running it starts none (run's arg is freed) and
 * returns MI_RPC_INVALID_REQUEST with msg saying so.
 */
int mi_mcp_task_start(mi_mcp_ctx *origin, const char *owner, bool modern,
		      int64_t ttl_ms, const mi_mcp_task_run *run,
		      const mi_mcp_sink *notify, const char *progress, mi_buf *out,
		      mi_buf *msg);
/* tasks/get, tasks/list, tasks/result, tasks/cancel, tasks/update: appends
 * the result object to out, or returns a JSON-RPC code with msg. */
int mi_mcp_tasks_method(mi_mcp_ctx *c, const char *owner, bool modern,
			const char *method, json_t *params, mi_buf *out, mi_buf *msg);
/* The status ("working", "completed", ...) of task id that owner may see,
 * its statusMessage appended to msg (may be NULL); NULL when none. */
const char *mi_mcp_task_state(const char *owner, const char *id, mi_buf *msg);
/* Cancels every task and waits for their threads (shutdown). */
void mi_mcp_tasks_shutdown(void);

/* ---- what one server offers --------------------------------------------------------------- */

/* The identity, tables and instructions of one MCP server.  mcpidx's own
 * is mi_mcp_spec_mcpidx; a test fixture passes its own to mi_mcp_serve_spec. */
struct mi_mcp_spec {
	const char *name;            /* serverInfo.name */
	const char *title;           /* serverInfo.title */
	const char *version;         /* serverInfo.version */
	const char *description;     /* serverInfo.description */
	const char *instructions;    /* for the model, or NULL */
	const char *icons;           /* JSON array of Icon, or NULL */
	const mi_mcp_tool_group *const *groups;          /* NULL-terminated */
	const mi_mcp_resource_kind *const *resources;    /* NULL-terminated or NULL */
	const mi_mcp_prompt *const *prompts;             /* NULL-terminated or NULL */
	bool index;                  /* serves an mcpidx index (env opens it) */
	bool tools_change;           /* the tool list may change (listChanged) */
	bool prompts_change;         /* the prompt list may change */
};

extern const mi_mcp_spec mi_mcp_spec_mcpidx;

/* ---- running a child process (child.c): compile runs, index builds ----------------------------------------- */

#define MI_CHILD_OUTPUT_CAP ((size_t)1 << 20)  /* output kept by default */

typedef struct mi_child_opts {
	char *const *argv;     /* program (PATH search) and arguments */
	const char *cwd;       /* working directory, NULL = ours */
	char *const *env;      /* "NAME=value" entries, NULL-terminated; NULL = ours */
	int timeout_s;         /* killed after this many seconds; 0 = never */
	size_t cap;            /* output bytes kept (the head); 0 = MI_CHILD_OUTPUT_CAP */
	bool tail;             /* keep the last cap bytes instead (a failing
				* command says why at its end) */
	atomic_int *cancel;    /* polled; set to kill the child (may be NULL) */
	/* Polled with ctx as cancel is; true kills the child like it. */
	bool (*stop)(void *ctx);
	/* Called with each complete line of output (no newline), for
	 * progress; may be NULL. */
	void (*on_line)(void *ctx, const char *line, size_t len);
	void *ctx;             /* on_line's, stop's and on_fd3's */
	/* When set, the child gets a second pipe as fd 3 (for progress lines
	 * such as `mcpidx build --progress-fd 3`) and each non-empty line of
	 * it (ended by a newline or a carriage return) comes here. */
	void (*on_fd3)(void *ctx, const char *line, size_t len);
} mi_child_opts;

typedef struct mi_child_result {
	int exit_code;         /* exit status, 128 + signal, or -1 when not started */
	bool timed_out;        /* killed after timeout_s */
	bool cancelled;        /* killed because *cancel was set */
	mi_buf output;         /* stdout and stderr interleaved, at most cap bytes */
	size_t dropped;        /* bytes past the cap (cut from the end, or with
				* tail from the start) */
	double seconds;        /* wall time */
	int err;               /* errno when it could not start */
} mi_child_result;

/*
 * Runs argv (never through a shell) with stdin from /dev/null and stdout
 * and stderr into one pipe, in its own process group: timeout or cancel
 * sends SIGTERM to the group (and to the processes that left it carrying
 * the run's MCPIDX_RUN_<id> environment entry), then SIGKILL 3 s later,
 * and the run ends then whoever holds the pipe; once the child has exited
 * the pipe gets 3 s to end, then is no longer read.  Returns 0 when the
 * child ran (whatever its status), or errno when it could not be started
 * (r->err too); r->output must be released by the caller.
 */
int mi_child_run(const mi_child_opts *o, mi_child_result *r);
void mi_child_result_release(mi_child_result *r);

#endif
