/* test-frontier.c — the LMDB frontier: order, politeness, leases,
 * deduplication, and what survives a crash. */
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "frontier.h"
#include "normalize.h"
#include "store.h"

static char dir[] = "/tmp/sc-test-frontier-XXXXXX";

static MDB_env *env_open_sized(size_t mapsize)
{
	MDB_env *env;
	if (mdb_env_create(&env) || mdb_env_set_maxdbs(env, 16) ||
	    mdb_env_set_mapsize(env, mapsize) ||
	    mdb_env_open(env, dir, MDB_NOTLS, 0640)) {
		fprintf(stderr, "cannot open LMDB in %s\n", dir);
		exit(99);
	}
	return env;
}

static MDB_env *env_open(void)
{
	return env_open_sized((size_t)1 << 30);
}

/* A frontier with options o. */
static struct frontier *open_opts(MDB_env *env, const struct frontier_opts *o)
{
	struct frontier *f = NULL;
	MDB_txn *txn;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(frontier_open(env, txn, o, &f) == 0);
	CHECK(mdb_txn_commit(txn) == 0);
	return f;
}

static struct frontier *fr_open(MDB_env *env, unsigned conns, uint32_t delay)
{
	struct frontier_opts o = { .per_host_connections = conns,
				   .per_host_delay_ms = delay };
	return open_opts(env, &o);
}

/* A frontier that defers classes 2 and 3 (as a crawl that predicts
 * links), 8 connections a host, no delay; its options into *o. */
static struct frontier *defer_open(MDB_env *env, struct frontier_opts *o)
{
	*o = (struct frontier_opts){ .per_host_connections = 8,
				     .per_host_delay_ms = 0,
				     .defer_class = 2 };
	return open_opts(env, o);
}

/* Queue one URL (normalized here) in txn; returns frontier_add()'s code. */
static int add(struct frontier *f, MDB_txn *txn, const char *url, int depth)
{
	static const struct norm_opts strict = { .steps = 0xff };
	char out[NORM_URL_MAX + 1];
	struct norm_url u;
	if (norm_url(&strict, NULL, url, strlen(url), out, sizeof(out), &u))
		return -1000;
	struct frontier_url fu = {
		.url = out,
		.url_len = u.len,
		.u = &u,
		.found = url,
		.found_len = strlen(url),
		.depth = (uint16_t)depth,
		.redirects = (uint8_t)(depth == 7 ? 3 : 0),
	};
	return frontier_add(f, txn, &fu);
}

/* Add a batch in one committed transaction. */
static void add_all(MDB_env *env, struct frontier *f, const char *const *urls,
		    const int *depths, size_t n)
{
	MDB_txn *txn;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	for (size_t i = 0; i < n; i++)
		CHECK(add(f, txn, urls[i], depths[i]) == 1);
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);
}

static void done(MDB_env *env, struct frontier *f,
		 const struct frontier_lease *l)
{
	MDB_txn *txn;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(frontier_done(f, txn, l) == 0);
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);
	frontier_release(f, l->host_id);
}

static void test_order_and_politeness(void)
{
	MDB_env *env = env_open();
	struct frontier *f = fr_open(env, 1, 1000);
	static const char *const urls[] = {
		"http://a.test/a2", "http://a.test/",   "http://b.test/",
		"http://a.test/a1", "http://b.test/b1", "http://c.test/deep",
	};
	static const int depths[] = { 2, 0, 0, 1, 1, 3 };
	struct frontier_lease l;
	uint64_t wait;

	add_all(env, f, urls, depths, 6);

	/* Ready hosts in order of their next URL's depth, then discovery:
	 * a (depth 0, found before b's), b (0), c (3). */
	CHECK(frontier_next(f, 0, &l, &wait) == 0);
	CHECK_STR(l.url, "http://a.test/");
	CHECK(l.depth == 0);
	CHECK(frontier_next(f, 0, &l, &wait) == 0);
	CHECK_STR(l.url, "http://b.test/");
	struct frontier_lease lb = l;
	CHECK(frontier_next(f, 0, &l, &wait) == 0);
	CHECK_STR(l.url, "http://c.test/deep");
	CHECK(l.depth == 3);
	/* Every host now has one connection in flight (the limit). */
	CHECK(frontier_next(f, 0, &l, &wait) == SC_E_AGAIN);
	CHECK(wait == UINT64_MAX);

	/* Host b's fetch ends; it may start again 1000 ms after its last
	 * start, not before.  Its request went out at 40 (a wait for a
	 * connection): then not before 1040. */
	frontier_sent(f, lb.host_id, 40);
	done(env, f, &lb);
	CHECK(frontier_next(f, 500, &l, &wait) == SC_E_AGAIN);
	CHECK(wait == 540);
	CHECK(frontier_next(f, 1000, &l, &wait) == SC_E_AGAIN);
	CHECK(wait == 40);
	/* A request that went out earlier than the hold moves nothing. */
	frontier_sent(f, lb.host_id, 10);
	CHECK(frontier_next(f, 1039, &l, &wait) == SC_E_AGAIN);
	CHECK(frontier_next(f, 1040, &l, &wait) == 0);
	CHECK_STR(l.url, "http://b.test/b1");

	/* A longer delay of its own (Crawl-delay) and a hold. */
	frontier_release(f, l.host_id);
	frontier_host_delay(f, l.host_id, 5000);
	frontier_hold(f, l.host_id, 3000);
	CHECK(frontier_next(f, 2500, &l, &wait) == SC_E_AGAIN);

	struct frontier_stats st;
	frontier_stats(f, &st);
	CHECK(st.hosts == 3);
	CHECK(st.seen == 6);
	CHECK(st.queued == 5); /* b.test/ is done */
	CHECK(st.leased == 3); /* a/, c/deep, b/b1 */

	frontier_close(f);
	mdb_env_close(env);
}

/* Within a host, the queue is breadth-first even when a shallower URL is
 * found after deeper ones were leased. */
