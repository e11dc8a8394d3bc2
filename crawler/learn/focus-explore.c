/* focus-explore.c — the harvest floor (docs/focus.md "Harvest floor"):
 * per category, the running harvest as `report` counts it (pages scored
 * and those on topic, over every run of the store), and the links the
 * prediction pruned, kept best predicted first.  While the harvest's
 * lower bound (wilson_lower()), with every explored page still on its way
 * counted off topic and one more too, stays at or above the category's
 * min_harvest, the best of them is queued to explore (focus_release()),
 * marked FOCUS_PRED_EXPLORE.  An
 * explored page counts in the harvest like any other, so the floor holds
 * for what exploration fetches.  The writer's alone, under focus.mu. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "bounds.h"
#include "focus-int.h"

/* The pruned links kept a category, at most (some 2 MiB of URLs). */
#define EXPLORE_MAX 4096u
/* The URLs a category ever kept, remembered so that a URL many pages
 * link is kept once (a table of hashes; once full, none is refused). */
#define EXPLORE_SEEN (1u << 15)
/* The pages a category scores before it explores: what a pruned link is
 * worth is learned from those (the words say nothing before
 * words_ready()). */
#define EXPLORE_AFTER 100u

static uint64_t url_hash(const char *url, size_t len)
{
	uint64_t h = XXH3_64bits(url, len);
	return h ? h : 1;
}

/* Category cat's state, grown as reloads add categories (NULL without
 * memory). */
static struct explore *explore_of(struct focus *f, uint16_t cat)
{
	if (cat >= f->n_ex) {
		size_t n = (size_t)cat + 1;
		struct explore *v = realloc(f->ex, n * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + f->n_ex, 0, (n - f->n_ex) * sizeof(*v));
		f->ex = v;
		f->n_ex = n;
	}
	return &f->ex[cat];
}

/* Does category cat of view v explore: keywords, the prediction pruning
 * (a tunnel), and a floor under 1? */
static bool explores(const struct view *v, uint16_t cat)
{
	if (cat >= v->n || !v->kw[cat])
		return false;
	const struct crawl_category *c = &v->cats[cat];
	return c->predict && c->predict_min > 0.0 && c->tunnel &&
	       c->min_harvest < 1.0;
}

/* Has url been kept before?  Notes it if not. */
static bool seen_before(struct explore *e, uint64_t h)
{
	if (!e->seen && !(e->seen = calloc(EXPLORE_SEEN, sizeof(*e->seen))))
		return false;
	if (2 * (e->n_seen + 1) > EXPLORE_SEEN)
		return false;
	size_t k = h & (EXPLORE_SEEN - 1);
	while (e->seen[k]) {
		if (e->seen[k] == h)
			return true;
		k = (k + 1) & (EXPLORE_SEEN - 1);
	}
	e->seen[k] = h;
	e->n_seen++;
	return false;
}

void explore_hold_locked(struct focus *f, const struct frontier_url *fu)
{
	const struct view *v = view_of(f);
	if (!explores(v, fu->category) || !fu->predicted || !fu->u ||
	    !fu->u->len)
		return;
	struct explore *e = explore_of(f, fu->category);
	if (!e)
		return;
	unsigned b = fu->predicted;
	if (e->n_held >= EXPLORE_MAX) {
		/* Full: the new link takes the place of the worst kept, if
		 * it is better. */
		unsigned w = 0;
		while (w < EXPLORE_BUCKETS && !e->bucket[w])
			w++;
		if (w >= b)
			return;
		if (seen_before(e, url_hash(fu->url, fu->url_len)))
			return;
		struct held *x = e->bucket[w];
		e->bucket[w] = x->next;
		x->next = NULL;
		held_free(x);
		e->n_held--;
	} else if (seen_before(e, url_hash(fu->url, fu->url_len))) {
		return;
	}
	struct held *h = held_new(fu);
	if (!h)
		return;
	h->fu.priority = 3;
	h->next = e->bucket[b];
	e->bucket[b] = h;
	e->n_held++;
}

/* z of a one-sided 95 % bound (the normal quantile of 0.95). */
#define EXPLORE_Z 1.645

