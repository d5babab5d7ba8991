/*
 * view.c - folded views of one parsed file (outline, compact, full) and the
 * expanded view of one symbol, in the block-mark format of SPEC §2.  Pure
 * functions over source text + mi_parsed; docs/views.md states the rules.
 * This file holds the entry points and what every rendering shares: the
 * kind table, the context, source lines, output primitives and name lists.
 * view_int.h names the files that hold the rest.
 */
#include "view_int.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One row per kind: how a symbol of that kind shows in a folded view. */
const kind_row mi_v_kinds[MI_KIND__COUNT] = {
	[MI_KIND_FUNCTION]   = { "F>", "F_", "F\xe2\x96\xbc", "fn", false, false },
	[MI_KIND_METHOD]     = { "F>", "F_", "F\xe2\x96\xbc", "fn", false, false },
	[MI_KIND_CLASS]      = { "C>", "C_", "C\xe2\x96\xbc", "class", true, false },
	[MI_KIND_STRUCT]     = { "S>", "S_", "S\xe2\x96\xbc", "struct", true, false },
	[MI_KIND_UNION]      = { "S>", "S_", "S\xe2\x96\xbc", "union", true, false },
	[MI_KIND_ENUM]       = { "E>", "E_", "E\xe2\x96\xbc", "enum", true, false },
	[MI_KIND_TRAIT]      = { "T>", "T_", "T\xe2\x96\xbc", "trait", true, false },
	[MI_KIND_POINTCUT]   = { "P>", "P_", "P\xe2\x96\xbc", "pointcut", false, false },
	[MI_KIND_MODULE]     = { "M>", "M_", "M\xe2\x96\xbc", "module", true, false },
	[MI_KIND_HEADING]    = { "", "", "", "section", true, false },
	[MI_KIND_FIELD]      = { NULL, NULL, NULL, NULL, false, true },
	[MI_KIND_VARIABLE]   = { NULL, NULL, NULL, NULL, false, true },
	[MI_KIND_CONSTANT]   = { NULL, NULL, NULL, NULL, false, true },
	[MI_KIND_MACRO]      = { NULL, NULL, NULL, NULL, false, true },
	[MI_KIND_TYPEDEF]    = { NULL, NULL, NULL, NULL, false, true },
	[MI_KIND_ENUMERATOR] = { NULL, NULL, NULL, NULL, false, true },
	[MI_KIND_PROTOTYPE]  = { NULL, NULL, NULL, NULL, false, true },
};

static const char *mode_name(int mode)
{
	return mode == VM_COMPACT ? "compact" : mode == VM_FULL ? "full" : "outline";
}

/* ---- answers ---------------------------------------------------------------------- */

void mi_out_release(mi_out *o)
{
	mi_buf_release(&o->text);
	mi_buf_release(&o->json);
	o->is_error = false;
}

void mi_out_reset(mi_out *o)
{
	mi_buf_reset(&o->text);
	mi_buf_reset(&o->json);
	o->is_error = false;
}

int mi_out_error(mi_out *o, int err, const char *fmt, ...)
{
	va_list ap;
	mi_out_reset(o);
	va_start(ap, fmt);
	mi_buf_vaddf(&o->text, fmt, ap);
	va_end(ap);
	mi_buf_adds(&o->json, "{\"error\":");
	mi_buf_add_json_str(&o->json, o->text.buf, o->text.len);
	mi_buf_addc(&o->json, '}');
	o->is_error = true;
	return err;
}

/* ---- source lines ---------------------------------------------------------- */

static int lines_index(vctx *c)
{
	/* One pass: line starts into a growing array; with a window, of its
	 * lines only. */
	const mi_src_window *w = c->o->window;
	size_t from = w ? w->from : 0, to = w ? w->to : c->len;
	size_t cap = (to - from) / 32 + 16, n = 0;
	const char *p = c->src + from, *end = c->src + to;
	c->lstart = mi_xmalloc(cap * sizeof(uint32_t));
	if (to > from)
		c->lstart[n++] = (uint32_t)from;
	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		p++;
		if (p == end)
			break;
		if (n + 2 > cap) {
			cap *= 2;
			c->lstart = mi_xrealloc(c->lstart, cap * sizeof(uint32_t));
		}
		c->lstart[n++] = (uint32_t)(p - c->src);
	}
	if (n + 2 > cap)
		c->lstart = mi_xrealloc(c->lstart, (n + 2) * sizeof(uint32_t));
	c->lstart[n] = (uint32_t)to;
	c->l0 = w ? w->line0 : 1;
	c->l1 = c->l0 + (uint32_t)n - 1;
	c->nlines = w ? w->nlines : (uint32_t)n;
	c->lnw = 1;
	for (uint32_t v = c->nlines; v >= 10; v /= 10)
		c->lnw++;
	return 0;
}

