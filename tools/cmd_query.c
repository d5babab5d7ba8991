/*
 * cmd_query.c - `mcpidx query`: the query commands (one table shared by the
 * one-shot form and the REPL) and `mcpidx outline FILE`.
 */
#include "tools.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Parsed arguments of one query command line. */
typedef struct qargs {
	const char **pos;     /* positional arguments (owned array, borrowed strings) */
	int npos;             /* how many */
	mi_buf rest;          /* positionals from pos[restfrom] joined by spaces */
	const char **opt;     /* option names (without --), owned */
	const char **val;     /* their values ("" for flags), borrowed */
	int nopt;             /* how many */
} qargs;

/* Options that take no value. */
static bool is_flag(const char *name)
{
	static const char *const flags[] = {"all", "json", "block-guides", "unicode",
					    "coverage", "show-coverage", "xrefs", "blame",
					    "summaries", NULL};
	for (int i = 0; flags[i]; i++)
		if (!strcmp(flags[i], name))
			return true;
	return false;
}

static int parse_args(int argc, char **argv, qargs *a, mi_buf *err)
{
	memset(a, 0, sizeof(*a));
	/* argc bounds both counts: no argument is ever dropped. */
	a->pos = mi_xcalloc((size_t)argc + 1, sizeof(*a->pos));
	a->opt = mi_xcalloc((size_t)argc + 1, sizeof(*a->opt));
	a->val = mi_xcalloc((size_t)argc + 1, sizeof(*a->val));
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (s[0] == '-' && s[1] == '-' && s[2]) {
			const char *name = s + 2, *eq = strchr(name, '=');
			if (eq) {
				/* --name=value: keep the name part in place */
				a->opt[a->nopt] = mi_xstrndup(name, (size_t)(eq - name));
				a->val[a->nopt++] = eq + 1;
				continue;
			}
			a->opt[a->nopt] = mi_xstrdup(name);
			if (is_flag(name)) {
				a->val[a->nopt++] = "";
			} else if (i + 1 < argc) {
				a->val[a->nopt++] = argv[++i];
			} else {
				mi_buf_addf(err, "option --%s needs a value", name);
				free((char *)a->opt[a->nopt]);
				return 2;
			}
		} else {
			a->pos[a->npos++] = s;
		}
	}
	return 0;
}

static void free_args(qargs *a)
{
	for (int i = 0; i < a->nopt; i++)
		free((char *)a->opt[i]);
	free(a->opt);
	free(a->val);
	free(a->pos);
	mi_buf_release(&a->rest);
}

static const char *opt_get(const qargs *a, const char *name)
{
	for (int i = a->nopt - 1; i >= 0; i--)
		if (!strcmp(a->opt[i], name))
			return a->val[i];
	return NULL;
}

/* The whole-number options and their ranges (checked once, after parsing,
 * so a bad value is an error and not 0 or 2^64-1). */
static const struct {
	const char *name;
	unsigned long long min, max;
} num_opts[] = {
	{"limit", 1, 1000000}, {"max-tokens", 1, 1000000000}, {"budget", 1, 1000000000},
	{"depth", 1, 5},
};

static bool num_opts_ok(const qargs *a, const char *cmd)
{
	unsigned long long n;
	char opt[32];
	for (size_t i = 0; i < sizeof num_opts / sizeof *num_opts; i++) {
		const char *v = opt_get(a, num_opts[i].name);
		snprintf(opt, sizeof opt, "--%s", num_opts[i].name);
		if (v && !mi_arg_uint(cmd, opt, v, num_opts[i].min, num_opts[i].max, &n))
			return false;
	}
	return true;
}

/* A whole-number option's value (num_opts_ok has checked it), or dflt. */
static unsigned long long opt_num(const qargs *a, const char *name, unsigned long long dflt)
{
	const char *v = opt_get(a, name);
	return v ? strtoull(v, NULL, 10) : dflt;
}

/* Positionals from index i joined by spaces (for free-text queries). */
static const char *joined(qargs *a, int i)
{
	mi_buf_reset(&a->rest);
	for (int k = i; k < a->npos; k++) {
		if (k > i)
			mi_buf_addc(&a->rest, ' ');
		mi_buf_adds(&a->rest, a->pos[k]);
	}
	return mi_buf_str(&a->rest);
}

