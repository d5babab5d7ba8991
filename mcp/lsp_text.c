/*
 * lsp_text.c - what the language server needs to speak about text: line tables
 * and positions in the negotiated encoding (UTF-16 code units unless the
 * client offers UTF-8 or UTF-32), words under the cursor, file:// URIs, and
 * the open documents with their edits.
 */
#include "lsp_int.h"

#include <stdlib.h>
#include <string.h>

/* Appends line start at to v (n used, *cap allocated). */
static uint32_t *add_start(uint32_t *v, uint32_t *n, uint32_t *cap, size_t at)
{
	if (*n == *cap) {
		*cap *= 2;
		v = mi_xrealloc(v, *cap * sizeof *v);
	}
	v[(*n)++] = (uint32_t)at;
	return v;
}

void mi_lsp_lines_init(mi_lsp_lines *l, const char *s, size_t len, int enc)
{
	const char *end = s + len, *p = s, *nl, *cr;
	uint32_t cap = 64;
	bool lone_cr = false;
	l->s = s;
	l->len = len;
	l->enc = enc;
	l->start = mi_xmalloc(cap * sizeof *l->start);
	l->start[0] = 0;
	l->n = 1;
	l->nl = NULL;
	/* the next "\n" and the next "\r", each searched for once per hit */
	nl = memchr(s, '\n', len);
	cr = memchr(s, '\r', len);
	while (nl || cr) {
		if (cr && (!nl || cr + 1 < nl)) {
			p = cr + 1;
			lone_cr = true;
		} else {
			p = nl + 1; /* after "\n", or "\r\n": one break */
		}
		l->start = add_start(l->start, &l->n, &cap, (size_t)(p - s));
		if (nl && nl < p)
			nl = memchr(p, '\n', (size_t)(end - p));
		if (cr && cr < p)
			cr = memchr(p, '\r', (size_t)(end - p));
	}
	l->nnl = l->n;
	if (lone_cr) {
		cap = 64;
		l->nl = mi_xmalloc(cap * sizeof *l->nl);
		l->nl[0] = 0;
		l->nnl = 1;
		for (p = s; (p = memchr(p, '\n', (size_t)(end - p))); p++)
			l->nl = add_start(l->nl, &l->nnl, &cap, (size_t)(p + 1 - s));
	}
}

void mi_lsp_lines_release(mi_lsp_lines *l)
{
	free(l->start);
	free(l->nl);
	l->start = l->nl = NULL;
	l->n = l->nnl = 0;
}

/* Code units one UTF-8 byte adds: continuation bytes add nothing, a 4-byte
 * lead two UTF-16 units. */
static uint32_t units(unsigned char c, int enc)
{
	if (enc == MI_ENC_UTF8)
		return 1;
	if ((c & 0xc0) == 0x80)
		return 0;
	return enc == MI_ENC_UTF16 && c >= 0xf0 ? 2 : 1;
}

size_t mi_lsp_line_end(const mi_lsp_lines *l, uint32_t i)
{
	if (i + 1 >= l->n)
		return l->len; /* the last line has no break */
	size_t e = l->start[i + 1] - 1;
	/* a line holds no "\r": one before the "\n" is part of "\r\n" */
	if (e > l->start[i] && l->s[e - 1] == '\r')
		e--;
	return e;
}

bool mi_lsp_nl_span(const mi_lsp_lines *l, uint32_t nl, size_t *from, size_t *to)
{
	const uint32_t *v = l->nl ? l->nl : l->start;
	uint32_t n = l->nl ? l->nnl : l->n;
	*from = *to = 0;
	if (nl >= n)
		return false;
	*from = v[nl];
	*to = nl + 1 < n ? v[nl + 1] : l->len;
	return true;
}

uint32_t mi_lsp_nl_line(const mi_lsp_lines *l, uint32_t nl, size_t off)
{
	uint32_t line, ch;
	if (!l->nl)
		return nl;
	mi_lsp_position(l, off, &line, &ch);
	return line;
}

size_t mi_lsp_offset(const mi_lsp_lines *l, uint32_t line, uint32_t ch)
{
	size_t p, e;
	uint32_t u = 0;
	if (line >= l->n)
		return l->len;
	p = l->start[line];
	e = mi_lsp_line_end(l, line);
	while (p < e) {
		uint32_t w = units((unsigned char)l->s[p], l->enc);
		if (u + w > ch && w)
			break;
		u += w;
		p++;
		/* stay on the lead byte's boundary */
		while (p < e && (l->s[p] & 0xc0) == 0x80 && l->enc != MI_ENC_UTF8)
			p++;
	}
	return p;
}

