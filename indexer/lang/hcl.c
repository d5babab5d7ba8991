/*
 * hcl.c - HCL and Terraform: a block is named by its labels joined with
 * '.' (resource "aws_instance" "web": aws_instance.web; variable "region":
 * region), or by its type when it has none (locals); its signature is the
 * header up to '{'.
 */
#include "lang_int.h"

#include <string.h>

MI_FIX(hcl)
{
	TSNode n = *(TSNode *)def_node;
	if (strcmp(ts_node_type(n), "block"))
		return;
	mi_buf b = {0};
	uint32_t k = ts_node_child_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_child(n, i);
		const char *t = ts_node_type(ch);
		if (!strcmp(t, "block_start")) {
			mi_ts_set_sig(c, s, ts_node_start_byte(n), ts_node_start_byte(ch));
			break;
		}
		if (!strcmp(t, "string_lit") || (i > 0 && !strcmp(t, "identifier"))) {
			TSNode src = ch;
			for (uint32_t j = 0; !strcmp(t, "string_lit") && j < ts_node_named_child_count(ch); j++)
				if (mi_ts_type_is(ts_node_named_child(ch, j), "template_literal"))
					src = ts_node_named_child(ch, j);
			uint32_t tl;
			const char *tt = mi_ts_text(c, &src, &tl);
			if (b.len)
				mi_buf_addc(&b, '.');
			mi_buf_add(&b, tt, tl);
		}
	}
	if (b.len)
		s->name = mi_parsed_strndup(mi_ts_parsed(c), b.buf, b.len);
	mi_buf_release(&b);
}

const TSLanguage *tree_sitter_hcl(void);
extern const char mi_query_src_hcl[];

const mi_lang_row mi_lang_hcl = {
	.id = MI_LANG_HCL,
	.name = "hcl",
	.exts = " .hcl .tf .tfvars .nomad ",
	.ts = tree_sitter_hcl,
	.query = mi_query_src_hcl,
	.fix = mi_fix_hcl,
};
