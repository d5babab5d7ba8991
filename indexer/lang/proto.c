/*
 * proto.c - Protocol Buffers (.proto), read by a scanner of our own:
 * messages and enums (nested), their fields and values, services with
 * their rpc methods, the package as a module; import is an import and a
 * field's or rpc's message type is a type reference; // comments above a
 * definition are its doc.
 */
#include "lang_int.h"

#include <ctype.h>
#include <string.h>

static bool pb_word(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_' || ch == '.';
}

/* Next token at *i: a word [a, z) or one punctuation byte; comments and
 * blanks skipped.  false at the end. */
static bool pb_tok(const char *src, uint32_t e, uint32_t *i, uint32_t *a, uint32_t *z)
{
	uint32_t p = *i;
	for (;;) {
		while (p < e && isspace((unsigned char)src[p]))
			p++;
		if (p + 1 < e && src[p] == '/' && src[p + 1] == '/') {
			while (p < e && src[p] != '\n')
				p++;
			continue;
		}
		if (p + 1 < e && src[p] == '/' && src[p + 1] == '*') {
			const char *q = memmem(src + p + 2, e - p - 2, "*/", 2);
			p = q ? (uint32_t)(q - src) + 2 : e;
			continue;
		}
		break;
	}
	if (p >= e)
		return false;
	*a = p;
	if (src[p] == '"' || src[p] == '\'') {
		char q = src[p];
		for (p++; p < e && src[p] != q; p++)
			;
		p++;
	} else if (pb_word(src[p])) {
		while (p < e && pb_word(src[p]))
			p++;
	} else {
		/* One byte of punctuation, or one character of another
		 * script whole: a token never ends inside a character. */
		p++;
		if ((unsigned char)src[p - 1] >= 0xc0)
			while (p < e && ((unsigned char)src[p] & 0xc0) == 0x80)
				p++;
	}
	*z = p > e ? e : p;
	*i = *z;
	return true;
}

static bool pb_is(const char *src, uint32_t a, uint32_t z, const char *w)
{
	return strlen(w) == z - a && !memcmp(src + a, w, z - a);
}

/* Doc of the definition starting at byte at: the // lines right above. */
static void pb_doc(mi_scan *s, int k, uint32_t at)
{
	uint32_t ln = mi_scan_line(s, at), first = ln;
	while (first > 1) {
		uint32_t la = s->lines[first - 2], le = mi_scan_eol(s, la), lb = la;
		while (lb < le && (s->src[lb] == ' ' || s->src[lb] == '\t'))
			lb++;
		if (le - lb < 2 || s->src[lb] != '/' || s->src[lb + 1] != '/')
			break;
		first--;
	}
	mi_buf d = {0};
	for (uint32_t l = first; l < ln; l++) {
		uint32_t la = s->lines[l - 1], le = mi_scan_eol(s, la), lb = la;
		while (lb < le && (s->src[lb] == ' ' || s->src[lb] == '\t' || s->src[lb] == '/'))
			lb++;
		while (lb < le && s->src[lb] == ' ')
			lb++;
		if (d.len)
			mi_buf_addc(&d, '\n');
		mi_buf_add(&d, s->src + lb, le - lb);
	}
	if (d.len)
		mi_scan_doc(s, k, d.buf, d.len);
	mi_buf_release(&d);
}

