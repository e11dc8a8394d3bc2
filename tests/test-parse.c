/* test-parse.c — unit tests of parse_html(): link kinds, base URLs,
 * nofollow, meta refresh, canonical, title, dedup, malformed HTML, limits
 * and depth. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "parse.h"

#define PAGE "http://example.com/dir/page.html"

struct got {
	size_t n;
	char url[64][NORM_URL_MAX + 1];
	char found[64][NORM_URL_MAX + 1];
	uint8_t kind[64], rel[64], nofollow[64], follow[64];
	size_t total;
	size_t stop_after; /* 0: never stop */
};

static int collect(void *ctx, const struct parse_link *l)
{
	struct got *g = ctx;

	if (g->n < 64) {
		snprintf(g->url[g->n], sizeof(g->url[0]), "%s", l->url);
		CHECK(strlen(l->found) == l->found_len);
		snprintf(g->found[g->n], sizeof(g->found[0]), "%s", l->found);
		g->kind[g->n] = l->kind;
		g->rel[g->n] = l->rel;
		g->nofollow[g->n] = l->nofollow;
		g->follow[g->n] = l->follow;
		g->n++;
	}
	g->total++;
	if (g->stop_after && g->total == g->stop_after)
		return 42;
	return 0;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p) {
		perror("malloc");
		exit(1);
	}
	return p;
}

static struct norm_opts strict(void)
{
	struct norm_opts o = { 0 };

	o.steps = norm_profile_steps(NORM_PROFILE_STRICT);
	return o;
}

/* Parse html with the strict profile against PAGE; returns parse_html()'s
 * value. */
static int run(const char *html, struct got *g, struct parse_page *page)
{
	struct norm_opts o = strict();

	memset(g, 0, sizeof(*g));
	return parse_html(html, strlen(html), PAGE, strlen(PAGE), &o, collect,
			  g, page);
}

/* Index of url in g, or -1. */
static int find(const struct got *g, const char *url)
{
	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->url[i], url) == 0)
			return (int)i;
	return -1;
}

static void test_kinds(void)
{
	static const char html[] =
		"<html><head><link rel=stylesheet href=/s.css>"
		"<link rel='Shortcut ICON' href=/i.ico>"
		"<meta http-equiv=Refresh content='5; url=/r'></head>"
		"<body><a href=a.html>a</a>"
		"<map><area href=/area shape=rect></map>"
		"<iframe src=//other.org/if></iframe>"
		"<frameset><frame src=fr></frameset>"
		"<a>no href</a><img src=/img.png></body></html>";
	struct got g;
	struct parse_page p;
	int i;

	CHECK(run(html, &g, &p) == 0);
	CHECK(g.n == 6);
	CHECK(p.links_ok == 6);
	i = find(&g, "http://example.com/s.css");
	CHECK(i >= 0 && g.kind[i] == PARSE_LINK_LINK &&
	      g.rel[i] == PARSE_REL_STYLESHEET);
	i = find(&g, "http://example.com/i.ico");
	CHECK(i >= 0 && g.rel[i] == PARSE_REL_ICON);
	i = find(&g, "http://example.com/r");
	CHECK(i >= 0 && g.kind[i] == PARSE_LINK_REFRESH);
	i = find(&g, "http://example.com/dir/a.html");
	CHECK(i >= 0 && g.kind[i] == PARSE_LINK_A && !g.nofollow[i]);
	i = find(&g, "http://example.com/area");
	CHECK(i >= 0 && g.kind[i] == PARSE_LINK_AREA);
	i = find(&g, "http://other.org/if");
	CHECK(i >= 0 && g.kind[i] == PARSE_LINK_IFRAME);
	/* <frameset> after body content is ignored by the HTML parser, as
	 * in browsers; a frameset page proper: */
	CHECK(run("<html><frameset><frame src=fr><frame src='/x'>"
		  "</frameset></html>",
		  &g, &p) == 0);
	CHECK(g.n == 2);
	i = find(&g, "http://example.com/dir/fr");
	CHECK(i >= 0 && g.kind[i] == PARSE_LINK_FRAME);
	/* Document order. */
	CHECK(run("<a href=/1></a><a href=/2></a><a href=/3></a>", &g, &p) ==
	      0);
	CHECK(g.n == 3);
	CHECK_STR(g.url[0], "http://example.com/1");
	CHECK_STR(g.url[2], "http://example.com/3");
}

static void test_base(void)
{
	struct got g;
	struct parse_page p;

	/* Relative base resolves against the page; the first one wins;
	 * it applies to links before it in the document too. */
	CHECK(run("<a href=early></a><head><base href=/b/c/>"
		  "<base href=http://wrong.com/></head>"
		  "<a href=x>x</a><a href=../y>y</a>",
		  &g, &p) == 0);
	CHECK(p.has_base);
	CHECK(find(&g, "http://example.com/b/c/early") >= 0);
	CHECK(find(&g, "http://example.com/b/c/x") >= 0);
	CHECK(find(&g, "http://example.com/b/y") >= 0);
	CHECK(find(&g, "http://wrong.com/x") < 0);

	/* Absolute base on another host, scheme-relative links. */
	CHECK(run("<base href='https://cdn.net/v1/'><a href=z></a>"
		  "<a href=//h.org/q></a><a href='?p=1'></a>",
		  &g, &p) == 0);
	CHECK(find(&g, "https://cdn.net/v1/z") >= 0);
	CHECK(find(&g, "https://h.org/q") >= 0);
	CHECK(find(&g, "https://cdn.net/v1/?p=1") >= 0);

	/* A base without href does not count; a bad base leaves the page
	 * URL. */
	CHECK(run("<base target=_top><base href='http://[::1'><a href=k></a>",
		  &g, &p) == 0);
	CHECK(!p.has_base);
	CHECK(find(&g, "http://example.com/dir/k") >= 0);

	/* Bad page URL. */
	{
		struct norm_opts o = strict();

		CHECK(parse_html("", 0, "nope", 4, &o, NULL, NULL, &p) ==
		      SC_E_RELATIVE);
		CHECK(parse_html("", 0, "ftp://a/", 8, &o, NULL, NULL, &p) ==
		      SC_E_SCHEME);
		CHECK(parse_html(NULL, 0, PAGE, strlen(PAGE), &o, NULL, NULL,
				 &p) == 0);
		CHECK(parse_html(NULL, 1, PAGE, strlen(PAGE), &o, NULL, NULL,
				 &p) == SC_E_INVAL);
	}
}

