/*
 * test_ignore.c - .gitignore matching (indexer/ignore.c) checked against a
 * table of decisions and against `git check-ignore` on real trees.
 */
#include "test.h"
#include "indexer/indexer_int.h"
#include "format/format.h"
#include "indexer/walk.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the table: rules at the root, one path, git's verdict ------------------ */

typedef struct ig_case {
	const char *rules;  /* .gitignore text */
	const char *path;   /* repo-relative */
	bool is_dir;        /* path is a directory */
	bool ignored;       /* what git says */
} ig_case;

#define REINC "/*\n!/foo\n/foo/*\n!/foo/bar\n"

static const ig_case cases[] = {
	/* plain names and suffixes, at any depth */
	{ "*.o", "a.o", 0, 1 },
	{ "*.o", "src/deep/a.o", 0, 1 },
	{ "*.o", "a.o.c", 0, 0 },
	{ "*.o", "a.o", 1, 1 },
	{ "*.o", "o", 0, 0 },
	{ "*.o", ".o", 0, 1 },
	{ "foo", "foo", 0, 1 },
	{ "foo", "a/b/foo", 1, 1 },
	{ "foo", "foobar", 0, 0 },
	{ "foo", "xfoo", 0, 0 },
	{ "Foo", "foo", 0, 0 },
	{ "*.[oa]", "lib.a", 0, 1 },
	{ "*", "anything", 0, 1 },
	{ "***", "a/b", 0, 1 },
	/* negation: the last matching rule wins */
	{ "*.o\n!keep.o", "keep.o", 0, 0 },
	{ "*.o\n!keep.o", "src/keep.o", 0, 0 },
	{ "!keep.o\n*.o", "keep.o", 0, 1 },
	{ "!x", "x", 0, 0 },
	{ "x\n!", "x", 0, 1 },
	{ "foo\n!foo/", "foo", 1, 0 },
	{ "foo\n!foo/", "foo", 0, 1 },
	{ "*.tmp/\n!x.tmp/", "x.tmp", 1, 0 },
	{ "*.tmp/\n!x.tmp/", "y.tmp/f", 0, 1 },
	/* a file cannot come back from inside an excluded directory */
	{ "foo/", "foo/bar", 0, 1 },
	{ "foo/\n!foo/bar", "foo/bar", 0, 1 },
	{ "foo\n!foo/bar", "foo/bar", 0, 1 },
	{ "foo/*\n!foo/bar", "foo/bar", 0, 0 },
	{ "foo/*\n!foo/bar", "foo/baz", 0, 1 },
	{ REINC, "foo/bar/x", 0, 0 },
	{ REINC, "foo/bar", 1, 0 },
	{ REINC, "foo/baz", 0, 1 },
	{ REINC, "other", 0, 1 },
	{ REINC, "other/x", 0, 1 },
	/* anchoring: a slash at the start or in the middle */
	{ "/foo", "foo", 0, 1 },
	{ "/foo", "a/foo", 0, 0 },
	{ "a/foo", "a/foo", 0, 1 },
	{ "a/foo", "x/a/foo", 0, 0 },
	{ "/foo/bar", "foo/bar", 0, 1 },
	{ "a/*.c", "a/x.c", 0, 1 },
	{ "a/*.c", "a/b/x.c", 0, 0 },
	{ "*/bar", "foo/bar", 0, 1 },
	{ "*/bar", "a/foo/bar", 0, 0 },
	/* directories only */
	{ "foo/", "foo", 1, 1 },
	{ "foo/", "foo", 0, 0 },
	{ "foo/", "a/foo", 1, 1 },
	{ "frotz/", "a/frotz", 1, 1 },
	{ "doc/frotz/", "doc/frotz", 1, 1 },
	{ "doc/frotz/", "a/doc/frotz", 1, 0 },
	{ "/a/b/", "a/b", 1, 1 },
	{ "/a/b/", "a/b", 0, 0 },
	{ "/a/b/", "a/b/c", 0, 1 },
	/* "**" */
	{ "**/foo", "foo", 0, 1 },
	{ "**/foo", "a/b/foo", 0, 1 },
	{ "**/foo/bar", "x/foo/bar", 0, 1 },
	{ "**/foo/bar", "foo/bar", 0, 1 },
	{ "**/foo/bar", "foo/x/bar", 0, 0 },
	{ "**/*.c", "a/b.c", 0, 1 },
	{ "abc/**", "abc/x/y", 0, 1 },
	{ "abc/**", "abc", 1, 0 },
	{ "abc/**", "abc", 0, 0 },
	{ "a/**", "a/b/c", 1, 1 },
	{ "a/**/b", "a/b", 0, 1 },
	{ "a/**/b", "a/x/b", 0, 1 },
	{ "a/**/b", "a/x/y/b", 0, 1 },
	{ "a/**/b", "x/a/b", 0, 0 },
	{ "a/**/b", "a/xb", 0, 0 },
	{ "a/**/**/b", "a/b", 0, 1 },
	{ "**/a/**", "x/a/y", 0, 1 },
	{ "/**/b", "x/b", 0, 1 },
	{ "**", "a/b", 0, 1 },
	{ "a**b", "axxb", 0, 1 },
	{ "a**b", "a/x/b", 0, 0 },
	{ "x/a**b", "x/aqqb", 0, 1 },
	{ "x/a**b", "x/a/b", 0, 0 },
	{ "x/y**", "x/y/z", 0, 1 },
	{ "foo**/bar", "foo/x/bar", 0, 1 },
	/* '?' and classes never match '/' */
	{ "a?c", "abc", 0, 1 },
	{ "a?c", "ac", 0, 0 },
	{ "x/a?c", "x/a/c", 0, 0 },
	{ "x/a[/]c", "x/a/c", 0, 0 },
	{ "[a-c]x", "bx", 0, 1 },
	{ "[a-c]x", "dx", 0, 0 },
	{ "[!a-c]x", "dx", 0, 1 },
	{ "[!a-c]x", "ax", 0, 0 },
	{ "[^a]x", "bx", 0, 1 },
	{ "[]]x", "]x", 0, 1 },
	{ "[!]]x", "]x", 0, 0 },
	{ "[a-]x", "-x", 0, 1 },
	{ "[[:digit:]]x", "5x", 0, 1 },
	{ "[[:digit:]]x", "ax", 0, 0 },
	{ "[[:upper:][:digit:]]", "Q", 0, 1 },
	{ "[[:nope:]]x", "nx", 0, 0 },
	{ "[abc", "[abc", 0, 0 },
	{ "[\\]]x", "]x", 0, 1 },
	/* escapes, comments, spaces, line endings */
	{ "\\#x", "#x", 0, 1 },
	{ "#x", "#x", 0, 0 },
	{ "\\!x", "!x", 0, 1 },
	{ "x\\ ", "x ", 0, 1 },
	{ "x  ", "x", 0, 1 },
	{ "x  ", "x ", 0, 0 },
	{ "x\\  ", "x ", 0, 1 },
	{ "x\t", "x\t", 0, 1 },
	{ "x\t", "x", 0, 0 },
	{ " x", " x", 0, 1 },
	{ "x\\*", "x*", 0, 1 },
	{ "x\\*", "xy", 0, 0 },
	{ "x\\?", "x?", 0, 1 },
	{ "\\[x]", "[x]", 0, 1 },
	{ "a\\\\b", "a\\b", 0, 1 },
	{ "crlf\r\nother", "crlf", 0, 1 },
	{ "crlf\r\nother", "other", 0, 1 },
	{ "\xEF\xBB\xBF" "bom", "bom", 0, 1 },
	{ "", "x", 0, 0 },
	{ "   \n\n#x\n", "x", 0, 0 },
	{ "/", "x", 1, 0 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

TEST(table)
{
	for (size_t i = 0; i < NCASES; i++) {
		mi_ignore *ig = mi_ignore_new();
		mi_ignore_push_text(ig, "", cases[i].rules);
		bool got = mi_ignore_match(ig, cases[i].path, cases[i].is_dir);
		if (got != cases[i].ignored)
			TEST_FAIL_("case %zu: rules \"%s\", %s \"%s\": got %s, want %s", i,
				   cases[i].rules, cases[i].is_dir ? "dir" : "file",
				   cases[i].path, got ? "ignored" : "kept",
				   cases[i].ignored ? "ignored" : "kept");
		mi_ignore_free(ig);
	}
}

/* ---- helpers for real trees ----------------------------------------------- */

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	mi_buf b = { 0 };
	va_list ap;
	va_start(ap, fmt);
	mi_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	return mi_buf_detach(&b);
}

/* mkdir -p of path[0..n) */
static int mkdirs(const char *path, size_t n)
{
	char *p = mi_xstrndup(path, n);
	int rc = 0;
	for (char *s = p + 1; ; s++) {
		if (*s == '/' || !*s) {
			char c = *s;
			*s = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST)
				rc = errno;
			*s = c;
			if (!c || rc)
				break;
		}
	}
	free(p);
	return rc;
}

