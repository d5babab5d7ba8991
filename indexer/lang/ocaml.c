/*
 * ocaml.c - OCaml: `let f x = ...`, `let f = fun ...` and externals are
 * functions (local `let ... in` ones too, under the function holding
 * them; a module's are functions, not methods), other file-level and
 * module-level lets values; modules, module types, classes, types with
 * their constructors and fields, exceptions.  Signatures stop before the
 * `=` of a binding; a name starting with '_' is private; doc comments are
 * the (** ... *) above.  Interfaces (.mli, ocaml_interface.c) share these
 * rules: a `val` is a function when its type is a function's, and a doc
 * comment right after an item is its doc before one above, as ocamldoc
 * reads them.
 */
#include "lang_int.h"

#include <string.h>

/* Signature [a, start of body) with the blanks and the sep (`=`; an
 * interface's module type: `:`) before the body dropped; the whole node
 * when it has no body. */
static void sig_to_body(mi_ts_ctx *c, mi_symbol *s, TSNode n, uint32_t a, TSNode body, char sep)
{
	uint32_t b = ts_node_end_byte(n);
	if (!ts_node_is_null(body) && ts_node_start_byte(body) > a) {
		size_t len;
		uint32_t base;
		const char *src = mi_ts_src(c, &len, &base);
		b = ts_node_start_byte(body);
		while (b > a && (src[b - 1] == ' ' || src[b - 1] == '\n' || src[b - 1] == '\t'))
			b--;
		if (b > a && src[b - 1] == sep)
			b--;
	}
	mi_ts_set_sig(c, s, a, b);
}

/* The first named child of n of type `type`, or a null node. */
static TSNode child_of_type(TSNode n, const char *type)
{
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k; i++)
		if (mi_ts_type_is(ts_node_named_child(n, i), type))
			return ts_node_named_child(n, i);
	return (TSNode){0};
}

/* Doc from the comment node cm: (** text *) with its markers and the
 * blanks around the text dropped; NULL when cm is not a comment. */
static const char *doc_of(mi_ts_ctx *c, TSNode cm)
{
	if (!mi_ts_type_is(cm, "comment"))
		return NULL;
	uint32_t n;
	const char *d = mi_ts_text(c, &cm, &n);
	if (n < 4 || memcmp(d, "(*", 2) || memcmp(d + n - 2, "*)", 2))
		return NULL;
	d += 2, n -= 4;
	while (n && *d == '*')
		d++, n--;
	while (n && (*d == ' ' || *d == '\n' || *d == '\t'))
		d++, n--;
	while (n && (d[n - 1] == ' ' || d[n - 1] == '\n' || d[n - 1] == '\t' || d[n - 1] == '*'))
		n--;
	return mi_parsed_strndup(mi_ts_parsed(c), d, n);
}

/* In an interface, the special comment (** ... *) right after item n (no
 * blank line between) is its doc; NULL when there is none. */
static const char *doc_after(mi_ts_ctx *c, TSNode n)
{
	TSNode below = ts_node_next_named_sibling(n);
	if (ts_node_is_null(below) || !mi_ts_type_is(below, "comment") ||
	    ts_node_start_point(below).row > ts_node_end_point(n).row + 1)
		return NULL;
	uint32_t len;
	const char *d = mi_ts_text(c, &below, &len);
	return len >= 5 && !memcmp(d, "(**", 3) && d[3] != '*' ? doc_of(c, below) : NULL;
}

/* An interface's comment cm above an item belongs to the item before it
 * when it follows that one with no blank line, and is the module's own when
 * it opens the file (ocamldoc's rules). */
static bool doc_taken(TSNode cm)
{
	TSNode prev = ts_node_prev_named_sibling(cm);
	if (ts_node_is_null(prev))
		return mi_ts_type_is(ts_node_parent(cm), "compilation_unit");
	return !mi_ts_type_is(prev, "comment") &&
	       ts_node_start_point(cm).row <= ts_node_end_point(prev).row + 1;
}

/* A `val`'s type is a function's (`'a. 'a -> 'a` too). */
static bool val_is_function(TSNode n)
{
	TSNode ty = ts_node_child_by_field_name(n, "type", 4);
	while (!ts_node_is_null(ty) && mi_ts_type_is(ty, "polymorphic_type"))
		ty = ts_node_named_child(ty, ts_node_named_child_count(ty) - 1);
	return !ts_node_is_null(ty) && mi_ts_type_is(ty, "function_type");
}

