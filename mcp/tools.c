/*
 * tools.c - the MCP tool table: one row per tool (name, title, description
 * written for a model, input and output JSON Schemas, annotations, task
 * support) and its handler, a thin call into query/.  Arguments are checked
 * against the row's inputSchema before the handler runs, so the schema is
 * the single statement of what a tool accepts.
 *
 * Adding a tool is adding a row to mi_tools[] (tools/list shows rows in
 * order) and a handler that fills an mi_out.
 */
#include "mcp_int.h"

#include <math.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

/* Fills out from the query handle and arguments (already validated). */
typedef int (*mi_tool_fn)(mi_mcp_call *c, mi_query *q, json_t *args,
			  mi_out *out);

typedef struct mi_mcp_tool {
	const char *name;          /* tools/call name */
	const char *title;         /* display name */
	const char *description;   /* for the model: what, when, what it returns */
	const char *input_schema;  /* JSON Schema of arguments */
	const char *output_schema; /* JSON Schema of structuredContent */
	bool read_only;            /* annotations.readOnlyHint */
	bool idempotent;           /* annotations.idempotentHint */
	const char *task_support;  /* execution.taskSupport */
	bool needs_index;          /* borrow the query handle before fn */
	mi_tool_fn fn;             /* NULL: handled specially (index_codebase) */
	const char *narrow;        /* how to narrow an answer that was cut */
} mi_mcp_tool;

#define MAXTOK "\"max_tokens\":{\"type\":\"integer\",\"minimum\":100," \
	"\"maximum\":200000,\"default\":20000,\"description\":\"Cap on the " \
	"answer's size in tokens; longer answers are cut at a symbol or line " \
	"boundary with a note saying how to narrow the request.\"}"

#define LOC_ITEM(extra) "{\"type\":\"object\",\"properties\":{" \
	"\"path\":{\"type\":\"string\"},\"line\":{\"type\":\"integer\"}" extra "}}"

/* ---- handlers ---------------------------------------------------------------- */

static const char *arg_str(json_t *args, const char *k, const char *def)
{
	json_t *v = args ? json_object_get(args, k) : NULL;
	return json_is_string(v) ? json_string_value(v) : def;
}

static long long arg_int(json_t *args, const char *k, long long def)
{
	json_t *v = args ? json_object_get(args, k) : NULL;
	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_real(v))
		return (long long)json_real_value(v);
	return def;
}

static bool arg_bool(json_t *args, const char *k, bool def)
{
	json_t *v = args ? json_object_get(args, k) : NULL;
	return json_is_boolean(v) ? json_is_true(v) : def;
}

/* Accepts repo-relative paths, and absolute ones inside the repository. */
static int repo_path(mi_mcp_call *c, const char *in, mi_buf *norm, mi_out *out)
{
	const char *repo = c->sess->srv->repo_path;
	size_t rl = strlen(repo);
	if (in[0] == '/' && strncmp(in, repo, rl) == 0 && in[rl] == '/')
		in += rl + 1;
	if (mi_path_normalize(in, norm) != 0)
		return mi_out_error(out, MI_ERR_PATH, "Path must be relative to the "
				    "repository root and stay inside it (no \"..\"): "
				    "%s. Example: \"src/main.c\".", in);
	return 0;
}

static void view_opts(json_t *args, mi_view_opts *vo)
{
	const char *ln = arg_str(args, "line_numbers", NULL);
	const char *mode = arg_str(args, "mode", "outline");
	memset(vo, 0, sizeof *vo);
	vo->mode = strcmp(mode, "mcp") == 0 ? "outline" : mode;
	vo->all = strcmp(arg_str(args, "filter", "public"), "all") == 0;
	vo->line_numbers = !ln ? 0 : strcmp(ln, "zpad") == 0 ? 2 : 1;
	vo->block_guides = arg_bool(args, "show_block_guides", false);
	vo->coverage = arg_bool(args, "show_coverage", false);
	vo->max_tokens = (size_t)arg_int(args, "max_tokens", 20000);
}

static int t_read_file(mi_mcp_call *c, mi_query *q, json_t *args, mi_out *out)
{
	mi_buf p = {0};
	mi_view_opts vo;
	int rc;
	mi_art_notes_t notes = {0};
	view_opts(args, &vo);
	rc = repo_path(c, arg_str(args, "path", ""), &p, out);
	if (!rc && arg_bool(args, "summaries", false) &&
	    !mi_art_notes(mi_mcp_art_handle(c->sess->srv), q, p.buf, &notes)) {
		vo.line_notes = notes.v;
		vo.nline_notes = notes.n;
	}
	if (!rc)
		rc = mi_query_read_file(q, p.buf, &vo, out);
	mi_art_notes_release(&notes);
	mi_buf_release(&p);
	return rc;
}

