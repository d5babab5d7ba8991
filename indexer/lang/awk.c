/*
 * awk.c - AWK scripts: functions (gawk's ns::f too), and rules as blocks
 * named by their pattern (BEGIN, END, /regex/, NR > 1) so an outline shows
 * what the script does on which lines; @include is an import.  A rule's
 * signature is its pattern; a name starting with '_' is private.
 */
#include "lang_int.h"

#include <stdbool.h>
#include <string.h>

/* Functions the grammar could not read (mawk's regular expressions, a
 * comment before the body): `function name` among the children of an
 * ERROR node.  The name node stands for the definition. */
static void awk_walk_node(mi_ts_ctx *c, TSNode n)
{
	uint32_t k = ts_node_child_count(n);
	bool err = ts_node_is_error(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_child(n, i);
		if (err && i + 1 < k && !ts_node_is_named(ch) &&
		    (!strcmp(ts_node_type(ch), "function") || !strcmp(ts_node_type(ch), "func"))) {
			TSNode name = ts_node_child(n, i + 1);
			if (mi_ts_type_is(name, "identifier"))
				mi_ts_add_def(c, &name, &name, NULL, MI_KIND_FUNCTION, 0);
		}
		if (ts_node_child_count(ch) && ts_node_has_error(ch))
			awk_walk_node(c, ch);
	}
}

static void awk_walk(mi_ts_ctx *c, void *root)
{
	TSNode r = *(TSNode *)root;
	if (ts_node_has_error(r))
		awk_walk_node(c, r);
}

MI_FIX(awk)
{
	TSNode n = *(TSNode *)def_node;
	if (mi_ts_type_is(n, "identifier")) {
		/* from the walk: the header is the keyword up to the ')' */
		TSNode kw = ts_node_prev_sibling(n);
		size_t len;
		uint32_t base;
		const char *src = mi_ts_src(c, &len, &base);
		uint32_t b = ts_node_end_byte(n);
		while (b < len && src[b] != ')' && src[b] != '\n')
			b++;
		if (b < len && src[b] == ')')
			b++;
		mi_ts_set_sig(c, s, ts_node_is_null(kw) ? ts_node_start_byte(n) : ts_node_start_byte(kw), b);
	}
	if (strcmp(ts_node_type(n), "rule")) {
		if (s->name[0] == '_')
			s->vis = MI_VIS_PRIVATE;
		return;
	}
	/* the pattern (or BEGIN / END / BEGINFILE / ENDFILE): what precedes
	 * the action block, folded, at most one line */
	uint32_t a = ts_node_start_byte(n), b = a;
	uint32_t k = ts_node_child_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_child(n, i);
		if (mi_ts_type_is(ch, "block"))
			break;
		b = ts_node_end_byte(ch);
	}
	if (b == a) {
		s->name = "{ ... }";
		s->sig = "";
		return;
	}
	mi_ts_set_sig(c, s, a, b);
	size_t nl = strcspn(s->sig, "\n");
	if (nl > 60)
		nl = 60;
	s->name = mi_parsed_strndup(mi_ts_parsed(c), s->sig, nl);
}

const TSLanguage *tree_sitter_awk(void);
extern const char mi_query_src_awk[];

const mi_lang_row mi_lang_awk = {
	.id = MI_LANG_AWK,
	.name = "awk",
	.exts = " .awk .gawk ",
	.ts = tree_sitter_awk,
	.query = mi_query_src_awk,
	.fix = mi_fix_awk,
	.walk = awk_walk,
};
