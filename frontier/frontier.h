/* frontier.h — the crawl's durable breadth-first frontier, in LMDB.
 *
 * What is kept where:
 *
 *   LMDB (the caller's environment, shared with store/):
 *     "seen"   url key (sc_url_key) -> the category it was first queued
 *              under (2 bytes): every URL ever queued, but the recent
 *              ones, which "seen.log0" and "seen.log1" hold until they
 *              are merged in bulk into "seen.mid", and that into "seen"
 *              (frontier/seen-log.c).
 *     "queue"  host id | rank | seq -> entry: the URLs still to fetch,
 *              per host by priority class, then breadth-first (depth,
 *              then discovery).
 *     "hosts"  host name -> host id, and "hostids" id -> name.
 *     "meta"   the sequence and host-id counters.
 *     "fetched" host id -> the records of fetched URLs committed for it:
 *              the per-host page budget's count (frontier_count_fetch()).
 *     "due"    due time | url key -> pass: the re-crawl schedule.
 *   memory:
 *     one small struct per host (not per URL): its read position, its
 *     next allowed fetch time, its connections in flight; and a table of
 *     the seen set's recent keys, bounded (16 MB at most by default,
 *     frontier_opts.seen_recent).  Memory grows with the number of hosts,
 *     never with the number of URLs.
 *
 * Two sides, two threads:
 *
 *   The writer (one thread, the only one that writes LMDB) calls
 *   frontier_add() and frontier_done() inside its write transaction,
 *   together with the store's record writes, and frontier_published()
 *   after the commit.  A URL's queue entry is deleted in the same commit
 *   that stores its record and queues its links, so a crash at any moment
 *   loses only uncommitted work, which the queue still holds and which is
 *   then fetched again: nothing committed is fetched twice.
 *
 *   The scheduler (the event-loop thread) calls frontier_next() to lease
 *   the next URL whose host may be fetched now, and frontier_release()
 *   when the fetch is over.  Leases live in memory only: after a crash the
 *   queue still holds every leased URL, so "the leases return to the
 *   queue" by construction.
 *
 * Within a host the queue is read from its first entry, skipping the
 * entries leased and not yet committed as done (a handful), so a URL found
 * later at a lower depth is still fetched before the host's deeper ones.
 *
 * The two sides share the per-host structs under one mutex, held for
 * in-memory work and frontier_next()'s reads of the memory-mapped queue,
 * never across a commit.
 */
#ifndef FRONTIER_H
#define FRONTIER_H

#include <lmdb.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "normalize.h"
#include "sc.h"

struct frontier;

/* Queue keys: host id (4 bytes), rank (2: priority class in the top two
 * bits, then depth), sequence (8), big-endian so that LMDB's byte order
 * is breadth-first order within a host's class. */
#define FRONTIER_QKEY_LEN 14

/* The longest host name kept: a DNS name is at most 253 bytes, plus a
 * trailing dot and an IPv6 literal's brackets fit as well. */
#define FRONTIER_HOST_MAX 256

struct frontier_opts {
	/* Connections in flight to one host; a host at this count is not
	 * offered by frontier_next(). */
	unsigned per_host_connections;
	/* The least gap between the starts of two fetches from one host,
	 * unless frontier_host_delay() set another for it. */
	uint32_t per_host_delay_ms;
	/* 0, or a priority class (1..3): URLs of this class and above are
	 * not offered while URLs of a class under it are leased and not
	 * yet done, or wait for their host's delay; they go when nothing
	 * better is under way (the focus policy's guesses wait for what
	 * the crawl learns from its better links). */
	unsigned defer_class;
	/* The seen set's recent keys held before they are merged into the
	 * sorted sets (stores of format 4, read at frontier_open()
	 * only); 0: the default, SEEN_RECENT_DEFAULT in frontier.c's
	 * sense, about 1.3 M keys and at most 16 MB of memory.  Tests set
	 * it small to see merges. */
	uint32_t seen_recent;
};

/* The most words of a link its queue entry keeps (frontier_url.words). */
#define FRONTIER_WORDS_MAX 8

