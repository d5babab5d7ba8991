/*
 * test_fuzz_regress.c - replays the fuzzers' seed corpora and every saved
 * crash reproducer through the same code and the same invariant checks as
 * the libFuzzer targets, without libFuzzer, so they run in `make test`
 * (and again under ASan+UBSan there).
 *
 *   tests/fuzz/corpus/records/   -> tests/fuzz/fuzz_records.c
 *   tests/fuzz/corpus/parse/     -> tests/fuzz/fuzz_parse.c
 *   tests/fuzz/corpus/jsonrpc/   -> tests/fuzz/fuzz_jsonrpc.c
 *   tests/fuzz/corpus/index/     -> tests/fuzz/fuzz_index_open.c
 *   tests/fuzz/corpus/editor/    -> tests/fuzz/fuzz_editor.c
 *   tests/fuzz/corpus/regress/TARGET-NAME -> the target TARGET
 *
 * Seeds run in this process (a crash ends the binary; the last "replaying"
 * line on stderr names the input).  Reproducers each run in a child
 * process, so a crash names its input and the others still run.  A
 * reproducer listed in tests/fuzz/corpus/regress/PENDING (a bug reported but
 * not fixed yet) is run and reported as KNOWN instead of failing.
 */
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

/* Invariant failures inside the current input. */
static int rg_failures;
static bool rg_quiet; /* checks_bite: failures are expected, say nothing */

static void rg_report(const char *what, const char *file, int line)
{
	if (!rg_quiet)
		fprintf(stderr, "  invariant failed at %s:%d: %s\n", file, line, what);
	rg_failures++;
}

#define FUZZ_REPORT rg_report

#define LLVMFuzzerTestOneInput mi_fuzz_records_one
#include "../fuzz/fuzz_records.c"
#undef LLVMFuzzerTestOneInput

#define LLVMFuzzerTestOneInput mi_fuzz_parse_one
#include "../fuzz/fuzz_parse.c"
#undef LLVMFuzzerTestOneInput

#define LLVMFuzzerTestOneInput mi_fuzz_jsonrpc_one
#define LLVMFuzzerInitialize mi_fuzz_jsonrpc_init
#include "../fuzz/fuzz_jsonrpc.c"
#undef LLVMFuzzerTestOneInput
#undef LLVMFuzzerInitialize

#define LLVMFuzzerTestOneInput mi_fuzz_index_one
#define LLVMFuzzerInitialize mi_fuzz_index_init
#include "../fuzz/fuzz_index_open.c"
#undef LLVMFuzzerTestOneInput
#undef LLVMFuzzerInitialize

#define LLVMFuzzerTestOneInput mi_fuzz_editor_one
#include "../fuzz/fuzz_editor.c"
#undef LLVMFuzzerTestOneInput

#define CORPUS "tests/fuzz/corpus"
#define RG_TIMEOUT 10 /* seconds one reproducer may run */

typedef int (*rg_target_fn)(const uint8_t *data, size_t size);

typedef struct rg_target {
	const char *name;  /* corpus directory and reproducer prefix */
	rg_target_fn fn;   /* the fuzzer's entry point */
} rg_target;

static const rg_target rg_targets[] = {
	{ "records", mi_fuzz_records_one },
	{ "parse", mi_fuzz_parse_one },
	{ "jsonrpc", mi_fuzz_jsonrpc_one },
	{ "index", mi_fuzz_index_one },
	{ "editor", mi_fuzz_editor_one },
};

static const rg_target *rg_target_find(const char *name, size_t n)
{
	for (size_t i = 0; i < sizeof rg_targets / sizeof *rg_targets; i++)
		if (strlen(rg_targets[i].name) == n && !strncmp(rg_targets[i].name, name, n))
			return &rg_targets[i];
	return NULL;
}

/* Runs one input file in this process; 0 when it ran clean.  A crash
 * ends the binary: the line on stderr names the input. */