void mi_fix_ocaml(mi_ts_ctx *c, void *def_node, mi_symbol *s)
{
	TSNode n = *(TSNode *)def_node;
	const char *t = ts_node_type(n);
	bool intf = mi_ts_parsed(c)->lang == MI_LANG_OCAML_INTERFACE;
	if (s->name[0] == '_')
		s->vis = MI_VIS_PRIVATE;
	/* a let's doc sits above its `let`, the parent of the binding */
	TSNode above = ts_node_prev_named_sibling(!strcmp(t, "let_binding") ? ts_node_parent(n) : n);
	const char *doc = intf ? doc_after(c, n) : NULL;
	if (doc)
		s->doc = doc;
	else if ((doc = doc_of(c, above)) &&
		 ts_node_end_point(above).row + 1 >= ts_node_start_point(n).row &&
		 !(intf && doc_taken(above)))
		s->doc = doc;
	else if (s->doc[0] == '(' && s->doc[1] == '*')
		s->doc = "";
	/* a module's (or module type's) functions are functions, not methods */
	mi_parsed *p = mi_ts_parsed(c);
	if (s->kind == MI_KIND_METHOD && strncmp(t, "method_", 7) && s->parent_idx >= 0 &&
	    (p->syms[s->parent_idx].kind == MI_KIND_MODULE ||
	     p->syms[s->parent_idx].kind == MI_KIND_TRAIT))
		s->kind = MI_KIND_FUNCTION;
	if (!strcmp(t, "value_specification")) {
		if (!val_is_function(n))
			s->kind = MI_KIND_VARIABLE;
		return;
	}
	if (intf && (!strcmp(t, "class_definition") || !strcmp(t, "class_type_definition"))) {
		/* `class c : int -> object ... end` is shown as far as its `object` */
		TSNode b = ts_node_named_child(n, 0), body = b;
		while (!ts_node_is_null(body) && !mi_ts_type_is(body, "class_body_type"))
			body = ts_node_named_child(body, ts_node_named_child_count(body) - 1);
		if (!ts_node_is_null(body)) {
			size_t len;
			uint32_t base, e = ts_node_start_byte(body);
			const char *src = mi_ts_src(c, &len, &base);
			if (ts_node_end_byte(body) >= e + 6 && !memcmp(src + e, "object", 6))
				e += 6;
			mi_ts_set_sig(c, s, ts_node_start_byte(n), e);
		}
		return;
	}
	if (intf && !strcmp(t, "module_definition")) {
		/* `module M : sig ... end` is shown as `module M` */
		TSNode b = child_of_type(n, "module_binding");
		TSNode mt = ts_node_is_null(b) ? b : ts_node_child_by_field_name(b, "module_type", 11);
		if (!ts_node_is_null(mt) && mi_ts_type_is(mt, "signature"))
			sig_to_body(c, s, n, ts_node_start_byte(n), mt, ':');
		return;
	}
	if (!strcmp(t, "method_definition")) {
		sig_to_body(c, s, n, ts_node_start_byte(n), ts_node_child_by_field_name(n, "body", 4), '=');
		return;
	}
	if (!strcmp(t, "let_binding")) {
		/* from the keyword before the binding: let, let rec or and */
		uint32_t a = ts_node_start_byte(n);
		for (TSNode prev = ts_node_prev_sibling(n);
		     !ts_node_is_null(prev) && !ts_node_is_named(prev);
		     prev = ts_node_prev_sibling(prev))
			a = ts_node_start_byte(prev);
		sig_to_body(c, s, n, a, ts_node_child_by_field_name(n, "body", 4), '=');
		return;
	}
	static const struct { const char *def, *binding; } heads[] = {
		{ "type_definition", "type_binding" },
		{ "module_definition", "module_binding" },
		{ "class_definition", "class_binding" },
		{ "module_type_definition", NULL },
	};
	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		if (strcmp(t, heads[i].def))
			continue;
		TSNode b = heads[i].binding ? child_of_type(n, heads[i].binding) : n;
		if (ts_node_is_null(b))
			return;
		TSNode body = ts_node_child_by_field_name(b, "body", 4);
		if (ts_node_is_null(body))
			body = ts_node_child_by_field_name(b, "equation", 8);
		sig_to_body(c, s, n, ts_node_start_byte(n), body, '=');
		return;
	}
}

const TSLanguage *tree_sitter_ocaml(void);
extern const char mi_query_src_ocaml[];

const mi_lang_row mi_lang_ocaml = {
	.id = MI_LANG_OCAML,
	.name = "ocaml",
	.exts = " .ml ",
	.ts = tree_sitter_ocaml,
	.query = mi_query_src_ocaml,
	.fix = mi_fix_ocaml,
};
