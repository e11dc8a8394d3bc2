/* adapt-hold.c — what the active rules do to the crawl (the design is
 * told at the top of adapt.c): which rules change a URL (changing_rules(),
 * adapt_why()); a new link held back onto a known key, or fetched under
 * its own form as an audit (adapt_hold(), audit_due()); a retired rule's
 * held URLs queued again (retire()); the keys of pages fetched under
 * another form covered when a rule turns on (cover_host(),
 * cover_one_as(), adapt_linked(), adapt_cover_of()); and the keys whose
 * page is bad, gone, a soft 404 or a redirect elsewhere: the URLs held onto
 * them released as audits (release_key(), key_bad()) and the audits'
 * answers read (audit_bad(), audit_counter(), audit_end(), key_target()). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapt-int.h"

/* A rules' key onto which this many URLs are held is audited again, and
 * at every doubling of the count (audit_due()). */
#define HEAVY_KEY 4

/* ---- Which rules hold a URL ------------------------------------------ */

/* The ids of the active rules of url's host (and its site's, for an
 * alias) that change url alone, into ids[] (at most HELD_RULES_MAX). */
static size_t changing_rules(struct adapt *a, const char *url, size_t len,
			     bool retired_too, uint32_t *ids)
{
	struct norm_url u;
	if (norm_split(url, len, &u))
		return 0;
	size_t n = 0;
	const char *host = url + u.host_off;
	size_t hl = u.host_len;
	for (int round = 0; round < 2; round++) {
		pthread_mutex_lock(&a->mu);
		const struct ahost *h = host_find(a, host, hl);
		pthread_mutex_unlock(&a->mu);
		if (!h)
			break;
		const char *next = NULL;
		for (size_t i = 0; i < h->n_rules && n < HELD_RULES_MAX; i++) {
			const struct arule *r = &a->rules[h->rules[i]];
			if (strcmp(r->scope, h->name) != 0 ||
			    (r->state != ADAPT_ACTIVE &&
			     !(retired_too && r->state == ADAPT_RETIRED)) ||
			    !rule_covers(r, url, &u))
				continue;
			char out[NORM_URL_MAX + 1];
			struct norm_url ou;
			if (norm_rule_apply(&r->r, url, len, out, sizeof(out),
					    &ou) ||
			    (ou.len == len && memcmp(out, url, len) == 0))
				continue;
			ids[n++] = h->rules[i];
			if (r->r.kind == NORM_RULE_ALIAS &&
			    r->state == ADAPT_ACTIVE)
				next = r->r.a;
		}
		if (!next)
			break;
		host = next;
		hl = strlen(next);
	}
	return n;
}

void adapt_why(struct adapt *a, const char *url, size_t len, char *out,
	       size_t cap)
{
	uint32_t ids[HELD_RULES_MAX];
	size_t n = changing_rules(a, url, len, true, ids);
	size_t at = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		char d[512];
		if (norm_rule_describe(&a->rules[ids[i]].r, d, sizeof(d)))
			continue;
		int w = snprintf(out + at, cap - at, "%s%s", at ? "; " : "", d);
		if (w < 0 || (size_t)w >= cap - at)
			break;
		at += (size_t)w;
	}
}

/* ---- Held URLs -------------------------------------------------------- */

/* Whether a new link held onto the rules' key kkey ('k' and its
 * sc_url_key()) is to be audited instead.  The audit samples documents,
 * as support counts them: a share of the keys, chosen by the key (the
 * same ones in every run), has the first URL held onto it fetched under
 * its own form; ten variants of one page are one test of the rules, not
 * ten.  And a key onto which many URLs are held, where a wrong rule would
 * lose the most, has its HEAVY_KEY-th URL audited, then each time the
 * count doubles.  Returns 1, 0, or a store error. */
static int audit_due(struct adapt *a, MDB_txn *txn,
		     const unsigned char kkey[17], const uint32_t *ids,
		     size_t n)
{
	if (a->o.audit_share <= 0)
		return 0;
	uint64_t kh = get_be64(kkey + 1);
	bool added;
	struct tval *t = tab_put(&a->audited, kh, &added);
	if (!t)
		return SC_E_NOMEM;
	if (t->a < UINT32_MAX)
		t->a++;
	bool due = false;
	if (!t->b && (double)(kh % 1000000) / 1e6 < a->o.audit_share) {
		t->b = 1;
		due = true;
	}
	if (t->a == HEAVY_KEY) {
		for (size_t i = 0; i < n; i++) {
			struct arule *r = &a->rules[ids[i]];
			due = due || !r->heavy_audited;
			r->heavy_audited = true;
		}
	}
	/* Every rule is audited from its first key on, and again at
	 * least once per audit_every keys it holds URLs onto: no rule
	 * holds many URLs unaudited because the sample missed its keys. */
	if (t->a == 1) {
		for (size_t i = 0; i < n; i++) {
			struct arule *r = &a->rules[ids[i]];
			r->keys++;
			mark_dirty(a, r);
			due = due || r->keys > r->audits * a->audit_every;
		}
	}
	unsigned char v[5];
	put_be32(v, (uint32_t)t->a);
	v[4] = (unsigned char)t->b;
	int rc = store_adapt_put(a->s, txn, kkey, 17, v, sizeof(v));
	return rc ? rc : due;
}

