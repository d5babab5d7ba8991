/*
 * indexer.h - turns a repository into an mcpidx index.
 *
 * mi_build walks the repo, hashes every file, parses the changed ones and
 * writes everything in one LMDB write transaction: a build killed at any
 * point leaves the previous index whole.  mi_parse_source is the per-file
 * step on its own (used by `mcpidx outline FILE`).
 */
#ifndef MI_INDEXER_H
#define MI_INDEXER_H

#include "../format/format.h"

/* Language of a path by file name/extension; MI_LANG_NONE if unsupported. */
int mi_lang_detect(const char *path);
/* The language of a file whose name says lang, told from its text where
 * the name is not enough: a C file (above all a .h header) written in C++
 * (a class, a namespace, a template, an access label, a C++ standard
 * header included, at the start of a line outside comments) is C++.
 * Every other lang comes back as it is. */
int mi_lang_refine(int lang, const char *src, size_t len);
/* mi_parse_source with lang refined by the text first (mi_lang_refine):
 * for a language detected from the file's name; out->lang says which. */
int mi_parse_detected(int lang, const char *src, size_t len, mi_parsed *out);
/* Language by name ("c", "python", ...); MI_LANG_NONE if unknown. */
int mi_lang_from_name(const char *name);
/* Appends one line per language mcpidx reads to out: its name, the file
 * extensions and names it claims, and whether a tree-sitter grammar or a
 * scanner of our own reads it. */
void mi_lang_list(mi_buf *out);

/*
 * Parses src as lang and fills out (which must be mi_parsed_init'ed) with
 * symbols, references and diagnostics.  Syntax errors are not failures: they
 * become diagnostics.  Returns 0, MI_ERR_ARG for an unsupported language or
 * MI_ERR_PARSE if the parser could not run.  Thread-safe.
 */
int mi_parse_source(int lang, const char *src, size_t len, mi_parsed *out);

typedef struct mi_build_opts {
	const char *repo;        /* repository root */
	const char *out_dir;     /* index dir; NULL = REPO/.mcpidx */
	bool force;              /* re-parse everything */
	bool no_ignore;          /* do not honour .gitignore/.mcpidxignore */
	int jobs;                /* threads that walk and parse; 0 = number of cores */
	uint64_t max_file_size;  /* bytes; 0 = 1 MiB */
	bool progress;           /* progress bar on stderr */
	bool details;            /* fill the stats' skips and failures lists */
	/* Called now and then with files done/total (may be NULL). */
	void (*on_progress)(void *ctx, size_t done, size_t total);
	void *progress_ctx;
} mi_build_opts;

/* The longest repo-relative path indexed, in bytes: the index's keys hold
 * a path and a few bytes more, and LMDB refuses keys over 511 bytes (one
 * such path failed every build). */
#define MI_WALK_MAX_PATH 480

/* Skip reasons, counted per build.  Append only. */
enum {
	MI_SKIP_IGNORED,   /* .gitignore / .mcpidxignore */
	MI_SKIP_BINARY,    /* NUL byte in the first block */
	MI_SKIP_TOOBIG,    /* over max_file_size */
	MI_SKIP_SYMLINK,   /* symlink leaving the root */
	MI_SKIP_UNREADABLE,/* open/read failed or vanished */
	MI_SKIP_VENDORED,  /* node_modules, vendor/, generated trees */
	MI_SKIP_UNKNOWN,   /* language not supported (not indexed) */
	MI_SKIP_TOOLONG,   /* path over MI_WALK_MAX_PATH, or folders too deep */
	MI_SKIP__COUNT
};

const char *mi_skip_name(int reason);

/* A path the build left out, or a file it could not parse (details). */
typedef struct mi_build_note {
	char *path;            /* repo-relative; a folder ends with '/'; owned */
	int reason;            /* MI_SKIP_* (skips) or an error code (failures) */
	char *why;             /* failures: what went wrong, owned; NULL for skips */
} mi_build_note;

typedef struct mi_build_stats {
	size_t files;          /* files in the index after the build */
	size_t indexed;        /* parsed in this build (new or changed) */
	size_t unchanged;      /* same hash, not re-parsed */
	size_t removed;        /* gone from the tree, removed from the index */
	size_t skipped[MI_SKIP__COUNT];
	size_t symbols, refs, diags, chunks; /* totals in the index */
	size_t errors;         /* files that failed to parse */
	double seconds;        /* wall time of the whole build */
	double walk_seconds;   /* walk + hashing */
	double parse_seconds;  /* parsing on all cores */
	double write_seconds;  /* the write transaction, commit included */
	int rebuilt_from;      /* the older format version replaced, else 0 */
	bool fresh;            /* written into a new file renamed into place */
	bool moved_aside;      /* a damaged data.mdb was kept as data.mdb.damaged */
	mi_build_note *skips;  /* with o->details: every skipped path, walk order */
	size_t nskips;
	mi_build_note *fails;  /* with o->details: files that failed to parse */
	size_t nfails;
} mi_build_stats;

/* Frees the lists of a stats record (mi_build fills it: release it after). */
void mi_build_stats_release(mi_build_stats *st);

