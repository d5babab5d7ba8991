/*
 * test_simple.c - the Simple (.spl) scanner on the fixtures in
 * testdata/simple/: every field of every symbol, reference and diagnostic,
 * plus inputs built to break it (binary, CRLF, BOM, huge lines, deep nesting).
 *
 * Each fixture NAME.spl has NAME.expected holding the full dump (see dump());
 * run with MI_REGEN=1 to rewrite them after reviewing a change.
 */
#include "test.h"
#include "../../indexer/indexer_int.h"

#include <stdint.h>

static const char *kind_tag(int k)
{
	const char *n = mi_kind_name(k);
	return n ? n : "?";
}

/* Every field of the parse, one record a line, strings quoted as JSON. */
static void dump(const mi_parsed *p, mi_buf *b)
{
	for (size_t i = 0; i < p->nsyms; i++) {
		const mi_symbol *s = &p->syms[i];
		mi_buf_addf(b, "sym %zu %s ", i, kind_tag(s->kind));
		mi_buf_add_json_str(b, s->name, strlen(s->name));
		mi_buf_adds(b, " parent=");
		mi_buf_add_json_str(b, s->parent, strlen(s->parent));
		mi_buf_addf(b, " pidx=%d %s level=%u flags=%u lines=%u-%u bytes=%u-%u body=%u@%u sig=",
			    s->parent_idx, s->vis == MI_VIS_PUBLIC ? "pub" : "priv",
			    s->level, s->flags, s->start_line, s->end_line,
			    s->start_byte, s->end_byte, s->body_byte, s->body_line);
		mi_buf_add_json_str(b, s->sig, strlen(s->sig));
		mi_buf_adds(b, " doc=");
		mi_buf_add_json_str(b, s->doc, strlen(s->doc));
		mi_buf_addc(b, '\n');
	}
	for (size_t i = 0; i < p->nrefs; i++) {
		const mi_ref *r = &p->refs[i];
		static const char *const kinds[] = { "call", "type", "import", "impl" };
		mi_buf_addf(b, "ref %s ", r->kind < 4 ? kinds[r->kind] : "?");
		mi_buf_add_json_str(b, r->callee, strlen(r->callee));
		mi_buf_addf(b, " line=%u caller=%d\n", r->line, r->caller_idx);
	}
	for (size_t i = 0; i < p->ndiags; i++) {
		const mi_diag *d = &p->diags[i];
		mi_buf_addf(b, "diag %c %u ", d->severity, d->line);
		mi_buf_add_json_str(b, d->msg, strlen(d->msg));
		mi_buf_addc(b, '\n');
	}
}

static char *load(const char *path, size_t *len)
{
	char *s = NULL;
	if (mi_read_file(path, &s, len)) {
		printf("cannot read %s (run the tests from the repository root)\n", path);
		return NULL;
	}
	return s;
}

/* Offset of the only occurrence of needle in hay (-1 if absent or repeated). */
static long off(const char *hay, const char *needle)
{
	const char *a = strstr(hay, needle);
	if (!a || strstr(a + 1, needle))
		return -1;
	return a - hay;
}

/* Index of the symbol named name with parent parent, or -1. */
static long find(const mi_parsed *p, const char *parent, const char *name)
{
	for (size_t i = 0; i < p->nsyms; i++)
		if (!strcmp(p->syms[i].name, name) && !strcmp(p->syms[i].parent, parent))
			return (long)i;
	return -1;
}

/* Scans src and checks the invariants every result must keep. */
static void scan_ok(const char *src, size_t len, mi_parsed *p)
{
	mi_parsed_init(p);
	CHECK_INT(mi_simple_scan(src, len, p), 0);
	for (size_t i = 0; i < p->nsyms; i++) {
		const mi_symbol *s = &p->syms[i];
		CHECK(s->start_byte <= s->end_byte && s->end_byte <= len);
		CHECK(s->start_line <= s->end_line);
		CHECK(s->parent_idx < (int32_t)i);
		if (s->body_byte) {
			CHECK(s->body_byte >= s->start_byte && s->body_byte < s->end_byte);
			CHECK(src[s->body_byte] == ':');
		}
	}
	for (size_t i = 0; i < p->nrefs; i++)
		CHECK(p->refs[i].caller_idx < (int32_t)p->nsyms);
	CHECK(p->ndiags <= 101);
}

