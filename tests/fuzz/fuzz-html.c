/* fuzz-html.c — libFuzzer target for parse_html().
 *
 * Input layout:
 *   byte 0      bits 0-1: profile (strict, extended, aggressive, adaptive)
 *   the rest    the HTML, parsed as the page http://fuzz.example/dir/p.html
 *
 * Every reported link must be normalized already (norm_url() under the
 * same options gives it back unchanged, with consistent components), the
 * counts must agree with the calls, and the title must be trimmed,
 * collapsed, bounded and valid UTF-8.  A broken promise aborts. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "url-parts.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PAGE "http://fuzz.example/dir/p.html"

struct ctx {
	const struct norm_opts *opts;
	unsigned calls;
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
	ASSERT((l->rel & ~0x1fu) == 0, l->url);
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum norm_profile profiles[] = {
		NORM_PROFILE_STRICT,
		NORM_PROFILE_EXTENDED,
		NORM_PROFILE_AGGRESSIVE,
		NORM_PROFILE_ADAPTIVE,
	};
	struct norm_opts opts = { 0 };
	struct parse_page page;
	struct ctx c = { &opts, 0 };
	unsigned bad = 0;
	char *html;
	size_t tl;
	int r;

	if (size < 1)
		return 0;
	opts.steps = norm_profile_steps(profiles[data[0] & 3]);
	data++;
	size--;
	/* An exact-size copy, so that reading past the end is caught. */
	html = malloc(size ? size : 1);
	if (!html)
		abort();
	memcpy(html, data, size);

	r = parse_html(html, size, PAGE, strlen(PAGE), &opts, on_link, &c,
		       &page);
	free(html);
	ASSERT(r == 0, NULL);
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
	return 0;
}
