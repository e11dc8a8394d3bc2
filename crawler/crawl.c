/* crawl.c — the crawl engine (see crawl.h): event loop, parsers, writer. */
#include "crawl.h"

#include <curl/curl.h>
#include <errno.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "frontier.h"
#include "parse.h"
#include "store.h"

/* Jobs the writer takes into one transaction at most. */
#define WRITE_BATCH 512
/* How long the writer waits for more jobs before it commits. */
#define WRITE_LINGER_MS 20
/* A robots.txt is trusted this long (RFC 9309 §2.4: up to 24 hours). */
#define ROBOTS_TTL_MS (24ull * 3600 * 1000)
/* After a robots.txt answered 5xx or could not be had, the host waits. */
#define ROBOTS_RETRY_MS 60000
/* 429/503: a page is tried again at most this often per host in a row. */
#define BACKOFF_MAX 3
#define BACKOFF_CAP_MS (5 * 60 * 1000)

static uint64_t mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static uint64_t wall_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* ---------------------------------------------------------------------
 * Jobs: one per leased URL, from the loop through a parser to the writer
 */

struct link {
	uint32_t off; /* in job.link_text */
	struct norm_url u;
};

struct job {
	struct job *next;
	struct frontier_lease lease;
	struct norm_url lease_u;
	bool fetched; /* a request was made */
	long status;
	int error; /* enum store_error */
	bool truncated;
	uint64_t fetched_at;
	char content_type[128];
	char location[NORM_URL_MAX * 2]; /* absolute, as curl resolved it */
	char *body;
	size_t body_len, body_cap;
	/* From the parser. */
	char title[PARSE_TITLE_MAX + 1];
	bool has_redirect;
	char redirect[NORM_URL_MAX + 1];
	struct norm_url redirect_u;
	struct link *links;
	size_t n_links, cap_links;
	char *link_text;
	size_t text_len, text_cap;
	unsigned links_bad;
};

static void job_free(struct job *j)
{
	if (!j)
		return;
	free(j->body);
	free(j->links);
	free(j->link_text);
	free(j);
}

/* A queue of jobs between threads. */
struct jobq {
	struct job *head, *tail;
	size_t n;
};

static void jobq_push(struct jobq *q, struct job *j)
{
	j->next = NULL;
	if (q->tail)
		q->tail->next = j;
	else
		q->head = j;
	q->tail = j;
	q->n++;
}

static struct job *jobq_pop(struct jobq *q)
{
	struct job *j = q->head;
	if (j) {
		q->head = j->next;
		if (!q->head)
			q->tail = NULL;
		q->n--;
	}
	return j;
}

/* ---------------------------------------------------------------------
 * The crawl
 */

enum robots_state { R_NONE, R_FETCHING, R_READY };

struct robots_slot {
	uint8_t state;
	uint8_t backoffs; /* 429/503 in a row */
	struct parse_robots *rules;
	uint64_t expires_ms;
	struct jobq parked; /* leases waiting for the rules */
};

struct xfer {
	struct xfer *prev, *next; /* the crawl's transfers in flight */
	CURL *easy;
	struct crawl *c;
	struct job *job; /* a page, or NULL for a robots.txt */
	uint32_t robots_host;
	uint64_t started_ms;
	char *buf; /* robots.txt body */
	size_t len, cap, limit;
	bool truncated;
	char errbuf[CURL_ERROR_SIZE];
};

struct crawl {
	const struct crawl_opts *o;
	struct event_base *base;
	CURLM *multi;
	struct event *curl_timer, *sched_timer, *tick, *wakeup;
	struct event *sigint, *sigterm;
	struct curl_slist *connect_to;
	MDB_env *env;
	struct store *store;
	struct frontier *fr;

	struct robots_slot *robots;
	size_t n_robots;

	unsigned running;     /* transfers in flight, pages and robots.txt */
	struct xfer *xfers;   /* the same, listed */
	unsigned parked;      /* leases waiting for a robots.txt */
	uint64_t started;     /* page fetches started */
	uint64_t in_pipeline; /* jobs not yet committed (under mu) */
	bool frontier_dry;    /* the last frontier_next() had nothing at all */
	bool stopping;
	bool done; /* check_done() ended the loop (or would have) */
	uint64_t t0;

	pthread_mutex_t mu;
	pthread_cond_t parse_cv, write_cv;
	struct jobq to_parse, to_write;
	bool quit_parsers, quit_writer;
	pthread_t *parsers;
	unsigned n_parsers;
	pthread_t writer;
	bool writer_started;
	int fatal;                /* an error that ends the crawl (under mu) */
	struct crawl_summary sum; /* under mu */
	uint64_t last_pages;
	uint64_t last_tick;
};

static void fill(struct crawl *c);
static void check_done(struct crawl *c);

static void die(struct crawl *c, int rc, const char *what)
{
	pthread_mutex_lock(&c->mu);
	if (!c->fatal) {
		c->fatal = rc;
		fprintf(stderr, "sigcrawl crawl: %s: %s\n", what,
			sc_strerror(rc));
	}
	pthread_mutex_unlock(&c->mu);
}

/* ---------------------------------------------------------------------
 * The writer: one transaction per batch of jobs
 */

