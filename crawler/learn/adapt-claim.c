/* adapt-claim.c — the page's own word (SPEC §7; the design is told at the
 * top of adapt.c): a fetched page whose rel=canonical (the <link> or the
 * HTTP Link header) names another URL of its host claims to be that URL's
 * document.  A claim is verified when the named URL's page is fetched, or
 * was, and found the same text within the near-duplicate distance
 * (NOISE_BITS: a "Redirected from" line, a revision banner); it fails
 * when that page's text is another, or the named URL is gone.
 *
 * Trust, per host.  Once a host has min_support verified claims of
 * distinct named URLs and the Wilson lower bound of its claims' precision
 * (verified against failed, at the rules' confidence) is above one half,
 * its claims are trusted: a page fetched that names a URL not fetched
 * yet merges it (its key is marked seen, held as a cover of the page:
 * a later link to it is not fetched, and a lease of it is recorded as a
 * duplicate of the page), and so do the claims already waiting when
 * trust comes.  Audited like a rule: a share of the merges (audit_share,
 * by the named URL, and at least one per audit_every merges, the first
 * included) fetch the named URL instead and verify the claim.  A claim
 * that fails is counted; the host's claims are refuted (a candidate) or
 * retired (trusted) once the Wilson upper bound of their precision falls
 * below retire_below, as a rule is, and the URLs a retired trust merged
 * are queued again (those a page linked; the others are forgotten, for a
 * later link to queue).  Every page naming the home page fails at once:
 * the home page's text is another.
 *
 * The "adapt" database (its layout is in adapt.c): 'c' per host, 'C' the
 * claims waiting for their named URL, 'v' the named URLs verified. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapt-int.h"

#define CLAIM_HOST_VERSION 1
/* 'c' value: version(1), state(1), verified, failed, docs, audits,
 * audit failures, merged, created, changed (8 each), then the host. */
#define CLAIM_HOST_HEAD (2 + 8 * 8)
/* 'C' key: 'C', host hash(8), named key(16), claiming key(16). */
#define CLAIM_KEY 41
/* 'C' value: flags(1), signature(16), SimHash(8), depth(2),
 * category(2), claiming URL's length(2), claiming URL, named URL. */
#define CLAIM_HEAD 31
#define CLAIM_AUDIT 1
#define CLAIM_SIMHASH 2

/* ---- Hosts ------------------------------------------------------------ */

static struct chost *chost_find(struct adapt *a, const char *name, size_t n)
{
	struct tval *v = tab_get(&a->claim_ix, hash_str(name, n));
	if (!v)
		return NULL;
	struct chost *h = &a->claims_h[v->a - 1];
	return strlen(h->name) == n && memcmp(h->name, name, n) == 0 ? h : NULL;
}

/* The host's claims, made if new (under a->mu).  NULL: out of memory or
 * a name too long. */
static struct chost *chost_get(struct adapt *a, const char *name, size_t n)
{
	if (!n || n > NORM_HOST_MAX)
		return NULL;
	struct chost *h = chost_find(a, name, n);
	if (h)
		return h;
	if (a->n_claims_h == a->cap_claims_h) {
		size_t cap = a->cap_claims_h ? 2 * a->cap_claims_h : 16;
		struct chost *v = realloc(a->claims_h, cap * sizeof(*v));
		if (!v)
			return NULL;
		a->claims_h = v;
		a->cap_claims_h = cap;
	}
	bool added;
	struct tval *t = tab_put(&a->claim_ix, hash_str(name, n), &added);
	if (!t)
		return NULL;
	h = &a->claims_h[a->n_claims_h];
	memset(h, 0, sizeof(*h));
	memcpy(h->name, name, n);
	h->created = h->changed = now_ms();
	t->a = ++a->n_claims_h;
	return h;
}

static int chost_save(struct adapt *a, MDB_txn *txn, const struct chost *h)
{
	unsigned char k[9] = { 'c' };
	size_t n = strlen(h->name);
	put_be64(k + 1, hash_str(h->name, n));
	unsigned char v[CLAIM_HOST_HEAD + NORM_HOST_MAX];
	v[0] = CLAIM_HOST_VERSION;
	v[1] = h->state;
	uint64_t f[] = { h->verified,
			 h->failed,
			 h->docs,
			 h->audits,
			 h->audit_fail,
			 h->merged,
			 (uint64_t)h->created,
			 (uint64_t)h->changed };
	for (size_t i = 0; i < 8; i++)
		put_be64(v + 2 + 8 * i, f[i]);
	memcpy(v + CLAIM_HOST_HEAD, h->name, n);
	return store_adapt_put(a->s, txn, k, sizeof(k), v, CLAIM_HOST_HEAD + n);
}

