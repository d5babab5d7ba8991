/*
 * ignore.c - .gitignore rule sets stacked per directory, and a matcher that
 * decides exactly as git does (gitignore(5), wildmatch with WM_PATHNAME).
 */
#include "indexer_int.h"
#include "format/format.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum {
	RULE_NEG = 1,      /* "!pattern": a match re-includes */
	RULE_DIRONLY = 2,  /* "pattern/": matches directories only */
	RULE_BASENAME = 4, /* no '/' in the pattern: matches the last component */
	RULE_ENDSWITH = 8, /* "*literal": a suffix compare */
};

typedef struct ig_rule {
	const char *pat;   /* pattern without '!', leading '/' or trailing '/' */
	uint32_t len;      /* strlen(pat) */
	uint32_t nowild;   /* bytes before the first of * ? [ \ */
	uint16_t need;     /* offset in pat of a literal run every match holds */
	uint16_t needlen;  /* its length, 0 = none */
	uint8_t flags;     /* RULE_* */
	uint8_t last;      /* pat[len - 1], or 0: quick reject for literal tails */
} ig_rule;

typedef struct ig_set {
	char *dir;         /* directory the rules belong to, "" = root; owned */
	size_t dirlen;     /* strlen(dir) */
	char *text;        /* the patterns, NUL-separated; rules point here; owned */
	ig_rule *rules;    /* in file order: the last match wins; owned */
	size_t nrules;     /* entries in rules */
} ig_set;

struct mi_ignore {
	ig_set *sets;      /* shallow to deep: a set precedes its descendants */
	size_t nsets;      /* sets in use */
	size_t capsets;    /* sets allocated */
	/* Exclusion of the leading directories of the last path matched, so
	 * files of one directory cost one rule pass each. */
	char *cdir;        /* the cached directory path, not NUL-terminated */
	size_t cdirlen;    /* bytes of cdir in use */
	size_t cdircap;    /* bytes allocated for cdir */
	size_t *cend;      /* cend[k]: length of the path of component k */
	bool *cex;         /* cex[k]: component k or one above it is excluded */
	size_t ncomp;      /* valid entries in cend/cex */
	size_t capcomp;    /* entries allocated in cend/cex */
};

/* ---- wildmatch: git's glob dialect ------------------------------------------ */

enum {
	WM_MATCH = 0,
	WM_NOMATCH = 1,
	WM_ABORT_ALL = -1,          /* no later start of an outer '*' can match */
	WM_ABORT_TO_STARSTAR = -2,  /* only an outer '**' can still match */
};

static bool glob_special(unsigned char c)
{
	return c == '*' || c == '?' || c == '[' || c == '\\';
}

/* Is c in the POSIX class name[0..n)?  1 yes, 0 no, -1 no such class. */
static int class_has(const unsigned char *name, size_t n, int c)
{
	static const struct { const char *name; int (*fn)(int); } classes[] = {
		{ "alnum", isalnum }, { "alpha", isalpha }, { "blank", isblank },
		{ "cntrl", iscntrl }, { "digit", isdigit }, { "graph", isgraph },
		{ "lower", islower }, { "print", isprint }, { "punct", ispunct },
		{ "space", isspace }, { "upper", isupper }, { "xdigit", isxdigit },
	};
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (strlen(classes[i].name) == n && !memcmp(classes[i].name, name, n))
			return classes[i].fn(c) != 0;
	return -1;
}

/*
 * Matches the bracket expression at *pp (pointing at '[') against c.  On
 * return *pp points at the closing ']'.  Returns 1 when c is in the set,
 * 0 when not, WM_ABORT_ALL when the expression is malformed (git then
 * matches nothing with the whole pattern).
 */
