/*
 * blame.c - where the blame of an index lives and how its records read.
 * `mcpidx build --blame` writes, for each indexed file, the last commit of
 * every symbol (indexer/blame.c); read_file {with_blame} shows them
 * (query/blame.c).  They live in an LMDB environment of their own beside
 * the index, so the index format does not change and a rebuild of the
 * index leaves them be: each record names the content hash it was computed
 * for, and a reader uses it only while the file still has that hash.
 */
#include "format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *const mi_blame_dbs[1] = { "blame" };

char *mi_blame_locate(const char *index_path)
{
	struct stat sb;
	mi_buf b = {0};
	if (!index_path || stat(index_path, &sb) != 0)
		return NULL;
	if (S_ISDIR(sb.st_mode))
		mi_buf_addf(&b, "%s/blame", index_path);
	else if (S_ISREG(sb.st_mode))
		mi_buf_addf(&b, "%s.blame", index_path);
	else
		return NULL;
	return mi_buf_detach(&b);
}

/* "IDX\tSHORT\tAUTHOR\tDATE" -> the parts; false when malformed. */
static bool parse_line(const char *s, size_t n, mi_blame_sym *out)
{
	const char *f[4];
	size_t len[4], k = 0;
	const char *p = s, *end = s + n;
	while (k < 4 && p <= end) {
		const char *tab = memchr(p, '\t', (size_t)(end - p));
		const char *stop = tab && k < 3 ? tab : end;
		f[k] = p;
		len[k] = (size_t)(stop - p);
		k++;
		p = stop + 1;
	}
	if (k != 4 || !len[0] || !len[1])
		return false;
	char num[16];
	if (len[0] >= sizeof num)
		return false;
	memcpy(num, f[0], len[0]);
	num[len[0]] = 0;
	char *e;
	unsigned long idx = strtoul(num, &e, 10);
	if (*e)
		return false;
	out->idx = (uint32_t)idx;
	out->commit = mi_xstrndup(f[1], len[1]);
	out->author = mi_xstrndup(f[2], len[2]);
	out->date = mi_xstrndup(f[3], len[3]);
	return true;
}

int mi_blame_decode(const void *data, size_t len, const uint8_t hash[16],
		    mi_blame_sym **out, size_t *n)
{
	const char *s = data, *end = s + len;
	char hex[33];
	*out = NULL;
	*n = 0;
	const char *nl = memchr(s, '\n', len);
	if (!nl || nl - s != 32)
		return MI_ERR_CORRUPT;
	mi_hash_hex(hash, hex);
	if (memcmp(s, hex, 32))
		return ESTALE;
	size_t cap = 0;
	for (const char *p = nl + 1; p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		size_t l = e ? (size_t)(e - p) : (size_t)(end - p);
		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			*out = mi_xrealloc(*out, cap * sizeof(**out));
		}
		if (l && !parse_line(p, l, &(*out)[*n])) {
			mi_blame_free(*out, *n);
			*out = NULL;
			*n = 0;
			return MI_ERR_CORRUPT;
		}
		if (l)
			(*n)++;
		p += l + 1;
	}
	return 0;
}

void mi_blame_free(mi_blame_sym *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].commit);
		free(v[i].author);
		free(v[i].date);
	}
	free(v);
}