/* A URL to queue. */
struct frontier_url {
	const char *url; /* normalized: the key's source and the fetch URL */
	size_t url_len;
	/* Its components, as norm_url() gave them: the host, and the
	 * scheme and port of the fetch (u->https, u->port), which the
	 * entry keeps because a key written under fold_https lost them. */
	const struct norm_url *u;
	const char *found; /* absolute, as first discovered */
	size_t found_len;
	uint16_t depth;    /* hops from the seed */
	uint16_t category; /* the crawl's category index */
	uint8_t redirects; /* redirects followed to reach it (SPEC: <= 10) */
	/* Off-topic pages in a row on the way from the seed, ending with
	 * the page that linked here (0: that page was on topic): the
	 * category's tunnel bounds it. */
	uint8_t offtopic;
	/* A revisit of a fetched URL (frontier_revisit()), with the
	 * validators of its last fetch for a conditional request (NULL or
	 * 0: none; longer ones than the maxima below are left out).  A new
	 * URL may carry a Last-Modified too: a sitemap's lastmod, for its
	 * first re-crawl interval. */
	bool revisit;
	/* A sitemap (its body lists URLs), and a sitemap's changefreq for
	 * this URL (enum parse_changefreq, 0..7; 0: none). */
	bool sitemap;
	uint8_t changefreq;
	const char *etag;
	size_t etag_len;
	const char *last_modified;
	size_t last_modified_len;
	/* Its priority class, 0 (first) to 3: within a host the queue is
	 * read by class, then depth, then discovery, and the host whose
	 * next URL comes first in that order is offered first. */
	uint8_t priority;
	/* The focus policy's prediction for the URL, kept for its lease:
	 * 0 none, else 1 + 254 times the predicted probability that the
	 * page is on topic; the class of link it was predicted for (the
	 * policy's, 0 none); and the words it showed (the policy's hashes,
	 * at most FRONTIER_WORDS_MAX), to predict it again when leased. */
	uint8_t predicted;
	uint8_t pred_class;
	uint8_t n_words;
	uint32_t words[FRONTIER_WORDS_MAX];
};

/* The longest validators a revisit entry keeps. */
#define FRONTIER_ETAG_MAX 256
#define FRONTIER_LAST_MODIFIED_MAX 64

/* No category: in frontier_add_batch_cat()'s other[]. */
#define FRONTIER_NO_CATEGORY UINT16_MAX

/* A leased URL: a copy, valid as long as the caller keeps it.
 *
 * url is the key exactly as it was queued, and u its components, split
 * from it by norm_split() (never normalized again: a run with other steps
 * would rewrite the key, and offsets into the rewritten string do not fit
 * the stored one), with the scheme and port the fetch uses, as the entry
 * kept them (under fold_https the key says http for an https URL).  So
 * norm_fetch_url(url, &u, ...) gives the URL to request, whatever the
 * steps of the run that leases it.  u.len is 0 when the stored key is not
 * a URL norm_url() could have written (a damaged entry): record it, never
 * fetch it. */
struct frontier_lease {
	unsigned char qkey[FRONTIER_QKEY_LEN];
	uint32_t host_id;
	uint16_t depth;
	uint16_t category;
	uint8_t redirects;
	uint8_t offtopic;
	uint16_t url_len, found_len;
	char url[NORM_URL_MAX + 1];
	char found[NORM_URL_MAX + 1];
	struct norm_url u;
	/* A revisit (re-crawls), with the validators it was queued with,
	 * NUL-terminated (empty: none); a sitemap; a sitemap's changefreq
	 * (frontier_url). */
	bool revisit;
	bool sitemap;
	uint8_t changefreq;
	char etag[FRONTIER_ETAG_MAX + 1];
	char last_modified[FRONTIER_LAST_MODIFIED_MAX + 1];
	/* frontier_url's predicted, pred_class and words (none for
	 * entries written before they were kept). */
	uint8_t predicted;
	uint8_t pred_class;
	uint8_t n_words;
	uint32_t words[FRONTIER_WORDS_MAX];
};

