/* test-frontier-format.c — the seen set's formats: a new store keeps its
 * recent keys in a log merged into the sorted set in bulk (format 3), and
 * a key is seen exactly across the merges, a restart in the middle of one
 * and an aborted transaction; a store of format 2 clusters its keys by
 * host and path and keeps doing so; a store of format 1 keeps its hashed
 * keys and is read as it was; a format this version does not know is
 * refused, never misread. */
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "frontier.h"
#include "normalize.h"
#include "sc.h"

static char dir[] = "/tmp/sc-test-frontier-format-XXXXXX";

static MDB_env *env_open(void)
{
	MDB_env *env;
	if (mdb_env_create(&env) || mdb_env_set_maxdbs(env, 16) ||
	    mdb_env_set_mapsize(env, (size_t)1 << 30) ||
	    mdb_env_open(env, dir, MDB_NOTLS, 0640)) {
		fprintf(stderr, "cannot open LMDB in %s\n", dir);
		exit(99);
	}
	return env;
}

static void env_remove(MDB_env *env)
{
	mdb_env_close(env);
	char path[256];
	snprintf(path, sizeof(path), "%s/data.mdb", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/lock.mdb", dir);
	unlink(path);
}

/* frontier_open() in its own transaction, with a log of at most recent
 * keys before a merge (0: the default): its code, the frontier in *ret
 * when 0. */
static int fr_open_recent(MDB_env *env, uint32_t recent, struct frontier **ret)
{
	struct frontier_opts o = { .per_host_connections = 4,
				   .seen_recent = recent };
	MDB_txn *txn;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	int rc = frontier_open(env, txn, &o, ret);
	if (rc == 0)
		CHECK(mdb_txn_commit(txn) == 0);
	else
		mdb_txn_abort(txn);
	return rc;
}

static int fr_open(MDB_env *env, struct frontier **ret)
{
	return fr_open_recent(env, 0, ret);
}

/* Queue url (strict-normalized) in its own transaction: frontier_add()'s
 * code. */
static int add(MDB_env *env, struct frontier *f, const char *url)
{
	static const struct norm_opts strict = { .steps = 0xff };
	char out[NORM_URL_MAX + 1];
	struct norm_url u;
	if (norm_url(&strict, NULL, url, strlen(url), out, sizeof(out), &u))
		return -1000;
	struct frontier_url fu = { .url = out,
				   .url_len = u.len,
				   .u = &u,
				   .found = out,
				   .found_len = u.len,
				   .depth = 1 };
	MDB_txn *txn;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	int rc = frontier_add(f, txn, &fu);
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);
	return rc;
}

static int seen(MDB_env *env, struct frontier *f, const char *url)
{
	MDB_txn *txn;
	CHECK(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0);
	int rc = frontier_seen(f, txn, url, strlen(url));
	mdb_txn_abort(txn);
	return rc;
}

/* The version byte of "frontier.meta", or -1 without one. */
static int meta_version(MDB_env *env)
{
	MDB_txn *txn;
	MDB_dbi dbi;
	CHECK(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0);
	int v = -1;
	MDB_val k = { 4, "meta" }, val;
	if (mdb_dbi_open(txn, "frontier.meta", 0, &dbi) == 0 &&
	    mdb_get(txn, dbi, &k, &val) == 0 && val.mv_size > 0)
		v = ((const unsigned char *)val.mv_data)[0];
	mdb_txn_abort(txn);
	return v;
}

/* Every key of the seen set, in LMDB's order, into keys[] (at most max,
 * each up to 32 bytes) and their lengths into lens[]; returns how many. */
static size_t seen_keys(MDB_env *env, unsigned char (*keys)[32], size_t *lens,
			size_t max)
{
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_cursor *c;
	size_t n = 0;
	CHECK(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0);
	CHECK(mdb_dbi_open(txn, "frontier.seen", 0, &dbi) == 0);
	CHECK(mdb_cursor_open(txn, dbi, &c) == 0);
	MDB_val k, v;
	for (int rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0 && n < max;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
		lens[n] = k.mv_size;
		memcpy(keys[n], k.mv_data, k.mv_size < 32 ? k.mv_size : 32);
		n++;
	}
	mdb_cursor_close(c);
	mdb_txn_abort(txn);
	return n;
}

