/* test-robots.c — unit tests of the robots.txt parser (RFC 9309). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "parse.h"

static struct parse_robots *parse(const char *txt, const char *agent)
{
	struct parse_robots *r = NULL;

	if (parse_robots(txt, strlen(txt), agent, &r) != 0)
		return NULL;
	return r;
}

static bool allowed(const struct parse_robots *r, const char *path)
{
	return parse_robots_allowed(r, path, strlen(path));
}

/* The example of RFC 9309 §5.1, and its groups. */
static void test_rfc_example(void)
{
	static const char txt[] = "User-Agent: *\n"
				  "Disallow: *.gif$\n"
				  "Disallow: /example/\n"
				  "Allow: /publications/\n"
				  "\n"
				  "User-Agent: foobot\n"
				  "Disallow:/\n"
				  "Allow:/example/page.html\n"
				  "Allow:/example/allowed.gif\n"
				  "\n"
				  "User-Agent: barbot\n"
				  "User-Agent: bazbot\n"
				  "Disallow: /example/page.html\n"
				  "\n"
				  "User-Agent: quxbot\n"
				  "\n"
				  "EOF\n";
	struct parse_robots *r;

	r = parse(txt, "foobot");
	CHECK(r != NULL);
	CHECK(allowed(r, "/example/page.html"));
	CHECK(allowed(r, "/example/allowed.gif"));
	CHECK(!allowed(r, "/example/other.gif"));
	CHECK(!allowed(r, "/"));
	CHECK(!allowed(r, ""));
	CHECK(allowed(r, "/robots.txt"));
	CHECK(allowed(r, "/robots.txt?x=1"));
	parse_robots_free(r);

	/* barbot and bazbot share one group. */
	r = parse(txt, "BazBot");
	CHECK(!allowed(r, "/example/page.html"));
	CHECK(allowed(r, "/example/"));
	CHECK(allowed(r, "/x.gif")); /* not the * group's rules */
	parse_robots_free(r);

	/* quxbot's group is empty: it allows all, * is not consulted. */
	r = parse(txt, "quxbot");
	CHECK(allowed(r, "/example/x"));
	CHECK(allowed(r, "/a.gif"));
	parse_robots_free(r);

	/* Anyone else falls back to *. */
	r = parse(txt, "sigcrawl");
	CHECK(!allowed(r, "/a/b.gif"));
	CHECK(allowed(r, "/a/b.gif?x"));
	CHECK(!allowed(r, "/example/x"));
	CHECK(allowed(r, "/example"));
	CHECK(allowed(r, "/publications/x"));
	parse_robots_free(r);
}

static void test_groups(void)
{
	struct parse_robots *r;

	/* Two groups for the same agent merge (RFC 9309 §2.2.1). */
	r = parse("user-agent: sigcrawl\ndisallow: /a\n"
		  "user-agent: other\ndisallow: /b\n"
		  "User-Agent: SIGCRAWL\ndisallow: /c\n",
		  "sigcrawl");
	CHECK(!allowed(r, "/a") && !allowed(r, "/c"));
	CHECK(allowed(r, "/b"));
	parse_robots_free(r);

	/* The product token of the line: version and comments ignored;
	 * a longer name is another agent. */
	r = parse("User-agent: sigcrawl/2.0 (+http://x)\nDisallow: /v\n"
		  "User-agent: sigcrawler\nDisallow: /w\n"
		  "User-agent: *\nDisallow: /star\n",
		  "sigcrawl");
	CHECK(!allowed(r, "/v"));
	CHECK(allowed(r, "/w"));
	CHECK(allowed(r, "/star")); /* a specific group exists */
	parse_robots_free(r);
	/* The caller may pass its whole user agent. */
	r = parse("User-agent: sigcrawl\nDisallow: /v\n", "SigCrawl/0.1.0");
	CHECK(!allowed(r, "/v"));
	parse_robots_free(r);
	r = parse("User-agent: sigcrawl\nDisallow: /v\n", "sig");
	CHECK(allowed(r, "/v"));
	parse_robots_free(r);

	/* A group naming both * and us gets the rules once, via us. */
	r = parse("User-agent: *\nUser-agent: sigcrawl\nDisallow: /both\n",
		  "sigcrawl");
	CHECK(!allowed(r, "/both"));
	parse_robots_free(r);

	/* Rules before any user-agent line belong to no group; other
	 * records between user-agent lines do not split the group. */
	r = parse("Disallow: /orphan\nUser-agent: x\nSitemap: "
		  "http://a/s.xml\nUser-agent: sigcrawl\nDisallow: /g\n",
		  "sigcrawl");
	CHECK(allowed(r, "/orphan"));
	CHECK(!allowed(r, "/g"));
	parse_robots_free(r);

	/* No group at all, or no applicable one: all allowed. */
	r = parse("", "sigcrawl");
	CHECK(r && allowed(r, "/anything"));
	CHECK(parse_robots_crawl_delay_ms(r) == 0);
	parse_robots_free(r);
	r = parse("User-agent: other\nDisallow: /\n", "sigcrawl");
	CHECK(allowed(r, "/"));
	parse_robots_free(r);
	r = parse("<html><body>Not found</body></html>", "sigcrawl");
	CHECK(allowed(r, "/"));
	parse_robots_free(r);

	/* Misspelt keys, as the big crawlers accept them. */
	r = parse("useragent: *\ndissallow: /typo\n", "sigcrawl");
	CHECK(!allowed(r, "/typo/x"));
	parse_robots_free(r);
}

