/*
 * view_outline.c - the outline and compact renderers: one entry per shown
 * symbol in tree order, members inline or on V* lines, file-level groups,
 * repeated entries dropped, cut at a symbol boundary when over the cap
 * (docs/views.md, "Which symbols get lines" and "Modes").
 */
#include "view_int.h"

#include <stdlib.h>
#include <string.h>

/* Top-level kinds without a mark: one "V* <label>: a, b" line per file. */
static const struct { int kind; const char *label; } file_groups[] = {
	{ MI_KIND_CONSTANT, "consts" },
	{ MI_KIND_VARIABLE, "vars" },
	{ MI_KIND_TYPEDEF, "types" },
	{ MI_KIND_MACRO, "macros" },
	{ MI_KIND_PROTOTYPE, "decls" },
	{ MI_KIND_FIELD, "fields" },
	{ MI_KIND_ENUMERATOR, "enumerators" },
};

/* Markdown: does the heading hold text of its own before its first
 * subheading?  *sub gets the level of that subheading, 0 without one.  A
 * setext heading's underline is not text. */
static bool heading_has_body(const vctx *c, size_t i, int *sub)
{
	const mi_parsed *p = c->p;
	const mi_symbol *s = &p->syms[i];
	uint32_t stop = s->end_line;
	*sub = 0;
	for (size_t j = i + 1; j < p->nsyms; j++) {
		if (p->syms[j].kind != MI_KIND_HEADING)
			continue;
		if (p->syms[j].start_line <= s->end_line) {
			stop = p->syms[j].start_line - 1;
			*sub = p->syms[j].level ? p->syms[j].level : 1;
		}
		break;
	}
	/* its text starts on its body's line (a scanner's heading; a setext
	 * underline skipped) */
	uint32_t from = s->body_line ? s->body_line : s->start_line + 1;
	if (!s->body_line && *str0(s->sig) != '#')
		from++;
	for (uint32_t l = from; l <= stop && l <= c->nlines; l++) {
		size_t n;
		const char *t = mi_v_line_at(c, l, &n);
		if (!mi_v_line_blank(t, n))
			return true;
	}
	return false;
}

/* Length of an ATX heading line without its optional closing sequence
 * ("## Title ##") and trailing blanks. */
size_t mi_v_atx_len(const char *t, size_t n)
{
	while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '\t'))
		n--;
	size_t e = n;
	while (e > 0 && t[e - 1] == '#')
		e--;
	if (e < n && e > 0 && (t[e - 1] == ' ' || t[e - 1] == '\t')) {
		while (e > 0 && (t[e - 1] == ' ' || t[e - 1] == '\t'))
			e--;
		n = e;
	}
	return n;
}

static void put_heading(vctx *c, size_t i)
{
	const mi_symbol *s = &c->p->syms[i];
	int sub;
	bool body = heading_has_body(c, i, &sub);
	if (c->mode == VM_COMPACT && s->level > 3)
		return;
	mi_v_lineno(c, s->start_line);
	const char *sig = str0(s->sig);
	if (*sig == '#') {
		mi_buf_add(c->out, sig, mi_v_atx_len(sig, strlen(sig)));
	} else {
		int lv = s->level ? s->level : 1;
		for (int k = 0; k < lv && k < 6; k++)
			mi_buf_addc(c->out, '#');
		mi_buf_addc(c->out, ' ');
		mi_buf_adds(c->out, *sig ? sig : str0(s->name));
	}
	/* compact hides levels 4 to 6: a heading that holds only those folds them */
	if (body || (c->mode == VM_COMPACT && sub > 3))
		mi_v_put_body(c);
	mi_buf_addc(c->out, '\n');
}