/* Write a store as a sigcrawl before format 2 did: seen keys from
 * sc_url_key(), and meta version 1 (with_meta) or no meta at all. */
static void write_old_store(MDB_env *env, const char *url, bool with_meta,
			    int version)
{
	MDB_txn *txn;
	MDB_dbi seen, meta;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(mdb_dbi_open(txn, "frontier.seen", MDB_CREATE, &seen) == 0);
	CHECK(mdb_dbi_open(txn, "frontier.meta", MDB_CREATE, &meta) == 0);
	unsigned char key[SC_KEY_LEN], cat[2] = { 0, 3 };
	sc_url_key(url, strlen(url), key);
	MDB_val k = { sizeof(key), key }, v = { sizeof(cat), cat };
	CHECK(mdb_put(txn, seen, &k, &v, 0) == 0);
	if (with_meta) {
		/* version, then the sequence block's end (big-endian). */
		unsigned char m[9] = {
			(unsigned char)version, 0, 0, 0, 0, 0, 1, 0, 1
		};
		MDB_val mk = { 4, "meta" }, mv = { sizeof(m), m };
		CHECK(mdb_put(txn, meta, &mk, &mv, 0) == 0);
	}
	CHECK(mdb_txn_commit(txn) == 0);
}

/* A store with meta version (and nothing else yet). */
static void write_meta(MDB_env *env, int version)
{
	MDB_txn *txn;
	MDB_dbi meta;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(mdb_dbi_open(txn, "frontier.meta", MDB_CREATE, &meta) == 0);
	unsigned char m[9] = { (unsigned char)version, 0, 0, 0, 0, 0, 1, 0, 1 };
	MDB_val mk = { 4, "meta" }, mv = { sizeof(m), m };
	CHECK(mdb_put(txn, meta, &mk, &mv, 0) == 0);
	CHECK(mdb_txn_commit(txn) == 0);
}

/* The entries of database name (0 if it does not exist). */
static size_t db_entries(MDB_env *env, const char *name)
{
	MDB_txn *txn;
	MDB_dbi dbi;
	MDB_stat st = { 0 };
	CHECK(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0);
	if (mdb_dbi_open(txn, name, 0, &dbi) == 0)
		CHECK(mdb_stat(txn, dbi, &st) == 0);
	mdb_txn_abort(txn);
	return st.ms_entries;
}

/* Both logs hold records: a merge is under way. */
static bool merging(MDB_env *env)
{
	return db_entries(env, "frontier.seen.log0") > 0 &&
	       db_entries(env, "frontier.seen.log1") > 0;
}

/* The i-th URL of the tests below. */
static void url_of(unsigned i, char *buf, size_t size)
{
	snprintf(buf, size, "http://h%u.test/p%u", i % 7, i);
}

/* Queue URLs first .. first + n - 1 in one frontier_add_batch() and
 * commit (or abort: a crash before the commit); returns how many were
 * new. */
static int add_range(MDB_env *env, struct frontier *f, unsigned first,
		     unsigned n, bool commit)
{
	static const struct norm_opts strict = { .steps = 0xff };
	static char out[256][NORM_URL_MAX + 1];
	static struct norm_url u[256];
	struct frontier_url fu[256];
	CHECK(n <= 256);
	for (unsigned i = 0; i < n; i++) {
		char in[64];
		url_of(first + i, in, sizeof(in));
		CHECK(norm_url(&strict, NULL, in, strlen(in), out[i],
			       sizeof(out[i]), &u[i]) == 0);
		fu[i] = (struct frontier_url){ .url = out[i],
					       .url_len = u[i].len,
					       .u = &u[i],
					       .found = out[i],
					       .found_len = u[i].len,
					       .depth = 1,
					       .category = 7 };
	}
	MDB_txn *txn;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	int rc = frontier_add_batch(f, txn, fu, n, NULL);
	CHECK(rc >= 0);
	if (commit) {
		CHECK(mdb_txn_commit(txn) == 0);
		frontier_published(f);
	} else {
		mdb_txn_abort(txn);
		frontier_discarded(f);
	}
	return rc;
}

