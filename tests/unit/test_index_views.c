/*
 * test_index_views.c - every view through the index equals the view of the
 * file parsed on the fly: outline, compact, full and filter=all for every
 * fixture of every language, and expand_at of every symbol by name and by
 * Parent.name (the index loads only a symbol's subtree when it can).
 */
#include "test.h"
#include "../../format/format.h"
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
	if (a->is_error == b->is_error && !strcmp(mi_buf_str(&a->text), mi_buf_str(&b->text)) &&
	    !strcmp(mi_buf_str(&a->json), mi_buf_str(&b->json)))
		return true;
	if (a->is_error == b->is_error && !strcmp(mi_buf_str(&a->text), mi_buf_str(&b->text))) {
		TEST_FAIL_("%s of %s: JSON differs through the index:\n--- parsed\n%s\n--- index\n%s",
			   what, path, mi_buf_str(&a->json), mi_buf_str(&b->json));
		return false;
	}
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
	CHECK_INT(mi_parse_detected(mi_lang_detect(path), src, len, &p), 0);
	/* Each reference knows where its line starts (find_references shows it). */
	for (size_t i = 0; i < p.nrefs; i++) {
		uint32_t at = p.refs[i].line_byte, line = 1;
		for (uint32_t b = 0; b < at && b < len; b++)
			line += src[b] == '\n';
		if (at > len || (at && src[at - 1] != '\n') || line != p.refs[i].line) {
			TEST_FAIL_("%s: reference %s at line %u has line_byte %u (line %u)", path,
				   p.refs[i].callee, p.refs[i].line, at, line);
			break;
		}
	}
	static const char *const modes[] = {"outline", "compact", "full"};
	mi_out a = {0}, b = {0};
	for (int m = 0; m < 4; m++) {
		mi_view_opts o = {.mode = modes[m % 3], .all = m == 3};
		mi_render_view(path, src, len, &p, &o, &a);
		mi_query_read_file(q, path, &o, &b);
		same(&a, &b, o.all ? "outline --all" : o.mode, path, NULL);
		nviews++;
	}
	/* The stored outline serves only the caps that leave it whole; under
	 * a smaller cap, and with other options, the view is rendered. */
	static const size_t caps[] = {30, 60, 120, 400};
	for (size_t k = 0; k < sizeof(caps) / sizeof(caps[0]); k++) {
		mi_view_opts o = {.max_tokens = caps[k]};
		mi_render_view(path, src, len, &p, &o, &a);
		mi_query_read_file(q, path, &o, &b);
		char what[64];
		snprintf(what, sizeof(what), "outline max_tokens=%zu", caps[k]);
		same(&a, &b, what, path, NULL);
		nviews++;
	}
	mi_view_opts lo = {.line_numbers = 1}, uo = {.unicode = true};
	mi_render_view(path, src, len, &p, &lo, &a);
	mi_query_read_file(q, path, &lo, &b);
	same(&a, &b, "outline line_numbers", path, NULL);
	mi_render_view(path, src, len, &p, &uo, &a);
	mi_query_read_file(q, path, &uo, &b);
	same(&a, &b, "outline unicode", path, NULL);
	nviews += 2;
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

/* Rewrites the stored outline of path and the index's "view" meta. */
static void plant(const char *path, const char *text, int64_t view)
{
	mi_store *st;
	mi_txn *t;
	mi_query_close(q);
	q = NULL;
	CHECK_INT(mi_store_open(idx, 0, &st), 0);
	CHECK_INT(mi_txn_begin(st, true, &t), 0);
	mi_outline_rec r = {.text = text, .text_len = strlen(text), .need = 1, .lines = 1};
	mi_buf v = {0};
	mi_outline_encode(&r, &v);
	CHECK_INT(mi_put(t, MI_DB_OUTLINES, path, strlen(path), v.buf, v.len), 0);
	CHECK_INT(mi_meta_put_int(t, "view", view), 0);
	CHECK_INT(mi_txn_commit(t), 0);
	mi_store_close(st);
	mi_buf_release(&v);
	mi_buf err = {0};
	CHECK_INT(mi_query_open(idx, &q, &err), 0);
	mi_buf_release(&err);
}

/* read_file's default view comes from the stored record, only while the
 * record is of this renderer (MI_VIEW_VERSION); a build over outlines of
 * another renderer redoes every file. */
