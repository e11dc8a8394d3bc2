/* lost-hosts.c — the seeds' hosts that gave no page (crawl.h, struct
 * crawl_lost), for the end-of-run summary.
 *
 * A profile that redirects itself in a loop, a site that answers every
 * URL with an error, a robots.txt that disallows everything: the crawl
 * ends, exits 0, and its counts do not say that a whole site is missing.
 * The writer follows the hosts that matter for that: a seed's host (the
 * host of a lease at depth 0 that no redirect led to), and a host that a
 * redirect at depth 0 led to (a redirect keeps its source's depth, so a
 * seed's chain of redirects stays at depth 0).  For each it counts the
 * fetches, the errors by kind, whether one answered 2xx, and the first
 * other host a redirect of it named.  At the end a seed's host is lost
 * when none of its fetches answered 2xx and none of the hosts its
 * redirects led to (a chain of at most ten) did either.
 *
 * Data: an array of struct watched, and an index by host id (the
 * frontier's dense ids: 4 bytes a host fetched, the entry's index + 1 or
 * 0 for a host not watched, and OF_PAGE once the host answered 2xx, so
 * that a page committed before its host's seed still counts).  Only the writer
 * thread touches them, and crawl_run() once the writer has stopped.  Bounded:
 * WATCHED_MAX hosts at most, the first ones met; a crawl of more seeds' hosts
 * says nothing of the others.  Not kept under serve, which never ends its
 * crawl. */
#include "crawl-int.h"

#define WATCHED_MAX 65536
#define OF_PAGE 0x80000000u
/* Redirects to other hosts followed from a seed's host at the end. */
#define CHAIN_MAX 10

struct watched {
	bool seed; /* a seed's host, else only a redirect's target */
	bool page; /* a fetch answered 2xx, or a learned rule held a URL */
	uint32_t requests;
	uint32_t by_error[STORE_ERROR_COUNT];
	char *name; /* the host fetched, as the first lease wrote it */
	char *key;  /* the host of its keys */
	char *to;   /* the first other host a redirect named; NULL: none */
};

struct lost_hosts {
	struct watched *w;
	size_t n, cap;
	uint32_t *of; /* by host id: index + 1 into w, 0 none; | OF_PAGE */
	size_t n_of;
};

static char *host_dup(const char *url, const struct norm_url *u)
{
	return strndup(url + u->host_off, u->host_len);
}

/* The index slot of host id, made if need be; NULL without memory. */
static uint32_t *of_slot(struct lost_hosts *l, uint32_t id)
{
	if (id >= l->n_of) {
		size_t m = l->n_of ? l->n_of : 64;
		while (m <= id)
			m *= 2;
		uint32_t *of = realloc(l->of, m * sizeof(*of));
		if (!of)
			return NULL;
		memset(of + l->n_of, 0, (m - l->n_of) * sizeof(*of));
		l->of = of;
		l->n_of = m;
	}
	return &l->of[id];
}

/* The entry of j's host (*of its index slot), made for a lease at depth
 * 0; NULL for a host not watched (or no memory). */
static struct watched *watched_for(struct lost_hosts *l, const struct job *j,
				   uint32_t *of)
{
	if (*of & ~OF_PAGE)
		return &l->w[(*of & ~OF_PAGE) - 1];
	if (j->lease.depth || j->lease.revisit || !j->lease_u.len ||
	    l->n >= WATCHED_MAX)
		return NULL;
	if (l->n == l->cap) {
		size_t m = l->cap ? 2 * l->cap : 16;
		struct watched *w = realloc(l->w, m * sizeof(*w));
		if (!w)
			return NULL;
		l->w = w;
		l->cap = m;
	}
	struct watched *w = &l->w[l->n];
	*w = (struct watched){
		.seed = j->lease.redirects == 0,
		.page = (*of & OF_PAGE) != 0,
		.name = host_dup(job_url(j), job_url_u(j)),
		.key = host_dup(j->lease.url, &j->lease_u),
	};
	if (!w->name || !w->key) {
		free(w->name);
		free(w->key);
		return NULL;
	}
	*of |= (uint32_t)++l->n;
	return w;
}

void lost_hosts_note(struct crawl *c, const struct job *j)
{
	/* A lease focus pruned was not asked for: it says nothing of its
	 * host. */
	if (j->kind != JOB_PAGE || j->pruned || c->o->daemon)
		return;
	if (!c->lost && !(c->lost = calloc(1, sizeof(*c->lost))))
		return;
	uint32_t *of = of_slot(c->lost, j->lease.host_id);
	if (!of)
		return;
	/* A page cut at max_body_bytes is a page: its links are followed.
	 * A URL a learned rule held or moved to another host is another
	 * URL's page. */
	bool page = j->held || j->rehome ||
		    (j->fetched && j->status >= 200 && j->status <= 299 &&
		     (!j->error || j->error == STORE_ERROR_TOO_BIG));
	if (page)
		*of |= OF_PAGE;
	struct watched *w = watched_for(c->lost, j, of);
	if (!w)
		return;
	/* A later seed of a host first met as a redirect's target. */
	if (!j->lease.depth && !j->lease.redirects && !j->lease.revisit)
		w->seed = true;
	w->requests += j->fetched;
	w->page |= page;
	if (j->error > 0 && j->error < STORE_ERROR_COUNT)
		w->by_error[j->error]++;
	const struct norm_url *ru = &j->redirect_u;
	if (j->has_redirect && !w->to &&
	    (ru->host_len != j->lease_u.host_len ||
	     memcmp(j->redirect + ru->host_off,
		    j->lease.url + j->lease_u.host_off, ru->host_len) != 0))
		w->to = host_dup(j->redirect, ru);
}

/* The entry whose keys or fetches name host, or NULL. */
static const struct watched *watched_named(const struct lost_hosts *l,
					   const char *host)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->w[i].key, host) == 0 ||
		    strcmp(l->w[i].name, host) == 0)
			return &l->w[i];
	return NULL;
}

/* Did w, or a host its redirects led to, give a page? */
static bool gave_page(const struct lost_hosts *l, const struct watched *w)
{
	for (int hop = 0; w && hop <= CHAIN_MAX; hop++) {
		if (w->page)
			return true;
		w = w->to ? watched_named(l, w->to) : NULL;
	}
	return false;
}

void lost_hosts_list(struct crawl *c, struct crawl_summary *ret)
{
	const struct lost_hosts *l = c->lost;
	ret->lost = NULL;
	ret->n_lost = 0;
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		const struct watched *w = &l->w[i];
		if (!w->seed || gave_page(l, w))
			continue;
		if (ret->n_lost++ >= CRAWL_HOSTS_LISTED)
			continue;
		if (!ret->lost && !(ret->lost = calloc(CRAWL_HOSTS_LISTED,
						       sizeof(*ret->lost)))) {
			ret->n_lost = 0;
			return;
		}
		struct crawl_lost *o = &ret->lost[ret->n_lost - 1];
		snprintf(o->name, sizeof(o->name), "%s", w->name);
		snprintf(o->to, sizeof(o->to), "%s", w->to ? w->to : "");
		o->requests = w->requests;
		uint32_t most = 0;
		for (int e = 1; e < STORE_ERROR_COUNT; e++)
			if (w->by_error[e] > most) {
				most = w->by_error[e];
				o->reason = e;
			}
	}
}

void lost_hosts_free(struct crawl *c)
{
	struct lost_hosts *l = c->lost;
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free(l->w[i].name);
		free(l->w[i].key);
		free(l->w[i].to);
	}
	free(l->w);
	free(l->of);
	free(l);
	c->lost = NULL;
}
