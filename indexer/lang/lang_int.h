/*
 * lang_int.h - what the language files of indexer/lang/ share (not public):
 * the row each one defines, and helpers over tree-sitter nodes.
 *
 * A language is one file here, indexer/lang/<name>.c, defining
 *	const mi_lang_row mi_lang_<name> = { .id = MI_LANG_<NAME>, ... };
 * beside its query <name>.scm (embedded as mi_query_src_<name>), plus one
 * row MI_LANG_ROW(<NAME>, <name>) appended to format/lang_list.h and one
 * golden unit under testdata/units/<name>/.  A grammar from npm adds a line
 * to tools/deps.lock and an entry to GRAMMARS in the Makefile.
 */
#ifndef MI_LANG_INT_H
#define MI_LANG_INT_H

#include "../indexer_int.h"

#include <tree_sitter/api.h>

#define MI_SIG_VALUE_MAX 48 /* longest initial value kept in a field signature */

/* A language's fix callback, file-local: mi_fix_<name>. */
#define MI_FIX(name) static void mi_fix_##name(mi_ts_ctx *c, void *def_node, mi_symbol *s)

/* JavaScript rules, shared by TypeScript and TSX (javascript.c). */
void mi_fix_javascript(mi_ts_ctx *c, void *def_node, mi_symbol *s);
/* The <script> blocks of an HTML-like tree that hold JavaScript or
 * TypeScript, for mi_ts_embed (html.c; Svelte's too). */
void mi_html_embed_scripts(mi_ts_ctx *c, void *root);
/* HTML rules, shared by Vue components (html.c). */
void mi_fix_html(mi_ts_ctx *c, void *def_node, mi_symbol *s);
/* OCaml rules, shared by its interfaces (ocaml.c). */
void mi_fix_ocaml(mi_ts_ctx *c, void *def_node, mi_symbol *s);

/* C: file-level variables and macro-made functions, in and out of #if
 * (c.c, also used by C++). */
void mi_c_walk(mi_ts_ctx *c, void *root);
/* C: the tags query c.scm as one walk over the tree (c_tags.c). */
int mi_c_extract(mi_ts_ctx *c, void *root);

/* ---- node helpers: common.c ----------------------------------------------- */

/* true if n is not null and has type `type`. */
bool mi_ts_type_is(TSNode n, const char *type);
/* true if an ancestor of n (not n) has one of types (NULL-terminated).
 * Use it, not a loop of ts_node_parent, which walks down from the root at
 * every call: O(depth) per step, O(depth^2) per node, O(n^3) for a file. */
bool mi_ts_under(TSNode n, const char *const *types);
/* true if the text of n is exactly `text`. */
bool mi_ts_text_is(mi_ts_ctx *c, TSNode n, const char *text);
/* true if a direct child of node has type `type` and text `text`. */
bool mi_ts_has_child_text(mi_ts_ctx *c, TSNode node, const char *type, const char *text);
/* true if a named child of n has type `type`. */
bool mi_ts_has_child_type(TSNode n, const char *type);
/* true if a leaf with text `word` is n or lies below it, at most depth
 * levels down. */
bool mi_ts_leaf_in(mi_ts_ctx *c, TSNode n, const char *word, int depth);
/* Modifier `word` of n: a leaf inside a child whose type names a modifier
 * list ("modifiers", "modifier", "visibility_modifier", ...), or, when
 * bare is true, also a keyword that is a direct child of n. */
bool mi_ts_modifier_in(mi_ts_ctx *c, TSNode n, const char *word, bool bare);
/* mi_ts_modifier_in with bare keywords. */
bool mi_ts_has_modifier(mi_ts_ctx *c, TSNode n, const char *word);
/* First descendant of n (depth first, at most depth levels) of type
 * `type`, or a null node. */
TSNode mi_ts_find_desc(TSNode n, const char *type, int depth);

/* Doc comment of a node from the comment block just above it (the same
 * reader as every definition's doc): markers stripped, lines joined by
 * newlines; NULL if none.  Owned by the parse; defined in parse.c. */
const char *mi_ts_doc_above(mi_ts_ctx *c, TSNode n);

/* Appends [a, b) of the parsed text to out with comments dropped and white
 * space folded to single spaces (none after '(' or '[', none before ')'
 * ']' ','). */
void mi_ts_add_folded(mi_ts_ctx *c, mi_buf *out, uint32_t a, uint32_t b);
/* Replaces the signature with the folded text of [a, b) of the source
 * (byte offsets relative to the parsed text), dropping a trailing ';'. */
