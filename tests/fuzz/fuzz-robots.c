/* fuzz-robots.c — libFuzzer target for the robots.txt parser.
 *
 * Input layout: the first line is the agent token (when empty,
 * "sigcrawl"); the whole input is the robots.txt.  Every line of the
 * input that starts with '/' is also asked about as a path, and so are a
 * few fixed paths.  Parsing twice must give the same answers, asking
 * twice the same answer, and "/robots.txt" is always allowed. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void ask(const struct parse_robots *a, const struct parse_robots *b,
		const char *path, size_t len)
{
	bool x = parse_robots_allowed(a, path, len);

	ASSERT(parse_robots_allowed(a, path, len) == x, NULL);
	ASSERT(parse_robots_allowed(b, path, len) == x, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const fixed[] = {
		"/", "", "/a", "/index.html", "/a/b?c=d", "/*$%"
	};
	char token[64] = "sigcrawl";
	struct parse_robots *a = NULL, *b = NULL;
	const char *txt, *p, *end;
	const uint8_t *nl = memchr(data, '\n', size);
	unsigned asked = 0;
	char *copy;

	if (nl && nl > data && (size_t)(nl - data) < sizeof(token)) {
		memcpy(token, data, (size_t)(nl - data));
		token[nl - data] = '\0';
		if (!token[0])
			strcpy(token, "sigcrawl");
	}
	copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	txt = copy;

	ASSERT(parse_robots(txt, size, token, &a) == 0 && a, NULL);
	ASSERT(parse_robots(txt, size, token, &b) == 0 && b, NULL);
	ASSERT(parse_robots_crawl_delay_ms(a) <= PARSE_ROBOTS_DELAY_MAX_MS,
	       NULL);
	ASSERT(parse_robots_crawl_delay_ms(a) == parse_robots_crawl_delay_ms(b),
	       NULL);
	ASSERT(parse_robots_allowed(a, "/robots.txt", 11), NULL);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		ask(a, b, fixed[i], strlen(fixed[i]));
	for (size_t i = 0; parse_robots_sitemap(a, i); i++)
		ASSERT(strcmp(parse_robots_sitemap(a, i),
			      parse_robots_sitemap(b, i)) == 0,
		       NULL);

	end = txt + size;
	for (p = txt; p < end && asked < 32; p++) {
		const char *e;

		if (*p != '/' || (p > txt && p[-1] != '\n'))
			continue;
		e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		ask(a, b, p, (size_t)(e - p));
		asked++;
	}
	parse_robots_free(a);
	parse_robots_free(b);
	free(copy);
	return 0;
}
