/*
 * test_lsp.c - the language server's text layer: positions in each
 * encoding (surrogate pairs, line breaks, clamping), words under the cursor,
 * file:// URIs, incremental edits of an open document, and how the
 * framing recovers from a header without Content-Length.
 */
#include "test.h"
#include "../../mcp/lsp_int.h"

#include <unistd.h>

/* "a\u00e9\U0001F642b": a (1 byte), e-acute (2), emoji (4), b (1). */
static const char line2[] = "x\nu\xc3\xa9\xf0\x9f\x99\x82v w\r\nlast";

TEST(positions_per_encoding)
{
	static const struct { int enc; uint32_t v_col; } rows[] = {
		{MI_ENC_UTF8, 7}, {MI_ENC_UTF16, 4}, {MI_ENC_UTF32, 3},
	};
	size_t len = strlen(line2), v = 9; /* byte of 'v' */
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		mi_lsp_lines l;
		uint32_t ln, ch;
		mi_lsp_lines_init(&l, line2, len, rows[i].enc);
		CHECK_INT(l.n, 3);
		mi_lsp_position(&l, v, &ln, &ch);
		CHECK_INT(ln, 1);
		CHECK_INT(ch, rows[i].v_col);
		CHECK_INT(mi_lsp_offset(&l, 1, rows[i].v_col), v);
		/* past the line's end: before its CR LF */
		CHECK_INT(mi_lsp_offset(&l, 1, 1000), 12);
		/* past the last line: the end of the text */
		CHECK_INT(mi_lsp_offset(&l, 9, 0), len);
		CHECK_INT(mi_lsp_offset(&l, 2, 2), len - 2);
		mi_lsp_lines_release(&l);
	}
}

TEST(line_breaks)
{
	/* lines break after "\r", "\r\n" (once) and "\n"; the index's lines
	 * after "\n" only */
	static const char t[] = "a\rb\r\nc\n\rd\r";
	static const uint32_t starts[] = {0, 2, 5, 7, 8, 10}, ends[] = {1, 3, 6, 7, 9, 10};
	mi_lsp_lines l;
	size_t a, b;
	uint32_t ln, ch;
	mi_lsp_lines_init(&l, t, strlen(t), MI_ENC_UTF16);
	CHECK_INT(l.n, 6);
	for (uint32_t i = 0; i < 6 && i < l.n; i++) {
		CHECK_INT(l.start[i], starts[i]);
		CHECK_INT(mi_lsp_line_end(&l, i), ends[i]);
		CHECK_INT(mi_lsp_offset(&l, i, 100), ends[i]);
	}
	mi_lsp_position(&l, 9, &ln, &ch);
	CHECK_INT(ln, 4);
	CHECK_INT(ch, 1);
	CHECK(mi_lsp_nl_span(&l, 1, &a, &b));
	CHECK_INT(a, 5);
	CHECK_INT(b, 7);
	CHECK(mi_lsp_nl_span(&l, 2, &a, &b));
	CHECK_INT(b, strlen(t));
	CHECK(!mi_lsp_nl_span(&l, 3, &a, &b));
	CHECK_INT(mi_lsp_nl_line(&l, 0, 3), 1);
	CHECK_INT(mi_lsp_nl_line(&l, 2, 8), 4);
	mi_lsp_lines_release(&l);
	/* without a lone "\r" both count alike */
	mi_lsp_lines_init(&l, line2, strlen(line2), MI_ENC_UTF16);
	CHECK(l.nl == NULL);
	CHECK_INT(mi_lsp_nl_line(&l, 2, 0), 2);
	CHECK(mi_lsp_nl_span(&l, 1, &a, &b));
	CHECK_INT(a, 2);
	CHECK_INT(b, 14);
	mi_lsp_lines_release(&l);
}

TEST(surrogate_pair_halves)
{
	mi_lsp_lines l;
	mi_lsp_lines_init(&l, line2, strlen(line2), MI_ENC_UTF16);
	/* the emoji is units 2..3 of line 1: its second half is not a boundary */
	CHECK_INT(mi_lsp_offset(&l, 1, 2), 5);
	CHECK_INT(mi_lsp_offset(&l, 1, 3), 5);
	mi_lsp_lines_release(&l);
}

