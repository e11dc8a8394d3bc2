/* adapt-evidence.c — adaptive normalization's evidence and its gate (the
 * design is told at the top of adapt.c): rule kinds across hosts, which
 * let transfer apply a rule on less support; every page seen through the
 * candidates' images (eval_page()); new candidates from pairs of equal
 * pages, redirects and canonical hints (propose(), pair()); the gate that
 * activates, refutes and retires rules and has the candidates judged
 * again when a host's active set changes (gate(), rejudge()); and the
 * writer's calls that bring the evidence in: adapt_page(), adapt_failed(),
 * adapt_redirect(), adapt_hint(). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "adapt-int.h"

/* Distinct folded paths that make a signature generic. */
#define GENERIC_PATHS 3

/* ---- The gate's bounds ------------------------------------------------ */

/* ---- Rule kinds across hosts ---------------------------------------- */

/* What a rule does, whatever host it is scoped to: "ignore parameter sid"
 * on one host and on another are one kind, and every alias is one kind,
 * "www.X = X" (the only aliases proposed). */
static uint64_t kind_hash(const struct norm_rule *r)
{
	if (r->kind == NORM_RULE_ALIAS)
		return XXH3_64bits_withSeed("alias", 5, r->kind);
	uint64_t h = XXH3_64bits_withSeed(r->a, strlen(r->a),
					  ((uint64_t)r->kind << 32) | r->step);
	h = XXH3_64bits_withSeed(r->from, strlen(r->from), h);
	return XXH3_64bits_withSeed(r->to, strlen(r->to), h);
}

static bool same_kind(const struct arule *x, const struct arule *y)
{
	if (x->r.kind == NORM_RULE_ALIAS || y->r.kind == NORM_RULE_ALIAS)
		return x->r.kind == y->r.kind;
	return x->r.kind == y->r.kind && x->r.step == y->r.step &&
	       strcmp(x->r.a, y->r.a) == 0 &&
	       strcmp(x->r.from, y->r.from) == 0 &&
	       strcmp(x->r.to, y->r.to) == 0;
}

/* A kind's count moved by delta for a rule in state. */
static void kind_move(struct tval *t, uint8_t state, int delta)
{
	uint64_t *n = state == ADAPT_ACTIVE                              ? &t->a
		      : state == ADAPT_RETIRED || state == ADAPT_REFUTED ? &t->b
									 : NULL;
	if (n && (delta > 0 || *n))
		*n += (uint64_t)(int64_t)delta;
}

/* Whether a kind holds on enough hosts that one document of a new host
 * is evidence enough there: the Wilson lower bound of the share of hosts
 * where it is active (against those where it was refuted or retired), at
 * the rules' own confidence, is above one half.  With no failure that is
 * three hosts at 0.95, four at 0.975. */
static bool kind_holds(const struct adapt *a, const struct tval *t)
{
	return a->o.transfer && t && t->a &&
	       wilson_lower(t->a, t->a + t->b, a->z) > 0.5;
}

/* Whether candidate r may apply on less than min_support: its kind
 * holds on other hosts (r, a candidate, is not counted in its kind). */
static bool kind_prior(const struct adapt *a, const struct arule *r)
{
	return kind_holds(a, tab_get(&a->kinds, kind_hash(&r->r)));
}

/* Count a rule in its kind (and make the kind's entry, so that moving it
 * later allocates nothing).  SC_E_NOMEM. */
int kind_add(struct adapt *a, const struct arule *r)
{
	bool added;
	struct tval *t = tab_put(&a->kinds, kind_hash(&r->r), &added);
	if (!t)
		return SC_E_NOMEM;
	kind_move(t, r->state, 1);
	return 0;
}

/* Rule r went from state old to its own: move it in its kind's counts.
 * When that made the kind hold, the kind's candidates that have support
 * are gated again. */
static void kind_changed(struct adapt *a, const struct arule *r, uint8_t old)
{
	struct tval *t = tab_get(&a->kinds, kind_hash(&r->r));
	if (!t)
		return;
	bool held = kind_holds(a, t);
	kind_move(t, old, -1);
	kind_move(t, r->state, 1);
	if (held || !kind_holds(a, t))
		return;
	for (size_t i = 0; i < a->n_rules; i++) {
		struct arule *c = &a->rules[i];
		if (c->state == ADAPT_CANDIDATE && c->support && !c->counters &&
		    same_kind(c, r))
			mark_dirty(a, c);
	}
}

/* ---- Evidence --------------------------------------------------------- */

/* A URL's path folded as far as the fixed steps go (lower case, no
 * trailing slash, no default page, no query): three different folds under
 * one signature make it generic. */