TEST(stored_outline_is_served_and_versioned)
{
	const char *path = "c/basic/input.c";
	mi_store *st = mi_query_store(q);
	mi_txn *t;
	CHECK_INT(mi_txn_begin(st, false, &t), 0);
	size_t nfiles = mi_db_count(t, MI_DB_FILES);
	CHECK(nfiles >= 60);
	CHECK_INT(mi_db_count(t, MI_DB_OUTLINES), nfiles);
	mi_txn_abort(t);

	mi_out o = {0};
	mi_view_opts def = {0}, ln = {.line_numbers = 1};
	plant(path, "PLANTED\n", MI_VIEW_VERSION);
	CHECK_INT(mi_query_read_file(q, path, &def, &o), 0);
	CHECK_STR(mi_buf_str(&o.text), "PLANTED\n");
	CHECK(strstr(mi_buf_str(&o.json), "\"text\":\"PLANTED\\n\"") != NULL);
	CHECK_INT(mi_query_read_file(q, path, &ln, &o), 0);
	CHECK(strstr(mi_buf_str(&o.text), "PLANTED") == NULL);

	plant(path, "PLANTED\n", MI_VIEW_VERSION + 1);
	CHECK_INT(mi_query_read_file(q, path, &def, &o), 0);
	CHECK(strstr(mi_buf_str(&o.text), "PLANTED") == NULL);
	CHECK(strstr(mi_buf_str(&o.text), "F> ") != NULL);

	mi_query_close(q);
	q = NULL;
	mi_build_opts bo = {.repo = "testdata/units", .out_dir = idx, .jobs = 2};
	mi_build_stats bs;
	mi_buf err = {0};
	CHECK_INT(mi_build(&bo, &bs, &err), 0);
	CHECK_INT(bs.indexed, nfiles);
	CHECK_INT(mi_query_open(idx, &q, &err), 0);
	CHECK_INT(mi_txn_begin(mi_query_store(q), false, &t), 0);
	int64_t view = 0;
	CHECK_INT(mi_meta_get_int(t, "view", &view), 0);
	CHECK_INT(view, MI_VIEW_VERSION);
	mi_txn_abort(t);
	CHECK_INT(mi_query_read_file(q, path, &def, &o), 0);
	CHECK(strstr(mi_buf_str(&o.text), "PLANTED") == NULL);
	/* and an unchanged tree is not redone again */
	mi_query_close(q);
	q = NULL;
	CHECK_INT(mi_build(&bo, &bs, &err), 0);
	CHECK_INT(bs.indexed, 0);
	CHECK_INT(mi_query_open(idx, &q, &err), 0);
	mi_buf_release(&err);
	mi_out_release(&o);
}

static void set_version(int64_t v)
{
	mi_store *st;
	mi_txn *t;
	CHECK_INT(mi_store_open(idx, 0, &st), 0);
	CHECK_INT(mi_txn_begin(st, true, &t), 0);
	CHECK_INT(mi_meta_put_int(t, "version", v), 0);
	CHECK_INT(mi_txn_commit(t), 0);
	mi_store_close(st);
}

/* An index of an older format is rebuilt whole by a plain build; one of a
 * newer format is refused (it may be another mcpidx's) unless --force. */
TEST(build_over_other_format_versions)
{
	mi_query_close(q);
	q = NULL;
	mi_build_opts bo = {.repo = "testdata/units", .out_dir = idx, .jobs = 2};
	mi_build_stats bs;
	mi_buf err = {0};
	set_version(MI_FORMAT_VERSION - 1);
	CHECK_INT(mi_build(&bo, &bs, &err), 0);
	CHECK_INT(bs.rebuilt_from, MI_FORMAT_VERSION - 1);
	CHECK_INT(bs.indexed, bs.files);
	CHECK(bs.files >= 60);
	set_version(MI_FORMAT_VERSION + 7);
	CHECK_INT(mi_build(&bo, &bs, &err), MI_ERR_VERSION);
	CHECK_CONTAINS(mi_buf_str(&err), "newer");
	CHECK_CONTAINS(mi_buf_str(&err), "--force");
	mi_buf_reset(&err);
	bo.force = true;
	CHECK_INT(mi_build(&bo, &bs, &err), 0);
	CHECK_INT(bs.rebuilt_from, 0);
	CHECK_INT(bs.indexed, bs.files);
	CHECK_INT(mi_query_open(idx, &q, &err), 0);
	mi_out o = {0};
	CHECK_INT(mi_query_read_file(q, "c/basic/input.c", NULL, &o), 0);
	CHECK(strstr(mi_buf_str(&o.text), "F> ") != NULL);
	mi_out_release(&o);
	mi_buf_release(&err);
}

/* Line n (1-based) of src as find_references shows it: trimmed, at most
 * 200 bytes. */
static void ref_line(const char *src, size_t len, uint32_t n, mi_buf *out)
{
	const char *p = src, *end = src + len;
	for (uint32_t i = 1; i < n && p; i++) {
		p = memchr(p, '\n', (size_t)(end - p));
		p = p ? p + 1 : NULL;
	}
	if (!p)
		return;
	const char *e = memchr(p, '\n', (size_t)(end - p));
	e = e ? e : end;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	mi_buf_add(out, p, (size_t)(e - p) > 200 ? 200 : (size_t)(e - p));
}

/* A large file's source is stored in frames (MI_SRC_FRAME bytes each) and
 * find_references reads each reference's line from the frames that hold it:
 * every line shown is the source's line, including one longer than a frame
 * that starts in one frame and ends two frames later, one that starts at a
 * frame boundary, and the last line of a file that does not end in a
 * newline.  expand_at of a function in a middle frame still shows its body. */
