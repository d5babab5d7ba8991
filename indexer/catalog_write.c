/*
 * catalog_write.c - writes the tool catalog of upstream MCP servers into the
 * index: one record per server and per tool, ids in name order, and the
 * BM25F postings find_tools reads.  The catalog is small (thousands of
 * tools), so every write replaces it whole inside one transaction.
 */
#include "indexer_int.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One tool about to be written; strings owned by the entry. */
typedef struct cw_tool {
	char *full;          /* "server/tool" */
	mi_tool_rec r;       /* strings point at the owned copies below */
	char *mem[11];       /* owned copies */
	char *params;        /* parameter names, one per line */
	char *pdocs;         /* parameter descriptions */
	const char *server_text; /* the server's context (owned by its cw_server) */
} cw_tool;

typedef struct cw_server {
	char *name;
	mi_buf rec;          /* encoded mi_server_rec */
	char *context;       /* server field text */
	uint32_t ntools;
} cw_server;

/* term -> postings under construction */
typedef struct cw_term {
	char *term;          /* the term */
	size_t len;
	uint32_t last;       /* last tool id added + 1 (0: none) */
	mi_buf post;
} cw_term;

typedef struct cw {
	cw_tool *tools; size_t nt, capt;
	cw_server *srv; size_t ns, caps;
	cw_term **terms; size_t nterms, capterms; /* open addressing; entries stable */
	/* per-tool accumulation */
	mi_tok *tok;
	int field;                    /* field being tokenized */
	struct { cw_term *t; uint32_t tf[MI_TF__COUNT]; } *cur;
	size_t ncur, capcur;
	uint32_t flen[MI_TF__COUNT];  /* this tool's field lengths */
	uint64_t total[MI_TF__COUNT]; /* all tools' field lengths */
} cw;

static char *own(cw_tool *t, int slot, const char *s, size_t n, uint32_t *len)
{
	t->mem[slot] = mi_xstrndup(s ? s : "", s ? n : 0);
	*len = (uint32_t)(s ? n : 0);
	return t->mem[slot];
}

static size_t slen(const char *s)
{
	return s ? strlen(s) : 0;
}

static unsigned annot_flags(const char *annot)
{
	static const struct { const char *key; unsigned flag; } hints[] = {
		{"readOnlyHint", MI_TOOLF_READONLY}, {"destructiveHint", MI_TOOLF_DESTRUCTIVE},
		{"idempotentHint", MI_TOOLF_IDEMPOTENT}, {"openWorldHint", MI_TOOLF_OPENWORLD},
	};
	json_t *a = annot && *annot ? json_loads(annot, 0, NULL) : NULL;
	unsigned f = 0;
	for (size_t i = 0; a && i < sizeof(hints) / sizeof(hints[0]); i++)
		if (json_is_true(json_object_get(a, hints[i].key)))
			f |= hints[i].flag;
	json_decref(a);
	return f;
}

static cw_tool *add_tool(cw *w)
{
	if (w->nt == w->capt) {
		w->capt = w->capt ? w->capt * 2 : 64;
		w->tools = mi_xrealloc(w->tools, w->capt * sizeof(*w->tools));
	}
	cw_tool *t = &w->tools[w->nt++];
	memset(t, 0, sizeof(*t));
	return t;
}

