/*
 * pack.c - context_pack: the smallest context that lets a model change a
 * target safely, fitted to a token budget.  The target (a symbol, a file or
 * a comma-separated list of them) expanded; the symbols it uses (callees,
 * types, constants, across files) as folded outline lines; its callers as
 * one-line references.  Each candidate is ranked by how much the target
 * depends on it (references from the target, hops, kind), and the pack
 * takes them in rank order while they fit, cutting at symbol boundaries.
 * Deterministic: every order has a total tie-break.
 */
#include "query_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PK_TARGET, PK_USES, PK_CALLER };
static const char *const role_name[] = { "target", "uses", "caller" };

#define PK_MAX_CANDS 400      /* candidates considered, all roles */
#define PK_MAX_CALLERS 60     /* call sites read for the callers */
#define PK_MAX_NAMES 64       /* definitions looked at for one name */
#define PK_DEPTH2_FROM 12     /* callees whose own callees are followed */
#define PK_TARGET_SHARE 0.6   /* a target body over this share of the budget folds */
#define PK_SAFETY 0.92        /* the estimate may be a few percent under o200k */

/* One symbol the pack may hold. */
typedef struct pk_ent {
	char *path;         /* owned, repo-relative */
	uint32_t idx;       /* symbol index in its file (UINT32_MAX: a whole file) */
	mi_symbol sym;      /* decoded; strings in the pack's arena */
	int role;           /* PK_* */
	int depth;          /* hops from a target */
	uint32_t refs;      /* references from the targets (callers: 1) */
	uint32_t line;      /* a caller's call line */
	double score;       /* rank key: how much the target depends on it */
	char *text;         /* rendered entry (owned) */
	size_t tokens;      /* its estimate */
	bool in;            /* selected */
	bool folded;        /* a target shown folded: its body was over budget */
} pk_ent;

typedef struct pack {
	mi_txn *t;          /* the read transaction */
	mi_parsed arena;    /* owns decoded strings */
	pk_ent *e;          /* entries */
	size_t n, cap;      /* used, allocated */
	size_t budget;      /* budget_tokens */
	int depth;          /* 1 or 2 */
	mi_buf err;         /* first resolution error */
	size_t unread_calls; /* call sites past PK_MAX_CALLERS: counted, not read */
	size_t unread_files; /* since: files diff mode did not compare (its cap) */
} pack;

/* A callee name seen in a target's references, and how often. */
typedef struct pk_name {
	char *name;         /* owned */
	const char *from;   /* path of the referring symbol (borrowed from an entry) */
	uint32_t count;     /* references */
	int depth;          /* hops */
} pk_name;

static int kind_weight(int kind)
{
	switch (kind) {
	case MI_KIND_CLASS: case MI_KIND_STRUCT: case MI_KIND_UNION: case MI_KIND_ENUM:
	case MI_KIND_TRAIT: case MI_KIND_TYPEDEF:
		return 3;
	case MI_KIND_FUNCTION: case MI_KIND_METHOD: case MI_KIND_MODULE:
		return 2;
	default:
		return 1;
	}
}

static int file_lang(mi_txn *t, const char *path, size_t pl)
{
	const void *v;
	size_t vl;
	mi_file_rec f;
	if (mi_get(t, MI_DB_FILES, path, pl, &v, &vl) || mi_file_decode(v, vl, &f))
		return -1;
	int l = f.lang;
	mi_file_rec_release(&f);
	return l;
}

/* C calls C++ and back, and so do JavaScript and TypeScript. */
static int family(int lang)
{
	if (lang == MI_LANG_CPP)
		return MI_LANG_C;
	if (lang == MI_LANG_TYPESCRIPT || lang == MI_LANG_TSX)
		return MI_LANG_JAVASCRIPT;
	return lang;
}


static pk_ent *find_ent(pack *k, const char *path, uint32_t idx, int role)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->e[i].idx == idx && k->e[i].role == role && !strcmp(k->e[i].path, path))
			return &k->e[i];
	return NULL;
}

static bool is_target(pack *k, const char *path, uint32_t idx)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->e[i].role == PK_TARGET && !strcmp(k->e[i].path, path) &&
		    (k->e[i].idx == idx || k->e[i].idx == UINT32_MAX))
			return true;
	return false;
}

static pk_ent *add_ent(pack *k, const char *path, size_t pl, uint32_t idx, const mi_symbol *s,
		       int role, int depth)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? k->cap * 2 : 32;
		k->e = mi_xrealloc(k->e, k->cap * sizeof(*k->e));
	}
	pk_ent *e = &k->e[k->n++];
	memset(e, 0, sizeof(*e));
	e->path = mi_xstrndup(path, pl);
	e->idx = idx;
	if (s)
		e->sym = *s;
	e->role = role;
	e->depth = depth;
	return e;
}

