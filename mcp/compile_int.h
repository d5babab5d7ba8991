/*
 * compile_int.h - internals shared by the compile_*.c files of mcp/ (not
 * public; the API is in mcp.h): the command line a run executes, the output
 * parser, the log's JSON form and the side-store writer.  Layers:
 * compile_task.c calls compile_config.c, child.c (area.h), compile_parse.c
 * and compile_store.c; compile_log.c renders.
 */
#ifndef MI_COMPILE_INT_H
#define MI_COMPILE_INT_H

#include "area.h"

/*
 * The command a run of t with flags (nflags of them, may be 0) executes:
 * t's argv with the flags appended, malloc'd and NULL-terminated (free with
 * mi_compile_argv_free).  A flag that is not on t's allowlist is refused:
 * MI_ERR_ARG with a message naming the allowed ones.
 */
int mi_compile_argv(const mi_compile_target *t, const char *const *flags, size_t nflags,
		    char ***argv, mi_buf *err);
void mi_compile_argv_free(char **argv);

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
