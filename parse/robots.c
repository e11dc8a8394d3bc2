/* robots.c — robots.txt by RFC 9309.
 *
 * One pass over the lines keeps two rule lists: the groups that name our
 * product token, and the groups of "*".  At the end the first list wins
 * if any group named us, and the other is freed, so the rules kept are
 * those of our group only.  Rule patterns and request paths go through
 * one canonical form before they are compared (canon() below), and the
 * rules are sorted by length, longest first, with Allow before Disallow at
 * equal length: the first rule that matches then decides.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse.h"

#define SITEMAPS_MAX 64

struct rule {
	uint32_t off, len; /* the canonical pattern in buf, without '$' */
	uint8_t allow;
	uint8_t anchored; /* the pattern ended in '$' */
};

struct rules {
	struct rule *v;
	size_t n, cap;
	/* The canonical patterns, one after another.  Each pattern of a
	 * line takes at most 3 bytes per byte of the line and a leading '/',
	 * so the patterns of a robots.txt cut at SC_ROBOTS_MAX_BYTES stay
	 * under RULES_BUF_MAX (and rule offsets fit in 32 bits). */
	struct sc_dynbuf buf;
	uint32_t delay_ms;
};

#define RULES_BUF_MAX (4 * (size_t)SC_ROBOTS_MAX_BYTES)

struct parse_robots {
	bool disallow_all;
	struct rules rules;
	/* Allocated at the first Sitemap line: most hosts name none, and a
	 * crawl keeps one of these per host (64 pointers each would be
	 * 512 bytes a host; 2.5 MB on 5,000 hosts). */
	char **sitemaps;
	size_t n_sitemaps, cap_sitemaps;
};

static bool is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

static unsigned hex_val(unsigned char c)
{
	if (c <= '9')
		return c - '0';
	return (c | 0x20) - 'a' + 10;
}

static bool unreserved(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
	       c == '~';
}

/* Bytes written as they are; the others are percent-encoded. */
static bool plain(unsigned char c)
{
	return c > 0x20 && c < 0x7f && c != '%';
}

/* The canonical form of a rule pattern or a request path: "%xx" escapes
 * in upper case, escapes of unreserved characters decoded, a '%' without
 * two hex digits written "%25", and controls, space and non-ASCII bytes
 * percent-encoded (RFC 9309 §2.2.2).  In a rule, '*' is the wildcard (a
 * run of them is one) and a final '$' the end anchor, which sets
 * *anchored; anywhere else '$' is literal.  In a path both are literal,
 * and are written %2A and %24 so that they match a rule's escapes
 * (RFC 9309 §2.2.3).  out must hold 3 * len bytes; returns the length. */
static size_t canon(const char *s, size_t len, bool rule, char *out,
		    bool *anchored)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	if (rule && len && s[len - 1] == '$') {
		*anchored = true;
		len--;
	} else if (anchored) {
		*anchored = false;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '%' && i + 2 < len && is_hex(s[i + 1]) &&
		    is_hex(s[i + 2])) {
			c = (unsigned char)(hex_val(s[i + 1]) << 4 |
					    hex_val(s[i + 2]));
			i += 2;
			if (unreserved(c)) {
				out[n++] = (char)c;
				continue;
			}
		} else if (rule && c == '*') {
			if (n == 0 || out[n - 1] != '*')
				out[n++] = '*';
			continue;
		} else if (plain(c) && c != '$' && (rule || c != '*')) {
			out[n++] = (char)c;
			continue;
		}
		out[n++] = '%';
		out[n++] = hex[c >> 4];
		out[n++] = hex[c & 15];
	}
	return n;
}

/* Does the canonical pattern p (prefix match unless anchored) match the
 * canonical path s?  '*' matches any run of bytes.  The classic greedy
 * matcher with one backtrack point: O(len(p) * len(s)) at worst. */
static bool match(const char *p, size_t m, bool anchored, const char *s,
		  size_t n)
{
	size_t pi = 0, si = 0, star = SIZE_MAX, mark = 0;

	for (;;) {
		if (pi == m && (!anchored || si == n))
			return true;
		if (si == n)
			break;
		if (pi < m && p[pi] == '*') {
			star = pi++;
			mark = si;
		} else if (pi < m && p[pi] == s[si]) {
			pi++;
			si++;
		} else if (star != SIZE_MAX) {
			pi = star + 1;
			si = ++mark;
		} else {
			return false;
		}
	}
	while (pi < m && p[pi] == '*')
		pi++;
	return pi == m;
}

/* ---- building -------------------------------------------------------- */

static void rules_free(struct rules *l)
{
	free(l->v);
	sc_dyn_free(&l->buf);
	memset(l, 0, sizeof(*l));
}