static int write_file(const char *path, const char *data, size_t len)
{
	const char *slash = strrchr(path, '/');
	FILE *f;
	if (slash && mkdirs(path, (size_t)(slash - path)))
		return -1;
	f = fopen(path, "wb");
	if (!f)
		return -1;
	fwrite(data, 1, len, f);
	return fclose(f);
}

/* Creates tree entry rel under root: a directory when it ends in '/'. */
static int make_entry(const char *root, const char *rel)
{
	char *full = xasprintf("%s/%s", root, rel);
	size_t n = strlen(full);
	int rc = full[n - 1] == '/' ? mkdirs(full, n - 1) : write_file(full, "x\n", 2);
	free(full);
	return rc;
}

/* Runs a git command in repo (as a git init'ed work tree) that prints
 * NUL-terminated paths; verdict[i] tells whether paths[i] was printed.
 * ls_files: `git ls-files -o -i --exclude-standard` (git's own walk),
 * otherwise `git check-ignore` on every path.  0 on success. */
static int git_run(const char *work, const char *repo, char **paths, size_t n,
		   bool *verdict, bool ls_files)
{
	char *list = xasprintf("%s/list", work), *out = xasprintf("%s/out", work);
	char *cmd = ls_files ?
		xasprintf("cd '%s' && git init -q . >/dev/null 2>&1 && "
			  "git ls-files -o -i --exclude-standard -z > '%s'", repo, out) :
		xasprintf("cd '%s' && git init -q . >/dev/null 2>&1 && "
			  "git check-ignore --stdin -z < '%s' > '%s'", repo, list, out);
	char *data = NULL;
	size_t len = 0;
	int rc = -1, st;
	FILE *f = fopen(list, "wb");

	if (!f)
		goto out;
	for (size_t i = 0; i < n; i++)
		fwrite(paths[i], 1, strlen(paths[i]) + 1, f);
	fclose(f);
	/* a clean git: no user or system excludes */
	setenv("HOME", work, 1);
	setenv("XDG_CONFIG_HOME", work, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	unsetenv("GIT_INDEX_FILE");
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) > 1) {
		printf("git %s failed in %s (status %d): is git installed?\n",
		       ls_files ? "ls-files" : "check-ignore", repo, st);
		goto out;
	}
	if (mi_read_file(out, &data, &len))
		goto out;
	for (size_t i = 0; i < n; i++)
		verdict[i] = false;
	for (size_t pos = 0; pos < len;) {
		const char *p = data + pos;
		size_t pl = strlen(p);
		for (size_t i = 0; i < n; i++)
			if (!strcmp(paths[i], p))
				verdict[i] = true;
		pos += pl + 1;
	}
	rc = 0;
