/*
 * latex.c - LaTeX, read by a scanner of our own (the npm grammar's parser
 * is 43 MB of C): \part .. \subparagraph are headings folded like
 * Markdown's (levels relative to the highest one the file uses),
 * \newcommand, \def, \newenvironment and \DeclareMathOperator are macros,
 * \input, \include and \usepackage are imports.
 */
#include "lang_int.h"

#include <string.h>

static const char *const tx_levels[] = {
	"part", "chapter", "section", "subsection", "subsubsection", "paragraph", "subparagraph",
};

static bool tx_letter(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '@';
}

/* The {group} starting at or after i (blanks skipped): [*a, *z) inside the
 * braces, the byte after '}' returned; 0 when there is none. */
static uint32_t tx_group(const char *src, uint32_t i, uint32_t e, uint32_t *a, uint32_t *z)
{
	while (i < e && (src[i] == ' ' || src[i] == '\t' || src[i] == '*'))
		i++;
	if (i < e && src[i] == '[') { /* an optional short title */
		int d = 0;
		for (; i < e; i++) {
			if (src[i] == '[')
				d++;
			else if (src[i] == ']' && --d == 0) {
				i++;
				break;
			}
		}
		while (i < e && (src[i] == ' ' || src[i] == '\t'))
			i++;
	}
	if (i >= e || src[i] != '{')
		return 0;
	int depth = 0;
	for (uint32_t j = i; j < e; j++) {
		if (src[j] == '\\') {
			j++;
			continue;
		}
		if (src[j] == '{')
			depth++;
		else if (src[j] == '}' && --depth == 0) {
			*a = i + 1;
			*z = j;
			return j + 1;
		}
	}
	return 0;
}

static int tx_scan(const char *src, size_t len, mi_parsed *out)
{
	mi_scan s;
	mi_scan_init(&s, src, len, out);
	uint32_t e = (uint32_t)len;
	int top = 99;
	for (uint32_t i = 0; i < e; i++) {
		if (src[i] == '%') {
			while (i < e && src[i] != '\n')
				i++;
			continue;
		}
		if (src[i] != '\\')
			continue;
		uint32_t a = i + 1, z = a;
		while (z < e && tx_letter(src[z]))
			z++;
		if (z == a) {
			i++; /* \\, \%, \{ */
			continue;
		}
		size_t n = z - a;
		uint32_t ga, gz, after;
		int level = 0;
		for (int k = 0; k < 7; k++)
			if (strlen(tx_levels[k]) == n && !memcmp(tx_levels[k], src + a, n))
				level = k + 1;
		if (level && (after = tx_group(src, z, e, &ga, &gz))) {
			int h = mi_scan_sym(&s, MI_KIND_HEADING, i, after, src + ga, gz - ga, i, after, -1);
			out->syms[h].level = (uint8_t)level;
			out->syms[h].body_byte = after;
			out->syms[h].body_line = mi_scan_line(&s, after);
			if (level < top)
				top = level;
			i = after - 1;
			continue;
		}
		bool newcmd = (n == 10 && !memcmp(src + a, "newcommand", 10)) ||
			      (n == 12 && !memcmp(src + a, "renewcommand", 12)) ||
			      (n == 14 && !memcmp(src + a, "providecommand", 14)) ||
			      (n == 19 && !memcmp(src + a, "DeclareMathOperator", 19)) ||
			      (n == 14 && !memcmp(src + a, "newenvironment", 14));
		if (newcmd || (n == 3 && !memcmp(src + a, "def", 3))) {
			uint32_t p = z;
			while (p < e && (src[p] == ' ' || src[p] == '*' || src[p] == '{'))
				p++;
			if (p < e && src[p] == '\\')
				p++;
			uint32_t q = p;
			while (q < e && tx_letter(src[q]))
				q++;
			uint32_t eol = mi_scan_eol(&s, i);
			if (q > p)
				mi_scan_sym(&s, MI_KIND_MACRO, i, eol, src + p, q - p, i, eol, -1);
			i = q > i ? q - 1 : i;
			continue;
		}
		if ((n == 5 && !memcmp(src + a, "input", 5)) || (n == 7 && !memcmp(src + a, "include", 7)) ||
		    (n == 10 && !memcmp(src + a, "usepackage", 10)) ||
		    (n == 14 && !memcmp(src + a, "bibliography", 12))) {
			if ((after = tx_group(src, z, e, &ga, &gz)))
				mi_scan_ref(&s, MI_REF_IMPORT, ga, src + ga, gz - ga, -1);
		}
		i = z - 1;
	}
	/* levels relative to the highest one used */
	for (size_t k = 0; k < out->nsyms; k++)
		if (out->syms[k].kind == MI_KIND_HEADING) {
			int l = out->syms[k].level - top + 1;
			out->syms[k].level = (uint8_t)(l > 6 ? 6 : l);
		}
	mi_scan_headings(&s);
	/* macros sit under the heading around them */
	for (size_t k = 0; k < out->nsyms; k++) {
		if (out->syms[k].kind != MI_KIND_MACRO)
			continue;
		int par = -1;
		for (size_t h = 0; h < out->nsyms; h++)
			if (out->syms[h].kind == MI_KIND_HEADING &&
			    out->syms[h].start_byte <= out->syms[k].start_byte &&
			    out->syms[h].end_byte >= out->syms[k].end_byte)
				par = (int)h;
		if (par >= 0)
			mi_scan_set_parent(&s, (int)k, par);
	}
	mi_scan_release(&s);
	return 0;
}

const mi_lang_row mi_lang_latex = {
	.id = MI_LANG_LATEX,
	.name = "latex",
	.exts = " .tex .ltx .sty .cls ",
	.scan = tx_scan,
};
