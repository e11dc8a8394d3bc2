/* test-store.c — unit tests of store/: the record encoding, the records
 * database inside caller-owned transactions, the robots.txt cache, and the
 * JSONL and CSV export.
 *
 * Every LMDB environment lives in a fresh mkdtemp() directory that is
 * removed at the end. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "store.h"

static char tmpdir[] = "/tmp/test-store.XXXXXX";

/* Removes DIR's LMDB files and DIR itself. */
static void remove_store(const char *dir)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/data.mdb", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/lock.mdb", dir);
	unlink(p);
	rmdir(dir);
}

static bool str_eq(const char *a, size_t alen, const char *b, size_t blen)
{
	if (!a || !b)
		return !a && !b;
	return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

/* Equal as stored: url, normalized and category are never absent. */
static bool req_eq(const char *a, size_t alen, const char *b, size_t blen)
{
	return str_eq(a ? a : "", a ? alen : 0, b ? b : "", b ? blen : 0);
}

static bool rec_eq(const struct store_record *a, const struct store_record *b)
{
	return req_eq(a->url, a->url_len, b->url, b->url_len) &&
	       req_eq(a->normalized, a->normalized_len, b->normalized,
		      b->normalized_len) &&
	       req_eq(a->category, a->category_len, b->category,
		      b->category_len) &&
	       str_eq(a->content_type, a->content_type_len, b->content_type,
		      b->content_type_len) &&
	       str_eq(a->title, a->title_len, b->title, b->title_len) &&
	       str_eq(a->redirect, a->redirect_len, b->redirect,
		      b->redirect_len) &&
	       str_eq(a->duplicate_of, a->duplicate_of_len, b->duplicate_of,
		      b->duplicate_of_len) &&
	       str_eq(a->rule, a->rule_len, b->rule, b->rule_len) &&
	       a->depth == b->depth && a->status == b->status &&
	       a->fetched == b->fetched && a->truncated == b->truncated &&
	       a->error == b->error && a->bytes == b->bytes &&
	       a->fetched_at == b->fetched_at &&
	       a->has_signature == b->has_signature &&
	       (!a->has_signature ||
		memcmp(a->signature, b->signature, 16) == 0) &&
	       a->has_simhash == b->has_simhash &&
	       (!a->has_simhash || a->simhash == b->simhash) &&
	       a->has_relevance == b->has_relevance &&
	       (!a->has_relevance || a->relevance == b->relevance);
}

/* A record with every field set; the strings are static. */
static struct store_record full_record(const char *normalized)
{
	static const char title[] = "Caf\xc3\xa9, \"quoted\"\n\x01 title";
	struct store_record r = {
		.url = "HTTP://Example.com/a?utm_source=x",
		.normalized = normalized,
		.category = "news",
		.content_type = "text/html; charset=utf-8",
		.title = title,
		.title_len = sizeof(title) - 1,
		.redirect = "http://example.com/b",
		.duplicate_of = "http://example.com/c",
		.rule = "ignore parameter sid",
		.depth = 3,
		.status = 200,
		.fetched = true,
		.truncated = true,
		.error = STORE_ERROR_TOO_BIG,
		.bytes = 123456,
		.fetched_at = 1700000000123,
		.has_signature = true,
		.signature = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
			       0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff },
		.has_simhash = true,
		.simhash = 0x0123456789abcdefULL,
		.has_relevance = true,
		.relevance = 0.625,
	};
	r.url_len = strlen(r.url);
	r.normalized_len = strlen(normalized);
	r.category_len = strlen(r.category);
	r.content_type_len = strlen(r.content_type);
	r.redirect_len = strlen(r.redirect);
	r.duplicate_of_len = strlen(r.duplicate_of);
	r.rule_len = strlen(r.rule);
	return r;
}

/* encode, decode, compare, encode again: the same bytes. */
static void roundtrip(const struct store_record *r)
{
	size_t size, len, len2;
	CHECK(store_record_size(r, &size) == 0);
	unsigned char *buf = malloc(size), *buf2 = malloc(size);
	CHECK(store_record_encode(r, buf, size, &len) == 0 && len == size);
	struct store_record d;
	CHECK(store_record_decode(buf, len, &d) == 0);
	CHECK(rec_eq(r, &d));
	CHECK(store_record_encode(&d, buf2, size, &len2) == 0 && len2 == len &&
	      memcmp(buf, buf2, len) == 0);
	free(buf);
	free(buf2);
}