uint64_t fold_hash(const char *url, const struct norm_url *u)
{
	char p[NORM_URL_MAX + 1];
	size_t n = 0;
	/* Lower case, and without path parameters (";jsessionid=..."): a
	 * page seen under three session ids is one path, not a generic
	 * text. */
	for (size_t i = 0; i < u->path_len; i++) {
		char ch = url[u->path_off + i];
		if (ch == ';') {
			while (i + 1 < u->path_len &&
			       url[u->path_off + i + 1] != '/')
				i++;
			continue;
		}
		p[n++] = ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
	}
	size_t slash = n;
	while (slash > 0 && p[slash - 1] != '/')
		slash--;
	if (n - slash >= 6 &&
	    (strncmp(p + slash, "index.", 6) == 0 ||
	     (n - slash >= 8 && strncmp(p + slash, "default.", 8) == 0)))
		n = slash;
	while (n > 1 && p[n - 1] == '/')
		n--;
	return hash_str(url + u->host_off, u->host_len) ^
	       hash_str(p, n) * 0x9E3779B97F4A7C15ull;
}

static bool generic(struct adapt *a, uint64_t sig)
{
	struct tval *g = tab_get(&a->groups, sig);
	return g && g->c >= GENERIC_PATHS;
}

/* A signature that turned generic supports nothing any more. */
static void withdraw(struct adapt *a, uint64_t sig)
{
	for (size_t i = 0; i < a->n_rules; i++) {
		struct arule *r = &a->rules[i];
		struct tval *v = tab_get(&r->sup, sig);
		if (!v || !v->a)
			continue;
		v->a = 0;
		if (!a->replay && r->support) {
			r->support--;
			mark_dirty(a, r);
		}
	}
}

/* Note that a page of fold f has signature sig.  NULL: no memory. */
int group_note(struct adapt *a, uint64_t sig, uint64_t f)
{
	bool added;
	struct tval *g = tab_put(&a->groups, sig, &added);
	if (!g)
		return SC_E_NOMEM;
	if (g->c >= GENERIC_PATHS)
		return 0;
	f = tkey(f);
	if (g->a == f || g->b == f)
		return 0;
	if (!g->a)
		g->a = f;
	else if (!g->b)
		g->b = f;
	g->c++;
	if (g->c >= GENERIC_PATHS)
		withdraw(a, sig);
	return 0;
}

/* The first counter-example of r: x (xl bytes, not always NUL-terminated:
 * a page's URL read from the store) and y (a string). */
void note_counter(struct arule *r, const char *x, size_t xl, const char *y)
{
	if (r->ca)
		return;
	r->ca = strndup(x, xl);
	r->cb = strdup(y);
}

/* One page through one rule's image.  Returns 1 if it supports the rule
 * (newly), -1 for a counter-example, 0 otherwise, or SC_E_NOMEM.  urls
 * of the image's first page are not kept: a counter-example names the
 * page and the image. */
static int eval_page(struct adapt *a, struct arule *r, const char *url,
		     size_t len, uint64_t uh, uint64_t sig, uint64_t sh,
		     uint64_t media)
{
	if (r->state == ADAPT_REFUTED || r->state == ADAPT_RETIRED)
		return 0;
	char img[NORM_URL_MAX + 1];
	struct norm_url iu;
	bool changed; /* the rule changed this page's URL */
	if (r->state == ADAPT_CANDIDATE) {
		/* A candidate is judged on top of the rules already active:
		 * the page's key under them (two pages they already map
		 * together say nothing about the candidate), then the
		 * candidate, then the active rules again (the image is a
		 * key as adapt_key() would write it). */
		char k[NORM_URL_MAX + 1], t[NORM_URL_MAX + 1];
		struct norm_url ku, tu;
		if (adapt_key(a, url, len, k, &ku) < 0 ||
		    norm_rule_apply(&r->r, k, ku.len, t, sizeof(t), &tu) ||
		    adapt_key(a, t, tu.len, img, &iu) < 0)
			return 0;
		uh = hash_str(k, ku.len);
		changed = tu.len != ku.len || memcmp(t, k, ku.len) != 0;
	} else if (norm_rule_apply(&r->r, url, len, img, sizeof(img), &iu)) {
		return 0;
	} else {
		changed = iu.len != len || memcmp(img, url, len) != 0;
	}
	/* The URL's hash, its low bit whether the rule changed it: two
	 * pages that meet in an image say something of the rule only when
	 * it changed one of them (else the active rules, or a scope that
	 * grew since, made them meet). */
	uh = (uh & ~1ull) | changed;
	bool added;
	struct tval *v = tab_put(&r->img, hash_str(img, iu.len), &added);
	if (!v)
		return SC_E_NOMEM;
	if (added) {
		v->a = sig;
		v->b = uh;
		v->c = sh;
		v->d = media;
		return 0;
	}
	if ((v->b | 1) == (uh | 1) || !((v->b | uh) & 1))
		return 0;
	if (v->a == sig) {
		/* One text with other images (a gallery's photos): maybe
		 * another page, maybe a rotating banner; no evidence. */
		if (generic(a, sig) || v->d != media)
			return 0;
		/* The shapes it holds on grow with its support, in replay
		 * too (they are saved only with the rule). */
		if (scoped(r) && scope_note(a, r, img, &iu))
			mark_dirty(a, r);
		struct tval *s = tab_put(&r->sup, sig, &added);
		if (!s)
			return SC_E_NOMEM;
		if (s->a)
			return 0;
		s->a = 1;
		if (!a->replay)
			support_up(a, r);
		return 1;
	}
	/* Nearly the same text: a page with a line that changes on every
	 * request (an advert, a clock), not another document.  Or a page
	 * seen to change between two fetches of its URL. */
	if (sh && v->c &&
	    (unsigned)__builtin_popcountll(sh ^ v->c) <= NOISE_BITS)
		return 0;
	if (tab_get(&a->noisy, sig) || tab_get(&a->noisy, v->a))
		return 0;
	if (a->replay)
		return 0;
	r->counters++;
	mark_dirty(a, r);
	note_counter(r, url, len, img);
	return -1;
}

