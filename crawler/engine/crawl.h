/* crawl.h — the crawl engine, the public side of crawler/engine/.
 *
 * Three kinds of thread, one job each:
 *
 *   the event loop (the caller's thread): libevent + libcurl's multi
 *     socket API.  It leases URLs from the frontier, fetches robots.txt
 *     before a host's first page, runs the transfers, and hands each
 *     finished body to the parsers.  It never parses a page and never
 *     waits for a commit.
 *   the parsers (a pool): links, title and redirect target of a body.
 *   the writer (one): commits, in one LMDB transaction per batch, each
 *     page's record, the removal of its queue entry and its new links,
 *     then wakes the loop.
 *
 * A URL is fetched at most once per committed record: its queue entry
 * goes away in the commit that stores its record.  A kill -9 loses only
 * what was not committed, which the queue still holds. */
#ifndef CRAWL_H
#define CRAWL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conf.h"
#include "learn.h"
#include "normalize.h"
#include "store.h"

/* The body-text signature ([dedup] signature, SPEC §5). */
enum crawl_signature {
	CRAWL_SIGNATURE_MD5_TEXT,
	CRAWL_SIGNATURE_MD5_TEXT_SIZE,
	CRAWL_SIGNATURE_OFF,
};

struct crawl;
struct crawl_daemon;

/* Unreachable hosts.  A host whose robots.txt cannot be had (no answer,
 * 5xx, 429: RFC 9309 §2.3.1.4 then allows nothing) or to which a
 * connection fails (DNS, connect, TLS, a connect timeout) is held
 * host_backoff_ms, then twice as long after each further failure, at
 * most CRAWL_BACKOFF_CAP_MS, and tried again; nothing else waits for it.
 * A crawl gives it up after host_retries retries: its URLs, the queued
 * ones and those found later, are recorded with the reason as their
 * error, not fetched, so the crawl ends.  The daemon never gives up. */
#define CRAWL_BACKOFF_CAP_MS (3600u * 1000)
#define CRAWL_HOST_NAME_MAX 256
/* Held hosts that crawl_status() lists (all are counted). */
#define CRAWL_HOSTS_LISTED 20

/* A host held back because it could not be reached, or given up. */
struct crawl_host {
	char name[CRAWL_HOST_NAME_MAX + 1];
	/* enum store_error: dns, connect, tls, timeout (of the connection)
	 * or robots_unreachable (its robots.txt answered 5xx or 429, or its
	 * fetch failed otherwise) */
	int reason;
	char detail[128];  /* the failure in words: curl's, or the status */
	unsigned tries;    /* failed tries in a row */
	bool given_up;     /* crawl only: its URLs are recorded, not fetched */
	double retry_in_s; /* held: seconds until the next try */
};

/* concurrency = auto's ceiling: transfers in flight at most. */
#define CRAWL_AUTO_MAX 1024

