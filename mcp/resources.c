/*
 * resources.c - the resources area: resources/list (each kind's listing,
 * one cursor across them), resources/templates/list, resources/read (a URI
 * is matched to its kind by the template's fixed prefix), and the two kinds
 * mcpidx serves: every indexed file's text (mcpidx://file/{+path}) and its
 * folded outline (mcpidx://outline/{+path}{?mode}).
 */
#include "area.h"

#include <stdlib.h>
#include <string.h>

#define MI_LIST_PAGE 200     /* resources per resources/list page */

/* ---- helpers ----------------------------------------------------------------------- */

static const struct {
	const char *ext;
	const char *mime;
} mi_mimes[] = {
	{ ".c", "text/x-c" }, { ".h", "text/x-c" }, { ".cc", "text/x-c++" },
	{ ".cpp", "text/x-c++" }, { ".hpp", "text/x-c++" }, { ".py", "text/x-python" },
	{ ".go", "text/x-go" }, { ".rs", "text/x-rust" },
	{ ".js", "text/javascript" }, { ".mjs", "text/javascript" },
	{ ".ts", "text/x-typescript" }, { ".tsx", "text/x-typescript" },
	{ ".java", "text/x-java" }, { ".cs", "text/x-csharp" },
	{ ".swift", "text/x-swift" }, { ".rb", "text/x-ruby" }, { ".php", "text/x-php" },
	{ ".kt", "text/x-kotlin" }, { ".sh", "text/x-shellscript" },
	{ ".md", "text/markdown" }, { ".json", "application/json" },
};

const char *mi_mcp_mime_type(const char *path)
{
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
	size_t i;
	if (dot && (!slash || dot > slash))
		for (i = 0; i < sizeof mi_mimes / sizeof *mi_mimes; i++)
			if (strcmp(dot, mi_mimes[i].ext) == 0)
				return mi_mimes[i].mime;
	return "text/plain";
}

void mi_mcp_base64(mi_buf *out, const void *data, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = data;
	size_t i;
	for (i = 0; i + 2 < n; i += 3) {
		mi_buf_addc(out, tab[p[i] >> 2]);
		mi_buf_addc(out, tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)]);
		mi_buf_addc(out, tab[((p[i + 1] & 15) << 2) | (p[i + 2] >> 6)]);
		mi_buf_addc(out, tab[p[i + 2] & 63]);
	}
	if (i < n) {
		mi_buf_addc(out, tab[p[i] >> 2]);
		if (i + 1 < n) {
			mi_buf_addc(out, tab[((p[i] & 3) << 4) | (p[i + 1] >> 4)]);
			mi_buf_addc(out, tab[(p[i + 1] & 15) << 2]);
		} else {
			mi_buf_addc(out, tab[(p[i] & 3) << 4]);
			mi_buf_addc(out, '=');
		}
		mi_buf_addc(out, '=');
	}
}

/* Appends one content item ({uri, mimeType, text|blob}) for data. */
void mi_mcp_resource_contents(mi_buf *out, const char *uri, const char *mime,
			      const char *data, size_t n)
{
	mi_buf_adds(out, "{\"uri\":");
	mi_buf_add_json_str(out, uri, strlen(uri));
	if (mime)
		mi_buf_addf(out, ",\"mimeType\":\"%s\"", mime);
	if (mi_utf8_valid(data, n) && !memchr(data, 0, n)) {
		mi_buf_adds(out, ",\"text\":");
		mi_buf_add_json_str(out, data, n);
	} else {
		mi_buf_adds(out, ",\"blob\":\"");
		mi_mcp_base64(out, data, n);
		mi_buf_addc(out, '"');
	}
	mi_buf_addc(out, '}');
}

/* The fixed part of a template: everything before its first '{'. */
static size_t template_prefix(const char *tmpl)
{
	const char *b = strchr(tmpl, '{');
	return b ? (size_t)(b - tmpl) : strlen(tmpl);
}