out:
	free(data);
	free(list);
	free(out);
	free(cmd);
	return rc;
}

static int git_verdicts(const char *work, const char *repo, char **paths,
			size_t n, bool *verdict)
{
	return git_run(work, repo, paths, n, verdict, false);
}

static char *make_workdir(void)
{
	char tmpl[] = "/tmp/mi-ignore-XXXXXX";
	return mkdtemp(tmpl) ? mi_xstrdup(tmpl) : NULL;
}

static void remove_tree(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("could not remove %s\n", dir);
	free(cmd);
}

TEST(table_agrees_with_git)
{
	char *work = make_workdir(), *repo;
	char *paths[NCASES];
	bool git[NCASES];

	CHECK(work != NULL);
	if (!work)
		return;
	repo = xasprintf("%s/repo", work);
	mkdir(repo, 0755);
	for (size_t i = 0; i < NCASES; i++) {
		char *gi = xasprintf("%s/c%03zu/.gitignore", repo, i);
		char *entry = xasprintf("c%03zu/%s%s", i, cases[i].path,
					cases[i].is_dir ? "/" : "");
		CHECK(write_file(gi, cases[i].rules, strlen(cases[i].rules)) == 0);
		CHECK(make_entry(repo, entry) == 0);
		paths[i] = xasprintf("c%03zu/%s", i, cases[i].path);
		free(gi);
		free(entry);
	}
	CHECK(git_verdicts(work, repo, paths, NCASES, git) == 0);
	for (size_t i = 0; i < NCASES && !test_case_failed; i++)
		if (git[i] != cases[i].ignored)
			TEST_FAIL_("case %zu: git says %s \"%s\" under rules \"%s\" is %s",
				   i, cases[i].is_dir ? "dir" : "file", cases[i].path,
				   cases[i].rules, git[i] ? "ignored" : "kept");
	for (size_t i = 0; i < NCASES; i++)
		free(paths[i]);
	remove_tree(work);
	free(repo);
	free(work);
}

/* ---- fixture trees: the specs in testdata/ignore/ -------------------------- */

typedef struct walk_out {
	char **paths;       /* repo-relative, owned */
	bool *is_dir;       /* per path */
	bool *walk;         /* verdict while walking with push/pop */
	bool *all;          /* verdict with every set pushed at once */
	char **gitignores;  /* dir_rel of each directory holding a .gitignore */
	size_t n, cap, ngi;
} walk_out;

/* Builds the tree of a spec under root. 0 on success. */
static int spec_build(const char *spec, const char *root)
{
	char *text = NULL;
	size_t len = 0;
	int rc = mi_read_file(spec, &text, &len);
	char *file = NULL;
	mi_buf body = { 0 };
	bool in_paths = false;

	if (rc)
		return rc;
	for (size_t pos = 0; pos < len;) {
		char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - line) : len - pos;
		pos += ll + 1;
		if (ll >= 3 && !memcmp(line, "== ", 3)) {
			if (file) {
				char *full = xasprintf("%s/%s", root, file);
				rc |= write_file(full, body.buf ? body.buf : "", body.len);
				free(full);
				free(file);
				file = NULL;
			}
			mi_buf_reset(&body);
			in_paths = ll == 8 && !memcmp(line, "== paths", 8);
			if (!in_paths)
				file = mi_xstrndup(line + 3, ll - 3);
			continue;
		}
		if (in_paths && ll) {
			char *rel = mi_xstrndup(line, ll);
			if (make_entry(root, rel)) {
				printf("cannot create %s in %s\n", rel, root);
				rc = -1;
			}
			free(rel);
		} else if (file) {
			mi_buf_add(&body, line, ll);
			if (nl)
				mi_buf_addc(&body, '\n');
		}
	}
	if (file) {
		char *full = xasprintf("%s/%s", root, file);
		rc |= write_file(full, body.buf ? body.buf : "", body.len);
		free(full);
		free(file);
	}
	mi_buf_release(&body);
	free(text);
	return rc;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The indexer's way: pop to the directory, push its .gitignore, match each
 * entry, descend into every directory (ignored ones too). */