struct crawl_opts {
	const char *store_dir;
	const struct crawl_category *categories;
	size_t n_categories;
	uint64_t max_pages; /* fetches to start; 0: no limit */
	unsigned max_depth;
	/* The normalization: the profile named ([normalize] profile or
	 * --profile) and its steps as adjusted.  The store records both
	 * when it is created and refuses a run with others (learn.h). */
	enum norm_profile profile;
	struct norm_opts norm;
	/* With profile adaptive: when a learned rule applies and how many
	 * of the URLs it holds back are still fetched ([adaptive],
	 * crawler/learn/learn.h). */
	struct {
		unsigned min_support;
		double confidence;
		double audit_share;
		bool transfer;
		double retire_below;
		unsigned audit_every;
		bool skip_noindex_nofollow;
	} adaptive;
	/* Re-crawls (SPEC §7, docs/recrawl.md).  Every fetched page gets a
	 * next visit, its interval kept within [min_interval_s,
	 * max_interval_s]; with enabled the daemon revisits the pages that
	 * are due, continuously; with pass (crawl --recrawl) every page of
	 * the store is revisited once, due or not, and the crawl then ends.
	 * audit_share of the duplicates due are fetched all the same. */
	struct {
		bool enabled, pass;
		uint64_t min_interval_s, max_interval_s;
		double audit_share;
	} recrawl;
	/* Transfers in flight: a fixed number, or 0 (auto) for as many as
	 * the hosts that are ready ask, within the descriptor budget and
	 * CRAWL_AUTO_MAX (fdbudget.c). */
	unsigned concurrency;
	unsigned per_host_connections;
	uint32_t per_host_delay_ms;
	unsigned timeout_s;
	size_t max_body_bytes;
	const char *user_agent;
	const char *robots_token; /* product token for robots.txt groups */
	bool obey_robots;
	/* Fetches a host may have, counting every run of the store (the
	 * frontier keeps the count); 0: no limit.  URLs over it are recorded
	 * as host_budget, not fetched. */
	uint64_t max_pages_per_host;
	/* An unreachable host (see "Unreachable hosts" in crawl.c): held
	 * host_backoff_ms, doubled after each further failure up to
	 * CRAWL_BACKOFF_CAP_MS; a crawl gives it up after host_retries
	 * retries, the daemon never does. */
	unsigned host_retries;
	uint32_t host_backoff_ms;
	/* [dedup]: the signature, near-duplicates (-1 off, else the largest
	 * SimHash distance that counts as equal), and whether a duplicate's
	 * links are queued. */
	enum crawl_signature signature;
	int near_k;
	bool follow_duplicate_links;
	bool warc;         /* WARC files in STORE/warc */
	bool search_index; /* STORE/search.sqlite kept up to date */
	/* [store] max_size: the ceiling of STORE/data.mdb, bytes (0: the
	 * store's default, store_env_open_max()). */
	uint64_t store_max_bytes;
	const char *const *connect_to; /* curl's HOST1:PORT1:HOST2:PORT2 */
	size_t n_connect_to;
	/* [crawl] proxy, header, cookie_jar (conf.h): a proxy for every
	 * fetch (NULL: none), extra request headers ("Name: value"), and a
	 * cookie file (NULL: no cookies).  Fixed for a run. */
	const char *proxy;
	const char *const *headers;
	size_t n_headers;
	const char *cookie_jar;
	/* [crawl] ca_file, ca_path, client_cert, client_key (conf.h), or
	 * NULL: libcurl's defaults. */
	const char *ca_file, *ca_path, *client_cert, *client_key;
	/* [crawl] url_credentials = use: passwords found in URLs are sent
	 * (crawl_creds_wire()); norm.on_password is crawl_creds_note. */
	bool url_credentials_use;
	unsigned parser_threads; /* 0: one per core */
	bool quiet;              /* no progress lines */
	/* Long-running mode (`sigcrawl serve`): NULL for a crawl that ends
	 * when the frontier is dry.  See "The daemon's side" below. */
	const struct crawl_daemon *daemon;
	/* One shard of a cluster (SPEC §9, crawler/daemon/cluster-node.c), or
	 * NULL: one machine. */
	const struct crawl_cluster *cluster;
};

/* A URL the writer found for another shard: its normalized form (the
 * receiving shard normalizes it again), hops from its seed, category. */
struct crawl_cluster_link {
	const char *url;
	size_t len;
	uint16_t depth;
	uint16_t category;
	uint32_t shard;
};

/* One claim: the page's signature and URL; on return, elsewhere set and
 * owner (cap bytes) the URL that holds the signature when that is
 * another, or elsewhere false when this page holds it or the cluster
 * could not be asked (then the page is a representative here, as on one
 * machine). */
struct crawl_cluster_claim {
	const unsigned char *sig; /* 16 bytes */
	const char *url;
	size_t len;
	char *owner;
	size_t cap;
	bool elsewhere;
};

/* A shard of a cluster, as the writer sees it.  Every new URL (a link, a
 * redirect target, a sitemap's URL, a seed) whose host belongs to another
 * shard (cluster_shard_of()) is marked seen here, so that it goes once,
 * and handed to send() in the transaction that marks it, before the
 * commit: send() must have made the links durable (the spool) when it
 * returns 0; any other value is fatal, as a failed commit is.  URLs of
 * other shards that came from the cluster itself (crawl_seeds.remote)
 * are dropped and counted: the shards disagree on the partition. */
struct crawl_cluster {
	uint32_t shards, shard;
	int (*send)(void *arg, const struct crawl_cluster_link *links,
		    size_t n);
	/* The exact signatures of a batch's pages claimed for the whole
	 * cluster (all at once, before the batch's writes), for each page
	 * that would become a representative here: see struct
	 * crawl_cluster_claim.  The writer's thread; returns when every
	 * claim is answered. */
	void (*claim)(void *arg, struct crawl_cluster_claim *v, size_t n);
	void *arg;
};

