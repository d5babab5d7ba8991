/*
 * compile_parse.c - compiler output into messages.  Each format is a few rows of
 * the rule table below (a POSIX regular expression, which of its groups
 * hold the path, line, column, level, code and text, and what the row
 * means: a diagnostic, a location or hint for the one before, a Python
 * traceback's frame or exception, a tool's closing summary); a line that
 * matches no row and does not continue a diagnostic is an INFO message.
 */
#include "compile_int.h"

#include <ctype.h>
#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MI_MSG_MAX 500   /* longest message text kept */

const char *const mi_compile_parsers[] = {
	"auto", "gcc", "clang", "go", "rustc", "tsc", "javac", "python", "generic", NULL,
};

static const char *const group_names[MI_GROUP__COUNT] = {"INFO", "WARN", "ERROR"};

const char *mi_compile_group_name(int g)
{
	return g >= 0 && g < MI_GROUP__COUNT ? group_names[g] : "INFO";
}

int mi_compile_group_find(const char *name)
{
	for (int g = 0; name && g < MI_GROUP__COUNT; g++)
		if (!strcasecmp(name, group_names[g]))
			return g;
	return -1;
}

/* What a row means. */
enum {
	R_DIAG,     /* a diagnostic with its own location (or none) */
	R_HEADER,   /* a diagnostic whose location follows (rustc) */
	R_LOC,      /* the location of the diagnostic before (rustc " --> ") */
	R_HINT,     /* a hint for the diagnostic before (help:, symbol:) */
	R_TB,       /* "Traceback (most recent call last):" */
	R_FRAME,    /* a Python frame: the innermost one locates the error */
	R_EXC,      /* the exception line closing a traceback */
	R_SUMMARY,  /* a tool's closing line: ERROR only when nothing else was */
};

/* One rule.  Group numbers are regex subexpressions, 0 = absent. */
typedef struct rule {
	const char *parser;   /* mi_compile_parsers name it belongs to */
	int what;             /* R_* */
	const char *re;       /* POSIX extended regular expression */
	int path, line, col;  /* groups */
	int level;            /* group holding a level word; 0: level_fixed */
	int level_fixed;      /* MI_GROUP_* when no level group */
	int code, text;       /* groups */
} rule;