/* A held entry ('h' key) naming rule ids (not indices): the claims'
 * merges name CLAIM_RULE_ID. */
int held_put_raw(struct adapt *a, MDB_txn *txn, const unsigned char *key,
		 const struct frontier_url *fu, unsigned flags,
		 const char *strict, size_t sl, const uint32_t *rule_ids,
		 size_t n)
{
	unsigned char v[HELD_HEAD + 4 * HELD_RULES_MAX + 2 + 2 * NORM_URL_MAX +
			NORM_INPUT_MAX];
	size_t found_len = fu->found_len > NORM_INPUT_MAX ? 0 : fu->found_len;
	unsigned char *p = v;
	p[0] = (unsigned char)flags;
	put_be16(p + 1, fu->depth);
	put_be16(p + 3, fu->category);
	p[5] = fu->offtopic;
	p[6] = fu->redirects;
	p[7] = (unsigned char)n;
	p += HELD_HEAD;
	for (size_t i = 0; i < n; i++, p += 4)
		put_be32(p, rule_ids[i]);
	put_be16(p, (uint16_t)found_len);
	p += 2;
	memcpy(p, fu->found, found_len);
	p += found_len;
	memcpy(p, strict, sl);
	p += sl;
	int rc = store_adapt_put(a->s, txn, key, 17, v, (size_t)(p - v));
	if (rc || (flags & (ADAPT_HOLD_QUEUED | HOLD_COVER)))
		return rc;
	/* Indexed by the rules' key, for release_key(). */
	unsigned char ix[33] = { 'H' };
	sc_url_key(fu->url, fu->url_len, ix + 1);
	memcpy(ix + 17, key + 1, 16);
	return store_adapt_put(a->s, txn, ix, sizeof(ix), "", 0);
}

static int held_put(struct adapt *a, MDB_txn *txn, const unsigned char *key,
		    const struct frontier_url *fu, unsigned flags,
		    const char *strict, size_t sl, const uint32_t *ids,
		    size_t n)
{
	uint32_t rids[HELD_RULES_MAX];
	for (size_t i = 0; i < n && i < HELD_RULES_MAX; i++)
		rids[i] = a->rules[ids[i]].id;
	return held_put_raw(a, txn, key, fu, flags, strict, sl, rids,
			    n < HELD_RULES_MAX ? n : HELD_RULES_MAX);
}

/* A key's bad answer ('A' values and the head of 'b' ones): its status,
 * 404, 410, 200 for a soft 404, 3xx for a redirect elsewhere (where it
 * led is its record's: key_target()), 0 for a key an audit proved wrong.
 * A 'b' value adds how many URLs held onto the key were released to
 * test it, and whether one of them proved it wrong (a page of its own),
 * which releases them all. */
#define BAD_LEN 2
#define BAD_VAL (BAD_LEN + 2)
/* URLs held onto a bad key fetched to test it, until one proves it
 * wrong: a key whose page is gone because the rules are right (every
 * form of it gone) costs this many fetches, not one per form. */
#define RELEASE_MAX 1
static int key_bad(struct adapt *a, MDB_txn *txn, const char *key, size_t klen,
		   unsigned char *bad);
static int audit_mark(struct adapt *a, MDB_txn *txn, const char *strict,
		      size_t sl, const uint32_t *ids, size_t n,
		      const unsigned char *bad);