TEST(references_in_a_framed_source)
{
	char repo[] = "/tmp/mcpidx-fr-XXXXXX", out[64], path[128];
	CHECK(mkdtemp(repo) != NULL);
	snprintf(out, sizeof(out), "%s.idx", repo);
	mi_buf src = {0};
	mi_buf_adds(&src, "int target(int x) { return x; }\n");
	uint32_t calls = 0;
	for (int i = 0; i < 700; i++) {
		mi_buf_addf(&src, "int f%d(int a)\n{\n%.*sa += target(a + %d);\t \n", i,
			    1 + i % 7, "\t\t\t\t\t\t\t\t", i);
		calls++;
		if (i == 350) { /* one long line, over two frames */
			mi_buf_adds(&src, "\ta = ");
			for (int k = 0; k < 1200; k++)
				mi_buf_addf(&src, "target(%d) + ", k);
			mi_buf_adds(&src, "a;\n");
			calls += 1200;
		}
		mi_buf_adds(&src, "\treturn a;\n}\n");
		if (i == 100 || i == 650) /* one field name, far apart */
			mi_buf_addf(&src, "struct s%d {\n\tint shared_field;\n\tint other%d;\n};\n", i, i);
		if (i == 600) { /* a doc comment longer than a frame above f601 */
			mi_buf_adds(&src, "/*\n");
			for (int k = 0; k < 400; k++)
				mi_buf_addf(&src, " * f601 line %d of its documentation\n", k);
			mi_buf_adds(&src, " */\n");
		}
		/* a line that starts right at a frame boundary */
		if (i == 500) {
			size_t gap = MI_SRC_FRAME - src.len % MI_SRC_FRAME;
			gap += gap < 8 ? MI_SRC_FRAME : 0;
			mi_buf_addf(&src, "/*%*s*/\n", (int)(gap - 5), "");
			CHECK_INT(src.len % MI_SRC_FRAME, 0);
		}
	}
	mi_buf_adds(&src, "int last(void) { return target(9); }");
	calls++;
	CHECK(src.len > 6 * MI_SRC_FRAME);
	snprintf(path, sizeof(path), "%s/big.c", repo);
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(src.buf, 1, src.len, f) == src.len && !fclose(f));
	mi_build_opts bo = {.repo = repo, .out_dir = out, .jobs = 2};
	mi_build_stats bs;
	mi_buf err = {0}, want = {0};
	mi_query *fq = NULL;
	CHECK_INT(mi_build(&bo, &bs, &err), 0);
	CHECK_INT(mi_query_open(out, &fq, &err), 0);
	mi_out o = {0};
	if (fq)
		CHECK_INT(mi_query_references(fq, "target", "calls", 5000, &o), 0);
	/* "big.c:LINE in CALLER\n  TEXT\n" per reference */
	const char *x = mi_buf_str(&o.text);
	uint32_t seen = 0, bad = 0;
	while ((x = strstr(x, "big.c:"))) {
		uint32_t line = (uint32_t)strtoul(x + 6, NULL, 10);
		const char *nl = strchr(x, '\n');
		if (!nl)
			break;
		const char *text = nl + 1, *tend = strchr(text, '\n');
		mi_buf_reset(&want);
		ref_line(src.buf, src.len, line, &want);
		if (strncmp(text, "  ", 2) || !tend || (size_t)(tend - text - 2) != want.len ||
		    memcmp(text + 2, want.buf, want.len)) {
			if (!bad++)
				TEST_FAIL_("line %u shown as '%.*s', source has '%s'", line,
					   tend ? (int)(tend - text) : 40, text, mi_buf_str(&want));
		}
		seen++;
		x = tend ? tend : nl;
	}
	CHECK_INT(bad, 0);
	CHECK_INT(seen, calls);
	/* one whole source, through mi_get */
	mi_parsed p;
	mi_parsed_init(&p);
	CHECK_INT(mi_parse_source(MI_LANG_C, src.buf, src.len, &p), 0);
	/* every function, from the frames that hold it or, when its docs lie
	 * above them, from the whole source */
	mi_out a = {0};
	static const char *const whats[] = {"body", "all", "signature", "docs"};
	for (size_t i = 0; fq && i < p.nsyms; i++)
		for (int k = 0; k < 8; k++) {
			mi_view_opts vo = {.line_numbers = k / 4 * 2};
			mi_render_expand("big.c", src.buf, src.len, &p, p.syms[i].name, whats[k % 4],
					 &vo, &a);
			mi_query_expand(fq, "big.c", p.syms[i].name, whats[k % 4], &vo, &o);
			if (!same(&a, &o, "expand", "big.c", p.syms[i].name))
				i = p.nsyms - 1;
		}
	/* A name two structs' fields share is answered with their list, drawn
	 * from their records; a parent that has no such member gets close
	 * names from the whole file, as with the whole file parsed. */
	static const char *const sels[] = {"shared_field", "s100.shared_field",
					   "s650.shared_field", "nosuch.shared_field", "nosuch.other650"};
	for (size_t i = 0; fq && i < sizeof(sels) / sizeof(sels[0]); i++)
		for (int k = 0; k < 4; k++) {
			mi_view_opts vo = {0};
			mi_render_expand("big.c", src.buf, src.len, &p, sels[i], whats[k], &vo, &a);
			mi_query_expand(fq, "big.c", sels[i], whats[k], &vo, &o);
			same(&a, &o, "expand", "big.c", sels[i]);
			if (i == 0)
				CHECK_CONTAINS(mi_buf_str(&o.text), "ambiguous: 'shared_field' matches 2");
			if (i == 3)
				CHECK_CONTAINS(mi_buf_str(&o.text), "did you mean: s100.shared_field");
			if (i == 4)
				CHECK_CONTAINS(mi_buf_str(&o.text), "s650.other650");
		}
	CHECK(p.nsyms > 700);
	mi_parsed_release(&p);
	mi_out_release(&a);
	mi_out_release(&o);
	mi_query_close(fq);
	mi_buf_release(&err);
	mi_buf_release(&want);
	mi_buf_release(&src);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", repo, out);
	CHECK_INT(system(cmd), 0);
}

