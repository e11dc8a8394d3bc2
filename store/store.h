/* store.h — the crawl's per-URL records in LMDB, their signature indexes,
 * the focus counts, and their export.
 *
 * One LMDB environment per store directory holds the databases of every
 * durable module (the frontier's queue and seen set, and the records of
 * this module), so that one write transaction can commit a page's record,
 * the removal of its queue entry and the insertion of its links together.
 * That is why this module opens the environment but never begins, commits
 * or aborts a transaction: every read or write takes the caller's MDB_txn.
 * The crawler's single writer thread batches many operations per
 * transaction; readers use read-only transactions from any thread (the
 * environment is opened with MDB_NOTLS).
 *
 * The key of a record is sc_url_key() of its normalized URL (sc.h), so the
 * records database shares its keys with the frontier's databases.
 *
 * The WARC writer (warc/warc.h) and the full-text search index
 * (search/search.h) are modules of their own: they share only the store's
 * directory, not LMDB.
 *
 * Errors: every function that can fail returns 0 or a negative sc_err code.
 * LMDB's own codes are translated by store_db_error(), which remembers the
 * last one, so that store_strerror() can say what LMDB said (a full map is
 * MDB_MAP_FULL, not "database error"); the callers' transactions begin and
 * commit through store_txn_begin() and store_txn_commit() for the same
 * reason. */
#ifndef STORE_H
#define STORE_H

#include <lmdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sc.h"

/* ---- The environment ---------------------------------------------------- */

/* Flags of store_env_open(). */
#define STORE_RDONLY 0x1u /* open read-only; never create anything */

/* The most named databases one environment may hold, for every module. */
#define STORE_MAX_DBS 16

/* Opens (and unless STORE_RDONLY, creates) the LMDB environment in the
 * directory DIR, which is created with mode 0750 if it does not exist; the
 * files data.mdb and lock.mdb inside it are created with mode 0640.
 *
 * MAX_BYTES is the ceiling of the data file (0: 64 GiB on 64-bit systems,
 * 1 GiB otherwise; else at least 1 MiB); a reader (STORE_RDONLY) ignores
 * it and maps what the writer committed.  The map is address space only:
 * the environment is NOT opened with MDB_WRITEMAP, so a write
 * transaction's dirty pages are malloc'd copies that the commit writes
 * with pwrite(2), and the file grows as pages are written, up to the
 * ceiling, where a write fails with SC_E_FULL (MDB_MAP_FULL).  Why not
 * MDB_WRITEMAP, which spares the copies: it makes the file a sparse file
 * of the map's size and writes through the map, so a full disk is a
 * SIGBUS in the middle of a transaction instead of an error;
 * here a full disk is SC_E_IO with errno ENOSPC from a write or the
 * commit, the transaction is gone, and the committed state is untouched.
 * The cost, measured in docs/daemon.md: the writer's heap holds a
 * batch's dirty pages (LMDB reuses them), and each page is copied once.
 * The environment is opened with MDB_NOTLS, so read transactions are not
 * tied to threads.  Commits are durable: mdb_txn_commit() writes and
 * fsyncs data and meta page before it returns, which is what lets a
 * kill -9 or a power cut lose nothing committed.  The crawler keeps that
 * cost low by committing many operations at once.
 *
 * Returns 0 and sets *ret, or SC_E_INVAL (NULL argument, unknown flag,
 * MAX_BYTES out of range), SC_E_NOTFOUND (STORE_RDONLY and no store in
 * DIR), SC_E_IO (a system call failed; errno says why), SC_E_CORRUPT (the
 * files are not an LMDB environment of this LMDB version), SC_E_NOMEM or
 * SC_E_DB. */
int store_env_open_max(const char *dir, unsigned flags, uint64_t max_bytes,
		       MDB_env **ret) SC_WUR;

/* store_env_open_max() with the default ceiling. */
int store_env_open(const char *dir, unsigned flags, MDB_env **ret) SC_WUR;

/* Closes the environment; every transaction must have ended.  NULL is
 * accepted. */
void store_env_close(MDB_env *env);

/* Translates an LMDB return code into an sc_err code: 0 stays 0,
 * MDB_NOTFOUND gives SC_E_NOTFOUND, ENOMEM SC_E_NOMEM, MDB_MAP_FULL
 * SC_E_FULL, MDB_CORRUPTED, MDB_INVALID, MDB_PAGE_NOTFOUND and
 * MDB_VERSION_MISMATCH SC_E_CORRUPT, any other system error (a positive
 * errno value: ENOSPC when the disk is full) SC_E_IO with errno set to it,
 * anything else SC_E_DB.  Every function of this module translates LMDB's
 * codes through it.  The code of a failure (anything but 0 and
 * MDB_NOTFOUND) is remembered, per thread, for store_strerror(). */