static void test_late_shallow_url(void)
{
	MDB_env *env = env_open();
	struct frontier *f = fr_open(env, 4, 0);
	static const char *const deep[] = { "http://d.test/x3",
					    "http://d.test/y3" };
	static const int d3[] = { 3, 3 };
	static const char *const shallow[] = { "http://d.test/s1" };
	static const int d1[] = { 1 };
	struct frontier_lease l, l2;
	uint64_t wait;

	add_all(env, f, deep, d3, 2);
	CHECK(frontier_next(f, 0, &l, &wait) == 0);
	CHECK_STR(l.url, "http://d.test/x3");
	add_all(env, f, shallow, d1, 1);
	CHECK(frontier_next(f, 0, &l2, &wait) == 0);
	CHECK_STR(l2.url, "http://d.test/s1");
	CHECK(frontier_next(f, 0, &l2, &wait) == 0);
	CHECK_STR(l2.url, "http://d.test/y3");
	/* x3 is leased and not done: never offered twice. */
	CHECK(frontier_next(f, 0, &l2, &wait) == SC_E_AGAIN);
	/* Given back, it is offered again, first. */
	frontier_return(f, &l);
	CHECK(frontier_next(f, 0, &l2, &wait) == 0);
	CHECK_STR(l2.url, "http://d.test/x3");
	CHECK(frontier_next(f, 0, &l2, &wait) == SC_E_AGAIN);
	/* The redirect count travels with the entry. */
	static const char *const r7[] = { "http://d.test/r7" };
	static const int d7[] = { 7 };
	add_all(env, f, r7, d7, 1);
	CHECK(frontier_next(f, 0, &l2, &wait) == 0);
	CHECK_STR(l2.url, "http://d.test/r7");
	CHECK(l2.depth == 7 && l2.redirects == 3);
	frontier_close(f);
	mdb_env_close(env);
}

/* Queue url at depth with a priority class and a prediction. */
static void add_prio(MDB_env *env, struct frontier *f, const char *url,
		     int depth, uint8_t prio, uint8_t predicted)
{
	static const struct norm_opts strict = { .steps = 0xff };
	char out[NORM_URL_MAX + 1];
	struct norm_url u;
	MDB_txn *txn;
	CHECK(norm_url(&strict, NULL, url, strlen(url), out, sizeof(out), &u) ==
	      0);
	struct frontier_url fu = { .url = out,
				   .url_len = u.len,
				   .u = &u,
				   .found = out,
				   .found_len = u.len,
				   .depth = (uint16_t)depth,
				   .priority = prio,
				   .predicted = predicted,
				   .pred_class = (uint8_t)(prio + 7),
				   .n_words = (uint8_t)(prio + 1),
				   .words = { 0xdeadbeef, predicted, 7, 8 } };
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(frontier_add(f, txn, &fu) == 1);
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);
}

/* Priority classes go before depth, within a host and across hosts, and
 * the prediction travels with the entry. */
static void test_priority(void)
{
	MDB_env *env = env_open();
	struct frontier *f = fr_open(env, 8, 0);
	struct frontier_lease l;
	uint64_t wait;

	add_prio(env, f, "http://p.test/tunnel1", 1, 1, 0);
	add_prio(env, f, "http://p.test/topic5", 5, 0, 200);
	add_prio(env, f, "http://p.test/last", 0, 3, 0);
	add_prio(env, f, "http://q.test/tunnel0", 0, 2, 9);
	add_prio(env, f, "http://r.test/topic9", 9, 0, 255);
	static const char *const order[] = {
		"http://p.test/topic5",  "http://r.test/topic9",
		"http://p.test/tunnel1", "http://q.test/tunnel0",
		"http://p.test/last",
	};
	static const int depth[] = { 5, 9, 1, 0, 0 };
	static const int pred[] = { 200, 255, 0, 9, 0 };
	static const int cls[] = { 7, 7, 8, 9, 10 };
	for (size_t i = 0; i < 5; i++) {
		CHECK(frontier_next(f, 0, &l, &wait) == 0);
		CHECK_STR(l.url, order[i]);
		CHECK(l.depth == depth[i]);
		CHECK(l.predicted == pred[i] && l.pred_class == cls[i]);
		CHECK(l.n_words == cls[i] - 6 && l.words[0] == 0xdeadbeef);
		CHECK(l.n_words < 2 || l.words[1] == (uint32_t)pred[i]);
	}
	CHECK(frontier_next(f, 0, &l, &wait) == SC_E_AGAIN);
	frontier_close(f);
	mdb_env_close(env);
}

/* With defer_class off (in o, applied to f), three guesses at time now
 * all go at once; then f and env are closed. */
static void no_defer(MDB_env *env, struct frontier *f, struct frontier_opts *o,
		     uint64_t now)
{
	struct frontier_lease l;
	uint64_t wait;
	o->defer_class = 0;
	frontier_set_opts(f, o);
	add_prio(env, f, "http://y.test/a", 1, 3, 0);
	add_prio(env, f, "http://y2.test/a", 1, 3, 0);
	add_prio(env, f, "http://y3.test/a", 1, 3, 0);
	for (int i = 0; i < 3; i++)
		CHECK(frontier_next(f, now, &l, &wait) == 0);
	frontier_close(f);
	mdb_env_close(env);
}

/* defer_class 2: URLs of class 2 and 3 go two at a time while URLs of
 * class 0 or 1 are leased and not done or wait for their host's delay;
 * all at once when nothing better is under way. */
