/* robots-gate.c — the per-host gate on the loop: robots.txt (looked up,
 * fetched, installed, failed), unreachable hosts (retries with backoff, given
 * up or held) and the per-host page budget. */
#include "crawl-int.h"

#include <xxhash.h>

/* The slots the array holds once it has room for host, from have. */
static size_t slots_for(size_t have, uint32_t host)
{
	size_t n = have ? have : 64;
	while (n <= host)
		n *= 2;
	return n;
}

struct robots_slot *robots_slot(struct crawl *c, uint32_t host)
{
	if (host >= c->n_robots) {
		size_t n = slots_for(c->n_robots, host);
		struct robots_slot *v = realloc(c->robots, n * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + c->n_robots, 0, (n - c->n_robots) * sizeof(*v));
		c->robots = v;
		c->n_robots = n;
	}
	return &c->robots[host];
}

/* ---- The robots.txt URLs asked for ------------------------------------
 *
 * One request per robots.txt URL: a host's robots.txt may redirect to
 * another host's (www.a.test's to a.test's, RFC 9309 §2.3.1.2 says to
 * follow), and that request is one to the other host.  So the loop
 * follows the redirects itself, one request at a time, and remembers
 * each URL it asked for with the host whose job asked.  A job that comes
 * to a URL another host's job has asked for waits for that job's answer
 * (robots_slot.waiting), or reads it from the store once it is known,
 * instead of asking again; and a host's delay counts from the last
 * request for its robots.txt, whichever job made it. */
struct robots_req {
	struct robots_req *next;
	uint64_t hash;
	uint32_t owner;   /* the host whose job asked for it last */
	uint64_t sent_ms; /* when it was sent (mono_ms(); 0: not yet) */
	/* That host's robots.txt URL, its answer's key: url itself when the
	 * two are one (a host's own robots.txt, most entries), so that most
	 * hosts keep one copy of it, not two. */
	char *owner_url;
	char url[];
};

static struct robots_req *req_find(struct crawl *c, const char *url)
{
	if (!c->robots_reqs_cap)
		return NULL;
	uint64_t h = XXH3_64bits(url, strlen(url));
	for (struct robots_req *e = c->robots_reqs[h % c->robots_reqs_cap]; e;
	     e = e->next)
		if (e->hash == h && strcmp(e->url, url) == 0)
			return e;
	return NULL;
}

/* The entry of url, made if new; NULL: out of memory. */
static struct robots_req *req_get(struct crawl *c, const char *url)
{
	struct robots_req *e = req_find(c, url);
	if (e)
		return e;
	if (c->robots_reqs_n >= c->robots_reqs_cap) {
		size_t cap = c->robots_reqs_cap ? 2 * c->robots_reqs_cap : 64;
		struct robots_req **v = calloc(cap, sizeof(*v));
		if (!v)
			return NULL;
		for (size_t i = 0; i < c->robots_reqs_cap; i++) {
			while ((e = c->robots_reqs[i])) {
				c->robots_reqs[i] = e->next;
				e->next = v[e->hash % cap];
				v[e->hash % cap] = e;
			}
		}
		free(c->robots_reqs);
		c->robots_reqs = v;
		c->robots_reqs_cap = cap;
	}
	size_t n = strlen(url);
	if (!(e = calloc(1, sizeof(*e) + n + 1)))
		return NULL;
	memcpy(e->url, url, n + 1);
	e->hash = XXH3_64bits(url, n);
	e->next = c->robots_reqs[e->hash % c->robots_reqs_cap];
	c->robots_reqs[e->hash % c->robots_reqs_cap] = e;
	c->robots_reqs_n++;
	return e;
}

void robots_reqs_free(struct crawl *c)
{
	for (size_t i = 0; i < c->robots_reqs_cap; i++) {
		struct robots_req *e;
		while ((e = c->robots_reqs[i])) {
			c->robots_reqs[i] = e->next;
			if (e->owner_url != e->url)
				free(e->owner_url);
			free(e);
		}
	}
	free(c->robots_reqs);
	c->robots_reqs = NULL;
	c->robots_reqs_cap = c->robots_reqs_n = 0;
}

void crawl_host_mem(uint32_t n, size_t url_len, struct crawl_host_mem *ret)
{
	ret->slot = sizeof(struct robots_slot);
	ret->slots = n ? slots_for(0, n - 1) * sizeof(struct robots_slot) : 0;
	/* req_get()'s table doubles from 64 buckets as entries pass it. */
	size_t cap = 64;
	while (cap < n)
		cap *= 2;
	/* A host's own robots.txt: its owner's URL is the entry's. */
	ret->robots_req = sizeof(struct robots_req) + url_len + 1 +
			  (n ? cap * sizeof(struct robots_req *) / n : 0);
}

