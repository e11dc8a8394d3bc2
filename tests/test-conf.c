/* test-conf.c — unit tests of conf/: defaults, every key, every kind of
 * bad value with its exact "FILE:LINE: [section] key: message", sections
 * and categories, relative paths, the bounds, the command-line overrides,
 * and the shipped packaging/sigcrawl.conf.
 *
 *     test-conf SRCROOT
 *
 * The files are written into a fresh mkdtemp() directory, which is also
 * the working directory, so that messages name "t.conf" and relative
 * paths have a known base. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "conf.h"

static char tmpdir[] = "/tmp/test-conf.XXXXXX";
static char err[1024];

static void write_file(const char *name, const char *text)
{
	FILE *f = fopen(name, "w");
	if (!f) {
		perror(name);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

/* Loads text from t.conf; returns the conf or NULL (err has the message). */
static struct conf *load(const char *text, int *rc)
{
	struct conf *c = NULL;
	write_file("t.conf", text);
	*rc = conf_load("t.conf", &c, err, sizeof(err));
	return *rc ? NULL : c;
}

#define LOAD_OK(text) load_ok_at(__LINE__, (text))
static struct conf *load_ok_at(int line, const char *text)
{
	int rc;
	struct conf *c = load(text, &rc);
	if (!c) {
		check_failed++;
		fprintf(stderr, "%s:%d: load failed: %s\n", __FILE__, line,
			err);
	} else {
		check_passed++;
	}
	return c;
}

struct bad_case {
	const char *text;
	const char *message;
};

