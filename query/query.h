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
#include "../format/side.h"

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
/* find_references: {references: [{path, line, caller, text}], total};
 * kind "calls" or "all". */
int mi_query_references(mi_query *q, const char *symbol, const char *kind,
			size_t limit, mi_out *out);
/* The same from the offset-th reference on (a page: offset counts the
 * references before it, total counts them all). */
int mi_query_references_page(mi_query *q, const char *symbol, const char *kind,
			     size_t offset, size_t limit, mi_out *out);
/* code_research: {nodes, edges, text}. focus may be NULL. */
int mi_query_research(mi_query *q, const char *query, int depth,
		      const char *focus, mi_out *out);
/* Called after each hop of a research: hop (1..depth) is done and the
 * graph holds nodes; the caller may report progress. */
typedef void (*mi_query_hop_fn)(void *ctx, int hop, int depth, size_t nodes);
/* mi_query_research, calling hop_fn (may be NULL) after each hop. */
int mi_query_research_hops(mi_query *q, const char *query, int depth,
			   const char *focus, mi_query_hop_fn hop_fn, void *ctx,
			   mi_out *out);

/*
 * How search_code ranks (docs/format-search.md, "Scoring").  The defaults,
 * mi_rank_defaults, were fitted on the tuning half of bench/search's query
 * sets; a benchmark may pass others to fit them again.  Field weights, b and
 * k1 other than the ones the index was built with (mi_bm25f_params) turn
 * off the WAND bounds, so such a search reads every posting: for tuning
 * only.
 */
typedef struct mi_rank_params {
	float k1;
	float w[MI_SF__COUNT];   /* BM25F field weights: name path sig doc body */
	float b[MI_SF__COUNT];   /* length normalisation per field */
	float cap[MI_SF__COUNT]; /* the most a field's length-normalised tf counts (0: no cap) */
	float aux;               /* factor of chunks that are not functions */
	float join;              /* weight of a joined-word term */
	float priv;              /* factor of private symbols' chunks */
	float cover;             /* exponent of the share of the query's weight met */
	float test;              /* factor of test code, unless the query speaks of tests */
	float gen;               /* factor of generated code */
	float name_share;        /* exponent: name weight follows the share of it met */
	float abbr;              /* weight of a query word's abbreviation (0 = none) */
	float inexact;           /* factor of a chunk a one-identifier query does not
				  * name exactly (1 = none) */
} mi_rank_params;
extern const mi_rank_params mi_rank_defaults;

/*
 * Semantic evidence for search_code: a score the caller computed for one
 * chunk from something other than the code's own words (a stored summary
 * of it, written by the host's model).  path is repo-relative; the chunk is
 * the file's (symbol "" or line 0), else the one that starts at `line`, else
 * the one named `symbol` ("name" or "Parent.name").  Strings are the
 * caller's and only read during the call.
 */
typedef struct mi_search_evidence {
	const char *path;
	const char *symbol;
	uint32_t line;           /* the symbol's start line, 0 = the file */
	float score;             /* > 0; only its ratio to the best one counts */
} mi_search_evidence;

#define MI_SEMANTIC_WEIGHT_DEFAULT 0.7f /* seed 003's default */

typedef struct mi_search_opts {
	const char *query;
	size_t limit;            /* 0 = 20 (code) / 10 (docs) */
	const char *path_filter; /* glob, NULL = all */
	const char *extensions;  /* "c,h", NULL = all */
	const char *format;      /* "toon" | "json" | "human"; text form */
	bool all;                /* include private symbols */
	size_t offset;           /* skip this many of the best hits (a page) */
	const mi_rank_params *rank; /* NULL = mi_rank_defaults */
	/* search_code only: evidence[0..nevidence) is weighed against BM25F,
	 * each list scaled by its best score: (1 - w) * bm25f + w * evidence,
	 * w = semantic_weight (0..1; < 0 = MI_SEMANTIC_WEIGHT_DEFAULT).  A chunk
	 * only the evidence names is a candidate too.  Without evidence the
	 * weight changes nothing. */
	const mi_search_evidence *evidence;
	size_t nevidence;
	float semantic_weight;
} mi_search_opts;

