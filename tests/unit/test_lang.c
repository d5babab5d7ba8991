/*
 * test_lang.c - golden tests of symbol extraction: every case directory
 * testdata/units/<lang>/<case>/ holds one input.<ext> and expected.symbols,
 * the dump of what mi_parse_source extracts from it, compared byte for byte.
 *
 * Dump format, one line each, symbols then references then diagnostics:
 *   sym <start>-<end> <kind> <pub|priv> <qualified.name> | <sig> | <doc line 1>
 *   ref <line> <call|type|import|impl|value> <callee> <- <caller qualified name or ->
 *   diag <line> <E|W|H> <message>
 * A heading's kind is written with its level: "heading:2".
 *
 *   MI_REGEN=1 build/tests/test_lang           rewrite every expected.symbols
 *   MI_REGEN=1 MI_CASE=go/ build/tests/test_lang   only cases starting "go/"
 * A regenerated file must be read and judged by hand before it is committed.
 * On a mismatch the actual dump is left in build/test-log/lang/<lang>_<case>.got.
 */
#include "test.h"
#include "../../indexer/indexer.h"
#include "../../indexer/indexer_int.h"

#include <dirent.h>
#include <tree_sitter/api.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define UNITS "testdata/units"
#define GOT_DIR "build/test-log/lang"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the entries of dir (no dot files); count in *n. */
static char **list_dir(const char *dir, size_t *n)
{
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			v = realloc(v, cap * sizeof(*v));
		}
		v[(*n)++] = strdup(e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Whole file into a malloc'd buffer (NUL-terminated); NULL if unreadable. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	mi_buf b = {0};
	char tmp[65536];
	size_t n;
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		mi_buf_add(&b, tmp, n);
	fclose(f);
	mi_buf_addc(&b, 0);
	*len = b.len - 1;
	return mi_buf_detach(&b);
}

static bool spit(const char *path, const char *s, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return false;
	bool ok = fwrite(s, 1, n, f) == n;
	return fclose(f) == 0 && ok;
}

static void add_qualified(mi_buf *b, const mi_symbol *s)
{
	if (s->parent && s->parent[0]) {
		mi_buf_adds(b, s->parent);
		mi_buf_addc(b, '.');
	}
	mi_buf_adds(b, s->name ? s->name : "");
}

/* Appends s up to its first newline. */
static void add_line1(mi_buf *b, const char *s)
{
	if (!s)
		return;
	size_t n = strcspn(s, "\n");
	mi_buf_add(b, s, n);
}

static const char *ref_kind_name(int k)
{
	switch (k) {
	case MI_REF_CALL: return "call";
	case MI_REF_TYPE: return "type";
	case MI_REF_IMPORT: return "import";
	case MI_REF_IMPL: return "impl";
	case MI_REF_VALUE: return "value";
	default: return "?";
	}
}

/* The dump of one parse, in the format described at the top. */
static void dump(const mi_parsed *p, mi_buf *b)
{
	for (size_t i = 0; i < p->nsyms; i++) {
		const mi_symbol *s = &p->syms[i];
		mi_buf_addf(b, "sym %u-%u %s", s->start_line, s->end_line, mi_kind_name(s->kind));
		if (s->kind == MI_KIND_HEADING)
			mi_buf_addf(b, ":%u", s->level);
		mi_buf_adds(b, s->vis == MI_VIS_PRIVATE ? " priv " : " pub ");
		add_qualified(b, s);
		mi_buf_adds(b, " | ");
		add_line1(b, s->sig);
		mi_buf_adds(b, " | ");
		add_line1(b, s->doc);
		/* no trailing blanks: an empty doc must not leave "| " behind */
		while (b->len && b->buf[b->len - 1] == ' ')
			b->len--;
		mi_buf_addc(b, '\n');
	}
	for (size_t i = 0; i < p->nrefs; i++) {
		const mi_ref *r = &p->refs[i];
		mi_buf_addf(b, "ref %u %s ", r->line, ref_kind_name(r->kind));
		add_line1(b, r->callee);
		mi_buf_adds(b, " <- ");
		if (r->caller_idx >= 0 && (size_t)r->caller_idx < p->nsyms)
			add_qualified(b, &p->syms[r->caller_idx]);
		else
			mi_buf_addc(b, '-');
		mi_buf_addc(b, '\n');
	}
	for (size_t i = 0; i < p->ndiags; i++) {
		const mi_diag *d = &p->diags[i];
		mi_buf_addf(b, "diag %u %c ", d->line, d->severity ? d->severity : '?');
		add_line1(b, d->msg);
		mi_buf_addc(b, '\n');
	}
}

