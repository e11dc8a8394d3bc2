/* test-normalize.c — unit tests of normalize/ (SPEC §1 and §4).
 *
 * Most tests are rows of a table: the steps to apply, an optional base URL,
 * the input, and either the expected output or the expected error code.
 * run_row() normalizes the input, compares, checks that the components of
 * struct norm_url describe the output, and checks idempotence: the output
 * normalized again with the same steps is the output itself.
 *
 * The step tables give a mask of exactly one step, so that each row shows
 * what that step does and what it must leave alone.  The profile masks are
 * written out from the table of SPEC §4 and compared with
 * norm_profile_steps() once, so that the other tests can use them as
 * constants. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "url-parts.h"
#include "normalize.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The profiles of SPEC §4, column "profile". */
#define STRICT                                                                 \
	(NORM_LOWERCASE_SCHEME_HOST | NORM_IDN_PUNYCODE |                      \
	 NORM_UPPERCASE_PERCENT_HEX | NORM_DECODE_UNRESERVED |                 \
	 NORM_REMOVE_DOT_SEGMENTS | NORM_REMOVE_DEFAULT_PORT |                 \
	 NORM_EMPTY_PATH_SLASH | NORM_REMOVE_FRAGMENT)
#define EXTENDED                                                               \
	(STRICT | NORM_REMOVE_EMPTY_QUERY | NORM_SORT_QUERY |                  \
	 NORM_REMOVE_DUPLICATE_PARAMS | NORM_REMOVE_TRACKING_PARAMS |          \
	 NORM_REMOVE_SESSION_IDS | NORM_REMOVE_TRAILING_HOST_DOT)
#define AGGRESSIVE                                                             \
	(EXTENDED | NORM_REMOVE_EMPTY_PARAMS | NORM_COLLAPSE_SLASHES |         \
	 NORM_LOWERCASE_PATH | NORM_ADD_TRAILING_SLASH |                       \
	 NORM_REMOVE_DEFAULT_PAGE | NORM_REMOVE_WWW | NORM_FOLD_HTTPS |        \
	 NORM_REMOVE_USERINFO)

/* Strict, but keeping the fragment: the form in which RFC 3986 writes its
 * resolution examples. */
#define STRICT_FRAG (STRICT & ~NORM_REMOVE_FRAGMENT)

#define BIG (NORM_INPUT_MAX + 4096)

struct row {
	uint32_t steps;
	const char *base; /* resolve against this page URL; NULL: no base */
	const char *in;
	const char *want; /* expected output; NULL: any */
	int err;          /* expected error code, 0 for success, or ANY */
};

/* In err: success with any output, or any error. */
#define ANY 1