static int wm_bracket(const unsigned char **pp, int c)
{
	const unsigned char *p = *pp;
	int pc = *++p, prev = 0, in = 0, neg = 0;

	if (pc == '!' || pc == '^') {
		neg = 1;
		pc = *++p;
	}
	do {
		if (!pc)
			return WM_ABORT_ALL;
		if (pc == '\\') {
			pc = *++p;
			if (!pc)
				return WM_ABORT_ALL;
			if (c == pc)
				in = 1;
		} else if (pc == '-' && prev && p[1] && p[1] != ']') {
			pc = *++p;
			if (pc == '\\') {
				pc = *++p;
				if (!pc)
					return WM_ABORT_ALL;
			}
			if (c >= prev && c <= pc)
				in = 1;
			pc = 0;
		} else if (pc == '[' && p[1] == ':') {
			const unsigned char *name = p + 2, *q = name;
			while (*q && *q != ']')
				q++;
			if (!*q)
				return WM_ABORT_ALL;
			if (q - name < 1 || q[-1] != ':') {
				/* no ":]": an ordinary '[' member */
				if (c == '[')
					in = 1;
			} else {
				int has = class_has(name, (size_t)(q - name) - 1, c);
				if (has < 0)
					return WM_ABORT_ALL;
				if (has)
					in = 1;
				p = q;
				pc = 0;
			}
		} else if (c == pc) {
			in = 1;
		}
		prev = pc;
		pc = *++p;
	} while (pc != ']');
	*pp = p;
	return in != neg;
}

/*
 * One match of a pattern against a text.  wm's result depends only on the
 * pattern and text positions, so past WM_MEMO_AFTER calls (a pattern with
 * many "**" retries the rest at every position: exponential time) each
 * result is kept: each (position, position) pair is then computed once.
 */
#define WM_MEMO_AFTER 256

typedef struct wm_ctx {
	const unsigned char *p0;     /* the pattern's start, for the "**" rule */
	const unsigned char *t0, *te; /* the text */
	bool pathname;
	size_t calls;                /* wm calls before the memo */
	int *row;                    /* row[p - p0]: p's memo row, -1 none yet */
	signed char *memo;           /* nrows rows of te - t0 + 1: result + 3, 0 unknown */
	size_t nrows, maxrows;
} wm_ctx;

/* Where wm's result for (p, t) is kept, or NULL (no memo yet). */
static signed char *wm_slot(wm_ctx *c, const unsigned char *p, const unsigned char *t)
{
	if (!c->memo) {
		if (++c->calls < WM_MEMO_AFTER)
			return NULL;
		/* wm starts at p0 or just past a run of stars (or its "/") */
		size_t plen = strlen((const char *)c->p0), stars = 0;
		for (size_t i = 0; i < plen; i++)
			stars += c->p0[i] == '*';
		c->maxrows = 2 * stars + 1;
		c->row = mi_xmalloc((plen + 1) * sizeof(*c->row));
		for (size_t i = 0; i <= plen; i++)
			c->row[i] = -1;
		c->memo = mi_xcalloc(c->maxrows, (size_t)(c->te - c->t0) + 1);
	}
	size_t off = (size_t)(p - c->p0);
	if (c->row[off] < 0) {
		if (c->nrows == c->maxrows)
			return NULL;
		c->row[off] = (int)c->nrows++;
	}
	return c->memo + (size_t)c->row[off] * ((size_t)(c->te - c->t0) + 1) + (t - c->t0);
}

static int wm_run(wm_ctx *c, const unsigned char *p, const unsigned char *t);

static int wm(wm_ctx *c, const unsigned char *p, const unsigned char *t)
{
	signed char *slot = wm_slot(c, p, t);
	if (slot && *slot)
		return *slot - 3;
	int r = wm_run(c, p, t);
	if (!slot)
		slot = c->memo ? wm_slot(c, p, t) : NULL;
	if (slot)
		*slot = (signed char)(r + 3);
	return r;
}

/*
 * Matches pattern p (NUL-terminated; c->p0 is where it starts, for the "**"
 * rule) against text [t, c->te).  pathname: '*', '?' and brackets never
 * match '/', and "**" between slashes spans directories.
 */