static int write_job(struct crawl *c, MDB_txn *txn, struct job *j,
		     struct frontier_url **fu, size_t *n_fu, size_t *cap_fu)
{
	const struct crawl_opts *o = c->o;
	struct store_record r = { 0 };
	r.url = j->lease.found;
	r.url_len = j->lease.found_len;
	r.normalized = j->lease.url;
	r.normalized_len = j->lease.url_len;
	const char *cat = j->lease.category < o->n_categories
				  ? o->categories[j->lease.category].name
				  : "";
	r.category = cat;
	r.category_len = strlen(cat);
	r.depth = j->lease.depth;
	r.fetched = j->fetched;
	r.status = j->fetched && j->status >= 100 && j->status <= 999
			   ? (int)j->status
			   : 0;
	r.error = (enum store_error)j->error;
	r.truncated = j->truncated;
	if (j->fetched) {
		r.bytes = j->body_len;
		r.fetched_at = (int64_t)j->fetched_at;
		if (j->content_type[0]) {
			r.content_type = j->content_type;
			r.content_type_len = strlen(j->content_type);
		}
	}
	if (j->title[0]) {
		r.title = j->title;
		r.title_len = strlen(j->title);
	}
	if (j->has_redirect) {
		r.redirect = j->redirect;
		r.redirect_len = strlen(j->redirect);
	}
	int rc = store_put(c->store, txn, &r);
	if (rc)
		return rc;
	if ((rc = frontier_done(c->fr, txn, &j->lease)) && rc != SC_E_NOTFOUND)
		return rc;

	/* New URLs: the redirect target at the same depth, links one
	 * deeper.  They are queued together at the end of the batch. */
	size_t need = *n_fu + j->n_links + 1;
	if (need > *cap_fu) {
		size_t cap = *cap_fu ? *cap_fu : 1024;
		while (cap < need)
			cap *= 2;
		struct frontier_url *v = realloc(*fu, cap * sizeof(*v));
		if (!v)
			return SC_E_NOMEM;
		*fu = v;
		*cap_fu = cap;
	}
	if (j->has_redirect && j->lease.redirects < 10) {
		(*fu)[(*n_fu)++] = (struct frontier_url){
			.url = j->redirect,
			.url_len = j->redirect_u.len,
			.u = &j->redirect_u,
			.found = j->redirect,
			.found_len = j->redirect_u.len,
			.depth = j->lease.depth,
			.redirects = (uint8_t)(j->lease.redirects + 1),
		};
	}
	if (j->lease.depth + 1u <= o->max_depth) {
		for (size_t i = 0; i < j->n_links; i++) {
			struct link *l = &j->links[i];
			(*fu)[(*n_fu)++] = (struct frontier_url){
				.url = j->link_text + l->off,
				.url_len = l->u.len,
				.u = &l->u,
				.found = j->link_text + l->off,
				.found_len = l->u.len,
				.depth = (uint16_t)(j->lease.depth + 1),
			};
		}
	}
	return 0;
}

static void *writer_main(void *arg)
{
	struct crawl *c = arg;
	struct frontier_url *fu = NULL;
	size_t cap_fu = 0;
	struct job *batch[WRITE_BATCH];

	for (;;) {
		pthread_mutex_lock(&c->mu);
		while (!c->to_write.head && !c->quit_writer)
			pthread_cond_wait(&c->write_cv, &c->mu);
		if (!c->to_write.head && c->quit_writer) {
			pthread_mutex_unlock(&c->mu);
			break;
		}
		/* Linger a little when the batch is small: fewer, larger
		 * commits.  Every job a parser hands over signals write_cv,
		 * so the wait goes on until the deadline, not the first
		 * signal (that committed some 5 pages at a time, with an
		 * msync each). */
		if (c->to_write.n < WRITE_BATCH / 4 && !c->quit_writer) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += WRITE_LINGER_MS * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			while (c->to_write.n < WRITE_BATCH / 4 &&
			       !c->quit_writer &&
			       pthread_cond_timedwait(&c->write_cv, &c->mu,
						      &ts) != ETIMEDOUT)
				;
		}
		size_t n = 0;
		struct job *j;
		while (n < WRITE_BATCH && (j = jobq_pop(&c->to_write)))
			batch[n++] = j;
		pthread_mutex_unlock(&c->mu);

		MDB_txn *txn;
		int rc = mdb_txn_begin(c->env, NULL, 0, &txn) ? SC_E_DB : 0;
		size_t n_fu = 0;
		for (size_t i = 0; i < n && !rc; i++)
			rc = write_job(c, txn, batch[i], &fu, &n_fu, &cap_fu);
		int queued = 0;
		if (!rc && n_fu) {
			queued = frontier_add_batch(c->fr, txn, fu, n_fu, NULL);
			if (queued < 0)
				rc = queued;
		}
		if (!rc && mdb_txn_commit(txn))
			rc = SC_E_DB;
		else if (rc)
			mdb_txn_abort(txn);
		if (rc) {
			frontier_discarded(c->fr);
			die(c, rc, "writing the store");
		} else {
			frontier_published(c->fr);
		}

		pthread_mutex_lock(&c->mu);
		for (size_t i = 0; i < n; i++) {
			struct job *b = batch[i];
			if (!rc) {
				if (b->fetched) {
					c->sum.pages++;
					c->sum.bytes += b->body_len;
					c->sum.by_class
						[b->status >= 100 &&
								 b->status < 600
							 ? b->status / 100
							 : 0]++;
				}
				if (b->error &&
				    b->error != STORE_ERROR_ROBOTS_DISALLOWED)
					c->sum.errors++;
				if (b->error == STORE_ERROR_ROBOTS_DISALLOWED)
					c->sum.robots_disallowed++;
				c->sum.links_bad += b->links_bad;
			}
			job_free(b);
		}
		if (!rc)
			c->sum.queued += (uint64_t)queued;
		c->in_pipeline -= n;
		pthread_mutex_unlock(&c->mu);
		event_active(c->wakeup, EV_READ, 0);
	}
	free(fu);
	return NULL;
}

