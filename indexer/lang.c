/*
 * lang.c - the language table: one row per supported language, each defined
 * by its own file indexer/lang/<name>.c (extensions, grammar, query, rules),
 * in the order of format/lang_list.h.  To add a language, see
 * indexer/lang/lang_int.h.
 */
#include "indexer_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MI_LANG_ROW(ID, name, comment, close, flags) extern const mi_lang_row mi_lang_##name;
#include "../format/lang_list.h"
#undef MI_LANG_ROW

static const mi_lang_row *const rows[] = {
#define MI_LANG_ROW(ID, name, comment, close, flags) &mi_lang_##name,
#include "../format/lang_list.h"
#undef MI_LANG_ROW
};
_Static_assert(sizeof(rows) / sizeof(rows[0]) == MI_LANG__COUNT - 1,
	       "one parser row per language of format/lang_list.h");

const mi_lang_row *mi_lang_row_get(int id)
{
	if (id < 1 || id >= MI_LANG__COUNT)
		return NULL;
	return rows[id - 1];
}

/* true if list (" a b ") holds word. */
static bool in_list(const char *list, const char *word, size_t n)
{
	if (!list || !n || n > 64)
		return false;
	char key[70];
	key[0] = ' ';
	memcpy(key + 1, word, n);
	key[n + 1] = ' ';
	key[n + 2] = 0;
	return strstr(list, key) != NULL;
}

/* Languages listed in $MCPIDX_SKIP_LANGS (names separated by commas or
 * spaces) are not detected: their files count as unsupported.  For
 * measuring what languages cost a build, and for leaving some out. */
static char skip_list[512];
static pthread_once_t skip_once = PTHREAD_ONCE_INIT;

static void skip_init(void)
{
	const char *e = getenv("MCPIDX_SKIP_LANGS");
	size_t o = 0;
	skip_list[o++] = ' ';
	for (; e && *e && o + 2 < sizeof(skip_list); e++)
		skip_list[o++] = *e == ',' ? ' ' : *e;
	skip_list[o++] = ' ';
	skip_list[o] = 0;
}

static int detected(const mi_lang_row *row)
{
	pthread_once(&skip_once, skip_init);
	if (skip_list[1] != ' ' && in_list(skip_list, row->name, strlen(row->name)))
		return MI_LANG_NONE;
	return row->id;
}

/*
 * The rows' file names and extensions in one table, made once: the first
 * row (in table order) naming a file's name or extension is its language,
 * as a scan of the rows in order would find (a walk asks for every file;
 * scanning 40 rows' lists each time was 4% of an update's CPU).  Names
 * ending in '*' (prefixes) stay a short list scanned in order.
 */
#define LX_SLOTS 1024           /* a power of two, over twice the words */
#define LX_WORD 32

typedef struct lx_ent {
	char word[LX_WORD];     /* ".c" or "Makefile"; "" when the slot is free */
	unsigned char ext;      /* an extension (else a file name) */
	unsigned char row;      /* index in rows */
} lx_ent;

static struct {
	lx_ent slot[LX_SLOTS];
	struct { char prefix[LX_WORD]; unsigned char row; } pre[64];
	size_t npre;
} lx;
static pthread_once_t lx_once = PTHREAD_ONCE_INIT;

static size_t lx_hash(const char *w, size_t n, bool ext)
{
	uint64_t h = ext ? 0x9e3779b97f4a7c15ull : 0;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)w[i]) * 0x100000001b3ull;
	return (size_t)(h ^ (h >> 29)) & (LX_SLOTS - 1);
}

/* The slot of word (n bytes, an extension or a name), or a free one. */
static lx_ent *lx_find(const char *w, size_t n, bool ext)
{
	for (size_t i = lx_hash(w, n, ext);; i = (i + 1) & (LX_SLOTS - 1)) {
		lx_ent *e = &lx.slot[i];
		if (!e->word[0] || (e->ext == ext && !strncmp(e->word, w, n) && !e->word[n]))
			return e;
	}
}

/* Adds the words of list (" a b ") for row r; a word already there keeps
 * its earlier row. */
