/* bench-search — query latency of the search index (store/search.c)
 * against a plain full scan of the same texts, in the same run.
 *
 *   bench-search [--pages N] [--queries Q] [--scans S] [--dir DIR]
 *
 * Builds a store's search index of N pages (default 20,000) through the
 * same API the crawler uses, in batches of 512 like the crawler's writer:
 * each page has a 6-word title and a body of 200..600 words drawn from a
 * vocabulary of 20,000 made-up words with a Zipf distribution (s = 1), so
 * word frequencies look like a natural language's, in 5 categories.
 * Then runs Q queries (default 300) of 1 or 2 words of middle frequency
 * (ranks 20..2000), every 3rd one in a category, LIMIT 10, through
 * search_query() (bm25, snippets, aliases), and the first S of them
 * (default 30) as a full scan: every page's title and body read from the
 * same SQLite file and searched with strcasestr() for every word, which is
 * what searching the store without an index costs.  Prints the median,
 * p95 and mean of both, the build time and the file size.  DIR (default a
 * new directory under /tmp) is removed at the end unless given. */
#include <getopt.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "search.h"

#define VOCAB 20000

static uint64_t rng_state = 0x5eed0bec5ull;

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static char words[VOCAB][16];
static double zipf_cdf[VOCAB];

/* Made-up words of 2..5 syllables, distinct by construction: the word's
 * rank is written in base 20 over consonant-vowel syllables. */
static void make_vocab(void)
{
	static const char cons[] = "bcdfghjklmnprstvwxyz";
	static const char vow[] = "aeiou";
	double sum = 0;
	for (int i = 0; i < VOCAB; i++) {
		char *w = words[i];
		int n = i, len = 0;
		do {
			w[len++] = cons[n % 20];
			w[len++] = vow[(n / 20 + i) % 5];
			n /= 20;
		} while (n);
		if (len < 4) {
			w[len++] = 'r';
			w[len++] = 'a';
		}
		w[len] = '\0';
		sum += 1.0 / (i + 1);
		zipf_cdf[i] = sum;
	}
	for (int i = 0; i < VOCAB; i++)
		zipf_cdf[i] /= sum;
}

static int zipf_word(void)
{
	double u = (double)(rng() >> 11) / 9007199254740992.0;
	int lo = 0, hi = VOCAB - 1;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (zipf_cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t append_words(char *buf, size_t len, int n)
{
	for (int i = 0; i < n; i++) {
		const char *w = words[zipf_word()];
		if (len)
			buf[len++] = ' ';
		size_t l = strlen(w);
		memcpy(buf + len, w, l);
		len += l;
	}
	buf[len] = '\0';
	return len;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void report(const char *name, double *v, int n, double hits)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += v[i];
	int p95 = (95 * n + 99) / 100 - 1;
	printf("%-11s %5d queries  median %9.3f ms  p95 %9.3f ms  mean "
	       "%9.3f ms  (%.1f hits/query)\n",
	       name, n, v[n / 2] * 1e3, v[p95 < 0 ? 0 : p95] * 1e3,
	       sum / n * 1e3, hits / n);
}

static int count_hit(void *arg, const struct search_hit *h)
{
	(*(unsigned *)arg)++;
	return 0;
}

/* The plain scan: every page read, every word looked for. */
static int scan(sqlite3 *db, char q[2][16], int nq, const char *cat,
		unsigned *hits)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT category, title, body FROM pages",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	*hits = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		const char *t = (const char *)sqlite3_column_text(st, 1);
		const char *b = (const char *)sqlite3_column_text(st, 2);
		if (cat && strcmp(c, cat) != 0)
			continue;
		bool all = true;
		for (int i = 0; i < nq && all; i++)
			all = strcasestr(t, q[i]) || strcasestr(b, q[i]);
		*hits += all;
	}
	sqlite3_finalize(st);
	return 0;
}