/* Scans testdata/simple/NAME.spl and compares the dump with NAME.expected. */
static void check_golden(const char *name)
{
	char path[256], exp_path[256];
	size_t len, elen;
	mi_parsed p;
	mi_buf got = { 0 };

	snprintf(path, sizeof(path), "testdata/simple/%s.spl", name);
	snprintf(exp_path, sizeof(exp_path), "testdata/simple/%s.expected", name);
	char *src = load(path, &len);
	CHECK(src != NULL);
	if (!src)
		return;
	mi_parsed_init(&p);
	CHECK_INT(mi_simple_scan(src, len, &p), 0);
	CHECK_INT(p.lang, MI_LANG_SIMPLE);
	dump(&p, &got);
	if (getenv("MI_REGEN")) {
		FILE *f = fopen(exp_path, "w");
		CHECK(f != NULL);
		if (f) {
			fwrite(got.buf, 1, got.len, f);
			fclose(f);
		}
	}
	char *want = load(exp_path, &elen);
	CHECK(want != NULL);
	if (want)
		CHECK_STR(mi_buf_str(&got), want);
	free(want);
	free(src);
	mi_buf_release(&got);
	mi_parsed_release(&p);
}

/* ---- seed 000 §9.1, field by field ------------------------------------------ */

#define CHECK_SYM(p, i, kind_, name_, parent_, pidx_, vis_, level_, sl, el, sb, eb, bb, bl, sig_, doc_) do { \
	const mi_symbol *s_ = &(p)->syms[i]; \
	CHECK_INT(s_->kind, kind_); CHECK_STR(s_->name, name_); \
	CHECK_STR(s_->parent, parent_); CHECK_INT(s_->parent_idx, pidx_); \
	CHECK_INT(s_->vis, vis_); CHECK_INT(s_->level, level_); \
	CHECK_INT(s_->start_line, sl); CHECK_INT(s_->end_line, el); \
	CHECK_INT(s_->start_byte, sb); CHECK_INT(s_->end_byte, eb); \
	CHECK_INT(s_->body_byte, bb); CHECK_INT(s_->body_line, bl); \
	CHECK_STR(s_->sig, sig_); CHECK_STR(s_->doc, doc_); CHECK_INT(s_->flags, 0); \
} while (0)

static void check_user(const char *src, size_t len, long first_byte)
{
	mi_parsed p;
	mi_parsed_init(&p);
	CHECK_INT(mi_simple_scan(src, len, &p), 0);
	CHECK_INT(p.lang, MI_LANG_SIMPLE);
	CHECK_INT(p.nsyms, 7);
	CHECK_INT(p.nrefs, 0);
	CHECK_INT(p.ndiags, 0);
	if (p.nsyms == 7) {
		CHECK_SYM(&p, 0, MI_KIND_CLASS, "User", "", -1, MI_VIS_PUBLIC, 0, 1, 7,
			  off(src, "pub class"), off(src, "return true") + 11,
			  off(src, "pub class User") + 14, 1,
			  "pub class User", "");
		CHECK_SYM(&p, 1, MI_KIND_FIELD, "name", "User", 0, MI_VIS_PRIVATE, 1, 2, 2,
			  off(src, "    name: String") + 4, off(src, "    name: String") + 16, 0, 0,
			  "name: String", "");
		CHECK_SYM(&p, 2, MI_KIND_FIELD, "age", "User", 0, MI_VIS_PRIVATE, 1, 3, 3,
			  off(src, "age: Int"), off(src, "age: Int") + 8, 0, 0, "age: Int", "");
		CHECK_SYM(&p, 3, MI_KIND_METHOD, "login", "User", 0, MI_VIS_PUBLIC, 1, 5, 7,
			  off(src, "pub fn login"), off(src, "return true") + 11,
			  off(src, "-> bool:") + 7, 5,
			  "pub fn login(name: String) -> bool", "");
		CHECK_SYM(&p, 4, MI_KIND_TRAIT, "Display", "", -1, MI_VIS_PUBLIC, 0, 9, 10,
			  off(src, "trait Display"), off(src, "-> String") + 9,
			  off(src, "trait Display") + 13, 9, "trait Display", "");
		CHECK_SYM(&p, 5, MI_KIND_METHOD, "show", "Display", 4, MI_VIS_PUBLIC, 1, 10, 10,
			  off(src, "fn show"), off(src, "-> String") + 9, 0, 0,
			  "fn show() -> String", "");
		CHECK_SYM(&p, 6, MI_KIND_POINTCUT, "logging", "", -1, MI_VIS_PUBLIC, 0, 12, 12,
			  off(src, "pointcut"), off(src, "User.login") + 10, 0, 0,
			  "pointcut logging @ User.login", "");
		CHECK_INT(p.syms[0].start_byte, first_byte);
	}
	mi_parsed_release(&p);
}

