/* fetch.c — the transfers: libcurl's multi interface driven by libevent
 * (sockets and timer), each easy handle's callbacks, and what a finished
 * page fetch becomes (page_done). */
#include "crawl-int.h"

#include <xxhash.h>

/* CURLOPT_BUFFERSIZE of a page's transfer and a robots.txt's
 * (start_xfer()). */
#define XFER_BUF_PAGE 8192L
#define XFER_BUF_ROBOTS 4096L

static size_t write_cb(char *data, size_t size, size_t nmemb, void *arg)
{
	struct xfer *x = arg;
	struct sc_dynbuf *b = &x->job->body;
	size_t n = size * nmemb;

	if (b->len + n > x->limit) {
		/* Keep what fits, then stop the transfer: recorded as
		 * truncated, not as an error. */
		n = x->limit - b->len;
		x->truncated = true;
	}
	if (sc_dyn_add(b, data, n))
		return 0; /* ends the transfer: CURLE_WRITE_ERROR */
	x->job->bytes = b->len;
	return x->truncated ? 0 : size * nmemb;
}

/* The response header block, kept for the WARC files (at most
 * WARC_HEAD_MAX bytes: more is an overflow, and the page's exchange is
 * left out of them). */
static size_t header_cb(char *data, size_t size, size_t nmemb, void *arg)
{
	struct job *j = arg;
	size_t n = size * nmemb;
	if (j->head_overflow)
		return n;
	int rc = sc_dyn_add(&j->resp_head, data, n);
	if (rc == SC_E_LIMIT) {
		j->head_overflow = true;
		return n;
	}
	return rc ? 0 : n; /* 0 ends the transfer: CURLE_WRITE_ERROR */
}

/* The request header block as sent, for the WARC files: libcurl shows it
 * only through its debug callback. */
static int debug_cb(CURL *e, curl_infotype type, char *data, size_t size,
		    void *arg)
{
	(void)e;
	struct job *j = arg;
	if (type != CURLINFO_HEADER_OUT || size > WARC_HEAD_MAX)
		return 0;
	/* Credentials are not kept: the value of an Authorization or
	 * Proxy-Authorization header (a URL's password, or a configured
	 * token) is written "SCHEME ***" in the WARC request record.  A
	 * line so written is at most 6 bytes longer than it was, and at
	 * least 15 bytes long: twice the size is room enough. */
	char *r = malloc(2 * size + 1);
	if (!r)
		return 0;
	size_t n = 0;
	for (size_t i = 0; i < size;) {
		const char *line = data + i;
		const char *eol = memchr(line, '\n', size - i);
		size_t ln = eol ? (size_t)(eol - line) + 1 : size - i;
		const char *colon = memchr(line, ':', ln);
		size_t name = colon ? (size_t)(colon - line) : 0;
		i += ln;
		if (!((name == 13 && !strncasecmp(line, "Authorization", 13)) ||
		      (name == 19 &&
		       !strncasecmp(line, "Proxy-Authorization", 19)))) {
			memcpy(r + n, line, ln);
			n += ln;
			continue;
		}
		const char *v = colon + 1, *end = line + ln;
		while (v < end && *v == ' ')
			v++;
		size_t sch = 0;
		while (v + sch < end && v[sch] != ' ' && v[sch] != '\r' &&
		       v[sch] != '\n')
			sch++;
		memcpy(r + n, line, name);
		n += name;
		memcpy(r + n, ": ", 2);
		n += 2;
		if (v + sch < end && v[sch] == ' ') { /* "Basic ***" */
			memcpy(r + n, v, sch + 1);
			n += sch + 1;
		}
		memcpy(r + n, "***\r\n", 5);
		n += eol ? 5 : 3;
	}
	size = n;
	free(j->req_head);
	j->req_head = r;
	j->req_len = size;
	return 0;
}

/* A validator as a header value: printable ASCII only (it came from the
 * network, and goes back into a request). */
static bool validator_ok(const char *v)
{
	if (!*v)
		return false;
	for (; *v; v++)
		if (*v < 0x20 || *v > 0x7e)
			return false;
	return true;
}

/* A revisit's conditional request (RFC 9110 §13.1): If-None-Match with
 * the stored ETag, If-Modified-Since with the stored Last-Modified. */