/* A typing overload stub (Python `@overload` / `@t.overload`): the
 * implementation is the definition a pack wants. */
static bool is_overload_stub(const mi_symbol *s)
{
	const char *q = s->sig ? s->sig : "";
	if (s->kind != MI_KIND_FUNCTION && s->kind != MI_KIND_METHOD)
		return false;
	while (*q == '@') {
		size_t n = strcspn(q, "( \n");
		if ((n == 9 && !memcmp(q, "@overload", 9)) ||
		    (n > 9 && !memcmp(q + n - 9, ".overload", 9)))
			return true;
		q += n;
		if (*q == '(') {
			int depth = 0;
			for (; *q; q++) {
				depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
				if (!depth)
					break;
			}
			if (*q)
				q++;
		}
		q += strspn(q, " \n");
	}
	return false;
}

/*
 * The definition a reference to `name` from file `from` most likely means:
 * one in the same file, else one in a file of the same language family,
 * types and functions before variables, definitions before declarations,
 * tests and examples last, then by path and index.  false when the index
 * has none (a library or language name).
 */
static bool resolve(pack *k, const char *name, const char *from, mi_buf *path, uint32_t *idx,
		    mi_symbol *out)
{
	int best = 1 << 30, seen = 0;
	int ffam = family(file_lang(k->t, from, strlen(from)));
	mi_byname it;
	const char *fp;
	size_t fl;
	uint32_t si;
	if (mi_names_open(k->t, name, NULL, 0, &it))
		return false;
	while (seen < PK_MAX_NAMES && !mi_names_next(&it, &fp, &fl, &si)) {
		seen++;
		char *fpath = mi_xstrndup(fp, fl);
		mi_symbol s;
		int rank = -1;
		if (!is_target(k, fpath, si) && !mi_q_load_sym(k->t, fp, fl, si, &s, &k->arena)) {
			bool same = !strcmp(fpath, from);
			int fam = same ? ffam : family(file_lang(k->t, fp, fl));
			if (same || fam == ffam) {
				rank = (same ? 0 : 100) + (s.kind == MI_KIND_PROTOTYPE ? 40 : 0) +
				       (is_overload_stub(&s) ? 30 : 0) +
				       (s.kind == MI_KIND_VARIABLE || s.kind == MI_KIND_FIELD ? 20 : 0) +
				       (mi_path_testlike(fpath, strlen(fpath)) ? 10 : 0) + (3 - kind_weight(s.kind));
			}
		}
		if (rank >= 0 && rank < best) {
			best = rank;
			mi_buf_reset(path);
			mi_buf_add(path, fp, fl);
			*idx = si;
			*out = s;
		}
		free(fpath);
	}
	mi_byname_close(&it);
	return best < (1 << 30);
}

static int name_cmp(const void *a, const void *b)
{
	const pk_name *x = a, *y = b;
	return strcmp(x->name, y->name);
}

/* Adds the names referenced from lines [a, b] of path (all of it when b is
 * 0) to the list, counting repeats. */
static void collect_refs(pack *k, const char *path, uint32_t a, uint32_t b, int depth,
			 pk_name **names, size_t *nn, size_t *cap)
{
	mi_frefs fr;
	const void *vp;
	size_t vl;
	if (mi_frefs_open(k->t, path, strlen(path), &fr))
		return;
	while (!mi_frefs_next(&fr, &vp, &vl, NULL)) {
		mi_ref ref;
		if (mi_ref_decode(vp, vl, &ref, &k->arena) ||
		    ref.kind == MI_REF_IMPORT || !ref.callee || !*ref.callee)
			continue;
		if (b && (ref.line < a || ref.line > b))
			continue;
		size_t i;
		for (i = 0; i < *nn; i++)
			if (!strcmp((*names)[i].name, ref.callee))
				break;
		if (i < *nn) {
			(*names)[i].count++;
			continue;
		}
		if (*nn == *cap) {
			*cap = *cap ? *cap * 2 : 32;
			*names = mi_xrealloc(*names, *cap * sizeof(**names));
		}
		(*names)[(*nn)++] = (pk_name){ mi_xstrdup(ref.callee), path, 1, depth };
	}
}

/* The definitions the names of one referring symbol resolve to, as USES
 * entries (a symbol already in the pack gains the references). */