/* Search answers of q also give each hit's BM25F "score" in their JSON:
 * what a server of several indexes merges their hits by.  Set once, right
 * after mi_query_open. */
void mi_query_set_scores(mi_query *q, bool on);
/* Searches of q score every chunk that holds a query term: no bounds, no
 * skipping.  The top k are the same as with pruning (the reference tests
 * and benchmarks compare against), only slower. */
void mi_query_set_exhaustive(mi_query *q, bool on);
/* A search whose query terms hold at least min_postings postings in all
 * runs its top-k pass over two halves of the index at once, the second in
 * a thread of its own (0: the default, 100,000; SIZE_MAX: never).  The
 * answer is the same either way. */
void mi_query_set_split(mi_query *q, size_t min_postings);
/* search_code: {results: [...], total} */
int mi_query_search(mi_query *q, const mi_search_opts *o, mi_out *out);
/* search_docs: {results: [...], total} */
int mi_query_docs(mi_query *q, const mi_search_opts *o, mi_out *out);
/* context_pack: what a model needs to change a target, within a budget. */
typedef struct mi_pack_opts {
	const char *target;      /* NAME, Parent.NAME or a path; several: commas between */
	size_t budget_tokens;    /* 0 = 4000; at least 100 */
	int depth;               /* hops of uses followed: 1 (0 = 1) or 2 */
	const struct mi_diff_opts *since; /* set: the targets are the symbols changed
				      since since->since (target may be empty) */
} mi_pack_opts;

/*
 * The target expanded (a symbol's doc comment and body, or a file's full
 * view; folded when over 60% of the budget), the symbols it uses (callees,
 * types, constants, across files) as folded outline lines, its callers as
 * one-line references, ranked by how much the target depends on each and
 * cut at symbol boundaries to the budget (by mi_token_estimate, with a few
 * percent kept for its error).  The last line states the tokens and what
 * was left out.  {target, budget_tokens, depth, tokens, entries: [{role,
 * name, kind, path, line, end_line, depth, refs}], left_out: [...], text}
 */
int mi_query_pack(mi_query *q, const mi_pack_opts *o, mi_out *out);

/*
 * Diff mode.  The query side never includes indexer/, so the front end
 * hands down the parser and the language detector (mi_parse_source and
 * mi_lang_detect in indexer.h).
 */
typedef int (*mi_parse_fn)(int lang, const char *src, size_t len, mi_parsed *out);
typedef int (*mi_detect_fn)(const char *path);
/* Whether a build would index root/path (mi_build_would_index). */
typedef bool (*mi_indexable_fn)(const char *root, const char *path);
typedef struct mi_diff_opts {
	const char *since;      /* NULL or "": the index against the working tree;
				   "REV": that git revision against the working tree;
				   "A..B": between two revisions */
	const char *path;       /* one file only, NULL = the whole repository */
	mi_parse_fn parse;      /* required */
	mi_detect_fn detect;    /* required */
	mi_indexable_fn indexable; /* the files a build leaves out (ignored,
				   vendored, over the size cap) are left out
				   here too; NULL: only the size cap holds */
	mi_buf *targets;        /* when set, gets "path\tParent\tname\n" for each
				   added or changed symbol (context_pack since) */
	bool unicode;           /* seed 000 glyphs: changed is "±", "…", "V•" */
	size_t *unread;         /* when set, gets the count of files not compared
				   past the 5,000 files with changes */
} mi_diff_opts;

/*
 * changed_symbols: every symbol with a mark that was added (+), removed (-)
 * or changed (~, ± in unicode marks: a function's text, a class's
 * signature) as its folded line, "~F> def total() { ... }  shop/cart.py:25",
 * then a count line.  Files are those whose content differs from the index
 * (by hash), or that git lists as changed, and new files git does not track
 * yet (not between two revisions); git runs as a child process with an argv.
 * Past 5,000 files with changes the rest are counted, not compared: a
 * closing V* [cut: ...] line and truncated, files_not_compared say so.
 * {since, changed: [{change, name, kind, parent, path, line, text}], total,
 * files, [truncated, files_not_compared,] text}
 */