/* A tool from a fresh listing. */
static void tool_new(cw *w, const mi_catalog_server *s, const mi_catalog_tool *in,
		     const mi_catalog_opts *o)
{
	cw_tool *t = add_tool(w);
	mi_tool_rec *r = &t->r;
	mi_buf b = {0}, names = {0}, docs = {0};
	mi_buf_addf(&b, "%s/%s", s->name, in->name);
	t->full = mi_buf_detach(&b);
	r->server = own(t, 0, s->name, slen(s->name), &r->server_len);
	r->name = own(t, 1, in->name, slen(in->name), &r->name_len);
	r->title = own(t, 2, in->title, slen(in->title), &r->title_len);
	r->desc = own(t, 3, in->description, slen(in->description), &r->desc_len);
	r->input = own(t, 4, in->input_schema, slen(in->input_schema), &r->input_len);
	r->output = own(t, 5, in->output_schema, slen(in->output_schema), &r->output_len);
	r->annot = own(t, 6, in->annotations, slen(in->annotations), &r->annot_len);
	r->icons = own(t, 7, in->icons, slen(in->icons), &r->icons_len);
	mi_tool_signature(in->input_schema, &b);
	r->sig = own(t, 8, b.buf, b.len, &r->sig_len);
	mi_buf_reset(&b);
	mi_tool_hash(in->name, in->description, in->input_schema, in->output_schema,
		     in->annotations, r->hash);
	for (size_t i = 0; i < in->naliases; i++) {
		mi_buf_adds(&b, in->aliases[i]);
		mi_buf_addc(&b, '\n');
	}
	if (o->aliases)
		o->aliases(o->aliases_ctx, t->full, r->hash, &b);
	while (b.len && b.buf[b.len - 1] == '\n')
		b.buf[--b.len] = 0;
	r->aliases = own(t, 9, b.buf, b.len, &r->aliases_len);
	mi_buf_release(&b);
	r->flags = annot_flags(in->annotations) | (in->flags & MI_TOOLF_SENSITIVE);
	mi_tool_params(in->input_schema, &names, &docs);
	t->params = mi_buf_detach(&names);
	t->pdocs = mi_buf_detach(&docs);
}

/* Appends to have the lines of add it does not hold yet. */
static void add_lines(mi_buf *have, const char *add, size_t len)
{
	size_t i = 0;
	while (i < len) {
		const char *e = memchr(add + i, '\n', len - i);
		size_t l = e ? (size_t)(e - (add + i)) : len - i;
		bool dup = false;
		for (const char *p = have->buf; p && !dup && *p;) {
			const char *pe = strchr(p, '\n');
			size_t pl = pe ? (size_t)(pe - p) : strlen(p);
			dup = pl == l && !memcmp(p, add + i, l);
			p += pl + (pe ? 1 : 0);
		}
		if (l && !dup) {
			if (have->len)
				mi_buf_addc(have, '\n');
			mi_buf_add(have, add + i, l);
		}
		i += l + 1;
	}
}

/* A tool kept from the stored catalog (its server failed this time, or it
 * was not fetched): its aliases are refreshed from the side store. */
static void tool_keep(cw *w, const mi_tool_rec *old, const mi_catalog_opts *o)
{
	cw_tool *t = add_tool(w);
	mi_tool_rec *r = &t->r;
	mi_buf b = {0}, names = {0}, docs = {0};
	*r = *old;
	mi_buf_add(&b, old->server, old->server_len);
	mi_buf_addc(&b, '/');
	mi_buf_add(&b, old->name, old->name_len);
	t->full = mi_buf_detach(&b);
	r->server = own(t, 0, old->server, old->server_len, &r->server_len);
	r->name = own(t, 1, old->name, old->name_len, &r->name_len);
	r->title = own(t, 2, old->title, old->title_len, &r->title_len);
	r->desc = own(t, 3, old->desc, old->desc_len, &r->desc_len);
	r->input = own(t, 4, old->input, old->input_len, &r->input_len);
	r->output = own(t, 5, old->output, old->output_len, &r->output_len);
	r->annot = own(t, 6, old->annot, old->annot_len, &r->annot_len);
	r->icons = own(t, 7, old->icons, old->icons_len, &r->icons_len);
	r->sig = own(t, 8, old->sig, old->sig_len, &r->sig_len);
	{
		mi_buf al = {0}, side = {0};
		add_lines(&al, old->aliases, old->aliases_len);
		if (o->aliases)
			o->aliases(o->aliases_ctx, t->full, old->hash, &side);
		add_lines(&al, side.buf ? side.buf : "", side.len);
		r->aliases = own(t, 9, al.buf, al.len, &r->aliases_len);
		mi_buf_release(&al);
		mi_buf_release(&side);
	}
	mi_tool_params(r->input, &names, &docs);
	t->params = mi_buf_detach(&names);
	t->pdocs = mi_buf_detach(&docs);
}

static int cmp_tool(const void *a, const void *b)
{
	return strcmp(((const cw_tool *)a)->full, ((const cw_tool *)b)->full);
}

/* ---- postings ------------------------------------------------------------------ */

