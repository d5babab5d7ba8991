/*
 * swift.c - Swift: private and fileprivate are private; internal (the default),
 * public and open are public.  Properties and enum cases per item.
 */
#include "lang_int.h"

#include <string.h>

/* ---- Swift --------------------------------------------------------------------- */

/* true if the node's modifiers hold the access level `word` as written
 * (`private(set)` restricts only the setter and does not count). */
static bool swift_access(mi_ts_ctx *c, TSNode n, const char *word)
{
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode m = ts_node_named_child(n, i);
		if (!mi_ts_type_is(m, "modifiers"))
			continue;
		uint32_t mk = ts_node_named_child_count(m);
		for (uint32_t j = 0; j < mk; j++) {
			TSNode v = ts_node_named_child(m, j);
			if (mi_ts_type_is(v, "visibility_modifier") && mi_ts_text_is(c, v, word))
				return true;
		}
	}
	return false;
}

/* Shared by property patterns and enum case names: the symbol for one item
 * of a comma list [item, item_end) in owner gets the signature
 * <owner start .. lead_end> <item text>, and the first item's span stops
 * where its own text does when more items follow. */
static void swift_list_item(mi_ts_ctx *c, TSNode def, mi_symbol *s, TSNode owner,
			    uint32_t lead_end, TSNode item, uint32_t item_end, bool more)
{
	size_t len;
	uint32_t base;
	mi_ts_src(c, &len, &base);
	mi_buf o = {0};
	mi_ts_add_folded(c, &o, ts_node_start_byte(owner), lead_end);
	mi_ts_add_folded(c, &o, ts_node_start_byte(item), item_end);
	s->sig = mi_parsed_strndup(mi_ts_parsed(c), o.buf ? o.buf : "", o.len);
	mi_buf_release(&o);
	if (more && ts_node_eq(def, owner)) {
		s->end_byte = item_end + base;
		TSNode last = ts_node_descendant_for_byte_range(owner, item_end - 1, item_end - 1);
		s->end_line = ts_node_end_point(last).row + 1;
	}
}

/* A property: `<modifiers> var <pattern>: <type> = <short value>`. */
static void swift_property(mi_ts_ctx *c, TSNode def, mi_symbol *s)
{
	bool is_pattern = mi_ts_type_is(def, "pattern");
	TSNode owner = is_pattern ? ts_node_parent(def) : def;
	TSNode null = {{0}, 0, 0}, binding = null, pat = is_pattern ? def : null;
	uint32_t k = ts_node_child_count(owner);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_child(owner, i);
		if (mi_ts_type_is(ch, "value_binding_pattern") && ts_node_is_null(binding))
			binding = ch;
		else if (mi_ts_type_is(ch, "pattern") && ts_node_is_null(pat))
			pat = ch;
	}
	if (ts_node_is_null(binding) || ts_node_is_null(pat))
		return;
	uint32_t end = ts_node_end_byte(pat);
	bool more = false;
	for (TSNode x = ts_node_next_sibling(pat); !ts_node_is_null(x); x = ts_node_next_sibling(x)) {
		const char *t = ts_node_type(x);
		if (!strcmp(t, ",")) {
			more = true;
			break;
		}
		if (!strcmp(t, "type_annotation")) {
			end = ts_node_end_byte(x);
		} else if (ts_node_is_named(x) && strcmp(t, "computed_property") &&
			   !strstr(t, "comment")) {
			uint32_t vl;
			const char *v = mi_ts_text(c, &x, &vl);
			if (vl > MI_SIG_VALUE_MAX || memchr(v, '\n', vl))
				break;
			end = ts_node_end_byte(x);
		} else if (strcmp(t, "=")) {
			break;
		}
	}
	swift_list_item(c, def, s, owner, ts_node_end_byte(binding), pat, end, more);
	if (s->kind == MI_KIND_VARIABLE && mi_ts_text_is(c, binding, "let"))
		s->kind = MI_KIND_CONSTANT;
}

/* An enum case: `case <name>(<data>) = <raw>` for each name of the list. */
static void swift_case(mi_ts_ctx *c, TSNode def, mi_symbol *s)
{
	bool is_name = !mi_ts_type_is(def, "enum_entry");
	TSNode owner = is_name ? ts_node_parent(def) : def;
	TSNode null = {{0}, 0, 0}, kw = null, name = is_name ? def : null;
	uint32_t k = ts_node_child_count(owner);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_child(owner, i);
		if (!ts_node_is_named(ch) && mi_ts_text_is(c, ch, "case") && ts_node_is_null(kw))
			kw = ch;
		else if (!ts_node_is_null(kw) && ts_node_is_null(name) && ts_node_is_named(ch))
			name = ch;
	}
	if (ts_node_is_null(kw) || ts_node_is_null(name))
		return;
	uint32_t end = ts_node_end_byte(name);
	bool more = false;
	for (TSNode x = ts_node_next_sibling(name); !ts_node_is_null(x); x = ts_node_next_sibling(x)) {
		if (!strcmp(ts_node_type(x), ",")) {
			more = true;
			break;
		}
		if (!strstr(ts_node_type(x), "comment"))
			end = ts_node_end_byte(x);
	}
	swift_list_item(c, def, s, owner, ts_node_end_byte(kw), name, end, more);
}

MI_FIX(swift)
{
	TSNode n = *(TSNode *)def_node;
	TSNode owner = n;
	if (s->kind == MI_KIND_ENUMERATOR) {
		swift_case(c, n, s);
		owner = mi_ts_type_is(n, "enum_entry") ? n : ts_node_parent(n);
	} else if (mi_ts_type_is(n, "property_declaration") || mi_ts_type_is(n, "pattern")) {
		swift_property(c, n, s);
		owner = mi_ts_type_is(n, "pattern") ? ts_node_parent(n) : n;
	} else {
		mi_ts_trim_sig(c, s);
	}
	if (ts_node_is_null(owner))
		return;
	if (swift_access(c, owner, "private") || swift_access(c, owner, "fileprivate"))
		s->vis = MI_VIS_PRIVATE;
	/* `class func`: a bare keyword, unlike the one that opens a class */
	bool member = !mi_ts_type_is(owner, "class_declaration") && !mi_ts_type_is(owner, "protocol_declaration");
	if (mi_ts_modifier_in(c, owner, "static", member) || mi_ts_modifier_in(c, owner, "class", member))
		s->flags |= MI_SYMF_STATIC;
}

const TSLanguage *tree_sitter_swift(void);
extern const char mi_query_src_swift[];

const mi_lang_row mi_lang_swift = {
	.id = MI_LANG_SWIFT,
	.name = "swift",
	.exts = " .swift ",
	.ts = tree_sitter_swift,
	.query = mi_query_src_swift,
	.fix = mi_fix_swift,
};