/* Categories struct crawl_summary names as scoring nothing on topic. */
#define CRAWL_OFFTOPIC_LISTED 8

struct crawl_summary {
	uint64_t pages;  /* records committed for fetched URLs */
	uint64_t bytes;  /* body bytes received (decoded) */
	uint64_t errors; /* fetches that ended in an error */
	/* Records by error kind (enum store_error; [0] unused), robots.txt
	 * refusals included. */
	uint64_t by_error[STORE_ERROR_COUNT];
	uint64_t by_class[6]; /* status 1xx..5xx; [0]: no status */
	uint64_t robots_disallowed;
	/* Pages fetched that said both noindex and nofollow (meta robots or
	 * X-Robots-Tag); those a learned skip did not fetch are
	 * by_error[STORE_ERROR_SKIPPED_NOINDEX_NOFOLLOW]. */
	uint64_t noindex_nofollow;
	uint64_t links_bad;        /* links that failed to normalize */
	uint64_t queued;           /* new URLs queued */
	uint64_t dup_exact;        /* pages collapsed by their signature */
	uint64_t dup_near;         /* pages collapsed by their SimHash */
	uint64_t warc_exchanges;   /* pages written to the WARC files */
	uint64_t warc_skipped;     /* pages whose exchange could not be */
	uint64_t pruned_scope;     /* links out of their category's scope */
	uint64_t pruned_relevance; /* links of off-topic pages, past the
				    * tunnel */
	uint64_t also;             /* URLs reached from a second category */
	uint64_t pruned_pattern;   /* links refused by include/exclude */
	uint64_t pruned_predicted; /* links (and URLs when leased) predicted
				    * under their category's predict_min */
	/* Categories with keywords that scored pages this run, none of them
	 * at or above the category's min_relevance: how many, and the first
	 * CRAWL_OFFTOPIC_LISTED as indexes into crawl_opts.categories, each
	 * with the pages it scored.  A crawl whose seeds all score under
	 * min_relevance stops at them at tunnel 0, which nothing else in the
	 * summary tells apart from a small web.  Filled by crawl_run() at
	 * the end (a daemon's status gives every category's figures). */
	uint32_t n_offtopic;
	struct crawl_offtopic {
		uint16_t category;
		uint64_t scored;
	} offtopic[CRAWL_OFFTOPIC_LISTED];
	/* The harvest rate of each category with keywords that scored pages
	 * this run (the first CRAWL_OFFTOPIC_LISTED of them): on topic of
	 * scored.  At min_relevance 0 every scored page is on topic, so the
	 * summary says the rate was not measured rather than print 1. */
	uint32_t n_harvest;
	struct crawl_harvest {
		uint16_t category;
		uint64_t scored, on_topic;
		/* The harvest floor's (focus_floor()): over every run of
		 * the store, pages scored and on topic, and those fetched
		 * by exploring and on topic. */
		bool has_floor;
		uint64_t floor_scored, floor_on, explored, explored_on;
	} harvest[CRAWL_OFFTOPIC_LISTED];
	/* Adaptive normalization (crawler/learn/learn.h), this run: URLs held
	 * back by a learned rule instead of fetched, URLs queued under a
	 * rule's key, audits started. */
	uint64_t adapt_held, adapt_keyed;
	/* Sitemaps: URLs they listed, and known pages their lastmod made
	 * due at once. */
	uint64_t sitemap_urls, sitemap_due;
	/* A cluster's shard, this run: new URLs sent to other shards, URLs
	 * received from them and queued, and URLs received that belong to
	 * another shard (dropped). */
	uint64_t cluster_sent, cluster_received, cluster_misrouted;
	/* Re-crawls, this run: revisits committed and how they ended
	 * (not_modified: unchanged by a 304; failed: no answer that says
	 * anything of the page, kept as it was), duplicates that came due
	 * and were not fetched (saved), those fetched to audit them, and
	 * those that had diverged from their representative. */
	struct crawl_recrawl_stats {
		uint64_t revisited, unchanged, not_modified, changed, gone,
			failed;
		uint64_t saved, audited, diverged;
	} re;
	double seconds;
	bool interrupted; /* stopped by a signal */
	/* Set by crawl_run() at the end: the transfers allowed at once (a
	 * fixed concurrency, or auto's ceiling within the descriptors) and
	 * the most there were at once. */
	unsigned transfers_max, in_flight_peak;
	/* Unreachable hosts: held now, and given up (crawl only). */
	uint32_t hosts_held, hosts_given_up;
	/* Set by crawl_run() in its result only (NULL elsewhere): every
	 * host held or given up at the end, in the order they first
	 * failed; malloc'ed, the caller frees it.  NULL when there were
	 * none or no memory for the list. */
	struct crawl_host *hosts;
	size_t n_hosts;
	/* Set by crawl_run() in its result only, when the crawl ran out of
	 * URLs (not stopped by a signal, max_pages or an error; never under
	 * serve): the hosts of this run's seeds that gave no page, in the
	 * order their seeds were first fetched; malloc'ed, the caller frees
	 * it (NULL: none, or no memory for the list).  n_lost counts them
	 * all; the list holds the first CRAWL_HOSTS_LISTED. */
	struct crawl_lost *lost;
	size_t n_lost;
};