int store_db_error(int mdb_rc);

/* A message for RC, a code that a function of this module returned on
 * this thread: sc_strerror(RC), followed, when RC is the translation of
 * the last LMDB failure this thread met, by LMDB's own words for it
 * (mdb_strerror()), as in "database full (MDB_MAP_FULL: Environment
 * mapsize limit reached)".  Static or thread-local text, valid until the
 * thread's next call; never NULL. */
const char *store_strerror(int rc);

/* The errno value of this thread's last LMDB failure (ENOSPC for a full
 * disk), or 0 when it was not a system error or there was none since the
 * last store_txn_begin(). */
int store_last_errno(void);

/* Begins a transaction of ENV with mdb_txn_begin()'s FLAGS (0 or
 * MDB_RDONLY) and no parent, and forgets the thread's last LMDB failure.
 * Returns 0 and sets *ret, or a code of store_db_error(). */
int store_txn_begin(MDB_env *env, unsigned flags, MDB_txn **ret) SC_WUR;

/* Commits TXN (which is then gone, committed or not).  Returns 0 or a
 * code of store_db_error(): SC_E_IO with errno ENOSPC for a full disk,
 * SC_E_FULL for a full map, SC_E_DB (MDB_BAD_TXN) after a write of the
 * transaction had failed. */
int store_txn_commit(MDB_txn *txn) SC_WUR;

/* ---- Records --------------------------------------------------------------
 */

/* Why a URL was not fetched, or why its fetch failed or stopped.  The
 * numbers are stored on disk: append new kinds before STORE_ERROR_COUNT,
 * never renumber. */
enum store_error {
	STORE_ERROR_NONE = 0,
	STORE_ERROR_DNS = 1,
	STORE_ERROR_CONNECT = 2,
	STORE_ERROR_TIMEOUT = 3,
	STORE_ERROR_TLS = 4,
	STORE_ERROR_TOO_BIG = 5, /* body over max_body_bytes; truncated */
	STORE_ERROR_TOO_MANY_REDIRECTS = 6,
	STORE_ERROR_REDIRECT_LOOP = 7,
	STORE_ERROR_ROBOTS_DISALLOWED = 8,
	STORE_ERROR_HTTP_ERROR = 9,     /* a 4xx or 5xx status */
	STORE_ERROR_DECOMPRESSION = 10, /* bad encoding or a bomb */
	STORE_ERROR_OTHER = 11,
	/* Not fetched: the host's robots.txt answered 5xx or 429, or failed
	 * otherwise than by DNS, connect, TLS or timeout, on every try
	 * (RFC 9309 §2.3.1.4: "unreachable", so nothing may be fetched). */
	STORE_ERROR_ROBOTS_UNREACHABLE = 12,
	/* Not fetched: its host had used its page budget
	 * ([crawl] max_pages_per_host). */
	STORE_ERROR_HOST_BUDGET = 13,
	/* Not fetched: every sampled page of its URL shape on its host said
	 * both noindex and nofollow ([adaptive] skip_noindex_nofollow). */
	STORE_ERROR_SKIPPED_NOINDEX_NOFOLLOW = 14,
	STORE_ERROR_COUNT
};

/* The export name of an error kind ("none", "dns", "too_big", ...), or NULL
 * for a value out of range. */
const char *store_error_name(enum store_error e);

/* Whether a record's error kind is the crawl's own policy, not an error:
 * robots.txt disallowed it, its host had used its page budget, or a
 * learned noindex,nofollow shape skipped it.  The one
 * definition of an error: the summary, /status, /metrics and the
 * dashboard count the other kinds as errors, these as skipped. */
bool store_error_is_policy(enum store_error e);

/* Parses an export name back; returns 0 and sets *ret, or SC_E_INVAL. */
int store_error_parse(const char *name, enum store_error *ret) SC_WUR;

/* One URL's record (SPEC §5).  Strings are borrowed: pointer and length,
 * not NUL-terminated, any bytes (they need not be valid UTF-8; export
 * repairs that).  A NULL pointer means an optional string is absent, which
 * is different from an empty one; url, normalized and category are never
 * absent (NULL with length 0 is read as empty for them).  The key is
 * sc_url_key(normalized, normalized_len). */
