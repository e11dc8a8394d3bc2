/* adapt.c — adaptive normalization (SPEC §7): per-host rewrite rules
 * learned from pages the crawl found equal, verified before they apply,
 * audited while they apply, retired without losing a page.  learn.h has
 * the interface, docs/adaptive.md the story.
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

#include "learn.h"
#include "sc.h"

#define RULE_VERSION 2
/* Version 1 had neither the shapes byte nor the keys count. */
#define RULE_HEAD_V1 71
/* Version 2: shapes (2), routes (4 each), keys (8) after version 1's. */
#define RULE_ROUTES_AT 73
#define RULE_KEYS_AT (RULE_ROUTES_AT + 4 * SHAPES * ROUTES_KEPT)
#define RULE_HEAD (RULE_KEYS_AT + 8)
/* Candidates per host at most: pairs of twin pages or soft-404s each
 * propose a rewrite that never earns support; past this many a host gets
 * no new ones. */
#define HOST_RULES_MAX 64
/* Rules one held URL names at most. */
#define HELD_RULES_MAX 8
/* A rules' key onto which this many URLs are held is audited again, and
 * at every doubling of the count (audit_due()). */
#define HEAVY_KEY 4
/* Distinct folded paths that make a signature generic. */
#define GENERIC_PATHS 3
/* Held value: flags(1, ADAPT_HOLD_*), depth(2), category(2), offtopic(1),
 * redirects(1), n ids(1), ids(4 each), found length(2), found, strict. */
#define HELD_HEAD 8
/* A held URL's flag beside learn.h's: a key whose document was fetched
 * under another form (cover_one()); its found URL is that form. */
#define HOLD_COVER 0x80
/* A cover whose key some page linked (queued before its page was
 * fetched under another form, or linked since: adapt_linked()).  A cover
 * without it stands for a key nobody linked: a retirement forgets it
 * rather than fetch it. */
#define HOLD_LINKED 0x40
/* A page's key byte and its value before its URL: signature, depth,
 * category, SimHash, images (parse_page.media).  (Stores of the version before
 * kept pages under 'p', without the SimHash: they are not read, and their rules
 * learn anew.) */
#define PAGE_BYTE 'q'
#define PAGE_HEAD 36
/* Two texts whose SimHashes differ in at most this many bits are one
 * page for the rules' evidence, though their signatures differ: a
 * rotating advert line with a timestamp moves a page of 30 words 3 to 17
 * bits, two pages of different words 18 to 46 (docs/adaptive.md).  Such a
 * pair is no counter-example; it is no support either, which takes the
 * same text. */
#define NOISE_BITS 12
/* The shapes of a URL's last path segment (shape_of()).  A scoped step
 * (one that adds a trailing slash) applies to the URLs of a shape and a
 * route (the path's directory, digits aside: route_of()) it was seen to
 * hold on, and to every route of a shape once it held on ROUTES_ANY of
 * them: learned from /sections that redirect to /sections/, it leaves
 * /gallery/album2 and /story_205 alone. */
enum { SHAPE_ROOT, SHAPE_WORD, SHAPE_FILE, SHAPES };
#define SHAPES_ALL ((1u << SHAPES) - 1)
/* A rule's shapes: the shapes seen (bits 0-2) and those that hold on any
 * route (bits 3-5). */
#define SHAPE_ANY(k) (1u << (SHAPES + (k)))
#define ROUTES_KEPT 1
#define ROUTES_ANY (ROUTES_KEPT + 1)
#define SCOPED_STEPS NORM_ADD_TRAILING_SLASH
/* A rule's state byte: the state, and this bit when transfer made it
 * active (kind_prior()). */
#define RULE_TRANSFERRED 0x80

/* ---- A small open-addressing table of 64-bit keys ------------------- */

struct tval {
	uint64_t a, b, c, d;
};

struct tab {
	uint64_t *k; /* 0: empty */
	struct tval *v;
	size_t cap, n;
};

static uint64_t tkey(uint64_t k)
{
	return k ? k : 1;
}

static struct tval *tab_get(const struct tab *t, uint64_t k)
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
static struct tval *tab_put(struct tab *t, uint64_t k, bool *added)
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

static void tab_free(struct tab *t)
{
	free(t->k);
	free(t->v);
	*t = (struct tab){ 0 };
}

/* ---- State ------------------------------------------------------------ */