void mi_ts_set_sig(mi_ts_ctx *c, mi_symbol *s, uint32_t a, uint32_t b);
/* Drops a trailing ';' from the signature the driver computed. */
void mi_ts_trim_sig(mi_ts_ctx *c, mi_symbol *s);
/* Prefixes the symbol's name with prefix ("~", "operator "). */
void mi_ts_set_name(mi_ts_ctx *c, mi_symbol *s, const char *prefix);
/*
 * A declaration of several variables (`int a = 1, b;`) gives one symbol per
 * declarator: the declaration node stands for the first one, a later
 * declarator node for itself.  Trims the first one's span to its own
 * declarator and gives each the signature "<modifiers> <type> <declarator>".
 * decl_type is the grammar's declarator node type; list_type the node that
 * holds the type and the declarators when it is not the declaration itself
 * (C#: variable_declaration), else NULL.  Returns the declaration node (the
 * one holding the modifiers).
 */
TSNode mi_ts_split_declarators(mi_ts_ctx *c, TSNode def, mi_symbol *s,
			       const char *decl_type, const char *list_type);

/* ---- languages read by a scanner of our own: scan.c ------------------------ */

typedef struct mi_scan {
	const char *src;         /* the file */
	size_t len;
	mi_parsed *p;            /* output */
	uint32_t *lines;         /* start byte of each line */
	size_t nlines;
} mi_scan;

void mi_scan_init(mi_scan *s, const char *src, size_t len, mi_parsed *p);
void mi_scan_release(mi_scan *s);
/* 1-based line of byte; end of the line holding byte (its '\n' or len). */
uint32_t mi_scan_line(const mi_scan *s, uint32_t byte);
uint32_t mi_scan_eol(const mi_scan *s, uint32_t byte);
/* Adds a symbol of kind over [start, end) named name[0, nl), its signature
 * the folded text of [sig_start, sig_end), under parent (-1: top level).
 * Public, no doc.  Returns its index. */
int mi_scan_sym(mi_scan *s, int kind, uint32_t start, uint32_t end, const char *name,
		size_t nl, uint32_t sig_start, uint32_t sig_end, int parent);
/* Sets symbol i's parent (index, -1 none): parent_idx, qualified parent
 * name and nesting level. */
void mi_scan_set_parent(mi_scan *s, int i, int parent);
/* Sets symbol i's doc to doc[0, n) (copied, trailing blanks dropped). */
void mi_scan_doc(mi_scan *s, int i, const char *doc, size_t n);
/* Adds a reference of kind (MI_REF_*) to name[0, nl) at byte at, made
 * from symbol caller (-1: file level). */
void mi_scan_ref(mi_scan *s, int kind, uint32_t at, const char *name, size_t nl, int caller);
/* Headings (kind MI_KIND_HEADING, level set, body_byte at the end of the
 * heading's own lines): each spans to the next heading of the same or a
 * higher level, under the nearest heading of a higher level before it. */
void mi_scan_headings(mi_scan *s);

/* ---- line scanners that nest by span: lines.c -------------------------------
 * A scanner reads its file line by line, adds symbols in source order (outer
 * before inner at the same start) with mi_line_sym, fixes their ends as it
 * learns them, and calls mi_line_nest once at the end. */

/* One physical line: [start, end) without its line break; next is the
 * start of the following line; no its 1-based number. */
typedef struct mi_line {
	const char *s;                /* src + start */
	uint32_t start, end, next;    /* byte offsets */
	uint32_t no;                  /* line number */
} mi_line;

/* Reads the line at *pos (line number *no) into ln and advances both;
 * false at the end of the text. */
bool mi_line_next(const char *src, size_t len, uint32_t *pos, uint32_t *no, mi_line *ln);
/* Adds a public symbol of kind spanning line ln for now: name and sig
 * (white space folded) are copied; returns its index. */
size_t mi_line_sym(mi_parsed *p, int kind, const char *name, size_t nlen,
		   const char *sig, size_t slen, const mi_line *ln);
/* Sets the end of symbol i to the end of line ln (its last line). */
void mi_line_end_at(mi_parsed *p, size_t i, const mi_line *ln);
/* Doc of symbol i from the comment text a[0..n) (markers already
 * stripped): lines trimmed, joined by newlines; a license tag is none. */
void mi_line_doc(mi_parsed *p, size_t i, const char *a, size_t n);
/* Headings among syms[from..]: each spans to the next heading of the same
 * or a higher level, or to the end (eof byte, last line).  The scanner set
 * each one's body_byte/body_line to the line after its own text; a heading
 * whose span ends there has no body. */
void mi_line_heading_spans(mi_parsed *p, size_t from, uint32_t eof, uint32_t last_line);
/* Parents, qualified parent names and depths from the spans (a heading
 * keeps its level; the same span twice makes siblings), bodies (a symbol
 * over several lines without one has the lines after its first; src is
 * the scanned text), and each reference's caller (the innermost symbol
 * holding its line; references in line order). */
void mi_line_nest(mi_parsed *p, const char *src);

#endif
