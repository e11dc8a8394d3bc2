/* robots-gate.c — the per-host gate on the loop: robots.txt (looked up,
 * fetched, installed, failed), unreachable hosts (retries with backoff, given
 * up or held) and the per-host page budget. */
#include "crawl-int.h"

struct robots_slot *robots_slot(struct crawl *c, uint32_t host)
{
	if (host >= c->n_robots) {
		size_t n = c->n_robots ? c->n_robots : 64;
		while (n <= host)
			n *= 2;
		struct robots_slot *v = realloc(c->robots, n * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + c->n_robots, 0, (n - c->n_robots) * sizeof(*v));
		c->robots = v;
		c->n_robots = n;
	}
	return &c->robots[host];
}

/* The wait after a host's tries-th failure in a row: the base, doubled
 * for each failure after the first, at most CRAWL_BACKOFF_CAP_MS. */
static uint64_t host_backoff(const struct crawl_opts *o, unsigned tries)
{
	uint64_t ms = o->host_backoff_ms ? o->host_backoff_ms : 1;
	for (unsigned i = 1; i < tries && ms < CRAWL_BACKOFF_CAP_MS; i++)
		ms *= 2;
	return ms < CRAWL_BACKOFF_CAP_MS ? ms : CRAWL_BACKOFF_CAP_MS;
}

/* The host name of a job's URL (the lease, its components in lease_u). */
static void job_host(const struct job *j, char *out, size_t cap)
{
	size_t off = j->lease_u.host_off, n = j->lease_u.host_len;
	if (off > j->lease.url_len)
		off = n = 0;
	if (n > j->lease.url_len - off)
		n = j->lease.url_len - off;
	if (n >= cap)
		n = cap - 1;
	memcpy(out, j->lease.url + off, n);
	out[n] = '\0';
}

/* Record a leased URL without fetching it, with error err. */
static void record_unfetched(struct crawl *c, struct job *j, int err)
{
	j->error = err;
	frontier_release(c->fr, j->lease.host_id);
	parse_submit(c, j, false);
}

/* A try of j's host failed, for reason (enum store_error; detail in
 * words).  started_ms is when the try began: a try that began before the
 * last failure was counted belongs to the same outage (two connections
 * that fail together) and counts once.  The host is held until its next
 * try, or a crawl gives it up after host_retries retries: then the
 * frontier drains it, and every lease of it is recorded (host_skips()).
 * Returns true if the host is given up. */
bool host_failed(struct crawl *c, const struct job *j, uint64_t started_ms,
		 int reason, const char *detail)
{
	const struct crawl_opts *o = c->o;
	uint32_t host = j->lease.host_id;
	struct robots_slot *s = robots_slot(c, host);
	if (!s) {
		crawl_die(c, SC_E_NOMEM, "host state");
		return false;
	}
	struct trouble *t = s->trouble;
	if (t && (t->h.given_up || started_ms < t->failed_ms))
		return t->h.given_up;
	uint64_t now = mono_ms();
	if (!t) {
		if (!(t = calloc(1, sizeof(*t)))) {
			crawl_die(c, SC_E_NOMEM, "host state");
			return false;
		}
		t->host_id = host;
		job_host(j, t->h.name, sizeof(t->h.name));
		t->prev = c->troubles_tail;
		if (c->troubles_tail)
			c->troubles_tail->next = t;
		else
			c->troubles = t;
		c->troubles_tail = t;
		s->trouble = t;
		c->hosts_held++;
	}
	t->h.tries++;
	t->h.reason = reason;
	snprintf(t->h.detail, sizeof(t->h.detail), "%s", detail);
	t->failed_ms = now;
	const char *kind = store_error_name((enum store_error)reason);
	if (!o->daemon && t->h.tries > o->host_retries) {
		t->h.given_up = true;
		c->hosts_held--;
		c->hosts_given_up++;
		frontier_drain(c->fr, host, true, now);
		crawl_say(
			c, LOG_WARNING,
			"%s: %s (%s), %u tries: given up, its URLs are recorded "
			"as %s",
			t->h.name, kind, t->h.detail, t->h.tries, kind);
		return true;
	}
	uint64_t wait = host_backoff(o, t->h.tries);
	t->retry_ms = now + wait;
	frontier_hold(c->fr, host, t->retry_ms);
	/* The daemon tells each outage once, and its retries only when
	 * verbose: it may hold many hosts for a long time. */
	if (o->daemon || !o->quiet)
		crawl_say(c, t->h.tries == 1 ? LOG_NOTICE : LOG_INFO,
			  "%s: %s (%s), try %u: held %.1f s", t->h.name, kind,
			  t->h.detail, t->h.tries, (double)wait / 1000.0);
	return false;
}

