/*
 * fuzz_records.c - libFuzzer target for the index records: any bytes fed to
 * mi_symbol_decode, mi_ref_decode, mi_file_decode, mi_chunk_decode and
 * mi_outline_decode must
 * decode or answer MI_ERR_CORRUPT without a sanitizer report; whatever
 * decodes must re-encode to bytes that decode to the same record; and
 * records built from the input must come back from encode -> decode
 * identical, field for field.
 *
 *	make fuzz && build/fuzz/fuzz_records -max_total_time=240 \
 *	    -rss_limit_mb=2048 build/fuzz-corpus/records tests/fuzz/corpus/records
 *
 * tests/unit/test_fuzz_regress.c includes this file to replay the corpora
 * without libFuzzer: it defines FUZZ_REPORT, and the entry point is renamed
 * there.
 */
#include "../../format/format.h"
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads fields of records to build out of the fuzzer's bytes; past the end
 * every read yields zeros. */
typedef struct rec_reader {
	const uint8_t *p;  /* next byte */
	const uint8_t *e;  /* end of input */
} rec_reader;

static uint32_t rec_u32(rec_reader *r, int nbytes)
{
	uint32_t v = 0;
	for (int i = 0; i < nbytes; i++)
		v = v << 8 | (r->p < r->e ? *r->p++ : 0);
	return v;
}

/* A string of up to 63 bytes from the input, stopping at a NUL (records
 * hold C strings), copied into owner's arena. */
static const char *rec_str(rec_reader *r, mi_parsed *owner)
{
	size_t want = rec_u32(r, 1) & 63, n = 0;
	const char *s = (const char *)r->p;
	while (n < want && r->p < r->e && *r->p) {
		r->p++;
		n++;
	}
	return mi_parsed_strndup(owner, s, n);
}

static bool rec_sym_eq(const mi_symbol *a, const mi_symbol *b)
{
	return !strcmp(a->name, b->name) && !strcmp(a->parent, b->parent) &&
	       !strcmp(a->sig, b->sig) && !strcmp(a->doc, b->doc) &&
	       a->parent_idx == b->parent_idx && a->kind == b->kind &&
	       a->vis == b->vis && a->level == b->level && a->flags == b->flags &&
	       a->start_line == b->start_line && a->end_line == b->end_line &&
	       a->start_byte == b->start_byte && a->end_byte == b->end_byte &&
	       a->body_byte == b->body_byte && a->body_line == b->body_line;
}

static bool rec_ref_eq(const mi_ref *a, const mi_ref *b)
{
	return !strcmp(a->callee, b->callee) && a->line == b->line &&
	       a->caller_idx == b->caller_idx && a->kind == b->kind &&
	       a->line_byte == b->line_byte;
}

static bool rec_outline_eq(const mi_outline_rec *a, const mi_outline_rec *b)
{
	return a->text_len == b->text_len && !memcmp(a->text, b->text, a->text_len) &&
	       a->need == b->need && a->lines == b->lines && a->nsyms == b->nsyms &&
	       a->saved == b->saved;
}

static bool rec_file_eq(const mi_file_rec *a, const mi_file_rec *b)
{
	if (a->file_id != b->file_id || a->lang != b->lang ||
	    memcmp(a->hash, b->hash, 16) || a->size != b->size ||
	    a->lines != b->lines || a->mtime != b->mtime || a->nsyms != b->nsyms ||
	    a->nrefs != b->nrefs || a->ndiags != b->ndiags)
		return false;
	for (uint32_t i = 0; i < a->ndiags; i++)
		if (a->diags[i].line != b->diags[i].line ||
		    a->diags[i].severity != b->diags[i].severity ||
		    strcmp(a->diags[i].msg, b->diags[i].msg))
			return false;
	return true;
}

static bool rec_span_eq(const char *a, uint32_t an, const char *b, uint32_t bn)
{
	return an == bn && (!an || !memcmp(a, b, an));
}

