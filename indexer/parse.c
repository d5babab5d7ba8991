/*
 * parse.c - the tree-sitter driver: parses one file, runs the language's
 * tags query (applying its predicates, which the C API leaves to us) or the
 * walk that stands for it (mi_lang_row.extract), and
 * turns the matches into symbols with spans, parents, signatures, doc
 * comments and call references; ERROR/MISSING nodes become diagnostics.
 *
 * Query conventions (indexer/queries/<lang>.scm):
 *   @definition.<kind>  the whole definition (kinds: function method class
 *                       struct union enum trait interface protocol module
 *                       namespace impl constant variable field property macro
 *                       typedef type enumerator prototype heading object)
 *   @name               the name node of that definition or reference
 *   @body               optional: the body node, when the grammar has no
 *                       "body" field
 *   @doc                optional: a documentation node (docstring)
 *   @reference.call | .type | .import | .impl | .value   a reference, with
 *                       @name; .value is a function named as a value (a
 *                       callback argument, an initializer, a method value)
 *   @local              a parameter or variable name local to the function
 *                       around it: a .value reference there to the same
 *                       name is dropped
 *   @scan.calls         unparsed text (a macro body) whose `name(` are calls;
 *                       @params, optional, the macro's parameters (not calls)
 * The first pattern that captures a node as a definition wins.
 */
#include "indexer_int.h"

#include <ctype.h>
#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tree_sitter/api.h>

#define MI_MAX_DIAGS 50          /* per file */
#define MI_MAX_SIG 400           /* bytes of a folded signature */
#define MI_MAX_DOC 1200          /* bytes of a doc comment */
#define MI_DOC_LINES_MAX 4096    /* comment nodes of one doc block */
#define MI_PARSE_TIMEOUT_NS (5ull * 1000000000ull)
/* Definitions found before the deadline that become symbols all the same:
 * a file cut while its tags were read still gets its outline's start. */
#define MI_SYMS_PAST_DEADLINE 256

/* Per-language compiled query, built once. */
typedef struct mi_compiled {
	TSQuery *q;              /* NULL when the query failed to compile */
	regex_t **re;            /* per predicate-step string id, lazily, by pattern */
	pthread_mutex_t mu;      /* guards lazy regex compilation */
	char *error;             /* compile error, for messages */
} mi_compiled;

static mi_compiled compiled[MI_LANG__COUNT];
static int once_lang; /* passed to init via a lock below */
static pthread_mutex_t once_mu = PTHREAD_MUTEX_INITIALIZER;

struct mi_ts_ctx {
	const char *src;         /* file text (after any BOM) */
	const char *ptext;       /* the same bytes as the parser read them (prefilter) */
	size_t len;              /* its length */
	uint32_t base;           /* bytes skipped before src (BOM) */
	mi_parsed *p;            /* output */
	const mi_lang_row *row;  /* language */
	struct def_tmp *defs;    /* definitions found so far (ts_extract) */
	size_t ndefs, capdefs;
	uint32_t npatterns;      /* the query's pattern count */
	TSNode def;              /* the definition being made into a symbol */
	mi_buf scratch;          /* text with comments blanked (mi_ts_uncomment) */
	struct ref_set *rs;      /* references and locals found so far */
	const struct timespec *deadline; /* the extraction's: as long again as the parse's */
	bool late;               /* the extraction stopped at the deadline */
	size_t sym0;             /* the first symbol this extraction makes (an
				  * embedded block's follow the file's) */
	const TSRange *range;    /* the one range parsed (an embedded block), or NULL */
	struct { TSRange r; int lang; } *embeds; /* blocks found (mi_ts_embed) */
	size_t nembeds;
	uint32_t embeds_cut;     /* the line of the first block past MI_EMBED_MAX, or 0 */
};

typedef struct def_tmp {
	TSNode node;             /* definition node */
	TSNode name;             /* name node */
	TSNode body;             /* body node or null */
	TSNode doc;              /* doc node or null */
	int kind;                /* mi_kind */
	uint32_t pattern;        /* query pattern index */
} def_tmp;

typedef struct ref_tmp {
	uint32_t start, end;     /* the referenced name's bytes */
	TSPoint at;              /* where it starts */
	int kind;                /* MI_REF_* */
} ref_tmp;

/* References and local names found so far in one file. */
typedef struct ref_set {
	ref_tmp *v;              /* references, in match order */
	size_t n, cap;
	uint32_t (*locals)[2];   /* [start, end) of each @local name */
	size_t nlocals, caplocals;
} ref_set;

static void compile_lang(void)
{
	int id = once_lang;
	const mi_lang_row *row = mi_lang_row_get(id);
	mi_compiled *c = &compiled[id];
	uint32_t off;
	TSQueryError qe;
	pthread_mutex_init(&c->mu, NULL);
	c->q = ts_query_new(row->ts(), row->query, (uint32_t)strlen(row->query), &off, &qe);
	if (!c->q) {
		mi_buf b = {0};
		mi_buf_addf(&b, "query for %s: error %d at byte %u", row->name, (int)qe, off);
		c->error = mi_buf_detach(&b);
		return;
	}
	c->re = mi_xcalloc(ts_query_string_count(c->q), sizeof(regex_t *));
}

static mi_compiled *get_compiled(int id)
{
	/* pthread_once has no argument: serialise through a mutex instead. */
	pthread_mutex_lock(&once_mu);
	if (!compiled[id].q && !compiled[id].error) {
		once_lang = id;
		compile_lang();
	}
	pthread_mutex_unlock(&once_mu);
	return &compiled[id];
}

/* Text of the node (owned by ctx->src). */
static const char *node_text(mi_ts_ctx *c, TSNode n, uint32_t *len)
{
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	if (s > c->len)
		s = (uint32_t)c->len;
	if (e > c->len)
		e = (uint32_t)c->len;
	*len = e > s ? e - s : 0;
	return c->src + s;
}

static regex_t *get_regex(mi_compiled *c, uint32_t str_id)
{
	regex_t *re;
	pthread_mutex_lock(&c->mu);
	re = c->re[str_id];
	if (!re) {
		uint32_t n;
		const char *pat = ts_query_string_value_for_id(c->q, str_id, &n);
		char *tmp = mi_xstrndup(pat, n);
		re = mi_xmalloc(sizeof(*re));
		if (regcomp(re, tmp, REG_EXTENDED | REG_NOSUB)) {
			/* An invalid pattern never matches. */
			regcomp(re, "$^x", REG_EXTENDED | REG_NOSUB);
		}
		free(tmp);
		c->re[str_id] = re;
	}
	pthread_mutex_unlock(&c->mu);
	return re;
}

static const TSNode *capture_node(const TSQueryMatch *m, uint32_t id)
{
	for (uint16_t i = 0; i < m->capture_count; i++)
		if (m->captures[i].index == id)
			return &m->captures[i].node;
	return NULL;
}

/* Applies the text predicates of the match's pattern: #eq? #not-eq? #match?
 * #not-match? #any-of? #not-any-of?.  Unknown predicates pass. */
