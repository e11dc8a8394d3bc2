/* crawl-int.h — the crawl engine's private header: struct crawl, the job
 * a leased URL travels in, and the functions the engine's files share.
 * Only the files of crawler/engine/ include it (tests/check-layout.sh checks);
 * crawl.h is the public side.  ARCHITECTURE.md follows a URL through the
 * files. */
#ifndef CRAWL_INT_H
#define CRAWL_INT_H

#include "crawl.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "frontier.h"
#include "learn.h"
#include "log.h"
#include "parse.h"
#include "search.h"
#include "store.h"
#include "warc.h"

/* Jobs the writer takes into one transaction at most. */
#define WRITE_BATCH 512
/* The links of a batch's pages after which it takes no more (writer.c):
 * a bound on a transaction's dirty pages, which LMDB keeps as heap.  At
 * 100 new links a page, about 330 pages a commit (docs/bench.md:
 * 8192 cost 13 % more CPU a page on the frontier web,
 * 32768 nothing measurable). */
#define WRITE_BATCH_LINKS 32768
/* How long the writer waits for more jobs before it commits. */
#define WRITE_LINGER_MS 20
/* A robots.txt is trusted this long (RFC 9309 §2.4: up to 24 hours). */
#define ROBOTS_TTL_MS (24ull * 3600 * 1000)
/* 429/503: a page is tried again at most this often, and a host's pages
 * at most this often in a row. */
#define BACKOFF_MAX 3
/* The pages of one host whose tries are counted (the oldest forgotten). */
#define BACKOFF_URLS 8
#define BACKOFF_CAP_MS (5 * 60 * 1000)

static inline uint64_t mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* The offset of the crawl's clock from the system's, in ms: 0, unless a
 * test drives it (recrawl.c, SIGCRAWL_TEST_CLOCK). */
extern _Atomic int64_t crawl_clock_offset_ms;

/* Unix time in ms, by the crawl's clock: fetch times, robots.txt
 * expiry, the re-crawl schedule. */
static inline uint64_t wall_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000 +
	       (uint64_t)crawl_clock_offset_ms;
}

struct link {
	uint32_t off;       /* of the normalized URL, in job.link_text */
	uint32_t found_off; /* of the URL as found, likewise */
	uint16_t found_len;
	/* From a sitemap: its lastmod as an HTTP date, in job.link_text
	 * (lastmod_len 0: none), its changefreq (enum parse_changefreq),
	 * and whether it names a sitemap (of an index). */
	uint32_t lastmod_off;
	uint8_t lastmod_len;
	uint8_t changefreq;
	bool sitemap;
	uint8_t hits; /* parse_link.hits: keywords the link itself shows */
	uint16_t anchor_len; /* parse_link.anchor, in job.link_text */
	uint32_t anchor_off;
	int64_t lastmod_ms;
	struct norm_url u;
};

enum dup_kind { DUP_EXACT = 1, DUP_NEAR = 2 };

enum job_kind {
	JOB_PAGE,    /* a leased URL */
	JOB_ROBOTS,  /* a host's robots.txt: looked up, fetched, parsed, kept */
	JOB_SEEDS,   /* seeds submitted at run time (crawl_add_seeds()) */
	JOB_RELOAD,  /* the seed files read again after crawl_reload() */
	JOB_DUE,     /* re-crawls: queue the pages that are due (recrawl.c) */
	JOB_RESERVE, /* focus: samples of the links it holds (learn.h) */
};

/* What a revisit found (recrawl.c), set by the writer. */
enum visit_outcome {
	VISIT_NONE,      /* not a revisit */
	VISIT_UNCHANGED, /* same body-text signature, or a 304 */
	VISIT_CHANGED,
	VISIT_GONE,   /* 404 or 410 */
	VISIT_FAILED, /* nothing learned: the record is kept */
};

/* The size of each of a robots.txt job's three URLs (robots_url,
 * robots_next, robots_from): one block that job_new(JOB_ROBOTS)
 * allocates, so that a page's job does not carry 6 KB it never uses
 * (512 jobs in the pipeline at 256 connections: 3 MB). */
#define ROBOTS_URL_CAP (NORM_URL_MAX + 16)

/* A job: what one unit of work carries between the threads.  A tagged
 * union: a page fetch and a robots.txt fetch share the transfer's part,
 * and each has its own; a seeds job has neither.  job_new() zeroes the
 * whole job and sets up only the kind's own buffers (job_free() frees
 * only those), so a field of another kind must never be read: it is
 * zero or another kind's data, and a robots.txt URL of a page job a NULL
 * pointer. */
