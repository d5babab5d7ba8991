/*
 * simple.c - the scanner for Simple (.spl), a colon-and-indentation
 * language without a tree-sitter grammar: symbols, call references and
 * syntax diagnostics from one pass over the file's logical lines.
 *
 * A logical line is a physical line plus the lines that continue it (open
 * brackets, a trailing backslash, a multi-line string).  Each logical line
 * is read twice: the first read finds its extent and reports lexical errors
 * (strings, brackets), the second classifies it (definition header, field,
 * enum items, control header, statement) and collects calls.  Blocks are a
 * stack of open headers keyed by indentation column, as in Python.
 *
 * Rules the outline relies on:
 *   - `pub` makes a symbol public; traits, enums, pointcuts, impl blocks,
 *     trait members and enum items are public without it.
 *   - `impl Trait for Type:` is a MODULE named "Type" (so its methods are
 *     Type.method) with signature "impl Trait for Type" and an MI_REF_IMPL
 *     reference from it to Trait.
 *   - a `fn` line without ':' inside a trait (or marked `extern`) is a
 *     declaration: body_byte 0.
 *   - the doc comment is the run of '#' lines at the definition's column
 *     directly above it (decorator lines may sit in between).
 */
#include "../indexer_int.h"

#include <assert.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SIMPLE_MAX_DEPTH 200   /* deepest symbol nesting that is indexed */
#define SIMPLE_MAX_DIAGS 100   /* diagnostics per file before giving up */
#define SIMPLE_SIG_MAX 1024    /* longest signature kept, in bytes */
#define SIMPLE_HEAD_TOKS 64    /* tokens read to classify a line */
#define SIMPLE_BRACKETS 256    /* open brackets whose kind and line are kept */
#define SIMPLE_QUOTE_MAX 40    /* longest source excerpt quoted in a message */
#define NO_POS SIZE_MAX
#define NO_COL UINT32_MAX

enum tok_kind {
	T_EOF, T_NL, T_IDENT, T_NUM, T_STR, T_COMMENT, T_OPEN, T_CLOSE,
	T_COLON, T_COMMA, T_DOT, T_ARROW, T_LT, T_GT, T_EQ, T_AT, T_BSLASH,
	T_OTHER
};

typedef struct tok {
	uint8_t kind;   /* enum tok_kind */
	uint8_t bad;    /* string without its closing quote: 1 line, 2 triple */
	uint32_t nl;    /* newlines inside the token (multi-line strings) */
	size_t start;   /* first byte */
	size_t end;     /* one past the last byte */
} tok;

/* What a block's body holds: decides what its lines can define. */
enum ctx {
	CTX_TOP, CTX_CLASS, CTX_STRUCT, CTX_ENUM, CTX_TRAIT, CTX_IMPL, CTX_FN,
	CTX_POINTCUT, CTX_OTHER
};

enum { MOD_PUB = 1, MOD_STATIC = 2, MOD_ASYNC = 4, MOD_EXTERN = 8, MOD_OTHER = 16 };

/* Definition keywords: one row per kind of header. */
static const struct def_row {
	const char *kw;   /* keyword that opens the header */
	uint8_t kind;     /* mi_kind of the symbol */
	uint8_t ctx;      /* what its body holds */
	bool always_pub;  /* public without `pub` */
} simple_defs[] = {
	{ "class", MI_KIND_CLASS, CTX_CLASS, false },
	{ "struct", MI_KIND_STRUCT, CTX_STRUCT, false },
	{ "enum", MI_KIND_ENUM, CTX_ENUM, true },
	{ "trait", MI_KIND_TRAIT, CTX_TRAIT, true },
	{ "impl", MI_KIND_MODULE, CTX_IMPL, true },
	{ "fn", MI_KIND_FUNCTION, CTX_FN, false },
	{ "pointcut", MI_KIND_POINTCUT, CTX_POINTCUT, true },
};

static const struct mod_row {
	const char *kw;  /* modifier word before a definition */
	unsigned bit;    /* MOD_* */
} simple_mods[] = {
	{ "pub", MOD_PUB }, { "static", MOD_STATIC }, { "async", MOD_ASYNC },
	{ "extern", MOD_EXTERN }, { "me", MOD_OTHER }, { "override", MOD_OTHER },
	{ "inline", MOD_OTHER }, { "unsafe", MOD_OTHER }, { "export", MOD_OTHER },
	{ "common", MOD_OTHER }, { "mut", MOD_OTHER },
};

/* Headers that must end in ':' when they own an indented block. */
static const char *const simple_control[] = {
	"if", "elif", "else", "while", "for", "match", "case", "loop", "try",
	"catch", "finally", "with", "unless", "until", NULL
};

/* Words that are never callees even when followed by '('. */
static const char *const simple_keywords[] = {
	"if", "elif", "else", "while", "for", "in", "match", "case", "return",
	"and", "or", "not", "fn", "class", "struct", "enum", "trait", "impl",
	"pub", "loop", "yield", "await", "assert", "with", "try", "catch",
	"finally", "is", "val", "var", "me", "static", "use", "import",
	"export", "mod", "pass", "break", "continue", "async", "unless",
	"until", "spawn", "lambda", "pointcut", "from", "as", "where", "defer",
	"extern", "then", "do", "when", "common", "mut", NULL
};

