/* focus-int.h — the focus policy's private header: what its files
 * share.  focus-policy.c holds the categories of each config version (the
 * view: keywords, include and exclude patterns), relevance, scope, the
 * tunnel and the writer's counters; focus-predict.c holds the link
 * prediction (its model, the hosts' and words' tables, the in-links),
 * focus-words.c what a link's words say, focus-shape.c and
 * focus-probe.c what the prediction pruned.  Only the files of crawler/learn/
 * include it (tests/check-layout.sh); learn.h is the public side. */
#ifndef FOCUS_INT_H
#define FOCUS_INT_H

#include "learn.h"

#include <libpsl.h>
#include <pthread.h>
#include <regex.h>
#include <stdatomic.h>

/* The categories of one config version and their compiled keywords.
 * A reload (focus_reload()) publishes a new view; the old ones stay until
 * focus_close(), since a parser may still hold one. */
struct view {
	const struct crawl_category *cats;
	size_t n;
	struct parse_keywords **kw; /* per category; NULL: none */
	/* Per category: its include patterns, then its exclude ones,
	 * compiled (regexec() on a compiled pattern is thread-safe). */
	regex_t **re;
	struct view *prev;
};

/* The most shapes that wait for a sample (focus-shape.c). */
#define WAITING_MAX 64

struct focus {
	_Atomic(struct view *) view;
	psl_ctx_t *psl_own; /* psl_latest()'s, freed at the end */
	const psl_ctx_t *psl;
	/* The writer's batch: counters per category, grown as reloads
	 * add categories (the writer's alone). */
	uint64_t (*batch)[STORE_FOCUS_COUNTERS];
	size_t n_batch;
	bool dirty;
	/* Link prediction, the writer's: per category the pages fetched
	 * through each class of link and those on topic, and per host and
	 * category the pages scored and those on topic (a link to a host
	 * none of whose pages was scored is a guess, the root of one that
	 * gave pages on topic a bridge; memory grows with the hosts, as the
	 * frontier's does). */
	struct model *model;
	size_t n_model;
	struct hstat *hs;
	size_t hs_mask, hs_used;
	/* Per word and category: the pages fetched whose text or URL, or a
	 * link to which, has the word, and those on topic (at most
	 * TOKENS_MAX words). */
	struct hstat *ts;
	size_t ts_mask, ts_used;
	/* Per URL and category, the words of every link to it seen so far
	 * and the best kind of page among those linking to it
	 * (INLINKS slots, direct-mapped: a URL whose slot another takes
	 * keeps the words of its queue entry only). */
	struct inlink *inl;
	/* Per category, host and shape of URL, the samples of the links
	 * the prediction pruned (focus-shape.c). */
	struct shape *ss;
	size_t ss_mask, ss_used;
	/* Per category and host, what its samples came to. */
	struct sample_host *sh;
	size_t sh_mask, sh_used;
	/* Per category and host not met yet, its probe (focus-probe.c). */
	struct probe *ps;
	size_t ps_mask, ps_used;
	struct held *released; /* to be queued (focus_release()) */
	uint64_t samples;      /* samples taken */
	uint64_t samples_on;   /* samples learned on topic */
	/* The shapes waiting for the samples' budget (their keys). */
	uint64_t waiting[WAITING_MAX];
	size_t n_waiting;
	uint64_t learned; /* pages learned from (focus_learn()) */
	/* Per category, the harvest floor's counts and the pruned links
	 * kept to explore (focus-explore.c). */
	struct explore *ex;
	size_t n_ex;
	/* The scheduler reads the model too (focus_lease_keep()). */
	pthread_mutex_t mu;
};

/* A pruned link's prediction, frontier_url.predicted: 0..255. */
#define EXPLORE_BUCKETS 256

/* focus-explore.c's state of a category, under focus.mu. */
struct explore {
	/* The running harvest: pages scored and on topic, committed,
	 * over every run of the store (STORE_FOCUS_SCORED, _ON). */
	uint64_t scored, on;
	/* Explored links queued (the store's count); those and the roots
	 * looked at (FOCUS_PRED_LOOK) on their way, not yet written back;
	 * of those, the ones written in the batch under way. */
	uint64_t explore_queued, in_flight, done_batch;
	uint64_t explored, explored_on; /* pages fetched by exploring */
	/* The pruned links kept, by prediction (best last). */
	struct held *bucket[EXPLORE_BUCKETS];
	uint32_t n_held;
	uint64_t *seen; /* hashes of the URLs ever kept */
	uint32_t n_seen;
};

/* focus-explore.c, with focus.mu held.  A link the prediction pruned
 * (fu): kept to explore, best predicted first.  While a category's
 * harvest stays at or above its floor, the best kept links go to
 * focus.released, marked FOCUS_PRED_EXPLORE (true if any did).  Is
 * there one to explore now?  At a batch's end (ok: committed) the
 * batch's counts join the running harvest.  The counts of a category
 * read from the store.  Frees the links kept. */
