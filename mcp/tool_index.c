/*
 * tool_index.c - the index tools: index_status (what is indexed, how fresh)
 * and index_codebase (build or update the served index; build.c does the
 * work, a task when the client asks for one).
 */
#include "area.h"

#include <string.h>

static int t_index_status(mi_mcp_ctx *c, mi_query *q, json_t *args,
			  mi_mcp_result *r)
{
	return mi_query_stats(q, &r->out);
}

static int t_index_codebase(mi_mcp_ctx *c, mi_query *q, json_t *args,
			    mi_mcp_result *r)
{
	mi_mcp_target bt;
	mi_buf err = {0};
	int rc = 0;
	if (mi_mcp_build_target(c->env, mi_mcp_arg_str(args, "path", NULL), &bt, &err))
		rc = mi_mcp_result_error(r, "%s", err.buf);
	else
		mi_mcp_build_run(c, &bt, mi_mcp_arg_bool(args, "force", false), r);
	mi_mcp_target_release(&bt);
	mi_buf_release(&err);
	return rc;
}

static const mi_mcp_tool index_tools[] = {
{
	"index_status", "Index status",
	"What the index holds and how fresh it is: counts, languages, build "
	"time, git commit.",
	"{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
	"{\"type\":\"object\",\"properties\":{\"built\":{\"type\":\"string\"},"
	"\"git_head\":{\"type\":\"string\"},\"files\":{\"type\":\"integer\"},"
	"\"symbols\":{\"type\":\"integer\"},\"languages\":{\"type\":\"object\"}}}",
	MI_TOOL_READ_ONLY | MI_TOOL_IDEMPOTENT | MI_TOOL_INDEX, t_index_status,
	NULL, NULL, NULL, NULL, NULL
},
{
	"index_codebase", "Build or update the index",
	"Index the served repository so the other tools can answer: re-parses "
	"changed files (all with force), swaps the index in atomically. Runs as "
	"a task when the client can.",
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":\"Default: "
	"the served repository; other trees only if the operator allowed them.\"},"
	"\"force\":{\"type\":\"boolean\",\"description\":"
	"\"Rebuild from scratch.\"}},\"additionalProperties\":false}",
	"{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
	"\"status\":{\"type\":\"string\"},\"exit_code\":{\"type\":\"integer\"},"
	"\"seconds\":{\"type\":\"number\"},\"stats\":{\"type\":\"object\"},\"output\":{\"type\":\"string\"}}}",
	MI_TOOL_IDEMPOTENT | MI_TOOL_SLOW | MI_TOOL_TASK_OPTIONAL, t_index_codebase,
	NULL, NULL, NULL, "build", NULL
},
};

const mi_mcp_tool_group mi_mcp_tools_index = {
	"index", index_tools, sizeof index_tools / sizeof *index_tools, NULL, NULL,
};
