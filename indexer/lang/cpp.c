/*
 * cpp.c - C++: qualified names split into parent and name, member access.
 */
#include "lang_int.h"

#include <string.h>

/* Access of a class member: the last access label before it, else the
 * default of its class (class: private, struct/union: public). */
static bool cpp_member_private(mi_ts_ctx *c, TSNode member)
{
	TSNode list = ts_node_parent(member);
	if (mi_ts_type_is(list, "template_declaration")) {
		member = list;
		list = ts_node_parent(list);
	}
	if (!mi_ts_type_is(list, "field_declaration_list"))
		return false;
	for (TSNode p = ts_node_prev_named_sibling(member); !ts_node_is_null(p);
	     p = ts_node_prev_named_sibling(p)) {
		if (!mi_ts_type_is(p, "access_specifier"))
			continue;
		uint32_t tl;
		const char *t = mi_ts_text(c, &p, &tl);
		return !(tl >= 6 && !memcmp(t, "public", 6));
	}
	return mi_ts_type_is(ts_node_parent(list), "class_specifier");
}

/*
 * C++: a qualified definition name (Foo::bar, a::B<T>::~B) is split into the
 * parent (Foo, a.B) and the simple name; a function defined in a class or
 * out of line under a class is a method.  Members are private under a
 * private/protected label (or by default in a class); `static` at file
 * scope is private, on a member it is a class-level member.
 */
MI_FIX(cpp)
{
	TSNode n = *(TSNode *)def_node;
	bool member = mi_ts_type_is(ts_node_parent(n), "field_declaration_list") ||
		(mi_ts_type_is(ts_node_parent(n), "template_declaration") &&
		 mi_ts_type_is(ts_node_parent(ts_node_parent(n)), "field_declaration_list"));
	if (mi_ts_has_child_text(c, n, "storage_class_specifier", "static")) {
		if (member)
			s->flags |= MI_SYMF_STATIC;
		else
			s->vis = MI_VIS_PRIVATE;
	}
	if (member && cpp_member_private(c, n))
		s->vis = MI_VIS_PRIVATE;
	if (s->kind == MI_KIND_METHOD && !member) {
		/* a function in a namespace is not a method */
		TSNode up = ts_node_parent(n);
		if (mi_ts_type_is(up, "template_declaration"))
			up = ts_node_parent(up);
		if (mi_ts_type_is(up, "declaration_list") && mi_ts_type_is(ts_node_parent(up), "namespace_definition"))
			s->kind = MI_KIND_FUNCTION;
	}
	const char *colon = strstr(s->name, "::");
	if (colon) {
		/* split at the last "::" outside template arguments */
		const char *last = NULL;
		int depth = 0;
		for (const char *p = s->name; *p; p++) {
			if (*p == '<')
				depth++;
			else if (*p == '>' && depth > 0)
				depth--;
			else if (!depth && p[0] == ':' && p[1] == ':')
				last = p;
		}
		if (last) {
			mi_buf q = {0};
			if (s->parent[0]) {
				mi_buf_adds(&q, s->parent);
				mi_buf_addc(&q, '.');
			}
			depth = 0;
			for (const char *p = s->name; p < last; p++) {
				if (*p == '<')
					depth++;
				else if (*p == '>' && depth > 0)
					depth--;
				else if (!depth && p[0] == ':' && p[1] == ':') {
					mi_buf_addc(&q, '.');
					p++;
				} else if (!depth && *p != ' ')
					mi_buf_addc(&q, *p);
			}
			s->parent = mi_parsed_strndup(mi_ts_parsed(c), q.buf ? q.buf : "", q.len);
			mi_buf_release(&q);
			s->name = last + 2;
			if (s->kind == MI_KIND_FUNCTION && (last[2] == '~' || strcmp(s->parent, "std")))
				s->kind = MI_KIND_METHOD;
		}
	}
}

const TSLanguage *tree_sitter_cpp(void);
extern const char mi_query_src_cpp[];

const mi_lang_row mi_lang_cpp = {
	.id = MI_LANG_CPP,
	.name = "cpp",
	.exts = " .cc .cpp .cxx .c++ .hpp .hh .hxx .h++ .ipp .tcc .tpp .txx .inl .cppm .ixx ",
	.ts = tree_sitter_cpp,
	.query = mi_query_src_cpp,
	.fix = mi_fix_cpp,
	.prefilter = mi_c_prefilter,
};
