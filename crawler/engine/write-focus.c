/* write-focus.c — the writer's side of focus's navigation pages and
 * samples of the pruned (learn.h; docs/focus.md "Navigation pages of the
 * topic", "Samples of the pruned"): the relevance a fetched page is taken
 * at, the pruned links handed to focus to hold, and the held links focus
 * releases queued in the writer's transaction.  Writer thread only. */
#include "crawl-int.h"

#include <string.h>

double write_page_relevance(struct crawl *c, const struct job *j)
{
	uint16_t cat = j->lease.category;
	unsigned on = 0, off = 0;
	/* Only pages off topic with few words of their own pay for the
	 * look at their links. */
	if (!focus_nav_candidate(c->focus, cat, j->has_relevance, j->relevance,
				 j->words))
		return j->relevance;
	for (size_t i = 0; i < j->n_links; i++) {
		const struct link *l = &j->links[i];
		int says = focus_link_says(
			c->focus, cat, j->lease.url, &j->lease_u,
			j->link_text.p + l->anchor_off, l->anchor_len,
			j->link_text.p + l->off, &l->u);
		on += says > 0;
		off += says < 0;
	}
	return focus_nav_relevance(c->focus, cat, j->relevance, on, off);
}

void write_hold_link(struct crawl *c, const struct job *j, const struct link *l,
		     uint8_t off, const struct focus_link *pl)
{
	struct frontier_url rf = {
		.url = j->link_text.p + l->off,
		.url_len = l->u.len,
		.u = &l->u,
		.found = j->link_text.p + l->found_off,
		.found_len = l->found_len,
		.depth = (uint16_t)(j->lease.depth + 1),
		.category = j->lease.category,
		.offtopic = off,
		.predicted = pl->predicted,
		.pred_class = pl->pred_class,
		.n_words = pl->n_words,
	};
	memcpy(rf.words, pl->words, sizeof(rf.words));
	focus_reserve(c->focus, &rf);
}

void write_hold_lease(struct crawl *c, const struct job *j)
{
	struct frontier_url rf = {
		.url = j->lease.url,
		.url_len = j->lease.url_len,
		.u = &j->lease.u,
		.found = j->lease.found,
		.found_len = j->lease.found_len,
		.depth = j->lease.depth,
		.category = j->lease.category,
		.offtopic = j->lease.offtopic,
		.predicted = j->lease.predicted,
		.pred_class = j->lease.pred_class,
		.n_words = j->lease.n_words,
	};
	memcpy(rf.words, j->lease.words, sizeof(rf.words));
	focus_reserve(c->focus, &rf);
}

struct release_ctx {
	struct crawl *c;
	MDB_txn *txn;
	int queued;
};

/* A held link focus released: queued, unless it was queued before or
 * the category's patterns refuse it (a host's root that focus looks at
 * is no link of a page, and was not asked of them), or, in a cluster, it
 * is another shard's host (a look at a host the shard does not crawl:
 * left to the pages of the shard that does). */
static int release_queue(void *arg, const struct frontier_url *fu)
{
	struct release_ctx *x = arg;
	bool explored = fu->pred_class == FOCUS_PRED_EXPLORE,
	     floor = explored || fu->pred_class == FOCUS_PRED_LOOK;
	if (!focus_wanted(x->c->focus, fu->category, fu->url, fu->url_len) ||
	    write_foreign(x->c, fu->url, fu->u) >= 0) {
		if (floor)
			focus_explore_queued(x->c->focus, fu->category,
					     explored, false);
		return 0;
	}
	int rc = frontier_add(x->c->fr, x->txn, fu);
	if (floor)
		focus_explore_queued(x->c->focus, fu->category, explored,
				     rc == 1);
	if (rc == 1) {
		x->queued++;
		if (fu->pred_class == FOCUS_PRED_LOOK)
			focus_count(x->c->focus, fu->category,
				    STORE_FOCUS_LOOKS, 1);
		pthread_mutex_lock(&x->c->mu);
		x->c->sum.queued++;
		pthread_mutex_unlock(&x->c->mu);
	}
	return rc == SC_E_INVAL || rc > 0 ? 0 : rc;
}

int write_released(struct crawl *c, MDB_txn *txn, int *queued)
{
	struct release_ctx x = { c, txn, 0 };
	int rc = focus_release(c->focus, release_queue, &x);
	if (queued)
		*queued = x.queued;
	return rc;
}

/* The most rounds of explored links a dry round takes while each queues
 * nothing (links fetched through others since they were pruned). */
#define EXPLORE_TRIES 64

int write_reserve(struct crawl *c, MDB_txn *txn, struct job *j)
{
	focus_reconsider(c->focus);
	int rc = write_released(c, txn, &j->seeds_added);
	/* A round that queues nothing ends the crawl: while the floor
	 * allows, the next best explored links are tried instead. */
	for (int k = 0; !rc && !j->seeds_added && k < EXPLORE_TRIES &&
			focus_explore_more(c->focus);
	     k++)
		rc = write_released(c, txn, &j->seeds_added);
	return rc;
}