struct arule {
	uint32_t id;
	uint8_t state;
	char scope[NORM_HOST_MAX + 1]; /* the host it applies to */
	struct norm_rule r;
	uint64_t support, counters, audits, audit_fail, held, saved;
	/* It held HEAVY_KEY URLs onto one key and one of them was audited
	 * (audit_due()).  In memory: after a restart it may be again. */
	bool heavy_audited;
	bool transferred; /* made active by kind_prior(), on less support */
	/* Where it was seen to hold (a SCOPED_STEPS step applies only
	 * there): the shapes byte (SHAPE_ANY()), and per shape the routes
	 * (route_of(), 0: none) until it holds on any. */
	uint16_t shapes;
	uint32_t routes[SHAPES][ROUTES_KEPT];
	uint64_t keys; /* keys it held URLs onto (audit_due()) */
	/* Active, and its scope grew since its host's pages were last
	 * covered (gate()).  In memory. */
	bool rescoped;
	int64_t created, changed;
	char *ca, *cb;  /* the first counter-example (malloc'd), or NULL */
	struct tab img; /* image hash -> signature, URL hash */
	struct tab sup; /* supporting signatures */
	bool dirty;
};

struct ahost {
	char name[NORM_HOST_MAX + 1];
	uint32_t *rules; /* indices into a->rules: its own and alias rules */
	size_t n_rules, cap_rules;
	unsigned own; /* rules scoped to it */
	/* The active set, compiled (under a->mu), pointing into a->rules
	 * (compile_all() after they move). */
	const char *alias; /* the site's name, or NULL */
	uint32_t steps;
	uint32_t shape_steps[SHAPES]; /* SCOPED_STEPS on any route */
	/* Active scoped rules that hold on some routes only. */
	const struct arule *routed[4];
	size_t n_routed;
	const char *params[HOST_RULES_MAX];
	size_t n_params;
	const struct norm_rule *dust[HOST_RULES_MAX];
	size_t n_dust;
	/* A rule of this host is active, or a candidate without a
	 * counter-example: the host is learning (adapt_learning()). */
	bool learning;
};

struct adapt {
	struct store *s;
	struct frontier *fr;
	struct adapt_opts o;
	double z;             /* one-sided normal quantile of o.confidence */
	double retire_below;  /* o.retire_below, or its default */
	unsigned audit_every; /* o.audit_every, or its default */
	pthread_mutex_t mu;
	struct arule *rules;
	size_t n_rules, cap_rules;
	uint32_t next_id;
	struct ahost *hosts;
	size_t n_hosts, cap_hosts;
	struct tab host_ix; /* host name hash -> index + 1 */
	struct tab groups;  /* signature -> folded path hashes, generic */
	/* Signatures of pages whose text changed between two fetches of
	 * one URL ('n' entries): no counter-example for any rule. */
	struct tab noisy;
	struct tab audit_ix; /* strict URL hash of each audit under way */
	/* Rules' keys (the first 8 bytes of their sc_url_key()) onto which
	 * new links were held: a, how many; b, whether the key's sampled
	 * audit was made.  The writer's. */
	struct tab audited;
	/* Keys whose document was fetched under another form (cover_one()),
	 * by the first 8 bytes of their sc_url_key(): a key queued before
	 * its page was is not fetched again when leased. */
	struct tab cover_ix;
	/* Keys (XXH3) that a lease of a form they rewrite has claimed
	 * (adapt_claim()).  In memory only: a restart forgets them, and
	 * the seen set says the rest. */
	struct tab claims;
	/* Rule kinds (kind_hash()): a, hosts where the kind is active; b,
	 * hosts where it was refuted or retired. */
	struct tab kinds;
	struct crawl_rule_stats st;
	/* The rules whose evidence or counts changed since the last
	 * save_dirty(), by index: the gate and the save visit only these,
	 * not every rule, on each page.  dirty_all: the list could not
	 * grow, visit all. */
	uint32_t *dirty_ix;
	size_t n_dirty, cap_dirty;
	bool dirty_all;
	bool replay; /* adapt_open(): evidence without counting it again */
};

static void mark_dirty(struct adapt *a, struct arule *r)
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
static struct arule *find_rule(struct adapt *a, uint32_t id)
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

static uint64_t sig64(const unsigned char sig[16])
{
	return get_be64(sig);
}