static int chost_decode(const void *val, size_t len, struct chost *h)
{
	const unsigned char *v = val;
	if (len <= CLAIM_HOST_HEAD || len > CLAIM_HOST_HEAD + NORM_HOST_MAX ||
	    v[0] != CLAIM_HOST_VERSION || v[1] > ADAPT_REFUTED)
		return SC_E_CORRUPT;
	memset(h, 0, sizeof(*h));
	h->state = v[1];
	uint64_t *f[] = { &h->verified, &h->failed,     &h->docs,
			  &h->audits,   &h->audit_fail, &h->merged };
	for (size_t i = 0; i < 6; i++)
		*f[i] = get_be64(v + 2 + 8 * i);
	h->created = (int64_t)get_be64(v + 2 + 48);
	h->changed = (int64_t)get_be64(v + 2 + 56);
	memcpy(h->name, v + CLAIM_HOST_HEAD, len - CLAIM_HOST_HEAD);
	return 0;
}

static int load_one(void *arg, const void *key, size_t klen, const void *val,
		    size_t vlen)
{
	struct adapt *a = arg;
	struct chost h;
	if (klen != 9 || chost_decode(val, vlen, &h))
		return SC_E_CORRUPT;
	struct chost *m = chost_get(a, h.name, strlen(h.name));
	if (!m)
		return SC_E_NOMEM;
	*m = h;
	return 0;
}

int claim_load(struct adapt *a, MDB_txn *txn)
{
	return store_adapt_scan(a->s, txn, "c", 1, load_one, a);
}

void claim_free(struct adapt *a)
{
	free(a->claims_h);
	a->claims_h = NULL;
	a->n_claims_h = a->cap_claims_h = 0;
	tab_free(&a->claim_ix);
}

bool claim_learning(struct adapt *a, const char *host, size_t len)
{
	/* Under a->mu (adapt_learning()). */
	const struct chost *h = chost_find(a, host, len);
	return h && (h->state == ADAPT_CANDIDATE || h->state == ADAPT_ACTIVE);
}

/* ---- Texts ------------------------------------------------------------ */

/* Are two pages one text: the same signature, or SimHashes (when both
 * have one) within NOISE_BITS? */
static bool same_text(const unsigned char *s1, uint64_t h1, bool has1,
		      const unsigned char *s2, uint64_t h2, bool has2)
{
	if (memcmp(s1, s2, 16) == 0)
		return true;
	return has1 && has2 &&
	       (unsigned)__builtin_popcountll(h1 ^ h2) <= NOISE_BITS;
}

/* The learner's page of url, fetched as url ('q'): 1 with its signature
 * and SimHash, 0 when not kept, or a store error. */
static int page_of(struct adapt *a, MDB_txn *txn, const char *url, size_t len,
		   unsigned char sig[16], uint64_t *sh)
{
	struct norm_url u;
	if (norm_split(url, len, &u))
		return 0;
	unsigned char key[PAGE_KEY_LEN];
	page_key(url, len, &u, key);
	const void *v;
	size_t vl;
	int rc = store_adapt_get(a->s, txn, key, sizeof(key), &v, &vl);
	if (rc)
		return rc == SC_E_NOTFOUND ? 0 : rc;
	if (vl < PAGE_HEAD)
		return SC_E_CORRUPT;
	memcpy(sig, v, 16);
	*sh = get_be64((const unsigned char *)v + 20);
	return 1;
}

/* ---- Counting and the gate -------------------------------------------- */

/* One claim of h naming named (strict) judged: verified or failed, an
 * audit or not.  A named URL counts once among the documents. */
