/* adapt-skip.c — pages that give nothing (SPEC §7): a URL shape of a host
 * whose sampled pages all say both noindex and nofollow (meta robots or
 * X-Robots-Tag) is not fetched any more: its URLs are recorded as skipped
 * (STORE_ERROR_SKIPPED_NOINDEX_NOFOLLOW), a share of them audited.  A page
 * that may not be indexed and whose links may not be followed gives a
 * crawl nothing; on a wiki they are most of its URLs (edit forms, old
 * revisions, histories, page information).
 *
 * The shape.  The host, then the path with each segment of digits read
 * "{N}", the last segment read "{}" (its extension kept: "{}.php"), then
 * the query's parameters sorted by name, each with its value when the
 * value is a short lower-case word (1 to 16 letters a-z), "{N}" for
 * digits, "{}" otherwise: /w/index.php?title=Foo&action=edit is
 * "/w/{}.php?action=edit&title={}".  The value is kept because on a wiki
 * one script serves every kind of page and a routing parameter
 * (action=edit, action=history, action=view, diff=prev) says which: its
 * name alone would put the edit forms with the articles some wikis serve
 * at index.php?title=Foo.  Titles, ids and search words are not routes
 * and fold into "{}" (a lower-case title such as ?title=foo does not, and
 * gives one shape per title, none of which gathers min_support).  Both
 * ways of getting the shape wrong cost savings, not pages: a shape too
 * fine never gathers its support, and one too coarse meets a page that
 * may be indexed, which refutes it.
 *
 * States (enum adapt_state).  A shape is a candidate from its first page
 * that says both; it becomes active (skipping) once min_support pages of
 * it said both and none of its pages said otherwise; a page without both
 * refutes a candidate, and retires an active shape (an audit, or a page
 * leased before it applied): a retired or refuted shape never skips
 * again, and a retired one has the URLs it skipped queued again
 * (frontier_requeue()): their records say skipped until they are
 * fetched.
 *
 * Audits.  Of the URLs an active shape would skip, one in
 * 1 / audit_share and at least one per audit_every (adapt.c's defaults)
 * is fetched all the same; the last page of its support counts as its
 * first audit, as for a rule.  Every page of an active shape that is
 * fetched is an audit: those let through, and those leased before the
 * shape applied.
 *
 * The "adapt" database (adapt.c has its other keys):
 *   's' hash(8)  -> a shape: state(1), support(8), audits(8),
 *                   audit failures(8), skipped(8), created(8),
 *                   changed(8), host length(2), host, shape
 *   'x' hash(8)  -> a shape with a page without both (empty), kept so
 *                   that a restart does not forget it
 *   'y' hash(8) key(16) -> a URL the shape skipped: depth(2),
 *                   category(2), offtopic(1), found length(2), found,
 *                   the key it was queued under; queued again if the
 *                   shape retires
 * hash is XXH3 of host, a NUL and the shape; integers big-endian. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "adapt-int.h"

#define SKIP_VALUE_HEAD (1 + 6 * 8 + 2)
/* A skipped URL's value before its found form and key. */
#define SKIPPED_HEAD 7
/* Parameters of a query in a shape at most; more are "&...". */
#define SKIP_PARAMS_MAX 16
/* The longest parameter value kept as a route. */
#define SKIP_ROUTE_MAX 16

/* ---- The shape --------------------------------------------------------- */

struct qparam {
	const char *p; /* name[=value] */
	size_t n, name_len;
};

static int qparam_cmp(const void *x, const void *y)
{
	const struct qparam *a = x, *b = y;
	size_t n = a->n < b->n ? a->n : b->n;
	int c = memcmp(a->p, b->p, n);
	return c ? c : (a->n > b->n) - (a->n < b->n);
}

/* A bounded string builder: full marks an overflow. */
struct sbuf {
	char *p;
	size_t n, cap;
	bool full;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->full || b->n + n >= b->cap) {
		b->full = true;
		return;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n > 0;
}

static bool is_route(const char *s, size_t n)
{
	if (n == 0 || n > SKIP_ROUTE_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 'a' || s[i] > 'z')
			return false;
	return true;
}

