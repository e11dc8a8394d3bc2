/* store.h — the crawl's per-URL records in LMDB, and their export.
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
 * The WARC writer is independent of LMDB: it writes the raw responses as
 * WARC 1.1 files when `[store] warc = yes`.  So is the full-text search
 * index (the last section), an SQLite database in the same directory.
 *
 * Errors: every function that can fail returns 0 or a negative sc_err code.
 * LMDB's own codes are translated by store_db_error(): the caller's
 * mdb_txn_commit() and friends can use it too. */
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
 * The map size is 64 GiB on 64-bit systems (1 GiB otherwise): LMDB maps the
 * file sparsely, so the size only bounds growth and costs no disk or
 * memory until pages are written.  The environment is opened with
 * MDB_NOTLS, so read transactions are not tied to threads, and (read-write)
 * with MDB_WRITEMAP: a write transaction's dirty pages are the file's own
 * pages, not malloc'd copies, so the writer's anonymous memory does not
 * grow with the transaction or the store (bench-frontier: RssAnon flat
 * from 10 k to 10 M URLs).  The price: a stray write through a pointer
 * into the map could damage the file, and the data file's apparent size
 * (ls -l) is the map size, while its blocks on disk are what is used.
 * Commits are
 * durable: mdb_txn_commit() fsyncs data and meta page before it returns,
 * which is what lets a kill -9 or a power cut lose nothing committed.  The
 * crawler keeps that cost low by committing many operations at once.
 *
 * Returns 0 and sets *ret, or SC_E_INVAL (NULL argument, unknown flag),
 * SC_E_NOTFOUND (STORE_RDONLY and no store in DIR), SC_E_IO (a system call
 * failed; errno says why), SC_E_CORRUPT (the files are not an LMDB
 * environment of this LMDB version), SC_E_NOMEM or SC_E_DB. */
int store_env_open(const char *dir, unsigned flags, MDB_env **ret) SC_WUR;

/* Closes the environment; every transaction must have ended.  NULL is
 * accepted. */
void store_env_close(MDB_env *env);

/* Translates an LMDB return code into an sc_err code: 0 stays 0,
 * MDB_NOTFOUND gives SC_E_NOTFOUND, ENOMEM SC_E_NOMEM, MDB_MAP_FULL
 * SC_E_NOSPC, MDB_CORRUPTED, MDB_INVALID, MDB_PAGE_NOTFOUND and
 * MDB_VERSION_MISMATCH SC_E_CORRUPT, any other system error (a positive
 * errno value) SC_E_IO with errno set to it, anything else SC_E_DB.  For a
 * message, print mdb_strerror() of the original code. */
int store_db_error(int mdb_rc);

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
	STORE_ERROR_COUNT
};

/* The export name of an error kind ("none", "dns", "too_big", ...), or NULL
 * for a value out of range. */
const char *store_error_name(enum store_error e);

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
};

/* The binary encoding of a record (version 1), all integers big-endian:
 *
 *   offset size
 *   0      1    version, 1
 *   1      1    flags: 0x01 fetched, 0x02 truncated, 0x04 content_type,
 *               0x08 title, 0x10 redirect, 0x20 duplicate_of,
 *               0x40 signature, 0x80 simhash
 *   2      1    flags: 0x01 relevance; the other bits must be 0
 *   3      1    error kind (enum store_error)
 *   4      2    status (0 or 100..999)
 *   6      4    depth
 *   10     8    bytes (at most INT64_MAX)
 *   18     8    fetched_at (two's complement)
 *   26          then, each only when its flag is set: signature (16
 *               bytes), simhash (8), relevance (8, IEEE 754 binary64 bits,
 *               finite)
 *               then the strings, each a 4-byte length and its bytes:
 *               url, normalized (not empty), category, and when their
 *               flags are set content_type, title, redirect, duplicate_of
 *
 * Nothing may follow the last string.  The decoder checks every rule above,
 * so exactly one byte string encodes a record and encode(decode(x)) == x. */
#define STORE_RECORD_VERSION 1
#define STORE_RECORD_HEADER 26

/* Largest encoded record store_put() accepts (1 MiB): a bound against
 * runaway titles, far above any real record. */
#define STORE_RECORD_MAX (1u << 20)

/* Checks R and computes its encoded size.  Returns 0 and sets *ret, or
 * SC_E_INVAL: empty normalized URL, status out of range, bytes over
 * INT64_MAX, non-finite relevance, unknown error kind, or an encoding
 * larger than STORE_RECORD_MAX. */
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
 * store_record_size(); also for a NULL argument), SC_E_NOSPC (the map is
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
 * or empty argument, a read-only handle without the index), SC_E_NOSPC
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
 * Returns 0, SC_E_INVAL, SC_E_NOSPC, SC_E_CORRUPT (the index is not made
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
};

