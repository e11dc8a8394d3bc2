/* focus-predict.c — the focus policy's link prediction (learn.h,
 * docs/focus.md "Prediction"): per category a model of the classes of
 * link (the linking page on topic or not, the keywords the link shows,
 * same host or not) and of the kinds of linking page, with their pages
 * fetched and on topic; tables of counts per host and per word; and the
 * words of the links seen to each URL (the in-links).  The writer
 * predicts each new link (focus_predict()), learns from each page
 * fetched (focus_learn()) and from the tunnel's roots (focus_bridge());
 * the scheduler asks again at the lease (focus_lease_keep()).  The
 * model is under focus.mu; struct focus is in focus-int.h. */
#include "focus-int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* The kinds of page a link is on, by how many of the page's links show a
 * keyword: none, 1, 2-3, 4-7, 8 or more (a list of the topic, a hub). */
static unsigned src_kind(unsigned links_with_hits)
{
	unsigned n = links_with_hits;
	return n == 0 ? 0 : n == 1 ? 1 : n < 4 ? 2 : n < 8 ? 3 : 4;
}

/* A queue entry's pred_class: 1 + the link's class + STORE_FOCUS_CLASSES
 * * (1 + the kind of its linking page); 0: no prediction. */
#define PRED_CLASSES (STORE_FOCUS_CLASSES * (SRC_KINDS + 1))
/* A pred_class's flag: the link is another page of its page's list
 * (focus_pager()), which the lease does not prune. */
#define PRED_PAGER 0x80u
static bool pred_known(uint8_t pc)
{
	pc &= (uint8_t)~PRED_PAGER;
	return pc && pc <= PRED_CLASSES;
}
static unsigned class_of(uint8_t pc)
{
	pc &= (uint8_t)~PRED_PAGER;
	return (pc - 1u) % STORE_FOCUS_CLASSES;
}
/* The kind of a pred_class's page, -1 when it did not say. */
static int kind_of(uint8_t pc)
{
	pc &= (uint8_t)~PRED_PAGER;
	return (int)((pc - 1u) / STORE_FOCUS_CLASSES) - 1;
}

#define INLINKS 32768
struct inlink {
	uint64_t key;                   /* 0: empty */
	uint32_t w[FRONTIER_WORDS_MAX]; /* 0: none */
	uint8_t kind; /* 1 + the largest src_kind() of the pages linking */
};

/* How many pages' worth of weight the prior of a rate has: a class
 * starts at its prior below, a host or a word at the category's rate, and
 * each moves off it as pages come. */
#define PRIOR_PAGES 2.0
/* A class of link the crawl has not learned yet: likely on topic from
 * a page on topic, likely not from one off topic (topical locality). */
#define CLASS_PRIOR_ON 0.75
#define CLASS_PRIOR_OFF 0.25
/* Pages fetched through a class (or its quiet links) before its rate may
 * fall under its prior: two pages off topic first must not stop the
 * crawl from following the class ever again. */
#define RATE_MIN 8
/* Under this, a link from a page on topic that shows a keyword is pruned
 * all the same (shown_kept()).  The wiki's edit and history links came
 * at 0.003-0.016; at 0.05, a three-topic magazine's home (relevance
 * 0.33, on topic) lost its link to /section/sports at 0.032 in 3 of 32
 * loaded runs of portals seed 1, and with it the site's sports. */
#define SHOWN_MIN 0.02

static struct model *model_of(struct focus *f, uint16_t cat)
{
	if (cat >= f->n_model) {
		size_t n = (size_t)cat + 1;
		struct model *m = realloc(f->model, n * sizeof(*m));
		if (!m)
			return NULL;
		memset(m + f->n_model, 0, (n - f->n_model) * sizeof(*m));
		f->model = m;
		f->n_model = n;
	}
	return &f->model[cat];
}