static int conditional_headers(struct crawl *c, struct xfer *x)
{
	const struct frontier_lease *l = &x->job->lease;
	char h[FRONTIER_ETAG_MAX + 32];
	struct curl_slist *n;
	/* The crawl's own headers first: one list per transfer. */
	for (const struct curl_slist *e = c->headers; e; e = e->next) {
		if (!(n = curl_slist_append(x->headers, e->data)))
			return SC_E_NOMEM;
		x->headers = n;
	}
	if (validator_ok(l->etag)) {
		snprintf(h, sizeof(h), "If-None-Match: %s", l->etag);
		if (!(n = curl_slist_append(x->headers, h)))
			return SC_E_NOMEM;
		x->headers = n;
	}
	if (validator_ok(l->last_modified)) {
		snprintf(h, sizeof(h), "If-Modified-Since: %s",
			 l->last_modified);
		if (!(n = curl_slist_append(x->headers, h)))
			return SC_E_NOMEM;
		x->headers = n;
	}
	return 0;
}

/* What the answer's X-Robots-Tag headers say (every one of them; a value
 * for another user agent is not ours): PARSE_ROBOTS_* bits. */
static uint8_t robots_header(CURL *e, const char *token)
{
	struct curl_header *h;
	unsigned bits = 0;
	for (size_t i = 0; curl_easy_header(e, "X-Robots-Tag", i, CURLH_HEADER,
					    -1, &h) == CURLHE_OK;
	     i++) {
		bits |= parse_robots_tag(h->value, token);
		if (i + 1 >= h->amount)
			break;
	}
	return (uint8_t)bits;
}

/* Adaptive: the answer's Link header naming a rel=canonical (every Link
 * header, its first canonical link), resolved against the URL fetched,
 * into j->canonical when it names another URL (crawler/learn/
 * adapt-claim.c).  A page's <link rel=canonical> is read only when the
 * header named none (parsers.c). */
static void link_canonical(struct crawl *c, CURL *e, struct job *j)
{
	struct curl_header *h;
	char raw[NORM_URL_MAX + 1];
	bool found = false;
	for (size_t i = 0;
	     !found &&
	     curl_easy_header(e, "Link", i, CURLH_HEADER, -1, &h) == CURLHE_OK;
	     i++) {
		found = parse_link_canonical(h->value, raw, sizeof(raw)) == 1;
		if (i + 1 >= h->amount)
			break;
	}
	if (!found)
		return;
	struct norm_base base;
	char out[NORM_URL_MAX + 1];
	if (norm_base_set(&base, NULL, job_url(j), job_url_len(j)) ||
	    norm_url(&c->o->norm, &base, raw, strlen(raw), out, sizeof(out),
		     NULL) ||
	    strcmp(out, job_url(j)) == 0)
		return;
	free(j->canonical);
	j->canonical = strdup(out); /* NULL: no claim, nothing lost */
}

/* The validators of a page's answer, for its next visit.  Values that
 * do not fit are left out (the next visit is then unconditional). */
static void keep_validators(CURL *e, struct job *j)
{
	struct curl_header *h;
	if (curl_easy_header(e, "ETag", 0, CURLH_HEADER, -1, &h) == CURLHE_OK &&
	    strlen(h->value) <= FRONTIER_ETAG_MAX && validator_ok(h->value))
		strcpy(j->etag, h->value);
	if (curl_easy_header(e, "Last-Modified", 0, CURLH_HEADER, -1, &h) ==
		    CURLHE_OK &&
	    strlen(h->value) <= FRONTIER_LAST_MODIFIED_MAX &&
	    validator_ok(h->value))
		strcpy(j->last_modified, h->value);
}

int conn_caches_open(struct crawl *c)
{
	/* A budget too small to give each cache two connections (a low
	 * RLIMIT_NOFILE, fdbudget.c) keeps one cache: each of CONN_SHARES
	 * caches keeps at least one, which could pass the budget. */
	if (c->share || c->max_cached < 2 * CONN_SHARES)
		return 0;
	for (size_t i = 0; i < CONN_SHARES; i++)
		if (!(c->conn_share[i] = curl_share_init()) ||
		    curl_share_setopt(c->conn_share[i], CURLSHOPT_SHARE,
				      CURL_LOCK_DATA_CONNECT) != CURLSHE_OK)
			return SC_E_NOMEM;
	return 0;
}

