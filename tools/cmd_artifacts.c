/*
 * cmd_artifacts.c - `mcpidx artifacts`: list, show and delete the artifacts
 * a model wrote about the indexed code, and the prompt/store round trip for
 * scripts.  The same commands run in the REPL (`artifacts list` ...).
 */
#include "tools.h"
#include "../mcp/mcp.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char art_usage[] =
	"usage: mcpidx artifacts [INDEX] COMMAND [ARGS] [--side DIR] [--json]\n\n"
	"Artifacts are what a model wrote about the indexed code (summaries,\n"
	"annotations, documentation, test plans), kept in the side store beside the\n"
	"index (INDEX/side, FILE.side for a packed index, or --side DIR) and pinned\n"
	"to the content hash of the source they describe: when the file changes they\n"
	"show as stale.\n\n"
	"commands:\n"
	"  list [DIR] [--type TASK]                  the artifacts as a tree\n"
	"  show PATH [--task TASK] [--symbol NAME]   their text and whether they are stale\n"
	"  rm PATH [--task TASK] [--symbol NAME]     delete them\n"
	"  prompt PATH --task TASK [--symbol NAME]   the prompt for a model (TASK: annotate,\n"
	"                                            summarize, document, test-plan)\n"
	"  store PATH --task TASK [--symbol NAME] [--chain ID] [--hash HEX]\n"
	"                                            store a model's answer, read from stdin\n\n"
	"exit status: 0 done, 1 nothing matched or an error, 2 usage\n";

/* One subcommand. */
typedef struct art_cmd {
	const char *name;  /* list, show, ... */
	int minpos;        /* positionals after the name */
	int (*fn)(mi_art *, mi_query *, const mi_art_req *, mi_out *);
} art_cmd;

static const art_cmd art_cmds[] = {
	{"list", 0, mi_art_list},
	{"show", 1, mi_art_get},
	{"rm", 1, mi_mcp_art_delete},
	{"prompt", 1, mi_mcp_art_prompt},
	{"store", 1, mi_mcp_art_store},
};
#define NART (sizeof art_cmds / sizeof *art_cmds)

static int read_stdin(mi_buf *b)
{
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
		mi_buf_add(b, chunk, n);
	return ferror(stdin) ? -1 : 0;
}

int mi_artifacts_cmd_run(mi_query *q, const char *side, int argc, char **argv,
			 bool json, FILE *out)
{
	const art_cmd *cmd = NULL;
	const char *pos[4] = {0};
	int npos = 0, status = 2, rc;
	mi_art_req r;
	mi_art_opts o;
	mi_art *a = NULL;
	mi_buf result = {0};
	mi_out ans;
	char *repo = NULL;

	memset(&r, 0, sizeof r);
	memset(&ans, 0, sizeof ans);
	if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help")) {
		fputs(art_usage, argc < 2 ? stderr : out);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < NART; i++)
		if (!strcmp(art_cmds[i].name, argv[1]))
			cmd = &art_cmds[i];
	if (!cmd) {
		fprintf(stderr, "mcpidx artifacts: unknown command '%s' (list, show, rm, prompt, "
			"store)\n", argv[1]);
		return 2;
	}
	r.tool = cmd->name;
	for (int i = 2; i < argc; i++) {
		const char *s = argv[i];
		const char **dst = NULL;
		if (!strcmp(s, "--json")) {
			json = true;
			continue;
		}
		if (!strcmp(s, "--task") || !strcmp(s, "--type"))
			dst = !strcmp(s, "--task") ? &r.task : &r.type;
		else if (!strcmp(s, "--symbol"))
			dst = &r.symbol;
		else if (!strcmp(s, "--chain"))
			dst = &r.chain;
		else if (!strcmp(s, "--hash"))
			dst = &r.hash;
		else if (!strcmp(s, "--side"))
			dst = &side;
		if (dst) {
			if (i + 1 >= argc) {
				fprintf(stderr, "mcpidx artifacts %s: %s needs a value\n", cmd->name, s);
				goto out;
			}
			*dst = argv[++i];
		} else if (s[0] == '-' && s[1] == '-') {
			fprintf(stderr, "mcpidx artifacts %s: unknown option %s\n", cmd->name, s);
			goto out;
		} else if (npos < 4) {
			pos[npos++] = s;
		} else {
			fprintf(stderr, "mcpidx artifacts %s: too many arguments\n", cmd->name);
			goto out;
		}
	}
	if (npos < cmd->minpos) {
		fprintf(stderr, "mcpidx artifacts %s: missing PATH (mcpidx artifacts --help)\n",
			cmd->name);
		goto out;
	}
	if (!strcmp(cmd->name, "list"))
		r.directory = pos[0];
	else
		r.path = pos[0];
	if (!strcmp(cmd->name, "list") && r.task)
		r.type = r.task;
	if (!strcmp(cmd->name, "store")) {
		if (read_stdin(&result)) {
			fprintf(stderr, "mcpidx artifacts store: cannot read the result from stdin\n");
			status = 1;
			goto out;
		}
		r.result = mi_buf_str(&result);
	}
	memset(&o, 0, sizeof o);
	o.index = mi_query_path(q);
	o.side = side;
	o.repo = repo = mi_query_root(q); /* NULL: staleness against the index */
	a = mi_art_new(&o);
	rc = cmd->fn(a, q, &r, &ans);
	if (json) {
		fputs(mi_buf_str(&ans.json), out);
		fputc('\n', out);
	} else if (ans.text.len) {
		FILE *f = ans.is_error ? stderr : out;
		fputs(mi_buf_str(&ans.text), f);
		if (ans.text.buf[ans.text.len - 1] != '\n')
			fputc('\n', f);
	}
	status = rc || ans.is_error ? 1 : 0;
