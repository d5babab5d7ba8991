/*
 * view.c - folded views of one parsed file (outline, compact, full) and the
 * expanded view of one symbol, in the block-mark format of SPEC §2.  Pure
 * functions over source text + mi_parsed; docs/views.md states the rules.
 */
#include "format.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- answers ---------------------------------------------------------------------- */

void mi_out_release(mi_out *o)
{
	mi_buf_release(&o->text);
	mi_buf_release(&o->json);
	o->is_error = false;
}

void mi_out_reset(mi_out *o)
{
	mi_buf_reset(&o->text);
	mi_buf_reset(&o->json);
	o->is_error = false;
}

int mi_out_error(mi_out *o, int err, const char *fmt, ...)
{
	va_list ap;
	mi_out_reset(o);
	va_start(ap, fmt);
	mi_buf_vaddf(&o->text, fmt, ap);
	va_end(ap);
	mi_buf_adds(&o->json, "{\"error\":");
	mi_buf_add_json_str(&o->json, o->text.buf, o->text.len);
	mi_buf_addc(&o->json, '}');
	o->is_error = true;
	return err;
}


enum { VM_OUTLINE, VM_COMPACT, VM_FULL };

/* One row per kind: how a symbol of that kind shows in a folded view. */
typedef struct kind_row {
	const char *mark;     /* collapsed mark, NULL = no line of its own */
	const char *exp;      /* expanded mark, ASCII */
	const char *exp_u;    /* expanded mark, unicode */
	const char *word;     /* block guide word: "V* end fn NAME" */
	bool container;       /* may hold member lines (class-like) */
	bool member;          /* summarised in its parent's member list */
} kind_row;

static const kind_row kind_rows[MI_KIND__COUNT] = {
	[MI_KIND_FUNCTION]   = { "F>", "F_", "F\xe2\x96\xbc", "fn", false, false },
	[MI_KIND_METHOD]     = { "F>", "F_", "F\xe2\x96\xbc", "fn", false, false },
	[MI_KIND_CLASS]      = { "C>", "C_", "C\xe2\x96\xbc", "class", true, false },
	[MI_KIND_STRUCT]     = { "S>", "S_", "S\xe2\x96\xbc", "struct", true, false },
	[MI_KIND_UNION]      = { "S>", "S_", "S\xe2\x96\xbc", "union", true, false },
	[MI_KIND_ENUM]       = { "E>", "E_", "E\xe2\x96\xbc", "enum", true, false },
	[MI_KIND_TRAIT]      = { "T>", "T_", "T\xe2\x96\xbc", "trait", true, false },
	[MI_KIND_POINTCUT]   = { "P>", "P_", "P\xe2\x96\xbc", "pointcut", false, false },
	[MI_KIND_MODULE]     = { "M>", "M_", "M\xe2\x96\xbc", "module", true, false },
	[MI_KIND_HEADING]    = { "", "", "", "section", true, false },
	[MI_KIND_FIELD]      = { NULL, NULL, NULL, NULL, false, true },
	[MI_KIND_VARIABLE]   = { NULL, NULL, NULL, NULL, false, true },
	[MI_KIND_CONSTANT]   = { NULL, NULL, NULL, NULL, false, true },
	[MI_KIND_MACRO]      = { NULL, NULL, NULL, NULL, false, true },
	[MI_KIND_TYPEDEF]    = { NULL, NULL, NULL, NULL, false, true },
	[MI_KIND_ENUMERATOR] = { NULL, NULL, NULL, NULL, false, true },
	[MI_KIND_PROTOTYPE]  = { NULL, NULL, NULL, NULL, false, true },
};

/* Top-level kinds without a mark: one "V* <label>: a, b" line per file. */
static const struct { int kind; const char *label; } file_groups[] = {
	{ MI_KIND_CONSTANT, "consts" },
	{ MI_KIND_VARIABLE, "vars" },
	{ MI_KIND_TYPEDEF, "types" },
	{ MI_KIND_MACRO, "macros" },
	{ MI_KIND_PROTOTYPE, "decls" },
	{ MI_KIND_FIELD, "fields" },
	{ MI_KIND_ENUMERATOR, "enumerators" },
};

#define LIST_CAP_OUTLINE 12   /* names per V* list / inline member list */
#define LIST_CAP_COMPACT 3
#define GROUP_CAP_OUTLINE 16  /* names per file-level V* group line */
#define GROUP_CAP_COMPACT 4
#define DIAG_CAP 8            /* diagnostic lines per outline, then a summary */
#define GENERIC_MAX 20        /* a type parameter list longer than this is elided */
#define TRUNC_RESERVE 24      /* tokens kept for the truncation line */

/* Everything one rendering needs; arrays are indexed by symbol. */
typedef struct vctx {
	const char *path;        /* for messages and JSON */
	const char *src;         /* source text */
	size_t len;              /* its length */
	const mi_parsed *p;      /* the parsed file */
	const mi_view_opts *o;   /* options (never NULL inside) */
	int mode;                /* VM_* */
	uint32_t nlines;         /* lines in src */
	uint32_t *lstart;        /* nlines + 1 line start offsets */
	int lnw;                 /* digits of nlines (zpad width) */
	uint8_t *shown;          /* 1: the symbol is rendered (line or member) */
	uint8_t *depth;          /* nesting depth among rendered symbols */
	int32_t *par;            /* parent as rendered: the source parent, or a Go
				    method's receiver type; -1 = top level */
	uint8_t *ek;             /* kind as rendered: a C++ prototype inside a class
				    is a method declaration */
	uint8_t *adopted;        /* 1: par is a Go receiver type, not the source parent */
	int32_t *kid;            /* first child of each symbol (by par), -1 = none */
	int32_t *sib;            /* next sibling, -1 = last */
	int32_t *order;          /* symbols in tree order: each parent before its children */
	uint32_t *impl;          /* indices of MI_REF_IMPL refs */
	size_t nimpl;            /* how many */
	bool header;             /* a C/C++ header: static inline is its API */
	int32_t *dstart;         /* first index into dord of the symbol's diags */
	struct dref { int32_t owner; uint32_t line; uint32_t idx; } *dord;
	int32_t *cov;            /* per line: lcov hits, -1 = no data; NULL = off */
	const char *ell;         /* "..." or "…" */
	const char *vmark;       /* "V*" or "V•" */
	mi_buf *out;             /* text being written */
	size_t tokens;           /* tokens written so far */
	size_t cap;              /* token cap */
	size_t entries;          /* symbol entries written */
	size_t diags_out;        /* diagnostic lines written */
	size_t diags_left[3];    /* E, W, H not written for the cap */
	bool cut;                /* the cap cut the view short */
} vctx;

static const kind_row *krow(int kind)
{
	static const kind_row none = { NULL, NULL, NULL, NULL, false, false };
	if (kind <= MI_KIND_NONE || kind >= MI_KIND__COUNT)
		return &none;
	return &kind_rows[kind];
}

static bool is_block(int kind)
{
	return krow(kind)->mark != NULL;
}

static bool is_fn(int kind)
{
	return kind == MI_KIND_FUNCTION || kind == MI_KIND_METHOD;
}

static const char *mode_name(int mode)
{
	return mode == VM_COMPACT ? "compact" : mode == VM_FULL ? "full" : "outline";
}

/* Simple: traits, enums and pointcuts are public whatever they say. */
static bool sym_public(const vctx *c, const mi_symbol *s)
{
	if (c->p->lang == MI_LANG_SIMPLE &&
	    (s->kind == MI_KIND_TRAIT || s->kind == MI_KIND_ENUM ||
	     s->kind == MI_KIND_POINTCUT))
		return true;
	if (c->p->lang == MI_LANG_MARKDOWN)
		return true;
	if (c->header && is_fn(s->kind))
		return true;
	return s->vis == MI_VIS_PUBLIC;
}

static const char *str0(const char *s)
{
	return s ? s : "";
}

/* A plain name (not "struct {" or empty). */
static bool is_ident(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (*s == ' ' || *s == '{' || *s == '(' || *s == '\n')
			return false;
	return true;
}

/* A nested struct/union without a name: its members belong to the parent. */
static bool anon_type(const mi_symbol *s)
{
	return (s->kind == MI_KIND_STRUCT || s->kind == MI_KIND_UNION) && !is_ident(s->name);
}

/* ---- token estimate ----------------------------------------------------- */

/* Byte classes for the estimate: space, newline, letter, digit, high
 * (3/4-byte lead), punctuation (0). */
enum { TK_P, TK_S, TK_N, TK_L, TK_D, TK_H };
static const uint8_t tk_class[256] = {
	[' '] = TK_S, ['\t'] = TK_S, ['\f'] = TK_S, ['\v'] = TK_S,
	['\n'] = TK_N, ['\r'] = TK_N,
	['a' ... 'z'] = TK_L, ['A' ... 'Z'] = TK_L, [0x80 ... 0xdf] = TK_L,
	['0' ... '9'] = TK_D, [0xe0 ... 0xff] = TK_H,
};

static bool tk_space(unsigned char c)
{
	return tk_class[c] == TK_S || tk_class[c] == TK_N;
}

/* Tokens of one letter run of n characters (BPE merges common words). */
static size_t tk_word(size_t n)
{
	return n <= 8 ? 1 : 1 + (n - 8 + 4) / 5;
}

/*
 * Mirrors the o200k pre-tokenizer: word runs (split at lower->upper case
 * changes, one leading non-letter glued on), digit runs in threes,
 * punctuation runs, whitespace runs (one space before a word is free).
 * Each pre-token then costs about what BPE makes of it.
 */
size_t mi_token_estimate(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = 0, i = 0;

	while (i < len) {
		int cl = tk_class[u[i]];
		if (cl == TK_S || cl == TK_N) {
			size_t j = i, tail = 0;
			bool nl = false;
			for (; j < len; j++) {
				int k = tk_class[u[j]];
				if (k == TK_N) {
					nl = true;
					tail = 0;
				} else if (k == TK_S) {
					tail++;
				} else {
					break;
				}
			}
			bool glue = j < len; /* the last space joins the next token */
			if (nl)
				n++;
			else
				tail = j - i;
			if (glue && tail > 0)
				tail--;
			if (tail > 0)
				n += 1 + tail / 16;
			i = j;
		} else if (cl == TK_L) {
			size_t j = i, letters = 0;
			bool lower = false;
			for (; j < len && tk_class[u[j]] == TK_L; j++) {
				unsigned char ch = u[j];
				if (ch >= 'A' && ch <= 'Z') {
					if (lower)
						break;
				} else {
					lower = true;
				}
				letters += (ch & 0xc0) != 0x80;
			}
			n += tk_word(letters);
			i = j;
		} else if (cl == TK_D) {
			size_t j = i;
			while (j < len && tk_class[u[j]] == TK_D)
				j++;
			n += (j - i + 2) / 3;
			i = j;
		} else if (cl == TK_H) {
			/* 3- and 4-byte characters: symbols, CJK: about one each */
			i++;
			while (i < len && (u[i] & 0xc0) == 0x80)
				i++;
			n++;
		} else {
			size_t j = i;
			while (j < len && tk_class[u[j]] == TK_P)
				j++;
			size_t q = j - i;
			if (j < len && tk_class[u[j]] == TK_L)
				q--; /* the last one leads the word that follows */
			if (q > 0)
				n += (q + 2) / 3;
			i = j;
		}
	}
	return n;
}

