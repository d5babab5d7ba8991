/*
 * lang.c - the language table: one row per supported language, each defined
 * by its own file indexer/lang/<name>.c (extensions, grammar, query, rules),
 * in the order of format/lang_list.h.  To add a language, see
 * indexer/lang/lang_int.h.
 */
#include "indexer_int.h"

#include <string.h>

#define MI_LANG_ROW(ID, name) extern const mi_lang_row mi_lang_##name;
#include "../format/lang_list.h"
#undef MI_LANG_ROW

static const mi_lang_row *const rows[] = {
#define MI_LANG_ROW(ID, name) &mi_lang_##name,
#include "../format/lang_list.h"
#undef MI_LANG_ROW
};
_Static_assert(sizeof(rows) / sizeof(rows[0]) == MI_LANG__COUNT - 1,
	       "one parser row per language of format/lang_list.h");

const mi_lang_row *mi_lang_row_get(int id)
{
	if (id < 1 || id >= MI_LANG__COUNT)
		return NULL;
	return rows[id - 1];
}

/* true if list (" a b ") holds word. */
static bool in_list(const char *list, const char *word, size_t n)
{
	if (!list || !n || n > 64)
		return false;
	char key[70];
	key[0] = ' ';
	memcpy(key + 1, word, n);
	key[n + 1] = ' ';
	key[n + 2] = 0;
	return strstr(list, key) != NULL;
}

int mi_lang_detect(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t bl = strlen(base);
	const char *dot = strrchr(base, '.');
	char ext[32];
	size_t el = 0;
	if (dot && dot != base && strlen(dot) < sizeof(ext)) {
		el = strlen(dot);
		for (size_t i = 0; i < el; i++)
			ext[i] = (char)(dot[i] >= 'A' && dot[i] <= 'Z' ? dot[i] + 32 : dot[i]);
	}
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (in_list(rows[i]->filenames, base, bl))
			return rows[i]->id;
		if (el && in_list(rows[i]->exts, ext, el))
			return rows[i]->id;
	}
	return MI_LANG_NONE;
}

int mi_lang_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (!strcmp(rows[i]->name, name))
			return rows[i]->id;
	return MI_LANG_NONE;
}
