/* fuzz-html.c — libFuzzer target for parse_document() (and so for
 * parse_html(), which is the same walk without charset and text).
 *
 * Input layout:
 *   byte 0      bits 0-1: profile (strict, extended, aggressive, adaptive)
 *               bits 2-5: the Content-Type charset (labels[] below)
 *   the rest    the HTML, parsed as the page http://fuzz.example/dir/p.html
 *
 * The input, NUL-terminated, is also read as an HTTP Link header value:
 * a canonical target found fits the buffer and contains no '>'.
 *
 * Every reported link must be normalized already (norm_url() under the
 * same options gives it back unchanged, with consistent components), the
 * counts must agree with the calls, and the title must be trimmed,
 * collapsed, bounded and valid UTF-8.  The body text must be valid UTF-8
 * without NUL, leading, trailing or double spaces or other white space;
 * its MD5 must be the MD5 of the text; and a second parse must give the
 * same text and signatures.  A broken promise aborts. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "parse.h"
#include "url-parts.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PAGE "http://fuzz.example/dir/p.html"

struct ctx {
	const struct norm_opts *opts;
	unsigned calls;
	bool keywords;
	bool no_formats; /* PARSE_NO_FORMATS */
};

static int on_link(void *p, const struct parse_link *l)
{
	struct ctx *c = p;
	char again[NORM_URL_MAX + 1];
	struct norm_url u;
	int r;

	c->calls++;
	ASSERT(l->url && l->u, NULL);
	ASSERT(parts_consistent(l->url, l->u), l->url);
	ASSERT(l->kind <= PARSE_LINK_REFRESH, l->url);
	ASSERT(l->nofollow <= 1, l->url);
	ASSERT((l->rel & ~(unsigned)(PARSE_REL_NOFOLLOW | PARSE_REL_CANONICAL |
				     PARSE_REL_ALTERNATE |
				     PARSE_REL_STYLESHEET | PARSE_REL_ICON |
				     PARSE_REL_NAV | PARSE_REL_FORMAT)) == 0,
	       l->url);
	/* Another format of the page is an alternate <link>, not followed
	 * under PARSE_NO_FORMATS. */
	ASSERT(!(l->rel & PARSE_REL_FORMAT) ||
		       (l->kind == PARSE_LINK_LINK &&
			(l->rel & PARSE_REL_ALTERNATE) &&
			!(c->no_formats && l->follow)),
	       l->url);
	/* What the link shows: bounded, and only with keywords, for a link
	 * to follow. */
	ASSERT(l->anchor_len <= PARSE_ANCHOR_MAX, l->url);
	ASSERT(c->keywords || (l->anchor_len == 0 && l->hits == 0), l->url);
	ASSERT(l->follow || (l->anchor_len == 0 && l->hits == 0), l->url);
	ASSERT(l->hits <= 6, l->url);
	r = norm_url(c->opts, NULL, l->url, strlen(l->url), again,
		     sizeof(again), &u);
	ASSERT(r == 0, l->url);
	ASSERT(strcmp(again, l->url) == 0, l->url);
	return 0;
}

/* Structurally valid UTF-8 (lead and continuation bytes). */
static bool utf8_ok(const unsigned char *s)
{
	while (*s) {
		int n = *s < 0x80 ? 0 : *s >= 0xf0 ? 3 : *s >= 0xe0 ? 2 : 1;

		if (*s >= 0x80 && *s < 0xc0)
			return false;
		s++;
		for (; n > 0; n--, s++)
			if ((*s & 0xc0) != 0x80)
				return false;
	}
	return true;
}

/* Content-Types the first byte chooses from: none, known labels of
 * every decoder family, aliases, and labels that are not known. */
static const char *const types[16] = {
	NULL,
	"text/html",
	"text/html; charset=utf-8",
	"text/html; charset=iso-8859-1",
	"text/html; charset=Shift_JIS",
	"text/html; charset=utf-16le",
	"text/html; charset=\"utf-16be\"",
	"text/html; charset=iso-2022-jp",
	"text/html; charset=gb18030",
	"text/html; charset=big5",
	"text/html; charset=euc-kr",
	"text/html; charset=koi8-r",
	"text/html; charset=euc-jp",
	"text/html; charset=windows-1258",
	"text/html; charset=x-klingon",
	"text/html; charset=",
};

