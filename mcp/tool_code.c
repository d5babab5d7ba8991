/*
 * tool_code.c - the code tools: folded views (read_file, expand_at),
 * navigation (goto_definition, find_references, code_research) and search
 * (search_code, search_docs).  Each row is a thin call into query/; the
 * answer's text and JSON come back as the query made them and tools.c holds
 * them to max_tokens.  Descriptions are written for a model choosing a
 * tool: what it gives, when to use it, in few tokens.
 */
#include "area.h"

#include <stdio.h>
#include <string.h>

/* Shared schema pieces. */
#define MAXTOK "\"max_tokens\":{\"type\":\"integer\",\"minimum\":100," \
	"\"default\":20000,\"description\":\"Answer size cap.\"}"
#define OFFSET "\"offset\":{\"type\":\"integer\",\"minimum\":0,\"default\":0," \
	"\"description\":\"next_offset of a cut answer.\"}"
#define STR "{\"type\":\"string\"}"
#define INT "{\"type\":\"integer\"}"
#define NUM "{\"type\":\"number\"}"
#define PAGE_OUT ",\"total\":" INT ",\"truncated\":{\"type\":\"boolean\"}," \
	"\"next_offset\":" INT
#define CUT_OUT ",\"truncated\":{\"type\":\"boolean\"}"
#define OBJ(props) "{\"type\":\"object\",\"properties\":{" props "}}"
/* Arrays of result rows: their fields are described by the text, not
 * listed here (every client pays for tools/list on each session). */
#define ROWS "{\"type\":\"array\",\"items\":{\"type\":\"object\"}}"

/* ---- handlers ------------------------------------------------------------------- */

/* Accepts repo-relative paths, and absolute ones inside the repository. */
static int repo_path(mi_mcp_ctx *c, const char *in, mi_buf *norm, mi_mcp_result *r)
{
	const char *repo = c->env->repo_real ? c->env->repo_real : c->env->repo_path;
	const char *below = in[0] == '/' ? mi_path_below(repo, in) : NULL;
	if (below && *below)
		in = below;
	if (mi_path_normalize(in, norm) != 0)
		return mi_mcp_result_error(r, "Path must be relative to the repository "
					   "root and stay inside it (no \"..\"): %s. "
					   "Example: \"src/main.c\".", in);
	return 0;
}

static void view_opts(json_t *args, mi_view_opts *vo)
{
	const char *ln = mi_mcp_arg_str(args, "line_numbers", NULL);
	const char *mode = mi_mcp_arg_str(args, "mode", "outline");
	memset(vo, 0, sizeof *vo);
	vo->mode = strcmp(mode, "mcp") == 0 ? "outline" : mode;
	vo->all = strcmp(mi_mcp_arg_str(args, "filter", "public"), "all") == 0;
	vo->line_numbers = !ln ? 0 : strcmp(ln, "zpad") == 0 ? 2 : 1;
	vo->block_guides = mi_mcp_arg_bool(args, "show_block_guides", false);
	vo->coverage = mi_mcp_arg_bool(args, "show_coverage", false);
	vo->max_tokens = (size_t)mi_mcp_arg_int(args, "max_tokens", 20000);
}

static int t_read_file(mi_mcp_ctx *c, mi_query *q, json_t *args, mi_mcp_result *r)
{
	mi_buf p = {0};
	mi_view_opts vo;
	int rc;
	mi_art_notes_t notes = {0};
	view_opts(args, &vo);
	vo.xrefs = mi_mcp_arg_bool(args, "xrefs", false);
	vo.blame = mi_mcp_arg_bool(args, "with_blame", false);
	rc = repo_path(c, mi_mcp_arg_str(args, "path", ""), &p, r);
	/* V* summary lines: what the host's model wrote about each symbol. */
	if (!rc && mi_mcp_arg_bool(args, "summaries", false) &&
	    !mi_art_notes(mi_mcp_art_handle(c->env), q, p.buf, &notes)) {
		vo.line_notes = notes.v;
		vo.nline_notes = notes.n;
	}
	if (!rc && mi_mcp_arg_bool(args, "diff", false))
		rc = mi_mcp_read_diff(c, q, p.buf, args, r);
	else if (!rc)
		rc = mi_query_read_file(q, p.buf, &vo, &r->out);
	mi_art_notes_release(&notes);
	if (!rc && !r->out.is_error && mi_mcp_arg_bool(args, "with_meta", false))
		mi_mcp_with_meta(r, args);
	mi_buf_release(&p);
	return rc;
}