static void test_defer(void)
{
	MDB_env *env = env_open();
	struct frontier_opts o;
	struct frontier *f = defer_open(env, &o);
	struct frontier_lease l, good, g[4];
	uint64_t wait;

	add_prio(env, f, "http://g.test/good", 3, 0, 0);
	for (int i = 0; i < 4; i++) {
		char u[64];
		snprintf(u, sizeof(u), "http://x%d.test/guess", i);
		add_prio(env, f, u, 1, 2 + (i & 1), 0);
	}
	CHECK(frontier_next(f, 0, &good, &wait) == 0);
	CHECK_STR(good.url, "http://g.test/good");
	/* The good one is in flight: two guesses, then nothing. */
	CHECK(frontier_next(f, 0, &g[0], &wait) == 0);
	CHECK(frontier_next(f, 0, &g[1], &wait) == 0);
	CHECK(strstr(g[0].url, "/guess") && strstr(g[1].url, "/guess"));
	CHECK(frontier_next(f, 0, &l, &wait) == SC_E_AGAIN);
	CHECK(wait == UINT64_MAX);
	/* A guess done makes room for one more. */
	done(env, f, &g[0]);
	CHECK(frontier_next(f, 0, &g[2], &wait) == 0);
	CHECK(frontier_next(f, 0, &l, &wait) == SC_E_AGAIN);
	/* The good one done: nothing better under way, the rest go. */
	done(env, f, &good);
	CHECK(frontier_next(f, 0, &g[3], &wait) == 0);
	CHECK(frontier_next(f, 0, &l, &wait) == SC_E_AGAIN);
	/* A good URL waiting for its host's delay holds guesses back too. */
	add_prio(env, f, "http://g.test/good2", 3, 1, 0);
	add_prio(env, f, "http://x9.test/guess", 1, 3, 0);
	frontier_hold(f, good.host_id, 1000);
	done(env, f, &g[1]);
	done(env, f, &g[2]);
	done(env, f, &g[3]);
	CHECK(frontier_next(f, 0, &l, &wait) == 0); /* 1 of 2 allowed */
	CHECK_STR(l.url, "http://x9.test/guess");
	CHECK(frontier_next(f, 500, &g[0], &wait) == SC_E_AGAIN);
	CHECK(wait == 500);
	CHECK(frontier_next(f, 1000, &g[0], &wait) == 0);
	CHECK_STR(g[0].url, "http://g.test/good2");
	/* Without defer_class nothing waits. */
	no_defer(env, f, &o, 1000);
}

/* While the focus policy is learning (frontier_set_learning()), guesses
 * go two at a time even when nothing better is under way; once it is
 * not, the rest go at once. */
static void test_learning(void)
{
	MDB_env *env = env_open();
	struct frontier_opts o;
	struct frontier *f = defer_open(env, &o);
	struct frontier_lease l, g[5];
	uint64_t wait;
	for (int i = 0; i < 5; i++) {
		char u[64];
		snprintf(u, sizeof(u), "http://x%d.test/guess", i);
		add_prio(env, f, u, 1, 2 + (i & 1), 0);
	}
	frontier_set_learning(f, true);
	CHECK(frontier_next(f, 0, &g[0], &wait) == 0);
	CHECK(frontier_next(f, 0, &g[1], &wait) == 0);
	CHECK(frontier_next(f, 0, &l, &wait) == SC_E_AGAIN);
	CHECK(wait == UINT64_MAX);
	/* One learned from makes room for the next. */
	done(env, f, &g[0]);
	CHECK(frontier_next(f, 0, &g[2], &wait) == 0);
	CHECK(frontier_next(f, 0, &l, &wait) == SC_E_AGAIN);
	/* Learned enough: the rest go. */
	frontier_set_learning(f, false);
	CHECK(frontier_next(f, 0, &g[3], &wait) == 0);
	CHECK(frontier_next(f, 0, &g[4], &wait) == 0);
	for (int i = 0; i < 5; i++)
		CHECK(strstr(g[i].url, "/guess") != NULL);
	CHECK(frontier_next(f, 0, &l, &wait) == SC_E_AGAIN);
	/* Without defer_class, learning holds nothing back. */
	frontier_set_learning(f, true);
	no_defer(env, f, &o, 0);
}

/* frontier_requeue() queues a URL the seen set holds (a learned rule's
 * retirement); frontier_mark_seen() says whether it was there. */
static void test_requeue(void)
{
	MDB_env *env = env_open();
	struct frontier *f = fr_open(env, 4, 0);
	static const struct norm_opts strict = { .steps = 0xff };
	char a[NORM_URL_MAX + 1];
	struct norm_url au;
	const char *raw = "http://e.test/held";
	CHECK(norm_url(&strict, NULL, raw, strlen(raw), a, sizeof(a), &au) ==
	      0);
	struct frontier_url fu = { .url = a,
				   .url_len = au.len,
				   .u = &au,
				   .found = a,
				   .found_len = au.len,
				   .depth = 1 };
	MDB_txn *txn;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(frontier_add(f, txn, &fu) == 1);
	CHECK(frontier_mark_seen(f, txn, "http://e.test/k", 15, 0) == 1);
	CHECK(frontier_mark_seen(f, txn, "http://e.test/k", 15, 0) == 0);
	CHECK(frontier_mark_seen(f, txn, a, au.len, 0) == 0);
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);
	struct frontier_lease l;
	uint64_t wait;
	CHECK(frontier_next(f, 0, &l, &wait) == 0);
	CHECK_STR(l.url, "http://e.test/held");
	done(env, f, &l);
	CHECK(frontier_next(f, 0, &l, &wait) == SC_E_AGAIN);
	/* Seen, so frontier_add() does nothing; frontier_requeue() does. */
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(frontier_add(f, txn, &fu) == 0);
	CHECK(frontier_requeue(f, txn, &fu) == 0);
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);
	CHECK(frontier_next(f, 0, &l, &wait) == 0);
	CHECK_STR(l.url, "http://e.test/held");
	CHECK(l.depth == 1);
	frontier_close(f);
	mdb_env_close(env);
}

/* frontier_forget(): a URL leased and dropped unfetched leaves the seen
 * set with its queue entry, so that a later link queues it again. */
static void test_forget(void)
{
	MDB_env *env = env_open();
	struct frontier *f = fr_open(env, 4, 0);
	MDB_txn *txn;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(add(f, txn, "http://d.test/dropped", 1) == 1);
	CHECK(add(f, txn, "http://d.test/kept", 1) == 1);
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);
	struct frontier_stats st;
	frontier_stats(f, &st);
	CHECK(st.seen == 2);
	struct frontier_lease l;
	uint64_t wait;
	CHECK(frontier_next(f, 0, &l, &wait) == 0);
	CHECK_STR(l.url, "http://d.test/dropped");
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(frontier_done(f, txn, &l) == 0);
	CHECK(frontier_forget(f, txn, l.url, l.url_len) == 1);
	CHECK(frontier_forget(f, txn, l.url, l.url_len) == 0);
	CHECK(frontier_forget(f, txn, "http://d.test/never", 19) == 0);
	CHECK(frontier_seen(f, txn, l.url, l.url_len) == 0);
	CHECK(frontier_seen(f, txn, "http://d.test/kept", 18) == 1);
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);
	frontier_stats(f, &st);
	CHECK(st.seen == 1);
	/* A later link queues it again; the other URL stays seen. */
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(add(f, txn, "http://d.test/dropped", 2) == 1);
	CHECK(add(f, txn, "http://d.test/kept", 2) == 0);
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);
	CHECK(frontier_next(f, 0, &l, &wait) == 0);
	CHECK_STR(l.url, "http://d.test/kept");
	done(env, f, &l);
	CHECK(frontier_next(f, 0, &l, &wait) == 0);
	CHECK_STR(l.url, "http://d.test/dropped");
	CHECK(l.depth == 2);
	frontier_close(f);
	mdb_env_close(env);
}

