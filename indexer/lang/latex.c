/*
 * latex.c - LaTeX (.tex, .sty, .cls), read by a scanner of our own (the
 * grammar on npm is forty megabytes of parser): sectioning commands are
 * headings, nested and folded like Markdown's and searched as docs, their
 * level relative to the highest one the file uses (\part, \chapter,
 * \section, ... \subparagraph); \newcommand, \def and \newenvironment give
 * macros; \input, \include, \usepackage and \documentclass are imports.
 * Comments (%) and verbatim environments are skipped.
 */
#include "lang_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const tex_sections[] = {
	"part", "chapter", "section", "subsection", "subsubsection", "paragraph",
	"subparagraph", NULL
};

static const char *const tex_macros[] = {
	"newcommand", "renewcommand", "providecommand", "def", "gdef", "edef", "xdef",
	"DeclareMathOperator", "DeclareRobustCommand", "newenvironment", "NewDocumentCommand",
	"newtheorem", NULL
};

static const char *const tex_imports[] = {
	"input", "include", "usepackage", "RequirePackage", "documentclass", "subfile",
	"bibliography", "addbibresource", NULL
};

static const char *const tex_verbatim[] = {
	"verbatim", "verbatim*", "lstlisting", "minted", "comment", "Verbatim", NULL
};

typedef struct tex_head {
	size_t sym;   /* index of its symbol */
	int rank;     /* position in tex_sections */
} tex_head;

static int word_in(const char *s, size_t n, const char *const *set)
{
	for (int i = 0; set[i]; i++)
		if (strlen(set[i]) == n && !memcmp(set[i], s, n))
			return i;
	return -1;
}

/* Skips a balanced {...} group starting at s[i] == '{'; returns the index
 * after it (or len). */
static size_t tex_group(const char *s, size_t len, size_t i)
{
	int depth = 0;
	for (; i < len; i++) {
		if (s[i] == '\\') {
			i++;
			continue;
		}
		if (s[i] == '%') {
			while (i < len && s[i] != '\n')
				i++;
			continue;
		}
		if (s[i] == '{')
			depth++;
		else if (s[i] == '}' && --depth == 0)
			return i + 1;
	}
	return len;
}