static int t_expand_at(mi_mcp_call *c, mi_query *q, json_t *args, mi_out *out)
{
	mi_buf p = {0};
	mi_view_opts vo;
	int rc;
	const char *what = arg_str(args, "what", "body");
	mi_art_notes_t notes = {0};
	view_opts(args, &vo);
	vo.mode = "full";
	rc = repo_path(c, arg_str(args, "path", ""), &p, out);
	/* The docs of a symbol include what the host's model wrote about it. */
	if (!rc && (!strcmp(what, "docs") || !strcmp(what, "all")) &&
	    !mi_art_notes(mi_mcp_art_handle(c->sess->srv), q, p.buf, &notes)) {
		vo.line_notes = notes.v;
		vo.nline_notes = notes.n;
	}
	if (!rc)
		rc = mi_query_expand(q, p.buf, arg_str(args, "selector", ""), what, &vo, out);
	mi_art_notes_release(&notes);
	mi_buf_release(&p);
	return rc;
}

static int t_goto_definition(mi_mcp_call *c, mi_query *q, json_t *args,
			     mi_out *out)
{
	const char *path = arg_str(args, "path", NULL);
	mi_buf p = {0};
	int rc = 0;
	if (path && *path)
		rc = repo_path(c, path, &p, out);
	if (!rc)
		rc = mi_query_definition(q, arg_str(args, "symbol", ""),
					 p.len ? p.buf : NULL, out);
	mi_buf_release(&p);
	return rc;
}

static int t_find_references(mi_mcp_call *c, mi_query *q, json_t *args,
			     mi_out *out)
{
	return mi_query_references(q, arg_str(args, "symbol", ""),
				   arg_str(args, "kind", "calls"),
				   (size_t)arg_int(args, "limit", 50), out);
}

static int t_code_research(mi_mcp_call *c, mi_query *q, json_t *args,
			   mi_out *out)
{
	return mi_query_research(q, arg_str(args, "query", ""),
				 (int)arg_int(args, "depth", 2),
				 arg_str(args, "focus", NULL), out);
}

/* extensions: "c,h" or ["c", ".h"] -> "c,h" in buf. */
static const char *extensions(json_t *args, mi_buf *buf)
{
	json_t *v = json_object_get(args, "extensions");
	size_t i;
	json_t *e;
	if (json_is_string(v))
		return json_string_value(v);
	if (!json_is_array(v) || json_array_size(v) == 0)
		return NULL;
	json_array_foreach(v, i, e) {
		if (i)
			mi_buf_addc(buf, ',');
		mi_buf_adds(buf, json_string_value(e));
	}
	return buf->buf;
}

static int t_search(mi_mcp_call *c, mi_query *q, json_t *args, mi_out *out,
		    bool docs)
{
	mi_search_opts so;
	mi_buf ext = {0};
	int rc;
	memset(&so, 0, sizeof so);
	so.query = arg_str(args, "query", "");
	so.limit = (size_t)arg_int(args, "limit", docs ? 10 : 20);
	so.path_filter = arg_str(args, "path_filter", NULL);
	if (so.path_filter && !*so.path_filter)
		so.path_filter = NULL;
	so.extensions = docs ? NULL : extensions(args, &ext);
	so.format = arg_str(args, "format", "toon");
	so.all = strcmp(arg_str(args, "filter", "public"), "all") == 0;
	rc = docs ? mi_query_docs(q, &so, out) : mi_query_search(q, &so, out);
	mi_buf_release(&ext);
	return rc;
}

static int t_search_code(mi_mcp_call *c, mi_query *q, json_t *args, mi_out *out)
{
	mi_art_search as;
	mi_buf ext = {0};
	int rc;
	if (!arg_bool(args, "expand_query", false) && !arg_bool(args, "synthesize", false))
		return t_search(c, q, args, out, false);
	/* The host's own model widens the query or sums the results up. */
	memset(&as, 0, sizeof as);
	as.so.query = arg_str(args, "query", "");
	as.so.limit = (size_t)arg_int(args, "limit", 20);
	as.so.path_filter = arg_str(args, "path_filter", NULL);
	if (as.so.path_filter && !*as.so.path_filter)
		as.so.path_filter = NULL;
	as.so.extensions = extensions(args, &ext);
	as.so.format = arg_str(args, "format", "toon");
	as.so.all = strcmp(arg_str(args, "filter", "public"), "all") == 0;
	as.expand = arg_bool(args, "expand_query", false);
	as.synthesize = arg_bool(args, "synthesize", false);
	as.result = arg_str(args, "result", NULL);
	as.chain = arg_str(args, "chain", NULL);
	as.call_id = c->cid;
	rc = mi_mcp_art_search(mi_mcp_art_handle(c->sess->srv), q, &as, out);
	mi_buf_release(&ext);
	return rc;
}