/* A seed's host that gave no page: no fetch of its URLs answered 2xx,
 * nor did one of a host its redirects led to (a whole site lost to
 * redirect loops, errors or robots.txt). */
struct crawl_lost {
	char name[CRAWL_HOST_NAME_MAX + 1]; /* as the seed wrote it */
	uint32_t requests;                  /* fetches of its URLs */
	/* The commonest error of its records (enum store_error; robots.txt
	 * refusals included), 0 when none had one. */
	int reason;
	/* The first other host a redirect of it named ("": none). */
	char to[CRAWL_HOST_NAME_MAX + 1];
};

/* Run a crawl until the frontier is empty, max_pages fetches have started,
 * or SIGINT/SIGTERM.  Progress goes to stderr (a live line on a terminal,
 * else a line every few seconds) unless quiet.  Returns 0, or an sc_err
 * code with a message already printed on stderr. */
int crawl_run(const struct crawl_opts *o, struct crawl_summary *ret);

/* ---------------------------------------------------------------------
 * The daemon's side: long-running mode
 *
 * With o->daemon set, crawl_run() never ends on its own: when the frontier
 * is dry (or max_pages fetches have started) the loop waits for events
 * (the control socket, the writer's wakeup after new seeds) without
 * polling.  It ends on SIGINT/SIGTERM, crawl_stop() or a fatal error.
 * Every hook and every function below runs on the loop's thread. */

struct crawl_daemon {
	/* The store is open and the loop is about to run: set up the
	 * control socket on crawl_base(c).  A non-zero sc_err ends the
	 * crawl with that code (the hook printed why). */
	int (*start)(struct crawl *c, void *arg);
	/* The one-second housekeeping tick (the engine's one periodic
	 * timer; crawl_ticks() counts them, for work of longer periods). */
	void (*tick)(struct crawl *c, void *arg);
	/* A signal or crawl_stop() began the shutdown. */
	void (*stopping)(struct crawl *c, void *arg);
	/* The loop is over, the writer has committed and stopped: release
	 * what start() made on the event base, which is freed next. */
	void (*finish)(struct crawl *c, void *arg);
	void *arg;
};

/* The loop's event base (borrowed, valid during crawl_run()). */
struct event_base *crawl_base(struct crawl *c);

/* Begin the clean shutdown, as SIGTERM does. */
void crawl_stop(struct crawl *c);

/* Paused: no new fetch starts; transfers in flight finish and are
 * committed.  Resuming starts fetching at once. */
void crawl_pause(struct crawl *c, bool paused);

/* Fetch latency histogram bounds, in seconds (Prometheus "le"). */
#define CRAWL_LATENCY_BUCKETS 12
static const double crawl_latency_le[CRAWL_LATENCY_BUCKETS] = {
	0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
};

enum crawl_state {
	CRAWL_RUNNING,
	CRAWL_PAUSED,
	CRAWL_IDLE,
	CRAWL_STOPPING,
	/* No space for the writer (a full disk, or the store at [store]
	 * max_size): nothing is fetched until space returns (diskfull.c). */
	CRAWL_DISK_FULL,
};

/* A full disk, as crawl_status() says it: the file the writer could not
 * write, the reason in words ("No space left on device", or the
 * ceiling), since when (Unix ms), whether it is the store's ceiling
 * (then only a restart with a larger [store] max_size helps), and how many
 * such episodes this process has had. */
struct crawl_full_status {
	bool on;
	bool ceiling;
	char path[4096];
	char error[256];
	uint64_t since_ms;
	uint64_t episodes;
};

