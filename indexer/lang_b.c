/*
 * lang_b.c - language rules (visibility, kind corrections, signatures of
 * declarations the query cannot shape) for Java, C#, Swift, Ruby, PHP,
 * Kotlin and Markdown.
 *
 * Visibility (MI_VIS_PRIVATE = not part of the API a reader of the file
 * would call from elsewhere):
 *   Java    private and protected members are private; package-private (no
 *           modifier) counts as public, as do interface members.
 *   C#      private, protected and "private protected" are private; a member
 *           without modifier is private (the language default for class and
 *           struct members), except inside interfaces and enums; a type
 *           without modifier is internal, which counts as public.
 *   Kotlin  private and protected are private; the default is public.
 *   Swift   private and fileprivate are private; internal (the default),
 *           public and open are public.
 *   PHP     private and protected members are private; the default is public.
 *   Ruby    methods after a bare `private`/`protected` in a class or module
 *           body, or named by `private :name` / `private def`, are private.
 *   Markdown headings are public; their level is the heading's (1-6).
 */
#include "indexer_int.h"

#include <ctype.h>
#include <string.h>
#include <tree_sitter/api.h>

#define SIG_VALUE_MAX 48 /* longest initial value kept in a field signature */

/* ---- helpers ------------------------------------------------------------ */

static bool type_is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

static bool text_is(mi_ts_ctx *c, TSNode n, const char *text)
{
	uint32_t tl;
	const char *t = mi_ts_text(c, &n, &tl);
	return tl == strlen(text) && !memcmp(t, text, tl);
}

/* true if a leaf with text `word` is a direct child of n, or sits inside a
 * direct child whose type names a modifier list ("modifiers", "modifier",
 * "visibility_modifier", ...), at most three levels down. */
static bool leaf_in(mi_ts_ctx *c, TSNode n, const char *word, int depth)
{
	uint32_t k = ts_node_child_count(n);
	if (!k)
		return text_is(c, n, word);
	if (depth <= 0)
		return false;
	for (uint32_t i = 0; i < k; i++)
		if (leaf_in(c, ts_node_child(n, i), word, depth - 1))
			return true;
	return false;
}

static bool has_child_type(TSNode n, const char *type)
{
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k; i++)
		if (type_is(ts_node_named_child(n, i), type))
			return true;
	return false;
}

/* Modifier `word` of n: a leaf inside a child whose type names a modifier
 * list ("modifiers", "modifier", "visibility_modifier", ...), or, when
 * bare is true, also a keyword that is a direct child of n. */
static bool modifier_in(mi_ts_ctx *c, TSNode n, const char *word, bool bare)
{
	uint32_t k = ts_node_child_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_child(n, i);
		const char *t = ts_node_type(ch);
		if (strstr(t, "modifier")) {
			if (leaf_in(c, ch, word, 3))
				return true;
		} else if (bare && !ts_node_child_count(ch) && !ts_node_is_named(ch) &&
			   text_is(c, ch, word)) {
			return true;
		}
	}
	return false;
}

static bool has_modifier(mi_ts_ctx *c, TSNode n, const char *word)
{
	return modifier_in(c, n, word, true);
}

/* Appends src[a, b) to out with white space folded to single spaces (none
 * after '(' or '[', none before ')' ']' ','). */
static void add_folded(mi_buf *out, const char *src, uint32_t a, uint32_t b)
{
	bool space = out->len > 0;
	for (uint32_t i = a; i < b; i++) {
		unsigned char ch = (unsigned char)src[i];
		if (isspace(ch)) {
			space = out->len > 0;
			continue;
		}
		if (space && out->len) {
			char prev = out->buf[out->len - 1];
			if (prev != '(' && prev != '[' && prev != ' ' && ch != ')' &&
			    ch != ',' && ch != ']')
				mi_buf_addc(out, ' ');
		}
		space = false;
		mi_buf_addc(out, (char)ch);
	}
}

