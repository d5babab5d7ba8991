/*
 * lang_list.h - the languages mcpidx reads, one row each:
 *	MI_LANG_ROW(ID, name, "//", "", 0)
 * gives the id MI_LANG_<ID> (its position here, stored in the index: append
 * new rows at the end, never reorder), the name "<name>" that
 * mi_lang_name() answers, and the parser row mi_lang_<name> that
 * indexer/lang/<name>.c defines.  Included with MI_LANG_ROW defined.
 */
MI_LANG_ROW(C, c, "//", "", 0)
MI_LANG_ROW(CPP, cpp, "//", "", 0)
MI_LANG_ROW(PYTHON, python, "#", "", 0)
MI_LANG_ROW(GO, go, "//", "", 0)
MI_LANG_ROW(RUST, rust, "//", "", 0)
MI_LANG_ROW(JAVASCRIPT, javascript, "//", "", 0)
MI_LANG_ROW(TYPESCRIPT, typescript, "//", "", 0)
MI_LANG_ROW(TSX, tsx, "//", "", 0)
MI_LANG_ROW(JAVA, java, "//", "", 0)
MI_LANG_ROW(CSHARP, csharp, "//", "", 0)
MI_LANG_ROW(SWIFT, swift, "//", "", 0)
MI_LANG_ROW(RUBY, ruby, "#", "", 0)
MI_LANG_ROW(PHP, php, "//", "", 0)
MI_LANG_ROW(KOTLIN, kotlin, "//", "", 0)
MI_LANG_ROW(BASH, bash, "#", "", 0)
MI_LANG_ROW(MARKDOWN, markdown, "<!--", " -->", MI_LANGF_PROSE)
MI_LANG_ROW(SIMPLE, simple, "#", "", 0)
MI_LANG_ROW(KCONFIG, kconfig, "#", "", 0)
MI_LANG_ROW(ASM, asm, "#", "", 0)
MI_LANG_ROW(RST, rst, ".. ", "", MI_LANGF_PROSE)
MI_LANG_ROW(DOCKERFILE, dockerfile, "#", "", 0)