static int rules_add(struct rules *l, const char *pat, size_t len, bool allow)
{
	bool anchored;
	size_t off;
	int r;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct rule *v = sc_realloc(l->v, cap * sizeof(*v));

		if (!v)
			return SC_E_NOMEM;
		l->v = v;
		l->cap = cap;
	}
	/* A pattern that does not start with '/' or '*' ("Disallow: tmp")
	 * is read as starting with '/'. */
	if ((r = sc_dyn_reserve(&l->buf, 3 * len + 1)))
		return r;
	off = l->buf.len;
	if (pat[0] != '/' && pat[0] != '*')
		sc_dyn_add(&l->buf, "/", 1);
	sc_dyn_setlen(&l->buf,
		      l->buf.len + canon(pat, len, true, l->buf.p + l->buf.len,
					 &anchored));
	l->v[l->n].off = (uint32_t)off;
	l->v[l->n].len = (uint32_t)(l->buf.len - off);
	l->v[l->n].allow = allow;
	l->v[l->n].anchored = anchored;
	l->n++;
	return 0;
}

/* Crawl-delay: decimal seconds ("10", "0.5", "2."), else ignored. */
static bool parse_delay(const char *s, size_t len, uint32_t *ms)
{
	uint64_t whole = 0, frac = 0, scale = 1000;
	size_t i = 0;
	bool digits = false;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits = true)
		if (whole < 1000000)
			whole = whole * 10 + (uint64_t)(s[i] - '0');
	if (i < len && s[i] == '.') {
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
			digits = true;
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(s[i] - '0') * scale;
			}
		}
	}
	if (!digits || i != len)
		return false;
	whole = whole * 1000 + frac;
	*ms = whole > PARSE_ROBOTS_DELAY_MAX_MS ? PARSE_ROBOTS_DELAY_MAX_MS
						: (uint32_t)whole;
	return true;
}

static bool key_is(const char *k, size_t n, const char *const *names)
{
	for (; *names; names++)
		if (strlen(*names) == n && strncasecmp(k, *names, n) == 0)
			return true;
	return false;
}

/* The misspellings Google's parser accepts (its documented "frequent
 * typos") are accepted too: site owners test their files against it, and
 * a misspelt Disallow was meant to disallow. */
static const char *const k_agent[] = { "user-agent", "useragent", "user agent",
				       NULL };
static const char *const k_allow[] = { "allow", NULL };
static const char *const k_disallow[] = { "disallow", "dissallow", "dissalow",
					  "disalow",  "diasllow",  "disallaw",
					  NULL };
static const char *const k_delay[] = { "crawl-delay", "crawldelay",
				       "crawl delay", NULL };
static const char *const k_sitemap[] = { "sitemap", "site-map", NULL };

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

/* The length of the product token at the start of s: letters, digits,
 * '_' and '-' (RFC 9309 §2.2.1). */