struct frontier_stats {
	uint64_t queued;  /* entries in the queue (committed) */
	uint64_t seen;    /* URLs ever queued (committed) */
	uint32_t hosts;   /* hosts known */
	uint32_t leased;  /* URLs leased and not yet done */
	uint32_t waiting; /* hosts with work, held back by their delay */
	/* Searches of the seen set's sorted keys for a URL its log did not
	 * hold, since the open: the others were answered by the filter in
	 * memory (format 4, frontier/seen-log.c). */
	uint64_t searches;
};

/* Open the frontier's databases in env, creating them inside txn (a write
 * transaction the caller commits), and load the per-host state from them.
 * A new store is written in format 4 (the seen set's recent keys in a
 * log, merged into the sorted sets in bulk: frontier/seen-log.c, which
 * loads them here); a store of format 3 is read as format 4 and meta says
 * 4 from then on; a store written before keeps its format, hashed keys
 * (1) or clustered ones (2) (frontier.c, SEEN_KEY_V2).
 * Returns 0, SC_E_DB, SC_E_NOMEM, SC_E_CORRUPT or SC_E_FORMAT (a newer
 * sigcrawl's store, not read). */
SC_WUR int frontier_open(MDB_env *env, MDB_txn *txn,
			 const struct frontier_opts *opts,
			 struct frontier **ret);

/* Free the in-memory state (not the databases).  Accepts NULL. */
void frontier_close(struct frontier *f);

/* --- writer side: inside the caller's write transaction --- */

/* Queue fu unless its URL was ever queued.  Returns 1 if queued, 0 if it
 * was seen before, or SC_E_DB, SC_E_INVAL (host too long).  The host
 * learns about the entry at frontier_published(). */
SC_WUR int frontier_add(struct frontier *f, MDB_txn *txn,
			const struct frontier_url *fu);

/* Queue a batch: the same as frontier_add() on each in order (the first
 * of two equal URLs wins), but the seen set is probed in key order, so
 * that neighbouring probes share LMDB pages: with a large seen set this
 * is several times faster than one by one.  If added is not NULL,
 * added[i] is set to 1 or 0.  Returns the number queued, or SC_E_DB,
 * SC_E_NOMEM, SC_E_INVAL (then the transaction must be aborted). */
SC_WUR int frontier_add_batch(struct frontier *f, MDB_txn *txn,
			      const struct frontier_url *fu, size_t n,
			      int8_t *added);

/* frontier_add_batch(), which also says, when other is not NULL, which
 * URLs were queued before under another category: other[i] is then that
 * category (of the earlier URL in the batch, or as the seen set holds
 * it), else FRONTIER_NO_CATEGORY (queued now, seen under the same
 * category, or seen in a store that did not keep categories). */
SC_WUR int frontier_add_batch_cat(struct frontier *f, MDB_txn *txn,
				  const struct frontier_url *fu, size_t n,
				  int8_t *added, uint16_t *other);

/* Is the URL (normalized) in the seen set, as txn sees it?  Returns 1, 0
 * or SC_E_DB. */
SC_WUR int frontier_seen(struct frontier *f, MDB_txn *txn, const char *url,
			 size_t len);

/* Queue fu whether or not its URL was seen: a URL that a learned rule
 * held back and that must be fetched after all (the rule was retired).
 * Returns 0, SC_E_DB or SC_E_INVAL. */
SC_WUR int frontier_requeue(struct frontier *f, MDB_txn *txn,
			    const struct frontier_url *fu);

/* Queue fu again as a revisit of a URL fetched before (re-crawls): the
 * seen set is left as it is, and the lease says revisit, with fu's
 * validators.  It takes its place in its host's breadth-first order by
 * its depth, so new URLs of lower depth go first.  Returns 0, SC_E_DB or
 * SC_E_INVAL. */
SC_WUR int frontier_revisit(struct frontier *f, MDB_txn *txn,
			    const struct frontier_url *fu);

/* ---- The re-crawl schedule ("frontier.due") ------------------------------
 *
 * Fetched URLs waiting for their next visit, in the order of their due
 * time: key = due time (unix ms, 8 bytes) and the URL's key (sc_url_key,
 * 16 bytes), big-endian, so LMDB's order is due order; value = the pass
 * that scheduled it (4 bytes).  All of it lives in LMDB: memory does not
 * grow with it.  Written in the writer's transaction with the record it
 * schedules.  The value is the pass (4 bytes) and flags (1 byte). */
