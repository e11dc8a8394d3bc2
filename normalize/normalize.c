/* normalize.c — URL parsing, reference resolution and normalization.
 *
 * One call of norm_url() makes four passes over a URL, each linear:
 *
 *   1. prepare(): trim, drop tabs and newlines, map '\' to '/' before the
 *      query, into a stack buffer.
 *   2. split(): find the scheme, authority, path, query and fragment spans.
 *   3. resolve(): for a relative reference, take the missing components
 *      from the base (RFC 3986 §5.2.2).
 *   4. emit(): write each component into a scratch buffer, applying the
 *      enabled steps in the fixed order documented in normalize.h, then
 *      copy the result out.
 *
 * No heap memory is used: the buffers live on the stack (about 70 KiB at
 * the deepest, so callers' threads need ordinary stacks), and IDNA results
 * are cached per thread so that ICU, which allocates, runs only on a cache
 * miss.  ASCII hosts without an "xn--" label never reach ICU at all.
 */
#include "normalize.h"
#include "normalize-int.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/uidna.h>
#include <xxhash.h>

/* ---------------------------------------------------------------------
 * Character classes
 */

enum {
	C_UNRESERVED = 1 << 0, /* ALPHA DIGIT - . _ ~ */
	C_PATH = 1 << 1,       /* pchar and '/', written unencoded in a path */
	C_QUERY = 1 << 2,      /* pchar, '/' and '?': query and fragment */
	C_USER = 1 << 3,       /* unreserved, sub-delims, ':' */
	C_HOST = 1 << 4,       /* unreserved and sub-delims: a reg-name */
	C_SCHEME = 1 << 5,     /* ALPHA DIGIT + - . */
};

#define UNRES (C_UNRESERVED | C_PATH | C_QUERY | C_USER | C_HOST | C_SCHEME)
#define SUBDELIM (C_PATH | C_QUERY | C_USER | C_HOST)

/* Byte classes of RFC 3986 §2.  Everything absent (controls, space, '"',
 * '<', '>', '\\', '^', '`', '{', '|', '}', '[', ']', '#', '%', DEL and all
 * bytes >= 0x80) is percent-encoded wherever it appears. */
static const uint8_t cls[256] = {
	['a' ... 'z'] = UNRES,
	['A' ... 'Z'] = UNRES,
	['0' ... '9'] = UNRES,
	['-'] = UNRES,
	['.'] = UNRES,
	['_'] = UNRES & ~C_SCHEME,
	['~'] = UNRES & ~C_SCHEME,
	['!'] = SUBDELIM,
	['$'] = SUBDELIM,
	['&'] = SUBDELIM,
	['\''] = SUBDELIM,
	['('] = SUBDELIM,
	[')'] = SUBDELIM,
	['*'] = SUBDELIM,
	['+'] = SUBDELIM | C_SCHEME,
	[','] = SUBDELIM,
	[';'] = SUBDELIM,
	['='] = SUBDELIM,
	[':'] = C_PATH | C_QUERY | C_USER,
	['@'] = C_PATH | C_QUERY,
	['/'] = C_PATH | C_QUERY,
	['?'] = C_QUERY,
};

