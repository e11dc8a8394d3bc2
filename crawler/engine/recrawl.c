/* recrawl.c — re-crawls (SPEC §7, docs/recrawl.md): the schedule of every
 * fetched page's next visit, the mover that queues the pages that are due
 * as revisits, and the crawl's clock.
 *
 * Every page fetched with a 2xx or 3xx answer is scheduled: its record
 * keeps its interval and its next visit (due_at), and the frontier's "due"
 * index lists it in due order (frontier.h), in the same transaction.
 * The mover runs on the writer thread as a JOB_DUE: it takes the entries
 * that are due (under `crawl --recrawl`, every entry the pass has not
 * revisited yet), drops each from the index, and queues it in the
 * frontier as a revisit, with the validators of its last answer and at
 * its own depth, so that politeness, robots.txt and breadth-first order
 * apply to revisits as to first fetches.  A duplicate is not queued: it
 * is counted as a fetch saved and scheduled again, unless it falls in the
 * audit share.  The revisit's outcome is committed with its next
 * schedule (writer.c, write_revisit()).
 *
 * The moves and the revisits each commit with the index changes they
 * make, so a kill -9 at any point leaves every page either scheduled or
 * queued: none is lost, none is revisited twice for one schedule. */
#include "crawl-int.h"

#include <xxhash.h>

_Atomic int64_t crawl_clock_offset_ms;

/* Revisits queued and not yet committed, at most: the mover stops there
 * until revisits are done, so that a store whose pages all fall due at
 * once fills the queue a batch at a time. */
#define REVISITS_QUEUED_MAX 2048
/* Entries the mover reads at once. */
#define DUE_BATCH 256
/* The daemon counts the pages due (for status) every this many runs. */
#define DUE_COUNT_PERIOD 10

/* The interval's factors: halved when the page changed, half as long
 * again when it did not (docs/recrawl.md has the reasoning). */
#define INTERVAL_SHRINK 0.5
#define INTERVAL_GROW 1.5
/* The first interval without a Last-Modified to go by. */
#define INTERVAL_FIRST_S (24u * 3600)

/* The test clock: SIGCRAWL_TEST_CLOCK names a file holding a number of
 * seconds by which the crawl's clock runs ahead of the system's.  Read
 * when the crawl starts and before each of the writer's batches, so a
 * test moves time forward by rewriting the file.  Documented in
 * docs/recrawl.md as a test hook, not a feature. */
void recrawl_clock_refresh(void)
{
	static const char *path;
	static bool looked;
	if (!looked) {
		path = getenv("SIGCRAWL_TEST_CLOCK");
		looked = true;
	}
	if (!path || !*path)
		return;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	long long s;
	if (fscanf(f, "%lld", &s) == 1 && s >= 0 && s < 100ll * 365 * 86400)
		crawl_clock_offset_ms = (int64_t)s * 1000;
	fclose(f);
}

static uint64_t clamp_s(double s, uint64_t min_s, uint64_t max_s)
{
	if (!(s >= (double)min_s)) /* also NaN */
		return min_s;
	if (s >= (double)max_s)
		return max_s;
	return (uint64_t)s;
}

uint64_t recrawl_interval_next(uint64_t interval_s, bool changed,
			       uint64_t min_s, uint64_t max_s)
{
	double f = changed ? INTERVAL_SHRINK : INTERVAL_GROW;
	return clamp_s((double)interval_s * f, min_s, max_s);
}

/* A tenth of the time since the page last changed, as HTTP caches guess
 * a freshness lifetime (RFC 9111 §4.2.2); a day without one. */
uint64_t recrawl_interval_first(int64_t now_ms, int64_t last_modified_ms,
				uint64_t min_s, uint64_t max_s)
{
	if (last_modified_ms > 0 && last_modified_ms < now_ms)
		return clamp_s((double)(now_ms - last_modified_ms) / 10000.0,
			       min_s, max_s);
	return clamp_s(INTERVAL_FIRST_S, min_s, max_s);
}

/* A sitemap's changefreq as an interval (enum parse_changefreq), or 0:
 * none. */
static uint64_t changefreq_s(uint8_t cf, uint64_t min_s, uint64_t max_s)
{
	static const uint64_t s[] = {
		[PARSE_CHANGEFREQ_HOURLY] = 3600,
		[PARSE_CHANGEFREQ_DAILY] = 86400,
		[PARSE_CHANGEFREQ_WEEKLY] = 7 * 86400,
		[PARSE_CHANGEFREQ_MONTHLY] = 30 * 86400,
		[PARSE_CHANGEFREQ_YEARLY] = 365 * 86400,
	};
	if (cf == PARSE_CHANGEFREQ_ALWAYS)
		return min_s;
	if (cf == PARSE_CHANGEFREQ_NEVER)
		return max_s;
	if (cf < sizeof(s) / sizeof(s[0]) && s[cf])
		return clamp_s((double)s[cf], min_s, max_s);
	return 0;
}