/* After every easy handle and the multi handle are gone. */
void conn_caches_close(struct crawl *c)
{
	for (size_t i = 0; i < CONN_SHARES; i++) {
		curl_share_cleanup(c->conn_share[i]);
		c->conn_share[i] = NULL;
	}
}

long conn_cache_size(const struct crawl *c)
{
	if (!c->conn_share[0])
		return c->max_cached;
	long n = c->max_cached / CONN_SHARES;
	return n > 0 ? n : 1;
}

/* The connection cache of url's host: by the hash of what comes before
 * its path ("http://host:port"), which a host's URLs all share. */
static CURLSH *conn_cache_for(const struct crawl *c, const char *url)
{
	if (!c->conn_share[0])
		return NULL;
	const char *h = strstr(url, "://");
	h = h ? h + 3 : url;
	size_t n = (size_t)(h - url) + strcspn(h, "/?#");
	return c->conn_share[XXH3_64bits(url, n) % CONN_SHARES];
}

int start_xfer(struct crawl *c, struct xfer *x, const char *url)
{
	const struct crawl_opts *o = c->o;
	CURL *e = curl_easy_init();
	if (!e)
		return SC_E_NOMEM;
	x->easy = e;
	x->c = c;
	x->started_ms = mono_ms();
	/* The URL with the password the key masks, or without userinfo. */
	char wire[NORM_URL_MAX + NORM_PASSWORD_MAX + 1];
	if (crawl_creds_wire(o->url_credentials_use, url, wire, sizeof(wire))) {
		curl_easy_cleanup(e);
		return SC_E_NOSPC;
	}
	curl_easy_setopt(e, CURLOPT_URL, wire);
	curl_easy_setopt(e, CURLOPT_PRIVATE, x);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	if (x->last)
		curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L);
	/* libcurl's receive buffer, one per transfer in flight: its 16 KB
	 * default was the largest part of a transfer's memory, and a broad
	 * crawl keeps a thousand in flight (5,000 hosts at 1 s: RssAnon
	 * 84 -> 73 MB at 4 KB).  Smaller costs more write callbacks and
	 * reads, which the bench web's pages did not show in CPU a page
	 * (667 against 666 µs); a robots.txt is mostly short. */
	curl_easy_setopt(e, CURLOPT_BUFFERSIZE,
			 x->job->kind == JOB_ROBOTS ? XFER_BUF_ROBOTS
						    : XFER_BUF_PAGE);
	curl_easy_setopt(e, CURLOPT_USERAGENT, o->user_agent);
	curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, ""); /* all curl has */
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	/* Waiting for a connection to multiplex on pays only over HTTP/2,
	 * which http:// URLs never get (2TLS): there it would hold a
	 * request back until another transfer to the same address is done
	 * (many hosts behind one address: a CDN, a proxy). */
	if (!strncmp(url, "https:", 6))
		curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
			 (long)(o->timeout_s < 10 ? o->timeout_s : 10) * 1000L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)o->timeout_s * 1000L);
	route_set(c, x, url);
	if (o->proxy)
		curl_easy_setopt(e, CURLOPT_PROXY, o->proxy);
	/* One's own CA, and a client certificate (conf.h). */
	if (o->ca_file)
		curl_easy_setopt(e, CURLOPT_CAINFO, o->ca_file);
	if (o->ca_path)
		curl_easy_setopt(e, CURLOPT_CAPATH, o->ca_path);
	if (o->client_cert)
		curl_easy_setopt(e, CURLOPT_SSLCERT, o->client_cert);
	if (o->client_key)
		curl_easy_setopt(e, CURLOPT_SSLKEY, o->client_key);
	if (c->share) {
		/* Cookies: the crawl's, in the share handle; the jar's file
		 * is read into it by the first transfer. */
		curl_easy_setopt(e, CURLOPT_SHARE, c->share);
		curl_easy_setopt(e, CURLOPT_COOKIEFILE,
				 c->jar_loaded ? "" : o->cookie_jar);
		c->jar_loaded = true;
	} else if (c->conn_share[0]) {
		curl_easy_setopt(e, CURLOPT_SHARE, conn_cache_for(c, url));
	}
	if (x->job->kind == JOB_PAGE) {
		/* Redirects are the crawler's: the target is queued. */
		curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
		if (x->job->lease.revisit) {
			if (conditional_headers(c, x)) {
				curl_easy_cleanup(e);
				return SC_E_NOMEM;
			}
			if (x->headers)
				curl_easy_setopt(e, CURLOPT_HTTPHEADER,
						 x->headers);
		} else if (c->headers) {
			curl_easy_setopt(e, CURLOPT_HTTPHEADER, c->headers);
		}
		if (c->warc) {
			curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, header_cb);
			curl_easy_setopt(e, CURLOPT_HEADERDATA, x->job);
			curl_easy_setopt(e, CURLOPT_DEBUGFUNCTION, debug_cb);
			curl_easy_setopt(e, CURLOPT_DEBUGDATA, x->job);
			curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);
		}
	} else {
		/* robots.txt: RFC 9309 §2.3.1.2 says to follow at least
		 * five redirects, and the loop does, one request at a time
		 * (robots-gate.c): a redirect to another host's robots.txt
		 * is a request to that host, asked once and counted in its
		 * delay. */
		curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
		if (c->headers)
			curl_easy_setopt(e, CURLOPT_HTTPHEADER, c->headers);
	}
	if (curl_multi_add_handle(c->multi, e) != CURLM_OK) {
		curl_easy_cleanup(e);
		curl_slist_free_all(x->headers);
		x->headers = NULL;
		return SC_E_NOMEM;
	}
	x->prev = NULL;
	x->next = c->xfers;
	if (c->xfers)
		c->xfers->prev = x;
	c->xfers = x;
	x->robots = x->job->kind == JOB_ROBOTS;
	c->robots_running += x->robots;
	if (++c->running > c->peak_running)
		c->peak_running = c->running;
	return 0;
}

