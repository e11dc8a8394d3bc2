/* test-search.c — unit tests of store/'s full-text search index: pages
 * put, replaced and forgotten; aliases collapsing into their
 * representative's hit; the category filter; bm25 ranking with the title
 * weighted over the body, on crafted documents whose order is known
 * (bm25 also favours the shorter of two bodies with as many matches); and
 * hostile queries, which must never reach FTS5 as syntax. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "search.h"

static char tmpdir[] = "/tmp/test-search.XXXXXX";

static void cleanup(void)
{
	static const char *const files[] = { SEARCH_DB_NAME,
					     SEARCH_DB_NAME "-wal",
					     SEARCH_DB_NAME "-shm" };
	char p[512];
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/%s", tmpdir, files[i]);
		unlink(p);
	}
	rmdir(tmpdir);
}

static int put(struct search_index *s, const char *url, const char *cat,
	       const char *title, const char *text)
{
	struct search_page p = {
		url,   strlen(url),
		cat,   strlen(cat),
		title, title ? strlen(title) : 0,
		text,  text ? strlen(text) : 0,
	};
	return search_put_page(s, &p);
}

static int alias(struct search_index *s, const char *rep, const char *a,
		 enum search_evidence e)
{
	return search_put_alias(s, rep, strlen(rep), a, strlen(a), e);
}

/* The hits of a query, collected as "url{alias,alias}" joined by " ". */
struct got {
	char buf[4096];
	size_t n;
	char snippet[512];
	double scores[16];
};

static int collect(void *arg, const struct search_hit *h)
{
	struct got *g = arg;
	size_t len = strlen(g->buf);
	snprintf(g->buf + len, sizeof(g->buf) - len, "%s%s", len ? " " : "",
		 h->url);
	if (h->n_aliases) {
		len = strlen(g->buf);
		snprintf(g->buf + len, sizeof(g->buf) - len, "{");
		for (size_t i = 0; i < h->n_aliases; i++) {
			len = strlen(g->buf);
			snprintf(g->buf + len, sizeof(g->buf) - len, "%s%s:%s",
				 i ? "," : "", h->aliases[i].url,
				 search_evidence_name(h->aliases[i].evidence));
		}
		len = strlen(g->buf);
		snprintf(g->buf + len, sizeof(g->buf) - len, "}");
	}
	if (!g->n)
		snprintf(g->snippet, sizeof(g->snippet), "%s", h->snippet);
	if (g->n < 16)
		g->scores[g->n] = h->score;
	g->n++;
	return 0;
}

static const char *q(struct search_index *s, const char *words, const char *cat,
		     unsigned limit, struct got *g)
{
	memset(g, 0, sizeof(*g));
	int rc = search_query(s, words, cat, limit, collect, g);
	if (rc) {
		snprintf(g->buf, sizeof(g->buf), "error %d", rc);
		fprintf(stderr, "query '%.60s': %s (%s)\n", words,
			sc_strerror(rc), search_errmsg(s));
	}
	return g->buf;
}