TEST(seed_user_every_field)
{
	size_t len;
	char *src = load("testdata/simple/user.spl", &len);
	CHECK(src != NULL);
	if (!src)
		return;
	/* Hand-counted anchors, independent of the helpers above. */
	CHECK_INT(off(src, "pub fn login"), 51);
	CHECK_INT(len, 203);
	check_user(src, len, 0);
	free(src);
}

/* The same file with CRLF line ends and a UTF-8 BOM: same lines, names, sigs. */
TEST(crlf_and_bom)
{
	size_t len;
	char *src = load("testdata/simple/user.spl", &len);
	mi_buf b = { 0 };
	CHECK(src != NULL);
	if (!src)
		return;
	mi_buf_adds(&b, "\xEF\xBB\xBF");
	for (size_t i = 0; i < len; i++) {
		if (src[i] == '\n')
			mi_buf_addc(&b, '\r');
		mi_buf_addc(&b, src[i]);
	}
	check_user(b.buf, b.len, 3);
	free(src);
	mi_buf_release(&b);
}

/* ---- the other fixtures: spot checks that read as the rules, then goldens ---- */

TEST(shapes_rules)
{
	size_t len;
	char *src = load("testdata/simple/shapes.spl", &len);
	mi_parsed p;
	long i;
	CHECK(src != NULL);
	if (!src)
		return;
	mi_parsed_init(&p);
	CHECK_INT(mi_simple_scan(src, len, &p), 0);

	/* Doc comments: the '#'/'##' run directly above, markers stripped. */
	i = find(&p, "", "Point");
	CHECK(i >= 0);
	if (i >= 0) {
		CHECK_STR(p.syms[i].doc, "A point in the plane.\nImmutable once built.");
		CHECK_INT(p.syms[i].kind, MI_KIND_STRUCT);
		CHECK_INT(p.syms[i].vis, MI_VIS_PUBLIC);
	}
	/* A '#' inside a string is not a comment. */
	i = find(&p, "Point", "label");
	CHECK(i >= 0);
	if (i >= 0)
		CHECK_STR(p.syms[i].sig, "label: String = \"origin # not a comment\"");
	/* Enum items, one per line or comma-separated; enums are public. */
	i = find(&p, "", "Color");
	CHECK(i >= 0);
	if (i >= 0) {
		CHECK_INT(p.syms[i].vis, MI_VIS_PUBLIC);
		CHECK_STR(p.syms[i].doc, "Colours a shape can take.");
	}
	CHECK(find(&p, "Color", "Red") >= 0);
	CHECK(find(&p, "Color", "Magenta") >= 0);
	i = find(&p, "Color", "Blue");
	CHECK(i >= 0);
	if (i >= 0) {
		CHECK_INT(p.syms[i].kind, MI_KIND_ENUMERATOR);
		CHECK_STR(p.syms[i].doc, "Blue is the default.");
		CHECK_STR(p.syms[i].sig, "Blue = 3");
	}
	i = find(&p, "Color", "Rgb");
	CHECK(i >= 0);
	if (i >= 0)
		CHECK_STR(p.syms[i].sig, "Rgb(r: Int, g: Int, b: Int)");
	/* Trait: a prototype has no body, a default method has one. */
	i = find(&p, "Shape", "area");
	CHECK(i >= 0);
	if (i >= 0) {
		CHECK_INT(p.syms[i].kind, MI_KIND_METHOD);
		CHECK_INT(p.syms[i].body_byte, 0);
		CHECK_STR(p.syms[i].doc, "Area in square units.");
	}
	i = find(&p, "Shape", "name");
	CHECK(i >= 0);
	if (i >= 0)
		CHECK_INT(p.syms[i].body_byte, off(src, "-> String:\n        return \"shape\"") + 9);
	/* Nested class: qualified parent, level 2. */
	i = find(&p, "Canvas.Layer", "draw");
	CHECK(i >= 0);
	if (i >= 0) {
		CHECK_INT(p.syms[i].level, 2);
		CHECK_STR(p.syms[p.syms[i].parent_idx].name, "Layer");
	}
	/* Multi-line header with a comment inside: folded signature. */
	i = find(&p, "Canvas", "create");
	CHECK(i >= 0);
	if (i >= 0) {
		CHECK_STR(p.syms[i].sig, "pub static fn create(width: Int, height: Int) -> Canvas");
		CHECK_INT(p.syms[i].flags, MI_SYMF_STATIC);
		CHECK_INT(p.syms[i].start_line, 46);
		CHECK_INT(p.syms[i].body_line, 49);
	}
	/* impl Trait for Type: a module named after the type, plus an impl ref. */
	i = find(&p, "", "Box");
	CHECK(i >= 0);
	if (i >= 0) {
		CHECK_INT(p.syms[i].kind, MI_KIND_MODULE);
		CHECK_STR(p.syms[i].sig, "impl<T: Shape> Shape for Box<T>");
		int found = 0;
		for (size_t r = 0; r < p.nrefs; r++)
			if (p.refs[r].kind == MI_REF_IMPL && p.refs[r].caller_idx == i &&
			    !strcmp(p.refs[r].callee, "Shape"))
				found++;
		CHECK_INT(found, 1);
	}
	/* Calls: obj.method( records the method; keywords are not calls. */
	int sqrt = 0, kw = 0;
	for (size_t r = 0; r < p.nrefs; r++) {
		if (p.refs[r].kind != MI_REF_CALL)
			continue;
		if (!strcmp(p.refs[r].callee, "sqrt")) {
			sqrt++;
			CHECK_STR(p.syms[p.refs[r].caller_idx].name, "dist");
		}
		if (!strcmp(p.refs[r].callee, "if") || !strcmp(p.refs[r].callee, "while"))
			kw++;
	}
	CHECK_INT(sqrt, 1);
	CHECK_INT(kw, 0);
	CHECK_INT(p.ndiags, 0);
	free(src);
	mi_parsed_release(&p);
}