static int wm_run(wm_ctx *c, const unsigned char *p, const unsigned char *t)
{
	const unsigned char *p0 = c->p0, *te = c->te;
	bool pathname = c->pathname;
	for (; *p; p++, t++) {
		int tc, r;

		if (t == te && *p != '*')
			return WM_ABORT_ALL;
		tc = t < te ? *t : 0;
		switch (*p) {
		case '\\':
			if (!*++p || *p != tc)
				return WM_NOMATCH;
			break;
		case '?':
			if (pathname && tc == '/')
				return WM_NOMATCH;
			break;
		case '[':
			r = wm_bracket(&p, tc);
			if (r < 0)
				return r;
			if (!r || (pathname && tc == '/'))
				return WM_NOMATCH;
			break;
		case '*': {
			const unsigned char *star = p;
			bool slash = !pathname;

			while (p[1] == '*')
				p++;
			if (p > star && pathname) {
				bool after_sep = star == p0 || star[-1] == '/';
				bool before_sep = !p[1] || p[1] == '/' ||
					(p[1] == '\\' && p[2] == '/');
				if (after_sep && before_sep) {
					if (p[1] == '/' &&
					    wm(c, p + 2, t) == WM_MATCH)
						return WM_MATCH;
					slash = true;
				}
			}
			p++; /* first byte after the stars */
			if (!*p) {
				if (!slash && memchr(t, '/', (size_t)(te - t)))
					return WM_NOMATCH;
				return WM_MATCH;
			}
			if (!slash && *p == '/') {
				t = memchr(t, '/', (size_t)(te - t));
				if (!t)
					return WM_NOMATCH;
				break; /* the loop steps over both slashes */
			}
			for (; t < te; t++) {
				if (!glob_special(*p)) {
					while (t < te && *t != *p && (slash || *t != '/'))
						t++;
					if (t == te || *t != *p)
						return WM_NOMATCH;
				}
				r = wm(c, p, t);
				if (r != WM_NOMATCH) {
					if (!slash || r != WM_ABORT_TO_STARSTAR)
						return r;
				} else if (!slash && *t == '/') {
					return WM_ABORT_TO_STARSTAR;
				}
			}
			return WM_ABORT_ALL;
		}
		default:
			if (*p != tc)
				return WM_NOMATCH;
			break;
		}
	}
	return t == te ? WM_MATCH : WM_NOMATCH;
}

static bool glob(const char *pat, const char *t, size_t n, bool pathname)
{
	const unsigned char *p = (const unsigned char *)pat;
	const unsigned char *s = (const unsigned char *)t;
	wm_ctx c = { .p0 = p, .t0 = s, .te = s + n, .pathname = pathname };
	bool m = wm(&c, p, s) == WM_MATCH;
	free(c.row);
	free(c.memo);
	return m;
}

/* ---- rules ------------------------------------------------------------------ */

/* Drops trailing spaces that no backslash escapes (git keeps tabs). */
static void trim_trailing_spaces(char *s)
{
	char *last_space = NULL;
	for (char *p = s; *p; p++) {
		if (*p == ' ') {
			if (!last_space)
				last_space = p;
			continue;
		}
		if (*p == '\\' && !*++p)
			return;
		last_space = NULL;
	}
	if (last_space)
		*last_space = '\0';
}

