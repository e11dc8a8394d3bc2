/* test-corpus.c — properties of norm_url() over a large generated corpus.
 *
 * Unit tests pin down known cases; this test checks the promises that must
 * hold for every input, on some tens of thousands of realistic links from
 * urlgen: idempotence, re-parseable output, RFC 3986 characters only,
 * consistent component offsets, the visible effect of each enabled step,
 * and that the profiles compose (extended(strict(x)) == extended(x)).
 *
 * A CHECK counts one (configuration, property) pair, whatever the number
 * of links, so that a systematic bug shows as a few failures with the
 * first offending links printed, not as a million lines.
 *
 * SC_CORPUS_SEED=N adds a run with another seed (to reproduce a fuzzing
 * find or widen the search); SC_CORPUS_COUNT=N changes the corpus size;
 * SC_CORPUS_SHOW=N shows up to N offending links per property and in all
 * (default 3 and 60).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "normalize.h"
#include "urlgen.h"

#define FIXED_SEED 0x5eedc0ffee2024u
#define DEFAULT_COUNT 20000
#define N_RANDOM_MASKS 6
#define ALL_STEPS ((1u << NORM_STEP_COUNT) - 1)

/* Print at most this many offending links per (configuration, property),
 * and this many in all. */
#define SHOW_PER_PROPERTY 3
#define SHOW_TOTAL 60

enum prop {
	P_IDEMPOTENT, /* norm_url(norm_url(x)) == norm_url(x) */
	P_REPARSE,    /* the output is accepted by every profile */
	P_LENGTH,     /* at most NORM_URL_MAX bytes, strlen == len */
	P_CHARS,      /* RFC 3986 characters only, per component */
	P_SCHEME,     /* http:// or https://, case as the steps say */
	P_STEPS,      /* each enabled step left no trace of its target */
	P_SPANS,      /* struct norm_url agrees with the string */
	P_ERRORS,     /* error contract: out[0] == 0, a known code, NOSPC */
	P_FETCH,      /* norm_fetch_url() gives a parseable https/http URL */
	P_COMPOSE,    /* profile(strict(x)) == profile(x), same rejections */
	P_SPLIT,      /* norm_split(output) gives norm_url()'s components */
	P_COUNT
};

static const char *const prop_names[P_COUNT] = {
	"idempotent", "reparse", "length", "chars",   "scheme", "steps",
	"spans",      "errors",  "fetch",  "compose", "split",
};

struct config {
	char name[40];
	uint32_t steps;
	int profile; /* enum norm_profile, or -1 for a bare step mask */
	struct norm_opts opts;
	unsigned long accepted, rejected;
	unsigned long by_error[32]; /* index: -code */
	unsigned long violations[P_COUNT];
	unsigned shown[P_COUNT];
};

static unsigned shown_total;
static unsigned show_per_property = SHOW_PER_PROPERTY;
static unsigned show_total = SHOW_TOTAL;

