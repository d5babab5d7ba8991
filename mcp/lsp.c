/*
 * lsp.c - the language server's message loop: lifecycle (initialize,
 * shutdown, exit), the method table, open documents, and the index it
 * answers from (found at or above the client's root folder, reopened when
 * a build replaces it).
 */
#include "lsp_int.h"
#include "../indexer/indexer.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MI_IDLE_MS 1000   /* wake this often with no input */

void mi_lsp_log(mi_lsp_server *s, const char *fmt, ...)
{
	char ts[32];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap;
	gmtime_r(&now, &tm);
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(s->log, "%s mcpidx lsp: ", ts);
	va_start(ap, fmt);
	vfprintf(s->log, fmt, ap);
	va_end(ap);
	fputc('\n', s->log);
	fflush(s->log);
}

static void send_json(mi_lsp_server *s, json_t *msg)
{
	char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
	int rc;
	if (!text) {
		mi_lsp_log(s, "a message could not be built; dropped");
		return;
	}
	if ((rc = mi_lsp_write(s->opts->out_fd, text, strlen(text))))
		mi_lsp_log(s, "cannot write to the client: %s", strerror(rc));
	free(text);
}

void mi_lsp_notify(mi_lsp_server *s, const char *method, json_t *params)
{
	json_t *m = json_pack("{s:s,s:s,s:o}", "jsonrpc", "2.0", "method", method,
			      "params", params ? params : json_null());
	send_json(s, m);
	json_decref(m);
}

static void send_result(mi_lsp_server *s, json_t *id, json_t *result)
{
	json_t *m = json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id,
			      "result", result ? result : json_null());
	send_json(s, m);
	json_decref(m);
}

static void send_error(mi_lsp_server *s, json_t *id, int code, const char *msg)
{
	json_t *m = json_pack("{s:s,s:O,s:{s:i,s:o}}", "jsonrpc", "2.0", "id",
			      id ? id : json_null(), "error", "code", code, "message", mi_lsp_str(msg));
	send_json(s, m);
	json_decref(m);
}

/* ---- the index ---------------------------------------------------------- */

