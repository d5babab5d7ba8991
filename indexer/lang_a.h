/*
 * lang_a.h - what indexer/lang_a.c offers beyond the MI_FIX rules.
 */
#ifndef MI_LANG_A_H
#define MI_LANG_A_H

#include <stddef.h>

/*
 * C/C++ source for the parser only: a copy of src (same length, same line
 * breaks, so every offset and line stays valid) with the attribute macros
 * the grammar cannot read (__init, __user, asmlinkage, __printf(2, 3),
 * __alloc_size(1), __acquires(x)...) blanked outside preprocessor lines.
 * Returns a malloc'd buffer, or NULL when nothing needed blanking.
 */
char *mi_c_prefilter(const char *src, size_t len);

#endif