static void test_make_query(void)
{
	char b[SEARCH_FTS_QUERY_CAP];
	CHECK(search_make_query("garden  meadow", b, sizeof(b)) == 0);
	CHECK_STR(b, "\"garden\" \"meadow\"");
	CHECK(search_make_query("a\"b", b, sizeof(b)) == 0);
	CHECK_STR(b, "\"a\"\"b\"");
	CHECK(search_make_query("gard*", b, sizeof(b)) == 0);
	CHECK_STR(b, "\"gard\" *");
	CHECK(search_make_query("NEAR(a b) OR title:x -y ^z", b, sizeof(b)) ==
	      0);
	CHECK_STR(b, "\"NEAR(a\" \"b)\" \"OR\" \"title:x\" \"-y\" \"^z\"");
	CHECK(search_make_query("* \" - : ( )", b, sizeof(b)) == SC_E_EMPTY);
	CHECK(search_make_query("", b, sizeof(b)) == SC_E_EMPTY);
	CHECK(search_make_query("caf\xc3\xa9", b, sizeof(b)) == 0);
	CHECK_STR(b, "\"caf\xc3\xa9\"");
	CHECK(search_make_query("abc", b, 5) == SC_E_NOSPC);
	CHECK(search_make_query(NULL, b, sizeof(b)) == SC_E_INVAL);

	/* Bounds: bytes and words. */
	char *big = malloc(SEARCH_QUERY_MAX + 2);
	memset(big, 'a', SEARCH_QUERY_MAX + 1);
	big[SEARCH_QUERY_MAX + 1] = '\0';
	CHECK(search_make_query(big, b, sizeof(b)) == SC_E_LIMIT);
	big[SEARCH_QUERY_MAX] = '\0';
	CHECK(search_make_query(big, b, sizeof(b)) == 0);
	/* The worst case fits the documented capacity: every byte a quote. */
	for (size_t i = 0; i < SEARCH_QUERY_MAX; i++)
		big[i] = i % 32 == 0 ? ' ' : i % 32 == 1 ? 'x' : '"';
	CHECK(search_make_query(big, b, sizeof(b)) == 0);
	CHECK(strlen(b) < sizeof(b));
	free(big);
	char many[400] = "";
	for (int i = 0; i <= SEARCH_WORDS_MAX; i++)
		strcat(many, "w ");
	CHECK(search_make_query(many, b, sizeof(b)) == SC_E_LIMIT);
}

/* Crafted documents whose bm25 order is known: a title match beats body
 * matches (title weight 10), and more occurrences in a body of the same
 * length beat fewer. */