/* The shape of url (components u) into out (cap bytes), without its
 * host.  Returns its length, or 0 when it does not fit. */
static size_t shape_of_url(const char *url, const struct norm_url *u, char *out,
			   size_t cap)
{
	struct sbuf b = { out, 0, cap, false };
	out[0] = '\0';
	const char *p = url + u->path_off, *end = p + u->path_len;
	while (p < end) {
		const char *s = p + (*p == '/'), *e = s;
		while (e < end && *e != '/')
			e++;
		sb_add(&b, "/", 1);
		size_t n = (size_t)(e - s);
		if (all_digits(s, n)) {
			sb_add(&b, "{N}", 3);
		} else if (e == end && n) {
			/* The last segment: a name, its extension kept. */
			const char *dot = memrchr(s, '.', n);
			sb_add(&b, "{}", 2);
			if (dot && (size_t)(e - dot) <= 8)
				sb_add(&b, dot, (size_t)(e - dot));
		} else {
			sb_add(&b, s, n);
		}
		p = e;
	}
	if (!u->path_len)
		sb_add(&b, "/", 1);
	if (u->has_query) {
		struct qparam v[SKIP_PARAMS_MAX];
		size_t k = 0;
		bool more = false;
		const char *q = url + u->query_off, *qe = q + u->query_len;
		while (q < qe) {
			const char *e = memchr(q, '&', (size_t)(qe - q));
			if (!e)
				e = qe;
			if (e > q) {
				if (k == SKIP_PARAMS_MAX) {
					more = true;
				} else {
					const char *eq = memchr(
						q, '=', (size_t)(e - q));
					v[k].p = q;
					v[k].n = (size_t)(e - q);
					v[k].name_len = eq ? (size_t)(eq - q)
							   : v[k].n;
					k++;
				}
			}
			q = e + 1;
		}
		qsort(v, k, sizeof(*v), qparam_cmp);
		sb_add(&b, "?", 1);
		for (size_t i = 0; i < k; i++) {
			if (i)
				sb_add(&b, "&", 1);
			sb_add(&b, v[i].p, v[i].name_len);
			if (v[i].name_len == v[i].n)
				continue;
			const char *val = v[i].p + v[i].name_len + 1;
			size_t vl = v[i].n - v[i].name_len - 1;
			sb_add(&b, "=", 1);
			if (is_route(val, vl))
				sb_add(&b, val, vl);
			else if (all_digits(val, vl))
				sb_add(&b, "{N}", 3);
			else if (vl)
				sb_add(&b, "{}", 2);
		}
		if (more)
			sb_add(&b, "&...", 4);
	}
	return b.full ? 0 : b.n;
}

/* The hash of a host's shape. */
static uint64_t shape_hash(const char *host, size_t hl, const char *shape,
			   size_t sl)
{
	char b[NORM_HOST_MAX + 1 + NORM_URL_MAX + 1];
	if (hl > NORM_HOST_MAX || sl > NORM_URL_MAX)
		return 1;
	memcpy(b, host, hl);
	b[hl] = '\0';
	memcpy(b + hl + 1, shape, sl);
	return tkey(XXH3_64bits(b, hl + 1 + sl));
}

/* url's host and shape hash; false when its shape does not fit. */
static bool url_shape(const char *url, const struct norm_url *u,
		      char shape[NORM_URL_MAX + 1], uint64_t *h)
{
	size_t sl = shape_of_url(url, u, shape, NORM_URL_MAX + 1);
	if (!sl)
		return false;
	*h = shape_hash(url + u->host_off, u->host_len, shape, sl);
	return true;
}

/* ---- Memory and the store ------------------------------------------- */

/* The shape of hash h, or NULL (under a->mu). */
static struct sshape *skip_find(struct adapt *a, uint64_t h)
{
	const struct tval *t = tab_get(&a->skip_ix, h);
	return t ? &a->skips[t->a - 1] : NULL;
}

