/*
 * cmd_tools.c - `mcpidx tools`: the tool catalog from the command line:
 * find, describe, namespaces (what find_tools, describe_tools and
 * list_namespaces answer over MCP).
 */
#include "tools.h"
#include "../mcp/mcp.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char tools_usage[] =
	"usage: mcpidx tools [-i INDEX] COMMAND [ARGS] [--json]\n\n"
	"The tools of upstream MCP servers indexed by `mcpidx build --servers FILE`.\n\n"
	"  find QUERY [--limit N]          the tools a task needs (BM25F), L1 summaries\n"
	"  describe NAME... [--level L0|L1|L2]  tools in detail (L2: full schemas)\n"
	"  namespaces                      the servers and their tool counts\n"
	"  exec NAME [JSON] [--confirm CODE]  call a tool upstream, print its result\n"
	"  approve NAME... | --all         approve tools as they are now (ends quarantine)\n"
	"  alias NAME PHRASING...          store task phrasings for a tool and index them\n"
	"  confirm ID [--yes]              confirm a call execute asked a person for;\n"
	"                                  prints the one-time code to give back\n\n"
	"  -i, --index PATH   index dir, packed file or repo (default: current directory)\n"
	"      --servers FILE servers file (default: the one the catalog was built from)\n"
	"      --side DIR     side store (approvals, log; default: beside the index)\n"
	"      --json         print the JSON object instead of the text\n";

typedef struct tools_env {
	const char *index;    /* resolved index path */
	const char *servers;  /* --servers or NULL */
	const char *side;     /* --side or NULL */
	const char *confirm;  /* --confirm CODE */
	bool all, yes;        /* --all, --yes */
	mi_meta *meta;        /* policy and execution */
} tools_env;

static tools_env env;

typedef int (*tools_fn)(mi_query *q, int argc, char **argv, size_t limit, int level,
			mi_out *out);

static int do_find(mi_query *q, int argc, char **argv, size_t limit, int level, mi_out *out)
{
	mi_buf qs = {0};
	for (int i = 0; i < argc; i++)
		mi_buf_addf(&qs, "%s%s", i ? " " : "", argv[i]);
	mi_tools_opts o = {.query = mi_buf_str(&qs), .limit = limit,
			   .policy = mi_meta_policy(env.meta),
			   .related = mi_meta_related, .related_ctx = env.meta};
	int rc = mi_query_find_tools(q, &o, out);
	mi_buf_release(&qs);
	return rc;
}

static int do_describe(mi_query *q, int argc, char **argv, size_t limit, int level, mi_out *out)
{
	return mi_query_describe_tools(q, (const char *const *)argv, (size_t)argc, level,
				       mi_meta_policy(env.meta), out);
}

static void exec_progress(void *ctx, double done, double total, const char *msg)
{
	fprintf(stderr, "progress %g/%g%s%s\n", done, total, msg ? " " : "", msg ? msg : "");
}

static int do_exec(mi_query *q, int argc, char **argv, size_t limit, int level, mi_out *out)
{
	json_error_t je;
	json_t *args = argc > 1 ? json_loads(argv[1], 0, &je) : NULL;
	json_t *r;
	mi_meta_req req = {.session = "cli", .progress = exec_progress};
	if (argc > 1 && !json_is_object(args)) {
		json_decref(args);
		return mi_out_error(out, MI_ERR_ARG, "arguments must be one JSON object, e.g. "
				    "'{\"path\": \"README.md\"}'");
	}
	mi_out_reset(out);
	mi_meta_execute(env.meta, q, argv[0], args, env.confirm, &req, &out->json);
	json_decref(args);
	r = json_loads(mi_buf_str(&out->json), 0, NULL);
	out->is_error = json_is_true(json_object_get(r, "isError"));
	{
		size_t i;
		json_t *c;
		json_array_foreach(json_object_get(r, "content"), i, c)
			if (json_is_string(json_object_get(c, "text")))
				mi_buf_addf(&out->text, "%s\n", json_string_value(json_object_get(c, "text")));
			else
				mi_buf_addf(&out->text, "[%s content]\n",
					    json_string_value(json_object_get(c, "type")) ?: "?");
	}
	json_decref(r);
	return 0;
}