/* Every bad input with the whole message it must give. */
static const struct bad_case bad_cases[] = {
	/* integers */
	{ "[crawl]\nmax_pages = x\n",
	  "t.conf:2: [crawl] max_pages: expected a whole number from 0 to "
	  "1000000000000, got \"x\"" },
	{ "[crawl]\nmax_pages = 99999999999999999999999\n",
	  "t.conf:2: [crawl] max_pages: expected a whole number from 0 to "
	  "1000000000000, got \"99999999999999999999999\"" },
	{ "[crawl]\nmax_pages = 18446744073709551616\n",
	  "t.conf:2: [crawl] max_pages: expected a whole number from 0 to "
	  "1000000000000, got \"18446744073709551616\"" },
	{ "[crawl]\n\nmax_depth = 1001\n",
	  "t.conf:3: [crawl] max_depth: expected a whole number from 0 to "
	  "1000, got \"1001\"" },
	{ "[crawl]\nconcurrency = 0\n",
	  "t.conf:2: [crawl] concurrency: expected auto or a whole number "
	  "from 1 to 65535, got \"0\"" },
	{ "[crawl]\nconcurrency = -1\n",
	  "t.conf:2: [crawl] concurrency: expected auto or a whole number "
	  "from 1 to 65535, got \"-1\"" },
	{ "[crawl]\nconcurrency = +5\n",
	  "t.conf:2: [crawl] concurrency: expected auto or a whole number "
	  "from 1 to 65535, got \"+5\"" },
	{ "[crawl]\nper_host_connections = 1025\n",
	  "t.conf:2: [crawl] per_host_connections: expected a whole number "
	  "from 1 to 1024, got \"1025\"" },
	{ "[crawl]\nper_host_delay_ms = 1e3\n",
	  "t.conf:2: [crawl] per_host_delay_ms: expected a whole number from "
	  "0 to 3600000, got \"1e3\"" },
	{ "[crawl]\nmax_pages_per_host = -1\n",
	  "t.conf:2: [crawl] max_pages_per_host: expected a whole number from "
	  "0 to 1000000000000, got \"-1\"" },
	{ "[crawl]\nmax_pages_per_host = 1000000000001\n",
	  "t.conf:2: [crawl] max_pages_per_host: expected a whole number from "
	  "0 to 1000000000000, got \"1000000000001\"" },
	{ "[crawl]\nhost_retries = 101\n",
	  "t.conf:2: [crawl] host_retries: expected a whole number from 0 to "
	  "100, got \"101\"" },
	{ "[crawl]\nhost_retries = \n",
	  "t.conf:2: [crawl] host_retries: expected a whole number from 0 to "
	  "100, got \"\"" },
	{ "[crawl]\nhost_backoff_ms = 99\n",
	  "t.conf:2: [crawl] host_backoff_ms: expected a whole number from 100 "
	  "to 3600000, got \"99\"" },
	{ "[crawl]\nhost_backoff_ms = 3600001\n",
	  "t.conf:2: [crawl] host_backoff_ms: expected a whole number from 100 "
	  "to 3600000, got \"3600001\"" },
	{ "[crawl]\nhost_backoff_ms = 1s\n",
	  "t.conf:2: [crawl] host_backoff_ms: expected a whole number from 100 "
	  "to 3600000, got \"1s\"" },
	{ "[crawl]\ntimeout_s = 3601\n",
	  "t.conf:2: [crawl] timeout_s: expected a whole number from 1 to "
	  "3600, got \"3601\"" },
	{ "[crawl]\nmax_body_bytes = 0\n",
	  "t.conf:2: [crawl] max_body_bytes: expected a whole number from 1 "
	  "to 1073741824, got \"0\"" },
	{ "[crawl]\nmax_depth =\n",
	  "t.conf:2: [crawl] max_depth: expected a whole number from 0 to "
	  "1000, got \"\"" },
	/* strings, booleans */
	{ "[crawl]\nuser_agent =\n",
	  "t.conf:2: [crawl] user_agent: empty value" },
	{ "[crawl]\nuser_agent = a\x01z\n",
	  "t.conf:2: [crawl] user_agent: control character in the user agent" },
	{ "[crawl]\nobey_robots = maybe\n",
	  "t.conf:2: [crawl] obey_robots: expected yes or no (true/false, "
	  "on/off, 1/0), got \"maybe\"" },
	{ "[store]\nwarc = 2\n",
	  "t.conf:2: [store] warc: expected yes or no (true/false, on/off, "
	  "1/0), got \"2\"" },
	{ "[store]\nsearch_index = sometimes\n",
	  "t.conf:2: [store] search_index: expected yes or no (true/false, "
	  "on/off, 1/0), got \"sometimes\"" },
	{ "[crawl]\nstore =\n", "t.conf:2: [crawl] store: empty path" },
	/* connect_to shapes */
	{ "[crawl]\nconnect_to = a:1:b\n",
	  "t.conf:2: [crawl] connect_to: expected HOST1:PORT1:HOST2:PORT2 "
	  "(any field may be empty, ports 1..65535, IPv6 in brackets), got "
	  "\"a:1:b\"" },
	{ "[crawl]\nconnect_to = a:1:b:2:3\n",
	  "t.conf:2: [crawl] connect_to: expected HOST1:PORT1:HOST2:PORT2 "
	  "(any field may be empty, ports 1..65535, IPv6 in brackets), got "
	  "\"a:1:b:2:3\"" },
	{ "[crawl]\nconnect_to = a:x:b:2\n",
	  "t.conf:2: [crawl] connect_to: expected HOST1:PORT1:HOST2:PORT2 "
	  "(any field may be empty, ports 1..65535, IPv6 in brackets), got "
	  "\"a:x:b:2\"" },
	{ "[crawl]\nconnect_to = a:70000:b:2\n",
	  "t.conf:2: [crawl] connect_to: expected HOST1:PORT1:HOST2:PORT2 "
	  "(any field may be empty, ports 1..65535, IPv6 in brackets), got "
	  "\"a:70000:b:2\"" },
	{ "[crawl]\nconnect_to = a:0:b:2\n",
	  "t.conf:2: [crawl] connect_to: expected HOST1:PORT1:HOST2:PORT2 "
	  "(any field may be empty, ports 1..65535, IPv6 in brackets), got "
	  "\"a:0:b:2\"" },
	{ "[crawl]\nconnect_to = [::1:80:b:2\n",
	  "t.conf:2: [crawl] connect_to: expected HOST1:PORT1:HOST2:PORT2 "
	  "(any field may be empty, ports 1..65535, IPv6 in brackets), got "
	  "\"[::1:80:b:2\"" },
	{ "[crawl]\nconnect_to = a b:1:c:2\n",
	  "t.conf:2: [crawl] connect_to: expected HOST1:PORT1:HOST2:PORT2 "
	  "(any field may be empty, ports 1..65535, IPv6 in brackets), got "
	  "\"a b:1:c:2\"" },
	{ "[crawl]\nconnect_to =\n",
	  "t.conf:2: [crawl] connect_to: expected HOST1:PORT1:HOST2:PORT2 "
	  "(any field may be empty, ports 1..65535, IPv6 in brackets), got "
	  "\"\"" },
	/* normalize, dedup */
	{ "[normalize]\nprofile = loose\n",
	  "t.conf:2: [normalize] profile: unknown profile \"loose\" (strict, "
	  "extended, aggressive or adaptive)" },
	{ "[normalize]\nsteps = +sort_query, -nope\n",
	  "t.conf:2: [normalize] steps: unknown step \"nope\"" },
	{ "[dedup]\nsignature = sha1\n",
	  "t.conf:2: [dedup] signature: expected md5_text, md5_text_size or "
	  "off, got \"sha1\"" },
	{ "[dedup]\nnear_duplicate = simhash:4\n",
	  "t.conf:2: [dedup] near_duplicate: expected off or simhash:K with K "
	  "from 0 to 3, got \"simhash:4\"" },
	{ "[dedup]\nnear_duplicate = simhash:\n",
	  "t.conf:2: [dedup] near_duplicate: expected off or simhash:K with K "
	  "from 0 to 3, got \"simhash:\"" },
	{ "[dedup]\nnear_duplicate = on\n",
	  "t.conf:2: [dedup] near_duplicate: expected off or simhash:K with K "
	  "from 0 to 3, got \"on\"" },
	/* adaptive */
	{ "[adaptive]\nmin_support = 0\n",
	  "t.conf:2: [adaptive] min_support: expected a number from 1 to "
	  "1000, got \"0\"" },
	{ "[adaptive]\nconfidence = 1.0\n",
	  "t.conf:2: [adaptive] confidence: expected a number from 0.5 up to "
	  "(not including) 1.0, got \"1.0\"" },
	{ "[adaptive]\nconfidence = 0.4\n",
	  "t.conf:2: [adaptive] confidence: expected a number from 0.5 up to "
	  "(not including) 1.0, got \"0.4\"" },
	{ "[adaptive]\naudit_share = 1.5\n",
	  "t.conf:2: [adaptive] audit_share: expected a number from 0.0 to "
	  "1.0, got \"1.5\"" },
	{ "[adaptive]\ntransfer = sometimes\n",
	  "t.conf:2: [adaptive] transfer: expected yes or no (true/false, "
	  "on/off, 1/0), got \"sometimes\"" },
	{ "[adaptive]\naudits = 3\n",
	  "t.conf:2: [adaptive] audits: unknown key" },
	/* recrawl */
	{ "[recrawl]\nenabled = maybe\n",
	  "t.conf:2: [recrawl] enabled: expected yes or no (true/false, "
	  "on/off, 1/0), got \"maybe\"" },
	{ "[recrawl]\nmin_interval = 0\n",
	  "t.conf:2: [recrawl] min_interval: expected a duration like 90s, "
	  "30m, 1h, 7d or 2w (1 s to 3650 d), got \"0\"" },
	{ "[recrawl]\nmax_interval = 3651d\n",
	  "t.conf:2: [recrawl] max_interval: expected a duration like 90s, "
	  "30m, 1h, 7d or 2w (1 s to 3650 d), got \"3651d\"" },
	{ "[recrawl]\nmax_interval = 1y\n",
	  "t.conf:2: [recrawl] max_interval: expected a duration like 90s, "
	  "30m, 1h, 7d or 2w (1 s to 3650 d), got \"1y\"" },
	{ "[recrawl]\nmax_interval = h\n",
	  "t.conf:2: [recrawl] max_interval: expected a duration like 90s, "
	  "30m, 1h, 7d or 2w (1 s to 3650 d), got \"h\"" },
	{ "[recrawl]\nmin_interval = -1h\n",
	  "t.conf:2: [recrawl] min_interval: expected a duration like 90s, "
	  "30m, 1h, 7d or 2w (1 s to 3650 d), got \"-1h\"" },
	/* include, exclude */
	{ "[category c]\ninclude = (a\n",
	  "t.conf:2: [category c] include: not a POSIX extended regular "
	  "expression (Unmatched ( or \\(): \"(a\"" },
	{ "[category c]\nexclude =\n",
	  "t.conf:2: [category c] exclude: empty pattern" },
	{ "[category c]\nexclude = a+++++++++++++++++\n",
	  "t.conf:2: [category c] exclude: more than 8 repetitions (*, +, ?, "
	  "{m,n}) or a bound over 100: \"a+++++++++++++++++\"" },
	{ "[category c]\ninclude = a{1,1000}\n",
	  "t.conf:2: [category c] include: more than 8 repetitions (*, +, ?, "
	  "{m,n}) or a bound over 100: \"a{1,1000}\"" },
	{ "[recrawl]\naudit_share = 2\n",
	  "t.conf:2: [recrawl] audit_share: expected a number from 0.0 to "
	  "1.0, got \"2\"" },
	{ "# x\n[recrawl]\nmin_interval = 2d\nmax_interval = 1d\n",
	  "t.conf:2: [recrawl]: min_interval (172800 s) is longer than "
	  "max_interval (86400 s)" },
	/* control */
	{ "[control]\nlisten = tcp:10.0.0.1:80\n",
	  "t.conf:2: [control] listen: host \"10.0.0.1\" is not a loopback "
	  "address: the control socket has no authentication, so TCP listens "
	  "only on 127.0.0.0/8, [::1] or localhost" },
	{ "[control]\nlisten = tcp:example.com:80\n",
	  "t.conf:2: [control] listen: host \"example.com\" is not a loopback "
	  "address: the control socket has no authentication, so TCP listens "
	  "only on 127.0.0.0/8, [::1] or localhost" },
	{ "[control]\nlisten = tcp:[::2]:80\n",
	  "t.conf:2: [control] listen: host \"::2\" is not a loopback "
	  "address: the control socket has no authentication, so TCP listens "
	  "only on 127.0.0.0/8, [::1] or localhost" },
	{ "[control]\ndashboard = tcp:10.0.0.1:80\n",
	  "t.conf:2: [control] dashboard: host \"10.0.0.1\" is not a "
	  "loopback address: the control socket has no authentication, so "
	  "TCP listens only on 127.0.0.0/8, [::1] or localhost" },
	{ "[control]\ndashboard = unix:d.sock\n",
	  "t.conf:2: [control] dashboard: expected tcp:HOST:PORT (a browser "
	  "opens the dashboard over TCP), got \"unix:d.sock\"" },
	{ "[control]\nlisten = tcp:127.0.0.1:0\n",
	  "t.conf:2: [control] listen: port must be a number from 1 to 65535, "
	  "got \"0\"" },
	{ "[control]\nlisten = tcp:127.0.0.1\n",
	  "t.conf:2: [control] listen: expected tcp:HOST:PORT, got "
	  "\"tcp:127.0.0.1\"" },
	{ "[control]\nlisten = tcp:127.0.0.1:\n",
	  "t.conf:2: [control] listen: port must be a number from 1 to 65535, "
	  "got \"\"" },
	{ "[control]\nlisten = tcp:::1:80\n",
	  "t.conf:2: [control] listen: an IPv6 address needs brackets: "
	  "tcp:[::1]:PORT" },
	{ "[control]\nlisten = tcp::80\n",
	  "t.conf:2: [control] listen: expected tcp:HOST:PORT, got "
	  "\"tcp::80\"" },
	{ "[control]\nlisten = udp:127.0.0.1:5\n",
	  "t.conf:2: [control] listen: expected unix:PATH or tcp:HOST:PORT, "
	  "got \"udp:127.0.0.1:5\"" },
	{ "[control]\nlisten = unix:\n",
	  "t.conf:2: [control] listen: empty path" },
	{ "[control]\nlisten = unix:/"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
	  "t.conf:2: [control] listen: path longer than 107 bytes once made "
	  "absolute" },
	/* categories */
	{ "[category news]\nscope = world\n",
	  "t.conf:2: [category news] scope: expected host, domain or any, got "
	  "\"world\"" },
	{ "[category news]\nmin_relevance = 1.5\n",
	  "t.conf:2: [category news] min_relevance: expected a number from "
	  "0.0 to 1.0, got \"1.5\"" },
	{ "[category news]\nmin_relevance = -0.1\n",
	  "t.conf:2: [category news] min_relevance: expected a number from "
	  "0.0 to 1.0, got \"-0.1\"" },
	{ "[category news]\nmin_relevance = nan\n",
	  "t.conf:2: [category news] min_relevance: expected a number from "
	  "0.0 to 1.0, got \"nan\"" },
	{ "[category news]\nmin_relevance = .\n",
	  "t.conf:2: [category news] min_relevance: expected a number from "
	  "0.0 to 1.0, got \".\"" },
	{ "[category news]\npredict = maybe\n",
	  "t.conf:2: [category news] predict: expected yes or no "
	  "(true/false, on/off, 1/0), got \"maybe\"" },
	{ "[category news]\nsamples = maybe\n",
	  "t.conf:2: [category news] samples: expected yes or no "
	  "(true/false, on/off, 1/0), got \"maybe\"" },
	{ "[category news]\nmin_harvest = 1.2\n",
	  "t.conf:2: [category news] min_harvest: expected a number from "
	  "0.0 to 1.0, got \"1.2\"" },
	{ "[category news]\npredict_min = 1.5\n",
	  "t.conf:2: [category news] predict_min: expected a number from "
	  "0.0 to 1.0, got \"1.5\"" },
	{ "[category news]\ntunnel = 101\n",
	  "t.conf:2: [category news] tunnel: expected a whole number from 0 "
	  "to 100, got \"101\"" },
	{ "[category news]\nkeywords = a,,b\n",
	  "t.conf:2: [category news] keywords: empty keyword in \"a,,b\"" },
	{ "[category news]\nkeywords =\n",
	  "t.conf:2: [category news] keywords: empty keyword in \"\"" },
	{ "[category news]\nseeds =\n",
	  "t.conf:2: [category news] seeds: empty path" },
	{ "[category news]\nfoo = 1\n",
	  "t.conf:2: [category news] foo: unknown key" },
	{ "[category]\n",
	  "t.conf:1: [category]: a category needs a name: [category NAME]" },
	{ "[category a/b]\n",
	  "t.conf:1: [category a/b]: a category name has 1 to 40 letters, "
	  "digits, '.', '_' or '-'" },
	{ "[category a b]\n",
	  "t.conf:1: [category a b]: a category name has 1 to 40 letters, "
	  "digits, '.', '_' or '-'" },
	{ "[category "
	  "abcdefghijabcdefghijabcdefghijabcdefghijX]\n",
	  "t.conf:1: [category abcdefghijabcdefghijabcdefghijabcdefghijX]: a "
	  "category name has 1 to 40 letters, digits, '.', '_' or '-'" },
	{ "[category a]\n[crawl]\n[category a]\n",
	  "t.conf:3: [category a]: category given twice" },
	/* sections, keys, syntax */
	{ "[crawl]\nfoo = 1\n", "t.conf:2: [crawl] foo: unknown key" },
	{ "[crawl]\nMax_Depth = 1\n",
	  "t.conf:2: [crawl] Max_Depth: unknown key" },
	{ "[normalize]\nstore = x\n",
	  "t.conf:2: [normalize] store: unknown key" },
	{ "[foo]\n",
	  "t.conf:1: [foo]: unknown section (crawl, normalize, dedup, store, "
	  "adaptive, recrawl, category NAME, control, cluster)" },
	{ "[Crawl]\n",
	  "t.conf:1: [Crawl]: unknown section (crawl, normalize, dedup, store, "
	  "adaptive, recrawl, category NAME, control, cluster)" },
	{ "[crawl]\nmax_depth = 1\nmax_depth = 2\n",
	  "t.conf:3: [crawl] max_depth: given twice (first on line 2)" },
	{ "[category x]\nseeds = a\n# c\nseeds = b\n",
	  "t.conf:4: [category x] seeds: given twice (first on line 2)" },
	{ "[crawl]\n[dedup]\n[crawl]\n",
	  "t.conf:3: [crawl]: section given twice (first on line 1)" },
	{ "max_depth = 1\n",
	  "t.conf:1: max_depth: key before the first [section]" },
	{ "[crawl]\njunk\n",
	  "t.conf:2: syntax error: expected [section], key = value or a "
	  "comment" },
	{ "[crawl]\njunk\nfoo = 1\n",
	  "t.conf:2: syntax error: expected [section], key = value or a "
	  "comment" },
	{ "[crawl]\nfoo = 1\njunk\n", "t.conf:2: [crawl] foo: unknown key" },
	{ "[crawl\n", "t.conf:1: missing ']' in section header" },
	{ "[crawl] x\n", "t.conf:1: text after the section header's ']'" },
	/* [cluster] */
	{ "[cluster]\nshards = 2\n",
	  "t.conf:1: [cluster]: nats is required (nats = "
	  "nats://HOST:PORT[, ...])" },
	{ "[cluster]\nnats = http://a:4222\n",
	  "t.conf:2: [cluster] nats: expected nats://HOST:PORT (port "
	  "1..65535, IPv6 in brackets), got \"http://a:4222\"" },
	{ "[cluster]\nnats = nats://a\n",
	  "t.conf:2: [cluster] nats: expected nats://HOST:PORT (port "
	  "1..65535, IPv6 in brackets), got \"nats://a\"" },
	{ "[cluster]\nnats = nats://:4222\n",
	  "t.conf:2: [cluster] nats: expected nats://HOST:PORT (port "
	  "1..65535, IPv6 in brackets), got \"nats://:4222\"" },
	{ "[cluster]\nnats = nats://a:0\n",
	  "t.conf:2: [cluster] nats: expected nats://HOST:PORT (port "
	  "1..65535, IPv6 in brackets), got \"nats://a:0\"" },
	{ "[cluster]\nnats = nats://a:65536\n",
	  "t.conf:2: [cluster] nats: expected nats://HOST:PORT (port "
	  "1..65535, IPv6 in brackets), got \"nats://a:65536\"" },
	{ "[cluster]\nnats = nats://u:p@a:4222\n",
	  "t.conf:2: [cluster] nats: expected nats://HOST:PORT (port "
	  "1..65535, IPv6 in brackets), got \"nats://u:p@a:4222\"" },
	{ "[cluster]\nnats = nats://a:4222/x\n",
	  "t.conf:2: [cluster] nats: expected nats://HOST:PORT (port "
	  "1..65535, IPv6 in brackets), got \"nats://a:4222/x\"" },
	{ "[cluster]\nnats = nats://::1:4222\n",
	  "t.conf:2: [cluster] nats: expected nats://HOST:PORT (port "
	  "1..65535, IPv6 in brackets), got \"nats://::1:4222\"" },
	{ "[cluster]\nnats = nats://a:1,,nats://b:2\n",
	  "t.conf:2: [cluster] nats: empty server in \"nats://a:1,,nats://b:2\"" },
	{ "[cluster]\nnats = \n",
	  "t.conf:2: [cluster] nats: empty server in \"\"" },
	{ "[cluster]\nnats = nats://a:1,n://b:2\n",
	  "t.conf:2: [cluster] nats: expected nats://HOST:PORT (port "
	  "1..65535, IPv6 in brackets), got \"n://b:2\"" },
	{ "[cluster]\nnats = nats://a:1,nats://b:1,nats://c:1,nats://d:1,"
	  "nats://e:1,nats://f:1,nats://g:1,nats://h:1,nats://i:1,"
	  "nats://j:1,nats://k:1,nats://l:1,nats://m:1,nats://n:1,"
	  "nats://o:1,nats://p:1,nats://q:1\n",
	  "t.conf:2: [cluster] nats: more than 16 servers" },
	{ "[cluster]\nnats = nats://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaa:4222\n",
	  "t.conf:2: [cluster] nats: a server URL longer than 128 bytes" },
	{ "[cluster]\nnats = nats://a:1\nshards = 0\n",
	  "t.conf:3: [cluster] shards: expected a whole number from 1 to "
	  "1024, got \"0\"" },
	{ "[cluster]\nnats = nats://a:1\nshards = 1025\n",
	  "t.conf:3: [cluster] shards: expected a whole number from 1 to "
	  "1024, got \"1025\"" },
	{ "[cluster]\nnats = nats://a:1\nshard = -1\n",
	  "t.conf:3: [cluster] shard: expected a whole number from 0 to "
	  "1023, got \"-1\"" },
	{ "[cluster]\nnats = nats://a:1\nshard = 1\n",
	  "t.conf:3: [cluster] shard: 1 is not below shards (1); shards are "
	  "numbered from 0" },
	{ "[cluster]\nshard = 3\nnats = nats://a:1\nshards = 3\n",
	  "t.conf:2: [cluster] shard: 3 is not below shards (3); shards are "
	  "numbered from 0" },
	{ "[cluster]\nnats = nats://a:1\nshard = 0\nshard = 0\n",
	  "t.conf:4: [cluster] shard: given twice (first on line 3)" },
	{ "[cluster]\nnats = nats://a:1\nreplicas = 3\n",
	  "t.conf:3: [cluster] replicas: unknown key" },
	{ "[cluster]\nnats = nats://a:1\n[crawl]\n[cluster]\n",
	  "t.conf:4: [cluster]: section given twice (first on line 1)" },
	/* an indented line is not a continuation of the previous value */
	{ "[crawl]\nmax_depth = 1\n  more\n",
	  "t.conf:3: syntax error: expected [section], key = value or a "
	  "comment" },
};