struct store_record {
	const char *url; /* as first discovered */
	size_t url_len;
	const char *normalized; /* the frontier key; never empty */
	size_t normalized_len;
	const char *category;
	size_t category_len;
	const char *content_type; /* optional */
	size_t content_type_len;
	const char *title; /* optional */
	size_t title_len;
	const char *redirect; /* optional: normalized 3xx target */
	size_t redirect_len;
	const char *duplicate_of; /* optional: normalized representative */
	size_t duplicate_of_len;
	const char *rule; /* optional: the learned rule(s) that mapped url
			     to normalized (adaptive), as described */
	size_t rule_len;

	uint32_t depth; /* hops from its seed */
	int status;     /* HTTP status 100..999, or 0 for none */
	bool fetched;   /* a request was made */
	bool truncated; /* the body was cut at max_body_bytes */
	enum store_error error;
	uint64_t bytes;     /* body size as fetched, at most INT64_MAX */
	int64_t fetched_at; /* unix time in milliseconds */

	bool has_signature;
	unsigned char signature[16]; /* MD5 of the body text */
	bool has_simhash;
	uint64_t simhash;
	bool has_relevance;
	double relevance; /* finite */

	/* Re-crawls (SPEC §7). */
	bool has_visit;  /* the visit block below is present */
	uint32_t visits; /* fetches of this URL so far (>= 1 when fetched) */
	uint32_t interval_s; /* its current revisit interval, in seconds */
	int64_t due_at;      /* unix ms of its next visit; 0: none scheduled */
	bool has_changed_at;
	/* unix ms: a revisit saw its body-text signature change */
	int64_t changed_at;
	bool has_gone_at;
	int64_t gone_at;    /* unix ms: a revisit answered 404 or 410 */
	bool has_capture;   /* its last full WARC response record: */
	int64_t capture_at; /* that record's WARC-Date, unix ms */
	unsigned char capture_sha1[20]; /* its payload's SHA-1 */
	/* its WARC-Record-ID, 1..STORE_CAPTURE_ID_MAX (63) bytes; required
	 * with has_capture */
	const char *capture_id;
	size_t capture_id_len;
	/* optional: the last ETag received, as sent, at most STORE_ETAG_MAX
	 * (256) bytes */
	const char *etag;
	size_t etag_len;
	/* optional: the last Last-Modified received, at most
	 * STORE_LAST_MODIFIED_MAX (64) bytes */
	const char *last_modified;
	size_t last_modified_len;

	/* What the page said of itself, in <meta name=robots> or the
	 * X-Robots-Tag header (noindex, nofollow or none). */
	bool noindex, nofollow;
};

/* Bounds of the re-crawl strings.  An etag or last_modified that is
 * present but empty is stored as absent (the encoding never holds an
 * empty one), so it decodes as NULL. */
#define STORE_CAPTURE_ID_MAX 63
#define STORE_ETAG_MAX 256
#define STORE_LAST_MODIFIED_MAX 64

/* The binary encoding of a record (version 1 or 2), all integers big-endian,
 * the signed ones in two's complement:
 *
 *   offset size
 *   0      1    version, 1
 *   1      1    flags: 0x01 fetched, 0x02 truncated, 0x04 content_type,
 *               0x08 title, 0x10 redirect, 0x20 duplicate_of,
 *               0x40 signature, 0x80 simhash
 *   2      1    flags: 0x01 relevance, 0x02 rule, 0x04 visit block,
 *               0x08 changed_at, 0x10 gone_at, 0x20 capture, 0x40 etag,
 *               0x80 last_modified
 *   3      1    error kind (enum store_error)
 *   4      2    status (0 or 100..999)
 *   6      4    depth
 *   10     8    bytes (at most INT64_MAX)
 *   18     8    fetched_at
 *   26     1    version 2 only: flags: 0x01 noindex, 0x02 nofollow
 *               (not 0: a record without them is version 1)
 *   26 or 27    then, each only when its flag is set: signature (16
 *               bytes), simhash (8), relevance (8, IEEE 754 binary64 bits,
 *               finite), the visit block (visits 4, interval_s 4, due_at
 *               8, at least 0), changed_at (8), gone_at (8), the capture
 *               (capture_at 8, capture_sha1 20)
 *               then the strings, each a 4-byte length and its bytes:
 *               url, normalized (not empty), category, and when their
 *               flags are set content_type, title, redirect,
 *               duplicate_of, rule, capture_id (flag 0x20 of byte 2;
 *               1..STORE_CAPTURE_ID_MAX bytes), etag
 *               (1..STORE_ETAG_MAX), last_modified
 *               (1..STORE_LAST_MODIFIED_MAX)
 *
 * Nothing may follow the last string.  The decoder checks every rule above,
 * so exactly one byte string encodes a record and encode(decode(x)) == x.
 * The re-crawl parts (flags 0x04..0x80 of byte 2) came later within
 * version 1: a record without them is encoded as before, byte for byte, so
 * older stores read unchanged.  Byte 2 has no free bit left, so the
 * robots flags came with version 2, which only adds their byte: a record
 * without them is still version 1, byte for byte.  STORE_RECORD_HEADER is
 * version 1's header. */
