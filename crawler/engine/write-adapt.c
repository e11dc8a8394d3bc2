/* write-adapt.c — the writer's side of adaptive normalization (profile
 * adaptive: c->adapt set; docs/adaptive.md): a batch's new URLs keyed by
 * their hosts' learned rules, or held back when the key is known
 * (adapt_links()); a committed page's evidence for the rules
 * (adapt_evidence()) and the rules that keyed it, for its record
 * (adapt_rule_of()); and the leases the scheduler did not fetch because a
 * rule maps them onto a known key (write_held()) or onto another host's
 * (write_rehome()).  All run on the writer thread, in the batch's
 * transaction (writer.c). */
#include "crawl-int.h"

#include <xxhash.h>

/* Is the key (hash h) among the batch's keys?  Adds it if not. */
static bool batch_key_seen(struct batch_urls *b, uint64_t h)
{
	h = h ? h : 1;
	size_t m = b->set_cap - 1;
	for (size_t i = h & m;; i = (i + 1) & m) {
		if (b->set[i] == h)
			return true;
		if (!b->set[i]) {
			b->set[i] = h;
			return false;
		}
	}
}

/* A new link to a URL that a trusted rel=canonical claim merged
 * (crawler/learn/adapt-claim.c): recorded, unfetched, as a duplicate of
 * the claiming page, the first time a page links it. */
static int write_merged(struct crawl *c, MDB_txn *txn,
			const struct frontier_url *f)
{
	char rep[NORM_URL_MAX + 1];
	int rc = adapt_claim_linked(c->adapt, txn, f->url, f->url_len, rep,
				    sizeof(rep));
	if (rc != 1)
		return rc;
	const struct crawl_opts *o = c->o;
	const char *cat = f->category < o->n_categories
				  ? o->categories[f->category].name
				  : "";
	static const char why[] = "rel=canonical";
	struct store_record r = {
		.url = f->found ? f->found : f->url,
		.url_len = f->found ? f->found_len : f->url_len,
		.normalized = f->url,
		.normalized_len = f->url_len,
		.category = cat,
		.category_len = strlen(cat),
		.depth = f->depth,
		.duplicate_of = rep,
		.duplicate_of_len = strlen(rep),
		.rule = why,
		.rule_len = sizeof(why) - 1,
	};
	rc = store_put(c->store, txn, &r);
	if (rc == 0) {
		pthread_mutex_lock(&c->mu);
		c->sum.adapt_held++;
		pthread_mutex_unlock(&c->mu);
	}
	return rc;
}

/* Key the batch's new URLs by their hosts' learned rules (SPEC §7).  A
 * URL the rules rewrite is queued under the rules' key, unless that key
 * is known already (queued, fetched, or earlier in this batch): then the
 * rules hold it back (adapt_hold()), and an audit share of those is
 * queued under its own form all the same.  A URL queued under a key is
 * kept with its rules too, so that a rule's retirement fetches it under
 * its own form.  Held URLs leave b->fu. */
