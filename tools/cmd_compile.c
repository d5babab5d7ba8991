/*
 * cmd_compile.c - `mcpidx compile`: runs a target the repository's
 * .mcpidx.toml names and prints its task log; reads stored logs back.
 */
#include "tools.h"
#include "../mcp/mcp.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char compile_usage[] =
	"usage: mcpidx compile TARGET [--flag F]... [--repo DIR] [--group G] [--expand] [--json]\n"
	"       mcpidx compile --list [--repo DIR]\n"
	"       mcpidx compile --log TASK_ID [--group G] [--expand] [--repo DIR] [--json]\n\n"
	"Runs a compile target named in the repository's .mcpidx.toml (no shell: argv,\n"
	"directory, timeout and environment come from the config; --flag adds one of the\n"
	"target's allowed flags) and prints its log: counts per group (INFO, WARN, ERROR),\n"
	"or with --expand the messages (of --group G only when given).  The log and the\n"
	"diagnostics of each file it names are kept beside the index (REPO/.mcpidx), where\n"
	"outlines and `mcpidx lsp` show them.  Exit status: 0 the command succeeded, 1 it\n"
	"failed, 2 a bad request.\n";

int mi_cmd_compile(int argc, char **argv)
{
	static const struct option opts[] = {
		{"flag", required_argument, NULL, 'f'}, {"repo", required_argument, NULL, 'r'},
		{"group", required_argument, NULL, 'g'}, {"expand", no_argument, NULL, 'e'},
		{"json", no_argument, NULL, 'j'}, {"list", no_argument, NULL, 'l'},
		{"log", required_argument, NULL, 'L'}, {"help", no_argument, NULL, 'h'}, {0},
	};
	const char **flags = mi_xcalloc((size_t)argc + 1, sizeof *flags);
	const char *repo = ".", *logid = NULL;
	size_t nflags = 0;
	int c, group = -1, status = 2;
	bool expand = false, json = false, list = false;
	mi_compile_config *cfg = NULL;
	mi_compile_log log = {0};
	mi_buf err = {0};
	mi_out out = {0};
	char *index = NULL;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': flags[nflags++] = optarg; break;
		case 'r': repo = optarg; break;
		case 'g':
			if ((group = mi_compile_group_find(optarg)) < 0) {
				fprintf(stderr, "mcpidx compile: --group is INFO, WARN or ERROR, not \"%s\"\n",
					optarg);
				goto out;
			}
			break;
		case 'e': expand = true; break;
		case 'j': json = true; break;
		case 'l': list = true; break;
		case 'L': logid = optarg; break;
		case 'h': fputs(compile_usage, stdout); status = 0; goto out;
		default: fputs(compile_usage, stderr); goto out;
		}
	}
	if ((list || logid) ? optind != argc : optind + 1 != argc) {
		fputs(compile_usage, stderr);
		goto out;
	}
	index = mi_resolve_index(repo);
	if (logid) {
		int rc = mi_compile_load(index, logid, &log);
		if (rc) {
			fprintf(stderr, "mcpidx compile: no task log %s beside %s (%s); the last %d "
				"compiles are kept\n", logid, index, mi_strerror(rc), MI_COMPILE_KEEP);
			status = 1;
			goto out;
		}
	} else {
		int rc = mi_compile_config_load(repo, &cfg, &err);
		if (rc) {
			fprintf(stderr, "mcpidx compile: %s\n", mi_buf_str(&err));
			status = rc == MI_ERR_NOTFOUND ? 1 : 2;
			goto out;
		}
		if (list) {
			for (size_t i = 0; i < cfg->n; i++) {
				printf("%s:", cfg->targets[i].name);
				for (size_t k = 0; k < cfg->targets[i].argc; k++)
					printf(" %s", cfg->targets[i].argv[k]);
				putchar('\n');
			}
			status = 0;
			goto out;
		}
		mi_compile_req req = {.config = cfg, .target = argv[optind], .flags = flags,
				      .nflags = nflags, .index_path = index};
		rc = mi_compile_run(&req, &log, &err);
		if (rc) {
			fprintf(stderr, "mcpidx compile: %s\n", mi_buf_str(&err));
			goto out;
		}
		if (err.len)
			fprintf(stderr, "mcpidx compile: %s\n", err.buf);
	}
	mi_compile_log_render(&log, group, expand || group >= 0, &out);
	fputs(json ? mi_buf_str(&out.json) : mi_buf_str(&out.text), stdout);
	if (json)
		putchar('\n');
	status = log.exit_code == 0 && !log.timed_out && !log.cancelled ? 0 : 1;
out:
	mi_out_release(&out);
	mi_compile_log_release(&log);
	mi_compile_config_free(cfg);
	mi_buf_release(&err);
	free(index);
	free(flags);
	return status;
}