/* Replaces the signature with the folded text of [a, b) of the source
 * (byte offsets relative to the parsed text), dropping a trailing ';'. */
static void set_sig(mi_ts_ctx *c, mi_symbol *s, uint32_t a, uint32_t b)
{
	size_t len;
	uint32_t base;
	const char *src = mi_ts_src(c, &len, &base);
	mi_buf o = {0};
	if (b > len)
		b = (uint32_t)len;
	if (a < b)
		add_folded(&o, src, a, b);
	while (o.len && (o.buf[o.len - 1] == ';' || o.buf[o.len - 1] == ' '))
		o.len--;
	s->sig = mi_parsed_strndup(mi_ts_parsed(c), o.len ? o.buf : "", o.len);
	mi_buf_release(&o);
}

/* Drops a trailing ';' from the signature the driver computed. */
static void trim_sig(mi_ts_ctx *c, mi_symbol *s)
{
	size_t n = strlen(s->sig);
	if (n && s->sig[n - 1] == ';') {
		while (n && (s->sig[n - 1] == ';' || s->sig[n - 1] == ' '))
			n--;
		s->sig = mi_parsed_strndup(mi_ts_parsed(c), s->sig, n);
	}
}

/* End of a declarator's text to keep in a signature: the whole declarator
 * when its initial value is short and on one line, else the name. */
static uint32_t declarator_sig_end(mi_ts_ctx *c, TSNode decl)
{
	TSNode name = ts_node_child_by_field_name(decl, "name", 4);
	TSNode value = ts_node_child_by_field_name(decl, "value", 5);
	if (ts_node_is_null(value))
		value = ts_node_child_by_field_name(decl, "default_value", 13);
	if (ts_node_is_null(value) || ts_node_is_null(name))
		return ts_node_end_byte(decl);
	uint32_t vl;
	const char *v = mi_ts_text(c, &value, &vl);
	if (vl <= SIG_VALUE_MAX && !memchr(v, '\n', vl))
		return ts_node_end_byte(decl);
	return ts_node_end_byte(name);
}

/*
 * A declaration of several variables (`int a = 1, b;`) gives one symbol per
 * declarator: the declaration node stands for the first one, a later
 * declarator node for itself.  Trims the first one's span to its own
 * declarator and gives each the signature "<modifiers> <type> <declarator>".
 * decl_type is the grammar's declarator node type; list_type the node that
 * holds the type and the declarators when it is not the declaration itself
 * (C#: variable_declaration), else NULL.  Returns the declaration node (the
 * one holding the modifiers).
 */
static TSNode split_declarators(mi_ts_ctx *c, TSNode def, mi_symbol *s,
				const char *decl_type, const char *list_type)
{
	TSNode null = {{0}, 0, 0};
	TSNode decl = null, list = def, owner = def;
	uint32_t base;
	size_t len;
	if (type_is(def, decl_type)) {
		decl = def;
		list = ts_node_parent(def);
		owner = list_type && !ts_node_is_null(list) ? ts_node_parent(list) : list;
	} else {
		uint32_t k = ts_node_named_child_count(def);
		for (uint32_t i = 0; list_type && i < k; i++)
			if (type_is(ts_node_named_child(def, i), list_type))
				list = ts_node_named_child(def, i);
		k = ts_node_named_child_count(list);
		for (uint32_t i = 0; i < k && ts_node_is_null(decl); i++)
			if (type_is(ts_node_named_child(list, i), decl_type))
				decl = ts_node_named_child(list, i);
	}
	if (ts_node_is_null(decl) || ts_node_is_null(list) || ts_node_is_null(owner))
		return def;
	TSNode type = ts_node_child_by_field_name(list, "type", 4);
	const char *src = mi_ts_src(c, &len, &base);
	mi_buf o = {0};
	uint32_t pre_end = 0;
	if (!ts_node_is_null(type)) {
		pre_end = ts_node_end_byte(type);
	} else {
		/* no type: the prefix is what precedes the first declarator */
		uint32_t k = ts_node_named_child_count(list);
		pre_end = ts_node_start_byte(decl);
		for (uint32_t i = 0; i < k; i++)
			if (type_is(ts_node_named_child(list, i), decl_type)) {
				pre_end = ts_node_start_byte(ts_node_named_child(list, i));
				break;
			}
	}
	add_folded(&o, src, ts_node_start_byte(owner), pre_end);
	add_folded(&o, src, ts_node_start_byte(decl), declarator_sig_end(c, decl));
	s->sig = mi_parsed_strndup(mi_ts_parsed(c), o.buf ? o.buf : "", o.len);
	mi_buf_release(&o);
	if (ts_node_eq(owner, def)) {
		/* span: the first symbol stops at its declarator when more follow */
		TSNode next = ts_node_next_named_sibling(decl);
		while (!ts_node_is_null(next) && !type_is(next, decl_type))
			next = ts_node_next_named_sibling(next);
		if (!ts_node_is_null(next)) {
			s->end_byte = ts_node_end_byte(decl) + base;
			s->end_line = ts_node_end_point(decl).row + 1;
		}
	}
	return owner;
}

