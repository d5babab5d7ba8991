/*
 * sql.c - SQL, read by a scanner of our own (dialects differ too much for
 * one grammar): each CREATE statement is a symbol (tables and views as
 * structs whose columns are fields, functions, procedures and triggers as
 * functions, types, indexes, sequences, schemas), spanning its statement;
 * -- comments above a statement are its doc; REFERENCES t is a reference.
 */
#include "lang_int.h"

#include <ctype.h>
#include <string.h>

static bool sq_word_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_' || ch == '$' || (unsigned char)ch >= 0x80;
}

/* The next word at *i (skipping blanks and comments): [a, z). */
static bool sq_word(const char *src, uint32_t e, uint32_t *i, uint32_t *a, uint32_t *z)
{
	uint32_t p = *i;
	for (;;) {
		while (p < e && isspace((unsigned char)src[p]))
			p++;
		if (p + 1 < e && src[p] == '-' && src[p + 1] == '-') {
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
	*a = p;
	if (p < e && (src[p] == '"' || src[p] == '`' || src[p] == '[')) {
		char close = src[p] == '[' ? ']' : src[p];
		uint32_t q = p + 1;
		while (q < e && src[q] != close)
			q++;
		*z = q < e ? q + 1 : e;
	} else {
		uint32_t q = p;
		while (q < e && (sq_word_char(src[q]) || src[q] == '.'))
			q++;
		*z = q;
	}
	*i = *z;
	return *z > *a;
}

static bool sq_is(const char *src, uint32_t a, uint32_t z, const char *w)
{
	return strlen(w) == z - a && !strncasecmp(src + a, w, z - a);
}

/* End of the statement starting at i: the ';' outside strings, comments
 * and $tag$ bodies, or e. */
static uint32_t sq_stmt_end(const char *src, uint32_t i, uint32_t e)
{
	while (i < e) {
		char ch = src[i];
		if (ch == '\'' || ch == '"' || ch == '`') {
			for (i++; i < e && src[i] != ch; i++)
				;
			i++;
		} else if (ch == '-' && i + 1 < e && src[i + 1] == '-') {
			while (i < e && src[i] != '\n')
				i++;
		} else if (ch == '/' && i + 1 < e && src[i + 1] == '*') {
			const char *q = memmem(src + i + 2, e - i - 2, "*/", 2);
			i = q ? (uint32_t)(q - src) + 2 : e;
		} else if (ch == '$') {
			uint32_t t = i + 1;
			while (t < e && sq_word_char(src[t]) && src[t] != '$')
				t++;
			if (t < e && src[t] == '$') {
				const char *q = memmem(src + t + 1, e - t - 1, src + i, t - i + 1);
				i = q ? (uint32_t)(q - src) + (t - i + 1) : e;
			} else {
				i++;
			}
		} else if (ch == ';') {
			return i + 1;
		} else {
			i++;
		}
	}
	return e;
}

/* Name [a, z) without quotes and without its schema (public.users: users). */
static void sq_name(const char *src, uint32_t *a, uint32_t *z)
{
	for (uint32_t k = *z; k > *a; k--)
		if (src[k - 1] == '.') {
			*a = k;
			break;
		}
	if (*z > *a + 1 && (src[*a] == '"' || src[*a] == '`' || src[*a] == '[')) {
		(*a)++;
		(*z)--;
	}
}

/* Columns of a CREATE TABLE: the items of its first parenthesized list. */
static void sq_columns(mi_scan *s, uint32_t from, uint32_t end, int table)
{
	const char *src = s->src;
	const char *open = memchr(src + from, '(', end - from);
	if (!open)
		return;
	uint32_t i = (uint32_t)(open - src) + 1;
	while (i < end) {
		uint32_t a, z, w = i;
		if (!sq_word(src, end, &w, &a, &z))
			break;
		/* the item runs to the next ',' or ')' at depth 0 */
		int depth = 0;
		uint32_t q = a;
		for (; q < end; q++) {
			char ch = src[q];
			if (ch == '(')
				depth++;
			else if (ch == ')' && depth-- == 0)
				break;
			else if (ch == ',' && depth == 0)
				break;
			else if (ch == '\'')
				for (q++; q < end && src[q] != '\''; q++)
					;
		}
		static const char *const not_cols[] = {"CONSTRAINT", "PRIMARY", "FOREIGN", "UNIQUE",
						       "CHECK", "KEY", "INDEX", "EXCLUDE", "LIKE",
						       "FULLTEXT", "SPATIAL", "PERIOD", NULL};
		bool col = true;
		for (int k = 0; not_cols[k]; k++)
			if (sq_is(src, a, z, not_cols[k]))
				col = false;
		if (col) {
			uint32_t na = a, nz = z;
			sq_name(src, &na, &nz);
			uint32_t se = q;
			while (se > a && isspace((unsigned char)src[se - 1]))
				se--;
			mi_scan_sym(s, MI_KIND_FIELD, a, se, src + na, nz - na, a, se, table);
		}
		for (const char *r = src + a; (r = memmem(r, q - (uint32_t)(r - src), "REFERENCES", 10)) ||
						(r = memmem(src + a, q - a, "references", 10));) {
			uint32_t rw = (uint32_t)(r - src) + 10, ra, rz;
			if (sq_word(src, q, &rw, &ra, &rz)) {
				uint32_t na = ra, nz = rz;
				sq_name(src, &na, &nz);
				mi_scan_ref(s, MI_REF_TYPE, na, src + na, nz - na, table);
			}
			break;
		}
		if (q >= end || src[q] == ')')
			break;
		i = q + 1;
	}
}

static int sq_scan(const char *src, size_t len, mi_parsed *out)
{
	mi_scan s;
	mi_scan_init(&s, src, len, out);
	uint32_t e = (uint32_t)len;
	for (uint32_t i = 0; i < e;) {
		uint32_t a, z, w = i;
		if (!sq_word(src, e, &w, &a, &z)) {
			i = w < e ? sq_stmt_end(src, w, e) : e;
			continue;
		}
		uint32_t start = a, end = sq_stmt_end(src, a, e);
		if (sq_is(src, a, z, "CREATE")) {
			int kind = MI_KIND_NONE;
			bool table = false;
			uint32_t na = 0, nz = 0;
			while (sq_word(src, end, &w, &a, &z)) {
				static const struct { const char *w; int kind; } kinds[] = {
					{"TABLE", MI_KIND_STRUCT}, {"VIEW", MI_KIND_STRUCT},
					{"FUNCTION", MI_KIND_FUNCTION}, {"PROCEDURE", MI_KIND_FUNCTION},
					{"TRIGGER", MI_KIND_FUNCTION}, {"TYPE", MI_KIND_TYPEDEF},
					{"DOMAIN", MI_KIND_TYPEDEF}, {"INDEX", MI_KIND_VARIABLE},
					{"SEQUENCE", MI_KIND_VARIABLE}, {"SCHEMA", MI_KIND_MODULE},
					{"DATABASE", MI_KIND_MODULE}, {"MACRO", MI_KIND_FUNCTION},
				};
				for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
					if (sq_is(src, a, z, kinds[k].w)) {
						kind = kinds[k].kind;
						table = k == 0;
					}
				if (kind != MI_KIND_NONE)
					break;
				if (z - a > 12) /* not a CREATE we know */
					break;
			}
			if (kind != MI_KIND_NONE) {
				/* IF NOT EXISTS, then the name */
				while (sq_word(src, end, &w, &na, &nz) &&
				       (sq_is(src, na, nz, "IF") || sq_is(src, na, nz, "NOT") ||
					sq_is(src, na, nz, "EXISTS") || sq_is(src, na, nz, "CONCURRENTLY")))
					;
				if (nz > na) {
					uint32_t sig_end = nz;
					uint32_t body = 0;
					if (kind == MI_KIND_FUNCTION) {
						/* the header runs to AS / RETURNS ... AS / BEGIN */
						uint32_t p = nz, pa, pz;
						while (sq_word(src, end, &p, &pa, &pz) && !sq_is(src, pa, pz, "AS") &&
						       !sq_is(src, pa, pz, "BEGIN") && !sq_is(src, pa, pz, "LANGUAGE"))
							sig_end = pz;
						if (pa < end)
							body = pa;
					} else if (table) {
						const char *open = memchr(src + nz, '(', end - nz);
						if (open) {
							body = (uint32_t)(open - src);
							sig_end = body;
						}
					}
					uint32_t n0 = na, n1 = nz;
					sq_name(src, &n0, &n1);
					uint32_t se = end;
					while (se > start && (isspace((unsigned char)src[se - 1])))
						se--;
					int k = mi_scan_sym(&s, kind, start, se, src + n0, n1 - n0, start, sig_end, -1);
					if (body > start && body < se) {
						out->syms[k].body_byte = body;
						out->syms[k].body_line = mi_scan_line(&s, body);
					}
					/* -- comments right above are its doc */
					mi_buf d = {0};
					uint32_t ln = mi_scan_line(&s, start);
					uint32_t first = ln;
					while (first > 1) {
						uint32_t la = s.lines[first - 2], le = mi_scan_eol(&s, la), lb = la;
						while (lb < le && (src[lb] == ' ' || src[lb] == '\t'))
							lb++;
						if (le - lb < 2 || src[lb] != '-' || src[lb + 1] != '-')
							break;
						first--;
					}
					for (uint32_t l = first; l < ln; l++) {
						uint32_t la = s.lines[l - 1], le = mi_scan_eol(&s, la), lb = la;
						while (lb < le && (src[lb] == ' ' || src[lb] == '\t' || src[lb] == '-'))
							lb++;
						if (d.len)
							mi_buf_addc(&d, '\n');
						mi_buf_add(&d, src + lb, le - lb);
					}
					if (d.len)
						mi_scan_doc(&s, k, d.buf, d.len);
					mi_buf_release(&d);
					if (table && body)
						sq_columns(&s, body, se, k);
				}
			}
		}
		i = end > start ? end : start + 1;
	}
	mi_scan_release(&s);
	return 0;
}

const mi_lang_row mi_lang_sql = {
	.id = MI_LANG_SQL,
	.name = "sql",
	.exts = " .sql .psql .pgsql .ddl ",
	.scan = sq_scan,
};
