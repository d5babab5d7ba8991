/*
 * svelte.c - Svelte components: script and style blocks (named "script",
 * "script context=module", "style"), headings with their level, elements
 * with an id; components used are calls, event handlers values.  What the
 * scripts define (JavaScript, or TypeScript with lang="ts") is read by
 * their own language's rules, nested in the script's symbol.
 */
#include "lang_int.h"

#include <string.h>

MI_FIX(svelte)
{
	TSNode n = *(TSNode *)def_node;
	TSNode tag = ts_node_named_child(n, 0);
	if (s->kind == MI_KIND_HEADING) {
		TSNode name = ts_node_named_child(tag, 0);
		uint32_t tl;
		const char *t = mi_ts_text(c, &name, &tl);
		s->level = (uint8_t)(tl == 2 ? t[1] - '0' : 1);
	} else if (s->kind == MI_KIND_FIELD) {
		mi_buf b = {0};
		mi_buf_addc(&b, '#');
		mi_buf_adds(&b, s->name);
		s->name = mi_parsed_strndup(mi_ts_parsed(c), b.buf, b.len);
		mi_buf_release(&b);
	} else if (s->kind == MI_KIND_MODULE) {
		uint32_t tl;
		const char *t = mi_ts_text(c, &tag, &tl);
		s->name = !strcmp(ts_node_type(n), "style_element") ? "style" :
			  memmem(t, tl, "module", 6) ? "script context=module" : "script";
	}
	if (!ts_node_is_null(tag))
		mi_ts_set_sig(c, s, ts_node_start_byte(tag), ts_node_end_byte(tag));
	if (!ts_node_is_null(tag) && ts_node_end_byte(tag) < ts_node_end_byte(n) &&
	    s->kind != MI_KIND_HEADING) {
		size_t len;
		uint32_t base;
		mi_ts_src(c, &len, &base);
		s->body_byte = ts_node_end_byte(tag) + base;
		s->body_line = ts_node_end_point(tag).row + 1;
	}
}

const TSLanguage *tree_sitter_svelte(void);
extern const char mi_query_src_svelte[];

const mi_lang_row mi_lang_svelte = {
	.id = MI_LANG_SVELTE,
	.name = "svelte",
	.exts = " .svelte ",
	.ts = tree_sitter_svelte,
	.query = mi_query_src_svelte,
	.fix = mi_fix_svelte,
	.embed = mi_html_embed_scripts,
};