static cw_term *term_get(cw *w, const char *s, size_t n)
{
	if (w->nterms * 2 >= w->capterms) {
		size_t cap = w->capterms ? w->capterms * 2 : 4096;
		cw_term **nt = mi_xcalloc(cap, sizeof(*nt));
		for (size_t i = 0; i < w->capterms; i++) {
			if (!w->terms[i])
				continue;
			size_t h = mi_hash64(w->terms[i]->term, w->terms[i]->len) & (cap - 1);
			while (nt[h])
				h = (h + 1) & (cap - 1);
			nt[h] = w->terms[i];
		}
		free(w->terms);
		w->terms = nt;
		w->capterms = cap;
	}
	size_t h = mi_hash64(s, n) & (w->capterms - 1);
	while (w->terms[h]) {
		if (w->terms[h]->len == n && !memcmp(w->terms[h]->term, s, n))
			return w->terms[h];
		h = (h + 1) & (w->capterms - 1);
	}
	w->terms[h] = mi_xcalloc(1, sizeof(cw_term));
	w->terms[h]->term = mi_xstrndup(s, n);
	w->terms[h]->len = n;
	w->nterms++;
	return w->terms[h];
}

static void on_term(void *ctx, const char *term, size_t len)
{
	cw *w = ctx;
	cw_term *t = term_get(w, term, len);
	size_t i;
	w->flen[w->field]++;
	for (i = 0; i < w->ncur; i++)
		if (w->cur[i].t == t)
			break;
	if (i == w->ncur) {
		if (w->ncur == w->capcur) {
			w->capcur = w->capcur ? w->capcur * 2 : 64;
			w->cur = mi_xrealloc(w->cur, w->capcur * sizeof(*w->cur));
		}
		memset(&w->cur[i], 0, sizeof(w->cur[i]));
		w->cur[i].t = t;
		w->ncur++;
	}
	w->cur[i].tf[w->field]++;
}

static void field(cw *w, int f, const char *s, size_t n)
{
	w->field = f;
	if (s && n)
		mi_tok_run(w->tok, s, n, 0, on_term, w);
}

/*
 * The initials of every run of 2-4 consecutive parts of a tool's name
 * (parts split at '_', '-', '.', digits and lower-to-upper case changes),
 * the way people abbreviate what a name spells out: merge_pull_request
 * gives "mp mpr pr", getUserProfile "gu gup up".  When the last part of a
 * run is a plural, the plural initialism too ("prs" of list_pull_requests).
 */
#define CW_PARTS 12
static void name_initials(const char *s, size_t n, mi_buf *out)
{
	size_t start[CW_PARTS], end[CW_PARTS], np = 0;
	for (size_t i = 0; i < n && np < CW_PARTS;) {
		while (i < n && !isalpha((unsigned char)s[i]))
			i++;
		if (i == n)
			break;
		start[np] = i++;
		while (i < n && islower((unsigned char)s[i]))
			i++;
		if (i == start[np] + 1)   /* an all-capitals run: one part */
			while (i < n && isupper((unsigned char)s[i]) &&
			       !(i + 1 < n && islower((unsigned char)s[i + 1])))
				i++;
		end[np++] = i;
	}
	for (size_t a = 0; a + 1 < np; a++)
		for (size_t b = a + 1; b < np && b < a + 4; b++) {
			for (size_t k = a; k <= b; k++)
				mi_buf_addc(out, (char)tolower((unsigned char)s[start[k]]));
			if (end[b] - start[b] > 3 && (s[end[b] - 1] == 's' || s[end[b] - 1] == 'S')) {
				mi_buf_addc(out, ' ');
				for (size_t k = a; k <= b; k++)
					mi_buf_addc(out, (char)tolower((unsigned char)s[start[k]]));
				mi_buf_addc(out, 's');
			}
			mi_buf_addc(out, ' ');
		}
}