/* The rules one host's page goes through: the host's own, and alias rules
 * that name it (as alias or as site). */
int page_rules(struct adapt *a, const char *url, size_t len,
	       const struct norm_url *u, uint64_t sig, uint64_t sh,
	       uint64_t media)
{
	pthread_mutex_lock(&a->mu);
	struct ahost *h = host_find(a, url + u->host_off, u->host_len);
	pthread_mutex_unlock(&a->mu);
	if (!h)
		return 0;
	uint64_t uh = hash_str(url, len);
	for (size_t i = 0; i < h->n_rules; i++) {
		int rc = eval_page(a, &a->rules[h->rules[i]], url, len, uh, sig,
				   sh, media);
		if (rc < -1)
			return rc;
	}
	return 0;
}

/* ---- The gate --------------------------------------------------------- */

static int scan_host_pages(struct adapt *a, MDB_txn *txn, struct arule *r,
			   const char *host);

/* The active set of host changed: its candidates' images are made anew
 * from the host's pages (support already counted stays counted: the
 * supporting signatures are kept). */
static int rejudge(struct adapt *a, MDB_txn *txn, const char *host)
{
	pthread_mutex_lock(&a->mu);
	struct ahost *h = host_find(a, host, strlen(host));
	pthread_mutex_unlock(&a->mu);
	if (!h)
		return 0;
	for (size_t i = 0; i < h->n_rules; i++) {
		struct arule *c = &a->rules[h->rules[i]];
		if (c->state != ADAPT_CANDIDATE)
			continue;
		tab_free(&c->img);
		int rc = scan_host_pages(a, txn, c, c->scope);
		if (!rc && c->r.kind == NORM_RULE_ALIAS)
			rc = scan_host_pages(a, txn, c, c->r.a);
		if (rc)
			return rc;
	}
	return 0;
}

/* A rule of site turned on: the names that are active aliases of site
 * key their pages with its rules too, so their pages are covered and
 * their candidates judged again as well. */
static int cover_aliases(struct adapt *a, MDB_txn *txn, const char *site)
{
	char names[HELD_RULES_MAX][NORM_HOST_MAX + 1];
	size_t n = 0;
	pthread_mutex_lock(&a->mu);
	const struct ahost *h = host_find(a, site, strlen(site));
	for (size_t i = 0; h && i < h->n_rules && n < HELD_RULES_MAX; i++) {
		const struct arule *x = &a->rules[h->rules[i]];
		if (x->r.kind == NORM_RULE_ALIAS && x->state == ADAPT_ACTIVE &&
		    strcmp(x->r.a, site) == 0)
			memcpy(names[n++], x->scope, sizeof(names[0]));
	}
	pthread_mutex_unlock(&a->mu);
	int rc = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		rc = cover_host(a, txn, names[i]);
		if (!rc)
			rc = rejudge(a, txn, names[i]);
	}
	return rc;
}