/* Writes repo/name.c: n calls of common(), and a use of it as a value when
 * value is set. */
static void write_caller(const char *repo, const char *name, int n, bool value)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/%s.c", repo, name);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "int common(int);\nint %s(int a)\n{\n", name);
	for (int i = 0; i < n; i++)
		fprintf(f, "\ta += common(a + %d);\n", i);
	if (value)
		fprintf(f, "\tint (*fp)(int) = common;\n\ta += fp(1);\n");
	fprintf(f, "\treturn a;\n}\n");
	CHECK_INT(fclose(f), 0);
}

/* find_references of "common" in q: the total with a page of one (the
 * kept count) and with every reference shown (counted), which must agree;
 * the first reference shown is the same on both pages. */
static size_t refs_total(mi_query *fq, const char *kind)
{
	mi_out one = {0}, every = {0};
	size_t t1 = 0, t2 = 0;
	CHECK_INT(mi_query_references(fq, "common", kind, 1, &one), 0);
	CHECK_INT(mi_query_references(fq, "common", kind, 100000, &every), 0);
	const char *a = strstr(mi_buf_str(&one.json), "\"total\":");
	const char *b = strstr(mi_buf_str(&every.json), "\"total\":");
	CHECK(a && b);
	if (a && b) {
		t1 = strtoul(a + 8, NULL, 10);
		t2 = strtoul(b + 8, NULL, 10);
	}
	CHECK_INT(t1, t2);
	const char *x = mi_buf_str(&one.text), *y = mi_buf_str(&every.text);
	const char *xe = strchr(x, '\n');
	CHECK(xe && !strncmp(x, y, (size_t)(xe - x + 1)));
	/* a page past the start gives the same total */
	mi_out mid = {0};
	CHECK_INT(mi_query_references_page(fq, "common", kind, 7, 3, &mid), 0);
	const char *c = strstr(mi_buf_str(&mid.json), "\"total\":");
	CHECK(c && strtoul(c + 8, NULL, 10) == t2);
	mi_out_release(&one);
	mi_out_release(&every);
	mi_out_release(&mid);
	return t2;
}

/* The counts kept for a name referenced from MI_REFS_COUNT_MIN files or
 * more, as the index holds them (MI_ERR_NOTFOUND: none kept). */
static int kept_count(const char *idxdir, const char *name, uint64_t *calls, uint64_t *all)
{
	mi_store *st;
	mi_txn *t;
	int rc = mi_store_open(idxdir, MI_STORE_RDONLY, &st);
	CHECK_INT(rc, 0);
	if (rc)
		return rc;
	CHECK_INT(mi_txn_begin(st, false, &t), 0);
	rc = mi_refs_count(t, name, calls, all);
	mi_txn_abort(t);
	mi_store_close(st);
	return rc;
}

/* A name called from many files keeps its reference counts, so
 * find_references gives its total without reading every entry: the total
 * is what counting every reference gives, calls and all kinds, after a
 * fresh build and after an update that edits, adds and deletes callers. */
