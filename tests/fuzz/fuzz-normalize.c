/* fuzz-normalize.c — libFuzzer target for normalize/.
 *
 * Input layout:
 *   byte 0      bits 0-1: profile (strict, extended, aggressive, adaptive)
 *               bit 2:    toggle the step (byte 1 % NORM_STEP_COUNT)
 *               bit 3:    toggle the step (byte 1 / 8 % NORM_STEP_COUNT)
 *               bit 4:    use a small custom tracking list
 *   byte 1      present only when bit 2 or 3 is set
 *   the rest    "BASE\nREFERENCE": an empty BASE means no base
 *
 * On success the output must be a well-formed, idempotent URL whose
 * components match it (and norm_split() must find the same ones); on error the
 * output must be empty.  Any broken promise aborts, which libFuzzer reports as
 * a crash.  The list parser of
 * --steps is fuzzed with the same bytes. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "normalize.h"
#include "url-parts.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* RFC 3986 §2: unreserved, reserved, and '%' starting an escape. */
static bool uri_char(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return true;
	return c && strchr("-._~:/?#[]@!$&'()*+,;=%", c) != NULL;
}

static bool is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* The URL rebuilt from the components of u is out again. */
static void check_parts(const char *out, const struct norm_url *u)
{
	ASSERT(parts_consistent(out, u), out);
}