/* Counters per category (store_focus_count_add()), by index. */
enum store_focus_counter {
	STORE_FOCUS_PRUNED_SCOPE,     /* links out of the category's scope */
	STORE_FOCUS_PRUNED_RELEVANCE, /* links of off-topic pages past the
				       * tunnel */
	STORE_FOCUS_ALSO,             /* URLs reached from this category
				       * after another had queued them */
	STORE_FOCUS_COUNTERS
};

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

/* ---- Export (SPEC §5) -----------------------------------------------------
 */

/* Writes R as one JSON object and a '\n' to F.  Every field is present, in
 * the order of SPEC §5 followed by "error" and "truncated": absent optional
 * strings, status 0, and status, bytes and fetched_at of a record that was
 * not fetched are null; signature is 32 lower-case hex digits, simhash 16;
 * error is null for STORE_ERROR_NONE, else its name.  Strings that are not
 * valid UTF-8 have each invalid byte replaced by U+FFFD, since JSON text
 * must be Unicode; a NUL byte is written as \u0000.  Returns 0, SC_E_NOMEM
 * or SC_E_IO (writing F failed). */
int store_export_jsonl(const struct store_record *r, FILE *f) SC_WUR;

/* Writes the CSV header line, the column names of store_export_csv(), to
 * F.  Returns 0 or SC_E_IO. */
int store_export_csv_header(FILE *f) SC_WUR;

/* Writes R as one CSV line (RFC 4180: lines end in CRLF; a field holding a
 * comma, a double quote, CR or LF is quoted, its quotes doubled) with the
 * columns of the JSON object.  Null is an empty field, booleans are "true"
 * and "false".  The CSV is meant for spreadsheets, so two things are
 * repaired, and JSONL is the lossless format: invalid UTF-8 bytes and NUL
 * become U+FFFD, and a text field starting with '=', '+', '-', '@', TAB or
 * CR gets a leading "'" so that no spreadsheet reads it as a formula
 * (OWASP's CSV injection advice).  Returns 0 or SC_E_IO. */
int store_export_csv(const struct store_record *r, FILE *f) SC_WUR;

/* ---- WARC 1.1 files (ISO 28500:2017) ------------------------------------
 *
 * A WARC writer appends each fetch as two records, a `response` and a
 * `request` (application/http;msgtype=response and msgtype=request, linked
 * both ways by WARC-Concurrent-To), to the file PREFIX-TIME-NNNNN.warc.gz
 * in its directory: TIME is the UTC time the file was started, as
 * YYYYMMDDhhmmssmmm, and NNNNN counts the files of this writer from 00000.
 * Each file begins with a `warcinfo` record.  Every record is its own gzip
 * member, so an index of (file, offset, length) can seek to one record and
 * inflate it alone.
 *
 * A file is written under its name plus ".open" and renamed to its final
 * name when it is finished, so a reader that takes only *.warc.gz never
 * sees a partial file.  A file is finished when it has passed
 * max_file_bytes (checked after each exchange, so an exchange is never split
 * between files and a file may exceed the limit by one exchange) and by
 * warc_close().  A file is started lazily by the first exchange written to
 * it: a writer that writes nothing leaves no file.  One directory and prefix
 * belong to one writer at a time.  After a crash, a *.warc.gz.open file
 * holds every record up to the last warc_flush(), possibly followed by a
 * partial gzip member; nothing renames or repairs it.
 *
 * What the response record holds.  libcurl removes the chunked framing of
 * a body and, when the crawler asks it to, decodes gzip, deflate or br;
 * the payload handed to warc_write_exchange() is then no longer the bytes
 * the headers describe.  So that the record stays a valid HTTP message
 * whose headers describe its payload, the received header block is
 * rewritten:
 *   - Transfer-Encoding is always removed (the payload is never chunked);
 *   - Content-Encoding is removed when payload_decoded is set;
 *   - Content-Length is replaced by the payload's length when a header
 *     above was removed, or when it does not equal that length (a body cut
 *     at max_body_bytes);
 * and every header removed or replaced is kept as
 * X-Sigcrawl-Original-<Name>: <value>.  Other headers are kept byte for
 * byte.  Lines ending in a bare LF are written with CRLF.  If the head holds
 * several responses (an interim 100 Continue before the final one), only
 * the last is kept.  WARC-Payload-Digest is the SHA-1 of the payload as
 * stored, WARC-Block-Digest that of the whole block (rewritten head and
 * payload), both as "sha1:" and 32 RFC 4648 base32 digits.
 *
 * Nothing the network controls can break the record framing: every record
 * has an exact Content-Length; the target URI must be printable ASCII
 * without spaces; the IP address must parse as one; header blocks are
 * bounded (WARC_HEAD_MAX) and may not contain NUL or a CR outside a CRLF.
 *
 * The writer is not thread-safe: one thread (the crawler's writer thread)
 * uses it. */

