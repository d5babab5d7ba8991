/*
 * repl.c - the interactive prompt of `mcpidx query [INDEX]`: a libedit line
 * editor with history, tab completion of commands, symbols and paths,
 * coloured folded output and a pager; or, when stdin is not a terminal, a
 * plain loop running one command per input line.
 */
#include "tools.h"

#include <errno.h>
#include <histedit.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

#define REPL_PROMPT "mcpidx> "
#define MAX_CANDIDATES 400  /* completion candidates gathered at most */
#define HISTORY_SIZE 1000   /* lines kept in the history file */

/* State of one interactive session. */
typedef struct repl {
	mi_query *q;         /* the open index */
	bool json;           /* every answer as JSON */
	bool color;          /* colour the answers (stdout is a TTY, no NO_COLOR) */
	EditLine *el;        /* line editor */
	History *hist;       /* history list */
	char *hist_path;     /* history file, malloc'd; NULL: none */
} repl;

/* A list of completion candidates. */
typedef struct cands {
	char **v;            /* malloc'd strings */
	size_t n;            /* used */
} cands;

static volatile sig_atomic_t got_sigint;

static void on_sigint(int sig)
{
	(void)sig;
	got_sigint = 1;
}

/* ---- splitting a line into words -------------------------------------------------- */

/*
 * Splits s into words: blanks separate, "..." and '...' group (a backslash
 * escapes '"' and '\' inside double quotes and any character outside
 * quotes).  Returns 0 with *argv (malloc'd, NULL-terminated, words
 * malloc'd) or 1 with a message in err.
 */
static int split_line(const char *s, int *argc, char ***argv, mi_buf *err)
{
	char **av = NULL;
	int ac = 0, cap = 0;
	mi_buf w = {0};
	const char *p = s;
	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p)
			break;
		mi_buf_reset(&w);
		mi_buf_adds(&w, ""); /* an empty "" is still a word */
		char quote = 0;
		while (*p && (quote || (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r'))) {
			if (quote) {
				if (*p == quote) {
					quote = 0;
				} else if (quote == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\')) {
					mi_buf_addc(&w, *++p);
				} else {
					mi_buf_addc(&w, *p);
				}
			} else if (*p == '"' || *p == '\'') {
				quote = *p;
			} else if (*p == '\\' && p[1]) {
				mi_buf_addc(&w, *++p);
			} else {
				mi_buf_addc(&w, *p);
			}
			p++;
		}
		if (quote) {
			mi_buf_addf(err, "unbalanced %c quote: close it, or escape it as \\%c", quote, quote);
			for (int i = 0; i < ac; i++)
				free(av[i]);
			free(av);
			mi_buf_release(&w);
			return 1;
		}
		if (ac + 2 > cap) {
			cap = cap ? cap * 2 : 8;
			av = mi_xrealloc(av, (size_t)cap * sizeof(*av));
		}
		av[ac++] = mi_xstrdup(mi_buf_str(&w));
	}
	if (!av)
		av = mi_xcalloc(1, sizeof(*av));
	av[ac] = NULL;
	*argc = ac;
	*argv = av;
	mi_buf_release(&w);
	return 0;
}

static void free_words(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
}

/* ---- output: colour and pager ------------------------------------------------------ */

#define C_RESET "\033[0m"
#define C_FUNC "\033[1;33m"
#define C_TYPE "\033[1;32m"
#define C_MOD "\033[1;35m"
#define C_VIRT "\033[36m"
#define C_LOC "\033[34m"
#define C_HEAD "\033[1m"

static const char *mark_color(char m)
{
	switch (m) {
	case 'F': return C_FUNC;
	case 'C': case 'S': case 'E': case 'T': return C_TYPE;
	case 'M': case 'P': return C_MOD;
	}
	return NULL;
}

/* Length of a block mark at s ("F>", "F_", "F▼", "F▶"), 0 if none. */
static size_t mark_len(const char *s, size_t n)
{
	if (n < 2 || !mark_color(s[0]))
		return 0;
	if (s[1] == '>' || s[1] == '_')
		return (n == 2 || s[2] == ' ') ? 2 : 0;
	if (n >= 4 && (unsigned char)s[1] == 0xe2 && (unsigned char)s[2] == 0x96)
		return 4;
	return 0;
}