out:
	mi_out_release(&ans);
	mi_art_free(a);
	mi_buf_release(&result);
	free(repo);
	return status;
}

int mi_cmd_artifacts(int argc, char **argv)
{
	const char *index_arg = NULL, *side = NULL;
	char **av;
	int ac = 0, status;
	mi_query *q = NULL;
	mi_buf err = {0};
	char *index;
	bool is_cmd = false;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(art_usage, stdout);
		return 0;
	}
	av = mi_xcalloc((size_t)argc + 2, sizeof *av);
	av[ac++] = "artifacts";
	for (size_t i = 0; argc > 1 && i < NART; i++)
		if (!strcmp(argv[1], art_cmds[i].name))
			is_cmd = true;
	for (int i = 1; i < argc; i++) {
		if (i == 1 && !is_cmd && argv[1][0] != '-') {
			index_arg = argv[1];
			continue;
		}
		if (!strcmp(argv[i], "--side") && i + 1 < argc) {
			side = argv[++i];
			continue;
		}
		av[ac++] = argv[i];
	}
	index = mi_resolve_index(index_arg);
	if (mi_query_open(index, &q, &err)) {
		fprintf(stderr, "mcpidx artifacts: %s\n", mi_buf_str(&err));
		status = 1;
	} else {
		status = mi_artifacts_cmd_run(q, side, ac, av, false, stdout);
	}
	mi_query_close(q);
	mi_buf_release(&err);
	free(index);
	free(av);
	return status;
}

int mi_artifacts_notes(mi_query *q, const char *path, mi_art_notes_t *out)
{
	mi_art_opts o = {0};
	char *repo = mi_query_root(q);
	mi_art *a;
	int rc;
	o.index = mi_query_path(q);
	o.repo = repo;
	a = mi_art_new(&o);
	rc = mi_art_notes(a, q, path, out);
	mi_art_free(a);
	free(repo);
	return rc;
}

int mi_artifacts_pack(const char *index, const char *outfile, uint64_t *n, mi_buf *err)
{
	static const int dbs[] = {MI_SIDE_ARTIFACTS, MI_SIDE_ALIASES};
	char *src_dir = mi_side_locate(index, NULL);
	mi_buf dst = {0};
	mi_side *src = NULL;
	int rc;
	*n = 0;
	mi_buf_addf(&dst, "%s.side", outfile);
	rc = src_dir ? mi_side_open(src_dir, 0, &src) : MI_ERR_NOINDEX;
	if (rc == MI_ERR_NOINDEX) {
		rc = 0; /* nothing stored beside the index: nothing to ship */
		goto out;
	}
	if (rc) {
		mi_buf_addf(err, "cannot open the artifacts at %s: %s", src_dir, mi_strerror(rc));
		goto out;
	}
	rc = mi_side_export(src, dst.buf, dbs, sizeof dbs / sizeof *dbs, n);
	if (rc)
		mi_buf_addf(err, "cannot write the artifacts to %s: %s", dst.buf, mi_strerror(rc));
out:
	mi_side_close(src);
	mi_buf_release(&dst);
	free(src_dir);
	return rc;
}