int mi_query_changed(mi_query *q, const mi_diff_opts *o, mi_out *out);

/* index_status: counts, build metadata, format version. */
int mi_query_stats(mi_query *q, mi_out *out);

/* ---- the tool catalog (catalog.c): find_tools, describe_tools, ... ------ */

/* What a policy says of a tool (mi_tools_policy.state). */
enum {
	MI_TOOL_VISIBLE = 0,  /* found, described, executable */
	MI_TOOL_QUARANTINED,  /* its pin changed since it was approved */
	MI_TOOL_DENIED,       /* an allow or deny list keeps it out */
};

/* Decides, per tool, whether it may be shown (approvals, allow and deny
 * lists).  NULL fields: every tool is visible. */
typedef struct mi_tools_policy {
	/* name is "server/tool", hash its pin, flags its MI_TOOLF_*. */
	int (*state)(void *ctx, const char *name, const uint8_t hash[16], uint32_t flags);
	void *ctx;
} mi_tools_policy;

typedef struct mi_tools_opts {
	const char *query;            /* the task, in the user's words */
	size_t limit;                 /* 0 = 5; at most 50 */
	const mi_tools_policy *policy;/* may be NULL */
	const mi_tool_bm25 *params;   /* NULL = mi_tool_bm25_params (tuning) */
	bool no_aliases;              /* score without the alias field */
	bool expand;                  /* model-free query expansion (off: it did not
				       * earn its place, docs/format-catalog.md) */
	/* Suggestions beside each hit ("V* often used with: ..."), may be NULL:
	 * appends up to a few "server/tool" names, comma-separated, to out. */
	void (*related)(void *ctx, const char *name, mi_buf *out);
	void *related_ctx;
} mi_tools_opts;

/*
 * find_tools: BM25F over the catalog's tools; the best `limit` visible ones
 * as L1 summaries.  JSON {tools: [{name, server, summary, signature, score,
 * warnings?, related?}], total}, total = tools that matched any term.
 * An index without a catalog answers with an error saying how to build one.
 */
int mi_query_find_tools(mi_query *q, const mi_tools_opts *o, mi_out *out);

/* Detail levels of describe_tools. */
enum { MI_TOOL_L0, MI_TOOL_L1, MI_TOOL_L2 };
/* Parses "L0" / "L1" / "L2" (also 0..2); -1 when it is none of them. */
int mi_tool_level(const char *s);

/*
 * describe_tools: each named tool ("server/tool") at level L0 (name), L1
 * (summary, signature) or L2 (sanitized description, inputSchema,
 * outputSchema, annotations: what a call needs).  JSON {tools: [...],
 * missing: [{name, reason}]}; unknown, quarantined and denied names go to
 * missing with what to do.  is_error only when nothing was found.
 */
int mi_query_describe_tools(mi_query *q, const char *const *names, size_t n,
			    int level, const mi_tools_policy *policy, mi_out *out);

/* list_namespaces: {namespaces: [{name, tools, transport, protocol, title,
 * version, error}]} */
int mi_query_namespaces(mi_query *q, mi_out *out);

/* What execute needs of one tool; strings malloc'd (mi_tool_info_release). */
typedef struct mi_tool_info {
	char *server;        /* namespace */
	char *name;          /* upstream name */
	uint8_t hash[16];    /* pin */
	uint32_t flags;      /* MI_TOOLF_* */
	char *input_schema;  /* JSON text */
	char *description;   /* raw */
} mi_tool_info;
/* 0, MI_ERR_NOTFOUND (no such tool) or MI_ERR_CORRUPT. */
int mi_query_tool_get(mi_query *q, const char *name, mi_tool_info *out);
void mi_tool_info_release(mi_tool_info *t);
/* Calls fn for every tool of the catalog in name order ("server/tool", its
 * pin, its MI_TOOLF_*); fn returns nonzero to stop.  0 or an error. */