/* URLs first .. first + n - 1 are all seen (want 1) or none (want 0). */
static void check_range(MDB_env *env, struct frontier *f, unsigned first,
			unsigned n, int want)
{
	int bad = 0;
	for (unsigned i = first; i < first + n; i++) {
		char in[64];
		url_of(i, in, sizeof(in));
		bad += seen(env, f, in) != want;
	}
	CHECK(bad == 0);
}

static struct frontier_stats stats_of(struct frontier *f)
{
	struct frontier_stats st;
	frontier_stats(f, &st);
	return st;
}

static uint64_t stats_seen(struct frontier *f)
{
	return stats_of(f).seen;
}

/* A new store: meta says format 4 from the open on; new keys go to the
 * log, 16-byte hashed keys, and are seen before and after a restart. */
static void test_new_store_logged(void)
{
	MDB_env *env = env_open();
	struct frontier *f = NULL;
	CHECK(fr_open(env, &f) == 0);
	CHECK(meta_version(env) == 4);
	CHECK(add_range(env, f, 0, 6, true) == 6);
	CHECK(add(env, f, "http://h1.test/p1") == 0);
	CHECK(db_entries(env, "frontier.seen") == 0);
	CHECK(db_entries(env, "frontier.seen.log0") +
		      db_entries(env, "frontier.seen.log1") ==
	      6);
	check_range(env, f, 0, 6, 1);
	check_range(env, f, 6, 6, 0);
	frontier_close(f);
	CHECK(fr_open(env, &f) == 0);
	CHECK(meta_version(env) == 4);
	check_range(env, f, 0, 6, 1);
	CHECK(stats_seen(f) == 6);
	CHECK(add_range(env, f, 3, 6, true) == 3);
	frontier_close(f);
	env_remove(env);
}

/* Many generations with a log of 400 keys: every key stays seen, once,
 * while its generation is active, frozen, half merged and merged, and
 * the sorted set ends up with them; with restarts (restart) in the
 * middle of merges. */
static void test_merges(bool restart)
{
	MDB_env *env = env_open();
	struct frontier *f = NULL;
	CHECK(fr_open_recent(env, 400, &f) == 0);
	unsigned total = 0, mid = 0;
	for (unsigned b = 0; b < 60; b++) {
		CHECK(add_range(env, f, total, 50, true) == 50);
		/* Half of a batch seen before, half new. */
		CHECK(add_range(env, f, total + 25, 50, true) == 25);
		total += 75;
		check_range(env, f, 0, total, 1);
		check_range(env, f, total, 20, 0);
		CHECK(stats_seen(f) == total);
		if (merging(env)) {
			mid++;
			if (restart) {
				frontier_close(f);
				CHECK(fr_open_recent(env, 400, &f) == 0);
				check_range(env, f, 0, total, 1);
				CHECK(stats_seen(f) == total);
			}
		}
	}
	CHECK(mid > 5);
	/* Most keys were merged into the sorted sets, each once. */
	size_t big = db_entries(env, "frontier.seen") +
		     db_entries(env, "frontier.seen.mid");
	CHECK(big > total / 2 && big <= total);
	frontier_close(f);
	CHECK(fr_open_recent(env, 400, &f) == 0);
	check_range(env, f, 0, total, 1);
	CHECK(stats_seen(f) == total);
	CHECK(add_range(env, f, 0, 200, true) == 0);
	frontier_close(f);
	env_remove(env);
}

static void test_merges_plain(void)
{
	test_merges(false);
}

static uint64_t searches(struct frontier *f)
{
	return stats_of(f).searches;
}

/* The sorted set's filter (seen-log.c): with a log of 400 keys, 12,000
 * URLs queued (the filter built again as the set grows past what it was
 * sized for), then 2,000 new ones cost fewer than 100 searches of the
 * sorted set (without the filter, one each), while every URL queued
 * before is still seen, before and after a restart (which builds the
 * filter from the set). */
