/* robots-cache.c — the robots.txt cache: the last answer of each
 * robots.txt the crawl fetched, so a restarted crawl does not ask every
 * host again (see store.h).
 *
 * The database keeps the name "frontier.robots" and the value layout it
 * had when the frontier owned it, so stores written before the cache moved
 * here read (and resume) as they did.  Value: version (1), fetched_at (8),
 * expires_at (8), status (2), URL length (2), the URL, the body; integers
 * big-endian.  The URL is kept to tell a hash collision from a hit. */
#include <string.h>

#include "sc.h"
#include "store-int.h"

#define ROBOTS_DB "frontier.robots"
#define ROBOTS_VERSION 1
#define ROBOTS_HEAD 21

int store_robots_open(struct store *s, MDB_txn *txn, bool create)
{
	return store_dbi_open_opt(txn, ROBOTS_DB, 0, create, &s->robots,
				  &s->has_robots);
}

int store_robots_put(struct store *s, MDB_txn *txn, const char *url, size_t len,
		     const struct store_robots *r)
{
	if (!s || !txn || !url || !r || !s->has_robots || r->status < 100 ||
	    r->status > 999 || r->body_len > SC_ROBOTS_MAX_BYTES ||
	    (r->body_len && !r->body))
		return SC_E_INVAL;
	if (len == 0 || len > STORE_ROBOTS_URL_MAX)
		return SC_E_TOOLONG;
	unsigned char key[SC_KEY_LEN];
	sc_url_key(url, len, key);
	MDB_val k = { SC_KEY_LEN, key };
	MDB_val v = { ROBOTS_HEAD + len + r->body_len, NULL };
	int rc = mdb_put(txn, s->robots, &k, &v, MDB_RESERVE);
	if (rc)
		return store_db_error(rc);
	unsigned char *p = v.mv_data;
	p[0] = ROBOTS_VERSION;
	put_be64(p + 1, (uint64_t)r->fetched_at);
	put_be64(p + 9, (uint64_t)r->expires_at);
	put_be16(p + 17, (uint16_t)r->status);
	put_be16(p + 19, (uint16_t)len);
	memcpy(p + ROBOTS_HEAD, url, len);
	if (r->body_len)
		memcpy(p + ROBOTS_HEAD + len, r->body, r->body_len);
	return 0;
}

int store_robots_get(struct store *s, MDB_txn *txn, const char *url, size_t len,
		     struct store_robots *ret)
{
	if (!s || !txn || !url || !ret)
		return SC_E_INVAL;
	if (!s->has_robots)
		return SC_E_NOTFOUND;
	unsigned char key[SC_KEY_LEN];
	sc_url_key(url, len, key);
	MDB_val k = { SC_KEY_LEN, key }, v;
	int rc = mdb_get(txn, s->robots, &k, &v);
	if (rc)
		return store_db_error(rc);
	const unsigned char *p = v.mv_data;
	if (v.mv_size < ROBOTS_HEAD || p[0] != ROBOTS_VERSION)
		return SC_E_CORRUPT;
	size_t ulen = get_be16(p + 19);
	if (ROBOTS_HEAD + ulen > v.mv_size ||
	    v.mv_size - ROBOTS_HEAD - ulen > SC_ROBOTS_MAX_BYTES)
		return SC_E_CORRUPT;
	if (ulen != len || memcmp(p + ROBOTS_HEAD, url, len) != 0)
		return SC_E_NOTFOUND; /* another URL with the same key */
	ret->fetched_at = (int64_t)get_be64(p + 1);
	ret->expires_at = (int64_t)get_be64(p + 9);
	ret->status = get_be16(p + 17);
	ret->body = (const char *)p + ROBOTS_HEAD + ulen;
	ret->body_len = v.mv_size - ROBOTS_HEAD - ulen;
	return 0;
}