void explore_hold_locked(struct focus *f, const struct frontier_url *fu);
bool explore_take_locked(struct focus *f);
void explore_looks_locked(struct focus *f);
bool explore_pending_locked(struct focus *f);
void explore_batch_end_locked(struct focus *f, bool ok);
int explore_load_locked(struct focus *f, uint16_t cat,
			const uint64_t cnt[STORE_FOCUS_COUNTERS]);
void explore_free(struct focus *f);
/* focus-predict.c, with focus.mu held: the prediction for the pruned
 * link fu made again with what the crawl knows now (as at a lease). */
double held_predict_locked(struct focus *f, const struct frontier_url *fu);

/* The kinds of page a link is on, by how many of the page's links show a
 * keyword: none, 1, 2-3, 4-7, 8 or more (a list of the topic, a hub). */
#define SRC_KINDS 5

/* focus-predict.c's model of a category, under focus.mu. */
struct model {
	uint64_t n[STORE_FOCUS_CLASSES], on[STORE_FOCUS_CLASSES];
	uint64_t all_n, all_on; /* every page scored */
	/* The pages whose words were learned, and those on topic (in
	 * memory, like the words: learned again after a restart). */
	uint64_t wn, won;
	/* Per kind of the pages linking to them (src_kind()), the pages
	 * fetched and those on topic (in memory too). */
	uint64_t kn[SRC_KINDS], kon[SRC_KINDS];
	/* The off-topic roots fetched in the tunnel (focus_bridge()), and
	 * the new keyword links they gave. */
	uint64_t bn, bg;
	/* Per class, the pages fetched through quiet links (none of whose
	 * words said anything: words_locked()), and those on topic; and
	 * all of them, whose words are learned apart (quiet_locked()). */
	uint64_t qn[STORE_FOCUS_CLASSES], qon[STORE_FOCUS_CLASSES];
	uint64_t qwn, qwon;
	/* The same per class and kind of the linking page (quiet_rate()). */
	uint64_t qkn[STORE_FOCUS_CLASSES][SRC_KINDS];
	uint64_t qkon[STORE_FOCUS_CLASSES][SRC_KINDS];
};

/* A table's count of pages (per host, per word). */
struct hstat {
	uint64_t key; /* 0: empty */
	uint32_t n, on;
	uint32_t text; /* of n, the pages that had a word in their text */
	bool root;     /* a host's: its root was learned */
};

/* The most words learned; later ones are not (6 MiB of counts). */
#define TOKENS_MAX (1u << 18)

/* The most words of one link looked at. */
#define TOKENS_PER_TEXT 48

/* A word of a link that its URL shows and its text does not (the
 * "list", "cat" and "page" of /list?cat=opinion&page=1 behind
 * "Opinion"), as a link's words carry it: the top bit of the word
 * (words_locked()). */
#define URL_ONLY 0x80000000u
#define WORD_BITS 0x7fffffffu

/* A word as a queue entry keeps it: its hash (parse_words()) folded to
 * 31 bits (among 2^18 words learned at most, a few collide). */
static inline uint32_t word32(uint64_t h)
{
	return (uint32_t)(h ^ (h >> 32)) & WORD_BITS;
}

/* A word's key in the table: its 31 bits (not its URL_ONLY) and the
 * category. */
static inline uint64_t word_key(uint16_t cat, uint32_t w)
{
	uint64_t k = ((uint64_t)(cat + 1) << 32 | (w & WORD_BITS)) *
		     0x9e3779b97f4a7c15ull;
	return k ? k : 1;
}

/* Pages of each kind learned from quiet links before their words say
 * anything. */
#define QUIET_MIN 3
#define LEARNED_ON_MIN 5
#define LEARNED_OFF_MIN 3

/* focus-predict.c, with focus.mu held: the count of key in the words'
 * table, added when add (NULL when absent, or no room). */
struct hstat *tstat_of(struct focus *f, uint64_t key, bool add);

/* focus-words.c, with focus.mu held (docs/focus.md "Prediction").  Have
 * enough pages been learned from for the words to say anything?  What
 * the words t[n] of a link say, in log odds, each word's share of it
 * into share[] (-1: not learned) and whether any said something
 * (*says); then the words of quiet links if none did (link_z_locked());
 * a word's key among the quiet links' words; the words a queue entry
 * keeps (at most FRONTIER_WORDS_MAX, into out); what the words of a
 * navigation page's link say (focus_link_says()). */
bool words_ready(const struct model *m);
double words_locked(struct focus *f, const struct model *m, uint16_t cat,
		    const uint32_t *t, size_t n, bool own, double *share,
		    bool *says);
