/*
 * tool_views.c - the change-oriented views: context_pack (what a model
 * needs to change a target, fitted to a token budget) and changed_symbols
 * (diff mode across the repository).  Thin over mi_query_pack and
 * mi_query_changed; diff mode parses the working tree or git revisions with
 * the parser the front end hands down in mi_mcp_opts (query/ never includes
 * indexer/).
 */
#include "area.h"

#include <string.h>

#define STR "{\"type\":\"string\"}"
#define INT "{\"type\":\"integer\"}"
#define OBJ(props) "{\"type\":\"object\",\"properties\":{" props "}}"
#define ROWS "{\"type\":\"array\",\"items\":{\"type\":\"object\"}}"

/* The diff options of this server, or a tool error when it has no parser. */
static int diff_opts(mi_mcp_ctx *c, mi_diff_opts *d, mi_mcp_result *r)
{
	memset(d, 0, sizeof *d);
	d->parse = c->env->opts->parse;
	d->detect = c->env->opts->detect;
	d->indexable = c->env->opts->indexable;
	if (!d->parse || !d->detect)
		return mi_mcp_result_error(r, "This server was started without a "
					   "parser, so it cannot compare versions; "
					   "use mcpidx serve.");
	return 0;
}

/* target: "a,b" or ["a", "b"] -> "a,b" in buf. */
static const char *targets(json_t *args, mi_buf *buf)
{
	json_t *v = json_object_get(args, "target"), *e;
	size_t i;
	if (json_is_string(v))
		return json_string_value(v);
	json_array_foreach(v, i, e) {
		if (i)
			mi_buf_addc(buf, ',');
		mi_buf_adds(buf, json_string_value(e));
	}
	return mi_buf_str(buf);
}

static int t_context_pack(mi_mcp_ctx *c, mi_query *q, json_t *args, mi_mcp_result *r)
{
	mi_pack_opts po = {0};
	mi_diff_opts since;
	mi_buf tb = {0};
	int rc = 0;
	po.target = targets(args, &tb);
	po.budget_tokens = (size_t)mi_mcp_arg_int(args, "budget_tokens", 4000);
	po.depth = (int)mi_mcp_arg_int(args, "depth", 1);
	if (mi_mcp_arg_str(args, "since", NULL)) {
		rc = diff_opts(c, &since, r);
		since.since = mi_mcp_arg_str(args, "since", NULL);
		po.since = &since;
	}
	if (!rc && !*po.target && !po.since)
		rc = mi_mcp_result_error(r, "Give a target (a symbol, Parent.symbol or "
					 "a file path) or since (a git revision).");
	if (!rc)
		rc = mi_query_pack(q, &po, &r->out);
	mi_buf_release(&tb);
	return rc;
}

static int t_changed_symbols(mi_mcp_ctx *c, mi_query *q, json_t *args, mi_mcp_result *r)
{
	mi_diff_opts d;
	int rc = diff_opts(c, &d, r);
	if (rc)
		return rc;
	d.since = mi_mcp_arg_str(args, "since", NULL);
	d.path = mi_mcp_arg_str(args, "path", NULL);
	if (d.path && !*d.path)
		d.path = NULL;
	return mi_query_changed(q, &d, &r->out);
}

/* read_file {diff: true}: the file's changed symbols (tool_code.c). */
int mi_mcp_read_diff(mi_mcp_ctx *c, mi_query *q, const char *path, json_t *args,
		     mi_mcp_result *r)
{
	mi_diff_opts d;
	int rc = diff_opts(c, &d, r);
	if (rc)
		return rc;
	d.since = mi_mcp_arg_str(args, "since", NULL);
	d.path = path;
	return mi_query_changed(q, &d, &r->out);
}

/* ---- the table ------------------------------------------------------------------- */

#define RO (MI_TOOL_READ_ONLY | MI_TOOL_IDEMPOTENT | MI_TOOL_INDEX)

static const mi_mcp_tool view_tools[] = {
{
	"context_pack", "Context pack",
	"What changing a target needs, within budget_tokens: its body, the "
	"symbols it uses (folded, across files), its callers.",
	"{\"type\":\"object\",\"properties\":{"
	"\"target\":{\"type\":\"string\",\"description\":"
	"\"Symbol, Parent.symbol or path; commas between several.\"},"
	"\"budget_tokens\":{\"type\":\"integer\",\"minimum\":100,"
	"\"default\":4000,\"description\":\"Answer size.\"},"
	"\"depth\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":2,\"default\":"
	"1,\"description\":\"Hops of uses.\"},"
	"\"since\":{\"type\":\"string\",\"description\":\"Target what changed "
	"since this git revision.\"}},\"additionalProperties\":false}",
	OBJ("\"tokens\":" INT ",\"entries\":" ROWS ",\"left_out\":" ROWS
	    ",\"text\":" STR),
	RO, t_context_pack, NULL, NULL, NULL, NULL, NULL
},
{
	"changed_symbols", "Changed symbols",
	"Symbols added (+), removed (-) or changed (~) since the build or a git "
	"revision: for reviews and commit messages.",
	"{\"type\":\"object\",\"properties\":{"
	"\"since\":{\"type\":\"string\",\"description\":\"Git revision or A..B; "
	"default: the build.\"},"
	"\"path\":{\"type\":\"string\",\"description\":\"One file only.\"},"
	"\"max_tokens\":{\"type\":\"integer\",\"minimum\":100,\"default\":20000,"
	"\"description\":\"Answer size cap.\"}},"
	"\"additionalProperties\":false}",
	OBJ("\"changed\":" ROWS ",\"total\":" INT ",\"text\":" STR
	    ",\"truncated\":{\"type\":\"boolean\"}"),
	RO | MI_TOOL_BUDGET, t_changed_symbols, "pass path or a closer since", NULL,
	NULL, NULL, NULL
},
};

const mi_mcp_tool_group mi_mcp_tools_views = {
	"views", view_tools, sizeof view_tools / sizeof *view_tools, NULL, NULL,
};