static int t_search_docs(mi_mcp_call *c, mi_query *q, json_t *args, mi_out *out)
{
	return t_search(c, q, args, out, true);
}

static int t_index_status(mi_mcp_call *c, mi_query *q, json_t *args,
			  mi_out *out)
{
	return mi_query_stats(q, out);
}

/* ---- the table --------------------------------------------------------------- */

static const mi_mcp_tool mi_tools[] = {
{
	"read_file", "Read a file (folded outline)",
	"Show one file of the indexed repository as folded text: one line per "
	"symbol with its signature, bodies collapsed to { ... }, and V* lines "
	"for diagnostics, members and hints. Start here to learn a file's shape "
	"cheaply (an outline is usually under 10% of the source's tokens), then "
	"call expand_at for the bodies you need. mode=full returns the source "
	"itself. Returns {path, mode, text, line_count, symbols, "
	"tokens_saved_percent}.",
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":\"File path "
	"relative to the repository root, e.g. \\\"src/auth/login.c\\\".\"},"
	"\"mode\":{\"type\":\"string\",\"enum\":[\"outline\",\"compact\",\"full\","
	"\"mcp\"],\"default\":\"outline\",\"description\":\"outline: signatures, "
	"bodies folded (\\\"mcp\\\" is the same); compact: classes on one line, "
	"diagnostics summarised; full: the source.\"},"
	"\"filter\":{\"type\":\"string\",\"enum\":[\"public\",\"all\"],"
	"\"default\":\"public\",\"description\":\"public: exported symbols only; "
	"all: private ones too.\"},"
	"\"line_numbers\":{\"type\":\"string\",\"enum\":[\"plain\",\"zpad\"],"
	"\"description\":\"Prefix each line with its source line number "
	"(zpad: zero-padded).\"},"
	"\"with_meta\":{\"type\":\"boolean\",\"default\":false,\"description\":"
	"\"Add a meta object (mode, line_numbers, show_coverage, "
	"show_block_guides) to the structured result.\"},"
	"\"show_block_guides\":{\"type\":\"boolean\",\"default\":false,"
	"\"description\":\"Add V* end lines closing each block.\"},"
	"\"summaries\":{\"type\":\"boolean\",\"default\":false,\"description\":"
	"\"Add V* summary lines: what your model wrote about each symbol (stored with "
	"store_llm_result), while it still matches the source.\"},"
	"\"show_coverage\":{\"type\":\"boolean\",\"default\":false,"
	"\"description\":\"Add V* coverage lines from an lcov file if one is "
	"found.\"}," MAXTOK "},"
	"\"required\":[\"path\"],\"additionalProperties\":false}",
	"{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
	"\"mode\":{\"type\":\"string\"},\"text\":{\"type\":\"string\"},"
	"\"line_count\":{\"type\":\"integer\"},\"symbols\":{},"
	"\"tokens_saved_percent\":{\"type\":\"number\"},"
	"\"meta\":{\"type\":\"object\"}},\"required\":[\"path\",\"text\"]}",
	true, true, "forbidden", true, t_read_file,
	"use mode outline or compact, or expand_at for one symbol, or raise "
	"max_tokens"
},
{
	"expand_at", "Expand one symbol",
	"Show the full text of one symbol in a file: its body, signature, doc "
	"comment or all three. Use after read_file or search_code pointed you "
	"at it. selector is a name (login), a qualified name (User.login) or "
	"line:N for the symbol enclosing line N. Returns {path, name, kind, "
	"start_line, end_line, text}.",
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":\"File path "
	"relative to the repository root.\"},"
	"\"selector\":{\"type\":\"string\",\"minLength\":1,\"description\":"
	"\"NAME, Parent.NAME, or line:N.\"},"
	"\"what\":{\"type\":\"string\",\"enum\":[\"body\",\"signature\",\"docs\","
	"\"all\"],\"default\":\"body\",\"description\":\"Which part to show.\"},"
	MAXTOK "},\"required\":[\"path\",\"selector\"],"
	"\"additionalProperties\":false}",
	"{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
	"\"name\":{\"type\":\"string\"},\"kind\":{\"type\":\"string\"},"
	"\"start_line\":{\"type\":\"integer\"},\"end_line\":{\"type\":\"integer\"},"
	"\"text\":{\"type\":\"string\"}},\"required\":[\"path\",\"text\"]}",
	true, true, "forbidden", true, t_expand_at,
	"expand a nested member (Parent.NAME) or ask for what=signature"
},
{
	"goto_definition", "Go to definition",
	"Find where a symbol is defined: every definition of that name (or only "
	"those in path), each with its location, signature and folded text. "
	"Prototypes and forward declarations are not definitions. Returns "
	"{definitions: [{name, kind, path, line, end_line, signature, text}]}.",
	"{\"type\":\"object\",\"properties\":{"
	"\"symbol\":{\"type\":\"string\",\"minLength\":1,\"description\":\"Symbol "
	"name, simple (login) or qualified (User.login).\"},"
	"\"path\":{\"type\":\"string\",\"description\":\"Only definitions in this "
	"file (repo-relative).\"}," MAXTOK "},"
	"\"required\":[\"symbol\"],\"additionalProperties\":false}",
	"{\"type\":\"object\",\"properties\":{\"definitions\":{\"type\":\"array\","
	"\"items\":" LOC_ITEM(",\"name\":{\"type\":\"string\"},\"kind\":{\"type\":"
	"\"string\"},\"end_line\":{\"type\":\"integer\"},\"signature\":{},"
	"\"text\":{\"type\":\"string\"}") "}},\"required\":[\"definitions\"]}",
	true, true, "forbidden", true, t_goto_definition,
	"pass path to pick one definition"
},
{
	"find_references", "Find references",
	"List the places that use a symbol: call sites (kind=calls, default) "
	"or every reference including type uses, imports and implementations "
	"(kind=all), each with the enclosing caller's name and the line's text. "
	"Returns {references: [{path, line, caller, text}]}.",
	"{\"type\":\"object\",\"properties\":{"
	"\"symbol\":{\"type\":\"string\",\"minLength\":1,\"description\":\"Name "
	"of the function, method or type.\"},"
	"\"kind\":{\"type\":\"string\",\"enum\":[\"calls\",\"all\"],"
	"\"default\":\"calls\",\"description\":\"calls: call sites only; all: "
	"every reference.\"},"
	"\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,"
	"\"default\":50,\"description\":\"Most references to return.\"},"
	MAXTOK "},\"required\":[\"symbol\"],\"additionalProperties\":false}",
	"{\"type\":\"object\",\"properties\":{\"references\":{\"type\":\"array\","
	"\"items\":" LOC_ITEM(",\"caller\":{},\"text\":{\"type\":\"string\"}")
	"}},\"required\":[\"references\"]}",
	true, true, "forbidden", true, t_find_references,
	"lower limit or use kind=calls"
},
{
	"code_research", "Research across the code graph",
	"Multi-hop analysis for questions one lookup cannot answer: what calls "
	"X (and what calls those), every implementation of an interface, "
	"protocol or trait, how modules depend on each other. depth sets how "
	"many hops to follow (1-5); focus steers it: architecture, "
	"dependencies, patterns or flow. Returns {nodes: [{name, path, line, "
	"depth}], edges: [{from, to, kind}], text}.",
	"{\"type\":\"object\",\"properties\":{"
	"\"query\":{\"type\":\"string\",\"minLength\":1,\"description\":"
	"\"Research question or symbol, e.g. \\\"what calls authenticate\\\" or "
	"\\\"implementations of Storage\\\".\"},"
	"\"depth\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":5,"
	"\"default\":2,\"description\":\"Hops to follow.\"},"
	"\"focus\":{\"type\":\"string\",\"enum\":[\"architecture\","
	"\"dependencies\",\"patterns\",\"flow\"],\"description\":\"Optional "
	"emphasis.\"}," MAXTOK "},"
	"\"required\":[\"query\"],\"additionalProperties\":false}",
	"{\"type\":\"object\",\"properties\":{\"nodes\":{\"type\":\"array\"},"
	"\"edges\":{\"type\":\"array\"},\"text\":{\"type\":\"string\"}},"
	"\"required\":[\"nodes\",\"edges\"]}",
	true, true, "forbidden", true, t_code_research,
	"lower depth or name one symbol"
},
{
	"search_code", "Search code",
	"Ranked full-text (BM25) search over the repository's code chunks: "
	"identifiers are split (camelCase, snake_case) and words stemmed, so "
	"both \"user login\" and \"validateToken\" work. Each hit has path, "
	"start_line, end_line, relevance_percent, kind, symbols, signature, "
	"breadcrumb, doc_comment and a folded snippet (content). Narrow with "
	"path_filter (glob, ** spans directories) or extensions. Returns "
	"{results: [...], total}.",
	"{\"type\":\"object\",\"properties\":{"
	"\"query\":{\"type\":\"string\",\"minLength\":1,\"description\":\"Words, "
	"identifiers or a code fragment.\"},"
	"\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,"
	"\"default\":20,\"description\":\"Most hits to return.\"},"
	"\"path_filter\":{\"type\":\"string\",\"description\":\"Glob on the "
	"repo-relative path, e.g. \\\"src/auth/**\\\".\"},"
	"\"extensions\":{\"type\":[\"string\",\"array\"],\"items\":{\"type\":"
	"\"string\"},\"description\":\"File extensions, e.g. \\\"c,h\\\" or "
	"[\\\"py\\\"].\"},"
	"\"format\":{\"type\":\"string\",\"enum\":[\"toon\",\"json\",\"human\"],"
	"\"default\":\"toon\",\"description\":\"Form of the text answer: toon "
	"(compact table), json or human.\"},"
	"\"filter\":{\"type\":\"string\",\"enum\":[\"public\",\"all\"],"
	"\"default\":\"public\",\"description\":\"public: skip private symbols' "
	"chunks; all: everything.\"},"
	"\"expand_query\":{\"type\":\"boolean\",\"default\":false,\"description\":"
	"\"Widen the query with YOUR OWN model: the answer adds status prompt_ready, a "
	"prompt asking for related words and identifiers, and callbackArgs; call "
	"search_code again with them plus result (the model's answer).\"},"
	"\"synthesize\":{\"type\":\"boolean\",\"default\":false,\"description\":"
	"\"Add a prompt (promptForHostLLM) for your own model to sum the results up and "
	"suggest follow-up questions.\"},"
	"\"result\":{\"type\":\"string\",\"description\":\"With expand_query: your "
	"model's answer to the expansion prompt (related terms, one per line).\"},"
	"\"chain\":{\"type\":\"string\",\"description\":\"From callbackArgs.\"},"
	"\"step\":{\"type\":\"integer\",\"description\":\"From callbackArgs.\"},"
	MAXTOK "},"
	"\"required\":[\"query\"],\"additionalProperties\":false}",
	"{\"type\":\"object\",\"properties\":{\"results\":{\"type\":\"array\","
	"\"items\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":"
	"\"string\"},\"start_line\":{\"type\":\"integer\"},\"end_line\":{\"type\":"
	"\"integer\"},\"relevance_percent\":{\"type\":\"number\"},\"kind\":{},"
	"\"symbols\":{},\"signature\":{},\"breadcrumb\":{},\"doc_comment\":{},"
	"\"content\":{\"type\":\"string\"}}}},\"total\":{\"type\":\"integer\"}},"
	"\"required\":[\"results\"]}",
	true, true, "forbidden", true, t_search_code,
	"lower limit, add path_filter or extensions"
},
{
	"search_docs", "Search documentation",
	"Ranked full-text search over Markdown sections and doc comments: "
	"READMEs, guides, API comments. Use for how-to and why questions before "
	"reading code. Returns {results: [{path, start_line, end_line, heading, "
	"relevance_percent, content}], total}.",
	"{\"type\":\"object\",\"properties\":{"
	"\"query\":{\"type\":\"string\",\"minLength\":1,\"description\":"
	"\"Natural-language question or keywords.\"},"
	"\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,"
	"\"default\":10,\"description\":\"Most hits to return.\"},"
	"\"path_filter\":{\"type\":\"string\",\"description\":\"Glob on the "
	"repo-relative path, e.g. \\\"docs/*.md\\\".\"}," MAXTOK "},"
	"\"required\":[\"query\"],\"additionalProperties\":false}",
	"{\"type\":\"object\",\"properties\":{\"results\":{\"type\":\"array\","
	"\"items\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":"
	"\"string\"},\"start_line\":{\"type\":\"integer\"},\"end_line\":{\"type\":"
	"\"integer\"},\"heading\":{},\"relevance_percent\":{\"type\":\"number\"},"
	"\"content\":{\"type\":\"string\"}}}},\"total\":{\"type\":\"integer\"}},"
	"\"required\":[\"results\"]}",
	true, true, "forbidden", true, t_search_docs,
	"lower limit or add path_filter"
},
{
	"index_status", "Index status",
	"Describe the index this server answers from: where it is, when and "
	"from which commit it was built, its format version, and counts of "
	"files, symbols, references and chunks by language. Call it first to "
	"check an index exists and is fresh; if not, call index_codebase.",
	"{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
	"{\"type\":\"object\"}",
	true, true, "forbidden", true, t_index_status,
	"(no narrowing: this answer is small)"
},
{
	"index_codebase", "Build or update the index",
	"Index a repository so the other tools can answer about it: walks the "
	"tree (honouring .gitignore), parses changed files, and commits the "
	"new index atomically, so queries keep working during the build. Only "
	"changed files are re-parsed unless force is true. Can take minutes on "
	"a large tree: call it as a task (tasks/get, tasks/result) or with a "
	"progress token. Returns {path, status, exit_code, seconds, stats}.",
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":\"Directory "
	"of the repository to index (absolute, or relative to the server's "
	"working directory). Defaults to the repository this server serves.\"},"
	"\"force\":{\"type\":\"boolean\",\"default\":false,\"description\":"
	"\"Rebuild from scratch instead of only re-parsing changed files.\"}},"
	"\"additionalProperties\":false}",
	"{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
	"\"status\":{\"type\":\"string\"},\"exit_code\":{\"type\":\"integer\"},"
	"\"seconds\":{\"type\":\"number\"},\"stats\":{}},"
	"\"required\":[\"path\",\"status\"]}",
	false, true, "optional", false, NULL,
	"(no narrowing)"
},
};