/* First line where a and b differ (1-based), with both lines copied out. */
static int first_diff(const char *a, size_t an, const char *b, size_t bn,
		      char *la, char *lb, size_t cap)
{
	size_t i = 0, j = 0;
	int line = 1;
	for (;;) {
		size_t ea = i, eb = j;
		while (ea < an && a[ea] != '\n')
			ea++;
		while (eb < bn && b[eb] != '\n')
			eb++;
		bool enda = i >= an, endb = j >= bn;
		if (enda && endb)
			return 0;
		if (enda || endb || ea - i != eb - j || memcmp(a + i, b + j, ea - i)) {
			snprintf(la, cap, "%.*s", enda ? 9 : (int)(ea - i), enda ? "(the end)" : a + i);
			snprintf(lb, cap, "%.*s", endb ? 9 : (int)(eb - j), endb ? "(the end)" : b + j);
			return line;
		}
		i = ea + 1;
		j = eb + 1;
		line++;
	}
}

static int ncases, nregen;

/* One case: testdata/units/<lang>/<name>/. */
static void run_case(const char *lang, const char *name, bool regen)
{
	char dir[1024], input[1200], expected[1200], label[600];
	snprintf(dir, sizeof(dir), UNITS "/%s/%s", lang, name);
	snprintf(label, sizeof(label), "%s/%s", lang, name);
	snprintf(expected, sizeof(expected), "%s/expected.symbols", dir);
	const char *filter = getenv("MI_CASE");
	if (filter && *filter && strncmp(label, filter, strlen(filter)))
		return;
	ncases++;
	test_case_name = label;
	test_case_failed = 0;

	size_t nfiles;
	char **files = list_dir(dir, &nfiles);
	input[0] = 0;
	for (size_t i = 0; i < nfiles; i++)
		if (!strncmp(files[i], "input.", 6)) {
			snprintf(input, sizeof(input), "%s/%s", dir, files[i]);
			break;
		}
	free_list(files, nfiles);

	char *src = NULL, *want = NULL;
	mi_parsed p;
	mi_parsed_init(&p);
	mi_buf got = {0};
	size_t len = 0, wlen = 0;
	if (!input[0]) {
		TEST_FAIL_("%s: no input.<ext> file in the case directory; add one", dir);
		goto out;
	}
	int lid = mi_lang_detect(input);
	if (lid == MI_LANG_NONE) {
		TEST_FAIL_("%s: no language for this extension; rename the input", input);
		goto out;
	}
	src = slurp(input, &len);
	if (!src) {
		TEST_FAIL_("cannot read %s: %s", input, strerror(errno));
		goto out;
	}
	/* as the build tells it: a C++ header named .h is C++ */
	lid = mi_lang_refine(lid, src, len);
	if (strcmp(mi_lang_name(lid), lang) && !getenv("MI_ANY_DIR"))
		TEST_FAIL_("%s is detected as %s, but sits under %s/", input, mi_lang_name(lid), lang);
	int rc = mi_parse_source(lid, src, len, &p);
	if (rc) {
		const mi_lang_row *row = mi_lang_row_get(lid);
		const char *qe = row && row->ts ? mi_ts_query_error(lid) : NULL;
		TEST_FAIL_("mi_parse_source(%s) returned %d%s%s", input, rc,
			   qe ? ": " : "", qe ? qe : "");
		goto out;
	}
	dump(&p, &got);
	if (regen) {
		if (!spit(expected, got.buf ? got.buf : "", got.len))
			TEST_FAIL_("cannot write %s: %s", expected, strerror(errno));
		else {
			printf("REGEN %s (%zu symbols, %zu refs, %zu diags): review it\n",
			       label, p.nsyms, p.nrefs, p.ndiags);
			nregen++;
		}
		goto out;
	}
	want = slurp(expected, &wlen);
	if (!want) {
		TEST_FAIL_("%s is missing; write it with MI_REGEN=1 MI_CASE=%s build/tests/test_lang "
			   "and check every line by hand", expected, label);
		goto out;
	}
	char la[512], lb[512];
	int line = first_diff(got.buf ? got.buf : "", got.len, want, wlen, la, lb, sizeof(la));
	if (line) {
		char gotpath[1400];
		mkdir("build", 0777);
		mkdir("build/test-log", 0777);
		mkdir(GOT_DIR, 0777);
		snprintf(gotpath, sizeof(gotpath), GOT_DIR "/%s_%s.got", lang, name);
		spit(gotpath, got.buf ? got.buf : "", got.len);
		TEST_FAIL_("line %d differs\n  got:  %s\n  want: %s\n  (diff %s %s)",
			   line, la, lb, expected, gotpath);
	}
out:
	if (!test_case_failed)
		printf("PASS %s\n", label);
	else
		test_failed_cases++;
	fflush(stdout);
	free(src);
	free(want);
	mi_buf_release(&got);
	mi_parsed_release(&p);
}