static int rg_run_here(const rg_target *t, const char *path, mi_buf *why)
{
	char *data = NULL;
	size_t len = 0;
	int rc = mi_read_file(path, &data, &len);
	if (rc) {
		mi_buf_addf(why, "cannot read %s: %s", path, strerror(rc));
		return -1;
	}
	fprintf(stderr, "replaying %s\n", path);
	rg_failures = 0;
	t->fn((const uint8_t *)data, len);
	free(data);
	if (!rg_failures)
		return 0;
	mi_buf_addf(why, "%s: an invariant failed (details above)", path);
	rg_failures = 0;
	return -1;
}

/* Runs one input file in a child; 0 when it ran clean. */
static int rg_run_file(const rg_target *t, const char *path, mi_buf *why)
{
	char *data = NULL;
	size_t len = 0;
	int st, rc;
	pid_t pid;

	rc = mi_read_file(path, &data, &len);
	if (rc) {
		mi_buf_addf(why, "cannot read %s: %s", path, strerror(rc));
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		mi_buf_addf(why, "fork failed: %s", strerror(errno));
		free(data);
		return -1;
	}
	if (pid == 0) {
		/* A hang is a finding too: the default action of SIGALRM ends
		 * the child. */
		alarm(RG_TIMEOUT);
		rg_failures = 0;
		t->fn((const uint8_t *)data, len);
		free(data);
		/* exit, not _exit: LeakSanitizer checks at exit. */
		exit(rg_failures ? 3 : 0);
	}
	free(data);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			mi_buf_addf(why, "waitpid failed: %s", strerror(errno));
			return -1;
		}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
		mi_buf_addf(why, "%s: an invariant failed (details above)", path);
	else if (WIFEXITED(st))
		mi_buf_addf(why, "%s: exited %d (a sanitizer report above)", path,
			    WEXITSTATUS(st));
	else if (WTERMSIG(st) == SIGALRM)
		mi_buf_addf(why, "%s: still running after %d s (a hang)", path,
			    RG_TIMEOUT);
	else
		mi_buf_addf(why, "%s: killed by signal %d (a crash; stack above)",
			    path, WTERMSIG(st));
	return -1;
}

static int rg_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names of the files of dir, sorted; NULL-terminated, caller frees. */
static char **rg_list(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (*n + 2 > cap) {
			cap = cap ? cap * 2 : 32;
			v = mi_xrealloc(v, cap * sizeof *v);
		}
		v[(*n)++] = mi_xstrdup(e->d_name);
	}
	closedir(d);
	if (v) {
		v[*n] = NULL;
		qsort(v, *n, sizeof *v, rg_cmp);
	}
	return v;
}

static void rg_free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* true when name is listed in regress/PENDING (first word of a line). */
static bool rg_pending(const char *name)
{
	char *text = NULL, *line, *save = NULL;
	size_t len;
	bool found = false;
	if (mi_read_file(CORPUS "/regress/PENDING", &text, &len))
		return false;
	for (line = strtok_r(text, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t w = strcspn(line, " \t");
		found = line[0] != '#' && w == strlen(name) && !strncmp(line, name, w);
	}
	free(text);
	return found;
}

/* Replays every seed of one target; returns the number of inputs run. */
static size_t rg_seeds(const rg_target *t)
{
	char dir[256], path[512];
	size_t n, ran = 0;
	char **v;
	mi_buf why = {0};

	snprintf(dir, sizeof dir, CORPUS "/%s", t->name);
	v = rg_list(dir, &n);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, v[i]);
		mi_buf_reset(&why);
		if (rg_run_here(t, path, &why))
			TEST_FAIL_("%s", why.buf);
		ran++;
	}
	rg_free_list(v, n);
	mi_buf_release(&why);
	return ran;
}

TEST(records_seeds)
{
	CHECK(rg_seeds(&rg_targets[0]) >= 5);
}

TEST(parse_seeds)
{
	/* One seed per language at least. */
	CHECK(rg_seeds(&rg_targets[1]) >= MI_LANG__COUNT - 1);
}

TEST(jsonrpc_seeds)
{
	CHECK(rg_seeds(&rg_targets[2]) >= 10);
}

TEST(index_seeds)
{
	CHECK(rg_seeds(&rg_targets[3]) >= 8);
}

