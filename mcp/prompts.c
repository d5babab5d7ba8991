/*
 * prompts.c - the prompts area (prompts/list, prompts/get) and argument
 * completion (completion/complete) for prompts and resource templates.
 * Rows come from the server's spec; mcpidx itself offers none today.
 */
#include "area.h"

#include <string.h>

void mi_mcp_prompts_list(const mi_mcp_spec *spec, mi_buf *out)
{
	size_t i;
	mi_buf_adds(out, "{\"prompts\":[");
	for (i = 0; spec->prompts && spec->prompts[i]; i++) {
		const mi_mcp_prompt *p = spec->prompts[i];
		if (i)
			mi_buf_addc(out, ',');
		mi_buf_adds(out, "{\"name\":");
		mi_buf_add_json_str(out, p->name, strlen(p->name));
		if (p->title) {
			mi_buf_adds(out, ",\"title\":");
			mi_buf_add_json_str(out, p->title, strlen(p->title));
		}
		if (p->description) {
			mi_buf_adds(out, ",\"description\":");
			mi_buf_add_json_str(out, p->description, strlen(p->description));
		}
		if (p->arguments) {
			mi_buf_adds(out, ",\"arguments\":");
			mi_buf_adds(out, p->arguments);
		}
		mi_buf_addc(out, '}');
	}
	mi_buf_adds(out, "]}");
}

static const mi_mcp_prompt *prompt_find(const mi_mcp_spec *spec, const char *name)
{
	size_t i;
	for (i = 0; name && spec->prompts && spec->prompts[i]; i++)
		if (strcmp(spec->prompts[i]->name, name) == 0)
			return spec->prompts[i];
	return NULL;
}

/* A prompt in a workspace: on the repository its repo argument names,
 * else the one holding its path argument, else the first; the resources
 * it embeds named with that repository. */
static int ws_prompt(mi_mcp_ctx *c, const mi_mcp_spec *spec, const mi_mcp_prompt *p,
		     json_t *args, mi_buf *out, mi_buf *msg)
{
	const char *repo = mi_mcp_arg_str(args, "repo", NULL);
	const char *path = mi_mcp_arg_str(args, "path", NULL);
	mi_mcp_env *e = repo ? mi_mcp_env_repo(c->env, repo) : NULL;
	mi_mcp_ctx sub = *c;
	mi_buf b = {0}, names = {0};
	size_t i;
	int rc;
	if (repo && !e) {
		mi_mcp_env_names(c->env, &names);
		mi_buf_addf(msg, "Unknown repo %.60s: one of %s", repo, names.buf);
		mi_buf_release(&names);
		return MI_RPC_INVALID_PARAMS;
	}
	for (i = 0; !e && path && c->env->repos[i]; i++)
		if (mi_mcp_env_holds(c->env->repos[i], path, NULL))
			e = c->env->repos[i];
	sub.env = e ? e : c->env->repos[0];
	mi_buf_addc(&b, '{');
	rc = p->get(&sub, args, &b, msg);
	mi_buf_addc(&b, '}');
	for (i = 0; i < b.len; i++) {
		size_t k, n;
		for (k = 0; spec->resources && spec->resources[k]; k++) {
			const char *t = spec->resources[k]->uri_template;
			n = strcspn(t, "{");
			if (b.len - i >= n && memcmp(b.buf + i, t, n) == 0)
				break;
		}
		if (spec->resources && spec->resources[k]) {
			mi_buf_add(out, b.buf + i, n);
			mi_buf_addf(out, "%s/", sub.env->name);
			i += n - 1;
		} else {
			mi_buf_addc(out, b.buf[i]);
		}
	}
	mi_buf_release(&b);
	return rc;
}