static void set_name(mi_ts_ctx *c, mi_symbol *s, const char *prefix)
{
	mi_buf b = {0};
	mi_buf_adds(&b, prefix);
	mi_buf_adds(&b, s->name);
	s->name = mi_parsed_strndup(mi_ts_parsed(c), b.buf, b.len);
	mi_buf_release(&b);
}

/* ---- Java ----------------------------------------------------------------- */

MI_FIX(java)
{
	TSNode n = *(TSNode *)def_node;
	TSNode owner = n;
	if (s->kind == MI_KIND_FIELD || s->kind == MI_KIND_CONSTANT)
		owner = split_declarators(c, n, s, "variable_declarator", NULL);
	else
		trim_sig(c, s);
	if (has_modifier(c, owner, "private") || has_modifier(c, owner, "protected"))
		s->vis = MI_VIS_PRIVATE;
	if (has_modifier(c, owner, "static") || s->kind == MI_KIND_CONSTANT)
		s->flags |= MI_SYMF_STATIC;
	if (s->kind == MI_KIND_FIELD && has_modifier(c, owner, "static") &&
	    has_modifier(c, owner, "final"))
		s->kind = MI_KIND_CONSTANT;
}

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
	return has_modifier(c, n, "public") || has_modifier(c, n, "private") ||
	       has_modifier(c, n, "protected") || has_modifier(c, n, "internal");
}

MI_FIX(csharp)
{
	TSNode n = *(TSNode *)def_node;
	TSNode owner = n;
	const char *t = ts_node_type(n);
	if (!strcmp(t, "field_declaration") || !strcmp(t, "event_field_declaration") ||
	    type_is(n, "variable_declarator"))
		owner = split_declarators(c, n, s, "variable_declarator", "variable_declaration");
	else
		trim_sig(c, s);
	if (!strcmp(t, "destructor_declaration"))
		set_name(c, s, "~");
	else if (!strcmp(t, "operator_declaration") || !strcmp(t, "conversion_operator_declaration"))
		set_name(c, s, "operator ");
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
		if (!cut && !ts_node_is_null(val) && type_is(val, "arrow_expression_clause"))
			cut = ts_node_start_byte(val);
		if (cut)
			set_sig(c, s, ts_node_start_byte(n), cut);
	}
	if (s->doc[0])
		csharp_doc(c, s);
	/* members without an access modifier are private in classes, structs
	 * and records; types and namespace members default to internal */
	TSNode container = ts_node_parent(owner);
	if (type_is(container, "declaration_list"))
		container = ts_node_parent(container);
	const char *ct = ts_node_is_null(container) ? "" : ts_node_type(container);
	bool in_type = !strcmp(ct, "class_declaration") || !strcmp(ct, "struct_declaration") ||
		       !strcmp(ct, "record_declaration");
	if (has_modifier(c, owner, "private") ||
	    (has_modifier(c, owner, "protected") && !has_modifier(c, owner, "internal")))
		s->vis = MI_VIS_PRIVATE;
	else if (in_type && !csharp_has_access(c, owner) &&
		 !has_child_type(owner, "explicit_interface_specifier"))
		s->vis = MI_VIS_PRIVATE;
	if (has_modifier(c, owner, "static") || has_modifier(c, owner, "const"))
		s->flags |= MI_SYMF_STATIC;
	if (s->kind == MI_KIND_FIELD && has_modifier(c, owner, "const"))
		s->kind = MI_KIND_CONSTANT;
}
/* ---- Swift --------------------------------------------------------------------- */