/* The host answered: it is reachable (again).  A host given up stays
 * so: its URLs are being recorded. */
void host_ok(struct crawl *c, uint32_t host)
{
	if (host >= c->n_robots)
		return;
	struct robots_slot *s = &c->robots[host];
	struct trouble *t = s->trouble;
	if (!t || t->h.given_up)
		return;
	if (c->o->daemon || !c->o->quiet)
		crawl_say(c, LOG_NOTICE,
			  "%s: reachable again after %u failed tries",
			  t->h.name, t->h.tries);
	if (t->prev)
		t->prev->next = t->next;
	else
		c->troubles = t->next;
	if (t->next)
		t->next->prev = t->prev;
	else
		c->troubles_tail = t->prev;
	free(t);
	s->trouble = NULL;
	c->hosts_held--;
}

/* Did the transfer fail because its host cannot be reached at all,
 * rather than because of this URL: the name does not resolve, the
 * connection or the TLS handshake fails, or the time runs out before a
 * request was sent?  A page slower than the timeout is its own failure. */
bool host_unreachable(CURL *e, CURLcode cc)
{
	switch (error_kind(cc)) {
	case STORE_ERROR_DNS:
	case STORE_ERROR_CONNECT:
	case STORE_ERROR_TLS: return true;
	case STORE_ERROR_TIMEOUT: {
		curl_off_t pre = 0;
		curl_easy_getinfo(e, CURLINFO_PRETRANSFER_TIME_T, &pre);
		return pre == 0;
	}
	default: return false;
	}
}

/* A lease of a host given up, or of one that has used its page budget,
 * is recorded, not fetched: returns true.  A host drained for its budget
 * that has room again (a reload raised the budget, a fetch was given
 * back) stops draining: the lease goes back and the host waits its
 * delay (true as well).  False: fetch it. */
bool host_skips(struct crawl *c, struct robots_slot *s, struct job *j)
{
	uint32_t host = j->lease.host_id;
	if (s->trouble && s->trouble->h.given_up) {
		record_unfetched(c, j, s->trouble->h.reason);
		return true;
	}
	/* The count of earlier runs, read before this run fetches from
	 * the host: from then on the loop counts its own fetches. */
	if (!s->budget_known) {
		s->budget_used = frontier_host_fetched(c->fr, host);
		s->budget_known = true;
	}
	uint64_t max = c->o->max_pages_per_host;
	/* A revisit is of a page the budget counted already. */
	if (!j->lease.revisit && max && s->budget_used >= max) {
		if (!s->drained)
			frontier_drain(c->fr, host, true, mono_ms());
		s->drained = true;
		record_unfetched(c, j, STORE_ERROR_HOST_BUDGET);
		return true;
	}
	if (s->drained) {
		s->drained = false;
		frontier_drain(c->fr, host, false, mono_ms());
		frontier_return(c->fr, &j->lease);
		job_free(j);
		return true;
	}
	return false;
}

/* A host's robots.txt rules are known: set them and the host's delay,
 * and give its parked leases back to the frontier, which offers them
 * again once the host's delay since the robots.txt request has passed. */
static void robots_install(struct crawl *c, struct job *j)
{
	uint32_t host = j->lease.host_id;
	struct robots_slot *s = &c->robots[host];
	struct parse_robots *r = j->rules;
	j->rules = NULL;
	parse_robots_free(s->rules);
	s->rules = r;
	s->state = R_READY;
	/* By the crawl's clock (wall_ms()), as the store keeps it: a
	 * daemon that runs for days asks again when it expires. */
	s->expires_ms = j->robots_expires > 0 ? (uint64_t)j->robots_expires : 0;

	uint32_t delay = c->o->per_host_delay_ms;
	uint32_t cd = parse_robots_crawl_delay_ms(r);
	if (cd > delay) {
		delay = cd;
		frontier_host_delay(c->fr, host, delay);
	}
	if (j->fetched) /* the robots.txt request counts as one */
		frontier_hold(c->fr, host, j->robots_started_ms + delay);
	struct job *p;
	while ((p = jobq_pop(&s->parked))) {
		c->parked--;
		frontier_return(c->fr, &p->lease);
		job_free(p);
	}
	job_free(j);
}

