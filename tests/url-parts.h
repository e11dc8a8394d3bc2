/* url-parts.h — the consistency check of struct norm_url shared by the
 * unit tests and the fuzz target: the components rebuild the URL, and the
 * port and flags agree with the text. */
#ifndef URL_PARTS_H
#define URL_PARTS_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "normalize.h"

/* Check that the components of u describe out: rebuilt from its spans and
 * delimiters, the URL is out again, and the port and flags agree. */
static inline bool parts_consistent(const char *out, const struct norm_url *u)
{
	char re[NORM_URL_MAX + 16];
	size_t n = 0;
	const char *scheme = out;

#define SPAN_OK(o, l) ((size_t)(o) + (l) <= u->len)
	if (u->len != strlen(out) || u->len > NORM_URL_MAX)
		return false;
	if (!SPAN_OK(0, u->scheme_len) || !SPAN_OK(u->user_off, u->user_len) ||
	    !SPAN_OK(u->host_off, u->host_len) ||
	    !SPAN_OK(u->port_off, u->port_len) ||
	    !SPAN_OK(u->path_off, u->path_len) ||
	    !SPAN_OK(u->query_off, u->query_len) ||
	    !SPAN_OK(u->frag_off, u->frag_len))
		return false;
#undef SPAN_OK
	if (!(u->scheme_len == 4 && strncasecmp(scheme, "http", 4) == 0) &&
	    !(u->scheme_len == 5 && strncasecmp(scheme, "https", 5) == 0))
		return false;
	if (u->scheme_len == 5 && !u->https)
		return false;
	if (u->host_len == 0 || u->host_type > NORM_HOST_IPV6)
		return false;

#define ADD(s, l)                                                              \
	do {                                                                   \
		memcpy(re + n, (s), (l));                                      \
		n += (l);                                                      \
	} while (0)
	ADD(out, u->scheme_len);
	ADD("://", 3);
	if (u->has_user) {
		ADD(out + u->user_off, u->user_len);
		ADD("@", 1);
	} else if (u->user_len) {
		return false;
	}
	ADD(out + u->host_off, u->host_len);
	/* An empty port (no remove_default_port) has a ':' but no span. */
	if (u->has_port) {
		ADD(":", 1);
		ADD(out + u->port_off, u->port_len);
	} else if (u->port_len) {
		return false;
	}
	ADD(out + u->path_off, u->path_len);
	if (u->has_query) {
		ADD("?", 1);
		ADD(out + u->query_off, u->query_len);
	} else if (u->query_len) {
		return false;
	}
	if (u->has_fragment) {
		ADD("#", 1);
		ADD(out + u->frag_off, u->frag_len);
	} else if (u->frag_len) {
		return false;
	}
#undef ADD
	re[n] = '\0';
	if (strcmp(re, out) != 0)
		return false;

	if (u->host_type == NORM_HOST_IPV6 &&
	    (out[u->host_off] != '[' ||
	     out[u->host_off + u->host_len - 1] != ']'))
		return false;
	if (u->port_len) {
		char p[8];

		if (u->port_len > 5 ||
		    (out[u->port_off] == '0' && u->port_len > 1))
			return false;
		memcpy(p, out + u->port_off, u->port_len);
		p[u->port_len] = '\0';
		if (strtol(p, NULL, 10) != u->port)
			return false;
	} else if (u->scheme_len == 5 ? u->port != 443
				      : u->port != 80 && u->port != 443) {
		/* No port written: the scheme's own, or, when fold_https
		 * wrote "http" for https, 443 or 80 (https://h:80/). */
		return false;
	} else if (u->scheme_len == 4 && !u->https && u->port != 80) {
		return false;
	}
	return true;
}

#endif
