/* test-sigindex.c — unit tests of store/'s signature indexes: the exact
 * signature claims, and the SimHash near-duplicate index against a
 * brute-force scan (the oracle) over 10,000+ random fingerprints with
 * planted neighbours.
 *
 * The planted neighbours are what makes the oracle comparison able to
 * fail: a neighbour at distance d <= 3 agrees with its query on one block
 * only, chosen in turn among the 4, so an index that lost any one table,
 * or read a block from the wrong bits, misses a quarter of them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "store.h"

static char tmpdir[] = "/tmp/test-sigindex.XXXXXX";

static void remove_store(const char *dir)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/data.mdb", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/lock.mdb", dir);
	unlink(p);
	rmdir(dir);
}

/* SplitMix64: a fixed seed, so a failure can be replayed. */
static uint64_t rng_state = 0x5eed5eed12345678ull;

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static bool opened(MDB_env *env, unsigned flags, MDB_txn **txn,
		   struct store **s)
{
	if (mdb_txn_begin(env, NULL, flags, txn))
		return false;
	if (store_open(env, *txn, s)) {
		mdb_txn_abort(*txn);
		return false;
	}
	return true;
}

static bool rep_is(const char *rep, size_t len, const char *want)
{
	return rep && len == strlen(want) && memcmp(rep, want, len) == 0;
}

static void test_claims(void)
{
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/claims", tmpdir);
	MDB_env *env;
	MDB_txn *txn;
	struct store *s;
	unsigned char a[16], b[16];
	memset(a, 0xaa, 16);
	memset(b, 0xbb, 16);
	const char *u1 = "http://example.com/", *u2 = "http://example.com/x";
	const char *rep = NULL;
	size_t len = 0;

	CHECK(store_env_open(dir, 0, &env) == 0);
	CHECK(opened(env, 0, &txn, &s));
	CHECK(store_sig_claim(s, txn, a, u1, strlen(u1), &rep, &len) == 0);
	/* Re-claim by the representative: still the representative. */
	CHECK(store_sig_claim(s, txn, a, u1, strlen(u1), &rep, &len) == 0);
	CHECK(store_sig_claim(s, txn, a, u2, strlen(u2), &rep, &len) == 1);
	CHECK(rep_is(rep, len, u1));
	/* A prefix of the representative is another URL. */
	CHECK(store_sig_claim(s, txn, a, u1, strlen(u1) - 1, &rep, &len) == 1);
	CHECK(store_sig_claim(s, txn, a, u2, strlen(u2), NULL, NULL) == 1);
	CHECK(store_sig_claim(s, txn, b, u2, strlen(u2), &rep, &len) == 0);
	CHECK(store_sig_lookup(s, txn, a, &rep, &len) == 0 &&
	      rep_is(rep, len, u1));
	CHECK(store_sig_claim(s, txn, a, u1, 0, &rep, &len) == SC_E_INVAL);
	CHECK(store_sig_claim(s, txn, NULL, u1, 3, &rep, &len) == SC_E_INVAL);
	CHECK(store_sig_claim(NULL, txn, a, u1, 3, &rep, &len) == SC_E_INVAL);
	CHECK(mdb_txn_commit(txn) == 0);
	store_close(s);

	/* An aborted claim leaves nothing behind. */
	unsigned char c[16];
	memset(c, 0xcc, 16);
	CHECK(opened(env, 0, &txn, &s));
	CHECK(store_sig_claim(s, txn, c, u2, strlen(u2), &rep, &len) == 0);
	mdb_txn_abort(txn);
	store_close(s);
	store_env_close(env);

	/* After reopening, read-only: the claims persisted. */
	CHECK(store_env_open(dir, STORE_RDONLY, &env) == 0);
	CHECK(opened(env, MDB_RDONLY, &txn, &s));
	CHECK(store_sig_lookup(s, txn, a, &rep, &len) == 0 &&
	      rep_is(rep, len, u1));
	CHECK(store_sig_lookup(s, txn, b, &rep, &len) == 0 &&
	      rep_is(rep, len, u2));
	CHECK(store_sig_lookup(s, txn, c, &rep, &len) == SC_E_NOTFOUND);
	mdb_txn_abort(txn);
	store_close(s);
	store_env_close(env);

	/* Writable again: the persisted representative keeps its claim, and
	 * a crawl redone after a crash does not collide with itself. */
	CHECK(store_env_open(dir, 0, &env) == 0);
	CHECK(opened(env, 0, &txn, &s));
	CHECK(store_sig_claim(s, txn, a, u2, strlen(u2), &rep, &len) == 1 &&
	      rep_is(rep, len, u1));
	CHECK(store_sig_claim(s, txn, a, u1, strlen(u1), &rep, &len) == 0);
	CHECK(store_sig_claim(s, txn, c, u1, strlen(u1), &rep, &len) == 0);
	CHECK(mdb_txn_commit(txn) == 0);
	store_close(s);
	store_env_close(env);
	remove_store(dir);
}

