/* conf.h — the sigcrawl config file (SPEC §3), read once into one struct.
 *
 * conf_load() reads an INI file with inih, fills in the defaults and checks
 * every value; the result is a struct conf that nobody changes once it is
 * shared.  A reload builds a new struct and the daemon swaps it in only if
 * conf_load() succeeded, so a bad edit never half-applies.  Command-line
 * options are applied with conf_override() between the load and the first
 * use, through the same checks as the file's keys.
 *
 * Errors name their place the way a compiler does:
 *
 *     FILE:LINE: [section] key: message
 *     --option: message              (conf_override)
 *
 * Decisions a user can see:
 *  - Unknown sections, unknown keys, bad values and a key given twice in one
 *    section are errors.  Only `connect_to` may repeat (each adds a rule).
 *  - Every path in the struct is absolute.  A relative path in the file
 *    (store, seeds, a unix: control socket) resolves against the directory
 *    of the config file, so the file means the same whatever the working
 *    directory; a relative path given on the command line resolves against
 *    the working directory, as users expect of an option.
 *  - Lines start without white space: leading blanks are ignored, so there
 *    are no continuation lines.  A line may hold at most CONF_LINE_MAX bytes
 *    (the line buffer of Debian's inih); a longer one is an error, never
 *    cut silently.
 *  - Bounds: CONF_FILE_MAX bytes of file, CONF_CATEGORIES_MAX categories,
 *    CONF_KEYWORDS_MAX keywords per category, CONF_CONNECT_TO_MAX rules.
 */
#ifndef CONF_H
#define CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "normalize.h"
#include "sc.h"

#define CONF_FILE_MAX (1024 * 1024)
/* inih (Debian 12, r55) reads lines into a 200-byte buffer that must also
 * hold "\r\n" and the NUL. */
#define CONF_LINE_MAX 197
/* inih keeps at most 49 bytes of a section name: "category " and 40. */
#define CONF_CATEGORY_NAME_MAX 40
#define CONF_CATEGORIES_MAX 1024
#define CONF_KEYWORDS_MAX 32
#define CONF_CONNECT_TO_MAX 256
/* [cluster]: at most this many servers in `nats`, each URL at most
 * CONF_NATS_URL_MAX bytes, and at most CONF_SHARDS_MAX shards. */
#define CONF_NATS_SERVERS_MAX 16
#define CONF_NATS_URL_MAX 128
#define CONF_SHARDS_MAX 1024

/* Defaults of the keys that have one (SPEC §3). */
#define CONF_DEFAULT_STORE "/var/lib/sigcrawl"
#define CONF_DEFAULT_LISTEN "unix:/run/sigcrawl/control.sock"

enum conf_signature {
	CONF_SIGNATURE_MD5_TEXT,      /* "md5_text" (the default) */
	CONF_SIGNATURE_MD5_TEXT_SIZE, /* "md5_text_size" */
	CONF_SIGNATURE_OFF,           /* "off" */
};

enum conf_scope {
	CONF_SCOPE_HOST,   /* "host" (the default): the seed's host only */
	CONF_SCOPE_DOMAIN, /* "domain": the seed's registrable domain */
	CONF_SCOPE_ANY,    /* "any" */
};

enum conf_listen_kind {
	CONF_LISTEN_UNIX,
	CONF_LISTEN_TCP,
};