static void test_bad_values(void)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		int rc;
		struct conf *c = load(bad_cases[i].text, &rc);
		CHECK(c == NULL && rc == SC_E_INVAL);
		if (c)
			fprintf(stderr, "case %zu loaded: %s", i,
				bad_cases[i].text);
		CHECK_STR(err, bad_cases[i].message);
		conf_free(c);
	}
}

static void check_defaults(const struct conf *c)
{
	CHECK_STR(c->crawl.store, CONF_DEFAULT_STORE);
	CHECK(c->crawl.max_depth == 9);
	CHECK(c->crawl.max_pages == 0);
	CHECK(c->crawl.concurrency == 0); /* auto */
	CHECK(c->crawl.per_host_connections == 2);
	CHECK(c->crawl.per_host_delay_ms == 1000);
	CHECK(c->crawl.timeout_s == 30);
	CHECK(c->crawl.max_body_bytes == 10485760);
	CHECK_STR(c->crawl.user_agent, "sigcrawl/" SC_VERSION);
	CHECK(c->crawl.obey_robots);
	CHECK(c->crawl.n_connect_to == 0);
	CHECK(c->crawl.max_pages_per_host == 0);
	CHECK(c->crawl.host_retries == 3);
	CHECK(c->crawl.host_backoff_ms == 10000);
	CHECK(c->normalize.profile == NORM_PROFILE_EXTENDED);
	CHECK(c->normalize.steps_list == NULL);
	CHECK(c->normalize.steps == norm_profile_steps(NORM_PROFILE_EXTENDED));
	CHECK(c->dedup.signature == CONF_SIGNATURE_MD5_TEXT);
	CHECK(c->dedup.near_duplicate == -1);
	CHECK(!c->store.warc);
	CHECK(c->store.search_index);
	CHECK(c->control.kind == CONF_LISTEN_UNIX);
	CHECK_STR(c->control.listen, CONF_DEFAULT_LISTEN);
	CHECK_STR(c->control.unix_path, "/run/sigcrawl/control.sock");
	CHECK(c->n_categories == 0);
	CHECK(!c->cluster.enabled);
	CHECK(c->cluster.n_nats == 0 && c->cluster.nats == NULL);
	CHECK(c->cluster.shards == 1);
	CHECK(c->cluster.shard == 0);
}