/* Every tree-sitter language's query compiles. */
TEST(queries_compile)
{
	for (int id = 1; id < MI_LANG__COUNT; id++) {
		const mi_lang_row *row = mi_lang_row_get(id);
		if (!row || !row->ts || !row->query)
			continue;
		const char *e = mi_ts_query_error(id);
		if (e)
			TEST_FAIL_("%s", e);
	}
}

/* Every row of format/lang_list.h has its parser row (same id and name,
 * a grammar with a query or a scanner) and a golden unit directory. */
TEST(rows_match_list)
{
	for (int id = 1; id < MI_LANG__COUNT; id++) {
		const mi_lang_row *row = mi_lang_row_get(id);
		if (!row) {
			TEST_FAIL_("language %d (%s) has no row", id, mi_lang_name(id));
			continue;
		}
		if (row->id != id || strcmp(row->name, mi_lang_name(id)))
			TEST_FAIL_("row %d is %s (id %d): rows follow format/lang_list.h",
				   id, row->name, row->id);
		if (!row->scan && !(row->ts && row->query))
			TEST_FAIL_("%s has neither a grammar with a query nor a scanner", row->name);
		if (mi_lang_from_name(row->name) != id)
			TEST_FAIL_("mi_lang_from_name(%s) != %d", row->name, id);
		char dir[300];
		snprintf(dir, sizeof(dir), UNITS "/%s", row->name);
		if (!is_dir(dir))
			TEST_FAIL_("%s has no golden unit: add %s/<case>/", row->name, dir);
	}
	CHECK(mi_lang_row_get(0) == NULL);
	CHECK(mi_lang_row_get(MI_LANG__COUNT) == NULL);
}

/* File names without an extension and names a row lists with a '*'. */
TEST(detect_names)
{
	CHECK_INT(mi_lang_detect("init/Kconfig"), MI_LANG_KCONFIG);
	CHECK_INT(mi_lang_detect("lib/Kconfig.debug"), MI_LANG_KCONFIG);
	CHECK_INT(mi_lang_detect("Dockerfile"), MI_LANG_DOCKERFILE);
	CHECK_INT(mi_lang_detect("build/Dockerfile.dev"), MI_LANG_DOCKERFILE);
	CHECK_INT(mi_lang_detect("arch/x86/entry/entry_64.S"), MI_LANG_ASM);
	CHECK_INT(mi_lang_detect("Documentation/index.rst"), MI_LANG_RST);
	CHECK_INT(mi_lang_detect("src/Kconfigure.c"), MI_LANG_C);
	CHECK_INT(mi_lang_detect("NotADockerfile"), MI_LANG_NONE);
	/* a name beats another row's pattern: Makefile.PL is Perl, not Make */
	CHECK_INT(mi_lang_detect("Foo-Bar/Makefile.PL"), MI_LANG_PERL);
	CHECK_INT(mi_lang_detect("scripts/Makefile.build"), MI_LANG_MAKE);
	CHECK_INT(mi_lang_detect("lib/Foo.pm"), MI_LANG_PERL);
	CHECK_INT(mi_lang_detect("lib/Foo.mli"), MI_LANG_OCAML_INTERFACE);
	CHECK_INT(mi_lang_detect("src/App.vue"), MI_LANG_VUE);
}

