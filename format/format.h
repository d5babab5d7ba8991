/*
 * format.h - the on-disk contract of an mcpidx index, and the small shared
 * utilities (string builder, hashing, error codes) every subsystem uses.
 *
 * An index is one LMDB environment (a directory holding data.mdb/lock.mdb)
 * with the named databases listed in enum mi_db.  Values are msgpack unless a
 * database says otherwise; keys are built for prefix range scans.  Paths are
 * repo-relative with '/' separators.  docs/format.md is the long form.
 *
 * Arrows: format <- indexer; format <- query <- mcp, tools.  Only
 * format/store.c includes lmdb.h.
 */
#ifndef MI_FORMAT_H
#define MI_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdarg.h>
#include <math.h>

#define MI_VERSION "0.1.0"
#define MI_FORMAT_VERSION 24         /* bump on any incompatible layout change */

/* ---- errors ------------------------------------------------------------ */

/*
 * Functions that act return int: 0 on success, a positive errno, an LMDB
 * code (negative, -30799..-30780) or one of ours below.  mi_strerror() names
 * them all.
 */
enum {
	MI_ERR_BASE = -30999,
	MI_ERR_VERSION = MI_ERR_BASE, /* index has another format version */
	MI_ERR_NOINDEX,               /* no index at that path */
	MI_ERR_CORRUPT,               /* a record failed to decode */
	MI_ERR_NOTFOUND,              /* key or symbol not found */
	MI_ERR_ARG,                   /* bad argument from the caller */
	MI_ERR_PATH,                  /* path outside the repo or malformed */
	MI_ERR_TOOBIG,                /* input over a size cap */
	MI_ERR_PARSE,                 /* parser could not run */
	MI_ERR_CANCELLED,             /* the caller cancelled the work */
	MI_ERR_DAMAGED,               /* index file truncated or damaged */
	MI_ERR_STALE,                 /* index replaced by another build meanwhile */
	MI_ERR_SYMLINK,               /* index folder .mcpidx is a symbolic link */
	MI_ERR_NOTREG,                /* not a regular file (a FIFO, socket, device) */
	MI_ERR_LINK,                  /* the side store or one of its files is a link */
	MI_ERR_LAST
};

/* A static message for any code mi_* functions return. Never NULL. */
const char *mi_strerror(int err);

/* ---- growable byte buffer (git's strbuf) --------------------------------- */

/*
 * Invariant: buf is NUL-terminated whenever it is non-NULL, len excludes the
 * NUL.  A zeroed mi_buf is a valid empty buffer.  Allocation failure aborts:
 * mcpidx treats out-of-memory as fatal.
 */
typedef struct mi_buf {
	char *buf;  /* owned; NULL until the first append */
	size_t len; /* bytes used, excluding the trailing NUL */
	size_t cap; /* bytes allocated */
} mi_buf;