int mi_mcp_prompts_get(mi_mcp_ctx *c, const mi_mcp_spec *spec, json_t *params,
		       mi_buf *out, mi_buf *msg)
{
	const char *name = mi_mcp_arg_str(params, "name", NULL);
	const mi_mcp_prompt *p = prompt_find(spec, name);
	json_t *args = json_object_get(params, "arguments"), *decl, *a;
	size_t i;
	int rc;
	if (!p) {
		mi_buf_addf(msg, "Unknown prompt: %.100s; prompts/list names them",
			    name ? name : "(no name)");
		return MI_RPC_INVALID_PARAMS;
	}
	if (args && !json_is_object(args)) {
		mi_buf_adds(msg, "prompts/get: params.arguments must be an object of strings");
		return MI_RPC_INVALID_PARAMS;
	}
	decl = p->arguments ? json_loads(p->arguments, 0, NULL) : NULL;
	json_array_foreach(decl, i, a) {
		const char *an = mi_mcp_arg_str(a, "name", "");
		json_t *v = json_object_get(args, an);
		if (v && !json_is_string(v)) {
			/* prompt arguments are strings (MCP's PromptArgument) */
			mi_buf_addf(msg, "Argument %s of prompt %s must be a string", an, p->name);
			json_decref(decl);
			return MI_RPC_INVALID_PARAMS;
		}
		if (mi_mcp_arg_bool(a, "required", false) && !v) {
			mi_buf_addf(msg, "Missing required argument: %s", an);
			json_decref(decl);
			return MI_RPC_INVALID_PARAMS;
		}
	}
	json_decref(decl);
	c->name = p->name;
	if (c->env->nrepos > 1)
		return ws_prompt(c, spec, p, args, out, msg);
	mi_buf_addc(out, '{');
	rc = p->get(c, args, out, msg);
	mi_buf_addc(out, '}');
	return rc;
}

int mi_mcp_complete(mi_mcp_ctx *c, const mi_mcp_spec *spec, json_t *params,
		    mi_buf *out, mi_buf *msg)
{
	json_t *ref = json_object_get(params, "ref");
	json_t *arg = json_object_get(params, "argument");
	const char *type = mi_mcp_arg_str(ref, "type", "");
	const char *an = mi_mcp_arg_str(arg, "name", NULL);
	const char *val = mi_mcp_arg_str(arg, "value", "");
	mi_buf values = {0};
	size_t total = 0;
	int rc = 0;
	if (!json_is_object(ref) || !an) {
		mi_buf_adds(msg, "completion/complete needs params.ref and "
			    "params.argument {name, value}");
		return MI_RPC_INVALID_PARAMS;
	}
	if (strcmp(type, "ref/prompt") == 0) {
		const mi_mcp_prompt *p = prompt_find(spec, mi_mcp_arg_str(ref, "name", NULL));
		if (!p) {
			mi_buf_adds(msg, "Unknown prompt in ref");
			return MI_RPC_INVALID_PARAMS;
		}
		if (p->complete)
			rc = p->complete(c, an, val, &values, &total);
	} else if (strcmp(type, "ref/resource") == 0) {
		const char *uri = mi_mcp_arg_str(ref, "uri", "");
		size_t i;
		const mi_mcp_resource_kind *rk = NULL;
		if (mi_mcp_resources_ws_complete(c, spec, uri, an, val, &values, &total, &rc))
			goto done;
		for (i = 0; spec->resources && spec->resources[i]; i++)
			if (strcmp(spec->resources[i]->uri_template, uri) == 0)
				rk = spec->resources[i];
		if (!rk) {
			mi_buf_adds(msg, "Unknown resource template in ref");
			return MI_RPC_INVALID_PARAMS;
		}
		if (rk->complete)
			rc = rk->complete(c, an, val, &values, &total);
	} else {
		mi_buf_adds(msg, "params.ref.type must be ref/prompt or ref/resource");
		return MI_RPC_INVALID_PARAMS;
	}
done:
	if (rc) {
		mi_buf_addf(msg, "completion failed: %s", mi_strerror(rc));
		mi_buf_release(&values);
		return MI_RPC_INTERNAL;
	}
	mi_buf_adds(out, "{\"completion\":{\"values\":[");
	mi_buf_add(out, values.buf, values.len);
	mi_buf_addf(out, "],\"total\":%zu,\"hasMore\":%s}}", total,
		    total > 100 ? "true" : "false");
	mi_buf_release(&values);
	return 0;
}

bool mi_mcp_spec_completes(const mi_mcp_spec *spec)
{
	size_t i;
	for (i = 0; spec->prompts && spec->prompts[i]; i++)
		if (spec->prompts[i]->complete)
			return true;
	for (i = 0; spec->resources && spec->resources[i]; i++)
		if (spec->resources[i]->complete)
			return true;
	return false;
}