/* Revisits: queued again without the seen set, with their validators, in
 * breadth-first order among new URLs; they survive a restart. */
static void test_revisit(void)
{
	MDB_env *env = env_open();
	struct frontier *f = fr_open(env, 4, 0);
	static const struct norm_opts strict = { .steps = 0xff };
	char a[NORM_URL_MAX + 1];
	struct norm_url au;
	const char *raw = "http://r.test/page";
	CHECK(norm_url(&strict, NULL, raw, strlen(raw), a, sizeof(a), &au) ==
	      0);
	char etag[FRONTIER_ETAG_MAX + 2];
	memset(etag, 'e', sizeof(etag));
	struct frontier_url fu = {
		.url = a,
		.url_len = au.len,
		.u = &au,
		.found = raw,
		.found_len = strlen(raw),
		.depth = 3,
		.revisit = true,
		.etag = "\"v1\"",
		.etag_len = 4,
		.last_modified = "Wed, 21 Oct 2015 07:28:00 GMT",
		.last_modified_len = 29
	};
	MDB_txn *txn;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	/* Only a revisit may be queued so. */
	struct frontier_url plain = fu;
	plain.revisit = false;
	CHECK(frontier_revisit(f, txn, &plain) == SC_E_INVAL);
	CHECK(frontier_revisit(f, txn, &fu) == 0);
	CHECK(frontier_seen(f, txn, a, au.len) == 0);
	/* A new URL of lower depth goes first; one deeper after. */
	CHECK(add(f, txn, "http://r.test/new", 2) == 1);
	CHECK(add(f, txn, "http://r.test/deeper", 4) == 1);
	/* An overlong ETag is left out, the entry still queued. */
	char b[NORM_URL_MAX + 1];
	struct norm_url bu;
	CHECK(norm_url(&strict, NULL, "http://r.test/b", 15, b, sizeof(b),
		       &bu) == 0);
	struct frontier_url fb = fu;
	fb.url = b;
	fb.url_len = bu.len;
	fb.u = &bu;
	fb.found = b;
	fb.found_len = bu.len;
	fb.etag = etag;
	fb.etag_len = sizeof(etag);
	fb.last_modified = NULL;
	fb.last_modified_len = 0;
	CHECK(frontier_revisit(f, txn, &fb) == 0);
	/* A new URL from a sitemap: its lastmod and changefreq ride along;
	 * a sitemap entry says so. */
	char c[NORM_URL_MAX + 1];
	struct norm_url cu;
	CHECK(norm_url(&strict, NULL, "http://r.test/sm.xml", 20, c, sizeof(c),
		       &cu) == 0);
	struct frontier_url fc = {
		.url = c,
		.url_len = cu.len,
		.u = &cu,
		.found = c,
		.found_len = cu.len,
		.depth = 5,
		.sitemap = true,
		.changefreq = 7,
		.last_modified = "Tue, 03 Mar 2015 10:00:00 GMT",
		.last_modified_len = 29
	};
	CHECK(frontier_add(f, txn, &fc) == 1);
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);
	frontier_close(f);
	mdb_env_close(env);

	/* After a restart. */
	env = env_open();
	f = fr_open(env, 8, 0);
	struct frontier_lease l;
	uint64_t wait;
	CHECK(frontier_next(f, 0, &l, &wait) == 0);
	CHECK_STR(l.url, "http://r.test/new");
	CHECK(!l.revisit && l.etag[0] == '\0');
	CHECK(frontier_next(f, 0, &l, &wait) == 0);
	CHECK_STR(l.url, "http://r.test/page");
	CHECK_STR(l.found, raw);
	CHECK(l.revisit && l.depth == 3);
	CHECK_STR(l.etag, "\"v1\"");
	CHECK_STR(l.last_modified, "Wed, 21 Oct 2015 07:28:00 GMT");
	CHECK(frontier_next(f, 0, &l, &wait) == 0);
	CHECK_STR(l.url, "http://r.test/b");
	CHECK(l.revisit && l.etag[0] == '\0' && l.last_modified[0] == '\0');
	CHECK(frontier_next(f, 0, &l, &wait) == 0);
	CHECK_STR(l.url, "http://r.test/deeper");
	CHECK(!l.revisit && !l.sitemap && l.changefreq == 0);
	CHECK(frontier_next(f, 0, &l, &wait) == 0);
	CHECK_STR(l.url, "http://r.test/sm.xml");
	CHECK(!l.revisit && l.sitemap && l.changefreq == 7 && l.depth == 5);
	CHECK_STR(l.last_modified, "Tue, 03 Mar 2015 10:00:00 GMT");
	CHECK(l.etag[0] == '\0');

	/* The schedule: due order, the horizon, "after", the count. */
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	struct frontier_due d[5];
	for (int i = 0; i < 5; i++) {
		d[i].due = (int64_t)(5 - i) * 1000; /* 5000, 4000, ... */
		memset(d[i].key, 'a' + i, SC_KEY_LEN);
		d[i].pass = (uint32_t)i;
		CHECK(frontier_due_put(f, txn, &d[i]) == 0);
	}
	struct frontier_due bad = d[0];
	bad.due = -1;
	CHECK(frontier_due_put(f, txn, &bad) == SC_E_INVAL);
	uint64_t count = 0;
	CHECK(frontier_due_count(f, txn, &count) == 0 && count == 5);
	struct frontier_due out[8];
	size_t n = 0;
	CHECK(frontier_due_next(f, txn, NULL, 3000, out, 8, &n) == 0);
	CHECK(n == 3 && out[0].due == 1000 && out[0].key[0] == 'e' &&
	      out[0].pass == 4 && out[2].due == 3000);
	CHECK(frontier_due_next(f, txn, NULL, INT64_MAX, out, 2, &n) == 1);
	CHECK(n == 2 && out[1].due == 2000);
	CHECK(frontier_due_next(f, txn, &out[1], INT64_MAX, out, 8, &n) == 0);
	CHECK(n == 3 && out[0].due == 3000 && out[2].due == 5000);
	/* "after" an entry deleted since: the next one all the same. */
	struct frontier_due gone = d[3]; /* due 2000 */
	CHECK(frontier_due_del(f, txn, &gone) == 0);
	CHECK(frontier_due_del(f, txn, &gone) == SC_E_NOTFOUND);
	CHECK(frontier_due_next(f, txn, &gone, INT64_MAX, out, 8, &n) == 0);
	CHECK(n == 3 && out[0].due == 3000);
	CHECK(frontier_due_count(f, txn, &count) == 0 && count == 4);

	/* The pass record. */
	uint32_t pass = 9;
	bool running = true;
	CHECK(frontier_pass_get(f, txn, &pass, &running) == 0);
	CHECK(pass == 0 && !running);
	CHECK(frontier_pass_put(f, txn, 7, true) == 0);
	CHECK(mdb_txn_commit(txn) == 0);
	CHECK(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0);
	CHECK(frontier_pass_get(f, txn, &pass, &running) == 0);
	CHECK(pass == 7 && running);
	CHECK(frontier_due_count(f, txn, &count) == 0 && count == 4);
	mdb_txn_abort(txn);
	frontier_close(f);
	mdb_env_close(env);
}