/* Do two URLs have one scheme and authority? */
static bool same_origin(const char *a, const char *b)
{
	const char *ea = strstr(a, "://"), *eb = strstr(b, "://");
	if (!ea || !eb)
		return false;
	size_t na = (size_t)(ea + 3 - a) + strcspn(ea + 3, "/?#");
	size_t nb = (size_t)(eb + 3 - b) + strcspn(eb + 3, "/?#");
	return na == nb && strncasecmp(a, b, na) == 0;
}

static const char *robots_target(const struct job *j)
{
	return j->robots_next[0] ? j->robots_next : j->robots_url;
}

/* Would host self's job, waiting for host's, wait for itself: is self
 * on the chain of hosts that host's job waits for? */
static bool waits_for(const struct crawl *c, uint32_t host, uint32_t self)
{
	for (int i = 0; i < 64 && host; i++) {
		if (host == self)
			return true;
		if (host >= c->n_robots)
			return false;
		host = c->robots[host].waiting_on;
	}
	return host != 0;
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

/* The host's robots.txt has answered: the leases parked for it now
 * wait for a parser and the writer, and give up their transfer slot
 * (sched.c, slots_busy()).  Held, at 150 ms a robots.txt and its
 * commit against 110 ms for the answer alone, the slots had the
 * robots.txt of 5,000 hosts take 0.58 s at 1,024 transfers. */
static void parked_answer(struct crawl *c, struct robots_slot *s)
{
	uint16_t n = s->parked.n < UINT16_MAX ? (uint16_t)s->parked.n
					      : UINT16_MAX;
	c->parked_answered += (unsigned)(n - s->parked_answered);
	s->parked_answered = n;
}

/* Before the host's parked leases go: they no longer count. */
static void parked_unanswer(struct crawl *c, struct robots_slot *s)
{
	c->parked_answered -= s->parked_answered;
	s->parked_answered = 0;
}

/* A host's robots.txt rules are known: set them and the host's delay,
 * and give its parked leases back to the frontier, which offers them
 * again once the host's delay since the robots.txt request has passed.
 * The jobs of other hosts that waited for this answer read it from the
 * store, where it is kept by now. */
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
	/* The robots.txt request counts as one: the last this job sent to
	 * the host, or the one another host's job sent when its robots.txt
	 * redirected here. */
	uint64_t sent = j->robots_own_ms;
	const struct robots_req *e = req_find(c, j->robots_url);
	if (e && e->sent_ms > sent)
		sent = e->sent_ms;
	if (sent)
		frontier_hold(c->fr, host, sent + delay);
	parked_unanswer(c, s);
	struct job *p;
	while ((p = jobq_pop(&s->parked))) {
		c->parked--;
		frontier_return(c->fr, &p->lease);
		job_free(p);
	}
	while ((p = jobq_pop(&s->waiting))) {
		c->robots[p->lease.host_id].waiting_on = 0;
		snprintf(p->robots_from, ROBOTS_URL_CAP, "%s", j->robots_url);
		parse_submit(c, p, true);
	}
	job_free(j);
}

/* A host's robots.txt could not be had, so nothing of the host may be
 * fetched (RFC 9309 §2.3.1.4: assume complete disallow).  The host is
 * held and its parked leases go back to the frontier, or it is given up
 * and they are recorded with the reason.  The jobs of other hosts that
 * waited for this answer fail with it. */
static void robots_failed(struct crawl *c, struct job *j, int reason,
			  const char *detail)
{
	uint32_t host = j->lease.host_id;
	bool gone = host_failed(
		c, j, j->robots_started_ms ? j->robots_started_ms : mono_ms(),
		reason, detail);
	struct robots_slot *s = &c->robots[host];
	s->state = R_NONE;
	parked_unanswer(c, s);
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
	while ((p = jobq_pop(&c->robots[host].waiting))) {
		c->robots[p->lease.host_id].waiting_on = 0;
		robots_failed(c, p, reason, detail);
	}
	job_free(j);
}

/* More redirects than RFC 9309 §2.3.1.2 asks to follow (five), or a
 * redirect into a chain that waits for this one: the robots.txt counts
 * as unavailable, as a 4xx does (allow all), which is what Google does.
 * The answer (the last redirect's status) is kept as any other. */
static void robots_redirect_end(struct crawl *c, struct job *j)
{
	host_ok(c, j->lease.host_id);
	parked_answer(c, &c->robots[j->lease.host_id]);
	j->fetched = true;
	j->fetched_at = wall_ms();
	j->robots_expires = (int64_t)(j->fetched_at + ROBOTS_TTL_MS);
	sc_dyn_reset(&j->body);
	parse_submit(c, j, true);
}

/* Ask for the URL a robots.txt job is at (its host's robots.txt, or
 * where a redirect led), unless another host's job has asked for it:
 * then wait for that job's answer, or read it from the store if it is
 * known (a parser looks it up, robots_job()). */