static int claim_count(struct adapt *a, MDB_txn *txn, struct chost *h,
		       const char *named, size_t nl, bool ok, bool audit)
{
	if (!ok) {
		h->failed++;
		h->audit_fail += audit;
		return 0;
	}
	h->verified++;
	unsigned char vk[17] = { 'v' };
	sc_url_key(named, nl, vk + 1);
	const void *v;
	size_t vl;
	int rc = store_adapt_get(a->s, txn, vk, sizeof(vk), &v, &vl);
	if (rc == 0)
		return 0;
	if (rc != SC_E_NOTFOUND)
		return rc;
	h->docs++;
	return store_adapt_put(a->s, txn, vk, sizeof(vk), "", 0);
}

static int merge(struct adapt *a, MDB_txn *txn, struct chost *h,
		 const char *claimer, size_t cl, const char *named, size_t nl,
		 uint16_t depth, uint16_t cat, const unsigned char *sig,
		 uint64_t sh, bool has_sh);

struct pending {
	unsigned char key[CLAIM_KEY];
	unsigned char *val;
	size_t len;
};

struct pending_scan {
	struct pending *v;
	size_t n, cap;
};

static int collect_pending(void *arg, const void *key, size_t klen,
			   const void *val, size_t vlen)
{
	struct pending_scan *ps = arg;
	const unsigned char *p = val;
	if (klen != CLAIM_KEY || vlen < CLAIM_HEAD ||
	    vlen < CLAIM_HEAD + (size_t)get_be16(p + 29))
		return SC_E_CORRUPT;
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 16;
		struct pending *nv = realloc(ps->v, cap * sizeof(*nv));
		if (!nv)
			return SC_E_NOMEM;
		ps->v = nv;
		ps->cap = cap;
	}
	struct pending *e = &ps->v[ps->n];
	memcpy(e->key, key, CLAIM_KEY);
	if (!(e->val = malloc(vlen)))
		return SC_E_NOMEM;
	memcpy(e->val, val, vlen);
	e->len = vlen;
	ps->n++;
	return 0;
}

static void pending_free(struct pending_scan *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		free(ps->v[i].val);
	free(ps->v);
}

/* The host's claims became trusted: each claim waiting for its named
 * URL (not an audit) merges that URL now, unless it was fetched. */
static int trust_waiting(struct adapt *a, MDB_txn *txn, struct chost *h)
{
	unsigned char pre[9] = { 'C' };
	put_be64(pre + 1, hash_str(h->name, strlen(h->name)));
	struct pending_scan ps = { 0 };
	int rc = store_adapt_scan(a->s, txn, pre, sizeof(pre), collect_pending,
				  &ps);
	for (size_t i = 0; i < ps.n && !rc; i++) {
		const unsigned char *p = ps.v[i].val;
		if (p[0] & CLAIM_AUDIT)
			continue;
		size_t cl = get_be16(p + 29);
		const char *claimer = (const char *)p + CLAIM_HEAD;
		const char *named = claimer + cl;
		size_t nl = ps.v[i].len - CLAIM_HEAD - cl;
		rc = merge(a, txn, h, claimer, cl, named, nl, get_be16(p + 25),
			   get_be16(p + 27), p + 1, get_be64(p + 17),
			   p[0] & CLAIM_SIMHASH);
	}
	pending_free(&ps);
	return rc;
}

/* The host's claims through the gate, then saved. */
static int claim_gate(struct adapt *a, MDB_txn *txn, struct chost *h)
{
	uint64_t v = h->verified, n = h->verified + h->failed;
	bool fails = h->failed && wilson_upper(v, n, a->z) < a->retire_below;
	uint8_t old = h->state;
	if (h->state == ADAPT_CANDIDATE && fails)
		h->state = ADAPT_REFUTED;
	else if (h->state == ADAPT_CANDIDATE && h->docs >= a->o.min_support &&
		 wilson_lower(v, n, a->z) > 0.5)
		h->state = ADAPT_ACTIVE;
	else if (h->state == ADAPT_ACTIVE && fails)
		h->state = ADAPT_RETIRED;
	int rc = 0;
	if (h->state != old) {
		h->changed = now_ms();
		if (h->state == ADAPT_ACTIVE)
			rc = trust_waiting(a, txn, h);
		else if (h->state == ADAPT_RETIRED)
			rc = retire_id(a, txn, CLAIM_RULE_ID, h->name);
	}
	return rc ? rc : chost_save(a, txn, h);
}

/* ---- Claims ----------------------------------------------------------- */

