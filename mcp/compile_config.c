/*
 * compile_config.c - the compile targets of a repository, read from the
 * `[compile.NAME]` tables of its `.mcpidx.toml` (the subset of TOML a
 * config needs: tables, strings, integers, booleans, arrays of strings,
 * comments), and the command a run of one executes.
 */
#include "compile_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What a parser at one point of the file holds. */
typedef struct toml {
	const char *p, *end;   /* the unread text */
	const char *file;      /* for messages */
	int line;              /* current line, 1-based */
	mi_buf *err;           /* where the first error goes */
} toml;

/* A value: a string, an integer, a boolean or an array of strings. */
enum { V_STR, V_INT, V_BOOL, V_ARR };
typedef struct tval {
	int type;
	char *s;               /* V_STR */
	long long i;           /* V_INT, V_BOOL */
	char **a;              /* V_ARR, NULL-terminated */
	size_t n;
} tval;

static int fail(toml *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(toml *t, const char *fmt, ...)
{
	va_list ap;
	if (t->err->len)
		return -1;
	mi_buf_addf(t->err, "%s:%d: ", t->file, t->line);
	va_start(ap, fmt);
	mi_buf_vaddf(t->err, fmt, ap);
	va_end(ap);
	return -1;
}

/* Skips blanks and comments; with nl, newlines too. */
static void skip(toml *t, bool nl)
{
	while (t->p < t->end) {
		char c = *t->p;
		if (c == ' ' || c == '\t' || c == '\r')
			t->p++;
		else if (c == '#')
			while (t->p < t->end && *t->p != '\n')
				t->p++;
		else if (c == '\n' && nl) {
			t->line++;
			t->p++;
		} else
			break;
	}
}

static bool bare_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

/* A "basic" or 'literal' string, one line. */
static int str(toml *t, char **out)
{
	char q = *t->p++;
	mi_buf b = {0};
	while (t->p < t->end && *t->p != q) {
		char c = *t->p++;
		if (c == '\n') {
			mi_buf_release(&b);
			return fail(t, "a string does not end on its line: close it with %c", q);
		}
		if (c == '\\' && q == '"') {
			char e = t->p < t->end ? *t->p++ : 0;
			static const char from[] = "\"\\ntr", to[] = "\"\\\n\t\r";
			const char *k = e ? strchr(from, e) : NULL;
			if (!k) {
				mi_buf_release(&b);
				return fail(t, "unknown escape \\%c in a string (use \\\" \\\\ \\n \\t \\r)", e);
			}
			c = to[k - from];
		}
		mi_buf_addc(&b, c);
	}
	if (t->p >= t->end) {
		mi_buf_release(&b);
		return fail(t, "a string does not end: close it with %c", q);
	}
	t->p++;
	*out = mi_buf_detach(&b);
	if (!*out)
		*out = mi_xstrdup("");
	return 0;
}

/* A key: bare or quoted. */
static int key(toml *t, char **out)
{
	const char *s = t->p;
	if (t->p < t->end && (*t->p == '"' || *t->p == '\''))
		return str(t, out);
	while (t->p < t->end && bare_char(*t->p))
		t->p++;
	if (t->p == s)
		return fail(t, "expected a key (letters, digits, '_', '-', or a quoted string)");
	*out = mi_xstrndup(s, (size_t)(t->p - s));
	return 0;
}

static void tval_free(tval *v)
{
	free(v->s);
	if (v->a)
		for (size_t i = 0; i < v->n; i++)
			free(v->a[i]);
	free(v->a);
	memset(v, 0, sizeof *v);
}

static int value(toml *t, tval *v)
{
	memset(v, 0, sizeof *v);
	if (t->p >= t->end)
		return fail(t, "expected a value after '='");
	if (*t->p == '"' || *t->p == '\'') {
		v->type = V_STR;
		return str(t, &v->s);
	}
	if (*t->p == '[') {
		t->p++;
		v->type = V_ARR;
		v->a = mi_xcalloc(1, sizeof *v->a);
		for (;;) {
			skip(t, true);
			if (t->p < t->end && *t->p == ']') {
				t->p++;
				return 0;
			}
			if (t->p >= t->end || (*t->p != '"' && *t->p != '\''))
				return fail(t, "an array here holds strings only: [\"make\", \"app\"]");
			v->a = mi_xrealloc(v->a, (v->n + 2) * sizeof *v->a);
			v->a[v->n + 1] = NULL;
			if (str(t, &v->a[v->n]))
				return -1;
			v->n++;
			skip(t, true);
			if (t->p < t->end && *t->p == ',')
				t->p++;
			else if (t->p < t->end && *t->p != ']')
				return fail(t, "expected ',' or ']' in an array");
		}
	}
	if (t->end - t->p >= 4 && !memcmp(t->p, "true", 4)) {
		v->type = V_BOOL;
		v->i = 1;
		t->p += 4;
		return 0;
	}
	if (t->end - t->p >= 5 && !memcmp(t->p, "false", 5)) {
		v->type = V_BOOL;
		t->p += 5;
		return 0;
	}
	if ((*t->p >= '0' && *t->p <= '9') || *t->p == '-' || *t->p == '+') {
		char *e;
		errno = 0;
		v->type = V_INT;
		v->i = strtoll(t->p, &e, 10);
		if (e == t->p || errno)
			return fail(t, "expected an integer");
		t->p = e;
		return 0;
	}
	return fail(t, "expected a value: a \"string\", an integer, true/false or [\"an\", \"array\"]");
}

/* Moves an array value's strings into *dst (NULL-terminated). */
static char **take_arr(tval *v, size_t *n)
{
	char **a = v->a;
	*n = v->n;
	v->a = NULL;
	v->n = 0;
	return a;
}

static bool name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!bare_char(*s) && *s != '.')
			return false;
	return true;
}

