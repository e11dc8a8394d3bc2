/* test-text.c — unit tests of parse_document(): body text (SPEC §5),
 * charset detection and conversion, MD5, md5_text_size and SimHash.
 *
 * Expected signatures are computed here from the expected text string,
 * with OpenSSL's one-shot EVP_Digest() and XXH3 directly, so they do not
 * depend on how parse/ walks the tree or streams the text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <xxhash.h>

#include "sc.h"
#include "check.h"
#include "parse.h"

#define PAGE "http://example.com/dir/page.html"
#define ALL (PARSE_TEXT | PARSE_MD5 | PARSE_MD5_SIZE | PARSE_SIMHASH)

static struct parse_text text;

/* Parse len bytes with the given Content-Type and flags. */
static int doc_n(const char *html, size_t len, const char *ct, unsigned flags,
		 uint64_t size, struct parse_page *p)
{
	struct norm_opts o = { 0 };
	struct parse_doc_opts d = { 0 };

	o.steps = norm_profile_steps(NORM_PROFILE_STRICT);
	d.content_type = ct;
	d.flags = flags;
	d.body_size = size;
	d.text = &text;
	return parse_document(html, len, PAGE, strlen(PAGE), &o, &d, NULL, NULL,
			      p);
}

/* The body text of a NUL-terminated page, or "(error)". */
static const char *text_of(const char *html)
{
	struct parse_page p;

	if (doc_n(html, strlen(html), NULL, PARSE_TEXT, 0, &p) != 0)
		return "(error)";
	return text.buf;
}

static const char *text_ct(const char *html, size_t len, const char *ct,
			   struct parse_page *p)
{
	if (doc_n(html, len, ct, PARSE_TEXT, 0, p) != 0)
		return "(error)";
	return text.buf;
}

static void md5_of(const void *s, size_t n, unsigned char out[16])
{
	if (!EVP_Digest(s, n, out, NULL, EVP_md5(), NULL))
		abort();
}

static void test_text(void)
{
	CHECK_STR(text_of(""), "");
	CHECK_STR(text_of("<p>Hello <b>wor</b>ld</p>"), "Hello world");
	CHECK_STR(text_of("<title> The  Title </title><p>body</p>"),
		  "The Title body");
	CHECK_STR(text_of("a<script>var x = '<p>no</p>';</script>b"), "ab");
	CHECK_STR(text_of("<style>p { color: red }</style><p>x</p>"), "x");
	CHECK_STR(text_of("<body><noscript><p>enable js</p></noscript><p>y"),
		  "y");
	/* In <head>, gumbo (scripting off there) ends the <noscript> at
	 * the <p>, which is then body text. */
	CHECK_STR(text_of("<head><noscript><p>enable js</p></noscript>"),
		  "enable js");
	CHECK_STR(text_of("<template><p>inert</p></template><p>z</p>"), "z");
	CHECK_STR(text_of("<div>a<div>b<div>c<script>d</script></div>e</div>"
			  "f</div>"),
		  "a b c e f");
	CHECK_STR(text_of("<p>one<!-- a comment -->two</p>"), "onetwo");
	CHECK_STR(text_of("<p>Fish &amp; chips &lt;3 &eacute;&#x263A;</p>"),
		  "Fish & chips <3 \xc3\xa9\xe2\x98\xba");
	CHECK_STR(text_of("  \t\n<p>  spaced \r\n\f out\t</p>  \n "),
		  "spaced out");
	CHECK_STR(text_of("<p>a&nbsp;&nbsp;b\xc2\xa0</p>"), "a b");
	CHECK_STR(text_of("<p>a</p><p>b</p>"), "a b");
	CHECK_STR(text_of("line<br>break<hr>rule"), "line break rule");
	CHECK_STR(text_of("<table><tr><td>c1</td><td>c2</td></table>"),
		  "c1 c2");
	/* Cells outside a table are no cells: their tags are dropped. */
	CHECK_STR(text_of("<td>c1</td><td>c2</td>"), "c1c2");
	CHECK_STR(text_of("<ul><li>x</li><li>y</li></ul>"), "x y");
	CHECK_STR(text_of("in<span>line</span><a href=q>link</a>"),
		  "inlinelink");
	CHECK_STR(text_of("<svg><text>vector</text><style>s{}</style>"
			  "<script>1</script></svg>"),
		  "vector");
	CHECK_STR(text_of("<svg><![CDATA[cdata text]]></svg>"), "cdata text");
	CHECK_STR(text_of("<math><mi>x</mi></math>"), "x");
	CHECK_STR(text_of("<textarea> keep\nthis </textarea>"), "keep this");
	/* Malformed: unclosed tags, stray end tags, a bare '<'. */
	CHECK_STR(text_of("<p>open <b>bold <i>both</p> after</b> x < y"),
		  "open bold both after x < y");
	CHECK_STR(text_of("</div></p>text<<>>"), "text<<>>");
	CHECK_STR(text_of("<script>unterminated"), "");
	CHECK_STR(text_of("<custom-el>a</custom-el><custom-el>b</custom-el>"),
		  "ab");
	CHECK(text.len == 2 && text.buf[text.len] == '\0');
}