/* The estimate of a large text from evenly spaced windows, scaled: used
 * for the savings figure, where a few percent do not matter. */
static size_t estimate_sampled(const char *s, size_t len)
{
	enum { WIN = 2048, NWIN = 8 };
	if (len <= (size_t)WIN * NWIN * 2)
		return mi_token_estimate(s, len);
	size_t got = 0, bytes = 0;
	for (size_t w = 0; w < NWIN; w++) {
		size_t a = len / NWIN * w;
		const char *nl = memchr(s + a, '\n', len - a);
		if (!nl)
			break;
		a = (size_t)(nl - s) + 1;
		size_t b = a + WIN < len ? a + WIN : len;
		const char *e = memrchr(s + a, '\n', b - a);
		if (e)
			b = (size_t)(e - s) + 1;
		got += mi_token_estimate(s + a, b - a);
		bytes += b - a;
	}
	return bytes ? (size_t)((double)got * (double)len / (double)bytes) : mi_token_estimate(s, len);
}

/* ---- source lines ---------------------------------------------------------- */

static int lines_index(vctx *c)
{
	/* One pass: line starts into a growing array. */
	size_t cap = c->len / 32 + 16, n = 0;
	const char *p = c->src, *end = c->src + c->len;
	c->lstart = mi_xmalloc(cap * sizeof(uint32_t));
	if (c->len)
		c->lstart[n++] = 0;
	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		p++;
		if (p == end)
			break;
		if (n + 2 > cap) {
			cap *= 2;
			c->lstart = mi_xrealloc(c->lstart, cap * sizeof(uint32_t));
		}
		c->lstart[n++] = (uint32_t)(p - c->src);
	}
	if (n + 2 > cap)
		c->lstart = mi_xrealloc(c->lstart, (n + 2) * sizeof(uint32_t));
	c->nlines = (uint32_t)n;
	c->lstart[n] = (uint32_t)c->len;
	c->lnw = 1;
	for (uint32_t v = (uint32_t)n; v >= 10; v /= 10)
		c->lnw++;
	return 0;
}

/* Text of line ln (1-based) without its newline. */
static const char *line_at(const vctx *c, uint32_t ln, size_t *n)
{
	if (ln < 1 || ln > c->nlines) {
		*n = 0;
		return "";
	}
	size_t a = c->lstart[ln - 1], b = c->lstart[ln];
	while (b > a && (c->src[b - 1] == '\n' || c->src[b - 1] == '\r'))
		b--;
	*n = b - a;
	return c->src + a;
}

static bool line_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!tk_space((unsigned char)s[i]))
			return false;
	return true;
}