/* true if the node's modifiers hold the access level `word` as written
 * (`private(set)` restricts only the setter and does not count). */
static bool swift_access(mi_ts_ctx *c, TSNode n, const char *word)
{
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode m = ts_node_named_child(n, i);
		if (!type_is(m, "modifiers"))
			continue;
		uint32_t mk = ts_node_named_child_count(m);
		for (uint32_t j = 0; j < mk; j++) {
			TSNode v = ts_node_named_child(m, j);
			if (type_is(v, "visibility_modifier") && text_is(c, v, word))
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
	const char *src = mi_ts_src(c, &len, &base);
	mi_buf o = {0};
	add_folded(&o, src, ts_node_start_byte(owner), lead_end);
	add_folded(&o, src, ts_node_start_byte(item), item_end);
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
	bool is_pattern = type_is(def, "pattern");
	TSNode owner = is_pattern ? ts_node_parent(def) : def;
	TSNode null = {{0}, 0, 0}, binding = null, pat = is_pattern ? def : null;
	uint32_t k = ts_node_child_count(owner);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_child(owner, i);
		if (type_is(ch, "value_binding_pattern") && ts_node_is_null(binding))
			binding = ch;
		else if (type_is(ch, "pattern") && ts_node_is_null(pat))
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
			if (vl > SIG_VALUE_MAX || memchr(v, '\n', vl))
				break;
			end = ts_node_end_byte(x);
		} else if (strcmp(t, "=")) {
			break;
		}
	}
	swift_list_item(c, def, s, owner, ts_node_end_byte(binding), pat, end, more);
	if (s->kind == MI_KIND_VARIABLE && text_is(c, binding, "let"))
		s->kind = MI_KIND_CONSTANT;
}

/* An enum case: `case <name>(<data>) = <raw>` for each name of the list. */
static void swift_case(mi_ts_ctx *c, TSNode def, mi_symbol *s)
{
	bool is_name = !type_is(def, "enum_entry");
	TSNode owner = is_name ? ts_node_parent(def) : def;
	TSNode null = {{0}, 0, 0}, kw = null, name = is_name ? def : null;
	uint32_t k = ts_node_child_count(owner);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_child(owner, i);
		if (!ts_node_is_named(ch) && text_is(c, ch, "case") && ts_node_is_null(kw))
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
		owner = type_is(n, "enum_entry") ? n : ts_node_parent(n);
	} else if (type_is(n, "property_declaration") || type_is(n, "pattern")) {
		swift_property(c, n, s);
		owner = type_is(n, "pattern") ? ts_node_parent(n) : n;
	} else {
		trim_sig(c, s);
	}
	if (ts_node_is_null(owner))
		return;
	if (swift_access(c, owner, "private") || swift_access(c, owner, "fileprivate"))
		s->vis = MI_VIS_PRIVATE;
	/* `class func`: a bare keyword, unlike the one that opens a class */
	bool member = !type_is(owner, "class_declaration") && !type_is(owner, "protocol_declaration");
	if (modifier_in(c, owner, "static", member) || modifier_in(c, owner, "class", member))
		s->flags |= MI_SYMF_STATIC;
}
/* ---- Ruby ---------------------------------------------------------------------- */

