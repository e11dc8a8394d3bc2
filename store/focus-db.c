/* focus-db.c — the "focus" database: categories, their counters, and the
 * URLs reached from a second category (see store.h).
 *
 * Keys start with one byte that says what follows:
 *   'c' name               -> a category's settings (encoded below)
 *   'n' name               -> its counters: STORE_FOCUS_COUNTERS x 8 bytes
 *                             (fewer in a store of an older version)
 *   'a' url key | name     -> nothing: the URL was reached from category
 *                             name too, after it was queued under another
 * Names are at most STORE_CATEGORY_NAME_MAX bytes.  Integers are
 * big-endian. */
#include <string.h>

#include "sc.h"
#include "store-int.h"

#define FOCUS_VERSION 3
/* Category value: version, scope, tunnel (4), min_relevance (8, IEEE 754
 * bits), then from version 2 predict (1) and predict_min (8, likewise),
 * from version 3 has_min_harvest (1) and min_harvest (8), then the
 * keywords (the rest).  Versions 1 and 2 values still read. */
#define CAT_HEAD_V1 14
#define CAT_HEAD_V2 23
#define CAT_HEAD 32
#define KEY_MAX (1 + SC_KEY_LEN + STORE_CATEGORY_NAME_MAX)

int store_focus_open(struct store *s, MDB_txn *txn, bool create)
{
	return store_dbi_open_opt(txn, "focus", 0, create, &s->focus,
				  &s->has_focus);
}

static size_t make_key(unsigned char *k, char tag, const unsigned char *url,
		       const char *name, size_t len)
{
	size_t n = 0;
	k[n++] = (unsigned char)tag;
	if (url) {
		memcpy(k + n, url, SC_KEY_LEN);
		n += SC_KEY_LEN;
	}
	memcpy(k + n, name, len);
	return n + len;
}

static bool name_ok(const char *name, size_t len)
{
	return name && len > 0 && len <= STORE_CATEGORY_NAME_MAX;
}

int store_category_put(struct store *s, MDB_txn *txn,
		       const struct store_category *c)
{
	if (!s || !txn || !c || !name_ok(c->name, c->name_len) ||
	    (!c->keywords && c->keywords_len) ||
	    c->keywords_len > STORE_RECORD_MAX || c->scope > 255 ||
	    !(c->min_relevance >= 0.0 && c->min_relevance <= 1.0) ||
	    (c->has_predict &&
	     !(c->predict_min >= 0.0 && c->predict_min <= 1.0)) ||
	    (c->has_min_harvest &&
	     !(c->min_harvest >= 0.0 && c->min_harvest <= 1.0)))
		return SC_E_INVAL;
	if (!s->has_focus)
		return SC_E_INVAL;
	unsigned char k[KEY_MAX];
	MDB_val key = { make_key(k, 'c', NULL, c->name, c->name_len), k };
	MDB_val val = { CAT_HEAD + c->keywords_len, NULL };
	int rc = mdb_put(txn, s->focus, &key, &val, MDB_RESERVE);
	if (rc)
		return store_db_error(rc);
	unsigned char *v = val.mv_data;
	uint64_t bits;
	memcpy(&bits, &c->min_relevance, sizeof(bits));
	v[0] = FOCUS_VERSION;
	v[1] = (unsigned char)c->scope;
	put_be32(v + 2, (uint32_t)c->tunnel);
	put_be64(v + 6, bits);
	double pm = c->has_predict ? c->predict_min : 0.0;
	memcpy(&bits, &pm, sizeof(bits));
	/* 2: not kept (a caller without the settings). */
	v[14] = c->has_predict ? (c->predict ? 1 : 0) : 2;
	put_be64(v + 15, bits);
	double mh = c->has_min_harvest ? c->min_harvest : 0.0;
	memcpy(&bits, &mh, sizeof(bits));
	v[23] = c->has_min_harvest ? 1 : 0;
	put_be64(v + 24, bits);
	if (c->keywords_len)
		memcpy(v + CAT_HEAD, c->keywords, c->keywords_len);
	return 0;
}