static void walk(mi_ignore *ig, const char *root, const char *rel, walk_out *o)
{
	char *dirpath = *rel ? xasprintf("%s/%s", root, rel) : mi_xstrdup(root);
	char *gi = xasprintf("%s/.gitignore", dirpath);
	DIR *d = opendir(dirpath);
	struct dirent *de;
	char **names = NULL;
	size_t nn = 0;

	mi_ignore_pop_to(ig, rel);
	if (mi_ignore_push_file(ig, rel, gi) > 0) {
		o->gitignores = mi_xrealloc(o->gitignores, (o->ngi + 1) * sizeof(char *));
		o->gitignores[o->ngi++] = mi_xstrdup(rel);
	}
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (!*rel && !strcmp(de->d_name, ".git")))
			continue;
		names = mi_xrealloc(names, (nn + 1) * sizeof(char *));
		names[nn++] = mi_xstrdup(de->d_name);
	}
	if (d)
		closedir(d);
	if (nn)
		qsort(names, nn, sizeof(char *), name_cmp);
	for (size_t i = 0; i < nn; i++) {
		char *child = *rel ? xasprintf("%s/%s", rel, names[i]) : mi_xstrdup(names[i]);
		char *full = xasprintf("%s/%s", root, child);
		struct stat st;
		bool dir = lstat(full, &st) == 0 && S_ISDIR(st.st_mode);
		if (o->n == o->cap) {
			o->cap = o->cap ? 2 * o->cap : 64;
			o->paths = mi_xrealloc(o->paths, o->cap * sizeof(char *));
			o->is_dir = mi_xrealloc(o->is_dir, o->cap * sizeof(bool));
			o->walk = mi_xrealloc(o->walk, o->cap * sizeof(bool));
			o->all = mi_xrealloc(o->all, o->cap * sizeof(bool));
		}
		o->paths[o->n] = child;
		o->is_dir[o->n] = dir;
		o->walk[o->n] = mi_ignore_match(ig, child, dir);
		o->n++;
		if (dir)
			walk(ig, root, child, o);
		free(full);
		free(names[i]);
	}
	free(names);
	free(gi);
	free(dirpath);
}

static void walk_out_release(walk_out *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->paths[i]);
	for (size_t i = 0; i < o->ngi; i++)
		free(o->gitignores[i]);
	free(o->paths);
	free(o->is_dir);
	free(o->walk);
	free(o->all);
	free(o->gitignores);
}

/* Checks one spec: returns the number of paths compared, -1 on setup error. */
static long check_spec(const char *spec)
{
	char *work = make_workdir(), *repo = NULL;
	walk_out o = { 0 };
	bool *git = NULL, *listed = NULL;
	long rc = -1;
	mi_ignore *ig = NULL;

	if (!work)
		return -1;
	repo = xasprintf("%s/repo", work);
	if (mkdir(repo, 0755) || spec_build(spec, repo)) {
		TEST_FAIL_("cannot build the tree of %s in %s", spec, repo);
		goto out;
	}
	ig = mi_ignore_new();
	walk(ig, repo, "", &o);
	mi_ignore_free(ig);

	/* Every set at once, pushed deepest first, paths matched backwards. */
	ig = mi_ignore_new();
	for (size_t i = o.ngi; i-- > 0;) {
		char *gi = *o.gitignores[i] ? xasprintf("%s/%s/.gitignore", repo, o.gitignores[i])
					    : xasprintf("%s/.gitignore", repo);
		CHECK(mi_ignore_push_file(ig, o.gitignores[i], gi) > 0);
		free(gi);
	}
	for (size_t i = o.n; i-- > 0;)
		o.all[i] = mi_ignore_match(ig, o.paths[i], o.is_dir[i]);
	mi_ignore_free(ig);

	git = mi_xcalloc(o.n ? o.n : 1, sizeof(bool));
	if (git_verdicts(work, repo, o.paths, o.n, git)) {
		TEST_FAIL_("git check-ignore did not run on %s", spec);
		goto out;
	}
	listed = mi_xcalloc(o.n ? o.n : 1, sizeof(bool));
	if (git_run(work, repo, o.paths, o.n, listed, true)) {
		TEST_FAIL_("git ls-files did not run on %s", spec);
		goto out;
	}
	size_t nignored = 0;
	for (size_t i = 0; i < o.n; i++) {
		nignored += git[i];
		if (!o.is_dir[i] && listed[i] != o.walk[i])
			TEST_FAIL_("%s: file \"%s\": walk says %s, git ls-files -o -i says %s",
				   spec, o.paths[i], o.walk[i] ? "ignored" : "kept",
				   listed[i] ? "ignored" : "kept");
	}
	if (!nignored || nignored == o.n)
		TEST_FAIL_("%s: git ignores %zu of %zu paths; the spec should mix both",
			   spec, nignored, o.n);
	for (size_t i = 0; i < o.n; i++) {
		if (o.walk[i] != git[i])
			TEST_FAIL_("%s: %s \"%s\": walk says %s, git says %s", spec,
				   o.is_dir[i] ? "dir" : "file", o.paths[i],
				   o.walk[i] ? "ignored" : "kept", git[i] ? "ignored" : "kept");
		if (o.all[i] != git[i])
			TEST_FAIL_("%s: %s \"%s\": all-sets match says %s, git says %s", spec,
				   o.is_dir[i] ? "dir" : "file", o.paths[i],
				   o.all[i] ? "ignored" : "kept", git[i] ? "ignored" : "kept");
	}
	rc = (long)o.n;
out:
	free(git);
	free(listed);
	walk_out_release(&o);
	remove_tree(work);
	free(repo);
	free(work);
	return rc;
}