/* Appends one line of folded text to out with colour. */
static void color_line(mi_buf *out, const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	mi_buf_add(out, s, i);
	const char *t = s + i;
	size_t rest = n - i, ml;
	if (rest >= 2 && t[0] == 'V' && (t[1] == '*' || (unsigned char)t[1] == 0xe2)) {
		mi_buf_adds(out, C_VIRT);
		mi_buf_add(out, t, rest);
		mi_buf_adds(out, C_RESET);
	} else if ((ml = mark_len(t, rest))) {
		mi_buf_adds(out, mark_color(t[0]));
		mi_buf_add(out, t, ml);
		mi_buf_adds(out, C_RESET);
		mi_buf_add(out, t + ml, rest - ml);
	} else if (rest && t[0] == '#' && i == 0) {
		mi_buf_adds(out, C_HEAD);
		mi_buf_add(out, t, rest);
		mi_buf_adds(out, C_RESET);
	} else {
		/* "path:12-20 kind": the location in colour. */
		size_t k = 0;
		while (k < rest && t[k] != ' ' && t[k] != ':')
			k++;
		if (i == 0 && k > 0 && k + 1 < rest && t[k] == ':' && t[k + 1] >= '0' && t[k + 1] <= '9') {
			size_t e = k;
			while (e < rest && t[e] != ' ')
				e++;
			mi_buf_adds(out, C_LOC);
			mi_buf_add(out, t, e);
			mi_buf_adds(out, C_RESET);
			mi_buf_add(out, t + e, rest - e);
		} else {
			mi_buf_add(out, t, rest);
		}
	}
}

static void colorize(const char *s, size_t n, mi_buf *out)
{
	size_t i = 0;
	while (i < n) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - s) : n;
		color_line(out, s + i, e - i);
		if (nl)
			mi_buf_addc(out, '\n');
		i = e + 1;
	}
}

/* Screen rows text takes at the terminal's width. */
static size_t screen_rows(const char *s, size_t n, size_t cols)
{
	size_t rows = 0, col = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n') {
			rows++;
			col = 0;
		} else if (c == '\033') {
			while (i < n && s[i] != 'm')
				i++;
		} else if ((c & 0xc0) != 0x80) {
			if (++col > cols) {
				rows++;
				col = 1;
			}
		}
	}
	return rows + (col > 0);
}

/* Writes text to stdout, through $PAGER (or less -FRX) when it is taller
 * than the terminal. */
static void show(const char *s, size_t n)
{
	struct winsize ws;
	bool fits = true;
	if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
		fits = screen_rows(s, n, ws.ws_col) < ws.ws_row;
	if (!fits) {
		const char *pager = getenv("PAGER");
		if (!pager || !*pager)
			pager = "less -FRX";
		fflush(stdout);
		void (*old)(int) = signal(SIGPIPE, SIG_IGN);
		FILE *p = popen(pager, "w");
		if (p) {
			fwrite(s, 1, n, p);
			int rc = pclose(p);
			signal(SIGPIPE, old);
			got_sigint = 0;
			if (rc == 0 || (rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) != 127))
				return;
		} else {
			signal(SIGPIPE, old);
		}
	}
	fwrite(s, 1, n, stdout);
	fflush(stdout);
}

/* ---- completion ---------------------------------------------------------------------- */

static void cands_add(cands *c, const char *s, size_t n)
{
	if (c->n >= MAX_CANDIDATES)
		return;
	if (c->n && strlen(c->v[c->n - 1]) == n && !memcmp(c->v[c->n - 1], s, n))
		return; /* keys come sorted: neighbours are the duplicates */
	if (c->n % 64 == 0)
		c->v = mi_xrealloc(c->v, (c->n + 64) * sizeof(*c->v));
	c->v[c->n++] = mi_xstrndup(s, n);
}