static int latex_scan(const char *src, size_t len, mi_parsed *out)
{
	mi_scan ls;
	mi_scan_init(&ls, src, len, out);
	tex_head *heads = NULL;
	size_t nh = 0, caph = 0;
	int top = 99;
	for (size_t i = 0; i < len; i++) {
		char c = src[i];
		if (c == '%') {
			while (i < len && src[i] != '\n')
				i++;
			continue;
		}
		if (c != '\\')
			continue;
		size_t a = i + 1, e = a;
		while (e < len && (isalpha((unsigned char)src[e]) || src[e] == '@'))
			e++;
		if (e == a) {
			i++; /* \\ \% \{ ... */
			continue;
		}
		const char *w = src + a;
		size_t wl = e - a;
		size_t k = e;
		int sec = word_in(w, wl, tex_sections);
		if (wl == 5 && !memcmp(w, "begin", 5) && k < len && src[k] == '{') {
			size_t g = tex_group(src, len, k);
			if (g > k + 2 && word_in(src + k + 1, g - k - 2, tex_verbatim) >= 0) {
				/* to \end{same} */
				char endtag[64];
				size_t el = g - k - 2;
				if (el < 40) {
					memcpy(endtag, "\\end{", 5);
					memcpy(endtag + 5, src + k + 1, el);
					endtag[5 + el] = '}';
					const char *x = memmem(src + g, len - g, endtag, el + 6);
					i = x ? (size_t)(x - src) + el + 5 : len;
					continue;
				}
			}
			i = k;
			continue;
		}
		if (sec >= 0) {
			if (k < len && src[k] == '*')
				k++;
			while (k < len && (src[k] == ' ' || src[k] == '\t'))
				k++;
			if (k < len && src[k] == '[') {
				while (k < len && src[k] != ']')
					k++;
				k++;
			}
			while (k < len && isspace((unsigned char)src[k]))
				k++;
			if (k >= len || src[k] != '{') {
				i = e - 1;
				continue;
			}
			size_t g = tex_group(src, len, k);
			size_t ta = k + 1, tz = g > ta ? g - 1 : ta;
			mi_line ln;
			ln.start = (uint32_t)i;
			ln.no = mi_scan_line(&ls, (uint32_t)i);
			ln.s = src + i;
			ln.end = (uint32_t)g;
			size_t si = mi_line_sym(out, MI_KIND_HEADING, src + ta, tz - ta, src + ta, tz - ta, &ln);
			mi_symbol *s = &out->syms[si];
			s->end_line = mi_scan_line(&ls, (uint32_t)(g > i ? g - 1 : g));
			uint32_t nl = s->end_line < ls.nlines ? ls.lines[s->end_line] : 0;
			if (nl) {
				s->body_byte = nl;
				s->body_line = s->end_line + 1;
			}
			if (nh == caph) {
				caph = caph ? caph * 2 : 32;
				heads = mi_xrealloc(heads, caph * sizeof(*heads));
			}
			heads[nh++] = (tex_head){ si, sec };
			if (sec < top)
				top = sec;
			i = g - 1;
			continue;
		}
		int imp = word_in(w, wl, tex_imports);
		int mac = word_in(w, wl, tex_macros);
		if (imp >= 0 || mac >= 0) {
			/* skip [options] */
			while (k < len && (src[k] == ' ' || src[k] == '*'))
				k++;
			if (imp >= 0 && k < len && src[k] == '[') {
				while (k < len && src[k] != ']')
					k++;
				k++;
			}
			size_t na, nz;
			if (k < len && src[k] == '{') {
				size_t g = tex_group(src, len, k);
				na = k + 1;
				nz = g > na ? g - 1 : na;
			} else if (mac >= 0 && k < len && src[k] == '\\') {
				na = k;
				nz = k + 1;
				while (nz < len && (isalpha((unsigned char)src[nz]) || src[nz] == '@'))
					nz++;
			} else {
				continue;
			}
			while (na < nz && isspace((unsigned char)src[na]))
				na++;
			while (nz > na && isspace((unsigned char)src[nz - 1]))
				nz--;
			if (nz == na || nz - na > 200)
				continue;
			uint32_t line = mi_scan_line(&ls, (uint32_t)i);
			if (imp >= 0) {
				/* \usepackage{a,b} imports each */
				for (size_t x = na; x < nz;) {
					size_t y = x;
					while (y < nz && src[y] != ',')
						y++;
					size_t p = x, q = y;
					while (p < q && isspace((unsigned char)src[p]))
						p++;
					while (q > p && isspace((unsigned char)src[q - 1]))
						q--;
					if (q > p) {
						mi_ref *r = mi_parsed_add_ref(out);
						r->callee = mi_parsed_strndup(out, src + p, q - p);
						r->line = line;
						r->line_byte = ls.lines[line - 1];
						r->kind = MI_REF_IMPORT;
					}
					x = y + 1;
				}
			} else {
				uint32_t le = line < ls.nlines ? ls.lines[line] - 1 : (uint32_t)len;
				mi_line ln = { src + i, (uint32_t)i, le, le, line };
				mi_line_sym(out, MI_KIND_MACRO, src + na, nz - na, src + i, le - i, &ln);
			}
			i = nz;
		}
	}
	/* levels relative to the highest sectioning command used */
	for (size_t h = 0; h < nh; h++) {
		int lv = heads[h].rank - top + 1;
		out->syms[heads[h].sym].level = (uint8_t)(lv > 6 ? 6 : lv);
	}
	/* \end{document} closes the last section */
	uint32_t eof = (uint32_t)len, last = ls.nlines;
	const char *ed = memmem(src, len, "\\end{document}", 14);
	if (ed) {
		eof = (uint32_t)(ed - src);
		last = mi_scan_line(&ls, eof);
		last = last > 1 ? last - 1 : 1;
	}
	mi_line_heading_spans(out, 0, eof, last);
	mi_line_nest(out, src);
	free(heads);
	mi_scan_release(&ls);
	return 0;
}

const mi_lang_row mi_lang_latex = {
	.id = MI_LANG_LATEX,
	.name = "latex",
	.exts = " .tex .ltx .latex .sty .cls ",
	.scan = latex_scan,
};
