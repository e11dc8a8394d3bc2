/* fuzz-sitemap.c — libFuzzer target for parse_sitemap() and
 * parse_w3c_datetime().
 *
 * Input layout: the whole input is the body (XML, text, or gzip when it
 * starts with 1f 8b).
 *
 * Every entry must keep the promises of parse.h: a loc of 1 to
 * NORM_INPUT_MAX bytes, NUL-terminated, without NUL or white space at its
 * ends; a lastmod of -1 or within years 1970..9999; a changefreq of the
 * enum; at most PARSE_SITEMAP_MAX_URLS calls.  The result must be one of
 * the documented codes (SC_E_LIMIT only for a body that can inflate past
 * the limit), SC_E_INVAL must come with no entry, a second
 * parse must give the same entries, a parse stopped by fn at the k-th
 * entry must stop there with fn's value and the same first k entries, and
 * the body gzipped (when it is not gzip already) must give exactly what
 * the body gives.  A broken promise aborts. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "parse.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* 9999-12-31T23:59:59.999Z */
#define W3C_MAX_MS 253402300799999LL

#define STOP_VALUE 12345

/* What one parse reported: the count and a hash of the entries so far
 * (after each entry, so that a stopped parse compares with a prefix). */
struct run {
	unsigned long calls;
	unsigned long stop_at; /* 0: never stop */
	uint64_t hash;
	uint64_t *prefix; /* hash after each entry, or NULL */
	size_t prefix_cap;
};

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ULL;
	return h;
}

static bool ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}

static int on_entry(void *arg, const struct parse_sitemap_entry *e)
{
	struct run *r = arg;
	int32_t cf = (int32_t)e->changefreq;

	ASSERT(r->calls < PARSE_SITEMAP_MAX_URLS, NULL);
	ASSERT(e->loc != NULL, NULL);
	ASSERT(e->loc_len >= 1 && e->loc_len <= NORM_INPUT_MAX, NULL);
	ASSERT(e->loc[e->loc_len] == '\0', NULL);
	ASSERT(strlen(e->loc) == e->loc_len, e->loc);
	ASSERT(!ws((unsigned char)e->loc[0]), e->loc);
	ASSERT(!ws((unsigned char)e->loc[e->loc_len - 1]), e->loc);
	ASSERT(e->lastmod_ms == -1 ||
		       (e->lastmod_ms >= 0 && e->lastmod_ms <= W3C_MAX_MS),
	       e->loc);
	ASSERT(cf >= PARSE_CHANGEFREQ_NONE && cf <= PARSE_CHANGEFREQ_NEVER,
	       e->loc);

	r->hash = mix(r->hash, e->loc, e->loc_len + 1);
	r->hash = mix(r->hash, &e->lastmod_ms, sizeof(e->lastmod_ms));
	r->hash = mix(r->hash, &cf, sizeof(cf));
	if (r->prefix && r->calls < r->prefix_cap)
		r->prefix[r->calls] = r->hash;
	r->calls++;
	return r->stop_at && r->calls == r->stop_at ? STOP_VALUE : 0;
}

static int run(const void *body, size_t len, struct run *r, bool *is_index)
{
	int rc;

	r->calls = 0;
	r->hash = 0xcbf29ce484222325ULL;
	rc = parse_sitemap(body, len, is_index, on_entry, r);
	if (r->stop_at && r->calls == r->stop_at) {
		ASSERT(rc == STOP_VALUE, NULL);
	} else {
		ASSERT(rc == 0 || rc == SC_E_INVAL || rc == SC_E_LIMIT, NULL);
		ASSERT(rc != SC_E_INVAL || r->calls == 0, NULL);
		/* deflate expands at most 1032 times, so a small body can
		 * reach neither limit. */
		ASSERT(rc != SC_E_LIMIT ||
			       len >= PARSE_SITEMAP_MAX_BYTES / 1032,
		       NULL);
	}
	return rc;
}

/* gzip of n bytes (a fresh heap block of exactly *out_len bytes). */
static unsigned char *gzip(const uint8_t *p, size_t n, size_t *out_len)
{
	z_stream z;
	size_t cap = n + n / 8 + 64;
	unsigned char *out = malloc(cap), *exact;

	memset(&z, 0, sizeof(z));
	if (!out || deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	z.next_in = (Bytef *)p;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		abort();
	*out_len = cap - z.avail_out;
	deflateEnd(&z);
	exact = (unsigned char *)exact_copy(out, *out_len);
	free(out);
	return exact;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *body = exact_copy(data, size);
	struct run a = { 0 }, b = { 0 };
	bool idx_a = false, idx_b = false;
	int rc_a, rc_b;
	uint64_t prefix[64];

	a.prefix = prefix;
	a.prefix_cap = sizeof(prefix) / sizeof(prefix[0]);
	rc_a = run(body, size, &a, &idx_a);

	/* Deterministic. */
	rc_b = run(body, size, &b, &idx_b);
	ASSERT(rc_a == rc_b && a.calls == b.calls && a.hash == b.hash &&
		       idx_a == idx_b,
	       NULL);

	/* Stopped half-way: the same first entries, then fn's value. */
	if (a.calls > 0) {
		b.stop_at = a.calls / 2 + 1;
		rc_b = run(body, size, &b, NULL);
		ASSERT(rc_b == STOP_VALUE && b.calls == b.stop_at, NULL);
		if (b.stop_at <= a.prefix_cap)
			ASSERT(b.hash == prefix[b.stop_at - 1], NULL);
		b.stop_at = 0;
	}

	/* The same body gzipped gives the same result. */
	if (!(size >= 2 && data[0] == 0x1f && data[1] == 0x8b)) {
		size_t zlen;
		unsigned char *z = gzip(data, size, &zlen);

		rc_b = run(z, zlen, &b, &idx_b);
		if (rc_b != rc_a || b.calls != a.calls || b.hash != a.hash ||
		    idx_a != idx_b) {
			fprintf(stderr,
				"plain: rc %d, %lu entries; gzip: rc %d, "
				"%lu entries\n",
				rc_a, a.calls, rc_b, b.calls);
			fail("gzip and plain differ", NULL);
		}
		free(z);
	}

	/* Only plausible times, and the bytes read are the n given. */
	{
		size_t n = size < 48 ? size : 48;
		int64_t t = parse_w3c_datetime(body, n);

		ASSERT(t == -1 || (t >= 0 && t <= W3C_MAX_MS), NULL);
		if (n > 0)
			ASSERT(parse_w3c_datetime(body, n) == t, NULL);
	}
	free(body);
	return 0;
}
