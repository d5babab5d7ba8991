/*
 * tsx.c - TSX: TypeScript with JSX, the JavaScript rules (javascript.c).
 */
#include "lang_int.h"

const TSLanguage *tree_sitter_tsx(void);
extern const char mi_query_src_tsx[];

const mi_lang_row mi_lang_tsx = {
	.id = MI_LANG_TSX,
	.name = "tsx",
	.exts = " .tsx ",
	.ts = tree_sitter_tsx,
	.query = mi_query_src_tsx,
	.fix = mi_fix_javascript,
};
