/* search.c — the full-text search index: SQLite FTS5 in
 * STORE/search.sqlite (search.h). */
#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "search.h"

#define SCHEMA_VERSION 2

/* How long a writer or reader waits for another connection's lock. */
#define BUSY_TIMEOUT_MS 5000

/* The largest string bound as a parameter (SQLite's default limit). */
#define BIND_MAX (1u << 30)

/* The external-content FTS5 table follows the pages table through the
 * statements of search_put_page() and page_drop(), one row at a time.
 * Version 1 kept it in step with triggers (the pattern of the FTS5
 * documentation, section 4.4.3), but a statement that fires a trigger may
 * write several rows, so SQLite journals every page it changes, for its
 * own rollback, before changing it: with 32 KiB pages that was some 100
 * KiB copied per page indexed, three quarters of what a crawl wrote
 * (docs/bench.md).  A single-row INSERT, UPDATE or DELETE without
 * triggers needs no such journal.  setup() drops the triggers of a
 * version 1 file opened for writing; version 1 reads as version 2. */
static const char schema[] =
	"CREATE TABLE pages(id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE,"
	" category TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL);"
	"CREATE VIRTUAL TABLE pages_fts USING fts5(title, body,"
	" content='pages', content_rowid='id',"
	" tokenize='unicode61 remove_diacritics 2');"
	"CREATE TABLE aliases(alias TEXT PRIMARY KEY, rep TEXT NOT NULL,"
	" kind TEXT NOT NULL CHECK (kind IN ('signature', 'near')))"
	" WITHOUT ROWID;"
	"CREATE INDEX aliases_rep ON aliases(rep);"
	"PRAGMA user_version = 2;";

/* From version 1: the same tables, without the triggers. */
static const char migrate_1[] = "DROP TRIGGER IF EXISTS pages_ai;"
				"DROP TRIGGER IF EXISTS pages_ad;"
				"DROP TRIGGER IF EXISTS pages_au;"
				"PRAGMA user_version = 2;";

enum stmt {
	ST_PAGE_FIND,
	ST_PAGE_INSERT,
	ST_PAGE_UPDATE,
	ST_PAGE_DEL,
	ST_FTS_INSERT,
	ST_FTS_DELETE,
	ST_ALIAS_DEL,
	ST_ALIAS_UPSERT,
	ST_QUERY,
	ST_QUERY_CAT,
	ST_ALIASES_OF,
	ST_FOREACH,
	ST_COUNT_PAGES,
	ST_COUNT_ALIASES,
	ST_COUNT
};

/* The hits' query: the representatives only (a row that is also an
 * alias, which search_put_alias() prevents, is hidden all the same). */
#define QUERY_HEAD                                                             \
	"SELECT p.url, p.category, p.title,"                                   \
	" snippet(pages_fts, 1, '[', ']', '...', 16),"                         \
	" bm25(pages_fts, 10.0, 1.0) AS score"                                 \
	" FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid"               \
	" WHERE pages_fts MATCH ?1"                                            \
	" AND NOT EXISTS (SELECT 1 FROM aliases a WHERE a.alias = p.url)"
#define QUERY_TAIL " ORDER BY score, p.url LIMIT ?3"

static const char *const sql[ST_COUNT] = {
	[ST_PAGE_FIND] = "SELECT id, title, body FROM pages WHERE url = ?1",
	[ST_PAGE_INSERT] = "INSERT INTO pages(url, category, title, body)"
			   " VALUES (?1, ?2, ?3, ?4)",
	[ST_PAGE_UPDATE] = "UPDATE pages SET category = ?2, title = ?3,"
			   " body = ?4 WHERE id = ?1",
	[ST_PAGE_DEL] = "DELETE FROM pages WHERE id = ?1",
	[ST_FTS_INSERT] = "INSERT INTO pages_fts(rowid, title, body)"
			  " VALUES (?1, ?2, ?3)",
	[ST_FTS_DELETE] = "INSERT INTO pages_fts(pages_fts, rowid, title, body)"
			  " VALUES ('delete', ?1, ?2, ?3)",
	[ST_ALIAS_DEL] = "DELETE FROM aliases WHERE alias = ?1",
	[ST_ALIAS_UPSERT] = "INSERT INTO aliases(alias, rep, kind)"
			    " VALUES (?1, ?2, ?3) ON CONFLICT(alias) DO UPDATE"
			    " SET rep = excluded.rep, kind = excluded.kind",
	[ST_QUERY] = QUERY_HEAD QUERY_TAIL,
	[ST_QUERY_CAT] = QUERY_HEAD " AND p.category = ?2" QUERY_TAIL,
	[ST_ALIASES_OF] = "SELECT alias, kind FROM aliases WHERE rep = ?1"
			  " ORDER BY alias",
	[ST_FOREACH] = "SELECT url FROM pages WHERE url > ?1 ORDER BY url"
		       " LIMIT 256",
	[ST_COUNT_PAGES] = "SELECT count(*) FROM pages",
	[ST_COUNT_ALIASES] = "SELECT count(*) FROM aliases",
};

