/*
 * ruby.c - Ruby: methods after a bare `private`/`protected` in a class or module
 * body, or named by `private :name` / `private def`, are private.
 */
#include "lang_int.h"

#include <ctype.h>
#include <string.h>

/* ---- Ruby ---------------------------------------------------------------------- */

/* The name of a call statement: `private` in `private :x` or `private`. */
static bool ruby_call_named(mi_ts_ctx *c, TSNode n, const char *name)
{
	if (mi_ts_type_is(n, "identifier"))
		return mi_ts_text_is(c, n, name);
	if (!mi_ts_type_is(n, "call") || !ts_node_is_null(ts_node_child_by_field_name(n, "receiver", 8)))
		return false;
	TSNode m = ts_node_child_by_field_name(n, "method", 6);
	return !ts_node_is_null(m) && mi_ts_text_is(c, m, name);
}

/* true if a later `private :name` (or private_class_method) in the body
 * names this method. */
static bool ruby_named_private(mi_ts_ctx *c, TSNode stmt, const char *name, bool singleton)
{
	for (TSNode x = ts_node_next_named_sibling(stmt); !ts_node_is_null(x);
	     x = ts_node_next_named_sibling(x)) {
		if (!ruby_call_named(c, x, singleton ? "private_class_method" : "private") &&
		    !(!singleton && ruby_call_named(c, x, "protected")))
			continue;
		TSNode args = ts_node_child_by_field_name(x, "arguments", 9);
		uint32_t k = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
		for (uint32_t i = 0; i < k; i++) {
			TSNode a = ts_node_named_child(args, i);
			uint32_t tl;
			const char *t = mi_ts_text(c, &a, &tl);
			if (mi_ts_type_is(a, "simple_symbol") && tl == strlen(name) + 1 &&
			    !memcmp(t + 1, name, tl - 1))
				return true;
		}
	}
	return false;
}

/* Comment lines right above stmt; the first statement of a class body
 * has them just before the body.  "" when there are none. */
static const char *ruby_doc(mi_ts_ctx *c, TSNode stmt)
{
	TSNode prev = ts_node_prev_sibling(stmt);
	TSNode up = ts_node_parent(stmt);
	if (ts_node_is_null(prev) && mi_ts_type_is(up, "body_statement"))
		prev = ts_node_prev_sibling(up);
	uint32_t want = ts_node_start_point(stmt).row;
	TSNode first = {{0}, 0, 0};
	while (!ts_node_is_null(prev) && mi_ts_type_is(prev, "comment") &&
	       ts_node_end_point(prev).row + 1 >= want) {
		first = prev;
		want = ts_node_start_point(prev).row;
		prev = ts_node_prev_sibling(prev);
	}
	if (ts_node_is_null(first))
		return "";
	mi_buf o = {0};
	for (TSNode x = first; !ts_node_is_null(x) && mi_ts_type_is(x, "comment");
	     x = ts_node_next_sibling(x)) {
		uint32_t tl;
		const char *t = mi_ts_text(c, &x, &tl);
		while (tl && *t == '#') {
			t++;
			tl--;
		}
		while (tl && (*t == ' ' || *t == '\t')) {
			t++;
			tl--;
		}
		while (tl && isspace((unsigned char)t[tl - 1]))
			tl--;
		if (tl) {
			if (o.len)
				mi_buf_addc(&o, '\n');
			mi_buf_add(&o, t, tl);
		}
	}
	const char *r = mi_parsed_strndup(mi_ts_parsed(c), o.len ? o.buf : "", o.len);
	mi_buf_release(&o);
	return r;
}