/* Decodes %XX escapes of s[0..n) into out; false on a bad escape or NUL. */
static bool uri_decode(const char *s, size_t n, mi_buf *out)
{
	size_t i;
	for (i = 0; i < n; i++) {
		if (s[i] == '%') {
			unsigned v = 0, k;
			for (k = 1; k <= 2; k++) {
				char ch = i + k < n ? s[i + k] : 0;
				int d = ch >= '0' && ch <= '9' ? ch - '0' :
					ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 :
					ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
				if (d < 0)
					return false; /* "%0g" was 'c', a trailing "%4" 0xa3 */
				v = v * 16 + (unsigned)d;
			}
			if (v == 0)
				return false;
			mi_buf_addc(out, (char)v);
			i += 2;
		} else {
			mi_buf_addc(out, s[i]);
		}
	}
	return true;
}

/* The value of query parameter key in uri (after '?'), decoded, or NULL. */
static const char *uri_param(const char *uri, const char *key, mi_buf *val)
{
	const char *q = strchr(uri, '?');
	size_t kl = strlen(key);
	while (q && *q) {
		const char *p = q + 1, *amp = strchr(p, '&');
		size_t n = amp ? (size_t)(amp - p) : strlen(p);
		if (n > kl && strncmp(p, key, kl) == 0 && p[kl] == '=') {
			mi_buf_reset(val);
			if (uri_decode(p + kl + 1, n - kl - 1, val))
				return mi_buf_str(val);
			return NULL;
		}
		q = amp;
	}
	return NULL;
}

/* ---- the methods ------------------------------------------------------------------- */

/* resources/list of one repository; cursor as given (or NULL). */
static int list_env(mi_mcp_ctx *c, const mi_mcp_spec *spec, const char *cursor,
		    mi_buf *out, mi_buf *msg)
{
	size_t k = 0, nk = 0, i;
	const char *inner = NULL;
	mi_buf items = {0}, next = {0};
	int rc = 0;
	while (spec->resources && spec->resources[nk])
		nk++;
	if (cursor) {
		char *end;
		k = strtoul(cursor, &end, 10);
		if (*end != '|' || k >= nk) {
			mi_buf_addf(msg, "Invalid cursor %.60s: pass nextCursor from the "
				    "previous resources/list answer", cursor);
			rc = MI_RPC_INVALID_PARAMS;
			goto out;
		}
		inner = end + 1;
	}
	mi_buf_adds(out, "{\"resources\":[");
	for (i = k; i < nk; i++) {
		const mi_mcp_resource_kind *rk = spec->resources[i];
		if (!rk->list)
			continue;
		mi_buf_reset(&items);
		mi_buf_reset(&next);
		rc = rk->list(c, i == k ? inner : NULL, MI_LIST_PAGE, &items, &next);
		if (rc) {
			mi_buf_reset(out);
			mi_buf_addf(msg, "cannot list %s resources: %s", rk->name,
				    mi_strerror(rc));
			rc = MI_RPC_INTERNAL;
			goto out;
		}
		mi_buf_add(out, items.buf, items.len);
		if (next.len) {
			mi_buf_addf(out, "],\"nextCursor\":\"%zu|", i);
			mi_buf_add(out, next.buf, next.len);
			mi_buf_adds(out, "\"}");
			goto out;
		}
		if (items.len) {
			/* One kind per page keeps the cursor simple. */
			size_t j;
			for (j = i + 1; j < nk && !spec->resources[j]->list; j++)
				;
			if (j < nk) {
				mi_buf_addf(out, "],\"nextCursor\":\"%zu|\"}", j);
				goto out;
			}
		}
	}
	mi_buf_adds(out, "]}");
out:
	mi_buf_release(&items);
	mi_buf_release(&next);
	return rc;
}

/* ---- a workspace: URIs carry the repository ---------------------------------------------------
 *
 * With several repositories served, a resource of mcpidx's kinds is
 * mcpidx://KIND/REPO/PATH: the template's fixed part, the repository's
 * name, then what one repository would have. */

