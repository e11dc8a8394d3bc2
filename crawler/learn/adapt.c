/* adapt.c — adaptive normalization (SPEC §7): per-host rewrite rules
 * learned from pages the crawl found equal, verified before they apply,
 * audited while they apply, retired without losing a page.  learn.h has
 * the interface, docs/adaptive.md the story.
 *
 * Files.  This one holds the core: the tables, hosts, rules in memory and
 * in the store, opening, keys, stats and the listing.  adapt-evidence.c
 * holds the evidence, new candidates and the gate; adapt-hold.c the held
 * URLs, covers, audits and bad keys; adapt-skip.c the URL shapes whose
 * pages all say noindex and nofollow, skipped; adapt-claim.c the pages'
 * rel=canonical claims; adapt-int.h what they share.
 *
 * Evidence.  Every fetched page with body text is kept as (host, strict
 * URL as fetched, signature, SimHash, images).  Two pages of one site
 * with one signature are a pair: the rules that would map one URL onto
 * the other (norm_rules_derive()) become candidates.  A candidate sees
 * every page of its host through its image: the URL it would rewrite the
 * page's URL to.  Two pages with one image, one signature and the same
 * images support it; with one image and texts clearly different (their
 * SimHashes more than NOISE_BITS apart) they are a counter-example; a
 * pair the rule did not make meet (it changed neither URL) says nothing.
 * Support counts documents (signatures), not pairs: ten session-id
 * variants of one page are one piece of evidence.  A signature that many
 * unrelated URLs share (three paths that no step folds together: a
 * soft-404, a login wall) supports nothing; one whose URL was fetched
 * twice with two texts ('n') refutes nothing.
 *
 * The gate.  A candidate applies once its support reaches min_support and
 * the Wilson lower bound of its precision at the configured one-sided
 * confidence is above one half; a candidate is refuted and an active rule
 * retired once the Wilson upper bound falls below retire_below.
 * Transfer (o.transfer): a rule of a kind that holds on other hosts
 * (kind_prior(): the same Wilson bound, over hosts where the kind is
 * active against hosts where it was refuted or retired) needs only one
 * supporting document of its own; its audits still test it.  A scoped
 * step (add_trailing_slash) applies to the shapes and routes it held on
 * (rule_covers()).
 *
 * Application.  A new URL of the host is keyed by its active rules
 * (adapt_key()): the key is its frontier entry and its record, but what
 * is fetched is the form linked (crawl-int.h, job_url()).  When the key
 * is known the URL is held back (kept with the rules that held it),
 * except the audits (audit_due(): the first URL held onto an audit_share
 * of the keys, each rule's first key and one in audit_every, and one URL
 * of the first key that collects many), fetched under their own form:
 * their page is evidence like any other, so a rule that was wrong meets
 * its counter-example.  A key whose page is gone, a soft 404 or a
 * redirect elsewhere has held URLs fetched to test it (release_key()).
 * A retired rule's held URLs are queued again.
 *
 * The page's own word (adapt-claim.c).  A page whose rel=canonical
 * names another URL of its host claims to be its document; the claim is
 * verified when that URL's page is the same text (within NOISE_BITS).
 * Once a host has min_support verified claims of distinct URLs and no
 * pattern of failures (the gate's Wilson bounds), a claiming page fetched
 * merges the URL it names (a cover: not fetched), audited at
 * audit_share; the trust retires as a rule does, and what it merged is
 * queued again.
 *
 * The "adapt" database (store.h), keys by their first byte:
 *   'm'                        -> next rule id (4)
 *   'r' id(4)                  -> a rule (rule_save())
 *   'q' host hash(8) key(16)   -> a fetched page: signature(16), depth(2),
 *                                 category(2), SimHash(8), images(8),
 *                                 strict URL as fetched
 *   'n' signature(8)           -> a text seen to change by itself (empty)
 *   'h' key(16)                -> a held URL (held_put())
 *   'H' key(16) key(16)        -> the rules' key a held URL is held onto,
 *                                 then the held URL's (empty)
 *   'a' key(16)                -> an audit under way: rule ids (4 each)
 *   'A' key(16)                -> an audit of a bad key: its status (2)
 *   'b' key(16)                -> a bad key: its status (2), URLs
 *                                 released (1), proven wrong (1)
 *   'k' key(16)                -> a rules' key: URLs held onto it (4),
 *                                 and whether its sampled audit was made (1)
 *   's', 'x' hash(8)           -> the skip shapes (adapt-skip.c)
 *   'c' host hash(8)           -> a host's claims (adapt-claim.c): version
 *                                 (1), state (1), verified, failed,
 *                                 documents, audits, audit failures,
 *                                 merged, created, changed (8 each), host
 *   'C' host hash(8) key(16) key(16)
 *                              -> a claim waiting for the named URL's
 *                                 page (named, then claiming URL's key):
 *                                 flags (1), signature (16), SimHash
 *                                 (8), depth (2), category (2), claiming
 *                                 URL's length (2), claiming URL, named
 *                                 URL
 *   'v' key(16)                -> a named URL verified (empty)
 * A named URL a trusted claim merged is an 'h' cover held by rule id
 * CLAIM_RULE_ID, its found URL the claiming page's.
 * key is sc_url_key() of the strict URL; integers are big-endian.  The
 * images, supporting signatures and signature groups live in memory and
 * are rebuilt from the pages at adapt_open(). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#include "adapt-int.h"

#define RULE_VERSION 2
/* Version 1 had neither the shapes byte nor the keys count. */
#define RULE_HEAD_V1 71
/* Version 2: shapes (2), routes (4 each), keys (8) after version 1's. */
#define RULE_ROUTES_AT 73
#define RULE_KEYS_AT (RULE_ROUTES_AT + 4 * SHAPES * ROUTES_KEPT)
#define RULE_HEAD (RULE_KEYS_AT + 8)
/* A rule's state byte: the state, and this bit when transfer made it
 * active (kind_prior()). */
