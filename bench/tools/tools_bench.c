/*
 * tools_bench.c - find_tools over real MCP catalogs: recall@5 of the query
 * set by slice and half (with and without aliases), latency p50/p99 over
 * the real catalogs and a 10,000-tool catalog, private memory, and the
 * tokens a task costs with find_tools + describe_tools against sending every
 * schema.  bench/tools/run.sh prints these beside SQLite FTS5 (fts5.py).
 *
 *   tools_bench build CATALOG_DIR ALIASES.json OUT_DIR   indexes real + 10k
 *   tools_bench eval INDEX QUERIES [--no-aliases] [--tune]  recall table
 *   tools_bench time INDEX QUERIES REPS                  latency + RssAnon
 *   tools_bench tokens INDEX QUERIES CATALOG_DIR         token figures
 *   tools_bench texts CATALOG_DIR                        tool texts for FTS5 (TSV)
 */
#include "../../format/format.h"
#include "../../indexer/indexer.h"
#include "../../query/query.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TARGET_TOOLS 10000

/* ---- catalogs ------------------------------------------------------------------ */

typedef struct cat {
	char *server;
	json_t *root;      /* the file */
	json_t *tools;     /* borrowed from root */
} cat;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t load_catalogs(const char *dir, cat **out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	if (!d) {
		perror(dir);
		exit(2);
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 6 || strcmp(e->d_name + l - 5, ".json"))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			names = realloc(names, cap * sizeof(*names));
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	*out = calloc(n + 1, sizeof(**out));
	for (size_t i = 0; i < n; i++) {
		char p[4096];
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		json_t *r = json_load_file(p, 0, NULL);
		if (!r) {
			fprintf(stderr, "cannot read %s\n", p);
			exit(2);
		}
		(*out)[i].root = r;
		(*out)[i].server = strdup(json_string_value(json_object_get(r, "server")));
		(*out)[i].tools = json_object_get(r, "tools");
		free(names[i]);
	}
	free(names);
	return n;
}

static char *dump(json_t *v)
{
	return v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
}

static const char *str(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Writes catalogs replicated `copies` times (servers renamed NAME-k after
 * the first), at most max tools, with aliases (may be NULL) into dir. */
static void write_index(cat *c, size_t nc, int copies, size_t max, json_t *aliases,
			const char *dir)
{
	size_t ns = nc * (size_t)copies, total = 0;
	mi_catalog_server *srv = calloc(ns, sizeof(*srv));
	char **keep = calloc(ns * 400 * 6 + 1, sizeof(char *));
	size_t nkeep = 0, k = 0;
	for (int r = 0; r < copies && total < max; r++)
		for (size_t i = 0; i < nc && total < max; i++) {
			mi_catalog_server *s = &srv[k++];
			char name[128];
			if (r)
				snprintf(name, sizeof(name), "%s-%d", c[i].server, r);
			else
				snprintf(name, sizeof(name), "%s", c[i].server);
			s->name = keep[nkeep++] = strdup(name);
			s->transport = "stdio";
			s->protocol = "2025-06-18";
			s->info = keep[nkeep++] = dump(json_object_get(c[i].root, "serverInfo"));
			s->instructions = str(c[i].root, "instructions");
			size_t nt = json_array_size(c[i].tools), j;
			mi_catalog_tool *t = calloc(nt + 1, sizeof(*t));
			json_t *x;
			json_array_foreach(c[i].tools, j, x) {
				if (total >= max)
					break;
				t[s->ntools].name = str(x, "name");
				t[s->ntools].title = str(x, "title");
				t[s->ntools].description = str(x, "description");
				t[s->ntools].input_schema = keep[nkeep++] = dump(json_object_get(x, "inputSchema"));
				t[s->ntools].output_schema = keep[nkeep++] = dump(json_object_get(x, "outputSchema"));
				t[s->ntools].annotations = keep[nkeep++] = dump(json_object_get(x, "annotations"));
				char full[256];
				snprintf(full, sizeof(full), "%s/%s", c[i].server, str(x, "name"));
				json_t *al = aliases ? json_object_get(aliases, full) : NULL;
				if (json_is_array(al)) {
					size_t a, na = json_array_size(al);
					const char **v = calloc(na + 1, sizeof(*v));
					json_t *y;
					json_array_foreach(al, a, y) v[a] = json_string_value(y);
					t[s->ntools].aliases = v;
					t[s->ntools].naliases = na;
				}
				s->ntools++;
				total++;
			}
			s->tools = t;
		}
	mi_catalog_opts o = {.out_dir = dir};
	mi_catalog_stats st;
	mi_buf err = {0};
	if (mi_catalog_write(&o, srv, k, &st, &err)) {
		fprintf(stderr, "write %s: %s\n", dir, err.buf);
		exit(1);
	}
	printf("indexed %zu tools of %zu servers into %s (%.3fs)\n", st.tools, st.servers, dir,
	       st.write_seconds);
	for (size_t i = 0; i < k; i++) {
		for (size_t j = 0; j < srv[i].ntools; j++)
			free((void *)srv[i].tools[j].aliases);
		free((void *)srv[i].tools);
	}
	for (size_t i = 0; i < nkeep; i++)
		free(keep[i]);
	free(keep);
	free(srv);
	mi_buf_release(&err);
}

/* ---- the query set ---------------------------------------------------------------- */

#define MAXG 6
typedef struct task {
	char *query;
	char *groups[MAXG];   /* "a|b" */
	int ng;
	bool same, para, reword, multi;
	int half;             /* 0 tune (odd lines), 1 test */
} task;

static size_t load_set(const char *path, task *out, size_t n)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	size_t first = n;
	if (!f) {
		perror(path);
		exit(2);
	}
	while (fgets(line, sizeof(line), f) && n < 1024) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		line[strcspn(line, "\n")] = 0;
		char *sv = NULL, *sl = strtok_r(line, "\t", &sv), *ex = strtok_r(NULL, "\t", &sv),
		     *q = strtok_r(NULL, "\t", &sv);
		if (!sl || !ex || !q)
			continue;
		task *t = &out[n];
		t->query = strdup(q);
		t->same = strstr(sl, "same") != NULL;
		t->para = strstr(sl, "para") != NULL;
		t->reword = strstr(sl, "reword") != NULL;
		t->multi = strstr(sl, "multi") != NULL;
		t->half = (int)((n - first) % 2);
		for (char *g = strtok_r(ex, " ", &sv); g && t->ng < MAXG; g = strtok_r(NULL, " ", &sv))
			t->groups[t->ng++] = strdup(g);
		n++;
	}
	fclose(f);
	return n;
}