static void cands_clear(cands *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i]);
	free(c->v);
	c->v = NULL;
	c->n = 0;
}

static void complete_words(const char *const *words, const char *pfx, cands *c)
{
	size_t n = strlen(pfx);
	for (int i = 0; words[i]; i++)
		if (!strncmp(words[i], pfx, n))
			cands_add(c, words[i], strlen(words[i]));
}

/* Keys of db that start with pfx, each cut at the first `stop` byte past
 * the prefix (kept when keep_stop): MI_DB_FILES keys give paths one
 * folder at a time. */
static void complete_keys(repl *r, int db, const char *pfx, char stop, bool keep_stop,
			  cands *c)
{
	mi_txn *t;
	mi_cursor *cur;
	const void *k, *v;
	size_t kl, vl, n = strlen(pfx);
	if (mi_txn_begin(mi_query_store(r->q), false, &t))
		return;
	if (mi_cursor_open(t, db, &cur) == 0) {
		for (int rc = mi_cursor_seek_prefix(cur, pfx, n, &k, &kl, &v, &vl); rc == 0 && c->n < MAX_CANDIDATES;
		     rc = mi_cursor_next(cur, &k, &kl, &v, &vl)) {
			const char *e = memchr((const char *)k + n, stop, kl - n);
			cands_add(c, k, e ? (size_t)(e - (const char *)k) + keep_stop : kl);
		}
		mi_cursor_close(cur);
	}
	mi_txn_abort(t);
}

/* Defined names that start with pfx, from the blocks of MI_DB_NAMES. */
static void complete_symbols(repl *r, const char *pfx, cands *c)
{
	mi_txn *t;
	mi_cursor *cur;
	const void *k, *v;
	size_t kl, vl, n = strlen(pfx);
	bool past = false;
	if (mi_txn_begin(mi_query_store(r->q), false, &t))
		return;
	if (mi_cursor_open(t, MI_DB_NAMES, &cur) == 0) {
		for (int rc = mi_cursor_seek(cur, pfx, n, &k, &kl, &v, &vl);
		     rc == 0 && !past && c->n < MAX_CANDIDATES;
		     rc = mi_cursor_next(cur, &k, &kl, &v, &vl)) {
			mi_byname it;
			const char *p;
			size_t pl;
			uint32_t idx;
			mi_byname_entry(t, false, k, kl, v, vl, &it);
			it.nopath = true;
			while (c->n < MAX_CANDIDATES && !mi_names_next(&it, &p, &pl, &idx)) {
				int cmp = strncmp(it.name, pfx, n);
				if (cmp < 0)
					continue;
				if (cmp > 0) {
					past = true;
					break;
				}
				if (!c->n || strcmp(c->v[c->n - 1], it.name))
					cands_add(c, it.name, it.nl);
			}
			mi_byname_close(&it);
		}
		mi_cursor_close(cur);
	}
	mi_txn_abort(t);
}