static bool rec_chunk_eq(const mi_chunk *a, const mi_chunk *b)
{
	return a->kind == b->kind && a->vis == b->vis && a->level == b->level &&
	       a->start_line == b->start_line && a->end_line == b->end_line &&
	       a->snip_line == b->snip_line && a->snip_byte == b->snip_byte &&
	       rec_span_eq(a->name, a->name_len, b->name, b->name_len) &&
	       rec_span_eq(a->crumb, a->crumb_len, b->crumb, b->crumb_len) &&
	       rec_span_eq(a->sig, a->sig_len, b->sig, b->sig_len) &&
	       rec_span_eq(a->doc, a->doc_len, b->doc, b->doc_len) &&
	       rec_span_eq(a->syms, a->syms_len, b->syms, b->syms_len);
}

/* Decoding arbitrary bytes: each decoder either refuses or yields a record
 * that survives encode -> decode unchanged. */
static int rec_decode_any(const uint8_t *data, size_t size)
{
	mi_parsed own;
	mi_symbol s1, s2;
	mi_ref r1, r2;
	mi_file_rec f1, f2;
	mi_chunk c1, c2;
	mi_buf b = {0};
	int rc;

	mi_parsed_init(&own);
	memset(&f1, 0, sizeof f1);
	memset(&f2, 0, sizeof f2);

	rc = mi_symbol_decode(data, size, &s1, &own);
	FUZZ_CHECK(rc == 0 || rc == MI_ERR_CORRUPT);
	if (rc == 0) {
		FUZZ_CHECK(s1.name && s1.parent && s1.sig && s1.doc);
		FUZZ_CHECK(s1.kind < MI_KIND__COUNT);
		mi_symbol_encode(&s1, &b);
		FUZZ_CHECK(mi_symbol_decode(b.buf, b.len, &s2, &own) == 0);
		FUZZ_CHECK(rec_sym_eq(&s1, &s2));
	}

	mi_buf_reset(&b);
	rc = mi_ref_decode(data, size, &r1, &own);
	FUZZ_CHECK(rc == 0 || rc == MI_ERR_CORRUPT);
	if (rc == 0) {
		FUZZ_CHECK(r1.callee != NULL);
		mi_ref_encode(&r1, &b);
		FUZZ_CHECK(mi_ref_decode(b.buf, b.len, &r2, &own) == 0);
		FUZZ_CHECK(rec_ref_eq(&r1, &r2));
	}

	mi_buf_reset(&b);
	rc = mi_file_decode(data, size, &f1);
	FUZZ_CHECK(rc == 0 || rc == MI_ERR_CORRUPT);
	FUZZ_CHECK(rc == 0 || (f1.diags == NULL && f1.ndiags == 0));
	if (rc == 0) {
		for (uint32_t i = 0; i < f1.ndiags; i++)
			FUZZ_CHECK(f1.diags[i].msg != NULL);
		mi_file_encode(&f1, &b);
		FUZZ_CHECK(mi_file_decode(b.buf, b.len, &f2) == 0);
		FUZZ_CHECK(rec_file_eq(&f1, &f2));
	}

	mi_buf_reset(&b);
	rc = mi_chunk_decode(data, size, &c1);
	FUZZ_CHECK(rc == 0 || rc == MI_ERR_CORRUPT);
	if (rc == 0) {
		/* Decoded strings point into the input. */
		FUZZ_CHECK(!c1.name_len || ((const uint8_t *)c1.name >= data &&
			  (const uint8_t *)c1.name + c1.name_len <= data + size));
		FUZZ_CHECK(!c1.syms_len || ((const uint8_t *)c1.syms >= data &&
			  (const uint8_t *)c1.syms + c1.syms_len <= data + size));
		mi_chunk_encode(&c1, &b);
		FUZZ_CHECK(mi_chunk_decode(b.buf, b.len, &c2) == 0);
		FUZZ_CHECK(rec_chunk_eq(&c1, &c2));
	}

	mi_buf_reset(&b);
	mi_outline_rec o1, o2;
	rc = mi_outline_decode(data, size, &o1);
	FUZZ_CHECK(rc == 0 || rc == MI_ERR_CORRUPT);
	if (rc == 0) {
		/* The text points into the input. */
		FUZZ_CHECK(o1.text && (const uint8_t *)o1.text >= data &&
			  (const uint8_t *)o1.text + o1.text_len <= data + size);
		mi_outline_encode(&o1, &b);
		FUZZ_CHECK(mi_outline_decode(b.buf, b.len, &o2) == 0);
		FUZZ_CHECK(rec_outline_eq(&o1, &o2));
	}

	if (size <= MI_TERM_STATS_MAX) {
		mi_term_stats ts, ts2;
		uint8_t enc[MI_TERM_STATS_MAX];
		if (mi_term_stats_decode(data, size, &ts) == 0) {
			size_t el = mi_term_stats_encode(&ts, enc);
			FUZZ_CHECK(mi_term_stats_decode(enc, el, &ts2) == 0);
			FUZZ_CHECK(ts.df == ts2.df && ts.ub_code == ts2.ub_code &&
				  ts.ub_docs == ts2.ub_docs);
		}
	}
done:
	mi_file_rec_release(&f1);
	mi_file_rec_release(&f2);
	mi_buf_release(&b);
	mi_parsed_release(&own);
	return 0;
}