/* Text is reported with the links, and meta robots still works. */
static void test_with_links(void)
{
	struct parse_page p;
	const char *html = "<meta name=robots content=noindex><title>T</title>"
			   "<a href=/x>go</a>";

	CHECK(doc_n(html, strlen(html), NULL, ALL, 0, &p) == 0);
	CHECK(p.noindex && !p.nofollow);
	CHECK(p.links_ok == 1);
	CHECK_STR(p.title, "T");
	CHECK_STR(text.buf, "T go");
	CHECK(p.text_bytes == 4 && p.text_words == 2 && !p.text_empty);
}

static void test_charset(void)
{
	struct parse_page p;
	const char *h;

	/* windows-1252 from the header; "iso-8859-1" means it too. */
	h = "<p>\x93quoted\x94 \x80</p>";
	CHECK_STR(text_ct(h, strlen(h), "text/html; charset=windows-1252", &p),
		  "\xe2\x80\x9cquoted\xe2\x80\x9d \xe2\x82\xac");
	CHECK_STR(p.charset, "windows-1252");
	CHECK(p.charset_from == PARSE_CHARSET_HEADER && p.charset_converted &&
	      !p.charset_fallback);
	CHECK_STR(text_ct(h, strlen(h), "text/html;charset=\"ISO-8859-1\"", &p),
		  "\xe2\x80\x9cquoted\xe2\x80\x9d \xe2\x82\xac");
	CHECK_STR(p.charset, "windows-1252");
	CHECK_STR(
		text_ct(h, strlen(h), "text/html; q=1; CHARSET = latin1 ", &p),
		"\xe2\x80\x9cquoted\xe2\x80\x9d \xe2\x82\xac");

	/* The header wins over <meta>: 0xb1 is a-ogonek in ISO-8859-2. */
	h = "<meta charset=utf-8><p>\xb1</p>";
	CHECK_STR(text_ct(h, strlen(h), "text/html; charset=iso-8859-2", &p),
		  "\xc4\x85");
	CHECK(p.charset_from == PARSE_CHARSET_HEADER);
	CHECK_STR(p.charset, "ISO-8859-2");

	/* <meta charset>, and the http-equiv form (KOI8-R "mir"). */
	h = "<!doctype html><html><head><meta charset='iso-8859-1'>"
	    "<p>caf\xe9</p>";
	CHECK_STR(text_ct(h, strlen(h), "text/html", &p), "caf\xc3\xa9");
	CHECK(p.charset_from == PARSE_CHARSET_META && p.charset_converted);
	h = "<head><title a='>'>t</title><meta http-equiv=\"Content-Type\" "
	    "content=\"text/html; charset=koi8-r\"></head>\xcd\xc9\xd2";
	CHECK_STR(text_ct(h, strlen(h), NULL, &p),
		  "t \xd0\xbc\xd0\xb8\xd1\x80");
	CHECK_STR(p.charset, "KOI8-R");
	/* content= without http-equiv=content-type does not count. */
	h = "<meta content=\"text/html; charset=koi8-r\"><p>\xd0\xbc</p>";
	CHECK_STR(text_ct(h, strlen(h), NULL, &p), "\xd0\xbc");
	CHECK(p.charset_from == PARSE_CHARSET_DEFAULT && !p.charset_converted);
	CHECK_STR(p.charset, "UTF-8");
	/* A <meta> in a comment, or after the first 1024 bytes, does not. */
	h = "<!-- <meta charset=koi8-r> --><p>\xd0\xbc</p>";
	CHECK_STR(text_ct(h, strlen(h), NULL, &p), "\xd0\xbc");
	CHECK(p.charset_from == PARSE_CHARSET_DEFAULT);
	{
		char late[1200];

		memset(late, ' ', sizeof(late));
		memcpy(late, "<p>", 3);
		memcpy(late + 1030, "<meta charset=koi8-r>\xd0\xbc", 23);
		late[1053] = '\0';
		CHECK_STR(text_ct(late, strlen(late), NULL, &p), "\xd0\xbc");
		CHECK(p.charset_from == PARSE_CHARSET_DEFAULT);
	}
	/* <meta> naming UTF-16 means UTF-8. */
	h = "<meta charset=utf-16><p>\xd0\xbc</p>";
	CHECK_STR(text_ct(h, strlen(h), NULL, &p), "\xd0\xbc");
	CHECK(p.charset_from == PARSE_CHARSET_META && !p.charset_converted);

	/* BOMs, which beat the header. */
	h = "\xef\xbb\xbf<p>bom</p>";
	CHECK_STR(text_ct(h, strlen(h), "text/html; charset=koi8-r", &p),
		  "bom");
	CHECK(p.charset_from == PARSE_CHARSET_BOM && !p.charset_converted);
	CHECK_STR(text_ct("\xff\xfe<\0p\0>\0h\0i\0 \0\x3a\x26", 16, NULL, &p),
		  "hi \xe2\x98\xba");
	CHECK(p.charset_from == PARSE_CHARSET_BOM && p.charset_converted);
	CHECK_STR(p.charset, "UTF-16LE");
	CHECK_STR(text_ct("\xfe\xff\0<\0b\0>\0o\0k", 12, NULL, &p), "ok");
	CHECK_STR(p.charset, "UTF-16BE");

	/* Shift_JIS "nihon", and a truncated sequence at the end. */
	h = "<p>\x93\xfa\x96\x7b</p>\x93";
	CHECK_STR(text_ct(h, strlen(h), "text/html; charset=Shift_JIS", &p),
		  "\xe6\x97\xa5\xe6\x9c\xac \xef\xbf\xbd");
	CHECK_STR(p.charset, "Shift_JIS");
	/* An invalid byte in windows-1252 (0x81) becomes U+FFFD. */
	CHECK_STR(text_ct("a\x81z", 3, "text/html; charset=cp1252", &p),
		  "a\xef\xbf\xbdz");

	/* Unknown labels: read as UTF-8, flagged; a header that is not
	 * understood leaves the decision to <meta>, as in HTML. */
	h = "<p>\xd0\xbc</p>";
	CHECK_STR(text_ct(h, strlen(h), "text/html; charset=x-klingon", &p),
		  "\xd0\xbc");
	CHECK(p.charset_fallback && !p.charset_converted);
	CHECK_STR(p.charset, "UTF-8");
	h = "<meta charset=x-klingon><p>\xd0\xbc</p>";
	CHECK_STR(text_ct(h, strlen(h), NULL, &p), "\xd0\xbc");
	CHECK(p.charset_fallback);
	h = "<meta charset=latin1><p>\xe9</p>";
	CHECK_STR(text_ct(h, strlen(h), "text/html; charset=bogus", &p),
		  "\xc3\xa9");
	CHECK(p.charset_from == PARSE_CHARSET_META && !p.charset_fallback);
	/* Invalid UTF-8 stays bounded and valid: gumbo writes U+FFFD. */
	CHECK_STR(text_ct("a\xff\xfe\xc3z", 5, "text/html; charset=utf-8", &p),
		  "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz");
	/* parse_html() does none of this. */
	{
		struct norm_opts o = { 0 };

		o.steps = norm_profile_steps(NORM_PROFILE_STRICT);
		CHECK(parse_html("<p>x</p>", 8, PAGE, strlen(PAGE), &o, NULL,
				 NULL, &p) == 0);
		CHECK(p.charset[0] == '\0' && p.simhash == 0 &&
		      p.text_bytes == 0);
	}
}

