/*
 * lookup.c - in-process latency of the index lookups (SPEC 4): read_file
 * outline, expand_at, goto_definition and search_code over random files and
 * symbols of an index, warm, with the arguments bench-mcp passes (expand_at
 * what=body, find_references calls with limit 50).  Prints p50/p99/max
 * per operation; MI_BENCH_VERBOSE=1 adds the five slowest calls of each.
 *
 *	lookup INDEX [SAMPLES]
 *		MI_BENCH_PAUSE=SECS: the measured pass SECS after the warm one;
 *		MI_BENCH_LOCK=1: the map locked (serve --lock-memory); both
 *		passes take the same sample, major faults are counted per op
 *	lookup INDEX SAMPLES OP NAME [PATH]   one call SAMPLES times (for a profiler)
 *		OP: def, refs, expand (PATH needed), read (NAME is the path);
 *		NAME @FILE: each name of FILE (one a line) in turn, SAMPLES rounds
 */
#include "../../query/query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The slowest calls of an operation, shown with MI_BENCH_VERBOSE. */
typedef struct slow {
	double us;
	const char *name, *path;
} slow;
static slow slowest[5];

static void note(double us, const char *name, const char *path)
{
	size_t i = 5;
	while (i && slowest[i - 1].us < us) {
		if (i < 5)
			slowest[i] = slowest[i - 1];
		i--;
	}
	if (i < 5)
		slowest[i] = (slow){us, name, path};
}