/*
 * Builds or updates the index.  On failure returns the error and writes a
 * message saying what to do into err; the previous index is untouched.  An
 * index of an older format version is rebuilt from scratch (it is a cache of
 * the tree); one of a newer version is refused unless o->force.
 *
 * A first build, --force, and a rebuild of an older format are written into
 * a fresh file beside the index and renamed over data.mdb at the end
 * (mi_store_publish): the index never grows by being rebuilt, a killed or
 * failed build leaves the old one whole, and readers switch at their next
 * call.  Other builds update data.mdb in place in one write transaction; a
 * failed one cuts the file back to its last commit.  A damaged index is
 * refused (MI_ERR_DAMAGED) unless o->force, which moves it aside.
 */
int mi_build(const mi_build_opts *o, mi_build_stats *st, mi_buf *err);

/*
 * The repo-relative paths a build with these options would index (same walk,
 * ignore rules, size cap and binary check), sorted.  *paths and each string
 * are malloc'd: free them with mi_build_list_free.  o->out_dir is left out
 * of the walk like a build leaves its index out.
 */
int mi_build_list(const mi_build_opts *o, char ***paths, size_t *n, mi_buf *err);
void mi_build_list_free(char **paths, size_t n);

/*
 * Whether a build with the default options would index repo-relative path
 * under root (the real path of the repository): not ignored (.gitignore,
 * .git/info/exclude, .mcpidxignore), not in a vendored or generated folder,
 * not minified, not over the 1 MiB size cap.  A missing file passes.  Diff
 * mode's filter (query.h mi_indexable_fn).
 */
bool mi_build_would_index(const char *root, const char *path);

/* ---- blame (blame.c) --------------------------------------------------- */

typedef struct mi_blame_stats {
	size_t files;       /* files blamed in this run */
	size_t unchanged;   /* records kept: the file's content did not change */
	size_t removed;     /* records of files no longer indexed */
	size_t symbols;     /* symbols given a last commit in this run */
} mi_blame_stats;

/*
 * `mcpidx build --blame`: after a build, the last commit of each symbol of
 * the index at index_path, from `git blame` of the repository it was built
 * from, kept beside the index (format.h "blame").  Only files whose content
 * changed since their record was written are blamed again.  Returns 0, or
 * an error with what to do in err (not a git checkout, git missing).
 */
int mi_blame_build(const char *index_path, mi_blame_stats *bs, mi_buf *err);

/* ---- the tool catalog of upstream MCP servers (catalog_write.c) --------- */

/* One tool as an upstream server listed it.  JSON members are JSON text
 * (NULL or "" when absent).  All strings are the caller's. */
typedef struct mi_catalog_tool {
	const char *name;            /* upstream name, without the namespace */
	const char *title;           /* may be NULL */
	const char *description;     /* raw, as sent */
	const char *input_schema;    /* inputSchema */
	const char *output_schema;   /* outputSchema */
	const char *annotations;     /* annotations */
	const char *icons;           /* icons */
	const char *const *aliases;  /* task phrasings given by hand */
	size_t naliases;
	unsigned flags;              /* extra MI_TOOLF_* (MI_TOOLF_SENSITIVE) */
} mi_catalog_tool;

/* One upstream server and what fetching its catalog gave. */
typedef struct mi_catalog_server {
	const char *name;            /* the namespace: no '/', not empty */
	const char *transport;       /* "stdio", "http", "sse" */
	const char *protocol;        /* negotiated protocol version */
	const char *info;            /* serverInfo JSON, may be NULL */
	const char *instructions;    /* may be NULL */
	const char *error;           /* non-NULL: the fetch failed; the tools
				      * stored for it before are kept */
	const mi_catalog_tool *tools;
	size_t ntools;
} mi_catalog_server;

typedef struct mi_catalog_opts {
	const char *out_dir;         /* the index directory (created if missing) */
	bool keep_others;            /* servers not listed keep their stored
				      * tools (re-indexing some); else dropped */
	const char *servers_file;    /* absolute path recorded for serve, or NULL */
	/* Aliases kept beside the catalog (the side store), may be NULL: called
	 * per tool with its pin; appends phrasings, one per line, to out. */
	void (*aliases)(void *ctx, const char *tool, const uint8_t hash[16], mi_buf *out);
	void *aliases_ctx;
} mi_catalog_opts;

typedef struct mi_catalog_stats {
	size_t servers;              /* servers in the catalog after the write */
	size_t tools;                /* tools in the catalog */
	size_t failed;               /* servers given with an error */
	size_t kept;                 /* tools kept from before for failed servers */
	size_t aliases;              /* tools that carry aliases */
	double write_seconds;        /* the write transaction */
} mi_catalog_stats;

/*
 * Replaces the tool catalog of the index at o->out_dir in one write
 * transaction (the code databases are left alone; a reader sees the old
 * catalog or the new one, never a mix): records, ids in name order,
 * postings and statistics.  A server given with an error keeps its stored
 * tools; one not given is dropped unless keep_others.  Returns 0 or an error
 * with a message in err.
 */
int mi_catalog_write(const mi_catalog_opts *o, const mi_catalog_server *srv,
		     size_t n, mi_catalog_stats *st, mi_buf *err);

#endif