struct warc_writer;

/* The largest request or response header block accepted, as received. */
#define WARC_HEAD_MAX (64u * 1024)

/* The longest target URI accepted. */
#define WARC_URI_MAX 8192

/* Options of warc_open().  Strings are copied; NULL or 0 selects the
 * default. */
struct warc_opts {
	const char *prefix;        /* file name prefix: 1..64 of [A-Za-z0-9._-];
				      default "sigcrawl" */
	uint64_t max_file_bytes;   /* finish a file once it has passed this
				      many (compressed) bytes; default 1 GiB */
	const char *software;      /* warcinfo "software"; default
				      "sigcrawl/" SC_VERSION */
	const char *operator_name; /* warcinfo "operator"; optional */
	const char *hostname; /* warcinfo "hostname"; default gethostname() */
};

/* One fetch: what was sent and what came back.  Every pointer is borrowed
 * for the call only. */
struct warc_exchange {
	const char *target_uri; /* the URL fetched, NUL-terminated */
	int64_t fetched_at;     /* unix time in milliseconds (WARC-Date) */
	const char *ip;         /* the server's address as text, or NULL */
	const void *request;    /* request line and headers as sent */
	size_t request_len;
	const void *response_head; /* status line and headers as received */
	size_t response_head_len;
	const void *payload; /* the body as handed over by libcurl */
	size_t payload_len;
	bool payload_decoded; /* libcurl removed a Content-Encoding */
};

/* Prepares a writer for the directory DIR, created with mode 0750 if it
 * does not exist; files are created with mode 0640.  O may be NULL for every
 * default.  No file is created until the first exchange.  Returns 0 and
 * sets *ret (free it with warc_close()), or SC_E_INVAL (NULL DIR, a bad
 * prefix, a string option with a control character), SC_E_IO (DIR cannot
 * be created or is not a writable directory; errno says why) or
 * SC_E_NOMEM. */
int warc_open(const char *dir, const struct warc_opts *o,
	      struct warc_writer **ret) SC_WUR;

/* Appends X as a response and a request record, starting a new file
 * first if none is open.  The payload is read twice (digests, then
 * deflate) and never copied.  Returns 0, SC_E_INVAL (NULL argument; a
 * target URI empty, longer than WARC_URI_MAX or with a byte outside
 * 0x21..0x7e; an IP address that does not parse; a header block empty,
 * longer than WARC_HEAD_MAX, with a NUL, a bare CR, or (for the request)
 * more than one message, or a response head whose last message does not
 * begin with "HTTP/"), SC_E_NOMEM, or SC_E_IO (writing failed; errno says
 * why).  Nothing is written on SC_E_INVAL.  After SC_E_IO the writer cuts
 * the file back to its last whole record; if even that fails, every later
 * call returns SC_E_IO. */
int warc_write_exchange(struct warc_writer *w, const struct warc_exchange *x)
	SC_WUR;

/* Makes every record written so far durable: fflush() and fsync() of the
 * open file (and of the directory, once per new file).  The crawler calls
 * it before each LMDB commit, so a committed page has its records on disk.
 * Returns 0 or SC_E_IO. */
int warc_flush(struct warc_writer *w) SC_WUR;

/* Finishes the open file (flush, fsync, rename to its final name, fsync of
 * the directory) and frees W.  NULL is accepted.  Returns 0, or SC_E_IO if
 * finishing failed: W is freed either way, and the file keeps its ".open"
 * name. */
int warc_close(struct warc_writer *w);

/* ---- Full-text search (SPEC §1 categorized crawling, §2 search) ----------
 *
 * An SQLite database with an FTS5 table, STORE/search.sqlite next to the
 * LMDB files, answers `sigcrawl search`.  SQLite, not LMDB, because FTS5
 * is a well-kept inverted index with bm25() ranking and snippets, which
 * nobody should write again by hand.  The schema (version 1, in
 * PRAGMA user_version):
 *
 *   pages(id INTEGER PRIMARY KEY, url TEXT UNIQUE, category, title, body)
 *                one row per indexed representative page: its normalized
 *                URL, the category it was crawled in, its title and its
 *                body text (SPEC §5, at most 1 MiB);
 *   pages_fts    FTS5 over (title, body) with pages as its external
 *                content, kept in step by triggers; unicode61 tokens,
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
