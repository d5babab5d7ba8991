/*
 * view_full.c - the full view: the source itself, each line with
 * diagnostics getting one trailing comment in the language's own syntax,
 * block guides after multi-line blocks, cut at a top-level symbol.
 */
#include "view_int.h"

#include <stdlib.h>
#include <string.h>

/* The line-comment syntax of a language: open, and *close ("" or " -->"). */
const char *mi_v_comment_open(int lang, const char **close)
{
	return mi_lang_comment(lang, close);
}

void mi_v_render_full(vctx *c)
{
	const mi_parsed *p = c->p;
	const char *close;
	const char *open = mi_v_comment_open(p->lang, &close);
	size_t di = 0, si = 0;
	size_t boundary = c->out->len;
	uint32_t bline = 1;
	int32_t *stack = mi_xmalloc((p->nsyms + 1) * sizeof(int32_t));
	int top = 0;
	bool cut = false;
	/* diagnostics by line */
	struct dref *byline = mi_xmalloc((p->ndiags + 1) * sizeof(*byline));
	for (size_t k = 0; k < p->ndiags; k++) {
		byline[k].owner = 0;
		byline[k].line = p->diags[k].line;
		byline[k].idx = (uint32_t)k;
	}
	qsort(byline, p->ndiags, sizeof(*byline), mi_v_dref_cmp);

	for (uint32_t ln = 1; ln <= c->nlines; ln++) {
		size_t at = c->out->len;
		bool starts = false;
		while (si < p->nsyms && p->syms[si].start_line <= ln) {
			const mi_symbol *s = &p->syms[si];
			if (s->start_line == ln && s->parent_idx < 0 && c->shown[si])
				starts = true;
			if (c->shown[si] && is_block(s->kind) && s->end_line > s->start_line &&
			    c->o->block_guides) {
				stack[top++] = (int32_t)si;
			}
			si++;
		}
		if (starts) {
			boundary = at;
			bline = ln;
		}
		size_t n;
		const char *t = mi_v_line_at(c, ln, &n);
		mi_v_lineno(c, ln);
		while (di < p->ndiags && byline[di].line < ln)
			di++;
		if (di < p->ndiags && byline[di].line == ln) {
			/* one trailing comment: "code // [E] a; [W] b" */
			while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '\t'))
				n--;
			mi_buf_add(c->out, t, n);
			mi_buf_addf(c->out, " %s", open);
			for (const char *sep = " "; di < p->ndiags && byline[di].line == ln; di++) {
				const mi_diag *dg = &p->diags[byline[di].idx];
				char sev = dg->severity == 'W' || dg->severity == 'H' ? dg->severity : 'E';
				const char *m = str0(dg->msg);
				mi_buf_addf(c->out, "%s[%c] %.*s", sep, sev, (int)strcspn(m, "\n"), m);
				sep = "; ";
			}
			mi_buf_adds(c->out, close);
		} else {
			mi_buf_add(c->out, t, n);
		}
		mi_buf_addc(c->out, '\n');
		/* guides for blocks ending here, innermost first */
		for (int k = top - 1; k >= 0; k--) {
			const mi_symbol *s = &p->syms[stack[k]];
			if (s->end_line != ln)
				continue;
			mi_v_vline(c, 0);
			mi_buf_addf(c->out, "end %s %s\n", krow(s->kind)->word, str0(s->name));
			memmove(stack + k, stack + k + 1, (size_t)(top - k - 1) * sizeof(*stack));
			top--;
		}
		size_t t_add = mi_token_estimate(c->out->buf + at, c->out->len - at);
		if (c->tokens + t_add + TRUNC_RESERVE > c->cap && ln > 1) {
			size_t cutat = boundary > 0 && bline > 1 ? boundary : at;
			uint32_t from_line = boundary > 0 && bline > 1 ? bline : ln;
			c->out->len = cutat;
			c->out->buf[cutat] = '\0';
			size_t more = 0;
			for (size_t k = 0; k < p->nsyms; k++)
				if (c->shown[k] && p->syms[k].start_line >= from_line &&
				    is_block(p->syms[k].kind))
					more++;
			mi_v_vline(c, 0);
			mi_buf_addf(c->out, "[truncated: lines %u-%u, %zu more symbol%s; "
				    "use expand_at, mode=outline or filter]\n",
				    from_line, c->nlines, more, more == 1 ? "" : "s");
			cut = true;
			break;
		}
		c->tokens += t_add;
	}
	/* diagnostics without a line, or past the last one */
	for (size_t k = 0; k < p->ndiags && !cut; k++) {
		const mi_diag *dg = &p->diags[byline[k].idx];
		if (dg->line >= 1 && dg->line <= c->nlines)
			continue;
		mi_v_put_diag(c, dg, 0);
	}
	free(byline);
	free(stack);
}
