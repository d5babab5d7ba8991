/*
 * lsp_diags.c - textDocument/publishDiagnostics from the latest compile: each
 * file it named gets its diagnostics while the file (the editor's buffer
 * when open, else the disk) still has the content they were made against,
 * and an empty list once it does not, or once a newer compile no longer
 * names it.  The server checks for a newer compile when it is idle.
 */
#include "lsp_int.h"

#include <stdlib.h>
#include <string.h>

/* One file of the latest compile, copied out of the side store. */
typedef struct cfile {
	char *path;          /* repo-relative */
	uint8_t hash[16];    /* content they were made against */
	bool has_hash;
	char *text;          /* mi_cdiag lines */
	size_t len;
} cfile;

typedef struct cfiles {
	cfile *v;
	size_t n, cap;
} cfiles;

static void collect(void *ctx, const char *path, const uint8_t *hash, const char *text,
		    size_t len)
{
	cfiles *l = ctx;
	cfile *f;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = mi_xrealloc(l->v, l->cap * sizeof *l->v);
	}
	f = &l->v[l->n++];
	f->path = mi_xstrdup(path);
	f->has_hash = hash != NULL;
	if (hash)
		memcpy(f->hash, hash, 16);
	f->text = mi_xstrndup(text, len);
	f->len = len;
}

static void cfiles_release(cfiles *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].text);
	}
	free(l->v);
}

static bool word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c >= 0x80;
}

/*
 * The byte a compiler's 1-based column points at on a line.  gcc counts
 * display columns (a tab advances to the next multiple of 8), clang and
 * most others count bytes; on a line with tabs the two differ, and the one
 * that lands on the start of a word wins (bytes when both or neither do).
 */
static size_t column_byte(const char *s, size_t a, size_t e, uint32_t col)
{
	size_t by = a + col - 1, disp = a;
	uint32_t c = 0;
	if (by > e)
		by = e;
	while (disp < e && c + 1 < col) {
		c = s[disp] == '\t' ? (c / 8 + 1) * 8 : c + 1;
		disp++;
	}
	if (disp != by) {
		bool bw = by < e && word_byte((unsigned char)s[by]) &&
			  (by == a || !word_byte((unsigned char)s[by - 1]));
		bool dw = disp < e && word_byte((unsigned char)s[disp]) &&
			  (disp == a || !word_byte((unsigned char)s[disp - 1]));
		if (dw && !bw)
			return disp;
	}
	return by;
}

/* The Diagnostic objects of one file's mi_cdiag lines against text. */
static json_t *diagnostics(const char *dtext, size_t dlen, const char *text, size_t len,
			   int enc)
{
	json_t *arr = json_array(), *last = NULL;
	const char *p = dtext, *end = dtext + dlen;
	mi_lsp_lines lines;
	mi_cdiag d;
	mi_lsp_lines_init(&lines, text, len, enc);
	while (mi_cdiag_next(&p, end, &d)) {
		size_t a = 0, e = 0, at, from, to;
		json_t *o;
		if (d.severity == 'H') {
			/* the hint belongs to the diagnostic before it */
			if (last) {
				mi_buf m = {0};
				mi_buf_addf(&m, "%s\nhint: %.*s",
					    json_string_value(json_object_get(last, "message")),
					    (int)d.msg_len, d.msg);
				json_object_set_new(last, "message", mi_lsp_str(m.buf));
				mi_buf_release(&m);
			}
			continue;
		}
		/* compilers count lines as LSP does: gcc, clang and most
		 * others end one at a lone "\r" too */
		if (d.line >= 1 && d.line <= lines.n) {
			a = lines.start[d.line - 1];
			e = mi_lsp_line_end(&lines, d.line - 1);
		}
		if (d.col) {
			at = column_byte(text, a, e, d.col);
			if (mi_lsp_word_at(text + a, e - a, at - a, &from, &to) && from == at - a)
				from += a, to += a;
			else
				from = at, to = at < e ? at + 1 : at;
		} else {
			from = a + strspn(text + a, " \t");
			to = e;
			if (from > to)
				from = to;
		}
		o = json_pack("{s:o,s:i,s:s,s:o}", "range", mi_lsp_range(&lines, from, to),
			      "severity", d.severity == 'W' ? 2 : 1, "source", "mcpidx compile",
			      "message", mi_lsp_strn(d.msg, d.msg_len));
		json_array_append_new(arr, o);
		last = o;
	}
	mi_lsp_lines_release(&lines);
	return arr;
}

