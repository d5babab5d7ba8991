/*
 * research.c - code_research: multi-hop answers over the reference graph.
 * Callers of callers (flow), implementations of a trait/interface/protocol
 * (patterns, architecture), and the module dependency map (dependencies),
 * each as nodes, edges and a folded text summary.
 */
#include "query_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODES 300

typedef struct rnode {
	char *name;      /* symbol or module name */
	char *path;      /* file, "" for modules outside the index */
	uint32_t line;   /* 1-based, 0 unknown */
	int depth;       /* hops from a target */
	int kind;        /* mi_kind, MI_KIND_MODULE for files */
} rnode;

typedef struct redge {
	int from, to;    /* node indexes */
	const char *kind;/* "calls", "implements", "imports" */
} redge;

typedef struct graph {
	rnode *n; size_t nn, capn;
	redge *e; size_t ne, cape;
	bool truncated;  /* MAX_NODES reached */
} graph;

static int node_find(graph *g, const char *name, const char *path)
{
	for (size_t i = 0; i < g->nn; i++)
		if (!strcmp(g->n[i].name, name) && !strcmp(g->n[i].path, path))
			return (int)i;
	return -1;
}

static int node_add(graph *g, const char *name, const char *path, uint32_t line,
		    int depth, int kind, bool *fresh)
{
	int i = node_find(g, name, path);
	*fresh = false;
	if (i >= 0)
		return i;
	if (g->nn >= MAX_NODES) {
		g->truncated = true;
		return -1;
	}
	if (g->nn == g->capn) {
		g->capn = g->capn ? g->capn * 2 : 32;
		g->n = mi_xrealloc(g->n, g->capn * sizeof(*g->n));
	}
	rnode *r = &g->n[g->nn];
	r->name = mi_xstrdup(name);
	r->path = mi_xstrdup(path);
	r->line = line;
	r->depth = depth;
	r->kind = kind;
	*fresh = true;
	return (int)g->nn++;
}

static void edge_add(graph *g, int from, int to, const char *kind)
{
	if (from < 0 || to < 0)
		return;
	for (size_t i = 0; i < g->ne; i++)
		if (g->e[i].from == from && g->e[i].to == to && !strcmp(g->e[i].kind, kind))
			return;
	if (g->ne == g->cape) {
		g->cape = g->cape ? g->cape * 2 : 32;
		g->e = mi_xrealloc(g->e, g->cape * sizeof(*g->e));
	}
	g->e[g->ne++] = (redge){from, to, kind};
}

static void graph_release(graph *g)
{
	for (size_t i = 0; i < g->nn; i++) {
		free(g->n[i].name);
		free(g->n[i].path);
	}
	free(g->n);
	free(g->e);
}

/* The definition of name goto_definition would show first
 * (mi_q_def_rank): fills
 * path/line/kind.  Ranked from the names entries; only the one chosen is
 * decoded.  false if none. */
static bool find_def(mi_txn *t, const char *name, mi_buf *path, uint32_t *line,
		     int *kind, mi_parsed *arena)
{
	mi_byname it;
	bool found = false;
	uint32_t best_idx = 0, best_fid = 0;
	const char *fp0;
	size_t fl0;
	/* A name defined in many files: its best rank is known, and the
	 * first definition of it (entries come in file order) is the one. */
	size_t by_rank[MI_Q_DEF_RANKS];
	int known = -1;
	if (mi_q_def_counts(t, name, by_rank))
		for (known = 0; known < MI_Q_DEF_RANKS - 1 && !by_rank[known]; known++)
			;
	if (!mi_names_open(t, name, NULL, 0, &it)) {
		int best = 1 << 30;
		const char *fp;
		size_t fl;
		uint32_t idx;
		it.nopath = true; /* only the one chosen needs its path */
		while (best != known && !mi_names_next(&it, &fp, &fl, &idx)) {
			int rank = mi_q_def_rank(it.kind, it.vis, it.testlike);
			if (rank < best) {
				best = rank;
				best_fid = it.fid;
				best_idx = idx;
				found = true;
			}
		}
		mi_byname_close(&it);
	}
	mi_symbol s;
	if (!found || mi_q_fid_path(t, best_fid, &fp0, &fl0))
		return false;
	mi_buf_reset(path);
	mi_buf_add(path, fp0, fl0);
	if (mi_q_load_sym(t, path->buf, path->len, best_idx, &s, arena))
		return false;
	*line = s.start_line;
	*kind = s.kind;
	return true;
}

