/* crawl.c — the crawl engine (see crawl.h): event loop, parsers, writer. */
#include "crawl.h"
#include "conf.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "focus.h"
#include "keys.h"
#include "log.h"
#include "frontier.h"
#include "parse.h"
#include "store.h"

/* Jobs the writer takes into one transaction at most. */
#define WRITE_BATCH 512
/* How long the writer waits for more jobs before it commits. */
#define WRITE_LINGER_MS 20
/* A robots.txt is trusted this long (RFC 9309 §2.4: up to 24 hours). */
#define ROBOTS_TTL_MS (24ull * 3600 * 1000)
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
	uint32_t off;       /* of the normalized URL, in job.link_text */
	uint32_t found_off; /* of the URL as found, likewise */
	uint16_t found_len;
	struct norm_url u;
};

enum dup_kind { DUP_EXACT = 1, DUP_NEAR = 2 };

enum job_kind {
	JOB_PAGE,   /* a leased URL */
	JOB_ROBOTS, /* a host's robots.txt: looked up, fetched, parsed, kept */
	JOB_SEEDS,  /* seeds submitted at run time (crawl_add_seeds()) */
	JOB_RELOAD, /* the seed files read again after crawl_reload() */
};

struct job {
	struct job *next;
	uint8_t kind;                /* enum job_kind */
	struct frontier_lease lease; /* JOB_ROBOTS: host_id only */
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
	/* For the WARC files ([store] warc): the URL requested, the request
	 * and response header blocks as sent and received, the peer. */
	char *fetch_url;
	char *req_head, *resp_head;
	size_t req_len, resp_len, resp_cap;
	bool head_overflow;
	char ip[48];
	/* From the parser. */
	char title[PARSE_TITLE_MAX + 1];
	bool has_sig, has_simhash, text_empty;
	unsigned char sig[16]; /* the [dedup] signature of the body text */
	uint64_t simhash;
	bool has_relevance;
	double relevance;
	/* From the writer: the representative it duplicates, if any. */
	char dup_of[NORM_URL_MAX + 1];
	uint8_t dup; /* 0, DUP_EXACT or DUP_NEAR */
	bool has_redirect;
	char redirect[NORM_URL_MAX + 1];
	struct norm_url redirect_u;
	/* The target as the Location header wrote it, made absolute; "" if
	 * that form does not fit (then the record keeps redirect). */
	char redirect_found[NORM_URL_MAX + 1];
	/* With search_index: the body text (PARSE_TEXT), NULL when the page
	 * was not parsed, and whether it said noindex. */
	char *page_text;
	size_t page_text_len;
	bool noindex;
	struct link *links;
	size_t n_links, cap_links;
	char *link_text;
	size_t text_len, text_cap;
	unsigned links_bad;
	/* JOB_ROBOTS: the robots.txt URL, when its fetch started, the rules
	 * once known and until when they hold (unix ms). */
	char robots_url[NORM_URL_MAX + 16];
	uint64_t robots_started_ms;
	struct parse_robots *rules;
	int64_t robots_expires;
	bool robots_cached; /* the rules came from the store */
	/* JOB_SEEDS: the caller's batch; JOB_SEEDS and JOB_RELOAD: the
	 * writer's result (an sc_err), and the seeds queued. */
	struct crawl_seeds *seeds;
	int seeds_rc;
	int seeds_added;
};