/* One line "X> code"; compact mode keeps a function's header up to its name. */
static void put_sym_line(vctx *c, size_t i, int depth)
{
	const mi_symbol *s = &c->p->syms[i];
	int k = ekind(c, i);
	mi_v_lineno(c, s->start_line);
	mi_buf_adds(c->out, krow(k)->mark);
	mi_buf_addc(c->out, ' ');
	mi_v_indent(c, depth);
	if (c->mode != VM_COMPACT || !is_fn(k) || !*str0(s->sig)) {
		mi_v_put_code(c, s, true);
		return;
	}
	const char *sig = mi_v_put_annotations(c, s->sig);
	size_t cut = mi_v_name_end(sig, str0(s->name));
	if (!cut) {
		mi_v_put_sig(c, sig, strlen(sig), true);
		return;
	}
	if (c->p->lang == MI_LANG_C || c->p->lang == MI_LANG_CPP) {
		static const char *const drop[] = {
			"static ", "inline ", "extern ", "__always_inline ",
			"__init ", "__exit ", "noinline ", "__inline__ ",
		};
		for (size_t d = 0; d < sizeof(drop) / sizeof(drop[0]); d++) {
			size_t dl = strlen(drop[d]);
			if (cut > dl && !strncmp(sig, drop[d], dl)) {
				sig += dl;
				cut -= dl;
				d = (size_t)-1;
			}
		}
	}
	mi_buf_add(c->out, sig, cut);
}
/* " { ... }" after a symbol's code; a JS/TS arrow function shows its "=>",
 * a Rust tuple struct its fields. */
static void put_sym_body(vctx *c, size_t i)
{
	const mi_symbol *s = &c->p->syms[i];
	int lang = c->p->lang;
	if (s->body_byte && s->body_byte < c->len && s->kind == MI_KIND_STRUCT &&
	    lang == MI_LANG_RUST && c->src[s->body_byte] == '(') {
		const char *a = c->src + s->body_byte;
		const char *e = mi_v_skip_group(a);
		if (e && e - a <= 60 && !memchr(a, '\n', (size_t)(e - a))) {
			mi_buf_add(c->out, a, (size_t)(e - a));
			return;
		}
	}
	if (s->body_byte && is_fn(s->kind) && c->mode != VM_COMPACT && (lang == MI_LANG_JAVASCRIPT ||
					       lang == MI_LANG_TYPESCRIPT || lang == MI_LANG_TSX)) {
		size_t b = s->body_byte;
		while (b > s->start_byte && mi_v_space((unsigned char)c->src[b - 1]))
			b--;
		if (b >= s->start_byte + 2 && !memcmp(c->src + b - 2, "=>", 2))
			mi_buf_add(c->out, " =>", 3);
	}
	mi_v_put_body(c);
}

/* Compact: a whole container on one line: "C> class User { name, 2 methods }". */
static void put_compact_container(vctx *c, size_t i, int depth)
{
	const mi_symbol *s = &c->p->syms[i];
	namelist l = { 0 };
	size_t methods = 0;
	mi_v_collect_members(c, i, &l, &methods, mi_v_trait_impl(c, s) ? CM_FNS : 0);
	put_sym_line(c, i, depth);
	if (!l.n && !methods) {
		if (mi_v_has_body(c, i) || s->end_line > s->start_line)
			put_sym_body(c, i);
	} else {
		mi_buf_add(c->out, " { ", 3);
		mi_v_nl_put(c, &l, LIST_CAP_COMPACT);
		if (methods)
			mi_buf_addf(c->out, "%s%zu method%s", l.n ? ", " : "",
				    methods, methods == 1 ? "" : "s");
		mi_buf_add(c->out, " }", 2);
	}
	mi_buf_addc(c->out, '\n');
	mi_v_nl_free(&l);
}

/* Does a module in compact mode show its children (namespace) or fold to
 * one line (impl block)? */
static bool compact_opens(const vctx *c, const mi_symbol *s)
{
	(void)c;
	if (s->kind != MI_KIND_MODULE)
		return false;
	const char *sig = str0(s->sig);
	while (*sig == ' ')
		sig++;
	return strncmp(sig, "impl", 4) != 0 && strncmp(sig, "extension", 9) != 0;
}

/* The caller's V* lines of a symbol (cross-references), one per line of
 * note. */
static void put_notes(vctx *c, const char *note, int depth)
{
	while (*note) {
		size_t n = strcspn(note, "\n");
		mi_v_vline(c, depth);
		mi_buf_add(c->out, note, n);
		mi_buf_addc(c->out, '\n');
		note += n + (note[n] == '\n');
	}
}