static void test_bad_links(void)
{
	struct got g;
	struct parse_page p;

	CHECK(run("<a href='mailto:x@y.z'></a><a href='javascript:void(0)'>"
		  "</a><a href='http://a.com:99999/'></a><a href=''></a>"
		  "<a href='  '></a><a href='http://a.com/ok'></a>"
		  "<a href='ftp://f/'></a>",
		  &g, &p) == 0);
	CHECK(g.n == 2); /* "" resolves to the page itself */
	CHECK(find(&g, "http://a.com/ok") >= 0);
	CHECK(find(&g, PAGE) >= 0);
	CHECK(p.links_ok == 2);
	CHECK(p.links_bad == 4);
	CHECK(p.links_bad_by_code[-SC_E_SCHEME] == 3);
	CHECK(p.links_bad_by_code[-SC_E_PORT] == 1);
	CHECK(p.links_dup == 1); /* "  " is the page again */
}

static void test_nofollow(void)
{
	struct got g;
	struct parse_page p;
	int i;

	CHECK(run("<a href=/f rel='external NoFollow'>x</a>"
		  "<a href=/g rel=nofollowed>y</a><link rel=nofollow href=/l>",
		  &g, &p) == 0);
	i = find(&g, "http://example.com/f");
	CHECK(i >= 0 && g.nofollow[i] && (g.rel[i] & PARSE_REL_NOFOLLOW));
	i = find(&g, "http://example.com/g");
	CHECK(i >= 0 && !g.nofollow[i]);
	i = find(&g, "http://example.com/l");
	CHECK(i >= 0 && g.nofollow[i]);
	CHECK(!p.nofollow && !p.noindex);

	/* meta robots: anywhere, any case, comma lists; "none" is both. */
	CHECK(run("<a href=/a></a><meta name=ROBOTS content='NoFollow'>", &g,
		  &p) == 0);
	CHECK(p.nofollow && !p.noindex);
	CHECK(g.n == 1 && g.nofollow[0]);
	CHECK(run("<meta name=robots content='index,noindex'>", &g, &p) == 0);
	CHECK(p.noindex && !p.nofollow);
	CHECK(run("<meta name=robots content=none>", &g, &p) == 0);
	CHECK(p.noindex && p.nofollow);
	CHECK(run("<meta name=googlebot content=none><meta name=sigcrawl "
		  "content=none><meta content=noindex>",
		  &g, &p) == 0);
	CHECK(!p.noindex && !p.nofollow);

	/* X-Robots-Tag values: the same tokens; a value for another user
	 * agent is not ours. */
	CHECK(parse_robots_tag("noindex, nofollow", "sigcrawl") ==
	      (PARSE_ROBOTS_NOINDEX | PARSE_ROBOTS_NOFOLLOW));
	CHECK(parse_robots_tag("NONE", "sigcrawl") ==
	      (PARSE_ROBOTS_NOINDEX | PARSE_ROBOTS_NOFOLLOW));
	CHECK(parse_robots_tag("noindex", NULL) == PARSE_ROBOTS_NOINDEX);
	CHECK(parse_robots_tag(" nofollow ", NULL) == PARSE_ROBOTS_NOFOLLOW);
	CHECK(parse_robots_tag("otherbot: noindex, nofollow", "sigcrawl") == 0);
	CHECK(parse_robots_tag("SigCrawl: none", "sigcrawl") ==
	      (PARSE_ROBOTS_NOINDEX | PARSE_ROBOTS_NOFOLLOW));
	CHECK(parse_robots_tag("unavailable_after: 25 Jun 2010 15:00:00 PST, "
			       "noindex",
			       "sigcrawl") == PARSE_ROBOTS_NOINDEX);
	CHECK(parse_robots_tag("all", "sigcrawl") == 0);
	CHECK(parse_robots_tag("noindexx", "sigcrawl") == 0);
	CHECK(parse_robots_tag(NULL, "sigcrawl") == 0);
	/* <meta name=sigcrawl> counts when the caller names that agent. */
	{
		static const char h[] = "<meta name=SigCrawl content=none>"
					"<meta name=otherbot content=noindex>";
		struct norm_opts o = strict();
		struct parse_doc_opts po = { .robots_agent = "sigcrawl" };
		CHECK(parse_document(h, strlen(h), PAGE, strlen(PAGE), &o, &po,
				     NULL, NULL, &p) == 0);
		CHECK(p.noindex && p.nofollow);
		po.robots_agent = "otherbot";
		CHECK(parse_document(h, strlen(h), PAGE, strlen(PAGE), &o, &po,
				     NULL, NULL, &p) == 0);
		CHECK(p.noindex && !p.nofollow);
	}

	/* A nofollow occurrence first, a followable one later: reported
	 * again, followable; the other way round only once. */
	CHECK(run("<a rel=nofollow href=/d></a><a href=/d></a>"
		  "<a href=/e></a><a rel=nofollow href=/e></a>",
		  &g, &p) == 0);
	CHECK(g.n == 3);
	CHECK(g.nofollow[0] && !g.nofollow[1]);
	CHECK_STR(g.url[1], "http://example.com/d");
	CHECK(p.links_dup == 1);
	CHECK(!g.follow[0] && g.follow[1] && g.follow[2]);
}