static void test_defaults(void)
{
	struct conf *c = NULL;
	CHECK(conf_default(&c) == 0);
	if (c) {
		check_defaults(c);
		CHECK(c->path == NULL);
	}
	conf_free(c);
	conf_free(NULL);

	/* An empty file, and one of only comments and blank lines. */
	c = LOAD_OK("");
	if (c)
		check_defaults(c);
	conf_free(c);
	c = LOAD_OK("# comment\n; comment\n\n   \n[crawl]\n# nothing\n");
	if (c)
		check_defaults(c);
	conf_free(c);
}

/* The lowest values of the unreachable-host keys: no retry at all, and
 * the shortest backoff. */
static void test_host_keys_low(void)
{
	struct conf *c = LOAD_OK("[crawl]\nhost_retries = 0\n"
				 "host_backoff_ms = 100\n"
				 "max_pages_per_host = 1\n");
	if (!c)
		return;
	CHECK(c->crawl.host_retries == 0);
	CHECK(c->crawl.host_backoff_ms == 100);
	CHECK(c->crawl.max_pages_per_host == 1);
	conf_free(c);
}

static void test_every_key(void)
{
	char want[2048];
	struct conf *c = LOAD_OK(
		"\xEF\xBB\xBF# every key\n"
		"[crawl]\n"
		"store = data/store\n"
		"max_depth = 0\n"
		"max_pages = 1000000000000\n"
		"concurrency = 65535\n"
		"per_host_connections = 1024\n"
		"per_host_delay_ms = 0\n"
		"timeout_s = 3600\n"
		"max_body_bytes = 1073741824\n"
		"user_agent = TestBot/1.0 (+http://example.com/bot) ; a comment\n"
		"obey_robots = off\n"
		"max_pages_per_host = 1000000000000\n"
		"host_retries = 100\n"
		"host_backoff_ms = 3600000\n"
		"connect_to = ::127.0.0.1:8080\n"
		"connect_to = a.test:80:[::1]:8081\n"
		"connect_to = [2001:db8::1]:443:b.test:\n"
		"connect_to = :::\n"
		"[normalize]\n"
		"steps = -sort_query, +lowercase_path\n"
		"profile = aggressive\n"
		"[dedup]\n"
		"signature = md5_text_size\n"
		"near_duplicate = simhash:3\n"
		"[store]\n"
		"warc = yes\n"
		"search_index = no\n"
		"[control]\n"
		"listen = tcp:127.0.0.1:7070\n"
		"[category news]\n"
		"seeds = /abs/seeds.txt\n"
		"keywords =  Election , vote,ELECTION, c#  \n"
		"scope = domain\n"
		"min_relevance = 0.25\n"
		"tunnel = 100\n"
		"predict = off\n"
		"predict_min = 0.35\n"
		"samples = yes\n"
		"min_harvest = 0.8\n"
		"  [ category   sport ]   ; indented header, comment\n"
		"\tseeds = ./s/sport.txt\n"
		"scope = any\n"
		"min_relevance = 1\n");
	if (!c)
		return;
	snprintf(want, sizeof(want), "%s/t.conf", tmpdir);
	CHECK_STR(c->path, want);
	snprintf(want, sizeof(want), "%s/data/store", tmpdir);
	CHECK_STR(c->crawl.store, want);
	CHECK(c->crawl.max_depth == 0);
	CHECK(c->crawl.max_pages == UINT64_C(1000000000000));
	CHECK(c->crawl.concurrency == 65535);
	CHECK(c->crawl.per_host_connections == 1024);
	CHECK(c->crawl.per_host_delay_ms == 0);
	CHECK(c->crawl.timeout_s == 3600);
	CHECK(c->crawl.max_body_bytes == 1073741824);
	CHECK_STR(c->crawl.user_agent, "TestBot/1.0 (+http://example.com/bot)");
	CHECK(!c->crawl.obey_robots);
	CHECK(c->crawl.max_pages_per_host == UINT64_C(1000000000000));
	CHECK(c->crawl.host_retries == 100);
	CHECK(c->crawl.host_backoff_ms == 3600000);
	CHECK(c->crawl.n_connect_to == 4);
	if (c->crawl.n_connect_to == 4) {
		CHECK_STR(c->crawl.connect_to[0], "::127.0.0.1:8080");
		CHECK_STR(c->crawl.connect_to[1], "a.test:80:[::1]:8081");
		CHECK_STR(c->crawl.connect_to[2], "[2001:db8::1]:443:b.test:");
		CHECK_STR(c->crawl.connect_to[3], ":::");
	}
	CHECK(c->normalize.profile == NORM_PROFILE_AGGRESSIVE);
	CHECK_STR(c->normalize.steps_list, "-sort_query, +lowercase_path");
	CHECK(c->normalize.steps ==
	      (norm_profile_steps(NORM_PROFILE_AGGRESSIVE) & ~NORM_SORT_QUERY));
	CHECK(c->dedup.signature == CONF_SIGNATURE_MD5_TEXT_SIZE);
	CHECK(c->dedup.near_duplicate == 3);
	CHECK(c->store.warc);
	CHECK(!c->store.search_index);
	CHECK(c->control.kind == CONF_LISTEN_TCP);
	CHECK_STR(c->control.listen, "tcp:127.0.0.1:7070");
	CHECK_STR(c->control.tcp_host, "127.0.0.1");
	CHECK(c->control.tcp_port == 7070);
	CHECK(c->control.unix_path == NULL);
	CHECK(c->n_categories == 2);
	if (c->n_categories == 2) {
		const struct conf_category *n = &c->categories[0];
		const struct conf_category *s = &c->categories[1];
		CHECK_STR(n->name, "news");
		CHECK_STR(n->seeds, "/abs/seeds.txt");
		CHECK(n->n_keywords == 3);
		if (n->n_keywords == 3) {
			CHECK_STR(n->keywords[0], "election");
			CHECK_STR(n->keywords[1], "vote");
			CHECK_STR(n->keywords[2], "c#");
		}
		CHECK(n->scope == CONF_SCOPE_DOMAIN);
		CHECK(n->min_relevance == 0.25);
		CHECK(n->tunnel == 100);
		CHECK(!n->predict && n->predict_min == 0.35);
		CHECK(n->samples);
		CHECK(n->min_harvest == 0.8);
		CHECK_STR(s->name, "sport");
		snprintf(want, sizeof(want), "%s/s/sport.txt", tmpdir);
		CHECK_STR(s->seeds, want);
		CHECK(s->n_keywords == 0);
		CHECK(s->scope == CONF_SCOPE_ANY);
		CHECK(s->min_relevance == 1.0);
		CHECK(s->tunnel == 0);
		CHECK(s->predict && s->predict_min == CONF_PREDICT_MIN);
		CHECK(!s->samples);
		CHECK(s->min_harvest == CONF_MIN_HARVEST);
		CHECK(conf_category_find(c, "sport") == s);
		CHECK(conf_category_find(c, "nope") == NULL);
	}
	conf_free(c);
}