/* A store written before the indexes existed (only "records") reads as an
 * empty index and refuses writes through a read-only handle. */
static void test_old_store(void)
{
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/old", tmpdir);
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	CHECK(store_env_open(dir, 0, &env) == 0);
	CHECK(mdb_txn_begin(env, NULL, 0, &txn) == 0);
	CHECK(mdb_dbi_open(txn, "records", MDB_CREATE, &dbi) == 0);
	CHECK(mdb_txn_commit(txn) == 0);
	store_env_close(env);

	struct store *s;
	unsigned char sig[16] = { 1 }, key[SC_KEY_LEN] = { 2 };
	const char *rep;
	size_t len;
	struct store_simhash_hit hit;
	CHECK(store_env_open(dir, STORE_RDONLY, &env) == 0);
	CHECK(opened(env, MDB_RDONLY, &txn, &s));
	CHECK(store_sig_lookup(s, txn, sig, &rep, &len) == SC_E_NOTFOUND);
	CHECK(store_simhash_find(s, txn, 42, 3, &hit) == SC_E_NOTFOUND);
	CHECK(store_sig_claim(s, txn, sig, "http://a/", 9, &rep, &len) ==
	      SC_E_INVAL);
	CHECK(store_simhash_add(s, txn, 42, key) == SC_E_INVAL);
	mdb_txn_abort(txn);
	store_close(s);
	store_env_close(env);
	remove_store(dir);
}

/* ---- near-duplicates ---------------------------------------------------- */

#define N_RANDOM 10000
#define N_QUERIES 1000
#define MAX_ENTRIES (N_RANDOM + 4 * N_QUERIES)

struct entry {
	uint64_t hash;
	unsigned char rep[SC_KEY_LEN];
};

static struct entry entries[MAX_ENTRIES];
static size_t n_entries;
static uint64_t queries[N_QUERIES];
static unsigned planted_within_3; /* queries with a neighbour at <= 3 */

/* Flips D distinct bits of H, none in block KEEP (0..3, block 0 = top 16
 * bits), spread over the other blocks in turn: with D = 3 (or 4) block
 * KEEP is the only block H and the result share. */
static uint64_t flip_outside(uint64_t h, unsigned d, unsigned keep)
{
	unsigned used = 0;
	uint64_t done = 0;
	while (used < d) {
		unsigned block = (keep + 1 + used % 3) % 4;
		unsigned bit = (unsigned)(rng() % 16);
		uint64_t mask = 1ull << (64 - 16 * (block + 1) + bit);
		if (done & mask)
			continue;
		done |= mask;
		used++;
	}
	return h ^ done;
}