static const rule rules[] = {
	/* rustc: closing lines, a header, then " --> file:line:col", then help */
	{"rustc", R_SUMMARY, "^(error: aborting due to .*)$", 0, 0, 0, 0, MI_GROUP_ERROR, 0, 1},
	{"rustc", R_SUMMARY, "^(warning: [0-9]+ warnings? emitted.*)$", 0, 0, 0, 0, MI_GROUP_INFO, 0, 1},
	{"rustc", R_HEADER, "^(error|warning)(\\[([A-Z][0-9]+)\\])?: (.*)$", 0, 0, 0, 1, 0, 3, 4},
	{"rustc", R_LOC, "^ *--> ([^ ]+):([0-9]+):([0-9]+)$", 1, 2, 3, 0, 0, 0, 0},
	{"rustc", R_HINT, "^ *(= )?help: (.*)$", 0, 0, 0, 0, 0, 0, 2},
	/* Python: traceback frames, the innermost one, then the exception */
	{"python", R_TB, "^Traceback \\(most recent call last\\):$", 0, 0, 0, 0, 0, 0, 0},
	{"python", R_FRAME, "^  File \"(.+)\", line ([0-9]+)(, in .*)?$", 1, 2, 0, 0, 0, 0, 0},
	{"python", R_EXC, "^([A-Za-z_][A-Za-z0-9_.]*)(: (.*))?$", 0, 0, 0, 0, MI_GROUP_ERROR, 0, 0},
	/* tsc, plain and --pretty */
	{"tsc", R_DIAG, "^(.+)\\(([0-9]+),([0-9]+)\\): (error|warning|message) (TS[0-9]+): (.*)$",
	 1, 2, 3, 4, 0, 5, 6},
	{"tsc", R_DIAG, "^(.+):([0-9]+):([0-9]+) - (error|warning|message) (TS[0-9]+): (.*)$",
	 1, 2, 3, 4, 0, 5, 6},
	/* go build / go vet: no level word, every one is an error */
	{"go", R_DIAG, "^([^ :]+\\.go):([0-9]+):([0-9]+): (.*)$", 1, 2, 3, 0, MI_GROUP_ERROR, 0, 4},
	{"go", R_DIAG, "^([^ :]+\\.go):([0-9]+): (.*)$", 1, 2, 0, 0, MI_GROUP_ERROR, 0, 3},
	/* javac: file:line: level: text, then source, caret, symbol/location */
	{"javac", R_DIAG, "^([^:]+\\.java):([0-9]+): (error|warning): (.*)$", 1, 2, 0, 3, 0, 0, 4},
	{"javac", R_HINT, "^ +((symbol|location|required|found|reason): +.*)$", 0, 0, 0, 0, 0, 0, 1},
	/* gcc and clang */
	{"gcc", R_DIAG, "^([^: ][^:]*):([0-9]+):([0-9]+): (fatal error|error|warning|note|remark): (.*)$",
	 1, 2, 3, 4, 0, 0, 5},
	{"gcc", R_DIAG, "^([^: ][^:]*):([0-9]+): (fatal error|error|warning|note): (.*)$",
	 1, 2, 0, 3, 0, 0, 4},
	{"gcc", R_DIAG, "^([^: ][^:]*):\\(.*\\): (undefined reference to .*)$", 1, 0, 0, 0,
	 MI_GROUP_ERROR, 0, 2},
	{"gcc", R_SUMMARY, "^(make(\\[[0-9]+\\])?: \\*\\*\\* .*)$", 0, 0, 0, 0, MI_GROUP_ERROR, 0, 1},
	{"gcc", R_SUMMARY, "^(collect2: error: .*)$", 0, 0, 0, 0, MI_GROUP_ERROR, 0, 1},
	{"gcc", R_SUMMARY, "^(([0-9]+ warnings? and )?[0-9]+ errors? generated\\.)$", 0, 0, 0, 0,
	 MI_GROUP_INFO, 0, 1},
	/* what other tools print: file:line[:col]: level: text, tool: error: text */
	{"generic", R_DIAG, "^([^: \t][^:]*):([0-9]+):([0-9]+): *([A-Za-z][A-Za-z ]*): (.*)$",
	 1, 2, 3, 4, 0, 0, 5},
	{"generic", R_DIAG, "^([^: \t][^:]*):([0-9]+): *([A-Za-z][A-Za-z]*): (.*)$", 1, 2, 0, 3, 0, 0, 4},
	{"generic", R_DIAG, "^[A-Za-z0-9_.+-]+: (fatal error|error): (.*)$", 0, 0, 0, 1, 0, 0, 2},
};
#define NRULES (sizeof rules / sizeof rules[0])

static regex_t compiled[NRULES];
static bool compiled_ok[NRULES];
static pthread_once_t compile_once = PTHREAD_ONCE_INIT;

static void compile_rules(void)
{
	for (size_t i = 0; i < NRULES; i++)
		compiled_ok[i] = regcomp(&compiled[i], rules[i].re, REG_EXTENDED) == 0;
}

/* A note-like level: becomes the hint of the diagnostic before it. */
#define LVL_NOTE 100

/* The group of a level word, LVL_NOTE, or -1 for a word that is no level. */
static int level_of(const char *w, size_t n)
{
	static const struct { const char *word; int g; } words[] = {
		{"error", MI_GROUP_ERROR}, {"fatal error", MI_GROUP_ERROR}, {"fatal", MI_GROUP_ERROR},
		{"err", MI_GROUP_ERROR}, {"warning", MI_GROUP_WARN}, {"warn", MI_GROUP_WARN},
		{"note", LVL_NOTE}, {"remark", LVL_NOTE}, {"info", LVL_NOTE}, {"hint", LVL_NOTE},
		{"help", LVL_NOTE}, {"message", LVL_NOTE},
	};
	while (n && w[n - 1] == ' ')
		n--;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i].word) == n && !strncasecmp(w, words[i].word, n))
			return words[i].g;
	/* Python's warning categories: DeprecationWarning, UserWarning */
	if (n > 7 && !strncasecmp(w + n - 7, "warning", 7))
		return MI_GROUP_WARN;
	return -1;
}