static void test_roundtrip(void)
{
	unsigned before = check_failed;
	/* Every combination of the ten optional parts and booleans. */
	for (unsigned m = 0; m < 1024; m++) {
		struct store_record r = full_record("http://example.com/a");
		if (!(m & 1))
			r.content_type = NULL;
		if (!(m & 2))
			r.title = NULL;
		if (!(m & 4))
			r.redirect = NULL;
		if (!(m & 8))
			r.duplicate_of = NULL;
		r.has_signature = m & 16;
		r.has_simhash = m & 32;
		r.has_relevance = m & 64;
		r.fetched = m & 128;
		r.truncated = m & 256;
		if (!(m & 512))
			r.rule = NULL;
		roundtrip(&r);
	}
	/* Present but empty strings stay present and empty. */
	struct store_record r = full_record("x");
	r.url = "";
	r.url_len = 0;
	r.category = NULL;
	r.category_len = 0;
	r.content_type_len = r.title_len = r.redirect_len = 0;
	r.duplicate_of_len = 0;
	roundtrip(&r);
	size_t size, len;
	unsigned char buf[256];
	CHECK(store_record_encode(&r, buf, sizeof(buf), &len) == 0);
	struct store_record d;
	CHECK(store_record_decode(buf, len, &d) == 0);
	CHECK(d.title && d.title_len == 0 && d.content_type && d.redirect &&
	      d.duplicate_of && d.category && d.category_len == 0);

	/* Binary bytes, NUL included, in every string. */
	static const char bin[] = "\0\xff\xfe\x80\x00zz\r\n";
	r = full_record("http://example.com/\xff\x00/");
	r.normalized_len = 21;
	r.url = r.title = r.category = bin;
	r.url_len = r.title_len = r.category_len = sizeof(bin) - 1;
	roundtrip(&r);

	/* Extremes of the numbers. */
	r = full_record("http://example.com/");
	r.depth = UINT32_MAX;
	r.status = 999;
	r.bytes = INT64_MAX;
	r.fetched_at = INT64_MIN;
	r.simhash = UINT64_MAX;
	r.relevance = -1e308;
	r.error = STORE_ERROR_COUNT - 1;
	roundtrip(&r);
	r.status = 100;
	r.fetched_at = -1;
	r.relevance = 5e-324;
	roundtrip(&r);

	/* Long strings: a 2048-byte URL and a title near the limit. */
	char *big = malloc(STORE_RECORD_MAX);
	memset(big, 'a', STORE_RECORD_MAX);
	r = full_record("http://example.com/");
	r.url = r.normalized = big;
	r.url_len = r.normalized_len = 2048;
	roundtrip(&r);
	r.title = big;
	r.title_len = STORE_RECORD_MAX - 2 * 2048 - 1000;
	roundtrip(&r);
	r.title_len = STORE_RECORD_MAX;
	CHECK(store_record_size(&r, &size) == SC_E_INVAL);
	r.title_len = SIZE_MAX;
	CHECK(store_record_size(&r, &size) == SC_E_INVAL);
	free(big);
	CHECK(check_failed == before);
}

static void test_invalid_records(void)
{
	size_t size, len;
	unsigned char buf[512];
	struct store_record r = full_record("http://example.com/");
	CHECK(store_record_encode(&r, buf, 10, &len) == SC_E_NOSPC);
	CHECK(store_record_size(&r, &size) == 0);
	CHECK(store_record_encode(&r, buf, size - 1, &len) == SC_E_NOSPC);
	CHECK(store_record_encode(&r, buf, size, &len) == 0 && len == size);

	struct store_record bad = r;
	bad.normalized_len = 0;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	bad = r;
	bad.normalized = NULL;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	bad = r;
	bad.status = 42;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	bad.status = 1000;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	bad.status = -200;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	bad = r;
	bad.bytes = (uint64_t)INT64_MAX + 1;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	bad = r;
	bad.relevance = NAN;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	bad.relevance = INFINITY;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	bad.has_relevance = false; /* an absent relevance is not looked at */
	CHECK(store_record_size(&bad, &size) == 0);
	bad = r;
	bad.error = STORE_ERROR_COUNT;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	CHECK(store_record_size(NULL, &size) == SC_E_INVAL);
}

