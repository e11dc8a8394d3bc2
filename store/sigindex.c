/* sigindex.c — the exact signature index and the SimHash near-duplicate
 * index (store.h, "Signature indexes"). */
#include <string.h>

#include "sc.h"
#include "store-int.h"

/* The near-duplicate index: 4 tables of 16-bit blocks (Manku et al. with
 * k + 1 = 4 blocks, enough for every k <= 3). */
#define SIM_TABLES 4
#define SIM_BLOCK_BITS 16
#define SIM_KEY_LEN 3
#define SIM_VAL_LEN (8 + 8 + SC_KEY_LEN)

int store_index_open(struct store *s, MDB_txn *txn, bool create)
{
	bool sigs, simhash = false;
	int rc = store_dbi_open_opt(txn, "signatures", 0, create, &s->sigs,
				    &sigs);
	if (!rc && sigs)
		rc = store_dbi_open_opt(txn, "simhash",
					MDB_DUPSORT | MDB_DUPFIXED, create,
					&s->simhash, &simhash);
	/* A store written before the indexes existed has neither. */
	s->has_index = sigs && simhash;
	return rc;
}

int store_sig_claim(struct store *s, MDB_txn *txn,
		    const unsigned char sig[STORE_SIG_LEN],
		    const char *normalized, size_t len, const char **rep,
		    size_t *rep_len)
{
	if (!s || !txn || !sig || !normalized || len == 0 ||
	    len > STORE_RECORD_MAX || !s->has_index)
		return SC_E_INVAL;
	MDB_val k = { STORE_SIG_LEN, (void *)sig };
	MDB_val v = { len, (void *)normalized };
	int rc = mdb_put(txn, s->sigs, &k, &v, MDB_NOOVERWRITE);
	if (rc == 0)
		return 0;
	if (rc != MDB_KEYEXIST)
		return store_db_error(rc);
	/* LMDB has set v to the value already there. */
	if (v.mv_size == len && memcmp(v.mv_data, normalized, len) == 0)
		return 0;
	if (rep)
		*rep = v.mv_data;
	if (rep_len)
		*rep_len = v.mv_size;
	return 1;
}

int store_sig_lookup(struct store *s, MDB_txn *txn,
		     const unsigned char sig[STORE_SIG_LEN], const char **rep,
		     size_t *rep_len)
{
	if (!s || !txn || !sig || !rep || !rep_len)
		return SC_E_INVAL;
	if (!s->has_index)
		return SC_E_NOTFOUND;
	MDB_val k = { STORE_SIG_LEN, (void *)sig }, v;
	int rc = mdb_get(txn, s->sigs, &k, &v);
	if (rc)
		return store_db_error(rc);
	*rep = v.mv_data;
	*rep_len = v.mv_size;
	return 0;
}

/* The key of HASH in table T: T, then block T (block 0 holds the top 16
 * bits), big-endian. */
static void sim_key(uint64_t hash, unsigned t, unsigned char key[SIM_KEY_LEN])
{
	unsigned shift = 64 - SIM_BLOCK_BITS * (t + 1);
	unsigned block = (unsigned)(hash >> shift) & 0xffffu;
	key[0] = (unsigned char)t;
	key[1] = (unsigned char)(block >> 8);
	key[2] = (unsigned char)block;
}

/* Whether (HASH, REP) is filed already: its entries of table 0 start with
 * HASH, so a range search finds them among the key's sorted values. */
static int sim_contains(struct store *s, MDB_txn *txn, uint64_t hash,
			const unsigned char rep[SC_KEY_LEN], bool *ret)
{
	unsigned char key[SIM_KEY_LEN], val[SIM_VAL_LEN] = { 0 };
	sim_key(hash, 0, key);
	put_be64(val, hash);
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, s->simhash, &cur);
	if (rc)
		return store_db_error(rc);
	MDB_val k = { SIM_KEY_LEN, key }, v = { SIM_VAL_LEN, val };
	*ret = false;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_GET_BOTH_RANGE); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT_DUP)) {
		if (v.mv_size != SIM_VAL_LEN) {
			rc = SC_E_CORRUPT;
			break;
		}
		const unsigned char *p = v.mv_data;
		if (get_be64(p) != hash)
			break;
		if (memcmp(p + 16, rep, SC_KEY_LEN) == 0) {
			*ret = true;
			break;
		}
	}
	mdb_cursor_close(cur);
	if (rc == SC_E_CORRUPT)
		return rc;
	return rc == 0 || rc == MDB_NOTFOUND ? 0 : store_db_error(rc);
}

