/*
 * test_view.c - the folded-view renderer (format/view*.c) on hand-built parses
 * of small sources, and on real parses of the golden cases under
 * testdata/units/<lang>/<case>/ when the parser is linked in.
 */
#include "../../query/query.h"
#include "../../indexer/indexer.h"
#include "test.h"

#include <dirent.h>
#include <sys/stat.h>
#include <time.h>

/* ---- building parses by hand ------------------------------------------- */

/* Byte offset of line ln (1-based) in src. */
static uint32_t line_off(const char *src, uint32_t ln)
{
	uint32_t off = 0;
	for (uint32_t l = 1; l < ln && src[off]; off++)
		if (src[off] == '\n')
			l++;
	return off;
}

/* Adds a symbol spanning lines a..b; body starts at the first `body` char
 * on line `bl` (0: no body). */
static mi_symbol *add(mi_parsed *p, const char *src, int kind, int vis, int parent,
		      const char *name, const char *sig, uint32_t a, uint32_t b,
		      uint32_t bl, char body)
{
	mi_symbol *s = mi_parsed_add_sym(p);
	s->kind = (uint8_t)kind;
	s->vis = (uint8_t)vis;
	s->name = name;
	s->sig = sig;
	s->parent_idx = parent;
	s->parent = parent >= 0 ? p->syms[parent].name : "";
	s->level = parent >= 0 ? p->syms[parent].level + 1 : 0;
	s->start_line = a;
	s->end_line = b;
	s->start_byte = line_off(src, a);
	s->end_byte = line_off(src, b + 1);
	if (bl) {
		const char *q = strchr(src + line_off(src, bl), body);
		s->body_byte = (uint32_t)(q - src);
		s->body_line = bl;
	}
	return s;
}

static void add_diag(mi_parsed *p, uint32_t line, char sev, const char *msg)
{
	mi_diag *d = mi_parsed_add_diag(p);
	d->line = line;
	d->severity = sev;
	d->msg = msg;
}

static const char user_spl[] =
	"pub class User:\n"
	"    name: String\n"
	"    age: Int\n"
	"\n"
	"    pub fn login(name: String) -> bool:\n"
	"        # Implementation\n"
	"        return true\n"
	"\n"
	"trait Display:\n"
	"    fn show() -> String\n"
	"\n"
	"pointcut logging @ User.login\n";

static void user_parse(mi_parsed *p)
{
	const char *s = user_spl;
	mi_parsed_init(p);
	p->lang = MI_LANG_SIMPLE;
	add(p, s, MI_KIND_CLASS, MI_VIS_PUBLIC, -1, "User", "pub class User", 1, 7, 1, ':');
	add(p, s, MI_KIND_FIELD, MI_VIS_PRIVATE, 0, "name", "name: String", 2, 2, 0, 0);
	add(p, s, MI_KIND_FIELD, MI_VIS_PRIVATE, 0, "age", "age: Int", 3, 3, 0, 0);
	add(p, s, MI_KIND_METHOD, MI_VIS_PUBLIC, 0, "login",
	    "pub fn login(name: String) -> bool", 5, 7, 5, ':');
	add(p, s, MI_KIND_TRAIT, MI_VIS_PRIVATE, -1, "Display", "trait Display", 9, 10, 9, ':');
	add(p, s, MI_KIND_METHOD, MI_VIS_PUBLIC, 4, "show", "fn show() -> String", 10, 10, 0, 0);
	add(p, s, MI_KIND_POINTCUT, MI_VIS_PRIVATE, -1, "logging",
	    "pointcut logging @ User.login", 12, 12, 0, 0);
}

static const char point_c[] =
	"#define MAX 10\n"                          /* 1 */
	"struct point {\n"                          /* 2 */
	"\tint x;\n"                                /* 3 */
	"\tint y;\n"                                /* 4 */
	"};\n"                                      /* 5 */
	"enum color { RED, GREEN, BLUE };\n"        /* 6 */
	"/* Adds two points. */\n"                  /* 7 */
	"int add(int a, int b)\n"                   /* 8 */
	"{\n"                                       /* 9 */
	"\treturn a + b;\n"                         /* 10 */
	"}\n"                                       /* 11 */
	"static int helper(void)\n"                 /* 12 */
	"{\n"                                       /* 13 */
	"\treturn 1;\n"                             /* 14 */
	"}\n";                                      /* 15 */

