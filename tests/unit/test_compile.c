/*
 * test_compile.c - compile tasks without running a compiler: the log parsers
 * on real compiler output recorded by tests/compile/regen.sh (goldens under
 * testdata/compile/NAME/expected/), the config reader and what it refuses,
 * the flag allowlist, the stored diagnostic lines, and the child runner
 * (mcp/child.c) on sh and sleep.
 *
 * MI_UPDATE_GOLDEN=1 rewrites expected/TARGET.log and .expand from the
 * current parser; read `git diff testdata/compile` before committing.
 */
#include "test.h"
#include "../../mcp/compile_int.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

static char *slurp(const char *path)
{
	char *s;
	size_t n;
	return mi_read_file(path, &s, &n) ? NULL : s;
}

static void golden(const char *path, const char *got, int *checked)
{
	char *want = slurp(path);
	(*checked)++;
	if (getenv("MI_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "w");
		if (f) {
			fputs(got, f);
			fclose(f);
		}
	} else if (!want || strcmp(want, got)) {
		TEST_FAIL_("%s differs:\n--- want\n%s--- got\n%s", path, want ? want : "(missing)\n", got);
	}
	free(want);
}

/* Every recorded output of every fixture parses into its goldens. */
TEST(parser_goldens)
{
	DIR *d = opendir("testdata/compile");
	struct dirent *e;
	int checked = 0, formats = 0;
	CHECK(d != NULL);
	while (d && (e = readdir(d))) {
		mi_compile_config *cfg;
		mi_buf err = {0}, dir = {0};
		if (e->d_name[0] == '.')
			continue;
		mi_buf_addf(&dir, "testdata/compile/%s", e->d_name);
		if (mi_compile_config_load(dir.buf, &cfg, &err)) {
			TEST_FAIL_("%s: %s", dir.buf, mi_buf_str(&err));
			mi_buf_release(&err);
			mi_buf_release(&dir);
			continue;
		}
		for (size_t i = 0; i < cfg->n; i++) {
			const mi_compile_target *t = &cfg->targets[i];
			mi_buf p = {0}, out = {0}, cwd = {0}, cmd = {0};
			char *raw, *ex;
			mi_compile_log log = {0};
			mi_out o = {0};
			mi_buf_addf(&p, "%s/expected/%s.output", dir.buf, t->name);
			raw = slurp(p.buf);
			if (!raw) {
				TEST_FAIL_("%s missing: run tests/compile/regen.sh", p.buf);
				mi_buf_release(&p);
				continue;
			}
			/* @ROOT@ stands for the scratch copy the output was recorded in */
			{
				const char *s = raw, *at;
				while ((at = strstr(s, "@ROOT@"))) {
					mi_buf_add(&out, s, (size_t)(at - s));
					mi_buf_adds(&out, cfg->root);
					s = at + 6;
				}
				mi_buf_adds(&out, s);
			}
			mi_buf_reset(&p);
			mi_buf_addf(&p, "%s/expected/%s.exit", dir.buf, t->name);
			ex = slurp(p.buf);
			for (size_t k = 0; k < t->argc; k++)
				mi_buf_addf(&cmd, "%s%s", k ? " " : "", t->argv[k]);
			mi_buf_addf(&cwd, "%s%s%s", cfg->root, t->cwd[0] ? "/" : "", t->cwd);
			log.task_id = mi_xstrdup("golden");
			log.target = mi_xstrdup(t->name);
			log.command = mi_buf_detach(&cmd);
			log.exit_code = ex ? atoi(ex) : 0;
			mi_compile_parse(out.buf, out.len, t->parser, cfg->root, cwd.buf, &log.msgs, &log.n);
			mi_compile_log_render(&log, -1, false, &o);
			mi_buf_reset(&p);
			mi_buf_addf(&p, "%s/expected/%s.log", dir.buf, t->name);
			golden(p.buf, mi_buf_str(&o.text), &checked);
			mi_compile_log_render(&log, -1, true, &o);
			mi_buf_reset(&p);
			mi_buf_addf(&p, "%s/expected/%s.expand", dir.buf, t->name);
			golden(p.buf, mi_buf_str(&o.text), &checked);
			formats++;
			mi_out_release(&o);
			mi_compile_log_release(&log);
			mi_buf_release(&p);
			mi_buf_release(&out);
			mi_buf_release(&cwd);
			free(raw);
			free(ex);
		}
		mi_compile_config_free(cfg);
		mi_buf_release(&dir);
		mi_buf_release(&err);
	}
	if (d)
		closedir(d);
	/* gcc, clang, generic, go, rustc, javac, tsc, python */
	CHECK(formats >= 8);
	CHECK_INT(checked, 2 * formats);
}

/* A log survives its JSON form (what the side store keeps). */
TEST(log_json_roundtrip)
{
	const char *out = "src/a.c:3:5: error: 'x' undeclared; did you mean 'y'?\n"
			  "src/a.c:4:1: warning: unused [-Wunused]\nmake: *** [all] Error 1\n";
	mi_compile_log l = {0}, back;
	mi_buf j = {0};
	mi_out a = {0}, b = {0};
	l.task_id = mi_xstrdup("t1");
	l.target = mi_xstrdup("app");
	l.command = mi_xstrdup("make app");
	l.exit_code = 2;
	mi_compile_parse(out, strlen(out), "gcc", "/r", "/r", &l.msgs, &l.n);
	CHECK_INT(l.n, 3);
	CHECK_INT(l.msgs[2].group, MI_GROUP_INFO); /* the make summary: an error was found */
	mi_compile_log_json(&l, &j);
	CHECK_INT(mi_compile_log_parse(j.buf, j.len, &back), 0);
	mi_compile_log_render(&l, MI_GROUP_ERROR, true, &a);
	mi_compile_log_render(&back, MI_GROUP_ERROR, true, &b);
	CHECK_STR(b.text.buf, a.text.buf);
	CHECK_CONTAINS(a.text.buf, "V* ERROR src/a.c:3:5\n    'x' undeclared\n    hint: did you mean 'y'?\n");
	CHECK_CONTAINS(a.json.buf, "\"counts\":{\"INFO\":1,\"WARN\":1,\"ERROR\":1}");
	mi_compile_log_release(&back);
	CHECK_INT(mi_compile_log_parse("[1]", 3, &back), MI_ERR_CORRUPT);
	mi_compile_log_release(&back);
	mi_compile_log_release(&l);
	mi_out_release(&a);
	mi_out_release(&b);
	mi_buf_release(&j);
}

/* A make failure with nothing else to say is the error itself. */
TEST(summary_alone_is_the_error)
{
	const char *out = "make: *** No rule to make target 'nope'.  Stop.\n";
	mi_compile_msg *m = NULL;
	size_t n = 0;
	mi_compile_parse(out, strlen(out), "auto", "/r", "/r", &m, &n);
	CHECK_INT(n, 1);
	CHECK_INT(m[0].group, MI_GROUP_ERROR);
	mi_compile_msgs_free(m, n);
}

/* A path outside the repository (printed relative, absolute, or through
 * the run's cwd) keeps its message but no location; one inside is made
 * repo-relative. */
TEST(paths_outside_have_no_location)
{
	const char *out = "../../../../../etc/passwd:1:1: error: outside\n"
			  "/usr/include/stdio.h:3:4: warning: system\n"
			  "../sub/../../r/src/a.c:2:3: error: back in\n"
			  "../../x.c:5: error: up one\n"
			  "Traceback (most recent call last):\n"
			  "  File \"/usr/lib/python3/x.py\", line 7, in f\n"
			  "    g()\n"
			  "ValueError: deep\n";
	mi_compile_msg *m = NULL;
	size_t n = 0;
	mi_compile_parse(out, strlen(out), "auto", "/r", "/r/sub", &m, &n);
	CHECK_INT(n, 5);
	for (size_t i = 0; i < n; i++)
		if (i != 2)
			CHECK(!m[i].path && !m[i].line && !m[i].col);
	CHECK_STR(m[0].text, "outside");
	CHECK_INT(m[0].group, MI_GROUP_ERROR);
	CHECK_STR(m[2].path, "src/a.c");
	CHECK_INT(m[2].line, 2);
	CHECK_STR(m[4].text, "ValueError: deep");
	CHECK_INT(m[4].group, MI_GROUP_ERROR);
	mi_compile_msgs_free(m, n);
}

static char tmpl[] = "/tmp/mcpidx-cfg.XXXXXX";

/* Writes a config into a fresh repository and loads it. */
static int load(const char *text, mi_compile_config **c, mi_buf *err)
{
	mi_buf p = {0};
	FILE *f;
	mi_buf_reset(err);
	mi_buf_addf(&p, "%s/.mcpidx.toml", tmpl);
	f = fopen(p.buf, "w");
	fputs(text, f);
	fclose(f);
	mi_buf_release(&p);
	return mi_compile_config_load(tmpl, c, err);
}

TEST(config_refusals)
{
	static const struct { const char *text, *says; } bad[] = {
		{"[compile.app]\nargv = \"make app && rm -rf /\"\n", "never go through a shell"},
		{"[compile.app]\nargv = []\n", "non-empty array"},
		{"[compile.app]\nargv = [\"make\"]\ncwd = \"../..\"\n", "leaves the repository"},
		{"[compile.app]\nargv = [\"make\"]\ncwd = \"/etc\"\n", "leaves the repository"},
		{"[compile.app]\nargv = [\"make\"]\nshell = true\n", "unknown key \"shell\""},
		{"[compile.app]\nargv = [\"make\"]\nparser = \"perl\"\n", "parser must be one of"},
		{"[compile.app]\nargv = [\"make\"]\nenv = [\"PATH=/tmp/evil\"]\n", "not values"},
		{"[compile.app]\nargv = [\"make\"]\ntimeout = 0\n", "timeout"},
		{"[compile.app]\nargv = [\"make\"]\n[compile.app]\nargv = [\"cc\"]\n", "defined twice"},
		{"[compile.app]\ncwd = \".\"\n", "has no argv"},
		{"argv = [\"make\"]\n", "outside a table"},
		{"[compile]\nargv = [\"make\"]\n", "name the target"},
		{"[compile.app]\nargv = [\"make\" \"app\"]\n", "expected ','"},
		{"[compile.app]\nargv = [\"make]\n", "does not end"},
	};
	mi_compile_config *c = NULL;
	mi_buf err = {0};
	CHECK(mkdtemp(tmpl) != NULL);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = load(bad[i].text, &c, &err);
		if (rc != MI_ERR_ARG || !strstr(mi_buf_str(&err), bad[i].says))
			TEST_FAIL_("config %zu: rc %d, message \"%s\", want \"%s\"", i, rc,
				   mi_buf_str(&err), bad[i].says);
		CHECK_CONTAINS(mi_buf_str(&err), ".mcpidx.toml:");
		mi_compile_config_free(c);
		c = NULL;
	}
	/* nothing named: not found, not an error in the file */
	CHECK_INT(load("# only comments\n[other]\nx = 1\n", &c, &err), MI_ERR_NOTFOUND);
	mi_buf_release(&err);
}