static void test_filter(void)
{
	MDB_env *env = env_open();
	struct frontier *f = NULL;
	CHECK(fr_open_recent(env, 400, &f) == 0);
	unsigned total = 0;
	while (total < 12000) {
		CHECK(add_range(env, f, total, 200, true) == 200);
		total += 200;
	}
	size_t big = db_entries(env, "frontier.seen") +
		     db_entries(env, "frontier.seen.mid");
	CHECK(big > 10000);
	for (int pass = 0; pass < 2; pass++) {
		uint64_t s0 = searches(f);
		for (unsigned i = 0; i < 2000; i += 200)
			CHECK(add_range(env, f, total + i, 200, true) == 200);
		total += 2000;
		uint64_t spent = searches(f) - s0;
		printf("# filter: %llu searches for 2000 new URLs\n",
		       (unsigned long long)spent);
		CHECK(spent < 100);
		/* Every URL queued so far is seen: none is new again. */
		s0 = searches(f);
		for (unsigned i = 0; i < total; i += 200)
			CHECK(add_range(env, f, i, 200, true) == 0);
		CHECK(searches(f) - s0 >= big / 2);
		frontier_close(f);
		CHECK(fr_open_recent(env, 400, &f) == 0);
	}
	CHECK(stats_seen(f) == total);
	frontier_close(f);
	env_remove(env);
}

/* URLs 0, 1, ... committed step at a time until a merge is under way
 * and at least min were added (5000 at most); returns how many. */
static unsigned fill_until_merging(MDB_env *env, struct frontier *f,
				   unsigned step, unsigned min)
{
	unsigned total = 0;
	while (!merging(env) || total < min) {
		CHECK(add_range(env, f, total, step, true) == (int)step);
		total += step;
		if (total >= 5000) {
			CHECK(total < 5000);
			break;
		}
	}
	return total;
}

static void test_merges_restart(void)
{
	test_merges(true);
}

/* 200 more URLs from *total added in a transaction that is aborted:
 * nothing of it is left, in memory or on disk (after a restart too, when
 * restart), and the same URLs committed are new; *total counts them. */
static void abort_and_redo(MDB_env *env, struct frontier **f, unsigned *total,
			   bool restart)
{
	size_t big = db_entries(env, "frontier.seen");
	CHECK(add_range(env, *f, *total, 200, false) == 200);
	CHECK(db_entries(env, "frontier.seen") == big);
	if (restart) {
		frontier_close(*f);
		CHECK(fr_open_recent(env, 400, f) == 0);
	}
	check_range(env, *f, 0, *total, 1);
	check_range(env, *f, *total, 200, 0);
	CHECK(stats_seen(*f) == *total);
	CHECK(add_range(env, *f, *total, 200, true) == 200);
	*total += 200;
	check_range(env, *f, 0, *total, 1);
}

/* A transaction that appended keys and merged frozen ones is aborted (a
 * crash before its commit): what it did is gone, in memory as on disk,
 * and the same batch queued again is new; a restart after it as well. */
static void test_merge_aborted(void)
{
	MDB_env *env = env_open();
	struct frontier *f = NULL;
	CHECK(fr_open_recent(env, 400, &f) == 0);
	unsigned total = fill_until_merging(env, f, 100, 600);
	abort_and_redo(env, &f, &total, false);
	/* Aborted again, then a restart (the kill -9 after it). */
	abort_and_redo(env, &f, &total, true);
	frontier_close(f);
	env_remove(env);
}

/* frontier_forget() of a key in the active log, in the frozen one and in
 * the sorted set: gone, and no later merge or restart brings it back. */
static void test_forget_across_merge(void)
{
	MDB_env *env = env_open();
	struct frontier *f = NULL;
	CHECK(fr_open_recent(env, 400, &f) == 0);
	unsigned total = fill_until_merging(env, f, 60, 0);
	/* URL 0 is in the sorted set or the frozen log by now; the last
	 * one in the active log. */
	unsigned gone[3] = { 0, total / 2, total - 1 };
	MDB_txn *txn;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	for (int i = 0; i < 3; i++) {
		char in[64];
		url_of(gone[i], in, sizeof(in));
		CHECK(frontier_forget(f, txn, in, strlen(in)) == 1);
		CHECK(frontier_forget(f, txn, in, strlen(in)) == 0);
	}
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);
	for (int i = 0; i < 3; i++) {
		char in[64];
		url_of(gone[i], in, sizeof(in));
		CHECK(seen(env, f, in) == 0);
	}
	/* Merges go on, and a restart. */
	for (unsigned b = 0; b < 20; b++) {
		CHECK(add_range(env, f, total, 60, true) == 60);
		total += 60;
	}
	frontier_close(f);
	CHECK(fr_open_recent(env, 400, &f) == 0);
	for (int i = 0; i < 3; i++) {
		char in[64];
		url_of(gone[i], in, sizeof(in));
		CHECK(seen(env, f, in) == 0);
		CHECK(add_range(env, f, gone[i], 1, true) == 1);
		CHECK(seen(env, f, in) == 1);
	}
	check_range(env, f, 0, total, 1);
	frontier_close(f);
	env_remove(env);
}