struct search_index {
	sqlite3 *db;
	bool rdonly;
	bool in_txn;
	sqlite3_stmt *st[ST_COUNT]; /* prepared on first use */
	char msg[256];
};

const char *search_evidence_name(enum search_evidence e)
{
	switch (e) {
	case SEARCH_SAME_SIGNATURE: return "signature";
	case SEARCH_NEAR_DUPLICATE: return "near";
	}
	return NULL;
}

static enum search_evidence evidence_parse(const char *name)
{
	return name && strcmp(name, "near") == 0 ? SEARCH_NEAR_DUPLICATE
						 : SEARCH_SAME_SIGNATURE;
}

/* Maps an SQLite result code to an sc_err code and keeps the message. */
static int fail(struct search_index *s, int rc)
{
	if (s && s->db)
		snprintf(s->msg, sizeof(s->msg), "%s", sqlite3_errmsg(s->db));
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW: return 0;
	case SQLITE_NOMEM: return SC_E_NOMEM;
	/* "database or disk is full": the disk, as a failed write(2)
	 * says, not SQLite's "buffer too small". */
	case SQLITE_FULL:
		if (errno != ENOSPC && errno != EDQUOT)
			errno = ENOSPC;
		return SC_E_IO;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB: return SC_E_CORRUPT;
	case SQLITE_BUSY:
	case SQLITE_LOCKED: return SC_E_AGAIN;
	case SQLITE_IOERR:
	case SQLITE_CANTOPEN:
	case SQLITE_READONLY:
	case SQLITE_PERM:
		if (!errno)
			errno = EIO;
		return SC_E_IO;
	default: return SC_E_DB;
	}
}

const char *search_errmsg(struct search_index *s)
{
	return s ? s->msg : "";
}

static int stmt(struct search_index *s, enum stmt i, sqlite3_stmt **ret)
{
	if (!s->st[i]) {
		int rc = sqlite3_prepare_v3(s->db, sql[i], -1,
					    SQLITE_PREPARE_PERSISTENT,
					    &s->st[i], NULL);
		if (rc != SQLITE_OK)
			return fail(s, rc);
	}
	sqlite3_reset(s->st[i]);
	sqlite3_clear_bindings(s->st[i]);
	*ret = s->st[i];
	return 0;
}

static int bind_text(struct search_index *s, sqlite3_stmt *st, int col,
		     const char *p, size_t len)
{
	if (len > BIND_MAX)
		return SC_E_INVAL;
	int rc = sqlite3_bind_text(st, col, p ? p : "", (int)len,
				   SQLITE_STATIC);
	return rc == SQLITE_OK ? 0 : fail(s, rc);
}

/* Runs a statement that returns no rows. */
static int step_done(struct search_index *s, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : fail(s, rc);
}