static int t_expand_at(mi_mcp_ctx *c, mi_query *q, json_t *args, mi_mcp_result *r)
{
	mi_buf p = {0};
	mi_view_opts vo;
	int rc;
	const char *what = mi_mcp_arg_str(args, "what", "body");
	mi_art_notes_t notes = {0};
	view_opts(args, &vo);
	vo.mode = "full";
	rc = repo_path(c, mi_mcp_arg_str(args, "path", ""), &p, r);
	/* A symbol's docs include what the host's model wrote about it. */
	if (!rc && (!strcmp(what, "docs") || !strcmp(what, "all")) &&
	    !mi_art_notes(mi_mcp_art_handle(c->env), q, p.buf, &notes)) {
		vo.line_notes = notes.v;
		vo.nline_notes = notes.n;
	}
	if (!rc)
		rc = mi_query_expand(q, p.buf, mi_mcp_arg_str(args, "selector", ""),
				     what, &vo, &r->out);
	mi_art_notes_release(&notes);
	mi_buf_release(&p);
	return rc;
}

static int t_goto_definition(mi_mcp_ctx *c, mi_query *q, json_t *args,
			     mi_mcp_result *r)
{
	const char *path = mi_mcp_arg_str(args, "path", NULL);
	mi_buf p = {0};
	int rc = 0;
	if (path && *path)
		rc = repo_path(c, path, &p, r);
	if (!rc)
		rc = mi_query_definition(q, mi_mcp_arg_str(args, "symbol", ""),
					 p.len ? p.buf : NULL, &r->out);
	mi_buf_release(&p);
	return rc;
}

static int t_find_references(mi_mcp_ctx *c, mi_query *q, json_t *args,
			     mi_mcp_result *r)
{
	return mi_query_references_page(q, mi_mcp_arg_str(args, "symbol", ""),
					mi_mcp_arg_str(args, "kind", "calls"),
					(size_t)mi_mcp_arg_int(args, "offset", 0),
					(size_t)mi_mcp_arg_int(args, "limit", 50), &r->out);
}

/* Progress per hop: "hop 2 of 3: 14 nodes". */
static void on_hop(void *arg, int hop, int depth, size_t nodes)
{
	mi_mcp_ctx *c = arg;
	char msg[64];
	snprintf(msg, sizeof msg, "hop %d of %d: %zu nodes", hop, depth, nodes);
	c->progress(c, hop, depth, msg);
}

