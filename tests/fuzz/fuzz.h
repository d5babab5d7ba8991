/*
 * fuzz.h - what every fuzz target shares: how an invariant failure is
 * reported and the check that reports it.  Under libFuzzer a failure aborts
 * (libFuzzer keeps the input); the regression replayer
 * (tests/unit/test_fuzz_regress.c) includes the targets in one unit and
 * defines FUZZ_REPORT to count failures instead.
 */
#ifndef MI_FUZZ_H
#define MI_FUZZ_H

#include <stdio.h>
#include <stdlib.h>

#ifndef FUZZ_REPORT
static void fuzz_report(const char *what, const char *file, int line)
{
	fprintf(stderr, "%s:%d: invariant failed: %s\n", file, line, what);
	abort();
}
#define FUZZ_REPORT fuzz_report
#endif

/* Checks an invariant; on failure reports it and leaves through `done`. */
#define FUZZ_CHECK(c) do { \
	if (!(c)) { FUZZ_REPORT(#c, __FILE__, __LINE__); goto done; } \
} while (0)

#endif