struct job {
	struct job *next;
	uint8_t kind; /* enum job_kind */
	union {
		/* JOB_SEEDS: the caller's batch; JOB_SEEDS, JOB_RELOAD and
		 * JOB_DUE: the writer's result (an sc_err), and the seeds
		 * queued. */
		struct {
			struct crawl_seeds *seeds;
			int seeds_rc;
			int seeds_added;
			/* From the cluster, and another shard's. */
			uint64_t seeds_misrouted;
			/* JOB_DUE: what the writer did (recrawl_move()):
			 * revisits queued, duplicates due and not queued
			 * (saved) or queued to audit them, whether more are
			 * due than were queued, the pages due now (when
			 * counted) and scheduled. */
			uint64_t due_moved, due_saved, due_audited;
			bool due_more, due_counted;
			uint64_t due_overdue, due_scheduled;
		};
		/* JOB_PAGE and JOB_ROBOTS: a fetch. */
		struct {
			struct frontier_lease lease; /* JOB_ROBOTS: host_id
							and url only */
			struct norm_url lease_u;
			/* JOB_PAGE: the URL fetched when it is not the
			 * lease's key (malloc'd; NULL: the key itself).  The
			 * profile's steps beyond strict, and the learned
			 * rules, decide the key a URL is queued and recorded
			 * under; what is requested, what relative links
			 * resolve against and what the rules learn from is
			 * always a URL that was found (a link, a seed, a
			 * Location, a sitemap's entry), strict-normalized
			 * (job_url(), fetch_norm()). */
			char *src;
			struct norm_url src_u;
			bool fetched; /* a request was made */
			long status;
			int error; /* enum store_error */
			bool truncated;
			uint64_t fetched_at;
			char content_type[128];
			/* The body as received, capped at the fetch's
			 * limit (fetch.c's write_cb). */
			struct sc_dynbuf body;
			/* Its length, kept after the body is freed (a page
			 * not written to WARC files loses it once parsed). */
			size_t bytes;
			/* For the WARC files ([store] warc): the URL
			 * requested, the request and response header
			 * blocks as sent and received, the peer. */
			char *fetch_url;
			char *req_head;
			size_t req_len;
			struct sc_dynbuf resp_head; /* < WARC_HEAD_MAX */
			bool head_overflow;
			char ip[48];
			union {
				/* JOB_ROBOTS: the robots.txt URL, when its
				 * fetch started, the rules once known and
				 * until when they hold (unix ms). */
				struct {
					char *robots_url; /* ROBOTS_URL_CAP */
					uint64_t robots_started_ms;
					struct parse_robots *rules;
					int64_t robots_expires;
					bool robots_cached; /* from the store */
					/* Redirects are followed by the loop,
					 * one request at a time
					 * (robots-gate.c): the URL asked next
					 * (empty: robots_url) and the redirects
					 * followed; the URL whose kept answer a
					 * parser looks up (empty: robots_url),
					 * when another host's job has asked for
					 * this one's; whether to ask for it
					 * without waiting for another host
					 * (that answer was not kept); and when
					 * this job last sent a request to its
					 * own host (mono_ms()). */
					char *robots_next; /* ROBOTS_URL_CAP */
					uint8_t robots_hops;
					char *robots_from; /* ROBOTS_URL_CAP */
					bool robots_take;
					uint64_t robots_own_ms;
				};
				/* JOB_PAGE. */
				struct {
					/* The Location header, absolute as curl
					 * resolved it (malloc'd; NULL: none).
					 */
					char *location;
					/* From the parser. */
					char title[PARSE_TITLE_MAX + 1];
					bool has_sig, has_simhash, text_empty;
					/* simhash was computed for the
					 * learned rules alone. */
					bool rules_simhash;
					/* A cluster's claim of sig, made
					 * before the batch's writes: 0 none,
					 * 1 this page holds it (or the
					 * cluster could not be asked), 2
					 * dup_of holds it. */
					uint8_t cluster_claim;
					/* the [dedup] signature of the body
					 * text */
					unsigned char sig[16];
					uint64_t simhash;
					uint64_t media; /* parse_page.media */
					bool has_relevance;
					double relevance;
					/* What the focus takes it at
					 * (focus_nav_relevance()). */
					double focus_relevance;
					/* It was a sample of the pruned
					 * (focus_learn()): off topic, its
					 * links are not followed. */
					bool focus_sample;
					/* From the writer: the representative
					 * it duplicates, if any. */
					char dup_of[NORM_URL_MAX + 1];
					uint8_t dup; /* 0, DUP_EXACT, DUP_NEAR
						      */
					/* Not fetched: a learned rule maps it
					 * onto a key the frontier knows
					 * (dup_of holds that key). */
					bool held;
					/* Not fetched: a learned rule maps it
					 * onto a key of another host (dup_of),
					 * under which it is queued again
					 * (sched.c). */
					bool rehome;
					/* The page's words (a set of
					 * FOCUS_WORDS_CAP slots, see
					 * parse_doc_opts.words), for the link
					 * prediction to learn; NULL: none. */
					uint64_t *words;
					/* Not fetched: its prediction fell
					 * under predict_min while it waited
					 * (focus_lease_keep()). */
					bool pruned;
					/* The host's lease is released by the
					 * writer after the commit (fetch.c). */
					bool release_at_commit;
					/* Adaptive: the page's rel=canonical
					 * when it names another URL (malloc'd;
					 * NULL: none), a hint for the learned
					 * rules. */
					char *canonical;
					/* The validators received, for the
					 * next conditional request (empty:
					 * none). */
					char etag[FRONTIER_ETAG_MAX + 1];
					char last_modified
						[FRONTIER_LAST_MODIFIED_MAX +
						 1];
					/* Revisits: what the writer found
					 * (enum visit_outcome). */
					uint8_t visit;
					/* An audited duplicate that is no
					 * longer one of its representative. */
					bool diverged;
					bool has_redirect;
					/* A 3xx's Location, normalized
					 * (malloc'd, NORM_URL_MAX + 1 bytes:
					 * most jobs have none; NULL
					 * unless has_redirect). */
					char *redirect;
					struct norm_url redirect_u;
					/* The target as the Location header
					 * wrote it, made absolute (malloc'd);
					 * NULL if that form does not fit (then
					 * the record keeps redirect). */
					char *redirect_found;
					/* With search_index: the body text
					 * (PARSE_TEXT), NULL when the page was
					 * not parsed, and whether it said
					 * noindex. */
					char *page_text;
					size_t page_text_len;
					bool noindex;
					/* What the page said of itself: its
					 * X-Robots-Tag header (PARSE_ROBOTS_*
					 * bits, fetch.c), and with its
					 * <meta name=robots> (parsers.c), for
					 * the record and the learned skips. */
					uint8_t robots_header;
					bool robots_noindex, robots_nofollow;
					/* Not fetched: its URL shape's pages
					 * all said noindex and nofollow
					 * (adapt_skip_lease()). */
					bool skipped;
					struct link *links;
					size_t n_links, cap_links;
					/* Each kept link's normalized URL and
					 * URL as found, NUL-terminated. */
					struct sc_dynbuf link_text;
					unsigned links_bad;
				};
			};
		};
	};
};

