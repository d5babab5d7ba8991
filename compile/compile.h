/*
 * compile.h - compile tasks: the targets a repository's `.mcpidx.toml`
 * names, running one of them as a child process (no shell; argv, working
 * directory, timeout and environment all from the config; flags only from
 * its allowlist), reading the compiler's output into messages (a table of
 * rules for gcc/clang, Go, rustc, tsc, javac, Python tracebacks, and a
 * generic `file:line:col: level:`), the task log shown as collapsed groups
 * (`V* INFO x18`, `V* WARN x2`, `V* ERROR x1`), and the diagnostics of the
 * latest compile stored per file in the side store, where the folded views
 * and the language server read them.
 *
 * Arrows: format <- compile <- mcp, tools.  docs/compile.md is the long form.
 */
#ifndef MI_COMPILE_H
#define MI_COMPILE_H

#include "../format/format.h"

#include <stdatomic.h>

/* ---- the project's config (config.c) --------------------------------------- */

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

/*
 * The command a run of t with flags (nflags of them, may be 0) executes:
 * t's argv with the flags appended, malloc'd and NULL-terminated (free with
 * mi_compile_argv_free).  A flag that is not on t's allowlist is refused:
 * MI_ERR_ARG with a message naming the allowed ones.
 */
int mi_compile_argv(const mi_compile_target *t, const char *const *flags, size_t nflags,
		    char ***argv, mi_buf *err);
void mi_compile_argv_free(char **argv);

/* ---- running a child process (run.c) ----------------------------------------- */

#define MI_RUN_OUTPUT_CAP ((size_t)1 << 20)  /* output kept by default */

typedef struct mi_run_opts {
	char *const *argv;     /* program (PATH search) and arguments */
	const char *cwd;       /* working directory, NULL = ours */
	char *const *env;      /* "NAME=value" entries, NULL-terminated; NULL = ours */
	int timeout_s;         /* killed after this many seconds; 0 = never */
	size_t cap;            /* output bytes kept (head); 0 = MI_RUN_OUTPUT_CAP */
	atomic_int *cancel;    /* polled; set to kill the child (may be NULL) */
	/* Called with each complete line of output (no newline), for
	 * progress; may be NULL. */
	void (*on_line)(void *ctx, const char *line, size_t len);
	void *ctx;             /* on_line's */
	/* When set, the child gets a second pipe as fd 3 (for progress lines
	 * such as `mcpidx build --progress-fd 3`) and its bytes come here. */
	void (*on_fd3)(void *ctx, const char *data, size_t len);
} mi_run_opts;

typedef struct mi_run_result {
	int exit_code;         /* exit status, 128 + signal, or -1 when not started */
	bool timed_out;        /* killed after timeout_s */
	bool cancelled;        /* killed because *cancel was set */
	mi_buf output;         /* stdout and stderr interleaved, at most cap bytes */
	size_t dropped;        /* bytes past the cap */
	double seconds;        /* wall time */
	int err;               /* errno when it could not start */
} mi_run_result;

/*
 * Runs argv (never through a shell) with stdin from /dev/null and stdout
 * and stderr into one pipe, in its own process group: timeout or cancel
 * sends SIGTERM to the group, then SIGKILL 3 s later.  Returns 0 when the
 * child ran (whatever its status), or errno when it could not be started
 * (r->err too); r->output must be released by the caller.
 */
int mi_run(const mi_run_opts *o, mi_run_result *r);
void mi_run_result_release(mi_run_result *r);

/* ---- reading compiler output (parse.c) --------------------------------------- */

/* Levels of a task's log groups, in display order. */
enum { MI_LOG_INFO, MI_LOG_WARN, MI_LOG_ERROR, MI_LOG__COUNT };
/* "INFO", "WARN", "ERROR". */
const char *mi_log_group_name(int g);
/* The group called name (any case), or -1. */
int mi_log_group_find(const char *name);

/* One message of a task's output. */
typedef struct mi_compile_msg {
	int group;           /* MI_LOG_* */
	char *path;          /* repo-relative when inside the root, else as printed; NULL */
	uint32_t line, col;  /* 1-based; 0 = none */
	char *text;          /* the message, one line */
	char *hint;          /* the compiler's suggestion (help:, note:, did you mean), NULL */
	char *code;          /* the compiler's code (E0308, TS2322), NULL */
} mi_compile_msg;

/* Names of the parsers a target's `parser` may give, NULL-terminated
 * ("auto" tries every rule). */
extern const char *const mi_compile_parsers[];

/*
 * Reads output into messages (appended to *msgs / *n; free with
 * mi_compile_msgs_free).  parser is a mi_compile_parsers name or NULL/"auto".
 * Paths are taken relative to cwd (absolute) and made repo-relative to root
 * when inside it.  Every non-empty line that belongs to no diagnostic is an
 * INFO message.
 */
void mi_compile_parse(const char *output, size_t len, const char *parser,
		      const char *root, const char *cwd, mi_compile_msg **msgs, size_t *n);
void mi_compile_msgs_free(mi_compile_msg *msgs, size_t n);

/* ---- task logs (log.c) ---------------------------------------------------------- */

/* A finished compile: what read_task_log shows. */
typedef struct mi_compile_log {
	char *task_id;       /* "compile-3-a1b2c3d4" */
	char *target;        /* target name */
	char *command;       /* argv joined with spaces, for `V* task:` */
	int exit_code;       /* as mi_run_result */
	bool timed_out, cancelled;
	size_t dropped;      /* output bytes past the cap */
	double seconds;
	int64_t finished_ms; /* wall clock */
	mi_compile_msg *msgs;
	size_t n;
} mi_compile_log;

void mi_compile_log_release(mi_compile_log *l);
/* The log as one JSON object (the side store's text and read_task_log's
 * structuredContent without `text`), appended to out. */
void mi_compile_log_json(const mi_compile_log *l, mi_buf *out);
/* Reads what mi_compile_log_json wrote: 0 or MI_ERR_CORRUPT. */
int mi_compile_log_parse(const char *json, size_t len, mi_compile_log *l);

/*
 * read_task_log: group -1 shows every group, else only that one; expand
 * shows the messages (at most 50 per group, then a count), else one count
 * line per group.  Fills out->text (V* lines) and out->json
 * ({task_id, target, command, status, exit_code, seconds, counts, messages, text}).
 */
void mi_compile_log_render(const mi_compile_log *l, int group, bool expand, mi_out *out);

/* ---- the latest compile, beside the index (store.c) ------------------------------ */

/*
 * Stores a finished compile in the side store of the index at index_path
 * (created when missing): the task log under its id (the last
 * MI_COMPILE_KEEP logs are kept), and the diagnostics of every file inside
 * the repository that the messages name, with the content hash of the file
 * as it is on disk now, replacing the diagnostics of the previous compile.
 * 0 or an error with a message in err.
 */
#define MI_COMPILE_KEEP 20
int mi_compile_store(const char *index_path, const char *root, const mi_compile_log *l,
		     mi_buf *err);
/* Loads the task log id from the side store: 0, MI_ERR_NOTFOUND, or an
 * error. */
int mi_compile_load(const char *index_path, const char *task_id, mi_compile_log *l);

/* ---- one compile, start to end (task.c) ------------------------------------------ */

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