void mi_buf_grow(mi_buf *b, size_t extra);
void mi_buf_add(mi_buf *b, const void *data, size_t len);
void mi_buf_adds(mi_buf *b, const char *s);
void mi_buf_addc(mi_buf *b, char c);
void mi_buf_addf(mi_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void mi_buf_vaddf(mi_buf *b, const char *fmt, va_list ap);
/* Appends s as a JSON string literal, quotes included; invalid UTF-8 bytes
 * become U+FFFD so the output is always valid JSON. */
void mi_buf_add_json_str(mi_buf *b, const char *s, size_t len);
void mi_buf_reset(mi_buf *b);             /* len = 0, keeps memory */
void mi_buf_release(mi_buf *b);           /* frees, back to zero state */
char *mi_buf_detach(mi_buf *b);           /* caller owns the returned string */
const char *mi_buf_str(const mi_buf *b);  /* "" when empty; never NULL */

/* ---- small helpers --------------------------------------------------------- */

void *mi_xmalloc(size_t n);
void *mi_xcalloc(size_t n, size_t sz);
void *mi_xrealloc(void *p, size_t n);
char *mi_xstrdup(const char *s);
char *mi_xstrndup(const char *s, size_t n);

/* xxh3-128 of data; out receives 16 bytes (big-endian high64, low64). */
void mi_hash128(const void *data, size_t len, uint8_t out[16]);
/* The same of fd's first len bytes, read with pread (not mapped: a file
 * cut meanwhile is an error, not a SIGBUS).  0, or errno (EIO: shorter). */
int mi_hash128_fd(int fd, uint64_t len, uint8_t out[16]);
/* xxh3-64, for in-memory hash tables. */
uint64_t mi_hash64(const void *data, size_t len);
/* Hex of a 16-byte hash into out (33 bytes with the NUL). */
void mi_hash_hex(const uint8_t h[16], char out[33]);

/* Reads a whole regular file; *out is malloc'd and NUL-terminated.  0,
 * MI_ERR_NOTREG (a FIFO, socket or device: never waited on or read) or
 * errno. */
int mi_read_file(const char *path, char **out, size_t *len);
/* mi_read_file of at most max bytes: MI_ERR_TOOBIG for a larger file (or
 * one that grows past max while read), nothing read beyond max + 1. */
int mi_read_file_max(const char *path, size_t max, char **out, size_t *len);
/* mkdir -p: creates dir and its missing parents.  0 or errno. */
int mi_make_dirs(const char *dir);
/* mi_read_file_max of rel beneath the folder root (dirfd: root opened, or
 * -1): the path, links included, must resolve inside it (EXDEV
 * otherwise).  On Linux the kernel resolves it beneath dirfd, so a file or
 * folder swapped for a link out of the tree between a walk and the read is
 * not read either; elsewhere realpath checks it first.  A link naming a
 * file inside by its absolute path is read either way (root must then be
 * a real path, as realpath gives it). */
int mi_read_file_beneath(const char *root, int dirfd, const char *rel, size_t max, char **out,
			 size_t *len);
/* Folder dir opened as mi_read_file_beneath's dirfd (close it), or -1. */
int mi_dir_open(const char *dir);
/* The largest m <= n at which s can be cut without splitting a UTF-8
 * sequence (s[n] must be readable: a byte of s or its terminating NUL). */
size_t mi_utf8_cut(const char *s, size_t n);
/* n less a UTF-8 sequence that s[0..n) ends inside of (a lead byte
 * without all its continuation bytes); reads s[0..n) only. */
size_t mi_utf8_clip(const char *s, size_t n);
/* The length of s[0..len) cut to at most max bytes at a UTF-8 boundary:
 * how much of an argument an error quotes. */
size_t mi_utf8_prefix(const char *s, size_t len, size_t max);
/* bytes (at most 32) bytes from /dev/urandom as hex into out (2 * bytes +
 * 1 chars): ids and codes a client must not guess. */
void mi_random_hex(char *out, size_t bytes);
/* true when s[0..len) is valid UTF-8. */
bool mi_utf8_valid(const char *s, size_t len);
/* Appends s[0..len) with each byte that is not part of valid UTF-8
 * replaced by U+FFFD, so the result always is. */
void mi_buf_add_utf8(mi_buf *b, const char *s, size_t len);
/* Number of lines: count of '\n' plus one if the last line lacks it. */
uint32_t mi_count_lines(const char *s, size_t len);
/* Normalises a user-supplied repo-relative path into out: strips "./",
 * collapses "//", refuses "..", absolute paths and NUL.  0 or MI_ERR_PATH. */
int mi_path_normalize(const char *in, mi_buf *out);
/* Where path lies in root (both absolute and canonical, as realpath gives
 * them): what follows "root/" when path is below it, "" when it is root,
 * NULL when it is outside ("/" holds every absolute path). */
const char *mi_path_below(const char *root, const char *path);
/* fnmatch-style glob with '**' spanning directories. */
bool mi_glob_match(const char *pat, const char *path);

/* ---- portability (POSIX C; Linux calls each have a fallback) ------------------
 * Built with -DMI_POSIX_ONLY the fallbacks are used on Linux too: the
 * sanitized test pass does so, so they are tested on every `make test`. */

/* Stable merge sort of n items of size sz; cmp gets ctx as its third
 * argument.  Same order on every platform (qsort_r's argument order and
 * stability differ between glibc and the BSDs). */
void mi_sort(void *base, size_t n, size_t sz,
	     int (*cmp)(const void *a, const void *b, void *ctx), void *ctx);
/* pipe() with FD_CLOEXEC on both ends.  0 or -1 with errno. */
int mi_pipe_cloexec(int fd[2]);
/* Runs git with argv (argv[0] "git") in dir, stdin and stderr on
 * /dev/null; its stdout into out, at most max_out bytes kept (the rest is
 * read and dropped so git never blocks).  0 when git exited 0,
 * MI_ERR_NOTFOUND when it failed or is missing, errno when it could not
 * start. */
int mi_run_git(const char *dir, const char *const *argv, size_t max_out, mi_buf *out);
/* Absolute path of the running binary (malloc'd): /proc/self/exe, the
 * platform's own call, or argv0 looked up in PATH.  Never NULL: argv0 itself
 * (or "mcpidx") when nothing better is known. */
char *mi_exe_path(const char *argv0);
/* A struct stat's modification time as a struct timespec: st_mtim (POSIX
 * 2008), st_mtimespec on macOS. */
#if defined(__APPLE__)
#define MI_ST_MTIM(st) ((st)->st_mtimespec)
#else
#define MI_ST_MTIM(st) ((st)->st_mtim)
#endif

/* ---- symbol kinds ------------------------------------------------------------ */

/* Kinds are stored as small integers: append only, never renumber. */
typedef enum mi_kind {
	MI_KIND_NONE = 0,
	MI_KIND_FUNCTION,   /* F> */
	MI_KIND_METHOD,     /* F> */
	MI_KIND_CLASS,      /* C> */
	MI_KIND_STRUCT,     /* S> */
	MI_KIND_ENUM,       /* E> */
	MI_KIND_TRAIT,      /* T>: trait / interface / protocol */
	MI_KIND_POINTCUT,   /* P> */
	MI_KIND_MODULE,     /* M>: module / namespace / impl block */
	MI_KIND_HEADING,    /* '#' x level, Markdown */
	MI_KIND_FIELD,      /* member variable; listed in V* members */
	MI_KIND_VARIABLE,   /* top-level variable */
	MI_KIND_CONSTANT,
	MI_KIND_MACRO,
	MI_KIND_TYPEDEF,    /* type alias */
	MI_KIND_ENUMERATOR, /* enum member */
	MI_KIND_UNION,      /* S> */
	MI_KIND_PROTOTYPE,  /* declaration without body; not a definition */
	MI_KIND__COUNT
} mi_kind;

/* "function", "class", ... */
const char *mi_kind_name(int kind);
/* Parse a kind name; MI_KIND_NONE if unknown. */
int mi_kind_from_name(const char *name);
/* Block mark letter for the folded view ('F','C','S','E','T','P','M') or 0
 * when the kind has no block of its own. */
char mi_kind_mark(int kind);

typedef enum mi_vis {
	MI_VIS_PUBLIC = 0,
	MI_VIS_PRIVATE = 1,
} mi_vis;

/* ---- languages (names only; the parser table lives in indexer/) ----------- */

/* Stable language ids stored in file records: rows of lang_list.h, in order. */
typedef enum mi_lang_id {
	MI_LANG_NONE = 0,
#define MI_LANG_ROW(ID, name, comment, close, flags) MI_LANG_##ID,
#include "lang_list.h"
#undef MI_LANG_ROW
	MI_LANG__COUNT
} mi_lang_id;

const char *mi_lang_name(int lang);     /* "c", "cpp", ..., "text" for NONE */
#define MI_LANGF_PROSE 1  /* prose: headings fold like Markdown's, search_docs reads it */
int mi_lang_flags(int lang);            /* MI_LANGF_* of a language, 0 if unknown */
/* Line-comment syntax of a language: returns its opening ("#", "//"); *close
 * is "" or what ends the comment (" -->").  "#" for NONE. */
const char *mi_lang_comment(int lang, const char **close);

/* ---- records ------------------------------------------------------------------ */

/*
 * One symbol.  Lines are 1-based inclusive, bytes are 0-based half-open
 * offsets into the file's source.  In a decoded record the strings point
 * into a buffer owned by whoever decoded it (see mi_symbol_decode).
 */
typedef struct mi_symbol {
	const char *name;       /* simple name: "login" */
	const char *parent;     /* qualified parent: "User" or "a.B"; "" at top */
	const char *sig;        /* header up to the body, whitespace folded */
	const char *doc;        /* doc comment text, markers stripped; "" if none */
	int32_t parent_idx;     /* index of the parent symbol in the file, -1 */
	uint8_t kind;           /* mi_kind */
	uint8_t vis;            /* mi_vis */
	uint8_t level;          /* heading level (Markdown), nesting depth else */
	uint8_t flags;          /* MI_SYMF_* */
	uint32_t start_line, end_line;
	uint32_t start_byte, end_byte;
	uint32_t body_byte;     /* start of the body ('{' or ':'...), 0 = none */
	uint32_t body_line;     /* line where the body starts, 0 = none */
} mi_symbol;

#define MI_SYMF_STATIC 0x01 /* static / class-level member */
#define MI_SYMF_ASYNC  0x02
#define MI_SYMF_TEST   0x04 /* a test function */

/* A call (or other) reference from inside a file. */
typedef struct mi_ref {
	const char *callee;  /* called name, simple */
	uint32_t line;       /* 1-based */
	int32_t caller_idx;  /* index of the enclosing symbol, -1 at top level */
	uint8_t kind;        /* MI_REF_* */
	uint32_t line_byte;  /* where its line starts in the source */
} mi_ref;

#define MI_REF_CALL 0
#define MI_REF_TYPE 1    /* type use, inheritance, implementation */
#define MI_REF_IMPORT 2  /* import / include of a module or file */
#define MI_REF_IMPL 3    /* implements / extends / conforms to callee */
#define MI_REF_VALUE 4   /* callee named as a value: callback, initializer, method value */

/* A diagnostic attached to a line. */
typedef struct mi_diag {
	uint32_t line;       /* 1-based; 0 = the whole file */
	char severity;       /* 'E', 'W' or 'H' */
	const char *msg;
} mi_diag;

/*
 * A parsed file: what the indexer extracts and what is stored.  Owned by
 * an arena (mi_parsed_release frees everything).
 */
typedef struct mi_parsed {
	int lang;                 /* mi_lang_id */
	mi_symbol *syms; size_t nsyms, capsyms;
	mi_ref *refs; size_t nrefs, caprefs;
	mi_diag *diags; size_t ndiags, capdiags;
	struct mi_arena *arena;   /* owns the strings above */
} mi_parsed;

void mi_parsed_init(mi_parsed *p);
void mi_parsed_release(mi_parsed *p);
/* Copy s into the parsed file's arena; returns a stable pointer. */
const char *mi_parsed_strndup(mi_parsed *p, const char *s, size_t n);
mi_symbol *mi_parsed_add_sym(mi_parsed *p);      /* zeroed, parent_idx -1 */
mi_ref *mi_parsed_add_ref(mi_parsed *p);         /* zeroed, caller_idx -1 */
mi_diag *mi_parsed_add_diag(mi_parsed *p);       /* zeroed */

/* Per-file record in MI_DB_FILES. */
typedef struct mi_file_rec {
	uint32_t file_id;         /* stable while the file exists */
	uint8_t lang;
	uint8_t hash[16];         /* xxh3-128 of the content */
	uint64_t size;
	uint32_t lines;
	int64_t mtime;            /* seconds; hint only, hash decides */
	uint32_t nsyms, nrefs;
	uint32_t ndiags;          /* diagnostics are in MI_DB_FILES too: */
	mi_diag *diags;           /* decoded array (malloc'd by decoder) */
} mi_file_rec;

/* ---- msgpack encode/decode ---------------------------------------------------- */

/* Appends the msgpack encoding of a record to out. */
void mi_symbol_encode(const mi_symbol *s, mi_buf *out);
void mi_ref_encode(const mi_ref *r, mi_buf *out);
void mi_file_encode(const mi_file_rec *f, mi_buf *out);

/*
 * Decoders: strings in *s are copied into the arena of `owner` and live as
 * long as it does.  Return 0 or MI_ERR_CORRUPT (never crash on bad bytes).
 */
int mi_symbol_decode(const void *data, size_t len, mi_symbol *s, mi_parsed *owner);
/* owner NULL: r->callee is left NULL (no copy), for scans that key on it. */
int mi_ref_decode(const void *data, size_t len, mi_ref *r, mi_parsed *owner);
/* Reads one msgpack integer / string (pointing into data) from data. */
int mi_mp_get_int(const void *data, size_t len, int64_t *v);
int mi_mp_get_str(const void *data, size_t len, const char **s, size_t *n);
/* f->diags is malloc'd; free with mi_file_rec_release. */
int mi_file_decode(const void *data, size_t len, mi_file_rec *f);
/* The record without its diagnostics: f->diags stays NULL, f->ndiags counts
 * them (for scans of every file, which need no messages). */
int mi_file_decode_head(const void *data, size_t len, mi_file_rec *f);
void mi_file_rec_release(mi_file_rec *f);

/* ---- storage (LMDB) ------------------------------------------------------------- */

/* Named databases.  Keys: see docs/format.md.  Append only. */
typedef enum mi_db {
	MI_DB_META,    /* "version", "view", "tool", "built", "head", "stats", "root" -> msgpack */
	MI_DB_FILES,   /* path -> mi_file_rec */
	MI_DB_SRC,     /* path -> raw file bytes (not msgpack: zero-copy reads) */
	MI_DB_SYMS,    /* path \0 be32(last idx) -> a block of the file's symbols (mi_syms_*) */
	MI_DB_NAMES,   /* blocks of (name, file) entries, key name \0 be32(file_id) of the last (mi_names_*) */
	MI_DB_REFS,    /* blocks of (callee, file) entries, like names: references (mi_refs_*) */
	MI_DB_FREFS,   /* path -> the file's mi_ref records (mi_frefs_*) */
	MI_DB_FILEIDS, /* be32(file_id) -> path */
	MI_DB_CHUNKS,  /* search: be32(file_id) be32(n) -> chunk record */
	MI_DB_POST,    /* search: term \0 be32(last file_id) -> postings of files (mi_post_*) */
	MI_DB_TERMS,   /* search: term -> term stats (df, max score bound) */
	MI_DB_OUTLINES,/* path -> mi_outline_rec (the default read_file view) */
	MI_DB_SERVERS, /* catalog: server name -> mi_server_rec (format/catalog.c) */
	MI_DB_TOOLS,   /* catalog: "server/tool" -> mi_tool_rec */
	MI_DB_TOOLIDS, /* catalog: be32(tool id) -> "server/tool" */
	MI_DB_TPOST,   /* catalog: term -> tool postings (all tools, id order) */
	MI_DB__COUNT
} mi_db;

typedef struct mi_store mi_store;
typedef struct mi_txn mi_txn;
typedef struct mi_cursor mi_cursor;

#define MI_STORE_RDONLY 0x1  /* open read-only; never creates */
#define MI_STORE_CREATE 0x2  /* create the directory/environment if missing */
#define MI_STORE_NOLOCK 0x4  /* no lock file (packed, read-only media) */
#define MI_STORE_FILE   0x8  /* path is a single data file, not a directory */
#define MI_STORE_FRESH  0x10 /* a new, empty index built beside the one at path
			      * and put in its place by mi_store_publish */

/*
 * Opens the index at path.  A read-only open of a missing index returns
 * MI_ERR_NOINDEX; of an index with another MI_FORMAT_VERSION, MI_ERR_VERSION
 * (a new index of version 0, i.e. empty, is fine for writers).  The data
 * file is checked before it is mapped (mi_store_check): a file shorter than
 * the pages its LMDB meta says are in use, or a packed file whose trailer
 * does not match its length, gives MI_ERR_DAMAGED.  A directory index whose
 * last component is ".mcpidx" and which is a symbolic link gives
 * MI_ERR_SYMLINK (a link committed to a repository may point anywhere: no
 * lock file is written through it).  The store is safe to share between
 * threads; each thread uses its own transactions.
 *
 * Every transaction begins by checking the data file again (one stat): when
 * it was replaced (a new inode: a rebuild renamed a new file into place, an
 * artifact was copied again) a read transaction reopens it, a write
 * transaction answers MI_ERR_STALE; when it shrank under the map, or a read
 * of the map faulted (SIGBUS: the process survives, see docs/security.md),
 * MI_ERR_DAMAGED.
 *
 * MI_STORE_FRESH opens an empty environment in a temporary folder inside
 * path (created if needed): nothing at path changes until mi_store_publish
 * renames the new data file over path/data.mdb.  Closing an unpublished
 * fresh store removes it; one left by a killed process is removed by the
 * next fresh open.
 */
int mi_store_open(const char *path, int flags, mi_store **out);
/*
 * Opens (or with MI_STORE_CREATE creates) an LMDB environment that is not an
 * index, with the named databases names[0..n) (n <= MI_STORE_MAXDBS): the db
 * argument of mi_get, mi_put, mi_cursor_open... is then an index into names.
 * No format version is checked; the caller keeps its own (format/side.c).
 * A read-only open of a missing environment returns MI_ERR_NOINDEX.
 */
#define MI_STORE_MAXDBS 24
int mi_store_open_dbs(const char *path, int flags, const char *const *names,
		      int n, mi_store **out);
/* Closes the store; an unpublished MI_STORE_FRESH store is deleted. */
void mi_store_close(mi_store *st);
/*
 * Process-wide: with on, every index opened read-only from now on (and each
 * one reopened after a rebuild replaced its file) has its map locked in
 * memory, so a page once read is never evicted or paged out while the
 * store has it open (mlock2 MLOCK_ONFAULT on Linux: pages are locked as they
 * are first read; POSIX mlock elsewhere reads them all at open).  A lock
 * needs RLIMIT_MEMLOCK (ulimit -l) of the data file's size, or
 * CAP_IPC_LOCK.  Opening never fails for it: mi_store_memlock_error gives
 * the errno of the last lock that failed since mi_store_memlock (0: none;
 * ENOMEM or EPERM: the limit), and that index is read unlocked.
 */
void mi_store_memlock(bool on);
int mi_store_memlock_error(void);
/*
 * Makes a MI_STORE_FRESH store the index at its path: syncs it, renames
 * its data file over path/data.mdb and removes path/lock.mdb (readers that have the old file
 * open keep answering from it and reopen on their next transaction).  A
 * data.mdb that fails mi_store_check is first renamed to data.mdb.damaged.
 * Nothing else in path is touched.  The store stays open on the published
 * file.  *moved_aside (may be NULL) is set when a damaged file was kept.
 */
int mi_store_publish(mi_store *st, bool *moved_aside);
/*
 * Checks the index at path (a directory holding data.mdb, or a single data
 * file, packed or not) without mapping it: both LMDB meta pages valid, the
 * file at least as long as the last page in use, and for a packed file the
 * trailer's magic, CRC and data length.  O(1).  0, MI_ERR_NOINDEX (no data
 * file) or MI_ERR_DAMAGED.
 */
int mi_store_check(const char *path, bool is_file);
/* Format version recorded in the index, 0 if none yet. */
int mi_store_version(mi_store *st);
/* Bytes used by the data file. */
uint64_t mi_store_size(mi_store *st);
/* Doubles the map size; call with no transaction open after MDB_MAP_FULL
 * (mi_store_is_full), then redo the write transaction. */
int mi_store_grow(mi_store *st);
/* Makes the map at least `bytes` larger than the pages in use (no
 * transaction open), so a write of less cannot fill it. */
int mi_store_reserve(mi_store *st, uint64_t bytes);
/* The temporary folder of an unpublished MI_STORE_FRESH store (scratch
 * files put there go away with it), else NULL. */
const char *mi_store_fresh_dir(mi_store *st);
/* true when err means the map is full and mi_store_grow would help. */
bool mi_store_is_full(int err);
/*
 * After a failed write transaction (no transaction open): cuts the data
 * file back to the pages its last commit uses, so a write that ran out of
 * disk leaves no grown file behind.  Returns 0 or an errno.
 */
int mi_store_trim(mi_store *st);
/* true when err (after a failed write) means the disk is full: ENOSPC, or
 * an I/O error on a file system with less than 16 MiB left. */
bool mi_store_is_nospace(mi_store *st, int err);
/* Copies the environment compacted (mdb_env_copy2): for a directory index
 * dst is a directory that receives data.mdb; for a single-file index (opened
 * with MI_STORE_FILE) dst is the file to write. */
int mi_store_copy(mi_store *st, const char *dst_file);

/* ---- packed files: the trailer (format/pack.c) ------------------------------------- */

/*
 * A packed index (mcpidx pack) is an LMDB data file followed by a
 * MI_PACK_TRAILER-byte trailer; docs/format.md has the layout.  LMDB reads
 * only up to its last page, so the file opens as an index as it is.
 */
#define MI_PACK_TRAILER 256
#define MI_PACK_VERSION 1

typedef struct mi_pack_trailer {
	uint32_t pack_version;  /* MI_PACK_VERSION of the writer */
	uint32_t format;        /* index format version */
	uint64_t data_len;      /* bytes before the trailer */
	uint64_t nfiles;        /* files in the manifest */
	uint8_t digest[16];     /* manifest digest */
	uint8_t checksum[16];   /* xxh3-128 of the data */
	char tool[33];          /* NUL-terminated */
	char head[65];          /* NUL-terminated, "" when unknown */
	int64_t built;          /* seconds, 0 when unknown */
} mi_pack_trailer;

void mi_pack_trailer_encode(const mi_pack_trailer *t, uint8_t out[MI_PACK_TRAILER]);
/* 0, or MI_ERR_DAMAGED with what is wrong in err (may be NULL): no magic
 * (truncated, appended to, not a pack) or a CRC mismatch. */
int mi_pack_trailer_decode(const uint8_t in[MI_PACK_TRAILER], mi_pack_trailer *t, mi_buf *err);
/* true when the last bytes of a file of size bytes start with the magic. */
bool mi_pack_has_magic(const uint8_t in[MI_PACK_TRAILER]);

/*
 * Transactions.  A read transaction is a consistent snapshot: values returned
 * by mi_get/cursors point into the map and are valid until it ends.  Only one
 * write transaction exists at a time (across processes).  mi_txn_commit and
 * mi_txn_abort free the handle.
 */
int mi_txn_begin(mi_store *st, bool write, mi_txn **out);
int mi_txn_commit(mi_txn *t);
void mi_txn_abort(mi_txn *t);
/* true when read transactions a and b see the same snapshot of the same
 * index file (what one reads, the other reads too). */
bool mi_txn_same(mi_txn *a, mi_txn *b);
/* The store transaction t runs on. */
mi_store *mi_txn_store(mi_txn *t);

int mi_get(mi_txn *t, int db, const void *key, size_t klen,
	   const void **val, size_t *vlen);                 /* MI_ERR_NOTFOUND */
int mi_put(mi_txn *t, int db, const void *key, size_t klen,
	   const void *val, size_t vlen);
int mi_del(mi_txn *t, int db, const void *key, size_t klen); /* missing is ok */
/*
 * Packed databases (src, syms, outlines, frefs, chunks of an index): each value is
 * stored behind a tag byte, MI_VAL_RAW (the bytes follow) or MI_VAL_ZSTD (a
 * zstd frame of them, made with the index's dictionary for that database
 * when it has one: meta "zdict.NAME", which frames do not name; stored
 * without zstd's magic number; sources carry the frame checksum).
 * mi_put packs and mi_get and cursors unpack, so callers see plain bytes;
 * an unpacked value lives until the transaction ends, like one read from
 * the map.  A value that does not unpack is MI_ERR_DAMAGED.
 */
#define MI_VAL_RAW 0
#define MI_VAL_ZSTD 1
/*
 * A source over MI_SRC_FRAME bytes is stored in frames of that many bytes,
 * each packed on its own (MI_VAL_FRAMES; docs/format.md), so a reader that
 * needs a few lines of a large file unpacks only the frames holding them:
 * mi_src_span gives the bytes of path's source from off on, at least want
 * of them (fewer at its end; more when the frames hold more), in *bytes and
 * *n, and its whole length in *total; off past the end gives *n = 0.  The
 * bytes live until the transaction ends.  mi_get of MI_DB_SRC still gives
 * the whole file.  MI_ERR_NOTFOUND, MI_ERR_DAMAGED.
 */
#define MI_VAL_FRAMES 2
#define MI_SRC_FRAME 2560
int mi_src_span(mi_txn *t, const char *path, size_t pl, size_t off, size_t want,
		const char **bytes, size_t *n, size_t *total);
/* Unpacks the frames of path's source (of len bytes) that hold [from, to)
 * into the same places of buf (len bytes), and says which bytes of buf now
 * hold the source: [*got_from, *got_to) (all of it when the source is one
 * piece).  MI_ERR_DAMAGED also when the source is not len bytes long. */
int mi_src_fill(mi_txn *t, const char *path, size_t pl, size_t from, size_t to,
		char *buf, size_t len, size_t *got_from, size_t *got_to);
bool mi_db_packed(int db);
/* Appends v as db stores it in st (packed, or as is) to out; thread-safe,
 * for values prepared on worker threads and put with mi_put_stored. */
int mi_value_pack(mi_store *st, int db, const void *v, size_t vl, mi_buf *out);
/* mi_put (append: mi_put_append) of a value already in stored form. */
int mi_put_stored(mi_txn *t, int db, const void *key, size_t klen,
		  const void *val, size_t vlen, bool append);
/* Trains a zstd dictionary of at most max bytes from n samples laid end to
 * end in samples; MI_ERR_ARG when they are too few to train on. */
int mi_dict_train(const void *samples, const size_t *sizes, unsigned n, size_t max,
		  mi_buf *out);
/*
 * A file's references: one MI_DB_FREFS value per path, its mi_ref records in
 * order, each a varint length then the record.  mi_frefs_add appends one to
 * v; mi_frefs_open reads a path's value (none: an empty list) and
 * mi_frefs_next hands out each record's bytes in turn (seq counts from 0),
 * valid until the transaction ends: 0, MI_ERR_NOTFOUND after the last,
 * MI_ERR_CORRUPT on a bad length.
 */
typedef struct mi_frefs {
	const uint8_t *p, *end; /* what is left of the value */
	uint32_t seq;           /* of the next record */
} mi_frefs;
void mi_frefs_add(mi_buf *v, const mi_ref *r);
int mi_frefs_open(mi_txn *t, const char *path, size_t pl, mi_frefs *it);
int mi_frefs_next(mi_frefs *it, const void **rec, size_t *len, uint32_t *seq);
/*
 * Definitions and references by name: one MI_DB_NAMES / MI_DB_REFS entry
 * per (name, file), key `name \0 be32(file_id)`, in file id order under a
 * name (path order for a fresh build).  A names value is the file's symbol
 * indexes of that name, ascending (varint deltas), each followed by a byte
 * kind | testlike << 6 | vis << 7, testlike meaning the file is test or
 * example code (mi_path_testlike), so a lookup ranks definitions before it
 * reads any symbol or path: it->kind, it->vis, it->testlike; a refs value the file's
 * references to the name in (line, file) order, each varint line delta,
 * varint caller_idx + 1, varint line_byte (zigzag delta), byte kind.
 *
 * mi_byname_put_names / _refs hand fn the entries of one file (ids fid),
 * in key order, for a put or a delete; names over 200 bytes are left out.
 * mi_names_open / mi_refs_open start a scan of a name's entries, of one
 * file only when path is not NULL (an error: nothing to close, else
 * mi_byname_close when done); mi_names_next / mi_refs_next give each
 * definition / reference with its file's path (pointing into the map,
 * valid until the transaction ends; entries of files without a path are
 * skipped, it->damaged set): 0, or MI_ERR_NOTFOUND after the last.
 * r->callee is the name.  A caller that only counts sets it->nopath before
 * a call: that call gives path NULL and looks no path up (so it does not
 * check that the file has one).
 */
typedef int (*mi_kv_fn)(void *ctx, const void *k, size_t kl, const void *v, size_t vl);
int mi_byname_put_names(const mi_parsed *p, uint32_t fid, const char *path, mi_kv_fn fn,
			void *ctx);
/* Whether a path is test or example code for ranking definitions: it says
 * "test" or "example" anywhere (tests/, selftests, foo_test.go, examples/). */
bool mi_path_testlike(const char *path, size_t pl);
int mi_byname_put_refs(const mi_parsed *p, uint32_t fid, mi_kv_fn fn, void *ctx);
typedef struct mi_byname {
	mi_txn *t;
	mi_cursor *cur;            /* NULL: the one value in p..end */
	mi_cursor *fcur;           /* over MI_DB_FILEIDS, for the paths */
	char *name;                /* the name scanned (malloc'd) */
	size_t nl;
	const uint8_t *p, *end;    /* what is left of the current value */
	uint32_t fid;              /* of the current value */
	const char *path;          /* its path */
	size_t pl;
	uint32_t idx, line, lbyte; /* last decoded */
	uint8_t kind, vis;         /* of the definition last decoded (names) */
	bool testlike;             /* its file is test or example code (names) */
	bool refs, first, done, started;
	bool damaged;              /* a value or file id did not decode (skipped) */
	bool nopath;               /* set by the caller: give no path (counting) */
	/* names: the block being read, its record last decoded, and whether
	 * the scan is of one file's definitions or of every record of one
	 * block (mi_byname_entry: it->name is then each record's name) */
	const uint8_t *bp, *be;
	struct nb_rec *rec;
	uint32_t onefid;
	bool one, all, bfirst;
} mi_byname;
int mi_names_open(mi_txn *t, const char *name, const char *path, size_t pl, mi_byname *it);
int mi_refs_open(mi_txn *t, const char *callee, const char *path, size_t pl, mi_byname *it);
/*
 * MI_DB_NAMES and MI_DB_REFS hold blocks of (name, file) entries in key
 * order, front coded, keyed by their last entry's `name \0 be32(file_id)`
 * (a refs count entry is the entry of file MI_REFS_COUNT_FID); a block
 * ends once it is MI_NAMES_BLOCK bytes long (docs/format.md).  A fresh
 * build hands every entry in key order to mi_names_writer_add (then
 * mi_names_writer_flush, mi_names_writer_release); an update puts and
 * takes out a file's entries through a mi_byname_batch (below), one entry
 * in its block at a time.  mi_byname_entry over a value scans each of its
 * entries, it->name and it->nl following them.
 */
#define MI_NAMES_BLOCK 1024
typedef struct mi_names_writer {
	mi_buf blk, key;
	struct nb_rec *last;
} mi_names_writer;
int mi_names_writer_add(mi_names_writer *w, const void *k, size_t kl, const void *v, size_t vl,
			mi_kv_fn fn, void *ctx);
int mi_names_writer_flush(mi_names_writer *w, mi_kv_fn fn, void *ctx);
void mi_names_writer_release(mi_names_writer *w);
/*
 * An update's entries of one file, taken out and put in again: added in any
 * order (mi_byname_batch_add, a mi_kv_fn over a mi_byname_op), applied in
 * key order by mi_byname_batch_apply, which leaves alone an entry taken out
 * and put back with the same value, writes one that changed once, and moves
 * each name's reference count once by what its entries gave and took.  The
 * batch is empty again after apply; mi_byname_batch_release frees it.
 */
typedef struct mi_byname_batch {
	struct bn_op *ops;
	size_t n, cap;
	mi_buf data;            /* keys and values of ops */
} mi_byname_batch;
typedef struct mi_byname_op {
	mi_byname_batch *b;
	int db;                 /* MI_DB_NAMES or MI_DB_REFS */
	int sign;               /* +1 put, -1 take out */
} mi_byname_op;
int mi_byname_batch_add(void *op, const void *k, size_t kl, const void *v, size_t vl);
int mi_byname_batch_apply(mi_txn *t, mi_byname_batch *b);
void mi_byname_batch_release(mi_byname_batch *b);
/* A scan of one entry a cursor over MI_DB_NAMES / MI_DB_REFS is at. */
int mi_byname_entry(mi_txn *t, bool refs, const void *k, size_t kl, const void *v, size_t vl,
		    mi_byname *it);
int mi_names_next(mi_byname *it, const char **path, size_t *pl, uint32_t *idx);
int mi_refs_next(mi_byname *it, const char **path, size_t *pl, mi_ref *r);
void mi_byname_close(mi_byname *it);
/*
 * A name's counts: for a name defined or referenced in at least
 * MI_REFS_COUNT_MIN files, MI_DB_NAMES or MI_DB_REFS also holds
 * `name \0 ff ff ff ff` (after its files' entries) -> how many of its
 * entries (definitions, references) have each kind byte and, in names,
 * which files hold a kind byte that at most MI_COUNT_FILES files hold
 * (docs/format.md), so goto_definition ranks a common name's definitions
 * and reads its best few from their files, and find_references totals a
 * common name, without reading all of its entries.  Fresh builds write
 * them; updates keep them exact (mi_byname_batch_apply moves a name's
 * count by its entries taken out and put in) and never add one.
 * mi_byname_count fills counts[kind byte]; mi_names_count also the files
 * listed (listed[k]: every file holding kind byte k is in files[k],
 * ascending; a kind no entry has is listed with none); mi_refs_count
 * gives a callee's calls and references of every kind.  All: 0,
 * MI_ERR_NOTFOUND (none kept: count the entries) or MI_ERR_DAMAGED.
 * mi_byname_counter_add takes a fresh build's entries of db in key order
 * and hands fn each count entry after its name's last one;
 * mi_byname_counter_finish ends it (and releases it).  mi_names_next and
 * mi_refs_next never give a count entry.  mi_names_open_file scans one
 * file's definitions of name, by file id.
 */
#define MI_REFS_COUNT_FID 0xffffffffu
#define MI_REFS_COUNT_MIN 32
#define MI_COUNT_FILES 64
typedef struct mi_name_count {
	uint64_t n[256];        /* entries by kind byte */
	bool listed[256];
	uint8_t nfiles[256];
	uint32_t files[256][MI_COUNT_FILES];
} mi_name_count;
int mi_byname_count(mi_txn *t, int db, const char *name, uint64_t counts[256]);
int mi_names_count(mi_txn *t, const char *name, mi_name_count *c);
int mi_refs_count(mi_txn *t, const char *callee, uint64_t *calls, uint64_t *all);
int mi_names_open_file(mi_txn *t, const char *name, uint32_t fid, mi_byname *it);
typedef struct mi_byname_counter {
	int db;                 /* MI_DB_NAMES or MI_DB_REFS */
	mi_buf name;            /* `name \0` of the entries being counted */
	uint64_t files;
	int64_t h[256];         /* by kind byte */
	mi_name_count *c;       /* the files of each kind (names), the value's counts */
	bool bad;               /* a value did not decode */
} mi_byname_counter;
int mi_byname_counter_add(mi_byname_counter *c, const void *k, size_t kl, const void *v,
			  size_t vl, mi_kv_fn fn, void *ctx);
int mi_byname_counter_finish(mi_byname_counter *c, mi_kv_fn fn, void *ctx);
/* Does path define name (a prototype is no definition)? */
bool mi_names_in(mi_txn *t, const char *name, const char *path, size_t pl);
/* The file id of an indexed path (MI_ERR_NOTFOUND: none). */
int mi_file_id(mi_txn *t, const char *path, size_t pl, uint32_t *fid);
/*
 * A file's symbols: MI_DB_SYMS values keyed `path \0 be32(idx of the last
 * symbol in the block)`, each a block of consecutive symbols: varint
 * count, then each mi_symbol record as varint length + bytes.  A block
 * ends after MI_SYMS_BLOCK symbols or MI_SYMS_BLOCK_BYTES bytes of records.
 * mi_syms_put hands fn a file's blocks in key order (for a put).
 * mi_syms_open starts at symbol `from` of path (an error leaves nothing to
 * close; mi_syms_close on a closed one does nothing); mi_syms_next gives each
 * record in turn with its index (valid until the transaction ends): 0,
 * MI_ERR_NOTFOUND after the last, MI_ERR_CORRUPT on a block that does not
 * decode.  mi_syms_get is one record (MI_ERR_NOTFOUND: no such symbol).
 */
int mi_syms_put(const mi_parsed *p, const char *path, size_t pl, mi_kv_fn fn, void *ctx);
typedef struct mi_syms {
	mi_cursor *cur;
	size_t plen;            /* length of the keys' prefix (path \0, be32(fid)) */
	bool chunks;            /* over MI_DB_CHUNKS */
	const uint8_t *p, *end; /* what is left of the current block */
	uint32_t idx;           /* index of the next record */
	uint32_t left;          /* records left in the block */
} mi_syms;
int mi_syms_open(mi_txn *t, const char *path, size_t pl, uint32_t from, mi_syms *it);
int mi_syms_next(mi_syms *it, const void **rec, size_t *len, uint32_t *idx);
void mi_syms_close(mi_syms *it);
int mi_syms_get(mi_txn *t, const char *path, size_t pl, uint32_t idx, const void **rec,
		size_t *len);
/*
 * A file's search chunks (MI_DB_CHUNKS) are blocks of the same shape,
 * keyed `be32(file_id) be32(n of the block's last chunk)`.  mi_chunks_open
 * starts at chunk
 * `from` (then mi_syms_next / mi_syms_close); mi_chunk_get is one chunk.
 */
int mi_chunks_open(mi_txn *t, uint32_t fid, uint32_t from, mi_syms *it);
int mi_chunk_get(mi_txn *t, uint32_t fid, uint32_t n, const void **rec, size_t *len);
/* Gives packed database db of a store being written its dictionary (once,
 * before any of its values is packed): kept in meta "zdict.NAME". */
int mi_store_set_dict(mi_store *st, int db, const void *dict, size_t len);
/* mi_put of a key that sorts after every key of db in t (LMDB's
 * MDB_APPEND: no search, pages filled whole).  MI_ERR_ARG when it does not. */
int mi_put_append(mi_txn *t, int db, const void *key, size_t klen,
		  const void *val, size_t vlen);
/* Deletes every key that starts with prefix. */
int mi_del_prefix(mi_txn *t, int db, const void *prefix, size_t plen);
/* Number of entries in db. */
uint64_t mi_db_count(mi_txn *t, int db);
/* Drops every entry of db (used by --force). */
int mi_db_clear(mi_txn *t, int db);
/* Copies the entries of db whose key starts with prefix (plen 0: all) from
 * one store's transaction to another's (a write transaction). */
int mi_db_copy(mi_txn *from, mi_txn *to, int db, const void *prefix, size_t plen);
/* true for the databases of the tool catalog, which a code build (even with
 * --force) leaves alone: only the catalog writer replaces them. */
bool mi_db_is_catalog(int db);

/*
 * Cursors iterate in key order.  mi_cursor_seek positions at the first key
 * >= key (klen 0: the first key); mi_cursor_next moves on.  Both return 0
 * with the entry, or MI_ERR_NOTFOUND past the end.
 */
int mi_cursor_open(mi_txn *t, int db, mi_cursor **out);
int mi_cursor_seek(mi_cursor *c, const void *key, size_t klen,
		   const void **k, size_t *kl, const void **v, size_t *vl);
int mi_cursor_next(mi_cursor *c, const void **k, size_t *kl,
		   const void **v, size_t *vl);
/* Moves back one key (from past the end: to the last key). */
int mi_cursor_prev(mi_cursor *c, const void **k, size_t *kl,
		   const void **v, size_t *vl);
/* Bounds the cursor to the keys that start with prefix, without moving it. */
void mi_cursor_bound(mi_cursor *c, const void *prefix, size_t plen);
/* Like mi_cursor_seek to prefix, and bounds the cursor to the keys that
 * start with prefix: this seek and every mi_cursor_next after it answer
 * MI_ERR_NOTFOUND past the last such key.  The prefix is copied. */
int mi_cursor_seek_prefix(mi_cursor *c, const void *prefix, size_t plen,
			  const void **k, size_t *kl, const void **v, size_t *vl);
void mi_cursor_close(mi_cursor *c);

/* Meta helpers: values are msgpack; these read/write ints and strings. */
int mi_meta_put_int(mi_txn *t, const char *key, int64_t v);
int mi_meta_put_str(mi_txn *t, const char *key, const char *v);
int mi_meta_get_int(mi_txn *t, const char *key, int64_t *v);
/* *v is malloc'd. */
int mi_meta_get_str(mi_txn *t, const char *key, char **v);

/* ---- tokenizer (shared by indexer and query; owned by search) -------------- */

/*
 * How text becomes search terms; the indexer and the query side must agree,
 * so this is part of the format (docs/format-search.md).  A word is a run of
 * letters, digits, '_' and non-ASCII bytes.  Each word is split at '_', at
 * lower->Upper and UPPER->Upper+lower case changes and at letter/digit
 * boundaries; every part is lowercased and English-stemmed (Snowball), and a
 * word of two or more parts also yields its whole form, lowercased with the
 * '_' removed ("parseConfig" -> "parseconfig", "pars", "config").  Stop words
 * and one-letter parts are dropped, as are terms longer than MI_TOK_MAX; the
 * digits of a longer word are a part ("GetInt8" -> "8").  With MI_TOK_CODE,
 * string literals longer than MI_TOK_LITERAL_CAP bytes yield no terms, and
 * neither do a lone digit or a keyword used as a whole word (`int`).
 */
#define MI_TOK_MAX 48          /* longest term kept, bytes */
#define MI_TOK_LITERAL_CAP 64  /* longer string literals give no terms */
#define MI_TOK_CODE 0x1        /* input is source code (string literals) */

typedef struct mi_tok mi_tok;
/* Receives one term; term is not NUL-terminated and valid only for the call. */
typedef void (*mi_tok_fn)(void *ctx, const char *term, size_t len);

/* A tokenizer with its own stemmer: not thread-safe, use one per thread.
 * Returns 0 or MI_ERR_ARG when the English stemmer is unavailable. */
int mi_tok_new(mi_tok **out);
void mi_tok_free(mi_tok *tk);
/* Calls fn for each term of s[0..len) in order; returns the count. */
size_t mi_tok_run(mi_tok *tk, const char *s, size_t len, int flags,
		  mi_tok_fn fn, void *ctx);
/* true when the lowercased word w[0..len) is on the stop list. */
bool mi_tok_is_stop(const char *w, size_t len);

/* ---- search records (MI_DB_CHUNKS, MI_DB_POST, MI_DB_TERMS) ---------------- */

/*
 * A MI_DB_POST value: the postings of one term in a run of files, keyed
 * `term \0 be32(file id of the last)`.  First MI_POST_HDR bytes: the
 * block's largest tfn in code and in docs mode, then the same over its
 * postings that do not name the term (no name field), then two code-mode
 * bounds for a query of this one word: over the postings of chunks named
 * by the word alone (a name one term long holding it), and over the others
 * with the name field weighed by the share of the name the word is
 * (mi_bm25f_tfn_share), each mi_post_q-quantized upward (block-max bounds
 * for top-k pruning).  Then per file, in id
 * order: varint (file id delta << MI_POST_LBITS | length below
 * MI_POST_LENS, else MI_POST_LENS then varint length - MI_POST_LENS),
 * the delta being the first file's id as it is, then its id minus the
 * previous one; then that many bytes: the file's entries
 * (docs/format-search.md).  Keys `\0 be32(file id / MI_LENS_GROUP)` (the
 * empty term, before every term) hold the files' chunk lengths
 * (mi_lens_*): what each posting of a chunk is scored with besides its tf.
 * mi_post_add appends a file's entries to a block (prev: the block's
 * last file id, 0 when empty); mi_post_next reads the next file's: true
 * with it, false at the end or on bad bytes (then b->bad is set).
 */
#define MI_POST_BLOCK 1024  /* a block ends once it is this long */
#define MI_POST_LBITS 3      /* bits of a file's length beside its id delta */
#define MI_POST_LENS 7       /* that length field: 7 = the length follows */
#define MI_POST_HDR 6       /* bytes before a block's files: its six tfn bounds */
#define MI_POST_QSCALE 33.83f /* 1 / ln 1.03: a step of the bound is 3% of 1 + tfn */
/* A tfn bound as a byte, rounded up; 255 = no bound. */
static inline uint8_t mi_post_q(float tfn)
{
	float q = tfn > 0 ? ceilf(logf(1 + tfn) * MI_POST_QSCALE) : 0;
	return q >= 255 ? 255 : (uint8_t)q;
}
/* The bound a byte of mi_post_q stands for (at least the tfn it was made
 * from); INFINITY for 255. */
static inline float mi_post_dq(uint8_t q)
{
	return q == 255 ? INFINITY : (expf((float)q / MI_POST_QSCALE) - 1) * 1.001f + 1e-4f;
}
/* A postings entry starts with varint n-delta << MI_POST_NSHIFT, or'ed
 * with MI_POST_ONES when the term occurs once in each field it occurs in
 * (no tf follows) and with the fields' bits (MI_POST_FIELDS). */
#define MI_POST_NSHIFT 6
#define MI_POST_ONES 0x20
#define MI_POST_FIELDS 0x1f
typedef struct mi_post_blk {
	const uint8_t *p, *e;   /* unread part of the value */
	uint32_t fid;           /* of the file last read */
	bool started;           /* a file was read */
	bool bad;
} mi_post_blk;
void mi_post_add(mi_buf *blk, uint32_t prev, uint32_t fid, const void *g, size_t gl);
bool mi_post_next(mi_post_blk *b, uint32_t *fid, const uint8_t **g, size_t *gl);


/* BM25F fields of a chunk: bits 0..4 of a posting entry's first varint. */
enum {
	MI_SF_NAME,   /* the symbol's own name (heading text, file name) */
	MI_SF_PATH,   /* qualified parents and the file path */
	MI_SF_SIG,    /* signature */
	MI_SF_DOC,    /* doc comment */
	MI_SF_BODY,   /* the rest of the chunk's text */
	MI_SF__COUNT
};
/* Chunk flags, kept with the chunk's lengths (mi_lens_*, shifted right
 * by 5) and or'ed with a posting's field bits when it is scored. */
#define MI_POSTF_AUX 0x20     /* the chunk is not a function or method */
#define MI_POSTF_PRIVATE 0x40 /* the chunk's symbol is private */
#define MI_POSTF_MD 0x80      /* a Markdown section */
#define MI_POSTF_TEST 0x100   /* test code (test file or test function) */
#define MI_POSTF_GEN 0x200    /* generated code (*.pb.go, "DO NOT EDIT") */

/*
 * A file's chunk lengths (MI_DB_POST key `\0 be32(file id)`): le16 field
 * widths (2 bits per field f at bit 2f: 0 one byte, 1 two, 2 four), then
 * per chunk, in chunk order, a record of fixed size: one byte of its
 * MI_POSTF_* bits >> 5, then each field's length in terms, little-endian
 * in its width.  mi_lens_encode makes one from n chunks' MI_LENS_W values
 * each (flags, then the lengths); mi_lens_count is the number of chunks
 * of a value (UINT32_MAX when it is malformed); mi_lens_get reads chunk n
 * (false when there is no such chunk).
 */
#define MI_LENS_W (1 + MI_SF__COUNT)
/* Those values are kept for MI_LENS_GROUP consecutive file ids at a time,
 * under MI_DB_POST key `\0 be32(file id / MI_LENS_GROUP)`: be32 offsets
 * off[0..MI_LENS_GROUP] into the bytes after them, file id g * MI_LENS_GROUP
 * + i holding bytes off[i]..off[i + 1] (none: no chunks).  mi_lens_file
 * finds a file's in a group's value: false when the value is malformed,
 * else true with *vl 0 when the file has none. */
#define MI_LENS_GROUP 256
bool mi_lens_file(const void *gv, size_t gl, uint32_t fid, const void **v, size_t *vl);
void mi_lens_encode(const uint32_t *vals, uint32_t n, mi_buf *out);
uint32_t mi_lens_count(const void *v, size_t vl);
bool mi_lens_get(const void *v, size_t vl, uint32_t n, uint32_t out[MI_LENS_W]);

/* Scoring modes: which weights a posting is scored with. */
enum { MI_SM_CODE, MI_SM_DOCS_MD, MI_SM_DOCS_CODE, MI_SM__COUNT };

typedef struct mi_bm25f {
	float k1[MI_SM__COUNT];              /* saturation per mode */
	float w[MI_SM__COUNT][MI_SF__COUNT]; /* field weights per mode */
	float b[MI_SM__COUNT][MI_SF__COUNT]; /* length normalisation per mode and field */
	float cap[MI_SM__COUNT][MI_SF__COUNT]; /* the most a field's length-normalised tf
					     * counts (0: no cap) */
} mi_bm25f;
extern const mi_bm25f mi_bm25f_params;
/* A signature of mi_bm25f_params, stored with the index (meta
 * "search.wsig") so a reader knows whether the stored score bounds were
 * computed with the weights it scores with. */
int64_t mi_bm25f_sig(void);

/* Weighted, length-normalised term frequency of one posting in mode sm
 * (0 when the posting is not scored in that mode).  tf/len hold MI_SF__COUNT
 * values, avg the average field lengths. */
float mi_bm25f_tfn(int sm, unsigned flags, const uint32_t *tf,
		   const uint32_t *len, const float *avg);
/* The same with the name field's part times name_share (search_code
 * weighs a name by how much of it the query says). */
float mi_bm25f_tfn_share(int sm, unsigned flags, const uint32_t *tf,
			 const uint32_t *len, const float *avg, float name_share);
/* The share of a name len terms long that query terms met times in it
 * say (1 when they say all of it, or none): what search_code weighs a
 * name field by, raised to its name_share exponent, and what the one-word
 * bounds of a postings block are made with.  A name of several parts also
 * holds its whole form as a term, not counted. */
static inline float mi_name_share(uint32_t met, uint32_t len)
{
	if (!len || !met)
		return 1;
	if (len > 1)
		len--;
	return met >= len ? 1 : (float)met / (float)len;
}

/* LEB128 varints.  mi_varint_get returns false on truncated input; the
 * one-byte case (most tf, lengths and deltas) is decoded in line. */
size_t mi_varint_put(uint8_t *p, uint64_t v);  /* p needs 10 bytes */
bool mi_varint_get_long(const uint8_t **p, const uint8_t *end, uint64_t *v);
static inline bool mi_varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	if (*p < end && **p < 0x80) {
		*v = *(*p)++;
		return true;
	}
	return mi_varint_get_long(p, end, v);
}