/* Followability is decided before deduplication: a <link> that is not
 * followed (rel=author, stylesheet) naming a URL before the <a> that names
 * it does not hide the <a>, as in every Sphinx head. */
static void test_follow_before_dedup(void)
{
	struct got g;
	struct parse_page p;
	int i;

	CHECK(run("<head><link rel=author title='About' href=about.html>"
		  "<link rel=next href=n.html><link rel=stylesheet href=s.css>"
		  "<link rel=canonical href=page.html>"
		  "<link rel=alternate hreflang=de href=de.html></head>"
		  "<body><a href=about.html>about</a>"
		  "<a href=page.html>self</a><a href=n.html>next</a>"
		  "<link rel=author href=n.html></body>",
		  &g, &p) == 0);
	/* about.html: first as <link rel=author> (not followed), then
	 * again from the <a> (followed). */
	size_t n_about = 0, follow_about = 0;
	for (size_t k = 0; k < g.n; k++)
		if (strcmp(g.url[k], "http://example.com/dir/about.html") ==
		    0) {
			n_about++;
			follow_about += g.follow[k];
		}
	CHECK(n_about == 2 && follow_about == 1);
	i = find(&g, "http://example.com/dir/about.html");
	CHECK(i >= 0 && !g.follow[i] && g.kind[i] == PARSE_LINK_LINK);
	i = find(&g, "http://example.com/dir/s.css");
	CHECK(i >= 0 && !g.follow[i]);
	/* canonical and alternate are followed as the <link> they are, and
	 * the <a> to the same URL adds nothing. */
	i = find(&g, "http://example.com/dir/page.html");
	CHECK(i >= 0 && g.follow[i] && g.kind[i] == PARSE_LINK_LINK);
	i = find(&g, "http://example.com/dir/de.html");
	CHECK(i >= 0 && g.follow[i]);
	/* n.html: <link rel=next> is navigation, followed: the <a> and the
	 * later <link rel=author> to it are duplicates. */
	size_t n_next = 0;
	for (size_t k = 0; k < g.n; k++)
		n_next += strcmp(g.url[k], "http://example.com/dir/n.html") ==
			  0;
	CHECK(n_next == 1);
	i = find(&g, "http://example.com/dir/n.html");
	CHECK(i >= 0 && g.follow[i] && g.kind[i] == PARSE_LINK_LINK);
	CHECK(g.n == 6);

	/* Sphinx's head: search.html is linked only by <link rel=search>
	 * (and a form), genindex.html by rel=index; an OpenSearch
	 * description or a feed named by its type is not a page. */
	CHECK(run("<head><link rel=index title=Index href=genindex.html>"
		  "<link rel=search title=Search href=search.html>"
		  "<link rel=Prev href=p.html>"
		  "<link rel=search type='application/opensearchdescription+xml'"
		  " href=os.xml>"
		  "<link rel=next type='text/html; charset=utf-8' href=n2.html>"
		  "<link rel=preload href=f.woff2><link rel=license href=l.html>"
		  "</head><body><form action=search.html method=get></form>",
		  &g, &p) == 0);
	static const struct {
		const char *url;
		bool follow;
	} nav[] = {
		{ "http://example.com/dir/genindex.html", true },
		{ "http://example.com/dir/search.html", true },
		{ "http://example.com/dir/p.html", true },
		{ "http://example.com/dir/os.xml", false },
		{ "http://example.com/dir/n2.html", true },
		{ "http://example.com/dir/f.woff2", false },
		{ "http://example.com/dir/l.html", false },
	};
	for (size_t k = 0; k < sizeof(nav) / sizeof(*nav); k++) {
		i = find(&g, nav[k].url);
		CHECK(i >= 0 && (bool)g.follow[i] == nav[k].follow);
	}
	CHECK(g.n == sizeof(nav) / sizeof(*nav));

	/* Only occurrences not to follow: reported once, not followed. */
	CHECK(run("<link rel=author href=/x><a rel=nofollow href=/x></a>"
		  "<link rel=icon href=/x>",
		  &g, &p) == 0);
	CHECK(g.n == 1 && !g.follow[0]);
}

/* A page's other formats (PARSE_REL_FORMAT): rel=alternate with no
 * hreflang and a type that is not a feed.  Followed as any alternate
 * unless PARSE_NO_FORMATS, and then an <a> to the same URL still is. */