/* The seen set: a URL is queued once, in any later transaction too, and
 * an aborted transaction leaves nothing. */
static void test_seen_and_abort(void)
{
	MDB_env *env = env_open();
	struct frontier *f = fr_open(env, 2, 0);
	MDB_txn *txn;

	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(add(f, txn, "http://e.test/p", 0) == 1);
	CHECK(add(f, txn, "HTTP://E.TEST:80/p", 0) == 0); /* same, normalized */
	CHECK(frontier_seen(f, txn, "http://e.test/p", 15) == 1);
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);

	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(add(f, txn, "http://e.test/p", 1) == 0);
	CHECK(add(f, txn, "http://e.test/q", 1) == 1);
	mdb_txn_abort(txn);
	frontier_discarded(f);

	CHECK(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0);
	CHECK(frontier_seen(f, txn, "http://e.test/q", 15) == 0);
	mdb_txn_abort(txn);

	struct frontier_lease l;
	uint64_t wait;
	CHECK(frontier_next(f, 0, &l, &wait) == 0);
	CHECK_STR(l.url, "http://e.test/p");
	CHECK_STR(l.found, "http://e.test/p");
	CHECK(l.redirects == 0);
	CHECK(frontier_next(f, 0, &l, &wait) == SC_E_AGAIN);

	struct frontier_stats st;
	frontier_stats(f, &st);
	CHECK(st.seen == 1 && st.queued == 1);
	frontier_close(f);
	mdb_env_close(env);
}

/* A restart (the in-memory state gone, as after kill -9) offers again
 * what was leased but not committed as done, and never what was. */
static void test_restart(void)
{
	MDB_env *env = env_open();
	struct frontier *f = fr_open(env, 8, 0);
	const char *urls[20];
	int depths[20];
	char buf[20][32];
	for (int i = 0; i < 20; i++) {
		snprintf(buf[i], sizeof(buf[i]), "http://r.test/%02d", i);
		urls[i] = buf[i];
		depths[i] = i / 5;
	}
	add_all(env, f, urls, depths, 20);

	struct frontier_lease l[6];
	uint64_t wait;
	for (int i = 0; i < 6; i++)
		CHECK(frontier_next(f, 0, &l[i], &wait) == 0);
	/* 0..2 done and committed; 3 done in a transaction that never
	 * commits (the crash); 4 and 5 in flight. */
	for (int i = 0; i < 3; i++)
		done(env, f, &l[i]);
	MDB_txn *txn;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(frontier_done(f, txn, &l[3]) == 0);
	mdb_txn_abort(txn);
	frontier_close(f);
	mdb_env_close(env);

	env = env_open();
	f = fr_open(env, 8, 0);
	char got[20] = { 0 };
	int n = 0;
	struct frontier_lease x;
	while (frontier_next(f, 0, &x, &wait) == 0) {
		int i = atoi(x.url + strlen("http://r.test/"));
		CHECK(i >= 3);  /* never a committed one */
		CHECK(!got[i]); /* never twice */
		got[i] = 1;
		n++;
		done(env, f, &x);
	}
	CHECK(n == 17);
	struct frontier_stats st;
	frontier_stats(f, &st);
	CHECK(st.queued == 0 && st.seen == 20);
	frontier_close(f);
	mdb_env_close(env);
}

/* Categories and off-topic hops: a batch says which URLs another category
 * queued first, the lease carries both fields, and a queue entry of
 * format 1 (without the off-topic byte) still reads. */