static int exec(struct search_index *s, const char *q)
{
	int rc = sqlite3_exec(s->db, q, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : fail(s, rc);
}

/* Creates the schema in a new file, or checks the version of an old one. */
static int setup(struct search_index *s)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st,
				    NULL);
	if (rc != SQLITE_OK)
		return fail(s, rc);
	rc = sqlite3_step(st);
	int version = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return fail(s, rc);
	if (version == SCHEMA_VERSION || (version == 1 && s->rdonly))
		return 0;
	if ((version != 0 && version != 1) || s->rdonly) {
		snprintf(s->msg, sizeof(s->msg),
			 "schema version %d, expected %d", version,
			 SCHEMA_VERSION);
		return SC_E_CORRUPT;
	}
	/* A new file's schema, or version 1's triggers dropped. */
	int err = exec(s, "BEGIN IMMEDIATE");
	if (!err)
		err = exec(s, version ? migrate_1 : schema);
	if (!err)
		err = exec(s, "COMMIT");
	if (err)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return err;
}

int search_open(const char *store_dir, unsigned flags,
		struct search_index **ret)
{
	if (!store_dir || !*store_dir || !ret || (flags & ~SEARCH_RDONLY))
		return SC_E_INVAL;
	struct search_index *s = calloc(1, sizeof(*s));
	if (!s)
		return SC_E_NOMEM;
	s->rdonly = flags & SEARCH_RDONLY;
	char path[4096];
	int n = snprintf(path, sizeof(path), "%s/" SEARCH_DB_NAME, store_dir);
	int err = 0;
	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		err = SC_E_IO;
		goto out;
	}
	struct stat sb;
	if (s->rdonly && stat(path, &sb) != 0) {
		err = errno == ENOENT ? SC_E_NOTFOUND : SC_E_IO;
		goto out;
	}
	int oflags = s->rdonly ? SQLITE_OPEN_READONLY
			       : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	errno = 0;
	int rc = sqlite3_open_v2(path, &s->db, oflags | SQLITE_OPEN_NOMUTEX,
				 NULL);
	if (rc != SQLITE_OK) {
		err = fail(s, rc);
		goto out;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
	/* Pages of 32 KiB, set before anything is written (a file that
	 * exists keeps its own): a crawl writes each page's text and its
	 * index entries, and larger pages take half the pwrite calls and a
	 * sixth of the pread calls of 4 KiB ones, and 15 % less room; the
	 * crawl gains 6 to 11 % pages/s for queries a little slower in the
	 * median (docs/bench.md).  WAL: the crawl writes while
	 * `search` reads.  synchronous=FULL fsyncs the WAL at each commit, so a
	 * committed batch survives a power cut as the LMDB commit after it
	 * does. */
	if (!s->rdonly && ((err = exec(s, "PRAGMA page_size = 32768")) ||
			   (err = exec(s, "PRAGMA journal_mode = WAL")) ||
			   (err = exec(s, "PRAGMA synchronous = FULL"))))
		goto out;
	if (!s->rdonly)
		chmod(path, 0640);
	err = setup(s);
out:
	if (err) {
		search_close(s);
		return err;
	}
	*ret = s;
	return 0;
}

void search_close(struct search_index *s)
{
	if (!s)
		return;
	if (s->in_txn)
		search_rollback(s);
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_close(s->db);
	free(s);
}

int search_begin(struct search_index *s)
{
	if (!s || s->in_txn || s->rdonly)
		return SC_E_INVAL;
	int err = exec(s, "BEGIN IMMEDIATE");
	if (!err)
		s->in_txn = true;
	return err;
}

int search_commit(struct search_index *s)
{
	if (!s || !s->in_txn)
		return SC_E_INVAL;
	int err = exec(s, "COMMIT");
	if (err) /* a failed COMMIT may leave the transaction open */
		search_rollback(s);
	s->in_txn = false;
	return err;
}

void search_rollback(struct search_index *s)
{
	if (!s || !s->in_txn)
		return;
	if (sqlite3_get_autocommit(s->db) == 0)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	s->in_txn = false;
}

static bool url_ok(const char *url, size_t len)
{
	return url && len > 0 && len <= BIND_MAX;
}

/* Runs statement I with URL as its only parameter. */
static int by_url(struct search_index *s, enum stmt i, const char *url,
		  size_t len)
{
	sqlite3_stmt *st = NULL;
	int err = stmt(s, i, &st);
	if (!err)
		err = bind_text(s, st, 1, url, len);
	return err ? err : step_done(s, st);
}

/* The row of url in pages: its id in *id (0: none), and, when it has
 * one, its text taken out of the index (the row stays). */
