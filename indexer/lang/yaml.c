/*
 * yaml.c - YAML: a file's top keys and nested mappings as an outline.
 * Keys inside sequences (a list of steps, of containers) and keys deeper
 * than MI_YAML_DEPTH levels are left to the text; a scalar key's signature
 * shows a short value, a key holding a sequence how many items it has.
 */
#include "lang_int.h"

#include <stdlib.h>
#include <string.h>

#define MI_YAML_DEPTH 4 /* deepest key level kept as a symbol */

MI_FIX(yaml)
{
	static const char *const in_seq[] = {"block_sequence_item", "flow_sequence",
					     "flow_mapping", NULL};
	TSNode n = *(TSNode *)def_node;
	if (mi_ts_under(n, in_seq)) {
		s->kind = MI_KIND_NONE;
		return;
	}
	if (s->level >= MI_YAML_DEPTH) {
		s->kind = MI_KIND_NONE;
		return;
	}
	TSNode key = ts_node_child_by_field_name(n, "key", 3);
	TSNode val = ts_node_child_by_field_name(n, "value", 5);
	if (ts_node_is_null(key))
		return;
	mi_buf b = {0};
	mi_ts_add_folded(c, &b, ts_node_start_byte(key), ts_node_end_byte(key));
	mi_buf_addc(&b, ':');
	if (!ts_node_is_null(val) && s->kind != MI_KIND_STRUCT) {
		TSNode inner = ts_node_named_child(val, 0);
		const char *t = ts_node_is_null(inner) ? "" : ts_node_type(inner);
		if (!strcmp(t, "block_sequence")) {
			uint32_t k = ts_node_named_child_count(inner);
			mi_buf_addf(&b, " [%u item%s]", k, k == 1 ? "" : "s");
		} else {
			uint32_t vl;
			const char *v = mi_ts_text(c, &val, &vl);
			mi_buf_addc(&b, ' ');
			if (vl <= MI_SIG_VALUE_MAX && !memchr(v, '\n', vl))
				mi_buf_add(&b, v, vl);
			else
				mi_buf_adds(&b, "...");
		}
	}
	s->sig = mi_parsed_strndup(mi_ts_parsed(c), b.buf, b.len);
	mi_buf_release(&b);
}

const TSLanguage *tree_sitter_yaml(void);
extern const char mi_query_src_yaml[];

/* The grammar's scanner copies its stack of indentation levels into the
 * runtime's 1,024-byte state buffer at every token and writes past it
 * from 254 levels on (the runtime's assertion then aborts the process: a
 * mapping nested 254 deep, or one line of 254 "- ", ended every build of
 * its repository).  Each level takes a column of a line's prefix (its
 * indentation and "- ", "? ", ": " indicators), so the parser reads a
 * copy in which a line whose prefix is wider than YAML_MAX_PREFIX columns
 * is a comment.  NULL when no line is that deep. */
#define YAML_MAX_PREFIX 128

static char *yaml_prefilter(const char *src, size_t len)
{
	char *out = NULL;
	size_t i = 0;
	while (i < len) {
		size_t start = i, col = 0;
		while (i < len && (src[i] == ' ' || src[i] == '\t' || src[i] == '-' ||
				   src[i] == '?' || src[i] == ':'))
			i++, col++;
		if (col > YAML_MAX_PREFIX) {
			if (!out) {
				if (!(out = malloc(len)))
					return NULL;
				memcpy(out, src, len);
			}
			out[start] = '#';
		}
		const char *nl = memchr(src + i, '\n', len - i);
		i = nl ? (size_t)(nl - src) + 1 : len;
	}
	return out;
}

const mi_lang_row mi_lang_yaml = {
	.id = MI_LANG_YAML,
	.name = "yaml",
	.exts = " .yaml .yml ",
	.filenames = " .clang-format .clang-tidy ",
	.ts = tree_sitter_yaml,
	.query = mi_query_src_yaml,
	.fix = mi_fix_yaml,
	.prefilter = yaml_prefilter,
};
