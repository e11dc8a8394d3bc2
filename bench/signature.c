/* signature.c — what body text and signatures cost next to parsing.
 *
 * A deterministic corpus of realistic pages (about 10 KB each: a head with
 * a stylesheet and a script, navigation links, an article of paragraphs
 * with inline markup and entities, a table, a footer) is generated before
 * any timing.  Each repetition runs every row over the whole corpus, the
 * rows interleaved so that a slow moment of the machine hits them alike,
 * and the median throughput over the repetitions is shown:
 *
 *   gumbo        gumbo_parse() and gumbo_destroy_output(), nothing else;
 *   links        parse_html(): the tree, links normalized and reported;
 *   signatures   parse_document() with the body text kept, MD5,
 *                md5_text_size and SimHash (UTF-8 declared);
 *   +iconv       the same with the pages declared windows-1252, so that
 *                every page goes through iconv first.
 *
 * The target is that text extraction and hashing add at most
 * 25 % to gumbo's parse time: (signatures - links) / gumbo.
 *
 * Usage: bench-signature [--pages N] [--reps N] [--seed N]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gumbo.h>

#include "parse.h"

#define MAX_REPS 101
#define PAGE_URL "http://bench.example/section/article.html"

struct page {
	char *html;
	size_t len;
};

/* ---- the corpus ------------------------------------------------------ */

static uint32_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

static char vocab[2048][12];

static void make_vocab(uint64_t *s)
{
	static const char letters[] = "etaoinshrdlucmfwypvbgkjqxz";

	for (int i = 0; i < 2048; i++) {
		unsigned len = 2 + rnd(s) % 9;

		for (unsigned k = 0; k < len; k++) {
			/* Skewed towards frequent letters, like English. */
			unsigned r = rnd(s) % 26;

			vocab[i][k] = letters[(r * r) / 26];
		}
		vocab[i][len] = '\0';
	}
}

/* Zipf-like word choice: frequent words often, rare words rarely. */
static const char *word(uint64_t *s)
{
	uint32_t r = rnd(s) % 2048;

	return vocab[(r * r) / 2048];
}

static void sentence(struct sc_dynbuf *b, uint64_t *s, unsigned words)
{
	for (unsigned i = 0; i < words; i++) {
		unsigned r = rnd(s) % 40;
		const char *w = word(s);

		if (r == 0)
			sc_dyn_printf(b, "<a href=\"/wiki/%s?ref=%u\">%s</a> ",
				      w, rnd(s) % 100, w);
		else if (r == 1)
			sc_dyn_printf(b, "<b>%s</b> ", w);
		else if (r == 2)
			sc_dyn_printf(b, "<em>%s</em>, ", w);
		else if (r == 3)
			sc_dyn_printf(b, "%s&nbsp;&amp; ", w);
		else
			sc_dyn_printf(b, "%s ", w);
	}
	sc_dyn_printf(b, "%s.\n", word(s));
}

static void make_page(struct sc_dynbuf *b, uint64_t *s, unsigned n)
{
	sc_dyn_reset(b);
	sc_dyn_printf(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
			 "charset=\"utf-8\">\n<title>");
	sentence(b, s, 6);
	sc_dyn_printf(
		b,
		"</title>\n<meta name=\"viewport\" content=\"width=device-width,"
		" initial-scale=1\">\n<link rel=\"stylesheet\" "
		"href=\"/static/site.css?v=%u\">\n<style>\n",
		n % 7);
	for (int i = 0; i < 24; i++)
		sc_dyn_printf(
			b, ".c%u-%s { margin: %upx %upx; color: #%06x; }\n", i,
			word(s), rnd(s) % 20, rnd(s) % 20, rnd(s) & 0xffffff);
	sc_dyn_printf(b, "</style>\n<script>\n(function(w, d) {\n");
	for (int i = 0; i < 20; i++)
		sc_dyn_printf(
			b,
			"  var %s%d = d.getElementById('%s') || {}; if (%s%d.x "
			"< %u && w.y > 0) { w.track('%s', %u); }\n",
			word(s), i, word(s), word(s), i, rnd(s) % 99, word(s),
			rnd(s));
	sc_dyn_printf(b, "})(window, document);\n</script>\n</head>\n<body "
			 "class=\"page\">\n<header><nav><ul>\n");
	for (int i = 0; i < 25; i++) {
		const char *w = word(s);

		sc_dyn_printf(b,
			      "<li class=\"nav-item\"><a href=\"/%s/%s.html\" "
			      "title=\"%s\">%s</a></li>\n",
			      word(s), w, w, w);
	}
	sc_dyn_printf(b, "</ul></nav></header>\n<main><article>\n<h1>");
	sentence(b, s, 7);
	sc_dyn_printf(b, "</h1>\n");
	for (int p = 0; p < 9; p++) {
		sc_dyn_printf(b, "<p class=\"c%u\">", p);
		for (int k = 0; k < 3; k++)
			sentence(b, s, 10 + rnd(s) % 15);
		sc_dyn_printf(b, "</p>\n");
		if (p == 4) {
			sc_dyn_printf(
				b,
				"<table><tr><th>key</th><th>value</th></tr>\n");
			for (int r = 0; r < 6; r++)
				sc_dyn_printf(
					b, "<tr><td>%s</td><td>%u</td></tr>\n",
					word(s), rnd(s) % 10000);
			sc_dyn_printf(b, "</table>\n");
		}
	}
	sc_dyn_printf(b,
		      "</article></main>\n<!-- generated at %u -->\n<footer><p>"
		      "&copy; 2024 ",
		      rnd(s));
	sentence(b, s, 8);
	sc_dyn_printf(
		b, "</p><noscript><img src=\"/px.gif\"></noscript></footer>\n"
		   "</body></html>\n");
}