/* Hex digit value plus one; 0 for a byte that is not a hex digit. */
static const uint8_t hexval1[256] = {
	['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,
	['6'] = 7,  ['7'] = 8,  ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
	['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12,
	['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static const char hexdigit[] = "0123456789ABCDEF";

static inline char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
}

static bool eq_nocase(const char *a, size_t an, const char *lit)
{
	size_t n = strlen(lit);
	if (an != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (lower(a[i]) != lit[i])
			return false;
	return true;
}

static bool prefix_nocase(const char *a, size_t an, const char *lit)
{
	size_t n = strlen(lit);
	if (an < n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (lower(a[i]) != lit[i])
			return false;
	return true;
}

/* ---------------------------------------------------------------------
 * Steps and profiles
 */

/* Indexed by bit number; must follow enum norm_step. */
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

#define STRICT_STEPS                                                           \
	(NORM_LOWERCASE_SCHEME_HOST | NORM_IDN_PUNYCODE |                      \
	 NORM_UPPERCASE_PERCENT_HEX | NORM_DECODE_UNRESERVED |                 \
	 NORM_REMOVE_DOT_SEGMENTS | NORM_REMOVE_DEFAULT_PORT |                 \
	 NORM_EMPTY_PATH_SLASH | NORM_REMOVE_FRAGMENT)
#define EXTENDED_STEPS                                                         \
	(STRICT_STEPS | NORM_REMOVE_EMPTY_QUERY | NORM_SORT_QUERY |            \
	 NORM_REMOVE_DUPLICATE_PARAMS | NORM_REMOVE_TRACKING_PARAMS |          \
	 NORM_REMOVE_SESSION_IDS | NORM_REMOVE_TRAILING_HOST_DOT)
#define AGGRESSIVE_STEPS                                                       \
	(EXTENDED_STEPS | NORM_REMOVE_EMPTY_PARAMS | NORM_COLLAPSE_SLASHES |   \
	 NORM_LOWERCASE_PATH | NORM_ADD_TRAILING_SLASH |                       \
	 NORM_REMOVE_DEFAULT_PAGE | NORM_REMOVE_WWW | NORM_FOLD_HTTPS |        \
	 NORM_REMOVE_USERINFO)

/* Steps that work on the query's parameters one by one. */
#define PARAM_STEPS                                                            \
	(NORM_SORT_QUERY | NORM_REMOVE_DUPLICATE_PARAMS |                      \
	 NORM_REMOVE_TRACKING_PARAMS | NORM_REMOVE_SESSION_IDS |               \
	 NORM_REMOVE_EMPTY_PARAMS)

const struct norm_opts norm_as_found = { 0 };

uint32_t norm_profile_steps(enum norm_profile profile)
{
	switch (profile) {
	case NORM_PROFILE_STRICT:
	case NORM_PROFILE_ADAPTIVE: return STRICT_STEPS;
	case NORM_PROFILE_EXTENDED: return EXTENDED_STEPS;
	case NORM_PROFILE_AGGRESSIVE: return AGGRESSIVE_STEPS;
	}
	return STRICT_STEPS;
}

int norm_profile_parse(const char *name, enum norm_profile *ret)
{
	static const struct {
		const char *name;
		enum norm_profile p;
	} tab[] = {
		{ "strict", NORM_PROFILE_STRICT },
		{ "extended", NORM_PROFILE_EXTENDED },
		{ "aggressive", NORM_PROFILE_AGGRESSIVE },
		{ "adaptive", NORM_PROFILE_ADAPTIVE },
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (name && strcmp(name, tab[i].name) == 0) {
			*ret = tab[i].p;
			return 0;
		}
	}
	return SC_E_STEP;
}

const char *norm_step_name(uint32_t step)
{
	for (int i = 0; i < NORM_STEP_COUNT; i++)
		if (step == (1u << i))
			return step_names[i];
	return NULL;
}

uint32_t norm_step_by_name(const char *name, size_t len)
{
	for (int i = 0; i < NORM_STEP_COUNT; i++)
		if (strlen(step_names[i]) == len &&
		    memcmp(step_names[i], name, len) == 0)
			return 1u << i;
	return 0;
}

int norm_steps_parse(const char *list, uint32_t *steps, const char **bad,
		     size_t *bad_len)
{
	uint32_t add = 0, del = 0;
	const char *p = list;

	while (*p) {
		while (*p == ',' || *p == ' ' || *p == '\t' || *p == '\n' ||
		       *p == '\r')
			p++;
		if (!*p)
			break;
		const char *tok = p;
		bool minus = false;
		if (*p == '+' || *p == '-')
			minus = *p++ == '-';
		const char *name = p;
		while (*p && *p != ',' && *p != ' ' && *p != '\t' &&
		       *p != '\n' && *p != '\r')
			p++;
		uint32_t bit = norm_step_by_name(name, (size_t)(p - name));
		if (!bit) {
			/* Point at the name; at the lone sign if it has none.
			 */
			const char *b = p > name ? name : tok;
			if (bad)
				*bad = b;
			if (bad_len)
				*bad_len = (size_t)(p - b);
			return SC_E_STEP;
		}
		/* Later entries win, so "+a,-a" removes a. */
		if (minus) {
			del |= bit;
			add &= ~bit;
		} else {
			add |= bit;
			del &= ~bit;
		}
	}
	*steps = (*steps | add) & ~del;
	return 0;
}

/* ---------------------------------------------------------------------
 * Parsing: prepare() and split()
 */

struct span {
	const char *p;
	size_t n;
};

/* Only the flags are zeroed per URL (see norm_url()); a span is read only
 * when its flag says it was set. */
struct parts {
	bool has_scheme, has_auth, has_user, has_port, has_query, has_frag;
	bool https;
	/* The authority came from the base, which is in strict form
	 * already: its host needs no second validation. */
	bool auth_from_base;
	/* The reference was relative: RFC 3986 §5.2.2 removes dot segments
	 * from the result whatever the steps say. */
	bool resolved;
	struct span scheme, user, host, port, path, query, frag;
};

/* Does the 8-byte word x hold a byte below 0x20, a '\\' or a byte with the
 * high bit set?  (Word-at-a-time test: the high bit of a byte of
 * x - 0x20.. is set when that byte was below 0x20 or above 0x7f.)  High
 * bytes give false positives, which only send the URL to the slow path. */
static inline bool word_needs_prepare(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull,
		       high = 0x8080808080808080ull;
	uint64_t bs = x ^ (0x5c * ones);
	return (((x - 0x20 * ones) | x | (bs - ones)) & high) != 0;
}

/* Trim leading and trailing C0 controls and spaces; then, unless the rest
 * is clean, copy it to w without any tab, CR or LF, turning '\\' into '/'
 * before the first '?' or '#' (SPEC §4; the WHATWG URL standard does the
 * same).  *out points at the result: in itself when nothing had to change,
 * which is nearly always. */
static int prepare(const char *in, size_t len, char *w, const char **out,
		   size_t *wlen)
{
	while (len && (unsigned char)in[0] <= 0x20) {
		in++;
		len--;
	}
	while (len && (unsigned char)in[len - 1] <= 0x20)
		len--;
	if (len > NORM_INPUT_MAX)
		return SC_E_TOOLONG;

	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t x;
		memcpy(&x, in + i, 8);
		if (word_needs_prepare(x))
			break;
	}
	for (; i < len; i++) {
		unsigned char c = (unsigned char)in[i];
		if (c < 0x20 || c == '\\')
			break;
	}
	if (i == len) {
		*out = in;
		*wlen = len;
		return 0;
	}

	size_t n = 0;
	bool in_path = true;
	for (i = 0; i < len; i++) {
		char c = in[i];
		if (c == '\t' || c == '\n' || c == '\r')
			continue;
		if (in_path) {
			if (c == '\\')
				c = '/';
			else if (c == '?' || c == '#')
				in_path = false;
		}
		w[n++] = c;
	}
	*out = w;
	*wlen = n;
	return 0;
}

static const uint8_t auth_stop[256] = {
	['/'] = 1,
	['?'] = 1,
	['#'] = 1,
	['@'] = 2,
};

/* Split an authority (between "//" and the path) into its parts; at is
 * its last '@' or NULL. */
static int split_authority(const char *a, size_t n, const char *at,
			   struct parts *pt)
{
	if (at) {
		pt->has_user = true;
		pt->user = (struct span){ a, (size_t)(at - a) };
		n -= (size_t)(at + 1 - a);
		a = at + 1;
	}

	const char *end = a + n, *colon;
	if (n && a[0] == '[') {
		const char *rb = memchr(a, ']', n);
		if (!rb)
			return SC_E_IPV6;
		pt->host = (struct span){ a, (size_t)(rb + 1 - a) };
		if (rb + 1 != end && rb[1] != ':')
			return SC_E_IPV6;
		colon = rb + 1 != end ? rb + 1 : NULL;
	} else {
		colon = memchr(a, ':', n);
		pt->host = (struct span){ a, colon ? (size_t)(colon - a) : n };
	}
	if (colon) {
		pt->has_port = true;
		pt->port = (struct span){ colon + 1,
					  (size_t)(end - colon - 1) };
	}
	return 0;
}

/* Split what follows the authority (or a relative reference without one)
 * into path, query and fragment. */
static void split_rest(const char *p, size_t n, struct parts *pt)
{
	const char *end = p + n;
	const char *q = memchr(p, '?', n);
	const char *hash = memchr(p, '#', q ? (size_t)(q - p) : n);
	if (hash)
		q = hash; /* a '?' after the '#' belongs to the fragment */
	else if (!q)
		q = end;
	pt->path = (struct span){ p, (size_t)(q - p) };
	if (q < end && *q == '?') {
		hash = memchr(q, '#', (size_t)(end - q));
		if (!hash)
			hash = end;
		pt->has_query = true;
		pt->query = (struct span){ q + 1, (size_t)(hash - q - 1) };
		q = hash;
	}
	if (q < end) { /* '#' */
		pt->has_frag = true;
		pt->frag = (struct span){ q + 1, (size_t)(end - q - 1) };
	}
}

/* Parse the authority that starts at p after any number of slashes (browsers
 * accept "http:/a.com" and "http:///a.com" alike). */
static int split_after_slashes(const char *p, const char *end, struct parts *pt)
{
	while (p < end && *p == '/')
		p++;
	/* The authority ends at '/', '?' or '#'; its userinfo at its last
	 * '@'.  One pass finds both. */
	const char *a = p, *at = NULL;
	for (; p < end; p++) {
		uint8_t k = auth_stop[(unsigned char)*p];
		if (k == 1)
			break;
		if (k == 2)
			at = p;
	}
	pt->has_auth = true;
	int rc = split_authority(a, (size_t)(p - a), at, pt);
	if (rc)
		return rc;
	split_rest(p, (size_t)(end - p), pt);
	return 0;
}

static int split(const char *w, size_t n, bool have_base, bool base_https,
		 struct parts *pt)
{
	const char *end = w + n;
	const char *p = w;

	/* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" */
	if (n && ((w[0] | 0x20) >= 'a' && (w[0] | 0x20) <= 'z')) {
		const char *s = w + 1;
		while (s < end && (cls[(unsigned char)*s] & C_SCHEME))
			s++;
		if (s < end && *s == ':') {
			size_t sl = (size_t)(s - w);
			if (eq_nocase(w, sl, "https"))
				pt->https = true;
			else if (!eq_nocase(w, sl, "http"))
				return SC_E_SCHEME;
			pt->has_scheme = true;
			pt->scheme = (struct span){ w, sl };
			p = s + 1;
			/* "http:g" against an http base is relative, as in
			 * browsers and RFC 3986 §5.4.2's backward-compatible
			 * reading; anything else is an authority. */
			if (have_base && pt->https == base_https &&
			    !(end - p >= 2 && p[0] == '/' && p[1] == '/')) {
				pt->has_scheme = false;
			} else {
				return split_after_slashes(p, end, pt);
			}
		}
	}
	if (!have_base)
		return SC_E_RELATIVE;
	if (end - p >= 2 && p[0] == '/' && p[1] == '/')
		return split_after_slashes(p, end, pt);
	split_rest(p, (size_t)(end - p), pt);
	return 0;
}

/* ---------------------------------------------------------------------
 * Writing: a bounded buffer that counts what did not fit
 */

/* Sized for the worst case: every byte of the input percent-encoded, plus
 * the base's path for a relative reference, plus delimiters. */
#define SCRATCH_MAX (3 * NORM_INPUT_MAX + NORM_URL_MAX + 64)

struct buf {
	char *p;
	size_t n;
};

static inline void put(struct buf *b, const char *s, size_t n)
{
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static inline void putc_(struct buf *b, char c)
{
	b->p[b->n++] = c;
}

/* Append src, percent-encoding every byte outside class `allowed` and any
 * '%' not followed by two hex digits, upper-casing the hex of escapes and
 * decoding escaped unreserved characters as the steps ask.  Writes at most
 * 3 * n bytes. */
static void put_encoded(struct buf *b, const char *src, size_t n,
			uint8_t allowed, uint32_t steps)
{
	char *d = b->p + b->n;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)src[i];
		if (cls[c] & allowed) {
			*d++ = (char)c;
		} else if (c == '%' && i + 2 < n &&
			   hexval1[(unsigned char)src[i + 1]] &&
			   hexval1[(unsigned char)src[i + 2]]) {
			unsigned v = (hexval1[(unsigned char)src[i + 1]] - 1u) *
					     16u +
				     (hexval1[(unsigned char)src[i + 2]] - 1u);
			if ((steps & NORM_DECODE_UNRESERVED) &&
			    (cls[v] & C_UNRESERVED)) {
				*d++ = (char)v;
			} else if (steps & NORM_UPPERCASE_PERCENT_HEX) {
				*d++ = '%';
				*d++ = hexdigit[v >> 4];
				*d++ = hexdigit[v & 15];
			} else {
				memcpy(d, src + i, 3);
				d += 3;
			}
			i += 2;
		} else {
			*d++ = '%';
			*d++ = hexdigit[c >> 4];
			*d++ = hexdigit[c & 15];
		}
	}
	b->n = (size_t)(d - b->p);
}

/* ---------------------------------------------------------------------
 * Hosts
 */

/* ---------------------------------------------------------------------
 * IDNA: UTS #46 as the WHATWG URL Standard applies it ("domain to ASCII")
 *
 * Browsers do not use IDNA2008 (RFC 5891) as registries do: symbols and
 * emoji (U+2665, U+1F4A9) are valid, hyphens anywhere are fine, and label
 * and name lengths are not checked.  ICU's UTS #46 implementation is the
 * one Chromium uses; libidn2 validates by IDNA2008 even in its UTS #46
 * mode, so it refuses hosts every browser reaches.
 *
 * The options are WHATWG's: nontransitional (ß, ς, ZWJ and ZWNJ stay),
 * CheckBidi and CheckJoiners on, UseSTD3ASCIIRules off (no
 * UIDNA_USE_STD3_RULES).  ICU cannot switch off CheckHyphens and
 * VerifyDnsLength, so the errors those would report are ignored below.
 * UIDNA_NONTRANSITIONAL_TO_UNICODE makes ToUnicode keep deviation
 * characters too, for the round trip of A-labels. */
#define UTS46_OPTIONS                                                          \
	(UIDNA_NONTRANSITIONAL_TO_ASCII | UIDNA_NONTRANSITIONAL_TO_UNICODE |   \
	 UIDNA_CHECK_BIDI | UIDNA_CHECK_CONTEXTJ)

/* Errors of checks WHATWG turns off: CheckHyphens=false,
 * VerifyDnsLength=false. */
#define UTS46_IGNORED                                                          \
	(UIDNA_ERROR_EMPTY_LABEL | UIDNA_ERROR_LABEL_TOO_LONG |                \
	 UIDNA_ERROR_DOMAIN_NAME_TOO_LONG | UIDNA_ERROR_LEADING_HYPHEN |       \
	 UIDNA_ERROR_TRAILING_HYPHEN | UIDNA_ERROR_HYPHEN_3_4)

/* One instance per process: ICU's UTS #46 object is immutable once made,
 * so every thread may use it at once. */
static UIDNA *uts46;
static pthread_once_t uts46_once = PTHREAD_ONCE_INIT;

static void uts46_open(void)
{
	UErrorCode e = U_ZERO_ERROR;
	UIDNA *u = uidna_openUTS46(UTS46_OPTIONS, &e);

	if (U_SUCCESS(e))
		uts46 = u;
	else if (u)
		uidna_close(u);
}

/* UTS #46 ToASCII (to_ascii) or ToUnicode of in[0..n) into out[0..cap):
 * 0, SC_E_IDN if UTS #46 reports an error WHATWG does not ignore or the
 * result does not fit, SC_E_NOMEM if ICU could not be set up. */
static int uts46_convert(bool to_ascii, const char *in, size_t n, char *out,
			 size_t cap, size_t *outn)
{
	pthread_once(&uts46_once, uts46_open);
	if (!uts46)
		return SC_E_NOMEM;

	UErrorCode e = U_ZERO_ERROR;
	UIDNAInfo info = UIDNA_INFO_INITIALIZER;
	int32_t len = to_ascii ? uidna_nameToASCII_UTF8(uts46, in, (int32_t)n,
							out, (int32_t)cap,
							&info, &e)
			       : uidna_nameToUnicodeUTF8(uts46, in, (int32_t)n,
							 out, (int32_t)cap,
							 &info, &e);
	/* A result of exactly cap bytes comes with a warning, not an error:
	 * "len < cap" keeps one byte spare for the caller. */
	if (U_FAILURE(e) || len < 0 || (size_t)len >= cap ||
	    (info.errors & ~(uint32_t)UTS46_IGNORED))
		return SC_E_IDN;
	*outn = (size_t)len;
	return 0;
}

/* Per-thread cache of IDNA conversions, 2-way set associative: a page's
 * links name few hosts, and a crawl's hot hosts stay cached, so ICU
 * (which allocates) runs once per host per thread rather than per link.
 * Failures are cached too, so a page full of bad IDN links costs one call.
 * Hosts or results longer than IDN_CACHE_MAX are converted uncached. */
#define IDN_SETS 128
#define IDN_CACHE_MAX 127
#define IDN_OUT_MAX 256 /* a DNS name is at most 253 bytes */

struct idn_slot {
	uint64_t hash; /* 0: empty */
	int16_t rc;    /* 0 or an SC_E_* code */
	uint8_t klen, vlen;
	char key[IDN_CACHE_MAX];
	char val[IDN_CACHE_MAX];
};

struct idn_set {
	struct idn_slot way[2];
	uint8_t victim; /* the way to replace next */
};

static _Thread_local struct idn_set idn_cache[IDN_SETS];

/* The cache's hash of a host: XXH3, the project's one hash function (the
 * cache lives in memory only, so nothing stored depends on it); never 0,
 * which marks an empty slot. */
static uint64_t host_hash(const char *s, size_t n)
{
	return XXH3_64bits(s, n) | 1;
}

/* WHATWG "domain to ASCII" of host[0..n), which has no trailing dot, into
 * out (IDN_OUT_MAX bytes), uncached.  alabel: the host has an "xn--"
 * label. */
static int idn_convert(const char *host, size_t n, bool alabel, char *out,
		       size_t *outn)
{
	/* UTS #46 maps U+1E9E CAPITAL SHARP S to U+00DF since Unicode 15.1
	 * (before: to "ss", which names another domain: FAẞ.de is faß.de,
	 * not fass.de).  ICU before 74 has the old table, so the new mapping
	 * is applied here first.  Both are UTF-8 and the new one is shorter,
	 * so the copy fits. */
	char mapped[NORM_URL_MAX];
	if (memchr(host, 0xe1, n)) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++) {
			if (i + 2 < n && (unsigned char)host[i] == 0xe1 &&
			    (unsigned char)host[i + 1] == 0xba &&
			    (unsigned char)host[i + 2] == 0x9e) {
				mapped[m++] = (char)0xc3;
				mapped[m++] = (char)0x9f;
				i += 2;
			} else {
				mapped[m++] = host[i];
			}
		}
		host = mapped;
		n = m;
	}

	if (!alabel)
		return uts46_convert(true, host, n, out, IDN_OUT_MAX, outn);

	/* UTS #46 ToASCII decodes an A-label and encodes it again; ICU
	 * returns the label as written instead.  The round trip through
	 * ToUnicode writes the encoding ToASCII defines, and validates the
	 * decoded label.  Every code point of the Unicode form takes at
	 * least one byte of the ASCII form, so a Unicode form over
	 * 4 * IDN_OUT_MAX bytes could not fit out anyway. */
	char uni[4 * IDN_OUT_MAX];
	size_t un;
	int rc = uts46_convert(false, host, n, uni, sizeof(uni), &un);
	if (rc)
		return rc;
	return uts46_convert(true, uni, un, out, IDN_OUT_MAX, outn);
}

/* idn_convert() through the per-thread cache. */
static int idn_to_ascii(const char *host, size_t n, bool alabel, char *out,
			size_t *outn)
{
	bool cacheable = n <= IDN_CACHE_MAX;
	uint64_t h = 0;
	struct idn_set *set = NULL;
	if (cacheable) {
		h = host_hash(host, n);
		set = &idn_cache[(h >> 32) % IDN_SETS];
		for (int i = 0; i < 2; i++) {
			struct idn_slot *s = &set->way[i];
			if (s->hash == h && s->klen == n &&
			    memcmp(s->key, host, n) == 0) {
				set->victim = (uint8_t)!i;
				if (s->rc)
					return s->rc;
				memcpy(out, s->val, s->vlen);
				*outn = s->vlen;
				return 0;
			}
		}
	}

	size_t rn = 0;
	int rc = idn_convert(host, n, alabel, out, &rn);
	/* WHATWG: an empty result is a failure (a host of U+00AD only). */
	if (!rc && rn == 0)
		rc = SC_E_IDN;
	if (!rc)
		*outn = rn;

	/* A failure to set ICU up says nothing about the host. */
	if (cacheable && rc != SC_E_NOMEM && rn <= IDN_CACHE_MAX) {
		struct idn_slot *s = &set->way[set->victim];
		set->victim = (uint8_t)!set->victim;
		s->hash = h;
		s->klen = (uint8_t)n;
		memcpy(s->key, host, n);
		s->rc = (int16_t)rc;
		s->vlen = rc ? 0 : (uint8_t)rn;
		if (!rc)
			memcpy(s->val, out, rn);
	}
	return rc;
}

/* Parse one part of an IPv4 address the way browsers do: decimal, 0x
 * hex, or 0-prefixed octal.  Returns false if it is not a number. */
static bool ipv4_part(const char *s, size_t n, uint64_t *v)
{
	unsigned radix = 10;
	if (n >= 2 && s[0] == '0' && (s[1] | 0x20) == 'x') {
		radix = 16;
		s += 2;
		n -= 2;
	} else if (n >= 2 && s[0] == '0') {
		radix = 8;
		s++;
		n--;
	}
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = hexval1[(unsigned char)s[i]];
		if (!d || d - 1 >= radix)
			return false;
		x = x * radix + (d - 1);
		if (x > 0xffffffffull)
			x = 0x100000000ull; /* saturate: too big anyway */
	}
	*v = x;
	return true;
}