static bool is_dir(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* The file whose identity tells whether the index was replaced. */
static void data_file(const char *index, mi_buf *out)
{
	mi_buf_reset(out);
	if (is_dir(index))
		mi_buf_addf(out, "%s/data.mdb", index);
	else
		mi_buf_adds(out, index);
}

mi_query *mi_lsp_query(mi_lsp_server *s)
{
	mi_buf df = {0}, err = {0};
	struct stat sb;
	if (!s->index_path)
		goto out;
	data_file(s->index_path, &df);
	if (stat(df.buf, &sb) != 0) {
		mi_query_close(s->q);
		s->q = NULL;
		goto out;
	}
	if (s->q && s->q_dev == sb.st_dev && s->q_ino == sb.st_ino)
		goto out;
	mi_query_close(s->q);
	s->q = NULL;
	if (mi_query_open(s->index_path, &s->q, &err)) {
		mi_lsp_log(s, "%s", mi_buf_str(&err));
		s->q = NULL;
		goto out;
	}
	s->q_dev = sb.st_dev;
	s->q_ino = sb.st_ino;
	mi_lsp_log(s, "opened index %s", s->index_path);
out:
	mi_buf_release(&df);
	mi_buf_release(&err);
	return s->q;
}

/* The nearest dir at or above start holding .mcpidx; malloc'd or NULL. */
static char *find_repo(const char *start)
{
	char *d = realpath(start, NULL);
	mi_buf b = {0};
	while (d) {
		mi_buf_reset(&b);
		mi_buf_addf(&b, "%s/.mcpidx", strcmp(d, "/") ? d : "");
		if (is_dir(b.buf))
			break;
		if (!strcmp(d, "/")) {
			free(d);
			d = NULL;
			break;
		}
		char *up = mi_xstrdup(dirname(d));
		free(d);
		d = up;
	}
	mi_buf_release(&b);
	return d;
}

/* Chooses the index and the root its paths are relative to, from the
 * options, the client's root folder (may be NULL) and its
 * initializationOptions.index. */
static void choose_index(mi_lsp_server *s, const char *client_root, const char *opt_index)
{
	const char *given = opt_index ? opt_index : s->opts->index;
	char *repo;
	free(s->index_path);
	free(s->root);
	s->index_path = s->root = NULL;
	if (given && *given) {
		char *idx = realpath(given, NULL);
		s->index_path = idx ? idx : mi_xstrdup(given);
		/* REPO given for INDEX: use REPO/.mcpidx */
		if (idx && is_dir(idx)) {
			mi_buf b = {0};
			mi_buf_addf(&b, "%s/.mcpidx", idx);
			if (is_dir(b.buf)) {
				s->root = s->index_path;
				s->index_path = mi_buf_detach(&b);
			}
			mi_buf_release(&b);
		}
		if (!s->root && mi_lsp_query(s)) {
			char *r = mi_query_root(s->q);
			if (r && is_dir(r))
				s->root = r;
			else
				free(r);
		}
		if (!s->root && !strcmp(basename(s->index_path), ".mcpidx")) {
			char *d = mi_xstrdup(s->index_path);
			s->root = mi_xstrdup(dirname(d));
			free(d);
		}
	} else if ((repo = find_repo(client_root ? client_root : "."))) {
		mi_buf b = {0};
		mi_buf_addf(&b, "%s/.mcpidx", strcmp(repo, "/") ? repo : "");
		s->index_path = mi_buf_detach(&b);
		s->root = repo;
	}
	if (!s->root && client_root)
		s->root = realpath(client_root, NULL);
	if (!s->root)
		s->root = realpath(".", NULL);
	if (!s->root)
		s->root = mi_xstrdup("/");
	if (strlen(s->root) > 1 && s->root[strlen(s->root) - 1] == '/')
		s->root[strlen(s->root) - 1] = 0;
	mi_lsp_log(s, "root %s, index %s", s->root, s->index_path ? s->index_path : "(none found)");
}

char *mi_lsp_rel_path(mi_lsp_server *s, const char *abs)
{
	char *real = realpath(abs, NULL);
	/* The real path decides, the path as given only when there is none
	 * (no such file): a link out of the root leads outside it. */
	const char *cands[2] = {real, real ? NULL : abs};
	char *rel = NULL;
	for (int i = 0; i < 2 && !rel; i++) {
		const char *p = cands[i];
		mi_buf norm = {0};
		if (!p || !(p = mi_path_below(s->root, p)))
			continue;
		if (*p && !mi_path_normalize(p, &norm))
			rel = mi_buf_detach(&norm);
		mi_buf_release(&norm);
	}
	free(real);
	return rel;
}

mi_lsp_doc *mi_lsp_doc_find(mi_lsp_server *s, const char *uri)
{
	for (mi_lsp_doc *d = s->docs; d; d = d->next)
		if (!strcmp(d->uri, uri))
			return d;
	return NULL;
}

/* ---- lifecycle ----------------------------------------------------------- */

static const char *str_at(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(o, a);
	if (b)
		v = json_object_get(v, b);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static int on_initialize(mi_lsp_server *s, json_t *params, json_t **result, mi_buf *err)
{
	json_t *caps = json_object_get(params, "capabilities"), *encs, *v;
	json_t *td = json_object_get(caps, "textDocument");
	const char *enc_name = "utf-16";
	char *client_root = NULL;
	size_t i;

	if (!json_is_object(params)) {
		mi_buf_adds(err, "initialize needs params {capabilities, rootUri, ...}");
		return MI_LSP_INVALID_PARAMS;
	}
	s->enc = MI_ENC_UTF16;
	encs = json_object_get(json_object_get(caps, "general"), "positionEncodings");
	json_array_foreach(encs, i, v) {
		const char *e = json_string_value(v);
		if (e && !strcmp(e, "utf-8")) {
			s->enc = MI_ENC_UTF8;
			enc_name = "utf-8";
			break;
		}
		if (e && !strcmp(e, "utf-32") && s->enc == MI_ENC_UTF16) {
			s->enc = MI_ENC_UTF32;
			enc_name = "utf-32";
		}
	}
	s->hier_symbols = json_is_true(json_object_get(json_object_get(td, "documentSymbol"),
							"hierarchicalDocumentSymbolSupport"));
	v = json_object_get(json_object_get(td, "foldingRange"), "rangeLimit");
	s->fold_limit = json_is_integer(v) && json_integer_value(v) > 0 ?
			(size_t)json_integer_value(v) : 0;

	if (str_at(params, "rootUri", NULL))
		client_root = mi_lsp_uri_path(str_at(params, "rootUri", NULL));
	if (!client_root) {
		json_t *wf = json_array_get(json_object_get(params, "workspaceFolders"), 0);
		if (str_at(wf, "uri", NULL))
			client_root = mi_lsp_uri_path(str_at(wf, "uri", NULL));
	}
	if (!client_root && str_at(params, "rootPath", NULL))
		client_root = mi_xstrdup(str_at(params, "rootPath", NULL));
	choose_index(s, client_root, str_at(params, "initializationOptions", "index"));
	free(client_root);

	*result = json_pack("{s:{s:s,s:{s:b,s:i,s:{s:b}},s:b,s:b,s:b,s:b,s:b},"
			    "s:{s:s,s:s}}",
			    "capabilities", "positionEncoding", enc_name,
			    "textDocumentSync", "openClose", 1, "change", 2, "save",
			    "includeText", 0,
			    "foldingRangeProvider", 1, "documentSymbolProvider", 1,
			    "workspaceSymbolProvider", 1, "definitionProvider", 1,
			    "referencesProvider", 1,
			    "serverInfo", "name", "mcpidx", "version", MI_VERSION);
	s->state = 1;
	return 0;
}

static int on_shutdown(mi_lsp_server *s, json_t *params, json_t **result, mi_buf *err)
{
	s->state = 2;
	*result = NULL;
	return 0;
}

/* ---- notifications ---------------------------------------------------------- */

static void on_initialized(mi_lsp_server *s, json_t *params)
{
	mi_lsp_diags_refresh(s, true);
	if (!mi_lsp_query(s) && !s->warned_noindex) {
		mi_buf m = {0};
		s->warned_noindex = true;
		mi_buf_addf(&m, "mcpidx: no index at %s/.mcpidx, so workspace symbols, definitions "
			    "and references are empty; folding and document symbols still work. "
			    "Run: mcpidx build %s", s->root, s->root);
		mi_lsp_notify(s, "window/showMessage",
			      json_pack("{s:i,s:o}", "type", 2, "message", mi_lsp_str(m.buf)));
		mi_buf_release(&m);
	}
}

static void on_did_open(mi_lsp_server *s, json_t *params)
{
	json_t *td = json_object_get(params, "textDocument");
	const char *uri = str_at(td, "uri", NULL), *text = str_at(td, "text", NULL);
	json_t *ver = json_object_get(td, "version");
	mi_lsp_doc *d;
	char *abs;
	if (!uri || !text) {
		mi_lsp_log(s, "didOpen without textDocument.uri and .text; ignored");
		return;
	}
	if ((d = mi_lsp_doc_find(s, uri))) {
		mi_buf_reset(&d->text);
	} else {
		d = mi_xcalloc(1, sizeof *d);
		d->uri = mi_xstrdup(uri);
		mi_parsed_init(&d->parsed);
		abs = mi_lsp_uri_path(uri);
		d->path = abs ? mi_lsp_rel_path(s, abs) : NULL;
		d->lang = abs ? mi_lang_detect(abs) : MI_LANG_NONE;
		if (d->lang == MI_LANG_NONE && str_at(td, "languageId", NULL))
			d->lang = mi_lang_from_name(str_at(td, "languageId", NULL));
		free(abs);
		d->next = s->docs;
		s->docs = d;
	}
	mi_buf_add(&d->text, text, json_string_length(json_object_get(td, "text")));
	d->version = json_is_integer(ver) ? json_integer_value(ver) : 0;
	d->parsed_valid = false;
	mi_lsp_diags_doc(s, d);
}

static void on_did_change(mi_lsp_server *s, json_t *params)
{
	json_t *td = json_object_get(params, "textDocument"), *ch;
	json_t *changes = json_object_get(params, "contentChanges"), *ver;
	const char *uri = str_at(td, "uri", NULL);
	mi_lsp_doc *d = uri ? mi_lsp_doc_find(s, uri) : NULL;
	mi_buf err = {0};
	size_t i;
	if (!d) {
		mi_lsp_log(s, "didChange for %s, which is not open; ignored", uri ? uri : "(no uri)");
		return;
	}
	json_array_foreach(changes, i, ch) {
		if (mi_lsp_doc_change(d, ch, s->enc, &err)) {
			mi_lsp_log(s, "didChange %s: %s; ignored", uri, err.buf);
			mi_buf_reset(&err);
		}
	}
	ver = json_object_get(td, "version");
	if (json_is_integer(ver))
		d->version = json_integer_value(ver);
	mi_buf_release(&err);
	mi_lsp_diags_doc(s, d);
}

static void on_did_close(mi_lsp_server *s, json_t *params)
{
	const char *uri = str_at(params, "textDocument", "uri");
	for (mi_lsp_doc **pp = &s->docs; uri && *pp; pp = &(*pp)->next)
		if (!strcmp((*pp)->uri, uri)) {
			mi_lsp_doc *d = *pp;
			*pp = d->next;
			d->next = NULL;
			/* closed: its diagnostics hold against the disk again */
			mi_lsp_diags_doc(s, d);
			mi_lsp_doc_free(d);
			return;
		}
}

/* ---- dispatch ------------------------------------------------------------------ */

/* One request method: add a row to answer another. */
static const struct {
	const char *name;        /* LSP method */
	mi_lsp_handler fn;       /* its handler */
} requests[] = {
	{"initialize", on_initialize},
	{"shutdown", on_shutdown},
	{"textDocument/foldingRange", mi_lsp_folding},
	{"textDocument/documentSymbol", mi_lsp_doc_symbols},
	{"workspace/symbol", mi_lsp_ws_symbols},
	{"textDocument/definition", mi_lsp_definition},
	{"textDocument/references", mi_lsp_references},
};

/* One notification method; the others are ignored, as LSP allows. */
static const struct {
	const char *name;                              /* LSP method */
	void (*fn)(mi_lsp_server *s, json_t *params);  /* its handler */
} notifications[] = {
	{"initialized", on_initialized},
	{"textDocument/didOpen", on_did_open},
	{"textDocument/didChange", on_did_change},
	{"textDocument/didClose", on_did_close},
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Handles one message; returns true when the client said exit. */
static bool handle(mi_lsp_server *s, const char *body, size_t len)
{
	json_error_t je;
	json_t *msg = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je), *id, *params;
	const char *method;
	bool is_exit = false;
	mi_buf err = {0};
	size_t i;

	if (!msg) {
		mi_buf_addf(&err, "invalid JSON at line %d column %d: %s", je.line, je.column,
			    je.text);
		mi_lsp_log(s, "%s", err.buf);
		send_error(s, NULL, MI_LSP_PARSE_ERROR, err.buf);
		goto out;
	}
	id = json_object_get(msg, "id");
	method = str_at(msg, "method", NULL);
	params = json_object_get(msg, "params");
	if (!json_is_object(msg) || !json_is_string(json_object_get(msg, "jsonrpc")) ||
	    strcmp(json_string_value(json_object_get(msg, "jsonrpc")), "2.0") ||
	    (id && !json_is_integer(id) && !json_is_string(id) && !json_is_null(id))) {
		send_error(s, json_is_integer(id) || json_is_string(id) ? id : NULL,
			   MI_LSP_INVALID_REQUEST, "not a JSON-RPC 2.0 message: it needs "
			   "\"jsonrpc\": \"2.0\", a string \"method\" and an integer or string \"id\"");
		goto out;
	}
	if (!method) {
		if (!json_object_get(msg, "result") && !json_object_get(msg, "error"))
			send_error(s, id, MI_LSP_INVALID_REQUEST, "a message needs a string \"method\"");
		goto out; /* a response to a request of ours: none expects one */
	}
	if (!id) {
		if (!strcmp(method, "exit")) {
			is_exit = true;
			goto out;
		}
		if (s->state != 1)
			goto out; /* before initialize or after shutdown: dropped */
		for (i = 0; i < NELEM(notifications); i++)
			if (!strcmp(notifications[i].name, method))
				notifications[i].fn(s, params);
		goto out;
	}
	for (i = 0; i < NELEM(requests); i++)
		if (!strcmp(requests[i].name, method))
			break;
	if (s->state == 0 && strcmp(method, "initialize")) {
		send_error(s, id, MI_LSP_NOT_INITIALIZED, "the server is not initialized: "
			   "send initialize first");
	} else if (s->state != 0 && !strcmp(method, "initialize")) {
		send_error(s, id, MI_LSP_INVALID_REQUEST, "initialize was already answered");
	} else if (s->state == 2) {
		send_error(s, id, MI_LSP_INVALID_REQUEST, "the server is shutting down: "
			   "only exit is accepted now");
	} else if (i == NELEM(requests)) {
		mi_buf_addf(&err, "unknown method %s", method);
		send_error(s, id, MI_LSP_NO_METHOD, err.buf);
	} else {
		json_t *result = NULL;
		int code = requests[i].fn(s, params, &result, &err);
		if (code)
			send_error(s, id, code, err.buf);
		else
			send_result(s, id, result);
	}
out:
	json_decref(msg);
	mi_buf_release(&err);
	return is_exit;
}

int mi_lsp_serve(const mi_lsp_opts *o)
{
	mi_lsp_server s;
	mi_lsp_reader r = {.fd = o->in_fd};
	mi_buf body = {0}, err = {0};
	int status = 1;

	memset(&s, 0, sizeof s);
	s.opts = o;
	s.log = stderr;
	if (o->log_file && *o->log_file && !(s.log = fopen(o->log_file, "a"))) {
		fprintf(stderr, "mcpidx lsp: cannot open log file %s: %s; check the "
			"directory exists and is writable\n", o->log_file, strerror(errno));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		int rc = mi_lsp_read(&r, MI_IDLE_MS, &body, &err);
		if (rc == 1) {
			mi_lsp_log(&s, "input closed without exit");
			break;
		}
		if (rc == 2) {
			if (s.state == 1)
				mi_lsp_diags_refresh(&s, false);
			continue;
		}
		if (rc < 0) {
			mi_lsp_log(&s, "%s", err.buf);
			send_error(&s, NULL, MI_LSP_PARSE_ERROR, err.buf);
			mi_buf_reset(&err);
			continue;
		}
		if (handle(&s, body.buf, body.len)) {
			status = s.state == 2 ? 0 : 1;
			break;
		}
	}
	while (s.docs) {
		mi_lsp_doc *d = s.docs;
		s.docs = d->next;
		mi_lsp_doc_free(d);
	}
	mi_lsp_diags_release(&s);
	mi_query_close(s.q);
	free(s.index_path);
	free(s.root);
	mi_buf_release(&body);
	mi_buf_release(&err);
	mi_buf_release(&r.in);
	if (s.log != stderr)
		fclose(s.log);
	return status;
}