#define STORE_RECORD_VERSION 1
#define STORE_RECORD_VERSION_ROBOTS 2
#define STORE_RECORD_HEADER 26

/* Largest encoded record store_put() accepts (1 MiB): a bound against
 * runaway titles, far above any real record. */
#define STORE_RECORD_MAX (1u << 20)

/* Checks R and computes its encoded size.  Returns 0 and sets *ret, or
 * SC_E_INVAL: empty normalized URL, status out of range, bytes over
 * INT64_MAX, non-finite relevance, unknown error kind, a negative due_at
 * (with has_visit), a capture_id absent, empty or over
 * STORE_CAPTURE_ID_MAX (with has_capture), an etag over STORE_ETAG_MAX or
 * a last_modified over STORE_LAST_MODIFIED_MAX bytes, or an encoding
 * larger than STORE_RECORD_MAX.  Parts whose flag is false are not looked
 * at (the capture_id without has_capture, the visit block without
 * has_visit). */
int store_record_size(const struct store_record *r, size_t *ret) SC_WUR;

/* Encodes R into BUF, which holds CAP bytes.  Returns 0 and sets *len, or
 * SC_E_INVAL (as store_record_size()) or SC_E_NOSPC. */
int store_record_encode(const struct store_record *r, unsigned char *buf,
			size_t cap, size_t *len) SC_WUR;

/* Decodes LEN bytes at DATA into *RET, whose strings then point into DATA.
 * Returns 0, or SC_E_CORRUPT for anything but a valid encoding (wrong
 * version, a length past the end, trailing bytes, a rule broken); *ret is
 * then unspecified.  Never reads outside DATA[0..LEN). */
int store_record_decode(const void *data, size_t len, struct store_record *ret)
	SC_WUR;

/* ---- The records database ----------------------------------------------- */

struct store;

/* Opens the "records" database of ENV in TXN, and the signature indexes
 * (below), creating them if TXN is a write transaction and they do not
 * exist yet.  As with every LMDB
 * database handle, open it once, in one thread, before the others use it;
 * if TXN is a write transaction, commit it before using the handle in any
 * other transaction (an abort closes the handle).
 *
 * Returns 0 and sets *ret (free it with store_close()), or SC_E_INVAL,
 * SC_E_NOMEM, SC_E_NOTFOUND (TXN is read-only and there is no records
 * database), or a code of store_db_error(). */
int store_open(MDB_env *env, MDB_txn *txn, struct store **ret) SC_WUR;

/* Frees the handle; LMDB's database handle stays open until the
 * environment closes.  NULL is accepted. */
void store_close(struct store *s);

/* Inserts R, or replaces the record of the same normalized URL, in the
 * write transaction TXN.  The record is encoded straight into LMDB's page
 * (MDB_RESERVE): no allocation.  Returns 0, SC_E_INVAL (see
 * store_record_size(); also for a NULL argument), SC_E_FULL (the map is
 * full; the transaction must then be aborted) or a code of
 * store_db_error(). */
int store_put(struct store *s, MDB_txn *txn, const struct store_record *r)
	SC_WUR;

/* Finds the record whose key is KEY (sc_url_key() of a normalized URL).
 * The strings of *ret point into the map and are valid only until TXN ends
 * (or, in a write transaction, until its next write).  Returns 0,
 * SC_E_NOTFOUND, SC_E_CORRUPT (the value does not decode, or its normalized
 * URL does not hash to KEY) or a code of store_db_error(). */
int store_get(struct store *s, MDB_txn *txn,
	      const unsigned char key[SC_KEY_LEN], struct store_record *ret)
	SC_WUR;

