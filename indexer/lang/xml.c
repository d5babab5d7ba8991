/*
 * xml.c - XML (and SVG, XSD, XSLT): elements holding elements nest as
 * structs, elements holding text are fields showing it when short, empty
 * elements are fields; elements deeper than MI_XML_DEPTH levels are left
 * to the text.
 */
#include "lang_int.h"

#include <string.h>

#define MI_XML_DEPTH 4 /* deepest element level kept as a symbol */

MI_FIX(xml)
{
	TSNode n = *(TSNode *)def_node;
	if (s->level >= MI_XML_DEPTH) {
		s->kind = MI_KIND_NONE;
		return;
	}
	TSNode tag = ts_node_named_child(n, 0);
	if (s->kind == MI_KIND_FIELD) {
		if (!ts_node_is_null(tag))
			mi_ts_set_sig(c, s, ts_node_start_byte(tag), ts_node_end_byte(tag));
		return;
	}
	TSNode content = {{0}, 0, 0};
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k; i++)
		if (!strcmp(ts_node_type(ts_node_named_child(n, i)), "content"))
			content = ts_node_named_child(n, i);
	bool nested = false;
	uint32_t m = ts_node_is_null(content) ? 0 : ts_node_named_child_count(content);
	for (uint32_t i = 0; i < m && !nested; i++)
		nested = !strcmp(ts_node_type(ts_node_named_child(content, i)), "element");
	size_t len;
	uint32_t base;
	mi_ts_src(c, &len, &base);
	if (nested) {
		mi_ts_set_sig(c, s, ts_node_start_byte(tag), ts_node_end_byte(tag));
		s->body_byte = ts_node_end_byte(tag) + base;
		s->body_line = ts_node_end_point(tag).row + 1;
		return;
	}
	s->kind = MI_KIND_FIELD;
	s->body_byte = 0;
	s->body_line = 0;
	uint32_t tl;
	const char *t = mi_ts_text(c, &n, &tl);
	if (tl <= 2 * MI_SIG_VALUE_MAX && !memchr(t, '\n', tl))
		mi_ts_set_sig(c, s, ts_node_start_byte(n), ts_node_end_byte(n));
	else
		mi_ts_set_sig(c, s, ts_node_start_byte(tag), ts_node_end_byte(tag));
}

const TSLanguage *tree_sitter_xml(void);
extern const char mi_query_src_xml[];

const mi_lang_row mi_lang_xml = {
	.id = MI_LANG_XML,
	.name = "xml",
	.exts = " .xml .xsd .xsl .xslt .svg .plist .csproj .props .targets .xaml .rss .atom .wsdl ",
	.ts = tree_sitter_xml,
	.query = mi_query_src_xml,
	.fix = mi_fix_xml,
};