static int view_opts(const qargs *a, mi_view_opts *v, mi_buf *err)
{
	memset(v, 0, sizeof(*v));
	v->mode = opt_get(a, "mode");
	v->all = opt_get(a, "all") != NULL;
	const char *f = opt_get(a, "filter");
	if (f) {
		if (!strcmp(f, "all"))
			v->all = true;
		else if (strcmp(f, "public")) {
			mi_buf_addf(err, "--filter takes public or all, not '%s'", f);
			return 2;
		}
	}
	const char *ln = opt_get(a, "line-numbers");
	if (ln) {
		if (!strcmp(ln, "plain"))
			v->line_numbers = 1;
		else if (!strcmp(ln, "zpad"))
			v->line_numbers = 2;
		else {
			mi_buf_addf(err, "--line-numbers takes plain or zpad, not '%s'", ln);
			return 2;
		}
	}
	const char *marks = opt_get(a, "marks");
	v->unicode = opt_get(a, "unicode") || (marks && !strcmp(marks, "unicode"));
	v->block_guides = opt_get(a, "block-guides") != NULL;
	v->xrefs = opt_get(a, "xrefs") != NULL;
	v->blame = opt_get(a, "blame") != NULL;
	v->coverage = opt_get(a, "coverage") || opt_get(a, "show-coverage") || opt_get(a, "lcov");
	v->lcov_path = opt_get(a, "lcov");
	v->max_tokens = opt_num(a, "max-tokens", v->max_tokens);
	return 0;
}

typedef struct qcmd {
	const char *name;      /* command */
	int minpos;            /* positional arguments needed */
	const char *usage;     /* arguments */
	const char *help;      /* what it does */
} qcmd;

static const qcmd qcmds[] = {
	{"def", 1, "NAME [PATH]", "where NAME is defined (Parent.NAME works), with its folded header"},
	{"refs", 1, "NAME [--all] [--limit N]", "call sites of NAME with their callers (--all: every reference)"},
	{"outline", 1, "PATH [--mode outline|compact|full] [--all] [--line-numbers plain|zpad] [--marks unicode] [--xrefs] [--blame] [--summaries]",
	 "folded view of an indexed file"},
	{"expand", 2, "PATH SELECTOR [--what body|signature|docs|all]", "one symbol expanded (NAME, Parent.NAME or line:N)"},
	{"search", 1, "QUERY... [--limit N] [--path GLOB] [--ext c,h] [--format toon|json|human] [--filter public]",
	 "ranked code search (BM25F over symbols, signatures, docs, bodies)"},
	{"docs", 1, "QUERY... [--limit N] [--path GLOB]", "search Markdown sections and doc comments"},
	{"research", 1, "QUERY... [--depth 1-5] [--focus architecture|dependencies|patterns|flow]",
	 "multi-hop: callers of callers, implementations, module dependencies"},
	{"pack", 0, "TARGET... [--budget N] [--depth 1|2] [--since REV|A..B]",
	 "context pack: TARGET expanded, what it uses folded, its callers, within N tokens"},
	{"changed", 0, "[--since REV|A..B] [--path PATH] [--marks unicode]",
	 "symbols added (+), removed (-) or changed (~) since the index was built, or since REV"},
	{"stats", 0, "", "index counts, build time, git HEAD, languages"},
};
#define NQCMDS (sizeof(qcmds) / sizeof(qcmds[0]))

const char *const mi_query_cmd_names[] = {"def", "refs", "outline", "expand", "search",
					  "docs", "research", "pack", "changed", "stats", "artifacts", "help",
					  "quit", NULL};

void mi_query_cmd_help(FILE *out)
{
	fprintf(out, "query commands:\n");
	for (size_t i = 0; i < NQCMDS; i++)
		fprintf(out, "  %-8s %s\n           %s\n", qcmds[i].name, qcmds[i].usage, qcmds[i].help);
	fprintf(out, "  %-8s %s\n           %s\n", "artifacts", "list|show|rm|prompt|store [ARGS]",
		"artifacts a model wrote about the code (artifacts help)");
	fprintf(out, "add --json to any command for the JSON object (SPEC 3.1)\n");
}