/* ---- timing ---------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int count_link(void *ctx, const struct parse_link *l)
{
	(*(unsigned long *)ctx)++;
	(void)l;
	return 0;
}

enum { ROW_GUMBO, ROW_LINKS, ROW_SIG, ROW_ICONV, ROWS };

static const char *const row_names[ROWS] = {
	"gumbo parse+destroy",
	"parse_html (links)",
	"parse_document (text+md5+simhash)",
	"  same, windows-1252 via iconv",
};

/* One pass of a row over the corpus; returns seconds. */
static double run_row(int row, const struct page *pages, size_t n,
		      unsigned long *sink)
{
	static struct parse_text text;
	struct norm_opts o = { 0 };
	struct parse_doc_opts d = { 0 };
	struct parse_page *pg = malloc(sizeof(*pg));
	double t0;

	o.steps = norm_profile_steps(NORM_PROFILE_EXTENDED);
	d.flags = PARSE_TEXT | PARSE_MD5 | PARSE_MD5_SIZE | PARSE_SIMHASH;
	d.text = &text;
	d.content_type = row == ROW_ICONV ? "text/html; charset=windows-1252"
					  : "text/html; charset=utf-8";
	t0 = now();
	for (size_t i = 0; i < n; i++) {
		const struct page *p = &pages[i];
		int r = 0;

		if (row == ROW_GUMBO) {
			GumboOutput *out = gumbo_parse_with_options(
				&kGumboDefaultOptions, p->html, p->len);

			*sink += out->root->v.element.children.length;
			gumbo_destroy_output(&kGumboDefaultOptions, out);
		} else if (row == ROW_LINKS) {
			r = parse_html(p->html, p->len, PAGE_URL,
				       strlen(PAGE_URL), &o, count_link, sink,
				       pg);
		} else {
			r = parse_document(p->html, p->len, PAGE_URL,
					   strlen(PAGE_URL), &o, &d, count_link,
					   sink, pg);
			*sink += pg->simhash & 1;
		}
		if (r != 0) {
			fprintf(stderr, "page %zu: %s\n", i, sc_strerror(r));
			exit(1);
		}
	}
	t0 = now() - t0;
	free(pg);
	return t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench-signature [--pages N] [--reps N] "
			"[--seed N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	size_t npages = 400, bytes = 0;
	unsigned reps = 7;
	uint64_t seed = 0x5197a1u;
	struct page *pages;
	struct sc_dynbuf b;
	double t[ROWS][MAX_REPS], med[ROWS];
	unsigned long sink = 0;

	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		if (strcmp(argv[i], "--pages") == 0)
			npages = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--reps") == 0)
			reps = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--seed") == 0)
			seed = strtoull(argv[++i], NULL, 0);
		else
			usage();
	}
	if (!npages || !reps || reps > MAX_REPS)
		usage();
	sc_dyn_init(&b, SIZE_MAX);
	make_vocab(&seed);
	pages = calloc(npages, sizeof(*pages));
	if (!pages)
		return 1;
	for (size_t i = 0; i < npages; i++) {
		make_page(&b, &seed, (unsigned)i);
		if (sc_dyn_error(&b))
			return 1;
		pages[i].html = malloc(b.len);
		if (!pages[i].html)
			return 1;
		memcpy(pages[i].html, b.p, b.len);
		pages[i].len = b.len;
		bytes += b.len;
	}
	printf("corpus: %zu pages, %.1f KB average, %.2f MB; %u reps\n", npages,
	       bytes / 1024.0 / npages, bytes / 1e6, reps);
	/* Warm up caches, iconv's modules and OpenSSL's method store. */
	for (int r = 0; r < ROWS; r++)
		run_row(r, pages, npages < 20 ? npages : 20, &sink);
	for (unsigned k = 0; k < reps; k++)
		for (int r = 0; r < ROWS; r++)
			t[r][k] = run_row(r, pages, npages, &sink);
	for (int r = 0; r < ROWS; r++) {
		qsort(t[r], reps, sizeof(double), cmp_double);
		med[r] = t[r][reps / 2];
		printf("%-36s %8.1f MB/s  %7.1f us/page\n", row_names[r],
		       bytes / 1e6 / med[r], med[r] * 1e6 / npages);
	}
	printf("signatures / gumbo:  %.3f\n", med[ROW_SIG] / med[ROW_GUMBO]);
	printf("signatures / links:  %.3f\n", med[ROW_SIG] / med[ROW_LINKS]);
	printf("text + hashing add %.1f%% of gumbo's parse time (target <= "
	       "25%%); iconv adds %.1f%%\n",
	       100 * (med[ROW_SIG] - med[ROW_LINKS]) / med[ROW_GUMBO],
	       100 * (med[ROW_ICONV] - med[ROW_SIG]) / med[ROW_GUMBO]);
	fprintf(stderr, "(checksum %lu)\n", sink);
	for (size_t i = 0; i < npages; i++)
		free(pages[i].html);
	free(pages);
	sc_dyn_free(&b);
	return 0;
}
