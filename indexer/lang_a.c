/*
 * lang_a.c - language rules (visibility, kind corrections) for C, C++,
 * Python, Go, Rust, JavaScript, TypeScript/TSX and Bash.
 */
#include "indexer_int.h"


#include <stdlib.h>
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

static bool type_is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

/* Line after the end of node n, as the driver counts end lines. */
static uint32_t end_line(TSNode n)
{
	TSPoint a = ts_node_start_point(n), e = ts_node_end_point(n);
	return e.column == 0 && e.row > a.row ? e.row : e.row + 1;
}

/* Stretches the symbol's span to the end of node n. */
static void stretch_to(mi_ts_ctx *c, mi_symbol *s, TSNode n)
{
	size_t len;
	uint32_t base;
	mi_ts_src(c, &len, &base);
	s->end_byte = ts_node_end_byte(n) + base;
	s->end_line = end_line(n);
}

/* Folded text of src[a, b): runs of white space become one space. */
static const char *folded(mi_ts_ctx *c, uint32_t a, uint32_t b)
{
	size_t len;
	uint32_t base;
	const char *src = mi_ts_src(c, &len, &base);
	if (b > len)
		b = (uint32_t)len;
	mi_buf o = {0};
	bool sp = false;
	for (uint32_t i = a; i < b && o.len < 400; i++) {
		unsigned char ch = (unsigned char)src[i];
		if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v') {
			sp = o.len > 0;
			continue;
		}
		if (sp && o.buf[o.len - 1] != '(' && ch != ')' && ch != ',')
			mi_buf_addc(&o, ' ');
		sp = false;
		mi_buf_addc(&o, (char)ch);
	}
	const char *r = mi_parsed_strndup(mi_ts_parsed(c), o.buf ? o.buf : "", o.len);
	mi_buf_release(&o);
	return r;
}

/* Doc comment of a C node from the comments just above it: markers
 * stripped, lines joined by newlines; NULL if none. */
static const char *c_doc_above(mi_ts_ctx *c, TSNode n)
{
	TSNode items[16];
	int k = 0;
	uint32_t want = ts_node_start_point(n).row;
	for (TSNode p = ts_node_prev_sibling(n); !ts_node_is_null(p) && k < 16;
	     p = ts_node_prev_sibling(p)) {
		if (!strstr(ts_node_type(p), "comment"))
			break;
		uint32_t er = ts_node_end_point(p).row;
		if (ts_node_end_point(p).column == 0 && er > 0)
			er--; /* a line comment that holds its newline */
		if (er + 1 < want)
			break;
		items[k++] = p;
		want = ts_node_start_point(p).row;
	}
	if (!k)
		return NULL;
	mi_buf b = {0};
	for (int i = k - 1; i >= 0; i--) {
		uint32_t tl;
		const char *t = mi_ts_text(c, &items[i], &tl);
		uint32_t j = 0;
		while (j < tl) {
			uint32_t e = j;
			while (e < tl && t[e] != '\n')
				e++;
			uint32_t a = j, z = e;
			while (a < z && (t[a] == ' ' || t[a] == '\t'))
				a++;
			if (z - a >= 2 && (!memcmp(t + a, "/*", 2) || !memcmp(t + a, "//", 2)))
				a += 2;
			while (a < z && (t[a] == '*' || t[a] == '/' || t[a] == '!'))
				a++;
			while (z > a && (t[z - 1] == ' ' || t[z - 1] == '\t' || t[z - 1] == '\r'))
				z--;
			if (z - a >= 2 && !memcmp(t + z - 2, "*/", 2))
				z -= 2;
			while (z > a && (t[z - 1] == '*' || t[z - 1] == ' ' || t[z - 1] == '\t'))
				z--;
			while (a < z && (t[a] == ' ' || t[a] == '\t'))
				a++;
			if (z > a) {
				if (b.len)
					mi_buf_addc(&b, '\n');
				mi_buf_add(&b, t + a, z - a);
			}
			j = e + 1;
		}
	}
	const char *r = b.len ? mi_parsed_strndup(mi_ts_parsed(c), b.buf, b.len) : NULL;
	mi_buf_release(&b);
	return r;
}

