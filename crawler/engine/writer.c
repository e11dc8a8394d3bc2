/* writer.c — the writer thread: batches of finished jobs committed in one
 * LMDB transaction each, with the records, the duplicate policy, the
 * queued links, re-crawls' revisits and the cluster's hand-offs.  The
 * adaptive profile's side (keying links by the learned rules, the
 * evidence, held and rehomed leases) is write-adapt.c's; the WARC and
 * search-index hooks are write-archive.c's; whether a redirect closes a
 * loop is write-redirect.c's. */
#include "crawl-int.h"

#include "cluster.h"

/* The sitemaps a fetched robots.txt names are queued, in the category
 * and at the depth of the page whose fetch asked for it (their URLs one
 * deeper), when the category's scope allows them. */
static int queue_sitemaps(struct crawl *c, MDB_txn *txn, const struct job *j)
{
	const char *s;
	for (size_t i = 0; (s = parse_robots_sitemap(j->rules, i)); i++) {
		char url[NORM_URL_MAX + 1], found[NORM_URL_MAX + 1];
		struct norm_url u, fu;
		if (crawl_seed_url(&c->o->norm, s, strlen(s), url, &u, found,
				   &fu) ||
		    !focus_in_scope(c->focus, j->lease.category, j->lease.url,
				    &j->lease_u, url, &u) ||
		    !focus_wanted(c->focus, j->lease.category, url, u.len))
			continue;
		struct frontier_url f = {
			.url = url,
			.url_len = u.len,
			.u = &u,
			.found = found,
			.found_len = fu.len,
			.depth = j->lease.depth,
			.category = j->lease.category,
			.sitemap = true,
		};
		int rc = frontier_add(c->fr, txn, &f);
		if (rc < 0 && rc != SC_E_INVAL)
			return rc;
		if (rc == 1) {
			pthread_mutex_lock(&c->mu);
			c->sum.queued++;
			pthread_mutex_unlock(&c->mu);
		}
	}
	return 0;
}

/* A fetched robots.txt answer is kept for the next run. */
static int write_robots(struct crawl *c, MDB_txn *txn, const struct job *j)
{
	int qrc = queue_sitemaps(c, txn, j);
	if (qrc)
		return qrc;
	struct store_robots r = {
		.fetched_at = (int64_t)j->fetched_at,
		.expires_at = j->robots_expires,
		.status = (int)j->status,
		.body = j->body.p,
		.body_len = j->body.len,
	};
	int rc = store_robots_put(c->store, txn, j->robots_url,
				  strlen(j->robots_url), &r);
	/* Only a database failure matters: an answer not kept is asked
	 * again next time. */
	return rc == SC_E_INVAL || rc == SC_E_TOOLONG ? 0 : rc;
}

int64_t write_foreign(const struct crawl *c, const char *url,
		      const struct norm_url *u)
{
	const struct crawl_cluster *cl = c->o->cluster;
	if (!cl || cl->shards < 2)
		return -1;
	uint32_t s = cluster_shard_of(url + u->host_off, u->host_len,
				      cl->shards);
	return s == cl->shard ? -1 : (int64_t)s;
}

/* A cluster: the signatures of the batch's pages that would become
 * representatives here (none of this shard has them) are claimed for the
 * whole cluster at once, before the writes, so that the batch waits for
 * the slowest claim rather than for each in turn. */
static int claim_batch(struct crawl *c, MDB_txn *txn, struct job **batch,
		       size_t n, struct crawl_cluster_claim *v)
{
	size_t k = 0;
	struct job *who[WRITE_BATCH];
	for (size_t i = 0; i < n; i++) {
		struct job *j = batch[i];
		if (j->kind != JOB_PAGE || !j->fetched || j->error ||
		    !j->has_sig || j->text_empty || j->lease.revisit)
			continue;
		const char *rep;
		size_t len;
		int rc = store_sig_lookup(c->store, txn, j->sig, &rep, &len);
		if (rc == 0)
			continue; /* this shard's already */
		if (rc != SC_E_NOTFOUND)
			return rc;
		v[k] = (struct crawl_cluster_claim){
			.sig = j->sig,
			.url = j->lease.url,
			.len = j->lease.url_len,
			.owner = j->dup_of,
			.cap = sizeof(j->dup_of),
		};
		who[k++] = j;
	}
	if (!k)
		return 0;
	c->o->cluster->claim(c->o->cluster->arg, v, k);
	for (size_t i = 0; i < k; i++) {
		who[i]->cluster_claim = v[i].elsewhere ? 2 : 1;
		if (!v[i].elsewhere)
			who[i]->dup_of[0] = '\0';
	}
	return 0;
}

/* Is the page a duplicate?  Its signature is claimed (the first page with
 * it is the representative), else its SimHash is looked up among the
 * representatives' and filed when none is near enough.  A page without
 * body text is never collapsed: every empty page has the same signature. */
