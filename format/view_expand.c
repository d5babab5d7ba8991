/*
 * view_expand.c - expand_at: a selector (NAME, Parent.NAME, Parent::NAME,
 * line:N) resolved to one symbol, or to the candidates when ambiguous, or
 * to an error with close names; then the symbol's body, signature or docs
 * with its virtual lines (docs/views.md, "expand_at").
 */
#include "view_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 99;
	size_t row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t v = diag + cost;
			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
		}
	}
	return row[lb];
}

static bool parent_matches(const vctx *c, const mi_symbol *s, const char *par, size_t pl)
{
	const char *ps = str0(s->parent);
	size_t n = strlen(ps);
	if (n == pl && !memcmp(ps, par, pl))
		return true;
	if (n > pl && !memcmp(ps + n - pl, par, pl) &&
	    (ps[n - pl - 1] == '.' || ps[n - pl - 1] == ':'))
		return true;
	if (s->parent_idx >= 0 && (size_t)s->parent_idx < c->p->nsyms) {
		const char *pn = str0(c->p->syms[s->parent_idx].name);
		return strlen(pn) == pl && !memcmp(pn, par, pl);
	}
	return false;
}

/* Innermost symbol spanning line ln, preferring blocks; -1 if none. */
static long find_line(const vctx *c, uint32_t ln)
{
	long best = -1, any = -1;
	for (size_t i = 0; i < c->p->nsyms; i++) {
		const mi_symbol *s = &c->p->syms[i];
		if (s->start_line > ln || s->end_line < ln)
			continue;
		any = (long)i;
		if (is_block(s->kind) || s->kind == MI_KIND_HEADING)
			best = (long)i;
	}
	return best >= 0 ? best : any;
}

/* Comment lines just above a symbol: first line of the run, or 0. */
static uint32_t doc_lines_above(const vctx *c, const mi_symbol *s)
{
	uint32_t first = 0;
	for (uint32_t l = s->start_line; l-- > 1;) {
		size_t n;
		const char *t = mi_v_line_at(c, l, &n);
		size_t k = mi_v_indent_of(t, n);
		t += k;
		n -= k;
		bool com = (n >= 2 && (!memcmp(t, "//", 2) || !memcmp(t, "/*", 2) ||
				      !memcmp(t, "*/", 2) || !memcmp(t, "--", 2))) ||
			   (n >= 1 && (*t == '*' || (*t == '#' && c->p->lang != MI_LANG_C &&
						     c->p->lang != MI_LANG_CPP &&
						     c->p->lang != MI_LANG_MARKDOWN))) ||
			   (n >= 2 && !memcmp(t + n - 2, "*/", 2));
		if (!com)
			break;
		first = l;
	}
	return first;
}

/* Writes lines [a, b] dedented by `ded` columns of leading whitespace. */
static void put_src_line(vctx *c, uint32_t ln, size_t ded)
{
	size_t n;
	const char *t = mi_v_line_at(c, ln, &n);
	size_t k = mi_v_indent_of(t, n);
	if (k > ded)
		k = ded;
	mi_v_lineno(c, ln);
	mi_buf_add(c->out, t + k, n - k);
	mi_buf_addc(c->out, '\n');
}