/* Move rules whose evidence changed through the gate. */
static int gate(struct adapt *a, MDB_txn *txn)
{
	/* The list grows while it is walked (a retirement or a rejudged
	 * candidate marks more): n is read again each time round. */
	for (size_t k = 0; k < (a->dirty_all ? a->n_rules : a->n_dirty); k++) {
		struct arule *r = &a->rules[a->dirty_all ? k : a->dirty_ix[k]];
		if (!r->dirty)
			continue;
		if (r->rescoped && r->state == ADAPT_ACTIVE) {
			/* Its scope grew: pages fetched before whose keys
			 * it now changes cover their new keys, as at its
			 * activation. */
			r->rescoped = false;
			int rc = cover_host(a, txn, r->scope);
			if (!rc)
				rc = rejudge(a, txn, r->scope);
			if (!rc)
				rc = cover_aliases(a, txn, r->scope);
			if (rc)
				return rc;
		}
		uint8_t old = r->state;
		/* Refuted or retired when even the upper bound of its
		 * precision is under the gate: one counter-example ends a
		 * rule with little support, a rule that held on many
		 * documents needs proportionally more. */
		bool fails = r->counters &&
			     wilson_upper(r->support, r->support + r->counters,
					  a->z) < a->retire_below;
		if (r->state == ADAPT_CANDIDATE && fails) {
			r->state = ADAPT_REFUTED;
		} else if (r->state == ADAPT_CANDIDATE &&
			   r->support >= a->o.min_support &&
			   wilson_lower(r->support, r->support + r->counters,
					a->z) > 0.5) {
			r->state = ADAPT_ACTIVE;
		} else if (r->state == ADAPT_CANDIDATE && r->support &&
			   !r->counters && kind_prior(a, r)) {
			r->state = ADAPT_ACTIVE;
			r->transferred = true;
		} else if (r->state == ADAPT_ACTIVE && fails) {
			r->state = ADAPT_RETIRED;
		}
		if (r->state == old)
			continue;
		r->changed = now_ms();
		kind_changed(a, r, old);
		pthread_mutex_lock(&a->mu);
		if (old == ADAPT_CANDIDATE)
			a->st.candidates--;
		if (old == ADAPT_ACTIVE) {
			a->st.active--;
			a->st.saved -= a->st.saved >= r->held ? r->held
							      : a->st.saved;
		}
		if (r->state == ADAPT_ACTIVE)
			a->st.active++;
		else if (r->state == ADAPT_RETIRED)
			a->st.retired++;
		else
			a->st.refuted++;
		struct ahost *h = host_find(a, r->scope, strlen(r->scope));
		if (h)
			host_compile(a, h);
		pthread_mutex_unlock(&a->mu);
		if (r->state == ADAPT_REFUTED || r->state == ADAPT_RETIRED) {
			tab_free(&r->img);
			tab_free(&r->sup);
		}
		if (r->state == ADAPT_RETIRED) {
			int rc = retire(a, txn, r);
			if (rc)
				return rc;
		}
		if (r->state == ADAPT_ACTIVE) {
			int rc = cover_host(a, txn, r->scope);
			if (!rc)
				rc = rejudge(a, txn, r->scope);
			if (!rc && r->r.kind == NORM_RULE_ALIAS)
				rc = rejudge(a, txn, r->r.a);
			if (!rc && r->r.kind != NORM_RULE_ALIAS)
				rc = cover_aliases(a, txn, r->scope);
			if (rc)
				return rc;
		}
	}
	return save_dirty(a, txn);
}

/* ---- New candidates --------------------------------------------------- */

struct backfill {
	struct adapt *a;
	struct arule *r;
};

static int backfill_page(void *arg, const void *key, size_t klen,
			 const void *val, size_t vlen)
{
	struct backfill *b = arg;
	(void)key;
	if (klen != 25 || vlen <= PAGE_HEAD)
		return SC_E_CORRUPT;
	const unsigned char *v = val;
	const char *url = (const char *)v + PAGE_HEAD;
	size_t len = vlen - PAGE_HEAD;
	int rc = eval_page(b->a, b->r, url, len, hash_str(url, len), sig64(v),
			   get_be64(v + 20), get_be64(v + 28));
	return rc < -1 ? rc : 0;
}

static int scan_host_pages(struct adapt *a, MDB_txn *txn, struct arule *r,
			   const char *host)
{
	unsigned char prefix[9] = { PAGE_BYTE };
	put_be64(prefix + 1, hash_str(host, strlen(host)));
	struct backfill b = { a, r };
	return store_adapt_scan(a->s, txn, prefix, sizeof(prefix),
				backfill_page, &b);
}

/* A new candidate (unless the host has it already, or too many), its
 * evidence read from the host's pages. */
static int propose(struct adapt *a, MDB_txn *txn, const char *scope,
		   const struct norm_rule *nr, uint32_t *idx_out)
{
	pthread_mutex_lock(&a->mu);
	struct ahost *h = host_find(a, scope, strlen(scope));
	pthread_mutex_unlock(&a->mu);
	*idx_out = UINT32_MAX;
	if (h) {
		for (size_t i = 0; i < h->n_rules; i++)
			if (same_rule(&a->rules[h->rules[i]], scope, nr)) {
				*idx_out = h->rules[i];
				return 0;
			}
		if (h->own >= HOST_RULES_MAX)
			return 0;
	}
	struct arule r = { .id = a->next_id++, .state = ADAPT_CANDIDATE };
	snprintf(r.scope, sizeof(r.scope), "%s", scope);
	r.r = *nr;
	r.created = r.changed = now_ms();
	uint32_t idx;
	int rc = add_rule_mem(a, &r, &idx);
	if (rc)
		return rc;
	*idx_out = idx;
	struct arule *ar = &a->rules[idx];
	if ((rc = scan_host_pages(a, txn, ar, scope)))
		return rc;
	if (nr->kind == NORM_RULE_ALIAS &&
	    (rc = scan_host_pages(a, txn, ar, nr->a)))
		return rc;
	mark_dirty(a, ar);
	return save_next_id(a, txn);
}

