/*
 * view_fold.c - the fold rules: which symbols of a parsed file get lines,
 * under which parent and how deep, which ones are listed as members, and
 * which have a body to fold (docs/views.md, "Which symbols get lines").
 */
#include "view_int.h"

#include <assert.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- visibility and members --------------------------------------------------------- */

/* Simple: traits, enums and pointcuts are public whatever they say. */
bool mi_v_sym_public(const vctx *c, const mi_symbol *s)
{
	if (c->p->lang == MI_LANG_SIMPLE &&
	    (s->kind == MI_KIND_TRAIT || s->kind == MI_KIND_ENUM ||
	     s->kind == MI_KIND_POINTCUT))
		return true;
	if (mi_lang_flags(c->p->lang) & MI_LANGF_PROSE)
		return true;
	if (c->header && is_fn(s->kind))
		return true;
	return s->vis == MI_VIS_PUBLIC;
}

/* A Rust `impl Trait for Type` block: its members are the trait's, so it
 * folds to one line naming them. */
bool mi_v_trait_impl(const vctx *c, const mi_symbol *s)
{
	if (c->p->lang != MI_LANG_RUST || s->kind != MI_KIND_MODULE)
		return false;
	const char *sig = str0(s->sig);
	return !strncmp(sig, "impl", 4) && strstr(sig, " for ") != NULL;
}

/* A member written in its parent's header (a record component, a Kotlin
 * constructor `val`): the signature already shows it. */
static bool in_header(const mi_symbol *par, const mi_symbol *m)
{
	uint32_t end = par->body_byte ? par->body_byte : par->end_byte;
	return m->start_byte > par->start_byte && m->start_byte < end &&
	       m->start_line == par->start_line;
}

/* Names of the members of container i: mark-less children, looking through
 * anonymous nested types; *methods counts its functions. */
void mi_v_collect_members(const vctx *c, size_t i, namelist *l, size_t *methods, int how)
{
	const mi_parsed *p = c->p;
	for (int32_t j = c->kid[i]; j >= 0; j = c->sib[j]) {
		const mi_symbol *s = &p->syms[j];
		int k = ekind(c, (size_t)j);
		if (!c->shown[j] || (!c->adopted[j] && in_header(&p->syms[i], s)))
			continue;
		if (krow(k)->member || k == MI_KIND_STRUCT || k == MI_KIND_UNION) {
			if (!is_ident(s->name))
				mi_v_collect_members(c, (size_t)j, l, methods, how & ~CM_OPENS);
			else if (krow(k)->member || !(how & CM_OPENS))
				mi_v_nl_add(l, s->name);
		} else if (is_fn(k)) {
			if (how & CM_FNS)
				mi_v_nl_add(l, s->name);
			else if (methods)
				(*methods)++;
		}
	}
}

/* True when container i has rendered children that get lines of their own.
 * A trait folds whole: its members are requirements, shown by expand_at;
 * so does a trait impl. */
bool mi_v_has_block_children(const vctx *c, size_t i)
{
	const mi_parsed *p = c->p;
	if (p->syms[i].kind == MI_KIND_TRAIT || mi_v_trait_impl(c, &p->syms[i]))
		return false;
	for (int32_t j = c->kid[i]; j >= 0; j = c->sib[j]) {
		const mi_symbol *s = &p->syms[j];
		if (c->shown[j] && is_block(ekind(c, (size_t)j)) && !anon_type(s))
			return true;
	}
	return false;
}

/* A namespace without braces (C# `namespace A;`, PHP `namespace A;`): what
 * follows it is not indented under it. */
static bool flat_module(const mi_symbol *s)
{
	return s->kind == MI_KIND_MODULE && !s->body_byte;
}

/* Decides which symbols are rendered and how deep.  A Go method joins its
 * receiver's type when that type is rendered, else it stands alone. */
void mi_v_mark_shown(vctx *c)
{
	const mi_parsed *p = c->p;
	for (size_t i = 0; i < p->nsyms; i++) {
		const mi_symbol *s = &p->syms[i];
		bool ok = s->kind > MI_KIND_NONE && s->kind < MI_KIND__COUNT &&
			  (c->o->all || mi_v_sym_public(c, s));
		int d = 0;
		int32_t pi = s->parent_idx;
		if (ok && pi >= 0 && (size_t)pi < i) {
			const mi_symbol *par = &p->syms[pi];
			ok = c->shown[pi] && krow(par->kind)->container;
			d = c->depth[pi] + 1;
			if (par->kind == MI_KIND_HEADING)
				d = 0;
			else if (flat_module(par))
				d = c->depth[pi];
		}
		c->shown[i] = ok;
		c->depth[i] = (uint8_t)(d > 40 ? 40 : d);
	}
	for (size_t i = 0; i < p->nsyms; i++) {
		int32_t t = c->par[i];
		if (!c->adopted[i])
			continue;
		if (c->shown[t]) {
			c->depth[i] = (uint8_t)(c->depth[t] + 1 > 40 ? 40 : c->depth[t] + 1);
		} else {
			c->adopted[i] = 0;
			c->par[i] = -1;
		}
	}
}

/* Does symbol i have a body to fold?  A Ruby method, class or module always
 * has one (an empty `def x; end` too); a C# member may have only `=> expr`. */
