/*
 * test_index_views.c - every view through the index equals the view of the
 * file parsed on the fly: outline, compact, full and filter=all for every
 * fixture of every language, and expand_at of every symbol by name and by
 * Parent.name (the index loads only a symbol's subtree when it can).
 */
#include "test.h"
#include "../../indexer/indexer.h"
#include "../../query/query.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char idx[] = "/tmp/mcpidx-iv-XXXXXX";
static mi_query *q;
static size_t nviews, nexpand;

static bool same(const mi_out *a, const mi_out *b, const char *what, const char *path,
		 const char *sel)
{
	if (a->is_error == b->is_error && !strcmp(mi_buf_str(&a->text), mi_buf_str(&b->text)))
		return true;
	TEST_FAIL_("%s of %s%s%s differs through the index:\n--- parsed\n%s\n--- index\n%s", what,
		   path, sel ? " " : "", sel ? sel : "", mi_buf_str(&a->text), mi_buf_str(&b->text));
	return false;
}

static void check_file(const char *path)
{
	char full[1024];
	snprintf(full, sizeof(full), "testdata/units/%s", path);
	char *src;
	size_t len;
	if (mi_read_file(full, &src, &len)) {
		TEST_FAIL_("cannot read %s", full);
		return;
	}
	mi_parsed p;
	mi_parsed_init(&p);
	CHECK_INT(mi_parse_source(mi_lang_detect(path), src, len, &p), 0);
	static const char *const modes[] = {"outline", "compact", "full"};
	mi_out a = {0}, b = {0};
	for (int m = 0; m < 4; m++) {
		mi_view_opts o = {.mode = modes[m % 3], .all = m == 3};
		mi_render_view(path, src, len, &p, &o, &a);
		mi_query_read_file(q, path, &o, &b);
		same(&a, &b, o.all ? "outline --all" : o.mode, path, NULL);
		nviews++;
	}
	mi_view_opts o = {0};
	for (size_t i = 0; i < p.nsyms; i++) {
		const mi_symbol *s = &p.syms[i];
		char qual[512];
		snprintf(qual, sizeof(qual), "%s%s%s", s->parent, s->parent[0] ? "." : "", s->name);
		const char *sels[2] = {s->name, qual};
		for (int k = 0; k < 2; k++) {
			if (!sels[k][0] || strchr(sels[k], ' '))
				continue;
			mi_render_expand(path, src, len, &p, sels[k], "all", &o, &a);
			mi_query_expand(q, path, sels[k], "all", &o, &b);
			same(&a, &b, "expand", path, sels[k]);
			nexpand++;
		}
	}
	mi_out_release(&a);
	mi_out_release(&b);
	mi_parsed_release(&p);
	free(src);
}

TEST(every_fixture_every_mode)
{
	DIR *d = opendir("testdata/units");
	CHECK(d != NULL);
	if (!d)
		return;
	struct dirent *l, *c, *f;
	while ((l = readdir(d))) {
		if (l->d_name[0] == '.')
			continue;
		char ld[512];
		snprintf(ld, sizeof(ld), "testdata/units/%s", l->d_name);
		DIR *dl = opendir(ld);
		while (dl && (c = readdir(dl))) {
			if (c->d_name[0] == '.')
				continue;
			char cd[768];
			snprintf(cd, sizeof(cd), "%s/%s", ld, c->d_name);
			DIR *dc = opendir(cd);
			while (dc && (f = readdir(dc))) {
				if (strncmp(f->d_name, "input.", 6))
					continue;
				char rel[1024];
				snprintf(rel, sizeof(rel), "%s/%s/%s", l->d_name, c->d_name, f->d_name);
				check_file(rel);
			}
			if (dc)
				closedir(dc);
		}
		if (dl)
			closedir(dl);
	}
	closedir(d);
	CHECK(nviews > 200);
	CHECK(nexpand > 500);
	printf("# %zu views, %zu expansions compared\n", nviews, nexpand);
}

int main(void)
{
	CHECK(mkdtemp(idx) != NULL);
	mi_build_opts bo = {.repo = "testdata/units", .out_dir = idx, .jobs = 2};
	mi_build_stats st;
	mi_buf err = {0};
	if (mi_build(&bo, &st, &err) || mi_query_open(idx, &q, &err)) {
		printf("FAIL setup: %s\n", mi_buf_str(&err));
		return 1;
	}
	RUN(every_fixture_every_mode);
	mi_query_close(q);
	mi_buf_release(&err);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", idx);
	if (system(cmd))
		return 1;
	return test_done();
}
