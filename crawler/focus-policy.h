/* focus-policy.h — focused crawling for the engine (crawl.c): relevance, scope,
 * tunnel and the first-category-wins rule (SPEC §1, §3, §6).  Inside
 * crawler/, not a module of its own; docs/focus.md explains the choices.
 *
 * Threads: focus_keywords() and focus_in_scope() / focus_follow() are
 * read-only and safe from any thread once focus_open() returned, also
 * while focus_reload() runs; the counting and note-taking functions are
 * the writer's alone. */
#ifndef FOCUS_POLICY_H
#define FOCUS_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "crawl.h"
#include "frontier.h"
#include "parse.h"
#include "store.h"

struct focus;

/* Compile the keywords of every category of o.  Returns 0 and sets
 * *ret, or SC_E_NOMEM, SC_E_INVAL (with a message on stderr). */
int focus_open(const struct crawl_opts *o, struct focus **ret);

/* A reload: the categories of o (those of the running config at the same
 * indexes, new ones after them) apply from now on.  Called on the loop
 * thread; the other threads see the new settings at their next call.
 * Returns 0, or as focus_open(), and nothing changes then. */
int focus_reload(struct focus *f, const struct crawl_opts *o);

/* NULL is fine. */
void focus_close(struct focus *f);

/* The keywords of category cat, or NULL (none, or no such category). */
const struct parse_keywords *focus_keywords(const struct focus *f,
					    uint16_t cat);

/* Keep every category's settings in the store, for `report`. */
int focus_put_categories(struct focus *f, struct store *s, MDB_txn *txn);

/* May a page of category cat at page (its components pu) lead to link
 * (lu)?  host: the same host; domain: the same registrable domain,
 * through the Public Suffix List (libpsl's built-in copy); any: yes.
 * Pages are in scope by induction from their seed, so the page's host
 * stands for the seed's. */
bool focus_in_scope(const struct focus *f, uint16_t cat, const char *page,
		    const struct norm_url *pu, const char *link,
		    const struct norm_url *lu);

/* May a new URL (normalized, len bytes) of category cat be queued, by
 * its include and exclude patterns?  Safe from any thread. */
bool focus_wanted(const struct focus *f, uint16_t cat, const char *url,
		  size_t len);

/* Are the links of a page followed?  A page is off topic when it has a
 * relevance under its category's min_relevance; its links are followed
 * while the off-topic pages in a row, itself included, are at most the
 * tunnel.  offtopic is the page's lease.offtopic; *child gets the count
 * its links carry (0 after an on-topic page). */
bool focus_follow(const struct focus *f, uint16_t cat, bool has_relevance,
		  double relevance, uint8_t offtopic, uint8_t *child);

/* ---- Link prediction (docs/focus.md "Prediction"); the writer's alone.
 *
 * Every link of a page gets a predicted probability that its page is on
 * topic, from what is known before fetching it: whether the page that
 * links is on topic, how many keywords the link itself shows (its anchor,
 * title and URL: parse_link.hits) and whether it stays on its host (the
 * link's class, one of STORE_FOCUS_CLASSES), how many of the links of
 * the page show a keyword (its kind: a list of the topic, or a page that
 * names it once or never), and the words of every link to the URL.  The
 * rates are learned during the crawl from the pages fetched
 * (focus_learn()), the classes' in the store. */
struct focus_link {
	bool keep;          /* false: predicted under the category's
			     * predict_min, not to be queued (never at
			     * tunnel 0) */
	uint8_t priority;   /* frontier_url.priority */
	uint8_t predicted;  /* frontier_url.predicted (0: none) */
	uint8_t pred_class; /* frontier_url.pred_class (0: none) */
	uint8_t n_words;    /* frontier_url.words */
	bool fresh;         /* no link to the URL was predicted before */
	uint32_t words[FRONTIER_WORDS_MAX];
};

/* The prediction for a link (url, its components lu, the text it shows:
 * parse_link.anchor) of a page of category cat that has a relevance
 * (has_relevance) or not, on the page's host or not (same_host), showing
 * hits keywords, on a page page_hits of whose links show one; offtopic
 * is the count the link carries (focus_follow()'s *child).  Without a
 * prediction (predict off, no keywords, a page without relevance) the link is
 * kept, with priority 0 from an on-topic page and 1 from an off-topic one (a
 * tunnel link). */
void focus_predict(struct focus *f, uint16_t cat, bool has_relevance,
		   double relevance, unsigned hits, unsigned page_hits,
		   bool same_host, const char *url, const struct norm_url *lu,
		   const char *anchor, size_t anchor_len, uint8_t offtopic,
		   struct focus_link *ret);

/* A page of category cat fetched from lease l, whose links were
 * followed, queued gain links that no link predicted before showed and
 * that show a keyword: when it is off topic, learn how much a page that
 * links to it like that opens (a bridge, in the tunnel). */
void focus_bridge(struct focus *f, uint16_t cat, const struct frontier_lease *l,
		  bool has_relevance, double relevance, unsigned gain);

/* Has some category that prunes at the lease (tunnel > 0) begun to learn
 * from its pages, and learned too little yet for its words to judge a
 * guess (frontier_set_learning())?  The writer's. */
bool focus_learning(struct focus *f);

/* How many pages the crawl may have fetched or be fetching and not yet
 * learned from (0: no bound): while a category that prunes at the lease
 * has learned from few pages, each page teaches much, and URLs leased
 * before what the pages ahead of them teach is learned are judged
 * without it.  The writer's. */
uint32_t focus_lead(struct focus *f);

/* Does category cat predict links (keywords, predict on)?  Any thread. */
bool focus_predicts(const struct focus *f, uint16_t cat);

/* The slots of a page's word set (parse_doc_opts.words) that the
 * prediction learns from: up to half as many words. */
#define FOCUS_WORDS_CAP 1024

/* Is the URL leased (l) still worth fetching?  Its prediction made again
 * with what the crawl knows now (the pages of its host fetched since it
 * was queued): false when it fell under its category's predict_min
 * (never at tunnel 0).  Safe from the scheduler's thread. */
bool focus_lease_keep(struct focus *f, const struct frontier_lease *l);

/* A page of category cat was fetched for the first time, with a 2xx
 * answer, from lease l, with its words (a set of FOCUS_WORDS_CAP slots,
 * or NULL): learn from its relevance, and count how good its prediction
 * was. */
void focus_learn(struct focus *f, uint16_t cat, const struct frontier_lease *l,
		 const uint64_t *words, bool has_relevance, double relevance);

/* Take the learned class rates from the store's counters (at start). */
int focus_load(struct focus *f, struct store *s, MDB_txn *txn);

/* Count n events of counter k (enum store_focus_counter) for cat, in
 * the writer's current batch. */
void focus_count(struct focus *f, uint16_t cat, unsigned k, uint64_t n);

/* After frontier_add_batch_cat(): note in the store every URL of fu that
 * was queued before under another category (other[i]), under fu[i]'s
 * category, and count it. */
int focus_note_also(struct focus *f, struct store *s, MDB_txn *txn,
		    const struct frontier_url *fu, size_t n,
		    const uint16_t *other);

/* Before the batch commits: add its counts to the store. */
int focus_flush(struct focus *f, struct store *s, MDB_txn *txn);

/* After the commit (ok) or the abort: add the batch's counts to sum
 * (under the caller's lock), and start a new batch. */
void focus_batch_end(struct focus *f, bool ok, struct crawl_summary *sum);

#endif