struct frontier_due {
	int64_t due; /* unix ms, >= 0 */
	unsigned char key[SC_KEY_LEN];
	uint32_t pass;
	uint8_t flags; /* FRONTIER_DUE_* */
};

/* The page is a sitemap: its revisits read it as one. */
#define FRONTIER_DUE_SITEMAP 0x01

/* Schedule (put) or unschedule (del: SC_E_NOTFOUND if absent) an entry.
 * Return 0, SC_E_INVAL (due < 0), SC_E_NOTFOUND or SC_E_DB. */
SC_WUR int frontier_due_put(struct frontier *f, MDB_txn *txn,
			    const struct frontier_due *d);
SC_WUR int frontier_due_del(struct frontier *f, MDB_txn *txn,
			    const struct frontier_due *d);

/* Up to max entries in due order, after the entry *after (NULL: from the
 * first), whose due time is at most horizon, into out[]; *n says how
 * many.  Returns 1 when more entries within the horizon follow the last
 * one returned, 0 when none do, or SC_E_DB, SC_E_CORRUPT. */
SC_WUR int frontier_due_next(struct frontier *f, MDB_txn *txn,
			     const struct frontier_due *after, int64_t horizon,
			     struct frontier_due *out, size_t max, size_t *n);

/* The number of entries scheduled, as txn sees it.  Returns 0 or
 * SC_E_DB. */
SC_WUR int frontier_due_count(struct frontier *f, MDB_txn *txn, uint64_t *ret);

/* The re-crawl pass: its number (0 before the first) and whether it is
 * under way (`crawl --recrawl` begun, not yet ended), kept in "meta".
 * get returns 0 (zero and false for a store without one) or
 * SC_E_CORRUPT, SC_E_DB; put returns 0 or SC_E_DB. */
SC_WUR int frontier_pass_get(struct frontier *f, MDB_txn *txn, uint32_t *pass,
			     bool *running);
SC_WUR int frontier_pass_put(struct frontier *f, MDB_txn *txn, uint32_t pass,
			     bool running);

/* Put url into the seen set without queueing it: another form of it is
 * queued or fetched (adaptive keys).  Returns 1 if it was not there, 0
 * if it was, or SC_E_DB. */
SC_WUR int frontier_mark_seen(struct frontier *f, MDB_txn *txn, const char *url,
			      size_t len, uint16_t category);

/* Take url out of the seen set, so that a later link queues it again: a
 * URL leased and not fetched (a prediction dropped it), whose queue
 * entry frontier_done() removes in the same transaction.  Returns 1 if
 * it was there, 0 if not, or SC_E_DB. */
SC_WUR int frontier_forget(struct frontier *f, MDB_txn *txn, const char *url,
			   size_t len);

/* frontier_seen() for the scheduler's thread, through the frontier's own
 * read transaction: what the last publication committed. */
SC_WUR int frontier_seen_now(struct frontier *f, const char *url, size_t len);

/* Count a committed record of a fetched URL against its host: the
 * per-host page budget, kept in the same transaction as the record, so
 * it survives a restart and a kill -9 exactly.  Visible to
 * frontier_host_fetched() after frontier_published().  Returns 0,
 * SC_E_DB, SC_E_CORRUPT or SC_E_NOMEM. */
SC_WUR int frontier_count_fetch(struct frontier *f, MDB_txn *txn,
				uint32_t host_id);

/* Remove a leased URL from the queue: its fetch is over and its result
 * goes into the same transaction.  Returns 0 or SC_E_DB (SC_E_NOTFOUND if
 * it was not queued). */
SC_WUR int frontier_done(struct frontier *f, MDB_txn *txn,
			 const struct frontier_lease *l);

/* After txn committed: make what it added visible to frontier_next().
 * After an abort, call frontier_discarded() instead. */
void frontier_published(struct frontier *f);
void frontier_discarded(struct frontier *f);