#define RULE_TRANSFERRED 0x80

/* ---- A small open-addressing table of 64-bit keys ------------------- */

uint64_t tkey(uint64_t k)
{
	return k ? k : 1;
}

struct tval *tab_get(const struct tab *t, uint64_t k)
{
	if (!t->cap)
		return NULL;
	k = tkey(k);
	for (size_t i = k & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		if (t->k[i] == k)
			return &t->v[i];
		if (!t->k[i])
			return NULL;
	}
}

/* The slot of k, added (zeroed) if absent; *added says which.  NULL:
 * out of memory. */
struct tval *tab_put(struct tab *t, uint64_t k, bool *added)
{
	k = tkey(k);
	if (2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		uint64_t *nk = calloc(cap, sizeof(*nk));
		struct tval *nv = calloc(cap, sizeof(*nv));
		if (!nk || !nv) {
			free(nk);
			free(nv);
			return NULL;
		}
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->k[i])
				continue;
			size_t j = t->k[i] & (cap - 1);
			while (nk[j])
				j = (j + 1) & (cap - 1);
			nk[j] = t->k[i];
			nv[j] = t->v[i];
		}
		free(t->k);
		free(t->v);
		t->k = nk;
		t->v = nv;
		t->cap = cap;
	}
	size_t i = k & (t->cap - 1);
	while (t->k[i] && t->k[i] != k)
		i = (i + 1) & (t->cap - 1);
	*added = !t->k[i];
	if (!t->k[i]) {
		t->k[i] = k;
		t->v[i] = (struct tval){ 0 };
		t->n++;
	}
	return &t->v[i];
}

void tab_free(struct tab *t)
{
	free(t->k);
	free(t->v);
	*t = (struct tab){ 0 };
}

/* ---- State ------------------------------------------------------------ */

void mark_dirty(struct adapt *a, struct arule *r)
{
	if (r->dirty)
		return;
	r->dirty = true;
	if (a->n_dirty == a->cap_dirty) {
		size_t cap = a->cap_dirty ? 2 * a->cap_dirty : 64;
		uint32_t *v = realloc(a->dirty_ix, cap * sizeof(*v));
		if (!v) {
			a->dirty_all = true;
			return;
		}
		a->dirty_ix = v;
		a->cap_dirty = cap;
	}
	a->dirty_ix[a->n_dirty++] = (uint32_t)(r - a->rules);
}

