/*
 * lsp_int.h - internals shared by the lsp*.c files of mcp/ (not public; the
 * entry point is mi_lsp_serve in mcp.h).  Layers, top down: lsp.c (the
 * message loop, lifecycle, method table) calls lsp_features.c (one handler
 * per request) and lsp_diags.c (published compile diagnostics), which call
 * lsp_text.c (documents, positions, URIs) and query/; lsp_rpc.c frames
 * messages for lsp.c.
 */
#ifndef MI_LSP_INT_H
#define MI_LSP_INT_H

#include "mcp.h"

#include <jansson.h>
#include <stdio.h>
#include <sys/types.h>

#define MI_LSP_MAX_MSG ((size_t)64 << 20) /* largest message we accept */

/* JSON-RPC and LSP error codes. */
enum {
	MI_LSP_PARSE_ERROR = -32700,
	MI_LSP_INVALID_REQUEST = -32600,
	MI_LSP_NO_METHOD = -32601,
	MI_LSP_INVALID_PARAMS = -32602,
	MI_LSP_INTERNAL = -32603,
	MI_LSP_NOT_INITIALIZED = -32002,
	MI_LSP_REQUEST_FAILED = -32803,
};

/* ---- lsp_rpc.c: Content-Length framing ----------------------------------------- */

typedef struct mi_lsp_reader {
	int fd;        /* where messages come from */
	mi_buf in;     /* bytes read and not yet consumed */
	size_t off;    /* start of the unconsumed bytes in `in` */
	bool eof;      /* fd reached end of file */
	bool resync;   /* after a framing error: skipping to a Content-Length */
} mi_lsp_reader;

/*
 * Reads one message body into body (replacing its contents).  Returns 0 with
 * a body, 1 at end of input, 2 when timeout_ms (>= 0) passed with no whole
 * message, or -1 for a message that breaks the framing (no Content-Length,
 * over MI_LSP_MAX_MSG): err says why and the message is skipped.  After a
 * header without a valid Content-Length the input is skipped up to the next
 * "Content-Length:", so one bad block costs one -1.
 */
int mi_lsp_read(mi_lsp_reader *r, int timeout_ms, mi_buf *body, mi_buf *err);
/* Writes one message (header and body) to fd; 0 or errno. */
int mi_lsp_write(int fd, const char *body, size_t len);

/* ---- lsp_text.c: documents, positions, URIs --------------------------------- */

/* Position encodings (LSP 3.17 positionEncoding). */
enum { MI_ENC_UTF16, MI_ENC_UTF8, MI_ENC_UTF32 };

/*
 * Where each line of a text starts, for position conversions.  LSP ends a
 * line at "\n", "\r\n" or a lone "\r"; the indexer, its parsers and so
 * the index number lines by "\n" alone, which differs only in a text with
 * a lone "\r" (then nl holds those lines' starts too).
 */
typedef struct mi_lsp_lines {
	const char *s;      /* the text (borrowed) */
	size_t len;         /* its bytes */
	uint32_t *start;    /* byte offset of each line, malloc'd */
	uint32_t n;         /* lines (a text always has one) */
	uint32_t *nl;       /* starts of the lines by "\n", malloc'd; NULL when
			     * they are start (no lone "\r") */
	uint32_t nnl;       /* lines by "\n" */
	int enc;            /* MI_ENC_* of the character offsets */
} mi_lsp_lines;

void mi_lsp_lines_init(mi_lsp_lines *l, const char *s, size_t len, int enc);
void mi_lsp_lines_release(mi_lsp_lines *l);
/* Byte offset of the end of line i, before its "\n", "\r\n" or "\r". */
size_t mi_lsp_line_end(const mi_lsp_lines *l, uint32_t i);
/* Bytes [*from, *to) of line nl (0-based) as the index counts lines (by
 * "\n"), *to after its "\n"; false (an empty span at 0) past the text. */
bool mi_lsp_nl_span(const mi_lsp_lines *l, uint32_t nl, size_t *from, size_t *to);
/* The line of byte off of index line nl (0-based): nl itself unless a lone
 * "\r" breaks lines, then the line off is on. */
uint32_t mi_lsp_nl_line(const mi_lsp_lines *l, uint32_t nl, size_t off);
/* Byte offset of (line, character), clamped to the line's end (before its
 * line break) and to the text's end. */
size_t mi_lsp_offset(const mi_lsp_lines *l, uint32_t line, uint32_t ch);
/* Reads a Position object {line, character}: false unless both are
 * non-negative integers.  A value over UINT32_MAX reads as UINT32_MAX, past
 * any text, so it clamps like any position past the line or the text. */
bool mi_lsp_get_pos(json_t *pos, uint32_t *line, uint32_t *ch);
/* (line, character) of byte offset off (clamped to the text). */
void mi_lsp_position(const mi_lsp_lines *l, size_t off, uint32_t *line, uint32_t *ch);
/* A JSON string of s (s[0..n)), bytes that are not valid UTF-8 replaced by
 * U+FFFD: names and messages from files may hold any bytes. */