/* May category cat (of v, e) explore one more link: it scored enough
 * pages, and the lower bound of its harvest (wilson_lower()) stays at or
 * above its floor with every page explored counted off topic, fetched,
 * on its way (and the roots looked at on theirs) or the one more?  The
 * explored pages on topic are not counted on: a page the prediction
 * pruned and the relevance passes is more often a mixed page (a tag
 * page, a digest) than the crawl's others (on the tuning webs, counting
 * them on let the labelled harvest fall 0.02 more than report's), so
 * only what they open pays for more.  The bound, not the count itself:
 * the count calls on topic every page whose relevance passes, some of
 * them barely, so it runs above the harvest a reader would judge (0.01
 * to 0.03 on the generated webs), by about as much as its uncertainty
 * at the pages a crawl scores (0.015 at 1,000): the floor spends only
 * the slack it is sure of. */
static bool slack_locked(const struct view *v, uint16_t cat,
			 const struct explore *e)
{
	if (e->scored < EXPLORE_AFTER || e->on < e->explored_on)
		return false;
	return wilson_lower(e->on - e->explored_on,
			    e->scored + e->in_flight + 1,
			    EXPLORE_Z) >= v->cats[cat].min_harvest;
}

/* The links e keeps, predicted again with what the crawl knows now, in
 * the buckets of their new predictions. */
static void predict_again_locked(struct focus *f, struct explore *e)
{
	struct held *all = NULL;
	for (size_t b = 0; b < EXPLORE_BUCKETS; b++) {
		while (e->bucket[b]) {
			struct held *h = e->bucket[b];
			e->bucket[b] = h->next;
			h->next = all;
			all = h;
		}
	}
	while (all) {
		struct held *h = all;
		all = h->next;
		double p = held_predict_locked(f, &h->fu);
		p = p < 0.0 ? 0.0 : p > 1.0 ? 1.0 : p;
		h->fu.predicted = (uint8_t)(1 + lround(p * 254.0));
		h->next = e->bucket[h->fu.predicted];
		e->bucket[h->fu.predicted] = h;
	}
}

bool explore_take_locked(struct focus *f)
{
	const struct view *v = view_of(f);
	bool any = false;
	for (size_t i = 0; i < f->n_ex; i++) {
		struct explore *e = &f->ex[i];
		if (!explores(v, (uint16_t)i) || !e->n_held ||
		    !slack_locked(v, (uint16_t)i, e))
			continue;
		predict_again_locked(f, e);
		unsigned b = EXPLORE_BUCKETS;
		while (e->n_held && slack_locked(v, (uint16_t)i, e)) {
			while (b > 0 && !e->bucket[b - 1])
				b--;
			if (!b)
				break;
			struct held *h = e->bucket[b - 1];
			e->bucket[b - 1] = h->next;
			e->n_held--;
			h->fu.pred_class = FOCUS_PRED_EXPLORE;
			h->next = f->released;
			f->released = h;
			e->in_flight++;
			any = true;
		}
	}
	return any;
}

void explore_looks_locked(struct focus *f)
{
	for (struct held *h = f->released; h; h = h->next) {
		if (h->fu.pred_class != FOCUS_PRED_LOOK)
			continue;
		struct explore *e = explore_of(f, h->fu.category);
		if (!e)
			return;
		e->in_flight++;
	}
}

bool focus_explore_more(struct focus *f)
{
	pthread_mutex_lock(&f->mu);
	bool any = explore_take_locked(f);
	pthread_mutex_unlock(&f->mu);
	return any;
}

bool explore_pending_locked(struct focus *f)
{
	const struct view *v = view_of(f);
	for (size_t i = 0; i < f->n_ex; i++)
		if (explores(v, (uint16_t)i) && f->ex[i].n_held &&
		    slack_locked(v, (uint16_t)i, &f->ex[i]))
			return true;
	return false;
}

