/*
 * query.h - read-only answers over an mcpidx index.
 *
 * Every operation runs in its own LMDB read transaction (one consistent
 * snapshot) and writes its answer twice into an mi_out: `text`, the
 * token-cheap folded form, and `json`, the SPEC §3.1 object.  Front ends
 * (mcp/, tools/) only choose which to print.  No global mutable state; an
 * mi_query may be used from several threads at once.  A rebuild committed by
 * another process is seen by the next call.  The answer type (mi_out), the
 * view options and the renderer are in format.h: build and query share them.
 */
#ifndef MI_QUERY_H
#define MI_QUERY_H

#include "../format/format.h"

typedef struct mi_query mi_query;

/*
 * Opens the index at path (an index directory or a packed file).  On failure
 * returns the error and writes a message that says what to do into err
 * (e.g. "no index at X. Run: mcpidx build REPO").
 */
int mi_query_open(const char *path, mi_query **out, mi_buf *err);
void mi_query_close(mi_query *q);
/* The index path it was opened with. */
const char *mi_query_path(const mi_query *q);
/* The store, for front ends that need raw access (completion, pack). */
mi_store *mi_query_store(mi_query *q);

/* read_file: {path, mode, text, line_count, symbols, tokens_saved_percent} */
int mi_query_read_file(mi_query *q, const char *path, const mi_view_opts *o,
		       mi_out *out);
/* expand_at: selector NAME | Parent.NAME | line:N; what body|signature|docs|all.
 * {path, name, kind, start_line, end_line, text} */
int mi_query_expand(mi_query *q, const char *path, const char *selector,
		    const char *what, const mi_view_opts *o, mi_out *out);
/* goto_definition: {definitions: [{name, kind, path, line, end_line,
 * signature, text}]}; path (may be NULL) narrows. */
int mi_query_definition(mi_query *q, const char *symbol, const char *path,
			mi_out *out);
/* find_references: {references: [{path, line, caller, text}]};
 * kind "calls" or "all". */
int mi_query_references(mi_query *q, const char *symbol, const char *kind,
			size_t limit, mi_out *out);
/* code_research: {nodes, edges, text}. focus may be NULL. */
int mi_query_research(mi_query *q, const char *query, int depth,
		      const char *focus, mi_out *out);

typedef struct mi_search_opts {
	const char *query;
	size_t limit;            /* 0 = 20 (code) / 10 (docs) */
	const char *path_filter; /* glob, NULL = all */
	const char *extensions;  /* "c,h", NULL = all */
	const char *format;      /* "toon" | "json" | "human"; text form */
	bool all;                /* include private symbols */
} mi_search_opts;

/* search_code: {results: [...], total} */
int mi_query_search(mi_query *q, const mi_search_opts *o, mi_out *out);
/* search_docs: {results: [...], total} */
int mi_query_docs(mi_query *q, const mi_search_opts *o, mi_out *out);
/* index_status: counts, build metadata, format version. */
int mi_query_stats(mi_query *q, mi_out *out);

/* ---- spans for editors (spans.c) ------------------------------------------
 * The language server computes positions itself, so it reads the index as
 * spans: one file's source and symbols, and symbols by name. */

/* One indexed file, decoded. */
typedef struct mi_query_file {
	char *src;          /* the indexed source, malloc'd, NUL-terminated */
	size_t len;         /* bytes of src */
	uint8_t hash[16];   /* xxh3-128 of src when it was indexed */
	mi_parsed parsed;   /* symbols (parent_idx links), diagnostics, impl refs */
} mi_query_file;

/* Loads path (repo-relative) into f; release with mi_query_file_release
 * (also safe after a failure).  0, MI_ERR_PATH, MI_ERR_NOTFOUND when the
 * file is not indexed, MI_ERR_CORRUPT. */
int mi_query_file_load(mi_query *q, const char *path, mi_query_file *f);
void mi_query_file_release(mi_query_file *f);
/* The indexed source of path (normalized, repo-relative) alone: *src is
 * malloc'd and NUL-terminated.  0 or MI_ERR_NOTFOUND. */
int mi_query_source(mi_query *q, const char *path, char **src, size_t *len);
/* The absolute repository root the index was built from (malloc'd), or
 * NULL when the index does not record it. */
char *mi_query_root(mi_query *q);

/* Receives one symbol: path and s are valid only during the call. */
typedef void (*mi_query_sym_fn)(void *ctx, const char *path, const mi_symbol *s);
/* Symbols whose name contains needle, ignoring case (all of them for ""),
 * at most limit (0 = 100): exact names first, then prefixes, then the
 * rest, each in name order.  Calls fn for each; 0 or an LMDB error. */
int mi_query_symbols(mi_query *q, const char *needle, size_t limit,
		     mi_query_sym_fn fn, void *ctx);

/* ---- prompts for the host's model (prompt.c) ------------------------------- */

/* Which bodies a file-wide prompt carries besides the outline. */
enum { MI_PROMPT_BODIES_NONE, MI_PROMPT_BODIES_PUBLIC, MI_PROMPT_BODIES_ALL };

typedef struct mi_prompt_opts {
	const char *path;          /* repo-relative file */
	const char *symbol;        /* NAME or Parent.NAME: its body first; NULL = file */
	const char *const *focus;  /* only these symbols' bodies (NAME or Parent.NAME) */
	size_t nfocus;             /* entries in focus; 0 = by `bodies` */
	int bodies;                /* MI_PROMPT_BODIES_*, for a file without focus */
	const char *instructions;  /* what the model is asked to do; opens the prompt */
	size_t budget_tokens;      /* cap on the prompt, 0 = 6000 */
	int64_t deadline_us;       /* CLOCK_MONOTONIC us after which no body is
				    * added (0 = none) */
} mi_prompt_opts;

/*
 * A prompt for the host's model: the instructions, the file's folded outline
 * (compact when the outline alone would take half the budget) and only the
 * bodies o asks for, source order, while the budget lasts (a symbol's own
 * body is cut rather than left out).  out->text is the prompt; out->json
 * {path, lang, hash, lines, symbol?, line?, outline_mode, tokens, budget,
 * bodies: [names], omitted: [names]}; hash is the hex xxh3-128 of the
 * source the prompt describes.
 */
int mi_query_prompt(mi_query *q, const mi_prompt_opts *o, mi_out *out);

/*
 * The indexed content hash of path and, when symbol is non-empty, the start
 * line of that symbol into *line (may be NULL).  Errors (not indexed, no
 * such symbol) are MI_ERR_* with the message in out.
 */
int mi_query_file_info(mi_query *q, const char *path, const char *symbol,
		       uint8_t hash[16], uint32_t *line, mi_out *out);

/* Just the indexed content hash of path (already normalised): 0 or
 * MI_ERR_NOTFOUND.  One lookup, for checks over many files. */
int mi_query_file_hash(mi_query *q, const char *path, uint8_t hash[16]);

/* Calls fn for each symbol of path (prototypes left out) with its qualified
 * name (valid for the call), kind and lines; nonzero from fn stops and is
 * returned.  Errors as mi_query_file_info. */
typedef int (*mi_query_file_sym_fn)(void *ctx, const char *name, int kind,
			       uint32_t start_line, uint32_t end_line);
int mi_query_file_symbols(mi_query *q, const char *path, mi_query_file_sym_fn fn,
			  void *ctx, mi_out *out);

#endif
