/*
 * grammar_fast.h - read before a grammar's generated parser.c (the Makefile
 * passes -include for the grammars listed in FAST_GRAMMARS).  Its lexer
 * asks set_contains() whether a character is in a set of ranges, by binary
 * search over hundreds of Unicode ranges for every character of every
 * identifier.  The ranges are sorted, so an ASCII character is decided by
 * the first few of them; others go to the grammar's own search.
 */
#include "tree_sitter/parser.h"

static inline bool mi_set_contains(const TSCharacterRange *ranges, uint32_t len, int32_t c)
{
	if (c >= 0 && c < 128) {
		for (uint32_t i = 0; i < len && ranges[i].start <= c; i++)
			if (c <= ranges[i].end)
				return true;
		return false;
	}
	return set_contains(ranges, len, c);
}
#define set_contains(ranges, len, c) mi_set_contains(ranges, len, c)