static void test_formats(void)
{
	static const char h[] =
		"<head><link rel=alternate type=text/plain href=raw.txt>"
		"<link rel='Alternate' type='text/html' href=plain.html>"
		"<link rel=alternate hreflang=de href=de.html>"
		"<link rel=alternate type='application/rss+xml' href=feed.xml>"
		"<link rel=alternate type=application/atom+xml href=atom.xml>"
		"<link rel=alternate href=print.html></head>"
		"<body><a href=print.html>print</a></body>";
	static const char *const format[] = { "raw.txt", "plain.html",
					      "print.html" };
	static const char *const page[] = { "de.html", "feed.xml", "atom.xml" };
	for (int no = 0; no < 2; no++) {
		struct got g = { 0 };
		struct parse_page p;
		struct norm_opts o = strict();
		struct parse_doc_opts po = { .flags = no ? PARSE_NO_FORMATS
							 : 0 };
		CHECK(parse_document(h, strlen(h), PAGE, strlen(PAGE), &o, &po,
				     collect, &g, &p) == 0);
		char u[NORM_URL_MAX + 1];
		for (size_t k = 0; k < 3; k++) {
			snprintf(u, sizeof(u), "http://example.com/dir/%s",
				 format[k]);
			int i = find(&g, u);
			CHECK(i >= 0 && (g.rel[i] & PARSE_REL_FORMAT));
			/* The first report: the <link>. */
			CHECK(i >= 0 && g.follow[i] == !no);
			snprintf(u, sizeof(u), "http://example.com/dir/%s",
				 page[k]);
			i = find(&g, u);
			CHECK(i >= 0 && !(g.rel[i] & PARSE_REL_FORMAT) &&
			      g.follow[i]);
		}
		/* print.html: reported again, followed, from the <a>. */
		size_t followed = 0;
		for (size_t k = 0; k < g.n; k++)
			if (strcmp(g.url[k],
				   "http://example.com/dir/print.html") == 0)
				followed += g.follow[k];
		CHECK(followed == 1);
	}
}

static void test_refresh(void)
{
	static const struct {
		const char *content, *want;
	} t[] = {
		{ "5; url=/r1", "http://example.com/r1" },
		{ "0;URL='/r2'", "http://example.com/r2" },
		{ "0, url = &quot;r3&quot; ", "http://example.com/dir/r3" },
		{ "3 url=/r4", "http://example.com/r4" },
		{ "1; /r5", "http://example.com/r5" },
		{ "0.5;url=http://x.org/r6", "http://x.org/r6" },
		{ "0; url='/r7", "http://example.com/r7" },
		{ "  7 ;   UrL=  /r8  ", "http://example.com/r8" },
		{ "5", NULL },
		{ "url=/no", NULL },
		{ "", NULL },
		{ "0; url=", NULL },
	};
	char html[256];
	struct got g;
	struct parse_page p;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(html, sizeof(html),
			 "<meta http-equiv=refresh content=\"%s\">",
			 t[i].content);
		CHECK(run(html, &g, &p) == 0);
		if (t[i].want) {
			CHECK(g.n == 1 && g.kind[0] == PARSE_LINK_REFRESH);
			CHECK_STR(g.url[0], t[i].want);
		} else {
			CHECK(g.n == 0);
		}
	}
	/* Not a refresh. */
	CHECK(run("<meta http-equiv=content-type content='0; url=/x'>", &g,
		  &p) == 0);
	CHECK(g.n == 0);
}

static void test_canonical(void)
{
	struct got g;
	struct parse_page p;
	int i;

	CHECK(run("<link rel=canonical href='mailto:a@b'>"
		  "<link rel='Canonical' href='/Canon?x#f'>"
		  "<link rel=canonical href=/second>",
		  &g, &p) == 0);
	CHECK(p.has_canonical);
	CHECK_STR(p.canonical, "http://example.com/Canon?x");
	i = find(&g, "http://example.com/Canon?x");
	CHECK(i >= 0 && (g.rel[i] & PARSE_REL_CANONICAL) &&
	      g.kind[i] == PARSE_LINK_LINK);
	/* Resolved against the base, even one that comes later. */
	CHECK(run("<link rel=canonical href=c><base href=/base/>", &g, &p) ==
	      0);
	CHECK_STR(p.canonical, "http://example.com/base/c");
	CHECK(run("<a rel=canonical href=/a>", &g, &p) == 0);
	CHECK(!p.has_canonical);
	CHECK(p.canonical[0] == '\0');
}

static void test_title(void)
{
	struct got g;
	struct parse_page p;
	static char big[2000];
	size_t n;

	CHECK(run("<title>\n  Hello \t\r\n  World  </title><title>2</title>",
		  &g, &p) == 0);
	CHECK_STR(p.title, "Hello World");
	CHECK(run("<title>a &amp; b &lt;c&gt;</title>", &g, &p) == 0);
	CHECK_STR(p.title, "a & b <c>");
	CHECK(run("<p>no title</p>", &g, &p) == 0);
	CHECK_STR(p.title, "");
	/* <title> in SVG is not the page's title. */
	CHECK(run("<svg><title>svg</title></svg><title>html</title>", &g, &p) ==
	      0);
	CHECK_STR(p.title, "html");

	/* Cut at 512 bytes, not inside a character: 511 ASCII bytes then
	 * 'é' (2 bytes) must drop the 'é'. */
	n = (size_t)sprintf(big, "<title>");
	memset(big + n, 'x', 511);
	n += 511;
	n += (size_t)sprintf(big + n, "\xc3\xa9yyyy</title>");
	CHECK(run(big, &g, &p) == 0);
	CHECK(strlen(p.title) == 511);
	/* 510 + 'é' fits exactly. */
	n = (size_t)sprintf(big, "<title>");
	memset(big + n, 'x', 510);
	n += 510;
	n += (size_t)sprintf(big + n, "\xc3\xa9yyyy</title>");
	CHECK(run(big, &g, &p) == 0);
	CHECK(strlen(p.title) == 512);
	CHECK(memcmp(p.title + 510, "\xc3\xa9", 2) == 0);
	/* A space at the cut is trimmed. */
	n = (size_t)sprintf(big, "<title>");
	memset(big + n, 'x', 511);
	n += 511;
	sprintf(big + n, "   yyyy</title>");
	CHECK(run(big, &g, &p) == 0);
	CHECK(strlen(p.title) == 511);
}

