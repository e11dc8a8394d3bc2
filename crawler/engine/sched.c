/* sched.c — the scheduler, on the loop: lease URLs from the frontier (fill),
 * start a lease through the robots.txt gate, decide when the crawl is
 * done, and take back what the other threads hand to the loop. */
#include "crawl-int.h"

/* scheme://authority/robots.txt of a URL to fetch: the authority ends at
 * the first '/', '?' or '#' after "://" (the path may be empty when
 * empty_path_slash is off). */
void robots_url(const char *fetch, char *out, size_t cap)
{
	const char *a = strstr(fetch, "://");
	a = a ? a + 3 : fetch;
	int n = (int)((size_t)(a - fetch) + strcspn(a, "/?#"));
	snprintf(out, cap, "%.*s/robots.txt", n, fetch);
}

/* A leased URL: fetch it, or its host's robots.txt first, or record it
 * as disallowed. */
static void start_lease(struct crawl *c, struct job *j)
{
	const struct crawl_opts *o = c->o;
	char fetch[NORM_URL_MAX + 1];
	/* The key as it was queued, split where it stands: normalizing it
	 * again with this run's steps would rewrite it (frontier.h). */
	j->lease_u = j->lease.u;
	int rc = j->lease_u.len ? 0 : SC_E_CORRUPT;
	/* Keys, not fetches: a URL queued under a key that its profile (or
	 * a learned rule) normalized further than strict is fetched under
	 * the form that was found, strict-normalized (crawl-int.h,
	 * job_url()).  The lease's found is a copy of its key when the
	 * entry kept none: that key is fetched as it stands, and no
	 * norm_url() is spent on it. */
	if (!rc && (j->lease.found_len != j->lease.url_len ||
		    memcmp(j->lease.found, j->lease.url, j->lease.url_len))) {
		char src[NORM_URL_MAX + 1];
		struct norm_url su;
		struct norm_opts fo = fetch_norm(o);
		if (norm_url(&fo, NULL, j->lease.found, j->lease.found_len, src,
			     sizeof(src), &su) == 0 &&
		    (su.len != j->lease.url_len ||
		     memcmp(src, j->lease.url, su.len) != 0)) {
			if (!(j->src = malloc((size_t)su.len + 1))) {
				crawl_die(c, SC_E_NOMEM, "scheduling");
				job_free(j);
				return;
			}
			memcpy(j->src, src, (size_t)su.len + 1);
			j->src_u = su;
		}
	}
	/* Adaptive: the form linked names another host than the key (a
	 * www. alias's): that host's own slot paces it too, so that the two
	 * slots never ask one name for pages closer than its delay.  A
	 * profile's steps give such a name no slot of its own (remove_www,
	 * remove_trailing_host_dot key all its URLs under the other), so
	 * the key's slot paces it alone and no lookup is spent. */
	if (!rc && c->adapt && j->src &&
	    (j->src_u.host_len != j->lease_u.host_len ||
	     memcmp(j->src + j->src_u.host_off,
		    j->lease.url + j->lease_u.host_off,
		    j->src_u.host_len) != 0)) {
		uint64_t ready;
		int p = frontier_host_pace(c->fr, j->src + j->src_u.host_off,
					   j->src_u.host_len, mono_ms(),
					   &ready);
		if (p == 1) {
			frontier_return(c->fr, &j->lease);
			frontier_hold(c->fr, j->lease.host_id, ready);
			job_free(j);
			return;
		}
	}
	if (!rc)
		rc = norm_fetch_url(job_url(j), job_url_u(j), fetch,
				    sizeof(fetch));
	if (rc) {
		/* The queue holds only normalized URLs: this cannot
		 * happen unless the entry was damaged.  Record and move
		 * on. */
		j->error = STORE_ERROR_OTHER;
		frontier_release(c->fr, j->lease.host_id);
		parse_submit(c, j, false);
		return;
	}

	/* Queued before a learned rule applied to its host, and the rule
	 * maps it onto a URL the frontier knows: not fetched, but held by
	 * the rule (the writer keeps it, crawler/learn/learn.h).  Not a
	 * redirect target: the URL a rule would map it onto may be the one that
	 * redirected to it. */
	if (c->adapt && !j->lease.redirects && !j->lease.revisit) {
		char key[NORM_URL_MAX + 1];
		struct norm_url ku;
		int k = adapt_lease_key(c->adapt, j->lease.url,
					j->lease.url_len, key, &ku);
		if (k == 2 ||
		    (k == 1 && (frontier_seen_now(c->fr, key, ku.len) == 1 ||
				adapt_claim(c->adapt, key, ku.len) == 0))) {
			memcpy(j->dup_of, key, (size_t)ku.len + 1);
			j->held = true;
			frontier_release(c->fr, j->lease.host_id);
			parse_submit(c, j, false);
			return;
		}
		/* A key on another host (a www. alias's site): the URL is
		 * queued again under it, not fetched from this host's
		 * slot.  The key's host paces every request for its keys,
		 * whichever of the two names the form linked names, so the
		 * two slots never ask one name for a page at once. */
		if (k == 1 && (ku.host_len != j->lease_u.host_len ||
			       memcmp(key + ku.host_off,
				      j->lease.url + j->lease_u.host_off,
				      ku.host_len) != 0)) {
			memcpy(j->dup_of, key, (size_t)ku.len + 1);
			j->rehome = true;
			frontier_release(c->fr, j->lease.host_id);
			parse_submit(c, j, false);
			return;
		}
	}

	/* Of a URL shape whose pages all said noindex and nofollow, and not
	 * one of its audits: recorded as skipped, not fetched
	 * (crawler/learn/adapt-skip.c).  A seed is always fetched. */
	if (c->adapt && j->lease.depth && !j->lease.redirects &&
	    !j->lease.revisit &&
	    adapt_skip_lease(c->adapt, job_url(j), job_url_len(j),
			     job_url_u(j)) == 1) {
		j->skipped = true;
		j->error = STORE_ERROR_SKIPPED_NOINDEX_NOFOLLOW;
		frontier_release(c->fr, j->lease.host_id);
		parse_submit(c, j, false);
		return;
	}

	/* Queued on a prediction that the pages of its host fetched since
	 * have undone: not fetched (the writer drops it from the queue). */
	if (!j->lease.redirects && !j->lease.revisit &&
	    !focus_lease_keep(c->focus, &j->lease)) {
		j->pruned = true;
		frontier_release(c->fr, j->lease.host_id);
		parse_submit(c, j, false);
		return;
	}

	struct robots_slot *hs = robots_slot(c, j->lease.host_id);
	if (!hs) {
		crawl_die(c, SC_E_NOMEM, "host state");
		job_free(j);
		return;
	}
	if (host_skips(c, hs, j))
		return;

	if (o->obey_robots) {
		struct robots_slot *s = hs;
		if (s->state == R_READY && wall_ms() >= s->expires_ms)
			s->state = R_NONE;
		if (s->state != R_READY) {
			jobq_push(&s->parked, j);
			c->parked++;
			if (s->state == R_NONE) {
				/* Looked up in the store by a parser, then
				 * fetched if need be (robots_back()). */
				struct job *r = job_new(JOB_ROBOTS);
				if (!r) {
					crawl_die(c, SC_E_NOMEM, "robots");
					return;
				}
				r->lease.host_id = j->lease.host_id;
				/* The page's URL names the host in messages
				 * if the robots.txt cannot be had. */
				memcpy(r->lease.url, j->lease.url,
				       j->lease.url_len + 1u);
				r->lease.url_len = j->lease.url_len;
				r->lease_u = j->lease_u;
				/* The sitemaps it names go where the page
				 * is. */
				r->lease.category = j->lease.category;
				r->lease.depth = j->lease.depth;
				robots_url(fetch, r->robots_url,
					   ROBOTS_URL_CAP);
				s->state = R_FETCHING;
				parse_submit(c, r, true);
			}
			return;
		}
		const struct norm_url *fu = job_url_u(j);
		const char *pq = job_url(j) + fu->path_off;
		size_t pql = fu->path_len +
			     (fu->has_query ? 1u + fu->query_len : 0);
		if (!parse_robots_allowed(s->rules, pq, pql)) {
			j->error = STORE_ERROR_ROBOTS_DISALLOWED;
			frontier_release(c->fr, j->lease.host_id);
			parse_submit(c, j, false);
			return;
		}
	}

	struct xfer *x = calloc(1, sizeof(*x));
	if (!x) {
		crawl_die(c, SC_E_NOMEM, "transfer");
		job_free(j);
		return;
	}
	x->job = j;
	x->limit = o->max_body_bytes;
	x->last = !frontier_host_due(c->fr, j->lease.host_id, mono_ms(),
				     IDLE_WINDOW_MS);
	if (c->warc && !(j->fetch_url = strdup(fetch))) {
		free(x);
		job_free(j);
		crawl_die(c, SC_E_NOMEM, "transfer");
		return;
	}
	c->started++;
	/* The budget bounds a host's pages, not its revisits. */
	if (!j->lease.revisit)
		c->robots[j->lease.host_id].budget_used++;
	if ((rc = start_xfer(c, x, fetch))) {
		free(x);
		job_free(j);
		crawl_die(c, rc, "starting a transfer");
	}
}