/* Is the duplicate with this key audited in this pass?  A hash of both,
 * so that each pass audits another share. */
static bool audited(const struct crawl_opts *o, const unsigned char *key,
		    uint32_t pass)
{
	double share = o->recrawl.audit_share;
	if (share <= 0)
		return false;
	if (share >= 1)
		return true;
	uint64_t h = XXH3_64bits_withSeed(key, SC_KEY_LEN, pass + 1u);
	return (double)(h >> 11) < share * (double)(1ull << 53);
}

static uint16_t category_index(const struct crawl_opts *o,
			       const struct store_record *r)
{
	for (size_t i = 0; i < o->n_categories; i++)
		if (strlen(o->categories[i].name) == r->category_len &&
		    memcmp(o->categories[i].name, r->category,
			   r->category_len) == 0)
			return (uint16_t)i;
	return 0;
}

/* The components of a record's key, with the scheme and port its fetch
 * used: under fold_https the key says http for an https URL, and the URL
 * as found says which. */
static int key_parts(const struct store_record *r, struct norm_url *u)
{
	if (r->normalized_len > NORM_URL_MAX ||
	    norm_split(r->normalized, r->normalized_len, u))
		return SC_E_CORRUPT;
	struct norm_url fu;
	if (u->scheme_len == 4 && r->url_len > 6 &&
	    strncasecmp(r->url, "https:", 6) == 0 &&
	    r->url_len <= NORM_URL_MAX &&
	    norm_split(r->url, r->url_len, &fu) == 0) {
		u->https = 1;
		u->port = u->has_port && u->port_len ? u->port : fu.port;
	}
	return 0;
}

int recrawl_record_copy(const struct store_record *r, unsigned char **buf,
			struct store_record *out)
{
	size_t size, len;
	int rc = store_record_size(r, &size);
	if (rc)
		return rc;
	unsigned char *b = malloc(size);
	if (!b)
		return SC_E_NOMEM;
	if ((rc = store_record_encode(r, b, size, &len)) ||
	    (rc = store_record_decode(b, len, out))) {
		free(b);
		return rc;
	}
	*buf = b;
	return 0;
}

/* One entry that is due: queued as a revisit (1), or not (0): a stale
 * entry is dropped, a duplicate outside the audit share scheduled again. */
static int move_one(struct crawl *c, MDB_txn *txn, const struct frontier_due *d,
		    int64_t now, struct job *j)
{
	const struct crawl_opts *o = c->o;
	struct store_record r;
	int rc = store_get(c->store, txn, d->key, &r);
	if (rc && rc != SC_E_NOTFOUND)
		return rc;
	/* The record was scheduled again since (or is gone): stale. */
	bool stale = rc == SC_E_NOTFOUND || !r.has_visit || r.due_at != d->due;
	if ((rc = frontier_due_del(c->fr, txn, d)) && rc != SC_E_NOTFOUND)
		return rc;
	if (stale)
		return 0;
	if (r.duplicate_of && !audited(o, d->key, c->pass)) {
		/* Not fetched: its representative is.  Scheduled again. */
		unsigned char *buf;
		struct store_record n;
		if ((rc = recrawl_record_copy(&r, &buf, &n)))
			return rc;
		uint64_t iv = n.interval_s ? n.interval_s
					   : o->recrawl.max_interval_s;
		n.due_at = now + (int64_t)iv * 1000;
		struct frontier_due nd = *d;
		nd.due = n.due_at;
		nd.pass = c->pass;
		if (!(rc = store_put(c->store, txn, &n)))
			rc = frontier_due_put(c->fr, txn, &nd);
		free(buf);
		j->due_saved += rc == 0;
		return rc;
	}
	struct norm_url u;
	if (key_parts(&r, &u))
		return 0; /* a damaged record: never fetched again */
	struct frontier_url fu = {
		.url = r.normalized,
		.url_len = r.normalized_len,
		.u = &u,
		.found = r.url,
		.found_len = r.url_len,
		.depth = (uint16_t)(r.depth > UINT16_MAX ? UINT16_MAX
							 : r.depth),
		.category = category_index(o, &r),
		.revisit = true,
		.sitemap = d->flags & FRONTIER_DUE_SITEMAP,
		.etag = r.etag,
		.etag_len = r.etag_len,
		.last_modified = r.last_modified,
		.last_modified_len = r.last_modified_len,
	};
	if (r.url_len > NORM_URL_MAX) {
		fu.found = r.normalized;
		fu.found_len = r.normalized_len;
	}
	rc = frontier_revisit(c->fr, txn, &fu);
	if (rc == SC_E_INVAL)
		return 0; /* a host name too long for the frontier */
	if (rc)
		return rc;
	j->due_audited += r.duplicate_of != NULL;
	return 1;
}

