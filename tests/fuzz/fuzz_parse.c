/*
 * fuzz_parse.c - libFuzzer target for the language front ends and the
 * views over what they extract.  The first input byte picks a language
 * (MI_LANG_* id, low five bits) and view options (high three bits); the
 * rest is the source, parsed with mi_parse_source and rendered with
 * mi_render_view in outline, compact and full mode and mi_render_expand on
 * its symbols.  Checked: symbols' lines lie within the file and start <=
 * end, byte spans lie within the source, a parent comes before its child,
 * references and diagnostics point at real lines (or 0, the whole file),
 * a reference's line_byte starts its line, the stored outline equals the
 * default view, every JSON answer parses, and names and text answers are valid UTF-8 when
 * the source is.
 *
 *	make fuzz && build/fuzz/fuzz_parse -max_total_time=240 \
 *	    -rss_limit_mb=2048 build/fuzz-corpus/parse tests/fuzz/corpus/parse
 *
 * tests/unit/test_fuzz_regress.c includes this file to replay the corpora
 * without libFuzzer: it defines FUZZ_REPORT, and the entry point is renamed
 * there.
 */
#include "../../indexer/indexer_int.h"
#include "../../query/query.h"
#include "fuzz.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The language a selector byte picks: 1 .. 31 by its low five bits, or
 * when they are all set, any of 1 .. MI_LANG__COUNT-1 by the byte after
 * it (then *skip is 2, else 1: the bytes before the source). */
static int ps_lang(const uint8_t *data, size_t size, size_t *skip)
{
	*skip = 1;
	if ((data[0] & 31) != 31 || size < 2)
		return 1 + (data[0] & 31) % (MI_LANG__COUNT - 1);
	*skip = 2;
	return 1 + data[1] % (MI_LANG__COUNT - 1);
}

/* A file name the language claims ("fuzz.c"); alt picks its second
 * extension when it has one (".h" for C, which views fold differently). */
static void ps_path(int lang, bool alt, char *out, size_t n)
{
	const mi_lang_row *row = mi_lang_row_get(lang);
	const char *e = row && row->exts ? row->exts : " .txt ";
	const char *dot = strchr(e, '.'), *end;
	if (alt && dot && (end = strchr(dot, ' ')) && strchr(end, '.'))
		dot = strchr(end, '.');
	end = dot ? strchr(dot, ' ') : NULL;
	snprintf(out, n, "fuzz%.*s", dot && end ? (int)(end - dot) : 4,
		 dot && end ? dot : ".txt");
}

/* true when s is one JSON object (jansson also refuses invalid UTF-8). */
static bool ps_json_ok(const mi_buf *b)
{
	json_error_t e;
	json_t *j = json_loadb(mi_buf_str(b), b->len, JSON_ALLOW_NUL, &e);
	bool ok = j && json_is_object(j);
	json_decref(j);
	return ok;
}

/* Line of byte offset off: 1 + newlines before it. */
static uint32_t ps_line_of(const char *src, size_t off)
{
	uint32_t n = 1;
	for (size_t i = 0; i < off; i++)
		n += src[i] == '\n';
	return n;
}

/* Checks what mi_parse_source extracted from src[0..len). */
static int ps_check_parsed(const char *src, size_t len, const mi_parsed *p,
			   bool utf8)
{
	uint32_t nlines = mi_count_lines(src, len);
	/* A file's last line may be empty (after the final '\n'): positions
	 * there are on line nlines + 1. */
	uint32_t maxline = nlines + 1;

	for (size_t i = 0; i < p->nsyms; i++) {
		const mi_symbol *s = &p->syms[i];
		FUZZ_CHECK(s->name && s->parent && s->sig && s->doc);
		FUZZ_CHECK(s->kind < MI_KIND__COUNT);
		FUZZ_CHECK(s->parent_idx >= -1 && s->parent_idx < (int32_t)i);
		FUZZ_CHECK(s->start_line >= 1 && s->start_line <= s->end_line);
		FUZZ_CHECK(s->end_line <= maxline);
		FUZZ_CHECK(s->start_byte <= s->end_byte && s->end_byte <= len);
		FUZZ_CHECK(ps_line_of(src, s->start_byte) == s->start_line);
		FUZZ_CHECK(s->body_byte == 0 || s->body_byte <= len);
		FUZZ_CHECK(s->body_line == 0 ||
			 (s->body_line >= s->start_line && s->body_line <= s->end_line));
		if (utf8)
			FUZZ_CHECK(mi_utf8_valid(s->name, strlen(s->name)) &&
				 mi_utf8_valid(s->parent, strlen(s->parent)) &&
				 mi_utf8_valid(s->sig, strlen(s->sig)) &&
				 mi_utf8_valid(s->doc, strlen(s->doc)));
	}
	for (size_t i = 0; i < p->nrefs; i++) {
		const mi_ref *r = &p->refs[i];
		FUZZ_CHECK(r->callee != NULL);
		FUZZ_CHECK(r->caller_idx >= -1 && r->caller_idx < (int32_t)p->nsyms);
		FUZZ_CHECK(r->line >= 1 && r->line <= maxline);
		FUZZ_CHECK(r->line_byte <= len &&
			 (r->line_byte == 0 || src[r->line_byte - 1] == '\n'));
		FUZZ_CHECK(ps_line_of(src, r->line_byte) == r->line);
		if (utf8)
			FUZZ_CHECK(mi_utf8_valid(r->callee, strlen(r->callee)));
	}
	for (size_t i = 0; i < p->ndiags; i++) {
		const mi_diag *d = &p->diags[i];
		FUZZ_CHECK(d->msg && d->msg[0]);
		/* Line 0: about the whole file ("N more syntax errors"). */
		FUZZ_CHECK(d->line <= maxline);
		FUZZ_CHECK(d->severity == 'E' || d->severity == 'W' || d->severity == 'H');
		if (utf8)
			FUZZ_CHECK(mi_utf8_valid(d->msg, strlen(d->msg)));
	}
	return 0;
done:
	return -1;
}

