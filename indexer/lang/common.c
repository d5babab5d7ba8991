/*
 * common.c - helpers shared by the language files: node tests, modifier
 * lookups, folded signatures, declarations of several declarators.
 */
#include "lang_int.h"

#include <ctype.h>
#include <string.h>

bool mi_ts_has_child_text(mi_ts_ctx *c, TSNode node, const char *type, const char *text)
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

bool mi_ts_type_is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

bool mi_ts_under(TSNode n, const char *const *types)
{
	/* down from the root, one child a step: O(depth) */
	TSNode a = ts_tree_root_node(n.tree);
	while (!ts_node_is_null(a) && !ts_node_eq(a, n)) {
		for (const char *const *t = types; *t; t++)
			if (!strcmp(ts_node_type(a), *t))
				return true;
		a = ts_node_child_with_descendant(a, n);
	}
	return false;
}

/* First descendant of n (depth first) of type `type`, or a null node. */
TSNode mi_ts_find_desc(TSNode n, const char *type, int depth)
{
	if (!strcmp(ts_node_type(n), type))
		return n;
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; depth > 0 && i < k; i++) {
		TSNode r = mi_ts_find_desc(ts_node_named_child(n, i), type, depth - 1);
		if (!ts_node_is_null(r))
			return r;
	}
	TSNode null = {{0}, 0, 0};
	return null;
}

bool mi_ts_text_is(mi_ts_ctx *c, TSNode n, const char *text)
{
	uint32_t tl;
	const char *t = mi_ts_text(c, &n, &tl);
	return tl == strlen(text) && !memcmp(t, text, tl);
}

/* true if a leaf with text `word` is a direct child of n, or sits inside a
 * direct child whose type names a modifier list ("modifiers", "modifier",
 * "visibility_modifier", ...), at most three levels down. */
bool mi_ts_leaf_in(mi_ts_ctx *c, TSNode n, const char *word, int depth)
{
	uint32_t k = ts_node_child_count(n);
	if (!k)
		return mi_ts_text_is(c, n, word);
	if (depth <= 0)
		return false;
	for (uint32_t i = 0; i < k; i++)
		if (mi_ts_leaf_in(c, ts_node_child(n, i), word, depth - 1))
			return true;
	return false;
}

bool mi_ts_has_child_type(TSNode n, const char *type)
{
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k; i++)
		if (mi_ts_type_is(ts_node_named_child(n, i), type))
			return true;
	return false;
}

/* Modifier `word` of n: a leaf inside a child whose type names a modifier
 * list ("modifiers", "modifier", "visibility_modifier", ...), or, when
 * bare is true, also a keyword that is a direct child of n. */
bool mi_ts_modifier_in(mi_ts_ctx *c, TSNode n, const char *word, bool bare)
{
	uint32_t k = ts_node_child_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_child(n, i);
		const char *t = ts_node_type(ch);
		if (strstr(t, "modifier")) {
			if (mi_ts_leaf_in(c, ch, word, 3))
				return true;
		} else if (bare && !ts_node_child_count(ch) && !ts_node_is_named(ch) &&
			   mi_ts_text_is(c, ch, word)) {
			return true;
		}
	}
	return false;
}

bool mi_ts_has_modifier(mi_ts_ctx *c, TSNode n, const char *word)
{
	return mi_ts_modifier_in(c, n, word, true);
}

/* Appends src[a, b) to out with comments dropped and white space folded to single spaces (none
 * after '(' or '[', none before ')' ']' ','). */