int adapt_hold(struct adapt *a, MDB_txn *txn, const char *strict,
	       size_t strict_len, const struct frontier_url *fu, unsigned flags,
	       bool *audit)
{
	bool leased = flags & ADAPT_HOLD_LEASED;
	bool queued = flags & ADAPT_HOLD_QUEUED;
	*audit = false;
	unsigned char key[17] = { 'h' };
	sc_url_key(strict, strict_len, key + 1);
	const void *v;
	size_t vl;
	int rc = store_adapt_get(a->s, txn, key, sizeof(key), &v, &vl);
	if (rc == 0)
		return 0; /* held already */
	if (rc != SC_E_NOTFOUND)
		return rc;
	unsigned char akey[17];
	memcpy(akey, key, sizeof(akey));
	akey[0] = 'a';
	if ((rc = store_adapt_get(a->s, txn, akey, sizeof(akey), &v, &vl)) !=
	    SC_E_NOTFOUND)
		return rc ? rc : 0; /* an audit under way */
	uint32_t ids[HELD_RULES_MAX];
	size_t n = changing_rules(a, strict, strict_len, false, ids);
	if (!n)
		return 0; /* no rule of this host maps it any more */
	/* Onto a key whose page is gone or a soft 404: not held, but
	 * fetched as an audit of the rules that map it there. */
	unsigned char bad[BAD_LEN];
	if (!leased && !queued &&
	    (rc = key_bad(a, txn, fu->url, fu->url_len, bad)) != 0) {
		if (rc < 0)
			return rc;
		if (rc == 1) {
			*audit = true;
			rc = audit_mark(a, txn, strict, strict_len, ids, n,
					bad);
			if (!rc)
				rc = save_dirty(a, txn);
			return rc ? rc : 1;
		}
	}
	/* The audit: fetched under its own form (audit_due()). */
	unsigned char kkey[17] = { 'k' };
	sc_url_key(fu->url, fu->url_len, kkey + 1);
	if (!leased && !queued && (rc = audit_due(a, txn, kkey, ids, n)) < 0)
		return rc;
	if (!leased && !queued && rc == 1) {
		bool added;
		unsigned char ids_v[4 * HELD_RULES_MAX];
		for (size_t i = 0; i < n; i++) {
			put_be32(ids_v + 4 * i, a->rules[ids[i]].id);
			a->rules[ids[i]].audits++;
			mark_dirty(a, &a->rules[ids[i]]);
		}
		pthread_mutex_lock(&a->mu);
		a->st.audits++;
		struct tval *t = tab_put(&a->audit_ix, get_be64(akey + 1),
					 &added);
		if (t)
			t->a = 1;
		pthread_mutex_unlock(&a->mu);
		if (!t)
			return SC_E_NOMEM;
		*audit = true;
		rc = store_adapt_put(a->s, txn, akey, sizeof(akey), ids_v,
				     4 * n);
		if (!rc)
			rc = save_dirty(a, txn);
		return rc ? rc : 1;
	}
	if ((rc = held_put(a, txn, key, fu, flags, strict, strict_len, ids, n)))
		return rc;
	for (size_t i = 0; i < n; i++) {
		a->rules[ids[i]].held++;
		a->rules[ids[i]].saved += !queued;
		mark_dirty(a, &a->rules[ids[i]]);
	}
	if (!queued) {
		pthread_mutex_lock(&a->mu);
		a->st.saved++;
		pthread_mutex_unlock(&a->mu);
	}
	rc = save_dirty(a, txn);
	return rc ? rc : 1;
}

/* ---- Retiring --------------------------------------------------------- */

struct held_entry {
	unsigned char key[17];
	unsigned char *val;
	size_t len;
};

struct held_scan {
	uint32_t id;
	const char *host; /* only this host's URLs; NULL: any */
	struct held_entry *v;
	size_t n, cap;
};

static int collect_held(void *arg, const void *key, size_t klen,
			const void *val, size_t vlen)
{
	struct held_scan *hs = arg;
	const unsigned char *p = val;
	if (klen != 17 || vlen < HELD_HEAD || vlen < HELD_HEAD + 4u * p[7] + 2)
		return SC_E_CORRUPT;
	bool mine = false;
	for (size_t i = 0; i < p[7] && !mine; i++)
		mine = get_be32(p + HELD_HEAD + 4 * i) == hs->id;
	if (!mine)
		return 0;
	if (hs->host) {
		const unsigned char *q = p + HELD_HEAD + 4 * p[7];
		size_t fl = get_be16(q);
		struct norm_url u;
		if ((size_t)(q + 2 - p) + fl >= vlen)
			return SC_E_CORRUPT;
		const char *strict = (const char *)q + 2 + fl;
		size_t sl = vlen - (size_t)(q + 2 - p) - fl;
		if (norm_split(strict, sl, &u) ||
		    u.host_len != strlen(hs->host) ||
		    memcmp(strict + u.host_off, hs->host, u.host_len) != 0)
			return 0;
	}
	if (hs->n == hs->cap) {
		size_t cap = hs->cap ? 2 * hs->cap : 64;
		struct held_entry *nv = realloc(hs->v, cap * sizeof(*nv));
		if (!nv)
			return SC_E_NOMEM;
		hs->v = nv;
		hs->cap = cap;
	}
	struct held_entry *e = &hs->v[hs->n];
	memcpy(e->key, key, 17);
	if (!(e->val = malloc(vlen)))
		return SC_E_NOMEM;
	memcpy(e->val, val, vlen);
	e->len = vlen;
	hs->n++;
	return 0;
}