/* --- scheduler side --- */

/* Lease the next URL to fetch at time now_ms (any monotonic clock in
 * milliseconds): from the hosts that are ready (their delay has passed
 * and they have fewer than per_host_connections in flight), the one whose
 * next URL has the lowest depth, then the earliest discovered.  The
 * frontier reads through a read-only transaction of its own, renewed after
 * every publication, so the environment must be opened with MDB_NOTLS.
 * One thread calls it (the scheduler's).
 *
 * Returns 0 with *ret filled; SC_E_AGAIN when nothing is ready now, with
 * *wait_ms set to how long until a host becomes ready, or UINT64_MAX when
 * no host has queued work (more may come with the next commit); or
 * SC_E_DB, SC_E_CORRUPT. */
SC_WUR int frontier_next(struct frontier *f, uint64_t now_ms,
			 struct frontier_lease *ret, uint64_t *wait_ms);

/* A leased fetch is over: its host has one connection less in flight.
 * The lease itself ends at frontier_done() and its commit; a fetch that
 * is abandoned without frontier_done() (shutdown) simply stays queued
 * and is leased again after a restart. */
void frontier_release(struct frontier *f, uint32_t host_id);

/* Give a lease back without fetching it (its host's robots.txt could not
 * be had, say): it is offered again by frontier_next(), first among its
 * host's URLs, and the host has one connection less in flight. */
void frontier_return(struct frontier *f, const struct frontier_lease *l);

/* Change the per-host limits of a running crawl (a config reload): the
 * connection limit applies at once, the delay from each host's next
 * fetch on (a host's own delay from frontier_host_delay() stays). */
void frontier_set_opts(struct frontier *f, const struct frontier_opts *opts);

/* While learning (the focus policy has learned too little to judge its
 * guesses), the URLs of opts.defer_class and above go at most a few at a
 * time even when nothing better is under way, so that what the first
 * ones turn out to be judges the others at their lease.  Any thread. */
void frontier_set_learning(struct frontier *f, bool learning);

/* Hold a host back until until_ms (Retry-After, a robots.txt fetch). */
void frontier_hold(struct frontier *f, uint32_t host_id, uint64_t until_ms);

/* A request to the host went out at sent_ms: its next may not start
 * before sent_ms + its delay.  The delay runs from each lease already;
 * this moves it on when the request left later than it was leased (a
 * wait for a connection, a busy loop), so the gaps the host sees between
 * requests are never shorter than the delay. */
void frontier_sent(struct frontier *f, uint32_t host_id, uint64_t sent_ms);

/* A fetch from another host's slot is about to go to host name (an
 * adaptive crawl fetches the form linked of a URL keyed onto a www.
 * alias's site): returns 1, with *ready_ms, when name's own slot allows
 * no request before then (the caller gives its lease back and waits);
 * else 0, having held name's slot for its delay from now_ms, as if it had
 * fetched.  A name the frontier has no host for returns 0.  Any thread.
 * Returns SC_E_DB as well. */
SC_WUR int frontier_host_pace(struct frontier *f, const char *name, size_t len,
			      uint64_t now_ms, uint64_t *ready_ms);

/* Will the host want a connection again within window_ms of now_ms, as
 * the frontier knows it: another of its fetches is in flight beside the
 * caller's, or it has a URL queued (committed) that its delay lets go by
 * then.  A host that will not keeps no idle connection after the fetch
 * the caller starts (crawler/engine/fetch.c): most hosts of a broad crawl
 * have a few pages, and an idle connection costs some 3 KB of libcurl's
 * heap a host.  A drained host never will.  Any thread. */
bool frontier_host_due(struct frontier *f, uint32_t host_id, uint64_t now_ms,
		       uint64_t window_ms);

/* Drain a host (on) or stop draining it: a drained host's URLs are
 * recorded by the caller, not fetched (a host given up, or over its page
 * budget), so they are offered one after another without its delay, and
 * without the hold of frontier_hold().  Turning it off makes the host
 * wait its delay from now_ms.  The connection limit still applies, so
 * the caller releases each lease at once. */