/* Does the host end in a number (WHATWG "ends in a number")?  Then it must
 * be an IPv4 address. */
static bool ends_in_number(const char *h, size_t n)
{
	/* All trailing dots are ignored (WHATWG ignores one), so that
	 * remove_trailing_host_dot can never turn a name into a number. */
	while (n && h[n - 1] == '.')
		n--;
	/* Most hosts end in a letter that no number can end in. */
	if (!n ||
	    !(hexval1[(unsigned char)h[n - 1]] || (h[n - 1] | 0x20) == 'x'))
		return false;
	size_t i = n;
	while (i && h[i - 1] != '.')
		i--;
	const char *l = h + i;
	size_t ln = n - i;
	if (!ln)
		return false;
	bool digits = true;
	for (size_t k = 0; k < ln; k++)
		if (l[k] < '0' || l[k] > '9')
			digits = false;
	if (digits)
		return true;
	if (ln >= 2 && l[0] == '0' && (l[1] | 0x20) == 'x') {
		for (size_t k = 2; k < ln; k++)
			if (!hexval1[(unsigned char)l[k]])
				return false;
		return true;
	}
	return false;
}

/* Write an IPv4 host of 1 to 4 parts in dotted decimal. */
static int put_ipv4(struct buf *b, const char *h, size_t n)
{
	while (n && h[n - 1] == '.')
		n--;
	uint64_t part[4];
	int np = 0;
	size_t start = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || h[i] == '.') {
			if (np == 4 || i == start ||
			    !ipv4_part(h + start, i - start, &part[np]))
				return SC_E_HOST;
			np++;
			start = i + 1;
		}
	}
	for (int i = 0; i < np - 1; i++)
		if (part[i] > 255)
			return SC_E_HOST;
	if (part[np - 1] >= (1ull << (8 * (5 - np))))
		return SC_E_HOST;
	uint64_t addr = part[np - 1];
	for (int i = 0; i < np - 1; i++)
		addr += part[i] << (8 * (3 - i));

	char tmp[16];
	int len = 0;
	for (int i = 3; i >= 0; i--) {
		unsigned o = (unsigned)(addr >> (8 * i)) & 255;
		if (o >= 100)
			tmp[len++] = (char)('0' + o / 100);
		if (o >= 10)
			tmp[len++] = (char)('0' + o / 10 % 10);
		tmp[len++] = (char)('0' + o % 10);
		if (i)
			tmp[len++] = '.';
	}
	put(b, tmp, (size_t)len);
	return 0;
}