/* A host the crawl holds back on purpose rather than for a failure
 * (crawl_status() with detail). */
enum crawl_wait {
	CRAWL_WAIT_RETRY_AFTER, /* it answered 429 or 503 with Retry-After */
	CRAWL_WAIT_ROBOTS,      /* its robots.txt is being fetched */
};

struct crawl_waiting {
	char name[CRAWL_HOST_NAME_MAX + 1];
	int reason; /* enum crawl_wait */
	/* retry_after: such answers in a row; robots: URLs waiting for it */
	unsigned count;
	/* retry_after: seconds until the hold ends, rounded up */
	unsigned seconds_left;
};

/* Categories that crawl_status() describes (the first ones). */
#define CRAWL_CATEGORIES_LISTED 64

/* A category's figures, every run of the store counted (its focus
 * counters, store.h). */
struct crawl_category_status {
	char name[STORE_CATEGORY_NAME_MAX + 1];
	unsigned keywords; /* how many the running config gives it */
	uint64_t pruned_scope, pruned_relevance, pruned_predicted, also;
	uint64_t looks; /* roots of hosts not met looked at (focus) */
	/* Since the start: pages first fetched with a 2xx answer, those
	 * with a relevance, and those of them at or above the category's
	 * min_relevance (the harvest rate's terms, SPEC §6). */
	uint64_t pages, scored, on_topic;
	/* The running config's min_relevance: at 0 every scored page is on
	 * topic, and /status gives no harvest. */
	double min_relevance;
	/* The harvest floor (docs/focus.md "Harvest floor"; has_floor
	 * with keywords): min_harvest, the running harvest it keeps (pages
	 * scored and on topic over every run of the store), and the pages
	 * fetched by exploring and those on topic. */
	bool has_floor;
	double min_harvest;
	uint64_t floor_scored, floor_on, explored, explored_on;
};

struct crawl_status {
	enum crawl_state state;
	struct crawl_full_status full; /* state CRAWL_DISK_FULL's detail */
	struct crawl_summary sum;      /* .seconds: uptime */
	/* A cluster's shard (crawl_opts.cluster): shards 0 on one machine. */
	uint32_t shard, shards;
	uint64_t queued; /* URLs in the queue (committed) */
	uint64_t seen;   /* URLs ever queued */
	uint32_t hosts;
	unsigned in_flight; /* transfers, robots.txt included */
	/* The transfers allowed at once now (a fixed concurrency, or auto's
	 * ceiling within the descriptors: concurrency 0), and the most
	 * there were at once since the start. */
	unsigned concurrency, transfers_max, in_flight_peak;
	uint64_t started; /* page fetches started by this process */
	/* Pages per second: CRAWL_RATE_WINDOW_S seconds' worth at most, as
	 * the progress line shows it (crawl_rate()). */
	double rate;
	/* Page transfers by duration: count[i] took at most
	 * crawl_latency_le[i] seconds (not cumulative); [last]: slower. */
	uint64_t latency_count[CRAWL_LATENCY_BUCKETS + 1];
	double latency_sum; /* seconds */
	/* The first CRAWL_HOSTS_LISTED hosts held (sum.hosts_held counts
	 * them all), in the order they first failed. */
	struct crawl_host held[CRAWL_HOSTS_LISTED];
	size_t n_held_listed;
	/* Adaptive normalization (all 0 under a fixed profile): the learned
	 * rules' counts (learn.h). */
	bool adaptive;
	struct crawl_rule_stats rules;
	/* Re-crawls: whether this run revisits, the pages scheduled for a
	 * visit (committed), those due now (at least; counted up to
	 * CRAWL_DUE_COUNT_MAX) and the revisits queued, not yet done. */
	bool recrawl;
	uint64_t scheduled, due, revisits_queued;
	/* The rest is filled only with detail (it reads the store and walks
	 * every host: O(hosts), for /status rather than every tick). */
	bool detail;
	/* The store, every run counted: the URL records (fetched or not:
	 * errors and refusals too), and the fetches committed (the count the
	 * per-host page budget keeps). */
	uint64_t store_records, store_fetches;
	/* Hosts held back on purpose (unreachable ones are in held): after
	 * Retry-After, and waiting for their robots.txt; the first
	 * CRAWL_HOSTS_LISTED of them, by host id. */
	uint32_t hosts_retry_after, hosts_robots;
	/* Hosts with a fetch under way, and hosts with URLs ready whose
	 * politeness delay has not run out (per_host_delay_ms). */
	uint32_t hosts_active, hosts_delayed;
	struct crawl_waiting waiting[CRAWL_HOSTS_LISTED];
	size_t n_waiting_listed;
	/* The running config's categories, the first CRAWL_CATEGORIES_LISTED
	 * of n_categories. */
	size_t n_categories;
	struct crawl_category_status cats[CRAWL_CATEGORIES_LISTED];
	size_t n_cats_listed;
};