static bool workspace(const mi_mcp_ctx *c, const mi_mcp_spec *spec)
{
	return spec->index && c->env->nrepos > 1;
}

/* The template of rk in a workspace: "{repo}/" after the fixed part. */
static void ws_template(const mi_mcp_resource_kind *rk, mi_buf *out)
{
	size_t n = template_prefix(rk->uri_template);
	mi_buf_add(out, rk->uri_template, n);
	mi_buf_adds(out, "{repo}/");
	mi_buf_adds(out, rk->uri_template + n);
}

/* A copy of c on the repository a workspace URI names (after the kind's
 * prefix), and the URI one repository would have in inner; false when
 * no repository of that name is served. */
static bool ws_split(mi_mcp_ctx *c, const mi_mcp_resource_kind *rk, const char *uri,
		     mi_mcp_ctx *sub, mi_buf *inner)
{
	size_t n = template_prefix(rk->uri_template);
	const char *r = uri + n, *sl = strchr(r, '/');
	mi_buf name = {0};
	mi_mcp_env *e;
	if (!sl)
		return false;
	mi_buf_add(&name, r, (size_t)(sl - r));
	e = mi_mcp_env_repo(c->env, name.buf);
	mi_buf_release(&name);
	if (!e)
		return false;
	*sub = *c;
	sub->env = e;
	mi_buf_add(inner, uri, n);
	mi_buf_adds(inner, sl + 1);
	return true;
}

/* Puts repo into the URIs (and titles) of a list answer's resources. */
static void ws_rename(const mi_mcp_spec *spec, json_t *res, const char *repo)
{
	size_t i, k;
	json_t *it;
	json_array_foreach(res, i, it) {
		const char *u = mi_mcp_arg_str(it, "uri", "");
		for (k = 0; spec->resources[k]; k++) {
			const char *t = spec->resources[k]->uri_template;
			size_t n = template_prefix(t);
			mi_buf b = {0};
			if (strncmp(u, t, n))
				continue;
			mi_buf_add(&b, u, n);
			mi_buf_addf(&b, "%s/%s", repo, u + n);
			json_object_set_new(it, "uri", json_string(b.buf));
			mi_buf_reset(&b);
			mi_buf_addf(&b, "%s/%s", repo, mi_mcp_arg_str(it, "title", ""));
			json_object_set_new(it, "title", json_string(b.buf));
			mi_buf_release(&b);
			break;
		}
	}
}

/* resources/list in a workspace: repository after repository; the cursor
 * is "R:" (the repository's number) then that repository's cursor. */
static int ws_list(mi_mcp_ctx *c, const mi_mcp_spec *spec, const char *cursor,
		   mi_buf *out, mi_buf *msg)
{
	size_t r = 0;
	const char *inner = NULL;
	mi_buf one = {0};
	mi_mcp_ctx sub = *c;
	json_t *j = NULL, *next;
	char *s;
	int rc;
	if (cursor) {
		char *end;
		r = strtoul(cursor, &end, 10);
		if (*end != ':' || r >= c->env->nrepos) {
			mi_buf_addf(msg, "Invalid cursor %.60s: pass nextCursor from the "
				    "previous resources/list answer", cursor);
			return MI_RPC_INVALID_PARAMS;
		}
		inner = *(end + 1) ? end + 1 : NULL;
	}
	sub.env = c->env->repos[r];
	rc = list_env(&sub, spec, inner, &one, msg);
	if (rc)
		goto out;
	j = json_loadb(one.buf, one.len, 0, NULL);
	if (!j) {
		mi_buf_adds(msg, "cannot list resources");
		rc = MI_RPC_INTERNAL;
		goto out;
	}
	ws_rename(spec, json_object_get(j, "resources"), sub.env->name);
	next = json_object_get(j, "nextCursor");
	if (json_is_string(next) || r + 1 < c->env->nrepos) {
		mi_buf nc = {0};
		if (json_is_string(next))
			mi_buf_addf(&nc, "%zu:%s", r, json_string_value(next));
		else
			mi_buf_addf(&nc, "%zu:", r + 1);
		json_object_set_new(j, "nextCursor", json_string(nc.buf));
		mi_buf_release(&nc);
	}
	s = json_dumps(j, JSON_COMPACT);
	mi_buf_adds(out, s);
	free(s);
out:
	json_decref(j);
	mi_buf_release(&one);
	return rc;
}