static bool predicates_hold(mi_ts_ctx *c, mi_compiled *mc, const TSQueryMatch *m)
{
	uint32_t nsteps;
	const TSQueryPredicateStep *st =
		ts_query_predicates_for_pattern(mc->q, m->pattern_index, &nsteps);
	uint32_t i = 0;
	while (i < nsteps) {
		uint32_t j = i;
		while (j < nsteps && st[j].type != TSQueryPredicateStepTypeDone)
			j++;
		if (j - i >= 3 && st[i].type == TSQueryPredicateStepTypeString &&
		    st[i + 1].type == TSQueryPredicateStepTypeCapture) {
			uint32_t n;
			const char *op = ts_query_string_value_for_id(mc->q, st[i].value_id, &n);
			const TSNode *node = capture_node(m, st[i + 1].value_id);
			if (node) {
				uint32_t tl;
				const char *t = node_text(c, *node, &tl);
				bool neg = !strncmp(op, "not-", 4);
				const char *base = neg ? op + 4 : op;
				bool ok = true;
				if (!strcmp(base, "eq?")) {
					uint32_t vl;
					const char *v;
					if (st[i + 2].type == TSQueryPredicateStepTypeCapture) {
						const TSNode *o = capture_node(m, st[i + 2].value_id);
						v = o ? node_text(c, *o, &vl) : "";
						if (!o)
							vl = 0;
					} else {
						v = ts_query_string_value_for_id(mc->q, st[i + 2].value_id, &vl);
					}
					ok = vl == tl && !memcmp(v, t, tl);
				} else if (!strcmp(base, "match?")) {
					regex_t *re = get_regex(mc, st[i + 2].value_id);
					char small[256];
					char *tmp = tl < sizeof(small) ? small : mi_xmalloc(tl + 1);
					memcpy(tmp, t, tl);
					tmp[tl] = 0;
					ok = regexec(re, tmp, 0, NULL, 0) == 0;
					if (tmp != small)
						free(tmp);
				} else if (!strcmp(base, "any-of?")) {
					ok = false;
					for (uint32_t k = i + 2; k < j; k++) {
						uint32_t vl;
						const char *v = ts_query_string_value_for_id(mc->q, st[k].value_id, &vl);
						if (vl == tl && !memcmp(v, t, tl)) {
							ok = true;
							break;
						}
					}
				}
				if (neg ? ok : !ok)
					return false;
			}
		}
		i = j + 1;
	}
	return true;
}

static int kind_from_capture(const char *k, uint32_t n)
{
	static const struct { const char *name; int kind; } map[] = {
		{"function", MI_KIND_FUNCTION}, {"method", MI_KIND_METHOD},
		{"class", MI_KIND_CLASS}, {"object", MI_KIND_CLASS},
		{"struct", MI_KIND_STRUCT}, {"union", MI_KIND_UNION},
		{"enum", MI_KIND_ENUM}, {"trait", MI_KIND_TRAIT},
		{"interface", MI_KIND_TRAIT}, {"protocol", MI_KIND_TRAIT},
		{"module", MI_KIND_MODULE}, {"namespace", MI_KIND_MODULE},
		{"impl", MI_KIND_MODULE}, {"constant", MI_KIND_CONSTANT},
		{"variable", MI_KIND_VARIABLE}, {"field", MI_KIND_FIELD},
		{"property", MI_KIND_FIELD}, {"macro", MI_KIND_MACRO},
		{"typedef", MI_KIND_TYPEDEF}, {"type", MI_KIND_TYPEDEF},
		{"enumerator", MI_KIND_ENUMERATOR}, {"prototype", MI_KIND_PROTOTYPE},
		{"heading", MI_KIND_HEADING}, {"pointcut", MI_KIND_POINTCUT},
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strlen(map[i].name) == n && !memcmp(map[i].name, k, n))
			return map[i].kind;
	return MI_KIND_NONE;
}

static int ref_kind_from_capture(const char *k, uint32_t n)
{
	if (n == 4 && !memcmp(k, "call", 4))
		return MI_REF_CALL;
	if ((n == 4 && !memcmp(k, "type", 4)) || (n == 5 && !memcmp(k, "class", 5)))
		return MI_REF_TYPE;
	if (n == 6 && !memcmp(k, "import", 6))
		return MI_REF_IMPORT;
	if (n == 4 && !memcmp(k, "impl", 4))
		return MI_REF_IMPL;
	if (n == 5 && !memcmp(k, "value", 5))
		return MI_REF_VALUE;
	return -1;
}

/* Body node of a definition: the @body capture, the "body" field, or a child
 * whose type says it is a block. */
static TSNode find_body(TSNode def)
{
	TSNode b = ts_node_child_by_field_name(def, "body", 4);
	if (!ts_node_is_null(b))
		return b;
	/* the last such child (one cursor pass: ts_node_child(i) walks the
	 * children before i each time) */
	TSNode last = {{0}, 0, 0};
	TSTreeCursor cur = ts_tree_cursor_new(def);
	for (bool more = ts_tree_cursor_goto_first_child(&cur); more;
	     more = ts_tree_cursor_goto_next_sibling(&cur)) {
		TSNode ch = ts_tree_cursor_current_node(&cur);
		const char *t = ts_node_type(ch);
		if (strstr(t, "block") || strstr(t, "body") ||
		    strstr(t, "declaration_list") || strstr(t, "compound_statement") ||
		    !strcmp(t, "enumerator_list") || !strcmp(t, "field_declaration_list"))
			last = ch;
	}
	ts_tree_cursor_delete(&cur);
	return last;
}

static bool is_comment(TSNode n)
{
	const char *t = ts_node_type(n);
	return strstr(t, "comment") != NULL;
}

/* Appends to out the [start, end) ranges of the comments inside [a, b) of
 * the parsed text, searching below node n (which holds [a, b)). */
static void comments_in(TSNode n, uint32_t a, uint32_t b, mi_buf *out)
{
	TSTreeCursor cur = ts_tree_cursor_new(n);
	int depth = 0;
	bool more = ts_tree_cursor_goto_first_child_for_byte(&cur, a) >= 0;
	while (more) {
		TSNode x = ts_tree_cursor_current_node(&cur);
		uint32_t xs = ts_node_start_byte(x), xe = ts_node_end_byte(x);
		if (xs < b && xe > a) {
			if (is_comment(x)) {
				uint32_t r[2] = {xs < a ? a : xs, xe > b ? b : xe};
				mi_buf_add(out, (const char *)r, sizeof(r));
			} else if (depth < 64 && ts_tree_cursor_goto_first_child(&cur)) {
				depth++;
				continue;
			}
		}
		/* next node: a sibling still before b, else up and on */
		while (!(xs < b && ts_tree_cursor_goto_next_sibling(&cur))) {
			if (depth == 0 || !ts_tree_cursor_goto_parent(&cur)) {
				more = false;
				break;
			}
			depth--;
			xs = 0;
		}
	}
	ts_tree_cursor_delete(&cur);
}

const char *mi_ts_uncomment(mi_ts_ctx *c, uint32_t a, uint32_t b)
{
	if (b > c->len)
		b = (uint32_t)c->len;
	if (a >= b)
		return c->src + a;
	/* C, C++ and devicetree comments open with // or slash-star: text
	 * without either holds none (a comment node cannot straddle the node
	 * boundaries a and b are), and the tree need not be searched. */
	if (c->row->id == MI_LANG_C || c->row->id == MI_LANG_CPP || c->row->id == MI_LANG_DEVICETREE) {
		const char *s = c->src, *q = s + a, *e = s + b - 1;
		while (q < e && (q = memchr(q, '/', (size_t)(e - q))) && q[1] != '/' && q[1] != '*')
			q++;
		if (!q || q >= e)
			return c->src + a;
	}
	/* the smallest node known to hold [a, b): the definition or above */
	TSNode n = c->def;
	while (!ts_node_is_null(n) && (ts_node_start_byte(n) > a || ts_node_end_byte(n) < b))
		n = ts_node_parent(n);
	if (ts_node_is_null(n))
		return c->src + a;
	mi_buf r = {0};
	comments_in(n, a, b, &r);
	if (!r.len) {
		mi_buf_release(&r);
		return c->src + a;
	}
	mi_buf_reset(&c->scratch);
	mi_buf_add(&c->scratch, c->src + a, b - a);
	for (size_t i = 0; i + 2 * sizeof(uint32_t) <= r.len; i += 2 * sizeof(uint32_t)) {
		uint32_t k[2];
		memcpy(k, r.buf + i, sizeof(k));
		memset(c->scratch.buf + (k[0] - a), ' ', k[1] - k[0]);
	}
	mi_buf_release(&r);
	return c->scratch.buf;
}