bool mi_v_has_body(const vctx *c, size_t i)
{
	const mi_symbol *s = &c->p->syms[i];
	if (s->body_byte)
		return true;
	if (c->p->lang == MI_LANG_RUBY && is_block(ekind(c, i)))
		return true;
	if (!is_fn(ekind(c, i)) || s->kind == MI_KIND_PROTOTYPE)
		return false;
	if (c->p->lang == MI_LANG_CSHARP && s->end_byte <= c->len && s->start_byte < s->end_byte)
		return memmem(c->src + s->start_byte, s->end_byte - s->start_byte, "=>", 2) != NULL;
	return false;
}

/* ---- the rendered tree ------------------------------------------------------------- */

static int cmp_by_name(const void *a, const void *b, void *arg)
{
	const mi_symbol *syms = arg;
	return strcmp(str0(syms[*(const int32_t *)a].name), str0(syms[*(const int32_t *)b].name));
}

/* Rendered parents and kinds: the source's, except that a C++ prototype in a
 * class is a method declaration, and a Go method's parent is its receiver's
 * struct when the file declares it. */
void mi_v_relate(vctx *c)
{
	const mi_parsed *p = c->p;
	int32_t *types = NULL;
	size_t ntypes = 0;
	for (size_t i = 0; i < p->nsyms; i++) {
		const mi_symbol *s = &p->syms[i];
		int32_t par = s->parent_idx >= 0 && (size_t)s->parent_idx < i ? s->parent_idx : -1;
		c->par[i] = par;
		c->ek[i] = s->kind;
		if (s->kind == MI_KIND_PROTOTYPE && par >= 0) {
			int pk = p->syms[par].kind;
			if (pk == MI_KIND_CLASS || pk == MI_KIND_STRUCT || pk == MI_KIND_UNION)
				c->ek[i] = MI_KIND_METHOD;
		}
		if (p->lang == MI_LANG_GO && par < 0 && s->kind == MI_KIND_STRUCT) {
			if (!types)
				types = mi_xmalloc(p->nsyms * sizeof(int32_t));
			types[ntypes++] = (int32_t)i;
		}
	}
	if (!ntypes)
		return;
	mi_sort(types, ntypes, sizeof(int32_t), cmp_by_name, (void *)p->syms);
	for (size_t i = 0; i < p->nsyms; i++) {
		const mi_symbol *s = &p->syms[i];
		if (s->kind != MI_KIND_METHOD || c->par[i] >= 0 || !*str0(s->parent))
			continue;
		size_t lo = 0, hi = ntypes;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			int r = strcmp(str0(p->syms[types[mid]].name), s->parent);
			if (r < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < ntypes && !strcmp(str0(p->syms[types[lo]].name), s->parent)) {
			c->par[i] = types[lo];
			c->adopted[i] = 1;
		}
	}
	free(types);
}

/* Children lists (by rendered parent, in source order) and the tree order. */
void mi_v_link_tree(vctx *c)
{
	const mi_parsed *p = c->p;
	size_t n = p->nsyms + 1, no = 0;
	for (size_t i = 0; i < n; i++)
		c->kid[i] = c->sib[i] = -1;
	for (size_t i = p->nsyms; i-- > 0;) {
		int32_t par = c->par[i];
		if (par >= 0) {
			c->sib[i] = c->kid[par];
			c->kid[par] = (int32_t)i;
		}
	}
	/* preorder without recursion: walk down kid, along sib, up par */
	for (size_t r = 0; r < p->nsyms; r++) {
		if (c->par[r] >= 0)
			continue;
		int32_t i = (int32_t)r;
		while (i >= 0) {
			c->order[no++] = i;
			if (c->kid[i] >= 0) {
				i = c->kid[i];
				continue;
			}
			while (i >= 0 && i != (int32_t)r && c->sib[i] < 0)
				i = c->par[i];
			i = i >= 0 && i != (int32_t)r ? c->sib[i] : -1;
		}
	}
	assert(no == p->nsyms);
}

/* ---- entries that fold into lists ---------------------------------------------------- */

bool mi_v_is_test(const vctx *c, size_t i)
{
	return is_fn(ekind(c, i)) && (c->p->syms[i].flags & MI_SYMF_TEST);
}

bool mi_v_is_overload(const vctx *c, const mi_symbol *s)
{
	if (c->p->lang != MI_LANG_PYTHON || !is_fn(s->kind))
		return false;
	const char *q = str0(s->sig);
	while (*q == '@') {
		const char *e = q + 1;
		while (isalnum((unsigned char)*e) || *e == '_' || *e == '.')
			e++;
		if (e - q >= 9 && !memcmp(e - 8, "overload", 8) && (e - q == 9 || e[-9] == '.'))
			return true;
		e = *e == '(' ? mi_v_skip_group(e) : e;
		if (!e)
			return false;
		while (*e == ' ')
			e++;
		q = e;
	}
	return false;
}

bool mi_v_is_import_var(const vctx *c, const mi_symbol *s)
{
	int lang = c->p->lang;
	if ((lang != MI_LANG_JAVASCRIPT && lang != MI_LANG_TYPESCRIPT && lang != MI_LANG_TSX) ||
	    (s->kind != MI_KIND_VARIABLE && s->kind != MI_KIND_CONSTANT) ||
	    s->end_byte > c->len || s->end_byte <= s->start_byte)
		return false;
	return memmem(c->src + s->start_byte, s->end_byte - s->start_byte, "require(", 8) != NULL;
}

bool mi_v_drops_self(const vctx *c, const mi_symbol *s)
{
	return c->p->lang == MI_LANG_PYTHON && is_fn(s->kind) && s->parent_idx >= 0 &&
	       (size_t)s->parent_idx < c->p->nsyms &&
	       c->p->syms[s->parent_idx].kind == MI_KIND_CLASS;
}