/* Prints a view's JSON with seed 000's meta object added (--format json-meta). */
static void put_json_meta(const mi_out *o, const mi_view_opts *v, FILE *out)
{
	const mi_buf *j = &o->json;
	size_t n = j->len;
	while (n && j->buf[n - 1] != '}')
		n--;
	if (!n || o->is_error) {
		fputs(mi_buf_str(j), out);
	} else {
		fwrite(j->buf, 1, n - 1, out);
		fprintf(out, "%s\"meta\":{\"mode\":\"%s\"", n > 2 ? "," : "",
			!v->mode || !strcmp(v->mode, "outline") || !strcmp(v->mode, "mcp") ?
			"mcp" : v->mode);
		if (v->line_numbers)
			fprintf(out, ",\"line_numbers\":\"%s\"", v->line_numbers == 2 ? "zpad" : "plain");
		fprintf(out, ",\"show_coverage\":%s,\"show_block_guides\":%s}}",
			v->coverage ? "true" : "false", v->block_guides ? "true" : "false");
	}
	fputc('\n', out);
}

/* --format for a view: 0 text, 1 json, 2 json-meta, -1 unknown. */
static int view_format(const qargs *a, bool json)
{
	const char *f = opt_get(a, "format");
	if (!f)
		return json ? 1 : 0;
	return !strcmp(f, "text") ? 0 : !strcmp(f, "json") ? 1 : !strcmp(f, "json-meta") ? 2 : -1;
}