/* Queue one held URL again: under the key the rules still active give it,
 * unless one of them still holds it. */
static int requeue(struct adapt *a, MDB_txn *txn, const struct held_entry *e)
{
	const unsigned char *p = e->val;
	size_t nid = p[7];
	const unsigned char *q = p + HELD_HEAD + 4 * nid;
	size_t found_len = get_be16(q);
	q += 2;
	if ((size_t)(q - p) + found_len >= e->len)
		return SC_E_CORRUPT;
	const char *found = (const char *)q;
	const char *strict = found + found_len;
	size_t sl = e->len - (size_t)(q - p) - found_len;
	char key[NORM_URL_MAX + 1];
	struct norm_url ku;
	int keyed = adapt_key(a, strict, sl, key, &ku);
	int rc;
	if (keyed < 0) /* cannot be keyed: it never could be fetched */
		return store_adapt_del(a->s, txn, e->key, 17);
	struct frontier_url fu = {
		.url = key,
		.url_len = ku.len,
		.u = &ku,
		.found = found_len && !(p[0] & HOLD_COVER) ? found : strict,
		.found_len = found_len && !(p[0] & HOLD_COVER) ? found_len : sl,
		.depth = get_be16(p + 1),
		.category = get_be16(p + 3),
		.offtopic = p[5],
		.redirects = p[6],
	};
	if ((rc = store_adapt_del(a->s, txn, e->key, 17)))
		return rc;
	if (p[0] & HOLD_COVER) {
		pthread_mutex_lock(&a->mu);
		struct tval *t = tab_get(&a->cover_ix, get_be64(e->key + 1));
		if (t)
			t->a = 0;
		pthread_mutex_unlock(&a->mu);
		/* A key nobody linked is not fetched: out of the seen set,
		 * a link to it later queues it. */
		if (!(p[0] & HOLD_LINKED)) {
			rc = frontier_forget(a->fr, txn, strict, sl);
			return rc < 0 ? rc : 0;
		}
	}
	if (keyed == 1) {
		/* Another active rule maps it: held still, by that one. */
		int seen = frontier_seen(a->fr, txn, key, ku.len);
		if (seen < 0)
			return seen;
		if (seen) {
			uint32_t ids[HELD_RULES_MAX];
			size_t n = changing_rules(a, strict, sl, false, ids);
			if (n)
				return held_put(a, txn, e->key, &fu, p[0],
						strict, sl, ids, n);
		}
	}
	a->st.requeued++;
	if (p[0] || ku.len != sl || memcmp(key, strict, sl) != 0) {
		rc = frontier_add(a->fr, txn, &fu);
		if (rc == 0 && (p[0] & ADAPT_HOLD_LEASED))
			rc = frontier_requeue(a->fr, txn, &fu);
		return rc < 0 ? rc : 0;
	}
	rc = frontier_add(a->fr, txn, &fu);
	return rc < 0 ? rc : 0;
}

/* Queue again the URLs held by rule id (of host, or of any when NULL). */
int retire_id(struct adapt *a, MDB_txn *txn, uint32_t id, const char *host)
{
	struct held_scan hs = { .id = id, .host = host };
	int rc = store_adapt_scan(a->s, txn, "h", 1, collect_held, &hs);
	for (size_t i = 0; i < hs.n && !rc; i++)
		rc = requeue(a, txn, &hs.v[i]);
	for (size_t i = 0; i < hs.n; i++)
		free(hs.v[i].val);
	free(hs.v);
	return rc;
}

int retire(struct adapt *a, MDB_txn *txn, struct arule *r)
{
	int rc = retire_id(a, txn, r->id, NULL);
	if (!rc) {
		r->held = 0;
		mark_dirty(a, r);
	}
	return rc;
}

/* ---- Covered keys ---------------------------------------------------- */

/* A rule turned on: every page its host fetched before under a form the
 * rules now rewrite has its key marked seen, so that the key, found
 * later, is not fetched again.  The key is kept as held by the rules
 * that map the page onto it (leased: it is in the seen set), so that
 * their retirement fetches it after all. */
struct cover {
	struct adapt *a;
	MDB_txn *txn;
};

