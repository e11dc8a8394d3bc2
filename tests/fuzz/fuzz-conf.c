/* fuzz-conf.c — libFuzzer target for the config reader.
 *
 * The input is a config file's text, given to conf_load_buffer() as is
 * (NUL bytes and all).  When it loads, a few overrides are applied and the
 * result is checked against the invariants that callers rely on: every
 * path absolute, the bounds kept, the steps mask matching the profile and
 * the steps list. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct conf *c)
{
	assert(c->crawl.store && c->crawl.store[0] == '/');
	assert(c->crawl.user_agent && c->crawl.user_agent[0]);
	assert(c->crawl.concurrency <= 65535); /* 0: auto */
	assert(c->crawl.max_body_bytes >= 1);
	assert(c->crawl.n_connect_to <= CONF_CONNECT_TO_MAX);
	assert(c->n_categories <= CONF_CATEGORIES_MAX);
	assert(c->dedup.near_duplicate >= -1 && c->dedup.near_duplicate <= 3);
	if (c->control.kind == CONF_LISTEN_UNIX)
		assert(c->control.unix_path && c->control.unix_path[0] == '/');
	else
		assert(c->control.tcp_host && c->control.tcp_port > 0);
	uint32_t steps = norm_profile_steps(c->normalize.profile);
	if (c->normalize.steps_list)
		assert(norm_steps_parse(c->normalize.steps_list, &steps, NULL,
					NULL) == 0);
	assert(steps == c->normalize.steps);
	for (size_t i = 0; i < c->n_categories; i++) {
		const struct conf_category *cat = &c->categories[i];
		assert(cat->name[0] &&
		       strlen(cat->name) <= CONF_CATEGORY_NAME_MAX);
		assert(conf_category_find(c, cat->name) == cat);
		assert(!cat->seeds || cat->seeds[0] == '/');
		assert(cat->n_keywords <= CONF_KEYWORDS_MAX);
		for (size_t k = 0; k < cat->n_keywords; k++)
			assert(cat->keywords[k][0]);
		assert(cat->min_relevance >= 0 && cat->min_relevance <= 1);
		assert(cat->tunnel <= CONF_TUNNEL_MAX);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf *c = NULL;
	char err[256];
	int rc = conf_load_buffer((const char *)data, size, "fuzz.conf", &c,
				  err, sizeof(err));
	if (rc) {
		assert(c == NULL);
		assert(rc == SC_E_INVAL || rc == SC_E_NOMEM);
		/* Every message names the input. */
		assert(strncmp(err, "fuzz.conf", 9) == 0);
		return 0;
	}
	check(c);
	/* The overrides go through the same setters; their results must
	 * keep the invariants too. */
	if (conf_override(c, "profile", "strict", err, sizeof(err)) != 0)
		abort();
	rc = conf_override(c, "connect-to", "::127.0.0.1:1", err, sizeof(err));
	if (rc != 0 && c->crawl.n_connect_to < CONF_CONNECT_TO_MAX)
		abort();
	/* --seeds with a --category that names no section is refused when
	 * the config has categories (a typo would make an unfocused one). */
	bool known = conf_category_find(c, "fuzz") != NULL;
	bool none = c->n_categories == 0;
	rc = conf_override_seeds(c, "fuzz", "s.txt", err, sizeof(err));
	if (rc != 0 && (known || none) && c->n_categories < CONF_CATEGORIES_MAX)
		abort();
	if (rc == 0 && !known && !none)
		abort();
	check(c);
	conf_free(c);
	return 0;
}