/* ---------------------------------------------------------------------
 * The parsers
 */

static int keep_link(void *ctx, const struct parse_link *l)
{
	struct job *j = ctx;
	if (l->nofollow)
		return 0;
	/* <link> elements are followed only as canonical or alternate
	 * versions of the page, not as style sheets and icons. */
	if (l->kind == PARSE_LINK_LINK &&
	    !(l->rel & (PARSE_REL_CANONICAL | PARSE_REL_ALTERNATE)))
		return 0;
	size_t n = (size_t)l->u->len + 1;
	if (j->text_len + n > j->text_cap) {
		size_t cap = j->text_cap ? j->text_cap * 2 : 4096;
		while (cap < j->text_len + n)
			cap *= 2;
		char *t = realloc(j->link_text, cap);
		if (!t)
			return SC_E_NOMEM;
		j->link_text = t;
		j->text_cap = cap;
	}
	if (j->n_links == j->cap_links) {
		size_t cap = j->cap_links ? j->cap_links * 2 : 32;
		struct link *v = realloc(j->links, cap * sizeof(*v));
		if (!v)
			return SC_E_NOMEM;
		j->links = v;
		j->cap_links = cap;
	}
	memcpy(j->link_text + j->text_len, l->url, n);
	j->links[j->n_links++] = (struct link){ (uint32_t)j->text_len, *l->u };
	j->text_len += n;
	return 0;
}

static bool is_html(const struct job *j)
{
	const char *t = j->content_type;
	if (!t[0]) /* no type: sniff the way browsers start to */
		return j->body_len &&
		       (j->body[0] == '<' ||
			(j->body_len > 3 && j->body[0] == '\xef'));
	return strncasecmp(t, "text/html", 9) == 0 ||
	       strncasecmp(t, "application/xhtml+xml", 21) == 0;
}

static void parse_job(struct crawl *c, struct job *j)
{
	const struct crawl_opts *o = c->o;
	if (j->status >= 300 && j->status < 400 && j->location[0]) {
		int rc = norm_url(&o->norm, NULL, j->location,
				  strlen(j->location), j->redirect,
				  sizeof(j->redirect), &j->redirect_u);
		if (rc == 0) {
			j->has_redirect = true;
			if (j->lease.redirects >= 10)
				j->error = STORE_ERROR_TOO_MANY_REDIRECTS;
		} else {
			j->links_bad++;
		}
	} else if (j->status >= 200 && j->status < 300 && is_html(j)) {
		struct parse_page *pg = malloc(sizeof(*pg));
		if (pg) {
			int rc = parse_html(j->body, j->body_len, j->lease.url,
					    j->lease.url_len, &o->norm,
					    keep_link, j, pg);
			if (rc == 0) {
				memcpy(j->title, pg->title, sizeof(j->title));
				j->links_bad += pg->links_bad;
			}
			free(pg);
		}
	}
	/* The body is not kept (yet): free it before the writer's queue. */
	free(j->body);
	j->body = NULL;
	j->body_cap = 0;
}

static void *parser_main(void *arg)
{
	struct crawl *c = arg;
	for (;;) {
		pthread_mutex_lock(&c->mu);
		while (!c->to_parse.head && !c->quit_parsers)
			pthread_cond_wait(&c->parse_cv, &c->mu);
		struct job *j = jobq_pop(&c->to_parse);
		pthread_mutex_unlock(&c->mu);
		if (!j)
			break;
		parse_job(c, j);
		pthread_mutex_lock(&c->mu);
		jobq_push(&c->to_write, j);
		pthread_cond_signal(&c->write_cv);
		pthread_mutex_unlock(&c->mu);
	}
	return NULL;
}

/* Hand a finished job on: to a parser, or straight to the writer when
 * there is nothing to parse. */
static void submit(struct crawl *c, struct job *j, bool parse)
{
	pthread_mutex_lock(&c->mu);
	c->in_pipeline++;
	if (parse) {
		jobq_push(&c->to_parse, j);
		pthread_cond_signal(&c->parse_cv);
	} else {
		jobq_push(&c->to_write, j);
		pthread_cond_signal(&c->write_cv);
	}
	pthread_mutex_unlock(&c->mu);
}

/* ---------------------------------------------------------------------
 * Transfers
 */

