/*
 * javascript.c - JavaScript (and the rules TypeScript shares): module exports,
 * #private and accessibility modifiers.
 */
#include "lang_int.h"

#include <string.h>

/* Facts about one JS/TS file's top level, cached per tree per thread. */
static __thread const void *js_tree;    /* tree of the cached facts */
static __thread bool js_module;         /* has import/export statements */
static __thread bool js_export_clause;  /* has export { a, b } or export default x */

static void js_scan(mi_ts_ctx *c, TSNode root)
{
	/* A tree's address can be reused by the next file: a file's first
	 * symbol always rescans. */
	if (js_tree == root.tree && mi_ts_parsed(c)->nsyms > 1)
		return;
	js_tree = root.tree;
	js_module = js_export_clause = false;
	uint32_t k = ts_node_named_child_count(root);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_named_child(root, i);
		const char *t = ts_node_type(ch);
		if (!strcmp(t, "import_statement"))
			js_module = true;
		if (!strcmp(t, "export_statement")) {
			js_module = true;
			if (ts_node_is_null(ts_node_child_by_field_name(ch, "declaration", 11)))
				js_export_clause = true;
		}
	}
}

/* true if `export { name }` or `export default name` names s at top level. */
static bool js_exported_later(mi_ts_ctx *c, TSNode root, const char *name)
{
	size_t nl = strlen(name);
	uint32_t k = ts_node_named_child_count(root);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_named_child(root, i);
		if (!mi_ts_type_is(ch, "export_statement") ||
		    !ts_node_is_null(ts_node_child_by_field_name(ch, "declaration", 11)) ||
		    !ts_node_is_null(ts_node_child_by_field_name(ch, "source", 6)))
			continue;
		uint32_t m = ts_node_named_child_count(ch);
		for (uint32_t j = 0; j < m; j++) {
			TSNode e = ts_node_named_child(ch, j);
			if (mi_ts_type_is(e, "identifier")) {
				uint32_t tl;
				const char *tt = mi_ts_text(c, &e, &tl);
				if (tl == nl && !memcmp(tt, name, nl))
					return true;
			}
			if (!mi_ts_type_is(e, "export_clause"))
				continue;
			uint32_t q = ts_node_named_child_count(e);
			for (uint32_t x = 0; x < q; x++) {
				TSNode sp = ts_node_named_child(e, x);
				TSNode nm = ts_node_child_by_field_name(sp, "name", 4);
				if (ts_node_is_null(nm))
					continue;
				uint32_t tl;
				const char *tt = mi_ts_text(c, &nm, &tl);
				if (tl == nl && !memcmp(tt, name, nl))
					return true;
			}
		}
	}
	return false;
}

/*
 * JavaScript/TypeScript: in an ES module (a file with import or export) a
 * top-level name is public only when exported (export declaration, export
 * { name }, export default name); in a script every top-level name is.
 * #names and private/protected members are private, and so is anything
 * declared inside a function.  static and async are flagged.
 */
void mi_fix_javascript(mi_ts_ctx *c, void *def_node, mi_symbol *s)
{
	TSNode n = *(TSNode *)def_node;
	/* (not a walk up by ts_node_parent: O(depth^2) a symbol) */
	TSNode root = ts_tree_root_node(n.tree);
	js_scan(c, root);
	TSNode up = ts_node_parent(n);
	bool exported = mi_ts_type_is(up, "export_statement");
	if (mi_ts_type_is(up, "ambient_declaration")) /* declare function f(): public API */
		exported = true;
	TSNode blk = mi_ts_type_is(up, "export_statement") ? ts_node_parent(up) : up;
	TSNode ns = mi_ts_type_is(blk, "statement_block") ? ts_node_parent(blk) : blk;
	if (mi_ts_type_is(ns, "internal_module") || mi_ts_type_is(ns, "module")) {
		/* namespace N { export function f() } : functions, exported or not */
		const char *t = ts_node_type(n);
		if (s->kind == MI_KIND_METHOD && (strstr(t, "function") || strstr(t, "declaration")))
			s->kind = MI_KIND_FUNCTION;
		if (mi_ts_type_is(ns, "internal_module") && !exported)
			s->vis = MI_VIS_PRIVATE;
	} else if (!s->parent[0]) {
		if (js_module && !exported && !(js_export_clause && js_exported_later(c, root, s->name)))
			s->vis = MI_VIS_PRIVATE;
	} else if (s->parent_idx >= 0) {
		mi_symbol *par = &mi_ts_parsed(c)->syms[s->parent_idx];
		if (par->kind == MI_KIND_FUNCTION || par->kind == MI_KIND_METHOD)
			s->vis = MI_VIS_PRIVATE;
	}
	if (s->kind == MI_KIND_VARIABLE || s->kind == MI_KIND_CONSTANT) {
		/* "const api = {...}" is shown as "const api" */
		size_t sl = strlen(s->sig);
		while (sl > 0 && (s->sig[sl - 1] == '=' || s->sig[sl - 1] == ' ' || s->sig[sl - 1] == ';'))
			sl--;
		if (sl < strlen(s->sig))
			s->sig = mi_parsed_strndup(mi_ts_parsed(c), s->sig, sl);
	}
	uint32_t k = ts_node_child_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_child(n, i);
		const char *t = ts_node_type(ch);
		if (!strcmp(t, "private_property_identifier"))
			s->vis = MI_VIS_PRIVATE;
		else if (!strcmp(t, "accessibility_modifier")) {
			uint32_t tl;
			const char *tt = mi_ts_text(c, &ch, &tl);
			if (!(tl == 6 && !memcmp(tt, "public", 6)))
				s->vis = MI_VIS_PRIVATE;
		} else if (!strcmp(t, "static"))
			s->flags |= MI_SYMF_STATIC;
		else if (!strcmp(t, "async"))
			s->flags |= MI_SYMF_ASYNC;
	}
}

const TSLanguage *tree_sitter_javascript(void);
extern const char mi_query_src_javascript[];

const mi_lang_row mi_lang_javascript = {
	.id = MI_LANG_JAVASCRIPT,
	.name = "javascript",
	.exts = " .js .mjs .cjs .jsx ",
	.ts = tree_sitter_javascript,
	.query = mi_query_src_javascript,
	.fix = mi_fix_javascript,
};
