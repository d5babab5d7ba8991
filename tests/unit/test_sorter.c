/*
 * test_sorter.c - the external sort a fresh build writes names, references
 * and postings through: with a budget small enough to spill many runs from
 * several lanes, every record comes back once, in LMDB's key order (memcmp,
 * then the shorter key first; equal keys in lane order), values intact, and
 * the run files are gone; a run cut or grown on disk is an error, not a
 * short or long list.
 */
#include "test.h"
#include "../../format/format.h"
#include "../../indexer/indexer_int.h"

#include <dirent.h>
#include <unistd.h>

#define NREC 120000

static char *tmpdir(void)
{
	char *d = strdup("/tmp/mcpidx-sorter-XXXXXX");
	return mkdtemp(d);
}

static int files_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	if (d)
		closedir(d);
	return n;
}

/* Record i: a key with a shared 10-byte prefix, NUL bytes and prefixes of
 * other keys among them; its value names i. */
static size_t key_of(unsigned i, uint8_t *k)
{
	uint32_t x = i * 2654435761u;
	size_t n = 0;
	memcpy(k, "prefix\0xyz", 10);
	n = 10;
	k[n++] = (uint8_t)(x >> 24);
	if (i % 7)
		k[n++] = (uint8_t)(x >> 16);
	if (i % 3)
		k[n++] = 0;
	return n;
}

static int key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	return c ? c : (al > bl) - (al < bl);
}

TEST(spilled_runs_merge_in_key_order)
{
	char *dir = tmpdir();
	mi_sorter *s = mi_sorter_new(dir, "t", 3, 4096);
	static uint8_t seen[NREC];
	uint8_t k[16];
	char v[48];
	for (unsigned i = 0; i < NREC; i++) {
		size_t kl = key_of(i, k);
		int vl = i % 5 ? snprintf(v, sizeof v, "%u:%s", i, "padding padding padding padding pad") : 0;
		mi_sorter_add(s, (int)(i % 3), k, kl, v, (size_t)vl);
	}
	CHECK(files_in(dir) >= 6); /* it spilled, from every lane */
	CHECK_INT(mi_sorter_finish(s), 0);
	CHECK_INT(files_in(dir), 0); /* runs are unlinked once open */
	uint8_t prev[16];
	size_t prevl = 0, n = 0, bad_order = 0, bad_value = 0;
	const void *kp, *vp;
	size_t kl, vl;
	int rc;
	while (!(rc = mi_sorter_next(s, &kp, &kl, &vp, &vl))) {
		if (n && key_cmp(prev, prevl, kp, kl) > 0)
			bad_order++;
		memcpy(prev, kp, kl);
		prevl = kl;
		if (vl) {
			char tmp[48];
			memcpy(tmp, vp, vl < 47 ? vl : 47);
			tmp[vl < 47 ? vl : 47] = 0;
			unsigned i = (unsigned)strtoul(tmp, NULL, 10);
			uint8_t want[16];
			size_t wl = key_of(i, want);
			if (i >= NREC || seen[i] || wl != kl || memcmp(want, kp, kl))
				bad_value++;
			else
				seen[i] = 1;
		}
		n++;
		CHECK_INT(mi_sorter_pop(s), 0);
	}
	CHECK_INT(rc, MI_ERR_NOTFOUND);
	CHECK_INT(n, NREC);
	CHECK_INT(bad_order, 0);
	CHECK_INT(bad_value, 0);
	size_t valued = 0;
	for (unsigned i = 0; i < NREC; i++)
		valued += seen[i];
	CHECK_INT(valued, NREC - NREC / 5);
	CHECK_INT(mi_sorter_count(s), NREC);
	mi_sorter_free(s);
	rmdir(dir);
	free(dir);
}

/* how 0: the first run cut inside; 1: a whole record appended to it. */
static void damaged_run(int how)
{
	char *dir = tmpdir();
	mi_sorter *s = mi_sorter_new(dir, "t", 1, 4096);
	uint8_t k[16];
	for (unsigned i = 0; i < 40000; i++)
		mi_sorter_add(s, 0, k, key_of(i, k), "a value of forty bytes, more or less....", 40);
	char path[300];
	snprintf(path, sizeof path, "%s/t.0.0", dir);
	if (how == 0) {
		CHECK(truncate(path, 1001) == 0);
	} else {
		FILE *f = fopen(path, "ab");
		CHECK(f != NULL);
		if (f) {
			fwrite("\001\000k", 1, 3, f);
			fclose(f);
		}
	}
	int rc = mi_sorter_finish(s);
	size_t n = 0;
	const void *kp, *vp;
	size_t kl, vl;
	while (!rc && !(rc = mi_sorter_next(s, &kp, &kl, &vp, &vl))) {
		n++;
		rc = mi_sorter_pop(s);
	}
	CHECK(rc != 0 && rc != MI_ERR_NOTFOUND);
	CHECK(n <= 40000);
	mi_sorter_free(s);
	CHECK_INT(files_in(dir), 0);
	rmdir(dir);
	free(dir);
}

TEST(cut_run_is_an_error)
{
	damaged_run(0);
}

TEST(grown_run_is_an_error)
{
	damaged_run(1);
}

int main(void)
{
	RUN(spilled_runs_merge_in_key_order);
	RUN(cut_run_is_an_error);
	RUN(grown_run_is_an_error);
	return test_done();
}