/* Deletes the record whose key is KEY.  Returns 0, SC_E_NOTFOUND or a
 * code of store_db_error(). */
int store_del(struct store *s, MDB_txn *txn,
	      const unsigned char key[SC_KEY_LEN]) SC_WUR;

/* Sets *ret to the number of records visible in TXN.  O(1).  Returns 0 or
 * a code of store_db_error(). */
int store_count(struct store *s, MDB_txn *txn, size_t *ret) SC_WUR;

/* Calls FN(ARG, record) for every record visible in TXN, in key order,
 * which is the order of the URLs' hashes, so effectively random but stable.
 * The record is borrowed as in store_get().  FN must not write to the
 * records database.  Stops at the first non-zero value FN returns and
 * returns it; returns SC_E_CORRUPT at the first record that does not
 * decode (those before it were already passed to FN), a code of
 * store_db_error(), or 0 after the last record. */
int store_foreach(struct store *s, MDB_txn *txn,
		  int (*fn)(void *arg, const struct store_record *r), void *arg)
	SC_WUR;

/* ---- Signature indexes (SPEC §1, §7) -------------------------------------
 *
 * Two more databases of the environment, opened by store_open() next to
 * the records and written, like them, in the caller's write transaction,
 * so that a page's record and its index entries commit together:
 *
 *   "signatures"  16-byte signature -> the normalized URL of its
 *                 representative, the first URL stored with it.
 *   "simhash"     (table t, 16-bit block t of the hash) -> sorted
 *                 duplicates of 32 bytes: the full 64-bit hash, a 64-bit
 *                 sequence number (the order of store_simhash_add()) and
 *                 the representative's key (sc_url_key() of its
 *                 normalized URL), all big-endian.
 *
 * The near-duplicate index is the permuted-table scheme of Manku, Jain and
 * Das Sarma (WWW 2007) for Hamming distance k <= 3: the 64 bits are split
 * into 4 blocks of 16 bits, and every fingerprint is filed once in each of
 * 4 tables under its block of that table.  Two hashes within distance 3
 * differ in at most 3 blocks, so by the pigeonhole principle they agree on
 * at least one whole block and meet in that block's table.  A lookup reads
 * 4 keys and compares the fingerprints filed under them: about 4 N / 65536
 * candidates for N random fingerprints (60 at a million), instead of N.
 * The price is 4 entries (128 bytes of values) per fingerprint.
 *
 * A store opened from a read-only transaction that predates these
 * databases reads as if they were empty. */

/* Length of a signature (an MD5 digest). */
#define STORE_SIG_LEN 16

/* The largest Hamming distance store_simhash_find() accepts. */
#define STORE_SIMHASH_MAX_K 3

/* Claims the signature SIG for the normalized URL NORMALIZED (LEN bytes,
 * 1..STORE_RECORD_MAX) in the write transaction TXN.
 *
 * Returns 0 when NORMALIZED is now (or already was) the representative of
 * SIG: claiming again for the representative itself is not a collision, so
 * a page fetched again after a crash never becomes its own duplicate.
 * Returns 1 when another URL holds SIG; *rep and *rep_len then give that
 * URL (not NUL-terminated), borrowed from the map: valid until TXN ends or
 * writes again.  REP and REP_LEN may be NULL.  Errors: SC_E_INVAL (a NULL
 * or empty argument, a read-only handle without the index), SC_E_FULL
 * (the map is full; abort the transaction) or a code of store_db_error(). */
int store_sig_claim(struct store *s, MDB_txn *txn,
		    const unsigned char sig[STORE_SIG_LEN],
		    const char *normalized, size_t len, const char **rep,
		    size_t *rep_len) SC_WUR;

/* Looks SIG up without claiming it, in any transaction.  Returns 0 and
 * sets *rep, *rep_len (borrowed as in store_sig_claim()), SC_E_NOTFOUND,
 * SC_E_INVAL or a code of store_db_error(). */
int store_sig_lookup(struct store *s, MDB_txn *txn,
		     const unsigned char sig[STORE_SIG_LEN], const char **rep,
		     size_t *rep_len) SC_WUR;

/* A near-duplicate found by store_simhash_find(). */
struct store_simhash_hit {
	uint64_t hash;                 /* the representative's fingerprint */
	unsigned distance;             /* Hamming distance to the query */
	uint64_t seq;                  /* order of addition, from 0 */
	unsigned char rep[SC_KEY_LEN]; /* sc_url_key() of its normalized URL */
};

