/*
 * indexer_int.h - internals shared by the files of indexer/ (not public).
 */
#ifndef MI_INDEXER_INT_H
#define MI_INDEXER_INT_H

#include "indexer.h"

typedef struct TSLanguage TSLanguage;
typedef struct mi_ts_ctx mi_ts_ctx;

/*
 * One row per language, defined by indexer/lang/<name>.c; how to add a
 * language: indexer/lang/lang_int.h.
 */
typedef struct mi_lang_row {
	int id;                       /* mi_lang_id */
	const char *name;             /* "c" */
	const char *exts;             /* " .c .h " (space-delimited, both ends) */
	const char *filenames;        /* " Makefile Kconfig.* " names (a trailing
	                               * '*': any name it starts), or NULL */
	const TSLanguage *(*ts)(void);/* tree-sitter grammar, NULL = scanner */
	const char *query;            /* tags query source (ours) */
	/* Own scanner for languages without tree-sitter (Simple). */
	int (*scan)(const char *src, size_t len, mi_parsed *out);
	/* Language rules applied to each symbol after the query, may be NULL:
	 * visibility, kind corrections.  def is the definition node.  Setting
	 * s->kind to MI_KIND_NONE drops the symbol. */
	void (*fix)(mi_ts_ctx *c, void *def_node, mi_symbol *s);
	/* Source for the parser only, may be NULL: returns a same-length copy
	 * (offsets and lines unchanged) with what the grammar cannot read
	 * blanked, or NULL when nothing needed it.  Names, signatures and docs
	 * still come from the original text. */
	char *(*prefilter)(const char *src, size_t len);
	/* Definitions found by walking the tree instead of the query, may be
	 * NULL: patterns whose parent is a node that may hold anything (C's
	 * #if blocks) make the query slow to compile.  Each is added with
	 * mi_ts_add_def as if a pattern after the query's last had matched. */
	void (*walk)(mi_ts_ctx *c, void *root);
	/* A tree walk in place of the query, may be NULL: finds what the
	 * query's patterns would match (mi_ts_add_match with the pattern's
	 * index, mi_ts_add_ref, mi_ts_add_local, mi_ts_scan_calls) in one pass
	 * over the tree, without the query engine's cost, and returns the
	 * query's pattern count.  The query stays the specification:
	 * MCPIDX_PARSE_QUERY=1 runs it instead, and the tests compare both. */
	int (*extract)(mi_ts_ctx *c, void *root);
	/* Blocks of another language inside the file, may be NULL: a
	 * component's or page's <script>.  Calls mi_ts_embed for each; their
	 * definitions and references join the file's, nested in the symbol
	 * around them. */
	void (*embed)(mi_ts_ctx *c, void *root);
} mi_lang_row;

const mi_lang_row *mi_lang_row_get(int id);

/* From an embed callback: node's bytes (a TSNode*) are a block of
 * language lang (one tree-sitter reads; others are left as text), parsed
 * on their own once the file's own symbols are made.  At most MI_EMBED_MAX blocks a file; the rest are left as text,
 * and a diagnostic says so. */
#define MI_EMBED_MAX 64
void mi_ts_embed(mi_ts_ctx *c, void *node, int lang);

/* From a walk: one definition, as a match of the walk's pattern `order`
 * (0, 1, ...; ranked after every query pattern) capturing def as
 * @definition.KIND and name (may be NULL) as @name, body (may be NULL) as
 * @body.  Nodes are TSNode* passed as void*. */
void mi_ts_add_def(mi_ts_ctx *c, void *def, void *name, void *body, int kind, int order);

/* From an extract walk (nodes are TSNode* passed as void*): a match of
 * query pattern `pattern` capturing def as @definition.KIND, name (may be
 * NULL) as @name and body (may be NULL) as @body; a reference of kind
 * MI_REF_* to the name node; a @local name; a @scan.calls text with its
 * @params (may be NULL). */