static void run_spec(const char *name, long min_paths)
{
	char *spec = xasprintf("testdata/ignore/%s.spec", name);
	long n = check_spec(spec);
	if (n < min_paths)
		TEST_FAIL_("%s: compared %ld paths, want at least %ld", spec, n, min_paths);
	free(spec);
}

TEST(spec_basic) { run_spec("basic", 60); }
TEST(spec_nested) { run_spec("nested", 30); }
TEST(spec_reinclude) { run_spec("reinclude", 15); }
TEST(spec_quirks) { run_spec("quirks", 40); }

/* ---- random rules and paths, decided by git --------------------------------- */

static uint32_t rnd_state = 20240611;
static uint32_t rnd(uint32_t n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 8) % n;
}

static void random_rule(mi_buf *b)
{
	static const char *tok[] = { "a", "b", "ab", "*", "**", "?", "/", "[ab]",
				     "[!a]", "\\a", ".c", "*.c", "[a-b]", "\\*" };
	size_t n = 1 + rnd(5);
	if (!rnd(4))
		mi_buf_addc(b, '!');
	for (size_t i = 0; i < n; i++)
		mi_buf_adds(b, tok[rnd(sizeof(tok) / sizeof(tok[0]))]);
	if (!rnd(4))
		mi_buf_addc(b, '/');
	mi_buf_addc(b, '\n');
}

TEST(random_agrees_with_git)
{
	enum { NRULESETS = 150, NPATHS = 8, N = NRULESETS * NPATHS };
	static const char *comp[] = { "a", "b", "ab", "ba", "a.c", "b.c", "aa", "*" };
	char *work = make_workdir(), *repo;
	char **paths = mi_xcalloc(N, sizeof(char *)), **rules = mi_xcalloc(N, sizeof(char *));
	bool *is_dir = mi_xcalloc(N, sizeof(bool)), *git = mi_xcalloc(N, sizeof(bool));
	size_t nignored = 0, nfail = 0;

	/* MI_IGNORE_SEED=n explores other draws */
	if (getenv("MI_IGNORE_SEED"))
		rnd_state = (uint32_t)strtoul(getenv("MI_IGNORE_SEED"), NULL, 10);
	CHECK(work != NULL);
	if (!work)
		goto out;
	repo = xasprintf("%s/repo", work);
	mkdir(repo, 0755);
	for (size_t r = 0; r < NRULESETS; r++) {
		mi_buf text = { 0 };
		size_t nr = 1 + rnd(3);
		for (size_t k = 0; k < nr; k++)
			random_rule(&text);
		for (size_t j = 0; j < NPATHS; j++) {
			size_t i = r * NPATHS + j, depth = 1 + rnd(4);
			mi_buf p = { 0 };
			char *gi = xasprintf("%s/c%05zu/.gitignore", repo, i), *entry;
			for (size_t d = 0; d < depth; d++)
				mi_buf_addf(&p, "%s%s", d ? "/" : "", comp[rnd(8)]);
			is_dir[i] = !rnd(3);
			rules[i] = mi_xstrdup(mi_buf_str(&text));
			paths[i] = xasprintf("c%05zu/%s", i, mi_buf_str(&p));
			entry = xasprintf("%s%s", paths[i], is_dir[i] ? "/" : "");
			CHECK(write_file(gi, text.buf, text.len) == 0);
			CHECK(make_entry(repo, entry) == 0);
			free(gi);
			free(entry);
			mi_buf_release(&p);
		}
		mi_buf_release(&text);
	}
	CHECK(git_verdicts(work, repo, paths, N, git) == 0);
	for (size_t i = 0; i < N && !test_case_failed; i++) {
		mi_ignore *ig = mi_ignore_new();
		char *dir = mi_xstrndup(paths[i], 6);
		bool ours;
		mi_ignore_push_text(ig, dir, rules[i]);
		ours = mi_ignore_match(ig, paths[i], is_dir[i]);
		nignored += git[i];
		if (ours != git[i] && nfail++ < 10)
			printf("rules \"%s\", %s \"%s\": ours %s, git %s\n", rules[i],
			       is_dir[i] ? "dir" : "file", paths[i] + 7,
			       ours ? "ignored" : "kept", git[i] ? "ignored" : "kept");
		mi_ignore_free(ig);
		free(dir);
	}
	if (nfail)
		TEST_FAIL_("%zu of %d random cases differ from git", nfail, N);
	if (nignored < N / 10 || nignored > N - N / 10)
		TEST_FAIL_("git ignored %zu of %d random paths: too one-sided to test", nignored, N);
	remove_tree(work);
	free(repo);
out:
	for (size_t i = 0; i < N; i++) {
		free(paths[i]);
		free(rules[i]);
	}
	free(paths);
	free(rules);
	free(is_dir);
	free(git);
	free(work);
}