static void add_uses(pack *k, pk_name *names, size_t nn)
{
	mi_buf path = {0};
	if (nn)
		qsort(names, nn, sizeof(*names), name_cmp);
	for (size_t i = 0; i < nn && k->n < PK_MAX_CANDS; i++) {
		uint32_t idx;
		mi_symbol s;
		if (!resolve(k, names[i].name, names[i].from, &path, &idx, &s))
			continue;
		pk_ent *e = find_ent(k, path.buf, idx, PK_USES);
		if (!e) {
			e = add_ent(k, path.buf, path.len, idx, &s, PK_USES, names[i].depth);
		} else if (names[i].depth < e->depth) {
			e->depth = names[i].depth;
		}
		e->refs += names[i].count;
	}
	mi_buf_release(&path);
}

static void free_names(pk_name *names, size_t nn)
{
	for (size_t i = 0; i < nn; i++)
		free(names[i].name);
	free(names);
}

/* Call sites of a target symbol, each as a CALLER entry. */
static void add_callers(pack *k, const pk_ent *tg)
{
	int seen = 0;
	const char *name = tg->sym.name;
	if (!name || !*name)
		return;
	mi_byname it;
	const char *fp;
	size_t fl;
	mi_ref ref;
	if (mi_refs_open(k->t, name, NULL, 0, &it))
		return;
	int tfam = family(file_lang(k->t, tg->path, strlen(tg->path)));
	while (!mi_refs_next(&it, &fp, &fl, &ref)) {
		if (ref.kind != MI_REF_CALL || ref.caller_idx < 0)
			continue;
		if (seen >= PK_MAX_CALLERS || k->n >= PK_MAX_CANDS) {
			k->unread_calls++; /* said in the summary, never dropped silently */
			continue;
		}
		char *fpath = mi_xstrndup(fp, fl);
		mi_symbol cs;
		pk_ent *e = find_ent(k, fpath, (uint32_t)ref.caller_idx, PK_CALLER);
		if (e) {
			e->refs++; /* one line per caller, at its first call */
		} else if (family(file_lang(k->t, fp, fl)) == tfam &&
			   !is_target(k, fpath, (uint32_t)ref.caller_idx) &&
			   !mi_q_load_sym(k->t, fp, fl, (uint32_t)ref.caller_idx, &cs, &k->arena)) {
			e = add_ent(k, fp, fl, (uint32_t)ref.caller_idx, &cs, PK_CALLER, 1);
			e->refs = 1;
			e->line = ref.line;
			seen++;
		}
		free(fpath);
	}
	mi_byname_close(&it);
}

/* A function defined by assignment to the dotted name the target spells
 * (JavaScript's `res.send = function send(body)`): its parent is empty,
 * its signature starts with the name. */
static bool assigned_as(const mi_symbol *s, const char *item)
{
	size_t n = strlen(item);
	const char *sig = s->sig ? s->sig : "";
	return (!s->parent || !*s->parent) && !strncmp(sig, item, n) &&
	       (sig[n] == ' ' || sig[n] == '=');
}

/* Best definition of NAME or Parent.NAME as a TARGET entry. */
static int add_symbol_target(pack *k, const char *item)
{
	const char *name = item, *dot = strrchr(item, '.'), *colons = NULL;
	for (const char *c = item; (c = strstr(c, "::")); c += 2)
		colons = c;
	size_t plen = 0;
	if (colons && (!dot || colons > dot)) {
		plen = (size_t)(colons - item);
		name = colons + 2;
	} else if (dot && dot > item && dot[1]) {
		plen = (size_t)(dot - item);
		name = dot + 1;
	}
	int best = 1 << 30;
	mi_buf bpath = {0};
	uint32_t bidx = 0;
	mi_symbol bs;
	mi_byname it;
	if (mi_names_open(k->t, name, NULL, 0, &it) == 0) {
		const char *fp;
		size_t fl;
		uint32_t si;
		while (!mi_names_next(&it, &fp, &fl, &si)) {
			mi_symbol s;
			if (mi_q_load_sym(k->t, fp, fl, si, &s, &k->arena))
				continue;
			if (plen) {
				size_t sl = strlen(s.parent);
				if ((sl < plen || memcmp(s.parent + sl - plen, item, plen) ||
				     (sl > plen && s.parent[sl - plen - 1] != '.' &&
				      s.parent[sl - plen - 1] != ':')) &&
				    !assigned_as(&s, item))
					continue;
			}
			char *fpath = mi_xstrndup(fp, fl);
			int rank = (s.kind == MI_KIND_PROTOTYPE ? 40 : 0) + (mi_path_testlike(fpath, strlen(fpath)) ? 20 : 0) +
				   (is_overload_stub(&s) ? 30 : 0) +
				   (s.vis == MI_VIS_PRIVATE ? 5 : 0) + (3 - kind_weight(s.kind));
			if (rank < best) {
				best = rank;
				mi_buf_reset(&bpath);
				mi_buf_add(&bpath, fp, fl);
				bidx = si;
				bs = s;
			}
			free(fpath);
		}
		mi_byname_close(&it);
	}
	int rc = 0;
	if (best < (1 << 30)) {
		if (!find_ent(k, bpath.buf, bidx, PK_TARGET))
			add_ent(k, bpath.buf, bpath.len, bidx, &bs, PK_TARGET, 0);
	} else {
		if (!k->err.len)
			mi_buf_addf(&k->err, "No symbol or file named '%s' in the index. Give a symbol "
				    "(NAME or Parent.NAME) or a repo-relative path; search_code finds names "
				    "from a description.", item);
		rc = MI_ERR_NOTFOUND;
	}
	mi_buf_release(&bpath);
	return rc;
}