static int dedup(struct crawl *c, MDB_txn *txn, struct job *j)
{
	const struct crawl_opts *o = c->o;
	if (j->text_empty)
		return 0;
	/* A cluster: the page's claim (claim_batch()).  Another page holds
	 * its signature: this one is that page's duplicate, whichever shard
	 * it belongs to.  One of this shard may not be committed yet (later
	 * in this batch, or claimed before a crash and queued again): taking
	 * the claim's word keeps one representative for the whole cluster,
	 * where the local store alone could name another. */
	if (j->cluster_claim == 2) {
		j->dup = DUP_EXACT;
		return 0;
	}
	if (j->has_sig) {
		const char *rep;
		size_t len;
		int rc = store_sig_claim(c->store, txn, j->sig, j->lease.url,
					 j->lease.url_len, &rep, &len);
		if (rc < 0)
			return rc;
		if (rc == 1) {
			/* rep is valid until the next write: copy it. */
			if (len >= sizeof(j->dup_of))
				return SC_E_CORRUPT;
			memcpy(j->dup_of, rep, len);
			j->dup_of[len] = '\0';
			j->dup = DUP_EXACT;
			return 0;
		}
	}
	if (!j->has_simhash || o->near_k < 0)
		return 0;
	struct store_simhash_hit hit;
	int rc = store_simhash_find(c->store, txn, j->simhash,
				    (unsigned)o->near_k, &hit);
	if (rc == 0) {
		struct store_record r;
		if ((rc = store_get(c->store, txn, hit.rep, &r)))
			return rc == SC_E_NOTFOUND ? SC_E_CORRUPT : rc;
		if (r.normalized_len == j->lease.url_len &&
		    memcmp(r.normalized, j->lease.url, r.normalized_len) == 0)
			return 0; /* itself, fetched again after a crash */
		if (r.normalized_len >= sizeof(j->dup_of))
			return SC_E_CORRUPT;
		memcpy(j->dup_of, r.normalized, r.normalized_len);
		j->dup_of[r.normalized_len] = '\0';
		j->dup = DUP_NEAR;
		return 0;
	}
	if (rc != SC_E_NOTFOUND)
		return rc;
	unsigned char key[SC_KEY_LEN];
	sc_url_key(j->lease.url, j->lease.url_len, key);
	return store_simhash_add(c->store, txn, j->simhash, key);
}

/* Seeds submitted at run time, or the seed files read again after a
 * reload.  A seed file that cannot be read is reported and skipped: the
 * rest of the batch still commits. */
static int send_out(struct crawl *c, MDB_txn *txn, struct batch_urls *b,
		    const char *url, const struct norm_url *u, uint16_t depth,
		    uint16_t category);

static int write_seeds(struct crawl *c, MDB_txn *txn, struct job *j,
		       struct batch_urls *b)
{
	const struct crawl_opts *o = c->o;
	if (j->kind == JOB_RELOAD) {
		/* The categories' settings, for `report`. */
		int rc = focus_put_categories(c->focus, c->store, txn);
		if (rc)
			return rc;
		/* A seed file that cannot be read is skipped (add_seeds_of()
		 * said so); any other failure is the store's, and fatal. */
		for (size_t i = 0;
		     i < o->n_categories && (rc == 0 || rc == SC_E_IO); i++)
			if (o->categories[i].seeds_file)
				rc = add_seeds_of(c, txn, (uint16_t)i,
						  o->categories[i].seeds_file,
						  &j->seeds_added);
		return rc == SC_E_IO ? 0 : rc;
	}
	struct crawl_seeds *sd = j->seeds;
	for (size_t i = 0; i < sd->n; i++) {
		struct frontier_url fu = {
			.url = sd->url[i],
			.url_len = sd->u[i].len,
			.u = &sd->u[i],
			.found = sd->found[i],
			.found_len = sd->found_u[i].len,
			.depth = sd->depth ? sd->depth[i] : 0,
			.category = sd->category,
		};
		int rc;
		if (write_foreign(c, fu.url, fu.u) >= 0) {
			/* Submitted here, another shard's: it goes there.
			 * From the cluster: the shards disagree. */
			sd->added[i] = 0;
			if (sd->remote) {
				j->seeds_misrouted++;
				continue;
			}
			if ((rc = send_out(c, txn, b, fu.url, fu.u, fu.depth,
					   fu.category)) < 0)
				return rc;
			/* Taken: queued by its shard. */
			sd->added[i] = rc == 1;
			j->seeds_added += rc == 1;
			continue;
		}
		rc = frontier_add(c->fr, txn, &fu);
		if (rc < 0 && rc != SC_E_INVAL)
			return rc;
		/* A host name too long for the frontier counts as known:
		 * the caller's normalization bounds it, so this is rare. */
		sd->added[i] = rc == 1;
		j->seeds_added += rc == 1;
	}
	return 0;
}