/* The parser's state between lines. */
typedef struct pstate {
	const char *parser;       /* restricts rows; NULL = all */
	const char *root, *cwd;   /* for paths */
	mi_compile_msg **msgs;
	size_t *n, cap;
	long last;                /* index of the diagnostic lines continue, -1 */
	bool in_tb;               /* inside a Python traceback */
	bool in_frame;            /* a frame seen (its file may be outside) */
	char *frame_path;         /* innermost frame's file, NULL when outside */
	uint32_t frame_line;
	size_t summaries;         /* R_SUMMARY lines, decided at the end */
	long *sum_idx;
} pstate;

static bool row_applies(const pstate *st, const rule *r)
{
	if (!st->parser)
		return true;
	if (!strcmp(st->parser, "clang"))
		return !strcmp(r->parser, "gcc");
	return !strcmp(r->parser, st->parser);
}

/* A valid UTF-8 copy of s[0..n) (invalid bytes become U+FFFD); releases
 * tmp (may be NULL), which may hold s. */
static char *utf8_dup(const char *s, size_t n, mi_buf *tmp)
{
	mi_buf b = {0};
	mi_buf_add_utf8(&b, s, n);
	if (tmp)
		mi_buf_release(tmp);
	return mi_buf_detach(&b);
}

/* path as the run printed it, made absolute against cwd and repo-relative;
 * NULL when it is not inside root: a compiler (or a #line the repository
 * writes) may name any file, and what is outside is never read or named. */
static char *fix_path(const pstate *st, const char *raw, size_t n)
{
	mi_buf abs = {0}, out = {0};
	char *res = NULL;
	const char *p, *end, *in;
	if (!n)
		return NULL;
	if (raw[0] != '/')
		mi_buf_addf(&abs, "%s/", st->cwd);
	mi_buf_add(&abs, raw, n);
	/* lexical clean-up: //, ./ and ../ */
	for (p = abs.buf, end = abs.buf + abs.len; p < end;) {
		const char *s = p;
		size_t sl;
		while (p < end && *p != '/')
			p++;
		sl = (size_t)(p - s);
		if (p < end)
			p++;
		if (sl == 0 || (sl == 1 && s[0] == '.'))
			continue;
		if (sl == 2 && s[0] == '.' && s[1] == '.') {
			char *slash = out.len ? strrchr(out.buf, '/') : NULL;
			out.len = slash ? (size_t)(slash - out.buf) : 0;
			if (out.buf)
				out.buf[out.len] = 0;
			continue;
		}
		mi_buf_addc(&out, '/');
		mi_buf_add(&out, s, sl);
	}
	if (out.buf && (in = mi_path_below(st->root, out.buf)) && *in &&
	    !mi_path_normalize(in, &abs))
		res = utf8_dup(abs.buf, abs.len, NULL);
	mi_buf_release(&out);
	mi_buf_release(&abs);
	return res;
}

/* s[0..n) trimmed, runs of blanks made one space, at most MI_MSG_MAX, valid
 * UTF-8. */
static char *cut(const char *s, size_t n)
{
	mi_buf b = {0};
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	for (size_t i = 0; i < n && b.len < MI_MSG_MAX; i++) {
		if (isspace((unsigned char)s[i])) {
			if (b.len && b.buf[b.len - 1] == ' ')
				continue;
			mi_buf_addc(&b, ' ');
		} else {
			mi_buf_addc(&b, s[i]);
		}
	}
	return utf8_dup(b.buf ? b.buf : "", b.len, &b);
}

static mi_compile_msg *add_msg(pstate *st, int group)
{
	mi_compile_msg *m;
	if (*st->n == st->cap) {
		st->cap = st->cap ? 2 * st->cap : 32;
		*st->msgs = mi_xrealloc(*st->msgs, st->cap * sizeof **st->msgs);
	}
	m = &(*st->msgs)[(*st->n)++];
	memset(m, 0, sizeof *m);
	m->group = group;
	return m;
}

/* Moves a "did you mean ..." suggestion and a gcc "[-Wflag]" out of the
 * text into hint and code. */
