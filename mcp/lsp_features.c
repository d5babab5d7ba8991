/*
 * lsp_features.c - the requests an editor asks: folding ranges and document
 * symbols from a file's symbol spans, workspace symbols, definitions and
 * references from the index.  A file's spans come from the index when the
 * editor's buffer is what was indexed (same hash), and from the indexer's
 * own parser run on the live buffer when it is not, so the ranges always
 * match the text the editor shows.
 */
#include "lsp_int.h"
#include "../indexer/indexer.h"

#include <stdlib.h>
#include <string.h>

/* ---- one file's text and spans --------------------------------------------- */

typedef struct lsp_file {
	const char *src;        /* the text the spans describe */
	size_t len;             /* its bytes */
	const mi_parsed *p;     /* its symbols */
	mi_query_file qf;       /* when answered from the index */
	char *disk;             /* when read from disk */
	mi_parsed own;          /* the parse of disk */
	mi_lsp_lines lines;     /* line table of src */
	char *path;             /* repo-relative path, NULL outside the root */
	const char *from;       /* "index", "buffer" or "disk", for the log */
} lsp_file;

static const char *param_uri(json_t *params)
{
	json_t *v = json_object_get(json_object_get(params, "textDocument"), "uri");
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Parses d's live buffer unless the cached parse is current. */
static void doc_parse(mi_lsp_server *s, mi_lsp_doc *d)
{
	int rc;
	if (d->parsed_valid)
		return;
	mi_parsed_release(&d->parsed);
	mi_parsed_init(&d->parsed);
	d->parsed_valid = true;
	if (d->lang == MI_LANG_NONE)
		return;
	rc = mi_parse_detected(d->lang, mi_buf_str(&d->text), d->text.len, &d->parsed);
	if (rc) {
		mi_lsp_log(s, "cannot parse %s: %s", d->uri, mi_strerror(rc));
		mi_parsed_release(&d->parsed);
		mi_parsed_init(&d->parsed);
	}
}

static void file_release(lsp_file *f)
{
	mi_query_file_release(&f->qf);
	mi_parsed_release(&f->own);
	free(f->disk);
	free(f->path);
	mi_lsp_lines_release(&f->lines);
}

/* Opens the text and spans of uri (see the top of this file).  Returns 0
 * or a JSON-RPC error code with err. */
static int file_open(mi_lsp_server *s, const char *uri, lsp_file *f, mi_buf *err)
{
	mi_lsp_doc *d = uri ? mi_lsp_doc_find(s, uri) : NULL;
	mi_query *q = mi_lsp_query(s);
	char *abs = NULL;
	int rc = 0;

	memset(f, 0, sizeof *f);
	if (!uri) {
		mi_buf_adds(err, "params.textDocument.uri is required");
		return MI_LSP_INVALID_PARAMS;
	}
	if (!d && !(abs = mi_lsp_uri_path(uri))) {
		mi_buf_addf(err, "%s is not a file:// URI", uri);
		return MI_LSP_INVALID_PARAMS;
	}
	mi_parsed_init(&f->own);
	if (d)
		f->path = d->path ? mi_xstrdup(d->path) : NULL;
	else
		f->path = mi_lsp_rel_path(s, abs);
	if (!d && !f->path) {
		/* Outside the root only the editor's own text is served: the
		 * disk is not read, and the answer is the same whether or not
		 * the file exists. */
		mi_buf_addf(err, "%s is outside the repository %s and not open in the editor",
			    uri, s->root);
		rc = MI_LSP_REQUEST_FAILED;
		goto out;
	}
	if (q && f->path && !mi_query_file_load(q, f->path, &f->qf)) {
		uint8_t h[16];
		if (d)
			mi_hash128(mi_buf_str(&d->text), d->text.len, h);
		if (!d || !memcmp(h, f->qf.hash, sizeof h)) {
			f->src = f->qf.src;
			f->len = f->qf.len;
			f->p = &f->qf.parsed;
			f->from = "index";
			goto done;
		}
		mi_query_file_release(&f->qf);
	}
	if (d) {
		doc_parse(s, d);
		f->src = mi_buf_str(&d->text);
		f->len = d->text.len;
		f->p = &d->parsed;
		f->from = "buffer";
		goto done;
	}
	if ((rc = mi_read_file(abs, &f->disk, &f->len))) {
		mi_buf_addf(err, "cannot read %s: %s (open it in the editor, or build the index: "
			    "mcpidx build %s)", abs, mi_strerror(rc), s->root);
		rc = MI_LSP_REQUEST_FAILED;
		goto out;
	}
	f->src = f->disk;
	f->p = &f->own;
	f->from = "disk";
	f->own.lang = mi_lang_detect(abs);
	if (f->own.lang != MI_LANG_NONE && mi_parse_detected(f->own.lang, f->disk, f->len, &f->own)) {
		mi_parsed_release(&f->own);
		mi_parsed_init(&f->own);
	}
done:
	mi_lsp_lines_init(&f->lines, f->src, f->len, s->enc);
out:
	free(abs);
	if (rc)
		file_release(f);
	return rc;
}

/* Bytes [start, end) of a symbol clamped to src: a span that takes its
 * line's end with it ends on that line. */
static void clamp_span(const char *src, size_t len, uint32_t start, uint32_t end,
		       size_t *a, size_t *b)
{
	*a = start < len ? start : len;
	*b = end < len ? end : len;
	if (*b < *a)
		*b = *a;
	while (*b > *a && (src[*b - 1] == '\n' || src[*b - 1] == '\r'))
		(*b)--;
}

static void sym_span(const lsp_file *f, const mi_symbol *y, size_t *a, size_t *b)
{
	clamp_span(f->src, f->len, y->start_byte, y->end_byte, a, b);
}

/* ---- foldingRange ------------------------------------------------------------- */

static bool is_block(const mi_symbol *y)
{
	return mi_kind_mark(y->kind) || y->kind == MI_KIND_HEADING;
}

typedef struct fold { uint32_t start, end; } fold;

static int cmp_fold(const void *a, const void *b)
{
	const fold *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end < y->end) - (x->end > y->end); /* outer first */
}

