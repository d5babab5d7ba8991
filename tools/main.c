/*
 * main.c - the mcpidx command: dispatches subcommands from a table.
 */
#include "tools.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmd_version(int argc, char **argv);
static int cmd_help(int argc, char **argv);

static const mi_cmd commands[] = {
	{"build", mi_cmd_build, "REPO [-o DIR] [--force] [--jobs N] [--no-ignore] [--max-size BYTES] [--servers FILE] [--json] [--list-skipped]",
	 "walk, parse and index a repository (incremental; writes REPO/.mcpidx)"},
	{"query", mi_cmd_query, "[INDEX] [CMD ARGS...] [--json]",
	 "answer one query (def, refs, outline, expand, search, docs, research, stats)"},
	{"outline", mi_cmd_outline, "FILE... [--mode outline|compact|full] [--filter public|all] [--json]",
	 "folded view of files, parsed on the fly (no index needed)"},
	{"context", mi_cmd_context, "TARGET... [--budget N] [--depth 1|2] [--index INDEX] [--format mcp|json]",
	 "context pack of TARGET (symbol, Parent.symbol or file) within N tokens"},
	{"serve", mi_cmd_serve, "[INDEX] [--http 127.0.0.1:PORT] [--log FILE]",
	 "MCP server over stdio (or streamable HTTP on loopback)"},
	{"lsp", mi_cmd_lsp, "[INDEX] [--log FILE]",
	 "language server for editors: folding, symbols, definitions, references"},
	{"compile", mi_cmd_compile, "TARGET [--flag F]... [--expand] [--group G] [--json]",
	 "run a compile target named in .mcpidx.toml; print its log groups"},
	{"hook", mi_cmd_hook, "install|uninstall|status [--repo DIR]",
	 "git pre-commit hook that keeps the index up to date"},
	{"pack", mi_cmd_pack, "INDEX -o FILE [--with-artifacts] [--json]",
	 "write the index as one compacted, checksummed file to ship"},
	{"verify", mi_cmd_verify, "FILE [--json] [--quiet]",
	 "check a packed file end to end (exit 1 when damaged)"},
	{"status", mi_cmd_status, "[INDEX] [REPO] [--json] [--quiet]",
	 "list files changed since the index was built (exit 1 when stale)"},
	{"tools", mi_cmd_tools, "[-i INDEX] find|describe|namespaces ARGS [--json]",
	 "the tools of upstream MCP servers: find, describe, namespaces"},
	{"artifacts", mi_cmd_artifacts, "[INDEX] list|show|rm|prompt|store [ARGS] [--side DIR] [--json]",
	 "artifacts a model wrote about the code (summaries, annotations), stale ones marked"},
	{"version", cmd_version, "", "print the version"},
	{"help", cmd_help, "[COMMAND]", "show help"},
};
#define NCMDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: mcpidx COMMAND [ARGS]\n\n"
		   "A compact, navigable, searchable view of a code repository, served over MCP.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < NCMDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'mcpidx COMMAND --help' shows a command's options; 'man mcpidx' has the rest.\n");
}

static int cmd_version(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: mcpidx version\n\nPrints the version of mcpidx and of its index format.\n");
		return 0;
	}
	printf("mcpidx %s (index format %d)\n", MI_VERSION, MI_FORMAT_VERSION);
	return 0;
}

static int cmd_help(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: mcpidx help [COMMAND]\n\nLists the commands, or shows one command's help.\n");
		return 0;
	}
	if (argc > 1) {
		for (size_t i = 0; i < NCMDS; i++)
			if (!strcmp(commands[i].name, argv[1])) {
				char *av[] = {argv[1], "--help", NULL};
				return commands[i].run(2, av);
			}
		fprintf(stderr, "mcpidx: unknown command '%s'\n", argv[1]);
		return 2;
	}
	usage(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 0 && argv[0] && *argv[0])
		mi_prog = argv[0];
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "-V"))
		return cmd_version(0, NULL);
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		return cmd_help(1, argv + 1);
	if (!strcmp(name, "--languages")) {
		mi_buf b = {0};
		mi_lang_list(&b);
		fwrite(b.buf ? b.buf : "", 1, b.len, stdout);
		mi_buf_release(&b);
		return 0;
	}
	for (size_t i = 0; i < NCMDS; i++)
		if (!strcmp(commands[i].name, name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "mcpidx: unknown command '%s'\n", name);
	usage(stderr);
	return 2;
}