static uint64_t host_key(uint16_t cat, const char *host, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ cat;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)host[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

/* A table of counts: the entry of key, added when add is set (and there
 * is room); NULL when absent, or when memory or room runs out (the key
 * then goes unlearned). */
static struct hstat *stat_of(struct hstat **tab, size_t *mask, size_t *used,
			     size_t max, uint64_t key, bool add)
{
	if (add && 2 * (*used + 1) > *mask + 1 && *used < max) {
		size_t cap = *tab ? 2 * (*mask + 1) : 256;
		struct hstat *v = calloc(cap, sizeof(*v));
		if (!v)
			return NULL;
		for (size_t i = 0; *tab && i <= *mask; i++) {
			if (!(*tab)[i].key)
				continue;
			size_t k = (*tab)[i].key & (cap - 1);
			while (v[k].key)
				k = (k + 1) & (cap - 1);
			v[k] = (*tab)[i];
		}
		free(*tab);
		*tab = v;
		*mask = cap - 1;
	}
	if (!*tab)
		return NULL;
	for (size_t i = key & *mask;; i = (i + 1) & *mask) {
		if ((*tab)[i].key == key)
			return &(*tab)[i];
		if (!(*tab)[i].key) {
			if (!add || *used >= max || 2 * (*used + 1) > *mask + 1)
				return NULL;
			(*tab)[i].key = key;
			(*used)++;
			return &(*tab)[i];
		}
	}
}

static struct hstat *hstat_of(struct focus *f, uint64_t key, bool add)
{
	return stat_of(&f->hs, &f->hs_mask, &f->hs_used, SIZE_MAX, key, add);
}

/* Do a URL's names count once (words_locked()) on a link of class k to
 * the host of key hk?  On a site's own way to the rest of its topic
 * (own_way()), on a host most of whose pages learned (NAMES_HOST_MIN at
 * least) were on topic: the topic's own sites, not the other topics'
 * sites whose few articles of the topic link their own lists. */
#define NAMES_HOST_MIN 5
static bool names_once(unsigned k, const struct hstat *h)
{
	return own_way(k) && h && h->n >= NAMES_HOST_MIN &&
	       2 * (uint64_t)h->on > h->n;
}

/* names_once() for the host of key hk (looked up for own ways only). */
static bool names_once_locked(struct focus *f, unsigned k, uint64_t hk)
{
	return names_once(k, own_way(k) ? hstat_of(f, hk, false) : NULL);
}

struct hstat *tstat_of(struct focus *f, uint64_t key, bool add)
{
	return stat_of(&f->ts, &f->ts_mask, &f->ts_used, TOKENS_MAX, key, add);
}

/* Adds w to the set t[n] unless it is there or the set has max words;
 * returns the new count.  A word the set has is URL_ONLY only if both
 * are (one link's text showed it). */
static size_t word_add(uint32_t *t, size_t n, size_t max, uint32_t w)
{
	for (size_t k = 0; k < n; k++)
		if ((t[k] & WORD_BITS) == (w & WORD_BITS)) {
			t[k] &= w | WORD_BITS;
			return n;
		}
	if (n < max)
		t[n++] = w;
	return n;
}

/* Is url (components u) its host's root ("/", no query), the page a
 * site shows first, its map? */
static bool is_root(const char *url, const struct norm_url *u)
{
	size_t end = u->has_fragment ? (size_t)u->frag_off - 1 : u->len;
	return end == u->path_off + 1u && url[u->path_off] == '/';
}

/* A word no text has (as parse_words() would hash it): the URL is a
 * root. */
#define ROOT_WORD 0x2f2f726f6f742f2full

/* The words of the path and query of url (components u), and ROOT_WORD
 * for a root, into h[max]; returns how many. */
static size_t url_words(const char *url, const struct norm_url *u, uint64_t *h,
			size_t max)
{
	size_t end = u->has_fragment ? (size_t)u->frag_off - 1 : u->len, n = 0;
	if (end > u->path_off)
		n = parse_words(url + u->path_off, end - u->path_off, h, max);
	if (n < max && is_root(url, u))
		h[n++] = ROOT_WORD;
	return n;
}

/* The words of a link: its text, and its URL's path and query, those
 * the text lacks marked URL_ONLY. */
static size_t link_words(const char *anchor, size_t anchor_len, const char *url,
			 const struct norm_url *u, uint32_t *out)
{
	uint64_t h[TOKENS_PER_TEXT];
	size_t na = parse_words(anchor, anchor_len, h, TOKENS_PER_TEXT / 2);
	size_t n = na + url_words(url, u, h + na, TOKENS_PER_TEXT - na);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		m = word_add(out, m, TOKENS_PER_TEXT,
			     word32(h[i]) | (i >= na ? URL_ONLY : 0u));
	return m;
}

static double logit(double p)
{
	return log(p / (1.0 - p));
}

static double clamp_p(double p)
{
	return p < 0.001 ? 0.001 : p > 0.999 ? 0.999 : p;
}

/* The link's class: the linking page on topic or not, the keywords the
 * link shows (0, 1, 2 or more), on the same host or not. */
static unsigned link_class(bool page_on, unsigned hits, bool same_host)
{
	return (page_on ? 6u : 0u) + (hits > 2 ? 2u : hits) * 2u +
	       (same_host ? 1u : 0u);
}

/* The category's rate of pages on topic, as a prior. */
static double base_rate(const struct model *m)
{
	return ((double)m->all_on + 1.0) / ((double)m->all_n + 2.0);
}

/* The slot of a URL's in-link words in category cat, or NULL when the
 * table is not there (made when add, if it can be).  With the lock
 * held. */
static struct inlink *inlink_of(struct focus *f, uint16_t cat, const char *url,
				size_t len, bool add, uint64_t *key)
{
	if (!f->inl && (!add || !(f->inl = calloc(INLINKS, sizeof(*f->inl)))))
		return NULL;
	uint64_t k = XXH3_64bits_withSeed(url, len, cat + 1u);
	*key = k ? k : 1;
	return &f->inl[*key & (INLINKS - 1)];
}

/* Adds to t[n] (at most max) the words of e that it lacks, when e is
 * the slot of key; returns the new count. */
static size_t inlink_words(const struct inlink *e, uint64_t key, uint32_t *t,
			   size_t n, size_t max)
{
	if (!e || e->key != key)
		return n;
	for (size_t i = 0; i < FRONTIER_WORDS_MAX && e->w[i]; i++)
		n = word_add(t, n, max, e->w[i]);
	return n;
}

/* The most new keyword links counted of one page (a bridge's gain). */
#define GAIN_MAX 8
/* What a root (a link to url, components u, on the host of key hk,
 * carrying offtopic: focus_follow()'s *child) is expected to open if it
 * is off topic, in a tunnel of tunnel hops; 0 for a URL that is not a
 * root, or whose links would not be followed if it is off topic.  A site's
 * root is its map: off topic as a page (a portal, a magazine of several
 * topics), it may be the one way to the topic's section.  The root of a
 * site some of whose pages were on topic opens its section as surely as
 * anything does (1).  Another root linked from a page on topic: what the
 * roots the crawl fetched off topic gave in new keyword links, a page
 * each, with one more root that gave one (so roots are followed until
 * they are seen to give less).  Linked from a page off topic (a portal's
 * list of every site, deeper in a tunnel of 2 or more), nothing: those
 * roots are not the ones the mean was learned from, and following them
 * drove it down (portals, tunnel 2: coverage 0.886 with them, 0.954
 * without).  With the lock held. */
static double bridge_locked(struct focus *f, const struct model *m, uint64_t hk,
			    const char *url, const struct norm_url *u,
			    unsigned offtopic, unsigned tunnel)
{
	if (offtopic + 1u > tunnel || !is_root(url, u))
		return 0.0;
	const struct hstat *h = hstat_of(f, hk, false);
	if (h && h->on)
		return 1.0;
	if (offtopic)
		return 0.0;
	return ((double)m->bg + 1.0) / ((double)m->bn + 1.0);
}

/* The rate of a quiet link of class k from a page of kind kind (-1: not
 * known), the class's rate p so far; clears *kind when the rate is the
 * kind's own.  What the quiet links of the class led to (the class's
 * rate is mostly that of links whose words said on topic, which the
 * crawl fetches, and a quiet link does not share it).  A quiet "Read
 * more" means one thing on a list of the topic and another on an
 * article: a portal's section of the topic, whose every "Read more" led
 * on topic, taught the class 24 of 24 in a traced crawl, and then the
 * "Read more" of related articles on a magazine of three topics came at
 * 0.94-0.999, a dozen of them off topic.  So once QUIET_MIN quiet links
 * of the kind were learned, the kind's own rate (with the class's as
 * prior) is the rate, and the kind's evidence is in it; before, the
 * class's rate from other kinds is taken at no more than a class on
 * topic starts at (CLASS_PRIOR_ON). */
static double quiet_rate(const struct model *m, unsigned k, int *kind, double p)
{
	if (m->qn[k] >= RATE_MIN)
		p = ((double)m->qon[k] + PRIOR_PAGES * p) /
		    ((double)m->qn[k] + PRIOR_PAGES);
	if (*kind < 0)
		return p;
	uint64_t n = m->qkn[k][*kind], on = m->qkon[k][*kind];
	if (n >= QUIET_MIN) {
		*kind = -1;
		return ((double)on + PRIOR_PAGES * p) /
		       ((double)n + PRIOR_PAGES);
	}
	return m->qn[k] >= QUIET_MIN && p > CLASS_PRIOR_ON ? CLASS_PRIOR_ON : p;
}

/* The prediction for a link of class k from a page of kind kind (-1: not
 * known) whose words say z, with the lock held: the class's rate, and
 * what the pages linked from pages of the kind were, as evidence over the
 * category's rate (naive Bayes, in log odds).  The rate of the pages of
 * the link's host is not: the crawl fetches the pages of a host that it
 * predicted on topic, so the host's fetched pages overstate it (a site of
 * three topics stood at 37 of 43 on topic in a traced crawl). */
static double predict_locked(const struct model *m, unsigned k, int kind,
			     double z, bool says)
{
	double prior = k >= 6 ? CLASS_PRIOR_ON : CLASS_PRIOR_OFF;
	double p = ((double)m->on[k] + PRIOR_PAGES * prior) /
		   ((double)m->n[k] + PRIOR_PAGES);
	if (m->n[k] < RATE_MIN && p < prior)
		p = prior;
	if (!says)
		p = quiet_rate(m, k, &kind, p);
	if (kind >= 0 && m->kn[kind]) {
		double base = base_rate(m);
		double pk = ((double)m->kon[kind] + PRIOR_PAGES * base) /
			    ((double)m->kn[kind] + PRIOR_PAGES);
		z += logit(clamp_p(pk)) - logit(clamp_p(base));
	}
	p = 1.0 / (1.0 + exp(-(logit(clamp_p(p)) + z)));
	return clamp_p(p);
}

/* The keywords shown (0, 1 or 2 for 2+) of link class k. */
static unsigned link_hits_of(unsigned k)
{
	return k % 6 / 2;
}

/* Is a link of class k predicted p kept for the keywords it shows,
 * whatever predict_min says?  The operator named what it shows, so it
 * is, with one exception: a link from a page on topic whose own words
 * (says: words_locked() spoke, not only the words of quiet links) have
 * the crawl all but certain it is off topic (p under SHOWN_MIN).  On
 * the words of quiet links alone, an article of the topics web linked
 * from another site's article was dropped at 0.027 in three runs of
 * ten.  On a page on topic, keywords are everywhere, in the links the
 * page has to itself too: its edit, history, print or discussion pages
 * name it in
 * their URLs (/w/index.php?action=edit&title=Striker_and_goal), and
 * after a few such pages fetched off topic their words say so.  From a
 * page off topic a keyword is what the tunnel looks for, the way back
 * to the topic, and stays a reason to follow (a portal's section
 * /topic/sports, whose words the portal's other pages had taught as off
 * topic, was pruned at p 0.03 without this, and the crawl lost half its
 * topic). */
static bool shown_kept(unsigned k, double p, bool says)
{
	return link_hits_of(k) > 0 && (k < 6 || p >= SHOWN_MIN || !says);
}

/* Is a pruned link of class k predicted p a candidate sample of its
 * shape (focus-shape.c)?  Only a link from a page on topic to its own
 * host: a site's own ways to the rest of its topic (its lists, its
 * tags).  When its own words said nothing (says false), its class and
 * the kind of its page pruned it, and those say what such links were
 * elsewhere; when its words say off topic, it is pruned on its own
 * account, unless the crawl is unsure (SAMPLE_P). */
#define SAMPLE_P 0.05
static bool sampled(unsigned k, double p, bool says)
{
	return own_way(k) && (!says || p >= SAMPLE_P);
}

void focus_predict(struct focus *f, uint16_t cat, bool has_relevance,
		   double relevance, unsigned hits, unsigned page_hits,
		   bool same_host, const char *url, const struct norm_url *lu,
		   const char *anchor, size_t anchor_len, uint8_t offtopic,
		   struct focus_link *ret)
{
	const struct view *v = view_of(f);
	*ret = (struct focus_link){ .keep = true,
				    .priority = offtopic ? 1 : 0 };
	if (cat >= v->n || !v->kw[cat] || !has_relevance)
		return;
	const struct crawl_category *c = &v->cats[cat];
	if (!c->predict)
		return;
	unsigned k = link_class(relevance >= c->min_relevance, hits, same_host);
	/* The words other links to the URL showed first (what the crawl
	 * saw of it so far), then this link's. */
	uint32_t t[TOKENS_PER_TEXT], lw[TOKENS_PER_TEXT];
	double share[TOKENS_PER_TEXT];
	size_t nl = link_words(anchor, anchor_len, url, lu, lw), n = 0;
	double p = -1.0, z = 0.0, gain = 0.0;
	bool unknown = false, says = false;
	uint64_t hk = host_key(cat, url + lu->host_off, lu->host_len), ik = 0;
	unsigned kind = src_kind(page_hits);
	pthread_mutex_lock(&f->mu);
	struct model *m = model_of(f, cat);
	struct inlink *e = m ? inlink_of(f, cat, url, lu->len, true, &ik)
			     : NULL;
	if (m) {
		n = inlink_words(e, ik, t, 0, TOKENS_PER_TEXT);
		for (size_t i = 0; i < nl; i++)
			n = word_add(t, n, TOKENS_PER_TEXT, lw[i]);
		if (e && e->key == ik && e->kind > kind + 1)
			kind = e->kind - 1u;
		z = link_z_locked(f, m, cat, t, n, names_once_locked(f, k, hk),
				  share, &says);
		p = predict_locked(m, k, (int)kind, z, says);
		gain = bridge_locked(f, m, hk, url, lu, offtopic, c->tunnel);
		ret->fresh = !e || e->key != ik;
		const struct hstat *h = hstat_of(f, hk, false);
		unknown = !h || !h->n || (hits == 0 && !words_ready(m));
		ret->n_words = keep_words(t, share, n, ret->words);
		if (e) {
			e->key = ik;
			memset(e->w, 0, sizeof(e->w));
			memcpy(e->w, ret->words,
			       ret->n_words * sizeof(*ret->words));
			e->kind = (uint8_t)(kind + 1);
		}
	}
	pthread_mutex_unlock(&f->mu);
	if (p < 0)
		return;
	/* A link that shows a keyword is not pruned (shown_kept()): it
	 * waits its turn by its prediction.  Nor is any link at tunnel 0:
	 * there an off-topic page is a dead end (its links are not
	 * followed), so fetching one in vain costs a page, while a page
	 * wrongly pruned costs every page behind it.  A root counts what
	 * it is expected to open if off topic (gain, in the tunnel). */
	ret->keep = p + (1.0 - p) * gain >= c->predict_min ||
		    shown_kept(k, p, says) || c->tunnel == 0;
	ret->priority = p >= 0.75 ? 0 : p >= 0.5 ? 1 : p >= 0.25 ? 2 : 3;
	/* Pruned: kept all the same when samples of its shape on its host
	 * undid the pruning, or as such a sample (focus-shape.c). */
	if (!ret->keep) {
		pthread_mutex_lock(&f->mu);
		ret->keep = shape_keep_locked(f, cat, url, lu,
					      sampled(k, p, says));
		pthread_mutex_unlock(&f->mu);
	}
	/* A host none of whose pages was fetched yet is a guess: after
	 * the links the crawl knows more about, and its first pages tell
	 * the rest of its links whether to come (focus_lease_keep()).  So
	 * is a link that shows no keyword before the words can say
	 * anything: it waits for what the crawl learns meanwhile. */
	if (unknown && ret->priority < 2)
		ret->priority = 2;
	ret->predicted = (uint8_t)(1 + lround(p * 254.0));
	ret->pred_class = (uint8_t)(1 + k + STORE_FOCUS_CLASSES * (1 + kind));
}

void focus_pager(struct focus *f, uint16_t cat, double relevance,
		 const char *page, const struct norm_url *pu,
		 uint8_t page_class, const char *url, const struct norm_url *lu,
		 struct focus_link *pl)
{
	const struct view *v = view_of(f);
	if (cat >= v->n || !pred_known(pl->pred_class) ||
	    relevance < v->cats[cat].min_relevance ||
	    !shape_pager(page, pu, url, lu, (page_class & PRED_PAGER) != 0))
		return;
	pl->keep = true;
	if (pl->priority > 1)
		pl->priority = 1;
	/* Not the prediction's to undo at the lease. */
	pl->pred_class |= PRED_PAGER;
}

/* What the links to the URL of lease l showed: its queue entry's words
 * and those the links found since showed (its in-link slot's), into t
 * (at most 2 * FRONTIER_WORDS_MAX), and the best kind of the pages that
 * linked it (-1 when none said) into *kind; returns how many words.
 * With the lock held. */
static size_t lease_words(struct focus *f, uint16_t cat,
			  const struct frontier_lease *l, uint32_t *t,
			  int *kind)
{
	size_t n = l->n_words <= FRONTIER_WORDS_MAX ? l->n_words : 0;
	memcpy(t, l->words, n * sizeof(*t));
	uint64_t ik = 0;
	const struct inlink *e = inlink_of(f, cat, l->url, l->u.len, false,
					   &ik);
	*kind = pred_known(l->pred_class) ? kind_of(l->pred_class) : -1;
	if (e && e->key == ik && (int)e->kind - 1 > *kind)
		*kind = (int)e->kind - 1;
	return inlink_words(e, ik, t, n, 2 * FRONTIER_WORDS_MAX);
}

/* Does category i of view v prune at the lease (keywords, the prediction
 * on with a predict_min, a tunnel)? */
static bool lease_prunes(const struct view *v, size_t i)
{
	const struct crawl_category *c = &v->cats[i];
	return v->kw[i] && c->predict && c->predict_min > 0.0 && c->tunnel;
}

/* The prediction for the URL of lease l made again with what the crawl
 * knows now, into *p and *says (the link's own words spoke); false when
 * it falls under the category's predict_min (c) and the link is not
 * kept for what it shows.  With the lock held. */
static bool lease_kept_locked(struct focus *f, const struct crawl_category *c,
			      const struct frontier_lease *l, double *p,
			      bool *says)
{
	uint16_t cat = l->category;
	*p = 1.0;
	*says = false;
	if (cat < f->n_model) {
		const struct model *m = &f->model[cat];
		uint32_t t[2 * FRONTIER_WORDS_MAX];
		int kind;
		size_t n = lease_words(f, cat, l, t, &kind);
		unsigned k = class_of(l->pred_class);
		uint64_t hk = host_key(cat, l->url + l->u.host_off,
				       l->u.host_len);
		double z = link_z_locked(f, m, cat, t, n,
					 names_once_locked(f, k, hk), NULL,
					 says);
		*p = predict_locked(m, k, kind, z, *says);
		*p += (1.0 - *p) * bridge_locked(f, m, hk, l->url, &l->u,
						 l->offtopic, c->tunnel);
	}
	return *p >= c->predict_min ||
	       shown_kept(class_of(l->pred_class), *p, *says);
}

double held_predict_locked(struct focus *f, const struct frontier_url *fu)
{
	uint16_t cat = fu->category;
	const struct view *v = view_of(f);
	if (cat >= f->n_model || cat >= v->n || !pred_known(fu->pred_class))
		return fu->predicted ? (fu->predicted - 1) / 254.0 : 0.0;
	const struct model *m = &f->model[cat];
	uint32_t t[2 * FRONTIER_WORDS_MAX];
	size_t n = fu->n_words <= FRONTIER_WORDS_MAX ? fu->n_words : 0;
	memcpy(t, fu->words, n * sizeof(*t));
	uint64_t ik = 0;
	const struct inlink *e = inlink_of(f, cat, fu->url, fu->u->len, false,
					   &ik);
	int kind = kind_of(fu->pred_class);
	if (e && e->key == ik && (int)e->kind - 1 > kind)
		kind = (int)e->kind - 1;
	n = inlink_words(e, ik, t, n, 2 * FRONTIER_WORDS_MAX);
	unsigned k = class_of(fu->pred_class);
	uint64_t hk = host_key(cat, fu->url + fu->u->host_off, fu->u->host_len);
	bool says = false;
	double z = link_z_locked(f, m, cat, t, n, names_once_locked(f, k, hk),
				 NULL, &says);
	double p = predict_locked(m, k, kind, z, says);
	return p + (1.0 - p) * bridge_locked(f, m, hk, fu->url, fu->u,
					     fu->offtopic, v->cats[cat].tunnel);
}

bool focus_lease_keep(struct focus *f, const struct frontier_lease *l)
{
	const struct view *v = view_of(f);
	uint16_t cat = l->category;
	if (!pred_known(l->pred_class) || (l->pred_class & PRED_PAGER) ||
	    cat >= v->n || !l->u.len || !lease_prunes(v, cat))
		return true;
	pthread_mutex_lock(&f->mu);
	double p;
	bool says;
	bool keep = lease_kept_locked(f, &v->cats[cat], l, &p, &says) ||
		    shape_keep_locked(
			    f, cat, l->url, &l->u,
			    sampled(class_of(l->pred_class), p, says));
	pthread_mutex_unlock(&f->mu);
	return keep;
}

/* Of the words of the links to a page, lw[nl], those neither in its word
 * set (words, as focus_learn() has it) nor among its URL's (keys[n]) are
 * kept in lw; returns how many. */
static size_t anchor_words(uint16_t cat, const uint64_t *words,
			   const uint64_t *keys, size_t n, uint32_t *lw,
			   size_t nl)
{
	for (size_t i = 0; words && i < FOCUS_WORDS_CAP && nl; i++) {
		if (!words[i])
			continue;
		uint32_t w = word32(words[i]);
		for (size_t j = 0; j < nl; j++)
			if ((lw[j] & WORD_BITS) == w) {
				lw[j] = lw[--nl];
				break;
			}
	}
	for (size_t i = 0; i < n && nl; i++)
		for (size_t j = 0; j < nl; j++)
			if (keys[i] && word_key(cat, lw[j]) == keys[i]) {
				lw[j] = lw[--nl];
				break;
			}
	return nl;
}

bool focus_learn(struct focus *f, uint16_t cat, const struct frontier_lease *l,
		 const uint64_t *words, bool has_relevance, double relevance)
{
	const struct view *v = view_of(f);
	if (cat >= v->n || !v->kw[cat] || !has_relevance || !l->u.len)
		return false;
	const struct crawl_category *c = &v->cats[cat];
	bool on = relevance >= c->min_relevance;
	bool known = pred_known(l->pred_class) && l->predicted;
	unsigned k = known ? class_of(l->pred_class) : 0;
	/* The words of its URL that its text lacks count too. */
	uint64_t t[TOKENS_PER_TEXT];
	size_t n = url_words(l->url, &l->u, t, TOKENS_PER_TEXT);
	for (size_t i = 0; i < n; i++) {
		bool in_text = false;
		for (size_t k2 = (size_t)(t[i] ^ (t[i] >> 31)) &
				 (FOCUS_WORDS_CAP - 1);
		     words && words[k2]; k2 = (k2 + 1) & (FOCUS_WORDS_CAP - 1))
			if (words[k2] == t[i]) {
				in_text = true;
				break;
			}
		t[i] = in_text ? 0 : word_key(cat, word32(t[i]));
	}
	bool sample = false;
	pthread_mutex_lock(&f->mu);
	f->learned++;
	struct model *m = model_of(f, cat);
	if (m) {
		m->all_n++;
		m->all_on += on;
		struct hstat *h = hstat_of(
			f, host_key(cat, l->url + l->u.host_off, l->u.host_len),
			true);
		if (h && h->n < UINT32_MAX) {
			h->n++;
			h->on += on;
			h->root |= is_root(l->url, &l->u);
		}
		/* The page's words, its URL's, and those of the links to
		 * it that neither has (the anchors' own words: "Read more",
		 * or the title of another topic a link showed). */
		size_t nw = words ? FOCUS_WORDS_CAP : 0;
		uint32_t lw[2 * FRONTIER_WORDS_MAX];
		int kind;
		size_t nl = lease_words(f, cat, l, lw, &kind);
		/* A page a quiet link led to: counted for its class, and the
		 * link's words learned apart (quiet_locked()). */
		bool says = true;
		if (known)
			(void)words_locked(f, m, cat, lw, nl, names_once(k, h),
					   NULL, &says);
		if (!says) {
			m->qn[k]++;
			m->qon[k] += on;
			if (kind >= 0) {
				m->qkn[k][kind]++;
				m->qkon[k][kind] += on;
			}
			m->qwn++;
			m->qwon += on;
			for (size_t i = 0; i < nl; i++) {
				struct hstat *w = tstat_of(
					f, quiet_key(cat, lw[i]), true);
				if (w && w->n < UINT32_MAX) {
					w->n++;
					w->on += on;
				}
			}
		}
		nl = anchor_words(cat, words, t, n, lw, nl);
		m->wn++;
		m->won += on;
		if (known && kind >= 0) {
			m->kn[kind]++;
			m->kon[kind] += on;
		}
		for (size_t i = 0; i < nw + n + nl; i++) {
			uint64_t key = i < nw ? words[i]
				       : i < nw + n
					       ? t[i - nw]
					       : word_key(cat, lw[i - nw - n]);
			if (!key)
				continue;
			if (i < nw)
				key = word_key(cat, word32(key));
			struct hstat *w = tstat_of(f, key, true);
			if (w && w->n < UINT32_MAX) {
				w->n++;
				w->on += on;
				w->text += i < nw;
			}
		}
		if (known) {
			m->n[k]++;
			m->on[k] += on;
		}
		/* Would the prediction prune it now?  (Then it is what the
		 * samples of its shape watch.) */
		double p_now;
		bool says_now;
		bool pruned_now = !pred_known(l->pred_class) ||
				  (lease_prunes(v, cat) &&
				   !lease_kept_locked(f, c, l, &p_now,
						      &says_now));
		sample = shape_learn_locked(f, cat, l->url, &l->u, on,
					    pruned_now);
	}
	/* An explored page off topic opens no tunnel, as a sample does:
	 * the floor pays for the page, not for what lies behind it. */
	sample |= l->pred_class == FOCUS_PRED_EXPLORE;
	pthread_mutex_unlock(&f->mu);
	if (!m || !known)
		return sample;
	focus_count(f, cat, STORE_FOCUS_CLASS_N + k, 1);
	focus_count(f, cat, STORE_FOCUS_CLASS_ON + k, on);
	double p = (l->predicted - 1) / 254.0;
	bool pred_on = p >= 0.5;
	focus_count(f, cat, STORE_FOCUS_PRED_SCORED, 1);
	focus_count(f, cat, STORE_FOCUS_PRED_SUM_P,
		    (uint64_t)lround(p * 1000.0));
	focus_count(f, cat,
		    pred_on ? (on ? STORE_FOCUS_PRED_ON_ON
				  : STORE_FOCUS_PRED_ON_OFF)
			    : STORE_FOCUS_PRED_OFF_ON,
		    pred_on || on ? 1 : 0);
	return sample;
}

void focus_bridge(struct focus *f, uint16_t cat, const struct frontier_lease *l,
		  bool has_relevance, double relevance, unsigned gain)
{
	const struct view *v = view_of(f);
	if (cat >= v->n || !v->kw[cat] || !has_relevance || !l->u.len ||
	    relevance >= v->cats[cat].min_relevance || !v->cats[cat].predict)
		return;
	if (!is_root(l->url, &l->u))
		return;
	pthread_mutex_lock(&f->mu);
	struct model *m = model_of(f, cat);
	if (m) {
		m->bn++;
		m->bg += gain > GAIN_MAX ? GAIN_MAX : gain;
	}
	pthread_mutex_unlock(&f->mu);
}

/* A link of a navigation page says on topic (focus_link_says()) at
 * this log odds or more, off topic at its opposite or less. */
#define NAV_SAYS 1.0

/* Pages learned from after which a category whose words are still not
 * ready (almost every page on topic) no longer holds the guesses back.
 * A category none of whose pages was learned from has queued nothing
 * to hold back (its seeds' links come with its first pages). */
#define LEARNING_MAX 200

bool focus_learning(struct focus *f)
{
	const struct view *v = view_of(f);
	bool learning = false;
	pthread_mutex_lock(&f->mu);
	for (size_t i = 0; i < v->n && !learning; i++) {
		if (!lease_prunes(v, i))
			continue;
		const struct model *m = i < f->n_model ? &f->model[i] : NULL;
		learning = m && m->wn && !words_ready(m) &&
			   m->wn < LEARNING_MAX;
	}
	pthread_mutex_unlock(&f->mu);
	return learning;
}

/* The lead: LEAD_MIN pages, and one more for each LEAD_PAGES pages
 * learned from (a slow start: it passes the scheduler's own bound, twice
 * `concurrency`, after some 480 pages with 32 connections and 4,060 with
 * 256). */
#define LEAD_MIN 4
#define LEAD_PAGES 8

uint32_t focus_lead(struct focus *f)
{
	const struct view *v = view_of(f);
	uint64_t learned = 0;
	bool bound = false;
	pthread_mutex_lock(&f->mu);
	for (size_t i = 0; i < v->n; i++) {
		if (!lease_prunes(v, i))
			continue;
		bound = true;
		if (i < f->n_model)
			learned += f->model[i].wn;
	}
	pthread_mutex_unlock(&f->mu);
	if (!bound)
		return 0;
	uint64_t lead = LEAD_MIN + learned / LEAD_PAGES;
	return lead > UINT32_MAX ? UINT32_MAX : (uint32_t)lead;
}

bool focus_predicts(const struct focus *f, uint16_t cat)
{
	const struct view *v = view_of(f);
	return cat < v->n && v->kw[cat] && v->cats[cat].predict;
}

int focus_load(struct focus *f, struct store *s, MDB_txn *txn)
{
	const struct view *v = view_of(f);
	for (size_t i = 0; i < v->n; i++) {
		const char *name = v->cats[i].name;
		uint64_t cnt[STORE_FOCUS_COUNTERS];
		int rc = store_focus_count_get(s, txn, name, strlen(name), cnt);
		if (rc)
			return rc;
		pthread_mutex_lock(&f->mu);
		struct model *m = model_of(f, (uint16_t)i);
		if (m) {
			memset(m, 0, sizeof(*m));
			for (size_t k = 0; k < STORE_FOCUS_CLASSES; k++) {
				m->n[k] = cnt[STORE_FOCUS_CLASS_N + k];
				m->on[k] = cnt[STORE_FOCUS_CLASS_ON + k];
				m->all_n += m->n[k];
				m->all_on += m->on[k];
			}
		}
		rc = m ? explore_load_locked(f, (uint16_t)i, cnt) : 0;
		pthread_mutex_unlock(&f->mu);
		if (!m)
			return SC_E_NOMEM;
		if (rc)
			return rc;
	}
	return 0;
}

int focus_link_says(struct focus *f, uint16_t cat, const char *page,
		    const struct norm_url *pu, const char *anchor,
		    size_t anchor_len, const char *url,
		    const struct norm_url *lu)
{
	/* A root, the page's next page (its own shape): the way around,
	 * not what the page lists. */
	if (is_root(url, lu) || shape_same(page, pu, url, lu))
		return 0;
	uint32_t t[TOKENS_PER_TEXT];
	size_t n = link_words(anchor, anchor_len, url, lu, t);
	double z = 0.0;
	pthread_mutex_lock(&f->mu);
	if (cat < f->n_model && f->model[cat].won >= LEARNED_ON_MIN)
		z = list_words_locked(f, &f->model[cat], cat, t, n);
	pthread_mutex_unlock(&f->mu);
	return z >= NAV_SAYS ? 1 : z <= -NAV_SAYS ? -1 : 0;
}

uint32_t host_pages_locked(struct focus *f, uint16_t cat, const char *url,
			   const struct norm_url *u, bool on)
{
	const struct hstat *h = hstat_of(
		f, host_key(cat, url + u->host_off, u->host_len), false);
	return !h ? 0 : on ? h->on : h->n;
}

bool host_met_locked(struct focus *f, uint16_t cat, const char *url,
		     const struct norm_url *u)
{
	const struct hstat *h = hstat_of(
		f, host_key(cat, url + u->host_off, u->host_len), false);
	return h && (h->on || h->root);
}

bool probe_candidate(const struct focus *f, const struct frontier_url *fu)
{
	const struct view *v = view_of(f);
	return fu->category < v->n && lease_prunes(v, fu->category) &&
	       pred_known(fu->pred_class) && class_of(fu->pred_class) >= 6;
}

bool shape_candidate_locked(struct focus *f, const struct frontier_url *fu)
{
	uint16_t cat = fu->category;
	if (!pred_known(fu->pred_class) || cat >= f->n_model)
		return false;
	const struct model *m = &f->model[cat];
	bool says = false;
	size_t n = fu->n_words <= FRONTIER_WORDS_MAX ? fu->n_words : 0;
	unsigned k = class_of(fu->pred_class);
	/* The names count each here: a candidate's host is not known. */
	double z = link_z_locked(f, m, cat, fu->words, n, false, NULL, &says);
	double p = predict_locked(m, k, kind_of(fu->pred_class), z, says);
	return sampled(k, p, says);
}
