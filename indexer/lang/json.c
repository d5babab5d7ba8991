/*
 * json.c - JSON: its shape as an outline.  Keys holding objects nest;
 * a key holding an array is summarized in its signature ("deps": [2
 * objects]); what lies inside arrays is not a symbol, and keys deeper than
 * MI_JSON_DEPTH levels are left to the text.
 */
#include "lang_int.h"

#include <string.h>

#define MI_JSON_DEPTH 4 /* deepest key level kept as a symbol */

/* "[3 objects]", "[2 strings]", "[5 items]", "[]": the kinds of an
 * array's elements and how many. */
static void json_summary(TSNode arr, mi_buf *b)
{
	uint32_t n = ts_node_named_child_count(arr);
	const char *kind = NULL;
	bool mixed = false;
	for (uint32_t i = 0; i < n; i++) {
		const char *t = ts_node_type(ts_node_named_child(arr, i));
		if (!strcmp(t, "comment"))
			continue;
		if (kind && strcmp(kind, t))
			mixed = true;
		kind = t;
	}
	if (!n) {
		mi_buf_adds(b, "[]");
		return;
	}
	const char *word = mixed || !kind ? "item" : !strcmp(kind, "object") ? "object" :
			   !strcmp(kind, "array") ? "array" : !strcmp(kind, "string") ? "string" :
			   !strcmp(kind, "number") ? "number" : "item";
	mi_buf_addf(b, "[%u %s%s]", n, word, n == 1 ? "" : "s");
}

MI_FIX(json)
{
	static const char *const in_array[] = {"array", NULL};
	TSNode n = *(TSNode *)def_node;
	if (mi_ts_under(n, in_array)) {
		s->kind = MI_KIND_NONE;
		return;
	}
	if (s->level >= MI_JSON_DEPTH) {
		s->kind = MI_KIND_NONE;
		return;
	}
	TSNode key = ts_node_child_by_field_name(n, "key", 3);
	TSNode val = ts_node_child_by_field_name(n, "value", 5);
	if (ts_node_is_null(key) || ts_node_is_null(val))
		return;
	size_t len;
	uint32_t base;
	mi_ts_src(c, &len, &base);
	mi_buf b = {0};
	mi_ts_add_folded(c, &b, ts_node_start_byte(key), ts_node_end_byte(key));
	mi_buf_adds(&b, ": ");
	const char *t = ts_node_type(val);
	if (!strcmp(t, "array")) {
		json_summary(val, &b);
	} else if (!strcmp(t, "object")) {
		b.len -= 1; /* "key": { ... } is shown by the fold */
		while (b.len && b.buf[b.len - 1] == ' ')
			b.len--;
		if (b.len && b.buf[b.len - 1] == ':')
			b.len--;
	} else {
		uint32_t vl;
		const char *v = mi_ts_text(c, &val, &vl);
		if (vl <= MI_SIG_VALUE_MAX && !memchr(v, '\n', vl))
			mi_buf_add(&b, v, vl);
		else
			mi_buf_adds(&b, "...");
	}
	s->sig = mi_parsed_strndup(mi_ts_parsed(c), b.buf, b.len);
	mi_buf_release(&b);
}

const TSLanguage *tree_sitter_json(void);
extern const char mi_query_src_json[];

const mi_lang_row mi_lang_json = {
	.id = MI_LANG_JSON,
	.name = "json",
	.exts = " .json .jsonc .json5 .webmanifest ",
	.filenames = " .babelrc .eslintrc .prettierrc ",
	.ts = tree_sitter_json,
	.query = mi_query_src_json,
	.fix = mi_fix_json,
};