static void point_parse(mi_parsed *p)
{
	const char *s = point_c;
	mi_parsed_init(p);
	p->lang = MI_LANG_C;
	add(p, s, MI_KIND_MACRO, MI_VIS_PUBLIC, -1, "MAX", "#define MAX 10", 1, 1, 0, 0);
	add(p, s, MI_KIND_STRUCT, MI_VIS_PUBLIC, -1, "point", "struct point", 2, 5, 2, '{');
	add(p, s, MI_KIND_FIELD, MI_VIS_PUBLIC, 1, "x", "int x", 3, 3, 0, 0);
	add(p, s, MI_KIND_FIELD, MI_VIS_PUBLIC, 1, "y", "int y", 4, 4, 0, 0);
	add(p, s, MI_KIND_ENUM, MI_VIS_PUBLIC, -1, "color", "enum color", 6, 6, 6, '{');
	add(p, s, MI_KIND_ENUMERATOR, MI_VIS_PUBLIC, 4, "RED", "RED", 6, 6, 0, 0);
	add(p, s, MI_KIND_ENUMERATOR, MI_VIS_PUBLIC, 4, "GREEN", "GREEN", 6, 6, 0, 0);
	add(p, s, MI_KIND_ENUMERATOR, MI_VIS_PUBLIC, 4, "BLUE", "BLUE", 6, 6, 0, 0);
	mi_symbol *f = add(p, s, MI_KIND_FUNCTION, MI_VIS_PUBLIC, -1, "add",
			   "int add(int a, int b)", 8, 11, 9, '{');
	f->doc = "Adds two points.";
	add(p, s, MI_KIND_FUNCTION, MI_VIS_PRIVATE, -1, "helper", "static int helper(void)",
	    12, 15, 13, '{');
}

static const char *view(const char *src, const mi_parsed *p, const mi_view_opts *o,
			mi_out *out)
{
	mi_out_reset(out);
	int rc = mi_render_view("t", src, strlen(src), p, o, out);
	if (rc)
		return "(error)";
	return mi_buf_str(&out->text);
}

static const char *expand(const char *src, const mi_parsed *p, const char *sel,
			  const char *what, const mi_view_opts *o, mi_out *out)
{
	mi_out_reset(out);
	mi_render_expand("t", src, strlen(src), p, sel, what, o, out);
	return mi_buf_str(&out->text);
}

/* ---- seed 000 §9: Simple ------------------------------------------------- */

TEST(simple_outline_matches_seed)
{
	mi_parsed p;
	mi_out out = { 0 };
	mi_view_opts o = { 0 };
	user_parse(&p);
	CHECK_STR(view(user_spl, &p, &o, &out),
		  "C> pub class User { ... }\n"
		  "F>   pub fn login(name: String) -> bool { ... }\n"
		  "T> trait Display { ... }\n"
		  "P> pointcut logging @ User.login\n"
		  "V* auto traits: Send, Sync\n");
	o.unicode = true;
	CHECK_STR(view(user_spl, &p, &o, &out),
		  "C> pub class User { \xe2\x80\xa6 }\n"
		  "F>   pub fn login(name: String) -> bool { \xe2\x80\xa6 }\n"
		  "T> trait Display { \xe2\x80\xa6 }\n"
		  "P> pointcut logging @ User.login\n"
		  "V\xe2\x80\xa2 auto traits: Send, Sync\n");
	mi_out_release(&out);
	mi_parsed_release(&p);
}

TEST(simple_expand_matches_seed)
{
	mi_parsed p;
	mi_out out = { 0 };
	user_parse(&p);
	CHECK_STR(expand(user_spl, &p, "User", "all", NULL, &out),
		  "C_ pub class User:\n"
		  "    name: String\n"
		  "    age: Int\n"
		  "\n"
		  "    pub fn login(name: String) -> bool { ... }\n"
		  "\n"
		  "V* auto traits: Send, Sync\n"
		  "V* methods: 1 public, 0 private\n");
	CHECK(!out.is_error);
	CHECK_CONTAINS(mi_buf_str(&out.json), "\"name\":\"User\",\"kind\":\"class\","
		       "\"start_line\":1,\"end_line\":7,\"text\":\"C_ pub class User:\\n");
	mi_view_opts u = { .unicode = true, .block_guides = true };
	CHECK_STR(expand(user_spl, &p, "User.login", "body", &u, &out),
		  "F\xe2\x96\xbc pub fn login(name: String) -> bool:\n"
		  "    # Implementation\n"
		  "    return true\n"
		  "\n"
		  "V\xe2\x80\xa2 end fn login\n");
	CHECK_STR(expand(user_spl, &p, "line:6", "signature", NULL, &out),
		  "F_ pub fn login(name: String) -> bool\n");
	mi_out_release(&out);
	mi_parsed_release(&p);
}

TEST(simple_compact_and_all)
{
	mi_parsed p;
	mi_out out = { 0 };
	mi_view_opts o = { .mode = "compact" };
	user_parse(&p);
	CHECK_STR(view(user_spl, &p, &o, &out),
		  "C> pub class User { 1 method }\n"
		  "T> trait Display { 1 method }\n"
		  "P> pointcut logging @ User.login\n"
		  "V* auto traits: Send, Sync\n");
	o.mode = "outline";
	o.all = true;
	CHECK_STR(view(user_spl, &p, &o, &out),
		  "C> pub class User { ... }\n"
		  "V* members: name, age\n"
		  "F>   pub fn login(name: String) -> bool { ... }\n"
		  "T> trait Display { ... }\n"
		  "P> pointcut logging @ User.login\n"
		  "V* auto traits: Send, Sync\n");
	o.block_guides = true;
	o.all = false;
	CHECK_STR(view(user_spl, &p, &o, &out),
		  "C> pub class User { ... }\n"
		  "F>   pub fn login(name: String) -> bool { ... }\n"
		  "V* end class User\n"
		  "T> trait Display { ... }\n"
		  "P> pointcut logging @ User.login\n"
		  "V* auto traits: Send, Sync\n");
	mi_out_release(&out);
	mi_parsed_release(&p);
}