static void test_dup_and_malformed(void)
{
	struct got g;
	struct parse_page p;
	int i;

	CHECK(run("<a href=/x></a><a href='http://EXAMPLE.com:80/x#frag'></a>"
		  "<a href=../x></a><area href=/x>",
		  &g, &p) == 0);
	CHECK(g.n == 1 && p.links_ok == 1 && p.links_dup == 3);

	/* Unclosed tags, <a> inside <a>, unquoted and odd attributes. */
	CHECK(run("<div><p><a href=/one>one<a href=/two>two<p>"
		  "<a href=/three?a=1&b=2 class=x>three"
		  "<a HREF = \"/four\"><a href='/five'/>"
		  "<a href=/six",
		  &g, &p) == 0);
	CHECK(find(&g, "http://example.com/one") >= 0);
	CHECK(find(&g, "http://example.com/two") >= 0);
	CHECK(find(&g, "http://example.com/three?a=1&b=2") >= 0);
	CHECK(find(&g, "http://example.com/four") >= 0);
	CHECK(find(&g, "http://example.com/five") >= 0);
	/* A tag cut by the end of input is dropped (HTML: EOF in tag). */
	CHECK(find(&g, "http://example.com/six") < 0);

	/* Entities in attributes are decoded. */
	CHECK(run("<a href='/q?a=1&amp;b=2'></a>", &g, &p) == 0);
	CHECK(g.n == 1);
	CHECK_STR(g.url[0], "http://example.com/q?a=1&b=2");

	/* Script, style, comments, template, noscript: no links. */
	CHECK(run("<script>document.write('<a href=/s1></a>')</script>"
		  "<style>a{background:url(/s2)}</style>"
		  "<!-- <a href=/s3></a> -->"
		  "<template><a href=/s4></a></template>"
		  "<textarea><a href=/s5></a></textarea>"
		  "<a href=/real></a>",
		  &g, &p) == 0);
	CHECK(g.n == 1);
	i = find(&g, "http://example.com/real");
	CHECK(i == 0);

	/* SVG links are not HTML links. */
	CHECK(run("<svg><a href=/svg></a></svg>", &g, &p) == 0);
	CHECK(g.n == 0);
}

static void test_stop_and_null_fn(void)
{
	struct got g;
	struct parse_page p;
	struct norm_opts o = strict();
	static const char html[] = "<a href=/1></a><a href=/2></a>"
				   "<a href=/3></a><title>t</title>";

	memset(&g, 0, sizeof(g));
	g.stop_after = 2;
	CHECK(parse_html(html, strlen(html), PAGE, strlen(PAGE), &o, collect,
			 &g, &p) == 42);
	CHECK(g.total == 2);
	CHECK_STR(p.title, "t");
	CHECK(parse_html(html, strlen(html), PAGE, strlen(PAGE), &o, NULL, NULL,
			 &p) == 0);
	CHECK(p.links_ok == 3);
}

static int count_only(void *ctx, const struct parse_link *l)
{
	(*(size_t *)ctx)++;
	return l->url[0] == 'h' ? 0 : 1;
}

static void test_limits(void)
{
	struct norm_opts o = strict();
	struct parse_page p;
	size_t cap = 40 * (PARSE_LINKS_MAX + 500), n = 0, calls = 0;
	char *html = xmalloc(cap);

	for (unsigned i = 0; i < PARSE_LINKS_MAX + 500; i++)
		n += (size_t)sprintf(html + n, "<a href=/%u></a>", i);
	/* Duplicates after the cap are still duplicates, not drops. */
	n += (size_t)sprintf(html + n, "<a href=/0></a>");
	CHECK(parse_html(html, n, PAGE, strlen(PAGE), &o, count_only, &calls,
			 &p) == 0);
	CHECK(calls == PARSE_LINKS_MAX);
	CHECK(p.links_ok == PARSE_LINKS_MAX);
	CHECK(p.links_dropped == 500);
	CHECK(p.links_dup == 1);
	free(html);
}

/* 100,000 nested elements of several kinds: no stack overflow, the link
 * at the bottom found, in reasonable time (gumbo's scope checks make some
 * tags quadratic; <span> and <a> are not). */
static void test_deep(void)
{
	static const char *const tags[] = { "span", "i", "table" };
	const size_t depth = 100000;
	struct norm_opts o = strict();
	struct parse_page p;

	for (size_t t = 0; t < sizeof(tags) / sizeof(tags[0]); t++) {
		size_t tl = strlen(tags[t]), n = 0;
		char *html = xmalloc(depth * (tl + 2) + 64);
		size_t calls = 0;

		for (size_t i = 0; i < depth; i++)
			n += (size_t)sprintf(html + n, "<%s>", tags[t]);
		n += (size_t)sprintf(html + n, "<a href=/deep></a>");
		CHECK(parse_html(html, n, PAGE, strlen(PAGE), &o, count_only,
				 &calls, &p) == 0);
		CHECK(p.links_ok == 1 && calls == 1);
		free(html);
	}
}

