/*
 * csharp.c - C#: private, protected and "private protected" are private; a member
 * without modifier is private (the language default for class and struct
 * members), except inside interfaces and enums; a type without modifier is
 * internal, which counts as public.  XML doc comments become plain text.
 */
#include "lang_int.h"

#include <string.h>

/* ---- C# ----------------------------------------------------------------------- */

/* Copies the attribute value `name="X"` of an XML tag [t, e) to out. */
static void xml_attr(const char *t, const char *e, mi_buf *out)
{
	const char *q = memchr(t, '"', (size_t)(e - t));
	if (!q)
		return;
	const char *z = memchr(q + 1, '"', (size_t)(e - q - 1));
	if (z)
		mi_buf_add(out, q + 1, (size_t)(z - q - 1));
}

/* XML doc comments (<summary>...</summary>) to plain text: <param name="x">
 * and <typeparam> become "x: ", <returns> "Returns: ", <see cref="X"/> and
 * <paramref name="X"/> their target; other tags go; empty lines go. */
static void csharp_doc(mi_ts_ctx *c, mi_symbol *s)
{
	const char *d = s->doc;
	if (!strchr(d, '<'))
		return;
	mi_buf o = {0};
	size_t line_start = 0;
	for (const char *p = d;; p++) {
		if (*p == '<') {
			const char *e = strchr(p, '>');
			if (e) {
				const char *nm = p + 1 + (p[1] == '/');
				size_t nl = strcspn(nm, " />");
				if (p[1] != '/' && ((nl == 5 && !memcmp(nm, "param", 5)) ||
						    (nl == 9 && !memcmp(nm, "typeparam", 9)))) {
					xml_attr(p, e, &o);
					mi_buf_adds(&o, ": ");
				} else if (p[1] != '/' && nl == 7 && !memcmp(nm, "returns", 7)) {
					mi_buf_adds(&o, "Returns: ");
				} else if (e[-1] == '/') {
					xml_attr(p, e, &o);
				}
				p = e;
				continue;
			}
		}
		if (*p == '\n' || !*p) {
			size_t a = line_start;
			while (a < o.len && o.buf[a] == ' ')
				a++;
			while (o.len > a && o.buf[o.len - 1] == ' ')
				o.len--;
			if (o.len == a) {
				o.len = line_start;
			} else if (a > line_start) {
				memmove(o.buf + line_start, o.buf + a, o.len - a);
				o.len -= a - line_start;
			}
			if (!*p)
				break;
			if (o.len > line_start)
				mi_buf_addc(&o, '\n');
			line_start = o.len;
			continue;
		}
		mi_buf_addc(&o, *p);
	}
	while (o.len && o.buf[o.len - 1] == '\n')
		o.len--;
	s->doc = mi_parsed_strndup(mi_ts_parsed(c), o.len ? o.buf : "", o.len);
	mi_buf_release(&o);
}

static bool csharp_has_access(mi_ts_ctx *c, TSNode n)
{
	return mi_ts_has_modifier(c, n, "public") || mi_ts_has_modifier(c, n, "private") ||
	       mi_ts_has_modifier(c, n, "protected") || mi_ts_has_modifier(c, n, "internal");
}

MI_FIX(csharp)
{
	TSNode n = *(TSNode *)def_node;
	TSNode owner = n;
	const char *t = ts_node_type(n);
	if (!strcmp(t, "field_declaration") || !strcmp(t, "event_field_declaration") ||
	    mi_ts_type_is(n, "variable_declarator"))
		owner = mi_ts_split_declarators(c, n, s, "variable_declarator", "variable_declaration");
	else
		mi_ts_trim_sig(c, s);
	if (!strcmp(t, "destructor_declaration"))
		mi_ts_set_name(c, s, "~");
	else if (!strcmp(t, "operator_declaration") || !strcmp(t, "conversion_operator_declaration"))
		mi_ts_set_name(c, s, "operator ");
	else if (!strcmp(t, "file_scoped_namespace_declaration")) {
		/* `namespace X;` holds the rest of the file */
		size_t len;
		uint32_t base;
		const char *src = mi_ts_src(c, &len, &base);
		s->end_byte = (uint32_t)len + base;
		s->end_line = mi_count_lines(src, len);
	}
	if (!strcmp(t, "property_declaration") || !strcmp(t, "indexer_declaration") ||
	    !strcmp(t, "event_declaration")) {
		/* keep `{ get; set; }` of an auto-property, not accessor bodies */
		TSNode acc = ts_node_child_by_field_name(n, "accessors", 9);
		TSNode val = ts_node_child_by_field_name(n, "value", 5);
		uint32_t cut = 0;
		if (!ts_node_is_null(acc)) {
			uint32_t k = ts_node_named_child_count(acc);
			for (uint32_t i = 0; i < k; i++)
				if (!ts_node_is_null(ts_node_child_by_field_name(
					    ts_node_named_child(acc, i), "body", 4)))
					cut = ts_node_start_byte(acc);
		}
		if (!cut && !ts_node_is_null(val) && mi_ts_type_is(val, "arrow_expression_clause"))
			cut = ts_node_start_byte(val);
		if (cut)
			mi_ts_set_sig(c, s, ts_node_start_byte(n), cut);
	}
	if (s->doc[0])
		csharp_doc(c, s);
	/* members without an access modifier are private in classes, structs
	 * and records; types and namespace members default to internal */
	TSNode container = ts_node_parent(owner);
	if (mi_ts_type_is(container, "declaration_list"))
		container = ts_node_parent(container);
	const char *ct = ts_node_is_null(container) ? "" : ts_node_type(container);
	bool in_type = !strcmp(ct, "class_declaration") || !strcmp(ct, "struct_declaration") ||
		       !strcmp(ct, "record_declaration");
	if (mi_ts_has_modifier(c, owner, "private") ||
	    (mi_ts_has_modifier(c, owner, "protected") && !mi_ts_has_modifier(c, owner, "internal")))
		s->vis = MI_VIS_PRIVATE;
	else if (in_type && !csharp_has_access(c, owner) &&
		 !mi_ts_has_child_type(owner, "explicit_interface_specifier"))
		s->vis = MI_VIS_PRIVATE;
	if (mi_ts_has_modifier(c, owner, "static") || mi_ts_has_modifier(c, owner, "const"))
		s->flags |= MI_SYMF_STATIC;
	if (s->kind == MI_KIND_FIELD && mi_ts_has_modifier(c, owner, "const"))
		s->kind = MI_KIND_CONSTANT;
}

const TSLanguage *tree_sitter_c_sharp(void);
extern const char mi_query_src_csharp[];

const mi_lang_row mi_lang_csharp = {
	.id = MI_LANG_CSHARP,
	.name = "csharp",
	.exts = " .cs ",
	.ts = tree_sitter_c_sharp,
	.query = mi_query_src_csharp,
	.fix = mi_fix_csharp,
};