/* The rule with this id (a->rules is in id order), or NULL. */
struct arule *find_rule(struct adapt *a, uint32_t id)
{
	size_t lo = 0, hi = a->n_rules;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a->rules[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < a->n_rules && a->rules[lo].id == id ? &a->rules[lo] : NULL;
}

uint64_t sig64(const unsigned char sig[16])
{
	return get_be64(sig);
}

uint64_t hash_str(const char *s, size_t n)
{
	return XXH3_64bits(s, n);
}

int64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The one-sided standard normal quantile of p, by bisection on erfc. */
static double quantile(double p)
{
	double lo = 0, hi = 10;
	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;
		if (0.5 * erfc(mid / sqrt(2.0)) > 1 - p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* The shape of a URL: its last path segment's (a trailing slash aside),
 * the root, a file-like name (a dot or a digit in it: "story_205",
 * "a.html", "12") or a word (a directory or section name).  (Telling a
 * URL with a query apart, /genetics from /list?cat=x, cost more learning
 * than it saved: docs/adaptive.md.) */
static unsigned shape_of(const char *url, const struct norm_url *u)
{
	const char *p = url + u->path_off;
	size_t n = u->path_len;
	if (n && p[n - 1] == '/')
		n--;
	size_t i = n;
	while (i > 0 && p[i - 1] != '/')
		i--;
	if (i == n)
		return SHAPE_ROOT;
	for (; i < n; i++)
		if (p[i] == '.' || (p[i] >= '0' && p[i] <= '9'))
			return SHAPE_FILE;
	return SHAPE_WORD;
}

static char lower_ascii(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* The route of a URL: a hash of its path's directory (up to the last
 * segment, a trailing slash aside), lower case, each run of digits one
 * '#' (never 0).  The digits of a percent-escape are no number: "%E2"
 * and "%E3" are two characters, two routes. */
static uint32_t route_of(const char *url, const struct norm_url *u)
{
	const char *p = url + u->path_off;
	size_t n = u->path_len;
	if (n && p[n - 1] == '/')
		n--;
	while (n > 0 && p[n - 1] != '/')
		n--;
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)p[i];
		if (ch == '%' && i + 2 < n) {
			/* An escape: its two hex digits as they are, in
			 * lower case like the rest. */
			h = (h ^ ch) * 16777619u;
			ch = (unsigned char)lower_ascii(p[++i]);
			h = (h ^ ch) * 16777619u;
			ch = (unsigned char)lower_ascii(p[++i]);
		} else if (ch >= '0' && ch <= '9') {
			while (i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '9')
				i++;
			ch = '#';
		} else if (ch >= 'A' && ch <= 'Z') {
			ch = (unsigned char)(ch - 'A' + 'a');
		}
		h = (h ^ ch) * 16777619u;
	}
	return h ? h : 1;
}

bool scoped(const struct arule *r)
{
	return r->r.kind == NORM_RULE_STEP && (r->r.step & SCOPED_STEPS);
}

/* Does active rule r apply to url (components u)?  Only a scoped step
 * looks at the URL's shape and route. */
bool rule_covers(const struct arule *r, const char *url,
		 const struct norm_url *u)
{
	if (!scoped(r))
		return true;
	unsigned k = shape_of(url, u);
	if (!(r->shapes & (1u << k)))
		return false;
	if (r->shapes & SHAPE_ANY(k))
		return true;
	uint32_t route = route_of(url, u);
	for (size_t i = 0; i < ROUTES_KEPT; i++)
		if (r->routes[k][i] == route)
			return true;
	return false;
}

/* r was seen to hold on url: its scope takes in url's shape and route
 * (under a->mu: adapt_key() reads it).  Returns whether that changed
 * it. */
bool scope_note(struct adapt *a, struct arule *r, const char *url,
		const struct norm_url *u)
{
	unsigned k = shape_of(url, u);
	if (r->shapes & SHAPE_ANY(k))
		return false;
	uint32_t route = route_of(url, u);
	bool changed = true;
	pthread_mutex_lock(&a->mu);
	r->shapes = (uint16_t)(r->shapes | 1u << k);
	size_t i = 0;
	for (; i < ROUTES_KEPT; i++) {
		if (r->routes[k][i] == route) {
			changed = false;
			break;
		}
		if (!r->routes[k][i]) {
			r->routes[k][i] = route;
			break;
		}
	}
	if (i == ROUTES_KEPT)
		r->shapes = (uint16_t)(r->shapes | SHAPE_ANY(k));
	if (changed && r->state == ADAPT_ACTIVE) {
		/* Keys change with the scope: the host's compiled set, and
		 * (at the gate) the keys of the pages fetched before. */
		struct ahost *h = host_find(a, r->scope, strlen(r->scope));
		if (h)
			host_compile(a, h);
		r->rescoped = true;
	}
	pthread_mutex_unlock(&a->mu);
	return changed;
}

const char *adapt_state_name(int state)
{
	switch (state) {
	case ADAPT_CANDIDATE: return "candidate";
	case ADAPT_ACTIVE: return "active";
	case ADAPT_RETIRED: return "retired";
	case ADAPT_REFUTED: return "refuted";
	default: return "unknown";
	}
}

/* ---- Hosts ------------------------------------------------------------ */

struct ahost *host_find(struct adapt *a, const char *name, size_t n)
{
	struct tval *v = tab_get(&a->host_ix, hash_str(name, n));
	if (!v)
		return NULL;
	struct ahost *h = &a->hosts[v->a - 1];
	return strlen(h->name) == n && memcmp(h->name, name, n) == 0 ? h : NULL;
}

/* Under a->mu (the array may move). */
struct ahost *host_get(struct adapt *a, const char *name, size_t n)
{
	if (n == 0 || n > NORM_HOST_MAX)
		return NULL;
	struct ahost *h = host_find(a, name, n);
	if (h)
		return h;
	if (a->n_hosts == a->cap_hosts) {
		size_t cap = a->cap_hosts ? 2 * a->cap_hosts : 16;
		struct ahost *v = realloc(a->hosts, cap * sizeof(*v));
		if (!v)
			return NULL;
		/* The compiled sets point into a->rules, not into the
		 * hosts: they move with them unchanged. */
		a->hosts = v;
		a->cap_hosts = cap;
	}
	bool added;
	struct tval *t = tab_put(&a->host_ix, hash_str(name, n), &added);
	if (!t)
		return NULL;
	h = &a->hosts[a->n_hosts];
	memset(h, 0, sizeof(*h));
	memcpy(h->name, name, n);
	t->a = ++a->n_hosts;
	return h;
}

static int host_add_rule(struct ahost *h, uint32_t idx)
{
	if (h->n_rules == h->cap_rules) {
		size_t cap = h->cap_rules ? 2 * h->cap_rules : 8;
		uint32_t *v = realloc(h->rules, cap * sizeof(*v));
		if (!v)
			return SC_E_NOMEM;
		h->rules = v;
		h->cap_rules = cap;
	}
	h->rules[h->n_rules++] = idx;
	return 0;
}

/* Rebuild a host's compiled active set (under a->mu).  Parameters point
 * into the rules array, so every host is compiled again after it moves. */
void host_compile(struct adapt *a, struct ahost *h)
{
	h->alias = NULL;
	h->steps = 0;
	memset(h->shape_steps, 0, sizeof(h->shape_steps));
	h->n_routed = 0;
	h->n_params = h->n_dust = 0;
	h->learning = false;
	for (size_t i = 0; i < h->n_rules; i++) {
		const struct arule *r = &a->rules[h->rules[i]];
		if (r->state == ADAPT_ACTIVE ||
		    (r->state == ADAPT_CANDIDATE && !r->counters))
			h->learning = true;
		if (r->state != ADAPT_ACTIVE || strcmp(r->scope, h->name) != 0)
			continue;
		switch (r->r.kind) {
		case NORM_RULE_STEP:
			if (!(r->r.step & SCOPED_STEPS)) {
				h->steps |= r->r.step;
				break;
			}
			for (unsigned k = 0; k < SHAPES; k++)
				if (r->shapes & SHAPE_ANY(k))
					h->shape_steps[k] |= r->r.step;
			if (h->n_routed <
			    sizeof(h->routed) / sizeof(h->routed[0]))
				h->routed[h->n_routed++] = r;
			break;
		case NORM_RULE_PARAM: h->params[h->n_params++] = r->r.a; break;
		case NORM_RULE_DUST: h->dust[h->n_dust++] = &r->r; break;
		case NORM_RULE_ALIAS: h->alias = r->r.a; break;
		}
	}
}

/* One more document supports r. */
void support_up(struct adapt *a, struct arule *r)
{
	r->support++;
	mark_dirty(a, r);
}

static void compile_all(struct adapt *a)
{
	for (size_t i = 0; i < a->n_hosts; i++)
		host_compile(a, &a->hosts[i]);
}

/* ---- Rules in the store ----------------------------------------------- */

static unsigned char *put_s(unsigned char *p, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	put_be16(p, (uint16_t)n);
	memcpy(p + 2, s ? s : "", n);
	return p + 2 + n;
}

static int rule_save(struct adapt *a, MDB_txn *txn, struct arule *r)
{
	unsigned char v[RULE_HEAD + 7 * 2 + NORM_HOST_MAX * 2 +
			3 * NORM_RULE_TEXT_MAX + 2 * NORM_URL_MAX];
	unsigned char *p = v;
	p[0] = RULE_VERSION;
	p[1] = r->r.kind;
	p[2] = (unsigned char)(r->state |
			       (r->transferred ? RULE_TRANSFERRED : 0));
	put_be32(p + 3, r->r.step);
	uint64_t n[] = { r->support,
			 r->counters,
			 r->audits,
			 r->audit_fail,
			 r->held,
			 r->saved,
			 (uint64_t)r->created,
			 (uint64_t)r->changed };
	for (size_t i = 0; i < 8; i++)
		put_be64(p + 7 + 8 * i, n[i]);
	put_be16(p + 71, r->shapes);
	for (size_t k = 0; k < SHAPES; k++)
		for (size_t i = 0; i < ROUTES_KEPT; i++)
			put_be32(p + RULE_ROUTES_AT + 4 * (k * ROUTES_KEPT + i),
				 r->routes[k][i]);
	put_be64(p + RULE_KEYS_AT, r->keys);
	p += RULE_HEAD;
	p = put_s(p, r->scope);
	p = put_s(p, r->r.host);
	p = put_s(p, r->r.a);
	p = put_s(p, r->r.from);
	p = put_s(p, r->r.to);
	p = put_s(p, r->ca);
	p = put_s(p, r->cb);
	unsigned char k[5] = { 'r' };
	put_be32(k + 1, r->id);
	r->dirty = false;
	return store_adapt_put(a->s, txn, k, sizeof(k), v, (size_t)(p - v));
}

static bool get_s(const unsigned char **p, const unsigned char *end, char *out,
		  size_t cap)
{
	if (end - *p < 2)
		return false;
	size_t n = get_be16(*p);
	if ((size_t)(end - *p) < 2 + n || n >= cap)
		return false;
	memcpy(out, *p + 2, n);
	out[n] = '\0';
	*p += 2 + n;
	return true;
}

/* Decode a rule value into r (memory for the counter-example into ca, cb
 * of NORM_URL_MAX + 1 bytes each). */
static int rule_decode(const void *val, size_t len, uint32_t id,
		       struct arule *r, char *ca, char *cb)
{
	const unsigned char *p = val, *end = p + len;
	if (len < RULE_HEAD_V1 || (p[0] != RULE_VERSION && p[0] != 1) ||
	    (p[0] == RULE_VERSION && len < RULE_HEAD) ||
	    p[1] < NORM_RULE_STEP || p[1] > NORM_RULE_DUST ||
	    (p[2] & ~RULE_TRANSFERRED) > ADAPT_REFUTED)
		return SC_E_CORRUPT;
	bool v1 = p[0] == 1;
	memset(r, 0, sizeof(*r));
	r->id = id;
	r->r.kind = p[1];
	r->state = p[2] & ~RULE_TRANSFERRED;
	r->transferred = p[2] & RULE_TRANSFERRED;
	r->r.step = get_be32(p + 3);
	uint64_t *n[] = { &r->support,    &r->counters, &r->audits,
			  &r->audit_fail, &r->held,     &r->saved };
	for (size_t i = 0; i < 6; i++)
		*n[i] = get_be64(p + 7 + 8 * i);
	r->created = (int64_t)get_be64(p + 7 + 48);
	r->changed = (int64_t)get_be64(p + 7 + 56);
	/* A rule of version 1 was learned unscoped. */
	r->shapes = v1 ? (uint16_t)(SHAPES_ALL | SHAPES_ALL << SHAPES)
		       : get_be16(p + 71);
	for (size_t k = 0; !v1 && k < SHAPES; k++)
		for (size_t i = 0; i < ROUTES_KEPT; i++)
			r->routes[k][i] = get_be32(p + RULE_ROUTES_AT +
						   4 * (k * ROUTES_KEPT + i));
	r->keys = v1 ? 0 : get_be64(p + RULE_KEYS_AT);
	p += v1 ? RULE_HEAD_V1 : RULE_HEAD;
	if (!get_s(&p, end, r->scope, sizeof(r->scope)) ||
	    !get_s(&p, end, r->r.host, sizeof(r->r.host)) ||
	    !get_s(&p, end, r->r.a, sizeof(r->r.a)) ||
	    !get_s(&p, end, r->r.from, sizeof(r->r.from)) ||
	    !get_s(&p, end, r->r.to, sizeof(r->r.to)) ||
	    !get_s(&p, end, ca, NORM_URL_MAX + 1) ||
	    !get_s(&p, end, cb, NORM_URL_MAX + 1) || p != end)
		return SC_E_CORRUPT;
	if (r->r.kind == NORM_RULE_STEP &&
	    (!r->r.step || (r->r.step & (r->r.step - 1)) ||
	     !(r->r.step & norm_rule_steps())))
		return SC_E_CORRUPT;
	return 0;
}

int save_dirty(struct adapt *a, MDB_txn *txn)
{
	size_t n = a->dirty_all ? a->n_rules : a->n_dirty;
	for (size_t k = 0; k < n; k++) {
		struct arule *r = &a->rules[a->dirty_all ? k : a->dirty_ix[k]];
		if (!r->dirty)
			continue;
		int rc = rule_save(a, txn, r);
		if (rc)
			return rc;
	}
	a->n_dirty = 0;
	a->dirty_all = false;
	return 0;
}

int save_next_id(struct adapt *a, MDB_txn *txn)
{
	unsigned char v[4];
	put_be32(v, a->next_id);
	return store_adapt_put(a->s, txn, "m", 1, v, sizeof(v));
}

bool same_rule(const struct arule *x, const char *scope,
	       const struct norm_rule *r)
{
	return x->r.kind == r->kind && strcmp(x->scope, scope) == 0 &&
	       x->r.step == r->step && strcmp(x->r.host, r->host) == 0 &&
	       strcmp(x->r.a, r->a) == 0 && strcmp(x->r.from, r->from) == 0 &&
	       strcmp(x->r.to, r->to) == 0;
}

/* ---- Opening -------------------------------------------------------- */

static int load_rule(void *arg, const void *key, size_t klen, const void *val,
		     size_t vlen)
{
	struct adapt *a = arg;
	if (klen != 5)
		return SC_E_CORRUPT;
	static char ca[NORM_URL_MAX + 1], cb[NORM_URL_MAX + 1];
	struct arule r;
	int rc = rule_decode(val, vlen,
			     get_be32((const unsigned char *)key + 1), &r, ca,
			     cb);
	if (rc)
		return rc;
	if (ca[0] && (!(r.ca = strdup(ca)) || !(r.cb = strdup(cb)))) {
		free(r.ca);
		return SC_E_NOMEM;
	}
	uint32_t idx;
	if ((rc = add_rule_mem(a, &r, &idx))) {
		free(r.ca);
		free(r.cb);
	}
	return rc;
}

static int replay_page(void *arg, const void *key, size_t klen, const void *val,
		       size_t vlen)
{
	struct adapt *a = arg;
	(void)key;
	if (klen != 25 || vlen <= PAGE_HEAD || vlen > PAGE_HEAD + NORM_URL_MAX)
		return SC_E_CORRUPT;
	const unsigned char *v = val;
	const char *url = (const char *)v + PAGE_HEAD;
	size_t len = vlen - PAGE_HEAD;
	struct norm_url u;
	if (norm_split(url, len, &u))
		return SC_E_CORRUPT;
	uint64_t sig = sig64(v);
	int rc = group_note(a, sig, fold_hash(url, &u));
	return rc ? rc
		  : page_rules(a, url, len, &u, sig, get_be64(v + 20),
			       get_be64(v + 28));
}

/* A store key of klen bytes, marked in t by the 8 bytes after its first
 * (a signature's or a URL key's): SC_E_CORRUPT for another length. */
static int mark_key(struct tab *t, const void *key, size_t klen, size_t want)
{
	if (klen != want)
		return SC_E_CORRUPT;
	bool added;
	struct tval *v = tab_put(t, get_be64((const unsigned char *)key + 1),
				 &added);
	if (!v)
		return SC_E_NOMEM;
	v->a = 1;
	return 0;
}

static int load_noisy(void *arg, const void *key, size_t klen, const void *val,
		      size_t vlen)
{
	(void)val;
	(void)vlen;
	return mark_key(&((struct adapt *)arg)->noisy, key, klen, 9);
}

static int load_audit(void *arg, const void *key, size_t klen, const void *val,
		      size_t vlen)
{
	(void)val;
	(void)vlen;
	return mark_key(&((struct adapt *)arg)->audit_ix, key, klen, 17);
}

static int load_audited(void *arg, const void *key, size_t klen,
			const void *val, size_t vlen)
{
	struct adapt *a = arg;
	(void)val;
	(void)vlen;
	if (klen != 17 || vlen != 5)
		return SC_E_CORRUPT;
	bool added;
	struct tval *t = tab_put(
		&a->audited, get_be64((const unsigned char *)key + 1), &added);
	if (!t)
		return SC_E_NOMEM;
	t->a = get_be32(val);
	t->b = ((const unsigned char *)val)[4];
	return 0;
}

static int load_cover(void *arg, const void *key, size_t klen, const void *val,
		      size_t vlen)
{
	struct adapt *a = arg;
	if (klen != 17 || vlen < 1)
		return SC_E_CORRUPT;
	if (!(((const unsigned char *)val)[0] & HOLD_COVER))
		return 0;
	bool added;
	struct tval *t = tab_put(
		&a->cover_ix, get_be64((const unsigned char *)key + 1), &added);
	if (!t)
		return SC_E_NOMEM;
	t->a = 1;
	return 0;
}

int adapt_open(struct store *s, struct frontier *fr, MDB_txn *txn,
	       const struct adapt_opts *o, struct adapt **ret)
{
	struct adapt *a = calloc(1, sizeof(*a));
	if (!a)
		return SC_E_NOMEM;
	a->s = s;
	a->fr = fr;
	a->o = *o;
	a->z = quantile(o->confidence);
	a->retire_below = o->retire_below > 0 ? o->retire_below : 0.95;
	a->audit_every = o->audit_every ? o->audit_every : 32;
	a->next_id = 1;
	pthread_mutex_init(&a->mu, NULL);
	const void *v;
	size_t vl;
	int rc = store_adapt_get(s, txn, "m", 1, &v, &vl);
	if (rc == 0 && vl == 4)
		a->next_id = get_be32(v);
	else if (rc == 0)
		rc = SC_E_CORRUPT;
	else if (rc == SC_E_NOTFOUND)
		rc = 0;
	if (!rc)
		rc = store_adapt_scan(s, txn, "r", 1, load_rule, a);
	/* The active sets first: candidates see pages through them. */
	if (!rc)
		compile_all(a);
	if (!rc) {
		a->replay = true;
		rc = store_adapt_scan(s, txn, (const char[]){ PAGE_BYTE }, 1,
				      replay_page, a);
		a->replay = false;
	}
	if (!rc)
		rc = store_adapt_scan(s, txn, "n", 1, load_noisy, a);
	if (!rc)
		rc = store_adapt_scan(s, txn, "a", 1, load_audit, a);
	if (!rc)
		rc = store_adapt_scan(s, txn, "k", 1, load_audited, a);
	if (!rc)
		rc = store_adapt_scan(s, txn, "h", 1, load_cover, a);
	if (!rc)
		rc = skip_load(a, txn);
	if (!rc)
		rc = claim_load(a, txn);
	if (rc) {
		adapt_close(a);
		return rc;
	}
	compile_all(a);
	*ret = a;
	return 0;
}

void adapt_close(struct adapt *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n_rules; i++) {
		tab_free(&a->rules[i].img);
		tab_free(&a->rules[i].sup);
		free(a->rules[i].ca);
		free(a->rules[i].cb);
	}
	free(a->rules);
	free(a->dirty_ix);
	for (size_t i = 0; i < a->n_hosts; i++)
		free(a->hosts[i].rules);
	free(a->hosts);
	tab_free(&a->host_ix);
	tab_free(&a->groups);
	tab_free(&a->noisy);
	tab_free(&a->audit_ix);
	tab_free(&a->audited);
	tab_free(&a->kinds);
	tab_free(&a->cover_ix);
	tab_free(&a->claims);
	skip_free(a);
	claim_free(a);
	pthread_mutex_destroy(&a->mu);
	free(a);
}

