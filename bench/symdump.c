/*
 * symdump.c - prints "path<TAB>line<TAB>name<TAB>kind<TAB>body_line<TAB>
 * name_line" for every symbol of the files named on stdin (one path a
 * line); argv[1] forces a language by name.  name_line is the line where
 * the symbol's name is written in its header (the line ctags reports).
 * Used by bench/ctags-recall.sh.  With SYMDUMP_REFS=1 it prints the
 * references instead: "path<TAB>line<TAB>callee<TAB>kind" (kind: call type
 * import impl value), for bench/refs-global.sh.
 */
#include "indexer/indexer.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Line of the first occurrence of name in s[from, to) as a whole word, or 0. */
static unsigned name_line(const char *s, unsigned start_line, unsigned from, unsigned to,
			  const char *name)
{
	size_t nl = strlen(name);
	unsigned line = start_line;
	for (unsigned i = from; nl && i + nl <= to; i++) {
		if (s[i] == '\n')
			line++;
		if (memcmp(s + i, name, nl))
			continue;
		char b = i > from ? s[i - 1] : ' ', a = s[i + nl];
		int word_b = b == '_' || (b >= '0' && b <= '9') || ((b | 32) >= 'a' && (b | 32) <= 'z');
		int word_a = a == '_' || (a >= '0' && a <= '9') || ((a | 32) >= 'a' && (a | 32) <= 'z');
		if (!word_b && !word_a)
			return line;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char path[4096];
	while (fgets(path, sizeof path, stdin)) {
		path[strcspn(path, "\n")] = 0;
		char *s;
		size_t n;
		if (mi_read_file(path, &s, &n)) /* a folder named x.go, a FIFO: skipped */
			continue;
		mi_parsed p;
		mi_parsed_init(&p);
		int lang = argc > 1 ? mi_lang_from_name(argv[1]) : mi_lang_detect(path);
		static const char *const ref_kinds[] = {"call", "type", "import", "impl", "value"};
		bool refs = getenv("SYMDUMP_REFS") && *getenv("SYMDUMP_REFS") == '1';
		if (refs && mi_parse_source(lang, s, n, &p) == 0)
			for (size_t i = 0; i < p.nrefs; i++)
				printf("%s\t%u\t%s\t%s\n", path, p.refs[i].line, p.refs[i].callee,
				       p.refs[i].kind < 5 ? ref_kinds[p.refs[i].kind] : "?");
		else if (!refs && mi_parse_source(lang, s, n, &p) == 0)
			for (size_t i = 0; i < p.nsyms; i++) {
				const mi_symbol *y = &p.syms[i];
				unsigned to = y->body_byte ? y->body_byte : y->end_byte;
				unsigned nl = name_line(s, y->start_line, y->start_byte, to, y->name);
				printf("%s\t%u\t%s\t%s\t%u\t%u\n", path, y->start_line, y->name,
				       mi_kind_name(y->kind), y->body_line ? y->body_line : y->start_line,
				       nl ? nl : y->start_line);
			}
		mi_parsed_release(&p);
		free(s);
	}
	return 0;
}