static int do_approve(mi_query *q, int argc, char **argv, size_t limit, int level, mi_out *out)
{
	mi_buf err = {0};
	mi_out_reset(out);
	if (!argc && !env.all) {
		mi_buf_release(&err);
		return mi_out_error(out, MI_ERR_ARG, "name the tools to approve, or --all");
	}
	if (mi_meta_pin(env.index, env.side, (const char *const *)argv, (size_t)argc, env.all,
			&out->text, &err)) {
		mi_out_error(out, MI_ERR_ARG, "%s", mi_buf_str(&err));
	} else {
		if (!out->text.len)
			mi_buf_adds(&out->text, "nothing to approve: every tool is approved as it is\n");
		mi_buf_adds(&out->json, "{\"approved\":");
		mi_buf_add_json_str(&out->json, out->text.buf, out->text.len);
		mi_buf_addc(&out->json, '}');
	}
	mi_buf_release(&err);
	return 0;
}

static int do_alias(mi_query *q, int argc, char **argv, size_t limit, int level, mi_out *out)
{
	mi_buf err = {0}, text = {0};
	char *servers = env.servers ? mi_xstrdup(env.servers) : mi_query_servers_file(q);
	mi_out_reset(out);
	for (int i = 1; i < argc; i++)
		mi_buf_addf(&text, "%s%s", i > 1 ? "\n" : "", argv[i]);
	if (mi_meta_store_aliases(env.index, env.side, argv[0], mi_buf_str(&text), &err)) {
		mi_out_error(out, MI_ERR_ARG, "%s", mi_buf_str(&err));
	} else if (!servers) {
		mi_out_error(out, MI_ERR_ARG, "stored; the index records no servers file: run mcpidx "
			     "build --servers FILE --offline to index the aliases");
	} else if (mi_catalog_build(servers, env.index, NULL, true, false, true)) {
		mi_out_error(out, MI_ERR_ARG, "stored, but re-indexing failed: run mcpidx build "
			     "--servers %s --offline", servers);
	} else {
		mi_buf_addf(&out->text, "%s: %d aliases stored and indexed\n", argv[0], argc - 1);
		mi_buf_addf(&out->json, "{\"tool\":\"%s\",\"aliases\":%d}", argv[0], argc - 1);
	}
	free(servers);
	mi_buf_release(&err);
	mi_buf_release(&text);
	return 0;
}

static int do_confirm(mi_query *q, int argc, char **argv, size_t limit, int level, mi_out *out)
{
	mi_buf err = {0}, rep = {0};
	char code[24];
	mi_out_reset(out);
	if (mi_meta_confirm(env.index, env.side, argv[0], true, &rep, code, &err)) {
		mi_out_error(out, MI_ERR_NOTFOUND, "%s", mi_buf_str(&err));
		goto done;
	}
	if (!env.yes) {
		char line[16] = "";
		fprintf(stderr, "%sRun this call? [y/N] ", mi_buf_str(&rep));
		if (!isatty(0) || !fgets(line, sizeof(line), stdin) || (line[0] != 'y' && line[0] != 'Y')) {
			mi_out_error(out, MI_ERR_CANCELLED, "not confirmed");
			goto done;
		}
	}
	mi_buf_reset(&rep);
	if (mi_meta_confirm(env.index, env.side, argv[0], false, &rep, code, &err)) {
		mi_out_error(out, MI_ERR_NOTFOUND, "%s", mi_buf_str(&err));
		goto done;
	}
	mi_buf_addf(&out->text, "%sconfirmation code (one use, 15 minutes): %s\n", mi_buf_str(&rep), code);
	mi_buf_addf(&out->json, "{\"request\":\"%s\",\"code\":\"%s\"}", argv[0], code);
done:
	mi_buf_release(&err);
	mi_buf_release(&rep);
	return 0;
}