static int cover_one(struct adapt *a, MDB_txn *txn, const char *url, size_t len,
		     uint16_t depth, uint16_t cat);

static int cover_page(void *arg, const void *key, size_t klen, const void *val,
		      size_t vlen)
{
	struct cover *cv = arg;
	struct adapt *a = cv->a;
	(void)key;
	if (klen != 25 || vlen <= PAGE_HEAD || vlen > PAGE_HEAD + NORM_URL_MAX)
		return SC_E_CORRUPT;
	const unsigned char *v = val;
	return cover_one(a, cv->txn, (const char *)v + PAGE_HEAD,
			 vlen - PAGE_HEAD, get_be16(v + 16), get_be16(v + 18));
}

static int cover_one(struct adapt *a, MDB_txn *txn, const char *url, size_t len,
		     uint16_t depth, uint16_t cat)
{
	return cover_one_as(a, txn, url, len, NULL, 0, depth, cat);
}

/* cover_one() for a page recorded under key (NULL: under url): its own
 * key needs no cover. */
int cover_one_as(struct adapt *a, MDB_txn *txn, const char *url, size_t len,
		 const char *own, size_t own_len, uint16_t depth, uint16_t cat)
{
	char k[NORM_URL_MAX + 1];
	struct norm_url ku;
	if (adapt_key(a, url, len, k, &ku) != 1 ||
	    (own && ku.len == own_len && memcmp(k, own, own_len) == 0))
		return 0;
	int rc = frontier_mark_seen(a->fr, txn, k, ku.len, cat);
	if (rc < 0)
		return rc;
	/* Known already, as a form linked or as the key of other forms:
	 * which, the seen set does not say.  A link to it marks it linked
	 * (adapt_linked()); a lease of it under another form found keeps
	 * that form held (the writer's write_held()). */
	unsigned flags = ADAPT_HOLD_LEASED | HOLD_COVER;
	if (rc == 0) {
		/* Known: fetched itself (then nothing to do), or queued and
		 * not fetched yet (then it is not to be). */
		unsigned char rk[SC_KEY_LEN];
		struct store_record r;
		sc_url_key(k, ku.len, rk);
		rc = store_get(a->s, txn, rk, &r);
		if (rc == 0 && r.fetched)
			return 0;
		if (rc && rc != SC_E_NOTFOUND)
			return rc;
	}
	uint32_t ids[HELD_RULES_MAX];
	size_t n = changing_rules(a, url, len, false, ids);
	if (!n)
		return 0;
	/* Its found form names the record that holds the document: the
	 * key the page was recorded under (adapt_cover_of()). */
	struct frontier_url fu = {
		.url = k,
		.url_len = ku.len,
		.u = &ku,
		.found = own ? own : url,
		.found_len = own ? own_len : len,
		.depth = depth,
		.category = cat,
	};
	unsigned char hkey[17] = { 'h' };
	sc_url_key(k, ku.len, hkey + 1);
	if ((rc = held_put(a, txn, hkey, &fu, flags, k, ku.len, ids, n)))
		return rc;
	pthread_mutex_lock(&a->mu);
	bool added;
	struct tval *t = tab_put(&a->cover_ix, get_be64(hkey + 1), &added);
	if (t)
		t->a = 1;
	pthread_mutex_unlock(&a->mu);
	return t ? 0 : SC_E_NOMEM;
}

int cover_host(struct adapt *a, MDB_txn *txn, const char *host)
{
	unsigned char prefix[9] = { PAGE_BYTE };
	put_be64(prefix + 1, hash_str(host, strlen(host)));
	struct cover cv = { a, txn };
	return store_adapt_scan(a->s, txn, prefix, sizeof(prefix), cover_page,
				&cv);
}

void page_key(const char *url, size_t len, const struct norm_url *u,
	      unsigned char key[PAGE_KEY_LEN])
{
	key[0] = PAGE_BYTE;
	put_be64(key + 1, hash_str(url + u->host_off, u->host_len));
	sc_url_key(url, len, key + 9);
}

int cover_get(struct adapt *a, MDB_txn *txn, const char *url, size_t len,
	      unsigned char hkey[17], const void **v, size_t *vl)
{
	hkey[0] = 'h';
	sc_url_key(url, len, hkey + 1);
	pthread_mutex_lock(&a->mu);
	const struct tval *t = tab_get(&a->cover_ix, get_be64(hkey + 1));
	bool covered = t && t->a;
	pthread_mutex_unlock(&a->mu);
	if (!covered)
		return 0;
	int rc = store_adapt_get(a->s, txn, hkey, 17, v, vl);
	if (rc)
		return rc == SC_E_NOTFOUND ? 0 : rc;
	const unsigned char *p = *v;
	return *vl >= 1 && (p[0] & HOLD_COVER) && !(p[0] & HOLD_LINKED);
}