/* The transfer slots taken: transfers in flight, and leases parked for
 * their host's robots.txt but for those whose request is one of them and
 * those whose robots.txt has answered (robots-gate.c, parked_answer()). */
static uint64_t slots_busy(const struct crawl *c)
{
	unsigned asking = c->parked > c->parked_answered
				  ? c->parked - c->parked_answered
				  : 0;
	unsigned both = c->robots_running < asking ? c->robots_running : asking;
	return (uint64_t)c->running + asking - both;
}

void sched_fill(struct crawl *c)
{
	const struct crawl_opts *o = c->o;
	pthread_mutex_lock(&c->mu);
	bool fatal = c->fatal != 0;
	/* Parsed jobs waiting for the writer have dropped their bodies:
	 * as many as the writer lingers for (WRITE_BATCH / 4) do not
	 * count, the rest do.  A writer slower than the fetches (a
	 * frontier of millions, each page bringing 100 new URLs) then
	 * slows the fetches; before, its backlog grew without bound, and
	 * each commit took up to WRITE_BATCH pages of it (about 70 MB of
	 * LMDB's dirty pages at 10 M queued URLs, kept as heap).
	 * (to_write also holds robots.txt and seed jobs, which
	 * in_pipeline does not: they count as waiting.) */
	size_t waiting = c->to_write.n < WRITE_BATCH / 4 ? c->to_write.n
							 : WRITE_BATCH / 4;
	uint64_t pipeline = c->in_pipeline > waiting ? c->in_pipeline - waiting
						     : 0;
	/* The link prediction's lead (focus_lead()): every page fetched
	 * and not yet written counts, parsed or not. */
	uint64_t unlearned = c->in_pipeline, lead = c->lead;
	uint64_t commits = c->commits;
	/* No space for the writer: nothing more is fetched until there is
	 * (diskfull.c); what is in flight finishes and waits for it. */
	bool full = c->full.on;
	pthread_mutex_unlock(&c->mu);
	if (fatal)
		c->stopping = true;
	if (full)
		return;

	/* Backpressure: fetching outruns the parsers, and every finished
	 * body waits in the pipeline with its job (some 30 KB): no new
	 * fetch starts while transfers in flight and jobs not yet
	 * committed reach pipeline_cap (fdbudget.c), which bounds the heap. The
	 * writer's wakeup after each commit calls sched_fill() again.
	 *
	 * A lease parked for its host's robots.txt counts as a transfer:
	 * it is one, or its host's robots.txt is being had for it.  Without
	 * that, a crawl starting on thousands of hosts leased every root
	 * at once, parked them all (11 KB a job, and as much for its
	 * robots.txt job) and sent every robots.txt request at once, past
	 * `concurrency`: on 5,000 hosts RssAnon rose to 190 MB in the
	 * first second and stayed there (bench/crawl/scale.py).  But a
	 * lease whose robots.txt request is in flight counts once, not
	 * twice: counted as both, the start of a broad crawl had half its
	 * transfers in flight (5,000 hosts: 4,200 robots.txt a second
	 * where 1,024 at 110 ms allow 9,000). */
	uint64_t busy = slots_busy(c);
	/* Leases parked on a robots.txt being read and kept wait in the
	 * pipeline, as a body does. */
	pipeline += c->parked_answered;
	while (!c->stopping && !c->paused && busy < c->max_running &&
	       busy + pipeline < c->pipeline_cap &&
	       (!lead || c->running + unlearned < lead) &&
	       (!o->max_pages || c->started + c->parked < o->max_pages)) {
		struct job *j = job_new(JOB_PAGE);
		if (!j) {
			crawl_die(c, SC_E_NOMEM, "scheduling");
			return;
		}
		uint64_t wait;
		int rc = frontier_next(c->fr, mono_ms(), &j->lease, &wait);
		if (rc == SC_E_AGAIN) {
			free(j);
			c->frontier_dry = wait == UINT64_MAX;
			c->dry_commits = commits;
			if (!c->frontier_dry) {
				struct timeval tv = {
					(time_t)(wait / 1000),
					(suseconds_t)(wait % 1000) * 1000
				};
				evtimer_add(c->sched_timer, &tv);
			}
			return;
		}
		if (rc) {
			free(j);
			crawl_die(c, rc, "reading the frontier");
			return;
		}
		c->frontier_dry = false;
		start_lease(c, j);
		busy = slots_busy(c);
	}
}

