/*
 * lang_b.c - language rules (visibility, kind corrections) for Java, C#,
 * Swift, Ruby, PHP, Kotlin and Markdown.
 */
#include "indexer_int.h"

#include <string.h>
#include <tree_sitter/api.h>

MI_FIX(java) { (void)c; (void)def_node; (void)s; }
MI_FIX(csharp) { (void)c; (void)def_node; (void)s; }
MI_FIX(swift) { (void)c; (void)def_node; (void)s; }
MI_FIX(ruby) { (void)c; (void)def_node; (void)s; }
MI_FIX(php) { (void)c; (void)def_node; (void)s; }
MI_FIX(kotlin) { (void)c; (void)def_node; (void)s; }
MI_FIX(markdown) { (void)c; (void)def_node; (void)s; }