/* Checks one rendered answer: JSON always parses, text is valid UTF-8
 * when the source was. */
static int ps_check_out(const mi_out *o, bool utf8)
{
	FUZZ_CHECK(ps_json_ok(&o->json));
	if (utf8)
		FUZZ_CHECK(mi_utf8_valid(mi_buf_str(&o->text), o->text.len));
	return 0;
done:
	return -1;
}

static int ps_run(int lang, unsigned opt, const char *src, size_t len)
{
	static const char *const modes[] = { "outline", "compact", "full" };
	static const char *const whats[] = { "body", "signature", "docs", "all" };
	mi_parsed p;
	mi_out o;
	mi_view_opts vo;
	mi_buf sel = {0};
	char path[32];
	bool utf8 = mi_utf8_valid(src, len);
	int rc;

	mi_parsed_init(&p);
	memset(&o, 0, sizeof o);
	memset(&vo, 0, sizeof vo);
	ps_path(lang, opt & 1, path, sizeof path);

	rc = mi_parse_source(lang, src, len, &p);
	FUZZ_CHECK(rc == 0 || rc == MI_ERR_PARSE);
	if (rc)
		goto done;
	FUZZ_CHECK(ps_check_parsed(src, len, &p, utf8) == 0);

	/* The stored outline, served, is the default view byte for byte (or,
	 * when it cannot serve, the default cap cut the view). */
	{
		mi_out st = {0}, served = {0};
		mi_outline_rec orec;
		mi_view_opts def = {0};
		bool same = mi_render_outline(path, src, len, &p, &st, &orec) == 0 &&
			    mi_render_view(path, src, len, &p, &def, &o) == 0;
		if (same && mi_outline_serves(&orec, &def)) {
			mi_outline_answer(path, &orec, &served);
			same = !strcmp(mi_buf_str(&served.text), mi_buf_str(&o.text)) &&
			       !strcmp(mi_buf_str(&served.json), mi_buf_str(&o.json));
		} else if (same) {
			same = strstr(mi_buf_str(&o.text), "[truncated") != NULL;
		}
		mi_out_release(&st);
		mi_out_release(&served);
		FUZZ_CHECK(same);
	}

	vo.all = opt & 2;
	vo.line_numbers = (int)(opt >> 1 & 3) % 3;
	vo.unicode = opt & 4;
	vo.block_guides = opt & 1;
	vo.max_tokens = opt & 4 ? 100 : 0;
	for (size_t m = 0; m < 3; m++) {
		vo.mode = modes[m];
		rc = mi_render_view(path, src, len, &p, &vo, &o);
		FUZZ_CHECK(rc == 0 && !o.is_error);
		FUZZ_CHECK(ps_check_out(&o, utf8) == 0);
	}

	/* Expand the first symbols by name, qualified name and line, and a
	 * line past the end. */
	vo.mode = "full";
	for (size_t i = 0; i < p.nsyms && i < 6; i++) {
		const mi_symbol *s = &p.syms[i];
		const char *what = whats[(i + opt) % 4];
		for (int form = 0; form < 3; form++) {
			mi_buf_reset(&sel);
			if (form == 0)
				mi_buf_adds(&sel, s->name);
			else if (form == 1 && s->parent[0])
				mi_buf_addf(&sel, "%s.%s", s->parent, s->name);
			else if (form == 2)
				mi_buf_addf(&sel, "line:%u", s->start_line);
			if (!sel.len)
				continue;
			rc = mi_render_expand(path, src, len, &p, sel.buf, what, &vo, &o);
			FUZZ_CHECK(rc == 0 || rc == MI_ERR_NOTFOUND || rc == MI_ERR_ARG);
			FUZZ_CHECK(ps_check_out(&o, utf8) == 0);
			/* A symbol looked up by its line is always found. */
			if (form == 2)
				FUZZ_CHECK(rc == 0 && !o.is_error);
		}
	}
	mi_buf_reset(&sel);
	mi_buf_addf(&sel, "line:%u", mi_count_lines(src, len) + 2);
	rc = mi_render_expand(path, src, len, &p, sel.buf, "all", &vo, &o);
	FUZZ_CHECK(rc == 0 || rc == MI_ERR_NOTFOUND || rc == MI_ERR_ARG);
	FUZZ_CHECK(ps_check_out(&o, utf8) == 0);
done:
	mi_buf_release(&sel);
	mi_out_release(&o);
	mi_parsed_release(&p);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *src;
	size_t skip;
	int lang;
	if (size < 1)
		return 0;
	lang = ps_lang(data, size, &skip);
	/* An exact-size copy without a NUL, as the index hands sources out. */
	src = malloc(size - skip ? size - skip : 1);
	if (size > skip)
		memcpy(src, data + skip, size - skip);
	ps_run(lang, data[0] >> 5, src, size - skip);
	free(src);
	return 0;
}