/* The name of a call statement: `private` in `private :x` or `private`. */
static bool ruby_call_named(mi_ts_ctx *c, TSNode n, const char *name)
{
	if (type_is(n, "identifier"))
		return text_is(c, n, name);
	if (!type_is(n, "call") || !ts_node_is_null(ts_node_child_by_field_name(n, "receiver", 8)))
		return false;
	TSNode m = ts_node_child_by_field_name(n, "method", 6);
	return !ts_node_is_null(m) && text_is(c, m, name);
}

/* true if a later `private :name` (or private_class_method) in the body
 * names this method. */
static bool ruby_named_private(mi_ts_ctx *c, TSNode stmt, const char *name, bool singleton)
{
	for (TSNode x = ts_node_next_named_sibling(stmt); !ts_node_is_null(x);
	     x = ts_node_next_named_sibling(x)) {
		if (!ruby_call_named(c, x, singleton ? "private_class_method" : "private") &&
		    !(!singleton && ruby_call_named(c, x, "protected")))
			continue;
		TSNode args = ts_node_child_by_field_name(x, "arguments", 9);
		uint32_t k = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
		for (uint32_t i = 0; i < k; i++) {
			TSNode a = ts_node_named_child(args, i);
			uint32_t tl;
			const char *t = mi_ts_text(c, &a, &tl);
			if (type_is(a, "simple_symbol") && tl == strlen(name) + 1 &&
			    !memcmp(t + 1, name, tl - 1))
				return true;
		}
	}
	return false;
}

/* Comment lines right above stmt; the first statement of a class body
 * has them just before the body.  "" when there are none. */
static const char *ruby_doc(mi_ts_ctx *c, TSNode stmt)
{
	TSNode prev = ts_node_prev_sibling(stmt);
	TSNode up = ts_node_parent(stmt);
	if (ts_node_is_null(prev) && type_is(up, "body_statement"))
		prev = ts_node_prev_sibling(up);
	uint32_t want = ts_node_start_point(stmt).row;
	TSNode first = {{0}, 0, 0};
	while (!ts_node_is_null(prev) && type_is(prev, "comment") &&
	       ts_node_end_point(prev).row + 1 >= want) {
		first = prev;
		want = ts_node_start_point(prev).row;
		prev = ts_node_prev_sibling(prev);
	}
	if (ts_node_is_null(first))
		return "";
	mi_buf o = {0};
	for (TSNode x = first; !ts_node_is_null(x) && type_is(x, "comment");
	     x = ts_node_next_sibling(x)) {
		uint32_t tl;
		const char *t = mi_ts_text(c, &x, &tl);
		while (tl && *t == '#') {
			t++;
			tl--;
		}
		while (tl && (*t == ' ' || *t == '\t')) {
			t++;
			tl--;
		}
		while (tl && isspace((unsigned char)t[tl - 1]))
			tl--;
		if (tl) {
			if (o.len)
				mi_buf_addc(&o, '\n');
			mi_buf_add(&o, t, tl);
		}
	}
	const char *r = mi_parsed_strndup(mi_ts_parsed(c), o.len ? o.buf : "", o.len);
	mi_buf_release(&o);
	return r;
}