int mi_query_cmd_run(mi_query *q, int argc, char **argv, bool json, FILE *out)
{
	qargs a;
	mi_buf err = {0};
	mi_out o = {0};
	int status = 0, rc = 0;
	const qcmd *cmd = NULL;
	if (argc < 1)
		return 2;
	if (!strcmp(argv[0], "help") || !strcmp(argv[0], "--help")) {
		mi_query_cmd_help(out);
		return 0;
	}
	if (!strcmp(argv[0], "artifacts"))
		return mi_artifacts_cmd_run(q, NULL, argc, argv, json, out);
	for (size_t i = 0; i < NQCMDS; i++)
		if (!strcmp(qcmds[i].name, argv[0]))
			cmd = &qcmds[i];
	if (!cmd) {
		fprintf(stderr, "mcpidx query: unknown command '%s' (try: help)\n", argv[0]);
		return 2;
	}
	if (parse_args(argc, argv, &a, &err)) {
		fprintf(stderr, "mcpidx query %s: %s\nusage: %s %s\n", cmd->name, mi_buf_str(&err),
			cmd->name, cmd->usage);
		mi_buf_release(&err);
		return 2;
	}
	if (opt_get(&a, "json"))
		json = true;
	char cname[64];
	snprintf(cname, sizeof cname, "query %s", cmd->name);
	if (!num_opts_ok(&a, cname)) {
		status = 2;
		goto out;
	}
	if (a.npos < cmd->minpos) {
		fprintf(stderr, "mcpidx query %s: missing arguments\nusage: %s %s\n", cmd->name,
			cmd->name, cmd->usage);
		status = 2;
		goto out;
	}
	const char *name = cmd->name;
	if (!strcmp(name, "def")) {
		rc = mi_query_definition(q, a.pos[0], a.npos > 1 ? a.pos[1] : opt_get(&a, "path"), &o);
	} else if (!strcmp(name, "refs")) {
		rc = mi_query_references(q, a.pos[0], opt_get(&a, "all") ? "all" : opt_get(&a, "kind"),
					 opt_num(&a, "limit", 0), &o);
	} else if (!strcmp(name, "outline") || !strcmp(name, "expand")) {
		mi_view_opts v;
		int fmt = view_format(&a, json);
		if (view_opts(&a, &v, &err) || fmt < 0) {
			fprintf(stderr, "mcpidx query %s: %s\n", name, fmt < 0 ?
				"--format takes text, json or json-meta" : mi_buf_str(&err));
			status = 2;
			goto out;
		}
		const char *what = opt_get(&a, "what");
		mi_art_notes_t notes = {0};
		if ((name[0] == 'o' ? opt_get(&a, "summaries") != NULL :
		     !what || !strcmp(what, "docs") || !strcmp(what, "all")) &&
		    !mi_artifacts_notes(q, a.pos[0], &notes)) {
			v.line_notes = notes.v; /* stored summaries: V* summary lines */
			v.nline_notes = notes.n;
		}
		if (name[0] == 'o')
			rc = mi_query_read_file(q, a.pos[0], &v, &o);
		else
			rc = mi_query_expand(q, a.pos[0], a.pos[1], what, &v, &o);
		mi_art_notes_release(&notes);
		if (fmt == 2) {
			put_json_meta(&o, &v, out);
			status = (rc || o.is_error) ? 1 : 0;
			goto out;
		}
		json = fmt == 1;
	} else if (!strcmp(name, "search") || !strcmp(name, "docs")) {
		mi_search_opts s = {0};
		s.query = joined(&a, 0);
		s.limit = opt_num(&a, "limit", 0);
		s.path_filter = opt_get(&a, "path");
		s.extensions = opt_get(&a, "ext");
		s.format = opt_get(&a, "format");
		/* search_code: every symbol unless --filter public (--all is
		 * the default); docs: public unless --all. */
		const char *sf = opt_get(&a, "filter");
		s.all = name[0] == 's' ? !(sf && !strcmp(sf, "public")) : opt_get(&a, "all") != NULL;
		rc = name[0] == 's' ? mi_query_search(q, &s, &o) : mi_query_docs(q, &s, &o);
	} else if (!strcmp(name, "research")) {
		rc = mi_query_research(q, joined(&a, 0), (int)opt_num(&a, "depth", 2),
				       opt_get(&a, "focus"), &o);
	} else if (!strcmp(name, "pack")) {
		mi_pack_opts po = {0};
		mi_buf_reset(&a.rest);
		for (int k = 0; k < a.npos; k++) {
			if (k)
				mi_buf_addc(&a.rest, ',');
			mi_buf_adds(&a.rest, a.pos[k]);
		}
		po.target = mi_buf_str(&a.rest);
		po.budget_tokens = opt_num(&a, "budget", 0);
		po.depth = (int)opt_num(&a, "depth", 0);
		mi_diff_opts since = {.since = opt_get(&a, "since"), .parse = mi_parse_detected,
				      .detect = mi_lang_detect, .indexable = mi_build_would_index};
		if (since.since)
			po.since = &since;
		rc = mi_query_pack(q, &po, &o);
	} else if (!strcmp(name, "changed")) {
		mi_diff_opts d = {.since = opt_get(&a, "since"), .path = opt_get(&a, "path"),
				  .parse = mi_parse_detected, .detect = mi_lang_detect,
				  .indexable = mi_build_would_index};
		const char *marks = opt_get(&a, "marks");
		d.unicode = opt_get(&a, "unicode") || (marks && !strcmp(marks, "unicode"));
		rc = mi_query_changed(q, &d, &o);
	} else if (!strcmp(name, "stats")) {
		rc = mi_query_stats(q, &o);
	}
	if (json) {
		fputs(mi_buf_str(&o.json), out);
		fputc('\n', out);
	} else {
		fputs(mi_buf_str(&o.text), o.is_error ? stderr : out);
		if (o.text.len && o.text.buf[o.text.len - 1] != '\n')
			fputc('\n', o.is_error ? stderr : out);
	}
	status = (rc || o.is_error) ? 1 : 0;
	/* An empty answer (no definition, no references) is status 1 too. */
	if (!status && (!strcmp(name, "def") || !strcmp(name, "refs")) &&
	    strstr(mi_buf_str(&o.json), "\"total\":0}"))
		status = 1;
out:
	mi_out_release(&o);
	mi_buf_release(&err);
	free_args(&a);
	return status;
}

static const char query_usage[] =
	"usage: mcpidx query [INDEX] [CMD ARGS...] [--json]\n\n"
	"With CMD, answers one query and exits (status 0 answered, 1 nothing found\n"
	"or an error, 2 usage).  Without CMD, opens an interactive prompt.\n"
	"INDEX is an index dir, a packed file or a repo holding .mcpidx/\n"
	"(default: the current directory).\n\n";