json_t *mi_lsp_str(const char *s);
json_t *mi_lsp_strn(const char *s, size_t n);
/* An LSP Range object for bytes [from, to). */
json_t *mi_lsp_range(const mi_lsp_lines *l, size_t from, size_t to);
/* The identifier (letters, digits, '_', '$', non-ASCII) around byte off;
 * from and to bound it, 0 when none (then from == to). */
size_t mi_lsp_word_at(const char *s, size_t len, size_t off, size_t *from, size_t *to);
/* First whole-word occurrence of word in s[from, to), or (size_t)-1. */
size_t mi_lsp_find_word(const char *s, size_t from, size_t to, const char *word);

/* file:// URI -> absolute path (malloc'd), NULL when not a file URI. */
char *mi_lsp_uri_path(const char *uri);
/* Absolute path -> file:// URI, percent-encoded (appended to out). */
void mi_lsp_path_uri(const char *path, mi_buf *out);

/* One document the client opened. */
typedef struct mi_lsp_doc {
	char *uri;                /* as the client sent it */
	char *path;               /* repo-relative; NULL outside the root */
	int lang;                 /* mi_lang_id by file name, or languageId */
	int64_t version;          /* the client's version of the text */
	mi_buf text;              /* the live buffer */
	bool parsed_valid;        /* parsed is the parse of text */
	mi_parsed parsed;         /* cached parse of the live buffer */
	struct mi_lsp_doc *next;  /* in the server's list */
} mi_lsp_doc;

/* Applies one TextDocumentContentChangeEvent (a range edit, or the whole
 * text when it has no range); 0 or -1 with err when malformed. */
int mi_lsp_doc_change(mi_lsp_doc *d, json_t *change, int enc, mi_buf *err);
void mi_lsp_doc_free(mi_lsp_doc *d);

/* ---- lsp.c: state shared with the handlers ---------------------------- */

typedef struct mi_lsp_server {
	const mi_lsp_opts *opts;  /* as given to mi_lsp_serve */
	FILE *log;                /* log stream (stderr or --log FILE) */
	int state;                /* 0 new, 1 initialized, 2 shut down */
	int enc;                  /* negotiated MI_ENC_* */
	bool hier_symbols;        /* client takes DocumentSymbol[] */
	size_t fold_limit;        /* client's foldingRange rangeLimit, 0 = none */
	char *root;               /* absolute repository root, no trailing '/' */
	char *index_path;         /* index dir or file in use */
	mi_query *q;              /* NULL while there is no index */
	dev_t q_dev;              /* identity of the data file q opened: */
	ino_t q_ino;              /* a new inode means a rebuilt index */
	bool warned_noindex;      /* told the client once */
	mi_lsp_doc *docs;         /* open documents */
	char *diag_latest;        /* task id of the compile last published */
	char **published;         /* URIs holding diagnostics now */
	size_t npublished;
} mi_lsp_server;

/* The query handle, (re)opened when the index was built or rebuilt since;
 * NULL when there is no index (the handlers then answer from parses). */
mi_query *mi_lsp_query(mi_lsp_server *s);
/* The repo-relative path of an absolute one, malloc'd; NULL outside root. */
char *mi_lsp_rel_path(mi_lsp_server *s, const char *abs);
/* The open document of uri, or NULL. */
mi_lsp_doc *mi_lsp_doc_find(mi_lsp_server *s, const char *uri);
/* Sends a notification (params is stolen). */
void mi_lsp_notify(mi_lsp_server *s, const char *method, json_t *params);
/* One line in the server log. */
void mi_lsp_log(mi_lsp_server *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- lsp_diags.c: the latest compile's diagnostics ------------------------------ */

/* Publishes every file's diagnostics when a newer compile was stored
 * (always with force); files no longer named get an empty list. */
void mi_lsp_diags_refresh(mi_lsp_server *s, bool force);
/* Publishes d's diagnostics against its current text (after an edit). */
void mi_lsp_diags_doc(mi_lsp_server *s, mi_lsp_doc *d);
void mi_lsp_diags_release(mi_lsp_server *s);

/* ---- lsp_features.c: requests ------------------------------------------------- */

/*
 * A request handler: fills *result (NULL means JSON null) or returns a
 * JSON-RPC error code with a message in err.
 */
typedef int (*mi_lsp_handler)(mi_lsp_server *s, json_t *params, json_t **result,
			      mi_buf *err);

int mi_lsp_folding(mi_lsp_server *s, json_t *params, json_t **result, mi_buf *err);
int mi_lsp_doc_symbols(mi_lsp_server *s, json_t *params, json_t **result, mi_buf *err);
int mi_lsp_ws_symbols(mi_lsp_server *s, json_t *params, json_t **result, mi_buf *err);
int mi_lsp_definition(mi_lsp_server *s, json_t *params, json_t **result, mi_buf *err);
int mi_lsp_references(mi_lsp_server *s, json_t *params, json_t **result, mi_buf *err);

#endif
