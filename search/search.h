/* search.h — the full-text search index of a store: SQLite FTS5 in
 * STORE/search.sqlite.
 *
 * It is independent of LMDB and of the rest of the store: it shares only
 * the store's directory.  The crawler's writer thread keeps it up to date
 * with `[store] search_index = yes`; `sigcrawl search` reads it.
 *
 * Errors: every function that can fail returns 0 or a negative sc_err
 * code. */
#ifndef SEARCH_H
#define SEARCH_H

#include <stdbool.h>
#include <stddef.h>

#include "sc.h"

/* ---- The index (SPEC §1 categorized crawling, §2 search) --------------
 *
 * An SQLite database with an FTS5 table, STORE/search.sqlite next to the
 * LMDB files, answers `sigcrawl search`.  SQLite, not LMDB, because FTS5
 * is a well-kept inverted index with bm25() ranking and snippets, which
 * nobody should write again by hand.  The schema (version 2, in
 * PRAGMA user_version; a version 1 file is read as it is, and loses its
 * triggers when opened for writing):
 *
 *   pages(id INTEGER PRIMARY KEY, url TEXT UNIQUE, category, title, body)
 *                one row per indexed representative page: its normalized
 *                URL, the category it was crawled in, its title and its
 *                body text (SPEC §5, at most 1 MiB);
 *   pages_fts    FTS5 over (title, body) with pages as its external
 *                content, kept in step by the write functions, one row
 *                at a time (version 1 had triggers); unicode61 tokens,
 *                diacritics removed;
 *   aliases(alias TEXT PRIMARY KEY, rep, kind)
 *                each duplicate URL, the representative it was collapsed
 *                into and the evidence ('signature' or 'near').
 *
 * A duplicate is never a page row: it is an alias of its representative,
 * so a hit is an equivalence class that lists its aliases.  Every write
 * function states the whole truth about one URL (a page replaces the alias
 * of the same URL and the other way round), so writing the same facts
 * again changes nothing: that is what lets the crawler commit this
 * database before LMDB and redo a batch after a crash.
 *
 * The database is in WAL mode with synchronous=FULL: a commit is on disk
 * when search_commit() returns, and readers (search) never wait for the
 * writer (the crawl).  One handle belongs to one thread at a time.
 *
 * Errors: SQLite's are mapped to SC_E_NOMEM, SC_E_NOSPC (disk full),
 * SC_E_CORRUPT (not a database, or another schema version), SC_E_AGAIN
 * (busy after 5 s), SC_E_IO and otherwise SC_E_DB; search_errmsg() gives
 * SQLite's message for the last one. */

struct search_index;

/* The database file's name inside a store directory. */
#define SEARCH_DB_NAME "search.sqlite"

/* Flags of search_open(). */
#define SEARCH_RDONLY 0x1u /* open read-only; never create anything */

/* Bounds of a query: the user's text in bytes, the words kept from it, and
 * the hits one query may ask for. */
#define SEARCH_QUERY_MAX 1024
#define SEARCH_WORDS_MAX 32
#define SEARCH_LIMIT_MAX 10000

/* Room for search_make_query()'s output: every byte doubled, plus the
 * quotes, a prefix star and a space for each word, plus the NUL. */
#define SEARCH_FTS_QUERY_CAP (2 * SEARCH_QUERY_MAX + 5 * SEARCH_WORDS_MAX + 1)

/* Why a URL is an alias of another.  Stored as text ('signature',
 * 'near'). */
enum search_evidence {
	SEARCH_SAME_SIGNATURE = 1, /* equal signatures (duplicate_of) */
	SEARCH_NEAR_DUPLICATE = 2, /* SimHash within [dedup] near_duplicate */
};

/* The stored name of an evidence kind, or NULL out of range. */
const char *search_evidence_name(enum search_evidence e);

/* Opens STORE_DIR/search.sqlite.  Without SEARCH_RDONLY the file is
 * created with the schema if it does not exist (the directory must);
 * with it, a missing file is SC_E_NOTFOUND.  Returns 0 and sets *ret
 * (free it with search_close()), SC_E_INVAL, SC_E_NOTFOUND, SC_E_CORRUPT
 * (not a database of this schema), SC_E_IO or SC_E_NOMEM. */
int search_open(const char *store_dir, unsigned flags,
		struct search_index **ret) SC_WUR;

/* Closes the database; an open transaction is rolled back.  NULL is
 * accepted. */
void search_close(struct search_index *s);

/* SQLite's message for the last failure of S (static or owned by S, valid
 * until its next call); "" when there was none. */
const char *search_errmsg(struct search_index *s);

/* Begins, commits or rolls back the one write transaction of S.  The
 * write functions below may be called outside one (each is then its own
 * transaction), but a batch belongs in one.  search_commit() is durable
 * (see above).  Return 0 or an sc_err code; search_rollback() cannot
 * fail. */
