/*
 * test_tokenize.c - the search tokenizer: identifier splitting, stemming,
 * stop words, string literal cap, odd input; and the search record codecs.
 */
#include "format/format.h"
#include "tests/unit/test.h"

#include <math.h>

static void collect(void *ctx, const char *t, size_t len)
{
	mi_buf *b = ctx;

	if (b->len)
		mi_buf_addc(b, ' ');
	mi_buf_add(b, t, len);
}

/* Terms of s joined by spaces, in a static buffer (one test at a time). */
static const char *toks(const char *s, int flags)
{
	static mi_buf b;
	mi_tok *tk = NULL;

	mi_buf_reset(&b);
	if (mi_tok_new(&tk))
		return "(no stemmer)";
	mi_tok_run(tk, s, strlen(s), flags, collect, &b);
	mi_tok_free(tk);
	return mi_buf_str(&b);
}

TEST(splits_identifiers)
{
	CHECK_STR(toks("parseConfig", 0), "pars config parseconfig");
	CHECK_STR(toks("parse_config", 0), "pars config parseconfig");
	CHECK_STR(toks("ParseConfig", 0), "pars config parseconfig");
	CHECK_STR(toks("PARSE_CONFIG", 0), "pars config parseconfig");
	CHECK_STR(toks("HTTPServer", 0), "http server httpserver");
	CHECK_STR(toks("parseHTTPRequest", 0), "pars http req parsehttprequest");
	CHECK_STR(toks("utf8Decode", 0), "utf 8 decod utf8 utf8decode");
	CHECK_STR(toks("ext4_fill_super", 0), "ext 4 fill super ext4 ext4fillsuper");
	CHECK_STR(toks("__init__", 0), "init");
	CHECK_STR(toks("x", 0), "");
}

/* Words of lower-case letters and underscores take a shorter path than
 * words with capitals: the same word with its first letter capitalized
 * gives the same terms through the general one. */