int mi_mcp_resources_list(mi_mcp_ctx *c, const mi_mcp_spec *spec, json_t *params,
			  mi_buf *out, mi_buf *msg)
{
	const char *cursor = mi_mcp_arg_str(params, "cursor", NULL);
	if (workspace(c, spec))
		return ws_list(c, spec, cursor, out, msg);
	return list_env(c, spec, cursor, out, msg);
}

void mi_mcp_resources_templates(const mi_mcp_spec *spec, mi_mcp_env *env, mi_buf *out)
{
	size_t i;
	bool first = true;
	mi_buf_adds(out, "{\"resourceTemplates\":[");
	for (i = 0; spec->resources && spec->resources[i]; i++) {
		const mi_mcp_resource_kind *rk = spec->resources[i];
		if (!strchr(rk->uri_template, '{'))
			continue;
		if (!first)
			mi_buf_addc(out, ',');
		first = false;
		mi_buf_adds(out, "{\"uriTemplate\":");
		if (spec->index && env && env->nrepos > 1) {
			mi_buf t = {0};
			ws_template(rk, &t);
			mi_buf_add_json_str(out, t.buf, t.len);
			mi_buf_release(&t);
		} else {
			mi_buf_add_json_str(out, rk->uri_template, strlen(rk->uri_template));
		}
		mi_buf_adds(out, ",\"name\":");
		mi_buf_add_json_str(out, rk->name, strlen(rk->name));
		if (rk->title) {
			mi_buf_adds(out, ",\"title\":");
			mi_buf_add_json_str(out, rk->title, strlen(rk->title));
		}
		mi_buf_adds(out, ",\"description\":");
		mi_buf_add_json_str(out, rk->description, strlen(rk->description));
		if (rk->mime_type)
			mi_buf_addf(out, ",\"mimeType\":\"%s\"", rk->mime_type);
		mi_buf_addc(out, '}');
	}
	mi_buf_adds(out, "]}");
}

const mi_mcp_resource_kind *mi_mcp_resource_match(const mi_mcp_spec *spec,
						   const char *uri)
{
	size_t i;
	for (i = 0; spec->resources && spec->resources[i]; i++) {
		const mi_mcp_resource_kind *rk = spec->resources[i];
		size_t n = template_prefix(rk->uri_template);
		bool fixed = !strchr(rk->uri_template, '{');
		if (fixed ? strcmp(uri, rk->uri_template) == 0 :
			    strncmp(uri, rk->uri_template, n) == 0 && uri[n])
			return rk;
	}
	return NULL;
}