int search_begin(struct search_index *s) SC_WUR;
int search_commit(struct search_index *s) SC_WUR;
void search_rollback(struct search_index *s);

/* One page to index.  Strings are pointer and length, not NUL-terminated
 * (UTF-8 expected; other bytes are stored as they are); title and text
 * may be NULL for none. */
struct search_page {
	const char *url; /* normalized; not empty */
	size_t url_len;
	const char *category;
	size_t category_len;
	const char *title;
	size_t title_len;
	const char *text; /* the body text */
	size_t text_len;
};

/* Indexes P, replacing the page of the same URL if there is one, and
 * removes the URL from the aliases.  Returns 0, SC_E_INVAL (NULL or empty
 * URL, a string over 1 GiB) or an error as above. */
int search_put_page(struct search_index *s, const struct search_page *p) SC_WUR;

/* Records ALIAS as a duplicate of REP with evidence E, replacing what was
 * known about ALIAS (its page row too).  Returns 0, SC_E_INVAL (NULL or
 * empty URL, E out of range) or an error as above. */
int search_put_alias(struct search_index *s, const char *rep, size_t rep_len,
		     const char *alias, size_t alias_len,
		     enum search_evidence e) SC_WUR;

/* Removes URL as a page and as an alias (a page that says noindex).
 * Removing what is not there is not an error.  Returns 0, SC_E_INVAL or an
 * error as above. */
int search_forget(struct search_index *s, const char *url, size_t len) SC_WUR;

/* Removes every alias (search_put_alias() then adds them again: `sigcrawl
 * index` rebuilds them from the records).  Returns 0 or an error. */
int search_clear_aliases(struct search_index *s) SC_WUR;

/* Sets *pages and *aliases to the numbers of rows.  Either may be NULL.
 * Returns 0 or an error. */
int search_count(struct search_index *s, size_t *pages, size_t *aliases) SC_WUR;

/* Calls FN(ARG, url, len) for every page row, in URL order; the URL is
 * borrowed for the call.  FN may call search_forget() and the other write
 * functions.  Stops at FN's first non-zero value and returns it; else 0
 * or an error. */
int search_foreach_page(struct search_index *s,
			int (*fn)(void *arg, const char *url, size_t len),
			void *arg) SC_WUR;

/* Merges FTS5's index segments into one (FTS5 'optimize'): faster
 * queries after a long crawl.  Returns 0 or an error. */
int search_optimize(struct search_index *s) SC_WUR;

/* Turns the user's WORDS (NUL-terminated, any bytes) into an FTS5 query
 * that cannot be anything but a conjunction of literal words: each
 * blank-separated word is written as an FTS5 string ("..." with inner
 * quotes doubled), so operators (AND OR NOT NEAR), column filters (a:),
 * '-', '^', '(' and '+' are only text.  A word that ends in '*' is a
 * prefix query ("word" *).  Words without a letter or digit (ASCII, or
 * any byte >= 0x80) are dropped, since the tokenizer would drop them.
 * Writes the query and a NUL to BUF (CAP bytes; SEARCH_FTS_QUERY_CAP is
 * always enough).  Returns 0, SC_E_INVAL (NULL argument), SC_E_LIMIT
 * (more than SEARCH_QUERY_MAX bytes or SEARCH_WORDS_MAX words), SC_E_EMPTY
 * (no word left) or SC_E_NOSPC. */
int search_make_query(const char *words, char *buf, size_t cap) SC_WUR;

/* An alias of a hit. */
struct search_alias {
	const char *url;
	enum search_evidence evidence;
};

/* One hit: a representative page and its aliases.  Every string is
 * NUL-terminated and borrowed for the callback only. */
struct search_hit {
	const char *url; /* normalized */
	const char *category;
	const char *title; /* "" when the page has none */
	/* Up to 16 tokens of the body around the match, the matched words
	 * between '[' and ']', cut ends marked "...". */
	const char *snippet;
	double score;                       /* bm25(): lower is better */
	const struct search_alias *aliases; /* in URL order */
	size_t n_aliases;
};

/* Searches for the pages that hold every word of WORDS (see
 * search_make_query()), in CATEGORY only unless it is NULL, best first by
 * bm25() with the title weighted 10 and the body 1 (ties by URL), at most
 * LIMIT (1..SEARCH_LIMIT_MAX) hits; FN(ARG, hit) is called for each.  A
 * page whose URL is also somebody's alias is never a hit of its own.
 * Stops at FN's first non-zero value and returns it.  Returns 0 (also
 * when nothing matched), the errors of search_make_query(), SC_E_INVAL
 * (bad LIMIT) or an error as above. */
int search_query(struct search_index *s, const char *words,
		 const char *category, unsigned limit,
		 int (*fn)(void *arg, const struct search_hit *h), void *arg)
	SC_WUR;

#endif