static size_t indent_of(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

/* ---- output ---------------------------------------------------------------- */

/* Line-number prefix: "12 " (plain), "012 " (zpad), blanks for virtual lines. */
static void put_lineno(vctx *c, uint32_t ln)
{
	if (c->o->line_numbers == 1) {
		if (ln)
			mi_buf_addf(c->out, "%u ", ln);
	} else if (c->o->line_numbers == 2) {
		if (ln)
			mi_buf_addf(c->out, "%0*u ", c->lnw, ln);
		else
			mi_buf_addf(c->out, "%*s ", c->lnw, "");
	}
}

static void put_indent(vctx *c, int depth)
{
	for (int i = 0; i < depth; i++)
		mi_buf_add(c->out, "  ", 2);
}

/* Starts a virtual line at depth: "V* " + indent. */
static void vline(vctx *c, int depth)
{
	put_lineno(c, 0);
	mi_buf_adds(c->out, c->vmark);
	mi_buf_addc(c->out, ' ');
	put_indent(c, depth);
}

static void put_body(vctx *c)
{
	mi_buf_addf(c->out, " { %s }", c->ell);
}

/*
 * Writes sig with a long generic parameter list elided: the first '<...>'
 * glued to a name before any '(' becomes "<T, ...>" when it holds more than
 * one parameter or is longer than GENERIC_MAX.
 */
static void put_sig(vctx *c, const char *sig, size_t n, bool elide)
{
	size_t lt = n, gt = 0;
	while (n > 0 && (sig[n - 1] == ' ' || sig[n - 1] == '{' || (sig[n - 1] == ';' && elide) ||
			 (sig[n - 1] == ':' && (c->p->lang == MI_LANG_PYTHON ||
						c->p->lang == MI_LANG_SIMPLE))))
		n--;
	if (elide && c->p->lang != MI_LANG_C && c->p->lang != MI_LANG_MARKDOWN &&
	    c->p->lang != MI_LANG_BASH) {
		for (size_t i = 1; i < n; i++) {
			if (sig[i] == '(' || sig[i] == '{' || sig[i] == '=')
				break;
			if (sig[i] == '<' && (isalnum((unsigned char)sig[i - 1]) ||
					      sig[i - 1] == '_') &&
			    !(i >= 8 && !memcmp(sig + i - 8, "operator", 8))) {
				lt = i;
				break;
			}
		}
		if (lt < n) {
			int d = 0;
			for (size_t i = lt; i < n; i++) {
				if (sig[i] == '<')
					d++;
				else if (sig[i] == '>' && sig[i - 1] != '-' && --d == 0) {
					gt = i;
					break;
				} else if (sig[i] == '(' || sig[i] == ';' || sig[i] == '{')
					break;
			}
		}
	}
	if (gt == 0) {
		mi_buf_add(c->out, sig, n);
		return;
	}
	size_t first = 0, commas = 0;
	int d = 0;
	for (size_t i = lt + 1; i < gt; i++) {
		if (sig[i] == '<' || sig[i] == '(' || sig[i] == '[')
			d++;
		else if ((sig[i] == '>' && sig[i - 1] != '-') || sig[i] == ')' || sig[i] == ']')
			d--;
		else if (sig[i] == ',' && d == 0 && commas++ == 0)
			first = i;
	}
	size_t inner = gt - lt - 1;
	if (commas == 0 && inner <= GENERIC_MAX) {
		mi_buf_add(c->out, sig, n);
		return;
	}
	mi_buf_add(c->out, sig, lt + 1);
	size_t flen = commas ? first - lt - 1 : inner;
	if (flen <= GENERIC_MAX) {
		mi_buf_add(c->out, sig + lt + 1, flen);
		mi_buf_addf(c->out, ", %s", c->ell);
	} else {
		mi_buf_adds(c->out, c->ell);
	}
	mi_buf_add(c->out, sig + gt, n - gt);
}

/* The code of a symbol's line: its signature, or its name without one. */
/* End of a bracketed run from s (at an opening '(' '[' or '{'), skipping
 * strings; NULL when it does not close. */
static const char *skip_group(const char *s)
{
	int d = 0;
	for (; *s; s++) {
		if (*s == '"' || *s == '\'') {
			char q = *s;
			for (s++; *s && *s != q; s++)
				if (*s == '\\' && s[1])
					s++;
			if (!*s)
				return NULL;
		} else if (*s == '(' || *s == '[' || *s == '{') {
			d++;
		} else if ((*s == ')' || *s == ']' || *s == '}') && --d == 0) {
			return s + 1;
		}
	}
	return NULL;
}

/* Python decorators that change how a function is called: kept, without
 * their arguments. */
static const char *const kept_decorators[] = {
	"staticmethod", "classmethod", "property", "abstractmethod", "dataclass",
};

/*
 * Writes the kept annotations of sig and returns where the rest starts:
 * leading annotations, attributes and decorators (`@Override`, `[Obsolete]`,
 * `#[derive(Debug)]`, `@app.route("/")`) are dropped from outline lines;
 * expand_at what=signature shows them.
 */
static const char *put_annotations(vctx *c, const char *sig)
{
	int lang = c->p->lang;
	bool at = lang == MI_LANG_PYTHON || lang == MI_LANG_JAVA || lang == MI_LANG_KOTLIN ||
		  lang == MI_LANG_SWIFT || lang == MI_LANG_TYPESCRIPT || lang == MI_LANG_TSX ||
		  lang == MI_LANG_JAVASCRIPT;
	bool hash = lang == MI_LANG_RUST || lang == MI_LANG_PHP;
	bool bracket = lang == MI_LANG_CSHARP;
	const char *q = sig;
	for (;;) {
		const char *e = NULL;
		if (at && q[0] == '@' && (isalpha((unsigned char)q[1]) || q[1] == '_')) {
			const char *w = q + 1;
			while (isalnum((unsigned char)*w) || *w == '_' || *w == '.' || *w == ':')
				w++;
			if (w - q == 10 && !memcmp(q, "@interface", 10))
				break; /* Java annotation type: a keyword, not an annotation */
			e = *w == '(' ? skip_group(w) : w;
			if (e && lang == MI_LANG_PYTHON) {
				for (size_t k = 0; k < sizeof(kept_decorators) / sizeof(*kept_decorators); k++) {
					size_t kl = strlen(kept_decorators[k]);
					if ((size_t)(w - q - 1) == kl && !memcmp(q + 1, kept_decorators[k], kl)) {
						mi_buf_add(c->out, q, kl + 1);
						mi_buf_addc(c->out, ' ');
					}
				}
			}
		} else if ((hash && q[0] == '#' && q[1] == '[') || (bracket && q[0] == '[')) {
			e = skip_group(q + (q[0] == '#'));
		}
		if (!e || (*e != ' ' && *e != '\0'))
			break;
		while (*e == ' ')
			e++;
		if (!*e)
			break;
		q = e;
	}
	return q;
}

/* The code of a symbol's line: its signature, or its name without one.
 * Outline lines (elide) drop annotations and long generic lists. */
static void put_code(vctx *c, const mi_symbol *s, bool elide)
{
	const char *sig = str0(s->sig);
	if (!*sig)
		sig = str0(s->name);
	if (elide)
		sig = put_annotations(c, sig);
	put_sig(c, sig, strlen(sig), elide);
}

/* A list of distinct names, in first-seen order. */
typedef struct namelist {
	const char **v;  /* names (borrowed) */
	size_t n, capv;  /* used, allocated */
	int32_t *set;    /* open-addressing index into v, -1 = empty */
	size_t nset;     /* slots (a power of two) */
} namelist;

static void nl_rehash(namelist *l)
{
	free(l->set);
	l->nset = l->nset ? l->nset * 2 : 64;
	l->set = mi_xmalloc(l->nset * sizeof(*l->set));
	memset(l->set, 0xff, l->nset * sizeof(*l->set));
	for (size_t i = 0; i < l->n; i++) {
		size_t h = mi_hash64(l->v[i], strlen(l->v[i])) & (l->nset - 1);
		while (l->set[h] >= 0)
			h = (h + 1) & (l->nset - 1);
		l->set[h] = (int32_t)i;
	}
}

static void nl_add(namelist *l, const char *name)
{
	if (!name || !*name)
		return;
	if ((l->n + 1) * 2 > l->nset)
		nl_rehash(l);
	size_t h = mi_hash64(name, strlen(name)) & (l->nset - 1);
	for (; l->set[h] >= 0; h = (h + 1) & (l->nset - 1))
		if (!strcmp(l->v[l->set[h]], name))
			return;
	if (l->n == l->capv) {
		l->capv = l->capv ? l->capv * 2 : 16;
		l->v = mi_xrealloc(l->v, l->capv * sizeof(*l->v));
	}
	l->set[h] = (int32_t)l->n;
	l->v[l->n++] = name;
}

static void nl_free(namelist *l)
{
	free(l->v);
	free(l->set);
}

/* Appends "a, b, c" (at most cap, then ", +N more"). */
static void nl_put(vctx *c, const namelist *l, size_t cap)
{
	if (l->n == cap + 1)
		cap++; /* "+1 more" costs as much as the name */
	for (size_t i = 0; i < l->n && i < cap; i++) {
		if (i)
			mi_buf_add(c->out, ", ", 2);
		mi_buf_adds(c->out, l->v[i]);
	}
	if (l->n > cap)
		mi_buf_addf(c->out, ", +%zu more", l->n - cap);
}

/* ---- symbol relations -------------------------------------------------------- */

/* The kind a symbol renders as (see vctx.ek). */
static int ekind(const vctx *c, size_t i)
{
	return c->ek[i];
}

/* A Rust `impl Trait for Type` block: its members are the trait's, so it
 * folds to one line naming them. */
static bool trait_impl(const vctx *c, const mi_symbol *s)
{
	if (c->p->lang != MI_LANG_RUST || s->kind != MI_KIND_MODULE)
		return false;
	const char *sig = str0(s->sig);
	return !strncmp(sig, "impl", 4) && strstr(sig, " for ") != NULL;
}

/* A member written in its parent's header (a record component, a Kotlin
 * constructor `val`): the signature already shows it. */
static bool in_header(const mi_symbol *par, const mi_symbol *m)
{
	uint32_t end = par->body_byte ? par->body_byte : par->end_byte;
	return m->start_byte > par->start_byte && m->start_byte < end &&
	       m->start_line == par->start_line;
}

enum {
	CM_OPENS = 1,  /* the parent lists its block children: nested types have lines */
	CM_FNS = 2,    /* functions are named too, not only counted */
};

/* Names of the members of container i: mark-less children, looking through
 * anonymous nested types; *methods counts its functions. */
static void collect_members(const vctx *c, size_t i, namelist *l, size_t *methods, int how)
{
	const mi_parsed *p = c->p;
	for (int32_t j = c->kid[i]; j >= 0; j = c->sib[j]) {
		const mi_symbol *s = &p->syms[j];
		int k = ekind(c, (size_t)j);
		if (!c->shown[j] || (!c->adopted[j] && in_header(&p->syms[i], s)))
			continue;
		if (krow(k)->member || k == MI_KIND_STRUCT || k == MI_KIND_UNION) {
			if (!is_ident(s->name))
				collect_members(c, (size_t)j, l, methods, how & ~CM_OPENS);
			else if (krow(k)->member || !(how & CM_OPENS))
				nl_add(l, s->name);
		} else if (is_fn(k)) {
			if (how & CM_FNS)
				nl_add(l, s->name);
			else if (methods)
				(*methods)++;
		}
	}
}

/* True when container i has rendered children that get lines of their own.
 * A trait folds whole: its members are requirements, shown by expand_at;
 * so does a trait impl. */
static bool has_block_children(const vctx *c, size_t i)
{
	const mi_parsed *p = c->p;
	if (p->syms[i].kind == MI_KIND_TRAIT || trait_impl(c, &p->syms[i]))
		return false;
	for (int32_t j = c->kid[i]; j >= 0; j = c->sib[j]) {
		const mi_symbol *s = &p->syms[j];
		if (c->shown[j] && is_block(ekind(c, (size_t)j)) && !anon_type(s))
			return true;
	}
	return false;
}

/* A namespace without braces (C# `namespace A;`, PHP `namespace A;`): what
 * follows it is not indented under it. */
static bool flat_module(const mi_symbol *s)
{
	return s->kind == MI_KIND_MODULE && !s->body_byte;
}

/* Decides which symbols are rendered and how deep.  A Go method joins its
 * receiver's type when that type is rendered, else it stands alone. */
static void mark_shown(vctx *c)
{
	const mi_parsed *p = c->p;
	for (size_t i = 0; i < p->nsyms; i++) {
		const mi_symbol *s = &p->syms[i];
		bool ok = s->kind > MI_KIND_NONE && s->kind < MI_KIND__COUNT &&
			  (c->o->all || sym_public(c, s));
		int d = 0;
		int32_t pi = s->parent_idx;
		if (ok && pi >= 0 && (size_t)pi < i) {
			const mi_symbol *par = &p->syms[pi];
			ok = c->shown[pi] && krow(par->kind)->container;
			d = c->depth[pi] + 1;
			if (par->kind == MI_KIND_HEADING)
				d = 0;
			else if (flat_module(par))
				d = c->depth[pi];
		}
		c->shown[i] = ok;
		c->depth[i] = (uint8_t)(d > 40 ? 40 : d);
	}
	for (size_t i = 0; i < p->nsyms; i++) {
		int32_t t = c->par[i];
		if (!c->adopted[i])
			continue;
		if (c->shown[t]) {
			c->depth[i] = (uint8_t)(c->depth[t] + 1 > 40 ? 40 : c->depth[t] + 1);
		} else {
			c->adopted[i] = 0;
			c->par[i] = -1;
		}
	}
}
static int dref_cmp(const void *a, const void *b)
{
	const struct dref *x = a, *y = b;
	if (x->owner != y->owner)
		return x->owner < y->owner ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Gives each diagnostic to the innermost rendered block spanning its line
 * (-1: the file), sorted by owner then line. */
static void assign_diags(vctx *c)
{
	const mi_parsed *p = c->p;
	c->dord = mi_xmalloc((p->ndiags + 1) * sizeof(*c->dord));
	for (size_t k = 0; k < p->ndiags; k++) {
		c->dord[k].owner = 0;
		c->dord[k].line = p->diags[k].line;
		c->dord[k].idx = (uint32_t)k;
	}
	qsort(c->dord, p->ndiags, sizeof(*c->dord), dref_cmp);
	/* sweep: open blocks on a stack, diagnostics in line order */
	int32_t *open = mi_xmalloc((p->nsyms + 1) * sizeof(int32_t));
	int top = 0;
	size_t i = 0;
	for (size_t k = 0; k < p->ndiags; k++) {
		uint32_t ln = c->dord[k].line;
		for (; i < p->nsyms && p->syms[i].start_line <= ln; i++) {
			const mi_symbol *s = &p->syms[i];
			if (!c->shown[i] || !is_block(s->kind))
				continue;
			while (top > 0 && p->syms[open[top - 1]].end_line < s->start_line)
				top--;
			open[top++] = (int32_t)i;
		}
		while (top > 0 && p->syms[open[top - 1]].end_line < ln)
			top--;
		c->dord[k].owner = ln && top > 0 ? open[top - 1] : -1;
	}
	free(open);
	qsort(c->dord, p->ndiags, sizeof(*c->dord), dref_cmp);
	for (size_t i = 0; i < p->nsyms; i++)
		c->dstart[i] = -1;
	for (size_t k = p->ndiags; k-- > 0;)
		if (c->dord[k].owner >= 0)
			c->dstart[c->dord[k].owner] = (int32_t)k;
}

static void put_diag(vctx *c, const mi_diag *dg, int depth)
{
	char sev = dg->severity == 'W' || dg->severity == 'H' ? dg->severity : 'E';
	if (c->mode == VM_OUTLINE && c->diags_out >= DIAG_CAP) {
		c->diags_left[sev == 'E' ? 0 : sev == 'W' ? 1 : 2]++;
		return;
	}
	c->diags_out++;
	vline(c, depth);
	if (sev == 'H' || !dg->line)
		mi_buf_addf(c->out, "[%c] ", sev);
	else
		mi_buf_addf(c->out, "[%c]:%u ", sev, dg->line);
	const char *m = str0(dg->msg);
	size_t n = strcspn(m, "\n");
	mi_buf_add(c->out, m, n);
	mi_buf_addc(c->out, '\n');
}

static void put_sym_diags(vctx *c, size_t i, int depth)
{
	if (c->dstart[i] < 0)
		return;
	for (size_t k = (size_t)c->dstart[i];
	     k < c->p->ndiags && c->dord[k].owner == (int32_t)i; k++)
		put_diag(c, &c->p->diags[c->dord[k].idx], depth);
}

/* ---- coverage (lcov) ------------------------------------------------------------- */

static bool path_suffix(const char *sf, size_t n, const char *path)
{
	size_t pl = strlen(path);
	if (pl == 0 || pl > n)
		return false;
	if (memcmp(sf + n - pl, path, pl))
		return false;
	return pl == n || sf[n - pl - 1] == '/';
}

/* Loads DA records of the lcov file for c->path; silently off on failure. */
static void load_coverage(vctx *c)
{
	char *data = NULL;
	size_t n = 0;
	if (!c->o->coverage || !c->o->lcov_path || !c->path ||
	    mi_read_file(c->o->lcov_path, &data, &n) != 0)
		return;
	int32_t *cov = mi_xmalloc(((size_t)c->nlines + 1) * sizeof(int32_t));
	for (size_t i = 0; i <= c->nlines; i++)
		cov[i] = -1;
	bool match = false, any = false;
	const char *path = c->path;
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	for (size_t i = 0; i < n;) {
		size_t e = i;
		while (e < n && data[e] != '\n')
			e++;
		size_t ll = e - i;
		while (ll > 0 && data[i + ll - 1] == '\r')
			ll--;
		const char *l = data + i;
		if (ll >= 3 && !memcmp(l, "SF:", 3)) {
			match = path_suffix(l + 3, ll - 3, path);
		} else if (ll >= 14 && !memcmp(l, "end_of_record", 13)) {
			match = false;
		} else if (match && ll > 3 && !memcmp(l, "DA:", 3)) {
			unsigned long ln = strtoul(l + 3, NULL, 10);
			const char *comma = memchr(l, ',', ll);
			if (ln >= 1 && ln <= c->nlines && comma) {
				long hits = strtol(comma + 1, NULL, 10);
				if (hits < 0)
					hits = 0;
				if (cov[ln] < 0)
					cov[ln] = 0;
				cov[ln] += hits > 0;
				any = true;
			}
		} else if (ll == 13 && !memcmp(l, "end_of_record", 13)) {
			match = false;
		}
		i = e + 1;
	}
	free(data);
	if (any)
		c->cov = cov;
	else
		free(cov);
}

static void put_coverage(vctx *c, const mi_symbol *s, int depth)
{
	if (!c->cov)
		return;
	size_t total = 0, hit = 0;
	for (uint32_t l = s->start_line; l <= s->end_line && l <= c->nlines; l++) {
		if (c->cov[l] < 0)
			continue;
		total++;
		hit += c->cov[l] > 0;
	}
	if (!total)
		return;
	vline(c, depth);
	mi_buf_addf(c->out, "coverage: %zu%% (lines)\n", (hit * 100 + total / 2) / total);
}

/* ---- Simple auto traits ----------------------------------------------------------- */

/*
 * Simple derives Send and Sync for a class or struct whose fields allow it:
 * a field of type Rc or a raw pointer drops Send and Sync, Cell/RefCell drops
 * Sync.  Returns "Send, Sync", "Send", or NULL.
 */
static const char *auto_traits(const vctx *c, size_t i)
{
	bool send = true, sync = true;
	const mi_parsed *p = c->p;
	for (int32_t j = c->kid[i]; j >= 0; j = c->sib[j]) {
		const mi_symbol *f = &p->syms[j];
		if (f->kind != MI_KIND_FIELD)
			continue;
		const char *t = str0(f->sig);
		if (strstr(t, "Rc<") || strstr(t, "*")) {
			send = false;
			sync = false;
		}
		if (strstr(t, "Cell<"))
			sync = false;
	}
	return send && sync ? "Send, Sync" : send ? "Send" : sync ? "Sync" : NULL;
}

static bool auto_traits_apply(const vctx *c, const mi_symbol *s)
{
	return c->p->lang == MI_LANG_SIMPLE &&
	       (s->kind == MI_KIND_CLASS || s->kind == MI_KIND_STRUCT);
}

/* "V* auto traits: ..." for the file: one set when all classes agree,
 * else per class. */
static void put_file_auto_traits(vctx *c)
{
	const mi_parsed *p = c->p;
	const char *common = NULL;
	bool same = true;
	size_t n = 0;
	for (size_t i = 0; i < p->nsyms; i++) {
		if (!c->shown[i] || !auto_traits_apply(c, &p->syms[i]))
			continue;
		const char *t = auto_traits(c, i);
		if (n++ == 0)
			common = t;
		else if (common != t)
			same = false;
	}
	if (!n || (same && !common))
		return;
	vline(c, 0);
	mi_buf_adds(c->out, "auto traits: ");
	if (same) {
		mi_buf_adds(c->out, common);
	} else {
		bool first = true;
		for (size_t i = 0; i < p->nsyms; i++) {
			if (!c->shown[i] || !auto_traits_apply(c, &p->syms[i]))
				continue;
			const char *t = auto_traits(c, i);
			if (!t)
				continue;
			mi_buf_addf(c->out, "%s%s: %s", first ? "" : "; ",
				    str0(p->syms[i].name), t);
			first = false;
		}
	}
	mi_buf_addc(c->out, '\n');
}

/* "V* traits: A, B" from MI_REF_IMPL refs, leaving out names the sig shows. */
static void put_traits(vctx *c, size_t i, int depth)
{
	const mi_parsed *p = c->p;
	const char *sig = str0(p->syms[i].sig);
	namelist l = { 0 };
	for (size_t q = 0; q < c->nimpl; q++) {
		const mi_ref *r = &p->refs[c->impl[q]];
		if (r->caller_idx != (int32_t)i || !r->callee)
			continue;
		const char *hit = strstr(sig, r->callee);
		size_t cl = strlen(r->callee);
		if (hit && (hit == sig || !(isalnum((unsigned char)hit[-1]) || hit[-1] == '_')) &&
		    !(isalnum((unsigned char)hit[cl]) || hit[cl] == '_'))
			continue;
		nl_add(&l, r->callee);
	}
	if (l.n) {
		vline(c, depth);
		mi_buf_adds(c->out, "traits: ");
		nl_put(c, &l, LIST_CAP_OUTLINE);
		mi_buf_addc(c->out, '\n');
	}
	nl_free(&l);
}

/* ---- outline and compact ----------------------------------------------------------- */

/* Markdown: does the heading hold text of its own before its first
 * subheading?  *sub gets the level of that subheading, 0 without one.  A
 * setext heading's underline is not text. */
static bool heading_has_body(const vctx *c, size_t i, int *sub)
{
	const mi_parsed *p = c->p;
	const mi_symbol *s = &p->syms[i];
	uint32_t stop = s->end_line;
	*sub = 0;
	for (size_t j = i + 1; j < p->nsyms; j++) {
		if (p->syms[j].kind != MI_KIND_HEADING)
			continue;
		if (p->syms[j].start_line <= s->end_line) {
			stop = p->syms[j].start_line - 1;
			*sub = p->syms[j].level ? p->syms[j].level : 1;
		}
		break;
	}
	uint32_t from = s->start_line + 1;
	if (*str0(s->sig) != '#')
		from++;
	for (uint32_t l = from; l <= stop && l <= c->nlines; l++) {
		size_t n;
		const char *t = line_at(c, l, &n);
		if (!line_blank(t, n))
			return true;
	}
	return false;
}

/* Length of an ATX heading line without its optional closing sequence
 * ("## Title ##") and trailing blanks. */
static size_t atx_len(const char *t, size_t n)
{
	while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '\t'))
		n--;
	size_t e = n;
	while (e > 0 && t[e - 1] == '#')
		e--;
	if (e < n && e > 0 && (t[e - 1] == ' ' || t[e - 1] == '\t')) {
		while (e > 0 && (t[e - 1] == ' ' || t[e - 1] == '\t'))
			e--;
		n = e;
	}
	return n;
}

