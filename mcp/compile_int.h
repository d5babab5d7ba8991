/*
 * compile_int.h - internals shared by the compile_*.c files of mcp/ (not
 * public; the API is in mcp.h): the command line a run executes, the child
 * runner, the output parser, the log's JSON form and the side-store writer.
 * Layers: compile_task.c calls compile_config.c, compile_run.c,
 * compile_parse.c and compile_store.c; compile_log.c renders.
 */
#ifndef MI_COMPILE_INT_H
#define MI_COMPILE_INT_H

#include "mcp.h"

/*
 * The command a run of t with flags (nflags of them, may be 0) executes:
 * t's argv with the flags appended, malloc'd and NULL-terminated (free with
 * mi_compile_argv_free).  A flag that is not on t's allowlist is refused:
 * MI_ERR_ARG with a message naming the allowed ones.
 */
int mi_compile_argv(const mi_compile_target *t, const char *const *flags, size_t nflags,
		    char ***argv, mi_buf *err);
void mi_compile_argv_free(char **argv);

/* ---- running a child process (compile_run.c) ----------------------------------------- */

#define MI_CHILD_OUTPUT_CAP ((size_t)1 << 20)  /* output kept by default */

typedef struct mi_child_opts {
	char *const *argv;     /* program (PATH search) and arguments */
	const char *cwd;       /* working directory, NULL = ours */
	char *const *env;      /* "NAME=value" entries, NULL-terminated; NULL = ours */
	int timeout_s;         /* killed after this many seconds; 0 = never */
	size_t cap;            /* output bytes kept (head); 0 = MI_CHILD_OUTPUT_CAP */
	atomic_int *cancel;    /* polled; set to kill the child (may be NULL) */
	/* Called with each complete line of output (no newline), for
	 * progress; may be NULL. */
	void (*on_line)(void *ctx, const char *line, size_t len);
	void *ctx;             /* on_line's */
	/* When set, the child gets a second pipe as fd 3 (for progress lines
	 * such as `mcpidx build --progress-fd 3`) and its bytes come here. */
	void (*on_fd3)(void *ctx, const char *data, size_t len);
} mi_child_opts;

typedef struct mi_child_result {
	int exit_code;         /* exit status, 128 + signal, or -1 when not started */
	bool timed_out;        /* killed after timeout_s */
	bool cancelled;        /* killed because *cancel was set */
	mi_buf output;         /* stdout and stderr interleaved, at most cap bytes */
	size_t dropped;        /* bytes past the cap */
	double seconds;        /* wall time */
	int err;               /* errno when it could not start */
} mi_child_result;

/*
 * Runs argv (never through a shell) with stdin from /dev/null and stdout
 * and stderr into one pipe, in its own process group: timeout or cancel
 * sends SIGTERM to the group (and to the processes that left it carrying
 * the run's MCPIDX_RUN_<id> environment entry), then SIGKILL 3 s later,
 * and the run ends
 * then whoever holds the pipe; once the child has exited the pipe gets 3 s
 * to end, then is no longer read.  Returns 0 when the
 * child ran (whatever its status), or errno when it could not be started
 * (r->err too); r->output must be released by the caller.
 */
int mi_child_run(const mi_child_opts *o, mi_child_result *r);
void mi_child_result_release(mi_child_result *r);

/* Names of the parsers a target's `parser` may give, NULL-terminated
 * ("auto" tries every rule). */
extern const char *const mi_compile_parsers[];

/*
 * Reads output into messages (appended to *msgs / *n; free with
 * mi_compile_msgs_free).  parser is a mi_compile_parsers name or NULL/"auto".
 * Paths are taken relative to cwd (absolute) and made repo-relative to root;
 * a path outside root is dropped with its line and column (the message
 * stays).  Every non-empty line that belongs to no diagnostic is an INFO
 * message.
 */
void mi_compile_parse(const char *output, size_t len, const char *parser,
		      const char *root, const char *cwd, mi_compile_msg **msgs, size_t *n);
void mi_compile_msgs_free(mi_compile_msg *msgs, size_t n);

/* The log as one JSON object (the side store's text and read_task_log's
 * structuredContent without `text`), appended to out. */
void mi_compile_log_json(const mi_compile_log *l, mi_buf *out);
/* Reads what mi_compile_log_json wrote: 0 or MI_ERR_CORRUPT. */
int mi_compile_log_parse(const char *json, size_t len, mi_compile_log *l);

/* ---- the latest compile, beside the index (compile_store.c) ------------------------------ */

/*
 * Stores a finished compile in the side store of the index at index_path
 * (created when missing): the task log under its id (the last
 * MI_COMPILE_KEEP logs are kept), and the diagnostics of every file inside
 * the repository that the messages name, with the content hash of the file
 * as it is on disk now, replacing the diagnostics of the previous compile.
 * Only regular files that resolve inside root and hold at most 1 MiB are
 * read.
 * 0 or an error with a message in err.
 */
int mi_compile_store(const char *index_path, const char *root, const mi_compile_log *l,
		     mi_buf *err);

#endif