#define MI_NTOOLS (sizeof mi_tools / sizeof *mi_tools)

/* Parsed inputSchemas, one per row (read-only once built). */
static json_t *mi_schemas[MI_NTOOLS];
static char *mi_list_json;
static pthread_once_t mi_tools_once = PTHREAD_ONCE_INIT;

static void tools_build(void)
{
	mi_buf b = {0};
	size_t i;
	bool first = true;
	mi_buf_adds(&b, "{\"tools\":[");
	for (i = 0; i < MI_NTOOLS; i++) {
		const mi_mcp_tool *t = &mi_tools[i];
		json_error_t e;
		mi_schemas[i] = json_loads(t->input_schema, JSON_REJECT_DUPLICATES, &e);
		if (!first)
			mi_buf_addc(&b, ',');
		first = false;
		mi_buf_adds(&b, "{\"name\":");
		mi_buf_add_json_str(&b, t->name, strlen(t->name));
		mi_buf_adds(&b, ",\"title\":");
		mi_buf_add_json_str(&b, t->title, strlen(t->title));
		mi_buf_adds(&b, ",\"description\":");
		mi_buf_add_json_str(&b, t->description, strlen(t->description));
		mi_buf_adds(&b, ",\"inputSchema\":");
		mi_buf_adds(&b, t->input_schema);
		mi_buf_adds(&b, ",\"outputSchema\":");
		mi_buf_adds(&b, t->output_schema);
		mi_buf_addf(&b, ",\"annotations\":{\"title\":");
		mi_buf_add_json_str(&b, t->title, strlen(t->title));
		mi_buf_addf(&b, ",\"readOnlyHint\":%s,", t->read_only ? "true" : "false");
		if (!t->read_only)
			mi_buf_adds(&b, "\"destructiveHint\":false,");
		mi_buf_addf(&b, "\"idempotentHint\":%s,\"openWorldHint\":false},"
			    "\"execution\":{\"taskSupport\":\"%s\"},"
			    "\"icons\":" MI_MCP_ICONS "}",
			    t->idempotent ? "true" : "false", t->task_support);
	}
	mi_buf_adds(&b, "]}");
	mi_list_json = mi_buf_detach(&b);
}

