/*
 * markdown.c - Markdown: headings are public; their level is the heading's (1-6)
 * and each spans to the next heading of the same or a higher level.
 */
#include "lang_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- Markdown ------------------------------------------------------------------- */

/* Level of an ATX or setext heading node (1-6), 0 if it is not one. */
static int md_level(TSNode h)
{
	uint32_t k = ts_node_child_count(h);
	for (uint32_t i = 0; i < k; i++) {
		const char *t = ts_node_type(ts_node_child(h, i));
		if (!strncmp(t, "atx_h", 5) && t[5] >= '1' && t[5] <= '6' && !strcmp(t + 6, "_marker"))
			return t[5] - '0';
		if (!strcmp(t, "setext_h1_underline"))
			return 1;
		if (!strcmp(t, "setext_h2_underline"))
			return 2;
	}
	return 0;
}

/* Start of the first outline heading (in a section chain from the root)
 * after byte `after` with a level of at most `level`; `none` if there is
 * none. */
static uint32_t md_next_heading(TSNode n, uint32_t after, int level, uint32_t none)
{
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode ch = ts_node_named_child(n, i);
		if (ts_node_end_byte(ch) <= after)
			continue;
		const char *t = ts_node_type(ch);
		if (!strcmp(t, "section")) {
			uint32_t r = md_next_heading(ch, after, level, none);
			if (r != none)
				return r;
		} else if ((!strcmp(t, "atx_heading") || !strcmp(t, "setext_heading")) &&
			   ts_node_start_byte(ch) > after) {
			int l = md_level(ch);
			if (l && l <= level)
				return ts_node_start_byte(ch);
		}
	}
	return none;
}

/* Headings: level from the marker, span to the next heading of the same or
 * a higher level, name without closing #'s, signature the heading's first
 * line as written. */
MI_FIX(markdown)
{
	TSNode n = *(TSNode *)def_node;
	size_t len;
	uint32_t base;
	const char *src = mi_ts_src(c, &len, &base);
	/* An outline heading: its ancestors are one to seven sections, then
	 * the document (not a heading in a block quote or a list item). */
	TSNode root = n;
	int sections = 0;
	bool chain = true;
	for (TSNode up = ts_node_parent(n); !ts_node_is_null(up); up = ts_node_parent(up)) {
		if (!ts_node_eq(root, n)) { /* the ancestor below up */
			chain &= !strcmp(ts_node_type(root), "section");
			sections++;
		}
		root = up;
	}
	if (!chain || sections < 1 || sections > 7 || strcmp(ts_node_type(root), "document")) {
		s->kind = MI_KIND_NONE;
		return;
	}
	int level = md_level(n);
	if (!level)
		return;
	s->level = (uint8_t)level;
	uint32_t hs = ts_node_start_byte(n), he = ts_node_end_byte(n);
	uint32_t end = md_next_heading(root, hs, level, (uint32_t)len);
	if (end < he)
		end = he;
	s->end_byte = end + base;
	s->end_line = mi_count_lines(src, end);
	if (s->end_line < s->start_line)
		s->end_line = s->start_line;
	if (he < end) {
		s->body_byte = he + base;
		s->body_line = mi_count_lines(src, he) + (he > 0 && src[he - 1] == '\n');
	} else {
		s->body_byte = 0;
		s->body_line = 0;
	}
	/* signature: the first line of the heading */
	uint32_t le = hs;
	while (le < he && src[le] != '\n' && src[le] != '\r')
		le++;
	mi_ts_set_sig(c, s, hs, le);
	/* name: trimmed, without an ATX closing sequence */
	size_t nl = strlen(s->name);
	const char *nm = s->name;
	while (nl && isspace((unsigned char)nm[nl - 1]))
		nl--;
	size_t h = nl;
	while (h && nm[h - 1] == '#')
		h--;
	if (h < nl && (h == 0 || nm[h - 1] == ' ' || nm[h - 1] == '\t'))
		nl = h;
	while (nl && isspace((unsigned char)nm[nl - 1]))
		nl--;
	while (nl && isspace((unsigned char)*nm)) {
		nm++;
		nl--;
	}
	s->name = mi_parsed_strndup(mi_ts_parsed(c), nm, nl);
	s->vis = MI_VIS_PUBLIC;
}

/* ---- nesting bound -------------------------------------------------------------- */

/* The grammar's scanner keeps the stack of open blocks (blockquotes, list
 * items, ...) and copies all of it into the runtime's 1,024-byte state
 * buffer at every token: past 254 open blocks it writes beyond the buffer,
 * and the runtime's assertion aborts the process (one README line of 255
 * '>' ended every build of its repository).  Each block open on a line
 * takes at least one column of the line's prefix (its '>', list marker or
 * indentation), so the parser reads a copy whose line prefixes are blanked
 * past MD_MAX_PREFIX columns: no line opens more blocks than that.  NULL
 * when no line is that deep (names come from the original text). */
#define MD_MAX_PREFIX 128

static bool md_prefix_char(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '>' || ch == '-' || ch == '*' || ch == '+' ||
	       ch == '.' || ch == ')' || (ch >= '0' && ch <= '9');
}

static char *md_prefilter(const char *src, size_t len)
{
	char *out = NULL;
	size_t i = 0;
	while (i < len) {
		size_t col = 0;
		for (; i < len && md_prefix_char(src[i]); i++) {
			col = src[i] == '\t' ? (col + 4) & ~(size_t)3 : col + 1;
			if (col <= MD_MAX_PREFIX)
				continue;
			if (!out) {
				if (!(out = malloc(len)))
					return NULL;
				memcpy(out, src, len);
			}
			out[i] = ' ';
		}
		const char *nl = memchr(src + i, '\n', len - i);
		i = nl ? (size_t)(nl - src) + 1 : len;
	}
	return out;
}

const TSLanguage *tree_sitter_markdown(void);
extern const char mi_query_src_markdown[];

const mi_lang_row mi_lang_markdown = {
	.id = MI_LANG_MARKDOWN,
	.name = "markdown",
	.exts = " .md .markdown ",
	.ts = tree_sitter_markdown,
	.query = mi_query_src_markdown,
	.fix = mi_fix_markdown,
	.prefilter = md_prefilter,
};
