/*
 * java.c - Java: private and protected members are private; package-private
 * (no modifier) counts as public, as do interface members.
 */
#include "lang_int.h"

#include <string.h>

/* ---- Java ----------------------------------------------------------------- */

MI_FIX(java)
{
	TSNode n = *(TSNode *)def_node;
	TSNode owner = n;
	if (s->kind == MI_KIND_FIELD || s->kind == MI_KIND_CONSTANT)
		owner = mi_ts_split_declarators(c, n, s, "variable_declarator", NULL);
	else
		mi_ts_trim_sig(c, s);
	if (mi_ts_has_modifier(c, owner, "private") || mi_ts_has_modifier(c, owner, "protected"))
		s->vis = MI_VIS_PRIVATE;
	if (mi_ts_has_modifier(c, owner, "static") || s->kind == MI_KIND_CONSTANT)
		s->flags |= MI_SYMF_STATIC;
	if (s->kind == MI_KIND_FIELD && mi_ts_has_modifier(c, owner, "static") &&
	    mi_ts_has_modifier(c, owner, "final"))
		s->kind = MI_KIND_CONSTANT;
}

const TSLanguage *tree_sitter_java(void);
extern const char mi_query_src_java[];

const mi_lang_row mi_lang_java = {
	.id = MI_LANG_JAVA,
	.name = "java",
	.exts = " .java ",
	.ts = tree_sitter_java,
	.query = mi_query_src_java,
	.fix = mi_fix_java,
};
