/*
 * cmd_build.c - `mcpidx build`: index a repository, print the stats.
 */
#include "tools.h"

#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char build_usage[] =
	"usage: mcpidx build REPO [options]\n"
	"       mcpidx build [REPO] --servers FILE [options]\n\n"
	"Walks REPO (honouring .gitignore and .mcpidxignore), parses new and changed\n"
	"files and writes the index in one transaction: a killed build leaves the\n"
	"previous index whole.  Unchanged files (same content hash) are not re-parsed.\n"
	"A first build and --force write a fresh file renamed into place at the end.\n\n"
	"  -o, --out DIR       index directory (default REPO/.mcpidx)\n"
	"  -f, --force         rebuild from scratch\n"
	"  -j, --jobs N        threads that walk and parse, 1-64 (default: number of\n"
	"                      cores; at least 8 walk, since a walk waits on the disk)\n"
	"      --no-ignore     do not read .gitignore / .mcpidxignore, and index\n"
	"                      vendored and generated trees too\n"
	"      --max-size N    skip files over N bytes, 1 to 1073741824 (default\n"
	"                      1048576)\n"
	"      --progress      progress bar even when stderr is not a terminal\n"
	"      --progress-fd N write 'progress DONE TOTAL' lines to file descriptor N\n"
	"      --json          print the stats as one JSON object (with the skipped\n"
	"                      paths by reason and the files that failed to parse)\n"
	"      --list-skipped  print each skipped path with its reason\n"
	"      --blame         also keep each symbol's last commit (hash, author,\n"
	"                      date) from git blame, for read_file with_blame\n"
	"      --servers FILE  also index the tools of the MCP servers of FILE (the\n"
	"                      mcpServers JSON of MCP clients); without REPO only\n"
	"                      the tools (index: -o DIR, default ./.mcpidx)\n"
	"      --only NAME     fetch only this server of FILE (repeatable); the\n"
	"                      others keep their stored tools\n"
	"      --offline       fetch nothing: re-index the stored tools (aliases)\n"
	"  -q, --quiet         print nothing on success\n";

static int progress_fd = -1;

/* Workers report from several threads, not in order: a line is written
 * when the count enters a new block of 64 or reaches the total, and never
 * goes back, so a reader sees DONE rise and end at TOTAL. */
static void fd_progress(void *ctx, size_t done, size_t total)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static size_t said;
	(void)ctx;
	if (progress_fd < 0)
		return;
	pthread_mutex_lock(&mu);
	if (done > said && (done / 64 != said / 64 || done == total)) {
		said = done;
		dprintf(progress_fd, "progress %zu %zu\n", done, total);
	}
	pthread_mutex_unlock(&mu);
}