/* One [category NAME] section. */
struct conf_category {
	char *name;          /* non-empty, [A-Za-z0-9._-], unique */
	char *seeds;         /* absolute path of a seed list, "-" for
			      * standard input (--seeds - only), or NULL */
	unsigned seeds_line; /* the line of `seeds` in the file; 0 when
			      * --seeds set it (conf_override_seeds()) */
	char **keywords;     /* trimmed, ASCII lower-cased, no repeats */
	size_t n_keywords;   /* 0 when the key is absent */
	/* Default CONF_SCOPE_ANY when the section has keywords (a topic
	 * crosses hosts), else CONF_SCOPE_HOST. */
	enum conf_scope scope;
	bool scope_set;       /* the section names a scope */
	double min_relevance; /* 0.0..1.0, default 0.0 */
	/* 0..CONF_TUNNEL_MAX; default 1 when the section has keywords and
	 * predicts links (the prediction prunes from tunnel 1 on: tunnel 0
	 * follows every link of an on-topic page), else 0. */
	unsigned tunnel;
	bool tunnel_set; /* the section names a tunnel */
	/* Link prediction (docs/focus.md): on by default; a link predicted
	 * on topic with a probability under predict_min is not queued. */
	bool predict;       /* default true */
	double predict_min; /* 0.0..1.0, default CONF_PREDICT_MIN */
	/* Samples of the links the prediction pruned (docs/focus.md
	 * "Samples of the pruned"): off by default. */
	bool samples;
	/* The harvest floor (docs/focus.md "Harvest floor"): the least
	 * running harvest the crawl keeps while it explores the links it
	 * pruned; 0.0..1.0, default CONF_MIN_HARVEST (used with keywords
	 * only; 1 explores nothing). */
	double min_harvest;
	/* URL patterns (POSIX extended regular expressions, as written;
	 * repeatable keys): a new URL of the category is queued only if it
	 * matches one of include (when there is any) and none of exclude. */
	char **include, **exclude;
	size_t n_include, n_exclude;
};
#define CONF_TUNNEL_MAX 100
#define CONF_PREDICT_MIN 0.7
#define CONF_MIN_HARVEST 0.9
#define CONF_PATTERNS_MAX 64
#define CONF_PATTERN_MAX 1024

/* The whole config.  Every string and array is owned by the struct and
 * lives until conf_free().  Treat it as const once it is shared. */
struct conf {
	char *path; /* the file it was read from, or NULL (conf_default) */

	struct {
		char *store;          /* absolute directory */
		unsigned max_depth;   /* 0..1000, default 9 */
		uint64_t max_pages;   /* 0 = no limit */
		unsigned concurrency; /* 1..65535, or 0: auto (the default) */
		unsigned per_host_connections; /* 1..1024, default 2 */
		unsigned per_host_delay_ms;    /* 0..3600000, default 1000 */
		unsigned timeout_s;            /* 1..3600, default 30 */
		uint64_t max_body_bytes;       /* 1..1 GiB, default 10 MiB */
		char *user_agent;              /* default "sigcrawl/VERSION" */
		bool obey_robots;              /* default true */
		/* Fetches a host may have (records fetched, over every run
		 * of the store); 0..10^12, default 0 = no limit.  SPEC §8's
		 * spider-trap bound. */
		uint64_t max_pages_per_host;
		/* A host that cannot be reached (its robots.txt, or a
		 * connection to it, fails) is held host_backoff_ms, then
		 * twice as long after each further failure (at most an
		 * hour), and tried again: `crawl` gives it up after
		 * host_retries more tries, `serve` never does. */
		unsigned host_retries;    /* 0..100, default 3 */
		unsigned host_backoff_ms; /* 100..3600000, default 10000 */
		/* HOST1:PORT1:HOST2:PORT2 rules as written, in order; they go
		 * to CURLOPT_CONNECT_TO unchanged. */
		char **connect_to;
		size_t n_connect_to;
		/* A proxy for every fetch (libcurl's syntax:
		 * [SCHEME://]HOST[:PORT], scheme http, https, socks4,
		 * socks4a, socks5 or socks5h), or NULL. */
		char *proxy;
		/* Extra request headers, "Name: value" as written
		 * (repeatable), sent with every fetch. */
		char **headers;
		size_t n_headers;
		/* A cookie jar: cookies are kept for the crawl (shared by
		 * all its fetches), read from this file at the start if it
		 * exists, written back at the end (Netscape format).  An
		 * absolute path, or NULL: no cookies. */
		char *cookie_jar;
		/* TLS for crawling behind one's own CA: ca_file (PEM
		 * certificates to trust, in place of libcurl's bundle),
		 * ca_path (a directory of them, c_rehash'ed), client_cert and
		 * client_key (PEM, for servers that ask for a client
		 * certificate).  Absolute paths, or NULL: libcurl's
		 * defaults. */
		char *ca_file, *ca_path, *client_cert, *client_key;
		/* A password in a URL's userinfo is never stored, exported
		 * or logged (it is recorded "user:***@").  false (mask, the
		 * default): such URLs are fetched without their userinfo.
		 * true (use): the passwords found in seeds and links are
		 * kept in memory for the run and sent with the fetches of
		 * their scheme, user, host and port. */
		bool url_credentials_use;
	} crawl;