/* Folds runs of white space into one space, trims, drops a trailing
 * '{' or ':' or '=>' opener. */
static const char *fold_sig(mi_ts_ctx *c, uint32_t a, uint32_t b)
{
	size_t n = b > a ? b - a : 0;
	char small[MI_MAX_SIG + 8];
	size_t o = 0, i = 0, w = 0;
	bool space = false;
	/* The fold stops after MI_MAX_SIG bytes, often long before b (a
	 * definition without a body spans its whole text), so comments are
	 * blanked in a window from a, widened only when the fold reaches its
	 * end.  A window's text is the whole span's, its comments clipped,
	 * but for its last byte: a comment opening there may be missed by
	 * mi_ts_uncomment's look for its two opening characters. */
	for (size_t win = 1024; o < MI_MAX_SIG && w < n; win *= 4) {
		w = win < n ? win : n;
		const char *s = mi_ts_uncomment(c, a, a + (uint32_t)w);
		size_t upto = w < n ? w - 1 : w;
		for (; i < upto && o < MI_MAX_SIG; i++) {
			unsigned char ch = (unsigned char)s[i];
			if (ch == '\n' || ch == '\r' || ch == '\t' || ch == ' ' || ch == '\f' || ch == '\v') {
				space = o > 0;
				continue;
			}
			if (space) {
				/* No space after '(' or before ')' ',': keeps signatures tight. */
				char prev = small[o - 1];
				if (prev != '(' && prev != '[' && ch != ')' && ch != ',' && ch != ']')
					small[o++] = ' ';
				space = false;
			}
			small[o++] = (char)ch;
		}
	}
	if (o >= MI_MAX_SIG && n > o) {
		o = mi_utf8_clip(small, o); /* the cap may fall inside a character */
		memcpy(small + o, "...", 3);
		o += 3;
	}
	while (o > 0 && (small[o - 1] == '{' || small[o - 1] == ':' || small[o - 1] == ' '))
		o--;
	if (o >= 2 && small[o - 1] == '>' && small[o - 2] == '=')
		o -= 2;
	while (o > 0 && small[o - 1] == ' ')
		o--;
	return mi_parsed_strndup(c->p, small, o);
}

/* Strips comment markers from one comment's text, appending lines to out. */
static void strip_comment(const char *s, size_t n, mi_buf *out)
{
	size_t i = 0;
	while (i < n) {
		size_t e = i;
		while (e < n && s[e] != '\n')
			e++;
		size_t a = i, z = e;
		while (a < z && isspace((unsigned char)s[a]))
			a++;
		/* leading markers */
		if (z - a >= 3 && !memcmp(s + a, "/**", 3)) a += 3;
		else if (z - a >= 3 && !memcmp(s + a, "///", 3)) a += 3;
		else if (z - a >= 3 && !memcmp(s + a, "//!", 3)) a += 3;
		else if (z - a >= 2 && (!memcmp(s + a, "/*", 2) || !memcmp(s + a, "//", 2))) a += 2;
		else if (z - a >= 2 && !memcmp(s + a, "##", 2)) a += 2;
		else if (z - a >= 1 && (s[a] == '#' || s[a] == '*' || s[a] == ';')) a += 1;
		else if (z - a >= 2 && !memcmp(s + a, "--", 2)) a += 2;
		while (z > a && isspace((unsigned char)s[z - 1]))
			z--;
		if (z - a >= 2 && !memcmp(s + z - 2, "*/", 2))
			z -= 2;
		while (z > a && (s[z - 1] == '*' || isspace((unsigned char)s[z - 1])))
			z--;
		while (a < z && isspace((unsigned char)s[a]))
			a++;
		if (z > a) {
			if (out->len)
				mi_buf_addc(out, '\n');
			mi_buf_add(out, s + a, z - a);
		}
		i = e + 1;
	}
}

/* false when no comment can end right before byte `at` of the text the
 * C, C++ and devicetree grammars read (their comments are // to an
 * unescaped newline and slash-star to star-slash; only whitespace and
 * escaped newlines may separate a comment from the node after it), so the
 * node before the one starting at `at` is no comment.  true otherwise, and
 * for other grammars: then the tree is asked. */
static bool comment_may_precede(const mi_ts_ctx *c, uint32_t at)
{
	int id = c->row->id;
	if (id != MI_LANG_C && id != MI_LANG_CPP && id != MI_LANG_DEVICETREE)
		return true;
	const unsigned char *s = (const unsigned char *)c->ptext;
	uint32_t q = at <= c->len ? at : (uint32_t)c->len;
	while (q > 0 && (s[q - 1] == ' ' || s[q - 1] == '\t' || s[q - 1] == '\n' || s[q - 1] == '\r' ||
			 s[q - 1] == '\f' || s[q - 1] == '\v' || s[q - 1] == '\\'))
		q--;
	if (!q)
		return false;
	if (s[q - 1] == '/' || s[q - 1] >= 0x80)
		return true; /* a star-slash, or other whitespace the grammar knows */
	/* a line comment: "//" earlier on the same (backslash-joined) line */
	for (uint32_t p = q - 1; p > 0; p--) {
		if (s[p] == '\n' && s[p - 1] != '\\' && !(s[p - 1] == '\r' && p > 1 && s[p - 2] == '\\'))
			return false;
		if (s[p - 1] == '/' && s[p] == '/')
			return true;
	}
	return false;
}

static TSNode prev_maybe_comment(const mi_ts_ctx *c, TSNode n)
{
	if (!comment_may_precede(c, ts_node_start_byte(n))) {
		TSNode null = {{0}, 0, 0};
		return null;
	}
	return ts_node_prev_sibling(n);
}

/* Appends to b the text of the comments that end right above anchor, prev
 * the node before it: every comment line of the block (a Go doc comment is
 * one node per line and may run to a hundred lines; its first sentence is
 * the one that says what the definition does), markers stripped. */
static void doc_block(mi_ts_ctx *c, TSNode anchor, TSNode prev, mi_buf *b)
{
	TSNode stack_items[64], *items = stack_items;
	int nitems = 0, cap = 64;
	uint32_t want_row = ts_node_start_point(anchor).row;
	while (!ts_node_is_null(prev) && is_comment(prev) && nitems < MI_DOC_LINES_MAX) {
		uint32_t end_row = ts_node_end_point(prev).row;
		TSPoint ep = ts_node_end_point(prev);
		/* line comments include their newline in some grammars */
		if (ep.column == 0 && end_row > 0)
			end_row--;
		if (end_row + 1 < want_row)
			break;
		/* a comment after code on the same line belongs to that code
		 * (a node that ends at its column 0 ended on the line above
		 * with the newline it holds: Rust's line comments) */
		TSNode before = ts_node_prev_sibling(prev);
		if (!ts_node_is_null(before) && ts_node_end_point(before).column > 0 &&
		    ts_node_end_point(before).row == ts_node_start_point(prev).row)
			break;
		if (nitems == cap) {
			cap *= 2;
			items = items == stack_items
				? memcpy(mi_xmalloc((size_t)cap * sizeof(*items)), stack_items, sizeof(stack_items))
				: mi_xrealloc(items, (size_t)cap * sizeof(*items));
		}
		items[nitems++] = prev;
		want_row = ts_node_start_point(prev).row;
		prev = before;
	}
	for (int i = nitems - 1; i >= 0 && b->len <= MI_MAX_DOC; i--) {
		uint32_t n;
		const char *t = node_text(c, items[i], &n);
		strip_comment(t, n, b);
	}
	if (items != stack_items)
		free(items);
}