/* Loads the tasks of one query set, or of several joined by ',' (each
 * numbered from its own first line, so each keeps its own halves). */
static size_t load_tasks(const char *paths, task **out)
{
	char *list = strdup(paths), *save = NULL;
	size_t n = 0;
	*out = calloc(1024, sizeof(**out));
	for (char *path = strtok_r(list, ",", &save); path; path = strtok_r(NULL, ",", &save))
		n = load_set(path, *out, n);
	free(list);
	return n;
}

static bool in_group(const char *group, const char *name, size_t nl)
{
	const char *p = group;
	while (*p) {
		size_t l = strcspn(p, "|");
		if (l == nl && !memcmp(p, name, nl))
			return true;
		p += l;
		if (*p == '|')
			p++;
	}
	return false;
}

/* recall@5 of one task from a find_tools JSON answer (its first 5 names);
 * *rr gets the mean over the task's groups of 1/rank of the group's first
 * tool in the whole answer (0 when absent): the tie-break of tuning. */
static double recall(const task *t, const char *json, double *rr)
{
	int found = 0;
	double sum = 0;
	for (int g = 0; g < t->ng; g++) {
		const char *p = json;
		for (int rank = 1; (p = strstr(p, "{\"name\":\"")); rank++) {
			p += 9;
			size_t l = strcspn(p, "\"");
			if (in_group(t->groups[g], p, l)) {
				found += rank <= 5;
				sum += 1.0 / rank;
				break;
			}
			p += l;
		}
	}
	if (rr)
		*rr = sum / t->ng;
	return (double)found / t->ng;
}

enum { S_ALL, S_SAME, S_PARA, S_REWORD, S_MULTI, S__N };
static const char *const slice_names[S__N] = {"all", "same-name", "paraphrase", "reworded",
					      "multi-tool"};

static bool in_slice(const task *t, int s)
{
	return s == S_ALL || (s == S_SAME && t->same) || (s == S_PARA && t->para) ||
	       (s == S_REWORD && t->reword) || (s == S_MULTI && t->multi);
}

typedef struct score {
	double sum[S__N][2];
	double rr[S__N][2];   /* reciprocal ranks, within the first 10 */
	int n[S__N][2];
} score;

static bool expand;