/* Files the fingerprint HASH of the representative whose key is REP
 * (sc_url_key() of its normalized URL) in the write transaction TXN.
 * Adding a (hash, rep) pair that is already filed changes nothing.
 * Returns 0, SC_E_INVAL, SC_E_FULL, SC_E_CORRUPT (the index is not made
 * of whole entries) or a code of store_db_error(). */
int store_simhash_add(struct store *s, MDB_txn *txn, uint64_t hash,
		      const unsigned char rep[SC_KEY_LEN]) SC_WUR;

/* Finds the fingerprint nearest to HASH within Hamming distance K
 * (0..STORE_SIMHASH_MAX_K), in any transaction.  Of several, the one at
 * the smallest distance wins, then the earliest added, so the answer does
 * not depend on the tables' order.  Returns 0 and fills *ret,
 * SC_E_NOTFOUND (none within K), SC_E_INVAL (K over the maximum, a NULL
 * argument), SC_E_CORRUPT (a value of the wrong size) or a code of
 * store_db_error(). */
int store_simhash_find(struct store *s, MDB_txn *txn, uint64_t hash, unsigned k,
		       struct store_simhash_hit *ret) SC_WUR;

/* ---- Focused crawling (SPEC §1, §3, §6) ------------------------------------
 *
 * The "focus" database, opened by store_open() and written in the
 * caller's write transaction: what `report` needs to know of the
 * categories without the config (their settings, for the harvest rate),
 * the crawl's counters per category, and the URLs that a second category
 * reached after a first one had queued them (a URL is fetched once and
 * recorded under the first category; the second is noted here).  A store
 * opened read-only from before this database reads as if it were empty
 * (the functions that write then return SC_E_INVAL). */

/* The longest category name kept (conf: CONF_CATEGORY_NAME_MAX). */
#define STORE_CATEGORY_NAME_MAX 64

/* A category's settings, as the crawl that wrote them had them. */
struct store_category {
	const char *name; /* 1..STORE_CATEGORY_NAME_MAX bytes */
	size_t name_len;
	const char *keywords; /* ", "-separated; may be empty */
	size_t keywords_len;
	unsigned scope; /* enum conf_scope: 0 host, 1 domain, 2 any */
	unsigned tunnel;
	double min_relevance; /* 0.0..1.0 */
	/* The link prediction's settings; has_predict is false for a
	 * category kept by a version that did not keep them. */
	bool has_predict;
	bool predict;
	double predict_min; /* 0.0..1.0 */
	/* The harvest floor; has_min_harvest is false for a category kept
	 * by a version that did not keep it. */
	bool has_min_harvest;
	double min_harvest; /* 0.0..1.0 */
};

/* Counters per category (store_focus_count_add()), by index. */
enum store_focus_counter {
	STORE_FOCUS_PRUNED_SCOPE,     /* links out of the category's scope */
	STORE_FOCUS_PRUNED_RELEVANCE, /* links of off-topic pages past the
				       * tunnel */
	STORE_FOCUS_ALSO,             /* URLs reached from this category
				       * after another had queued them */
	/* Link prediction (docs/focus.md), from here on; a store written
	 * before them reads 0 for them. */
	STORE_FOCUS_PRUNED_PREDICTED, /* links predicted under predict_min */
	STORE_FOCUS_PRED_SCORED,      /* pages fetched with a prediction and
				       * a relevance */
	STORE_FOCUS_PRED_ON_ON,       /* ... predicted on topic, and on */
	STORE_FOCUS_PRED_ON_OFF,      /* predicted on topic, off */
	STORE_FOCUS_PRED_OFF_ON,      /* predicted off topic, on */
	STORE_FOCUS_PRED_SUM_P,       /* sum of the predictions, x 1000 */
	/* The prediction's link classes (STORE_FOCUS_CLASSES): pages
	 * fetched through a link of each, and those on topic. */
	STORE_FOCUS_CLASS_N,
	STORE_FOCUS_CLASS_ON = STORE_FOCUS_CLASS_N + 12,
	/* Roots of hosts not met that focus queued to look at them
	 * (docs/focus.md "Hosts not met"). */
	STORE_FOCUS_LOOKS = STORE_FOCUS_CLASS_ON + 12,
	/* The harvest floor (docs/focus.md "Harvest floor"): pages
	 * fetched with a 2xx answer and a relevance, those on topic (as
	 * `report` counts them from the records: the floor's running
	 * harvest, kept over restarts), the pruned links queued to explore,
	 * and the pages fetched from them and those on topic. */
	STORE_FOCUS_SCORED,
	STORE_FOCUS_ON,
	STORE_FOCUS_EXPLORE_QUEUED,
	STORE_FOCUS_EXPLORED,
	STORE_FOCUS_EXPLORED_ON,
	STORE_FOCUS_COUNTERS
};
#define STORE_FOCUS_CLASSES 12