int mi_lsp_folding(mi_lsp_server *s, json_t *params, json_t **result, mi_buf *err)
{
	lsp_file f;
	fold *v;
	size_t n = 0, i;
	json_t *arr;
	int rc = file_open(s, param_uri(params), &f, err);
	if (rc)
		return rc;
	v = mi_xcalloc(f.p->nsyms + 1, sizeof *v);
	for (i = 0; i < f.p->nsyms; i++) {
		const mi_symbol *y = &f.p->syms[i];
		size_t a, b;
		if (!is_block(y) || y->end_line < y->start_line || y->start_line == 0)
			continue;
		/* The symbol's lines count "\n" only: with a lone "\r" the
		 * editor's lines are those of its first and last bytes (a
		 * Markdown section then ends at its last text, not at the
		 * blank line before the next heading). */
		sym_span(&f, y, &a, &b);
		v[n].start = mi_lsp_nl_line(&f.lines, y->start_line - 1, a);
		v[n].end = mi_lsp_nl_line(&f.lines, y->end_line - 1, b);
		if (v[n].end > v[n].start)
			n++;
	}
	qsort(v, n, sizeof *v, cmp_fold);
	arr = json_array();
	for (i = 0; i < n; i++) {
		/* an editor keeps one fold per start line: the outer one */
		if (i && v[i].start == v[i - 1].start)
			continue;
		if (s->fold_limit && json_array_size(arr) >= s->fold_limit)
			break;
		json_array_append_new(arr, json_pack("{s:i,s:i}", "startLine", (json_int_t)v[i].start,
						     "endLine", (json_int_t)v[i].end));
	}
	free(v);
	file_release(&f);
	*result = arr;
	return 0;
}

/* ---- documentSymbol ------------------------------------------------------------- */

/* LSP SymbolKind of each mi_kind, by index. */
static const int symbol_kind[MI_KIND__COUNT] = {
	[MI_KIND_NONE] = 13,       /* Variable */
	[MI_KIND_FUNCTION] = 12,   /* Function */
	[MI_KIND_METHOD] = 6,      /* Method */
	[MI_KIND_CLASS] = 5,       /* Class */
	[MI_KIND_STRUCT] = 23,     /* Struct */
	[MI_KIND_ENUM] = 10,       /* Enum */
	[MI_KIND_TRAIT] = 11,      /* Interface */
	[MI_KIND_POINTCUT] = 24,   /* Event */
	[MI_KIND_MODULE] = 2,      /* Module */
	[MI_KIND_HEADING] = 15,    /* String, as Markdown servers show headings */
	[MI_KIND_FIELD] = 8,       /* Field */
	[MI_KIND_VARIABLE] = 13,   /* Variable */
	[MI_KIND_CONSTANT] = 14,   /* Constant */
	[MI_KIND_MACRO] = 14,      /* Constant */
	[MI_KIND_TYPEDEF] = 26,    /* TypeParameter */
	[MI_KIND_ENUMERATOR] = 22, /* EnumMember */
	[MI_KIND_UNION] = 23,      /* Struct */
	[MI_KIND_PROTOTYPE] = 12,  /* Function */
};