/* A store of format 2: its keys are 24 bytes, each host's in one run
 * and, within a host, in the order of their paths' first bytes; a
 * reopened store reads them, and stays format 2. */
static void test_v2_store_clusters(void)
{
	MDB_env *env = env_open();
	write_meta(env, 2);
	struct frontier *f = NULL;
	CHECK(fr_open(env, &f) == 0);
	CHECK(meta_version(env) == 2);
	/* Two hosts interleaved, paths out of order. */
	static const char *const urls[] = {
		"http://a.test/p30", "http://b.test/p10", "http://a.test/p10",
		"http://b.test/p30", "http://a.test/p20", "http://b.test/p20",
	};
	for (size_t i = 0; i < 6; i++)
		CHECK(add(env, f, urls[i]) == 1);
	CHECK(add(env, f, "http://a.test/p20") == 0);
	frontier_close(f);

	unsigned char keys[16][32];
	size_t lens[16];
	CHECK(seen_keys(env, keys, lens, 16) == 6);
	int runs = 1;
	for (size_t i = 0; i < 6; i++) {
		CHECK(lens[i] == 24);
		if (i > 0 && memcmp(keys[i], keys[i - 1], 4) != 0)
			runs++;
		/* The path's first bytes follow the host's hash. */
		CHECK(memcmp(keys[i] + 4, "/p", 2) == 0);
		if (i > 0 && memcmp(keys[i], keys[i - 1], 4) == 0)
			CHECK(memcmp(keys[i - 1] + 4, keys[i] + 4, 8) < 0);
	}
	CHECK(runs == 2);

	CHECK(fr_open(env, &f) == 0);
	CHECK(meta_version(env) == 2);
	for (size_t i = 0; i < 6; i++)
		CHECK(seen(env, f, urls[i]) == 1);
	CHECK(seen(env, f, "http://a.test/p40") == 0);
	CHECK(add(env, f, "http://b.test/p10") == 0);
	CHECK(db_entries(env, "frontier.seen.log0") == 0);
	CHECK(db_entries(env, "frontier.seen.log1") == 0);
	frontier_close(f);
	env_remove(env);
}

/* A store written before format 2 keeps format 1: what it saw is still
 * seen, its new keys are hashed as before, its meta stays version 1. */
static void test_old_store_read(bool with_meta)
{
	MDB_env *env = env_open();
	write_old_store(env, "http://old.test/a", with_meta, 1);
	struct frontier *f = NULL;
	CHECK(fr_open(env, &f) == 0);
	CHECK(seen(env, f, "http://old.test/a") == 1);
	CHECK(add(env, f, "http://old.test/a") == 0);
	CHECK(add(env, f, "http://old.test/b") == 1);
	CHECK(seen(env, f, "http://old.test/b") == 1);
	CHECK(meta_version(env) == 1);
	frontier_close(f);

	unsigned char keys[4][32];
	size_t lens[4];
	CHECK(seen_keys(env, keys, lens, 4) == 2);
	unsigned char want[SC_KEY_LEN];
	sc_url_key("http://old.test/b", 17, want);
	CHECK(lens[0] == SC_KEY_LEN && lens[1] == SC_KEY_LEN);
	CHECK(memcmp(keys[0], want, SC_KEY_LEN) == 0 ||
	      memcmp(keys[1], want, SC_KEY_LEN) == 0);

	/* And after a restart. */
	CHECK(fr_open(env, &f) == 0);
	CHECK(seen(env, f, "http://old.test/a") == 1);
	CHECK(seen(env, f, "http://old.test/b") == 1);
	frontier_close(f);
	env_remove(env);
}

