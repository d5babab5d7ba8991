/*
 * kotlin.c - Kotlin: private and protected are private; the default is public.
 */
#include "lang_int.h"

#include <string.h>

/* ---- Kotlin -------------------------------------------------------------------- */

/* A property: `<modifiers> val <name>: <type> = <short value>`. */
static void kotlin_property(mi_ts_ctx *c, TSNode n, mi_symbol *s)
{
	TSNode var = {{0}, 0, 0};
	uint32_t k = ts_node_child_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_child(n, i);
		if (mi_ts_type_is(ch, "variable_declaration")) {
			var = ch;
		} else if (!ts_node_is_null(var) && !ts_node_is_named(ch) && mi_ts_text_is(c, ch, "=")) {
			TSNode v = ts_node_next_named_sibling(ch);
			uint32_t end = ts_node_end_byte(var);
			if (!ts_node_is_null(v)) {
				uint32_t vl;
				const char *t = mi_ts_text(c, &v, &vl);
				if (vl <= MI_SIG_VALUE_MAX && !memchr(t, '\n', vl))
					end = ts_node_end_byte(v);
			}
			mi_ts_set_sig(c, s, ts_node_start_byte(n), end);
			return;
		}
	}
	if (!ts_node_is_null(var))
		mi_ts_set_sig(c, s, ts_node_start_byte(n), ts_node_end_byte(var));
}

MI_FIX(kotlin)
{
	TSNode n = *(TSNode *)def_node;
	const char *t = ts_node_type(n);
	if (!strcmp(t, "property_declaration")) {
		kotlin_property(c, n, s);
		if (mi_ts_modifier_in(c, n, "const", false))
			s->kind = MI_KIND_CONSTANT;
		for (uint32_t i = 0; i < ts_node_child_count(n); i++)
			if (!ts_node_is_named(ts_node_child(n, i))) {
				TSNode kw = ts_node_child(n, i);
				if (s->kind == MI_KIND_VARIABLE && mi_ts_text_is(c, kw, "val"))
					s->kind = MI_KIND_CONSTANT;
				break;
			}
	} else if (!strcmp(t, "function_declaration")) {
		/* members of an enum entry's body are methods too */
		if (mi_ts_type_is(ts_node_parent(n), "class_body"))
			s->kind = MI_KIND_METHOD;
		mi_ts_trim_sig(c, s);
	} else if (!strcmp(t, "companion_object") &&
		   ts_node_is_null(ts_node_child_by_field_name(n, "name", 4))) {
		s->name = "Companion";
		mi_ts_trim_sig(c, s);
	} else {
		mi_ts_trim_sig(c, s);
	}
	if (mi_ts_modifier_in(c, n, "private", false) || mi_ts_modifier_in(c, n, "protected", false))
		s->vis = MI_VIS_PRIVATE;
	TSNode up = ts_node_parent(n);
	if (mi_ts_type_is(up, "class_body") && mi_ts_type_is(ts_node_parent(up), "companion_object"))
		s->flags |= MI_SYMF_STATIC;
}

const TSLanguage *tree_sitter_kotlin(void);
extern const char mi_query_src_kotlin[];

const mi_lang_row mi_lang_kotlin = {
	.id = MI_LANG_KOTLIN,
	.name = "kotlin",
	.exts = " .kt .kts ",
	.ts = tree_sitter_kotlin,
	.query = mi_query_src_kotlin,
	.fix = mi_fix_kotlin,
};