TEST(broken_diagnostics)
{
	size_t len;
	char *src = load("testdata/simple/broken.spl", &len);
	mi_parsed p;
	CHECK(src != NULL);
	if (!src)
		return;
	mi_parsed_init(&p);
	CHECK_INT(mi_simple_scan(src, len, &p), 0);
	/* Every definition survives the errors around it. */
	CHECK(find(&p, "Broken", "greet") >= 0);
	CHECK(find(&p, "Broken", "count") >= 0);
	CHECK(find(&p, "Missing", "x") >= 0);
	CHECK(find(&p, "", "open_paren") >= 0);
	CHECK(find(&p, "", "after") >= 0);
	CHECK(find(&p, "", "tabs") >= 0);
	mi_buf b = { 0 };
	for (size_t i = 0; i < p.ndiags; i++)
		mi_buf_addf(&b, "%c%u ", p.diags[i].severity, p.diags[i].line);
	CHECK_STR(mi_buf_str(&b), "E4 E7 E10 E13 E17 E19 E20 W24 ");
	mi_buf_release(&b);
	free(src);
	mi_parsed_release(&p);
}

/* Small inputs, one rule each. */
TEST(small_rules)
{
	mi_parsed p;
	const char *src;

	/* Decorators may sit between the doc run and the definition. */
	src = "# Cached.\n@memo(size(8))\nfn fib(n):\n    return fib(n - 1)\n";
	scan_ok(src, strlen(src), &p);
	CHECK_INT(p.nsyms, 1);
	if (p.nsyms == 1) {
		CHECK_STR(p.syms[0].doc, "Cached.");
		CHECK_INT(p.syms[0].start_line, 3);
	}
	CHECK_INT(p.nrefs, 3); /* memo, size (top level), fib (inside fib) */
	if (p.nrefs == 3) {
		CHECK_STR(p.refs[0].callee, "memo");
		CHECK_INT(p.refs[0].caller_idx, -1);
		CHECK_STR(p.refs[2].callee, "fib");
		CHECK_INT(p.refs[2].caller_idx, 0);
	}
	mi_parsed_release(&p);

	/* A blank line breaks the doc run; a comment at another column too. */
	src = "# not mine\n\nfn a():\n    pass\n  # not mine either\nfn b():\n    pass\n";
	scan_ok(src, strlen(src), &p);
	CHECK_INT(p.nsyms, 2);
	if (p.nsyms == 2) {
		CHECK_STR(p.syms[0].doc, "");
		CHECK_STR(p.syms[1].doc, "");
		/* The indented comment still belongs to a's body. */
		CHECK_INT(p.syms[0].end_line, 5);
	}
	mi_parsed_release(&p);

	/* extern declarations need no ':'; other functions do. */
	src = "extern fn puts(s: text) -> i32\nfn oops() -> i32\nfn one(): return 1\n";
	scan_ok(src, strlen(src), &p);
	CHECK_INT(p.nsyms, 3);
	CHECK_INT(p.ndiags, 1);
	if (p.ndiags == 1) {
		CHECK_INT(p.diags[0].line, 2);
		CHECK_STR(p.diags[0].msg, "missing ':' after the 'fn oops' header; add ':' to open its body");
	}
	if (p.nsyms == 3) {
		CHECK_INT(p.syms[0].body_byte, 0);
		CHECK_STR(p.syms[2].sig, "fn one()");
		CHECK_INT(p.syms[2].body_byte, strstr(src, "(): return") - src + 2);
		CHECK_INT(p.syms[2].end_line, 3);
	}
	mi_parsed_release(&p);

	/* impl without a trait: no impl reference. */
	src = "impl User:\n    pub fn greet():\n        say(\"hi\")\n";
	scan_ok(src, strlen(src), &p);
	CHECK_INT(p.nsyms, 2);
	CHECK_INT(p.nrefs, 1);
	if (p.nsyms == 2) {
		CHECK_STR(p.syms[0].name, "User");
		CHECK_STR(p.syms[0].sig, "impl User");
		CHECK_STR(p.syms[1].parent, "User");
	}
	mi_parsed_release(&p);

	/* An unterminated triple-quoted string runs to the end of the file. */
	src = "fn f():\n    x = \"\"\"abc\n\nfn g():\n    pass\n";
	scan_ok(src, strlen(src), &p);
	CHECK_INT(p.nsyms, 1);
	CHECK_INT(p.ndiags, 1);
	if (p.ndiags == 1) {
		CHECK_INT(p.diags[0].line, 2);
		CHECK_CONTAINS(p.diags[0].msg, "triple-quoted");
	}
	mi_parsed_release(&p);

	/* A control header without ':' and without a block is not reported. */
	src = "fn f():\n    if x\n    y()\n";
	scan_ok(src, strlen(src), &p);
	CHECK_INT(p.ndiags, 0);
	mi_parsed_release(&p);

	/* Backslash continuation joins lines; strings hide brackets and '#'. */
	src = "fn f(a, \\\n     b) -> Str:\n    return \"(#\" + ')]'\n";
	scan_ok(src, strlen(src), &p);
	CHECK_INT(p.ndiags, 0);
	CHECK_INT(p.nsyms, 1);
	if (p.nsyms == 1) {
		CHECK_STR(p.syms[0].sig, "fn f(a, b) -> Str");
		CHECK_INT(p.syms[0].body_line, 2);
		CHECK_INT(p.syms[0].end_line, 3);
	}
	mi_parsed_release(&p);
}