static void put_heading(vctx *c, size_t i)
{
	const mi_symbol *s = &c->p->syms[i];
	int sub;
	bool body = heading_has_body(c, i, &sub);
	if (c->mode == VM_COMPACT && s->level > 3)
		return;
	put_lineno(c, s->start_line);
	const char *sig = str0(s->sig);
	if (*sig == '#') {
		mi_buf_add(c->out, sig, atx_len(sig, strlen(sig)));
	} else {
		int lv = s->level ? s->level : 1;
		for (int k = 0; k < lv && k < 6; k++)
			mi_buf_addc(c->out, '#');
		mi_buf_addc(c->out, ' ');
		mi_buf_adds(c->out, *sig ? sig : str0(s->name));
	}
	/* compact hides levels 4 to 6: a heading that holds only those folds them */
	if (body || (c->mode == VM_COMPACT && sub > 3))
		put_body(c);
	mi_buf_addc(c->out, '\n');
}

/* Length of sig up to the end of the function's name ("pub fn login"),
 * or 0 when the name is not followed by its parameters or an '='
 * (`const handler = async () =>`, `square = lambda v: ...`). */
static size_t name_end(const char *sig, const char *name)
{
	size_t nl = strlen(name);
	if (!nl)
		return 0;
	for (const char *h = strstr(sig, name); h; h = strstr(h + 1, name)) {
		if (h > sig && (isalnum((unsigned char)h[-1]) || h[-1] == '_'))
			continue;
		const char *e = h + nl;
		while (*e == ' ')
			e++;
		if (*e == '(' || *e == '<' || *e == '[' ||
		    (*e == '=' && e[1] != '=' && e[1] != '>'))
			return (size_t)(h + nl - sig);
	}
	return 0;
}

/* One line "X> code"; compact mode keeps a function's header up to its name. */
static void put_sym_line(vctx *c, size_t i, int depth)
{
	const mi_symbol *s = &c->p->syms[i];
	int k = ekind(c, i);
	put_lineno(c, s->start_line);
	mi_buf_adds(c->out, krow(k)->mark);
	mi_buf_addc(c->out, ' ');
	put_indent(c, depth);
	if (c->mode != VM_COMPACT || !is_fn(k) || !*str0(s->sig)) {
		put_code(c, s, true);
		return;
	}
	const char *sig = put_annotations(c, s->sig);
	size_t cut = name_end(sig, str0(s->name));
	if (!cut) {
		put_sig(c, sig, strlen(sig), true);
		return;
	}
	if (c->p->lang == MI_LANG_C || c->p->lang == MI_LANG_CPP) {
		static const char *const drop[] = {
			"static ", "inline ", "extern ", "__always_inline ",
			"__init ", "__exit ", "noinline ", "__inline__ ",
		};
		for (size_t d = 0; d < sizeof(drop) / sizeof(drop[0]); d++) {
			size_t dl = strlen(drop[d]);
			if (cut > dl && !strncmp(sig, drop[d], dl)) {
				sig += dl;
				cut -= dl;
				d = (size_t)-1;
			}
		}
	}
	mi_buf_add(c->out, sig, cut);
}

/* Does symbol i have a body to fold?  A Ruby method, class or module always
 * has one (an empty `def x; end` too); a C# member may have only `=> expr`. */
static bool has_body(const vctx *c, size_t i)
{
	const mi_symbol *s = &c->p->syms[i];
	if (s->body_byte)
		return true;
	if (c->p->lang == MI_LANG_RUBY && is_block(ekind(c, i)))
		return true;
	if (!is_fn(ekind(c, i)) || s->kind == MI_KIND_PROTOTYPE)
		return false;
	if (c->p->lang == MI_LANG_CSHARP && s->end_byte <= c->len && s->start_byte < s->end_byte)
		return memmem(c->src + s->start_byte, s->end_byte - s->start_byte, "=>", 2) != NULL;
	return false;
}

/* " { ... }" after a symbol's code; a JS/TS arrow function shows its "=>",
 * a Rust tuple struct its fields. */
static void put_sym_body(vctx *c, size_t i)
{
	const mi_symbol *s = &c->p->syms[i];
	int lang = c->p->lang;
	if (s->body_byte && s->body_byte < c->len && s->kind == MI_KIND_STRUCT &&
	    lang == MI_LANG_RUST && c->src[s->body_byte] == '(') {
		const char *a = c->src + s->body_byte;
		const char *e = skip_group(a);
		if (e && e - a <= 60 && !memchr(a, '\n', (size_t)(e - a))) {
			mi_buf_add(c->out, a, (size_t)(e - a));
			return;
		}
	}
	if (s->body_byte && is_fn(s->kind) && c->mode != VM_COMPACT && (lang == MI_LANG_JAVASCRIPT ||
					       lang == MI_LANG_TYPESCRIPT || lang == MI_LANG_TSX)) {
		size_t b = s->body_byte;
		while (b > s->start_byte && tk_space((unsigned char)c->src[b - 1]))
			b--;
		if (b >= s->start_byte + 2 && !memcmp(c->src + b - 2, "=>", 2))
			mi_buf_add(c->out, " =>", 3);
	}
	put_body(c);
}

/* Compact: a whole container on one line: "C> class User { name, 2 methods }". */
static void put_compact_container(vctx *c, size_t i, int depth)
{
	const mi_symbol *s = &c->p->syms[i];
	namelist l = { 0 };
	size_t methods = 0;
	collect_members(c, i, &l, &methods, trait_impl(c, s) ? CM_FNS : 0);
	put_sym_line(c, i, depth);
	if (!l.n && !methods) {
		if (has_body(c, i) || s->end_line > s->start_line)
			put_sym_body(c, i);
	} else {
		mi_buf_add(c->out, " { ", 3);
		nl_put(c, &l, LIST_CAP_COMPACT);
		if (methods)
			mi_buf_addf(c->out, "%s%zu method%s", l.n ? ", " : "",
				    methods, methods == 1 ? "" : "s");
		mi_buf_add(c->out, " }", 2);
	}
	mi_buf_addc(c->out, '\n');
	nl_free(&l);
}

/* Does a module in compact mode show its children (namespace) or fold to
 * one line (impl block)? */
static bool compact_opens(const vctx *c, const mi_symbol *s)
{
	(void)c;
	if (s->kind != MI_KIND_MODULE)
		return false;
	const char *sig = str0(s->sig);
	while (*sig == ' ')
		sig++;
	return strncmp(sig, "impl", 4) != 0 && strncmp(sig, "extension", 9) != 0;
}

