/* progress.c — the engine's one periodic timer (a tick a second), the
 * pages-per-second rate, the last hour's rate for the dashboard (a ring of
 * CRAWL_HISTORY_STEPS + 1 page counts, one every CRAWL_HISTORY_STEP_S
 * ticks: 2.9 KB, whatever the crawl's size), and the progress line. */
#include "crawl-int.h"

/* True once every period ticks (1 s each), as Redis's run_with_period. */
#define RUN_WITH_PERIOD(c, seconds) ((c)->ticks % (seconds) == 0)

/* One sample a tick: the rate over the last CRAWL_RATE_WINDOW_S ticks. */
static void rate_sample(struct crawl *c)
{
	pthread_mutex_lock(&c->mu);
	uint64_t pages = c->sum.pages;
	pthread_mutex_unlock(&c->mu);
	unsigned i = (unsigned)(c->ticks % CRAWL_RATE_WINDOW_S);
	if (c->ticks >= CRAWL_RATE_WINDOW_S) {
		/* pages_ring[i] is the count CRAWL_RATE_WINDOW_S ticks ago. */
		c->rate = (double)(pages - c->pages_ring[i]) /
			  CRAWL_RATE_WINDOW_S;
	} else {
		double el = (double)(mono_ms() - c->t0) / 1000.0;
		c->rate = el > 0 ? (double)pages / el : 0;
	}
	c->pages_ring[i] = pages;
	/* The hour's ring takes the count at the start (tick 0, before the
	 * first tick: 0 pages) and every step after it. */
	if (c->ticks % CRAWL_HISTORY_STEP_S == 0) {
		if (c->hist_n == 0) {
			c->hist_pages[0] = 0;
			c->hist_next = c->hist_n = 1;
		}
		c->hist_pages[c->hist_next] = pages;
		c->hist_next = (c->hist_next + 1) % (CRAWL_HISTORY_STEPS + 1);
		if (c->hist_n < CRAWL_HISTORY_STEPS + 1)
			c->hist_n++;
	}
}

size_t crawl_rate_history(const struct crawl *c, double *out, size_t max)
{
	const unsigned size = CRAWL_HISTORY_STEPS + 1;
	size_t steps = c->hist_n ? c->hist_n - 1 : 0;
	if (steps > max)
		steps = max;
	/* The newest count is at hist_next - 1; the oldest step used starts
	 * steps counts before it. */
	unsigned first = (c->hist_next + size - 1 - (unsigned)steps) % size;
	for (size_t k = 0; k < steps; k++) {
		uint64_t a = c->hist_pages[(first + k) % size];
		uint64_t b = c->hist_pages[(first + k + 1) % size];
		out[k] = b >= a ? (double)(b - a) / CRAWL_HISTORY_STEP_S : 0;
	}
	return steps;
}

double crawl_rate(struct crawl *c)
{
	return c->rate;
}

uint64_t crawl_ticks(const struct crawl *c)
{
	return c->ticks;
}

void progress_show(struct crawl *c, bool final)
{
	struct frontier_stats st;
	frontier_stats(c->fr, &st);
	pthread_mutex_lock(&c->mu);
	struct crawl_summary s = c->sum;
	pthread_mutex_unlock(&c->mu);
	double el = (double)(mono_ms() - c->t0) / 1000.0;
	double rate = final && el > 0 ? (double)s.pages / el : c->rate;
	bool tty = isatty(2);
	/* Unreachable hosts, when there are any (crawl.h). */
	char held[64] = "";
	if (c->hosts_held || c->hosts_given_up)
		snprintf(held, sizeof(held), "  hosts held %u, given up %u",
			 c->hosts_held, c->hosts_given_up);
	char line[512];
	snprintf(line, sizeof(line),
		 "pages %llu  %.1f/s  queue %llu  hosts %u  duplicates %llu  "
		 "errors %llu  disallowed %llu%s  elapsed %.0fs",
		 (unsigned long long)s.pages, rate,
		 (unsigned long long)st.queued, st.hosts,
		 (unsigned long long)(s.dup_exact + s.dup_near),
		 (unsigned long long)s.errors,
		 (unsigned long long)s.robots_disallowed, held, el);
	log_progress(line, tty, final);
}

void on_tick(evutil_socket_t fd, short kind, void *arg)
{
	(void)fd;
	(void)kind;
	struct crawl *c = arg;
	c->ticks++;
	rate_sample(c);
	full_tick(c);
	if (c->o->daemon && c->o->daemon->tick)
		c->o->daemon->tick(c, c->o->daemon->arg);
	recrawl_post(c);
	/* A live line every second on a terminal, else every 5 s. */
	if (!c->o->quiet && (isatty(2) || RUN_WITH_PERIOD(c, 5)))
		progress_show(c, false);
}