/* Write s with its control and non-ASCII bytes escaped, for messages. */
static void print_escaped(FILE *f, const char *s, size_t n)
{
	size_t i;

	if (n > 160) {
		print_escaped(f, s, 120);
		fprintf(f, "...(%zu bytes)", n);
		return;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

static void print_context(const char *where, uint32_t steps, const char *base,
			  const char *in, size_t len)
{
	fprintf(stderr, "  in %s: steps %#x, base %s%s%s, input \"", where,
		(unsigned)steps, base ? "\"" : "", base ? base : "NULL",
		base ? "\"" : "");
	print_escaped(stderr, in, len);
	fprintf(stderr, "\"\n");
}

/* Does the span [off, off + len) of out hold exactly want? */
static bool span_is(const char *out, unsigned off, unsigned len,
		    const char *want)
{
	return strlen(want) == len && memcmp(out + off, want, len) == 0;
}

/* Do two results for the same string have the same components?  The port
 * and the https flag may differ: fold_https writes https as http. */
static bool same_parts(const struct norm_url *a, const struct norm_url *b)
{
	return a->len == b->len && a->scheme_len == b->scheme_len &&
	       a->has_user == b->has_user && a->user_off == b->user_off &&
	       a->user_len == b->user_len && a->host_off == b->host_off &&
	       a->host_len == b->host_len && a->host_type == b->host_type &&
	       a->has_port == b->has_port && a->port_off == b->port_off &&
	       a->port_len == b->port_len && a->path_off == b->path_off &&
	       a->path_len == b->path_len && a->has_query == b->has_query &&
	       a->query_off == b->query_off && a->query_len == b->query_len &&
	       a->has_fragment == b->has_fragment &&
	       a->frag_off == b->frag_off && a->frag_len == b->frag_len;
}

/* Normalize in with the given steps and base and check the outcome: the
 * output want, or the error code err (and then an empty output; *ret is
 * unspecified on error).  A successful output must also be a fixed point. */
static void check_url(const char *where, uint32_t steps, const char *base_url,
		      const char *in, size_t len, const char *want, int err)
{
	struct norm_opts o = { .steps = steps };
	struct norm_base base;
	struct norm_url u, u2;
	char out[NORM_URL_MAX + 1], again[NORM_URL_MAX + 1];
	unsigned failed = check_failed;
	int r;

	if (base_url) {
		r = norm_base_set(&base, NULL, base_url, strlen(base_url));
		CHECK(r == 0);
		if (r != 0) {
			print_context(where, steps, base_url, in, len);
			return;
		}
	}
	memset(&u, 0xa5, sizeof(u));
	memset(out, 'x', sizeof(out));
	r = norm_url(&o, base_url ? &base : NULL, in, len, out, sizeof(out),
		     &u);
	if (err == ANY) {
		CHECK(r <= 0 && (r == 0 || out[0] == '\0'));
	} else if (err) {
		CHECK(r == err);
		if (r != err)
			fprintf(stderr, "    error %d (%s), want %d (%s)%s%s\n",
				r, sc_strerror(r), err, sc_strerror(err),
				r == 0 ? ", output " : "", r == 0 ? out : "");
		CHECK(out[0] == '\0');
	} else {
		CHECK(r == 0);
		if (r != 0)
			fprintf(stderr, "    error %d (%s), want \"%s\"\n", r,
				sc_strerror(r), want);
		else if (want)
			CHECK_STR(out, want);
	}
	if (r == 0) {
		CHECK(parts_consistent(out, &u));
		r = norm_url(&o, NULL, out, strlen(out), again, sizeof(again),
			     &u2);
		CHECK(r == 0);
		if (r != 0)
			fprintf(stderr, "    output \"%s\": error %d (%s)\n",
				out, r, sc_strerror(r));
		if (r == 0 && strcmp(again, out) != 0) {
			CHECK_STR(again, out);
			fprintf(stderr, "    (not idempotent)\n");
		}
		if (r == 0)
			CHECK(same_parts(&u, &u2));
	}
	if (check_failed != failed)
		print_context(where, steps, base_url, in, len);
}

static void run_rows(const char *table, const struct row *rows, size_t n)
{
	char where[128];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(where, sizeof(where), "%s row %zu", table, i);
		check_url(where, rows[i].steps, rows[i].base, rows[i].in,
			  strlen(rows[i].in), rows[i].want, rows[i].err);
	}
}

#define RUN_ROWS(rows) run_rows(#rows, rows, ARRAY_SIZE(rows))

/* Normalize a URL that must be valid, into out. */
static int norm_ok(uint32_t steps, const char *in, char *out, size_t cap,
		   struct norm_url *u)
{
	struct norm_opts o = { .steps = steps };
	int r = norm_url(&o, NULL, in, strlen(in), out, cap, u);

	if (r != 0)
		fprintf(stderr, "  norm_url(%#x, \"%s\") = %d (%s)\n",
			(unsigned)steps, in, r, sc_strerror(r));
	return r;
}

/* Do a and b normalize to the same string (same == true) or to different
 * ones (same == false) under these steps? */
static void check_pair(uint32_t steps, const char *a, const char *b, bool same)
{
	char oa[NORM_URL_MAX + 1], ob[NORM_URL_MAX + 1];
	bool ok;

	if (norm_ok(steps, a, oa, sizeof(oa), NULL) != 0 ||
	    norm_ok(steps, b, ob, sizeof(ob), NULL) != 0) {
		CHECK(!"pair normalizes");
		return;
	}
	ok = (strcmp(oa, ob) == 0) == same;
	CHECK(ok);
	if (!ok)
		fprintf(stderr,
			"  steps %#x: \"%s\" -> \"%s\", \"%s\" -> \"%s\": "
			"want %s\n",
			(unsigned)steps, a, oa, b, ob,
			same ? "equal" : "different");
}

/* ------------------------------------------------------------------ */
/* The parser alone: no step at all.                                  */

static const struct row parse_rows[] = {
	/* Written back as found. */
	{ 0, NULL, "http://a.com/x?q#f", "http://a.com/x?q#f", 0 },
	{ 0, NULL, "http://Example.COM/Path", "http://Example.COM/Path", 0 },
	{ 0, NULL, "HTTP://a.com/", "HTTP://a.com/", 0 },
	{ 0, NULL, "http://a.com", "http://a.com", 0 },
	{ 0, NULL, "http://a.com?x", "http://a.com?x", 0 },
	{ 0, NULL, "http://a.com/a/./b/../c", "http://a.com/a/./b/../c", 0 },
	{ 0, NULL, "http://a.com:80/", "http://a.com:80/", 0 },
	{ 0, NULL, "http://a.com:/", "http://a.com:/", 0 },
	{ 0, NULL, "http://a.com/x?", "http://a.com/x?", 0 },
	{ 0, NULL, "http://a.com/x#", "http://a.com/x#", 0 },
	{ 0, NULL, "http://a.com/%7e%41", "http://a.com/%7e%41", 0 },
	{ 0, NULL, "https://u:p@a.com/", "https://u:***@a.com/", 0 },
	{ 0, NULL, "http://a.com/a@b:c;d=e,f!$&'()*+~",
	  "http://a.com/a@b:c;d=e,f!$&'()*+~", 0 },
	{ 0, NULL, "http://a.com/?a?b/c:d@e", "http://a.com/?a?b/c:d@e", 0 },
	/* Leading and trailing spaces and control characters dropped. */
	{ 0, NULL, "  http://a.com/x  ", "http://a.com/x", 0 },
	{ 0, NULL, "\x01\x1f\t\n http://a.com/x\r\n\x0b", "http://a.com/x", 0 },
	/* Tabs and newlines removed anywhere, even in the scheme and host. */
	{ 0, NULL, "http://a.com/a\tb\nc\rd", "http://a.com/abcd", 0 },
	{ 0, NULL, "ht\ntp://a.\tcom/", "http://a.com/", 0 },
	{ 0, NULL, "http://a.com/?a\n=1#x\ty", "http://a.com/?a=1#xy", 0 },
	/* '\' is '/' before the query, an encoded byte after it. */
	{ 0, NULL, "http:\\\\a.com\\b\\c", "http://a.com/b/c", 0 },
	{ 0, NULL, "http://a.com/b\\c?d\\e#f\\g",
	  "http://a.com/b/c?d%5Ce#f%5Cg", 0 },
	/* Any number of slashes after "http:". */
	{ 0, NULL, "http:a.com/x", "http://a.com/x", 0 },
	{ 0, NULL, "http:/a.com/x", "http://a.com/x", 0 },
	{ 0, NULL, "http:///a.com/x", "http://a.com/x", 0 },
	{ 0, NULL, "https:////a.com/x", "https://a.com/x", 0 },
	{ 0, NULL, "http:/\\/a.com/x", "http://a.com/x", 0 },
	/* Characters RFC 3986 does not allow, percent-encoded as UTF-8. */
	{ 0, NULL, "http://a.com/a b?c d#e f", "http://a.com/a%20b?c%20d#e%20f",
	  0 },
	{ 0, NULL, "http://a.com/\xc3\xbc?\xc3\xbc#\xc3\xbc",
	  "http://a.com/%C3%BC?%C3%BC#%C3%BC", 0 },
	{ 0, NULL, "http://a.com/\"<>?\"<>", "http://a.com/%22%3C%3E?%22%3C%3E",
	  0 },
	{ 0, NULL, "http://a.com/{}|^`", "http://a.com/%7B%7D%7C%5E%60", 0 },
	{ 0, NULL, "http://a.com/\xff\x80", "http://a.com/%FF%80", 0 },
	{ 0, NULL, "http://a.com/a\x7f", "http://a.com/a%7F", 0 },
	{ 0, NULL, "http://a.com/a#b#c", "http://a.com/a#b%23c", 0 },
	/* A '%' without two hex digits after it is a literal '%'. */
	{ 0, NULL, "http://a.com/%zz%4%", "http://a.com/%25zz%254%25", 0 },
	{ 0, NULL, "http://a.com/%4g?%%41#%", "http://a.com/%254g?%25%41#%25",
	  0 },
	{ 0, NULL, "http://a.com/100%", "http://a.com/100%25", 0 },
	/* Ports lose their leading zeros. */
	{ 0, NULL, "http://a.com:0080/", "http://a.com:80/", 0 },
	{ 0, NULL, "http://a.com:00000/", "http://a.com:0/", 0 },
	{ 0, NULL, "http://a.com:0000000000008080/", "http://a.com:8080/", 0 },
	{ 0, NULL, "http://a.com:65535/", "http://a.com:65535/", 0 },
	/* An empty userinfo is dropped, a real one kept as it is. */
	{ 0, NULL, "http://@a.com/", "http://a.com/", 0 },
	{ 0, NULL, "http://User:Pw@A.com/", "http://User:***@A.com/", 0 },
	/* Hosts are percent-decoded. */
	{ 0, NULL, "http://%61%62.com/", "http://ab.com/", 0 },
	/* IPv4 in every browser form, written dotted decimal. */
	{ 0, NULL, "http://0x7f.1/", "http://127.0.0.1/", 0 },
	{ 0, NULL, "http://2130706433/", "http://127.0.0.1/", 0 },
	{ 0, NULL, "http://0x7F000001/", "http://127.0.0.1/", 0 },
	{ 0, NULL, "http://0177.0.0.1/", "http://127.0.0.1/", 0 },
	{ 0, NULL, "http://127.1/", "http://127.0.0.1/", 0 },
	{ 0, NULL, "http://127.0.1/", "http://127.0.0.1/", 0 },
	{ 0, NULL, "http://1.2.3/", "http://1.2.0.3/", 0 },
	{ 0, NULL, "http://0/", "http://0.0.0.0/", 0 },
	{ 0, NULL, "http://4294967295/", "http://255.255.255.255/", 0 },
	{ 0, NULL, "http://%31%32%37.0.0.1/", "http://127.0.0.1/", 0 },
	{ 0, NULL, "http://1.2.3.4:8080/", "http://1.2.3.4:8080/", 0 },
	/* IPv6 in RFC 5952 form: lower case, no leading zeros, the longest
	 * run of zero groups (the first of equals, two or more) as "::". */
	{ 0, NULL, "http://[2001:DB8::1]/", "http://[2001:db8::1]/", 0 },
	{ 0, NULL, "http://[2001:0db8:0000:0000:0000:0000:0000:0001]/",
	  "http://[2001:db8::1]/", 0 },
	{ 0, NULL, "http://[2001:db8:0:0:1:0:0:1]/",
	  "http://[2001:db8::1:0:0:1]/", 0 },
	{ 0, NULL, "http://[2001:0:0:1:0:0:0:1]/", "http://[2001:0:0:1::1]/",
	  0 },
	{ 0, NULL, "http://[2001:db8:0:1:1:1:1:1]/",
	  "http://[2001:db8:0:1:1:1:1:1]/", 0 },
	{ 0, NULL, "http://[0:0:0:0:0:0:0:0]/", "http://[::]/", 0 },
	{ 0, NULL, "http://[::1]:8080/", "http://[::1]:8080/", 0 },
	{ 0, NULL, "http://[1::]/", "http://[1::]/", 0 },
};

/* Rows whose input holds NUL bytes cannot be C strings. */
/* Embedded in the input, a NUL is just another control character. */
static void test_parse_nul(void)
{
	static const char in1[] = "http://a.com/a\0b";
	static const char in2[] = "\0http://a.com/\0";

	check_url("nul inside", 0, NULL, in1, sizeof(in1) - 1,
		  "http://a.com/a%00b", 0);
	check_url("nul trimmed", 0, NULL, in2, sizeof(in2) - 1, "http://a.com/",
		  0);
	/* len bounds the input: the rest of the string is not read. */
	check_url("len bounds", 0, NULL, "http://a.com/abcdef", 15,
		  "http://a.com/ab", 0);
}

/* ------------------------------------------------------------------ */
/* Each step alone: where it acts and where it must not.              */

static const struct row step_rows[] = {
	/* lowercase_scheme_host: scheme and host only. */
	{ NORM_LOWERCASE_SCHEME_HOST, NULL, "HTTP://Example.COM/Path?Q=A#F",
	  "http://example.com/Path?Q=A#F", 0 },
	{ NORM_LOWERCASE_SCHEME_HOST, NULL, "HtTpS://WWW.A.COM:8080/",
	  "https://www.a.com:8080/", 0 },
	{ NORM_LOWERCASE_SCHEME_HOST, NULL, "http://User:PW@A.com/",
	  "http://User:***@a.com/", 0 },
	{ NORM_LOWERCASE_SCHEME_HOST, NULL, "http://%41.com/%41",
	  "http://a.com/%41", 0 },
	{ NORM_LOWERCASE_SCHEME_HOST, NULL, "http://a.com/", "http://a.com/",
	  0 },

	/* idn_punycode: Unicode labels to A-labels, ASCII left alone. */
	{ NORM_IDN_PUNYCODE, NULL,
	  "http://b\xc3\xbc"
	  "cher.de/",
	  "http://xn--bcher-kva.de/", 0 },
	{ NORM_IDN_PUNYCODE, NULL, "http://xn--bcher-kva.de/",
	  "http://xn--bcher-kva.de/", 0 },
	{ NORM_IDN_PUNYCODE, NULL, "http://a.com/b\xc3\xbc",
	  "http://a.com/b%C3%BC", 0 },

	/* uppercase_percent_hex: everywhere but the host (decoded). */
	{ NORM_UPPERCASE_PERCENT_HEX, NULL, "http://a.com/%7e%2f?x=%3d#%7c",
	  "http://a.com/%7E%2F?x=%3D#%7C", 0 },
	{ NORM_UPPERCASE_PERCENT_HEX, NULL, "http://a.com/%7E%25",
	  "http://a.com/%7E%25", 0 },
	{ NORM_UPPERCASE_PERCENT_HEX, NULL, "http://a.com/%zz",
	  "http://a.com/%25zz", 0 },

	/* decode_unreserved: ALPHA DIGIT - . _ ~ only. */
	{ NORM_DECODE_UNRESERVED, NULL,
	  "http://a.com/%41%7E%2D%2e%5F%30%4a?%61=%62#%63",
	  "http://a.com/A~-._0J?a=b#c", 0 },
	{ NORM_DECODE_UNRESERVED, NULL, "http://a.com/%2F%3F%25%20%23%26%3D",
	  "http://a.com/%2F%3F%25%20%23%26%3D", 0 },
	{ NORM_DECODE_UNRESERVED, NULL, "http://a.com/?a%26b=%3D%2B",
	  "http://a.com/?a%26b=%3D%2B", 0 },
	/* It does not change the case of what it leaves encoded. */
	{ NORM_DECODE_UNRESERVED, NULL, "http://a.com/%2f%c3%bc",
	  "http://a.com/%2f%c3%bc", 0 },
	/* Decoded dots are not removed without remove_dot_segments. */
	{ NORM_DECODE_UNRESERVED, NULL, "http://a.com/a/%2E%2E/b",
	  "http://a.com/a/../b", 0 },

	/* remove_dot_segments: RFC 3986 §5.2.4, the path only. */
	{ NORM_REMOVE_DOT_SEGMENTS, NULL, "http://a.com/a/./b/../c",
	  "http://a.com/a/c", 0 },
	{ NORM_REMOVE_DOT_SEGMENTS, NULL, "http://a.com/../a", "http://a.com/a",
	  0 },
	{ NORM_REMOVE_DOT_SEGMENTS, NULL, "http://a.com/a/b/..",
	  "http://a.com/a/", 0 },
	{ NORM_REMOVE_DOT_SEGMENTS, NULL, "http://a.com/a/.", "http://a.com/a/",
	  0 },
	{ NORM_REMOVE_DOT_SEGMENTS, NULL, "http://a.com/a/b/../../../..",
	  "http://a.com/", 0 },
	{ NORM_REMOVE_DOT_SEGMENTS, NULL, "http://a.com/a..b/.c/..d/.../e",
	  "http://a.com/a..b/.c/..d/.../e", 0 },
	{ NORM_REMOVE_DOT_SEGMENTS, NULL, "http://a.com/a/%2E%2E/b",
	  "http://a.com/a/%2E%2E/b", 0 },
	{ NORM_REMOVE_DOT_SEGMENTS, NULL, "http://a.com/x?y=/a/../b#/./c",
	  "http://a.com/x?y=/a/../b#/./c", 0 },

	/* remove_default_port: the scheme's own port, and an empty ':'. */
	{ NORM_REMOVE_DEFAULT_PORT, NULL, "http://a.com:80/", "http://a.com/",
	  0 },
	{ NORM_REMOVE_DEFAULT_PORT, NULL, "https://a.com:443/",
	  "https://a.com/", 0 },
	{ NORM_REMOVE_DEFAULT_PORT, NULL, "http://a.com:/", "http://a.com/",
	  0 },
	{ NORM_REMOVE_DEFAULT_PORT, NULL, "https://a.com:/x", "https://a.com/x",
	  0 },
	{ NORM_REMOVE_DEFAULT_PORT, NULL, "http://a.com:0080/", "http://a.com/",
	  0 },
	{ NORM_REMOVE_DEFAULT_PORT, NULL, "http://a.com:8080/",
	  "http://a.com:8080/", 0 },
	{ NORM_REMOVE_DEFAULT_PORT, NULL, "http://a.com:443/",
	  "http://a.com:443/", 0 },
	{ NORM_REMOVE_DEFAULT_PORT, NULL, "https://a.com:80/",
	  "https://a.com:80/", 0 },

	/* empty_path_slash */
	{ NORM_EMPTY_PATH_SLASH, NULL, "http://a.com", "http://a.com/", 0 },
	{ NORM_EMPTY_PATH_SLASH, NULL, "http://a.com?x", "http://a.com/?x", 0 },
	{ NORM_EMPTY_PATH_SLASH, NULL, "http://a.com#f", "http://a.com/#f", 0 },
	{ NORM_EMPTY_PATH_SLASH, NULL, "http://a.com:8080",
	  "http://a.com:8080/", 0 },
	{ NORM_EMPTY_PATH_SLASH, NULL, "http://a.com/x", "http://a.com/x", 0 },

	/* remove_fragment, also an empty one */
	{ NORM_REMOVE_FRAGMENT, NULL, "http://a.com/x#f", "http://a.com/x", 0 },
	{ NORM_REMOVE_FRAGMENT, NULL, "http://a.com/x?q#", "http://a.com/x?q",
	  0 },
	{ NORM_REMOVE_FRAGMENT, NULL, "http://a.com/x?q", "http://a.com/x?q",
	  0 },

	/* remove_empty_query: only a '?' with nothing after it */
	{ NORM_REMOVE_EMPTY_QUERY, NULL, "http://a.com/x?", "http://a.com/x",
	  0 },
	{ NORM_REMOVE_EMPTY_QUERY, NULL, "http://a.com/x?#f",
	  "http://a.com/x#f", 0 },
	{ NORM_REMOVE_EMPTY_QUERY, NULL, "http://a.com/x?a", "http://a.com/x?a",
	  0 },
	{ NORM_REMOVE_EMPTY_QUERY, NULL,
	  "http://a.com/x?=", "http://a.com/x?=", 0 },
	{ NORM_REMOVE_EMPTY_QUERY, NULL, "http://a.com/x?&", "http://a.com/x?&",
	  0 },

	/* sort_query: by name, then by value, bytes compared as unsigned. */
	{ NORM_SORT_QUERY, NULL, "http://a.com/?b=2&a=1&c=0",
	  "http://a.com/?a=1&b=2&c=0", 0 },
	{ NORM_SORT_QUERY, NULL, "http://a.com/?b=1&B=2&a=3&A=4",
	  "http://a.com/?A=4&B=2&a=3&b=1", 0 },
	{ NORM_SORT_QUERY, NULL, "http://a.com/?a=2&a=1&a=10",
	  "http://a.com/?a=1&a=10&a=2", 0 },
	/* The name first: "a" < "a-b" although "a-b=0" < "a=1" as strings. */
	{ NORM_SORT_QUERY, NULL, "http://a.com/?a-b=0&a=1",
	  "http://a.com/?a=1&a-b=0", 0 },
	/* "a" without '=' sorts before "a=", so their order never
	 * matters. */
	{ NORM_SORT_QUERY, NULL, "http://a.com/?b&a=&a", "http://a.com/?a&a=&b",
	  0 },
	{ NORM_SORT_QUERY, NULL, "http://a.com/?b&a&a=", "http://a.com/?a&a=&b",
	  0 },
	/* Bytes, not decoded characters: '%' (0x25) sorts before 'a'. */
	{ NORM_SORT_QUERY, NULL, "http://a.com/?a=2&%62=1",
	  "http://a.com/?%62=1&a=2", 0 },
	/* Sorted as written: encoded first, so "%C3%BC" < "y". */
	{ NORM_SORT_QUERY, NULL, "http://a.com/?z=y&z=\xc3\xbc",
	  "http://a.com/?z=%C3%BC&z=y", 0 },
	{ NORM_SORT_QUERY, NULL, "http://a.com/x?b=1#d=1&c=2",
	  "http://a.com/x?b=1#d=1&c=2", 0 },

	/* remove_duplicate_params: identical name=value pairs only */
	{ NORM_REMOVE_DUPLICATE_PARAMS, NULL, "http://a.com/?a=1&b=2&a=1",
	  "http://a.com/?a=1&b=2", 0 },
	{ NORM_REMOVE_DUPLICATE_PARAMS, NULL, "http://a.com/?b=2&a=1&b=2&b=2",
	  "http://a.com/?b=2&a=1", 0 },
	{ NORM_REMOVE_DUPLICATE_PARAMS, NULL, "http://a.com/?a&a",
	  "http://a.com/?a", 0 },
	{ NORM_REMOVE_DUPLICATE_PARAMS, NULL, "http://a.com/?a=1&a=2",
	  "http://a.com/?a=1&a=2", 0 },
	{ NORM_REMOVE_DUPLICATE_PARAMS, NULL, "http://a.com/?a=1&A=1",
	  "http://a.com/?a=1&A=1", 0 },

	/* remove_tracking_params: the default list of SPEC §4 */
	{ NORM_REMOVE_TRACKING_PARAMS, NULL,
	  "http://a.com/?utm_source=x&id=1&fbclid=y", "http://a.com/?id=1", 0 },
	{ NORM_REMOVE_TRACKING_PARAMS, NULL,
	  "http://a.com/?utm_medium=1&utm_campaign=2&utm_term=3&"
	  "utm_content=4&utm_=5&k=v",
	  "http://a.com/?k=v", 0 },
	{ NORM_REMOVE_TRACKING_PARAMS, NULL,
	  "http://a.com/?gclid=1&dclid=2&k=v&msclkid=3&mc_cid=4&mc_eid=5&"
	  "yclid=6&_ga=7&igshid=8&fbclid",
	  "http://a.com/?k=v", 0 },
	{ NORM_REMOVE_TRACKING_PARAMS, NULL,
	  "http://a.com/?utm=1&xutm_source=2&gclidx=3&_gat=4&UTM_SOURCE=5&"
	  "FBCLID=6",
	  "http://a.com/?utm=1&xutm_source=2&gclidx=3&_gat=4&UTM_SOURCE=5&"
	  "FBCLID=6",
	  0 },
	/* Names only: a tracking name as a value stays. */
	{ NORM_REMOVE_TRACKING_PARAMS, NULL, "http://a.com/?ref=gclid",
	  "http://a.com/?ref=gclid", 0 },
	/* The '?' stays: dropping it is remove_empty_query's work. */
	{ NORM_REMOVE_TRACKING_PARAMS, NULL, "http://a.com/x?utm_source=a",
	  "http://a.com/x?", 0 },

	/* remove_session_ids: case-insensitive names */
	{ NORM_REMOVE_SESSION_IDS, NULL, "http://a.com/?PHPSESSID=abc&x=1",
	  "http://a.com/?x=1", 0 },
	{ NORM_REMOVE_SESSION_IDS, NULL,
	  "http://a.com/?x=1&phpsessid=1&jsessionid=2&JSESSIONID=3&sid=4&"
	  "SID=5&sessionid=6&SessionId=7",
	  "http://a.com/?x=1", 0 },
	{ NORM_REMOVE_SESSION_IDS, NULL,
	  "http://a.com/?ASPSESSIONIDQQGGQGRA=ABC&x=1&aspsessionid=2",
	  "http://a.com/?x=1", 0 },
	{ NORM_REMOVE_SESSION_IDS, NULL, "http://a.com/a;jsessionid=ABC?x=1",
	  "http://a.com/a?x=1", 0 },
	{ NORM_REMOVE_SESSION_IDS, NULL, "http://a.com/a/b.jsp;JSESSIONID=0F1E",
	  "http://a.com/a/b.jsp", 0 },
	{ NORM_REMOVE_SESSION_IDS, NULL,
	  "http://a.com/?sidebar=1&side=2&ssid=3&sessionidx=4&xsid=5",
	  "http://a.com/?sidebar=1&side=2&ssid=3&sessionidx=4&xsid=5", 0 },
	{ NORM_REMOVE_SESSION_IDS, NULL, "http://a.com/a;x=1",
	  "http://a.com/a;x=1", 0 },
	/* A segment that is only the parameter goes with its slash (not
	 * "/a//" or "//index.html"), unless ".." follows. */
	{ NORM_REMOVE_SESSION_IDS, NULL, "http://a.com/a/;jsessionid=AB12/",
	  "http://a.com/a/", 0 },
	{ NORM_REMOVE_SESSION_IDS, NULL,
	  "http://a.com/;jsessionid=AB12/index.html", "http://a.com/index.html",
	  0 },
	{ NORM_REMOVE_SESSION_IDS, NULL, "http://a.com/;jsessionid=AB12",
	  "http://a.com/", 0 },

	/* remove_trailing_host_dot */
	{ NORM_REMOVE_TRAILING_HOST_DOT, NULL, "http://a.com./",
	  "http://a.com/", 0 },
	{ NORM_REMOVE_TRAILING_HOST_DOT, NULL, "http://a.com.:8080/x./",
	  "http://a.com:8080/x./", 0 },
	{ NORM_REMOVE_TRAILING_HOST_DOT, NULL, "http://a.com/x./",
	  "http://a.com/x./", 0 },

	/* remove_empty_params: "=" with nothing after it; 0 is a value */
	{ NORM_REMOVE_EMPTY_PARAMS, NULL, "http://a.com/?a=&b=1",
	  "http://a.com/?b=1", 0 },
	{ NORM_REMOVE_EMPTY_PARAMS, NULL,
	  "http://a.com/?b=1&a=", "http://a.com/?b=1", 0 },
	{ NORM_REMOVE_EMPTY_PARAMS, NULL, "http://a.com/?a=0&b=00",
	  "http://a.com/?a=0&b=00", 0 },
	{ NORM_REMOVE_EMPTY_PARAMS, NULL, "http://a.com/?a=1&&b=2",
	  "http://a.com/?a=1&b=2", 0 },

	/* collapse_slashes: in the path only */
	{ NORM_COLLAPSE_SLASHES, NULL, "http://a.com//a///b/",
	  "http://a.com/a/b/", 0 },
	{ NORM_COLLAPSE_SLASHES, NULL, "http://a.com//", "http://a.com/", 0 },
	{ NORM_COLLAPSE_SLASHES, NULL, "http://a.com/a?u=//x#//y",
	  "http://a.com/a?u=//x#//y", 0 },

	/* lowercase_path: the path, not the query, nor %XX escapes */
	{ NORM_LOWERCASE_PATH, NULL, "http://a.com/Dir/File.HTML?Q=A#F",
	  "http://a.com/dir/file.html?Q=A#F", 0 },
	{ NORM_LOWERCASE_PATH, NULL, "http://a.com/A%C3%9C",
	  "http://a.com/a%C3%9C", 0 },

	/* add_trailing_slash: when the last segment has no '.' */
	{ NORM_ADD_TRAILING_SLASH, NULL, "http://a.com/dir",
	  "http://a.com/dir/", 0 },
	{ NORM_ADD_TRAILING_SLASH, NULL, "http://a.com/v1.2/x?y=1",
	  "http://a.com/v1.2/x/?y=1", 0 },
	{ NORM_ADD_TRAILING_SLASH, NULL, "http://a.com/a.html",
	  "http://a.com/a.html", 0 },
	{ NORM_ADD_TRAILING_SLASH, NULL, "http://a.com/a/", "http://a.com/a/",
	  0 },
	{ NORM_ADD_TRAILING_SLASH, NULL, "http://a.com/", "http://a.com/", 0 },
	{ NORM_ADD_TRAILING_SLASH, NULL, "http://a.com/.hidden",
	  "http://a.com/.hidden", 0 },

	/* remove_default_page: the last segment only, whole names only */
	{ NORM_REMOVE_DEFAULT_PAGE, NULL, "http://a.com/index.html",
	  "http://a.com/", 0 },
	{ NORM_REMOVE_DEFAULT_PAGE, NULL, "http://a.com/a/index.htm?x=1",
	  "http://a.com/a/?x=1", 0 },
	{ NORM_REMOVE_DEFAULT_PAGE, NULL, "http://a.com/a/index.php",
	  "http://a.com/a/", 0 },
	{ NORM_REMOVE_DEFAULT_PAGE, NULL, "http://a.com/a/index.asp",
	  "http://a.com/a/", 0 },
	{ NORM_REMOVE_DEFAULT_PAGE, NULL, "http://a.com/a/index.aspx",
	  "http://a.com/a/", 0 },
	{ NORM_REMOVE_DEFAULT_PAGE, NULL, "http://a.com/a/index.jsp",
	  "http://a.com/a/", 0 },
	{ NORM_REMOVE_DEFAULT_PAGE, NULL, "http://a.com/a/default.htm",
	  "http://a.com/a/", 0 },
	{ NORM_REMOVE_DEFAULT_PAGE, NULL, "http://a.com/a/default.html",
	  "http://a.com/a/", 0 },
	{ NORM_REMOVE_DEFAULT_PAGE, NULL, "http://a.com/a/default.asp",
	  "http://a.com/a/", 0 },
	{ NORM_REMOVE_DEFAULT_PAGE, NULL, "http://a.com/a/default.aspx#f",
	  "http://a.com/a/#f", 0 },
	{ NORM_REMOVE_DEFAULT_PAGE, NULL, "http://a.com/myindex.html",
	  "http://a.com/myindex.html", 0 },
	{ NORM_REMOVE_DEFAULT_PAGE, NULL, "http://a.com/index.html5",
	  "http://a.com/index.html5", 0 },
	{ NORM_REMOVE_DEFAULT_PAGE, NULL, "http://a.com/index.html/b",
	  "http://a.com/index.html/b", 0 },
	{ NORM_REMOVE_DEFAULT_PAGE, NULL, "http://a.com/index.shtml",
	  "http://a.com/index.shtml", 0 },

	/* remove_www: leading "www." labels while two labels remain */
	{ NORM_REMOVE_WWW, NULL, "http://www.a.com/", "http://a.com/", 0 },
	{ NORM_REMOVE_WWW, NULL, "http://www.www.a.com/", "http://a.com/", 0 },
	{ NORM_REMOVE_WWW, NULL, "http://www.www.com/", "http://www.com/", 0 },
	{ NORM_REMOVE_WWW, NULL, "http://www.com/", "http://www.com/", 0 },
	{ NORM_REMOVE_WWW, NULL, "http://www1.a.com/", "http://www1.a.com/",
	  0 },
	{ NORM_REMOVE_WWW, NULL, "http://wwwa.com/", "http://wwwa.com/", 0 },
	{ NORM_REMOVE_WWW, NULL, "http://a.www.com/", "http://a.www.com/", 0 },
	{ NORM_REMOVE_WWW, NULL, "http://a.com/www.b/", "http://a.com/www.b/",
	  0 },

	/* fold_https: the key says http (see test_fetch_url for the rest) */
	{ NORM_FOLD_HTTPS, NULL, "https://a.com/x", "http://a.com/x", 0 },
	{ NORM_FOLD_HTTPS, NULL, "https://a.com:8443/", "http://a.com:8443/",
	  0 },
	{ NORM_FOLD_HTTPS, NULL, "http://a.com/", "http://a.com/", 0 },

	/* remove_userinfo */
	{ NORM_REMOVE_USERINFO, NULL, "http://u:p@a.com/", "http://a.com/", 0 },
	{ NORM_REMOVE_USERINFO, NULL, "http://u@a.com:8080/x",
	  "http://a.com:8080/x", 0 },
	{ NORM_REMOVE_USERINFO, NULL, "http://a.com/u@b", "http://a.com/u@b",
	  0 },
};

/* A custom tracking list replaces the default one. */
static void test_tracking_list(void)
{
	static const char *const list[] = { "ref", "src_*" };
	struct norm_opts o = {
		.steps = NORM_REMOVE_TRACKING_PARAMS,
		.tracking = list,
		.n_tracking = ARRAY_SIZE(list),
	};
	static const char in[] =
		"http://a.com/?ref=1&src_a=2&utm_source=3&src=4&refx=5";
	char out[NORM_URL_MAX + 1];
	int r;

	r = norm_url(&o, NULL, in, strlen(in), out, sizeof(out), NULL);
	CHECK(r == 0);
	CHECK_STR(out, "http://a.com/?utm_source=3&src=4&refx=5");

	/* Names compare after decode_unreserved. */
	o.steps |= NORM_DECODE_UNRESERVED;
	r = norm_url(&o, NULL, "http://a.com/?%72ef=1&k=v", 25, out,
		     sizeof(out), NULL);
	CHECK(r == 0);
	CHECK_STR(out, "http://a.com/?k=v");
}

/* ------------------------------------------------------------------ */
/* Profiles and step names                                            */

static const char *const step_names[NORM_STEP_COUNT] = {
	"lowercase_scheme_host",
	"idn_punycode",
	"uppercase_percent_hex",
	"decode_unreserved",
	"remove_dot_segments",
	"remove_default_port",
	"empty_path_slash",
	"remove_fragment",
	"remove_empty_query",
	"sort_query",
	"remove_duplicate_params",
	"remove_tracking_params",
	"remove_session_ids",
	"remove_trailing_host_dot",
	"remove_empty_params",
	"collapse_slashes",
	"lowercase_path",
	"add_trailing_slash",
	"remove_default_page",
	"remove_www",
	"fold_https",
	"remove_userinfo",
};

static void test_names(void)
{
	uint32_t all = 0;
	int i;

	for (i = 0; i < NORM_STEP_COUNT; i++) {
		uint32_t bit = 1u << i;
		const char *name = norm_step_name(bit);

		CHECK(name != NULL);
		if (!name)
			continue;
		CHECK_STR(name, step_names[i]);
		CHECK(norm_step_by_name(name, strlen(name)) == bit);
		CHECK(norm_step_by_name(step_names[i], strlen(step_names[i])) ==
		      bit);
		all |= bit;
	}
	CHECK(all == AGGRESSIVE);
	CHECK(norm_step_name(0) == NULL);
	CHECK(norm_step_name(NORM_SORT_QUERY | NORM_REMOVE_WWW) == NULL);
	CHECK(norm_step_name(1u << NORM_STEP_COUNT) == NULL);
	CHECK(norm_step_name(1u << 31) == NULL);
	/* The length bounds the name: no NUL needed, prefixes unknown. */
	CHECK(norm_step_by_name("sort_query, x", 10) == NORM_SORT_QUERY);
	CHECK(norm_step_by_name("sort_query", 4) == 0);
	CHECK(norm_step_by_name("sort_queryx", 11) == 0);
	CHECK(norm_step_by_name("", 0) == 0);
	CHECK(norm_step_by_name("strict", 6) == 0);
}

static void test_profiles(void)
{
	static const struct {
		const char *name;
		enum norm_profile p;
		uint32_t steps;
	} profiles[] = {
		{ "strict", NORM_PROFILE_STRICT, STRICT },
		{ "extended", NORM_PROFILE_EXTENDED, EXTENDED },
		{ "aggressive", NORM_PROFILE_AGGRESSIVE, AGGRESSIVE },
		/* Strict until per-host rules exist. */
		{ "adaptive", NORM_PROFILE_ADAPTIVE, STRICT },
	};
	uint32_t s = norm_profile_steps(NORM_PROFILE_STRICT);
	uint32_t e = norm_profile_steps(NORM_PROFILE_EXTENDED);
	uint32_t a = norm_profile_steps(NORM_PROFILE_AGGRESSIVE);
	enum norm_profile p;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(profiles); i++) {
		CHECK(norm_profile_steps(profiles[i].p) == profiles[i].steps);
		p = (enum norm_profile) - 1;
		CHECK(norm_profile_parse(profiles[i].name, &p) == 0);
		CHECK(p == profiles[i].p);
	}
	/* Each profile holds the one before it, and more. */
	CHECK((s & ~e) == 0 && s != e);
	CHECK((e & ~a) == 0 && e != a);
	CHECK(norm_profile_steps(NORM_PROFILE_ADAPTIVE) == s);

	p = NORM_PROFILE_EXTENDED;
	CHECK(norm_profile_parse("bogus", &p) == SC_E_STEP);
	CHECK(norm_profile_parse("", &p) == SC_E_STEP);
	CHECK(norm_profile_parse("stric", &p) == SC_E_STEP);
	CHECK(norm_profile_parse("strictly", &p) == SC_E_STEP);
	CHECK(p == NORM_PROFILE_EXTENDED);
}