/* Add a rule to memory and to its hosts' lists (an alias rule to both
 * names).  Counts it in the stats. */
int add_rule_mem(struct adapt *a, const struct arule *src, uint32_t *idx)
{
	pthread_mutex_lock(&a->mu);
	int rc = SC_E_NOMEM;
	if (a->n_rules == a->cap_rules) {
		size_t cap = a->cap_rules ? 2 * a->cap_rules : 32;
		struct arule *v = realloc(a->rules, cap * sizeof(*v));
		if (!v)
			goto out;
		a->rules = v;
		a->cap_rules = cap;
		/* The hosts' parameter lists pointed into the old array. */
		compile_all(a);
	}
	if (kind_add(a, src))
		goto out;
	struct ahost *h = host_get(a, src->scope, strlen(src->scope));
	struct ahost *h2 = NULL;
	if (h && src->r.kind == NORM_RULE_ALIAS)
		h2 = host_get(a, src->r.a, strlen(src->r.a));
	if (!h || (src->r.kind == NORM_RULE_ALIAS && !h2))
		goto out;
	/* host_get() may have moved the hosts: find h again. */
	h = host_find(a, src->scope, strlen(src->scope));
	uint32_t i = (uint32_t)a->n_rules;
	if (host_add_rule(h, i) || (h2 && host_add_rule(h2, i)))
		goto out;
	a->rules[a->n_rules++] = *src;
	h->own++;
	if (src->state == ADAPT_ACTIVE ||
	    (src->state == ADAPT_CANDIDATE && !src->counters))
		h->learning = true;
	if (src->id >= a->next_id)
		a->next_id = src->id + 1;
	switch (src->state) {
	case ADAPT_CANDIDATE: a->st.candidates++; break;
	case ADAPT_ACTIVE: a->st.active++; break;
	case ADAPT_RETIRED: a->st.retired++; break;
	case ADAPT_REFUTED: a->st.refuted++; break;
	}
	a->st.saved += src->state == ADAPT_ACTIVE ? src->held : 0;
	a->st.audits += src->audits;
	*idx = i;
	rc = 0;
out:
	pthread_mutex_unlock(&a->mu);
	return rc;
}

