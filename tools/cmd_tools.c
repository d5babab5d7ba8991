/*
 * cmd_tools.c - `mcpidx tools`: the tool catalog from the command line:
 * find, describe, namespaces (what find_tools, describe_tools and
 * list_namespaces answer over MCP).
 */
#include "tools.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char tools_usage[] =
	"usage: mcpidx tools [-i INDEX] COMMAND [ARGS] [--json]\n\n"
	"The tools of upstream MCP servers indexed by `mcpidx build --servers FILE`.\n\n"
	"  find QUERY [--limit N]          the tools a task needs (BM25F), L1 summaries\n"
	"  describe NAME... [--level L0|L1|L2]  tools in detail (L2: full schemas)\n"
	"  namespaces                      the servers and their tool counts\n\n"
	"  -i, --index PATH   index dir, packed file or repo (default: current directory)\n"
	"      --json         print the JSON object instead of the text\n";

typedef int (*tools_fn)(mi_query *q, int argc, char **argv, size_t limit, int level,
			mi_out *out);

static int do_find(mi_query *q, int argc, char **argv, size_t limit, int level, mi_out *out)
{
	mi_buf qs = {0};
	for (int i = 0; i < argc; i++)
		mi_buf_addf(&qs, "%s%s", i ? " " : "", argv[i]);
	mi_tools_opts o = {.query = mi_buf_str(&qs), .limit = limit};
	int rc = mi_query_find_tools(q, &o, out);
	mi_buf_release(&qs);
	return rc;
}

static int do_describe(mi_query *q, int argc, char **argv, size_t limit, int level, mi_out *out)
{
	return mi_query_describe_tools(q, (const char *const *)argv, (size_t)argc, level, NULL, out);
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
};

int mi_cmd_tools(int argc, char **argv)
{
	static const struct option opts[] = {
		{"index", required_argument, NULL, 'i'}, {"json", no_argument, NULL, 'J'},
		{"limit", required_argument, NULL, 'n'}, {"level", required_argument, NULL, 'l'},
		{"help", no_argument, NULL, 'h'}, {0},
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
		case 'n': limit = strtoul(optarg, NULL, 10); break;
		case 'l':
			if ((level = mi_tool_level(optarg)) < 0) {
				fprintf(stderr, "mcpidx tools: --level is L0, L1 or L2\n");
				return 2;
			}
			break;
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
	tools_cmds[k].fn(q, argc - optind, argv + optind, limit, level, &out);
	fputs(json ? mi_buf_str(&out.json) : mi_buf_str(&out.text), out.is_error ? stderr : stdout);
	if (json || (out.text.len && out.text.buf[out.text.len - 1] != '\n'))
		fputc('\n', out.is_error ? stderr : stdout);
	status = out.is_error ? 1 : 0;
done:
	mi_out_release(&out);
	mi_buf_release(&err);
	mi_query_close(q);
	free(path);
	return status;
}