/* Is x "www." followed by y? */
static bool www_of(const char *x, size_t xl, const char *y, size_t yl)
{
	return xl == yl + 4 && memcmp(x, "www.", 4) == 0 &&
	       memcmp(x + 4, y, yl) == 0;
}

/* A pair that only several rules together explain supports each of
 * them: one document, seen under two forms that differ by exactly what
 * those rules rewrite (each is needed), on a server consistent enough to
 * serve it under both.  Without this a host whose links vary in several
 * ways at once (case and slash and a session id) would have to show each
 * difference alone, three times, before anything applies. */
static void joint_support(struct adapt *a, const uint32_t *ids, size_t n,
			  uint64_t doc, const char *url,
			  const struct norm_url *u)
{
	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		struct arule *r = &a->rules[ids[i]];
		if (r->state != ADAPT_CANDIDATE)
			continue;
		if (scoped(r) && scope_note(a, r, url, u))
			mark_dirty(a, r);
		bool added;
		struct tval *t = tab_put(&r->sup, doc, &added);
		if (!t || t->a)
			continue;
		t->a = 1;
		support_up(a, r);
	}
}

/* The candidates a pair of equal URLs (strict) proposes; doc names their
 * document (its signature, or a redirect's target). */
static int pair(struct adapt *a, MDB_txn *txn, const char *x, size_t xl,
		const char *y, size_t yl, uint64_t doc, bool evidence)
{
	uint32_t ids[17];
	size_t n_ids = 0;
	struct norm_url ux, uy;
	if (norm_split(x, xl, &ux) || norm_split(y, yl, &uy))
		return 0;
	const char *hx = x + ux.host_off, *hy = y + uy.host_off;
	char scope[NORM_HOST_MAX + 1];
	char ky[NORM_URL_MAX + 1], kx[NORM_URL_MAX + 1];
	struct norm_url kux, kuy;
	int rc;
	if (ux.host_len != uy.host_len || memcmp(hx, hy, ux.host_len) != 0) {
		/* Two names of one site, or not. */
		const char *www = NULL, *site = NULL;
		size_t wl = 0, sl = 0;
		if (www_of(hx, ux.host_len, hy, uy.host_len)) {
			www = hx, wl = ux.host_len, site = hy, sl = uy.host_len;
		} else if (www_of(hy, uy.host_len, hx, ux.host_len)) {
			www = hy, wl = uy.host_len, site = hx, sl = ux.host_len;
		}
		if (!www || wl > NORM_HOST_MAX)
			return 0;
		struct norm_rule al = { .kind = NORM_RULE_ALIAS };
		memcpy(al.host, www, wl);
		memcpy(al.a, site, sl);
		memcpy(scope, www, wl);
		scope[wl] = '\0';
		if ((rc = propose(a, txn, scope, &al, &ids[n_ids])))
			return rc;
		n_ids += ids[n_ids] != UINT32_MAX;
		/* The rest of the difference, on the site's name. */
		if ((rc = norm_rule_apply(&al, x, xl, kx, sizeof(kx), &kux)) ||
		    (rc = norm_rule_apply(&al, y, yl, ky, sizeof(ky), &kuy)))
			return 0;
	} else {
		memcpy(kx, x, xl + 1);
		memcpy(ky, y, yl + 1);
		kux = ux;
		kuy = uy;
	}
	/* What the site's active rules explain already is no news. */
	char px[NORM_URL_MAX + 1], py[NORM_URL_MAX + 1];
	struct norm_url pux, puy;
	if (adapt_key(a, kx, kux.len, px, &pux) < 0 ||
	    adapt_key(a, ky, kuy.len, py, &puy) < 0)
		return 0;
	if (pux.len == puy.len && memcmp(px, py, pux.len) == 0)
		return 0;
	struct norm_rule c[16];
	size_t n = norm_rules_derive(px, pux.len, py, puy.len, c, 16);
	memcpy(scope, px + pux.host_off, pux.host_len);
	scope[pux.host_len] = '\0';
	for (size_t i = 0; i < n; i++) {
		if ((rc = propose(a, txn, scope, &c[i], &ids[n_ids])))
			return rc;
		n_ids += ids[n_ids] != UINT32_MAX;
	}
	if (evidence)
		joint_support(a, ids, n_ids, doc, px, &pux);
	return 0;
}

/* Do the images of the page fetched as url (its 'q' entry) equal media?
 * One text under two URLs with other images (a gallery's photos) is no
 * pair: it proposes and supports nothing.  A page not kept counts as the
 * same. */