/* Text of line ln (1-based) without its newline. */
const char *mi_v_line_at(const vctx *c, uint32_t ln, size_t *n)
{
	if (ln < 1 || ln > c->nlines) {
		*n = 0;
		return "";
	}
	if (ln < c->l0 || ln > c->l1) { /* outside the window: render again */
		c->o->window->short_of_lines = true;
		*n = 0;
		return "";
	}
	size_t a = c->lstart[ln - c->l0], b = c->lstart[ln - c->l0 + 1];
	while (b > a && (c->src[b - 1] == '\n' || c->src[b - 1] == '\r'))
		b--;
	*n = b - a;
	return c->src + a;
}

bool mi_v_line_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!mi_v_space((unsigned char)s[i]))
			return false;
	return true;
}

size_t mi_v_indent_of(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

/* ---- output ---------------------------------------------------------------- */

/* Line-number prefix: "12 " (plain), "012 " (zpad), blanks for virtual lines. */
void mi_v_lineno(vctx *c, uint32_t ln)
{
	if (c->o->line_numbers == 1) {
		if (ln)
			mi_buf_addf(c->out, "%u ", ln);
	} else if (c->o->line_numbers == 2) {
		if (ln)
			mi_buf_addf(c->out, "%0*u ", c->lnw, ln);
		else
			mi_buf_addf(c->out, "%*s ", c->lnw, "");
	}
}

void mi_v_indent(vctx *c, int depth)
{
	for (int i = 0; i < depth; i++)
		mi_buf_add(c->out, "  ", 2);
}

/* Starts a virtual line at depth: "V* " + indent. */
void mi_v_vline(vctx *c, int depth)
{
	mi_v_lineno(c, 0);
	mi_buf_adds(c->out, c->vmark);
	mi_buf_addc(c->out, ' ');
	mi_v_indent(c, depth);
}

void mi_v_put_body(vctx *c)
{
	mi_buf_addf(c->out, " { %s }", c->ell);
}

/* ---- name lists ---------------------------------------------------------------- */

static void nl_rehash(namelist *l)
{
	free(l->set);
	l->nset = l->nset ? l->nset * 2 : 64;
	l->set = mi_xmalloc(l->nset * sizeof(*l->set));
	memset(l->set, 0xff, l->nset * sizeof(*l->set));
	for (size_t i = 0; i < l->n; i++) {
		size_t h = mi_hash64(l->v[i], strlen(l->v[i])) & (l->nset - 1);
		while (l->set[h] >= 0)
			h = (h + 1) & (l->nset - 1);
		l->set[h] = (int32_t)i;
	}
}

void mi_v_nl_add(namelist *l, const char *name)
{
	if (!name || !*name)
		return;
	if ((l->n + 1) * 2 > l->nset)
		nl_rehash(l);
	size_t h = mi_hash64(name, strlen(name)) & (l->nset - 1);
	for (; l->set[h] >= 0; h = (h + 1) & (l->nset - 1))
		if (!strcmp(l->v[l->set[h]], name))
			return;
	if (l->n == l->capv) {
		l->capv = l->capv ? l->capv * 2 : 16;
		l->v = mi_xrealloc(l->v, l->capv * sizeof(*l->v));
	}
	l->set[h] = (int32_t)l->n;
	l->v[l->n++] = name;
}

void mi_v_nl_free(namelist *l)
{
	free(l->v);
	free(l->set);
}

/* Appends "a, b, c" (at most cap, then ", +N more"). */
void mi_v_nl_put(vctx *c, const namelist *l, size_t cap)
{
	if (l->n == cap + 1)
		cap++; /* "+1 more" costs as much as the name */
	for (size_t i = 0; i < l->n && i < cap; i++) {
		if (i)
			mi_buf_add(c->out, ", ", 2);
		mi_buf_adds(c->out, l->v[i]);
	}
	if (l->n > cap)
		mi_buf_addf(c->out, ", +%zu more", l->n - cap);
}

/* ---- context ---------------------------------------------------------------------- */

void mi_v_ctx_init(vctx *c, const char *path, const char *src, size_t len,
		   const mi_parsed *p, const mi_view_opts *o, mi_out *out)
{
	memset(c, 0, sizeof(*c));
	c->path = path ? path : "";
	c->src = src ? src : "";
	c->len = src ? len : 0;
	c->p = p;
	c->o = o;
	c->out = &out->text;
	c->ell = o->unicode ? "\xe2\x80\xa6" : "...";
	c->vmark = o->unicode ? "V\xe2\x80\xa2" : "V*";
	c->cap = o->max_tokens ? o->max_tokens : MI_DEFAULT_MAX_TOKENS;
	lines_index(c);
	size_t n = p->nsyms + 1;
	c->shown = mi_xcalloc(n, 1);
	c->depth = mi_xcalloc(n, 1);
	c->par = mi_xmalloc(n * sizeof(int32_t));
	c->ek = mi_xmalloc(n);
	c->adopted = mi_xcalloc(n, 1);
	c->kid = mi_xmalloc(n * sizeof(int32_t));
	c->sib = mi_xmalloc(n * sizeof(int32_t));
	c->order = mi_xmalloc(n * sizeof(int32_t));
	mi_v_relate(c);
	c->impl = mi_xmalloc((p->nrefs + 1) * sizeof(uint32_t));
	for (size_t k = 0; k < p->nrefs; k++)
		if (p->refs[k].kind == MI_REF_IMPL)
			c->impl[c->nimpl++] = (uint32_t)k;
	if (p->lang == MI_LANG_C || p->lang == MI_LANG_CPP) {
		const char *dot = strrchr(c->path, '.');
		c->header = dot && (!strcmp(dot, ".h") || !strcmp(dot, ".hh") ||
				    !strcmp(dot, ".hpp") || !strcmp(dot, ".hxx"));
	}
	c->dstart = mi_xcalloc(n, sizeof(int32_t));
	mi_v_mark_shown(c);
	mi_v_link_tree(c);
	mi_v_assign_diags(c);
}

void mi_v_ctx_release(vctx *c)
{
	free(c->lstart);
	free(c->shown);
	free(c->depth);
	free(c->par);
	free(c->ek);
	free(c->adopted);
	free(c->kid);
	free(c->sib);
	free(c->order);
	free(c->impl);
	free(c->dstart);
	free(c->dord);
	free(c->cov);
	free(c->brt);
	free(c->brh);
}

int mi_v_set_error(mi_out *out, int err, const char *msg)
{
	mi_buf_reset(&out->text);
	mi_buf_reset(&out->json);
	mi_buf_adds(&out->text, msg);
	mi_buf_adds(&out->json, "{\"error\":");
	mi_buf_add_json_str(&out->json, msg, strlen(msg));
	mi_buf_addc(&out->json, '}');
	out->is_error = true;
	return err;
}

/* ---- entry points ------------------------------------------------------------------ */

static const mi_view_opts default_opts;

/* What both renderings do first: default options, an empty answer, and
 * an error answer without a parsed file. */
int mi_v_render_begin(const mi_parsed *p, const mi_view_opts **o, mi_out *out,
		      const char *no_file)
{
	if (!*o)
		*o = &default_opts;
	if (!out)
		return MI_ERR_ARG;
	out->is_error = false;
	mi_buf_reset(&out->text);
	mi_buf_reset(&out->json);
	if (!p)
		return mi_v_set_error(out, MI_ERR_ARG, no_file);
	return 0;
}

/* VM_* of a mode name (none, "mcp": outline), -1 when unknown. */
static int view_mode(const char *mode)
{
	if (!mode || !*mode || !strcmp(mode, "outline") || !strcmp(mode, "mcp"))
		return VM_OUTLINE;
	if (!strcmp(mode, "compact"))
		return VM_COMPACT;
	if (!strcmp(mode, "full"))
		return VM_FULL;
	return -1;
}

/* What a folded render reports besides its text. */
typedef struct view_info {
	int mode;        /* VM_* */
	uint32_t lines;  /* line_count */
	size_t nsyms;    /* symbols */
	long saved;      /* tokens_saved_percent */
	size_t need;     /* smallest cap that leaves it whole, 0 if it was cut */
} view_info;

/* Renders into out->text (reset first); the JSON is the caller's. */
static int render_view(const char *path, const char *src, size_t len, const mi_parsed *p,
		       const mi_view_opts *o, mi_out *out, view_info *vi)
{
	vctx c;
	int rc = mi_v_render_begin(p, &o, out, "no parsed file to render");
	if (rc)
		return rc;
	int mode = view_mode(o->mode);
	if (mode < 0) {
		char msg[160];
		snprintf(msg, sizeof(msg), "unknown mode '%.40s'; use outline, compact or full",
			 o->mode);
		return mi_v_set_error(out, MI_ERR_ARG, msg);
	}
	mi_v_ctx_init(&c, path, src, len, p, o, out);
	c.mode = mode;
	mi_v_load_coverage(&c);
	mi_buf_grow(&out->text, mode == VM_FULL ? len + 64 : 256 + len / 8);
	if (mode == VM_FULL)
		mi_v_render_full(&c);
	else
		mi_v_render_folded(&c);

	size_t src_tok = mi_v_estimate_sampled(c.src, c.len);
	size_t view_tok = mi_token_estimate(out->text.buf ? out->text.buf : "", out->text.len);
	vi->mode = mode;
	vi->lines = c.nlines;
	vi->nsyms = p->nsyms;
	vi->saved = 0;
	if (src_tok > 0 && view_tok < src_tok)
		vi->saved = (long)((src_tok - view_tok) * 100 / src_tok);
	vi->need = c.cut ? 0 : c.tokens + TRUNC_RESERVE;
	mi_v_ctx_release(&c);
	return 0;
}

/* The read_file object around out->text. */
static void view_json(mi_out *out, const char *path, const view_info *vi)
{
	mi_buf *j = &out->json;
	mi_buf_grow(j, out->text.len + out->text.len / 8 + 128);
	mi_buf_adds(j, "{\"path\":");
	mi_buf_add_json_str(j, path, strlen(path));
	mi_buf_addf(j, ",\"mode\":\"%s\",\"text\":", mode_name(vi->mode));
	mi_buf_add_json_str(j, mi_buf_str(&out->text), out->text.len);
	mi_buf_addf(j, ",\"line_count\":%u,\"symbols\":%zu,\"tokens_saved_percent\":%ld}",
		    vi->lines, vi->nsyms, vi->saved);
}

/*
 * Folded view of a parsed file.  out->text gets the view, out->json the
 * read_file object; both are reset first.  Returns 0, or MI_ERR_ARG when
 * p is NULL or the mode is unknown (out then holds the message).
 */
int mi_render_view(const char *path, const char *src, size_t len,
		   const mi_parsed *p, const mi_view_opts *o, mi_out *out)
{
	view_info vi;
	int rc = render_view(path, src, len, p, o, out, &vi);
	if (!rc)
		view_json(out, path ? path : "", &vi);
	return rc;
}

/* The stored outline: the default view with no cap (a cap only ever cuts
 * it, and the reader knows from r->need which caps leave it whole); when
 * that is over the default cap, the view a default read_file answers (a
 * 24,000-line generated header took 7 ms to fold at every read). */
int mi_render_outline(const char *path, const char *src, size_t len, const mi_parsed *p,
		      mi_out *out, mi_outline_rec *r)
{
	mi_view_opts o = {.mode = "outline", .max_tokens = SIZE_MAX / 4};
	view_info vi;
	memset(r, 0, sizeof(*r));
	int rc = render_view(path, src, len, p, &o, out, &vi);
	bool capped = !rc && vi.need > MI_DEFAULT_MAX_TOKENS;
	if (capped) {
		mi_view_opts d = {0};
		rc = render_view(path, src, len, p, &d, out, &vi);
	}
	if (rc)
		return rc;
	r->text = mi_buf_str(&out->text);
	r->text_len = out->text.len;
	r->need = capped ? MI_OUTLINE_CAPPED
		: vi.need >= MI_OUTLINE_CAPPED ? MI_OUTLINE_CAPPED - 1 : (uint32_t)vi.need;
	r->lines = vi.lines;
	r->nsyms = vi.nsyms > UINT32_MAX ? UINT32_MAX : (uint32_t)vi.nsyms;
	r->saved = (int32_t)vi.saved;
	return 0;
}

bool mi_outline_serves(const mi_outline_rec *r, const mi_view_opts *o)
{
	size_t cap = o->max_tokens ? o->max_tokens : MI_DEFAULT_MAX_TOKENS;
	bool fits = r->need == MI_OUTLINE_CAPPED ? cap == MI_DEFAULT_MAX_TOKENS
						  : r->need && r->need <= cap;
	return fits && view_mode(o->mode) == VM_OUTLINE && !o->all &&
	       !o->xrefs && !o->blame && !o->notes && !o->nline_notes &&
	       !o->line_numbers && !o->unicode && !o->block_guides && !o->coverage;
}

void mi_outline_answer(const char *path, const mi_outline_rec *r, mi_out *out)
{
	view_info vi = {.mode = VM_OUTLINE, .lines = r->lines, .nsyms = r->nsyms,
			.saved = r->saved};
	mi_out_reset(out);
	mi_buf_add(&out->text, r->text, r->text_len);
	view_json(out, path, &vi);
}