TEST(reference_totals_of_a_common_name)
{
	char repo[] = "/tmp/mcpidx-rc-XXXXXX", out[64], name[32], path[160];
	CHECK(mkdtemp(repo) != NULL);
	snprintf(out, sizeof(out), "%s.idx", repo);
	int nfiles = MI_REFS_COUNT_MIN + 8;
	size_t calls = 0, values = 0;
	for (int i = 0; i < nfiles; i++) {
		snprintf(name, sizeof(name), "caller%d", i);
		write_caller(repo, name, 1 + i % 4, i % 5 == 0);
		calls += 1 + i % 4;
		values += i % 5 == 0;
	}
	write_caller(repo, "rare", 2, false); /* "rare" is not called: common is */
	calls += 2;
	mi_build_opts bo = {.repo = repo, .out_dir = out, .jobs = 2};
	mi_build_stats bs;
	mi_buf err = {0};
	mi_query *fq = NULL;
	uint64_t kc = 0, ka = 0;
	CHECK_INT(mi_build(&bo, &bs, &err), 0);
	CHECK_INT(kept_count(out, "common", &kc, &ka), 0);
	CHECK_INT(mi_query_open(out, &fq, &err), 0);
	if (fq) {
		CHECK_INT(refs_total(fq, "calls"), calls);
		size_t all = refs_total(fq, "all");
		CHECK(all >= calls + values);
		CHECK_INT(kc, calls);
		CHECK_INT(ka, all);
		mi_query_close(fq);
		fq = NULL;
	}
	/* few callers: no count kept, the total is counted */
	CHECK_INT(kept_count(out, "fp", &kc, &ka), MI_ERR_NOTFOUND);
	/* an update: fewer calls in one file, more in another, one caller
	 * deleted, one added */
	write_caller(repo, "caller1", 0, false);
	calls -= 2;
	write_caller(repo, "caller2", 9, true);
	calls += 9 - 3;
	snprintf(path, sizeof(path), "%s/caller3.c", repo);
	CHECK_INT(unlink(path), 0);
	calls -= 4;
	write_caller(repo, "added", 5, false);
	calls += 5;
	CHECK_INT(mi_build(&bo, &bs, &err), 0);
	CHECK_INT(kept_count(out, "common", &kc, &ka), 0);
	CHECK_INT(mi_query_open(out, &fq, &err), 0);
	if (fq) {
		CHECK_INT(refs_total(fq, "calls"), calls);
		size_t all = refs_total(fq, "all");
		CHECK_INT(kc, calls);
		CHECK_INT(ka, all);
		mi_query_close(fq);
	}
	mi_buf_release(&err);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", repo, out);
	CHECK_INT(system(cmd), 0);
}

/* What file i of the definitions test defines "dup" as: 0 nothing, 1 a
 * struct, 2 a function, 3 a static function. */
static void write_def(const char *repo, int i, int what)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/d%03d.c", repo, i);
	if (!what) {
		unlink(path);
		return;
	}
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "int other_%d;\n", i);
	if (what == 1)
		fprintf(f, "struct dup {\n\tint x;\n};\n");
	else
		fprintf(f, "%sint dup(int a)\n{\n\treturn a + %d;\n}\n", what == 3 ? "static " : "", i);
	CHECK_INT(fclose(f), 0);
}

/* goto_definition of "dup" against what[]: the paths shown are the 50
 * best in rank order (structs, functions, static functions), each rank
 * in path order, and the total is every definition. */
static void defs_as_expected(const char *out, const int *what, int n)
{
	mi_query *fq = NULL;
	mi_buf err = {0}, want = {0};
	mi_out o = {0};
	size_t total = 0, shown = 0;
	CHECK_INT(mi_query_open(out, &fq, &err), 0);
	if (!fq)
		return;
	for (int w = 1; w <= 3; w++)
		for (int i = 0; i < n; i++)
			if (what[i] == w) {
				total++;
				if (shown++ < 50)
					mi_buf_addf(&want, "d%03d.c ", i);
			}
	CHECK_INT(mi_query_definition(fq, "dup", NULL, &o), 0);
	mi_buf got = {0};
	for (const char *p = mi_buf_str(&o.json); (p = strstr(p, "\"path\":\"")); p += 8) {
		const char *q = strchr(p + 8, '"');
		if (q)
			mi_buf_addf(&got, "%.*s ", (int)(q - p - 8), p + 8);
	}
	CHECK_STR(mi_buf_str(&got), mi_buf_str(&want));
	const char *t = strstr(mi_buf_str(&o.json), "\"total\":");
	CHECK(t && strtoul(t + 8, NULL, 10) == total);
	if (total > 50)
		CHECK_CONTAINS(mi_buf_str(&o.text), "more definitions");
	/* code_research starts from the first of them */
	char first[40] = "";
	mi_out r = {0};
	sscanf(mi_buf_str(&want), "%31s", first);
	strcat(first, ":");
	CHECK_INT(mi_query_research(fq, "dup", 1, NULL, &r), 0);
	CHECK_CONTAINS(mi_buf_str(&r.text), first);
	mi_out_release(&r);
	/* the count kept is the definitions' */
	mi_store *st;
	mi_txn *tx;
	uint64_t kc[256], sum = 0;
	CHECK_INT(mi_store_open(out, MI_STORE_RDONLY, &st), 0);
	CHECK_INT(mi_txn_begin(st, false, &tx), 0);
	CHECK_INT(mi_byname_count(tx, MI_DB_NAMES, "dup", kc), 0);
	for (int b = 0; b < 256; b++)
		sum += kc[b];
	CHECK_INT(sum, total);
	/* the files of the kinds few files hold are listed, the functions'
	 * (more than MI_COUNT_FILES) are not */
	mi_name_count *nc = calloc(1, sizeof(*nc));
	CHECK_INT(mi_names_count(tx, "dup", nc), 0);
	int nwhat[4] = {0};
	for (int i = 0; i < n; i++)
		nwhat[what[i]]++;
	const int sbyte = MI_KIND_STRUCT, fbyte = MI_KIND_FUNCTION, pbyte = MI_KIND_FUNCTION | 0x80;
	CHECK(nc->listed[sbyte] && nc->nfiles[sbyte] == nwhat[1]);
	CHECK(nc->listed[pbyte] && nc->nfiles[pbyte] == nwhat[3]);
	CHECK(!nc->listed[fbyte] && nwhat[2] > MI_COUNT_FILES);
	for (int i = 1; i < nc->nfiles[sbyte]; i++)
		CHECK(nc->files[sbyte][i - 1] < nc->files[sbyte][i]);
	free(nc);
	CHECK_INT(mi_byname_count(tx, MI_DB_NAMES, "other_1", kc), MI_ERR_NOTFOUND);
	mi_txn_abort(tx);
	mi_store_close(st);
	mi_out_release(&o);
	mi_buf_release(&got);
	mi_buf_release(&want);
	mi_buf_release(&err);
	mi_query_close(fq);
}

