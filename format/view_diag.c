/*
 * view_diag.c - diagnostics in folded views: each one goes to the innermost
 * shown block spanning its line (or to the file), is written as a V* line
 * under it, at most DIAG_CAP per outline; compact sums them up in one line.
 * Parser diagnostics come from the index; a compiler's would go in p->diags
 * the same way (docs/views.md, "Diagnostics").
 */
#include "view_int.h"

#include <stdlib.h>
#include <string.h>

/* Diagnostics by owner (-1: the file) then line then position. */
int mi_v_dref_cmp(const void *a, const void *b)
{
	const struct dref *x = a, *y = b;
	if (x->owner != y->owner)
		return x->owner < y->owner ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Gives each diagnostic to the innermost rendered block spanning its line
 * (-1: the file), sorted by owner then line. */
void mi_v_assign_diags(vctx *c)
{
	const mi_parsed *p = c->p;
	c->dord = mi_xmalloc((p->ndiags + 1) * sizeof(*c->dord));
	for (size_t k = 0; k < p->ndiags; k++) {
		c->dord[k].owner = 0;
		c->dord[k].line = p->diags[k].line;
		c->dord[k].idx = (uint32_t)k;
	}
	qsort(c->dord, p->ndiags, sizeof(*c->dord), mi_v_dref_cmp);
	/* sweep: open blocks on a stack, diagnostics in line order */
	int32_t *open = mi_xmalloc((p->nsyms + 1) * sizeof(int32_t));
	int top = 0;
	size_t i = 0;
	for (size_t k = 0; k < p->ndiags; k++) {
		uint32_t ln = c->dord[k].line;
		for (; i < p->nsyms && p->syms[i].start_line <= ln; i++) {
			const mi_symbol *s = &p->syms[i];
			if (!c->shown[i] || !is_block(s->kind) || mi_v_is_test(c, i) ||
			    mi_v_is_overload(c, s))
				continue;
			while (top > 0 && p->syms[open[top - 1]].end_line < s->start_line)
				top--;
			open[top++] = (int32_t)i;
		}
		while (top > 0 && p->syms[open[top - 1]].end_line < ln)
			top--;
		c->dord[k].owner = ln && top > 0 ? open[top - 1] : -1;
	}
	free(open);
	qsort(c->dord, p->ndiags, sizeof(*c->dord), mi_v_dref_cmp);
	for (size_t i = 0; i < p->nsyms; i++)
		c->dstart[i] = -1;
	for (size_t k = p->ndiags; k-- > 0;)
		if (c->dord[k].owner >= 0)
			c->dstart[c->dord[k].owner] = (int32_t)k;
}

void mi_v_put_diag(vctx *c, const mi_diag *dg, int depth)
{
	char sev = dg->severity == 'W' || dg->severity == 'H' ? dg->severity : 'E';
	if (c->mode == VM_OUTLINE && c->diags_out >= DIAG_CAP) {
		c->diags_left[sev == 'E' ? 0 : sev == 'W' ? 1 : 2]++;
		return;
	}
	c->diags_out++;
	mi_v_vline(c, depth);
	if (sev == 'H' || !dg->line)
		mi_buf_addf(c->out, "[%c] ", sev);
	else
		mi_buf_addf(c->out, "[%c]:%u ", sev, dg->line);
	const char *m = str0(dg->msg);
	size_t n = strcspn(m, "\n");
	mi_buf_add(c->out, m, n);
	mi_buf_addc(c->out, '\n');
}

void mi_v_put_sym_diags(vctx *c, size_t i, int depth)
{
	if (c->dstart[i] < 0)
		return;
	for (size_t k = (size_t)c->dstart[i];
	     k < c->p->ndiags && c->dord[k].owner == (int32_t)i; k++)
		mi_v_put_diag(c, &c->p->diags[c->dord[k].idx], depth);
}

/* "V* [2E 1W in file]" */
void mi_v_put_diag_summary(vctx *c)
{
	size_t ne = 0, nw = 0, nh = 0;
	for (size_t k = 0; k < c->p->ndiags; k++) {
		char s = c->p->diags[k].severity;
		if (s == 'W')
			nw++;
		else if (s == 'H')
			nh++;
		else
			ne++;
	}
	if (!ne && !nw && !nh)
		return;
	mi_v_vline(c, 0);
	mi_buf_addc(c->out, '[');
	const char *sep = "";
	if (ne) {
		mi_buf_addf(c->out, "%zuE", ne);
		sep = " ";
	}
	if (nw) {
		mi_buf_addf(c->out, "%s%zuW", sep, nw);
		sep = " ";
	}
	if (nh)
		mi_buf_addf(c->out, "%s%zuH", sep, nh);
	mi_buf_adds(c->out, " in file]\n");
}
