/*
 * c.c - C: `static` visibility, macro-made functions, typedef signatures,
 * the attribute-macro prefilter and the walk for file-level definitions.
 */
#include "lang_int.h"

#include <stdlib.h>
#include <string.h>

/* Line after the end of node n, as the driver counts end lines. */
static uint32_t end_line(TSNode n)
{
	TSPoint a = ts_node_start_point(n), e = ts_node_end_point(n);
	return e.column == 0 && e.row > a.row ? e.row : e.row + 1;
}

/* Stretches the symbol's span to the end of node n. */
static void stretch_to(mi_ts_ctx *c, mi_symbol *s, TSNode n)
{
	size_t len;
	uint32_t base;
	mi_ts_src(c, &len, &base);
	s->end_byte = ts_node_end_byte(n) + base;
	s->end_line = end_line(n);
}

/* Folded text of src[a, b): comments dropped, runs of white space become
 * one space. */
static const char *folded(mi_ts_ctx *c, uint32_t a, uint32_t b)
{
	size_t len;
	uint32_t base;
	mi_ts_src(c, &len, &base);
	if (b > len)
		b = (uint32_t)len;
	if (a > b)
		a = b;
	const char *src = mi_ts_uncomment(c, a, b);
	mi_buf o = {0};
	bool sp = false;
	for (uint32_t i = 0; i < b - a && o.len < 400; i++) {
		unsigned char ch = (unsigned char)src[i];
		if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v') {
			sp = o.len > 0;
			continue;
		}
		if (sp && o.buf[o.len - 1] != '(' && ch != ')' && ch != ',')
			mi_buf_addc(&o, ' ');
		sp = false;
		mi_buf_addc(&o, (char)ch);
	}
	const char *r = mi_parsed_strndup(mi_ts_parsed(c), o.buf ? o.buf : "", o.len);
	mi_buf_release(&o);
	return r;
}

/*
 * C: `static` at file scope means private to the file.  A function made by
 * a macro (SYSCALL_DEFINE3(...) { }) or one whose header the grammar could
 * not read is captured as the statement or error before its block: its span
 * runs to the end of that block, and a header in an error starts at the
 * tokens on the name's line.  A struct/union/enum inside a typedef takes the
 * typedef's doc comment; the alias name gets a signature of its own.
 */
MI_FIX(c)
{
	TSNode n = *(TSNode *)def_node;
	const char *t = ts_node_type(n);
	if (mi_ts_has_child_text(c, n, "storage_class_specifier", "static"))
		s->vis = MI_VIS_PRIVATE;
	if (s->kind == MI_KIND_FUNCTION &&
	    (!strcmp(t, "expression_statement") || !strcmp(t, "ERROR"))) {
		TSNode b = ts_node_next_named_sibling(n);
		if (!ts_node_is_null(b) && !strcmp(ts_node_type(b), "compound_statement"))
			stretch_to(c, s, b);
		if (!strcmp(t, "ERROR")) {
			size_t len;
			uint32_t base;
			mi_ts_src(c, &len, &base);
			uint32_t cnt = ts_node_named_child_count(n);
			TSNode last = ts_node_named_child(n, cnt - 1), first = last;
			uint32_t row = ts_node_start_point(last).row;
			for (uint32_t i = cnt - 1; i-- > 0;) {
				TSNode ch = ts_node_named_child(n, i);
				if (ts_node_end_point(ch).row != row || ts_node_is_error(ch) ||
				    !strcmp(ts_node_type(ch), "compound_statement"))
					break;
				first = ch;
			}
			if (ts_node_start_byte(first) + base > s->start_byte) {
				s->start_byte = ts_node_start_byte(first) + base;
				s->start_line = ts_node_start_point(first).row + 1;
			}
			if (s->body_byte > s->start_byte)
				s->sig = folded(c, s->start_byte - base, s->body_byte - base);
			if (!strcmp(ts_node_type(first), "parameter_declaration") && mi_ts_has_child_text(c, first, "storage_class_specifier", "static"))
				s->vis = MI_VIS_PRIVATE;
		}
	}
	if ((s->kind == MI_KIND_STRUCT || s->kind == MI_KIND_UNION || s->kind == MI_KIND_ENUM) &&
	    !strcmp(t, "type_definition") && s->body_byte) {
		/* typedef struct { ... } point: "typedef struct point" */
		size_t len;
		uint32_t base;
		mi_ts_src(c, &len, &base);
		mi_buf b = {0};
		mi_buf_adds(&b, folded(c, s->start_byte - base, s->body_byte - base));
		mi_buf_addc(&b, ' ');
		mi_buf_adds(&b, s->name);
		s->sig = mi_parsed_strndup(mi_ts_parsed(c), b.buf, b.len);
		mi_buf_release(&b);
	}
	if ((s->kind == MI_KIND_STRUCT || s->kind == MI_KIND_UNION || s->kind == MI_KIND_ENUM) &&
	    !s->doc[0]) {
		TSNode par = ts_node_parent(n);
		const char *d = !ts_node_is_null(par) && !strcmp(ts_node_type(par), "type_definition")
					? mi_ts_doc_above(c, par)
					: NULL;
		if (d)
			s->doc = d;
	}
	if (s->kind == MI_KIND_TYPEDEF && (!strcmp(t, "type_identifier"))) {
		/* typedef struct tag { ... } name: "typedef struct tag name" */
		TSNode td = n;
		while (!ts_node_is_null(td) && strcmp(ts_node_type(td), "type_definition"))
			td = ts_node_parent(td);
		if (!ts_node_is_null(td)) {
			TSNode ty = ts_node_child_by_field_name(td, "type", 4);
			TSNode body = ts_node_child_by_field_name(ty, "body", 4);
			if (!ts_node_is_null(ty) && !ts_node_is_null(body)) {
				mi_buf b = {0};
				uint32_t tl;
				const char *tt = mi_ts_text(c, &ty, &tl);
				mi_buf_adds(&b, "typedef ");
				mi_buf_add(&b, tt, ts_node_start_byte(body) - ts_node_start_byte(ty));
				while (b.len && b.buf[b.len - 1] == ' ')
					b.len--;
				mi_buf_addc(&b, ' ');
				if (!strcmp(ts_node_type(ts_node_parent(n)), "pointer_declarator"))
					mi_buf_addc(&b, '*');
				mi_buf_adds(&b, s->name);
				s->sig = mi_parsed_strndup(mi_ts_parsed(c), b.buf, b.len);
				mi_buf_release(&b);
			}
			const char *d = s->doc[0] ? NULL : mi_ts_doc_above(c, td);
			if (d)
				s->doc = d;
		}
	}
}