int adapt_linked(struct adapt *a, MDB_txn *txn, const char *url, size_t len)
{
	unsigned char hkey[17];
	const void *v;
	size_t vl;
	int rc = cover_get(a, txn, url, len, hkey, &v, &vl);
	if (rc <= 0)
		return rc;
	unsigned char *nv = malloc(vl);
	if (!nv)
		return SC_E_NOMEM;
	memcpy(nv, v, vl);
	nv[0] |= HOLD_LINKED;
	rc = store_adapt_put(a->s, txn, hkey, sizeof(hkey), nv, vl);
	free(nv);
	return rc;
}

int adapt_cover_of(struct adapt *a, MDB_txn *txn, const char *key, size_t len,
		   char *out, size_t cap)
{
	unsigned char hkey[17] = { 'h' };
	sc_url_key(key, len, hkey + 1);
	const void *v;
	size_t vl;
	int rc = store_adapt_get(a->s, txn, hkey, sizeof(hkey), &v, &vl);
	if (rc)
		return rc;
	const unsigned char *p = v;
	if (vl < HELD_HEAD || !(p[0] & HOLD_COVER) ||
	    vl < HELD_HEAD + 4u * p[7] + 2)
		return SC_E_NOTFOUND;
	const unsigned char *q = p + HELD_HEAD + 4 * p[7];
	size_t fl = get_be16(q);
	if ((size_t)(q + 2 - p) + fl > vl || fl >= cap)
		return SC_E_CORRUPT;
	memcpy(out, q + 2, fl);
	out[fl] = '\0';
	return 0;
}

/* ---- Keys whose page is gone ---------------------------------------- */

struct ix_scan {
	unsigned char (*v)[17];
	size_t n, cap;
};

static int collect_ix(void *arg, const void *key, size_t klen, const void *val,
		      size_t vlen)
{
	struct ix_scan *x = arg;
	(void)val;
	(void)vlen;
	if (klen != 33)
		return SC_E_CORRUPT;
	if (x->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 16;
		unsigned char(*v)[17] = realloc(x->v, cap * sizeof(*v));
		if (!v)
			return SC_E_NOMEM;
		x->v = v;
		x->cap = cap;
	}
	x->v[x->n][0] = 'h';
	memcpy(x->v[x->n] + 1, (const unsigned char *)key + 17, 16);
	x->n++;
	return 0;
}

/* Mark an audit under way of strict (its 'a' entry, the rules' ids) and,
 * when bad is not NULL, the bad answer of the key it was held onto. */
static int audit_mark(struct adapt *a, MDB_txn *txn, const char *strict,
		      size_t sl, const uint32_t *ids, size_t n,
		      const unsigned char *bad)
{
	unsigned char akey[17] = { 'a' };
	unsigned char ids_v[4 * HELD_RULES_MAX];
	sc_url_key(strict, sl, akey + 1);
	for (size_t i = 0; i < n; i++) {
		put_be32(ids_v + 4 * i, a->rules[ids[i]].id);
		a->rules[ids[i]].audits++;
		mark_dirty(a, &a->rules[ids[i]]);
	}
	bool added;
	pthread_mutex_lock(&a->mu);
	a->st.audits++;
	struct tval *t = tab_put(&a->audit_ix, get_be64(akey + 1), &added);
	if (t)
		t->a = 1;
	pthread_mutex_unlock(&a->mu);
	if (!t)
		return SC_E_NOMEM;
	int rc = store_adapt_put(a->s, txn, akey, sizeof(akey), ids_v, 4 * n);
	if (!rc && bad) {
		akey[0] = 'A';
		rc = store_adapt_put(a->s, txn, akey, sizeof(akey), bad,
				     BAD_LEN);
	}
	return rc;
}

/* One held URL (its 'h' entry e) fetched after all, under its own form,
 * as an audit of the rules that held it: their key's page was bad. */