static void test_corrupt_values(void)
{
	unsigned before = check_failed;
	struct store_record r = full_record("http://example.com/"), d;
	unsigned char buf[512], tmp[513];
	size_t len;
	CHECK(store_record_encode(&r, buf, sizeof(buf), &len) == 0);
	CHECK(store_record_decode(buf, len, &d) == 0);

	/* Every proper prefix is rejected, and so is any trailing byte. */
	for (size_t n = 0; n < len; n++)
		CHECK(store_record_decode(buf, n, &d) == SC_E_CORRUPT);
	memcpy(tmp, buf, len);
	tmp[len] = 0;
	CHECK(store_record_decode(tmp, len + 1, &d) == SC_E_CORRUPT);

	struct {
		size_t at;
		unsigned char val;
	} patches[] = {
		{ 0, 0 },                 /* version 0 */
		{ 0, 2 },                 /* version 2 */
		{ 2, 0x02 },              /* reserved flag bit */
		{ 2, 0x81 },              /* reserved flag bit */
		{ 3, STORE_ERROR_COUNT }, /* unknown error kind */
		{ 3, 0xff },
	};
	for (size_t i = 0; i < sizeof(patches) / sizeof(*patches); i++) {
		memcpy(tmp, buf, len);
		tmp[patches[i].at] = patches[i].val;
		CHECK(store_record_decode(tmp, len, &d) == SC_E_CORRUPT);
	}
	/* status 50 and 1000 */
	memcpy(tmp, buf, len);
	tmp[4] = 0;
	tmp[5] = 50;
	CHECK(store_record_decode(tmp, len, &d) == SC_E_CORRUPT);
	tmp[4] = 0x03;
	tmp[5] = 0xe8;
	CHECK(store_record_decode(tmp, len, &d) == SC_E_CORRUPT);
	/* bytes over INT64_MAX */
	memcpy(tmp, buf, len);
	tmp[10] = 0x80;
	CHECK(store_record_decode(tmp, len, &d) == SC_E_CORRUPT);

	/* The url's length (after 26 + 16 + 8 + 8 fixed bytes) past the end,
	 * by one and by almost 4 GiB. */
	size_t at = STORE_RECORD_HEADER + 32;
	memcpy(tmp, buf, len);
	tmp[at + 3] = (unsigned char)(tmp[at + 3] + 1);
	CHECK(store_record_decode(tmp, len, &d) == SC_E_CORRUPT);
	memcpy(tmp, buf, len);
	tmp[at] = tmp[at + 1] = tmp[at + 2] = tmp[at + 3] = 0xff;
	CHECK(store_record_decode(tmp, len, &d) == SC_E_CORRUPT);
	/* A flag whose part is missing: the parts shift and cannot fit. */
	memcpy(tmp, buf, len);
	tmp[1] &= (unsigned char)~0x40; /* no signature */
	CHECK(store_record_decode(tmp, len, &d) == SC_E_CORRUPT);

	/* A NaN relevance. */
	memcpy(tmp, buf, len);
	memset(tmp + STORE_RECORD_HEADER + 24, 0xff, 8);
	CHECK(store_record_decode(tmp, len, &d) == SC_E_CORRUPT);

	/* An empty normalized URL, well-formed otherwise. */
	unsigned char e[STORE_RECORD_HEADER + 12] = { 1 };
	CHECK(store_record_decode(e, sizeof(e), &d) == SC_E_CORRUPT);
	unsigned char ok[STORE_RECORD_HEADER + 13] = { 1 };
	ok[STORE_RECORD_HEADER + 7] = 1;
	ok[STORE_RECORD_HEADER + 8] = 'x';
	CHECK(store_record_decode(ok, sizeof(ok), &d) == 0 &&
	      d.normalized_len == 1 && d.normalized[0] == 'x' &&
	      d.url_len == 0 && !d.title && !d.fetched);
	CHECK(store_record_decode(NULL, 0, &d) == SC_E_CORRUPT);
	CHECK(check_failed == before);
}

static void test_error_names(void)
{
	for (unsigned i = 0; i < STORE_ERROR_COUNT; i++) {
		const char *n = store_error_name((enum store_error)i);
		enum store_error e;
		CHECK(n && store_error_parse(n, &e) == 0 && e == i);
	}
	CHECK_STR(store_error_name(STORE_ERROR_NONE), "none");
	CHECK_STR(store_error_name(STORE_ERROR_TOO_MANY_REDIRECTS),
		  "too_many_redirects");
	/* The kinds of unreachable hosts and page budgets, by their
	 * stored numbers, which never change. */
	CHECK_STR(store_error_name((enum store_error)12), "robots_unreachable");
	CHECK_STR(store_error_name((enum store_error)13), "host_budget");
	CHECK(store_error_name(STORE_ERROR_COUNT) == NULL);
	enum store_error e;
	CHECK(store_error_parse("nope", &e) == SC_E_INVAL);
}

static void test_db_error(void)
{
	CHECK(store_db_error(0) == 0);
	CHECK(store_db_error(MDB_NOTFOUND) == SC_E_NOTFOUND);
	CHECK(store_db_error(MDB_MAP_FULL) == SC_E_FULL);
	CHECK(store_db_error(MDB_CORRUPTED) == SC_E_CORRUPT);
	CHECK(store_db_error(ENOMEM) == SC_E_NOMEM);
	errno = 0;
	CHECK(store_db_error(EACCES) == SC_E_IO && errno == EACCES);
	CHECK(store_db_error(MDB_BAD_TXN) == SC_E_DB);
}

static int write_txn(MDB_env *env, MDB_txn **txn)
{
	return mdb_txn_begin(env, NULL, 0, txn);
}

static int read_txn(MDB_env *env, MDB_txn **txn)
{
	return mdb_txn_begin(env, NULL, MDB_RDONLY, txn);
}

static void key_of(const char *url, unsigned char key[SC_KEY_LEN])
{
	sc_url_key(url, strlen(url), key);
}

struct walk {
	size_t n;
	unsigned char last[SC_KEY_LEN];
	bool ordered;
	int stop_at;
};