static int t_code_research(mi_mcp_ctx *c, mi_query *q, json_t *args,
			   mi_mcp_result *r)
{
	return mi_query_research_hops(q, mi_mcp_arg_str(args, "query", ""),
				      (int)mi_mcp_arg_int(args, "depth", 2),
				      mi_mcp_arg_str(args, "focus", NULL), on_hop, c,
				      &r->out);
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

/* Stored summaries that match the query, as search evidence: NULL and 0
 * when there are none. */
static mi_search_evidence *evidence(mi_mcp_ctx *c, mi_query *q, const char *query,
				    mi_art_hit **hits, size_t *n)
{
	mi_search_evidence *ev;
	*hits = NULL;
	*n = 0;
	if (mi_art_evidence(mi_mcp_art_handle(c->env), q, query, 100, hits, n) || !*n)
		return NULL;
	ev = mi_xcalloc(*n, sizeof *ev);
	for (size_t i = 0; i < *n; i++) {
		ev[i].path = (*hits)[i].path;
		ev[i].symbol = (*hits)[i].symbol;
		ev[i].line = (*hits)[i].line;
		ev[i].score = (*hits)[i].score;
	}
	return ev;
}

static int search(mi_mcp_ctx *c, mi_query *q, json_t *args, mi_mcp_result *r,
		  bool docs)
{
	mi_search_opts so;
	mi_buf ext = {0};
	mi_art_hit *hits = NULL;
	size_t nhits = 0;
	mi_search_evidence *ev = NULL;
	int rc;
	memset(&so, 0, sizeof so);
	so.query = mi_mcp_arg_str(args, "query", "");
	so.limit = (size_t)mi_mcp_arg_int(args, "limit", docs ? 10 : 20);
	so.offset = (size_t)mi_mcp_arg_int(args, "offset", 0);
	so.path_filter = mi_mcp_arg_str(args, "path_filter", NULL);
	if (so.path_filter && !*so.path_filter)
		so.path_filter = NULL;
	so.extensions = docs ? NULL : extensions(args, &ext);
	so.format = mi_mcp_arg_str(args, "format", "toon");
	/* search_code covers private code unless asked not to; search_docs
	 * keeps to public doc comments unless asked. */
	so.all = strcmp(mi_mcp_arg_str(args, "filter", docs ? "public" : "all"),
			"all") == 0;
	/* Light by default: summaries that only share a word with the query
	 * must not outrank the code (docs/artifacts.md, "What summaries do to
	 * search"). */
	so.semantic_weight = (float)mi_mcp_arg_num(args, "semantic_weight", 0.2);
	if (!docs && (ev = evidence(c, q, so.query, &hits, &nhits))) {
		so.evidence = ev;
		so.nevidence = nhits;
	}
	if (docs) {
		rc = mi_query_docs(q, &so, &r->out);
	} else if (mi_mcp_arg_bool(args, "expand_query", false) ||
		   mi_mcp_arg_bool(args, "synthesize", false)) {
		/* The host's own model widens the query or sums the results up. */
		mi_art_search as = {.so = so,
				    .expand = mi_mcp_arg_bool(args, "expand_query", false),
				    .synthesize = mi_mcp_arg_bool(args, "synthesize", false),
				    .result = mi_mcp_arg_str(args, "result", NULL),
				    .chain = mi_mcp_arg_str(args, "chain", NULL)};
		rc = mi_mcp_art_search(mi_mcp_art_handle(c->env), q, &as, &r->out);
	} else {
		rc = mi_query_search(q, &so, &r->out);
	}
	free(ev);
	mi_art_evidence_free(hits, nhits);
	mi_buf_release(&ext);
	return rc;
}

static int t_search_code(mi_mcp_ctx *c, mi_query *q, json_t *args, mi_mcp_result *r)
{
	return search(c, q, args, r, false);
}

static int t_search_docs(mi_mcp_ctx *c, mi_query *q, json_t *args, mi_mcp_result *r)
{
	return search(c, q, args, r, true);
}

/* ---- schemas as listed: the artifact arguments only with --artifacts ---------- */

#define READ_PROPS(ART) \
	"{\"type\":\"object\",\"properties\":{" \
	"\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":" \
	"\"Repo-relative, e.g. src/main.c.\"}," \
	"\"mode\":{\"type\":\"string\",\"enum\":[\"outline\",\"compact\",\"full\"," \
	"\"mcp\"],\"default\":\"outline\",\"description\":\"compact: classes on one " \
	"line; full: the source.\"}," \
	"\"filter\":{\"type\":\"string\",\"enum\":[\"public\",\"all\"]," \
	"\"default\":\"public\",\"description\":\"all: private symbols too.\"}," \
	"\"line_numbers\":{\"type\":\"string\",\"enum\":[\"plain\",\"zpad\"]," \
	"\"description\":\"Prefix source line numbers.\"}," \
	"\"with_meta\":{\"type\":\"boolean\",\"description\":" \
	"\"Add a meta object.\"}," \
	"\"show_block_guides\":{\"type\":\"boolean\"," \
	"\"description\":\"V* end lines.\"}," \
	"\"show_coverage\":{\"type\":\"boolean\"," \
	"\"description\":\"V* lcov coverage.\"}," \
	"\"xrefs\":{\"type\":\"boolean\",\"description\":" \
	"\"V* callers and implementers.\"}," \
	"\"with_blame\":{\"type\":\"boolean\",\"description\":" \
	"\"V* last commit of each symbol.\"}," \
	"\"diff\":{\"type\":\"boolean\",\"description\":" \
	"\"Only symbols changed since the build (+ - ~).\"}," \
	ART MAXTOK "},\"required\":[\"path\"],\"additionalProperties\":false}"
#define READ_ART "\"summaries\":{\"type\":\"boolean\",\"default\":false," \
	"\"description\":\"V* summary lines from stored artifacts.\"},"

#define SEARCH_PROPS(ART) \
	"{\"type\":\"object\",\"properties\":{" \
	"\"query\":{\"type\":\"string\",\"minLength\":1}," \
	"\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100," \
	"\"default\":20}," OFFSET "," \
	"\"path_filter\":{\"type\":\"string\",\"description\":\"Glob, e.g. src/**.\"}," \
	"\"extensions\":{\"anyOf\":[" STR ",{\"type\":\"array\",\"items\":" STR "}]," \
	"\"description\":\"c,h or [\\\"py\\\"].\"}," \
	"\"format\":{\"type\":\"string\",\"enum\":[\"toon\",\"json\",\"human\"]," \
	"\"default\":\"toon\"}," \
	"\"filter\":{\"type\":\"string\",\"enum\":[\"public\",\"all\"]," \
	"\"default\":\"all\"}," \
	"\"semantic_weight\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1," \
	"\"default\":0.2,\"description\":\"Weight of stored summaries vs BM25F; " \
	"none stored: no effect.\"}," ART MAXTOK "}," \
	"\"required\":[\"query\"],\"additionalProperties\":false}"
#define SEARCH_ART "\"expand_query\":{\"type\":\"boolean\",\"description\":" \
	"\"Also a prompt for YOUR model for related terms; call again with " \
	"callbackArgs plus result.\"}," \
	"\"synthesize\":{\"type\":\"boolean\",\"description\":\"Also a prompt " \
	"for YOUR model to sum the hits up.\"}," \
	"\"result\":{\"type\":\"string\",\"description\":\"Your model's " \
	"expansion.\"}," \
	"\"chain\":{\"type\":\"string\",\"description\":\"From callbackArgs.\"}," \
	"\"step\":{\"type\":\"integer\",\"description\":\"From callbackArgs.\"},"

static void read_schema(mi_mcp_env *e, mi_buf *out)
{
	mi_buf_adds(out, mi_mcp_art_enabled(e) ? READ_PROPS(READ_ART) : READ_PROPS(""));
}

static void search_schema(mi_mcp_env *e, mi_buf *out)
{
	mi_buf_adds(out, mi_mcp_art_enabled(e) ? SEARCH_PROPS(SEARCH_ART) :
		    SEARCH_PROPS(""));
}

/* ---- the table ------------------------------------------------------------------- */

#define RO (MI_TOOL_READ_ONLY | MI_TOOL_IDEMPOTENT | MI_TOOL_INDEX | MI_TOOL_BUDGET)

static const mi_mcp_tool code_tools[] = {
{
	"read_file", "Read a file, folded",
	"A file folded: one line per symbol with its signature, bodies as "
	"{ ... }, V* lines for facts; a tenth of the source's tokens. Start "
	"here, then expand_at what you need.",
	READ_PROPS(READ_ART),
	OBJ("\"path\":" STR ",\"mode\":" STR ",\"text\":" STR ",\"line_count\":" INT
	    ",\"symbols\":" INT ",\"tokens_saved_percent\":" NUM
	    ",\"meta\":{\"type\":\"object\"}" CUT_OUT),
	RO, t_read_file,
	"use mode outline or compact, or expand_at for one symbol, or raise "
	"max_tokens", NULL, NULL, NULL, read_schema
},
{
	"expand_at", "Expand one symbol",
	"One symbol's full text (body, signature, docs or all), after read_file "
	"or search_code found it.",
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\",\"minLength\":1,\"description\":"
	"\"Repo-relative file path.\"},"
	"\"selector\":{\"type\":\"string\",\"minLength\":1,\"description\":"
	"\"NAME, Parent.NAME or line:N.\"},"
	"\"what\":{\"type\":\"string\",\"enum\":[\"body\",\"signature\",\"docs\","
	"\"all\"],\"default\":\"body\"}," MAXTOK "},"
	"\"required\":[\"path\",\"selector\"],\"additionalProperties\":false}",
	OBJ("\"path\":" STR ",\"name\":" STR ",\"kind\":" STR ",\"start_line\":" INT
	    ",\"end_line\":" INT ",\"text\":" STR CUT_OUT),
	RO, t_expand_at,
	"expand a nested member (Parent.NAME) or ask for what=signature", NULL, NULL, NULL, NULL
},
{
	"goto_definition", "Go to definition",
	"Where a name is defined: each definition's location, signature and "
	"folded text (declarations and prototypes are not definitions).",
	"{\"type\":\"object\",\"properties\":{"
	"\"symbol\":{\"type\":\"string\",\"minLength\":1,\"description\":"
	"\"login or User.login.\"},"
	"\"path\":{\"type\":\"string\",\"description\":\"Only this file.\"},"
	MAXTOK "},\"required\":[\"symbol\"],\"additionalProperties\":false}",
	OBJ("\"definitions\":" ROWS ",\"total\":" INT CUT_OUT),
	RO, t_goto_definition, "pass path to pick one definition", "definitions", NULL, NULL, NULL
},
{
	"find_references", "Find references",
	"Where a name is used: call sites (kind=calls) or all references "
	"(types, imports, implementations, callbacks), with caller and line.",
	"{\"type\":\"object\",\"properties\":{"
	"\"symbol\":{\"type\":\"string\",\"minLength\":1},"
	"\"kind\":{\"type\":\"string\",\"enum\":[\"calls\",\"all\"],"
	"\"default\":\"calls\"},"
	"\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,"
	"\"default\":50}," OFFSET "," MAXTOK "},"
	"\"required\":[\"symbol\"],\"additionalProperties\":false}",
	OBJ("\"references\":" ROWS PAGE_OUT),
	RO | MI_TOOL_PAGED, t_find_references, "lower limit or use kind=calls",
	"references", NULL, NULL, NULL
},
{
	"code_research", "Research across the code graph",
	"Multi-hop answers one lookup cannot give: callers of callers, "
	"implementations of an interface or trait, module dependencies.",
	"{\"type\":\"object\",\"properties\":{"
	"\"query\":{\"type\":\"string\",\"minLength\":1,\"description\":"
	"\"e.g. what calls authenticate; implementations of Storage.\"},"
	"\"depth\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":5,"
	"\"default\":2,\"description\":\"Hops.\"},"
	"\"focus\":{\"type\":\"string\",\"enum\":[\"architecture\","
	"\"dependencies\",\"patterns\",\"flow\"]}," MAXTOK "},"
	"\"required\":[\"query\"],\"additionalProperties\":false}",
	OBJ("\"nodes\":" ROWS ",\"edges\":" ROWS ",\"text\":" STR CUT_OUT),
	RO | MI_TOOL_SLOW, t_code_research, "lower depth or name one symbol", NULL, NULL, NULL, NULL
},
{
	"search_code", "Search code",
	"Ranked search over code, private symbols too: identifiers split, "
	"words stemmed ('user login' finds validateLogin). Hits: path, lines, "
	"signature, folded snippet.",
	SEARCH_PROPS(SEARCH_ART),
	OBJ("\"results\":" ROWS PAGE_OUT),
	RO | MI_TOOL_PAGED, t_search_code,
	"lower limit, add path_filter or extensions", "results", NULL, NULL,
	search_schema
},
{
	"search_docs", "Search documentation",
	"Ranked search over Markdown sections and doc comments: for how and "
	"why questions before reading code.",
	"{\"type\":\"object\",\"properties\":{"
	"\"query\":{\"type\":\"string\",\"minLength\":1},"
	"\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,"
	"\"default\":10}," OFFSET ","
	"\"path_filter\":{\"type\":\"string\",\"description\":\"Glob, e.g. "
	"docs/*.md.\"}," MAXTOK "},"
	"\"required\":[\"query\"],\"additionalProperties\":false}",
	OBJ("\"results\":" ROWS PAGE_OUT),
	RO | MI_TOOL_PAGED, t_search_docs, "lower limit or add path_filter",
	"results", NULL, NULL, NULL
},
};

const mi_mcp_tool_group mi_mcp_tools_code = {
	"code", code_tools, sizeof code_tools / sizeof *code_tools, NULL, NULL,
};
