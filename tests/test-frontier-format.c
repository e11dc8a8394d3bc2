/* test-frontier-format.c — the seen set's two key formats: a new store
 * clusters its keys by host and path (format 2), a store written before
 * keeps its hashed keys (format 1) and is read as it was, and a format
 * this version does not know is refused, never misread. */
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

/* frontier_open() in its own transaction: its code, the frontier in *ret
 * when 0. */
static int fr_open(MDB_env *env, struct frontier **ret)
{
	struct frontier_opts o = { .per_host_connections = 4 };
	MDB_txn *txn;
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	int rc = frontier_open(env, txn, &o, ret);
	if (rc == 0)
		CHECK(mdb_txn_commit(txn) == 0);
	else
		mdb_txn_abort(txn);
	return rc;
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

/* A new store: meta says format 2 from the open on, before any URL; the
 * keys are 24 bytes, each host's in one run and, within a host, in the
 * order of their paths' first bytes; a reopened store reads them. */
static void test_new_store_clusters(void)
{
	MDB_env *env = env_open();
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

/* A meta version this code does not know: refused with SC_E_FORMAT,
 * whose message says why, and nothing written. */
static void test_unknown_format(void)
{
	MDB_env *env = env_open();
	write_old_store(env, "http://new.test/a", true, 3);
	struct frontier *f = NULL;
	CHECK(fr_open(env, &f) == SC_E_FORMAT);
	CHECK(f == NULL);
	CHECK(strstr(sc_strerror(SC_E_FORMAT), "newer sigcrawl") != NULL);
	CHECK(meta_version(env) == 3);
	env_remove(env);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 99;
	}
	test_new_store_clusters();
	test_old_store_with_meta();
	test_old_store_without_meta();
	test_unknown_format();
	rmdir(dir);
	return check_done();
}