#define CRAWL_DUE_COUNT_MAX 100000

/* The crawl's state and counters now, on the loop's thread.  detail: also
 * the store's figures, the hosts held back on purpose and the categories'
 * figures, which cost a read transaction and a walk over every host; the
 * one-second tick does without. */
void crawl_status(struct crawl *c, bool detail, struct crawl_status *ret);

/* What the scheduler keeps for the hosts it leases from, apart from the
 * frontier's state (frontier_mem()): its slot array (robots.txt rules'
 * state, back-off, page budget, parked leases) as it grows to hold host
 * ids below n, one slot's size, and the record of a robots.txt URL of
 * url_len bytes once asked for (its entry, the owner's URL, and its
 * share of the table's buckets at n entries).  bench/hosts.c. */
struct crawl_host_mem {
	size_t slot, slots, robots_req;
};

void crawl_host_mem(uint32_t n, size_t url_len, struct crawl_host_mem *ret);

/* The one definition of "pages per second" while a crawl runs, for the
 * progress line, /status and the daemon's systemd status: the pages
 * committed in the last CRAWL_RATE_WINDOW_S seconds, divided by them (by
 * the time since the start during the first ones).  The summary's
 * "pages/s" is the whole run's average instead. */
#define CRAWL_RATE_WINDOW_S 10
double crawl_rate(struct crawl *c);

/* The rate over the last hour, for the dashboard: one figure a
 * CRAWL_HISTORY_STEP_S seconds, the pages committed in that step divided
 * by its length, oldest first, the last ending at the latest such
 * boundary.  out holds max figures; returns how many were written (fewer
 * during the first hour: the steps since the start).  Kept in a ring of
 * fixed size by the one-second tick, so it costs nothing per page. */
#define CRAWL_HISTORY_STEP_S 10
#define CRAWL_HISTORY_STEPS 360
size_t crawl_rate_history(const struct crawl *c, double *out, size_t max);

/* Every learned rule of the store's adaptive profile (learn.h's
 * adapt_list()) in one read transaction, on the loop's thread: fn is
 * called for each; a non-zero return stops the walk and is returned.
 * Returns 0, that value, or SC_E_DB; 0 with no call under a fixed
 * profile. */
SC_WUR int crawl_rules(struct crawl *c,
		       int (*fn)(void *arg, const struct adapt_rule_info *r),
		       void *arg);

/* Ticks of the one-second timer since the crawl started (1 in the first
 * tick hook).  Work of a longer period runs when crawl_ticks() is a
 * multiple of it, as Redis's serverCron does with run_with_period. */
uint64_t crawl_ticks(const struct crawl *c);

/* One absolute URL as the crawl takes it from outside a page: a seed
 * (a seed file, the control socket), a robots.txt Sitemap line or a
 * sitemap's <loc> (p, len: the URL, white space around it allowed): url
 * (NORM_URL_MAX + 1
 * bytes) gets its key under norm and u its components; found (as many
 * bytes) the URL as written, made absolute (norm_as_found, the export's
 * `url`), and fu its components.  Returns 0, or why it is no seed:
 * SC_E_LIMIT (longer than NORM_INPUT_MAX), SC_E_INVAL (a NUL byte), or
 * norm_url()'s error (SC_E_NOMEM among them). */
SC_WUR int crawl_seed_url(const struct norm_opts *norm, const char *p,
			  size_t len, char *url, struct norm_url *u,
			  char *found, struct norm_url *fu);

/* Passwords in URLs (crawler/engine/creds.c): norm_url() masks them; with
 * `[crawl] url_credentials = use` the crawl's norm_opts report them to
 * crawl_creds_note() (its on_password; any thread), which keeps them in
 * memory for the process.  crawl_creds_wire() writes the URL libcurl is
 * to fetch: with use and a known password, the password put back in
 * place of "***"; with use and a user alone, the URL as it is; otherwise
 * the URL without its userinfo.  out holds cap bytes; returns 0 or
 * SC_E_NOSPC.  crawl_creds_wipe() clears and frees the table. */
