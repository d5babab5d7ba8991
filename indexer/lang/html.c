/*
 * html.c - HTML: the structure an agent asks about (ids, headings, inline
 * scripts and styles) and the files a page loads.
 */
#include "lang_int.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* Signature: the start tag; body: what follows it up to the end tag.  A
 * heading is named by its text (tags dropped), its level by its tag; an
 * inline script or style by its tag. */
void mi_fix_html(mi_ts_ctx *c, void *def_node, mi_symbol *s)
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

/* The value of start tag tag's attribute name, or NULL (n: its length). */
static const char *attr_value(mi_ts_ctx *c, TSNode tag, const char *name, uint32_t *n)
{
	uint32_t k = ts_node_named_child_count(tag);
	for (uint32_t i = 0; i < k; i++) {
		TSNode a = ts_node_named_child(tag, i);
		if (!mi_ts_type_is(a, "attribute") || !ts_node_named_child_count(a))
			continue;
		TSNode an = ts_node_named_child(a, 0);
		uint32_t al;
		const char *at = mi_ts_text(c, &an, &al);
		if (al != strlen(name) || strncasecmp(at, name, al))
			continue;
		TSNode v = ts_node_named_child(a, 1);
		if (mi_ts_type_is(v, "quoted_attribute_value"))
			v = ts_node_named_child(v, 0);
		if (ts_node_is_null(v)) {
			*n = 0;
			return "";
		}
		return mi_ts_text(c, &v, n);
	}
	return NULL;
}

/* What a <script>'s lang or type attribute says it holds (lang= first). */
static const struct { const char *attr, *value; int lang; } script_langs[] = {
	{"lang", "ts", MI_LANG_TYPESCRIPT}, {"lang", "typescript", MI_LANG_TYPESCRIPT},
	{"lang", "tsx", MI_LANG_TSX}, {"lang", "js", MI_LANG_JAVASCRIPT},
	{"lang", "jsx", MI_LANG_JAVASCRIPT}, {"lang", "javascript", MI_LANG_JAVASCRIPT},
	{"type", "", MI_LANG_JAVASCRIPT}, {"type", "module", MI_LANG_JAVASCRIPT},
	{"type", "text/javascript", MI_LANG_JAVASCRIPT},
	{"type", "application/javascript", MI_LANG_JAVASCRIPT},
	{"type", "text/ecmascript", MI_LANG_JAVASCRIPT}, {"type", "text/babel", MI_LANG_JAVASCRIPT},
	{"type", "text/jsx", MI_LANG_JAVASCRIPT}, {"type", "text/typescript", MI_LANG_TYPESCRIPT},
	{"type", "application/typescript", MI_LANG_TYPESCRIPT},
};

/* The language of a <script>: JavaScript when it names none;
 * MI_LANG_NONE for data and templates (JSON, import maps, text/template)
 * and languages of no row. */
static int script_lang(mi_ts_ctx *c, TSNode tag)
{
	uint32_t n;
	const char *attr = "lang", *v = attr_value(c, tag, attr, &n);
	if (!v && !(v = attr_value(c, tag, attr = "type", &n)))
		return MI_LANG_JAVASCRIPT;
	for (size_t i = 0; i < sizeof(script_langs) / sizeof(script_langs[0]); i++)
		if (!strcmp(script_langs[i].attr, attr) && n == strlen(script_langs[i].value) &&
		    !strncasecmp(v, script_langs[i].value, n))
			return script_langs[i].lang;
	return MI_LANG_NONE;
}

void mi_html_embed_scripts(mi_ts_ctx *c, void *root)
{
	TSTreeCursor cur = ts_tree_cursor_new(*(TSNode *)root);
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&cur);
		bool script = mi_ts_type_is(n, "script_element");
		if (script) {
			TSNode tag = ts_node_named_child(n, 0), text = ts_node_named_child(n, 1);
			int lang = mi_ts_type_is(tag, "start_tag") && mi_ts_type_is(text, "raw_text") ?
				   script_lang(c, tag) : MI_LANG_NONE;
			if (lang != MI_LANG_NONE)
				mi_ts_embed(c, &text, lang);
		}
		/* depth first; nothing of a script's or style's is markup */
		if (!script && !mi_ts_type_is(n, "style_element") &&
		    ts_tree_cursor_goto_first_child(&cur))
			continue;
		while (!ts_tree_cursor_goto_next_sibling(&cur))
			if (!ts_tree_cursor_goto_parent(&cur)) {
				ts_tree_cursor_delete(&cur);
				return;
			}
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
	.embed = mi_html_embed_scripts,
};