/* The expanded text of symbol i: first line marked, nested blocks folded. */
static void put_expanded_body(vctx *c, size_t i, const char *mark)
{
	const mi_parsed *p = c->p;
	const mi_symbol *s = &p->syms[i];
	size_t n;
	const char *t = mi_v_line_at(c, s->start_line, &n);
	size_t ded = mi_v_indent_of(t, n);
	uint32_t last = s->end_line < s->start_line ? s->start_line : s->end_line;
	if (last > c->nlines)
		last = c->nlines;

	mi_v_lineno(c, s->start_line);
	if (*mark) {
		mi_buf_adds(c->out, mark);
		mi_buf_addc(c->out, ' ');
	}
	mi_buf_add(c->out, t + ded, n - ded);
	mi_buf_addc(c->out, '\n');
	size_t j = i + 1;
	for (uint32_t ln = s->start_line + 1; ln <= last; ln++) {
		/* a direct child block starting here folds to one line */
		while (j < p->nsyms && p->syms[j].start_line < ln)
			j++;
		size_t hit = p->nsyms;
		for (size_t k = j; k < p->nsyms && p->syms[k].start_line == ln; k++) {
			const mi_symbol *ch = &p->syms[k];
			if (ch->parent_idx == (int32_t)i && ch->end_line > ch->start_line &&
			    (is_block(ch->kind) || ch->kind == MI_KIND_HEADING)) {
				hit = k;
				break;
			}
		}
		if (hit == p->nsyms) {
			put_src_line(c, ln, ded);
			continue;
		}
		const mi_symbol *ch = &p->syms[hit];
		t = mi_v_line_at(c, ln, &n);
		size_t ind = mi_v_indent_of(t, n);
		size_t from = ind < ded ? ind : ded;
		mi_v_lineno(c, ln);
		mi_buf_add(c->out, t + from, ind - from);
		if (ch->kind == MI_KIND_HEADING)
			mi_buf_add(c->out, t + ind, t[ind] == '#' ? mi_v_atx_len(t + ind, n - ind) : n - ind);
		else
			mi_v_put_code(c, ch, false);
		mi_v_put_body(c);
		mi_buf_addc(c->out, '\n');
		ln = ch->end_line < last ? ch->end_line : last;
	}
}

static void put_doc_text(vctx *c, const char *doc, const char *prefix)
{
	const char *d = doc;
	while (*d) {
		size_t n = strcspn(d, "\n");
		mi_buf_adds(c->out, prefix);
		mi_buf_add(c->out, d, n);
		mi_buf_addc(c->out, '\n');
		d += n;
		if (*d == '\n')
			d++;
	}
}

/* Suggestions for an unknown name: close by edit distance or by prefix. */
static void suggest(const vctx *c, const char *name, mi_buf *msg)
{
	const mi_parsed *p = c->p;
	size_t best[5], nb = 0;
	size_t dist[5];
	size_t nl = strlen(name);
	size_t limit = nl / 3 < 2 ? 2 : nl / 3;
	for (size_t i = 0; i < p->nsyms; i++) {
		const char *sn = str0(p->syms[i].name);
		if (!*sn)
			continue;
		size_t d = edit_distance(name, sn);
		size_t sl = strlen(sn);
		if (d > limit && !(nl >= 3 && (!strncasecmp(sn, name, nl) ||
					       (sl >= 3 && !strncasecmp(name, sn, sl)))))
			continue;
		if (d > limit)
			d = limit + 1;
		bool dup = false;
		for (size_t k = 0; k < nb; k++)
			dup |= !strcmp(str0(p->syms[best[k]].name), sn);
		if (dup)
			continue;
		size_t pos = nb;
		while (pos > 0 && dist[pos - 1] > d)
			pos--;
		if (pos >= 5)
			continue;
		if (nb < 5)
			nb++;
		for (size_t k = nb - 1; k > pos; k--) {
			best[k] = best[k - 1];
			dist[k] = dist[k - 1];
		}
		best[pos] = i;
		dist[pos] = d;
	}
	if (!nb)
		return;
	mi_buf_adds(msg, "; did you mean: ");
	for (size_t k = 0; k < nb; k++) {
		const mi_symbol *s = &p->syms[best[k]];
		mi_buf_addf(msg, "%s%s%s%s (line %u)", k ? ", " : "",
			    *str0(s->parent) ? s->parent : "", *str0(s->parent) ? "." : "",
			    str0(s->name), s->start_line);
	}
}

/*
 * Expanded view of one symbol: selector NAME, Parent.NAME or line:N; what
 * body, signature, docs or all (NULL = all).  An ambiguous selector lists
 * the candidates (not an error); an unknown one is an error answer with
 * close names.  Returns 0, MI_ERR_NOTFOUND or MI_ERR_ARG.
 */
