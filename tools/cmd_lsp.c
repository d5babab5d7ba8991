/*
 * cmd_lsp.c - `mcpidx lsp`: the language server on stdin/stdout.
 */
#include "tools.h"
#include "../mcp/mcp.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char lsp_usage[] =
	"usage: mcpidx lsp [INDEX] [--log FILE]\n\n"
	"Language server over stdin/stdout (LSP, Content-Length framing) for editors:\n"
	"folding ranges, document and workspace symbols, definitions and references,\n"
	"from the same spans the folded views use.  INDEX is an index dir, a packed\n"
	"file, or a repo holding .mcpidx/; by default the nearest .mcpidx at or above\n"
	"the editor's workspace folder.  Open buffers are parsed as they are edited.\n\n"
	"  --log FILE   log to FILE (default stderr)\n"
	"  --stdio      accepted and ignored (stdio is the only transport)\n";

int mi_cmd_lsp(int argc, char **argv)
{
	static const struct option opts[] = {
		{"log", required_argument, NULL, 'L'}, {"stdio", no_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'}, {0},
	};
	mi_lsp_opts o = {.in_fd = 0, .out_fd = 1};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'L': o.log_file = optarg; break;
		case 'S': break;
		case 'h': fputs(lsp_usage, stdout); return 0;
		default: fputs(lsp_usage, stderr); return 2;
		}
	}
	if (argc - optind > 1) {
		fputs(lsp_usage, stderr);
		return 2;
	}
	o.index = optind < argc ? argv[optind] : NULL;
	return mi_lsp_serve(&o);
}