int adapt_links(struct crawl *c, MDB_txn *txn, struct batch_urls *b)
{
	size_t cap = 64;
	while (cap < 4 * b->n)
		cap *= 2;
	if (cap > b->set_cap) {
		free(b->set);
		b->set_cap = 0;
		if (!(b->set = malloc(cap * sizeof(*b->set))))
			return SC_E_NOMEM;
		b->set_cap = cap;
	}
	memset(b->set, 0, b->set_cap * sizeof(*b->set));
	if (b->n > b->cap_keys) {
		char **k = realloc(b->keys, b->n * sizeof(*k));
		if (!k)
			return SC_E_NOMEM;
		b->keys = k;
		struct norm_url *ku = realloc(b->key_u, b->n * sizeof(*ku));
		if (!ku)
			return SC_E_NOMEM;
		b->key_u = ku;
		b->cap_keys = b->n;
	}
	size_t out = 0;
	for (size_t i = 0; i < b->n; i++) {
		struct frontier_url f = b->fu[i];
		char key[NORM_URL_MAX + 1];
		struct norm_url ku;
		int k = b->asis[i] ? 0
				   : adapt_key_u(c->adapt, f.url, f.url_len,
						 f.u, key, &ku);
		if (k != 1) {
			batch_key_seen(b, XXH3_64bits(f.url, f.url_len));
			b->fu[out++] = f;
			if (k == 0 && (k = write_merged(c, txn, &f)))
				return k;
			if (k == 0 &&
			    (k = adapt_linked(c->adapt, txn, f.url, f.url_len)))
				return k;
			continue;
		}
		/* Known under its own form: nothing new. */
		int rc = frontier_seen(c->fr, txn, f.url, f.url_len);
		if (rc < 0)
			return rc;
		if (rc == 1)
			continue;
		bool known = batch_key_seen(b, XXH3_64bits(key, ku.len));
		if (!known && (rc = frontier_seen(c->fr, txn, key, ku.len)) < 0)
			return rc;
		known = known || rc == 1;
		bool audit;
		struct frontier_url kf = f;
		kf.url = key;
		kf.url_len = ku.len;
		kf.u = &ku;
		rc = adapt_hold(c->adapt, txn, f.url, f.url_len, &kf,
				known ? 0 : ADAPT_HOLD_QUEUED, &audit);
		if (rc < 0)
			return rc;
		if (known && !audit) {
			pthread_mutex_lock(&c->mu);
			c->sum.adapt_held += (uint64_t)rc;
			pthread_mutex_unlock(&c->mu);
			continue;
		}
		if (audit) { /* under its own form */
			b->fu[out++] = f;
			continue;
		}
		char *kp = malloc((size_t)ku.len + 1);
		if (!kp)
			return SC_E_NOMEM;
		memcpy(kp, key, (size_t)ku.len + 1);
		b->keys[b->n_keys] = kp;
		b->key_u[b->n_keys] = ku;
		kf.url = kp;
		kf.u = &b->key_u[b->n_keys];
		b->n_keys++;
		b->fu[out++] = kf;
		pthread_mutex_lock(&c->mu);
		c->sum.adapt_keyed++;
		pthread_mutex_unlock(&c->mu);
	}
	b->n = out;
	return 0;
}

/* Evidence for the learned rules from one committed page: its signature
 * (with the representative it duplicates), or its redirect. */