/* The dump itself: a hand-built parse gives the documented lines. */
TEST(dump_format)
{
	mi_parsed p;
	mi_parsed_init(&p);
	mi_symbol *s = mi_parsed_add_sym(&p);
	s->name = "User"; s->parent = ""; s->sig = "class User"; s->doc = "A user.\nMore.";
	s->kind = MI_KIND_CLASS; s->start_line = 1; s->end_line = 9;
	s = mi_parsed_add_sym(&p);
	s->name = "login"; s->parent = "User"; s->sig = "def login(self)"; s->doc = "";
	s->kind = MI_KIND_METHOD; s->vis = MI_VIS_PRIVATE; s->start_line = 2; s->end_line = 3;
	s->parent_idx = 0;
	mi_ref *r = mi_parsed_add_ref(&p);
	r->callee = "check"; r->line = 3; r->caller_idx = 1; r->kind = MI_REF_CALL;
	r = mi_parsed_add_ref(&p);
	r->callee = "os"; r->line = 1; r->kind = MI_REF_IMPORT;
	mi_diag *d = mi_parsed_add_diag(&p);
	d->line = 4; d->severity = 'E'; d->msg = "syntax error: missing ')'";
	mi_buf b = {0};
	dump(&p, &b);
	mi_buf_addc(&b, 0);
	CHECK_STR(b.buf,
		  "sym 1-9 class pub User | class User | A user.\n"
		  "sym 2-3 method priv User.login | def login(self) |\n"
		  "ref 3 call check <- User.login\n"
		  "ref 1 import os <- -\n"
		  "diag 4 E syntax error: missing ')'\n");
	mi_buf_release(&b);
	mi_parsed_release(&p);
}

/* A comparison catches a changed line (the runner can fail). */
TEST(first_diff_finds_line)
{
	char la[64], lb[64];
	CHECK_INT(first_diff("a\nb\n", 4, "a\nb\n", 4, la, lb, sizeof(la)), 0);
	CHECK_INT(first_diff("a\nb\n", 4, "a\nc\n", 4, la, lb, sizeof(la)), 2);
	CHECK_STR(la, "b");
	CHECK_STR(lb, "c");
	CHECK_INT(first_diff("a\n", 2, "a\nb\n", 4, la, lb, sizeof(la)), 2);
	CHECK_STR(la, "(the end)");
}

/* The C prefilter blanks attribute macros, keeps offsets and lines, and
 * leaves preprocessor lines, strings, comments and longer names alone. */
TEST(c_prefilter)
{
	const char *src =
		"extern __printf(2, 3)\n"
		"void log_it(int lvl, const char *fmt, ...);\n"
		"static int __init setup(char __user *p) { return \"__init\"[0]; }\n"
		"#define __printf(a, b) __attribute__((format(printf, a, b)))\n"
		"int __init_task(void); /* __init */\n";
	const char *want =
		"extern               \n"
		"void log_it(int lvl, const char *fmt, ...);\n"
		"static int        setup(char        *p) { return \"__init\"[0]; }\n"
		"#define __printf(a, b) __attribute__((format(printf, a, b)))\n"
		"int __init_task(void); /* __init */\n";
	char *out = mi_c_prefilter(src, strlen(src));
	CHECK(out != NULL);
	if (out) {
		char *z = strndup(out, strlen(src));
		CHECK_STR(z, want);
		free(z);
	}
	free(out);
	CHECK(mi_c_prefilter("int main(void) { return 0; }\n", 29) == NULL);
}

/* Every field of every symbol, reference and diagnostic of a parse, one
 * line each (the walk/query comparison below). */
static void dump_all(const mi_parsed *p, mi_buf *b)
{
	for (size_t i = 0; i < p->nsyms; i++) {
		const mi_symbol *y = &p->syms[i];
		mi_buf_addf(b, "S %s|%s|%d|%d|%d|%d|%d|%u-%u|%u-%u|%u|%u|%s|%s\n", y->name, y->parent,
			    y->parent_idx, y->kind, y->vis, y->level, y->flags, y->start_line,
			    y->end_line, y->start_byte, y->end_byte, y->body_byte, y->body_line,
			    y->sig, y->doc);
	}
	for (size_t i = 0; i < p->nrefs; i++)
		mi_buf_addf(b, "R %s|%u|%d|%d|%u\n", p->refs[i].callee, p->refs[i].line,
			    p->refs[i].caller_idx, p->refs[i].kind, p->refs[i].line_byte);
	for (size_t i = 0; i < p->ndiags; i++)
		mi_buf_addf(b, "D %u|%c|%s\n", p->diags[i].line, p->diags[i].severity,
			    p->diags[i].msg);
}

