/*
 * sql.c - SQL scripts, read by a scanner of our own (one grammar per
 * dialect would be tens of megabytes of parser; what an outline needs is
 * the CREATE statements, which read alike in all of them).
 *
 * CREATE TABLE gives a struct with its columns as fields, CREATE VIEW (and
 * MATERIALIZED VIEW) a struct, FUNCTION, PROCEDURE and TRIGGER functions,
 * TYPE and DOMAIN typedefs (an enum for AS ENUM), SCHEMA and DATABASE
 * modules, INDEX constants and SEQUENCE variables; each spans its
 * statement, to the ';' (or the DELIMITER in force, or a GO line) outside
 * strings, comments and dollar-quoted bodies.  Names lose their schema and
 * quotes; the `--` comment lines right above a statement are its doc.
 * REFERENCES t, ON t, FROM t, JOIN t, INTO t and UPDATE t refer to table t.
 */
#include "lang_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct sql_tok {
	uint32_t a, b;   /* [a, b) in the source */
	char kind;       /* 'w' word, 'q' quoted name, 's' string, 'p' punctuation, 0 end */
} sql_tok;

typedef struct sql_state {
	const char *src;
	uint32_t len, pos;
	mi_parsed *p;
	mi_scan lines;      /* start byte of each line */
	char delim[16];     /* statement delimiter, ";" unless DELIMITER says */
	mi_buf doc;         /* `--` comment lines since the last statement */
	uint32_t doc_end;   /* line of the last of them */
} sql_state;

static const struct sql_obj {
	const char *word;
	uint8_t kind;
} sql_objs[] = {
	{ "TABLE", MI_KIND_STRUCT }, { "VIEW", MI_KIND_STRUCT }, { "FUNCTION", MI_KIND_FUNCTION },
	{ "PROCEDURE", MI_KIND_FUNCTION }, { "TRIGGER", MI_KIND_FUNCTION }, { "TYPE", MI_KIND_TYPEDEF },
	{ "DOMAIN", MI_KIND_TYPEDEF }, { "SCHEMA", MI_KIND_MODULE }, { "DATABASE", MI_KIND_MODULE },
	{ "INDEX", MI_KIND_CONSTANT }, { "SEQUENCE", MI_KIND_VARIABLE }, { "MACRO", MI_KIND_FUNCTION },
};

/* Words that may stand between CREATE and the kind of object. */
static const char *const sql_mods[] = {
	"OR", "REPLACE", "ALTER", "TEMP", "TEMPORARY", "GLOBAL", "LOCAL", "UNLOGGED",
	"MATERIALIZED", "RECURSIVE", "UNIQUE", "FULLTEXT", "SPATIAL", "CLUSTERED",
	"NONCLUSTERED", "VIRTUAL", "EXTERNAL", "CONSTRAINT", "SECURE", "TRANSIENT",
	"VOLATILE", "FOREIGN", "DEFINER", "SQL", "SECURITY", "INVOKER", "ALGORITHM",
	"UNDEFINED", "MERGE", "TEMPTABLE", "EVENT", "AGGREGATE", "DEFAULT", NULL
};

/* Column-list items that are not columns. */
static const char *const sql_constraints[] = {
	"CONSTRAINT", "PRIMARY", "FOREIGN", "UNIQUE", "CHECK", "INDEX", "KEY", "EXCLUDE",
	"FULLTEXT", "SPATIAL", "PERIOD", "LIKE", NULL
};

static const char *const sql_table_refs[] = {
	"REFERENCES", "FROM", "JOIN", "INTO", "UPDATE", NULL
};

static bool tok_is(const sql_state *st, const sql_tok *t, const char *w)
{
	return t->kind == 'w' && strlen(w) == t->b - t->a && !strncasecmp(st->src + t->a, w, t->b - t->a);
}

static bool tok_in(const sql_state *st, const sql_tok *t, const char *const *set)
{
	for (; *set; set++)
		if (tok_is(st, t, *set))
			return true;
	return false;
}

static uint32_t line_of(const sql_state *st, uint32_t off)
{
	return mi_scan_line(&st->lines, off);
}

/* Skips white space and comments; `--` comment lines are kept as the doc
 * of what follows. */
