/* fdbudget.c — the crawl within its file descriptors (issue 35).
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
#include <sys/resource.h>

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
	c->max_cached = (long)o->concurrency * 2;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		/* The kernel refuses more than fs.nr_open (2^20 by
		 * default). */
		rlim_t want = rl.rlim_max == RLIM_INFINITY ||
					      rl.rlim_max > (1u << 20)
				      ? (1u << 20)
				      : rl.rlim_max;
		struct rlimit n = { want, rl.rlim_max };
		if (want > rl.rlim_cur && setrlimit(RLIMIT_NOFILE, &n) == 0)
			rl.rlim_cur = want;
	}
	if (rl.rlim_cur == RLIM_INFINITY)
		return;
	unsigned long used = open_fds() + FD_RESERVE;
	unsigned long left = rl.rlim_cur > used ? rl.rlim_cur - used : 0;
	/* Half for transfers, half for the idle cache, at least one of
	 * each. */
	unsigned long xfers = left / 2 ? left / 2 : 1;
	if (xfers >= o->concurrency &&
	    left - o->concurrency >= (unsigned long)o->concurrency * 2)
		return;
	if (xfers > o->concurrency)
		xfers = o->concurrency;
	unsigned long cache = left > xfers ? left - xfers : 1;
	if (cache > (unsigned long)o->concurrency * 2)
		cache = (unsigned long)o->concurrency * 2;
	c->max_running = (unsigned)xfers;
	c->max_cached = (long)cache;
	crawl_say(c, LOG_WARNING,
		  "only %llu file descriptors (RLIMIT_NOFILE): at most %u "
		  "transfers at once (concurrency %u) and %ld idle "
		  "connections kept; raise ulimit -n (or LimitNOFILE) for "
		  "more",
		  (unsigned long long)rl.rlim_cur, c->max_running,
		  o->concurrency, c->max_cached);
}
