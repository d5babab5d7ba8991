/*
 * tools.h - internals shared by the files of tools/ (the mcpidx command
 * line).  tools/ includes only the public headers of other subsystems.
 */
#ifndef MI_TOOLS_H
#define MI_TOOLS_H

#include "../format/format.h"
#include "../indexer/indexer.h"
#include "../query/query.h"
#include <stdio.h>

/* One subcommand of mcpidx. */
typedef struct mi_cmd {
	const char *name;                    /* "build" */
	int (*run)(int argc, char **argv);   /* argv[0] is the name */
	const char *usage;                   /* one line: arguments */
	const char *help;                    /* one line: what it does */
} mi_cmd;

int mi_cmd_build(int argc, char **argv);
int mi_cmd_query(int argc, char **argv);
int mi_cmd_outline(int argc, char **argv);
int mi_cmd_context(int argc, char **argv); /* cmd_query.c */
int mi_cmd_serve(int argc, char **argv);
int mi_cmd_hook(int argc, char **argv);    /* cmd_hook.c */
int mi_cmd_pack(int argc, char **argv);    /* cmd_pack.c */
int mi_cmd_verify(int argc, char **argv);  /* cmd_pack.c */
int mi_cmd_status(int argc, char **argv);  /* cmd_pack.c */
int mi_cmd_tools(int argc, char **argv);   /* cmd_tools.c */
int mi_cmd_lsp(int argc, char **argv);     /* cmd_lsp.c */
int mi_cmd_compile(int argc, char **argv); /* cmd_compile.c */

int mi_cmd_artifacts(int argc, char **argv); /* cmd_artifacts.c */

/*
 * Runs one artifacts command line (argv[0] = "artifacts", argv[1] = list,
 * show, rm, prompt or store) against q's index and its side store (side:
 * --side DIR, may be NULL) and prints the answer (JSON when json) to out.
 * Exit status as mi_query_cmd_run.  Shared by `mcpidx artifacts` and the
 * REPL.
 */
int mi_artifacts_cmd_run(mi_query *q, const char *side, int argc, char **argv,
			 bool json, FILE *out);
/* The stored summaries of path as view notes (query outline --summaries,
 * expand --what docs|all).  Release with mi_art_notes_release. */
int mi_artifacts_notes(mi_query *q, const char *path, mi_art_notes_t *out);
/* pack --with-artifacts: copies the artifacts and tool aliases stored
 * beside index into OUTFILE.side/, where a server of the packed file finds
 * them; *n records.  No side store: nothing copied, 0.  Else an error
 * described in err. */
int mi_artifacts_pack(const char *index, const char *outfile, uint64_t *n, mi_buf *err);

/*
 * The interactive prompt of `mcpidx query [INDEX]` (repl.c): on a terminal,
 * a libedit line editor with history, completion, colour and a pager; when
 * stdin is not a terminal, one command per input line, answers on stdout.
 * json makes every answer JSON.  Returns the exit status: 0, or the status
 * of the last command when stdin is not a terminal.
 */
int mi_repl_run(mi_query *q, bool json);

/*
 * Runs argv[0] with argv (PATH search, no shell) and collects its stdout in
 * out (appended; may be NULL to discard) and its stderr in errout (may be
 * NULL: inherited).  Returns the exit status, or -1 with errno set when the
 * program could not be started.  (cmd_hook.c)
 */
int mi_run_capture(char *const argv[], mi_buf *out, mi_buf *errout);

/*
 * Runs one query command line (argv[0] = def, refs, outline, ...) against q
 * and prints the answer (JSON when json) to out.  Returns the exit status:
 * 0 answered, 1 the answer is an error or empty, 2 usage error.  Shared by
 * `mcpidx query INDEX CMD` and the REPL.
 */
int mi_query_cmd_run(mi_query *q, int argc, char **argv, bool json, FILE *out);
/* Prints the query commands' help. */
void mi_query_cmd_help(FILE *out);
/* Names of the query commands, NULL-terminated (for completion). */
extern const char *const mi_query_cmd_names[];

/*
 * `mcpidx build --servers FILE` (catalog.c): fetches the tools of the
 * servers of FILE (only those named in only, a NULL-ended list, when it is
 * non-empty; none when offline, which re-indexes the stored catalog) and
 * writes the catalog into index_dir.  Prints a summary (JSON when json,
 * nothing when quiet) and each failed server on stderr.  Returns the exit
 * status: 0 (failed servers included), 1 on a write error, 2 on usage.
 */
int mi_catalog_build(const char *servers_path, const char *index_dir, char *const *only,
		     bool offline, bool json, bool quiet);

/* Appends a file name for a terminal line: as it is, or, when it holds a
 * control byte (a newline would forge a line, ESC reach the terminal), a
 * C1 control, bytes that are not UTF-8, '"' or '\\', in double quotes
 * with C escapes (\n, \t, \", \\, \ooo), as git's core.quotePath does. */
void mi_quote_name(mi_buf *b, const char *name);

/* The largest --max-size taken: 1 GiB (a larger one only removed the cap). */
#define MI_MAX_SIZE_CAP (1ull << 30)

/* Parses option opt's value v, a decimal number from min to max: digits
 * only (no sign, blank, suffix or exponent), in range.  false, having said
 * why on stderr as "mcpidx CMD: ...", when it is not. */
bool mi_arg_uint(const char *cmd, const char *opt, const char *v, unsigned long long min,
		 unsigned long long max, unsigned long long *out);

/* Resolves the index path: an index dir, a packed file, or a repo holding
 * .mcpidx/; NULL arg means the current directory.  Result is malloc'd. */
char *mi_resolve_index(const char *arg);
/* When index (as mi_resolve_index gave it) is a folder .mcpidx that is a
 * symbolic link, writes why it is not opened into err and returns
 * MI_ERR_SYMLINK; else 0.  Front ends that resolve paths themselves call it
 * first, since a resolved path no longer shows the link. */
int mi_index_link_check(const char *index, mi_buf *err);

/* argv[0] of the process as started (main sets it before any command
 * runs): what mi_exe_path falls back on to find our own binary. */
extern const char *mi_prog;

#endif