/* The full dump of path parsed as lang, by the tags query when query. */
static bool parse_dump(const char *path, int lang, bool query, mi_buf *out)
{
	size_t len;
	char *src = slurp(path, &len);
	if (!src)
		return false;
	if (query)
		setenv("MCPIDX_PARSE_QUERY", "1", 1);
	mi_parsed p;
	mi_parsed_init(&p);
	int rc = mi_parse_source(lang, src, len, &p);
	unsetenv("MCPIDX_PARSE_QUERY");
	mi_buf_addf(out, "rc %d\n", rc);
	dump_all(&p, out);
	mi_parsed_release(&p);
	free(src);
	return true;
}

/* C files under dir, recursively, into v. */
static void c_files(const char *dir, char ***v, size_t *n, size_t *cap)
{
	size_t ne;
	char **names = list_dir(dir, &ne);
	for (size_t i = 0; i < ne; i++) {
		char path[600];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		size_t l = strlen(names[i]);
		if (is_dir(path)) {
			c_files(path, v, n, cap);
		} else if (l > 2 && names[i][l - 2] == '.' &&
			   (names[i][l - 1] == 'c' || names[i][l - 1] == 'h')) {
			if (*n == *cap) {
				*cap = *cap ? *cap * 2 : 32;
				*v = realloc(*v, *cap * sizeof(**v));
			}
			(*v)[(*n)++] = strdup(path);
		}
	}
	free_list(names, ne);
}

/* C's tree walk (indexer/lang/c_tags.c) finds exactly what its query
 * indexer/lang/c.scm finds, field for field, on every C file of testdata/
 * (the golden units hold the hard cases: headers the grammar cannot read,
 * typedef forms, macro-made functions, locals). */
TEST(c_walk_matches_query)
{
	char **files = NULL;
	size_t n = 0, cap = 0;
	c_files("testdata", &files, &n, &cap);
	CHECK(n >= 10);
	for (size_t i = 0; i < n; i++) {
		mi_buf walk = {0}, query = {0};
		CHECK(parse_dump(files[i], MI_LANG_C, false, &walk));
		CHECK(parse_dump(files[i], MI_LANG_C, true, &query));
		char la[200], lb[200];
		int line = first_diff(walk.buf, walk.len, query.buf, query.len, la, lb, sizeof(la));
		if (line)
			TEST_FAIL_("%s: the C walk and c.scm differ at dump line %d:\n  walk:  %s\n  query: %s",
				   files[i], line, la, lb);
		mi_buf_release(&walk);
		mi_buf_release(&query);
	}
	free_list(files, n);
}

/* In a fresh process (this binary run again with MI_LAZY_CHILD=1): no
 * query is compiled before a file is parsed, parsing a C file compiles
 * none (C walks its tree), and parsing a Python file compiles Python's and
 * no other.  Exit status 0, else which step failed. */
static int lazy_child(void)
{
	for (int id = MI_LANG_NONE + 1; id < MI_LANG__COUNT; id++)
		if (mi_ts_query_compiled(id))
			return 2;
	static const char src[] = "int add(int a, int b) { return a + b; }\n";
	static const char py[] = "def add(a, b):\n    return a + b\n";
	mi_parsed p;
	mi_parsed_init(&p);
	int rc = mi_parse_source(MI_LANG_C, src, sizeof(src) - 1, &p);
	bool found = rc == 0 && p.nsyms == 1;
	mi_parsed_release(&p);
	if (!found)
		return 3;
	for (int id = MI_LANG_NONE + 1; id < MI_LANG__COUNT; id++)
		if (mi_ts_query_compiled(id))
			return 4;
	mi_parsed_init(&p);
	rc = mi_parse_source(MI_LANG_PYTHON, py, sizeof(py) - 1, &p);
	found = rc == 0 && p.nsyms == 1;
	mi_parsed_release(&p);
	if (!found)
		return 3;
	if (!mi_ts_query_compiled(MI_LANG_PYTHON))
		return 5;
	for (int id = MI_LANG_NONE + 1; id < MI_LANG__COUNT; id++)
		if (id != MI_LANG_PYTHON && mi_ts_query_compiled(id))
			return 6;
	return 0;
}

/* Start-up compiles no query: a process pays only for the languages it
 * meets (each query takes up to a few hundred ms to compile). */