/* Turns one line (NUL-terminated, writable) into a rule; false if none. */
static bool rule_parse(char *line, ig_rule *r)
{
	char *p = line;
	size_t len;

	trim_trailing_spaces(line);
	if (!*p || *p == '#')
		return false;
	memset(r, 0, sizeof(*r));
	if (*p == '!') {
		r->flags |= RULE_NEG;
		p++;
	}
	len = strlen(p);
	if (len && p[len - 1] == '/') {
		r->flags |= RULE_DIRONLY;
		p[--len] = '\0';
	}
	if (!memchr(p, '/', len))
		r->flags |= RULE_BASENAME;
	r->nowild = 0;
	while (r->nowild < len && !glob_special((unsigned char)p[r->nowild]))
		r->nowild++;
	if (*p == '*' && len > 1) {
		size_t i = 1;
		while (i < len && !glob_special((unsigned char)p[i]))
			i++;
		if (i == len)
			r->flags |= RULE_ENDSWITH;
	}
	if (*p == '/') {
		/* anchored: the leading slash only says so */
		p++;
		len--;
		if (r->nowild)
			r->nowild--;
	}
	r->pat = p;
	r->len = (uint32_t)len;
	r->last = len ? (uint8_t)p[len - 1] : 0;
	/* After the literal prefix, the longest run of plain bytes before any
	 * '[' or '\\' must occur in a match (a '/' may be absorbed by a double star). */
	for (size_t i = r->nowild, run = 0; i <= len && len < UINT16_MAX; i++) {
		unsigned char c = (unsigned char)p[i];
		if (i < len && c != '/' && !glob_special(c)) {
			run++;
			continue;
		}
		if (run > r->needlen) {
			r->need = (uint16_t)(i - run);
			r->needlen = (uint16_t)run;
		}
		run = 0;
		if (c == '[' || c == '\\')
			break;
	}
	return true;
}

/* Can text[0..n) hold the literal run of r? */
static bool rule_may_match(const ig_rule *r, const char *text, size_t n)
{
	if (r->needlen <= 1)
		return !r->needlen || memchr(text, r->pat[r->need], n);
	return memmem(text, n, r->pat + r->need, r->needlen) != NULL;
}

/* Does rule r match the path name[0..n) whose last component starts at
 * base?  rel is the path relative to the rule set's directory. */
static bool rule_match(const ig_rule *r, const char *rel, size_t reln,
		       const char *base, size_t basen, bool is_dir)
{
	if ((r->flags & RULE_DIRONLY) && !is_dir)
		return false;
	if (r->flags & RULE_BASENAME) {
		if (r->nowild == r->len)
			return basen == r->len && basen &&
				(uint8_t)base[basen - 1] == r->last &&
				!memcmp(base, r->pat, basen);
		if (r->flags & RULE_ENDSWITH) {
			size_t k = r->len - 1;
			return basen >= k && (!k || (uint8_t)base[basen - 1] == r->last) &&
				!memcmp(base + basen - k, r->pat + 1, k);
		}
		if (r->nowild && (basen < r->nowild || memcmp(base, r->pat, r->nowild)))
			return false;
		return rule_may_match(r, base, basen) && glob(r->pat, base, basen, false);
	}
	if (r->nowild) {
		if (r->nowild > reln || memcmp(r->pat, rel, r->nowild))
			return false;
		if (r->nowild == r->len)
			return reln == r->len;
	}
	return rule_may_match(r, rel + r->nowild, reln - r->nowild) &&
		glob(r->pat + r->nowild, rel + r->nowild, reln - r->nowild, true);
}

/*
 * Decides path[0..n) with the rule sets: 1 ignored, 0 re-included by a
 * negated rule, -1 when no rule matches.
 */
static int sets_decide(const mi_ignore *ig, const char *path, size_t n, bool is_dir)
{
	const char *base = path + n;
	while (base > path && base[-1] != '/')
		base--;
	size_t basen = (size_t)(path + n - base);

	for (size_t s = ig->nsets; s-- > 0;) {
		const ig_set *set = &ig->sets[s];
		const char *rel = path;
		size_t reln = n;

		if (set->dirlen) {
			if (n <= set->dirlen + 1 || path[set->dirlen] != '/' ||
			    memcmp(path, set->dir, set->dirlen))
				continue;
			rel = path + set->dirlen + 1;
			reln = n - set->dirlen - 1;
		}
		for (size_t i = set->nrules; i-- > 0;) {
			const ig_rule *r = &set->rules[i];
			if (rule_match(r, rel, reln, base, basen, is_dir))
				return (r->flags & RULE_NEG) ? 0 : 1;
		}
	}
	return -1;
}