/* A changed symbol as a target: the definition of name in path whose
 * parent is parent. */
static void add_exact_target(pack *k, const char *path, const char *parent, const char *name)
{
	size_t pl = strlen(path);
	mi_byname it;
	if (mi_names_open(k->t, name, path, pl, &it) == 0) {
		const char *fp;
		size_t fl;
		uint32_t si;
		while (!mi_names_next(&it, &fp, &fl, &si)) {
			mi_symbol s;
			if (mi_q_load_sym(k->t, path, pl, si, &s, &k->arena) || strcmp(s.parent, parent))
				continue;
			if (!find_ent(k, path, si, PK_TARGET))
				add_ent(k, path, pl, si, &s, PK_TARGET, 0);
			break;
		}
		mi_byname_close(&it);
	}
}

/* One target item: an indexed file, else a symbol. */
static int add_target(pack *k, const char *item)
{
	mi_buf norm = {0};
	const void *v;
	size_t vl;
	int rc;
	if (!mi_path_normalize(item, &norm) && norm.len &&
	    !mi_get(k->t, MI_DB_FILES, norm.buf, norm.len, &v, &vl)) {
		if (!find_ent(k, norm.buf, UINT32_MAX, PK_TARGET)) {
			pk_ent *e = add_ent(k, norm.buf, norm.len, UINT32_MAX, NULL, PK_TARGET, 0);
			e->sym.name = mi_parsed_strndup(&k->arena, norm.buf, norm.len);
			e->sym.kind = MI_KIND_MODULE;
		}
		rc = 0;
	} else {
		rc = add_symbol_target(k, item);
	}
	mi_buf_release(&norm);
	return rc;
}

/* Loads the file of entry e (symbols, source) into p; src points into the map. */
static int load(pack *k, const char *path, mi_file_rec *rec, const char **src, size_t *len,
		mi_parsed *p)
{
	mi_parsed_init(p);
	return mi_q_load_file(k->t, path, NULL, rec, src, len, p);
}

/* The text of a target: the symbol expanded (doc comment, body, V* lines),
 * or the file's full view; folded to its outline when over its share. */
static void render_target(pack *k, pk_ent *e, size_t room)
{
	mi_file_rec rec;
	const char *src;
	size_t len;
	mi_parsed p;
	mi_out o = {0};
	size_t share = room;
	if (load(k, e->path, &rec, &src, &len, &p)) {
		mi_parsed_release(&p);
		return;
	}
	if (e->idx == UINT32_MAX) {
		mi_view_opts vo = {.mode = "full", .max_tokens = SIZE_MAX / 4};
		mi_render_view(e->path, src, len, &p, &vo, &o);
		if (mi_token_estimate(o.text.buf ? o.text.buf : "", o.text.len) > share) {
			vo.mode = "outline";
			vo.all = true;
			mi_render_view(e->path, src, len, &p, &vo, &o);
			e->folded = true;
		}
	} else {
		char sel[32];
		snprintf(sel, sizeof(sel), "line:%u", e->sym.start_line);
		mi_render_expand(e->path, src, len, &p, sel, "all", NULL, &o);
		if (o.is_error || mi_token_estimate(mi_buf_str(&o.text), o.text.len) > share) {
			mi_buf_reset(&o.text);
			if (e->idx < p.nsyms)
				mi_render_line(e->path, src, len, &p, e->idx, &o.text);
			e->folded = true;
		}
	}
	e->text = mi_buf_detach(&o.text);
	if (!e->text)
		e->text = mi_xstrdup("");
	mi_out_release(&o);
	mi_file_rec_release(&rec);
	mi_parsed_release(&p);
}

