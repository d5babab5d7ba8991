/*
 * asm.c - GNU assembly (.S, .s), read by a scanner of our own: labels
 * (functions, or data when data directives follow), the kernel's
 * SYM_FUNC_START(name) / ENTRY(name) forms with their END markers,
 * .macro ... .endm and #define macros, .set/.equ constants, #include as an
 * import, and call/jump/branch targets as calls.
 */
#include "lang_int.h"

#include <string.h>

static bool as_word(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '$';
}

/* src[a, e) starts with word w (followed by a non-word character). */
static bool as_is(const char *src, uint32_t a, uint32_t e, const char *w)
{
	size_t n = strlen(w);
	return e - a >= n && !memcmp(src + a, w, n) && (a + n == e || !as_word(src[a + n]));
}

static uint32_t as_skip(const char *src, uint32_t i, uint32_t e)
{
	while (i < e && (src[i] == ' ' || src[i] == '\t'))
		i++;
	return i;
}

/* Definition macros of the kernel: NAME(sym...) opens (1) or closes (2). */
static int as_sym_macro(const char *src, uint32_t a, uint32_t e, uint32_t *open_paren)
{
	static const char *const opens[] = {
		"SYM_FUNC_START", "SYM_FUNC_START_LOCAL", "SYM_FUNC_START_NOALIGN",
		"SYM_FUNC_START_LOCAL_NOALIGN", "SYM_FUNC_START_WEAK", "SYM_FUNC_START_WEAK_NOALIGN",
		"SYM_CODE_START", "SYM_CODE_START_LOCAL", "SYM_CODE_START_NOALIGN",
		"SYM_CODE_START_LOCAL_NOALIGN", "SYM_DATA_START", "SYM_DATA_START_LOCAL",
		"SYM_TYPED_FUNC_START", "SYM_FUNC_START_ALIAS", "SYM_FUNC_ALIAS", "SYM_FUNC_ALIAS_LOCAL",
		"SYM_DATA", "SYM_DATA_LOCAL", "SYM_INNER_LABEL", "SYM_INNER_LABEL_ALIGN",
		"ENTRY", "GLOBAL", "WEAK", "LOCAL", "FUNC", "ENTRY_CFI", "_GLOBAL", "_GLOBAL_TOC",
		"__HEAD_FUNC", NULL,
	};
	static const char *const closes[] = {
		"SYM_FUNC_END", "SYM_CODE_END", "SYM_DATA_END", "SYM_DATA_END_LABEL", "END",
		"ENDPROC", "ENDPIPROC", "END_CFI", "ASM_FUNC_END", NULL,
	};
	uint32_t n = a;
	while (n < e && as_word(src[n]))
		n++;
	uint32_t p = as_skip(src, n, e);
	if (p >= e || src[p] != '(')
		return 0;
	*open_paren = p;
	for (int i = 0; opens[i]; i++)
		if (strlen(opens[i]) == n - a && !memcmp(opens[i], src + a, n - a))
			return 1;
	for (int i = 0; closes[i]; i++)
		if (strlen(closes[i]) == n - a && !memcmp(closes[i], src + a, n - a))
			return 2;
	return 0;
}

/* true for the first word of a data directive line. */
static bool as_data(const char *src, uint32_t a, uint32_t e)
{
	static const char *const d[] = {
		".long", ".quad", ".word", ".short", ".byte", ".int", ".asciz", ".ascii",
		".string", ".space", ".skip", ".fill", ".zero", ".octa", ".dc", ".double",
		".float", ".hword", ".2byte", ".4byte", ".8byte", NULL,
	};
	for (int i = 0; d[i]; i++)
		if (as_is(src, a, e, d[i]))
			return true;
	return false;
}

static void as_close(mi_scan *s, int cur, uint32_t end)
{
	if (cur < 0)
		return;
	mi_symbol *y = &s->p->syms[cur];
	uint32_t z = end;
	while (z > y->start_byte && (s->src[z - 1] == '\n' || s->src[z - 1] == ' ' ||
				      s->src[z - 1] == '\t' || s->src[z - 1] == '\r'))
		z--;
	if (z < y->start_byte)
		z = y->start_byte;
	y->end_byte = z;
	y->end_line = mi_scan_line(s, z > y->start_byte ? z - 1 : z);
}

