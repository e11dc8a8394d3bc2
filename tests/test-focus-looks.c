/* test-focus-looks.c — unit tests of the looks at the roots of hosts not
 * met (crawler/learn/focus-probe.c; docs/focus.md "Hosts not met"). */
#include "focus-kit.h"

/* The URLs focus released to queue (focus_release()), and what they
 * carry. */
struct released {
	char url[8][64];
	uint8_t pred_class[8];
	uint8_t offtopic[8];
	size_t n;
};

static int collect(void *arg, const struct frontier_url *fu)
{
	struct released *r = arg;
	if (r->n < 8 && fu->url_len < sizeof(r->url[0])) {
		memcpy(r->url[r->n], fu->url, fu->url_len);
		r->url[r->n][fu->url_len] = '\0';
		r->pred_class[r->n] = fu->pred_class;
		r->offtopic[r->n] = fu->offtopic;
	}
	r->n++;
	return 0;
}

/* The link to url that a page of relevance rel showed as anchor,
 * predicted, and handed to focus when pruned, as the writer does
 * (write_hold_link()); returns whether it was kept. */
static bool link_to(struct focus *f, const char *url, double rel,
		    const char *anchor)
{
	struct focus_link pl;
	struct norm_url u;
	CHECK(norm_split(url, strlen(url), &u) == 0);
	predict(f, url, rel, anchor, &pl);
	if (pl.keep)
		return true;
	struct frontier_url fu = {
		.url = url,
		.url_len = u.len,
		.u = &u,
		.found = url,
		.found_len = u.len,
		.depth = 2,
		.offtopic = rel >= sports.min_relevance ? 0 : 1,
		.predicted = pl.predicted,
		.pred_class = pl.pred_class,
		.n_words = pl.n_words,
	};
	memcpy(fu.words, pl.words, sizeof(fu.words));
	focus_reserve(f, &fu);
	return false;
}

/* A round of the crawl run dry: what focus releases. */
static size_t dry_round(struct focus *f, struct released *r)
{
	memset(r, 0, sizeof(*r));
	focus_reconsider(f);
	CHECK(focus_release(f, collect, r) == 0);
	return r->n;
}

/* Looks at the hosts not met (docs/focus.md "Hosts not met"): the root
 * of a host that a page on topic linked by a pruned link is queued when
 * the crawl runs dry, once, carrying no prediction; not a host linked
 * only from pages off topic, nor one whose root or a page on topic the
 * crawl learned from meanwhile (a story off topic is not enough); from
 * the root off
 * topic only links that show a keyword are followed; and LOOK_FREE (4)
 * looks are free, two more for each whose host gave a page on topic, and
 * one more for every LOOK_FOUND (20) pages on topic those hosts gave. */
static void test_looks(const struct topics *o)
{
	struct focus *f = focus_taught(o);
	const char *title = "The telescope and the nebula";
	CHECK(!focus_reserve_pending(f));
	CHECK(!link_to(f, "http://mag1.test:8080/story/9?page=1", 0.9, title));
	CHECK(!link_to(f, "http://mag1.test:8080/story/10", 0.9, title));
	CHECK(!link_to(f, "http://offsite.test/story/1", 0.0, title));
	/* Met meanwhile, by its root (off topic) or a page on topic. */
	CHECK(!link_to(f, "http://met.test/story/2", 0.9, title));
	learn(f, "http://met.test/", stars_page);
	CHECK(!link_to(f, "http://on.test/story/3", 0.9, title));
	CHECK(learn(f, "http://on.test/a", sports_page) >=
	      sports.min_relevance);
	/* Not by a story off topic alone (another topic's, promoted). */
	CHECK(!link_to(f, "http://promo.test/story/4", 0.9, title));
	learn(f, "http://promo.test/story/6", stars_page);
	CHECK(focus_reserve_pending(f));
	struct released r;
	CHECK(dry_round(f, &r) == 2);
	CHECK(strcmp(r.url[0], "http://mag1.test:8080/") == 0);
	CHECK(strcmp(r.url[1], "http://promo.test/") == 0);
	CHECK(r.pred_class[0] == FOCUS_PRED_LOOK);
	CHECK(r.offtopic[0] == 0);
	struct frontier_lease l;
	lease_of(r.url[0], &l);
	l.pred_class = FOCUS_PRED_LOOK;
	CHECK(focus_lease_keep(f, &l));
	/* Off topic, the root opens its links that show a keyword only. */
	CHECK(!focus_look_follows(&l, 1, 0));
	CHECK(focus_look_follows(&l, 1, 1));
	CHECK(focus_look_follows(&l, 0, 0));
	struct frontier_lease seed;
	lease_of("http://sports0.test/", &seed);
	CHECK(focus_look_follows(&seed, 1, 0));
	/* Once a host. */
	CHECK(!link_to(f, "http://mag1.test:8080/story/11", 0.9, title));
	CHECK(!focus_reserve_pending(f));
	CHECK(dry_round(f, &r) == 0);

	/* The budget: two more free looks, then none until one pays; the
	 * hosts most linked first. */
	char url[64];
	for (int i = 0; i < 8; i++) {
		for (int k = 0; k < (i == 5 ? 3 : i == 2 ? 2 : 1); k++) {
			snprintf(url, sizeof(url), "http://weekly%d.test/p/%d",
				 i, k);
			CHECK(!link_to(f, url, 0.9, title));
		}
	}
	CHECK(dry_round(f, &r) == 2);
	CHECK(strcmp(r.url[0], "http://weekly5.test/") == 0);
	CHECK(strcmp(r.url[1], "http://weekly2.test/") == 0);
	for (size_t i = 0; i < r.n; i++)
		CHECK(learn(f, r.url[i], stars_page) < sports.min_relevance);
	CHECK(dry_round(f, &r) == 0);
	/* A page on topic on a host looked at pays for two more. */
	CHECK(learn(f, "http://mag1.test:8080/section/sports", sports_page) >=
	      sports.min_relevance);
	CHECK(dry_round(f, &r) == 2);
	/* And every LOOK_FOUND (20) pages on topic that the hosts looked at
	 * gave, for one more: weekly5's section opens, 18 pages (19 with
	 * mag1's), two more for the host, then one for its 19th page. */
	for (int i = 0; i < 18; i++) {
		snprintf(url, sizeof(url), "http://weekly5.test/sports/%d", i);
		CHECK(learn(f, url, sports_page) >= sports.min_relevance);
	}
	CHECK(dry_round(f, &r) == 2);
	CHECK(learn(f, "http://weekly5.test/sports/18", sports_page) >=
	      sports.min_relevance);
	CHECK(dry_round(f, &r) == 1);
	/* Every host noted has been looked at. */
	CHECK(!focus_reserve_pending(f));
	focus_close(f);
}

int main(void)
{
	struct topics o = { 0 };
	o.categories = &sports;
	o.n_categories = 1;
	test_looks(&o);
	return check_done();
}