/*
 * Test functions fold to one line under their parent (par -1: the file):
 * "V* tests: TestA, TestB" naming all of them in outline,
 * "V* 31 tests: TestA, TestB, TestC, +28 more" in compact.  Their
 * signatures say nothing a reader needs; expand_at shows one.
 */
static void put_tests(vctx *c, int32_t par, int depth)
{
	const mi_parsed *p = c->p;
	namelist l = { 0 };
	if (par >= 0) {
		for (int32_t j = c->kid[par]; j >= 0; j = c->sib[j])
			if (c->shown[j] && mi_v_is_test(c, (size_t)j))
				mi_v_nl_add(&l, p->syms[j].name);
	} else {
		for (size_t j = 0; j < p->nsyms; j++)
			if (c->shown[j] && c->par[j] < 0 && mi_v_is_test(c, j))
				mi_v_nl_add(&l, p->syms[j].name);
	}
	if (l.n) {
		mi_v_vline(c, depth);
		if (c->mode == VM_COMPACT) {
			mi_buf_addf(c->out, "%zu test%s: ", l.n, l.n == 1 ? "" : "s");
			mi_v_nl_put(c, &l, GROUP_CAP_COMPACT);
		} else {
			mi_buf_adds(c->out, "tests: ");
			mi_v_nl_put(c, &l, SIZE_MAX / 2);
		}
		mi_buf_addc(c->out, '\n');
	}
	mi_v_nl_free(&l);
}

/*
 * Writes the entry of symbol i (its line, its V* lines); children follow as
 * entries of their own.  Returns true when its children get lines.
 *
 * A container's mark-less members go inline in its braces when it is a
 * data type (struct, union, enum), a trait without methods or a trait impl,
 * or has no block children; else on a "V* members:" line under it.
 */
static bool put_entry(vctx *c, size_t i)
{
	const mi_parsed *p = c->p;
	const mi_symbol *s = &p->syms[i];
	const kind_row *k = krow(ekind(c, i));
	int depth = c->depth[i];

	if (s->kind == MI_KIND_HEADING) {
		put_heading(c, i);
		mi_v_put_sym_diags(c, i, 0);
		return true;
	}
	bool opens = k->container && mi_v_has_block_children(c, i);
	if (c->mode == VM_COMPACT && k->container && !compact_opens(c, s)) {
		put_compact_container(c, i, depth);
		return false;
	}
	bool data = s->kind == MI_KIND_STRUCT || s->kind == MI_KIND_UNION ||
		    s->kind == MI_KIND_ENUM;
	bool listed = false;
	if (k->container && (!opens || data)) {
		namelist l = { 0 };
		size_t methods = 0;
		int how = (opens ? CM_OPENS : 0) | (mi_v_trait_impl(c, s) ? CM_FNS : 0);
		mi_v_collect_members(c, i, &l, &methods, how);
		put_sym_line(c, i, depth);
		if (s->kind == MI_KIND_TRAIT && methods) {
			mi_v_put_body(c);
		} else if (l.n) {
			mi_buf_add(c->out, " { ", 3);
			mi_v_nl_put(c, &l, c->mode == VM_COMPACT ? LIST_CAP_COMPACT : LIST_CAP_OUTLINE);
			mi_buf_add(c->out, " }", 2);
		} else if (mi_v_has_body(c, i)) {
			put_sym_body(c, i);
		}
		mi_buf_addc(c->out, '\n');
		mi_v_nl_free(&l);
		listed = true;
	} else {
		put_sym_line(c, i, depth);
		if (mi_v_has_body(c, i))
			put_sym_body(c, i);
		mi_buf_addc(c->out, '\n');
	}
	if (opens && !listed && c->mode == VM_OUTLINE) {
		namelist l = { 0 };
		mi_v_collect_members(c, i, &l, NULL, CM_OPENS);
		if (l.n) {
			mi_v_vline(c, depth);
			mi_buf_adds(c->out, "members: ");
			mi_v_nl_put(c, &l, LIST_CAP_OUTLINE);
			mi_buf_addc(c->out, '\n');
		}
		mi_v_nl_free(&l);
	}
	if (opens)
		put_tests(c, (int32_t)i, depth);
	if (k->container && c->mode == VM_OUTLINE)
		mi_v_put_traits(c, i, depth);
	if (c->mode == VM_OUTLINE && c->o->notes && c->o->notes[i])
		put_notes(c, c->o->notes[i], depth);
	if (c->mode == VM_OUTLINE)
		mi_v_put_sym_diags(c, i, depth);
	mi_v_put_notes(c, s->start_line, depth, false);
	mi_v_put_coverage(c, s, depth);
	return opens;
}