static int put_ipv6(struct buf *b, const char *h, size_t n)
{
	/* h includes the brackets. */
	char in[INET6_ADDRSTRLEN + 1], txt[INET6_ADDRSTRLEN];
	unsigned char addr[16];
	if (n < 3 || n - 2 > INET6_ADDRSTRLEN)
		return SC_E_IPV6;
	memcpy(in, h + 1, n - 2);
	in[n - 2] = '\0';
	if (inet_pton(AF_INET6, in, addr) != 1)
		return SC_E_IPV6;
	/* glibc writes RFC 5952 form: lower case, longest zero run. */
	if (!inet_ntop(AF_INET6, addr, txt, sizeof(txt)))
		return SC_E_IPV6;
	putc_(b, '[');
	put(b, txt, strlen(txt));
	putc_(b, ']');
	return 0;
}

/* Host bytes: what each byte of a host is written as, or, at most
 * HOST_8BIT, a marker for a byte that needs a closer look.  host_lower
 * also folds ASCII case (lowercase_scheme_host).  Filled once from cls[]:
 * a reg-name holds unreserved and sub-delims characters only. */
enum { HOST_FORBIDDEN = 0, HOST_PCT = 1, HOST_8BIT = 2 };

static uint8_t host_lower[256], host_keep[256];

__attribute__((constructor)) static void init_host_maps(void)
{
	for (int c = 0; c < 256; c++) {
		uint8_t m = (cls[c] & C_HOST) ? (uint8_t)c
			    : c == '%'        ? HOST_PCT
			    : c >= 0x80       ? HOST_8BIT
					      : HOST_FORBIDDEN;
		host_keep[c] = m;
		host_lower[c] = (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : m;
	}
}

/* False for an empty host or one made of dots only ("..", "."), which no
 * name resolves and which trailing-dot removal could not make sense of. */
static bool dots_only_check(const char *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (h[i] != '.')
			return true;
	return false;
}

/* Write the host of a URL as found: percent-decoded, validated, IPv4 and
 * IPv6 in canonical form, IDNA applied when the steps ask. */
static int put_host(struct buf *b, struct span h, uint32_t steps, uint8_t *type)
{
	if (h.n == 0)
		return SC_E_NOHOST;
	if (h.p[0] == '[') {
		*type = NORM_HOST_IPV6;
		return put_ipv6(b, h.p, h.n);
	}
	if (h.n > NORM_URL_MAX)
		return SC_E_TOOLONG;

	/* Percent-decode, validate and (if asked) lower-case straight into
	 * the output; IDNA, if needed, then rewrites it in place. */
	const uint8_t *map = (steps & NORM_LOWERCASE_SCHEME_HOST) ? host_lower
								  : host_keep;
	char *dec = b->p + b->n;
	size_t n = 0;
	bool nonascii = false, alabel = false;
	for (size_t i = 0; i < h.n; i++) {
		unsigned char c = (unsigned char)h.p[i];
		uint8_t m = map[c];
		if (m == HOST_PCT) {
			if (i + 2 >= h.n ||
			    !hexval1[(unsigned char)h.p[i + 1]] ||
			    !hexval1[(unsigned char)h.p[i + 2]])
				return SC_E_HOST_PERCENT;
			c = (unsigned char)(16 * (hexval1[(unsigned char)
								  h.p[i + 1]] -
						  1) +
					    hexval1[(unsigned char)h.p[i + 2]] -
					    1);
			i += 2;
			m = map[c];
			if (m == HOST_PCT)
				return SC_E_HOST; /* an escaped '%' */
		}
		if (m > HOST_8BIT) {
			dec[n++] = (char)m;
			/* A label "xn--..." is an A-label IDNA must check. */
			if (m == '-' && n >= 4 && dec[n - 2] == '-' &&
			    (dec[n - 3] | 0x20) == 'n' &&
			    (dec[n - 4] | 0x20) == 'x' &&
			    (n == 4 || dec[n - 5] == '.'))
				alabel = true;
		} else if (m == HOST_8BIT) {
			nonascii = true;
			dec[n++] = (char)c;
		} else {
			return SC_E_HOST;
		}
	}
	if (!dots_only_check(dec, n))
		return n ? SC_E_HOST : SC_E_NOHOST;

	/* Non-ASCII and "xn--" hosts go through IDNA even when idn_punycode
	 * is off: a host IDNA rejects cannot be fetched, whatever form we
	 * write it in.  ASCII hosts without an A-label skip it: for them
	 * WHATWG's "domain to ASCII" is only lower-casing.  A trailing dot
	 * stays out of IDNA (and the cache key). */
	if (nonascii || alabel) {
		char idn[IDN_OUT_MAX + 1];
		size_t in = n - (dec[n - 1] == '.'), idn_n = 0;
		int rc = idn_to_ascii(dec, in, alabel, idn, &idn_n);
		if (rc)
			return rc;
		/* With UseSTD3ASCIIRules off, UTS #46 lets through what a
		 * host cannot carry (U+FF1C maps to '<'): WHATWG then checks
		 * for forbidden code points.  The RFC 3986 reg-name set
		 * checked here excludes all of those. */
		for (size_t i = 0; i < idn_n; i++)
			if (!(cls[(unsigned char)idn[i]] & C_HOST))
				return SC_E_HOST;
		if (in < n)
			idn[idn_n++] = '.';
		/* IDNA maps U+FF0E and friends to '.' and drops soft
		 * hyphens: check the result again. */
		if (!dots_only_check(idn, idn_n))
			return SC_E_HOST;
		/* A host that maps to a number ("１２７.0.0.1") is an
		 * address, in either form the step chooses. */
		if (ends_in_number(idn, idn_n)) {
			*type = NORM_HOST_IPV4;
			return put_ipv4(b, idn, idn_n);
		}
		if (steps & NORM_IDN_PUNYCODE) {
			memcpy(dec, idn, idn_n);
			n = idn_n;
			nonascii = false;
		}
	}

	if (!nonascii && ends_in_number(dec, n)) {
		*type = NORM_HOST_IPV4;
		char tmp[NORM_URL_MAX];
		memcpy(tmp, dec, n);
		return put_ipv4(b, tmp, n);
	}
	*type = NORM_HOST_NAME;
	if (nonascii) {
		/* idn_punycode is off: keep the UTF-8, percent-encoded. */
		char tmp[NORM_URL_MAX];
		memcpy(tmp, dec, n);
		put_encoded(b, tmp, n, C_HOST, NORM_UPPERCASE_PERCENT_HEX);
	} else {
		b->n += n;
	}
	return 0;
}

/* remove_trailing_host_dot and remove_www, on the host just written at
 * b->p[off..b->n). */
static void host_steps(struct buf *b, size_t off, uint32_t steps)
{
	if (steps & NORM_REMOVE_TRAILING_HOST_DOT) {
		while (b->n - off > 1 && b->p[b->n - 1] == '.')
			b->n--;
	}
	if (steps & NORM_REMOVE_WWW) {
		for (;;) {
			char *h = b->p + off;
			size_t n = b->n - off;
			if (!prefix_nocase(h, n, "www."))
				break;
			/* Count the labels that would remain. */
			int labels = 0;
			bool in_label = false;
			for (size_t i = 4; i < n; i++) {
				if (h[i] == '.')
					in_label = false;
				else if (!in_label) {
					in_label = true;
					labels++;
				}
			}
			if (labels < 2)
				break;
			memmove(h, h + 4, n - 4);
			b->n -= 4;
		}
	}
}

/* ---------------------------------------------------------------------
 * Paths
 */

/* Does p[0..n) start with a ".." segment? */
static bool dotdot_next(const char *p, size_t n)
{
	return n >= 2 && p[0] == '.' && p[1] == '.' && (n == 2 || p[2] == '/');
}

/* remove_session_ids on a path: drop ";jsessionid=..." parameters up to the
 * next ';' or '/'.  A parameter on a segment that would then read "." or
 * ".." stays: dropping it would turn a name into a dot segment, and the
 * profiles would no longer compose (extended(strict(x)) != extended(x)).
 * Works in place on p[0..n); returns the new length. */
static size_t drop_path_session(char *p, size_t n)
{
	size_t w = 0, seg = 0; /* seg: where the output's segment starts */
	for (size_t i = 0; i < n;) {
		if (p[i] == '/')
			seg = w + 1;
		if (p[i] == ';' &&
		    prefix_nocase(p + i + 1, n - i - 1, "jsessionid=") &&
		    !((w - seg == 1 && p[seg] == '.') ||
		      (w - seg == 2 && p[seg] == '.' && p[seg + 1] == '.'))) {
			i++;
			while (i < n && p[i] != ';' && p[i] != '/')
				i++;
			/* A segment that was only the parameter goes with its
			 * slash ("/;jsessionid=X/index.html" is
			 * "/index.html", as the servers that send it read
			 * it), unless ".." follows: that removes the segment
			 * as strict's dot removal would (with the parameter
			 * in it), and the profiles compose. */
			if (w == seg && seg > 0 && i < n && p[i] == '/' &&
			    !dotdot_next(p + i + 1, n - i - 1))
				i++;
			continue;
		}
		p[w++] = p[i++];
	}
	return w;
}

/* RFC 3986 §5.2.4 for an absolute path, in place: p[0..n) starts with
 * '/'.  Segments are "." and ".." exactly (escapes of '.' were decoded
 * before this runs if decode_unreserved is on).  Returns the new length. */
static size_t remove_dots(char *p, size_t n)
{
	size_t w = 0; /* output is p[0..w), always starting with '/' */
	size_t i = 0;
	while (i < n) {
		/* p[i] == '/': look at the segment after it. */
		size_t s = i + 1, e = s;
		while (e < n && p[e] != '/')
			e++;
		size_t sl = e - s;
		bool last = e == n;
		if (sl == 1 && p[s] == '.') {
			if (last)
				p[w++] = '/';
		} else if (sl == 2 && p[s] == '.' && p[s + 1] == '.') {
			while (w > 0 && p[w - 1] != '/')
				w--;
			if (w > 0)
				w--; /* drop the segment's '/' too */
			if (last)
				p[w++] = '/';
		} else {
			if (w != i)
				memmove(p + w, p + i, e - i);
			w += e - i;
		}
		i = e;
	}
	if (w == 0)
		p[w++] = '/';
	return w;
}

static size_t collapse_slashes(char *p, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '/' && w > 0 && p[w - 1] == '/')
			continue;
		p[w++] = p[i];
	}
	return w;
}