static void test_matching(void)
{
	struct parse_robots *r;

	/* Longest match wins, either way. */
	r = parse("User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: "
		  "/a/b/c\n",
		  "sigcrawl");
	CHECK(!allowed(r, "/a"));
	CHECK(!allowed(r, "/ab"));
	CHECK(allowed(r, "/a/b"));
	CHECK(allowed(r, "/a/bx"));
	CHECK(!allowed(r, "/a/b/c/d"));
	CHECK(allowed(r, "/b"));
	parse_robots_free(r);

	/* Equal length: Allow wins (order in the file does not matter). */
	r = parse("User-agent: *\nDisallow: /page\nAllow: /page\n", "x");
	CHECK(allowed(r, "/page"));
	parse_robots_free(r);
	r = parse("User-agent: *\nAllow: /p*\nDisallow: /p/\n", "x");
	CHECK(allowed(r, "/p/"));
	parse_robots_free(r);

	/* $ anchors; * matches any run, also empty; $ in the middle is a
	 * literal. */
	r = parse("User-agent: *\nDisallow: /*.php$\nDisallow: /x*y*z\n"
		  "Disallow: /lit$eral\nDisallow: /end$\n",
		  "x");
	CHECK(!allowed(r, "/index.php"));
	CHECK(allowed(r, "/index.php?q=1"));
	CHECK(allowed(r, "/index.php5"));
	CHECK(!allowed(r, "/a/b.php"));
	CHECK(!allowed(r, "/xyz"));
	CHECK(!allowed(r, "/x-y-z/more"));
	CHECK(allowed(r, "/x-z-y"));
	CHECK(!allowed(r, "/lit$eral"));
	CHECK(!allowed(r, "/lit%24eral"));
	CHECK(!allowed(r, "/end"));
	CHECK(allowed(r, "/end/"));
	parse_robots_free(r);

	/* "Disallow: /" and "Allow: /$". */
	r = parse("User-agent: *\nDisallow: /\nAllow: /$\n", "x");
	CHECK(allowed(r, "/"));
	CHECK(allowed(r, ""));
	CHECK(!allowed(r, "/a"));
	CHECK(!allowed(r, "/?q"));
	parse_robots_free(r);

	/* An empty Disallow allows; a pattern without a leading '/'. */
	r = parse("User-agent: *\nDisallow:\nDisallow: tmp\n", "x");
	CHECK(allowed(r, "/"));
	CHECK(!allowed(r, "/tmp/a"));
	parse_robots_free(r);

	/* Query strings take part. */
	r = parse("User-agent: *\nDisallow: /*?sort=\n", "x");
	CHECK(!allowed(r, "/list?sort=asc"));
	CHECK(allowed(r, "/list?page=2"));
	parse_robots_free(r);
}