/* Number of symbols from position k of the tree order on that the view
 * would have rendered. */
static size_t count_left(const vctx *c, size_t k)
{
	size_t n = 0;
	for (; k < c->p->nsyms; k++) {
		size_t i = (size_t)c->order[k];
		if (c->shown[i] && (is_block(ekind(c, i)) || c->p->syms[i].kind == MI_KIND_HEADING))
			n++;
	}
	return n;
}

static void put_truncated(vctx *c, size_t more)
{
	mi_v_vline(c, 0);
	mi_buf_addf(c->out, "[truncated: %zu more symbol%s; use expand_at or filter]\n",
		    more, more == 1 ? "" : "s");
}

/* Accounts for the text written since `from`; false (and rolls back) when
 * it goes over the cap. */
static bool budget(vctx *c, size_t from)
{
	size_t t = mi_token_estimate(c->out->buf + from, c->out->len - from);
	if (c->tokens + t + TRUNC_RESERVE > c->cap && c->entries > 0) {
		c->out->len = from;
		c->out->buf[from] = '\0';
		return false;
	}
	c->tokens += t;
	return true;
}

/* "V* consts: A, B" lines for top-level mark-less symbols. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void put_file_groups(vctx *c)
{
	const mi_parsed *p = c->p;
	/* names of defined functions, to drop their declarations */
	const char **fns = mi_xmalloc((p->nsyms + 1) * sizeof(*fns));
	size_t nfns = 0;
	/* names of shown types, to drop `typedef struct job {...} job;` aliases
	 * that only repeat them */
	const char **tys = mi_xmalloc((p->nsyms + 1) * sizeof(*tys));
	size_t ntys = 0;
	for (size_t i = 0; i < p->nsyms; i++) {
		int k = p->syms[i].kind;
		if (is_fn(k) && p->syms[i].name)
			fns[nfns++] = p->syms[i].name;
		if ((k == MI_KIND_STRUCT || k == MI_KIND_UNION || k == MI_KIND_ENUM ||
		     k == MI_KIND_CLASS) && c->shown[i] && p->syms[i].name)
			tys[ntys++] = p->syms[i].name;
	}
	qsort(fns, nfns, sizeof(*fns), cmp_str);
	qsort(tys, ntys, sizeof(*tys), cmp_str);
	for (size_t g = 0; g < sizeof(file_groups) / sizeof(file_groups[0]); g++) {
		namelist l = { 0 };
		for (size_t i = 0; i < p->nsyms; i++) {
			const mi_symbol *s = &p->syms[i];
			if (s->kind != file_groups[g].kind || !c->shown[i] ||
			    (s->parent_idx >= 0 && p->syms[s->parent_idx].kind != MI_KIND_HEADING))
				continue;
			if (s->kind == MI_KIND_PROTOTYPE && nfns &&
			    bsearch(&s->name, fns, nfns, sizeof(*fns), cmp_str))
				continue;
			if (s->kind == MI_KIND_TYPEDEF && ntys &&
			    bsearch(&s->name, tys, ntys, sizeof(*tys), cmp_str))
				continue;
			if (mi_v_is_import_var(c, s))
				continue;
			mi_v_nl_add(&l, s->name);
		}
		if (l.n) {
			mi_v_vline(c, 0);
			mi_buf_addf(c->out, "%s: ", file_groups[g].label);
			mi_v_nl_put(c, &l, c->mode == VM_COMPACT ? GROUP_CAP_COMPACT : GROUP_CAP_OUTLINE);
			mi_buf_addc(c->out, '\n');
		}
		mi_v_nl_free(&l);
	}
	free(fns);
	free(tys);
}

/*
 * A file whose blocks are all private would fold to nothing (or to its
 * macros) under filter=public; one line says what is there instead:
 * "V* 12 private functions: a, b, +10 more (filter: all)" (compact: the
 * count only).  Top-level blocks are named, or every top-level symbol when
 * there is no block.
 */
