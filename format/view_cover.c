/*
 * view_cover.c - "V* coverage: 83% (lines)" for each shown block, from the
 * DA records of an lcov file whose SF path ends with the file's path.
 */
#include "view_int.h"

#include <stdlib.h>
#include <string.h>

static bool path_suffix(const char *sf, size_t n, const char *path)
{
	size_t pl = strlen(path);
	if (pl == 0 || pl > n)
		return false;
	if (memcmp(sf + n - pl, path, pl))
		return false;
	return pl == n || sf[n - pl - 1] == '/';
}

/* Loads DA records of the lcov file for c->path; silently off on failure. */
void mi_v_load_coverage(vctx *c)
{
	char *data = NULL;
	size_t n = 0;
	if (!c->o->coverage || !c->o->lcov_path || !c->path ||
	    mi_read_file(c->o->lcov_path, &data, &n) != 0)
		return;
	int32_t *cov = mi_xmalloc(((size_t)c->nlines + 1) * sizeof(int32_t));
	for (size_t i = 0; i <= c->nlines; i++)
		cov[i] = -1;
	bool match = false, any = false;
	const char *path = c->path;
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	for (size_t i = 0; i < n;) {
		size_t e = i;
		while (e < n && data[e] != '\n')
			e++;
		size_t ll = e - i;
		while (ll > 0 && data[i + ll - 1] == '\r')
			ll--;
		const char *l = data + i;
		if (ll >= 3 && !memcmp(l, "SF:", 3)) {
			match = path_suffix(l + 3, ll - 3, path);
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
		} else if (ll == 13 && !memcmp(l, "end_of_record", 13)) {
			match = false;
		}
		i = e + 1;
	}
	free(data);
	if (any)
		c->cov = cov;
	else
		free(cov);
}

void mi_v_put_coverage(vctx *c, const mi_symbol *s, int depth)
{
	if (!c->cov)
		return;
	size_t total = 0, hit = 0;
	for (uint32_t l = s->start_line; l <= s->end_line && l <= c->nlines; l++) {
		if (c->cov[l] < 0)
			continue;
		total++;
		hit += c->cov[l] > 0;
	}
	if (!total)
		return;
	mi_v_vline(c, depth);
	mi_buf_addf(c->out, "coverage: %zu%% (lines)\n", (hit * 100 + total / 2) / total);
}