static void sql_skip(sql_state *st)
{
	const char *s = st->src;
	while (st->pos < st->len) {
		char c = s[st->pos];
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f') {
			st->pos++;
		} else if (c == '-' && st->pos + 1 < st->len && s[st->pos + 1] == '-') {
			uint32_t a = st->pos + 2, e = a;
			while (e < st->len && s[e] != '\n')
				e++;
			uint32_t ln = line_of(st, st->pos);
			if (st->doc_end + 1 != ln)
				mi_buf_reset(&st->doc);
			while (a < e && (s[a] == '-' || s[a] == ' '))
				a++;
			mi_buf_add(&st->doc, s + a, e - a);
			mi_buf_addc(&st->doc, '\n');
			st->doc_end = ln;
			st->pos = e;
		} else if (c == '/' && st->pos + 1 < st->len && s[st->pos + 1] == '*') {
			const char *e = memmem(s + st->pos + 2, st->len - st->pos - 2, "*/", 2);
			st->pos = e ? (uint32_t)(e - s) + 2 : st->len;
		} else if (c == '#' && (st->pos == 0 || s[st->pos - 1] == '\n')) {
			while (st->pos < st->len && s[st->pos] != '\n')
				st->pos++;
		} else {
			break;
		}
	}
}

static sql_tok sql_next(sql_state *st)
{
	sql_skip(st);
	sql_tok t = { st->pos, st->pos, 0 };
	const char *s = st->src;
	if (st->pos >= st->len)
		return t;
	char c = s[st->pos];
	if (isalpha((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80) {
		while (st->pos < st->len && (isalnum((unsigned char)s[st->pos]) || s[st->pos] == '_' ||
					     s[st->pos] == '$' || (unsigned char)s[st->pos] >= 0x80))
			st->pos++;
		t.kind = 'w';
	} else if (c == '"' || c == '`' || c == '[' || c == '\'') {
		char close = c == '[' ? ']' : c;
		st->pos++;
		while (st->pos < st->len) {
			if (s[st->pos] == close) {
				if (st->pos + 1 < st->len && s[st->pos + 1] == close && close != ']') {
					st->pos += 2;
					continue;
				}
				break;
			}
			if (close == '\'' && s[st->pos] == '\\')
				st->pos++;
			st->pos++;
		}
		if (st->pos < st->len)
			st->pos++;
		t.kind = c == '\'' ? 's' : 'q';
	} else if (c == '$') {
		/* $tag$ ... $tag$ (PostgreSQL bodies) */
		uint32_t e = st->pos + 1;
		while (e < st->len && (isalnum((unsigned char)s[e]) || s[e] == '_'))
			e++;
		if (e < st->len && s[e] == '$') {
			uint32_t tl = e + 1 - st->pos;
			const char *end = memmem(s + e + 1, st->len - e - 1, s + st->pos, tl);
			st->pos = end ? (uint32_t)(end - s) + tl : st->len;
			t.kind = 's';
		} else {
			st->pos++;
			t.kind = 'p';
		}
	} else {
		st->pos++;
		t.kind = 'p';
	}
	t.b = st->pos;
	return t;
}

/* true if the statement delimiter starts at t. */
static bool sql_at_delim(const sql_state *st, const sql_tok *t)
{
	size_t dl = strlen(st->delim);
	return t->kind == 'p' && t->a + dl <= st->len && !memcmp(st->src + t->a, st->delim, dl);
}

static void sql_ref(sql_state *st, const char *name, size_t n, uint32_t at)
{
	if (!n || n > 200)
		return;
	mi_ref *r = mi_parsed_add_ref(st->p);
	r->callee = mi_parsed_strndup(st->p, name, n);
	r->line = line_of(st, at);
	r->line_byte = st->lines.lines[r->line - 1];
	r->kind = MI_REF_TYPE;
}

/* A possibly qualified name starting at t (a.b."c"): the bounds of its
 * last part without quotes; the token after it is returned in *next. */
static bool sql_name(sql_state *st, sql_tok t, uint32_t *a, uint32_t *b, sql_tok *next)
{
	if (t.kind != 'w' && t.kind != 'q')
		return false;
	for (;;) {
		*a = t.a + (t.kind == 'q');
		*b = t.b - (t.kind == 'q' && t.b - t.a >= 2);
		sql_tok d = sql_next(st);
		if (d.kind == 'p' && st->src[d.a] == '.') {
			sql_tok n = sql_next(st);
			if (n.kind == 'w' || n.kind == 'q') {
				t = n;
				continue;
			}
			*next = n;
			return true;
		}
		*next = d;
		return true;
	}
}

/* true if s[0..n) ends with the word w (case-insensitive). */
static bool ends_with_word(const char *s, size_t n, const char *w)
{
	size_t l = strlen(w);
	return n >= l && !strncasecmp(s + n - l, w, l) &&
	       (n == l || !(isalnum((unsigned char)s[n - l - 1]) || s[n - l - 1] == '_'));
}

static size_t sql_add(sql_state *st, int kind, uint32_t na, uint32_t nb, uint32_t start,
		      uint32_t sig_end)
{
	/* the signature without what opens the body: ( ; AS $$ BEGIN IS */
	static const char *const tails[] = { "AS", "IS", "BEGIN", "$$", NULL };
	for (bool more = true; more && sig_end > start;) {
		more = false;
		while (sig_end > start && strchr(" \t\r;(", st->src[sig_end - 1]))
			sig_end--, more = true;
		for (int k = 0; tails[k]; k++)
			if (ends_with_word(st->src + start, sig_end - start, tails[k]) &&
			    sig_end - strlen(tails[k]) > start) {
				sig_end -= (uint32_t)strlen(tails[k]);
				more = true;
			}
	}
	mi_line ln;
	ln.no = line_of(st, start);
	ln.start = start;
	ln.end = sig_end;
	ln.s = st->src + start;
	size_t i = mi_line_sym(st->p, kind, st->src + na, nb - na, st->src + start, sig_end - start, &ln);
	return i;
}

static void sql_end(sql_state *st, size_t i, uint32_t end)
{
	mi_symbol *s = &st->p->syms[i];
	s->end_byte = end;
	s->end_line = line_of(st, end > s->start_byte ? end - 1 : end);
}

/* The column list of CREATE TABLE, opened by the '(' just read. */
static void sql_columns(sql_state *st)
{
	int depth = 1;
	bool item_start = true;
	for (;;) {
		sql_tok t = sql_next(st);
		if (!t.kind || sql_at_delim(st, &t)) {
			st->pos = t.a;
			return;
		}
		if (t.kind == 'p' && st->src[t.a] == '(') {
			depth++;
		} else if (t.kind == 'p' && st->src[t.a] == ')') {
			if (--depth == 0)
				return;
		} else if (t.kind == 'p' && st->src[t.a] == ',' && depth == 1) {
			item_start = true;
			continue;
		} else if (item_start && depth == 1 && (t.kind == 'w' || t.kind == 'q')) {
			item_start = false;
			if (tok_in(st, &t, sql_constraints)) {
				continue;
			}
			/* the column: its name, its line as signature (to a ',' or the end) */
			uint32_t a = t.a + (t.kind == 'q'), b = t.b - (t.kind == 'q');
			uint32_t e = t.b;
			int d = 0;
			while (e < st->len && !(d == 0 && (st->src[e] == ',' || st->src[e] == ')' ||
							   st->src[e] == '\n'))) {
				if (st->src[e] == '(')
					d++;
				else if (st->src[e] == ')')
					d--;
				e++;
			}
			while (e > t.b && (st->src[e - 1] == ' ' || st->src[e - 1] == '\t'))
				e--;
			mi_buf_reset(&st->doc);
			size_t i = sql_add(st, MI_KIND_FIELD, a, b, t.a, e);
			sql_end(st, i, e);
			continue;
		}
		if (tok_is(st, &t, "REFERENCES")) {
			uint32_t a, b;
			sql_tok n;
			if (sql_name(st, sql_next(st), &a, &b, &n)) {
				sql_ref(st, st->src + a, b - a, a);
				st->pos = n.a;
			}
		}
		item_start = false;
	}
}

/* One statement from the token t that starts it, to its delimiter. */
static void sql_statement(sql_state *st, sql_tok t)
{
	uint32_t start = t.a;
	bool doc = st->doc.len && st->doc_end + 1 == line_of(st, start);
	long sym = -1;
	if (tok_is(st, &t, "DELIMITER")) {
		sql_skip(st);
		uint32_t e = st->pos;
		while (e < st->len && !isspace((unsigned char)st->src[e]))
			e++;
		if (e > st->pos && e - st->pos < sizeof(st->delim)) {
			memcpy(st->delim, st->src + st->pos, e - st->pos);
			st->delim[e - st->pos] = 0;
		}
		st->pos = e;
		return;
	}
	if (tok_is(st, &t, "CREATE")) {
		sql_tok k = sql_next(st);
		bool is_enum = false;
		while (tok_in(st, &k, sql_mods) || (k.kind == 'p' && st->src[k.a] == '='))
			k = sql_next(st);
		int kind = MI_KIND_NONE;
		for (size_t i = 0; i < sizeof(sql_objs) / sizeof(sql_objs[0]); i++)
			if (tok_is(st, &k, sql_objs[i].word))
				kind = sql_objs[i].kind;
		sql_tok n = sql_next(st);
		if (kind != MI_KIND_NONE && tok_is(st, &n, "IF")) {
			n = sql_next(st); /* NOT */
			n = sql_next(st); /* EXISTS */
			n = sql_next(st);
		}
		uint32_t a, b;
		sql_tok after;
		if (kind != MI_KIND_NONE && sql_name(st, n, &a, &b, &after)) {
			if (kind == MI_KIND_TYPEDEF && tok_is(st, &after, "AS")) {
				sql_tok e = sql_next(st);
				is_enum = tok_is(st, &e, "ENUM");
				st->pos = e.a;
			}
			/* the signature: the statement's first line */
			uint32_t se = start;
			while (se < st->len && st->src[se] != '\n')
				se++;
			sym = (long)sql_add(st, is_enum ? MI_KIND_ENUM : kind, a, b, start, se);
			if (doc)
				mi_line_doc(st->p, (size_t)sym, st->doc.buf, st->doc.len);
			mi_buf_reset(&st->doc);
			if (kind == MI_KIND_STRUCT && after.kind == 'p' && st->src[after.a] == '(' &&
			    tok_is(st, &k, "TABLE"))
				sql_columns(st);
			else
				st->pos = after.a;
		} else {
			st->pos = n.a;
		}
	}
	mi_buf_reset(&st->doc);
	/* to the end of the statement: table references on the way */
	uint32_t end = st->len;
	for (;;) {
		sql_tok x = sql_next(st);
		if (!x.kind)
			break;
		if (sql_at_delim(st, &x)) {
			st->pos = x.a + (uint32_t)strlen(st->delim);
			end = st->pos;
			break;
		}
		/* a GO line (SQL Server batches) */
		if (tok_is(st, &x, "GO") && (x.a == 0 || st->src[x.a - 1] == '\n')) {
			end = x.b;
			break;
		}
		if (tok_in(st, &x, sql_table_refs) || (tok_is(st, &x, "ON") && sym >= 0 &&
		    (st->p->syms[sym].kind == MI_KIND_CONSTANT || st->p->syms[sym].kind == MI_KIND_FUNCTION))) {
			uint32_t a, b;
			sql_tok n;
			if (sql_name(st, sql_next(st), &a, &b, &n)) {
				sql_ref(st, st->src + a, b - a, a);
				st->pos = n.a;
			}
		}
	}
	if (sym >= 0)
		sql_end(st, (size_t)sym, end);
}

static int sql_scan(const char *src, size_t len, mi_parsed *out)
{
	sql_state st = { .src = src, .len = (uint32_t)len, .p = out };
	strcpy(st.delim, ";");
	mi_scan_init(&st.lines, src, len, out);
	for (;;) {
		sql_tok t = sql_next(&st);
		if (!t.kind)
			break;
		sql_statement(&st, t);
	}
	mi_line_nest(out, src);
	mi_scan_release(&st.lines);
	mi_buf_release(&st.doc);
	return 0;
}

const mi_lang_row mi_lang_sql = {
	.id = MI_LANG_SQL,
	.name = "sql",
	.exts = " .sql .psql .pgsql .mysql .ddl ",
	.scan = sql_scan,
};