struct lit {
	const char *s;
	size_t n;
};
#define LIT(s)                                                                 \
	{                                                                      \
		s, sizeof(s) - 1                                               \
	}

static const struct lit default_pages[] = {
	LIT("index.html"),   LIT("index.htm"),    LIT("index.php"),
	LIT("index.asp"),    LIT("index.aspx"),   LIT("index.jsp"),
	LIT("default.htm"),  LIT("default.html"), LIT("default.asp"),
	LIT("default.aspx"),
};

/* Is there a segment starting with '.' (a possible "." or "..")? */
static bool may_have_dot_segment(const char *p, size_t n)
{
	const char *q = p, *end = p + n;
	while ((q = memchr(q, '.', (size_t)(end - q)))) {
		if (q > p && q[-1] == '/')
			return true;
		q++;
	}
	return false;
}

/* The path steps on the path just written at b->p[off..b->n). */
/* ASCII upper case to lower in p[0..n), eight bytes at a time: a byte
 * whose low seven bits are at least 'A' and at most 'Z', with its high bit
 * clear, gains 0x20. */
static void lower_run(char *p, size_t n)
{
	const uint64_t ones = 0x0101010101010101ull;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x;
		memcpy(&x, p + i, 8);
		uint64_t h = x & (0x7f * ones);
		uint64_t ge_a = h + (0x80 - 'A') * ones;
		uint64_t gt_z = h + (0x80 - 'Z' - 1) * ones;
		uint64_t upper = ge_a & ~gt_z & ~x & (0x80 * ones);
		if (upper) {
			x |= upper >> 2;
			memcpy(p + i, &x, 8);
		}
	}
	for (; i < n; i++)
		p[i] = lower(p[i]);
}

static void path_steps(struct buf *b, size_t off, uint32_t steps, bool resolved)
{
	char *p = b->p + off;
	size_t n = b->n - off;

	if ((steps & (NORM_REMOVE_SESSION_IDS | NORM_RULE_PATH_SESSION)) &&
	    memchr(p, ';', n))
		n = drop_path_session(p, n);
	/* Without "/." there is no dot segment: the common case, skipped. */
	if (n && p[0] == '/' &&
	    (resolved || (steps & NORM_REMOVE_DOT_SEGMENTS)) &&
	    may_have_dot_segment(p, n))
		n = remove_dots(p, n);
	if (steps & NORM_COLLAPSE_SLASHES)
		n = collapse_slashes(p, n);
	if (steps & NORM_LOWERCASE_PATH) {
		/* The runs between escapes, whose hex is kept as it is. */
		for (size_t i = 0; i < n; i += 3) {
			const char *pct = memchr(p + i, '%', n - i);
			size_t e = pct ? (size_t)(pct - p) : n;
			lower_run(p + i, e - i);
			i = e;
		}
	}
	size_t last = n;
	if (steps & (NORM_REMOVE_DEFAULT_PAGE | NORM_ADD_TRAILING_SLASH)) {
		const char *slash = n ? memrchr(p, '/', n) : NULL;
		last = slash ? (size_t)(slash - p) + 1 : 0;
	}
	if ((steps & NORM_REMOVE_DEFAULT_PAGE) && last < n) {
		for (size_t i = 0;
		     i < sizeof(default_pages) / sizeof(*default_pages); i++) {
			size_t dl = default_pages[i].n;
			if (n - last == dl &&
			    memcmp(p + last, default_pages[i].s, dl) == 0) {
				n = last;
				break;
			}
		}
	}
	if ((steps & NORM_ADD_TRAILING_SLASH) && last < n && last > 0 &&
	    !memchr(p + last, '.', n - last))
		p[n++] = '/';
	if ((steps & NORM_RULE_FILE_SLASH) && n > 1 && p[n - 1] == '/') {
		size_t e = n - 1, s = e;
		while (s > 0 && p[s - 1] != '/')
			s--;
		bool dots = true;
		for (size_t i = s; i < e; i++)
			dots = dots && p[i] == '.';
		if (s < e && !dots && memchr(p + s, '.', e - s))
			n = e;
	}
	if ((steps & NORM_EMPTY_PATH_SLASH) && n == 0)
		p[n++] = '/';
	b->n = off + n;
}

/* ---------------------------------------------------------------------
 * Queries
 */

/* More parameters than this cannot come from a real link; such a query
 * is rejected as too long. */
#define MAX_PARAMS 1024

static const struct lit default_tracking[] = {
	LIT("utm_*"),   LIT("fbclid"), LIT("gclid"),  LIT("dclid"),
	LIT("msclkid"), LIT("mc_cid"), LIT("mc_eid"), LIT("yclid"),
	LIT("_ga"),     LIT("igshid"),
};

/* Offsets fit 16 bits: a query is at most 3 * NORM_INPUT_MAX bytes. */
struct param {
	uint16_t off, len; /* the whole "name=value" */
	uint16_t nlen;     /* the name's length */
};

/* Does name match pattern (a trailing '*' matches any rest)? */
static bool name_matches(const char *name, size_t n, const char *pat, size_t l)
{
	if (l && pat[l - 1] == '*')
		return n >= l - 1 && memcmp(name, pat, l - 1) == 0;
	return l == n && memcmp(name, pat, n) == 0;
}

/* name_matches() against a NUL-terminated pattern, without its length:
 * most names differ at the first byte. */
