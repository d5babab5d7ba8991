/*
 * html.c - HTML: the structure an agent asks about (ids, headings, inline
 * scripts and styles) and the files a page loads.
 */
#include "lang_int.h"

#include <ctype.h>
#include <string.h>

/* Signature: the start tag; body: what follows it up to the end tag.  A
 * heading is named by its text (tags dropped), its level by its tag; an
 * inline script or style by its tag. */
MI_FIX(html)
{
	TSNode n = *(TSNode *)def_node;
	mi_parsed *p = mi_ts_parsed(c);
	size_t len;
	uint32_t base;
	const char *src = mi_ts_src(c, &len, &base);
	s->vis = MI_VIS_PUBLIC;
	TSNode tag = ts_node_named_child(n, 0);
	if (!mi_ts_type_is(tag, "start_tag"))
		return;
	uint32_t ts = ts_node_start_byte(tag), te = ts_node_end_byte(tag);
	uint32_t ee = ts_node_end_byte(n);
	TSNode last = ts_node_named_child(n, ts_node_named_child_count(n) - 1);
	if (mi_ts_type_is(last, "end_tag"))
		ee = ts_node_start_byte(last);
	if (s->kind == MI_KIND_HEADING) {
		TSNode tn = ts_node_named_child(tag, 0);
		uint32_t tl;
		const char *t = mi_ts_text(c, &tn, &tl);
		s->level = (uint8_t)(tl == 2 ? t[1] - '0' : 1);
		/* the text inside, tags dropped, white space folded */
		mi_buf b = {0};
		bool in_tag = false, sp = false;
		for (uint32_t i = te; i < ee && b.len < 200; i++) {
			char ch = src[i];
			if (ch == '<')
				in_tag = true;
			else if (ch == '>')
				in_tag = false;
			else if (!in_tag) {
				if (isspace((unsigned char)ch)) {
					sp = b.len > 0;
				} else {
					if (sp)
						mi_buf_addc(&b, ' ');
					sp = false;
					mi_buf_addc(&b, ch);
				}
			}
		}
		s->name = mi_parsed_strndup(p, b.buf ? b.buf : "", b.len);
		s->sig = s->name;
		mi_buf_release(&b);
		s->body_byte = 0;
		s->body_line = 0;
		return;
	}
	if (!strcmp(ts_node_type(n), "script_element") || !strcmp(ts_node_type(n), "style_element"))
		s->name = !strcmp(ts_node_type(n), "script_element") ? "script" : "style";
	mi_ts_set_sig(c, s, ts, te);
	bool content = false;
	for (uint32_t i = te; i < ee && !content; i++)
		content = !isspace((unsigned char)src[i]);
	if (!content && s->kind == MI_KIND_MODULE &&
	    (!strcmp(s->name, "script") || !strcmp(s->name, "style"))) {
		s->kind = MI_KIND_NONE; /* <script src=...>: an import, no block */
		return;
	}
	if (content) {
		s->body_byte = te + base;
		s->body_line = ts_node_end_point(tag).row + 1;
	} else {
		s->body_byte = 0;
		s->body_line = 0;
	}
}

const TSLanguage *tree_sitter_html(void);
extern const char mi_query_src_html[];

const mi_lang_row mi_lang_html = {
	.id = MI_LANG_HTML,
	.name = "html",
	.exts = " .html .htm .xhtml ",
	.ts = tree_sitter_html,
	.query = mi_query_src_html,
	.fix = mi_fix_html,
};
