/* test-store-focus.c — unit tests of what store/ keeps for focused
 * crawling (store/focus-db.c): the categories' settings, their counters and
 * the notes of URLs reached from a second category; each kept across a
 * reopen of the environment, and an aborted transaction leaving nothing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "store.h"

static char dir[] = "/tmp/test-store-focus.XXXXXX";

static bool opened(MDB_env **env, unsigned flags, MDB_txn **txn,
		   struct store **s)
{
	if (store_env_open(dir, flags & MDB_RDONLY ? STORE_RDONLY : 0, env))
		return false;
	if (mdb_txn_begin(*env, NULL, flags, txn)) {
		store_env_close(*env);
		return false;
	}
	if (store_open(*env, *txn, s)) {
		mdb_txn_abort(*txn);
		store_env_close(*env);
		return false;
	}
	return true;
}

static void closed(MDB_env *env, MDB_txn *txn, struct store *s, bool commit)
{
	if (commit)
		CHECK(mdb_txn_commit(txn) == 0);
	else
		mdb_txn_abort(txn);
	store_close(s);
	store_env_close(env);
}

struct names {
	char got[4][32];
	int n;
};

static int collect(void *arg, const char *name, size_t len)
{
	struct names *x = arg;
	if (x->n < 4 && len < sizeof(x->got[0])) {
		memcpy(x->got[x->n], name, len);
		x->got[x->n][len] = '\0';
	}
	x->n++;
	return 0;
}

struct notes {
	int n;
	unsigned char key[4][SC_KEY_LEN];
	char name[4][32];
};

static int collect_note(void *arg, const unsigned char key[SC_KEY_LEN],
			const char *name, size_t len)
{
	struct notes *x = arg;
	if (x->n < 4 && len < sizeof(x->name[0])) {
		memcpy(x->key[x->n], key, SC_KEY_LEN);
		memcpy(x->name[x->n], name, len);
		x->name[x->n][len] = '\0';
	}
	x->n++;
	return 0;
}

static void test_categories(void)
{
	MDB_env *env;
	MDB_txn *txn;
	struct store *s;
	CHECK(opened(&env, 0, &txn, &s));
	struct store_category cook = { .name = "cooking",
				       .name_len = 7,
				       .keywords = "bread, black pepper",
				       .keywords_len = 19,
				       .scope = 1,
				       .tunnel = 2,
				       .min_relevance = 0.3,
				       .has_predict = true,
				       .predict = true,
				       .predict_min = 0.25,
				       .has_min_harvest = true,
				       .min_harvest = 0.85 };
	struct store_category astro = { .name = "astro",
					.name_len = 5,
					.keywords = "",
					.keywords_len = 0,
					.scope = 2 };
	CHECK(store_category_put(s, txn, &cook) == 0);
	CHECK(store_category_put(s, txn, &astro) == 0);
	struct store_category bad = cook;
	bad.name_len = 0;
	CHECK(store_category_put(s, txn, &bad) == SC_E_INVAL);
	bad = cook;
	bad.min_harvest = 1.5;
	CHECK(store_category_put(s, txn, &bad) == SC_E_INVAL);
	closed(env, txn, s, true);

	/* A reload changes a category's settings: the new ones replace. */
	CHECK(opened(&env, 0, &txn, &s));
	cook.tunnel = 5;
	cook.keywords = "bread";
	cook.keywords_len = 5;
	CHECK(store_category_put(s, txn, &cook) == 0);
	closed(env, txn, s, true);

	CHECK(opened(&env, MDB_RDONLY, &txn, &s));
	struct store_category got;
	CHECK(store_category_get(s, txn, "cooking", 7, &got) == 0);
	CHECK(got.scope == 1 && got.tunnel == 5 && got.min_relevance == 0.3);
	CHECK(got.has_predict && got.predict && got.predict_min == 0.25);
	CHECK(got.has_min_harvest && got.min_harvest == 0.85);
	CHECK(got.keywords_len == 5 && memcmp(got.keywords, "bread", 5) == 0);
	CHECK(store_category_get(s, txn, "astro", 5, &got) == 0);
	CHECK(got.scope == 2 && got.keywords_len == 0 && !got.has_predict &&
	      !got.has_min_harvest);
	CHECK(store_category_get(s, txn, "nosuch", 6, &got) == SC_E_NOTFOUND);
	struct names x = { 0 };
	CHECK(store_category_foreach(s, txn, collect, &x) == 0);
	CHECK(x.n == 2);
	CHECK(strcmp(x.got[0], "astro") == 0 &&
	      strcmp(x.got[1], "cooking") == 0); /* name order */
	closed(env, txn, s, false);

	/* A version 1 value (no prediction settings) still reads. */
	CHECK(opened(&env, 0, &txn, &s));
	{
		MDB_dbi dbi;
		unsigned char v1[14 + 3] = { 1, 2, 0, 0, 0, 4 }, k[] = "cold";
		double min = 0.5;
		uint64_t bits;
		memcpy(&bits, &min, sizeof(bits));
		for (int i = 0; i < 8; i++)
			v1[6 + i] = (unsigned char)(bits >> (56 - 8 * i));
		memcpy(v1 + 14, "sun", 3);
		CHECK(mdb_dbi_open(txn, "focus", 0, &dbi) == 0);
		MDB_val key = { 4, k }, val = { sizeof(v1), v1 };
		CHECK(mdb_put(txn, dbi, &key, &val, 0) == 0);
		struct store_category old;
		CHECK(store_category_get(s, txn, "old", 3, &old) == 0);
		CHECK(old.scope == 2 && old.tunnel == 4 &&
		      old.min_relevance == 0.5 && !old.has_predict &&
		      old.keywords_len == 3 &&
		      memcmp(old.keywords, "sun", 3) == 0);
		/* Version 2: the prediction's settings, no floor. */
		unsigned char v2[23 + 3] = { 2, 2, 0, 0, 0, 4 };
		memcpy(v2 + 6, v1 + 6, 8);
		v2[14] = 1;
		memcpy(v2 + 15, v1 + 6, 8); /* predict_min 0.5 */
		memcpy(v2 + 23, "sun", 3);
		MDB_val val2 = { sizeof(v2), v2 };
		CHECK(mdb_put(txn, dbi, &key, &val2, 0) == 0);
		CHECK(store_category_get(s, txn, "old", 3, &old) == 0);
		CHECK(old.has_predict && old.predict &&
		      old.predict_min == 0.5 && !old.has_min_harvest &&
		      old.keywords_len == 3 &&
		      memcmp(old.keywords, "sun", 3) == 0);
		v1[0] = 9;
		CHECK(mdb_put(txn, dbi, &key, &val, 0) == 0);
		CHECK(store_category_get(s, txn, "old", 3, &old) ==
		      SC_E_CORRUPT);
	}
	closed(env, txn, s, false);
}