static void post_tool(cw *w, uint32_t id, const cw_tool *t)
{
	mi_buf ini = {0};
	const mi_tool_rec *r = &t->r;
	w->ncur = 0;
	memset(w->flen, 0, sizeof(w->flen));
	field(w, MI_TF_NAME, r->name, r->name_len);
	{
		mi_buf lead = {0};
		mi_buf_add(&lead, r->title, r->title_len);
		mi_buf_addc(&lead, ' ');
		mi_tool_first_line(r->desc, r->desc_len, 400, &lead);
		field(w, MI_TF_TITLE, lead.buf, lead.len);
		mi_buf_release(&lead);
	}
	field(w, MI_TF_DESC, r->desc, r->desc_len);
	field(w, MI_TF_PARAM, t->params, slen(t->params));
	field(w, MI_TF_PDOC, t->pdocs, slen(t->pdocs));
	field(w, MI_TF_SERVER, t->server_text, slen(t->server_text));
	field(w, MI_TF_ALIAS, r->aliases, r->aliases_len);
	name_initials(r->name, r->name_len, &ini);
	field(w, MI_TF_INITIALS, ini.buf, ini.len);
	mi_buf_release(&ini);
	for (int f = 0; f < MI_TF__COUNT; f++)
		w->total[f] += w->flen[f];
	for (size_t i = 0; i < w->ncur; i++) {
		cw_term *tm = w->cur[i].t;
		unsigned mask = 0;
		for (int f = 0; f < MI_TF__COUNT; f++)
			if (w->cur[i].tf[f])
				mask |= 1u << f;
		mi_tpost_put(&tm->post, id - (tm->last ? tm->last - 1 : 0), mask,
			     w->cur[i].tf, w->flen);
		tm->last = id + 1;
	}
}

/* The first id is written as the id itself: delta from 0. */

/* ---- the write ---------------------------------------------------------------- */

static cw_server *server_get(cw *w, const char *name, size_t n)
{
	for (size_t i = 0; i < w->ns; i++)
		if (strlen(w->srv[i].name) == n && !memcmp(w->srv[i].name, name, n))
			return &w->srv[i];
	return NULL;
}

static cw_server *server_add(cw *w, const char *name, size_t n)
{
	if (w->ns == w->caps) {
		w->caps = w->caps ? w->caps * 2 : 16;
		w->srv = mi_xrealloc(w->srv, w->caps * sizeof(*w->srv));
	}
	cw_server *s = &w->srv[w->ns++];
	memset(s, 0, sizeof(*s));
	s->name = mi_xstrndup(name, n);
	return s;
}

/* The words that tell this server's tools from another's. */
static char *server_context(const char *name, size_t nl, const char *info, size_t il,
			    const char *instr, size_t inl)
{
	mi_buf b = {0};
	json_t *v = il ? json_loadb(info, il, 0, NULL) : NULL;
	mi_buf_add(&b, name, nl);
	mi_buf_addc(&b, '\n');
	for (const char *const *k = (const char *const[]){"name", "title", NULL}; *k; k++) {
		json_t *x = json_object_get(v, *k);
		if (json_is_string(x)) {
			mi_buf_adds(&b, json_string_value(x));
			mi_buf_addc(&b, '\n');
		}
	}
	json_decref(v);
	if (inl)
		mi_tool_first_line(instr, inl, 200, &b);
	return mi_buf_detach(&b);
}

static void cw_release(cw *w)
{
	for (size_t i = 0; i < w->nt; i++) {
		free(w->tools[i].full);
		for (int k = 0; k < 11; k++)
			free(w->tools[i].mem[k]);
		free(w->tools[i].params);
		free(w->tools[i].pdocs);
	}
	free(w->tools);
	for (size_t i = 0; i < w->ns; i++) {
		free(w->srv[i].name);
		free(w->srv[i].context);
		mi_buf_release(&w->srv[i].rec);
	}
	free(w->srv);
	for (size_t i = 0; i < w->capterms; i++) {
		if (!w->terms[i])
			continue;
		free(w->terms[i]->term);
		mi_buf_release(&w->terms[i]->post);
		free(w->terms[i]);
	}
	free(w->terms);
	free(w->cur);
	mi_tok_free(w->tok);
	memset(w, 0, sizeof(*w));
}

static const mi_catalog_server *given(const mi_catalog_server *srv, size_t n,
				      const char *name, size_t nl)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(srv[i].name) == nl && !memcmp(srv[i].name, name, nl))
			return &srv[i];
	return NULL;
}

