/* setup.c — see crawl.h ("setup"). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crawl.h"
#include "log.h"

enum {
	O_STORE = 256,
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
	O_MAX_PAGES_PER_HOST,
	O_NO_ROBOTS,
	O_LAST_OVERRIDE = O_NO_ROBOTS,
	/* Not overrides: */
	O_SEEDS,
	O_CATEGORY,
	O_QUIET,   /* crawl */
	O_VERBOSE, /* serve */
	O_CHECK,
	O_RECRAWL, /* crawl */
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
	{ "max-pages-per-host", required_argument, NULL, O_MAX_PAGES_PER_HOST },
	{ "no-robots", no_argument, NULL, O_NO_ROBOTS },
	{ "quiet", no_argument, NULL, O_QUIET },
	{ "verbose", no_argument, NULL, O_VERBOSE },
	{ "check-config", no_argument, NULL, O_CHECK },
	{ "recrawl", no_argument, NULL, O_RECRAWL },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void setup_usage_options(FILE *f)
{
	fprintf(f,
		"  -c, --config FILE     the config file; the options below\n"
		"                        override it\n"
		"  --check-config        check the config, the options and the\n"
		"                        seed lists they name, then exit\n"
		"  --store DIR           the LMDB store (created if missing)\n"
		"  --seeds FILE          seed URLs, one per line, '#' comments;\n"
		"                        - reads them from standard input (crawl)\n"
		"  --category NAME       the category of --seeds: a [category NAME]\n"
		"                        section of the config (default: its only\n"
		"                        one, or \"default\" when it has none)\n"
		"  --max-pages N         stop after N fetches (default: no limit)\n"
		"  --max-pages-per-host N  fetches per host, over every run of\n"
		"                        the store (default: no limit)\n"
		"  --max-depth N         hops from a seed (default 9)\n"
		"  --profile P           strict, extended (default), aggressive or\n"
		"                        adaptive (rules learned per host)\n"
		"  --steps LIST          adjust the profile: \"+step,-step\"\n"
		"  --concurrency N|auto  transfers in flight (default auto: as\n"
		"                        many as the ready hosts ask, within\n"
		"                        the descriptors)\n"
		"  --per-host-connections N  (default 2)\n"
		"  --per-host-delay-ms N     least gap between fetch starts from\n"
		"                        one host (default 1000)\n"
		"  --timeout-s N         per transfer (default 30)\n"
		"  --max-body-bytes N    larger bodies are cut (default 10485760)\n"
		"  --connect-to H1:P1:H2:P2  curl's syntax; repeatable\n"
		"  --user-agent S        (default sigcrawl/%s)\n"
		"  --signature S         md5_text (default), md5_text_size or off\n"
		"  --near-duplicate off|simhash:K  collapse pages whose SimHash is\n"
		"                        within K bits (0..3); default off\n"
		"  --follow-duplicate-links yes|no  queue a duplicate's links\n"
		"                        (default yes)\n"
		"  --warc yes|no         write WARC files into STORE/warc\n"
		"  --search-index yes|no keep STORE/search.sqlite, the index of\n"
		"                        `sigcrawl search` (default yes)\n"
		"  --no-robots           ignore robots.txt (for testing only)\n",
		SC_VERSION);
}

int setup_args(struct setup *s, const char *cmd, int argc, char **argv,
	       void (*usage)(FILE *), int *exit_code)
{
	bool serve = strcmp(cmd, "serve") == 0;
	memset(s, 0, sizeof(*s));
	s->cmd = cmd;
	s->argc = argc;
	s->argv = argv;
	opterr = 0;
	optind = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': s->config = optarg; break;
		case O_SEEDS: s->seeds = optarg; break;
		case O_CATEGORY: s->category = optarg; break;
		case O_CHECK: s->check_config = true; break;
		case O_QUIET:
		case O_VERBOSE:
		case O_RECRAWL:
			if ((c == O_QUIET || c == O_RECRAWL) == serve) {
				sc_errorf(cmd, "bad option '%s' (see --help)",
					  argv[optind - 1]);
				*exit_code = EXIT_USAGE;
				return 1;
			}
			if (c == O_QUIET)
				s->quiet = true;
			else if (c == O_RECRAWL)
				s->recrawl = true;
			else
				s->verbose = true;
			break;
		case 'h':
			usage(stdout);
			*exit_code = EXIT_OK;
			return 1;
		case '?':
		case ':':
			cmd_option_error(cmd, c, argv, longopts);
			*exit_code = EXIT_USAGE;
			return 1;
		default: break;
		}
	}
	if (optind < argc) {
		sc_errorf(cmd, "unexpected argument '%s'", argv[optind]);
		*exit_code = EXIT_USAGE;
		return 1;
	}
	if (!s->seeds && s->category) {
		sc_errorf(cmd, "--category needs --seeds");
		*exit_code = EXIT_USAGE;
		return 1;
	}
	/* The daemon reads its seed lists again on every reload, and its
	 * standard input is not a user's: seeds go through `submit`. */
	if (serve && s->seeds && strcmp(s->seeds, "-") == 0) {
		sc_errorf(cmd, "--seeds -: serve does not read seeds from "
			       "standard input (use sigcrawl submit)");
		*exit_code = EXIT_USAGE;
		return 1;
	}
	return 0;
}