/* The steps a URL as found is normalized with to be fetched: the strict
 * ones the crawl's steps include, never those beyond strict, which may
 * name another resource on a server that does not ignore them (a
 * lower-cased path, an added slash): a profile that fetched its own keys
 * could redirect itself in a loop.  The crawl's tracking list and
 * password hook come along. */
static inline struct norm_opts fetch_norm(const struct crawl_opts *o)
{
	struct norm_opts fo = o->norm;
	fo.steps &= norm_profile_steps(NORM_PROFILE_STRICT);
	return fo;
}

/* The URL a page job fetches: its source, or its lease's key. */
static inline const char *job_url(const struct job *j)
{
	return j->src ? j->src : j->lease.url;
}

static inline size_t job_url_len(const struct job *j)
{
	return j->src ? j->src_u.len : j->lease.url_len;
}

static inline const struct norm_url *job_url_u(const struct job *j)
{
	return j->src ? &j->src_u : &j->lease_u;
}

/* A queue of jobs between threads. */
struct jobq {
	struct job *head, *tail;
	size_t n;
};

static inline void jobq_push(struct jobq *q, struct job *j)
{
	j->next = NULL;
	if (q->tail)
		q->tail->next = j;
	else
		q->head = j;
	q->tail = j;
	q->n++;
}

