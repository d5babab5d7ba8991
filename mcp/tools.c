/*
 * tools.c - the tools area: the registry built from a server's tool groups
 * (tools/list shows the groups that apply, rows in order), argument checks
 * against each row's inputSchema, and the CallToolResult: the handler's text
 * and JSON held to max_tokens (budget.c), resource links to the files the
 * answer names, and content annotations.  Handlers live in tool_*.c, one
 * file per group; this file knows none of them.
 */
#include "area.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MI_LINKS_MAX 5      /* resource links per answer */

/* One row of the registry, with its parsed inputSchema. */
typedef struct tool_entry {
	const mi_mcp_tool *t;           /* the row */
	const mi_mcp_tool_group *g;     /* its group */
	json_t *schema;                 /* parsed input_schema */
} tool_entry;

struct mi_mcp_tools {
	tool_entry *e;                  /* every row of every group, in order */
	size_t n;                       /* rows */
};

/* ---- arguments ----------------------------------------------------------------- */

const char *mi_mcp_arg_str(json_t *args, const char *k, const char *def)
{
	json_t *v = args ? json_object_get(args, k) : NULL;
	return json_is_string(v) ? json_string_value(v) : def;
}

long long mi_mcp_arg_int(json_t *args, const char *k, long long def)
{
	json_t *v = args ? json_object_get(args, k) : NULL;
	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_real(v))
		return (long long)json_real_value(v);
	return def;
}

double mi_mcp_arg_num(json_t *args, const char *k, double def)
{
	json_t *v = args ? json_object_get(args, k) : NULL;
	return json_is_number(v) ? json_number_value(v) : def;
}

bool mi_mcp_arg_bool(json_t *args, const char *k, bool def)
{
	json_t *v = args ? json_object_get(args, k) : NULL;
	return json_is_boolean(v) ? json_is_true(v) : def;
}

/* ---- results ---------------------------------------------------------------------- */

void mi_mcp_result_release(mi_mcp_result *r)
{
	mi_out_release(&r->out);
	mi_buf_release(&r->blocks);
	mi_buf_release(&r->input_required);
	mi_buf_release(&r->meta);
	mi_buf_release(&r->raw);
	memset(r, 0, sizeof *r);
}

/* Replaces r with src (src is left empty). */
static void mi_mcp_result_reset_to(mi_mcp_result *r, mi_mcp_result *src)
{
	mi_mcp_result_release(r);
	*r = *src;
	memset(src, 0, sizeof *src);
}

int mi_mcp_result_error(mi_mcp_result *r, const char *fmt, ...)
{
	va_list ap;
	mi_out_reset(&r->out);
	va_start(ap, fmt);
	mi_buf_vaddf(&r->out.text, fmt, ap);
	va_end(ap);
	r->out.is_error = true;
	return MI_ERR_ARG;
}

/* Appends a percent-encoded path (RFC 3986 pchar, '/' kept). */
static void put_uri_path(mi_buf *b, const char *p)
{
	static const char hex[] = "0123456789ABCDEF";
	for (; *p; p++) {
		unsigned char ch = (unsigned char)*p;
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || strchr("-._~/!$&'()*+,;=:@", ch))
			mi_buf_addc(b, (char)ch);
		else
			mi_buf_addf(b, "%%%c%c", hex[ch >> 4], hex[ch & 15]);
	}
}

void mi_mcp_file_uri(mi_buf *b, const char *kind, const char *path)
{
	mi_buf_addf(b, "mcpidx://%s/", kind);
	put_uri_path(b, path);
}

/* A resource link to path, in repository repo of a workspace (or NULL). */
static void link_repo(mi_mcp_result *r, const char *repo, const char *path,
		      unsigned from, unsigned to, const char *description)
{
	mi_buf uri = {0}, rp = {0};
	const char *base = strrchr(path, '/');
	if (repo) {
		mi_buf_addf(&rp, "%s/%s", repo, path);
		path = rp.buf;
	}
	mi_mcp_file_uri(&uri, "file", path);
	if (r->blocks.len)
		mi_buf_addc(&r->blocks, ',');
	mi_buf_adds(&r->blocks, "{\"type\":\"resource_link\",\"uri\":");
	mi_buf_add_json_str(&r->blocks, uri.buf, uri.len);
	mi_buf_adds(&r->blocks, ",\"name\":");
	base = base ? base + 1 : path;
	mi_buf_add_json_str(&r->blocks, base, strlen(base));
	mi_buf_adds(&r->blocks, ",\"title\":");
	mi_buf_add_json_str(&r->blocks, path, strlen(path));
	mi_buf_addf(&r->blocks, ",\"mimeType\":\"%s\"", mi_mcp_mime_type(path));
	if (from || (description && *description)) {
		mi_buf d = {0};
		if (from && to > from)
			mi_buf_addf(&d, "lines %u-%u", from, to);
		else if (from)
			mi_buf_addf(&d, "line %u", from);
		if (description && *description)
			mi_buf_addf(&d, "%s%s", d.len ? ": " : "", description);
		mi_buf_adds(&r->blocks, ",\"description\":");
		mi_buf_add_json_str(&r->blocks, d.buf, d.len);
		mi_buf_release(&d);
	}
	mi_buf_adds(&r->blocks, ",\"annotations\":{\"audience\":[\"user\"],"
		    "\"priority\":0.5}}");
	mi_buf_release(&uri);
	mi_buf_release(&rp);
}

void mi_mcp_result_link(mi_mcp_result *r, const char *path, unsigned from,
			unsigned to, const char *description)
{
	link_repo(r, NULL, path, from, to, description);
}

static bool json_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The end of the JSON value that starts at p (after blanks), or NULL when
 * it does not end before e.  Only finds its extent: json_loadb checks it. */
static const char *json_skip(const char *p, const char *e)
{
	int depth = 0;
	while (p < e && json_blank(*p))
		p++;
	do {
		if (p >= e)
			return NULL;
		char c = *p++;
		if (c == '"') {
			while (p < e && *p != '"')
				p += *p == '\\' ? 2 : 1;
			if (p >= e)
				return NULL;
			p++;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (--depth < 0)
				return NULL;
		} else if (!depth) {
			while (p < e && !json_blank(*p) && *p != ',' && *p != ']' && *p != '}')
				p++;
		}
	} while (depth > 0);
	return p;
}

/* One member of an answer's top-level object: its key (without quotes)
 * and its value's text. */
typedef struct json_member {
	const char *k, *v;
	size_t kl, vl;
} json_member;

static const json_member *member(const json_member *m, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (m[i].kl == strlen(key) && !memcmp(m[i].k, key, m[i].kl))
			return &m[i];
	return NULL;
}

/* The top-level members links are made from, and an item's. */
static const char *const link_keys[] = {"repo", "path", "start_line", "end_line", "name",
					"results", "references", "definitions", "nodes", NULL};