void mi_ts_add_folded(mi_ts_ctx *c, mi_buf *out, uint32_t a, uint32_t b)
{
	size_t len;
	uint32_t base;
	mi_ts_src(c, &len, &base);
	if (b > len)
		b = (uint32_t)len;
	if (a >= b)
		return;
	const char *t = mi_ts_uncomment(c, a, b);
	bool space = out->len > 0;
	for (uint32_t i = 0; i < b - a; i++) {
		unsigned char ch = (unsigned char)t[i];
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
void mi_ts_set_sig(mi_ts_ctx *c, mi_symbol *s, uint32_t a, uint32_t b)
{
	mi_buf o = {0};
	mi_ts_add_folded(c, &o, a, b);
	while (o.len && (o.buf[o.len - 1] == ';' || o.buf[o.len - 1] == ' '))
		o.len--;
	s->sig = mi_parsed_strndup(mi_ts_parsed(c), o.len ? o.buf : "", o.len);
	mi_buf_release(&o);
}

/* Drops a trailing ';' from the signature the driver computed. */
void mi_ts_trim_sig(mi_ts_ctx *c, mi_symbol *s)
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
	if (vl <= MI_SIG_VALUE_MAX && !memchr(v, '\n', vl))
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
TSNode mi_ts_split_declarators(mi_ts_ctx *c, TSNode def, mi_symbol *s,
				const char *decl_type, const char *list_type)
{
	TSNode null = {{0}, 0, 0};
	TSNode decl = null, list = def, owner = def;
	uint32_t base;
	size_t len;
	if (mi_ts_type_is(def, decl_type)) {
		decl = def;
		list = ts_node_parent(def);
		owner = list_type && !ts_node_is_null(list) ? ts_node_parent(list) : list;
	} else {
		uint32_t k = ts_node_named_child_count(def);
		for (uint32_t i = 0; list_type && i < k; i++)
			if (mi_ts_type_is(ts_node_named_child(def, i), list_type))
				list = ts_node_named_child(def, i);
		k = ts_node_named_child_count(list);
		for (uint32_t i = 0; i < k && ts_node_is_null(decl); i++)
			if (mi_ts_type_is(ts_node_named_child(list, i), decl_type))
				decl = ts_node_named_child(list, i);
	}
	if (ts_node_is_null(decl) || ts_node_is_null(list) || ts_node_is_null(owner))
		return def;
	TSNode type = ts_node_child_by_field_name(list, "type", 4);
	mi_ts_src(c, &len, &base);
	mi_buf o = {0};
	uint32_t pre_end = 0;
	if (!ts_node_is_null(type)) {
		pre_end = ts_node_end_byte(type);
	} else {
		/* no type: the prefix is what precedes the first declarator */
		uint32_t k = ts_node_named_child_count(list);
		pre_end = ts_node_start_byte(decl);
		for (uint32_t i = 0; i < k; i++)
			if (mi_ts_type_is(ts_node_named_child(list, i), decl_type)) {
				pre_end = ts_node_start_byte(ts_node_named_child(list, i));
				break;
			}
	}
	mi_ts_add_folded(c, &o, ts_node_start_byte(owner), pre_end);
	mi_ts_add_folded(c, &o, ts_node_start_byte(decl), declarator_sig_end(c, decl));
	s->sig = mi_parsed_strndup(mi_ts_parsed(c), o.buf ? o.buf : "", o.len);
	mi_buf_release(&o);
	if (ts_node_eq(owner, def)) {
		/* span: the first symbol stops at its declarator when more follow */
		TSNode next = ts_node_next_named_sibling(decl);
		while (!ts_node_is_null(next) && !mi_ts_type_is(next, decl_type))
			next = ts_node_next_named_sibling(next);
		if (!ts_node_is_null(next)) {
			s->end_byte = ts_node_end_byte(decl) + base;
			s->end_line = ts_node_end_point(decl).row + 1;
		}
	}
	return owner;
}

void mi_ts_set_name(mi_ts_ctx *c, mi_symbol *s, const char *prefix)
{
	mi_buf b = {0};
	mi_buf_adds(&b, prefix);
	mi_buf_adds(&b, s->name);
	s->name = mi_parsed_strndup(mi_ts_parsed(c), b.buf, b.len);
	mi_buf_release(&b);
}
