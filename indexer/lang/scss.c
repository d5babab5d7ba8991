/*
 * scss.c - SCSS: nested rule sets named by their selectors, mixins,
 * functions, top-level $variables and custom properties; @include calls
 * the mixin; @use, @forward and @import are imports.
 */
#include "lang_int.h"

#include <string.h>

MI_FIX(scss)
{
	TSNode n = *(TSNode *)def_node;
	if (!strcmp(ts_node_type(n), "media_statement"))
		s->name = s->sig;
}

const TSLanguage *tree_sitter_scss(void);
extern const char mi_query_src_scss[];

const mi_lang_row mi_lang_scss = {
	.id = MI_LANG_SCSS,
	.name = "scss",
	.exts = " .scss ",
	.ts = tree_sitter_scss,
	.query = mi_query_src_scss,
	.fix = mi_fix_scss,
};