static void add_entry(uint64_t hash)
{
	char url[64];
	snprintf(url, sizeof(url), "http://example.com/%zu", n_entries);
	entries[n_entries].hash = hash;
	sc_url_key(url, strlen(url), entries[n_entries].rep);
	n_entries++;
}

/* The oracle: the entry nearest to Q within K, earliest first; -1 if
 * none. */
static long brute_force(uint64_t q, unsigned k, unsigned *dist)
{
	long best = -1;
	unsigned bd = 99;
	for (size_t i = 0; i < n_entries; i++) {
		unsigned d = (unsigned)__builtin_popcountll(entries[i].hash ^
							    q);
		if (d <= k && d < bd) {
			bd = d;
			best = (long)i;
		}
	}
	*dist = bd;
	return best;
}

/* Builds the fingerprints: N_RANDOM random ones, and for query j a
 * neighbour at distance j % 5 (0..4) that agrees with the query on block
 * (j / 5) % 4 only when it differs in 3 blocks; every seventh query also
 * gets a later neighbour at the same distance (the earlier must win) and
 * every eleventh a later, nearer one (the nearer must win). */
static void build_entries(void)
{
	for (size_t i = 0; i < N_RANDOM; i++)
		add_entry(rng());
	for (unsigned j = 0; j < N_QUERIES; j++) {
		uint64_t q = rng();
		queries[j] = q;
		unsigned d = j % 5, keep = (j / 5) % 4;
		add_entry(flip_outside(q, d, keep));
		if (j % 7 == 0)
			add_entry(flip_outside(q, d, (keep + 1) % 4));
		if (j % 11 == 0 && d > 0)
			add_entry(flip_outside(q, d - 1, keep));
		if (d <= 3 || j % 11 == 0)
			planted_within_3++;
	}
}

/* Compares the index with the oracle for every query and every K. */
static void compare_with_oracle(struct store *s, MDB_txn *txn)
{
	unsigned mismatches = 0, hits = 0, planted_found[5] = { 0 };
	for (unsigned j = 0; j < N_QUERIES; j++) {
		for (unsigned k = 0; k <= STORE_SIMHASH_MAX_K; k++) {
			unsigned dist;
			long want = brute_force(queries[j], k, &dist);
			struct store_simhash_hit hit;
			int rc = store_simhash_find(s, txn, queries[j], k,
						    &hit);
			bool same;
			if (want < 0) {
				same = rc == SC_E_NOTFOUND;
			} else {
				const struct entry *e = &entries[want];
				same = rc == 0 && hit.hash == e->hash &&
				       hit.distance == dist &&
				       hit.seq == (uint64_t)want &&
				       memcmp(hit.rep, e->rep, SC_KEY_LEN) == 0;
				hits++;
				if (k == STORE_SIMHASH_MAX_K)
					planted_found[dist]++;
			}
			if (!same && mismatches++ < 5)
				fprintf(stderr,
					"query %u k %u: index rc %d, oracle "
					"entry %ld\n",
					j, k, rc, want);
		}
	}
	CHECK(mismatches == 0);
	/* The plan worked: hits at every distance 0..3 with k = 3, and
	 * the distance-4 queries (j % 5 == 4) found nothing. */
	CHECK(hits > N_QUERIES);
	for (unsigned d = 0; d <= 3; d++)
		CHECK(planted_found[d] >= N_QUERIES / 5);
	CHECK(planted_found[0] + planted_found[1] + planted_found[2] +
		      planted_found[3] ==
	      planted_within_3);
}

