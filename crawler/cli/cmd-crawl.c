/* cmd-crawl.c — `sigcrawl crawl`: a foreground crawl until the frontier is
 * empty or a limit is reached; a rerun with the same store resumes. */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "crawl.h"
#include "normalize.h"

#define CMD "crawl"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sigcrawl crawl [-c FILE] [--store DIR] [--seeds FILE|-] [options]\n"
		"       sigcrawl crawl --recrawl [-c FILE] [--store DIR] [options]\n"
		"       sigcrawl crawl --check-config [-c FILE] [options]\n"
		"\n"
		"Crawls breadth-first from the seeds until the frontier is empty or\n"
		"a limit is reached, then prints a summary.  Run again with the same\n"
		"store to resume.  With --recrawl, revisits every page of the store\n"
		"once, due or not (duplicates only in the audit share), with\n"
		"conditional requests, then ends.\n"
		"\n"
		"Exit status: 0 success, 1 a runtime failure (also: nothing to\n"
		"crawl, or every seed rejected), 2 bad usage or a bad config (the\n"
		"message names FILE:LINE).\n"
		"\n");
	setup_usage_options(f);
	fprintf(f, "  --recrawl             revisit the store's pages once\n"
		   "  --quiet               no progress lines\n");
}

/* The hosts that could not be reached (crawl.h): given up, their URLs
 * recorded with the reason; held, when the crawl stopped before their
 * next try.  One line each, HOSTS_SHOWN at most. */
#define HOSTS_SHOWN 20
static void print_hosts(const struct crawl_summary *s)
{
	if (s->hosts_given_up)
		printf("hosts given up %u (unreachable: their URLs are "
		       "recorded, not fetched)\n",
		       s->hosts_given_up);
	if (s->hosts_held)
		printf("hosts held %u (unreachable, to be tried again)\n",
		       s->hosts_held);
	size_t shown = 0;
	for (size_t i = 0; i < s->n_hosts && shown < HOSTS_SHOWN; i++) {
		const struct crawl_host *h = &s->hosts[i];
		const char *why = store_error_name((enum store_error)h->reason);
		if (h->given_up)
			printf("  %s: %s after %u tries (%s)\n", h->name, why,
			       h->tries, h->detail);
		else
			printf("  %s: held, %s, %u tries, next in %.1f s (%s)\n",
			       h->name, why, h->tries, h->retry_in_s,
			       h->detail);
		shown++;
	}
	uint64_t all = (uint64_t)s->hosts_given_up + s->hosts_held;
	if (all > shown)
		printf("  ... and %llu more\n",
		       (unsigned long long)(all - shown));
}

/* The seeds' hosts that gave no page (crawl.h, struct crawl_lost): a
 * whole site missing, which the counts above do not tell apart from a
 * small one.  One line each, the reason its commonest error. */
static void print_lost(const struct crawl_summary *s)
{
	size_t shown = 0;
	for (; shown < s->n_lost && shown < CRAWL_HOSTS_LISTED && s->lost;
	     shown++) {
		const struct crawl_lost *h = &s->lost[shown];
		char why[CRAWL_HOST_NAME_MAX + 64];
		if (h->reason)
			snprintf(why, sizeof(why), "%s",
				 store_error_name((enum store_error)h->reason));
		else if (h->to[0])
			snprintf(why, sizeof(why), "redirected to %s", h->to);
		else
			snprintf(why, sizeof(why), "no 2xx answer");
		printf("host %s: no page fetched (%u request%s, %s)\n", h->name,
		       h->requests, h->requests == 1 ? "" : "s", why);
	}
	if (s->n_lost > shown)
		printf("hosts with no page fetched: %llu more\n",
		       (unsigned long long)(s->n_lost - shown));
}

static bool has_seeds(const struct crawl_opts *o)
{
	for (size_t i = 0; i < o->n_categories; i++)
		if (o->categories[i].seeds_file)
			return true;
	return false;
}

/* Whether dir holds a store a crawl could resume.  One that cannot be
 * opened counts as there: the run says what is wrong with it. */
static bool store_exists(const char *dir)
{
	MDB_env *env = NULL;
	int rc = store_env_open(dir, STORE_RDONLY, &env);
	store_env_close(env);
	return rc != SC_E_NOTFOUND;
}

/* Each category with keywords that scored pages: its harvest rate, or why
 * it was not measured (min_relevance 0); and one that scored pages and
 * kept none: the crawl stopped at pages whose links it does not follow
 * (at tunnel 0, the seeds), which the counts above do not say. */