int mi_render_expand(const char *path, const char *src, size_t len,
		     const mi_parsed *p, const char *selector, const char *what,
		     const mi_view_opts *o, mi_out *out)
{
	vctx c;
	int rc = 0;
	size_t *cand = NULL, ncand = 0;
	mi_buf msg = { 0 };

	int brc = mi_v_render_begin(p, &o, out, "no parsed file to expand");
	if (brc)
		return brc;
	if (!what || !*what)
		what = "all";
	if (strcmp(what, "body") && strcmp(what, "signature") && strcmp(what, "docs") &&
	    strcmp(what, "all")) {
		mi_buf_addf(&msg, "unknown what '%.40s'; use body, signature, docs or all", what);
		rc = mi_v_set_error(out, MI_ERR_ARG, mi_buf_str(&msg));
		mi_buf_release(&msg);
		return rc;
	}
	if (!selector || !*selector)
		return mi_v_set_error(out, MI_ERR_ARG,
				 "empty selector; use NAME, Parent.NAME or line:N");

	mi_v_ctx_init(&c, path, src, len, p, o, out);
	c.mode = VM_OUTLINE;
	mi_v_load_coverage(&c);
	cand = mi_xmalloc((p->nsyms + 1) * sizeof(*cand));

	if (!strncmp(selector, "line:", 5)) {
		/* digits only: strtoul takes blanks, signs (line:-1 is ULONG_MAX)
		 * and wraps, and a cast to uint32_t made line:4294967299 line 3 */
		const char *d = selector + 5;
		unsigned long ln = 0;
		while (*d >= '0' && *d <= '9' && ln <= UINT32_MAX)
			ln = ln * 10 + (unsigned long)(*d++ - '0');
		if (*d || ln == 0 || ln > UINT32_MAX) {
			mi_buf_addf(&msg, "bad selector '%s'; line:N takes a line number from 1", selector);
			rc = mi_v_set_error(out, MI_ERR_ARG, mi_buf_str(&msg));
			goto out_free;
		}
		long k = find_line(&c, (uint32_t)ln);
		if (k < 0) {
			mi_buf_addf(&msg, "no symbol spans line %lu of %s (%u lines); "
				    "read_file shows the symbols and their lines",
				    ln, c.path, c.nlines);
			rc = mi_v_set_error(out, MI_ERR_NOTFOUND, mi_buf_str(&msg));
			goto out_free;
		}
		cand[ncand++] = (size_t)k;
	} else {
		const char *dot = strrchr(selector, '.');
		const char *name = selector, *par = NULL;
		size_t pl = 0;
		const char *colons = strstr(selector, "::");
		if (colons && (!dot || colons > dot)) {
			const char *last = colons;
			while ((colons = strstr(last + 2, "::")))
				last = colons;
			par = selector;
			pl = (size_t)(last - selector);
			name = last + 2;
		} else if (dot && dot > selector && dot[1]) {
			par = selector;
			pl = (size_t)(dot - selector);
			name = dot + 1;
		}
		for (size_t i = 0; i < p->nsyms; i++) {
			const mi_symbol *s = &p->syms[i];
			if (strcmp(str0(s->name), name))
				continue;
			if (par && !parent_matches(&c, s, par, pl))
				continue;
			cand[ncand++] = i;
		}
		if (!ncand && par) {
			/* "a.b" may be a name with a dot (Markdown heading "1. Types") */
			for (size_t i = 0; i < p->nsyms; i++)
				if (!strcmp(str0(p->syms[i].name), selector))
					cand[ncand++] = i;
		}
		/* definitions win over declarations, visible over hidden */
		size_t keep = 0;
		for (size_t k = 0; k < ncand; k++)
			keep += p->syms[cand[k]].kind != MI_KIND_PROTOTYPE;
		if (keep && keep < ncand) {
			size_t w = 0;
			for (size_t k = 0; k < ncand; k++)
				if (p->syms[cand[k]].kind != MI_KIND_PROTOTYPE)
					cand[w++] = cand[k];
			ncand = w;
		}
		if (!ncand) {
			mi_buf_addf(&msg, "symbol '%s' not found in %s", selector, c.path);
			suggest(&c, name, &msg);
			mi_buf_adds(&msg, ". Use read_file to list the symbols, or selector line:N");
			rc = mi_v_set_error(out, MI_ERR_NOTFOUND, mi_buf_str(&msg));
			goto out_free;
		}
	}

	if (ncand > 1) {
		mi_v_vline(&c, 0);
		mi_buf_addf(c.out, "ambiguous: '%s' matches %zu symbols; use Parent.NAME or line:N\n",
			    selector, ncand);
		mi_buf_adds(&out->json, "{\"path\":");
		mi_buf_add_json_str(&out->json, c.path, strlen(c.path));
		mi_buf_adds(&out->json, ",\"name\":");
		mi_buf_add_json_str(&out->json, selector, strlen(selector));
		mi_buf_adds(&out->json, ",\"kind\":\"ambiguous\",\"ambiguous\":true,\"candidates\":[");
		for (size_t k = 0; k < ncand; k++) {
			const mi_symbol *s = &p->syms[cand[k]];
			const char *mk = krow(s->kind)->mark;
			mi_v_lineno(&c, s->start_line);
			mi_buf_addf(c.out, "%s ", mk && *mk ? mk : c.vmark);
			mi_v_put_code(&c, s, true);
			/* both selectors that pick it: Parent.NAME when it has a
			 * parent, and line:N */
			if (*str0(s->parent))
				mi_buf_addf(c.out, "  [%s.%s, line:%u]\n", str0(s->parent),
					    str0(s->name), s->start_line);
			else
				mi_buf_addf(c.out, "  [line:%u]\n", s->start_line);
			mi_buf_adds(&out->json, k ? ",{\"name\":" : "{\"name\":");
			mi_buf_add_json_str(&out->json, str0(s->name), strlen(str0(s->name)));
			mi_buf_adds(&out->json, ",\"parent\":");
			mi_buf_add_json_str(&out->json, str0(s->parent), strlen(str0(s->parent)));
			mi_buf_addf(&out->json, ",\"kind\":\"%s\",\"start_line\":%u,\"end_line\":%u}",
				    mi_kind_name(s->kind), s->start_line, s->end_line);
		}
		mi_buf_adds(&out->json, "],\"text\":");
		mi_buf_add_json_str(&out->json, mi_buf_str(c.out), c.out->len);
		mi_buf_addc(&out->json, '}');
		goto out_free;
	}

	size_t i = cand[0];
	const mi_symbol *s = &p->syms[i];
	const kind_row *k = krow(s->kind);
	const char *mark = o->unicode ? k->exp_u : k->exp;
	if (!mark)
		mark = "";
	if (!strcmp(what, "docs")) {
		if (*str0(s->doc)) {
			put_doc_text(&c, s->doc, "");
		} else {
			mi_v_vline(&c, 0);
			mi_buf_addf(c.out, "no doc comment on %s %s (line %u)\n",
				    mi_kind_name(s->kind), str0(s->name), s->start_line);
		}
		mi_v_put_notes(&c, s->start_line, 0, true);
	} else if (!strcmp(what, "signature")) {
		mi_v_lineno(&c, s->start_line);
		if (*mark)
			mi_buf_addf(c.out, "%s ", mark);
		mi_v_put_code(&c, s, false);
		mi_buf_addc(c.out, '\n');
	} else {
		if (!strcmp(what, "all") && *str0(s->doc)) {
			uint32_t first = doc_lines_above(&c, s);
			if (first) {
				size_t hn;
				const char *h = mi_v_line_at(&c, s->start_line, &hn);
				size_t ded = mi_v_indent_of(h, hn);
				for (uint32_t l = first; l < s->start_line; l++)
					put_src_line(&c, l, ded);
			} else {
				size_t sn;
				const char *body = c.src + (s->start_byte < c.len ? s->start_byte : c.len);
				sn = (s->end_byte <= c.len && s->end_byte > s->start_byte) ?
				     s->end_byte - s->start_byte : 0;
				const char *d = s->doc;
				size_t dl = strcspn(d, "\n");
				if (!dl || !memmem(body, sn, d, dl < 40 ? dl : 40)) {
					const char *close;
					const char *open = mi_v_comment_open(p->lang, &close);
					mi_buf cm = { 0 };
					mi_buf_addf(&cm, "%s ", open);
					put_doc_text(&c, s->doc, mi_buf_str(&cm));
					mi_buf_release(&cm);
				}
			}
		}
		put_expanded_body(&c, i, mark);
		if (!strcmp(what, "all"))
			mi_v_put_notes(&c, s->start_line, 0, true);
		size_t vstart = c.out->len;
		bool any_v = false;
		for (size_t d = 0; d < p->ndiags; d++) {
			const mi_diag *dg = &p->diags[c.dord[d].idx];
			if (dg->line >= s->start_line && dg->line <= s->end_line) {
				mi_v_put_diag(&c, dg, 0);
				any_v = true;
			}
		}
		if (mi_v_auto_traits_apply(&c, s) && mi_v_auto_traits(&c, i)) {
			mi_v_vline(&c, 0);
			mi_buf_addf(c.out, "auto traits: %s\n", mi_v_auto_traits(&c, i));
			any_v = true;
		}
		size_t pubm = 0, privm = 0;
		for (int32_t j = c.kid[i]; j >= 0; j = c.sib[j]) {
			const mi_symbol *m = &p->syms[j];
			if (!is_fn(ekind(&c, (size_t)j)))
				continue;
			if (mi_v_sym_public(&c, m))
				pubm++;
			else
				privm++;
		}
		if (s->kind == MI_KIND_CLASS || (k->container && pubm + privm > 0 &&
						 s->kind != MI_KIND_HEADING)) {
			mi_v_vline(&c, 0);
			mi_buf_addf(c.out, "methods: %zu public, %zu private\n", pubm, privm);
			any_v = true;
		}
		if (k->container) {
			size_t before = c.out->len;
			mi_v_put_traits(&c, i, 0);
			any_v |= c.out->len != before;
		}
		if (c.cov) {
			size_t before = c.out->len;
			mi_v_put_coverage(&c, s, 0);
			any_v |= c.out->len != before;
		}
		if (o->block_guides && k->word && s->kind != MI_KIND_HEADING) {
			mi_v_vline(&c, 0);
			mi_buf_addf(c.out, "end %s %s\n", k->word, str0(s->name));
			any_v = true;
		}
		if (any_v) {
			/* one blank line between the source and its virtual lines */
			mi_buf_grow(c.out, 1);
			memmove(c.out->buf + vstart + 1, c.out->buf + vstart, c.out->len - vstart + 1);
			c.out->buf[vstart] = '\n';
			c.out->len++;
		}
	}
	mi_buf_adds(&out->json, "{\"path\":");
	mi_buf_add_json_str(&out->json, c.path, strlen(c.path));
	mi_buf_adds(&out->json, ",\"name\":");
	mi_buf_add_json_str(&out->json, str0(s->name), strlen(str0(s->name)));
	mi_buf_addf(&out->json, ",\"kind\":\"%s\",\"start_line\":%u,\"end_line\":%u,\"text\":",
		    mi_kind_name(s->kind), s->start_line, s->end_line);
	mi_buf_add_json_str(&out->json, mi_buf_str(c.out), c.out->len);
	mi_buf_addc(&out->json, '}');

out_free:
	free(cand);
	mi_buf_release(&msg);
	mi_v_ctx_release(&c);
	return rc;
}