/* Take a finished or abandoned transfer out of the multi handle and the
 * list. */
void xfer_unlink(struct crawl *c, struct xfer *x)
{
	curl_multi_remove_handle(c->multi, x->easy);
	if (x->prev)
		x->prev->next = x->next;
	else
		c->xfers = x->next;
	if (x->next)
		x->next->prev = x->prev;
	c->running--;
	c->robots_running -= x->robots;
	x->robots = false;
}

int error_kind(CURLcode cc)
{
	switch (cc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY: return STORE_ERROR_DNS;
	case CURLE_COULDNT_CONNECT: return STORE_ERROR_CONNECT;
	case CURLE_OPERATION_TIMEDOUT: return STORE_ERROR_TIMEOUT;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE: return STORE_ERROR_TLS;
	case CURLE_BAD_CONTENT_ENCODING: return STORE_ERROR_DECOMPRESSION;
	default: return STORE_ERROR_OTHER;
	}
}

static void record_latency(struct crawl *c, uint64_t ms)
{
	double s = (double)ms / 1000.0;
	size_t i = 0;
	while (i < CRAWL_LATENCY_BUCKETS && s > crawl_latency_le[i])
		i++;
	c->latency_count[i]++;
	c->latency_sum += s;
}

uint64_t xfer_sent_ms(struct xfer *x)
{
	/* libcurl's clock starts when the transfer does, which may be
	 * after a wait for a connection; pretransfer is when the request
	 * was about to be sent. */
	curl_off_t pre = 0, total = 0;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	uint64_t now_us = (uint64_t)t.tv_sec * 1000000 +
			  (uint64_t)t.tv_nsec / 1000;
	if (curl_easy_getinfo(x->easy, CURLINFO_PRETRANSFER_TIME_T, &pre) !=
		    CURLE_OK ||
	    curl_easy_getinfo(x->easy, CURLINFO_TOTAL_TIME_T, &total) !=
		    CURLE_OK ||
	    pre <= 0 || total < pre || now_us < (uint64_t)(total - pre))
		return x->started_ms;
	/* Rounded up: the delay is a least gap. */
	uint64_t sent = (now_us - (uint64_t)(total - pre) + 999) / 1000;
	return sent > x->started_ms ? sent : x->started_ms;
}