static void test_counters(void)
{
	MDB_env *env;
	MDB_txn *txn;
	struct store *s;
	uint64_t a[STORE_FOCUS_COUNTERS] = { 3, 4, 0 };
	uint64_t b[STORE_FOCUS_COUNTERS] = { 10, 0, 1 };
	uint64_t got[STORE_FOCUS_COUNTERS];

	CHECK(opened(&env, 0, &txn, &s));
	CHECK(store_focus_count_get(s, txn, "cooking", 7, got) == 0);
	CHECK(got[0] == 0 && got[1] == 0 && got[2] == 0);
	CHECK(store_focus_count_add(s, txn, "cooking", 7, a) == 0);
	CHECK(store_focus_count_add(s, txn, "cooking", 7, b) == 0);
	CHECK(store_focus_count_add(s, txn, "astro", 5, a) == 0);
	closed(env, txn, s, true);

	/* A batch that does not commit counts nothing. */
	CHECK(opened(&env, 0, &txn, &s));
	CHECK(store_focus_count_add(s, txn, "cooking", 7, b) == 0);
	closed(env, txn, s, false);

	CHECK(opened(&env, MDB_RDONLY, &txn, &s));
	CHECK(store_focus_count_get(s, txn, "cooking", 7, got) == 0);
	CHECK(got[STORE_FOCUS_PRUNED_SCOPE] == 13 &&
	      got[STORE_FOCUS_PRUNED_RELEVANCE] == 4 &&
	      got[STORE_FOCUS_ALSO] == 1);
	CHECK(store_focus_count_get(s, txn, "astro", 5, got) == 0);
	CHECK(got[0] == 3 && got[1] == 4 && got[2] == 0);
	closed(env, txn, s, false);

	/* A store of an older version kept 3 counters: the others read 0,
	 * and adding writes them all.  A length that is no number of
	 * counters, or more than this version knows, is damage. */
	CHECK(opened(&env, 0, &txn, &s));
	MDB_dbi dbi;
	CHECK(mdb_dbi_open(txn, "focus", 0, &dbi) == 0);
	unsigned char old[24] = { 0 }, k[] = "nold";
	old[7] = 5, old[15] = 6, old[23] = 7;
	MDB_val key = { 4, k }, val = { sizeof(old), old };
	CHECK(mdb_put(txn, dbi, &key, &val, 0) == 0);
	CHECK(store_focus_count_get(s, txn, "old", 3, got) == 0);
	CHECK(got[0] == 5 && got[1] == 6 && got[2] == 7 &&
	      got[STORE_FOCUS_PRUNED_PREDICTED] == 0 &&
	      got[STORE_FOCUS_COUNTERS - 1] == 0);
	a[STORE_FOCUS_COUNTERS - 1] = 9;
	CHECK(store_focus_count_add(s, txn, "old", 3, a) == 0);
	CHECK(store_focus_count_get(s, txn, "old", 3, got) == 0);
	CHECK(got[0] == 8 && got[STORE_FOCUS_COUNTERS - 1] == 9);
	val = (MDB_val){ 20, old };
	CHECK(mdb_put(txn, dbi, &key, &val, 0) == 0);
	CHECK(store_focus_count_get(s, txn, "old", 3, got) == SC_E_CORRUPT);
	unsigned char big[8 * STORE_FOCUS_COUNTERS + 8] = { 0 };
	val = (MDB_val){ sizeof(big), big };
	CHECK(mdb_put(txn, dbi, &key, &val, 0) == 0);
	CHECK(store_focus_count_get(s, txn, "old", 3, got) == SC_E_CORRUPT);
	closed(env, txn, s, false);
}