/* The one-line text of a USES entry: its folded outline line and where it
 * is ("F> def total() { ... }  :25 in Cart"). */
static void render_use(pack *k, pk_ent *e)
{
	const void *v;
	size_t vl;
	mi_parsed p;
	mi_buf b = {0};
	mi_parsed_init(&p);
	size_t pl = strlen(e->path);
	p.lang = file_lang(k->t, e->path, pl);
	if (p.lang < 0)
		p.lang = MI_LANG_NONE;
	const char *src = "";
	size_t len = 0;
	if (!mi_get(k->t, MI_DB_SRC, e->path, pl, &v, &vl)) {
		src = v;
		len = vl;
	}
	/* the symbol and its parent: what its outline line depends on */
	mi_symbol par;
	bool has_par = e->sym.parent_idx >= 0 &&
		       !mi_q_load_sym(k->t, e->path, pl, (uint32_t)e->sym.parent_idx, &par, &p);
	if (has_par) {
		*mi_parsed_add_sym(&p) = par;
		p.syms[0].parent_idx = -1;
	}
	mi_symbol *s = mi_parsed_add_sym(&p);
	*s = e->sym;
	s->parent_idx = has_par ? 0 : -1;
	mi_render_line(e->path, src, len, &p, p.nsyms - 1, &b);
	if (b.len && b.buf[b.len - 1] == '\n')
		b.len--;
	mi_buf_addf(&b, "  :%u", e->sym.start_line);
	if (e->sym.parent && *e->sym.parent)
		mi_buf_addf(&b, " in %s", e->sym.parent);
	mi_buf_addc(&b, '\n');
	e->text = mi_buf_detach(&b);
	mi_parsed_release(&p);
}

static void render_caller(pk_ent *e)
{
	mi_buf b = {0};
	mi_buf_addf(&b, "V* called by %s  %s:%u", e->sym.name ? e->sym.name : "?", e->path, e->line);
	if (e->refs > 1)
		mi_buf_addf(&b, " (%u calls)", e->refs);
	mi_buf_addc(&b, '\n');
	e->text = mi_buf_detach(&b);
}

/* Rank order: targets, then by score, kind weight, path, line, role. */
static int ent_cmp(const void *a, const void *b)
{
	const pk_ent *x = a, *y = b;
	if ((x->role == PK_TARGET) != (y->role == PK_TARGET))
		return x->role == PK_TARGET ? -1 : 1;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	int c = strcmp(x->path, y->path);
	if (c)
		return c;
	if (x->sym.start_line != y->sym.start_line)
		return x->sym.start_line < y->sym.start_line ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->role - y->role;
}

/* Output order: targets, then uses grouped by file (files in rank order of
 * their first entry), then callers, each group in rank order. */
static int path_rank(const pack *k, const char *path)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->e[i].in && k->e[i].role != PK_CALLER && !strcmp(k->e[i].path, path))
			return (int)i;
	return (int)k->n;
}

static size_t header_tokens(const char *path)
{
	char h[1100];
	int n = snprintf(h, sizeof(h), "== %s\n", path);
	return mi_token_estimate(h, n > 0 && (size_t)n < sizeof(h) ? (size_t)n : 0);
}

static void put_json_ent(mi_buf *j, const pk_ent *e, bool first)
{
	if (!first)
		mi_buf_addc(j, ',');
	mi_buf_addf(j, "{\"role\":\"%s\",\"name\":", role_name[e->role]);
	const char *nm = e->sym.name ? e->sym.name : "";
	mi_buf_add_json_str(j, nm, strlen(nm));
	mi_buf_addf(j, ",\"kind\":\"%s\",\"path\":", mi_kind_name(e->sym.kind));
	mi_buf_add_json_str(j, e->path, strlen(e->path));
	mi_buf_addf(j, ",\"line\":%u", e->role == PK_CALLER ? e->line : e->sym.start_line);
	if (e->role != PK_CALLER)
		mi_buf_addf(j, ",\"end_line\":%u", e->sym.end_line);
	mi_buf_addf(j, ",\"depth\":%d,\"refs\":%u}", e->depth, e->refs);
}

/* Writes the pack's text into x (reset first): targets and uses grouped
 * by file, a header line per file only when several; callers; the summary
 * line with the token count and what was left out.  Returns its tokens. */