static inline struct job *jobq_pop(struct jobq *q)
{
	struct job *j = q->head;
	if (j) {
		q->head = j->next;
		if (!q->head)
			q->tail = NULL;
		q->n--;
	}
	return j;
}

enum robots_state { R_NONE, R_FETCHING, R_READY };
struct robots_req;

/* A host that could not be reached (crawl.h): only such hosts have one,
 * listed in the order they first failed. */
struct trouble {
	struct trouble *prev, *next;
	uint32_t host_id;
	uint64_t failed_ms; /* when the last failure was counted */
	uint64_t retry_ms;  /* held until then */
	struct crawl_host h;
};

/* A page that answered 429 or 503 with Retry-After: a hash of its URL,
 * and how often it was tried again. */
struct backoff_url {
	uint64_t key;
	uint8_t n;
};

/* The loop's state of one host, by host id (the words before the bytes:
 * 112 bytes, not 120, for every host a crawl leases from). */
struct robots_slot {
	uint64_t backoff_until_ms; /* by mono_ms(): the last backoff's end */
	/* Its pages tried again (BACKOFF_URLS, made at the host's first
	 * backoff); retried_next is the next one to give way. */
	struct backoff_url *retried;
	struct parse_robots *rules;
	uint64_t expires_ms;     /* unix ms, by wall_ms() */
	struct jobq parked;      /* leases waiting for the rules */
	struct trouble *trouble; /* NULL while the host answers */
	/* The robots.txt jobs of other hosts whose redirects lead to a
	 * URL this host's job has asked for, waiting for its answer; and
	 * the host this one's job waits for so (0: none). */
	struct jobq waiting;
	uint32_t waiting_on;
	/* The page budget: fetches committed in earlier runs (read from
	 * the frontier at the host's first lease) plus those started by
	 * this one and not given back; and whether the frontier drains the
	 * host because it is spent. */
	uint64_t budget_used;
	bool budget_known, drained;
	uint8_t state;
	uint8_t backoffs; /* 429/503 in a row */
	uint8_t retried_next;
	/* Of parked, those there when the robots.txt answered: they wait
	 * for a parser and the writer, not for the network
	 * (crawl.parked_answered). */
	uint16_t parked_answered;
};

_Static_assert(sizeof(struct robots_slot) <= 112, "a host's slot is 112 bytes");

struct xfer {
	struct xfer *prev, *next; /* the crawl's transfers in flight */
	CURL *easy;
	struct crawl *c;
	struct job *job; /* a page or a robots.txt */
	uint64_t started_ms;
	size_t limit;
	bool truncated;
	/* Its host wants no connection within IDLE_WINDOW_MS after it
	 * (frontier_host_due()): libcurl closes the connection when the
	 * transfer is done instead of keeping it idle. */
	bool last;
	bool robots; /* a robots.txt request (crawl.robots_running) */
	struct curl_slist *headers; /* a revisit's conditional request */
	char errbuf[CURL_ERROR_SIZE];
	/* Under connect_to, the name resolution and the port change that
	 * route_set() gives libcurl instead of the whole list: lists of
	 * one entry each, in place (libcurl reads them until the transfer
	 * is removed, and frees nothing). */
	struct curl_slist route_list[2];
	char route_resolve[FRONTIER_HOST_MAX + 32];
	char route_to[FRONTIER_HOST_MAX + 16];
};

/* libcurl 7.88 walks its whole connection cache at the end of every
 * transfer that leaves its connection there: curl_multi_remove_handle()
 * looks for that connection, from the first of the cache, to close it if
 * it was a connect-only one.  With an idle connection kept for each of
 * thousands of hosts (fdbudget.c), that walk took a fifth of the crawl's
 * CPU on 5,000 hosts (docs/bench.md).  So the cache is split in
 * CONN_SHARES share handles that share connections, and each transfer
 * uses its host's: the walk is over a CONN_SHARES-th of the connections,
 * and a host's connections are all in one cache, so reuse is as before. */
#define CONN_SHARES 32

/* A host's connection is kept idle after a page only when the host is due
 * again within this long (frontier_host_due()): a host with nothing more
 * queued, or held back longer (a Crawl-delay, a back-off), has it closed
 * at once instead of holding some 3 KB of libcurl's heap and a descriptor
 * until the cache pushes it out.  5 s is the shortest keep-alive timeout
 * of the common servers (Apache's default), past which the server is
 * likely to have closed it anyway. */