int store_category_get(struct store *s, MDB_txn *txn, const char *name,
		       size_t len, struct store_category *ret)
{
	if (!s || !txn || !ret || !name_ok(name, len))
		return SC_E_INVAL;
	if (!s->has_focus)
		return SC_E_NOTFOUND;
	unsigned char k[KEY_MAX];
	MDB_val key = { make_key(k, 'c', NULL, name, len), k }, val;
	int rc = mdb_get(txn, s->focus, &key, &val);
	if (rc)
		return store_db_error(rc);
	const unsigned char *v = val.mv_data;
	size_t head = val.mv_size ? (v[0] == 1               ? CAT_HEAD_V1
				     : v[0] == 2             ? CAT_HEAD_V2
				     : v[0] == FOCUS_VERSION ? CAT_HEAD
							     : 0)
				  : 0;
	if (!head || val.mv_size < head)
		return SC_E_CORRUPT;
	uint64_t bits = get_be64(v + 6);
	double min, pm = 0.0, mh = 0.0;
	memcpy(&min, &bits, sizeof(min));
	if (head >= CAT_HEAD_V2) {
		bits = get_be64(v + 15);
		memcpy(&pm, &bits, sizeof(pm));
	}
	if (head == CAT_HEAD) {
		bits = get_be64(v + 24);
		memcpy(&mh, &bits, sizeof(mh));
	}
	if (!(min >= 0.0 && min <= 1.0) || !(pm >= 0.0 && pm <= 1.0) ||
	    !(mh >= 0.0 && mh <= 1.0) || (head >= CAT_HEAD_V2 && v[14] > 2) ||
	    (head == CAT_HEAD && v[23] > 1))
		return SC_E_CORRUPT;
	*ret = (struct store_category){
		.name = name,
		.name_len = len,
		.keywords = (const char *)v + head,
		.keywords_len = val.mv_size - head,
		.scope = v[1],
		.tunnel = get_be32(v + 2),
		.min_relevance = min,
		.has_predict = head >= CAT_HEAD_V2 && v[14] < 2,
		.predict = head >= CAT_HEAD_V2 && v[14] == 1,
		.predict_min = pm,
		.has_min_harvest = head == CAT_HEAD && v[23] == 1,
		.min_harvest = mh,
	};
	return 0;
}

int store_focus_count_add(struct store *s, MDB_txn *txn, const char *name,
			  size_t len, const uint64_t add[STORE_FOCUS_COUNTERS])
{
	if (!s || !txn || !add || !name_ok(name, len) || !s->has_focus)
		return SC_E_INVAL;
	uint64_t now[STORE_FOCUS_COUNTERS];
	int rc = store_focus_count_get(s, txn, name, len, now);
	if (rc)
		return rc;
	unsigned char k[KEY_MAX], v[8 * STORE_FOCUS_COUNTERS];
	for (size_t i = 0; i < STORE_FOCUS_COUNTERS; i++)
		put_be64(v + 8 * i, now[i] + add[i]);
	MDB_val key = { make_key(k, 'n', NULL, name, len), k };
	MDB_val val = { sizeof(v), v };
	rc = mdb_put(txn, s->focus, &key, &val, 0);
	return rc ? store_db_error(rc) : 0;
}

