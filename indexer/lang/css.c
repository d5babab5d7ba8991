/*
 * css.c - CSS: rule sets named by their selectors, @media/@supports/
 * @keyframes blocks holding their rules, custom properties (--name) as
 * variables, @import as an import.
 */
#include "lang_int.h"

#include <string.h>

/* An at-rule without a name of its own is named by its header: the text
 * from '@' to its block, white space folded ("@media (max-width: 600px)"). */
MI_FIX(css)
{
	TSNode n = *(TSNode *)def_node;
	const char *t = ts_node_type(n);
	if (strcmp(t, "media_statement") && strcmp(t, "supports_statement"))
		return;
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
