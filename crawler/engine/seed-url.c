/* seed-url.c — one seed URL as the crawl takes it (crawl_seed_url(),
 * crawl.h), for the seed files (seeds.c) and the control API (control.c);
 * on its own so that the control API's fuzz target links it without the
 * engine. */
#include "crawl.h"

#include <string.h>

int crawl_seed_url(const struct norm_opts *norm, const char *p, size_t len,
		   char *url, struct norm_url *u, char *found,
		   struct norm_url *fu)
{
	if (len > NORM_INPUT_MAX)
		return SC_E_LIMIT;
	if (memchr(p, '\0', len))
		return SC_E_INVAL;
	int r = norm_url(norm, NULL, p, len, url, NORM_URL_MAX + 1, u);
	if (r == 0)
		r = norm_url(&norm_as_found, NULL, p, len, found,
			     NORM_URL_MAX + 1, fu);
	return r;
}