static void test_simhash(void)
{
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/simhash", tmpdir);
	MDB_env *env;
	MDB_txn *txn;
	struct store *s;
	build_entries();
	CHECK(n_entries > N_RANDOM + N_QUERIES);

	CHECK(store_env_open(dir, 0, &env) == 0);
	CHECK(opened(env, 0, &txn, &s));
	int bad = 0;
	for (size_t i = 0; i < n_entries; i++)
		if (store_simhash_add(s, txn, entries[i].hash, entries[i].rep))
			bad++;
	CHECK(bad == 0);
	/* Adding a filed pair again changes nothing: 4 values each. */
	MDB_dbi dbi;
	MDB_stat st;
	CHECK(mdb_dbi_open(txn, "simhash", 0, &dbi) == 0);
	CHECK(mdb_stat(txn, dbi, &st) == 0 && st.ms_entries == 4 * n_entries);
	for (size_t i = 0; i < n_entries; i += 97)
		CHECK(store_simhash_add(s, txn, entries[i].hash,
					entries[i].rep) == 0);
	CHECK(mdb_stat(txn, dbi, &st) == 0 && st.ms_entries == 4 * n_entries);
	/* Inside the writing transaction, before the commit. */
	compare_with_oracle(s, txn);
	struct store_simhash_hit hit;
	CHECK(store_simhash_find(s, txn, 0, 4, &hit) == SC_E_INVAL);
	CHECK(store_simhash_find(s, txn, 0, 1, NULL) == SC_E_INVAL);
	CHECK(store_simhash_add(s, txn, 1, NULL) == SC_E_INVAL);
	CHECK(mdb_txn_commit(txn) == 0);
	store_close(s);
	store_env_close(env);

	/* Persisted: the same answers after reopening read-only. */
	CHECK(store_env_open(dir, STORE_RDONLY, &env) == 0);
	CHECK(opened(env, MDB_RDONLY, &txn, &s));
	compare_with_oracle(s, txn);
	mdb_txn_abort(txn);
	store_close(s);
	store_env_close(env);
	remove_store(dir);
}

/* A hand-made case: exact distances and the tie rule. */
static void test_simhash_small(void)
{
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/small", tmpdir);
	MDB_env *env;
	MDB_txn *txn;
	struct store *s;
	unsigned char r1[SC_KEY_LEN], r2[SC_KEY_LEN], r3[SC_KEY_LEN];
	sc_url_key("http://a/1", 10, r1);
	sc_url_key("http://a/2", 10, r2);
	sc_url_key("http://a/3", 10, r3);
	uint64_t base = 0x0123456789abcdefull;
	/* 3 bits off in blocks 0, 1 and 2; 2 bits off in block 3 only. */
	uint64_t far3 = base ^ (1ull << 63) ^ (1ull << 40) ^ (1ull << 20);
	uint64_t near2 = base ^ 0x3ull;
	struct store_simhash_hit hit;

	CHECK(store_env_open(dir, 0, &env) == 0);
	CHECK(opened(env, 0, &txn, &s));
	CHECK(store_simhash_find(s, txn, base, 3, &hit) == SC_E_NOTFOUND);
	CHECK(store_simhash_add(s, txn, far3, r1) == 0);
	CHECK(store_simhash_add(s, txn, near2, r2) == 0);
	CHECK(store_simhash_add(s, txn, near2, r3) == 0);
	CHECK(store_simhash_find(s, txn, base, 3, &hit) == 0 &&
	      hit.distance == 2 && hit.hash == near2 && hit.seq == 1 &&
	      memcmp(hit.rep, r2, SC_KEY_LEN) == 0);
	CHECK(store_simhash_find(s, txn, base, 1, &hit) == SC_E_NOTFOUND);
	CHECK(store_simhash_find(s, txn, far3, 0, &hit) == 0 &&
	      hit.distance == 0 && memcmp(hit.rep, r1, SC_KEY_LEN) == 0);
	CHECK(store_simhash_find(s, txn, far3 ^ (1ull << 5), 1, &hit) == 0 &&
	      hit.distance == 1 && hit.seq == 0);
	CHECK(mdb_txn_commit(txn) == 0);
	store_close(s);
	store_env_close(env);
	remove_store(dir);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_claims();
	test_old_store();
	test_simhash_small();
	test_simhash();
	rmdir(tmpdir);
	return check_done();
}