void mi_ts_add_match(mi_ts_ctx *c, void *def, void *name, void *body, int kind, int pattern);
void mi_ts_add_ref(mi_ts_ctx *c, void *name, int kind);
void mi_ts_add_local(mi_ts_ctx *c, void *name);
void mi_ts_scan_calls(mi_ts_ctx *c, void *text, void *params);

/* Accessors for fix callbacks; node is a TSNode* passed as void*. */
const char *mi_ts_text(mi_ts_ctx *c, void *node, uint32_t *len);
const char *mi_ts_src(mi_ts_ctx *c, size_t *len, uint32_t *base);
mi_parsed *mi_ts_parsed(mi_ts_ctx *c);
/* Text of [a, b) of the parsed source with the comments inside it blanked
 * to spaces (same length, offsets kept): signatures never carry comments.
 * Points into the source, or into a buffer of c valid until the next call. */
const char *mi_ts_uncomment(mi_ts_ctx *c, uint32_t a, uint32_t b);
/* Compile error of a language's query, or NULL. */
const char *mi_ts_query_error(int lang);
/* true once lang's query has been compiled in this process: queries
 * compile on the first file of their language, never at start-up. */
bool mi_ts_query_compiled(int lang);
/* The grammar l of lang with its whole parse table dense, for the parser
 * only (indexer/ts_dense.c): the same trees, one load per table lookup.
 * l itself when its table is already dense or too large; made once. */
const TSLanguage *mi_ts_dense(int lang, const TSLanguage *l);
/* Symbols of l's parse table: its own, without the aliases that
 * ts_language_symbol_count also counts (nodes are never looked up as those). */
uint32_t mi_ts_table_width(const TSLanguage *l);

/* C/C++ attribute macros (__init, __user, __printf(2, 3)...) blanked
 * (indexer/lang/c.c). */
char *mi_c_prefilter(const char *src, size_t len);

/* Simple (.spl) scanner: indexer/lang/simple.c */
int mi_simple_scan(const char *src, size_t len, mi_parsed *out);

/* ---- .gitignore matching: indexer/ignore.c ---------------------------------- */

typedef struct mi_ignore mi_ignore;

/* A stack of ignore rule sets, one per directory level during the walk.
 * One mi_ignore belongs to one thread: matching updates its cache. */
mi_ignore *mi_ignore_new(void);
void mi_ignore_free(mi_ignore *ig);
/* Reads rules from file for directory dir_rel ("" = root).  Rules apply to
 * paths strictly below dir_rel.  Returns the number of rules, 0 for a
 * missing or non-regular file, or a negative errno when it cannot be read. */
int mi_ignore_push_file(mi_ignore *ig, const char *dir_rel, const char *file);
/* Adds rules from a string (one pattern per line, gitignore syntax). */
int mi_ignore_push_text(mi_ignore *ig, const char *dir_rel, const char *text);
/* Drops rule sets of directories that are not ancestors of dir_rel. */
void mi_ignore_pop_to(mi_ignore *ig, const char *dir_rel);
/* true if the repo-relative path (is_dir: a directory) is ignored. */
bool mi_ignore_match(mi_ignore *ig, const char *path_rel, bool is_dir);
/* Like mi_ignore_match, with the reason: 1 ignored (by a rule or a folder
 * above), 0 re-included by a negated rule ("!venv/"), -1 no rule matches. */
int mi_ignore_decide(mi_ignore *ig, const char *path_rel, bool is_dir);

/* ---- external sort: indexer/sorter.c ---------------------------------------- */

/*
 * Key/value records sorted in bounded memory: each lane (one per thread,
 * no locking) buffers up to `budget` bytes, then sorts them into a run
 * file dir/name.LANE.N.  Keys compare as LMDB's do (memcmp, shorter first).
 * After the last add, mi_sorter_finish opens the merge; mi_sorter_next
 * gives the smallest record (valid until mi_sorter_pop), MI_ERR_NOTFOUND
 * past the last, or the first I/O error.  Run files are removed as they
 * are opened for the merge, and by mi_sorter_free otherwise.
 */