static int walk_fn(void *arg, const struct store_record *r)
{
	struct walk *w = arg;
	unsigned char key[SC_KEY_LEN];
	sc_url_key(r->normalized, r->normalized_len, key);
	if (w->n > 0 && memcmp(w->last, key, SC_KEY_LEN) >= 0)
		w->ordered = false;
	memcpy(w->last, key, SC_KEY_LEN);
	w->n++;
	if (w->stop_at && (int)w->n == w->stop_at)
		return 7;
	return 0;
}

static void test_database(void)
{
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/store", tmpdir);

	/* Read-only on a missing directory: not found, nothing created. */
	MDB_env *env = NULL;
	CHECK(store_env_open(dir, STORE_RDONLY, &env) == SC_E_NOTFOUND);
	struct stat st;
	CHECK(stat(dir, &st) != 0);
	CHECK(store_env_open(dir, 0x80, &env) == SC_E_INVAL);
	CHECK(store_env_open("", 0, &env) == SC_E_INVAL);

	CHECK(store_env_open(dir, 0, &env) == 0 && env);
	mode_t mask = umask(0);
	umask(mask);
	CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	      (st.st_mode & 0777) == (0750 & ~mask));

	MDB_txn *txn;
	struct store *s = NULL;
	CHECK(write_txn(env, &txn) == 0);
	CHECK(store_open(env, txn, &s) == 0 && s);
	CHECK(mdb_txn_commit(txn) == 0);

	static const char *urls[] = { "http://a.com/", "http://b.com/x",
				      "http://c.com/?q=1" };
	CHECK(write_txn(env, &txn) == 0);
	for (int i = 0; i < 3; i++) {
		struct store_record r = full_record(urls[i]);
		r.depth = (uint32_t)i;
		CHECK(store_put(s, txn, &r) == 0);
	}
	size_t n = 0;
	CHECK(store_count(s, txn, &n) == 0 && n == 3);
	CHECK(mdb_txn_commit(txn) == 0);

	/* Committed in one transaction, read in another. */
	CHECK(read_txn(env, &txn) == 0);
	for (int i = 0; i < 3; i++) {
		unsigned char key[SC_KEY_LEN];
		key_of(urls[i], key);
		struct store_record got, want = full_record(urls[i]);
		want.depth = (uint32_t)i;
		CHECK(store_get(s, txn, key, &got) == 0 && rec_eq(&got, &want));
	}
	unsigned char missing[SC_KEY_LEN];
	key_of("http://nowhere/", missing);
	struct store_record got;
	CHECK(store_get(s, txn, missing, &got) == SC_E_NOTFOUND);
	struct walk w = { .ordered = true };
	CHECK(store_foreach(s, txn, walk_fn, &w) == 0 && w.n == 3 && w.ordered);
	struct walk w2 = { .ordered = true, .stop_at = 2 };
	CHECK(store_foreach(s, txn, walk_fn, &w2) == 7 && w2.n == 2);
	mdb_txn_abort(txn);

	/* Replace: same normalized URL, new title; the count stays. */
	CHECK(write_txn(env, &txn) == 0);
	struct store_record r = full_record(urls[1]);
	r.title = "new";
	r.title_len = 3;
	r.has_signature = false;
	CHECK(store_put(s, txn, &r) == 0);
	CHECK(mdb_txn_commit(txn) == 0);
	CHECK(read_txn(env, &txn) == 0);
	unsigned char key1[SC_KEY_LEN];
	key_of(urls[1], key1);
	CHECK(store_get(s, txn, key1, &got) == 0 && rec_eq(&got, &r));
	CHECK(store_count(s, txn, &n) == 0 && n == 3);
	mdb_txn_abort(txn);

	/* An aborted transaction leaves nothing. */
	CHECK(write_txn(env, &txn) == 0);
	r = full_record("http://aborted.com/");
	CHECK(store_put(s, txn, &r) == 0);
	CHECK(store_del(s, txn, key1) == 0);
	CHECK(store_count(s, txn, &n) == 0 && n == 3);
	mdb_txn_abort(txn);
	CHECK(read_txn(env, &txn) == 0);
	unsigned char key_ab[SC_KEY_LEN];
	key_of("http://aborted.com/", key_ab);
	CHECK(store_get(s, txn, key_ab, &got) == SC_E_NOTFOUND);
	CHECK(store_get(s, txn, key1, &got) == 0);
	CHECK(store_count(s, txn, &n) == 0 && n == 3);
	mdb_txn_abort(txn);

	/* Invalid records are refused by store_put. */
	CHECK(write_txn(env, &txn) == 0);
	r = full_record("http://bad.com/");
	r.status = 7;
	CHECK(store_put(s, txn, &r) == SC_E_INVAL);
	CHECK(store_put(s, txn, NULL) == SC_E_INVAL);
	CHECK(store_del(s, txn, key_ab) == SC_E_NOTFOUND);
	mdb_txn_abort(txn);

	/* Corrupt values, written raw: a truncated value, a valid value
	 * under the wrong key, and a key of the wrong size. */
	MDB_dbi dbi;
	CHECK(write_txn(env, &txn) == 0);
	CHECK(mdb_dbi_open(txn, "records", 0, &dbi) == 0);
	unsigned char enc[512];
	size_t len;
	r = full_record("http://corrupt.com/");
	CHECK(store_record_encode(&r, enc, sizeof(enc), &len) == 0);
	unsigned char kc[SC_KEY_LEN], kw[SC_KEY_LEN];
	key_of("http://corrupt.com/", kc);
	key_of("http://wrong-key.com/", kw);
	MDB_val k = { SC_KEY_LEN, kc }, v = { len - 3, enc };
	CHECK(mdb_put(txn, dbi, &k, &v, 0) == 0);
	k.mv_data = kw;
	v.mv_size = len;
	CHECK(mdb_put(txn, dbi, &k, &v, 0) == 0);
	CHECK(store_get(s, txn, kc, &got) == SC_E_CORRUPT);
	CHECK(store_get(s, txn, kw, &got) == SC_E_CORRUPT);
	struct walk w3 = { .ordered = true };
	CHECK(store_foreach(s, txn, walk_fn, &w3) == SC_E_CORRUPT);
	mdb_txn_abort(txn);
	CHECK(write_txn(env, &txn) == 0);
	MDB_val ks = { 3, "abc" };
	v.mv_size = len;
	CHECK(mdb_put(txn, dbi, &ks, &v, 0) == 0);
	struct walk w4 = { .ordered = true };
	CHECK(store_foreach(s, txn, walk_fn, &w4) == SC_E_CORRUPT);
	mdb_txn_abort(txn);

	store_close(s);
	store_env_close(env);

	/* Reopened from disk, read-only: the data is still there. */
	env = NULL;
	CHECK(store_env_open(dir, STORE_RDONLY, &env) == 0);
	CHECK(read_txn(env, &txn) == 0);
	s = NULL;
	CHECK(store_open(env, txn, &s) == 0);
	CHECK(store_count(s, txn, &n) == 0 && n == 3);
	key_of(urls[2], key1);
	CHECK(store_get(s, txn, key1, &got) == 0 && got.depth == 2 &&
	      str_eq(got.normalized, got.normalized_len, urls[2],
		     strlen(urls[2])));
	r = full_record(urls[0]);
	CHECK(store_put(s, txn, &r) != 0); /* read-only transaction */
	mdb_txn_abort(txn);
	store_close(s);
	store_env_close(env);
	store_env_close(NULL);
	store_close(NULL);
	remove_store(dir);

	/* A read-only environment without a records database. */
	CHECK(store_env_open(dir, 0, &env) == 0);
	store_env_close(env);
	CHECK(store_env_open(dir, STORE_RDONLY, &env) == 0);
	CHECK(read_txn(env, &txn) == 0);
	s = NULL;
	CHECK(store_open(env, txn, &s) == SC_E_NOTFOUND && !s);
	mdb_txn_abort(txn);
	store_env_close(env);
	remove_store(dir);

	/* A file where the directory should be. */
	FILE *f = fopen(dir, "w");
	fclose(f);
	CHECK(store_env_open(dir, 0, &env) == SC_E_IO && errno == ENOTDIR);
	unlink(dir);
}