/* Call fn(arg, entry) for the entries due by horizon, in due order, a
 * batch at a time, until it returns non-zero (1: stop, else an error).
 * fn may write in txn, but not the due index. */
static int due_walk(struct crawl *c, MDB_txn *txn, int64_t horizon,
		    int (*fn)(void *arg, const struct frontier_due *d),
		    void *arg)
{
	struct frontier_due d[DUE_BATCH];
	struct frontier_due last;
	bool after = false;
	for (;;) {
		size_t n;
		int more = frontier_due_next(c->fr, txn, after ? &last : NULL,
					     horizon, d, DUE_BATCH, &n);
		if (more < 0)
			return more;
		for (size_t i = 0; i < n; i++) {
			int rc = fn(arg, &d[i]);
			if (rc)
				return rc < 0 ? rc : 0;
		}
		if (!more || !n)
			return 0;
		last = d[n - 1];
		after = true;
	}
}

static int count_one(void *arg, const struct frontier_due *d)
{
	(void)d;
	uint64_t *n = arg;
	return ++*n >= CRAWL_DUE_COUNT_MAX;
}

int recrawl_move(struct crawl *c, MDB_txn *txn, struct job *j)
{
	const struct crawl_opts *o = c->o;
	bool pass = o->recrawl.pass;
	int64_t now = (int64_t)wall_ms();
	pthread_mutex_lock(&c->mu);
	uint64_t queued = c->revisits_queued;
	pthread_mutex_unlock(&c->mu);
	uint64_t room = queued < REVISITS_QUEUED_MAX
				? REVISITS_QUEUED_MAX - queued
				: 0;
	struct frontier_due d[DUE_BATCH];
	int more = 1;
	while (room > 0) {
		size_t n;
		more = frontier_due_next(
			c->fr, txn,
			pass && c->due_cursor_set ? &c->due_cursor : NULL,
			pass ? INT64_MAX : now, d,
			room < DUE_BATCH ? (size_t)room : DUE_BATCH, &n);
		if (more < 0)
			return more;
		for (size_t i = 0; i < n; i++) {
			if (pass) {
				c->due_cursor = d[i];
				c->due_cursor_set = true;
				if (d[i].pass >= c->pass)
					continue; /* revisited in this pass */
			}
			int rc = move_one(c, txn, &d[i], now, j);
			if (rc < 0)
				return rc;
			if (rc == 1) {
				j->due_moved++;
				room--;
			}
		}
		if (!more)
			break;
	}
	j->due_more = more != 0;
	if (j->due_moved) {
		pthread_mutex_lock(&c->mu);
		c->revisits_queued += j->due_moved;
		pthread_mutex_unlock(&c->mu);
	}
	int rc = frontier_due_count(c->fr, txn, &j->due_scheduled);
	if (!rc && !pass && c->due_runs++ % DUE_COUNT_PERIOD == 0) {
		j->due_overdue = 0;
		rc = due_walk(c, txn, now, count_one, &j->due_overdue);
		j->due_counted = rc == 0;
	}
	return rc;
}

/* The schedule of a page fetched for the first time, into its record r
 * and the due index. */