void mi_lsp_position(const mi_lsp_lines *l, size_t off, uint32_t *line, uint32_t *ch)
{
	uint32_t lo = 0, hi = l->n, u = 0;
	if (off > l->len)
		off = l->len;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (l->start[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	for (size_t p = l->start[lo]; p < off; p++)
		u += units((unsigned char)l->s[p], l->enc);
	*line = lo;
	*ch = u;
}

json_t *mi_lsp_strn(const char *s, size_t n)
{
	mi_buf b = {0};
	json_t *j;
	mi_buf_add_utf8(&b, s ? s : "", s ? n : 0);
	j = json_stringn(b.buf, b.len);
	mi_buf_release(&b);
	return j;
}

json_t *mi_lsp_str(const char *s)
{
	return mi_lsp_strn(s, s ? strlen(s) : 0);
}

json_t *mi_lsp_range(const mi_lsp_lines *l, size_t from, size_t to)
{
	uint32_t l0, c0, l1, c1;
	if (to < from)
		to = from;
	mi_lsp_position(l, from, &l0, &c0);
	mi_lsp_position(l, to, &l1, &c1);
	return json_pack("{s:{s:i,s:i},s:{s:i,s:i}}", "start", "line", (json_int_t)l0,
			 "character", (json_int_t)c0, "end", "line", (json_int_t)l1,
			 "character", (json_int_t)c1);
}

static bool word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c >= 0x80;
}

size_t mi_lsp_word_at(const char *s, size_t len, size_t off, size_t *from, size_t *to)
{
	size_t a, b;
	if (off > len)
		off = len;
	a = b = off;
	/* A cursor just after a word (at its end) still names it. */
	if ((b == len || !word_byte((unsigned char)s[b])) && a > 0 &&
	    word_byte((unsigned char)s[a - 1]))
		a = b = off - 1;
	while (a > 0 && word_byte((unsigned char)s[a - 1]))
		a--;
	while (b < len && word_byte((unsigned char)s[b]))
		b++;
	/* a word of digits is not a name */
	if (b > a && s[a] >= '0' && s[a] <= '9')
		b = a;
	*from = a;
	*to = b;
	return b - a;
}

size_t mi_lsp_find_word(const char *s, size_t from, size_t to, const char *word)
{
	size_t wl = strlen(word);
	if (!wl)
		return (size_t)-1;
	for (size_t p = from; p + wl <= to; p++) {
		if (memcmp(s + p, word, wl))
			continue;
		if (p > from && word_byte((unsigned char)s[p - 1]))
			continue;
		if (p + wl < to && word_byte((unsigned char)s[p + wl]))
			continue;
		return p;
	}
	return (size_t)-1;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *mi_lsp_uri_path(const char *uri)
{
	mi_buf b = {0};
	const char *p;
	if (!uri || strncmp(uri, "file://", 7))
		return NULL;
	p = uri + 7;
	if (*p != '/') {
		/* file://localhost/path; any other authority is not ours */
		if (strncmp(p, "localhost/", 10))
			return NULL;
		p += 9;
	}
	for (; *p && *p != '?' && *p != '#'; p++) {
		int h, l;
		if (*p == '%' && (h = hexval(p[1])) >= 0 && (l = hexval(p[2])) >= 0) {
			if (h == 0 && l == 0) {
				mi_buf_release(&b);
				return NULL; /* a NUL in a path */
			}
			mi_buf_addc(&b, (char)(h * 16 + l));
			p += 2;
		} else {
			mi_buf_addc(&b, *p);
		}
	}
	return mi_buf_detach(&b);
}

void mi_lsp_path_uri(const char *path, mi_buf *out)
{
	static const char hex[] = "0123456789ABCDEF";
	mi_buf_adds(out, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/-._~", *p)) {
			mi_buf_addc(out, (char)*p);
		} else {
			mi_buf_addc(out, '%');
			mi_buf_addc(out, hex[*p >> 4]);
			mi_buf_addc(out, hex[*p & 15]);
		}
	}
}

/* A Position member: UINT32_MAX for any larger value, which a cast would
 * wrap to a small one. */
static uint32_t pos_value(json_t *v)
{
	json_int_t i = json_integer_value(v);
	return i > (json_int_t)UINT32_MAX ? UINT32_MAX : (uint32_t)i;
}

bool mi_lsp_get_pos(json_t *pos, uint32_t *line, uint32_t *ch)
{
	json_t *l = json_object_get(pos, "line"), *c = json_object_get(pos, "character");
	if (!json_is_integer(l) || !json_is_integer(c) || json_integer_value(l) < 0 ||
	    json_integer_value(c) < 0)
		return false;
	*line = pos_value(l);
	*ch = pos_value(c);
	return true;
}

int mi_lsp_doc_change(mi_lsp_doc *d, json_t *change, int enc, mi_buf *err)
{
	json_t *text = json_object_get(change, "text"), *range = json_object_get(change, "range");
	uint32_t l0, c0, l1, c1;
	size_t a, b, tl;
	mi_lsp_lines lines;
	mi_buf nb = {0};
	if (!json_is_string(text)) {
		mi_buf_adds(err, "a content change needs a string \"text\"");
		return -1;
	}
	d->parsed_valid = false;
	tl = json_string_length(text);
	if (!range || json_is_null(range)) {
		mi_buf_reset(&d->text);
		mi_buf_add(&d->text, json_string_value(text), tl);
		return 0;
	}
	if (!mi_lsp_get_pos(json_object_get(range, "start"), &l0, &c0) ||
	    !mi_lsp_get_pos(json_object_get(range, "end"), &l1, &c1)) {
		mi_buf_adds(err, "a content change's range needs start and end positions "
			    "{line, character} with non-negative integers");
		return -1;
	}
	mi_lsp_lines_init(&lines, mi_buf_str(&d->text), d->text.len, enc);
	a = mi_lsp_offset(&lines, l0, c0);
	b = mi_lsp_offset(&lines, l1, c1);
	mi_lsp_lines_release(&lines);
	if (b < a) {
		size_t t = a;
		a = b;
		b = t;
	}
	mi_buf_grow(&nb, d->text.len - (b - a) + tl);
	mi_buf_add(&nb, d->text.buf ? d->text.buf : "", a);
	mi_buf_add(&nb, json_string_value(text), tl);
	mi_buf_add(&nb, d->text.buf ? d->text.buf + b : "", d->text.len - b);
	mi_buf_release(&d->text);
	d->text = nb;
	return 0;
}

void mi_lsp_doc_free(mi_lsp_doc *d)
{
	if (!d)
		return;
	free(d->uri);
	free(d->path);
	mi_buf_release(&d->text);
	mi_parsed_release(&d->parsed);
	free(d);
}
