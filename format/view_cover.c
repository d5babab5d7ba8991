/*
 * view_cover.c - "V* coverage: 83% (lines), 71% (branches)" for the file
 * (the module) and for each shown block, from the DA (lines) and BRDA
 * (branches) records of an lcov file whose SF path ends with the file's path.
 */
#include "view_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* How many trailing path components sf[0..n) and path share. */
static int common_tail(const char *sf, size_t n, const char *path)
{
	size_t pl = strlen(path), i = n, j = pl;
	int k = 0;
	while (i > 0 && j > 0 && sf[i - 1] == path[j - 1]) {
		i--;
		j--;
		if ((i == 0 || sf[i - 1] == '/') && (j == 0 || path[j - 1] == '/'))
			k++;
	}
	return k;
}

/* Loads the DA and BRDA records of the lcov record whose SF path shares
 * the most trailing components with c->path (at least the file name);
 * silently off on failure. */
void mi_v_load_coverage(vctx *c)
{
	char *data = NULL;
	size_t n = 0;
	if (!c->o->coverage || !c->o->lcov_path || !c->path ||
	    mi_read_file(c->o->lcov_path, &data, &n) != 0)
		return;
	int32_t *cov = mi_xmalloc(((size_t)c->nlines + 1) * sizeof(int32_t));
	int32_t *brt = mi_xcalloc((size_t)c->nlines + 1, sizeof(int32_t));
	int32_t *brh = mi_xcalloc((size_t)c->nlines + 1, sizeof(int32_t));
	for (size_t i = 0; i <= c->nlines; i++)
		cov[i] = -1;
	bool match = false, any = false, anybr = false;
	const char *path = c->path;
	int best = 0, rec = 0, best_rec = -1;
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	/* first pass: which record describes this file */
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(data + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - data) : n, ll = e - i;
		while (ll > 3 && data[i + ll - 1] == '\r')
			ll--;
		if (ll > 3 && !memcmp(data + i, "SF:", 3)) {
			int k = common_tail(data + i + 3, ll - 3, path);
			if (k > best) {
				best = k;
				best_rec = rec;
			}
			rec++;
		}
		i = e + 1;
	}
	rec = 0;
	for (size_t i = 0; i < n;) {
		size_t e = i;
		while (e < n && data[e] != '\n')
			e++;
		size_t ll = e - i;
		while (ll > 0 && data[i + ll - 1] == '\r')
			ll--;
		const char *l = data + i;
		if (ll >= 3 && !memcmp(l, "SF:", 3)) {
			match = rec++ == best_rec;
		} else if (ll >= 14 && !memcmp(l, "end_of_record", 13)) {
			match = false;
		} else if (match && ll > 3 && !memcmp(l, "DA:", 3)) {
			unsigned long ln = strtoul(l + 3, NULL, 10);
			const char *comma = memchr(l, ',', ll);
			if (ln >= 1 && ln <= c->nlines && comma) {
				long hits = strtol(comma + 1, NULL, 10);
				if (hits < 0)
					hits = 0;
				if (cov[ln] < 0)
					cov[ln] = 0;
				cov[ln] += hits > 0;
				any = true;
			}
		} else if (match && ll > 5 && !memcmp(l, "BRDA:", 5)) {
			/* BRDA:line,block,branch,taken ("-": never reached) */
			unsigned long ln = strtoul(l + 5, NULL, 10);
			const char *taken = l + ll;
			while (taken > l && taken[-1] != ',')
				taken--;
			if (ln >= 1 && ln <= c->nlines && taken > l + 5) {
				brt[ln]++;
				brh[ln] += *taken != '-' && strtol(taken, NULL, 10) > 0;
				anybr = true;
			}
		} else if (ll == 13 && !memcmp(l, "end_of_record", 13)) {
			match = false;
		}
		i = e + 1;
	}
	free(data);
	if (any) {
		c->cov = cov;
		cov = NULL;
	}
	if (any && anybr) {
		c->brt = brt;
		c->brh = brh;
		brt = brh = NULL;
	}
	free(cov);
	free(brt);
	free(brh);
}

/* Writes the coverage of lines from..to (inclusive), when it has data. */
static void put_span(vctx *c, uint32_t from, uint32_t to, int depth)
{
	size_t total = 0, hit = 0, bt = 0, bh = 0;
	for (uint32_t l = from; l <= to && l <= c->nlines; l++) {
		if (c->brt) {
			bt += (size_t)c->brt[l];
			bh += (size_t)c->brh[l];
		}
		if (c->cov[l] < 0)
			continue;
		total++;
		hit += c->cov[l] > 0;
	}
	if (!total)
		return;
	mi_v_vline(c, depth);
	mi_buf_addf(c->out, "coverage: %zu%% (lines)", (hit * 100 + total / 2) / total);
	if (bt)
		mi_buf_addf(c->out, ", %zu%% (branches)", (bh * 100 + bt / 2) / bt);
	mi_buf_addc(c->out, '\n');
}

void mi_v_put_file_coverage(vctx *c)
{
	if (c->cov)
		put_span(c, 1, c->nlines, 0);
}

void mi_v_put_coverage(vctx *c, const mi_symbol *s, int depth)
{
	if (c->cov)
		put_span(c, s->start_line, s->end_line, depth);
}

/* Where coverage tools write their lcov file, relative to a project root. */
static const char *const lcov_names[] = {
	"lcov.info", "coverage/lcov.info", "coverage.info", "build/coverage.info",
	"coverage/coverage.info", NULL,
};

char *mi_lcov_find(const char *dir, const char *stop)
{
	char *d = realpath(dir && *dir ? dir : ".", NULL), *found = NULL;
	char *st = stop ? realpath(stop, NULL) : NULL;
	mi_buf b = {0};
	struct stat sb;
	while (d && !found) {
		bool last;
		for (int i = 0; lcov_names[i] && !found; i++) {
			mi_buf_reset(&b);
			mi_buf_addf(&b, "%s/%s", strcmp(d, "/") ? d : "", lcov_names[i]);
			if (stat(b.buf, &sb) == 0 && S_ISREG(sb.st_mode))
				found = mi_buf_detach(&b);
		}
		mi_buf_reset(&b);
		mi_buf_addf(&b, "%s/.git", strcmp(d, "/") ? d : "");
		last = !strcmp(d, "/") || (st ? !strcmp(d, st) : stat(b.buf, &sb) == 0);
		if (last)
			break;
		*strrchr(d, '/') = 0;
		if (!*d)
			strcpy(d, "/");
	}
	mi_buf_release(&b);
	free(d);
	free(st);
	return found;
}