/*
 * Writes the entry of symbol i (its line, its V* lines); children follow as
 * entries of their own.  Returns true when its children get lines.
 *
 * A container's mark-less members go inline in its braces when it is a
 * data type (struct, union, enum), a trait without methods or a trait impl,
 * or has no block children; else on a "V* members:" line under it.
 */
static bool put_entry(vctx *c, size_t i)
{
	const mi_parsed *p = c->p;
	const mi_symbol *s = &p->syms[i];
	const kind_row *k = krow(ekind(c, i));
	int depth = c->depth[i];

	if (s->kind == MI_KIND_HEADING) {
		put_heading(c, i);
		put_sym_diags(c, i, 0);
		return true;
	}
	bool opens = k->container && has_block_children(c, i);
	if (c->mode == VM_COMPACT && k->container && !compact_opens(c, s)) {
		put_compact_container(c, i, depth);
		return false;
	}
	bool data = s->kind == MI_KIND_STRUCT || s->kind == MI_KIND_UNION ||
		    s->kind == MI_KIND_ENUM;
	bool listed = false;
	if (k->container && (!opens || data)) {
		namelist l = { 0 };
		size_t methods = 0;
		int how = (opens ? CM_OPENS : 0) | (trait_impl(c, s) ? CM_FNS : 0);
		collect_members(c, i, &l, &methods, how);
		put_sym_line(c, i, depth);
		if (s->kind == MI_KIND_TRAIT && methods) {
			put_body(c);
		} else if (l.n) {
			mi_buf_add(c->out, " { ", 3);
			nl_put(c, &l, c->mode == VM_COMPACT ? LIST_CAP_COMPACT : LIST_CAP_OUTLINE);
			mi_buf_add(c->out, " }", 2);
		} else if (has_body(c, i)) {
			put_sym_body(c, i);
		}
		mi_buf_addc(c->out, '\n');
		nl_free(&l);
		listed = true;
	} else {
		put_sym_line(c, i, depth);
		if (has_body(c, i))
			put_sym_body(c, i);
		mi_buf_addc(c->out, '\n');
	}
	if (opens && !listed && c->mode == VM_OUTLINE) {
		namelist l = { 0 };
		collect_members(c, i, &l, NULL, CM_OPENS);
		if (l.n) {
			vline(c, depth);
			mi_buf_adds(c->out, "members: ");
			nl_put(c, &l, LIST_CAP_OUTLINE);
			mi_buf_addc(c->out, '\n');
		}
		nl_free(&l);
	}
	if (k->container && c->mode == VM_OUTLINE)
		put_traits(c, i, depth);
	if (c->mode == VM_OUTLINE)
		put_sym_diags(c, i, depth);
	put_coverage(c, s, depth);
	return opens;
}

/* Number of symbols from position k of the tree order on that the view
 * would have rendered. */
static size_t count_left(const vctx *c, size_t k)
{
	size_t n = 0;
	for (; k < c->p->nsyms; k++) {
		size_t i = (size_t)c->order[k];
		if (c->shown[i] && (is_block(ekind(c, i)) || c->p->syms[i].kind == MI_KIND_HEADING))
			n++;
	}
	return n;
}

static void put_truncated(vctx *c, size_t more)
{
	vline(c, 0);
	mi_buf_addf(c->out, "[truncated: %zu more symbol%s; use expand_at or filter]\n",
		    more, more == 1 ? "" : "s");
}

/* Accounts for the text written since `from`; false (and rolls back) when
 * it goes over the cap. */
static bool budget(vctx *c, size_t from)
{
	size_t t = mi_token_estimate(c->out->buf + from, c->out->len - from);
	if (c->tokens + t + TRUNC_RESERVE > c->cap && c->entries > 0) {
		c->out->len = from;
		c->out->buf[from] = '\0';
		return false;
	}
	c->tokens += t;
	return true;
}

/* "V* consts: A, B" lines for top-level mark-less symbols. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void put_file_groups(vctx *c)
{
	const mi_parsed *p = c->p;
	/* names of defined functions, to drop their declarations */
	const char **fns = mi_xmalloc((p->nsyms + 1) * sizeof(*fns));
	size_t nfns = 0;
	/* names of shown types, to drop `typedef struct job {...} job;` aliases
	 * that only repeat them */
	const char **tys = mi_xmalloc((p->nsyms + 1) * sizeof(*tys));
	size_t ntys = 0;
	for (size_t i = 0; i < p->nsyms; i++) {
		int k = p->syms[i].kind;
		if (is_fn(k) && p->syms[i].name)
			fns[nfns++] = p->syms[i].name;
		if ((k == MI_KIND_STRUCT || k == MI_KIND_UNION || k == MI_KIND_ENUM ||
		     k == MI_KIND_CLASS) && c->shown[i] && p->syms[i].name)
			tys[ntys++] = p->syms[i].name;
	}
	qsort(fns, nfns, sizeof(*fns), cmp_str);
	qsort(tys, ntys, sizeof(*tys), cmp_str);
	for (size_t g = 0; g < sizeof(file_groups) / sizeof(file_groups[0]); g++) {
		namelist l = { 0 };
		for (size_t i = 0; i < p->nsyms; i++) {
			const mi_symbol *s = &p->syms[i];
			if (s->kind != file_groups[g].kind || !c->shown[i] ||
			    (s->parent_idx >= 0 && p->syms[s->parent_idx].kind != MI_KIND_HEADING))
				continue;
			if (s->kind == MI_KIND_PROTOTYPE && nfns &&
			    bsearch(&s->name, fns, nfns, sizeof(*fns), cmp_str))
				continue;
			if (s->kind == MI_KIND_TYPEDEF && ntys &&
			    bsearch(&s->name, tys, ntys, sizeof(*tys), cmp_str))
				continue;
			nl_add(&l, s->name);
		}
		if (l.n) {
			vline(c, 0);
			mi_buf_addf(c->out, "%s: ", file_groups[g].label);
			nl_put(c, &l, c->mode == VM_COMPACT ? GROUP_CAP_COMPACT : GROUP_CAP_OUTLINE);
			mi_buf_addc(c->out, '\n');
		}
		nl_free(&l);
	}
	free(fns);
	free(tys);
}

static void put_diag_summary(vctx *c)
{
	size_t ne = 0, nw = 0, nh = 0;
	for (size_t k = 0; k < c->p->ndiags; k++) {
		char s = c->p->diags[k].severity;
		if (s == 'W')
			nw++;
		else if (s == 'H')
			nh++;
		else
			ne++;
	}
	if (!ne && !nw && !nh)
		return;
	vline(c, 0);
	mi_buf_addc(c->out, '[');
	const char *sep = "";
	if (ne) {
		mi_buf_addf(c->out, "%zuE", ne);
		sep = " ";
	}
	if (nw) {
		mi_buf_addf(c->out, "%s%zuW", sep, nw);
		sep = " ";
	}
	if (nh)
		mi_buf_addf(c->out, "%s%zuH", sep, nh);
	mi_buf_adds(c->out, " in file]\n");
}

/* Closes the open blocks above `keep` (-1: all) with "V* end class X" guides. */
static void close_guides(vctx *c, int32_t *stack, int *top, int32_t keep)
{
	while (*top > 0 && stack[*top - 1] != keep) {
		const mi_symbol *s = &c->p->syms[stack[*top - 1]];
		(*top)--;
		if (c->o->block_guides && s->kind != MI_KIND_HEADING) {
			vline(c, c->depth[stack[*top]]);
			mi_buf_addf(c->out, "end %s %s\n", krow(s->kind)->word, str0(s->name));
		}
	}
}

/* Is symbol i on the stack of open blocks? */
static bool on_stack(const int32_t *stack, int top, int32_t i)
{
	for (int k = top - 1; k >= 0; k--)
		if (stack[k] == i)
			return true;
	return false;
}

static void render_folded(vctx *c)
{
	const mi_parsed *p = c->p;
	size_t from = c->out->len;
	if (c->mode == VM_COMPACT)
		put_diag_summary(c);
	put_file_groups(c);
	budget(c, from);

	int32_t *stack = mi_xmalloc((p->nsyms + 1) * sizeof(int32_t));
	int top = 0;
	size_t k;
	bool cut = false;
	bool pointcuts = false;
	/* hashes of leaf entries written: a repeated one (#ifdef variants) is dropped */
	size_t nseen = 64;
	while (nseen < p->nsyms * 2)
		nseen *= 2;
	uint64_t *seen = mi_xcalloc(nseen, sizeof(uint64_t));
	for (k = 0; k < p->nsyms; k++) {
		size_t i = (size_t)c->order[k];
		const mi_symbol *s = &p->syms[i];
		if (!c->shown[i] || (!is_block(ekind(c, i)) && s->kind != MI_KIND_HEADING))
			continue;
		if (s->kind == MI_KIND_POINTCUT && pointcuts) {
			/* a pointcut shows once, however often it is declared */
			bool dup = false;
			for (size_t j = 0; j < i && !dup; j++)
				dup = p->syms[j].kind == MI_KIND_POINTCUT && c->shown[j] &&
				      !strcmp(str0(p->syms[j].sig), str0(s->sig)) &&
				      !strcmp(str0(p->syms[j].name), str0(s->name));
			if (dup)
				continue;
		}
		pointcuts |= s->kind == MI_KIND_POINTCUT;
		/* skip symbols whose parent's children are not listed */
		int32_t pi = c->par[i];
		bool under_heading = pi >= 0 && p->syms[pi].kind == MI_KIND_HEADING;
		if (pi >= 0 && !under_heading) {
			if (!on_stack(stack, top, pi) || anon_type(s))
				continue;
		}
		size_t at = c->out->len;
		close_guides(c, stack, &top, under_heading ? -1 : pi);
		size_t at_entry = c->out->len;
		bool opens = put_entry(c, i);
		if (!opens && c->out->len > at_entry) {
			uint64_t h = mi_hash64(c->out->buf + at_entry, c->out->len - at_entry) | 1;
			size_t q = h & (nseen - 1);
			while (seen[q] && seen[q] != h)
				q = (q + 1) & (nseen - 1);
			if (seen[q] == h) {
				c->out->len = at_entry;
				c->out->buf[at_entry] = '\0';
			}
			seen[q] = h;
		}
		if (!budget(c, at)) {
			cut = true;
			break;
		}
		c->entries++;
		if (opens && s->kind != MI_KIND_HEADING)
			stack[top++] = (int32_t)i;
	}
	from = c->out->len;
	close_guides(c, stack, &top, -1);
	if (cut) {
		put_truncated(c, count_left(c, k));
	} else {
		put_file_auto_traits(c);
		if (c->mode == VM_OUTLINE) {
			for (size_t d = 0; d < p->ndiags; d++)
				if (c->dord[d].owner < 0)
					put_diag(c, &p->diags[c->dord[d].idx], 0);
			size_t *l = c->diags_left;
			if (l[0] + l[1] + l[2]) {
				vline(c, 0);
				mi_buf_addf(c->out, "[+%zu more: %zuE %zuW %zuH; mode=full shows all]\n",
					    l[0] + l[1] + l[2], l[0], l[1], l[2]);
			}
		}
		if (!budget(c, from)) {
			cut = true;
			put_truncated(c, 0);
		}
	}
	c->cut = cut;
	free(seen);
	free(stack);
}

/* ---- full ------------------------------------------------------------------------- */