/* Files that stand for a module named NAME, by the languages' own rules. */
static const char *const module_files[] = {
	"%s/__init__.py", "%s.py", "%s/index.js", "%s/index.ts", "%s.js", "%s.ts",
	"%s/mod.rs", "%s.rs", "%s.rb", "%s.h", "%s.go", NULL,
};

/*
 * A module named name: an indexed file that stands for it (json ->
 * json/__init__.py), else a module some file imports by exactly that name
 * (path left empty).  false when neither exists.
 */
static bool find_module(mi_txn *t, const char *name, mi_buf *path)
{
	const void *v;
	size_t vl;
	mi_buf_reset(path);
	for (int i = 0; module_files[i]; i++) {
		mi_buf_reset(path);
		mi_buf_addf(path, module_files[i], name);
		if (!mi_get(t, MI_DB_FILES, path->buf, path->len, &v, &vl))
			return true;
	}
	mi_buf_reset(path);
	mi_byname it;
	bool found = false;
	if (!mi_refs_open(t, name, NULL, 0, &it)) {
		int seen = 0;
		const char *fp;
		size_t fl;
		mi_ref ref;
		while (!found && seen++ < 2000 && !mi_refs_next(&it, &fp, &fl, &ref))
			found = ref.kind == MI_REF_IMPORT;
		mi_byname_close(&it);
	}
	return found;
}

/*
 * The indexed file an import in file `from` names: the path as written, a
 * Python relative module (.decoder, ..util) beside or above `from`, or a
 * module's own file (find_module).  false, with *file empty, when the
 * module is outside the index.
 */
static bool resolve_import(mi_txn *t, const char *from, const char *mod, mi_buf *file)
{
	const void *v;
	size_t vl;
	mi_buf_reset(file);
	if (!mi_get(t, MI_DB_FILES, mod, strlen(mod), &v, &vl)) {
		mi_buf_adds(file, mod);
		return true;
	}
	if (mod[0] != '.')
		return find_module(t, mod, file);
	/* One dot is the importing file's folder, each further dot its parent. */
	const char *end = strrchr(from, '/');
	size_t dl = end ? (size_t)(end - from) : 0;
	const char *p = mod + 1;
	for (; *p == '.'; p++) {
		while (dl && from[dl - 1] != '/')
			dl--;
		if (dl)
			dl--;
	}
	mi_buf rel = {0};
	mi_buf_add(&rel, from, dl);
	if (dl && *p)
		mi_buf_addc(&rel, '/');
	for (; *p; p++)
		mi_buf_addc(&rel, *p == '.' ? '/' : *p);
	bool found = rel.len && find_module(t, rel.buf, file);
	mi_buf_release(&rel);
	return found;
}

/* Language family of an indexed file: C and C++ call each other, and so do
 * JavaScript, TypeScript and TSX; -1 when unknown. */
static int lang_family(mi_txn *t, const char *path, size_t pl)
{
	const void *v;
	size_t vl;
	mi_file_rec f;
	if (mi_get(t, MI_DB_FILES, path, pl, &v, &vl) || mi_file_decode(v, vl, &f))
		return -1;
	int l = f.lang;
	mi_file_rec_release(&f);
	if (l == MI_LANG_CPP)
		return MI_LANG_C;
	if (l == MI_LANG_TYPESCRIPT || l == MI_LANG_TSX)
		return MI_LANG_JAVASCRIPT;
	return l;
}

/* true if path defines name itself (a call there most likely means the
 * local definition, not one in another file). */
static bool defines_locally(mi_txn *t, const char *name, const char *path, size_t pl)
{
	return mi_names_in(t, name, path, pl);
}

/*
 * Edges into `name` of ref kind rk: for each reference, the enclosing
 * symbol becomes a node one hop further.  A reference from a file that
 * has its own definition of the name is taken to mean that one, unless
 * the target is in that file.
 */
