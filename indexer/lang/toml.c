/*
 * toml.c - TOML: tables and their keys as an outline; a key's signature
 * keeps a short value.
 */
#include "lang_int.h"

#include <string.h>

MI_FIX(toml)
{
	TSNode n = *(TSNode *)def_node;
	size_t len;
	uint32_t base;
	const char *src = mi_ts_src(c, &len, &base);
	if (strcmp(ts_node_type(n), "pair")) {
		/* a table: its header line, the keys below are its body */
		uint32_t a = ts_node_start_byte(n), e = a;
		while (e < len && src[e] != '\n')
			e++;
		mi_ts_set_sig(c, s, a, e);
		if (e + 1 < ts_node_end_byte(n)) {
			s->body_byte = e + 1 + base;
			s->body_line = ts_node_start_point(n).row + 2;
		} else {
			s->body_byte = 0;
			s->body_line = 0;
		}
		return;
	}
	for (TSNode up = ts_node_parent(n); !ts_node_is_null(up); up = ts_node_parent(up))
		if (!strcmp(ts_node_type(up), "inline_table") || !strcmp(ts_node_type(up), "array")) {
			s->kind = MI_KIND_NONE;
			return;
		}
	TSNode key = ts_node_named_child(n, 0), val = ts_node_named_child(n, 1);
	if (ts_node_is_null(key) || ts_node_is_null(val))
		return;
	uint32_t vl;
	const char *v = mi_ts_text(c, &val, &vl);
	if (vl > MI_SIG_VALUE_MAX || memchr(v, '\n', vl)) {
		mi_buf b = {0};
		mi_ts_add_folded(c, &b, ts_node_start_byte(key), ts_node_end_byte(key));
		mi_buf_adds(&b, " = ...");
		s->sig = mi_parsed_strndup(mi_ts_parsed(c), b.buf, b.len);
		mi_buf_release(&b);
	}
}

const TSLanguage *tree_sitter_toml(void);
extern const char mi_query_src_toml[];

const mi_lang_row mi_lang_toml = {
	.id = MI_LANG_TOML,
	.name = "toml",
	.exts = " .toml ",
	.filenames = " Cargo.lock Pipfile poetry.lock ",
	.ts = tree_sitter_toml,
	.query = mi_query_src_toml,
	.fix = mi_fix_toml,
};