double link_z_locked(struct focus *f, const struct model *m, uint16_t cat,
		     const uint32_t *t, size_t n, bool own, double *share,
		     bool *says);

/* Is a link of class k (focus-predict.c's link_class()) one from a page
 * on topic to its own host: a site's own way to the rest of its topic?
 * Only there do a URL's names count once (words_locked()). */
static inline bool own_way(unsigned k)
{
	return k >= 6 && (k & 1u);
}
uint64_t quiet_key(uint16_t cat, uint32_t w);
uint8_t keep_words(const uint32_t *t, const double *share, size_t n,
		   uint32_t *out);
double list_words_locked(struct focus *f, const struct model *m, uint16_t cat,
			 const uint32_t *t, size_t n);

/* A pruned link kept aside, to be queued (focus_release()). */
struct held {
	struct held *next;
	struct frontier_url fu;
	struct norm_url u;
	char buf[]; /* the URL, then the URL as found */
};

/* focus-shape.c: a copy of fu to hold, at priority 2 (NULL without
 * memory); frees a list of them. */
struct held *held_new(const struct frontier_url *fu);
void held_free(struct held *h);

/* focus-probe.c, with focus.mu held.  A link the prediction pruned from
 * a page on topic (fu, probe_candidate()): held for its host if it is the
 * first to a host not met.  At the end of a round: the roots of the hosts
 * still not met, released as the budget allows (true if any was).  Are
 * there any to release?  Frees the table. */
void probe_hold_locked(struct focus *f, const struct frontier_url *fu);
bool probe_release_locked(struct focus *f);
bool probe_pending_locked(struct focus *f);
void probe_free(struct focus *f);

/* focus-predict.c, with focus.mu held: the pages of url's host
 * (components u) the crawl learned from in category cat, or of those the
 * ones on topic (on). */
uint32_t host_pages_locked(struct focus *f, uint16_t cat, const char *url,
			   const struct norm_url *u, bool on);
/* Has the crawl met url's host in category cat: learned a page of it on
 * topic, or its root?  (A host only some off-topic pages of which were
 * learned, promoted stories of its other topics, is not known yet.) */
bool host_met_locked(struct focus *f, uint16_t cat, const char *url,
		     const struct norm_url *u);
/* May the pruned link fu probe its host: its category prunes at the
 * lease, and the page that linked it was on topic?  Safe without the
 * lock (the view and fu only). */
bool probe_candidate(const struct focus *f, const struct frontier_url *fu);

/* focus-shape.c, with focus.mu held.  A link to url (components u) that
 * the prediction prunes: is it kept all the same, its shape's pruning
 * undone on its host by samples, or taken as a sample (only from a page
 * on topic, from_on)? */
bool shape_keep_locked(struct focus *f, uint16_t cat, const char *url,
		       const struct norm_url *u, bool from_on);
/* A page fetched (on topic or not): if it is its shape's sample, what
 * the sample says; if its shape is kept and the prediction would prune
 * it now (pruned), what it says of the shape.  Returns whether the page
 * was a sample of its shape. */
bool shape_learn_locked(struct focus *f, uint16_t cat, const char *url,
			const struct norm_url *u, bool on, bool pruned);

/* focus-predict.c, with focus.mu held: is the pruned link fu (its
 * prediction's class and words) one that the samples of its shape may
 * take (not pruned on its own words)? */
bool shape_candidate_locked(struct focus *f, const struct frontier_url *fu);

/* Frees the shapes' table and what they hold (focus_close()). */
void shape_free(struct focus *f);

/* Do URLs a and b (components au, bu) have one shape, on one host? */
/* Is b another page of a's list or story: the same host and path, and
 * either a's query with one more parameter whose value is a number up to
 * PAGER_SPAN (its next page: /story/7 and /story/7?page=2), or the same
 * query but for one number, at most PAGER_SPAN from a's, of a parameter
 * among several (?cat=opinion&page=3), or of the only one when a was
 * itself reached as such a page (chain)?  Or the same host and query,
 * and the path's last segment such a number after two segments or more
 * that name the list (/topics/sports/3; after one, /item/48, only when
 * chain), or one more segment, such a number (/topics/sports to /2),
 * the segment before it no number (/2024/06/ is a date's)? */
bool shape_pager(const char *a, const struct norm_url *au, const char *b,
		 const struct norm_url *bu, bool chain);
bool shape_same(const char *a, const struct norm_url *au, const char *b,
		const struct norm_url *bu);

/* The view published last (the parsers may still hold an older one). */
static inline const struct view *view_of(const struct focus *f)
{
	return atomic_load_explicit(&((struct focus *)f)->view,
				    memory_order_acquire);
}

#endif
