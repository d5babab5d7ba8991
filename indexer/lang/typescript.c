/*
 * typescript.c - TypeScript: the JavaScript rules (javascript.c).
 */
#include "lang_int.h"

const TSLanguage *tree_sitter_typescript(void);
extern const char mi_query_src_typescript[];

const mi_lang_row mi_lang_typescript = {
	.id = MI_LANG_TYPESCRIPT,
	.name = "typescript",
	.exts = " .ts .mts .cts ",
	.ts = tree_sitter_typescript,
	.query = mi_query_src_typescript,
	.fix = mi_fix_javascript,
};