static void test_categories(void)
{
	MDB_env *env = env_open();
	struct frontier *f = fr_open(env, 8, 0);
	static const struct norm_opts strict = { .steps = 0xff };
	const char *urls[] = { "http://c.test/a", "http://c.test/b",
			       "http://c.test/a", "http://c.test/c" };
	char out[4][NORM_URL_MAX + 1];
	struct norm_url u[4];
	struct frontier_url fu[4];
	for (int i = 0; i < 4; i++) {
		CHECK(norm_url(&strict, NULL, urls[i], strlen(urls[i]), out[i],
			       sizeof(out[i]), &u[i]) == 0);
		fu[i] = (struct frontier_url){ .url = out[i],
					       .url_len = u[i].len,
					       .u = &u[i],
					       .found = out[i],
					       .found_len = u[i].len,
					       .depth = 1,
					       .category = (uint16_t)(i % 2),
					       .offtopic = (uint8_t)(i + 1) };
	}
	MDB_txn *txn;
	int8_t added[4];
	uint16_t other[4];
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(frontier_add_batch_cat(f, txn, fu, 2, added, other) == 2);
	CHECK(other[0] == FRONTIER_NO_CATEGORY &&
	      other[1] == FRONTIER_NO_CATEGORY);
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);
	/* a again from category 0 (the same), b from 0 (was 1), a from 1
	 * inside the batch after a from 0. */
	fu[1].category = 0;
	fu[2].category = 1;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(frontier_add_batch_cat(f, txn, fu, 4, added, other) == 1);
	CHECK(added[0] == 0 && added[1] == 0 && added[2] == 0 && added[3] == 1);
	CHECK(other[0] == FRONTIER_NO_CATEGORY && other[1] == 1 &&
	      other[2] == 0 && other[3] == FRONTIER_NO_CATEGORY);
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);

	/* A format-1 entry, written by hand under a queue key after the
	 * others of the host: depth 1, category 5, no off-topic byte. */
	MDB_dbi q;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(mdb_dbi_open(txn, "frontier.queue", 0, &q) == 0);
	MDB_cursor *cur;
	MDB_val k, v;
	unsigned char key[FRONTIER_QKEY_LEN], val[10 + 15];
	CHECK(mdb_cursor_open(txn, q, &cur) == 0);
	CHECK(mdb_cursor_get(cur, &k, &v, MDB_LAST) == 0);
	memcpy(key, k.mv_data, sizeof(key));
	mdb_cursor_close(cur);
	key[FRONTIER_QKEY_LEN - 1]++;
	memcpy(val, "\x01\x00\x01\x00\x05\x00\x0f\x00\x00\x00", 10);
	memcpy(val + 10, "http://c.test/d", 15);
	k = (MDB_val){ sizeof(key), key };
	v = (MDB_val){ sizeof(val), val };
	CHECK(mdb_put(txn, q, &k, &v, 0) == 0);
	CHECK(mdb_txn_commit(txn) == 0);

	struct frontier_lease l;
	uint64_t wait;
	int seen = 0;
	while (frontier_next(f, 0, &l, &wait) == 0) {
		if (strcmp(l.url, "http://c.test/a") == 0)
			CHECK(l.category == 0 && l.offtopic == 1);
		else if (strcmp(l.url, "http://c.test/b") == 0)
			CHECK(l.category == 1 && l.offtopic == 2);
		else if (strcmp(l.url, "http://c.test/c") == 0)
			CHECK(l.category == 1 && l.offtopic == 4);
		else if (strcmp(l.url, "http://c.test/d") == 0)
			CHECK(l.category == 5 && l.offtopic == 0 &&
			      l.depth == 1 && l.found_len == 15);
		else
			CHECK(!"an unexpected URL");
		seen++;
	}
	CHECK(seen == 4);
	frontier_close(f);
	mdb_env_close(env);
}

/* A batch large enough to be sorted by radix (frontier.c's probe_sort()),
 * each URL in it twice, the second time from another category and in
 * the reverse order: the first of each is the one queued, the second is
 * told which category queued it, and every URL is queued once. */
static void test_batch_repeats(void)
{
	enum { N = 150 };
	MDB_env *env = env_open();
	struct frontier *f = fr_open(env, 8, 0);
	static const struct norm_opts strict = { .steps = 0xff };
	static char out[2 * N][NORM_URL_MAX + 1];
	static struct norm_url u[2 * N];
	static struct frontier_url fu[2 * N];
	for (int i = 0; i < 2 * N; i++) {
		char in[64];
		snprintf(in, sizeof(in), "http://r%d.test/p%d",
			 (i < N ? i : 2 * N - 1 - i) % 5,
			 i < N ? i : 2 * N - 1 - i);
		CHECK(norm_url(&strict, NULL, in, strlen(in), out[i],
			       sizeof(out[i]), &u[i]) == 0);
		fu[i] = (struct frontier_url){
			.url = out[i],
			.url_len = u[i].len,
			.u = &u[i],
			.found = out[i],
			.found_len = u[i].len,
			.depth = 1,
			.category = (uint16_t)(i < N ? 3 : 4)
		};
	}
	static int8_t added[2 * N];
	static uint16_t other[2 * N];
	MDB_txn *txn;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(frontier_add_batch_cat(f, txn, fu, 2 * N, added, other) == N);
	int first = 0, second = 0;
	for (int i = 0; i < 2 * N; i++) {
		if (i < N)
			first += added[i] == 1 &&
				 other[i] == FRONTIER_NO_CATEGORY;
		else
			second += added[i] == 0 && other[i] == 3;
	}
	CHECK(first == N && second == N);
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);
	struct frontier_lease l;
	uint64_t wait;
	struct frontier_stats st;
	frontier_stats(f, &st);
	CHECK(st.queued == N);
	/* Up to 8 leases a host of the 5: each of category 3. */
	int n = 0, cat3 = 0;
	while (frontier_next(f, 0, &l, &wait) == 0) {
		n++;
		cat3 += l.category == 3;
	}
	CHECK(n == 40 && cat3 == n);
	frontier_close(f);
	mdb_env_close(env);
}

/* Draining a host: its URLs come one after another, without its delay or
 * a hold, while another host keeps its delay; off again, the delay
 * counts from then. */
static void test_drain(void)
{
	MDB_env *env = env_open();
	struct frontier *f = fr_open(env, 1, 1000);
	static const char *const urls[] = {
		"http://d.test/0", "http://d.test/1", "http://d.test/2",
		"http://d.test/3", "http://e.test/0", "http://e.test/1",
	};
	static const int depths[] = { 0, 0, 0, 0, 0, 0 };
	add_all(env, f, urls, depths, 6);
	struct frontier_lease l;
	uint64_t wait;
	CHECK(frontier_next(f, 0, &l, &wait) == 0);
	CHECK_STR(l.url, "http://d.test/0");
	uint32_t d = l.host_id;
	done(env, f, &l);
	CHECK(frontier_next(f, 0, &l, &wait) == 0);
	CHECK_STR(l.url, "http://e.test/0");
	done(env, f, &l);
	/* Both wait their delay, d held longer still. */
	frontier_hold(f, d, 60000);
	CHECK(frontier_next(f, 10, &l, &wait) == SC_E_AGAIN);
	CHECK(wait == 990);

	frontier_drain(f, d, true, 10);
	for (int i = 1; i <= 2; i++) {
		CHECK(frontier_next(f, 10, &l, &wait) == 0);
		CHECK(l.host_id == d && l.url[strlen(l.url) - 1] == '0' + i);
		/* The connection limit still counts: the lease is
		 * released at once, as the crawl does. */
		done(env, f, &l);
	}
	/* Off: the host waits its delay from now. */
	frontier_drain(f, d, false, 10);
	CHECK(frontier_next(f, 10, &l, &wait) == SC_E_AGAIN);
	CHECK(wait == 990);
	CHECK(frontier_next(f, 1000, &l, &wait) == 0);
	CHECK_STR(l.url, "http://e.test/1");
	done(env, f, &l);
	CHECK(frontier_next(f, 1000, &l, &wait) == SC_E_AGAIN);
	CHECK(frontier_next(f, 1010, &l, &wait) == 0);
	CHECK_STR(l.url, "http://d.test/3");
	done(env, f, &l);
	frontier_drain(f, 9999, true, 0); /* an unknown host: nothing */
	frontier_close(f);
	mdb_env_close(env);
}