/*
 * C: `static` at file scope means private to the file.  A function made by
 * a macro (SYSCALL_DEFINE3(...) { }) or one whose header the grammar could
 * not read is captured as the statement or error before its block: its span
 * runs to the end of that block, and a header in an error starts at the
 * tokens on the name's line.  A struct/union/enum inside a typedef takes the
 * typedef's doc comment; the alias name gets a signature of its own.
 */
MI_FIX(c)
{
	TSNode n = *(TSNode *)def_node;
	const char *t = ts_node_type(n);
	if (has_child_text(c, n, "storage_class_specifier", "static"))
		s->vis = MI_VIS_PRIVATE;
	if (s->kind == MI_KIND_FUNCTION &&
	    (!strcmp(t, "expression_statement") || !strcmp(t, "ERROR"))) {
		TSNode b = ts_node_next_named_sibling(n);
		if (!ts_node_is_null(b) && !strcmp(ts_node_type(b), "compound_statement"))
			stretch_to(c, s, b);
		if (!strcmp(t, "ERROR")) {
			size_t len;
			uint32_t base;
			mi_ts_src(c, &len, &base);
			uint32_t cnt = ts_node_named_child_count(n);
			TSNode last = ts_node_named_child(n, cnt - 1), first = last;
			uint32_t row = ts_node_start_point(last).row;
			for (uint32_t i = cnt - 1; i-- > 0;) {
				TSNode ch = ts_node_named_child(n, i);
				if (ts_node_end_point(ch).row != row || ts_node_is_error(ch) ||
				    !strcmp(ts_node_type(ch), "compound_statement"))
					break;
				first = ch;
			}
			if (ts_node_start_byte(first) + base > s->start_byte) {
				s->start_byte = ts_node_start_byte(first) + base;
				s->start_line = ts_node_start_point(first).row + 1;
			}
			if (s->body_byte > s->start_byte)
				s->sig = folded(c, s->start_byte - base, s->body_byte - base);
			if (!strcmp(ts_node_type(first), "parameter_declaration") && has_child_text(c, first, "storage_class_specifier", "static"))
				s->vis = MI_VIS_PRIVATE;
		}
	}
	if ((s->kind == MI_KIND_STRUCT || s->kind == MI_KIND_UNION || s->kind == MI_KIND_ENUM) &&
	    !strcmp(t, "type_definition") && s->body_byte) {
		/* typedef struct { ... } point: "typedef struct point" */
		size_t len;
		uint32_t base;
		mi_ts_src(c, &len, &base);
		mi_buf b = {0};
		mi_buf_adds(&b, folded(c, s->start_byte - base, s->body_byte - base));
		mi_buf_addc(&b, ' ');
		mi_buf_adds(&b, s->name);
		s->sig = mi_parsed_strndup(mi_ts_parsed(c), b.buf, b.len);
		mi_buf_release(&b);
	}
	TSNode par = ts_node_parent(n);
	if (!ts_node_is_null(par) && !strcmp(ts_node_type(par), "type_definition") &&
	    (s->kind == MI_KIND_STRUCT || s->kind == MI_KIND_UNION || s->kind == MI_KIND_ENUM) &&
	    !s->doc[0]) {
		const char *d = c_doc_above(c, par);
		if (d)
			s->doc = d;
	}
	if (s->kind == MI_KIND_TYPEDEF && (!strcmp(t, "type_identifier"))) {
		/* typedef struct tag { ... } name: "typedef struct tag name" */
		TSNode td = n;
		while (!ts_node_is_null(td) && strcmp(ts_node_type(td), "type_definition"))
			td = ts_node_parent(td);
		if (!ts_node_is_null(td)) {
			TSNode ty = ts_node_child_by_field_name(td, "type", 4);
			TSNode body = ts_node_child_by_field_name(ty, "body", 4);
			if (!ts_node_is_null(ty) && !ts_node_is_null(body)) {
				mi_buf b = {0};
				uint32_t tl;
				const char *tt = mi_ts_text(c, &ty, &tl);
				mi_buf_adds(&b, "typedef ");
				mi_buf_add(&b, tt, ts_node_start_byte(body) - ts_node_start_byte(ty));
				while (b.len && b.buf[b.len - 1] == ' ')
					b.len--;
				mi_buf_addc(&b, ' ');
				if (!strcmp(ts_node_type(ts_node_parent(n)), "pointer_declarator"))
					mi_buf_addc(&b, '*');
				mi_buf_adds(&b, s->name);
				s->sig = mi_parsed_strndup(mi_ts_parsed(c), b.buf, b.len);
				mi_buf_release(&b);
			}
			const char *d = s->doc[0] ? NULL : c_doc_above(c, td);
			if (d)
				s->doc = d;
		}
	}
}