/* Nothing fetched, parked, being parsed or written, no seeds on their
 * way, and the frontier had nothing at all when last asked, with no
 * commit since that could have queued more. */
bool sched_idle(struct crawl *c)
{
	if (c->running || c->parked || c->seed_jobs)
		return false;
	pthread_mutex_lock(&c->mu);
	bool busy = c->in_pipeline || c->commits != c->dry_commits;
	pthread_mutex_unlock(&c->mu);
	return !busy && c->frontier_dry;
}

/* Before the crawl ends, or goes idle under serve: a round of focus's
 * samples of the links it pruned and holds (learn.h,
 * focus_reconsider()), if it has some to take and the last round queued
 * something, or the crawl committed pages since.  Returns true while a
 * round is with the writer or was just asked for. */
static bool reserve_round(struct crawl *c)
{
	if (c->reserve_outstanding)
		return true;
	if (!c->focus || !sched_idle(c))
		return false;
	pthread_mutex_lock(&c->mu);
	uint64_t commits = c->commits;
	pthread_mutex_unlock(&c->mu);
	if ((c->reserve_spent && commits == c->reserve_commits) ||
	    !focus_reserve_pending(c->focus))
		return false;
	struct job *j = job_new(JOB_RESERVE);
	if (!j) {
		crawl_die(c, SC_E_NOMEM, "the focus reserve");
		return false;
	}
	c->reserve_outstanding = true;
	parse_submit(c, j, false);
	return true;
}