TEST(words)
{
	const char *s = "  call(foo_bar, 42);";
	size_t a, b;
	CHECK_INT(mi_lsp_word_at(s, strlen(s), 3, &a, &b), 4);
	CHECK_INT(a, 2);
	CHECK_INT(mi_lsp_word_at(s, strlen(s), 6, &a, &b), 4); /* just after "call" */
	CHECK_INT(mi_lsp_word_at(s, strlen(s), 10, &a, &b), 7);
	CHECK_INT(a, 7);
	CHECK_INT(mi_lsp_word_at(s, strlen(s), 16, &a, &b), 0); /* a number */
	CHECK_INT(mi_lsp_word_at(s, strlen(s), 0, &a, &b), 0);
	CHECK_INT(mi_lsp_find_word(s, 0, strlen(s), "foo"), (size_t)-1);
	CHECK_INT(mi_lsp_find_word(s, 0, strlen(s), "foo_bar"), 7);
	CHECK_INT(mi_lsp_find_word(s, 8, strlen(s), "oo_bar"), 8); /* from bounds the left */
}

TEST(uris)
{
	mi_buf b = {0};
	char *p;
	mi_lsp_path_uri("/tmp/a b/c#d%.c", &b);
	CHECK_STR(b.buf, "file:///tmp/a%20b/c%23d%25.c");
	p = mi_lsp_uri_path(b.buf);
	CHECK_STR(p, "/tmp/a b/c#d%.c");
	free(p);
	p = mi_lsp_uri_path("file://localhost/etc/x.c");
	CHECK_STR(p, "/etc/x.c");
	free(p);
	CHECK(mi_lsp_uri_path("file://host/x.c") == NULL);
	CHECK(mi_lsp_uri_path("https://example.com/x.c") == NULL);
	CHECK(mi_lsp_uri_path("file:///a%00b") == NULL);
	mi_buf_release(&b);
}

TEST(incremental_edits)
{
	mi_lsp_doc d = {0};
	mi_buf err = {0};
	json_t *c;
	mi_parsed_init(&d.parsed);
	mi_buf_adds(&d.text, "int a;\n\xf0\x9f\x99\x82 int b;\n");
	/* replace "b" (UTF-16 column 4 on line 1: after the emoji and a space) */
	c = json_pack("{s:{s:{s:i,s:i},s:{s:i,s:i}},s:s}", "range", "start", "line", 1,
		      "character", 7, "end", "line", 1, "character", 8, "text", "cde");
	CHECK_INT(mi_lsp_doc_change(&d, c, MI_ENC_UTF16, &err), 0);
	CHECK_STR(d.text.buf, "int a;\n\xf0\x9f\x99\x82 int cde;\n");
	json_decref(c);
	c = json_pack("{s:s}", "text", "whole");
	CHECK_INT(mi_lsp_doc_change(&d, c, MI_ENC_UTF16, &err), 0);
	CHECK_STR(d.text.buf, "whole");
	json_decref(c);
	c = json_pack("{s:{s:{s:i}},s:s}", "range", "start", "line", -1, "text", "x");
	CHECK_INT(mi_lsp_doc_change(&d, c, MI_ENC_UTF16, &err), -1);
	CHECK_CONTAINS(err.buf, "range");
	json_decref(c);
	/* a line over UINT32_MAX is past the text, not wrapped to line 0 */
	c = json_pack("{s:{s:{s:I,s:i},s:{s:I,s:i}},s:s}", "range", "start", "line",
		      (json_int_t)1 << 32, "character", 0, "end", "line", (json_int_t)1 << 32,
		      "character", 0, "text", "!");
	CHECK_INT(mi_lsp_doc_change(&d, c, MI_ENC_UTF16, &err), 0);
	CHECK_STR(d.text.buf, "whole!");
	json_decref(c);
	c = json_pack("{s:i}", "text", 3);
	mi_buf_reset(&err);
	CHECK_INT(mi_lsp_doc_change(&d, c, MI_ENC_UTF16, &err), -1);
	CHECK_CONTAINS(err.buf, "text");
	json_decref(c);
	/* an edit on the line after a lone "\r" */
	mi_buf_reset(&d.text);
	mi_buf_adds(&d.text, "x = 1\rdef f():\r    pass\r");
	c = json_pack("{s:{s:{s:i,s:i},s:{s:i,s:i}},s:s}", "range", "start", "line", 1,
		      "character", 4, "end", "line", 1, "character", 5, "text", "g");
	CHECK_INT(mi_lsp_doc_change(&d, c, MI_ENC_UTF16, &err), 0);
	CHECK_STR(d.text.buf, "x = 1\rdef g():\r    pass\r");
	json_decref(c);
	mi_buf_release(&err);
	mi_buf_release(&d.text);
	mi_parsed_release(&d.parsed);
}