static size_t write_cb(char *data, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;
	size_t n = size * nmemb;
	char **buf = x->job ? &x->job->body : &x->buf;
	size_t *len = x->job ? &x->job->body_len : &x->len;
	size_t *cap = x->job ? &x->job->body_cap : &x->cap;

	if (*len + n > x->limit) {
		/* Keep what fits, then stop the transfer: recorded as
		 * truncated, not as an error. */
		n = x->limit - *len;
		x->truncated = true;
	}
	if (*len + n > *cap) {
		size_t c = *cap ? *cap : 16384;
		while (c < *len + n)
			c *= 2;
		if (c > x->limit)
			c = x->limit;
		char *b = realloc(*buf, c);
		if (!b)
			return 0;
		*buf = b;
		*cap = c;
	}
	memcpy(*buf + *len, data, n);
	*len += n;
	return x->truncated ? 0 : size * nmemb;
}

static int start_xfer(struct crawl *c, struct xfer *x, const char *url)
{
	const struct crawl_opts *o = c->o;
	CURL *e = curl_easy_init();
	if (!e)
		return SC_E_NOMEM;
	x->easy = e;
	x->c = c;
	x->started_ms = mono_ms();
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_PRIVATE, x);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_USERAGENT, o->user_agent);
	curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, ""); /* all curl has */
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
			 (long)(o->timeout_s < 10 ? o->timeout_s : 10) * 1000L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)o->timeout_s * 1000L);
	if (c->connect_to)
		curl_easy_setopt(e, CURLOPT_CONNECT_TO, c->connect_to);
	if (x->job) {
		/* Redirects are the crawler's: the target is queued. */
		curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	} else {
		/* robots.txt: RFC 9309 §2.3.1.2, follow at least five. */
		curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
		curl_easy_setopt(e, CURLOPT_MAXREDIRS, 5L);
	}
	if (curl_multi_add_handle(c->multi, e) != CURLM_OK) {
		curl_easy_cleanup(e);
		return SC_E_NOMEM;
	}
	x->prev = NULL;
	x->next = c->xfers;
	if (c->xfers)
		c->xfers->prev = x;
	c->xfers = x;
	c->running++;
	return 0;
}

/* Take a finished or abandoned transfer out of the multi handle and the
 * list. */
static void xfer_unlink(struct crawl *c, struct xfer *x)
{
	curl_multi_remove_handle(c->multi, x->easy);
	if (x->prev)
		x->prev->next = x->next;
	else
		c->xfers = x->next;
	if (x->next)
		x->next->prev = x->prev;
	c->running--;
}

static int error_kind(CURLcode cc)
{
	switch (cc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY: return STORE_ERROR_DNS;
	case CURLE_COULDNT_CONNECT: return STORE_ERROR_CONNECT;
	case CURLE_OPERATION_TIMEDOUT: return STORE_ERROR_TIMEOUT;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE: return STORE_ERROR_TLS;
	case CURLE_BAD_CONTENT_ENCODING: return STORE_ERROR_DECOMPRESSION;
	default: return STORE_ERROR_OTHER;
	}
}

static struct robots_slot *robots_slot(struct crawl *c, uint32_t host)
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

/* A robots.txt arrived (or did not): set the host's rules and delay, and
 * give its parked leases back to the frontier, which offers them again
 * once the host's delay since the robots.txt request has passed. */
static void robots_done(struct crawl *c, struct xfer *x, CURLcode cc)
{
	struct robots_slot *s = &c->robots[x->robots_host];
	long status = 0;
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	uint64_t now = mono_ms();
	struct parse_robots *r = NULL;
	int rc;
	bool retry = false;

	if ((cc == CURLE_OK || x->truncated) && status >= 200 && status < 300)
		rc = parse_robots(x->buf ? x->buf : "", x->len,
				  c->o->robots_token, &r);
	else if ((cc == CURLE_OK || x->truncated) && status >= 400 &&
		 status < 500)
		rc = parse_robots_allow_all(&r);
	else {
		rc = parse_robots_disallow_all(&r);
		retry = true;
	}
	if (rc) {
		die(c, rc, "robots.txt");
		return;
	}
	parse_robots_free(s->rules);
	s->rules = r;
	s->state = R_READY;
	s->expires_ms = now + (retry ? ROBOTS_RETRY_MS : ROBOTS_TTL_MS);

	uint32_t delay = c->o->per_host_delay_ms;
	uint32_t cd = parse_robots_crawl_delay_ms(r);
	if (cd > delay) {
		delay = cd;
		frontier_host_delay(c->fr, x->robots_host, delay);
	}
	/* A host whose robots.txt could not be had waits and asks again;
	 * its URLs stay queued, nothing is recorded as disallowed. */
	frontier_hold(c->fr, x->robots_host,
		      retry ? now + ROBOTS_RETRY_MS : x->started_ms + delay);
	if (retry)
		s->state = R_NONE;
	struct job *j;
	while ((j = jobq_pop(&s->parked))) {
		c->parked--;
		frontier_return(c->fr, &j->lease);
		job_free(j);
	}
}