static int page_unindex(struct search_index *s, const char *url, size_t len,
			sqlite3_int64 *id)
{
	sqlite3_stmt *f = NULL, *d = NULL;
	*id = 0;
	int err = stmt(s, ST_PAGE_FIND, &f);
	if (!err)
		err = bind_text(s, f, 1, url, len);
	if (err)
		return err;
	int rc = sqlite3_step(f);
	if (rc == SQLITE_ROW) {
		/* The index takes out what it was given: the old text. */
		*id = sqlite3_column_int64(f, 0);
		err = stmt(s, ST_FTS_DELETE, &d);
		if (!err &&
		    ((rc = sqlite3_bind_int64(d, 1, *id)) != SQLITE_OK ||
		     (rc = sqlite3_bind_value(
			      d, 2, sqlite3_column_value(f, 1))) != SQLITE_OK ||
		     (rc = sqlite3_bind_value(
			      d, 3, sqlite3_column_value(f, 2))) != SQLITE_OK))
			err = fail(s, rc);
		sqlite3_reset(f);
		return err ? err : step_done(s, d);
	}
	sqlite3_reset(f);
	return rc == SQLITE_DONE ? 0 : fail(s, rc);
}

/* Takes url's row out of pages and its text out of the index. */
static int page_drop(struct search_index *s, const char *url, size_t len)
{
	sqlite3_int64 id;
	sqlite3_stmt *st = NULL;
	int err = page_unindex(s, url, len, &id);
	if (err || !id)
		return err;
	if ((err = stmt(s, ST_PAGE_DEL, &st)))
		return err;
	int rc = sqlite3_bind_int64(st, 1, id);
	return rc == SQLITE_OK ? step_done(s, st) : fail(s, rc);
}

int search_put_page(struct search_index *s, const struct search_page *p)
{
	if (!s || !p || !url_ok(p->url, p->url_len))
		return SC_E_INVAL;
	const char *title = p->title ? p->title : "";
	size_t title_len = p->title ? p->title_len : 0;
	const char *text = p->text ? p->text : "";
	size_t text_len = p->text ? p->text_len : 0;
	sqlite3_int64 id;
	sqlite3_stmt *st = NULL;
	int err = page_unindex(s, p->url, p->url_len, &id);
	if (!err)
		err = stmt(s, id ? ST_PAGE_UPDATE : ST_PAGE_INSERT, &st);
	if (err)
		return err;
	int rc = id ? sqlite3_bind_int64(st, 1, id)
		    : sqlite3_bind_text(st, 1, p->url, (int)p->url_len,
					SQLITE_STATIC);
	if (rc != SQLITE_OK)
		return fail(s, rc);
	err = bind_text(s, st, 2, p->category, p->category_len);
	if (!err)
		err = bind_text(s, st, 3, title, title_len);
	if (!err)
		err = bind_text(s, st, 4, text, text_len);
	if (!err)
		err = step_done(s, st);
	if (err)
		return err;
	if (!id)
		id = sqlite3_last_insert_rowid(s->db);
	if ((err = stmt(s, ST_FTS_INSERT, &st)))
		return err;
	if ((rc = sqlite3_bind_int64(st, 1, id)) != SQLITE_OK)
		return fail(s, rc);
	err = bind_text(s, st, 2, title, title_len);
	if (!err)
		err = bind_text(s, st, 3, text, text_len);
	if (!err)
		err = step_done(s, st);
	return err ? err : by_url(s, ST_ALIAS_DEL, p->url, p->url_len);
}

int search_put_alias(struct search_index *s, const char *rep, size_t rep_len,
		     const char *alias, size_t alias_len,
		     enum search_evidence e)
{
	const char *kind = search_evidence_name(e);
	if (!s || !url_ok(rep, rep_len) || !url_ok(alias, alias_len) || !kind)
		return SC_E_INVAL;
	int err = page_drop(s, alias, alias_len);
	sqlite3_stmt *st = NULL;
	if (!err)
		err = stmt(s, ST_ALIAS_UPSERT, &st);
	if (!err)
		err = bind_text(s, st, 1, alias, alias_len);
	if (!err)
		err = bind_text(s, st, 2, rep, rep_len);
	if (!err)
		err = bind_text(s, st, 3, kind, strlen(kind));
	return err ? err : step_done(s, st);
}

