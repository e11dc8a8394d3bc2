/* conf-dump — load a config, apply overrides, print the result.
 *
 *     conf-dump FILE|--default [OPTION=VALUE | no-robots]...
 *
 * FILE is read with conf_load() (--default: conf_default()).  Each later
 * argument is a command-line override as conf_override() takes it, its
 * value after the first '='; "category=NAME" names the category of the
 * next "seeds=PATH" (conf_override_seeds()).  The resolved config goes to
 * stdout as "section.key = value" lines in a fixed order, so that tests
 * can compare it.  Errors go to stderr; the exit status is then 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

static void dump(const struct conf *c)
{
	printf("path = %s\n", c->path ? c->path : "(none)");
	printf("crawl.store = %s\n", c->crawl.store);
	printf("crawl.max_depth = %u\n", c->crawl.max_depth);
	printf("crawl.max_pages = %llu\n",
	       (unsigned long long)c->crawl.max_pages);
	printf("crawl.concurrency = %u\n", c->crawl.concurrency);
	printf("crawl.per_host_connections = %u\n",
	       c->crawl.per_host_connections);
	printf("crawl.per_host_delay_ms = %u\n", c->crawl.per_host_delay_ms);
	printf("crawl.timeout_s = %u\n", c->crawl.timeout_s);
	printf("crawl.max_body_bytes = %llu\n",
	       (unsigned long long)c->crawl.max_body_bytes);
	printf("crawl.user_agent = %s\n", c->crawl.user_agent);
	printf("crawl.obey_robots = %s\n", c->crawl.obey_robots ? "yes" : "no");
	printf("crawl.max_pages_per_host = %llu\n",
	       (unsigned long long)c->crawl.max_pages_per_host);
	printf("crawl.host_retries = %u\n", c->crawl.host_retries);
	printf("crawl.host_backoff_ms = %u\n", c->crawl.host_backoff_ms);
	for (size_t i = 0; i < c->crawl.n_connect_to; i++)
		printf("crawl.connect_to = %s\n", c->crawl.connect_to[i]);
	printf("normalize.profile = %s\n",
	       conf_profile_name(c->normalize.profile));
	printf("normalize.steps_list = %s\n",
	       c->normalize.steps_list ? c->normalize.steps_list : "(none)");
	printf("normalize.steps =");
	for (int b = 0; b < NORM_STEP_COUNT; b++)
		if (c->normalize.steps & (1u << b))
			printf(" %s", norm_step_name(1u << b));
	printf("\n");
	printf("dedup.signature = %s\n",
	       conf_signature_name(c->dedup.signature));
	if (c->dedup.near_duplicate < 0)
		printf("dedup.near_duplicate = off\n");
	else
		printf("dedup.near_duplicate = simhash:%d\n",
		       c->dedup.near_duplicate);
	printf("store.warc = %s\n", c->store.warc ? "yes" : "no");
	printf("store.search_index = %s\n",
	       c->store.search_index ? "yes" : "no");
	printf("control.listen = %s\n", c->control.listen);
	if (c->control.kind == CONF_LISTEN_UNIX)
		printf("control.unix = %s\n", c->control.unix_path);
	else
		printf("control.tcp = %s port %u\n", c->control.tcp_host,
		       c->control.tcp_port);
	for (size_t i = 0; i < c->n_categories; i++) {
		const struct conf_category *cat = &c->categories[i];
		printf("category %s.seeds = %s\n", cat->name,
		       cat->seeds ? cat->seeds : "(none)");
		printf("category %s.keywords =", cat->name);
		for (size_t k = 0; k < cat->n_keywords; k++)
			printf("%s%s", k ? "|" : " ", cat->keywords[k]);
		printf("\n");
		printf("category %s.scope = %s\n", cat->name,
		       conf_scope_name(cat->scope));
		printf("category %s.min_relevance = %g\n", cat->name,
		       cat->min_relevance);
		printf("category %s.tunnel = %u\n", cat->name, cat->tunnel);
		printf("category %s.predict = %s\n", cat->name,
		       cat->predict ? "on" : "off");
		printf("category %s.predict_min = %g\n", cat->name,
		       cat->predict_min);
		printf("category %s.samples = %s\n", cat->name,
		       cat->samples ? "on" : "off");
		printf("category %s.min_harvest = %g\n", cat->name,
		       cat->min_harvest);
	}
}

int main(int argc, char **argv)
{
	struct conf *c = NULL;
	char err[512];
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: conf-dump FILE|--default "
				"[OPTION=VALUE]...\n");
		return 2;
	}
	if (strcmp(argv[1], "--default") == 0)
		rc = conf_default(&c);
	else
		rc = conf_load(argv[1], &c, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "%s\n", err[0] ? err : sc_strerror(rc));
		return 2;
	}
	const char *category = NULL;
	for (int i = 2; i < argc; i++) {
		char opt[64];
		const char *eq = strchr(argv[i], '=');
		size_t n = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		if (n >= sizeof(opt)) {
			fprintf(stderr, "conf-dump: option too long\n");
			conf_free(c);
			return 2;
		}
		memcpy(opt, argv[i], n);
		opt[n] = '\0';
		const char *value = eq ? eq + 1 : NULL;
		if (strcmp(opt, "category") == 0) {
			category = value;
			continue;
		}
		if (strcmp(opt, "seeds") == 0)
			rc = conf_override_seeds(c, category,
						 value ? value : "", err,
						 sizeof(err));
		else
			rc = conf_override(c, opt, value, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "%s\n", err[0] ? err : sc_strerror(rc));
			conf_free(c);
			return 2;
		}
	}
	dump(c);
	conf_free(c);
	return 0;
}
