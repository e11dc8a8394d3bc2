/* write-redirect.c — the writer's question about a redirect: does it
 * close a loop?  Its target is queued under the profile's key of the
 * Location (queue_found(), writer.c); this says whether that target, or
 * a chain of recorded redirects from it, leads back to the page that
 * redirected.  A target under the page's own key is the one case a key
 * cannot decide: the profile's steps (a lower-cased path, a slash) or a
 * learned rule map the Location back onto the key it came from, and the
 * Location, strict, names another URL, which is fetched; only the strict
 * forms fetched tell a real loop. */
#include "crawl-int.h"

/* The redirect of j names a URL under j's own key (a profile's steps
 * or a learned rule map the Location back onto the key it came from: a
 * lower-cased path, a slash).  That is no loop unless the Location,
 * strict-normalized, is the URL j fetched, or the one an earlier fetch
 * under the key asked for (its record's URL as found): then the server
 * sends the crawl back to where it was.  Otherwise the key is queued
 * again under the Location as written (queue_found()), and the redirects
 * followed bound the chain (too_many_redirects). */
static bool same_key_loops(struct crawl *c, MDB_txn *txn, const struct job *j)
{
	struct norm_opts fo = fetch_norm(c->o);
	const char *loc = j->redirect_found ? j->redirect_found : j->redirect;
	char t[NORM_URL_MAX + 1];
	struct norm_url tu;
	if (norm_url(&fo, NULL, loc, strlen(loc), t, sizeof(t), &tu))
		return true;
	if (tu.len == job_url_len(j) && memcmp(t, job_url(j), tu.len) == 0)
		return true;
	unsigned char key[SC_KEY_LEN];
	struct store_record r;
	sc_url_key(j->lease.url, j->lease.url_len, key);
	if (store_get(c->store, txn, key, &r) || !r.url_len)
		return false;
	char was[NORM_URL_MAX + 1];
	struct norm_url wu;
	return norm_url(&fo, NULL, r.url, r.url_len, was, sizeof(was), &wu) ==
		       0 &&
	       wu.len == tu.len && memcmp(was, t, tu.len) == 0;
}

/* Does the redirect of j close a loop?  A target under j's own key is
 * same_key_loops()'s question; another closes one when it is the URL j
 * fetched, or a chain of recorded redirects leads from it back to j
 * (its key, or, adaptive, the URL it fetched: the records' redirects
 * are strict there). */
bool write_redirect_loops(struct crawl *c, MDB_txn *txn, const struct job *j)
{
	const char *self = job_url(j);
	size_t self_len = job_url_len(j);
	const char *t = j->redirect;
	size_t t_len = j->redirect_u.len;
	if (t_len == j->lease.url_len && memcmp(t, j->lease.url, t_len) == 0)
		return same_key_loops(c, txn, j);
	for (int hop = 0; hop <= 10; hop++) {
		if (t_len == self_len && memcmp(t, self, t_len) == 0)
			return true;
		if (!c->adapt && t_len == j->lease.url_len &&
		    memcmp(t, j->lease.url, t_len) == 0)
			return true;
		unsigned char key[SC_KEY_LEN];
		struct store_record r;
		sc_url_key(t, t_len, key);
		if (store_get(c->store, txn, key, &r) || !r.redirect)
			return false;
		t = r.redirect;
		t_len = r.redirect_len;
	}
	return false;
}
