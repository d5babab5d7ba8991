/*
 * bash.c - Bash: functions and variables from the query alone.
 */
#include "lang_int.h"

const TSLanguage *tree_sitter_bash(void);
extern const char mi_query_src_bash[];

const mi_lang_row mi_lang_bash = {
	.id = MI_LANG_BASH,
	.name = "bash",
	.exts = " .sh .bash ",
	.filenames = " .bashrc .bash_profile ",
	.ts = tree_sitter_bash,
	.query = mi_query_src_bash,
};