void mi_mcp_tools_list(mi_buf *out)
{
	pthread_once(&mi_tools_once, tools_build);
	mi_buf_adds(out, mi_list_json);
}

const mi_mcp_tool *mi_mcp_tool_find(const char *name, const char **task_support)
{
	size_t i;
	for (i = 0; i < MI_NTOOLS; i++)
		if (strcmp(mi_tools[i].name, name) == 0) {
			if (task_support)
				*task_support = mi_tools[i].task_support;
			return &mi_tools[i];
		}
	return NULL;
}

int mi_mcp_tools_selftest(mi_buf *err)
{
	size_t i;
	int rc = 0;
	json_error_t e;
	json_t *j;
	pthread_once(&mi_tools_once, tools_build);
	for (i = 0; i < MI_NTOOLS; i++) {
		if (!mi_schemas[i]) {
			mi_buf_addf(err, "%s: inputSchema is not valid JSON\n",
				    mi_tools[i].name);
			rc = -1;
		}
		j = json_loads(mi_tools[i].output_schema, JSON_REJECT_DUPLICATES, &e);
		if (!j) {
			mi_buf_addf(err, "%s: outputSchema: %s\n", mi_tools[i].name,
				    e.text);
			rc = -1;
		}
		json_decref(j);
	}
	j = json_loads(mi_list_json, JSON_REJECT_DUPLICATES, &e);
	if (!j) {
		mi_buf_addf(err, "tools/list result is not valid JSON: %s\n", e.text);
		rc = -1;
	}
	json_decref(j);
	return rc;
}