MI_FIX(ruby)
{
	TSNode n = *(TSNode *)def_node;
	TSNode stmt = n;
	const char *t = ts_node_type(n);
	uint32_t base;
	if (type_is(n, "simple_symbol")) {
		/* attr_reader :name -> field "name", signature "attr_reader :name" */
		TSNode call = ts_node_parent(ts_node_parent(n));
		TSNode m = ts_node_child_by_field_name(call, "method", 6);
		if (s->name[0] == ':')
			s->name++;
		if (!ts_node_is_null(m)) {
			size_t l;
			mi_buf o = {0};
			const char *src = mi_ts_src(c, &l, &base);
			add_folded(&o, src, ts_node_start_byte(m), ts_node_end_byte(m));
			add_folded(&o, src, ts_node_start_byte(n), ts_node_end_byte(n));
			s->sig = mi_parsed_strndup(mi_ts_parsed(c), o.buf, o.len);
			mi_buf_release(&o);
			stmt = call;
		}
	} else if (!strcmp(t, "method") || !strcmp(t, "singleton_method")) {
		/* the header: `def name(params)`, never the body of an endless def */
		TSNode end = ts_node_child_by_field_name(n, "parameters", 10);
		if (ts_node_is_null(end))
			end = ts_node_child_by_field_name(n, "name", 4);
		if (!ts_node_is_null(end))
			set_sig(c, s, ts_node_start_byte(n), ts_node_end_byte(end));
	} else if (s->kind == MI_KIND_CLASS || s->kind == MI_KIND_MODULE) {
		/* the header: `class Name < Super`, not comments inside */
		TSNode end = ts_node_child_by_field_name(n, "superclass", 10);
		if (ts_node_is_null(end))
			end = ts_node_child_by_field_name(n, "name", 4);
		for (uint32_t i = 0; ts_node_is_null(end) && i < ts_node_named_child_count(n); i++)
			if (type_is(ts_node_named_child(n, i), "constant"))
				end = ts_node_named_child(n, i);
		if (!ts_node_is_null(end))
			set_sig(c, s, ts_node_start_byte(n), ts_node_end_byte(end));
	}
	if (!s->doc[0])
		s->doc = ruby_doc(c, stmt);
	if (!strcmp(t, "singleton_method"))
		s->flags |= MI_SYMF_STATIC;
	/* `private def x` */
	TSNode up = ts_node_parent(stmt);
	if (type_is(up, "argument_list") && ruby_call_named(c, ts_node_parent(up), "private")) {
		s->vis = MI_VIS_PRIVATE;
		return;
	}
	if (ts_node_is_null(up) || !type_is(up, "body_statement"))
		return;
	TSNode holder = ts_node_parent(up);
	if (type_is(holder, "singleton_class"))
		s->flags |= MI_SYMF_STATIC;
	if (!type_is(holder, "class") && !type_is(holder, "module") && !type_is(holder, "singleton_class"))
		return;
	if (s->kind == MI_KIND_CLASS || s->kind == MI_KIND_MODULE || s->kind == MI_KIND_CONSTANT)
		return;
	/* the nearest bare `private` / `protected` / `public` above */
	for (TSNode x = ts_node_prev_named_sibling(stmt); !ts_node_is_null(x);
	     x = ts_node_prev_named_sibling(x)) {
		if (!type_is(x, "identifier"))
			continue;
		if (text_is(c, x, "private") || text_is(c, x, "protected")) {
			if (strcmp(t, "singleton_method"))
				s->vis = MI_VIS_PRIVATE;
			break;
		}
		if (text_is(c, x, "public"))
			break;
		if (text_is(c, x, "module_function")) {
			s->flags |= MI_SYMF_STATIC;
			break;
		}
	}
	if (ruby_named_private(c, stmt, s->name, !strcmp(t, "singleton_method")))
		s->vis = MI_VIS_PRIVATE;
}
/* ---- PHP ----------------------------------------------------------------------- */