/* A name defined in many files keeps the count of its definitions by
 * kind, and goto_definition reads its entries only until it has the 50
 * it shows: the same 50, in the same order, with the same total as a
 * walk over all of them, after a fresh build and after updates that
 * turn a struct into a function, delete two, add a struct after the
 * 50th and leave no static function. */
TEST(definitions_of_a_name_many_files_define)
{
	char repo[] = "/tmp/mcpidx-dc-XXXXXX", out[64];
	CHECK(mkdtemp(repo) != NULL);
	snprintf(out, sizeof(out), "%s.idx", repo);
	enum { N = 100 };
	int what[N] = {0};
	for (int i = 0; i < 90; i++) {
		what[i] = i < 8 ? 1 : i % 9 == 1 ? 3 : 2;
		write_def(repo, i, what[i]);
	}
	mi_build_opts bo = {.repo = repo, .out_dir = out, .jobs = 2};
	mi_build_stats bs;
	mi_buf err = {0};
	CHECK_INT(mi_build(&bo, &bs, &err), 0);
	mi_build_stats_release(&bs);
	defs_as_expected(out, what, N);
	/* then a struct after the 50th (read to the end), and a rank gone */
	int changes[][2] = {{3, 2}, {18, 0}, {30, 0}, {12, 3}, {0, 3}, {-1, -1},
			    {95, 1}, {10, 2}, {19, 2}, {28, 2}};
	for (size_t c = 0; c < sizeof(changes) / sizeof(changes[0]); c++) {
		if (changes[c][0] < 0 || c + 1 == sizeof(changes) / sizeof(changes[0])) {
			if (changes[c][0] >= 0) {
				what[changes[c][0]] = changes[c][1];
				write_def(repo, changes[c][0], changes[c][1]);
			}
			CHECK_INT(mi_build(&bo, &bs, &err), 0);
			mi_build_stats_release(&bs);
			defs_as_expected(out, what, N);
			continue;
		}
		what[changes[c][0]] = changes[c][1];
		write_def(repo, changes[c][0], changes[c][1]);
	}
	mi_buf_release(&err);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", repo, out);
	CHECK_INT(system(cmd), 0);
}

/* A page of references over many files (two threads read their callers
 * and lines, each a share of the files): every reference in order, with
 * its own caller, line and text, on the first page and on one further on,
 * and the same as the pages of one reference each. */