static void fuzz_steps_parse(const uint8_t *data, size_t size)
{
	char *list = malloc(size + 1);
	const char *bad = NULL;
	size_t bad_len = 0;
	uint32_t steps = 0x5a5a5a5a & ((1u << NORM_STEP_COUNT) - 1), before;
	int r;

	if (!list)
		abort();
	memcpy(list, data, size);
	list[size] = '\0';
	before = steps;
	r = norm_steps_parse(list, &steps, &bad, &bad_len);
	if (r == 0) {
		ASSERT((steps & ~((1u << NORM_STEP_COUNT) - 1)) == 0, NULL);
	} else {
		ASSERT(r == SC_E_STEP, NULL);
		ASSERT(steps == before, NULL);
		ASSERT(bad >= list && bad_len > 0, NULL);
		ASSERT(bad + bad_len <= list + strlen(list), NULL);
	}
	free(list);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum norm_profile profiles[] = {
		NORM_PROFILE_STRICT,
		NORM_PROFILE_EXTENDED,
		NORM_PROFILE_AGGRESSIVE,
		NORM_PROFILE_ADAPTIVE,
	};
	static const char *const tracking[] = { "ref", "x_*", "", "*a" };
	static struct norm_base base;
	struct norm_opts opts = { 0 }, strict = { 0 };
	struct norm_url u, u2;
	char out[NORM_URL_MAX + 1], again[NORM_URL_MAX + 1];
	char fetch[NORM_URL_MAX + 1];
	const uint8_t *nl;
	char *ref, *tight;
	size_t ref_len, n;
	bool have_base = false;
	uint8_t flags;
	int r;

	fuzz_steps_parse(data, size);
	if (size < 1)
		return 0;

	flags = data[0];
	opts.steps = norm_profile_steps(profiles[flags & 3]);
	if (flags & 0x0c) {
		if (size < 2)
			return 0;
		if (flags & 4)
			opts.steps ^= 1u << (data[1] % NORM_STEP_COUNT);
		if (flags & 8)
			opts.steps ^= 1u << (data[1] / 8 % NORM_STEP_COUNT);
		data++;
		size--;
	}
	if (flags & 0x10) {
		opts.tracking = tracking;
		opts.n_tracking = ARRAY_SIZE(tracking);
	}
	data++;
	size--;
	/* Without idn_punycode a host is not checked by IDNA, and strict
	 * may then reject it: compare like with like. */
	strict.steps = norm_profile_steps(NORM_PROFILE_STRICT);
	strict.steps &= ~NORM_IDN_PUNYCODE | opts.steps;

	nl = memchr(data, '\n', size);
	if (nl && nl > data) {
		char *b = exact_copy(data, (size_t)(nl - data));

		r = norm_base_set(&base, NULL, b, (size_t)(nl - data));
		free(b);
		if (r == 0) {
			have_base = true;
			ASSERT(base.u.len == strlen(base.buf), base.buf);
			check_parts(base.buf, &base.u);
		}
	}
	if (nl) {
		ref_len = size - (size_t)(nl + 1 - data);
		ref = exact_copy(nl + 1, ref_len);
	} else {
		ref_len = size;
		ref = exact_copy(data, ref_len);
	}

	memset(&u, 0xa5, sizeof(u));
	memset(&u2, 0xa5, sizeof(u2));
	r = norm_url(&opts, have_base ? &base : NULL, ref, ref_len, out,
		     sizeof(out), &u);
	if (r != 0) {
		ASSERT(r == SC_E_EMPTY || r == SC_E_SCHEME ||
			       r == SC_E_NOHOST || r == SC_E_PORT ||
			       r == SC_E_HOST_PERCENT || r == SC_E_IPV6 ||
			       r == SC_E_IDN || r == SC_E_HOST ||
			       r == SC_E_RELATIVE || r == SC_E_TOOLONG,
		       NULL);
		ASSERT(out[0] == '\0', NULL);
		free(ref);
		return 0;
	}

	n = strlen(out);
	ASSERT(n == u.len && n <= NORM_URL_MAX, out);
	for (size_t i = 0; i < n; i++) {
		ASSERT(uri_char((unsigned char)out[i]), out);
		if (out[i] == '%')
			ASSERT(is_hex((unsigned char)out[i + 1]) &&
				       is_hex((unsigned char)out[i + 2]),
			       out);
	}
	check_parts(out, &u);

	/* No password is written: a userinfo with ':' ends ":***". */
	if (u.has_user) {
		const char *c = memchr(out + u.user_off, ':', u.user_len);
		ASSERT(!c || (size_t)(out + u.user_off + u.user_len - c) == 4,
		       out);
		ASSERT(!c || memcmp(c, ":***", 4) == 0, out);
	}

	/* The same steps change nothing more (SPEC §4). */
	r = norm_url(&opts, NULL, out, n, again, sizeof(again), &u2);
	ASSERT(r == 0, out);
	ASSERT(strcmp(again, out) == 0, out);
	ASSERT(u2.len == u.len && u2.host_off == u.host_off &&
		       u2.host_len == u.host_len && u2.path_off == u.path_off &&
		       u2.path_len == u.path_len &&
		       u2.query_len == u.query_len &&
		       u2.has_query == u.has_query &&
		       u2.has_port == u.has_port && u2.port_len == u.port_len &&
		       u2.has_user == u.has_user && u2.user_len == u.user_len &&
		       u2.has_fragment == u.has_fragment &&
		       u2.host_type == u.host_type,
	       out);

	/* Split where it stands (as the frontier reads a key back), it has
	 * the components norm_url() gave, bar a folded scheme and port. */
	memset(&u2, 0x5a, sizeof(u2));
	r = norm_split(out, n, &u2);
	ASSERT(r == 0, out);
	if (u.https && u.scheme_len == 4) {
		u2.https = u.https;
		u2.port = u.port;
	}
	ASSERT(u2.len == u.len && u2.scheme_len == u.scheme_len &&
		       u2.user_off == u.user_off && u2.user_len == u.user_len &&
		       u2.host_off == u.host_off && u2.host_len == u.host_len &&
		       u2.port_off == u.port_off && u2.port_len == u.port_len &&
		       u2.path_off == u.path_off && u2.path_len == u.path_len &&
		       u2.query_off == u.query_off &&
		       u2.query_len == u.query_len &&
		       u2.frag_off == u.frag_off && u2.frag_len == u.frag_len &&
		       u2.port == u.port && u2.https == u.https &&
		       u2.has_user == u.has_user && u2.has_port == u.has_port &&
		       u2.has_query == u.has_query &&
		       u2.has_fragment == u.has_fragment &&
		       u2.host_type == u.host_type,
	       out);

	/* The output is a valid URL under strict too.  Strict only grows a
	 * URL by the '/' of an empty path (when the steps left it out), which
	 * can take one at the bound over it. */
	r = norm_url(&strict, NULL, out, n, again, sizeof(again), NULL);
	if (r == SC_E_TOOLONG)
		ASSERT(n == NORM_URL_MAX && u.path_len == 0 &&
			       !(opts.steps & NORM_EMPTY_PATH_SLASH),
		       out);
	else
		ASSERT(r == 0, out);

	/* A result that fits exactly is written; one byte less is NOSPC. */
	tight = malloc(n + 1);
	if (!tight)
		abort();
	r = norm_url(&opts, have_base ? &base : NULL, ref, ref_len, tight,
		     n + 1, NULL);
	ASSERT(r == 0 && strcmp(tight, out) == 0, out);
	r = norm_url(&opts, have_base ? &base : NULL, ref, ref_len, tight, n,
		     NULL);
	ASSERT(r == SC_E_NOSPC && (n == 0 || tight[0] == '\0'), out);
	free(tight);

	/* The URL to fetch: valid, no fragment, https when it was. */
	r = norm_fetch_url(out, &u, fetch, sizeof(fetch));
	ASSERT(r == 0, out);
	ASSERT(strchr(fetch, '#') == NULL, out);
	ASSERT(strncasecmp(fetch, u.https ? "https://" : "http://",
			   u.https ? 8 : 7) == 0,
	       out);
	r = norm_url(&strict, NULL, fetch, strlen(fetch), again, sizeof(again),
		     &u2);
	if (r == SC_E_TOOLONG)
		ASSERT(strlen(fetch) == NORM_URL_MAX && u.path_len == 0 &&
			       !(opts.steps & NORM_EMPTY_PATH_SLASH),
		       fetch);
	else
		ASSERT(r == 0 && u2.https == u.https && u2.port == u.port,
		       fetch);
	if (!u.https || u.scheme_len == 5) {
		/* Not folded: the URL itself, up to its fragment. */
		ASSERT(strncmp(fetch, out, strlen(fetch)) == 0, fetch);
		ASSERT(out[strlen(fetch)] == '\0' || out[strlen(fetch)] == '#',
		       fetch);
	}

	free(ref);
	return 0;
}