static int lsp_kind(int kind)
{
	return kind >= 0 && kind < MI_KIND__COUNT ? symbol_kind[kind] : 13;
}

static json_t *selection_range(const lsp_file *f, const mi_symbol *y)
{
	size_t a, b, at;
	sym_span(f, y, &a, &b);
	at = mi_lsp_find_word(f->src, a, b, y->name);
	if (at == (size_t)-1)
		return mi_lsp_range(&f->lines, a, a);
	return mi_lsp_range(&f->lines, at, at + strlen(y->name));
}

static const char *sym_name(const mi_symbol *y)
{
	return y->name && y->name[0] ? y->name : "(anonymous)";
}

static json_t *uri_of(mi_lsp_server *s, const char *path)
{
	mi_buf b = {0}, u = {0};
	json_t *j;
	mi_buf_addf(&b, "%s/%s", strcmp(s->root, "/") ? s->root : "", path);
	mi_lsp_path_uri(b.buf, &u);
	j = json_string(u.buf);
	mi_buf_release(&b);
	mi_buf_release(&u);
	return j;
}

/* True when symbol i may be listed under its parent: the parent exists and
 * spans it (an editor requires children inside their parent's range). */
static bool under_parent(const mi_parsed *p, size_t i)
{
	const mi_symbol *y = &p->syms[i], *par;
	if (y->parent_idx < 0 || (size_t)y->parent_idx >= p->nsyms || (size_t)y->parent_idx == i)
		return false;
	par = &p->syms[y->parent_idx];
	return par->start_byte <= y->start_byte && y->end_byte <= par->end_byte &&
	       (par->start_byte < y->start_byte || y->end_byte < par->end_byte ||
		(size_t)y->parent_idx < i);
}

int mi_lsp_doc_symbols(mi_lsp_server *s, json_t *params, json_t **result, mi_buf *err)
{
	lsp_file f;
	json_t **objs, *arr = json_array();
	size_t i, a, b;
	const char *uri = param_uri(params);
	int rc = file_open(s, uri, &f, err);
	if (rc) {
		json_decref(arr);
		return rc;
	}
	objs = mi_xcalloc(f.p->nsyms + 1, sizeof *objs);
	for (i = 0; i < f.p->nsyms; i++) {
		const mi_symbol *y = &f.p->syms[i];
		sym_span(&f, y, &a, &b);
		if (s->hier_symbols) {
			objs[i] = json_pack("{s:o,s:i,s:o,s:o}", "name", mi_lsp_str(sym_name(y)),
					    "kind", lsp_kind(y->kind),
					    "range", mi_lsp_range(&f.lines, a, b),
					    "selectionRange", selection_range(&f, y));
			if (y->sig && y->sig[0] && strcmp(y->sig, y->name))
				json_object_set_new(objs[i], "detail", mi_lsp_str(y->sig));
		} else {
			objs[i] = json_pack("{s:o,s:i,s:{s:s,s:o}}", "name", mi_lsp_str(sym_name(y)),
					    "kind", lsp_kind(y->kind), "location", "uri", uri,
					    "range", mi_lsp_range(&f.lines, a, b));
			if (y->parent && y->parent[0])
				json_object_set_new(objs[i], "containerName", mi_lsp_str(y->parent));
		}
	}
	for (i = 0; i < f.p->nsyms; i++) {
		if (!objs[i])
			continue;
		if (s->hier_symbols && under_parent(f.p, i) && objs[f.p->syms[i].parent_idx]) {
			json_t *par = objs[f.p->syms[i].parent_idx];
			json_t *kids = json_object_get(par, "children");
			if (!kids)
				json_object_set_new(par, "children", kids = json_array());
			json_array_append_new(kids, objs[i]);
		} else {
			json_array_append_new(arr, objs[i]);
		}
	}
	free(objs);
	file_release(&f);
	*result = arr;
	return 0;
}

/* ---- sources of other files, for positions in answers -------------------------- */

typedef struct src_ent {
	char *path;            /* repo-relative */
	char *src;             /* indexed source, NULL when missing */
	size_t len;
	mi_lsp_lines lines;    /* line table of src */
} src_ent;

typedef struct src_cache {
	src_ent *e;
	size_t n, cap;
} src_cache;