static void complete_paths(repl *r, const char *pfx, cands *c)
{
	complete_keys(r, MI_DB_FILES, pfx, '/', true, c);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the candidates and drops duplicates. */
static void cands_sort_unique(cands *c)
{
	size_t o = 0;
	if (!c->n)
		return;
	qsort(c->v, c->n, sizeof(*c->v), cmp_str);
	for (size_t i = 0; i < c->n; i++) {
		if (o && !strcmp(c->v[o - 1], c->v[i]))
			free(c->v[i]);
		else
			c->v[o++] = c->v[i];
	}
	c->n = o;
}

/* Symbols of one file that start with pfx (for expand PATH SELECTOR). */
static void complete_file_symbols(repl *r, const char *path, const char *pfx, cands *c)
{
	mi_txn *t;
	mi_syms it;
	const void *v;
	size_t vl, n = strlen(pfx);
	if (mi_txn_begin(mi_query_store(r->q), false, &t))
		return;
	if (mi_syms_open(t, path, strlen(path), 0, &it) == 0) {
		while (c->n < MAX_CANDIDATES && mi_syms_next(&it, &v, &vl, NULL) == 0) {
			mi_parsed owner;
			mi_symbol sym;
			mi_parsed_init(&owner);
			if (mi_symbol_decode(v, vl, &sym, &owner) == 0 && !strncmp(sym.name, pfx, n))
				cands_add(c, sym.name, strlen(sym.name));
			mi_parsed_release(&owner);
		}
	}
	mi_syms_close(&it);
	mi_txn_abort(t);
	cands_sort_unique(c);
}

static const char *const option_names[] = {
	"--json", "--all", "--limit", "--path", "--ext", "--format", "--mode", "--filter",
	"--line-numbers", "--marks", "--what", "--depth", "--focus", "--kind", "--block-guides",
	"--unicode", "--max-tokens", NULL,
};

static const char *const exit_words[] = {"exit", NULL};

/* Fills c with what the word being typed (cur) can become, given the
 * words before it. */
static void candidates(repl *r, int argc, char **argv, const char *cur, cands *c)
{
	if (argc == 0) {
		complete_words(mi_query_cmd_names, cur, c);
		complete_words(exit_words, cur, c);
		cands_sort_unique(c);
		return;
	}
	if (cur[0] == '-') {
		complete_words(option_names, cur, c);
		cands_sort_unique(c);
		return;
	}
	/* Position among the positional arguments, skipping option values. */
	int pos = 0;
	const char *first = NULL;
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-') {
			if (strcmp(argv[i], "--json") && strcmp(argv[i], "--all") &&
			    strcmp(argv[i], "--block-guides") && strcmp(argv[i], "--unicode") &&
			    !strchr(argv[i], '=') && i + 1 < argc)
				i++;
			continue;
		}
		if (!pos)
			first = argv[i];
		pos++;
	}
	const char *cmd = argv[0];
	if (!strcmp(cmd, "outline") || (!strcmp(cmd, "expand") && pos == 0) ||
	    (!strcmp(cmd, "def") && pos == 1))
		complete_paths(r, cur, c);
	else if (!strcmp(cmd, "expand") && pos == 1 && first)
		complete_file_symbols(r, first, cur, c);
	else if (!strcmp(cmd, "help"))
		complete_words(mi_query_cmd_names, cur, c);
	else if (strcmp(cmd, "stats") && strcmp(cmd, "expand"))
		complete_symbols(r, cur, c);
}

/* Prints the candidates in columns under the line being edited. */
static void list_candidates(const cands *c)
{
	struct winsize ws;
	size_t cols = 80, w = 0;
	if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		cols = ws.ws_col;
	for (size_t i = 0; i < c->n; i++)
		if (strlen(c->v[i]) > w)
			w = strlen(c->v[i]);
	w += 2;
	size_t per = cols / w ? cols / w : 1;
	fputc('\n', stdout);
	for (size_t i = 0; i < c->n; i++) {
		bool last = (i + 1) % per == 0 || i + 1 == c->n;
		if (last)
			fprintf(stdout, "%s\n", c->v[i]);
		else
			fprintf(stdout, "%-*s", (int)w, c->v[i]);
	}
	if (c->n == MAX_CANDIDATES)
		fprintf(stdout, "(first %d shown)\n", MAX_CANDIDATES);
	fflush(stdout);
}

