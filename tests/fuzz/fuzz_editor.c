/*
 * fuzz_editor.c - libFuzzer target for what the language server and the
 * compile tasks read from outside: LSP framing (mi_lsp_read on a pipe),
 * positions and edits of an open document in each encoding, and compiler
 * output (mi_compile_parse with every parser, the log's JSON form and the
 * stored diagnostic lines).
 *
 * The first byte picks what the rest is:
 *   b % 3 == 0: a byte stream to the LSP reader (at most 60 KiB, one pipe
 *               write); every body it hands out is at most the cap and the
 *               reader ends at end of input.
 *   b % 3 == 1: a document text; then, for each encoding, every (line,
 *               character) of a small grid maps to a byte on a character
 *               boundary of that line, and the position of that byte maps
 *               back to it; a range edit built from the input keeps the
 *               text the splice of old and new.
 *   b % 3 == 2: compiler output for parser (b / 3) % N: every message has a
 *               group in range and one-line text, paths are not empty, the
 *               log renders, survives its JSON form byte for byte in
 *               rendering, and its diagnostic lines read back.
 *
 *	make fuzz && build/fuzz/fuzz_editor -max_total_time=240 \
 *	    -rss_limit_mb=2048 build/fuzz-corpus/editor tests/fuzz/corpus/editor
 *
 * tests/unit/test_fuzz_regress.c replays the corpus without libFuzzer.
 */
#include "../../mcp/lsp_int.h"
#include "../../mcp/compile_int.h"
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void ed_framing(const uint8_t *data, size_t size)
{
	int fd[2];
	mi_lsp_reader r = {0};
	mi_buf body = {0}, err = {0};
	int rc, rounds = 0;
	if (size > 60000 || pipe(fd))
		return;
	if (write(fd[1], data, size) != (ssize_t)size) {
		close(fd[0]);
		close(fd[1]);
		return;
	}
	close(fd[1]);
	r.fd = fd[0];
	while ((rc = mi_lsp_read(&r, -1, &body, &err)) != 1 && rounds++ < 100000) {
		if (rc == 0)
			FUZZ_CHECK(body.len <= MI_LSP_MAX_MSG && body.len <= size);
		else
			FUZZ_CHECK(rc == -1 && err.len > 0);
		mi_buf_reset(&err);
	}
	FUZZ_CHECK(rc == 1);
done:
	close(fd[0]);
	mi_buf_release(&r.in);
	mi_buf_release(&body);
	mi_buf_release(&err);
}

static bool ed_boundary(const char *s, size_t len, size_t at, int enc)
{
	return enc == MI_ENC_UTF8 || at == len || (s[at] & 0xc0) != 0x80;
}

static void ed_positions(const char *s, size_t size)
{
	for (int enc = 0; enc < 3; enc++) {
		mi_lsp_lines l;
		mi_lsp_lines_init(&l, s, size, enc);
		for (uint32_t ln = 0; ln < 6 && ln <= l.n; ln++)
			for (uint32_t ch = 0; ch < 12; ch++) {
				size_t at = mi_lsp_offset(&l, ln, ch);
				uint32_t l2, c2;
				if (!(at <= size) || !(ln >= l.n || at >= l.start[ln]) ||
				    !ed_boundary(s, size, at, enc)) {
					FUZZ_REPORT("offset within its line, on a character boundary",
						    __FILE__, __LINE__);
					break;
				}
				mi_lsp_position(&l, at, &l2, &c2);
				if (mi_lsp_offset(&l, l2, c2) != at)
					FUZZ_REPORT("position(offset) maps back to the same byte",
						    __FILE__, __LINE__);
			}
		mi_lsp_lines_release(&l);
	}
}

/* A range edit replacing (0,1)..(1,2) with the input's first bytes gives
 * the splice of the old text and the new. */