int mi_cmd_query(int argc, char **argv)
{
	bool json = false;
	int first = 1;
	const char *index_arg = NULL;
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(query_usage, stdout);
		mi_query_cmd_help(stdout);
		return 0;
	}
	/* The first argument is the index unless it is a command name. */
	if (argc > 1) {
		bool is_cmd = false;
		for (int i = 0; mi_query_cmd_names[i]; i++)
			if (!strcmp(argv[1], mi_query_cmd_names[i]))
				is_cmd = true;
		if (!is_cmd && strcmp(argv[1], "--json")) {
			index_arg = argv[1];
			first = 2;
		}
	}
	/* Pull --json out wherever it is. */
	char **av = mi_xcalloc((size_t)argc + 1, sizeof(*av));
	int ac = 0;
	for (int i = first; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else
			av[ac++] = argv[i];
	}
	char *index = mi_resolve_index(index_arg);
	mi_query *q = NULL;
	mi_buf err = {0};
	int status;
	if (mi_query_open(index, &q, &err)) {
		fprintf(stderr, "mcpidx query: %s\n", mi_buf_str(&err));
		status = 1;
	} else if (ac == 0) {
		status = mi_repl_run(q, json);
	} else {
		status = mi_query_cmd_run(q, ac, av, json, stdout);
	}
	mi_query_close(q);
	mi_buf_release(&err);
	free(index);
	free(av);
	return status;
}

/* ---- mcpidx outline FILE ------------------------------------------------------------ */

int mi_cmd_outline(int argc, char **argv)
{
	qargs a;
	mi_buf err = {0};
	int status = 0;
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		FILE *f = argc < 2 ? stderr : stdout;
		fprintf(f, "usage: mcpidx outline FILE... [--mode outline|compact|full] [--filter public|all]\n"
			   "       [--line-numbers plain|zpad] [--marks unicode] [--block-guides]\n"
			   "       [--show-coverage [--lcov FILE]] [--format text|json|json-meta]\n"
			   "       [--expand SELECTOR [--what body|signature|docs|all]] [--lang NAME] [--json]\n\n"
			   "Parses each FILE on the fly and prints its folded view (no index needed).\n");
		return argc < 2 ? 2 : 0;
	}
	if (parse_args(argc, argv, &a, &err)) {
		fprintf(stderr, "mcpidx outline: %s\n", mi_buf_str(&err));
		mi_buf_release(&err);
		return 2;
	}
	mi_view_opts v;
	if (view_opts(&a, &v, &err)) {
		fprintf(stderr, "mcpidx outline: %s\n", mi_buf_str(&err));
		free_args(&a);
		mi_buf_release(&err);
		return 2;
	}
	int fmt = view_format(&a, opt_get(&a, "json") != NULL);
	bool json = fmt >= 1;
	const char *lang_name = opt_get(&a, "lang"), *expand = opt_get(&a, "expand");
	if (fmt < 0) {
		fprintf(stderr, "mcpidx outline: --format takes text, json or json-meta\n");
		free_args(&a);
		return 2;
	}
	for (int i = 0; i < a.npos; i++) {
		const char *path = a.pos[i];
		int lang = lang_name ? mi_lang_from_name(lang_name) : mi_lang_detect(path);
		if (lang == MI_LANG_NONE) {
			fprintf(stderr, "mcpidx outline: %s: unsupported language (use --lang NAME)\n", path);
			status = 1;
			continue;
		}
		char *src;
		size_t len;
		int rc = mi_read_file(path, &src, &len);
		if (rc) {
			fprintf(stderr, "mcpidx outline: cannot read %s: %s\n", path, mi_strerror(rc));
			status = 1;
			continue;
		}
		mi_parsed p;
		mi_out o = {0};
		mi_parsed_init(&p);
		rc = lang_name ? mi_parse_source(lang, src, len, &p) : mi_parse_detected(lang, src, len, &p);
		if (rc) {
			fprintf(stderr, "mcpidx outline: cannot parse %s: %s\n", path, mi_strerror(rc));
			status = 1;
		} else {
			/* coverage without --lcov: the lcov file near the source */
			char *lcov = NULL, *dir = mi_xstrdup(path), *slash = strrchr(dir, '/');
			mi_view_opts fv = v;
			if (slash)
				*slash = 0;
			if (fv.coverage && !fv.lcov_path)
				fv.lcov_path = lcov = mi_lcov_find(slash ? dir : ".", NULL);
			if (expand)
				rc = mi_render_expand(path, src, len, &p, expand, opt_get(&a, "what"), &fv, &o);
			else
				rc = mi_render_view(path, src, len, &p, &fv, &o);
			free(lcov);
			free(dir);
			if (a.npos > 1 && !json)
				printf("== %s\n", path);
			const mi_buf *b = json ? &o.json : &o.text;
			if (fmt == 2) {
				put_json_meta(&o, &v, stdout);
			} else {
				fputs(mi_buf_str(b), o.is_error ? stderr : stdout);
				if (b->len && b->buf[b->len - 1] != '\n')
					fputc('\n', o.is_error ? stderr : stdout);
			}
			if (rc || o.is_error)
				status = 1;
		}
		mi_out_release(&o);
		mi_parsed_release(&p);
		free(src);
	}
	free_args(&a);
	mi_buf_release(&err);
	return status;
}