static void test_also(void)
{
	MDB_env *env;
	MDB_txn *txn;
	struct store *s;
	unsigned char k1[SC_KEY_LEN], k2[SC_KEY_LEN];
	sc_url_key("http://a.test/", 14, k1);
	sc_url_key("http://b.test/", 14, k2);

	CHECK(opened(&env, 0, &txn, &s));
	CHECK(store_also_add(s, txn, k1, "astro", 5) == 1);
	CHECK(store_also_add(s, txn, k1, "astro", 5) == 0); /* once */
	CHECK(store_also_add(s, txn, k1, "garden", 6) == 1);
	CHECK(store_also_add(s, txn, k2, "astro", 5) == 1);
	CHECK(store_also_add(s, txn, k2, "", 0) == SC_E_INVAL);
	closed(env, txn, s, true);

	CHECK(opened(&env, MDB_RDONLY, &txn, &s));
	struct notes x = { 0 };
	CHECK(store_also_foreach(s, txn, collect_note, &x) == 0);
	CHECK(x.n == 3);
	/* The notes of one URL come together. */
	int k1_at = memcmp(x.key[0], k1, SC_KEY_LEN) == 0 ? 0 : 1;
	CHECK(memcmp(x.key[k1_at], k1, SC_KEY_LEN) == 0 &&
	      memcmp(x.key[k1_at + 1], k1, SC_KEY_LEN) == 0);
	CHECK(memcmp(x.key[k1_at ? 0 : 2], k2, SC_KEY_LEN) == 0);
	CHECK(strcmp(x.name[k1_at], "astro") == 0 &&
	      strcmp(x.name[k1_at + 1], "garden") == 0);
	closed(env, txn, s, false);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 99;
	}
	test_categories();
	test_counters();
	test_also();
	char p[512];
	snprintf(p, sizeof(p), "%s/data.mdb", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/lock.mdb", dir);
	unlink(p);
	rmdir(dir);
	return check_done();
}