TEST(editor_seeds)
{
	/* framing, text, and one recorded output per compiler family */
	CHECK(rg_seeds(&rg_targets[4]) >= 8);
}

/* Every saved reproducer, by the target its name starts with. */
TEST(regress)
{
	char path[512];
	size_t n, known = 0;
	char **v = rg_list(CORPUS "/regress", &n);
	mi_buf why = {0};

	for (size_t i = 0; i < n; i++) {
		const char *dash = strchr(v[i], '-');
		const rg_target *t = dash ? rg_target_find(v[i], (size_t)(dash - v[i])) : NULL;
		bool pending;
		int rc;
		if (!strcmp(v[i], "PENDING"))
			continue;
		if (!t) {
			TEST_FAIL_("%s/regress/%s: name it records-*, parse-*, jsonrpc-*, "
				   "index-* or editor-* after the fuzzer that found it", CORPUS, v[i]);
			continue;
		}
		snprintf(path, sizeof path, CORPUS "/regress/%s", v[i]);
		pending = rg_pending(v[i]);
		mi_buf_reset(&why);
		rc = rg_run_file(t, path, &why);
		if (rc && pending) {
			printf("KNOWN %s (listed in regress/PENDING)\n", why.buf);
			known++;
		} else if (rc) {
			TEST_FAIL_("%s", why.buf);
		} else if (pending) {
			/* Some only fail under ASan (an allocation it refuses):
			 * passing here does not prove the fix. */
			printf("NOTE %s passes in this build; once its bug is fixed, "
			       "take it off %s/regress/PENDING\n", path, CORPUS);
		}
	}
	if (known)
		printf("regress: %zu known failures awaiting fixes\n", known);
	rg_free_list(v, n);
	mi_buf_release(&why);
}

/* The checks can fail: a broken parse result and a broken answer are
 * caught. */
TEST(checks_bite)
{
	const char src[] = "int f(void)\n{\n}\n";
	mi_parsed p;
	mi_symbol *s;
	const char ping[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
	mi_buf out = {0};

	rg_quiet = true;
	mi_parsed_init(&p);
	s = mi_parsed_add_sym(&p);
	s->name = "f";
	s->kind = MI_KIND_FUNCTION;
	s->start_line = 1;
	s->end_line = 3;
	s->end_byte = sizeof src - 1;
	rg_failures = 0;
	CHECK(ps_check_parsed(src, sizeof src - 1, &p, true) == 0);
	CHECK_INT(rg_failures, 0);
	s->end_byte = sizeof src + 10;          /* past the end */
	CHECK(ps_check_parsed(src, sizeof src - 1, &p, true) != 0);
	s->end_byte = sizeof src - 1;
	s->end_line = 9;                        /* past the last line */
	CHECK(ps_check_parsed(src, sizeof src - 1, &p, true) != 0);
	s->end_line = 3;
	s->parent_idx = 0;                      /* its own parent */
	CHECK(ps_check_parsed(src, sizeof src - 1, &p, true) != 0);
	CHECK_INT(rg_failures, 3);
	mi_parsed_release(&p);

	rg_failures = 0;
	mi_buf_adds(&out, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{}}");
	CHECK(jr_check_answer(ping, sizeof ping - 1, &out) != 0);
	mi_buf_reset(&out);
	mi_buf_adds(&out, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}");
	CHECK(jr_check_answer(ping, sizeof ping - 1, &out) != 0);
	mi_buf_reset(&out);
	mi_buf_adds(&out, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
	CHECK(jr_check_answer(ping, sizeof ping - 1, &out) == 0);
	CHECK_INT(rg_failures, 2);
	mi_buf_release(&out);
	rg_failures = 0;
	rg_quiet = false;
}

int main(void)
{
	mi_fuzz_jsonrpc_init(NULL, NULL);
	RUN(checks_bite);
	RUN(records_seeds);
	RUN(parse_seeds);
	RUN(jsonrpc_seeds);
	RUN(index_seeds);
	RUN(editor_seeds);
	RUN(regress);
	return test_done();
}