void focus_explore_queued(struct focus *f, uint16_t cat, bool explored,
			  bool queued)
{
	pthread_mutex_lock(&f->mu);
	struct explore *e = cat < f->n_ex ? &f->ex[cat] : NULL;
	if (e && !queued && e->in_flight)
		e->in_flight--;
	pthread_mutex_unlock(&f->mu);
	if (queued && explored)
		focus_count(f, cat, STORE_FOCUS_EXPLORE_QUEUED, 1);
}

void focus_page(struct focus *f, const struct frontier_lease *l, bool scored,
		bool has_relevance, double relevance)
{
	const struct view *v = view_of(f);
	uint16_t cat = l->category;
	if (cat >= v->n || !v->kw[cat])
		return;
	bool explored = l->pred_class == FOCUS_PRED_EXPLORE && !l->redirects;
	pthread_mutex_lock(&f->mu);
	struct explore *e = explore_of(f, cat);
	if (e && !l->redirects &&
	    (explored || l->pred_class == FOCUS_PRED_LOOK))
		e->done_batch++;
	pthread_mutex_unlock(&f->mu);
	if (!scored || !has_relevance)
		return;
	bool on = relevance >= v->cats[cat].min_relevance;
	focus_count(f, cat, STORE_FOCUS_SCORED, 1);
	focus_count(f, cat, STORE_FOCUS_ON, on);
	if (explored) {
		focus_count(f, cat, STORE_FOCUS_EXPLORED, 1);
		focus_count(f, cat, STORE_FOCUS_EXPLORED_ON, on);
	}
}

void explore_batch_end_locked(struct focus *f, bool ok)
{
	for (size_t i = 0; i < f->n_ex; i++) {
		struct explore *e = &f->ex[i];
		/* An aborted batch's pages are not counted, and stay on
		 * their way: the harvest is counted low, never high. */
		if (ok && i < f->n_batch) {
			e->scored += f->batch[i][STORE_FOCUS_SCORED];
			e->on += f->batch[i][STORE_FOCUS_ON];
			e->explored += f->batch[i][STORE_FOCUS_EXPLORED];
			e->explored_on += f->batch[i][STORE_FOCUS_EXPLORED_ON];
			e->explore_queued +=
				f->batch[i][STORE_FOCUS_EXPLORE_QUEUED];
		}
		if (ok)
			e->in_flight = e->in_flight > e->done_batch
					       ? e->in_flight - e->done_batch
					       : 0;
		e->done_batch = 0;
	}
}

int explore_load_locked(struct focus *f, uint16_t cat,
			const uint64_t cnt[STORE_FOCUS_COUNTERS])
{
	struct explore *e = explore_of(f, cat);
	if (!e)
		return SC_E_NOMEM;
	e->scored = cnt[STORE_FOCUS_SCORED];
	e->on = cnt[STORE_FOCUS_ON];
	e->explored = cnt[STORE_FOCUS_EXPLORED];
	e->explored_on = cnt[STORE_FOCUS_EXPLORED_ON];
	e->explore_queued = cnt[STORE_FOCUS_EXPLORE_QUEUED];
	return 0;
}

bool focus_floor(struct focus *f, uint16_t cat, struct focus_floor *ret)
{
	const struct view *v = view_of(f);
	memset(ret, 0, sizeof(*ret));
	if (cat >= v->n || !v->kw[cat])
		return false;
	ret->min_harvest = v->cats[cat].min_harvest;
	ret->explores = explores(v, cat);
	pthread_mutex_lock(&f->mu);
	if (cat < f->n_ex) {
		const struct explore *e = &f->ex[cat];
		ret->scored = e->scored;
		ret->on = e->on;
		ret->queued = e->explore_queued;
		ret->explored = e->explored;
		ret->explored_on = e->explored_on;
		ret->in_flight = e->in_flight;
		ret->held = e->n_held;
	}
	pthread_mutex_unlock(&f->mu);
	return true;
}

void explore_free(struct focus *f)
{
	for (size_t i = 0; i < f->n_ex; i++) {
		for (size_t b = 0; b < EXPLORE_BUCKETS; b++)
			held_free(f->ex[i].bucket[b]);
		free(f->ex[i].seen);
	}
	free(f->ex);
	f->ex = NULL;
	f->n_ex = 0;
}