/*
 * One search chunk (MI_DB_CHUNKS value): a symbol with its doc comment, a
 * Markdown section, or what no symbol of a file covers.  Decoded strings
 * point into the value and are valid as long as it is (for a value from
 * the map: until the read transaction ends); they are not NUL-terminated,
 * hence the lengths.
 */
typedef struct mi_chunk {
	uint8_t kind;            /* mi_kind; MI_KIND_NONE for the file chunk */
	uint8_t vis;             /* mi_vis */
	uint8_t level;           /* heading level */
	uint32_t start_line, end_line;
	uint32_t snip_line;      /* first line of the snippet */
	uint32_t snip_byte;      /* byte offset where snip_line starts */
	const char *name; uint32_t name_len;
	const char *crumb; uint32_t crumb_len; /* "Parent > child" */
	const char *sig; uint32_t sig_len;
	const char *doc; uint32_t doc_len;
	const char *syms; uint32_t syms_len;   /* symbol names, ", " between */
	uint32_t sym;            /* the file's symbol index + 1; 0: none */
} mi_chunk;

/*
 * A chunk of a symbol (sym > 0) keeps neither its signature nor its doc
 * comment: they are the symbol's, read by mi_chunk_sym for the chunks a
 * search shows.  Its breadcrumb and symbols list are stored empty when
 * they are just its name, and decode as the name.
 */