static const char *const item_keys[] = {"repo", "path", "start_line", "line", "end_line",
					"name", "caller", "breadcrumb", NULL};
#define LINK_MEMBERS 10         /* the most keys of a list above */

/* The members of the object in buf[0..len) named in keys (NULL-ended;
 * the first of each name): their number, or -1 when it is not an object.
 * The other members' values are stepped over, not parsed. */
static int json_members(const char *buf, size_t len, const char *const *keys, json_member *m)
{
	const char *p = buf, *e = buf + len, *q;
	int n = 0;
	while (p < e && json_blank(*p))
		p++;
	if (p == e || *p++ != '{')
		return -1;
	for (;;) {
		while (p < e && json_blank(*p))
			p++;
		if (p < e && *p == '}' && !n)
			return 0;
		if (p == e || *p != '"' || !(q = json_skip(p, e)))
			return -1;
		json_member mb = {p + 1, NULL, (size_t)(q - p - 2), 0};
		for (p = q; p < e && json_blank(*p); p++)
			;
		if (p == e || *p++ != ':')
			return -1;
		while (p < e && json_blank(*p))
			p++;
		if (!(q = json_skip(p, e)))
			return -1;
		mb.v = p;
		mb.vl = (size_t)(q - p);
		for (size_t i = 0; keys[i]; i++)
			if (mb.kl == strlen(keys[i]) && !memcmp(mb.k, keys[i], mb.kl)) {
				if (!member(m, n, keys[i]))
					m[n++] = mb;
				break;
			}
		for (p = q; p < e && json_blank(*p); p++)
			;
		if (p < e && *p == ',') {
			p++;
			continue;
		}
		return p < e && *p == '}' ? n : -1;
	}
}

/* An object of the members of buf[0..len) named in keys, each parsed
 * alone; NULL when it is not an object. */
static json_t *json_pick(const char *buf, size_t len, const char *const *keys,
			 json_member *m, int *nm)
{
	if ((*nm = json_members(buf, len, keys, m)) < 0)
		return NULL;
	json_t *j = json_object();
	for (size_t k = 0; keys[k]; k++) {
		const json_member *mb = member(m, *nm, keys[k]);
		json_t *v = mb && mb->v[0] != '[' && mb->v[0] != '{' ?
			    json_loadb(mb->v, mb->vl, JSON_DECODE_ANY, NULL) : NULL;
		if (v)
			json_object_set_new(j, keys[k], v);
	}
	return j;
}

/* Links to the files an answer names: its own path, or the paths of the
 * items of its result array, at most MI_LINKS_MAX distinct files.  In a
 * workspace the answer's (or each item's) repo goes into the URI.  Only
 * the members and items the links come from are parsed (an answer of 50
 * definitions costs a fifth of the call to parse whole). */
static void auto_links(mi_mcp_result *r, const mi_mcp_tool *t)
{
	const char *repo;
	static const char *const keys[] = {"results", "references", "definitions",
					   "nodes", NULL};
	json_member m[LINK_MEMBERS];
	json_t *j = NULL, *held[MI_LINKS_MAX];
	const json_member *a = NULL;
	const char *seen[MI_LINKS_MAX], *seen_repo[MI_LINKS_MAX];
	size_t ns = 0, k;
	int nm;
	if (!r->out.json.len ||
	    !(j = json_pick(r->out.json.buf, r->out.json.len, link_keys, m, &nm)))
		return;
	repo = mi_mcp_arg_str(j, "repo", NULL);
	if (json_is_string(json_object_get(j, "path"))) {
		json_t *s = json_object_get(j, "start_line");
		json_t *e = json_object_get(j, "end_line");
		link_repo(r, repo, json_string_value(json_object_get(j, "path")),
				   json_is_integer(s) ? (unsigned)json_integer_value(s) : 0,
				   json_is_integer(e) ? (unsigned)json_integer_value(e) : 0,
				   mi_mcp_arg_str(j, "name", NULL));
		goto out;
	}
	for (k = 0; keys[k] && !a; k++)
		if ((a = member(m, nm, keys[k])) && a->v[0] != '[')
			a = NULL;
	const char *p = a ? a->v + 1 : NULL, *e = a ? a->v + a->vl : NULL, *q;
	while (p && ns < MI_LINKS_MAX) {
		while (p < e && (json_blank(*p) || *p == ','))
			p++;
		if (p >= e || *p == ']' || !(q = json_skip(p, e)))
			break;
		json_member im[LINK_MEMBERS];
		int inm;
		json_t *it = json_pick(p, (size_t)(q - p), item_keys, im, &inm);
		p = q;
		const char *fp = mi_mcp_arg_str(it, "path", NULL);
		long long from = mi_mcp_arg_int(it, "start_line",
						mi_mcp_arg_int(it, "line", 0));
		long long to = mi_mcp_arg_int(it, "end_line", from);
		size_t n;
		if (!fp || !*fp) {
			json_decref(it);
			continue;
		}
		const char *ir = mi_mcp_arg_str(it, "repo", repo);
		for (n = 0; n < ns && (strcmp(seen[n], fp) ||
				       strcmp(seen_repo[n] ? seen_repo[n] : "", ir ? ir : "")); n++)
			;
		if (n < ns) {
			json_decref(it);
			continue;
		}
		held[ns] = it; /* seen[] points into it */
		seen_repo[ns] = ir;
		seen[ns++] = fp;
		link_repo(r, ir, fp, (unsigned)from, (unsigned)to,
				   mi_mcp_arg_str(it, "name", mi_mcp_arg_str(it, "caller",
						  mi_mcp_arg_str(it, "breadcrumb", NULL))));
	}
	for (k = 0; k < ns; k++)
		json_decref(held[k]);
out:
	(void)t;
	json_decref(j);
}

/* ---- the registry ------------------------------------------------------------------------ */

mi_mcp_tools *mi_mcp_tools_new(const mi_mcp_spec *spec)
{
	mi_mcp_tools *ts = mi_xcalloc(1, sizeof *ts);
	const mi_mcp_tool_group *const *g;
	size_t i;
	for (g = spec->groups; g && *g; g++)
		for (i = 0; i < (*g)->n; i++) {
			tool_entry *e;
			json_error_t je;
			ts->e = mi_xrealloc(ts->e, (ts->n + 1) * sizeof *ts->e);
			e = &ts->e[ts->n++];
			e->t = &(*g)->tools[i];
			e->g = *g;
			e->schema = json_loads(e->t->input_schema, JSON_REJECT_DUPLICATES, &je);
		}
	return ts;
}

void mi_mcp_tools_free(mi_mcp_tools *ts)
{
	size_t i;
	if (!ts)
		return;
	for (i = 0; i < ts->n; i++)
		if (ts->e[i].g->release && (i == 0 || ts->e[i - 1].g != ts->e[i].g))
			ts->e[i].g->release();
	for (i = 0; i < ts->n; i++)
		json_decref(ts->e[i].schema);
	free(ts->e);
	free(ts);
}