static void job_free(struct job *j)
{
	if (!j)
		return;
	parse_robots_free(j->rules);
	free(j->body);
	free(j->page_text);
	free(j->fetch_url);
	free(j->req_head);
	free(j->resp_head);
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

/* A host that could not be reached (crawl.h): only such hosts have one,
 * listed in the order they first failed. */
struct trouble {
	struct trouble *prev, *next;
	uint32_t host_id;
	uint64_t failed_ms; /* when the last failure was counted */
	uint64_t retry_ms;  /* held until then */
	struct crawl_host h;
};

/* The loop's state of one host, by host id. */
struct robots_slot {
	uint8_t state;
	uint8_t backoffs; /* 429/503 in a row */
	struct parse_robots *rules;
	uint64_t expires_ms;
	struct jobq parked;      /* leases waiting for the rules */
	struct trouble *trouble; /* NULL while the host answers */
	/* The page budget: fetches committed in earlier runs (read from
	 * the frontier at the host's first lease) plus those started by
	 * this one and not given back; and whether the frontier drains the
	 * host because it is spent. */
	bool budget_known, drained;
	uint64_t budget_used;
};

struct xfer {
	struct xfer *prev, *next; /* the crawl's transfers in flight */
	CURL *easy;
	struct crawl *c;
	struct job *job; /* a page or a robots.txt */
	uint64_t started_ms;
	size_t limit;
	bool truncated;
	char errbuf[CURL_ERROR_SIZE];
};

struct crawl {
	int lock_fd; /* STORE/crawl.lock, held while the crawl runs */
	/* Atomic: crawl_reload() swaps it on the loop while the parsers and
	 * the writer read it; every version lives until the end. */
	const struct crawl_opts *_Atomic o;
	struct event_base *base;
	CURLM *multi;
	struct event *curl_timer, *sched_timer, *tick, *wakeup;
	struct event *sigint, *sigterm;
	struct curl_slist *connect_to;
	MDB_env *env;
	struct store *store;
	struct frontier *fr;
	struct warc_writer *warc;    /* the writer thread's, or NULL */
	struct search_index *search; /* the writer thread's, or NULL */
	struct focus *focus;

	struct robots_slot *robots;
	size_t n_robots;
	struct trouble *troubles, *troubles_tail; /* unreachable hosts */
	uint32_t hosts_held, hosts_given_up;

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
	struct jobq to_loop; /* robots.txt jobs coming back to the loop */
	bool quit_parsers, quit_writer;
	pthread_t *parsers;
	unsigned n_parsers;
	pthread_t writer;
	bool writer_started;
	int fatal;                /* an error that ends the crawl (under mu) */
	struct crawl_summary sum; /* under mu */
	uint64_t last_pages;
	uint64_t last_tick;

	/* Long-running mode (o->daemon), all on the loop's thread. */
	bool paused;
	struct curl_slist **old_connect_to; /* lists of earlier configs */
	size_t n_old_connect_to;
	uint64_t latency_count[CRAWL_LATENCY_BUCKETS + 1];
	double latency_sum;
};

static void fill(struct crawl *c);
static void check_done(struct crawl *c);

/* A line for the operator: "sigcrawl crawl: ..." in the foreground, the
 * daemon's log (with its level, for journald) under serve. */
static SC_PRINTF(3, 4) void say(const struct crawl *c, int level,
				const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (c->o->daemon)
		log_msg(level, "%s", line);
	else
		fprintf(stderr, "sigcrawl crawl: %s\n", line);
}

static void die(struct crawl *c, int rc, const char *what)
{
	pthread_mutex_lock(&c->mu);
	if (!c->fatal) {
		c->fatal = rc;
		say(c, LOG_ERR, "%s: %s", what, sc_strerror(rc));
	}
	pthread_mutex_unlock(&c->mu);
}

/* ---------------------------------------------------------------------
 * The writer: one transaction per batch of jobs
 */

/* A fetched robots.txt answer is kept for the next run. */
static int write_robots(struct crawl *c, MDB_txn *txn, const struct job *j)
{
	struct frontier_robots r = {
		.fetched_at = (int64_t)j->fetched_at,
		.expires_at = j->robots_expires,
		.status = (int)j->status,
		.body = j->body,
		.body_len = j->body_len,
	};
	int rc = frontier_robots_put(c->fr, txn, j->robots_url,
				     strlen(j->robots_url), &r);
	/* Only a database failure matters: an answer not kept is asked
	 * again next time. */
	return rc == SC_E_DB ? rc : 0;
}

/* Does the redirect of j close a loop?  The target is j itself, or a
 * chain of recorded redirects leads from the target back to j. */
static bool redirect_loops(struct crawl *c, MDB_txn *txn, const struct job *j)
{
	const char *self = j->lease.url;
	size_t self_len = j->lease.url_len;
	const char *t = j->redirect;
	size_t t_len = j->redirect_u.len;
	for (int hop = 0; hop <= 10; hop++) {
		if (t_len == self_len && memcmp(t, self, t_len) == 0)
			return true;
		unsigned char key[SC_KEY_LEN];
		struct store_record r;
		sc_url_key(t, t_len, key);
		if (store_get(c->store, txn, key, &r) || !r.redirect)
			return false;
		t = r.redirect;
		t_len = r.redirect_len;
	}
	return false;
}

/* Is the page a duplicate?  Its signature is claimed (the first page with
 * it is the representative), else its SimHash is looked up among the
 * representatives' and filed when none is near enough.  A page without
 * body text is never collapsed: every empty page has the same signature. */
static int dedup(struct crawl *c, MDB_txn *txn, struct job *j)
{
	const struct crawl_opts *o = c->o;
	if (j->text_empty)
		return 0;
	if (j->has_sig) {
		const char *rep;
		size_t len;
		int rc = store_sig_claim(c->store, txn, j->sig, j->lease.url,
					 j->lease.url_len, &rep, &len);
		if (rc < 0)
			return rc;
		if (rc == 1) {
			/* rep is valid until the next write: copy it. */
			if (len >= sizeof(j->dup_of))
				return SC_E_CORRUPT;
			memcpy(j->dup_of, rep, len);
			j->dup_of[len] = '\0';
			j->dup = DUP_EXACT;
			return 0;
		}
	}
	if (!j->has_simhash || o->near_k < 0)
		return 0;
	struct store_simhash_hit hit;
	int rc = store_simhash_find(c->store, txn, j->simhash,
				    (unsigned)o->near_k, &hit);
	if (rc == 0) {
		struct store_record r;
		if ((rc = store_get(c->store, txn, hit.rep, &r)))
			return rc == SC_E_NOTFOUND ? SC_E_CORRUPT : rc;
		if (r.normalized_len == j->lease.url_len &&
		    memcmp(r.normalized, j->lease.url, r.normalized_len) == 0)
			return 0; /* itself, fetched again after a crash */
		if (r.normalized_len >= sizeof(j->dup_of))
			return SC_E_CORRUPT;
		memcpy(j->dup_of, r.normalized, r.normalized_len);
		j->dup_of[r.normalized_len] = '\0';
		j->dup = DUP_NEAR;
		return 0;
	}
	if (rc != SC_E_NOTFOUND)
		return rc;
	unsigned char key[SC_KEY_LEN];
	sc_url_key(j->lease.url, j->lease.url_len, key);
	return store_simhash_add(c->store, txn, j->simhash, key);
}

static int add_seeds_of(struct crawl *c, MDB_txn *txn, uint16_t cat,
			const char *path, int *added);

/* Seeds submitted at run time, or the seed files read again after a
 * reload.  A seed file that cannot be read is reported and skipped: the
 * rest of the batch still commits. */
static int write_seeds(struct crawl *c, MDB_txn *txn, struct job *j)
{
	const struct crawl_opts *o = c->o;
	if (j->kind == JOB_RELOAD) {
		/* The categories' settings, for `report`. */
		int rc = focus_put_categories(c->focus, c->store, txn);
		if (rc)
			return rc;
		for (size_t i = 0; i < o->n_categories && rc != SC_E_DB; i++)
			if (o->categories[i].seeds_file)
				rc = add_seeds_of(c, txn, (uint16_t)i,
						  o->categories[i].seeds_file,
						  &j->seeds_added);
		return rc == SC_E_DB ? rc : 0;
	}
	struct crawl_seeds *sd = j->seeds;
	for (size_t i = 0; i < sd->n; i++) {
		struct frontier_url fu = {
			.url = sd->url[i],
			.url_len = sd->u[i].len,
			.u = &sd->u[i],
			.found = sd->found[i],
			.found_len = sd->found_u[i].len,
			.category = sd->category,
		};
		int rc = frontier_add(c->fr, txn, &fu);
		if (rc < 0 && rc != SC_E_INVAL)
			return rc;
		/* A host name too long for the frontier counts as known:
		 * the caller's normalization bounds it, so this is rare. */
		sd->added[i] = rc == 1;
		j->seeds_added += rc == 1;
	}
	return 0;
}

static int write_job(struct crawl *c, MDB_txn *txn, struct job *j,
		     struct frontier_url **fu, size_t *n_fu, size_t *cap_fu)
{
	const struct crawl_opts *o = c->o;
	struct store_record r = { 0 };
	if (j->kind == JOB_ROBOTS)
		return j->fetched && j->rules ? write_robots(c, txn, j) : 0;
	if (j->kind == JOB_SEEDS || j->kind == JOB_RELOAD)
		return write_seeds(c, txn, j);
	if (j->has_redirect && !j->error && redirect_loops(c, txn, j))
		j->error = STORE_ERROR_REDIRECT_LOOP;
	int rc = dedup(c, txn, j);
	if (rc)
		return rc;
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
	if (j->has_sig) {
		r.has_signature = true;
		memcpy(r.signature, j->sig, sizeof(r.signature));
	}
	if (j->has_simhash) {
		r.has_simhash = true;
		r.simhash = j->simhash;
	}
	r.has_relevance = j->has_relevance;
	r.relevance = j->relevance;
	if (j->dup) {
		r.duplicate_of = j->dup_of;
		r.duplicate_of_len = strlen(j->dup_of);
	}
	if ((rc = store_put(c->store, txn, &r)))
		return rc;
	if ((rc = frontier_done(c->fr, txn, &j->lease)) && rc != SC_E_NOTFOUND)
		return rc;
	/* The host's page budget counts committed fetches (frontier.h). */
	if (rc == 0 && j->fetched &&
	    (rc = frontier_count_fetch(c->fr, txn, j->lease.host_id)))
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
	/* A redirect out of scope is recorded, not followed. */
	if (j->has_redirect && !j->error &&
	    !focus_in_scope(c->focus, j->lease.category, j->lease.url,
			    &j->lease_u, j->redirect, &j->redirect_u))
		focus_count(c->focus, j->lease.category,
			    STORE_FOCUS_PRUNED_SCOPE, 1);
	else if (j->has_redirect && !j->error) {
		(*fu)[(*n_fu)++] = (struct frontier_url){
			.url = j->redirect,
			.url_len = j->redirect_u.len,
			.u = &j->redirect_u,
			.found = j->redirect_found[0] ? j->redirect_found
						      : j->redirect,
			.found_len = j->redirect_found[0]
					     ? strlen(j->redirect_found)
					     : j->redirect_u.len,
			.depth = j->lease.depth,
			.category = j->lease.category,
			.redirects = (uint8_t)(j->lease.redirects + 1),
			.offtopic = j->lease.offtopic,
		};
	}
	uint8_t off;
	bool follow = focus_follow(c->focus, j->lease.category,
				   j->has_relevance, j->relevance,
				   j->lease.offtopic, &off);
	if (j->lease.depth + 1u <= o->max_depth &&
	    (!j->dup || o->follow_duplicate_links)) {
		if (!follow)
			focus_count(c->focus, j->lease.category,
				    STORE_FOCUS_PRUNED_RELEVANCE, j->n_links);
		for (size_t i = 0; i < j->n_links && follow; i++) {
			struct link *l = &j->links[i];
			if (!focus_in_scope(c->focus, j->lease.category,
					    j->lease.url, &j->lease_u,
					    j->link_text + l->off, &l->u)) {
				focus_count(c->focus, j->lease.category,
					    STORE_FOCUS_PRUNED_SCOPE, 1);
				continue;
			}
			(*fu)[(*n_fu)++] = (struct frontier_url){
				.url = j->link_text + l->off,
				.url_len = l->u.len,
				.u = &l->u,
				.found = j->link_text + l->found_off,
				.found_len = l->found_len,
				.depth = (uint16_t)(j->lease.depth + 1),
				.category = j->lease.category,
				.offtopic = off,
			};
		}
	}
	return 0;
}

/* Did the response carry a Content-Encoding (other than identity), which
 * libcurl then decoded? */
static bool head_has_encoding(const char *h, size_t len)
{
	static const char name[] = "content-encoding:";
	const size_t nl = sizeof(name) - 1;
	for (size_t i = 0; i < len;) {
		const char *eol = memchr(h + i, '\n', len - i);
		size_t end = eol ? (size_t)(eol - h) : len;
		if (end - i > nl && strncasecmp(h + i, name, nl) == 0) {
			const char *v = h + i + nl;
			while (v < h + end && (*v == ' ' || *v == '\t'))
				v++;
			if (v < h + end && strncasecmp(v, "identity", 8) != 0)
				return true;
		}
		i = end + 1;
	}
	return false;
}

/* A fetched page's request and response, into the WARC files.  Pages
 * whose exchange the writer refuses (no response head, an oversized or
 * malformed one) are counted and left out; a write failure is fatal. */
static int write_warc(struct crawl *c, const struct job *j)
{
	if (j->kind != JOB_PAGE || !j->fetched)
		return 0;
	int rc = SC_E_INVAL;
	if (j->status > 0 && j->req_head && j->resp_head && !j->head_overflow) {
		struct warc_exchange x = {
			.target_uri = j->fetch_url,
			.fetched_at = (int64_t)j->fetched_at,
			.ip = j->ip[0] ? j->ip : NULL,
			.request = j->req_head,
			.request_len = j->req_len,
			.response_head = j->resp_head,
			.response_head_len = j->resp_len,
			.payload = j->body,
			.payload_len = j->body_len,
			.payload_decoded = head_has_encoding(j->resp_head,
							     j->resp_len),
		};
		rc = warc_write_exchange(c->warc, &x);
	}
	pthread_mutex_lock(&c->mu);
	if (rc == 0)
		c->sum.warc_exchanges++;
	else if (rc == SC_E_INVAL)
		c->sum.warc_skipped++;
	pthread_mutex_unlock(&c->mu);
	return rc == SC_E_INVAL ? 0 : rc;
}

/* One page of the batch into the search index.  A page that says
 * noindex is removed (it may have been indexed before it said so); a
 * duplicate is an alias of its representative, never a page of its own;
 * a page that was not parsed (an error, a redirect, not HTML) has no
 * text and is left alone. */
static int index_job(struct crawl *c, const struct job *j)
{
	if (j->kind != JOB_PAGE || !j->page_text)
		return 0;
	const char *url = j->lease.url;
	size_t len = j->lease.url_len;
	if (j->noindex)
		return search_forget(c->search, url, len);
	if (j->dup)
		return search_put_alias(
			c->search, j->dup_of, strlen(j->dup_of), url, len,
			j->dup == DUP_NEAR ? SEARCH_NEAR_DUPLICATE
					   : SEARCH_SAME_SIGNATURE);
	const char *cat = j->lease.category < c->o->n_categories
				  ? c->o->categories[j->lease.category].name
				  : "";
	struct search_page p = {
		.url = url,
		.url_len = len,
		.category = cat,
		.category_len = strlen(cat),
		.title = j->title,
		.title_len = strlen(j->title),
		.text = j->page_text,
		.text_len = j->page_text_len,
	};
	return search_put_page(c->search, &p);
}

/* The batch's pages into the search index, in one SQLite transaction
 * committed BEFORE the LMDB transaction of the same batch.  So a kill -9
 * or a power cut never leaves a committed record without its text: at
 * worst the index holds pages whose records were not committed; those
 * are still queued, are fetched again, and are written again over
 * themselves (every write of search_put_*() is an upsert of one URL's
 * whole truth, so a page that turns out a duplicate the second time
 * leaves the pages for the aliases).  If the LMDB commit fails after
 * this one succeeded, the crawl stops, with the same outcome. */
static int index_batch(struct crawl *c, struct job **batch, size_t n)
{
	int rc = search_begin(c->search);
	for (size_t i = 0; i < n && !rc; i++)
		rc = index_job(c, batch[i]);
	if (!rc)
		rc = search_commit(c->search);
	else
		search_rollback(c->search);
	if (rc) {
		char what[320];
		snprintf(what, sizeof(what), "writing the search index (%s)",
			 search_errmsg(c->search));
		die(c, rc, what);
	}
	return rc;
}

/* Room for n entries in the writer's other[] (frontier_add_batch_cat). */
static int grow_other(uint16_t **other, size_t *cap, size_t n)
{
	if (n <= *cap)
		return 0;
	uint16_t *v = realloc(*other, n * sizeof(*v));
	if (!v)
		return SC_E_NOMEM;
	*other = v;
	*cap = n;
	return 0;
}

static void *writer_main(void *arg)
{
	struct crawl *c = arg;
	struct frontier_url *fu = NULL;
	uint16_t *other = NULL;
	size_t cap_fu = 0, cap_other = 0;
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
		if (!rc && n_fu)
			rc = grow_other(&other, &cap_other, n_fu);
		if (!rc && n_fu) {
			queued = frontier_add_batch_cat(c->fr, txn, fu, n_fu,
							NULL, other);
			if (queued < 0)
				rc = queued;
			else
				rc = focus_note_also(c->focus, c->store, txn,
						     fu, n_fu, other);
		}
		if (!rc)
			rc = focus_flush(c->focus, c->store, txn);
		/* The WARC records are on disk before the records that
		 * say the pages were fetched. */
		if (c->warc) {
			for (size_t i = 0; i < n && !rc; i++)
				rc = write_warc(c, batch[i]);
			if (!rc)
				rc = warc_flush(c->warc);
		}
		if (!rc && c->search)
			rc = index_batch(c, batch, n);
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
		size_t pages = 0;
		for (size_t i = 0; i < n; i++) {
			struct job *b = batch[i];
			if (b->kind != JOB_PAGE) { /* back to the loop */
				b->seeds_rc = rc;
				jobq_push(&c->to_loop, b);
				continue;
			}
			pages++;
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
				/* Refusals by robots.txt and by the page
				 * budget are the crawl's policy, not
				 * errors. */
				if (b->error &&
				    b->error != STORE_ERROR_ROBOTS_DISALLOWED &&
				    b->error != STORE_ERROR_HOST_BUDGET)
					c->sum.errors++;
				if (b->error > 0 &&
				    b->error < STORE_ERROR_COUNT)
					c->sum.by_error[b->error]++;
				if (b->error == STORE_ERROR_ROBOTS_DISALLOWED)
					c->sum.robots_disallowed++;
				c->sum.links_bad += b->links_bad;
				if (b->dup == DUP_EXACT)
					c->sum.dup_exact++;
				else if (b->dup == DUP_NEAR)
					c->sum.dup_near++;
			}
			job_free(b);
		}
		if (!rc)
			c->sum.queued += (uint64_t)queued;
		focus_batch_end(c->focus, !rc, &c->sum);
		c->in_pipeline -= pages;
		pthread_mutex_unlock(&c->mu);
		event_active(c->wakeup, EV_READ, 0);
	}
	free(fu);
	free(other);
	return NULL;
}

