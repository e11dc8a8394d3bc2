/* test-sitemap.c — unit tests of the sitemap parser (sitemaps.org 0.9):
 * urlsets and indexes, namespaces, entities and CDATA, text sitemaps,
 * gzip, the limits, documents that are not sitemaps, hostile XML (XXE,
 * billion laughs), cut documents, and W3C Datetimes. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "check.h"
#include "parse.h"

/* ---- Collecting entries ------------------------------------------------ */

#define KEEP 64 /* entries whose fields are kept; the rest are counted */

struct got {
	unsigned long n;
	char *loc[KEEP];
	int64_t lastmod[KEEP];
	enum parse_changefreq cf[KEEP];
	unsigned long stop_at; /* return 7 at this entry (1-based); 0: never */
	bool bad;              /* an entry broke the documented invariants */
	bool index_seen;       /* *is_index, as fn saw it on its first call */
	const bool *is_index;
};

static int collect(void *arg, const struct parse_sitemap_entry *e)
{
	struct got *g = arg;

	if (!e->loc || e->loc_len == 0 || e->loc_len > NORM_INPUT_MAX ||
	    strlen(e->loc) != e->loc_len || e->lastmod_ms < -1 ||
	    e->changefreq > PARSE_CHANGEFREQ_NEVER)
		g->bad = true;
	if (g->n == 0 && g->is_index)
		g->index_seen = *g->is_index;
	if (g->n < KEEP) {
		g->loc[g->n] = strndup(e->loc, e->loc_len);
		g->lastmod[g->n] = e->lastmod_ms;
		g->cf[g->n] = e->changefreq;
	}
	g->n++;
	return g->stop_at && g->n == g->stop_at ? 7 : 0;
}

static void got_free(struct got *g)
{
	for (unsigned long i = 0; i < g->n && i < KEEP; i++)
		free(g->loc[i]);
	memset(g, 0, sizeof(*g));
}

/* Parse len bytes into g (cleared first); returns parse_sitemap()'s
 * value.  *is_index is preset to the opposite of what is expected, so
 * that a parse which does not set it is caught. */
static int parse_n(const void *body, size_t len, struct got *g, bool *idx)
{
	bool dummy;
	unsigned long stop = g->stop_at;

	got_free(g);
	g->stop_at = stop;
	if (!idx)
		idx = &dummy;
	*idx = true;
	g->is_index = idx;
	return parse_sitemap(body, len, idx, collect, g);
}

static int parse_s(const char *body, struct got *g, bool *idx)
{
	return parse_n(body, strlen(body), g, idx);
}

static const char *loc(const struct got *g, unsigned long i)
{
	return i < g->n && i < KEEP ? g->loc[i] : "(none)";
}

/* ---- Building bodies --------------------------------------------------- */

/* A growable byte buffer for building test documents. */
struct buf {
	char *p;
	size_t len, cap;
};