static void publish(mi_lsp_server *s, const char *uri, json_t *diags)
{
	bool had = false;
	size_t i;
	for (i = 0; i < s->npublished; i++)
		if (!strcmp(s->published[i], uri)) {
			had = true;
			break;
		}
	if (!json_array_size(diags) && !had) {
		json_decref(diags);
		return;
	}
	if (json_array_size(diags) && !had) {
		s->published = mi_xrealloc(s->published, (s->npublished + 1) * sizeof *s->published);
		s->published[s->npublished++] = mi_xstrdup(uri);
	} else if (!json_array_size(diags) && had) {
		free(s->published[i]);
		s->published[i] = s->published[--s->npublished];
	}
	mi_lsp_notify(s, "textDocument/publishDiagnostics",
		      json_pack("{s:s,s:o}", "uri", uri, "diagnostics", diags));
}

/* The URI of a repo-relative path. */
static char *uri_of(mi_lsp_server *s, const char *path)
{
	mi_buf b = {0}, u = {0};
	mi_buf_addf(&b, "%s/%s", strcmp(s->root, "/") ? s->root : "", path);
	mi_lsp_path_uri(b.buf, &u);
	mi_buf_release(&b);
	return mi_buf_detach(&u);
}

/* Publishes f against the file's current text (the buffer when open). */
static void publish_file(mi_lsp_server *s, const cfile *f)
{
	char *uri = uri_of(s, f->path), *disk = NULL;
	mi_lsp_doc *d = mi_lsp_doc_find(s, uri);
	const char *text = NULL;
	size_t len = 0;
	uint8_t h[16];
	if (d) {
		text = mi_buf_str(&d->text);
		len = d->text.len;
	} else {
		mi_buf abs = {0};
		mi_buf_addf(&abs, "%s/%s", strcmp(s->root, "/") ? s->root : "", f->path);
		if (!mi_read_file(abs.buf, &disk, &len))
			text = disk;
		mi_buf_release(&abs);
	}
	if (text)
		mi_hash128(text, len, h);
	if (text && (!f->has_hash || !memcmp(h, f->hash, 16)))
		publish(s, uri, diagnostics(f->text, f->len, text, len, s->enc));
	else
		publish(s, uri, json_array());
	free(disk);
	free(uri);
}

void mi_lsp_diags_refresh(mi_lsp_server *s, bool force)
{
	mi_query *q = mi_lsp_query(s);
	cfiles l = {0};
	char *latest = NULL;
	if (!q || mi_query_compile_files(q, NULL, NULL, &latest))
		return;
	if (!force && ((!latest && !s->diag_latest) ||
		       (latest && s->diag_latest && !strcmp(latest, s->diag_latest)))) {
		free(latest);
		return;
	}
	free(s->diag_latest);
	s->diag_latest = latest;
	mi_query_compile_files(q, collect, &l, NULL);
	/* files the new compile no longer names lose their diagnostics */
	for (size_t i = s->npublished; i-- > 0;) {
		bool named = false;
		for (size_t k = 0; k < l.n && !named; k++) {
			char *u = uri_of(s, l.v[k].path);
			named = !strcmp(u, s->published[i]);
			free(u);
		}
		if (!named) {
			char *u = mi_xstrdup(s->published[i]);
			publish(s, u, json_array());
			free(u);
		}
	}
	for (size_t k = 0; k < l.n; k++)
		publish_file(s, &l.v[k]);
	cfiles_release(&l);
}

void mi_lsp_diags_doc(mi_lsp_server *s, mi_lsp_doc *d)
{
	mi_query *q = mi_lsp_query(s);
	cfiles l = {0};
	if (!q || !d->path)
		return;
	mi_query_compile_files(q, collect, &l, NULL);
	for (size_t k = 0; k < l.n; k++)
		if (!strcmp(l.v[k].path, d->path))
			publish_file(s, &l.v[k]);
	cfiles_release(&l);
}

void mi_lsp_diags_release(mi_lsp_server *s)
{
	for (size_t i = 0; i < s->npublished; i++)
		free(s->published[i]);
	free(s->published);
	free(s->diag_latest);
}
