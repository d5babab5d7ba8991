/*
 * cmd_serve.c - `mcpidx serve`: the MCP server.
 */
#include "tools.h"
#include "../mcp/mcp.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

static const char serve_usage[] =
	"usage: mcpidx serve [INDEX...] [--workspace FILE] [options]\n\n"
	"Serves the index over the Model Context Protocol: JSON-RPC on stdin/stdout,\n"
	"or streamable HTTP with --http.  Read-only; a rebuild in another process is\n"
	"picked up by the next request.  INDEX is an index dir, a packed file, or a\n"
	"repo holding .mcpidx/ (default: the current directory).  Several INDEXes (or\n"
	"NAME=INDEX) serve a workspace: every tool takes a repo argument, search and\n"
	"navigation answer across all of them.  Repositories are named after their\n"
	"directory unless named.\n\n"
	"  --workspace FILE      serve the repositories FILE lists: one [NAME] INDEX\n"
	"                        per line (relative to FILE's directory; # comments)\n"
	"  --http ADDR:PORT      serve HTTP (POST /mcp) on a loopback address\n"
	"  --allow-remote        allow a non-loopback --http address\n"
	"  --allow-host NAME     accept NAME in Host/Origin besides loopback (repeatable)\n"
	"  --token-file FILE     HTTP requests must send Authorization: Bearer <first\n"
	"                        line of FILE> (or set MCPIDX_TOKEN)\n"
	"  --max-connections N   HTTP connections open at once (default 1000)\n"
	"  --idle-timeout SECS   close HTTP connections idle this long (default 30)\n"
	"  --max-requests N      HTTP requests worked on at once (default 64)\n"
	"  --allow-root DIR      let index_codebase build trees under DIR too (repeatable)\n"
	"  --lock-memory         keep every index page in memory once read (mlock): a\n"
	"                        host that reclaims cold memory never makes a lookup\n"
	"                        wait for the disk; needs ulimit -l of the index size\n"
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

/* ---- a workspace ------------------------------------------------------------------ */

/* One served repository: its index (as given, resolved) and its name. */
typedef struct ws_list {
	char **index;        /* NULL-terminated */
	char **name;         /* NULL-terminated */
	size_t n;
} ws_list;

static bool name_ok(const char *s, size_t n)
{
	if (!n || n > 64 || s[0] == '.' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return false;
	return true;
}

/* The default name of an index: its repository's directory, or a packed
 * file's name without its extension. */
static char *default_name(const char *index)
{
	char *r = realpath(index, NULL), *d, *b, *dot, *out;
	struct stat st;
	if (!r)
		r = mi_xstrdup(index);
	d = mi_xstrdup(r);
	b = basename(d);
	if (strcmp(b, ".mcpidx") == 0) {
		char *d2 = mi_xstrdup(r);
		out = mi_xstrdup(basename(dirname(d2)));
		free(d2);
	} else {
		out = mi_xstrdup(b);
		if (stat(r, &st) == 0 && S_ISREG(st.st_mode) && (dot = strrchr(out, '.')) &&
		    dot != out)
			*dot = 0;
	}
	free(d);
	free(r);
	return out;
}

/* Adds one repository; 0, or -1 after saying why. */
static int ws_add(ws_list *w, const char *name, size_t nl, const char *path,
		  const char *where)
{
	struct stat st;
	char *nm;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "mcpidx serve: %s%s: %s\n", where, path, strerror(errno));
		return -1;
	}
	nm = name ? mi_xstrndup(name, nl) : default_name(path);
	if (!name_ok(nm, strlen(nm))) {
		fprintf(stderr, "mcpidx serve: %s'%s' cannot name a repository: use "
			"letters, digits, '.', '_' and '-' (not first)\n", where, nm);
		free(nm);
		return -1;
	}
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->name[i], nm) == 0) {
			fprintf(stderr, "mcpidx serve: %stwo repositories are named %s (%s "
				"and %s): name them, NAME=INDEX or a --workspace line "
				"NAME INDEX\n", where, nm, w->index[i], path);
			free(nm);
			return -1;
		}
	w->index = mi_xrealloc(w->index, (w->n + 2) * sizeof *w->index);
	w->name = mi_xrealloc(w->name, (w->n + 2) * sizeof *w->name);
	w->index[w->n] = mi_resolve_index(path);
	w->name[w->n] = nm;
	w->n++;
	w->index[w->n] = NULL;
	w->name[w->n] = NULL;
	return 0;
}

/* NAME=INDEX or INDEX. */
static int ws_arg(ws_list *w, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct stat st;
	if (eq && stat(arg, &st) != 0)
		return ws_add(w, arg, (size_t)(eq - arg), eq + 1, "");
	return ws_add(w, NULL, 0, arg, "");
}

/* A workspace file lists indexes, not data: past this it is refused. */
#define WS_FILE_MAX (1 << 20)

/* Reads a workspace file: one "[NAME] INDEX" per line.  Read whole, as a
 * regular file (a FIFO would block for ever); a line too long for a path
 * is refused, not split (its tail would be read as a line of its own). */
