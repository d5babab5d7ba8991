/*
 * perl.c - Perl (.pl, .pm, .t; Makefile.PL), read by a scanner of our own: packages
 * are modules (to the next package statement, or their block), named subs
 * functions (to their closing brace), `use constant NAME => ...`
 * constants.  A sub's doc is the # comment block right above it, else the
 * POD block that ends right above it.  `use`, `require`, `use parent` and
 * `use base` name imports; `name(...)`, `&name` and `->name` are calls.
 * Strings, comments, POD, here-documents and quote-like operators (q qq
 * qw qr m s tr y) are stepped over, so their braces do not count; after
 * __END__ or __DATA__ the file is data.
 */
#include "lang_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define PL_OPEN_MAX 256 /* nested blocks followed for the ends of subs */

static bool pl_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

/* Words that take ( but call nothing of the file's. */
static const char *const pl_not_calls[] = {
	"if", "elsif", "unless", "while", "until", "for", "foreach", "my", "our", "local",
	"return", "and", "or", "not", "defined", "print", "printf", "sub", "qw", "eval",
	"do", "map", "grep", "sort", "keys", "values", "each", "push", "pop", "shift",
	"unshift", "splice", "scalar", "ref", "die", "warn", "exists", "delete", "length",
	"substr", "join", "split", "sprintf", "lc", "uc", "open", "close", "bless", "wantarray",
	"undef", "chomp", "exit", "use", "no", "require", "package", "last", "next", "redo",
	"state", "given", "when", "x", "lt", "gt", "le", "ge", "eq", "ne", "cmp", NULL,
};

static bool pl_in(const char *const *v, const char *s, size_t n)
{
	for (size_t i = 0; v[i]; i++)
		if (strlen(v[i]) == n && !memcmp(v[i], s, n))
			return true;
	return false;
}

/* The delimiter that closes one opened by c. */
static char pl_closer(char c)
{
	return c == '{' ? '}' : c == '(' ? ')' : c == '[' ? ']' : c == '<' ? '>' : c;
}

/* Steps over a delimited part opened at src[i] (its delimiter); returns
 * the index after its closer.  Bracket pairs nest. */
static size_t pl_skip_delimited(const char *src, size_t len, size_t i)
{
	char open = src[i], close = pl_closer(open);
	int depth = 0;
	for (i++; i < len; i++) {
		char c = src[i];
		if (c == '\\') {
			i++;
		} else if (c == close && open != close && depth) {
			depth--;
		} else if (c == close) {
			return i + 1;
		} else if (c == open && open != close) {
			depth++;
		}
	}
	return len;
}

/* Pragmas naming no module of the code's. */
static const char *const pl_pragmas[] = {"strict", "vars", "warnings", NULL};
/* Pragmas whose arguments are the modules inherited from. */
static const char *const pl_parent_pragmas[] = {"parent", "base", NULL};

/* The classes of `use parent -norequire, 'A', "B", qw(C D)` from byte x
 * to the statement's end: imports. */
static void pl_parent_refs(mi_scan *ls, size_t x)
{
	const char *src = ls->src;
	size_t len = ls->len;
	while (x < len && src[x] != ';') {
		if (src[x] == '\'' || src[x] == '"') {
			size_t e = pl_skip_delimited(src, len, x);
			if (e - x >= 2)
				mi_scan_ref(ls, MI_REF_IMPORT, (uint32_t)x, src + x + 1, e - x - 2, -1);
			x = e;
		} else if (src[x] == 'q' && x + 2 < len && src[x + 1] == 'w' &&
			   !pl_word_char(src[x + 2]) && !isspace((unsigned char)src[x + 2])) {
			size_t e = pl_skip_delimited(src, len, x + 2);
			for (size_t y = x + 3; y + 1 < e;) {
				while (y + 1 < e && isspace((unsigned char)src[y]))
					y++;
				size_t z = y;
				while (z + 1 < e && !isspace((unsigned char)src[z]))
					z++;
				if (z > y)
					mi_scan_ref(ls, MI_REF_IMPORT, (uint32_t)y, src + y, z - y, -1);
				y = z;
			}
			x = e;
		} else {
			x++;
		}
	}
}

/* The last part of a package name (Foo::Bar -> Bar). */
static void pl_last_part(const char **s, size_t *n)
{
	for (size_t i = *n; i >= 2; i--)
		if ((*s)[i - 1] == ':' && (*s)[i - 2] == ':') {
			*n -= i;
			*s += i;
			return;
		}
}