static void put_private_summary(vctx *c)
{
	const mi_parsed *p = c->p;
	if (c->o->all || !p->nsyms)
		return;
	for (size_t i = 0; i < p->nsyms; i++)
		if (c->shown[i] && (is_block(ekind(c, i)) || p->syms[i].kind == MI_KIND_HEADING))
			return;
	bool blocks = false, fns = true;
	for (size_t i = 0; i < p->nsyms && !blocks; i++)
		blocks = p->syms[i].parent_idx < 0 && is_block(p->syms[i].kind);
	namelist l = { 0 };
	for (size_t i = 0; i < p->nsyms; i++) {
		const mi_symbol *s = &p->syms[i];
		if (c->shown[i] || s->parent_idx >= 0 || (blocks && !is_block(s->kind)) ||
		    !is_ident(s->name))
			continue;
		size_t before = l.n;
		mi_v_nl_add(&l, s->name);
		if (l.n > before)
			fns &= is_fn(s->kind);
	}
	if (l.n) {
		mi_v_vline(c, 0);
		mi_buf_addf(c->out, "%zu private %s%s", l.n, fns ? "function" : "symbol",
			    l.n == 1 ? "" : "s");
		if (c->mode != VM_COMPACT) {
			mi_buf_adds(c->out, ": ");
			mi_v_nl_put(c, &l, LIST_CAP_OUTLINE);
		}
		mi_buf_adds(c->out, " (filter: all)\n");
	}
	mi_v_nl_free(&l);
}

/* Closes the open blocks above `keep` (-1: all) with "V* end class X" guides. */
static void close_guides(vctx *c, int32_t *stack, int *top, int32_t keep)
{
	while (*top > 0 && stack[*top - 1] != keep) {
		const mi_symbol *s = &c->p->syms[stack[*top - 1]];
		(*top)--;
		if (c->o->block_guides && s->kind != MI_KIND_HEADING) {
			mi_v_vline(c, c->depth[stack[*top]]);
			mi_buf_addf(c->out, "end %s %s\n", krow(s->kind)->word, str0(s->name));
		}
	}
}

/* Is symbol i on the stack of open blocks? */
static bool on_stack(const int32_t *stack, int top, int32_t i)
{
	for (int k = top - 1; k >= 0; k--)
		if (stack[k] == i)
			return true;
	return false;
}