#define IDLE_WINDOW_MS 5000

struct crawl {
	int lock_fd; /* STORE/crawl.lock, held while the crawl runs */
	/* Atomic: crawl_reload() swaps it on the loop while the parsers and
	 * the writer read it; every version lives until the end. */
	const struct crawl_opts *_Atomic o;
	struct event_base *base;
	CURLM *multi;
	struct event *curl_timer, *sched_timer, *tick, *wakeup;
	struct event *sigint, *sigterm;
	struct curl_slist *connect_to;
	/* [crawl] header lines, for every fetch (NULL: none), and the share
	 * handle that keeps the crawl's cookies ([crawl] cookie_jar), with
	 * whether the jar's file was loaded into it yet. */
	struct curl_slist *headers;
	CURLSH *share;
	bool jar_loaded;
	/* libcurl's idle connections, in CONN_SHARES caches, each host's in
	 * the one its name hashes to (fetch.c, conn_cache_for()); all NULL
	 * with a cookie jar, when the multi handle keeps one cache. */
	CURLSH *conn_share[CONN_SHARES];
	MDB_env *env;
	struct store *store;
	struct frontier *fr;
	struct warc_writer *warc;    /* the writer thread's, or NULL */
	struct search_index *search; /* the writer thread's, or NULL */
	struct focus *focus;
	/* focus_learning() as the frontier was last told it (the
	 * writer's; false at the start, when nothing was learned). */
	bool learning;
	/* focus_lead() as the writer last computed it (under mu; 0: no
	 * bound): sched_fill() starts no fetch while as many pages are
	 * fetched or being fetched and not yet written. */
	uint32_t lead;
	struct adapt *adapt; /* profile adaptive only, else NULL */

	struct robots_slot *robots;
	size_t n_robots;
	/* The robots.txt URLs this run has asked for, with the host whose
	 * job asked (robots-gate.c): a hash table, on the loop. */
	struct robots_req **robots_reqs;
	size_t robots_reqs_cap, robots_reqs_n;
	struct trouble *troubles, *troubles_tail; /* unreachable hosts */
	uint32_t hosts_held, hosts_given_up;

	unsigned running;      /* transfers in flight, pages and robots.txt */
	unsigned peak_running; /* the most at once, since the start */
	struct xfer *xfers;    /* the same, listed */
	unsigned parked;       /* leases waiting for a robots.txt */
	/* Of those, the ones whose robots.txt has answered and is being
	 * read and kept: no transfer slot, but the pipeline's bound. */
	unsigned parked_answered;
	unsigned robots_running; /* robots.txt requests in flight */
	uint64_t started;        /* page fetches started */
	uint64_t in_pipeline;    /* jobs not yet committed (under mu) */
	/* Batches the writer committed (under mu).  A commit can queue
	 * URLs that the loop has not yet been woken to see: frontier_dry
	 * holds only while no commit came after the frontier_next() that
	 * set it (dry_commits). */
	uint64_t commits, dry_commits;
	bool frontier_dry;  /* the last frontier_next() had nothing at all */
	unsigned seed_jobs; /* seed and reload jobs not yet back */
	bool stopping;
	bool done; /* sched_check_done() ended the loop (or would have) */
	uint64_t t0;