/* ---- C: data types inline, groups, privacy -------------------------------- */

TEST(c_outline_compact)
{
	mi_parsed p;
	mi_out out = { 0 };
	mi_view_opts o = { 0 };
	point_parse(&p);
	CHECK_STR(view(point_c, &p, &o, &out),
		  "V* macros: MAX\n"
		  "S> struct point { x, y }\n"
		  "E> enum color { RED, GREEN, BLUE }\n"
		  "F> int add(int a, int b) { ... }\n");
	o.all = true;
	o.line_numbers = 2;
	CHECK_STR(view(point_c, &p, &o, &out),
		  "   V* macros: MAX\n"
		  "02 S> struct point { x, y }\n"
		  "06 E> enum color { RED, GREEN, BLUE }\n"
		  "08 F> int add(int a, int b) { ... }\n"
		  "12 F> static int helper(void) { ... }\n");
	o.line_numbers = 1;
	o.all = false;
	CHECK_STR(view(point_c, &p, &o, &out),
		  "V* macros: MAX\n"
		  "2 S> struct point { x, y }\n"
		  "6 E> enum color { RED, GREEN, BLUE }\n"
		  "8 F> int add(int a, int b) { ... }\n");
	CHECK_CONTAINS(mi_buf_str(&out.json), "\"mode\":\"outline\"");
	CHECK_CONTAINS(mi_buf_str(&out.json), "\"line_count\":15,\"symbols\":10,");
	mi_out_release(&out);
	mi_parsed_release(&p);
}

TEST(diagnostics_outline_compact_full)
{
	mi_parsed p;
	mi_out out = { 0 };
	mi_view_opts o = { 0 };
	point_parse(&p);
	add_diag(&p, 10, 'E', "type mismatch: expected i64, got text");
	add_diag(&p, 0, 'H', "cast with .as_i64()");
	add_diag(&p, 3, 'W', "field 'x' is unused");
	add_diag(&p, 14, 'W', "unused result");
	CHECK_STR(view(point_c, &p, &o, &out),
		  "V* macros: MAX\n"
		  "S> struct point { x, y }\n"
		  "V* [W]:3 field 'x' is unused\n"
		  "E> enum color { RED, GREEN, BLUE }\n"
		  "F> int add(int a, int b) { ... }\n"
		  "V* [E]:10 type mismatch: expected i64, got text\n"
		  "V* [H] cast with .as_i64()\n"
		  "V* [W]:14 unused result\n");
	o.mode = "compact";
	CHECK_STR(view(point_c, &p, &o, &out),
		  "V* [1E 2W 1H in file]\n"
		  "V* macros: MAX\n"
		  "S> struct point { x, y }\n"
		  "E> enum color { RED, GREEN, BLUE }\n"
		  "F> int add { ... }\n");
	o.mode = "full";
	const char *t = view(point_c, &p, &o, &out);
	CHECK_CONTAINS(t, "\treturn a + b; // [E] type mismatch: expected i64, got text\n");
	CHECK_CONTAINS(t, "\tint x; // [W] field 'x' is unused\n");
	CHECK(!strstr(t, "{ ... }"));
	CHECK_CONTAINS(mi_buf_str(&out.json), "\"mode\":\"full\"");
	mi_out_release(&out);
	mi_parsed_release(&p);
}

TEST(full_mode_is_source_with_guides)
{
	mi_parsed p;
	mi_out out = { 0 };
	mi_view_opts o = { .mode = "full" };
	point_parse(&p);
	CHECK_STR(view(point_c, &p, &o, &out), point_c);
	o.block_guides = true;
	const char *t = view(point_c, &p, &o, &out);
	CHECK_CONTAINS(t, "\treturn a + b;\n}\nV* end fn add\nstatic int helper");
	CHECK_CONTAINS(t, "};\nV* end struct point\n");
	mi_out_release(&out);
	mi_parsed_release(&p);
}

/* ---- expand --------------------------------------------------------------- */

