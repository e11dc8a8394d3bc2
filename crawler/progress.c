/* progress.c — the progress line and the periodic tick. */
#include "crawl-int.h"

void progress_show(struct crawl *c, bool final)
{
	struct frontier_stats st;
	frontier_stats(c->fr, &st);
	pthread_mutex_lock(&c->mu);
	struct crawl_summary s = c->sum;
	pthread_mutex_unlock(&c->mu);
	double el = (double)(mono_ms() - c->t0) / 1000.0;
	double rate = el > 0 ? (double)s.pages / el : 0;
	bool tty = isatty(2);
	/* Unreachable hosts, when there are any (crawl.h). */
	char held[64] = "";
	if (c->hosts_held || c->hosts_given_up)
		snprintf(held, sizeof(held), "  hosts held %u, given up %u",
			 c->hosts_held, c->hosts_given_up);
	fprintf(stderr,
		"%spages %llu  %.1f/s  queue %llu  hosts %u  duplicates %llu  "
		"errors %llu  disallowed %llu%s  elapsed %.0fs%s",
		tty ? "\r\033[K" : "", (unsigned long long)s.pages, rate,
		(unsigned long long)st.queued, st.hosts,
		(unsigned long long)(s.dup_exact + s.dup_near),
		(unsigned long long)s.errors,
		(unsigned long long)s.robots_disallowed, held, el,
		tty && !final ? "" : "\n");
}

void on_tick(evutil_socket_t fd, short kind, void *arg)
{
	(void)fd;
	(void)kind;
	struct crawl *c = arg;
	uint64_t now = mono_ms();
	if (c->o->daemon && c->o->daemon->tick)
		c->o->daemon->tick(c, c->o->daemon->arg);
	/* A live line every second on a terminal, else every 5 s. */
	if (!c->o->quiet && (isatty(2) || now - c->last_tick >= 5000)) {
		progress_show(c, false);
		c->last_tick = now;
	}
}