/* 200,000 nested <div>: quadratic in gumbo (about 50 s); stopped by the
 * CPU budget instead, with nothing reported. */
static void test_div_bomb(void)
{
	const size_t depth = 200000;
	struct norm_opts o = strict();
	struct parse_page p;
	char *html = xmalloc(depth * 5 + 64);
	size_t n = 0, calls = 0;

	n += (size_t)sprintf(html, "<title>t</title><a href=/top></a>");
	for (size_t i = 0; i < depth; i++)
		n += (size_t)sprintf(html + n, "<div>");
	CHECK(parse_html(html, n, PAGE, strlen(PAGE), &o, count_only, &calls,
			 &p) == SC_E_LIMIT);
	CHECK(calls == 0 && p.links_ok == 0);
	free(html);
}

/* Parser threads: the same page parsed on several threads at once gives
 * the same links as on one (no shared state; normalize's IDNA cache is
 * per thread). */
static const char thread_page[] =
	"<title>Threads</title><base href=/t/><a href=a>a</a>"
	"<a href='http://b\xc3\xbc"
	"cher.de/x?utm_source=y&b=1'>b</a>"
	"<a href='//xn--bcher-kva.de/x?b=1'>dup</a><iframe src=../i></iframe>"
	"<a href='HTTP://\xe4\xbe\x8b\xe5\xad\x90.\xe6\xb5\x8b\xe8\xaf\x95/'>"
	"idn</a><a href=mailto:x@y>m</a>";

struct thread_result {
	unsigned long sum;
	unsigned links, bad, failures;
};

static int sum_link(void *ctx, const struct parse_link *l)
{
	unsigned long *sum = ctx;

	for (const char *p = l->url; *p; p++)
		*sum = *sum * 31 + (unsigned char)*p;
	return 0;
}

static void *thread_run(void *arg)
{
	struct thread_result *res = arg;
	struct norm_opts o = { 0 };
	struct parse_page p;

	o.steps = norm_profile_steps(NORM_PROFILE_EXTENDED);
	for (int i = 0; i < 200; i++) {
		unsigned long sum = 0;

		if (parse_html(thread_page, strlen(thread_page), PAGE,
			       strlen(PAGE), &o, sum_link, &sum, &p) != 0 ||
		    strcmp(p.title, "Threads") != 0)
			res->failures++;
		if (i == 0) {
			res->sum = sum;
			res->links = p.links_ok;
			res->bad = p.links_bad;
		} else if (sum != res->sum || p.links_ok != res->links) {
			res->failures++;
		}
	}
	return NULL;
}

static void test_threads(void)
{
	struct thread_result one = { 0 }, res[4] = { { 0 } };
	pthread_t t[4];

	thread_run(&one);
	CHECK(one.failures == 0 && one.links == 4 && one.bad == 1);
	for (int i = 0; i < 4; i++)
		CHECK(pthread_create(&t[i], NULL, thread_run, &res[i]) == 0);
	for (int i = 0; i < 4; i++) {
		CHECK(pthread_join(t[i], NULL) == 0);
		CHECK(res[i].failures == 0);
		CHECK(res[i].sum == one.sum && res[i].links == one.links);
	}
}

/* Each link also comes as written, made absolute against the base but not
 * normalized: the first occurrence's, for the export's url. */
static void test_found(void)
{
	static const char html[] =
		"<a href='x/../Y?b=2&amp;a=1#F'>1</a>"
		"<a href='HTTP://Other.ORG:80/%7euser/'>2</a>"
		"<a href='Y?b=2&a=1#G'>same key, later</a>";
	struct got g;
	struct parse_page p;
	int i;

	CHECK(run(html, &g, &p) == 0);
	CHECK(g.n == 2);
	i = find(&g, "http://example.com/dir/Y?b=2&a=1");
	CHECK(i >= 0);
	if (i >= 0)
		CHECK_STR(g.found[i], "http://example.com/dir/Y?b=2&a=1#F");
	i = find(&g, "http://other.org/~user/");
	CHECK(i >= 0);
	if (i >= 0)
		CHECK_STR(g.found[i], "HTTP://Other.ORG:80/%7euser/");
}

/* What a link shows, for link prediction: its keywords (hits), its text,
 * title attribute and the teaser before it (anchor). */
struct shown {
	size_t n;
	char url[16][128];
	char anchor[16][PARSE_ANCHOR_MAX + 1];
	unsigned hits[16];
};

static int collect_shown(void *ctx, const struct parse_link *l)
{
	struct shown *s = ctx;
	CHECK(l->anchor_len <= PARSE_ANCHOR_MAX);
	if (s->n < 16) {
		snprintf(s->url[s->n], sizeof(s->url[0]), "%s", l->url);
		memcpy(s->anchor[s->n], l->anchor, l->anchor_len);
		s->anchor[s->n][l->anchor_len] = '\0';
		s->hits[s->n++] = l->hits;
	}
	return 0;
}

static int shown_at(const struct shown *s, const char *url)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->url[i], url) == 0)
			return (int)i;
	return -1;
}

