/*
 * upstream.c - the servers file (the "mcpServers" JSON MCP clients already
 * use) and fetching one server's catalog.  The file holds what to run and
 * the secrets to run it with; none of that ever reaches the index.
 */
#include "mcp.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static char **str_list(json_t *a)
{
	size_t n = json_is_array(a) ? json_array_size(a) : 0, k = 0, i;
	char **v = mi_xcalloc(n + 1, sizeof(*v));
	json_t *x;
	json_array_foreach(a, i, x)
		if (json_is_string(x))
			v[k++] = mi_xstrdup(json_string_value(x));
	return v;
}

static void free_list(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* "KEY=VALUE" (env) or "Key: value" (headers) from an object of strings. */
static char **pair_list(json_t *o, const char *sep)
{
	size_t n = json_is_object(o) ? json_object_size(o) : 0, k = 0;
	char **v = mi_xcalloc(n + 1, sizeof(*v));
	const char *key;
	json_t *x;
	json_object_foreach(o, key, x)
		if (json_is_string(x)) {
			mi_buf b = {0};
			mi_buf_addf(&b, "%s%s%s", key, sep, json_string_value(x));
			v[k++] = mi_buf_detach(&b);
		}
	return v;
}

static int bad(mi_buf *err, const char *path, const char *name, const char *what)
{
	mi_buf_addf(err, "%s: server '%s': %s", path, name, what);
	return MI_ERR_ARG;
}

int mi_servers_load(const char *path, mi_servers *out, mi_buf *err)
{
	json_error_t je;
	json_t *root, *servers, *v, *opts;
	const char *name;
	char real[PATH_MAX];
	int rc = 0;
	memset(out, 0, sizeof(*out));
	root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		mi_buf_addf(err, "%s:%d: %s (the servers file is JSON: {\"mcpServers\": "
			    "{\"NAME\": {\"command\": ..., \"args\": [...]}}})", path, je.line, je.text);
		return MI_ERR_ARG;
	}
	out->path = mi_xstrdup(realpath(path, real) ? real : path);
	servers = json_object_get(root, "mcpServers");
	if (!servers)
		servers = json_object_get(root, "servers");   /* VS Code spelling */
	if (!json_is_object(servers)) {
		mi_buf_addf(err, "%s: no \"mcpServers\" object (the servers file is JSON: "
			    "{\"mcpServers\": {\"NAME\": {\"command\": ..., \"args\": [...]}}})", path);
		rc = MI_ERR_ARG;
		goto out;
	}
	opts = json_object_get(root, "mcpidx");
	if (json_is_integer(json_object_get(opts, "poll")))
		out->poll_seconds = (int)json_integer_value(json_object_get(opts, "poll"));
	out->v = mi_xcalloc(json_object_size(servers) + 1, sizeof(*out->v));
	json_object_foreach(servers, name, v) {
		mi_server_cfg *s = &out->v[out->n];
		json_t *cmd = json_object_get(v, "command"), *url = json_object_get(v, "url");
		json_t *type = json_object_get(v, "type"), *to = json_object_get(v, "timeout"), *pv;
		if (!json_is_object(v)) {
			rc = bad(err, path, name, "is not an object");
			goto out;
		}
		if (!*name || strchr(name, '/') || strlen(name) > 64) {
			rc = bad(err, path, name, "a name is 1 to 64 characters without '/' "
				 "(it becomes the namespace of its tools)");
			goto out;
		}
		if (!json_is_string(cmd) && !json_is_string(url)) {
			rc = bad(err, path, name, "give \"command\" (stdio) or \"url\" (HTTP)");
			goto out;
		}
		out->n++;
		s->name = mi_xstrdup(name);
		s->disabled = json_is_true(json_object_get(v, "disabled"));
		if (json_is_string(url)) {
			s->url = mi_xstrdup(json_string_value(url));
			s->sse = json_is_string(type) && !strcmp(json_string_value(type), "sse");
			s->headers = pair_list(json_object_get(v, "headers"), ": ");
		} else {
			json_t *args = json_object_get(v, "args"), *x;
			size_t i, k = 1;
			s->command = mi_xstrdup(json_string_value(cmd));
			s->args = mi_xcalloc(json_array_size(args) + 2, sizeof(*s->args));
			s->args[0] = mi_xstrdup(s->command);
			json_array_foreach(args, i, x)
				if (json_is_string(x))
					s->args[k++] = mi_xstrdup(json_string_value(x));
			s->env = pair_list(json_object_get(v, "env"), "=");
			if (json_is_string(json_object_get(v, "cwd")))
				s->cwd = mi_xstrdup(json_string_value(json_object_get(v, "cwd")));
		}
		s->timeout_ms = json_is_integer(to) ? (int)json_integer_value(to) : 0;
		if ((pv = json_object_get(v, "protocolVersion"))) {
			if (!json_is_string(pv) || !mi_mcp_client_speaks(json_string_value(pv))) {
				rc = bad(err, path, name, "\"protocolVersion\" is one of 2024-11-05, "
					 "2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28 (or leave it "
					 "out to negotiate)");
				goto out;
			}
			s->protocol = mi_xstrdup(json_string_value(pv));
		}
		s->allow = str_list(json_object_get(v, "allow"));
		s->deny = str_list(json_object_get(v, "deny"));
		s->sensitive = str_list(json_object_get(v, "sensitive"));
		s->aliases = json_incref(json_object_get(v, "aliases"));
		s->has_allow = json_is_array(json_object_get(v, "allow"));
	}
out:
	json_decref(root);
	if (rc)
		mi_servers_release(out);
	return rc;
}

void mi_servers_release(mi_servers *s)
{
	for (size_t i = 0; s->v && i < s->n; i++) {
		mi_server_cfg *e = &s->v[i];
		free(e->name);
		free(e->command);
		free_list(e->args);
		free_list(e->env);
		free(e->cwd);
		free(e->url);
		free_list(e->headers);
		free_list(e->allow);
		free_list(e->deny);
		free_list(e->sensitive);
		json_decref(e->aliases);
		free(e->protocol);
	}
	free(s->v);
	free(s->path);
	memset(s, 0, sizeof(*s));
}

const mi_server_cfg *mi_servers_find(const mi_servers *s, const char *name, size_t len)
{
	for (size_t i = 0; i < s->n; i++)
		if (strlen(s->v[i].name) == len && !memcmp(s->v[i].name, name, len))
			return &s->v[i];
	return NULL;
}

static bool any_match(char *const *globs, const char *tool)
{
	for (size_t i = 0; globs && globs[i]; i++)
		if (!fnmatch(globs[i], tool, 0))
			return true;
	return false;
}

bool mi_server_cfg_allows(const mi_server_cfg *s, const char *tool)
{
	if (s->disabled)
		return false;
	if (s->has_allow && !any_match(s->allow, tool))
		return false;
	return !any_match(s->deny, tool);
}

bool mi_server_cfg_sensitive(const mi_server_cfg *s, const char *tool)
{
	return any_match(s->sensitive, tool);
}

int mi_server_connect(const mi_server_cfg *s, mi_mcp_note_fn note, void *ctx,
		      mi_mcp_client **out, mi_buf *err)
{
	mi_mcp_upstream u = {
		.name = s->name, .command = s->command, .args = (const char *const *)s->args,
		.env = (const char *const *)s->env, .cwd = s->cwd, .stderr_fd = -1,
		.url = s->url, .headers = (const char *const *)s->headers,
		.timeout_ms = s->timeout_ms, .protocol = s->protocol, .note = note, .note_ctx = ctx,
	};
	u.sse = s->sse;
	return mi_mcp_client_open(&u, out, err);
}
