/*
 * queries.c - how long each language's tags query takes to compile, the
 * cost a process pays the first time it meets a file of that language
 * (queries compile lazily, per language).  Prints "name<TAB>ms" per
 * language with a grammar, slowest first is left to the reader.
 * Built and run by `make bench-queries` (bench/langs.mk).
 */
#include "indexer/indexer.h"
#include "indexer/indexer_int.h"

#include <stdio.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(void)
{
	int bad = 0;
	for (int id = 1; id < MI_LANG__COUNT; id++) {
		const mi_lang_row *row = mi_lang_row_get(id);
		if (!row || !row->ts || !row->query) {
			printf("%s\tscanner\n", mi_lang_name(id));
			continue;
		}
		double t0 = now_ms();
		const char *err = mi_ts_query_error(id);
		double t1 = now_ms();
		printf("%s\t%.1f ms%s%s\n", mi_lang_name(id), t1 - t0, err ? "  " : "", err ? err : "");
		bad |= err != NULL;
	}
	return bad;
}