/* The per-host count of fetched records: counted inside the writer's
 * transaction, visible after publication, gone with an abort, and kept
 * across a reopen. */
static void test_fetched_count(void)
{
	MDB_env *env = env_open();
	struct frontier *f = fr_open(env, 4, 0);
	static const char *const urls[] = { "http://f.test/0",
					    "http://f.test/1",
					    "http://g.test/0" };
	static const int depths[] = { 0, 0, 0 };
	add_all(env, f, urls, depths, 3);
	struct frontier_lease l;
	uint64_t wait;
	CHECK(frontier_next(f, 0, &l, &wait) == 0);
	uint32_t h = l.host_id;
	CHECK(frontier_host_fetched(f, h) == 0);
	MDB_txn *txn;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(frontier_count_fetch(f, txn, h) == 0);
	CHECK(frontier_count_fetch(f, txn, h) == 0);
	CHECK(frontier_host_fetched(f, h) == 0); /* not yet published */
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);
	CHECK(frontier_host_fetched(f, h) == 2);
	/* An aborted transaction counts nothing. */
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(frontier_count_fetch(f, txn, h) == 0);
	mdb_txn_abort(txn);
	frontier_discarded(f);
	CHECK(frontier_host_fetched(f, h) == 2);
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(frontier_count_fetch(f, txn, h) == 0);
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);
	CHECK(frontier_host_fetched(f, h) == 3);
	frontier_close(f);
	mdb_env_close(env);

	env = env_open();
	f = fr_open(env, 4, 0);
	CHECK(frontier_host_fetched(f, h) == 3);
	CHECK(frontier_host_fetched(f, h + 1) == 0);
	CHECK(frontier_host_fetched(f, 12345) == 0);
	frontier_close(f);
	mdb_env_close(env);
}

/* A leased URL is the one that was queued, whatever the steps of the run
 * that leases it: its components come from the stored key (never from
 * normalizing it again), and its fetch URL keeps the scheme and port that
 * fold_https took out of the key.  Then the same for entries of format 2,
 * which kept neither. */
struct queued {
	const char *in;
	uint32_t steps;
	char key[NORM_URL_MAX + 1];
	char fetch[NORM_URL_MAX + 1];
};

static void test_lease_components(void)
{
	const uint32_t strict = norm_profile_steps(NORM_PROFILE_STRICT);
	const uint32_t aggressive = norm_profile_steps(NORM_PROFILE_AGGRESSIVE);
	struct queued q[] = {
		/* The case: strict keys leased by an aggressive
		 * run were requested as "/Ot" and as "/". */
		{ .in = "http://www.a.test/Other/index.html?utm_source=q",
		  .steps = strict },
		{ .in = "http://www.a.test/xyz", .steps = strict },
		/* fold_https: the key says http, the fetch https, on the
		 * port it was found with. */
		{ .in = "https://b.test:80/x", .steps = aggressive },
		{ .in = "https://c.test:8443/Y?b=2&a=1", .steps = aggressive },
		{ .in = "https://www.d.test/", .steps = aggressive },
		{ .in = "http://e.test:8080/p#f",
		  .steps = strict & ~NORM_REMOVE_FRAGMENT },
	};
	const size_t n = sizeof(q) / sizeof(*q);
	MDB_env *env = env_open();
	struct frontier *f = fr_open(env, 8, 0);
	MDB_txn *txn;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	for (size_t i = 0; i < n; i++) {
		struct norm_opts o = { .steps = q[i].steps };
		struct norm_url u;
		CHECK(norm_url(&o, NULL, q[i].in, strlen(q[i].in), q[i].key,
			       sizeof(q[i].key), &u) == 0);
		CHECK(norm_fetch_url(q[i].key, &u, q[i].fetch,
				     sizeof(q[i].fetch)) == 0);
		struct frontier_url fu = { .url = q[i].key,
					   .url_len = u.len,
					   .u = &u,
					   .found = q[i].in,
					   .found_len = strlen(q[i].in) };
		CHECK(frontier_add(f, txn, &fu) == 1);
	}
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);
	/* Read back after a reopen: what the entries hold, not memory. */
	frontier_close(f);
	mdb_env_close(env);
	env = env_open();
	f = fr_open(env, 8, 0);

	struct frontier_lease l;
	uint64_t wait;
	size_t got = 0;
	while (frontier_next(f, 0, &l, &wait) == 0) {
		size_t i = 0;
		while (i < n && strcmp(l.url, q[i].key) != 0)
			i++;
		CHECK(i < n);
		if (i == n)
			continue;
		got++;
		char fetch[NORM_URL_MAX + 1];
		CHECK(l.u.len == l.url_len);
		CHECK(norm_fetch_url(l.url, &l.u, fetch, sizeof(fetch)) == 0);
		CHECK_STR(fetch, q[i].fetch);
		/* The path and query the robots.txt rules are matched on. */
		char pq[NORM_URL_MAX + 1];
		snprintf(pq, sizeof(pq), "%.*s",
			 (int)(l.u.path_len +
			       (l.u.has_query ? 1 + l.u.query_len : 0)),
			 l.url + l.u.path_off);
		CHECK(strstr(q[i].fetch, pq) != NULL && pq[0] == '/');
	}
	CHECK(got == n);
	CHECK_STR(q[0].fetch,
		  "http://www.a.test/Other/index.html?utm_source=q");
	CHECK_STR(q[2].fetch, "https://b.test:80/x/");
	CHECK_STR(q[3].fetch, "https://c.test:8443/y/?a=1&b=2");

	/* Format 2 (no scheme or port): the entries are rewritten without
	 * them, and the scheme and port come from the key, or from the URL
	 * as found when the key says http and that one https. */
	MDB_dbi qd;
	MDB_cursor *cur;
	MDB_val k, v;
	unsigned char keys[16][FRONTIER_QKEY_LEN];
	static unsigned char vals[16][18 + 2 * NORM_URL_MAX];
	size_t vlen[16], m = 0;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(mdb_dbi_open(txn, "frontier.queue", 0, &qd) == 0);
	CHECK(mdb_cursor_open(txn, qd, &cur) == 0);
	while (m < 16 && mdb_cursor_get(cur, &k, &v, MDB_NEXT) == 0) {
		const unsigned char *p = v.mv_data;
		/* Format 5: a 20-byte head, no validators here. */
		CHECK(v.mv_size > 21 && p[0] == 5 && p[14] == 0);
		memcpy(keys[m], k.mv_data, FRONTIER_QKEY_LEN);
		memcpy(vals[m], p, 11);
		vals[m][0] = 2;
		memcpy(vals[m] + 11, p + 21, v.mv_size - 21);
		vlen[m++] = v.mv_size - 10;
	}
	mdb_cursor_close(cur);
	CHECK(m == n);
	for (size_t i = 0; i < m; i++) {
		k = (MDB_val){ FRONTIER_QKEY_LEN, keys[i] };
		v = (MDB_val){ vlen[i], vals[i] };
		CHECK(mdb_put(txn, qd, &k, &v, 0) == 0);
	}
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_close(f);
	mdb_env_close(env);
	env = env_open();
	f = fr_open(env, 8, 0);
	got = 0;
	while (frontier_next(f, 0, &l, &wait) == 0) {
		size_t i = 0;
		while (i < n && strcmp(l.url, q[i].key) != 0)
			i++;
		CHECK(i < n);
		if (i == n)
			continue;
		got++;
		char fetch[NORM_URL_MAX + 1];
		CHECK(norm_fetch_url(l.url, &l.u, fetch, sizeof(fetch)) == 0);
		CHECK_STR(fetch, q[i].fetch);
	}
	CHECK(got == n);
	frontier_close(f);
	mdb_env_close(env);
}

