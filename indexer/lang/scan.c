/*
 * scan.c - helpers for the languages read by a scanner of our own instead
 * of a tree-sitter grammar (Kconfig, assembly, reStructuredText, ...): line
 * starts, symbols and references with lines and bytes, signatures folded,
 * heading spans and parents.
 */
#include "lang_int.h"

#include <stdlib.h>
#include <string.h>

void mi_scan_init(mi_scan *s, const char *src, size_t len, mi_parsed *p)
{
	memset(s, 0, sizeof(*s));
	s->src = src;
	s->len = len;
	s->p = p;
	size_t cap = 64;
	s->lines = mi_xmalloc(cap * sizeof(*s->lines));
	s->lines[s->nlines++] = 0;
	for (size_t i = 0; i < len; i++)
		if (src[i] == '\n' && i + 1 < len) {
			if (s->nlines == cap) {
				cap *= 2;
				s->lines = mi_xrealloc(s->lines, cap * sizeof(*s->lines));
			}
			s->lines[s->nlines++] = (uint32_t)(i + 1);
		}
}

void mi_scan_release(mi_scan *s)
{
	free(s->lines);
	s->lines = NULL;
}

uint32_t mi_scan_line(const mi_scan *s, uint32_t byte)
{
	size_t lo = 0, hi = s->nlines;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (s->lines[mid] <= byte)
			lo = mid;
		else
			hi = mid;
	}
	return (uint32_t)lo + 1;
}

uint32_t mi_scan_eol(const mi_scan *s, uint32_t byte)
{
	while (byte < s->len && s->src[byte] != '\n')
		byte++;
	return byte;
}

/* Line of the last byte of [start, end). */
static uint32_t last_line(const mi_scan *s, uint32_t start, uint32_t end)
{
	return mi_scan_line(s, end > start ? end - 1 : start);
}

int mi_scan_sym(mi_scan *s, int kind, uint32_t start, uint32_t end, const char *name,
		size_t nl, uint32_t sig_start, uint32_t sig_end, int parent)
{
	mi_parsed *p = s->p;
	if (end > s->len)
		end = (uint32_t)s->len;
	if (end < start)
		end = start;
	mi_symbol *y = mi_parsed_add_sym(p);
	y->name = mi_parsed_strndup(p, name, mi_utf8_prefix(name, nl, 200));
	y->kind = (uint8_t)kind;
	y->start_byte = start;
	y->end_byte = end;
	y->start_line = mi_scan_line(s, start);
	y->end_line = last_line(s, start, end);
	mi_buf b = {0};
	bool space = false;
	for (uint32_t i = sig_start; i < sig_end && i < s->len && b.len < 400; i++) {
		unsigned char ch = (unsigned char)s->src[i];
		if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
			space = b.len > 0;
			continue;
		}
		if (space)
			mi_buf_addc(&b, ' ');
		space = false;
		mi_buf_addc(&b, (char)ch);
	}
	/* The 400-byte cap may fall inside a character. */
	y->sig = mi_parsed_strndup(p, b.buf ? b.buf : "", mi_utf8_clip(b.buf, b.len));
	mi_buf_release(&b);
	y->doc = "";
	y->parent = "";
	y->parent_idx = -1;
	mi_scan_set_parent(s, (int)(p->nsyms - 1), parent);
	return (int)(p->nsyms - 1);
}

void mi_scan_set_parent(mi_scan *s, int i, int parent)
{
	mi_parsed *p = s->p;
	mi_symbol *y = &p->syms[i];
	y->parent_idx = parent;
	y->parent = "";
	y->level = y->kind == MI_KIND_HEADING ? y->level : 0;
	if (parent < 0)
		return;
	const mi_symbol *par = &p->syms[parent];
	if (y->kind != MI_KIND_HEADING)
		y->level = (uint8_t)(par->level < 254 ? par->level + 1 : 255);
	if (!par->parent[0]) {
		y->parent = par->name;
		return;
	}
	mi_buf q = {0};
	mi_buf_adds(&q, par->parent);
	mi_buf_addc(&q, '.');
	mi_buf_adds(&q, par->name);
	y->parent = mi_parsed_strndup(p, q.buf, q.len);
	mi_buf_release(&q);
}

void mi_scan_doc(mi_scan *s, int i, const char *doc, size_t n)
{
	while (n && (doc[n - 1] == '\n' || doc[n - 1] == ' '))
		n--;
	s->p->syms[i].doc = mi_parsed_strndup(s->p, doc, mi_utf8_prefix(doc, n, 1200));
}

void mi_scan_ref(mi_scan *s, int kind, uint32_t at, const char *name, size_t nl, int caller)
{
	if (!nl || nl > 200)
		return;
	mi_ref *r = mi_parsed_add_ref(s->p);
	r->callee = mi_parsed_strndup(s->p, name, nl);
	r->line = mi_scan_line(s, at);
	r->line_byte = s->lines[r->line - 1];
	r->kind = (uint8_t)kind;
	r->caller_idx = caller;
}

void mi_scan_headings(mi_scan *s)
{
	mi_parsed *p = s->p;
	int stack[8];
	int sp = 0;
	for (size_t i = 0; i < p->nsyms; i++) {
		mi_symbol *h = &p->syms[i];
		if (h->kind != MI_KIND_HEADING)
			continue;
		uint32_t end = (uint32_t)s->len;
		for (size_t j = i + 1; j < p->nsyms; j++)
			if (p->syms[j].kind == MI_KIND_HEADING && p->syms[j].level <= h->level) {
				end = p->syms[j].start_byte;
				break;
			}
		while (end > h->start_byte && (s->src[end - 1] == '\n' || s->src[end - 1] == ' '))
			end--;
		if (end < h->body_byte)
			end = h->body_byte;
		h->end_byte = end;
		h->end_line = last_line(s, h->start_byte, end);
		if (h->body_byte >= end) {
			h->body_byte = 0;
			h->body_line = 0;
		}
		while (sp > 0 && p->syms[stack[sp - 1]].level >= h->level)
			sp--;
		mi_scan_set_parent(s, (int)i, sp > 0 ? stack[sp - 1] : -1);
		h->vis = MI_VIS_PUBLIC;
		if (sp < 8)
			stack[sp++] = (int)i;
	}
}