int search_forget(struct search_index *s, const char *url, size_t len)
{
	if (!s || !url_ok(url, len))
		return SC_E_INVAL;
	int err = page_drop(s, url, len);
	return err ? err : by_url(s, ST_ALIAS_DEL, url, len);
}

int search_clear_aliases(struct search_index *s)
{
	return s ? exec(s, "DELETE FROM aliases") : SC_E_INVAL;
}

static int count_of(struct search_index *s, enum stmt i, size_t *ret)
{
	sqlite3_stmt *st = NULL;
	int err = stmt(s, i, &st);
	if (err)
		return err;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*ret = (size_t)sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 0 : fail(s, rc);
}

int search_count(struct search_index *s, size_t *pages, size_t *aliases)
{
	if (!s)
		return SC_E_INVAL;
	int err = pages ? count_of(s, ST_COUNT_PAGES, pages) : 0;
	if (!err && aliases)
		err = count_of(s, ST_COUNT_ALIASES, aliases);
	return err;
}

/* In pages of 256 URLs, each page's statement reset before FN runs, so
 * that FN may write to the table it walks. */
int search_foreach_page(struct search_index *s,
			int (*fn)(void *arg, const char *url, size_t len),
			void *arg)
{
	if (!s || !fn)
		return SC_E_INVAL;
	char *last = strdup(""), *urls[256];
	if (!last)
		return SC_E_NOMEM;
	int err = 0;
	for (;;) {
		sqlite3_stmt *st = NULL;
		size_t n = 0;
		if ((err = stmt(s, ST_FOREACH, &st)) ||
		    (err = bind_text(s, st, 1, last, strlen(last))))
			break;
		int rc;
		while (n < 256 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
			const char *u = (const char *)sqlite3_column_text(st,
									  0);
			if (!(urls[n] = strdup(u ? u : "")))
				break;
			n++;
		}
		if (n < 256 && rc != SQLITE_DONE)
			err = rc == SQLITE_ROW ? SC_E_NOMEM : fail(s, rc);
		sqlite3_reset(st);
		for (size_t i = 0; i < n && !err; i++)
			err = fn(arg, urls[i], strlen(urls[i]));
		if (n) {
			free(last);
			last = urls[n - 1];
			urls[n - 1] = NULL;
		}
		for (size_t i = 0; i + 1 < n; i++)
			free(urls[i]);
		if (err || n < 256)
			break;
	}
	free(last);
	return err;
}

int search_optimize(struct search_index *s)
{
	return s ? exec(s, "INSERT INTO pages_fts(pages_fts)"
			   " VALUES ('optimize')")
		 : SC_E_INVAL;
}

/* A byte that the unicode61 tokenizer may keep in a token: ASCII letters
 * and digits, and every byte of a non-ASCII character.  (It also drops
 * some non-ASCII punctuation; such a word then matches nothing, which is
 * right, and costs no error.) */
static bool word_byte(unsigned char c)
{
	return (c >= '0' && c <= '9') ||
	       ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c >= 0x80;
}

static bool blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}

int search_make_query(const char *words, char *buf, size_t cap)
{
	if (!words || !buf)
		return SC_E_INVAL;
	size_t in_len = strnlen(words, SEARCH_QUERY_MAX + 1);
	if (in_len > SEARCH_QUERY_MAX)
		return SC_E_LIMIT;
	size_t out = 0, n_words = 0;
	const unsigned char *p = (const unsigned char *)words;
	const unsigned char *end = p + in_len;
	while (p < end) {
		while (p < end && blank(*p))
			p++;
		const unsigned char *w = p;
		while (p < end && !blank(*p))
			p++;
		const unsigned char *we = p;
		bool prefix = false;
		while (we > w && we[-1] == '*') {
			we--;
			prefix = true;
		}
		bool any = false;
		for (const unsigned char *q = w; q < we && !any; q++)
			any = word_byte(*q);
		if (!any)
			continue;
		if (++n_words > SEARCH_WORDS_MAX)
			return SC_E_LIMIT;
		/* Worst case: a space, quotes, each byte doubled, " *". */
		if (out + 3 + 2 * (size_t)(we - w) + 2 + 1 > cap)
			return SC_E_NOSPC;
		if (out)
			buf[out++] = ' ';
		buf[out++] = '"';
		for (const unsigned char *q = w; q < we; q++) {
			if (*q == '"')
				buf[out++] = '"';
			buf[out++] = (char)*q;
		}
		buf[out++] = '"';
		if (prefix) {
			buf[out++] = ' ';
			buf[out++] = '*';
		}
	}
	if (!n_words)
		return SC_E_EMPTY;
	buf[out] = '\0';
	return 0;
}