int mi_query_tools_each(mi_query *q, int (*fn)(void *ctx, const char *name,
					       const uint8_t hash[16], uint32_t flags),
			void *ctx);
/* Number of tools in the catalog (0: none, or an index without one). */
size_t mi_query_tool_count(mi_query *q);
/* The servers file the catalog was built from (malloc'd), or NULL. */
char *mi_query_servers_file(mi_query *q);
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

/* One indexed file, for mi_query_files: path[0..len) is valid during the
 * call only. */
typedef void (*mi_query_file_fn)(void *ctx, const char *path, size_t len,
				  uint64_t size, uint32_t lines, int lang);
/*
 * Calls fn for up to limit indexed files in path order, starting after the
 * path `after` (NULL or "": from the first); *more says whether files
 * follow the last one given.  Returns 0 or an error.
 */
int mi_query_files(mi_query *q, const char *after, size_t limit,
		   mi_query_file_fn fn, void *ctx, bool *more);
/* ---- the latest compile's diagnostics (cdiags.c) ----------------------------
 * Kept in the side store beside the index by a compile task (mcp/compile_*.c);
 * the views join them to a file's own diagnostics (read_file, expand_at),
 * the language server publishes them. */

/* Receives one diagnostic; d->msg is valid only during the call. */
typedef void (*mi_query_diag_fn)(void *ctx, const mi_cdiag *d);
/* Calls fn for each of path's compile diagnostics, when they were made
 * against content with this hash (NULL: whatever the content).  0 or an
 * error reading the side store; no side store or none for path is 0. */
int mi_query_compile_diags(mi_query *q, const char *path, const uint8_t hash[16],
			   mi_query_diag_fn fn, void *ctx);
/* Receives one file with compile diagnostics: its content hash then (NULL
 * when unknown) and its mi_cdiag lines, valid only during the call. */
typedef void (*mi_query_cfile_fn)(void *ctx, const char *path, const uint8_t *hash,
				  const char *text, size_t len);
/* Calls fn (may be NULL) for every file the latest compile named, and sets
 * *latest (may be NULL) to that compile's task id (malloc'd; NULL when no
 * compile was stored), which changes with every compile.  0 or an error. */
int mi_query_compile_files(mi_query *q, mi_query_cfile_fn fn, void *ctx, char **latest);

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

/* ---- artifacts made by the host's own model (artifacts.c, evidence.c) ------
 *
 * mcpidx never calls a model: it hands the host a prompt built from the
 * index (the folded outline and only the bodies the task needs), the host
 * runs it with its own model and calls back with the answer, which is stored
 * in the side store (format/side.h) pinned to the content hash of the source
 * it describes, so an edit marks it stale.  This is the read side: the
 * handle, prompts, get/list, search evidence and the answers' shape; the
 * writes (store_llm_result, delete_artifact, the chain bookkeeping of
 * generate_prompt) are in mcp/ (mcp.h, mi_mcp_art_*).
 *
 * Every answer is one structured object (mi_out.json):
 *   {status: "success"|"error"|"prompt_ready", data, error, nextAction,
 *    promptForHostLLM?, callbackTool?, callbackArgs?}
 * and a short text form (mi_out.text).  An "error" answer has mi_out.is_error
 * set and says in nextAction what the host can do.
 */

#define MI_ART_MAX_STEPS 8              /* default steps per chain */
#define MI_ART_CALLBACK_MS (10 * 60000)  /* default: a prompt waits 10 min */
#define MI_ART_TOOL_MS 10000             /* default budget of one call's own work */
#define MI_ART_CHAIN_TTL_MS (60 * 60000) /* default: a chain lives one hour */

typedef struct mi_art_opts {
	const char *index;           /* index path (directory or packed file) */
	const char *side;            /* side store dir; NULL = mi_side_locate(index) */
	const char *repo;            /* working tree, for staleness; NULL = index only */
	int max_steps;               /* steps per chain; 0 = MI_ART_MAX_STEPS */
	int64_t callback_timeout_ms; /* prompt -> store_llm_result; 0 = default */
	int64_t tool_timeout_ms;     /* one call's own work; 0 = default */
	int64_t chain_ttl_ms;        /* age limit of a chain; 0 = default */
	size_t prompt_tokens;        /* prompt budget; 0 = 6000 */
} mi_art_opts;

