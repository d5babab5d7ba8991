/*
 * views.c - bench driver for `make bench-tokens`: folds every file of a
 * corpus in-process and writes one JSON line per file (path, outline,
 * compact, our token estimates), then times outline and expand on random
 * files and symbols.
 *
 *	views ROOT LIST OUT.jsonl [SAMPLES]
 *
 * LIST holds one ROOT-relative path a line.  Latency figures go to stdout
 * as "latency outline p50_us=.. p99_us=.." lines.
 */
#include "../../indexer/indexer.h"
#include "../../query/query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One corpus file. */
typedef struct bfile {
	char *path;   /* ROOT-relative */
	int lang;     /* mi_lang_id */
} bfile;

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void report(const char *what, double *v, size_t n)
{
	if (!n) {
		printf("latency %s n=0\n", what);
		return;
	}
	qsort(v, n, sizeof(*v), cmp_double);
	printf("latency %s n=%zu p50_us=%.1f p99_us=%.1f max_us=%.1f\n", what, n,
	       v[n / 2], v[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1], v[n - 1]);
}

static int load(const char *root, const bfile *f, char **src, size_t *len, mi_parsed *p)
{
	mi_buf full = { 0 };
	mi_buf_addf(&full, "%s/%s", root, f->path);
	int rc = mi_read_file(full.buf, src, len);
	mi_buf_release(&full);
	if (rc)
		return rc;
	mi_parsed_init(p);
	rc = mi_parse_source(f->lang, *src, *len, p);
	if (rc) {
		mi_parsed_release(p);
		free(*src);
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: views ROOT LIST OUT.jsonl [SAMPLES]\n");
		return 2;
	}
	const char *root = argv[1];
	size_t samples = argc > 4 ? strtoul(argv[4], NULL, 10) : 1000;
	FILE *lf = fopen(argv[2], "r");
	FILE *out = fopen(argv[3], "w");
	if (!lf || !out) {
		fprintf(stderr, "views: cannot open %s or %s\n", argv[2], argv[3]);
		return 1;
	}
	bfile *files = NULL;
	size_t nf = 0, capf = 0;
	char line[4096];
	while (fgets(line, sizeof(line), lf)) {
		line[strcspn(line, "\r\n")] = 0;
		int lang = mi_lang_detect(line);
		if (!*line || lang == MI_LANG_NONE)
			continue;
		if (nf == capf) {
			capf = capf ? capf * 2 : 1024;
			files = mi_xrealloc(files, capf * sizeof(*files));
		}
		files[nf].path = mi_xstrdup(line);
		files[nf].lang = lang;
		nf++;
	}
	fclose(lf);

	mi_out o = { 0 };
	mi_buf rec = { 0 };
	mi_view_opts vo = { .mode = "outline", .max_tokens = (size_t)1 << 30 };
	mi_view_opts vc = { .mode = "compact", .max_tokens = (size_t)1 << 30 };
	size_t failed = 0;
	for (size_t i = 0; i < nf; i++) {
		char *src;
		size_t len;
		mi_parsed p;
		if (load(root, &files[i], &src, &len, &p)) {
			failed++;
			continue;
		}
		mi_buf_reset(&rec);
		mi_buf_adds(&rec, "{\"path\":");
		mi_buf_add_json_str(&rec, files[i].path, strlen(files[i].path));
		mi_buf_addf(&rec, ",\"est_src\":%zu", mi_token_estimate(src, len));
		mi_render_view(files[i].path, src, len, &p, &vo, &o);
		mi_buf_addf(&rec, ",\"est_outline\":%zu,\"outline\":",
			    mi_token_estimate(o.text.buf ? o.text.buf : "", o.text.len));
		mi_buf_add_json_str(&rec, mi_buf_str(&o.text), o.text.len);
		mi_render_view(files[i].path, src, len, &p, &vc, &o);
		mi_buf_adds(&rec, ",\"compact\":");
		mi_buf_add_json_str(&rec, mi_buf_str(&o.text), o.text.len);
		mi_buf_adds(&rec, "}\n");
		fwrite(rec.buf, 1, rec.len, out);
		mi_parsed_release(&p);
		free(src);
	}
	fclose(out);
	fprintf(stderr, "views: %zu files folded, %zu could not be read or parsed\n",
		nf - failed, failed);

	/* latency: outline of random files, expand of random symbols */
	double *lo = mi_xcalloc(samples + 1, sizeof(double));
	double *le = mi_xcalloc(samples + 1, sizeof(double));
	size_t no = 0, ne = 0;
	const char *slow = NULL;
	double slow_us = 0;
	mi_view_opts dflt = { 0 };
	for (size_t k = 0; k < samples && nf; k++) {
		const bfile *f = &files[rng() % nf];
		char *src;
		size_t len;
		mi_parsed p;
		if (load(root, f, &src, &len, &p))
			continue;
		double t0 = now_us();
		mi_render_view(f->path, src, len, &p, &dflt, &o);
		lo[no] = now_us() - t0;
		if (!slow || lo[no] > slow_us) {
			slow = f->path;
			slow_us = lo[no];
		}
		no++;
		if (p.nsyms) {
			const mi_symbol *s = &p.syms[rng() % p.nsyms];
			if (s->name && *s->name) {
				t0 = now_us();
				mi_render_expand(f->path, src, len, &p, s->name, "all", &dflt, &o);
				le[ne++] = now_us() - t0;
			}
		}
		mi_parsed_release(&p);
		free(src);
	}
	report("outline", lo, no);
	if (slow)
		printf("slowest outline: %s %.1f us\n", slow, slow_us);
	report("expand", le, ne);
	free(lo);
	free(le);
	mi_out_release(&o);
	mi_buf_release(&rec);
	for (size_t i = 0; i < nf; i++)
		free(files[i].path);
	free(files);
	return 0;
}
