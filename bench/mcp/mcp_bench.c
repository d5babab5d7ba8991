/*
 * mcp_bench.c - end-to-end latency of `mcpidx serve` over stdio JSON-RPC,
 * measured the way an agent sees it (request written, response line read),
 * beside named peers: GNU Global (`global -x NAME`, one process per lookup
 * as a tool wrapper would run it) for definitions and ripgrep (`rg -n -w`)
 * for search.  Also reports the server's memory: private (RssAnon) apart
 * from mapped index pages (RssFile).  One run; prints, never fails on a
 * missed target.
 *   mcp_bench MCPIDX REPO [N]
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct sym {
	char name[96];   /* function name */
	char path[512];  /* repo-relative file */
	int line;        /* line of the definition */
} sym;

static sym *syms;
static size_t nsyms, capsyms;
static FILE *to_srv, *from_srv;
static char *line;
static size_t linecap;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Function definitions: a line starting with a letter, holding "name(",
 * not ending in ';', followed by a line starting with '{'. */
static void harvest_file(const char *root, const char *rel, size_t want)
{
	char full[1024], prev[512] = "";
	FILE *f;
	int ln = 0;
	snprintf(full, sizeof full, "%s/%s", root, rel);
	if (!(f = fopen(full, "r")))
		return;
	char buf[512];
	while (fgets(buf, sizeof buf, f) && nsyms < want) {
		ln++;
		if (buf[0] == '{' && isalpha((unsigned char)prev[0]) && !strchr(prev, ';')) {
			char *p = strchr(prev, '('), *e;
			if (p && p > prev) {
				e = p;
				while (e > prev && (isalnum((unsigned char)e[-1]) || e[-1] == '_'))
					e--;
				if (p - e > 2 && (size_t)(p - e) < sizeof syms->name) {
					if (nsyms == capsyms) {
						capsyms = capsyms ? 2 * capsyms : 256;
						syms = realloc(syms, capsyms * sizeof *syms);
					}
					memcpy(syms[nsyms].name, e, (size_t)(p - e));
					syms[nsyms].name[p - e] = 0;
					snprintf(syms[nsyms].path, sizeof syms->path, "%s", rel);
					syms[nsyms].line = ln - 1;
					nsyms++;
				}
			}
		}
		snprintf(prev, sizeof prev, "%s", buf);
	}
	fclose(f);
}

static void harvest(const char *root, const char *rel, size_t want)
{
	char full[1024];
	struct dirent **ents;
	int n, i;
	snprintf(full, sizeof full, "%s/%s", root, rel);
	n = scandir(full, &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		char sub[1024];
		struct stat st;
		const char *nm = ents[i]->d_name;
		if (nm[0] != '.' && nsyms < want) {
			snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", nm);
			snprintf(full, sizeof full, "%s/%s", root, sub);
			if (stat(full, &st) == 0 && S_ISDIR(st.st_mode))
				harvest(root, sub, want);
			else if (strlen(nm) > 2 && strcmp(nm + strlen(nm) - 2, ".c") == 0)
				harvest_file(root, sub, want);
		}
		free(ents[i]);
	}
	free(ents);
}