	struct {
		enum norm_profile profile; /* default NORM_PROFILE_EXTENDED */
		char *steps_list;          /* the `steps` text, or NULL */
		uint32_t steps;            /* profile adjusted by steps_list */
	} normalize;

	struct {
		enum conf_signature signature;
		int near_duplicate; /* -1 = off (the default), else K in 0..3 */
		/* Are a duplicate's links queued?  Default true: relative links
		 * resolve differently on /a and /a/index.html. */
		bool follow_duplicate_links;
	} dedup;

	/* [adaptive]: when a learned rule applies (SPEC §7,
	 * crawler/learn/adapt.c). A rule needs min_support independent
	 * supporting pairs, no counter-example, and a Wilson lower bound on its
	 * precision, at this one-sided confidence, above one half; audit_share
	 * of the URLs it holds back are fetched all the same.  transfer: a rule
	 * of a kind that holds on other hosts needs one supporting document. */
	struct {
		unsigned min_support; /* 1..1000, default 3 */
		double confidence;    /* 0.5..<1, default 0.95 */
		double audit_share;   /* 0..1, default 0.03 */
		bool transfer;        /* default yes */
		/* A rule is refuted or retired when the Wilson upper bound
		 * of its precision falls below this (0.5..1, default 0.95);
		 * each active rule is audited at least once per audit_every
		 * keys it holds URLs onto (1..100000, default 32). */
		double retire_below;
		unsigned audit_every;
		/* A URL shape of a host whose sampled pages all said noindex
		 * and nofollow is skipped, audited at audit_share (default
		 * yes; crawler/learn/adapt-skip.c). */
		bool skip_noindex_nofollow;
	} adaptive;

	/* [recrawl]: revisits of the fetched representatives (SPEC §7,
	 * docs/recrawl.md).  serve revisits continuously when enabled;
	 * crawl --recrawl revisits once whatever this says.  A page's
	 * interval adapts between min_interval_s and max_interval_s;
	 * audit_share of the duplicates due are fetched all the same. */
	struct {
		bool enabled;            /* default false */
		uint64_t min_interval_s; /* 1 s..10 years, default 1 h */
		uint64_t max_interval_s; /* >= min, default 30 d */
		double audit_share;      /* 0..1, default 0.02 */
	} recrawl;

	struct {
		bool warc; /* default false */
		/* Keep STORE/search.sqlite, the full-text index of the pages'
		 * text, up to date as pages are stored.  Default true. */
		bool search_index;
		/* max_size: the ceiling of the LMDB data file, bytes (a K, M,
		 * G or T suffix in the file), 1 MiB..1 PiB; default 64 GiB
		 * (1 GiB on 32-bit systems).  The map starts smaller and
		 * doubles up to it; at it, the crawl stops as on a full disk
		 * (docs/daemon.md). */
		uint64_t max_size;
	} store;

	struct {
		char *listen; /* as written, unix: path made absolute */
		enum conf_listen_kind kind;
		char *unix_path; /* CONF_LISTEN_UNIX: absolute socket path */
		char *tcp_host;  /* CONF_LISTEN_TCP: a loopback host, no [] */
		uint16_t tcp_port;
		/* dashboard = tcp:HOST:PORT: a second, read-only listener
		 * (GET only) for a browser; NULL: none.  dash_host is
		 * loopback, without []. */
		char *dashboard, *dash_host;
		uint16_t dash_port;
	} control;