/* ---- Keys ------------------------------------------------------------- */

int adapt_key(struct adapt *a, const char *url, size_t len, char *out,
	      struct norm_url *u)
{
	return adapt_key_u(a, url, len, NULL, out, u);
}

/* The steps of host h (a struct ahost, under a->mu) that apply to url:
 * its own, and its scoped steps where url is in their scope.  Also what
 * norm_rules_apply() applies to a URL a DUST rule wrote, so that a key
 * is the key of the URL the rule wrote (/story?id=7 written /stories/7
 * is keyed as /stories/7 is, whatever shape /story had). */
static uint32_t host_steps(const void *arg, const char *url,
			   const struct norm_url *u)
{
	const struct ahost *h = arg;
	uint32_t steps = h->steps | h->shape_steps[shape_of(url, u)];
	for (size_t i = 0; i < h->n_routed; i++)
		if (!(steps & h->routed[i]->r.step) &&
		    rule_covers(h->routed[i], url, u))
			steps |= h->routed[i]->r.step;
	return steps;
}

int adapt_key_u(struct adapt *a, const char *url, size_t len,
		const struct norm_url *url_u, char *out, struct norm_url *u)
{
	struct norm_url su;
	int rc = 0;
	if (url_u)
		su = *url_u;
	else
		rc = norm_split(url, len, &su);
	if (rc)
		return rc;
	pthread_mutex_lock(&a->mu);
	const struct ahost *h = host_find(a, url + su.host_off, su.host_len);
	struct norm_hostrules hr = { 0 };
	if (h && h->alias) {
		hr.alias = h->alias;
		hr.alias_len = strlen(h->alias);
		h = host_find(a, h->alias, hr.alias_len);
	}
	if (h) {
		hr.steps = host_steps(h, url, &su);
		hr.rewrite_steps = host_steps;
		hr.rewrite_arg = h;
		hr.params = h->params;
		hr.n_params = h->n_params;
		hr.dust = h->dust;
		hr.n_dust = h->n_dust;
	}
	if (!hr.alias && !hr.steps && !hr.n_params && !hr.n_dust) {
		pthread_mutex_unlock(&a->mu);
		memcpy(out, url, len);
		out[len] = '\0';
		*u = su;
		return 0;
	}
	rc = norm_rules_apply(&hr, url, len, &su, out, NORM_URL_MAX + 1, u);
	pthread_mutex_unlock(&a->mu);
	if (rc)
		return rc;
	return u->len != len || memcmp(out, url, len) != 0;
}

