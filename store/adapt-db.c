/* adapt-db.c — the "adapt" database: what adaptive normalization learns
 * (SPEC §7), kept in the same transactions as the records it concerns.
 * The store keeps the bytes; crawler/learn/adapt.c owns their layout (its
 * header comment lists the keys), so this file is a bounded key-value
 * table with prefix scans. */
#include <string.h>

#include "sc.h"
#include "store-int.h"

int store_adapt_open(struct store *s, MDB_txn *txn, bool create)
{
	return store_dbi_open_opt(txn, "adapt", 0, create, &s->adapt,
				  &s->has_adapt);
}

static bool key_ok(const void *key, size_t klen)
{
	return key && klen > 0 && klen <= STORE_ADAPT_KEY_MAX;
}

int store_adapt_put(struct store *s, MDB_txn *txn, const void *key, size_t klen,
		    const void *val, size_t vlen)
{
	if (!s || !txn || !key_ok(key, klen) || (vlen && !val) ||
	    vlen > STORE_RECORD_MAX || !s->has_adapt)
		return SC_E_INVAL;
	MDB_val k = { klen, (void *)key }, v = { vlen, (void *)val };
	int rc = mdb_put(txn, s->adapt, &k, &v, 0);
	return rc ? store_db_error(rc) : 0;
}

int store_adapt_get(struct store *s, MDB_txn *txn, const void *key, size_t klen,
		    const void **val, size_t *vlen)
{
	if (!s || !txn || !key_ok(key, klen) || !val || !vlen)
		return SC_E_INVAL;
	if (!s->has_adapt)
		return SC_E_NOTFOUND;
	MDB_val k = { klen, (void *)key }, v;
	int rc = mdb_get(txn, s->adapt, &k, &v);
	if (rc)
		return store_db_error(rc);
	*val = v.mv_data;
	*vlen = v.mv_size;
	return 0;
}

int store_adapt_del(struct store *s, MDB_txn *txn, const void *key, size_t klen)
{
	if (!s || !txn || !key_ok(key, klen) || !s->has_adapt)
		return SC_E_INVAL;
	MDB_val k = { klen, (void *)key };
	int rc = mdb_del(txn, s->adapt, &k, NULL);
	return rc ? store_db_error(rc) : 0;
}

int store_adapt_scan(struct store *s, MDB_txn *txn, const void *prefix,
		     size_t plen,
		     int (*fn)(void *arg, const void *key, size_t klen,
			       const void *val, size_t vlen),
		     void *arg)
{
	if (!s || !txn || !fn || plen > STORE_ADAPT_KEY_MAX ||
	    (plen && !prefix))
		return SC_E_INVAL;
	if (!s->has_adapt)
		return 0;
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, s->adapt, &cur);
	if (rc)
		return store_db_error(rc);
	MDB_val k = { plen, (void *)prefix }, v;
	rc = mdb_cursor_get(cur, &k, &v, plen ? MDB_SET_RANGE : MDB_FIRST);
	int ret = 0;
	while (rc == 0) {
		if (k.mv_size < plen || memcmp(k.mv_data, prefix, plen) != 0)
			break;
		if ((ret = fn(arg, k.mv_data, k.mv_size, v.mv_data, v.mv_size)))
			break;
		rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
	}
	mdb_cursor_close(cur);
	if (ret)
		return ret;
	return rc == 0 || rc == MDB_NOTFOUND ? 0 : store_db_error(rc);
}