static void evaluate(mi_query *q, task *ts, size_t nt, const mi_tool_bm25 *P, bool no_alias,
		     score *sc, bool verbose)
{
	memset(sc, 0, sizeof(*sc));
	for (size_t i = 0; i < nt; i++) {
		/* recall@5 from what find_tools shows at its default limit (the
		 * order of the first five may depend on it), MRR@10 at 10 */
		mi_out out = {0};
		mi_tools_opts o = {.query = ts[i].query, .limit = 10, .params = P, .no_aliases = no_alias,
				   .expand = expand};
		double rr, r;
		mi_query_find_tools(q, &o, &out);
		recall(&ts[i], mi_buf_str(&out.json), &rr);
		o.limit = 5;
		mi_query_find_tools(q, &o, &out);
		r = recall(&ts[i], mi_buf_str(&out.json), NULL);
		if (verbose && r < 1 && (ts[i].half == 0 || getenv("VERBOSE_TEST"))) {
			/* the task, what it needs, the names it got */
			const char *p = mi_buf_str(&out.json);
			printf("  miss %.2f [%zu] %s | want", r, i + 1, ts[i].query);
			for (int g = 0; g < ts[i].ng; g++)
				printf(" %s", ts[i].groups[g]);
			printf(" | got");
			for (int k = 0; k < 5 && (p = strstr(p, "{\"name\":\"")); k++) {
				p += 9;
				printf(" %.*s", (int)strcspn(p, "\""), p);
			}
			printf("\n");
		}
		for (int s = 0; s < S__N; s++)
			if (in_slice(&ts[i], s)) {
				sc->sum[s][ts[i].half] += r;
				sc->rr[s][ts[i].half] += rr;
				sc->n[s][ts[i].half]++;
			}
		mi_out_release(&out);
	}
}

static double mean(const score *sc, int s, int h)
{
	if (h < 0) {
		int n = sc->n[s][0] + sc->n[s][1];
		return n ? (sc->sum[s][0] + sc->sum[s][1]) / n : 0;
	}
	return sc->n[s][h] ? sc->sum[s][h] / sc->n[s][h] : 0;
}

static void print_scores(const char *label, const score *sc)
{
	for (int s = 0; s < S__N; s++)
		if (sc->n[s][0] + sc->n[s][1])
		printf("%-12s %-11s recall@5 tune %.3f (n=%d)  test %.3f (n=%d)  both %.3f"
		       "  | MRR@10 tune %.3f test %.3f\n", label,
		       slice_names[s], mean(sc, s, 0), sc->n[s][0], mean(sc, s, 1), sc->n[s][1],
		       mean(sc, s, -1), sc->n[s][0] ? sc->rr[s][0] / sc->n[s][0] : 0,
		       sc->n[s][1] ? sc->rr[s][1] / sc->n[s][1] : 0);
}

/* The tuning objective: recall@5 of the tuning half, then its MRR@10 (the
 * tuning half's recall@5 is nearly saturated outside the paraphrases, so
 * ranks decide between settings it cannot tell apart). */
static double objective(const score *sc)
{
	return mean(sc, S_ALL, 0) + 0.01 * (sc->n[S_ALL][0] ? sc->rr[S_ALL][0] / sc->n[S_ALL][0] : 0);
}

static void print_params(const char *label, const mi_tool_bm25 *P)
{
	printf("%s k1 %.2f  w", label, P->k1);
	for (int f = 0; f < MI_TF__COUNT; f++)
		printf(" %.2f", P->w[f]);
	printf("  b");
	for (int f = 0; f < MI_TF__COUNT; f++)
		printf(" %.2f", P->b[f]);
	printf("  name_cover %.2f  diverse %.2f\n", P->name_cover, P->diverse);
}