TEST(expand_docs_ambiguous_unknown)
{
	mi_parsed p;
	mi_out out = { 0 };
	point_parse(&p);
	CHECK_STR(expand(point_c, &p, "add", "all", NULL, &out),
		  "/* Adds two points. */\n"
		  "F_ int add(int a, int b)\n"
		  "{\n"
		  "\treturn a + b;\n"
		  "}\n");
	CHECK_STR(expand(point_c, &p, "add", "docs", NULL, &out), "Adds two points.\n");
	CHECK_STR(expand(point_c, &p, "point", "body", NULL, &out),
		  "S_ struct point {\n\tint x;\n\tint y;\n};\n");
	CHECK_STR(expand(point_c, &p, "line:10", NULL, NULL, &out),
		  "/* Adds two points. */\nF_ int add(int a, int b)\n{\n\treturn a + b;\n}\n");

	expand(point_c, &p, "ad", "all", NULL, &out);
	CHECK(out.is_error);
	CHECK_CONTAINS(mi_buf_str(&out.text), "symbol 'ad' not found in t; did you mean: add (line 8)");
	CHECK_CONTAINS(mi_buf_str(&out.json), "{\"error\":\"symbol 'ad' not found");
	expand(point_c, &p, "add", "everything", NULL, &out);
	CHECK(out.is_error);
	CHECK_CONTAINS(mi_buf_str(&out.text), "use body, signature, docs or all");
	expand(point_c, &p, "line:99", "all", NULL, &out);
	CHECK(out.is_error);
	CHECK_CONTAINS(mi_buf_str(&out.text), "no symbol spans line 99");
	/* a line number past 32 bits, a sign or a blank is not line 10 */
	static const char *const bad_lines[] = { "line:4294967306", "line:18446744073709551626",
						 "line:-1", "line:+10", "line: 10", "line:10 " };
	for (size_t i = 0; i < sizeof bad_lines / sizeof *bad_lines; i++) {
		expand(point_c, &p, bad_lines[i], "all", NULL, &out);
		CHECK(out.is_error);
		CHECK_CONTAINS(mi_buf_str(&out.text), "line:N takes a line number from 1");
	}

	/* a second "add" (e.g. a method) makes the name ambiguous */
	mi_symbol *m = mi_parsed_add_sym(&p);
	*m = p.syms[8];
	m->start_line = m->end_line = 12;
	m->parent = "helper";
	expand(point_c, &p, "add", "all", NULL, &out);
	CHECK(!out.is_error);
	CHECK_CONTAINS(mi_buf_str(&out.text), "V* ambiguous: 'add' matches 2 symbols");
	CHECK_CONTAINS(mi_buf_str(&out.text), "F> int add(int a, int b)  [line:8]\n");
	CHECK_CONTAINS(mi_buf_str(&out.text), "F> int add(int a, int b)  [helper.add, line:12]\n");
	CHECK_CONTAINS(mi_buf_str(&out.json), "\"ambiguous\":true");
	CHECK_CONTAINS(mi_buf_str(&out.json), "{\"name\":\"add\",\"parent\":\"helper\"");
	mi_out_release(&out);
	mi_parsed_release(&p);
}

/* ---- options ---------------------------------------------------------------- */

TEST(max_tokens_cuts_at_symbol)
{
	mi_parsed p;
	mi_buf src = { 0 };
	mi_out out = { 0 };
	for (int i = 1; i <= 200; i++)
		mi_buf_addf(&src, "int function_number_%d(int a) { return a; }\n", i);
	mi_parsed_init(&p);
	p.lang = MI_LANG_C;
	static char names[200][32], sigs[200][64];
	for (int i = 0; i < 200; i++) {
		snprintf(names[i], sizeof(names[i]), "function_number_%d", i + 1);
		snprintf(sigs[i], sizeof(sigs[i]), "int function_number_%d(int a)", i + 1);
		add(&p, src.buf, MI_KIND_FUNCTION, MI_VIS_PUBLIC, -1, names[i], sigs[i],
		    (uint32_t)i + 1, (uint32_t)i + 1, (uint32_t)i + 1, '{');
	}
	mi_view_opts o = { .max_tokens = 200 };
	const char *t = view(src.buf, &p, &o, &out);
	CHECK_CONTAINS(t, "F> int function_number_1(int a) { ... }\n");
	CHECK_CONTAINS(t, "more symbols; use expand_at or filter]\n");
	CHECK(!strstr(t, "function_number_200"));
	CHECK(mi_token_estimate(t, strlen(t)) <= 200);
	/* the count in the truncation line matches what is missing */
	size_t shown = 0;
	for (const char *q = t; (q = strstr(q, "F> ")); q++)
		shown++;
	char want[64];
	snprintf(want, sizeof(want), "[truncated: %zu more symbols", 200 - shown);
	CHECK_CONTAINS(t, want);
	o.mode = "full";
	t = view(src.buf, &p, &o, &out);
	CHECK_CONTAINS(t, "more symbols; use expand_at, mode=outline or filter]\n");
	CHECK(mi_token_estimate(t, strlen(t)) <= 200);
	mi_out_release(&out);
	mi_parsed_release(&p);
	mi_buf_release(&src);
}