/* A full map is said as LMDB says it: SC_E_FULL, and store_strerror()
 * names MDB_MAP_FULL, not a bare "database error". */
static void test_map_full(void)
{
	MDB_env *env = env_open_sized((size_t)256 << 10);
	struct frontier *f = fr_open(env, 1, 0);
	MDB_txn *txn;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	int rc = 1;
	for (int i = 0; i < 100000 && rc >= 0; i++) {
		char url[64];
		snprintf(url, sizeof(url), "http://h%d.test/page/%d", i % 50,
			 i);
		rc = add(f, txn, url, 1);
	}
	CHECK(rc == SC_E_FULL);
	CHECK(strstr(store_strerror(rc), "MDB_MAP_FULL") != NULL);
	mdb_txn_abort(txn);
	frontier_discarded(f);
	frontier_close(f);
	mdb_env_close(env);
}

/* frontier_host_due(): will a host want a connection within the window?
 * Another fetch in flight, or a committed URL its delay lets go by then;
 * not when nothing is queued, when its delay runs past the window, or
 * when it is drained. */
static void test_host_due(void)
{
	MDB_env *env = env_open();
	struct frontier *f = fr_open(env, 2, 1000);
	static const char *const urls[] = { "http://a.test/", "http://a.test/1",
					    "http://b.test/" };
	static const int depths[] = { 0, 1, 0 };
	struct frontier_lease la, lb, l;
	uint64_t wait;

	add_all(env, f, urls, depths, 3);
	CHECK(frontier_next(f, 0, &la, &wait) == 0);
	CHECK_STR(la.url, "http://a.test/");
	CHECK(frontier_next(f, 0, &lb, &wait) == 0);
	CHECK_STR(lb.url, "http://b.test/");
	/* a: /1 queued, ready at 1000. */
	CHECK(frontier_host_due(f, la.host_id, 0, 5000));
	CHECK(frontier_host_due(f, la.host_id, 0, 1000));
	CHECK(!frontier_host_due(f, la.host_id, 0, 999));
	/* A Crawl-delay past the window: not due. */
	frontier_host_delay(f, la.host_id, 10000);
	frontier_sent(f, la.host_id, 0);
	CHECK(!frontier_host_due(f, la.host_id, 0, 5000));
	CHECK(frontier_host_due(f, la.host_id, 5000, 5000));
	/* b: nothing more queued, its fetch the only one. */
	CHECK(!frontier_host_due(f, lb.host_id, 0, 5000));
	/* A second fetch of a in flight: due whatever its queue says. */
	CHECK(frontier_next(f, 20000, &l, &wait) == 0);
	CHECK_STR(l.url, "http://a.test/1");
	CHECK(frontier_host_due(f, la.host_id, 20000, 0));
	done(env, f, &la);
	/* Its last fetch: nothing queued, nothing else in flight. */
	CHECK(!frontier_host_due(f, l.host_id, 20000, 5000));
	/* Drained: never due. */
	static const char *const more[] = { "http://b.test/2" };
	static const int d1[] = { 1 };
	add_all(env, f, more, d1, 1);
	CHECK(frontier_host_due(f, lb.host_id, 0, 5000));
	frontier_drain(f, lb.host_id, true, 0);
	CHECK(!frontier_host_due(f, lb.host_id, 0, 5000));
	CHECK(!frontier_host_due(f, 999, 0, 5000));
	frontier_close(f);
	mdb_env_close(env);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 99;
	}
	/* Each test starts from an empty environment. */
	void (*tests[])(void) = { test_order_and_politeness,
				  test_late_shallow_url,
				  test_priority,
				  test_defer,
				  test_learning,
				  test_requeue,
				  test_forget,
				  test_revisit,
				  test_seen_and_abort,
				  test_restart,
				  test_categories,
				  test_batch_repeats,
				  test_drain,
				  test_fetched_count,
				  test_lease_components,
				  test_map_full,
				  test_host_due };
	for (size_t i = 0; i < sizeof(tests) / sizeof(*tests); i++) {
		char path[256];
		snprintf(path, sizeof(path), "%s/data.mdb", dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/lock.mdb", dir);
		unlink(path);
		tests[i]();
	}
	rmdir(dir);
	return check_done();
}