static void test_index(struct search_index *s)
{
	struct got g;
	CHECK(search_begin(s) == 0);
	CHECK(put(s, "http://a.test/1", "garden", "Orchard news",
		  "apples and pears grow in the orchard every autumn") == 0);
	CHECK(put(s, "http://a.test/2", "garden", "Weekly letter",
		  "the orchard orchard orchard is full of trees and birds") ==
	      0);
	CHECK(put(s, "http://a.test/3", "garden", "Weekly letter",
		  "an orchard stands by the river with trees and a bench") ==
	      0);
	CHECK(put(s, "http://b.test/1", "harbour", "Ferry times",
		  "the ferry leaves the harbour at noon on every day of the "
		  "week, and there is no orchard anywhere near here") == 0);
	CHECK(put(s, "http://b.test/noindex", "harbour", "Secret",
		  "the secret ferry page") == 0);
	CHECK(search_commit(s) == 0);

	CHECK_STR(q(s, "orchard", NULL, 10, &g),
		  "http://a.test/1 http://a.test/2 http://a.test/3 "
		  "http://b.test/1");
	CHECK(g.n == 4 && g.scores[0] <= g.scores[1] &&
	      g.scores[1] <= g.scores[2]);
	CHECK(strstr(g.snippet, "[orchard]") != NULL);
	CHECK_STR(q(s, "orchard", "harbour", 10, &g), "http://b.test/1");
	CHECK_STR(q(s, "orchard", "nowhere", 10, &g), "");
	CHECK_STR(q(s, "orchard", NULL, 2, &g),
		  "http://a.test/1 http://a.test/2");
	CHECK_STR(q(s, "ORCHARD Trees", NULL, 10, &g),
		  "http://a.test/2 http://a.test/3");
	CHECK_STR(q(s, "orch*", "garden", 1, &g), "http://a.test/1");
	CHECK_STR(q(s, "ferry", NULL, 10, &g),
		  "http://b.test/1 http://b.test/noindex");

	/* Replace: the old words are gone from the index, the new found. */
	CHECK(put(s, "http://a.test/3", "garden", "Weekly letter",
		  "a meadow by the river") == 0);
	CHECK_STR(q(s, "orchard", "garden", 10, &g),
		  "http://a.test/1 http://a.test/2");
	CHECK_STR(q(s, "meadow", NULL, 10, &g), "http://a.test/3");
	size_t pages = 0, aliases = 9;
	CHECK(search_count(s, &pages, &aliases) == 0);
	CHECK(pages == 5 && aliases == 0);

	/* Forget (noindex): gone, and forgetting again is no error. */
	CHECK(search_forget(s, "http://b.test/noindex", 21) == 0);
	CHECK(search_forget(s, "http://b.test/noindex", 21) == 0);
	CHECK_STR(q(s, "ferry", NULL, 10, &g), "http://b.test/1");

	/* Aliases: the duplicate /1/ was indexed as a page by an earlier
	 * attempt; as an alias it leaves the pages and joins the hit. */
	CHECK(put(s, "http://a.test/1/", "garden", "Orchard news",
		  "apples and pears grow in the orchard every autumn") == 0);
	CHECK_STR(q(s, "apples", NULL, 10, &g),
		  "http://a.test/1 http://a.test/1/");
	CHECK(search_begin(s) == 0);
	CHECK(alias(s, "http://a.test/1", "http://a.test/1/",
		    SEARCH_SAME_SIGNATURE) == 0);
	CHECK(alias(s, "http://a.test/1", "http://a.test/1?ts=2",
		    SEARCH_NEAR_DUPLICATE) == 0);
	CHECK(alias(s, "http://a.test/1", "http://a.test/1?ts=2",
		    SEARCH_NEAR_DUPLICATE) == 0); /* again: no change */
	CHECK(search_commit(s) == 0);
	CHECK_STR(q(s, "apples", NULL, 10, &g),
		  "http://a.test/1{http://a.test/1/:signature,"
		  "http://a.test/1?ts=2:near}");
	CHECK(search_count(s, &pages, &aliases) == 0);
	CHECK(pages == 4 && aliases == 2);
	/* An alias indexed again as a page leaves the aliases. */
	CHECK(put(s, "http://a.test/1?ts=2", "garden", "Orchard news",
		  "apples once more") == 0);
	CHECK_STR(q(s, "apples", NULL, 10, &g),
		  "http://a.test/1?ts=2 "
		  "http://a.test/1{http://a.test/1/:signature}");
	CHECK(alias(s, "http://a.test/1", "", SEARCH_SAME_SIGNATURE) ==
	      SC_E_INVAL);
	CHECK(alias(s, "http://a.test/1", "x", 7) == SC_E_INVAL);

	/* Rollback: nothing of the transaction stays. */
	CHECK(search_begin(s) == 0);
	CHECK(put(s, "http://c.test/", "garden", "Lantern", "lantern light") ==
	      0);
	search_rollback(s);
	CHECK_STR(q(s, "lantern", NULL, 10, &g), "");

	/* Hostile queries: no error from FTS5, only literal words. */
	static const char *const hostile[] = {
		"\"",        "\"orchard",    "orchard\"",       "*",
		"orchard*)", "NEAR(orchard", "NEAR(a b, 2)",    "-orchard",
		"title:x",   "orchard OR",   "AND OR NOT",      "(orchard",
		"^orchard",  "{title}:x",    "orchard + x",     "orchard:",
		"'",         "\\",           "\x01orchard\x7f", "\xff\xfe",
	};
	for (size_t i = 0; i < sizeof(hostile) / sizeof(*hostile); i++) {
		memset(&g, 0, sizeof(g));
		int rc = search_query(s, hostile[i], NULL, 10, collect, &g);
		CHECK(rc == 0 || rc == SC_E_EMPTY);
		if (rc != 0 && rc != SC_E_EMPTY)
			fprintf(stderr, "  hostile '%s': %s\n", hostile[i],
				search_errmsg(s));
	}
	/* Quoted operators are words: "-orchard" finds orchard (the '-' is
	 * a separator to the tokenizer), "orchard OR" needs the word "or". */
	CHECK_STR(q(s, "-orchard", "harbour", 10, &g), "http://b.test/1");
	CHECK_STR(q(s, "orchard OR", NULL, 10, &g), "");
	CHECK_STR(q(s, "title:orchard", NULL, 10, &g), "");
	CHECK(search_query(s, "orchard", NULL, 0, collect, &g) == SC_E_INVAL);
	CHECK(search_query(s, "orchard", NULL, SEARCH_LIMIT_MAX + 1, collect,
			   &g) == SC_E_INVAL);
}