static const char *comment_open(int lang, const char **close)
{
	*close = "";
	switch (lang) {
	case MI_LANG_PYTHON: case MI_LANG_RUBY: case MI_LANG_BASH: case MI_LANG_SIMPLE:
	case MI_LANG_NONE:
		return "#";
	case MI_LANG_MARKDOWN:
		*close = " -->";
		return "<!--";
	default:
		return "//";
	}
}

static void render_full(vctx *c)
{
	const mi_parsed *p = c->p;
	const char *close;
	const char *open = comment_open(p->lang, &close);
	size_t di = 0, si = 0;
	size_t boundary = c->out->len;
	uint32_t bline = 1;
	int32_t *stack = mi_xmalloc((p->nsyms + 1) * sizeof(int32_t));
	int top = 0;
	bool cut = false;
	/* diagnostics by line */
	struct dref *byline = mi_xmalloc((p->ndiags + 1) * sizeof(*byline));
	for (size_t k = 0; k < p->ndiags; k++) {
		byline[k].owner = 0;
		byline[k].line = p->diags[k].line;
		byline[k].idx = (uint32_t)k;
	}
	qsort(byline, p->ndiags, sizeof(*byline), dref_cmp);

	for (uint32_t ln = 1; ln <= c->nlines; ln++) {
		size_t at = c->out->len;
		bool starts = false;
		while (si < p->nsyms && p->syms[si].start_line <= ln) {
			const mi_symbol *s = &p->syms[si];
			if (s->start_line == ln && s->parent_idx < 0 && c->shown[si])
				starts = true;
			if (c->shown[si] && is_block(s->kind) && s->end_line > s->start_line &&
			    c->o->block_guides) {
				stack[top++] = (int32_t)si;
			}
			si++;
		}
		if (starts) {
			boundary = at;
			bline = ln;
		}
		size_t n;
		const char *t = line_at(c, ln, &n);
		put_lineno(c, ln);
		while (di < p->ndiags && byline[di].line < ln)
			di++;
		if (di < p->ndiags && byline[di].line == ln) {
			/* one trailing comment: "code // [E] a; [W] b" */
			while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '\t'))
				n--;
			mi_buf_add(c->out, t, n);
			mi_buf_addf(c->out, " %s", open);
			for (const char *sep = " "; di < p->ndiags && byline[di].line == ln; di++) {
				const mi_diag *dg = &p->diags[byline[di].idx];
				char sev = dg->severity == 'W' || dg->severity == 'H' ? dg->severity : 'E';
				const char *m = str0(dg->msg);
				mi_buf_addf(c->out, "%s[%c] %.*s", sep, sev, (int)strcspn(m, "\n"), m);
				sep = "; ";
			}
			mi_buf_adds(c->out, close);
		} else {
			mi_buf_add(c->out, t, n);
		}
		mi_buf_addc(c->out, '\n');
		/* guides for blocks ending here, innermost first */
		for (int k = top - 1; k >= 0; k--) {
			const mi_symbol *s = &p->syms[stack[k]];
			if (s->end_line != ln)
				continue;
			vline(c, 0);
			mi_buf_addf(c->out, "end %s %s\n", krow(s->kind)->word, str0(s->name));
			memmove(stack + k, stack + k + 1, (size_t)(top - k - 1) * sizeof(*stack));
			top--;
		}
		size_t t_add = mi_token_estimate(c->out->buf + at, c->out->len - at);
		if (c->tokens + t_add + TRUNC_RESERVE > c->cap && ln > 1) {
			size_t cutat = boundary > 0 && bline > 1 ? boundary : at;
			uint32_t from_line = boundary > 0 && bline > 1 ? bline : ln;
			c->out->len = cutat;
			c->out->buf[cutat] = '\0';
			size_t more = 0;
			for (size_t k = 0; k < p->nsyms; k++)
				if (c->shown[k] && p->syms[k].start_line >= from_line &&
				    is_block(p->syms[k].kind))
					more++;
			vline(c, 0);
			mi_buf_addf(c->out, "[truncated: lines %u-%u, %zu more symbol%s; "
				    "use expand_at, mode=outline or filter]\n",
				    from_line, c->nlines, more, more == 1 ? "" : "s");
			cut = true;
			break;
		}
		c->tokens += t_add;
	}
	/* diagnostics without a line, or past the last one */
	for (size_t k = 0; k < p->ndiags && !cut; k++) {
		const mi_diag *dg = &p->diags[byline[k].idx];
		if (dg->line >= 1 && dg->line <= c->nlines)
			continue;
		put_diag(c, dg, 0);
	}
	free(byline);
	free(stack);
}

/* ---- context ---------------------------------------------------------------------- */

static int cmp_by_name(const void *a, const void *b, void *arg)
{
	const mi_symbol *syms = arg;
	return strcmp(str0(syms[*(const int32_t *)a].name), str0(syms[*(const int32_t *)b].name));
}

/* Rendered parents and kinds: the source's, except that a C++ prototype in a
 * class is a method declaration, and a Go method's parent is its receiver's
 * struct when the file declares it. */
static void relate(vctx *c)
{
	const mi_parsed *p = c->p;
	int32_t *types = NULL;
	size_t ntypes = 0;
	for (size_t i = 0; i < p->nsyms; i++) {
		const mi_symbol *s = &p->syms[i];
		int32_t par = s->parent_idx >= 0 && (size_t)s->parent_idx < i ? s->parent_idx : -1;
		c->par[i] = par;
		c->ek[i] = s->kind;
		if (s->kind == MI_KIND_PROTOTYPE && par >= 0) {
			int pk = p->syms[par].kind;
			if (pk == MI_KIND_CLASS || pk == MI_KIND_STRUCT || pk == MI_KIND_UNION)
				c->ek[i] = MI_KIND_METHOD;
		}
		if (p->lang == MI_LANG_GO && par < 0 && s->kind == MI_KIND_STRUCT) {
			if (!types)
				types = mi_xmalloc(p->nsyms * sizeof(int32_t));
			types[ntypes++] = (int32_t)i;
		}
	}
	if (!ntypes)
		return;
	mi_sort(types, ntypes, sizeof(int32_t), cmp_by_name, (void *)p->syms);
	for (size_t i = 0; i < p->nsyms; i++) {
		const mi_symbol *s = &p->syms[i];
		if (s->kind != MI_KIND_METHOD || c->par[i] >= 0 || !*str0(s->parent))
			continue;
		size_t lo = 0, hi = ntypes;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			int r = strcmp(str0(p->syms[types[mid]].name), s->parent);
			if (r < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < ntypes && !strcmp(str0(p->syms[types[lo]].name), s->parent)) {
			c->par[i] = types[lo];
			c->adopted[i] = 1;
		}
	}
	free(types);
}

/* Children lists (by rendered parent, in source order) and the tree order. */
static void link_tree(vctx *c)
{
	const mi_parsed *p = c->p;
	size_t n = p->nsyms + 1, no = 0;
	for (size_t i = 0; i < n; i++)
		c->kid[i] = c->sib[i] = -1;
	for (size_t i = p->nsyms; i-- > 0;) {
		int32_t par = c->par[i];
		if (par >= 0) {
			c->sib[i] = c->kid[par];
			c->kid[par] = (int32_t)i;
		}
	}
	/* preorder without recursion: walk down kid, along sib, up par */
	for (size_t r = 0; r < p->nsyms; r++) {
		if (c->par[r] >= 0)
			continue;
		int32_t i = (int32_t)r;
		while (i >= 0) {
			c->order[no++] = i;
			if (c->kid[i] >= 0) {
				i = c->kid[i];
				continue;
			}
			while (i >= 0 && i != (int32_t)r && c->sib[i] < 0)
				i = c->par[i];
			i = i >= 0 && i != (int32_t)r ? c->sib[i] : -1;
		}
	}
	assert(no == p->nsyms);
}

static void ctx_init(vctx *c, const char *path, const char *src, size_t len,
		     const mi_parsed *p, const mi_view_opts *o, mi_out *out)
{
	memset(c, 0, sizeof(*c));
	c->path = path ? path : "";
	c->src = src ? src : "";
	c->len = src ? len : 0;
	c->p = p;
	c->o = o;
	c->out = &out->text;
	c->ell = o->unicode ? "\xe2\x80\xa6" : "...";
	c->vmark = o->unicode ? "V\xe2\x80\xa2" : "V*";
	c->cap = o->max_tokens ? o->max_tokens : MI_DEFAULT_MAX_TOKENS;
	lines_index(c);
	size_t n = p->nsyms + 1;
	c->shown = mi_xcalloc(n, 1);
	c->depth = mi_xcalloc(n, 1);
	c->par = mi_xmalloc(n * sizeof(int32_t));
	c->ek = mi_xmalloc(n);
	c->adopted = mi_xcalloc(n, 1);
	c->kid = mi_xmalloc(n * sizeof(int32_t));
	c->sib = mi_xmalloc(n * sizeof(int32_t));
	c->order = mi_xmalloc(n * sizeof(int32_t));
	relate(c);
	c->impl = mi_xmalloc((p->nrefs + 1) * sizeof(uint32_t));
	for (size_t k = 0; k < p->nrefs; k++)
		if (p->refs[k].kind == MI_REF_IMPL)
			c->impl[c->nimpl++] = (uint32_t)k;
	if (p->lang == MI_LANG_C || p->lang == MI_LANG_CPP) {
		const char *dot = strrchr(c->path, '.');
		c->header = dot && (!strcmp(dot, ".h") || !strcmp(dot, ".hh") ||
				    !strcmp(dot, ".hpp") || !strcmp(dot, ".hxx"));
	}
	c->dstart = mi_xcalloc(n, sizeof(int32_t));
	mark_shown(c);
	link_tree(c);
	assign_diags(c);
}

static void ctx_release(vctx *c)
{
	free(c->lstart);
	free(c->shown);
	free(c->depth);
	free(c->par);
	free(c->ek);
	free(c->adopted);
	free(c->kid);
	free(c->sib);
	free(c->order);
	free(c->impl);
	free(c->dstart);
	free(c->dord);
	free(c->cov);
}

static int set_error(mi_out *out, int err, const char *msg)
{
	mi_buf_reset(&out->text);
	mi_buf_reset(&out->json);
	mi_buf_adds(&out->text, msg);
	mi_buf_adds(&out->json, "{\"error\":");
	mi_buf_add_json_str(&out->json, msg, strlen(msg));
	mi_buf_addc(&out->json, '}');
	out->is_error = true;
	return err;
}

static const mi_view_opts default_opts;

/* What both renderings do first: default options, an empty answer, and
 * an error answer without a parsed file. */
static int render_begin(const mi_parsed *p, const mi_view_opts **o, mi_out *out,
			const char *no_file)
{
	if (!*o)
		*o = &default_opts;
	if (!out)
		return MI_ERR_ARG;
	out->is_error = false;
	mi_buf_reset(&out->text);
	mi_buf_reset(&out->json);
	if (!p)
		return set_error(out, MI_ERR_ARG, no_file);
	return 0;
}

/* VM_* of a mode name (none, "mcp": outline), -1 when unknown. */
static int view_mode(const char *mode)
{
	if (!mode || !*mode || !strcmp(mode, "outline") || !strcmp(mode, "mcp"))
		return VM_OUTLINE;
	if (!strcmp(mode, "compact"))
		return VM_COMPACT;
	if (!strcmp(mode, "full"))
		return VM_FULL;
	return -1;
}