static int pb_scan(const char *src, size_t len, mi_parsed *out)
{
	mi_scan s;
	mi_scan_init(&s, src, len, out);
	uint32_t e = (uint32_t)len, i = 0, a, z;
	int stack[64];
	int sp = 0;
	uint32_t stmt = 0; /* start of the current statement */
	bool at_stmt = true;
	while (pb_tok(src, e, &i, &a, &z)) {
		int parent = sp > 0 ? stack[sp - 1] : -1;
		if (at_stmt)
			stmt = a;
		at_stmt = false;
		if (src[a] == ';') {
			at_stmt = true;
			continue;
		}
		if (src[a] == '}') {
			if (sp > 0) {
				mi_symbol *y = &out->syms[stack[--sp]];
				y->end_byte = z;
				y->end_line = mi_scan_line(&s, z - 1);
			}
			at_stmt = true;
			continue;
		}
		if (src[a] == '{') { /* an option block or a block we do not name */
			int d = 1;
			uint32_t b, c;
			while (d > 0 && pb_tok(src, e, &i, &b, &c))
				d += src[b] == '{' ? 1 : src[b] == '}' ? -1 : 0;
			at_stmt = true;
			continue;
		}
		int kind = MI_KIND_NONE;
		if (pb_is(src, a, z, "message"))
			kind = MI_KIND_STRUCT;
		else if (pb_is(src, a, z, "enum"))
			kind = MI_KIND_ENUM;
		else if (pb_is(src, a, z, "service"))
			kind = MI_KIND_TRAIT;
		else if (pb_is(src, a, z, "oneof"))
			kind = MI_KIND_UNION;
		if (kind != MI_KIND_NONE) {
			uint32_t na, nz;
			if (!pb_tok(src, e, &i, &na, &nz))
				break;
			uint32_t ba, bz;
			if (!pb_tok(src, e, &i, &ba, &bz) || src[ba] != '{')
				continue;
			int k = mi_scan_sym(&s, kind, stmt, bz, src + na, nz - na, stmt, nz, parent);
			out->syms[k].body_byte = ba;
			out->syms[k].body_line = mi_scan_line(&s, ba);
			pb_doc(&s, k, stmt);
			if (sp < 64)
				stack[sp++] = k;
			at_stmt = true;
			continue;
		}
		if (pb_is(src, a, z, "package") || pb_is(src, a, z, "import") || pb_is(src, a, z, "syntax") ||
		    pb_is(src, a, z, "option") || pb_is(src, a, z, "reserved") || pb_is(src, a, z, "extensions")) {
			bool pkg = pb_is(src, a, z, "package"), imp = pb_is(src, a, z, "import");
			uint32_t na, nz;
			while (pb_tok(src, e, &i, &na, &nz) && src[na] != ';') {
				if (pkg && pb_word(src[na]))
					mi_scan_sym(&s, MI_KIND_MODULE, stmt, nz + 1, src + na, nz - na, stmt, nz, -1);
				if (imp && src[na] == '"' && nz > na + 1)
					mi_scan_ref(&s, MI_REF_IMPORT, na + 1, src + na + 1, nz - na - 2, -1);
			}
			at_stmt = true;
			continue;
		}
		if (pb_is(src, a, z, "rpc")) {
			uint32_t na, nz, ta, tz;
			if (!pb_tok(src, e, &i, &na, &nz))
				break;
			uint32_t end = nz;
			bool opts = false; /* the rpc ends in a block of options */
			while (pb_tok(src, e, &i, &ta, &tz)) {
				end = tz;
				opts = src[ta] == '{';
				if (src[ta] == ';' || opts)
					break;
				if (pb_word(src[ta]) && !pb_is(src, ta, tz, "returns") && !pb_is(src, ta, tz, "stream"))
					mi_scan_ref(&s, MI_REF_TYPE, ta, src + ta, tz - ta, parent);
			}
			if (opts) { /* rpc options */
				int d = 1;
				uint32_t b, c;
				while (d > 0 && pb_tok(src, e, &i, &b, &c)) {
					d += src[b] == '{' ? 1 : src[b] == '}' ? -1 : 0;
					end = c;
				}
			}
			int k = mi_scan_sym(&s, MI_KIND_METHOD, stmt, end, src + na, nz - na, stmt,
					    opts ? ta : end, parent);
			pb_doc(&s, k, stmt);
			at_stmt = true;
			continue;
		}
		if (pb_word(src[a]) && parent >= 0) {
			/* a field: [repeated|optional] type name = n; or an enum value */
			uint32_t toks[8][2];
			int nt = 0;
			toks[nt][0] = a;
			toks[nt][1] = z;
			nt++;
			uint32_t ta = a, tz = z;
			while (nt < 8 && pb_tok(src, e, &i, &ta, &tz) && src[ta] != '=' && src[ta] != ';') {
				if (src[ta] == '<' || src[ta] == '>' || src[ta] == ',')
					continue;
				toks[nt][0] = ta;
				toks[nt][1] = tz;
				nt++;
			}
			uint32_t end = tz;
			while (src[ta] != ';' && pb_tok(src, e, &i, &ta, &tz)) {
				end = tz;
				if (src[ta] == '[') {
					while (pb_tok(src, e, &i, &ta, &tz) && src[ta] != ']')
						;
				}
			}
			uint32_t na = toks[nt - 1][0], nz = toks[nt - 1][1];
			int k = mi_scan_sym(&s, out->syms[parent].kind == MI_KIND_ENUM ? MI_KIND_ENUMERATOR :
					    MI_KIND_FIELD, stmt, end, src + na, nz - na, stmt, end, parent);
			pb_doc(&s, k, stmt);
			for (int t = 0; t + 1 < nt; t++) {
				uint32_t xa = toks[t][0], xz = toks[t][1];
				if (!pb_is(src, xa, xz, "repeated") && !pb_is(src, xa, xz, "optional") &&
				    !pb_is(src, xa, xz, "required") && !pb_is(src, xa, xz, "map") &&
				    isupper((unsigned char)src[xa]))
					mi_scan_ref(&s, MI_REF_TYPE, xa, src + xa, xz - xa, k);
			}
			at_stmt = true;
			continue;
		}
	}
	mi_scan_release(&s);
	return 0;
}

const mi_lang_row mi_lang_proto = {
	.id = MI_LANG_PROTO,
	.name = "proto",
	.exts = " .proto ",
	.scan = pb_scan,
};