int main(int argc, char **argv)
{
	int pages = 20000, queries = 300, scans = 30;
	const char *dir = NULL;
	static const struct option lo[] = {
		{ "pages", required_argument, NULL, 'p' },
		{ "queries", required_argument, NULL, 'q' },
		{ "scans", required_argument, NULL, 's' },
		{ "dir", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p': pages = atoi(optarg); break;
		case 'q': queries = atoi(optarg); break;
		case 's': scans = atoi(optarg); break;
		case 'd': dir = optarg; break;
		default:
			fprintf(stderr,
				"usage: bench-search [--pages N] "
				"[--queries Q] [--scans S] [--dir D]\n");
			return 2;
		}
	}
	if (pages < 1 || queries < 1 || scans < 0 || scans > queries) {
		fprintf(stderr, "bench-search: bad numbers\n");
		return 2;
	}
	char tmpl[] = "/tmp/bench-search.XXXXXX";
	bool own = !dir;
	if (own && !(dir = mkdtemp(tmpl))) {
		perror("mkdtemp");
		return 1;
	}
	make_vocab();
	static const char *const cats[] = { "garden", "harbour", "library",
					    "market", "theatre" };
	struct search_index *s;
	int rc = search_open(dir, 0, &s);
	if (rc) {
		fprintf(stderr, "search_open: %s\n", sc_strerror(rc));
		return 1;
	}
	char *body = malloc(600 * 17 + 1), title[6 * 17 + 1], url[64];
	double t0 = now();
	uint64_t text_bytes = 0;
	for (int i = 0; i < pages && !rc; i += 512) {
		rc = search_begin(s);
		for (int k = i; k < i + 512 && k < pages && !rc; k++) {
			snprintf(url, sizeof(url), "http://h%d.test/p%d",
				 k % 97, k);
			size_t tl = append_words(title, 0, 6);
			size_t bl = append_words(body, 0,
						 200 + (int)(rng() % 401));
			text_bytes += bl;
			const char *cat = cats[k % 5];
			struct search_page p = { url,         strlen(url), cat,
						 strlen(cat), title,       tl,
						 body,        bl };
			rc = search_put_page(s, &p);
		}
		if (!rc)
			rc = search_commit(s);
	}
	if (!rc)
		rc = search_optimize(s);
	double build = now() - t0;
	if (rc) {
		fprintf(stderr, "indexing: %s (%s)\n", sc_strerror(rc),
			search_errmsg(s));
		return 1;
	}
	char path[512];
	snprintf(path, sizeof(path), "%s/" SEARCH_DB_NAME, dir);
	struct stat sb;
	stat(path, &sb);
	printf("index: %d pages, %.1f MB of body text, built in %.2f s "
	       "(%.0f pages/s), file %.1f MB\n",
	       pages, (double)text_bytes / 1e6, build, pages / build,
	       (double)sb.st_size / 1e6);

	sqlite3 *db;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		fprintf(stderr, "sqlite3_open_v2 failed\n");
		return 1;
	}
	double *fts = calloc((size_t)queries, sizeof(double));
	double *sc = calloc((size_t)(scans ? scans : 1), sizeof(double));
	double fts_hits = 0, scan_hits = 0;
	/* One scan before timing: both sides then read a warm page cache. */
	unsigned warm;
	char q[2][16];
	scan(db, q, 0, NULL, &warm);
	for (int i = 0; i < queries; i++) {
		int nq = 1 + (int)(rng() % 2);
		char text[40] = "";
		for (int k = 0; k < nq; k++) {
			snprintf(q[k], sizeof(q[k]), "%s",
				 words[20 + rng() % 1980]);
			strcat(text, k ? " " : "");
			strcat(text, q[k]);
		}
		const char *cat = i % 3 == 2 ? cats[rng() % 5] : NULL;
		unsigned hits = 0;
		double a = now();
		rc = search_query(s, text, cat, 10, count_hit, &hits);
		fts[i] = now() - a;
		fts_hits += hits;
		if (rc) {
			fprintf(stderr, "query: %s\n", sc_strerror(rc));
			return 1;
		}
		if (i < scans) {
			a = now();
			if (scan(db, q, nq, cat, &hits)) {
				fprintf(stderr, "scan failed\n");
				return 1;
			}
			sc[i] = now() - a;
			scan_hits += hits;
		}
	}
	report("fts5 bm25", fts, queries, fts_hits);
	if (scans)
		report("full scan", sc, scans, scan_hits);
	printf("(fts5: at most 10 ranked hits with snippets and aliases; "
	       "scan: every match counted, unranked)\n");
	sqlite3_close(db);
	search_close(s);
	free(body);
	free(fts);
	free(sc);
	if (own) {
		static const char *const f[] = { "", "-wal", "-shm" };
		for (int i = 0; i < 3; i++) {
			snprintf(path, sizeof(path), "%s/" SEARCH_DB_NAME "%s",
				 dir, f[i]);
			unlink(path);
		}
		rmdir(dir);
	}
	return 0;
}