void crawl_creds_note(void *arg, const char *url, const struct norm_url *u,
		      const char *pw, size_t len);
SC_WUR int crawl_creds_wire(bool use, const char *url, char *out, size_t cap);
void crawl_creds_wipe(void);

/* Seeds submitted at run time.  The caller normalizes them
 * (crawl_seed_url(), as the seed files are) and
 * hands the batch over; the writer queues them in its next transaction
 * and sets added[i] (1 queued, 0 already known); then done() is called
 * on the loop's thread with rc 0, or an sc_err if the commit failed or
 * the crawl ended first.  The batch is the caller's: the crawl borrows it
 * until done(). */
struct crawl_seeds {
	uint16_t category; /* index into o->categories */
	size_t n;
	const char **url, **found;
	const struct norm_url *u, *found_u;
	/* Hops from their seed (links of another shard), or NULL: 0. */
	const uint16_t *depth;
	/* They came from another shard of the cluster: never sent on. */
	bool remote;
	int8_t *added;
	void (*done)(struct crawl_seeds *s, int rc, void *arg);
	void *arg;
};

/* Returns 0 (done() will be called), or SC_E_NOMEM / SC_E_AGAIN
 * (stopping) without calling it. */
SC_WUR int crawl_add_seeds(struct crawl *c, struct crawl_seeds *s);

/* Apply a reloaded config.  o must live until crawl_run() returns (the
 * threads may still read the old one for a moment, so the caller keeps
 * every version until then).  What changes live: the limits (max_pages,
 * max_depth, concurrency, timeout_s, max_body_bytes, max_pages_per_host,
 * host_retries, host_backoff_ms), politeness
 * (per_host_connections, per_host_delay_ms, obey_robots, user_agent,
 * connect_to) and the categories, which o must list with the old ones
 * first, at their old indexes.  Everything else is the caller's to keep
 * equal (store_dir, profile and norm, signature, near_k,
 * follow_duplicate_links, warc).  Then each category's seeds file is read
 * again, through the writer; seeds seen before are not queued again.  Returns 0
 * or SC_E_NOMEM. */
SC_WUR int crawl_reload(struct crawl *c, const struct crawl_opts *o);

/* ---- setup (setup.c) ---------------------------------------------------
 *
 * The options shared by `crawl` and `serve`: the config file,
 * the command-line overrides on top of it, and the crawl_opts built from
 * the result.  `serve` builds a new setup from the same arguments on
 * SIGHUP, so a reload means "the file as it is now, with the same
 * overrides". */

struct setup {
	const char *cmd; /* "crawl" or "serve", for messages */
	int argc;        /* the subcommand's arguments, kept for reloads */
	char **argv;
	const char *config; /* -c FILE, or NULL */
	const char *seeds, *category;
	bool quiet, verbose;
	bool check_config; /* --check-config: setup_load(), then exit */
	bool recrawl;      /* crawl --recrawl */
	/* After setup_load(): */
	struct conf *cf;
	struct crawl_category *cats;
	struct crawl_opts o;
	char ua[64];
};

/* The first pass over the arguments: -c, --help (usage() is called with
 * stdout, and *exit_code set to 0) and the options that are not config
 * overrides.  Options of the other command are refused, and so is `serve
 * --seeds -` (standard input).  Returns 0 to go on, or 1 with *exit_code
 * set (0 or EXIT_USAGE, message printed). */
int setup_args(struct setup *s, const char *cmd, int argc, char **argv,
	       void (*usage)(FILE *), int *exit_code);

/* Read the config (or the defaults), apply the overrides, check that the
 * seed lists can be read (conf_check_seeds(): what --check-config checks
 * is what the run needs) and build s->o.  Returns 0, or SC_E_INVAL (bad
 * config, option or seed list: err holds the message, FILE:LINE for the
 * file), SC_E_IO or SC_E_NOMEM. */
SC_WUR int setup_load(struct setup *s, char *err, size_t errlen);

/* Free what setup_load() made.  Accepts a setup that was never loaded. */
void setup_free(struct setup *s);

/* The usage lines of the shared options, for the commands' --help. */
void setup_usage_options(FILE *f);

/* A crawl category from a [category] section (its strings stay the
 * config's). */
void category_from_conf(struct crawl_category *c,
			const struct conf_category *cc);

#endif