/* A reader over a temporary file holding data. */
static void reader_on(mi_lsp_reader *r, const char *data, size_t len)
{
	FILE *f = tmpfile();
	memset(r, 0, sizeof *r);
	CHECK(f && fwrite(data, 1, len, f) == len && fflush(f) == 0);
	rewind(f);
	r->fd = dup(fileno(f));
	fclose(f);
}

static void reader_off(mi_lsp_reader *r)
{
	close(r->fd);
	mi_buf_release(&r->in);
}

TEST(framing_resync)
{
	static const char bad[] = "Content-Type: application/vscode-jsonrpc\r\n\r\n"
				  "{\"id\":5}"
				  "Content-Length: 7\r\n\r\n{\"a\":1}"
				  "junk}content-length: 7\r\n\r\n{\"b\":2}"
				  "Content-Length: 7\r\n\r\n{\"c\":3}";
	mi_lsp_reader r;
	mi_buf body = {0}, err = {0};
	reader_on(&r, bad, strlen(bad));
	/* one error for the block without a length, then each framed message */
	CHECK_INT(mi_lsp_read(&r, -1, &body, &err), -1);
	CHECK_CONTAINS(err.buf, "Content-Length");
	CHECK_INT(mi_lsp_read(&r, -1, &body, &err), 0);
	CHECK_STR(body.buf, "{\"a\":1}");
	/* junk before a header costs one error, not the message */
	mi_buf_reset(&err);
	CHECK_INT(mi_lsp_read(&r, -1, &body, &err), -1);
	CHECK_INT(mi_lsp_read(&r, -1, &body, &err), 0);
	CHECK_STR(body.buf, "{\"b\":2}");
	CHECK_INT(mi_lsp_read(&r, -1, &body, &err), 0);
	CHECK_STR(body.buf, "{\"c\":3}");
	CHECK_INT(mi_lsp_read(&r, -1, &body, &err), 1);
	reader_off(&r);
	mi_buf_release(&body);
	mi_buf_release(&err);
}

TEST(framing_junk_bounded)
{
	/* 4 MiB without a header, then a message: one error, and what is
	 * skipped is dropped as it is read, not buffered */
	size_t n = (size_t)4 << 20;
	mi_buf in = {0}, body = {0}, err = {0};
	mi_lsp_reader r;
	int rc, errors = 0;
	mi_buf_grow(&in, n + 64);
	memset(in.buf, 'x', n);
	in.len = n;
	mi_buf_adds(&in, "Content-Length: 2\r\n\r\n{}");
	reader_on(&r, in.buf, in.len);
	while ((rc = mi_lsp_read(&r, -1, &body, &err)) == -1)
		errors++;
	CHECK_INT(errors, 1);
	CHECK_INT(rc, 0);
	CHECK_STR(body.buf, "{}");
	CHECK(r.in.cap < ((size_t)1 << 20));
	CHECK_INT(mi_lsp_read(&r, -1, &body, &err), 1);
	reader_off(&r);
	mi_buf_release(&in);
	mi_buf_release(&body);
	mi_buf_release(&err);
}

int main(void)
{
	RUN(positions_per_encoding);
	RUN(line_breaks);
	RUN(surrogate_pair_halves);
	RUN(words);
	RUN(uris);
	RUN(incremental_edits);
	RUN(framing_resync);
	RUN(framing_junk_bounded);
	return test_done();
}
