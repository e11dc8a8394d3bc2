/* cmd-search.c — `sigcrawl search`, keyword search over a store's pages,
 * and `sigcrawl index`, which reconciles the search index with the
 * records (docs/search.md). */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commands.h"
#include "search.h"
#include "store.h"

/* ---- search ------------------------------------------------------------- */

static void search_usage(FILE *f)
{
	fprintf(f,
		"usage: sigcrawl search [--store DIR | -c FILE] [--category C]\n"
		"                       [--limit N] [--json] WORDS...\n"
		"\n"
		"Searches the pages of a crawl for every one of WORDS, best first\n"
		"(bm25, the title weighted over the body).  Equivalent URLs (the\n"
		"same signature, or near-duplicates) are one hit that lists its\n"
		"aliases.  Words are literal: quotes, '-', ':' and operators are\n"
		"only text; a word ending in '*' matches as a prefix.  At most %d\n"
		"words, %d bytes.\n"
		"\n"
		"  -s, --store DIR     the store directory (default: the config's)\n"
		"  -c, --config FILE   take the store from this config file\n"
		"  -k, --category C    only pages crawled in category C\n"
		"  -n, --limit N       at most N hits (1..%d, default 10)\n"
		"  -j, --json          one JSON object per hit and line\n"
		"  -h, --help          this text\n"
		"\n"
		"Exit status: 0 success (also with no hit), 1 no index or it\n"
		"cannot be read, 2 bad usage.\n",
		SEARCH_WORDS_MAX, SEARCH_QUERY_MAX, SEARCH_LIMIT_MAX);
}

struct out {
	bool json;
	unsigned n;
	bool failed;
};

static int print_json(const struct search_hit *h, struct out *o)
{
	json_t *al = json_array();
	for (size_t i = 0; al && i < h->n_aliases; i++)
		if (json_array_append_new(
			    al, json_pack("{s:s, s:s}", "url",
					  h->aliases[i].url, "evidence",
					  search_evidence_name(
						  h->aliases[i].evidence))))
			break;
	json_t *v = al ? json_pack("{s:s, s:s, s:s, s:f, s:s, s:o}", "url",
				   h->url, "title", h->title, "category",
				   h->category, "score", h->score, "snippet",
				   h->snippet, "aliases", al)
		       : NULL;
	if (!v)
		return SC_E_NOMEM;
	char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(v);
	if (!s)
		return SC_E_NOMEM;
	int rc = puts(s) < 0 ? SC_E_IO : 0;
	free(s);
	return rc;
}

static int print_hit(void *arg, const struct search_hit *h)
{
	struct out *o = arg;
	o->n++;
	if (o->json)
		return print_json(h, o);
	printf("%u. %s\n   %s  [%s]\n", o->n, h->title[0] ? h->title : "-",
	       h->url, h->category);
	for (size_t i = 0; i < h->n_aliases; i++)
		printf("   alias %s (%s)\n", h->aliases[i].url,
		       search_evidence_name(h->aliases[i].evidence));
	printf("   %s\n\n", h->snippet);
	return ferror(stdout) ? SC_E_IO : 0;
}

/* The words, joined by single spaces; NULL when longer than the bound. */
static char *join_words(int n, char **w)
{
	size_t len = 0;
	for (int i = 0; i < n; i++) {
		len += strlen(w[i]) + 1;
		if (len > SEARCH_QUERY_MAX + 1)
			return NULL;
	}
	char *s = calloc(1, len + 1);
	for (int i = 0; s && i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, w[i]);
	}
	return s;
}