TEST(snake_words_match_the_general_path)
{
	static const char *const words[] = {
		"parse_config", "config", "a_b", "a__b", "__x__", "x", "_", "int", "int_sqrt",
		"static", "the_end", "spin_lock_irqsave", "caf\xc3\xa9_au_lait", "do_it_",
		"abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijxyz_tail",
		"ab_cdefghijabcdefghijabcdefghijabcdefghijabcdefghij",
		/* over MI_TOK_WORD_MAX: no terms either way */
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		for (int flags = 0; flags <= MI_TOK_CODE; flags += MI_TOK_CODE) {
			char cap[256];
			snprintf(cap, sizeof(cap), "%s", words[i]);
			for (char *c = cap; *c; c++)
				if (*c >= 'a' && *c <= 'z') {
					*c = (char)(*c - 32);
					break;
				}
			char *a = strdup(toks(words[i], flags));
			const char *b = toks(cap, flags);
			if (strcmp(a, b))
				TEST_FAIL_("%s (flags %d): \"%s\" vs \"%s\" for %s", words[i], flags, a, b, cap);
			free(a);
		}
}

TEST(code_keywords_only_in_code)
{
	/* `int` is noise as a keyword of code, a word elsewhere. */
	CHECK_STR(toks("static int count;", MI_TOK_CODE), "static cnt");
	CHECK_STR(toks("int_sqrt(x)", MI_TOK_CODE), "int sqrt intsqrt");
	CHECK_STR(toks("convert a string to an int", 0), "convert str int");
}

TEST(query_and_code_agree)
{
	/* What a query says and what the code says meet in the same terms. */
	CHECK_STR(toks("parse config", 0), "pars config");
	CHECK_STR(toks("parsing configs", 0), "pars config");
	CHECK_STR(toks("int parse_config(const char *path)", MI_TOK_CODE),
		  "pars config parseconfig const char path");
}

TEST(letter_digit_segments)
{
	/* A segment mixing letters and digits is a term too, so "p4d" and
	 * "ext4" in a query meet __p4d_alloc and ext4_fill_super. */
	CHECK_STR(toks("__p4d_alloc", 0), "4 alloc p4d p4dalloc");
	CHECK_STR(toks("SHA256Sum", 0), "sha 256 sum sha256 sha256sum");
	CHECK_STR(toks("HTTP2Server", 0), "http 2 server http2 http2server");
	CHECK_STR(toks("x86_64", 0), "86 64 x86 x8664");
	/* Alone, the word is its own whole form; no duplicate. */
	CHECK_STR(toks("p4d", 0), "4 p4d");
	CHECK_STR(toks("__p4d", 0), "4 p4d");
	CHECK_STR(toks("ext4", 0), "ext 4 ext4");
	/* The digits of a word are a term, so "integer 8" meets GetInt8 and
	 * "64" meets ror64. */
	CHECK_STR(toks("GetInt8", 0), "get int 8 int8 getint8");
	CHECK_STR(toks("an integer of 8 bits", 0), "int 8 bit");
	CHECK_STR(toks("ror64", 0), "ror 64 ror64");
}

TEST(abbreviations_meet_their_words)
{
	/* Words code abbreviates are indexed as the abbreviation. */
	CHECK_STR(toks("initialize the buffer", 0), "init buf");
	CHECK_STR(toks("init_buf", 0), "init buf initbuf");
	CHECK_STR(toks("Initialization of directories", 0), "init dir");
	CHECK_STR(toks("dev_cfg device configuration", 0),
		  "dev config devcfg dev config");
	CHECK_STR(toks("number nr num", 0), "num num num");
	CHECK_STR(toks("run it asynchronously", 0), "run async");
	CHECK_STR(toks("AsyncRunner", 0), "async runner asyncrunner");
	/* Words that only look alike stay apart. */
	CHECK_STR(toks("extension ext general gen", 0), "extens ext general gen");
}

TEST(stemming_and_stop_words)
{
	CHECK_STR(toks("The allocation of the pages is failing", 0),
		  "alloc page fail");
	CHECK_STR(toks("the of and to is", 0), "");
	CHECK(mi_tok_is_stop("the", 3));
	CHECK(!mi_tok_is_stop("parse", 5));
	CHECK(!mi_tok_is_stop("a_very_long_word_here", 21));
}

TEST(numbers_and_separators)
{
	CHECK_STR(toks("error 404 at line 7", 0), "err 404 line 7");
	CHECK_STR(toks("x = 7; y = 404;", MI_TOK_CODE), "404");
	CHECK_STR(toks("a.b->c::d", 0), "");
	CHECK_STR(toks("foo.bar->baz::qux", 0), "foo bar baz qux");
	CHECK_STR(toks("0x1f3a", 0), ""); /* hex constants say nothing */
	CHECK_STR(toks("0XFF mask", 0), "mask");
}

TEST(string_literals)
{
	/* A short literal is text; a long one (a blob, a message) is not. */
	CHECK_STR(toks("printf(\"open file\")", MI_TOK_CODE), "printf open file");
	CHECK_STR(toks("s = \"aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn\"; done",
		       MI_TOK_CODE), "done");
	/* Without MI_TOK_CODE the same words count. */
	CHECK_CONTAINS(toks("\"aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm\"", 0),
		       "mmmm");
	/* An apostrophe in a comment is not a literal. */
	CHECK_STR(toks("// don't frobnicate widgets, it's 'slow'", MI_TOK_CODE),
		  "don frobnic widget slow");
	/* Unterminated literal: the rest is still tokenized. */
	CHECK_STR(toks("x = \"open\nreadBuffer", MI_TOK_CODE), "open read buf readbuffer");
	/* Python docstring over the cap. */
	CHECK_STR(toks("def f():\n    \"\"\"Long docstring text that runs on and on and on for\n many words, far past the cap.\"\"\"\n    return walk_tree()",
		       MI_TOK_CODE), "walk tree walktree");
}

TEST(odd_input)
{
	char big[20000];

	/* Non-ASCII bytes are word bytes; invalid UTF-8 does not crash. */
	CHECK_STR(toks("größe", 0), "größe");
	CHECK_STR(toks("\xff\xfe\x80 abc", 0), "\xff\xfe\x80 abc");
	/* A very long word gives nothing; its neighbours still count. */
	memset(big, 'a', sizeof(big));
	memcpy(big, "start ", 6);
	memcpy(big + sizeof(big) - 5, " end", 5);
	CHECK_STR(toks(big, 0), "start end");
	CHECK_STR(toks("", 0), "");
	CHECK_STR(toks("(*)[]{}", MI_TOK_CODE), "");
	CHECK_STR(toks("\"", MI_TOK_CODE), "");
}

TEST(varints)
{
	uint8_t b[10];
	uint64_t vals[] = { 0, 1, 127, 128, 300, 0xffffffffu, UINT64_MAX }, v;

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		size_t n = mi_varint_put(b, vals[i]);
		const uint8_t *p = b;
		CHECK(mi_varint_get(&p, b + n, &v));
		CHECK(v == vals[i]);
		CHECK(p == b + n);
		p = b;
		CHECK(n == 1 || !mi_varint_get(&p, b + n - 1, &v));
	}
}

