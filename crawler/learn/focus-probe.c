/* focus-probe.c — a look at the root of each host the topic's pages
 * link and the crawl has not met (docs/focus.md "Hosts not met").
 *
 * The prediction judges a link by its words, its class and the kind of
 * page it is on, and a link to a host the crawl never fetched from says
 * nothing of that host: a magazine's "Read article" promotion of a story
 * on another magazine, a weekly's "You may also like" an article of
 * another, are mostly of other topics and pruned as such, and a host
 * that carries much of the topic may be linked by nothing else (traced
 * on mag 1 and 3, zine 1 and 3: two to five hosts of the topic, 50-146
 * of its pages each, never reached, each linked from pages on topic by
 * links the prediction pruned).  The page that tells whether a host
 * carries the topic is its root, its map: a magazine's or a weekly's
 * home names its sections and subject indexes, and a link that shows a
 * keyword is followed from it.
 *
 * So each host that a page on topic links by a link the prediction
 * pruned, and that the crawl has not met (host_met_locked(): a page of
 * it on topic, or its root, learned), holds one such link; when the
 * crawl has nothing else to do (the round of focus_reconsider()), the
 * root of each host still not met is queued, the hosts most linked first
 * as the looks' budget allows (LOOK_FREE, LOOK_PAY, LOOK_FOUND): one look a
 * host, ever, in the tunnel as the pruned link was (the root off topic, only
 * its links that show a keyword are followed, focus_look_follows()).  A host
 * met meanwhile drops its link.  The root's queue entry carries no prediction:
 * no page linked it, so its lease keeps it and the prediction's classes do not
 * learn from it.  A crawl stopped by its budget before it runs dry looks at
 * none.
 *
 * A table of struct probe, open addressing, grown by doubling up to
 * PROBES_MAX hosts; under focus.mu. */
#include "focus-int.h"

#include <stdlib.h>
#include <xxhash.h>

/* The most hosts held (a link each, about 200 bytes). */
#define PROBES_MAX (1u << 16)
/* The looks' budget: LOOK_FREE, LOOK_PAY more for each look whose host
 * then gave a page on topic, and one more for each LOOK_FOUND pages on
 * topic the hosts looked at gave (a look that opens a magazine's section
 * of a hundred pages pays for more than one that finds a stray article). */
#define LOOK_FREE 4
#define LOOK_PAY 2
#define LOOK_FOUND 20

enum { PROBE_HOLDING = 1, PROBE_LOOKED, PROBE_DONE };

struct probe {
	uint64_t key;      /* the host's, with its category; 0: empty */
	struct held *held; /* while PROBE_HOLDING; the root once looked */
	uint32_t links;    /* pruned links from pages on topic to it */
	uint8_t state;
};

static uint64_t probe_key(uint16_t cat, const char *url,
			  const struct norm_url *u)
{
	uint64_t k = XXH3_64bits_withSeed(url + u->host_off, u->host_len,
					  0x70726f6265ull + cat);
	return k ? k : 1;
}

static struct probe *probe_of(struct focus *f, uint64_t key)
{
	if (2 * (f->ps_used + 1) > f->ps_mask + 1) {
		if (f->ps_used >= PROBES_MAX)
			return NULL;
		size_t cap = f->ps ? 2 * (f->ps_mask + 1) : 64;
		struct probe *v = calloc(cap, sizeof(*v));
		if (!v)
			return NULL;
		for (size_t i = 0; f->ps && i <= f->ps_mask; i++) {
			if (!f->ps[i].key)
				continue;
			size_t k = f->ps[i].key & (cap - 1);
			while (v[k].key)
				k = (k + 1) & (cap - 1);
			v[k] = f->ps[i];
		}
		free(f->ps);
		f->ps = v;
		f->ps_mask = cap - 1;
	}
	for (size_t i = key & f->ps_mask;; i = (i + 1) & f->ps_mask) {
		if (f->ps[i].key == key)
			return &f->ps[i];
		if (!f->ps[i].key) {
			f->ps[i].key = key;
			f->ps_used++;
			return &f->ps[i];
		}
	}
}