TEST(references_page_over_many_files)
{
	char repo[] = "/tmp/mcpidx-rp-XXXXXX", out[64], path[160];
	CHECK(mkdtemp(repo) != NULL);
	snprintf(out, sizeof(out), "%s.idx", repo);
	enum { NF = 30 };
	for (int i = 0; i < NF; i++) {
		snprintf(path, sizeof(path), "%s/f%02d.c", repo, i);
		FILE *f = fopen(path, "w");
		CHECK(f != NULL);
		if (!f)
			continue;
		fprintf(f, "int target(int);\n");
		for (int k = 0; k < i % 3; k++)
			fprintf(f, "/* padding %d */\n", k);
		fprintf(f, "int caller_%d(int a)\n{\n\treturn target(a + %d);\n}\n", i, i);
		if (i % 4 == 0)
			fprintf(f, "int second_%d(void)\n{\n\treturn target(%d) + target(%d);\n}\n", i,
				i, -i);
		CHECK_INT(fclose(f), 0);
	}
	mi_build_opts bo = {.repo = repo, .out_dir = out, .jobs = 2};
	mi_build_stats bs;
	mi_buf err = {0}, want = {0};
	mi_query *fq = NULL;
	CHECK_INT(mi_build(&bo, &bs, &err), 0);
	mi_build_stats_release(&bs);
	CHECK_INT(mi_query_open(out, &fq, &err), 0);
	if (fq) {
		/* what each reference must say, in file order */
		size_t nrefs = 0;
		for (int i = 0; i < NF; i++) {
			int line = 4 + i % 3;
			mi_buf_addf(&want, "{\"path\":\"f%02d.c\",\"line\":%d,\"caller\":\"caller_%d\","
				    "\"kind\":\"call\",\"text\":\"return target(a + %d);\"}", i, line, i, i);
			nrefs++;
			for (int twice = 0; twice < 2 && i % 4 == 0; twice++) { /* two on a line */
				mi_buf_addf(&want, "{\"path\":\"f%02d.c\",\"line\":%d,\"caller\":"
					    "\"second_%d\",\"kind\":\"call\",\"text\":\"return target(%d) + "
					    "target(%d);\"}", i, line + 4, i, i, -i);
				nrefs++;
			}
		}
		mi_out page = {0}, one = {0};
		/* the wanted items, joined by commas, are the page's list; the
		 * two threads share the files out as they go (the second may
		 * start late, or not at all), so the page is read many times */
		mi_buf list = {0};
		for (const char *p = mi_buf_str(&want); *p; p++) {
			if (p != want.buf && p[0] == '{' && p[-1] == '}')
				mi_buf_addc(&list, ',');
			mi_buf_addc(&list, *p);
		}
		for (int round = 0; round < 40; round++) {
			CHECK_INT(mi_query_references(fq, "target", "calls", 100, &page), 0);
			CHECK_CONTAINS(mi_buf_str(&page.json), mi_buf_str(&list));
		}
		const char *j = mi_buf_str(&page.json);
		char tot[32];
		snprintf(tot, sizeof(tot), "\"total\":%zu}", nrefs);
		CHECK_CONTAINS(j, tot);
		/* a page further on is the same items as the whole list there */
		mi_out mid = {0};
		CHECK_INT(mi_query_references_page(fq, "target", "calls", 9, 12, &mid), 0);
		for (size_t k = 9; k < 21; k++) {
			CHECK_INT(mi_query_references_page(fq, "target", "calls", k, 1, &one), 0);
			const char *a = strchr(mi_buf_str(&one.json), '[');
			const char *b = a ? strchr(a, ']') : NULL;
			CHECK(a && b);
			if (a && b) {
				char *item = mi_xstrndup(a + 1, (size_t)(b - a - 1));
				CHECK_CONTAINS(mi_buf_str(&mid.json), item);
				CHECK_CONTAINS(j, item);
				free(item);
			}
		}
		mi_out_release(&mid);
		mi_out_release(&one);
		mi_out_release(&page);
		mi_buf_release(&list);
		mi_query_close(fq);
	}
	mi_buf_release(&want);
	mi_buf_release(&err);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", repo, out);
	CHECK_INT(system(cmd), 0);
}

/* A file whose whole outline is over the default cap (a generated header
 * of 2,500 enums): the build keeps the answer a default read_file gets,
 * so it is served from the index, the same bytes the renderer folds; other
 * caps are rendered. */
TEST(outline_over_the_default_cap_is_stored_folded)
{
	char repo[] = "/tmp/mcpidx-big-XXXXXX", out[64], path[160];
	CHECK(mkdtemp(repo) != NULL);
	snprintf(out, sizeof(out), "%s.idx", repo);
	snprintf(path, sizeof(path), "%s/regs_enum.h", repo);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	for (int i = 0; i < 2500; i++)
		fprintf(f, "typedef enum BLOCK%d_FIELD_CONTROL_MODE {\n"
			   "BLOCK%d_FIELD_CONTROL_MODE_DISABLE = 0x0,\n"
			   "BLOCK%d_FIELD_CONTROL_MODE_ENABLE = 0x1,\n"
			   "} BLOCK%d_FIELD_CONTROL_MODE;\n", i, i, i, i);
	CHECK_INT(fclose(f), 0);
	mi_build_opts bo = {.repo = repo, .out_dir = out, .jobs = 2};
	mi_build_stats bs;
	mi_buf err = {0};
	mi_query *fq = NULL;
	CHECK_INT(mi_build(&bo, &bs, &err), 0);
	mi_build_stats_release(&bs);
	CHECK_INT(mi_query_open(out, &fq, &err), 0);
	char *src = NULL;
	size_t len = 0;
	CHECK_INT(mi_read_file(path, &src, &len), 0);
	mi_parsed p;
	mi_parsed_init(&p);
	CHECK_INT(mi_parse_source(mi_lang_detect("regs_enum.h"), src, len, &p), 0);
	if (fq) {
		/* the record is the default answer */
		mi_txn *t;
		const void *v;
		size_t vl;
		mi_outline_rec r;
		CHECK_INT(mi_txn_begin(mi_query_store(fq), false, &t), 0);
		CHECK_INT(mi_get(t, MI_DB_OUTLINES, "regs_enum.h", 11, &v, &vl), 0);
		CHECK_INT(mi_outline_decode(v, vl, &r), 0);
		CHECK(r.need == MI_OUTLINE_CAPPED);
		mi_out a = {0}, b = {0};
		mi_view_opts def = {0};
		mi_render_view("regs_enum.h", src, len, &p, &def, &a);
		CHECK(r.text_len == a.text.len && !memcmp(r.text, a.text.buf, a.text.len));
		mi_txn_abort(t);
		CHECK_INT(mi_query_read_file(fq, "regs_enum.h", &def, &b), 0);
		CHECK_STR(mi_buf_str(&b.text), mi_buf_str(&a.text));
		CHECK_STR(mi_buf_str(&b.json), mi_buf_str(&a.json));
		CHECK(strstr(mi_buf_str(&a.text), "BLOCK2499") == NULL); /* folded */
		/* a larger cap and a smaller one: rendered, as the renderer does */
		static const size_t caps[] = {1000, 200000};
		for (int k = 0; k < 2; k++) {
			mi_view_opts o = {.max_tokens = caps[k]};
			mi_render_view("regs_enum.h", src, len, &p, &o, &a);
			CHECK_INT(mi_query_read_file(fq, "regs_enum.h", &o, &b), 0);
			CHECK_STR(mi_buf_str(&b.json), mi_buf_str(&a.json));
		}
		CHECK(strstr(mi_buf_str(&b.text), "BLOCK2499") != NULL); /* whole */
		mi_out_release(&a);
		mi_out_release(&b);
		mi_query_close(fq);
	}
	mi_parsed_release(&p);
	free(src);
	mi_buf_release(&err);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", repo, out);
	CHECK_INT(system(cmd), 0);
}