static bool parser_known(const char *name)
{
	for (size_t i = 0; mi_compile_parsers[i]; i++)
		if (!strcmp(mi_compile_parsers[i], name))
			return true;
	return false;
}

/* Applies key = v to target tg. */
static int set_key(toml *t, mi_compile_target *tg, const char *k, tval *v, const char *root)
{
	if (!strcmp(k, "argv")) {
		if (v->type != V_ARR || v->n == 0 || !v->a[0][0])
			return fail(t, "argv must be a non-empty array of strings, the program "
				    "first: argv = [\"make\", \"app\"] (commands never go through a shell)");
		tg->argv = take_arr(v, &tg->argc);
	} else if (!strcmp(k, "cwd")) {
		mi_buf norm = {0}, abs = {0};
		char *real;
		int rc = 0;
		if (v->type != V_STR)
			return fail(t, "cwd must be a string: a directory relative to the repository root");
		if (v->s[0] && strcmp(v->s, ".") && mi_path_normalize(v->s, &norm))
			rc = fail(t, "cwd \"%s\" leaves the repository: give a directory inside it, "
				  "relative to its root", v->s);
		if (!rc) {
			mi_buf_addf(&abs, "%s/%s", root, mi_buf_str(&norm));
			real = realpath(abs.buf, NULL);
			if (!real)
				rc = fail(t, "cwd \"%s\" does not exist in the repository", v->s);
			else if (strncmp(real, root, strlen(root)) ||
				 (real[strlen(root)] && real[strlen(root)] != '/'))
				rc = fail(t, "cwd \"%s\" leads outside the repository (a symlink?)", v->s);
			free(real);
		}
		if (!rc) {
			free(tg->cwd);
			tg->cwd = mi_xstrdup(mi_buf_str(&norm));
		}
		mi_buf_release(&norm);
		mi_buf_release(&abs);
		return rc;
	} else if (!strcmp(k, "timeout")) {
		if (v->type != V_INT || v->i < 1 || v->i > MI_COMPILE_TIMEOUT_MAX)
			return fail(t, "timeout must be a whole number of seconds, 1 to %d",
				    MI_COMPILE_TIMEOUT_MAX);
		tg->timeout_s = (int)v->i;
	} else if (!strcmp(k, "env")) {
		if (v->type != V_ARR)
			return fail(t, "env must be an array of variable names: env = [\"PATH\", \"HOME\"]");
		for (size_t i = 0; i < v->n; i++)
			if (!v->a[i][0] || strchr(v->a[i], '='))
				return fail(t, "env lists names of variables passed from the server's "
					    "environment (\"CC\"), not values (\"%s\")", v->a[i]);
		for (size_t i = 0; tg->env && tg->env[i]; i++)
			free(tg->env[i]);
		free(tg->env);
		tg->env = take_arr(v, &tg->nenv);
	} else if (!strcmp(k, "flags")) {
		if (v->type != V_ARR)
			return fail(t, "flags must be an array of the exact strings a caller may "
				    "append: flags = [\"-k\", \"V=1\"]");
		tg->flags = take_arr(v, &tg->nflags);
	} else if (!strcmp(k, "parser")) {
		if (v->type != V_STR || !parser_known(v->s)) {
			mi_buf names = {0};
			int rc;
			for (size_t i = 0; mi_compile_parsers[i]; i++)
				mi_buf_addf(&names, "%s%s", i ? ", " : "", mi_compile_parsers[i]);
			rc = fail(t, "parser must be one of: %s", names.buf);
			mi_buf_release(&names);
			return rc;
		}
		free(tg->parser);
		tg->parser = v->s;
		v->s = NULL;
	} else {
		return fail(t, "unknown key \"%s\" in a compile target (argv, cwd, timeout, "
			    "env, flags, parser)", k);
	}
	return 0;
}