	pthread_mutex_t mu;
	/* Per category index (the first CRAWL_CATEGORIES_LISTED), under
	 * mu: struct crawl_category_status's counters since the start. */
	struct {
		uint64_t pages, scored, on_topic;
	} cat_since[CRAWL_CATEGORIES_LISTED];
	pthread_cond_t parse_cv, write_cv;
	struct jobq to_parse, to_write;
	struct jobq to_loop; /* robots.txt jobs coming back to the loop */
	bool quit_parsers, quit_writer;
	/* The writer waits out its linger for a fuller batch (writer.c):
	 * a job handed over wakes it only when the batch is full enough
	 * (writer_wake()). */
	bool writer_lingers;
	pthread_t *parsers;
	unsigned n_parsers;
	pthread_t writer;
	bool writer_started;
	int fatal; /* an error that ends the crawl (under mu) */
	/* A full disk (diskfull.c), under mu: set by the writer, retry set
	 * by the loop's tick when space may be back. */
	struct crawl_full {
		bool on, retry;
		int err; /* ENOSPC, EDQUOT; 0: the store's ceiling */
		char path[4096];
		uint64_t since_ms, free_at, tick_at, episodes;
	} full;
	/* Transfers at once and libcurl's idle connections: concurrency (or
	 * auto's ceiling) and IDLE_PER_SLOT times it, unless the descriptors
	 * allow fewer (fdbudget.c).  pipeline_cap bounds transfers and
	 * bodies not yet committed together (sched_fill()): twice a fixed
	 * concurrency, or auto's transfers and AUTO_PIPELINE bodies. */
	unsigned max_running;
	long max_cached;
	uint64_t pipeline_cap;
	/* The writer's own: which part of a batch's writes failed, and
	 * errno then (diskfull.c names the file). */
	int w_part; /* enum full_part */
	int w_errno;
	struct crawl_summary sum; /* under mu */
	/* The seeds' hosts and what they gave (lost-hosts.c): the
	 * writer's, NULL until its first page. */
	struct lost_hosts *lost;
	/* The one-second tick (progress.c): how many, and the pages
	 * committed at each of the last CRAWL_RATE_WINDOW_S ticks for
	 * crawl_rate(). */
	uint64_t ticks;
	uint64_t pages_ring[CRAWL_RATE_WINDOW_S];
	double rate;
	/* The last hour's rate for the dashboard (crawl_rate_history()):
	 * the pages committed at the end of each CRAWL_HISTORY_STEP_S
	 * seconds, the newest at hist_next - 1 (mod CRAWL_HISTORY_STEPS + 1,
	 * one more than the steps: n steps take n + 1 counts); hist_n
	 * counts held, up to that size. */
	uint64_t hist_pages[CRAWL_HISTORY_STEPS + 1];
	unsigned hist_next, hist_n;

	/* Re-crawls (recrawl.c).  On the loop: a JOB_DUE is with the
	 * writer; the pass has queued every page it revisits; the counts of
	 * the last JOB_DUE.  Under mu: revisits queued and not yet
	 * committed.  The writer's own: the pass and where its scan is. */
	bool due_outstanding;
	/* Focus's samples of what it pruned (learn.h), on the loop: a
	 * JOB_RESERVE is with the writer; the last one queued nothing, at
	 * this many commits (none is asked for again until the crawl
	 * commits more). */
	bool reserve_outstanding;
	bool reserve_spent;
	uint64_t reserve_commits;
	bool due_more; /* the last JOB_DUE left pages due unqueued */
	bool pass_scanned;
	uint64_t due_scheduled, due_overdue;
	uint64_t revisits_queued;
	uint32_t pass;
	bool due_cursor_set;
	struct frontier_due due_cursor;
	uint64_t due_runs;

	/* Long-running mode (o->daemon), all on the loop's thread. */
	bool paused;
	struct curl_slist **old_connect_to; /* lists of earlier configs */
	size_t n_old_connect_to;
	uint64_t latency_count[CRAWL_LATENCY_BUCKETS + 1];
	double latency_sum;
};

/* crawl.c */
struct job *job_new(enum job_kind kind);
void job_free(struct job *j);
SC_PRINTF(3, 4)
void crawl_say(const struct crawl *c, int level, const char *fmt, ...);
void crawl_die(struct crawl *c, int rc, const char *what);

/* sched.c */
void robots_url(const char *fetch, char *out, size_t cap);
void sched_fill(struct crawl *c);
void sched_check_done(struct crawl *c);
bool sched_idle(struct crawl *c);
void on_sched_timer(evutil_socket_t fd, short kind, void *arg);
void seeds_back(struct crawl *c, struct job *j);
/* A JOB_RESERVE came back from the writer (sched.c). */
void reserve_back(struct crawl *c, struct job *j);

/* writer.c: in a cluster, the shard of url's host (components u) when
 * it is another shard's, else -1. */
int64_t write_foreign(const struct crawl *c, const char *url,
		      const struct norm_url *u);

/* write-focus.c, the writer's (learn.h, focus's navigation pages and
 * samples of the pruned).  The relevance focus takes the fetched page of
 * j at (focus_nav_relevance()). */
double write_page_relevance(struct crawl *c, const struct job *j);
/* Link l of page j, which the prediction pruned (pl; off: the count it
 * would carry), or the lease of j, pruned at its lease: handed to focus
 * to hold (focus_reserve()). */
void write_hold_link(struct crawl *c, const struct job *j, const struct link *l,
		     uint8_t off, const struct focus_link *pl);