/* What a folded render reports besides its text. */
typedef struct view_info {
	int mode;        /* VM_* */
	uint32_t lines;  /* line_count */
	size_t nsyms;    /* symbols */
	long saved;      /* tokens_saved_percent */
	size_t need;     /* smallest cap that leaves it whole, 0 if it was cut */
} view_info;

/* Renders into out->text (reset first); the JSON is the caller's. */
static int render_view(const char *path, const char *src, size_t len, const mi_parsed *p,
		       const mi_view_opts *o, mi_out *out, view_info *vi)
{
	vctx c;
	int rc = render_begin(p, &o, out, "no parsed file to render");
	if (rc)
		return rc;
	int mode = view_mode(o->mode);
	if (mode < 0) {
		char msg[160];
		snprintf(msg, sizeof(msg), "unknown mode '%.40s'; use outline, compact or full",
			 o->mode);
		return set_error(out, MI_ERR_ARG, msg);
	}
	ctx_init(&c, path, src, len, p, o, out);
	c.mode = mode;
	load_coverage(&c);
	mi_buf_grow(&out->text, mode == VM_FULL ? len + 64 : 256 + len / 8);
	if (mode == VM_FULL)
		render_full(&c);
	else
		render_folded(&c);

	size_t src_tok = estimate_sampled(c.src, c.len);
	size_t view_tok = mi_token_estimate(out->text.buf ? out->text.buf : "", out->text.len);
	vi->mode = mode;
	vi->lines = c.nlines;
	vi->nsyms = p->nsyms;
	vi->saved = 0;
	if (src_tok > 0 && view_tok < src_tok)
		vi->saved = (long)((src_tok - view_tok) * 100 / src_tok);
	vi->need = c.cut ? 0 : c.tokens + TRUNC_RESERVE;
	ctx_release(&c);
	return 0;
}

/* The read_file object around out->text. */
static void view_json(mi_out *out, const char *path, const view_info *vi)
{
	mi_buf *j = &out->json;
	mi_buf_grow(j, out->text.len + out->text.len / 8 + 128);
	mi_buf_adds(j, "{\"path\":");
	mi_buf_add_json_str(j, path, strlen(path));
	mi_buf_addf(j, ",\"mode\":\"%s\",\"text\":", mode_name(vi->mode));
	mi_buf_add_json_str(j, mi_buf_str(&out->text), out->text.len);
	mi_buf_addf(j, ",\"line_count\":%u,\"symbols\":%zu,\"tokens_saved_percent\":%ld}",
		    vi->lines, vi->nsyms, vi->saved);
}

/*
 * Folded view of a parsed file.  out->text gets the view, out->json the
 * read_file object; both are reset first.  Returns 0, or MI_ERR_ARG when
 * p is NULL or the mode is unknown (out then holds the message).
 */
int mi_render_view(const char *path, const char *src, size_t len,
		   const mi_parsed *p, const mi_view_opts *o, mi_out *out)
{
	view_info vi;
	int rc = render_view(path, src, len, p, o, out, &vi);
	if (!rc)
		view_json(out, path ? path : "", &vi);
	return rc;
}

/* The stored outline: the default view with no cap (a cap only ever cuts
 * it, and the reader knows from r->need which caps leave it whole). */
int mi_render_outline(const char *path, const char *src, size_t len, const mi_parsed *p,
		      mi_out *out, mi_outline_rec *r)
{
	mi_view_opts o = {.mode = "outline", .max_tokens = SIZE_MAX / 4};
	view_info vi;
	memset(r, 0, sizeof(*r));
	int rc = render_view(path, src, len, p, &o, out, &vi);
	if (rc)
		return rc;
	r->text = mi_buf_str(&out->text);
	r->text_len = out->text.len;
	r->need = vi.need > UINT32_MAX ? UINT32_MAX : (uint32_t)vi.need;
	r->lines = vi.lines;
	r->nsyms = vi.nsyms > UINT32_MAX ? UINT32_MAX : (uint32_t)vi.nsyms;
	r->saved = (int32_t)vi.saved;
	return 0;
}

bool mi_outline_serves(const mi_outline_rec *r, const mi_view_opts *o)
{
	size_t cap = o->max_tokens ? o->max_tokens : MI_DEFAULT_MAX_TOKENS;
	return r->need && r->need <= cap && view_mode(o->mode) == VM_OUTLINE && !o->all &&
	       !o->line_numbers && !o->unicode && !o->block_guides && !o->coverage;
}

void mi_outline_answer(const char *path, const mi_outline_rec *r, mi_out *out)
{
	view_info vi = {.mode = VM_OUTLINE, .lines = r->lines, .nsyms = r->nsyms,
			.saved = r->saved};
	mi_out_reset(out);
	mi_buf_add(&out->text, r->text, r->text_len);
	view_json(out, path, &vi);
}

/* ---- expand ------------------------------------------------------------------------ */

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 99;
	size_t row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t v = diag + cost;
			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
		}
	}
	return row[lb];
}

static bool parent_matches(const vctx *c, const mi_symbol *s, const char *par, size_t pl)
{
	const char *ps = str0(s->parent);
	size_t n = strlen(ps);
	if (n == pl && !memcmp(ps, par, pl))
		return true;
	if (n > pl && !memcmp(ps + n - pl, par, pl) &&
	    (ps[n - pl - 1] == '.' || ps[n - pl - 1] == ':'))
		return true;
	if (s->parent_idx >= 0 && (size_t)s->parent_idx < c->p->nsyms) {
		const char *pn = str0(c->p->syms[s->parent_idx].name);
		return strlen(pn) == pl && !memcmp(pn, par, pl);
	}
	return false;
}

/* Innermost symbol spanning line ln, preferring blocks; -1 if none. */
static long find_line(const vctx *c, uint32_t ln)
{
	long best = -1, any = -1;
	for (size_t i = 0; i < c->p->nsyms; i++) {
		const mi_symbol *s = &c->p->syms[i];
		if (s->start_line > ln || s->end_line < ln)
			continue;
		any = (long)i;
		if (is_block(s->kind) || s->kind == MI_KIND_HEADING)
			best = (long)i;
	}
	return best >= 0 ? best : any;
}

/* Comment lines just above a symbol: first line of the run, or 0. */
static uint32_t doc_lines_above(const vctx *c, const mi_symbol *s)
{
	uint32_t first = 0;
	for (uint32_t l = s->start_line; l-- > 1;) {
		size_t n;
		const char *t = line_at(c, l, &n);
		size_t k = indent_of(t, n);
		t += k;
		n -= k;
		bool com = (n >= 2 && (!memcmp(t, "//", 2) || !memcmp(t, "/*", 2) ||
				      !memcmp(t, "*/", 2) || !memcmp(t, "--", 2))) ||
			   (n >= 1 && (*t == '*' || (*t == '#' && c->p->lang != MI_LANG_C &&
						     c->p->lang != MI_LANG_CPP &&
						     c->p->lang != MI_LANG_MARKDOWN))) ||
			   (n >= 2 && !memcmp(t + n - 2, "*/", 2));
		if (!com)
			break;
		first = l;
	}
	return first;
}

/* Writes lines [a, b] dedented by `ded` columns of leading whitespace. */
static void put_src_line(vctx *c, uint32_t ln, size_t ded)
{
	size_t n;
	const char *t = line_at(c, ln, &n);
	size_t k = indent_of(t, n);
	if (k > ded)
		k = ded;
	put_lineno(c, ln);
	mi_buf_add(c->out, t + k, n - k);
	mi_buf_addc(c->out, '\n');
}

/* The expanded text of symbol i: first line marked, nested blocks folded. */
static void put_expanded_body(vctx *c, size_t i, const char *mark)
{
	const mi_parsed *p = c->p;
	const mi_symbol *s = &p->syms[i];
	size_t n;
	const char *t = line_at(c, s->start_line, &n);
	size_t ded = indent_of(t, n);
	uint32_t last = s->end_line < s->start_line ? s->start_line : s->end_line;
	if (last > c->nlines)
		last = c->nlines;

	put_lineno(c, s->start_line);
	if (*mark) {
		mi_buf_adds(c->out, mark);
		mi_buf_addc(c->out, ' ');
	}
	mi_buf_add(c->out, t + ded, n - ded);
	mi_buf_addc(c->out, '\n');
	size_t j = i + 1;
	for (uint32_t ln = s->start_line + 1; ln <= last; ln++) {
		/* a direct child block starting here folds to one line */
		while (j < p->nsyms && p->syms[j].start_line < ln)
			j++;
		size_t hit = p->nsyms;
		for (size_t k = j; k < p->nsyms && p->syms[k].start_line == ln; k++) {
			const mi_symbol *ch = &p->syms[k];
			if (ch->parent_idx == (int32_t)i && ch->end_line > ch->start_line &&
			    (is_block(ch->kind) || ch->kind == MI_KIND_HEADING)) {
				hit = k;
				break;
			}
		}
		if (hit == p->nsyms) {
			put_src_line(c, ln, ded);
			continue;
		}
		const mi_symbol *ch = &p->syms[hit];
		t = line_at(c, ln, &n);
		size_t ind = indent_of(t, n);
		size_t from = ind < ded ? ind : ded;
		put_lineno(c, ln);
		mi_buf_add(c->out, t + from, ind - from);
		if (ch->kind == MI_KIND_HEADING)
			mi_buf_add(c->out, t + ind, t[ind] == '#' ? atx_len(t + ind, n - ind) : n - ind);
		else
			put_code(c, ch, false);
		put_body(c);
		mi_buf_addc(c->out, '\n');
		ln = ch->end_line < last ? ch->end_line : last;
	}
}

static void put_doc_text(vctx *c, const char *doc, const char *prefix)
{
	const char *d = doc;
	while (*d) {
		size_t n = strcspn(d, "\n");
		mi_buf_adds(c->out, prefix);
		mi_buf_add(c->out, d, n);
		mi_buf_addc(c->out, '\n');
		d += n;
		if (*d == '\n')
			d++;
	}
}

/* Suggestions for an unknown name: close by edit distance or by prefix. */
static void suggest(const vctx *c, const char *name, mi_buf *msg)
{
	const mi_parsed *p = c->p;
	size_t best[5], nb = 0;
	size_t dist[5];
	size_t nl = strlen(name);
	size_t limit = nl / 3 < 2 ? 2 : nl / 3;
	for (size_t i = 0; i < p->nsyms; i++) {
		const char *sn = str0(p->syms[i].name);
		if (!*sn)
			continue;
		size_t d = edit_distance(name, sn);
		size_t sl = strlen(sn);
		if (d > limit && !(nl >= 3 && (!strncasecmp(sn, name, nl) ||
					       (sl >= 3 && !strncasecmp(name, sn, sl)))))
			continue;
		if (d > limit)
			d = limit + 1;
		bool dup = false;
		for (size_t k = 0; k < nb; k++)
			dup |= !strcmp(str0(p->syms[best[k]].name), sn);
		if (dup)
			continue;
		size_t pos = nb;
		while (pos > 0 && dist[pos - 1] > d)
			pos--;
		if (pos >= 5)
			continue;
		if (nb < 5)
			nb++;
		for (size_t k = nb - 1; k > pos; k--) {
			best[k] = best[k - 1];
			dist[k] = dist[k - 1];
		}
		best[pos] = i;
		dist[pos] = d;
	}
	if (!nb)
		return;
	mi_buf_adds(msg, "; did you mean: ");
	for (size_t k = 0; k < nb; k++) {
		const mi_symbol *s = &p->syms[best[k]];
		mi_buf_addf(msg, "%s%s%s%s (line %u)", k ? ", " : "",
			    *str0(s->parent) ? s->parent : "", *str0(s->parent) ? "." : "",
			    str0(s->name), s->start_line);
	}
}

