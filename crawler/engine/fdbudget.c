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
 * instead of tripping over its own limit. */
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

void fd_budget(struct crawl *c)
{
	const struct crawl_opts *o = c->o;
	c->max_running = o->concurrency;
	c->max_cached = (long)o->concurrency * IDLE_PER_SLOT;
	unsigned long long lim = sc_raise_nofile(NULL);
	if (!lim || lim == ULLONG_MAX)
		return;
	unsigned long used = open_fds() + FD_RESERVE;
	unsigned long left = lim > used ? (unsigned long)(lim - used) : 0;
	/* Enough for every transfer and the least cache: the cache gets
	 * what is left, up to IDLE_PER_SLOT a slot. */
	if (left >= (unsigned long)o->concurrency * (1 + IDLE_LEAST)) {
		unsigned long cache = left - o->concurrency;
		if (cache < (unsigned long)c->max_cached)
			c->max_cached = (long)cache;
		return;
	}
	/* Else half for transfers, half for the idle cache, at least one
	 * of each. */
	unsigned long xfers = left / 2 ? left / 2 : 1;
	if (xfers > o->concurrency)
		xfers = o->concurrency;
	unsigned long cache = left > xfers ? left - xfers : 1;
	if (cache > (unsigned long)o->concurrency * IDLE_LEAST)
		cache = (unsigned long)o->concurrency * IDLE_LEAST;
	c->max_running = (unsigned)xfers;
	c->max_cached = (long)cache;
	crawl_say(c, LOG_WARNING,
		  "only %llu file descriptors (RLIMIT_NOFILE): at most %u "
		  "transfers at once (concurrency %u) and %ld idle "
		  "connections kept; raise ulimit -n (or LimitNOFILE) for "
		  "more",
		  lim, c->max_running, o->concurrency, c->max_cached);
}
