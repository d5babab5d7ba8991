/*
 * cmd_serve.c - `mcpidx serve`: the MCP server.
 */
#include "tools.h"
#include "../mcp/mcp.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char serve_usage[] =
	"usage: mcpidx serve [INDEX] [options]\n\n"
	"Serves the index over the Model Context Protocol: JSON-RPC on stdin/stdout,\n"
	"or streamable HTTP with --http.  Read-only; a rebuild in another process is\n"
	"picked up by the next request.  INDEX is an index dir, a packed file, or a\n"
	"repo holding .mcpidx/ (default: the current directory).\n\n"
	"  --http ADDR:PORT   serve HTTP (POST /mcp) on a loopback address\n"
	"  --allow-remote     allow a non-loopback --http address\n"
	"  --log FILE         log one line per call to FILE (default stderr)\n"
	"artifacts (what the host's model writes; docs/artifacts.md):\n"
	"  --side DIR         keep them in DIR (default INDEX/side, or FILE.side)\n"
	"  --max-steps N      steps per chain of round trips (default 8)\n"
	"  --callback-timeout MS  how long a prompt waits for its result (600000)\n"
	"  --tool-timeout MS  budget of one artifact call's own work (10000)\n"
	"  --chain-ttl MS     age limit of a chain (3600000)\n"
	"  --prompt-tokens N  token budget of a prompt (6000)\n";

int mi_cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{"http", required_argument, NULL, 'H'}, {"log", required_argument, NULL, 'L'},
		{"allow-remote", no_argument, NULL, 'R'}, {"help", no_argument, NULL, 'h'},
		{"side", required_argument, NULL, 'S'}, {"max-steps", required_argument, NULL, 'M'},
		{"callback-timeout", required_argument, NULL, 'C'},
		{"tool-timeout", required_argument, NULL, 'T'},
		{"chain-ttl", required_argument, NULL, 'A'},
		{"prompt-tokens", required_argument, NULL, 'P'}, {0},
	};
	mi_mcp_opts o = {0};
	mi_art_opts art = {0};
	char *end;
	long long v;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'H': o.http = optarg; break;
		case 'L': o.log_file = optarg; break;
		case 'R': o.allow_remote = true; break;
		case 'S': art.side = optarg; break;
		case 'M': case 'C': case 'T': case 'A': case 'P':
			v = strtoll(optarg, &end, 10);
			if (*end || v < 1 || v > 1000000000LL) {
				fprintf(stderr, "mcpidx serve: %s takes a positive number, not '%s'\n",
					argv[optind - 1], optarg);
				return 2;
			}
			if (c == 'M')
				art.max_steps = (int)v;
			else if (c == 'C')
				art.callback_timeout_ms = v;
			else if (c == 'T')
				art.tool_timeout_ms = v;
			else if (c == 'A')
				art.chain_ttl_ms = v;
			else
				art.prompt_tokens = (size_t)v;
			break;
		case 'h': fputs(serve_usage, stdout); return 0;
		default: fputs(serve_usage, stderr); return 2;
		}
	}
	if (argc - optind > 1) {
		fputs(serve_usage, stderr);
		return 2;
	}
	char *index = mi_resolve_index(optind < argc ? argv[optind] : NULL);
	char *self = mi_exe_path(mi_prog);
	o.index = index;
	o.self_exe = self;
	o.art = &art;
	int rc = mi_mcp_serve(&o);
	free(index);
	free(self);
	return rc ? 1 : 0;
}