/* A new shape in memory (under a->mu), or NULL when memory ran out. */
static struct sshape *skip_add(struct adapt *a, uint64_t h, const char *host,
			       size_t hl, const char *shape)
{
	if (a->n_skips == a->cap_skips) {
		size_t cap = a->cap_skips ? 2 * a->cap_skips : 16;
		struct sshape *v = realloc(a->skips, cap * sizeof(*v));
		if (!v)
			return NULL;
		a->skips = v;
		a->cap_skips = cap;
	}
	bool added;
	struct tval *t = tab_put(&a->skip_ix, h, &added);
	char *sh = strdup(shape);
	if (!t || !sh || hl > NORM_HOST_MAX) {
		free(sh);
		return NULL;
	}
	struct sshape *s = &a->skips[a->n_skips];
	memset(s, 0, sizeof(*s));
	s->h = h;
	memcpy(s->host, host, hl);
	s->shape = sh;
	t->a = ++a->n_skips;
	return s;
}

static int skip_save(struct adapt *a, MDB_txn *txn, const struct sshape *s)
{
	size_t hl = strlen(s->host), sl = strlen(s->shape);
	unsigned char key[9] = { 's' };
	put_be64(key + 1, s->h);
	unsigned char *v = malloc(SKIP_VALUE_HEAD + hl + sl);
	if (!v)
		return SC_E_NOMEM;
	v[0] = s->state;
	put_be64(v + 1, s->support);
	put_be64(v + 9, s->audits);
	put_be64(v + 17, s->audit_fail);
	put_be64(v + 25, s->skipped);
	put_be64(v + 33, (uint64_t)s->created);
	put_be64(v + 41, (uint64_t)s->changed);
	put_be16(v + 49, (uint16_t)hl);
	memcpy(v + SKIP_VALUE_HEAD, s->host, hl);
	memcpy(v + SKIP_VALUE_HEAD + hl, s->shape, sl);
	int rc = store_adapt_put(a->s, txn, key, sizeof(key), v,
				 SKIP_VALUE_HEAD + hl + sl);
	free(v);
	return rc;
}

/* Decode an 's' value into *s (its shape malloc'd). */
static int skip_decode(const void *val, size_t len, struct sshape *s)
{
	const unsigned char *v = val;
	if (len < SKIP_VALUE_HEAD || v[0] > ADAPT_REFUTED)
		return SC_E_CORRUPT;
	size_t hl = get_be16(v + 49);
	if (hl == 0 || hl > NORM_HOST_MAX || SKIP_VALUE_HEAD + hl > len ||
	    len - SKIP_VALUE_HEAD - hl > NORM_URL_MAX)
		return SC_E_CORRUPT;
	memset(s, 0, sizeof(*s));
	s->state = v[0];
	s->support = get_be64(v + 1);
	s->audits = get_be64(v + 9);
	s->audit_fail = get_be64(v + 17);
	s->skipped = get_be64(v + 25);
	s->created = (int64_t)get_be64(v + 33);
	s->changed = (int64_t)get_be64(v + 41);
	memcpy(s->host, v + SKIP_VALUE_HEAD, hl);
	s->shape = strndup((const char *)v + SKIP_VALUE_HEAD + hl,
			   len - SKIP_VALUE_HEAD - hl);
	return s->shape ? 0 : SC_E_NOMEM;
}

/* The host's count of candidate shapes, which keeps it learning
 * (adapt_learning()): under a->mu. */
static void host_candidates(struct adapt *a, const char *host, int d)
{
	struct ahost *h = host_get(a, host, strlen(host));
	if (h)
		h->skip_candidates = (unsigned)((int)h->skip_candidates + d);
}

static int load_skip(void *arg, const void *key, size_t klen, const void *val,
		     size_t vlen)
{
	struct adapt *a = arg;
	if (klen != 9)
		return SC_E_CORRUPT;
	struct sshape d;
	int rc = skip_decode(val, vlen, &d);
	if (rc)
		return rc;
	d.h = get_be64((const unsigned char *)key + 1);
	struct sshape *s = skip_add(a, d.h, d.host, strlen(d.host), d.shape);
	free(d.shape);
	if (!s)
		return SC_E_NOMEM;
	char *sh = s->shape;
	*s = d;
	s->shape = sh;
	s->leased = d.skipped + d.audits;
	if (s->state == ADAPT_CANDIDATE)
		host_candidates(a, s->host, 1);
	return 0;
}