/* Many pages: foreach sees each once (it reads in pages of 256 URLs). */
static int count_url(void *arg, const char *url, size_t len)
{
	(*(size_t *)arg)++;
	return len && url[0] == 'h' ? 0 : -1;
}

static void test_many(struct search_index *s)
{
	CHECK(search_begin(s) == 0);
	char url[64];
	int bad = 0;
	for (int i = 0; i < 1000; i++) {
		snprintf(url, sizeof(url), "http://m.test/%04d", i);
		bad += put(s, url, "many", NULL, "filler words") != 0;
	}
	CHECK(bad == 0);
	CHECK(search_commit(s) == 0);
	size_t pages = 0, seen = 0;
	CHECK(search_count(s, &pages, NULL) == 0);
	CHECK(search_foreach_page(s, count_url, &seen) == 0);
	CHECK(seen == pages && pages >= 1000);
	struct got g;
	q(s, "filler", "many", 10, &g);
	CHECK(g.n == 10);
	CHECK(search_optimize(s) == 0);
	q(s, "filler", "many", SEARCH_LIMIT_MAX, &g);
	CHECK(g.n == 1000);
}

/* The page size of an SQLite file, or -1. */
static long page_size_of(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long n = -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) ==
		    SQLITE_OK &&
	    sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &st, NULL) ==
		    SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* Runs sql on the SQLite file path; its first column of the first row in
 * out (or "" without a row).  Returns the SQLite result code. */
static int sql_on(const char *path, const char *sql, char *out, size_t cap)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
	if (out)
		*out = '\0';
	if (rc == SQLITE_OK) {
		sqlite3_stmt *st = NULL;
		const char *tail = sql;
		while (rc == SQLITE_OK && tail && *tail) {
			rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
			if (rc != SQLITE_OK || !st)
				break;
			int r;
			while ((r = sqlite3_step(st)) == SQLITE_ROW)
				if (out && !*out && sqlite3_column_text(st, 0))
					snprintf(out, cap, "%s",
						 (const char *)
							 sqlite3_column_text(
								 st, 0));
			rc = r == SQLITE_DONE ? SQLITE_OK : r;
			sqlite3_finalize(st);
			st = NULL;
		}
	}
	sqlite3_close(db);
	return rc;
}

/* The index agrees with the pages table (FTS5's integrity-check, which
 * reads every row of an external-content table against the index). */
static bool fts_in_step(const char *path)
{
	return sql_on(path,
		      "INSERT INTO pages_fts(pages_fts, rank)"
		      " VALUES ('integrity-check', 1)",
		      NULL, 0) == SQLITE_OK;
}

/* A file of schema version 1, which kept the index in step with
 * triggers, with one page put through them. */
static const char schema_1[] =
	"PRAGMA journal_mode = WAL;"
	"CREATE TABLE pages(id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE,"
	" category TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL);"
	"CREATE VIRTUAL TABLE pages_fts USING fts5(title, body,"
	" content='pages', content_rowid='id',"
	" tokenize='unicode61 remove_diacritics 2');"
	"CREATE TRIGGER pages_ai AFTER INSERT ON pages BEGIN"
	" INSERT INTO pages_fts(rowid, title, body)"
	" VALUES (new.id, new.title, new.body); END;"
	"CREATE TRIGGER pages_ad AFTER DELETE ON pages BEGIN"
	" INSERT INTO pages_fts(pages_fts, rowid, title, body)"
	" VALUES ('delete', old.id, old.title, old.body); END;"
	"CREATE TRIGGER pages_au AFTER UPDATE ON pages BEGIN"
	" INSERT INTO pages_fts(pages_fts, rowid, title, body)"
	" VALUES ('delete', old.id, old.title, old.body);"
	" INSERT INTO pages_fts(rowid, title, body)"
	" VALUES (new.id, new.title, new.body); END;"
	"CREATE TABLE aliases(alias TEXT PRIMARY KEY, rep TEXT NOT NULL,"
	" kind TEXT NOT NULL CHECK (kind IN ('signature', 'near')))"
	" WITHOUT ROWID;"
	"CREATE INDEX aliases_rep ON aliases(rep);"
	"INSERT INTO pages(url, category, title, body) VALUES"
	" ('http://old.test/', 'c', 'Harbour', 'lighthouse keeper');"
	"PRAGMA user_version = 1;";