void write_hold_lease(struct crawl *c, const struct job *j);
/* The held links focus released (focus_release()), queued in txn;
 * *queued (if not NULL) gets how many were new.  Returns 0 or a
 * negative sc_err of the frontier. */
int write_released(struct crawl *c, MDB_txn *txn, int *queued);
/* A JOB_RESERVE: the crawl ran dry; focus's next samples
 * (focus_reconsider()) queued, their count in j->seeds_added. */
int write_reserve(struct crawl *c, MDB_txn *txn, struct job *j);
void on_wakeup(evutil_socket_t fd, short kind, void *arg);

/* robots-gate.c */
struct robots_slot *robots_slot(struct crawl *c, uint32_t host);
void robots_reqs_free(struct crawl *c);
bool host_failed(struct crawl *c, const struct job *j, uint64_t started_ms,
		 int reason, const char *detail);
void host_ok(struct crawl *c, uint32_t host);
bool host_unreachable(CURL *e, CURLcode cc);
bool host_skips(struct crawl *c, struct robots_slot *s, struct job *j);
void robots_done(struct crawl *c, struct xfer *x, CURLcode cc);
void robots_back(struct crawl *c, struct job *j);

/* fetch.c */
/* When x's request went out (CLOCK_MONOTONIC ms): its start, or later
 * when libcurl waited for a connection.  Call once it is done. */
uint64_t xfer_sent_ms(struct xfer *x);
int start_xfer(struct crawl *c, struct xfer *x, const char *url);
/* The connection caches (CONN_SHARES share handles, when no cookie jar
 * needs the one share and max_cached gives each two connections), made
 * after fd_budget() and freed; and the size of each, to give
 * CURLMOPT_MAXCONNECTS: max_cached in all.  open returns 0 or
 * SC_E_NOMEM. */
int conn_caches_open(struct crawl *c);
void conn_caches_close(struct crawl *c);
long conn_cache_size(const struct crawl *c);
/* route.c: tell x's easy handle where url connects under connect_to (the
 * whole list, or its host resolved to the address of the entry that
 * applies, so that libcurl keeps the host's connections apart). */
void route_set(struct crawl *c, struct xfer *x, const char *url);
void xfer_unlink(struct crawl *c, struct xfer *x);
int error_kind(CURLcode cc);
int curl_socket_cb(CURL *e, curl_socket_t s, int what, void *cbp, void *sockp);
void on_curl_timer(evutil_socket_t fd, short kind, void *arg);
int curl_timer_cb(CURLM *m, long timeout_ms, void *arg);

/* parsers.c */
void *parser_main(void *arg);
void parse_submit(struct crawl *c, struct job *j, bool parse);
/* A job was pushed on to_write (c->mu held): wake the writer, unless it
 * lingers and the batch is not yet full enough to end the linger. */
void writer_wake(struct crawl *c);

/* ---- The writer thread: writer.c, write-adapt.c, write-archive.c ----- */

/* lost-hosts.c, the writer's: note what the committed page job j gave
 * its host (nothing for other kinds, or under serve); after the writer
 * stopped, the seeds' hosts that gave no page into ret (crawl.h:
 * ret->lost, malloc'd), and free the lot. */
void lost_hosts_note(struct crawl *c, const struct job *j);
void lost_hosts_list(struct crawl *c, struct crawl_summary *ret);
void lost_hosts_free(struct crawl *c);

/* writer.c */
void *writer_main(void *arg);

/* write-redirect.c: whether the redirect of j (has_redirect) closes a
 * loop, to be recorded as redirect_loop; reads the store in txn. */
bool write_redirect_loops(struct crawl *c, MDB_txn *txn, const struct job *j);

/* The new URLs of one batch, as the writer collects them: the frontier's
 * entries, and (adaptive) which of them are redirect targets that the
 * learned rules must not touch, and the keys the rules gave them. */
struct batch_urls {
	struct frontier_url *fu;
	uint8_t *asis; /* 1: queue under its own form */
	size_t n, cap;
	/* A cluster: the URLs of other shards, for crawl_cluster.send(). */
	struct crawl_cluster_link *out;
	size_t n_out, cap_out;
	/* Keys made by adapt_links(): each malloc'd with its components,
	 * freed after the batch. */
	char **keys;
	struct norm_url *key_u;
	size_t n_keys, cap_keys;
	uint64_t *set; /* open addressing: the batch's keys, 0 empty */
	size_t set_cap;
};