void probe_hold_locked(struct focus *f, const struct frontier_url *fu)
{
	if (host_met_locked(f, fu->category, fu->url, fu->u))
		return;
	struct probe *p = probe_of(f, probe_key(fu->category, fu->url, fu->u));
	if (!p || (p->state && p->state != PROBE_HOLDING))
		return;
	p->links += p->links < UINT32_MAX;
	if (!p->held && !(p->held = held_new(fu)))
		return;
	p->state = PROBE_HOLDING;
}

/* Does p hold a link to a host the crawl has still not met?  Drops it if
 * the host was met. */
static bool still_wanted(struct focus *f, struct probe *p)
{
	if (p->state != PROBE_HOLDING)
		return false;
	if (!host_met_locked(f, p->held->fu.category, p->held->fu.url,
			     p->held->fu.u))
		return true;
	held_free(p->held);
	p->held = NULL;
	p->state = PROBE_DONE;
	return false;
}

/* Turns the held link h into its host's root, found by no page; false
 * when the root does not parse. */
static bool to_root(struct held *h)
{
	size_t n = h->u.path_off;
	struct norm_url u;
	if (n + 1 > h->fu.url_len || (h->buf[n] = '/', h->buf[n + 1] = '\0',
				      norm_split(h->buf, n + 1, &u)))
		return false;
	u.https = h->u.https;
	u.port = h->u.port;
	h->u = u;
	h->fu.url_len = n + 1;
	h->fu.found = h->buf;
	h->fu.found_len = n + 1;
	h->fu.predicted = 0;
	h->fu.pred_class = FOCUS_PRED_LOOK;
	h->fu.n_words = 0;
	return true;
}

/* The looks the budget allows now: LOOK_FREE, and LOOK_PAY more for
 * each host looked at that gave a page on topic since, less the looks
 * taken. */
static uint64_t looks_left(struct focus *f)
{
	uint64_t looked = 0, paid = 0, found = 0;
	for (size_t i = 0; f->ps && i <= f->ps_mask; i++) {
		struct probe *p = &f->ps[i];
		if (p->key && p->state == PROBE_LOOKED) {
			uint32_t on = host_pages_locked(f, p->held->fu.category,
							p->held->fu.url,
							p->held->fu.u, true);
			looked++;
			paid += on > 0;
			found += on;
		}
	}
	uint64_t budget = LOOK_FREE + LOOK_PAY * paid + found / LOOK_FOUND;
	return budget > looked ? budget - looked : 0;
}

bool probe_pending_locked(struct focus *f)
{
	if (!f->ps || !looks_left(f))
		return false;
	for (size_t i = 0; i <= f->ps_mask; i++)
		if (f->ps[i].key && still_wanted(f, &f->ps[i]))
			return true;
	return false;
}

/* The hosts most linked first. */
static int by_links(const void *a, const void *b)
{
	const struct probe *x = *(const struct probe *const *)a;
	const struct probe *y = *(const struct probe *const *)b;
	return (x->links < y->links) - (x->links > y->links);
}

bool probe_release_locked(struct focus *f)
{
	uint64_t left = f->ps ? looks_left(f) : 0;
	struct probe **v = left ? malloc(f->ps_used * sizeof(*v)) : NULL;
	if (!v)
		return false;
	size_t n = 0;
	for (size_t i = 0; i <= f->ps_mask; i++)
		if (f->ps[i].key && still_wanted(f, &f->ps[i]))
			v[n++] = &f->ps[i];
	qsort(v, n, sizeof(*v), by_links);
	/* Queued in that order, before what was released already. */
	struct held *first = NULL, **tail = &first;
	for (size_t i = 0; i < n && left; i++) {
		struct probe *p = v[i];
		struct held *h = p->held;
		p->held = NULL;
		p->state = PROBE_DONE;
		if (!to_root(h)) {
			held_free(h);
			continue;
		}
		/* The root is queued; a copy stays to name the host. */
		if ((p->held = held_new(&h->fu)))
			p->state = PROBE_LOOKED;
		*tail = h;
		tail = &h->next;
		left--;
	}
	free(v);
	bool any = first != NULL;
	*tail = f->released;
	f->released = first;
	return any;
}

void probe_free(struct focus *f)
{
	for (size_t i = 0; f->ps && i <= f->ps_mask; i++)
		held_free(f->ps[i].held);
	free(f->ps);
	f->ps = NULL;
	f->ps_mask = f->ps_used = 0;
}