/* Reads what stays from the stored catalog, then assembles the new one. */
static int collect(cw *w, mi_txn *t, const mi_catalog_server *srv, size_t n,
		   const mi_catalog_opts *o, mi_catalog_stats *st)
{
	mi_cursor *cur;
	const void *k, *v;
	size_t kl, vl;
	int rc;
	time_t now = time(NULL);

	/* Stored servers that stay: not given and keep_others, or given with
	 * an error. */
	if ((rc = mi_cursor_open(t, MI_DB_SERVERS, &cur)))
		return rc;
	for (rc = mi_cursor_seek(cur, NULL, 0, &k, &kl, &v, &vl); !rc;
	     rc = mi_cursor_next(cur, &k, &kl, &v, &vl)) {
		mi_server_rec sr;
		const mi_catalog_server *g = given(srv, n, k, kl);
		if (mi_server_decode(v, vl, &sr))
			continue;
		if (g ? !g->error : !o->keep_others)
			continue;
		cw_server *s = server_add(w, k, kl);
		if (g) {
			sr.error = g->error;
			sr.error_len = (uint32_t)strlen(g->error);
		}
		mi_server_encode(&sr, &s->rec);
		s->context = server_context(sr.name, sr.name_len, sr.info, sr.info_len,
					    sr.instructions, sr.instructions_len);
	}
	mi_cursor_close(cur);
	if (rc != MI_ERR_NOTFOUND)
		return rc;
	if ((rc = mi_cursor_open(t, MI_DB_TOOLS, &cur)))
		return rc;
	for (rc = mi_cursor_seek(cur, NULL, 0, &k, &kl, &v, &vl); !rc;
	     rc = mi_cursor_next(cur, &k, &kl, &v, &vl)) {
		mi_tool_rec tr;
		if (mi_tool_decode(v, vl, &tr) || !server_get(w, tr.server, tr.server_len))
			continue;
		tool_keep(w, &tr, o);
		st->kept++;
	}
	mi_cursor_close(cur);
	if (rc != MI_ERR_NOTFOUND)
		return rc;
	/* Fresh listings. */
	for (size_t i = 0; i < n; i++) {
		const mi_catalog_server *g = &srv[i];
		if (g->error) {
			st->failed++;
			if (!server_get(w, g->name, strlen(g->name))) {
				mi_server_rec sr = {
					.name = g->name, .name_len = (uint32_t)strlen(g->name),
					.transport = g->transport, .transport_len = (uint32_t)slen(g->transport),
					.error = g->error, .error_len = (uint32_t)strlen(g->error),
				};
				cw_server *s = server_add(w, g->name, strlen(g->name));
				mi_server_encode(&sr, &s->rec);
				s->context = mi_xstrdup(g->name);
			}
			continue;
		}
		cw_server *s = server_add(w, g->name, strlen(g->name));
		mi_server_rec sr = {
			.name = g->name, .name_len = (uint32_t)strlen(g->name),
			.transport = g->transport, .transport_len = (uint32_t)slen(g->transport),
			.protocol = g->protocol, .protocol_len = (uint32_t)slen(g->protocol),
			.info = g->info, .info_len = (uint32_t)slen(g->info),
			.instructions = g->instructions, .instructions_len = (uint32_t)slen(g->instructions),
			.error = "", .ntools = (uint32_t)g->ntools, .fetched = (int64_t)now,
		};
		mi_server_encode(&sr, &s->rec);
		s->context = server_context(sr.name, sr.name_len, sr.info, sr.info_len,
					    sr.instructions, sr.instructions_len);
		for (size_t j = 0; j < g->ntools; j++)
			tool_new(w, g, &g->tools[j], o);
	}
	return 0;
}

