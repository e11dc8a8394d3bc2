/* route.c — where a transfer connects under `connect_to`, told to libcurl
 * so that it keeps each host's idle connections apart.
 *
 * libcurl 7.x files its idle connections in bundles, one per destination
 * it connects to: the connect-to address when one applies, else the URL's
 * host.  A new transfer walks its destination's bundle and, for every
 * idle connection in it, first checks with poll() whether the peer closed
 * it, and only then compares host names.  With `connect_to` sending every
 * host to one address (bench/crawl/latency.sh, a test fixture, a gateway)
 * one bundle held every idle connection of the crawl, up to twice
 * `concurrency` of them: on 5,000 hosts a transfer made hundreds of
 * poll() calls before it found its own host's connection or none.
 *
 * So when the connect-to entry that matches a URL's host and port names
 * an IPv4 address, the transfer gets instead a name resolution of its
 * host to that address (CURLOPT_RESOLVE, "+HOST:PORT:ADDR", an entry of
 * libcurl's DNS cache that expires as a looked-up one would) and, if the
 * port changes, a connect-to entry that keeps the host and changes only
 * the port ("HOST:PORT::PORT2").  The connection goes to the same address
 * and port as before, the request and the TLS name are the same, and the
 * bundle is the host's own.  Any other entry (a host name or an IPv6
 * address to connect to, or one this file does not parse) leaves the
 * transfer with the whole list, as before.
 *
 * The entries stay in libcurl's DNS cache, one for each host a transfer
 * was routed to (some 200 bytes each, with the frontier's and the robots
 * gate's per-host state): a routed transfer does not prune that cache
 * (CURLOPT_DNS_CACHE_TIMEOUT -1), because libcurl 7.x walks every entry
 * of it to find expired ones at each name resolution, which on 5,000
 * hosts took a third of the crawl's CPU.  A transfer that is not routed
 * prunes it as usual, the routed entries with the rest (each routed
 * transfer sets its entry again).
 *
 * The matching follows curl's: the entries in order, HOST1 empty or equal
 * to the URL's host (case-insensitive), PORT1 empty or equal to its port;
 * the first entry that matches and names a host or a port wins. */
#include "crawl-int.h"

#include <ctype.h>
#include <strings.h>

/* One field of an entry: up to the next ':' (a "[...]" whole). */
static const char *field(const char *s, const char **end)
{
	const char *e = s;
	if (*e == '[') {
		e = strchr(e, ']');
		if (!e)
			return NULL;
		e++;
	} else {
		e += strcspn(e, ":");
	}
	*end = e;
	return s;
}

/* An empty port (-1) or a decimal one; NULL when it is neither. */
static const char *port_field(const char *s, long *port)
{
	*port = -1;
	if (*s == ':' || !*s)
		return s;
	long v = 0;
	const char *p = s;
	while (isdigit((unsigned char)*p) && v <= 65535)
		v = v * 10 + (*p++ - '0');
	if (p == s || v > 65535 || (*p && *p != ':'))
		return NULL;
	*port = v;
	return p;
}

static bool ipv4_literal(const char *s, size_t n)
{
	unsigned dots = 0, digits = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.') {
			if (!digits)
				return false;
			dots++;
			digits = 0;
		} else if (isdigit((unsigned char)s[i]) && digits < 3) {
			digits++;
		} else {
			return false;
		}
	}
	return dots == 3 && digits;
}

/* The host (not an IP-literal in brackets) and port of an http(s) URL. */
static bool url_host_port(const char *url, const char **host, size_t *len,
			  long *port)
{
	bool https = !strncasecmp(url, "https://", 8);
	if (!https && strncasecmp(url, "http://", 7))
		return false;
	const char *a = url + (https ? 8 : 7);
	size_t alen = strcspn(a, "/?#");
	const char *at = memchr(a, '@', alen);
	while (at) { /* the last '@' ends the userinfo */
		alen -= (size_t)(at + 1 - a);
		a = at + 1;
		at = memchr(a, '@', alen);
	}
	if (!alen || *a == '[')
		return false;
	const char *colon = memchr(a, ':', alen);
	*host = a;
	*len = colon ? (size_t)(colon - a) : alen;
	*port = https ? 443 : 80;
	if (colon && colon + 1 < a + alen) {
		long v = 0;
		for (const char *p = colon + 1; p < a + alen; p++) {
			if (!isdigit((unsigned char)*p) || v > 65535)
				return false;
			v = v * 10 + (*p - '0');
		}
		*port = v;
	}
	return *len > 0 && *len < FRONTIER_HOST_MAX;
}

void route_set(struct crawl *c, struct xfer *x, const char *url)
{
	CURL *e = x->easy;
	const char *host;
	size_t hlen;
	long port;
	if (!c->connect_to)
		return;
	if (c->o->proxy || !url_host_port(url, &host, &hlen, &port))
		goto whole;
	for (const struct curl_slist *l = c->connect_to; l; l = l->next) {
		const char *h1, *h1e, *h2, *h2e, *p;
		long p1, p2;
		if (!(h1 = field(l->data, &h1e)) || *h1e != ':' ||
		    !(p = port_field(h1e + 1, &p1)) || *p != ':' ||
		    !(h2 = field(p + 1, &h2e)) || *h2e != ':' ||
		    !(p = port_field(h2e + 1, &p2)) || *p)
			goto whole;
		size_t n1 = (size_t)(h1e - h1), n2 = (size_t)(h2e - h2);
		if ((n1 && (n1 != hlen || strncasecmp(h1, host, hlen))) ||
		    (p1 >= 0 && p1 != port))
			continue;
		if (!n2 && p2 < 0)
			continue; /* names nothing: curl reads on */
		if (!ipv4_literal(h2, n2))
			goto whole;
		long to = p2 >= 0 ? p2 : port;
		int k = snprintf(x->route_resolve, sizeof(x->route_resolve),
				 "+%.*s:%ld:%.*s", (int)hlen, host, to, (int)n2,
				 h2);
		if (k < 0 || (size_t)k >= sizeof(x->route_resolve))
			goto whole;
		x->route_list[0].data = x->route_resolve;
		x->route_list[0].next = NULL;
		curl_easy_setopt(e, CURLOPT_RESOLVE, &x->route_list[0]);
		/* No pruning of the DNS cache by this transfer (above). */
		curl_easy_setopt(e, CURLOPT_DNS_CACHE_TIMEOUT, -1L);
		if (to != port) {
			k = snprintf(x->route_to, sizeof(x->route_to),
				     "%.*s:%ld::%ld", (int)hlen, host, port,
				     to);
			if (k < 0 || (size_t)k >= sizeof(x->route_to))
				goto whole;
			x->route_list[1].data = x->route_to;
			x->route_list[1].next = NULL;
			curl_easy_setopt(e, CURLOPT_CONNECT_TO,
					 &x->route_list[1]);
		}
		return;
	}
	return; /* no entry applies: curl's own resolution */
whole:
	curl_easy_setopt(e, CURLOPT_RESOLVE, NULL);
	curl_easy_setopt(e, CURLOPT_CONNECT_TO, c->connect_to);
}