/* ---- argument validation against the inputSchema ----------------------------- */

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
	bool ok = true;
	size_t i;
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

int mi_mcp_args_check(const char *tool, json_t *schema, json_t *args, mi_buf *err)
{
	json_t *props = json_object_get(schema, "properties");
	json_t *req = json_object_get(schema, "required"), *v, *ps;
	const char *key;
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

static int validate(size_t ti, json_t *args, mi_buf *err)
{
	return mi_mcp_args_check(mi_tools[ti].name, mi_schemas[ti], args, err);
}

/* ---- results ---------------------------------------------------------------- */

void mi_mcp_tool_error(mi_buf *out, const char *fmt, ...)
{
	mi_buf m = {0};
	va_list ap;
	va_start(ap, fmt);
	mi_buf_vaddf(&m, fmt, ap);
	va_end(ap);
	mi_buf_adds(out, "{\"content\":[{\"type\":\"text\",\"text\":");
	mi_buf_add_json_str(out, mi_buf_str(&m), m.len);
	mi_buf_adds(out, "}],\"isError\":true}");
	mi_buf_release(&m);
}

/* Cuts text to about max_tokens at a line boundary and says how to narrow. */
static bool cap_text(mi_buf *t, size_t max_tokens, const char *narrow)
{
	size_t total, used = 0, pos = 0, cut = 0, budget;
	if (!t->len || (total = mi_token_estimate(t->buf, t->len)) <= max_tokens)
		return false;
	budget = max_tokens > 80 ? max_tokens - 60 : max_tokens / 2;
	while (pos < t->len) {
		char *nl = memchr(t->buf + pos, '\n', t->len - pos);
		size_t end = nl ? (size_t)(nl - t->buf) + 1 : t->len;
		size_t lt = mi_token_estimate(t->buf + pos, end - pos);
		if (used + lt > budget)
			break;
		used += lt;
		pos = cut = end;
	}
	if (cut == 0) {
		/* One giant line: cut by bytes at a UTF-8 boundary. */
		cut = budget * 3 < t->len ? budget * 3 : t->len;
		while (cut > 0 && ((unsigned char)t->buf[cut] & 0xC0) == 0x80)
			cut--;
	}
	t->len = cut;
	t->buf[cut] = 0;
	if (cut && t->buf[cut - 1] != '\n')
		mi_buf_addc(t, '\n');
	mi_buf_addf(t, "V* [cut: the answer is about %zu tokens, over the budget "
		    "of %zu; to see more, %s]\n", total, max_tokens, narrow);
	return true;
}

/* Appends `{...json, "meta": {...}}`: the query's object with meta added. */
static void splice_meta(mi_buf *out, const mi_buf *json, json_t *args)
{
	const char *mode = arg_str(args, "mode", "outline");
	const char *ln = arg_str(args, "line_numbers", NULL);
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
	mi_buf_addf(out, "\"meta\":{\"mode\":\"%s\"",
		    strcmp(mode, "outline") == 0 || strcmp(mode, "mcp") == 0 ?
		    "mcp" : mode);
	if (ln)
		mi_buf_addf(out, ",\"line_numbers\":\"%s\"", ln);
	mi_buf_addf(out, ",\"show_coverage\":%s,\"show_block_guides\":%s}}",
		    arg_bool(args, "show_coverage", false) ? "true" : "false",
		    arg_bool(args, "show_block_guides", false) ? "true" : "false");
}

static void tool_result(mi_buf *out, mi_out *o, json_t *args, bool meta)
{
	mi_buf_adds(out, "{\"content\":[{\"type\":\"text\",\"text\":");
	mi_buf_add_json_str(out, mi_buf_str(&o->text), o->text.len);
	mi_buf_adds(out, "}]");
	if (o->is_error) {
		mi_buf_adds(out, ",\"isError\":true}");
		return;
	}
	mi_buf_adds(out, ",\"structuredContent\":");
	if (meta)
		splice_meta(out, &o->json, args);
	else if (o->json.len)
		mi_buf_add(out, o->json.buf, o->json.len);
	else {
		mi_buf_adds(out, "{\"text\":");
		mi_buf_add_json_str(out, mi_buf_str(&o->text), o->text.len);
		mi_buf_addc(out, '}');
	}
	mi_buf_adds(out, ",\"isError\":false}");
}

int mi_mcp_tool_call(mi_mcp_call *c, const char *name, json_t *args,
		     mi_buf *out, int *code, mi_buf *msg)
{
	mi_mcp_server *s = c->sess->srv;
	const mi_mcp_tool *t;
	/* Task augmentation exists from 2025-11-25 on; older sessions never
	 * saw the capability, so a stray "task" is ignored there. */
	json_t *task = c->params && strcmp(c->sess->version, "2025-11-25") >= 0 ?
		       json_object_get(c->params, "task") : NULL;
	mi_buf err = {0};
	mi_out o;
	mi_query *q = NULL;
	size_t ti;
	int rc = 0;

	pthread_once(&mi_tools_once, tools_build);
	memset(&o, 0, sizeof o);
	if (mi_mcp_meta_is_tool(name))
		return mi_mcp_meta_call(c, name, args, out, code, msg);
	if (mi_mcp_compile_is_tool(name))
		return mi_mcp_compile_call(c, name, args, out, code, msg);
	if (mi_mcp_art_is_tool(name))
		return mi_mcp_art_call(c, name, args, out, code, msg);
	t = mi_mcp_tool_find(name, NULL);
	if (!t) {
		mi_buf_addf(msg, "Unknown tool: %s. tools/list names the tools: "
			    "read_file, expand_at, goto_definition, find_references, "
			    "code_research, search_code, search_docs, index_status, "
			    "index_codebase", name);
		*code = MI_RPC_INVALID_PARAMS;
		return -1;
	}
	ti = (size_t)(t - mi_tools);
	if (task && !json_is_null(task) && strcmp(t->task_support, "forbidden") == 0) {
		mi_buf_addf(msg, "%s cannot run as a task (execution.taskSupport is "
			    "\"forbidden\"); call it without \"task\"", name);
		*code = MI_RPC_NO_METHOD;
		return -1;
	}
	if (task && !json_is_null(task) && !json_is_object(task)) {
		mi_buf_adds(msg, "tools/call: params.task must be an object such as "
			    "{\"ttl\": 60000}");
		*code = MI_RPC_INVALID_PARAMS;
		return -1;
	}
	if (validate(ti, args, &err)) {
		mi_mcp_tool_error(out, "%s", err.buf);
		snprintf(c->outcome, sizeof c->outcome, "tool-error: %.70s", err.buf);
		goto out;
	}
	if (!t->fn) {
		const char *path = arg_str(args, "path", s->repo_path);
		bool force = arg_bool(args, "force", false);
		struct stat sb;
		if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
			mi_mcp_tool_error(out, "Path does not exist or is not a directory: "
					  "%s. Pass the repository's directory (absolute, "
					  "or relative to the server's working directory).",
					  path);
			snprintf(c->outcome, sizeof c->outcome, "tool-error: bad path");
		} else if (task && json_is_object(task)) {
			json_t *ttl = json_object_get(task, "ttl");
			if (mi_mcp_task_start(c, path, force, json_is_integer(ttl) ?
					      json_integer_value(ttl) : 0, out)) {
				mi_buf_adds(msg, "could not start the task; retry");
				*code = MI_RPC_INTERNAL;
				rc = -1;
			}
			snprintf(c->outcome, sizeof c->outcome, "task created");
		} else {
			mi_mcp_build_run(s, c, &c->cancelled, path, force, out);
		}
		goto out;
	}
	mi_mcp_progress(c, 0, 1, t->name);
	if (t->needs_index && mi_mcp_query_get(s, &q, &err)) {
		mi_mcp_tool_error(out, "%s", err.buf);
		snprintf(c->outcome, sizeof c->outcome, "tool-error: no index");
		mi_mcp_notify_log(c->sess, &c->sink, MI_LOG_WARNING, "%s", err.buf);
		goto out;
	}
	rc = t->fn(c, q, args, &o);
	if (q)
		mi_mcp_query_put(s);
	if (rc && !o.is_error && !o.text.len)
		mi_out_error(&o, rc, "%s failed: %s", t->name, mi_strerror(rc));
	if (o.is_error && !o.text.len)
		mi_buf_addf(&o.text, "%s failed: %s", t->name, mi_strerror(rc));
	if (!o.is_error &&
	    cap_text(&o.text, (size_t)arg_int(args, "max_tokens", 20000), t->narrow))
		snprintf(c->outcome, sizeof c->outcome, "ok (cut to budget)");
	tool_result(out, &o, args, strcmp(t->name, "read_file") == 0 &&
		    arg_bool(args, "with_meta", false));
	if (o.is_error)
		snprintf(c->outcome, sizeof c->outcome, "tool-error: %.70s",
			 mi_buf_str(&o.text));
	mi_mcp_progress(c, 1, 1, "done");
	rc = 0;
out:
	mi_out_release(&o);
	mi_buf_release(&err);
	return rc;
}