static void test_steps_parse(void)
{
	const char *bad = NULL;
	size_t bad_len = 0;
	uint32_t steps;
	const char *list;

	steps = 0;
	CHECK(norm_steps_parse("+sort_query, -remove_fragment, lowercase_path",
			       &steps, NULL, NULL) == 0);
	CHECK(steps == (NORM_SORT_QUERY | NORM_LOWERCASE_PATH));

	steps = STRICT;
	CHECK(norm_steps_parse("-remove_fragment", &steps, &bad, &bad_len) ==
	      0);
	CHECK(steps == STRICT_FRAG);

	/* Any mix of commas and white space separates. */
	steps = 0;
	CHECK(norm_steps_parse(" \t+sort_query\t-remove_fragment \n"
			       " lowercase_path ,, ,remove_www,",
			       &steps, &bad, &bad_len) == 0);
	CHECK(steps ==
	      (NORM_SORT_QUERY | NORM_LOWERCASE_PATH | NORM_REMOVE_WWW));

	/* Later entries win. */
	steps = 0;
	CHECK(norm_steps_parse("+fold_https,-fold_https", &steps, NULL, NULL) ==
	      0);
	CHECK(steps == 0);
	steps = 0;
	CHECK(norm_steps_parse("-fold_https,fold_https", &steps, NULL, NULL) ==
	      0);
	CHECK(steps == NORM_FOLD_HTTPS);

	/* Nothing to do. */
	steps = EXTENDED;
	CHECK(norm_steps_parse("", &steps, NULL, NULL) == 0);
	CHECK(norm_steps_parse(" , ", &steps, NULL, NULL) == 0);
	CHECK(steps == EXTENDED);

	/* An unknown name: error, *steps unchanged even though a good name
	 * came first, *bad at the name inside the list. */
	steps = STRICT;
	list = "+sort_query, -bogus_step, lowercase_path";
	CHECK(norm_steps_parse(list, &steps, &bad, &bad_len) == SC_E_STEP);
	CHECK(steps == STRICT);
	CHECK(bad == strstr(list, "bogus_step"));
	CHECK(bad_len == strlen("bogus_step"));

	list = "sort_query lowercase_pat";
	CHECK(norm_steps_parse(list, &steps, &bad, &bad_len) == SC_E_STEP);
	CHECK(bad == list + 11 && bad_len == 13);
	CHECK(steps == STRICT);

	/* A profile name is not a step. */
	CHECK(norm_steps_parse("strict", &steps, NULL, NULL) == SC_E_STEP);
	CHECK(steps == STRICT);

	/* Every step by its name. */
	for (int i = 0; i < NORM_STEP_COUNT; i++) {
		char buf[64];

		steps = 0;
		snprintf(buf, sizeof(buf), "+%s", step_names[i]);
		CHECK(norm_steps_parse(buf, &steps, NULL, NULL) == 0);
		CHECK(steps == 1u << i);
		snprintf(buf, sizeof(buf), "-%s", step_names[i]);
		CHECK(norm_steps_parse(buf, &steps, NULL, NULL) == 0);
		CHECK(steps == 0);
	}
}

/* ------------------------------------------------------------------ */
/* Lenient parsing and IDNA (SPEC §4, first paragraph)                */

