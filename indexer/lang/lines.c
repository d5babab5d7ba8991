/*
 * lines.c - for scanners that read a file line by line and learn where a
 * symbol ends only later (Makefiles, SQL, CMake, LaTeX): lines, symbols
 * added in source order, heading spans, then parents and reference callers
 * by span in one pass, as the tree-sitter driver nests definitions.
 */
#include "lang_int.h"

#include <stdlib.h>
#include <string.h>

bool mi_line_next(const char *src, size_t len, uint32_t *pos, uint32_t *no,
		       mi_line *ln)
{
	if (*pos >= len)
		return false;
	const char *nl = memchr(src + *pos, '\n', len - *pos);
	uint32_t e = nl ? (uint32_t)(nl - src) : (uint32_t)len;
	ln->s = src + *pos;
	ln->start = *pos;
	ln->next = nl ? e + 1 : e;
	if (e > *pos && src[e - 1] == '\r')
		e--;
	ln->end = e;
	ln->no = ++*no;
	*pos = ln->next;
	return true;
}

/* Copies s[0..n) folding white space runs to one space, trimmed. */
static const char *fold(mi_parsed *p, const char *s, size_t n, size_t cap)
{
	char small[512];
	size_t o = 0;
	bool sp = false;
	if (cap > sizeof(small) - 4)
		cap = sizeof(small) - 4;
	for (size_t i = 0; i < n && o < cap; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v') {
			sp = o > 0;
			continue;
		}
		if (sp)
			small[o++] = ' ';
		sp = false;
		small[o++] = (char)ch;
	}
	if (o >= cap) {
		/* do not cut a UTF-8 sequence */
		o = mi_utf8_cut(small, o);
		memcpy(small + o, "...", 3);
		o += 3;
	}
	return mi_parsed_strndup(p, small, o);
}

size_t mi_line_sym(mi_parsed *p, int kind, const char *name, size_t nlen,
		   const char *sig, size_t slen, const mi_line *ln)
{
	mi_symbol *s = mi_parsed_add_sym(p);
	s->kind = (uint8_t)kind;
	s->vis = MI_VIS_PUBLIC;
	s->name = fold(p, name, nlen, 200);
	s->sig = fold(p, sig, slen, 400);
	s->doc = "";
	s->parent = "";
	s->start_line = s->end_line = ln->no;
	s->start_byte = ln->start;
	s->end_byte = ln->end;
	return p->nsyms - 1;
}

void mi_line_end_at(mi_parsed *p, size_t i, const mi_line *ln)
{
	mi_symbol *s = &p->syms[i];
	if (ln->end < s->start_byte)
		return;
	s->end_byte = ln->end;
	s->end_line = ln->no;
}

void mi_line_doc(mi_parsed *p, size_t i, const char *a, size_t n)
{
	mi_buf b = {0};
	/* a license tag is not documentation */
	while (n && (*a == ' ' || *a == '\t' || *a == '\n'))
		a++, n--;
	if (n >= 24 && !memcmp(a, "SPDX-License-Identifier:", 24))
		return;
	size_t k = 0;
	while (k < n) {
		size_t e = k;
		while (e < n && a[e] != '\n')
			e++;
		size_t x = k, z = e;
		while (x < z && (a[x] == ' ' || a[x] == '\t'))
			x++;
		while (z > x && (a[z - 1] == ' ' || a[z - 1] == '\t' || a[z - 1] == '\r'))
			z--;
		if (z > x || b.len) {
			if (b.len)
				mi_buf_addc(&b, '\n');
			mi_buf_add(&b, a + x, z - x);
		}
		k = e + 1;
	}
	while (b.len && b.buf[b.len - 1] == '\n')
		b.len--;
	if (b.len > 1200) {
		b.len = 1200;
		b.len = mi_utf8_cut(b.buf, b.len);
	}
	if (b.len)
		p->syms[i].doc = mi_parsed_strndup(p, b.buf, b.len);
	mi_buf_release(&b);
}

void mi_line_heading_spans(mi_parsed *p, size_t from, uint32_t eof, uint32_t last_line)
{
	for (size_t i = from; i < p->nsyms; i++) {
		mi_symbol *s = &p->syms[i];
		if (s->kind != MI_KIND_HEADING)
			continue;
		uint32_t end = eof, end_line = last_line;
		for (size_t j = i + 1; j < p->nsyms; j++) {
			const mi_symbol *t = &p->syms[j];
			if (t->kind == MI_KIND_HEADING && t->level <= s->level) {
				end = t->start_byte;
				end_line = t->start_line > s->start_line ? t->start_line - 1 : s->start_line;
				break;
			}
		}
		if (end < s->end_byte)
			end = s->end_byte;
		if (end_line < s->end_line)
			end_line = s->end_line;
		if (!s->body_byte || s->body_byte >= end || s->body_line > end_line) {
			s->body_byte = 0;
			s->body_line = 0;
		}
		s->end_byte = end;
		s->end_line = end_line;
	}
}

void mi_line_nest(mi_parsed *p, const char *src)
{
	size_t *stack = mi_xmalloc((p->nsyms + 1) * sizeof(*stack));
	size_t sp = 0;
	for (size_t i = 0; i < p->nsyms; i++) {
		mi_symbol *s = &p->syms[i];
		while (sp > 0) {
			const mi_symbol *t = &p->syms[stack[sp - 1]];
			/* the same span (a rule's second target) is a sibling */
			if (t->start_byte <= s->start_byte && s->end_byte <= t->end_byte &&
			    !(t->start_byte == s->start_byte && t->end_byte == s->end_byte))
				break;
			sp--;
		}
		s->parent_idx = -1;
		s->parent = "";
		if (sp > 0) {
			size_t pi = stack[sp - 1];
			const mi_symbol *par = &p->syms[pi];
			s->parent_idx = (int32_t)pi;
			if (par->parent[0]) {
				mi_buf q = {0};
				mi_buf_adds(&q, par->parent);
				mi_buf_addc(&q, '.');
				mi_buf_adds(&q, par->name);
				s->parent = mi_parsed_strndup(p, q.buf, q.len);
				mi_buf_release(&q);
			} else {
				s->parent = par->name;
			}
		}
		if (s->kind != MI_KIND_HEADING)
			s->level = (uint8_t)(sp > 255 ? 255 : sp);
		/* a block's body: the lines after its first */
		if (s->kind != MI_KIND_HEADING && !s->body_byte && s->end_line > s->start_line &&
		    src) {
			const char *nl = memchr(src + s->start_byte, '\n', s->end_byte - s->start_byte);
			if (nl) {
				s->body_byte = (uint32_t)(nl - src) + 1;
				s->body_line = s->start_line + 1;
			}
		}
		stack[sp++] = i;
	}
	/* each reference's caller: the innermost symbol holding its line */
	sp = 0;
	size_t si = 0;
	for (size_t r = 0; r < p->nrefs; r++) {
		mi_ref *ref = &p->refs[r];
		while (si < p->nsyms && p->syms[si].start_line <= ref->line) {
			while (sp > 0 && p->syms[stack[sp - 1]].end_line < p->syms[si].start_line)
				sp--;
			stack[sp++] = si++;
		}
		while (sp > 0 && p->syms[stack[sp - 1]].end_line < ref->line)
			sp--;
		ref->caller_idx = sp > 0 ? (int32_t)stack[sp - 1] : -1;
	}
	free(stack);
}
