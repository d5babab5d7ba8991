/*
 * rst.c - reStructuredText, read by a scanner of our own: section titles
 * (a line underlined, and maybe overlined, by one repeated punctuation
 * character) are headings, their levels in the order the styles first
 * appear, each spanning to the next title of the same or a higher level,
 * folded like Markdown's; `.. include::` and `.. literalinclude::` are
 * imports.
 */
#include "lang_int.h"

#include <string.h>

static bool rs_punct(char ch)
{
	return ch && strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", ch) != NULL;
}

/* Length of src[a, e) without trailing blanks and '\r'. */
static uint32_t rs_trim(const char *src, uint32_t a, uint32_t e)
{
	while (e > a && (src[e - 1] == ' ' || src[e - 1] == '\t' || src[e - 1] == '\r'))
		e--;
	return e - a;
}

/* The adornment character of a line made of one repeated punctuation
 * character (at least 2), or 0. */
static char rs_adorn(const char *src, uint32_t a, uint32_t e)
{
	uint32_t n = rs_trim(src, a, e);
	if (n < 2 || !rs_punct(src[a]))
		return 0;
	for (uint32_t i = a + 1; i < a + n; i++)
		if (src[i] != src[a])
			return 0;
	return src[a];
}

static int rs_scan(const char *src, size_t len, mi_parsed *out)
{
	mi_scan s;
	mi_scan_init(&s, src, len, out);
	int styles[16]; /* char | 0x100 when overlined, by level - 1 */
	int nstyles = 0;
	size_t under = SIZE_MAX; /* the line of the last title's underline */
	for (size_t ln = 0; ln + 1 < s.nlines; ln++) {
		uint32_t a = s.lines[ln], e = mi_scan_eol(&s, a);
		uint32_t tl = rs_trim(src, a, e);
		if (!tl || src[a] == ' ' || src[a] == '\t' || rs_adorn(src, a, e))
			continue;
		uint32_t ua = s.lines[ln + 1], ue = mi_scan_eol(&s, ua);
		char ch = rs_adorn(src, ua, ue);
		if (!ch || rs_trim(src, ua, ue) < (tl < 3 ? tl : 3) ||
		    rs_trim(src, ua, ue) + 2 < tl)
			continue;
		bool over = false;
		uint32_t start = a;
		/* An overline, unless that line underlines the title before. */
		if (ln > 0 && ln - 1 != under) {
			uint32_t oa = s.lines[ln - 1], oe = mi_scan_eol(&s, oa);
			if (rs_adorn(src, oa, oe) == ch) {
				over = true;
				start = oa;
			}
		}
		int style = (unsigned char)ch | (over ? 0x100 : 0), level = 0;
		for (int i = 0; i < nstyles; i++)
			if (styles[i] == style)
				level = i + 1;
		if (!level) {
			if (nstyles < 16)
				styles[nstyles++] = style;
			level = nstyles;
		}
		uint32_t b = a;
		while (b < a + tl && (src[b] == ' ' || src[b] == '\t'))
			b++;
		int h = mi_scan_sym(&s, MI_KIND_HEADING, start, ue, src + b, a + tl - b, a, a + tl, -1);
		out->syms[h].level = (uint8_t)(level > 6 ? 6 : level);
		out->syms[h].body_byte = ue < len ? ue + 1 : ue;
		out->syms[h].body_line = (uint32_t)ln + 3;
		under = ++ln;
	}
	mi_scan_headings(&s);
	for (size_t ln = 0; ln < s.nlines; ln++) {
		uint32_t a = s.lines[ln], e = mi_scan_eol(&s, a), b = a;
		while (b < e && (src[b] == ' ' || src[b] == '\t'))
			b++;
		static const char *const inc[] = {".. include::", ".. literalinclude::", ".. kernel-doc::", NULL};
		for (int i = 0; inc[i]; i++) {
			size_t n = strlen(inc[i]);
			if (e - b > n && !memcmp(src + b, inc[i], n)) {
				uint32_t q = b + (uint32_t)n;
				while (q < e && src[q] == ' ')
					q++;
				if (q < e)
					mi_scan_ref(&s, MI_REF_IMPORT, q, src + q, rs_trim(src, q, e), -1);
			}
		}
	}
	mi_scan_release(&s);
	return 0;
}

const mi_lang_row mi_lang_rst = {
	.id = MI_LANG_RST,
	.name = "rst",
	.exts = " .rst .rest ",
	.scan = rs_scan,
};