/* A claim that waits for its named URL's page ('C'). */
static int pending_put(struct adapt *a, MDB_txn *txn, const char *host,
		       size_t hl, const char *claimer, size_t cl,
		       const char *named, size_t nl, unsigned flags,
		       const unsigned char *sig, uint64_t sh, uint16_t depth,
		       uint16_t cat)
{
	unsigned char k[CLAIM_KEY] = { 'C' };
	put_be64(k + 1, hash_str(host, hl));
	sc_url_key(named, nl, k + 9);
	sc_url_key(claimer, cl, k + 25);
	unsigned char v[CLAIM_HEAD + 2 * NORM_URL_MAX];
	if (cl + nl > 2 * NORM_URL_MAX)
		return 0;
	v[0] = (unsigned char)flags;
	memcpy(v + 1, sig, 16);
	put_be64(v + 17, sh);
	put_be16(v + 25, depth);
	put_be16(v + 27, cat);
	put_be16(v + 29, (uint16_t)cl);
	memcpy(v + CLAIM_HEAD, claimer, cl);
	memcpy(v + CLAIM_HEAD + cl, named, nl);
	return store_adapt_put(a->s, txn, k, sizeof(k), v,
			       CLAIM_HEAD + cl + nl);
}

/* Is this merge of a trusted host's claim to be an audit instead: a
 * share of the named URLs, chosen by the URL (the same in every run),
 * and at least one per audit_every merges, the first included? */
static bool audit_due(const struct adapt *a, const struct chost *h,
		      const char *named, size_t nl)
{
	if (a->o.audit_share <= 0)
		return false;
	uint64_t k = hash_str(named, nl);
	return (double)(k % 1000000) / 1e6 < a->o.audit_share ||
	       h->merged >= h->audits * a->audit_every;
}

/* A trusted claim: claimer's page stands for named, which is not
 * fetched.  Its key is marked seen and held as a cover of the claiming
 * page (found: the claimer), by CLAIM_RULE_ID; or, for an audit, the
 * claim waits for named, which is queued.  A named URL fetched, held or
 * merged already is left alone. */
static int merge(struct adapt *a, MDB_txn *txn, struct chost *h,
		 const char *claimer, size_t cl, const char *named, size_t nl,
		 uint16_t depth, uint16_t cat, const unsigned char *sig,
		 uint64_t sh, bool has_sh)
{
	struct norm_url nu;
	if (norm_split(named, nl, &nu))
		return 0;
	unsigned char rk[SC_KEY_LEN];
	struct store_record r;
	sc_url_key(named, nl, rk);
	int rc = store_get(a->s, txn, rk, &r);
	if (rc == 0 && r.fetched)
		return 0;
	if (rc && rc != SC_E_NOTFOUND)
		return rc;
	unsigned char hkey[17] = { 'h' };
	memcpy(hkey + 1, rk, 16);
	const void *v;
	size_t vl;
	if ((rc = store_adapt_get(a->s, txn, hkey, sizeof(hkey), &v, &vl)) !=
	    SC_E_NOTFOUND)
		return rc;
	if (audit_due(a, h, named, nl)) {
		h->audits++;
		struct frontier_url fu = {
			.url = named,
			.url_len = nl,
			.u = &nu,
			.found = named,
			.found_len = nl,
			.depth = depth,
			.category = cat,
		};
		rc = pending_put(a, txn, named + nu.host_off, nu.host_len,
				 claimer, cl, named, nl,
				 CLAIM_AUDIT | (has_sh ? CLAIM_SIMHASH : 0),
				 sig, sh, depth, cat);
		if (!rc)
			rc = frontier_add(a->fr, txn, &fu);
		return rc < 0 && rc != SC_E_INVAL ? rc : 0;
	}
	if ((rc = frontier_mark_seen(a->fr, txn, named, nl, cat)) < 0)
		return rc;
	struct frontier_url fu = {
		.url = named,
		.url_len = nl,
		.u = &nu,
		.found = claimer,
		.found_len = cl,
		.depth = depth,
		.category = cat,
	};
	uint32_t id = CLAIM_RULE_ID;
	if ((rc = held_put_raw(a, txn, hkey, &fu,
			       ADAPT_HOLD_LEASED | HOLD_COVER, named, nl, &id,
			       1)))
		return rc;
	pthread_mutex_lock(&a->mu);
	bool added;
	struct tval *t = tab_put(&a->cover_ix, get_be64(hkey + 1), &added);
	if (t)
		t->a = 1;
	pthread_mutex_unlock(&a->mu);
	if (!t)
		return SC_E_NOMEM;
	h->merged++;
	return 0;
}

