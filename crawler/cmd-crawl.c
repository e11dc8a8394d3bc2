/* cmd-crawl.c — `sigcrawl crawl`: a foreground crawl until the frontier is
 * empty or a limit is reached; a rerun with the same store resumes. */
#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "crawl.h"
#include "conf.h"
#include "normalize.h"

#define CMD "crawl"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sigcrawl crawl [-c FILE] [--store DIR] [--seeds FILE] [options]\n"
		"\n"
		"Crawls breadth-first from the seeds until the frontier is empty or\n"
		"a limit is reached, then prints a summary.  Run again with the same\n"
		"store to resume.\n"
		"\n"
		"  -c, --config FILE     the config file (SPEC section 3); the options\n"
		"                        below override it\n"
		"  --store DIR           the LMDB store (created if missing)\n"
		"  --seeds FILE          seed URLs, one per line, '#' comments\n"
		"  --category NAME       the category of --seeds (default: the\n"
		"                        config's only one, or \"default\")\n"
		"  --max-pages N         stop after N fetches (default: no limit)\n"
		"  --max-depth N         hops from a seed (default 9)\n"
		"  --profile P           strict, extended (default), aggressive\n"
		"  --steps LIST          adjust the profile: \"+step,-step\"\n"
		"  --concurrency N       transfers in flight (default 256)\n"
		"  --per-host-connections N  (default 2)\n"
		"  --per-host-delay-ms N     least gap between fetch starts from\n"
		"                        one host (default 1000)\n"
		"  --timeout-s N         per transfer (default 30)\n"
		"  --max-body-bytes N    larger bodies are cut (default 10485760)\n"
		"  --connect-to H1:P1:H2:P2  curl's syntax; repeatable\n"
		"  --user-agent S        (default sigcrawl/%s)\n"
		"  --signature S         md5_text (default), md5_text_size or off\n"
		"  --near-duplicate N    off (default) or simhash:K, K 0..3\n"
		"  --follow-duplicate-links yes|no  queue a duplicate's links\n"
		"                        (default yes)\n"
		"  --warc yes|no         write WARC files into STORE/warc\n"
		"  --search-index yes|no keep STORE/search.sqlite, the index of\n"
		"                        `sigcrawl search` (default yes)\n"
		"  --no-robots           ignore robots.txt (for testing only)\n"
		"  --quiet               no progress lines\n",
		SC_VERSION);
}