static src_ent *src_get(mi_lsp_server *s, src_cache *c, const char *path)
{
	src_ent *e;
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->e[i].path, path))
			return &c->e[i];
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 8;
		c->e = mi_xrealloc(c->e, c->cap * sizeof *c->e);
	}
	e = &c->e[c->n++];
	memset(e, 0, sizeof *e);
	e->path = mi_xstrdup(path);
	if (!s->q || mi_query_source(s->q, path, &e->src, &e->len))
		e->src = NULL;
	mi_lsp_lines_init(&e->lines, e->src ? e->src : "", e->len, s->enc);
	return e;
}

static void src_cache_release(src_cache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->e[i].path);
		free(c->e[i].src);
		mi_lsp_lines_release(&c->e[i].lines);
	}
	free(c->e);
}

/* A Location for word on line (1-based, as the index counts lines: by
 * "\n") of path: the word's first whole occurrence on the line, else the
 * line's start.  With lone "\r"s an index line holds several of the
 * editor's, and the first occurrence in all of them is taken. */
static json_t *location(mi_lsp_server *s, src_cache *c, const char *path, uint32_t line,
			const char *word)
{
	src_ent *e = src_get(s, c, path);
	size_t a = 0, b = 0, at;
	json_t *range;
	if (line >= 1)
		mi_lsp_nl_span(&e->lines, line - 1, &a, &b);
	at = word ? mi_lsp_find_word(e->src ? e->src : "", a, b, word) : (size_t)-1;
	if (at == (size_t)-1)
		range = mi_lsp_range(&e->lines, a, a);
	else
		range = mi_lsp_range(&e->lines, at, at + strlen(word));
	return json_pack("{s:o,s:o}", "uri", uri_of(s, path), "range", range);
}

/* ---- workspace/symbol ------------------------------------------------------------ */

typedef struct ws_sym {
	char *path, *name, *parent;
	int kind;
	uint32_t start_byte, end_byte;
} ws_sym;

typedef struct ws_list {
	ws_sym *v;
	size_t n, cap;
} ws_list;

static void ws_collect(void *ctx, const char *path, const mi_symbol *y)
{
	ws_list *l = ctx;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		l->v = mi_xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = (ws_sym){mi_xstrdup(path), mi_xstrdup(sym_name(y)),
				mi_xstrdup(y->parent ? y->parent : ""), y->kind,
				y->start_byte, y->end_byte};
}

int mi_lsp_ws_symbols(mi_lsp_server *s, json_t *params, json_t **result, mi_buf *err)
{
	json_t *qv = json_object_get(params, "query"), *arr;
	ws_list l = {0};
	src_cache c = {0};
	mi_query *q = mi_lsp_query(s);
	if (!json_is_string(qv)) {
		mi_buf_adds(err, "workspace/symbol needs params.query (a string; \"\" lists all)");
		return MI_LSP_INVALID_PARAMS;
	}
	arr = json_array();
	if (q && mi_query_symbols(q, json_string_value(qv), 256, ws_collect, &l))
		mi_lsp_log(s, "workspace/symbol: cannot read the index %s", s->index_path);
	for (size_t i = 0; i < l.n; i++) {
		ws_sym *w = &l.v[i];
		src_ent *e = src_get(s, &c, w->path);
		size_t a, b;
		json_t *o;
		clamp_span(e->src ? e->src : "", e->len, w->start_byte, w->end_byte, &a, &b);
		o = json_pack("{s:o,s:i,s:{s:o,s:o}}", "name", mi_lsp_str(w->name),
				      "kind", lsp_kind(w->kind), "location",
				      "uri", uri_of(s, w->path),
				      "range", mi_lsp_range(&e->lines, a, b));
		if (w->parent[0])
			json_object_set_new(o, "containerName", mi_lsp_str(w->parent));
		json_array_append_new(arr, o);
		free(w->path);
		free(w->name);
		free(w->parent);
	}
	free(l.v);
	src_cache_release(&c);
	*result = arr;
	return 0;
}

/* ---- definition and references ----------------------------------------------------- */

/* The identifier at params.position of params.textDocument, malloc'd into
 * *word (NULL when the cursor is on none); the file's path into *path. */