static void page_done(struct crawl *c, struct xfer *x, CURLcode cc)
{
	struct job *j = x->job;
	struct robots_slot *s = robots_slot(c, j->lease.host_id);
	long status = 0;
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);

	/* 429 and 503 with Retry-After: the host backs off and the page is
	 * tried again, a few times in a row at most. */
	if (cc == CURLE_OK && (status == 429 || status == 503) && s &&
	    s->backoffs < BACKOFF_MAX) {
		curl_off_t after = 0;
		curl_easy_getinfo(x->easy, CURLINFO_RETRY_AFTER, &after);
		if (after > 0) {
			uint64_t ms = (uint64_t)after * 1000;
			if (ms > BACKOFF_CAP_MS)
				ms = BACKOFF_CAP_MS;
			s->backoffs++;
			frontier_hold(c->fr, j->lease.host_id, mono_ms() + ms);
			frontier_return(c->fr, &j->lease);
			job_free(j);
			return;
		}
	}
	if (s && status != 429 && status != 503)
		s->backoffs = 0;

	j->fetched = true;
	j->fetched_at = wall_ms();
	j->truncated = x->truncated;
	if (cc == CURLE_OK || (cc == CURLE_WRITE_ERROR && x->truncated)) {
		j->status = status;
		char *ct = NULL;
		curl_easy_getinfo(x->easy, CURLINFO_CONTENT_TYPE, &ct);
		if (ct)
			snprintf(j->content_type, sizeof(j->content_type), "%s",
				 ct);
		char *loc = NULL;
		curl_easy_getinfo(x->easy, CURLINFO_REDIRECT_URL, &loc);
		if (loc && strlen(loc) < sizeof(j->location))
			strcpy(j->location, loc);
		if (x->truncated)
			j->error = STORE_ERROR_TOO_BIG;
		else if (status >= 400)
			j->error = STORE_ERROR_HTTP_ERROR;
	} else {
		j->status = status;
		j->error = error_kind(cc);
	}
	frontier_release(c->fr, j->lease.host_id);
	x->job = NULL;
	submit(c, j, true);
}

static void check_multi_info(struct crawl *c)
{
	CURLMsg *m;
	int left;
	while ((m = curl_multi_info_read(c->multi, &left))) {
		if (m->msg != CURLMSG_DONE)
			continue;
		struct xfer *x;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE,
				  (char **)&x);
		CURLcode cc = m->data.result;
		xfer_unlink(c, x);
		if (x->job)
			page_done(c, x, cc);
		else
			robots_done(c, x, cc);
		curl_easy_cleanup(x->easy);
		free(x->buf);
		free(x);
	}
	fill(c);
	check_done(c);
}

/* ---------------------------------------------------------------------
 * libcurl's multi socket API in libevent (STYLE.md)
 */

static void on_socket(evutil_socket_t fd, short kind, void *arg)
{
	struct crawl *c = arg;
	int action = ((kind & EV_READ) ? CURL_CSELECT_IN : 0) |
		     ((kind & EV_WRITE) ? CURL_CSELECT_OUT : 0);
	int running;
	curl_multi_socket_action(c->multi, fd, action, &running);
	check_multi_info(c);
}

static int curl_socket_cb(CURL *e, curl_socket_t s, int what, void *cbp,
			  void *sockp)
{
	(void)e;
	struct crawl *c = cbp;
	struct event *ev = sockp;
	if (what == CURL_POLL_REMOVE) {
		if (ev) {
			event_free(ev);
			curl_multi_assign(c->multi, s, NULL);
		}
		return 0;
	}
	short kind = (short)(((what & CURL_POLL_IN) ? EV_READ : 0) |
			     ((what & CURL_POLL_OUT) ? EV_WRITE : 0) |
			     EV_PERSIST);
	if (ev) {
		event_del(ev);
		event_assign(ev, c->base, s, kind, on_socket, c);
	} else {
		ev = event_new(c->base, s, kind, on_socket, c);
		if (!ev)
			return -1;
		curl_multi_assign(c->multi, s, ev);
	}
	event_add(ev, NULL);
	return 0;
}