/* libedit key function bound to TAB. */
static unsigned char on_tab(EditLine *el, int ch)
{
	(void)ch;
	repl *r = NULL;
	el_get(el, EL_CLIENTDATA, &r);
	const LineInfo *li = el_line(el);
	size_t upto = (size_t)(li->cursor - li->buffer);
	char *head = mi_xstrndup(li->buffer, upto);
	unsigned char ret = CC_ERROR;
	cands c = {0};
	mi_buf err = {0};
	int argc = 0;
	char **argv = NULL;

	/* The word being typed starts after the last unquoted blank. */
	size_t ws = 0;
	char quote = 0;
	for (size_t i = 0; i < upto; i++) {
		char ch2 = head[i];
		if (quote) {
			if (ch2 == quote)
				quote = 0;
			else if (quote == '"' && ch2 == '\\' && i + 1 < upto)
				i++;
		} else if (ch2 == '"' || ch2 == '\'') {
			quote = ch2;
		} else if (ch2 == '\\' && i + 1 < upto) {
			i++;
		} else if (ch2 == ' ' || ch2 == '\t') {
			ws = i + 1;
		}
	}
	char *before = mi_xstrndup(head, ws);
	int wc = 0;
	char **wv = NULL;
	if (split_line(head + ws, &wc, &wv, &err) == 0 || quote) {
		const char *cur = wc > 0 ? wv[0] : "";
		char *curcopy = NULL;
		if (quote) {
			/* An open quote: the word is what follows it. */
			const char *q = strchr(head + ws, quote);
			curcopy = mi_xstrdup(q ? q + 1 : "");
			cur = curcopy;
		}
		if (split_line(before, &argc, &argv, &err) == 0) {
			candidates(r, argc, argv, cur, &c);
			size_t n = strlen(cur);
			if (c.n == 1) {
				mi_buf ins = {0};
				const char *full = c.v[0];
				mi_buf_adds(&ins, full + n);
				size_t fl = strlen(full);
				if (!(fl && full[fl - 1] == '/')) {
					if (quote)
						mi_buf_addc(&ins, quote);
					mi_buf_addc(&ins, ' ');
				}
				if (ins.len)
					el_insertstr(el, ins.buf);
				mi_buf_release(&ins);
				ret = CC_REFRESH;
			} else if (c.n > 1) {
				size_t common = strlen(c.v[0]);
				for (size_t i = 1; i < c.n; i++) {
					size_t k = 0;
					while (k < common && c.v[i][k] == c.v[0][k])
						k++;
					common = k;
				}
				if (common > n) {
					char *ext = mi_xstrndup(c.v[0] + n, common - n);
					el_insertstr(el, ext);
					free(ext);
					ret = CC_REFRESH;
				} else {
					list_candidates(&c);
					ret = CC_REDISPLAY;
				}
			}
			free_words(argc, argv);
		}
		free(curcopy);
		free_words(wc, wv);
	}
	cands_clear(&c);
	mi_buf_release(&err);
	free(before);
	free(head);
	return ret;
}

/* ---- running lines --------------------------------------------------------------------- */

static void repl_help(FILE *out)
{
	mi_query_cmd_help(out);
	fprintf(out, "\nat the prompt: TAB completes commands, symbol names and paths; quotes group\n"
		     "words (\"parse config\"); Up/Down walk the history; Ctrl-C drops the line;\n"
		     "Ctrl-D, quit or exit leaves.\n");
}

/* Runs one line: 0.. the command's status, -1 to leave. */
static int run_line(repl *r, const char *line, bool tty)
{
	int argc, status = 0;
	char **argv;
	mi_buf err = {0};
	if (split_line(line, &argc, &argv, &err)) {
		fprintf(stderr, "mcpidx: %s\n", mi_buf_str(&err));
		mi_buf_release(&err);
		return 2;
	}
	mi_buf_release(&err);
	if (argc == 0)
		goto out;
	if (!strcmp(argv[0], "quit") || !strcmp(argv[0], "exit")) {
		status = -1;
		goto out;
	}
	if (!strcmp(argv[0], "help") && argc == 1) {
		if (tty) {
			char *buf = NULL;
			size_t len = 0;
			FILE *mem = open_memstream(&buf, &len);
			repl_help(mem);
			fclose(mem);
			show(buf, len);
			free(buf);
		} else {
			repl_help(stdout);
		}
		goto out;
	}
	if (!tty) {
		status = mi_query_cmd_run(r->q, argc, argv, r->json, stdout);
		fflush(stdout);
		goto out;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem) {
		status = mi_query_cmd_run(r->q, argc, argv, r->json, stdout);
		goto out;
	}
	status = mi_query_cmd_run(r->q, argc, argv, r->json, mem);
	fclose(mem);
	bool json = r->json;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--json"))
			json = true;
	if (r->color && !json) {
		mi_buf c = {0};
		colorize(buf, len, &c);
		show(c.buf ? c.buf : "", c.len);
		mi_buf_release(&c);
	} else {
		show(buf, len);
	}
	free(buf);
out:
	free_words(argc, argv);
	return status;
}