MI_FIX(ruby)
{
	TSNode n = *(TSNode *)def_node;
	TSNode stmt = n;
	const char *t = ts_node_type(n);
	uint32_t base;
	if (mi_ts_type_is(n, "simple_symbol")) {
		/* attr_reader :name -> field "name", signature "attr_reader :name" */
		TSNode call = ts_node_parent(ts_node_parent(n));
		TSNode m = ts_node_child_by_field_name(call, "method", 6);
		if (s->name[0] == ':')
			s->name++;
		if (!ts_node_is_null(m)) {
			size_t l;
			mi_buf o = {0};
			mi_ts_src(c, &l, &base);
			mi_ts_add_folded(c, &o, ts_node_start_byte(m), ts_node_end_byte(m));
			mi_ts_add_folded(c, &o, ts_node_start_byte(n), ts_node_end_byte(n));
			s->sig = mi_parsed_strndup(mi_ts_parsed(c), o.buf, o.len);
			mi_buf_release(&o);
			stmt = call;
		}
	} else if (!strcmp(t, "method") || !strcmp(t, "singleton_method")) {
		/* the header: `def name(params)`, never the body of an endless def */
		TSNode end = ts_node_child_by_field_name(n, "parameters", 10);
		if (ts_node_is_null(end))
			end = ts_node_child_by_field_name(n, "name", 4);
		if (!ts_node_is_null(end))
			mi_ts_set_sig(c, s, ts_node_start_byte(n), ts_node_end_byte(end));
	} else if (s->kind == MI_KIND_CLASS || s->kind == MI_KIND_MODULE) {
		/* the header: `class Name < Super`, not comments inside */
		TSNode end = ts_node_child_by_field_name(n, "superclass", 10);
		if (ts_node_is_null(end))
			end = ts_node_child_by_field_name(n, "name", 4);
		for (uint32_t i = 0; ts_node_is_null(end) && i < ts_node_named_child_count(n); i++)
			if (mi_ts_type_is(ts_node_named_child(n, i), "constant"))
				end = ts_node_named_child(n, i);
		if (!ts_node_is_null(end))
			mi_ts_set_sig(c, s, ts_node_start_byte(n), ts_node_end_byte(end));
	}
	if (!s->doc[0])
		s->doc = ruby_doc(c, stmt);
	if (!strcmp(t, "singleton_method"))
		s->flags |= MI_SYMF_STATIC;
	/* `private def x` */
	TSNode up = ts_node_parent(stmt);
	if (mi_ts_type_is(up, "argument_list") && ruby_call_named(c, ts_node_parent(up), "private")) {
		s->vis = MI_VIS_PRIVATE;
		return;
	}
	if (ts_node_is_null(up) || !mi_ts_type_is(up, "body_statement"))
		return;
	TSNode holder = ts_node_parent(up);
	if (mi_ts_type_is(holder, "singleton_class"))
		s->flags |= MI_SYMF_STATIC;
	if (!mi_ts_type_is(holder, "class") && !mi_ts_type_is(holder, "module") && !mi_ts_type_is(holder, "singleton_class"))
		return;
	if (s->kind == MI_KIND_CLASS || s->kind == MI_KIND_MODULE || s->kind == MI_KIND_CONSTANT)
		return;
	/* the nearest bare `private` / `protected` / `public` above */
	for (TSNode x = ts_node_prev_named_sibling(stmt); !ts_node_is_null(x);
	     x = ts_node_prev_named_sibling(x)) {
		if (!mi_ts_type_is(x, "identifier"))
			continue;
		if (mi_ts_text_is(c, x, "private") || mi_ts_text_is(c, x, "protected")) {
			if (strcmp(t, "singleton_method"))
				s->vis = MI_VIS_PRIVATE;
			break;
		}
		if (mi_ts_text_is(c, x, "public"))
			break;
		if (mi_ts_text_is(c, x, "module_function")) {
			s->flags |= MI_SYMF_STATIC;
			break;
		}
	}
	if (ruby_named_private(c, stmt, s->name, !strcmp(t, "singleton_method")))
		s->vis = MI_VIS_PRIVATE;
}

const TSLanguage *tree_sitter_ruby(void);
extern const char mi_query_src_ruby[];

const mi_lang_row mi_lang_ruby = {
	.id = MI_LANG_RUBY,
	.name = "ruby",
	.exts = " .rb .rake .gemspec ",
	.filenames = " Rakefile Gemfile ",
	.ts = tree_sitter_ruby,
	.query = mi_query_src_ruby,
	.fix = mi_fix_ruby,
};
