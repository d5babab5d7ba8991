/*
 * lang_a.c - language rules (visibility, kind corrections) for C, C++,
 * Python, Go, Rust, JavaScript, TypeScript/TSX and Bash.
 */
#include "indexer_int.h"

#include <string.h>
#include <tree_sitter/api.h>

/* true if a direct child of node has type `type` and text `text`. */
static bool has_child_text(mi_ts_ctx *c, TSNode node, const char *type, const char *text)
{
	uint32_t n = ts_node_child_count(node);
	for (uint32_t i = 0; i < n; i++) {
		TSNode ch = ts_node_child(node, i);
		if (strcmp(ts_node_type(ch), type))
			continue;
		uint32_t tl;
		const char *t = mi_ts_text(c, &ch, &tl);
		if (tl == strlen(text) && !memcmp(t, text, tl))
			return true;
	}
	return false;
}

/* C: `static` at file scope means private to the file. */
MI_FIX(c)
{
	TSNode n = *(TSNode *)def_node;
	if (has_child_text(c, n, "storage_class_specifier", "static"))
		s->vis = MI_VIS_PRIVATE;
}

MI_FIX(cpp)
{
	mi_fix_c(c, def_node, s);
}

/* Python: a leading underscore is private, dunder names are public. */
MI_FIX(python)
{
	size_t n = strlen(s->name);
	if (s->name[0] == '_' && !(n > 4 && s->name[1] == '_' &&
				   s->name[n - 1] == '_' && s->name[n - 2] == '_'))
		s->vis = MI_VIS_PRIVATE;
}

/* Go: exported names start with a capital letter. */
MI_FIX(go)
{
	if (!(s->name[0] >= 'A' && s->name[0] <= 'Z'))
		s->vis = MI_VIS_PRIVATE;
}

MI_FIX(rust) { (void)c; (void)def_node; (void)s; }
MI_FIX(javascript) { (void)c; (void)def_node; (void)s; }
MI_FIX(typescript) { (void)c; (void)def_node; (void)s; }
MI_FIX(bash) { (void)c; (void)def_node; (void)s; }