static void target_release(mi_compile_target *tg)
{
	free(tg->name);
	mi_compile_argv_free(tg->argv);
	free(tg->cwd);
	mi_compile_argv_free(tg->env);
	mi_compile_argv_free(tg->flags);
	free(tg->parser);
}

void mi_compile_config_free(mi_compile_config *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		target_release(&c->targets[i]);
	free(c->targets);
	free(c->root);
	free(c->file);
	free(c);
}

static const char *const default_env[] = {"PATH", "HOME", "TMPDIR", NULL};

#define CONFIG_MAX_TARGETS 1000  /* [compile.NAME] tables in one file */

/* Parses the whole file into c. */
static int parse(toml *t, mi_compile_config *c)
{
	mi_compile_target *cur = NULL;  /* the [compile.NAME] being read */
	bool other = false;             /* inside a table that is not ours */
	for (;;) {
		skip(t, true);
		if (t->p >= t->end)
			break;
		if (*t->p == '[') {
			mi_buf name = {0};
			t->p++;
			if (t->p < t->end && *t->p == '[')
				return fail(t, "arrays of tables ([[...]]) are not used here: write "
					    "[compile.NAME]");
			for (;;) {
				char *part;
				skip(t, false);
				if (key(t, &part)) {
					mi_buf_release(&name);
					return -1;
				}
				mi_buf_addf(&name, "%s%s", name.len ? "." : "", part);
				free(part);
				skip(t, false);
				if (t->p < t->end && *t->p == '.') {
					t->p++;
					continue;
				}
				break;
			}
			if (t->p >= t->end || *t->p != ']') {
				mi_buf_release(&name);
				return fail(t, "expected ']' to close the table name");
			}
			t->p++;
			cur = NULL;
			other = strncmp(mi_buf_str(&name), "compile.", 8) != 0;
			if (!other) {
				const char *tn = name.buf + 8;
				if (!name_ok(tn)) {
					mi_buf_release(&name);
					return fail(t, "a target name holds letters, digits, '_', '-' and '.'");
				}
				if (c->n >= CONFIG_MAX_TARGETS) {
					/* each is looked up by name: a 1 MiB file of
					 * 45,000 targets took seconds per tools/list */
					mi_buf_release(&name);
					return fail(t, "more than %d compile targets", CONFIG_MAX_TARGETS);
				}
				for (size_t i = 0; i < c->n; i++)
					if (!strcmp(c->targets[i].name, tn)) {
						fail(t, "target \"%s\" is defined twice", tn);
						mi_buf_release(&name);
						return -1;
					}
				c->targets = mi_xrealloc(c->targets, (c->n + 1) * sizeof *c->targets);
				cur = &c->targets[c->n++];
				memset(cur, 0, sizeof *cur);
				cur->name = mi_xstrdup(tn);
				cur->cwd = mi_xstrdup("");
				cur->timeout_s = MI_COMPILE_TIMEOUT;
				cur->parser = mi_xstrdup("auto");
			} else if (!strcmp(mi_buf_str(&name), "compile")) {
				mi_buf_release(&name);
				return fail(t, "name the target: [compile.NAME], e.g. [compile.app]");
			}
			mi_buf_release(&name);
		} else {
			char *k;
			tval v;
			int rc;
			if (key(t, &k))
				return -1;
			skip(t, false);
			if (t->p >= t->end || *t->p != '=') {
				free(k);
				return fail(t, "expected '=' after the key");
			}
			t->p++;
			skip(t, false);
			rc = value(t, &v);
			if (!rc && !cur && !other)
				rc = fail(t, "\"%s\" outside a table: put it under [compile.NAME]", k);
			if (!rc && cur)
				rc = set_key(t, cur, k, &v, c->root);
			tval_free(&v);
			free(k);
			if (rc)
				return -1;
		}
		skip(t, false);
		if (t->p < t->end && *t->p != '\n')
			return fail(t, "unexpected text after a value (one key = value per line)");
	}
	for (size_t i = 0; i < c->n; i++) {
		mi_compile_target *tg = &c->targets[i];
		if (!tg->argv) {
			t->line = 0;
			return fail(t, "target \"%s\" has no argv: argv = [\"make\", \"%s\"]",
				    tg->name, tg->name);
		}
		if (!tg->env) {
			tg->env = mi_xcalloc(4, sizeof *tg->env);
			for (size_t k = 0; default_env[k]; k++)
				tg->env[tg->nenv++] = mi_xstrdup(default_env[k]);
		}
		if (!tg->flags)
			tg->flags = mi_xcalloc(1, sizeof *tg->flags);
	}
	return 0;
}