static void test_version_1(const char *path)
{
	struct search_index *s = NULL;
	struct got g;
	char out[64];
	cleanup();
	CHECK(mkdir(tmpdir, 0700) == 0);
	sqlite3 *db = NULL;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, schema_1, NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	/* Read as it is. */
	CHECK(search_open(tmpdir, SEARCH_RDONLY, &s) == 0);
	if (s)
		CHECK_STR(q(s, "lighthouse", NULL, 10, &g), "http://old.test/");
	search_close(s);
	CHECK(sql_on(path, "PRAGMA user_version", out, sizeof(out)) ==
	      SQLITE_OK);
	CHECK_STR(out, "1");
	/* Opened for writing: the triggers go, the version is 2, and the
	 * page is replaced and forgotten with the index in step. */
	s = NULL;
	CHECK(search_open(tmpdir, 0, &s) == 0);
	if (!s)
		return;
	CHECK(sql_on(path, "PRAGMA user_version", out, sizeof(out)) ==
	      SQLITE_OK);
	CHECK_STR(out, "2");
	CHECK(sql_on(path,
		     "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'",
		     out, sizeof(out)) == SQLITE_OK);
	CHECK_STR(out, "0");
	CHECK(search_begin(s) == 0);
	CHECK(put(s, "http://old.test/", "c", "Harbour", "ferry timetable") ==
	      0);
	CHECK(search_commit(s) == 0);
	CHECK_STR(q(s, "lighthouse", NULL, 10, &g), "");
	CHECK_STR(q(s, "ferry", NULL, 10, &g), "http://old.test/");
	CHECK(fts_in_step(path));
	CHECK(search_begin(s) == 0);
	CHECK(search_forget(s, "http://old.test/", 16) == 0);
	CHECK(search_commit(s) == 0);
	CHECK_STR(q(s, "ferry OR harbour", NULL, 10, &g), "");
	CHECK(fts_in_step(path));
	search_close(s);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	struct search_index *s = NULL, *r = NULL;
	test_make_query();
	CHECK(search_open(tmpdir, SEARCH_RDONLY, &r) == SC_E_NOTFOUND);
	CHECK(search_open(tmpdir, 0, &s) == 0);
	char db[512];
	snprintf(db, sizeof(db), "%s/" SEARCH_DB_NAME, tmpdir);
	if (s) {
		test_index(s);
		/* Pages put, replaced, forgotten and made aliases: the index
		 * holds what the pages table does, no more, no less. */
		CHECK(fts_in_step(db));
		test_many(s);
		CHECK(fts_in_step(db));
	}
	/* A reader sees the writer's commits (WAL) and cannot write. */
	CHECK(search_open(tmpdir, SEARCH_RDONLY, &r) == 0);
	if (r) {
		struct got g;
		CHECK_STR(q(r, "meadow", NULL, 10, &g), "http://a.test/3");
		CHECK(search_begin(r) == SC_E_INVAL);
	}
	search_close(r);
	search_close(s);
	/* A new index has pages of 32 KiB (fewer writes per crawled page,
	 * docs/bench.md). */
	CHECK(page_size_of(db) == 32768);
	/* Reopened, the schema is checked, not created again, and the page
	 * size stays. */
	CHECK(search_open(tmpdir, 0, &s) == 0);
	search_close(s);
	CHECK(page_size_of(db) == 32768);
	/* Not a database. */
	char p[512];
	snprintf(p, sizeof(p), "%s/" SEARCH_DB_NAME, tmpdir);
	cleanup();
	CHECK(mkdir(tmpdir, 0700) == 0);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs("this is not an SQLite database, but it is long enough "
		      "to have a header of a hundred bytes, which SQLite reads "
		      "first.\n",
		      f);
		fclose(f);
	}
	CHECK(search_open(tmpdir, 0, &s) == SC_E_CORRUPT);
	test_version_1(db);
	cleanup();
	return check_done();
}