static void split_text(mi_compile_msg *m)
{
	char *t = m->text, *dym = NULL;
	size_t n = strlen(t);
	if (n > 4 && t[n - 1] == ']') {
		char *open = strrchr(t, '[');
		if (open && open > t && open[-1] == ' ' && (open[1] == '-' || isalpha((unsigned char)open[1]))) {
			if (!m->code)
				m->code = utf8_dup(open + 1, (size_t)(t + n - 1 - open - 1), NULL);
			open[-1] = 0;
			n = strlen(t);
		}
	}
	for (char *p = t; *p; p++)
		if (!strncasecmp(p, "did you mean", 12)) {
			dym = p;
			break;
		}
	if (dym && !m->hint) {
		char *h = dym, *e = dym + strlen(dym);
		if (e > h && e[-1] == ')')
			e--;
		m->hint = mi_xstrndup(h, (size_t)(e - h));
		m->hint[0] = (char)tolower((unsigned char)m->hint[0]);
		while (dym > t && (dym[-1] == ' ' || dym[-1] == ';' || dym[-1] == '(' ||
				   dym[-1] == ',' || dym[-1] == '.'))
			dym--;
		/* keep a sentence's own full stop */
		if (*dym == '.' && dym > t)
			dym++;
		*dym = 0;
	}
}

static void set_hint(mi_compile_msg *m, const char *s, size_t n)
{
	char *h = cut(s, n);
	if (!m->hint) {
		m->hint = h;
		return;
	}
	/* javac's symbol/location lines and several helps: join them */
	if (strlen(m->hint) + strlen(h) + 2 < MI_MSG_MAX) {
		mi_buf b = {0};
		mi_buf_addf(&b, "%s; %s", m->hint, h);
		free(m->hint);
		m->hint = mi_buf_detach(&b);
	}
	free(h);
}

#define G(k) (k && mt[k].rm_so >= 0)
#define GS(k) (line + mt[k].rm_so)
#define GN(k) ((size_t)(mt[k].rm_eo - mt[k].rm_so))

/* Tries the rows on one line: true when one took it. */
static bool match_rules(pstate *st, const char *line)
{
	regmatch_t mt[10];
	for (size_t i = 0; i < NRULES; i++) {
		const rule *r = &rules[i];
		mi_compile_msg *m;
		int g;
		if (!compiled_ok[i] || !row_applies(st, r) ||
		    regexec(&compiled[i], line, 10, mt, 0) != 0)
			continue;
		switch (r->what) {
		case R_LOC:
			if (st->last < 0 || (*st->msgs)[st->last].path)
				continue;
			m = &(*st->msgs)[st->last];
			if (!(m->path = fix_path(st, GS(r->path), GN(r->path))))
				return true; /* outside: no location */
			m->line = (uint32_t)strtoul(GS(r->line), NULL, 10);
			m->col = G(r->col) ? (uint32_t)strtoul(GS(r->col), NULL, 10) : 0;
			return true;
		case R_HINT:
			if (st->last < 0)
				continue;
			set_hint(&(*st->msgs)[st->last], GS(r->text), GN(r->text));
			return true;
		case R_TB:
			st->in_tb = true;
			st->last = -1;
			return true;
		case R_FRAME:
			free(st->frame_path);
			st->frame_path = fix_path(st, GS(r->path), GN(r->path));
			st->frame_line = st->frame_path ? (uint32_t)strtoul(GS(r->line), NULL, 10) : 0;
			st->in_frame = true;
			st->last = -1;
			return true;
		case R_EXC:
			if (!st->in_frame)
				continue;
			m = add_msg(st, MI_GROUP_ERROR);
			m->path = st->frame_path;
			m->line = st->frame_line;
			m->text = cut(line, strlen(line)); /* it names the exception */
			split_text(m);
			st->frame_path = NULL;
			st->in_frame = false;
			st->in_tb = false;
			st->last = (long)(*st->n - 1);
			return true;
		case R_SUMMARY:
			m = add_msg(st, MI_GROUP_INFO);
			m->text = cut(GS(r->text), GN(r->text));
			if (r->level_fixed == MI_GROUP_ERROR) {
				st->sum_idx = mi_xrealloc(st->sum_idx, (st->summaries + 1) * sizeof *st->sum_idx);
				st->sum_idx[st->summaries++] = (long)(*st->n - 1);
			}
			st->last = -1;
			return true;
		default: /* R_DIAG, R_HEADER */
			g = r->level ? level_of(GS(r->level), GN(r->level)) : r->level_fixed;
			if (g < 0)
				continue;
			if (g == LVL_NOTE) {
				if (st->last >= 0 && !(*st->msgs)[st->last].hint) {
					set_hint(&(*st->msgs)[st->last], GS(r->text), GN(r->text));
					return true;
				}
				g = MI_GROUP_INFO;
			}
			m = add_msg(st, g);
			if (G(r->path))
				m->path = fix_path(st, GS(r->path), GN(r->path));
			/* a line of a file outside names nothing here */
			if (!G(r->path) || m->path) {
				m->line = G(r->line) ? (uint32_t)strtoul(GS(r->line), NULL, 10) : 0;
				m->col = G(r->col) ? (uint32_t)strtoul(GS(r->col), NULL, 10) : 0;
			}
			m->text = cut(GS(r->text), GN(r->text));
			if (G(r->code))
				m->code = utf8_dup(GS(r->code), GN(r->code), NULL);
			split_text(m);
			st->last = g == MI_GROUP_INFO ? -1 : (long)(*st->n - 1);
			return true;
		}
	}
	return false;
}

