/*
 * spec.c - what mcpidx's server offers: its identity, the instructions for
 * the model, and the tables of its areas.  A new tool group is one line in
 * mi_groups[] (its rows live in its own tool_<area>.c); a new resource kind
 * one line in mi_resources[].
 */
#include "area.h"

/* The server's icon: folded lines, as SVG (serverInfo only). */
#define MI_ICONS "[{\"src\":\"data:image/svg+xml;base64," \
	"PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxNiAxNiI+PHBhdGggZD0iTTEgM2g5TTQgOGgxMU00IDEzaDciIHN0cm9rZT0iIzNhNmVhNSIgc3Ryb2tlLXdpZHRoPSIyLjIiIHN0cm9rZS1saW5lY2FwPSJyb3VuZCIvPjwvc3ZnPg==\",\"mimeType\":\"image/svg+xml\",\"sizes\":[\"any\"]}]"

static const char mi_instructions[] =
	"mcpidx answers questions about one code repository from a prebuilt index. "
	"Answers are folded text: one line per symbol with a block mark "
	"(F> function, C> class, S> struct, E> enum, T> trait/interface, "
	"M> module, # heading), bodies collapsed to { ... }, and V* lines for "
	"facts that are not source (diagnostics, members, hints).\n"
	"Work from coarse to fine to save tokens:\n"
	"1. search_code (or search_docs for prose) to find where something lives;\n"
	"2. read_file with mode outline to see a file's shape;\n"
	"3. expand_at to read one symbol's body;\n"
	"4. goto_definition and find_references to follow names; code_research "
	"for callers of callers, implementations of an interface, or the module "
	"dependency map.\n"
	"Paths are relative to the repository root. Every file is also a "
	"resource (mcpidx://file/PATH, its outline mcpidx://outline/PATH). If a "
	"tool says there is no index, call index_codebase (or run `mcpidx build "
	"REPO`). index_status tells how fresh the index is.";

/* Tool groups, in tools/list order.  Each group's applies() decides whether
 * it is listed (NULL: always). */
static const mi_mcp_tool_group *const mi_groups[] = {
	&mi_mcp_tools_code,
	&mi_mcp_tools_index,
	&mi_mcp_tools_views,
	&mi_mcp_tools_meta,      /* when the index holds a tool catalog */
	&mi_mcp_tools_compile,   /* when .mcpidx.toml names compile targets */
	&mi_mcp_tools_artifact,  /* with serve --artifacts */
	NULL,
};

/* Resource kinds, in resources/list order. */
static const mi_mcp_resource_kind *const mi_resources[] = {
	&mi_mcp_resource_file,
	&mi_mcp_resource_outline,
	NULL,
};

/* Prompts, in prompts/list order. */
static const mi_mcp_prompt *const mi_prompts[] = {
	&mi_mcp_prompt_outline,
	&mi_mcp_prompt_explain_symbol,
	NULL,
};

const mi_mcp_spec mi_mcp_spec_mcpidx = {
	.name = "mcpidx",
	.title = "mcpidx code index",
	.version = MI_VERSION,
	.description = "Compact, navigable, searchable view of a code repository "
		       "from a prebuilt index: folded outlines, symbol lookup, "
		       "references, BM25 code and docs search.",
	.instructions = mi_instructions,
	.icons = MI_ICONS,
	.groups = mi_groups,
	.resources = mi_resources,
	.prompts = mi_prompts,
	.index = true,
};
