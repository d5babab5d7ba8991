/*
 * lang_list.h - the languages mcpidx reads, one row each:
 *	MI_LANG_ROW(ID, name)
 * gives the id MI_LANG_<ID> (its position here, stored in the index: append
 * new rows at the end, never reorder), the name "<name>" that
 * mi_lang_name() answers, and the parser row mi_lang_<name> that
 * indexer/lang/<name>.c defines.  Included with MI_LANG_ROW defined.
 */
MI_LANG_ROW(C, c)
MI_LANG_ROW(CPP, cpp)
MI_LANG_ROW(PYTHON, python)
MI_LANG_ROW(GO, go)
MI_LANG_ROW(RUST, rust)
MI_LANG_ROW(JAVASCRIPT, javascript)
MI_LANG_ROW(TYPESCRIPT, typescript)
MI_LANG_ROW(TSX, tsx)
MI_LANG_ROW(JAVA, java)
MI_LANG_ROW(CSHARP, csharp)
MI_LANG_ROW(SWIFT, swift)
MI_LANG_ROW(RUBY, ruby)
MI_LANG_ROW(PHP, php)
MI_LANG_ROW(KOTLIN, kotlin)
MI_LANG_ROW(BASH, bash)
MI_LANG_ROW(MARKDOWN, markdown)
MI_LANG_ROW(SIMPLE, simple)