static void lx_add(const char *list, size_t r, bool ext)
{
	for (const char *p = list; p && *p;) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		if (!n)
			break;
		if (n < LX_WORD) {
			if (!ext && p[n - 1] == '*') {
				if (lx.npre < sizeof(lx.pre) / sizeof(lx.pre[0])) {
					memcpy(lx.pre[lx.npre].prefix, p, n - 1);
					lx.pre[lx.npre].prefix[n - 1] = 0;
					lx.pre[lx.npre++].row = (unsigned char)r;
				}
			} else {
				lx_ent *e = lx_find(p, n, ext);
				if (!e->word[0]) {
					memcpy(e->word, p, n);
					e->word[n] = 0;
					e->ext = ext;
					e->row = (unsigned char)r;
				}
			}
		}
		p += n;
	}
}

static void lx_init(void)
{
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		lx_add(rows[r]->filenames, r, false);
		lx_add(rows[r]->exts, r, true);
	}
}

int mi_lang_detect(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t bl = strlen(base), best = SIZE_MAX;
	const char *dot = strrchr(base, '.');
	char ext[32];
	size_t el = 0;
	pthread_once(&lx_once, lx_init);
	if (dot && dot != base && strlen(dot) < sizeof(ext)) {
		el = strlen(dot);
		for (size_t i = 0; i < el; i++)
			ext[i] = (char)(dot[i] >= 'A' && dot[i] <= 'Z' ? dot[i] + 32 : dot[i]);
	}
	bool named = false;
	if (bl && bl < LX_WORD) {
		const lx_ent *e = lx_find(base, bl, false);
		if (e->word[0]) {
			best = e->row;
			named = true;
		}
	}
	if (el) {
		const lx_ent *e = lx_find(ext, el, true);
		if (e->word[0] && e->row < best)
			best = e->row;
	}
	/* a name ("Makefile.PL") says more than a pattern ("Makefile.*") */
	for (size_t i = 0; i < lx.npre && !named; i++) {
		size_t n = strlen(lx.pre[i].prefix);
		if (lx.pre[i].row < best && n <= bl && !memcmp(lx.pre[i].prefix, base, n))
			best = lx.pre[i].row;
	}
	return best == SIZE_MAX ? MI_LANG_NONE : detected(rows[best]);
}

int mi_lang_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (!strcmp(rows[i]->name, name))
			return rows[i]->id;
	return MI_LANG_NONE;
}

void mi_lang_list(mi_buf *out)
{
	int w = 0;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		w = (int)strlen(rows[i]->name) > w ? (int)strlen(rows[i]->name) : w;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const mi_lang_row *r = rows[i];
		mi_buf_addf(out, "%-*s", w, r->name);
		const char *lists[2] = {r->exts, r->filenames};
		bool first = true;
		for (int k = 0; k < 2; k++)
			for (const char *w = lists[k]; w && *w;) {
				while (*w == ' ')
					w++;
				size_t n = strcspn(w, " ");
				if (n) {
					mi_buf_adds(out, first ? " " : ", ");
					mi_buf_add(out, w, n);
					first = false;
				}
				w += n;
			}
		mi_buf_adds(out, r->ts ? "  (tree-sitter)\n" : "  (scanner)\n");
	}
}

/* ---- C or C++: what a C file's text says ------------------------------------------------- */

/* The word w at p (p < e), not followed by another identifier character. */
static const char *cx_word(const char *p, const char *e, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(e - p) < n || memcmp(p, w, n))
		return NULL;
	p += n;
	if (p < e && mi_cx_ident_byte(*p))
		return NULL;
	return p;
}