/* Keep c's settings under its name, replacing older ones.  Returns 0,
 * SC_E_INVAL or a code of store_db_error(). */
int store_category_put(struct store *s, MDB_txn *txn,
		       const struct store_category *c) SC_WUR;

/* The settings kept for the category name (len bytes).  The strings of
 * *ret: name is the caller's, keywords borrowed as in store_get().
 * Returns 0, SC_E_NOTFOUND, SC_E_CORRUPT, SC_E_INVAL or a code of
 * store_db_error(). */
int store_category_get(struct store *s, MDB_txn *txn, const char *name,
		       size_t len, struct store_category *ret) SC_WUR;

/* Calls fn for every category kept, in name order (the name is borrowed
 * for the call).  Stops at fn's first nonzero value and returns it. */
int store_category_foreach(struct store *s, MDB_txn *txn,
			   int (*fn)(void *arg, const char *name, size_t len),
			   void *arg) SC_WUR;

/* Add add[i] to the category's counter i.  Returns 0, SC_E_INVAL,
 * SC_E_CORRUPT or a code of store_db_error(). */
int store_focus_count_add(struct store *s, MDB_txn *txn, const char *name,
			  size_t len, const uint64_t add[STORE_FOCUS_COUNTERS])
	SC_WUR;

/* The category's counters (all 0 when none were kept). */
int store_focus_count_get(struct store *s, MDB_txn *txn, const char *name,
			  size_t len, uint64_t ret[STORE_FOCUS_COUNTERS])
	SC_WUR;

/* Note that the URL whose key is key was reached from the category name
 * as well.  Returns 1 when noted now, 0 when it was already, SC_E_INVAL
 * or a code of store_db_error(). */
int store_also_add(struct store *s, MDB_txn *txn,
		   const unsigned char key[SC_KEY_LEN], const char *name,
		   size_t len) SC_WUR;

/* Calls fn for every note, in key order (all the notes of one URL
 * together).  Stops at fn's first nonzero value and returns it. */
int store_also_foreach(struct store *s, MDB_txn *txn,
		       int (*fn)(void *arg, const unsigned char key[SC_KEY_LEN],
				 const char *name, size_t len),
		       void *arg) SC_WUR;

/* ---- The robots.txt cache (RFC 9309 §2.4) ----------------------------------
 *
 * The last answer of each robots.txt the crawl fetched, with its expiry,
 * so that a restarted crawl does not ask every host again.  One more
 * database of the environment, "frontier.robots" (its name from when the
 * frontier kept it; the name and the value layout are unchanged, so older
 * stores read as they did), opened by store_open() and written in the
 * caller's write transaction.  A store opened read-only from before this
 * database reads as if it were empty. */

/* The longest robots.txt URL kept: the value stores its length in 2
 * bytes. */
#define STORE_ROBOTS_URL_MAX 0xffffu

/* One cached robots.txt answer.  body points into the map (after a get,
 * valid as in store_get()) or into the caller's memory (for a put). */
struct store_robots {
	int64_t fetched_at; /* unix ms */
	int64_t expires_at; /* unix ms: not to be used after it */
	int status;         /* the final HTTP status, 100..999 */
	const char *body;
	size_t body_len; /* at most SC_ROBOTS_MAX_BYTES */
};

/* Keeps R as the answer for the robots.txt at URL (its full URL, LEN
 * bytes), replacing any older one, in the write transaction TXN.  Returns
 * 0, SC_E_INVAL (a NULL argument, a status outside 100..999, a body over
 * SC_ROBOTS_MAX_BYTES, a handle without the database), SC_E_TOOLONG (LEN
 * 0 or over STORE_ROBOTS_URL_MAX) or a code of store_db_error(). */
int store_robots_put(struct store *s, MDB_txn *txn, const char *url, size_t len,
		     const struct store_robots *r) SC_WUR;