/* Coordinate search of every parameter on the tuning half, from P. */
static void tune(mi_query *q, task *ts, size_t nt, mi_tool_bm25 P)
{
	static const float wv[] = {0.0f, 0.3f, 0.5f, 0.8f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
	static const float nv[] = {1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
	static const float bv[] = {0.0f, 0.2f, 0.3f, 0.5f, 0.6f, 0.75f, 0.9f, 1.0f};
	static const float kv[] = {0.5f, 0.8f, 1.0f, 1.2f, 1.5f, 2.0f, 3.0f};
	static const float cv[] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
	static const float dv[] = {0.0f, 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.8f};
	mi_tool_bm25 best = P;
	score sc;
	double bestv;
	evaluate(q, ts, nt, &P, true, &sc, false);
	bestv = objective(&sc);
	printf("tune from %.4f\n", bestv);
#define TRY(field, vals)                                                   \
	for (size_t v = 0; v < sizeof(vals) / sizeof(vals[0]); v++) {      \
		P = best;                                                  \
		field = vals[v];                                           \
		evaluate(q, ts, nt, &P, true, &sc, false);                 \
		if (objective(&sc) > bestv + 1e-9) {                       \
			bestv = objective(&sc);                            \
			best = P;                                          \
		}                                                          \
	}
	for (int round = 0; round < 3; round++) {
		for (int f = 0; f < MI_TF__COUNT; f++) {
			if (f == MI_TF_ALIAS)
				continue;
			/* the name says what a tool is: never below the description */
			if (f == MI_TF_NAME)
				TRY(P.w[f], nv)
			else
				TRY(P.w[f], wv)
			TRY(P.b[f], bv)
		}
		TRY(P.k1, kv)
		TRY(P.name_cover, cv)
		TRY(P.diverse, dv)
	}
#undef TRY
	printf("tuned on the tuning half (no aliases), objective %.4f:\n", bestv);
	print_params("tuned", &best);
	evaluate(q, ts, nt, &best, true, &sc, false);
	print_scores("tuned", &sc);
}

/* ---- paraphrase check -------------------------------------------------------------- */

typedef struct termset {
	char **t;
	size_t n;
} termset;

static void add_term(void *ctx, const char *term, size_t len)
{
	termset *s = ctx;
	s->t = realloc(s->t, (s->n + 1) * sizeof(*s->t));
	s->t[s->n++] = strndup(term, len);
}

static void check_paraphrases(cat *c, size_t nc, task *ts, size_t nt)
{
	mi_tok *tk;
	int bad = 0;
	mi_tok_new(&tk);
	for (size_t i = 0; i < nt; i++) {
		if (!ts[i].para && !ts[i].reword)
			continue;
		termset qs = {0};
		mi_tok_run(tk, ts[i].query, strlen(ts[i].query), 0, add_term, &qs);
		for (int g = 0; g < ts[i].ng; g++) {
			const char *full = ts[i].groups[g];
			for (size_t k = 0; k < nc; k++) {
				size_t sl = strlen(c[k].server), j;
				json_t *x;
				if (strncmp(full, c[k].server, sl) || full[sl] != '/')
					continue;
				json_array_foreach(c[k].tools, j, x) {
					if (strcmp(str(x, "name"), full + sl + 1))
						continue;
					termset ws = {0};
					mi_buf b = {0}, pn = {0}, pd = {0};
					char *in = dump(json_object_get(x, "inputSchema"));
					mi_tool_params(in, &pn, &pd);
					/* para: no word of the tool's text; reword: no
					 * word of its server, name or title */
					mi_buf_addf(&b, "%s\n%s\n%s", c[k].server, str(x, "name"),
						    str(x, "title") ? str(x, "title") : "");
					if (ts[i].para)
						mi_buf_addf(&b, "\n%s\n%s\n%s",
							    str(x, "description") ? str(x, "description") : "",
							    mi_buf_str(&pn), mi_buf_str(&pd));
					mi_tok_run(tk, b.buf, b.len, 0, add_term, &ws);
					for (size_t a = 0; a < qs.n; a++)
						for (size_t w = 0; w < ws.n; w++)
							if (!strcmp(qs.t[a], ws.t[w])) {
								printf("%s [%zu] shares '%s' with %s\n",
								       ts[i].para ? "paraphrase" : "reworded",
								       i + 1, qs.t[a], full);
								bad++;
								w = ws.n;
							}
					for (size_t w = 0; w < ws.n; w++)
						free(ws.t[w]);
					free(ws.t);
					free(in);
					mi_buf_release(&b);
					mi_buf_release(&pn);
					mi_buf_release(&pd);
				}
			}
		}
		for (size_t a = 0; a < qs.n; a++)
			free(qs.t[a]);
		free(qs.t);
	}
	printf("paraphrase/reworded check: %d shared terms\n", bad);
	mi_tok_free(tk);
}

/* Every tool an expected group names must exist: a typo would make a task
 * unanswerable and lower every ranker's recall alike.  Returns the count. */
static int check_names(cat *c, size_t nc, task *ts, size_t nt)
{
	int bad = 0;
	for (size_t i = 0; i < nt; i++)
		for (int g = 0; g < ts[i].ng; g++)
			for (const char *p = ts[i].groups[g]; *p;) {
				size_t l = strcspn(p, "|");
				bool found = false;
				for (size_t k = 0; k < nc && !found; k++) {
					size_t sl = strlen(c[k].server), j;
					json_t *x;
					if (l <= sl + 1 || strncmp(p, c[k].server, sl) || p[sl] != '/')
						continue;
					json_array_foreach(c[k].tools, j, x)
						if (strlen(str(x, "name")) == l - sl - 1 &&
						    !memcmp(str(x, "name"), p + sl + 1, l - sl - 1))
							found = true;
				}
				if (!found) {
					printf("task [%zu] expects unknown tool '%.*s'\n", i + 1, (int)l, p);
					bad++;
				}
				p += l;
				if (*p == '|')
					p++;
			}
	printf("name check: %d unknown tools\n", bad);
	return bad;
}

/* ---- timing ------------------------------------------------------------------------- */

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long rss_anon_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "RssAnon:", 8))
			v = atol(line + 8);
	if (f)
		fclose(f);
	return v;
}