static int load_open(void *arg, const void *key, size_t klen, const void *val,
		     size_t vlen)
{
	(void)val;
	(void)vlen;
	struct adapt *a = arg;
	if (klen != 9)
		return SC_E_CORRUPT;
	bool added;
	return tab_put(&a->skip_open, get_be64((const unsigned char *)key + 1),
		       &added)
		       ? 0
		       : SC_E_NOMEM;
}

int skip_load(struct adapt *a, MDB_txn *txn)
{
	pthread_mutex_lock(&a->mu);
	int rc = store_adapt_scan(a->s, txn, "s", 1, load_skip, a);
	if (!rc)
		rc = store_adapt_scan(a->s, txn, "x", 1, load_open, a);
	pthread_mutex_unlock(&a->mu);
	return rc;
}

void skip_free(struct adapt *a)
{
	for (size_t i = 0; i < a->n_skips; i++)
		free(a->skips[i].shape);
	free(a->skips);
	tab_free(&a->skip_ix);
	tab_free(&a->skip_open);
}

/* The 'y' entries of a shape, collected before they are queued again
 * (no write while the scan runs). */
struct skipped_scan {
	unsigned char (*keys)[25];
	unsigned char **vals;
	size_t *lens;
	size_t n, cap;
};

static int collect_skipped(void *arg, const void *key, size_t klen,
			   const void *val, size_t vlen)
{
	struct skipped_scan *k = arg;
	if (klen != 25 || vlen <= SKIPPED_HEAD)
		return SC_E_CORRUPT;
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		unsigned char(*nk)[25] = realloc(k->keys, cap * sizeof(*nk));
		if (nk)
			k->keys = nk;
		unsigned char **nv = realloc(k->vals, cap * sizeof(*nv));
		if (nv)
			k->vals = nv;
		size_t *nl = realloc(k->lens, cap * sizeof(*nl));
		if (nl)
			k->lens = nl;
		if (!nk || !nv || !nl)
			return SC_E_NOMEM;
		k->cap = cap;
	}
	if (!(k->vals[k->n] = malloc(vlen)))
		return SC_E_NOMEM;
	memcpy(k->keys[k->n], key, 25);
	memcpy(k->vals[k->n], val, vlen);
	k->lens[k->n] = vlen;
	k->n++;
	return 0;
}

/* Queue one skipped URL again (its 'y' value v, vl bytes). */
static int requeue_skipped(struct adapt *a, MDB_txn *txn,
			   const unsigned char *v, size_t vl)
{
	size_t fl = get_be16(v + 5);
	if (SKIPPED_HEAD + fl >= vl)
		return SC_E_CORRUPT;
	const char *found = (const char *)v + SKIPPED_HEAD;
	const char *url = found + fl;
	size_t ul = vl - SKIPPED_HEAD - fl;
	struct norm_url u;
	if (norm_split(url, ul, &u))
		return 0; /* a key that was queued always splits */
	struct frontier_url fu = {
		.url = url,
		.url_len = ul,
		.u = &u,
		.found = fl ? found : url,
		.found_len = fl ? fl : ul,
		.depth = get_be16(v),
		.category = get_be16(v + 2),
		.offtopic = v[4],
	};
	int rc = frontier_requeue(a->fr, txn, &fu);
	if (rc == 0) {
		pthread_mutex_lock(&a->mu);
		a->st.requeued++;
		pthread_mutex_unlock(&a->mu);
	}
	return rc;
}

