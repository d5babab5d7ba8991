/*
 * sanitize.c - upstream tool text as it may be shown to a model.  A tool
 * description is written by whoever runs the server: it may hide text from
 * the person reading it (zero-width and tag characters, bidirectional
 * overrides, HTML comments) or speak to the model instead of describing the
 * tool.  The catalog stores it raw; every view goes through mi_sanitize.
 */
#include "format.h"

#include <ctype.h>
#include <string.h>

/* Decodes one UTF-8 sequence at s (n bytes left): the code point and its
 * length, or -1 with length 1 for an invalid byte. */
static long utf8_cp(const unsigned char *s, size_t n, size_t *l)
{
	long c;
	size_t need, i;
	*l = 1;
	if (s[0] < 0x80)
		return s[0];
	if ((s[0] & 0xe0) == 0xc0) {
		need = 2;
		c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		need = 3;
		c = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		need = 4;
		c = s[0] & 0x07;
	} else {
		return -1;
	}
	if (n < need)
		return -1;
	for (i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((need == 2 && c < 0x80) || (need == 3 && c < 0x800) ||
	    (need == 4 && (c < 0x10000 || c > 0x10ffff)) || (c >= 0xd800 && c <= 0xdfff))
		return -1;
	*l = need;
	return c;
}

/* Characters that change what a reader sees without being seen. */
static bool invisible(long c)
{
	return (c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7f && c <= 0x9f) ||
	       c == 0xad || c == 0x34f || c == 0x61c || c == 0x115f || c == 0x1160 ||
	       c == 0x17b4 || c == 0x17b5 || c == 0x180e ||
	       (c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2060 && c <= 0x206f) || c == 0x3164 || c == 0xfeff ||
	       c == 0xffa0 || (c >= 0xfff0 && c <= 0xfff8) ||
	       (c >= 0xe0000 && c <= 0xe0fff);  /* tag characters: ASCII smuggling */
}

/* Wording addressed to the model rather than describing a tool, lowercase.
 * Matched on the text with hidden characters and markup already removed. */
static const char *const instruction_like[] = {
	"ignore previous", "ignore all previous", "ignore the previous",
	"ignore any previous", "ignore prior", "ignore above", "disregard previous",
	"disregard all", "disregard the above", "forget previous", "forget all previous",
	"do not tell the user", "don't tell the user", "do not mention",
	"don't mention", "without telling", "without informing", "not inform the user",
	"never tell the user", "do not reveal", "do not notify",
	"before using this tool", "before calling this tool", "before you use this tool",
	"you must first", "you must always", "always call this tool", "instead of the",
	"system prompt", "new instructions", "<important>", "</important>",
	"<instructions>", "<system>", "~/.ssh", "id_rsa", "mcp.json",
	"~/.cursor", "~/.aws", "pass its content", "pass the content",
	"send the content", "exfiltrat", "sidenote", "takes precedence",
};

static bool has_instructions(const char *s, size_t len)
{
	mi_buf low = {0};
	bool hit = false;
	size_t i;
	mi_buf_grow(&low, len + 1);
	for (i = 0; i < len; i++)
		low.buf[i] = (char)tolower((unsigned char)s[i]);
	low.buf[len] = 0;
	low.len = len;
	for (i = 0; !hit && i < sizeof(instruction_like) / sizeof(instruction_like[0]); i++)
		hit = strstr(low.buf, instruction_like[i]) != NULL;
	mi_buf_release(&low);
	return hit;
}

/* Tags that format or hide text, or that pose as a conversation's
 * structure.  Others ("<path>", "Array<string>") are text and stay. */
static const char *const markup_tags[] = {
	"a", "assistant", "b", "br", "context", "details", "div", "em", "font",
	"hidden", "i", "img", "important", "instruction", "instructions", "meta",
	"note", "p", "script", "secret", "span", "strong", "style", "sub",
	"summary", "sup", "system", "tool", "u", "user",
};

/* Length of a markup tag at s ("<span ...>", "</system>"), or 0. */
static size_t tag_len(const char *s, size_t n)
{
	size_t i = 1, w, k;
	char name[16];
	if (n < 3 || s[0] != '<')
		return 0;
	if (s[i] == '/')
		i++;
	for (w = 0; i < n && isalpha((unsigned char)s[i]) && w < sizeof(name) - 1; i++)
		name[w++] = (char)tolower((unsigned char)s[i]);
	name[w] = 0;
	if (!w || (i < n && s[i] != '>' && s[i] != ' ' && s[i] != '/'))
		return 0;
	for (k = 0; k < sizeof(markup_tags) / sizeof(markup_tags[0]); k++)
		if (!strcmp(name, markup_tags[k]))
			break;
	if (k == sizeof(markup_tags) / sizeof(markup_tags[0]))
		return 0;
	for (; i < n && i < 300; i++) {
		if (s[i] == '>')
			return i + 1;
		if (s[i] == '<')
			return 0;
	}
	return 0;
}

unsigned mi_sanitize(const char *s, size_t len, size_t max, mi_buf *out)
{
	unsigned flags = 0;
	mi_buf t = {0};
	size_t i = 0, l, blank = 0, start;
	const unsigned char *u = (const unsigned char *)s;

	/* Pass 1: characters. */
	while (i < len) {
		long c = utf8_cp(u + i, len - i, &l);
		if (c < 0) {
			mi_buf_adds(&t, "\xef\xbf\xbd");
			flags |= MI_SAN_HIDDEN;
		} else if (c == '\r') {
			/* dropped silently: CRLF line ends are not hiding anything */
		} else if (invisible(c)) {
			flags |= MI_SAN_HIDDEN;
		} else {
			mi_buf_add(&t, s + i, l);
		}
		i += l;
	}
	/* Pass 2: markup and blank lines. */
	start = out->len;
	for (i = 0; i < t.len;) {
		const char *p = t.buf + i;
		size_t n = t.len - i, k;
		if (n >= 4 && !memcmp(p, "<!--", 4)) {
			const char *e = strstr(p + 4, "-->");
			flags |= MI_SAN_MARKUP;
			i = e ? (size_t)(e - t.buf) + 3 : t.len;
			continue;
		}
		if ((k = tag_len(p, n))) {
			flags |= MI_SAN_MARKUP;
			i += k;
			continue;
		}
		if (*p == '\n') {
			if (++blank <= 2)
				mi_buf_addc(out, '\n');
			i++;
			continue;
		}
		if (*p != ' ' && *p != '\t')
			blank = 0;
		mi_buf_addc(out, *p == '\t' ? ' ' : *p);
		i++;
	}
	mi_buf_release(&t);
	/* trailing blanks */
	while (out->len > start && (out->buf[out->len - 1] == '\n' || out->buf[out->len - 1] == ' '))
		out->buf[--out->len] = 0;
	if (has_instructions(out->buf ? out->buf + start : "", out->len - start))
		flags |= MI_SAN_INSTRUCTION;
	if (max && out->len - start > max) {
		size_t cut = start + max;
		while (cut > start && ((unsigned char)out->buf[cut] & 0xc0) == 0x80)
			cut--;
		out->len = cut;
		out->buf[cut] = 0;
		mi_buf_adds(out, "...");
		flags |= MI_SAN_TRUNCATED;
	}
	return flags;
}

void mi_sanitize_flag_names(unsigned flags, mi_buf *out)
{
	static const char *const names[] = {
		"hidden-characters", "hidden-markup", "instruction-like", "truncated",
	};
	int n = 0;
	mi_buf_addc(out, '[');
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & (1u << i))
			mi_buf_addf(out, "%s\"%s\"", n++ ? "," : "", names[i]);
	mi_buf_addc(out, ']');
}