typedef struct lline {
	size_t start;     /* first byte of the first physical line */
	size_t first;     /* first non-blank byte */
	size_t end;       /* one past the last non-blank byte of the content */
	size_t next;      /* first byte of the following physical line */
	uint32_t line;    /* line of first */
	uint32_t end_line;/* line of end */
	uint32_t col;     /* indentation column (tabs to multiples of 8) */
	uint8_t type;     /* L_* */
	bool mixed;       /* indentation mixes tabs and spaces */
	bool unclosed;    /* ends inside a bracket (already reported) */
} lline;

enum { L_BLANK, L_COMMENT, L_CODE };

typedef struct blk {
	int64_t hdr_col;    /* column of the header; -1 for the file itself */
	uint32_t body_col;  /* column of the first body line, NO_COL before */
	int32_t sym;        /* symbol this block defines, -1 for none */
	int32_t owner;      /* innermost symbol enclosing the body, -1 at top */
	uint8_t ctx;        /* enum ctx of the body */
	bool want_colon;    /* control header without ':' (reported on a body) */
	uint32_t hdr_line;  /* line of the header */
	size_t kw_start;    /* header keyword, for messages */
	size_t kw_end;
	uint32_t last_line; /* last non-blank line seen inside */
	size_t last_end;    /* one past its last non-blank byte */
} blk;

typedef struct scan {
	const char *s;        /* source */
	size_t len;           /* its length */
	mi_parsed *out;       /* where results go */
	uint32_t line;        /* line of the next physical line (first read) */
	blk *blks;            /* open blocks; [0] is the file */
	size_t nblk;          /* blocks open */
	size_t capblk;        /* blocks allocated */
	size_t run_start;     /* doc run: first byte of its first line */
	uint32_t run_count;   /* comment lines in the run, 0 = none */
	uint32_t run_col;     /* their column */
	uint32_t run_next;    /* line right after the run */
	size_t ndiag;         /* diagnostics reported (cap SIMPLE_MAX_DIAGS) */
	long mix_diag;        /* index of the tabs-and-spaces warning, -1 */
	uint32_t mix_more;    /* further lines with that problem */
	bool deep_warned;     /* nesting-cap warning given */
	mi_buf tmp;           /* scratch for names and messages */
} scan;

/* ---- lexer ------------------------------------------------------------------- */

static bool is_id0(unsigned char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c >= 0x80;
}

static bool is_id(unsigned char c)
{
	return is_id0(c) || (c >= '0' && c <= '9');
}