static void ed_edit(const char *s, size_t size)
{
	mi_lsp_doc d = {0};
	mi_buf err = {0}, want = {0};
	mi_lsp_lines l;
	json_t *c;
	size_t a, b, n = size < 8 ? size : 8;
	char *repl = mi_xstrndup(s, n);
	mi_parsed_init(&d.parsed);
	mi_buf_add(&d.text, s, size);
	mi_lsp_lines_init(&l, s, size, MI_ENC_UTF16);
	a = mi_lsp_offset(&l, 0, 1);
	b = mi_lsp_offset(&l, 1, 2);
	mi_lsp_lines_release(&l);
	if (b < a) {
		size_t t = a;
		a = b;
		b = t;
	}
	mi_buf_add(&want, s, a);
	mi_buf_adds(&want, repl);
	mi_buf_add(&want, s + b, size - b);
	/* json_pack refuses text that is not UTF-8, as a client never sends it */
	c = json_pack("{s:{s:{s:i,s:i},s:{s:i,s:i}},s:s}", "range", "start", "line", 0,
		      "character", 1, "end", "line", 1, "character", 2, "text", repl);
	if (c) {
		FUZZ_CHECK(mi_lsp_doc_change(&d, c, MI_ENC_UTF16, &err) == 0);
		FUZZ_CHECK(d.text.len == want.len &&
			 !memcmp(mi_buf_str(&d.text), mi_buf_str(&want), want.len));
	}
done:
	json_decref(c);
	free(repl);
	mi_buf_release(&want);
	mi_buf_release(&err);
	mi_buf_release(&d.text);
	mi_parsed_release(&d.parsed);
}

static void ed_compile(const uint8_t *data, size_t size, uint8_t sel)
{
	size_t nparsers = 0;
	const char *parser;
	mi_compile_log l = {0}, back = {0};
	mi_out a = {0}, b = {0};
	mi_buf j = {0}, diags = {0};
	while (mi_compile_parsers[nparsers])
		nparsers++;
	parser = mi_compile_parsers[(sel / 3) % nparsers];
	l.task_id = mi_xstrdup("fuzz");
	l.target = mi_xstrdup("t");
	l.command = mi_xstrdup("make t");
	mi_compile_parse((const char *)data, size, parser, "/r", "/r/sub", &l.msgs, &l.n);
	for (size_t i = 0; i < l.n; i++) {
		const mi_compile_msg *m = &l.msgs[i];
		FUZZ_CHECK(m->group >= 0 && m->group < MI_GROUP__COUNT);
		FUZZ_CHECK(m->text && !strchr(m->text, '\n'));
		FUZZ_CHECK(!m->path || m->path[0]);
		FUZZ_CHECK(!m->hint || !strchr(m->hint, '\n'));
		if (m->group != MI_GROUP_INFO)
			mi_cdiag_add(&diags, m->group == MI_GROUP_ERROR ? 'E' : 'W', m->line, m->col,
				     m->text);
	}
	{
		const char *p = diags.buf ? diags.buf : "", *end = p + diags.len;
		mi_cdiag d;
		size_t n = 0;
		while (mi_cdiag_next(&p, end, &d))
			n++;
		for (size_t i = 0; i < l.n; i++)
			n -= l.msgs[i].group != MI_GROUP_INFO;
		FUZZ_CHECK(n == 0);
	}
	mi_compile_log_json(&l, &j);
	FUZZ_CHECK(mi_compile_log_parse(mi_buf_str(&j), j.len, &back) == 0);
	for (int g = -1; g < MI_GROUP__COUNT; g++) {
		mi_compile_log_render(&l, g, true, &a);
		mi_compile_log_render(&back, g, true, &b);
		FUZZ_CHECK(a.text.len == b.text.len && !memcmp(mi_buf_str(&a.text),
							     mi_buf_str(&b.text), a.text.len));
	}
done:
	mi_compile_log_release(&l);
	mi_compile_log_release(&back);
	mi_out_release(&a);
	mi_out_release(&b);
	mi_buf_release(&j);
	mi_buf_release(&diags);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		ed_framing(data + 1, size - 1);
		break;
	case 1:
		ed_positions((const char *)data + 1, size - 1);
		ed_edit((const char *)data + 1, size - 1);
		break;
	default:
		ed_compile(data + 1, size - 1, data[0]);
		break;
	}
	return 0;
}