static size_t build_text(pack *k, size_t ntargets, mi_buf *x)
{
	mi_buf_reset(x);
	/* text: grouped by file; a header line per file only when several */
	size_t nfiles = 0;
	for (size_t i = 0; i < k->n; i++)
		if (k->e[i].in && k->e[i].role != PK_CALLER && path_rank(k, k->e[i].path) == (int)i)
			nfiles++;
	size_t nuses = 0, ncallers = 0, lout_uses = 0, lout_callers = 0, lout_targets = 0;
	for (int pass = 0; pass < 2; pass++) {
		/* pass 0: targets and uses by file; pass 1: callers */
		for (size_t f = 0; f < k->n; f++) {
			pk_ent *h = &k->e[f];
			if (!h->in || (pass == 0 && (h->role == PK_CALLER || path_rank(k, h->path) != (int)f)))
				continue;
			if (pass == 1) {
				if (h->role == PK_CALLER) {
					mi_buf_adds(x, h->text);
					ncallers++;
				}
				continue;
			}
			if (nfiles > 1)
				mi_buf_addf(x, "== %s\n", h->path);
			for (size_t i = f; i < k->n; i++) {
				pk_ent *e = &k->e[i];
				if (!e->in || e->role == PK_CALLER || strcmp(e->path, h->path))
					continue;
				mi_buf_adds(x, e->text);
				nuses += e->role == PK_USES;
			}
		}
	}
	mi_buf left = {0};
	size_t shown_left = 0;
	for (size_t i = 0; i < k->n; i++) {
		pk_ent *e = &k->e[i];
		if (e->in)
			continue;
		if (e->role == PK_TARGET) {
			lout_targets++;
		} else if (e->role == PK_USES) {
			lout_uses++;
			if (shown_left++ < 6)
				mi_buf_addf(&left, "%s%s", left.len ? ", " : "", e->sym.name);
		} else {
			lout_callers++;
		}
	}
	mi_buf summary = {0};
	for (int round = 0; round < 2; round++) {
		size_t body = mi_token_estimate(mi_buf_str(x), x->len);
		size_t total = body + mi_token_estimate(mi_buf_str(&summary), summary.len);
		mi_buf_reset(&summary);
		mi_buf_addf(&summary, "V* pack: %zu tokens of %zu; %zu target%s, %zu uses, %zu callers",
			    total, k->budget, ntargets - lout_targets,
			    ntargets - lout_targets == 1 ? "" : "s", nuses, ncallers);
		if (lout_uses || lout_callers || lout_targets || k->unread_calls) {
			const char *sep = "";
			mi_buf_adds(&summary, "; left out:");
			if (lout_targets) {
				mi_buf_addf(&summary, " %zu target%s", lout_targets,
					    lout_targets == 1 ? "" : "s");
				sep = ",";
			}
			if (lout_uses) {
				mi_buf_addf(&summary, "%s %zu uses (%s%s)", sep, lout_uses,
					    mi_buf_str(&left), lout_uses > 6 ? ", ..." : "");
				sep = ",";
			}
			if (lout_callers) {
				mi_buf_addf(&summary, "%s %zu callers", sep, lout_callers);
				sep = ",";
			}
			if (k->unread_calls)
				mi_buf_addf(&summary, "%s %zu more call sites (find_references "
					    "pages through them)", sep, k->unread_calls);
			mi_buf_adds(&summary, "; raise budget_tokens for them");
		}
		if (k->unread_files)
			mi_buf_addf(&summary, "; changed files past the first 5000 with changes: "
				    "%zu more not compared (narrow since to A..B)",
				    k->unread_files);
		for (size_t i = 0; i < k->n; i++)
			if (k->e[i].role == PK_TARGET && k->e[i].folded && k->e[i].in) {
				mi_buf_adds(&summary, "; a target body over budget is folded: expand_at shows it");
				break;
			}
		mi_buf_addc(&summary, '\n');
	}
	mi_buf_add(x, summary.buf, summary.len);
	mi_buf_release(&left);
	mi_buf_release(&summary);
	return mi_token_estimate(mi_buf_str(x), x->len);
}