/* The doc text of b, at most MI_MAX_DOC bytes and not cut inside a UTF-8
 * sequence, owned by the parse; NULL when empty.  Releases b. */
static const char *doc_finish(mi_ts_ctx *c, mi_buf *b)
{
	const char *r = NULL;

	if (b->len > MI_MAX_DOC)
		b->len = mi_utf8_cut(b->buf, MI_MAX_DOC);
	if (b->len)
		r = mi_parsed_strndup(c->p, b->buf, b->len);
	mi_buf_release(b);
	return r;
}

/* Doc comment: comments immediately above the definition (or above the
 * wrapper it sits in: export, decorator, template, attribute), or a docstring
 * captured as @doc. */
static const char *find_doc(mi_ts_ctx *c, TSNode def, TSNode doc)
{
	mi_buf b = {0};
	const char *r;
	if (!ts_node_is_null(doc)) {
		uint32_t n;
		const char *t = node_text(c, doc, &n);
		/* strip quotes of a docstring */
		size_t a = 0, z = n;
		while (a < z && (t[a] == '"' || t[a] == '\'' || t[a] == 'r' || t[a] == 'b'))
			a++;
		while (z > a && (t[z - 1] == '"' || t[z - 1] == '\''))
			z--;
		strip_comment(t + a, z - a, &b);
		goto out;
	}
	/* The node before (null when it is surely no comment: only a
	 * comment matters below). */
	TSNode anchor = def, prev = prev_maybe_comment(c, anchor);
	for (int up = 0; up < 3; up++) {
		if (!ts_node_is_null(prev) && is_comment(prev))
			break;
		TSNode parent = ts_node_parent(anchor);
		if (ts_node_is_null(parent))
			break;
		/* Only climb through wrappers that start where the definition does
		 * (PowerShell's statement_list around a file's first function)
		 * or hold only decorators/attributes before it. */
		const char *pt = ts_node_type(parent);
		if (!(strstr(pt, "export") || strstr(pt, "decorated") ||
		      strstr(pt, "template") || strstr(pt, "attribute") ||
		      strstr(pt, "annotated") ||
		      ts_node_start_byte(parent) == ts_node_start_byte(anchor)))
			break;
		anchor = parent;
		prev = prev_maybe_comment(c, anchor);
	}
	doc_block(c, anchor, prev, &b);
out:
	r = doc_finish(c, &b);
	return r ? r : "";
}

/* The doc comment of the block right above n, however many comment lines
 * it runs over (Rust writes one /// per line): NULL when none. */
const char *mi_ts_doc_above(mi_ts_ctx *c, TSNode n)
{
	mi_buf b = {0};

	doc_block(c, n, prev_maybe_comment(c, n), &b);
	return doc_finish(c, &b);
}

/* Name of a definition with no @name capture: follow "declarator" fields
 * (C/C++ declarators nest), then "name", then the first named child. */
static TSNode find_name(TSNode def)
{
	TSNode n = def;
	for (int depth = 0; depth < 12; depth++) {
		const char *t = ts_node_type(n);
		if (depth > 0 && (strstr(t, "identifier") || !strcmp(t, "name") ||
				  !strcmp(t, "word") || !strcmp(t, "constant")))
			return n;
		TSNode next = ts_node_child_by_field_name(n, "declarator", 10);
		if (ts_node_is_null(next))
			next = ts_node_child_by_field_name(n, "name", 4);
		if (ts_node_is_null(next) && depth > 0 && ts_node_named_child_count(n) > 0)
			next = ts_node_named_child(n, 0);
		if (ts_node_is_null(next))
			break;
		n = next;
	}
	return def;
}

static int cmp_def(const void *a, const void *b)
{
	const def_tmp *x = a, *y = b;
	uint32_t xs = ts_node_start_byte(x->node), ys = ts_node_start_byte(y->node);
	if (xs != ys)
		return xs < ys ? -1 : 1;
	uint32_t xe = ts_node_end_byte(x->node), ye = ts_node_end_byte(y->node);
	if (xe != ye)
		return xe > ye ? -1 : 1; /* outer first */
	return x->pattern < y->pattern ? -1 : x->pattern > y->pattern;
}

static int cmp_ref(const void *a, const void *b)
{
	uint32_t x = ((const ref_tmp *)a)->start;
	uint32_t y = ((const ref_tmp *)b)->start;
	return x < y ? -1 : x > y;
}

static uint32_t end_line_of(TSNode n)
{
	TSPoint s = ts_node_start_point(n), e = ts_node_end_point(n);
	if (e.column == 0 && e.row > s.row)
		return e.row;
	return e.row + 1;
}

/* Records ERROR and MISSING nodes as diagnostics (bounded). */
static void collect_errors(mi_ts_ctx *c, TSNode root)
{
	if (!ts_node_has_error(root))
		return;
	TSTreeCursor cur = ts_tree_cursor_new(root);
	size_t n = 0;
	for (;;) {
		TSNode node = ts_tree_cursor_current_node(&cur);
		/* An ERROR node over several lines may hide the real error deeper
		 * down: report it and look inside. */
		bool descend = ts_node_has_error(node) &&
			       (!ts_node_is_error(node) ||
				ts_node_end_point(node).row > ts_node_start_point(node).row);
		if (ts_node_is_error(node) || ts_node_is_missing(node)) {
			if (n < MI_MAX_DIAGS) {
				mi_diag *d = mi_parsed_add_diag(c->p);
				d->line = ts_node_start_point(node).row + 1;
				d->severity = 'E';
				mi_buf m = {0};
				if (ts_node_is_missing(node)) {
					mi_buf_addf(&m, "syntax error: missing '%s'", ts_node_type(node));
				} else {
					uint32_t tl;
					const char *t = node_text(c, node, &tl);
					size_t k = 0;
					while (k < tl && k < 24 && t[k] != '\n')
						k++;
					mi_buf_adds(&m, "syntax error: unexpected '");
					mi_buf_add(&m, t, k);
					mi_buf_adds(&m, k < tl ? "...'" : "'");
				}
				d->msg = mi_parsed_strndup(c->p, m.buf, m.len);
				mi_buf_release(&m);
			}
			n++;
		}
		if (descend && ts_tree_cursor_goto_first_child(&cur))
			continue;
		while (!ts_tree_cursor_goto_next_sibling(&cur)) {
			if (!ts_tree_cursor_goto_parent(&cur))
				goto done;
		}
	}
done:
	ts_tree_cursor_delete(&cur);
	if (n > MI_MAX_DIAGS) {
		mi_diag *d = mi_parsed_add_diag(c->p);
		d->line = 0;
		d->severity = 'E';
		mi_buf m = {0};
		mi_buf_addf(&m, "%zu more syntax errors not shown", n - MI_MAX_DIAGS);
		d->msg = mi_parsed_strndup(c->p, m.buf, m.len);
		mi_buf_release(&m);
	}
}

/* When a parse gives up: MI_PARSE_TIMEOUT_NS from now, or
 * MCPIDX_PARSE_TIMEOUT_MS milliseconds (it exists so tests can make a parse
 * fail). */
static void parse_deadline(struct timespec *d)
{
	const char *env = getenv("MCPIDX_PARSE_TIMEOUT_MS");
	uint64_t ns = env && *env ? strtoull(env, NULL, 10) * 1000000ull : MI_PARSE_TIMEOUT_NS;
	clock_gettime(CLOCK_MONOTONIC, d);
	ns += (uint64_t)d->tv_nsec;
	d->tv_sec += (time_t)(ns / 1000000000ull);
	d->tv_nsec = (long)(ns % 1000000000ull);
}

