/* sigindex.c — bench-sigindex: SimHash near-duplicate lookups per second
 * through store/'s permuted-table index, against a brute-force scan of
 * the same fingerprints in memory.
 *
 * usage: bench-sigindex [N] (default 1000000 fingerprints, random) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store.h"

static uint64_t state = 42;

static uint64_t rng(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	char dir[] = "/tmp/bench-sigindex.XXXXXX";
	uint64_t *h = malloc(n * sizeof(*h));
	MDB_env *env;
	MDB_txn *txn;
	struct store *s;
	if (!h || !mkdtemp(dir) || store_env_open(dir, 0, &env))
		return 1;
	for (size_t i = 0; i < n; i++)
		h[i] = rng();
	double t0 = now();
	for (size_t i = 0; i < n; i += 10000) {
		if (mdb_txn_begin(env, NULL, 0, &txn) ||
		    store_open(env, txn, &s))
			return 1;
		for (size_t j = i; j < n && j < i + 10000; j++) {
			unsigned char key[SC_KEY_LEN] = { 0 };
			memcpy(key, &j, sizeof(j));
			if (store_simhash_add(s, txn, h[j], key))
				return 1;
		}
		if (mdb_txn_commit(txn))
			return 1;
		store_close(s);
	}
	double t1 = now();
	printf("add: %zu fingerprints in %.2f s (%.0f/s, commits of 10000)\n",
	       n, t1 - t0, (double)n / (t1 - t0));

	if (mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) ||
	    store_open(env, txn, &s))
		return 1;
	size_t q = 200000, hits = 0;
	t0 = now();
	for (size_t i = 0; i < q; i++) {
		/* Half the queries are a stored hash with 3 bits flipped. */
		uint64_t x = i % 2 ? rng()
				   : h[rng() % n] ^ 0x8000100000200000ull;
		struct store_simhash_hit hit;
		hits += store_simhash_find(s, txn, x, 3, &hit) == 0;
	}
	t1 = now();
	double idx = (double)q / (t1 - t0);
	printf("index lookups (k=3): %.0f/s, %zu of %zu hit\n", idx, hits, q);
	mdb_txn_abort(txn);
	store_close(s);

	size_t bq = 200, bhits = 0;
	t0 = now();
	for (size_t i = 0; i < bq; i++) {
		uint64_t x = i % 2 ? rng()
				   : h[rng() % n] ^ 0x8000100000200000ull;
		for (size_t j = 0; j < n; j++)
			if (__builtin_popcountll(h[j] ^ x) <= 3) {
				bhits++;
				break;
			}
	}
	t1 = now();
	double bf = (double)bq / (t1 - t0);
	printf("brute-force lookups (k=3, in memory): %.0f/s, %zu of %zu "
	       "hit\n",
	       bf, bhits, bq);
	printf("speed-up: %.0fx\n", idx / bf);
	store_env_close(env);
	char p[64];
	snprintf(p, sizeof(p), "%s/data.mdb", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/lock.mdb", dir);
	unlink(p);
	rmdir(dir);
	free(h);
	return 0;
}