static void expand_refs(mi_txn *t, graph *g, int target, int rk, const char *ekind,
			int depth, mi_parsed *arena)
{
	const char *name = g->n[target].name;
	mi_byname it;
	if (mi_refs_open(t, name, NULL, 0, &it))
		return;
	int seen = 0;
	const char *tp = g->n[target].path;
	int tfam = tp[0] ? lang_family(t, tp, strlen(tp)) : -1;
	char *last = NULL;
	bool last_skip = false;
	const char *fp;
	size_t fl;
	mi_ref ref;
	while (seen < 2000 && !mi_refs_next(&it, &fp, &fl, &ref)) {
		seen++;
		if (ref.kind != rk)
			continue;
		/* References come grouped by file: decide once a file whether its
		 * calls mean another definition, or another language. */
		if (!last || strlen(last) != fl || memcmp(last, fp, fl)) {
			free(last);
			last = mi_xstrndup(fp, fl);
			last_skip = tp[0] && strcmp(tp, last) &&
				    (defines_locally(t, name, fp, fl) ||
				     (tfam >= 0 && lang_family(t, fp, fl) != tfam));
		}
		if (last_skip && rk != MI_REF_IMPORT)
			continue;
		bool fresh;
		int from;
		if (ref.caller_idx >= 0) {
			mi_symbol s;
			if (mi_q_load_sym(t, fp, fl, (uint32_t)ref.caller_idx, &s, arena))
				continue;
			from = node_add(g, s.name, last, s.start_line, depth, s.kind, &fresh);
		} else {
			from = node_add(g, last, last, ref.line, depth, MI_KIND_MODULE, &fresh);
		}
		edge_add(g, from, target, ekind);
	}
	free(last);
	mi_byname_close(&it);
}

/* Import edges of one file: file -> imported module (and the indexed file
 * that module names, when one matches by base name). */
static void expand_imports(mi_txn *t, graph *g, int file_node, int depth, mi_parsed *arena)
{
	const char *path = g->n[file_node].path;
	mi_buf file = {0};
	mi_frefs fr;
	const void *vp;
	size_t vl;
	if (mi_frefs_open(t, path, strlen(path), &fr))
		return;
	while (!mi_frefs_next(&fr, &vp, &vl, NULL)) {
		mi_ref ref;
		if (mi_ref_decode(vp, vl, &ref, arena) || ref.kind != MI_REF_IMPORT)
			continue;
		/* Strip quotes and <> of includes. */
		const char *m = ref.callee;
		size_t ml = strlen(m);
		while (ml && (*m == '"' || *m == '<' || *m == '\'')) {
			m++;
			ml--;
		}
		while (ml && (m[ml - 1] == '"' || m[ml - 1] == '>' || m[ml - 1] == '\''))
			ml--;
		char *mod = mi_xstrndup(m, ml);
		bool fresh;
		int to;
		if (resolve_import(t, path, mod, &file))
			to = node_add(g, mod, file.buf, 0, depth, MI_KIND_MODULE, &fresh);
		else
			to = node_add(g, mod, "", 0, depth, MI_KIND_MODULE, &fresh);
		edge_add(g, file_node, to, "imports");
		free(mod);
	}
	mi_buf_release(&file);
}

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

static const char *const stop[] = {
	"what", "calls", "call", "callers", "of", "the", "all", "implementations",
	"implementation", "implements", "who", "where", "is", "used", "uses", "and",
	"a", "an", "to", "in", "for", "how", "does", "do", "which", "flow", "find",
	"show", "me", "dependencies", "depends", "on", "module", "modules", NULL,
};

static bool is_stop(const char *w)
{
	for (int i = 0; stop[i]; i++)
		if (!strcasecmp(stop[i], w))
			return true;
	return false;
}

/* Is the word s (n bytes, inside query) written as code: with '_', '/',
 * '.', '$' or a digit inside, in mixed case with a capital after its
 * first letter (dnsPacket, HTTPServer) or a capital first letter anywhere
 * but at the query's start (Reader), or with "()" after it?  An acronym
 * of prose (DNS, HTTP) is not. */
static bool looks_like_code(const char *query, const char *s, size_t n)
{
	bool lower = false, upper_inside = false;
	while (n && s[n - 1] == '.')
		n--;
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '_' || s[i] == '/' || s[i] == '.' || s[i] == '$' ||
		    (i && isdigit((unsigned char)s[i])))
			return true;
		lower |= islower((unsigned char)s[i]) != 0;
		upper_inside |= i && isupper((unsigned char)s[i]);
	}
	if (lower && (upper_inside || (isupper((unsigned char)s[0]) && s != query)))
		return true;
	return s[n] == '(' && s[n + 1] == ')';
}

int mi_query_research(mi_query *q, const char *query, int depth, const char *focus,
		      mi_out *out)
{
	return mi_query_research_hops(q, query, depth, focus, NULL, NULL, out);
}