static int word_at_cursor(mi_lsp_server *s, json_t *params, char **word, char **path,
			  mi_buf *err)
{
	mi_lsp_doc *d;
	const char *uri = param_uri(params), *text;
	char *abs = NULL, *owned = NULL;
	size_t len = 0, off, a, b;
	uint32_t line, ch;
	mi_lsp_lines lines;

	*word = *path = NULL;
	if (!uri || !mi_lsp_get_pos(json_object_get(params, "position"), &line, &ch)) {
		mi_buf_adds(err, "params needs textDocument.uri and position {line, character}");
		return MI_LSP_INVALID_PARAMS;
	}
	if ((d = mi_lsp_doc_find(s, uri))) {
		text = mi_buf_str(&d->text);
		len = d->text.len;
		*path = d->path ? mi_xstrdup(d->path) : NULL;
	} else {
		if (!(abs = mi_lsp_uri_path(uri))) {
			mi_buf_addf(err, "%s is not a file:// URI", uri);
			return MI_LSP_INVALID_PARAMS;
		}
		/* outside the root: no text, as for a file that is not there */
		*path = mi_lsp_rel_path(s, abs);
		if (*path && !(s->q && !mi_query_source(s->q, *path, &owned, &len)) &&
		    mi_read_file(abs, &owned, &len))
			owned = NULL;
		text = owned ? owned : "";
	}
	mi_lsp_lines_init(&lines, text, len, s->enc);
	off = mi_lsp_offset(&lines, line, ch);
	/* past the last line there is no word (not the text's last one) */
	if (line < lines.n && mi_lsp_word_at(text, len, off, &a, &b))
		*word = mi_xstrndup(text + a, b - a);
	mi_lsp_lines_release(&lines);
	free(owned);
	free(abs);
	return 0;
}

/* Appends the definitions of word as Locations; those in path first. */
static void add_definitions(mi_lsp_server *s, src_cache *c, const char *word,
			    const char *path, json_t *arr)
{
	mi_out out = {0};
	json_t *j, *defs, *v;
	size_t i;
	if (mi_query_definition(s->q, word, NULL, &out) || out.is_error ||
	    !(j = json_loadb(out.json.buf, out.json.len, 0, NULL))) {
		mi_out_release(&out);
		return;
	}
	defs = json_object_get(j, "definitions");
	for (int pass = 0; pass < 2; pass++)
		json_array_foreach(defs, i, v) {
			const char *p = json_string_value(json_object_get(v, "path"));
			json_t *line = json_object_get(v, "line");
			const char *name = json_string_value(json_object_get(v, "name"));
			bool here = path && p && !strcmp(p, path);
			if (!p || !json_is_integer(line) || here != (pass == 0))
				continue;
			json_array_append_new(arr, location(s, c, p, (uint32_t)json_integer_value(line),
							    name ? name : word));
		}
	json_decref(j);
	mi_out_release(&out);
}

int mi_lsp_definition(mi_lsp_server *s, json_t *params, json_t **result, mi_buf *err)
{
	char *word, *path;
	src_cache c = {0};
	json_t *arr;
	int rc;
	mi_lsp_query(s);
	if ((rc = word_at_cursor(s, params, &word, &path, err)))
		return rc;
	*result = NULL;
	if (word && s->q) {
		arr = json_array();
		add_definitions(s, &c, word, path, arr);
		*result = arr;
	}
	src_cache_release(&c);
	free(word);
	free(path);
	return 0;
}

int mi_lsp_references(mi_lsp_server *s, json_t *params, json_t **result, mi_buf *err)
{
	char *word, *path;
	src_cache c = {0};
	mi_out out = {0};
	json_t *arr, *j, *v;
	size_t i;
	int rc;
	bool decl = json_is_true(json_object_get(json_object_get(params, "context"),
						 "includeDeclaration"));
	mi_lsp_query(s);
	if ((rc = word_at_cursor(s, params, &word, &path, err)))
		return rc;
	*result = NULL;
	if (!word || !s->q)
		goto out;
	arr = json_array();
	if (decl)
		add_definitions(s, &c, word, path, arr);
	if (!mi_query_references(s->q, word, "all", 2000, &out) && !out.is_error &&
	    (j = json_loadb(out.json.buf, out.json.len, 0, NULL))) {
		json_array_foreach(json_object_get(j, "references"), i, v) {
			const char *p = json_string_value(json_object_get(v, "path"));
			json_t *line = json_object_get(v, "line");
			if (p && json_is_integer(line))
				json_array_append_new(arr, location(s, &c, p,
					(uint32_t)json_integer_value(line), word));
		}
		json_decref(j);
	}
	*result = arr;
out:
	mi_out_release(&out);
	src_cache_release(&c);
	free(word);
	free(path);
	return 0;
}