static pid_t start_server(const char *exe, const char *repo)
{
	int in[2], out[2];
	pid_t pid;
	if (pipe(in) || pipe(out))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		int devnull = open("/dev/null", 1);
		dup2(devnull, 2);
		execl(exe, exe, "serve", repo, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	to_srv = fdopen(in[1], "w");
	from_srv = fdopen(out[0], "r");
	return pid;
}

/* One request, one response; returns the round trip in ms, -1 on EOF. */
static double rpc(const char *json)
{
	double t0 = now_ms();
	fputs(json, to_srv);
	fputc('\n', to_srv);
	fflush(to_srv);
	for (;;) {
		if (getline(&line, &linecap, from_srv) < 0)
			return -1;
		if (strstr(line, "\"id\":"))
			return now_ms() - t0;
	}
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

typedef struct stat3 { double p50, p99, max; } stat3;

static stat3 summarize(double *v, size_t n)
{
	stat3 s = {0, 0, 0};
	if (!n)
		return s;
	qsort(v, n, sizeof *v, cmp_d);
	s.p50 = v[n / 2];
	s.p99 = v[(size_t)((n - 1) * 0.99)];
	s.max = v[n - 1];
	return s;
}

static void report(const char *what, double *v, size_t n, double peer_p50,
		   const char *peer)
{
	stat3 s = summarize(v, n);
	printf("  %-28s n=%-5zu p50 %8.3f ms  p99 %8.3f ms  max %8.3f ms", what, n,
	       s.p50, s.p99, s.max);
	if (peer_p50 > 0)
		printf("   %s p50 %.2f ms (x%.0f)", peer, peer_p50, peer_p50 / s.p50);
	putchar('\n');
}

/* Runs argv with cwd dir, output discarded; returns wall ms. */
static double run_peer(const char *dir, char *const argv[])
{
	double t0 = now_ms();
	pid_t pid = fork();
	int st;
	if (pid == 0) {
		int devnull = open("/dev/null", 1);
		if (chdir(dir) != 0)
			_exit(126);
		dup2(devnull, 1);
		dup2(devnull, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	return now_ms() - t0;
}

static void mem(pid_t pid)
{
	char p[64], buf[256];
	FILE *f;
	snprintf(p, sizeof p, "/proc/%d/status", (int)pid);
	if (!(f = fopen(p, "r")))
		return;
	printf("  server memory:");
	while (fgets(buf, sizeof buf, f))
		if (!strncmp(buf, "VmRSS", 5) || !strncmp(buf, "RssAnon", 7) ||
		    !strncmp(buf, "RssFile", 7) || !strncmp(buf, "VmHWM", 5)) {
			buf[strcspn(buf, "\n")] = 0;
			char *v = buf + strcspn(buf, " \t");
			while (*v == ' ' || *v == '\t')
				v++;
			*strchr(buf, ':') = 0;
			printf("  %s %s", buf, v);
		}
	printf("   (target: RssAnon < 50 MB; RssFile is the mapped index)\n");
	fclose(f);
}

int main(int argc, char **argv)
{
	const char *exe, *repo;
	size_t n = 1000, i, peer_n = 40;
	double *lat, peer;
	char req[2048];
	pid_t pid;
	int st, have_gtags;
	char gpath[1024];

	if (argc < 3) {
		fprintf(stderr, "usage: mcp_bench MCPIDX REPO [N]\n");
		return 2;
	}
	exe = argv[1];
	repo = argv[2];
	if (argc > 3)
		n = strtoul(argv[3], NULL, 10);
	signal(SIGPIPE, SIG_IGN);
	harvest(repo, "", n);
	if (nsyms < 10) {
		fprintf(stderr, "mcp_bench: found only %zu C functions under %s\n", nsyms, repo);
		return 1;
	}
	n = nsyms;
	lat = calloc(n, sizeof *lat);
	pid = start_server(exe, repo);
	if (pid < 0) {
		perror("mcp_bench: starting the server");
		return 1;
	}
	if (rpc("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
		"{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":"
		"{\"name\":\"bench\",\"version\":\"1\"}}}") < 0 || !strstr(line, "result")) {
		fprintf(stderr, "mcp_bench: %s serve %s did not initialize\n", exe, repo);
		return 1;
	}
	fputs("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n", to_srv);
	printf("mcp bench: %s serve %s, %zu functions, stdio round trips\n", exe, repo, n);

	snprintf(gpath, sizeof gpath, "%s/GTAGS", repo);
	have_gtags = access(gpath, R_OK) == 0;

	for (i = 0; i < n; i++) {
		snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"ping\"}", i + 1);
		lat[i] = rpc(req);
	}
	report("ping (transport floor)", lat, n, 0, NULL);
	for (i = 0; i < n; i++) {
		snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"tools/call\","
			 "\"params\":{\"name\":\"index_status\",\"arguments\":{}}}", i + 1);
		lat[i] = rpc(req);
	}
	report("index_status (call floor)", lat, n, 0, NULL);

	/* Warm the map: one pass not counted. */
	for (i = 0; i < n; i++) {
		snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"tools/call\","
			 "\"params\":{\"name\":\"goto_definition\",\"arguments\":{\"symbol\":\"%s\"}}}",
			 i + 1, syms[i].name);
		rpc(req);
	}

	for (i = 0; i < n; i++) {
		snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"tools/call\","
			 "\"params\":{\"name\":\"goto_definition\",\"arguments\":{\"symbol\":\"%s\"}}}",
			 i + 1, syms[i].name);
		lat[i] = rpc(req);
	}
	peer = 0;
	if (have_gtags) {
		double *pl = calloc(peer_n, sizeof *pl);
		for (i = 0; i < peer_n && i < n; i++) {
			char *a[] = {"global", "-x", syms[i].name, NULL};
			pl[i] = run_peer(repo, a);
		}
		peer = summarize(pl, i).p50;
		free(pl);
	}
	report("goto_definition", lat, n, peer, "global -x");

	for (i = 0; i < n; i++) {
		snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"tools/call\","
			 "\"params\":{\"name\":\"read_file\",\"arguments\":{\"path\":\"%s\"}}}",
			 i + 1, syms[i].path);
		lat[i] = rpc(req);
	}
	report("read_file (outline)", lat, n, 0, NULL);

	for (i = 0; i < n; i++) {
		snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"tools/call\","
			 "\"params\":{\"name\":\"expand_at\",\"arguments\":{\"path\":\"%s\","
			 "\"selector\":\"%s\"}}}", i + 1, syms[i].path, syms[i].name);
		lat[i] = rpc(req);
	}
	report("expand_at", lat, n, 0, NULL);

	for (i = 0; i < n; i++) {
		snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"tools/call\","
			 "\"params\":{\"name\":\"find_references\",\"arguments\":{\"symbol\":\"%s\","
			 "\"limit\":50}}}", i + 1, syms[i].name);
		lat[i] = rpc(req);
	}
	report("find_references", lat, n, 0, NULL);

	for (i = 0; i < n; i++) {
		char q[200];
		/* Split the name into words: "page_cache_alloc" -> "page cache alloc". */
		snprintf(q, sizeof q, "%s", syms[i].name);
		for (char *c = q; *c; c++)
			if (*c == '_')
				*c = ' ';
		snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"tools/call\","
			 "\"params\":{\"name\":\"search_code\",\"arguments\":{\"query\":\"%s\","
			 "\"limit\":20}}}", i + 1, q);
		lat[i] = rpc(req);
	}
	{
		double *pl = calloc(peer_n, sizeof *pl);
		for (i = 0; i < peer_n && i < n; i++) {
			char *a[] = {"rg", "-n", "-w", "-m", "20", syms[i].name, ".", NULL};
			pl[i] = run_peer(repo, a);
		}
		peer = summarize(pl, i).p50;
		free(pl);
	}
	report("search_code (top 20)", lat, n, peer, "rg -n -w");
	mem(pid);
	fclose(to_srv);
	waitpid(pid, &st, 0);
	printf("  targets (SPEC 4): lookups p99 < 1 ms, search_code p99 < 10 ms\n");
	free(lat);
	free(syms);
	free(line);
	return 0;
}