/* Access of a class member: the last access label before it, else the
 * default of its class (class: private, struct/union: public). */
static bool cpp_member_private(mi_ts_ctx *c, TSNode member)
{
	TSNode list = ts_node_parent(member);
	if (type_is(list, "template_declaration")) {
		member = list;
		list = ts_node_parent(list);
	}
	if (!type_is(list, "field_declaration_list"))
		return false;
	for (TSNode p = ts_node_prev_named_sibling(member); !ts_node_is_null(p);
	     p = ts_node_prev_named_sibling(p)) {
		if (!type_is(p, "access_specifier"))
			continue;
		uint32_t tl;
		const char *t = mi_ts_text(c, &p, &tl);
		return !(tl >= 6 && !memcmp(t, "public", 6));
	}
	return type_is(ts_node_parent(list), "class_specifier");
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
	bool member = type_is(ts_node_parent(n), "field_declaration_list") ||
		(type_is(ts_node_parent(n), "template_declaration") &&
		 type_is(ts_node_parent(ts_node_parent(n)), "field_declaration_list"));
	if (has_child_text(c, n, "storage_class_specifier", "static")) {
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
		if (type_is(up, "template_declaration"))
			up = ts_node_parent(up);
		if (type_is(up, "declaration_list") && type_is(ts_node_parent(up), "namespace_definition"))
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

/* First descendant of n (depth first) of type `type`, or a null node. */
static TSNode find_desc(TSNode n, const char *type, int depth)
{
	if (!strcmp(ts_node_type(n), type))
		return n;
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; depth > 0 && i < k; i++) {
		TSNode r = find_desc(ts_node_named_child(n, i), type, depth - 1);
		if (!ts_node_is_null(r))
			return r;
	}
	TSNode null = {{0}, 0, 0};
	return null;
}

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
		TSNode ty = ts_node_is_null(recv) ? recv : find_desc(recv, "type_identifier", 4);
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
		if (type_is(decl, "var_spec_list"))
			decl = ts_node_parent(decl);
		if (!s->doc[0] && !ts_node_is_null(decl) && ts_node_named_child_count(decl) == 1) {
			const char *d = c_doc_above(c, decl);
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
		if (type_is(ts_node_named_child(n, i), "visibility_modifier"))
			pub = true;
	TSNode list = ts_node_parent(n);
	TSNode owner = ts_node_is_null(list) ? list : ts_node_parent(list);
	if (!strcmp(t, "enum_variant") || type_is(owner, "trait_item"))
		pub = true;
	if (type_is(owner, "impl_item") &&
	    !ts_node_is_null(ts_node_child_by_field_name(owner, "trait", 5)))
		pub = true;
	if (!strcmp(t, "impl_item"))
		pub = true; /* an impl block has no visibility of its own */
	if (!strcmp(t, "field_declaration") && type_is(owner, "enum_variant"))
		pub = true;
	s->vis = pub ? MI_VIS_PUBLIC : MI_VIS_PRIVATE;
	/* attributes above the item: doc comments are above them */
	TSNode anchor = n;
	for (TSNode p = ts_node_prev_sibling(n); type_is(p, "attribute_item");
	     p = ts_node_prev_sibling(p)) {
		uint32_t tl;
		const char *at = mi_ts_text(c, &p, &tl);
		if ((tl >= 7 && !memcmp(at, "#[test]", 7)) || (tl > 8 && memmem(at, tl, "::test]", 7)))
			s->flags |= MI_SYMF_TEST;
		anchor = p;
	}
	if (!s->doc[0] && !ts_node_eq(anchor, n)) {
		const char *d = c_doc_above(c, anchor);
		if (d)
			s->doc = d;
	}
	if (!strcmp(t, "function_item") && s->kind == MI_KIND_METHOD && type_is(owner, "mod_item"))
		s->kind = MI_KIND_FUNCTION;
	if (!strcmp(t, "macro_definition")) {
		mi_buf b = {0};
		mi_buf_adds(&b, "macro_rules! ");
		mi_buf_adds(&b, s->name);
		s->sig = mi_parsed_strndup(mi_ts_parsed(c), b.buf, b.len);
		mi_buf_release(&b);
	}
	if (!strcmp(t, "function_item")) {
		TSNode mods = find_desc(n, "function_modifiers", 1);
		if (!ts_node_is_null(mods) && has_child_text(c, mods, "async", "async"))
			s->flags |= MI_SYMF_ASYNC;
	}
}
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
		if (!type_is(ch, "export_statement") ||
		    !ts_node_is_null(ts_node_child_by_field_name(ch, "declaration", 11)) ||
		    !ts_node_is_null(ts_node_child_by_field_name(ch, "source", 6)))
			continue;
		uint32_t m = ts_node_named_child_count(ch);
		for (uint32_t j = 0; j < m; j++) {
			TSNode e = ts_node_named_child(ch, j);
			if (type_is(e, "identifier")) {
				uint32_t tl;
				const char *tt = mi_ts_text(c, &e, &tl);
				if (tl == nl && !memcmp(tt, name, nl))
					return true;
			}
			if (!type_is(e, "export_clause"))
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
MI_FIX(javascript)
{
	TSNode n = *(TSNode *)def_node;
	TSNode root = n;
	for (TSNode p = ts_node_parent(root); !ts_node_is_null(p); p = ts_node_parent(p))
		root = p;
	js_scan(c, root);
	TSNode up = ts_node_parent(n);
	bool exported = type_is(up, "export_statement");
	if (type_is(up, "ambient_declaration")) /* declare function f(): public API */
		exported = true;
	TSNode blk = type_is(up, "export_statement") ? ts_node_parent(up) : up;
	TSNode ns = type_is(blk, "statement_block") ? ts_node_parent(blk) : blk;
	if (type_is(ns, "internal_module") || type_is(ns, "module")) {
		/* namespace N { export function f() } : functions, exported or not */
		const char *t = ts_node_type(n);
		if (s->kind == MI_KIND_METHOD && (strstr(t, "function") || strstr(t, "declaration")))
			s->kind = MI_KIND_FUNCTION;
		if (type_is(ns, "internal_module") && !exported)
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

MI_FIX(typescript)
{
	mi_fix_javascript(c, def_node, s);
}
MI_FIX(bash) { (void)c; (void)def_node; (void)s; }

/* ---- C/C++ prefilter ------------------------------------------------------ */

/* Attribute macros read as nothing, and those followed by (arguments). */
static const char *const c_attr_bare[] = {
	"__init", "__exit", "__initdata", "__exitdata", "__initconst", "__ref",
	"__sched", "__cold", "__hot", "__always_inline", "noinline", "__noinline",
	"__visible", "asmlinkage", "notrace", "__weak", "__must_check",
	"__maybe_unused", "__used", "__noreturn", "__pure", "__latent_entropy",
	"__iomem", "__user", "__kernel", "__rcu", "__percpu", "__force",
	"__read_mostly", "__ro_after_init", "__cpuidle", "noinstr", "__malloc",
	"__meminit", "__net_init", "__net_exit", "__init_or_module", "__kprobes",
	"__irq_entry", "__naked", "__randomize_layout", "__packed",
	"__cacheline_aligned", "__cacheline_aligned_in_smp", "__deprecated",
	"__attribute_const__", "__nocfi", "__flatten", "__no_kcsan",
	"__no_sanitize_address", "__safe", "__private", "__must_hold_rcu",
	"__always_unused", "__mustcheck", "__nonstring", "__designated_init",
	NULL,
};
static const char *const c_attr_args[] = {
	"__printf", "__scanf", "__alloc_size", "__realloc_size", "__acquires",
	"__releases", "__must_hold", "__section", "__aligned", "__assume_aligned",
	"__cond_acquires", "__cond_releases", "__counted_by", "__compiletime_error",
	"__diagnose_as", "__no_sanitize_or_inline", NULL,
};

static bool c_ident(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_';
}

static bool c_in_list(const char *const *list, const char *w, size_t n)
{
	for (size_t i = 0; list[i]; i++)
		if (strlen(list[i]) == n && !memcmp(list[i], w, n))
			return true;
	return false;
}

/*
 * File-level C definitions that the query would need patterns under every
 * kind of #if block for (each such parent costs tens of milliseconds of
 * query compilation, paid by every one-file rebuild): variables, and
 * macro-made functions such as SYSCALL_DEFINE3(read, ...) { ... } (a call
 * statement followed by a block; MI_FIX(c) stretches the span over the
 * block).  Walks the file's top level and its #if/#ifdef/#else/#elif
 * blocks with cursors (children in order, no parent lookups).
 */
enum { C_WALK_MACRO_FN, C_WALK_VAR };

static bool is_preproc_block(const char *t)
{
	return !strcmp(t, "preproc_ifdef") || !strcmp(t, "preproc_if") ||
	       !strcmp(t, "preproc_else") || !strcmp(t, "preproc_elif");
}

/* The name of `NAME(...);`: a call statement's called identifier. */
static bool macro_call_name(TSNode stmt, TSNode *name)
{
	uint32_t n = ts_node_named_child_count(stmt);
	for (uint32_t i = 0; i < n; i++) {
		TSNode ch = ts_node_named_child(stmt, i);
		if (strcmp(ts_node_type(ch), "call_expression"))
			continue;
		TSNode f = ts_node_child_by_field_name(ch, "function", 8);
		if (!ts_node_is_null(f) && !strcmp(ts_node_type(f), "identifier")) {
			*name = f;
			return true;
		}
	}
	return false;
}

static void c_walk_declaration(mi_ts_ctx *c, TSNode decl)
{
	TSTreeCursor cur = ts_tree_cursor_new(decl);
	if (ts_tree_cursor_goto_first_child(&cur)) {
		do {
			const char *f = ts_tree_cursor_current_field_name(&cur);
			if (!f || strcmp(f, "declarator"))
				continue;
			TSNode d = ts_tree_cursor_current_node(&cur);
			const char *t = ts_node_type(d);
			if (!strcmp(t, "init_declarator") || !strcmp(t, "pointer_declarator") ||
			    !strcmp(t, "array_declarator")) {
				/* each declarator of `int a = 1, *b;` is one variable */
				mi_ts_add_def(c, &decl, &d, NULL, MI_KIND_VARIABLE, C_WALK_VAR);
			} else if (!strcmp(t, "identifier")) {
				uint32_t len;
				const char *s = mi_ts_text(c, &d, &len);
				if (len < 2 || s[0] != '_' || s[1] != '_')
					mi_ts_add_def(c, &decl, &d, NULL, MI_KIND_VARIABLE,
						      C_WALK_VAR);
			}
		} while (ts_tree_cursor_goto_next_sibling(&cur));
	}
	ts_tree_cursor_delete(&cur);
}

/* Children of parent: with emit (the file itself, an #if block), its
 * declarations and macro-made functions are definitions; #if blocks and
 * ERROR nodes (the grammar may wrap much of a file in one) are searched for
 * more #if blocks.  Function and struct bodies are not entered: a variable
 * there is local whether or not an #if surrounds it. */
static void c_walk_level(mi_ts_ctx *c, TSNode parent, bool emit, int depth)
{
	TSTreeCursor cur = ts_tree_cursor_new(parent);
	TSNode prev = {{0}, 0, 0}; /* the previous named child */
	if (depth < 256 && ts_tree_cursor_goto_first_child(&cur)) {
		do {
			TSNode n = ts_tree_cursor_current_node(&cur);
			if (!ts_node_is_named(n))
				continue;
			const char *t = ts_node_type(n);
			TSNode name;
			if (is_preproc_block(t))
				c_walk_level(c, n, true, depth + 1);
			else if (!strcmp(t, "ERROR"))
				c_walk_level(c, n, false, depth + 1);
			else if (!emit)
				;
			else if (!strcmp(t, "declaration"))
				c_walk_declaration(c, n);
			else if (!strcmp(t, "compound_statement") && !ts_node_is_null(prev) &&
				 !strcmp(ts_node_type(prev), "expression_statement") &&
				 macro_call_name(prev, &name))
				mi_ts_add_def(c, &prev, &name, &n, MI_KIND_FUNCTION, C_WALK_MACRO_FN);
			prev = n;
		} while (ts_tree_cursor_goto_next_sibling(&cur));
	}
	ts_tree_cursor_delete(&cur);
}

void mi_c_walk(mi_ts_ctx *c, void *root)
{
	c_walk_level(c, *(TSNode *)root, true, 0);
}

char *mi_c_prefilter(const char *src, size_t len)
{
	char *out = NULL;
	size_t i = 0;
	bool line_start = true, pp = false;
	while (i < len) {
		char ch = src[i];
		if (ch == '\n') {
			/* a preprocessor line goes on after a backslash */
			if (!(pp && i > 0 && src[i - 1] == '\\'))
				pp = false;
			line_start = true;
			i++;
			continue;
		}
		if (line_start && ch == '#')
			pp = true;
		if (ch != ' ' && ch != '\t')
			line_start = false;
		if (ch == '/' && i + 1 < len && src[i + 1] == '*') {
			const char *e = memmem(src + i + 2, len - i - 2, "*/", 2);
			i = e ? (size_t)(e - src) + 2 : len;
			continue;
		}
		if (ch == '/' && i + 1 < len && src[i + 1] == '/') {
			while (i < len && src[i] != '\n')
				i++;
			continue;
		}
		if (ch == '"' || ch == '\'') {
			size_t j = i + 1;
			while (j < len && src[j] != ch && src[j] != '\n')
				j += src[j] == '\\' ? 2 : 1;
			i = j + 1;
			continue;
		}
		if (!c_ident(ch) || (i > 0 && c_ident(src[i - 1]))) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < len && c_ident(src[j]))
			j++;
		size_t end = 0;
		if (!pp && (src[i] == '_' || src[i] == 'a' || src[i] == 'n')) {
			if (c_in_list(c_attr_bare, src + i, j - i)) {
				end = j;
			} else if (c_in_list(c_attr_args, src + i, j - i)) {
				size_t k = j;
				while (k < len && (src[k] == ' ' || src[k] == '\t'))
					k++;
				if (k < len && src[k] == '(') {
					int depth = 0;
					for (; k < len; k++) {
						if (src[k] == '(')
							depth++;
						else if (src[k] == ')' && --depth == 0)
							break;
					}
					if (k < len)
						end = k + 1;
				}
			}
		}
		if (end) {
			if (!out) {
				out = malloc(len ? len : 1);
				if (!out)
					return NULL;
				memcpy(out, src, len);
			}
			for (size_t k = i; k < end; k++)
				if (out[k] != '\n')
					out[k] = ' ';
		}
		i = end ? end : j;
	}
	return out;
}