static void test_values_accepted(void)
{
	static const char *const yes[] = { "yes", "YES", "true", "On", "1" };
	static const char *const no[] = { "no", "False", "OFF", "0" };
	char text[256];
	struct conf *c;

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		snprintf(text, sizeof(text), "[store]\nwarc = %s\n", yes[i]);
		c = LOAD_OK(text);
		CHECK(c && c->store.warc);
		conf_free(c);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		snprintf(text, sizeof(text), "[crawl]\nobey_robots = %s\n",
			 no[i]);
		c = LOAD_OK(text);
		CHECK(c && !c->crawl.obey_robots);
		conf_free(c);
	}

	/* listen forms */
	static const struct {
		const char *v, *host;
		unsigned port;
	} tcp[] = {
		{ "tcp:127.0.0.1:1", "127.0.0.1", 1 },
		{ "tcp:127.9.8.7:65535", "127.9.8.7", 65535 },
		{ "tcp:localhost:8000", "localhost", 8000 },
		{ "tcp:[::1]:9", "::1", 9 },
	};
	for (size_t i = 0; i < sizeof(tcp) / sizeof(tcp[0]); i++) {
		snprintf(text, sizeof(text), "[control]\nlisten = %s\n",
			 tcp[i].v);
		c = LOAD_OK(text);
		if (!c)
			continue;
		CHECK(c->control.kind == CONF_LISTEN_TCP);
		CHECK_STR(c->control.tcp_host, tcp[i].host);
		CHECK(c->control.tcp_port == tcp[i].port);
		CHECK_STR(c->control.listen, tcp[i].v);
		conf_free(c);
	}
	c = LOAD_OK("[control]\ndashboard = tcp:[::1]:8088\n");
	CHECK(c && c->control.dash_port == 8088 &&
	      strcmp(c->control.dash_host, "::1") == 0 &&
	      strcmp(c->control.dashboard, "tcp:[::1]:8088") == 0 &&
	      c->control.kind == CONF_LISTEN_UNIX);
	conf_free(c);
	c = LOAD_OK("[control]\nlisten = unix:run/ctl.sock\n");
	if (c) {
		char want[512];
		snprintf(want, sizeof(want), "%s/run/ctl.sock", tmpdir);
		CHECK(c->control.kind == CONF_LISTEN_UNIX);
		CHECK_STR(c->control.unix_path, want);
		snprintf(want, sizeof(want), "unix:%s/run/ctl.sock", tmpdir);
		CHECK_STR(c->control.listen, want);
		CHECK(c->control.tcp_host == NULL);
	}
	conf_free(c);

	/* fractions and near_duplicate */
	static const struct {
		const char *v;
		double d;
	} frac[] = { { "0", 0 },       { "0.0", 0 },       { ".5", 0.5 },
		     { "1.", 1 },      { "0.125", 0.125 }, { "1.000", 1 },
		     { "00.75", 0.75 } };
	for (size_t i = 0; i < sizeof(frac) / sizeof(frac[0]); i++) {
		snprintf(text, sizeof(text),
			 "[category c]\nmin_relevance = %s\n", frac[i].v);
		c = LOAD_OK(text);
		CHECK(c && c->categories[0].min_relevance == frac[i].d);
		conf_free(c);
	}
	c = LOAD_OK("[dedup]\nnear_duplicate = simhash:0\nsignature = off\n");
	CHECK(c && c->dedup.near_duplicate == 0 &&
	      c->dedup.signature == CONF_SIGNATURE_OFF);
	conf_free(c);
	c = LOAD_OK("[dedup]\nfollow_duplicate_links = no\n");
	CHECK(c && !c->dedup.follow_duplicate_links);
	conf_free(c);

	/* [adaptive]: the defaults, and values as given. */
	c = LOAD_OK("");
	CHECK(c && c->adaptive.min_support == 3 &&
	      c->adaptive.confidence == 0.95 &&
	      c->adaptive.audit_share == 0.03 && c->adaptive.transfer);
	conf_free(c);
	c = LOAD_OK("[adaptive]\nmin_support = 5\nconfidence = 0.99\n"
		    "audit_share = 0\ntransfer = no\n");
	CHECK(c && c->adaptive.min_support == 5 &&
	      c->adaptive.confidence == 0.99 &&
	      c->adaptive.audit_share == 0.0 && !c->adaptive.transfer);
	conf_free(c);

	/* Patterns: repeatable, in order, kept as written. */
	c = LOAD_OK("[category c]\ninclude = ^http://a\\.test/\n"
		    "include = /blog/\nexclude = \\?print=1\n");
	CHECK(c && c->n_categories == 1 && c->categories[0].n_include == 2 &&
	      c->categories[0].n_exclude == 1);
	if (c && c->n_categories == 1 && c->categories[0].n_include == 2) {
		CHECK_STR(c->categories[0].include[0], "^http://a\\.test/");
		CHECK_STR(c->categories[0].include[1], "/blog/");
		CHECK_STR(c->categories[0].exclude[0], "\\?print=1");
	}
	conf_free(c);

	/* [recrawl]: the defaults, and values as given. */
	c = LOAD_OK("");
	CHECK(c && !c->recrawl.enabled && c->recrawl.min_interval_s == 3600 &&
	      c->recrawl.max_interval_s == 30 * 86400 &&
	      c->recrawl.audit_share == 0.02);
	conf_free(c);
	c = LOAD_OK("[recrawl]\nenabled = yes\nmin_interval = 90\n"
		    "max_interval = 2w\naudit_share = 0\n");
	CHECK(c && c->recrawl.enabled && c->recrawl.min_interval_s == 90 &&
	      c->recrawl.max_interval_s == 14 * 86400 &&
	      c->recrawl.audit_share == 0.0);
	conf_free(c);
	c = LOAD_OK("[recrawl]\nmin_interval = 30m\nmax_interval = 30m\n");
	CHECK(c && c->recrawl.min_interval_s == 1800 &&
	      c->recrawl.max_interval_s == 1800);
	conf_free(c);
	c = LOAD_OK("[recrawl]\nmax_interval = 3650d\n");
	CHECK(c && c->recrawl.max_interval_s == 3650ull * 86400);
	conf_free(c);

	/* An empty steps list is no adjustment; the adaptive profile. */
	c = LOAD_OK("[normalize]\nprofile = adaptive\nsteps =\n");
	CHECK(c && c->normalize.profile == NORM_PROFILE_ADAPTIVE &&
	      c->normalize.steps == norm_profile_steps(NORM_PROFILE_ADAPTIVE));
	conf_free(c);

	/* Windows line ends, and no newline at the end of the file. */
	c = LOAD_OK("[crawl]\r\nmax_depth = 3\r\n[dedup]\r\nsignature = off");
	CHECK(c && c->crawl.max_depth == 3 &&
	      c->dedup.signature == CONF_SIGNATURE_OFF);
	conf_free(c);

	/* ';' inside a value is kept; " ;" starts a comment. */
	c = LOAD_OK("[crawl]\nuser_agent = a;b ;c\n");
	CHECK(c && strcmp(c->crawl.user_agent, "a;b") == 0);
	conf_free(c);

	/* Leading zeros are decimal, not octal. */
	c = LOAD_OK("[crawl]\nmax_depth = 010\n");
	CHECK(c && c->crawl.max_depth == 10);
	conf_free(c);
}