TEST(config_and_allowlist)
{
	mi_compile_config *c = NULL;
	mi_buf err = {0};
	char **argv = NULL;
	const char *ok[] = {"-k"}, *evil[] = {"; rm -rf /"}, *other[] = {"-j99"};
	int rc = load("# targets\n[tool.x]\ny = 2\n\n[compile.app]  # the app\n"
		      "argv = [\n  \"make\",\n  'app',\n]\nflags = [\"-k\", \"V=1\"]\n"
		      "timeout = 30\nenv = [\"PATH\"]\nparser = \"gcc\"\n"
		      "[compile.\"test\"]\nargv = [\"sh\", \"-c\\\"x\\\"\"]\n", &c, &err);
	CHECK_INT(rc, 0);
	if (rc) {
		printf("     %s\n", err.buf);
		return;
	}
	CHECK_INT(c->n, 2);
	CHECK_STR(c->targets[0].argv[1], "app");
	CHECK_INT(c->targets[0].timeout_s, 30);
	CHECK_STR(c->targets[1].argv[1], "-c\"x\"");
	CHECK_INT(c->targets[1].nenv, 3); /* the default allowlist */
	CHECK_INT(mi_compile_argv(&c->targets[0], ok, 1, &argv, &err), 0);
	CHECK_STR(argv[2], "-k");
	CHECK(argv[3] == NULL);
	mi_compile_argv_free(argv);
	CHECK_INT(mi_compile_argv(&c->targets[0], evil, 1, &argv, &err), MI_ERR_ARG);
	CHECK_CONTAINS(err.buf, "it allows: \"-k\" \"V=1\"");
	mi_buf_reset(&err);
	CHECK_INT(mi_compile_argv(&c->targets[1], other, 1, &argv, &err), MI_ERR_ARG);
	CHECK_CONTAINS(err.buf, "allows none");
	/* a target that is not named is refused before anything runs */
	{
		mi_compile_req req = {.config = c, .target = "rm"};
		mi_compile_log log;
		mi_buf_reset(&err);
		CHECK_INT(mi_compile_run(&req, &log, &err), MI_ERR_ARG);
		CHECK_CONTAINS(err.buf, "target \"rm\" is not in");
		CHECK_CONTAINS(err.buf, "names: app test");
	}
	mi_compile_config_free(c);
	mi_buf_release(&err);
}