static void test_link_evidence(void)
{
	static const char *const kw[] = { "football", "penalty kick",
					  "striker" };
	struct parse_keywords *k;
	CHECK(parse_keywords_new(kw, 3, &k) == 0);
	static const char html[] =
		"<title>t</title><body><p>Intro text.</p><ul>"
		"<li><a href=/a>The <b>Striker</b> scores</a></li>"
		"<li>A late penalty kick decides it. <a href=/b>Read more</a></li>"
		"<li><a href=/c title='Football weekly'>Open</a></li>"
		"<li><a href=/football/d>x</a></li>"
		"<li><a href=/e>Soup and bread</a></li>"
		"<li><a href=/f>Read more</a></li>"
		"</ul><p>The striker <a href=/g>more</a></p>"
		"<map><area href=/h alt='striker map'></map>"
		"<a href=/i><div>" /* an <a> around much more than a label */
		"striker striker striker striker striker striker striker "
		"striker striker striker striker striker striker striker "
		"striker striker striker striker striker striker striker "
		"striker striker striker striker striker striker striker "
		"striker striker striker striker striker striker striker "
		"</div></a></body>";
	struct norm_opts o = strict();
	uint64_t words[64];
	struct parse_doc_opts d = { .keywords = k,
				    .words = words,
				    .words_cap = 64 };
	struct parse_page page;
	struct shown s = { 0 };
	CHECK(parse_document(html, strlen(html), PAGE, strlen(PAGE), &o, &d,
			     collect_shown, &s, &page) == 0);
	int a = shown_at(&s, "http://example.com/a"),
	    b = shown_at(&s, "http://example.com/b"),
	    c = shown_at(&s, "http://example.com/c"),
	    dd = shown_at(&s, "http://example.com/football/d"),
	    e = shown_at(&s, "http://example.com/e"),
	    f = shown_at(&s, "http://example.com/f"),
	    g = shown_at(&s, "http://example.com/g"),
	    h = shown_at(&s, "http://example.com/h"),
	    i = shown_at(&s, "http://example.com/i");
	CHECK(a >= 0 && b >= 0 && c >= 0 && dd >= 0 && e >= 0 && f >= 0 &&
	      g >= 0 && h >= 0 && i >= 0);
	if (a < 0 || b < 0 || c < 0 || dd < 0 || e < 0 || f < 0 || g < 0 ||
	    h < 0 || i < 0)
		return;
	/* The text of the <a>, inner elements included. */
	CHECK(s.hits[a] == 1 && strstr(s.anchor[a], "Striker") &&
	      strstr(s.anchor[a], "scores"));
	/* A "Read more" shows its teaser: a phrase across the words. */
	CHECK(s.hits[b] == 1 && strstr(s.anchor[b], "penalty kick decides"));
	/* The title attribute, and the URL's words. */
	CHECK(s.hits[c] == 1 && strstr(s.anchor[c], "Football weekly"));
	CHECK(s.hits[dd] == 1);
	/* Nothing: no keyword, and the teaser of another link is not this
	 * one's (the previous <li> holds a link). */
	CHECK(s.hits[e] == 0 && s.hits[f] == 0);
	CHECK(strstr(s.anchor[f], "Soup") == NULL);
	/* The text before it in its parent. */
	CHECK(s.hits[g] == 1 && strstr(s.anchor[g], "more The striker"));
	CHECK(s.hits[h] == 1 && strstr(s.anchor[h], "striker map"));
	/* Bounded: at most PARSE_ANCHOR_TEXT_MAX bytes of its own text, and
	 * no teaser (the element before it holds a link). */
	CHECK(strlen(s.anchor[i]) <= PARSE_ANCHOR_TEXT_MAX && s.hits[i] == 1);
	CHECK(strstr(s.anchor[i], "The") == NULL);

	/* The body's words, as a set, hashed as parse_words() hashes: the
	 * page's own words, not those of its links' text, which describe
	 * the pages they lead to ("soup", "bread" and "scores" stand only
	 * in links; "striker" in a paragraph too). */
	uint64_t w[8];
	static const char own[] = "Striker INTRO penalty",
			  other[] = "soup bread scores zebra";
	size_t n = parse_words(own, strlen(own), w, 8);
	CHECK(n == 3);
	size_t found = 0, slots = 0;
	for (size_t j = 0; j < 64; j++) {
		slots += words[j] != 0;
		for (size_t m = 0; m < n; m++)
			found += words[j] == w[m];
	}
	CHECK(slots == page.n_words && page.n_words > 6 && page.n_words <= 32);
	CHECK(found == 3);
	n = parse_words(other, strlen(other), w, 8);
	CHECK(n == 4);
	found = 0;
	for (size_t j = 0; j < 64; j++)
		for (size_t m = 0; m < n; m++)
			found += words[j] == w[m];
	CHECK(found == 0);
	/* A word is the page's or a link's by where it begins: "lead"
	 * begins before the <a>, "ing" is part of it; "tail" begins inside
	 * and ends after it. */
	static const char edge[] =
		"<p>lead<a href=/x>ing</a> <a href=/y>ta</a>il end</p>";
	CHECK(parse_document(edge, strlen(edge), PAGE, strlen(PAGE), &o, &d,
			     NULL, NULL, &page) == 0);
	uint64_t lw[3];
	CHECK(parse_words("leading tail end", 16, lw, 3) == 3);
	bool has[3] = { false, false, false };
	for (size_t j = 0; j < 64; j++)
		for (size_t m = 0; m < 3; m++)
			has[m] = has[m] || words[j] == lw[m];
	CHECK(has[0] && !has[1] && has[2]);
	/* Words repeat only once; numbers are left out, words with a digit
	 * are not. */
	CHECK(parse_words("a b a B", 7, w, 8) == 2);
	CHECK(parse_words("2024 abc 7 x9 9x", 16, w, 8) == 3);
	struct parse_doc_opts nd = { .words = words, .words_cap = 64 };
	static const char nums[] = "<p>one 1 two 22 2024 three 3d</p>";
	CHECK(parse_document(nums, strlen(nums), PAGE, strlen(PAGE), &o, &nd,
			     NULL, NULL, &page) == 0);
	CHECK(page.n_words == 4);
	/* A bad capacity is refused. */
	d.words_cap = 48;
	CHECK(parse_document(html, strlen(html), PAGE, strlen(PAGE), &o, &d,
			     NULL, NULL, &page) == SC_E_INVAL);
	/* A keyword the page's own URL shows is nothing new in its links'
	 * URLs (a wiki article's edit and history links name it); in their
	 * text it counts, and so does a keyword the page's URL lacks. */
	static const char wiki[] =
		"<title>t</title><body>"
		"<a href='/w/index.php?action=edit&amp;title=Striker_goal'>"
		"Edit</a>"
		"<a href='/wiki/Talk:Striker_goal'>Talk about the striker</a>"
		"<a href='/wiki/Football_striker'>x</a>"
		"<a href='/football/striker'>y</a></body>";
	static const char article[] = "http://wiki.test/wiki/Striker_goal";
	d.words_cap = 64;
	memset(&s, 0, sizeof(s));
	CHECK(parse_document(wiki, strlen(wiki), article, strlen(article), &o,
			     &d, collect_shown, &s, &page) == 0);
	int ed = shown_at(&s, "http://wiki.test/w/index.php?action=edit&"
			      "title=Striker_goal"),
	    tk = shown_at(&s, "http://wiki.test/wiki/Talk:Striker_goal"),
	    fs = shown_at(&s, "http://wiki.test/wiki/Football_striker"),
	    fo = shown_at(&s, "http://wiki.test/football/striker");
	CHECK(ed >= 0 && tk >= 0 && fs >= 0 && fo >= 0);
	if (ed >= 0 && tk >= 0 && fs >= 0 && fo >= 0) {
		CHECK(s.hits[ed] == 0);
		CHECK(s.hits[tk] == 1);
		CHECK(s.hits[fs] == 1);
		CHECK(s.hits[fo] == 1);
	}
	/* On another page the same links show their keywords. */
	memset(&s, 0, sizeof(s));
	CHECK(parse_document(wiki, strlen(wiki), PAGE, strlen(PAGE), &o, &d,
			     collect_shown, &s, &page) == 0);
	ed = shown_at(&s, "http://example.com/w/index.php?action=edit&"
			  "title=Striker_goal");
	fo = shown_at(&s, "http://example.com/football/striker");
	CHECK(ed >= 0 && fo >= 0);
	if (ed >= 0 && fo >= 0)
		CHECK(s.hits[ed] == 1 && s.hits[fo] == 2);
	/* Without keywords, no text and no hits. */
	d = (struct parse_doc_opts){ 0 };
	memset(&s, 0, sizeof(s));
	CHECK(parse_document(html, strlen(html), PAGE, strlen(PAGE), &o, &d,
			     collect_shown, &s, &page) == 0);
	for (size_t j = 0; j < s.n; j++)
		CHECK(s.hits[j] == 0 && s.anchor[j][0] == '\0');
	parse_keywords_free(k);
}