/* Exports R as JSON and parses it back. */
static json_t *export_json(const struct store_record *r)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	CHECK(store_export_jsonl(r, f) == 0);
	fclose(f);
	CHECK(size > 0 && buf[size - 1] == '\n' &&
	      memchr(buf, '\n', size) == buf + size - 1);
	json_error_t err;
	json_t *j = json_loadb(buf, size, JSON_ALLOW_NUL, &err);
	if (!j)
		fprintf(stderr, "bad JSON: %s: %s\n", err.text, buf);
	free(buf);
	return j;
}

static bool jstr(json_t *o, const char *key, const char *want, size_t len)
{
	json_t *v = json_object_get(o, key);
	if (!want)
		return json_is_null(v);
	return json_is_string(v) && json_string_length(v) == len &&
	       memcmp(json_string_value(v), want, len) == 0;
}

static bool jint(json_t *o, const char *key, long long want)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) && json_integer_value(v) == want;
}

static bool jnull(json_t *o, const char *key)
{
	return json_is_null(json_object_get(o, key));
}

static void test_export_jsonl(void)
{
	struct store_record r = full_record("http://example.com/a");
	json_t *j = export_json(&r);
	CHECK(j && json_object_size(j) == 18);
	CHECK(jstr(j, "url", r.url, r.url_len));
	CHECK(jstr(j, "normalized", r.normalized, r.normalized_len));
	CHECK(jstr(j, "category", "news", 4));
	CHECK(jint(j, "depth", 3));
	CHECK(jint(j, "status", 200));
	CHECK(json_is_true(json_object_get(j, "fetched")));
	CHECK(jstr(j, "content_type", r.content_type, r.content_type_len));
	CHECK(jint(j, "bytes", 123456));
	CHECK(jint(j, "fetched_at", 1700000000123LL));
	CHECK(jstr(j, "title", r.title, r.title_len));
	CHECK(jstr(j, "redirect", r.redirect, r.redirect_len));
	CHECK(jstr(j, "signature", "00112233445566778899aabbccddeeff", 32));
	CHECK(jstr(j, "simhash", "0123456789abcdef", 16));
	CHECK(jstr(j, "duplicate_of", r.duplicate_of, r.duplicate_of_len));
	CHECK(json_is_real(json_object_get(j, "relevance")) &&
	      json_real_value(json_object_get(j, "relevance")) == 0.625);
	CHECK(jstr(j, "error", "too_big", 7));
	CHECK(json_is_true(json_object_get(j, "truncated")));
	/* SPEC §5's order, then error, truncated and the learned rule. */
	const char *order[] = { "url",          "normalized",   "category",
				"depth",        "status",       "fetched",
				"content_type", "bytes",        "fetched_at",
				"title",        "redirect",     "signature",
				"simhash",      "duplicate_of", "relevance",
				"error",        "truncated",    "rule" };
	void *it = json_object_iter(j);
	bool in_order = true;
	for (size_t i = 0; i < 18; i++, it = json_object_iter_next(j, it))
		if (!it || strcmp(json_object_iter_key(it), order[i]) != 0)
			in_order = false;
	CHECK(in_order);
	json_decref(j);

	/* Not fetched, nothing optional: nulls. */
	struct store_record e = {
		.url = "http://x.com/",
		.url_len = 13,
		.normalized = "http://x.com/",
		.normalized_len = 13,
		.status = 404, /* ignored: not fetched */
		.bytes = 5,
		.fetched_at = 9,
		.error = STORE_ERROR_ROBOTS_DISALLOWED,
	};
	j = export_json(&e);
	CHECK(j && json_object_size(j) == 18);
	CHECK(jstr(j, "category", "", 0));
	CHECK(jnull(j, "status") && jnull(j, "bytes") &&
	      jnull(j, "fetched_at"));
	CHECK(json_is_false(json_object_get(j, "fetched")));
	CHECK(jnull(j, "content_type") && jnull(j, "title") &&
	      jnull(j, "redirect") && jnull(j, "signature") &&
	      jnull(j, "simhash") && jnull(j, "duplicate_of") &&
	      jnull(j, "relevance"));
	CHECK(jstr(j, "error", "robots_disallowed", 17));
	CHECK(json_is_false(json_object_get(j, "truncated")));
	json_decref(j);
	/* Fetched without a status (a DNS failure): status null. */
	e.fetched = true;
	e.status = 0;
	e.error = STORE_ERROR_NONE;
	j = export_json(&e);
	CHECK(j && jnull(j, "status") && jint(j, "bytes", 5) &&
	      jnull(j, "error"));
	json_decref(j);

	/* Invalid UTF-8 becomes U+FFFD per byte; valid text is kept. */
	static const struct {
		const char *in;
		size_t len;
		const char *out;
	} utf[] = {
		{ "a\xff"
		  "b",
		  3,
		  "a\xef\xbf\xbd"
		  "b" },
		{ "\xc0\xaf", 2, "\xef\xbf\xbd\xef\xbf\xbd" }, /* overlong */
		{ "\xed\xa0\x80", 3,
		  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" }, /* surrogate */
		{ "\xf4\x90\x80\x80", 4,
		  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xe2\x82", 2, "\xef\xbf\xbd\xef\xbf\xbd" }, /* cut short */
		{ "\xf0\x9f\x98\x80 \xc3\xa9", 7, "\xf0\x9f\x98\x80 \xc3\xa9" },
		{ "\xef\xbf\xbf", 3, "\xef\xbf\xbf" },
	};
	for (size_t i = 0; i < sizeof(utf) / sizeof(*utf); i++) {
		r.title = utf[i].in;
		r.title_len = utf[i].len;
		j = export_json(&r);
		CHECK(j && jstr(j, "title", utf[i].out, strlen(utf[i].out)));
		json_decref(j);
	}
	/* A NUL byte survives as \u0000. */
	r.title = "a\0b";
	r.title_len = 3;
	j = export_json(&r);
	CHECK(j && jstr(j, "title", "a\0b", 3));
	json_decref(j);
}

static char *export_csv(const struct store_record *r)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	CHECK(store_export_csv(r, f) == 0);
	fclose(f);
	return buf;
}

static void test_export_csv(void)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	CHECK(store_export_csv_header(f) == 0);
	fclose(f);
	CHECK_STR(buf, "url,normalized,category,depth,status,fetched,"
		       "content_type,bytes,fetched_at,title,redirect,"
		       "signature,simhash,duplicate_of,relevance,error,"
		       "truncated,rule\r\n");
	free(buf);

	struct store_record r = full_record("http://example.com/a");
	buf = export_csv(&r);
	CHECK_STR(buf, "HTTP://Example.com/a?utm_source=x,"
		       "http://example.com/a,news,3,200,true,"
		       "text/html; charset=utf-8,123456,1700000000123,"
		       "\"Caf\xc3\xa9, \"\"quoted\"\"\n\x01 title\","
		       "http://example.com/b,00112233445566778899aabbccddeeff,"
		       "0123456789abcdef,http://example.com/c,0.625,too_big,"
		       "true,ignore parameter sid\r\n");
	free(buf);

	struct store_record e = {
		.url = "http://x.com/",
		.url_len = 13,
		.normalized = "http://x.com/",
		.normalized_len = 13,
		.status = 404,
	};
	buf = export_csv(&e);
	CHECK_STR(buf, "http://x.com/,http://x.com/,,0,,false,,,,,,,,,,,"
		       "false,\r\n");
	free(buf);

	static const struct {
		const char *in;
		size_t len;
		const char *out;
	} cases[] = {
		{ "plain", 5, "plain" },
		{ "a,b", 3, "\"a,b\"" },
		{ "say \"hi\"", 8, "\"say \"\"hi\"\"\"" },
		{ "a\r\nb", 4, "\"a\r\nb\"" },
		{ "a\nb", 3, "\"a\nb\"" },
		{ "a\rb", 3, "\"a\rb\"" },
		{ "=1+2", 4, "'=1+2" },
		{ "+1", 2, "'+1" },
		{ "-x", 2, "'-x" },
		{ "@SUM(A1)", 8, "'@SUM(A1)" },
		{ "\tx", 2, "'\tx" },
		{ "\rx", 2, "\"'\rx\"" },
		{ "=a,b", 4, "\"'=a,b\"" },
		{ "a=b", 3, "a=b" },
		{ "x\xff", 2, "x\xef\xbf\xbd" },
		{ "x\0y", 3, "x\xef\xbf\xbdy" },
		{ "", 0, "" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		e.title = cases[i].in;
		e.title_len = cases[i].len;
		buf = export_csv(&e);
		char want[128];
		snprintf(want, sizeof(want),
			 "http://x.com/,http://x.com/,,0,,false,,,,%s,,,,,,,"
			 "false,\r\n",
			 cases[i].out);
		CHECK_STR(buf, want);
		free(buf);
	}
}

/* Opens a store in DIR with its databases created; *env, *s set. */
static void open_store(const char *dir, MDB_env **env, struct store **s)
{
	MDB_txn *txn;
	*env = NULL;
	*s = NULL;
	CHECK(store_env_open(dir, 0, env) == 0);
	CHECK(write_txn(*env, &txn) == 0);
	CHECK(store_open(*env, txn, s) == 0);
	CHECK(mdb_txn_commit(txn) == 0);
}

/* The robots.txt cache: kept across a reopen, replaced, bounded, and a
 * miss for an unknown URL. */
static void test_robots_cache(void)
{
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/robots", tmpdir);
	MDB_env *env;
	struct store *s;
	open_store(dir, &env, &s);
	const char *u1 = "http://a.test/robots.txt";
	const char *u2 = "https://a.test:8443/robots.txt";
	struct store_robots r = { .fetched_at = 1000,
				  .expires_at = 2000,
				  .status = 200,
				  .body = "User-agent: *\nDisallow: /x\n",
				  .body_len = 27 };
	MDB_txn *txn;
	CHECK(write_txn(env, &txn) == 0);
	CHECK(store_robots_put(s, txn, u1, strlen(u1), &r) == 0);
	struct store_robots big = r;
	big.body_len = SC_ROBOTS_MAX_BYTES + 1;
	CHECK(store_robots_put(s, txn, u2, strlen(u2), &big) == SC_E_INVAL);
	struct store_robots bad = r;
	bad.status = 42;
	CHECK(store_robots_put(s, txn, u2, strlen(u2), &bad) == SC_E_INVAL);
	CHECK(store_robots_put(s, txn, u2, 0, &r) == SC_E_TOOLONG);
	CHECK(mdb_txn_commit(txn) == 0);
	store_close(s);
	store_env_close(env);

	open_store(dir, &env, &s);
	struct store_robots g;
	CHECK(read_txn(env, &txn) == 0);
	CHECK(store_robots_get(s, txn, u1, strlen(u1), &g) == 0);
	CHECK(g.fetched_at == 1000 && g.expires_at == 2000 && g.status == 200);
	CHECK(g.body_len == 27 && memcmp(g.body, r.body, 27) == 0);
	CHECK(store_robots_get(s, txn, u2, strlen(u2), &g) == SC_E_NOTFOUND);
	mdb_txn_abort(txn);

	/* A newer answer replaces the old one; an empty body is kept. */
	struct store_robots r404 = { .fetched_at = 3000,
				     .expires_at = 4000,
				     .status = 404 };
	CHECK(write_txn(env, &txn) == 0);
	CHECK(store_robots_put(s, txn, u1, strlen(u1), &r404) == 0);
	CHECK(store_robots_get(s, txn, u1, strlen(u1), &g) == 0);
	CHECK(g.status == 404 && g.body_len == 0 && g.expires_at == 4000);
	CHECK(mdb_txn_commit(txn) == 0);

	/* What the frontier wrote before the cache moved to store/ reads the
	 * same: the database "frontier.robots", a value of version 1,
	 * fetched_at, expires_at, status, URL length (big-endian), the URL
	 * and the body, under sc_url_key() of the URL. */
	static const unsigned char old[] = {
		1,   0,   0,   0,   0,   0,    0,    0x13, 0x88, 0,
		0,   0,   0,   0,   0,   0x17, 0x70, 0x01, 0xf4, 0,
		21,  'h', 't', 't', 'p', ':',  '/',  '/',  'o',  '.',
		't', '/', 'r', 'o', 'b', 'o',  't',  's',  '.',  't',
		'x', 't', 'A', 'l', 'l', 'o',  'w',  ':',  ' ',  '/',
	};
	const char *u3 = "http://o.t/robots.txt";
	unsigned char k3[SC_KEY_LEN];
	sc_url_key(u3, strlen(u3), k3);
	MDB_dbi dbi;
	CHECK(write_txn(env, &txn) == 0);
	CHECK(mdb_dbi_open(txn, "frontier.robots", 0, &dbi) == 0);
	MDB_val k = { SC_KEY_LEN, k3 }, v = { sizeof(old), (void *)old };
	CHECK(mdb_put(txn, dbi, &k, &v, 0) == 0);
	CHECK(mdb_txn_commit(txn) == 0);
	CHECK(read_txn(env, &txn) == 0);
	CHECK(store_robots_get(s, txn, u3, strlen(u3), &g) == 0);
	CHECK(g.fetched_at == 5000 && g.expires_at == 6000 && g.status == 500);
	CHECK(g.body_len == 8 && memcmp(g.body, "Allow: /", 8) == 0);
	mdb_txn_abort(txn);
	store_close(s);
	store_env_close(env);
	remove_store(dir);
}

/* A store whose map fills: store_put() says so with LMDB's own code,
 * MDB_MAP_FULL, not as a buffer that is too small or a bare "database
 * error"; so does a commit that fails. */
static void test_map_full(void)
{
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/full", tmpdir);
	CHECK(mkdir(dir, 0750) == 0);
	MDB_env *env;
	CHECK(mdb_env_create(&env) == 0);
	CHECK(mdb_env_set_maxdbs(env, STORE_MAX_DBS) == 0);
	CHECK(mdb_env_set_mapsize(env, 256 * 1024) == 0);
	CHECK(mdb_env_open(env, dir, MDB_NOTLS, 0640) == 0);
	MDB_txn *txn;
	struct store *s = NULL;
	CHECK(store_txn_begin(env, 0, &txn) == 0);
	CHECK(store_open(env, txn, &s) == 0);
	CHECK(store_txn_commit(txn) == 0);

	CHECK(store_txn_begin(env, 0, &txn) == 0);
	int rc = 0;
	char url[64];
	for (int i = 0; i < 100000 && !rc; i++) {
		snprintf(url, sizeof(url), "http://full.test/%d", i);
		struct store_record r = full_record(url);
		rc = store_put(s, txn, &r);
	}
	CHECK(rc == SC_E_FULL);
	const char *msg = store_strerror(rc);
	CHECK(strstr(msg, "MDB_MAP_FULL") != NULL);
	CHECK(strstr(msg, sc_strerror(SC_E_FULL)) == msg);
	/* LMDB has marked the transaction failed: its commit says so. */
	rc = store_txn_commit(txn);
	CHECK(rc == SC_E_DB);
	CHECK(strstr(store_strerror(rc), "MDB_BAD_TXN") != NULL);
	/* A code that did not come from LMDB has only its own message. */
	CHECK_STR(store_strerror(SC_E_INVAL), sc_strerror(SC_E_INVAL));
	/* A new transaction forgets the last failure. */
	CHECK(store_txn_begin(env, MDB_RDONLY, &txn) == 0);
	CHECK_STR(store_strerror(SC_E_DB), sc_strerror(SC_E_DB));
	mdb_txn_abort(txn);
	store_close(s);
	mdb_env_close(env);
	remove_store(dir);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_roundtrip();
	test_invalid_records();
	test_corrupt_values();
	test_error_names();
	test_db_error();
	test_database();
	test_robots_cache();
	test_map_full();
	test_export_jsonl();
	test_export_csv();
	rmdir(tmpdir);
	return check_done();
}
