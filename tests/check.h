/* check.h — the unit tests' counting assertions.
 *
 * CHECK(cond) counts a pass or prints the failed condition with its place;
 * CHECK_STR(got, want) compares strings and prints both on a mismatch.
 * check_done() prints "N passed, N failed" and returns the exit status:
 * 1 when a check failed or none ran (a test that checks nothing fails). */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>
#include <string.h>

static unsigned check_passed, check_failed;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (cond) {                                                    \
			check_passed++;                                        \
		} else {                                                       \
			check_failed++;                                        \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
		}                                                              \
	} while (0)

#define CHECK_STR(got, want)                                                   \
	check_str_at(__FILE__, __LINE__, #got, (got), (want))

static inline void check_str_at(const char *file, int line, const char *expr,
				const char *got, const char *want)
{
	if (got && want && strcmp(got, want) == 0) {
		check_passed++;
		return;
	}
	check_failed++;
	fprintf(stderr, "%s:%d: %s\n    got:  \"%s\"\n    want: \"%s\"\n", file,
		line, expr, got ? got : "(null)", want ? want : "(null)");
}

static inline int check_done(void)
{
	if (check_passed + check_failed == 0) {
		fprintf(stderr, "no check ran\n");
		check_failed = 1;
	}
	printf("%u passed, %u failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}

#endif
