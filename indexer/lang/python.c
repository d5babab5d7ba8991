/*
 * python.c - Python: underscore visibility, async, tests, static methods.
 */
#include "lang_int.h"

#include <string.h>

/* Python: a leading underscore is private, dunder names are public.
 * async def is flagged async, test_* functions and Test* classes' methods
 * are tests. */
MI_FIX(python)
{
	TSNode n = *(TSNode *)def_node;
	if (!strcmp(ts_node_type(n), "decorated_definition")) {
		TSNode d = ts_node_child_by_field_name(n, "definition", 10);
		if (!ts_node_is_null(d))
			n = d;
	}
	size_t len = strlen(s->name);
	if (s->name[0] == '_' && !(len > 4 && s->name[1] == '_' &&
				   s->name[len - 1] == '_' && s->name[len - 2] == '_'))
		s->vis = MI_VIS_PRIVATE;
	if (!strcmp(ts_node_type(n), "function_definition")) {
		TSNode first = ts_node_child(n, 0);
		if (!ts_node_is_null(first) && !strcmp(ts_node_type(first), "async"))
			s->flags |= MI_SYMF_ASYNC;
		if (!strncmp(s->name, "test", 4))
			s->flags |= MI_SYMF_TEST;
		TSNode up = *(TSNode *)def_node;
		if (!strcmp(ts_node_type(up), "decorated_definition")) {
			uint32_t k = ts_node_named_child_count(up);
			for (uint32_t i = 0; i < k; i++) {
				TSNode d = ts_node_named_child(up, i);
				uint32_t tl;
				const char *t = mi_ts_text(c, &d, &tl);
				if (!strcmp(ts_node_type(d), "decorator") &&
				    ((tl == 13 && !memcmp(t, "@staticmethod", 13)) ||
				     (tl == 12 && !memcmp(t, "@classmethod", 12))))
					s->flags |= MI_SYMF_STATIC;
			}
		}
	}
}

const TSLanguage *tree_sitter_python(void);
extern const char mi_query_src_python[];

const mi_lang_row mi_lang_python = {
	.id = MI_LANG_PYTHON,
	.name = "python",
	.exts = " .py .pyi .pyw ",
	.ts = tree_sitter_python,
	.query = mi_query_src_python,
	.fix = mi_fix_python,
};