static bool group_applies(const mi_mcp_tool_group *g, mi_mcp_env *env)
{
	if (!g->applies)
		return true;
	for (size_t i = 0; env->repos && env->repos[i]; i++)
		if (g->applies(env->repos[i]))
			return true;
	return g->applies(env);
}

#define REPO_DESC "Repository. Default: all of them for search, definitions " \
	"and references; the one holding path."

/* Writes schema (JSON text) with a repo property added when several
 * repositories are served: an enum of their names. */
static void put_schema(mi_buf *out, const char *schema, mi_mcp_env *env)
{
	json_t *j, *props, *p, *names;
	char *s;
	if (env->nrepos < 2 || !(j = json_loads(schema, 0, NULL))) {
		mi_buf_adds(out, schema);
		return;
	}
	props = json_object_get(j, "properties");
	if (!json_is_object(props)) {
		props = json_object();
		json_object_set_new(j, "properties", props);
	}
	names = json_array();
	for (size_t i = 0; env->repos[i]; i++)
		json_array_append_new(names, json_string(env->repos[i]->name));
	p = json_pack("{s:s,s:o,s:s}", "type", "string", "enum", names,
		      "description", REPO_DESC);
	json_object_set_new(props, "repo", p);
	s = json_dumps(j, JSON_COMPACT);
	mi_buf_adds(out, s ? s : schema);
	free(s);
	json_decref(j);
}

/* The row named name, or NULL. */
static tool_entry *find(mi_mcp_tools *ts, mi_mcp_env *env, const char *name)
{
	size_t i;
	for (i = 0; i < ts->n; i++)
		if (strcmp(ts->e[i].t->name, name) == 0)
			return &ts->e[i];
	return NULL;
}

const mi_mcp_tool *mi_mcp_tools_find(mi_mcp_tools *ts, mi_mcp_env *env,
				      const char *name)
{
	tool_entry *e = find(ts, env, name);
	return e ? e->t : NULL;
}

json_t *mi_mcp_tools_schema(mi_mcp_tools *ts, mi_mcp_env *env, const char *name)
{
	tool_entry *e = find(ts, env, name);
	return e ? e->schema : NULL;
}

static const char *task_support(unsigned flags)
{
	return flags & MI_TOOL_TASK_REQUIRED ? "required" :
	       flags & MI_TOOL_TASK_OPTIONAL ? "optional" : "forbidden";
}

void mi_mcp_tools_list(mi_mcp_tools *ts, mi_mcp_env *env, const char *version,
		       mi_buf *out)
{
	size_t i;
	bool first = true, title = mi_mcp_version_has(version, "title");
	bool structured = mi_mcp_version_has(version, "structured");
	bool ann = mi_mcp_version_has(version, "tool_annotations");
	bool tasks = mi_mcp_version_has(version, "tasks") &&
		     !mi_mcp_version_stateless(version);
	mi_buf_adds(out, "\"tools\":[");
	for (i = 0; i < ts->n; i++) {
		const mi_mcp_tool *t = ts->e[i].t;
		if (!group_applies(ts->e[i].g, env))
			continue;
		if (!first)
			mi_buf_addc(out, ',');
		first = false;
		mi_buf_adds(out, "{\"name\":");
		mi_buf_add_json_str(out, t->name, strlen(t->name));
		if (title && t->title) {
			mi_buf_adds(out, ",\"title\":");
			mi_buf_add_json_str(out, t->title, strlen(t->title));
		}
		if (t->description) {
			mi_buf_adds(out, ",\"description\":");
			mi_buf_add_json_str(out, t->description, strlen(t->description));
		}
		mi_buf_adds(out, ",\"inputSchema\":");
		if (t->schema_fn && env->nrepos > 1) {
			mi_buf sb = {0};
			t->schema_fn(env, &sb);
			put_schema(out, mi_buf_str(&sb), env);
			mi_buf_release(&sb);
		} else if (t->schema_fn) {
			t->schema_fn(env, out);
		} else {
			put_schema(out, t->input_schema, env);
		}
		if (structured && t->output_schema) {
			mi_buf_adds(out, ",\"outputSchema\":");
			mi_buf_adds(out, t->output_schema);
		}
		if (ann) {
			mi_buf_addf(out, ",\"annotations\":{\"readOnlyHint\":%s",
				    t->flags & MI_TOOL_READ_ONLY ? "true" : "false");
			/* destructive and idempotent mean something only
			 * for a tool that writes. */
			if (!(t->flags & MI_TOOL_READ_ONLY))
				mi_buf_addf(out, ",\"destructiveHint\":%s,"
					    "\"idempotentHint\":%s",
					    t->flags & MI_TOOL_DESTRUCTIVE ? "true" : "false",
					    t->flags & MI_TOOL_IDEMPOTENT ? "true" : "false");
			mi_buf_addf(out, ",\"openWorldHint\":%s}",
				    t->flags & MI_TOOL_OPEN_WORLD ? "true" : "false");
		}
		/* Absent means forbidden: listed only where a task is allowed. */
		if (tasks && (t->flags & (MI_TOOL_TASK_OPTIONAL | MI_TOOL_TASK_REQUIRED)))
			mi_buf_addf(out, ",\"execution\":{\"taskSupport\":\"%s\"}",
				    task_support(t->flags));
		mi_buf_addc(out, '}');
	}
	mi_buf_addc(out, ']');
}

int mi_mcp_tools_selftest(mi_mcp_tools *ts, mi_buf *err)
{
	size_t i;
	int rc = 0;
	json_error_t e;
	json_t *j;
	for (i = 0; i < ts->n; i++) {
		const mi_mcp_tool *t = ts->e[i].t;
		if (!ts->e[i].schema) {
			mi_buf_addf(err, "%s: inputSchema is not valid JSON\n", t->name);
			rc = -1;
		}
		if (t->output_schema) {
			j = json_loads(t->output_schema, JSON_REJECT_DUPLICATES, &e);
			if (!j) {
				mi_buf_addf(err, "%s: outputSchema: %s\n", t->name, e.text);
				rc = -1;
			}
			json_decref(j);
		}
		if ((t->flags & MI_TOOL_PAGED) && !t->items) {
			mi_buf_addf(err, "%s: MI_TOOL_PAGED needs items\n", t->name);
			rc = -1;
		}
	}
	return rc;
}

/* ---- argument validation against the inputSchema ---------------------------------------- */

static const char *json_type_name(json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "object";
	case JSON_ARRAY: return "array";
	case JSON_STRING: return "string";
	case JSON_INTEGER: return "integer";
	case JSON_REAL: return "number";
	case JSON_TRUE: case JSON_FALSE: return "boolean";
	default: return "null";
	}
}