int mi_cmd_build(int argc, char **argv)
{
	static const struct option opts[] = {
		{"out", required_argument, NULL, 'o'}, {"force", no_argument, NULL, 'f'},
		{"jobs", required_argument, NULL, 'j'}, {"no-ignore", no_argument, NULL, 'I'},
		{"max-size", required_argument, NULL, 'M'}, {"json", no_argument, NULL, 'J'},
		{"progress", no_argument, NULL, 'P'}, {"progress-fd", required_argument, NULL, 'F'},
		{"quiet", no_argument, NULL, 'q'}, {"help", no_argument, NULL, 'h'},
		{"list-skipped", no_argument, NULL, 'L'},
		{"servers", required_argument, NULL, 'S'}, {"only", required_argument, NULL, 'O'},
		{"offline", no_argument, NULL, 'N'}, {"blame", no_argument, NULL, 'B'}, {0},
	};
	const char *servers = NULL;
	char **only = mi_xcalloc((size_t)argc + 1, sizeof(*only));
	size_t nonly = 0;
	bool offline = false;
	int status = 0;
	mi_build_opts o = {0};
	bool json = false, quiet = false, force_progress = false, list = false, blame = false;
	int c;
	unsigned long long n;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:fj:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': o.out_dir = optarg; break;
		case 'f': o.force = true; break;
		case 'j':
			if (!mi_arg_uint("build", "--jobs", optarg, 1, 64, &n)) {
				free(only);
				return 2;
			}
			o.jobs = (int)n;
			break;
		case 'I': o.no_ignore = true; break;
		case 'M':
			if (!mi_arg_uint("build", "--max-size", optarg, 1, MI_MAX_SIZE_CAP, &n)) {
				free(only);
				return 2;
			}
			o.max_file_size = n;
			break;
		case 'J': json = true; break;
		case 'P': force_progress = true; break;
		case 'F':
			if (!mi_arg_uint("build", "--progress-fd", optarg, 0, INT_MAX, &n)) {
				free(only);
				return 2;
			}
			if (fcntl((int)n, F_GETFD) < 0) {
				fprintf(stderr, "mcpidx build: --progress-fd %s is not an open "
					"file descriptor\n", optarg);
				free(only);
				return 2;
			}
			progress_fd = (int)n;
			break;
		case 'q': quiet = true; break;
		case 'L': list = true; break;
		case 'S': servers = optarg; break;
		case 'O': only[nonly++] = optarg; break;
		case 'N': offline = true; break;
		case 'B': blame = true; break;
		case 'h': fputs(build_usage, stdout); free(only); return 0;
		default: fputs(build_usage, stderr); free(only); return 2;
		}
	}
	if ((nonly || offline) && !servers) {
		fprintf(stderr, "mcpidx build: --only and --offline go with --servers FILE\n");
		free(only);
		return 2;
	}
	if (servers && optind == argc) {
		char *dir = mi_xstrdup(o.out_dir ? o.out_dir : ".mcpidx");
		status = mi_catalog_build(servers, dir, only, offline, json, quiet);
		free(dir);
		free(only);
		return status;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "mcpidx build: give exactly one repository folder\n\n%s", build_usage);
		free(only);
		return 2;
	}
	o.repo = argv[optind];
	o.details = true;
	o.progress = !quiet && !json && (force_progress || isatty(2));
	if (progress_fd >= 0)
		o.on_progress = fd_progress;
	mi_build_stats st;
	mi_buf err = {0};
	int rc = mi_build(&o, &st, &err);
	if (rc) {
		fprintf(stderr, "mcpidx build: %s\n", mi_buf_str(&err));
		mi_buf_release(&err);
		mi_build_stats_release(&st);
		free(only);
		return 1;
	}
	mi_buf_release(&err);
	if (st.rebuilt_from && !quiet)
		fprintf(stderr, "mcpidx build: the index had format version %d; rebuilt every "
			"file in format %d\n", st.rebuilt_from, MI_FORMAT_VERSION);
	if (st.moved_aside)
		fprintf(stderr, "mcpidx build: the damaged index was kept as %s%s/data.mdb.damaged "
			"(delete it when done)\n", o.out_dir ? o.out_dir : o.repo,
			o.out_dir ? "" : "/.mcpidx");
	for (size_t i = 0; i < st.nfails && !json; i++) {
		mi_buf name = {0};
		mi_quote_name(&name, st.fails[i].path); /* a newline in a name forges no line */
		fprintf(stderr, "mcpidx build: could not parse %s: %s (indexed without symbols)\n",
			mi_buf_str(&name), st.fails[i].why);
		mi_buf_release(&name);
	}
	if (json) {
		mi_buf j = {0};
		mi_buf_addf(&j, "{\"files\":%zu,\"indexed\":%zu,\"unchanged\":%zu,\"removed\":%zu,"
			    "\"symbols\":%zu,\"references\":%zu,\"diagnostics\":%zu,\"chunks\":%zu,"
			    "\"errors\":%zu,\"seconds\":%.3f,\"walk_seconds\":%.3f,\"parse_seconds\":%.3f,"
			    "\"write_seconds\":%.3f,\"fresh\":%s,\"skipped\":{",
			    st.files, st.indexed, st.unchanged, st.removed, st.symbols, st.refs,
			    st.diags, st.chunks, st.errors, st.seconds, st.walk_seconds,
			    st.parse_seconds, st.write_seconds, st.fresh ? "true" : "false");
		for (int i = 0; i < MI_SKIP__COUNT; i++)
			mi_buf_addf(&j, "%s\"%s\":%zu", i ? "," : "", mi_skip_name(i), st.skipped[i]);
		mi_buf_adds(&j, "},\"skipped_paths\":{");
		for (int r = 0; r < MI_SKIP__COUNT; r++) {
			mi_buf_addf(&j, "%s\"%s\":[", r ? "," : "", mi_skip_name(r));
			bool first = true;
			for (size_t i = 0; i < st.nskips; i++) {
				if (st.skips[i].reason != r)
					continue;
				if (!first)
					mi_buf_addc(&j, ',');
				mi_buf_add_json_str(&j, st.skips[i].path, strlen(st.skips[i].path));
				first = false;
			}
			mi_buf_addc(&j, ']');
		}
		mi_buf_adds(&j, "},\"failures\":[");
		for (size_t i = 0; i < st.nfails; i++) {
			mi_buf_adds(&j, i ? ",{\"path\":" : "{\"path\":");
			mi_buf_add_json_str(&j, st.fails[i].path, strlen(st.fails[i].path));
			mi_buf_adds(&j, ",\"reason\":");
			mi_buf_add_json_str(&j, st.fails[i].why, strlen(st.fails[i].why));
			mi_buf_addc(&j, '}');
		}
		mi_buf_adds(&j, "]}");
		puts(mi_buf_str(&j));
		mi_buf_release(&j);
	} else if (!quiet) {
		printf("indexed %zu files (%zu parsed, %zu unchanged, %zu removed) in %.2fs\n",
		       st.files, st.indexed, st.unchanged, st.removed, st.seconds);
		printf("symbols %zu  references %zu  diagnostics %zu  chunks %zu  parse errors %zu\n",
		       st.symbols, st.refs, st.diags, st.chunks, st.errors);
		bool any = false;
		for (int i = 0; i < MI_SKIP__COUNT; i++) {
			if (!st.skipped[i])
				continue;
			printf("%s%s %zu", any ? ", " : "skipped: ", mi_skip_name(i), st.skipped[i]);
			any = true;
		}
		if (any)
			printf(list ? "\n" : " (--list-skipped lists them)\n");
	}
	if (list && !json) {
		mi_buf name = {0};
		for (int r = 0; r < MI_SKIP__COUNT; r++)
			for (size_t i = 0; i < st.nskips; i++)
				if (st.skips[i].reason == r) {
					mi_buf_reset(&name);
					mi_quote_name(&name, st.skips[i].path);
					printf("%-11s %s\n", mi_skip_name(r), mi_buf_str(&name));
				}
		mi_buf_release(&name);
	}
	mi_build_stats_release(&st);
	if (blame) {
		/* the last commit of each symbol, from git, beside the index */
		mi_buf dir = {0}, berr = {0};
		mi_blame_stats bst;
		if (o.out_dir)
			mi_buf_adds(&dir, o.out_dir);
		else
			mi_buf_addf(&dir, "%s/.mcpidx", o.repo);
		if (mi_blame_build(dir.buf, &bst, &berr)) {
			fprintf(stderr, "mcpidx build: blame: %s\n", mi_buf_str(&berr));
			status = 1;
		} else if (!quiet && !json) {
			printf("blame: %zu files blamed (%zu symbols), %zu unchanged, %zu removed\n",
			       bst.files, bst.symbols, bst.unchanged, bst.removed);
		}
		mi_buf_release(&dir);
		mi_buf_release(&berr);
	}
	if (servers) {
		mi_buf dir = {0};
		if (o.out_dir)
			mi_buf_adds(&dir, o.out_dir);
		else
			mi_buf_addf(&dir, "%s/.mcpidx", o.repo);
		fflush(stdout);
		status = mi_catalog_build(servers, dir.buf, only, offline, json, quiet);
		mi_buf_release(&dir);
	}
	free(only);
	return status;
}