static void test_lines_and_bounds(void)
{
	static char text[4 * 1024 * 1024];
	int rc;
	struct conf *c;

	/* 197 bytes is the longest line; 198 is an error, not a cut. */
	char line[300];
	memset(line, 'a', sizeof(line));
	memcpy(line, "user_agent = ", 13);
	line[197] = '\0';
	snprintf(text, sizeof(text), "[crawl]\n%s\n", line);
	c = LOAD_OK(text);
	CHECK(c && strlen(c->crawl.user_agent) == 197 - 13);
	conf_free(c);
	line[197] = 'a';
	line[198] = '\0';
	snprintf(text, sizeof(text), "[crawl]\n%s\n", line);
	c = load(text, &rc);
	CHECK(!c && rc == SC_E_INVAL);
	CHECK_STR(err, "t.conf:2: line longer than 197 bytes");
	conf_free(c);

	/* A NUL byte, through the buffer entry point. */
	static const char nul[] = "[crawl]\nmax_depth = 1\0\n";
	c = NULL;
	rc = conf_load_buffer(nul, sizeof(nul) - 1, "mem.conf", &c, err,
			      sizeof(err));
	CHECK(rc == SC_E_INVAL && !c);
	CHECK_STR(err, "mem.conf:2: NUL byte in the line");
	rc = conf_load_buffer("[crawl]\nmax_depth = 2\n", 22, NULL, &c, err,
			      sizeof(err));
	CHECK(rc == 0 && c && c->crawl.max_depth == 2 && c->path == NULL);
	conf_free(c);
	c = NULL;
	rc = conf_load_buffer("[x]", 3, NULL, &c, err, sizeof(err));
	CHECK(rc == SC_E_INVAL);
	CHECK_STR(err, "<string>:1: [x]: unknown section (crawl, normalize, "
		       "dedup, store, adaptive, recrawl, category NAME, "
		       "control, cluster)");

	/* The file size limit: exactly CONF_FILE_MAX loads, one more not. */
	memset(text, '#', CONF_FILE_MAX + 1);
	for (size_t i = 99; i < CONF_FILE_MAX + 1; i += 100)
		text[i] = '\n';
	text[CONF_FILE_MAX] = '\0';
	c = LOAD_OK(text);
	conf_free(c);
	text[CONF_FILE_MAX] = '#';
	text[CONF_FILE_MAX + 1] = '\0';
	c = load(text, &rc);
	CHECK(!c && rc == SC_E_INVAL);
	CHECK_STR(err, "t.conf: larger than 1048576 bytes");

	/* CONF_CATEGORIES_MAX categories, then one more. */
	size_t n = 0;
	for (int i = 0; i < CONF_CATEGORIES_MAX; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "[category c%d]\nscope = any\n", i);
	c = LOAD_OK(text);
	CHECK(c && c->n_categories == CONF_CATEGORIES_MAX);
	conf_free(c);
	snprintf(text + n, sizeof(text) - n, "[category last]\n");
	c = load(text, &rc);
	CHECK(!c && rc == SC_E_INVAL);
	CHECK_STR(err, "t.conf:2049: [category last]: more than 1024 "
		       "categories");

	/* CONF_CONNECT_TO_MAX rules, then one more. */
	n = (size_t)snprintf(text, sizeof(text), "[crawl]\n");
	for (int i = 0; i < CONF_CONNECT_TO_MAX; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "connect_to = h%d::127.0.0.1:8080\n", i);
	c = LOAD_OK(text);
	CHECK(c && c->crawl.n_connect_to == CONF_CONNECT_TO_MAX);
	conf_free(c);
	snprintf(text + n, sizeof(text) - n, "connect_to = :::\n");
	c = load(text, &rc);
	CHECK(!c && rc == SC_E_INVAL);
	CHECK_STR(err, "t.conf:258: [crawl] connect_to: more than 256 rules");

	/* CONF_KEYWORDS_MAX keywords, then one more. */
	n = (size_t)snprintf(text, sizeof(text), "[category k]\nkeywords = ");
	for (int i = 0; i < CONF_KEYWORDS_MAX; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%c%c",
				      i ? "," : "", 'a' + i / 26, 'a' + i % 26);
	snprintf(text + n, sizeof(text) - n, "\n");
	c = LOAD_OK(text);
	CHECK(c && c->categories[0].n_keywords == CONF_KEYWORDS_MAX);
	conf_free(c);
	snprintf(text + n, sizeof(text) - n, ",zz\n");
	c = load(text, &rc);
	CHECK(!c && rc == SC_E_INVAL);
	CHECK_STR(err, "t.conf:2: [category k] keywords: more than 32 "
		       "keywords");

	/* A file that cannot be read. */
	c = NULL;
	rc = conf_load("missing.conf", &c, err, sizeof(err));
	CHECK(rc == SC_E_IO && !c);
	CHECK_STR(err, "missing.conf: No such file or directory");
}

static void test_relative_paths(void)
{
	char want[1024];
	mkdir("etc", 0700);
	write_file("etc/r.conf", "[crawl]\nstore = ../var/st\n"
				 "[category a]\nseeds = seeds/a.txt\n");
	struct conf *c = NULL;
	/* Relative to the file's directory, whatever the working dir. */
	CHECK(conf_load("etc/r.conf", &c, err, sizeof(err)) == 0);
	if (c) {
		snprintf(want, sizeof(want), "%s/etc/../var/st", tmpdir);
		CHECK_STR(c->crawl.store, want);
		snprintf(want, sizeof(want), "%s/etc/seeds/a.txt", tmpdir);
		CHECK_STR(c->categories[0].seeds, want);
		snprintf(want, sizeof(want), "%s/etc/r.conf", tmpdir);
		CHECK_STR(c->path, want);
	}
	conf_free(c);
	c = NULL;
	snprintf(want, sizeof(want), "%s/etc/r.conf", tmpdir);
	CHECK(conf_load(want, &c, err, sizeof(err)) == 0);
	if (c) {
		snprintf(want, sizeof(want), "%s/etc/seeds/a.txt", tmpdir);
		CHECK_STR(c->categories[0].seeds, want);
	}
	conf_free(c);
}