/* ---- the API around the matcher ------------------------------------------ */

TEST(stack)
{
	mi_ignore *ig = mi_ignore_new();

	CHECK(!mi_ignore_match(ig, "a.o", false));
	CHECK_INT(mi_ignore_push_file(ig, "", "testdata/ignore/no-such-file"), 0);
	CHECK_INT(mi_ignore_push_text(ig, "", "# only a comment\n\n"), 0);
	CHECK_INT(mi_ignore_push_text(ig, "", "*.o\n/top\n"), 2);
	CHECK_INT(mi_ignore_push_text(ig, "src", "!*.o\n/gen/\n"), 2);
	CHECK_INT(mi_ignore_push_text(ig, "src/lib", "*.c\n"), 1);

	CHECK(mi_ignore_match(ig, "a.o", false));
	CHECK(!mi_ignore_match(ig, "src/a.o", false));
	CHECK(!mi_ignore_match(ig, "src/lib/a.o", false));
	CHECK(mi_ignore_match(ig, "src/lib/x.c", false));
	CHECK(!mi_ignore_match(ig, "src/x.c", false));
	CHECK(!mi_ignore_match(ig, "other/x.c", false));
	CHECK(mi_ignore_match(ig, "src/gen", true));
	CHECK(mi_ignore_match(ig, "src/gen/f.h", false));
	CHECK(!mi_ignore_match(ig, "gen/f.h", false));
	CHECK(mi_ignore_match(ig, "top", false));
	CHECK(!mi_ignore_match(ig, "src/top", false));
	/* a set never applies to its own directory */
	CHECK_INT(mi_ignore_push_text(ig, "src/self", "self\n"), 1);
	CHECK(!mi_ignore_match(ig, "src/self", true));
	CHECK(mi_ignore_match(ig, "src/self/self", true));
	/* a trailing slash names a directory, leading slashes are dropped */
	CHECK(mi_ignore_match(ig, "src/gen/", false));
	CHECK(mi_ignore_match(ig, "/top", false));
	CHECK(!mi_ignore_match(ig, "", false));

	mi_ignore_pop_to(ig, "src");
	CHECK(!mi_ignore_match(ig, "src/lib/x.c", false));
	CHECK(!mi_ignore_match(ig, "src/lib/a.o", false));
	CHECK(mi_ignore_match(ig, "src/gen/f.h", false));
	mi_ignore_pop_to(ig, "srcx");
	CHECK(mi_ignore_match(ig, "src/a.o", false));
	CHECK(!mi_ignore_match(ig, "src/gen/f.h", false));
	mi_ignore_pop_to(ig, "");
	CHECK(mi_ignore_match(ig, "x/a.o", false));
	mi_ignore_free(ig);
	mi_ignore_free(NULL);
}

/* Cached verdicts for parent directories must follow pushes and pops. */
TEST(parent_cache)
{
	mi_ignore *ig = mi_ignore_new();

	mi_ignore_push_text(ig, "", "!/a/\n");
	CHECK(!mi_ignore_match(ig, "a/b/f", false));
	mi_ignore_push_text(ig, "a", "b/\n");
	CHECK(mi_ignore_match(ig, "a/b/f", false));
	CHECK(mi_ignore_match(ig, "a/b/c/f", false));
	CHECK(!mi_ignore_match(ig, "a/bc/f", false));
	CHECK(!mi_ignore_match(ig, "a/f", false));
	mi_ignore_pop_to(ig, "");
	CHECK(!mi_ignore_match(ig, "a/b/f", false));
	CHECK(!mi_ignore_match(ig, "a/b/c/f", false));
	mi_ignore_push_text(ig, "", "c\n");
	CHECK(mi_ignore_match(ig, "a/b/c/f", false));
	CHECK(!mi_ignore_match(ig, "a/b/f", false));
	CHECK(mi_ignore_match(ig, "x/c/y/z", false));
	CHECK(!mi_ignore_match(ig, "x/cc/y/z", false));
	CHECK(mi_ignore_match(ig, "c/y", false));
	mi_ignore_free(ig);
}

