/*
 * vue.c - Vue single-file components (.vue), read with the HTML grammar:
 * the template, script and style blocks (HTML's rules: a block is named by
 * its tag, its signature is the start tag); what <script> and
 * <script setup> define is read by JavaScript's rules, or TypeScript's
 * with lang="ts", nested in the block's symbol.
 */
#include "lang_int.h"

const TSLanguage *tree_sitter_html(void);
extern const char mi_query_src_vue[];

const mi_lang_row mi_lang_vue = {
	.id = MI_LANG_VUE,
	.name = "vue",
	.exts = " .vue ",
	.ts = tree_sitter_html,
	.query = mi_query_src_vue,
	.fix = mi_fix_html,
	.embed = mi_html_embed_scripts,
};