int cmd_search(int argc, char **argv)
{
	static const char CMD[] = "search";
	static const struct option longopts[] = {
		{ "store", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "category", required_argument, NULL, 'k' },
		{ "limit", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *config = NULL, *category = NULL;
	unsigned long limit = 10;
	struct out o = { 0 };
	int c;
	char *end;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:s:c:k:n:jh", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 's': dir = optarg; break;
		case 'c': config = optarg; break;
		case 'k': category = optarg; break;
		case 'n':
			errno = 0;
			limit = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || limit < 1 ||
			    limit > SEARCH_LIMIT_MAX || optarg[0] == '-') {
				sc_errorf(CMD,
					  "--limit: expected 1..%d, got '%s'",
					  SEARCH_LIMIT_MAX, optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j': o.json = true; break;
		case 'h': search_usage(stdout); return EXIT_OK;
		default:
			cmd_option_error(CMD, c, argv, longopts);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		sc_errorf(CMD, "no words to search for (see --help)");
		return EXIT_USAGE;
	}
	char *words = join_words(argc - optind, argv + optind);
	char q[SEARCH_FTS_QUERY_CAP];
	int rc = words ? search_make_query(words, q, sizeof(q)) : SC_E_LIMIT;
	if (rc) {
		free(words);
		if (rc == SC_E_LIMIT)
			sc_errorf(CMD,
				  "the query is too long (at most %d words, "
				  "%d bytes)",
				  SEARCH_WORDS_MAX, SEARCH_QUERY_MAX);
		else
			sc_errorf(CMD, "no word to search for: a word needs a "
				       "letter or a digit");
		return EXIT_USAGE;
	}
	char *store = NULL;
	int status = cmd_store_dir(CMD, dir, config, &store);
	if (status) {
		free(words);
		return status;
	}
	status = EXIT_RUNTIME;
	struct search_index *s = NULL;
	rc = search_open(store, SEARCH_RDONLY, &s);
	if (rc == SC_E_NOTFOUND) {
		sc_errorf(CMD,
			  "%s: no search index there (%s is written by "
			  "`sigcrawl crawl` with [store] search_index = yes)",
			  store, SEARCH_DB_NAME);
		goto out;
	} else if (rc) {
		sc_errorf(CMD, "%s/%s: %s", store, SEARCH_DB_NAME,
			  cmd_reason(rc));
		goto out;
	}
	rc = search_query(s, words, category, (unsigned)limit, print_hit, &o);
	if (rc == SC_E_IO) {
		sc_errorf(CMD, "writing stdout failed");
		goto out;
	} else if (rc) {
		sc_errorf(CMD, "%s/%s: %s (%s)", store, SEARCH_DB_NAME,
			  cmd_reason(rc), search_errmsg(s));
		goto out;
	}
	if (!o.json)
		printf("%u hit%s\n", o.n, o.n == 1 ? "" : "s");
	if (fflush(stdout) != 0 || ferror(stdout)) {
		sc_errorf(CMD, "writing stdout failed");
		goto out;
	}
	status = EXIT_OK;
out:
	search_close(s);
	free(store);
	free(words);
	return status;
}

/* ---- index -------------------------------------------------------------- */

static void index_usage(FILE *f)
{
	fprintf(f,
		"usage: sigcrawl index [--store DIR | -c FILE]\n"
		"\n"
		"Reconciles the search index (STORE/" SEARCH_DB_NAME
		") with the\n"
		"records: the aliases are rebuilt from every record's\n"
		"duplicate_of, pages without a committed record or recorded as\n"
		"duplicates are removed, FTS5's segments are merged, and the\n"
		"parsed pages that have no text in the index are counted.  The\n"
		"page text lives only in the index (the crawl writes it), so\n"
		"those cannot be indexed from the store: they are the pages that\n"
		"said noindex, and those crawled with search_index = no.  Holds\n"
		"the store's write lock meanwhile: a running crawl waits.\n"
		"\n"
		"  -s, --store DIR     the store directory (default: the config's)\n"
		"  -c, --config FILE   take the store from this config file\n"
		"  -h, --help          this text\n"
		"\n"
		"Exit status: 0 success, 1 the store or the index failed, 2 bad\n"
		"usage.\n");
}

struct reconcile {
	struct store *st;
	MDB_txn *txn;
	struct search_index *s;
	size_t aliases, removed, missing, expected;
	char first_missing[4][256];
};

/* Was the record's page parsed and not a duplicate: should it be indexed
 * (unless it said noindex)?  A parsed page has a signature or a SimHash
 * when they are on; an HTML type says it in any case. */
static bool indexable(const struct store_record *r)
{
	bool html = r->content_type &&
		    ((r->content_type_len >= 9 &&
		      strncasecmp(r->content_type, "text/html", 9) == 0) ||
		     (r->content_type_len >= 21 &&
		      strncasecmp(r->content_type, "application/xhtml+xml",
				  21) == 0));
	return r->fetched && r->status >= 200 && r->status < 300 &&
	       (r->has_signature || r->has_simhash || html) && !r->duplicate_of;
}

static int add_alias(void *arg, const struct store_record *r)
{
	struct reconcile *x = arg;
	if (!r->duplicate_of)
		return 0;
	/* The evidence: equal signatures, else it was a SimHash match. */
	unsigned char key[SC_KEY_LEN];
	struct store_record rep;
	enum search_evidence e = SEARCH_SAME_SIGNATURE;
	sc_url_key(r->duplicate_of, r->duplicate_of_len, key);
	if (store_get(x->st, x->txn, key, &rep) == 0 && r->has_signature &&
	    (!rep.has_signature ||
	     memcmp(rep.signature, r->signature, STORE_SIG_LEN) != 0))
		e = SEARCH_NEAR_DUPLICATE;
	x->aliases++;
	return search_put_alias(x->s, r->duplicate_of, r->duplicate_of_len,
				r->normalized, r->normalized_len, e);
}

static int check_page(void *arg, const char *url, size_t len)
{
	struct reconcile *x = arg;
	unsigned char key[SC_KEY_LEN];
	struct store_record r;
	sc_url_key(url, len, key);
	int rc = store_get(x->st, x->txn, key, &r);
	if (rc && rc != SC_E_NOTFOUND)
		return rc;
	if (rc == 0 && indexable(&r))
		return 0;
	x->removed++;
	return search_forget(x->s, url, len);
}

/* Records that should have a page row, and those that do not: one
 * query per record would be slow, so the index's URLs are read once. */
struct urlset {
	char **v;
	size_t n, cap;
};

static int collect_url(void *arg, const char *url, size_t len)
{
	struct urlset *u = arg;
	if (u->n == u->cap) {
		size_t cap = u->cap ? 2 * u->cap : 1024;
		char **v = realloc(u->v, cap * sizeof(*v));
		if (!v)
			return SC_E_NOMEM;
		u->v = v;
		u->cap = cap;
	}
	return (u->v[u->n++] = strndup(url, len)) ? 0 : SC_E_NOMEM;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct missing_ctx {
	struct reconcile *x;
	struct urlset *have;
};

static int count_missing(void *arg, const struct store_record *r)
{
	struct missing_ctx *m = arg;
	if (!indexable(r))
		return 0;
	m->x->expected++;
	char *u = strndup(r->normalized, r->normalized_len);
	if (!u)
		return SC_E_NOMEM;
	bool found = bsearch(&u, m->have->v, m->have->n, sizeof(char *),
			     cmp_str) != NULL;
	if (!found && m->x->missing < 4)
		snprintf(m->x->first_missing[m->x->missing], 256, "%s", u);
	m->x->missing += !found;
	free(u);
	return 0;
}

static int reconcile(struct reconcile *x)
{
	int rc = search_begin(x->s);
	if (!rc)
		rc = search_clear_aliases(x->s);
	if (!rc)
		rc = store_foreach(x->st, x->txn, add_alias, x);
	if (!rc)
		rc = search_foreach_page(x->s, check_page, x);
	if (!rc)
		rc = search_optimize(x->s);
	if (!rc)
		rc = search_commit(x->s);
	else
		search_rollback(x->s);
	if (rc)
		return rc;
	struct urlset have = { 0 };
	rc = search_foreach_page(x->s, collect_url, &have);
	if (!rc) {
		qsort(have.v, have.n, sizeof(char *), cmp_str);
		struct missing_ctx m = { x, &have };
		rc = store_foreach(x->st, x->txn, count_missing, &m);
	}
	for (size_t i = 0; i < have.n; i++)
		free(have.v[i]);
	free(have.v);
	return rc;
}

int cmd_index(int argc, char **argv)
{
	static const char CMD[] = "index";
	static const struct option longopts[] = {
		{ "store", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *config = NULL;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's': dir = optarg; break;
		case 'c': config = optarg; break;
		case 'h': index_usage(stdout); return EXIT_OK;
		default:
			cmd_option_error(CMD, c, argv, longopts);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		sc_errorf(CMD, "unexpected argument '%s' (see --help)",
			  argv[optind]);
		return EXIT_USAGE;
	}
	char *store = NULL;
	int status = cmd_store_dir(CMD, dir, config, &store);
	if (status)
		return status;
	status = EXIT_RUNTIME;
	MDB_env *env = NULL;
	struct reconcile x = { 0 };
	/* An existing store only: STORE_RDONLY checks that it is there, the
	 * second open takes it for writing. */
	int rc = store_env_open(store, STORE_RDONLY, &env);
	store_env_close(env);
	env = NULL;
	if (rc == SC_E_NOTFOUND) {
		sc_errorf(CMD, "%s: no store there", store);
		goto out;
	}
	if (!rc)
		rc = store_env_open(store, 0, &env);
	/* The write lock: no crawl commits a batch (SQLite first, then
	 * LMDB) while the index is compared with the records. */
	if (!rc && mdb_txn_begin(env, NULL, 0, &x.txn))
		rc = SC_E_DB;
	if (!rc)
		rc = store_open(env, x.txn, &x.st);
	if (rc) {
		sc_errorf(CMD, "%s: cannot open the store: %s", store,
			  cmd_reason(rc));
		goto out;
	}
	if ((rc = search_open(store, 0, &x.s))) {
		sc_errorf(CMD, "%s/%s: %s", store, SEARCH_DB_NAME,
			  cmd_reason(rc));
		goto out;
	}
	if ((rc = reconcile(&x))) {
		sc_errorf(CMD, "%s: %s (%s)", store, cmd_reason(rc),
			  search_errmsg(x.s));
		goto out;
	}
	size_t pages = 0, aliases = 0;
	if ((rc = search_count(x.s, &pages, &aliases))) {
		sc_errorf(CMD, "%s: %s", store, cmd_reason(rc));
		goto out;
	}
	printf("index %s/%s: %zu pages, %zu aliases\n", store, SEARCH_DB_NAME,
	       pages, aliases);
	printf("removed %zu pages without a record or recorded as "
	       "duplicates\n",
	       x.removed);
	printf("missing %zu of %zu parsed pages (noindex, or crawled with "
	       "search_index = no)\n",
	       x.missing, x.expected);
	for (size_t i = 0; i < x.missing && i < 4; i++)
		printf("  %s\n", x.first_missing[i]);
	status = EXIT_OK;
out:
	search_close(x.s);
	if (x.txn)
		mdb_txn_abort(x.txn);
	store_close(x.st);
	store_env_close(env);
	free(store);
	return status;
}
