/*
 * c_tags.c - C's tags query (c.scm) as one walk over the tree.  The query
 * engine keeps a state per partly matched pattern at every node and was a
 * sixth of the CPU time of a kernel build; here each node's type picks the
 * few patterns that can start at it, and each is checked by looking at the
 * node's children.  c.scm stays the specification (same pattern numbers,
 * same captures): MCPIDX_PARSE_QUERY=1 runs it instead, and the tests and
 * bench/parse-check.sh compare the two on real sources.
 */
#include "lang_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The node types the patterns name. */
enum {
	T_ARGUMENT_LIST, T_ARRAY_DECLARATOR, T_ASSIGNMENT_EXPRESSION, T_ATTRIBUTED_DECLARATOR,
	T_BINARY_EXPRESSION, T_CALL_EXPRESSION, T_CAST_EXPRESSION, T_COMPOUND_STATEMENT,
	T_CONDITIONAL_EXPRESSION, T_DECLARATION, T_ENUM_SPECIFIER, T_ENUMERATOR,
	T_ENUMERATOR_LIST, T_ERROR, T_EXPRESSION_STATEMENT, T_FIELD_DECLARATION,
	T_FIELD_DECLARATION_LIST, T_FIELD_EXPRESSION, T_FIELD_IDENTIFIER,
	T_FUNCTION_DECLARATOR, T_FUNCTION_DEFINITION, T_IDENTIFIER, T_INIT_DECLARATOR,
	T_INITIALIZER_LIST, T_INITIALIZER_PAIR, T_MACRO_TYPE_SPECIFIER, T_PARAMETER_DECLARATION,
	T_PARAMETER_LIST, T_PARENTHESIZED_DECLARATOR, T_PARENTHESIZED_EXPRESSION,
	T_POINTER_DECLARATOR, T_POINTER_EXPRESSION, T_PREPROC_ARG, T_PREPROC_DEF,
	T_PREPROC_FUNCTION_DEF, T_PREPROC_INCLUDE, T_PREPROC_PARAMS, T_PRIMITIVE_TYPE,
	T_RETURN_STATEMENT, T_SIZED_TYPE_SPECIFIER, T_STRUCT_SPECIFIER, T_TYPE_DEFINITION,
	T_TYPE_DESCRIPTOR, T_TYPE_IDENTIFIER, T_UNION_SPECIFIER, T_EQ, T_NE, T_AMP,
	T__COUNT
};