static void robots_request(struct crawl *c, struct job *j)
{
	uint32_t host = j->lease.host_id;
	const char *u = robots_target(j);
	struct robots_req *e = req_find(c, u);
	if (e && e->owner != host && e->owner < c->n_robots &&
	    !j->robots_take) {
		struct robots_slot *o = &c->robots[e->owner];
		if (o->state == R_FETCHING) {
			if (waits_for(c, e->owner, host)) {
				robots_redirect_end(c, j);
				return;
			}
			c->robots[host].waiting_on = e->owner;
			jobq_push(&o->waiting, j);
			return;
		}
		if (o->state == R_READY && e->owner_url) {
			snprintf(j->robots_from, ROBOTS_URL_CAP, "%s",
				 e->owner_url);
			parse_submit(c, j, true);
			return;
		}
		/* That host cannot be reached now (it is held, or given
		 * up): nor can this robots.txt, and that host is not asked
		 * again for it. */
		if (o->trouble) {
			char detail[sizeof(o->trouble->h.detail)];
			snprintf(detail, sizeof(detail), "%s",
				 o->trouble->h.detail);
			robots_failed(c, j, o->trouble->h.reason, detail);
			return;
		}
	}
	j->robots_take = false;
	if (!e && !(e = req_get(c, u))) {
		crawl_die(c, SC_E_NOMEM, "robots.txt");
		job_free(j);
		return;
	}
	if (e->owner != host || !e->owner_url) {
		char *ou = strcmp(j->robots_url, e->url) == 0
				   ? e->url
				   : strdup(j->robots_url);
		if (!ou) {
			crawl_die(c, SC_E_NOMEM, "robots.txt");
			job_free(j);
			return;
		}
		if (e->owner_url != e->url)
			free(e->owner_url);
		e->owner_url = ou;
		e->owner = host;
	}
	struct xfer *x = calloc(1, sizeof(*x));
	if (!x) {
		crawl_die(c, SC_E_NOMEM, "robots.txt");
		job_free(j);
		return;
	}
	x->job = j;
	x->limit = SC_ROBOTS_MAX_BYTES;
	int rc = start_xfer(c, x, u);
	if (rc) {
		free(x);
		job_free(j);
		crawl_die(c, rc, "starting a transfer");
	}
}

/* A robots.txt request ended.  A redirect is followed (robots_request()),
 * at most five in a row (RFC 9309 §2.3.1.2).  A 2xx or 4xx answer goes
 * to a parser, then to the writer to be kept, then back to the loop
 * (robots_back()).  So do more than five redirects: the file counts as
 * unavailable, as a 4xx does (allow all).  A 429 is no "unavailable"
 * but a request to slow down, which Google treats as a server error, and
 * so do we: with a 5xx or no answer at all, the robots.txt is
 * unreachable (robots_failed()). */
void robots_done(struct crawl *c, struct xfer *x, CURLcode cc)
{
	struct job *j = x->job;
	x->job = NULL;
	uint32_t host = j->lease.host_id;
	long status = 0;
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	j->status = status;
	uint64_t sent = xfer_sent_ms(x);
	const char *u = robots_target(j);
	struct robots_req *e = req_find(c, u);
	if (e && e->owner == host)
		e->sent_ms = sent;
	if (!j->robots_started_ms)
		j->robots_started_ms = sent;
	if (same_origin(u, j->robots_url))
		j->robots_own_ms = sent;
	char *loc = NULL;
	if (cc == CURLE_OK && status >= 300 && status < 400 &&
	    curl_easy_getinfo(x->easy, CURLINFO_REDIRECT_URL, &loc) ==
		    CURLE_OK &&
	    loc) {
		if (j->robots_hops >= 5) {
			robots_redirect_end(c, j);
			return;
		}
		if (strlen(loc) < ROBOTS_URL_CAP &&
		    (!strncasecmp(loc, "http://", 7) ||
		     !strncasecmp(loc, "https://", 8))) {
			j->robots_hops++;
			memmove(j->robots_next, loc, strlen(loc) + 1);
			sc_dyn_reset(&j->body);
			robots_request(c, j);
			return;
		}
	}
	j->fetched = true;
	j->fetched_at = wall_ms();
	j->robots_expires = (int64_t)(j->fetched_at + ROBOTS_TTL_MS);
	bool answered = cc == CURLE_OK || x->truncated;
	if (answered && ((status >= 200 && status < 300) ||
			 (status >= 400 && status < 500 && status != 429))) {
		host_ok(c, host);
		parked_answer(c, &c->robots[host]);
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
 * rules, or ask for the file when no answer was kept (robots_request()):
 * by an earlier run, or by another host's job whose answer it borrows. */
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
	if (j->robots_from[0]) { /* the other host's answer was not kept */
		j->robots_from[0] = '\0';
		j->robots_take = true;
	}
	robots_request(c, j);
}