int adapt_lease_key(struct adapt *a, const char *url, size_t len, char *out,
		    struct norm_url *u)
{
	int rc = adapt_key(a, url, len, out, u);
	if (rc < 0)
		return rc;
	unsigned char k[SC_KEY_LEN];
	sc_url_key(url, len, k);
	pthread_mutex_lock(&a->mu);
	const struct tval *t = tab_get(rc ? &a->audit_ix : &a->cover_ix,
				       get_be64(k));
	bool found = t && t->a;
	pthread_mutex_unlock(&a->mu);
	if (rc == 1)
		return found ? 0 : 1; /* an audit is fetched as it is */
	return found ? 2 : 0;
}

bool adapt_learning(struct adapt *a, const char *host, size_t len)
{
	pthread_mutex_lock(&a->mu);
	const struct ahost *h = host_find(a, host, len);
	bool learning = (h && (h->learning || h->skip_candidates)) ||
			claim_learning(a, host, len);
	pthread_mutex_unlock(&a->mu);
	return learning;
}

int adapt_claim(struct adapt *a, const char *key, size_t len)
{
	pthread_mutex_lock(&a->mu);
	bool added;
	struct tval *t = tab_put(&a->claims, hash_str(key, len), &added);
	pthread_mutex_unlock(&a->mu);
	if (!t)
		return SC_E_NOMEM;
	return added;
}