static const struct { const char *name; bool named; } type_names[T__COUNT] = {
	[T_ARGUMENT_LIST] = {"argument_list", true},
	[T_ARRAY_DECLARATOR] = {"array_declarator", true},
	[T_ASSIGNMENT_EXPRESSION] = {"assignment_expression", true},
	[T_ATTRIBUTED_DECLARATOR] = {"attributed_declarator", true},
	[T_BINARY_EXPRESSION] = {"binary_expression", true},
	[T_CALL_EXPRESSION] = {"call_expression", true},
	[T_CAST_EXPRESSION] = {"cast_expression", true},
	[T_COMPOUND_STATEMENT] = {"compound_statement", true},
	[T_CONDITIONAL_EXPRESSION] = {"conditional_expression", true},
	[T_DECLARATION] = {"declaration", true},
	[T_ENUM_SPECIFIER] = {"enum_specifier", true},
	[T_ENUMERATOR] = {"enumerator", true},
	[T_ENUMERATOR_LIST] = {"enumerator_list", true},
	[T_ERROR] = {"ERROR", true},
	[T_EXPRESSION_STATEMENT] = {"expression_statement", true},
	[T_FIELD_DECLARATION] = {"field_declaration", true},
	[T_FIELD_DECLARATION_LIST] = {"field_declaration_list", true},
	[T_FIELD_EXPRESSION] = {"field_expression", true},
	[T_FIELD_IDENTIFIER] = {"field_identifier", true},
	[T_FUNCTION_DECLARATOR] = {"function_declarator", true},
	[T_FUNCTION_DEFINITION] = {"function_definition", true},
	[T_IDENTIFIER] = {"identifier", true},
	[T_INIT_DECLARATOR] = {"init_declarator", true},
	[T_INITIALIZER_LIST] = {"initializer_list", true},
	[T_INITIALIZER_PAIR] = {"initializer_pair", true},
	[T_MACRO_TYPE_SPECIFIER] = {"macro_type_specifier", true},
	[T_PARAMETER_DECLARATION] = {"parameter_declaration", true},
	[T_PARAMETER_LIST] = {"parameter_list", true},
	[T_PARENTHESIZED_DECLARATOR] = {"parenthesized_declarator", true},
	[T_PARENTHESIZED_EXPRESSION] = {"parenthesized_expression", true},
	[T_POINTER_DECLARATOR] = {"pointer_declarator", true},
	[T_POINTER_EXPRESSION] = {"pointer_expression", true},
	[T_PREPROC_ARG] = {"preproc_arg", true},
	[T_PREPROC_DEF] = {"preproc_def", true},
	[T_PREPROC_FUNCTION_DEF] = {"preproc_function_def", true},
	[T_PREPROC_INCLUDE] = {"preproc_include", true},
	[T_PREPROC_PARAMS] = {"preproc_params", true},
	[T_PRIMITIVE_TYPE] = {"primitive_type", true},
	[T_RETURN_STATEMENT] = {"return_statement", true},
	[T_SIZED_TYPE_SPECIFIER] = {"sized_type_specifier", true},
	[T_STRUCT_SPECIFIER] = {"struct_specifier", true},
	[T_TYPE_DEFINITION] = {"type_definition", true},
	[T_TYPE_DESCRIPTOR] = {"type_descriptor", true},
	[T_TYPE_IDENTIFIER] = {"type_identifier", true},
	[T_UNION_SPECIFIER] = {"union_specifier", true},
	[T_EQ] = {"==", false},
	[T_NE] = {"!=", false},
	[T_AMP] = {"&", false},
};

/* The fields the patterns name. */
enum {
	F_ALTERNATIVE, F_ARGUMENT, F_ARGUMENTS, F_BODY, F_CONSEQUENCE, F_DECLARATOR, F_FIELD,
	F_FUNCTION, F_NAME, F_OPERATOR, F_PARAMETERS, F_PATH, F_RIGHT, F_TYPE, F_VALUE,
	F__COUNT
};

static const char *const field_names[F__COUNT] = {
	[F_ALTERNATIVE] = "alternative", [F_ARGUMENT] = "argument", [F_ARGUMENTS] = "arguments",
	[F_BODY] = "body", [F_CONSEQUENCE] = "consequence", [F_DECLARATOR] = "declarator",
	[F_FIELD] = "field", [F_FUNCTION] = "function", [F_NAME] = "name",
	[F_OPERATOR] = "operator", [F_PARAMETERS] = "parameters", [F_PATH] = "path",
	[F_RIGHT] = "right", [F_TYPE] = "type", [F_VALUE] = "value",
};

/* c.scm's patterns, by index (the order of the file). */
enum {
	P_FN_MACRO_TYPE, P_FN_DECLARATOR, P_FN_ANY, P_ERR_FN, P_ERR_PTR_FN, P_ERR_PARAM_FN,
	P_PROTOTYPE, P_STRUCT, P_UNION, P_ENUM, P_TD_STRUCT, P_TD_UNION, P_TD_ENUM,
	P_TD_TAGGED, P_TD_TAGGED_PTR, P_TYPEDEF, P_FIELD, P_ENUMERATOR, P_MACRO, P_MACRO_FN,
	P_CALL, P_INCLUDE, P_V_ARGUMENT, P_V_PAIR, P_V_LIST, P_V_ASSIGN, P_V_INIT, P_V_COND,
	P_V_COMPARE, P_V_RETURN, P_V_CAST, P_V_ADDRESS, P_V_MACRO_TYPE, P_V_MACRO_DECL,
	P_L_MACRO_ARGS, P_L_KR_PARAMS,
	P_L_PARAM, P_L_DECL, P_SCAN_MACRO_FN, P_SCAN_MACRO,
	P__COUNT
};