static void test_md5(void)
{
	static const char fox[] = "The quick brown fox jumps over the lazy dog";
	struct parse_page p, q;
	unsigned char want[16];
	char hex[33], html[200], buf[100];
	size_t n;

	/* Known vectors (RFC 1321 and the common "fox" one). */
	CHECK(doc_n("", 0, NULL, PARSE_MD5, 0, &p) == 0);
	CHECK_STR(sc_hex(p.md5, 16, hex), "d41d8cd98f00b204e9800998ecf8427e");
	CHECK(p.text_empty && p.simhash == 0);
	snprintf(html, sizeof(html),
		 "<p>The quick <b>brown</b>\n fox</p>"
		 "<script>x</script>jumps over the lazy "
		 "dog ");
	n = strlen(html);
	CHECK(doc_n(html, n, NULL, ALL, 0, &p) == 0);
	CHECK_STR(text.buf, fox);
	CHECK_STR(sc_hex(p.md5, 16, hex), "9e107d9d372bb6826bd81d3542a419d6");

	/* md5_size = MD5(text || size as 8 bytes big-endian). */
	memcpy(buf, fox, sizeof(fox) - 1);
	for (int i = 0; i < 8; i++)
		buf[sizeof(fox) - 1 + i] = (char)((uint64_t)n >> (56 - 8 * i));
	md5_of(buf, sizeof(fox) - 1 + 8, want);
	CHECK(memcmp(p.md5_size, want, 16) == 0);
	CHECK(doc_n(html, n, NULL, PARSE_MD5_SIZE, 0, &q) == 0);
	CHECK(memcmp(q.md5_size, want, 16) == 0);
	CHECK(doc_n(html, n, NULL, PARSE_MD5_SIZE, n, &q) == 0);
	CHECK(memcmp(q.md5_size, want, 16) == 0);
	CHECK(doc_n(html, n, NULL, ALL, n + 1, &q) == 0);
	CHECK(memcmp(q.md5, p.md5, 16) == 0);
	CHECK(memcmp(q.md5_size, p.md5_size, 16) != 0);
	/* Same text, other markup: same md5, other size. */
	CHECK(doc_n("<div>The quick brown fox jumps over the lazy dog</div>",
		    53, NULL, ALL, 0, &q) == 0);
	CHECK(memcmp(q.md5, p.md5, 16) == 0);
	CHECK(memcmp(q.md5_size, p.md5_size, 16) != 0);
	CHECK(q.simhash == p.simhash);
	/* Converted pages hash their UTF-8 text. */
	CHECK(doc_n("caf\xe9", 4, "text/html; charset=latin1", PARSE_MD5, 0,
		    &q) == 0);
	md5_of("caf\xc3\xa9", 5, want);
	CHECK(memcmp(q.md5, want, 16) == 0);
	/* Flags not asked for leave their fields zero. */
	memset(want, 0, 16);
	CHECK(doc_n(html, n, NULL, PARSE_SIMHASH, 0, &q) == 0);
	CHECK(memcmp(q.md5, want, 16) == 0 && q.simhash == p.simhash);
	CHECK(sc_hex((const unsigned char *)"\x01\xab", 2, hex) == hex);
	CHECK_STR(hex, "01ab");
	CHECK_STR(parse_simhash_hex(0x0123456789abcdefull, hex),
		  "0123456789abcdef");
}