int mi_mcp_resources_read(mi_mcp_ctx *c, const mi_mcp_spec *spec, json_t *params,
			  mi_buf *out, mi_buf *msg, mi_buf *data)
{
	const char *uri = mi_mcp_arg_str(params, "uri", NULL);
	const mi_mcp_resource_kind *rk;
	mi_buf items = {0};
	int rc = 0;
	bool modern = mi_mcp_version_stateless(c->version);
	if (!uri || !*uri) {
		mi_buf_adds(msg, "resources/read needs params.uri (see resources/list "
			    "and resources/templates/list)");
		rc = MI_RPC_INVALID_PARAMS;
		goto out;
	}
	rk = mi_mcp_resource_match(spec, uri);
	if (rk && workspace(c, spec)) {
		mi_mcp_ctx sub;
		mi_buf inner = {0};
		rc = ws_split(c, rk, uri, &sub, &inner) ?
		     rk->read(&sub, inner.buf, &items, msg) : MI_ERR_NOTFOUND;
		if (!rc) {
			/* The contents name the URI as asked. */
			json_t *j = json_loadb(items.buf, items.len, JSON_DISABLE_EOF_CHECK, NULL);
			char *s;
			if (j) {
				json_object_set_new(j, "uri", json_string(uri));
				s = json_dumps(j, JSON_COMPACT);
				mi_buf_reset(&items);
				mi_buf_adds(&items, s);
				free(s);
				json_decref(j);
			}
		}
		mi_buf_release(&inner);
	} else {
		rc = rk ? rk->read(c, uri, &items, msg) : MI_ERR_NOTFOUND;
	}
	if (rc == MI_ERR_NOTFOUND) {
		mi_buf_reset(msg);
		mi_buf_addf(msg, "Resource not found: %.200s", uri);
		mi_buf_adds(data, "{\"uri\":");
		/* the URI asked for, cut as the message's is */
		mi_buf_add_json_str(data, uri, mi_utf8_prefix(uri, strlen(uri), 512));
		mi_buf_addc(data, '}');
		rc = modern ? MI_RPC_INVALID_PARAMS : MI_RPC_RESOURCE_NOT_FOUND_OLD;
		goto out;
	}
	if (rc) {
		if (!msg->len)
			mi_buf_addf(msg, "cannot read %.200s: %s", uri, mi_strerror(rc));
		rc = rc == MI_ERR_ARG ? MI_RPC_INVALID_PARAMS : MI_RPC_INTERNAL;
		goto out;
	}
	mi_buf_adds(out, "{\"contents\":[");
	mi_buf_add(out, items.buf, items.len);
	mi_buf_adds(out, "]}");
out:
	mi_buf_release(&items);
	return rc;
}

/* ---- mcpidx's kinds: indexed files and their outlines ---------------------------------- */

typedef struct list_ctx {
	mi_buf *out;       /* Resource objects */
	mi_buf last;       /* path of the last one, for the cursor */
	bool first;        /* nothing written yet */
} list_ctx;

static void list_one(void *arg, const char *path, size_t len, uint64_t size,
		     uint32_t lines, int lang)
{
	list_ctx *lc = arg;
	mi_buf p = {0}, uri = {0};
	const char *base;
	mi_buf_add(&p, path, len);
	base = strrchr(p.buf, '/');
	base = base ? base + 1 : p.buf;
	mi_mcp_file_uri(&uri, "file", p.buf);
	if (!lc->first)
		mi_buf_addc(lc->out, ',');
	lc->first = false;
	mi_buf_adds(lc->out, "{\"uri\":");
	mi_buf_add_json_str(lc->out, uri.buf, uri.len);
	mi_buf_adds(lc->out, ",\"name\":");
	mi_buf_add_json_str(lc->out, base, strlen(base));
	mi_buf_adds(lc->out, ",\"title\":");
	mi_buf_add_json_str(lc->out, p.buf, p.len);
	mi_buf_addf(lc->out, ",\"mimeType\":\"%s\",\"size\":%llu}",
		    mi_mcp_mime_type(p.buf), (unsigned long long)size);
	mi_buf_reset(&lc->last);
	mi_buf_add(&lc->last, path, len);
	mi_buf_release(&p);
	mi_buf_release(&uri);
}

static int file_list(mi_mcp_ctx *c, const char *cursor, size_t limit, mi_buf *out,
		     mi_buf *next)
{
	mi_query *q;
	mi_buf err = {0}, after = {0};
	list_ctx lc = { out, {0}, true };
	bool more = false;
	int rc;
	if (cursor && *cursor && !uri_decode(cursor, strlen(cursor), &after)) {
		mi_buf_release(&after);
		return MI_ERR_ARG;
	}
	rc = mi_mcp_index_get(c->env, &q, &err);
	if (rc == MI_ERR_NOINDEX) {
		rc = 0;      /* no index yet: no resources */
		goto out;
	}
	if (rc)
		goto out;
	rc = mi_query_files(q, after.len ? after.buf : NULL, limit, list_one, &lc,
			    &more);
	mi_mcp_index_put(c->env);
	if (!rc && more) {
		/* The cursor is the last path, percent-encoded. */
		mi_buf enc = {0};
		mi_mcp_file_uri(&enc, "x", lc.last.buf);
		mi_buf_adds(next, enc.buf + strlen("mcpidx://x/"));
		mi_buf_release(&enc);
	}
out:
	mi_buf_release(&err);
	mi_buf_release(&after);
	mi_buf_release(&lc.last);
	return rc;
}