static void test_old_store_with_meta(void)
{
	test_old_store_read(true);
}

static void test_old_store_without_meta(void)
{
	test_old_store_read(false);
}

/* URL i strict-normalized into out (NORM_URL_MAX + 1 bytes) and *u; a
 * frontier_url of it under category cat. */
static struct frontier_url url_norm(unsigned i, char *out, struct norm_url *u,
				    uint16_t cat)
{
	static const struct norm_opts strict = { .steps = 0xff };
	char in[64];
	url_of(i, in, sizeof(in));
	CHECK(norm_url(&strict, NULL, in, strlen(in), out, NORM_URL_MAX + 1,
		       u) == 0);
	return (struct frontier_url){ .url = out,
				      .url_len = u->len,
				      .u = u,
				      .found = out,
				      .found_len = u->len,
				      .depth = 1,
				      .category = cat };
}

/* Is URL i's key in database name? */
static bool key_in(MDB_env *env, const char *name, unsigned i)
{
	char out[NORM_URL_MAX + 1];
	struct norm_url u;
	(void)url_norm(i, out, &u, 0);
	unsigned char key[SC_KEY_LEN];
	sc_url_key(out, u.len, key);
	MDB_txn *txn;
	MDB_dbi dbi;
	CHECK(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0);
	MDB_val k = { sizeof(key), key }, v;
	bool in_db = mdb_dbi_open(txn, name, 0, &dbi) == 0 &&
		     mdb_get(txn, dbi, &k, &v) == 0;
	mdb_txn_abort(txn);
	return in_db;
}

/* URL i queued again under category cat in a batch of its own: the
 * category it was seen under (FRONTIER_NO_CATEGORY if new). */
static uint16_t other_of(MDB_env *env, struct frontier *f, unsigned i,
			 uint16_t cat)
{
	char out[NORM_URL_MAX + 1];
	struct norm_url u;
	struct frontier_url fu = url_norm(i, out, &u, cat);
	MDB_txn *txn;
	int8_t added = 0;
	uint16_t other = 0;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(frontier_add_batch_cat(f, txn, &fu, 1, &added, &other) >= 0);
	CHECK(mdb_txn_commit(txn) == 0);
	frontier_published(f);
	return added ? FRONTIER_NO_CATEGORY : other;
}

/* The middle sorted set (format 4, seen-log.c): with a log of 400 keys,
 * generations go straight into "frontier.seen" until it holds 24 of them
 * (MIDDLE_FROM), then into "frontier.seen.mid" until that is full, then
 * one goes into "frontier.seen" and takes the middle set's keys with it.
 * Over 32,000 URLs the middle set fills and empties at least twice, the
 * big set grows only by those drains once the middle set is in use, every
 * URL queued is seen, each key is in
 * one set only (the count after a restart), a key of the middle set keeps
 * its category, takes a new one (frontier_requeue()) and is forgotten;
 * with restart, the frontier is reopened in the middle of a drain. */