/* A deterministic page of n made-up words in paragraphs of 10; word
 * "change" is replaced by "CHANGED", and with insert an extra word comes
 * before word n / 2. */
static char *make_page(unsigned seed, size_t n, size_t change, bool insert)
{
	char *s = malloc(n * 16 + 64), *p = s;
	uint32_t x = seed * 2654435761u + 1;

	if (!s)
		abort();
	p += sprintf(p, "<div>");
	for (size_t i = 0; i < n; i++) {
		char w[12];
		unsigned len;

		x = x * 1103515245u + 12345u;
		len = 3 + (x >> 28) % 6;
		for (unsigned k = 0; k < len; k++) {
			x = x * 1103515245u + 12345u;
			w[k] = (char)('a' + (x >> 24) % 26);
		}
		w[len] = '\0';
		if (i == change)
			strcpy(w, "CHANGED");
		if (insert && i == n / 2)
			p += sprintf(p, "inserted ");
		p += sprintf(p, i % 10 == 9 ? "%s</p><p>" : "%s ", w);
	}
	strcpy(p, "</div>");
	return s;
}

static uint64_t simhash_of(const char *html)
{
	struct parse_page p;

	if (doc_n(html, strlen(html), NULL, PARSE_SIMHASH, 0, &p) != 0)
		return 0xdeadull;
	return p.simhash;
}