static bool same_media(struct adapt *a, MDB_txn *txn, const char *url,
		       size_t len, uint64_t media)
{
	struct norm_url u;
	if (norm_split(url, len, &u))
		return true;
	unsigned char key[PAGE_KEY_LEN];
	page_key(url, len, &u, key);
	const void *v;
	size_t vl;
	if (store_adapt_get(a->s, txn, key, sizeof(key), &v, &vl) ||
	    vl < PAGE_HEAD)
		return true;
	return get_be64((const unsigned char *)v + 28) == media;
}

/* An audit that found its key's page (the same text and images) is a
 * document in support of every rule that held it, as one that finds
 * another page counts against each of them (audit_counter()): a URL
 * held by three rules together meets its key in none of their images
 * alone.  Returns 0 or a store error. */
static int audit_pass(struct adapt *a, MDB_txn *txn, const char *url,
		      size_t len, const struct adapt_fetch *f, uint64_t sig,
		      const uint32_t *ids, size_t n)
{
	char k[NORM_URL_MAX + 1];
	size_t kl = key_of(a, url, len, k);
	if (!n || !kl || (kl == len && memcmp(k, url, len) == 0) ||
	    generic(a, sig))
		return 0;
	unsigned char tk[SC_KEY_LEN];
	sc_url_key(k, kl, tk);
	struct store_record tr;
	int rc = store_get(a->s, txn, tk, &tr);
	if (rc == SC_E_NOTFOUND)
		return 0;
	if (rc)
		return rc;
	if (!tr.fetched || !tr.has_signature ||
	    memcmp(tr.signature, f->sig, 16) != 0 ||
	    !same_media(a, txn, tr.url, tr.url_len, f->media))
		return 0;
	for (size_t i = 0; i < n; i++) {
		struct arule *r = &a->rules[ids[i]];
		bool added;
		struct tval *t = tab_put(&r->sup, sig, &added);
		if (!t)
			return SC_E_NOMEM;
		if (!t->a) {
			t->a = 1;
			support_up(a, r);
		}
	}
	return 0;
}

/* ---- The writer's calls ----------------------------------------------- */