static int perl_scan(const char *src, size_t len, mi_parsed *out)
{
	mi_scan ls;
	mi_scan_init(&ls, src, len, out);
	struct { long sym; int depth; } open[PL_OPEN_MAX];
	size_t nopen = 0;
	long pkg = -1;              /* the package statement in force (no block) */
	int depth = 0;
	mi_buf doc = {0}, pod = {0};
	uint32_t doc_end = 0, pod_end = 0; /* lines where the comment block, POD ended */
	char heredoc[64] = "";      /* a here-document's terminator, read at the next line */
	size_t hl = 0;
	bool indent_ok = false;     /* <<~: the terminator may be indented */
	char prev = ';';            /* the last significant character */
	const char *pw = NULL;      /* the last word and its length */
	size_t pwl = 0;
	size_t i = 0;
	while (i < len) {
		char c = src[i];
		bool bol = i == 0 || src[i - 1] == '\n';
		if (bol && hl) {
			/* the here-document's lines, to its terminator */
			while (i < len) {
				size_t e = i;
				while (e < len && src[e] != '\n')
					e++;
				size_t a = i, z = e;
				if (indent_ok)
					while (a < z && (src[a] == ' ' || src[a] == '\t'))
						a++;
				if (z > a && src[z - 1] == '\r')
					z--;
				i = e < len ? e + 1 : len;
				if (z - a == hl && !memcmp(src + a, heredoc, hl))
					break;
			}
			hl = 0;
			continue;
		}
		if (bol && c == '=' && i + 1 < len && isalpha((unsigned char)src[i + 1])) {
			/* POD, to a =cut line */
			mi_buf_reset(&pod);
			while (i < len) {
				size_t e = i;
				while (e < len && src[e] != '\n')
					e++;
				bool cut = e - i >= 4 && !memcmp(src + i, "=cut", 4) &&
					   (e - i == 4 || !pl_word_char(src[i + 4]));
				if (cut) {
					pod_end = mi_scan_line(&ls, (uint32_t)i);
					i = e < len ? e + 1 : len;
					break;
				}
				/* the text, command lines (=head2 name) dropped */
				size_t a = src[i] == '=' ? e : i;
				if (pod.len < 2000 && (a < e || pod.len)) {
					mi_buf_add(&pod, src + a, e - a);
					mi_buf_addc(&pod, '\n');
				}
				i = e < len ? e + 1 : len;
				pod_end = mi_scan_line(&ls, (uint32_t)(e < len ? e : len));
			}
			continue;
		}
		if (bol && (len - i >= 7 && (!memcmp(src + i, "__END__", 7) ||
					     (len - i >= 8 && !memcmp(src + i, "__DATA__", 8)))))
			break;
		if (isspace((unsigned char)c)) {
			i++;
			continue;
		}
		if (c == '#' && i == 0 && len > 1 && src[1] == '!') {
			while (i < len && src[i] != '\n')
				i++; /* #!/usr/bin/perl: no doc */
			continue;
		}
		if (c == '#' && prev != '$') {
			uint32_t ln = mi_scan_line(&ls, (uint32_t)i);
			if (doc_end + 1 != ln)
				mi_buf_reset(&doc);
			size_t a = i, e = i;
			while (e < len && src[e] != '\n')
				e++;
			while (a < e && (src[a] == '#' || src[a] == ' '))
				a++;
			if (doc.len < 2000) {
				mi_buf_add(&doc, src + a, e - a);
				mi_buf_addc(&doc, '\n');
			}
			doc_end = ln;
			i = e;
			continue;
		}
		if (c == '"' || c == '\'' || c == '`') {
			i = pl_skip_delimited(src, len, i);
			prev = '"';
			pw = NULL;
			continue;
		}
		if (c == '<' && i + 2 < len && src[i + 1] == '<' && prev != ')' && prev != ']' &&
		    (src[i + 2] == '"' || src[i + 2] == '\'' || src[i + 2] == '~' ||
		     isalpha((unsigned char)src[i + 2]) || src[i + 2] == '_')) {
			/* a here-document: its body starts on the next line */
			size_t k = i + 2;
			indent_ok = src[k] == '~';
			if (indent_ok)
				k++;
			char q = src[k] == '"' || src[k] == '\'' ? src[k] : 0;
			if (q)
				k++;
			size_t a = k;
			while (k < len && (q ? src[k] != q && src[k] != '\n' : pl_word_char(src[k])))
				k++;
			if (k - a && k - a < sizeof(heredoc)) {
				memcpy(heredoc, src + a, k - a);
				hl = k - a;
			}
			i = q && k < len && src[k] == q ? k + 1 : k;
			prev = '"';
			continue;
		}
		if (c == '/' && ((prev && strchr("(,=~!{};&|:?[", prev)) ||
				 (pw && (pl_in((const char *const[]){"split", "grep", "if", "unless",
						 "and", "or", "not", "return", "when", NULL}, pw, pwl))))) {
			i = pl_skip_delimited(src, len, i); /* a match */
			prev = '"';
			pw = NULL;
			continue;
		}
		if (pl_word_char(c) && !isdigit((unsigned char)c)) {
			size_t a = i;
			while (i < len && (pl_word_char(src[i]) ||
					   (src[i] == ':' && i + 2 < len && src[i + 1] == ':' &&
					    pl_word_char(src[i + 2]))))
				i += src[i] == ':' ? 2 : 1;
			size_t n = i - a;
			const char *w = src + a;
			bool sigil = a > 0 && strchr("$@%*", src[a - 1]);
			bool arrow = a >= 2 && src[a - 1] == '>' && src[a - 2] == '-';
			bool amp = a > 0 && src[a - 1] == '&' && (a < 2 || src[a - 2] != '&');
			size_t k = i;
			while (k < len && (src[k] == ' ' || src[k] == '\t'))
				k++;
			/* quote-like operators: q{...}, s/a/b/, tr[a][b] */
			bool ql = !sigil && !arrow && k < len && (n <= 2) &&
				  (pl_in((const char *const[]){"q", "qq", "qw", "qr", "m", "s", "tr", "y", NULL}, w, n)) &&
				  !pl_word_char(src[k]) && !isspace((unsigned char)src[k]) && src[k] != ',' &&
				  src[k] != ';' && src[k] != '=' && src[k] != ')';
			if (ql) {
				bool two = (n == 1 && (*w == 's' || *w == 'y')) || (n == 2 && !memcmp(w, "tr", 2));
				char d = src[k];
				i = pl_skip_delimited(src, len, k);
				if (two) {
					if (pl_closer(d) != d) { /* s{a}{b}: a second delimited part */
						while (i < len && isspace((unsigned char)src[i]))
							i++;
						if (i < len)
							i = pl_skip_delimited(src, len, i);
					} else if (i > 0) {
						i = pl_skip_delimited(src, len, i - 1);
					}
				}
				prev = '"';
				pw = NULL;
				continue;
			}
			uint32_t line = mi_scan_line(&ls, (uint32_t)a);
			if (!sigil && !arrow && n == 3 && !memcmp(w, "sub", 3) && prev != '>' ) {
				/* sub NAME ... { */
				size_t b = k;
				while (b < len && (pl_word_char(src[b]) || src[b] == ':') && b - k < 200)
					b++;
				if (b > k && !isdigit((unsigned char)src[k])) {
					size_t x = b;
					/* a prototype, attributes or a signature, then the
					 * brace, on this line or a later one */
					while (x < len && src[x] != '{' && src[x] != ';' && src[x] != '}' &&
					       x - b < 400)
						x = src[x] == '(' ? pl_skip_delimited(src, len, x) : x + 1;
					if (x < len && src[x] == '{') {
						const char *nm = src + k;
						size_t nml = b - k;
						pl_last_part(&nm, &nml);
						mi_line ln = { src + a, (uint32_t)a, (uint32_t)x, (uint32_t)x, line };
						long s = (long)mi_line_sym(out, MI_KIND_FUNCTION, nm, nml, src + a,
									   x - a, &ln);
						out->syms[s].body_byte = (uint32_t)x;
						out->syms[s].body_line = mi_scan_line(&ls, (uint32_t)x);
						if (nml && nm[0] == '_')
							out->syms[s].vis = MI_VIS_PRIVATE;
						if (doc.len && doc_end + 1 == line)
							mi_line_doc(out, (size_t)s, doc.buf, doc.len);
						else if (pod.len && pod_end + 3 >= line && pod_end < line)
							mi_line_doc(out, (size_t)s, pod.buf, pod.len);
						if (nopen < PL_OPEN_MAX) {
							open[nopen].sym = s;
							open[nopen++].depth = depth;
						}
						i = x; /* the brace is counted below */
						prev = 's';
						pw = NULL;
						mi_buf_reset(&doc);
						continue;
					}
				}
			} else if (!sigil && !arrow && n == 7 && !memcmp(w, "package", 7)) {
				size_t b = k;
				while (b < len && (pl_word_char(src[b]) || src[b] == ':') && b - k < 200)
					b++;
				size_t x = b;
				while (x < len && (src[x] == ' ' || src[x] == '\t' || pl_word_char(src[x]) ||
						   src[x] == '.'))
					x++; /* a version */
				if (b > k && x < len && (src[x] == ';' || src[x] == '{')) {
					/* a package statement ends the one before; a package
					 * block is inside it, which goes on after the block */
					if (pkg >= 0 && src[x] == ';') {
						/* to the line before, or this one when it began here */
						mi_symbol *ps = &out->syms[pkg];
						bool here = line <= ps->start_line;
						mi_line prevl = { NULL, 0, here ? (uint32_t)a : ls.lines[line - 1] - 1, 0,
								  here ? ps->start_line : line - 1 };
						mi_line_end_at(out, (size_t)pkg, &prevl);
						pkg = -1;
					}
					mi_line ln = { src + a, (uint32_t)a, (uint32_t)x, (uint32_t)x, line };
					long s = (long)mi_line_sym(out, MI_KIND_MODULE, src + k, b - k, src + a,
								   x - a, &ln);
					if (doc.len && doc_end + 1 == line)
						mi_line_doc(out, (size_t)s, doc.buf, doc.len);
					if (src[x] == '{') {
						if (nopen < PL_OPEN_MAX) {
							open[nopen].sym = s;
							open[nopen++].depth = depth;
						}
						i = x;
					} else {
						pkg = s;
						i = x + 1;
					}
					prev = ';';
					pw = NULL;
					mi_buf_reset(&doc);
					continue;
				}
			} else if (!sigil && !arrow && ((n == 3 && !memcmp(w, "use", 3)) ||
							(n == 7 && !memcmp(w, "require", 7)))) {
				size_t b = k;
				while (b < len && (pl_word_char(src[b]) || src[b] == ':'))
					b++;
				const char *m = src + k;
				size_t ml = b - k;
				if (ml && !isdigit((unsigned char)*m)) {
					if (pl_in(pl_parent_pragmas, m, ml)) {
						pl_parent_refs(&ls, b);
					} else if (ml == 8 && !memcmp(m, "constant", 8)) {
						size_t x = b;
						while (x < len && isspace((unsigned char)src[x]))
							x++;
						size_t y = x;
						while (y < len && pl_word_char(src[y]))
							y++;
						if (y > x) {
							mi_line ln = { src + a, (uint32_t)a, (uint32_t)y, (uint32_t)y, line };
							long s = (long)mi_line_sym(out, MI_KIND_CONSTANT, src + x, y - x,
										   src + a, y - a, &ln);
							if (doc.len && doc_end + 1 == line)
								mi_line_doc(out, (size_t)s, doc.buf, doc.len);
						}
					} else if (!pl_in(pl_pragmas, m, ml)) {
						mi_scan_ref(&ls, MI_REF_IMPORT, (uint32_t)k, m, ml, -1);
					}
				}
			} else if (!sigil && (arrow || amp || (k < len && src[k] == '(')) &&
				   !pl_in(pl_not_calls, w, n)) {
				const char *nm = w;
				size_t nml = n;
				pl_last_part(&nm, &nml);
				if (nml && !isdigit((unsigned char)*nm))
					mi_scan_ref(&ls, MI_REF_CALL, (uint32_t)a, nm, nml, -1);
			}
			prev = 'a';
			pw = w;
			pwl = n;
			mi_buf_reset(&doc);
			continue;
		}
		if (c == '{') {
			depth++;
		} else if (c == '}') {
			depth--;
			/* the block this brace closes, and any left open in it */
			while (nopen && open[nopen - 1].depth >= depth) {
				long s = open[--nopen].sym;
				out->syms[s].end_byte = (uint32_t)i + 1;
				out->syms[s].end_line = mi_scan_line(&ls, (uint32_t)i);
			}
		}
		if (c == '$' && i + 1 < len && src[i + 1] == '#') {
			i += 2; /* $#array, $#{...}: no comment */
			prev = 'a';
			continue;
		}
		if (c == '$' && i + 1 < len && strchr("\"'`/\\;,.!@&+|<>()[]?^~=-%*0123456789", src[i + 1]) &&
		    src[i + 1]) {
			i += 2; /* $" $/ $; ...: punctuation variables, no quote or pattern */
			prev = 'a';
			pw = NULL;
			continue;
		}
		prev = c;
		pw = NULL;
		mi_buf_reset(&doc);
		i++;
	}
	if (pkg >= 0) {
		mi_line last = { NULL, 0, (uint32_t)len, 0, mi_scan_line(&ls, len ? (uint32_t)len - 1 : 0) };
		mi_line_end_at(out, (size_t)pkg, &last);
	}
	/* a sub whose closing brace never came ends where the file does */
	while (nopen) {
		long s = open[--nopen].sym;
		out->syms[s].end_byte = (uint32_t)len;
		out->syms[s].end_line = mi_scan_line(&ls, len ? (uint32_t)len - 1 : 0);
	}
	mi_line_nest(out, src);
	mi_scan_release(&ls);
	mi_buf_release(&doc);
	mi_buf_release(&pod);
	return 0;
}

const mi_lang_row mi_lang_perl = {
	.id = MI_LANG_PERL,
	.name = "perl",
	.exts = " .pl .pm .t .psgi ",
	.filenames = " Makefile.PL Build.PL cpanfile ",
	.scan = perl_scan,
};