static void test_overrides(void)
{
	struct conf *c = LOAD_OK("[crawl]\nconnect_to = a:1:b:2\n"
				 "[normalize]\nprofile = strict\n"
				 "steps = +sort_query\n"
				 "[category news]\nseeds = n.txt\n");
	if (!c)
		return;
	char want[1024];

	CHECK(conf_override(c, "--max-pages", "50", err, sizeof(err)) == 0);
	CHECK(c->crawl.max_pages == 50);
	CHECK(conf_override(c, "max-depth", "2", err, sizeof(err)) == 0);
	CHECK(c->crawl.max_depth == 2);
	CHECK(conf_override(c, "concurrency", "8", err, sizeof(err)) == 0);
	CHECK(c->crawl.concurrency == 8);
	CHECK(conf_override(c, "user-agent", "X/1", err, sizeof(err)) == 0);
	CHECK_STR(c->crawl.user_agent, "X/1");
	CHECK(conf_override(c, "no-robots", NULL, err, sizeof(err)) == 0);
	CHECK(!c->crawl.obey_robots);
	CHECK(conf_override(c, "store", "st", err, sizeof(err)) == 0);
	snprintf(want, sizeof(want), "%s/st", tmpdir);
	CHECK_STR(c->crawl.store, want);

	/* connect-to appends to the file's rules. */
	CHECK(conf_override(c, "connect-to", "::127.0.0.1:9", err,
			    sizeof(err)) == 0);
	CHECK(c->crawl.n_connect_to == 2);
	if (c->crawl.n_connect_to == 2)
		CHECK_STR(c->crawl.connect_to[1], "::127.0.0.1:9");

	/* --profile keeps the file's steps list; --steps replaces it. */
	CHECK(conf_override(c, "profile", "extended", err, sizeof(err)) == 0);
	CHECK(c->normalize.steps == norm_profile_steps(NORM_PROFILE_EXTENDED));
	CHECK(conf_override(c, "steps", "+lowercase_path", err, sizeof(err)) ==
	      0);
	CHECK(c->normalize.steps == (norm_profile_steps(NORM_PROFILE_EXTENDED) |
				     NORM_LOWERCASE_PATH));

	/* The [dedup] and [store] overrides. */
	CHECK(c->dedup.follow_duplicate_links);
	CHECK(conf_override(c, "signature", "md5_text_size", err,
			    sizeof(err)) == 0);
	CHECK(c->dedup.signature == CONF_SIGNATURE_MD5_TEXT_SIZE);
	CHECK(conf_override(c, "near-duplicate", "simhash:2", err,
			    sizeof(err)) == 0);
	CHECK(c->dedup.near_duplicate == 2);
	CHECK(conf_override(c, "follow-duplicate-links", "no", err,
			    sizeof(err)) == 0);
	CHECK(!c->dedup.follow_duplicate_links);
	CHECK(conf_override(c, "warc", "yes", err, sizeof(err)) == 0);
	CHECK(c->store.warc);
	CHECK(conf_override(c, "search-index", "no", err, sizeof(err)) == 0);
	CHECK(!c->store.search_index);
	CHECK(conf_override(c, "search-index", "x", err, sizeof(err)) ==
	      SC_E_INVAL);
	CHECK(!c->store.search_index);
	CHECK(conf_override(c, "near-duplicate", "simhash:9", err,
			    sizeof(err)) == SC_E_INVAL);
	CHECK(c->dedup.near_duplicate == 2);

	/* Errors, in the file's words, and nothing changes. */
	CHECK(conf_override(c, "--max-pages", "lots", err, sizeof(err)) ==
	      SC_E_INVAL);
	CHECK_STR(err, "--max-pages: expected a whole number from 0 to "
		       "1000000000000, got \"lots\"");
	CHECK(c->crawl.max_pages == 50);
	CHECK(conf_override(c, "max-depth", NULL, err, sizeof(err)) ==
	      SC_E_INVAL);
	CHECK_STR(err, "--max-depth: needs a value");
	CHECK(conf_override(c, "profile", "loose", err, sizeof(err)) ==
	      SC_E_INVAL);
	CHECK_STR(err, "--profile: unknown profile \"loose\" (strict, "
		       "extended, aggressive or adaptive)");
	CHECK(c->normalize.profile == NORM_PROFILE_EXTENDED);
	CHECK(conf_override(c, "steps", "-bogus", err, sizeof(err)) ==
	      SC_E_INVAL);
	CHECK_STR(err, "--steps: unknown step \"bogus\"");
	CHECK_STR(c->normalize.steps_list, "+lowercase_path");
	CHECK(conf_override(c, "connect-to", "x", err, sizeof(err)) ==
	      SC_E_INVAL);
	CHECK_STR(err, "--connect-to: expected HOST1:PORT1:HOST2:PORT2 (any "
		       "field may be empty, ports 1..65535, IPv6 in "
		       "brackets), got \"x\"");
	CHECK(c->crawl.n_connect_to == 2);
	CHECK(conf_override(c, "concurrency", "0", err, sizeof(err)) ==
	      SC_E_INVAL);
	CHECK_STR(err, "--concurrency: expected auto or a whole number from "
		       "1 to 65535, got \"0\"");
	CHECK(conf_override(c, "concurrency", "auto", err, sizeof(err)) == 0);
	CHECK(c->crawl.concurrency == 0);
	CHECK(conf_override(c, "concurrency", "AUTO", err, sizeof(err)) == 0);
	CHECK(c->crawl.concurrency == 0);
	CHECK(conf_override(c, "user-agent", "", err, sizeof(err)) ==
	      SC_E_INVAL);
	CHECK_STR(err, "--user-agent: empty value");
	CHECK(conf_override(c, "store", "", err, sizeof(err)) == SC_E_INVAL);
	CHECK_STR(err, "--store: empty path");
	CHECK(conf_override(c, "frob", "1", err, sizeof(err)) == SC_E_INVAL);
	CHECK_STR(err, "--frob: not an option that overrides the config");
	/* A config key with no command-line option. */
	CHECK(conf_override(c, "listen", "tcp:127.0.0.1:9", err, sizeof(err)) ==
	      SC_E_INVAL);
	/* The crawl's own tuning options do override. */
	CHECK(conf_override(c, "timeout-s", "7", err, sizeof(err)) == 0);
	CHECK(c->crawl.timeout_s == 7);
	CHECK(conf_override(c, "per-host-delay-ms", "0", err, sizeof(err)) ==
	      0);
	CHECK(c->crawl.per_host_delay_ms == 0);
	CHECK(conf_override(c, "per-host-connections", "0", err, sizeof(err)) ==
	      SC_E_INVAL);
	CHECK(conf_override(c, "--max-pages-per-host", "25", err,
			    sizeof(err)) == 0);
	CHECK(c->crawl.max_pages_per_host == 25);
	CHECK(conf_override(c, "max-pages-per-host", "x", err, sizeof(err)) ==
	      SC_E_INVAL);
	CHECK_STR(err, "--max-pages-per-host: expected a whole number from 0 "
		       "to 1000000000000, got \"x\"");
	CHECK(c->crawl.max_pages_per_host == 25);
	/* The retry schedule is the config's only. */
	CHECK(conf_override(c, "host-retries", "1", err, sizeof(err)) ==
	      SC_E_INVAL);
	CHECK(c->crawl.host_retries == 3);

	/* --seeds: the only category; the line of the file's seeds is
	 * forgotten, since the option set them. */
	CHECK(c->categories[0].seeds_line == 7);
	CHECK(conf_override_seeds(c, NULL, "a.txt", err, sizeof(err)) == 0);
	snprintf(want, sizeof(want), "%s/a.txt", tmpdir);
	CHECK_STR(c->categories[0].seeds, want);
	CHECK(c->categories[0].seeds_line == 0);
	/* A name that is no section of the config is refused, as `submit`
	 * refuses it: a typo would crawl unfocused, anywhere. */
	CHECK(conf_override_seeds(c, "sport", "/s.txt", err, sizeof(err)) ==
	      SC_E_INVAL);
	CHECK_STR(err, "--category: unknown category 'sport' (the config has "
		       "news; add a [category sport] section for a new one)");
	CHECK(c->n_categories == 1);
	CHECK_STR(c->categories[0].seeds, want);
	/* "-" is standard input, kept as it is. */
	CHECK(conf_override_seeds(c, "news", "-", err, sizeof(err)) == 0);
	CHECK_STR(c->categories[0].seeds, "-");
	CHECK(conf_override_seeds(c, "a b", "b.txt", err, sizeof(err)) ==
	      SC_E_INVAL);
	CHECK_STR(err, "--category: a category name has 1 to 40 letters, "
		       "digits, '.', '_' or '-'");
	CHECK(conf_override_seeds(c, "news", "", err, sizeof(err)) ==
	      SC_E_INVAL);
	CHECK_STR(err, "--seeds: empty path");
	CHECK_STR(c->categories[0].seeds, "-");
	conf_free(c);

	/* Several categories: --seeds must say which. */
	/* A topic crosses hosts: keywords without a scope mean any; without
	 * keywords, or with a scope said, as said (host by default). */
	c = LOAD_OK("[category k]\nkeywords = comet\n"
		    "[category ks]\nkeywords = comet\nscope = host\n"
		    "[category n]\n");
	if (c && c->n_categories == 3) {
		CHECK(c->categories[0].scope == CONF_SCOPE_ANY);
		CHECK(c->categories[1].scope == CONF_SCOPE_HOST);
		CHECK(c->categories[2].scope == CONF_SCOPE_HOST);
	}
	conf_free(c);

	/* The prediction prunes from tunnel 1 on: keywords that predict
	 * links and no tunnel mean 1; without keywords, without the
	 * prediction, or with a tunnel said, as said (0 by default). */
	c = LOAD_OK("[category k]\nkeywords = comet\n"
		    "[category k0]\nkeywords = comet\ntunnel = 0\n"
		    "[category k2]\nkeywords = comet\ntunnel = 2\n"
		    "[category kp]\nkeywords = comet\npredict = off\n"
		    "[category n]\n");
	if (c && c->n_categories == 5) {
		CHECK(c->categories[0].tunnel == 1);
		CHECK(c->categories[1].tunnel == 0);
		CHECK(c->categories[2].tunnel == 2);
		CHECK(c->categories[3].tunnel == 0);
		CHECK(c->categories[4].tunnel == 0);
	}
	conf_free(c);

	c = LOAD_OK("[category news]\n[category sport]\n[category a1]\n"
		    "[category a2]\n[category a3]\n[category a4]\n"
		    "[category a5]\n");
	if (c) {
		CHECK(conf_override_seeds(c, NULL, "b.txt", err, sizeof(err)) ==
		      SC_E_INVAL);
		CHECK_STR(err, "--seeds: the config has 7 categories; say "
			       "which with --category NAME");
		CHECK(conf_override_seeds(c, "sport", "/s.txt", err,
					  sizeof(err)) == 0);
		const struct conf_category *s = conf_category_find(c, "sport");
		CHECK(s && strcmp(s->seeds, "/s.txt") == 0 &&
		      s->scope == CONF_SCOPE_HOST);
		/* The names in the refusal stop after a few. */
		CHECK(conf_override_seeds(c, "spot", "/s.txt", err,
					  sizeof(err)) == SC_E_INVAL);
		CHECK_STR(err, "--category: unknown category 'spot' (the "
			       "config has news, sport, a1, a2, a3, ...; add a "
			       "[category spot] section for a new one)");
		CHECK(c->n_categories == 7);
	}
	conf_free(c);

	/* With no category at all, --seeds makes one named "default", or
	 * the one --category names: there is nothing to mistype. */
	c = NULL;
	CHECK(conf_default(&c) == 0);
	if (c) {
		CHECK(conf_override_seeds(c, NULL, "/x", err, sizeof(err)) ==
		      0);
		CHECK(c->n_categories == 1 &&
		      strcmp(c->categories[0].name, "default") == 0);
	}
	conf_free(c);
	c = NULL;
	CHECK(conf_default(&c) == 0);
	if (c) {
		CHECK(conf_override_seeds(c, "sport", "/x", err, sizeof(err)) ==
		      0);
		/* A category no section configured is not focused. */
		CHECK(c->n_categories == 1 &&
		      strcmp(c->categories[0].name, "sport") == 0 &&
		      c->categories[0].scope == CONF_SCOPE_ANY &&
		      c->categories[0].n_keywords == 0);
	}
	conf_free(c);
}

