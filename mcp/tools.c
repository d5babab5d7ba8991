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

void mi_mcp_result_link(mi_mcp_result *r, const char *path, unsigned from,
			unsigned to, const char *description)
{
	mi_buf uri = {0};
	const char *base = strrchr(path, '/');
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
}

/* Links to the files an answer names: its own path, or the paths of the
 * items of its result array, at most MI_LINKS_MAX distinct files. */
static void auto_links(mi_mcp_result *r, const mi_mcp_tool *t)
{
	static const char *const keys[] = {"results", "references", "definitions",
					   "nodes", NULL};
	json_t *j, *a = NULL, *it;
	const char *seen[MI_LINKS_MAX];
	size_t ns = 0, i, k;
	if (!r->out.json.len)
		return;
	j = json_loadb(r->out.json.buf, r->out.json.len, 0, NULL);
	if (!json_is_object(j))
		goto out;
	if (json_is_string(json_object_get(j, "path"))) {
		json_t *s = json_object_get(j, "start_line");
		json_t *e = json_object_get(j, "end_line");
		mi_mcp_result_link(r, json_string_value(json_object_get(j, "path")),
				   json_is_integer(s) ? (unsigned)json_integer_value(s) : 0,
				   json_is_integer(e) ? (unsigned)json_integer_value(e) : 0,
				   mi_mcp_arg_str(j, "name", NULL));
		goto out;
	}
	for (k = 0; keys[k] && !a; k++)
		if (json_is_array(json_object_get(j, keys[k])))
			a = json_object_get(j, keys[k]);
	json_array_foreach(a, i, it) {
		const char *p = mi_mcp_arg_str(it, "path", NULL);
		long long from = mi_mcp_arg_int(it, "start_line",
						mi_mcp_arg_int(it, "line", 0));
		long long to = mi_mcp_arg_int(it, "end_line", from);
		size_t m;
		if (!p || !*p || ns == MI_LINKS_MAX)
			continue;
		for (m = 0; m < ns && strcmp(seen[m], p); m++)
			;
		if (m < ns)
			continue;
		seen[ns++] = p;
		mi_mcp_result_link(r, p, (unsigned)from, (unsigned)to,
				   mi_mcp_arg_str(it, "name", mi_mcp_arg_str(it, "caller",
						  mi_mcp_arg_str(it, "breadcrumb", NULL))));
	}
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
	return !g->applies || g->applies(env);
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
		if (t->schema_fn)
			t->schema_fn(env, out);
		else
			mi_buf_adds(out, t->input_schema);
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
		mi_buf_addf(err, "Argument '%s' of %s must be from %g to %g (", key,
			    tool, mn ? json_number_value(mn) : -INFINITY,
			    mx ? json_number_value(mx) : INFINITY);
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
	return mi_mcp_tokens(o->text.buf, o->text.len) <= mi_mcp_room(max) &&
	       mi_mcp_tokens(o->json.buf, o->json.len) <= mi_mcp_room(max);
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
	if (mi_mcp_tokens(o->text.buf, o->text.len) <= max &&
	    mi_mcp_tokens(o->json.buf, o->json.len) <= max) {
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

int mi_mcp_tools_call(mi_mcp_tools *ts, mi_mcp_ctx *c, const char *name,
		      json_t *args, mi_buf *out, mi_buf *msg, char *outcome,
		      size_t outcome_len)
{
	mi_mcp_env *env = c->env;
	tool_entry *te = find(ts, env, name);
	const mi_mcp_tool *t;
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
	if (validate(te, args, &err)) {
		mi_mcp_result_error(&r, "%s", err.buf);
		snprintf(outcome, outcome_len, "tool-error: %.70s", err.buf);
		goto put;
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
	if (!r.out.is_error && (t->flags & MI_TOOL_BUDGET) &&
	    fit_answer(c, t, q, args, &r,
		       (size_t)mi_mcp_arg_int(args, "max_tokens", 20000)))
		snprintf(outcome, outcome_len, "ok (cut to budget)");
	if (!r.out.is_error && (t->flags & MI_TOOL_INDEX))
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
