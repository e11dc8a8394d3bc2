/* crawl.h — the crawl engine, inside crawler/ (not a module of its own).
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

#include "normalize.h"
#include "store.h"

/* A category: its seeds are queued under it, and every URL found from
 * them is recorded with its name. */
struct crawl_category {
	const char *name;
	const char *seeds_file; /* one URL per line, '#' comments; or NULL */
	/* Focus (crawler/focus.h, docs/focus.md): the topic's keywords
	 * (none: no relevance, nothing pruned by it), where links may lead
	 * (enum conf_scope; 0 is host), the least relevance of a page whose
	 * links are followed, and the off-topic pages in a row allowed. */
	const char *const *keywords;
	size_t n_keywords;
	int scope;
	double min_relevance;
	unsigned tunnel;
};

struct crawl_opts {
	const char *store_dir;
	const struct crawl_category *categories;
	size_t n_categories;
	uint64_t max_pages; /* fetches to start; 0: no limit */
	unsigned max_depth;
	struct norm_opts norm;
	unsigned concurrency;
	unsigned per_host_connections;
	uint32_t per_host_delay_ms;
	unsigned timeout_s;
	size_t max_body_bytes;
	const char *user_agent;
	const char *robots_token; /* product token for robots.txt groups */
	bool obey_robots;
	/* [dedup]: the signature (enum conf_signature), near-duplicates
	 * (-1 off, else the largest SimHash distance that counts as equal),
	 * and whether a duplicate's links are queued. */
	int signature;
	int near_k;
	bool follow_duplicate_links;
	bool warc;                     /* WARC files in STORE/warc */
	bool search_index;             /* STORE/search.sqlite kept up to date */
	const char *const *connect_to; /* curl's HOST1:PORT1:HOST2:PORT2 */
	size_t n_connect_to;
	unsigned parser_threads; /* 0: one per core */
	bool quiet;              /* no progress lines */
};

struct crawl_summary {
	uint64_t pages;  /* records committed for fetched URLs */
	uint64_t bytes;  /* body bytes received (decoded) */
	uint64_t errors; /* fetches that ended in an error */
	/* Records by error kind (enum store_error; [0] unused), robots.txt
	 * refusals included. */
	uint64_t by_error[STORE_ERROR_COUNT];
	uint64_t by_class[6]; /* status 1xx..5xx; [0]: no status */
	uint64_t robots_disallowed;
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
	double seconds;
	bool interrupted; /* stopped by a signal */
};

/* Run a crawl until the frontier is empty, max_pages fetches have started,
 * or SIGINT/SIGTERM.  Progress goes to stderr (a live line on a terminal,
 * else a line every few seconds) unless quiet.  Returns 0, or an sc_err
 * code with a message already printed on stderr. */
int crawl_run(const struct crawl_opts *o, struct crawl_summary *ret);

#endif
