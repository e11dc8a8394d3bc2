/* header.c — values of HTTP response headers the crawl reads for what a
 * page says of itself beside its HTML: the Link header's rel=canonical
 * (RFC 8288).  Bounded (PARSE_LINK_MAX bytes of a value), since the
 * value is the network's. */
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "parse-int.h"

static bool link_ows(char c)
{
	return c == ' ' || c == '\t';
}

/* Does a rel value (len bytes) list "canonical" among its
 * space-separated relation types? */
static bool rel_canonical(const char *v, size_t len)
{
	size_t i = 0;
	while (i < len) {
		while (i < len && (link_ows(v[i]) || v[i] == '\n'))
			i++;
		size_t at = i;
		while (i < len && !link_ows(v[i]) && v[i] != '\n')
			i++;
		if (i - at == 9 && strncasecmp(v + at, "canonical", 9) == 0)
			return true;
	}
	return false;
}

int parse_link_canonical(const char *value, char *out, size_t cap)
{
	if (!value || !cap)
		return 0;
	size_t n = strnlen(value, PARSE_LINK_MAX);
	const char *s = value;
	size_t i = 0;
	while (i < n) {
		while (i < n && (link_ows(s[i]) || s[i] == ','))
			i++;
		if (i >= n)
			break;
		const char *uri = NULL;
		size_t uri_len = 0;
		bool canon = false;
		if (s[i] == '<') {
			const char *gt = memchr(s + i + 1, '>', n - i - 1);
			if (!gt)
				return 0;
			uri = s + i + 1;
			uri_len = (size_t)(gt - uri);
			i = (size_t)(gt - s) + 1;
			/* Its parameters: ";" name ["=" token or quoted]. */
			for (;;) {
				while (i < n && link_ows(s[i]))
					i++;
				if (i >= n || s[i] != ';')
					break;
				i++;
				while (i < n && link_ows(s[i]))
					i++;
				size_t name = i;
				while (i < n && s[i] != '=' && s[i] != ';' &&
				       s[i] != ',' && !link_ows(s[i]))
					i++;
				size_t name_len = i - name;
				while (i < n && link_ows(s[i]))
					i++;
				char val[256];
				size_t vl = 0;
				if (i < n && s[i] == '=') {
					i++;
					while (i < n && link_ows(s[i]))
						i++;
					if (i < n && s[i] == '"') {
						for (i++; i < n && s[i] != '"';
						     i++) {
							if (s[i] == '\\' &&
							    i + 1 < n)
								i++;
							if (vl < sizeof(val))
								val[vl++] =
									s[i];
						}
						if (i < n)
							i++;
					} else {
						while (i < n && s[i] != ';' &&
						       s[i] != ',' &&
						       !link_ows(s[i])) {
							if (vl < sizeof(val))
								val[vl++] =
									s[i];
							i++;
						}
					}
				}
				if (name_len == 3 &&
				    strncasecmp(s + name, "rel", 3) == 0 &&
				    rel_canonical(val, vl))
					canon = true;
			}
		}
		if (canon && uri_len < cap) {
			memcpy(out, uri, uri_len);
			out[uri_len] = '\0';
			return 1;
		}
		/* On to the next link: past a comma outside quotes. */
		bool quoted = false;
		while (i < n && (quoted || s[i] != ',')) {
			if (s[i] == '\\' && quoted && i + 1 < n)
				i++;
			else if (s[i] == '"')
				quoted = !quoted;
			i++;
		}
	}
	return 0;
}
