/*
 * cmd_serve.c - `mcpidx serve`: the MCP server.
 */
#include "tools.h"
#include "../mcp/mcp.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char serve_usage[] =
	"usage: mcpidx serve [INDEX] [options]\n\n"
	"Serves the index over the Model Context Protocol: JSON-RPC on stdin/stdout,\n"
	"or streamable HTTP with --http.  Read-only; a rebuild in another process is\n"
	"picked up by the next request.  INDEX is an index dir, a packed file, or a\n"
	"repo holding .mcpidx/ (default: the current directory).\n\n"
	"  --http ADDR:PORT      serve HTTP (POST /mcp) on a loopback address\n"
	"  --allow-remote        allow a non-loopback --http address\n"
	"  --allow-host NAME     accept NAME in Host/Origin besides loopback (repeatable)\n"
	"  --token-file FILE     HTTP requests must send Authorization: Bearer <first\n"
	"                        line of FILE> (or set MCPIDX_TOKEN)\n"
	"  --max-connections N   HTTP connections open at once (default 1000)\n"
	"  --idle-timeout SECS   close HTTP connections idle this long (default 30)\n"
	"  --max-requests N      HTTP requests worked on at once (default 64)\n"
	"  --allow-root DIR      let index_codebase build trees under DIR too (repeatable)\n"
	"  --log FILE            write the log to FILE (default stderr)\n"
	"  --log-level LEVEL     debug (a line per call), info, warning, error or off\n"
	"                        (default: debug with --log, info on stderr)\n"
	"artifacts (what the host's model writes; docs/artifacts.md):\n"
	"  --artifacts           list the artifact tools (implied by the options below)\n"
	"  --side DIR            keep them in DIR (default INDEX/side, or FILE.side)\n"
	"  --max-steps N         steps per chain of round trips (default 8)\n"
	"  --callback-timeout MS how long a prompt waits for its result (600000)\n"
	"  --tool-timeout MS     budget of one artifact call's own work (10000)\n"
	"  --chain-ttl MS        age limit of a chain (3600000)\n"
	"  --prompt-tokens N     token budget of a prompt (6000)\n";

/* Parses a positive count option; 0 with a message on a bad value. */
static unsigned count_arg(const char *opt, const char *v)
{
	char *end;
	unsigned long n = strtoul(v, &end, 10);
	if (!*v || *end || n == 0 || n > 1000000) {
		fprintf(stderr, "mcpidx serve: %s needs a number from 1 to 1000000, "
			"not '%s'\n", opt, v);
		return 0;
	}
	return (unsigned)n;
}

/* Reads the token: the first line of path, without surrounding blanks. */
static char *read_token(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	size_t n;
	char *p;
	if (!f) {
		fprintf(stderr, "mcpidx serve: cannot read --token-file %s: %s\n", path,
			strerror(errno));
		return NULL;
	}
	if (!fgets(line, sizeof line, f))
		line[0] = 0;
	fclose(f);
	p = line;
	while (*p == ' ' || *p == '\t')
		p++;
	n = strlen(p);
	while (n && (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' ' ||
		     p[n - 1] == '\t'))
		p[--n] = 0;
	if (n < 16) {
		fprintf(stderr, "mcpidx serve: the token in %s is %s; use at least 16 "
			"random characters (e.g. openssl rand -hex 32 > %s)\n", path,
			n ? "too short" : "empty", path);
		return NULL;
	}
	return mi_xstrdup(p);
}

/* Appends v to a NULL-terminated list. */
static void list_add(const char ***list, size_t *n, const char *v)
{
	*list = mi_xrealloc(*list, (*n + 2) * sizeof **list);
	(*list)[(*n)++] = v;
	(*list)[*n] = NULL;
}

