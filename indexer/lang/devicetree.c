/*
 * devicetree.c - Devicetree sources (.dts, .dtsi): nodes named as written
 * (serial@1000), labels and overrides (&uart0) in their signatures,
 * properties as fields, #define macros.
 */
#include "lang_int.h"

#include <string.h>

MI_FIX(devicetree)
{
	TSNode n = *(TSNode *)def_node;
	if (strcmp(ts_node_type(n), "node"))
		return;
	size_t len;
	uint32_t base;
	const char *src = mi_ts_src(c, &len, &base);
	TSNode name = ts_node_child_by_field_name(n, "name", 4);
	if (!ts_node_is_null(name)) {
		/* the name as written: serial@10000000 */
		uint32_t a = ts_node_start_byte(name), z = a;
		while (z < len && src[z] != ' ' && src[z] != '\t' && src[z] != '\n' && src[z] != '{')
			z++;
		s->name = mi_parsed_strndup(mi_ts_parsed(c), src + a, z - a);
	}
	/* the header up to '{', the rest is the body */
	uint32_t k = ts_node_child_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_child(n, i);
		if (strcmp(ts_node_type(ch), "{"))
			continue;
		mi_ts_set_sig(c, s, ts_node_start_byte(n), ts_node_start_byte(ch));
		s->body_byte = ts_node_start_byte(ch) + base;
		s->body_line = ts_node_start_point(ch).row + 1;
		break;
	}
}

const TSLanguage *tree_sitter_devicetree(void);
extern const char mi_query_src_devicetree[];

const mi_lang_row mi_lang_devicetree = {
	.id = MI_LANG_DEVICETREE,
	.name = "devicetree",
	.exts = " .dts .dtsi .dtso .overlay ",
	.ts = tree_sitter_devicetree,
	.query = mi_query_src_devicetree,
	.fix = mi_fix_devicetree,
};
