/* alloc.c — the allocation wrapper of sc.h, with its failure injection. */
#include "sc.h"

#include <stdlib.h>
#include <string.h>

/* Per thread: a test's countdown does not reach into other threads. */
static _Thread_local unsigned long fail_in;

void sc_alloc_fail_nth(unsigned long n)
{
	fail_in = n;
}

bool sc_alloc_fail_pending(void)
{
	return fail_in > 0;
}

static bool fail_now(void)
{
	return fail_in > 0 && --fail_in == 0;
}

void *sc_malloc(size_t n)
{
	return fail_now() ? NULL : malloc(n);
}

void *sc_calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : calloc(n, size);
}

void *sc_realloc(void *p, size_t n)
{
	return fail_now() ? NULL : realloc(p, n);
}
