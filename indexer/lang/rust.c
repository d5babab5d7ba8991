/*
 * rust.c - Rust: `pub` visibility, attributes, macro_rules!.
 */
#include "lang_int.h"

#include <string.h>

/*
 * Rust: `pub` (any pub(...)) makes an item public; trait members, enum
 * variants and the members of `impl Trait for T` are public with their
 * trait or enum.  Doc comments sit above the attributes (#[derive]); #[test]
 * marks a test.
 */
MI_FIX(rust)
{
	TSNode n = *(TSNode *)def_node;
	const char *t = ts_node_type(n);
	bool pub = false;
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k; i++)
		if (mi_ts_type_is(ts_node_named_child(n, i), "visibility_modifier"))
			pub = true;
	TSNode list = ts_node_parent(n);
	TSNode owner = ts_node_is_null(list) ? list : ts_node_parent(list);
	if (!strcmp(t, "enum_variant") || mi_ts_type_is(owner, "trait_item"))
		pub = true;
	if (mi_ts_type_is(owner, "impl_item") &&
	    !ts_node_is_null(ts_node_child_by_field_name(owner, "trait", 5)))
		pub = true;
	if (!strcmp(t, "impl_item"))
		pub = true; /* an impl block has no visibility of its own */
	if (!strcmp(t, "field_declaration") && mi_ts_type_is(owner, "enum_variant"))
		pub = true;
	s->vis = pub ? MI_VIS_PUBLIC : MI_VIS_PRIVATE;
	/* attributes above the item: doc comments are above them */
	TSNode anchor = n;
	for (TSNode p = ts_node_prev_sibling(n); mi_ts_type_is(p, "attribute_item");
	     p = ts_node_prev_sibling(p)) {
		uint32_t tl;
		const char *at = mi_ts_text(c, &p, &tl);
		if ((tl >= 7 && !memcmp(at, "#[test]", 7)) || (tl > 8 && memmem(at, tl, "::test]", 7)))
			s->flags |= MI_SYMF_TEST;
		anchor = p;
	}
	if (!s->doc[0] && !ts_node_eq(anchor, n)) {
		const char *d = mi_ts_doc_above(c, anchor);
		if (d)
			s->doc = d;
	}
	if (!strcmp(t, "function_item") && s->kind == MI_KIND_METHOD && mi_ts_type_is(owner, "mod_item"))
		s->kind = MI_KIND_FUNCTION;
	if (!strcmp(t, "macro_definition")) {
		mi_buf b = {0};
		mi_buf_adds(&b, "macro_rules! ");
		mi_buf_adds(&b, s->name);
		s->sig = mi_parsed_strndup(mi_ts_parsed(c), b.buf, b.len);
		mi_buf_release(&b);
	}
	if (!strcmp(t, "function_item")) {
		TSNode mods = mi_ts_find_desc(n, "function_modifiers", 1);
		if (!ts_node_is_null(mods) && mi_ts_has_child_text(c, mods, "async", "async"))
			s->flags |= MI_SYMF_ASYNC;
	}
}

const TSLanguage *tree_sitter_rust(void);
extern const char mi_query_src_rust[];

const mi_lang_row mi_lang_rust = {
	.id = MI_LANG_RUST,
	.name = "rust",
	.exts = " .rs ",
	.ts = tree_sitter_rust,
	.query = mi_query_src_rust,
	.fix = mi_fix_rust,
};