int mi_cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{"http", required_argument, NULL, 'H'}, {"log", required_argument, NULL, 'L'},
		{"allow-remote", no_argument, NULL, 'R'}, {"help", no_argument, NULL, 'h'},
		{"allow-host", required_argument, NULL, 'A'},
		{"allow-root", required_argument, NULL, 'D'},
		{"token-file", required_argument, NULL, 'T'},
		{"max-connections", required_argument, NULL, 'C'},
		{"idle-timeout", required_argument, NULL, 'I'},
		{"max-requests", required_argument, NULL, 'Q'},
		{"log-level", required_argument, NULL, 'V'},
		{"artifacts", no_argument, NULL, 'X'},
		{"side", required_argument, NULL, 'S'}, {"max-steps", required_argument, NULL, 'm'},
		{"callback-timeout", required_argument, NULL, 'c'},
		{"tool-timeout", required_argument, NULL, 't'},
		{"chain-ttl", required_argument, NULL, 'a'},
		{"prompt-tokens", required_argument, NULL, 'p'}, {0},
	};
	mi_mcp_opts o = {0};
	mi_art_opts art = {0};
	long long v;
	char *end;
	const char **hosts = NULL, **roots = NULL;
	size_t nhosts = 0, nroots = 0;
	char *token = NULL, *index = NULL, *self = NULL;
	const char *env;
	mi_buf lerr = {0};
	int c, rc = 2;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'H': o.http = optarg; break;
		case 'L': o.log_file = optarg; break;
		case 'R': o.allow_remote = true; break;
		case 'A': list_add(&hosts, &nhosts, optarg); break;
		case 'D': list_add(&roots, &nroots, optarg); break;
		case 'V': o.log_level = optarg; break;
		case 'X': o.artifacts = true; break;
		case 'S': art.side = optarg; o.artifacts = true; break;
		case 'm': case 'c': case 't': case 'a': case 'p':
			v = strtoll(optarg, &end, 10);
			if (!*optarg || *end || v < 1 || v > 1000000000LL) {
				fprintf(stderr, "mcpidx serve: %s takes a positive number, not '%s'\n",
					argv[optind - 1], optarg);
				goto out;
			}
			o.artifacts = true;
			if (c == 'm')
				art.max_steps = (int)v;
			else if (c == 'c')
				art.callback_timeout_ms = v;
			else if (c == 't')
				art.tool_timeout_ms = v;
			else if (c == 'a')
				art.chain_ttl_ms = v;
			else
				art.prompt_tokens = (size_t)v;
			break;
		case 'T':
			free(token);
			if (!(token = read_token(optarg)))
				goto out;
			break;
		case 'C':
			if (!(o.max_connections = count_arg("--max-connections", optarg)))
				goto out;
			break;
		case 'I':
			if (!(o.idle_timeout = count_arg("--idle-timeout", optarg)))
				goto out;
			break;
		case 'Q':
			if (!(o.max_requests = count_arg("--max-requests", optarg)))
				goto out;
			break;
		case 'h': fputs(serve_usage, stdout); rc = 0; goto out;
		default: fputs(serve_usage, stderr); goto out;
		}
	}
	if (argc - optind > 1) {
		fputs(serve_usage, stderr);
		goto out;
	}
	env = getenv("MCPIDX_TOKEN");
	if (!token && env && *env)
		token = mi_xstrdup(env);
	/* Children (index_codebase's build, compile targets, upstream MCP
	 * servers) never see it. */
	unsetenv("MCPIDX_TOKEN");
	index = mi_resolve_index(optind < argc ? argv[optind] : NULL);
	if (mi_index_link_check(index, &lerr)) {
		fprintf(stderr, "mcpidx serve: %s\n", mi_buf_str(&lerr));
		rc = 1;
		goto out;
	}
	self = mi_exe_path(mi_prog);
	o.index = index;
	o.self_exe = self;
	o.allow_hosts = hosts;
	o.allow_roots = roots;
	o.token = token;
	o.art = &art;
	o.parse = mi_parse_source;
	o.detect = mi_lang_detect;
	rc = mi_mcp_serve(&o) ? 1 : 0;
out:
	mi_buf_release(&lerr);
	free(index);
	free(self);
	free(token);
	free(hosts);
	free(roots);
	return rc;
}