int recrawl_first(struct crawl *c, MDB_txn *txn, const struct job *j,
		  struct store_record *r)
{
	const struct crawl_opts *o = c->o;
	if (!j->fetched)
		return 0;
	if (j->etag[0]) {
		r->etag = j->etag;
		r->etag_len = strlen(j->etag);
	}
	if (j->last_modified[0]) {
		r->last_modified = j->last_modified;
		r->last_modified_len = strlen(j->last_modified);
	}
	r->has_visit = true;
	r->visits = 1;
	/* Only pages that answered are revisited: a failure is no page. */
	if (j->status < 200 || j->status > 399 ||
	    (j->error && j->error != STORE_ERROR_TOO_BIG))
		return 0;
	int64_t now = (int64_t)j->fetched_at;
	/* The answer's Last-Modified, else the one a sitemap gave. */
	const char *lms = j->last_modified[0]         ? j->last_modified
			  : j->lease.last_modified[0] ? j->lease.last_modified
						      : NULL;
	int64_t lm = lms ? (int64_t)curl_getdate(lms, NULL) : -1;
	uint64_t min_s = o->recrawl.min_interval_s;
	uint64_t max_s = o->recrawl.max_interval_s;
	uint64_t iv = changefreq_s(j->lease.changefreq, min_s, max_s);
	if (!iv)
		iv = recrawl_interval_first(now, lm > 0 ? lm * 1000 : -1, min_s,
					    max_s);
	r->interval_s = (uint32_t)iv;
	r->due_at = now + (int64_t)iv * 1000;
	struct frontier_due d = { .due = r->due_at,
				  .pass = c->pass,
				  .flags = j->lease.sitemap
						   ? FRONTIER_DUE_SITEMAP
						   : 0 };
	sc_url_key(r->normalized, r->normalized_len, d.key);
	return frontier_due_put(c->fr, txn, &d);
}

/* A sitemap lists a known URL with a lastmod: if the page was fetched
 * before it changed and waits for a later visit, it is due now.  Returns
 * 1 when it was made due, 0 when not, or an error. */
int recrawl_sitemap_lastmod(struct crawl *c, MDB_txn *txn, const char *url,
			    size_t len, int64_t lastmod_ms, bool sitemap)
{
	unsigned char key[SC_KEY_LEN];
	sc_url_key(url, len, key);
	struct store_record r;
	int rc = store_get(c->store, txn, key, &r);
	if (rc == SC_E_NOTFOUND)
		return 0;
	int64_t now = (int64_t)wall_ms();
	if (rc || !r.has_visit || r.due_at <= now || r.duplicate_of ||
	    lastmod_ms <= r.fetched_at)
		return rc;
	unsigned char *buf;
	struct store_record w;
	if ((rc = recrawl_record_copy(&r, &buf, &w)))
		return rc;
	struct frontier_due d = { .due = w.due_at,
				  .pass = c->pass,
				  .flags = sitemap ? FRONTIER_DUE_SITEMAP : 0 };
	memcpy(d.key, key, SC_KEY_LEN);
	rc = frontier_due_del(c->fr, txn, &d);
	if (rc == 0 || rc == SC_E_NOTFOUND) {
		w.due_at = d.due = now;
		if (!(rc = store_put(c->store, txn, &w)))
			rc = frontier_due_put(c->fr, txn, &d);
	}
	free(buf);
	if (rc)
		return rc;
	pthread_mutex_lock(&c->mu);
	c->sum.sitemap_due++;
	pthread_mutex_unlock(&c->mu);
	return 1;
}

/* Before the loop: the pass of `crawl --recrawl` begins, or resumes if a
 * killed one was under way; a store written before the schedule existed
 * has its fetched pages scheduled first. */
struct backfill {
	struct crawl *c;
	MDB_txn *txn;
	uint64_t n;
	int rc;
};

static int backfill_one(void *arg, const struct store_record *r)
{
	struct backfill *b = arg;
	if (!r->fetched || r->has_visit || r->status < 200 || r->status > 399)
		return 0;
	struct frontier_due d = { .due = r->fetched_at > 0 ? r->fetched_at : 0,
				  .pass = 0 };
	sc_url_key(r->normalized, r->normalized_len, d.key);
	/* The record keeps no due time: the mover takes the entry as
	 * stale unless due_at says it, so the record gets one. */
	b->rc = frontier_due_put(b->c->fr, b->txn, &d);
	b->n += b->rc == 0;
	return b->rc;
}

/* Then each entry just made names a record without a visit block: give
 * it one whose due_at is the entry's (store_foreach() may not write
 * records, so this is a second step). */
static int backfill_record(void *arg, const struct frontier_due *d)
{
	struct backfill *b = arg;
	struct store_record r, w;
	unsigned char *buf;
	int rc = store_get(b->c->store, b->txn, d->key, &r);
	if (rc == SC_E_NOTFOUND || (rc == 0 && r.has_visit))
		return 0;
	if (rc || (rc = recrawl_record_copy(&r, &buf, &w)))
		return rc;
	w.has_visit = true;
	w.visits = 1;
	w.interval_s = (uint32_t)recrawl_interval_first(
		w.fetched_at, -1, b->c->o->recrawl.min_interval_s,
		b->c->o->recrawl.max_interval_s);
	w.due_at = d->due;
	rc = store_put(b->c->store, b->txn, &w);
	free(buf);
	return rc;
}