static bool is_hspace(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Lexes the string at s[p] into t; returns the offset past it. */
static size_t lex_string(const char *s, size_t len, size_t p, tok *t)
{
	char q = s[p];
	size_t start = p;

	if (p + 2 < len && s[p + 1] == q && s[p + 2] == q) {
		p += 3;
		while (p < len) {
			if (s[p] == '\\' && p + 1 < len) {
				t->nl += s[p + 1] == '\n';
				p += 2;
				continue;
			}
			if (p + 2 < len && s[p] == q && s[p + 1] == q && s[p + 2] == q)
				return p + 3;
			t->nl += s[p] == '\n';
			p++;
		}
		t->bad = 2;
		return len;
	}
	for (p++; p < len && s[p] != '\n'; p++) {
		if (s[p] == '\\' && p + 1 < len) {
			p++;
			if (s[p] == '\r' && p + 1 < len && s[p + 1] == '\n')
				p++;
			t->nl += s[p] == '\n';
			continue;
		}
		if (s[p] == q)
			return p + 1;
	}
	t->bad = 1;
	while (p > start + 1 && is_hspace(s[p - 1]))
		p--;
	return p;
}

/* Reads the token at *pos (skipping blanks, not newlines) and advances. */
static void lex(const char *s, size_t len, size_t *pos, tok *t)
{
	size_t p = *pos;
	unsigned char c;

	while (p < len && is_hspace(s[p]))
		p++;
	t->start = p;
	t->nl = 0;
	t->bad = 0;
	if (p >= len) {
		t->kind = T_EOF;
		t->end = *pos = p;
		return;
	}
	c = (unsigned char)s[p];
	t->kind = T_OTHER;
	if (c == '\n') {
		t->kind = T_NL;
		p++;
	} else if (c == '#') {
		t->kind = T_COMMENT;
		while (p < len && s[p] != '\n')
			p++;
		while (p > t->start + 1 && is_hspace(s[p - 1]))
			p--;
	} else if (is_id0(c)) {
		t->kind = T_IDENT;
		while (p < len && is_id((unsigned char)s[p]))
			p++;
	} else if (c >= '0' && c <= '9') {
		t->kind = T_NUM;
		while (p < len && (is_id((unsigned char)s[p]) ||
				   (s[p] == '.' && p + 1 < len && s[p + 1] >= '0' && s[p + 1] <= '9')))
			p++;
	} else if (c == '"' || c == '\'') {
		t->kind = T_STR;
		p = lex_string(s, len, p, t);
	} else {
		char n = p + 1 < len ? s[p + 1] : 0;
		p++;
		switch (c) {
		case '(': case '[': case '{': t->kind = T_OPEN; break;
		case ')': case ']': case '}': t->kind = T_CLOSE; break;
		case ',': t->kind = T_COMMA; break;
		case '.': t->kind = T_DOT; break;
		case '@': t->kind = T_AT; break;
		case '\\': t->kind = T_BSLASH; break;
		case ':':
			if (n == ':')
				p++;
			else
				t->kind = T_COLON;
			break;
		case '-':
			if (n == '>') {
				t->kind = T_ARROW;
				p++;
			}
			break;
		case '<':
			if (n == '=')
				p++;
			else
				t->kind = T_LT;
			break;
		case '>':
			if (n == '=')
				p++;
			else
				t->kind = T_GT;
			break;
		case '=':
			if (n == '=' || n == '>')
				p++;
			else
				t->kind = T_EQ;
			break;
		default:
			break;
		}
	}
	t->end = *pos = p;
}

static bool tok_is(const char *s, const tok *t, const char *w)
{
	size_t n = strlen(w);
	return t->kind == T_IDENT && t->end - t->start == n &&
	       !memcmp(s + t->start, w, n);
}

static bool tok_in(const char *s, const tok *t, const char *const *list)
{
	for (; *list; list++)
		if (tok_is(s, t, *list))
			return true;
	return false;
}

static unsigned mod_bit(const char *s, const tok *t)
{
	for (size_t i = 0; i < sizeof(simple_mods) / sizeof(simple_mods[0]); i++)
		if (tok_is(s, t, simple_mods[i].kw))
			return simple_mods[i].bit;
	return 0;
}

static const struct def_row *def_row(const char *s, const tok *t)
{
	for (size_t i = 0; i < sizeof(simple_defs) / sizeof(simple_defs[0]); i++)
		if (tok_is(s, t, simple_defs[i].kw))
			return &simple_defs[i];
	return NULL;
}

/* ---- results ------------------------------------------------------------------ */

static void diag(scan *sc, uint32_t line, char sev, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Reports a problem; past SIMPLE_MAX_DIAGS only one closing note is added. */
static void diag(scan *sc, uint32_t line, char sev, const char *fmt, ...)
{
	va_list ap;
	mi_diag *d;

	if (sc->ndiag > SIMPLE_MAX_DIAGS)
		return;
	mi_buf_reset(&sc->tmp);
	if (sc->ndiag == SIMPLE_MAX_DIAGS) {
		sev = 'W';
		mi_buf_addf(&sc->tmp, "more than %d problems in this file; the rest are not reported",
			    SIMPLE_MAX_DIAGS);
	} else {
		va_start(ap, fmt);
		mi_buf_vaddf(&sc->tmp, fmt, ap);
		va_end(ap);
	}
	sc->ndiag++;
	const char *msg = mi_parsed_strndup(sc->out, sc->tmp.buf, sc->tmp.len);
	d = mi_parsed_add_diag(sc->out);
	d->line = line;
	d->severity = sev;
	d->msg = msg;
}

/* Length of s[a..b) to quote in a message, cut at a UTF-8 boundary. */
static int quote_len(const char *s, size_t a, size_t b)
{
	size_t n = b - a;
	if (n > SIMPLE_QUOTE_MAX) {
		n = SIMPLE_QUOTE_MAX;
		n = mi_utf8_cut(s + a, n);
	}
	return (int)n;
}

/* A reference to s[a..b) on line `line`, which starts at byte lb (NO_POS:
 * the line holding a; a header's references carry its first line, which
 * a header broken inside brackets does not share with them). */
static void add_ref(scan *sc, int kind, size_t a, size_t b, uint32_t line, size_t lb,
		    int32_t caller)
{
	const char *callee = mi_parsed_strndup(sc->out, sc->s + a, b - a);
	mi_ref *r = mi_parsed_add_ref(sc->out);
	r->callee = callee;
	r->line = line;
	r->caller_idx = caller;
	r->kind = (uint8_t)kind;
	if (lb == NO_POS)
		for (lb = a; lb > 0 && sc->s[lb - 1] != '\n'; lb--)
			;
	r->line_byte = (uint32_t)lb;
}

/*
 * The tokens of s[from..to) with comments and line breaks dropped and each
 * run of blanks folded to one space (none after an opening bracket or before
 * a closing one or a comma).  Cut to SIMPLE_SIG_MAX bytes ending in "...".
 */
static const char *fold(scan *sc, size_t from, size_t to)
{
	const char *s = sc->s;
	mi_buf *b = &sc->tmp;
	size_t q = from, prev_end = NO_POS;
	char prev_c = 0;
	tok t;

	mi_buf_reset(b);
	while (q < to && b->len <= SIMPLE_SIG_MAX) {
		lex(s, to, &q, &t);
		if (t.kind == T_EOF)
			break;
		if (t.kind == T_NL || t.kind == T_COMMENT || t.kind == T_BSLASH)
			continue;
		if (b->len && t.start != prev_end) {
			char c = s[t.start];
			if (!(prev_c == '(' || prev_c == '[' || prev_c == '{' ||
			      c == ')' || c == ']' || c == '}' || c == ','))
				mi_buf_addc(b, ' ');
		}
		size_t n = t.end - t.start, room = SIMPLE_SIG_MAX + 1 - b->len;
		mi_buf_add(b, s + t.start, n < room ? n : room);
		prev_end = t.end;
		prev_c = s[t.end - 1];
	}
	if (b->len > SIMPLE_SIG_MAX) {
		size_t n = SIMPLE_SIG_MAX - 3;
		n = mi_utf8_cut(b->buf, n);
		b->len = n;
		mi_buf_adds(b, "...");
	}
	return mi_parsed_strndup(sc->out, b->buf, b->len);
}

/* Text of the doc run above ll, markers stripped, or "" if there is none. */
static const char *take_doc(scan *sc, const lline *ll)
{
	const char *s = sc->s;
	mi_buf *b = &sc->tmp;
	size_t p = sc->run_start;
	uint32_t left = sc->run_count;

	if (!left || sc->run_next != ll->line || sc->run_col != ll->col)
		return "";
	mi_buf_reset(b);
	while (left && p < sc->len) {
		size_t e;
		while (p < sc->len && is_hspace(s[p]))
			p++;
		e = p;
		while (e < sc->len && s[e] != '\n')
			e++;
		if (p < e && s[p] == '#') {
			while (p < e && s[p] == '#')
				p++;
			if (p < e && s[p] == ' ')
				p++;
			size_t te = e;
			while (te > p && is_hspace(s[te - 1]))
				te--;
			if (b->len)
				mi_buf_addc(b, '\n');
			mi_buf_add(b, s + p, te - p);
			left--;
		}
		p = e + 1;
	}
	return mi_parsed_strndup(sc->out, b->buf, b->len);
}

/*
 * Adds a symbol named s[a..b) inside owner with provisional extent ll.
 * Returns its index, or -1 past SIMPLE_MAX_DEPTH (warned once).
 */
static int32_t add_sym(scan *sc, int kind, int vis, size_t a, size_t b,
		       int32_t owner, const lline *ll, const char *doc)
{
	mi_parsed *out = sc->out;
	const char *name, *parent = "";
	unsigned level = 0;
	mi_symbol *sym;

	if (owner >= 0) {
		const mi_symbol *o = &out->syms[owner];
		level = o->level + 1u;
		if (level >= SIMPLE_MAX_DEPTH) {
			if (!sc->deep_warned)
				diag(sc, ll->line, 'W',
				     "definitions nested deeper than %d levels are not indexed; flatten the nesting to index them",
				     SIMPLE_MAX_DEPTH);
			sc->deep_warned = true;
			return -1;
		}
		mi_buf_reset(&sc->tmp);
		if (o->parent[0]) {
			mi_buf_adds(&sc->tmp, o->parent);
			mi_buf_addc(&sc->tmp, '.');
		}
		mi_buf_adds(&sc->tmp, o->name);
		parent = mi_parsed_strndup(out, sc->tmp.buf, sc->tmp.len);
	}
	name = mi_parsed_strndup(out, sc->s + a, b - a);
	sym = mi_parsed_add_sym(out);
	sym->name = name;
	sym->parent = parent;
	sym->doc = doc;
	sym->parent_idx = owner;
	sym->kind = (uint8_t)kind;
	sym->vis = (uint8_t)vis;
	sym->level = (uint8_t)level;
	sym->start_line = ll->line;
	sym->start_byte = (uint32_t)ll->first;
	sym->end_line = ll->end_line;
	sym->end_byte = (uint32_t)ll->end;
	return (int32_t)(out->nsyms - 1);
}

/* ---- blocks ------------------------------------------------------------------- */

static void push_blk(scan *sc, int64_t col, int32_t sym, int32_t owner,
		     int ctx, const lline *ll)
{
	blk *b;

	if (sc->nblk == sc->capblk) {
		sc->capblk = sc->capblk ? sc->capblk * 2 : 64;
		sc->blks = mi_xrealloc(sc->blks, sc->capblk * sizeof(*sc->blks));
	}
	b = &sc->blks[sc->nblk++];
	memset(b, 0, sizeof(*b));
	b->hdr_col = col;
	b->body_col = NO_COL;
	b->sym = sym;
	b->owner = sym >= 0 ? sym : owner;
	b->ctx = (uint8_t)ctx;
	if (ll) {
		b->hdr_line = ll->line;
		b->last_line = ll->end_line;
		b->last_end = ll->end;
	}
}

/* Closes the innermost block: its symbol ends at its last non-blank line. */
static void pop_blk(scan *sc)
{
	blk *b, *up;

	assert(sc->nblk > 1);
	b = &sc->blks[--sc->nblk];
	up = &sc->blks[sc->nblk - 1];
	if (b->sym >= 0) {
		mi_symbol *sym = &sc->out->syms[b->sym];
		sym->end_line = b->last_line;
		sym->end_byte = (uint32_t)b->last_end;
	}
	if (b->last_end > up->last_end) {
		up->last_line = b->last_line;
		up->last_end = b->last_end;
	}
}

/* ---- reading logical lines ---------------------------------------------------- */

/* true if the physical line at pos starts a definition header. */
static bool starts_def(const scan *sc, size_t pos)
{
	const char *s = sc->s;
	tok t;

	for (int i = 0; i < 16; i++) {
		lex(s, sc->len, &pos, &t);
		if (t.kind != T_IDENT)
			return false;
		if (mod_bit(s, &t))
			continue;
		const struct def_row *d = def_row(s, &t);
		if (!d)
			return false;
		lex(s, sc->len, &pos, &t);
		return t.kind == T_IDENT || (d->ctx == CTX_IMPL && t.kind == T_LT);
	}
	return false;
}

/*
 * Reads the logical line at pos into ll, reporting unterminated strings and
 * unbalanced brackets.  An unclosed bracket ends the line early where the
 * next physical line starts a definition, so one typo loses nothing after it.
 */
static void read_line(scan *sc, size_t pos, lline *ll)
{
	const char *s = sc->s;
	size_t len = sc->len, q, p = pos;
	uint32_t col = 0;
	bool sp = false, tab = false, cont = false;
	char open[SIMPLE_BRACKETS];
	uint32_t open_line[SIMPLE_BRACKETS];
	size_t depth = 0;
	tok t;

	while (p < len && is_hspace(s[p])) {
		if (s[p] == ' ') {
			col++;
			sp = true;
		} else if (s[p] == '\t') {
			col = (col / 8 + 1) * 8;
			tab = true;
		}
		p++;
	}
	memset(ll, 0, sizeof(*ll));
	ll->start = pos;
	ll->first = ll->end = p;
	ll->line = ll->end_line = sc->line;
	ll->col = col;
	ll->mixed = sp && tab;
	if (p >= len || s[p] == '\n') {
		ll->type = L_BLANK;
		ll->next = p < len ? p + 1 : len;
		if (p < len)
			sc->line++;
		return;
	}
	ll->type = s[p] == '#' ? L_COMMENT : L_CODE;
	q = p;
	for (;;) {
		lex(s, len, &q, &t);
		if (t.kind == T_EOF)
			break;
		if (t.kind == T_NL) {
			sc->line++;
			if (depth == 0 && !cont)
				break;
			cont = false;
			if (depth > 0 && starts_def(sc, q)) {
				diag(sc, open_line[0], 'E',
				     "'%c' is never closed; close it before the definition on line %u",
				     open[0], sc->line);
				ll->unclosed = true;
				depth = 0;
				break;
			}
			continue;
		}
		uint32_t tline = sc->line;
		sc->line += t.nl;
		if (t.kind == T_STR && t.bad == 2)
			diag(sc, tline, 'E', "unterminated triple-quoted string; close it with %c%c%c",
			     s[t.start], s[t.start], s[t.start]);
		else if (t.kind == T_STR && t.bad)
			diag(sc, tline, 'E', "unterminated string; close it with %c on the same line",
			     s[t.start]);
		else if (t.kind == T_OPEN) {
			if (depth < SIMPLE_BRACKETS) {
				open[depth] = s[t.start];
				open_line[depth] = tline;
			}
			depth++;
		} else if (t.kind == T_CLOSE) {
			char c = s[t.start];
			char want = c == ')' ? '(' : c == ']' ? '[' : '{';
			if (depth == 0) {
				diag(sc, tline, 'E', "unmatched '%c'; remove it or add its opening '%c'",
				     c, want);
			} else if (depth > SIMPLE_BRACKETS || open[depth - 1] == want) {
				depth--;
			} else {
				size_t k = depth - 1;
				while (k > 0 && open[k - 1] != want)
					k--;
				diag(sc, tline, 'E', "'%c' does not match '%c' opened on line %u",
				     c, open[depth - 1], open_line[depth - 1]);
				depth = k > 0 ? k - 1 : depth - 1;
			}
		}
		cont = t.kind == T_BSLASH;
		ll->end = t.end;
		ll->end_line = sc->line;
	}
	if (depth > 0) {
		diag(sc, open_line[0], 'E', "'%c' is never closed; add the closing bracket",
		     open[0]);
		ll->unclosed = true;
	}
	ll->next = q;
}

/* ---- classifying a code line -------------------------------------------------- */

typedef struct head {
	uint8_t kind;       /* mi_kind defined by the header, 0 for none */
	uint8_t ctx;        /* what the header's body holds */
	bool always_pub;    /* public without `pub` */
	bool field;         /* a member variable line */
	bool items;         /* a line of enum items */
	bool decorator;     /* an '@' line */
	bool control;       /* an if/while/... header */
	unsigned mods;      /* MOD_* */
	size_t kw_start;    /* the keyword */
	size_t kw_end;
	size_t name_start;  /* the defined name; NO_POS for none */
	size_t name_end;
	size_t trait_start; /* impl Trait for Type: the trait; NO_POS */
	size_t trait_end;
	size_t imp_start;   /* use a.b.c: the module path; NO_POS */
	size_t imp_end;
} head;

/* Skips a <...> list starting at tk[*j]. */
static void skip_angle(const tok *tk, int n, int *j)
{
	int d = 0;
	for (; *j < n; (*j)++) {
		if (tk[*j].kind == T_LT)
			d++;
		else if (tk[*j].kind == T_GT && --d == 0) {
			(*j)++;
			return;
		}
	}
}

/* Reads a dotted path at tk[*j]; returns the index of its last name. */
static int dotted(const tok *tk, int n, int *j)
{
	int last = *j;
	(*j)++;
	while (*j + 1 < n && tk[*j].kind == T_DOT && tk[*j + 1].kind == T_IDENT) {
		last = *j + 1;
		*j += 2;
	}
	return last;
}

/* impl [<...>] A [<...>] [for B [<...>]] */
static void classify_impl(const char *s, const tok *tk, int n, int i, head *h)
{
	int j = i + 1, first, second = -1;

	if (j < n && tk[j].kind == T_LT)
		skip_angle(tk, n, &j);
	if (j >= n || tk[j].kind != T_IDENT)
		return;
	first = dotted(tk, n, &j);
	if (j < n && tk[j].kind == T_LT)
		skip_angle(tk, n, &j);
	if (j + 1 < n && tok_is(s, &tk[j], "for") && tk[j + 1].kind == T_IDENT) {
		j++;
		second = dotted(tk, n, &j);
	}
	h->kind = MI_KIND_MODULE;
	h->ctx = CTX_IMPL;
	h->always_pub = true;
	if (second >= 0) {
		h->trait_start = tk[first].start;
		h->trait_end = tk[first].end;
		first = second;
	}
	h->name_start = tk[first].start;
	h->name_end = tk[first].end;
}

static void classify(scan *sc, const lline *ll, int ctx, head *h)
{
	const char *s = sc->s;
	tok tk[SIMPLE_HEAD_TOKS], t;
	int n = 0, i = 0;
	size_t q = ll->first;

	memset(h, 0, sizeof(*h));
	h->name_start = h->trait_start = h->imp_start = NO_POS;
	while (n < SIMPLE_HEAD_TOKS && q < ll->end) {
		lex(s, ll->end, &q, &t);
		if (t.kind == T_EOF)
			break;
		if (t.kind != T_NL && t.kind != T_COMMENT && t.kind != T_BSLASH)
			tk[n++] = t;
	}
	if (n == 0)
		return;
	if (tk[0].kind == T_AT) {
		h->decorator = true;
		return;
	}
	for (unsigned b; i < n && (b = mod_bit(s, &tk[i])); i++)
		h->mods |= b;
	if (i < n && tk[i].kind == T_IDENT) {
		const struct def_row *d = def_row(s, &tk[i]);
		h->kw_start = tk[i].start;
		h->kw_end = tk[i].end;
		if (d && d->ctx == CTX_IMPL) {
			classify_impl(s, tk, n, i, h);
			if (h->kind)
				return;
		} else if (d && i + 1 < n && tk[i + 1].kind == T_IDENT) {
			h->kind = d->kind;
			h->ctx = d->ctx;
			h->always_pub = d->always_pub;
			h->name_start = tk[i + 1].start;
			h->name_end = tk[i + 1].end;
			if (d->kind == MI_KIND_FUNCTION &&
			    (ctx == CTX_CLASS || ctx == CTX_STRUCT || ctx == CTX_ENUM ||
			     ctx == CTX_TRAIT || ctx == CTX_IMPL))
				h->kind = MI_KIND_METHOD;
			return;
		}
	}
	if (ctx == CTX_CLASS || ctx == CTX_STRUCT) {
		int j = i;
		if (j < n && (tok_is(s, &tk[j], "val") || tok_is(s, &tk[j], "var")))
			j++;
		if (j + 1 < n && tk[j].kind == T_IDENT &&
		    !tok_in(s, &tk[j], simple_keywords) &&
		    (tk[j + 1].kind == T_COLON || tk[j + 1].kind == T_EQ)) {
			h->field = true;
			h->kind = MI_KIND_FIELD;
			h->name_start = tk[j].start;
			h->name_end = tk[j].end;
			return;
		}
	}
	if (ctx == CTX_ENUM && i == 0 && tk[0].kind == T_IDENT &&
	    !tok_in(s, &tk[0], simple_keywords)) {
		h->items = true;
		return;
	}
	if (i < n && (tok_is(s, &tk[i], "use") || tok_is(s, &tk[i], "import")) &&
	    i + 1 < n && tk[i + 1].kind == T_IDENT) {
		int j = i + 1, last = dotted(tk, n, &j);
		h->imp_start = tk[i + 1].start;
		h->imp_end = tk[last].end;
		return;
	}
	if (tk[0].kind == T_IDENT && tok_in(s, &tk[0], simple_control)) {
		h->control = true;
		h->kw_start = tk[0].start;
		h->kw_end = tk[0].end;
	}
}

/* ---- one code line ------------------------------------------------------------- */

/* Closes the blocks the line's indentation leaves; checks the dedent. */
static void enter_line(scan *sc, const lline *ll)
{
	blk *top;

	while (sc->nblk > 1 && (int64_t)ll->col <= sc->blks[sc->nblk - 1].hdr_col)
		pop_blk(sc);
	top = &sc->blks[sc->nblk - 1];
	if (top->body_col == NO_COL) {
		if ((int64_t)ll->col > top->hdr_col) {
			top->body_col = ll->col;
			if (top->want_colon)
				diag(sc, top->hdr_line, 'E',
				     "missing ':' after the '%.*s' header; add ':' to open its block",
				     quote_len(sc->s, top->kw_start, top->kw_end),
				     sc->s + top->kw_start);
		}
	} else if (ll->col < top->body_col) {
		diag(sc, ll->line, 'E',
		     "inconsistent dedent: column %u matches no open block (expected column %u)",
		     ll->col, top->body_col);
	}
	if (ll->mixed) {
		if (sc->mix_diag < 0 && sc->ndiag < SIMPLE_MAX_DIAGS) {
			sc->mix_diag = (long)sc->out->ndiags;
			diag(sc, ll->line, 'W',
			     "indentation mixes tabs and spaces; use one of them");
		} else {
			sc->mix_more++;
		}
	}
	top = &sc->blks[sc->nblk - 1];
	top->last_line = ll->end_line;
	top->last_end = ll->end;
}

static void add_item(scan *sc, size_t name_s, size_t name_e, size_t a, size_t b,
		     uint32_t line, int32_t owner, const lline *ll, const char *doc)
{
	lline it = *ll;
	it.first = a;
	it.end = b;
	it.line = it.end_line = line;
	int32_t idx = add_sym(sc, MI_KIND_ENUMERATOR, MI_VIS_PUBLIC, name_s, name_e,
			      owner, &it, doc);
	if (idx >= 0) {
		const char *sig = fold(sc, a, b);
		sc->out->syms[idx].sig = sig;
	}
}

static void handle_code(scan *sc, const lline *ll)
{
	const char *s = sc->s;
	head h;
	tok t, prev = { 0 }, last = { 0 };
	int32_t owner, idx = -1, caller;
	int ctx, depth = 0, angle = 0, last_depth = 0;
	size_t q, colon = NO_POS, it_a = 0, it_b = 0, it_ns = 0, it_ne = 0;
	uint32_t line = ll->line, prev_line = 0, colon_line = 0, it_line = 0;
	bool in_item = false, expect_item;
	const char *doc = "";

	enter_line(sc, ll);
	owner = sc->blks[sc->nblk - 1].owner;
	ctx = sc->blks[sc->nblk - 1].ctx;
	classify(sc, ll, ctx, &h);

	if (h.decorator) {
		if (sc->run_count && sc->run_next == ll->line)
			sc->run_next = ll->end_line + 1;
	} else {
		if (h.kind || h.items)
			doc = take_doc(sc, ll);
		sc->run_count = 0;
	}
	if (h.kind && !h.field) {
		int vis = (h.mods & MOD_PUB) || h.always_pub || ctx == CTX_TRAIT
			  ? MI_VIS_PUBLIC : MI_VIS_PRIVATE;
		idx = add_sym(sc, h.kind, vis, h.name_start, h.name_end, owner, ll, doc);
		if (idx >= 0) {
			mi_symbol *sym = &sc->out->syms[idx];
			if (h.mods & MOD_STATIC)
				sym->flags |= MI_SYMF_STATIC;
			if (h.mods & MOD_ASYNC)
				sym->flags |= MI_SYMF_ASYNC;
			if ((h.kind == MI_KIND_FUNCTION || h.kind == MI_KIND_METHOD) &&
			    h.name_end - h.name_start > 5 && !memcmp(s + h.name_start, "test_", 5))
				sym->flags |= MI_SYMF_TEST;
		}
	}
	caller = idx >= 0 ? idx : owner;

	expect_item = h.items;
	q = ll->first;
	while (q < ll->end) {
		lex(s, ll->end, &q, &t);
		if (t.kind == T_EOF)
			break;
		if (t.kind == T_NL) {
			line++;
			continue;
		}
		if (t.kind == T_COMMENT || t.kind == T_BSLASH)
			continue;
		uint32_t tline = line;
		line += t.nl;
		if (h.items && depth == 0) {
			if (t.kind == T_COMMA) {
				if (in_item)
					add_item(sc, it_ns, it_ne, it_a, it_b, it_line, owner, ll, doc);
				in_item = false;
				expect_item = true;
			} else if (expect_item) {
				expect_item = false;
				if (t.kind == T_IDENT && !tok_in(s, &t, simple_keywords)) {
					in_item = true;
					it_a = it_ns = t.start;
					it_ne = t.end;
					it_line = tline;
				}
			}
		}
		switch (t.kind) {
		case T_OPEN:
			if (s[t.start] == '(' && prev.kind == T_IDENT && prev.end == t.start &&
			    prev.start != h.name_start && !(in_item && prev.start == it_ns) &&
			    !tok_in(s, &prev, simple_keywords))
				add_ref(sc, MI_REF_CALL, prev.start, prev.end, prev_line, NO_POS, caller);
			depth++;
			break;
		case T_CLOSE:
			if (depth > 0)
				depth--;
			break;
		case T_LT:
			if (h.kind && colon == NO_POS)
				angle++;
			break;
		case T_GT:
			if (h.kind && colon == NO_POS && angle > 0)
				angle--;
			break;
		case T_COLON:
			if (colon == NO_POS && depth == 0 && angle == 0 &&
			    (h.name_start == NO_POS || t.start > h.name_start)) {
				colon = t.start;
				colon_line = tline;
			}
			break;
		default:
			break;
		}
		if (in_item && !(t.kind == T_COMMA && depth == 0))
			it_b = t.end;
		prev = t;
		prev_line = tline;
		last = t;
		last_depth = depth;
	}
	if (in_item)
		add_item(sc, it_ns, it_ne, it_a, it_b, it_line, owner, ll, doc);

	bool opens = last.kind == T_COLON && last_depth == 0;
	if (h.field) {
		int32_t f = add_sym(sc, MI_KIND_FIELD,
				    h.mods & MOD_PUB ? MI_VIS_PUBLIC : MI_VIS_PRIVATE,
				    h.name_start, h.name_end, owner, ll, doc);
		if (f >= 0) {
			const char *sig = fold(sc, ll->first, ll->end);
			sc->out->syms[f].sig = sig;
			if (h.mods & MOD_STATIC)
				sc->out->syms[f].flags |= MI_SYMF_STATIC;
		}
		opens = false;
	} else if (h.kind) {
		bool is_fn = h.ctx == CTX_FN, one_line = colon != NO_POS && !opens;
		const char *sig = fold(sc, ll->first, colon != NO_POS ? colon : ll->end);
		if (idx >= 0) {
			mi_symbol *sym = &sc->out->syms[idx];
			sym->sig = sig;
			if (colon != NO_POS) {
				sym->body_byte = (uint32_t)colon;
				sym->body_line = colon_line;
			}
		}
		if (h.trait_start != NO_POS)
			add_ref(sc, MI_REF_IMPL, h.trait_start, h.trait_end, ll->line, ll->start,
				caller);
		if (colon == NO_POS && h.ctx != CTX_POINTCUT && !ll->unclosed &&
		    !(is_fn && (ctx == CTX_TRAIT || (h.mods & MOD_EXTERN))))
			diag(sc, ll->line, 'E',
			     "missing ':' after the '%.*s %.*s' header; add ':' to open its body",
			     quote_len(s, h.kw_start, h.kw_end), s + h.kw_start,
			     quote_len(s, h.name_start, h.name_end), s + h.name_start);
		if (!one_line) {
			push_blk(sc, ll->col, idx, owner, h.ctx, ll);
			sc->blks[sc->nblk - 1].kw_start = h.kw_start;
			sc->blks[sc->nblk - 1].kw_end = h.kw_end;
		}
		return;
	}
	if (h.imp_start != NO_POS)
		add_ref(sc, MI_REF_IMPORT, h.imp_start, h.imp_end, ll->line, ll->start, owner);
	if (opens) {
		push_blk(sc, ll->col, -1, owner, CTX_OTHER, ll);
	} else if (h.control && colon == NO_POS) {
		push_blk(sc, ll->col, -1, owner, CTX_OTHER, ll);
		sc->blks[sc->nblk - 1].want_colon = true;
		sc->blks[sc->nblk - 1].kw_start = h.kw_start;
		sc->blks[sc->nblk - 1].kw_end = h.kw_end;
	}
}

/* A comment-only line: extends the doc run and the blocks it is inside. */
static void handle_comment(scan *sc, const lline *ll)
{
	size_t i = sc->nblk;

	if (ll->line == 1 && ll->end - ll->first > 1 && sc->s[ll->first + 1] == '!') {
		sc->run_count = 0;
		return;
	}
	if (sc->run_count && sc->run_next == ll->line && sc->run_col == ll->col) {
		sc->run_count++;
	} else {
		sc->run_start = ll->start;
		sc->run_count = 1;
		sc->run_col = ll->col;
	}
	sc->run_next = ll->line + 1;
	/* Header columns grow strictly up the stack: find the innermost block
	 * whose header is left of the comment. */
	size_t lo = 0, hi = i;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (sc->blks[mid].hdr_col < (int64_t)ll->col)
			lo = mid;
		else
			hi = mid;
	}
	assert(sc->blks[lo].hdr_col < (int64_t)ll->col);
	if (lo > 0) {
		sc->blks[lo].last_line = ll->line;
		sc->blks[lo].last_end = ll->end;
	}
}

/* Orders the diagnostics from index d0 on by line, keeping ties in order. */
static void sort_diags(mi_parsed *out, size_t d0)
{
	for (size_t i = d0 + 1; i < out->ndiags; i++) {
		mi_diag d = out->diags[i];
		size_t j = i;
		while (j > d0 && out->diags[j - 1].line > d.line) {
			out->diags[j] = out->diags[j - 1];
			j--;
		}
		out->diags[j] = d;
	}
}

/* ---- entry point ------------------------------------------------------------- */

/* Scans src[0..len) into out; the work of mi_simple_scan. */
static void scan_all(const char *src, size_t len, mi_parsed *out)
{
	scan sc;
	size_t pos = 0, d0;
	lline ll;

	memset(&sc, 0, sizeof(sc));
	sc.s = src;
	sc.len = len;
	sc.out = out;
	sc.line = 1;
	sc.mix_diag = -1;
	d0 = out->ndiags;
	push_blk(&sc, -1, -1, -1, CTX_TOP, NULL);
	sc.blks[0].body_col = 0;
	if (len >= 3 && !memcmp(src, "\xEF\xBB\xBF", 3))
		pos = 3;
	while (pos < len) {
		read_line(&sc, pos, &ll);
		if (ll.type == L_BLANK)
			sc.run_count = 0;
		else if (ll.type == L_COMMENT)
			handle_comment(&sc, &ll);
		else
			handle_code(&sc, &ll);
		assert(ll.next > pos);
		pos = ll.next;
	}
	while (sc.nblk > 1)
		pop_blk(&sc);
	if (sc.mix_diag >= 0 && sc.mix_more) {
		mi_buf_reset(&sc.tmp);
		mi_buf_addf(&sc.tmp, "indentation mixes tabs and spaces (and on %u more line%s); use one of them",
			    sc.mix_more, sc.mix_more == 1 ? "" : "s");
		out->diags[sc.mix_diag].msg = mi_parsed_strndup(out, sc.tmp.buf, sc.tmp.len);
	}
	sort_diags(out, d0);
	free(sc.blks);
	mi_buf_release(&sc.tmp);
}

/*
 * Scans Simple source src[0..len) into out (mi_parsed_init'ed by the
 * caller): symbols in source order, call/impl/import references and
 * diagnostics.  Any bytes are accepted; syntax errors become diagnostics.
 * Returns 0, MI_ERR_ARG when out is NULL (or src is NULL with len > 0), or
 * MI_ERR_TOOBIG when len does not fit the 32-bit offsets of mi_symbol.
 */
int mi_simple_scan(const char *src, size_t len, mi_parsed *out)
{
	int err = 0;

	if (!out || (!src && len)) {
		err = MI_ERR_ARG;
	} else {
		out->lang = MI_LANG_SIMPLE;
		if (len >= UINT32_MAX)
			err = MI_ERR_TOOBIG;
		else
			scan_all(src ? src : "", len, out);
	}
	return err;
}

const mi_lang_row mi_lang_simple = {
	.id = MI_LANG_SIMPLE,
	.name = "simple",
	.exts = " .spl ",
	.scan = mi_simple_scan,
};
