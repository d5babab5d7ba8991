/*
 * xrefs.c - cross-references inline: for read_file {xrefs: true}, the V*
 * lines written under each symbol of a file: "called by: a, b, c (+3)" for
 * a function, "implemented by: A, B" for a type others implement or extend.
 * A call from another file that defines a symbol of the same name is taken
 * to mean that one, as code_research does.
 */
#include "query_int.h"

#include <stdlib.h>
#include <string.h>

#define XR_NAMES 3     /* names written, then "(+N)" */
#define XR_SCAN 2000   /* references read for one name */

/* Does path (pl bytes) define name itself? */
static bool defines(mi_txn *t, const char *name, const char *path, size_t pl)
{
	return mi_names_in(t, name, path, pl);
}

/* "LABEL: a, b, c (+N)" from the references of kind rk to name, or NULL. */
static char *xref_line(mi_txn *t, const char *path, const char *name, int rk, const char *label,
		       mi_parsed *arena)
{
	mi_buf out = {0};
	size_t pl = strlen(path);
	const char *names[XR_NAMES];
	size_t nnames = 0, more = 0, seen = 0;
	char *last = NULL, **all = NULL;
	size_t nall = 0;
	bool skip = false;
	mi_byname it;
	const char *fp;
	size_t fl;
	mi_ref ref;
	if (mi_refs_open(t, name, NULL, 0, &it))
		return NULL;
	while (seen < XR_SCAN && !mi_refs_next(&it, &fp, &fl, &ref)) {
		if (ref.kind != rk)
			continue;
		seen++;
		if (!last || strlen(last) != fl || memcmp(last, fp, fl)) {
			free(last);
			last = mi_xstrndup(fp, fl);
			skip = (fl != pl || memcmp(fp, path, pl)) && defines(t, name, fp, fl);
		}
		if (skip)
			continue;
		mi_symbol s;
		const char *who = last;
		if (ref.caller_idx >= 0 && !mi_q_load_sym(t, fp, fl, (uint32_t)ref.caller_idx, &s, arena))
			who = s.name;
		bool dup = false;
		for (size_t i = 0; i < nall && !dup; i++)
			dup = !strcmp(all[i], who);
		if (dup)
			continue;
		all = mi_xrealloc(all, (nall + 1) * sizeof(*all));
		all[nall++] = mi_xstrdup(who);
		if (nnames < XR_NAMES)
			names[nnames++] = all[nall - 1];
		else
			more++;
	}
	mi_byname_close(&it);
	if (nnames) {
		mi_buf_addf(&out, "%s: ", label);
		for (size_t i = 0; i < nnames; i++)
			mi_buf_addf(&out, "%s%s", i ? ", " : "", names[i]);
		if (more)
			mi_buf_addf(&out, " (+%zu)", more);
	}
	for (size_t i = 0; i < nall; i++)
		free(all[i]);
	free(all);
	free(last);
	return nnames ? mi_buf_detach(&out) : NULL;
}

char **mi_q_xrefs(mi_txn *t, const char *path, const mi_parsed *p)
{
	char **notes = mi_xcalloc(p->nsyms + 1, sizeof(*notes));
	mi_parsed arena;
	mi_parsed_init(&arena);
	for (size_t i = 0; i < p->nsyms; i++) {
		const mi_symbol *s = &p->syms[i];
		if (!s->name || !*s->name)
			continue;
		if (s->kind == MI_KIND_FUNCTION || s->kind == MI_KIND_METHOD)
			notes[i] = xref_line(t, path, s->name, MI_REF_CALL, "called by", &arena);
		else if (s->kind == MI_KIND_TRAIT || s->kind == MI_KIND_CLASS ||
			 s->kind == MI_KIND_STRUCT)
			notes[i] = xref_line(t, path, s->name, MI_REF_IMPL, "implemented by", &arena);
	}
	mi_parsed_release(&arena);
	return notes;
}

void mi_q_xrefs_free(char **notes, size_t n)
{
	if (!notes)
		return;
	for (size_t i = 0; i < n; i++)
		free(notes[i]);
	free(notes);
}