static bool name_matches_z(const char *name, size_t n, const char *pat)
{
	for (size_t i = 0; i < n; i++) {
		if (pat[i] == '*' && pat[i + 1] == '\0')
			return true;
		if (pat[i] != name[i] || !pat[i])
			return false;
	}
	return pat[n] == '\0' || (pat[n] == '*' && pat[n + 1] == '\0');
}

static bool is_tracking_name(const char *name, size_t n,
			     const struct norm_opts *o)
{
	if (!o->tracking) {
		for (size_t i = 0;
		     i < sizeof(default_tracking) / sizeof(*default_tracking);
		     i++)
			if (name_matches(name, n, default_tracking[i].s,
					 default_tracking[i].n))
				return true;
		return false;
	}
	for (size_t i = 0; i < o->n_tracking; i++)
		if (name_matches_z(name, n, o->tracking[i]))
			return true;
	return false;
}

static bool is_session_name(const char *name, size_t n)
{
	return eq_nocase(name, n, "jsessionid") ||
	       eq_nocase(name, n, "phpsessid") || eq_nocase(name, n, "sid") ||
	       eq_nocase(name, n, "sessionid") ||
	       prefix_nocase(name, n, "aspsessionid");
}

/* Order of sort_query: by name, then by value, bytes compared unsigned. */
static int param_cmp(const char *q, const struct param *a,
		     const struct param *b)
{
	size_t n = a->nlen < b->nlen ? a->nlen : b->nlen;
	int c = memcmp(q + a->off, q + b->off, n);
	if (c)
		return c;
	if (a->nlen != b->nlen)
		return a->nlen < b->nlen ? -1 : 1;
	size_t av = a->len - a->nlen, bv = b->len - b->nlen;
	n = av < bv ? av : bv;
	c = memcmp(q + a->off + a->nlen, q + b->off + b->nlen, n);
	if (c)
		return c;
	return av < bv ? -1 : av > bv;
}

/* Stable merge sort of v[0..n) with tmp[0..n) as scratch.  Insertion sort
 * for short runs: most queries have a handful of parameters. */