/*
 * Expanded view of one symbol: selector NAME, Parent.NAME or line:N; what
 * body, signature, docs or all (NULL = all).  An ambiguous selector lists
 * the candidates (not an error); an unknown one is an error answer with
 * close names.  Returns 0, MI_ERR_NOTFOUND or MI_ERR_ARG.
 */
int mi_render_expand(const char *path, const char *src, size_t len,
		     const mi_parsed *p, const char *selector, const char *what,
		     const mi_view_opts *o, mi_out *out)
{
	vctx c;
	int rc = 0;
	size_t *cand = NULL, ncand = 0;
	mi_buf msg = { 0 };

	int brc = render_begin(p, &o, out, "no parsed file to expand");
	if (brc)
		return brc;
	if (!what || !*what)
		what = "all";
	if (strcmp(what, "body") && strcmp(what, "signature") && strcmp(what, "docs") &&
	    strcmp(what, "all")) {
		mi_buf_addf(&msg, "unknown what '%.40s'; use body, signature, docs or all", what);
		rc = set_error(out, MI_ERR_ARG, mi_buf_str(&msg));
		mi_buf_release(&msg);
		return rc;
	}
	if (!selector || !*selector)
		return set_error(out, MI_ERR_ARG,
				 "empty selector; use NAME, Parent.NAME or line:N");

	ctx_init(&c, path, src, len, p, o, out);
	c.mode = VM_OUTLINE;
	load_coverage(&c);
	cand = mi_xmalloc((p->nsyms + 1) * sizeof(*cand));

	if (!strncmp(selector, "line:", 5)) {
		char *end;
		unsigned long ln = strtoul(selector + 5, &end, 10);
		if (*end || ln == 0) {
			mi_buf_addf(&msg, "bad selector '%s'; line:N takes a line number from 1", selector);
			rc = set_error(out, MI_ERR_ARG, mi_buf_str(&msg));
			goto out_free;
		}
		long k = find_line(&c, (uint32_t)ln);
		if (k < 0) {
			mi_buf_addf(&msg, "no symbol spans line %lu of %s (%u lines); "
				    "read_file shows the symbols and their lines",
				    ln, c.path, c.nlines);
			rc = set_error(out, MI_ERR_NOTFOUND, mi_buf_str(&msg));
			goto out_free;
		}
		cand[ncand++] = (size_t)k;
	} else {
		const char *dot = strrchr(selector, '.');
		const char *name = selector, *par = NULL;
		size_t pl = 0;
		const char *colons = strstr(selector, "::");
		if (colons && (!dot || colons > dot)) {
			const char *last = colons;
			while ((colons = strstr(last + 2, "::")))
				last = colons;
			par = selector;
			pl = (size_t)(last - selector);
			name = last + 2;
		} else if (dot && dot > selector && dot[1]) {
			par = selector;
			pl = (size_t)(dot - selector);
			name = dot + 1;
		}
		for (size_t i = 0; i < p->nsyms; i++) {
			const mi_symbol *s = &p->syms[i];
			if (strcmp(str0(s->name), name))
				continue;
			if (par && !parent_matches(&c, s, par, pl))
				continue;
			cand[ncand++] = i;
		}
		if (!ncand && par) {
			/* "a.b" may be a name with a dot (Markdown heading "1. Types") */
			for (size_t i = 0; i < p->nsyms; i++)
				if (!strcmp(str0(p->syms[i].name), selector))
					cand[ncand++] = i;
		}
		/* definitions win over declarations, visible over hidden */
		size_t keep = 0;
		for (size_t k = 0; k < ncand; k++)
			keep += p->syms[cand[k]].kind != MI_KIND_PROTOTYPE;
		if (keep && keep < ncand) {
			size_t w = 0;
			for (size_t k = 0; k < ncand; k++)
				if (p->syms[cand[k]].kind != MI_KIND_PROTOTYPE)
					cand[w++] = cand[k];
			ncand = w;
		}
		if (!ncand) {
			mi_buf_addf(&msg, "symbol '%s' not found in %s", selector, c.path);
			suggest(&c, name, &msg);
			mi_buf_adds(&msg, ". Use read_file to list the symbols, or selector line:N");
			rc = set_error(out, MI_ERR_NOTFOUND, mi_buf_str(&msg));
			goto out_free;
		}
	}

	if (ncand > 1) {
		vline(&c, 0);
		mi_buf_addf(c.out, "ambiguous: '%s' matches %zu symbols; use Parent.NAME or line:N\n",
			    selector, ncand);
		mi_buf_adds(&out->json, "{\"path\":");
		mi_buf_add_json_str(&out->json, c.path, strlen(c.path));
		mi_buf_adds(&out->json, ",\"name\":");
		mi_buf_add_json_str(&out->json, selector, strlen(selector));
		mi_buf_adds(&out->json, ",\"kind\":\"ambiguous\",\"ambiguous\":true,\"candidates\":[");
		for (size_t k = 0; k < ncand; k++) {
			const mi_symbol *s = &p->syms[cand[k]];
			const char *mk = krow(s->kind)->mark;
			put_lineno(&c, s->start_line);
			mi_buf_addf(c.out, "%s ", mk && *mk ? mk : c.vmark);
			put_code(&c, s, true);
			mi_buf_addf(c.out, "  [line:%u]\n", s->start_line);
			mi_buf_adds(&out->json, k ? ",{\"name\":" : "{\"name\":");
			mi_buf_add_json_str(&out->json, str0(s->name), strlen(str0(s->name)));
			mi_buf_adds(&out->json, ",\"parent\":");
			mi_buf_add_json_str(&out->json, str0(s->parent), strlen(str0(s->parent)));
			mi_buf_addf(&out->json, ",\"kind\":\"%s\",\"start_line\":%u,\"end_line\":%u}",
				    mi_kind_name(s->kind), s->start_line, s->end_line);
		}
		mi_buf_adds(&out->json, "],\"text\":");
		mi_buf_add_json_str(&out->json, mi_buf_str(c.out), c.out->len);
		mi_buf_addc(&out->json, '}');
		goto out_free;
	}

	size_t i = cand[0];
	const mi_symbol *s = &p->syms[i];
	const kind_row *k = krow(s->kind);
	const char *mark = o->unicode ? k->exp_u : k->exp;
	if (!mark)
		mark = "";
	if (!strcmp(what, "docs")) {
		if (*str0(s->doc)) {
			put_doc_text(&c, s->doc, "");
		} else {
			vline(&c, 0);
			mi_buf_addf(c.out, "no doc comment on %s %s (line %u)\n",
				    mi_kind_name(s->kind), str0(s->name), s->start_line);
		}
	} else if (!strcmp(what, "signature")) {
		put_lineno(&c, s->start_line);
		if (*mark)
			mi_buf_addf(c.out, "%s ", mark);
		put_code(&c, s, false);
		mi_buf_addc(c.out, '\n');
	} else {
		if (!strcmp(what, "all") && *str0(s->doc)) {
			uint32_t first = doc_lines_above(&c, s);
			if (first) {
				size_t hn;
				const char *h = line_at(&c, s->start_line, &hn);
				size_t ded = indent_of(h, hn);
				for (uint32_t l = first; l < s->start_line; l++)
					put_src_line(&c, l, ded);
			} else {
				size_t sn;
				const char *body = c.src + (s->start_byte < c.len ? s->start_byte : c.len);
				sn = (s->end_byte <= c.len && s->end_byte > s->start_byte) ?
				     s->end_byte - s->start_byte : 0;
				const char *d = s->doc;
				size_t dl = strcspn(d, "\n");
				if (!dl || !memmem(body, sn, d, dl < 40 ? dl : 40)) {
					const char *close;
					const char *open = comment_open(p->lang, &close);
					mi_buf cm = { 0 };
					mi_buf_addf(&cm, "%s ", open);
					put_doc_text(&c, s->doc, mi_buf_str(&cm));
					mi_buf_release(&cm);
				}
			}
		}
		put_expanded_body(&c, i, mark);
		size_t vstart = c.out->len;
		bool any_v = false;
		for (size_t d = 0; d < p->ndiags; d++) {
			const mi_diag *dg = &p->diags[c.dord[d].idx];
			if (dg->line >= s->start_line && dg->line <= s->end_line) {
				put_diag(&c, dg, 0);
				any_v = true;
			}
		}
		if (auto_traits_apply(&c, s) && auto_traits(&c, i)) {
			vline(&c, 0);
			mi_buf_addf(c.out, "auto traits: %s\n", auto_traits(&c, i));
			any_v = true;
		}
		size_t pubm = 0, privm = 0;
		for (int32_t j = c.kid[i]; j >= 0; j = c.sib[j]) {
			const mi_symbol *m = &p->syms[j];
			if (!is_fn(ekind(&c, (size_t)j)))
				continue;
			if (sym_public(&c, m))
				pubm++;
			else
				privm++;
		}
		if (s->kind == MI_KIND_CLASS || (k->container && pubm + privm > 0 &&
						 s->kind != MI_KIND_HEADING)) {
			vline(&c, 0);
			mi_buf_addf(c.out, "methods: %zu public, %zu private\n", pubm, privm);
			any_v = true;
		}
		if (k->container) {
			size_t before = c.out->len;
			put_traits(&c, i, 0);
			any_v |= c.out->len != before;
		}
		if (c.cov) {
			size_t before = c.out->len;
			put_coverage(&c, s, 0);
			any_v |= c.out->len != before;
		}
		if (o->block_guides && k->word && s->kind != MI_KIND_HEADING) {
			vline(&c, 0);
			mi_buf_addf(c.out, "end %s %s\n", k->word, str0(s->name));
			any_v = true;
		}
		if (any_v) {
			/* one blank line between the source and its virtual lines */
			mi_buf_grow(c.out, 1);
			memmove(c.out->buf + vstart + 1, c.out->buf + vstart, c.out->len - vstart + 1);
			c.out->buf[vstart] = '\n';
			c.out->len++;
		}
	}
	mi_buf_adds(&out->json, "{\"path\":");
	mi_buf_add_json_str(&out->json, c.path, strlen(c.path));
	mi_buf_adds(&out->json, ",\"name\":");
	mi_buf_add_json_str(&out->json, str0(s->name), strlen(str0(s->name)));
	mi_buf_addf(&out->json, ",\"kind\":\"%s\",\"start_line\":%u,\"end_line\":%u,\"text\":",
		    mi_kind_name(s->kind), s->start_line, s->end_line);
	mi_buf_add_json_str(&out->json, mi_buf_str(c.out), c.out->len);
	mi_buf_addc(&out->json, '}');

out_free:
	free(cand);
	mi_buf_release(&msg);
	ctx_release(&c);
	return rc;
}