static bool past_deadline(const struct timespec *deadline)
{
	struct timespec now;
	if (!deadline)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > deadline->tv_sec ||
	       (now.tv_sec == deadline->tv_sec && now.tv_nsec > deadline->tv_nsec);
}

static bool parse_timeout(TSParseState *state)
{
	return past_deadline(state->payload);
}

/* Whether the extraction is past the parse's deadline, looked at every
 * 64th step: a tree nested thousands deep makes every parent lookup walk
 * down from the root (5,000 nested JavaScript functions took 8 s). */
static bool extract_late(mi_ts_ctx *c, size_t step)
{
	if (!c->late && (step & 63) == 0 && past_deadline(c->deadline))
		c->late = true;
	return c->late;
}

static const char *ts_read(void *payload, uint32_t byte, TSPoint pos, uint32_t *n)
{
	mi_ts_ctx *c = payload;
	(void)pos;
	if (byte >= c->len) {
		*n = 0;
		return "";
	}
	*n = (uint32_t)(c->len - byte);
	return c->src + byte;
}

static void add_def(mi_ts_ctx *c, TSNode defn, TSNode name, TSNode body, TSNode doc,
		    int kind, uint32_t pattern)
{
	if (c->ndefs == c->capdefs) {
		c->capdefs = c->capdefs ? c->capdefs * 2 : 64;
		c->defs = mi_xrealloc(c->defs, c->capdefs * sizeof(*c->defs));
	}
	def_tmp *d = &c->defs[c->ndefs++];
	d->node = defn;
	/* A captured declarator (C: *p, a[3]) names through to its
	 * identifier. */
	if (!ts_node_is_null(name) && strstr(ts_node_type(name), "declarator"))
		name = find_name(name);
	d->name = ts_node_is_null(name) ? find_name(defn) : name;
	d->body = body;
	d->doc = doc;
	d->kind = kind;
	d->pattern = pattern;
}

void mi_ts_add_def(mi_ts_ctx *c, void *def, void *name, void *body, int kind, int order)
{
	TSNode none = {{0}, 0, 0};
	add_def(c, *(TSNode *)def, name ? *(TSNode *)name : none, body ? *(TSNode *)body : none,
		none, kind, c->npatterns + (uint32_t)order);
}

static void add_ref_at(ref_set *rs, uint32_t start, uint32_t end, TSPoint at, int kind)
{
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 64;
		rs->v = mi_xrealloc(rs->v, rs->cap * sizeof(*rs->v));
	}
	rs->v[rs->n++] = (ref_tmp){start, end, at, kind};
}

static void add_local(ref_set *rs, TSNode n)
{
	if (rs->nlocals == rs->caplocals) {
		rs->caplocals = rs->caplocals ? rs->caplocals * 2 : 64;
		rs->locals = mi_xrealloc(rs->locals, rs->caplocals * sizeof(*rs->locals));
	}
	rs->locals[rs->nlocals][0] = ts_node_start_byte(n);
	rs->locals[rs->nlocals][1] = ts_node_end_byte(n);
	rs->nlocals++;
}

void mi_ts_add_match(mi_ts_ctx *c, void *def, void *name, void *body, int kind, int pattern)
{
	TSNode none = {{0}, 0, 0};
	add_def(c, *(TSNode *)def, name ? *(TSNode *)name : none, body ? *(TSNode *)body : none,
		none, kind, (uint32_t)pattern);
}

void mi_ts_add_ref(mi_ts_ctx *c, void *name, int kind)
{
	TSNode n = *(TSNode *)name;
	add_ref_at(c->rs, ts_node_start_byte(n), ts_node_end_byte(n), ts_node_start_point(n), kind);
}

void mi_ts_add_local(mi_ts_ctx *c, void *name)
{
	add_local(c->rs, *(TSNode *)name);
}

static bool ident_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_' || ch == '$';
}

/* Words of C-like macro bodies that are followed by '(' without being
 * calls. */
static const char *const not_calls[] = {
	"if", "while", "for", "switch", "return", "sizeof", "typeof", "__typeof__",
	"__typeof", "alignof", "_Alignof", "__alignof__", "defined", "do", "case",
	"else", "_Generic", "_Static_assert", "static_assert", "asm", "__asm__",
	"__asm", "volatile", "__volatile__", "__attribute__", "__attribute",
	"offsetof", "__builtin_offsetof", "__builtin_constant_p", "__builtin_expect",
	"__builtin_choose_expr", "__builtin_types_compatible_p", "__stringify",
	"likely", "unlikely", NULL,
};

/* Calls written in the unparsed text of node n (a macro's body): every
 * identifier followed by '(' that is not a keyword, a parameter of the
 * macro (names in params, a node or null) or glued by ##.  Strings,
 * character literals and comments are skipped. */
static void scan_calls(mi_ts_ctx *c, TSNode n, TSNode params, ref_set *rs)
{
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	TSPoint at = ts_node_start_point(n);
	uint32_t pa = ts_node_is_null(params) ? 0 : ts_node_start_byte(params);
	uint32_t pb = ts_node_is_null(params) ? 0 : ts_node_end_byte(params);
	const char *s = c->src;
	if (b > c->len)
		b = (uint32_t)c->len;
	for (uint32_t i = a; i < b;) {
		char ch = s[i];
		if (ch == '\n') {
			at.row++;
			at.column = 0;
			i++;
			continue;
		}
		if (ch == '"' || ch == '\'') {
			uint32_t j = i + 1;
			while (j < b && s[j] != ch && s[j] != '\n')
				j += s[j] == '\\' && j + 1 < b && s[j + 1] != '\n' ? 2 : 1;
			at.column += (j < b ? j + 1 : b) - i;
			i = j < b && s[j] == ch ? j + 1 : j;
			continue;
		}
		if (ch == '/' && i + 1 < b && s[i + 1] == '*') {
			uint32_t j = i + 2;
			while (j + 1 < b && !(s[j] == '*' && s[j + 1] == '/')) {
				if (s[j] == '\n') {
					at.row++;
					at.column = 0;
				} else {
					at.column++;
				}
				j++;
			}
			at.column += 4;
			i = j + 2;
			continue;
		}
		if (ch == '/' && i + 1 < b && s[i + 1] == '/') {
			while (i < b && s[i] != '\n')
				i++;
			continue;
		}
		if (!ident_char(ch) || (ch >= '0' && ch <= '9')) {
			at.column++;
			i++;
			continue;
		}
		uint32_t j = i;
		while (j < b && ident_char(s[j]))
			j++;
		uint32_t k = j;
		while (k < b && (s[k] == ' ' || s[k] == '\t'))
			k++;
		bool pasted = (i >= a + 2 && s[i - 1] == '#' && s[i - 2] == '#') ||
			      (j + 1 < b && s[j] == '#' && s[j + 1] == '#');
		bool call = k < b && s[k] == '(' && !pasted && !(i > a && s[i - 1] == '#');
		for (size_t w = 0; call && not_calls[w]; w++)
			if (strlen(not_calls[w]) == j - i && !memcmp(not_calls[w], s + i, j - i))
				call = false;
		if (call && pb > pa) {
			/* a parameter of the macro called as a function */
			for (uint32_t p = pa; p + (j - i) <= pb; p++)
				if (!memcmp(s + p, s + i, j - i) && (p == pa || !ident_char(s[p - 1])) &&
				    (p + (j - i) == pb || !ident_char(s[p + (j - i)]))) {
					call = false;
					break;
				}
		}
		if (call)
			add_ref_at(rs, i, j, at, MI_REF_CALL);
		at.column += j - i;
		i = j;
	}
}