int store_simhash_add(struct store *s, MDB_txn *txn, uint64_t hash,
		      const unsigned char rep[SC_KEY_LEN])
{
	if (!s || !txn || !rep || !s->has_index)
		return SC_E_INVAL;
	bool present;
	int rc = sim_contains(s, txn, hash, rep, &present);
	if (rc || present)
		return rc;
	/* Every fingerprint adds one value to each table and none is ever
	 * deleted, so the count of values numbers the additions: O(1), and
	 * no counter to keep in step. */
	MDB_stat st;
	rc = mdb_stat(txn, s->simhash, &st);
	if (rc)
		return store_db_error(rc);
	if (st.ms_entries % SIM_TABLES)
		return SC_E_CORRUPT;
	unsigned char val[SIM_VAL_LEN];
	put_be64(val, hash);
	put_be64(val + 8, (uint64_t)(st.ms_entries / SIM_TABLES));
	memcpy(val + 16, rep, SC_KEY_LEN);
	for (unsigned t = 0; t < SIM_TABLES; t++) {
		unsigned char key[SIM_KEY_LEN];
		sim_key(hash, t, key);
		MDB_val k = { SIM_KEY_LEN, key }, v = { SIM_VAL_LEN, val };
		rc = mdb_put(txn, s->simhash, &k, &v, 0);
		if (rc)
			return store_db_error(rc);
	}
	return 0;
}

/* Keeps in *best the better of itself and the value at P. */
static void sim_consider(const unsigned char *p, uint64_t hash, unsigned k,
			 struct store_simhash_hit *best, bool *found)
{
	uint64_t h = get_be64(p);
	unsigned d = (unsigned)__builtin_popcountll(h ^ hash);
	if (d > k)
		return;
	uint64_t seq = get_be64(p + 8);
	if (*found &&
	    (d > best->distance || (d == best->distance && seq >= best->seq)))
		return;
	best->hash = h;
	best->distance = d;
	best->seq = seq;
	memcpy(best->rep, p + 16, SC_KEY_LEN);
	*found = true;
}

/* Scans the values of table T's key for HASH, a page of them at a time
 * (MDB_GET_MULTIPLE: the values are of one size). */
static int sim_scan(MDB_cursor *cur, uint64_t hash, unsigned t, unsigned k,
		    struct store_simhash_hit *best, bool *found)
{
	unsigned char key[SIM_KEY_LEN];
	sim_key(hash, t, key);
	MDB_val kv = { SIM_KEY_LEN, key }, v;
	int rc = mdb_cursor_get(cur, &kv, &v, MDB_SET);
	if (rc == MDB_NOTFOUND)
		return 0;
	if (rc)
		return store_db_error(rc);
	for (rc = mdb_cursor_get(cur, &kv, &v, MDB_GET_MULTIPLE); rc == 0;
	     rc = mdb_cursor_get(cur, &kv, &v, MDB_NEXT_MULTIPLE)) {
		if (v.mv_size % SIM_VAL_LEN)
			return SC_E_CORRUPT;
		const unsigned char *p = v.mv_data;
		for (size_t i = 0; i < v.mv_size; i += SIM_VAL_LEN)
			sim_consider(p + i, hash, k, best, found);
	}
	return rc == MDB_NOTFOUND ? 0 : store_db_error(rc);
}

int store_simhash_find(struct store *s, MDB_txn *txn, uint64_t hash, unsigned k,
		       struct store_simhash_hit *ret)
{
	if (!s || !txn || !ret || k > STORE_SIMHASH_MAX_K)
		return SC_E_INVAL;
	if (!s->has_index)
		return SC_E_NOTFOUND;
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, s->simhash, &cur);
	if (rc)
		return store_db_error(rc);
	struct store_simhash_hit best = { 0 };
	bool found = false;
	for (unsigned t = 0; t < SIM_TABLES && !rc; t++)
		rc = sim_scan(cur, hash, t, k, &best, &found);
	mdb_cursor_close(cur);
	if (rc)
		return rc;
	if (!found)
		return SC_E_NOTFOUND;
	*ret = best;
	return 0;
}