static uint64_t xxh_words(const char *const *w, unsigned n)
{
	unsigned char b[16];

	for (unsigned i = 0; i < n; i++) {
		uint64_t h = XXH3_64bits(w[i], strlen(w[i]));

		for (int k = 0; k < 8; k++)
			b[8 * i + k] = (unsigned char)(h >> (8 * k));
	}
	return XXH3_64bits(b, 8 * n);
}

static void test_simhash(void)
{
	static const char *const one[] = { "hello" };
	static const char *const two[] = { "a1", "caf\xc3\xa9" };
	char *a = make_page(1, 1000, (size_t)-1, false);
	char *a2 = make_page(1, 1000, (size_t)-1, false);
	char *b = make_page(1, 1000, 500, false);
	char *c = make_page(2, 1000, (size_t)-1, false);
	char *d = make_page(1, 1000, (size_t)-1, true);
	uint64_t ha = simhash_of(a), hb = simhash_of(b), hc = simhash_of(c);
	uint64_t hd = simhash_of(d);
	unsigned near = 0, far_min = 64, sum = 0;
	struct parse_page p;

	CHECK(ha == simhash_of(a2) && ha != 0);
	CHECK(parse_simhash_distance(ha, hb) <= 3);
	CHECK(parse_simhash_distance(ha, hc) > 10);
	CHECK(parse_simhash_distance(ha, hd) <= 3);
	CHECK(parse_simhash_distance(ha, ha) == 0);
	CHECK(parse_simhash_distance(0, ~0ull) == 64);
	/* Over 100 pages of 400 words: one word changed stays within 3
	 * bits in most (a property of SimHash, not a certainty), unrelated
	 * pages never come near. */
	for (unsigned seed = 1; seed <= 100; seed++) {
		char *x = make_page(seed, 400, (size_t)-1, false);
		char *y = make_page(seed, 400, 100 + seed, false);
		char *z = make_page(seed + 1000, 400, (size_t)-1, false);
		uint64_t hx = simhash_of(x);
		unsigned dy = parse_simhash_distance(hx, simhash_of(y));
		unsigned dz = parse_simhash_distance(hx, simhash_of(z));

		near += dy <= 3;
		sum += dy;
		far_min = dz < far_min ? dz : far_min;
		free(x);
		free(y);
		free(z);
	}
	printf("simhash, 400 words, one changed: %u%% within 3 bits, mean "
	       "%.2f; unrelated pages at least %u bits apart\n",
	       near, sum / 100.0, far_min);
	CHECK(near >= 85);
	CHECK(far_min > 10);

	/* One shingle: the SimHash is that shingle's hash; case and
	 * punctuation do not matter, order does. */
	CHECK(simhash_of("<p>Hello!</p>") == xxh_words(one, 1));
	CHECK(simhash_of("A1, caf\xc3\xa9 --") == xxh_words(two, 2));
	CHECK(simhash_of("caf\xc3\xa9 a1") != xxh_words(two, 2));
	CHECK(simhash_of("a b") != simhash_of("b a"));
	CHECK(simhash_of("one two three four") !=
	      simhash_of("two one three four"));
	/* No words: 0 and text_empty. */
	CHECK(doc_n("<p> -- !! </p>", 14, NULL, ALL, 0, &p) == 0);
	CHECK(p.simhash == 0 && p.text_empty && p.text_words == 0);
	CHECK_STR(text.buf, "-- !!");
	/* A word longer than the 64-byte block is one word. */
	{
		char lw[300];

		memset(lw, 'q', 299);
		lw[299] = '\0';
		CHECK(doc_n(lw, 299, NULL, ALL, 0, &p) == 0);
		CHECK(p.text_words == 1 && p.simhash != 0);
		lw[150] = 'r';
		CHECK(simhash_of(lw) != p.simhash);
	}
	free(a);
	free(a2);
	free(b);
	free(c);
	free(d);
}

/* Over PARSE_TEXT_MAX: the text is cut, the signatures cover all. */
/* Random runs of text, spaces of every kind (U+00A0 among them) and
 * other two-byte characters that start like it, words longer than the
 * text sink's stage: the text is the words joined by one space, and the
 * MD5 is of that text (several seeds). */