static int do_namespaces(mi_query *q, int argc, char **argv, size_t limit, int level,
			 mi_out *out)
{
	return mi_query_namespaces(q, out);
}

static const struct {
	const char *name;
	tools_fn fn;
	int min_args;     /* words after the command */
} tools_cmds[] = {
	{"find", do_find, 1},
	{"describe", do_describe, 1},
	{"namespaces", do_namespaces, 0},
	{"exec", do_exec, 1},
	{"approve", do_approve, 0},
	{"confirm", do_confirm, 1},
	{"alias", do_alias, 2},
};

int mi_cmd_tools(int argc, char **argv)
{
	static const struct option opts[] = {
		{"index", required_argument, NULL, 'i'}, {"json", no_argument, NULL, 'J'},
		{"limit", required_argument, NULL, 'n'}, {"level", required_argument, NULL, 'l'},
		{"help", no_argument, NULL, 'h'}, {"servers", required_argument, NULL, 'S'},
		{"side", required_argument, NULL, 's'}, {"confirm", required_argument, NULL, 'C'},
		{"all", no_argument, NULL, 'A'}, {"yes", no_argument, NULL, 'y'}, {0},
	};
	const char *index = NULL;
	bool json = false;
	size_t limit = 0;
	int level = MI_TOOL_L1, c, status = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': index = optarg; break;
		case 'J': json = true; break;
		case 'n': {
			unsigned long long n;
			if (!mi_arg_uint("tools", "--limit", optarg, 1, 1000, &n))
				return 2;
			limit = (size_t)n;
			break;
		}
		case 'l':
			if ((level = mi_tool_level(optarg)) < 0) {
				fprintf(stderr, "mcpidx tools: --level is L0, L1 or L2\n");
				return 2;
			}
			break;
		case 'S': env.servers = optarg; break;
		case 's': env.side = optarg; break;
		case 'C': env.confirm = optarg; break;
		case 'A': env.all = true; break;
		case 'y': env.yes = true; break;
		case 'h': fputs(tools_usage, stdout); return 0;
		default: fputs(tools_usage, stderr); return 2;
		}
	}
	if (optind >= argc) {
		fputs(tools_usage, stderr);
		return 2;
	}
	const char *cmd = argv[optind++];
	size_t k;
	for (k = 0; k < sizeof(tools_cmds) / sizeof(tools_cmds[0]); k++)
		if (!strcmp(tools_cmds[k].name, cmd))
			break;
	if (k == sizeof(tools_cmds) / sizeof(tools_cmds[0])) {
		fprintf(stderr, "mcpidx tools: unknown command '%s'\n\n%s", cmd, tools_usage);
		return 2;
	}
	if (argc - optind < tools_cmds[k].min_args) {
		fprintf(stderr, "mcpidx tools %s: missing arguments\n\n%s", cmd, tools_usage);
		return 2;
	}
	char *path = mi_resolve_index(index);
	mi_query *q = NULL;
	mi_buf err = {0};
	mi_out out = {0};
	if (mi_query_open(path, &q, &err)) {
		fprintf(stderr, "mcpidx tools: %s\n", mi_buf_str(&err));
		status = 1;
		goto done;
	}
	env.index = path;
	{
		mi_meta_opts mo = {.index = path, .servers = env.servers, .side = env.side};
		mi_meta_open(&mo, &env.meta, &err);
	}
	tools_cmds[k].fn(q, argc - optind, argv + optind, limit, level, &out);
	fputs(json ? mi_buf_str(&out.json) : mi_buf_str(&out.text), out.is_error ? stderr : stdout);
	if (json || (out.text.len && out.text.buf[out.text.len - 1] != '\n'))
		fputc('\n', out.is_error ? stderr : stdout);
	status = out.is_error ? 1 : 0;
done:
	mi_out_release(&out);
	mi_buf_release(&err);
	mi_query_close(q);
	mi_meta_close(env.meta);
	free(path);
	return status;
}
