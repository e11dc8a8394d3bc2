/* urlgen.c — a deterministic generator of realistic links (see urlgen.h).
 *
 * The proportions below are rough guesses at what a crawl of ordinary
 * sites meets, tilted a little towards the odd cases so that a corpus of
 * some ten thousand links hits every branch of the normalizer many times.
 * Probabilities are written in per mille.
 */
#include "urlgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Number of distinct hosts.  Page hosts are drawn with a skew towards low
 * indexes, as a crawl spends most of its links on a few big sites. */
#define N_HOSTS 640

/* splitmix64: tiny, fast, and good enough to drive a test generator. */
static uint64_t mix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* Multiply-shift instead of '%': no division, and the bias is far below
 * anything a test could notice. */
static uint32_t below(uint64_t *state, uint32_t n)
{
	return (uint32_t)(((mix64(state) >> 32) * n) >> 32);
}

uint32_t urlgen_below(struct urlgen *g, uint32_t n)
{
	return below(&g->state, n);
}

static int chance(uint64_t *state, unsigned permille)
{
	return below(state, 1000) < permille;
}

#define PICK(st, a) ((a)[below((st), COUNT(a))])

/* A bounded writer: the generator never overruns the caller's buffer,
 * it cuts the link instead. */
struct out {
	char *p;
	size_t len, cap; /* cap excludes the NUL */
};