static const char *cx_blanks(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static bool cx_ident_start(const char *p, const char *e)
{
	return p < e && (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'));
}

/* Past an identifier (and ::-joined ones: a::b) at p. */
static const char *cx_ident(const char *p, const char *e)
{
	for (;;) {
		while (p < e && mi_cx_ident_byte(*p))
			p++;
		if (e - p < 3 || p[0] != ':' || p[1] != ':' || !cx_ident_start(p + 2, e))
			return p;
		p += 2;
	}
}

/* The rest of a line from p is empty, or only a comment. */
static bool cx_ends(const char *p, const char *e)
{
	p = cx_blanks(p, e);
	return p == e || *p == '\r' || (e - p >= 2 && p[0] == '/' && (p[1] == '/' || p[1] == '*'));
}

/* C++'s own standard headers, as #include <NAME> names them (no .h). */
static const char *const cx_headers[] = {
	"algorithm", "array", "atomic", "bitset", "cassert", "cctype", "cerrno", "chrono",
	"cmath", "cstddef", "cstdint", "cstdio", "cstdlib", "cstring", "deque", "exception",
	"fstream", "functional", "iomanip", "iostream", "istream", "iterator", "limits", "list",
	"map", "memory", "mutex", "new", "optional", "ostream", "queue", "set", "sstream",
	"stack", "stdexcept", "string", "string_view", "thread", "tuple", "type_traits",
	"typeinfo", "unordered_map", "unordered_set", "utility", "variant", "vector",
};

/* Whether the line [p, e), blanks skipped, starts with C++ that C cannot
 * be: what GitHub's linguist and universal-ctags go by to call a .h C++. */
static bool cx_line(const char *p, const char *e)
{
	const char *q;
	switch (*p) {
	case 't': /* template <...> */
		return (q = cx_word(p, e, "template")) && (q = cx_blanks(q, e)) < e && *q == '<';
	case 'u': /* using namespace std; */
		if (!(q = cx_word(p, e, "using")))
			return false;
		p = cx_blanks(q, e);
		/* fall through */
	case 'n': /* namespace NAME {, namespace {, namespace A = B; */
		if (!(q = cx_word(p, e, "namespace")))
			return false;
		q = cx_blanks(q, e);
		if (q < e && *q == '{')
			return true;
		return q > p + 9 && cx_ident_start(q, e);
	case 'c': /* class NAME {, class NAME;, class NAME : public B, class NAME final */
		if (!(q = cx_word(p, e, "class")) || (q = cx_blanks(q, e)) == p + 5 ||
		    !cx_ident_start(q, e))
			return false;
		q = cx_blanks(cx_ident(q, e), e);
		return cx_ends(q, e) || *q == '{' || *q == ';' || *q == ':' || cx_word(q, e, "final");
	case 's': /* struct NAME : public BASE */
		if (!(q = cx_word(p, e, "struct")) || (q = cx_blanks(q, e)) == p + 6 ||
		    !cx_ident_start(q, e))
			return false;
		q = cx_blanks(cx_ident(q, e), e);
		if (q >= e || *q != ':')
			return false;
		q = cx_blanks(q + 1, e);
		return cx_word(q, e, "public") || cx_word(q, e, "private") ||
		       cx_word(q, e, "protected") || cx_word(q, e, "virtual");
	case 'p': /* public:, private:, protected: on a line of their own */
		if (!(q = cx_word(p, e, "public")) && !(q = cx_word(p, e, "private")) &&
		    !(q = cx_word(p, e, "protected")))
			return false;
		q = cx_blanks(q, e);
		return q < e && *q == ':' && (q + 1 == e || q[1] != ':') && cx_ends(q + 1, e);
	case 'e': /* extern "C++" */
		return (q = cx_word(p, e, "extern")) && (q = cx_blanks(q, e)) + 5 <= e &&
		       !memcmp(q, "\"C++\"", 5);
	case '#': /* #include <vector> */
		q = cx_blanks(p + 1, e);
		if (!(q = cx_word(q, e, "include")) || (q = cx_blanks(q, e)) >= e || *q != '<')
			return false;
		p = ++q;
		while (q < e && *q != '>')
			q++;
		if (q >= e)
			return false;
		for (size_t i = 0; i < sizeof(cx_headers) / sizeof(cx_headers[0]); i++)
			if (strlen(cx_headers[i]) == (size_t)(q - p) &&
			    !memcmp(cx_headers[i], p, (size_t)(q - p)))
				return true;
		return false;
	}
	return false;
}

int mi_lang_refine(int lang, const char *src, size_t len)
{
	if (lang != MI_LANG_C || !src)
		return lang;
	const char *p = src, *end = src + len;
	bool in_comment = false; /* inside a block comment at p */
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		if (!in_comment) {
			const char *s = cx_blanks(p, e);
			if (s < e && cx_line(s, e))
				return MI_LANG_CPP;
		}
		/* Comments opened or closed on this line (string literals are
		 * not told apart: a "/" "*" in one at worst skips a marker). */
		for (const char *c = p; (c = memchr(c, '/', (size_t)(e - c)));) {
			if (in_comment) {
				if (c > p && c[-1] == '*')
					in_comment = false;
			} else if (c + 1 < e && c[1] == '*') {
				in_comment = true;
				c++;
			} else if (c + 1 < e && c[1] == '/') {
				break;
			}
			c++;
		}
		p = e + 1;
	}
	return lang;
}

int mi_parse_detected(int lang, const char *src, size_t len, mi_parsed *out)
{
	return mi_parse_source(mi_lang_refine(lang, src, len), src, len, out);
}