/* ---------------------------------------------------------------------
 * The parsers
 */

static int keep_link(void *ctx, const struct parse_link *l)
{
	struct job *j = ctx;
	/* The parser decided, over every occurrence of the URL (parse.h). */
	if (!l->follow)
		return 0;
	size_t n = (size_t)l->u->len + 1, nf = l->found_len + 1;
	if (j->text_len + n + nf > j->text_cap) {
		size_t cap = j->text_cap ? j->text_cap * 2 : 4096;
		while (cap < j->text_len + n + nf)
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
	memcpy(j->link_text + j->text_len + n, l->found, nf);
	j->links[j->n_links++] = (struct link){
		.off = (uint32_t)j->text_len,
		.found_off = (uint32_t)(j->text_len + n),
		.found_len = (uint16_t)l->found_len,
		.u = *l->u,
	};
	j->text_len += n + nf;
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

/* The body text goes to the writer for the search index: the parser's
 * buffer itself, trimmed to its length. */
static void keep_text(struct job *j, struct parse_text *t, bool noindex)
{
	if (!t->buf)
		return;
	char *s = realloc(t->buf, t->len + 1);
	j->page_text = s ? s : t->buf;
	j->page_text_len = t->len;
	j->noindex = noindex;
	*t = (struct parse_text){ 0 };
}

static void parse_job(struct crawl *c, struct job *j)
{
	const struct crawl_opts *o = c->o;
	if (j->status >= 300 && j->status < 400 && j->location[0]) {
		int rc = norm_url(&o->norm, NULL, j->location,
				  strlen(j->location), j->redirect,
				  sizeof(j->redirect), &j->redirect_u);
		struct norm_url fu;
		if (rc == 0 && norm_url(&norm_as_found, NULL, j->location,
					strlen(j->location), j->redirect_found,
					sizeof(j->redirect_found), &fu) != 0)
			j->redirect_found[0] = '\0';
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
			unsigned sig =
				o->signature == CONF_SIGNATURE_MD5_TEXT
					? PARSE_MD5
				: o->signature == CONF_SIGNATURE_MD5_TEXT_SIZE
					? PARSE_MD5_SIZE
					: 0;
			struct parse_text text = { 0 };
			struct parse_doc_opts po = {
				.content_type = j->content_type,
				.body_size = j->body_len,
				/* SimHash only when near-duplicates are
				 * looked for: it is a tenth of the page's
				 * CPU (docs/bench.md). */
				.flags = sig |
					 (o->near_k >= 0 ? PARSE_SIMHASH : 0) |
					 (o->search_index ? PARSE_TEXT : 0),
				.text = &text,
				.keywords = focus_keywords(c->focus,
							   j->lease.category),
			};
			int rc = parse_document(j->body, j->body_len,
						j->lease.url, j->lease.url_len,
						&o->norm, &po, keep_link, j,
						pg);
			if (rc == 0) {
				memcpy(j->title, pg->title, sizeof(j->title));
				j->links_bad += pg->links_bad;
				j->has_sig = sig != 0;
				memcpy(j->sig,
				       sig == PARSE_MD5 ? pg->md5
							: pg->md5_size,
				       sizeof(j->sig));
				j->has_simhash = o->near_k >= 0;
				j->simhash = pg->simhash;
				/* text_empty counts words, and only
				 * the SimHash tokenizer counts them. */
				j->text_empty = pg->text_bytes == 0;
				keep_text(j, &text, pg->noindex);
				j->has_relevance = pg->has_relevance;
				j->relevance = pg->relevance;
			}
			parse_text_free(&text);
			free(pg);
		}
	}
	/* The body goes no further, unless to the WARC files. */
	if (!o->warc) {
		free(j->body);
		j->body = NULL;
		j->body_cap = 0;
	}
}

/* The rules of a robots.txt answer: RFC 9309 §2.3.1.3 (4xx: allow all). */
static struct parse_robots *robots_rules(struct crawl *c, int status,
					 const char *body, size_t len)
{
	struct parse_robots *r = NULL;
	int rc = status >= 200 && status < 300
			 ? parse_robots(body ? body : "", len,
					c->o->robots_token, &r)
			 : parse_robots_allow_all(&r);
	return rc ? NULL : r;
}

/* A robots.txt job on a parser: before the fetch, look for an answer
 * kept by an earlier run; after it, parse what came. */
static void robots_job(struct crawl *c, struct job *j)
{
	if (j->fetched) {
		j->rules = robots_rules(c, (int)j->status, j->body,
					j->body_len);
		return;
	}
	MDB_txn *txn;
	if (mdb_txn_begin(c->env, NULL, MDB_RDONLY, &txn))
		return; /* not found, as it were: it is fetched */
	struct frontier_robots r;
	if (frontier_robots_get(c->fr, txn, j->robots_url,
				strlen(j->robots_url), &r) == 0 &&
	    r.expires_at > (int64_t)wall_ms()) {
		j->rules = robots_rules(c, r.status, r.body, r.body_len);
		j->robots_expires = r.expires_at;
		j->robots_cached = j->rules != NULL;
	}
	mdb_txn_abort(txn);
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
		if (j->kind == JOB_ROBOTS) {
			robots_job(c, j);
			if (!j->fetched) { /* a lookup: back to the loop */
				pthread_mutex_lock(&c->mu);
				jobq_push(&c->to_loop, j);
				pthread_mutex_unlock(&c->mu);
				event_active(c->wakeup, EV_READ, 0);
				continue;
			}
		} else {
			parse_job(c, j);
		}
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
	if (j->kind == JOB_PAGE) /* robots.txt jobs keep leases parked */
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
	char **buf = &x->job->body;
	size_t *len = &x->job->body_len;
	size_t *cap = &x->job->body_cap;

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

/* The response header block, kept for the WARC files (at most
 * WARC_HEAD_MAX bytes: more is an overflow, and the page's exchange is
 * left out of them). */
static size_t header_cb(char *data, size_t size, size_t nmemb, void *arg)
{
	struct job *j = arg;
	size_t n = size * nmemb;
	if (j->head_overflow)
		return n;
	if (j->resp_len + n > WARC_HEAD_MAX) {
		j->head_overflow = true;
		return n;
	}
	if (j->resp_len + n > j->resp_cap) {
		size_t cap = j->resp_cap ? j->resp_cap * 2 : 1024;
		while (cap < j->resp_len + n)
			cap *= 2;
		char *h = realloc(j->resp_head, cap);
		if (!h)
			return 0; /* ends the transfer: CURLE_WRITE_ERROR */
		j->resp_head = h;
		j->resp_cap = cap;
	}
	memcpy(j->resp_head + j->resp_len, data, n);
	j->resp_len += n;
	return n;
}

/* The request header block as sent, for the WARC files: libcurl shows it
 * only through its debug callback. */
static int debug_cb(CURL *e, curl_infotype type, char *data, size_t size,
		    void *arg)
{
	(void)e;
	struct job *j = arg;
	if (type != CURLINFO_HEADER_OUT || size > WARC_HEAD_MAX)
		return 0;
	char *r = malloc(size ? size : 1);
	if (!r)
		return 0;
	memcpy(r, data, size);
	free(j->req_head);
	j->req_head = r;
	j->req_len = size;
	return 0;
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
	if (x->job->kind == JOB_PAGE) {
		/* Redirects are the crawler's: the target is queued. */
		curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
		if (c->warc) {
			curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, header_cb);
			curl_easy_setopt(e, CURLOPT_HEADERDATA, x->job);
			curl_easy_setopt(e, CURLOPT_DEBUGFUNCTION, debug_cb);
			curl_easy_setopt(e, CURLOPT_DEBUGDATA, x->job);
			curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);
		}
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

/* ---------------------------------------------------------------------
 * Unreachable hosts (crawl.h) and the page budget, on the loop
 */

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
	submit(c, j, false);
}

/* A try of j's host failed, for reason (enum store_error; detail in
 * words).  started_ms is when the try began: a try that began before the
 * last failure was counted belongs to the same outage (two connections
 * that fail together) and counts once.  The host is held until its next
 * try, or a crawl gives it up after host_retries retries: then the
 * frontier drains it, and every lease of it is recorded (host_skips()).
 * Returns true if the host is given up. */
static bool host_failed(struct crawl *c, const struct job *j,
			uint64_t started_ms, int reason, const char *detail)
{
	const struct crawl_opts *o = c->o;
	uint32_t host = j->lease.host_id;
	struct robots_slot *s = robots_slot(c, host);
	if (!s) {
		die(c, SC_E_NOMEM, "host state");
		return false;
	}
	struct trouble *t = s->trouble;
	if (t && (t->h.given_up || started_ms < t->failed_ms))
		return t->h.given_up;
	uint64_t now = mono_ms();
	if (!t) {
		if (!(t = calloc(1, sizeof(*t)))) {
			die(c, SC_E_NOMEM, "host state");
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
		say(c, LOG_WARNING,
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
		say(c, t->h.tries == 1 ? LOG_NOTICE : LOG_INFO,
		    "%s: %s (%s), try %u: held %.1f s", t->h.name, kind,
		    t->h.detail, t->h.tries, (double)wait / 1000.0);
	return false;
}

/* The host answered: it is reachable (again).  A host given up stays
 * so: its URLs are being recorded. */
static void host_ok(struct crawl *c, uint32_t host)
{
	if (host >= c->n_robots)
		return;
	struct robots_slot *s = &c->robots[host];
	struct trouble *t = s->trouble;
	if (!t || t->h.given_up)
		return;
	if (c->o->daemon || !c->o->quiet)
		say(c, LOG_NOTICE, "%s: reachable again after %u failed tries",
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
static bool host_unreachable(CURL *e, CURLcode cc)
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
static bool host_skips(struct crawl *c, struct robots_slot *s, struct job *j)
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
	if (max && s->budget_used >= max) {
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
	uint64_t now = mono_ms();
	struct parse_robots *r = j->rules;
	j->rules = NULL;
	parse_robots_free(s->rules);
	s->rules = r;
	s->state = R_READY;
	int64_t left = j->robots_expires - (int64_t)wall_ms();
	s->expires_ms = now + (left > 0 ? (uint64_t)left : 0);

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
static void robots_done(struct crawl *c, struct xfer *x, CURLcode cc)
{
	struct job *j = x->job;
	x->job = NULL;
	long status = 0;
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	j->fetched = true;
	j->fetched_at = wall_ms();
	j->status = status;
	j->robots_started_ms = x->started_ms;
	j->robots_expires = (int64_t)(j->fetched_at + ROBOTS_TTL_MS);
	bool answered = cc == CURLE_OK || x->truncated;
	if ((answered && ((status >= 200 && status < 300) ||
			  (status >= 400 && status < 500 && status != 429))) ||
	    (cc == CURLE_TOO_MANY_REDIRECTS && status >= 300 && status < 400)) {
		host_ok(c, j->lease.host_id);
		submit(c, j, true);
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
static void robots_back(struct crawl *c, struct job *j)
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
		die(c, SC_E_NOMEM, "robots.txt");
		job_free(j);
		return;
	}
	x->job = j;
	x->limit = FRONTIER_ROBOTS_MAX;
	int rc = start_xfer(c, x, j->robots_url);
	if (rc) {
		free(x);
		job_free(j);
		die(c, rc, "starting a transfer");
	}
}

static void record_latency(struct crawl *c, uint64_t ms)
{
	double s = (double)ms / 1000.0;
	size_t i = 0;
	while (i < CRAWL_LATENCY_BUCKETS && s > crawl_latency_le[i])
		i++;
	c->latency_count[i]++;
	c->latency_sum += s;
}

static void page_done(struct crawl *c, struct xfer *x, CURLcode cc)
{
	struct job *j = x->job;
	struct robots_slot *s = robots_slot(c, j->lease.host_id);
	record_latency(c, mono_ms() - x->started_ms);
	long status = 0;
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);

	/* The host answered, or cannot be reached at all: then it is held
	 * and the page waits with it, unless the host is given up, when the
	 * page is recorded with the error (crawl.h). */
	bool answered = cc == CURLE_OK ||
			(cc == CURLE_WRITE_ERROR && x->truncated);
	if (answered) {
		host_ok(c, j->lease.host_id);
	} else if (host_unreachable(x->easy, cc) &&
		   !host_failed(c, j, x->started_ms, error_kind(cc),
				x->errbuf[0] ? x->errbuf
					     : curl_easy_strerror(cc))) {
		if (s && s->budget_used) /* not fetched after all */
			s->budget_used--;
		frontier_return(c->fr, &j->lease);
		job_free(j);
		return;
	}

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
			if (s->budget_used) /* not fetched after all */
				s->budget_used--;
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
	char *ip = NULL;
	if (c->warc &&
	    curl_easy_getinfo(x->easy, CURLINFO_PRIMARY_IP, &ip) == CURLE_OK &&
	    ip && strlen(ip) < sizeof(j->ip))
		strcpy(j->ip, ip);
	if (answered) {
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
		if (x->job->kind == JOB_PAGE)
			page_done(c, x, cc);
		else
			robots_done(c, x, cc);
		curl_easy_cleanup(x->easy);
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
	/* The key as it was queued, split where it stands: normalizing it
	 * again with this run's steps would rewrite it (frontier.h). */
	j->lease_u = j->lease.u;
	int rc = j->lease_u.len ? norm_fetch_url(j->lease.url, &j->lease_u,
						 fetch, sizeof(fetch))
				: SC_E_CORRUPT;
	if (rc) {
		/* The queue holds only normalized URLs: this cannot
		 * happen unless the entry was damaged.  Record and move
		 * on. */
		j->error = STORE_ERROR_OTHER;
		frontier_release(c->fr, j->lease.host_id);
		submit(c, j, false);
		return;
	}

	struct robots_slot *hs = robots_slot(c, j->lease.host_id);
	if (!hs) {
		die(c, SC_E_NOMEM, "host state");
		job_free(j);
		return;
	}
	if (host_skips(c, hs, j))
		return;

	if (o->obey_robots) {
		struct robots_slot *s = hs;
		uint64_t now = mono_ms();
		if (s->state == R_READY && now >= s->expires_ms)
			s->state = R_NONE;
		if (s->state != R_READY) {
			jobq_push(&s->parked, j);
			c->parked++;
			if (s->state == R_NONE) {
				/* Looked up in the store by a parser, then
				 * fetched if need be (robots_back()). */
				struct job *r = calloc(1, sizeof(*r));
				if (!r) {
					die(c, SC_E_NOMEM, "robots");
					return;
				}
				r->kind = JOB_ROBOTS;
				r->lease.host_id = j->lease.host_id;
				/* The page's URL names the host in messages
				 * if the robots.txt cannot be had. */
				memcpy(r->lease.url, j->lease.url,
				       j->lease.url_len + 1u);
				r->lease.url_len = j->lease.url_len;
				r->lease_u = j->lease_u;
				robots_url(fetch, r->robots_url,
					   sizeof(r->robots_url));
				s->state = R_FETCHING;
				submit(c, r, true);
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
	if (c->warc && !(j->fetch_url = strdup(fetch))) {
		free(x);
		job_free(j);
		die(c, SC_E_NOMEM, "transfer");
		return;
	}
	c->started++;
	c->robots[j->lease.host_id].budget_used++;
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
	 * wait at most WRITE_LINGER_MS: they do not count.  (to_write also
	 * holds robots.txt and seed jobs, which in_pipeline does not.) */
	uint64_t pipeline = c->in_pipeline > c->to_write.n
				    ? c->in_pipeline - c->to_write.n
				    : 0;
	pthread_mutex_unlock(&c->mu);
	if (fatal)
		c->stopping = true;

	/* Backpressure: fetching outruns the parsers, and every finished
	 * body waits in the pipeline with its job (some 30 KB): no new
	 * fetch starts while transfers in flight and jobs not yet
	 * committed reach twice `concurrency`, which bounds the heap.  The
	 * writer's wakeup after each commit calls fill() again. */
	while (!c->stopping && !c->paused && c->running < o->concurrency &&
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
	/* Long-running mode waits for more seeds instead. */
	if (c->o->daemon && !c->stopping && !fatal)
		return;
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

/* A seed job is committed (or failed): tell its caller. */
static void seeds_back(struct crawl *c, struct job *j)
{
	if (j->kind == JOB_SEEDS)
		j->seeds->done(j->seeds, j->seeds_rc, j->seeds->arg);
	else if (!c->o->quiet || j->seeds_rc)
		say(c, j->seeds_rc ? LOG_WARNING : LOG_NOTICE,
		    "reload: %s; %d new seeds queued",
		    j->seeds_rc ? sc_strerror(j->seeds_rc) : "seed files read",
		    j->seeds_added);
	job_free(j);
}

/* The writer committed a batch (new URLs may be ready), or robots.txt
 * and seed jobs came back. */
static void on_wakeup(evutil_socket_t fd, short kind, void *arg)
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
		else
			seeds_back(c, j);
	}
	fill(c);
	check_done(c);
}

static void stop_now(struct crawl *c)
{
	if (c->stopping)
		return;
	c->stopping = true;
	if (c->o->daemon && c->o->daemon->stopping)
		c->o->daemon->stopping(c, c->o->daemon->arg);
	/* Transfers in flight and parked leases are abandoned: their URLs
	 * are still queued and are fetched after a restart. */
	while (c->xfers) {
		struct xfer *x = c->xfers;
		xfer_unlink(c, x);
		curl_easy_cleanup(x->easy);
		job_free(x->job);
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

static void on_tick(evutil_socket_t fd, short kind, void *arg)
{
	(void)fd;
	(void)kind;
	struct crawl *c = arg;
	uint64_t now = mono_ms();
	if (c->o->daemon && c->o->daemon->tick)
		c->o->daemon->tick(c, c->o->daemon->arg);
	/* A live line every second on a terminal, else every 5 s. */
	if (!c->o->quiet && (isatty(2) || now - c->last_tick >= 5000)) {
		progress(c, false);
		c->last_tick = now;
	}
}

/* ---------------------------------------------------------------------
 * Seeds
 */

/* Queue a seed, noting it when another category queued it first.  The
 * note is counted in the focus batch of txn, which its owner flushes
 * before the commit and ends after it: the writer for a reload (its
 * batch holds pages too, so a seed must not end it), add_seeds() at the
 * start.  Returns 1 if queued, 0 if not, or an sc_err code. */
static int add_seed(struct crawl *c, MDB_txn *txn,
		    const struct frontier_url *fu)
{
	uint16_t other;
	int8_t added;
	int rc = frontier_add_batch_cat(c->fr, txn, fu, 1, &added, &other);
	if (rc >= 0)
		rc = focus_note_also(c->focus, c->store, txn, fu, 1, &other);
	return rc < 0 ? rc : added;
}

static int add_seeds_of(struct crawl *c, MDB_txn *txn, uint16_t cat,
			const char *path, int *added)
{
	const struct crawl_opts *o = c->o;
	FILE *f = fopen(path, "r");
	if (!f) {
		say(c, LOG_WARNING, "%s: %s", path, strerror(errno));
		return SC_E_IO;
	}
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
			say(c, LOG_WARNING, "%s:%u: line too long", path,
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
			r = norm_url(&norm_as_found, NULL, p, n, found,
				     sizeof(found), &fu_u);
		if (r) {
			say(c, LOG_WARNING, "%s:%u: %s", path, lineno,
			    sc_strerror(r));
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
		if ((r = add_seed(c, txn, &fu)) < 0) {
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
	int rc = focus_put_categories(c->focus, c->store, txn), added = 0;
	for (size_t i = 0; i < o->n_categories && !rc; i++)
		if (o->categories[i].seeds_file)
			rc = add_seeds_of(c, txn, (uint16_t)i,
					  o->categories[i].seeds_file, &added);
	if (!rc)
		rc = focus_flush(c->focus, c->store, txn);
	if (rc || mdb_txn_commit(txn)) {
		if (rc)
			mdb_txn_abort(txn);
		frontier_discarded(c->fr);
		pthread_mutex_lock(&c->mu);
		focus_batch_end(c->focus, false, &c->sum);
		pthread_mutex_unlock(&c->mu);
		return rc ? rc : SC_E_DB;
	}
	frontier_published(c->fr);
	pthread_mutex_lock(&c->mu);
	focus_batch_end(c->focus, true, &c->sum);
	pthread_mutex_unlock(&c->mu);
	if (!o->quiet)
		say(c, LOG_NOTICE, "%d new seeds queued", added);
	return 0;
}

/* ---------------------------------------------------------------------
 * Run
 */

/* A host in trouble as crawl.h shows it, at mono time now. */
static void host_view(const struct trouble *t, uint64_t now,
		      struct crawl_host *out)
{
	*out = t->h;
	out->retry_in_s = !t->h.given_up && t->retry_ms > now
				  ? (double)(t->retry_ms - now) / 1000.0
				  : 0;
}

/* crawl_run()'s result: the hosts held or given up at the end.  Without
 * memory for the list, only their counts. */
static void list_hosts(struct crawl *c, struct crawl_summary *ret)
{
	ret->hosts_held = c->hosts_held;
	ret->hosts_given_up = c->hosts_given_up;
	ret->hosts = NULL;
	ret->n_hosts = 0;
	size_t n = (size_t)c->hosts_held + c->hosts_given_up;
	if (!n || !(ret->hosts = calloc(n, sizeof(*ret->hosts))))
		return;
	uint64_t now = mono_ms();
	for (const struct trouble *t = c->troubles; t && ret->n_hosts < n;
	     t = t->next)
		host_view(t, now, &ret->hosts[ret->n_hosts++]);
}

/* One crawl per store: leases, sequence numbers and host ids live in the
 * crawl's memory, so a second process crawling the same store would fetch
 * leased URLs again and hand out the same numbers.  An exclusive flock()
 * on STORE/crawl.lock, which the kernel drops when the process ends, kill
 * -9 included.  Readers (export, report, search) do not take it. */
static int lock_store(struct crawl *c)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/crawl.lock", c->o->store_dir);
	c->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
	if (c->lock_fd < 0) {
		say(c, LOG_ERR, "%s: %s", path, strerror(errno));
		return SC_E_IO;
	}
	if (flock(c->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		int e = errno;
		say(c, LOG_ERR, "%s: %s", c->o->store_dir,
		    e == EWOULDBLOCK ? "in use by another crawl or daemon"
				     : strerror(e));
		return e == EWOULDBLOCK ? SC_E_AGAIN : SC_E_IO;
	}
	return 0;
}

/* The store's keys were made with this run's normalization, or it is
 * recorded now (keys.h).  Inside the transaction that opened the store. */
static int check_keys(struct crawl *c, MDB_txn *txn)
{
	const struct crawl_opts *o = c->o;
	struct keys_norm n = { o->profile, &o->norm };
	char msg[1024], fix[1024];
	bool adopted;
	int rc = keys_check(txn, c->store, c->fr, &n, &adopted, msg, fix,
			    sizeof(msg));
	if (rc == SC_E_PROFILE) {
		say(c, LOG_ERR, "%s: %s", o->store_dir, msg);
		say(c, LOG_ERR, "%s", fix);
	} else if (rc) {
		say(c, LOG_ERR, "%s: %s", o->store_dir, sc_strerror(rc));
	} else if (adopted) {
		keys_describe(o->profile, o->norm.steps, msg, sizeof(msg));
		say(c, LOG_NOTICE,
		    "%s: written by an earlier sigcrawl, which did not record "
		    "its normalization; every key it holds is in the form of "
		    "%s, which is recorded now",
		    o->store_dir, msg);
	}
	return rc;
}

int crawl_run(const struct crawl_opts *o, struct crawl_summary *ret)
{
	if (ret)
		memset(ret, 0, sizeof(*ret));
	struct crawl *c = calloc(1, sizeof(*c));
	if (!c)
		return SC_E_NOMEM;
	c->o = o;
	c->lock_fd = -1;
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
		say(c, LOG_ERR, "%s: %s", o->store_dir,
		    rc == SC_E_IO ? strerror(errno) : sc_strerror(rc));
		goto out;
	}
	if ((rc = lock_store(c)))
		goto out;
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
		say(c, LOG_ERR, "%s: %s", o->store_dir, sc_strerror(rc));
		goto out;
	}
	if ((rc = check_keys(c, txn))) {
		mdb_txn_abort(txn);
		goto out;
	}
	if (mdb_txn_commit(txn)) {
		rc = SC_E_DB;
		goto out;
	}
	if ((rc = focus_open(o, &c->focus)) || (rc = add_seeds(c)))
		goto out;
	if (o->search_index &&
	    (rc = search_open(o->store_dir, 0, &c->search))) {
		say(c, LOG_ERR, "%s/%s: %s", o->store_dir, SEARCH_DB_NAME,
		    rc == SC_E_IO ? strerror(errno) : sc_strerror(rc));
		goto out;
	}
	if (o->warc) {
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s/warc", o->store_dir);
		struct warc_opts wo = { .software = o->user_agent };
		if ((rc = warc_open(dir, &wo, &c->warc))) {
			say(c, LOG_ERR, "%s: %s", dir,
			    rc == SC_E_IO ? strerror(errno) : sc_strerror(rc));
			goto out;
		}
	}

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

	if (o->daemon && o->daemon->start &&
	    (rc = o->daemon->start(c, o->daemon->arg)))
		goto out;
	fill(c);
	check_done(c);
	if (!c->done)
		event_base_dispatch(c->base);
	if (!c->o->quiet)
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
		list_hosts(c, ret);
	}
	if (c->multi) {
		stop_now(c);
		curl_multi_cleanup(c->multi);
	}
	for (struct job *j; (j = jobq_pop(&c->to_loop));) {
		if (j->kind == JOB_SEEDS || j->kind == JOB_RELOAD)
			seeds_back(c, j); /* committed, or failed */
		else
			job_free(j);
	}
	if (o->daemon && o->daemon->finish)
		o->daemon->finish(c, o->daemon->arg);
	for (size_t i = 0; i < c->n_old_connect_to; i++)
		curl_slist_free_all(c->old_connect_to[i]);
	free(c->old_connect_to);
	for (size_t h = 0; h < c->n_robots; h++)
		parse_robots_free(c->robots[h].rules);
	free(c->robots);
	while (c->troubles) {
		struct trouble *t = c->troubles;
		c->troubles = t->next;
		free(t);
	}
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
	if (c->warc && warc_close(c->warc) && !rc) {
		say(c, LOG_ERR, "closing the WARC file: %s", strerror(errno));
		rc = SC_E_IO;
	}
	search_close(c->search);
	frontier_close(c->fr);
	focus_close(c->focus);
	store_close(c->store);
	store_env_close(c->env);
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	free(c->parsers);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->parse_cv);
	pthread_cond_destroy(&c->write_cv);
	free(c);
	return rc;
}

/* ---------------------------------------------------------------------
 * The daemon's side (crawl.h): all on the loop's thread
 */

struct event_base *crawl_base(struct crawl *c)
{
	return c->base;
}

void crawl_stop(struct crawl *c)
{
	stop_now(c);
}

void crawl_pause(struct crawl *c, bool paused)
{
	if (c->paused == paused)
		return;
	c->paused = paused;
	if (!paused) {
		fill(c);
		check_done(c);
	}
}

void crawl_status(struct crawl *c, struct crawl_status *ret)
{
	struct frontier_stats st;
	frontier_stats(c->fr, &st);
	pthread_mutex_lock(&c->mu);
	ret->sum = c->sum;
	uint64_t pending = c->in_pipeline;
	pthread_mutex_unlock(&c->mu);
	ret->sum.seconds = (double)(mono_ms() - c->t0) / 1000.0;
	ret->queued = st.queued;
	ret->seen = st.seen;
	ret->hosts = st.hosts;
	ret->in_flight = c->running;
	ret->started = c->started;
	memcpy(ret->latency_count, c->latency_count,
	       sizeof(ret->latency_count));
	ret->latency_sum = c->latency_sum;
	ret->sum.hosts_held = c->hosts_held;
	ret->sum.hosts_given_up = c->hosts_given_up;
	ret->n_held_listed = 0;
	uint64_t now = mono_ms();
	for (const struct trouble *t = c->troubles;
	     t && ret->n_held_listed < CRAWL_HOSTS_LISTED; t = t->next)
		if (!t->h.given_up)
			host_view(t, now, &ret->held[ret->n_held_listed++]);
	const struct crawl_opts *o = c->o;
	bool limit = o->max_pages && c->started >= o->max_pages;
	if (c->stopping)
		ret->state = CRAWL_STOPPING;
	else if (c->paused)
		ret->state = CRAWL_PAUSED;
	else if (!c->running && !c->parked && !pending &&
		 (c->frontier_dry || limit))
		ret->state = CRAWL_IDLE;
	else
		ret->state = CRAWL_RUNNING;
}

int crawl_add_seeds(struct crawl *c, struct crawl_seeds *s)
{
	if (c->stopping)
		return SC_E_AGAIN;
	struct job *j = calloc(1, sizeof(*j));
	if (!j)
		return SC_E_NOMEM;
	j->kind = JOB_SEEDS;
	j->seeds = s;
	submit(c, j, false);
	return 0;
}

int crawl_reload(struct crawl *c, const struct crawl_opts *o)
{
	int rc = focus_reload(c->focus, o);
	if (rc)
		return rc;
	struct curl_slist *l = NULL;
	for (size_t i = 0; i < o->n_connect_to; i++) {
		struct curl_slist *n = curl_slist_append(l, o->connect_to[i]);
		if (!n) {
			curl_slist_free_all(l);
			return SC_E_NOMEM;
		}
		l = n;
	}
	struct job *j = calloc(1, sizeof(*j));
	struct curl_slist **v = realloc(c->old_connect_to,
					(c->n_old_connect_to + 1) * sizeof(*v));
	if (v)
		c->old_connect_to = v;
	if (!j || !v) {
		free(j);
		curl_slist_free_all(l);
		return SC_E_NOMEM;
	}
	/* Transfers in flight still use the old list: it is freed at the
	 * end. */
	c->old_connect_to[c->n_old_connect_to++] = c->connect_to;
	c->connect_to = l;
	c->o = o;
	struct frontier_opts fo = { o->per_host_connections,
				    o->per_host_delay_ms };
	frontier_set_opts(c->fr, &fo);
	/* No connection limits for libcurl (see crawl_run()), only the
	 * size of its cache. */
	curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS,
			  (long)o->concurrency * 2);
	j->kind = JOB_RELOAD;
	submit(c, j, false);
	fill(c);
	check_done(c);
	return 0;
}