static bool type_ok(const char *want, json_t *v)
{
	if (strcmp(want, "string") == 0)
		return json_is_string(v);
	if (strcmp(want, "integer") == 0)
		return json_is_integer(v) ||
		       (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
			fabs(json_real_value(v)) < 9e15);
	if (strcmp(want, "number") == 0)
		return json_is_number(v);
	if (strcmp(want, "boolean") == 0)
		return json_is_boolean(v);
	if (strcmp(want, "array") == 0)
		return json_is_array(v);
	if (strcmp(want, "object") == 0)
		return json_is_object(v);
	if (strcmp(want, "null") == 0)
		return json_is_null(v);
	return true;
}

static void describe_value(mi_buf *b, json_t *v)
{
	char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	size_t n = s ? strlen(s) : 0;
	mi_buf_addf(b, "got %s %.*s%s", json_type_name(v), (int)(n > 60 ? 60 : n),
		    s ? s : "", n > 60 ? "..." : "");
	free(s);
}

/* Checks one argument against its property schema; message into err. */
static int check_value(const char *tool, const char *key, json_t *ps, json_t *v,
		       mi_buf *err)
{
	json_t *type = json_object_get(ps, "type"), *en = json_object_get(ps, "enum");
	json_t *mn = json_object_get(ps, "minimum"), *mx = json_object_get(ps, "maximum");
	json_t *minlen = json_object_get(ps, "minLength"), *items, *e;
	json_t *any = json_object_get(ps, "anyOf");
	bool ok = true;
	size_t i;
	if (json_is_array(any)) {
		/* anyOf of typed branches ({"anyOf":[{"type":"string"},{"type":"array"}]},
		 * the portable spelling of a type list): the first branch that takes v. */
		json_array_foreach(any, i, e) {
			mi_buf scratch = {0};
			int brc = check_value(tool, key, e, v, &scratch);
			mi_buf_release(&scratch);
			if (brc == 0)
				return 0;
		}
		mi_buf_addf(err, "Argument '%s' of %s must be ", key, tool);
		json_array_foreach(any, i, e)
			mi_buf_addf(err, "%s%s", i ? " or " : "a ",
				    json_string_value(json_object_get(e, "type")) ?
				    json_string_value(json_object_get(e, "type")) : "value");
		mi_buf_adds(err, " (");
		describe_value(err, v);
		mi_buf_adds(err, ").");
		return -1;
	}
	if (json_is_string(type)) {
		ok = type_ok(json_string_value(type), v);
	} else if (json_is_array(type)) {
		ok = false;
		json_array_foreach(type, i, e)
			ok = ok || type_ok(json_string_value(e), v);
	}
	if (!ok) {
		mi_buf_addf(err, "Argument '%s' of %s must be ", key, tool);
		if (json_is_string(type)) {
			mi_buf_addf(err, "%s %s", strchr("aeiou", json_string_value(type)[0])
				    ? "an" : "a", json_string_value(type));
		} else {
			json_array_foreach(type, i, e)
				mi_buf_addf(err, "%s%s", i ? " or " : "a ",
					    json_string_value(e));
		}
		mi_buf_adds(err, " (");
		describe_value(err, v);
		mi_buf_adds(err, ").");
		return -1;
	}
	if (json_is_array(en) && json_is_string(v)) {
		json_array_foreach(en, i, e)
			if (strcmp(json_string_value(e), json_string_value(v)) == 0)
				break;
		if (i == json_array_size(en)) {
			mi_buf_addf(err, "Argument '%s' of %s must be one of ", key, tool);
			json_array_foreach(en, i, e)
				mi_buf_addf(err, "%s%s", i ? ", " : "", json_string_value(e));
			mi_buf_adds(err, " (");
			describe_value(err, v);
			mi_buf_adds(err, ").");
			return -1;
		}
	}
	if (json_is_number(v) && ((mn && json_number_value(v) < json_number_value(mn)) ||
				  (mx && json_number_value(v) > json_number_value(mx)))) {
		if (mn && mx)
			mi_buf_addf(err, "Argument '%s' of %s must be from %g to %g (", key,
				    tool, json_number_value(mn), json_number_value(mx));
		else if (mn)
			mi_buf_addf(err, "Argument '%s' of %s must be at least %g (", key, tool,
				    json_number_value(mn));
		else
			mi_buf_addf(err, "Argument '%s' of %s must be at most %g (", key, tool,
				    json_number_value(mx));
		describe_value(err, v);
		mi_buf_adds(err, ").");
		return -1;
	}
	if (minlen && json_is_string(v) &&
	    json_string_length(v) < (size_t)json_integer_value(minlen)) {
		mi_buf_addf(err, "Argument '%s' of %s cannot be empty.", key, tool);
		return -1;
	}
	items = json_object_get(ps, "items");
	if (items && json_is_array(v)) {
		json_array_foreach(v, i, e) {
			mi_buf sub = {0};
			int rc;
			mi_buf_addf(&sub, "%s[%zu]", key, i);
			rc = check_value(tool, sub.buf, items, e, err);
			mi_buf_release(&sub);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int validate(const tool_entry *te, json_t *args, mi_buf *err)
{
	json_t *schema = te->schema, *props = json_object_get(schema, "properties");
	json_t *req = json_object_get(schema, "required"), *v, *ps;
	const char *tool = te->t->name, *key;
	size_t i;
	json_array_foreach(req, i, v) {
		json_t *a = args ? json_object_get(args, json_string_value(v)) : NULL;
		if (!a || json_is_null(a)) {
			mi_buf_addf(err, "Missing required argument: %s. Call %s with "
				    "{\"%s\": ...}; its schema is in tools/list.",
				    json_string_value(v), tool, json_string_value(v));
			return -1;
		}
	}
	if (!args)
		return 0;
	json_object_foreach(args, key, v) {
		ps = json_object_get(props, key);
		if (!ps) {
			const char *k2;
			json_t *p2;
			bool first = true;
			if (json_is_false(json_object_get(schema, "additionalProperties")) ==
			    false && props)
				continue;
			mi_buf_addf(err, "Unknown argument '%s' for %s. Accepted: ", key, tool);
			json_object_foreach(props, k2, p2) {
				mi_buf_addf(err, "%s%s", first ? "" : ", ", k2);
				first = false;
			}
			if (first)
				mi_buf_adds(err, "none");
			mi_buf_adds(err, ".");
			return -1;
		}
		if (json_is_null(v))
			continue;
		if (check_value(tool, key, ps, v, err))
			return -1;
	}
	return 0;
}

/* ---- budgets --------------------------------------------------------------------------- */

/* True when both forms of o fit max tokens with room for a note. */
static bool fits(const mi_out *o, size_t max)
{
	return mi_mcp_tokens_within(o->text.buf, o->text.len, mi_mcp_room(max)) &&
	       mi_mcp_tokens_within(o->json.buf, o->json.len, mi_mcp_room(max));
}

/*
 * Holds both forms of a successful answer to max tokens.  A paged tool is
 * run again with the largest limit whose answer fits (a page the client can
 * continue with offset); whatever is still over is cut (mi_mcp_cap_*).
 * Returns true when the answer was cut.
 */
static bool fit_answer(mi_mcp_ctx *c, const mi_mcp_tool *t, mi_query *q,
		       json_t *args, mi_mcp_result *r, size_t max)
{
	mi_out *o = &r->out;
	mi_mcp_cut cut = {0};
	mi_buf note = {0};
	bool text_cut, json_cut;
	if (mi_mcp_tokens_within(o->text.buf, o->text.len, max) &&
	    mi_mcp_tokens_within(o->json.buf, o->json.len, max)) {
		/* A folded view cuts itself to max_tokens; say so here too. */
		if (!t->items && strstr(mi_buf_str(&o->text), "[truncated: ")) {
			cut.cut = true;
			mi_mcp_cap_json(&o->json, max, &cut);
			return true;
		}
		return false;
	}
	if ((t->flags & MI_TOOL_PAGED) && t->items) {
		size_t total, n = mi_mcp_count_items(&o->json, t->items, &total);
		size_t off = (size_t)mi_mcp_arg_int(args, "offset", 0), lo = 1, hi, best = 0;
		json_t *a2 = args ? json_deep_copy(args) : json_object();
		mi_mcp_result tmp, best_r;
		memset(&best_r, 0, sizeof best_r);
		hi = n > 1 ? n - 1 : 0;
		while (lo <= hi) {
			size_t mid = lo + (hi - lo) / 2;
			memset(&tmp, 0, sizeof tmp);
			json_object_set_new(a2, "limit", json_integer((json_int_t)mid));
			if (t->fn(c, q, a2, &tmp) == 0 && !tmp.out.is_error &&
			    fits(&tmp.out, max)) {
				mi_mcp_result_release(&best_r);
				best_r = tmp;
				best = mid;
				lo = mid + 1;
			} else {
				mi_mcp_result_release(&tmp);
				hi = mid - 1;
			}
		}
		if (!best && n > 1) {
			json_object_set_new(a2, "limit", json_integer(1));
			if (t->fn(c, q, a2, &best_r) == 0 && !best_r.out.is_error)
				best = 1;
			else
				mi_mcp_result_release(&best_r);
		}
		if (best) {
			mi_mcp_result_release(r);
			*r = best_r;
			o = &r->out;
		}
		json_decref(a2);
		cut.paged = true;
		cut.cut = true;
		cut.items = t->items;
		cut.total = total;
		cut.offset = off;
		mi_buf_addf(&note, "showing %zu of %zu from offset %zu; to see more, "
			    "call again with offset %zu, or raise max_tokens",
			    best ? best : n, total > off ? total - off : total, off,
			    off + (best ? best : n));
	} else {
		mi_buf_addf(&note, "to see more, %s", t->narrow ? t->narrow :
			    "raise max_tokens");
	}
	text_cut = mi_mcp_cap_text(&o->text, max, note.buf);
	if (!text_cut && cut.cut)
		mi_buf_addf(&o->text, "V* [cut: %s]\n", note.buf);
	json_cut = mi_mcp_cap_json(&o->json, max, &cut);
	if (json_cut && strcmp(mi_mcp_arg_str(args, "format", ""), "json") == 0) {
		/* The text form is the JSON itself: keep the two equal. */
		mi_buf_reset(&o->text);
		mi_buf_add(&o->text, o->json.buf, o->json.len);
	}
	mi_buf_release(&note);
	return true;
}

/* ---- the call ---------------------------------------------------------------------------- */

/* Appends `{...json, "meta": {...}}`: the object with meta fields added. */
static void splice_meta(mi_buf *out, const mi_buf *json, const char *meta)
{
	size_t n = json->len;
	while (n && json->buf[n - 1] != '}')
		n--;
	if (n == 0) {
		mi_buf_adds(out, "{");
	} else {
		size_t k = n - 1;
		mi_buf_add(out, json->buf, k);
		while (k > 0 && (json->buf[k - 1] == ' ' || json->buf[k - 1] == '\n'))
			k--;
		if (k > 0 && json->buf[k - 1] != '{')
			mi_buf_addc(out, ',');
	}
	mi_buf_adds(out, meta);
	mi_buf_addc(out, '}');
}

/* Writes the CallToolResult fields (without braces) of r. */
static void put_result(mi_buf *out, mi_mcp_result *r, const char *version)
{
	bool links = mi_mcp_version_has(version, "resource_link");
	bool structured = mi_mcp_version_has(version, "structured");
	bool first = true;
	mi_buf_adds(out, "\"content\":[");
	if (!r->no_text) {
		mi_buf_adds(out, "{\"type\":\"text\",\"text\":");
		mi_buf_add_json_str(out, mi_buf_str(&r->out.text), r->out.text.len);
		/* Beside links (for the user) the text is the model's reading. */
		if (links && r->blocks.len && !r->out.is_error)
			mi_buf_adds(out, ",\"annotations\":{\"audience\":[\"assistant\"],"
				    "\"priority\":1}");
		mi_buf_addc(out, '}');
		first = false;
	}
	if (r->blocks.len && (links || !strstr(mi_buf_str(&r->blocks), "resource_link"))) {
		if (!first)
			mi_buf_addc(out, ',');
		mi_buf_add(out, r->blocks.buf, r->blocks.len);
	}
	mi_buf_addc(out, ']');
	if (!r->out.is_error && !r->no_struct && structured) {
		mi_buf_adds(out, ",\"structuredContent\":");
		if (r->out.json.len) {
			mi_buf_add(out, r->out.json.buf, r->out.json.len);
		} else {
			mi_buf_adds(out, "{\"text\":");
			mi_buf_add_json_str(out, mi_buf_str(&r->out.text), r->out.text.len);
			mi_buf_addc(out, '}');
		}
	}
	mi_buf_addf(out, ",\"isError\":%s", r->out.is_error ? "true" : "false");
	if (r->meta.len && !mi_mcp_version_stateless(version)) {
		mi_buf_adds(out, ",\"_meta\":{");
		mi_buf_add(out, r->meta.buf, r->meta.len);
		mi_buf_addc(out, '}');
	}
}

/* ---- a workspace: several repositories served at once ------------------------------------ */

/*
 * Where a call goes when several repositories are served:
 *   - the one its repo argument names;
 *   - else, for an index tool given a path, the repositories whose index
 *     holds that file (several only for a tool answering a list);
 *   - else, for an index tool answering a list (items: definitions,
 *     references, search hits), every repository, the lists merged;
 *   - else, for an index tool without required arguments (index_status),
 *     every repository, the answers side by side;
 *   - else it needs repo.
 * A list merges by each item's score when every item has one (search:
 * the BM25F score), else in repository order; each item names its repo.
 */

/* A call running across repositories: handed to fan_fn as its ctx. */
typedef struct fan_ctx {
	mi_mcp_ctx ctx;              /* the call's ctx (first: fan_fn gets &ctx) */
	const tool_entry *te;        /* the row */
	mi_mcp_env **repos;          /* where it runs */
	size_t n;                    /* how many */
} fan_ctx;

static bool no_required(const tool_entry *te)
{
	return json_array_size(json_object_get(te->schema, "required")) == 0;
}

/* The repositories a call goes to (into *out, n of them), or -1 with the
 * tool error in err. */
static int route(const tool_entry *te, mi_mcp_env *env, json_t *repo, json_t *args,
		 mi_mcp_env ***out, size_t *n, mi_buf *err)
{
	const mi_mcp_tool *t = te->t;
	const char *path = mi_mcp_arg_str(args, "path", NULL);
	mi_mcp_env **v = mi_xcalloc(env->nrepos + 1, sizeof *v);
	mi_buf names = {0};
	size_t k = 0, i;
	int rc = 0;
	mi_mcp_env_names(env, &names);
	if (repo && !json_is_null(repo)) {
		mi_mcp_env *r = json_is_string(repo) ?
			mi_mcp_env_repo(env, json_string_value(repo)) : NULL;
		if (r) {
			v[k++] = r;
		} else {
			char *d = json_dumps(repo, JSON_ENCODE_ANY | JSON_COMPACT);
			mi_buf_addf(err, "Argument 'repo' of %s must be one of %s (got %.60s).",
				    t->name, names.buf, d ? d : "?");
			free(d);
			rc = -1;
		}
	} else if ((t->flags & MI_TOOL_INDEX) && path && *path) {
		for (i = 0; env->repos[i]; i++)
			if (mi_mcp_env_holds(env->repos[i], path, NULL))
				v[k++] = env->repos[i];
		if (k == 0) {
			mi_buf_addf(err, "No file %s in the served repositories (%s). "
				    "Paths are repo-relative; search_code finds files by "
				    "content.", path, names.buf);
			rc = -1;
		} else if (k > 1 && !t->items) {
			mi_buf_addf(err, "%s is in several repositories (", path);
			for (i = 0; i < k; i++)
				mi_buf_addf(err, "%s%s", i ? ", " : "", v[i]->name);
			mi_buf_addf(err, "): call %s again with repo, one of them.", t->name);
			rc = -1;
		}
	} else if ((t->flags & MI_TOOL_INDEX) && (t->items || no_required(te))) {
		for (i = 0; env->repos[i]; i++)
			v[k++] = env->repos[i];
	} else {
		mi_buf_addf(err, "Several repositories are served: call %s with repo, "
			    "one of %s.", t->name, names.buf);
		rc = -1;
	}
	mi_buf_release(&names);
	if (rc) {
		free(v);
		v = NULL;
		k = 0;
	}
	*out = v;
	*n = k;
	return rc;
}

/* Names the repository of a call that went to one: "repo" in the JSON
 * object, a first text line (or, when the text is the JSON, the JSON). */
static void tag_repo(mi_mcp_result *r, const char *repo, json_t *args)
{
	mi_buf f = {0}, j = {0};
	bool same = r->out.text.len == r->out.json.len && r->out.json.len &&
		    memcmp(r->out.text.buf, r->out.json.buf, r->out.json.len) == 0;
	mi_buf_adds(&f, "\"repo\":");
	mi_buf_add_json_str(&f, repo, strlen(repo));
	if (r->out.json.len && r->out.json.buf[0] == '{') {
		splice_meta(&j, &r->out.json, f.buf);
		mi_buf_release(&r->out.json);
		r->out.json = j;
	}
	if (same) {
		mi_buf_reset(&r->out.text);
		mi_buf_add(&r->out.text, r->out.json.buf, r->out.json.len);
	} else {
		mi_buf t = {0};
		mi_buf_addf(&t, "[repo %s]\n", repo);
		mi_buf_add(&t, r->out.text.buf, r->out.text.len);
		mi_buf_release(&r->out.text);
		r->out.text = t;
	}
	mi_buf_release(&f);
	(void)args;
}

/* One repository's part of a fanned-out call. */
typedef struct fan_part {
	mi_mcp_result res;           /* its answer */
	json_t *json;                /* parsed, or NULL */
	json_t *items;               /* json[items], or NULL */
	size_t first, count;         /* its items on the merged page: ranks */
	bool on_page;                /* some are */
	bool ok;                     /* it answered */
} fan_part;

typedef struct fan_item {
	json_t *it;                  /* borrowed from its part */
	size_t repo, rank;           /* where it came from */
	double score;
} fan_item;

static int item_cmp(const void *a, const void *b)
{
	const fan_item *x = a, *y = b;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if (x->repo != y->repo)
		return x->repo < y->repo ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Runs the row on one repository; 0, or a protocol error code. */
static int fan_one(fan_ctx *f, size_t i, json_t *args, mi_mcp_result *res)
{
	mi_mcp_ctx sub = f->ctx;
	mi_mcp_env *e = f->repos[i];
	mi_query *q = NULL;
	mi_buf err = {0};
	int rc = 0;
	sub.env = e;
	if ((f->te->t->flags & MI_TOOL_INDEX) && mi_mcp_index_get(e, &q, &err)) {
		mi_mcp_result_error(res, "%s", err.buf);
		goto out;
	}
	rc = f->te->t->fn(&sub, q, args, res);
	if (q)
		mi_mcp_index_put(e);
	if (rc <= -32000 && rc >= -32768)
		goto out;
	if (rc && !res->out.is_error && !res->out.text.len)
		mi_mcp_result_error(res, "%s failed: %s", f->te->t->name, mi_strerror(rc));
	rc = 0;
out:
	mi_buf_release(&err);
	return rc;
}

static void add_section(mi_buf *t, const char *repo, const mi_buf *text)
{
	mi_buf_addf(t, "[repo %s]\n", repo);
	mi_buf_add(t, text->buf, text->len);
	if (text->len && text->buf[text->len - 1] != '\n')
		mi_buf_addc(t, '\n');
}

#define FAN_DEPTH 200   /* results a workspace page reaches (a search's deepest page) */

/* The row run on every repository of the call, the answers merged. */
static int fan_fn(mi_mcp_ctx *c, mi_query *unused, json_t *args, mi_mcp_result *r)
{
	fan_ctx *f = (fan_ctx *)c;
	const mi_mcp_tool *t = f->te->t;
	const char *key = t->items;
	bool paged = (t->flags & MI_TOOL_PAGED) && key;
	json_t *lp = json_object_get(json_object_get(json_object_get(f->te->schema,
				     "properties"), "limit"), "default");
	size_t off = paged ? (size_t)mi_mcp_arg_int(args, "offset", 0) : 0;
	size_t lim = paged ? (size_t)mi_mcp_arg_int(args, "limit",
			      json_is_integer(lp) ? json_integer_value(lp) : 20) : 0;
	bool as_json = strcmp(mi_mcp_arg_str(args, "format", ""), "json") == 0;
	fan_part *p = mi_xcalloc(f->n, sizeof *p);
	fan_item *items = NULL;
	size_t ni = 0, nok = 0, i, k, from, to;
	long long total = 0;
	bool scored = true;
	json_t *a1 = args ? json_deep_copy(args) : json_object(), *out, *arr, *un;
	char *s;
	int rc = 0;
	(void)unused;
	if (paged && (off > FAN_DEPTH || lim > FAN_DEPTH || off + lim > FAN_DEPTH)) {
		/* Each repository ranks the top offset + limit of its own to
		 * merge: past a search's deepest page (200) a page came back
		 * empty with a wrong total, and offset + limit could wrap. */
		json_decref(a1);
		free(p);
		return mi_mcp_result_error(r, "In a workspace a page reaches at most %d results "
					   "deep (offset %zu + limit %zu); pass repo to page "
					   "one repository further, or narrow the query",
					   FAN_DEPTH, off, lim);
	}
	if (paged) {
		json_object_set_new(a1, "offset", json_integer(0));
		json_object_set_new(a1, "limit", json_integer((json_int_t)(off + lim)));
	}
	for (i = 0; i < f->n; i++) {
		rc = fan_one(f, i, a1, &p[i].res);
		if (rc) {
			mi_mcp_result_reset_to(r, &p[i].res);
			goto out;
		}
		if (p[i].res.out.is_error)
			continue;
		p[i].json = json_loadb(p[i].res.out.json.buf, p[i].res.out.json.len, 0, NULL);
		if (!json_is_object(p[i].json))
			continue;
		p[i].ok = true;
		nok++;
		if (!key)
			continue;
		p[i].items = json_object_get(p[i].json, key);
		total += json_is_integer(json_object_get(p[i].json, "total")) ?
			 json_integer_value(json_object_get(p[i].json, "total")) :
			 (long long)json_array_size(p[i].items);
		for (k = 0; k < json_array_size(p[i].items); k++) {
			json_t *it = json_array_get(p[i].items, k);
			json_t *sc = json_object_get(it, "score");
			items = mi_xrealloc(items, (ni + 1) * sizeof *items);
			items[ni].it = it;
			items[ni].repo = i;
			items[ni].rank = k;
			items[ni].score = json_is_number(sc) ? json_number_value(sc) : 0;
			scored = scored && json_is_number(sc);
			ni++;
		}
	}
	if (!nok) {
		/* Nobody answered: the errors, each under its repository. */
		mi_buf_reset(&r->out.text);
		for (i = 0; i < f->n; i++)
			add_section(&r->out.text, f->repos[i]->name, &p[i].res.out.text);
		r->out.is_error = true;
		goto out;
	}
	out = json_object();
	mi_buf_reset(&r->out.text);
	if (!key) {
		/* Side by side. */
		arr = json_array();
		for (i = 0; i < f->n; i++) {
			if (!p[i].ok)
				continue;
			json_object_set_new(p[i].json, "repo", json_string(f->repos[i]->name));
			json_array_append(arr, p[i].json);
			add_section(&r->out.text, f->repos[i]->name, &p[i].res.out.text);
		}
		json_object_set_new(out, "repos", arr);
	} else {
		if (scored)
			qsort(items, ni, sizeof *items, item_cmp);
		from = paged ? (off < ni ? off : ni) : 0;
		to = paged ? (from + lim < ni ? from + lim : ni) : ni;
		arr = json_array();
		for (k = from; k < to; k++) {
			fan_part *pp = &p[items[k].repo];
			json_object_set_new(items[k].it, "repo",
					    json_string(f->repos[items[k].repo]->name));
			json_array_append(arr, items[k].it);
			if (!pp->on_page || items[k].rank < pp->first) {
				size_t end = pp->on_page ? pp->first + pp->count : 0;
				pp->first = items[k].rank;
				pp->count = end > pp->first ? end - pp->first : 1;
			}
			if (items[k].rank + 1 > pp->first + pp->count)
				pp->count = items[k].rank + 1 - pp->first;
			pp->on_page = true;
		}
		json_object_set_new(out, key, arr);
		json_object_set_new(out, "total", json_integer(total));
		/* The text: each repository's own answer for its items, in the
		 * order of its best one. */
		for (k = from; k < to && !as_json; k++) {
			size_t ri = items[k].repo;
			fan_part *pp = &p[ri];
			if (!pp->on_page)
				continue;
			if (paged && (pp->first || pp->count != json_array_size(pp->items))) {
				json_t *a3 = json_deep_copy(a1);
				mi_mcp_result again;
				memset(&again, 0, sizeof again);
				json_object_set_new(a3, "offset", json_integer((json_int_t)pp->first));
				json_object_set_new(a3, "limit", json_integer((json_int_t)pp->count));
				if (fan_one(f, ri, a3, &again) == 0 && !again.out.is_error)
					add_section(&r->out.text, f->repos[ri]->name, &again.out.text);
				mi_mcp_result_release(&again);
				json_decref(a3);
			} else {
				add_section(&r->out.text, f->repos[ri]->name, &pp->res.out.text);
			}
			pp->on_page = false;
		}
		/* No repository has a result: what each said (no match, a
		 * hint).  A page past the end says only that. */
		if (from == to && !as_json && !ni)
			for (i = 0; i < f->n; i++)
				if (p[i].ok)
					add_section(&r->out.text, f->repos[i]->name,
						    &p[i].res.out.text);
		if (from == to && !as_json && ni)
			mi_buf_addf(&r->out.text, "V* page past the end: %zu results in all "
				    "(offset %zu)\n", ni, off);
	}
	un = json_array();
	for (i = 0; i < f->n; i++) {
		if (p[i].ok)
			continue;
		json_array_append_new(un, json_pack("{s:s,s:s%}", "repo", f->repos[i]->name,
						    "error", mi_buf_str(&p[i].res.out.text),
						    p[i].res.out.text.len));
		if (!as_json)
			mi_buf_addf(&r->out.text, "[repo %s] unavailable: %s\n",
				    f->repos[i]->name, mi_buf_str(&p[i].res.out.text));
	}
	if (json_array_size(un))
		json_object_set(out, "unavailable", un);
	json_decref(un);
	s = json_dumps(out, JSON_COMPACT | JSON_REAL_PRECISION(7));
	mi_buf_reset(&r->out.json);
	mi_buf_adds(&r->out.json, s);
	if (as_json) {
		mi_buf_reset(&r->out.text);
		mi_buf_adds(&r->out.text, s);
	}
	free(s);
	json_decref(out);
out:
	for (i = 0; i < f->n; i++) {
		mi_mcp_result_release(&p[i].res);
		json_decref(p[i].json);
	}
	free(p);
	free(items);
	json_decref(a1);
	return rc;
}

/* ---- the call ------------------------------------------------------------------------------ */

int mi_mcp_tools_call(mi_mcp_tools *ts, mi_mcp_ctx *c, const char *name,
		      json_t *args, mi_buf *out, mi_buf *msg, char *outcome,
		      size_t outcome_len)
{
	mi_mcp_env *env = c->env, **where = NULL;
	tool_entry *te = find(ts, env, name);
	const mi_mcp_tool *t;
	mi_mcp_tool fan_t;
	fan_ctx fan;
	mi_mcp_ctx one;
	const char *label = NULL;
	json_t *own = NULL, *repo = NULL;
	size_t nwhere = 0;
	mi_buf err = {0};
	mi_mcp_result r;
	mi_query *q = NULL;
	int rc = 0;

	memset(&r, 0, sizeof r);
	if (!te) {
		mi_buf_addf(msg, "Unknown tool: %s; tools/list names the tools", name);
		rc = MI_RPC_INVALID_PARAMS;
		goto out;
	}
	t = te->t;
	if (env->nrepos > 1 && json_is_object(args)) {
		/* repo is the workspace's argument, not the row's. */
		own = json_copy(args);
		repo = json_incref(json_object_get(own, "repo"));
		json_object_del(own, "repo");
		args = own;
	}
	if (validate(te, args, &err)) {
		mi_mcp_result_error(&r, "%s", err.buf);
		snprintf(outcome, outcome_len, "tool-error: %.70s", err.buf);
		goto put;
	}
	if (env->nrepos > 1) {
		if (route(te, env, repo, args, &where, &nwhere, &err)) {
			mi_mcp_result_error(&r, "%s", err.buf);
			snprintf(outcome, outcome_len, "tool-error: %.70s", err.buf);
			goto put;
		}
		if (nwhere == 1) {
			one = *c;
			one.env = env = where[0];
			c = &one;
			label = env->name;
		} else {
			memset(&fan, 0, sizeof fan);
			fan.ctx = *c;
			fan.te = te;
			fan.repos = where;
			fan.n = nwhere;
			fan_t = *t;
			fan_t.fn = fan_fn;
			fan_t.flags &= ~(unsigned)MI_TOOL_INDEX;
			t = &fan_t;
			c = &fan.ctx;
		}
	}
	if (!(t->flags & MI_TOOL_SLOW))
		c->progress(c, 0, 1, t->name);
	if ((t->flags & MI_TOOL_INDEX) && mi_mcp_index_get(env, &q, &err)) {
		mi_mcp_result_error(&r, "%s", err.buf);
		snprintf(outcome, outcome_len, "tool-error: no index");
		c->log(c, MI_LOG_WARNING, err.buf);
		goto put;
	}
	rc = t->fn(c, q, args, &r);
	if (r.raw.len) {
		/* Passed through as it came: no budget, no links. */
		if (q)
			mi_mcp_index_put(env);
		mi_buf_add(out, r.raw.buf, r.raw.len);
		snprintf(outcome, outcome_len, "%s", strstr(mi_buf_str(&r.raw),
			 "\"isError\":true") ? "tool-error" : "ok");
		rc = 0;
		goto out;
	}
	if (rc <= -32000 && rc >= -32768) {
		/* A protocol error, not a tool error. */
		if (q)
			mi_mcp_index_put(env);
		mi_buf_add(msg, r.out.text.buf, r.out.text.len);
		if (!msg->len)
			mi_buf_addf(msg, "%s refused the request", t->name);
		goto out;
	}
	if (rc && !r.out.is_error && !r.out.text.len && !r.input_required.len)
		mi_mcp_result_error(&r, "%s failed: %s", t->name, mi_strerror(rc));
	rc = 0;
	if (r.out.is_error) {
		/* An error quotes the argument it refuses, which may be 16 MiB:
		 * it too holds to max_tokens (the default when that is bad). */
		long mt = mi_mcp_arg_int(args, "max_tokens", 20000);
		mi_mcp_cap_text(&r.out.text, mt >= 100 && mt <= 200000 ? (size_t)mt : 20000,
				"the message quotes a long argument");
	}
	if (!r.out.is_error && (t->flags & MI_TOOL_BUDGET) &&
	    fit_answer(c, t, q, args, &r,
		       (size_t)mi_mcp_arg_int(args, "max_tokens", 20000)))
		snprintf(outcome, outcome_len, "ok (cut to budget)");
	if (!r.out.is_error && (t->flags & MI_TOOL_PAGED) && t->items &&
	    mi_mcp_arg_int(args, "offset", 0) > 0) {
		/* A page past the end says so, not just nothing. */
		size_t total, off = (size_t)mi_mcp_arg_int(args, "offset", 0);
		if (!mi_mcp_count_items(&r.out.json, t->items, &total) && total && off >= total)
			mi_buf_addf(&r.out.text, "note: offset %zu is past the end: %zu %s in "
				    "all, at offsets 0 to %zu\n", off, total, t->items, total - 1);
	}
	if (label && !r.out.is_error && !r.input_required.len)
		tag_repo(&r, label, args);
	if (!r.out.is_error && (te->t->flags & MI_TOOL_INDEX))
		auto_links(&r, t);
	if (q)
		mi_mcp_index_put(env);
	if (r.out.is_error)
		snprintf(outcome, outcome_len, "tool-error: %.70s", mi_buf_str(&r.out.text));
	if (!(t->flags & MI_TOOL_SLOW))
		c->progress(c, 1, 1, "done");
put:
	if (r.input_required.len) {
		mi_buf_adds(out, "{\"resultType\":\"input_required\",");
		mi_buf_add(out, r.input_required.buf, r.input_required.len);
		mi_buf_addc(out, '}');
	} else {
		mi_buf_addc(out, '{');
		put_result(out, &r, c->version);
		mi_buf_addc(out, '}');
	}
out:
	mi_mcp_result_release(&r);
	mi_buf_release(&err);
	json_decref(own);
	json_decref(repo);
	free(where);
	return rc;
}

/* Adds read_file's seed-000 meta object when asked (with_meta). */
void mi_mcp_with_meta(mi_mcp_result *r, json_t *args)
{
	const char *mode = mi_mcp_arg_str(args, "mode", "outline");
	const char *ln = mi_mcp_arg_str(args, "line_numbers", NULL);
	mi_buf meta = {0}, j = {0};
	mi_buf_addf(&meta, "\"meta\":{\"mode\":\"%s\"",
		    strcmp(mode, "outline") == 0 || strcmp(mode, "mcp") == 0 ?
		    "mcp" : mode);
	if (ln)
		mi_buf_addf(&meta, ",\"line_numbers\":\"%s\"", ln);
	mi_buf_addf(&meta, ",\"show_coverage\":%s,\"show_block_guides\":%s}",
		    mi_mcp_arg_bool(args, "show_coverage", false) ? "true" : "false",
		    mi_mcp_arg_bool(args, "show_block_guides", false) ? "true" : "false");
	splice_meta(&j, &r->out.json, meta.buf);
	mi_buf_release(&r->out.json);
	r->out.json = j;
	mi_buf_release(&meta);
}