typedef struct mi_sorter mi_sorter;
mi_sorter *mi_sorter_new(const char *dir, const char *name, int lanes, size_t budget);
void mi_sorter_add(mi_sorter *s, int lane, const void *k, size_t kl, const void *v, size_t vl);
/* Sorts lane's buffer into a run now (called by mi_sorter_add when full). */
void mi_sorter_spill(mi_sorter *s, int lane);
int mi_sorter_finish(mi_sorter *s);
int mi_sorter_next(mi_sorter *s, const void **k, size_t *kl, const void **v, size_t *vl);
int mi_sorter_pop(mi_sorter *s);
/* Records added in all (after finish). */
uint64_t mi_sorter_count(const mi_sorter *s);
void mi_sorter_free(mi_sorter *s);

/* ---- search writer: indexer/search_write.c ----------------------------------- */

struct mi_txn;
/* Adds the search chunks and postings of one file (already parsed),
 * first removing those of its previous version (mi_search_del_file, so
 * call it before the file's stored source or symbols change). */
int mi_search_put_file(mi_txn *t, uint32_t file_id, const char *path,
		       const mi_parsed *p, const char *src, size_t len);
/* Start of the doc comment block right above byte start of src (C-like
 * block and line comments, '#' comments), or start when there is none. */
uint32_t mi_search_doc_start(const char *src, uint32_t start);
/* Removes the chunks and postings of one file, found again from its
 * stored source, symbols and file record: call before those change. */
int mi_search_del_file(mi_txn *t, uint32_t file_id, const char *path);
/* Called once after all files: recompute global statistics (N, avg lengths,
 * idf bounds).  Returns the number of chunks in the index. */
int mi_search_finish(mi_txn *t, size_t *nchunks);

/*
 * Fresh builds.  On a worker thread, mi_search_file cuts one file into
 * chunks and tokenizes them: each block of chunk records goes
 * to put (key: 8 bytes, appended by the writer in file id order), each
 * (term, file) posting to post (key term \0 be32(fid), value varint chunk
 * count + posting bytes; NULL: none), and the counts to *tot (the
 * thread's; the writer sums them).  mi_search_thread_done frees the
 * thread's tokenizer and tables.  At the end the sorted postings are fed
 * to mi_search_fresh_put in key order, which hands the stored entries of
 * post and terms to out in key order per database; a range of terms may
 * be fed to a second mi_search_fresh on another thread (same totals),
 * whose entries the writer appends after the first's.
 * mi_search_fresh_end writes what is still being filled;
 * mi_search_fresh_finish ends it too and writes the statistics.
 */
typedef int (*mi_search_put)(void *ctx, const uint8_t *key8, const void *val, size_t vlen);
typedef struct mi_search_totals {
	int64_t nchunks;               /* chunks */
	int64_t len[MI_SF__COUNT];     /* field length totals */
} mi_search_totals;
typedef void (*mi_search_post)(void *ctx, const void *k, size_t kl, const void *v, size_t vl);
int mi_search_file(uint32_t file_id, const char *path, const mi_parsed *p,
		   const char *src, size_t len, mi_search_put put, void *ctx,
		   mi_search_post post, void *post_ctx, mi_search_totals *tot);
void mi_search_thread_done(void);
typedef struct mi_search_fresh mi_search_fresh;
typedef int (*mi_search_out)(void *ctx, int db, const void *k, size_t kl,
			     const void *v, size_t vl);
mi_search_fresh *mi_search_fresh_new(const mi_search_totals *tot, mi_search_out out,
				     void *ctx);
int mi_search_fresh_put(mi_search_fresh *f, const void *key, size_t kl,
			const void *val, size_t vl);
int mi_search_fresh_end(mi_search_fresh *f);
int mi_search_fresh_finish(mi_search_fresh *f, mi_txn *t, size_t *nchunks);
void mi_search_fresh_free(mi_search_fresh *f);

/* A byte of a C or C++ identifier (ASCII letters, digits, '_'): the text
 * scans that tell C++ from C (lang.c) and blank C++ macros (lang/cpp.c). */
static inline bool mi_cx_ident_byte(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

#endif