TEST(coverage_from_lcov)
{
	mi_parsed p;
	mi_out out = { 0 };
	point_parse(&p);
	const char *lcov = "build/test-view.lcov";
	FILE *f = fopen(lcov, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("TN:\nSF:/elsewhere/other.c\nDA:9,1\nend_of_record\n"
	      "SF:/abs/src/t\nDA:9,1\nDA:10,0\nDA:11,3\nDA:13,0\nend_of_record\n", f);
	fclose(f);
	mi_view_opts o = { .coverage = true, .lcov_path = lcov, .all = true };
	CHECK_STR(view(point_c, &p, &o, &out),
		  "V* coverage: 50% (lines)\n"
		  "V* macros: MAX\n"
		  "S> struct point { x, y }\n"
		  "E> enum color { RED, GREEN, BLUE }\n"
		  "F> int add(int a, int b) { ... }\n"
		  "V* coverage: 67% (lines)\n"
		  "F> static int helper(void) { ... }\n"
		  "V* coverage: 0% (lines)\n");
	/* branches (BRDA; "-" never reached), per block and for the module */
	f = fopen(lcov, "w");
	fputs("SF:/abs/src/t\nDA:9,1\nDA:10,0\nDA:11,3\nDA:13,0\n"
	      "BRDA:10,0,0,1\nBRDA:10,0,1,0\nBRDA:11,0,0,-\nBRDA:13,0,0,-\nend_of_record\n", f);
	fclose(f);
	CHECK_CONTAINS(view(point_c, &p, &o, &out),
		       "V* coverage: 50% (lines), 25% (branches)\nV* macros: MAX\n");
	CHECK_CONTAINS(view(point_c, &p, &o, &out),
		       "F> int add(int a, int b) { ... }\nV* coverage: 67% (lines), 33% (branches)\n"
		       "F> static int helper(void) { ... }\nV* coverage: 0% (lines), 0% (branches)\n");
	o.lcov_path = "build/no-such.lcov";
	CHECK(!strstr(view(point_c, &p, &o, &out), "coverage"));
	remove(lcov);
	mi_out_release(&out);
	mi_parsed_release(&p);
}

TEST(generics_elided_and_traits)
{
	static const char src[] =
		"pub struct Cache<K: Hash + Eq, V> {\n"
		"    map: HashMap<K, V>,\n"
		"}\n"
		"impl<K: Hash + Eq, V> Cache<K, V> {\n"
		"    pub fn get(&self, k: &K) -> Option<&V> { None }\n"
		"}\n"
		"pub struct Box1<T> { v: T }\n"
		"pub struct Wide<TTTTTTTTTTTTTTTTTTTTTTTTT> { v: i32 }\n";
	mi_parsed p;
	mi_out out = { 0 };
	mi_parsed_init(&p);
	p.lang = MI_LANG_RUST;
	add(&p, src, MI_KIND_STRUCT, MI_VIS_PUBLIC, -1, "Cache", "pub struct Cache<K: Hash + Eq, V>", 1, 3, 1, '{');
	add(&p, src, MI_KIND_FIELD, MI_VIS_PUBLIC, 0, "map", "map: HashMap<K, V>", 2, 2, 0, 0);
	add(&p, src, MI_KIND_MODULE, MI_VIS_PUBLIC, -1, "Cache", "impl<K: Hash + Eq, V> Cache<K, V>", 4, 6, 4, '{');
	add(&p, src, MI_KIND_METHOD, MI_VIS_PUBLIC, 2, "get", "pub fn get(&self, k: &K) -> Option<&V>", 5, 5, 5, '{');
	add(&p, src, MI_KIND_STRUCT, MI_VIS_PUBLIC, -1, "Box1", "pub struct Box1<T>", 7, 7, 7, '{');
	add(&p, src, MI_KIND_FIELD, MI_VIS_PRIVATE, 4, "v", "v: T", 7, 7, 0, 0);
	add(&p, src, MI_KIND_STRUCT, MI_VIS_PUBLIC, -1, "Wide", "pub struct Wide<TTTTTTTTTTTTTTTTTTTTTTTTT>", 8, 8, 8, '{');
	mi_ref *r = mi_parsed_add_ref(&p);
	r->kind = MI_REF_IMPL;
	r->callee = "Display";
	r->caller_idx = 0;
	r = mi_parsed_add_ref(&p);
	r->kind = MI_REF_IMPL;
	r->callee = "Cache"; /* already in the signature: not repeated */
	r->caller_idx = 2;
	mi_view_opts o = { 0 };
	CHECK_STR(view(src, &p, &o, &out),
		  "S> pub struct Cache<K: Hash + Eq, ...> { map }\n"
		  "V* traits: Display\n"
		  "M> impl<K: Hash + Eq, ...> Cache<K, V> { ... }\n"
		  "F>   pub fn get(&self, k: &K) -> Option<&V> { ... }\n"
		  "S> pub struct Box1<T> { ... }\n"
		  "S> pub struct Wide<...> { ... }\n");
	o.mode = "compact";
	CHECK_STR(view(src, &p, &o, &out),
		  "S> pub struct Cache<K: Hash + Eq, ...> { map }\n"
		  "M> impl<K: Hash + Eq, ...> Cache<K, V> { 1 method }\n"
		  "S> pub struct Box1<T> { ... }\n"
		  "S> pub struct Wide<...> { ... }\n");
	CHECK_STR(expand(src, &p, "Cache", "signature", NULL, &out),
		  "V* ambiguous: 'Cache' matches 2 symbols; use Parent.NAME or line:N\n"
		  "S> pub struct Cache<K: Hash + Eq, ...>  [line:1]\n"
		  "M> impl<K: Hash + Eq, ...> Cache<K, V>  [line:4]\n");
	CHECK_STR(expand(src, &p, "line:2", "signature", NULL, &out),
		  "S_ pub struct Cache<K: Hash + Eq, V>\n");
	mi_out_release(&out);
	mi_parsed_release(&p);
}

TEST(markdown_headings)
{
	static const char md[] =
		"# Simple Language Reference\n"   /* 1 */
		"\n"                                /* 2 */
		"## 1. Types\n"                     /* 3 */
		"Ints and strings.\n"               /* 4 */
		"## 2. Functions\n"                 /* 5 */
		"### Syntax\n"                      /* 6 */
		"fn name(args)\n"                   /* 7 */
		"## 3. Classes\n"                   /* 8 */
		"Classes hold fields.\n";           /* 9 */
	mi_parsed p;
	mi_out out = { 0 };
	mi_parsed_init(&p);
	p.lang = MI_LANG_MARKDOWN;
	mi_symbol *h;
	h = add(&p, md, MI_KIND_HEADING, 0, -1, "Simple Language Reference", "# Simple Language Reference", 1, 9, 0, 0);
	h->level = 1;
	h = add(&p, md, MI_KIND_HEADING, 0, 0, "1. Types", "## 1. Types", 3, 4, 0, 0);
	h->level = 2;
	h = add(&p, md, MI_KIND_HEADING, 0, 0, "2. Functions", "## 2. Functions", 5, 7, 0, 0);
	h->level = 2;
	h = add(&p, md, MI_KIND_HEADING, 0, 2, "Syntax", "### Syntax", 6, 7, 0, 0);
	h->level = 3;
	h = add(&p, md, MI_KIND_HEADING, 0, 0, "3. Classes", "## 3. Classes", 8, 9, 0, 0);
	h->level = 2;
	mi_view_opts o = { .unicode = true };
	CHECK_STR(view(md, &p, &o, &out),
		  "# Simple Language Reference\n"
		  "## 1. Types { \xe2\x80\xa6 }\n"
		  "## 2. Functions\n"
		  "### Syntax { \xe2\x80\xa6 }\n"
		  "## 3. Classes { \xe2\x80\xa6 }\n");
	CHECK_STR(expand(md, &p, "2. Functions", "all", NULL, &out),
		  "## 2. Functions\n### Syntax { ... }\n");
	mi_out_release(&out);
	mi_parsed_release(&p);
}

TEST(token_estimate)
{
	CHECK_INT(mi_token_estimate("", 0), 0);
	CHECK_INT(mi_token_estimate("hello", 5), 1);
	CHECK_INT(mi_token_estimate("hello world", 11), 2);
	CHECK_INT(mi_token_estimate("getUserName", 11), 3);
	CHECK_INT(mi_token_estimate("mi_buf_add", 10), 3);
	CHECK_INT(mi_token_estimate("1234567", 7), 3);
	const char *code = "int main(void)\n{\n\treturn 0;\n}\n";
	size_t t = mi_token_estimate(code, strlen(code));
	CHECK(t >= 8 && t <= 16);
	/* longer text costs more, deterministically */
	CHECK(mi_token_estimate(point_c, strlen(point_c)) > t);
	CHECK_INT(mi_token_estimate(point_c, strlen(point_c)),
		  mi_token_estimate(point_c, strlen(point_c)));
	/* Never more tokens than bytes (the MCP layer's budget check relies
	 * on it): every prefix of every byte mix, and short runs of each. */
	static const char *const mixes[] = {
		"a", " ", "\n", "1", "+", "\xe4\xb8\xad", "\xc3\xa9", "\x80", "\xff",
		" \n \n  x", "+a", "++a", "a1b2", "\t\t\n\t\tz", ".,;:(){}[]<>",
	};
	unsigned seed = 12345;
	char buf[256];
	for (int r = 0; r < 2000; r++) {
		size_t n = 0;
		while (n < sizeof buf - 8) {
			seed = seed * 1103515245 + 12345;
			const char *m = mixes[(seed >> 16) % 15];
			size_t ml = strlen(m);
			if (n + ml >= sizeof buf)
				break;
			memcpy(buf + n, m, ml);
			n += ml;
			if ((seed >> 20 & 7) == 0)
				break;
		}
		for (size_t k = 0; k <= n; k++)
			if (mi_token_estimate(buf, k) > k) {
				CHECK(mi_token_estimate(buf, k) <= k);
				break;
			}
	}
	CHECK(mi_token_estimate(point_c, strlen(point_c)) <= strlen(point_c));
}

TEST(bad_input)
{
	mi_parsed p;
	mi_out out = { 0 };
	mi_parsed_init(&p);
	mi_view_opts o = { .mode = "weird" };
	CHECK(mi_render_view("x", "", 0, &p, &o, &out) == MI_ERR_ARG);
	CHECK(out.is_error);
	CHECK_CONTAINS(mi_buf_str(&out.text), "unknown mode 'weird'");
	CHECK(mi_render_view("x", NULL, 0, NULL, NULL, &out) == MI_ERR_ARG);
	/* empty file, empty parse */
	CHECK(mi_render_view("x", "", 0, &p, NULL, &out) == 0);
	CHECK_STR(mi_buf_str(&out.text), "");
	CHECK_CONTAINS(mi_buf_str(&out.json), "\"line_count\":0,\"symbols\":0");
	/* spans past the end of the source and a parent after its child */
	mi_symbol *s = mi_parsed_add_sym(&p);
	s->kind = MI_KIND_FUNCTION;
	s->name = "ghost";
	s->sig = "void ghost(\"q\")";
	s->start_line = 40;
	s->end_line = 50;
	s->parent_idx = 5;
	CHECK(mi_render_view("x", "x\n", 2, &p, NULL, &out) == 0);
	CHECK(mi_render_expand("x", "x\n", 2, &p, "ghost", "all", NULL, &out) == 0);
	CHECK_STR(mi_buf_str(&out.text), "F_ \n");
	CHECK(mi_render_expand("x", "x\n", 2, &p, "", "all", NULL, &out) == MI_ERR_ARG);
	mi_out_release(&out);
	mi_parsed_release(&p);
}


/* ---- golden cases: testdata/units/<lang>/<case>/ ------------------------------ */

/*
 * Each case holds input.<ext> and expected files: expected.outline,
 * expected.compact, expected.full (view modes), expected.outline-all (outline
 * with filter=all), expected.expand-<selector> (expand_at what=all),
 * expected.body-<selector>, expected.signature-<selector>,
 * expected.docs-<selector>.  MI_UPDATE_GOLDEN=1 rewrites them from the
 * current output for review with git diff (create an empty file to add one).
 * Every language needs, in at least one of its cases, an outline, a compact,
 * a full and an expand golden.
 */
enum { G_OUTLINE = 1, G_COMPACT = 2, G_FULL = 4, G_EXPAND = 8, G_ALL = 15 };
static int golden_cases, golden_checks;

static void golden_compare(const char *file, const char *got)
{
	char *want = NULL;
	size_t wl = 0;
	golden_checks++;
	if (getenv("MI_UPDATE_GOLDEN")) {
		FILE *f = fopen(file, "w");
		if (f) {
			fputs(got, f);
			fclose(f);
		}
		return;
	}
	if (mi_read_file(file, &want, &wl)) {
		TEST_FAIL_("cannot read %s", file);
		return;
	}
	if (strcmp(want, got)) {
		size_t ln = 1, i = 0;
		while (want[i] && want[i] == got[i]) {
			if (want[i] == '\n')
				ln++;
			i++;
		}
		TEST_FAIL_("%s differs at line %zu:\n--- want\n%s--- got\n%s(MI_UPDATE_GOLDEN=1 "
			   "rewrites after review)", file, ln, want, got);
	}
	free(want);
}

/* Checks one case directory; returns the G_* kinds of golden it holds. */
static int golden_case(const char *dir)
{
	char path[1536], input[1536] = "";
	int have = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "input.", 6))
			snprintf(input, sizeof(input), "%s/%s", dir, e->d_name);
	rewinddir(d);
	char *src = NULL;
	size_t len = 0;
	int lang = mi_lang_detect(input);
	if (!*input || mi_read_file(input, &src, &len)) {
		TEST_FAIL_("%s: no readable input.<ext>", dir);
		closedir(d);
		return 0;
	}
	mi_parsed p;
	mi_parsed_init(&p);
	int rc = mi_parse_detected(lang, src, len, &p);
	if (rc) {
		TEST_FAIL_("%s: mi_parse_source(%s) = %d (%s)", input, mi_lang_name(lang), rc,
			   mi_strerror(rc));
		goto out;
	}
	golden_cases++;
	mi_out out = { 0 };
	const char *rel = input;
	static const struct { const char *file, *mode; bool all; int bit; } modes[] = {
		{ "outline", "outline", false, G_OUTLINE },
		{ "compact", "compact", false, G_COMPACT },
		{ "full", "full", false, G_FULL },
		{ "outline-all", "outline", true, 0 },
	};
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		snprintf(path, sizeof(path), "%s/expected.%s", dir, modes[m].file);
		struct stat st;
		if (stat(path, &st))
			continue;
		mi_view_opts o = { .mode = modes[m].mode, .all = modes[m].all };
		mi_render_view(rel, src, len, &p, &o, &out);
		golden_compare(path, mi_buf_str(&out.text));
		have |= modes[m].bit;
	}
	static const char *whats[] = { "expand", "body", "signature", "docs" };
	while ((e = readdir(d))) {
		for (size_t w = 0; w < 4; w++) {
			char pre[32];
			snprintf(pre, sizeof(pre), "expected.%s-", whats[w]);
			size_t pl = strlen(pre);
			if (strncmp(e->d_name, pre, pl))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			mi_render_expand(rel, src, len, &p, e->d_name + pl,
					 w == 0 ? "all" : whats[w], NULL, &out);
			golden_compare(path, mi_buf_str(&out.text));
			if (w == 0)
				have |= G_EXPAND;
		}
	}
	mi_out_release(&out);