static int release_one(struct adapt *a, MDB_txn *txn,
		       const struct held_entry *e, const unsigned char *bad)
{
	const unsigned char *p = e->val;
	size_t nid = p[7];
	const unsigned char *q = p + HELD_HEAD + 4 * nid;
	size_t found_len = get_be16(q);
	q += 2;
	if ((size_t)(q - p) + found_len >= e->len)
		return SC_E_CORRUPT;
	const char *found = (const char *)q;
	const char *strict = found + found_len;
	size_t sl = e->len - (size_t)(q - p) - found_len;
	struct norm_url su;
	if (norm_split(strict, sl, &su))
		return store_adapt_del(a->s, txn, e->key, 17);
	uint32_t ids[HELD_RULES_MAX];
	size_t n = 0;
	for (size_t i = 0; i < nid && n < HELD_RULES_MAX; i++) {
		struct arule *r = find_rule(a, get_be32(p + HELD_HEAD + 4 * i));
		if (r)
			ids[n++] = (uint32_t)(r - a->rules);
	}
	struct frontier_url fu = {
		.url = strict,
		.url_len = su.len,
		.u = &su,
		.found = found_len ? found : strict,
		.found_len = found_len ? found_len : sl,
		.depth = get_be16(p + 1),
		.category = get_be16(p + 3),
		.offtopic = p[5],
		.redirects = p[6],
	};
	int rc = audit_mark(a, txn, strict, sl, ids, n, bad);
	if (!rc)
		rc = store_adapt_del(a->s, txn, e->key, 17);
	if (rc)
		return rc;
	a->st.requeued++;
	rc = frontier_add(a->fr, txn, &fu);
	if (rc == 0)
		rc = frontier_requeue(a->fr, txn, &fu);
	return rc < 0 && rc != SC_E_INVAL ? rc : 0;
}

/* The page of key (a rules' key) was bad: gone (404, 410), a soft 404
 * (status 200, its text generic), or a redirect elsewhere (3xx).  URLs
 * the rules held onto it are fetched
 * under their own forms, as audits whose answers are judged against that
 * (adapt_page(), adapt_failed(), adapt_redirect()): RELEASE_MAX of them,
 * or all once one proved the key wrong (all: a counter-example did). */
int release_key(struct adapt *a, MDB_txn *txn, const char *key, size_t klen,
		int status, bool all)
{
	unsigned char bkey[17] = { 'b' };
	unsigned char bad[BAD_VAL] = { 0 };
	sc_url_key(key, klen, bkey + 1);
	const void *v;
	size_t vl;
	int rc = store_adapt_get(a->s, txn, bkey, sizeof(bkey), &v, &vl);
	if (rc == 0 && vl == BAD_VAL) {
		memcpy(bad, v, BAD_VAL); /* its first answer stands */
	} else if (rc == 0 || rc == SC_E_NOTFOUND) {
		put_be16(bad, (uint16_t)status);
	} else {
		return rc;
	}
	if (all)
		bad[BAD_LEN + 1] = 1;
	unsigned char pre[17] = { 'H' };
	memcpy(pre + 1, bkey + 1, 16);
	struct ix_scan x = { 0 };
	rc = store_adapt_scan(a->s, txn, pre, sizeof(pre), collect_ix, &x);
	for (size_t i = 0; i < x.n && !rc; i++) {
		if (!bad[BAD_LEN + 1] && bad[BAD_LEN] >= RELEASE_MAX)
			break;
		unsigned char ix[33];
		memcpy(ix, pre, 17);
		memcpy(ix + 17, x.v[i] + 1, 16);
		if ((rc = store_adapt_del(a->s, txn, ix, sizeof(ix))))
			break;
		rc = store_adapt_get(a->s, txn, x.v[i], 17, &v, &vl);
		if (rc == SC_E_NOTFOUND) {
			rc = 0;
			continue;
		}
		const unsigned char *hv = v;
		if (rc || vl < HELD_HEAD + 2 ||
		    vl < HELD_HEAD + 4u * hv[7] + 2 ||
		    (hv[0] & (ADAPT_HOLD_QUEUED | HOLD_COVER)))
			continue;
		struct held_entry e;
		memcpy(e.key, x.v[i], 17);
		if (!(e.val = malloc(vl))) {
			rc = SC_E_NOMEM;
			break;
		}
		memcpy(e.val, v, vl);
		e.len = vl;
		rc = release_one(a, txn, &e, bad);
		free(e.val);
		if (bad[BAD_LEN] < UINT8_MAX)
			bad[BAD_LEN]++;
	}
	free(x.v);
	/* The rules' counts are saved by the gate() that follows: saving
	 * them here would clear the marks it goes by. */
	if (!rc)
		rc = store_adapt_put(a->s, txn, bkey, sizeof(bkey), bad,
				     BAD_VAL);
	return rc;
}

/* Is key's page known bad (release_key())?  Into bad (BAD_LEN) if so,
 * and 1 when one more URL held onto it is to be fetched to test it (it
 * is counted), else 2; 0 when it is not bad; or a store error. */