/* ---- the stack ---------------------------------------------------------------- */

/* An empty stack; free it with mi_ignore_free().  One stack serves one
 * thread: matching updates its cache of directory verdicts. */
mi_ignore *mi_ignore_new(void)
{
	return mi_xcalloc(1, sizeof(mi_ignore));
}

static void set_release(ig_set *s)
{
	free(s->dir);
	free(s->text);
	free(s->rules);
}

/* Frees the stack and every rule set in it; NULL is fine. */
void mi_ignore_free(mi_ignore *ig)
{
	if (!ig)
		return;
	for (size_t i = 0; i < ig->nsets; i++)
		set_release(&ig->sets[i]);
	free(ig->sets);
	free(ig->cdir);
	free(ig->cend);
	free(ig->cex);
	free(ig);
}

/* Parses text (consumed: becomes the set's arena) into a set for dir. */
static int push_owned(mi_ignore *ig, const char *dir_rel, char *text, size_t len)
{
	ig_set set = { 0 };
	size_t cap = 0, pos;

	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		memset(text, '\n', 3);
	for (pos = 0; pos < len;) {
		char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - line) : len - pos;
		ig_rule r;

		line[ll] = '\0';
		if (ll && line[ll - 1] == '\r')
			line[ll - 1] = '\0';
		/* a NUL inside a line ends it, as in git */
		if (rule_parse(line, &r)) {
			if (set.nrules == cap) {
				cap = cap ? cap * 2 : 16;
				set.rules = mi_xrealloc(set.rules, cap * sizeof(*set.rules));
			}
			set.rules[set.nrules++] = r;
		}
		pos += ll + 1;
	}
	if (!set.nrules) {
		free(text);
		return 0;
	}
	while (*dir_rel == '/' || (dir_rel[0] == '.' && (dir_rel[1] == '/' || !dir_rel[1])))
		dir_rel++;
	set.dir = mi_xstrdup(dir_rel);
	set.dirlen = strlen(set.dir);
	while (set.dirlen && set.dir[set.dirlen - 1] == '/')
		set.dir[--set.dirlen] = '\0';
	set.text = text;

	if (ig->nsets == ig->capsets) {
		ig->capsets = ig->capsets ? ig->capsets * 2 : 8;
		ig->sets = mi_xrealloc(ig->sets, ig->capsets * sizeof(*ig->sets));
	}
	/* keep shallow-to-deep order: a set goes after every set no deeper */
	size_t at = ig->nsets;
	while (at > 0 && ig->sets[at - 1].dirlen > set.dirlen)
		at--;
	memmove(&ig->sets[at + 1], &ig->sets[at], (ig->nsets - at) * sizeof(*ig->sets));
	ig->sets[at] = set;
	ig->nsets++;
	ig->ncomp = 0;
	return (int)set.nrules;
}

/* Adds the rules of text (copied) for directory dir_rel; they apply to
 * paths strictly below it.  Returns how many rules it held (0 adds no set). */
int mi_ignore_push_text(mi_ignore *ig, const char *dir_rel, const char *text)
{
	size_t len = strlen(text);
	char *copy = mi_xmalloc(len + 1);
	memcpy(copy, text, len + 1);
	return push_owned(ig, dir_rel, copy, len);
}

/* As mi_ignore_push_text() with the contents of file.  A missing file, or
 * one that is not a regular file, adds nothing and returns 0; a file that
 * cannot be read returns -errno. */
int mi_ignore_push_file(mi_ignore *ig, const char *dir_rel, const char *file)
{
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	int err;

	/* git does not follow a symlinked .gitignore inside the work tree */
	if (lstat(file, &st) != 0)
		return (errno == ENOENT || errno == ENOTDIR) ? 0 : -errno;
	if (!S_ISREG(st.st_mode))
		return 0;
	/* As git: an ignore file over 100 MiB is not read (it held a build's
	 * memory at its size, per walk thread). */
	err = mi_read_file_max(file, (size_t)100 << 20, &text, &len);
	if (err)
		return err == ENOENT || err == MI_ERR_TOOBIG ? 0 : -err;
	return push_owned(ig, dir_rel, text, len);
}