/* write-adapt.c: adaptive normalization's side of the writer, called only
 * when c->adapt is set (write_held() and write_rehome(): for the leases
 * sched.c marked held or rehome). */
int adapt_links(struct crawl *c, MDB_txn *txn, struct batch_urls *b);
int adapt_evidence(struct crawl *c, MDB_txn *txn, struct job *j);
void adapt_rule_of(struct crawl *c, const struct job *j, char *out, size_t cap);
int write_held(struct crawl *c, MDB_txn *txn, struct job *j);
int write_rehome(struct crawl *c, MDB_txn *txn, struct job *j);

/* write-archive.c */
int write_warc(struct crawl *c, const struct job *j, struct store_record *r,
	       struct warc_capture *cap);
int index_batch(struct crawl *c, struct job **batch, size_t n);

/* ---- End of the writer's files ---------------------------------------- */

/* seeds.c */
int add_seeds_of(struct crawl *c, MDB_txn *txn, uint16_t cat, const char *path,
		 int *added);
int add_seeds(struct crawl *c);

/* recrawl.c */
void recrawl_clock_refresh(void);
int recrawl_start(struct crawl *c);
int recrawl_end(struct crawl *c);
void recrawl_post(struct crawl *c);
void recrawl_back(struct crawl *c, struct job *j);
void recrawl_refill(struct crawl *c);
bool recrawl_busy(const struct crawl *c);
int recrawl_move(struct crawl *c, MDB_txn *txn, struct job *j);
int recrawl_sitemap_lastmod(struct crawl *c, MDB_txn *txn, const char *url,
			    size_t len, int64_t lastmod_ms, bool sitemap);
int recrawl_first(struct crawl *c, MDB_txn *txn, const struct job *j,
		  struct store_record *r);
int recrawl_record_copy(const struct store_record *r, unsigned char **buf,
			struct store_record *out);
uint64_t recrawl_interval_next(uint64_t interval_s, bool changed,
			       uint64_t min_s, uint64_t max_s);
uint64_t recrawl_interval_first(int64_t now_ms, int64_t last_modified_ms,
				uint64_t min_s, uint64_t max_s);

/* diskfull.c: where the writer failed, for the path it names. */
enum full_part { PART_STORE, PART_WARC, PART_SEARCH, PART_SPOOL };
/* Is RC (with errno ERR for SC_E_IO) a want of space? */
bool full_error(int rc, int err);
/* ERR, or ENOSPC for an EIO with next to no space left on PART's
 * filesystem (LMDB's word for a short write). */
int full_errno(const struct crawl *c, enum full_part part, int err);
/* The file of PART, into BUF. */
void full_path(const struct crawl *c, enum full_part part, char *buf,
	       size_t len);
/* The writer's batch failed with RC (errno ERR) writing PART.  Not a want
 * of space: returns false.  In a crawl: says so with the path and how to
 * resume, sets c->fatal, returns false.  Under serve: sets the state,
 * waits until the tick sees space (true: try the batch again) or the
 * writer is told to quit (false). */
bool full_wait(struct crawl *c, int rc, int err, enum full_part part);
/* The writer committed: the state clears (and the loop is woken). */
void full_clear(struct crawl *c);
/* The one-second tick: has space come back? */
void full_tick(struct crawl *c);
/* Is the crawl waiting for space?  Fills *ret when not NULL. */
bool full_now(struct crawl *c, struct crawl_full_status *ret);

/* fdbudget.c: max_running and max_cached from RLIMIT_NOFILE (raised to
 * the hard limit first), with a warning when they are below the
 * config's. */
void fd_budget(struct crawl *c);

/* progress.c */
void progress_show(struct crawl *c, bool final);
void on_tick(evutil_socket_t fd, short kind, void *arg);

/* After a batch's commit (ok) or abort: focus's counts of the batch
 * into c->sum; the caller holds c->mu. */
static inline void crawl_focus_end(struct crawl *c, bool ok)
{
	struct focus_tally t = { 0 };
	focus_batch_end(c->focus, ok, &t);
	c->sum.pruned_scope += t.pruned_scope;
	c->sum.pruned_relevance += t.pruned_relevance;
	c->sum.pruned_predicted += t.pruned_predicted;
	c->sum.also += t.also;
}

#endif