TEST(push_file_reads_rules)
{
	char *work = make_workdir();
	char *gi = work ? xasprintf("%s/.gitignore", work) : NULL;
	mi_ignore *ig = mi_ignore_new();

	CHECK(work != NULL);
	if (!work)
		goto out;
	static const char text[] = "\xEF\xBB\xBF*.o\r\n!keep.o\nbuild/";
	CHECK(write_file(gi, text, sizeof(text) - 1) == 0);
	CHECK_INT(mi_ignore_push_file(ig, "", gi), 3);
	CHECK(mi_ignore_match(ig, "x/a.o", false));
	CHECK(!mi_ignore_match(ig, "x/keep.o", false));
	CHECK(mi_ignore_match(ig, "build", true));
	CHECK_INT(mi_ignore_push_file(ig, "", work), 0);  /* a directory */
	remove_tree(work);
out:
	mi_ignore_free(ig);
	free(gi);
	free(work);
}

/* "**" retried the rest of the pattern at every position with no memory:
 * "**\/a/" twelve times then "**\/b" over 60 nested a/ took hours. */
TEST(starstar_runs_are_polynomial)
{
	char rules[128] = "", path[256] = "";
	for (int i = 0; i < 12; i++)
		strcat(rules, "**/a/");
	strcat(rules, "**/b\n");
	mi_ignore *ig = mi_ignore_new();
	mi_ignore_push_text(ig, "", rules);
	clock_t t0 = clock();
	for (int i = 0; i < 60; i++) {
		strcat(path, "a/");
		char x[256];
		snprintf(x, sizeof(x), "%sx", path);
		CHECK(!mi_ignore_match(ig, x, false));
		snprintf(x, sizeof(x), "%sb", path);
		if (mi_ignore_match(ig, x, false) != (i >= 11))
			TEST_FAIL_("%s: wrong verdict", x);
		CHECK(!mi_ignore_match(ig, path, true));
	}
	double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	if (secs > 0.5)
		TEST_FAIL_("12 \"**/a/\" took %.2fs", secs);
	mi_ignore_free(ig);
}

/* Patterns that defeat naive backtracking must still answer at once, and a
 * kernel-sized walk must stay fast. */
TEST(speed)
{
	static const char *rules =
		"*.o\n*.o.*\n*.a\n*.s\n*.ko\n*.so\n*.so.dbg\n*.mod.c\n*.i\n*.lst\n"
		"*.symtypes\n*.order\n*.elf\n*.bin\n*.tar\n*.gz\n*.bz2\n*.lzma\n"
		"*.xz\n*.lz4\n*.lzo\n*.patch\n*.gcno\n*.ll\nmodules.builtin\n"
		"Module.symvers\n*.dwo\n*.su\n*.c.[012]*.*\n/tags\n/TAGS\n/linux\n"
		"/vmlinux\n/vmlinux.32\n/vmlinux-gdb.py\n/vmlinuz\n/System.map\n"
		"/Module.markers\n/modules.builtin.modinfo\n/modules.nsdeps\n"
		"/debian/\n/rpmbuild/\n/tar-install/\n.*\n!.get_maintainer.ignore\n"
		"!.gitattributes\n!.gitignore\n!.mailmap\n!.rustfmt.toml\n*.orig\n"
		"*~\n\\#*#\n/Documentation/output/\n*.rej\n.cache/\nx509.genkey\n"
		"/certs/signing_key.pem\n*.pem\n*.x509\n/include/config/\n"
		"/include/generated/\n/arch/*/include/generated/\n/scripts/kconfig/\n"
		"*.mod\nGPATH\nGRTAGS\nGSYMS\nGTAGS\n*.dtb\n*.dtbo\n*.dtb.S\n";
	mi_ignore *ig = mi_ignore_new();
	char path[256];
	size_t ignored = 0;
	clock_t t0;
	double secs;

	mi_ignore_push_text(ig, "", "*a*a*a*a*a*a*a*a*a*a*a*a*b\nq/**/**/**/**/**/**/**/z\n");
	t0 = clock();
	CHECK(!mi_ignore_match(ig, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false));
	CHECK(!mi_ignore_match(ig, "q/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/y", false));
	CHECK(mi_ignore_match(ig, "q/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/z", false));
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	if (secs > 0.5)
		TEST_FAIL_("pathological patterns took %.2fs", secs);
	mi_ignore_pop_to(ig, "none");

	mi_ignore_push_text(ig, "", rules);
	mi_ignore_push_text(ig, "drivers", "/gpu/gen/\n*.tmp\n");
	t0 = clock();
	for (int i = 0; i < 200000; i++) {
		static const char *exts[] = { "c", "h", "o", "S", "mod.c", "rs" };
		snprintf(path, sizeof(path), "drivers/net/ethernet/vendor%d/sub%d/file_%d.%s",
			 i / 60 % 37, i / 12 % 11, i, exts[i % 6]);
		ignored += mi_ignore_match(ig, path, false);
	}
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	CHECK_INT(ignored, 200000 / 3);
	printf("speed: 200000 matches against %s rules in %.3fs\n", "kernel", secs);
	if (secs > 5.0)
		TEST_FAIL_("200000 matches took %.2fs", secs);
	mi_ignore_free(ig);
}