static const struct row idn_rows[] = {
	{ STRICT, NULL,
	  "http://b\xc3\xbc"
	  "cher.de/",
	  "http://xn--bcher-kva.de/", 0 },
	{ STRICT, NULL,
	  "http://B\xc3\x9c"
	  "CHER.de/",
	  "http://xn--bcher-kva.de/", 0 },
	{ STRICT, NULL,
	  "HTTP://B\xc3\x9c"
	  "CHER.DE/",
	  "http://xn--bcher-kva.de/", 0 },
	/* Non-transitional: 'ß' stays a letter of its own. */
	{ STRICT, NULL, "http://fa\xc3\x9f.de/", "http://xn--fa-hia.de/", 0 },
	/* Percent-encoded UTF-8 in the host is decoded first. */
	{ STRICT, NULL, "http://b%C3%BCcher.de/", "http://xn--bcher-kva.de/",
	  0 },
	/* UTS #46 maps the full-width full stop to '.'. */
	{ STRICT, NULL,
	  "http://a\xef\xbc\x8e"
	  "com/",
	  "http://a.com/", 0 },
	{ STRICT, NULL, "http://xn--bcher-kva.de/", "http://xn--bcher-kva.de/",
	  0 },
	{ STRICT, NULL,
	  "http://www.b\xc3\xbc"
	  "cher.de:8080/b\xc3\xbc",
	  "http://www.xn--bcher-kva.de:8080/b%C3%BC", 0 },
	{ AGGRESSIVE, NULL,
	  "https://www.b\xc3\xbc"
	  "cher.de/",
	  "http://xn--bcher-kva.de/", 0 },
	/* An A-label is checked however it is written: upper case, or with
	 * a percent-escaped '-'. */
	{ STRICT, NULL, "http://XN--BCHER-KVA.de/", "http://xn--bcher-kva.de/",
	  0 },
	{ STRICT, NULL, "http://xn%2D-bcher-kva.de/",
	  "http://xn--bcher-kva.de/", 0 },
	{ STRICT, NULL, "http://xn%2D-zz.de/", NULL, SC_E_IDN },
	{ STRICT, NULL, "http://a.xn%2d-zz.de/", NULL, SC_E_IDN },
	/* ... also with idn_punycode off (a host IDNA rejects is never
	 * fetchable), which then keeps the Unicode form. */
	{ NORM_LOWERCASE_SCHEME_HOST, NULL, "http://xn--zz.de/", NULL,
	  SC_E_IDN },
	{ NORM_LOWERCASE_SCHEME_HOST, NULL,
	  "http://B\xc3\x9c"
	  "cher.de/",
	  "http://b%C3%9Ccher.de/", 0 },
};

/* ------------------------------------------------------------------ */
/* IDNA as browsers do it (SPEC §4)                                  */

/* The WHATWG URL Standard's "domain to ASCII": UTS #46 ToASCII with
 * CheckHyphens, UseSTD3ASCIIRules and VerifyDnsLength false, CheckBidi and
 * CheckJoiners true, nontransitional; then the host parser's checks for
 * forbidden code points and for a host that ends in a number.  Expected
 * A-labels were computed by hand from the UTS #46 mapping of each label
 * and an RFC 3492 Punycode encoder, not by the library under test. */
static const struct row uts46_rows[] = {
	/* Hosts that IDNA2008 refuses and browsers reach:
	 * symbols (NV8 in the UTS #46 table), a hyphen in positions 3 and 4
	 * of an ASCII label next to an A-label. */
	{ STRICT, NULL, "http://xn--i-7iq.ws/", "http://xn--i-7iq.ws/", 0 },
	{ STRICT, NULL, "https://\xe2\x99\xa5.net/", "https://xn--g6h.net/",
	  0 },
	{ STRICT, NULL, "http://r3---sn-abc.xn--bcher-kva.de/",
	  "http://r3---sn-abc.xn--bcher-kva.de/", 0 },
	/* U+1E9E CAPITAL SHARP S maps to U+00DF (UTS #46 since Unicode
	 * 15.1), which nontransitional processing keeps: not "fass.de",
	 * another registered domain. */
	{ STRICT, NULL,
	  "https://FA\xe1\xba\x9e"
	  ".de/",
	  "https://xn--fa-hia.de/", 0 },
	{ STRICT, NULL,
	  "http://STRA\xe1\xba\x9e"
	  "E.de/",
	  "http://xn--strae-oqa.de/", 0 },
	/* Deviation characters stay: final sigma, ZWNJ after a virama. */
	{ STRICT, NULL,
	  "http://\xce\xb2\xcf\x8c\xce\xbb\xce\xbf\xcf\x82"
	  ".com/",
	  "http://xn--nxasmm1c.com/", 0 },
	{ STRICT, NULL,
	  "http://\xe0\xa4\x95\xe0\xa5\x8d\xe2\x80\x8c\xe0\xa4\xb7"
	  ".in/",
	  "http://xn--11b2ezcs70k.in/", 0 },
	/* Symbols and emoji; U+FE0F VARIATION SELECTOR-16 maps to nothing. */
	{ STRICT, NULL, "http://\xe2\x98\x83.net/", "http://xn--n3h.net/", 0 },
	{ STRICT, NULL, "http://\xf0\x9f\x92\xa9.la/", "http://xn--ls8h.la/",
	  0 },
	{ STRICT, NULL,
	  "http://i\xe2\x9d\xa4\xef\xb8\x8f"
	  ".ws/",
	  "http://xn--i-7iq.ws/", 0 },
	/* Percent-encoded hosts are decoded first (WHATWG host parser). */
	{ STRICT, NULL, "http://%E2%98%83.net/", "http://xn--n3h.net/", 0 },
	{ STRICT, NULL, "http://%F0%9F%92%A9.la/", "http://xn--ls8h.la/", 0 },
	{ STRICT, NULL, "http://%FF.com/", NULL, SC_E_IDN },
	/* Dots: U+3002, U+FF0E and U+FF61 separate labels. */
	{ STRICT, NULL,
	  "http://b\xc3\xbc"
	  "cher\xe3\x80\x82"
	  "de/",
	  "http://xn--bcher-kva.de/", 0 },
	{ STRICT, NULL,
	  "http://\xe2\x99\xa5\xef\xbd\xa1"
	  "net/",
	  "http://xn--g6h.net/", 0 },
	/* Upper case, in Unicode and in A-labels. */
	{ STRICT, NULL, "http://XN--I-7IQ.WS/", "http://xn--i-7iq.ws/", 0 },
	{ STRICT, NULL,
	  "http://\xce\x92\xce\x8c\xce\x9b\xce\x9f\xcf\x82"
	  ".com/",
	  "http://xn--nxasmm1c.com/", 0 },
	/* CheckHyphens=false: leading, trailing and 3-4 hyphens pass. */
	{ STRICT, NULL,
	  "http://-b\xc3\xbc"
	  "cher-.de/",
	  "http://xn---bcher--o2a.de/", 0 },
	{ STRICT, NULL, "http://ab--c.xn--g6h.net/",
	  "http://ab--c.xn--g6h.net/", 0 },
	/* VerifyDnsLength=false: an empty label, a label over 63 bytes. */
	{ STRICT, NULL,
	  "http://b\xc3\xbc"
	  "cher..de/",
	  "http://xn--bcher-kva..de/", 0 },
	{ STRICT, NULL,
	  "http://\xc3\xbc"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.de/",
	  "http://xn--aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-tgh.de/",
	  0 },
	/* Invalid Punycode, and A-labels that decode to nothing or to ASCII
	 * only, fail wherever they appear. */
	{ STRICT, NULL, "http://xn--a/", NULL, SC_E_IDN },
	{ STRICT, NULL, "http://xn--a.com/", NULL, SC_E_IDN },
	{ STRICT, NULL, "http://xn--.com/", NULL, SC_E_IDN },
	{ STRICT, NULL, "http://xn---.com/", NULL, SC_E_IDN },
	{ STRICT, NULL, "http://xn--ascii-.com/", NULL, SC_E_IDN },
	{ STRICT, NULL,
	  "http://b\xc3\xbc"
	  "cher.xn--a/",
	  NULL, SC_E_IDN },
	/* CheckBidi: a label mixing directions, an RTL label ending in an
	 * LTR letter, a label starting with a digit in a bidi domain name
	 * (RFC 5893 rules 1, 3 and 5), also when written as A-labels; an
	 * RTL label next to an LTR one is fine. */
	{ STRICT, NULL,
	  "http://a\xd7\x90"
	  ".com/",
	  NULL, SC_E_IDN },
	{ STRICT, NULL,
	  "http://\xd7\x90"
	  "a.com/",
	  NULL, SC_E_IDN },
	{ STRICT, NULL, "http://xn--a-0hc.com/", NULL, SC_E_IDN },
	{ STRICT, NULL, "http://1.\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d/", NULL,
	  SC_E_IDN },
	{ STRICT, NULL, "http://\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d.com/",
	  "http://xn--9dbne9b.com/", 0 },
	/* Disallowed: U+FFFD. */
	{ STRICT, NULL, "http://\xef\xbf\xbd.com/", NULL, SC_E_IDN },
	/* Forbidden host code points after mapping: U+FF1C maps to '<',
	 * U+FF05 to '%', U+2100 to "a/c". */
	{ STRICT, NULL,
	  "http://a\xef\xbc\x9c"
	  "b.com/",
	  NULL, SC_E_HOST },
	{ STRICT, NULL,
	  "http://a\xef\xbc\x85"
	  "b.com/",
	  NULL, SC_E_HOST },
	{ STRICT, NULL, "http://\xe2\x84\x80.com/", NULL, SC_E_HOST },
	/* ... also when idn_punycode is off: the host is invalid whatever
	 * form it is written in. */
	{ NORM_LOWERCASE_SCHEME_HOST, NULL,
	  "http://a\xef\xbc\x9c"
	  "b.com/",
	  NULL, SC_E_HOST },
	{ NORM_LOWERCASE_SCHEME_HOST, NULL, "http://\xe2\x99\xa5.net/",
	  "http://%E2%99%A5.net/", 0 },
	/* A host that maps to a number is an IPv4 address (WHATWG: ends in
	 * a number), in either form. */
	{ STRICT, NULL, "http://\xef\xbc\x91\xef\xbc\x92\xef\xbc\x97.0.0.1/",
	  "http://127.0.0.1/", 0 },
	{ NORM_LOWERCASE_SCHEME_HOST, NULL,
	  "http://\xef\xbc\x91\xef\xbc\x92\xef\xbc\x97.0.0.1/",
	  "http://127.0.0.1/", 0 },
	{ STRICT, NULL, "http://\xef\xbc\x91.2.3.256/", NULL, SC_E_HOST },
	/* ASCII hosts without an A-label are only lower-cased (the standard's
	 * shortcut), whatever UTS #46 thinks of them. */
	{ STRICT, NULL, "http://-a_b-.Com/", "http://-a_b-.com/", 0 },
};

/* ------------------------------------------------------------------ */
/* Errors, each with its own code                                     */

static const struct row error_rows[] = {
	{ STRICT, NULL, "", NULL, SC_E_EMPTY },
	{ STRICT, NULL, "   ", NULL, SC_E_EMPTY },
	{ STRICT, NULL, " \t\r\n\x01\x1f ", NULL, SC_E_EMPTY },
	{ 0, NULL, "", NULL, SC_E_EMPTY },

	{ STRICT, NULL, "mailto:a@b.com", NULL, SC_E_SCHEME },
	{ STRICT, NULL, "javascript:void(0)", NULL, SC_E_SCHEME },
	{ STRICT, NULL, "JavaScript:alert(1)", NULL, SC_E_SCHEME },
	{ STRICT, NULL, "ftp://a.com/f", NULL, SC_E_SCHEME },
	{ STRICT, NULL, "data:text/html,x", NULL, SC_E_SCHEME },
	{ STRICT, NULL, "foo:bar", NULL, SC_E_SCHEME },
	{ STRICT, NULL, "file:///etc/passwd", NULL, SC_E_SCHEME },
	{ STRICT, NULL, "ws://a.com/", NULL, SC_E_SCHEME },
	{ STRICT, NULL, "httpx://a.com/", NULL, SC_E_SCHEME },
	/* A scheme is a scheme, base or not. */
	{ STRICT, "http://a.com/x", "mailto:a@b.com", NULL, SC_E_SCHEME },
	{ STRICT, "http://a.com/x", "javascript:void(0)", NULL, SC_E_SCHEME },

	{ STRICT, NULL, "http://", NULL, SC_E_NOHOST },
	{ STRICT, NULL, "http:", NULL, SC_E_NOHOST },
	{ STRICT, NULL, "https:///", NULL, SC_E_NOHOST },
	{ STRICT, NULL, "http://?x", NULL, SC_E_NOHOST },
	{ STRICT, NULL, "http:///?x", NULL, SC_E_NOHOST },
	{ STRICT, NULL, "http://#f", NULL, SC_E_NOHOST },
	{ STRICT, NULL, "http://:80/", NULL, SC_E_NOHOST },
	{ STRICT, NULL, "http://u:p@/", NULL, SC_E_NOHOST },
	{ STRICT, "http://a.com/x", "http://", NULL, SC_E_NOHOST },
	{ STRICT, "http://a.com/x", "//", NULL, SC_E_NOHOST },

	{ STRICT, NULL, "http://a.com:99999/", NULL, SC_E_PORT },
	{ STRICT, NULL, "http://a.com:65536/", NULL, SC_E_PORT },
	{ STRICT, NULL, "http://a.com:12a/", NULL, SC_E_PORT },
	{ STRICT, NULL, "http://a.com:-1/", NULL, SC_E_PORT },
	{ STRICT, NULL, "http://a.com:+80/", NULL, SC_E_PORT },
	{ STRICT, NULL, "http://a.com:0x50/", NULL, SC_E_PORT },
	{ STRICT, NULL, "http://a.com:80:80/", NULL, SC_E_PORT },
	{ STRICT, NULL, "http://a.com:99999999999999999999/", NULL, SC_E_PORT },

	{ STRICT, NULL, "http://a%zz.com/", NULL, SC_E_HOST_PERCENT },
	{ STRICT, NULL, "http://a%4.com/", NULL, SC_E_HOST_PERCENT },
	{ STRICT, NULL, "http://a.com%/", NULL, SC_E_HOST_PERCENT },

	{ STRICT, NULL, "http://[::1/", NULL, SC_E_IPV6 },
	{ STRICT, NULL, "http://[12345::]/", NULL, SC_E_IPV6 },
	{ STRICT, NULL, "http://[1:2:3:4:5:6:7:8:9]/", NULL, SC_E_IPV6 },
	{ STRICT, NULL, "http://[1:2:3:4:5:6:7]/", NULL, SC_E_IPV6 },
	{ STRICT, NULL, "http://[::1::2]/", NULL, SC_E_IPV6 },
	{ STRICT, NULL, "http://[g::1]/", NULL, SC_E_IPV6 },
	{ STRICT, NULL, "http://[1.2.3.4]/", NULL, SC_E_IPV6 },
	{ STRICT, NULL, "http://[]/", NULL, SC_E_IPV6 },
	/* Nothing but a port may follow the literal. */
	{ STRICT, NULL, "http://[::1]x/", NULL, SC_E_IPV6 },
	{ 0, NULL, "http://[::1/", NULL, SC_E_IPV6 },

	/* Rejected by UTS #46 as browsers apply it: a label starting with
	 * a combining mark, a ZERO WIDTH JOINER outside its context. */
	{ STRICT, NULL,
	  "http://\xcc\x81"
	  "a.de/",
	  NULL, SC_E_IDN },
	{ STRICT, NULL,
	  "http://a\xe2\x80\x8d"
	  "b.de/",
	  NULL, SC_E_IDN },

	{ STRICT, NULL, "http://a<b.com/", NULL, SC_E_HOST },
	{ STRICT, NULL, "http://a b.com/", NULL, SC_E_HOST },
	{ STRICT, NULL, "http://a>b.com/", NULL, SC_E_HOST },
	{ STRICT, NULL, "http://a|b.com/", NULL, SC_E_HOST },
	{ STRICT, NULL, "http://a^b.com/", NULL, SC_E_HOST },
	{ STRICT, NULL, "http://a%20b.com/", NULL, SC_E_HOST },
	{ STRICT, NULL, "http://a%3Cb.com/", NULL, SC_E_HOST },
	{ STRICT, NULL, "http://a%2Fb.com/", NULL, SC_E_HOST },
	{ STRICT, NULL, "http://a%00b.com/", NULL, SC_E_HOST },
	{ STRICT, NULL, "http://1.2.3.256/", NULL, SC_E_HOST },
	{ STRICT, NULL, "http://256.256.256.256/", NULL, SC_E_HOST },
	{ STRICT, NULL, "http://4294967296/", NULL, SC_E_HOST },
	{ STRICT, NULL, "http://1.2.3.4.5/", NULL, SC_E_HOST },

	{ STRICT, NULL, "z", NULL, SC_E_RELATIVE },
	{ STRICT, NULL, "/z", NULL, SC_E_RELATIVE },
	{ STRICT, NULL, "../z", NULL, SC_E_RELATIVE },
	{ STRICT, NULL, "//b.com/p", NULL, SC_E_RELATIVE },
	{ STRICT, NULL, "?q", NULL, SC_E_RELATIVE },
	{ STRICT, NULL, "#f", NULL, SC_E_RELATIVE },
	/* A colon after a slash does not make a scheme. */
	{ STRICT, NULL, "a/b:c", NULL, SC_E_RELATIVE },
};

