/*
 * view_traits.c - what a type implements: "V* traits: A, B" from the
 * implementation references, and Simple's derived auto traits (Send, Sync).
 */
#include "view_int.h"

#include <ctype.h>
#include <string.h>

/*
 * Simple derives Send and Sync for a class or struct whose fields allow it:
 * a field of type Rc or a raw pointer drops Send and Sync, Cell/RefCell drops
 * Sync.  Returns "Send, Sync", "Send", or NULL.
 */
const char *mi_v_auto_traits(const vctx *c, size_t i)
{
	bool send = true, sync = true;
	const mi_parsed *p = c->p;
	for (int32_t j = c->kid[i]; j >= 0; j = c->sib[j]) {
		const mi_symbol *f = &p->syms[j];
		if (f->kind != MI_KIND_FIELD)
			continue;
		const char *t = str0(f->sig);
		if (strstr(t, "Rc<") || strstr(t, "*")) {
			send = false;
			sync = false;
		}
		if (strstr(t, "Cell<"))
			sync = false;
	}
	return send && sync ? "Send, Sync" : send ? "Send" : sync ? "Sync" : NULL;
}

bool mi_v_auto_traits_apply(const vctx *c, const mi_symbol *s)
{
	return c->p->lang == MI_LANG_SIMPLE &&
	       (s->kind == MI_KIND_CLASS || s->kind == MI_KIND_STRUCT);
}

/* "V* auto traits: ..." for the file: one set when all classes agree,
 * else per class. */
void mi_v_put_file_auto_traits(vctx *c)
{
	const mi_parsed *p = c->p;
	const char *common = NULL;
	bool same = true;
	size_t n = 0;
	for (size_t i = 0; i < p->nsyms; i++) {
		if (!c->shown[i] || !mi_v_auto_traits_apply(c, &p->syms[i]))
			continue;
		const char *t = mi_v_auto_traits(c, i);
		if (n++ == 0)
			common = t;
		else if (common != t)
			same = false;
	}
	if (!n || (same && !common))
		return;
	mi_v_vline(c, 0);
	mi_buf_adds(c->out, "auto traits: ");
	if (same) {
		mi_buf_adds(c->out, common);
	} else {
		bool first = true;
		for (size_t i = 0; i < p->nsyms; i++) {
			if (!c->shown[i] || !mi_v_auto_traits_apply(c, &p->syms[i]))
				continue;
			const char *t = mi_v_auto_traits(c, i);
			if (!t)
				continue;
			mi_buf_addf(c->out, "%s%s: %s", first ? "" : "; ",
				    str0(p->syms[i].name), t);
			first = false;
		}
	}
	mi_buf_addc(c->out, '\n');
}

/* "V* traits: A, B" from MI_REF_IMPL refs, leaving out names the sig shows. */
void mi_v_put_traits(vctx *c, size_t i, int depth)
{
	const mi_parsed *p = c->p;
	const char *sig = str0(p->syms[i].sig);
	namelist l = { 0 };
	for (size_t q = 0; q < c->nimpl; q++) {
		const mi_ref *r = &p->refs[c->impl[q]];
		if (r->caller_idx != (int32_t)i || !r->callee)
			continue;
		const char *hit = strstr(sig, r->callee);
		size_t cl = strlen(r->callee);
		if (hit && (hit == sig || !(isalnum((unsigned char)hit[-1]) || hit[-1] == '_')) &&
		    !(isalnum((unsigned char)hit[cl]) || hit[cl] == '_'))
			continue;
		mi_v_nl_add(&l, r->callee);
	}
	if (l.n) {
		mi_v_vline(c, depth);
		mi_buf_adds(c->out, "traits: ");
		mi_v_nl_put(c, &l, LIST_CAP_OUTLINE);
		mi_buf_addc(c->out, '\n');
	}
	mi_v_nl_free(&l);
}