/* The answer kept for URL, as TXN sees it (any transaction).  Expiry is
 * the caller's to check.  Returns 0 and fills *ret, SC_E_NOTFOUND (also
 * when another URL has the same key), SC_E_CORRUPT (a value this version
 * did not write), SC_E_INVAL or a code of store_db_error(). */
int store_robots_get(struct store *s, MDB_txn *txn, const char *url, size_t len,
		     struct store_robots *ret) SC_WUR;

/* ---- Adaptive normalization's database (SPEC §7) --------------------------
 *
 * A key-value table for what the crawl learns about its hosts' URLs: the
 * rules, their evidence, the URLs they hold back.  The layout is the
 * learner's (crawler/learn/adapt.c); the store bounds and keeps it.  Written
 * only in the writer's transactions, so it commits with the records it
 * concerns and survives a kill -9 as they do.  A store written before it
 * existed reads as empty. */

#define STORE_ADAPT_KEY_MAX 256

/* Put, get (the value is valid until the next write in txn), delete.
 * Return 0, SC_E_INVAL, SC_E_NOTFOUND (get, del), or a code of
 * store_db_error(). */
int store_adapt_put(struct store *s, MDB_txn *txn, const void *key, size_t klen,
		    const void *val, size_t vlen) SC_WUR;
int store_adapt_get(struct store *s, MDB_txn *txn, const void *key, size_t klen,
		    const void **val, size_t *vlen) SC_WUR;
int store_adapt_del(struct store *s, MDB_txn *txn, const void *key, size_t klen)
	SC_WUR;

/* Call fn for every entry whose key starts with prefix (plen bytes; 0:
 * all), in key order, until it returns non-zero, which is then returned.
 * fn must not write in txn.  Returns 0, SC_E_INVAL or a code of
 * store_db_error(). */
int store_adapt_scan(struct store *s, MDB_txn *txn, const void *prefix,
		     size_t plen,
		     int (*fn)(void *arg, const void *key, size_t klen,
			       const void *val, size_t vlen),
		     void *arg) SC_WUR;

/* ---- Export (SPEC §5) -----------------------------------------------------
 */

/* Writes R as one JSON object and a '\n' to F.  Every field is present, in
 * this order: url, normalized, category, depth, status, fetched,
 * content_type, bytes, fetched_at, title, redirect, signature, simhash,
 * duplicate_of, relevance (SPEC §5), error, truncated, rule (sigcrawl's
 * own), visits, changed_at (SPEC §5), gone_at, next_visit, interval, etag,
 * last_modified, robots (sigcrawl's own).  Absent optional strings (an empty
 * etag or last_modified among them), status 0, and status, bytes and fetched_at
 * of a record that was not fetched are null; signature is 32 lower-case hex
 * digits, simhash 16; error is null for STORE_ERROR_NONE, else its name. visits
 * is R's visits with has_visit, else 1 for a fetched record and 0 for one that
 * was not; changed_at and gone_at are unix ms or null; next_visit is due_at
 * (unix ms) with has_visit and a due_at over 0, else null; interval is
 * interval_s (seconds) with has_visit, else null; robots is "noindex",
 * "nofollow" or "noindex,nofollow", or null when the page said neither.  The
 * capture is not exported.  Strings that are not valid UTF-8 have each invalid
 * byte replaced by U+FFFD, since JSON text must be Unicode; a NUL byte is
 * written as \u0000.  Returns 0, SC_E_NOMEM or SC_E_IO (writing F failed). */
int store_export_jsonl(const struct store_record *r, FILE *f) SC_WUR;

/* Writes the CSV header line, the column names of store_export_csv(), to
 * F.  Returns 0 or SC_E_IO. */
int store_export_csv_header(FILE *f) SC_WUR;

/* Writes R as one CSV line (RFC 4180: lines end in CRLF; a field holding a
 * comma, a double quote, CR or LF is quoted, its quotes doubled) with the
 * columns of the JSON object, in its order.  Null is an empty field,
 * booleans are "true" and "false".  The CSV is meant for spreadsheets, so
 * two things are
 * repaired, and JSONL is the lossless format: invalid UTF-8 bytes and NUL
 * become U+FFFD, and a text field starting with '=', '+', '-', '@', TAB or
 * CR gets a leading "'" so that no spreadsheet reads it as a formula
 * (OWASP's CSV injection advice).  Returns 0 or SC_E_IO. */
int store_export_csv(const struct store_record *r, FILE *f) SC_WUR;

#endif