void mi_chunk_encode(const mi_chunk *c, mi_buf *out);
int mi_chunk_decode(const void *data, size_t len, mi_chunk *c); /* MI_ERR_CORRUPT */
/* Points c->sig and c->doc at its symbol's (path: the chunk's file; valid
 * until the transaction ends); nothing to do when c->sym is 0. */
int mi_chunk_sym(mi_txn *t, const char *path, size_t pl, mi_chunk *c);

/* MI_DB_TERMS value: varint df, then two upper bounds of mi_bm25f_tfn over
 * the term's postings (code mode, docs modes), each the high 16 bits of
 * a float32 rounded up (be16): 5 bytes for most terms, not 12 (on the
 * kernel, 3.7 million terms). */
typedef struct mi_term_stats {
	uint32_t df;     /* chunks containing the term */
	float ub_code;   /* max tfn in MI_SM_CODE */
	float ub_docs;   /* max tfn in the docs modes */
} mi_term_stats;
#define MI_TERM_STATS_MAX (5 + 4) /* room mi_term_stats_encode needs: a 32-bit df's varint, two bounds */
/* Writes s; returns its length.  The bounds come back rounded up to the
 * next value 16 bits hold (at most 0.4% above): still bounds. */
size_t mi_term_stats_encode(const mi_term_stats *s, uint8_t out[MI_TERM_STATS_MAX]);
int mi_term_stats_decode(const void *data, size_t len, mi_term_stats *s);