/* Print a string with control characters escaped, UTF-8 left alone. */
static void print_escaped(FILE *f, const char *s, size_t n)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '\n')
			fputs("\\n", f);
		else if (ch == '\t')
			fputs("\\t", f);
		else if (ch == '\r')
			fputs("\\r", f);
		else if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(f, "\\x%02x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* Count one violation and show the first few with everything needed to
 * reproduce them. */
SC_PRINTF(6, 7)
static void violation(struct config *cfg, enum prop p,
		      const struct urlgen_corpus *c,
		      const struct urlgen_link *l, const char *out,
		      const char *fmt, ...)
{
	va_list ap;

	cfg->violations[p]++;
	if (cfg->shown[p] >= show_per_property || shown_total >= show_total)
		return;
	cfg->shown[p]++;
	shown_total++;
	fprintf(stderr, "[%s] %s: ", cfg->name, prop_names[p]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n    input:  ", stderr);
	print_escaped(stderr, c->text + l->off, l->len);
	if (l->base_len) {
		fputs("\n    base:   ", stderr);
		print_escaped(stderr, c->text + l->base_off, l->base_len);
	}
	if (out) {
		fputs("\n    output: ", stderr);
		print_escaped(stderr, out, strlen(out));
	}
	fputc('\n', stderr);
}

static int is_alpha(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

static int is_digit(int ch)
{
	return ch >= '0' && ch <= '9';
}

static int is_upper(int ch)
{
	return ch >= 'A' && ch <= 'Z';
}

static int hex_value(int ch)
{
	if (is_digit(ch))
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static int is_unreserved(int ch)
{
	return is_alpha(ch) || is_digit(ch) || ch == '-' || ch == '.' ||
	       ch == '_' || ch == '~';
}

static int is_sub_delim(int ch)
{
	return ch && strchr("!$&'()*+,;=", ch) != NULL;
}

/* Components, for the character rules of RFC 3986 §3. */
enum comp { C_USER, C_HOST, C_PATH, C_QUERY, C_FRAGMENT };

static int allowed_in(enum comp comp, int ch)
{
	if (is_unreserved(ch) || is_sub_delim(ch))
		return 1;
	switch (comp) {
	case C_USER: return ch == ':';
	case C_HOST: return 0; /* IPv6 literals are checked apart */
	case C_PATH: return ch == ':' || ch == '@' || ch == '/';
	case C_QUERY:
	case C_FRAGMENT:
		return ch == ':' || ch == '@' || ch == '/' || ch == '?';
	}
	return 0;
}

/* Check the characters of one component.  Returns a static description
 * of the first problem, or NULL. */
static const char *check_component(const struct config *cfg, enum comp comp,
				   const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int ch = (unsigned char)s[i];
		int hi, lo;

		if (ch != '%') {
			if (!allowed_in(comp, ch))
				return "character not allowed in its component";
			continue;
		}
		if (i + 2 >= n)
			return "'%' without two hex digits";
		hi = hex_value((unsigned char)s[i + 1]);
		lo = hex_value((unsigned char)s[i + 2]);
		if (hi < 0 || lo < 0)
			return "'%' without two hex digits";
		if ((cfg->steps & NORM_UPPERCASE_PERCENT_HEX) &&
		    ((!is_upper(s[i + 1]) && !is_digit(s[i + 1])) ||
		     (!is_upper(s[i + 2]) && !is_digit(s[i + 2]))))
			return "lowercase hex digit in an escape";
		if ((cfg->steps & NORM_DECODE_UNRESERVED) && comp != C_USER &&
		    comp != C_HOST && is_unreserved(hi * 16 + lo))
			return "escaped unreserved character";
		i += 2;
	}
	return NULL;
}

static int starts_with_ci(const char *s, size_t n, const char *prefix)
{
	size_t i, m = strlen(prefix);

	if (n < m)
		return 0;
	for (i = 0; i < m; i++) {
		int a = (unsigned char)s[i], b = (unsigned char)prefix[i];

		if (is_upper(a))
			a += 'a' - 'A';
		if (a != b)
			return 0;
	}
	return 1;
}

static int equal_ci(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && starts_with_ci(s, n, word);
}

/* The default tracking list of SPEC §4, compared byte for byte. */
static int is_tracking_name(const char *s, size_t n)
{
	static const char *const names[] = {
		"fbclid", "gclid", "dclid", "msclkid", "mc_cid",
		"mc_eid", "yclid", "_ga",   "igshid",
	};
	size_t i;

	if (n >= 4 && memcmp(s, "utm_", 4) == 0)
		return 1;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && memcmp(s, names[i], n) == 0)
			return 1;
	return 0;
}

static int is_session_name(const char *s, size_t n)
{
	return equal_ci(s, n, "jsessionid") || equal_ci(s, n, "phpsessid") ||
	       equal_ci(s, n, "sid") || equal_ci(s, n, "sessionid") ||
	       starts_with_ci(s, n, "aspsessionid");
}

struct param {
	const char *s;
	size_t len, name_len; /* name_len == len: no '=' */
};

#define MAX_PARAMS 256

/* Split a query at '&' (the separator every step treats as one). */
static size_t split_query(const char *q, size_t n, struct param *p)
{
	size_t count = 0, start = 0, i;

	if (!n)
		return 0;
	for (i = 0; i <= n && count < MAX_PARAMS; i++) {
		if (i < n && q[i] != '&')
			continue;
		p[count].s = q + start;
		p[count].len = i - start;
		p[count].name_len = p[count].len;
		{
			const char *eq = memchr(q + start, '=', i - start);

			if (eq)
				p[count].name_len = (size_t)(eq - (q + start));
		}
		count++;
		start = i + 1;
	}
	return count;
}

static int bytes_cmp(const char *a, size_t an, const char *b, size_t bn)
{
	int r = memcmp(a, b, an < bn ? an : bn);

	if (r)
		return r;
	return an < bn ? -1 : an > bn;
}

static const char *check_query_steps(uint32_t steps, const char *q, size_t n)
{
	static struct param p[MAX_PARAMS];
	size_t count = split_query(q, n, p), i, j;

	for (i = 0; i < count; i++) {
		if ((steps & NORM_REMOVE_TRACKING_PARAMS) &&
		    is_tracking_name(p[i].s, p[i].name_len))
			return "remove_tracking_params: tracking parameter left";
		if ((steps & NORM_REMOVE_SESSION_IDS) &&
		    is_session_name(p[i].s, p[i].name_len))
			return "remove_session_ids: session parameter left";
		if ((steps & NORM_REMOVE_EMPTY_PARAMS) &&
		    p[i].name_len + 1 == p[i].len)
			return "remove_empty_params: 'name=' left";
		if ((steps & NORM_SORT_QUERY) && i > 0) {
			int r = bytes_cmp(p[i - 1].s, p[i - 1].name_len, p[i].s,
					  p[i].name_len);

			if (r > 0)
				return "sort_query: names out of order";
			if (r == 0 && p[i - 1].name_len < p[i - 1].len &&
			    p[i].name_len < p[i].len &&
			    bytes_cmp(p[i - 1].s, p[i - 1].len, p[i].s,
				      p[i].len) > 0)
				return "sort_query: values out of order";
		}
		if (steps & NORM_REMOVE_DUPLICATE_PARAMS)
			for (j = 0; j < i; j++)
				if (p[j].len == p[i].len &&
				    memcmp(p[j].s, p[i].s, p[i].len) == 0)
					return "remove_duplicate_params: "
					       "duplicate left";
	}
	return NULL;
}

static int is_default_page(const char *s, size_t n)
{
	static const char *const pages[] = {
		"index.html",  "index.htm",    "index.php",   "index.asp",
		"index.aspx",  "index.jsp",    "default.htm", "default.html",
		"default.asp", "default.aspx",
	};
	size_t i;

	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		if (strlen(pages[i]) == n && memcmp(s, pages[i], n) == 0)
			return 1;
	return 0;
}

static const char *check_path_steps(uint32_t steps, const char *p, size_t n)
{
	size_t i, seg = 0;

	if ((steps & NORM_EMPTY_PATH_SLASH) && n == 0)
		return "empty_path_slash: empty path";
	if ((steps & NORM_COLLAPSE_SLASHES) && n >= 2 && memmem(p, n, "//", 2))
		return "collapse_slashes: '//' left";
	if (steps & NORM_LOWERCASE_PATH)
		for (i = 0; i < n; i++) {
			if (p[i] == '%')
				i += 2;
			else if (is_upper((unsigned char)p[i]))
				return "lowercase_path: uppercase letter left";
		}
	/* The one exception: a parameter on a segment that would read "."
	 * or ".." without it stays (see drop_path_session()). */
	if (steps & NORM_REMOVE_SESSION_IDS)
		for (i = 0; i < n; i++) {
			size_t s = i;

			if (p[i] != ';' || !starts_with_ci(p + i + 1, n - i - 1,
							   "jsessionid="))
				continue;
			while (s > 0 && p[s - 1] != '/')
				s--;
			if ((i - s == 1 && p[s] == '.') ||
			    (i - s == 2 && p[s] == '.' && p[s + 1] == '.'))
				continue;
			return "remove_session_ids: ;jsessionid= left";
		}
	/* Segment checks: walk the segments after each '/'. */
	for (i = 0; i <= n; i++) {
		size_t len;

		if (i < n && p[i] != '/')
			continue;
		len = i - seg;
		if ((steps & NORM_REMOVE_DOT_SEGMENTS) &&
		    ((len == 1 && p[seg] == '.') ||
		     (len == 2 && p[seg] == '.' && p[seg + 1] == '.')))
			return "remove_dot_segments: dot segment left";
		if (i == n) {
			if ((steps & NORM_REMOVE_DEFAULT_PAGE) &&
			    is_default_page(p + seg, len))
				return "remove_default_page: default page left";
			if ((steps & NORM_ADD_TRAILING_SLASH) && len &&
			    !memchr(p + seg, '.', len))
				return "add_trailing_slash: last segment without "
				       "'.' and no '/'";
		}
		seg = i + 1;
	}
	return NULL;
}

static const char *check_host_steps(uint32_t steps, const struct norm_url *u,
				    const char *h, size_t n)
{
	size_t i, dots = 0;

	if ((steps & NORM_LOWERCASE_SCHEME_HOST))
		for (i = 0; i < n; i++) {
			if (h[i] == '%')
				i += 2; /* hex digits are
					   uppercase_percent_hex's */
			else if (is_upper((unsigned char)h[i]))
				return "lowercase_scheme_host: uppercase host";
		}
	if (!n)
		return NULL;
	if ((steps & NORM_REMOVE_TRAILING_HOST_DOT) && h[n - 1] == '.' &&
	    u->host_type == NORM_HOST_NAME)
		return "remove_trailing_host_dot: trailing dot left";
	for (i = 0; i < n; i++)
		dots += h[i] == '.';
	if ((steps & NORM_REMOVE_WWW) && u->host_type == NORM_HOST_NAME &&
	    starts_with_ci(h, n, "www.") && dots - (h[n - 1] == '.') >= 2)
		return "remove_www: 'www.' left with two labels after it";
	return NULL;
}

/* Check everything that can be seen in one successful result. */
static void check_result(struct config *cfg, const struct urlgen_corpus *c,
			 const struct urlgen_link *l, const char *out,
			 const struct norm_url *u)
{
	uint32_t steps = cfg->steps;
	size_t len = strlen(out);
	size_t slen = u->scheme_len;
	const char *why;
	char re[NORM_URL_MAX * 2 + 16];
	size_t rn = 0;

	/* (c) length */
	if (len > NORM_URL_MAX || len != u->len)
		violation(cfg, P_LENGTH, c, l, out,
			  "strlen %zu, u.len %u, limit %d", len, u->len,
			  NORM_URL_MAX);

	/* (c) scheme */
	if (!(starts_with_ci(out, len, "http://") ||
	      starts_with_ci(out, len, "https://")) ||
	    ((steps & NORM_LOWERCASE_SCHEME_HOST) &&
	     strncmp(out, "http://", 7) != 0 &&
	     strncmp(out, "https://", 8) != 0) ||
	    ((steps & NORM_FOLD_HTTPS) && !starts_with_ci(out, len, "http://")))
		violation(cfg, P_SCHEME, c, l, out, "bad scheme");

	/* (d) spans: every component inside the string, in order, and the
	 * string rebuilt from them equal to the output. */
	if (u->len != len || out[u->len] != '\0' ||
	    u->user_off + u->user_len > len ||
	    u->host_off + u->host_len > len ||
	    u->port_off + u->port_len > len ||
	    u->path_off + u->path_len > len ||
	    u->query_off + u->query_len > len ||
	    u->frag_off + u->frag_len > len || (slen != 4 && slen != 5)) {
		violation(cfg, P_SPANS, c, l, out, "offset out of range");
		return;
	}
	memcpy(re, out, slen);
	rn = slen;
	memcpy(re + rn, "://", 3);
	rn += 3;
	if (u->has_user) {
		memcpy(re + rn, out + u->user_off, u->user_len);
		rn += u->user_len;
		re[rn++] = '@';
	}
	memcpy(re + rn, out + u->host_off, u->host_len);
	rn += u->host_len;
	/* An empty port (":" kept when remove_default_port is off) has
	 * port_len 0 and a port_off pointing after the ':'. */
	if (u->port_len || u->port_off) {
		re[rn++] = ':';
		memcpy(re + rn, out + u->port_off, u->port_len);
		rn += u->port_len;
	}
	memcpy(re + rn, out + u->path_off, u->path_len);
	rn += u->path_len;
	if (u->has_query) {
		re[rn++] = '?';
		memcpy(re + rn, out + u->query_off, u->query_len);
		rn += u->query_len;
	}
	if (u->has_fragment) {
		re[rn++] = '#';
		memcpy(re + rn, out + u->frag_off, u->frag_len);
		rn += u->frag_len;
	}
	re[rn] = '\0';
	if (strcmp(re, out) != 0)
		violation(cfg, P_SPANS, c, l, out, "components rebuild \"%s\"",
			  re);
	else if (u->path_len && out[u->path_off] != '/')
		violation(cfg, P_SPANS, c, l, out,
			  "path does not start with '/'");
	else if (u->host_len == 0)
		violation(cfg, P_SPANS, c, l, out, "empty host");
	else if ((u->host_type == NORM_HOST_IPV6) != (out[u->host_off] == '['))
		violation(cfg, P_SPANS, c, l, out, "host_type %u vs host",
			  u->host_type);
	else if (slen == 5 && !u->https)
		violation(cfg, P_SPANS, c, l, out,
			  "https scheme, https flag 0");
	else if (slen == 4 && u->https && !(steps & NORM_FOLD_HTTPS))
		violation(cfg, P_SPANS, c, l, out, "http scheme, https flag 1");
	else if (u->port_len) {
		unsigned long v = strtoul(out + u->port_off, NULL, 10);

		if (v != u->port ||
		    (u->port_len > 1 && out[u->port_off] == '0'))
			violation(cfg, P_SPANS, c, l, out,
				  "port text vs u.port %u", u->port);
	} else if (u->port != (u->https ? 443 : 80) &&
		   !((steps & NORM_FOLD_HTTPS) && u->https && u->port == 80)) {
		/* fold_https drops ":80" of an https URL too, since it
		 * compares as http. */
		violation(cfg, P_SPANS, c, l, out, "no port, u.port %u",
			  u->port);
	}

	/* (c) characters, component by component */
	why = NULL;
	if (u->has_user)
		why = check_component(cfg, C_USER, out + u->user_off,
				      u->user_len);
	if (!why && u->host_type != NORM_HOST_IPV6)
		why = check_component(cfg, C_HOST, out + u->host_off,
				      u->host_len);
	if (!why && u->host_type == NORM_HOST_IPV6) {
		size_t i;

		for (i = u->host_off + 1; i + 1 < u->host_off + u->host_len;
		     i++)
			if (hex_value((unsigned char)out[i]) < 0 &&
			    out[i] != ':' && out[i] != '.')
				why = "bad character in IPv6 literal";
	}
	if (!why)
		why = check_component(cfg, C_PATH, out + u->path_off,
				      u->path_len);
	if (!why && u->has_query)
		why = check_component(cfg, C_QUERY, out + u->query_off,
				      u->query_len);
	if (!why && u->has_fragment)
		why = check_component(cfg, C_FRAGMENT, out + u->frag_off,
				      u->frag_len);
	if (why)
		violation(cfg, P_CHARS, c, l, out, "%s", why);

	/* the visible effect of each enabled step */
	why = check_host_steps(steps, u, out + u->host_off, u->host_len);
	if (!why)
		why = check_path_steps(steps, out + u->path_off, u->path_len);
	if (!why && u->has_query)
		why = check_query_steps(steps, out + u->query_off,
					u->query_len);
	if (!why && (steps & NORM_REMOVE_FRAGMENT) && u->has_fragment)
		why = "remove_fragment: fragment left";
	if (!why && (steps & NORM_REMOVE_EMPTY_QUERY) && u->has_query &&
	    !u->query_len)
		why = "remove_empty_query: '?' left";
	if (!why && (steps & NORM_REMOVE_USERINFO) && u->has_user)
		why = "remove_userinfo: userinfo left";
	if (!why && (steps & NORM_REMOVE_DEFAULT_PORT) && u->port_len &&
	    u->port == (u->https ? 443 : 80))
		why = "remove_default_port: default port left";
	if (why)
		violation(cfg, P_STEPS, c, l, out, "%s", why);
}

/* Field by field: padding bytes may differ between two equal results.
 * folded: a is the result of an https URL under fold_https, whose written
 * form no longer says https, so b (its reparse) cannot know it. */
static int norm_url_equal(const struct norm_url *a, const struct norm_url *b,
			  int folded)
{
	if (folded) {
		struct norm_url a2 = *a;

		a2.https = b->https;
		a2.port = b->port;
		return norm_url_equal(&a2, b, 0);
	}
	return a->len == b->len && a->scheme_len == b->scheme_len &&
	       a->user_off == b->user_off && a->user_len == b->user_len &&
	       a->host_off == b->host_off && a->host_len == b->host_len &&
	       a->port_off == b->port_off && a->port_len == b->port_len &&
	       a->path_off == b->path_off && a->path_len == b->path_len &&
	       a->query_off == b->query_off && a->query_len == b->query_len &&
	       a->frag_off == b->frag_off && a->frag_len == b->frag_len &&
	       a->port == b->port && a->https == b->https &&
	       a->has_user == b->has_user && a->has_port == b->has_port &&
	       a->has_query == b->has_query &&
	       a->has_fragment == b->has_fragment &&
	       a->host_type == b->host_type;
}

/* One norm_url() call with the error contract checked on failure: out[0]
 * is '\0' (*ret is unspecified on error, by the header). */
static int run_one(struct config *cfg, const struct urlgen_corpus *c,
		   const struct urlgen_link *l, const struct norm_opts *opts,
		   const struct norm_base *base, const char *in, size_t len,
		   char *out, struct norm_url *u)
{
	int rc;

	memset(u, 0xa5, sizeof(*u));
	out[0] = 'x';
	rc = norm_url(opts, base, in, len, out, NORM_URL_MAX + 1, u);
	if (rc != 0 && out[0] != '\0')
		violation(cfg, P_ERRORS, c, l, NULL,
			  "error %d (%s) but out[0] written", rc,
			  sc_strerror(rc));
	if (rc > 0 || rc < -31)
		violation(cfg, P_ERRORS, c, l, NULL, "return value %d", rc);
	return rc;
}

/* The URL to request: the output without its fragment, with "https"
 * back when fold_https wrote "http", and the same resource under strict
 * rules (it parses, and only the scheme and port may differ). */
static void check_fetch(struct config *cfg, const struct urlgen_corpus *c,
			const struct urlgen_link *l, const char *out,
			const struct norm_url *u)
{
	static char fetch[NORM_URL_MAX + 16], again[NORM_URL_MAX + 1];
	struct norm_opts none = { 0 };
	struct norm_url fu;
	size_t n = u->has_fragment ? (size_t)u->frag_off - 1 : u->len;
	int rc = norm_fetch_url(out, u, fetch, sizeof(fetch));

	if (rc != 0) {
		violation(cfg, P_FETCH, c, l, out, "norm_fetch_url: %s",
			  sc_strerror(rc));
		return;
	}
	if (strchr(fetch, '#'))
		violation(cfg, P_FETCH, c, l, out, "fetch URL \"%s\" has '#'",
			  fetch);
	else if (u->https != starts_with_ci(fetch, strlen(fetch), "https://"))
		violation(cfg, P_FETCH, c, l, out,
			  "fetch URL \"%s\" for https flag %u", fetch,
			  u->https);
	else if (!(u->https && u->scheme_len == 4) &&
		 (strlen(fetch) != n || memcmp(fetch, out, n) != 0))
		violation(cfg, P_FETCH, c, l, out,
			  "fetch URL \"%s\" differs from the output", fetch);
	else if ((rc = norm_url(&none, NULL, fetch, strlen(fetch), again,
				sizeof(again), &fu)) != 0)
		violation(cfg, P_FETCH, c, l, out,
			  "fetch URL \"%s\" rejected: %s", fetch,
			  sc_strerror(rc));
	else if (fu.port != u->port || fu.https != u->https)
		violation(cfg, P_FETCH, c, l, out,
			  "fetch URL \"%s\" connects to port %u, https %u",
			  fetch, fu.port, fu.https);
}

static const enum norm_profile reparse_profiles[] = {
	NORM_PROFILE_STRICT,
	NORM_PROFILE_EXTENDED,
	NORM_PROFILE_AGGRESSIVE,
};

/* Results of the four profiles for one link, for (e). */
struct profile_results {
	int rc[4];
	char out[4][NORM_URL_MAX + 1];
};

static void check_link(struct config *cfg, const struct urlgen_corpus *c,
		       const struct urlgen_link *l,
		       const struct norm_base *base, struct profile_results *t)
{
	static char out[NORM_URL_MAX + 1], again[NORM_URL_MAX + 1];
	static char small[NORM_URL_MAX + 1];
	struct norm_url u, u2;
	size_t i;
	int rc;

	rc = run_one(cfg, c, l, &cfg->opts, base, c->text + l->off, l->len, out,
		     &u);
	if (cfg->profile >= NORM_PROFILE_STRICT &&
	    cfg->profile <= NORM_PROFILE_ADAPTIVE) {
		t->rc[cfg->profile] = rc;
		memcpy(t->out[cfg->profile], out, strlen(out) + 1);
	}
	if (rc != 0) {
		cfg->rejected++;
		cfg->by_error[-rc & 31]++;
		return;
	}
	cfg->accepted++;
	check_result(cfg, c, l, out, &u);

	/* (a) idempotence */
	rc = run_one(cfg, c, l, &cfg->opts, NULL, out, strlen(out), again, &u2);
	if (rc != 0)
		violation(cfg, P_IDEMPOTENT, c, l, out,
			  "own output rejected: %s", sc_strerror(rc));
	else if (strcmp(out, again) != 0)
		violation(cfg, P_IDEMPOTENT, c, l, out, "second pass \"%s\"",
			  again);
	else if (!norm_url_equal(&u, &u2,
				 (cfg->steps & NORM_FOLD_HTTPS) && u.https))
		violation(cfg, P_IDEMPOTENT, c, l, out,
			  "same string, different struct norm_url");

	/* (b) every profile accepts the output */
	for (i = 0; i < sizeof(reparse_profiles) / sizeof(reparse_profiles[0]);
	     i++) {
		struct norm_opts o = { .steps = norm_profile_steps(
					       reparse_profiles[i]) };

		rc = run_one(cfg, c, l, &o, NULL, out, strlen(out), again, &u2);
		if (rc != 0)
			violation(cfg, P_REPARSE, c, l, out,
				  "profile %zu rejects it: %s", i,
				  sc_strerror(rc));
	}

	check_fetch(cfg, c, l, out, &u);

	/* (f) the frontier splits a stored key without normalizing it
	 * again: the components must be the ones norm_url() gave, except
	 * the scheme and port a folded key no longer says. */
	memset(&u2, 0x5a, sizeof(u2));
	rc = norm_split(out, strlen(out), &u2);
	if (rc != 0)
		violation(cfg, P_SPLIT, c, l, out, "norm_split: %s",
			  sc_strerror(rc));
	else if (!norm_url_equal(&u, &u2,
				 (cfg->steps & NORM_FOLD_HTTPS) && u.https))
		violation(cfg, P_SPLIT, c, l, out,
			  "norm_split gives other components");

	/* A buffer one byte short must give SC_E_NOSPC and an empty string;
	 * tried with the strict profile only, which is enough for the
	 * contract and keeps the test fast. */
	if (cfg->profile == NORM_PROFILE_STRICT) {
		size_t len = strlen(out);

		small[0] = 'x';
		rc = norm_url(&cfg->opts, base, c->text + l->off, l->len, small,
			      len, NULL);
		if (rc != SC_E_NOSPC || small[0] != '\0')
			violation(cfg, P_ERRORS, c, l, out,
				  "cap %zu gives %d (%s), out[0] %#x", len, rc,
				  sc_strerror(rc), (unsigned char)small[0]);
	}
}

/* (e) the profiles compose: a profile applied to the strict form gives
 * what it gives directly, and all profiles reject the same links (bar
 * SC_E_TOOLONG, which depends on how much a profile removes). */
static void check_compose(struct config *cfgs, const struct urlgen_corpus *c,
			  const struct urlgen_link *l,
			  const struct profile_results *t)
{
	const char *adaptive_out = t->out[NORM_PROFILE_ADAPTIVE];
	int adaptive_rc = t->rc[NORM_PROFILE_ADAPTIVE];
	static char out[NORM_URL_MAX + 1];
	struct norm_url u;
	int p;

	for (p = NORM_PROFILE_EXTENDED; p <= NORM_PROFILE_AGGRESSIVE; p++) {
		struct config *cfg = &cfgs[p];
		int rc;

		if (t->rc[0] != t->rc[p]) {
			if (t->rc[0] != SC_E_TOOLONG &&
			    t->rc[p] != SC_E_TOOLONG)
				violation(cfg, P_COMPOSE, c, l, t->out[p],
					  "strict gives %d (%s), %s gives %d "
					  "(%s)",
					  t->rc[0], sc_strerror(t->rc[0]),
					  cfg->name, t->rc[p],
					  sc_strerror(t->rc[p]));
			continue;
		}
		if (t->rc[0] != 0)
			continue;
		rc = norm_url(&cfg->opts, NULL, t->out[0], strlen(t->out[0]),
			      out, sizeof(out), &u);
		if (rc != 0 || strcmp(out, t->out[p]) != 0)
			violation(cfg, P_COMPOSE, c, l, t->out[p],
				  "of strict form \"%s\" gives \"%s\" (%d)",
				  t->out[0], out, rc);
	}
	if (adaptive_rc != t->rc[0] ||
	    (adaptive_rc == 0 && strcmp(adaptive_out, t->out[0]) != 0))
		violation(&cfgs[NORM_PROFILE_ADAPTIVE], P_COMPOSE, c, l,
			  adaptive_out,
			  "adaptive (no rules yet) differs from strict \"%s\"",
			  t->out[0]);
}

static const char *error_name(int code)
{
	switch (code) {
	case SC_E_EMPTY: return "EMPTY";
	case SC_E_SCHEME: return "SCHEME";
	case SC_E_NOHOST: return "NOHOST";
	case SC_E_PORT: return "PORT";
	case SC_E_HOST_PERCENT: return "HOST_PERCENT";
	case SC_E_IPV6: return "IPV6";
	case SC_E_IDN: return "IDN";
	case SC_E_TOOLONG: return "TOOLONG";
	case SC_E_HOST: return "HOST";
	case SC_E_RELATIVE: return "RELATIVE";
	case SC_E_NOSPC: return "NOSPC";
	default: return "other";
	}
}

static void setup_configs(struct config *cfgs, size_t *n, uint64_t seed)
{
	static const char *const names[] = { "strict", "extended", "aggressive",
					     "adaptive" };
	uint64_t st = seed;
	size_t i;

	memset(cfgs, 0, sizeof(*cfgs) * (4 + 2 + N_RANDOM_MASKS));
	for (i = 0; i < 4; i++) {
		enum norm_profile p;

		if (norm_profile_parse(names[i], &p) != 0 ||
		    p != (enum norm_profile)i) {
			fprintf(stderr, "norm_profile_parse(\"%s\") failed\n",
				names[i]);
			CHECK(!"profile names");
		}
		snprintf(cfgs[i].name, sizeof(cfgs[i].name), "%s", names[i]);
		cfgs[i].profile = (int)i;
		cfgs[i].steps = norm_profile_steps((enum norm_profile)i);
	}
	snprintf(cfgs[4].name, sizeof(cfgs[4].name), "steps 0x000000");
	cfgs[4].profile = -1;
	cfgs[4].steps = 0;
	snprintf(cfgs[5].name, sizeof(cfgs[5].name), "steps 0x%06x", ALL_STEPS);
	cfgs[5].profile = -1;
	cfgs[5].steps = ALL_STEPS;
	for (i = 6; i < 6 + N_RANDOM_MASKS; i++) {
		/* splitmix64 again: the masks depend on the seed only */
		uint64_t z = (st += 0x9e3779b97f4a7c15u);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
		z ^= z >> 31;
		cfgs[i].profile = -1;
		cfgs[i].steps = (uint32_t)z & ALL_STEPS;
		snprintf(cfgs[i].name, sizeof(cfgs[i].name), "steps 0x%06x",
			 cfgs[i].steps);
	}
	*n = 6 + N_RANDOM_MASKS;
	for (i = 0; i < *n; i++)
		cfgs[i].opts.steps = cfgs[i].steps;
}

static void report(struct config *cfgs, size_t n, unsigned long bad_bases)
{
	size_t i;
	int p;

	printf("%-16s %8s %8s", "config", "accepted", "rejected");
	for (p = 0; p < P_COUNT; p++)
		printf(" %*s", (int)strlen(prop_names[p]), prop_names[p]);
	printf("\n");
	for (i = 0; i < n; i++) {
		struct config *cfg = &cfgs[i];

		printf("%-16s %8lu %8lu", cfg->name, cfg->accepted,
		       cfg->rejected);
		for (p = 0; p < P_COUNT; p++)
			printf(" %*lu", (int)strlen(prop_names[p]),
			       cfg->violations[p]);
		printf("\n");
	}
	for (i = 0; i < n; i++) {
		struct config *cfg = &cfgs[i];
		int code;

		if (i > 0 && memcmp(cfg->by_error, cfgs[0].by_error,
				    sizeof(cfg->by_error)) == 0)
			continue;
		printf("rejected by %s:", cfg->name);
		for (code = 1; code < 32; code++)
			if (cfg->by_error[code])
				printf(" %s %lu", error_name(-code),
				       cfg->by_error[code]);
		printf("\n");
	}
	if (i > 1)
		printf("(configurations not listed reject like strict)\n");

	/* One CHECK per (configuration, property). */
	for (i = 0; i < n; i++)
		for (p = 0; p < P_COUNT; p++) {
			unsigned long violations = cfgs[i].violations[p];

			if (violations)
				fprintf(stderr, "FAIL [%s] %s: %lu links\n",
					cfgs[i].name, prop_names[p],
					violations);
			CHECK(violations == 0);
		}
	if (bad_bases)
		fprintf(stderr, "FAIL %lu generated bases rejected\n",
			bad_bases);
	CHECK(bad_bases == 0);
}

static void run_corpus(uint64_t seed, size_t count)
{
	static struct config cfgs[4 + 2 + N_RANDOM_MASKS];
	static struct norm_base base;
	static struct profile_results t;
	struct urlgen_corpus c;
	size_t n_cfgs, i, j;
	size_t base_off = (size_t)-1;
	int base_ok = 0;
	unsigned long bad_bases = 0;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	urlgen_corpus_build(&c, seed, count, 0);
	setup_configs(cfgs, &n_cfgs, seed);
	printf("seed %#llx: %zu links, %zu relative, %zu pages\n",
	       (unsigned long long)seed, c.n, c.n_relative, c.n_pages);

	for (i = 0; i < c.n; i++) {
		const struct urlgen_link *l = &c.links[i];
		const struct norm_base *b = NULL;

		if (l->base_len) {
			/* Once per page, as the crawler does. */
			if (l->base_off != base_off) {
				int rc;

				base_off = l->base_off;
				rc = norm_base_set(&base, NULL,
						   c.text + l->base_off,
						   l->base_len);
				base_ok = rc == 0;
				if (!base_ok) {
					bad_bases++;
					fprintf(stderr, "base rejected (%s): ",
						sc_strerror(rc));
					print_escaped(stderr,
						      c.text + l->base_off,
						      l->base_len);
					fputc('\n', stderr);
				}
			}
			if (!base_ok)
				continue;
			b = &base;
		}
		for (j = 0; j < n_cfgs; j++)
			check_link(&cfgs[j], &c, l, b, &t);
		check_compose(cfgs, &c, l, &t);
	}
	report(cfgs, n_cfgs, bad_bases);
	urlgen_corpus_free(&c);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("seed %#llx done in %.2f s\n", (unsigned long long)seed,
	       (double)(t1.tv_sec - t0.tv_sec) +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
}

int main(void)
{
	const char *env_seed = getenv("SC_CORPUS_SEED");
	const char *env_count = getenv("SC_CORPUS_COUNT");
	const char *env_show = getenv("SC_CORPUS_SHOW");
	size_t count = DEFAULT_COUNT;

	if (env_count && *env_count)
		count = (size_t)strtoull(env_count, NULL, 0);
	if (count == 0)
		count = 1;
	if (env_show && *env_show)
		show_per_property = show_total = (unsigned)strtoul(env_show,
								   NULL, 0);
	run_corpus(FIXED_SEED, count);
	if (env_seed && *env_seed)
		run_corpus(strtoull(env_seed, NULL, 0), count);
	return check_done();
}