/* ---- mcpidx context TARGET (seed 000's `simple context app.service --format=mcp`) ---- */

int mi_cmd_context(int argc, char **argv)
{
	qargs a;
	mi_buf err = {0};
	mi_out o = {0};
	int status = 0;
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		FILE *f = argc < 2 ? stderr : stdout;
		fprintf(f, "usage: mcpidx context TARGET... [--budget N] [--depth 1|2] [--index INDEX]\n"
			   "       [--format mcp|json]\n\n"
			   "The context pack of TARGET (a symbol, Parent.symbol or repo-relative file;\n"
			   "several: separate arguments or commas): the target expanded, what it uses\n"
			   "folded, its callers, within N tokens (default 4000).  Same as\n"
			   "`mcpidx query INDEX pack`.  INDEX defaults to the current directory's.\n");
		return argc < 2 ? 2 : 0;
	}
	if (parse_args(argc, argv, &a, &err)) {
		fprintf(stderr, "mcpidx context: %s\n", mi_buf_str(&err));
		mi_buf_release(&err);
		return 2;
	}
	const char *fmt = opt_get(&a, "format");
	bool json = opt_get(&a, "json") || (fmt && !strcmp(fmt, "json"));
	if (fmt && strcmp(fmt, "mcp") && strcmp(fmt, "json") && strcmp(fmt, "text")) {
		fprintf(stderr, "mcpidx context: --format takes mcp or json, not '%s'\n", fmt);
		free_args(&a);
		return 2;
	}
	if (!num_opts_ok(&a, "context")) {
		free_args(&a);
		return 2;
	}
	if (!a.npos) {
		fprintf(stderr, "mcpidx context: missing TARGET\n");
		free_args(&a);
		return 2;
	}
	char *index = mi_resolve_index(opt_get(&a, "index"));
	mi_query *q = NULL;
	if (mi_query_open(index, &q, &err)) {
		fprintf(stderr, "mcpidx context: %s\n", mi_buf_str(&err));
		status = 1;
	} else {
		mi_pack_opts po = {0};
		for (int k = 0; k < a.npos; k++) {
			if (k)
				mi_buf_addc(&a.rest, ',');
			mi_buf_adds(&a.rest, a.pos[k]);
		}
		po.target = mi_buf_str(&a.rest);
		po.budget_tokens = opt_num(&a, "budget", 0);
		po.depth = (int)opt_num(&a, "depth", 0);
		int rc = mi_query_pack(q, &po, &o);
		const mi_buf *out = json ? &o.json : &o.text;
		fputs(mi_buf_str(out), o.is_error && !json ? stderr : stdout);
		if (json)
			fputc('\n', stdout);
		status = rc || o.is_error ? 1 : 0;
	}
	mi_query_close(q);
	mi_out_release(&o);
	mi_buf_release(&err);
	free(index);
	free_args(&a);
	return status;
}