/* The repo-relative path named by uri after its kind's prefix. */
static int uri_path(const char *uri, size_t prefix, mi_buf *path, mi_buf *err)
{
	const char *p = uri + prefix, *q = strchr(p, '?');
	mi_buf raw = {0};
	int rc = 0;
	if (!uri_decode(p, q ? (size_t)(q - p) : strlen(p), &raw) ||
	    mi_path_normalize(mi_buf_str(&raw), path) != 0) {
		mi_buf_addf(err, "Bad resource path in %.200s: it must be a "
			    "repo-relative path", uri);
		rc = MI_ERR_ARG;
	}
	mi_buf_release(&raw);
	return rc;
}

static int file_read(mi_mcp_ctx *c, const char *uri, mi_buf *out, mi_buf *err)
{
	mi_query *q;
	mi_buf path = {0};
	char *src = NULL;
	size_t len = 0;
	int rc = uri_path(uri, strlen("mcpidx://file/"), &path, err);
	if (rc)
		goto out;
	rc = mi_mcp_index_get(c->env, &q, err);
	if (rc)
		goto out;
	rc = mi_query_source(q, path.buf, &src, &len);
	mi_mcp_index_put(c->env);
	if (!rc)
		mi_mcp_resource_contents(out, uri, mi_mcp_mime_type(path.buf), src, len);
out:
	mi_buf_release(&path);
	free(src);
	return rc;
}

static int outline_read(mi_mcp_ctx *c, const char *uri, mi_buf *out, mi_buf *err)
{
	mi_query *q;
	mi_buf path = {0}, mode = {0}, filter = {0};
	mi_view_opts vo;
	mi_out o;
	const char *m;
	int rc = uri_path(uri, strlen("mcpidx://outline/"), &path, err);
	memset(&o, 0, sizeof o);
	if (rc)
		goto out;
	memset(&vo, 0, sizeof vo);
	m = uri_param(uri, "mode", &mode);
	vo.mode = m ? m : "outline";
	if (strcmp(vo.mode, "outline") && strcmp(vo.mode, "compact")) {
		mi_buf_addf(err, "mode must be outline or compact in %.200s", uri);
		rc = MI_ERR_ARG;
		goto out;
	}
	vo.all = uri_param(uri, "filter", &filter) &&
		 strcmp(mi_buf_str(&filter), "all") == 0;
	vo.max_tokens = 200000;
	rc = mi_mcp_index_get(c->env, &q, err);
	if (rc)
		goto out;
	rc = mi_query_read_file(q, path.buf, &vo, &o);
	mi_mcp_index_put(c->env);
	if (!rc && o.is_error)
		rc = MI_ERR_NOTFOUND;
	if (!rc)
		mi_mcp_resource_contents(out, uri, "text/plain", mi_buf_str(&o.text),
					 o.text.len);
out:
	mi_out_release(&o);
	mi_buf_release(&path);
	mi_buf_release(&mode);
	mi_buf_release(&filter);
	return rc;
}

typedef struct complete_ctx {
	const char *prefix;   /* what the client typed */
	size_t pl;            /* its length */
	mi_buf *values;       /* JSON strings, comma-separated */
	size_t n;             /* values written */
	size_t total;         /* matches seen */
	bool done;            /* past the prefix's range */
} complete_ctx;