static void print_offtopic(const struct crawl_opts *o,
			   const struct crawl_summary *s)
{
	for (uint32_t i = 0; i < s->n_offtopic && i < CRAWL_OFFTOPIC_LISTED;
	     i++) {
		const struct crawl_category *k =
			&o->categories[s->offtopic[i].category];
		printf("focus: category %s: none of the %llu pages it scored "
		       "reached min_relevance %.2f%s: check its keywords, "
		       "lower min_relevance%s\n",
		       k->name, (unsigned long long)s->offtopic[i].scored,
		       k->min_relevance,
		       k->tunnel ? ""
				 : ", and at tunnel 0 their links were not "
				   "followed",
		       k->tunnel ? "" : " or raise tunnel");
	}
	for (uint32_t i = 0; i < s->n_harvest && i < CRAWL_OFFTOPIC_LISTED;
	     i++) {
		const struct crawl_harvest *h = &s->harvest[i];
		const struct crawl_category *k = &o->categories[h->category];
		if (!h->on_topic)
			continue; /* said above */
		if (k->min_relevance <= 0)
			printf("focus: category %s: harvest not measured: at "
			       "min_relevance 0 every page scored counts as "
			       "on topic (%llu pages scored; set "
			       "min_relevance, e.g. 0.3)\n",
			       k->name, (unsigned long long)h->scored);
		else
			printf("focus: category %s: harvest %.3f (%llu of %llu "
			       "pages scored on topic, min_relevance %.2f)\n",
			       k->name, (double)h->on_topic / (double)h->scored,
			       (unsigned long long)h->on_topic,
			       (unsigned long long)h->scored, k->min_relevance);
		if (h->has_floor && h->floor_scored)
			printf("focus: category %s: harvest floor %.2f, running "
			       "harvest %.3f; %llu pages fetched by exploring "
			       "pruned links, %llu of them on topic\n",
			       k->name, k->min_harvest,
			       (double)h->floor_on / (double)h->floor_scored,
			       (unsigned long long)h->explored,
			       (unsigned long long)h->explored_on);
	}
	if (s->n_offtopic > CRAWL_OFFTOPIC_LISTED)
		printf("focus: %u more categories scored no page on topic\n",
		       (unsigned)(s->n_offtopic - CRAWL_OFFTOPIC_LISTED));
}