static void on_curl_timer(evutil_socket_t fd, short kind, void *arg)
{
	(void)fd;
	(void)kind;
	struct crawl *c = arg;
	int running;
	curl_multi_socket_action(c->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	check_multi_info(c);
}

static int curl_timer_cb(CURLM *m, long timeout_ms, void *arg)
{
	(void)m;
	struct crawl *c = arg;
	if (timeout_ms < 0) {
		evtimer_del(c->curl_timer);
	} else {
		/* 0 means "now": a zero timer, never a call from here. */
		struct timeval tv = { timeout_ms / 1000,
				      (timeout_ms % 1000) * 1000 };
		evtimer_add(c->curl_timer, &tv);
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * The scheduler
 */

/* scheme://authority/robots.txt of a URL to fetch: the authority ends at
 * the first '/', '?' or '#' after "://" (the path may be empty when
 * empty_path_slash is off). */
static void robots_url(const char *fetch, char *out, size_t cap)
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
	int rc = norm_url(&o->norm, NULL, j->lease.url, j->lease.url_len, fetch,
			  sizeof(fetch), &j->lease_u);
	if (rc == 0)
		rc = norm_fetch_url(j->lease.url, &j->lease_u, fetch,
				    sizeof(fetch));
	if (rc) {
		/* The queue holds only normalized URLs: this cannot
		 * happen unless the store was written by another
		 * version. Record and move on. */
		j->error = STORE_ERROR_OTHER;
		frontier_release(c->fr, j->lease.host_id);
		submit(c, j, false);
		return;
	}

	if (o->obey_robots) {
		struct robots_slot *s = robots_slot(c, j->lease.host_id);
		if (!s) {
			die(c, SC_E_NOMEM, "robots");
			job_free(j);
			return;
		}
		uint64_t now = mono_ms();
		if (s->state == R_READY && now >= s->expires_ms)
			s->state = R_NONE;
		if (s->state != R_READY) {
			jobq_push(&s->parked, j);
			c->parked++;
			if (s->state == R_NONE) {
				struct xfer *x = calloc(1, sizeof(*x));
				if (!x) {
					die(c, SC_E_NOMEM, "robots");
					return;
				}
				char url[NORM_URL_MAX + 32];
				robots_url(fetch, url, sizeof(url));
				x->robots_host = j->lease.host_id;
				x->limit = PARSE_ROBOTS_MAX_BYTES;
				s->state = R_FETCHING;
				if ((rc = start_xfer(c, x, url))) {
					free(x);
					die(c, rc, "starting a transfer");
				}
			}
			return;
		}
		const char *pq = j->lease.url + j->lease_u.path_off;
		size_t pql = j->lease_u.path_len +
			     (j->lease_u.has_query ? 1u + j->lease_u.query_len
						   : 0);
		if (!parse_robots_allowed(s->rules, pq, pql)) {
			j->error = STORE_ERROR_ROBOTS_DISALLOWED;
			frontier_release(c->fr, j->lease.host_id);
			submit(c, j, false);
			return;
		}
	}

	struct xfer *x = calloc(1, sizeof(*x));
	if (!x) {
		die(c, SC_E_NOMEM, "transfer");
		job_free(j);
		return;
	}
	x->job = j;
	x->limit = o->max_body_bytes;
	c->started++;
	if ((rc = start_xfer(c, x, fetch))) {
		free(x);
		job_free(j);
		die(c, rc, "starting a transfer");
	}
}

static void fill(struct crawl *c)
{
	const struct crawl_opts *o = c->o;
	pthread_mutex_lock(&c->mu);
	bool fatal = c->fatal != 0;
	/* Parsed jobs waiting for the writer have dropped their bodies and
	 * wait at most WRITE_LINGER_MS: they do not count. */
	uint64_t pipeline = c->in_pipeline - c->to_write.n;
	pthread_mutex_unlock(&c->mu);
	if (fatal)
		c->stopping = true;

	/* Backpressure: fetching outruns the parsers, and every finished
	 * body waits in the pipeline with its job (some 30 KB): no new
	 * fetch starts while transfers in flight and jobs not yet
	 * committed reach twice `concurrency`, which bounds the heap.  The
	 * writer's wakeup after each commit calls fill() again. */
	while (!c->stopping && c->running < o->concurrency &&
	       c->running + pipeline < 2ull * o->concurrency &&
	       (!o->max_pages || c->started + c->parked < o->max_pages)) {
		struct job *j = calloc(1, sizeof(*j));
		if (!j) {
			die(c, SC_E_NOMEM, "scheduling");
			return;
		}
		uint64_t wait;
		int rc = frontier_next(c->fr, mono_ms(), &j->lease, &wait);
		if (rc == SC_E_AGAIN) {
			free(j);
			c->frontier_dry = wait == UINT64_MAX;
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
			die(c, rc, "reading the frontier");
			return;
		}
		c->frontier_dry = false;
		start_lease(c, j);
	}
}

static void check_done(struct crawl *c)
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
	if (c->stopping || fatal || limit || c->frontier_dry) {
		/* A break before the loop runs would be forgotten by
		 * libevent: the flag says it. */
		c->done = true;
		event_base_loopbreak(c->base);
	}
}

static void on_sched_timer(evutil_socket_t fd, short kind, void *arg)
{
	(void)fd;
	(void)kind;
	struct crawl *c = arg;
	fill(c);
	check_done(c);
}

/* The writer committed a batch: new URLs may be ready. */
static void on_wakeup(evutil_socket_t fd, short kind, void *arg)
{
	(void)fd;
	(void)kind;
	struct crawl *c = arg;
	fill(c);
	check_done(c);
}

static void stop_now(struct crawl *c)
{
	if (c->stopping)
		return;
	c->stopping = true;
	/* Transfers in flight and parked leases are abandoned: their URLs
	 * are still queued and are fetched after a restart. */
	while (c->xfers) {
		struct xfer *x = c->xfers;
		xfer_unlink(c, x);
		curl_easy_cleanup(x->easy);
		job_free(x->job);
		free(x->buf);
		free(x);
	}
	for (size_t h = 0; h < c->n_robots; h++) {
		struct job *j;
		while ((j = jobq_pop(&c->robots[h].parked))) {
			c->parked--;
			job_free(j);
		}
	}
	check_done(c);
}

static void on_signal(evutil_socket_t sig, short kind, void *arg)
{
	(void)kind;
	struct crawl *c = arg;
	if (!c->o->quiet)
		fprintf(stderr, "\nsigcrawl crawl: %s: stopping\n",
			sig == SIGINT ? "SIGINT" : "SIGTERM");
	pthread_mutex_lock(&c->mu);
	c->sum.interrupted = true;
	pthread_mutex_unlock(&c->mu);
	stop_now(c);
}

static void progress(struct crawl *c, bool final)
{
	struct frontier_stats st;
	frontier_stats(c->fr, &st);
	pthread_mutex_lock(&c->mu);
	struct crawl_summary s = c->sum;
	pthread_mutex_unlock(&c->mu);
	double el = (double)(mono_ms() - c->t0) / 1000.0;
	double rate = el > 0 ? (double)s.pages / el : 0;
	bool tty = isatty(2);
	fprintf(stderr,
		"%spages %llu  %.1f/s  queue %llu  hosts %u  errors %llu  "
		"disallowed %llu  elapsed %.0fs%s",
		tty ? "\r\033[K" : "", (unsigned long long)s.pages, rate,
		(unsigned long long)st.queued, st.hosts,
		(unsigned long long)s.errors,
		(unsigned long long)s.robots_disallowed, el,
		tty && !final ? "" : "\n");
}

static void on_tick(evutil_socket_t fd, short kind, void *arg)
{
	(void)fd;
	(void)kind;
	struct crawl *c = arg;
	uint64_t now = mono_ms();
	/* A live line every second on a terminal, else every 5 s. */
	if (!c->o->quiet && (isatty(2) || now - c->last_tick >= 5000)) {
		progress(c, false);
		c->last_tick = now;
	}
}

/* ---------------------------------------------------------------------
 * Seeds
 */

static int add_seeds_of(struct crawl *c, MDB_txn *txn, uint16_t cat,
			const char *path, int *added)
{
	const struct crawl_opts *o = c->o;
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "sigcrawl crawl: %s: %s\n", path,
			strerror(errno));
		return SC_E_IO;
	}
	static const struct norm_opts strict_found = { .steps = 0xff };
	char line[NORM_INPUT_MAX + 2], out[NORM_URL_MAX + 1],
		found[NORM_URL_MAX + 1];
	struct norm_url u, fu_u;
	unsigned lineno = 0;
	int rc = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		size_t n = strlen(line);
		if (n && line[n - 1] != '\n' && !feof(f)) {
			int ch;
			while ((ch = fgetc(f)) != EOF && ch != '\n')
				;
			fprintf(stderr,
				"sigcrawl crawl: %s:%u: line too long\n", path,
				lineno);
			continue;
		}
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || *p == '\r' || !*p)
			continue;
		n = strlen(p);
		int r = norm_url(&o->norm, NULL, p, n, out, sizeof(out), &u);
		if (r == 0)
			r = norm_url(&strict_found, NULL, p, n, found,
				     sizeof(found), &fu_u);
		if (r) {
			fprintf(stderr, "sigcrawl crawl: %s:%u: %s\n", path,
				lineno, sc_strerror(r));
			continue;
		}
		struct frontier_url fu = {
			.url = out,
			.url_len = u.len,
			.u = &u,
			.found = found,
			.found_len = fu_u.len,
			.depth = 0,
			.category = cat,
		};
		if ((r = frontier_add(c->fr, txn, &fu)) < 0) {
			rc = r;
			break;
		}
		*added += r;
	}
	fclose(f);
	return rc;
}