MI_FIX(php)
{
	TSNode n = *(TSNode *)def_node;
	TSNode owner = n;
	const char *t = ts_node_type(n);
	if (!strcmp(t, "property_declaration") || !strcmp(t, "property_element"))
		owner = split_declarators(c, n, s, "property_element", NULL);
	else if (!strcmp(t, "const_declaration") || !strcmp(t, "const_element"))
		owner = split_declarators(c, n, s, "const_element", NULL);
	else
		trim_sig(c, s);
	if (!strcmp(t, "function_definition"))
		s->kind = MI_KIND_FUNCTION; /* in a namespace, still a function */
	if (!strcmp(t, "property_promotion_parameter") && s->parent_idx >= 0) {
		/* a promoted constructor parameter is a property of the class */
		mi_parsed *p = mi_ts_parsed(c);
		const mi_symbol *ctor = &p->syms[s->parent_idx];
		s->parent_idx = ctor->parent_idx;
		s->parent = ctor->parent;
		s->level = ctor->level;
	}
	if (!strcmp(t, "namespace_definition") &&
	    ts_node_is_null(ts_node_child_by_field_name(n, "body", 4))) {
		/* `namespace X;` holds what follows, up to the next namespace */
		size_t len;
		uint32_t base;
		const char *src = mi_ts_src(c, &len, &base);
		uint32_t end = (uint32_t)len;
		for (TSNode x = ts_node_next_named_sibling(n); !ts_node_is_null(x);
		     x = ts_node_next_named_sibling(x))
			if (type_is(x, "namespace_definition")) {
				end = ts_node_start_byte(x);
				break;
			}
		while (end > ts_node_end_byte(n) && isspace((unsigned char)src[end - 1]))
			end--;
		s->end_byte = end + base;
		s->end_line = mi_count_lines(src, end);
	}
	if (has_modifier(c, owner, "private") || has_modifier(c, owner, "protected"))
		s->vis = MI_VIS_PRIVATE;
	if (has_modifier(c, owner, "static") || s->kind == MI_KIND_CONSTANT)
		s->flags |= MI_SYMF_STATIC;
}
/* ---- Kotlin -------------------------------------------------------------------- */

/* A property: `<modifiers> val <name>: <type> = <short value>`. */
static void kotlin_property(mi_ts_ctx *c, TSNode n, mi_symbol *s)
{
	TSNode var = {{0}, 0, 0};
	uint32_t k = ts_node_child_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_child(n, i);
		if (type_is(ch, "variable_declaration")) {
			var = ch;
		} else if (!ts_node_is_null(var) && !ts_node_is_named(ch) && text_is(c, ch, "=")) {
			TSNode v = ts_node_next_named_sibling(ch);
			uint32_t end = ts_node_end_byte(var);
			if (!ts_node_is_null(v)) {
				uint32_t vl;
				const char *t = mi_ts_text(c, &v, &vl);
				if (vl <= SIG_VALUE_MAX && !memchr(t, '\n', vl))
					end = ts_node_end_byte(v);
			}
			set_sig(c, s, ts_node_start_byte(n), end);
			return;
		}
	}
	if (!ts_node_is_null(var))
		set_sig(c, s, ts_node_start_byte(n), ts_node_end_byte(var));
}

MI_FIX(kotlin)
{
	TSNode n = *(TSNode *)def_node;
	const char *t = ts_node_type(n);
	if (!strcmp(t, "property_declaration")) {
		kotlin_property(c, n, s);
		if (modifier_in(c, n, "const", false))
			s->kind = MI_KIND_CONSTANT;
		for (uint32_t i = 0; i < ts_node_child_count(n); i++)
			if (!ts_node_is_named(ts_node_child(n, i))) {
				TSNode kw = ts_node_child(n, i);
				if (s->kind == MI_KIND_VARIABLE && text_is(c, kw, "val"))
					s->kind = MI_KIND_CONSTANT;
				break;
			}
	} else if (!strcmp(t, "function_declaration")) {
		/* members of an enum entry's body are methods too */
		if (type_is(ts_node_parent(n), "class_body"))
			s->kind = MI_KIND_METHOD;
		trim_sig(c, s);
	} else if (!strcmp(t, "companion_object") &&
		   ts_node_is_null(ts_node_child_by_field_name(n, "name", 4))) {
		s->name = "Companion";
		trim_sig(c, s);
	} else {
		trim_sig(c, s);
	}
	if (modifier_in(c, n, "private", false) || modifier_in(c, n, "protected", false))
		s->vis = MI_VIS_PRIVATE;
	TSNode up = ts_node_parent(n);
	if (type_is(up, "class_body") && type_is(ts_node_parent(up), "companion_object"))
		s->flags |= MI_SYMF_STATIC;
}
/* ---- Markdown ------------------------------------------------------------------- */

