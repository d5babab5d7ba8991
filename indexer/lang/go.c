/*
 * go.c - Go: capitalised names are exported, methods under their receiver.
 */
#include "lang_int.h"

#include <string.h>

/*
 * Go: exported names start with a capital letter.  A method's parent is its
 * receiver's type (func (u *User) Login() is User.Login).  A type, const or
 * var alone in its declaration takes the doc comment above the declaration;
 * a type's signature starts with "type".  TestXxx/BenchmarkXxx are tests.
 */
MI_FIX(go)
{
	TSNode n = *(TSNode *)def_node;
	const char *t = ts_node_type(n);
	if (!(s->name[0] >= 'A' && s->name[0] <= 'Z'))
		s->vis = MI_VIS_PRIVATE;
	if (!strcmp(t, "method_declaration") && !s->parent[0]) {
		TSNode recv = ts_node_child_by_field_name(n, "receiver", 8);
		TSNode ty = ts_node_is_null(recv) ? recv : mi_ts_find_desc(recv, "type_identifier", 4);
		if (!ts_node_is_null(ty)) {
			uint32_t tl;
			const char *tt = mi_ts_text(c, &ty, &tl);
			s->parent = mi_parsed_strndup(mi_ts_parsed(c), tt, tl);
		}
	}
	if (!strcmp(t, "function_declaration") &&
	    (!strncmp(s->name, "Test", 4) || !strncmp(s->name, "Benchmark", 9) ||
	     !strncmp(s->name, "Fuzz", 4) || !strncmp(s->name, "Example", 7)))
		s->flags |= MI_SYMF_TEST;
	if (!strcmp(t, "type_spec") || !strcmp(t, "type_alias") ||
	    !strcmp(t, "const_spec") || !strcmp(t, "var_spec")) {
		TSNode decl = ts_node_parent(n);
		if (mi_ts_type_is(decl, "var_spec_list"))
			decl = ts_node_parent(decl);
		if (!s->doc[0] && !ts_node_is_null(decl) && ts_node_named_child_count(decl) == 1) {
			const char *d = mi_ts_doc_above(c, decl);
			if (d)
				s->doc = d;
		}
	}
	if (!strcmp(t, "type_spec") || !strcmp(t, "type_alias")) {
		size_t len;
		uint32_t base;
		mi_ts_src(c, &len, &base);
		mi_buf b = {0};
		mi_buf_adds(&b, "type ");
		if (s->kind == MI_KIND_STRUCT) {
			mi_buf_adds(&b, s->name);
			mi_buf_adds(&b, " struct");
		} else if (s->kind == MI_KIND_TRAIT) {
			mi_buf_adds(&b, s->name);
			mi_buf_adds(&b, " interface");
		} else {
			mi_buf_adds(&b, s->sig);
		}
		s->sig = mi_parsed_strndup(mi_ts_parsed(c), b.buf, b.len);
		mi_buf_release(&b);
	}
}

const TSLanguage *tree_sitter_go(void);
extern const char mi_query_src_go[];

const mi_lang_row mi_lang_go = {
	.id = MI_LANG_GO,
	.name = "go",
	.exts = " .go ",
	.ts = tree_sitter_go,
	.query = mi_query_src_go,
	.fix = mi_fix_go,
};