static void sort_params(const char *q, struct param *v, struct param *tmp,
			size_t n)
{
	if (n <= 12) {
		for (size_t i = 1; i < n; i++) {
			struct param x = v[i];
			size_t j = i;
			while (j > 0 && param_cmp(q, &v[j - 1], &x) > 0) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
		return;
	}
	size_t h = n / 2;
	sort_params(q, v, tmp, h);
	sort_params(q, v + h, tmp, n - h);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = param_cmp(q, &v[j], &v[i]) < 0 ? v[j++] : v[i++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

char norm_query_sep(const char *q, size_t n)
{
	if (memchr(q, '&', n))
		return '&';
	for (const char *p = memchr(q, ';', n), *end = q + n; p;
	     p = memchr(p, ';', (size_t)(end - p))) {
		const char *name = ++p;
		while (p < end && *p != '=' && *p != ';')
			p++;
		if (p < end && *p == '=' && p > name)
			return ';';
	}
	return '&';
}

/* One pass of the parameter steps on the query at b->p[off..b->n), its
 * parameters separated by sep; *left_one says whether it dropped
 * parameters and kept exactly one.  Not inlined: query_steps() may call
 * it twice, and its frame is large.  Returns 0 or SC_E_TOOLONG (more
 * than MAX_PARAMS parameters). */
__attribute__((noinline)) static int query_pass(struct buf *b, size_t off,
						const struct norm_opts *o,
						char sep, bool *left_one)
{
	uint32_t steps = o->steps;
	const char *q = b->p + off;
	size_t n = b->n - off;
	struct param v[MAX_PARAMS], tmp[MAX_PARAMS];
	size_t np = 0;
	bool dropped = false;
	*left_one = false;

	for (size_t s = 0; s <= n;) {
		const char *amp = memchr(q + s, sep, n - s);
		size_t e = amp ? (size_t)(amp - q) : n;
		const char *eq = memchr(q + s, '=', e - s);
		struct param pm = { (uint16_t)s, (uint16_t)(e - s),
				    (uint16_t)(eq ? (size_t)(eq - q) - s
						  : e - s) };
		bool drop = false;
		if ((steps & NORM_REMOVE_TRACKING_PARAMS) &&
		    is_tracking_name(q + s, pm.nlen, o))
			drop = true;
		else if ((steps & NORM_REMOVE_SESSION_IDS) &&
			 is_session_name(q + s, pm.nlen))
			drop = true;
		/* "a=", or nothing between two separators. */
		else if ((steps & NORM_REMOVE_EMPTY_PARAMS) &&
			 (pm.len == 0 || (eq && pm.len == pm.nlen + 1)))
			drop = true;
		if (!drop) {
			if (np == MAX_PARAMS)
				return SC_E_TOOLONG;
			v[np++] = pm;
		}
		dropped |= drop;
		s = e + 1;
	}
	/* Nothing dropped and nothing to reorder: the query stands. */
	if (!dropped &&
	    !(steps & (NORM_SORT_QUERY | NORM_REMOVE_DUPLICATE_PARAMS)))
		return 0;

	if (steps & NORM_SORT_QUERY)
		sort_params(q, v, tmp, np);
	size_t n_read = np;
	if (steps & NORM_REMOVE_DUPLICATE_PARAMS) {
		size_t k = 0;
		for (size_t i = 0; i < np; i++) {
			bool dup = false;
			/* Sorted: duplicates are neighbours.  Unsorted:
			 * compare with every kept one (fine for real query
			 * sizes; bounded by MAX_PARAMS for hostile ones). */
			size_t from = (steps & NORM_SORT_QUERY) && k ? k - 1
								     : 0;
			for (size_t j = from; j < k && !dup; j++)
				dup = v[j].len == v[i].len &&
				      memcmp(q + v[j].off, q + v[i].off,
					     v[i].len) == 0;
			if (!dup)
				v[k++] = v[i];
		}
		np = k;
	}
	*left_one = np == 1 && (dropped || n_read > 1);

	/* Rebuild the query from the kept parameters.  It can only shrink,
	 * but parameters move, so go through a copy of the old text. */
	char old[SCRATCH_MAX];
	memcpy(old, q, n);
	b->n = off;
	for (size_t i = 0; i < np; i++) {
		if (i)
			putc_(b, sep);
		put(b, old + v[i].off, v[i].len);
	}
	return 0;
}

/* The parameter steps on the query just written at b->p[off..b->n),
 * whose parameters norm_query_sep() separates.  Returns 0 or
 * SC_E_TOOLONG (more than MAX_PARAMS parameters). */
static int query_steps(struct buf *b, size_t off, const struct norm_opts *o)
{
	bool left_one;
	char sep = norm_query_sep(b->p + off, b->n - off);
	int rc = query_pass(b, off, o, sep, &left_one);
	/* An '&' query left with one parameter that reads as ';'
	 * parameters ("a=1;b=2&c=" without its empty "c=") is that query
	 * now: its steps are done as they are on that query, else the key
	 * written would not be its own normal form.  What a ';' pass writes
	 * is a fixed point of the steps, so one more pass is the last. */
	if (rc || sep == ';' || !left_one ||
	    norm_query_sep(b->p + off, b->n - off) != ';')
		return rc;
	return query_pass(b, off, o, ';', &left_one);
}

/* ---------------------------------------------------------------------
 * Ports
 */

/* Parse a port of digits only into *port.  An empty port is allowed. */
static int parse_port(struct span s, long *port)
{
	long v = 0;
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return SC_E_PORT;
		v = v * 10 + (s.p[i] - '0');
		if (v > 65535)
			return SC_E_PORT;
	}
	*port = s.n ? v : -1;
	return 0;
}

/* ---------------------------------------------------------------------
 * Assembly
 */

/* A password emit() masked, for on_password. */
struct masked {
	char p[NORM_PASSWORD_MAX];
	size_t n;
	bool set;
};

static int emit(const struct parts *pt, const struct norm_opts *o,
		struct buf *b, struct norm_url *u, struct masked *pw)
{
	uint32_t steps = o->steps;
	bool fold = pt->https && (steps & NORM_FOLD_HTTPS);
	int rc;

	memset(u, 0, sizeof(*u));
	u->https = pt->https;

	/* scheme */
	if (fold)
		put(b, "http", 4);
	else if (steps & NORM_LOWERCASE_SCHEME_HOST || !pt->has_scheme)
		put(b, pt->https ? "https" : "http", pt->https ? 5 : 4);
	else
		put(b, pt->scheme.p, pt->scheme.n);
	u->scheme_len = (uint16_t)b->n;
	put(b, "://", 3);

	/* userinfo: "user:pass" with an empty password written "user", and
	 * nothing at all for an empty user and password (as browsers do). */
	if (pt->has_user && !(steps & NORM_REMOVE_USERINFO)) {
		const char *c = memchr(pt->user.p, ':', pt->user.n);
		size_t un = c ? (size_t)(c - pt->user.p) : pt->user.n;
		size_t pn = c ? pt->user.n - un - 1 : 0;
		if (un || pn) {
			u->user_off = (uint16_t)b->n;
			put_encoded(b, pt->user.p, un, C_USER, steps);
			if (pn) {
				/* Encoded where it would stand, copied out
				 * for the caller, then written over. */
				putc_(b, ':');
				size_t at = b->n;
				put_encoded(b, c + 1, pn, C_USER, steps);
				size_t n = b->n - at;
				if (o->on_password && !pt->auth_from_base &&
				    n <= sizeof(pw->p) &&
				    !(n == sizeof(NORM_PASSWORD_MASK) - 1 &&
				      !memcmp(b->p + at, NORM_PASSWORD_MASK,
					      n))) {
					pw->n = n;
					memcpy(pw->p, b->p + at, pw->n);
					pw->set = true;
				}
				b->n = at;
				put(b, NORM_PASSWORD_MASK,
				    sizeof(NORM_PASSWORD_MASK) - 1);
			}
			u->user_len = (uint16_t)(b->n - u->user_off);
			u->has_user = 1;
			putc_(b, '@');
		}
	}

	/* host */
	size_t host_off = b->n;
	uint8_t type = NORM_HOST_NAME;
	if (pt->auth_from_base) {
		put(b, pt->host.p, pt->host.n);
		type = pt->host.p[0] == '[' ? NORM_HOST_IPV6
		       : ends_in_number(pt->host.p, pt->host.n)
			       ? NORM_HOST_IPV4
			       : NORM_HOST_NAME;
	} else if ((rc = put_host(b, pt->host, steps, &type))) {
		return rc;
	}
	if (type == NORM_HOST_NAME)
		host_steps(b, host_off, steps);
	u->host_off = (uint16_t)host_off;
	u->host_len = (uint16_t)(b->n - host_off);
	u->host_type = type;

	/* port */
	long port = -1;
	if (pt->has_port && (rc = parse_port(pt->port, &port)))
		return rc;
	long deflt = pt->https ? 443 : 80;
	u->port = (uint16_t)(port >= 0 ? port : deflt);
	bool drop_port = (steps & NORM_REMOVE_DEFAULT_PORT) &&
			 (port < 0 || port == deflt || (fold && port == 80));
	if (pt->has_port && !drop_port) {
		putc_(b, ':');
		u->has_port = 1;
		u->port_off = (uint16_t)b->n;
		if (port >= 0) {
			char d[8];
			int k = 0;
			do
				d[k++] = (char)('0' + port % 10);
			while ((port /= 10) > 0);
			while (k)
				putc_(b, d[--k]);
		}
		u->port_len = (uint16_t)(b->n - u->port_off);
	}

	/* path */
	size_t path_off = b->n;
	put_encoded(b, pt->path.p, pt->path.n, C_PATH, steps);
	path_steps(b, path_off, steps, pt->resolved);
	u->path_off = (uint16_t)path_off;
	u->path_len = (uint16_t)(b->n - path_off);

	/* query */
	if (pt->has_query) {
		putc_(b, '?');
		size_t qoff = b->n;
		put_encoded(b, pt->query.p, pt->query.n, C_QUERY, steps);
		if ((steps & PARAM_STEPS) && (rc = query_steps(b, qoff, o)))
			return rc;
		if ((steps & NORM_REMOVE_EMPTY_QUERY) && b->n == qoff) {
			b->n--;
		} else {
			u->has_query = 1;
			u->query_off = (uint16_t)qoff;
			u->query_len = (uint16_t)(b->n - qoff);
		}
	}

	/* fragment */
	if (pt->has_frag && !(steps & NORM_REMOVE_FRAGMENT)) {
		putc_(b, '#');
		size_t foff = b->n;
		put_encoded(b, pt->frag.p, pt->frag.n, C_QUERY, steps);
		u->has_fragment = 1;
		u->frag_off = (uint16_t)foff;
		u->frag_len = (uint16_t)(b->n - foff);
	}
	return 0;
}

/* Take what a relative reference lacks from the base (RFC 3986 §5.2.2),
 * merging paths (§5.2.3) into merge[]. */
static void resolve(struct parts *pt, const struct norm_base *base, char *merge)
{
	const struct norm_url *bu = &base->u;
	const char *bs = base->buf;

	pt->resolved = true;
	pt->https = bu->https;
	if (pt->has_auth)
		return; /* network-path reference: only the scheme is taken */

	pt->has_auth = true;
	pt->auth_from_base = true;
	pt->has_user = bu->has_user;
	pt->user = (struct span){ bs + bu->user_off, bu->user_len };
	pt->host = (struct span){ bs + bu->host_off, bu->host_len };
	pt->has_port = bu->has_port;
	pt->port = (struct span){ bs + bu->port_off, bu->port_len };

	struct span bpath = { bs + bu->path_off, bu->path_len };
	if (pt->path.n == 0) {
		pt->path = bpath;
		if (!pt->has_query) {
			pt->has_query = bu->has_query;
			pt->query = (struct span){ bs + bu->query_off,
						   bu->query_len };
		}
	} else if (pt->path.p[0] != '/') {
		size_t keep = bpath.n;
		while (keep && bpath.p[keep - 1] != '/')
			keep--;
		size_t n = 0;
		if (keep == 0)
			merge[n++] = '/';
		memcpy(merge + n, bpath.p, keep);
		n += keep;
		memcpy(merge + n, pt->path.p, pt->path.n);
		n += pt->path.n;
		pt->path = (struct span){ merge, n };
	}
}

static int finish(const struct buf *b, struct norm_url *u, char *out,
		  size_t cap);

int norm_url(const struct norm_opts *opts, const struct norm_base *base,
	     const char *in, size_t len, char *out, size_t cap,
	     struct norm_url *ret)
{
	char w[NORM_INPUT_MAX];
	char merge[NORM_URL_MAX + NORM_INPUT_MAX + 1];
	char scratch[SCRATCH_MAX];
	struct parts pt;
	struct norm_url local, *u = ret ? ret : &local;
	size_t wn;
	int rc;

	if (cap)
		out[0] = '\0';
	if (!opts || (!in && len))
		return SC_E_INVAL;
	const char *pw;
	if ((rc = prepare(in, len, w, &pw, &wn)))
		return rc;
	if (wn == 0 && !base)
		return SC_E_EMPTY;
	memset(&pt, 0, offsetof(struct parts, scheme));
	if ((rc = split(pw, wn, base != NULL, base && base->u.https, &pt)))
		return rc;
	if (!pt.has_scheme)
		resolve(&pt, base, merge);
	else if (!pt.has_auth)
		return SC_E_NOHOST;

	struct buf b = { scratch, 0 };
	struct masked pwd;
	pwd.set = false;
	if ((rc = emit(&pt, opts, &b, u, &pwd)) ||
	    (rc = finish(&b, u, out, cap)))
		return rc;
	if (pwd.set)
		opts->on_password(opts->on_password_arg, out, u, pwd.p, pwd.n);
	return 0;
}

/* Under fold_https the URL to fetch is longer than the key ("https", maybe
 * a port): both must fit NORM_URL_MAX.  The key b (u) into out. */
static int finish(const struct buf *b, struct norm_url *u, char *out,
		  size_t cap)
{
	size_t fetch_n = b->n;
	if (u->https && u->scheme_len == 4) {
		fetch_n++;
		if (u->port != 443 && !u->has_port) /* ":80" comes back */
			fetch_n += 2 + (u->port >= 10) + (u->port >= 100) +
				   (u->port >= 1000) + (u->port >= 10000);
	}
	if (fetch_n > NORM_URL_MAX)
		return SC_E_TOOLONG;
	if (b->n >= cap)
		return SC_E_NOSPC;
	memcpy(out, b->p, b->n);
	out[b->n] = '\0';
	u->len = (uint16_t)b->n;
	return 0;
}

/* norm_restep()'s scheme, userinfo, host and port, when a step changes
 * one of them. */
static void restep_prefix(struct buf *b, const char *url,
			  const struct norm_url *u, uint32_t steps, bool fold,
			  struct norm_url *r)
{
	memset(r, 0, sizeof(*r));
	r->https = u->https;
	if (fold)
		put(b, "http", 4);
	else
		put(b, url, u->scheme_len);
	r->scheme_len = (uint16_t)b->n;
	put(b, "://", 3);
	if (u->has_user && !(steps & NORM_REMOVE_USERINFO)) {
		r->has_user = 1;
		r->user_off = (uint16_t)b->n;
		put(b, url + u->user_off, u->user_len);
		r->user_len = u->user_len;
		putc_(b, '@');
	}
	size_t host_off = b->n;
	put(b, url + u->host_off, u->host_len);
	if (u->host_type == NORM_HOST_NAME)
		host_steps(b, host_off, steps);
	r->host_off = (uint16_t)host_off;
	r->host_len = (uint16_t)(b->n - host_off);
	r->host_type = u->host_type;
	r->port = u->port;
	/* A port the input kept is not its scheme's default, except ":80"
	 * on https, which folding makes one. */
	if (u->has_port &&
	    !((steps & NORM_REMOVE_DEFAULT_PORT) && fold && u->port == 80)) {
		putc_(b, ':');
		r->has_port = 1;
		r->port_off = (uint16_t)b->n;
		put(b, url + u->port_off, u->port_len);
		r->port_len = u->port_len;
	}
}

int norm_restep(const struct norm_opts *opts, const char *url,
		const struct norm_url *in, char *out, size_t cap,
		struct norm_url *ret)
{
	const struct norm_url copy = *in, *u = &copy; /* ret may be in */
	char scratch[SCRATCH_MAX];
	struct buf b = { scratch, 0 };
	struct norm_url local, *r = ret ? ret : &local;
	uint32_t steps = opts->steps;
	bool fold = u->https && (steps & NORM_FOLD_HTTPS);
	int rc;

	if (cap)
		out[0] = '\0';
	if (!fold && !(u->has_user && (steps & NORM_REMOVE_USERINFO)) &&
	    !(u->host_type == NORM_HOST_NAME &&
	      (steps & (NORM_REMOVE_TRAILING_HOST_DOT | NORM_REMOVE_WWW)))) {
		/* Nothing before the path changes: the common case (a
		 * host's learned path and query rules), copied at once. */
		*r = *u;
		r->has_query = r->has_fragment = 0;
		r->query_off = r->query_len = r->frag_off = r->frag_len = 0;
		put(&b, url, u->path_off);
	} else {
		restep_prefix(&b, url, u, steps, fold, r);
	}
	/* The strict steps have done their work on the path already, and
	 * the others never make work for them (no step writes a dot
	 * segment or an empty path). */
	size_t path_off = b.n;
	put(&b, url + u->path_off, u->path_len);
	path_steps(&b, path_off, steps & ~STRICT_STEPS, false);
	r->path_off = (uint16_t)path_off;
	r->path_len = (uint16_t)(b.n - path_off);
	if (u->has_query) {
		putc_(&b, '?');
		size_t qoff = b.n;
		put(&b, url + u->query_off, u->query_len);
		if ((steps & PARAM_STEPS) && (rc = query_steps(&b, qoff, opts)))
			return rc;
		if ((steps & NORM_REMOVE_EMPTY_QUERY) && b.n == qoff) {
			b.n--;
		} else {
			r->has_query = 1;
			r->query_off = (uint16_t)qoff;
			r->query_len = (uint16_t)(b.n - qoff);
		}
	}
	if (u->has_fragment && !(steps & NORM_REMOVE_FRAGMENT)) {
		putc_(&b, '#');
		r->has_fragment = 1;
		r->frag_off = (uint16_t)b.n;
		put(&b, url + u->frag_off, u->frag_len);
		r->frag_len = u->frag_len;
	}
	return finish(&b, r, out, cap);
}

int norm_base_set(struct norm_base *base, const struct norm_base *relative_to,
		  const char *href, size_t len)
{
	static const struct norm_opts strict = { .steps = STRICT_STEPS };
	char tmp[NORM_URL_MAX + 1];
	struct norm_url u;
	int rc = norm_url(&strict, relative_to, href, len, tmp, sizeof(tmp),
			  &u);
	if (rc)
		return rc;
	memcpy(base->buf, tmp, (size_t)u.len + 1);
	base->u = u;
	return 0;
}

int norm_fetch_url(const char *url, const struct norm_url *u, char *out,
		   size_t cap)
{
	/* Everything before the fragment. */
	size_t n = u->has_fragment ? (size_t)u->frag_off - 1 : u->len;
	bool folded = u->https && u->scheme_len == 4;

	if (!folded) {
		if (n >= cap)
			return SC_E_NOSPC;
		memcpy(out, url, n);
		out[n] = '\0';
		return 0;
	}
	/* "http://" + authority up to the port, the real port, the rest. */
	size_t auth_end = (size_t)u->host_off + u->host_len;
	size_t rest = u->path_off;
	char port[8] = "";
	int pl = 0;
	if (u->port != 443) {
		int k = 0;
		char d[8];
		unsigned p = u->port;
		do
			d[k++] = (char)('0' + p % 10);
		while ((p /= 10) > 0);
		port[pl++] = ':';
		while (k)
			port[pl++] = d[--k];
	}
	size_t total = 1 + (auth_end) + (size_t)pl + (n - rest);
	if (total >= cap)
		return SC_E_NOSPC;
	char *d = out;
	memcpy(d, "https", 5);
	d += 5;
	memcpy(d, url + 4, auth_end - 4);
	d += auth_end - 4;
	memcpy(d, port, (size_t)pl);
	d += pl;
	memcpy(d, url + rest, n - rest);
	d += n - rest;
	*d = '\0';
	return 0;
}

int norm_split(const char *url, size_t len, struct norm_url *ret)
{
	if (len > NORM_URL_MAX)
		return SC_E_TOOLONG;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)url[i] <= 0x20 ||
		    (unsigned char)url[i] >= 0x7f)
			return SC_E_INVAL;
	struct norm_url *u = ret;
	memset(u, 0, sizeof(*u));
	u->len = (uint16_t)len;

	/* The scheme as written: lowercase_scheme_host may have been off. */
	const char *colon = memchr(url, ':', len);
	size_t sl = colon ? (size_t)(colon - url) : 0;
	if (!colon ||
	    !(eq_nocase(url, sl, "http") || eq_nocase(url, sl, "https")))
		return SC_E_SCHEME;
	if (len - sl < 3 || url[sl + 1] != '/' || url[sl + 2] != '/')
		return SC_E_SCHEME;
	u->scheme_len = (uint16_t)sl;
	u->https = sl == 5;

	/* The authority ends at the first '/', '?' or '#'.  norm_url()
	 * writes '@' in it only as the end of the userinfo: a host cannot
	 * hold one and a userinfo's own is percent-encoded. */
	size_t a = sl + 3, e = a;
	const char *at = NULL;
	for (; e < len; e++) {
		uint8_t k = auth_stop[(unsigned char)url[e]];
		if (k == 1)
			break;
		if (k == 2)
			at = url + e;
	}
	size_t h = a;
	if (at) {
		u->has_user = 1;
		u->user_off = (uint16_t)a;
		u->user_len = (uint16_t)(at - url - (ptrdiff_t)a);
		h = (size_t)(at - url) + 1;
	}
	size_t he; /* the host's end */
	if (h < e && url[h] == '[') {
		const char *rb = memchr(url + h, ']', e - h);
		if (!rb)
			return SC_E_IPV6;
		he = (size_t)(rb - url) + 1;
		if (he != e && url[he] != ':')
			return SC_E_IPV6;
		u->host_type = NORM_HOST_IPV6;
	} else {
		const char *c = memchr(url + h, ':', e - h);
		he = c ? (size_t)(c - url) : e;
		/* A name that went through no IDNA keeps its UTF-8
		 * percent-encoded, and norm_url() tests such a host for a
		 * number only after decoding it: '%' means a name. */
		u->host_type = !memchr(url + h, '%', he - h) &&
					       ends_in_number(url + h, he - h)
				       ? NORM_HOST_IPV4
				       : NORM_HOST_NAME;
	}
	if (he == h)
		return SC_E_NOHOST;
	u->host_off = (uint16_t)h;
	u->host_len = (uint16_t)(he - h);
	long port = -1;
	if (he < e) {
		u->has_port = 1;
		u->port_off = (uint16_t)(he + 1);
		u->port_len = (uint16_t)(e - he - 1);
		int rc = parse_port((struct span){ url + he + 1, e - he - 1 },
				    &port);
		if (rc)
			return rc;
	}
	u->port = (uint16_t)(port >= 0 ? port : u->https ? 443 : 80);

	/* Path, query and fragment: the same split as any URL's. */
	struct parts pt;
	pt.has_query = pt.has_frag = false;
	split_rest(url + e, len - e, &pt);
	u->path_off = (uint16_t)e;
	u->path_len = (uint16_t)pt.path.n;
	if (pt.has_query) {
		u->has_query = 1;
		u->query_off = (uint16_t)(pt.query.p - url);
		u->query_len = (uint16_t)pt.query.n;
	}
	if (pt.has_frag) {
		u->has_fragment = 1;
		u->frag_off = (uint16_t)(pt.frag.p - url);
		u->frag_len = (uint16_t)pt.frag.n;
	}
	return 0;
}

int norm_tracking_list(const struct norm_opts *opts, char *out, size_t cap)
{
	size_t n = opts->tracking ? opts->n_tracking
				  : sizeof(default_tracking) /
					    sizeof(*default_tracking);
	size_t k = 0;
	if (!cap)
		return SC_E_NOSPC;
	for (size_t i = 0; i < n; i++) {
		const char *s = opts->tracking ? opts->tracking[i]
					       : default_tracking[i].s;
		size_t l = strlen(s);
		if (k + (i > 0) + l >= cap) {
			out[0] = '\0';
			return SC_E_NOSPC;
		}
		if (i > 0)
			out[k++] = ',';
		memcpy(out + k, s, l);
		k += l;
	}
	out[k] = '\0';
	return 0;
}