static void test_percent(void)
{
	struct parse_robots *r;

	/* RFC 9309 §2.2.2's table, both directions. */
	r = parse("User-agent: *\n"
		  "Disallow: /foo/bar?baz=quz\n"
		  "Disallow: /foo/bar?baz=https://foo.bar\n"
		  "Disallow: /foo/bar/\xe3\x83\x84\n"
		  "Disallow: /foo/bar/%E3%82%84\n"
		  "Disallow: /foo/bar/%62%61%7A\n"
		  "Disallow: /a%2fb\n"
		  "Disallow: /star%2A\n",
		  "x");
	CHECK(!allowed(r, "/foo/bar?baz=quz"));
	/* Decision: escapes of reserved characters stay distinct from
	 * the characters (RFC 3986 §6.2.2.2 makes them different URIs). */
	CHECK(allowed(r, "/foo/bar?baz=https%3A%2F%2Ffoo.bar"));
	CHECK(!allowed(r, "/foo/bar?baz=https://foo.bar"));
	CHECK(!allowed(r, "/foo/bar/%E3%83%84"));
	CHECK(!allowed(r, "/foo/bar/%e3%83%84"));
	CHECK(!allowed(r, "/foo/bar/\xe3\x83\x84"));
	CHECK(!allowed(r, "/foo/bar/%E3%82%84"));
	CHECK(allowed(r, "/foo/bar/%E3%82%85"));
	CHECK(!allowed(r, "/foo/bar/baz"));
	CHECK(!allowed(r, "/foo/bar/%62az"));
	/* Reserved escapes stay distinct from their characters. */
	CHECK(!allowed(r, "/a%2Fb"));
	CHECK(allowed(r, "/a/b"));
	/* A literal '*' in a path matches an escaped rule. */
	CHECK(!allowed(r, "/star*"));
	CHECK(!allowed(r, "/star%2a"));
	CHECK(allowed(r, "/starX"));
	parse_robots_free(r);

	/* Unreserved escapes in the path match plain rules; a bad escape
	 * is a literal '%'. */
	r = parse("User-agent: *\nDisallow: /~joe\nDisallow: /100%\n", "x");
	CHECK(!allowed(r, "/%7Ejoe/x"));
	CHECK(!allowed(r, "/%7ejoe"));
	CHECK(!allowed(r, "/100%25"));
	CHECK(!allowed(r, "/100%"));
	parse_robots_free(r);
}