static void test_middle(bool restart)
{
	MDB_env *env = env_open();
	struct frontier *f = NULL;
	CHECK(fr_open_recent(env, 400, &f) == 0);
	unsigned total = 0, drains = 0, fills = 0, cut = 0;
	size_t mid_was = 0, big_was = 0, big_steps = 0, big_first = 0;
	bool tried_mid = false;
	while (total < 32000) {
		CHECK(add_range(env, f, total, 200, true) == 200);
		total += 200;
		size_t mid = db_entries(env, "frontier.seen.mid");
		size_t big = db_entries(env, "frontier.seen");
		if (mid > mid_was)
			fills++;
		if (mid > 0 && !big_first)
			big_first = big;
		if (mid < mid_was && mid == 0)
			drains++;
		if (big > big_was && big_first)
			big_steps++;
		if (restart && mid < mid_was && mid > 0) {
			/* A drain under way: the kill -9 after a commit. */
			frontier_close(f);
			CHECK(fr_open_recent(env, 400, &f) == 0);
			CHECK(stats_seen(f) == total);
			cut++;
		}
		mid_was = mid;
		big_was = big;
		if (!tried_mid && mid > 0 && total > 6000) {
			/* A key of the middle set: its category (7), a new
			 * one, then forgotten. */
			unsigned i = 0;
			while (i < total &&
			       !key_in(env, "frontier.seen.mid", i))
				i++;
			CHECK(i < total);
			CHECK(other_of(env, f, i, 9) == 7);
			char out[NORM_URL_MAX + 1];
			struct norm_url u;
			struct frontier_url fu = url_norm(i, out, &u, 9);
			MDB_txn *txn;
			CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
			CHECK(frontier_requeue(f, txn, &fu) == 0);
			CHECK(mdb_txn_commit(txn) == 0);
			frontier_published(f);
			CHECK(key_in(env, "frontier.seen.mid", i));
			CHECK(other_of(env, f, i, 7) == 9);
			CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
			CHECK(frontier_forget(f, txn, out, u.len) == 1);
			CHECK(mdb_txn_commit(txn) == 0);
			frontier_published(f);
			CHECK(!key_in(env, "frontier.seen.mid", i));
			CHECK(seen(env, f, out) == 0);
			/* Queued again: new, as the test's count wants. */
			CHECK(other_of(env, f, i, 7) == FRONTIER_NO_CATEGORY);
			tried_mid = true;
		}
	}
	printf("# middle set: from %zu keys in the big set, %u fills, %u "
	       "drains, %zu steps of the big set, %u restarts in a drain\n",
	       big_first, fills, drains, big_steps, cut);
	CHECK(tried_mid);
	CHECK(big_first >= 24 * 400);
	CHECK(drains >= 2);
	CHECK(big_steps >= 2 && big_steps < fills);
	if (restart)
		CHECK(cut >= 1);
	check_range(env, f, 0, total, 1);
	check_range(env, f, total, 200, 0);
	frontier_close(f);
	CHECK(fr_open_recent(env, 400, &f) == 0);
	CHECK(stats_seen(f) == total);
	check_range(env, f, 0, total, 1);
	CHECK(add_range(env, f, 0, 200, true) == 0);
	frontier_close(f);
	env_remove(env);
}

static void test_middle_plain(void)
{
	test_middle(false);
}

static void test_middle_restart(void)
{
	test_middle(true);
}

/* A store of format 3 (a log, no middle set) is read as format 4: what
 * its big set holds is seen, and meta says 4 from the open on. */
static void test_v3_store_read(void)
{
	MDB_env *env = env_open();
	write_old_store(env, "http://old.test/a", true, 3);
	struct frontier *f = NULL;
	CHECK(fr_open(env, &f) == 0);
	CHECK(meta_version(env) == 4);
	CHECK(seen(env, f, "http://old.test/a") == 1);
	CHECK(add(env, f, "http://old.test/a") == 0);
	CHECK(add(env, f, "http://old.test/b") == 1);
	CHECK(stats_seen(f) == 2);
	frontier_close(f);
	CHECK(fr_open(env, &f) == 0);
	CHECK(seen(env, f, "http://old.test/b") == 1);
	CHECK(stats_seen(f) == 2);
	frontier_close(f);
	env_remove(env);
}

/* A meta version this code does not know: refused with SC_E_FORMAT,
 * whose message says why, and nothing written. */
static void test_unknown_format(void)
{
	MDB_env *env = env_open();
	write_old_store(env, "http://new.test/a", true, 5);
	struct frontier *f = NULL;
	CHECK(fr_open(env, &f) == SC_E_FORMAT);
	CHECK(f == NULL);
	CHECK(strstr(sc_strerror(SC_E_FORMAT), "newer sigcrawl") != NULL);
	CHECK(meta_version(env) == 5);
	env_remove(env);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 99;
	}
	test_new_store_logged();
	test_merges_plain();
	test_merges_restart();
	test_merge_aborted();
	test_filter();
	test_forget_across_merge();
	test_v2_store_clusters();
	test_old_store_with_meta();
	test_old_store_without_meta();
	test_unknown_format();
	test_middle_plain();
	test_middle_restart();
	test_v3_store_read();
	rmdir(dir);
	return check_done();
}