/* A shape retired: the URLs it skipped are fetched after all. */
static int skip_retire(struct adapt *a, MDB_txn *txn, uint64_t h)
{
	unsigned char pre[9] = { 'y' };
	put_be64(pre + 1, h);
	struct skipped_scan k = { 0 };
	int rc = store_adapt_scan(a->s, txn, pre, sizeof(pre), collect_skipped,
				  &k);
	for (size_t i = 0; i < k.n && !rc; i++) {
		rc = requeue_skipped(a, txn, k.vals[i], k.lens[i]);
		if (!rc)
			rc = store_adapt_del(a->s, txn, k.keys[i], 25);
	}
	for (size_t i = 0; i < k.n; i++)
		free(k.vals[i]);
	free(k.keys);
	free(k.vals);
	free(k.lens);
	return rc;
}

/* ---- The crawl's side ------------------------------------------------ */

int adapt_robots(struct adapt *a, MDB_txn *txn, const char *url, size_t len,
		 const struct norm_url *u, bool noindex, bool nofollow)
{
	if (!a->o.skip_noindex_nofollow)
		return 0;
	(void)len;
	char shape[NORM_URL_MAX + 1];
	uint64_t h;
	if (!url_shape(url, u, shape, &h))
		return 0;
	bool nothing = noindex && nofollow;
	pthread_mutex_lock(&a->mu);
	struct sshape *s = skip_find(a, h);
	bool open = tab_get(&a->skip_open, h) != NULL;
	int rc = 0;
	if (!nothing && !open) {
		/* The shape has a page worth fetching: it never skips. */
		bool added;
		if (!tab_put(&a->skip_open, h, &added)) {
			pthread_mutex_unlock(&a->mu);
			return SC_E_NOMEM;
		}
		unsigned char key[9] = { 'x' };
		put_be64(key + 1, h);
		rc = store_adapt_put(a->s, txn, key, sizeof(key), "", 0);
	}
	if (!s && nothing && !open) {
		s = skip_add(a, h, url + u->host_off, u->host_len, shape);
		if (!s) {
			pthread_mutex_unlock(&a->mu);
			return SC_E_NOMEM;
		}
		s->state = ADAPT_CANDIDATE;
		s->created = now_ms();
		host_candidates(a, s->host, 1);
	}
	if (!s || rc) {
		pthread_mutex_unlock(&a->mu);
		return rc;
	}
	uint8_t was = s->state;
	/* A page of an active shape is an audit: one it let through, or one
	 * leased before it applied. */
	bool audit = s->state == ADAPT_ACTIVE;
	if (audit) {
		s->audits++;
		s->audit_fail += !nothing;
	}
	if (nothing && s->state == ADAPT_CANDIDATE) {
		s->support++;
		if (s->support >= a->o.min_support)
			s->state = ADAPT_ACTIVE;
	} else if (!nothing && s->state == ADAPT_CANDIDATE) {
		s->state = ADAPT_REFUTED;
	} else if (!nothing && s->state == ADAPT_ACTIVE) {
		s->state = ADAPT_RETIRED;
	}
	if (was == ADAPT_CANDIDATE && s->state != ADAPT_CANDIDATE)
		host_candidates(a, s->host, -1);
	if (!audit && was == s->state && !(nothing && was == ADAPT_CANDIDATE)) {
		pthread_mutex_unlock(&a->mu); /* nothing new to keep */
		return 0;
	}
	s->changed = now_ms();
	struct sshape copy = *s;
	pthread_mutex_unlock(&a->mu);
	/* The copy's shape stays valid: only the writer frees shapes, at
	 * adapt_close(). */
	rc = skip_save(a, txn, &copy);
	if (!rc && was == ADAPT_ACTIVE && copy.state == ADAPT_RETIRED)
		rc = skip_retire(a, txn, h);
	return rc;
}

int adapt_skip_lease(struct adapt *a, const char *url, size_t len,
		     const struct norm_url *u)
{
	(void)len;
	if (!a->o.skip_noindex_nofollow)
		return 0;
	char shape[NORM_URL_MAX + 1];
	uint64_t h;
	if (!url_shape(url, u, shape, &h))
		return 0;
	pthread_mutex_lock(&a->mu);
	struct sshape *s = skip_find(a, h);
	if (!s || s->state != ADAPT_ACTIVE) {
		pthread_mutex_unlock(&a->mu);
		return 0;
	}
	uint64_t n = ++s->leased;
	double share = a->o.audit_share;
	bool audit = (share > 0 &&
		      (uint64_t)((double)n * share) >
			      (uint64_t)((double)(n - 1) * share)) ||
		     n % a->audit_every == 0;
	pthread_mutex_unlock(&a->mu);
	return audit ? 0 : 1;
}

