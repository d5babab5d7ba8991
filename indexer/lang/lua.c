/*
 * lua.c - Lua: a function declared as M.f or M:m belongs to M (its parent
 * in the qualified name); `local` functions and variables are private;
 * LuaDoc comments (--- text) lose their third dash.
 */
#include "lang_int.h"

#include <string.h>

MI_FIX(lua)
{
	TSNode n = *(TSNode *)def_node;
	TSNode name = ts_node_child_by_field_name(n, "name", 4);
	if (!strcmp(ts_node_type(n), "assignment_statement")) {
		TSNode vl = ts_node_named_child(n, 0);
		name = ts_node_is_null(vl) ? vl : ts_node_child_by_field_name(vl, "name", 4);
		if (!mi_ts_type_is(name, "dot_index_expression"))
			name = (TSNode){0};
	}
	if (!ts_node_is_null(name) && (!strcmp(ts_node_type(n), "function_declaration") ||
				       !strcmp(ts_node_type(n), "assignment_statement"))) {
		TSNode table = ts_node_child_by_field_name(name, "table", 5);
		if (!ts_node_is_null(table) && !s->parent[0]) {
			uint32_t tl;
			const char *t = mi_ts_text(c, &table, &tl);
			s->parent = mi_parsed_strndup(mi_ts_parsed(c), t, tl);
		}
	}
	TSNode first = ts_node_child(n, 0);
	if (!ts_node_is_null(first) && !strcmp(ts_node_type(first), "local"))
		s->vis = MI_VIS_PRIVATE;
	if (!strcmp(ts_node_type(n), "variable_declaration"))
		s->vis = MI_VIS_PRIVATE;
	if (s->doc[0] == '-') {
		const char *d = s->doc;
		while (*d == '-')
			d++;
		while (*d == ' ')
			d++;
		s->doc = d;
	}
}

const TSLanguage *tree_sitter_lua(void);
extern const char mi_query_src_lua[];

const mi_lang_row mi_lang_lua = {
	.id = MI_LANG_LUA,
	.name = "lua",
	.exts = " .lua ",
	.ts = tree_sitter_lua,
	.query = mi_query_src_lua,
	.fix = mi_fix_lua,
};