static size_t product_len(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n &&
	       ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		(s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-'))
		i++;
	return i;
}

/* Does a user-agent value name our token?  The leading product tokens
 * of both compare case-insensitively ("SigCrawl/2.0" names "sigcrawl"). */
static bool agent_matches(const char *v, size_t n, const char *token,
			  size_t tlen)
{
	return tlen > 0 && product_len(v, n) == tlen &&
	       strncasecmp(v, token, tlen) == 0;
}

struct state {
	const char *token;
	size_t token_len; /* its product token: "sigcrawl" of "sigcrawl/1" */
	struct rules ours, star;
	bool named_us;    /* some group named our token */
	bool agents_open; /* the last group line was a user-agent line */
	bool cur_ours, cur_star;
	struct parse_robots *r;
};

static int add_sitemap(struct parse_robots *r, const char *v, size_t n)
{
	char *s;

	if (r->n_sitemaps == SITEMAPS_MAX || n == 0 || n > NORM_INPUT_MAX)
		return 0;
	if (r->n_sitemaps == r->cap_sitemaps) {
		size_t cap = r->cap_sitemaps ? 2 * r->cap_sitemaps : 4;
		char **v2 = sc_realloc(r->sitemaps, cap * sizeof(*v2));
		if (!v2)
			return SC_E_NOMEM;
		r->sitemaps = v2;
		r->cap_sitemaps = cap;
	}
	s = sc_malloc(n + 1);
	if (!s)
		return SC_E_NOMEM;
	memcpy(s, v, n);
	s[n] = '\0';
	r->sitemaps[r->n_sitemaps++] = s;
	return 0;
}

static bool key_known(const char *k, size_t n)
{
	return key_is(k, n, k_agent) || key_is(k, n, k_allow) ||
	       key_is(k, n, k_disallow) || key_is(k, n, k_delay) ||
	       key_is(k, n, k_sitemap);
}

/* A line without a colon: "Disallow /private" is read as its owner meant
 * it, when it is a known key, white space, and a value without white
 * space (Google reads such lines the same way; anything looser would
 * guess).  Sets the key and value bounds and returns true, or returns
 * false for a line to ignore. */
static bool split_blank(const char *s, const char *end, const char **k,
			const char **kend, const char **v, const char **vend)
{
	const char *p;

	while (s < end && is_blank(*s))
		s++;
	while (end > s && is_blank(end[-1]))
		end--;
	for (p = s; p < end && !is_blank(*p); p++)
		;
	*k = s;
	*kend = p;
	while (p < end && is_blank(*p))
		p++;
	if (p == end || !key_known(*k, (size_t)(*kend - *k)))
		return false;
	*v = p;
	*vend = end;
	for (; p < end; p++)
		if (is_blank(*p))
			return false;
	return true;
}

/* One line, without its end of line; cut: the line was longer than
 * PARSE_ROBOTS_LINE_MAX and n is that limit. */
static int line(struct state *st, const char *s, size_t n, bool cut)
{
	const char *end = s + n, *colon, *hash, *k, *kend, *v, *vend;
	uint32_t ms;

	hash = memchr(s, '#', n);
	if (hash) {
		end = hash;
		cut = false; /* the cut fell in the comment */
	}
	colon = memchr(s, ':', (size_t)(end - s));
	if (colon) {
		for (k = s; k < colon && is_blank(*k); k++)
			;
		for (kend = colon; kend > k && is_blank(kend[-1]); kend--)
			;
		for (v = colon + 1; v < end && is_blank(*v); v++)
			;
		for (vend = end; vend > v && is_blank(vend[-1]); vend--)
			;
	} else if (!split_blank(s, end, &k, &kend, &v, &vend)) {
		return 0; /* blank, comment or garbage */
	}

	if (key_is(k, (size_t)(kend - k), k_agent)) {
		if (!st->agents_open) {
			/* A user-agent line after rules starts a group;
			 * consecutive ones share it (RFC 9309 §2.1). */
			st->agents_open = true;
			st->cur_ours = st->cur_star = false;
		}
		if (v < vend && *v == '*') {
			st->cur_star = true;
		} else if (agent_matches(v, (size_t)(vend - v), st->token,
					 st->token_len)) {
			st->cur_ours = true;
			st->named_us = true;
		}
		return 0;
	}
	if (key_is(k, (size_t)(kend - k), k_sitemap))
		return cut ? 0 : add_sitemap(st->r, v, (size_t)(vend - v));

	if (key_is(k, (size_t)(kend - k), k_allow) ||
	    key_is(k, (size_t)(kend - k), k_disallow)) {
		bool allow = key_is(k, (size_t)(kend - k), k_allow);
		int r;

		st->agents_open = false;
		/* An empty rule matches nothing ("Disallow:" allows all).
		 * A cut Allow would allow more than was written. */
		if (v == vend || (cut && allow))
			return 0;
		if (st->cur_ours) {
			r = rules_add(&st->ours, v, (size_t)(vend - v), allow);
			if (r)
				return r;
		}
		if (st->cur_star) {
			r = rules_add(&st->star, v, (size_t)(vend - v), allow);
			if (r)
				return r;
		}
		return 0;
	}
	if (key_is(k, (size_t)(kend - k), k_delay)) {
		st->agents_open = false;
		/* Several delays for one agent: the longest, to be polite. */
		if (!parse_delay(v, (size_t)(vend - v), &ms))
			return 0;
		if (st->cur_ours && ms > st->ours.delay_ms)
			st->ours.delay_ms = ms;
		if (st->cur_star && ms > st->star.delay_ms)
			st->star.delay_ms = ms;
		return 0;
	}
	/* Other records (Host:, Clean-param:, ...) are ignored and do not
	 * end a group's user-agent lines. */
	return 0;
}

static int rule_order(const void *a, const void *b)
{
	const struct rule *x = a, *y = b;
	uint32_t lx = x->len + x->anchored, ly = y->len + y->anchored;

	if (lx != ly)
		return lx > ly ? -1 : 1;
	if (x->allow != y->allow)
		return x->allow ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The rules of every host whose robots.txt allows all: a 404, the most
 * common answer, or a file with no rule, sitemap or Crawl-delay for us.
 * One object, never written to once made (only the parse writes, into
 * objects of its own), which parse_robots_free() leaves alone.  A crawl
 * keeps the rules of each host it leases from, and a copy each was 112
 * bytes a host (bench/hosts.c). */
static struct parse_robots allow_all;

static int robots_new(struct parse_robots **ret)
{
	*ret = sc_calloc(1, sizeof(**ret));
	return *ret ? 0 : SC_E_NOMEM;
}

int parse_robots(const char *txt, size_t len, const char *agent_token,
		 struct parse_robots **ret)
{
	struct state st = { 0 };
	const char *p, *end;
	int r;

	if ((!txt && len) || !agent_token || !agent_token[0] || !ret)
		return SC_E_INVAL;
	r = robots_new(&st.r);
	if (r)
		return r;
	sc_dyn_init(&st.ours.buf, RULES_BUF_MAX);
	sc_dyn_init(&st.star.buf, RULES_BUF_MAX);
	st.token = agent_token;
	st.token_len = product_len(agent_token, strlen(agent_token));
	if (len > SC_ROBOTS_MAX_BYTES) {
		/* Past the limit, and the line the limit cuts, are
		 * ignored: half a rule could say something else. */
		len = SC_ROBOTS_MAX_BYTES;
		while (len > 0 && txt[len - 1] != '\n' && txt[len - 1] != '\r')
			len--;
	}
	p = txt;
	end = txt ? txt + len : txt;
	/* A byte-order mark, or the start of one (EF, or EF BB, as editors
	 * and cut transfers leave it), is no part of the first line. */
	for (size_t i = 0;
	     i < 3 && p < end &&
	     (unsigned char)*p == (unsigned char)"\xef\xbb\xbf"[i];
	     i++)
		p++;
	while (p < end) {
		const char *eol = p;

		while (eol < end && *eol != '\n' && *eol != '\r')
			eol++;
		size_t n = (size_t)(eol - p);
		r = line(&st, p,
			 n < PARSE_ROBOTS_LINE_MAX ? n : PARSE_ROBOTS_LINE_MAX,
			 n > PARSE_ROBOTS_LINE_MAX);
		if (r)
			goto fail;
		/* CR, LF or CRLF ends a line. */
		p = eol;
		if (p < end && *p == '\r') {
			p++;
			if (p < end && *p == '\n')
				p++;
		} else if (p < end) {
			p++;
		}
	}

	if (st.named_us) {
		st.r->rules = st.ours;
		rules_free(&st.star);
	} else {
		st.r->rules = st.star;
		rules_free(&st.ours);
	}
	if (st.r->rules.n)
		qsort(st.r->rules.v, st.r->rules.n, sizeof(struct rule),
		      rule_order);
	if (!st.r->rules.n && !st.r->rules.delay_ms && !st.r->n_sitemaps) {
		parse_robots_free(st.r);
		st.r = &allow_all;
	}
	*ret = st.r;
	return 0;
fail:
	rules_free(&st.ours);
	rules_free(&st.star);
	parse_robots_free(st.r);
	return r;
}

int parse_robots_allow_all(struct parse_robots **ret)
{
	if (!ret)
		return SC_E_INVAL;
	*ret = &allow_all;
	return 0;
}

int parse_robots_disallow_all(struct parse_robots **ret)
{
	int r;

	if (!ret)
		return SC_E_INVAL;
	r = robots_new(ret);
	if (r == 0)
		(*ret)->disallow_all = true;
	return r;
}

static bool decide(const struct parse_robots *r, const char *path, size_t n)
{
	size_t plen = n;
	const char *q = memchr(path, '?', n);

	if (q)
		plen = (size_t)(q - path);
	if (plen == 11 && memcmp(path, "/robots.txt", 11) == 0)
		return true;
	if (r->disallow_all)
		return false;
	for (size_t i = 0; i < r->rules.n; i++) {
		const struct rule *x = &r->rules.v[i];

		if (match(r->rules.buf.p + x->off, x->len, x->anchored, path,
			  n))
			return x->allow;
	}
	return true;
}

bool parse_robots_allowed(const struct parse_robots *r, const char *path_query,
			  size_t len)
{
	char small[3 * 2048 + 1], *buf = small;
	size_t n;
	bool ok;

	if (!r)
		return true;
	if (!path_query || len == 0) {
		path_query = "/";
		len = 1;
	}
	if (len > 2048) {
		buf = sc_malloc(3 * len);
		if (!buf)
			return false; /* no answer: the polite one */
	}
	n = canon(path_query, len, false, buf, NULL);
	ok = decide(r, buf, n);
	if (buf != small)
		free(buf);
	return ok;
}

uint32_t parse_robots_crawl_delay_ms(const struct parse_robots *r)
{
	return r ? r->rules.delay_ms : 0;
}

const char *parse_robots_sitemap(const struct parse_robots *r, size_t i)
{
	return r && i < r->n_sitemaps ? r->sitemaps[i] : NULL;
}

void parse_robots_free(struct parse_robots *r)
{
	if (!r || r == &allow_all)
		return;
	rules_free(&r->rules);
	for (size_t i = 0; i < r->n_sitemaps; i++)
		free(r->sitemaps[i]);
	free(r->sitemaps);
	free(r);
}