int cmd_crawl(int argc, char **argv)
{
	enum {
		O_STORE = 256,
		O_SEEDS,
		O_CATEGORY,
		O_MAX_PAGES,
		O_MAX_DEPTH,
		O_PROFILE,
		O_STEPS,
		O_CONCURRENCY,
		O_PHC,
		O_PHD,
		O_TIMEOUT,
		O_MAX_BODY,
		O_CONNECT_TO,
		O_UA,
		O_SIGNATURE,
		O_NEAR,
		O_FOLLOW,
		O_WARC,
		O_SEARCH_INDEX,
		O_NO_ROBOTS,
		O_QUIET,
	};
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "store", required_argument, NULL, O_STORE },
		{ "seeds", required_argument, NULL, O_SEEDS },
		{ "category", required_argument, NULL, O_CATEGORY },
		{ "max-pages", required_argument, NULL, O_MAX_PAGES },
		{ "max-depth", required_argument, NULL, O_MAX_DEPTH },
		{ "profile", required_argument, NULL, O_PROFILE },
		{ "steps", required_argument, NULL, O_STEPS },
		{ "concurrency", required_argument, NULL, O_CONCURRENCY },
		{ "per-host-connections", required_argument, NULL, O_PHC },
		{ "per-host-delay-ms", required_argument, NULL, O_PHD },
		{ "timeout-s", required_argument, NULL, O_TIMEOUT },
		{ "max-body-bytes", required_argument, NULL, O_MAX_BODY },
		{ "connect-to", required_argument, NULL, O_CONNECT_TO },
		{ "user-agent", required_argument, NULL, O_UA },
		{ "signature", required_argument, NULL, O_SIGNATURE },
		{ "near-duplicate", required_argument, NULL, O_NEAR },
		{ "follow-duplicate-links", required_argument, NULL, O_FOLLOW },
		{ "warc", required_argument, NULL, O_WARC },
		{ "search-index", required_argument, NULL, O_SEARCH_INDEX },
		{ "no-robots", no_argument, NULL, O_NO_ROBOTS },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *seeds = NULL, *category = NULL;
	bool quiet = false;
	int c;

	/* First pass: -c, --help and the options that are not overrides;
	 * the overrides are applied in a second pass, on top of the file. */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': config = optarg; break;
		case O_SEEDS: seeds = optarg; break;
		case O_CATEGORY: category = optarg; break;
		case O_QUIET: quiet = true; break;
		case 'h': usage(stdout); return EXIT_OK;
		case '?':
		case ':':
			sc_errorf(CMD, "bad option '%s' (see --help)",
				  argv[optind - 1]);
			return EXIT_USAGE;
		default: break;
		}
	}
	if (optind < argc) {
		sc_errorf(CMD, "unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}

	struct conf *cf = NULL;
	char err[512];
	int rc = config ? conf_load(config, &cf, err, sizeof(err))
			: conf_default(&cf);
	if (rc) {
		if (rc == SC_E_NOMEM)
			sc_errorf(CMD, "out of memory");
		else
			fprintf(stderr, "sigcrawl crawl: %s\n",
				config ? err : sc_strerror(rc));
		return rc == SC_E_NOMEM ? EXIT_RUNTIME : EXIT_USAGE;
	}
	optind = 0;
	while ((c = getopt_long(argc, argv, "c:h", longopts, NULL)) != -1) {
		if (c < O_STORE || c == O_SEEDS || c == O_CATEGORY ||
		    c == O_QUIET)
			continue;
		const char *name = NULL;
		for (const struct option *lo = longopts; lo->name; lo++)
			if (lo->val == c)
				name = lo->name;
		if (conf_override(cf, name, optarg, err, sizeof(err))) {
			fprintf(stderr, "sigcrawl crawl: %s\n", err);
			conf_free(cf);
			return EXIT_USAGE;
		}
	}
	if ((seeds || category) &&
	    conf_override_seeds(cf, category, seeds, err, sizeof(err))) {
		fprintf(stderr, "sigcrawl crawl: %s\n", err);
		conf_free(cf);
		return EXIT_USAGE;
	}
	if (!seeds && category) {
		sc_errorf(CMD, "--category needs --seeds");
		conf_free(cf);
		return EXIT_USAGE;
	}

	static char ua[64];
	snprintf(ua, sizeof(ua), "sigcrawl/%s", SC_VERSION);
	struct crawl_category *cats = calloc(
		cf->n_categories ? cf->n_categories : 1, sizeof(*cats));
	if (!cats) {
		conf_free(cf);
		return EXIT_RUNTIME;
	}
	for (size_t i = 0; i < cf->n_categories; i++) {
		const struct conf_category *cc = &cf->categories[i];
		cats[i] = (struct crawl_category){
			.name = cc->name,
			.seeds_file = cc->seeds,
			.keywords = (const char *const *)cc->keywords,
			.n_keywords = cc->n_keywords,
			.scope = (int)cc->scope,
			.min_relevance = cc->min_relevance,
			.tunnel = cc->tunnel,
		};
	}
	struct crawl_opts o = {
		.store_dir = cf->crawl.store,
		.categories = cats,
		.n_categories = cf->n_categories,
		.max_pages = cf->crawl.max_pages,
		.max_depth = cf->crawl.max_depth,
		.norm = { .steps = cf->normalize.steps },
		.concurrency = cf->crawl.concurrency,
		.per_host_connections = cf->crawl.per_host_connections,
		.per_host_delay_ms = cf->crawl.per_host_delay_ms,
		.timeout_s = cf->crawl.timeout_s,
		.max_body_bytes = (size_t)cf->crawl.max_body_bytes,
		.user_agent = cf->crawl.user_agent ? cf->crawl.user_agent : ua,
		.robots_token = "sigcrawl",
		.obey_robots = cf->crawl.obey_robots,
		.signature = cf->dedup.signature,
		.near_k = cf->dedup.near_duplicate,
		.follow_duplicate_links = cf->dedup.follow_duplicate_links,
		.warc = cf->store.warc,
		.search_index = cf->store.search_index,
		.connect_to = (const char *const *)cf->crawl.connect_to,
		.n_connect_to = cf->crawl.n_connect_to,
		.quiet = quiet,
	};

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		sc_errorf(CMD, "curl_global_init failed");
		free(cats);
		conf_free(cf);
		return EXIT_RUNTIME;
	}
	struct crawl_summary s;
	rc = crawl_run(&o, &s);
	curl_global_cleanup();
	free(cats);
	conf_free(cf);
	if (rc)
		return EXIT_RUNTIME;

	printf("pages %llu  bytes %llu  seconds %.1f  pages/s %.1f\n",
	       (unsigned long long)s.pages, (unsigned long long)s.bytes,
	       s.seconds, s.seconds > 0 ? (double)s.pages / s.seconds : 0.0);
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
		if (!s.by_error[e] || e == STORE_ERROR_ROBOTS_DISALLOWED)
			continue;
		printf("%s%s %llu", any ? "  " : "errors by kind: ",
		       store_error_name((enum store_error)e),
		       (unsigned long long)s.by_error[e]);
		any = true;
	}
	if (any)
		putchar('\n');
	printf("duplicates %llu  (signature %llu, near %llu)\n",
	       (unsigned long long)(s.dup_exact + s.dup_near),
	       (unsigned long long)s.dup_exact, (unsigned long long)s.dup_near);
	if (s.pruned_scope || s.pruned_relevance || s.also)
		printf("focus: links pruned by scope %llu, by relevance %llu; "
		       "reached from a second category %llu\n",
		       (unsigned long long)s.pruned_scope,
		       (unsigned long long)s.pruned_relevance,
		       (unsigned long long)s.also);
	if (s.warc_exchanges || s.warc_skipped)
		printf("warc: %llu exchanges written, %llu left out\n",
		       (unsigned long long)s.warc_exchanges,
		       (unsigned long long)s.warc_skipped);
	return EXIT_OK;
}