typedef struct mi_art mi_art;

/* Copies o; opens nothing until a call needs the side store.  Never fails
 * (allocation failure aborts). */
mi_art *mi_art_new(const mi_art_opts *o);
void mi_art_free(mi_art *a);
/* The side store directory (NULL when there is no index to put it beside). */
const char *mi_art_side_dir(const mi_art *a);

/* The arguments of one artifact call, as the tool schemas name them.
 * Strings are borrowed for the call; NULL means absent. */
typedef struct mi_art_req {
	const char *tool;          /* tool name, for the log */
	const char *path;          /* source file, repo-relative */
	const char *task;          /* annotate|summarize|document|test-plan|parse */
	const char *symbol;        /* NAME or Parent.NAME */
	const char *result;        /* store_llm_result: the model's answer */
	const char *chain;         /* callbackArgs.chain: continue this chain */
	const char *hash;          /* callbackArgs.hash: source the prompt described */
	const char *const *focus;  /* generate_artifact options.focusOn */
	size_t nfocus;
	const char *directory;     /* list_artifacts: only under this directory */
	const char *type;          /* list_artifacts: only this task */
	uint64_t call_id;          /* the front end's correlation id, for the log */
} mi_art_req;

/* The read tools: get_artifact (a file's artifacts, each marked stale or
 * not), list_artifacts (a tree under r->directory, only task r->type), and
 * generate_artifact's parse (the file's structure, from the index, not
 * stored).  Each fills out and returns 0 or the error behind an "error"
 * answer; out is always filled.  The writing tools are in mcp/mcp.h. */
int mi_art_get(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out);
int mi_art_list(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out);
int mi_art_parse(mi_art *a, mi_query *q, const mi_art_req *r, mi_out *out);

/* One task the host's model can be asked to do (a row of the task table). */
typedef struct mi_art_task {
	const char *name;       /* generate_prompt's task */
	int bodies;             /* a whole file: which bodies the prompt carries */
	bool per_symbol;        /* a file's answer is "NAME: text" lines, also
				 * stored one per symbol */
	const char *file_ask;   /* instructions for a whole file */
	const char *symbol_ask; /* for one symbol; %s is its name */
	bool tool_card;         /* the target is a catalog tool, path
				 * "tool:server/tool": the prompt is its card, the
				 * answer task phrasings stored as its aliases */
} mi_art_task;
/* Paths naming a catalog tool instead of a file start with this. */
#define MI_ART_TOOL_PREFIX "tool:"
/* The task called name, or NULL. */
const mi_art_task *mi_art_task_find(const char *name);
/* The prompt of task tk for r (path, symbol?, focus?) into prompt (text:
 * the prompt, json: mi_query_prompt's object), within the handle's token
 * budget and tool timeout.  On failure an "error" answer goes to out. */
int mi_art_compose(mi_art *a, mi_query *q, const mi_art_req *r, const mi_art_task *tk,
		   mi_out *prompt, mi_out *out);

/* Stored summaries as view notes (mi_view_opts.notes). */
typedef struct mi_art_notes_t {
	mi_view_note *v;   /* one per symbol line (0: the file), malloc'd */
	size_t n;          /* how many */
	char *mem;         /* their texts */
} mi_art_notes_t;
/*
 * The summaries of path that still describe the index's version of the
 * file, one "summary" note per symbol (a summarize artifact before an
 * annotate one; a file's own summary at line 0), for read_file
 * summaries:true and expand_at what=docs.  No side store, an unknown path:
 * no notes.  0 or an error; release with mi_art_notes_release.
 */
int mi_art_notes(mi_art *a, mi_query *q, const char *path, mi_art_notes_t *out);
void mi_art_notes_release(mi_art_notes_t *n);

