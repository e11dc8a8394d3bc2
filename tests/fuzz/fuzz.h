/* fuzz.h — what the libFuzzer targets share. */
#ifndef FUZZ_H
#define FUZZ_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Report a broken invariant, with the string it concerns (or NULL), and
 * abort: libFuzzer then keeps the input as a crash-* file. */
static inline void fail(const char *what, const char *s)
{
	fprintf(stderr, "%s: %s\n", program_invocation_short_name, what);
	if (s)
		fprintf(stderr, "  \"%s\"\n", s);
	abort();
}

#define ASSERT(cond, s)                                                        \
	do {                                                                   \
		if (!(cond))                                                   \
			fail(#cond, (s));                                      \
	} while (0)

/* Copy len bytes into a heap block of exactly that size, so that the
 * address sanitizer sees any read past the end. */
static inline char *exact_copy(const uint8_t *p, size_t len)
{
	char *c = malloc(len ? len : 1);

	if (!c)
		abort();
	memcpy(c, p, len);
	return c;
}

#endif