/* May the page of lease l, which answered 429 or 503 with Retry-After,
 * be tried again?  Counts the try.  Per page: the host's count in a row
 * is reset by any other answer, so a host with two such pages and a
 * third that answers would try them for ever.  Out of memory, the host's
 * count alone bounds it. */
static bool retry_page(struct robots_slot *s, const struct frontier_lease *l)
{
	if (!s->retried &&
	    !(s->retried = calloc(BACKOFF_URLS, sizeof(*s->retried))))
		return true;
	uint64_t key = XXH3_64bits(l->url, l->url_len) | 1;
	struct backoff_url *b = NULL;
	for (size_t i = 0; i < BACKOFF_URLS && !b; i++)
		if (s->retried[i].key == key)
			b = &s->retried[i];
	if (!b) {
		b = &s->retried[s->retried_next];
		s->retried_next = (uint8_t)((s->retried_next + 1) %
					    BACKOFF_URLS);
		*b = (struct backoff_url){ .key = key };
	}
	if (b->n >= BACKOFF_MAX)
		return false;
	b->n++;
	return true;
}

static void page_done(struct crawl *c, struct xfer *x, CURLcode cc)
{
	struct job *j = x->job;
	struct robots_slot *s = robots_slot(c, j->lease.host_id);
	record_latency(c, mono_ms() - x->started_ms);
	frontier_sent(c->fr, j->lease.host_id, xfer_sent_ms(x));
	long status = 0;
	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);

	/* The host answered, or cannot be reached at all: then it is held
	 * and the page waits with it, unless the host is given up, when the
	 * page is recorded with the error (crawl.h). */
	bool answered = cc == CURLE_OK ||
			(cc == CURLE_WRITE_ERROR && x->truncated);
	if (answered) {
		host_ok(c, j->lease.host_id);
	} else if (host_unreachable(x->easy, cc) &&
		   !host_failed(c, j, x->started_ms, error_kind(cc),
				x->errbuf[0] ? x->errbuf
					     : curl_easy_strerror(cc))) {
		if (s && s->budget_used && !j->lease.revisit)
			s->budget_used--; /* not fetched after all */
		frontier_return(c->fr, &j->lease);
		job_free(j);
		return;
	}

	/* 429 and 503 with Retry-After: the host backs off and the page is
	 * tried again, a few times at most, and the host's pages a few
	 * times in a row at most. */
	if (cc == CURLE_OK && (status == 429 || status == 503) && s &&
	    s->backoffs < BACKOFF_MAX) {
		curl_off_t after = 0;
		curl_easy_getinfo(x->easy, CURLINFO_RETRY_AFTER, &after);
		if (after > 0 && retry_page(s, &j->lease)) {
			uint64_t ms = (uint64_t)after * 1000;
			if (ms > BACKOFF_CAP_MS)
				ms = BACKOFF_CAP_MS;
			s->backoffs++;
			if (s->budget_used && !j->lease.revisit)
				s->budget_used--; /* not fetched after all */
			s->backoff_until_ms = mono_ms() + ms;
			frontier_hold(c->fr, j->lease.host_id,
				      s->backoff_until_ms);
			frontier_return(c->fr, &j->lease);
			job_free(j);
			return;
		}
	}
	if (s && status != 429 && status != 503)
		s->backoffs = 0;

	j->fetched = true;
	j->fetched_at = wall_ms();
	j->truncated = x->truncated;
	char *ip = NULL;
	if (c->warc &&
	    curl_easy_getinfo(x->easy, CURLINFO_PRIMARY_IP, &ip) == CURLE_OK &&
	    ip && strlen(ip) < sizeof(j->ip))
		strcpy(j->ip, ip);
	if (answered) {
		j->status = status;
		char *ct = NULL;
		curl_easy_getinfo(x->easy, CURLINFO_CONTENT_TYPE, &ct);
		if (ct)
			snprintf(j->content_type, sizeof(j->content_type), "%s",
				 ct);
		char *loc = NULL;
		curl_easy_getinfo(x->easy, CURLINFO_REDIRECT_URL, &loc);
		/* A Location longer than this cannot normalize anyway. */
		if (loc && strlen(loc) < 2 * NORM_URL_MAX &&
		    !(j->location = strdup(loc))) {
			crawl_die(c, SC_E_NOMEM, "fetch");
		}
		keep_validators(x->easy, j);
		j->robots_header = robots_header(x->easy, c->o->robots_token);
		if (c->adapt)
			link_canonical(c, x->easy, j);
		if (x->truncated)
			j->error = STORE_ERROR_TOO_BIG;
		else if (status >= 400)
			j->error = STORE_ERROR_HTTP_ERROR;
	} else {
		j->status = status;
		j->error = error_kind(cc);
	}
	/* Adaptive normalization, on a host where a rule is being learned:
	 * the host's connection is given back only once the page is
	 * committed, so that the host's next URL is keyed with the evidence
	 * this page brings.  Under a per-host delay this costs nothing;
	 * without one it keeps a fast server from serving a page's twins
	 * before the rule can learn from the first of them.  Elsewhere it
	 * would only slow the host down (a third, on bench/crawl). */
	if (c->adapt &&
	    adapt_learning(c->adapt, j->lease.url + j->lease_u.host_off,
			   j->lease_u.host_len))
		j->release_at_commit = true;
	else
		frontier_release(c->fr, j->lease.host_id);
	x->job = NULL;
	/* A 304 has no body: the page is the one stored. */
	parse_submit(c, j, status != 304);
}