int adapt_evidence(struct crawl *c, MDB_txn *txn, struct job *j)
{
	/* The rules learn from the URL fetched, which a page linked, never
	 * from the key it was queued under. */
	const char *url = job_url(j);
	size_t len = job_url_len(j);
	if (j->skipped) {
		struct frontier_url fu = {
			.url = j->lease.url,
			.url_len = j->lease.url_len,
			.found = j->lease.found,
			.found_len = j->lease.found_len,
			.depth = j->lease.depth,
			.category = j->lease.category,
			.offtopic = j->lease.offtopic,
		};
		return adapt_skipped(c->adapt, txn, url, len, job_url_u(j),
				     &fu);
	}
	if (!j->fetched)
		return 0;
	/* What a page said of itself, for the skip shapes: a page that
	 * answered (a 404 or a redirect says nothing of its shape). */
	if (j->status >= 200 && j->status <= 299 &&
	    (!j->error || j->error == STORE_ERROR_TOO_BIG)) {
		int rc = adapt_robots(c->adapt, txn, url, len, job_url_u(j),
				      j->robots_noindex, j->robots_nofollow);
		if (rc)
			return rc;
	}
	if (j->error == STORE_ERROR_HTTP_ERROR) {
		int rc = adapt_canonical_gone(c->adapt, txn, url, len,
					      (int)j->status);
		if (rc)
			return rc;
		return adapt_failed(c->adapt, txn, url, len, j->lease.url,
				    j->lease.url_len, (int)j->status);
	}
	if (j->error)
		return 0;
	/* A key fetched as a redirect's target under its own form (the
	 * form linked redirected onto it) that redirects on: the chain's
	 * next hop, not a sign that the key was wrong. */
	bool hop = j->lease.redirects && !j->src;
	if (j->has_redirect)
		return adapt_redirect(
			c->adapt, txn, url, len, j->redirect, j->redirect_u.len,
			hop ? NULL : j->lease.url, hop ? 0 : j->lease.url_len);
	if (j->status != 200 || !j->has_sig || j->text_empty)
		return adapt_failed(c->adapt, txn, url, len, j->lease.url,
				    j->lease.url_len, (int)j->status);
	if (j->canonical) {
		int rc = adapt_hint(c->adapt, txn, url, len, j->canonical,
				    strlen(j->canonical));
		if (rc)
			return rc;
	}
	/* The representative's fetched form: its record's URL as found,
	 * strict. */
	char rep[NORM_URL_MAX + 1];
	size_t rep_len = 0;
	if (j->dup) {
		unsigned char key[SC_KEY_LEN];
		struct store_record r;
		struct norm_url ru;
		sc_url_key(j->dup_of, strlen(j->dup_of), key);
		int rc = store_get(c->store, txn, key, &r);
		if (rc && rc != SC_E_NOTFOUND)
			return rc;
		if (rc == 0 && norm_url(&c->o->norm, NULL, r.url, r.url_len,
					rep, sizeof(rep), &ru) == 0)
			rep_len = ru.len;
	}
	struct adapt_fetch f = {
		.url = url,
		.len = len,
		.key = j->lease.url,
		.key_len = j->lease.url_len,
		.depth = j->lease.depth,
		.category = j->lease.category,
		.sig = j->sig,
		.simhash = j->simhash,
		.has_simhash = j->has_simhash || j->rules_simhash,
		.media = j->media,
		.rep = rep_len ? rep : NULL,
		.rep_len = rep_len,
		.near = j->dup == DUP_NEAR,
	};
	int rc = adapt_page(c->adapt, txn, &f);
	if (rc)
		return rc;
	/* The page's own word: the claims naming it judged, its own
	 * rel=canonical a claim (crawler/learn/adapt-claim.c). */
	return adapt_canonical(c->adapt, txn, &f, j->canonical,
			       j->canonical ? strlen(j->canonical) : 0);
}

/* The learned rules that mapped the URL as found onto its key, into out
 * (empty when none did). */
void adapt_rule_of(struct crawl *c, const struct job *j, char *out, size_t cap)
{
	/* The URL as found, strict, is the job's source when it is not its
	 * key (sched.c worked it out at the lease). */
	out[0] = '\0';
	if (j->src)
		adapt_why(c->adapt, j->src, j->src_u.len, out, cap);
}

/* A leased URL that a learned rule maps onto a known key (sched.c): held
 * by the rule, recorded unfetched as a duplicate of that key. */