static int key_bad(struct adapt *a, MDB_txn *txn, const char *key, size_t klen,
		   unsigned char *bad)
{
	unsigned char bkey[17] = { 'b' };
	sc_url_key(key, klen, bkey + 1);
	const void *v;
	size_t vl;
	int rc = store_adapt_get(a->s, txn, bkey, sizeof(bkey), &v, &vl);
	if (rc == SC_E_NOTFOUND)
		return 0;
	if (rc)
		return rc;
	if (vl != BAD_VAL)
		return SC_E_CORRUPT;
	unsigned char b[BAD_VAL];
	memcpy(b, v, BAD_VAL);
	memcpy(bad, b, BAD_LEN);
	if (!b[BAD_LEN + 1] && b[BAD_LEN] >= RELEASE_MAX)
		return 2;
	if (b[BAD_LEN] < UINT8_MAX)
		b[BAD_LEN]++;
	rc = store_adapt_put(a->s, txn, bkey, sizeof(bkey), b, BAD_VAL);
	return rc ? rc : 1;
}

/* A counter-example to each rule of an audit's ids (an 'a' value): the
 * audited form and its key are different pages. */
void audit_counter(struct adapt *a, const void *ids, size_t vl, const char *url,
		   const char *key)
{
	const unsigned char *p = ids;
	for (size_t i = 0; i + 4 <= vl; i += 4) {
		struct arule *r = find_rule(a, get_be32(p + i));
		if (!r ||
		    (r->state != ADAPT_ACTIVE && r->state != ADAPT_CANDIDATE))
			continue;
		r->counters++;
		r->audit_fail++;
		note_counter(r, url, strlen(url), key);
		mark_dirty(a, r);
	}
}

/* The status of the bad key an audit (akey: 'a' and its key) was
 * released to test (its 'A' entry): 1 with *status, 0 when it was a
 * plain audit, or a store error. */
int audit_bad(struct adapt *a, MDB_txn *txn, const unsigned char akey[17],
	      unsigned *status)
{
	unsigned char bk[17] = { 'A' };
	memcpy(bk + 1, akey + 1, 16);
	const void *bv;
	size_t bl;
	int rc = store_adapt_get(a->s, txn, bk, sizeof(bk), &bv, &bl);
	if (rc)
		return rc == SC_E_NOTFOUND ? 0 : rc;
	if (bl != BAD_LEN)
		return SC_E_CORRUPT;
	*status = get_be16(bv);
	return 1;
}

/* The end of an audit of url: its 'a' entry and its key's bad answer
 * ('A'), if any, removed.  Returns 0 or a store error. */
int audit_end(struct adapt *a, MDB_txn *txn, const unsigned char *akey)
{
	unsigned char k[17];
	memcpy(k, akey, 17);
	int rc = store_adapt_del(a->s, txn, k, 17);
	if (rc && rc != SC_E_NOTFOUND)
		return rc;
	k[0] = 'A';
	rc = store_adapt_del(a->s, txn, k, 17);
	if (rc && rc != SC_E_NOTFOUND)
		return rc;
	pthread_mutex_lock(&a->mu);
	struct tval *t = tab_get(&a->audit_ix, get_be64(akey + 1));
	if (t)
		t->a = 0;
	pthread_mutex_unlock(&a->mu);
	return 0;
}

/* The key url's rules give it, into key (NORM_URL_MAX + 1): its length,
 * or 0 when none applies. */
size_t key_of(struct adapt *a, const char *url, size_t len, char *key)
{
	struct norm_url ku;
	return adapt_key(a, url, len, key, &ku) == 1 ? ku.len : 0;
}

/* Where the record of key (a rules' key) redirected, as the rules key it
 * now (the target itself when none changes it), into out (NORM_URL_MAX +
 * 1): its length, or 0 when key has no record that redirects.  Keys
 * compare under the rules of the moment: a target keyed when an alias or
 * a case rule was not yet active still meets its twin. */
size_t key_target(struct adapt *a, MDB_txn *txn, const char *key, size_t kl,
		  char *out)
{
	unsigned char rk[SC_KEY_LEN];
	struct store_record r;
	sc_url_key(key, kl, rk);
	if (store_get(a->s, txn, rk, &r) || !r.redirect || !r.redirect_len ||
	    r.redirect_len > NORM_URL_MAX)
		return 0;
	char t[NORM_URL_MAX + 1];
	memcpy(t, r.redirect, r.redirect_len);
	t[r.redirect_len] = '\0';
	size_t n = key_of(a, t, r.redirect_len, out);
	if (!n) {
		memcpy(out, t, r.redirect_len + 1);
		n = r.redirect_len;
	}
	return n;
}