/* The claims waiting for url (strict, as fetched) judged by its page:
 * the same text (sig, sh) verifies them, another, or no page at all
 * (gone: sig NULL), fails them.  A merge of url made before it was
 * fetched all the same (a lease under way) is undone: it has its own
 * record now. */
static int judge_waiting(struct adapt *a, MDB_txn *txn, const char *url,
			 size_t len, const struct norm_url *u,
			 const unsigned char *sig, uint64_t sh, bool has_sh)
{
	unsigned char pre[25] = { 'C' };
	put_be64(pre + 1, hash_str(url + u->host_off, u->host_len));
	sc_url_key(url, len, pre + 9);
	struct pending_scan ps = { 0 };
	int rc = store_adapt_scan(a->s, txn, pre, sizeof(pre), collect_pending,
				  &ps);
	if (rc || !ps.n) {
		pending_free(&ps);
		return rc;
	}
	pthread_mutex_lock(&a->mu);
	struct chost *h = chost_get(a, url + u->host_off, u->host_len);
	pthread_mutex_unlock(&a->mu);
	for (size_t i = 0; i < ps.n && !rc && h; i++) {
		const unsigned char *p = ps.v[i].val;
		bool ok = sig &&
			  same_text(sig, sh, has_sh, p + 1, get_be64(p + 17),
				    p[0] & CLAIM_SIMHASH);
		if (h->state == ADAPT_CANDIDATE || h->state == ADAPT_ACTIVE)
			rc = claim_count(a, txn, h, url, len, ok,
					 p[0] & CLAIM_AUDIT);
		if (!rc)
			rc = store_adapt_del(a->s, txn, ps.v[i].key, CLAIM_KEY);
	}
	pending_free(&ps);
	if (!h)
		return rc ? rc : SC_E_NOMEM;
	if (!rc) {
		/* A cover of its key by a merge: not needed any more. */
		unsigned char hkey[17] = { 'h' };
		sc_url_key(url, len, hkey + 1);
		const void *v;
		size_t vl;
		int g = store_adapt_get(a->s, txn, hkey, sizeof(hkey), &v, &vl);
		const unsigned char *hv = v;
		if (g == 0 && vl >= HELD_HEAD + 4 && (hv[0] & HOLD_COVER) &&
		    hv[7] == 1 && get_be32(hv + HELD_HEAD) == CLAIM_RULE_ID) {
			rc = store_adapt_del(a->s, txn, hkey, sizeof(hkey));
			pthread_mutex_lock(&a->mu);
			struct tval *t = tab_get(&a->cover_ix,
						 get_be64(hkey + 1));
			if (t)
				t->a = 0;
			pthread_mutex_unlock(&a->mu);
		} else if (g && g != SC_E_NOTFOUND) {
			rc = g;
		}
	}
	return rc ? rc : claim_gate(a, txn, h);
}