TEST(golden_user) { check_golden("user"); }
TEST(golden_shapes) { check_golden("shapes"); }
TEST(golden_aspects) { check_golden("aspects"); }
TEST(golden_broken) { check_golden("broken"); }

/* ---- hostile inputs --------------------------------------------------------- */

TEST(empty_and_null)
{
	mi_parsed p;
	scan_ok("", 0, &p);
	CHECK_INT(p.nsyms + p.nrefs + p.ndiags, 0);
	mi_parsed_release(&p);
	mi_parsed_init(&p);
	CHECK_INT(mi_simple_scan(NULL, 0, &p), 0);
	CHECK_INT(mi_simple_scan(NULL, 5, &p), MI_ERR_ARG);
	CHECK_INT(mi_simple_scan("x", 1, NULL), MI_ERR_ARG);
	mi_parsed_release(&p);
	/* Not NUL-terminated: the byte after len is never read as source. */
	char buf[8] = "fn f(";
	scan_ok(buf, 4, &p);
	CHECK_INT(p.nsyms, 1);
	if (p.nsyms == 1)
		CHECK_STR(p.syms[0].sig, "fn f");
	mi_parsed_release(&p);
}

TEST(binary_bytes)
{
	char buf[4096];
	uint32_t x = 12345;
	mi_parsed p;
	for (int round = 0; round < 50; round++) {
		for (size_t i = 0; i < sizeof(buf); i++) {
			x = x * 1103515245u + 12345u;
			/* Mix raw bytes with the characters the scanner reacts to. */
			static const char pick[] = "\n\t :()[]{}'\"#\\@<>,.fn class pub impl for";
			buf[i] = (x >> 16) % 3 ? (char)(x >> 8) : pick[(x >> 9) % (sizeof(pick) - 1)];
		}
		scan_ok(buf, sizeof(buf), &p);
		mi_parsed_release(&p);
	}
	scan_ok("\0\0\0fn\0x():\n\0", 12, &p);
	mi_parsed_release(&p);
}