out:
	mi_parsed_release(&p);
	free(src);
	closedir(d);
	return have;
}

/* Checks every case of one language directory; returns the union of kinds. */
static int golden_lang(const char *ldir)
{
	DIR *cases = opendir(ldir);
	struct dirent *c;
	int have = 0;
	if (!cases)
		return -1;
	while ((c = readdir(cases))) {
		if (c->d_name[0] == '.')
			continue;
		char cdir[1024];
		snprintf(cdir, sizeof(cdir), "%s/%s", ldir, c->d_name);
		struct stat st;
		if (stat(cdir, &st) || !S_ISDIR(st.st_mode))
			continue;
		have |= golden_case(cdir);
	}
	closedir(cases);
	return have;
}

TEST(golden_units)
{
	const char *root = "testdata/units";
	DIR *langs = opendir(root);
	struct dirent *l;
	bool known[MI_LANG__COUNT] = { false };
	if (!langs) {
		TEST_FAIL_("no %s (run the tests from the repository root)", root);
		return;
	}
	/* sorted order is not needed: every case stands alone */
	while ((l = readdir(langs))) {
		if (l->d_name[0] == '.')
			continue;
		char ldir[512];
		snprintf(ldir, sizeof(ldir), "%s/%s", root, l->d_name);
		int have = golden_lang(ldir);
		if (have < 0)
			continue;
		int lang = mi_lang_from_name(l->d_name);
		if (lang > MI_LANG_NONE && lang < MI_LANG__COUNT &&
		    !strcmp(mi_lang_name(lang), l->d_name))
			known[lang] = true;
		static const char *kinds[] = { "outline", "compact", "full", "expand-<selector>" };
		char missing[128] = "";
		for (int k = 0; k < 4; k++)
			if (lang > MI_LANG_NONE && !(have & (1 << k)))
				snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
					 "%sexpected.%s", *missing ? ", " : "", kinds[k]);
		if (*missing)
			TEST_FAIL_("%s: no case has %s; add them beside the richest input "
				   "(an empty file, then MI_UPDATE_GOLDEN=1 fills it) and review them",
				   ldir, missing);
	}
	closedir(langs);
	for (int lang = MI_LANG_NONE + 1; lang < MI_LANG__COUNT; lang++)
		if (!known[lang])
			TEST_FAIL_("no golden cases for %s: add %s/%s/<case>/input.<ext> with "
				   "expected view files", mi_lang_name(lang), root, mi_lang_name(lang));
	CHECK(golden_cases >= 17);
	printf("golden: %d cases, %d files compared\n", golden_cases, golden_checks);
}