#define NO_SYM 0 /* the end symbol: no node of a tree has it */

static struct {
	TSSymbol sym[T__COUNT];
	TSFieldId field[F__COUNT];
	uint8_t *role;           /* public symbol -> T_* + 1 of the pattern roots, 0 else */
	uint32_t nsyms;
} g;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

const TSLanguage *tree_sitter_c(void);

static void c_tags_init(void)
{
	const TSLanguage *l = tree_sitter_c();
	for (int t = 0; t < T__COUNT; t++) {
		TSSymbol s = ts_language_symbol_for_name(l, type_names[t].name,
							 (uint32_t)strlen(type_names[t].name),
							 type_names[t].named);
		g.sym[t] = s ? s : NO_SYM;
	}
	for (int f = 0; f < F__COUNT; f++)
		g.field[f] = ts_language_field_id_for_name(l, field_names[f],
							   (uint32_t)strlen(field_names[f]));
	g.nsyms = ts_language_symbol_count(l);
	g.role = mi_xcalloc(g.nsyms ? g.nsyms : 1, 1);
	static const int roots[] = {
		T_FUNCTION_DEFINITION, T_ERROR, T_DECLARATION, T_STRUCT_SPECIFIER,
		T_UNION_SPECIFIER, T_ENUM_SPECIFIER, T_TYPE_DEFINITION, T_FIELD_DECLARATION_LIST,
		T_ENUMERATOR, T_PREPROC_DEF, T_PREPROC_FUNCTION_DEF, T_CALL_EXPRESSION,
		T_PREPROC_INCLUDE, T_INITIALIZER_PAIR, T_INITIALIZER_LIST,
		T_ASSIGNMENT_EXPRESSION, T_INIT_DECLARATOR, T_CONDITIONAL_EXPRESSION,
		T_BINARY_EXPRESSION, T_CAST_EXPRESSION, T_POINTER_EXPRESSION,
		T_PARAMETER_DECLARATION, T_IDENTIFIER, T_COMPOUND_STATEMENT,
		T_MACRO_TYPE_SPECIFIER,
	};
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (g.sym[roots[i]] < g.nsyms)
			g.role[g.sym[roots[i]]] = (uint8_t)(roots[i] + 1);
}

/* One walk: the context and two cursors for going over children. */
typedef struct cw {
	mi_ts_ctx *c;
	TSTreeCursor kid[2];
} cw;

static bool is(TSNode n, int t)
{
	return !ts_node_is_null(n) && ts_node_symbol(n) == g.sym[t];
}

/* A query's (_): a named node that is not an ERROR. */
static bool any_named(TSNode n)
{
	return !ts_node_is_null(n) && ts_node_is_named(n) && ts_node_symbol(n) != g.sym[T_ERROR];
}

static TSNode field(TSNode n, int f)
{
	return ts_node_child_by_field_id(n, g.field[f]);
}

/* Children of n, in order, with kid cursor k: first/next give the child
 * and its field id. */
static bool kid_first(cw *w, int k, TSNode n, TSNode *out, TSFieldId *f)
{
	ts_tree_cursor_reset(&w->kid[k], n);
	if (!ts_tree_cursor_goto_first_child(&w->kid[k]))
		return false;
	*out = ts_tree_cursor_current_node(&w->kid[k]);
	*f = ts_tree_cursor_current_field_id(&w->kid[k]);
	return true;
}

static bool kid_next(cw *w, int k, TSNode *out, TSFieldId *f)
{
	if (!ts_tree_cursor_goto_next_sibling(&w->kid[k]))
		return false;
	*out = ts_tree_cursor_current_node(&w->kid[k]);
	*f = ts_tree_cursor_current_field_id(&w->kid[k]);
	return true;
}