/* Commands from a pipe or file, one per line. */
static int repl_lines(repl *r)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int status = 0;
	while ((n = getline(&line, &cap, stdin)) >= 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		const char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		int rc = run_line(r, p, false);
		if (rc < 0)
			break;
		status = rc;
	}
	free(line);
	return status;
}

static char *prompt_fn(EditLine *el)
{
	(void)el;
	return REPL_PROMPT;
}

static char *history_file(void)
{
	const char *env = getenv("MCPIDX_HISTORY");
	if (env)
		return *env ? mi_xstrdup(env) : NULL; /* empty: no history file */
	const char *home = getenv("HOME");
	if (!home || !*home)
		return NULL;
	mi_buf b = {0};
	mi_buf_addf(&b, "%s/.mcpidx_history", home);
	return mi_buf_detach(&b);
}

/* The interactive loop on a terminal. */
static int repl_tty(repl *r)
{
	HistEvent ev;
	struct sigaction sa, old_int;
	r->hist = history_init();
	history(r->hist, &ev, H_SETSIZE, HISTORY_SIZE);
	history(r->hist, &ev, H_SETUNIQUE, 1);
	r->hist_path = history_file();
	if (r->hist_path)
		history(r->hist, &ev, H_LOAD, r->hist_path);

	r->el = el_init("mcpidx", stdin, stdout, stderr);
	el_set(r->el, EL_CLIENTDATA, r);
	el_set(r->el, EL_EDITOR, "emacs");
	el_set(r->el, EL_PROMPT, prompt_fn);
	el_set(r->el, EL_HIST, history, r->hist);
	/* The wide forms keep our static strings (the narrow EL_ADDFN copies
	 * them and never frees the copies). */
	el_wset(r->el, EL_ADDFN, L"mcpidx-complete", L"complete a command, symbol or path", on_tab);
	el_wset(r->el, EL_BIND, L"^I", L"mcpidx-complete", NULL);
	el_source(r->el, NULL);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: Ctrl-C interrupts the read */
	sigaction(SIGINT, &sa, &old_int);

	const char *mark = r->color ? "\033[2m" : "";
	const char *reset = r->color ? C_RESET : "";
	printf("%smcpidx %s on %s. help lists the commands; TAB completes; Ctrl-D leaves.%s\n", mark,
	       MI_VERSION, mi_query_path(r->q), reset);
	for (;;) {
		int count = 0;
		got_sigint = 0;
		errno = 0;
		const char *line = el_gets(r->el, &count);
		if (!line) {
			if (got_sigint || errno == EINTR) {
				/* Ctrl-C: drop the line, keep the prompt. */
				fputs("^C\n", stdout);
				fflush(stdout);
				el_reset(r->el);
				continue;
			}
			fputc('\n', stdout); /* Ctrl-D on an empty line */
			break;
		}
		if (got_sigint) {
			fputs("^C\n", stdout);
			continue;
		}
		const char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		size_t n = strlen(p);
		while (n && (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (!n)
			continue;
		char *cmd = mi_xstrndup(p, n);
		history(r->hist, &ev, H_ENTER, cmd);
		if (r->hist_path)
			history(r->hist, &ev, H_SAVE, r->hist_path);
		int rc = run_line(r, cmd, true);
		free(cmd);
		if (rc < 0)
			break;
	}
	sigaction(SIGINT, &old_int, NULL);
	el_end(r->el);
	history_end(r->hist);
	free(r->hist_path);
	return 0;
}

int mi_repl_run(mi_query *q, bool json)
{
	repl r = {.q = q, .json = json};
	const char *nc = getenv("NO_COLOR");
	r.color = isatty(1) && !(nc && *nc) && !(getenv("TERM") && !strcmp(getenv("TERM"), "dumb"));
	if (!isatty(0) || !isatty(1))
		return repl_lines(&r);
	return repl_tty(&r);
}