void mi_ts_scan_calls(mi_ts_ctx *c, void *text, void *params)
{
	TSNode none = {{0}, 0, 0};
	scan_calls(c, *(TSNode *)text, params ? *(TSNode *)params : none, c->rs);
}

/* true if a @local name equal to the text of [start, end) lies inside
 * [from, to). */
static bool local_named(mi_ts_ctx *c, const ref_set *rs, uint32_t start, uint32_t end,
			uint32_t from, uint32_t to)
{
	size_t lo = 0, hi = rs->nlocals;
	while (lo < hi) { /* first local at or after from */
		size_t mid = (lo + hi) / 2;
		if (rs->locals[mid][0] < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < rs->nlocals && rs->locals[i][0] < to; i++)
		if (rs->locals[i][1] - rs->locals[i][0] == end - start &&
		    !memcmp(c->src + rs->locals[i][0], c->src + start, end - start))
			return true;
	return false;
}

static int cmp_local(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Definitions, references and locals from the matches of the language's
 * tags query. */
static void query_extract(mi_ts_ctx *c, mi_compiled *mc, TSNode root)
{
	TSQueryCursor *qc = ts_query_cursor_new();
	ts_query_cursor_set_match_limit(qc, 4096);
	ts_query_cursor_exec(qc, mc->q, root);
	TSQueryMatch m;
	for (size_t nm = 1; ts_query_cursor_next_match(qc, &m); nm++) {
		if (extract_late(c, nm))
			break;
		if (!predicates_hold(c, mc, &m))
			continue;
		TSNode name = {{0}, 0, 0}, defn = name, body = name, doc = name, params = name;
		TSNode scan = name;
		int kind = MI_KIND_NONE, rkind = -1;
		for (uint16_t i = 0; i < m.capture_count; i++) {
			uint32_t n;
			const char *cn = ts_query_capture_name_for_id(mc->q, m.captures[i].index, &n);
			if (n == 5 && !memcmp(cn, "local", 5))
				add_local(c->rs, m.captures[i].node);
			else if (n == 10 && !memcmp(cn, "scan.calls", 10))
				scan = m.captures[i].node;
			else if (n == 6 && !memcmp(cn, "params", 6))
				params = m.captures[i].node;
			else if (n == 4 && !memcmp(cn, "name", 4))
				name = m.captures[i].node;
			else if (n == 4 && !memcmp(cn, "body", 4))
				body = m.captures[i].node;
			else if (n == 3 && !memcmp(cn, "doc", 3))
				doc = m.captures[i].node;
			else if (n > 11 && !memcmp(cn, "definition.", 11)) {
				kind = kind_from_capture(cn + 11, n - 11);
				defn = m.captures[i].node;
			} else if (n > 10 && !memcmp(cn, "reference.", 10)) {
				rkind = ref_kind_from_capture(cn + 10, n - 10);
				if (ts_node_is_null(name))
					name = m.captures[i].node;
			}
		}
		if (kind != MI_KIND_NONE && !ts_node_is_null(defn)) {
			add_def(c, defn, name, body, doc, kind, m.pattern_index);
		} else if (rkind >= 0 && !ts_node_is_null(name)) {
			add_ref_at(c->rs, ts_node_start_byte(name), ts_node_end_byte(name),
				   ts_node_start_point(name), rkind);
		}
		if (!ts_node_is_null(scan))
			scan_calls(c, scan, params, c->rs);
	}
	ts_query_cursor_delete(qc);
	c->npatterns = ts_query_pattern_count(mc->q);
}

/* One parser per thread, kept between files (its stack and node pool stay
 * allocated); freed when the thread ends. */
static pthread_key_t parser_key;
static pthread_once_t parser_once = PTHREAD_ONCE_INIT;

static void parser_free(void *p)
{
	ts_parser_delete(p);
}

static void parser_key_make(void)
{
	pthread_key_create(&parser_key, parser_free);
}

static TSParser *thread_parser(void)
{
	pthread_once(&parser_once, parser_key_make);
	TSParser *p = pthread_getspecific(parser_key);
	if (!p) {
		p = ts_parser_new();
		pthread_setspecific(parser_key, p);
	}
	return p;
}

/* MCPIDX_PARSE_QUERY=1: the tags query even for a language with an
 * extract walk (the walk is checked against it). */
static bool force_query(void)
{
	const char *env = getenv("MCPIDX_PARSE_QUERY");
	return env && *env == '1';
}

/* sym's name qualified by its parents' ("a.B"): what its children's
 * parent is. */
static const char *qualified_name(mi_parsed *p, const mi_symbol *sym)
{
	if (!sym->parent[0])
		return sym->name;
	mi_buf q = {0};
	mi_buf_adds(&q, sym->parent);
	mi_buf_addc(&q, '.');
	mi_buf_adds(&q, sym->name);
	const char *r = mi_parsed_strndup(p, q.buf, q.len);
	mi_buf_release(&q);
	return r;
}

static int ts_extract(mi_ts_ctx *c)
{
	int err = 0;
	bool walk = c->row->extract && !force_query();
	mi_compiled *mc = walk ? NULL : get_compiled(c->row->id);
	if (mc && !mc->q)
		return MI_ERR_PARSE;
	TSParser *parser = thread_parser();
	TSTree *tree = NULL;
	ref_set rs = {0};
	char *prefiltered = NULL;

	const TSLanguage *lang = mi_ts_dense(c->row->id, c->row->ts());
	if (ts_parser_language(parser) != lang && !ts_parser_set_language(parser, lang)) {
		err = MI_ERR_PARSE;
		goto out;
	}
	struct timespec deadline;
	parse_deadline(&deadline);
	TSParseOptions popt = {.payload = &deadline, .progress_callback = parse_timeout};
	mi_ts_ctx parse_src = *c;
	if (c->row->prefilter)
		prefiltered = c->row->prefilter(c->src, c->len);
	if (prefiltered)
		parse_src.src = prefiltered;
	c->ptext = parse_src.src;
	TSInput input = {.payload = &parse_src, .read = ts_read, .encoding = TSInputEncodingUTF8};
	if (c->range && !ts_parser_set_included_ranges(parser, c->range, 1)) {
		err = MI_ERR_PARSE;
		goto out;
	}
	tree = ts_parser_parse_with_options(parser, NULL, input, popt);
	if (c->range)
		ts_parser_set_included_ranges(parser, NULL, 0);
	if (!tree) {
		ts_parser_reset(parser); /* a timed-out parse would resume */
		err = MI_ERR_PARSE;
		goto out;
	}
	TSNode root = ts_tree_root_node(tree);
	c->rs = &rs;
	/* The symbols get a budget of their own from the end of the parse: a
	 * parse that used most of its time (a loaded machine) left them none,
	 * and a file cut before its first symbol had no outline at all. */
	parse_deadline(&deadline);
	c->deadline = &deadline;
	c->late = false;
	if (walk) {
		c->npatterns = 0;
		c->npatterns = (uint32_t)c->row->extract(c, &root);
	} else {
		query_extract(c, mc, root);
	}
	if (c->row->walk)
		c->row->walk(c, &root);
	if (c->row->embed)
		c->row->embed(c, &root);
	def_tmp *defs = c->defs;
	size_t ndefs = c->ndefs;
	if (ndefs)
		qsort(defs, ndefs, sizeof(*defs), cmp_def);

	/* Symbols in source order, outer before inner; parents via a stack. */
	int32_t *stack = mi_xmalloc((ndefs + 1) * sizeof(*stack));
	size_t sp = 0;
	for (size_t i = 0; i < ndefs && (i < MI_SYMS_PAST_DEADLINE || !extract_late(c, i + 1));
	     i++) {
		def_tmp *d = &defs[i];
		uint32_t sb = ts_node_start_byte(d->node), eb = ts_node_end_byte(d->node);
		/* The same node again: from a later pattern it is a duplicate; from
		 * the same pattern with another name it is one more declarator of a
		 * declaration such as `int x, y;`. */
		if (i > 0 && ts_node_eq(defs[i - 1].node, d->node) &&
		    (defs[i - 1].pattern != d->pattern || ts_node_eq(defs[i - 1].name, d->name)))
			continue;
		bool sibling = i > 0 && ts_node_eq(defs[i - 1].node, d->node);
		while (sp > 0 && c->p->syms[stack[sp - 1]].end_byte - c->base <= sb)
			sp--;
		if (sibling && sp > 0 && c->p->syms[stack[sp - 1]].start_byte - c->base == sb)
			sp--; /* a declarator beside the previous one, not inside it */
		mi_symbol *s = mi_parsed_add_sym(c->p);
		uint32_t nl;
		const char *nt = node_text(c, d->name, &nl);
		nl = (uint32_t)mi_utf8_prefix(nt, nl, 200);
		/* names never span lines */
		for (uint32_t k = 0; k < nl; k++)
			if (nt[k] == '\n') {
				nl = k;
				break;
			}
		s->name = mi_parsed_strndup(c->p, nt, nl);
		s->kind = (uint8_t)d->kind;
		s->start_line = ts_node_start_point(d->node).row + 1;
		s->end_line = end_line_of(d->node);
		s->start_byte = sb + c->base;
		s->end_byte = eb + c->base;
		TSNode body = ts_node_is_null(d->body) ? find_body(d->node) : d->body;
		uint32_t sig_end = eb;
		if (!ts_node_is_null(body) && ts_node_start_byte(body) > sb) {
			sig_end = ts_node_start_byte(body);
			s->body_byte = sig_end + c->base;
			s->body_line = ts_node_start_point(body).row + 1;
		}
		c->def = d->node;
		s->sig = fold_sig(c, sb, sig_end);
		s->doc = find_doc(c, d->node, d->doc);
		if (sp > 0) {
			int32_t pi = stack[sp - 1];
			mi_symbol *par = &c->p->syms[pi];
			s->parent_idx = pi;
			s->level = (uint8_t)(sp > 255 ? 255 : sp);
			s->parent = qualified_name(c->p, par);
		}
		if (d->kind == MI_KIND_FUNCTION && sp > 0) {
			int pk = c->p->syms[stack[sp - 1]].kind;
			if (pk == MI_KIND_CLASS || pk == MI_KIND_STRUCT || pk == MI_KIND_TRAIT ||
			    pk == MI_KIND_MODULE || pk == MI_KIND_ENUM)
				s->kind = MI_KIND_METHOD;
		}
		if (c->row->fix) {
			TSNode dn = d->node;
			c->row->fix(c, &dn, s);
			if (s->kind == MI_KIND_NONE) {
				/* The language rules dropped this match. */
				c->p->nsyms--;
				continue;
			}
		}
		stack[sp++] = (int32_t)(c->p->nsyms - 1);
	}
	free(stack);

	/* References, with the innermost enclosing symbol as caller.  A value
	 * reference to a name declared as a local of its caller (a parameter,
	 * a variable) is no reference to anything indexed. */
	ref_tmp *refs = rs.v;
	size_t nrefs = rs.n;
	if (rs.nlocals)
		qsort(rs.locals, rs.nlocals, sizeof(*rs.locals), cmp_local);
	if (nrefs) {
		qsort(refs, nrefs, sizeof(*refs), cmp_ref);
		int32_t *st2 = mi_xmalloc((c->p->nsyms + 1) * sizeof(*st2));
		size_t sp2 = 0, si = c->sym0;
		for (size_t i = 0; i < nrefs; i++) {
			uint32_t b = refs[i].start + c->base;
			while (si < c->p->nsyms && c->p->syms[si].start_byte <= b) {
				while (sp2 > 0 && c->p->syms[st2[sp2 - 1]].end_byte <= c->p->syms[si].start_byte)
					sp2--;
				st2[sp2++] = (int32_t)si;
				si++;
			}
			while (sp2 > 0 && c->p->syms[st2[sp2 - 1]].end_byte <= b)
				sp2--;
			if (i > 0 && refs[i - 1].start == refs[i].start && refs[i - 1].end == refs[i].end)
				continue;
			uint32_t nl = refs[i].end - refs[i].start;
			if (!nl || nl > 200 || refs[i].end > c->len)
				continue;
			int32_t caller = sp2 > 0 ? st2[sp2 - 1] : -1;
			bool local = false;
			/* locals of the caller and of the functions around it
			 * (closures see them) */
			for (int32_t k = refs[i].kind == MI_REF_VALUE ? caller : -1; k >= 0 && !local;
			     k = c->p->syms[k].parent_idx) {
				const mi_symbol *cs = &c->p->syms[k];
				if (k != caller && cs->kind != MI_KIND_FUNCTION && cs->kind != MI_KIND_METHOD)
					break;
				local = local_named(c, &rs, refs[i].start, refs[i].end,
						    cs->start_byte - c->base, cs->end_byte - c->base);
			}
			if (local)
				continue;
			mi_ref *r = mi_parsed_add_ref(c->p);
			r->callee = mi_parsed_strndup(c->p, c->src + refs[i].start, nl);
			TSPoint at = refs[i].at;
			r->line = at.row + 1;
			r->line_byte = refs[i].start - at.column +
				       (at.row ? c->base : 0); /* a BOM is on line 1 */
			r->kind = (uint8_t)refs[i].kind;
			r->caller_idx = caller;
		}
		free(st2);
	}
	collect_errors(c, root);
	if (c->late) {
		mi_diag *d = mi_parsed_add_diag(c->p);
		d->line = 0;
		d->severity = 'W';
		d->msg = "symbols cut: reading them took longer than the parse may "
			 "(nesting thousands of levels deep?); the file is indexed as text";
	}
out:
	c->deadline = NULL;
	free(prefiltered);
	free(c->defs);
	c->defs = NULL;
	mi_buf_release(&c->scratch);
	c->ndefs = c->capdefs = 0;
	free(rs.v);
	free(rs.locals);
	if (tree)
		ts_tree_delete(tree);
	return err;
}

void mi_ts_embed(mi_ts_ctx *c, void *node, int lang)
{
	TSNode n = *(TSNode *)node;
	const mi_lang_row *row = mi_lang_row_get(lang);
	if (!row || !row->ts || (!row->query && !row->extract) || ts_node_is_null(n) ||
	    ts_node_end_byte(n) <= ts_node_start_byte(n))
		return;
	if (c->nembeds >= MI_EMBED_MAX) {
		if (!c->embeds_cut)
			c->embeds_cut = ts_node_start_point(n).row + 1;
		return;
	}
	if (!c->embeds)
		c->embeds = mi_xmalloc(MI_EMBED_MAX * sizeof(*c->embeds));
	c->embeds[c->nembeds].r = (TSRange){
		.start_point = ts_node_start_point(n), .end_point = ts_node_end_point(n),
		.start_byte = ts_node_start_byte(n), .end_byte = ts_node_end_byte(n)};
	c->embeds[c->nembeds++].lang = lang;
}

/* The innermost of the first n symbols whose span holds byte b, or -1. */
static int32_t host_around(const mi_parsed *p, size_t n, uint32_t b)
{
	int32_t best = -1;
	for (size_t i = 0; i < n; i++)
		if (p->syms[i].start_byte <= b && b < p->syms[i].end_byte &&
		    (best < 0 || p->syms[i].start_byte >= p->syms[best].start_byte))
			best = (int32_t)i;
	return best;
}

static _Thread_local const mi_symbol *sort_syms; /* syms_in_order's, for its qsort */

static int cmp_sym_order(const void *a, const void *b)
{
	const mi_symbol *x = &sort_syms[*(const int32_t *)a], *y = &sort_syms[*(const int32_t *)b];
	if (x->start_byte != y->start_byte)
		return x->start_byte < y->start_byte ? -1 : 1;
	if (x->end_byte != y->end_byte)
		return x->end_byte > y->end_byte ? -1 : 1;
	return *(const int32_t *)a < *(const int32_t *)b ? -1 : 1;
}

static _Thread_local const mi_ref *sort_refs; /* syms_in_order's, for its qsort */

static int cmp_ref_order(const void *a, const void *b)
{
	const mi_ref *x = &sort_refs[*(const int32_t *)a], *y = &sort_refs[*(const int32_t *)b];
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return *(const int32_t *)a < *(const int32_t *)b ? -1 : 1;
}

/* Puts the symbols back in source order, outer before inner (an embedded
 * block's were appended after the file's), with their parents' and the
 * references' callers' indices moved along, and the references in line
 * order. */
static void syms_in_order(mi_parsed *p)
{
	size_t n = p->nsyms;
	int32_t *ord = mi_xmalloc((n + 1) * sizeof(*ord)), *at = mi_xmalloc((n + 1) * sizeof(*at));
	for (size_t i = 0; i < n; i++)
		ord[i] = (int32_t)i;
	sort_syms = p->syms;
	qsort(ord, n, sizeof(*ord), cmp_sym_order);
	mi_symbol *v = mi_xmalloc((n + 1) * sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		at[ord[i]] = (int32_t)i;
		v[i] = p->syms[ord[i]];
	}
	for (size_t i = 0; i < n; i++)
		if (v[i].parent_idx >= 0)
			v[i].parent_idx = at[v[i].parent_idx];
	for (size_t i = 0; i < p->nrefs; i++)
		if (p->refs[i].caller_idx >= 0 && (size_t)p->refs[i].caller_idx < n)
			p->refs[i].caller_idx = at[p->refs[i].caller_idx];
	memcpy(p->syms, v, n * sizeof(*v));
	free(v);
	free(at);
	free(ord);
	/* the references by line, as one extraction leaves them (stable) */
	if (p->nrefs < 2)
		return;
	mi_ref *rv = mi_xmalloc((p->nrefs + 1) * sizeof(*rv));
	memcpy(rv, p->refs, p->nrefs * sizeof(*rv));
	sort_refs = rv;
	int32_t *ro = mi_xmalloc((p->nrefs + 1) * sizeof(*ro));
	for (size_t i = 0; i < p->nrefs; i++)
		ro[i] = (int32_t)i;
	qsort(ro, p->nrefs, sizeof(*ro), cmp_ref_order);
	for (size_t i = 0; i < p->nrefs; i++)
		p->refs[i] = rv[ro[i]];
	free(ro);
	free(rv);
}

/* The blocks of other languages mi_ts_embed found in the file c read:
 * each parsed alone, its symbols nested in the file's symbol around it
 * (its qualified name before theirs; those at the block's top are
 * public), its top-level references that symbol's. */
static void embeds_extract(mi_ts_ctx *c)
{
	size_t host_n = c->p->nsyms;
	bool added = false;
	/* all the blocks within one parse's time: the one under way when it
	 * ends has its own, the rest are left as text */
	struct timespec dl;
	parse_deadline(&dl);
	for (size_t e = 0; e < c->nembeds; e++) {
		if (past_deadline(&dl)) {
			mi_diag *d = mi_parsed_add_diag(c->p);
			d->line = c->embeds[e].r.start_point.row + 1;
			d->severity = 'W';
			d->msg = "scripts from here on read as text: reading the file's scripts "
				 "took longer than one parse may";
			break;
		}
		mi_ts_ctx g = {.src = c->src, .len = c->len, .base = c->base, .p = c->p,
			       .row = mi_lang_row_get(c->embeds[e].lang),
			       .sym0 = c->p->nsyms, .range = &c->embeds[e].r};
		size_t r0 = c->p->nrefs;
		int gerr = ts_extract(&g);
		free(g.embeds);
		if (gerr)
			continue;
		int32_t host = host_around(c->p, host_n, c->embeds[e].r.start_byte + c->base);
		for (size_t i = g.sym0; i < c->p->nsyms; i++) {
			mi_symbol *s = &c->p->syms[i];
			if (s->parent_idx < 0 && host < 0)
				continue;
			if (s->parent_idx < 0) {
				/* the top of a component's script is its template's
				 * (a page's classic script: globals), so public */
				s->parent_idx = host;
				s->vis = MI_VIS_PUBLIC;
			}
			const mi_symbol *par = &c->p->syms[s->parent_idx];
			s->parent = qualified_name(c->p, par);
			s->level = (uint8_t)(par->level < 255 ? par->level + 1 : 255);
		}
		for (size_t i = r0; i < c->p->nrefs; i++)
			if (c->p->refs[i].caller_idx < 0)
				c->p->refs[i].caller_idx = host;
		added = added || c->p->nsyms > g.sym0;
	}
	if (c->embeds_cut) {
		mi_diag *d = mi_parsed_add_diag(c->p);
		d->line = c->embeds_cut;
		d->severity = 'W';
		d->msg = "scripts from here on read as text: a file's first 64 are read";
	}
	if (added)
		syms_in_order(c->p);
}

int mi_parse_source(int lang, const char *src, size_t len, mi_parsed *out)
{
	const mi_lang_row *row = mi_lang_row_get(lang);
	if (!row)
		return MI_ERR_ARG;
	out->lang = lang;
	if (len > UINT32_MAX / 2)
		return MI_ERR_TOOBIG;
	if (row->scan) {
		/* A line scanner gives a header its body at the line after it
		 * and ends the symbol at the next header: one that ends on its
		 * own header line (a Dockerfile stage, an INI section right
		 * before the next or at the end of the file) has no body. */
		int err = row->scan(src, len, out);
		for (size_t i = 0; !err && i < out->nsyms; i++)
			if (out->syms[i].body_line > out->syms[i].end_line)
				out->syms[i].body_line = out->syms[i].body_byte = 0;
		return err;
	}
	if (!row->ts || (!row->query && !row->extract))
		return MI_ERR_ARG;
	mi_ts_ctx c = {.src = src, .len = len, .p = out, .row = row};
	if (len >= 3 && !memcmp(src, "\xef\xbb\xbf", 3)) {
		c.src += 3;
		c.len -= 3;
		c.base = 3;
	}
	int err = ts_extract(&c);
	if (!err && (c.nembeds || c.embeds_cut))
		embeds_extract(&c);
	free(c.embeds);
	return err;
}

/* Accessors for language fix-up callbacks (lang.c). */
const char *mi_ts_text(mi_ts_ctx *c, void *node, uint32_t *len)
{
	return node_text(c, *(TSNode *)node, len);
}

const char *mi_ts_src(mi_ts_ctx *c, size_t *len, uint32_t *base)
{
	*len = c->len;
	*base = c->base;
	return c->src;
}

mi_parsed *mi_ts_parsed(mi_ts_ctx *c)
{
	return c->p;
}

bool mi_ts_query_compiled(int lang)
{
	if (lang <= MI_LANG_NONE || lang >= MI_LANG__COUNT)
		return false;
	pthread_mutex_lock(&once_mu);
	bool done = compiled[lang].q || compiled[lang].error;
	pthread_mutex_unlock(&once_mu);
	return done;
}

const char *mi_ts_query_error(int lang)
{
	mi_compiled *mc = get_compiled(lang);
	return mc->error;
}