/* ---- C/C++ prefilter ------------------------------------------------------ */

/* Attribute macros read as nothing, and those followed by (arguments). */
static const char *const c_attr_bare[] = {
	"__init", "__exit", "__initdata", "__exitdata", "__initconst", "__ref",
	"__sched", "__cold", "__hot", "__always_inline", "noinline", "__noinline",
	"__visible", "asmlinkage", "notrace", "__weak", "__must_check",
	"__maybe_unused", "__used", "__noreturn", "__pure", "__latent_entropy",
	"__iomem", "__user", "__kernel", "__rcu", "__percpu", "__force",
	"__read_mostly", "__ro_after_init", "__cpuidle", "noinstr", "__malloc",
	"__meminit", "__net_init", "__net_exit", "__init_or_module", "__kprobes",
	"__irq_entry", "__naked", "__randomize_layout", "__packed",
	"__cacheline_aligned", "__cacheline_aligned_in_smp", "__deprecated",
	"__attribute_const__", "__nocfi", "__flatten", "__no_kcsan",
	"__no_sanitize_address", "__safe", "__private", "__must_hold_rcu",
	"__always_unused", "__mustcheck", "__nonstring", "__designated_init",
	"__FORTIFY_INLINE",
	NULL,
};
static const char *const c_attr_args[] = {
	"__printf", "__scanf", "__alloc_size", "__realloc_size", "__acquires",
	"__releases", "__must_hold", "__section", "__aligned", "__assume_aligned",
	"__cond_acquires", "__cond_releases", "__counted_by", "__compiletime_error",
	"__diagnose_as", "__no_sanitize_or_inline", NULL,
};

static bool c_ident(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_';
}

/* Longest word of both lists: longer words are in neither. */
#define C_ATTR_MAX 26

static bool c_in_list(const char *const *list, const char *w, size_t n)
{
	if (n < 2 || n > C_ATTR_MAX)
		return false;
	for (size_t i = 0; list[i]; i++)
		if (list[i][0] == w[0] && list[i][1] == w[1] && strlen(list[i]) == n &&
		    !memcmp(list[i], w, n))
			return true;
	return false;
}

