/* fdbudget.c — the crawl within its file descriptors.
 *
 * Each transfer holds a socket, and libcurl's cache keeps idle
 * connections open for reuse (CURLMOPT_MAXCONNECTS); the store, the
 * search index, the WARC files, libevent and, under serve, the control
 * connections hold more.  When RLIMIT_NOFILE is too low for all of them,
 * socket() fails with EMFILE, libcurl reports a connect failure, and the
 * host is held as unreachable and retried with a growing back-off: no page
 * fails, but the crawl crawls at a few pages a second (measured: 2.7/s
 * with a limit of 40 and concurrency 64).  So before the first transfer
 * the soft limit is raised to the hard one (as systemd advises for
 * programs that do not use select()), and the transfers and the cache are
 * sized to what is left: the crawl runs slower, with fewer connections,
 * instead of tripping over its own limit.
 *
 * concurrency = auto (0) takes no fixed number: transfers start as long as
 * hosts are ready (the frontier leases a host only when its delay has run
 * out, per_host_connections at a time), up to CRAWL_AUTO_MAX and what the
 * descriptors allow with the least idle cache.  A broad crawl is bound by
 * hosts ÷ delay, and by Little's law needs (hosts ÷ delay) × latency
 * transfers in flight: a fixed 256 capped 5,000 hosts at 1 s with 110 ms
 * latency near half of that.  The ceiling, CRAWL_AUTO_MAX (1024), is the
 * memory bound: a transfer in flight costs some 25 KB (its handle 5.4
 * KB, its 8 KB receive buffer, its 8 KB job), and 4096 of them took
 * RssAnon to 240 MB on the latency web's 5,000 hosts for no more pages a
 * second (with 16 KB buffers). */
#include "crawl-int.h"

#include <dirent.h>
#include <limits.h>

/* The idle connections libcurl keeps for reuse, per transfer slot, as
 * far as the descriptors allow, and never fewer than IDLE_LEAST (the
 * fixed size it once had).  With many hosts and a delay per host, a host's
 * next request comes long after its last (5,000 hosts at 1,000 pages/s:
 * 5 s), and a cache of 2 per slot had closed its connection by then:
 * every page paid a new TCP connection at both ends (bench/crawl/scale.py,
 * 5,000 hosts: 16 % less CPU a page for the crawler, 24 % less for the
 * server, for some 2.5 KB of heap a connection kept).  libcurl closes the
 * oldest idle connection when the cache is full. */
#define IDLE_PER_SLOT 32
#define IDLE_LEAST 2
/* Under auto, the idle cache is bounded by this many connections rather
 * than by IDLE_PER_SLOT times CRAWL_AUTO_MAX: a host whose next request
 * is far off costs a reconnect, not a descriptor and its buffers. */
#define AUTO_IDLE_MAX 8192
/* Under auto, bodies fetched and not yet committed (some 30 KB each) that
 * may wait beside the transfers before no new one starts: the memory bound
 * of a crawl that fetches faster than it parses. */
#define AUTO_PIPELINE 512

/* Descriptors kept for everything but the transfers: WARC rotation,
 * SQLite's journal, robots.txt and DNS, libevent, a few control
 * connections. */
#define FD_RESERVE 16

static unsigned long open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return 16;
	unsigned long n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void budget(struct crawl *c)
{
	const struct crawl_opts *o = c->o;
	unsigned long long lim = sc_raise_nofile(NULL);
	unsigned long used = open_fds() + FD_RESERVE;
	unsigned long left = lim && lim != ULLONG_MAX && lim > used
				     ? (unsigned long)(lim - used)
				     : 0;
	bool unlimited = !lim || lim == ULLONG_MAX;
	unsigned want = o->concurrency;
	if (!want) {
		/* auto: what the descriptors allow with the least cache. */
		want = CRAWL_AUTO_MAX;
		if (!unlimited && left / (1 + IDLE_LEAST) < want)
			want = (unsigned)(left / (1 + IDLE_LEAST));
		if (!want)
			want = 1;
	}
	c->max_running = want;
	c->max_cached = (long)want * IDLE_PER_SLOT;
	if (!o->concurrency && c->max_cached > AUTO_IDLE_MAX)
		c->max_cached = AUTO_IDLE_MAX;
	if (unlimited)
		return;
	/* Enough for every transfer and the least cache: the cache gets
	 * what is left, up to IDLE_PER_SLOT a slot. */
	if (left >= (unsigned long)want * (1 + IDLE_LEAST)) {
		unsigned long cache = left - want;
		if (cache < (unsigned long)c->max_cached)
			c->max_cached = (long)cache;
		return;
	}
	/* Else half for transfers, half for the idle cache, at least one
	 * of each. */
	unsigned long xfers = left / 2 ? left / 2 : 1;
	if (xfers > want)
		xfers = want;
	unsigned long cache = left > xfers ? left - xfers : 1;
	if (cache > (unsigned long)want * IDLE_LEAST)
		cache = (unsigned long)want * IDLE_LEAST;
	c->max_running = (unsigned)xfers;
	c->max_cached = (long)cache;
	crawl_say(c, LOG_WARNING,
		  "only %llu file descriptors (RLIMIT_NOFILE): at most %u "
		  "transfers at once (concurrency %u) and %ld idle "
		  "connections kept; raise ulimit -n (or LimitNOFILE) for "
		  "more",
		  lim, c->max_running, want, c->max_cached);
}

void fd_budget(struct crawl *c)
{
	budget(c);
	c->pipeline_cap = c->o->concurrency
				  ? 2ull * c->max_running
				  : (uint64_t)c->max_running + AUTO_PIPELINE;
}