/* A line of a source excerpt without indentation: rustc's "12 | code",
 * "12 + code" (a suggested change) and its "..." elision. */
static bool excerpt(const char *l)
{
	size_t d = strspn(l, "0123456789");
	if (!strcmp(l, "..."))
		return true;
	return d && l[d] == ' ' && strchr("|+-~", l[d + 1]) && (l[d + 2] == ' ' || !l[d + 2]);
}

void mi_compile_parse(const char *output, size_t len, const char *parser,
		      const char *root, const char *cwd, mi_compile_msg **msgs, size_t *n)
{
	pstate st = {.root = root ? root : "", .cwd = cwd ? cwd : (root ? root : "."),
		     .msgs = msgs, .n = n, .cap = *n, .last = -1};
	const char *p = output, *end = output + len;
	mi_buf line = {0};
	bool errors = false;

	pthread_once(&compile_once, compile_rules);
	if (parser && strcmp(parser, "auto"))
		st.parser = parser;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		size_t ln = (size_t)(e - p);
		mi_buf_reset(&line);
		mi_buf_add(&line, p, ln);
		/* drop a CR and terminal colour codes */
		if (line.len && line.buf[line.len - 1] == '\r')
			line.buf[--line.len] = 0;
		for (size_t i = 0, o = 0; i <= line.len; i++) {
			if (line.buf[i] == 0x1b && i + 1 < line.len && line.buf[i + 1] == '[') {
				i += 2;
				while (i < line.len && !isalpha((unsigned char)line.buf[i]))
					i++;
				continue;
			}
			line.buf[o++] = line.buf[i];
			if (i == line.len)
				line.len = o - 1;
		}
		p = nl ? nl + 1 : end;
		if (!line.len || strspn(line.buf, " \t") == line.len)
			continue;
		if (match_rules(&st, line.buf))
			continue;
		/* indented lines (source excerpts, carets, traceback code) and
		 * rustc's gutters continue what came before */
		if (line.buf[0] == ' ' || line.buf[0] == '\t' || line.buf[0] == '|' ||
		    (st.in_tb && st.in_frame) || (st.last >= 0 && excerpt(line.buf)))
			continue;
		add_msg(&st, MI_GROUP_INFO)->text = cut(line.buf, line.len);
		st.last = -1;
	}
	/* a closing summary (make: ***, collect2) is the error only when
	 * nothing else was */
	for (size_t i = 0; i < *n; i++)
		if ((*msgs)[i].group == MI_GROUP_ERROR)
			errors = true;
	for (size_t i = 0; i < st.summaries && !errors; i++)
		(*msgs)[st.sum_idx[i]].group = MI_GROUP_ERROR;
	free(st.sum_idx);
	free(st.frame_path);
	mi_buf_release(&line);
}

void mi_compile_msgs_free(mi_compile_msg *msgs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(msgs[i].path);
		free(msgs[i].text);
		free(msgs[i].hint);
		free(msgs[i].code);
	}
	free(msgs);
}