/* search_code with the host's model.  The prompt asking for related words
 * and identifiers (expand_query), with the plain search's first hits for
 * context (results may be NULL); the prompt asking for a summary of results
 * and follow-up questions (synthesize); and the expanded query: the user's
 * words twice (they outweigh the additions) and the answer's terms, one per
 * line, list marks dropped, at most about 1000 bytes.  Appended to out
 * (mi_art_expand_query resets it first). */
void mi_art_expand_prompt(const char *query, const mi_out *results, mi_buf *out);
void mi_art_synth_prompt(const char *query, const mi_out *results, mi_buf *out);
void mi_art_expand_query(const char *query, const char *answer, mi_buf *out);

/* ---- helpers shared with the writing side (mcp/artifacts.c) ----------------- */

/* The handle's options, defaults filled in. */
const mi_art_opts *mi_art_options(const mi_art *a);
/*
 * The side store, opened on first use.  create: a writer (creates it when
 * missing).  Returns 0 with *s, MI_ERR_NOINDEX when it does not exist and
 * create is false (callers treat it as empty), or another error with an
 * "error" answer in out saying what to do (not writable: --side DIR).
 */
int mi_art_side(mi_art *a, bool create, mi_side **s, mi_out *out);
/* Sets an "error" answer: is_error, json {status, data: null, error,
 * nextAction}, text "error\nNext: nextAction".  Returns err (MI_ERR_ARG for 0). */
int mi_art_error(mi_out *out, int err, const char *next, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A "success" answer: data a JSON object (NULL: null), text the short form,
 * next the nextAction (may be NULL). */
void mi_art_success(mi_out *out, const char *data, const char *text, const char *next);
/* Turns a query error answer in out into an "error" answer with next. */
int mi_art_from_query(mi_out *out, int rc, const char *next);
/* Copies r into n with the path normalised into norm; an "error" answer
 * when the path is missing (and need_path) or leaves the repository. */
int mi_art_norm(const mi_art_req *r, mi_art_req *n, mi_buf *norm, bool need_path,
		mi_out *out);
/* The "unknown task" answer (with_parse: generate_artifact's tasks). */
int mi_art_bad_task(const char *task, mi_out *out, bool with_parse);
/* 32 hex digits -> 16 bytes; false when malformed. */
bool mi_art_hex_hash(const char *hex, uint8_t out[16]);
/* The content hash of path now: the working tree's file when the repository
 * is known and holds it, else the index's record; false when gone. */
bool mi_art_current_hash(mi_art *a, mi_query *q, const char *path, uint8_t h[16]);
/* One artifact as JSON, stale unless now (the current hash) equals its own;
 * with_text adds its text. */
void mi_art_json(mi_buf *j, const mi_side_rec *r, const uint8_t *now, bool with_text);
/* Monotonic microseconds. */
int64_t mi_art_now_us(void);

/* ---- artifacts as search evidence (evidence.c) ---------------------------- */

/* A stored summary or annotation that matches a query. */
typedef struct mi_art_hit {
	const char *path;    /* file (owned by the array) */
	const char *symbol;  /* NAME or Parent.NAME; "" for the whole file */
	uint32_t line;       /* the symbol's start line when stored; 0: file */
	float score;         /* BM25 of the query over the artifact texts, > 0 */
	uint8_t hash[16];    /* of the source it describes (= the index's now) */
} mi_art_hit;

/*
 * The summaries, annotations and documentation artifacts whose text
 * matches query, best first, at most max, fresh ones only (their hash is
 * the index's hash of the file; q NULL: unchecked).  Scored with BM25 over
 * all such artifacts with the index's tokenizer; the term index is kept in
 * memory and rebuilt when the side store's artifacts change.  *out is
 * malloc'd (free with mi_art_evidence_free; NULL and 0 when none or no side
 * store).  0 or an error.
 */
int mi_art_evidence(mi_art *a, mi_query *q, const char *query, size_t max,
		    mi_art_hit **out, size_t *n);
void mi_art_evidence_free(mi_art_hit *ev, size_t n);

/* Task names generate_prompt accepts, NULL-terminated (for schemas, help). */
extern const char *const mi_art_tasks[];

#endif