/* The HTTP Link header's rel=canonical: several links, quoted and
 * listed rel values, other parameters, commas inside the target, and
 * hostile input that must end without one. */
static void test_link_header(void)
{
	char out[64];
	CHECK(parse_link_canonical("</a>; rel=canonical", out, sizeof(out)) ==
	      1);
	CHECK(strcmp(out, "/a") == 0);
	CHECK(parse_link_canonical("<http://x.test/s.css>; rel=stylesheet, "
				   "<http://x.test/b>; type=\"text/html\"; "
				   "rel=\"Alternate CANONICAL\"",
				   out, sizeof(out)) == 1);
	CHECK(strcmp(out, "http://x.test/b") == 0);
	CHECK(parse_link_canonical("<http://x.test/a,b>; title=\"a, rel=x\"; "
				   "rel=\"canonical\"",
				   out, sizeof(out)) == 1);
	CHECK(strcmp(out, "http://x.test/a,b") == 0);
	CHECK(parse_link_canonical(
		      "<http://x.test/p>; rel=prev, </n>; rel=next", out,
		      sizeof(out)) == 0);
	CHECK(parse_link_canonical("<http://x.test/p>; rel=canonicalx", out,
				   sizeof(out)) == 0);
	CHECK(parse_link_canonical("<unterminated; rel=canonical", out,
				   sizeof(out)) == 0);
	CHECK(parse_link_canonical("garbage, ;;;, \"rel=canonical", out,
				   sizeof(out)) == 0);
	CHECK(parse_link_canonical("</a-target-longer-than-the-buffer-given-"
				   "to-the-parser-here>; rel=canonical",
				   out, 8) == 0);
	CHECK(parse_link_canonical(NULL, out, sizeof(out)) == 0);
	CHECK(parse_link_canonical("<>; rel=canonical", out, sizeof(out)) == 1);
	CHECK(out[0] == '\0');
}

int main(void)
{
	test_link_header();
	test_link_evidence();
	test_kinds();
	test_found();
	test_base();
	test_bad_links();
	test_nofollow();
	test_follow_before_dedup();
	test_formats();
	test_refresh();
	test_canonical();
	test_title();
	test_dup_and_malformed();
	test_stop_and_null_fn();
	test_limits();
	test_deep();
	test_threads();
	test_div_bomb();
	return check_done();
}