int store_focus_count_get(struct store *s, MDB_txn *txn, const char *name,
			  size_t len, uint64_t ret[STORE_FOCUS_COUNTERS])
{
	if (!s || !txn || !ret || !name_ok(name, len))
		return SC_E_INVAL;
	memset(ret, 0, STORE_FOCUS_COUNTERS * sizeof(*ret));
	if (!s->has_focus)
		return 0;
	unsigned char k[KEY_MAX];
	MDB_val key = { make_key(k, 'n', NULL, name, len), k }, val;
	int rc = mdb_get(txn, s->focus, &key, &val);
	if (rc == MDB_NOTFOUND)
		return 0;
	if (rc)
		return store_db_error(rc);
	/* A store of an older version kept fewer counters (3 at first):
	 * the others read 0.  More than this version knows is not ours. */
	if (val.mv_size % 8 || val.mv_size < 8 * 3 ||
	    val.mv_size > 8 * STORE_FOCUS_COUNTERS)
		return SC_E_CORRUPT;
	for (size_t i = 0; i < val.mv_size / 8; i++)
		ret[i] = get_be64((const unsigned char *)val.mv_data + 8 * i);
	return 0;
}

int store_also_add(struct store *s, MDB_txn *txn,
		   const unsigned char key[SC_KEY_LEN], const char *name,
		   size_t len)
{
	if (!s || !txn || !key || !name_ok(name, len) || !s->has_focus)
		return SC_E_INVAL;
	unsigned char k[KEY_MAX];
	MDB_val mk = { make_key(k, 'a', key, name, len), k }, val = { 0, "" };
	int rc = mdb_put(txn, s->focus, &mk, &val, MDB_NOOVERWRITE);
	if (rc == MDB_KEYEXIST)
		return 0;
	return rc ? store_db_error(rc) : 1;
}

/* Calls fn for every key with the tag, in key order. */
static int each(struct store *s, MDB_txn *txn, char tag,
		int (*fn)(void *, const MDB_val *), void *arg)
{
	if (!s->has_focus)
		return 0;
	MDB_cursor *c;
	int rc = mdb_cursor_open(txn, s->focus, &c);
	if (rc)
		return store_db_error(rc);
	unsigned char t = (unsigned char)tag;
	MDB_val key = { 1, &t }, val;
	int stop = 0;
	rc = mdb_cursor_get(c, &key, &val, MDB_SET_RANGE);
	while (rc == 0 && key.mv_size > 1 &&
	       *(const unsigned char *)key.mv_data == t) {
		if ((stop = fn(arg, &key)))
			break;
		rc = mdb_cursor_get(c, &key, &val, MDB_NEXT);
	}
	mdb_cursor_close(c);
	if (stop)
		return stop;
	return rc == 0 || rc == MDB_NOTFOUND ? 0 : store_db_error(rc);
}

struct each_ctx {
	int (*also)(void *, const unsigned char *, const char *, size_t);
	int (*cat)(void *, const char *, size_t);
	void *arg;
};

static int also_one(void *arg, const MDB_val *key)
{
	struct each_ctx *e = arg;
	const unsigned char *k = key->mv_data;
	if (key->mv_size <= 1 + SC_KEY_LEN)
		return SC_E_CORRUPT;
	return e->also(e->arg, k + 1, (const char *)k + 1 + SC_KEY_LEN,
		       key->mv_size - 1 - SC_KEY_LEN);
}

int store_also_foreach(struct store *s, MDB_txn *txn,
		       int (*fn)(void *arg, const unsigned char key[SC_KEY_LEN],
				 const char *name, size_t len),
		       void *arg)
{
	if (!s || !txn || !fn)
		return SC_E_INVAL;
	struct each_ctx e = { .also = fn, .arg = arg };
	return each(s, txn, 'a', also_one, &e);
}

static int cat_one(void *arg, const MDB_val *key)
{
	struct each_ctx *e = arg;
	return e->cat(e->arg, (const char *)key->mv_data + 1, key->mv_size - 1);
}

int store_category_foreach(struct store *s, MDB_txn *txn,
			   int (*fn)(void *arg, const char *name, size_t len),
			   void *arg)
{
	if (!s || !txn || !fn)
		return SC_E_INVAL;
	struct each_ctx e = { .cat = fn, .arg = arg };
	return each(s, txn, 'c', cat_one, &e);
}
