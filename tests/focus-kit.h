/* focus-kit.h — what the unit tests of crawler/learn/'s focus share: the sports
 * category, pages parsed as the crawl parses them and learned from, links
 * predicted as the writer predicts them (test-focus-policy.c,
 * test-focus-looks.c). */
#ifndef FOCUS_KIT_H
#define FOCUS_KIT_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "learn.h"

/* The categories focus_open() takes, as the engine's options hold them. */
struct topics {
	const struct crawl_category *categories;
	size_t n_categories;
};

static const char *const keywords[] = { "football", "goal", "striker",
					"league" };

static const struct crawl_category sports = {
	.name = "sports",
	.keywords = keywords,
	.n_keywords = 4,
	.scope = CRAWL_SCOPE_ANY,
	.min_relevance = 0.3,
	.tunnel = 1,
	.predict = true,
	.predict_min = 0.3,
};

/* A lease of url with no prediction (a seed's). */
static inline void lease_of(const char *url, struct frontier_lease *l)
{
	memset(l, 0, sizeof(*l));
	l->url_len = (uint16_t)strlen(url);
	memcpy(l->url, url, l->url_len + 1u);
	CHECK(norm_split(url, l->url_len, &l->u) == 0);
}

/* Parse html as the page of lease l with the category's keywords and
 * word set, as the crawl's parsers do, and learn from it; returns its
 * relevance. */
static inline double
learn_lease(struct focus *f, const struct frontier_lease *l, const char *html)
{
	static uint64_t words[FOCUS_WORDS_CAP];
	memset(words, 0, sizeof(words));
	struct norm_opts o = { 0 };
	o.steps = norm_profile_steps(NORM_PROFILE_STRICT);
	struct parse_doc_opts d = { 0 };
	d.keywords = focus_keywords(f, 0);
	d.words = words;
	d.words_cap = FOCUS_WORDS_CAP;
	struct parse_page p;
	CHECK(parse_document(html, strlen(html), l->url, l->url_len, &o, &d,
			     NULL, NULL, &p) == 0);
	CHECK(p.has_relevance);
	focus_learn(f, 0, l, words, p.has_relevance, p.relevance);
	return p.relevance;
}

/* learn_lease() for a page fetched without a prediction (a seed). */
static inline double learn(struct focus *f, const char *url, const char *html)
{
	struct frontier_lease l;
	lease_of(url, &l);
	return learn_lease(f, &l, html);
}

/* The prediction for a link to url showing anchor, from a page of
 * relevance rel on another host, page_hits of whose links show a
 * keyword, offtopic off-topic pages into the tunnel. */
static inline void predict_from(struct focus *f, const char *url, double rel,
				unsigned page_hits, uint8_t offtopic,
				const char *anchor, struct focus_link *pl)
{
	struct norm_url u;
	CHECK(norm_split(url, strlen(url), &u) == 0);
	focus_predict(f, 0, true, rel, 0, page_hits, false, url, &u, anchor,
		      strlen(anchor), offtopic, pl);
}

/* predict_from() a page none of whose links shows a keyword. */
static inline void predict(struct focus *f, const char *url, double rel,
			   const char *anchor, struct focus_link *pl)
{
	predict_from(f, url, rel, 0, 0, anchor, pl);
}

/* predict() a link from a page on topic to its own host. */
static inline void predict_own(struct focus *f, const char *url,
			       const char *anchor, struct focus_link *pl)
{
	struct norm_url u;
	CHECK(norm_split(url, strlen(url), &u) == 0);
	focus_predict(f, 0, true, 0.9, 0, 0, true, url, &u, anchor,
		      strlen(anchor), 0, pl);
}

/* The queue entry a link's prediction made, leased. */
static inline void lease_from(const char *url, const struct focus_link *pl,
			      struct frontier_lease *l)
{
	lease_of(url, l);
	l->predicted = pl->predicted;
	l->pred_class = pl->pred_class;
	l->n_words = pl->n_words;
	memcpy(l->words, pl->words, sizeof(l->words));
}

static inline double p_of(const struct focus_link *pl)
{
	return (pl->predicted - 1) / 254.0;
}

static inline double odds(double p)
{
	return p / (1.0 - p + 1e-9);
}

static const char sports_page[] =
	"<title>Derby report</title><p>The striker scored a goal in the "
	"league derby, a football match the referee stopped twice.</p>";
static const char stars_page[] =
	"<title>Night sky</title><p>The telescope saw a galaxy and a nebula "
	"beyond the comet's orbit, far from the observatory.</p>";

/* A focus on sports that learned from 6 pages of it and 6 of astronomy,
 * each on a host of its own (seeds: no prediction). */
static inline struct focus *focus_taught(const struct topics *o)
{
	struct focus *f;
	CHECK(focus_open(o->categories, o->n_categories, &f) == 0);
	char url[128];
	for (int i = 0; i < 6; i++) {
		snprintf(url, sizeof(url), "http://sports%d.test/a", i);
		CHECK(learn(f, url, sports_page) >= sports.min_relevance);
		snprintf(url, sizeof(url), "http://stars%d.test/s", i);
		CHECK(learn(f, url, stars_page) < sports.min_relevance);
	}
	return f;
}

#endif