/* ---- the walk: several threads list what one thread lists ------------------ */

static void walk_with(const char *root, int threads, bool no_ignore, mi_walk *w)
{
	memset(w, 0, sizeof(*w));
	w->root = root;
	w->max_size = 1u << 20;
	w->no_ignore = no_ignore;
	w->list = true;
	w->threads = threads;
	mi_walk_run(w);
}

static void walk_same(const mi_walk *a, const mi_walk *b, const char *what)
{
	if (a->n != b->n || a->nskips != b->nskips)
		TEST_FAIL_("%s: %zu files, %zu skips vs %zu, %zu", what, a->n, a->nskips, b->n,
			   b->nskips);
	for (size_t i = 0; i < a->n && i < b->n && !test_case_failed; i++)
		if (strcmp(a->files[i].path, b->files[i].path) || a->files[i].lang != b->files[i].lang ||
		    a->files[i].size != b->files[i].size)
			TEST_FAIL_("%s: file %zu is %s vs %s", what, i, a->files[i].path,
				   b->files[i].path);
	for (size_t i = 0; i < a->nskips && i < b->nskips && !test_case_failed; i++)
		if (strcmp(a->skips[i].path, b->skips[i].path) || a->skips[i].reason != b->skips[i].reason)
			TEST_FAIL_("%s: skip %zu is %s vs %s", what, i, a->skips[i].path,
				   b->skips[i].path);
	CHECK(!memcmp(a->skipped, b->skipped, sizeof(a->skipped)));
}

/* A random tree five folders deep with ignore files at every level (rules
 * that reach below them, negations, folder rules), vendored folders and
 * links: walked by 1, 2 and 5 threads, the files, skips and counts are the
 * same, in the same order. */
TEST(parallel_walk_lists_what_one_thread_lists)
{
	static const char *comp[] = {"a", "b", "a-b", "a.b", "lib", "src", "node_modules", "z"};
	static const char *ext[] = {".c", ".py", ".txt", ".min.js", ".go", "", ".h", ".md"};
	static const char *rule[] = {"*.txt", "!keep.txt", "b/", "/src", "a-b/**/*.c", "*.h\n!z.h",
				     "lib/*.py", "a.b"};
	char *work = make_workdir();
	CHECK(work != NULL);
	if (!work)
		return;
	rnd_state = 7;
	for (int i = 0; i < 600; i++) {
		mi_buf p = {0};
		size_t depth = rnd(6);
		for (size_t d = 0; d < depth; d++)
			mi_buf_addf(&p, "%s/", comp[rnd(8)]);
		if (!rnd(9)) {
			char *gi = xasprintf("%s/%s.gitignore", work, mi_buf_str(&p));
			const char *r = rule[rnd(8)];
			CHECK(write_file(gi, r, strlen(r)) == 0);
			free(gi);
		} else {
			mi_buf_addf(&p, "%s%d%s", rnd(5) ? "f" : "keep", (int)rnd(4), ext[rnd(8)]);
			CHECK(make_entry(work, mi_buf_str(&p)) == 0);
		}
		mi_buf_release(&p);
	}
	char *l1 = xasprintf("%s/a/link.c", work), *l2 = xasprintf("%s/b/up", work);
	mkdirs(l2, strlen(work) + 2);
	CHECK(symlink("../z/x.c", l1) == 0 || errno == ENOENT);
	CHECK(symlink("..", l2) == 0);
	for (int ni = 0; ni < 2; ni++) {
		mi_walk one, two, five;
		walk_with(work, 1, ni, &one);
		walk_with(work, 2, ni, &two);
		walk_with(work, 5, ni, &five);
		if (one.n < 100 || (!ni && (!one.skipped[MI_SKIP_IGNORED] ||
					    !one.skipped[MI_SKIP_VENDORED])))
			TEST_FAIL_("a tree too plain to test: %zu files, %zu ignored, %zu vendored",
				   one.n, one.skipped[MI_SKIP_IGNORED], one.skipped[MI_SKIP_VENDORED]);
		walk_same(&one, &two, ni ? "--no-ignore, 2 threads" : "2 threads");
		walk_same(&one, &five, ni ? "--no-ignore, 5 threads" : "5 threads");
		mi_walk_release(&one);
		mi_walk_release(&two);
		mi_walk_release(&five);
	}
	remove_tree(work);
	free(l1);
	free(l2);
	free(work);
}

int main(void)
{
	RUN(table);
	RUN(table_agrees_with_git);
	RUN(spec_basic);
	RUN(spec_nested);
	RUN(spec_reinclude);
	RUN(spec_quirks);
	RUN(random_agrees_with_git);
	RUN(stack);
	RUN(parent_cache);
	RUN(push_file_reads_rules);
	RUN(starstar_runs_are_polynomial);
	RUN(speed);
	RUN(parallel_walk_lists_what_one_thread_lists);
	return test_done();
}