TEST(chunk_record_roundtrip)
{
	mi_chunk c = { .kind = MI_KIND_METHOD, .vis = MI_VIS_PRIVATE, .level = 2,
		       .start_line = 10, .end_line = 70000, .snip_line = 12, .snip_byte = 1234567 };
	mi_chunk d;
	mi_buf b = { 0 };
	char longdoc[300];

	memset(longdoc, 'd', sizeof(longdoc));
	c.name = "login"; c.name_len = 5;
	c.crumb = "User > login"; c.crumb_len = 12;
	c.sig = "def login(self, pw)"; c.sig_len = 19;
	c.doc = longdoc; c.doc_len = sizeof(longdoc);
	c.syms = ""; c.syms_len = 0;
	mi_chunk_encode(&c, &b);
	CHECK_INT(mi_chunk_decode(b.buf, b.len, &d), 0);
	CHECK_INT(d.kind, MI_KIND_METHOD);
	CHECK_INT(d.vis, MI_VIS_PRIVATE);
	CHECK_INT(d.end_line, 70000);
	CHECK_INT(d.snip_line, 12);
	CHECK_INT(d.snip_byte, 1234567);
	CHECK(d.crumb_len == 12 && !memcmp(d.crumb, "User > login", 12));
	CHECK(d.doc_len == 300 && d.doc[299] == 'd');
	CHECK_INT(d.sym, 0);
	/* Every truncation is refused, never read past the end. */
	for (size_t n = 0; n < b.len; n++)
		CHECK_INT(mi_chunk_decode(b.buf, n, &d), MI_ERR_CORRUPT);

	/* A symbol's chunk: a breadcrumb and symbols list that are just the
	 * name are not stored, and decode as the name; others are kept. */
	mi_chunk e = { .kind = MI_KIND_FUNCTION, .start_line = 3, .end_line = 9, .sym = 7 };
	size_t full;
	e.name = "login"; e.name_len = 5;
	e.crumb = "User > login"; e.crumb_len = 12;
	e.syms = "login"; e.syms_len = 5;
	mi_buf_reset(&b);
	mi_chunk_encode(&e, &b);
	full = b.len;
	CHECK_INT(mi_chunk_decode(b.buf, b.len, &d), 0);
	CHECK_INT(d.sym, 7);
	CHECK(d.crumb_len == 12 && !memcmp(d.crumb, "User > login", 12));
	CHECK(d.syms_len == 5 && !memcmp(d.syms, "login", 5));
	e.crumb = "login"; e.crumb_len = 5;
	mi_buf_reset(&b);
	mi_chunk_encode(&e, &b);
	CHECK_INT(b.len, full - 12);
	CHECK_INT(mi_chunk_decode(b.buf, b.len, &d), 0);
	CHECK(d.crumb_len == 5 && !memcmp(d.crumb, "login", 5));
	CHECK(d.sig_len == 0 && d.doc_len == 0);
	mi_buf_release(&b);
}