int adapt_canonical(struct adapt *a, MDB_txn *txn, const struct adapt_fetch *f,
		    const char *canonical, size_t canonical_len)
{
	struct norm_url u, nu;
	if (norm_split(f->url, f->len, &u))
		return 0;
	bool has_sh = f->has_simhash;
	uint64_t sh = has_sh ? f->simhash : 0;
	int rc = judge_waiting(a, txn, f->url, f->len, &u, f->sig, sh, has_sh);
	if (rc || !canonical)
		return rc;
	/* Its own claim: another URL of its host, not its own key. */
	if (norm_split(canonical, canonical_len, &nu) ||
	    nu.host_len != u.host_len ||
	    memcmp(canonical + nu.host_off, f->url + u.host_off, u.host_len) !=
		    0 ||
	    (canonical_len == f->len &&
	     memcmp(canonical, f->url, f->len) == 0) ||
	    (f->key && canonical_len == f->key_len &&
	     memcmp(canonical, f->key, f->key_len) == 0))
		return 0;
	pthread_mutex_lock(&a->mu);
	struct chost *h = chost_get(a, f->url + u.host_off, u.host_len);
	pthread_mutex_unlock(&a->mu);
	if (!h)
		return SC_E_NOMEM;
	if (h->state == ADAPT_REFUTED || h->state == ADAPT_RETIRED)
		return 0;
	/* The named URL's page is known: judged now. */
	unsigned char nsig[16];
	uint64_t nsh = 0;
	if ((rc = page_of(a, txn, canonical, canonical_len, nsig, &nsh)) < 0)
		return rc;
	if (rc == 1) {
		bool ok = same_text(f->sig, sh, has_sh, nsig, nsh, nsh != 0);
		rc = claim_count(a, txn, h, canonical, canonical_len, ok,
				 false);
		return rc ? rc : claim_gate(a, txn, h);
	}
	/* Gone already: a record fetched with no page kept. */
	unsigned char rk[SC_KEY_LEN];
	struct store_record r;
	sc_url_key(canonical, canonical_len, rk);
	rc = store_get(a->s, txn, rk, &r);
	if (rc && rc != SC_E_NOTFOUND)
		return rc;
	if (rc == 0 && r.fetched && (r.status == 404 || r.status == 410)) {
		rc = claim_count(a, txn, h, canonical, canonical_len, false,
				 false);
		return rc ? rc : claim_gate(a, txn, h);
	}
	if (h->state == ADAPT_ACTIVE) {
		rc = merge(a, txn, h, f->url, f->len, canonical, canonical_len,
			   f->depth, f->category, f->sig, sh, has_sh);
		return rc ? rc : chost_save(a, txn, h);
	}
	rc = pending_put(a, txn, f->url + u.host_off, u.host_len, f->url,
			 f->len, canonical, canonical_len,
			 has_sh ? CLAIM_SIMHASH : 0, f->sig, sh, f->depth,
			 f->category);
	return rc ? rc : chost_save(a, txn, h);
}

int adapt_canonical_gone(struct adapt *a, MDB_txn *txn, const char *url,
			 size_t len, int status)
{
	struct norm_url u;
	if ((status != 404 && status != 410) || norm_split(url, len, &u))
		return 0;
	return judge_waiting(a, txn, url, len, &u, NULL, 0, false);
}

int adapt_claim_linked(struct adapt *a, MDB_txn *txn, const char *url,
		       size_t len, char *out, size_t cap)
{
	unsigned char hkey[17];
	const void *v;
	size_t vl;
	int rc = cover_get(a, txn, url, len, hkey, &v, &vl);
	if (rc <= 0)
		return rc;
	const unsigned char *p = v;
	if (vl < HELD_HEAD + 4 + 2 || p[7] != 1 ||
	    get_be32(p + HELD_HEAD) != CLAIM_RULE_ID)
		return 0;
	size_t fl = get_be16(p + HELD_HEAD + 4);
	if (HELD_HEAD + 6 + fl > vl || fl >= cap)
		return SC_E_CORRUPT;
	memcpy(out, p + HELD_HEAD + 6, fl);
	out[fl] = '\0';
	return 1;
}

/* ---- Listing ---------------------------------------------------------- */

struct claim_list {
	int (*fn)(void *arg, const struct adapt_claim_info *c);
	void *arg;
};

static int list_one(void *arg, const void *key, size_t klen, const void *val,
		    size_t vlen)
{
	struct claim_list *l = arg;
	struct chost h;
	if (klen != 9 || chost_decode(val, vlen, &h))
		return SC_E_CORRUPT;
	struct adapt_claim_info in = {
		.state = h.state,
		.verified = h.verified,
		.failed = h.failed,
		.documents = h.docs,
		.audits = h.audits,
		.audit_failures = h.audit_fail,
		.merged = h.merged,
		.created_ms = h.created,
		.changed_ms = h.changed,
	};
	memcpy(in.host, h.name, sizeof(in.host));
	return l->fn(l->arg, &in);
}

int adapt_claim_list(struct store *s, MDB_txn *txn,
		     int (*fn)(void *arg, const struct adapt_claim_info *c),
		     void *arg)
{
	struct claim_list l = { fn, arg };
	return store_adapt_scan(s, txn, "c", 1, list_one, &l);
}

const char *adapt_claim_state_name(int state)
{
	return state == ADAPT_ACTIVE ? "trusted" : adapt_state_name(state);
}