/* Writes repo/rel (directories made) holding one definition of helper. */
static void write_helper(const char *repo, const char *rel, bool priv)
{
	char path[200], cmd[260];
	snprintf(path, sizeof(path), "%s/%s", repo, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	CHECK_INT(system(cmd), 0);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "%sint helper(int a)\n{\n\treturn a + 1;\n}\n", priv ? "static " : "");
	CHECK_INT(fclose(f), 0);
}

/* goto_definition of helper lists the paths in want order (each "path"
 * member of the answer, in turn). */
static void check_def_order(mi_query *fq, const char *const *want, size_t n)
{
	mi_out o = {0};
	CHECK_INT(mi_query_definition(fq, "helper", NULL, &o), 0);
	const char *at = o.json.buf ? o.json.buf : "";
	for (size_t i = 0; i < n; i++) {
		char pat[120];
		snprintf(pat, sizeof(pat), "\"path\":\"%s\"", want[i]);
		const char *hit = strstr(at, pat);
		if (!hit)
			printf("  definition %zu: want %s in %s\n", i, want[i], o.json.buf);
		CHECK(hit != NULL);
		if (hit)
			at = hit + strlen(pat);
	}
	CHECK(strstr(o.json.buf ? o.json.buf : "", "\"total\":") != NULL);
	mi_out_release(&o);
}

/* A name's definitions: public before private, tests and examples last
 * (marked in the names entries, not read from paths), ties in index order
 * (path order after a fresh build, a file an update adds after them). */
TEST(definitions_rank_tests_and_examples_last)
{
	char repo[] = "/tmp/mcpidx-dr-XXXXXX", out[64];
	CHECK(mkdtemp(repo) != NULL);
	snprintf(out, sizeof(out), "%s.idx", repo);
	write_helper(repo, "examples/demo.c", false);
	write_helper(repo, "lib/util.c", false);
	write_helper(repo, "src/helper_test.c", false);
	write_helper(repo, "tests/t.c", false);
	write_helper(repo, "zz/more.c", true);
	mi_build_opts bo = {.repo = repo, .out_dir = out, .jobs = 2};
	mi_build_stats bs;
	mi_buf err = {0};
	mi_query *fq = NULL;
	CHECK_INT(mi_build(&bo, &bs, &err), 0);
	CHECK_INT(mi_query_open(out, &fq, &err), 0);
	if (fq) {
		const char *const fresh[] = {"lib/util.c", "zz/more.c", "examples/demo.c",
					     "src/helper_test.c", "tests/t.c"};
		check_def_order(fq, fresh, 5);
		mi_query_close(fq);
		fq = NULL;
	}
	write_helper(repo, "aa/new.c", false);
	CHECK_INT(mi_build(&bo, &bs, &err), 0);
	CHECK_INT(mi_query_open(out, &fq, &err), 0);
	if (fq) {
		const char *const updated[] = {"lib/util.c", "aa/new.c", "zz/more.c",
					       "examples/demo.c", "src/helper_test.c", "tests/t.c"};
		check_def_order(fq, updated, 6);
		mi_query_close(fq);
	}
	mi_buf_release(&err);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", repo, out);
	CHECK_INT(system(cmd), 0);
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
	RUN(stored_outline_is_served_and_versioned);
	RUN(build_over_other_format_versions);
	RUN(references_in_a_framed_source);
	RUN(reference_totals_of_a_common_name);
	RUN(definitions_of_a_name_many_files_define);
	RUN(references_page_over_many_files);
	RUN(outline_over_the_default_cap_is_stored_folded);
	RUN(definitions_rank_tests_and_examples_last);
	mi_query_close(q);
	mi_buf_release(&err);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", idx);
	if (system(cmd))
		return 1;
	return test_done();
}
