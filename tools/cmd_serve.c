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
	"  --log FILE         log one line per call to FILE (default stderr)\n";

int mi_cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{"http", required_argument, NULL, 'H'}, {"log", required_argument, NULL, 'L'},
		{"allow-remote", no_argument, NULL, 'R'}, {"help", no_argument, NULL, 'h'}, {0},
	};
	mi_mcp_opts o = {0};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'H': o.http = optarg; break;
		case 'L': o.log_file = optarg; break;
		case 'R': o.allow_remote = true; break;
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
	int rc = mi_mcp_serve(&o);
	free(index);
	free(self);
	return rc ? 1 : 0;
}
