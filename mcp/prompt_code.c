/*
 * prompt_code.c - mcpidx's prompts: ready-made first messages that put a
 * piece of the index in front of the model.  `outline` embeds a file's
 * folded outline; `explain_symbol` embeds a symbol's definitions and asks
 * what it does and who uses it.
 */
#include "area.h"

#include <stdlib.h>
#include <string.h>

/* A user message whose content is an embedded text resource. */
static void put_resource_msg(mi_buf *out, const char *uri, const char *text, size_t n)
{
	mi_buf_adds(out, "{\"role\":\"user\",\"content\":{\"type\":\"resource\","
		    "\"resource\":{\"uri\":");
	mi_buf_add_json_str(out, uri, strlen(uri));
	mi_buf_adds(out, ",\"mimeType\":\"text/plain\",\"text\":");
	mi_buf_add_json_str(out, text, n);
	mi_buf_adds(out, "}}}");
}

static void put_text_msg(mi_buf *out, const char *text)
{
	mi_buf_adds(out, "{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":");
	mi_buf_add_json_str(out, text, strlen(text));
	mi_buf_adds(out, "}}");
}

static int p_outline(mi_mcp_ctx *c, json_t *args, mi_buf *out, mi_buf *err)
{
	const char *path = mi_mcp_arg_str(args, "path", "");
	mi_buf norm = {0}, uri = {0}, t = {0};
	mi_view_opts vo;
	mi_out o;
	mi_query *q;
	int rc = 0;
	memset(&o, 0, sizeof o);
	memset(&vo, 0, sizeof vo);
	if (mi_path_normalize(path, &norm)) {
		size_t n = mi_utf8_prefix(path, strlen(path), 200);
		mi_buf_addf(err, "path must be repo-relative: %.*s%s", (int)n, path,
			    path[n] ? "..." : "");
		rc = MI_RPC_INVALID_PARAMS;
		goto out;
	}
	if (mi_mcp_index_get(c->env, &q, err)) {
		rc = MI_RPC_INTERNAL;
		goto out;
	}
	vo.mode = "outline";
	vo.max_tokens = 20000;
	mi_query_read_file(q, norm.buf, &vo, &o);
	mi_mcp_index_put(c->env);
	if (o.is_error) {
		size_t n = mi_utf8_prefix(o.text.buf, o.text.len, 512);
		mi_buf_add(err, o.text.buf, n);
		rc = MI_RPC_INVALID_PARAMS;
		goto out;
	}
	mi_mcp_file_uri(&uri, "outline", norm.buf);
	mi_buf_addf(&t, "This is the folded outline of %s (one line per symbol, "
		    "bodies as { ... }). Use expand_at to read the bodies you need.",
		    norm.buf);
	mi_buf_adds(out, "\"description\":\"The folded outline of a file\",\"messages\":[");
	put_text_msg(out, t.buf);
	mi_buf_addc(out, ',');
	put_resource_msg(out, uri.buf, mi_buf_str(&o.text), o.text.len);
	mi_buf_addc(out, ']');
out:
	mi_out_release(&o);
	mi_buf_release(&norm);
	mi_buf_release(&uri);
	mi_buf_release(&t);
	return rc;
}

#define MAX_SYMBOL_ARG 1024       /* bytes of a symbol argument */

static int p_explain_symbol(mi_mcp_ctx *c, json_t *args, mi_buf *out, mi_buf *err)
{
	const char *sym = mi_mcp_arg_str(args, "symbol", "");
	mi_buf t = {0};
	mi_out o;
	mi_query *q;
	int rc = 0;
	memset(&o, 0, sizeof o);
	if (strlen(sym) > MAX_SYMBOL_ARG) {
		mi_buf_addf(err, "symbol is %zu bytes; a name is at most %d", strlen(sym),
			    MAX_SYMBOL_ARG);
		return MI_RPC_INVALID_PARAMS;
	}
	if (mi_mcp_index_get(c->env, &q, err))
		return MI_RPC_INTERNAL;
	mi_query_definition(q, sym, NULL, &o);
	mi_mcp_index_put(c->env);
	/* Nothing to explain is the caller's mistake, not a prompt. */
	if (o.is_error || strstr(mi_buf_str(&o.json), "\"total\":0}")) {
		size_t n = mi_utf8_prefix(o.text.buf, o.text.len, 512);
		mi_buf_add(err, o.text.buf, n);
		rc = MI_RPC_INVALID_PARAMS;
		goto out;
	}
	mi_buf_addf(&t, "Explain what %s does and who uses it. Its definitions "
		    "are below; call find_references and expand_at for more.", sym);
	mi_buf_adds(&t, "\n\n");
	mi_buf_add(&t, o.text.buf, o.text.len);
	mi_buf_adds(out, "\"description\":\"A symbol's definitions, to explain it\","
		    "\"messages\":[");
	put_text_msg(out, t.buf);
	mi_buf_addc(out, ']');
out:
	mi_out_release(&o);
	mi_buf_release(&t);
	return rc;
}

/* Paths complete from the index (the file resource kind knows how). */
static int complete_path(mi_mcp_ctx *c, const char *arg, const char *prefix,
			 mi_buf *values, size_t *total)
{
	return mi_mcp_resource_file.complete(c, arg, prefix, values, total);
}

const mi_mcp_prompt mi_mcp_prompt_outline = {
	"outline", "Outline of a file",
	"Puts a file's folded outline in front of the model.",
	"[{\"name\":\"path\",\"description\":\"Repo-relative file path\","
	"\"required\":true}]",
	p_outline, complete_path,
};

const mi_mcp_prompt mi_mcp_prompt_explain_symbol = {
	"explain_symbol", "Explain a symbol",
	"Asks what a symbol does, with its definitions attached.",
	"[{\"name\":\"symbol\",\"description\":\"Name, e.g. login or "
	"User.login\",\"required\":true}]",
	p_explain_symbol, NULL,
};
