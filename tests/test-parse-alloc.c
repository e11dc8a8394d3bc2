/* test-parse-alloc.c — every allocation of the robots.txt and HTML parsers
 * may fail: as curl's torture tests do, the parse runs again and again with
 * its 1st, 2nd, 3rd ... allocation failing (sc_alloc_fail_nth()), until a
 * run ends without reaching the failure.  Each failed run must return
 * SC_E_NOMEM with nothing half-built (and, in the sanitizer build, nothing
 * leaked); the run that completes must give the same result as a parse
 * without failures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "parse.h"

static const char robots[] =
	"User-agent: *\nDisallow: /private\nAllow: /private/ok\n"
	"Crawl-delay: 2\nSitemap: http://a.test/s1.xml\n"
	"User-agent: sigcrawl\nDisallow: /x\nDisallow: /y*z$\n"
	"Sitemap: http://a.test/s2.xml\n";

static void torture_robots(void)
{
	struct parse_robots *want = NULL;
	CHECK(parse_robots(robots, strlen(robots), "sigcrawl", &want) == 0);
	unsigned long n, failed = 0;
	for (n = 1; n < 10000; n++) {
		struct parse_robots *r = (struct parse_robots *)1;
		sc_alloc_fail_nth(n);
		int rc = parse_robots(robots, strlen(robots), "sigcrawl", &r);
		bool reached = !sc_alloc_fail_pending();
		sc_alloc_fail_nth(0);
		if (!reached) {
			CHECK(rc == 0);
			CHECK(parse_robots_allowed(r, "/y1z", 4) ==
			      parse_robots_allowed(want, "/y1z", 4));
			CHECK(!parse_robots_allowed(r, "/x", 2));
			CHECK(parse_robots_allowed(r, "/private", 8));
			CHECK_STR(parse_robots_sitemap(r, 1),
				  "http://a.test/s2.xml");
			parse_robots_free(r);
			break;
		}
		failed++;
		if (rc != SC_E_NOMEM)
			fprintf(stderr, "robots: allocation %lu: rc %d\n", n,
				rc);
		CHECK(rc == SC_E_NOMEM);
	}
	printf("robots.txt: %lu allocations, each failed once\n", failed);
	CHECK(failed >= 4); /* rules, pattern buffer, sitemaps, result */
	parse_robots_free(want);
}

static int count(void *ctx, const struct parse_link *l)
{
	(*(unsigned *)ctx)++;
	return 0;
}

static void torture_html(void)
{
	/* Enough links to grow the link set, enough markup for several
	 * arena chunks. */
	size_t cap = 1 << 20, len = 0;
	char *html = malloc(cap);
	if (!html) {
		perror("malloc");
		exit(1);
	}
	len += (size_t)snprintf(
		html + len, cap - len,
		"<html><head><title>T</title>"
		"<base href='http://b.test/dir/'></head><body>");
	for (int i = 0; i < 3000 && len + 200 < cap; i++)
		len += (size_t)snprintf(html + len, cap - len,
					"<div><p>para %d <a href='p%d'>l</a>"
					"</p></div>",
					i, i);
	len += (size_t)snprintf(html + len, cap - len, "</body></html>");
	struct norm_opts o = { .steps = norm_profile_steps(
				       NORM_PROFILE_STRICT) };
	struct parse_page *pg = malloc(sizeof(*pg));
	unsigned want = 0;
	CHECK(pg && parse_html(html, len, "http://a.test/", 14, &o, count,
			       &want, pg) == 0);
	CHECK(want == 3000);
	unsigned long n, failed = 0;
	for (n = 1; n < 100000; n++) {
		unsigned got = 0;
		sc_alloc_fail_nth(n);
		int rc = parse_html(html, len, "http://a.test/", 14, &o, count,
				    &got, pg);
		bool reached = !sc_alloc_fail_pending();
		sc_alloc_fail_nth(0);
		if (!reached) {
			CHECK(rc == 0);
			CHECK(got == want);
			break;
		}
		failed++;
		if (rc != SC_E_NOMEM)
			fprintf(stderr, "html: allocation %lu: rc %d\n", n, rc);
		CHECK(rc == SC_E_NOMEM);
	}
	printf("HTML: %lu allocations, each failed once\n", failed);
	CHECK(failed >= 3); /* the walk, the link set, arena chunks */
	free(pg);
	free(html);
}

int main(void)
{
	torture_robots();
	torture_html();
	return check_done();
}