TEST(term_stats_and_bm25f)
{
	mi_term_stats s = { .df = 77, .ub_code = 3.5f, .ub_docs = 0.25f }, t;
	uint8_t b[MI_TERM_STATS_MAX];
	uint32_t tf[MI_SF__COUNT] = { 1, 0, 0, 0, 3 };
	uint32_t len[MI_SF__COUNT] = { 1, 0, 0, 0, 30 };
	float avg[MI_SF__COUNT] = { 1, 4, 6, 10, 30 };
	unsigned flags = 1u << MI_SF_NAME | 1u << MI_SF_BODY;
	float code, longer;

	size_t n = mi_term_stats_encode(&s, b);
	CHECK(n == 5); /* one byte of df, two of each bound */
	CHECK_INT(mi_term_stats_decode(b, n, &t), 0);
	CHECK(t.df == 77 && t.ub_code == 3.5f && t.ub_docs == 0.25f);
	CHECK_INT(mi_term_stats_decode(b, n - 1, &t), MI_ERR_CORRUPT);
	CHECK_INT(mi_term_stats_decode(b, n + 1, &t), MI_ERR_CORRUPT);
	/* A bound 16 bits cannot hold comes back rounded up, by at most 2^-7
	 * of it, and the same again when written once more. */
	s = (mi_term_stats){ .df = 300000, .ub_code = 3.14159f, .ub_docs = 1e-20f };
	n = mi_term_stats_encode(&s, b);
	CHECK(n == 7);
	CHECK_INT(mi_term_stats_decode(b, n, &t), 0);
	CHECK(t.df == 300000);
	CHECK(t.ub_code >= 3.14159f && t.ub_code <= 3.14159f * (1 + 1.0f / 128));
	CHECK(t.ub_docs >= 1e-20f && t.ub_docs <= 1e-20f * (1 + 1.0f / 128));
	mi_term_stats u;
	uint8_t b2[MI_TERM_STATS_MAX];
	CHECK(mi_term_stats_encode(&t, b2) == n && !memcmp(b, b2, n));
	CHECK_INT(mi_term_stats_decode(b2, n, &u), 0);
	CHECK(u.ub_code == t.ub_code && u.ub_docs == t.ub_docs);

	code = mi_bm25f_tfn(MI_SM_CODE, flags, tf, len, avg);
	CHECK(code > 0);
	/* Markdown postings do not count for code, and only docs count for docs. */
	CHECK(mi_bm25f_tfn(MI_SM_CODE, flags | MI_POSTF_MD, tf, len, avg) == 0);
	CHECK(mi_bm25f_tfn(MI_SM_DOCS_CODE, flags, tf, len, avg) == 0);
	CHECK(mi_bm25f_tfn(MI_SM_DOCS_CODE, flags | MI_POSTF_MD, tf, len, avg) > 0);
	/* A longer body lowers the score; a larger average raises it. */
	len[MI_SF_BODY] = 300;
	longer = mi_bm25f_tfn(MI_SM_CODE, flags, tf, len, avg);
	CHECK(longer < code);
	avg[MI_SF_BODY] = 300;
	CHECK(mi_bm25f_tfn(MI_SM_CODE, flags, tf, len, avg) > longer);
}

int main(void)
{
	RUN(splits_identifiers);
	RUN(snake_words_match_the_general_path);
	RUN(query_and_code_agree);
	RUN(code_keywords_only_in_code);
	RUN(letter_digit_segments);
	RUN(abbreviations_meet_their_words);
	RUN(stemming_and_stop_words);
	RUN(numbers_and_separators);
	RUN(string_literals);
	RUN(odd_input);
	RUN(varints);
	RUN(chunk_record_roundtrip);
	RUN(term_stats_and_bm25f);
	return test_done();
}