int cmd_crawl(int argc, char **argv)
{
	struct setup st;
	int code;
	if (setup_args(&st, CMD, argc, argv, usage, &code))
		return code;
	char err[512];
	int rc = setup_load(&st, err, sizeof(err));
	if (rc) {
		sc_errorf(CMD, "%s", err);
		return rc == SC_E_NOMEM ? EXIT_RUNTIME : EXIT_USAGE;
	}
	if (st.cf->cluster.enabled) {
		/* A foreground crawl of one shard would stop where its shard
		 * ends and leave the links of the others nowhere. */
		sc_errorf(CMD,
			  "%s: [cluster] is for sigcrawl serve (each daemon "
			  "one shard); crawl runs alone: remove the section "
			  "or use serve",
			  st.config ? st.config : "(config)");
		setup_free(&st);
		return EXIT_USAGE;
	}
	if (st.check_config) {
		printf("%s: ok\n", st.config ? st.config : "(defaults)");
		setup_free(&st);
		return EXIT_OK;
	}
	if (!st.recrawl && !has_seeds(&st.o) && !store_exists(st.o.store_dir)) {
		sc_errorf(
			CMD,
			"nothing to crawl: no seeds (--seeds FILE, or seeds = "
			"in a [category] section) and no store at %s to "
			"resume",
			st.o.store_dir);
		setup_free(&st);
		return EXIT_RUNTIME;
	}
	const struct crawl_opts o = st.o;

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		sc_errorf(CMD, "curl_global_init failed");
		setup_free(&st);
		return EXIT_RUNTIME;
	}
	struct crawl_summary s;
	rc = crawl_run(&o, &s);
	curl_global_cleanup();
	if (rc) {
		free(s.hosts);
		free(s.lost);
		setup_free(&st);
		return rc == SC_E_PROFILE ? EXIT_USAGE : EXIT_RUNTIME;
	}

	printf("store %s\n", o.store_dir);
	printf("pages %llu  bytes %llu  seconds %.1f  pages/s %.1f\n",
	       (unsigned long long)s.pages, (unsigned long long)s.bytes,
	       s.seconds, s.seconds > 0 ? (double)s.pages / s.seconds : 0.0);
	if (o.concurrency)
		printf("transfers at once: at most %u  (concurrency %u%s)\n",
		       s.in_flight_peak, o.concurrency,
		       s.transfers_max < o.concurrency
			       ? ", fewer for the descriptors"
			       : "");
	else
		printf("transfers at once: at most %u  (concurrency auto: as "
		       "the ready hosts asked, up to %u)\n",
		       s.in_flight_peak, s.transfers_max);
	printf("status 2xx %llu  3xx %llu  4xx %llu  5xx %llu  none %llu\n",
	       (unsigned long long)s.by_class[2],
	       (unsigned long long)s.by_class[3],
	       (unsigned long long)s.by_class[4],
	       (unsigned long long)s.by_class[5],
	       (unsigned long long)s.by_class[0]);
	printf("errors %llu  robots-disallowed %llu  bad links %llu  queued %llu%s\n",
	       (unsigned long long)s.errors,
	       (unsigned long long)s.robots_disallowed,
	       (unsigned long long)s.links_bad, (unsigned long long)s.queued,
	       s.interrupted ? "  (interrupted: rerun to resume)" : "");
	/* Errors by kind, under their export names, when there are any. */
	bool any = false;
	for (int e = 1; e < STORE_ERROR_COUNT; e++) {
		if (!s.by_error[e] ||
		    store_error_is_policy((enum store_error)e))
			continue;
		printf("%s%s %llu", any ? "  " : "errors by kind: ",
		       store_error_name((enum store_error)e),
		       (unsigned long long)s.by_error[e]);
		any = true;
	}
	if (any)
		putchar('\n');
	if (s.by_error[STORE_ERROR_HOST_BUDGET])
		printf("host budget: %llu URLs recorded, not fetched "
		       "(max_pages_per_host)\n",
		       (unsigned long long)s.by_error[STORE_ERROR_HOST_BUDGET]);
	if (s.noindex_nofollow ||
	    s.by_error[STORE_ERROR_SKIPPED_NOINDEX_NOFOLLOW])
		printf("pages noindex,nofollow %llu fetched, %llu skipped (their "
		       "URL shape's pages all said so: [adaptive] "
		       "skip_noindex_nofollow)\n",
		       (unsigned long long)s.noindex_nofollow,
		       (unsigned long long)s
			       .by_error[STORE_ERROR_SKIPPED_NOINDEX_NOFOLLOW]);
	print_hosts(&s);
	free(s.hosts);
	print_lost(&s);
	free(s.lost);
	printf("duplicates %llu  (signature %llu, near %llu)\n",
	       (unsigned long long)(s.dup_exact + s.dup_near),
	       (unsigned long long)s.dup_exact, (unsigned long long)s.dup_near);
	if (s.pruned_scope || s.pruned_relevance || s.pruned_pattern ||
	    s.pruned_predicted || s.also)
		printf("focus: links pruned by scope %llu, by relevance %llu, "
		       "by pattern %llu, by prediction %llu; reached from a "
		       "second category %llu\n",
		       (unsigned long long)s.pruned_scope,
		       (unsigned long long)s.pruned_relevance,
		       (unsigned long long)s.pruned_pattern,
		       (unsigned long long)s.pruned_predicted,
		       (unsigned long long)s.also);
	print_offtopic(&o, &s);
	if (s.adapt_held || s.adapt_keyed)
		printf("learned rules: %llu URLs held back, %llu queued under a "
		       "rule's key (sigcrawl rules lists the rules)\n",
		       (unsigned long long)s.adapt_held,
		       (unsigned long long)s.adapt_keyed);
	if (s.sitemap_urls || s.sitemap_due)
		printf("sitemaps: %llu URLs listed, %llu known pages due again "
		       "by their lastmod\n",
		       (unsigned long long)s.sitemap_urls,
		       (unsigned long long)s.sitemap_due);
	const struct crawl_recrawl_stats *re = &s.re;
	if (o.recrawl.pass || re->revisited || re->failed || re->saved)
		printf("re-crawl: %llu revisited (%llu unchanged, %llu of them "
		       "by 304; %llu changed; %llu gone), %llu failed; %llu "
		       "duplicates not fetched, %llu audited, %llu diverged\n",
		       (unsigned long long)re->revisited,
		       (unsigned long long)re->unchanged,
		       (unsigned long long)re->not_modified,
		       (unsigned long long)re->changed,
		       (unsigned long long)re->gone,
		       (unsigned long long)re->failed,
		       (unsigned long long)re->saved,
		       (unsigned long long)re->audited,
		       (unsigned long long)re->diverged);
	if (s.warc_exchanges || s.warc_skipped)
		printf("warc: %llu exchanges written, %llu left out\n",
		       (unsigned long long)s.warc_exchanges,
		       (unsigned long long)s.warc_skipped);
	setup_free(&st);
	return EXIT_OK;
}