#define EACH_KID(w, k, n, ch, fid) \
	for (bool more_ = kid_first(w, k, n, &ch, &fid); more_; more_ = kid_next(w, k, &ch, &fid))

/* The patterns' (#not-match? @name "^[A-Z0-9_]+$"): not a constant. */
static bool not_caps(cw *w, TSNode n)
{
	uint32_t len;
	const char *s = mi_ts_text(w->c, &n, &len);
	if (!len)
		return true;
	for (uint32_t i = 0; i < len; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return true;
	return false;
}

static void match(cw *w, TSNode def, TSNode name, TSNode body, int kind, int pattern)
{
	mi_ts_add_match(w->c, &def, ts_node_is_null(name) ? NULL : &name,
			ts_node_is_null(body) ? NULL : &body, kind, pattern);
}

static void value_ref(cw *w, TSNode n)
{
	if (is(n, T_IDENTIFIER) && not_caps(w, n))
		mi_ts_add_ref(w->c, &n, MI_REF_VALUE);
}

/* d is `(T declarator: (identifier))`: that identifier. */
static bool declares(TSNode d, int t, TSNode *name)
{
	if (!is(d, t))
		return false;
	*name = field(d, F_DECLARATOR);
	return is(*name, T_IDENTIFIER);
}

/* The function declarator forms of patterns 1 and 6:
 * (function_declarator declarator: (identifier) @name), under one or two
 * pointer_declarators. */
static bool fn_declarator(TSNode d, TSNode *name)
{
	for (int ptrs = 0; ptrs <= 2; ptrs++) {
		if (declares(d, T_FUNCTION_DECLARATOR, name))
			return true;
		if (!is(d, T_POINTER_DECLARATOR))
			return false;
		d = field(d, F_DECLARATOR);
	}
	return false;
}

static const TSNode null_node = {{0}, 0, 0};

/* ---- definitions ---------------------------------------------------------- */

static void on_function_definition(cw *w, TSNode n)
{
	TSNode ty = field(n, F_TYPE), de = field(n, F_DECLARATOR), name, ch;
	TSFieldId f;
	if (is(ty, T_TYPE_IDENTIFIER) && is(de, T_PARENTHESIZED_DECLARATOR))
		match(w, n, ty, null_node, MI_KIND_FUNCTION, P_FN_MACRO_TYPE);
	if (fn_declarator(de, &name)) {
		match(w, n, name, null_node, MI_KIND_FUNCTION, P_FN_DECLARATOR);
	} else if (is(de, T_ATTRIBUTED_DECLARATOR)) {
		EACH_KID(w, 0, de, ch, f)
			if (declares(ch, T_FUNCTION_DECLARATOR, &name))
				match(w, n, name, null_node, MI_KIND_FUNCTION, P_FN_DECLARATOR);
	}
	match(w, n, null_node, null_node, MI_KIND_FUNCTION, P_FN_ANY);
}

/* ((ERROR (... @name) .) @definition.function . (compound_statement) @body):
 * a header the grammar could not read, then a block. */
static void on_error(cw *w, TSNode n, TSNode body)
{
	TSNode last = null_node, ch, name;
	TSFieldId f;
	int pattern = -1;
	EACH_KID(w, 0, n, ch, f)
		if (ts_node_is_named(ch))
			last = ch;
	if (declares(last, T_FUNCTION_DECLARATOR, &name))
		pattern = P_ERR_FN;
	else if ((is(last, T_POINTER_DECLARATOR) || is(last, T_PARAMETER_DECLARATION)) &&
		 declares(field(last, F_DECLARATOR), T_FUNCTION_DECLARATOR, &name))
		pattern = is(last, T_POINTER_DECLARATOR) ? P_ERR_PTR_FN : P_ERR_PARAM_FN;
	if (pattern >= 0)
		match(w, n, name, body, MI_KIND_FUNCTION, pattern);
}

/* A local's declarator: (identifier), or (pointer_declarator|array_declarator
 * declarator: (identifier)); pattern 34 also (pointer_declarator
 * (pointer_declarator (identifier))). */
static void local_declarator(cw *w, TSNode d, bool two_ptrs)
{
	TSNode name;
	if (is(d, T_IDENTIFIER))
		mi_ts_add_local(w->c, &d);
	else if (declares(d, T_ARRAY_DECLARATOR, &name))
		mi_ts_add_local(w->c, &name);
	else if (declares(d, T_POINTER_DECLARATOR, &name))
		mi_ts_add_local(w->c, &name);
	else if (two_ptrs && is(d, T_POINTER_DECLARATOR) &&
		 declares(field(d, F_DECLARATOR), T_POINTER_DECLARATOR, &name))
		mi_ts_add_local(w->c, &name);
}

/* A type name used as a value (a function handed to a macro the grammar
 * read as a type): not all capitals. */
static void type_value_ref(cw *w, TSNode n)
{
	if (is(n, T_TYPE_IDENTIFIER) && not_caps(w, n))
		mi_ts_add_ref(w->c, &n, MI_REF_VALUE);
}

/* `module_init(fn)` read as a declarator of a macro "type" before it:
 * (declaration type: (macro_type_specifier) declarator: (function_declarator
 * parameters: (parameter_list (parameter_declaration !declarator type:
 * (type_identifier) @name)))). */
static void macro_decl_values(cw *w, TSNode d)
{
	TSNode params = field(d, F_PARAMETERS), p;
	TSFieldId f;
	if (!is(params, T_PARAMETER_LIST))
		return;
	EACH_KID(w, 1, params, p, f)
		if (is(p, T_PARAMETER_DECLARATION) && ts_node_is_null(field(p, F_DECLARATOR)))
			type_value_ref(w, field(p, F_TYPE));
}

static void on_declaration(cw *w, TSNode n, TSSymbol parent)
{
	TSNode d, name;
	TSFieldId f;
	bool local = parent == g.sym[T_COMPOUND_STATEMENT];
	bool macro_type = is(field(n, F_TYPE), T_MACRO_TYPE_SPECIFIER);
	EACH_KID(w, 0, n, d, f) {
		if (f != g.field[F_DECLARATOR])
			continue;
		if (fn_declarator(d, &name))
			match(w, n, name, null_node, MI_KIND_PROTOTYPE, P_PROTOTYPE);
		if (macro_type && is(d, T_FUNCTION_DECLARATOR))
			macro_decl_values(w, d);
		if (local)
			local_declarator(w, is(d, T_INIT_DECLARATOR) ? field(d, F_DECLARATOR) : d,
					 false);
	}
}

static void on_aggregate(cw *w, TSNode n, int list, int kind, int pattern)
{
	TSNode name = field(n, F_NAME);
	if (is(name, T_TYPE_IDENTIFIER) && is(field(n, F_BODY), list))
		match(w, n, name, null_node, kind, pattern);
}

/* typedef <type> <declarator>, ...: the declarator forms of pattern 15. */
static bool typedef_name(TSNode d, TSNode *name)
{
	if (is(d, T_TYPE_IDENTIFIER)) {
		*name = d;
		return true;
	}
	if (is(d, T_POINTER_DECLARATOR) || is(d, T_ARRAY_DECLARATOR)) {
		*name = field(d, F_DECLARATOR);
		if (is(*name, T_TYPE_IDENTIFIER))
			return true;
	}
	/* (function_declarator declarator: (parenthesized_declarator
	 * (pointer_declarator declarator: (type_identifier)))), maybe under a
	 * pointer_declarator */
	if (is(d, T_POINTER_DECLARATOR))
		d = field(d, F_DECLARATOR);
	if (!is(d, T_FUNCTION_DECLARATOR))
		return false;
	TSNode p = field(d, F_DECLARATOR);
	if (!is(p, T_PARENTHESIZED_DECLARATOR))
		return false;
	uint32_t n = ts_node_named_child_count(p);
	for (uint32_t i = 0; i < n; i++) {
		TSNode ch = ts_node_named_child(p, i);
		if (is(ch, T_POINTER_DECLARATOR) && is(*name = field(ch, F_DECLARATOR), T_TYPE_IDENTIFIER))
			return true;
	}
	return false;
}

static void on_type_definition(cw *w, TSNode n)
{
	TSNode ty = field(n, F_TYPE), d, name;
	TSFieldId f;
	int agg = is(ty, T_STRUCT_SPECIFIER) ? 0 : is(ty, T_UNION_SPECIFIER) ? 1
		: is(ty, T_ENUM_SPECIFIER) ? 2 : -1;
	TSNode body = agg >= 0 ? field(ty, F_BODY) : null_node;
	bool anon = agg >= 0 && ts_node_is_null(field(ty, F_NAME)) &&
		    is(body, agg == 2 ? T_ENUMERATOR_LIST : T_FIELD_DECLARATION_LIST);
	bool tagged = agg >= 0 && any_named(field(ty, F_NAME)) && any_named(body);
	bool plain = (agg >= 0 && ts_node_is_null(body)) || is(ty, T_TYPE_IDENTIFIER) ||
		     is(ty, T_PRIMITIVE_TYPE) || is(ty, T_SIZED_TYPE_SPECIFIER) ||
		     is(ty, T_MACRO_TYPE_SPECIFIER);
	static const int agg_kind[] = {MI_KIND_STRUCT, MI_KIND_UNION, MI_KIND_ENUM};
	if (!anon && !tagged && !plain)
		return;
	EACH_KID(w, 0, n, d, f) {
		if (f != g.field[F_DECLARATOR])
			continue;
		if (anon && is(d, T_TYPE_IDENTIFIER))
			match(w, n, d, body, agg_kind[agg], P_TD_STRUCT + agg);
		if (tagged && is(d, T_TYPE_IDENTIFIER))
			match(w, d, d, null_node, MI_KIND_TYPEDEF, P_TD_TAGGED);
		if (tagged && is(d, T_POINTER_DECLARATOR) &&
		    is(name = field(d, F_DECLARATOR), T_TYPE_IDENTIFIER))
			match(w, name, name, null_node, MI_KIND_TYPEDEF, P_TD_TAGGED_PTR);
		if (plain && typedef_name(d, &name))
			match(w, n, name, null_node, MI_KIND_TYPEDEF, P_TYPEDEF);
	}
}

static void on_field_declaration_list(cw *w, TSNode n)
{
	TSNode fd, d;
	TSFieldId f, f2;
	EACH_KID(w, 0, n, fd, f) {
		if (!is(fd, T_FIELD_DECLARATION))
			continue;
		EACH_KID(w, 1, fd, d, f2)
			if (f2 == g.field[F_DECLARATOR] && any_named(d))
				match(w, fd, d, null_node, MI_KIND_FIELD, P_FIELD);
	}
}

static void on_named(cw *w, TSNode n, int kind, int pattern)
{
	TSNode name = field(n, F_NAME);
	if (is(name, T_IDENTIFIER))
		match(w, n, name, null_node, kind, pattern);
}

static void on_preproc_def(cw *w, TSNode n, bool params)
{
	on_named(w, n, MI_KIND_MACRO, params ? P_MACRO_FN : P_MACRO);
	TSNode p = params ? field(n, F_PARAMETERS) : null_node, v = field(n, F_VALUE);
	if ((!params || is(p, T_PREPROC_PARAMS)) && is(v, T_PREPROC_ARG))
		mi_ts_scan_calls(w->c, &v, params ? &p : NULL);
}

/* ---- references and locals ------------------------------------------------ */

static void on_call(cw *w, TSNode n)
{
	TSNode fn = field(n, F_FUNCTION), ch, name;
	TSFieldId f;
	if (is(fn, T_IDENTIFIER)) {
		mi_ts_add_ref(w->c, &fn, MI_REF_CALL);
	} else if (is(fn, T_FIELD_EXPRESSION)) {
		name = field(fn, F_FIELD);
		if (is(name, T_FIELD_IDENTIFIER))
			mi_ts_add_ref(w->c, &name, MI_REF_CALL);
	} else if (is(fn, T_PARENTHESIZED_EXPRESSION)) {
		EACH_KID(w, 0, fn, ch, f)
			if (is(ch, T_POINTER_EXPRESSION) &&
			    is(name = field(ch, F_ARGUMENT), T_IDENTIFIER))
				mi_ts_add_ref(w->c, &name, MI_REF_CALL);
	}
}

/* NAME(args); { ... } (a macro-made function): its arguments are names. */
static void on_macro_call_block(cw *w, TSNode n)
{
	TSNode ch, a;
	TSFieldId f, f2;
	EACH_KID(w, 0, n, ch, f) {
		TSNode args = is(ch, T_CALL_EXPRESSION) ? field(ch, F_ARGUMENTS) : null_node;
		if (is(args, T_ARGUMENT_LIST))
			EACH_KID(w, 1, args, a, f2)
				if (is(a, T_IDENTIFIER))
					mi_ts_add_local(w->c, &a);
	}
}

/* The patterns that capture an identifier among other children of its
 * parent, decided from the parent and grandparent: a value in an
 * argument list, an initializer list or a return; a K&R parameter. */
static void on_identifier(cw *w, TSNode n, TSSymbol parent, TSSymbol grand)
{
	if ((parent == g.sym[T_ARGUMENT_LIST] && grand == g.sym[T_CALL_EXPRESSION]) ||
	    parent == g.sym[T_INITIALIZER_LIST] || parent == g.sym[T_RETURN_STATEMENT])
		value_ref(w, n);
	else if (parent == g.sym[T_PARAMETER_LIST] && grand == g.sym[T_FUNCTION_DECLARATOR])
		mi_ts_add_local(w->c, &n);
}

/* A block after a named sibling prev: the patterns anchored on a block
 * that follows (. (compound_statement)), outside ERROR nodes. */
static void on_block(cw *w, TSNode n, TSNode prev, TSSymbol parent)
{
	if (ts_node_is_null(prev) || parent == g.sym[T_ERROR])
		return;
	if (is(prev, T_ERROR))
		on_error(w, prev, n);
	else if (is(prev, T_EXPRESSION_STATEMENT))
		on_macro_call_block(w, prev);
}

/* Node n of type role; its parent's and grandparent's types; its previous
 * named sibling (or a null node). */
static void visit(cw *w, TSNode n, int role, TSSymbol parent, TSSymbol grand, TSNode prev)
{
	TSNode x;
	switch (role) {
	case T_IDENTIFIER: on_identifier(w, n, parent, grand); break;
	case T_COMPOUND_STATEMENT: on_block(w, n, prev, parent); break;
	case T_FUNCTION_DEFINITION: on_function_definition(w, n); break;
	case T_DECLARATION: on_declaration(w, n, parent); break;
	case T_STRUCT_SPECIFIER:
		on_aggregate(w, n, T_FIELD_DECLARATION_LIST, MI_KIND_STRUCT, P_STRUCT);
		break;
	case T_UNION_SPECIFIER:
		on_aggregate(w, n, T_FIELD_DECLARATION_LIST, MI_KIND_UNION, P_UNION);
		break;
	case T_ENUM_SPECIFIER:
		on_aggregate(w, n, T_ENUMERATOR_LIST, MI_KIND_ENUM, P_ENUM);
		break;
	case T_TYPE_DEFINITION: on_type_definition(w, n); break;
	case T_FIELD_DECLARATION_LIST: on_field_declaration_list(w, n); break;
	case T_ENUMERATOR: on_named(w, n, MI_KIND_ENUMERATOR, P_ENUMERATOR); break;
	case T_PREPROC_DEF: on_preproc_def(w, n, false); break;
	case T_PREPROC_FUNCTION_DEF: on_preproc_def(w, n, true); break;
	case T_CALL_EXPRESSION: on_call(w, n); break;
	case T_PREPROC_INCLUDE:
		if (any_named(x = field(n, F_PATH)))
			mi_ts_add_ref(w->c, &x, MI_REF_IMPORT);
		break;
	case T_INITIALIZER_PAIR:
	case T_INIT_DECLARATOR:
	case T_CAST_EXPRESSION:
		value_ref(w, field(n, F_VALUE));
		break;
	case T_ASSIGNMENT_EXPRESSION: value_ref(w, field(n, F_RIGHT)); break;
	case T_CONDITIONAL_EXPRESSION:
		value_ref(w, field(n, F_CONSEQUENCE));
		value_ref(w, field(n, F_ALTERNATIVE));
		break;
	case T_BINARY_EXPRESSION:
		/* operator: ["==" "!="] then right: (identifier) */
		x = field(n, F_OPERATOR);
		if (is(x, T_EQ) || is(x, T_NE))
			value_ref(w, field(n, F_RIGHT));
		break;
	case T_MACRO_TYPE_SPECIFIER:
		/* type: (type_descriptor type: (type_identifier) @name) */
		if (is(x = field(n, F_TYPE), T_TYPE_DESCRIPTOR))
			type_value_ref(w, field(x, F_TYPE));
		break;
	case T_POINTER_EXPRESSION:
		if (is(field(n, F_OPERATOR), T_AMP))
			value_ref(w, field(n, F_ARGUMENT));
		break;
	case T_PARAMETER_DECLARATION:
		local_declarator(w, field(n, F_DECLARATOR), true);
		break;
	default: break;
	}
}

int mi_c_extract(mi_ts_ctx *c, void *rootp)
{
	pthread_once(&g_once, c_tags_init);
	TSNode root = *(TSNode *)rootp;
	cw w = {.c = c, .kid = {ts_tree_cursor_new(root), ts_tree_cursor_new(root)}};
	TSTreeCursor cur = ts_tree_cursor_new(root);
	/* Per depth: the types of the ancestors, the previous named sibling,
	 * the siblings still to come (counted, so that the cursor is never
	 * asked for a sibling it does not have: a failed ask climbs a level). */
	size_t depth = 0, cap = 64;
	TSSymbol *up = mi_xmalloc(cap * sizeof(*up));
	TSNode *prev = mi_xmalloc(cap * sizeof(*prev));
	uint32_t *left = mi_xmalloc(cap * sizeof(*left));
	prev[0] = null_node;
	left[0] = 0;
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&cur);
		TSSymbol s = ts_node_symbol(n);
		int role = s < g.nsyms ? g.role[s] - 1 : -1;
		if (role >= 0)
			visit(&w, n, role, depth ? up[depth - 1] : NO_SYM,
			      depth > 1 ? up[depth - 2] : NO_SYM, prev[depth]);
		if (ts_node_is_named(n))
			prev[depth] = n;
		uint32_t kids = ts_node_child_count(n);
		if (kids && ts_tree_cursor_goto_first_child(&cur)) {
			if (depth + 1 == cap) {
				cap *= 2;
				up = mi_xrealloc(up, cap * sizeof(*up));
				prev = mi_xrealloc(prev, cap * sizeof(*prev));
				left = mi_xrealloc(left, cap * sizeof(*left));
			}
			up[depth++] = s;
			prev[depth] = null_node;
			left[depth] = kids - 1;
			continue;
		}
		while (!left[depth] || !ts_tree_cursor_goto_next_sibling(&cur)) {
			if (!depth || !ts_tree_cursor_goto_parent(&cur))
				goto done;
			depth--;
		}
		left[depth]--;
	}
done:
	free(up);
	free(prev);
	free(left);
	ts_tree_cursor_delete(&cur);
	ts_tree_cursor_delete(&w.kid[0]);
	ts_tree_cursor_delete(&w.kid[1]);
	return P__COUNT;
}