int adapt_page(struct adapt *a, MDB_txn *txn, const struct adapt_fetch *f)
{
	const char *url = f->url;
	size_t len = f->len;
	struct norm_url u;
	if (norm_split(url, len, &u))
		return 0;
	unsigned char key[PAGE_KEY_LEN];
	page_key(url, len, &u, key);
	const void *v;
	size_t vl;
	int rc = store_adapt_get(a->s, txn, key, sizeof(key), &v, &vl);
	if (rc == 0 && vl >= 16 && memcmp(v, f->sig, 16) != 0) {
		/* Fetched again (under another key, or after a crash) with
		 * another text: a page that changes by itself.  Neither text
		 * is a counter-example for any rule. */
		uint64_t both[2] = { sig64(v), sig64(f->sig) };
		for (size_t i = 0; i < 2; i++) {
			bool added;
			unsigned char nk[9] = { 'n' };
			put_be64(nk + 1, both[i]);
			if (!tab_put(&a->noisy, both[i], &added))
				return SC_E_NOMEM;
			if (added && (rc = store_adapt_put(a->s, txn, nk,
							   sizeof(nk), "", 0)))
				return rc;
		}
		return 0;
	}
	if (rc == 0)
		return 0; /* fetched again after a crash: counted once */
	if (rc != SC_E_NOTFOUND)
		return rc;
	uint64_t sh = f->has_simhash ? f->simhash : 0;
	unsigned char val[PAGE_HEAD + NORM_URL_MAX];
	memcpy(val, f->sig, 16);
	put_be16(val + 16, f->depth);
	put_be16(val + 18, f->category);
	put_be64(val + 20, sh);
	put_be64(val + 28, f->media);
	memcpy(val + PAGE_HEAD, url, len);
	if ((rc = store_adapt_put(a->s, txn, key, sizeof(key), val,
				  PAGE_HEAD + len)))
		return rc;
	uint64_t s = sig64(f->sig);
	if ((rc = group_note(a, s, fold_hash(url, &u))))
		return rc;
	/* The host must exist for its rules to see the page. */
	pthread_mutex_lock(&a->mu);
	struct ahost *h = host_get(a, url + u.host_off, u.host_len);
	pthread_mutex_unlock(&a->mu);
	if (!h)
		return SC_E_NOMEM;
	/* An audit's result: a rule that meets a counter-example among
	 * the host's pages has its audit failed. */
	unsigned char akey[17] = { 'a' };
	sc_url_key(url, len, akey + 1);
	uint32_t aids[HELD_RULES_MAX];
	uint64_t before[HELD_RULES_MAX];
	size_t n_aids = 0;
	rc = store_adapt_get(a->s, txn, akey, sizeof(akey), &v, &vl);
	bool audit = rc == 0;
	if (rc && rc != SC_E_NOTFOUND)
		return rc;
	for (size_t i = 0; audit && i + 4 <= vl && n_aids < HELD_RULES_MAX;
	     i += 4) {
		struct arule *r = find_rule(
			a, get_be32((const unsigned char *)v + i));
		if (!r)
			continue;
		aids[n_aids] = (uint32_t)(r - a->rules);
		before[n_aids++] = r->counters;
	}
	if ((rc = page_rules(a, url, len, &u, s, sh, f->media)))
		return rc;
	bool failed = false;
	for (size_t i = 0; i < n_aids; i++) {
		struct arule *r = &a->rules[aids[i]];
		if (r->counters > before[i]) {
			r->audit_fail++;
			mark_dirty(a, r);
			failed = true;
		}
	}
	if (audit && !failed &&
	    (rc = audit_pass(a, txn, url, len, f, s, aids, n_aids)))
		return rc;
	if (failed) {
		/* The audit found another page under the key: whatever the
		 * rule's fate, every URL held onto that key is fetched,
		 * each one evidence of its own (status 0: judged by its
		 * text alone). */
		char k[NORM_URL_MAX + 1];
		size_t kl = key_of(a, url, len, k);
		if (kl && (rc = release_key(a, txn, k, kl, 0, true)))
			return rc;
	}
	if (audit) {
		/* Held onto a key whose page was bad: this form is a page
		 * of its own (gone against a page, or another page than
		 * the redirect's target), a counter-example. */
		unsigned st = 0;
		if ((rc = audit_bad(a, txn, akey, &st)) < 0)
			return rc;
		if (rc == 1 && !generic(a, s)) {
			bool counter = st == 404 || st == 410 || st == 200;
			/* The key redirected: this form's text against
			 * the target's page. */
			char k0[NORM_URL_MAX + 1], kt[NORM_URL_MAX + 1];
			size_t k0l = key_of(a, url, len, k0), ktl = 0;
			unsigned char tk[SC_KEY_LEN];
			struct store_record tr;
			if (st >= 300 && st < 400 && k0l &&
			    (ktl = key_target(a, txn, k0, k0l, kt)) != 0) {
				sc_url_key(kt, ktl, tk);
				if (store_get(a->s, txn, tk, &tr) == 0 &&
				    tr.has_signature)
					counter =
						memcmp(tr.signature, f->sig,
						       16) &&
						!(sh && tr.has_simhash &&
						  (unsigned)__builtin_popcountll(
							  sh ^ tr.simhash) <=
							  NOISE_BITS);
			}
			if (counter) {
				const void *ids;
				size_t il;
				char k[NORM_URL_MAX + 1];
				size_t kl = key_of(a, url, len, k);
				if (store_adapt_get(a->s, txn, akey,
						    sizeof(akey), &ids,
						    &il) == 0)
					audit_counter(a, ids, il, url,
						      kl ? k : url);
				/* The key is proven wrong: every URL
				 * held onto it is fetched. */
				if (kl &&
				    (rc = release_key(a, txn, k, kl, st, true)))
					return rc;
			}
		}
		if ((rc = audit_end(a, txn, akey)))
			return rc;
	}
	if (f->rep && !f->near && !generic(a, s) &&
	    same_media(a, txn, f->rep, f->rep_len, f->media) &&
	    (rc = pair(a, txn, url, len, f->rep, f->rep_len, s, true)))
		return rc;
	/* The page of a key that a soft 404 answers: the URLs held onto
	 * it are fetched after all. */
	if (f->key && generic(a, s) &&
	    (rc = release_key(a, txn, f->key, f->key_len, 200, false)))
		return rc;
	if ((rc = gate(a, txn)))
		return rc;
	/* Fetched under a form the rules rewrite (queued before they
	 * applied, or an audit): its key is known from now on. */
	return cover_one_as(a, txn, url, len, f->key, f->key_len, f->depth,
			    f->category);
}

int adapt_failed(struct adapt *a, MDB_txn *txn, const char *url, size_t len,
		 const char *key, size_t key_len, int status)
{
	unsigned char akey[17] = { 'a' };
	sc_url_key(url, len, akey + 1);
	const void *v;
	size_t vl;
	int rc = store_adapt_get(a->s, txn, akey, sizeof(akey), &v, &vl);
	if (rc && rc != SC_E_NOTFOUND)
		return rc;
	bool gone = status == 404 || status == 410;
	if (rc == 0) {
		/* An audit.  Held onto a bad key, and bad too: the two
		 * agree.  Else gone where its key answered with a page: the
		 * rule mapped a dead form onto a live page. */
		unsigned st = 0;
		if ((rc = audit_bad(a, txn, akey, &st)) < 0)
			return rc;
		char k[NORM_URL_MAX + 1];
		size_t kl = key_of(a, url, len, k);
		if (rc == 0 && gone && kl) {
			unsigned char rk[SC_KEY_LEN];
			struct store_record r;
			sc_url_key(k, kl, rk);
			if (store_get(a->s, txn, rk, &r) == 0 && r.fetched &&
			    r.status == 200 && r.has_signature)
				audit_counter(a, v, vl, url, k);
		}
		if ((rc = audit_end(a, txn, akey)))
			return rc;
		return gate(a, txn);
	}
	if (!gone || !key)
		return 0;
	rc = release_key(a, txn, key, key_len, status, false);
	return rc ? rc : gate(a, txn);
}