void adapt_stats(struct adapt *a, struct crawl_rule_stats *ret)
{
	pthread_mutex_lock(&a->mu);
	*ret = a->st;
	pthread_mutex_unlock(&a->mu);
}

/* ---- Listing ---------------------------------------------------------- */

struct list_ctx {
	int (*fn)(void *arg, const struct adapt_rule_info *r);
	void *arg;
	struct adapt_rule_info info;
};

static int list_one(void *arg, const void *key, size_t klen, const void *val,
		    size_t vlen)
{
	struct list_ctx *l = arg;
	if (klen != 5)
		return SC_E_CORRUPT;
	struct arule r;
	struct adapt_rule_info *in = &l->info;
	int rc = rule_decode(val, vlen,
			     get_be32((const unsigned char *)key + 1), &r,
			     in->counter_a, in->counter_b);
	if (rc)
		return rc;
	in->id = r.id;
	in->state = r.state;
	in->transferred = r.transferred;
	snprintf(in->host, sizeof(in->host), "%s", r.scope);
	if (norm_rule_describe(&r.r, in->text, sizeof(in->text)))
		snprintf(in->text, sizeof(in->text), "(too long)");
	in->support = r.support;
	in->counters = r.counters;
	in->audits = r.audits;
	in->audit_failures = r.audit_fail;
	in->held = r.held;
	in->saved = r.saved;
	in->created_ms = r.created;
	in->changed_ms = r.changed;
	return l->fn(l->arg, in);
}

int adapt_list(struct store *s, MDB_txn *txn,
	       int (*fn)(void *arg, const struct adapt_rule_info *r), void *arg)
{
	struct list_ctx *l = malloc(sizeof(*l));
	if (!l)
		return SC_E_NOMEM;
	l->fn = fn;
	l->arg = arg;
	int rc = store_adapt_scan(s, txn, "r", 1, list_one, l);
	free(l);
	return rc;
}