void mi_v_render_folded(vctx *c)
{
	const mi_parsed *p = c->p;
	size_t from = c->out->len;
	if (c->mode == VM_COMPACT)
		mi_v_put_diag_summary(c);
	mi_v_put_file_coverage(c);
	mi_v_put_notes(c, 0, 0, false);
	put_file_groups(c);
	put_private_summary(c);
	budget(c, from);

	int32_t *stack = mi_xmalloc((p->nsyms + 1) * sizeof(int32_t));
	int top = 0;
	size_t k;
	bool cut = false;
	bool pointcuts = false;
	/* hashes of leaf entries written: a repeated one (#ifdef variants) is dropped */
	size_t nseen = 64;
	while (nseen < p->nsyms * 2)
		nseen *= 2;
	uint64_t *seen = mi_xcalloc(nseen, sizeof(uint64_t));
	for (k = 0; k < p->nsyms; k++) {
		size_t i = (size_t)c->order[k];
		const mi_symbol *s = &p->syms[i];
		if (!c->shown[i] || (!is_block(ekind(c, i)) && s->kind != MI_KIND_HEADING) ||
		    mi_v_is_test(c, i) || mi_v_is_overload(c, s))
			continue;
		if (s->kind == MI_KIND_POINTCUT && pointcuts) {
			/* a pointcut shows once, however often it is declared */
			bool dup = false;
			for (size_t j = 0; j < i && !dup; j++)
				dup = p->syms[j].kind == MI_KIND_POINTCUT && c->shown[j] &&
				      !strcmp(str0(p->syms[j].sig), str0(s->sig)) &&
				      !strcmp(str0(p->syms[j].name), str0(s->name));
			if (dup)
				continue;
		}
		pointcuts |= s->kind == MI_KIND_POINTCUT;
		/* skip symbols whose parent's children are not listed */
		int32_t pi = c->par[i];
		bool under_heading = pi >= 0 && p->syms[pi].kind == MI_KIND_HEADING;
		if (pi >= 0 && !under_heading) {
			if (!on_stack(stack, top, pi) || anon_type(s))
				continue;
		}
		size_t at = c->out->len;
		close_guides(c, stack, &top, under_heading ? -1 : pi);
		size_t at_entry = c->out->len;
		bool opens = put_entry(c, i);
		if (!opens && c->out->len > at_entry) {
			uint64_t h = mi_hash64(c->out->buf + at_entry, c->out->len - at_entry) | 1;
			size_t q = h & (nseen - 1);
			while (seen[q] && seen[q] != h)
				q = (q + 1) & (nseen - 1);
			if (seen[q] == h) {
				c->out->len = at_entry;
				c->out->buf[at_entry] = '\0';
			}
			seen[q] = h;
		}
		if (!budget(c, at)) {
			cut = true;
			break;
		}
		c->entries++;
		if (opens && s->kind != MI_KIND_HEADING)
			stack[top++] = (int32_t)i;
	}
	from = c->out->len;
	close_guides(c, stack, &top, -1);
	if (cut) {
		put_truncated(c, count_left(c, k));
	} else {
		put_tests(c, -1, 0);
		mi_v_put_file_auto_traits(c);
		if (c->mode == VM_OUTLINE) {
			for (size_t d = 0; d < p->ndiags; d++)
				if (c->dord[d].owner < 0)
					mi_v_put_diag(c, &p->diags[c->dord[d].idx], 0);
			size_t *l = c->diags_left;
			if (l[0] + l[1] + l[2]) {
				mi_v_vline(c, 0);
				mi_buf_addf(c->out, "[+%zu more: %zuE %zuW %zuH; mode=full shows all]\n",
					    l[0] + l[1] + l[2], l[0], l[1], l[2]);
			}
		}
		if (!budget(c, from)) {
			cut = true;
			put_truncated(c, 0);
		}
	}
	c->cut = cut;
	free(seen);
	free(stack);
}

void mi_render_line(const char *path, const char *src, size_t len, const mi_parsed *p,
		    size_t idx, mi_buf *out)
{
	mi_render_line_opts(path, src, len, p, idx, NULL, out);
}

struct mi_line_view {
	mi_view_opts o;   /* the context points here */
	mi_out tmp;
	vctx c;           /* never written by a line: each renders a copy */
};

mi_line_view *mi_line_view_new(const char *path, const char *src, size_t len,
			       const mi_parsed *p, const mi_view_opts *o)
{
	mi_line_view *v = mi_xcalloc(1, sizeof(*v));
	v->o = (mi_view_opts){.all = true, .unicode = o && o->unicode};
	mi_v_ctx_init(&v->c, path, src, len, p, &v->o, &v->tmp);
	v->c.mode = VM_OUTLINE;
	return v;
}

void mi_line_view_put(mi_line_view *v, size_t idx, mi_buf *out)
{
	/* a copy: the counters a line moves (tokens, diagnostics written)
	 * start from zero for each, as they did in a context of its own */
	vctx c = v->c;
	if (idx >= c.p->nsyms)
		return;
	c.out = out;
	if (is_block(ekind(&c, idx))) {
		put_sym_line(&c, idx, 0);
		if (mi_v_has_body(&c, idx))
			put_sym_body(&c, idx);
	} else {
		mi_buf_adds(out, c.vmark);
		mi_buf_addc(out, ' ');
		mi_v_put_code(&c, &c.p->syms[idx], true);
	}
	mi_buf_addc(out, '\n');
}

void mi_line_view_free(mi_line_view *v)
{
	if (!v)
		return;
	mi_v_ctx_release(&v->c);
	mi_out_release(&v->tmp);
	free(v);
}

void mi_render_line_opts(const char *path, const char *src, size_t len,
			 const mi_parsed *p, size_t idx, const mi_view_opts *o,
			 mi_buf *out)
{
	if (!p || idx >= p->nsyms)
		return;
	mi_line_view *v = mi_line_view_new(path, src, len, p, o);
	mi_line_view_put(v, idx, out);
	mi_line_view_free(v);
}