static int write_once(mi_store *store, const mi_catalog_server *srv, size_t n,
		      const mi_catalog_opts *o, mi_catalog_stats *st, mi_buf *err)
{
	cw w = {0};
	mi_txn *t = NULL;
	mi_buf k = {0}, v = {0};
	int rc, ver = mi_store_version(store);
	memset(st, 0, sizeof(*st));

	if ((rc = mi_tok_new(&w.tok))) {
		mi_buf_adds(err, "the English stemmer is not available (libstemmer)");
		goto out;
	}
	if ((rc = mi_txn_begin(store, true, &t)))
		goto out_msg;
	if (ver != 0 && ver != MI_FORMAT_VERSION) {
		/* An index of another layout is a cache: start it afresh. */
		for (int db = 0; db < MI_DB__COUNT; db++)
			if ((rc = mi_db_clear(t, db)))
				goto out_msg;
	}
	if ((rc = collect(&w, t, srv, n, o, st)))
		goto out_msg;
	/* Duplicate names (a server listing one tool twice): the first wins. */
	if (w.nt)
		qsort(w.tools, w.nt, sizeof(*w.tools), cmp_tool);
	for (int db = MI_DB_SERVERS; db <= MI_DB_TPOST; db++)
		if (mi_db_is_catalog(db) && (rc = mi_db_clear(t, db)))
			goto out_msg;
	uint32_t id = 0;
	for (size_t i = 0; i < w.nt; i++) {
		cw_tool *tl = &w.tools[i];
		if (i && !strcmp(tl->full, w.tools[i - 1].full))
			continue;
		cw_server *s = server_get(&w, tl->r.server, tl->r.server_len);
		uint8_t ik[4];
		tl->server_text = s ? s->context : "";
		if (s)
			s->ntools++;
		tl->r.id = id;
		mi_buf_reset(&v);
		mi_tool_encode(&tl->r, &v);
		mi_be32(ik, id);
		if ((rc = mi_put(t, MI_DB_TOOLS, tl->full, strlen(tl->full), v.buf, v.len)) ||
		    (rc = mi_put(t, MI_DB_TOOLIDS, ik, 4, tl->full, strlen(tl->full))))
			goto out_msg;
		post_tool(&w, id, tl);
		if (tl->r.aliases_len)
			st->aliases++;
		id++;
	}
	for (size_t i = 0; i < w.ns; i++) {
		mi_server_rec sr;
		if (mi_server_decode(w.srv[i].rec.buf, w.srv[i].rec.len, &sr))
			continue;
		sr.ntools = w.srv[i].ntools;
		mi_buf_reset(&v);
		mi_server_encode(&sr, &v);
		if ((rc = mi_put(t, MI_DB_SERVERS, w.srv[i].name, strlen(w.srv[i].name),
				 v.buf, v.len)))
			goto out_msg;
	}
	for (size_t i = 0; i < w.capterms; i++) {
		cw_term *tm = w.terms[i];
		if (!tm || !tm->post.len)
			continue;
		if ((rc = mi_put(t, MI_DB_TPOST, tm->term, tm->len, tm->post.buf, tm->post.len)))
			goto out_msg;
	}
	if ((rc = mi_meta_put_int(t, "tools.n", id)) ||
	    (rc = mi_meta_put_int(t, "tools.built", (int64_t)time(NULL))))
		goto out_msg;
	for (int f = 0; f < MI_TF__COUNT; f++) {
		char key[32];
		snprintf(key, sizeof(key), "tools.len.%s", mi_tool_field_names[f]);
		if ((rc = mi_meta_put_int(t, key, (int64_t)w.total[f])))
			goto out_msg;
	}
	if (o->servers_file && (rc = mi_meta_put_str(t, "tools.servers_file", o->servers_file)))
		goto out_msg;
	if (ver != MI_FORMAT_VERSION && (rc = mi_meta_put_int(t, "version", MI_FORMAT_VERSION)))
		goto out_msg;
	rc = mi_txn_commit(t);
	t = NULL;
	if (rc)
		goto out_msg;
	st->servers = w.ns;
	st->tools = id;
	goto out;
out_msg:
	if (!mi_store_is_full(rc))
		mi_buf_addf(err, "cannot write the tool catalog into '%s': %s", o->out_dir,
			    mi_strerror(rc));
out:
	if (t)
		mi_txn_abort(t);
	mi_buf_release(&k);
	mi_buf_release(&v);
	cw_release(&w);
	return rc;
}

int mi_catalog_write(const mi_catalog_opts *o, const mi_catalog_server *srv,
		     size_t n, mi_catalog_stats *st, mi_buf *err)
{
	mi_store *store;
	struct timespec a, b;
	int rc;
	for (size_t i = 0; i < n; i++)
		if (!srv[i].name || !*srv[i].name || strchr(srv[i].name, '/')) {
			mi_buf_addf(err, "server name '%s' is not a namespace: give a non-empty "
				    "name without '/'", srv[i].name ? srv[i].name : "");
			return MI_ERR_ARG;
		}
	rc = mi_store_open(o->out_dir, MI_STORE_CREATE, &store);
	if (rc) {
		mi_buf_addf(err, "cannot open index '%s': %s", o->out_dir, mi_strerror(rc));
		return rc;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	while ((rc = write_once(store, srv, n, o, st, err)) && mi_store_is_full(rc))
		if ((rc = mi_store_grow(store))) {
			mi_buf_addf(err, "cannot grow index '%s': %s", o->out_dir, mi_strerror(rc));
			break;
		}
	clock_gettime(CLOCK_MONOTONIC, &b);
	st->write_seconds = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	mi_store_close(store);
	return rc;
}