static void check_text(const struct parse_page *page,
		       const struct parse_text *t)
{
	unsigned char md[16];

	ASSERT(t->buf && t->buf[t->len] == '\0', NULL);
	ASSERT(memchr(t->buf, '\0', t->len) == NULL, NULL);
	ASSERT(t->len <= PARSE_TEXT_MAX, NULL);
	ASSERT(t->len == 0 || (t->buf[0] != ' ' && t->buf[t->len - 1] != ' '),
	       t->buf);
	ASSERT(strstr(t->buf, "  ") == NULL, t->buf);
	ASSERT(strpbrk(t->buf, "\t\n\r\f") == NULL, t->buf);
	ASSERT(strstr(t->buf, "\xc2\xa0") == NULL, t->buf);
	ASSERT(utf8_ok((const unsigned char *)t->buf), t->buf);
	ASSERT(page->text_bytes >= t->len, NULL);
	ASSERT(page->text_empty == (page->text_words == 0), NULL);
	ASSERT(!page->text_empty || page->simhash == 0, NULL);
	ASSERT(page->charset[0] != '\0', NULL);
	if (page->text_bytes == t->len) {
		ASSERT(EVP_Digest(t->buf, t->len, md, NULL, EVP_md5(), NULL),
		       NULL);
		ASSERT(memcmp(md, page->md5, 16) == 0, t->buf);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct parse_text text, text2;
	static struct parse_keywords *kw;
	static const char *const words[] = {
		"page", "link", "black hole", "a b c d", "\xc3\xa9t\xc3\xa9",
		"x"
	};
	struct parse_doc_opts dopts = { 0 };
	struct parse_page page2;
	static const enum norm_profile profiles[] = {
		NORM_PROFILE_STRICT,
		NORM_PROFILE_EXTENDED,
		NORM_PROFILE_AGGRESSIVE,
		NORM_PROFILE_ADAPTIVE,
	};
	struct norm_opts opts = { 0 };
	struct parse_page page;
	struct ctx c = { &opts, 0, false, false };
	static uint64_t wset[256];
	unsigned bad = 0;
	char *html;
	size_t tl;
	int r;

	if (size < 1)
		return 0;
	opts.steps = norm_profile_steps(profiles[data[0] & 3]);
	dopts.content_type = types[(data[0] >> 2) & 15];
	dopts.flags = PARSE_TEXT | PARSE_MD5 | PARSE_MD5_SIZE | PARSE_SIMHASH;
	/* The adaptive profile leaves a page's other formats unfollowed. */
	c.no_formats = (data[0] & 3) == 3;
	if (c.no_formats)
		dopts.flags |= PARSE_NO_FORMATS;
	dopts.text = &text;
	/* Relevance against a few keywords (a phrase, non-ASCII), on one
	 * input in two. */
	if (!kw && parse_keywords_new(words, 6, &kw))
		abort();
	dopts.keywords = (data[0] & 0x40) ? kw : NULL;
	c.keywords = dopts.keywords != NULL;
	/* The body's word set, on one input in two. */
	if (data[0] & 0x80) {
		dopts.words = wset;
		dopts.words_cap = 256;
	}
	data++;
	size--;
	/* An exact-size copy, so that reading past the end is caught. */
	html = malloc(size ? size : 1);
	if (!html)
		abort();
	memcpy(html, data, size);

	r = parse_document(html, size, PAGE, strlen(PAGE), &opts, &dopts,
			   on_link, &c, &page);
	ASSERT(r == 0, NULL);
	check_text(&page, &text);
	dopts.text = &text2;
	r = parse_document(html, size, PAGE, strlen(PAGE), &opts, &dopts, NULL,
			   NULL, &page2);
	free(html);
	ASSERT(r == 0, NULL);
	ASSERT(text2.len == text.len &&
		       memcmp(text2.buf, text.buf, text.len) == 0,
	       text.buf);
	ASSERT(memcmp(page.md5, page2.md5, 16) == 0, NULL);
	ASSERT(memcmp(page.md5_size, page2.md5_size, 16) == 0, NULL);
	ASSERT(page.simhash == page2.simhash, NULL);
	ASSERT(page.has_relevance == (dopts.keywords != NULL), NULL);
	ASSERT(!page.has_relevance ||
		       (page.relevance >= 0.0 && page.relevance <= 1.0 &&
			page.relevance == page2.relevance),
	       NULL);
	ASSERT(page.text_bytes == page2.text_bytes, NULL);
	if (dopts.words) {
		size_t used = 0;
		for (size_t i = 0; i < 256; i++)
			used += wset[i] != 0;
		ASSERT(used == page.n_words && used <= 128, NULL);
		ASSERT(used <= page.text_words, NULL);
	}
	ASSERT(strcmp(page.charset, page2.charset) == 0, page.charset);
	ASSERT(c.calls == page.links_ok, NULL);
	ASSERT(page.links_ok <= PARSE_LINKS_MAX, NULL);
	for (size_t i = 0; i < 32; i++)
		bad += page.links_bad_by_code[i];
	ASSERT(bad == page.links_bad, NULL);
	ASSERT(page.links_bad_by_code[0] == 0, NULL);

	tl = strlen(page.title);
	ASSERT(tl <= PARSE_TITLE_MAX, page.title);
	ASSERT(tl == 0 || (page.title[0] != ' ' && page.title[tl - 1] != ' '),
	       page.title);
	ASSERT(strstr(page.title, "  ") == NULL, page.title);
	ASSERT(strpbrk(page.title, "\t\n\r\f") == NULL, page.title);
	ASSERT(utf8_ok((const unsigned char *)page.title), page.title);

	if (page.has_canonical) {
		char again[NORM_URL_MAX + 1];

		r = norm_url(&opts, NULL, page.canonical,
			     strlen(page.canonical), again, sizeof(again),
			     NULL);
		ASSERT(r == 0 && strcmp(again, page.canonical) == 0,
		       page.canonical);
	} else {
		ASSERT(page.canonical[0] == '\0', page.canonical);
	}
	char *value = malloc(size + 1), target[64];
	if (!value)
		abort();
	memcpy(value, data, size);
	value[size] = '\0';
	if (parse_link_canonical(value, target, sizeof(target)) == 1)
		ASSERT(strlen(target) < sizeof(target) && !strchr(target, '>'),
		       target);
	free(value);
	return 0;
}