TEST(queries_compile_lazily)
{
	pid_t pid = fork();
	if (pid == 0) {
		setenv("MI_LAZY_CHILD", "1", 1);
		execl("/proc/self/exe", "test_lang", (char *)NULL);
		_exit(127);
	}
	int st = 0;
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		TEST_FAIL_("the child parsing one C and one Python file exited %d (2: a query "
			   "compiled at start-up, 3: no symbol, 4: a query compiled for C, 5: Python's "
			   "query not compiled, 6: another language's compiled)",
			   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* Text of the tree lang makes of src: every node with its fields. */
static char *tree_string(const TSLanguage *lang, const char *src, size_t len)
{
	TSParser *p = ts_parser_new();
	char *s = NULL;
	if (ts_parser_set_language(p, lang)) {
		TSTree *t = ts_parser_parse_string(p, NULL, src, (uint32_t)len);
		if (t)
			s = ts_node_string(ts_tree_root_node(t));
		ts_tree_delete(t);
	}
	ts_parser_delete(p);
	return s;
}

/* The dense copy of a grammar the parser is given (indexer/ts_dense.c)
 * answers every table lookup as the grammar does (each state's successor
 * for each symbol), and parses every golden input of its language into
 * the same tree, node for node.  C's table is made dense. */
TEST(dense_tables_match)
{
	int ndense = 0;
	for (int id = MI_LANG_NONE + 1; id < MI_LANG__COUNT; id++) {
		const mi_lang_row *row = mi_lang_row_get(id);
		if (!row || !row->ts)
			continue;
		const TSLanguage *l = row->ts(), *d = mi_ts_dense(id, l);
		CHECK(mi_ts_dense(id, l) == d);
		if (d == l)
			continue;
		ndense++;
		uint32_t nstate = ts_language_state_count(l), nsym = mi_ts_table_width(l);
		CHECK(ts_language_state_count(d) == nstate && mi_ts_table_width(d) == nsym);
		CHECK(nsym <= ts_language_symbol_count(l));
		size_t bad = 0;
		for (uint32_t st = 0; st < nstate; st++)
			for (uint32_t sym = 0; sym < nsym; sym++)
				bad += ts_language_next_state(l, (TSStateId)st, (TSSymbol)sym) !=
				       ts_language_next_state(d, (TSStateId)st, (TSSymbol)sym);
		if (bad)
			TEST_FAIL_("%s: %zu of %u x %u lookups differ", row->name, bad, nstate, nsym);
		size_t ncase;
		char dir[600];
		snprintf(dir, sizeof(dir), UNITS "/%s", row->name);
		char **cases = list_dir(dir, &ncase);
		for (size_t i = 0; i < ncase; i++) {
			char cdir[1200], path[1400];
			snprintf(cdir, sizeof(cdir), "%s/%s", dir, cases[i]);
			size_t nf;
			char **files = list_dir(cdir, &nf);
			for (size_t k = 0; k < nf; k++) {
				snprintf(path, sizeof(path), "%s/%s", cdir, files[k]);
				size_t len;
				char *src = strncmp(files[k], "input.", 6) ? NULL : slurp(path, &len);
				if (!src)
					continue;
				char *a = tree_string(l, src, len), *b = tree_string(d, src, len);
				CHECK(a && b);
				if (a && b && strcmp(a, b))
					TEST_FAIL_("%s: the dense table parses another tree", path);
				free(a);
				free(b);
				free(src);
			}
			free_list(files, nf);
		}
		free_list(cases, ncase);
	}
	CHECK(ndense >= 1);
	CHECK(mi_ts_dense(MI_LANG_C, mi_lang_row_get(MI_LANG_C)->ts()) !=
	      mi_lang_row_get(MI_LANG_C)->ts());
}

/* The C grammar built with the runtime's own lexer advance (Makefile). */
const TSLanguage *mi_ts_c_runtime_lexer(void);

/* A TSInput that hands out src in pieces of `piece` bytes, so tokens and
 * UTF-8 characters straddle chunk ends. */
typedef struct piece_input {
	const char *src;
	uint32_t len, piece;
} piece_input;

static const char *piece_read(void *payload, uint32_t byte, TSPoint pt, uint32_t *n)
{
	const piece_input *in = payload;
	(void)pt;
	if (byte >= in->len) {
		*n = 0;
		return "";
	}
	*n = in->len - byte < in->piece ? in->len - byte : in->piece;
	return in->src + byte;
}

/* Node by node: symbol, bytes and points of every node, named or not. */
static size_t tree_diff(TSNode a, TSNode b)
{
	if (ts_node_symbol(a) != ts_node_symbol(b) ||
	    ts_node_start_byte(a) != ts_node_start_byte(b) ||
	    ts_node_end_byte(a) != ts_node_end_byte(b) ||
	    ts_node_start_point(a).row != ts_node_start_point(b).row ||
	    ts_node_start_point(a).column != ts_node_start_point(b).column ||
	    ts_node_end_point(a).row != ts_node_end_point(b).row ||
	    ts_node_end_point(a).column != ts_node_end_point(b).column ||
	    ts_node_child_count(a) != ts_node_child_count(b))
		return 1;
	size_t bad = 0;
	for (uint32_t i = 0; i < ts_node_child_count(a) && !bad; i++)
		bad += tree_diff(ts_node_child(a, i), ts_node_child(b, i));
	return bad;
}

/* Parses src with both C grammars (whole, in 7-byte chunks, and within two
 * included ranges) and counts the parses whose trees differ. */
static size_t lexers_differ(const char *src, size_t len)
{
	const TSLanguage *langs[2] = { mi_lang_row_get(MI_LANG_C)->ts(), mi_ts_c_runtime_lexer() };
	size_t bad = 0;
	for (int mode = 0; mode < 3; mode++) {
		TSTree *t[2];
		for (int k = 0; k < 2; k++) {
			TSParser *p = ts_parser_new();
			ts_parser_set_language(p, langs[k]);
			if (mode == 2 && len > 8) {
				TSRange r[2] = {
					{ { 0, 0 }, { 0, 0 }, 0, (uint32_t)(len / 3) },
					{ { 0, 0 }, { 0, 0 }, (uint32_t)(len / 2), (uint32_t)len },
				};
				/* Points of the ranges: count rows and columns. */
				for (int j = 0; j < 2; j++)
					for (uint32_t x = 0, row = 0, col = 0; x <= r[j].end_byte && x <= len; x++) {
						if (x == r[j].start_byte)
							r[j].start_point = (TSPoint){ row, col };
						if (x == r[j].end_byte)
							r[j].end_point = (TSPoint){ row, col };
						if (x < len && src[x] == '\n')
							row++, col = 0;
						else
							col++;
					}
				ts_parser_set_included_ranges(p, r, 2);
			}
			piece_input in = { src, (uint32_t)len, mode == 1 ? 7 : (uint32_t)len + 1 };
			TSInput ti = { &in, piece_read, TSInputEncodingUTF8, NULL };
			t[k] = ts_parser_parse(p, NULL, ti);
			ts_parser_delete(p);
		}
		if (!t[0] || !t[1] || tree_diff(ts_tree_root_node(t[0]), ts_tree_root_node(t[1])))
			bad++;
		ts_tree_delete(t[0]);
		ts_tree_delete(t[1]);
	}
	return bad;
}

/* The C lexer's in-line advance (indexer/lang/grammar_lex.h) gives the
 * trees, bytes and points the runtime's advance gives: every golden C
 * input, then text with UTF-8, a byte order mark, CRLF, tabs, NUL bytes and
 * an unterminated comment, each parsed whole, in 7-byte chunks and within
 * two included ranges. */
TEST(c_lexer_advance_matches_runtime)
{
	size_t ncase, nparsed = 0;
	char **cases = list_dir(UNITS "/c", &ncase);
	for (size_t i = 0; i < ncase; i++) {
		char cdir[1200], path[1400];
		snprintf(cdir, sizeof(cdir), UNITS "/c/%s", cases[i]);
		size_t nf;
		char **files = list_dir(cdir, &nf);
		for (size_t k = 0; k < nf; k++) {
			snprintf(path, sizeof(path), "%s/%s", cdir, files[k]);
			size_t len;
			char *src = strncmp(files[k], "input.", 6) ? NULL : slurp(path, &len);
			if (!src)
				continue;
			if (lexers_differ(src, len))
				TEST_FAIL_("%s: the in-line advance parses another tree", path);
			nparsed++;
			free(src);
		}
		free_list(files, nf);
	}
	free_list(cases, ncase);
	CHECK(nparsed >= 3);
	static const char *const texts[] = {
		"\xef\xbb\xbfint caf\xc3\xa9 = 1; /* na\xc3\xafve \xe2\x82\xac */\nchar *s = \"\xf0\x9f\x98\x80\";\n",
		"int f(void)\r\n{\r\n\treturn 0;\r\n}\r\n// done\r\n",
		"#define X(a)\t((a) + 1)\nint y = X(2);\n\tstatic int z;\n",
		"int a;\0int b;\nint c = '\\0';\n",
		"struct s { int x; };\n/* never closed\nint q;\n",
		"int \xff\xfe bad; int ok;\n\xc3",
	};
	static const size_t lens[] = { 0, 0, 0, 26, 0, 0 };
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		size_t len = lens[i] ? lens[i] : strlen(texts[i]);
		if (lexers_differ(texts[i], len))
			TEST_FAIL_("text %zu: the in-line advance parses another tree", i);
	}
}

/* Signature of the symbol named name parsed from src as lang, or NULL. */
static char *sig_of(int lang, const char *src, size_t len, const char *name)
{
	mi_parsed p;
	mi_parsed_init(&p);
	char *sig = NULL;
	if (mi_parse_source(lang, src, len, &p) == 0)
		for (size_t i = 0; i < p.nsyms && !sig; i++)
			if (!strcmp(p.syms[i].name, name))
				sig = strdup(p.syms[i].sig ? p.syms[i].sig : "");
	mi_parsed_release(&p);
	return sig;
}

/* A signature is folded from a window of the definition's text widened as
 * needed (parse.c fold_sig): a comment anywhere, at a window's edge too,
 * is blanked as if the whole text were, so the signature is the one of
 * the same text with the comment's bytes made spaces. */
TEST(sig_window_edges)
{
	static const struct {
		int lang;
		const char *head, *tail, *name;
	} cases[] = {
		{MI_LANG_DEVICETREE, "/ {\n\treg = <1", " 2>;\n};\n", "reg"},
		{MI_LANG_C, "int f(int a,", " int b);\n", "f"},
	};
	static const char *const comments[] = {"/* gone */", "// gone\n"};
	static const size_t at[] = {1000, 1021, 1022, 1023, 1024, 1025, 4093, 4094, 4095, 4096, 5000};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
		for (size_t m = 0; m < 2; m++)
			for (size_t j = 0; j < sizeof(at) / sizeof(at[0]); j++) {
				mi_buf a = {0}, b = {0};
				mi_buf_adds(&a, cases[k].head);
				while (a.len < at[j] + (k == 0 ? 3 : 0))
					mi_buf_addc(&a, ' ');
				mi_buf_add(&b, a.buf, a.len);
				mi_buf_adds(&a, comments[m]);
				for (size_t z = strlen(comments[m]); z-- > 0;)
					mi_buf_addc(&b, comments[m][z] == '\n' ? '\n' : ' ');
				mi_buf_adds(&a, cases[k].tail);
				mi_buf_adds(&b, cases[k].tail);
				char *sa = sig_of(cases[k].lang, a.buf, a.len, cases[k].name);
				char *sb = sig_of(cases[k].lang, b.buf, b.len, cases[k].name);
				CHECK(sa && sb);
				if (sa && sb && strcmp(sa, sb))
					TEST_FAIL_("%s with %s at %zu: sig '%s', without the comment '%s'",
						   cases[k].name, comments[m], at[j], sa, sb);
				CHECK(!sa || !strstr(sa, "gone"));
				free(sa);
				free(sb);
				mi_buf_release(&a);
				mi_buf_release(&b);
			}
}

int main(void)
{
	if (getenv("MI_LAZY_CHILD"))
		return lazy_child();
	bool regen = getenv("MI_REGEN") && strcmp(getenv("MI_REGEN"), "0");
	RUN(queries_compile_lazily);
	RUN(queries_compile);
	RUN(c_walk_matches_query);
	RUN(rows_match_list);
	RUN(detect_names);
	RUN(dump_format);
	RUN(first_diff_finds_line);
	RUN(c_prefilter);
	RUN(dense_tables_match);
	RUN(c_lexer_advance_matches_runtime);
	RUN(sig_window_edges);
	size_t nlangs;
	char **langs = list_dir(UNITS, &nlangs);
	if (!langs) {
		printf("FAIL units: cannot open %s (run from the repository root)\n", UNITS);
		return 1;
	}
	for (size_t i = 0; i < nlangs; i++) {
		char ldir[600];
		snprintf(ldir, sizeof(ldir), UNITS "/%s", langs[i]);
		if (!is_dir(ldir))
			continue;
		size_t ncase;
		char **cases = list_dir(ldir, &ncase);
		for (size_t j = 0; j < ncase; j++) {
			char cdir[1200];
			snprintf(cdir, sizeof(cdir), "%s/%s", ldir, cases[j]);
			if (is_dir(cdir))
				run_case(langs[i], cases[j], regen);
		}
		free_list(cases, ncase);
	}
	free_list(langs, nlangs);
	if (regen)
		printf("regenerated %d of %d cases\n", nregen, ncases);
	return test_done();
}
