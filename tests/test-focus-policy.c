/* test-focus-policy.c — unit tests of the link prediction of
 * crawler/focus-policy.c (docs/focus.md, "Prediction"): pages parsed as the
 * crawl parses them teach it words, and every link to a URL counts, not
 * only the one that queued it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "focus-policy.h"

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
static void lease_of(const char *url, struct frontier_lease *l)
{
	memset(l, 0, sizeof(*l));
	l->url_len = (uint16_t)strlen(url);
	memcpy(l->url, url, l->url_len + 1u);
	CHECK(norm_split(url, l->url_len, &l->u) == 0);
}

/* Parse html as the page of lease l with the category's keywords and
 * word set, as the crawl's parsers do, and learn from it; returns its
 * relevance. */
static double learn_lease(struct focus *f, const struct frontier_lease *l,
			  const char *html)
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
static double learn(struct focus *f, const char *url, const char *html)
{
	struct frontier_lease l;
	lease_of(url, &l);
	return learn_lease(f, &l, html);
}

/* The prediction for a link to url showing anchor, from a page of
 * relevance rel on another host. */
static void predict(struct focus *f, const char *url, double rel,
		    const char *anchor, struct focus_link *pl)
{
	struct norm_url u;
	CHECK(norm_split(url, strlen(url), &u) == 0);
	focus_predict(f, 0, true, rel, 0, false, url, &u, anchor,
		      strlen(anchor), 0, pl);
}

/* The queue entry a link's prediction made, leased. */
static void lease_from(const char *url, const struct focus_link *pl,
		       struct frontier_lease *l)
{
	lease_of(url, l);
	l->predicted = pl->predicted;
	l->pred_class = pl->pred_class;
	l->n_words = pl->n_words;
	memcpy(l->words, pl->words, sizeof(l->words));
}

static double p_of(const struct focus_link *pl)
{
	return (pl->predicted - 1) / 254.0;
}

int main(void)
{
	struct crawl_opts o = { 0 };
	o.categories = &sports;
	o.n_categories = 1;
	struct focus *f;
	CHECK(focus_open(&o, &f) == 0);
	CHECK(focus_predicts(f, 0));

	/* Six pages on topic on one host, six of astronomy on another. */
	char url[128];
	for (int i = 0; i < 6; i++) {
		snprintf(url, sizeof(url), "http://sports.test/a%d", i);
		double r = learn(
			f, url,
			"<title>Derby report</title><p>The striker "
			"scored a goal in the league derby, a football "
			"match the referee stopped twice.</p>");
		CHECK(r >= sports.min_relevance);
		snprintf(url, sizeof(url), "http://stars.test/s%d", i);
		r = learn(f, url,
			  "<title>Night sky</title><p>The telescope saw a "
			  "galaxy and a nebula beyond the comet's orbit, far "
			  "from the observatory.</p>");
		CHECK(r < sports.min_relevance);
	}

	/* What was learned: the words of another topic say off topic,
	 * even from a page on topic; words never seen say nothing, and
	 * the page's class decides. */
	struct focus_link pl;
	predict(f, "http://mixed.test/item?id=1", 0.9,
		"The telescope and the nebula", &pl);
	CHECK(pl.pred_class != 0);
	CHECK(p_of(&pl) < sports.predict_min);
	CHECK(!pl.keep);
	predict(f, "http://mixed.test/item?id=2", 0.9, "Read more", &pl);
	CHECK(pl.keep);
	CHECK(p_of(&pl) >= 0.5);

	/* X is queued from a page on topic through "Read more", and kept
	 * when leased. */
	const char *x = "http://mixed.test/item?id=7";
	struct frontier_lease lx;
	predict(f, x, 0.9, "Read more", &pl);
	CHECK(pl.keep);
	lease_from(x, &pl, &lx);
	CHECK(focus_lease_keep(f, &lx));

	/* Y likewise. */
	const char *y = "http://mixed.test/item?id=8";
	struct frontier_lease ly;
	predict(f, y, 0.9, "Read more", &pl);
	lease_from(y, &pl, &ly);
	CHECK(focus_lease_keep(f, &ly));

	/* Then a page lists X under a title of astronomy: X is judged by
	 * it at its lease, though its queue entry holds the words of the
	 * first link only. */
	predict(f, x, 0.0, "The telescope saw a galaxy", &pl);
	CHECK(!focus_lease_keep(f, &lx));
	/* Y was not named: it stays. */
	CHECK(focus_lease_keep(f, &ly));
	/* And a third link to X, showing nothing, is predicted with what
	 * the others showed. */
	predict(f, x, 0.9, "Read more", &pl);
	CHECK(!pl.keep);
	CHECK(p_of(&pl) < sports.predict_min);

	/* The words links showed for one URL are not another's: Y's
	 * next link, showing nothing, is predicted as before. */
	predict(f, y, 0.9, "Read more", &pl);
	CHECK(pl.keep);
	CHECK(p_of(&pl) >= 0.5);

	/* A word seen in a single page, off topic, and in none of many on
	 * topic says off topic ("pulsar" and "quasar": 20 pages of sports
	 * more, then one of astronomy; before it, they say nothing). */
	for (int i = 0; i < 20; i++) {
		snprintf(url, sizeof(url), "http://sports.test/b%d", i);
		CHECK(learn(f, url,
			    "<title>Cup tie</title><p>The striker's goal won "
			    "the league match; football fans cheered.</p>") >=
		      sports.min_relevance);
	}
	predict(f, "http://mixed.test/item?id=20", 0.9, "Pulsar, quasar", &pl);
	CHECK(pl.keep);
	learn(f, "http://stars.test/s9",
	      "<title>Radio sky</title><p>A pulsar, a quasar, seen from "
	      "the observatory.</p>");
	predict(f, "http://mixed.test/item?id=21", 0.9, "Pulsar, quasar", &pl);
	CHECK(!pl.keep);
	CHECK(p_of(&pl) < sports.predict_min);

	/* The words links show are learned with the page they lead to:
	 * four pages reached through "Continue reading" (from pages off
	 * topic, on hosts of their own) were of astronomy, whose text has
	 * neither word, so the next such link is predicted off topic, even
	 * from a page on topic, while "Read more" still says nothing. */
	for (int i = 0; i < 4; i++) {
		snprintf(url, sizeof(url), "http://series%d.test/part", i);
		predict(f, url, 0.0, "Continue reading", &pl);
		struct frontier_lease lc;
		lease_from(url, &pl, &lc);
		CHECK(learn_lease(f, &lc,
				  "<title>Night sky</title><p>The telescope "
				  "saw a galaxy.</p>") < sports.min_relevance);
	}
	predict(f, "http://mixed.test/item?id=40", 0.9, "Continue reading",
		&pl);
	CHECK(p_of(&pl) < sports.predict_min);
	predict(f, "http://mixed.test/item?id=41", 0.9, "Read more", &pl);
	CHECK(p_of(&pl) >= 0.5);

	focus_close(f);
	return check_done();
}