TEST(diag_lines)
{
	mi_buf b = {0};
	mi_cdiag d;
	const char *p, *end;
	mi_cdiag_add(&b, 'E', 19, 24, "'totl' undeclared\nsecond line");
	mi_cdiag_add(&b, 'H', 19, 0, "did you mean 'total'?");
	mi_buf_adds(&b, "garbage\nX 1 2 nope\n");
	mi_cdiag_add(&b, 'W', 0, 0, "whole file");
	p = b.buf;
	end = b.buf + b.len;
	CHECK(mi_cdiag_next(&p, end, &d));
	CHECK(d.severity == 'E' && d.line == 19 && d.col == 24);
	CHECK(d.msg_len == strlen("'totl' undeclared second line"));
	CHECK(mi_cdiag_next(&p, end, &d) && d.severity == 'H');
	CHECK(mi_cdiag_next(&p, end, &d) && d.severity == 'W' && d.line == 0);
	CHECK(!mi_cdiag_next(&p, end, &d));
	mi_buf_release(&b);
}

/* The child runner keeps the head of a command's output, or with tail its
 * last bytes (a failing build says why at its end), and counts the rest;
 * a stop callback ends the command like a cancel. */
static int calls;
static bool stop_after_two(void *ctx)
{
	(void)ctx;
	return ++calls > 2;
}

