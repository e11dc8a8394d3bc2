/* creds.c — passwords found in URLs, for `[crawl] url_credentials = use`.
 *
 * norm_url() writes every password as "***" (normalize.h), so no key,
 * record, export, WARC header or log line holds one.  With use, the
 * crawl's norm_opts report each password it masks here, and the fetch
 * puts it back into the URL it hands to libcurl (crawl_creds_wire()).
 *
 * The table is the process's, not a crawl's: a reload makes new crawl
 * options, and a password found before it must still serve the URLs it
 * queued.  It lives in memory only and is wiped at exit; after a restart a
 * queued URL whose password has not been found again is fetched without
 * its userinfo.  Bounded: the first CREDS_MAX authorities are kept, the
 * first password found for each wins (the seeds come before the links, so
 * an operator's password is not replaced by one a page supplies). */
#include "crawl.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CREDS_MAX 1024

struct cred {
	/* "user:***@host[:port]" as norm_url() wrote it; not the scheme,
	 * which fold_https may have written "http" in a key that is fetched
	 * over https. */
	char *auth;
	char *pw; /* percent-encoded, as the URL carried it */
	size_t auth_len, pw_len;
};

static pthread_mutex_t creds_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cred creds[CREDS_MAX];
static size_t n_creds;

static struct cred *find(const char *auth, size_t n)
{
	for (size_t i = 0; i < n_creds; i++)
		if (creds[i].auth_len == n && !memcmp(creds[i].auth, auth, n))
			return &creds[i];
	return NULL;
}

void crawl_creds_note(void *arg, const char *url, const struct norm_url *u,
		      const char *pw, size_t len)
{
	(void)arg;
	const char *auth = url + u->user_off;
	size_t n = (size_t)(u->path_off - u->user_off);
	pthread_mutex_lock(&creds_lock);
	if (n_creds < CREDS_MAX && !find(auth, n)) {
		struct cred *c = &creds[n_creds];
		c->auth = strndup(auth, n);
		c->pw = strndup(pw, len);
		if (c->auth && c->pw) {
			c->auth_len = n;
			c->pw_len = len;
			n_creds++;
		} else {
			free(c->auth);
			free(c->pw);
			c->auth = c->pw = NULL;
		}
	}
	pthread_mutex_unlock(&creds_lock);
}

int crawl_creds_wire(bool use, const char *url, char *out, size_t cap)
{
	/* The userinfo ends at the last '@' of the authority. */
	const char *a = strstr(url, "://");
	size_t len = strlen(url);
	if (!a) {
		if (len >= cap)
			return SC_E_NOSPC;
		memcpy(out, url, len + 1);
		return 0;
	}
	a += 3;
	size_t an = strcspn(a, "/?#");
	const char *at = NULL;
	for (const char *p = a; p < a + an; p++)
		if (*p == '@')
			at = p;
	if (!at) {
		if (len >= cap)
			return SC_E_NOSPC;
		memcpy(out, url, len + 1);
		return 0;
	}
	const char *colon = memchr(a, ':', (size_t)(at - a));
	struct cred *c = NULL;
	pthread_mutex_lock(&creds_lock);
	if (use && colon)
		c = find(a, an);
	int rc = 0;
	size_t head = (size_t)(a - url);
	if (c) {
		/* scheme://user: + password + @host... */
		size_t user = (size_t)(colon + 1 - url);
		size_t tail = len - (size_t)(at - url);
		if (user + c->pw_len + tail >= cap) {
			rc = SC_E_NOSPC;
		} else {
			memcpy(out, url, user);
			memcpy(out + user, c->pw, c->pw_len);
			memcpy(out + user + c->pw_len, at, tail + 1);
		}
	} else if (use && !colon) {
		/* A user without a password: nothing secret, sent as is. */
		if (len >= cap)
			rc = SC_E_NOSPC;
		else
			memcpy(out, url, len + 1);
	} else {
		/* The password is not known (mask, or not found in this
		 * run): no userinfo at all. */
		size_t tail = len - (size_t)(at + 1 - url);
		if (head + tail >= cap) {
			rc = SC_E_NOSPC;
		} else {
			memcpy(out, url, head);
			memcpy(out + head, at + 1, tail + 1);
		}
	}
	pthread_mutex_unlock(&creds_lock);
	return rc;
}

void crawl_creds_wipe(void)
{
	pthread_mutex_lock(&creds_lock);
	for (size_t i = 0; i < n_creds; i++) {
		explicit_bzero(creds[i].pw, creds[i].pw_len);
		free(creds[i].pw);
		free(creds[i].auth);
		creds[i] = (struct cred){ 0 };
	}
	n_creds = 0;
	pthread_mutex_unlock(&creds_lock);
}