#define CONFIG_MAX (1u << 20)   /* bytes of .mcpidx.toml read */

int mi_compile_config_load(const char *root, mi_compile_config **out, mi_buf *err)
{
	mi_compile_config *c = mi_xcalloc(1, sizeof *c);
	mi_buf path = {0};
	char *text = NULL;
	size_t len = 0;
	struct stat sb;
	int rc;
	toml t;

	*out = NULL;
	c->root = realpath(root, NULL);
	if (!c->root) {
		rc = errno;
		mi_buf_addf(err, "cannot read the repository %s: %s", root, strerror(rc));
		goto out;
	}
	mi_buf_addf(&path, "%s/%s", c->root, MI_COMPILE_CONFIG);
	c->file = mi_buf_detach(&path);
	/* the repository's own file: a FIFO (or a committed link to one, or to
	 * /dev/zero) would block or exhaust the server at tools/list */
	if (stat(c->file, &sb) == 0 && (!S_ISREG(sb.st_mode) || sb.st_size > CONFIG_MAX)) {
		rc = MI_ERR_ARG;
		mi_buf_addf(err, "%s is %s: compile targets are read from a regular file of "
			    "at most 1 MiB", c->file, S_ISREG(sb.st_mode) ? "over 1 MiB" :
			    "not a regular file");
		goto out;
	}
	if ((rc = mi_read_file(c->file, &text, &len))) {
		if (rc == ENOENT) {
			rc = MI_ERR_NOTFOUND;
			mi_buf_addf(err, "no %s in %s: compile targets are named there "
				    "([compile.NAME] with argv = [...])", MI_COMPILE_CONFIG, c->root);
		} else {
			mi_buf_addf(err, "cannot read %s: %s", c->file, mi_strerror(rc));
		}
		goto out;
	}
	t = (toml){.p = text, .end = text + len, .file = c->file, .line = 1, .err = err};
	if (memchr(text, 0, len) || !mi_utf8_valid(text, len)) {
		rc = fail(&t, "the file is not UTF-8 text") ? MI_ERR_ARG : 0;
		goto out;
	}
	if (parse(&t, c)) {
		rc = MI_ERR_ARG;
		goto out;
	}
	if (!c->n) {
		rc = MI_ERR_NOTFOUND;
		mi_buf_addf(err, "%s names no compile target: add [compile.NAME] with "
			    "argv = [...]", c->file);
		goto out;
	}
	*out = c;
	c = NULL;
	rc = 0;
out:
	free(text);
	mi_compile_config_free(c);
	return rc;
}

const mi_compile_target *mi_compile_target_find(const mi_compile_config *c, const char *name)
{
	for (size_t i = 0; c && name && i < c->n; i++)
		if (!strcmp(c->targets[i].name, name))
			return &c->targets[i];
	return NULL;
}

int mi_compile_argv(const mi_compile_target *t, const char *const *flags, size_t nflags,
		    char ***argv, mi_buf *err)
{
	char **a;
	size_t n = 0;
	*argv = NULL;
	for (size_t i = 0; i < nflags; i++) {
		bool ok = false;
		for (size_t k = 0; k < t->nflags && !ok; k++)
			ok = !strcmp(flags[i], t->flags[k]);
		if (!ok) {
			mi_buf_addf(err, "flag \"%s\" is not allowed for target \"%s\"; ", flags[i],
				    t->name);
			if (!t->nflags)
				mi_buf_adds(err, "it allows none (list them in its flags = [...])");
			else {
				mi_buf_adds(err, "it allows:");
				for (size_t k = 0; k < t->nflags; k++)
					mi_buf_addf(err, " \"%s\"", t->flags[k]);
			}
			return MI_ERR_ARG;
		}
	}
	a = mi_xcalloc(t->argc + nflags + 1, sizeof *a);
	for (size_t i = 0; i < t->argc; i++)
		a[n++] = mi_xstrdup(t->argv[i]);
	for (size_t i = 0; i < nflags; i++)
		a[n++] = mi_xstrdup(flags[i]);
	*argv = a;
	return 0;
}

void mi_compile_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}