static void put_mem(struct out *o, const char *s, size_t n)
{
	if (n > o->cap - o->len)
		n = o->cap - o->len;
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

static void put(struct out *o, const char *s)
{
	put_mem(o, s, strlen(s));
}

static void put_ch(struct out *o, char c)
{
	if (o->len < o->cap)
		o->p[o->len++] = c;
}

static void put_num(struct out *o, uint64_t v)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[sizeof(tmp) - ++n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	put_mem(o, tmp + sizeof(tmp) - n, n);
}

static void put_hex(struct out *o, uint64_t *st, unsigned n, int upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";

	while (n--)
		put_ch(o, digits[below(st, 16)]);
}

/* Words of paths, queries and host names. */
static const char *const words[] = {
	"about",    "news",     "products", "blog",    "article", "contact",
	"search",   "category", "tag",      "archive", "help",    "support",
	"docs",     "api",      "user",     "users",   "profile", "login",
	"register", "cart",     "checkout", "shop",    "item",    "view",
	"show",     "list",     "page",     "forum",   "thread",  "post",
	"comments", "images",   "img",      "static",  "assets",  "css",
	"js",       "media",    "download", "files",   "pub",     "wiki",
	"sports",   "politics", "science",  "health",  "travel",  "music",
	"video",    "events",   "jobs",     "team",    "privacy", "terms",
	"faq",      "sitemap",  "feed",     "rss",     "en",      "de",
	"fr",       "2col",     "v1",       "v2",      "print",   "mobile",
	"amp",      "weather",  "recipes",  "books",   "garden",  "cars",
	"review",   "compare",  "deals",    "open",    "library", "research",
	"paper",    "course",   "lecture",  "notes",
};

static const char *const host_words[] = {
	"example",   "acme",     "globex",    "initech",  "umbrella", "hooli",
	"contoso",   "fabrikam", "northwind", "wayne",    "stark",    "tyrell",
	"cyberdyne", "soylent",  "vandelay",  "wonka",    "oceanic",  "duff",
	"gringotts", "zorg",     "news",      "daily",    "times",    "herald",
	"tribune",   "post",     "journal",   "tech",     "dev",      "code",
	"open",      "data",     "cloud",     "web",      "net",      "shop",
	"store",     "market",   "books",     "music",    "film",     "travel",
	"food",      "city",     "river",     "mountain", "forest",   "lake",
	"sun",       "moon",     "star",      "blue",     "red",      "green",
	"alpha",     "beta",     "gamma",     "delta",    "omega",    "nova",
	"uni",       "college",  "school",    "library",  "museum",   "clinic",
	"bank",
};

static const char *const tlds[] = {
	"com", "com", "com",   "com", "org",  "org", "net",    "de",
	"de",  "fr",  "co.uk", "io",  "info", "ru",  "jp",     "com.au",
	"edu", "gov", "nl",    "it",  "es",   "pl",  "com.br", "ca",
	"ch",  "se",  "at",    "be",  "dk",   "cz",
};

static const char *const subdomains[] = {
	"blog",   "shop",  "en",      "m",    "news", "docs",
	"static", "api",   "forum",   "mail", "wiki", "de",
	"fr",     "store", "support", "cdn",  "img",
};

/* Hosts in Unicode; all are valid under UTS #46 and IDNA2008 alike. */
static const char *const idn_hosts[] = {
	"bücher.de",          "пример.рф",       "例え.jp",
	"straße.de",          "münchen.de",      "café.fr",
	"zürich.ch",          "københavn.dk",    "ελληνικά.gr",
	"日本語.jp",          "한국.kr",         "例子.中国",
	"правительство.рф",   "gdańsk.pl",       "łódź.pl",
	"malmö.se",           "résumé.com",      "naïve.com",
	"bäckerei-müller.de", "ドメイン名例.jp", "مثال.إختبار",
	"ñandú.com.ar",       "españa.es",       "faß.de",
	"www.bücher.de",      "shop.münchen.de", "BÜCHER.de",
	"Straße.DE",          "ПРИМЕР.РФ",
};

/* The same kind of hosts, already written as A-labels or percent-encoded
 * (both are valid forms of a host in a link). */
static const char *const idn_ascii_hosts[] = {
	"xn--bcher-kva.de", "xn--e1afmkfd.xn--p1ai", "xn--r8jz45g.jp",
	"xn--strae-oqa.de", "XN--MNCHEN-3YA.DE",     "b%C3%BCcher.de",
	"caf%c3%a9.fr",     "www.xn--bcher-kva.de",
};

static const char *const ipv4_hosts[] = {
	"192.168.0.1",
	"10.0.0.7",
	"203.0.113.7",
	"127.0.0.1",
	"198.51.100.23",
	"172.16.254.1",
	"8.8.8.8",
	"192.0.2.146",
	"100.64.1.2",
	/* browser forms, rarer in practice */
	"127.1",
	"0x7f.0.0.1",
	"2130706433",
	"010.0.0.1",
	"0300.0250.0.1",
};

static const char *const ipv6_hosts[] = {
	"[2001:db8::1]",
	"[::1]",
	"[2001:DB8:0:0:8:800:200C:417A]",
	"[fe80::1]",
	"[::ffff:192.0.2.128]",
	"[2001:0db8:0000:0000:0000:ff00:0042:8329]",
	"[0:0:0:0:0:0:0:1]",
	"[2001:db8:85a3::8a2e:370:7334]",
};

static const char *const userinfos[] = {
	"user:pass@", "user@",       "admin:secret@",    "a%40b:x@",
	":@",         "anonymous:@", "John.Doe:p%41ss@",
};

/* Things that must be rejected, or that are not http(s). */
static const char *const invalid_links[] = {
	"mailto:info@example.com",
	"mailto:Sales@Acme.com?subject=Hi",
	"javascript:void(0)",
	"javascript:window.print();",
	"JavaScript:;",
	"ftp://ftp.example.org/pub/file.tar.gz",
	"data:text/plain,hello",
	"tel:+15555550123",
	"irc://irc.example.net/#chan",
	"file:///etc/passwd",
	"http://",
	"https://",
	"http:///",
	"http://:80/",
	"http://?q=1",
	"http://example.com:99999/",
	"http://example.com:8o/",
	"http://example.com:-1/",
	"http://[::1",
	"http://[1:2:3]/",
	"http://[::g]/",
	"http://a%zz.com/",
	"http://exa%2.com/",
	"http://exa mple.com/",
	"http://ex<ample.com/",
	"http://xn--a.com/",
	"https://@/",
	"   ",
	"\t\n",
	"http://256.256.256.256/",
	"http://1.2.3.4.5/",
	"http://0x100000000/",
	"news:comp.lang.c",
	"urn:isbn:0451450523",
	"about:blank",
	"chrome://settings",
};

static const char *const exts[] = {
	".html", ".html", ".htm",  ".php", ".aspx",   ".asp", ".jsp",
	".pdf",  ".jpg",  ".png",  ".gif", ".css",    ".js",  ".xml",
	".txt",  ".json", ".HTML", ".PDF", ".tar.gz",
};

static const char *const default_pages[] = {
	"index.html",  "index.html",   "index.htm",   "index.php",
	"default.htm", "default.html", "default.asp", "default.aspx",
	"index.jsp",   "index.asp",    "Index.html",  "INDEX.HTM",
};

/* Path segments that need escaping or show sloppy escaping. */
static const char *const escaped_segs[] = {
	"%7euser",    "%7Euser",       "%41bc",
	"a%2Db",      "a%2db",         "%2fetc",
	"a%2Fb",      "caf%C3%A9",     "caf%c3%a9",
	"%e2%82%ac",  "my%20file.pdf", "50%25",
	"%5Fprivate", "%7E",           "%3Bx",
	"%2e%2e",     "%2E",           "r%C3%A9sum%C3%A9",
};

static const char *const stray_percent_segs[] = {
	"100%", "50%off", "%zz", "%4", "a%", "%%", "%g1", "%%41",
};

static const char *const unicode_segs[] = {
	"café", "страница", "日本語", "naïve",    "über-uns", "Ärger",
	"ß",    "€uro",     "😀",      "中文页面", "mañana",
};

static const char *const special_segs[] = {
	"C++",       "foo(bar)", "it's", "a!b",    "star*", "a,b",
	"user@host", "x:y",      "a+b",  "$price", "k=v",   "a&b",
	"~john",     "-",        "_",    "...",    "a.b.c", ".hidden",
};

static const char *const forbidden_segs[] = {
	"say \"hi\"", "<tag>", "{x}",         "a|b",    "a^b",
	"`cmd`",      "a b c", "my file.pdf", "x\x7fy",
};

static const char *const path_params[] = {
	";jsessionid=0A1B2C3D4E5F60718293A4B5C6D7E8F9",
	";jsessionid=abc123",
	";JSESSIONID=F00D",
	";type=a",
	";v=1.2",
	";jsessionid=",
	";x",
};

static const char *const query_names[] = {
	"id",    "page",  "sort",   "q",    "lang", "ref",   "category",
	"cat",   "limit", "offset", "p",    "s",    "view",  "format",
	"year",  "tag",   "filter", "from", "to",   "order", "dir",
	"start", "size",  "type",   "mode", "a",    "b",     "x",
};

static const char *const tracking_params[] = {
	"utm_source=newsletter",
	"utm_source=twitter",
	"utm_medium=email",
	"utm_medium=social",
	"utm_campaign=spring_sale",
	"utm_term=shoes",
	"utm_content=banner%20top",
	"fbclid=IwAR0xYz12AbCdEf",
	"gclid=Cj0KCQjw",
	"dclid=CJ1",
	"msclkid=5f4e3d",
	"mc_cid=12ab",
	"mc_eid=34cd",
	"yclid=99",
	"_ga=2.1234.5678",
	"igshid=MzRlODBiNWFlZA",
	"UTM_Source=caps",
	"utm_=x",
};

static const char *const session_params[] = {
	"sid=",           "PHPSESSID=", "phpsessid=", "jsessionid=",
	"JSESSIONID=",    "sessionid=", "SessionId=", "ASPSESSIONIDQQGGQGPA=",
	"aspsessionidx=",
};

static const char *const query_values[] = {
	"asc",         "desc",      "price",
	"en",          "de",        "1",
	"0",           "20",        "true",
	"all",         "a+b",       "hello%20world",
	"hello+world", "caf%C3%A9", "caf%c3%a9",
	"café",        "a b",       "x%2By",
	"1%2C2%2C3",   "a%26b",     "%7e",
	"%7E",         "a/b",       "a?b",
	"k:v",         "%zz",       "50%",
	"2024-01-31",  "",          "x=y",
	"a|b",         "\"q\"",
};

static const char *const fragments[] = {
	"top",          "section-2", "",       "!/route/1", "%7euser", "Über",
	"a b",          "comments",  "page=2", "x?y",       "#",       "%41",
	"main-content",
};

/* Relative references that are a single token, as they appear in real
 * pages (RFC 3986 §5.4 lists most of them). */
static const char *const odd_relative[] = {
	".",     "..",     "./",        "../",        "/",      "//",
	"./.",   "../..",  ";x",        "g;x",        "/./g",   "/../g",
	"g.",    ".g",     "g..",       "..g",        "./../g", "./g/.",
	"g/./h", "g/../h", "g;x=1/./y", "g;x=1/../y",
};

/* "http:" followed by anything but two slashes; browsers accept these. */
static const char *const odd_slashes[] = { ":/", ":///", ":\\\\", ":/\\" };

static const char *const odd_separators[] = { "&amp;", "&&", ";" };

static const char *const escaped_names[] = {
	"a%5Fb", "a%5fb", "Q", "q%3D", "%7Euser", "utm%5Fsource=x",
};

static const char *const leading_space[] = { " ", "  ", "\t", "\n ", "\x01" };
static const char *const trailing_space[] = { " ", "\r\n", "\n", "\t ",
					      "\x0b" };

static const unsigned site_ports[] = { 8080, 8443, 3000, 8000 };

struct host_spec {
	const char *fixed; /* a table entry, or NULL for a made-up name */
	const char *tld;
	const char *sub;
	const char *w1, *w2;
	unsigned shape;  /* how w1 and w2 are joined */
	unsigned number; /* for shapes with digits */
	int www;         /* the site's usual name has "www." */
	int https;       /* the site's usual scheme */
	int idn_unicode; /* fixed is a Unicode name */
	unsigned port;   /* the site's non-default port, or 0 */
};

/* Describe host number idx.  Derived from the seed and the index alone,
 * so the same host looks the same every time it is drawn. */
static void host_describe(const struct urlgen *g, unsigned idx,
			  struct host_spec *h)
{
	uint64_t st = g->seed ^ (0x2545f4914f6cdd1du * (idx + 1));
	unsigned kind = below(&st, 1000);

	/* The big sites, drawn most often, have plain ASCII names: IDN
	 * hosts and IP literals live in the long tail, as on the web. */
	if (idx < 48)
		kind %= 880;

	memset(h, 0, sizeof(*h));
	h->https = chance(&st, 650);
	h->www = chance(&st, 450);
	if (chance(&st, 25))
		h->port = PICK(&st, site_ports);
	if (kind < 880) {
		h->tld = PICK(&st, tlds);
		h->w1 = PICK(&st, host_words);
		h->w2 = PICK(&st, host_words);
		h->shape = below(&st, 6);
		h->number = below(&st, 100);
		if (chance(&st, 250))
			h->sub = PICK(&st, subdomains);
	} else if (kind < 925) {
		h->fixed = PICK(&st, idn_hosts);
		h->idn_unicode = 1;
		h->www = 0;
	} else if (kind < 940) {
		h->fixed = PICK(&st, idn_ascii_hosts);
		h->www = 0;
	} else if (kind < 980) {
		h->fixed = PICK(&st, ipv4_hosts);
		h->www = 0;
	} else {
		h->fixed = PICK(&st, ipv6_hosts);
		h->www = 0;
	}
}

/* Write a host name in its usual form (lowercase, no trailing dot). */
static void put_host_name(struct out *o, const struct host_spec *h)
{
	if (h->fixed) {
		put(o, h->fixed);
		return;
	}
	if (h->www)
		put(o, "www.");
	if (h->sub) {
		put(o, h->sub);
		put_ch(o, '.');
	}
	put(o, h->w1);
	switch (h->shape) {
	case 0:
	case 1: break;
	case 2: put(o, h->w2); break;
	case 3:
		put_ch(o, '-');
		put(o, h->w2);
		break;
	case 4: put_num(o, h->number); break;
	default:
		put(o, h->w2);
		put_num(o, h->number % 10);
		break;
	}
	put_ch(o, '.');
	put(o, h->tld);
}

static char ascii_upper(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

/* Change the case of the ASCII letters written since start. */
static void recase(struct out *o, uint64_t *st, size_t start)
{
	unsigned how = below(st, 100);
	size_t i;

	for (i = start; i < o->len; i++) {
		char c = o->p[i];
		int first = i == start || o->p[i - 1] == '.';

		if (how < 40 ? first : how < 75 ? 1 : chance(st, 500))
			o->p[i] = ascii_upper(c);
	}
}

/* Write scheme, "//", userinfo, host and port of a link to host idx, with
 * the variations real links show.  Returns whether the scheme is https. */
static int put_authority(struct urlgen *g, struct out *o, unsigned idx,
			 int clean)
{
	uint64_t *st = &g->state;
	struct host_spec h;
	size_t start;
	int https;

	host_describe(g, idx, &h);
	https = h.https;
	if (!clean && chance(st, 120))
		https = !https;
	start = o->len;
	put(o, https ? "https" : "http");
	if (!clean && chance(st, 60))
		recase(o, st, start);
	if (!clean && chance(st, 4))
		put(o, PICK(st, odd_slashes));
	else
		put(o, "://");

	if (!clean && chance(st, 12))
		put(o, PICK(st, userinfos));

	start = o->len;
	if (!clean && !h.fixed && chance(st, 120))
		h.www = !h.www;
	put_host_name(o, &h);
	if (!clean && !h.idn_unicode && !(h.fixed && h.fixed[0] == '[') &&
	    chance(st, 90))
		recase(o, st, start);
	if (!clean && h.idn_unicode && chance(st, 100)) {
		/* Uppercase ASCII around a Unicode name: "WWW.bücher.DE". */
		recase(o, st, start);
	}
	if (!clean && !h.fixed && chance(st, 4)) {
		/* One letter of the host percent-encoded: legal, decoded. */
		size_t at = start + below(st, (uint32_t)(o->len - start));
		char c = o->p[at];

		if (c != '.') {
			char tail[256];
			size_t n = o->len - at - 1;

			if (n < sizeof(tail)) {
				memcpy(tail, o->p + at + 1, n);
				o->len = at;
				put_ch(o, '%');
				put_ch(o, "0123456789ABCDEF"[(unsigned char)c >>
							     4]);
				put_ch(o, "0123456789abcdef"[c & 15]);
				put_mem(o, tail, n);
			}
		}
	}
	if (!clean && (!h.fixed || h.fixed[0] != '[') && chance(st, 20))
		put_ch(o, '.');

	if (h.port && chance(st, clean ? 1000 : 900)) {
		put_ch(o, ':');
		put_num(o, h.port);
	} else if (!clean && chance(st, 70)) {
		switch (below(st, 8)) {
		case 0:
		case 1: put(o, https ? ":443" : ":80"); break;
		case 2: put(o, ":8080"); break;
		case 3: put(o, https ? ":0443" : ":0080"); break;
		case 4: put_ch(o, ':'); break;
		case 5: put(o, https ? ":80" : ":443"); break;
		case 6: put(o, ":00000"); break;
		default: put(o, ":65535"); break;
		}
	}
	return https;
}

/* Write one path segment (without its leading '/'). */
static void put_segment(struct urlgen *g, struct out *o, int last, int clean,
			int first_relative)
{
	uint64_t *st = &g->state;
	unsigned k = below(st, 1000);

	if (clean)
		k = k % 560;
	if (k < 330) {
		put(o, PICK(st, words));
	} else if (k < 380) {
		size_t start = o->len;

		put(o, PICK(st, words));
		recase(o, st, start);
	} else if (k < 460) {
		unsigned n = 2 + below(st, 4);

		while (n--) {
			put(o, PICK(st, words));
			if (n)
				put_ch(o, chance(st, 850) ? '-' : '_');
		}
	} else if (k < 540) {
		put_num(o, below(st, 100000000));
	} else if (k < 560) {
		put_num(o, 1998 + below(st, 28));
		put_ch(o, '/');
		if (chance(st, 500))
			put_ch(o, '0');
		put_num(o, 1 + below(st, 12));
		put_ch(o, '/');
		put_num(o, 1 + below(st, 28));
	} else if (k < 680) {
		put(o, PICK(st, words));
		if (chance(st, 300)) {
			put_ch(o, '-');
			put_num(o, below(st, 10000));
		}
		if (last || chance(st, 100))
			put(o, PICK(st, exts));
	} else if (k < 730) {
		if (last)
			put(o, PICK(st, default_pages));
		else
			put(o, PICK(st, words));
	} else if (k < 790) {
		put(o, chance(st, 550) ? ".." : ".");
	} else if (k < 820) {
		/* an empty segment: "//" in the path */
	} else if (k < 865) {
		put(o, PICK(st, escaped_segs));
	} else if (k < 875) {
		put(o, PICK(st, stray_percent_segs));
	} else if (k < 900) {
		put(o, PICK(st, unicode_segs));
	} else if (k < 935) {
		const char *s = PICK(st, special_segs);

		/* A ':' before the first '/' of a relative reference would
		 * make it a scheme. */
		put(o, first_relative && strchr(s, ':') ? "xy" : s);
	} else if (k < 950) {
		put(o, PICK(st, forbidden_segs));
	} else if (k < 965) {
		put_ch(o, '~');
		put(o, PICK(st, host_words));
	} else {
		put(o, PICK(st, words));
		put_ch(o, '-');
		put_hex(o, st, 6 + below(st, 20), chance(st, 500));
	}
	if (!clean && chance(st, last ? 25 : 6))
		put(o, PICK(st, path_params));
}

/* Whether the last path segment written has a '.', like "a.html". */
static int last_has_dot(const struct out *o)
{
	size_t i = o->len;

	while (i > 0 && o->p[i - 1] != '/' && o->p[i - 1] != '\\') {
		if (o->p[i - 1] == '.')
			return 1;
		i--;
	}
	return 0;
}

/* Write a path of nseg segments.  absolute: start with '/'. */
static void put_path(struct urlgen *g, struct out *o, unsigned nseg,
		     int absolute, int clean)
{
	uint64_t *st = &g->state;
	unsigned i;

	for (i = 0; i < nseg; i++) {
		if (i > 0 || absolute) {
			if (!clean && chance(st, 12))
				put_ch(o, '\\');
			else
				put_ch(o, '/');
		}
		put_segment(g, o, i + 1 == nseg, clean, !absolute && i == 0);
	}
	if (nseg && o->len && o->p[o->len - 1] != '/' && !last_has_dot(o) &&
	    chance(st, 250))
		put_ch(o, '/');
}

static unsigned path_length(uint64_t *st)
{
	static const unsigned dist[] = { 0, 1, 1, 1, 2, 2, 2, 2, 3,
					 3, 3, 4, 4, 5, 6, 7, 8 };

	return PICK(st, dist);
}

/* Write "?..." with 0 to 8 parameters. */
static void put_query(struct urlgen *g, struct out *o, int clean)
{
	uint64_t *st = &g->state;
	unsigned n = below(st, 9);
	size_t first_param = 0, first_len = 0;
	unsigned i;

	put_ch(o, '?');
	if (n == 0 && chance(st, 600))
		n = 1;
	for (i = 0; i < n; i++) {
		unsigned k = below(st, 1000);
		size_t start;

		if (i > 0) {
			if (!clean && chance(st, 15))
				put(o, PICK(st, odd_separators));
			else
				put_ch(o, '&');
		}
		start = o->len;
		if (clean)
			k = k % 600;
		if (k < 500) {
			put(o, PICK(st, query_names));
			put_ch(o, '=');
			if (chance(st, 400))
				put_num(o,
					below(st,
					      chance(st, 500) ? 10 : 1000000));
			else
				put(o, PICK(st, query_values));
		} else if (k < 560) {
			/* empty value */
			put(o, PICK(st, query_names));
			put_ch(o, '=');
		} else if (k < 600) {
			/* a name without '=' */
			put(o, PICK(st, words));
		} else if (k < 680 && i > 0 && first_len < 200) {
			/* a duplicate of the first parameter */
			char tmp[200];

			memcpy(tmp, o->p + first_param, first_len);
			put_mem(o, tmp, first_len);
		} else if (k < 850) {
			put(o, PICK(st, tracking_params));
		} else if (k < 920) {
			put(o, PICK(st, session_params));
			put_hex(o, st, 8 + below(st, 24), chance(st, 500));
		} else if (k < 960) {
			put(o, PICK(st, query_names));
			put_ch(o, '=');
			put(o, PICK(st, words));
			put_ch(o, '+');
			put(o, PICK(st, words));
		} else if (k < 975) {
			/* "=v", "&=", a value without a name */
			put_ch(o, '=');
			if (chance(st, 500))
				put(o, PICK(st, query_values));
		} else {
			/* a name with escapes, "a%5Fb", "Q" */
			put(o, PICK(st, escaped_names));
			put_ch(o, '=');
			put_num(o, below(st, 100));
		}
		if (i == 0) {
			first_param = start;
			first_len = o->len - start;
		}
	}
}

static void put_fragment(struct urlgen *g, struct out *o)
{
	put_ch(o, '#');
	put(o, PICK(&g->state, fragments));
}

/* Start a new page: choose its host and write its absolute URL, which
 * every relative link of the page is resolved against.  Bases are what a
 * crawler fetched, so they are cleaner than links, but not normalized. */
static void new_page(struct urlgen *g)
{
	uint64_t *st = &g->state;
	struct out o = { g->base, 0, sizeof(g->base) - 1 };
	uint32_t r = below(st, 1u << 16);

	/* Skew: index ~ N * r^2, so low indexes are drawn far more often. */
	g->page_host = (unsigned)(((uint64_t)r * r * N_HOSTS) >> 32);
	g->links_left = 20 + below(st, 21);
	g->page_https = put_authority(g, &o, g->page_host, 1);
	if (chance(st, 60)) {
		/* the home page, written without a path */
	} else {
		put_path(g, &o, below(st, 6), 1, 1);
		if (o.len && o.p[o.len - 1] != '/' && chance(st, 150))
			put(&o, "/index.html");
	}
	if (chance(st, 200))
		put_query(g, &o, 1);
	if (chance(st, 15))
		put(&o, "#top");
	g->base[o.len] = '\0';
	g->base_len = o.len;
}

/* A path that is long before or after escaping: spider traps and
 * session-laden links reach the length limit. */
static void put_long_path(struct urlgen *g, struct out *o)
{
	uint64_t *st = &g->state;
	size_t want = 1500 + below(st, 2300);
	const char *fill = chance(st, 300) ? "a b" : "segment/";
	size_t n = strlen(fill);

	put_ch(o, '/');
	while (o->len < want)
		put_mem(o, fill, n);
}

static void put_relative(struct urlgen *g, struct out *o)
{
	uint64_t *st = &g->state;
	unsigned k = below(st, 1000);
	int query = chance(st, 250), frag = chance(st, 60);

	if (k < 300) {
		put_path(g, o, 1 + below(st, 3), 0, 0);
	} else if (k < 350) {
		put(o, "./");
		put_path(g, o, 1 + below(st, 2), 0, 0);
	} else if (k < 430) {
		put(o, "../");
		put_path(g, o, 1 + below(st, 2), 0, 0);
	} else if (k < 460) {
		put(o, "../../");
		put_path(g, o, 1 + below(st, 2), 0, 0);
	} else if (k < 470) {
		put(o, "../../../../../");
		put_path(g, o, 1, 0, 0);
	} else if (k < 770) {
		put_path(g, o, 1 + path_length(st), 1, 0);
	} else if (k < 810) {
		/* network-path reference: the scheme comes from the base */
		struct host_spec h;
		uint32_t r = below(st, 1u << 16);

		host_describe(g, (unsigned)(((uint64_t)r * r * N_HOSTS) >> 32),
			      &h);
		put(o, "//");
		put_host_name(o, &h);
		put_path(g, o, path_length(st), 1, 0);
	} else if (k < 860) {
		query = 1;
	} else if (k < 920) {
		frag = 1;
		query = 0;
	} else if (k < 930) {
		/* the empty reference: the page itself */
		query = frag = 0;
	} else if (k < 950) {
		put(o, PICK(st, odd_relative));
	} else {
		put_path(g, o, 1, 0, 0);
		query = 1;
		frag = 1;
	}
	if (query)
		put_query(g, o, 0);
	if (frag)
		put_fragment(g, o);
}

/* Insert white space around and inside a link, as careless markup does. */
static void add_white_space(struct urlgen *g, struct out *o)
{
	uint64_t *st = &g->state;

	if (o->len > 2 && chance(st, 8)) {
		size_t at = 1 + below(st, (uint32_t)(o->len - 1));
		char c = chance(st, 600) ? '\n' : '\t';

		if (o->len < o->cap) {
			memmove(o->p + at + 1, o->p + at, o->len - at);
			o->p[at] = c;
			o->len++;
		}
	}
	if (chance(st, 20)) {
		const char *lead = PICK(st, leading_space);
		size_t n = strlen(lead);

		if (o->len + n <= o->cap) {
			memmove(o->p + n, o->p, o->len);
			memcpy(o->p, lead, n);
			o->len += n;
		}
	}
	if (chance(st, 20))
		put(o, PICK(st, trailing_space));
}

size_t urlgen_next(struct urlgen *g, char *buf, size_t cap,
		   const char **base_out)
{
	uint64_t *st = &g->state;
	struct out o = { buf, 0, cap ? cap - 1 : 0 };
	unsigned k;

	*base_out = NULL;
	if (!cap)
		return 0;
	if (!g->links_left)
		new_page(g);
	g->links_left--;

	k = below(st, 1000);
	if (k < 15) {
		put(&o, PICK(st, invalid_links));
	} else if (k < 17) {
		put_authority(g, &o, g->page_host, 0);
		put_long_path(g, &o);
	} else if (k < 550) {
		unsigned host = g->page_host;

		if (chance(st, 350)) {
			uint32_t r = below(st, 1u << 16);

			host = (unsigned)(((uint64_t)r * r * N_HOSTS) >> 32);
		}
		put_authority(g, &o, host, 0);
		if (!chance(st, 40))
			put_path(g, &o, path_length(st), 1, 0);
		if (chance(st, 330))
			put_query(g, &o, 0);
		if (chance(st, 70))
			put_fragment(g, &o);
	} else {
		put_relative(g, &o);
		*base_out = g->base;
	}
	add_white_space(g, &o);
	buf[o.len] = '\0';
	return o.len;
}

void urlgen_init(struct urlgen *g, uint64_t seed)
{
	memset(g, 0, sizeof(*g));
	g->seed = seed;
	g->state = seed ^ 0x853c49e6748fea9bu;
	mix64(&g->state);
}

/* ---- corpora ----------------------------------------------------------- */

static void *corpus_realloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fputs("urlgen: out of memory\n", stderr);
		exit(99);
	}
	return p;
}

