/*
 * lang.c - the language table: one row per supported language, each defined
 * by its own file indexer/lang/<name>.c (extensions, grammar, query, rules),
 * in the order of format/lang_list.h.  To add a language, see
 * indexer/lang/lang_int.h.
 */
#include "indexer_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MI_LANG_ROW(ID, name, comment, close, flags) extern const mi_lang_row mi_lang_##name;
#include "../format/lang_list.h"
#undef MI_LANG_ROW

static const mi_lang_row *const rows[] = {
#define MI_LANG_ROW(ID, name, comment, close, flags) &mi_lang_##name,
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

/* true if list (" a b* ") holds base, a word ending in '*' matching any
 * name it starts. */
static bool name_in_list(const char *list, const char *base, size_t n)
{
	if (!list)
		return false;
	if (in_list(list, base, n))
		return true;
	for (const char *w = list; (w = strchr(w, '*')); w++) {
		const char *st = w;
		while (st > list && st[-1] != ' ')
			st--;
		if ((size_t)(w - st) <= n && !memcmp(st, base, (size_t)(w - st)))
			return true;
	}
	return false;
}

/* Languages listed in $MCPIDX_SKIP_LANGS (names separated by commas or
 * spaces) are not detected: their files count as unsupported.  For
 * measuring what languages cost a build, and for leaving some out. */
static char skip_list[512];
static pthread_once_t skip_once = PTHREAD_ONCE_INIT;

static void skip_init(void)
{
	const char *e = getenv("MCPIDX_SKIP_LANGS");
	size_t o = 0;
	skip_list[o++] = ' ';
	for (; e && *e && o + 2 < sizeof(skip_list); e++)
		skip_list[o++] = *e == ',' ? ' ' : *e;
	skip_list[o++] = ' ';
	skip_list[o] = 0;
}

static int detected(const mi_lang_row *row)
{
	pthread_once(&skip_once, skip_init);
	if (skip_list[1] != ' ' && in_list(skip_list, row->name, strlen(row->name)))
		return MI_LANG_NONE;
	return row->id;
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
		if (name_in_list(rows[i]->filenames, base, bl))
			return detected(rows[i]);
		if (el && in_list(rows[i]->exts, ext, el))
			return detected(rows[i]);
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

void mi_lang_list(mi_buf *out)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const mi_lang_row *r = rows[i];
		mi_buf_addf(out, "%-11s", r->name);
		const char *lists[2] = {r->exts, r->filenames};
		bool first = true;
		for (int k = 0; k < 2; k++)
			for (const char *w = lists[k]; w && *w;) {
				while (*w == ' ')
					w++;
				size_t n = strcspn(w, " ");
				if (n) {
					mi_buf_adds(out, first ? " " : ", ");
					mi_buf_add(out, w, n);
					first = false;
				}
				w += n;
			}
		mi_buf_adds(out, r->ts ? "  (tree-sitter)\n" : "  (scanner)\n");
	}
}
