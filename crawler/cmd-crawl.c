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
#include "normalize.h"

#define CMD "crawl"
#define MAX_CONNECT_TO 64

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sigcrawl crawl --store DIR --seeds FILE [options]\n"
		"\n"
		"Crawls breadth-first from the seeds until the frontier is empty or\n"
		"a limit is reached, then prints a summary.  Run again with the same\n"
		"store to resume.\n"
		"\n"
		"  --store DIR           the LMDB store (created if missing)\n"
		"  --seeds FILE          seed URLs, one per line, '#' comments\n"
		"  --category NAME       the category recorded (default: default)\n"
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
		"  --no-robots           ignore robots.txt (for testing only)\n"
		"  --quiet               no progress lines\n",
		SC_VERSION);
}

static int parse_uint(const char *s, unsigned long long max,
		      unsigned long long *ret)
{
	char *end;
	if (!*s || *s == '-')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*ret = v;
	return 0;
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
		O_NO_ROBOTS,
		O_QUIET,
	};
	static const struct option longopts[] = {
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
		{ "no-robots", no_argument, NULL, O_NO_ROBOTS },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static char ua[64];
	snprintf(ua, sizeof(ua), "sigcrawl/%s", SC_VERSION);
	static const char *connect_to[MAX_CONNECT_TO];
	struct crawl_opts o = {
		.category = "default",
		.max_depth = 9,
		.concurrency = 256,
		.per_host_connections = 2,
		.per_host_delay_ms = 1000,
		.timeout_s = 30,
		.max_body_bytes = 10485760,
		.user_agent = ua,
		.robots_token = "sigcrawl",
		.obey_robots = true,
		.connect_to = connect_to,
	};
	const char *profile = "extended", *steps = NULL;
	unsigned long long v;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		const char *bad = NULL;
		switch (c) {
		case O_STORE: o.store_dir = optarg; break;
		case O_SEEDS: o.seeds_file = optarg; break;
		case O_CATEGORY:
			if (!*optarg)
				bad = "--category";
			o.category = optarg;
			break;
		case O_MAX_PAGES:
			if (parse_uint(optarg, UINT64_MAX, &v))
				bad = "--max-pages";
			o.max_pages = v;
			break;
		case O_MAX_DEPTH:
			if (parse_uint(optarg, 1000, &v))
				bad = "--max-depth";
			o.max_depth = (unsigned)v;
			break;
		case O_PROFILE: profile = optarg; break;
		case O_STEPS: steps = optarg; break;
		case O_CONCURRENCY:
			if (parse_uint(optarg, 65536, &v) || !v)
				bad = "--concurrency";
			o.concurrency = (unsigned)v;
			break;
		case O_PHC:
			if (parse_uint(optarg, 256, &v) || !v)
				bad = "--per-host-connections";
			o.per_host_connections = (unsigned)v;
			break;
		case O_PHD:
			if (parse_uint(optarg, 3600000, &v))
				bad = "--per-host-delay-ms";
			o.per_host_delay_ms = (uint32_t)v;
			break;
		case O_TIMEOUT:
			if (parse_uint(optarg, 3600, &v) || !v)
				bad = "--timeout-s";
			o.timeout_s = (unsigned)v;
			break;
		case O_MAX_BODY:
			if (parse_uint(optarg, (1ull << 32), &v) || !v)
				bad = "--max-body-bytes";
			o.max_body_bytes = (size_t)v;
			break;
		case O_CONNECT_TO:
			if (o.n_connect_to == MAX_CONNECT_TO) {
				bad = "--connect-to (too many)";
				break;
			}
			connect_to[o.n_connect_to++] = optarg;
			break;
		case O_UA:
			if (!*optarg)
				bad = "--user-agent";
			o.user_agent = optarg;
			break;
		case O_NO_ROBOTS: o.obey_robots = false; break;
		case O_QUIET: o.quiet = true; break;
		case 'h': usage(stdout); return EXIT_OK;
		default:
			sc_errorf(CMD, "bad option '%s' (see --help)",
				  argv[optind - 1]);
			return EXIT_USAGE;
		}
		if (bad) {
			sc_errorf(CMD, "bad value for %s: '%s'", bad, optarg);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		sc_errorf(CMD, "unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (!o.store_dir) {
		sc_errorf(CMD, "no store given: use --store DIR");
		return EXIT_USAGE;
	}
	enum norm_profile p;
	if (norm_profile_parse(profile, &p)) {
		sc_errorf(CMD, "unknown profile '%s'", profile);
		return EXIT_USAGE;
	}
	o.norm.steps = norm_profile_steps(p);
	if (steps) {
		const char *bad;
		size_t bad_len;
		if (norm_steps_parse(steps, &o.norm.steps, &bad, &bad_len)) {
			sc_errorf(CMD, "unknown step '%.*s' in --steps",
				  (int)bad_len, bad);
			return EXIT_USAGE;
		}
	}

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		sc_errorf(CMD, "curl_global_init failed");
		return EXIT_RUNTIME;
	}
	struct crawl_summary s;
	int rc = crawl_run(&o, &s);
	curl_global_cleanup();
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
	return EXIT_OK;
}