static void test_delay_and_sitemaps(void)
{
	struct parse_robots *r;

	r = parse("User-agent: *\nCrawl-delay: 2.5\nSitemap: "
		  "http://a.com/s1.xml\nUser-agent: z\nCrawl-delay: 9\n"
		  "sitemap:http://a.com/s2.xml # two\n",
		  "sigcrawl");
	CHECK(parse_robots_crawl_delay_ms(r) == 2500);
	CHECK_STR(parse_robots_sitemap(r, 0), "http://a.com/s1.xml");
	CHECK_STR(parse_robots_sitemap(r, 1), "http://a.com/s2.xml");
	CHECK(parse_robots_sitemap(r, 2) == NULL);
	parse_robots_free(r);

	/* Seventy Sitemap lines: the array grows as they come (4, 8, ...)
	 * and stops at the limit of 64, in order; none: an empty list. */
	char many[70 * 32 + 1];
	size_t n = 0;
	for (int i = 0; i < 70; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n,
				      "Sitemap: http://a.com/m%d.xml\n", i);
	r = parse(many, "sigcrawl");
	CHECK_STR(parse_robots_sitemap(r, 0), "http://a.com/m0.xml");
	CHECK_STR(parse_robots_sitemap(r, 4), "http://a.com/m4.xml");
	CHECK_STR(parse_robots_sitemap(r, 63), "http://a.com/m63.xml");
	CHECK(parse_robots_sitemap(r, 64) == NULL);
	parse_robots_free(r);
	r = parse("User-agent: *\nDisallow: /x\n", "sigcrawl");
	CHECK(r && parse_robots_sitemap(r, 0) == NULL);
	parse_robots_free(r);

	static const struct {
		const char *v;
		uint32_t ms;
	} t[] = {
		{ "10", 10000 },
		{ "0.5", 500 },
		{ ".25", 250 },
		{ "3.", 3000 },
		{ "1.2345", 1234 },
		{ "600", 60000 },
		{ "99999999999999999999", 60000 },
		{ "-1", 0 },
		{ "abc", 0 },
		{ "5s", 0 },
		{ "", 0 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char txt[128];

		snprintf(txt, sizeof(txt), "User-agent: *\nCrawl-delay: %s\n",
			 t[i].v);
		r = parse(txt, "sigcrawl");
		CHECK(parse_robots_crawl_delay_ms(r) == t[i].ms);
		parse_robots_free(r);
	}
	/* Two delays for our group: the longer. */
	r = parse("User-agent: sigcrawl\nCrawl-delay: 1\nUser-agent: "
		  "sigcrawl\nCrawl-delay: 3\nUser-agent: *\nCrawl-delay: 30\n",
		  "sigcrawl");
	CHECK(parse_robots_crawl_delay_ms(r) == 3000);
	parse_robots_free(r);
}

static void test_syntax(void)
{
	struct parse_robots *r;
	const char *ends[] = { "\r\n", "\r", "\n" };

	for (size_t i = 0; i < 3; i++) {
		char txt[256];

		snprintf(txt, sizeof(txt),
			 "\xef\xbb\xbfUser-agent: *%s# comment%sDisallow: "
			 "/x # trailing comment%s  Allow  :  /x/y  %s%s"
			 "garbage line%sDisallow /nocolon%s",
			 ends[i], ends[i], ends[i], ends[i], ends[i], ends[i],
			 ends[i]);
		r = parse(txt, "sigcrawl");
		CHECK(!allowed(r, "/x"));
		CHECK(!allowed(r, "/x/"));
		CHECK(allowed(r, "/x/y"));
		/* No colon: a known key, blank, one value (as Google). */
		CHECK(!allowed(r, "/nocolon"));
		parse_robots_free(r);
	}
	/* A comment with '#' inside a pattern cuts it. */
	r = parse("User-agent: *\nDisallow: /a#b\n", "x");
	CHECK(!allowed(r, "/a"));
	parse_robots_free(r);

	/* Bad arguments. */
	r = NULL;
	CHECK(parse_robots("", 0, "", &r) == SC_E_INVAL && r == NULL);
	CHECK(parse_robots(NULL, 1, "x", &r) == SC_E_INVAL && r == NULL);
	CHECK(parse_robots(NULL, 0, "x", &r) == 0 && allowed(r, "/"));
	parse_robots_free(r);
	parse_robots_free(NULL);
}

/* A robots.txt of comment lines with "Disallow: /cutline\n" starting at
 * offset at, and "Disallow: /after\n" behind it.  Returns its length. */
static size_t build_big(char *txt, size_t at)
{
	static const char head[] = "User-agent: *\nDisallow: /first\n";
	size_t n = sizeof(head) - 1;

	memcpy(txt, head, n);
	for (; n < at; n++)
		txt[n] = n % 64 == 63 ? '\n' : '#';
	txt[at - 1] = '\n';
	n += (size_t)sprintf(txt + n, "Disallow: /cutline\n");
	n += (size_t)sprintf(txt + n, "Disallow: /after\n");
	return n;
}

/* Only the first 500 KiB count; the line cut by the limit is dropped. */
static void test_size_cap(void)
{
	const size_t lim = SC_ROBOTS_MAX_BYTES, line = 19;
	char *txt = malloc(lim + 4096);
	struct parse_robots *r;
	size_t n;

	if (!txt) {
		perror("malloc");
		exit(1);
	}
	/* The rule straddles the limit. */
	n = build_big(txt, lim - 5);
	CHECK(parse_robots(txt, n, "sigcrawl", &r) == 0);
	CHECK(!allowed(r, "/first"));
	CHECK(allowed(r, "/cutline"));
	CHECK(allowed(r, "/after"));
	parse_robots_free(r);
	/* The rule's newline is the last byte inside the limit. */
	n = build_big(txt, lim - line);
	CHECK(parse_robots(txt, n, "sigcrawl", &r) == 0);
	CHECK(!allowed(r, "/cutline"));
	CHECK(allowed(r, "/after"));
	parse_robots_free(r);
	free(txt);
}

static void test_constructors(void)
{
	struct parse_robots *r = NULL;

	CHECK(parse_robots_allow_all(&r) == 0 && r);
	CHECK(allowed(r, "/") && allowed(r, "/a?b"));
	CHECK(parse_robots_crawl_delay_ms(r) == 0);
	parse_robots_free(r);
	CHECK(parse_robots_disallow_all(&r) == 0 && r);
	CHECK(!allowed(r, "/") && !allowed(r, "/a?b"));
	CHECK(allowed(r, "/robots.txt"));
	parse_robots_free(r);
}

/* Rules that allow all are one object, whichever host they are for: a
 * 404's, and a file that says nothing for us, take no memory a host.
 * Freeing one leaves the others as they were; rules that say something
 * are each their own. */
static void test_shared_allow_all(void)
{
	struct parse_robots *a = NULL, *b = NULL, *c, *d, *e;

	CHECK(parse_robots_allow_all(&a) == 0 &&
	      parse_robots_allow_all(&b) == 0);
	CHECK(a && a == b);
	c = parse("User-agent: *\nDisallow:\n", "sigcrawl");
	d = parse("User-agent: other\nDisallow: /\n", "sigcrawl");
	CHECK(c == a && d == a);
	parse_robots_free(a);
	parse_robots_free(c);
	CHECK(allowed(b, "/") && allowed(b, "/x?y"));
	CHECK(parse_robots_crawl_delay_ms(b) == 0 &&
	      !parse_robots_sitemap(b, 0));
	parse_robots_free(b);
	parse_robots_free(d);
	/* Something for us: a rule, a delay or a sitemap. */
	c = parse("User-agent: *\nDisallow: /p\n", "sigcrawl");
	d = parse("User-agent: *\nCrawl-delay: 2\n", "sigcrawl");
	e = parse("Sitemap: http://a.test/s.xml\n", "sigcrawl");
	CHECK(c && c != a && !allowed(c, "/p"));
	CHECK(d && d != a && parse_robots_crawl_delay_ms(d) == 2000);
	CHECK(e && e != a && parse_robots_sitemap(e, 0));
	parse_robots_free(c);
	parse_robots_free(d);
	parse_robots_free(e);
	CHECK(parse_robots_allow_all(&a) == 0 && allowed(a, "/p"));
	parse_robots_free(a);
}

/* Malformed files read as Google's open-source parser reads them, which
 * is what site owners test against; each case is one its documentation
 * and tests describe, decided for obeying the site. */
static void test_lenient(void)
{
	struct parse_robots *r;

	/* "disallow /": the owner meant it. */
	r = parse("User-agent: *\ndisallow /\n", "sigcrawl");
	CHECK(r && !allowed(r, "/") && !allowed(r, "/any"));
	parse_robots_free(r);
	r = parse("user-agent sigcrawl\nDisallow\t/a\nallow /a/b\n",
		  "sigcrawl");
	CHECK(r && !allowed(r, "/a") && allowed(r, "/a/b") && allowed(r, "/c"));
	parse_robots_free(r);
	/* More than one value, or an unknown key: not guessed at. */
	r = parse("User-agent: *\nDisallow /a /b\nNoindex /c\nDisallow\n",
		  "sigcrawl");
	CHECK(r && allowed(r, "/a") && allowed(r, "/b") && allowed(r, "/c"));
	parse_robots_free(r);

	/* A whole or partial UTF-8 byte-order mark before the first line. */
	static const char *const boms[] = { "\xef\xbb\xbf", "\xef\xbb",
					    "\xef" };
	for (size_t i = 0; i < 3; i++) {
		char txt[64];
		snprintf(txt, sizeof(txt), "%sUser-agent: *\nDisallow: /x\n",
			 boms[i]);
		r = parse(txt, "sigcrawl");
		CHECK(r && !allowed(r, "/x"));
		parse_robots_free(r);
	}
	/* Other bytes are no mark: the first line is not a user-agent. */
	r = parse("\xbbUser-agent: *\nDisallow: /x\n", "sigcrawl");
	CHECK(r && allowed(r, "/x"));
	parse_robots_free(r);

	/* The misspellings Google accepts. */
	static const char *const dis[] = { "Dissallow", "dissalow", "DISALOW",
					   "diasllow", "disallaw" };
	for (size_t i = 0; i < 5; i++) {
		char txt[64];
		snprintf(txt, sizeof(txt), "User-agent: *\n%s: /x\n", dis[i]);
		r = parse(txt, "sigcrawl");
		CHECK(r && !allowed(r, "/x") && allowed(r, "/y"));
		parse_robots_free(r);
	}
	static const char *const ua[] = { "useragent", "user agent",
					  "User Agent" };
	for (size_t i = 0; i < 3; i++) {
		char txt[96];
		snprintf(txt, sizeof(txt),
			 "User-agent: *\nDisallow: /\n\n%s: sigcrawl\n"
			 "Disallow: /x\n",
			 ua[i]);
		r = parse(txt, "sigcrawl");
		CHECK(r && !allowed(r, "/x") && allowed(r, "/y"));
		parse_robots_free(r);
	}
}

/* A line longer than PARSE_ROBOTS_LINE_MAX is cut there: a cut Disallow
 * disallows the prefix, a cut Allow and a cut Sitemap are dropped, and the
 * next line is read. */
static void test_line_cap(void)
{
	const size_t cap = PARSE_ROBOTS_LINE_MAX, long_len = cap + 5000;
	char *txt = malloc(3 * long_len + 256), *path = malloc(long_len + 2);
	struct parse_robots *r;
	size_t n;

	if (!txt || !path) {
		perror("malloc");
		exit(1);
	}
	path[0] = '/';
	memset(path + 1, 'a', long_len);
	path[long_len + 1] = '\0';

	/* Disallow: /aaaa... (cut), then Disallow: /b. */
	n = (size_t)sprintf(txt, "User-agent: *\nDisallow: ");
	memcpy(txt + n, path, long_len);
	n += long_len;
	n += (size_t)sprintf(txt + n, "\nDisallow: /b\n");
	r = NULL;
	CHECK(parse_robots(txt, n, "sigcrawl", &r) == 0);
	CHECK(r && !allowed(r, path));
	CHECK(r && !allowed(r, "/b"));
	CHECK(r && allowed(r, "/a")); /* the cut prefix is long */
	parse_robots_free(r);

	/* Disallow: /, Allow: /aaaa... (cut, dropped), Allow: /c,
	 * Sitemap: http://s/aaaa... (cut, dropped), Sitemap: http://s/ok. */
	n = (size_t)sprintf(txt, "User-agent: *\nDisallow: /\nAllow: ");
	memcpy(txt + n, path, long_len);
	n += long_len;
	n += (size_t)sprintf(txt + n, "\nAllow: /c\nSitemap: http://s");
	memcpy(txt + n, path, long_len);
	n += long_len;
	n += (size_t)sprintf(txt + n, "\nSitemap: http://s/ok\n");
	r = NULL;
	CHECK(parse_robots(txt, n, "sigcrawl", &r) == 0);
	CHECK(r && !allowed(r, path));
	CHECK(r && allowed(r, "/c"));
	CHECK(r && parse_robots_sitemap(r, 0) &&
	      strcmp(parse_robots_sitemap(r, 0), "http://s/ok") == 0);
	CHECK(r && parse_robots_sitemap(r, 1) == NULL);
	parse_robots_free(r);

	/* The same Allow below the cap counts. */
	n = (size_t)sprintf(txt, "User-agent: *\nDisallow: /\nAllow: ");
	memcpy(txt + n, path, 100);
	n += 100;
	txt[n++] = '\n';
	r = NULL;
	CHECK(parse_robots(txt, n, "sigcrawl", &r) == 0);
	path[101] = '\0';
	CHECK(r && allowed(r, path));
	parse_robots_free(r);
	free(txt);
	free(path);
}

int main(void)
{
	test_rfc_example();
	test_groups();
	test_matching();
	test_percent();
	test_delay_and_sitemaps();
	test_syntax();
	test_lenient();
	test_line_cap();
	test_size_cap();
	test_constructors();
	test_shared_allow_all();
	return check_done();
}