static void test_lengths(void)
{
	static char in[BIG + 1];
	char out[NORM_URL_MAX + 1];
	struct norm_opts o = { .steps = STRICT };
	size_t n;
	int r;

	/* Exactly NORM_URL_MAX bytes of output fit; one more does not. */
	n = (size_t)snprintf(in, sizeof(in), "http://a.com/");
	memset(in + n, 'a', NORM_URL_MAX - n);
	in[NORM_URL_MAX] = '\0';
	check_url("2048 bytes", STRICT, NULL, in, NORM_URL_MAX, in, 0);
	in[NORM_URL_MAX] = 'a';
	in[NORM_URL_MAX + 1] = '\0';
	check_url("2049 bytes", STRICT, NULL, in, NORM_URL_MAX + 1, NULL,
		  SC_E_TOOLONG);

	/* The limit holds for the output: an input that shrinks is fine,
	 * one that grows by percent-encoding is not. */
	n = (size_t)snprintf(in, sizeof(in), "http://a.com/");
	while (n < 4000) {
		memcpy(in + n, "./", 2);
		n += 2;
	}
	in[n++] = 'x';
	check_url("shrinks", STRICT, NULL, in, n, "http://a.com/x", 0);
	check_url("does not shrink", 0, NULL, in, n, NULL, SC_E_TOOLONG);
	n = (size_t)snprintf(in, sizeof(in), "http://a.com/");
	memset(in + n, ' ', 1000);
	in[n + 1000] = 'x';
	check_url("grows", STRICT, NULL, in, n + 1001, NULL, SC_E_TOOLONG);

	/* The input limit counts after trimming. */
	memset(in, ' ', BIG);
	memcpy(in + BIG / 2, "http://a.com/", 13);
	check_url("trimmed", STRICT, NULL, in, BIG, "http://a.com/", 0);

	/* Over NORM_INPUT_MAX: rejected, even if it would shrink, and
	 * whatever bytes it holds. */
	n = (size_t)snprintf(in, sizeof(in), "http://a.com/");
	while (n < NORM_INPUT_MAX + 2) {
		memcpy(in + n, "./", 2);
		n += 2;
	}
	check_url("input too long", STRICT, NULL, in, n, NULL, SC_E_TOOLONG);
	n = (size_t)snprintf(in, sizeof(in), "http://a.com/?");
	memset(in + n, 0xff, BIG - n);
	check_url("binary too long", STRICT, NULL, in, BIG, NULL, SC_E_TOOLONG);
	n = (size_t)snprintf(in, sizeof(in), "http://a.com/?");
	memset(in + n, 0xff, NORM_INPUT_MAX - n);
	check_url("binary", STRICT, NULL, in, NORM_INPUT_MAX, NULL,
		  SC_E_TOOLONG);
	memset(in, 'a', BIG);
	memcpy(in, "http://", 7);
	check_url("long host", STRICT, NULL, in, BIG, NULL, SC_E_TOOLONG);

	/* The caller's buffer: NOSPC when the result does not fit. */
	memset(out, 'x', sizeof(out));
	r = norm_url(&o, NULL, "http://a.com/", 13, out, 13, NULL);
	CHECK(r == SC_E_NOSPC);
	CHECK(out[0] == '\0');
	r = norm_url(&o, NULL, "http://a.com/", 13, out, 14, NULL);
	CHECK(r == 0);
	CHECK_STR(out, "http://a.com/");
	r = norm_url(&o, NULL, "HTTP://A.COM", 12, out, 5, NULL);
	CHECK(r == SC_E_NOSPC);
	CHECK(out[0] == '\0');
	out[0] = 'x';
	r = norm_url(&o, NULL, "http://a.com/", 13, out, 0, NULL);
	CHECK(r == SC_E_NOSPC);
	CHECK(out[0] == 'x');
}

/* ------------------------------------------------------------------ */
/* RFC 3986 §5.4: reference resolution examples                       */

/* Against the RFC's base, with the steps that leave its results as they
 * are written there: strict less remove_fragment (the RFC keeps them) and
 * less empty_path_slash (the RFC writes "//g" as "http://g"). */
#define RFC_STEPS (STRICT_FRAG & ~NORM_EMPTY_PATH_SLASH)
#define RFC_BASE "http://a/b/c/d;p?q"

static const struct row rfc3986_rows[] = {
	/* §5.4.1 Normal Examples.  "g:h" is an absolute URI of the scheme
	 * "g", which a crawler of http(s) rejects. */
	{ RFC_STEPS, RFC_BASE, "g:h", NULL, SC_E_SCHEME },
	{ RFC_STEPS, RFC_BASE, "g", "http://a/b/c/g", 0 },
	{ RFC_STEPS, RFC_BASE, "./g", "http://a/b/c/g", 0 },
	{ RFC_STEPS, RFC_BASE, "g/", "http://a/b/c/g/", 0 },
	{ RFC_STEPS, RFC_BASE, "/g", "http://a/g", 0 },
	{ RFC_STEPS, RFC_BASE, "//g", "http://g", 0 },
	{ RFC_STEPS, RFC_BASE, "?y", "http://a/b/c/d;p?y", 0 },
	{ RFC_STEPS, RFC_BASE, "g?y", "http://a/b/c/g?y", 0 },
	{ RFC_STEPS, RFC_BASE, "#s", "http://a/b/c/d;p?q#s", 0 },
	{ RFC_STEPS, RFC_BASE, "g#s", "http://a/b/c/g#s", 0 },
	{ RFC_STEPS, RFC_BASE, "g?y#s", "http://a/b/c/g?y#s", 0 },
	{ RFC_STEPS, RFC_BASE, ";x", "http://a/b/c/;x", 0 },
	{ RFC_STEPS, RFC_BASE, "g;x", "http://a/b/c/g;x", 0 },
	{ RFC_STEPS, RFC_BASE, "g;x?y#s", "http://a/b/c/g;x?y#s", 0 },
	{ RFC_STEPS, RFC_BASE, "", "http://a/b/c/d;p?q", 0 },
	{ RFC_STEPS, RFC_BASE, ".", "http://a/b/c/", 0 },
	{ RFC_STEPS, RFC_BASE, "./", "http://a/b/c/", 0 },
	{ RFC_STEPS, RFC_BASE, "..", "http://a/b/", 0 },
	{ RFC_STEPS, RFC_BASE, "../", "http://a/b/", 0 },
	{ RFC_STEPS, RFC_BASE, "../g", "http://a/b/g", 0 },
	{ RFC_STEPS, RFC_BASE, "../..", "http://a/", 0 },
	{ RFC_STEPS, RFC_BASE, "../../", "http://a/", 0 },
	{ RFC_STEPS, RFC_BASE, "../../g", "http://a/g", 0 },

	/* §5.4.2 Abnormal Examples */
	{ RFC_STEPS, RFC_BASE, "../../../g", "http://a/g", 0 },
	{ RFC_STEPS, RFC_BASE, "../../../../g", "http://a/g", 0 },
	{ RFC_STEPS, RFC_BASE, "/./g", "http://a/g", 0 },
	{ RFC_STEPS, RFC_BASE, "/../g", "http://a/g", 0 },
	{ RFC_STEPS, RFC_BASE, "g.", "http://a/b/c/g.", 0 },
	{ RFC_STEPS, RFC_BASE, ".g", "http://a/b/c/.g", 0 },
	{ RFC_STEPS, RFC_BASE, "g..", "http://a/b/c/g..", 0 },
	{ RFC_STEPS, RFC_BASE, "..g", "http://a/b/c/..g", 0 },
	{ RFC_STEPS, RFC_BASE, "./../g", "http://a/b/g", 0 },
	{ RFC_STEPS, RFC_BASE, "./g/.", "http://a/b/c/g/", 0 },
	{ RFC_STEPS, RFC_BASE, "g/./h", "http://a/b/c/g/h", 0 },
	{ RFC_STEPS, RFC_BASE, "g/../h", "http://a/b/c/h", 0 },
	{ RFC_STEPS, RFC_BASE, "g;x=1/./y", "http://a/b/c/g;x=1/y", 0 },
	{ RFC_STEPS, RFC_BASE, "g;x=1/../y", "http://a/b/c/y", 0 },
	{ RFC_STEPS, RFC_BASE, "g?y/./x", "http://a/b/c/g?y/./x", 0 },
	{ RFC_STEPS, RFC_BASE, "g?y/../x", "http://a/b/c/g?y/../x", 0 },
	{ RFC_STEPS, RFC_BASE, "g#s/./x", "http://a/b/c/g#s/./x", 0 },
	{ RFC_STEPS, RFC_BASE, "g#s/../x", "http://a/b/c/g#s/../x", 0 },
	/* The RFC allows both "http:g" (strict parsers) and, for backward
	 * compatibility, "http://a/b/c/g".  Browsers resolve an http URL
	 * without "//" against a base of the same scheme as a relative
	 * reference, and links in real pages are written for browsers, so
	 * the backward-compatible result is the one we want. */
	{ RFC_STEPS, RFC_BASE, "http:g", "http://a/b/c/g", 0 },
};

/* ------------------------------------------------------------------ */
/* RFC 3986 §6.2.2 and §6.2.3: equivalent URLs                        */