static void complete_one(void *arg, const char *path, size_t len, uint64_t size,
			 uint32_t lines, int lang)
{
	complete_ctx *cc = arg;
	size_t m = len < cc->pl ? len : cc->pl;
	int cmp = memcmp(path, cc->prefix, m);
	if (cc->done || cmp < 0 || (cmp == 0 && len < cc->pl))
		return;      /* before the prefix's range */
	if (cmp > 0) {
		cc->done = true;
		return;
	}
	cc->total++;
	if (cc->n == 100)
		return;
	if (cc->n++)
		mi_buf_addc(cc->values, ',');
	mi_buf_add_json_str(cc->values, path, len);
}

static int file_complete(mi_mcp_ctx *c, const char *var, const char *prefix,
			 mi_buf *values, size_t *total)
{
	mi_query *q;
	mi_buf err = {0}, after = {0};
	complete_ctx cc = { prefix, strlen(prefix), values, 0, 0, false };
	bool more;
	int rc;
	*total = 0;
	if (strcmp(var, "path"))
		return 0;
	rc = mi_mcp_index_get(c->env, &q, &err);
	if (rc) {
		mi_buf_release(&err);
		return rc == MI_ERR_NOINDEX ? 0 : rc;
	}
	/* Files sort by path: start just before the prefix, stop past it. */
	if (cc.pl) {
		mi_buf_add(&after, prefix, cc.pl - 1);
		mi_buf_addc(&after, (char)(prefix[cc.pl - 1] - 1));
	}
	rc = mi_query_files(q, after.len ? after.buf : NULL, 10000, complete_one, &cc,
			    &more);
	mi_mcp_index_put(c->env);
	*total = cc.total;
	mi_buf_release(&err);
	mi_buf_release(&after);
	return rc;
}

const mi_mcp_resource_kind mi_mcp_resource_file = {
	"file", "Indexed file",
	"mcpidx://file/{+path}",
	"The text of an indexed file, as indexed (path is repo-relative).",
	NULL, file_list, file_read, file_complete,
};

const mi_mcp_resource_kind mi_mcp_resource_outline = {
	"outline", "Folded outline",
	"mcpidx://outline/{+path}{?mode,filter}",
	"A file's folded outline: one line per symbol, bodies as { ... }; "
	"mode outline or compact, filter public or all.",
	"text/plain", NULL, outline_read, file_complete,
};

int mi_mcp_resources_ws_complete(mi_mcp_ctx *c, const mi_mcp_spec *spec,
				 const char *uri, const char *var, const char *prefix,
				 mi_buf *values, size_t *total, int *rc)
{
	const mi_mcp_resource_kind *rk = NULL;
	size_t i, n = 0;
	*rc = 0;
	if (!workspace(c, spec))
		return 0;
	for (i = 0; spec->resources[i] && !rk; i++) {
		mi_buf t = {0};
		ws_template(spec->resources[i], &t);
		if (strcmp(t.buf, uri) == 0)
			rk = spec->resources[i];
		mi_buf_release(&t);
	}
	if (!rk)
		return 0;
	*total = 0;
	for (i = 0; c->env->repos[i] && !*rc; i++) {
		mi_mcp_env *e = c->env->repos[i];
		if (strcmp(var, "repo") == 0) {
			if (strncmp(e->name, prefix, strlen(prefix)))
				continue;
			if (n++)
				mi_buf_addc(values, ',');
			mi_buf_add_json_str(values, e->name, strlen(e->name));
			(*total)++;
		} else if (rk->complete) {
			/* A path: every repository's, up to the page. */
			mi_mcp_ctx sub = *c;
			mi_buf v = {0};
			size_t t = 0;
			sub.env = e;
			*rc = rk->complete(&sub, var, prefix, &v, &t);
			if (v.len && n < 100) {
				if (n)
					mi_buf_addc(values, ',');
				mi_buf_add(values, v.buf, v.len);
				n += t < 100 ? t : 100;
			}
			*total += t;
			mi_buf_release(&v);
		}
	}
	return 1;
}