int mi_query_pack(mi_query *q, const mi_pack_opts *po, mi_out *out)
{
	mi_out_reset(out);
	if (!po || ((!po->target || !*po->target) && !po->since))
		return mi_out_error(out, MI_ERR_ARG, "Missing required argument: target "
				    "(a symbol NAME or Parent.NAME, a repo-relative file, or several "
				    "separated by commas)");
	if (po->budget_tokens && po->budget_tokens < 100)
		return mi_out_error(out, MI_ERR_ARG, "budget_tokens must be at least 100, not %zu",
				    po->budget_tokens);
	if (po->depth < 0 || po->depth > 2)
		return mi_out_error(out, MI_ERR_ARG, "depth must be 1 or 2, not %d", po->depth);
	pack k;
	memset(&k, 0, sizeof(k));
	k.budget = po->budget_tokens ? po->budget_tokens : 4000;
	k.depth = po->depth ? po->depth : 1;
	int rc = mi_txn_begin(q->st, false, &k.t);
	if (rc)
		return mi_out_error(out, rc, "Cannot read index %s: %s", q->path, mi_strerror(rc));
	mi_parsed_init(&k.arena);

	/* targets: the changed symbols, and those named */
	if (po->since) {
		mi_diff_opts d = *po->since;
		mi_buf list = {0};
		mi_out tmp = {0};
		d.targets = &list;
		d.unread = &k.unread_files;
		rc = mi_query_changed(q, &d, &tmp);
		if (rc || tmp.is_error) {
			mi_buf_add(&k.err, tmp.text.buf ? tmp.text.buf : "", tmp.text.len);
			if (!k.err.len)
				mi_buf_adds(&k.err, "cannot list the changed symbols");
		}
		for (char *line = list.buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			if (nl)
				*nl = 0;
			char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
			if (!t2)
				continue;
			*t1 = *t2 = 0;
			add_exact_target(&k, line, t1 + 1, t2 + 1);
		}
		mi_buf_release(&list);
		mi_out_release(&tmp);
		if (!k.err.len && !k.n && (!po->target || !*po->target))
			mi_buf_addf(&k.err, "No symbol changed since %s: nothing to pack",
				    po->since->since && *po->since->since ? po->since->since :
				    "the index was built");
	}
	char *items = mi_xstrdup(po->target ? po->target : "");
	for (char *save = NULL, *it = strtok_r(items, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
		while (*it == ' ')
			it++;
		size_t il = strlen(it);
		while (il && it[il - 1] == ' ')
			it[--il] = 0;
		if (*it && add_target(&k, it))
			break;
	}
	free(items);
	if (!k.err.len && !k.n)
		/* ",,," names nothing: a pack of nothing is no answer */
		mi_buf_adds(&k.err, "Give a target (a symbol, Parent.symbol or a file): "
			    "the target names nothing");
	if (k.err.len) {
		rc = mi_out_error(out, MI_ERR_NOTFOUND, "%s", k.err.buf);
		goto out_free;
	}
	size_t ntargets = k.n;

	/* what the targets use, one hop, then two */
	pk_name *names = NULL;
	size_t nn = 0, ncap = 0;
	for (size_t i = 0; i < ntargets; i++) {
		pk_ent *e = &k.e[i];
		if (e->idx == UINT32_MAX)
			collect_refs(&k, e->path, 0, 0, 1, &names, &nn, &ncap);
		else
			collect_refs(&k, e->path, e->sym.start_line, e->sym.end_line, 1, &names, &nn, &ncap);
	}
	add_uses(&k, names, nn);
	free_names(names, nn);
	if (k.depth > 1) {
		size_t first = ntargets, last = k.n, followed = 0;
		names = NULL;
		nn = ncap = 0;
		for (size_t i = first; i < last && followed < PK_DEPTH2_FROM; i++) {
			pk_ent *e = &k.e[i];
			if (e->sym.kind != MI_KIND_FUNCTION && e->sym.kind != MI_KIND_METHOD)
				continue;
			followed++;
			collect_refs(&k, e->path, e->sym.start_line, e->sym.end_line, 2, &names, &nn, &ncap);
		}
		add_uses(&k, names, nn);
		free_names(names, nn);
	}
	for (size_t i = 0; i < ntargets; i++)
		if (k.e[i].idx != UINT32_MAX)
			add_callers(&k, &k.e[i]);

	/* rank */
	for (size_t i = 0; i < k.n; i++) {
		pk_ent *e = &k.e[i];
		if (e->role == PK_USES)
			e->score = (double)kind_weight(e->sym.kind) * e->refs / e->depth;
		else if (e->role == PK_CALLER)
			e->score = 0.75 - (mi_path_testlike(e->path, strlen(e->path)) ? 0.5 : 0);
	}
	qsort(k.e, k.n, sizeof(*k.e), ent_cmp);

	/* fill to the budget, at symbol boundaries; the targets expanded take at
	 * most their share of it together, folded past that */
	size_t cap = (size_t)(k.budget * PK_SAFETY), used = 24; /* the summary line */
	size_t share = (size_t)(cap * PK_TARGET_SHARE);
	for (size_t i = 0; i < k.n; i++) {
		pk_ent *e = &k.e[i];
		if (e->role == PK_TARGET)
			render_target(&k, e, share > used ? share - used : 0);
		else if (e->role == PK_USES)
			render_use(&k, e);
		else
			render_caller(e);
		e->tokens = mi_token_estimate(e->text, strlen(e->text));
		size_t extra = 0;
		if (e->role != PK_CALLER && path_rank(&k, e->path) == (int)k.n)
			extra = header_tokens(e->path);
		if (used + e->tokens + extra <= cap) {
			e->in = true;
			used += e->tokens + extra;
		}
	}

	/* the estimate of the whole text decides: drop the lowest ranked until
	 * it fits (the summary line grows with what was left out) */
	mi_buf *x = &out->text, *j = &out->json;
	size_t tokens = build_text(&k, ntargets, x);
	for (size_t i = k.n; tokens > k.budget && i-- > 0;) {
		if (!k.e[i].in || (k.e[i].role == PK_TARGET && i == 0))
			continue;
		k.e[i].in = false;
		tokens = build_text(&k, ntargets, x);
	}

	mi_buf_adds(j, "{\"target\":");
	mi_buf_add_json_str(j, po->target ? po->target : "", po->target ? strlen(po->target) : 0);
	mi_buf_addf(j, ",\"budget_tokens\":%zu,\"depth\":%d,\"tokens\":%zu,\"entries\":[", k.budget,
		    k.depth, tokens);
	bool first = true;
	for (size_t i = 0; i < k.n; i++)
		if (k.e[i].in) {
			put_json_ent(j, &k.e[i], first);
			first = false;
		}
	/* left_out, best ranked first, only while the structured form stays
	 * within the budget beside the text it repeats; the rest is counted in
	 * left_out_total (the text's summary line says what was left out) */
	size_t ttok = mi_token_estimate(mi_buf_str(x), x->len), nleft = 0;
	bool full = false;
	mi_buf_adds(j, "],\"left_out\":[");
	first = true;
	for (size_t i = 0; i < k.n; i++) {
		if (k.e[i].in)
			continue;
		nleft++;
		if (full)
			continue;
		size_t mark = j->len;
		put_json_ent(j, &k.e[i], first);
		if (mi_token_estimate(j->buf, j->len) + ttok + 16 > k.budget) {
			j->len = mark; /* drop it and list no more */
			j->buf[mark] = 0;
			full = true;
			continue;
		}
		first = false;
	}
	mi_buf_addf(j, "],\"left_out_total\":%zu,", nleft);
	if (k.unread_files)
		mi_buf_addf(j, "\"truncated\":true,\"files_not_compared\":%zu,", k.unread_files);
	mi_buf_adds(j, "\"text\":");
	/* the rows beside the text may take the structured form over the
	 * budget: its copy of the text is then cut at a line (the text content
	 * holds the whole pack) and says so */
	size_t head = j->len, htok = mi_token_estimate(j->buf, j->len);
	mi_buf_add_json_str(j, mi_buf_str(x), x->len);
	if (x->len && mi_token_estimate(j->buf, j->len) > k.budget) {
		/* keep the summary line (the last), cut the lines before it */
		size_t s = x->len - 1;
		while (s > 0 && x->buf[s - 1] != '\n')
			s--;
		size_t stok = mi_token_estimate(x->buf + s, x->len - s);
		size_t room = k.budget > htok + stok + 24 ? k.budget - htok - stok - 24 : 0;
		size_t n = 0;
		for (size_t i = 0; i < s; i++)
			if (x->buf[i] == '\n') {
				if (mi_token_estimate(x->buf, i + 1) > room)
					break;
				n = i + 1;
			}
		mi_buf cut = {0};
		mi_buf_add(&cut, x->buf, n);
		mi_buf_add(&cut, x->buf + s, x->len - s);
		j->len = head;
		j->buf[head] = 0;
		mi_buf_add_json_str(j, mi_buf_str(&cut), cut.len);
		mi_buf_adds(j, ",\"text_cut\":true");
		mi_buf_release(&cut);
	}
	mi_buf_addc(j, '}');
	rc = 0;
out_free:
	for (size_t i = 0; i < k.n; i++) {
		free(k.e[i].path);
		free(k.e[i].text);
	}
	free(k.e);
	mi_buf_release(&k.err);
	mi_parsed_release(&k.arena);
	mi_txn_abort(k.t);
	return rc;
}
