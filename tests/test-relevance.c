/* test-relevance.c — unit tests of parse_keywords_new() and the relevance
 * that parse_document() computes (parse.h has the formula).
 *
 * The expected values of the formula are computed here from word counts
 * made by hand, so a change in how parse/ streams the words shows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "parse.h"

#define PAGE "http://example.com/page.html"

/* The relevance of html against kw, or -1 when none was given, -2 on a
 * parse error.  flags are the other parse_document() flags. */
static double score_f(const char *html, const struct parse_keywords *kw,
		      unsigned flags, struct parse_page *p)
{
	struct norm_opts o = { 0 };
	struct parse_doc_opts d = { 0 };
	struct parse_text text = { 0 };

	o.steps = norm_profile_steps(NORM_PROFILE_STRICT);
	d.flags = flags;
	d.text = &text;
	d.keywords = kw;
	int rc = parse_document(html, strlen(html), PAGE, strlen(PAGE), &o, &d,
				NULL, NULL, p);
	parse_text_free(&text);
	if (rc)
		return -2;
	return p->has_relevance ? p->relevance : -1;
}

static double score(const char *html, const struct parse_keywords *kw)
{
	struct parse_page p;
	return score_f(html, kw, 0, &p);
}

static struct parse_keywords *kws(const char *const *w, size_t n)
{
	struct parse_keywords *k = NULL;
	if (parse_keywords_new(w, n, &k))
		abort();
	return k;
}