static size_t corpus_add(struct urlgen_corpus *c, const char *s, size_t n)
{
	size_t off = c->used;

	if (c->used + n + 1 > c->cap) {
		c->cap = (c->used + n + 1) * 2;
		c->text = corpus_realloc(c->text, c->cap);
	}
	memcpy(c->text + off, s, n);
	c->text[off + n] = '\0';
	c->used += n + 1;
	return off;
}

void urlgen_corpus_build(struct urlgen_corpus *c, uint64_t seed, size_t count,
			 int absolute_only)
{
	static struct urlgen g;
	static char buf[URLGEN_MAX];
	size_t last_base = 0, last_len = 0, i = 0;

	memset(c, 0, sizeof(*c));
	c->links = corpus_realloc(NULL, count * sizeof(*c->links));
	urlgen_init(&g, seed);
	while (i < count) {
		const char *base;
		size_t len = urlgen_next(&g, buf, sizeof(buf), &base);
		struct urlgen_link *l = &c->links[i];

		if (base && absolute_only)
			continue;
		i++;
		l->off = corpus_add(c, buf, len);
		l->len = len;
		l->base_off = l->base_len = 0;
		if (!base)
			continue;
		c->n_relative++;
		if (!last_len || strcmp(c->text + last_base, base) != 0) {
			last_len = strlen(base);
			last_base = corpus_add(c, base, last_len);
			c->n_pages++;
		}
		l->base_off = last_base;
		l->base_len = last_len;
	}
	c->n = count;
}

void urlgen_corpus_free(struct urlgen_corpus *c)
{
	free(c->text);
	free(c->links);
	memset(c, 0, sizeof(*c));
}