static const char *col(sqlite3_stmt *st, int i)
{
	const char *t = (const char *)sqlite3_column_text(st, i);
	return t ? t : "";
}

/* The aliases of REP, into a growable array of copies. */
struct alias_list {
	struct search_alias *v;
	size_t n, cap;
};

static void alias_list_clear(struct alias_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free((char *)l->v[i].url);
	l->n = 0;
}

static int aliases_of(struct search_index *s, const char *rep,
		      struct alias_list *l)
{
	sqlite3_stmt *st = NULL;
	int err = stmt(s, ST_ALIASES_OF, &st);
	if (!err)
		err = bind_text(s, st, 1, rep, strlen(rep));
	int rc;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 8;
			struct search_alias *v = realloc(l->v,
							 cap * sizeof(*v));
			if (!v) {
				err = SC_E_NOMEM;
				break;
			}
			l->v = v;
			l->cap = cap;
		}
		char *u = strdup(col(st, 0));
		if (!u) {
			err = SC_E_NOMEM;
			break;
		}
		l->v[l->n++] = (struct search_alias){ u, evidence_parse(
								 col(st, 1)) };
	}
	if (!err && rc != SQLITE_DONE)
		err = fail(s, rc);
	sqlite3_reset(st);
	return err;
}

/* One row of the query: copied, because looking up its aliases uses the
 * same connection while the query statement is still stepping. */
static int emit(struct search_index *s, sqlite3_stmt *q, struct alias_list *l,
		int (*fn)(void *arg, const struct search_hit *h), void *arg)
{
	char *url = strdup(col(q, 0)), *cat = strdup(col(q, 1));
	char *title = strdup(col(q, 2)), *snip = strdup(col(q, 3));
	int err = url && cat && title && snip ? 0 : SC_E_NOMEM;
	if (!err)
		err = aliases_of(s, url, l);
	if (!err) {
		struct search_hit h = {
			.url = url,
			.category = cat,
			.title = title,
			.snippet = snip,
			.score = sqlite3_column_double(q, 4),
			.aliases = l->v,
			.n_aliases = l->n,
		};
		err = fn(arg, &h);
	}
	alias_list_clear(l);
	free(url);
	free(cat);
	free(title);
	free(snip);
	return err;
}

int search_query(struct search_index *s, const char *words,
		 const char *category, unsigned limit,
		 int (*fn)(void *arg, const struct search_hit *h), void *arg)
{
	if (!s || !words || !fn || limit < 1 || limit > SEARCH_LIMIT_MAX)
		return SC_E_INVAL;
	char q[SEARCH_FTS_QUERY_CAP];
	int err = search_make_query(words, q, sizeof(q));
	if (err)
		return err;
	sqlite3_stmt *st = NULL;
	if ((err = stmt(s, category ? ST_QUERY_CAT : ST_QUERY, &st)) ||
	    (err = bind_text(s, st, 1, q, strlen(q))) ||
	    (category &&
	     (err = bind_text(s, st, 2, category, strlen(category)))))
		return err;
	if (sqlite3_bind_int(st, 3, (int)limit) != SQLITE_OK)
		return fail(s, SQLITE_ERROR);
	struct alias_list l = { 0 };
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if ((err = emit(s, st, &l, fn, arg)))
			break;
	if (!err && rc != SQLITE_DONE)
		err = fail(s, rc);
	sqlite3_reset(st);
	free(l.v);
	return err;
}