static int as_scan(const char *src, size_t len, mi_parsed *out)
{
	mi_scan s;
	mi_scan_init(&s, src, len, out);
	int cur = -1, macro = -1;
	bool in_comment = false;
	for (size_t ln = 0; ln < s.nlines; ln++) {
		uint32_t a = s.lines[ln], e = mi_scan_eol(&s, a);
		/* drop a block comment's lines */
		if (in_comment) {
			const char *z = memmem(src + a, e - a, "*/", 2);
			if (!z)
				continue;
			in_comment = false;
			a = (uint32_t)(z - src) + 2;
		}
		uint32_t b = as_skip(src, a, e);
		if (b >= e)
			continue;
		uint32_t stop = e;
		for (uint32_t i = b; i < e; i++) {
			if (src[i] == '"') {
				for (i++; i < e && src[i] != '"'; i++)
					if (src[i] == '\\')
						i++;
				continue;
			}
			if (src[i] == '/' && i + 1 < e && src[i + 1] == '*') {
				const char *z = memmem(src + i + 2, e - i - 2, "*/", 2);
				if (!z) {
					in_comment = true;
					stop = i;
					break;
				}
				continue;
			}
			if ((src[i] == '/' && i + 1 < e && src[i + 1] == '/') ||
			    (src[i] == '#' && i > b) || src[i] == '@' || src[i] == ';') {
				if (src[i] == ';' || src[i] == '@' || src[i] == '#' ||
				    (src[i] == '/' && src[i + 1] == '/')) {
					stop = i;
					break;
				}
			}
		}
		e = stop;
		if (b >= e)
			continue;
		if (src[b] == '#') {
			uint32_t d = as_skip(src, b + 1, e);
			if (as_is(src, d, e, "define")) {
				uint32_t n0 = as_skip(src, d + 6, e), n1 = n0;
				while (n1 < e && as_word(src[n1]))
					n1++;
				uint32_t end = e;
				size_t l2 = ln;
				while (end > a && src[end - 1] == '\\' && l2 + 1 < s.nlines)
					end = mi_scan_eol(&s, s.lines[++l2]);
				if (n1 > n0)
					mi_scan_sym(&s, MI_KIND_MACRO, b, end, src + n0, n1 - n0, b, n1, -1);
				ln = l2;
			} else if (as_is(src, d, e, "include")) {
				uint32_t q = as_skip(src, d + 7, e);
				uint32_t z = q + 1;
				while (z < e && src[z] != '"' && src[z] != '>')
					z++;
				if (q < e && z > q + 1)
					mi_scan_ref(&s, MI_REF_IMPORT, q, src + q + 1, z - q - 1, -1);
			}
			continue;
		}
		uint32_t n = b;
		while (n < e && as_word(src[n]))
			n++;
		uint32_t paren;
		int m = n > b ? as_sym_macro(src, b, e, &paren) : 0;
		if (m) {
			uint32_t q = as_skip(src, paren + 1, e), z = q;
			while (z < e && as_word(src[z]))
				z++;
			if (m == 1 && z > q) {
				as_close(&s, cur, a);
				bool data = !memcmp(src + b, "SYM_DATA", 8);
				cur = mi_scan_sym(&s, data ? MI_KIND_VARIABLE : MI_KIND_FUNCTION, b, e,
						  src + q, z - q, b, e, -1);
				if (strstr(out->syms[cur].sig, "LOCAL"))
					out->syms[cur].vis = MI_VIS_PRIVATE;
			} else if (m == 2 && cur >= 0) {
				as_close(&s, cur, e);
				cur = -1;
			}
			continue;
		}
		if (n > b && n < e && src[n] == ':' && !(src[b] >= '0' && src[b] <= '9') &&
		    !(src[b] == '.' && n > b + 1 && src[b + 1] == 'L')) {
			/* a label: data when a data directive follows */
			uint32_t r = as_skip(src, n + 1, e);
			bool data = r < e && as_data(src, r, e);
			for (size_t l2 = ln + 1; !data && r >= e && l2 < s.nlines; l2++) {
				uint32_t a2 = s.lines[l2], e2 = mi_scan_eol(&s, a2), b2 = as_skip(src, a2, e2);
				if (b2 < e2) {
					data = as_data(src, b2, e2);
					break;
				}
			}
			if (cur >= 0 && out->syms[cur].end_byte > a) {
				/* a label inside an open SYM_FUNC_START: not a new symbol */
			}
			as_close(&s, cur, a);
			cur = mi_scan_sym(&s, data ? MI_KIND_VARIABLE : MI_KIND_FUNCTION, b, e,
					  src + b, n - b, b, n, macro);
			continue;
		}
		if (as_is(src, b, e, ".macro")) {
			uint32_t q = as_skip(src, b + 6, e), z = q;
			while (z < e && as_word(src[z]) && src[z] != ',')
				z++;
			as_close(&s, cur, a);
			cur = -1;
			if (z > q)
				macro = mi_scan_sym(&s, MI_KIND_MACRO, b, e, src + q, z - q, b, e, -1);
			continue;
		}
		if (as_is(src, b, e, ".endm") || as_is(src, b, e, ".endmacro")) {
			if (macro >= 0)
				as_close(&s, macro, e);
			macro = -1;
			continue;
		}
		if (as_is(src, b, e, ".set") || as_is(src, b, e, ".equ") || as_is(src, b, e, ".equiv")) {
			uint32_t q = as_skip(src, n, e), z = q;
			while (z < e && as_word(src[z]))
				z++;
			if (z > q)
				mi_scan_sym(&s, MI_KIND_CONSTANT, b, e, src + q, z - q, b, e,
					    macro >= 0 ? macro : -1);
			continue;
		}
		if (as_is(src, b, e, ".size") && cur >= 0) {
			as_close(&s, cur, e);
			continue;
		}
		/* call, jmp, bl, ... target */
		static const char *const calls[] = {
			"call", "callq", "calll", "jmp", "jmpq", "tail", "bl", "blx", "b", "jal", "j",
			"bsr", "jsr", "brasl", "bctrl", NULL,
		};
		for (int i = 0; calls[i]; i++) {
			if (!as_is(src, b, e, calls[i]))
				continue;
			uint32_t q = as_skip(src, b + strlen(calls[i]), e), z = q;
			while (z < e && as_word(src[z]) && src[z] != '.')
				z++;
			if (z > q && !(src[q] >= '0' && src[q] <= '9') && src[q] != '$' &&
			    src[q] != '.' && (z == e || src[z] != '('))
				mi_scan_ref(&s, MI_REF_CALL, q, src + q, z - q,
					    cur >= 0 ? cur : macro);
			break;
		}
	}
	as_close(&s, cur, (uint32_t)len);
	if (macro >= 0)
		as_close(&s, macro, (uint32_t)len);
	mi_scan_release(&s);
	return 0;
}

const mi_lang_row mi_lang_asm = {
	.id = MI_LANG_ASM,
	.name = "asm",
	.exts = " .s .S .sx ",
	.scan = as_scan,
};