static uint64_t hash_str(const char *s, size_t n)
{
	return XXH3_64bits(s, n);
}

static int64_t now_ms(void)
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

/* Wilson's lower bound on a proportion: k successes of n, quantile z. */
static double wilson_lower(uint64_t k, uint64_t n, double z)
{
	if (!n)
		return 0;
	double p = (double)k / (double)n, nn = (double)n, z2 = z * z;
	return (p + z2 / (2 * nn) -
		z * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn))) /
	       (1 + z2 / nn);
}

/* Wilson's upper bound on a proportion: k successes of n, quantile z. */
static double wilson_upper(uint64_t k, uint64_t n, double z)
{
	if (!n)
		return 1;
	double p = (double)k / (double)n, nn = (double)n, z2 = z * z;
	return (p + z2 / (2 * nn) +
		z * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn))) /
	       (1 + z2 / nn);
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

/* The route of a URL: a hash of its path's directory (up to the last
 * segment, a trailing slash aside), lower case, each run of digits one
 * '#' (never 0). */
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
		if (ch >= '0' && ch <= '9') {
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

static bool scoped(const struct arule *r)
{
	return r->r.kind == NORM_RULE_STEP && (r->r.step & SCOPED_STEPS);
}

/* Does active rule r apply to url (components u)?  Only a scoped step
 * looks at the URL's shape and route. */
static bool rule_covers(const struct arule *r, const char *url,
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

static struct ahost *host_find(struct adapt *a, const char *name, size_t n);
static void host_compile(struct adapt *a, struct ahost *h);

/* r was seen to hold on url: its scope takes in url's shape and route
 * (under a->mu: adapt_key() reads it).  Returns whether that changed
 * it. */
static bool scope_note(struct adapt *a, struct arule *r, const char *url,
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

static struct ahost *host_find(struct adapt *a, const char *name, size_t n)
{
	struct tval *v = tab_get(&a->host_ix, hash_str(name, n));
	if (!v)
		return NULL;
	struct ahost *h = &a->hosts[v->a - 1];
	return strlen(h->name) == n && memcmp(h->name, name, n) == 0 ? h : NULL;
}

/* Under a->mu (the array may move). */
static struct ahost *host_get(struct adapt *a, const char *name, size_t n)
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
static void host_compile(struct adapt *a, struct ahost *h)
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
static void support_up(struct adapt *a, struct arule *r)
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

static int save_dirty(struct adapt *a, MDB_txn *txn)
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

static int save_next_id(struct adapt *a, MDB_txn *txn)
{
	unsigned char v[4];
	put_be32(v, a->next_id);
	return store_adapt_put(a->s, txn, "m", 1, v, sizeof(v));
}

static bool same_rule(const struct arule *x, const char *scope,
		      const struct norm_rule *r)
{
	return x->r.kind == r->kind && strcmp(x->scope, scope) == 0 &&
	       x->r.step == r->step && strcmp(x->r.host, r->host) == 0 &&
	       strcmp(x->r.a, r->a) == 0 && strcmp(x->r.from, r->from) == 0 &&
	       strcmp(x->r.to, r->to) == 0;
}

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
static int kind_add(struct adapt *a, const struct arule *r)
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
static uint64_t fold_hash(const char *url, const struct norm_url *u)
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
static int group_note(struct adapt *a, uint64_t sig, uint64_t f)
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
static void note_counter(struct arule *r, const char *x, size_t xl,
			 const char *y)
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

/* ---- Opening -------------------------------------------------------- */

static int add_rule_mem(struct adapt *a, const struct arule *src,
			uint32_t *idx);

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

/* The rules one host's page goes through: the host's own, and alias rules
 * that name it (as alias or as site). */
static int page_rules(struct adapt *a, const char *url, size_t len,
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

int adapt_linked(struct adapt *a, MDB_txn *txn, const char *url, size_t len)
{
	unsigned char hkey[17] = { 'h' };
	sc_url_key(url, len, hkey + 1);
	pthread_mutex_lock(&a->mu);
	const struct tval *t = tab_get(&a->cover_ix, get_be64(hkey + 1));
	bool covered = t && t->a;
	pthread_mutex_unlock(&a->mu);
	if (!covered)
		return 0;
	const void *v;
	size_t vl;
	int rc = store_adapt_get(a->s, txn, hkey, sizeof(hkey), &v, &vl);
	if (rc)
		return rc == SC_E_NOTFOUND ? 0 : rc;
	const unsigned char *p = v;
	if (vl < 1 || !(p[0] & HOLD_COVER) || (p[0] & HOLD_LINKED))
		return 0;
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
	pthread_mutex_destroy(&a->mu);
	free(a);
}

/* Add a rule to memory and to its hosts' lists (an alias rule to both
 * names).  Counts it in the stats. */
static int add_rule_mem(struct adapt *a, const struct arule *src, uint32_t *idx)
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
		hr.steps = h->steps | h->shape_steps[shape_of(url, &su)];
		for (size_t i = 0; i < h->n_routed; i++)
			if (!(hr.steps & h->routed[i]->r.step) &&
			    rule_covers(h->routed[i], url, &su))
				hr.steps |= h->routed[i]->r.step;
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
	bool learning = h && h->learning;
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

static int held_put(struct adapt *a, MDB_txn *txn, const unsigned char *key,
		    const struct frontier_url *fu, unsigned flags,
		    const char *strict, size_t sl, const uint32_t *ids,
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
		put_be32(p, a->rules[ids[i]].id);
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

static int retire(struct adapt *a, MDB_txn *txn, struct arule *r)
{
	struct held_scan hs = { .id = r->id };
	int rc = store_adapt_scan(a->s, txn, "h", 1, collect_held, &hs);
	for (size_t i = 0; i < hs.n && !rc; i++)
		rc = requeue(a, txn, &hs.v[i]);
	for (size_t i = 0; i < hs.n; i++)
		free(hs.v[i].val);
	free(hs.v);
	if (!rc) {
		r->held = 0;
		mark_dirty(a, r);
	}
	return rc;
}

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
static int cover_one_as(struct adapt *a, MDB_txn *txn, const char *url,
			size_t len, const char *own, size_t own_len,
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
static int cover_one_as(struct adapt *a, MDB_txn *txn, const char *url,
			size_t len, const char *own, size_t own_len,
			uint16_t depth, uint16_t cat)
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

static int cover_host(struct adapt *a, MDB_txn *txn, const char *host)
{
	unsigned char prefix[9] = { PAGE_BYTE };
	put_be64(prefix + 1, hash_str(host, strlen(host)));
	struct cover cv = { a, txn };
	return store_adapt_scan(a->s, txn, prefix, sizeof(prefix), cover_page,
				&cv);
}

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
static int release_key(struct adapt *a, MDB_txn *txn, const char *key,
		       size_t klen, int status, bool all)
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
static void audit_counter(struct adapt *a, const void *ids, size_t vl,
			  const char *url, const char *key)
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
static int audit_bad(struct adapt *a, MDB_txn *txn,
		     const unsigned char akey[17], unsigned *status)
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
static int audit_end(struct adapt *a, MDB_txn *txn, const unsigned char *akey)
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
static size_t key_of(struct adapt *a, const char *url, size_t len, char *key)
{
	struct norm_url ku;
	return adapt_key(a, url, len, key, &ku) == 1 ? ku.len : 0;
}

/* Where the record of key (a rules' key) redirected, as the rules key it
 * now (the target itself when none changes it), into out (NORM_URL_MAX +
 * 1): its length, or 0 when key has no record that redirects.  Keys
 * compare under the rules of the moment: a target keyed when an alias or
 * a case rule was not yet active still meets its twin. */
static size_t key_target(struct adapt *a, MDB_txn *txn, const char *key,
			 size_t kl, char *out)
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
	unsigned char key[25] = { PAGE_BYTE };
	put_be64(key + 1, hash_str(url + u.host_off, u.host_len));
	sc_url_key(url, len, key + 9);
	const void *v;
	size_t vl;
	if (store_adapt_get(a->s, txn, key, sizeof(key), &v, &vl) ||
	    vl < PAGE_HEAD)
		return true;
	return get_be64((const unsigned char *)v + 28) == media;
}

/* ---- The writer's calls ----------------------------------------------- */

int adapt_page(struct adapt *a, MDB_txn *txn, const struct adapt_fetch *f)
{
	const char *url = f->url;
	size_t len = f->len;
	struct norm_url u;
	if (norm_split(url, len, &u))
		return 0;
	unsigned char key[25] = { PAGE_BYTE };
	put_be64(key + 1, hash_str(url + u.host_off, u.host_len));
	sc_url_key(url, len, key + 9);
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