void reserve_back(struct crawl *c, struct job *j)
{
	c->reserve_outstanding = false;
	c->reserve_spent = j->seeds_rc != 0 || j->seeds_added == 0;
	pthread_mutex_lock(&c->mu);
	c->reserve_commits = c->commits;
	pthread_mutex_unlock(&c->mu);
	if (j->seeds_rc)
		crawl_die(c, j->seeds_rc, "the focus reserve");
	job_free(j);
}

void sched_check_done(struct crawl *c)
{
	if (c->running || c->parked)
		return;
	pthread_mutex_lock(&c->mu);
	uint64_t pending = c->in_pipeline;
	bool fatal = c->fatal != 0;
	pthread_mutex_unlock(&c->mu);
	if (pending)
		return;
	bool limit = c->o->max_pages && c->started >= c->o->max_pages;
	/* A re-crawl pass goes on until it has queued every page. */
	if (!c->stopping && !fatal && !limit && recrawl_busy(c))
		return;
	if (!c->stopping && !fatal && !limit && reserve_round(c))
		return;
	/* Long-running mode waits for more seeds instead. */
	if (c->o->daemon && !c->stopping && !fatal)
		return;
	if (c->stopping || fatal || limit || sched_idle(c)) {
		/* A break before the loop runs would be forgotten by
		 * libevent: the flag says it. */
		c->done = true;
		event_base_loopbreak(c->base);
	}
}

void on_sched_timer(evutil_socket_t fd, short kind, void *arg)
{
	(void)fd;
	(void)kind;
	struct crawl *c = arg;
	sched_fill(c);
	sched_check_done(c);
}

/* A seed job is committed (or failed): tell its caller. */
void seeds_back(struct crawl *c, struct job *j)
{
	c->seed_jobs--;
	if (j->kind == JOB_SEEDS)
		j->seeds->done(j->seeds, j->seeds_rc, j->seeds->arg);
	else if (!c->o->quiet || j->seeds_rc)
		crawl_say(c, j->seeds_rc ? LOG_WARNING : LOG_NOTICE,
			  "reload: %s; %d new seeds queued",
			  j->seeds_rc ? sc_strerror(j->seeds_rc)
				      : "seed files read",
			  j->seeds_added);
	job_free(j);
}

/* The writer committed a batch (new URLs may be ready), or robots.txt
 * and seed jobs came back. */
void on_wakeup(evutil_socket_t fd, short kind, void *arg)
{
	(void)fd;
	(void)kind;
	struct crawl *c = arg;
	for (;;) {
		pthread_mutex_lock(&c->mu);
		struct job *j = jobq_pop(&c->to_loop);
		pthread_mutex_unlock(&c->mu);
		if (!j)
			break;
		if (j->kind == JOB_ROBOTS)
			robots_back(c, j);
		else if (j->kind == JOB_DUE)
			recrawl_back(c, j);
		else if (j->kind == JOB_RESERVE)
			reserve_back(c, j);
		else
			seeds_back(c, j);
	}
	recrawl_refill(c);
	sched_fill(c);
	sched_check_done(c);
}