void frontier_drain(struct frontier *f, uint32_t host_id, bool on,
		    uint64_t now_ms);

/* The records of fetched URLs committed for a host, every run of the
 * store counted (frontier_count_fetch()). */
uint64_t frontier_host_fetched(struct frontier *f, uint32_t host_id);

/* Set a host's own delay between fetch starts (robots.txt Crawl-delay
 * when it is longer than the configured one). */
void frontier_host_delay(struct frontier *f, uint32_t host_id,
			 uint32_t delay_ms);

/* The host name of a host id as txn sees it, NUL-terminated into buf
 * (FRONTIER_HOST_MAX + 1 bytes).  Returns 0, SC_E_NOTFOUND, SC_E_NOSPC or
 * SC_E_DB. */
SC_WUR int frontier_host_name(struct frontier *f, MDB_txn *txn,
			      uint32_t host_id, char *buf, size_t cap);

void frontier_stats(struct frontier *f, struct frontier_stats *ret);

/* The bytes of the frontier's memory that grow with the hosts it knows,
 * by structure, as allocated (capacities, not what is in use): the host
 * records (one a host id), their lists of leased entries (the queue
 * state a host keeps between its leases), the ready and wait heaps (the
 * wait heap is the per-host delay: one timer for all, keyed by each
 * host's ready time), the writer's table of the hosts its open
 * transaction touched, and its cache of host names (fixed).  A walk over
 * every host (bench/hosts.c). */
struct frontier_mem {
	uint32_t hosts;        /* host ids known */
	size_t host_record;    /* the size of one host record */
	size_t records;        /* the records' array */
	size_t leased;         /* the lists of leased entries */
	uint32_t leased_lists; /* hosts that have one */
	size_t heaps;          /* ready and wait heaps */
	size_t writer;         /* the writer's per-host tables */
	size_t name_cache;     /* the host name cache (fixed) */
};

void frontier_mem(struct frontier *f, struct frontier_mem *ret);

/* Hosts with at least one fetch leased and not released: a walk over
 * every host (O(hosts), for a status request rather than every tick). */
uint32_t frontier_hosts_active(struct frontier *f);

/* ---- The normalization of the keys ------------------------------------ */

/* The longest tracking-parameter list kept (norm_tracking_list()). */
#define FRONTIER_TRACKING_MAX 4096

/* What decided the frontier's keys: the URLs it holds were normalized
 * with these steps (and this tracking list when remove_tracking_params is
 * among them), and every key stays as it was written.  Kept in "meta" when
 * the store is created, so that a later run with other steps, which would
 * write other keys for the same URLs, can be told so (crawler/learn/keys.c). */
struct frontier_norm {
	uint8_t profile; /* enum norm_profile the run named (for messages
			    and adaptive) */
	uint32_t steps;  /* the effective enum norm_step mask */
	char tracking[FRONTIER_TRACKING_MAX + 1]; /* norm_tracking_list() */
};

/* The recorded normalization, as txn sees it.  Returns 0, SC_E_NOTFOUND
 * (a new store, or one written by a version that did not record it),
 * SC_E_CORRUPT (a value this version did not write) or SC_E_DB. */
SC_WUR int frontier_norm_get(struct frontier *f, MDB_txn *txn,
			     struct frontier_norm *ret);

/* Record n, replacing any earlier record, inside the writer's txn.
 * Returns 0, SC_E_INVAL (a tracking list longer than
 * FRONTIER_TRACKING_MAX, or a profile out of range) or SC_E_DB. */
SC_WUR int frontier_norm_put(struct frontier *f, MDB_txn *txn,
			     const struct frontier_norm *n);

/* Call fn(arg, url, len) for the key of every queued URL, as txn sees it,
 * in queue order.  Stops at the first non-zero value fn returns and
 * returns it; returns SC_E_CORRUPT for an entry that does not decode,
 * SC_E_DB, or 0 after the last one.  O(queue): for the one-time check of
 * a store written before the normalization was recorded. */
SC_WUR int frontier_foreach_queued(struct frontier *f, MDB_txn *txn,
				   int (*fn)(void *arg, const char *url,
					     size_t len),
				   void *arg);

#endif