int adapt_skipped(struct adapt *a, MDB_txn *txn, const char *url, size_t len,
		  const struct norm_url *u, const struct frontier_url *fu)
{
	(void)len;
	char shape[NORM_URL_MAX + 1];
	uint64_t h;
	if (!url_shape(url, u, shape, &h))
		return 0;
	pthread_mutex_lock(&a->mu);
	struct sshape *s = skip_find(a, h);
	if (!s) {
		pthread_mutex_unlock(&a->mu);
		return 0;
	}
	s->skipped++;
	a->st.skipped++;
	struct sshape copy = *s;
	pthread_mutex_unlock(&a->mu);
	int rc = skip_save(a, txn, &copy);
	if (rc || fu->found_len > UINT16_MAX)
		return rc;
	/* Skipped while an audit was under way that retired the shape
	 * since: queued again now.  Else kept, to be queued again if the
	 * shape retires. */
	if (copy.state == ADAPT_RETIRED) {
		struct norm_url ku;
		if (norm_split(fu->url, fu->url_len, &ku))
			return 0;
		struct frontier_url q = *fu;
		q.u = &ku;
		if ((rc = frontier_requeue(a->fr, txn, &q)) == 0) {
			pthread_mutex_lock(&a->mu);
			a->st.requeued++;
			pthread_mutex_unlock(&a->mu);
		}
		return rc;
	}
	unsigned char key[25] = { 'y' };
	put_be64(key + 1, h);
	sc_url_key(fu->url, fu->url_len, key + 9);
	size_t vl = SKIPPED_HEAD + fu->found_len + fu->url_len;
	unsigned char *v = malloc(vl);
	if (!v)
		return SC_E_NOMEM;
	put_be16(v, fu->depth);
	put_be16(v + 2, fu->category);
	v[4] = fu->offtopic;
	put_be16(v + 5, (uint16_t)fu->found_len);
	memcpy(v + SKIPPED_HEAD, fu->found, fu->found_len);
	memcpy(v + SKIPPED_HEAD + fu->found_len, fu->url, fu->url_len);
	rc = store_adapt_put(a->s, txn, key, sizeof(key), v, vl);
	free(v);
	return rc;
}

/* ---- Listing ---------------------------------------------------------- */

struct skip_list_ctx {
	int (*fn)(void *arg, const struct adapt_skip_info *s);
	void *arg;
	struct adapt_skip_info info;
};

static int list_skip(void *arg, const void *key, size_t klen, const void *val,
		     size_t vlen)
{
	struct skip_list_ctx *l = arg;
	if (klen != 9)
		return SC_E_CORRUPT;
	struct sshape s;
	int rc = skip_decode(val, vlen, &s);
	if (rc)
		return rc;
	struct adapt_skip_info *in = &l->info;
	in->state = s.state;
	snprintf(in->host, sizeof(in->host), "%s", s.host);
	snprintf(in->shape, sizeof(in->shape), "%s", s.shape);
	free(s.shape);
	in->support = s.support;
	in->audits = s.audits;
	in->audit_failures = s.audit_fail;
	in->skipped = s.skipped;
	in->created_ms = s.created;
	in->changed_ms = s.changed;
	return l->fn(l->arg, in);
}

int adapt_skip_list(struct store *s, MDB_txn *txn,
		    int (*fn)(void *arg, const struct adapt_skip_info *r),
		    void *arg)
{
	struct skip_list_ctx *l = malloc(sizeof(*l));
	if (!l)
		return SC_E_NOMEM;
	l->fn = fn;
	l->arg = arg;
	int rc = store_adapt_scan(s, txn, "s", 1, list_skip, l);
	free(l);
	return rc;
}