static void report(const char *what, double *t, size_t n)
{
	qsort(t, n, sizeof(*t), cmp_d);
	if (getenv("MI_BENCH_VERBOSE"))
		for (size_t i = 0; i < 5 && slowest[i].name; i++)
			printf("  slow %s: %s %s (%.0f us)\n", what, slowest[i].name,
			       slowest[i].path ? slowest[i].path : "", slowest[i].us);
	memset(slowest, 0, sizeof(slowest));
	printf("%-16s n=%-5zu p50 %8.1f us   p99 %8.1f us   max %8.1f us\n", what, n,
	       t[n / 2], t[(size_t)(n * 0.99)], t[n - 1]);
}

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: lookup INDEX [SAMPLES]\n");
		return 2;
	}
	size_t samples = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000;
	mi_query *q;
	mi_buf err = {0};
	/* MI_BENCH_LOCK=1: the map locked as `serve --lock-memory` locks it */
	if (getenv("MI_BENCH_LOCK"))
		mi_store_memlock(true);
	if (mi_query_open(argv[1], &q, &err)) {
		fprintf(stderr, "%s\n", err.buf);
		return 1;
	}
	if (argc > 4) {
		const char *op = argv[3], *name = argv[4], *path = argc > 5 ? argv[5] : NULL;
		/* @FILE: the names of FILE, one a line, SAMPLES rounds of them */
		char **list = NULL;
		size_t nlist = 0;
		if (name[0] == '@') {
			FILE *f = fopen(name + 1, "r");
			char line[512];
			while (f && fgets(line, sizeof(line), f)) {
				line[strcspn(line, "\r\n")] = 0;
				if (!*line)
					continue;
				list = realloc(list, (nlist + 1) * sizeof(*list));
				list[nlist++] = mi_xstrdup(line);
			}
			if (f)
				fclose(f);
			if (!nlist) {
				fprintf(stderr, "lookup: no names in %s\n", name + 1);
				return 2;
			}
			samples *= nlist;
		}
		double *tm = malloc(samples * sizeof(*tm));
		mi_out o = {0};
		mi_view_opts vo = {0};
		for (size_t i = 0; i < samples; i++) {
			if (nlist)
				name = list[i % nlist];
			double t0 = now_us();
			if (!strcmp(op, "def"))
				mi_query_definition(q, name, path, &o);
			else if (!strcmp(op, "refs"))
				mi_query_references(q, name, "calls", 50, &o);
			else if (!strcmp(op, "expand"))
				mi_query_expand(q, path, name, "body", &vo, &o);
			else
				mi_query_read_file(q, name, &vo, &o);
			tm[i] = now_us() - t0;
			note(tm[i], name, path);
		}
		report(op, tm, samples);
		for (size_t i = 0; i < nlist; i++)
			free(list[i]);
		free(list);
		mi_out_release(&o);
		free(tm);
		mi_query_close(q);
		return 0;
	}
	/* Collect the paths and (name, path) pairs. */
	char **paths = NULL, **names = NULL, **npaths = NULL;
	size_t np = 0, nn = 0;
	mi_txn *t;
	mi_cursor *c;
	const void *k, *v;
	size_t kl, vl;
	mi_txn_begin(mi_query_store(q), false, &t);
	mi_cursor_open(t, MI_DB_FILES, &c);
	for (int r = mi_cursor_seek(c, NULL, 0, &k, &kl, &v, &vl); !r;
	     r = mi_cursor_next(c, &k, &kl, &v, &vl)) {
		paths = realloc(paths, (np + 1) * sizeof(*paths));
		paths[np++] = mi_xstrndup(k, kl);
	}
	mi_cursor_close(c);
	mi_cursor_open(t, MI_DB_NAMES, &c);
	for (int r = mi_cursor_seek(c, NULL, 0, &k, &kl, &v, &vl); !r;
	     r = mi_cursor_next(c, &k, &kl, &v, &vl)) {
		mi_byname it;
		const char *fp;
		size_t fl;
		uint32_t idx;
		/* One (name, file) entry in 50, as when each was a key. */
		mi_byname_entry(t, false, k, kl, v, vl, &it);
		it.nopath = true;
		while (!mi_names_next(&it, &fp, &fl, &idx)) {
			const void *pv;
			size_t pvl;
			uint8_t fk[4];
			if (next_rand() % 50)
				continue;
			mi_be32(fk, it.fid);
			if (mi_get(t, MI_DB_FILEIDS, fk, 4, &pv, &pvl))
				continue;
			names = realloc(names, (nn + 1) * sizeof(*names));
			npaths = realloc(npaths, (nn + 1) * sizeof(*npaths));
			names[nn] = mi_xstrdup(it.name);
			npaths[nn++] = mi_xstrndup(pv, pvl);
		}
		mi_byname_close(&it);
	}
	mi_cursor_close(c);
	mi_txn_abort(t);
	if (!np || !nn) {
		fprintf(stderr, "empty index\n");
		return 1;
	}
	double *tm = malloc(samples * sizeof(*tm));
	mi_out o = {0};
	mi_view_opts vo = {0};
	/* The sample: read_file's paths, then one (name, path) per call of
	 * the other four operations. */
	size_t *pick = malloc(samples * 5 * sizeof(*pick));
	for (size_t i = 0; i < samples; i++)
		pick[i] = next_rand() % np;
	for (size_t i = samples; i < samples * 5; i++)
		pick[i] = next_rand() % nn;
	static const char *const ops[] = {"read_file", "expand_at", "goto_definition",
					  "find_references", "search_code id"};
	const char *pause_env = getenv("MI_BENCH_PAUSE");
	unsigned pause = pause_env ? (unsigned)atoi(pause_env) : 0;
	printf("index %s: %zu files, %zu sampled symbols, %zu samples each, %s%s\n",
	       argv[1], np, nn, samples, pause_env ? "second pass after a pause" : "warm",
	       getenv("MI_BENCH_LOCK") ? ", map locked" : "");
	/* Pass 0 warms the map; pass 1 is measured (after MI_BENCH_PAUSE
	 * seconds, in which a host reclaiming cold memory may page it out). */
	for (int pass = 0; pass < 2; pass++) {
		if (pass && pause)
			sleep(pause);
		for (int op = 0; op < 5; op++) {
			struct rusage r0, r1;
			getrusage(RUSAGE_SELF, &r0);
			for (size_t i = 0; i < samples; i++) {
				size_t j = pick[op * samples + i];
				double t0 = now_us();
				if (op == 0) {
					mi_query_read_file(q, paths[j], &vo, &o);
				} else if (op == 1) {
					mi_query_expand(q, npaths[j], names[j], "body", &vo, &o);
				} else if (op == 2) {
					mi_query_definition(q, names[j], NULL, &o);
				} else if (op == 3) {
					mi_query_references(q, names[j], "calls", 50, &o);
				} else {
					mi_search_opts so = {.query = names[j], .limit = 20};
					mi_query_search(q, &so, &o);
				}
				tm[i] = now_us() - t0;
				if (pass)
					note(tm[i], op ? names[j] : paths[j], op == 1 ? npaths[j] : NULL);
			}
			getrusage(RUSAGE_SELF, &r1);
			if (pass) {
				report(ops[op], tm, samples);
				printf("  %s: %ld major faults\n", ops[op], r1.ru_majflt - r0.ru_majflt);
			}
		}
	}
	free(pick);
	free(tm);
	mi_out_release(&o);
	mi_query_close(q);
	return 0;
}
