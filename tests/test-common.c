/* test-common.c — unit tests of common/'s bounded growable buffer
 * (struct sc_dynbuf, sc.h): appends keep a NUL after the bytes, the cap
 * holds to the byte, a failure (the cap, or an allocation made to fail) is
 * remembered until a reset, and the room of sc_dyn_reserve() can be
 * written in place. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sc.h"

static void test_appends(void)
{
	struct sc_dynbuf b;
	sc_dyn_init(&b, 1 << 20);
	CHECK(b.p == NULL && b.len == 0);
	CHECK(sc_dyn_add(&b, NULL, 0) == 0 && b.p && b.len == 0);
	CHECK(sc_dyn_add(&b, "ab\0c", 4) == 0 && b.len == 4);
	CHECK(memcmp(b.p, "ab\0c", 5) == 0); /* the NUL after the bytes */
	sc_dyn_reset(&b);
	CHECK(sc_dyn_add_str(&b, "GET ") == 0);
	CHECK(sc_dyn_printf(&b, "%s/%u", "/x", 42u) == 0);
	CHECK_STR(b.p, "GET /x/42");
	CHECK(b.len == 9 && sc_dyn_error(&b) == 0);

	/* Growth past the first allocation, many times over. */
	char line[1000];
	memset(line, 'x', sizeof(line));
	sc_dyn_reset(&b);
	for (int i = 0; i < 100; i++)
		CHECK(sc_dyn_add(&b, line, sizeof(line)) == 0);
	CHECK(b.len == 100 * sizeof(line) && b.p[b.len] == '\0');
	CHECK(strspn(b.p, "x") == b.len);
	sc_dyn_free(&b);
	CHECK(b.p == NULL && b.len == 0 && b.toobig == 1 << 20);
}

/* The length stays below toobig: a buffer of toobig 8 holds 7 bytes. */
static void test_cap(void)
{
	struct sc_dynbuf b;
	sc_dyn_init(&b, 8);
	CHECK(sc_dyn_add(&b, "1234567", 7) == 0 && b.len == 7);
	CHECK(b.cap <= 8);
	CHECK(sc_dyn_add(&b, "8", 1) == SC_E_LIMIT);
	/* The failure freed the half-built bytes and is remembered. */
	CHECK(b.p == NULL && b.len == 0 && sc_dyn_error(&b) == SC_E_LIMIT);
	CHECK(sc_dyn_add(&b, "", 0) == SC_E_LIMIT);
	CHECK(sc_dyn_printf(&b, "x") == SC_E_LIMIT && b.p == NULL);
	sc_dyn_reset(&b);
	CHECK(sc_dyn_error(&b) == 0);
	CHECK(sc_dyn_printf(&b, "%d", 1234567) == 0 && b.len == 7);
	sc_dyn_reset(&b);
	CHECK(sc_dyn_printf(&b, "%d", 12345678) == SC_E_LIMIT);
	sc_dyn_free(&b);

	/* An append larger than what is left never wraps around. */
	sc_dyn_init(&b, 16);
	CHECK(sc_dyn_add(&b, "abc", 3) == 0);
	CHECK(sc_dyn_reserve(&b, (size_t)-1) == SC_E_LIMIT);
	sc_dyn_free(&b);
}

/* An allocation that fails (sc_alloc_fail_nth()) is SC_E_NOMEM, frees
 * what was held and is remembered like any failure. */
static void test_nomem(void)
{
	struct sc_dynbuf b;
	sc_dyn_init(&b, 1 << 20);
	sc_alloc_fail_nth(1);
	CHECK(sc_dyn_add_str(&b, "x") == SC_E_NOMEM && b.p == NULL);
	CHECK(!sc_alloc_fail_pending());
	sc_dyn_reset(&b);
	CHECK(sc_dyn_add_str(&b, "abc") == 0);
	char big[300];
	memset(big, 'y', sizeof(big));
	sc_alloc_fail_nth(1); /* the growth past the first 256 bytes */
	CHECK(sc_dyn_add(&b, big, sizeof(big)) == SC_E_NOMEM);
	CHECK(b.p == NULL && b.len == 0 && sc_dyn_error(&b) == SC_E_NOMEM);
	CHECK(sc_dyn_printf(&b, "%d", 1) == SC_E_NOMEM);
	sc_dyn_free(&b);
}

/* Room reserved, written in place, then the length set. */
static void test_reserve(void)
{
	struct sc_dynbuf b;
	sc_dyn_init(&b, 64);
	CHECK(sc_dyn_add_str(&b, "ab") == 0);
	CHECK(sc_dyn_reserve(&b, 10) == 0 && b.len == 2 && b.cap >= 13);
	memcpy(b.p + b.len, "cdefghijkl", 10);
	sc_dyn_setlen(&b, b.len + 3);
	CHECK_STR(b.p, "abcde");
	sc_dyn_setlen(&b, 1);
	CHECK_STR(b.p, "a");
	/* The bytes may be taken. */
	char *taken = b.p;
	b.p = NULL;
	sc_dyn_free(&b);
	CHECK_STR(taken, "a");
	free(taken);
}

int main(void)
{
	test_appends();
	test_cap();
	test_reserve();
	test_nomem();
	return check_done();
}