static void buf_add(struct buf *b, const void *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void buf_str(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

static void buf_fill(struct buf *b, char c, size_t n)
{
	while (n > 0) {
		char tmp[4096];
		size_t k = n < sizeof(tmp) ? n : sizeof(tmp);

		memset(tmp, c, k);
		buf_add(b, tmp, k);
		n -= k;
	}
}

/* A gzip stream of one member being built, fed in pieces. */
struct gz {
	z_stream z;
	struct buf out;
};

static void gz_begin(struct gz *g)
{
	memset(g, 0, sizeof(*g));
	if (deflateInit2(&g->z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
}

static void gz_run(struct gz *g, const void *p, size_t n, int flush)
{
	unsigned char tmp[65536];

	g->z.next_in = (Bytef *)p;
	g->z.avail_in = (uInt)n;
	do {
		g->z.next_out = tmp;
		g->z.avail_out = sizeof(tmp);
		if (deflate(&g->z, flush) == Z_STREAM_ERROR)
			abort();
		buf_add(&g->out, tmp, sizeof(tmp) - g->z.avail_out);
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && g->z.avail_in));
}

static void gz_add(struct gz *g, const void *p, size_t n)
{
	gz_run(g, p, n, Z_NO_FLUSH);
}

/* Append n copies of byte c. */
static void gz_fill(struct gz *g, char c, size_t n)
{
	static char tmp[65536];

	memset(tmp, c, sizeof(tmp));
	while (n > 0) {
		size_t k = n < sizeof(tmp) ? n : sizeof(tmp);

		gz_add(g, tmp, k);
		n -= k;
	}
}

static struct buf gz_end(struct gz *g)
{
	gz_run(g, "", 0, Z_FINISH);
	deflateEnd(&g->z);
	return g->out;
}

static struct buf gzip_of(const char *s, size_t n)
{
	struct gz g;

	gz_begin(&g);
	gz_add(&g, s, n);
	return gz_end(&g);
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long max_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

/* ---- urlsets and indexes ----------------------------------------------- */

static void test_urlset(void)
{
	static const char doc[] =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
		"  <url>\n"
		"    <loc>http://www.example.com/</loc>\n"
		"    <lastmod>2005-01-01</lastmod>\n"
		"    <changefreq>monthly</changefreq>\n"
		"    <priority>0.8</priority>\n"
		"  </url>\n"
		"  <url><loc>http://www.example.com/a</loc>"
		"<changefreq>always</changefreq>"
		"<lastmod>2004-12-23T18:00:15+00:00</lastmod></url>\n"
		"  <url><loc>http://www.example.com/b</loc>"
		"<lastmod>2004-11-23</lastmod><changefreq>weekly</changefreq>"
		"</url>\n"
		"  <url><loc>http://www.example.com/c</loc>"
		"<changefreq>hourly</changefreq></url>\n"
		"  <url><loc>http://www.example.com/d</loc>"
		"<changefreq>daily</changefreq><lastmod>bad</lastmod></url>\n"
		"  <url><loc>http://www.example.com/e</loc>"
		"<changefreq>yearly</changefreq></url>\n"
		"  <url><loc>http://www.example.com/f</loc>"
		"<changefreq>never</changefreq></url>\n"
		"  <url><loc>http://www.example.com/g</loc>"
		"<changefreq>sometimes</changefreq></url>\n"
		"  <url><loc>http://www.example.com/h</loc>"
		"<changefreq> Weekly\n</changefreq>"
		"<lastmod>\n  2004-10-01T18:23:17+00:00  \n</lastmod></url>\n"
		"  <url><changefreq>daily</changefreq></url>\n"
		"  <url><loc>   </loc></url>\n"
		"  <url><loc/></url>\n"
		"  <url/>\n"
		"  <other><loc>http://www.example.com/no</loc></other>\n"
		"</urlset>\n";
	struct got g = { 0 };
	bool idx;

	CHECK(parse_s(doc, &g, &idx) == 0);
	CHECK(!idx);
	CHECK(!g.index_seen);
	CHECK(!g.bad);
	CHECK(g.n == 9);
	CHECK_STR(loc(&g, 0), "http://www.example.com/");
	CHECK(g.lastmod[0] == 1104537600000LL);
	CHECK(g.cf[0] == PARSE_CHANGEFREQ_MONTHLY);
	CHECK_STR(loc(&g, 1), "http://www.example.com/a");
	CHECK(g.lastmod[1] == 1103824815000LL);
	CHECK(g.cf[1] == PARSE_CHANGEFREQ_ALWAYS);
	CHECK(g.lastmod[2] == 1101168000000LL);
	CHECK(g.cf[2] == PARSE_CHANGEFREQ_WEEKLY);
	CHECK(g.lastmod[3] == -1);
	CHECK(g.cf[3] == PARSE_CHANGEFREQ_HOURLY);
	CHECK(g.lastmod[4] == -1);
	CHECK(g.cf[4] == PARSE_CHANGEFREQ_DAILY);
	CHECK(g.cf[5] == PARSE_CHANGEFREQ_YEARLY);
	CHECK(g.cf[6] == PARSE_CHANGEFREQ_NEVER);
	CHECK(g.cf[7] == PARSE_CHANGEFREQ_NONE);
	CHECK_STR(loc(&g, 8), "http://www.example.com/h");
	CHECK(g.cf[8] == PARSE_CHANGEFREQ_WEEKLY);
	CHECK(g.lastmod[8] == 1096654997000LL);

	/* fn may be NULL; the result is the same. */
	CHECK(parse_sitemap(doc, strlen(doc), NULL, NULL, NULL) == 0);

	/* An empty urlset is a sitemap with no entries. */
	CHECK(parse_s("<urlset/>", &g, &idx) == 0 && g.n == 0 && !idx);
	CHECK(parse_s("<urlset></urlset>", &g, NULL) == 0 && g.n == 0);

	/* The first non-empty field counts; priority and unknown fields are
	 * ignored; a <url> deeper than the root's children is no entry. */
	CHECK(parse_s("<urlset><url><loc></loc><loc>http://a/1</loc>"
		      "<loc>http://a/2</loc><lastmod>2001</lastmod>"
		      "<lastmod>2002</lastmod><x><loc>http://a/3</loc></x>"
		      "</url><group><url><loc>http://a/4</loc></url></group>"
		      "</urlset>",
		      &g, NULL) == 0);
	CHECK(g.n == 1);
	CHECK_STR(loc(&g, 0), "http://a/1");
	CHECK(g.lastmod[0] == 978307200000LL);

	/* A <sitemap> in a urlset is not one of its entries. */
	CHECK(parse_s("<urlset><sitemap><loc>http://a/s</loc></sitemap>"
		      "<url><loc>http://a/u</loc></url></urlset>",
		      &g, NULL) == 0);
	CHECK(g.n == 1 && strcmp(loc(&g, 0), "http://a/u") == 0);
	got_free(&g);
}

static void test_index(void)
{
	static const char doc[] =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<sitemapindex "
		"xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
		"  <sitemap>\n"
		"    <loc>http://www.example.com/sitemap1.xml.gz</loc>\n"
		"    <lastmod>2004-10-01T18:23:17+00:00</lastmod>\n"
		"  </sitemap>\n"
		"  <sitemap>\n"
		"    <loc>http://www.example.com/sitemap2.xml.gz</loc>\n"
		"    <lastmod>2005-01-01</lastmod>\n"
		"  </sitemap>\n"
		"  <url><loc>http://www.example.com/not-an-entry</loc></url>\n"
		"  <sitemap><loc>http://www.example.com/s3.xml</loc></sitemap>\n"
		"</sitemapindex>\n";
	struct got g = { 0 };
	bool idx;

	CHECK(parse_s(doc, &g, &idx) == 0);
	CHECK(idx);
	CHECK(g.index_seen); /* set before the first entry */
	CHECK(g.n == 3);
	CHECK_STR(loc(&g, 0), "http://www.example.com/sitemap1.xml.gz");
	CHECK(g.lastmod[0] == 1096654997000LL);
	CHECK_STR(loc(&g, 1), "http://www.example.com/sitemap2.xml.gz");
	CHECK(g.lastmod[1] == 1104537600000LL);
	CHECK_STR(loc(&g, 2), "http://www.example.com/s3.xml");
	CHECK(g.lastmod[2] == -1);
	CHECK(g.cf[2] == PARSE_CHANGEFREQ_NONE);

	CHECK(parse_s("<sitemapindex/>", &g, &idx) == 0 && idx && g.n == 0);
	got_free(&g);
}

/* Elements are matched by local name, whatever the namespace or prefix. */
static void test_namespaces(void)
{
	struct got g = { 0 };
	bool idx;

	CHECK(parse_s("<sm:urlset xmlns:sm=\"http://www.sitemaps.org/schemas/"
		      "sitemap/0.9\"><sm:url><sm:loc>http://a/p</sm:loc>"
		      "<sm:changefreq>daily</sm:changefreq></sm:url>"
		      "</sm:urlset>",
		      &g, &idx) == 0);
	CHECK(g.n == 1 && strcmp(loc(&g, 0), "http://a/p") == 0);
	CHECK(g.cf[0] == PARSE_CHANGEFREQ_DAILY);

	/* The 0.84 namespace of Google's old protocol, a typo, none. */
	CHECK(parse_s("<urlset xmlns=\"http://www.google.com/schemas/sitemap/"
		      "0.84\"><url><loc>http://a/old</loc></url></urlset>",
		      &g, NULL) == 0);
	CHECK(g.n == 1 && strcmp(loc(&g, 0), "http://a/old") == 0);
	CHECK(parse_s("<urlset xmlns=\"http://www.sitemaps.org/schemas/"
		      "sitemap/09\"><url><loc>http://a/typo</loc></url>"
		      "</urlset>",
		      &g, NULL) == 0);
	CHECK(g.n == 1 && strcmp(loc(&g, 0), "http://a/typo") == 0);

	/* A prefix nobody declared. */
	CHECK(parse_s("<s:sitemapindex><s:sitemap><s:loc>http://a/s.xml"
		      "</s:loc></s:sitemap></s:sitemapindex>",
		      &g, &idx) == 0);
	CHECK(idx);
	CHECK(g.n == 1 && strcmp(loc(&g, 0), "http://a/s.xml") == 0);

	/* Extensions one level deeper are not the entry's fields, even
	 * before its own loc. */
	CHECK(parse_s("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/"
		      "0.9\" xmlns:image=\"http://www.google.com/schemas/"
		      "sitemap-image/1.1\" xmlns:xhtml=\"http://www.w3.org/1999/"
		      "xhtml\"><url><image:image><image:loc>http://a/i.jpg"
		      "</image:loc></image:image><xhtml:link rel=\"alternate\" "
		      "hreflang=\"de\" href=\"http://a/de\"/>"
		      "<loc>http://a/page</loc></url></urlset>",
		      &g, NULL) == 0);
	CHECK(g.n == 1 && strcmp(loc(&g, 0), "http://a/page") == 0);
	got_free(&g);
}

static void test_entities_cdata_space(void)
{
	struct got g = { 0 };
	char *big;
	struct buf b = { 0 };

	CHECK(parse_s("<urlset><url><loc>http://a/?x=1&amp;y=2&#38;z=&#x33;"
		      "&lt;&gt;&apos;&quot;</loc></url>"
		      "<url><loc><![CDATA[http://a/?p=1&q=<2>]]></loc></url>"
		      "<url><loc>\n\t http://a/<![CDATA[c&d]]>?e=&amp;f"
		      "<!-- comment --> \r\n</loc></url>"
		      "<url><loc>  http://a/in side  </loc></url>"
		      "<url><loc>http://a/<b>bold</b>/x</loc></url>"
		      "<url><loc>http://a/caf\xc3\xa9</loc></url></urlset>",
		      &g, NULL) == 0);
	CHECK(g.n == 6);
	CHECK_STR(loc(&g, 0), "http://a/?x=1&y=2&z=3<>'\"");
	CHECK_STR(loc(&g, 1), "http://a/?p=1&q=<2>");
	CHECK_STR(loc(&g, 2), "http://a/c&d?e=&f");
	CHECK_STR(loc(&g, 3), "http://a/in side");
	CHECK_STR(loc(&g, 4), "http://a/bold/x");
	CHECK_STR(loc(&g, 5), "http://a/caf\xc3\xa9");

	/* White space before the XML declaration (a common server bug),
	 * and a UTF-8 byte order mark. */
	CHECK(parse_s("\r\n  \n<?xml version=\"1.0\"?><urlset><url><loc>"
		      "http://a/ws</loc></url></urlset>",
		      &g, NULL) == 0);
	CHECK(g.n == 1 && strcmp(loc(&g, 0), "http://a/ws") == 0);
	CHECK(parse_s("\xef\xbb\xbf<?xml version=\"1.0\"?><urlset><url><loc>"
		      "http://a/bom</loc></url></urlset>",
		      &g, NULL) == 0);
	CHECK(g.n == 1 && strcmp(loc(&g, 0), "http://a/bom") == 0);

	/* Another encoding, declared. */
	CHECK(parse_s("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>"
		      "<urlset><url><loc>http://a/caf\xe9</loc></url></urlset>",
		      &g, NULL) == 0);
	CHECK(g.n == 1 && strcmp(loc(&g, 0), "http://a/caf\xc3\xa9") == 0);

	/* UTF-16LE with its byte order mark. */
	{
		static const char s[] = "<urlset><url><loc>http://a/16</loc>"
					"</url></urlset>";
		char u[2 + 2 * sizeof(s)];
		size_t n = 0;

		u[n++] = (char)0xff;
		u[n++] = (char)0xfe;
		for (size_t i = 0; s[i]; i++) {
			u[n++] = s[i];
			u[n++] = 0;
		}
		CHECK(parse_n(u, n, &g, NULL) == 0);
		CHECK(g.n == 1 && strcmp(loc(&g, 0), "http://a/16") == 0);
	}

	/* A loc of exactly NORM_INPUT_MAX bytes, also with white space
	 * around it, is passed; one byte more is skipped, and the next
	 * entry is read as usual. */
	big = malloc(NORM_INPUT_MAX + 2);
	memcpy(big, "http://a/", 9);
	memset(big + 9, 'x', NORM_INPUT_MAX - 9);
	big[NORM_INPUT_MAX] = '\0';
	buf_str(&b, "<urlset><url><loc>");
	buf_str(&b, big);
	buf_str(&b, "</loc></url><url><loc>\n\n   ");
	buf_str(&b, big);
	buf_fill(&b, ' ', 3000);
	buf_str(&b, "</loc></url><url><loc>");
	buf_str(&b, big);
	buf_str(&b, "y</loc></url><url><loc>x");
	buf_fill(&b, ' ', NORM_INPUT_MAX);
	buf_str(&b, "y</loc></url><url><loc>http://a/next</loc></url>"
		    "</urlset>");
	CHECK(parse_n(b.p, b.len, &g, NULL) == 0);
	CHECK(!g.bad);
	CHECK(g.n == 3);
	CHECK(g.n >= 2 && strcmp(g.loc[0], big) == 0 &&
	      strcmp(g.loc[1], big) == 0);
	CHECK_STR(loc(&g, 2), "http://a/next");
	free(big);
	free(b.p);
	got_free(&g);
}

/* ---- Text sitemaps ----------------------------------------------------- */

static void test_text(void)
{
	struct got g = { 0 };
	bool idx;

	CHECK(parse_s("http://www.example.com/a\n"
		      "http://www.example.com/b\n",
		      &g, &idx) == 0);
	CHECK(!idx);
	CHECK(g.n == 2);
	CHECK_STR(loc(&g, 0), "http://www.example.com/a");
	CHECK_STR(loc(&g, 1), "http://www.example.com/b");
	CHECK(g.lastmod[0] == -1 && g.cf[0] == PARSE_CHANGEFREQ_NONE);

	/* BOM, CRLF, blank lines, white space, no final newline, a lone CR,
	 * case of the scheme. */
	CHECK(parse_s("\xef\xbb\xbfhttp://a/1\r\n\r\n   \r\n\t"
		      "https://a/2  \r\nHTTPS://a/3\rhttp://a/4\n\n"
		      "http://a/5",
		      &g, NULL) == 0);
	CHECK(g.n == 5);
	CHECK_STR(loc(&g, 0), "http://a/1");
	CHECK_STR(loc(&g, 1), "https://a/2");
	CHECK_STR(loc(&g, 2), "HTTPS://a/3");
	CHECK_STR(loc(&g, 3), "http://a/4");
	CHECK_STR(loc(&g, 4), "http://a/5");

	/* Lines that are not http(s) URLs, or not clean UTF-8, are
	 * skipped. */
	CHECK(parse_s("# my sitemap\nftp://a/f\n/relative\n"
		      "http://a/caf\xc3\xa9\nhttp://a/bad\xff\n"
		      "http://a/ctl\x01x\nhttp://a/ok\n",
		      &g, NULL) == 0);
	CHECK(g.n == 2);
	CHECK_STR(loc(&g, 0), "http://a/caf\xc3\xa9");
	CHECK_STR(loc(&g, 1), "http://a/ok");

	/* Text without a single URL line is not a sitemap. */
	CHECK(parse_s("Not Found\n", &g, NULL) == SC_E_INVAL && g.n == 0);
	CHECK(parse_s("{\"urls\": [\"http://a/\"]}", &g, NULL) == SC_E_INVAL);
	got_free(&g);
}

/* ---- gzip -------------------------------------------------------------- */

static void test_gzip(void)
{
	static const char xml[] = "<urlset><url><loc>http://a/gz1</loc>"
				  "<lastmod>2005-01-01</lastmod></url>"
				  "<url><loc>http://a/gz2</loc></url></urlset>";
	static const char idx_doc[] = "\n\n<sitemapindex><sitemap><loc>"
				      "http://a/s.xml</loc></sitemap>"
				      "</sitemapindex>";
	static const char txt[] = "\xef\xbb\xbfhttp://a/t1\r\nhttp://a/t2";
	struct got g = { 0 };
	struct buf z, z2;
	bool idx;

	z = gzip_of(xml, strlen(xml));
	CHECK(z.len > 2 && (unsigned char)z.p[0] == 0x1f);
	CHECK(parse_n(z.p, z.len, &g, &idx) == 0);
	CHECK(!idx);
	CHECK(g.n == 2);
	CHECK_STR(loc(&g, 0), "http://a/gz1");
	CHECK(g.lastmod[0] == 1104537600000LL);
	CHECK_STR(loc(&g, 1), "http://a/gz2");

	/* A gzip stream cut in the middle: what inflated counts (the XML is
	 * then cut as well). */
	CHECK(parse_n(z.p, z.len - 12, &g, NULL) == 0);
	CHECK(g.n == 2); /* only the 8-byte trailer and a little are gone */
	/* 30 bytes inflate to "<urlset><url><loc>htt": a cut sitemap. */
	CHECK(parse_n(z.p, 30, &g, NULL) == 0 && g.n == 0);
	CHECK(parse_n(z.p, 12, &g, NULL) == SC_E_INVAL);

	/* Two members, as "cat a.gz b.gz" makes: one body. */
	z2 = gzip_of("<url><loc>http://a/m2</loc></url></urlset>", 42);
	{
		struct buf two = { 0 };
		struct buf first = gzip_of(
			"<urlset><url><loc>http://a/m1</loc></url>", 41);

		buf_add(&two, first.p, first.len);
		buf_add(&two, z2.p, z2.len);
		CHECK(parse_n(two.p, two.len, &g, NULL) == 0);
		CHECK(g.n == 2);
		CHECK_STR(loc(&g, 1), "http://a/m2");
		free(two.p);
		free(first.p);
	}
	free(z2.p);
	free(z.p);

	z = gzip_of(idx_doc, strlen(idx_doc));
	CHECK(parse_n(z.p, z.len, &g, &idx) == 0);
	CHECK(idx && g.n == 1 && strcmp(loc(&g, 0), "http://a/s.xml") == 0);
	free(z.p);

	z = gzip_of(txt, strlen(txt));
	CHECK(parse_n(z.p, z.len, &g, &idx) == 0);
	CHECK(!idx && g.n == 2);
	CHECK_STR(loc(&g, 0), "http://a/t1");
	CHECK_STR(loc(&g, 1), "http://a/t2");
	free(z.p);

	/* gzip of something else, and broken gzip. */
	z = gzip_of("<html><body>hi</body></html>", 28);
	CHECK(parse_n(z.p, z.len, &g, NULL) == SC_E_INVAL);
	free(z.p);
	CHECK(parse_n("\x1f\x8b\x08\x00garbage", 11, &g, NULL) == SC_E_INVAL);
	CHECK(parse_n("\x1f\x8b", 2, &g, NULL) == SC_E_INVAL);
	z = gzip_of("", 0);
	CHECK(parse_n(z.p, z.len, &g, NULL) == SC_E_INVAL);
	free(z.p);
	got_free(&g);
}

/* ---- Limits ------------------------------------------------------------ */

/* Decompression bombs: small gzips that inflate past the limit stop there
 * with SC_E_LIMIT, quickly, and without holding the inflated body. */
static void test_gzip_bomb(void)
{
	static const char head[] = "<urlset><url><loc>http://a/1</loc></url>";
	const size_t huge = PARSE_SITEMAP_MAX_BYTES + (8u << 20);
	struct got g = { 0 };
	struct gz gz;
	struct buf z;
	long rss0 = max_rss_kib();
	double t0;

	/* White space after an entry: the XML parser reads on (libxml2
	 * stops a text node at 10 MB; the rest is inflated and counted). */
	gz_begin(&gz);
	gz_add(&gz, head, strlen(head));
	gz_fill(&gz, ' ', huge);
	z = gz_end(&gz);
	CHECK(z.len < 200 * 1024);
	t0 = cpu_seconds();
	CHECK(parse_n(z.p, z.len, &g, NULL) == SC_E_LIMIT);
	CHECK(cpu_seconds() - t0 < 5.0);
	CHECK(g.n == 1 && strcmp(loc(&g, 0), "http://a/1") == 0);
	free(z.p);

	/* NUL bytes: XML fails at once; the size is still found out. */
	gz_begin(&gz);
	gz_add(&gz, head, strlen(head));
	gz_fill(&gz, '\0', huge);
	z = gz_end(&gz);
	t0 = cpu_seconds();
	CHECK(parse_n(z.p, z.len, &g, NULL) == SC_E_LIMIT);
	CHECK(cpu_seconds() - t0 < 5.0);
	CHECK(g.n == 1);
	free(z.p);

	/* A text sitemap followed by blank lines. */
	gz_begin(&gz);
	gz_add(&gz, "http://a/t\n", 11);
	gz_fill(&gz, '\n', huge);
	z = gz_end(&gz);
	t0 = cpu_seconds();
	CHECK(parse_n(z.p, z.len, &g, NULL) == SC_E_LIMIT);
	CHECK(cpu_seconds() - t0 < 5.0);
	CHECK(g.n == 1 && strcmp(loc(&g, 0), "http://a/t") == 0);
	free(z.p);

	/* Exactly the limit is not over it. */
	gz_begin(&gz);
	gz_add(&gz, "http://a/t\n", 11);
	gz_fill(&gz, '\n', PARSE_SITEMAP_MAX_BYTES - 11);
	z = gz_end(&gz);
	CHECK(parse_n(z.p, z.len, &g, NULL) == 0);
	CHECK(g.n == 1);
	free(z.p);

	/* The inflated body was never held whole (the sanitizer's own
	 * bookkeeping makes this number meaningless there). */
	if (!UNDER_ASAN) {
		long grew = max_rss_kib() - rss0;

		printf("gzip bombs: peak RSS %ld KiB before, grew by %ld KiB\n",
		       rss0, grew);
		CHECK(grew < 40 * 1024);
	}
	got_free(&g);
}

/* A body just over PARSE_SITEMAP_MAX_BYTES of long entries: the entries
 * that end within the limit are passed, the one it cuts is not, and the
 * result is SC_E_LIMIT; the same gzipped, and as text. */
static void test_size_limit(void)
{
	char url[2001];
	struct buf b = { 0 }, t = { 0 }, z;
	unsigned long want = 0, want_t = 0, want_below = 0;
	const size_t below = PARSE_SITEMAP_MAX_BYTES - 4000;
	struct got g = { 0 };

	memcpy(url, "http://a/", 9);
	memset(url + 9, 'u', sizeof(url) - 10);
	url[sizeof(url) - 1] = '\0';
	buf_str(&b, "<urlset>");
	while (b.len <= PARSE_SITEMAP_MAX_BYTES) {
		buf_str(&b, "<url><loc>");
		buf_str(&b, url);
		buf_str(&b, "</loc></url>\n");
		if (b.len <= PARSE_SITEMAP_MAX_BYTES)
			want++;
		if (b.len - 1 <= below) /* the entry's newline may be cut */
			want_below++;
	}
	buf_str(&b, "</urlset>\n");
	while (t.len <= PARSE_SITEMAP_MAX_BYTES) {
		buf_str(&t, url);
		buf_str(&t, "\r\n");
		if (t.len <= PARSE_SITEMAP_MAX_BYTES + 1)
			want_t++; /* the line's end may be the cut CRLF */
	}
	CHECK(want > 20000 && want < PARSE_SITEMAP_MAX_URLS);

	CHECK(parse_n(b.p, b.len, &g, NULL) == SC_E_LIMIT);
	CHECK(g.n == want);
	CHECK(!g.bad);
	CHECK(parse_n(t.p, t.len, &g, NULL) == SC_E_LIMIT);
	CHECK(g.n == want_t);

	/* The XML below the limit: all entries, 0. */
	CHECK(parse_n(b.p, below, &g, NULL) == 0);
	CHECK(g.n == want_below);
	CHECK(want_below < want);

	z = gzip_of(b.p, b.len);
	CHECK(parse_n(z.p, z.len, &g, NULL) == SC_E_LIMIT);
	CHECK(g.n == want);
	free(z.p);
	z = gzip_of(t.p, t.len);
	CHECK(parse_n(z.p, z.len, &g, NULL) == SC_E_LIMIT);
	CHECK(g.n == want_t);
	free(z.p);
	free(b.p);
	free(t.p);
	got_free(&g);
}

static void test_count_limit(void)
{
	struct buf b = { 0 }, t = { 0 };
	struct got g = { 0 };
	char line[64];

	buf_str(&b, "<urlset>");
	for (unsigned i = 1; i <= PARSE_SITEMAP_MAX_URLS + 1; i++) {
		snprintf(line, sizeof(line),
			 "<url><loc>http://a/%u</loc></url>", i);
		buf_str(&b, line);
		snprintf(line, sizeof(line), "http://a/%u\n", i);
		buf_str(&t, line);
	}
	buf_str(&b, "</urlset>");

	CHECK(parse_n(b.p, b.len, &g, NULL) == SC_E_LIMIT);
	CHECK(g.n == PARSE_SITEMAP_MAX_URLS);
	CHECK(parse_n(t.p, t.len, &g, NULL) == SC_E_LIMIT);
	CHECK(g.n == PARSE_SITEMAP_MAX_URLS);
	CHECK(parse_sitemap(b.p, b.len, NULL, NULL, NULL) == SC_E_LIMIT);

	/* Exactly the limit is fine. */
	{
		char *last = strstr(b.p, "<url><loc>http://a/50001<");

		CHECK(last != NULL);
		if (last) {
			strcpy(last, "</urlset>");
			CHECK(parse_s(b.p, &g, NULL) == 0);
			CHECK(g.n == PARSE_SITEMAP_MAX_URLS);
		}
	}
	free(b.p);
	free(t.p);
	got_free(&g);
}

/* ---- Not sitemaps, hostile and broken XML ------------------------------ */

static void test_not_sitemaps(void)
{
	static const unsigned char png[] = { 0x89, 'P',  'N',  'G', '\r',
					     '\n', 0x1a, '\n', 0,   0,
					     0,    13,   'I',  'H', 'D',
					     'R',  0,    0,    1,   0 };
	struct got g = { 0 };
	char bin[4096];
	bool idx = true;

	CHECK(parse_s("<!DOCTYPE html><html><head><title>x</title></head>"
		      "<body><a href=\"http://a/\">a</a></body></html>",
		      &g, NULL) == SC_E_INVAL);
	CHECK(parse_s("<html><body><p>unclosed<br></body></html>", &g, NULL) ==
	      SC_E_INVAL);
	CHECK(parse_s("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel>"
		      "<item><link>http://a/</link></item></channel></rss>",
		      &g, NULL) == SC_E_INVAL);
	CHECK(parse_s("<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry>"
		      "<url><loc>http://a/</loc></url></entry></feed>",
		      &g, NULL) == SC_E_INVAL);
	CHECK(g.n == 0);
	CHECK(parse_s("<url><loc>http://a/</loc></url>", &g, NULL) ==
	      SC_E_INVAL);
	CHECK(parse_s("<", &g, NULL) == SC_E_INVAL);
	CHECK(parse_s("<html", &g, NULL) == SC_E_INVAL);
	CHECK(parse_s("<urlset><", &g, NULL) == 0 && g.n == 0); /* cut */
	CHECK(parse_s("<!-- nothing -->", &g, NULL) == SC_E_INVAL);
	CHECK(parse_s("", &g, NULL) == SC_E_INVAL);
	CHECK(parse_sitemap(NULL, 0, &idx, collect, &g) == SC_E_INVAL);
	CHECK(!idx);
	CHECK(parse_s(" \r\n\t ", &g, NULL) == SC_E_INVAL);
	CHECK(parse_s("\xef\xbb\xbf", &g, NULL) == SC_E_INVAL);
	CHECK(parse_n(png, sizeof(png), &g, NULL) == SC_E_INVAL);
	srand(1);
	for (size_t i = 0; i < sizeof(bin); i++)
		bin[i] = (char)(rand() & 0xff);
	bin[0] = 0x7f; /* not '<', not gzip */
	CHECK(parse_n(bin, sizeof(bin), &g, NULL) == SC_E_INVAL);
	CHECK(parse_n("\0\0\0\0", 4, &g, NULL) == SC_E_INVAL);
	CHECK(g.n == 0);
	got_free(&g);
}

/* No external entity is opened: the marker file's text must not appear,
 * whether named by a general entity, a parameter entity or the external
 * subset, nor /etc/passwd's.  A reference to a custom entity is an
 * undefined entity (no declaration is kept), which ends the parse where
 * XML makes it an error. */
static void test_xxe(void)
{
	char path[] = "/tmp/test-sitemap-xxe-XXXXXX";
	char doc[2048];
	struct got g = { 0 };
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, "SECRET-MARKER", 13) == 13);
	close(fd);

	snprintf(doc, sizeof(doc),
		 "<?xml version=\"1.0\"?>\n"
		 "<!DOCTYPE urlset [\n"
		 "  <!ENTITY xxe SYSTEM \"file://%s\">\n"
		 "]>\n"
		 "<urlset><url><loc>http://a/ok</loc></url>"
		 "<url><loc>http://a/&xxe;</loc></url>"
		 "<url><loc>http://a/after</loc></url></urlset>",
		 path);
	CHECK(parse_s(doc, &g, NULL) == 0);
	CHECK(g.n == 1);
	CHECK_STR(loc(&g, 0), "http://a/ok");
	CHECK(parse_s("<!DOCTYPE urlset [<!ENTITY pw SYSTEM "
		      "\"file:///etc/passwd\">]><urlset><url><loc>http://a/"
		      "&pw;</loc></url></urlset>",
		      &g, NULL) == 0);
	CHECK(g.n == 0);
	/* In an attribute, too. */
	CHECK(parse_s("<!DOCTYPE urlset [<!ENTITY pw SYSTEM "
		      "\"file:///etc/passwd\">]><urlset a=\"&pw;\"><url><loc>"
		      "http://a/</loc></url></urlset>",
		      &g, NULL) == SC_E_INVAL);

	/* A parameter entity naming a file that would define the entity:
	 * the reference to it is an error, before any element. */
	{
		char dtd[] = "/tmp/test-sitemap-dtd-XXXXXX";
		int dfd = mkstemp(dtd);
		static const char def[] = "<!ENTITY leak \"SECRET-MARKER\">";

		CHECK(dfd >= 0);
		if (dfd >= 0) {
			CHECK(write(dfd, def, strlen(def)) ==
			      (ssize_t)strlen(def));
			close(dfd);
			snprintf(doc, sizeof(doc),
				 "<!DOCTYPE urlset [<!ENTITY %% p SYSTEM "
				 "\"file://%s\"> %%p;]><urlset><url><loc>"
				 "http://a/&leak;</loc></url></urlset>",
				 dtd);
			CHECK(parse_s(doc, &g, NULL) == SC_E_INVAL);
			CHECK(g.n == 0);
			/* An external subset is not loaded: the entity
			 * stays unknown, which XML allows there; the
			 * reference is dropped. */
			snprintf(doc, sizeof(doc),
				 "<!DOCTYPE urlset SYSTEM \"file://%s\">"
				 "<urlset><url><loc>http://a/&leak;</loc>"
				 "</url></urlset>",
				 dtd);
			CHECK(parse_s(doc, &g, NULL) == 0);
			CHECK(g.n == 1);
			CHECK_STR(loc(&g, 0), "http://a/");
			unlink(dtd);
		}
	}
	for (unsigned long i = 0; i < g.n && i < KEEP; i++)
		CHECK(strstr(g.loc[i], "SECRET") == NULL);
	unlink(path);
	got_free(&g);
}

/* Entity expansion attacks finish quickly and expand nothing. */
static void test_entity_bombs(void)
{
	static const char laughs[] =
		"<?xml version=\"1.0\"?>\n"
		"<!DOCTYPE urlset [\n"
		" <!ENTITY lol \"lol\">\n"
		" <!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"
		"&lol;\">\n"
		" <!ENTITY lol2 \"&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;"
		"&lol1;&lol1;&lol1;\">\n"
		" <!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;"
		"&lol2;&lol2;&lol2;\">\n"
		" <!ENTITY lol4 \"&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;"
		"&lol3;&lol3;&lol3;\">\n"
		" <!ENTITY lol5 \"&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;"
		"&lol4;&lol4;&lol4;\">\n"
		" <!ENTITY lol6 \"&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;"
		"&lol5;&lol5;&lol5;\">\n"
		" <!ENTITY lol7 \"&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;"
		"&lol6;&lol6;&lol6;\">\n"
		" <!ENTITY lol8 \"&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;"
		"&lol7;&lol7;&lol7;\">\n"
		" <!ENTITY lol9 \"&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;"
		"&lol8;&lol8;&lol8;\">\n"
		"]>\n"
		"<urlset><url><loc>http://a/before</loc></url>"
		"<url><loc>http://a/&lol9;&lol9;</loc></url>"
		"<url><loc>http://a/after</loc></url></urlset>";
	struct got g = { 0 };
	struct buf b = { 0 };
	double t0 = cpu_seconds();
	int rc;

	rc = parse_s(laughs, &g, NULL);
	CHECK(cpu_seconds() - t0 < 2.0);
	CHECK(rc == 0);
	CHECK(g.n == 1);
	CHECK_STR(loc(&g, 0), "http://a/before");

	/* Quadratic blowup: one 20 KB entity referenced 20,000 times. */
	buf_str(&b, "<!DOCTYPE urlset [<!ENTITY a \"");
	buf_fill(&b, 'a', 20000);
	buf_str(&b, "\">]><urlset><url><loc>http://a/b</loc></url><url><loc>");
	for (int i = 0; i < 20000; i++)
		buf_str(&b, "&a;");
	buf_str(&b, "</loc></url></urlset>");
	t0 = cpu_seconds();
	rc = parse_n(b.p, b.len, &g, NULL);
	CHECK(cpu_seconds() - t0 < 2.0);
	CHECK(rc == 0);
	CHECK(g.n == 1 && strcmp(loc(&g, 0), "http://a/b") == 0);
	free(b.p);

	/* Deep nesting stops at libxml2's depth limit, quickly. */
	b = (struct buf){ 0 };
	buf_str(&b, "<urlset><url><loc>http://a/d</loc></url>");
	for (int i = 0; i < 100000; i++)
		buf_str(&b, "<x>");
	t0 = cpu_seconds();
	CHECK(parse_n(b.p, b.len, &g, NULL) == 0);
	CHECK(cpu_seconds() - t0 < 2.0);
	CHECK(g.n == 1);
	free(b.p);
	got_free(&g);
}

static void test_cut_and_broken(void)
{
	struct got g = { 0 };

	CHECK(parse_s("<urlset><url><loc>http://a/1</loc></url>"
		      "<url><loc>http://a/2</loc></url><url><loc>http://a/3",
		      &g, NULL) == 0);
	CHECK(g.n == 2);
	CHECK_STR(loc(&g, 1), "http://a/2");

	/* Broken markup after an entry, and junk after the root. */
	CHECK(parse_s("<urlset><url><loc>http://a/1</loc></url><url><loc>"
		      "http://a/2</lo></url><url><loc>http://a/3</loc></url>",
		      &g, NULL) == 0);
	CHECK(g.n == 1);
	CHECK(parse_s("<urlset><url><loc>http://a/1</loc></url></urlset>"
		      "<urlset><url><loc>http://a/2</loc></url></urlset>",
		      &g, NULL) == 0);
	CHECK(g.n == 1);
	/* An undefined entity is an error of well-formedness. */
	CHECK(parse_s("<urlset><url><loc>http://a/1</loc></url><url><loc>"
		      "http://a/&nbsp;</loc></url></urlset>",
		      &g, NULL) == 0);
	CHECK(g.n == 1);
	/* Cut before any entry: still a sitemap, with nothing in it. */
	CHECK(parse_s("<urlset><url><lo", &g, NULL) == 0 && g.n == 0);
	got_free(&g);
}

static void test_stop(void)
{
	struct got g = { 0 };
	struct buf z;
	static const char doc[] = "<urlset><url><loc>http://a/1</loc></url>"
				  "<url><loc>http://a/2</loc></url>"
				  "<url><loc>http://a/3</loc></url></urlset>";

	g.stop_at = 2;
	CHECK(parse_s(doc, &g, NULL) == 7);
	CHECK(g.n == 2);
	g.stop_at = 1;
	CHECK(parse_s("http://a/1\nhttp://a/2\n", &g, NULL) == 7);
	CHECK(g.n == 1);
	z = gzip_of(doc, strlen(doc));
	g.stop_at = 3;
	CHECK(parse_n(z.p, z.len, &g, NULL) == 7);
	CHECK(g.n == 3);
	free(z.p);
	got_free(&g);
}

/* ---- W3C Datetime ------------------------------------------------------ */

static int64_t dt(const char *s)
{
	return parse_w3c_datetime(s, strlen(s));
}

/* The oracle: glibc's timegm() of the fields, in ms, minus the zone. */
static int64_t utc_ms(int y, int mo, int d, int h, int mi, int s, int ms,
		      int off_min)
{
	struct tm tm = { 0 };

	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	return ((int64_t)timegm(&tm) - off_min * 60) * 1000 + ms;
}

static void test_datetime(void)
{
	/* Every form of the W3C note. */
	CHECK(dt("1997") == utc_ms(1997, 1, 1, 0, 0, 0, 0, 0));
	CHECK(dt("1997-07") == utc_ms(1997, 7, 1, 0, 0, 0, 0, 0));
	CHECK(dt("1997-07-16") == utc_ms(1997, 7, 16, 0, 0, 0, 0, 0));
	CHECK(dt("1997-07-16T19:20+01:00") ==
	      utc_ms(1997, 7, 16, 19, 20, 0, 0, 60));
	CHECK(dt("1997-07-16T19:20:30+01:00") ==
	      utc_ms(1997, 7, 16, 19, 20, 30, 0, 60));
	CHECK(dt("1997-07-16T19:20:30.45+01:00") ==
	      utc_ms(1997, 7, 16, 19, 20, 30, 450, 60));
	CHECK(dt("1997-07-16T19:20:30.45+01:00") == 869077230450LL);
	/* Zones. */
	CHECK(dt("2004-12-23T18:00:15Z") == 1103824815000LL);
	CHECK(dt("2004-12-23T18:00:15+00:00") == 1103824815000LL);
	CHECK(dt("2004-12-23T18:00:15-00:00") == 1103824815000LL);
	CHECK(dt("2004-12-23T13:00:15-05:00") == 1103824815000LL);
	CHECK(dt("2004-12-24T03:30:15+09:30") == 1103824815000LL);
	CHECK(dt("2004-12-23T18:00Z") == 1103824800000LL);
	CHECK(dt("2004-12-23t18:00:15z") == 1103824815000LL);
	CHECK(dt("2021-03-04T05:06:07.8Z") ==
	      utc_ms(2021, 3, 4, 5, 6, 7, 800, 0));
	CHECK(dt("2021-03-04T05:06:07.123456789Z") ==
	      utc_ms(2021, 3, 4, 5, 6, 7, 123, 0));
	CHECK(dt("2021-03-04T05:06:07.999-23:59") ==
	      utc_ms(2021, 3, 4, 5, 6, 7, 999, -(23 * 60 + 59)));
	/* Trimmed. */
	CHECK(dt(" \n\t2005-01-01\r\n ") == 1104537600000LL);
	/* The epoch, leap days, the end of the range. */
	CHECK(dt("1970-01-01T00:00:00Z") == 0);
	CHECK(dt("1970") == 0);
	CHECK(dt("2000-02-29") == utc_ms(2000, 2, 29, 0, 0, 0, 0, 0));
	CHECK(dt("2024-02-29T12:00:00Z") ==
	      utc_ms(2024, 2, 29, 12, 0, 0, 0, 0));
	CHECK(dt("2023-12-31T23:59:59.999Z") ==
	      utc_ms(2023, 12, 31, 23, 59, 59, 999, 0));
	CHECK(dt("9999-12-31T23:59:59Z") ==
	      utc_ms(9999, 12, 31, 23, 59, 59, 0, 0));
	CHECK(dt("1969-12-31T23:30:00-01:00") == 30 * 60 * 1000);
	/* Before 1970. */
	CHECK(dt("1969-12-31T23:59:59Z") == -1);
	CHECK(dt("1970-01-01T00:30+01:00") == -1);
	CHECK(dt("1900-01-01") == -1);
	CHECK(dt("0000") == -1);

	/* Not W3C Datetimes. */
	static const char *const bad[] = {
		"",
		"   ",
		"garbage",
		"97",
		"19970",
		"1997-13",
		"1997-00",
		"1997-7",
		"1997-07-32",
		"1997-07-00",
		"1997-02-30",
		"2023-02-29",
		"1900-02-29",
		"1997-04-31",
		"1997-07-16T",
		"1997-07-16T19",
		"1997-07-16T19:20",
		"1997-07-16T19:20:30",
		"1997-07-16 19:20:30Z",
		"1997-07-16T24:00Z",
		"1997-07-16T19:60Z",
		"1997-07-16T19:20:60Z",
		"1997-07-16T19:20:30.Z",
		"1997-07-16T19:20:30.5",
		"1997-07-16T19:20:30+0100",
		"1997-07-16T19:20:30+01",
		"1997-07-16T19:20:30+24:00",
		"1997-07-16T19:20:30+01:60",
		"1997-07-16T19:20:30ZZ",
		"1997-07-16T19:20:30Z x",
		"1997-07-16T19:20:30 Z",
		"1997/07/16",
		"16.07.1997",
		"Wed, 16 Jul 1997 19:20:30 GMT",
		"+1997-07-16",
		"1997-07-16x",
		"１９９７",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t v = dt(bad[i]);

		if (v != -1)
			fprintf(stderr, "accepted \"%s\": %lld\n", bad[i],
				(long long)v);
		CHECK(v == -1);
	}
	/* n bounds the text: the rest is not read. */
	CHECK(parse_w3c_datetime("2005-01-01T00:00Zjunk", 17) ==
	      1104537600000LL);
	CHECK(parse_w3c_datetime("2005-01-01", 4) ==
	      utc_ms(2005, 1, 1, 0, 0, 0, 0, 0));
	CHECK(parse_w3c_datetime("2005-01-01", 9) == -1);
	CHECK(parse_w3c_datetime(NULL, 0) == -1);
}

/* ---- Allocation failures ----------------------------------------------- */

/* Each of the parser's own allocations (sc_malloc() and friends, zlib's
 * through them; libxml2's are its own) fails in turn, as in
 * test-parse-alloc.c: every failed run returns SC_E_NOMEM, and the run
 * that reaches no failure gives the normal result. */
static unsigned long torture(const void *body, size_t len, unsigned long n_ok)
{
	struct got g = { 0 };
	unsigned long n, failed = 0;

	for (n = 1; n < 100; n++) {
		int rc;
		bool reached;

		sc_alloc_fail_nth(n);
		rc = parse_n(body, len, &g, NULL);
		reached = !sc_alloc_fail_pending();
		sc_alloc_fail_nth(0);
		if (!reached) {
			CHECK(rc == 0);
			CHECK(g.n == n_ok);
			break;
		}
		failed++;
		if (rc != SC_E_NOMEM)
			fprintf(stderr, "allocation %lu: rc %d\n", n, rc);
		CHECK(rc == SC_E_NOMEM);
	}
	got_free(&g);
	return failed;
}

static void test_alloc_failures(void)
{
	static const char xml[] = "<urlset><url><loc>http://a/1</loc></url>"
				  "<url><loc>http://a/2</loc></url></urlset>";
	static const char txt[] = "http://a/1\nhttp://a/2\n";
	struct buf z;

	CHECK(torture(xml, strlen(xml), 2) == 1); /* the state */
	CHECK(torture(txt, strlen(txt), 2) == 1);
	/* The state, the chunk buffer, zlib's state (zlib needs no window
	 * for a stream that ends within one call). */
	z = gzip_of(xml, strlen(xml));
	CHECK(torture(z.p, z.len, 2) == 3);
	free(z.p);
	z = gzip_of(txt, strlen(txt));
	CHECK(torture(z.p, z.len, 2) == 3);
	free(z.p);
	/* 200 KB inflate in several calls: and zlib's window. */
	{
		struct buf b = { 0 };

		buf_str(&b, "<urlset><url><loc>http://a/1</loc></url>");
		buf_fill(&b, ' ', 200000);
		buf_str(&b, "<url><loc>http://a/2</loc></url></urlset>");
		z = gzip_of(b.p, b.len);
		CHECK(torture(z.p, z.len, 2) == 4);
		free(z.p);
		free(b.p);
	}
}

/* ---- Threads ----------------------------------------------------------- */

#define THREADS 8
#define ROUNDS 200

struct job {
	const char *xml;   /* a urlset with an error after 3 entries */
	struct buf gz;     /* an index, gzipped */
	unsigned long bad; /* rounds with a wrong result */
};

static void *thread_main(void *arg)
{
	struct job *j = arg;

	for (int i = 0; i < ROUNDS; i++) {
		struct got g = { 0 };
		bool idx;

		if (parse_s(j->xml, &g, &idx) != 0 || g.n != 3 || idx ||
		    strcmp(loc(&g, 2), "http://a/3") != 0)
			j->bad++;
		if (parse_n(j->gz.p, j->gz.len, &g, &idx) != 0 || g.n != 2 ||
		    !idx || strcmp(loc(&g, 1), "http://a/s2.xml") != 0)
			j->bad++;
		if (parse_s("<rss><channel/></rss>", &g, NULL) != SC_E_INVAL)
			j->bad++;
		got_free(&g);
	}
	return NULL;
}

/* Parsers on several threads at once (libxml2's initialization is
 * raced by the first calls), each getting its own results. */
static void test_threads(void)
{
	static const char xml[] = "<urlset><url><loc>http://a/1</loc></url>"
				  "<url><loc>http://a/2</loc></url>"
				  "<url><loc>http://a/3</loc></url>"
				  "<url><loc>http://a/4</lo></url></urlset>";
	static const char idx[] = "<sitemapindex><sitemap><loc>http://a/"
				  "s1.xml</loc></sitemap><sitemap><loc>"
				  "http://a/s2.xml</loc></sitemap>"
				  "</sitemapindex>";
	pthread_t t[THREADS];
	struct job j[THREADS];
	unsigned long bad = 0;
	int started = 0;

	for (int i = 0; i < THREADS; i++) {
		j[i] = (struct job){ .xml = xml,
				     .gz = gzip_of(idx, strlen(idx)) };
		if (pthread_create(&t[i], NULL, thread_main, &j[i]) == 0)
			started++;
		else
			break;
	}
	CHECK(started == THREADS);
	for (int i = 0; i < started; i++) {
		pthread_join(t[i], NULL);
		bad += j[i].bad;
	}
	for (int i = 0; i < THREADS; i++)
		free(j[i].gz.p);
	CHECK(bad == 0);
}

/* ---- libxml2 stays silent ---------------------------------------------- */

/* Run the whole suite with stderr sent to a file, which must stay empty
 * (the checks' own messages go to stdout meanwhile). */
int main(void)
{
	char path[] = "/tmp/test-sitemap-stderr-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	off_t noise;

	unsigned failed_before;

	if (fd < 0 || saved < 0) {
		perror("test-sitemap");
		return 1;
	}
	test_datetime(); /* prints its own diagnostics on stderr */

	fflush(stderr);
	failed_before = check_failed;
	dup2(fd, 2);
	test_threads(); /* first: libxml2 is initialized by racing threads */
	test_urlset();
	test_index();
	test_namespaces();
	test_entities_cdata_space();
	test_text();
	test_not_sitemaps();
	test_xxe();
	test_entity_bombs();
	test_cut_and_broken();
	test_stop();
	test_gzip();
	test_alloc_failures();
	fflush(stderr);
	noise = lseek(fd, 0, SEEK_END);
	dup2(saved, 2);
	if (noise > 0) {
		char msg[8192];
		ssize_t n = pread(fd, msg, sizeof(msg) - 1, 0);

		msg[n > 0 ? n : 0] = '\0';
		fprintf(stderr, "stderr got %lld bytes:\n%s\n",
			(long long)noise, msg);
	}
	/* (A failed check's own message is noise too.) */
	CHECK(noise == 0 || check_failed > failed_before);
	close(fd);
	unlink(path);

	test_gzip_bomb();
	test_size_limit();
	test_count_limit();
	return check_done();
}