static void test_runs(void)
{
	static const char *const spaces[] = { " ",  "\t",       "\n",   "\f",
					      "\r", "\xc2\xa0", "  \n " };
	static const char *const chars[] = { "a",        "Z",        "7",
					     "\xc2\xa9", "\xc3\xa9", "-" };
	size_t cap = 64 * 1024;
	char *html = malloc(cap), *want = malloc(cap);
	struct parse_page p;
	unsigned char md[16];
	uint64_t x = 0x9e3779b97f4a7c15u;
	int bad = 0;

	if (!html || !want)
		abort();
	for (int round = 0; round < 300; round++) {
		size_t n = (size_t)sprintf(html, "<p>"), w = 0;
		unsigned words = 0;
		bool sep = true;
		while (n < cap - 16 * 1024) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			if (x % 4 == 0) {
				const char *sp = spaces[(x >> 8) % 7];
				memcpy(html + n, sp, strlen(sp));
				n += strlen(sp);
				sep = true;
				continue;
			}
			/* A word: mostly short, now and then past the
			 * stage (TEXT_STAGE, 4096 bytes). */
			size_t len = (x >> 8) % 16 == 0 ? 1 + (x >> 16) % 9000
							: 1 + (x >> 16) % 12;
			if (sep && words)
				want[w++] = ' ';
			if (sep)
				words++;
			sep = false;
			for (size_t i = 0; i < len; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				const char *c = chars[x % 6];
				memcpy(html + n, c, strlen(c));
				memcpy(want + w, c, strlen(c));
				n += strlen(c);
				w += strlen(c);
			}
		}
		if (doc_n(html, n, NULL, PARSE_TEXT | PARSE_MD5, 0, &p) != 0 ||
		    text.len != w || memcmp(text.buf, want, w) != 0) {
			bad++;
			continue;
		}
		md5_of(want, w, md);
		bad += p.text_bytes != w || memcmp(p.md5, md, 16) != 0;
	}
	CHECK(bad == 0);
	free(html);
	free(want);
}

static void test_big(void)
{
	size_t words = 400000, n = 0;
	char *html = malloc(words * 4 + 64), *want = malloc(words * 4);
	struct parse_page p;
	unsigned char md[16];

	if (!html || !want)
		abort();
	n = (size_t)sprintf(html, "<p>");
	for (size_t i = 0; i < words; i++) {
		memcpy(html + n, i % 7 ? "ab " : "\xc3\xa9 ", 3);
		memcpy(want + 3 * i, i % 7 ? "ab " : "\xc3\xa9 ", 3);
		n += 3;
	}
	CHECK(doc_n(html, n, NULL, ALL, 0, &p) == 0);
	md5_of(want, 3 * words - 1, md);
	CHECK(p.text_bytes == 3 * words - 1);
	CHECK(memcmp(p.md5, md, 16) == 0);
	CHECK(text.len <= PARSE_TEXT_MAX && text.len > PARSE_TEXT_MAX - 4);
	CHECK(text.buf[text.len] == '\0' && text.buf[text.len - 1] != ' ');
	CHECK(memcmp(text.buf, want, text.len) == 0);
	CHECK(((unsigned char)want[text.len] & 0xc0) != 0x80);
	CHECK(p.text_words == words);
	/* The buffer is reused for the next, smaller page. */
	CHECK_STR(text_of("<p>small</p>"), "small");
	free(html);
	free(want);
}

static void test_errors(void)
{
	struct norm_opts o = { 0 };
	struct parse_doc_opts d = { 0 };
	struct parse_page p;

	o.steps = norm_profile_steps(NORM_PROFILE_STRICT);
	d.flags = PARSE_TEXT;
	CHECK(parse_document("x", 1, PAGE, strlen(PAGE), &o, &d, NULL, NULL,
			     &p) == SC_E_INVAL);
	CHECK(parse_document("x", 1, PAGE, strlen(PAGE), &o, NULL, NULL, NULL,
			     &p) == 0);
	CHECK_STR(p.charset, "UTF-8");
	CHECK(parse_document(NULL, 0, PAGE, strlen(PAGE), &o, NULL, NULL, NULL,
			     &p) == 0);
	parse_text_free(NULL);
}

int main(void)
{
	test_text();
	test_with_links();
	test_charset();
	test_md5();
	test_simhash();
	test_big();
	test_runs();
	test_errors();
	parse_text_free(&text);
	CHECK(text.buf == NULL && text.cap == 0);
	return check_done();
}