/* conf_check_seeds(): every seed list must be readable, and a failure
 * names the file's line or the option. */
static void test_check_seeds(void)
{
	char want[2048];
	int rc;
	struct conf *c = LOAD_OK("[crawl]\n[category news]\nkeywords = x\n"
				 "seeds = gone.txt\n[category b]\n");
	if (!c)
		return;
	CHECK(conf_check_seeds(c, err, sizeof(err)) == SC_E_INVAL);
	snprintf(want, sizeof(want),
		 "%s/t.conf:4: [category news] seeds: cannot read "
		 "%s/gone.txt: No such file or directory",
		 tmpdir, tmpdir);
	CHECK_STR(err, want);
	write_file("gone.txt", "http://a.test/\n");
	CHECK(conf_check_seeds(c, err, sizeof(err)) == 0);
	CHECK_STR(err, "");
	unlink("gone.txt");
	conf_free(c);

	/* A directory opens, but cannot be read. */
	CHECK(mkdir("sd", 0700) == 0);
	c = load("[category d]\nseeds = sd\n", &rc);
	CHECK(c != NULL);
	if (c) {
		CHECK(conf_check_seeds(c, err, sizeof(err)) == SC_E_INVAL);
		snprintf(want, sizeof(want),
			 "%s/t.conf:2: [category d] seeds: cannot read %s/sd: "
			 "Is a directory",
			 tmpdir, tmpdir);
		CHECK_STR(err, want);
		/* --seeds: the message names the option. */
		CHECK(conf_override_seeds(c, NULL, "nothere", err,
					  sizeof(err)) == 0);
		CHECK(conf_check_seeds(c, err, sizeof(err)) == SC_E_INVAL);
		snprintf(want, sizeof(want),
			 "--seeds: cannot read %s/nothere: No such file or "
			 "directory",
			 tmpdir);
		CHECK_STR(err, want);
		/* Standard input is not checked. */
		CHECK(conf_override_seeds(c, NULL, "-", err, sizeof(err)) == 0);
		CHECK(conf_check_seeds(c, err, sizeof(err)) == 0);
	}
	conf_free(c);
	rmdir("sd");

	/* No category, or none with seeds: nothing to check. */
	c = NULL;
	CHECK(conf_default(&c) == 0);
	if (c)
		CHECK(conf_check_seeds(c, err, sizeof(err)) == 0);
	conf_free(c);
}

static void test_shipped(const char *srcroot)
{
	char path[1100];
	struct conf *c = NULL;
	snprintf(path, sizeof(path), "%s/packaging/sigcrawl.conf", srcroot);
	int rc = conf_load(path, &c, err, sizeof(err));
	CHECK(rc == 0);
	if (rc) {
		fprintf(stderr, "shipped config: %s\n", err);
		return;
	}
	/* Every key shown in it is at its default... */
	const char *cat_seeds = NULL;
	const struct conf_category *demo = conf_category_find(c, "demo");
	CHECK(demo != NULL);
	if (demo) {
		cat_seeds = demo->seeds;
		CHECK(demo->n_keywords > 0);
		/* Not the default: the demo's four hosts share one
		 * registrable domain. */
		CHECK(demo->scope == CONF_SCOPE_DOMAIN);
	}
	/* The demo web's hosts, and only they, go to the demo server. */
	CHECK(c->crawl.n_connect_to == 4);
	for (size_t i = 0; i < c->crawl.n_connect_to; i++) {
		const char *r = c->crawl.connect_to[i];
		const char *tail = ".demo.sigcrawl.test:80:127.0.0.1:8391";
		size_t rl = strlen(r), tl = strlen(tail);
		CHECK(strcmp(r, "demo.sigcrawl.test:80:127.0.0.1:8391") == 0 ||
		      (rl > tl && strcmp(r + rl - tl, tail) == 0));
	}
	size_t n = c->n_categories, nc = c->crawl.n_connect_to;
	c->n_categories = 0; /* check_defaults expects none */
	c->crawl.n_connect_to = 0;
	check_defaults(c);
	c->n_categories = n;
	c->crawl.n_connect_to = nc;
	/* ...and the demo's seed list resolves next to the file. */
	struct stat st;
	CHECK(cat_seeds && stat(cat_seeds, &st) == 0 && S_ISREG(st.st_mode));
	conf_free(c);
}

/* [cluster]: good values, with what they keep. */
static void test_cluster(void)
{
	struct conf *c = LOAD_OK("[cluster]\nnats = nats://127.0.0.1:4222\n");
	if (c) {
		CHECK(c->cluster.enabled);
		CHECK(c->cluster.n_nats == 1);
		CHECK_STR(c->cluster.nats[0], "nats://127.0.0.1:4222");
		CHECK(c->cluster.shards == 1 && c->cluster.shard == 0);
	}
	conf_free(c);

	/* Any order of the keys; blanks around commas are dropped; names,
	 * IPv6 literals, the scheme in capitals, the port bounds. */
	c = LOAD_OK("[cluster]\nshard = 1023\nshards = 1024\n"
		    "nats = nats://n1.example:4222 ,NATS://[::1]:65535,"
		    "  nats://10.0.0.3:1\n");
	if (c) {
		CHECK(c->cluster.enabled);
		CHECK(c->cluster.shards == 1024);
		CHECK(c->cluster.shard == 1023);
		CHECK(c->cluster.n_nats == 3);
		if (c->cluster.n_nats == 3) {
			CHECK_STR(c->cluster.nats[0], "nats://n1.example:4222");
			CHECK_STR(c->cluster.nats[1], "NATS://[::1]:65535");
			CHECK_STR(c->cluster.nats[2], "nats://10.0.0.3:1");
		}
	}
	conf_free(c);

	/* Exactly 16 servers is the bound, not past it. */
	c = LOAD_OK("[cluster]\nnats = nats://1:1,nats://2:1,nats://3:1,"
		    "nats://4:1,nats://5:1,nats://6:1,nats://7:1,nats://8:1,"
		    "nats://9:1,nats://10:1,nats://11:1,nats://12:1,"
		    "nats://13:1,nats://14:1,nats://15:1,nats://16:1\n"
		    "shards = 3\nshard = 2\n");
	if (c) {
		CHECK(c->cluster.n_nats == CONF_NATS_SERVERS_MAX);
		CHECK(c->cluster.shards == 3 && c->cluster.shard == 2);
	}
	conf_free(c);

	/* Other sections leave it off. */
	c = LOAD_OK("[crawl]\nmax_depth = 2\n");
	if (c)
		CHECK(!c->cluster.enabled && c->cluster.n_nats == 0);
	conf_free(c);
}

static void cleanup(void)
{
	static const char *const files[] = { "t.conf", "etc/r.conf",
					     "gone.txt" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlink(files[i]);
	rmdir("etc");
	rmdir("sd");
	if (chdir("/") == 0)
		rmdir(tmpdir);
}

/* The category-name rule that the config, the options and the control API
 * share: 1..CONF_CATEGORY_NAME_MAX plain token bytes. */
static void test_category_names(void)
{
	char longest[CONF_CATEGORY_NAME_MAX + 2];
	memset(longest, 'a', sizeof(longest));
	CHECK(conf_category_name_ok("web.News_2-x", 12));
	CHECK(conf_category_name_ok(longest, CONF_CATEGORY_NAME_MAX));
	CHECK(!conf_category_name_ok(longest, CONF_CATEGORY_NAME_MAX + 1));
	CHECK(!conf_category_name_ok("", 0));
	CHECK(!conf_category_name_ok("a b", 3));
	CHECK(!conf_category_name_ok("caf\xc3\xa9", 5));
}

int main(int argc, char **argv)
{
	char srcroot[1024];
	if (argc != 2 || !realpath(argv[1], srcroot)) {
		fprintf(stderr, "usage: test-conf SRCROOT\n");
		return 2;
	}
	if (!mkdtemp(tmpdir) || chdir(tmpdir) != 0) {
		perror(tmpdir);
		return 1;
	}
	test_defaults();
	test_bad_values();
	test_every_key();
	test_host_keys_low();
	test_values_accepted();
	test_lines_and_bounds();
	test_relative_paths();
	test_overrides();
	test_check_seeds();
	test_shipped(srcroot);
	test_category_names();
	test_cluster();
	cleanup();
	return check_done();
}