int mi_query_research_hops(mi_query *q, const char *query, int depth,
			   const char *focus, mi_query_hop_fn hop_fn, void *ctx,
			   mi_out *out)
{
	mi_out_reset(out);
	if (!query || !*query)
		return mi_out_error(out, MI_ERR_ARG, "Missing required argument: query "
				    "(e.g. \"what calls parse_config\" or \"implementations of Reader\")");
	if (depth < 1 || depth > 5)
		return mi_out_error(out, MI_ERR_ARG, "depth must be 1 to 5, not %d", depth);
	static const char *const focuses[] = {"architecture", "dependencies", "patterns", "flow", NULL};
	if (focus && *focus) {
		bool ok = false;
		for (int i = 0; focuses[i]; i++)
			ok |= !strcmp(focus, focuses[i]);
		if (!ok)
			return mi_out_error(out, MI_ERR_ARG, "focus must be architecture, dependencies, "
					    "patterns or flow, not \"%s\"", focus);
	} else {
		focus = NULL;
	}
	bool want_impl = strstr(query, "implement") || strstr(query, "conform") ||
			 (focus && (!strcmp(focus, "patterns") || !strcmp(focus, "architecture")));
	bool want_calls = !focus || !strcmp(focus, "flow") || !strcmp(focus, "architecture") ||
			  strstr(query, "call");
	bool want_deps = (focus && !strcmp(focus, "dependencies")) || strstr(query, "depend") ||
			 strstr(query, "import");
	if (strstr(query, "implement") && !strstr(query, "call"))
		want_calls = focus && !strcmp(focus, "flow");

	mi_txn *t;
	int rc = mi_txn_begin(q->st, false, &t);
	if (rc)
		return mi_out_error(out, rc, "Cannot read index %s: %s", q->path, mi_strerror(rc));
	mi_parsed arena;
	mi_parsed_init(&arena);
	graph g = {0};
	mi_buf path = {0}, norm = {0};

	/* Targets: identifiers of the query that name a definition, or paths.
	 * When the query writes some names as code (parse_config, dnsPacket,
	 * a path), only those: its English words ("how does the resolver
	 * pick a server") would otherwise pull in whatever definition shares
	 * their spelling.  When none of them names a definition (or the
	 * query writes none), every word is tried. */
	size_t ntargets = 0;
	bool code_only = true;
	const char *p = query;
again:
	while (*p && ntargets < 8) {
		while (*p && !is_ident_char(*p) && *p != '/' && *p != '.')
			p++;
		const char *s = p;
		while (*p && (is_ident_char(*p) || *p == '/' || *p == '.'))
			p++;
		if (p == s)
			continue;
		if (code_only && !looks_like_code(query, s, (size_t)(p - s)))
			continue;
		char *w = mi_xstrndup(s, (size_t)(p - s));
		/* trailing "()" or "." */
		size_t wl = strlen(w);
		while (wl && w[wl - 1] == '.')
			w[--wl] = 0;
		const void *fv;
		size_t fvl;
		bool fresh;
		uint32_t line;
		int kind;
		if (wl && !mi_path_normalize(w, &norm) &&
		    !mi_get(t, MI_DB_FILES, norm.buf, norm.len, &fv, &fvl)) {
			node_add(&g, norm.buf, norm.buf, 0, 0, MI_KIND_MODULE, &fresh);
			want_deps = true;
			ntargets++;
		} else if (wl && !is_stop(w) && want_deps && find_module(t, w, &path)) {
			/* A dependency question about a name means the module first
			 * (json the package, not a variable called json). */
			node_add(&g, w, path.buf ? path.buf : "", 0, 0, MI_KIND_MODULE, &fresh);
			ntargets++;
		} else if (wl && !is_stop(w)) {
			const char *name = strrchr(w, '.');
			name = name ? name + 1 : w;
			if (*name && find_def(t, name, &path, &line, &kind, &arena)) {
				node_add(&g, name, path.buf, line, 0, kind, &fresh);
				ntargets++;
			}
		}
		free(w);
	}
	if (!ntargets && code_only) {
		code_only = false;
		p = query;
		goto again;
	}
	if (!ntargets) {
		mi_txn_abort(t);
		mi_parsed_release(&arena);
		mi_buf_release(&path);
		mi_buf_release(&norm);
		graph_release(&g);
		return mi_out_error(out, MI_ERR_NOTFOUND, "No symbol or file of the index is named in \"%s\". "
				    "Name a function, class, interface or repo-relative path "
				    "(search_code finds names from a description).", query);
	}
	/* Breadth-first, one hop per level. */
	size_t level_start = 0;
	for (int d = 1; d <= depth; d++) {
		size_t level_end = g.nn;
		for (size_t i = level_start; i < level_end && !g.truncated; i++) {
			if (g.n[i].kind == MI_KIND_MODULE) {
				if (want_deps && g.n[i].path[0])
					expand_imports(t, &g, (int)i, d, &arena);
				/* A module named as a target: who imports it, too. */
				if (want_deps && g.n[i].depth == 0 && strcmp(g.n[i].name, g.n[i].path))
					expand_refs(t, &g, (int)i, MI_REF_IMPORT, "imports", d, &arena);
				continue;
			}
			if (want_impl)
				expand_refs(t, &g, (int)i, MI_REF_IMPL, "implements", d, &arena);
			if (want_calls)
				expand_refs(t, &g, (int)i, MI_REF_CALL, "calls", d, &arena);
			if (want_deps && d == 1 && g.n[i].path[0]) {
				bool fresh;
				int f = node_add(&g, g.n[i].path, g.n[i].path, 0, d, MI_KIND_MODULE, &fresh);
				edge_add(&g, (int)i, f, "defined_in");
			}
		}
		level_start = level_end;
		if (hop_fn)
			hop_fn(ctx, d, depth, g.nn);
		if (level_start == g.nn)
			break;
	}
	mi_txn_abort(t);

	/* JSON */
	mi_buf *j = &out->json, *x = &out->text;
	mi_buf_adds(j, "{\"nodes\":[");
	for (size_t i = 0; i < g.nn; i++) {
		if (i)
			mi_buf_addc(j, ',');
		mi_buf_adds(j, "{\"name\":");
		mi_buf_add_json_str(j, g.n[i].name, strlen(g.n[i].name));
		mi_buf_adds(j, ",\"path\":");
		mi_buf_add_json_str(j, g.n[i].path, strlen(g.n[i].path));
		mi_buf_addf(j, ",\"line\":%u,\"depth\":%d,\"kind\":\"%s\"}", g.n[i].line,
			    g.n[i].depth, mi_kind_name(g.n[i].kind));
	}
	mi_buf_adds(j, "],\"edges\":[");
	for (size_t i = 0; i < g.ne; i++) {
		if (i)
			mi_buf_addc(j, ',');
		mi_buf_adds(j, "{\"from\":");
		const rnode *f = &g.n[g.e[i].from], *to = &g.n[g.e[i].to];
		mi_buf_add_json_str(j, f->name, strlen(f->name));
		mi_buf_adds(j, ",\"to\":");
		mi_buf_add_json_str(j, to->name, strlen(to->name));
		mi_buf_addf(j, ",\"kind\":\"%s\"}", g.e[i].kind);
	}
	/* Text: each node under the node it points to, by depth. */
	mi_buf_addf(x, "V* research \"%s\": %zu nodes, %zu edges, depth %d%s\n", query, g.nn, g.ne,
		    depth, g.truncated ? " (truncated: narrow the query)" : "");
	for (int d = 0; d <= depth; d++) {
		for (size_t i = 0; i < g.nn; i++) {
			if (g.n[i].depth != d)
				continue;
			char mark = mi_kind_mark(g.n[i].kind);
			mi_buf_addf(x, "%c%c %*s%s", mark ? mark : 'V', mark ? '>' : '*', 2 * d, "",
				    g.n[i].name);
			if (g.n[i].path[0] && strcmp(g.n[i].path, g.n[i].name))
				mi_buf_addf(x, "  %s:%u", g.n[i].path, g.n[i].line);
			bool first = true;
			for (size_t e = 0; e < g.ne; e++) {
				if (g.e[e].from != (int)i)
					continue;
				mi_buf_addf(x, "%s%s %s", first ? "  -> " : ", ", g.e[e].kind,
					    g.n[g.e[e].to].name);
				first = false;
			}
			mi_buf_addc(x, '\n');
		}
	}
	mi_buf_adds(j, "],\"text\":");
	mi_buf_add_json_str(j, x->buf, x->len);
	mi_buf_addc(j, '}');
	graph_release(&g);
	mi_parsed_release(&arena);
	mi_buf_release(&path);
	mi_buf_release(&norm);
	return 0;
}