int write_held(struct crawl *c, MDB_txn *txn, struct job *j)
{
	const struct crawl_opts *o = c->o;
	struct frontier_url fu = {
		.url = j->dup_of,
		.url_len = strlen(j->dup_of),
		.found = j->lease.found,
		.found_len = j->lease.found_len,
		.depth = j->lease.depth,
		.category = j->lease.category,
		.redirects = j->lease.redirects,
		.offtopic = j->lease.offtopic,
	};
	bool audit;
	char why[512];
	int rc;
	if (fu.url_len == j->lease.url_len &&
	    memcmp(fu.url, j->lease.url, fu.url_len) == 0) {
		/* Its own key, whose document was fetched under another
		 * form: held already (adapt_cover_of()).  The form it was
		 * queued under is held too, by the rules that map it onto
		 * the key, so that their retirement fetches that form, which
		 * a page linked, and not the key, which maybe none did. */
		if (j->src) {
			struct frontier_url kf = fu;
			kf.url = j->lease.url;
			kf.url_len = j->lease.url_len;
			kf.u = &j->lease_u;
			rc = adapt_hold(c->adapt, txn, j->src, j->src_u.len,
					&kf, ADAPT_HOLD_LEASED, &audit);
			if (rc < 0)
				return rc;
		} else if ((rc = adapt_linked(c->adapt, txn, j->lease.url,
					      j->lease.url_len))) {
			return rc;
		}
		rc = adapt_cover_of(c->adapt, txn, j->lease.url,
				    j->lease.url_len, j->dup_of,
				    sizeof(j->dup_of));
		if (rc == SC_E_NOTFOUND)
			j->dup_of[0] = '\0';
		else if (rc)
			return rc;
		fu.url_len = strlen(j->dup_of);
		adapt_why(c->adapt, j->dup_of, fu.url_len, why, sizeof(why));
	} else {
		rc = adapt_hold(c->adapt, txn, j->lease.url, j->lease.url_len,
				&fu, ADAPT_HOLD_LEASED, &audit);
		if (rc < 0)
			return rc;
		/* A key known only as a cover has no record of its own:
		 * the duplicate is of the record its document was fetched
		 * under. */
		char rec[NORM_URL_MAX + 1];
		if ((rc = adapt_cover_of(c->adapt, txn, j->dup_of,
					 strlen(j->dup_of), rec,
					 sizeof(rec))) == 0) {
			memcpy(j->dup_of, rec, strlen(rec) + 1);
			fu.url_len = strlen(j->dup_of);
		} else if (rc != SC_E_NOTFOUND) {
			return rc;
		}
		adapt_why(c->adapt, j->lease.url, j->lease.url_len, why,
			  sizeof(why));
	}
	const char *cat = j->lease.category < o->n_categories
				  ? o->categories[j->lease.category].name
				  : "";
	struct store_record r = {
		.url = j->lease.found,
		.url_len = j->lease.found_len,
		.normalized = j->lease.url,
		.normalized_len = j->lease.url_len,
		.category = cat,
		.category_len = strlen(cat),
		.depth = j->lease.depth,
		.duplicate_of = fu.url_len ? j->dup_of : NULL,
		.duplicate_of_len = fu.url_len,
		.rule = why[0] ? why : NULL,
		.rule_len = strlen(why),
	};
	if ((rc = store_put(c->store, txn, &r)))
		return rc;
	rc = frontier_done(c->fr, txn, &j->lease);
	if (rc == 0 || rc == SC_E_NOTFOUND) {
		pthread_mutex_lock(&c->mu);
		c->sum.adapt_held++;
		pthread_mutex_unlock(&c->mu);
	}
	return rc == SC_E_NOTFOUND ? 0 : rc;
}

/* A leased URL whose key is on another host (sched.c): queued again
 * under that key, to be fetched (under its own form) from the key's
 * host's slot, and kept with the rules that map it there, so that their
 * retirement queues its own form again.  If the key is known by now, it
 * is held as any other. */
int write_rehome(struct crawl *c, MDB_txn *txn, struct job *j)
{
	int rc = frontier_done(c->fr, txn, &j->lease);
	if (rc && rc != SC_E_NOTFOUND)
		return rc;
	size_t kl = strlen(j->dup_of);
	struct norm_url ku;
	if (norm_split(j->dup_of, kl, &ku))
		return 0; /* a key the rules wrote always splits */
	struct frontier_url fu = {
		.url = j->dup_of,
		.url_len = kl,
		.u = &ku,
		.found = j->lease.found,
		.found_len = j->lease.found_len,
		.depth = j->lease.depth,
		.category = j->lease.category,
		.offtopic = j->lease.offtopic,
	};
	rc = frontier_add(c->fr, txn, &fu);
	if (rc == 0)
		return write_held(c, txn, j);
	if (rc < 0)
		return rc == SC_E_INVAL ? 0 : rc;
	bool audit;
	rc = adapt_hold(c->adapt, txn, j->lease.url, j->lease.url_len, &fu,
			ADAPT_HOLD_LEASED | ADAPT_HOLD_QUEUED, &audit);
	return rc < 0 ? rc : 0;
}