static void check_multi_info(struct crawl *c)
{
	CURLMsg *m;
	int left;
	while ((m = curl_multi_info_read(c->multi, &left))) {
		if (m->msg != CURLMSG_DONE)
			continue;
		struct xfer *x;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE,
				  (char **)&x);
		CURLcode cc = m->data.result;
		xfer_unlink(c, x);
		if (x->job->kind == JOB_PAGE)
			page_done(c, x, cc);
		else
			robots_done(c, x, cc);
		curl_easy_cleanup(x->easy);
		curl_slist_free_all(x->headers);
		free(x);
	}
	sched_fill(c);
	sched_check_done(c);
}

static void on_socket(evutil_socket_t fd, short kind, void *arg)
{
	struct crawl *c = arg;
	int action = ((kind & EV_READ) ? CURL_CSELECT_IN : 0) |
		     ((kind & EV_WRITE) ? CURL_CSELECT_OUT : 0);
	int running;
	curl_multi_socket_action(c->multi, fd, action, &running);
	check_multi_info(c);
}

int curl_socket_cb(CURL *e, curl_socket_t s, int what, void *cbp, void *sockp)
{
	(void)e;
	struct crawl *c = cbp;
	struct event *ev = sockp;
	if (what == CURL_POLL_REMOVE) {
		if (ev) {
			event_free(ev);
			curl_multi_assign(c->multi, s, NULL);
		}
		return 0;
	}
	short kind = (short)(((what & CURL_POLL_IN) ? EV_READ : 0) |
			     ((what & CURL_POLL_OUT) ? EV_WRITE : 0) |
			     EV_PERSIST);
	if (ev) {
		event_del(ev);
		event_assign(ev, c->base, s, kind, on_socket, c);
	} else {
		ev = event_new(c->base, s, kind, on_socket, c);
		if (!ev)
			return -1;
		curl_multi_assign(c->multi, s, ev);
	}
	event_add(ev, NULL);
	return 0;
}

void on_curl_timer(evutil_socket_t fd, short kind, void *arg)
{
	(void)fd;
	(void)kind;
	struct crawl *c = arg;
	int running;
	curl_multi_socket_action(c->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	check_multi_info(c);
}

int curl_timer_cb(CURLM *m, long timeout_ms, void *arg)
{
	(void)m;
	struct crawl *c = arg;
	if (timeout_ms < 0) {
		evtimer_del(c->curl_timer);
	} else {
		/* 0 means "now": a zero timer, never a call from here. */
		struct timeval tv = { timeout_ms / 1000,
				      (timeout_ms % 1000) * 1000 };
		evtimer_add(c->curl_timer, &tv);
	}
	return 0;
}