/* An outline of a typical file stays well under a millisecond: the
 * renderer's own sources, one after the other, are 2,500 lines of C. */
TEST(outline_is_fast)
{
	static const char *const files[] = {
		"format/view.c", "format/view_fold.c", "format/view_sig.c",
		"format/view_outline.c", "format/view_full.c", "format/view_expand.c",
		"format/view_diag.c", "format/view_cover.c", "format/view_traits.c",
	};
	const char *file = "view.c";
	mi_buf all = { 0 };
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char *part;
		size_t plen;
		if (mi_read_file(files[f], &part, &plen)) {
			TEST_FAIL_("cannot read %s", files[f]);
			mi_buf_release(&all);
			return;
		}
		mi_buf_add(&all, part, plen);
		free(part);
	}
	size_t len = all.len;
	char *src = mi_buf_detach(&all);
	mi_parsed p;
	mi_parsed_init(&p);
	CHECK_INT(mi_parse_source(MI_LANG_C, src, len, &p), 0);
	CHECK(p.nsyms > 50);
	mi_out out = { 0 };
	mi_view_opts o = { 0 };
	struct timespec a, b;
	double best = 1e9;
	for (int k = 0; k < 20; k++) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		mi_render_view(file, src, len, &p, &o, &out);
		clock_gettime(CLOCK_MONOTONIC, &b);
		double us = (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3;
		if (us < best)
			best = us;
	}
	CHECK(best < 1000);
	CHECK_CONTAINS(mi_buf_str(&out.text), "F> int mi_render_view(");
	/* same input, same bytes */
	char *first = mi_xstrdup(mi_buf_str(&out.text));
	mi_render_view(file, src, len, &p, &o, &out);
	CHECK_STR(mi_buf_str(&out.text), first);
	free(first);
	mi_out_release(&out);
	mi_parsed_release(&p);
	free(src);
}

int main(void)
{
	RUN(simple_outline_matches_seed);
	RUN(simple_expand_matches_seed);
	RUN(simple_compact_and_all);
	RUN(c_outline_compact);
	RUN(diagnostics_outline_compact_full);
	RUN(full_mode_is_source_with_guides);
	RUN(expand_docs_ambiguous_unknown);
	RUN(max_tokens_cuts_at_symbol);
	RUN(coverage_from_lcov);
	RUN(generics_elided_and_traits);
	RUN(markdown_headings);
	RUN(token_estimate);
	RUN(bad_input);
	RUN(golden_units);
	RUN(outline_is_fast);
	return test_done();
}