static int backfill(struct crawl *c, MDB_txn *txn, uint64_t *ret)
{
	struct backfill b = { c, txn, 0, 0 };
	int rc = store_foreach(c->store, txn, backfill_one, &b);
	*ret = b.n;
	if (rc || !b.n)
		return rc;
	return due_walk(c, txn, INT64_MAX, backfill_record, &b);
}

int recrawl_start(struct crawl *c)
{
	const struct crawl_opts *o = c->o;
	recrawl_clock_refresh();
	MDB_txn *txn;
	int rc = store_txn_begin(c->env, 0, &txn);
	if (rc)
		return rc;
	uint32_t pass;
	bool running;
	uint64_t scheduled = 0, filled = 0;
	if ((rc = frontier_pass_get(c->fr, txn, &pass, &running)) ||
	    (rc = frontier_due_count(c->fr, txn, &scheduled))) {
		mdb_txn_abort(txn);
		return rc;
	}
	if (o->recrawl.pass && !running) {
		if (pass == 0 && (rc = backfill(c, txn, &filled))) {
			mdb_txn_abort(txn);
			return rc;
		}
		pass++;
		if ((rc = frontier_pass_put(c->fr, txn, pass, true))) {
			mdb_txn_abort(txn);
			return rc;
		}
	}
	if ((rc = store_txn_commit(txn)))
		return rc;
	c->pass = pass;
	c->due_scheduled = scheduled + filled;
	if (o->recrawl.pass && !o->quiet)
		crawl_say(c, LOG_NOTICE,
			  "re-crawl pass %u %s: %llu pages scheduled%s", pass,
			  running ? "resumed" : "begins",
			  (unsigned long long)c->due_scheduled,
			  filled ? " (the store's pages scheduled first)" : "");
	return 0;
}

/* After the loop: a pass that revisited everything is over. */
int recrawl_end(struct crawl *c)
{
	if (!c->o->recrawl.pass || !c->pass_scanned || c->stopping ||
	    c->fatal || !c->frontier_dry)
		return 0;
	MDB_txn *txn;
	int rc = store_txn_begin(c->env, 0, &txn);
	if (!rc && (rc = frontier_pass_put(c->fr, txn, c->pass, false)))
		mdb_txn_abort(txn);
	else if (!rc)
		rc = store_txn_commit(txn);
	return rc;
}

/* Does the crawl revisit at all? */
static bool revisiting(const struct crawl *c)
{
	return c->o->recrawl.pass || (c->o->daemon && c->o->recrawl.enabled);
}

/* Hand the writer a JOB_DUE, unless one is with it or there is no room
 * for revisits.  On the loop: from the tick, and when a JOB_DUE comes
 * back while the pass has more to queue. */
void recrawl_post(struct crawl *c)
{
	if (!revisiting(c) || c->due_outstanding || c->stopping ||
	    (c->o->recrawl.pass && c->pass_scanned))
		return;
	pthread_mutex_lock(&c->mu);
	bool room = c->revisits_queued < REVISITS_QUEUED_MAX / 2;
	pthread_mutex_unlock(&c->mu);
	if (!room)
		return;
	struct job *j = job_new(JOB_DUE);
	if (!j) {
		crawl_die(c, SC_E_NOMEM, "re-crawl");
		return;
	}
	c->due_outstanding = true;
	parse_submit(c, j, false);
}

void recrawl_back(struct crawl *c, struct job *j)
{
	c->due_outstanding = false;
	if (j->seeds_rc == 0) {
		c->due_scheduled = j->due_scheduled;
		if (j->due_counted)
			c->due_overdue = j->due_overdue;
		pthread_mutex_lock(&c->mu);
		c->sum.re.saved += j->due_saved;
		c->sum.re.audited += j->due_audited;
		pthread_mutex_unlock(&c->mu);
		if (c->o->recrawl.pass && !j->due_more)
			c->pass_scanned = true;
		c->due_more = j->due_more;
	}
	job_free(j);
	recrawl_refill(c);
}

/* A commit: revisits done make room for more, at once rather than at
 * the next tick (a pass would otherwise go at most REVISITS_QUEUED_MAX
 * pages a second). */
void recrawl_refill(struct crawl *c)
{
	if (c->due_more)
		recrawl_post(c);
}

/* Must the crawl go on for the re-crawl?  A pass until it has queued
 * every page, and while a JOB_DUE is with the writer. */
bool recrawl_busy(const struct crawl *c)
{
	if (!c->o->recrawl.pass)
		return false;
	return c->due_outstanding || !c->pass_scanned;
}