/* Level of an ATX or setext heading node (1-6), 0 if it is not one. */
static int md_level(TSNode h)
{
	uint32_t k = ts_node_child_count(h);
	for (uint32_t i = 0; i < k; i++) {
		const char *t = ts_node_type(ts_node_child(h, i));
		if (!strncmp(t, "atx_h", 5) && t[5] >= '1' && t[5] <= '6' && !strcmp(t + 6, "_marker"))
			return t[5] - '0';
		if (!strcmp(t, "setext_h1_underline"))
			return 1;
		if (!strcmp(t, "setext_h2_underline"))
			return 2;
	}
	return 0;
}

/* Start of the first outline heading (in a section chain from the root)
 * after byte `after` with a level of at most `level`; `none` if there is
 * none. */
static uint32_t md_next_heading(TSNode n, uint32_t after, int level, uint32_t none)
{
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_named_child(n, i);
		if (ts_node_end_byte(ch) <= after)
			continue;
		const char *t = ts_node_type(ch);
		if (!strcmp(t, "section")) {
			uint32_t r = md_next_heading(ch, after, level, none);
			if (r != none)
				return r;
		} else if ((!strcmp(t, "atx_heading") || !strcmp(t, "setext_heading")) &&
			   ts_node_start_byte(ch) > after) {
			int l = md_level(ch);
			if (l && l <= level)
				return ts_node_start_byte(ch);
		}
	}
	return none;
}

/* Headings: level from the marker, span to the next heading of the same or
 * a higher level, name without closing #'s, signature the heading's first
 * line as written. */
MI_FIX(markdown)
{
	TSNode n = *(TSNode *)def_node;
	size_t len;
	uint32_t base;
	const char *src = mi_ts_src(c, &len, &base);
	/* An outline heading: its ancestors are one to seven sections, then
	 * the document (not a heading in a block quote or a list item). */
	TSNode root = n;
	int sections = 0;
	bool chain = true;
	for (TSNode up = ts_node_parent(n); !ts_node_is_null(up); up = ts_node_parent(up)) {
		if (!ts_node_eq(root, n)) { /* the ancestor below up */
			chain &= !strcmp(ts_node_type(root), "section");
			sections++;
		}
		root = up;
	}
	if (!chain || sections < 1 || sections > 7 || strcmp(ts_node_type(root), "document")) {
		s->kind = MI_KIND_NONE;
		return;
	}
	int level = md_level(n);
	if (!level)
		return;
	s->level = (uint8_t)level;
	uint32_t hs = ts_node_start_byte(n), he = ts_node_end_byte(n);
	uint32_t end = md_next_heading(root, hs, level, (uint32_t)len);
	if (end < he)
		end = he;
	s->end_byte = end + base;
	s->end_line = mi_count_lines(src, end);
	if (s->end_line < s->start_line)
		s->end_line = s->start_line;
	if (he < end) {
		s->body_byte = he + base;
		s->body_line = mi_count_lines(src, he) + (he > 0 && src[he - 1] == '\n');
	} else {
		s->body_byte = 0;
		s->body_line = 0;
	}
	/* signature: the first line of the heading */
	uint32_t le = hs;
	while (le < he && src[le] != '\n' && src[le] != '\r')
		le++;
	set_sig(c, s, hs, le);
	/* name: trimmed, without an ATX closing sequence */
	size_t nl = strlen(s->name);
	const char *nm = s->name;
	while (nl && isspace((unsigned char)nm[nl - 1]))
		nl--;
	size_t h = nl;
	while (h && nm[h - 1] == '#')
		h--;
	if (h < nl && (h == 0 || nm[h - 1] == ' ' || nm[h - 1] == '\t'))
		nl = h;
	while (nl && isspace((unsigned char)nm[nl - 1]))
		nl--;
	while (nl && isspace((unsigned char)*nm)) {
		nm++;
		nl--;
	}
	s->name = mi_parsed_strndup(mi_ts_parsed(c), nm, nl);
	s->vis = MI_VIS_PUBLIC;
}