static int apply_overrides(struct setup *s, char *err, size_t errlen)
{
	int c;
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(s->argc, s->argv, ":c:h", longopts, NULL)) !=
	       -1) {
		if (c < O_STORE || c > O_LAST_OVERRIDE)
			continue;
		const char *name = NULL;
		for (const struct option *lo = longopts; lo->name; lo++)
			if (lo->val == c)
				name = lo->name;
		int rc = conf_override(s->cf, name, optarg, err, errlen);
		if (rc)
			return rc;
	}
	if (s->seeds)
		return conf_override_seeds(s->cf, s->category, s->seeds, err,
					   errlen);
	return 0;
}

void category_from_conf(struct crawl_category *c,
			const struct conf_category *cc)
{
	*c = (struct crawl_category){
		.name = cc->name,
		.seeds_file = cc->seeds,
		.keywords = (const char *const *)cc->keywords,
		.n_keywords = cc->n_keywords,
		.scope = cc->scope == CONF_SCOPE_ANY      ? CRAWL_SCOPE_ANY
			 : cc->scope == CONF_SCOPE_DOMAIN ? CRAWL_SCOPE_DOMAIN
							  : CRAWL_SCOPE_HOST,
		.min_relevance = cc->min_relevance,
		.tunnel = cc->tunnel,
		.predict = cc->predict,
		.predict_min = cc->predict_min,
		.samples = cc->samples,
		.min_harvest = cc->min_harvest,
		.include = (const char *const *)cc->include,
		.n_include = cc->n_include,
		.exclude = (const char *const *)cc->exclude,
		.n_exclude = cc->n_exclude,
	};
}

int setup_load(struct setup *s, char *err, size_t errlen)
{
	int rc = s->config ? conf_load(s->config, &s->cf, err, errlen)
			   : conf_default(&s->cf);
	if (rc) {
		if (!s->config || rc == SC_E_NOMEM)
			snprintf(err, errlen, "%s", sc_strerror(rc));
		return rc;
	}
	if ((rc = apply_overrides(s, err, errlen)) ||
	    (rc = conf_check_seeds(s->cf, err, errlen)))
		goto fail;
	const struct conf *cf = s->cf;
	snprintf(s->ua, sizeof(s->ua), "sigcrawl/%s", SC_VERSION);
	s->cats = calloc(cf->n_categories ? cf->n_categories : 1,
			 sizeof(*s->cats));
	if (!s->cats) {
		rc = SC_E_NOMEM;
		snprintf(err, errlen, "%s", sc_strerror(rc));
		goto fail;
	}
	for (size_t i = 0; i < cf->n_categories; i++)
		category_from_conf(&s->cats[i], &cf->categories[i]);
	s->o = (struct crawl_opts){
		.store_dir = cf->crawl.store,
		.store_max_bytes = cf->store.max_size,
		.categories = s->cats,
		.n_categories = cf->n_categories,
		.max_pages = cf->crawl.max_pages,
		.max_depth = cf->crawl.max_depth,
		.profile = cf->normalize.profile,
		.norm = { .steps = cf->normalize.steps,
			  .on_password = cf->crawl.url_credentials_use
						 ? crawl_creds_note
						 : NULL },
		.url_credentials_use = cf->crawl.url_credentials_use,
		.adaptive = { cf->adaptive.min_support, cf->adaptive.confidence,
			      cf->adaptive.audit_share, cf->adaptive.transfer,
			      cf->adaptive.retire_below,
			      cf->adaptive.audit_every,
			      cf->adaptive.skip_noindex_nofollow },
		.proxy = cf->crawl.proxy,
		.headers = (const char *const *)cf->crawl.headers,
		.n_headers = cf->crawl.n_headers,
		.cookie_jar = cf->crawl.cookie_jar,
		.ca_file = cf->crawl.ca_file,
		.ca_path = cf->crawl.ca_path,
		.client_cert = cf->crawl.client_cert,
		.client_key = cf->crawl.client_key,
		.recrawl = { cf->recrawl.enabled, s->recrawl,
			     cf->recrawl.min_interval_s,
			     cf->recrawl.max_interval_s,
			     cf->recrawl.audit_share },
		.concurrency = cf->crawl.concurrency,
		.per_host_connections = cf->crawl.per_host_connections,
		.per_host_delay_ms = cf->crawl.per_host_delay_ms,
		.timeout_s = cf->crawl.timeout_s,
		.max_body_bytes = (size_t)cf->crawl.max_body_bytes,
		.user_agent = cf->crawl.user_agent ? cf->crawl.user_agent
						   : s->ua,
		.robots_token = "sigcrawl",
		.obey_robots = cf->crawl.obey_robots,
		.max_pages_per_host = cf->crawl.max_pages_per_host,
		.host_retries = cf->crawl.host_retries,
		.host_backoff_ms = cf->crawl.host_backoff_ms,
		.signature = cf->dedup.signature == CONF_SIGNATURE_OFF
				     ? CRAWL_SIGNATURE_OFF
			     : cf->dedup.signature ==
					     CONF_SIGNATURE_MD5_TEXT_SIZE
				     ? CRAWL_SIGNATURE_MD5_TEXT_SIZE
				     : CRAWL_SIGNATURE_MD5_TEXT,
		.near_k = cf->dedup.near_duplicate,
		.follow_duplicate_links = cf->dedup.follow_duplicate_links,
		.warc = cf->store.warc,
		.search_index = cf->store.search_index,
		.connect_to = (const char *const *)cf->crawl.connect_to,
		.n_connect_to = cf->crawl.n_connect_to,
		.quiet = s->quiet,
	};
	return 0;
fail:
	conf_free(s->cf);
	s->cf = NULL;
	return rc;
}

void setup_free(struct setup *s)
{
	free(s->cats);
	s->cats = NULL;
	conf_free(s->cf);
	s->cf = NULL;
}