TEST(huge_single_line)
{
	size_t n = 10u << 20;
	char *s = malloc(n);
	mi_parsed p;
	memcpy(s, "pub fn big(", 11);
	memset(s + 11, 'a', n - 11);
	scan_ok(s, n, &p);
	CHECK_INT(p.nsyms, 1);
	if (p.nsyms == 1) {
		CHECK_INT(strlen(p.syms[0].sig), 1024);
		CHECK_INT(p.syms[0].end_byte, n);
	}
	CHECK_INT(p.ndiags, 1); /* '(' is never closed */
	mi_parsed_release(&p);
	/* A 10 MB string and 10 MB of open brackets. */
	s[0] = '"';
	memset(s + 1, 'b', n - 1);
	scan_ok(s, n, &p);
	CHECK_INT(p.ndiags, 1);
	mi_parsed_release(&p);
	memset(s, '(', n);
	scan_ok(s, n, &p);
	CHECK_INT(p.ndiags, 1);
	mi_parsed_release(&p);
	free(s);
}

TEST(deep_indentation)
{
	mi_buf b = { 0 };
	mi_parsed p;
	/* 10,000 nested blocks, one space deeper each. */
	for (int i = 0; i < 10000; i++) {
		mi_buf_addf(&b, "%*sif x%d:\n", i, "", i);
	}
	mi_buf_addf(&b, "%*sgo()\nfn after():\n    pass\n", 10000, "");
	scan_ok(b.buf, b.len, &p);
	CHECK_INT(p.nsyms, 1);
	CHECK_INT(p.nrefs, 1);
	CHECK_INT(p.ndiags, 0);
	mi_parsed_release(&p);
	/* 10,000 nested definitions: indexed to the nesting cap, then a warning. */
	mi_buf_reset(&b);
	for (int i = 0; i < 10000; i++)
		mi_buf_addf(&b, "%*sfn f%d():\n", i, "", i);
	mi_buf_addf(&b, "%*sreturn 1\n", 10000, "");
	scan_ok(b.buf, b.len, &p);
	CHECK_INT(p.nsyms, 200);
	if (p.nsyms == 200) {
		CHECK_INT(p.syms[199].level, 199);
		CHECK_INT(p.syms[0].end_line, 10001);
		mi_buf q = { 0 };
		for (int i = 0; i < 199; i++)
			mi_buf_addf(&q, "%sf%d", i ? "." : "", i);
		CHECK_STR(p.syms[199].parent, mi_buf_str(&q));
		CHECK_STR(p.syms[199].name, "f199");
		mi_buf_release(&q);
	}
	CHECK_INT(p.ndiags, 1);
	if (p.ndiags == 1) {
		CHECK_INT(p.diags[0].severity, 'W');
		CHECK_INT(p.diags[0].line, 201);
	}
	mi_parsed_release(&p);
	mi_buf_release(&b);
}

TEST(diagnostic_cap)
{
	mi_buf b = { 0 };
	mi_parsed p;
	for (int i = 0; i < 500; i++)
		mi_buf_adds(&b, "x = 1)\n");
	scan_ok(b.buf, b.len, &p);
	CHECK_INT(p.ndiags, 101);
	if (p.ndiags == 101) {
		CHECK_INT(p.diags[99].line, 100);
		CHECK_INT(p.diags[100].severity, 'W');
		CHECK_CONTAINS(p.diags[100].msg, "more than 100 problems");
	}
	mi_parsed_release(&p);
	mi_buf_release(&b);
}

int main(void)
{
	RUN(seed_user_every_field);
	RUN(crlf_and_bom);
	RUN(shapes_rules);
	RUN(broken_diagnostics);
	RUN(small_rules);
	RUN(golden_user);
	RUN(golden_shapes);
	RUN(golden_aspects);
	RUN(golden_broken);
	RUN(empty_and_null);
	RUN(binary_bytes);
	RUN(huge_single_line);
	RUN(deep_indentation);
	RUN(diagnostic_cap);
	return test_done();
}
