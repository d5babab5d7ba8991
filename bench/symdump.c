/*
 * symdump.c - prints "path<TAB>line<TAB>name<TAB>kind<TAB>body_line" for every
 * symbol of the files named on stdin (one path a line); argv[1] forces a
 * language by name.  Used by bench/ctags-recall.sh.
 */
#include "indexer/indexer.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	char path[4096];
	while (fgets(path, sizeof path, stdin)) {
		path[strcspn(path, "\n")] = 0;
		FILE *f = fopen(path, "rb");
		if (!f) continue;
		fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
		char *s = malloc(n + 1); n = fread(s, 1, n, f); fclose(f);
		mi_parsed p; mi_parsed_init(&p);
		int lang = argc > 1 ? mi_lang_from_name(argv[1]) : mi_lang_detect(path);
		if (mi_parse_source(lang, s, n, &p) == 0)
			for (size_t i = 0; i < p.nsyms; i++)
				printf("%s\t%u\t%s\t%s\t%u\n", path, p.syms[i].start_line, p.syms[i].name, mi_kind_name(p.syms[i].kind), p.syms[i].body_line ? p.syms[i].body_line : p.syms[i].start_line);
		mi_parsed_release(&p); free(s);
	}
	return 0;
}