int adapt_redirect(struct adapt *a, MDB_txn *txn, const char *from,
		   size_t from_len, const char *to, size_t to_len,
		   const char *key, size_t key_len)
{
	uint64_t doc = hash_str(to, to_len) | 1ull << 63;
	int rc = pair(a, txn, from, from_len, to, to_len, doc, true);
	if (rc)
		return rc;
	/* An audit that redirects: where its bad key's page redirected
	 * too, the same target agrees; another is a counter-example. */
	unsigned char akey[17] = { 'a' };
	sc_url_key(from, from_len, akey + 1);
	const void *v;
	size_t vl;
	if ((rc = store_adapt_get(a->s, txn, akey, sizeof(akey), &v, &vl)) ==
	    0) {
		/* Targets compare by the keys the rules give them now; an
		 * audit redirected onto its own key (a chain's first hop)
		 * agrees, and so does one whose key's redirect is not on
		 * record. */
		unsigned st = 0;
		if ((rc = audit_bad(a, txn, akey, &st)) < 0)
			return rc;
		char k[NORM_URL_MAX + 1], tkey[NORM_URL_MAX + 1];
		char kt[NORM_URL_MAX + 1];
		size_t kl = rc == 1 && st >= 300 && st < 400
				    ? key_of(a, from, from_len, k)
				    : 0;
		size_t tl = kl ? key_of(a, to, to_len, tkey) : 0;
		if (kl && !tl) {
			memcpy(tkey, to, to_len);
			tkey[to_len] = '\0';
			tl = to_len;
		}
		size_t ktl = kl ? key_target(a, txn, k, kl, kt) : 0;
		if (ktl && !(ktl == tl && memcmp(kt, tkey, tl) == 0) &&
		    !(tl == kl && memcmp(tkey, k, kl) == 0)) {
			audit_counter(a, v, vl, from, k);
			if ((rc = release_key(a, txn, k, kl, (int)st, true)))
				return rc;
		}
		if ((rc = audit_end(a, txn, akey)))
			return rc;
	} else if (rc != SC_E_NOTFOUND) {
		return rc;
	}
	/* The key's page redirected elsewhere than to the key itself: what
	 * the rules held onto the key is fetched after all. */
	if (key && !(to_len == key_len && memcmp(to, key, key_len) == 0)) {
		char k[NORM_URL_MAX + 1];
		size_t kl = key_of(a, to, to_len, k);
		if (!(kl == key_len && memcmp(k, key, key_len) == 0) &&
		    (rc = release_key(a, txn, key, key_len, 301, false)))
			return rc;
	}
	/* Support: the rules that map the two together, the target standing
	 * for the document. */
	struct norm_url u;
	if (norm_split(from, from_len, &u))
		return 0;
	pthread_mutex_lock(&a->mu);
	struct ahost *h = host_find(a, from + u.host_off, u.host_len);
	pthread_mutex_unlock(&a->mu);
	if (!h)
		return gate(a, txn);
	for (size_t i = 0; i < h->n_rules; i++) {
		struct arule *r = &a->rules[h->rules[i]];
		if (r->state != ADAPT_CANDIDATE && r->state != ADAPT_ACTIVE)
			continue;
		char x[NORM_URL_MAX + 1], y[NORM_URL_MAX + 1];
		struct norm_url xu, yu;
		if (norm_rule_apply(&r->r, from, from_len, x, sizeof(x), &xu) ||
		    norm_rule_apply(&r->r, to, to_len, y, sizeof(y), &yu) ||
		    xu.len != yu.len || memcmp(x, y, xu.len) != 0)
			continue;
		if (scoped(r) && scope_note(a, r, from, &u))
			mark_dirty(a, r);
		bool added;
		struct tval *s = tab_put(&r->sup, doc, &added);
		if (!s)
			return SC_E_NOMEM;
		if (!s->a) {
			s->a = 1;
			support_up(a, r);
		}
	}
	return gate(a, txn);
}

int adapt_hint(struct adapt *a, MDB_txn *txn, const char *url, size_t len,
	       const char *canonical, size_t canonical_len)
{
	int rc = pair(a, txn, url, len, canonical, canonical_len, 0, false);
	return rc ? rc : gate(a, txn);
}