/* Queue the seeds of every category; seeds seen before (a resumed crawl)
 * are not queued again. */
static int add_seeds(struct crawl *c)
{
	const struct crawl_opts *o = c->o;
	MDB_txn *txn;
	if (mdb_txn_begin(c->env, NULL, 0, &txn))
		return SC_E_DB;
	int rc = 0, added = 0;
	for (size_t i = 0; i < o->n_categories && !rc; i++)
		if (o->categories[i].seeds_file)
			rc = add_seeds_of(c, txn, (uint16_t)i,
					  o->categories[i].seeds_file, &added);
	if (rc || mdb_txn_commit(txn)) {
		if (rc)
			mdb_txn_abort(txn);
		frontier_discarded(c->fr);
		return rc ? rc : SC_E_DB;
	}
	frontier_published(c->fr);
	if (!o->quiet)
		fprintf(stderr, "sigcrawl crawl: %d new seeds queued\n", added);
	return 0;
}

/* ---------------------------------------------------------------------
 * Run
 */

int crawl_run(const struct crawl_opts *o, struct crawl_summary *ret)
{
	struct crawl *c = calloc(1, sizeof(*c));
	if (!c)
		return SC_E_NOMEM;
	c->o = o;
	c->t0 = c->last_tick = mono_ms();
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->parse_cv, NULL);
	pthread_cond_init(&c->write_cv, NULL);
	int rc = 0;

	if (evthread_use_pthreads() != 0 || !(c->base = event_base_new())) {
		rc = SC_E_NOMEM;
		goto out;
	}
	if ((rc = store_env_open(o->store_dir, 0, &c->env))) {
		fprintf(stderr, "sigcrawl crawl: %s: %s\n", o->store_dir,
			rc == SC_E_IO ? strerror(errno) : sc_strerror(rc));
		goto out;
	}
	MDB_txn *txn;
	struct frontier_opts fo = { o->per_host_connections,
				    o->per_host_delay_ms };
	if (mdb_txn_begin(c->env, NULL, 0, &txn)) {
		rc = SC_E_DB;
		goto out;
	}
	if ((rc = store_open(c->env, txn, &c->store)) ||
	    (rc = frontier_open(c->env, txn, &fo, &c->fr))) {
		mdb_txn_abort(txn);
		fprintf(stderr, "sigcrawl crawl: %s: %s\n", o->store_dir,
			sc_strerror(rc));
		goto out;
	}
	if (mdb_txn_commit(txn)) {
		rc = SC_E_DB;
		goto out;
	}
	if ((rc = add_seeds(c)))
		goto out;

	for (size_t i = 0; i < o->n_connect_to; i++) {
		struct curl_slist *l = curl_slist_append(c->connect_to,
							 o->connect_to[i]);
		if (!l) {
			rc = SC_E_NOMEM;
			goto out;
		}
		c->connect_to = l;
	}

	c->multi = curl_multi_init();
	c->curl_timer = evtimer_new(c->base, on_curl_timer, c);
	c->sched_timer = evtimer_new(c->base, on_sched_timer, c);
	c->tick = event_new(c->base, -1, EV_PERSIST, on_tick, c);
	c->wakeup = event_new(c->base, -1, 0, on_wakeup, c);
	c->sigint = evsignal_new(c->base, SIGINT, on_signal, c);
	c->sigterm = evsignal_new(c->base, SIGTERM, on_signal, c);
	if (!c->multi || !c->curl_timer || !c->sched_timer || !c->tick ||
	    !c->wakeup || !c->sigint || !c->sigterm) {
		rc = SC_E_NOMEM;
		goto out;
	}
	curl_multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION, curl_socket_cb);
	curl_multi_setopt(c->multi, CURLMOPT_SOCKETDATA, c);
	curl_multi_setopt(c->multi, CURLMOPT_TIMERFUNCTION, curl_timer_cb);
	curl_multi_setopt(c->multi, CURLMOPT_TIMERDATA, c);
	/* The scheduler limits transfers, in all (concurrency) and per host
	 * (the frontier's leases), so libcurl gets no connection limits of
	 * its own: they count per connect-to destination, not per host, and
	 * with --connect-to sending every host to one address they made
	 * libcurl close one host's idle connection to open another's (on
	 * bench/crawl, 11,816 connections for 15,008 requests).  Its cache
	 * keeps up to two idle connections per transfer slot. */
	curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS,
			  (long)o->concurrency * 2);
	struct timeval one = { 1, 0 };
	event_add(c->tick, &one);
	event_add(c->sigint, NULL);
	event_add(c->sigterm, NULL);

	c->n_parsers = o->parser_threads;
	if (!c->n_parsers) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		c->n_parsers = n > 0 ? (unsigned)n : 1;
	}
	c->parsers = calloc(c->n_parsers, sizeof(*c->parsers));
	if (!c->parsers) {
		rc = SC_E_NOMEM;
		goto out;
	}
	for (unsigned i = 0; i < c->n_parsers; i++)
		if (pthread_create(&c->parsers[i], NULL, parser_main, c)) {
			c->n_parsers = i;
			rc = SC_E_NOMEM;
			goto out;
		}
	if (pthread_create(&c->writer, NULL, writer_main, c)) {
		rc = SC_E_NOMEM;
		goto out;
	}
	c->writer_started = true;

	fill(c);
	check_done(c);
	if (!c->done)
		event_base_dispatch(c->base);
	if (!o->quiet)
		progress(c, true);