static int ws_file(ws_list *w, const char *file)
{
	char where[PATH_MAX + 32], *fd, *dir, *text = NULL;
	size_t len = 0;
	int ln = 0, rc = 0;
	size_t before = w->n;
	struct stat st;
	int err = stat(file, &st) < 0 ? errno : 0;
	if (!err && S_ISREG(st.st_mode) && st.st_size > WS_FILE_MAX)
		err = EFBIG;
	if (!err)
		err = mi_read_file(file, &text, &len);
	if (!err && len > WS_FILE_MAX)
		err = EFBIG;
	if (err) {
		fprintf(stderr, "mcpidx serve: cannot read --workspace %s: %s\n", file,
			err == EFBIG ? "over 1 MiB" : mi_strerror(err));
		free(text);
		return -1;
	}
	fd = mi_xstrdup(file);
	dir = dirname(fd);
	for (char *line = text, *next; !rc && line < text + len; line = next) {
		char *p, *a, *b = NULL, path[PATH_MAX + 8];
		size_t al, ll = strcspn(line, "\n");
		next = line + ll + (line[ll] == '\n');
		line[ll] = 0;
		ln++;
		snprintf(where, sizeof where, "%s:%d: ", file, ln);
		if (ll >= PATH_MAX + 128 || strlen(line) != ll) {
			fprintf(stderr, "mcpidx serve: %s%s\n", where, ll >= PATH_MAX + 128 ?
				"line too long" : "a NUL byte in the line");
			rc = -1;
			break;
		}
		line[strcspn(line, "\r")] = 0;
		p = line;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		a = p;
		al = strcspn(a, " \t");
		if (a[al]) {
			b = a + al;
			while (isspace((unsigned char)*b))
				b++;
			for (size_t n = strlen(b); n && isspace((unsigned char)b[n - 1]); n--)
				b[n - 1] = 0;
		}
		if (b && *b) {
			snprintf(path, sizeof path, "%s%s%s", b[0] == '/' ? "" : dir,
				 b[0] == '/' ? "" : "/", b);
			rc = ws_add(w, a, al, path, where);
		} else {
			a[al] = 0;
			snprintf(path, sizeof path, "%s%s%s", a[0] == '/' ? "" : dir,
				 a[0] == '/' ? "" : "/", a);
			rc = ws_add(w, NULL, 0, path, where);
		}
	}
	free(text);
	free(fd);
	if (!rc && w->n == before) {
		fprintf(stderr, "mcpidx serve: --workspace %s lists no repository: "
			"write one \"NAME INDEX\" per line\n", file);
		rc = -1;
	}
	return rc;
}

static void ws_free(ws_list *w)
{
	for (size_t i = 0; i < w->n; i++) {
		free(w->index[i]);
		free(w->name[i]);
	}
	free(w->index);
	free(w->name);
}

/* --lock-memory: opens the index once to see that its map can be locked;
 * -1 with a message saying what to raise when it cannot (a missing or
 * damaged index is left to the server's own message). */
static int memlock_check(const char *index)
{
	mi_query *q;
	mi_buf err = {0};
	struct rlimit rl;
	int e = 0;
	if (!mi_query_open(index, &q, &err)) {
		e = mi_store_memlock_error();
		mi_query_close(q);
	}
	mi_buf_release(&err);
	if (!e)
		return 0;
	char lim[32] = "unlimited";
	if (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY)
		snprintf(lim, sizeof lim, "%llu KiB", (unsigned long long)rl.rlim_cur / 1024);
	fprintf(stderr, "mcpidx serve: cannot lock %s in memory: %s (ulimit -l is %s). Raise the "
		"limit to the index's size (ulimit -l unlimited; systemd LimitMEMLOCK=infinity; "
		"docker run --ulimit memlock=-1) or serve without --lock-memory\n",
		index, strerror(e), lim);
	return -1;
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
		{"prompt-tokens", required_argument, NULL, 'p'},
		{"workspace", required_argument, NULL, 'W'},
		{"lock-memory", no_argument, NULL, 'K'}, {0},
	};
	mi_mcp_opts o = {0};
	mi_art_opts art = {0};
	long long v;
	char *end;
	const char **hosts = NULL, **roots = NULL;
	size_t nhosts = 0, nroots = 0;
	char *token = NULL, *index = NULL, *self = NULL;
	ws_list ws = {0};
	const char *wsfile = NULL;
	const char *env;
	mi_buf lerr = {0};
	bool lockmem = false;
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
		case 'W': wsfile = optarg; break;
		case 'K': lockmem = true; break;
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
	if (wsfile || argc - optind > 1) {
		for (int i = optind; i < argc; i++)
			if (ws_arg(&ws, argv[i]))
				goto out;
		if (wsfile && ws_file(&ws, wsfile))
			goto out;
		o.repo_indexes = (const char *const *)ws.index;
		o.repo_names = (const char *const *)ws.name;
	}
	env = getenv("MCPIDX_TOKEN");
	if (!token && env && *env)
		token = mi_xstrdup(env);
	/* Children (index_codebase's build, compile targets, upstream MCP
	 * servers) never see it. */
	unsetenv("MCPIDX_TOKEN");
	index = mi_resolve_index(ws.n ? ws.index[0] : optind < argc ? argv[optind] : NULL);
	for (size_t i = 0; i < (ws.n ? ws.n : 1); i++) {
		if (mi_index_link_check(ws.n ? ws.index[i] : index, &lerr)) {
			fprintf(stderr, "mcpidx serve: %s\n", mi_buf_str(&lerr));
			rc = 1;
			goto out;
		}
	}
	if (lockmem) {
		mi_store_memlock(true);
		for (size_t i = 0; i < (ws.n ? ws.n : 1); i++)
			if (memlock_check(ws.n ? ws.index[i] : index)) {
				rc = 1;
				goto out;
			}
	}
	self = mi_exe_path(mi_prog);
	o.index = index;
	o.self_exe = self;
	o.allow_hosts = hosts;
	o.allow_roots = roots;
	o.token = token;
	o.art = &art;
	o.parse = mi_parse_detected;
	o.detect = mi_lang_detect;
	o.indexable = mi_build_would_index;
	rc = mi_mcp_serve(&o) ? 1 : 0;
out:
	mi_buf_release(&lerr);
	free(index);
	free(self);
	free(token);
	free(hosts);
	free(roots);
	ws_free(&ws);
	return rc;
}