static int batch_grow(struct batch_urls *b, size_t need)
{
	if (need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 1024;
	while (cap < need)
		cap *= 2;
	struct frontier_url *v = realloc(b->fu, cap * sizeof(*v));
	if (!v)
		return SC_E_NOMEM;
	b->fu = v;
	uint8_t *a = realloc(b->asis, cap);
	if (!a)
		return SC_E_NOMEM;
	b->asis = a;
	b->cap = cap;
	return 0;
}

static void batch_reset(struct batch_urls *b)
{
	for (size_t i = 0; i < b->n_keys; i++)
		free(b->keys[i]);
	b->n_keys = 0;
	b->n = 0;
	b->n_out = 0;
}

static void batch_free(struct batch_urls *b)
{
	batch_reset(b);
	free(b->fu);
	free(b->asis);
	free(b->out);
	free(b->keys);
	free(b->key_u);
	free(b->set);
}

/* Send url to its shard: marked seen here, so that it goes once, and
 * kept for crawl_cluster.send() before the commit.  Returns 1, 0 if it
 * was seen already, SC_E_NOMEM or a store error. */
static int send_out(struct crawl *c, MDB_txn *txn, struct batch_urls *b,
		    const char *url, const struct norm_url *u, uint16_t depth,
		    uint16_t category)
{
	int rc = frontier_mark_seen(c->fr, txn, url, u->len, category);
	if (rc != 1)
		return rc;
	if (b->n_out == b->cap_out) {
		size_t cap = b->cap_out ? 2 * b->cap_out : 256;
		struct crawl_cluster_link *v = realloc(b->out,
						       cap * sizeof(*v));
		if (!v)
			return SC_E_NOMEM;
		b->out = v;
		b->cap_out = cap;
	}
	b->out[b->n_out++] = (struct crawl_cluster_link){
		.url = url,
		.len = u->len,
		.depth = depth,
		.category = category,
		.shard = (uint32_t)write_foreign(c, url, u),
	};
	return 1;
}

/* A cluster: the batch's new URLs of other shards leave it for theirs. */
static int divert(struct crawl *c, MDB_txn *txn, struct batch_urls *b)
{
	size_t k = 0;
	for (size_t i = 0; i < b->n; i++) {
		const struct frontier_url *fu = &b->fu[i];
		if (write_foreign(c, fu->url, fu->u) < 0) {
			b->asis[k] = b->asis[i];
			b->fu[k++] = *fu;
			continue;
		}
		int rc = send_out(c, txn, b, fu->url, fu->u, fu->depth,
				  fu->category);
		if (rc < 0)
			return rc;
	}
	b->n = k;
	return 0;
}

/* The fields of r that say what the fetch of j found. */
static void fill_fetched(const struct job *j, struct store_record *r)
{
	r->fetched = j->fetched;
	r->status = j->fetched && j->status >= 100 && j->status <= 999
			    ? (int)j->status
			    : 0;
	r->error = (enum store_error)j->error;
	r->truncated = j->truncated;
	if (j->fetched) {
		r->bytes = j->bytes;
		r->fetched_at = (int64_t)j->fetched_at;
		if (j->content_type[0]) {
			r->content_type = j->content_type;
			r->content_type_len = strlen(j->content_type);
		}
	}
	if (j->title[0]) {
		r->title = j->title;
		r->title_len = strlen(j->title);
	}
	if (j->has_redirect) {
		r->redirect = j->redirect;
		r->redirect_len = strlen(j->redirect);
	}
	if (j->has_sig) {
		r->has_signature = true;
		memcpy(r->signature, j->sig, sizeof(r->signature));
	}
	if (j->has_simhash) {
		r->has_simhash = true;
		r->simhash = j->simhash;
	}
	r->has_relevance = j->has_relevance;
	r->relevance = j->relevance;
	r->noindex = j->fetched && j->robots_noindex;
	r->nofollow = j->fetched && j->robots_nofollow;
}

/* The new URLs a page brings: the redirect target at the same depth,
 * links one deeper.  They are queued together at the end of the batch. */
static int queue_found(struct crawl *c, MDB_txn *txn, struct job *j,
		       struct batch_urls *b)
{
	const struct crawl_opts *o = c->o;
	int rc;
	if ((rc = batch_grow(b, b->n + j->n_links + 1)))
		return rc;
	uint64_t refused = 0;
	/* The redirect's target, one hop further, at the same depth. */
	struct frontier_url rfu = {
		.url = j->redirect,
		.url_len = j->redirect_u.len,
		.u = &j->redirect_u,
		.found = j->redirect_found ? j->redirect_found : j->redirect,
		.found_len = j->redirect_found ? strlen(j->redirect_found)
					       : j->redirect_u.len,
		.depth = j->lease.depth,
		.category = j->lease.category,
		.redirects = (uint8_t)(j->lease.redirects + 1),
		.offtopic = j->lease.offtopic,
	};
	/* A redirect out of scope is recorded, not followed. */
	if (j->has_redirect && !j->error &&
	    !focus_in_scope(c->focus, j->lease.category, j->lease.url,
			    &j->lease_u, j->redirect, &j->redirect_u))
		focus_count(c->focus, j->lease.category,
			    STORE_FOCUS_PRUNED_SCOPE, 1);
	else if (j->has_redirect && !j->error &&
		 !focus_wanted(c->focus, j->lease.category, j->redirect,
			       j->redirect_u.len))
		refused++;
	else if (j->has_redirect && !j->error &&
		 j->redirect_u.len == j->lease.url_len &&
		 memcmp(j->redirect, j->lease.url, j->lease.url_len) == 0) {
		/* The URL fetched redirected to another form of the key it
		 * was queued under (a directory's slash, a path's case),
		 * and not back to where it was (write-redirect.c).  The
		 * key is in the seen set, as this very lease: it is queued
		 * again, to be fetched under the form the Location header
		 * named. */
		struct frontier_url fu = rfu;
		fu.url = j->lease.url;
		/* The same string as the key: its scheme and port of the
		 * fetch are the Location's (fold_https: an https page that
		 * sends to its http form). */
		fu.u = &j->redirect_u;
		if ((rc = frontier_requeue(c->fr, txn, &fu)) < 0 &&
		    rc != SC_E_INVAL)
			return rc;
	} else if (j->has_redirect && !j->error) {
		/* A redirect target is never rewritten back onto its source
		 * by a learned rule: that would loop. */
		b->asis[b->n] = 0;
		if (c->adapt) {
			char key[NORM_URL_MAX + 1];
			struct norm_url ku;
			b->asis[b->n] =
				adapt_key(c->adapt, j->redirect,
					  j->redirect_u.len, key, &ku) == 1 &&
				((ku.len == j->lease.url_len &&
				  memcmp(key, j->lease.url, ku.len) == 0) ||
				 (ku.len == job_url_len(j) &&
				  memcmp(key, job_url(j), ku.len) == 0));
		}
		b->fu[b->n++] = rfu;
	}
	uint8_t off;
	bool follow = focus_follow(
		c->focus, j->lease.category, j->has_relevance,
		j->focus_relevance,
		j->focus_sample ? UINT8_MAX : j->lease.offtopic, &off);
	if (j->lease.depth + 1u <= o->max_depth &&
	    (!j->dup || o->follow_duplicate_links)) {
		if (!follow)
			focus_count(c->focus, j->lease.category,
				    STORE_FOCUS_PRUNED_RELEVANCE, j->n_links);
		unsigned page_hits = 0, gain = 0;
		for (size_t i = 0; i < j->n_links && follow; i++)
			page_hits += j->links[i].hits > 0;
		for (size_t i = 0; i < j->n_links && follow; i++) {
			struct link *l = &j->links[i];
			if (!focus_in_scope(c->focus, j->lease.category,
					    j->lease.url, &j->lease_u,
					    j->link_text.p + l->off, &l->u)) {
				focus_count(c->focus, j->lease.category,
					    STORE_FOCUS_PRUNED_SCOPE, 1);
				continue;
			}
			if (!focus_wanted(c->focus, j->lease.category,
					  j->link_text.p + l->off, l->u.len)) {
				refused++;
				continue;
			}
			if (!focus_look_follows(&j->lease, off, l->hits)) {
				focus_count(c->focus, j->lease.category,
					    STORE_FOCUS_PRUNED_RELEVANCE, 1);
				continue;
			}
			const char *lurl = j->link_text.p + l->off;
			struct focus_link pl;
			focus_predict(
				c->focus, j->lease.category, j->has_relevance,
				j->focus_relevance, l->hits, page_hits,
				l->u.host_len == j->lease_u.host_len &&
					memcmp(lurl + l->u.host_off,
					       j->lease.url +
						       j->lease_u.host_off,
					       l->u.host_len) == 0,
				lurl, &l->u, j->link_text.p + l->anchor_off,
				l->anchor_len, off, &pl);
			focus_pager(c->focus, j->lease.category,
				    j->focus_relevance, j->lease.url,
				    &j->lease_u, j->lease.pred_class, lurl,
				    &l->u, &pl);
			if (!pl.keep) {
				focus_count(c->focus, j->lease.category,
					    STORE_FOCUS_PRUNED_PREDICTED, 1);
				write_hold_link(c, j, l, off, &pl);
				continue;
			}
			gain += pl.fresh && l->hits > 0;
			/* A page a sitemap says changed since it was
			 * fetched is due at once. */
			if (l->lastmod_ms &&
			    (rc = recrawl_sitemap_lastmod(
				     c, txn, j->link_text.p + l->off, l->u.len,
				     l->lastmod_ms, l->sitemap)) < 0)
				return rc;
			b->asis[b->n] = 0;
			b->fu[b->n++] = (struct frontier_url){
				.url = j->link_text.p + l->off,
				.url_len = l->u.len,
				.u = &l->u,
				.found = j->link_text.p + l->found_off,
				.found_len = l->found_len,
				/* A sitemap of an index is no hop further. */
				.depth = (uint16_t)(j->lease.depth +
						    (l->sitemap ? 0 : 1)),
				.category = j->lease.category,
				.offtopic = off,
				.priority = pl.priority,
				.predicted = pl.predicted,
				.pred_class = pl.pred_class,
				.n_words = pl.n_words,
				.sitemap = l->sitemap,
				.changefreq = l->changefreq,
				.last_modified =
					l->lastmod_len ? j->link_text.p +
								 l->lastmod_off
						       : NULL,
				.last_modified_len = l->lastmod_len,
			};
			memcpy(b->fu[b->n - 1].words, pl.words,
			       sizeof(pl.words));
		}
		if (follow)
			focus_bridge(c->focus, j->lease.category, &j->lease,
				     j->has_relevance, j->focus_relevance,
				     gain);
	}
	if (refused) {
		pthread_mutex_lock(&c->mu);
		c->sum.pruned_pattern += refused;
		pthread_mutex_unlock(&c->mu);
	}
	return 0;
}

/* A revisit of a fetched page (recrawl.c): what it found, the record
 * brought up to date and its next visit, in the batch's transaction.
 * Returns SC_E_NOTFOUND when the page has no record (then it is written
 * as a first fetch). */
static int write_revisit(struct crawl *c, MDB_txn *txn, struct job *j,
			 struct batch_urls *b)
{
	const struct crawl_opts *o = c->o;
	uint64_t min_s = o->recrawl.min_interval_s;
	uint64_t max_s = o->recrawl.max_interval_s;
	unsigned char key[SC_KEY_LEN];
	sc_url_key(j->lease.url, j->lease.url_len, key);
	struct store_record old, r;
	int rc = store_get(c->store, txn, key, &old);
	if (rc)
		return rc;
	unsigned char *buf;
	if ((rc = recrawl_record_copy(&old, &buf, &r)))
		return rc;
	int64_t now = j->fetched ? (int64_t)j->fetched_at : (int64_t)wall_ms();
	uint64_t iv = r.interval_s
			      ? r.interval_s
			      : recrawl_interval_first(now, -1, min_s, max_s);
	long st = j->status;
	bool gone = j->fetched && (st == 404 || st == 410);
	bool answered = j->fetched && st >= 200 && st <= 399 &&
			(!j->error || j->error == STORE_ERROR_TOO_BIG);
	enum visit_outcome v = gone        ? VISIT_GONE
			       : !answered ? VISIT_FAILED
			       : st == 304 ? VISIT_UNCHANGED
					   : VISIT_CHANGED;
	bool was_dup = r.duplicate_of != NULL;
	char dup_of[NORM_URL_MAX + 1];
	if (v == VISIT_CHANGED) {
		/* A full answer: changed or not, by the body-text
		 * signature; a redirect by its target; a page without
		 * text (not HTML) by its size. */
		bool same;
		if (j->has_redirect || r.redirect)
			same = j->has_redirect && r.redirect &&
			       strlen(j->redirect) == r.redirect_len &&
			       memcmp(j->redirect, r.redirect,
				      r.redirect_len) == 0;
		else if (j->has_sig && r.has_signature)
			same = memcmp(j->sig, r.signature, 16) == 0;
		else
			same = !j->has_sig && !r.has_signature &&
			       j->bytes == r.bytes;
		if (was_dup && r.duplicate_of_len < sizeof(dup_of)) {
			/* An audited duplicate: the same as its
			 * representative's, or its own page now. */
			memcpy(dup_of, r.duplicate_of, r.duplicate_of_len);
			dup_of[r.duplicate_of_len] = '\0';
			if ((rc = dedup(c, txn, j)))
				goto out;
			bool still = j->dup && strcmp(j->dup_of, dup_of) == 0;
			if (!still)
				j->diverged = true;
			same = still;
		} else if (!same && j->has_sig && !j->text_empty) {
			/* A representative stays one (nothing that points
			 * to it is left dangling): its new text is claimed
			 * for it when no other page holds it. */
			rc = store_sig_claim(c->store, txn, j->sig,
					     j->lease.url, j->lease.url_len,
					     NULL, NULL);
			if (rc < 0)
				goto out;
			if (j->has_simhash && o->near_k >= 0 &&
			    (rc = store_simhash_add(c->store, txn, j->simhash,
						    key)))
				goto out;
		}
		if (same)
			v = VISIT_UNCHANGED;
	}
	j->visit = (uint8_t)v;

	if (v != VISIT_FAILED) {
		r.visits++;
		r.fetched_at = now;
		if (j->etag[0] || st != 304) {
			r.etag = j->etag[0] ? j->etag : NULL;
			r.etag_len = strlen(j->etag);
		}
		if (j->last_modified[0] || st != 304) {
			r.last_modified = j->last_modified[0] ? j->last_modified
							      : NULL;
			r.last_modified_len = strlen(j->last_modified);
		}
	}
	if (v == VISIT_GONE) {
		r.status = (int)st;
		r.error = STORE_ERROR_HTTP_ERROR;
		if (!r.has_gone_at) {
			r.has_gone_at = true;
			r.gone_at = now;
		}
		iv = max_s;
	} else if (v != VISIT_FAILED && st != 304) {
		/* What the fetch found replaces what the record held. */
		r.content_type = r.title = r.redirect = NULL;
		r.content_type_len = r.title_len = r.redirect_len = 0;
		r.has_signature = r.has_simhash = false;
		fill_fetched(j, &r);
		r.has_gone_at = false;
		if (was_dup) {
			r.duplicate_of = j->dup ? j->dup_of : NULL;
			r.duplicate_of_len = j->dup ? strlen(j->dup_of) : 0;
		}
	}
	if (v == VISIT_CHANGED) {
		r.has_changed_at = true;
		r.changed_at = now;
	}
	if (v == VISIT_CHANGED || v == VISIT_UNCHANGED)
		iv = recrawl_interval_next(iv, v == VISIT_CHANGED, min_s,
					   max_s);
	r.has_visit = true;
	r.interval_s = (uint32_t)iv;
	r.due_at = now + (int64_t)iv * 1000;

	/* Every exchange is archived; only a page's own answer (not a
	 * failure, not a 404) becomes the capture later visits refer to. */
	struct warc_capture cap;
	struct store_record scratch = r;
	bool own = v == VISIT_CHANGED || v == VISIT_UNCHANGED;
	if ((rc = write_warc(c, j, own ? &r : &scratch, &cap)))
		goto out;
	struct frontier_due d = { .due = r.due_at,
				  .pass = c->pass,
				  .flags = j->lease.sitemap
						   ? FRONTIER_DUE_SITEMAP
						   : 0 };
	memcpy(d.key, key, SC_KEY_LEN);
	if ((rc = store_put(c->store, txn, &r)) ||
	    (rc = frontier_due_put(c->fr, txn, &d)))
		goto out;
	if ((rc = frontier_done(c->fr, txn, &j->lease)) && rc != SC_E_NOTFOUND)
		goto out;
	rc = 0;
	/* Links of a page that answered, and a redirect that appeared, are
	 * new URLs like any (the seen set drops those known). */
	j->focus_relevance = j->relevance;
	j->focus_sample = false;
	if ((v == VISIT_CHANGED || v == VISIT_UNCHANGED) && st != 304)
		rc = queue_found(c, txn, j, b);
out:
	free(buf);
	return rc;
}

static int write_job(struct crawl *c, MDB_txn *txn, struct job *j,
		     struct batch_urls *b)
{
	const struct crawl_opts *o = c->o;
	struct store_record r = { 0 };
	if (j->kind == JOB_ROBOTS)
		return j->fetched && j->rules ? write_robots(c, txn, j) : 0;
	if (j->kind == JOB_SEEDS || j->kind == JOB_RELOAD)
		return write_seeds(c, txn, j, b);
	if (j->kind == JOB_DUE)
		return recrawl_move(c, txn, j);
	if (j->kind == JOB_RESERVE)
		return write_reserve(c, txn, j);
	if (j->held)
		return write_held(c, txn, j);
	if (j->rehome)
		return write_rehome(c, txn, j);
	if (j->pruned) {
		focus_count(c->focus, j->lease.category,
			    STORE_FOCUS_PRUNED_PREDICTED, 1);
		write_hold_lease(c, j);
		/* Out of the queue and out of the seen set: the prediction
		 * was made with what the crawl knew then, and a later link
		 * that shows more queues the URL again (predicted anew). */
		int rc = frontier_done(c->fr, txn, &j->lease);
		if (rc)
			return rc == SC_E_NOTFOUND ? 0 : rc;
		rc = frontier_forget(c->fr, txn, j->lease.url,
				     j->lease.url_len);
		return rc < 0 ? rc : 0;
	}
	if (j->has_redirect && !j->error && write_redirect_loops(c, txn, j))
		j->error = STORE_ERROR_REDIRECT_LOOP;
	int rc;
	if (j->lease.revisit &&
	    (rc = write_revisit(c, txn, j, b)) != SC_E_NOTFOUND)
		return rc;
	if ((rc = dedup(c, txn, j)))
		return rc;
	char why[512];
	why[0] = '\0';
	if (c->adapt) {
		if ((rc = adapt_evidence(c, txn, j)))
			return rc;
		adapt_rule_of(c, j, why, sizeof(why));
	}
	r.url = j->lease.found;
	r.url_len = j->lease.found_len;
	r.normalized = j->lease.url;
	r.normalized_len = j->lease.url_len;
	const char *cat = j->lease.category < o->n_categories
				  ? o->categories[j->lease.category].name
				  : "";
	r.category = cat;
	r.category_len = strlen(cat);
	r.depth = j->lease.depth;
	fill_fetched(j, &r);
	if (j->dup) {
		r.duplicate_of = j->dup_of;
		r.duplicate_of_len = strlen(j->dup_of);
	}
	if (why[0]) {
		r.rule = why;
		r.rule_len = strlen(why);
	}
	struct warc_capture cap;
	if ((rc = recrawl_first(c, txn, j, &r)) ||
	    (rc = write_warc(c, j, &r, &cap)) ||
	    (rc = store_put(c->store, txn, &r)))
		return rc;
	if ((rc = frontier_done(c->fr, txn, &j->lease)) && rc != SC_E_NOTFOUND)
		return rc;
	/* The host's page budget counts committed fetches (frontier.h). */
	if (rc == 0 && j->fetched &&
	    (rc = frontier_count_fetch(c->fr, txn, j->lease.host_id)))
		return rc;
	focus_page(c->focus, &j->lease,
		   j->fetched && j->status >= 200 && j->status <= 299,
		   j->has_relevance, j->relevance);
	/* What the page turned out to be teaches the link prediction,
	 * before its own links are predicted. */
	j->focus_relevance = j->relevance;
	j->focus_sample = false;
	if (j->fetched && j->status >= 200 && j->status <= 299 &&
	    j->lease.u.len) {
		j->focus_relevance = write_page_relevance(c, j);
		j->focus_sample = focus_learn(
			c->focus, j->lease.category, &j->lease, j->words,
			j->has_relevance, j->focus_relevance);
		if ((rc = write_released(c, txn, NULL)))
			return rc;
	}
	bool learning = focus_learning(c->focus);
	if (learning != c->learning) {
		frontier_set_learning(c->fr, learning);
		c->learning = learning;
	}
	/* Only the writer sets it: reading it here needs no lock. */
	uint32_t lead = focus_lead(c->focus);
	if (lead != c->lead) {
		pthread_mutex_lock(&c->mu);
		c->lead = lead;
		pthread_mutex_unlock(&c->mu);
	}
	return queue_found(c, txn, j, b);
}

/* A page first fetched with a 2xx answer, for its category's figures
 * since the start (under c->mu). */
static void count_category(struct crawl *c, const struct job *b)
{
	const struct crawl_opts *o = c->o;
	uint16_t k = b->lease.category;
	if (k >= CRAWL_CATEGORIES_LISTED)
		return;
	c->cat_since[k].pages++;
	if (!b->has_relevance)
		return;
	c->cat_since[k].scored++;
	if (k < o->n_categories &&
	    b->relevance >= o->categories[k].min_relevance)
		c->cat_since[k].on_topic++;
}

/* Room for n entries in the writer's other[] (frontier_add_batch_cat). */
static int grow_other(uint16_t **other, size_t *cap, size_t n)
{
	if (n <= *cap)
		return 0;
	uint16_t *v = realloc(*other, n * sizeof(*v));
	if (!v)
		return SC_E_NOMEM;
	*other = v;
	*cap = n;
	return 0;
}

/* One try at a batch: its transaction, WARC records, search index and
 * cluster hand-offs, then the commit.  Returns 0, or the failure, after
 * which nothing of the batch is left as if written: the transaction is
 * aborted, the WARC file cut back to where the batch began, the search
 * index's transaction rolled back (index_batch()), and focus's counts of
 * the try dropped.  c->w_part and c->w_errno say what failed. */
static int write_batch(struct crawl *c, struct job **batch, size_t n,
		       struct batch_urls *bu,
		       struct crawl_cluster_claim *claims, uint16_t **other,
		       size_t *cap_other, int *queued)
{
	struct warc_mark mark;
	warc_mark(c->warc, &mark);
	c->w_part = PART_STORE;
	c->w_errno = 0;
	*queued = 0;
	recrawl_clock_refresh();
	MDB_txn *txn = NULL;
	int rc = store_txn_begin(c->env, 0, &txn);
	batch_reset(bu);
	if (!rc && c->o->cluster && c->o->cluster->claim)
		rc = claim_batch(c, txn, batch, n, claims);
	for (size_t i = 0; i < n && !rc; i++)
		rc = write_job(c, txn, batch[i], bu);
	/* Other shards' URLs before the learned rules: those are
	 * their shards' own. */
	if (!rc && c->o->cluster && bu->n)
		rc = divert(c, txn, bu);
	if (!rc && c->adapt && bu->n)
		rc = adapt_links(c, txn, bu);
	if (!rc && bu->n)
		rc = grow_other(other, cap_other, bu->n);
	if (!rc && bu->n) {
		int q = frontier_add_batch_cat(c->fr, txn, bu->fu, bu->n, NULL,
					       *other);
		if (q < 0)
			rc = q;
		else {
			*queued = q;
			rc = focus_note_also(c->focus, c->store, txn, bu->fu,
					     bu->n, *other);
		}
	}
	if (!rc)
		rc = focus_flush(c->focus, c->store, txn);
	/* The WARC records (written with each page's record) are
	 * on disk before the records that say the pages were
	 * fetched. */
	if (c->warc && !rc && (rc = warc_flush(c->warc))) {
		c->w_part = PART_WARC;
		c->w_errno = errno;
	}
	if (!rc && c->search)
		rc = index_batch(c, batch, n);
	/* Durable on their way (the spool) before the commit that
	 * marks them seen. */
	if (!rc && bu->n_out &&
	    (rc = c->o->cluster->send(c->o->cluster->arg, bu->out,
				      bu->n_out))) {
		c->w_part = PART_SPOOL;
		c->w_errno = errno;
	}
	if (!rc)
		rc = store_txn_commit(txn);
	else if (txn)
		mdb_txn_abort(txn);
	if (!rc)
		return 0;
	if (c->w_part == PART_STORE)
		c->w_errno = store_last_errno();
	if (rc == SC_E_IO)
		c->w_errno = full_errno(c, (enum full_part)c->w_part,
					c->w_errno);
	frontier_discarded(c->fr);
	if (c->warc && warc_cut(c->warc, &mark))
		c->w_errno = 0; /* the WARC file is broken: fatal */
	pthread_mutex_lock(&c->mu);
	crawl_focus_end(c, false);
	pthread_mutex_unlock(&c->mu);
	return rc;
}

void *writer_main(void *arg)
{
	struct crawl *c = arg;
	struct batch_urls bu = { 0 };
	uint16_t *other = NULL;
	size_t cap_other = 0;
	struct job *batch[WRITE_BATCH];
	struct crawl_cluster_claim claims[WRITE_BATCH];

	for (;;) {
		pthread_mutex_lock(&c->mu);
		while (!c->to_write.head && !c->quit_writer)
			pthread_cond_wait(&c->write_cv, &c->mu);
		if (!c->to_write.head && c->quit_writer) {
			pthread_mutex_unlock(&c->mu);
			break;
		}
		/* Linger a little when the batch is small: fewer, larger
		 * commits.  The wait goes on until the deadline or a batch
		 * full enough, not the first signal (that committed some 5
		 * pages at a time, with an msync each), and while it lingers
		 * a job handed over signals write_cv only when the batch is
		 * full enough (writer_wake()): a signal per job woke this
		 * thread once a page, for nothing. */
		if (c->to_write.n < WRITE_BATCH / 4 && !c->quit_writer) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += WRITE_LINGER_MS * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			c->writer_lingers = true;
			while (c->to_write.n < WRITE_BATCH / 4 &&
			       !c->quit_writer &&
			       pthread_cond_timedwait(&c->write_cv, &c->mu,
						      &ts) != ETIMEDOUT)
				;
			c->writer_lingers = false;
		}
		/* At most WRITE_BATCH_LINKS links a batch, whatever its
		 * pages: a transaction's dirty pages grow with the URLs it
		 * queues, and LMDB keeps as many pages as its largest
		 * transaction dirtied, as heap, for reuse. */
		size_t n = 0, links = 0;
		struct job *j;
		while (n < WRITE_BATCH && links < WRITE_BATCH_LINKS &&
		       (j = jobq_pop(&c->to_write))) {
			batch[n++] = j;
			if (j->kind == JOB_PAGE)
				links += j->n_links;
		}
		pthread_mutex_unlock(&c->mu);

		int queued = 0;
		int rc;
		/* Under serve, a batch that found no space is written again,
		 * whole, once there is (diskfull.c). */
		while ((rc = write_batch(c, batch, n, &bu, claims, &other,
					 &cap_other, &queued)) &&
		       full_wait(c, rc, c->w_errno, c->w_part))
			;
		if (rc) {
			if (!full_error(rc, c->w_errno))
				crawl_die(c, rc, "writing the store");
		} else {
			frontier_published(c->fr);
			full_clear(c);
		}
		for (size_t i = 0; i < n; i++)
			if (batch[i]->kind == JOB_PAGE &&
			    batch[i]->release_at_commit)
				frontier_release(c->fr,
						 batch[i]->lease.host_id);

		for (size_t i = 0; i < n && !rc; i++)
			lost_hosts_note(c, batch[i]);
		pthread_mutex_lock(&c->mu);
		size_t pages = 0;
		for (size_t i = 0; i < n; i++) {
			struct job *b = batch[i];
			if (b->kind != JOB_PAGE) { /* back to the loop */
				b->seeds_rc = rc;
				if (!rc && b->kind == JOB_SEEDS) {
					c->sum.cluster_misrouted +=
						b->seeds_misrouted;
					if (b->seeds->remote)
						c->sum.cluster_received +=
							(uint64_t)
								b->seeds_added;
				}
				jobq_push(&c->to_loop, b);
				continue;
			}
			pages++;
			if (b->lease.revisit && c->revisits_queued)
				c->revisits_queued--;
			if (!rc && b->visit != VISIT_NONE) {
				struct crawl_recrawl_stats *re = &c->sum.re;
				re->revisited += b->visit != VISIT_FAILED;
				re->unchanged += b->visit == VISIT_UNCHANGED;
				re->not_modified += b->visit ==
							    VISIT_UNCHANGED &&
						    b->status == 304;
				re->changed += b->visit == VISIT_CHANGED;
				re->gone += b->visit == VISIT_GONE;
				re->failed += b->visit == VISIT_FAILED;
				re->diverged += b->diverged;
			}
			if (!rc) {
				if (b->fetched && !b->lease.revisit &&
				    b->status >= 200 && b->status <= 299)
					count_category(c, b);
				if (b->fetched) {
					c->sum.pages++;
					c->sum.noindex_nofollow +=
						b->robots_noindex &&
						b->robots_nofollow;
					c->sum.bytes += b->bytes;
					c->sum.by_class
						[b->status >= 100 &&
								 b->status < 600
							 ? b->status / 100
							 : 0]++;
				}
				/* Refusals by robots.txt and by the page
				 * budget are the crawl's policy, not
				 * errors. */
				if (b->error &&
				    !store_error_is_policy(b->error))
					c->sum.errors++;
				if (b->error > 0 &&
				    b->error < STORE_ERROR_COUNT)
					c->sum.by_error[b->error]++;
				if (b->error == STORE_ERROR_ROBOTS_DISALLOWED)
					c->sum.robots_disallowed++;
				c->sum.links_bad += b->links_bad;
				if (b->dup == DUP_EXACT)
					c->sum.dup_exact++;
				else if (b->dup == DUP_NEAR)
					c->sum.dup_near++;
			}
			job_free(b);
		}
		if (!rc) {
			c->sum.queued += (uint64_t)queued;
			c->sum.cluster_sent += bu.n_out;
		}
		crawl_focus_end(c, !rc);
		c->in_pipeline -= pages;
		c->commits++;
		pthread_mutex_unlock(&c->mu);
		event_active(c->wakeup, EV_READ, 0);
	}
	batch_free(&bu);
	free(other);
	return NULL;
}