out:
	/* Stop the threads: parsers first, then the writer, which commits
	 * what they handed over. */
	pthread_mutex_lock(&c->mu);
	c->quit_parsers = true;
	pthread_cond_broadcast(&c->parse_cv);
	pthread_mutex_unlock(&c->mu);
	for (unsigned i = 0; i < c->n_parsers; i++)
		pthread_join(c->parsers[i], NULL);
	if (c->writer_started) {
		pthread_mutex_lock(&c->mu);
		c->quit_writer = true;
		pthread_cond_broadcast(&c->write_cv);
		pthread_mutex_unlock(&c->mu);
		pthread_join(c->writer, NULL);
	}
	if (!rc && c->fatal)
		rc = c->fatal;
	if (ret) {
		*ret = c->sum;
		ret->seconds = (double)(mono_ms() - c->t0) / 1000.0;
	}
	if (c->multi) {
		stop_now(c);
		curl_multi_cleanup(c->multi);
	}
	for (size_t h = 0; h < c->n_robots; h++)
		parse_robots_free(c->robots[h].rules);
	free(c->robots);
	curl_slist_free_all(c->connect_to);
	if (c->curl_timer)
		event_free(c->curl_timer);
	if (c->sched_timer)
		event_free(c->sched_timer);
	if (c->tick)
		event_free(c->tick);
	if (c->wakeup)
		event_free(c->wakeup);
	if (c->sigint)
		event_free(c->sigint);
	if (c->sigterm)
		event_free(c->sigterm);
	if (c->base)
		event_base_free(c->base);
	frontier_close(c->fr);
	store_close(c->store);
	store_env_close(c->env);
	free(c->parsers);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->parse_cv);
	pthread_cond_destroy(&c->write_cv);
	free(c);
	return rc;
}