/* Is dir an ancestor-or-self of path ("" is everyone's ancestor)? */
static bool dir_covers(const char *dir, size_t dirlen, const char *path)
{
	return !dirlen || (!strncmp(path, dir, dirlen) &&
			   (path[dirlen] == '\0' || path[dirlen] == '/'));
}

/* Frees the sets of every directory that is not dir_rel or above it. */
void mi_ignore_pop_to(mi_ignore *ig, const char *dir_rel)
{
	size_t keep = 0;

	for (size_t i = 0; i < ig->nsets; i++) {
		if (dir_covers(ig->sets[i].dir, ig->sets[i].dirlen, dir_rel))
			ig->sets[keep++] = ig->sets[i];
		else
			set_release(&ig->sets[i]);
	}
	if (keep != ig->nsets)
		ig->ncomp = 0;
	ig->nsets = keep;
}

/* Is some leading directory of path, path[0..dlen) being the deepest, excluded?
 * Reuses the verdicts cached for the previous path's directories. */
static bool dirs_excluded(mi_ignore *ig, const char *path, size_t dlen)
{
	size_t same = 0, k = 0, e;

	while (same < dlen && same < ig->cdirlen && path[same] == ig->cdir[same])
		same++;
	while (k < ig->ncomp && ig->cend[k] <= same &&
	       (ig->cend[k] == dlen || path[ig->cend[k]] == '/'))
		k++;
	ig->ncomp = k;
	if (k && ig->cex[k - 1])
		return true;
	if (k && ig->cend[k - 1] == dlen)
		return false;

	if (dlen > ig->cdircap) {
		ig->cdircap = dlen > 2 * ig->cdircap ? dlen : 2 * ig->cdircap;
		ig->cdir = mi_xrealloc(ig->cdir, ig->cdircap);
	}
	memcpy(ig->cdir, path, dlen);
	ig->cdirlen = dlen;
	for (e = k ? ig->cend[k - 1] + 1 : 0; e <= dlen; e++) {
		bool ex;
		size_t end = e;
		while (end < dlen && path[end] != '/')
			end++;
		ex = sets_decide(ig, path, end, true) == 1;
		if (ig->ncomp == ig->capcomp) {
			ig->capcomp = ig->capcomp ? ig->capcomp * 2 : 16;
			ig->cend = mi_xrealloc(ig->cend, ig->capcomp * sizeof(*ig->cend));
			ig->cex = mi_xrealloc(ig->cex, ig->capcomp * sizeof(*ig->cex));
		}
		ig->cend[ig->ncomp] = end;
		ig->cex[ig->ncomp] = ex;
		ig->ncomp++;
		if (ex) {
			ig->cdirlen = end;
			return true;
		}
		e = end;
	}
	return false;
}

/* git's verdict on path_rel: ignored when a directory above it is, else
 * when its deepest, last matching rule is not a negation.  A trailing '/'
 * makes the path a directory.  No allocation once the cache is warm. */
bool mi_ignore_match(mi_ignore *ig, const char *path_rel, bool is_dir)
{
	return mi_ignore_decide(ig, path_rel, is_dir) == 1;
}

int mi_ignore_decide(mi_ignore *ig, const char *path_rel, bool is_dir)
{
	size_t n, dlen;

	while (*path_rel == '/')
		path_rel++;
	n = strlen(path_rel);
	while (n && path_rel[n - 1] == '/') {
		n--;
		is_dir = true;
	}
	if (!n || !ig->nsets)
		return -1;
	dlen = n;
	while (dlen && path_rel[dlen - 1] != '/')
		dlen--;
	if (dlen && dirs_excluded(ig, path_rel, dlen - 1))
		return 1;
	return sets_decide(ig, path_rel, n, is_dir);
}