static mi_query *open_index(const char *path)
{
	mi_query *q;
	mi_buf err = {0};
	if (mi_query_open(path, &q, &err)) {
		fprintf(stderr, "%s\n", err.buf);
		exit(1);
	}
	mi_buf_release(&err);
	return q;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "build")) {
		cat *c;
		size_t nc = load_catalogs(argv[2], &c), ntools = 0;
		json_t *aliases = json_load_file(argv[3], 0, NULL);
		char dir[4096];
		for (size_t i = 0; i < nc; i++)
			ntools += json_array_size(c[i].tools);
		snprintf(dir, sizeof(dir), "%s/real", argv[4]);
		write_index(c, nc, 1, (size_t)-1, NULL, dir);
		snprintf(dir, sizeof(dir), "%s/real-aliases", argv[4]);
		write_index(c, nc, 1, (size_t)-1, aliases, dir);
		snprintf(dir, sizeof(dir), "%s/10k", argv[4]);
		write_index(c, nc, (int)(TARGET_TOOLS / (ntools ? ntools : 1)) + 1, TARGET_TOOLS, NULL, dir);
		json_decref(aliases);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "eval")) {
		task *ts;
		size_t nt = load_tasks(argv[3], &ts);
		bool no_alias = argc > 4 && !strcmp(argv[4], "--no-aliases");
		bool do_tune = argc > 4 && !strcmp(argv[argc - 1], "--tune");
		bool verbose = getenv("VERBOSE") != NULL;
		mi_query *q = open_index(argv[2]);
		score sc;
		mi_tool_bm25 PP = mi_tool_bm25_params;
		if (getenv("FIELD_W")) {    /* to measure a field: FIELD_W=7:0 (initials off) */
			int f = atoi(getenv("FIELD_W"));
			const char *c = strchr(getenv("FIELD_W"), ':');
			if (f >= 0 && f < MI_TF__COUNT && c)
				PP.w[f] = (float)atof(c + 1);
		}
		if (getenv("DIVERSE"))      /* to measure it: DIVERSE=0.3 */
			PP.diverse = (float)atof(getenv("DIVERSE"));
		if (getenv("NAME_COVER"))   /* to measure it: NAME_COVER=0 */
			PP.name_cover = (float)atof(getenv("NAME_COVER"));
		if (getenv("SERVER_SLOT"))  /* to measure it: SERVER_SLOT=0 */
			PP.server_slot = atoi(getenv("SERVER_SLOT")) != 0;
		evaluate(q, ts, nt, &PP, no_alias, &sc, verbose);
		print_scores(no_alias ? "mcpidx" : "mcpidx+alias", &sc);
		if (no_alias) {
			expand = true;
			evaluate(q, ts, nt, NULL, no_alias, &sc, false);
			print_scores("mcpidx+expand", &sc);
			expand = false;
		}
		if (do_tune)
			tune(q, ts, nt, PP);
		mi_query_close(q);
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[1], "time")) {
		task *ts;
		size_t nt = load_tasks(argv[3], &ts);
		int reps = atoi(argv[4]);
		mi_query *q = open_index(argv[2]);
		long long *lat = calloc(nt * (size_t)reps, sizeof(*lat));
		long long *cpu = calloc(nt * (size_t)reps, sizeof(*cpu));
		size_t n = 0;
		mi_out out = {0};
		for (size_t i = 0; i < nt; i++) {  /* warm */
			mi_tools_opts o = {.query = ts[i].query, .limit = 5};
			mi_query_find_tools(q, &o, &out);
		}
		for (int r = 0; r < reps; r++)
			for (size_t i = 0; i < nt; i++) {
				mi_tools_opts o = {.query = ts[i].query, .limit = 5};
				long long t0 = now_ns(), c0 = cpu_ns();
				mi_query_find_tools(q, &o, &out);
				cpu[n] = cpu_ns() - c0;
				lat[n++] = now_ns() - t0;
			}
		qsort(lat, n, sizeof(*lat), cmp_ll);
		qsort(cpu, n, sizeof(*cpu), cmp_ll);
		printf("find_tools %s: %zu calls  wall p50 %.1f us  p99 %.1f us  max %.1f us | "
		       "cpu p50 %.1f us  p99 %.1f us | RssAnon %ld kB\n",
		       argv[2], n, lat[n / 2] / 1e3, lat[n * 99 / 100] / 1e3, lat[n - 1] / 1e3,
		       cpu[n / 2] / 1e3, cpu[n * 99 / 100] / 1e3, rss_anon_kb());
		mi_out_release(&out);
		mi_query_close(q);
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[1], "tokens")) {
		task *ts;
		size_t nt = load_tasks(argv[3], &ts);
		cat *c;
		size_t nc = load_catalogs(argv[4], &c);
		mi_query *q = open_index(argv[2]);
		json_t *all = json_array();
		for (size_t i = 0; i < nc; i++)
			json_array_extend(all, c[i].tools);
		char *allj = json_dumps(all, JSON_COMPACT);
		size_t all_tok = mi_token_estimate(allj, strlen(allj)), sum = 0, sum_find = 0;
		for (size_t i = 0; i < nt; i++) {
			mi_out out = {0};
			mi_tools_opts o = {.query = ts[i].query, .limit = 5};
			mi_query_find_tools(q, &o, &out);
			size_t tf = mi_token_estimate(out.text.buf, out.text.len);
			const char *names[MAXG];
			char *first[MAXG];
			for (int g = 0; g < ts[i].ng; g++) {
				first[g] = strndup(ts[i].groups[g], strcspn(ts[i].groups[g], "|"));
				names[g] = first[g];
			}
			mi_query_describe_tools(q, names, (size_t)ts[i].ng, MI_TOOL_L2, NULL, &out);
			size_t td = mi_token_estimate(out.text.buf, out.text.len);
			sum += tf + td;
			sum_find += tf;
			for (int g = 0; g < ts[i].ng; g++)
				free(first[g]);
			mi_out_release(&out);
		}
		printf("tokens per task: find_tools %.0f + describe_tools L2 %.0f = %.0f; every schema "
		       "(tools/list of %zu tools): %zu (%.1fx)\n", (double)sum_find / nt,
		       (double)(sum - sum_find) / nt, (double)sum / nt, json_array_size(all), all_tok,
		       (double)all_tok / ((double)sum / nt));
		free(allj);
		json_decref(all);
		mi_query_close(q);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "texts")) {
		/* One line per tool for the FTS5 peer: name, title, description,
		 * parameter names and descriptions, server; tabs and newlines out. */
		cat *c;
		size_t nc = load_catalogs(argv[2], &c);
		for (size_t k = 0; k < nc; k++) {
			size_t j;
			json_t *x;
			json_array_foreach(c[k].tools, j, x) {
				mi_buf pn = {0}, pd = {0}, line = {0};
				char *in = dump(json_object_get(x, "inputSchema"));
				mi_tool_params(in, &pn, &pd);
				mi_buf_addf(&line, "%s/%s\t%s\t%s\t%s\t%s\t%s", c[k].server, str(x, "name"),
					    str(x, "title") ? str(x, "title") : "",
					    str(x, "description") ? str(x, "description") : "",
					    mi_buf_str(&pn), mi_buf_str(&pd), c[k].server);
				for (size_t i = 0; i < line.len; i++)
					if (line.buf[i] == '\n' || line.buf[i] == '\r')
						line.buf[i] = ' ';
				puts(line.buf);
				mi_buf_release(&pn);
				mi_buf_release(&pd);
				mi_buf_release(&line);
				free(in);
			}
		}
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "check")) {
		cat *c;
		task *ts;
		size_t nc = load_catalogs(argv[2], &c), nt = load_tasks(argv[3], &ts);
		check_paraphrases(c, nc, ts, nt);
		return check_names(c, nc, ts, nt) ? 1 : 0;
	}
	fprintf(stderr, "usage: tools_bench build|eval|time|tokens|texts|check ...\n");
	return 2;
}