/* Records built from the input: encode -> decode must give them back. */
static int rec_round_trip(const uint8_t *data, size_t size)
{
	rec_reader r = { data, data + size };
	mi_parsed own;
	mi_symbol s, s2;
	mi_ref ref, ref2;
	mi_file_rec f, f2; /* f.diags is on the stack: never released */
	mi_chunk c, c2;
	mi_diag diags[8];
	char cstr[5][64];
	uint32_t cl[5];
	mi_buf b = {0};
	uint64_t v;

	mi_parsed_init(&own);
	memset(&f, 0, sizeof f);
	memset(&f2, 0, sizeof f2);

	memset(&s, 0, sizeof s);
	s.name = rec_str(&r, &own);
	s.parent = rec_str(&r, &own);
	s.sig = rec_str(&r, &own);
	s.doc = rec_str(&r, &own);
	s.parent_idx = (int32_t)rec_u32(&r, 4);
	s.kind = (uint8_t)(rec_u32(&r, 1) % MI_KIND__COUNT);
	s.vis = (uint8_t)rec_u32(&r, 1);
	s.level = (uint8_t)rec_u32(&r, 1);
	s.flags = (uint8_t)rec_u32(&r, 1);
	s.start_line = rec_u32(&r, 4);
	s.end_line = rec_u32(&r, 4);
	s.start_byte = rec_u32(&r, 4);
	s.end_byte = rec_u32(&r, 4);
	s.body_byte = rec_u32(&r, 4);
	s.body_line = rec_u32(&r, 4);
	mi_symbol_encode(&s, &b);
	FUZZ_CHECK(mi_symbol_decode(b.buf, b.len, &s2, &own) == 0);
	FUZZ_CHECK(rec_sym_eq(&s, &s2));

	mi_buf_reset(&b);
	memset(&ref, 0, sizeof ref);
	ref.callee = rec_str(&r, &own);
	ref.line = rec_u32(&r, 4);
	ref.caller_idx = (int32_t)rec_u32(&r, 4);
	ref.kind = (uint8_t)rec_u32(&r, 1);
	ref.line_byte = rec_u32(&r, 4);
	mi_ref_encode(&ref, &b);
	FUZZ_CHECK(mi_ref_decode(b.buf, b.len, &ref2, &own) == 0);
	FUZZ_CHECK(rec_ref_eq(&ref, &ref2));

	mi_buf_reset(&b);
	mi_outline_rec o = {0}, o2;
	o.text = rec_str(&r, &own);
	o.text_len = strlen(o.text);
	o.need = rec_u32(&r, 4);
	o.lines = rec_u32(&r, 4);
	o.nsyms = rec_u32(&r, 4);
	o.saved = (int32_t)rec_u32(&r, 4);
	mi_outline_encode(&o, &b);
	FUZZ_CHECK(mi_outline_decode(b.buf, b.len, &o2) == 0);
	FUZZ_CHECK(rec_outline_eq(&o, &o2));

	mi_buf_reset(&b);
	f.file_id = rec_u32(&r, 4);
	f.lang = (uint8_t)rec_u32(&r, 1);
	for (int i = 0; i < 16; i++)
		f.hash[i] = (uint8_t)rec_u32(&r, 1);
	/* a file size is an off_t: below 2^63 */
	f.size = ((uint64_t)rec_u32(&r, 4) << 32 | rec_u32(&r, 4)) >> 1;
	f.lines = rec_u32(&r, 4);
	f.mtime = (int64_t)((uint64_t)rec_u32(&r, 4) << 32 | rec_u32(&r, 4));
	f.nsyms = rec_u32(&r, 4);
	f.nrefs = rec_u32(&r, 4);
	f.ndiags = rec_u32(&r, 1) % 9;
	f.diags = f.ndiags ? diags : NULL;
	for (uint32_t i = 0; i < f.ndiags; i++) {
		diags[i].line = rec_u32(&r, 4);
		diags[i].severity = (char)rec_u32(&r, 1);
		diags[i].msg = rec_str(&r, &own);
	}
	mi_file_encode(&f, &b);
	FUZZ_CHECK(mi_file_decode(b.buf, b.len, &f2) == 0);
	FUZZ_CHECK(rec_file_eq(&f, &f2));

	mi_buf_reset(&b);
	memset(&c, 0, sizeof c);
	c.kind = (uint8_t)(rec_u32(&r, 1) % MI_KIND__COUNT);
	c.vis = (uint8_t)(rec_u32(&r, 1) & 1);
	c.level = (uint8_t)rec_u32(&r, 1);
	c.start_line = rec_u32(&r, 4);
	c.end_line = rec_u32(&r, 4);
	c.snip_line = rec_u32(&r, 4);
	c.snip_byte = rec_u32(&r, 4);
	for (int i = 0; i < 5; i++) {
		/* Chunk strings carry lengths: NUL bytes are allowed. */
		cl[i] = rec_u32(&r, 1) & 63;
		for (uint32_t k = 0; k < cl[i]; k++)
			cstr[i][k] = (char)rec_u32(&r, 1);
	}
	c.name = cstr[0]; c.name_len = cl[0];
	c.crumb = cstr[1]; c.crumb_len = cl[1];
	c.sig = cstr[2]; c.sig_len = cl[2];
	c.doc = cstr[3]; c.doc_len = cl[3];
	c.syms = cstr[4]; c.syms_len = cl[4];
	mi_chunk_encode(&c, &b);
	FUZZ_CHECK(mi_chunk_decode(b.buf, b.len, &c2) == 0);
	FUZZ_CHECK(rec_chunk_eq(&c, &c2));

	/* Varints: put -> get is the identity, and get never reads past end. */
	v = (uint64_t)rec_u32(&r, 4) << 32 | rec_u32(&r, 4);
	{
		uint8_t vb[10];
		const uint8_t *q = vb;
		uint64_t got = 0;
		size_t n = mi_varint_put(vb, v);
		FUZZ_CHECK(n >= 1 && n <= 10);
		FUZZ_CHECK(mi_varint_get(&q, vb + n, &got) && got == v && q == vb + n);
		q = vb;
		FUZZ_CHECK(n == 1 || !mi_varint_get(&q, vb + n - 1, &got));
	}
	{
		const uint8_t *q = data, *e = data + size;
		uint64_t got;
		while (q < e && mi_varint_get(&q, e, &got))
			FUZZ_CHECK(q <= e);
	}
done:
	mi_file_rec_release(&f2);
	mi_buf_release(&b);
	mi_parsed_release(&own);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so a read past the end is caught. */
	uint8_t *copy = malloc(size ? size : 1);
	if (size)
		memcpy(copy, data, size);
	rec_decode_any(copy, size);
	rec_round_trip(copy, size);
	free(copy);
	return 0;
}