/*
 * File-level C definitions that the query would need patterns under every
 * kind of #if block for (each such parent costs tens of milliseconds of
 * query compilation, paid by every one-file rebuild): variables, and
 * macro-made functions such as SYSCALL_DEFINE3(read, ...) { ... } (a call
 * statement followed by a block; MI_FIX(c) stretches the span over the
 * block).  Walks the file's top level and its #if/#ifdef/#else/#elif
 * blocks with cursors (children in order, no parent lookups).
 */
enum { C_WALK_MACRO_FN, C_WALK_VAR };

static bool is_preproc_block(const char *t)
{
	return !strcmp(t, "preproc_ifdef") || !strcmp(t, "preproc_if") ||
	       !strcmp(t, "preproc_else") || !strcmp(t, "preproc_elif");
}

/* The name of `NAME(...);`: a call statement's called identifier. */
static bool macro_call_name(TSNode stmt, TSNode *name)
{
	uint32_t n = ts_node_named_child_count(stmt);
	for (uint32_t i = 0; i < n; i++) {
		TSNode ch = ts_node_named_child(stmt, i);
		if (strcmp(ts_node_type(ch), "call_expression"))
			continue;
		TSNode f = ts_node_child_by_field_name(ch, "function", 8);
		if (!ts_node_is_null(f) && !strcmp(ts_node_type(f), "identifier")) {
			*name = f;
			return true;
		}
	}
	return false;
}

static void c_walk_declaration(mi_ts_ctx *c, TSNode decl)
{
	TSTreeCursor cur = ts_tree_cursor_new(decl);
	if (ts_tree_cursor_goto_first_child(&cur)) {
		do {
			const char *f = ts_tree_cursor_current_field_name(&cur);
			if (!f || strcmp(f, "declarator"))
				continue;
			TSNode d = ts_tree_cursor_current_node(&cur);
			const char *t = ts_node_type(d);
			if (!strcmp(t, "init_declarator") || !strcmp(t, "pointer_declarator") ||
			    !strcmp(t, "array_declarator")) {
				/* each declarator of `int a = 1, *b;` is one variable */
				mi_ts_add_def(c, &decl, &d, NULL, MI_KIND_VARIABLE, C_WALK_VAR);
			} else if (!strcmp(t, "identifier")) {
				uint32_t len;
				const char *s = mi_ts_text(c, &d, &len);
				if (len < 2 || s[0] != '_' || s[1] != '_')
					mi_ts_add_def(c, &decl, &d, NULL, MI_KIND_VARIABLE,
						      C_WALK_VAR);
			}
		} while (ts_tree_cursor_goto_next_sibling(&cur));
	}
	ts_tree_cursor_delete(&cur);
}

/* Children of parent: with emit (the file itself, an #if block), its
 * declarations and macro-made functions are definitions; #if blocks and
 * ERROR nodes (the grammar may wrap much of a file in one) are searched for
 * more #if blocks.  Function and struct bodies are not entered: a variable
 * there is local whether or not an #if surrounds it. */
static void c_walk_level(mi_ts_ctx *c, TSNode parent, bool emit, int depth)
{
	TSTreeCursor cur = ts_tree_cursor_new(parent);
	TSNode prev = {{0}, 0, 0}; /* the previous named child */
	if (depth < 256 && ts_tree_cursor_goto_first_child(&cur)) {
		do {
			TSNode n = ts_tree_cursor_current_node(&cur);
			if (!ts_node_is_named(n))
				continue;
			const char *t = ts_node_type(n);
			TSNode name;
			if (is_preproc_block(t))
				c_walk_level(c, n, true, depth + 1);
			else if (!strcmp(t, "ERROR"))
				c_walk_level(c, n, false, depth + 1);
			else if (!emit)
				;
			else if (!strcmp(t, "declaration"))
				c_walk_declaration(c, n);
			else if (!strcmp(t, "compound_statement") && !ts_node_is_null(prev) &&
				 !strcmp(ts_node_type(prev), "expression_statement") &&
				 macro_call_name(prev, &name))
				mi_ts_add_def(c, &prev, &name, &n, MI_KIND_FUNCTION, C_WALK_MACRO_FN);
			prev = n;
		} while (ts_tree_cursor_goto_next_sibling(&cur));
	}
	ts_tree_cursor_delete(&cur);
}

void mi_c_walk(mi_ts_ctx *c, void *root)
{
	c_walk_level(c, *(TSNode *)root, true, 0);
}

static char *c_copy(const char *src, size_t len)
{
	char *out = malloc(len ? len : 1);
	if (out)
		memcpy(out, src, len);
	return out;
}

