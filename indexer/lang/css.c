/*
 * css.c - CSS: selectors, their properties, media blocks, keyframes.
 */
#include "lang_int.h"

#include <string.h>

/* A declaration's signature drops its ';'; a media or supports block is
 * named by its signature ("@media (max-width: 600px)"). */
MI_FIX(css)
{
	TSNode n = *(TSNode *)def_node;
	s->vis = MI_VIS_PUBLIC;
	const char *t = ts_node_type(n);
	if (!strcmp(t, "declaration"))
		mi_ts_trim_sig(c, s);
	else if (!strcmp(t, "media_statement") || !strcmp(t, "supports_statement"))
		s->name = s->sig;
}

const TSLanguage *tree_sitter_css(void);
extern const char mi_query_src_css[];

const mi_lang_row mi_lang_css = {
	.id = MI_LANG_CSS,
	.name = "css",
	.exts = " .css ",
	.ts = tree_sitter_css,
	.query = mi_query_src_css,
	.fix = mi_fix_css,
};