static void test_rfc3986_equivalence(void)
{
	static const char *const groups[][5] = {
		/* §6.2.2.1 case */
		{ "HTTP://www.EXAMPLE.com/", "http://www.example.com/" },
		/* §6.2.2.2 percent-encoding */
		{ "http://example.com/%7Esmith/", "http://example.com/~smith/",
		  "http://example.com/%7esmith/" },
		{ "http://example.com/%c3%bc", "http://example.com/%C3%BC",
		  "http://example.com/\xc3\xbc" },
		/* §6.2.2.3 path segments */
		{ "http://example.com/a/./b/../c", "http://example.com/a/c",
		  "http://example.com/a/%2E/b/%2e%2E/c" },
		/* §6.2.3 scheme-based */
		{ "http://example.com", "http://example.com/",
		  "http://example.com:/", "http://example.com:80/",
		  "http://example.com:0080" },
	};
	static const char *const want[] = {
		"http://www.example.com/",   "http://example.com/~smith/",
		"http://example.com/%C3%BC", "http://example.com/a/c",
		"http://example.com/",
	};
	char where[64];
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		for (j = 0; j < ARRAY_SIZE(groups[i]) && groups[i][j]; j++) {
			snprintf(where, sizeof(where), "rfc3986 §6 %zu.%zu", i,
				 j);
			check_url(where, STRICT, NULL, groups[i][j],
				  strlen(groups[i][j]), want[i], 0);
			if (j > 0)
				check_pair(STRICT, groups[i][0], groups[i][j],
					   true);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Goel et al.'s worked example, one step at a time                   */

static void test_goel_example(void)
{
	/* The steps in the order normalize.h applies them, each with the
	 * URL after it (NULL: the step changes nothing here). */
	static const struct {
		uint32_t step;
		const char *after;
	} chain[] = {
		{ 0,
		  "http://www.mnc.com:80/../a/b/./c?d=1&e=3&f=4&D=2&f=4&g=0&h=" },
		{ NORM_LOWERCASE_SCHEME_HOST, NULL },
		{ NORM_IDN_PUNYCODE, NULL },
		{ NORM_REMOVE_TRAILING_HOST_DOT, NULL },
		/* the www. label goes */
		{ NORM_REMOVE_WWW,
		  "http://mnc.com:80/../a/b/./c?d=1&e=3&f=4&D=2&f=4&g=0&h=" },
		{ NORM_REMOVE_USERINFO, NULL },
		/* :80 is http's own port */
		{ NORM_REMOVE_DEFAULT_PORT,
		  "http://mnc.com/../a/b/./c?d=1&e=3&f=4&D=2&f=4&g=0&h=" },
		{ NORM_FOLD_HTTPS, NULL },
		{ NORM_UPPERCASE_PERCENT_HEX, NULL },
		{ NORM_DECODE_UNRESERVED, NULL },
		{ NORM_REMOVE_SESSION_IDS, NULL },
		/* "/.." at the root and "/." vanish */
		{ NORM_REMOVE_DOT_SEGMENTS,
		  "http://mnc.com/a/b/c?d=1&e=3&f=4&D=2&f=4&g=0&h=" },
		{ NORM_COLLAPSE_SLASHES, NULL },
		/* the path is lower case already; the query's "D" stays */
		{ NORM_LOWERCASE_PATH, NULL },
		{ NORM_REMOVE_DEFAULT_PAGE, NULL },
		/* "c" has no '.', so it is taken for a directory */
		{ NORM_ADD_TRAILING_SLASH,
		  "http://mnc.com/a/b/c/?d=1&e=3&f=4&D=2&f=4&g=0&h=" },
		{ NORM_EMPTY_PATH_SLASH, NULL },
		{ NORM_REMOVE_TRACKING_PARAMS, NULL },
		/* "h=" has no value */
		{ NORM_REMOVE_EMPTY_PARAMS,
		  "http://mnc.com/a/b/c/?d=1&e=3&f=4&D=2&f=4&g=0" },
		/* the second "f=4" */
		{ NORM_REMOVE_DUPLICATE_PARAMS,
		  "http://mnc.com/a/b/c/?d=1&e=3&f=4&D=2&g=0" },
		/* byte order: "D" (0x44) before "d" (0x64) */
		{ NORM_SORT_QUERY,
		  "http://mnc.com/a/b/c/?D=2&d=1&e=3&f=4&g=0" },
		{ NORM_REMOVE_EMPTY_QUERY, NULL },
		{ NORM_REMOVE_FRAGMENT, NULL },
	};
	const char *in = chain[0].after;
	const char *want = in;
	uint32_t steps = 0;
	char where[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(chain); i++) {
		steps |= chain[i].step;
		if (chain[i].after)
			want = chain[i].after;
		snprintf(where, sizeof(where), "Goel chain +%s",
			 i ? step_names[__builtin_ctz(chain[i].step)] : "none");
		check_url(where, steps, NULL, in, strlen(in), want, 0);
	}
	CHECK(steps == AGGRESSIVE);
	check_url("Goel", AGGRESSIVE, NULL, in, strlen(in),
		  "http://mnc.com/a/b/c/?D=2&d=1&e=3&f=4&g=0", 0);
}

/* ------------------------------------------------------------------ */
/* URL pairs from the research (SPEC §1)                              */

static void test_research_pairs(void)
{
	static const struct {
		const char *a, *b;
		/* equal from this profile on: 1 strict, 2 extended,
		 * 3 aggressive, 4 never */
		int from;
	} pairs[] = {
		/* Hong et al.'s four factors */
		{ "http://a.com/Dir/", "http://a.com/dir/", 3 },
		{ "http://a.com/dir", "http://a.com/dir/", 3 },
		{ "http://www.a.com/", "http://a.com/", 3 },
		{ "http://a.com/", "http://a.com/index.html", 3 },
		{ "http://a.com/x/", "http://a.com/x/default.aspx", 3 },
		/* Goel et al. */
		{ "http://www.a.com/x.html", "https://a.com/x.html", 3 },
		{ "http://a.com:80/", "https://a.com:443/", 3 },
		{ "http://a.com/p.php", "http://a.com:80/p.php", 1 },
		{ "https://a.com/p.php", "https://a.com:443/p.php", 1 },
		{ "http://a.com/a/./b/../c.html", "http://a.com/a/c.html", 1 },
		{ "http://a.com//a//c.html", "http://a.com/a/c.html", 3 },
		{ "http://a.com/s?b=2&a=1", "http://a.com/s?a=1&b=2", 2 },
		{ "http://a.com/s?a=1&a=1", "http://a.com/s?a=1", 2 },
		{ "http://a.com/s?a=1&b=", "http://a.com/s?a=1", 3 },
		{ "http://a.com/s?a=1&utm_source=tw&fbclid=x",
		  "http://a.com/s?a=1", 2 },
		{ "http://a.com/s?a=1&PHPSESSID=0123abcd", "http://a.com/s?a=1",
		  2 },
		{ "http://a.com/s?", "http://a.com/s", 2 },
		{ "http://a.com./s", "http://a.com/s", 2 },
		{ "http://u:p@a.com/s.html", "http://a.com/s.html", 3 },
		/* Different resources that no profile may merge */
		{ "http://a.com/s?a=1", "http://a.com/s?a=2", 4 },
		{ "http://a.com/s?a=0", "http://a.com/s", 4 },
		{ "http://a.com/a.html", "http://a.com/b.html", 4 },
		{ "http://a.com/", "http://a.com:8080/", 4 },
		{ "https://a.com/", "https://a.com:8443/", 4 },
		{ "http://a.com/", "http://b.com/", 4 },
		{ "http://www.com/", "http://com/", 4 },
		{ "http://a.com/%2F", "http://a.com//", 4 },
		{ "http://a.com/?a=%26", "http://a.com/?a=&", 4 },
		{ "http://a.com/myindex.html", "http://a.com/", 4 },
		{ "http://a.com/s?sidebar=1", "http://a.com/s", 4 },
	};
	static const uint32_t profile[] = { STRICT, EXTENDED, AGGRESSIVE };
	size_t i;
	int p;

	for (i = 0; i < ARRAY_SIZE(pairs); i++)
		for (p = 0; p < 3; p++)
			check_pair(profile[p], pairs[i].a, pairs[i].b,
				   p + 1 >= pairs[i].from);

	/* Steps in isolation decide the pairs of Hong et al. */
	check_pair(NORM_LOWERCASE_PATH, "http://a.com/Dir/",
		   "http://a.com/dir/", true);
	check_pair(EXTENDED, "http://a.com/Dir/", "http://a.com/dir/", false);
	check_pair(NORM_ADD_TRAILING_SLASH, "http://a.com/dir",
		   "http://a.com/dir/", true);
	check_pair(NORM_REMOVE_WWW, "http://www.a.com/", "http://a.com/", true);
	check_pair(NORM_REMOVE_DEFAULT_PAGE, "http://a.com/",
		   "http://a.com/index.html", true);

	/* Things strict must keep apart (no false positives). */
	check_pair(STRICT, "http://a.com/A", "http://a.com/a", false);
	check_pair(STRICT, "http://a.com/?a=1&b=2", "http://a.com/?b=2&a=1",
		   false);
	check_pair(STRICT, "http://a.com/a", "http://a.com/a/", false);
	check_pair(STRICT, "http://a.com/a//b", "http://a.com/a/b", false);
	check_pair(STRICT, "http://www.a.com/", "http://a.com/", false);
	check_pair(STRICT, "http://a.com/", "https://a.com/", false);
	check_pair(STRICT, "http://a.com/", "http://a.com/index.html", false);
	check_pair(STRICT, "http://a.com/?a=1&a=1", "http://a.com/?a=1", false);
	check_pair(STRICT, "http://a.com/%2f", "http://a.com//", false);
	check_pair(STRICT, "http://a.com/x?", "http://a.com/x", false);
	/* ...but the fragment never names another resource. */
	check_pair(STRICT, "http://a.com/x#top", "http://a.com/x", true);
}

/* ------------------------------------------------------------------ */
/* Profiles at work                                                   */

static const struct row profile_rows[] = {
	{ STRICT, NULL, "HTTP://User@Example.COM:80/a/./%7e/../B?Q=%7a#F",
	  "http://User@example.com/a/B?Q=z", 0 },
	{ STRICT, NULL, "https://a.com:443", "https://a.com/", 0 },
	{ STRICT, NULL, "http:///x", "http://x/", 0 },
	{ STRICT, NULL, "http:\\\\x.com\\a\\..\\b", "http://x.com/b", 0 },
	{ STRICT, NULL, "http:x.com", "http://x.com/", 0 },
	{ STRICT, NULL, "http://a.com/%2e%2E/%2E/x", "http://a.com/x", 0 },
	{ STRICT, NULL, "http://%41.COM/", "http://a.com/", 0 },
	{ STRICT, NULL, "http://[2001:DB8::1]:80/", "http://[2001:db8::1]/",
	  0 },
	{ STRICT, NULL, "http://0x7f.1:8080", "http://127.0.0.1:8080/", 0 },
	{ EXTENDED, NULL,
	  "http://www.a.com./?utm_source=x&b=2&a=1&a=1&JSESSIONID=X&e=#f",
	  "http://www.a.com/?a=1&b=2&e=", 0 },
	{ EXTENDED, NULL, "http://a.com/x;jsessionid=1?utm_medium=m",
	  "http://a.com/x", 0 },
	{ AGGRESSIVE, NULL,
	  "https://u:p@WWW.A.com.:443//Dir//Sub/INDEX.HTML?b=&a=1&fbclid=1#x",
	  "http://a.com/dir/sub/?a=1", 0 },
	{ AGGRESSIVE, NULL,
	  "http://a.com/\xc3\x84"
	  "B",
	  "http://a.com/%C3%84b/", 0 },
	{ AGGRESSIVE, NULL, "http://a.com/a/%7E%41", "http://a.com/a/~a/", 0 },
	{ AGGRESSIVE, NULL, "http://a.com", "http://a.com/", 0 },
	{ AGGRESSIVE, NULL, "http://www.com./", "http://www.com/", 0 },
	{ AGGRESSIVE, NULL, "http://a.com/Index.HTM/",
	  "http://a.com/index.htm/", 0 },
	{ AGGRESSIVE, NULL, "http://a.com/x/index.html/..", "http://a.com/x/",
	  0 },
};

/* A query of ';' parameters (HTML 4's alternative to '&', a gitweb's
 * "?p=r.git;a=tree"): a query without '&' that has a ';' followed by
 * "name=".  Its parameters are sorted, dropped and written back with ';'
 * under the profiles that do so to '&' parameters; strict leaves it as it
 * is, and an '&' query keeps a ';' inside its values. */
static const struct row semicolon_rows[] = {
	{ EXTENDED, NULL, "http://git.test/?p=r.git;hb=HEAD;a=tree",
	  "http://git.test/?a=tree;hb=HEAD;p=r.git", 0 },
	{ EXTENDED, NULL, "http://git.test/?a=tree;p=r.git;hb=HEAD",
	  "http://git.test/?a=tree;hb=HEAD;p=r.git", 0 },
	{ STRICT, NULL, "http://git.test/?p=r.git;hb=HEAD;a=tree",
	  "http://git.test/?p=r.git;hb=HEAD;a=tree", 0 },
	{ NORM_SORT_QUERY, NULL,
	  "http://a.test/?b=2;a=1;a=", "http://a.test/?a=;a=1;b=2", 0 },
	{ EXTENDED, NULL, "http://git.test/?p=r.git;utm_source=x;a=tree",
	  "http://git.test/?a=tree;p=r.git", 0 },
	{ EXTENDED, NULL, "http://git.test/?jsessionid=1;a=tree",
	  "http://git.test/?a=tree", 0 },
	{ EXTENDED, NULL, "http://git.test/?a=1;b=2;a=1",
	  "http://git.test/?a=1;b=2", 0 },
	{ AGGRESSIVE, NULL, "http://git.test/?a=;b=2", "http://git.test/?b=2",
	  0 },
	/* An '&' query: the ';' is in a value. */
	{ EXTENDED, NULL, "http://a.test/x?q=x;b=1&a=2",
	  "http://a.test/x?a=2&q=x;b=1", 0 },
	{ EXTENDED, NULL, "http://a.test/x?q=x;utm_source=1&a=2",
	  "http://a.test/x?a=2&q=x;utm_source=1", 0 },
	/* No "name=" after a ';': one parameter. */
	{ EXTENDED, NULL, "http://a.test/x?z=1;b", "http://a.test/x?z=1;b", 0 },
	{ EXTENDED, NULL, "http://a.test/x?q=b;=1", "http://a.test/x?q=b;=1",
	  0 },
	/* An '&' query left with one parameter that reads as ';'
	 * parameters is normalized as that query, its own key. */
	{ EXTENDED, NULL, "http://a.test/x?b=2;a=1&utm_source=x",
	  "http://a.test/x?a=1;b=2", 0 },
	{ EXTENDED, NULL, "http://a.test/x?b=2;a=1&b=2;a=1",
	  "http://a.test/x?a=1;b=2", 0 },
	{ AGGRESSIVE, NULL,
	  "http://a.test/x?id=9;id=2&p=", "http://a.test/x/?id=2;id=9", 0 },
	{ EXTENDED, NULL, "http://a.test/x?sid=1&amp;sid=2",
	  "http://a.test/x?amp", 0 },
	{ AGGRESSIVE, NULL, "http://a.test/x?x;a=1", NULL, ANY },
	{ AGGRESSIVE, NULL, "http://a.test/x?=1;;a=2;", NULL, ANY },
	{ AGGRESSIVE, NULL, "http://a.test/x?;a=1", NULL, ANY },
	{ AGGRESSIVE, NULL, "http://a.test/x?a;b=1&c", NULL, ANY },
};

/* Every query of up to four pieces from a small alphabet of names and
 * separators is a fixed point after one pass, under each profile with
 * parameter steps: ';' and '&' queries, mixed, empty parameters,
 * tracking and session names. */
static void test_query_fixed_points(void)
{
	static const char *const piece[] = { "a", "b",   "=",    ";",
					     "&", "sid", "utm_x" };
	static const uint32_t steps[] = {
		EXTENDED, AGGRESSIVE, NORM_SORT_QUERY | NORM_REMOVE_EMPTY_PARAMS
	};
	const size_t np = ARRAY_SIZE(piece);
	for (size_t len = 1; len <= 4; len++) {
		size_t total = 1;
		for (size_t i = 0; i < len; i++)
			total *= np;
		for (size_t k = 0; k < total; k++) {
			char in[64] = "http://a.test/x?";
			for (size_t i = 0, c = k; i < len; i++, c /= np)
				strcat(in, piece[c % np]);
			for (size_t s = 0; s < ARRAY_SIZE(steps); s++)
				check_url("query fixed points", steps[s], NULL,
					  in, strlen(in), NULL, ANY);
		}
	}
}

/* Inputs where a step could undo the work of an earlier one, or make an
 * output that the parser reads differently, several found by the fuzzer:
 * whatever the result, it must be a fixed point with the same
 * components. */
static const struct row fixed_point_rows[] = {
	/* Stripping the trailing dots leaves a host that ends in a number:
	 * "a.7" is a bad IPv4 address, "1.2.3.4" an IPv4 address. */
	{ EXTENDED, NULL, "http://a.7../", NULL, ANY },
	{ EXTENDED, NULL, "http://1.2.3.4../", NULL, ANY },
	{ AGGRESSIVE, NULL, "http://www.1.2.3.4../", NULL, ANY },
	{ AGGRESSIVE, NULL, "http://www.0x7f.1../", NULL, ANY },
	{ AGGRESSIVE, NULL, "http://www.www.com./", NULL, ANY },
	{ AGGRESSIVE, NULL, "http://www./", NULL, ANY },
	{ AGGRESSIVE, NULL, "http://www../", NULL, ANY },
	{ EXTENDED, NULL, "http://a.com../", NULL, ANY },
	{ AGGRESSIVE, NULL, "https://a.com:80/", NULL, ANY },
	{ AGGRESSIVE, NULL, "https://a.com:443/", NULL, ANY },
	/* Dot segments made by decoding, or by dropping a session id. */
	{ STRICT, NULL, "http://a.com/b/%2e%2E/../%2E/c", NULL, ANY },
	{ EXTENDED, NULL, "http://a.com/a/b;jsessionid=1/../c", NULL, ANY },
	{ EXTENDED, NULL, "http://a.com/a/..;jsessionid=1", NULL, ANY },
	{ EXTENDED, NULL, "http://a.com/a/;jsessionid=1/../c", NULL, ANY },
	{ EXTENDED, NULL, "http://a.com/a/;jsessionid=1/./c", NULL, ANY },
	{ EXTENDED, NULL, "http://a.com/a/;jsessionid=1/..", NULL, ANY },
	{ AGGRESSIVE, NULL, "http://a.com/a/.;jsessionid=1/index.html", NULL,
	  ANY },
	/* Slashes collapsed next to dot segments and default pages. */
	{ AGGRESSIVE, NULL, "http://a.com//..//a/.//index.html//", NULL, ANY },
	{ AGGRESSIVE, NULL, "http://a.com/index.html/..", NULL, ANY },
	{ AGGRESSIVE, NULL, "http://a.com/INDEX.HTML", NULL, ANY },
	{ AGGRESSIVE, NULL, "http://a.com/%49NDEX.html", NULL, ANY },
	/* Query steps that feed each other. */
	{ AGGRESSIVE, NULL, "http://a.com/?a=&&a=&b&&b=&utm_source=", NULL,
	  ANY },
	{ AGGRESSIVE, NULL, "http://a.com/?%75tm_source=1&%61=&A=1&a=1&a", NULL,
	  ANY },
	{ EXTENDED, NULL, "http://a.com/?&", NULL, ANY },
	{ AGGRESSIVE, NULL, "http://a.com/?&=&", NULL, ANY },
	/* Hosts decoded, mapped and checked: IDNA maps U+FF0E FULLWIDTH
	 * FULL STOP to '.' and drops U+00AD SOFT HYPHEN, which can leave
	 * a host of dots only, one that the parser rejects. */
	{ STRICT, NULL, "http://\xef\xbc\x8e/x", NULL, ANY },
	{ STRICT, NULL, "http://\xef\xbc\x8e%2E%2E/x", NULL, ANY },
	{ STRICT, NULL, "http://\xc2\xad.\xc2\xad/x", NULL, ANY },
	{ STRICT, NULL, "http://\xc2\xad/x", NULL, ANY },
	{ STRICT, NULL, "http://%5B::1%5D/", NULL, ANY },
	{ STRICT, NULL, "http://xn--a.com/", NULL, ANY },
	{ STRICT, NULL, "http://XN--BCHER-KVA.de/", NULL, ANY },
	{ STRICT, NULL, "http://a\xc2\xad.com/", NULL, ANY },
	{ STRICT, NULL, "http://\xe2\x91\xa0.com/", NULL, ANY },
	{ STRICT, NULL, "http://%30x7f.1/", NULL, ANY },
	{ STRICT, NULL, "http://1.2.3.4\xef\xbc\x8e/", NULL, ANY },
	{ STRICT, NULL, "http://[::ffff:1.2.3.4]/", NULL, ANY },
	{ STRICT, NULL, "http://[0:0:0:0:0:ffff:102:304]/", NULL, ANY },
	{ STRICT, NULL, "http://[::1.2.3.4]/", NULL, ANY },
	{ STRICT, NULL, "http://u%40v@a.com/", NULL, ANY },
	{ STRICT, NULL, "http://u@v@a.com/", NULL, ANY },
	{ STRICT, NULL, "http://:@a.com/", NULL, ANY },
	{ STRICT, NULL, "http://a.com:@/", NULL, ANY },
};

/* ------------------------------------------------------------------ */
/* Bases: page URLs, <base href> and the references of a page         */

static const struct row base_rows[] = {
	/* References a page holds, against its URL */
	{ STRICT, "http://a.com/x/y/z", "..\\w", "http://a.com/x/w", 0 },
	{ STRICT, "http://a.com/x/y/z", "\\\\b.com\\p", "http://b.com/p", 0 },
	{ STRICT, "http://a.com/x/y/z", "//b.com/p", "http://b.com/p", 0 },
	{ STRICT, "https://a.com/x/y/z", "//b.com/p", "https://b.com/p", 0 },
	{ STRICT, "https://a.com/x/y/z", "//b.com", "https://b.com/", 0 },
	{ STRICT, "http://a.com/x/y/z", "?q", "http://a.com/x/y/z?q", 0 },
	{ STRICT, "http://a.com/x/y/z?old", "#f", "http://a.com/x/y/z?old", 0 },
	{ STRICT_FRAG, "http://a.com/x/y/z?old", "#f",
	  "http://a.com/x/y/z?old#f", 0 },
	{ STRICT, "http://a.com/x/y/z?old#frag", "", "http://a.com/x/y/z?old",
	  0 },
	{ STRICT_FRAG, "http://a.com/x/y/z?old#frag", "",
	  "http://a.com/x/y/z?old", 0 },
	{ STRICT, "http://a.com/x/y/z", "   ", "http://a.com/x/y/z", 0 },
	{ STRICT, "http://a.com/x/y/z", " w\t1 ", "http://a.com/x/y/w1", 0 },
	{ STRICT, "http://a.com/x/y/z", "a b", "http://a.com/x/y/a%20b", 0 },
	{ STRICT, "http://a.com/x/y/z", "https://c.com/", "https://c.com/", 0 },
	{ STRICT, "http://a.com/x/y/z", "HTTP://C.com", "http://c.com/", 0 },
	{ STRICT, "http://a.com:8080/x", "y", "http://a.com:8080/y", 0 },
	{ STRICT, "http://u@a.com/x", "y", "http://u@a.com/y", 0 },
	{ STRICT, "http://u@a.com/x", "//b.com/y", "http://b.com/y", 0 },
	{ STRICT, "http://a.com", "y", "http://a.com/y", 0 },
	{ STRICT, "http://a.com/x/y/z", "/", "http://a.com/", 0 },
	{ STRICT, "http://a.com/x/y/z", "./%7e", "http://a.com/x/y/~", 0 },
	/* The base is kept in strict form, whatever the profile. */
	{ AGGRESSIVE, "http://a.com/a/b", "c", "http://a.com/a/c/", 0 },
	{ AGGRESSIVE, "http://a.com/a/b", "", "http://a.com/a/b/", 0 },
	{ AGGRESSIVE, "http://a.com/a/b", ".", "http://a.com/a/", 0 },
	{ AGGRESSIVE, "http://a.com/a/b/index.html", "c.html",
	  "http://a.com/a/b/c.html", 0 },
	{ AGGRESSIVE, "http://a.com/a/B/c", "D", "http://a.com/a/b/d/", 0 },
	{ AGGRESSIVE, "http://www.a.com/x/", "y", "http://a.com/x/y/", 0 },
	{ AGGRESSIVE, "https://a.com/x/", "//b.com/p", "http://b.com/p/", 0 },
	{ EXTENDED, "http://a.com/s?b=1&a=2", "?d=1&c=2",
	  "http://a.com/s?c=2&d=1", 0 },
	/* A same-scheme "http:" reference without "//" is relative, as in
	 * browsers; with another scheme, or no base, it names a host. */
	{ STRICT, "http://a.com/x/y", "http:z", "http://a.com/x/z", 0 },
	{ STRICT, "https://a.com/x/y", "http:z", "http://z/", 0 },
	{ STRICT, NULL, "http:z", "http://z/", 0 },
	/* A base that is itself written leniently */
	{ STRICT, " HTTP://A.com:0080/x/./y/../z#f ", "w", "http://a.com/x/w",
	  0 },
	{ STRICT,
	  "http://b\xc3\xbc"
	  "cher.de/\xc3\xbc/x",
	  "y", "http://xn--bcher-kva.de/%C3%BC/y", 0 },
};

static void test_base_href(void)
{
	struct norm_opts strict = { .steps = STRICT };
	struct norm_base page, href, saved;
	char out[NORM_URL_MAX + 1];
	int r;

#define BASE_SET(b, rel, s) norm_base_set((b), (rel), (s), strlen(s))
#define LINK(b, s)                                                             \
	norm_url(&strict, (b), (s), strlen(s), out, sizeof(out), NULL)

	/* <base href> chained to the page's URL. */
	CHECK(BASE_SET(&page, NULL, "http://a.com/x/y.html") == 0);
	CHECK(BASE_SET(&href, &page, "/other/dir/") == 0);
	CHECK(LINK(&href, "z") == 0);
	CHECK_STR(out, "http://a.com/other/dir/z");
	CHECK(LINK(&href, "../z") == 0);
	CHECK_STR(out, "http://a.com/other/z");
	CHECK(LINK(&page, "z") == 0);
	CHECK_STR(out, "http://a.com/x/z");

	/* A relative href, relative to the page. */
	CHECK(BASE_SET(&page, NULL, "http://a.com/x/y/z.html") == 0);
	CHECK(BASE_SET(&href, &page, "../up/") == 0);
	CHECK(LINK(&href, "w") == 0);
	CHECK_STR(out, "http://a.com/x/up/w");

	/* An absolute href replaces the page's URL. */
	CHECK(BASE_SET(&href, &page, "https://cdn.b.com/p/") == 0);
	CHECK(LINK(&href, "q") == 0);
	CHECK_STR(out, "https://cdn.b.com/p/q");
	CHECK(BASE_SET(&href, &page, "//c.com/d/") == 0);
	CHECK(LINK(&href, "e") == 0);
	CHECK_STR(out, "http://c.com/d/e");

	/* base and relative_to may be the same object. */
	CHECK(BASE_SET(&page, NULL, "http://a.com/x/y.html") == 0);
	CHECK(BASE_SET(&page, &page, "sub/") == 0);
	CHECK(LINK(&page, "z") == 0);
	CHECK_STR(out, "http://a.com/x/sub/z");
	CHECK(BASE_SET(&page, &page, "/") == 0);
	CHECK(LINK(&page, "z") == 0);
	CHECK_STR(out, "http://a.com/z");

	/* The base is strict: fragment dropped, dot segments resolved. */
	CHECK(BASE_SET(&page, NULL, "HTTP://A.com/x/./y?q#frag") == 0);
	CHECK_STR(page.buf, "http://a.com/x/y?q");
	CHECK(page.u.len == strlen(page.buf));

	/* On error the base is unchanged.  (Zeroed first, so that the bytes
	 * after the URL compare as defined ones.) */
	memset(&page, 0, sizeof(page));
	CHECK(BASE_SET(&page, NULL, "http://a.com/x/y.html") == 0);
	memcpy(&saved, &page, sizeof(page));
	r = BASE_SET(&page, &page, "mailto:x@y.com");
	CHECK(r == SC_E_SCHEME);
	CHECK(memcmp(&saved, &page, sizeof(page)) == 0);
	r = BASE_SET(&page, NULL, "relative/only");
	CHECK(r == SC_E_RELATIVE);
	CHECK(memcmp(&saved, &page, sizeof(page)) == 0);
	r = BASE_SET(&page, NULL, "http://a.com:99999/");
	CHECK(r == SC_E_PORT);
	CHECK(memcmp(&saved, &page, sizeof(page)) == 0);
	r = BASE_SET(&page, NULL, "");
	CHECK(r == SC_E_EMPTY);
	CHECK(memcmp(&saved, &page, sizeof(page)) == 0);
	CHECK(LINK(&page, "z") == 0);
	CHECK_STR(out, "http://a.com/x/z");

#undef BASE_SET
#undef LINK
}

/* ------------------------------------------------------------------ */
/* The components of struct norm_url, and norm_fetch_url()            */

static void test_components(void)
{
	char out[NORM_URL_MAX + 1];
	struct norm_url u;

	CHECK(norm_ok(STRICT_FRAG, "http://u:p@A.com:8080/x?q#f", out,
		      sizeof(out), &u) == 0);
	CHECK_STR(out, "http://u:***@a.com:8080/x?q#f");
	CHECK(u.len == 29 && u.scheme_len == 4);
	CHECK(u.has_user && span_is(out, u.user_off, u.user_len, "u:***"));
	CHECK(u.user_off == 7);
	CHECK(span_is(out, u.host_off, u.host_len, "a.com"));
	CHECK(u.host_off == 13 && u.host_type == NORM_HOST_NAME);
	CHECK(span_is(out, u.port_off, u.port_len, "8080") && u.port == 8080);
	CHECK(u.has_port);
	CHECK(u.port_off == 19);
	CHECK(span_is(out, u.path_off, u.path_len, "/x") && u.path_off == 23);
	CHECK(u.has_query && span_is(out, u.query_off, u.query_len, "q"));
	CHECK(u.query_off == 26);
	CHECK(u.has_fragment && span_is(out, u.frag_off, u.frag_len, "f"));
	CHECK(u.frag_off == 28);
	CHECK(!u.https);

	/* Default ports, no userinfo, no query, no fragment. */
	CHECK(norm_ok(STRICT, "http://a.com/", out, sizeof(out), &u) == 0);
	CHECK(u.len == 13 && u.port == 80 && !u.https);
	CHECK(!u.has_port && u.port_len == 0);
	CHECK(!u.has_user && !u.has_query && !u.has_fragment);
	CHECK(u.user_len == 0 && u.query_len == 0 && u.frag_len == 0);
	CHECK(span_is(out, u.path_off, u.path_len, "/"));
	CHECK(norm_ok(STRICT, "https://a.com", out, sizeof(out), &u) == 0);
	CHECK(u.port == 443 && u.https && u.port_len == 0);
	CHECK(u.scheme_len == 5);
	CHECK(norm_ok(STRICT, "http://a.com:443/", out, sizeof(out), &u) == 0);
	CHECK(u.port == 443 && !u.https);
	CHECK(span_is(out, u.port_off, u.port_len, "443"));
	CHECK(norm_ok(0, "http://a.com:/", out, sizeof(out), &u) == 0);
	CHECK(u.port == 80 && u.port_len == 0 && u.has_port);
	CHECK(u.port_off == 13);

	/* A '?' with an empty query; a '#' with an empty fragment. */
	CHECK(norm_ok(STRICT_FRAG, "https://a.com/p?#", out, sizeof(out), &u) ==
	      0);
	CHECK_STR(out, "https://a.com/p?#");
	CHECK(u.has_query && u.query_len == 0);
	CHECK(u.has_fragment && u.frag_len == 0);

	/* An empty path. */
	CHECK(norm_ok(0, "http://a.com?q", out, sizeof(out), &u) == 0);
	CHECK(u.path_len == 0 && span_is(out, u.query_off, u.query_len, "q"));

	/* Host types; IPv6 with its brackets. */
	CHECK(norm_ok(STRICT, "http://0x7f.1/", out, sizeof(out), &u) == 0);
	CHECK(u.host_type == NORM_HOST_IPV4);
	CHECK(span_is(out, u.host_off, u.host_len, "127.0.0.1"));
	CHECK(norm_ok(STRICT, "http://[::1]:8080/", out, sizeof(out), &u) == 0);
	CHECK(u.host_type == NORM_HOST_IPV6);
	CHECK(span_is(out, u.host_off, u.host_len, "[::1]"));
	CHECK(u.port == 8080);
	CHECK(norm_ok(STRICT, "http://123.com/", out, sizeof(out), &u) == 0);
	CHECK(u.host_type == NORM_HOST_NAME);

	/* fold_https: http in the key, https for the fetch. */
	CHECK(norm_ok(AGGRESSIVE, "https://www.a.com/x", out, sizeof(out),
		      &u) == 0);
	CHECK_STR(out, "http://a.com/x/");
	CHECK(u.https && u.port == 443 && u.scheme_len == 4);
	CHECK(span_is(out, u.host_off, u.host_len, "a.com"));
}

static void check_fetch(uint32_t steps, const char *in, const char *key,
			const char *fetch)
{
	char out[NORM_URL_MAX + 1], f[NORM_URL_MAX + 1];
	struct norm_url u;
	unsigned failed = check_failed;

	if (norm_ok(steps, in, out, sizeof(out), &u) != 0) {
		CHECK(!"fetch input normalizes");
		return;
	}
	if (key)
		CHECK_STR(out, key);
	CHECK(norm_fetch_url(out, &u, f, sizeof(f)) == 0);
	CHECK_STR(f, fetch);
	if (check_failed != failed)
		print_context("fetch", steps, NULL, in, strlen(in));
}

static void test_fetch_url(void)
{
	char out[NORM_URL_MAX + 1], f[NORM_URL_MAX + 1];
	struct norm_url u;
	struct norm_opts o = { .steps = AGGRESSIVE };

	check_fetch(STRICT, "http://a.com/x", "http://a.com/x",
		    "http://a.com/x");
	check_fetch(STRICT_FRAG, "http://a.com/x?q#f", "http://a.com/x?q#f",
		    "http://a.com/x?q");
	check_fetch(STRICT_FRAG, "http://a.com/x#", "http://a.com/x#",
		    "http://a.com/x");
	check_fetch(STRICT, "https://a.com/", "https://a.com/",
		    "https://a.com/");
	check_fetch(AGGRESSIVE, "https://a.com/", "http://a.com/",
		    "https://a.com/");
	check_fetch(AGGRESSIVE, "https://www.a.com:443/x?utm_source=1#f",
		    "http://a.com/x/", "https://a.com/x/");
	check_fetch(AGGRESSIVE, "https://a.com:8443/", "http://a.com:8443/",
		    "https://a.com:8443/");
	check_fetch(AGGRESSIVE, "https://a.com:443/", "http://a.com/",
		    "https://a.com/");
	check_fetch(AGGRESSIVE, "http://a.com:8443/", "http://a.com:8443/",
		    "http://a.com:8443/");
	/* 443 is https's own port: the fetch URL need not write it. */
	check_fetch(NORM_FOLD_HTTPS, "https://a.com:443/", "http://a.com:443/",
		    "https://a.com/");
	check_fetch(NORM_FOLD_HTTPS | NORM_REMOVE_FRAGMENT,
		    "https://a.com/p?q#f", "http://a.com/p?q",
		    "https://a.com/p?q");
	check_fetch(NORM_FOLD_HTTPS, "https://a.com/p#f", "http://a.com/p#f",
		    "https://a.com/p");
	check_fetch(NORM_FOLD_HTTPS, "HTTPS://a.com/p", "http://a.com/p",
		    "https://a.com/p");

	/* https on port 80 must not become http://a.com:80/, which the
	 * same profile would then write without its port: whatever the key
	 * is, it is a fixed point, and the fetch goes to https on 80. */
	check_fetch(AGGRESSIVE, "https://a.com:80/", NULL, "https://a.com:80/");
	check_url("https on 80", AGGRESSIVE, NULL, "https://a.com:80/", 17,
		  NULL, 0);

	/* A key of NORM_URL_MAX bytes whose fetch URL says "https" (one byte
	 * more) or "https://h:80" (four more): the fetch URL must fit the
	 * NORM_URL_MAX + 1 bytes that normalize.h asks callers for, or
	 * norm_url() must refuse the URL as too long. */
	for (int i = 0; i < 2; i++) {
		static char in[NORM_URL_MAX + 16];
		const char *prefix = i ? "https://a.com:80/" : "https://a.com/";
		size_t n = strlen(prefix);
		size_t k = NORM_URL_MAX - strlen("http://a.com/") - 1;
		int r;

		memcpy(in, prefix, n);
		memset(in + n, 'a', k);
		in[n + k] = '/';
		r = norm_url(&o, NULL, in, n + k + 1, out, sizeof(out), &u);
		CHECK(r == 0 || r == SC_E_TOOLONG);
		if (r == 0) {
			CHECK(strlen(out) == NORM_URL_MAX);
			r = norm_fetch_url(out, &u, f, sizeof(f));
			CHECK(r == 0);
			if (r != 0)
				fprintf(stderr, "  fetch URL of %s...: %s\n",
					prefix, sc_strerror(r));
		}
	}

	/* NOSPC */
	CHECK(norm_url(&o, NULL, "https://a.com/", 14, out, sizeof(out), &u) ==
	      0);
	CHECK(norm_fetch_url(out, &u, f, strlen("https://a.com/")) ==
	      SC_E_NOSPC);
	CHECK(norm_fetch_url(out, &u, f, strlen("https://a.com/") + 1) == 0);
	CHECK_STR(f, "https://a.com/");
}

/* norm_split(): a key read back from the frontier is split where it
 * stands, never normalized again.  The issue's case: a strict key split
 * for a crawl that now runs aggressive keeps its own path and query. */
static void check_split(const char *key, const char *host, const char *port,
			const char *path, const char *query, const char *frag,
			uint8_t host_type)
{
	struct norm_url u;
	int r = norm_split(key, strlen(key), &u);
	CHECK(r == 0);
	if (r != 0) {
		fprintf(stderr, "  norm_split(%s): %s\n", key, sc_strerror(r));
		return;
	}
	char b[NORM_URL_MAX + 1];
#define PART(off, len, has, want)                                              \
	do {                                                                   \
		snprintf(b, sizeof(b), "%.*s", (int)(len), key + (off));       \
		if (want)                                                      \
			CHECK_STR(b, want);                                    \
		CHECK((has) == ((want) != NULL));                              \
	} while (0)
	PART(u.host_off, u.host_len, 1, host);
	PART(u.port_off, u.port_len, u.has_port, port);
	PART(u.path_off, u.path_len, 1, path);
	PART(u.query_off, u.query_len, u.has_query, query);
	PART(u.frag_off, u.frag_len, u.has_fragment, frag);
#undef PART
	CHECK(u.len == strlen(key));
	CHECK(u.host_type == host_type);
}

static void test_split(void)
{
	struct norm_url u, s;
	char out[NORM_URL_MAX + 1], f[NORM_URL_MAX + 1];
	static const char strict_key[] =
		"http://www.a.test/Other/index.html?utm_source=q";

	check_split(strict_key, "www.a.test", NULL, "/Other/index.html",
		    "utm_source=q", NULL, NORM_HOST_NAME);
	CHECK(norm_split(strict_key, strlen(strict_key), &s) == 0);
	CHECK(norm_fetch_url(strict_key, &s, f, sizeof(f)) == 0);
	CHECK_STR(f, strict_key);
	check_split("http://a.test", "a.test", NULL, "", NULL, NULL,
		    NORM_HOST_NAME);
	check_split("HTTP://u:p@A.test:/x?#", "A.test", "", "/x", "", "",
		    NORM_HOST_NAME);
	check_split("https://[2001:db8::1]:8443/p@q?a=1&b=@#f?",
		    "[2001:db8::1]", "8443", "/p@q", "a=1&b=@", "f?",
		    NORM_HOST_IPV6);
	check_split("http://10.0.0.1:80/", "10.0.0.1", "80", "/", NULL, NULL,
		    NORM_HOST_IPV4);
	check_split("http://%C3%A9.1/", "%C3%A9.1", NULL, "/", NULL, NULL,
		    NORM_HOST_NAME);
	CHECK(norm_split("https://a.test:8443/", 20, &s) == 0);
	CHECK(s.https == 1 && s.port == 8443 && s.scheme_len == 5);
	CHECK(norm_split("http://a.test/", 14, &s) == 0);
	CHECK(s.https == 0 && s.port == 80 && s.has_user == 0);

	/* Under fold_https the key says "http"; the caller who kept the
	 * scheme and port gets the fetch URL back, https on 80 included. */
	static const char *const folded[] = {
		"https://a.com:80/x", "https://a.com:8443/",
		"https://www.a.com/Y?utm_source=1"
	};
	for (size_t i = 0; i < ARRAY_SIZE(folded); i++) {
		struct norm_opts o = { .steps = AGGRESSIVE };
		char want[NORM_URL_MAX + 1];
		CHECK(norm_url(&o, NULL, folded[i], strlen(folded[i]), out,
			       sizeof(out), &u) == 0);
		CHECK(norm_fetch_url(out, &u, want, sizeof(want)) == 0);
		CHECK(norm_split(out, strlen(out), &s) == 0);
		s.https = u.https;
		s.port = u.port;
		CHECK(norm_fetch_url(out, &s, f, sizeof(f)) == 0);
		CHECK_STR(f, want);
	}

	/* What norm_url() never writes is refused. */
	CHECK(norm_split("ftp://a.test/", 13, &s) == SC_E_SCHEME);
	CHECK(norm_split("http:/a.test/", 13, &s) == SC_E_SCHEME);
	CHECK(norm_split("a.test/", 7, &s) == SC_E_SCHEME);
	CHECK(norm_split("http:///x", 9, &s) == SC_E_NOHOST);
	CHECK(norm_split("http://u@/x", 11, &s) == SC_E_NOHOST);
	CHECK(norm_split("http://a:99999/", 15, &s) == SC_E_PORT);
	CHECK(norm_split("http://a:8x/", 12, &s) == SC_E_PORT);
	CHECK(norm_split("http://[::1/", 12, &s) == SC_E_IPV6);
	CHECK(norm_split("http://[::1]x/", 14, &s) == SC_E_IPV6);
	CHECK(norm_split("http://a/b c", 12, &s) == SC_E_INVAL);
	CHECK(norm_split("http://a/\xc3\xa9", 11, &s) == SC_E_INVAL);
	CHECK(norm_split("http://a/\0", 10, &s) == SC_E_INVAL);
	static char longer[NORM_URL_MAX + 2];
	memcpy(longer, "http://a/", 9);
	memset(longer + 9, 'x', sizeof(longer) - 10);
	CHECK(norm_split(longer, NORM_URL_MAX + 1, &s) == SC_E_TOOLONG);
	CHECK(norm_split(longer, NORM_URL_MAX, &s) == 0);

	/* The tracking list a store records beside the steps. */
	struct norm_opts d = { 0 };
	CHECK(norm_tracking_list(&d, out, sizeof(out)) == 0);
	CHECK_STR(out, "utm_*,fbclid,gclid,dclid,msclkid,mc_cid,mc_eid,yclid,"
		       "_ga,igshid");
	CHECK(norm_tracking_list(&d, out, 5) == SC_E_NOSPC);
	CHECK_STR(out, "");
	static const char *const mine[] = { "ref", "src_*" };
	struct norm_opts m = { .tracking = mine, .n_tracking = 2 };
	CHECK(norm_tracking_list(&m, out, sizeof(out)) == 0);
	CHECK_STR(out, "ref,src_*");
	m.n_tracking = 0;
	CHECK(norm_tracking_list(&m, out, sizeof(out)) == 0);
	CHECK_STR(out, "");
}

/* ------------------------------------------------------------------ */
/* Passwords: masked in every output, reported to on_password          */

struct seen_pw {
	int calls;
	char url[NORM_URL_MAX + 1];
	char pw[NORM_PASSWORD_MAX + 1];
	size_t user_len;
};

static void note_pw(void *arg, const char *url, const struct norm_url *u,
		    const char *pw, size_t len)
{
	struct seen_pw *s = arg;
	s->calls++;
	snprintf(s->url, sizeof(s->url), "%s", url);
	memcpy(s->pw, pw, len);
	s->pw[len] = '\0';
	s->user_len = u->user_len;
}

static void test_passwords(void)
{
	char out[NORM_URL_MAX + 1], again[NORM_URL_MAX + 1];
	struct seen_pw s = { 0 };
	struct norm_opts o = { .steps = norm_profile_steps(NORM_PROFILE_STRICT),
			       .on_password = note_pw,
			       .on_password_arg = &s };
	struct norm_url u;

	/* Masked, reported encoded as the userinfo would carry it. */
	CHECK(norm_url(&o, NULL, "http://Ann:s3cr%65t w@A.com/x", 29, out,
		       sizeof(out), &u) == 0);
	CHECK_STR(out, "http://Ann:***@a.com/x");
	CHECK(s.calls == 1);
	CHECK_STR(s.url, out);
	CHECK_STR(s.pw, "s3cret%20w");
	CHECK(s.user_len == 7);
	/* Idempotent, and a masked password is not reported again. */
	CHECK(norm_url(&o, NULL, out, strlen(out), again, sizeof(again),
		       NULL) == 0);
	CHECK_STR(again, out);
	CHECK(s.calls == 1);
	/* No password, an empty one, a user alone: nothing to mask. */
	CHECK(norm_url(&o, NULL, "http://ann@a.com/", 17, out, sizeof(out),
		       NULL) == 0);
	CHECK_STR(out, "http://ann@a.com/");
	CHECK(norm_url(&o, NULL, "http://ann:@a.com/", 18, out, sizeof(out),
		       NULL) == 0);
	CHECK_STR(out, "http://ann@a.com/");
	CHECK(s.calls == 1);
	/* A password without a user. */
	CHECK(norm_url(&o, NULL, "http://:pw@a.com/", 17, out, sizeof(out),
		       NULL) == 0);
	CHECK_STR(out, "http://:***@a.com/");
	CHECK(s.calls == 2);
	CHECK_STR(s.pw, "pw");
	/* A relative link takes the page's userinfo, masked already: not
	 * reported. */
	struct norm_base base;
	CHECK(norm_base_set(&base, NULL, "http://ann:pw@a.com/d/", 22) == 0);
	CHECK_STR(base.buf, "http://ann:***@a.com/d/");
	CHECK(norm_url(&o, &base, "p.html", 6, out, sizeof(out), NULL) == 0);
	CHECK_STR(out, "http://ann:***@a.com/d/p.html");
	CHECK(s.calls == 2);
	/* As found, without steps: masked all the same. */
	CHECK(norm_url(&norm_as_found, NULL, "HTTP://a:b@A.com", 16, out,
		       sizeof(out), NULL) == 0);
	CHECK_STR(out, "HTTP://a:***@A.com");
	/* remove_userinfo: nothing written, nothing reported. */
	o.steps |= NORM_REMOVE_USERINFO;
	CHECK(norm_url(&o, NULL, "http://a:b@a.com/", 17, out, sizeof(out),
		       NULL) == 0);
	CHECK_STR(out, "http://a.com/");
	CHECK(s.calls == 2);
	o.steps &= ~(uint32_t)NORM_REMOVE_USERINFO;
	/* A password longer than NORM_PASSWORD_MAX: masked, not reported. */
	char in[NORM_PASSWORD_MAX + 64];
	int n = snprintf(in, sizeof(in), "http://a:");
	memset(in + n, 'p', NORM_PASSWORD_MAX + 1);
	n += NORM_PASSWORD_MAX + 1;
	n += snprintf(in + n, sizeof(in) - (size_t)n, "@a.com/");
	CHECK(norm_url(&o, NULL, in, (size_t)n, out, sizeof(out), NULL) == 0);
	CHECK_STR(out, "http://a:***@a.com/");
	CHECK(s.calls == 2);
	/* A failed norm_url() reports nothing. */
	CHECK(norm_url(&o, NULL, "http://a:b@a.com:99999/", 23, out,
		       sizeof(out), NULL) != 0);
	CHECK(s.calls == 2);
}

int main(void)
{
	test_profiles();
	test_names();
	test_steps_parse();

	RUN_ROWS(parse_rows);
	test_parse_nul();
	RUN_ROWS(step_rows);
	test_tracking_list();
	RUN_ROWS(idn_rows);
	RUN_ROWS(uts46_rows);
	/* Again, now from the per-thread IDNA cache (failures included). */
	RUN_ROWS(uts46_rows);
	RUN_ROWS(error_rows);
	test_lengths();

	RUN_ROWS(rfc3986_rows);
	test_rfc3986_equivalence();
	test_goel_example();
	test_research_pairs();
	RUN_ROWS(profile_rows);
	RUN_ROWS(fixed_point_rows);
	RUN_ROWS(semicolon_rows);
	test_query_fixed_points();

	RUN_ROWS(base_rows);
	test_base_href();
	test_components();
	test_fetch_url();
	test_split();
	test_passwords();

	return check_done();
}