/* Is src[i, j) a word right after a `}` (blanks between) and right before
 * a `(` (blanks between) whose `)` is on the same line?  *empty: the
 * parentheses hold only blanks, and *close is the `)`. */
static bool c_loop_close(const char *src, size_t len, size_t i, size_t j, bool *empty,
			 size_t *close)
{
	size_t b = i, k = j;
	while (b > 0 && (src[b - 1] == ' ' || src[b - 1] == '\t' || src[b - 1] == '\n'))
		b--;
	if (b == 0 || src[b - 1] != '}')
		return false;
	while (k < len && (src[k] == ' ' || src[k] == '\t'))
		k++;
	if (k >= len || src[k] != '(')
		return false;
	int depth = 0;
	*empty = true;
	for (size_t open = k; k < len && src[k] != '\n'; k++) {
		if (src[k] == '(')
			depth++;
		else if (src[k] == ')' && --depth == 0)
			return *close = k, true;
		if (k > open && src[k] != ' ' && src[k] != '\t')
			*empty = false;
	}
	return false;
}

char *mi_c_prefilter(const char *src, size_t len)
{
	char *out = NULL;
	size_t i = 0;
	bool line_start = true, pp = false;
	while (i < len) {
		char ch = src[i];
		if (ch == '\n') {
			/* a preprocessor line goes on after a backslash */
			if (!(pp && i > 0 && src[i - 1] == '\\'))
				pp = false;
			line_start = true;
			i++;
			continue;
		}
		if (line_start && ch == '#')
			pp = true;
		if (ch != ' ' && ch != '\t')
			line_start = false;
		if (ch == '/' && i + 1 < len && src[i + 1] == '*') {
			const char *e = memmem(src + i + 2, len - i - 2, "*/", 2);
			i = e ? (size_t)(e - src) + 2 : len;
			continue;
		}
		if (ch == '/' && i + 1 < len && src[i + 1] == '/') {
			while (i < len && src[i] != '\n')
				i++;
			continue;
		}
		if (ch == '"' || ch == '\'') {
			size_t j = i + 1;
			while (j < len && src[j] != ch && src[j] != '\n')
				j += src[j] == '\\' ? 2 : 1;
			i = j + 1;
			continue;
		}
		if (!c_ident(ch) || (i > 0 && c_ident(src[i - 1]))) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < len && c_ident(src[j]))
			j++;
		size_t end = 0;
		bool empty;
		size_t close;
		if (!pp && j - i > 6 && !memcmp(src + i, "while_", 6) &&
		    c_loop_close(src, len, i, j, &empty, &close)) {
			/* `} while_each_thread(p, t);` closes a do block with a
			 * macro the grammar cannot read: its recovery then takes
			 * the rest of the file into the function.  Read it as
			 * `} while (p, t);`, or `} while(0);` for no arguments. */
			if (!out && !(out = c_copy(src, len)))
				return NULL;
			if (empty) {   /* the word is over 6 bytes: room for it */
				memset(out + i, ' ', close + 1 - i);
				memcpy(out + i, "while(0)", 8);
			} else {
				memset(out + i, ' ', j - i);
				memcpy(out + i, "while", 5);
			}
			i = j;
			continue;
		}
		if (!pp && (src[i] == '_' || src[i] == 'a' || src[i] == 'n')) {
			if (c_in_list(c_attr_bare, src + i, j - i)) {
				end = j;
			} else if (c_in_list(c_attr_args, src + i, j - i)) {
				size_t k = j;
				while (k < len && (src[k] == ' ' || src[k] == '\t'))
					k++;
				if (k < len && src[k] == '(') {
					int depth = 0;
					for (; k < len; k++) {
						if (src[k] == '(')
							depth++;
						else if (src[k] == ')' && --depth == 0)
							break;
					}
					if (k < len)
						end = k + 1;
				}
			}
		}
		if (end) {
			if (!out && !(out = c_copy(src, len)))
				return NULL;
			for (size_t k = i; k < end; k++)
				if (out[k] != '\n')
					out[k] = ' ';
		}
		i = end ? end : j;
	}
	return out;
}

const TSLanguage *tree_sitter_c(void);
extern const char mi_query_src_c[];

const mi_lang_row mi_lang_c = {
	.id = MI_LANG_C,
	.name = "c",
	.exts = " .c .h ",
	.ts = tree_sitter_c,
	.query = mi_query_src_c,
	.fix = mi_fix_c,
	.prefilter = mi_c_prefilter,
	.walk = mi_c_walk,
	.extract = mi_c_extract,
};