TEST(child_output_head_tail_and_stop)
{
	char *argv[] = {"sh", "-c", "i=0; while [ $i -lt 2000 ]; do echo line $i; i=$((i+1)); done; "
			"echo the reason", NULL};
	mi_child_opts o = {.argv = argv, .cap = 100};
	mi_child_result r;
	size_t total = 0;
	for (int i = 0; i < 2000; i++)
		total += (size_t)snprintf(NULL, 0, "line %d\n", i);
	total += strlen("the reason\n");
	CHECK_INT(mi_child_run(&o, &r), 0);
	CHECK_INT(r.exit_code, 0);
	CHECK_INT(r.output.len, 100);
	CHECK(!strncmp(r.output.buf, "line 0\nline 1\n", 14));
	CHECK_INT(r.dropped, total - 100);
	mi_child_result_release(&r);
	o.tail = true;
	CHECK_INT(mi_child_run(&o, &r), 0);
	CHECK_INT(r.output.len, 100);
	CHECK(r.output.len >= 11 && !strcmp(r.output.buf + r.output.len - 11, "the reason\n"));
	CHECK_INT(r.dropped, total - 100);
	mi_child_result_release(&r);
	char *sleeper[] = {"sleep", "30", NULL};
	mi_child_opts s = {.argv = sleeper, .stop = stop_after_two};
	CHECK_INT(mi_child_run(&s, &r), 0);
	CHECK(r.cancelled);
	CHECK(r.seconds < 10);
	mi_child_result_release(&r);
}

int main(void)
{
	RUN(parser_goldens);
	RUN(child_output_head_tail_and_stop);
	RUN(log_json_roundtrip);
	RUN(summary_alone_is_the_error);
	RUN(paths_outside_have_no_location);
	RUN(config_refusals);
	RUN(config_and_allowlist);
	RUN(diag_lines);
	{
		char cmd[64];
		snprintf(cmd, sizeof cmd, "rm -rf %s", tmpl);
		if (tmpl[strlen(tmpl) - 1] != 'X' && system(cmd) != 0)
			return 1;
	}
	return test_done();
}