/* Key helpers. */
static inline void mi_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline uint32_t mi_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* ---- folded views (view.c) ----------------------------------------------------
 * The renderer is shared: the build stores each file's default outline, the
 * query side renders every other view, and both must agree byte for byte.
 * Pure functions over source text + mi_parsed; docs/views.md states the rules. */

#define MI_DEFAULT_MAX_TOKENS 20000

/* The two renderings of one answer. */
typedef struct mi_out {
	mi_buf text;   /* folded text for people and models */
	mi_buf json;   /* one JSON object (SPEC §3.1) */
	bool is_error; /* true: text says what went wrong and what to do */
} mi_out;

void mi_out_release(mi_out *o);
void mi_out_reset(mi_out *o);
/* Sets an error answer: text = message, json = {"error": message}. */
int mi_out_error(mi_out *o, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A virtual line about one symbol from outside the source, such as a
 * stored summary: rendered "V* <label>: <text>" under the symbol that starts
 * at line (0: the file, at the top).  mi_view_opts.line_notes. */
typedef struct mi_view_note {
	uint32_t line;      /* the symbol's start line; 0 = the whole file */
	const char *label;  /* "summary" */
	const char *text;   /* one paragraph; newlines become spaces */
} mi_view_note;

/* How to fold a file. */
typedef struct mi_view_opts {
	const char *mode;      /* "outline" (default), "compact", "full" */
	bool all;              /* filter=all: include private symbols */
	int line_numbers;      /* 0 none, 1 plain, 2 zpad */
	bool unicode;          /* seed 000 glyphs instead of ASCII marks */
	bool block_guides;     /* V* end fn NAME */
	bool coverage;         /* V* coverage: lines from an lcov file */
	const char *lcov_path; /* explicit lcov file, NULL = search the index */
	size_t max_tokens;     /* answer cap, 0 = default (20000) */
	bool xrefs;            /* read_file: callers and implementers under symbols */
	bool blame;            /* read_file: each symbol's last commit (build --blame) */
	const char *const *notes; /* per symbol index: V* lines written under its
				     entry ('\n' between), NULL = none (outline) */
	const mi_view_note *line_notes; /* V* lines from outside the source by symbol
					 * line (outline, compact, expand docs|all) */
	size_t nline_notes;    /* how many */
	struct mi_src_window *window; /* expand: src holds only part of the file */
} mi_view_opts;

/*
 * Part of a source an expansion may be rendered from (mi_view_opts.window):
 * the source buffer holds the file's bytes at their places only in
 * [from, to), from a line start to a line end (or the end of the file),
 * where from starts line line0 of a file of nlines lines.  A rendering that
 * needs a line outside sets short_of_lines; the caller then renders again
 * from the whole source, so the answer never depends on the window.
 */
typedef struct mi_src_window {
	size_t from, to;
	uint32_t line0, nlines;
	bool short_of_lines;
} mi_src_window;

/*
 * Folded view of a parsed file, without an index (mcpidx outline FILE, what
 * the build stores and what mi_query_read_file calls).  path is only used for messages and JSON.
 */
int mi_render_view(const char *path, const char *src, size_t len,
		   const mi_parsed *p, const mi_view_opts *o, mi_out *out);
/* Expanded view of one symbol of a parsed file. */
int mi_render_expand(const char *path, const char *src, size_t len,
		     const mi_parsed *p, const char *selector, const char *what,
		     const mi_view_opts *o, mi_out *out);

/*
 * The stored outline (MI_DB_OUTLINES value): each file's default read_file
 * view (mode outline, filter public, no line numbers, ASCII marks) rendered
 * by the build with no cap, so the common read is one lookup.  A reader
 * serves it only when the index's "view" meta equals MI_VIEW_VERSION (bump
 * it whenever the renderer's bytes change) and mi_outline_serves() says the
 * request's options would render exactly this; otherwise it renders.
 */
#define MI_VIEW_VERSION 3
/* need of a record holding the view at MI_DEFAULT_MAX_TOKENS: the file's
 * whole outline did not fit the default cap, so the build kept the answer
 * a read_file with the default cap gets (the budget folds it). */
#define MI_OUTLINE_CAPPED UINT32_MAX
typedef struct mi_outline_rec {
	const char *text;     /* the view; decode: points into the record */
	size_t text_len;
	uint32_t need;        /* smallest max_tokens that leaves it whole (0: never;
			       * MI_OUTLINE_CAPPED: the view at the default cap) */
	uint32_t lines;       /* line_count */
	uint32_t nsyms;       /* symbols */
	int32_t saved;        /* tokens_saved_percent */
} mi_outline_rec;
void mi_outline_encode(const mi_outline_rec *r, mi_buf *out);
int mi_outline_decode(const void *data, size_t len, mi_outline_rec *r); /* MI_ERR_CORRUPT */
/* Renders p's stored outline into out->text; r->text points at it. */
int mi_render_outline(const char *path, const char *src, size_t len, const mi_parsed *p,
		      mi_out *out, mi_outline_rec *r);
/* True when a read_file with options o would render exactly r. */
bool mi_outline_serves(const mi_outline_rec *r, const mi_view_opts *o);
/* The read_file answer of r: the bytes mi_render_view gives for it. */
void mi_outline_answer(const char *path, const mi_outline_rec *r, mi_out *out);

/*
 * Appends the folded outline line of symbol idx of p to out, without
 * indentation: "F> def login(name) { ... }\n" (a symbol kind without a
 * mark: "V* <code>\n").  For answers that pick symbols from several files
 * (context packs); the rules are the outline's.  src is the file's source.
 */
void mi_render_line(const char *path, const char *src, size_t len, const mi_parsed *p,
		    size_t idx, mi_buf *out);
/* The same with o's marks (o->unicode: "…" and "V•"); o NULL = ASCII. */
void mi_render_line_opts(const char *path, const char *src, size_t len,
			 const mi_parsed *p, size_t idx, const mi_view_opts *o,
			 mi_buf *out);
/* The same for many symbols of one file: the view of the file is made once
 * (mi_render_line_opts makes it per line, O(symbols) each).  path, src and
 * p must outlive it; mi_line_view_free(NULL) does nothing. */
typedef struct mi_line_view mi_line_view;
mi_line_view *mi_line_view_new(const char *path, const char *src, size_t len,
			       const mi_parsed *p, const mi_view_opts *o);
void mi_line_view_put(mi_line_view *v, size_t idx, mi_buf *out);
void mi_line_view_free(mi_line_view *v);

/* ---- blame (blame.c) ----------------------------------------------------------
 * `mcpidx build --blame` keeps the last commit of each symbol beside the
 * index, in an LMDB environment of its own (mi_store_open_dbs with
 * mi_blame_dbs): D/blame for an index directory D, F.blame for a packed
 * file F.  One database, key = repo-relative path, value = text: the
 * file's content hash as 32 hex digits and '\n', then one line per symbol
 * "IDX\tSHORT\tAUTHOR\tDATE\n" (IDX its index among the file's symbols,
 * SHORT the abbreviated commit or "uncommitted", DATE the author date as
 * YYYY-MM-DD in UTC).  The index format is unchanged by it. */
extern const char *const mi_blame_dbs[1];
/* D/blame or F.blame (malloc'd), NULL when index_path does not exist. */
char *mi_blame_locate(const char *index_path);
typedef struct mi_blame_sym {
	uint32_t idx;            /* the symbol's index in its file */
	char *commit, *author, *date; /* owned */
} mi_blame_sym;
/* Decodes a record computed for content hash `hash`: ESTALE when it
 * was computed for other content, MI_ERR_CORRUPT when malformed. */
int mi_blame_decode(const void *data, size_t len, const uint8_t hash[16],
		    mi_blame_sym **out, size_t *n);
void mi_blame_free(mi_blame_sym *v, size_t n);

/* The lcov file a coverage view reads when none is given: the first of
 * lcov.info, coverage/lcov.info, coverage.info, build/coverage.info and
 * coverage/coverage.info found in dir, then in each parent up to stop (when
 * given) or the one holding .git.  malloc'd, or NULL.  (view_cover.c) */
char *mi_lcov_find(const char *dir, const char *stop);

/* Rough o200k-like token estimate used for budgets and savings figures;
 * never more than len (every token it counts takes a byte or more), so a
 * text of at most N bytes is within a budget of N tokens unread. */
size_t mi_token_estimate(const char *s, size_t len);

/* ---- tool catalog (catalog.c, sanitize.c; docs/format-catalog.md) ----------------
 * The tools of upstream MCP servers, written whole by the catalog writer
 * (indexer/catalog_write.c) and read by query/catalog.c.  A tool is named
 * "server/tool"; its id is its rank in name order, dense from 0. */

/* BM25F fields of a tool.  Bits of a tool posting's field mask. */
enum {
	MI_TF_NAME,    /* the tool's own name, split into parts */
	MI_TF_TITLE,   /* its title and the first sentence of its description */
	MI_TF_DESC,    /* its description */
	MI_TF_PARAM,   /* parameter names (nested ones too) */
	MI_TF_PDOC,    /* parameter descriptions and enum values */
	MI_TF_SERVER,  /* the server's name, title and first line of instructions */
	MI_TF_ALIAS,   /* task phrasings: the host's model or the servers file */
	MI_TF_INITIALS,/* initials of runs of its name's parts: list_pull_requests
			* gives "lp lpr pr" (and "prs"), what "PR" and "PRs" say */
	MI_TF__COUNT
};

typedef struct mi_tool_bm25 {
	float k1;               /* saturation */
	float w[MI_TF__COUNT];  /* field weights */
	float b[MI_TF__COUNT];  /* length normalisation per field */
	float name_cover;       /* a score grows by name_cover x the share of the
				 * tool's name terms the query says */
	float diverse;          /* 0-1: how much a tool that matches only query
				 * words already matched by tools above it sinks */
	bool server_slot;       /* every server the task names by name keeps its
				 * best tool among the results */
} mi_tool_bm25;
extern const mi_tool_bm25 mi_tool_bm25_params;
/* The fields' names, as the meta keys tools.len.NAME (total lengths) say them. */
extern const char *const mi_tool_field_names[MI_TF__COUNT];

/* Tool flags (mi_tool_rec.flags): annotations the server declared
 * explicitly, and what the sanitizer found in the description. */
#define MI_TOOLF_READONLY    0x01  /* annotations.readOnlyHint true */
#define MI_TOOLF_DESTRUCTIVE 0x02  /* annotations.destructiveHint true (explicit) */
#define MI_TOOLF_IDEMPOTENT  0x04  /* annotations.idempotentHint true */
#define MI_TOOLF_OPENWORLD   0x08  /* annotations.openWorldHint true */
#define MI_TOOLF_SENSITIVE   0x10  /* listed as sensitive in the servers file */

/*
 * One tool (MI_DB_TOOLS value).  JSON members are stored as compact JSON
 * text ("" when the server gave none); description is stored raw, exactly
 * as the server sent it: show it through mi_sanitize.  Decoded strings point
 * into the value (valid as long as it is) and are not NUL-terminated.
 */
typedef struct mi_tool_rec {
	uint32_t id;            /* rank in name order */
	uint32_t flags;         /* MI_TOOLF_* */
	uint8_t hash[16];       /* mi_tool_hash: the pin */
	const char *server; uint32_t server_len;
	const char *name; uint32_t name_len;     /* upstream name, no namespace */
	const char *title; uint32_t title_len;
	const char *desc; uint32_t desc_len;     /* raw */
	const char *input; uint32_t input_len;   /* inputSchema JSON */
	const char *output; uint32_t output_len; /* outputSchema JSON or "" */
	const char *annot; uint32_t annot_len;   /* annotations JSON or "" */
	const char *icons; uint32_t icons_len;   /* icons JSON or "" */
	const char *sig; uint32_t sig_len;       /* mi_tool_signature of input */
	const char *aliases; uint32_t aliases_len; /* indexed phrasings, '\n' between */
} mi_tool_rec;

void mi_tool_encode(const mi_tool_rec *r, mi_buf *out);
int mi_tool_decode(const void *data, size_t len, mi_tool_rec *r); /* MI_ERR_CORRUPT */

/* One upstream server (MI_DB_SERVERS value).  Never holds its command,
 * arguments, environment, URL or headers: those stay in the servers file. */
typedef struct mi_server_rec {
	const char *name; uint32_t name_len;         /* the namespace */
	const char *transport; uint32_t transport_len; /* "stdio", "http", "sse" */
	const char *protocol; uint32_t protocol_len; /* negotiated version */
	const char *info; uint32_t info_len;         /* serverInfo JSON */
	const char *instructions; uint32_t instructions_len;
	const char *error; uint32_t error_len;       /* last fetch error, "" when it worked */
	uint32_t ntools;        /* tools stored for it */
	int64_t fetched;        /* unix time of the last successful fetch */
} mi_server_rec;

void mi_server_encode(const mi_server_rec *r, mi_buf *out);
int mi_server_decode(const void *data, size_t len, mi_server_rec *r); /* MI_ERR_CORRUPT */

/*
 * The pin of a tool: xxh3-128 over its name, description, and the
 * canonical (sorted-key, compact) JSON of inputSchema, outputSchema and
 * annotations.  JSON texts may be NULL or "".  A schema whose keys merely
 * moved keeps its hash; any change of wording does not.
 */
void mi_tool_hash(const char *name, const char *desc, const char *input,
		  const char *output, const char *annot, uint8_t out[16]);

/* The simplified signature of an inputSchema: "(path: string, recursive?:
 * boolean)", enums as "a"|"b", arrays as T[]; "()" for none.  Appends. */
void mi_tool_signature(const char *input_json, mi_buf *out);

/* The parameter names and descriptions of an inputSchema (nested
 * properties and array items included), appended one per line to names and
 * docs (enum values go with the docs). */
void mi_tool_params(const char *input_json, mi_buf *names, mi_buf *docs);

/* The first sentence (or line) of a description, at most max bytes, cut on
 * a word boundary with "..."; appends. */
void mi_tool_first_line(const char *s, size_t len, size_t max, mi_buf *out);

/*
 * Tool postings (MI_DB_TPOST value): for each tool holding the term, in id
 * order: varint id delta (the first is the id), u8 field mask, then per set
 * field: varint tf, varint field length (terms).
 */
#define MI_TPOST_MAX 24  /* bytes one entry takes at most per field, + 6 */
void mi_tpost_put(mi_buf *out, uint32_t id_delta, unsigned mask,
		  const uint32_t *tf, const uint32_t *len);
/* Reads one entry at *p (advanced); false at the end or on bad bytes. */
bool mi_tpost_next(const uint8_t **p, const uint8_t *end, uint32_t *id_delta,
		   unsigned *mask, uint32_t *tf, uint32_t *len);

/* ---- sanitizer (sanitize.c): upstream text is untrusted ---------------- */

#define MI_SAN_HIDDEN      0x1  /* control, zero-width, bidi or tag characters removed */
#define MI_SAN_MARKUP      0x2  /* hidden markup removed (HTML comments, tags) */
#define MI_SAN_INSTRUCTION 0x4  /* reads like instructions to the model */
#define MI_SAN_TRUNCATED   0x8  /* cut at the size cap */

/*
 * Appends s[0..len) as it may be shown to a model: invalid UTF-8 becomes
 * U+FFFD; control characters other than newline and tab, zero-width,
 * bidirectional-override and Unicode tag characters are dropped; HTML
 * comments and tags are removed (their text kept); runs of blank lines
 * shrink to one; at most max bytes (0: no cap).  Returns the MI_SAN_* flags
 * of what it found, instruction-like wording included (which is kept, and
 * flagged, so a person can read what the server tried).
 */
unsigned mi_sanitize(const char *s, size_t len, size_t max, mi_buf *out);
/* Appends the flags as a JSON array of names: ["hidden-characters", ...]. */
void mi_sanitize_flag_names(unsigned flags, mi_buf *out);

/* ---- compile diagnostics (cdiag.c) -------------------------------------------
 * The latest compile's diagnostics of one file, as the side store keeps them
 * (side.h: MI_SIDE_DIAGS, key path \0 MI_CDIAG_KIND \0 "", the record's hash
 * = the file's content hash when the compile ran, so they are dropped once the
 * file changes): one line per diagnostic, "S LINE COL TEXT\n", S = E, W or H
 * (a hint, on the line of the diagnostic it belongs to). */
#define MI_CDIAG_KIND "compile"

typedef struct mi_cdiag {
	char severity;       /* 'E', 'W' or 'H' */
	uint32_t line, col;  /* 1-based; 0 = none */
	const char *msg;     /* points into the text read; not NUL-terminated */
	size_t msg_len;
} mi_cdiag;

/* Appends one diagnostic line (newlines in text become spaces). */
void mi_cdiag_add(mi_buf *out, char sev, uint32_t line, uint32_t col, const char *text);
/* Reads the next diagnostic from *p (advanced) before end: true with d set,
 * false at the end.  Lines of another shape are skipped. */
bool mi_cdiag_next(const char **p, const char *end, mi_cdiag *d);

#endif