/* The formula of parse.h for given counts. */
static double formula(size_t K, double words, const double *tf,
		      const bool *title)
{
	double c = 1 + log1p(words / 50), s = 0;
	for (size_t i = 0; i < K; i++) {
		double b = tf[i] / (tf[i] + c);
		s += 1 - (1 - b) * (title[i] ? 0.5 : 1.0);
	}
	double h = (K < 3 ? (double)K : 3.0) / 2;
	return s / (s + h) * ((double)K + h) / (double)K;
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static void test_compile(void)
{
	static const char *const w[] = { "Telescope", "telescope", " ",
					 "black hole", "a b c d" };
	static const char *const five[] = { "a b c d e" };
	struct parse_keywords *k = NULL;

	CHECK(parse_keywords_new(w, 5, &k) == 0);
	/* Repeats and wordless keywords do not count. */
	CHECK(parse_keywords_count(k) == 3);
	parse_keywords_free(k);
	k = NULL;
	CHECK(parse_keywords_new(five, 1, &k) == SC_E_INVAL && !k);
	CHECK(parse_keywords_new(NULL, 1, &k) == SC_E_INVAL);
	CHECK(parse_keywords_new(w, PARSE_KEYWORDS_MAX + 1, &k) == SC_E_INVAL);
	CHECK(parse_keywords_new(NULL, 0, &k) == 0 &&
	      parse_keywords_count(k) == 0);
	/* No keywords: no relevance at all. */
	CHECK(score("<p>telescope</p>", k) == -1);
	CHECK(score("<p>telescope</p>", NULL) == -1);
	parse_keywords_free(k);
	parse_keywords_free(NULL);
	CHECK(parse_keywords_count(NULL) == 0);
}

static void test_values(void)
{
	static const char *const w[] = { "telescope", "orbit", "black hole" };
	struct parse_keywords *k = kws(w, 3);
	double tf[3] = { 0 };
	bool title[3] = { false };

	/* 4 words, one keyword once; case and punctuation do not matter. */
	tf[0] = 1;
	CHECK(near(score("<p>A TeleScope, at night.</p>", k),
		   formula(3, 4, tf, title)));
	/* The phrase counts once, where its words follow each other. */
	tf[0] = 0;
	tf[2] = 1;
	CHECK(near(score("<p>a black hole; black</p><p>x hole</p>", k),
		   formula(3, 6, tf, title)));
	/* Its words across an element boundary still follow each other. */
	CHECK(near(score("<p>a black</p><p>hole y black z hole</p>", k),
		   formula(3, 7, tf, title)));
	/* The title's words are body words too, and count twice over. */
	tf[2] = 0;
	tf[1] = 2;
	title[1] = true;
	CHECK(near(score("<title>Orbit</title><p>an orbit</p>", k),
		   formula(3, 3, tf, title)));
	/* Nothing at all. */
	CHECK(score("", k) == 0.0);
	CHECK(score("<p>cooking pasta with garlic</p>", k) == 0.0);
	/* Every keyword, very often, and in the title: near 1, never more. */
	char big[8192] = "<title>telescope orbit black hole</title><p>";
	for (int i = 0; i < 300; i++)
		strcat(big, "telescope orbit black hole ");
	double r = score(big, k);
	CHECK(r > 0.95 && r <= 1.0);
	parse_keywords_free(k);
}

/* Pages of words drawn from a vocabulary: an on-topic page beats an
 * off-topic one, the title helps, the length does not decide. */
static void page(char *out, size_t cap, const char *title,
		 const char *const *topic, size_t n_topic, unsigned words,
		 unsigned every, unsigned seed)
{
	static const char *const common[] = { "the",  "and",   "with", "of",
					      "some", "today", "we",   "were",
					      "very", "good",  "about" };
	size_t n = (size_t)snprintf(out, cap, "<title>%s</title><p>", title);
	for (unsigned i = 0; i < words && n + 32 < cap; i++) {
		seed = seed * 1103515245u + 12345u;
		const char *wd = (every && i % every == 0)
					 ? topic[(seed >> 16) % n_topic]
					 : common[(seed >> 16) % 11];
		n += (size_t)snprintf(out + n, cap - n, "%s ", wd);
	}
	snprintf(out + n, cap - n, "</p>");
}

static void test_properties(void)
{
	static const char *const astro[] = { "telescope", "orbit", "galaxy",
					     "planet",    "comet", "nebula" };
	static const char *const food[] = { "garlic", "oven",   "pasta",
					    "recipe", "butter", "simmer" };
	struct parse_keywords *k = kws(astro, 6);
	static char a[65536], b[65536];

	/* On topic (one word in 5) against off topic, at equal length. */
	for (unsigned seed = 1; seed <= 20; seed++) {
		page(a, sizeof(a), "Notes", astro, 6, 300, 5, seed);
		page(b, sizeof(b), "Notes", food, 6, 300, 5, seed);
		double on = score(a, k), off = score(b, k);
		CHECK(on > 0.6 && off == 0.0);
		/* A stray keyword in an off-topic page stays far below. */
		strcat(b, "<p>telescope</p>");
		CHECK(score(b, k) < 0.2);
		/* Stable: the same page, the same score. */
		CHECK(score(a, k) == on);
	}
	/* A keyword in the title raises the score of the same body. */
	page(a, sizeof(a), "Notes", astro, 6, 300, 30, 7);
	page(b, sizeof(b), "Comet", astro, 6, 300, 30, 7);
	CHECK(score(b, k) > score(a, k));
	/* Length: the same density at 10 times the length scores about
	 * the same (within 0.15), not 10 times more. */
	page(a, sizeof(a), "Notes", astro, 6, 200, 8, 3);
	page(b, sizeof(b), "Notes", astro, 6, 2000, 8, 3);
	double s200 = score(a, k), s2000 = score(b, k);
	CHECK(s200 > 0.5 && s2000 >= s200 && s2000 - s200 < 0.15);
	/* Stuffing one keyword saturates: it cannot reach a page that
	 * shows the topic's vocabulary. */
	char stuffed[16384] = "<p>";
	for (int i = 0; i < 200; i++)
		strcat(stuffed, "comet ");
	page(a, sizeof(a), "Notes", astro, 6, 200, 4, 9);
	CHECK(score(stuffed, k) < score(a, k));
	CHECK(score(stuffed, k) < 0.6);
	/* Relevance does not change the signatures or the word count. */
	struct parse_page p1, p2;
	CHECK(score_f(a, NULL, PARSE_MD5 | PARSE_SIMHASH, &p1) == -1);
	CHECK(score_f(a, k, PARSE_MD5 | PARSE_SIMHASH, &p2) > 0);
	CHECK(p1.simhash == p2.simhash && memcmp(p1.md5, p2.md5, 16) == 0 &&
	      p1.text_words == p2.text_words && p1.text_words > 0);
	/* With keywords only, the words are still counted. */
	CHECK(score_f(a, k, 0, &p2) > 0 && p2.text_words == p1.text_words &&
	      p2.simhash == 0);
	parse_keywords_free(k);
}

/* Non-ASCII words and long words match as the SimHash tokenizer sees
 * them. */
static void test_words(void)
{
	static const char *const w[] = { "crème brûlée", "ÉCLAIR" };
	struct parse_keywords *k = kws(w, 2);
	char longw[300];
	/* Only ASCII is lower-cased: "ÉCLAIR" is "Éclair" in lower case. */
	CHECK(score("<p>Crème Brûlée</p>", k) > 0);
	CHECK(score("<p>Éclair</p>", k) > 0);
	CHECK(score("<p>éclair</p>", k) == 0);
	parse_keywords_free(k);

	memset(longw, 'x', 200);
	longw[200] = '\0';
	const char *lw[] = { longw };
	k = kws(lw, 1);
	char html[400];
	snprintf(html, sizeof(html), "<p>a %s b</p>", longw);
	CHECK(score(html, k) > 0);
	snprintf(html, sizeof(html), "<p>a %sx b</p>", longw);
	CHECK(score(html, k) == 0);
	parse_keywords_free(k);
}

int main(void)
{
	test_compile();
	test_values();
	test_properties();
	test_words();
	return check_done();
}
