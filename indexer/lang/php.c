/*
 * php.c - PHP: private and protected members are private; the default is public.
 */
#include "lang_int.h"

#include <ctype.h>
#include <string.h>

/* ---- PHP ----------------------------------------------------------------------- */

MI_FIX(php)
{
	TSNode n = *(TSNode *)def_node;
	TSNode owner = n;
	const char *t = ts_node_type(n);
	if (!strcmp(t, "property_declaration") || !strcmp(t, "property_element"))
		owner = mi_ts_split_declarators(c, n, s, "property_element", NULL);
	else if (!strcmp(t, "const_declaration") || !strcmp(t, "const_element"))
		owner = mi_ts_split_declarators(c, n, s, "const_element", NULL);
	else
		mi_ts_trim_sig(c, s);
	if (!strcmp(t, "function_definition"))
		s->kind = MI_KIND_FUNCTION; /* in a namespace, still a function */
	if (!strcmp(t, "property_promotion_parameter") && s->parent_idx >= 0) {
		/* a promoted constructor parameter is a property of the class */
		mi_parsed *p = mi_ts_parsed(c);
		const mi_symbol *ctor = &p->syms[s->parent_idx];
		s->parent_idx = ctor->parent_idx;
		s->parent = ctor->parent;
		s->level = ctor->level;
	}
	if (!strcmp(t, "namespace_definition") &&
	    ts_node_is_null(ts_node_child_by_field_name(n, "body", 4))) {
		/* `namespace X;` holds what follows, up to the next namespace */
		size_t len;
		uint32_t base;
		const char *src = mi_ts_src(c, &len, &base);
		uint32_t end = (uint32_t)len;
		for (TSNode x = ts_node_next_named_sibling(n); !ts_node_is_null(x);
		     x = ts_node_next_named_sibling(x))
			if (mi_ts_type_is(x, "namespace_definition")) {
				end = ts_node_start_byte(x);
				break;
			}
		while (end > ts_node_end_byte(n) && isspace((unsigned char)src[end - 1]))
			end--;
		s->end_byte = end + base;
		s->end_line = mi_count_lines(src, end);
	}
	if (mi_ts_has_modifier(c, owner, "private") || mi_ts_has_modifier(c, owner, "protected"))
		s->vis = MI_VIS_PRIVATE;
	if (mi_ts_has_modifier(c, owner, "static") || s->kind == MI_KIND_CONSTANT)
		s->flags |= MI_SYMF_STATIC;
}

const TSLanguage *tree_sitter_php(void);
extern const char mi_query_src_php[];

const mi_lang_row mi_lang_php = {
	.id = MI_LANG_PHP,
	.name = "php",
	.exts = " .php .phtml ",
	.ts = tree_sitter_php,
	.query = mi_query_src_php,
	.fix = mi_fix_php,
};
