/*
 * test.h - a tiny unit-test harness.  Each test binary defines test cases
 * with TEST(name) and lists them in main() with RUN(name).  Every case
 * prints "PASS name" or "FAIL name: file:line: what"; tests/run.sh counts
 * those lines.  The binary exits non-zero when any case failed.
 *
 *	TEST(adds) { CHECK(1 + 1 == 2); CHECK_STR("a", "a"); }
 *	int main(void) { RUN(adds); return test_done(); }
 *
 * Tests run from the repository root (testdata/ paths are relative to it).
 */
#ifndef MI_TEST_H
#define MI_TEST_H

#include <stdio.h>
#include <string.h>
#include <stdlib.h>

static int test_failed_cases, test_case_failed;
static const char *test_case_name;

#define TEST(name) static void test_##name(void)
#define RUN(name) do { \
	test_case_name = #name; test_case_failed = 0; \
	test_##name(); \
	if (test_case_failed) test_failed_cases++; \
	else printf("PASS %s\n", #name); \
	fflush(stdout); \
} while (0)

#define TEST_FAIL_(...) do { \
	if (!test_case_failed) printf("FAIL %s: ", test_case_name); \
	else printf("     %s: ", test_case_name); \
	printf("%s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); \
	test_case_failed = 1; \
} while (0)

#define CHECK(cond) do { if (!(cond)) TEST_FAIL_("%s", #cond); } while (0)
#define CHECK_INT(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); \
	if (a_ != b_) TEST_FAIL_("%s == %lld, want %lld", #a, a_, b_); } while (0)
#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); \
	if (!a_ || !b_ || strcmp(a_, b_)) TEST_FAIL_("%s:\n got: %s\nwant: %s", #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } while (0)
#define CHECK_CONTAINS(hay, needle) do { const char *h_ = (hay), *n_ = (needle); \
	if (!h_ || !strstr(h_, n_)) TEST_FAIL_("%s does not contain \"%s\":\n%s", #hay, n_, h_ ? h_ : "(null)"); } while (0)

static int test_done(void) { return test_failed_cases ? 1 : 0; }

#endif