/* A host's robots.txt could not be had, so nothing of the host may be
 * fetched (RFC 9309 §2.3.1.4: assume complete disallow).  The host is
 * held and its parked leases go back to the frontier, or it is given up
 * and they are recorded with the reason. */
static void robots_failed(struct crawl *c, struct job *j, int reason,
			  const char *detail)
{
	uint32_t host = j->lease.host_id;
	bool gone = host_failed(c, j, j->robots_started_ms, reason, detail);
	struct robots_slot *s = &c->robots[host];
	s->state = R_NONE;
	struct job *p;
	while ((p = jobq_pop(&s->parked))) {
		c->parked--;
		if (gone) {
			record_unfetched(c, p, reason);
		} else {
			frontier_return(c->fr, &p->lease);
			job_free(p);
		}
	}
	job_free(j);
}

/* A robots.txt transfer ended.  A 2xx or 4xx answer goes to a parser,
 * then to the writer to be kept, then back to the loop (robots_back()).
 * So do more than five redirects: RFC 9309 §2.3.1.2 lets the file count
 * as unavailable, as a 4xx does (allow all), which is what Google does.
 * A 429 is no "unavailable" but a request to slow down, which Google
 * treats as a server error, and so do we: with a 5xx or no answer at
 * all, the robots.txt is unreachable (robots_failed()). */
void robots_done(struct crawl *c, struct xfer *x, CURLcode cc)
{
	struct job *j = x->job;
	x->job = NULL;
	long status = 0;
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	j->fetched = true;
	j->fetched_at = wall_ms();
	j->status = status;
	j->robots_started_ms = xfer_sent_ms(x);
	j->robots_expires = (int64_t)(j->fetched_at + ROBOTS_TTL_MS);
	bool answered = cc == CURLE_OK || x->truncated;
	if ((answered && ((status >= 200 && status < 300) ||
			  (status >= 400 && status < 500 && status != 429))) ||
	    (cc == CURLE_TOO_MANY_REDIRECTS && status >= 300 && status < 400)) {
		host_ok(c, j->lease.host_id);
		parse_submit(c, j, true);
		return;
	}
	char detail[sizeof(x->errbuf) + 32];
	int reason = STORE_ERROR_ROBOTS_UNREACHABLE;
	if (answered) {
		snprintf(detail, sizeof(detail), "robots.txt answered %ld",
			 status);
	} else {
		int k = error_kind(cc);
		if (k == STORE_ERROR_DNS || k == STORE_ERROR_CONNECT ||
		    k == STORE_ERROR_TLS || k == STORE_ERROR_TIMEOUT)
			reason = k;
		snprintf(detail, sizeof(detail), "robots.txt: %s",
			 x->errbuf[0] ? x->errbuf : curl_easy_strerror(cc));
	}
	robots_failed(c, j, reason, detail);
}

/* A robots.txt job came back from a parser or the writer: install its
 * rules, or fetch the file when no earlier run kept an answer. */
void robots_back(struct crawl *c, struct job *j)
{
	if (c->stopping) {
		job_free(j);
		return;
	}
	if (j->rules) {
		robots_install(c, j);
		return;
	}
	if (j->fetched) { /* an answer the parser could not read */
		robots_failed(c, j, STORE_ERROR_ROBOTS_UNREACHABLE,
			      "robots.txt could not be read");
		return;
	}
	struct xfer *x = calloc(1, sizeof(*x));
	if (!x) {
		crawl_die(c, SC_E_NOMEM, "robots.txt");
		job_free(j);
		return;
	}
	x->job = j;
	x->limit = SC_ROBOTS_MAX_BYTES;
	int rc = start_xfer(c, x, j->robots_url);
	if (rc) {
		free(x);
		job_free(j);
		crawl_die(c, rc, "starting a transfer");
	}
}