	/* [cluster]: daemons sharing one crawl over NATS JetStream (SPEC §9,
	 * docs/cluster.md).  Absent (enabled false): one machine, and the
	 * other fields keep their defaults. */
	struct {
		bool enabled; /* the file has a [cluster] section */
		/* nats://HOST:PORT URLs as written, in order: 1 to
		 * CONF_NATS_SERVERS_MAX when enabled, none otherwise. */
		char **nats;
		size_t n_nats;
		unsigned shards; /* 1..CONF_SHARDS_MAX, default 1 */
		unsigned shard;  /* 0..shards-1, default 0: this daemon's */
	} cluster;

	struct conf_category *categories; /* in the order of the file */
	size_t n_categories;
};

/* Read the config file at path.  On success *ret is a new struct (free it
 * with conf_free()); on failure *ret is untouched and err (if errlen > 0)
 * holds one line "FILE:LINE: [section] key: message".
 * Returns 0, SC_E_INVAL (bad config), SC_E_IO (cannot read; errno kept)
 * or SC_E_NOMEM. */
SC_WUR int conf_load(const char *path, struct conf **ret, char *err,
		     size_t errlen);

/* Like conf_load() on the len bytes at text, which need not end in NUL.
 * name is used in messages and its directory for relative paths (NULL:
 * "<string>" and the working directory).  conf_load() reads the file and
 * calls this; the fuzzer calls it directly. */
SC_WUR int conf_load_buffer(const char *text, size_t len, const char *name,
			    struct conf **ret, char *err, size_t errlen);

/* A config with every default and no categories, as if from an empty
 * file.  Returns 0 or SC_E_NOMEM. */
SC_WUR int conf_default(struct conf **ret);

/* Apply one command-line option before the config is shared.  option is
 * the long option's name with or without its leading "--": "store",
 * "max-pages", "max-depth", "profile", "steps", "concurrency",
 * "connect-to" (appends a rule), "user-agent", "per-host-connections",
 * "per-host-delay-ms", "timeout-s", "max-body-bytes", "max-pages-per-host",
 * "no-robots" (value ignored, may be NULL).  A value is checked exactly like
 * the file's key; an error leaves c unchanged and writes "--option: message" to
 * err. Returns 0, SC_E_INVAL or SC_E_NOMEM. */
SC_WUR int conf_override(struct conf *c, const char *option, const char *value,
			 char *err, size_t errlen);

/* Apply --seeds FILE with an optional --category NAME: the category's
 * seeds become FILE (relative to the working directory; "-", standard
 * input, is kept as it is).  Without a name (NULL) the only category is
 * meant; with no category at all one named "default" is added; with
 * several it is an error.  A name must be one of the config's categories
 * (a typo would otherwise start an unfocused crawl that follows links
 * anywhere), except when the config has no category at all: then it names
 * the one category of the run, added with default settings but scope any,
 * as "default" would be.  Nothing is read here: conf_check_seeds() does.
 * Returns 0, SC_E_INVAL or SC_E_NOMEM; messages as conf_override(). */
SC_WUR int conf_override_seeds(struct conf *c, const char *category,
			       const char *seeds, char *err, size_t errlen);

/* Check that every category's seed list can be read, as a run will read
 * it (standard input, "-", is not checked).  A failure is written to err
 * as
 *
 *     FILE:LINE: [category NAME] seeds: cannot read PATH: reason
 *     --seeds: cannot read PATH: reason             (conf_override_seeds)
 *
 * Returns 0 or SC_E_INVAL. */
SC_WUR int conf_check_seeds(const struct conf *c, char *err, size_t errlen);

/* Whether the N bytes at S are a valid category name: 1 to
 * CONF_CATEGORY_NAME_MAX of A-Z a-z 0-9 . _ - (names appear in records, on
 * the command line and in the control protocol, so they are plain
 * tokens).  The one rule for the config file, the options and the control
 * API. */
bool conf_category_name_ok(const char *s, size_t n);

/* The category named name, or NULL.  Borrowed from c. */
const struct conf_category *conf_category_find(const struct conf *c,
					       const char *name);

/* Free c and everything it owns.  NULL is fine. */
void conf_free(struct conf *c);

/* Names of enum values as the file spells them (static strings). */
const char *conf_signature_name(enum conf_signature s);
const char *conf_scope_name(enum conf_scope s);
const char *conf_profile_name(enum norm_profile p);

#endif
