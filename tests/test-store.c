/* test-store.c — unit tests of store/: the record encoding (with its
 * re-crawl parts, and the bytes written before they existed), the records
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

/* Equal as stored: an empty etag or last_modified is an absent one. */
static bool opt_eq(const char *a, size_t alen, const char *b, size_t blen)
{
	return str_eq(a && alen ? a : NULL, alen, b && blen ? b : NULL, blen);
}

/* The re-crawl parts, each compared only when its flag is set. */
static bool recrawl_eq(const struct store_record *a,
		       const struct store_record *b)
{
	return a->has_visit == b->has_visit &&
	       (!a->has_visit ||
		(a->visits == b->visits && a->interval_s == b->interval_s &&
		 a->due_at == b->due_at)) &&
	       a->has_changed_at == b->has_changed_at &&
	       (!a->has_changed_at || a->changed_at == b->changed_at) &&
	       a->has_gone_at == b->has_gone_at &&
	       (!a->has_gone_at || a->gone_at == b->gone_at) &&
	       a->has_capture == b->has_capture &&
	       (!a->has_capture ||
		(a->capture_at == b->capture_at &&
		 memcmp(a->capture_sha1, b->capture_sha1, 20) == 0 &&
		 str_eq(a->capture_id, a->capture_id_len, b->capture_id,
			b->capture_id_len))) &&
	       opt_eq(a->etag, a->etag_len, b->etag, b->etag_len) &&
	       opt_eq(a->last_modified, a->last_modified_len, b->last_modified,
		      b->last_modified_len);
}

static bool rec_eq(const struct store_record *a, const struct store_record *b)
{
	return recrawl_eq(a, b) &&
	       req_eq(a->url, a->url_len, b->url, b->url_len) &&
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
	       a->noindex == b->noindex && a->nofollow == b->nofollow &&
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

/* Sets every re-crawl part of R; the strings are static. */
static void set_recrawl(struct store_record *r)
{
	static const unsigned char sha1[20] = {
		0xda, 0x39, 0xa3, 0xee, 0x5e, 0x6b, 0x4b, 0x0d, 0x32, 0x55,
		0xbf, 0xef, 0x95, 0x60, 0x18, 0x90, 0xaf, 0xd8, 0x07, 0x09,
	};
	r->has_visit = true;
	r->visits = 3;
	r->interval_s = 86400;
	r->due_at = 1700086400123;
	r->has_changed_at = true;
	r->changed_at = 1700000500000;
	r->has_gone_at = true;
	r->gone_at = 1700000900000;
	r->has_capture = true;
	r->capture_at = 1700000000456;
	memcpy(r->capture_sha1, sha1, 20);
	r->capture_id = "<urn:uuid:12345678-9abc-def0-1234-56789abcdef0>";
	r->capture_id_len = strlen(r->capture_id);
	r->etag = "W/\"abc-123\"";
	r->etag_len = strlen(r->etag);
	r->last_modified = "Tue, 14 Nov 2023 22:13:20 GMT";
	r->last_modified_len = strlen(r->last_modified);
}

/* Keeps of R's re-crawl parts those whose bit is set in M: 1 visit block,
 * 2 changed_at, 4 gone_at, 8 capture, 16 etag, 32 last_modified. */
static void keep_recrawl(struct store_record *r, unsigned m)
{
	r->has_visit = m & 1;
	r->has_changed_at = m & 2;
	r->has_gone_at = m & 4;
	r->has_capture = m & 8;
	if (!(m & 16))
		r->etag = NULL;
	if (!(m & 32))
		r->last_modified = NULL;
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
		/* And with every combination of the six re-crawl parts. */
		for (unsigned k = 1; k < 64; k++) {
			struct store_record x = r;
			set_recrawl(&x);
			keep_recrawl(&x, k);
			roundtrip(&x);
		}
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
		{ 0, 3 },                 /* version 3 */
		{ 2, 0x02 },              /* no relevance: the parts shift */
		{ 2, 0x07 },              /* a visit block that is not there */
		{ 2, 0x23 },              /* a capture that is not there */
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

/* The re-crawl parts: their extremes, what store_record_size() refuses,
 * and an empty etag or last_modified, which is stored as absent. */
static void test_recrawl_records(void)
{
	unsigned before = check_failed;
	struct store_record r = full_record("http://example.com/");
	set_recrawl(&r);
	roundtrip(&r);

	/* Extremes of the numbers and lengths. */
	static char id63[STORE_CAPTURE_ID_MAX], etag[STORE_ETAG_MAX],
		lm[STORE_LAST_MODIFIED_MAX];
	memset(id63, 'i', sizeof(id63));
	memset(etag, '"', sizeof(etag));
	memset(lm, 'l', sizeof(lm));
	r.visits = UINT32_MAX;
	r.interval_s = UINT32_MAX;
	r.due_at = INT64_MAX;
	r.changed_at = INT64_MIN;
	r.gone_at = -1;
	r.capture_at = INT64_MIN;
	memset(r.capture_sha1, 0xff, 20);
	r.capture_id = id63;
	r.capture_id_len = sizeof(id63);
	r.etag = etag;
	r.etag_len = sizeof(etag);
	r.last_modified = lm;
	r.last_modified_len = sizeof(lm);
	roundtrip(&r);
	r.visits = 0;
	r.interval_s = 0;
	r.due_at = 0; /* none scheduled */
	r.changed_at = INT64_MAX;
	r.gone_at = 0;
	r.capture_id = "x";
	r.capture_id_len = 1;
	r.etag = r.last_modified = "\0\xff";
	r.etag_len = r.last_modified_len = 2;
	roundtrip(&r);

	/* The sizes: 16 + 8 + 8 + 28 fixed bytes and 3 strings more. */
	struct store_record o = full_record("http://example.com/");
	size_t old_size, size;
	CHECK(store_record_size(&o, &old_size) == 0);
	set_recrawl(&o);
	CHECK(store_record_size(&o, &size) == 0 &&
	      size == old_size + 60 + 3 * 4 + o.capture_id_len + o.etag_len +
			      o.last_modified_len);

	/* An empty etag or last_modified is absent: the same bytes as NULL,
	 * and NULL when decoded. */
	unsigned char a[512], b[512];
	size_t alen, blen;
	r = full_record("http://example.com/");
	set_recrawl(&r);
	r.etag = "";
	r.etag_len = 0;
	r.last_modified = "";
	r.last_modified_len = 0;
	CHECK(store_record_encode(&r, a, sizeof(a), &alen) == 0);
	r.etag = r.last_modified = NULL;
	r.etag_len = r.last_modified_len = 77; /* not looked at */
	CHECK(store_record_encode(&r, b, sizeof(b), &blen) == 0);
	CHECK(alen == blen && memcmp(a, b, alen) == 0);
	CHECK((a[2] & 0xc0) == 0);
	struct store_record d;
	CHECK(store_record_decode(a, alen, &d) == 0 && !d.etag &&
	      !d.last_modified && d.etag_len == 0 && d.last_modified_len == 0);

	/* Parts without their flag are not looked at: the same bytes as a
	 * record without them. */
	r = full_record("http://example.com/");
	CHECK(store_record_encode(&r, a, sizeof(a), &alen) == 0);
	set_recrawl(&r);
	keep_recrawl(&r, 0);
	r.due_at = -5;
	r.capture_id = NULL;
	r.capture_id_len = 1000;
	CHECK(store_record_encode(&r, b, sizeof(b), &blen) == 0);
	CHECK(alen == blen && memcmp(a, b, alen) == 0);

	/* What store_record_size() refuses. */
	struct store_record ok = full_record("http://example.com/"), bad;
	set_recrawl(&ok);
	bad = ok;
	bad.due_at = -1;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	bad.due_at = INT64_MIN;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	bad = ok;
	bad.capture_id = NULL;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	bad = ok;
	bad.capture_id_len = 0;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	bad.capture_id = id63;
	bad.capture_id_len = STORE_CAPTURE_ID_MAX + 1;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	bad.capture_id_len = SIZE_MAX;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	bad = ok;
	bad.etag = etag;
	bad.etag_len = STORE_ETAG_MAX + 1;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	bad.etag_len = SIZE_MAX;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	bad = ok;
	bad.last_modified = lm;
	bad.last_modified_len = STORE_LAST_MODIFIED_MAX + 1;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	bad.last_modified_len = SIZE_MAX;
	CHECK(store_record_size(&bad, &size) == SC_E_INVAL);
	CHECK(store_record_encode(&bad, a, sizeof(a), &alen) == SC_E_INVAL);
	CHECK(check_failed == before);
}

/* A record written before the re-crawl parts existed, byte by byte as
 * that version wrote it: it decodes unchanged, without any of them, and
 * encodes back to the same bytes. */
static void test_old_format(void)
{
	/* Flags: fetched, signature; relevance, rule. */
	static const unsigned char old[] = {
		1,    0x41, 0x03, 0, /* version, flags, error */
		0x00, 0xc8,          /* status 200 */
		0,    0,    0,    2, /* depth */
		0,    0,    0,    0,    0,    0,    0x03, 0xe8, /* bytes */
		0,    0,    0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, /* fetched_at */
		0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, /* signature */
		0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa,
		0x3f, 0xe0, 0,    0,    0,    0,    0,    0, /* relevance 0.5 */
		0,    0,    0,    1,    'u',                 /* url */
		0,    0,    0,    9,    'h',  't',  't',  'p',
		':',  '/',  '/',  'a',  '/',       /* normalized */
		0,    0,    0,    1,    'c',       /* category */
		0,    0,    0,    2,    'r',  '1', /* rule */
	};
	struct store_record d;
	CHECK(store_record_decode(old, sizeof(old), &d) == 0);
	CHECK(d.fetched && !d.truncated && d.status == 200 && d.depth == 2 &&
	      d.bytes == 1000 && d.fetched_at == 1700000000000 &&
	      d.has_signature && d.signature[15] == 0xaa && !d.has_simhash &&
	      d.has_relevance && d.relevance == 0.5);
	CHECK(str_eq(d.url, d.url_len, "u", 1) &&
	      str_eq(d.normalized, d.normalized_len, "http://a/", 9) &&
	      str_eq(d.category, d.category_len, "c", 1) &&
	      str_eq(d.rule, d.rule_len, "r1", 2) && !d.content_type &&
	      !d.title && !d.redirect && !d.duplicate_of);
	CHECK(!d.has_visit && !d.has_changed_at && !d.has_gone_at &&
	      !d.has_capture && !d.capture_id && !d.etag && !d.last_modified &&
	      d.visits == 0 && d.due_at == 0);
	unsigned char again[sizeof(old)];
	size_t len;
	CHECK(store_record_encode(&d, again, sizeof(again), &len) == 0 &&
	      len == sizeof(old) && memcmp(again, old, len) == 0);
}

/* Builds in OUT the encoding of the old-format record BASE (which has a
 * signature, a simhash and a relevance) with F2 added to flag byte 2,
 * FIXED (FLEN bytes) inserted after the relevance and the NSTR strings
 * STR appended, each with the 4-byte length LEN[i]: a value the encoder
 * might refuse to write.  Returns its length. */
static size_t build(unsigned char *out, const struct store_record *base,
		    unsigned f2, const unsigned char *fixed, size_t flen,
		    const char *const *str, const uint32_t *len, size_t nstr)
{
	unsigned char enc[512];
	size_t n;
	CHECK(store_record_encode(base, enc, sizeof(enc), &n) == 0);
	size_t at = STORE_RECORD_HEADER + 32, o = 0;
	memcpy(out, enc, at);
	out[2] = (unsigned char)(out[2] | f2);
	o = at;
	if (flen)
		memcpy(out + o, fixed, flen);
	o += flen;
	memcpy(out + o, enc + at, n - at);
	o += n - at;
	for (size_t i = 0; i < nstr; i++) {
		put_be32(out + o, len[i]);
		memcpy(out + o + 4, str[i], len[i]);
		o += 4 + len[i];
	}
	return o;
}

/* The decoder and the re-crawl parts: truncated, oversized, empty and
 * negative parts are refused, and no change of one byte gives a value
 * that decodes but encodes otherwise. */
static void test_corrupt_recrawl(void)
{
	unsigned before = check_failed;
	struct store_record base = full_record("http://example.com/"), d;
	base.truncated = false; /* 26 + 32 fixed bytes, flag byte 2 0x03 */
	static char big[300];
	memset(big, 'e', sizeof(big));
	unsigned char v[1024];
	size_t n;
	const char *s1[1] = { big };
	uint32_t l1[1];

	/* The boundaries of each string, flagged alone; a capture's fixed
	 * part comes with it. */
	static const unsigned char capture[28] = { 0 };
	static const struct {
		unsigned flag;
		uint32_t len;
		bool ok;
	} lens[] = {
		{ 0x20, 0, false },   { 0x20, 1, true },
		{ 0x20, 63, true },   { 0x20, 64, false },
		{ 0x20, 255, false }, { 0x40, 0, false },
		{ 0x40, 1, true },    { 0x40, 256, true },
		{ 0x40, 257, false }, { 0x80, 0, false },
		{ 0x80, 64, true },   { 0x80, 65, false },
		{ 0x80, 256, false },
	};
	for (size_t i = 0; i < sizeof(lens) / sizeof(*lens); i++) {
		l1[0] = lens[i].len;
		bool cap = lens[i].flag == 0x20;
		n = build(v, &base, lens[i].flag, capture, cap ? 28 : 0, s1, l1,
			  1);
		int rc = store_record_decode(v, n, &d);
		CHECK(rc == (lens[i].ok ? 0 : SC_E_CORRUPT));
		if (rc == 0) {
			unsigned char again[1024];
			size_t len;
			CHECK(store_record_encode(&d, again, sizeof(again),
						  &len) == 0 &&
			      len == n && memcmp(again, v, n) == 0);
		}
	}

	/* A string's length past the end, by one byte and by almost 4 GiB;
	 * a flagged string that is missing; a byte after the last one. */
	l1[0] = 10;
	n = build(v, &base, 0x40, NULL, 0, s1, l1, 1);
	CHECK(store_record_decode(v, n, &d) == 0);
	put_be32(v + n - 14, 11);
	CHECK(store_record_decode(v, n, &d) == SC_E_CORRUPT);
	put_be32(v + n - 14, UINT32_MAX);
	CHECK(store_record_decode(v, n, &d) == SC_E_CORRUPT);
	n = build(v, &base, 0x40, NULL, 0, NULL, NULL, 0);
	CHECK(store_record_decode(v, n, &d) == SC_E_CORRUPT);
	n = build(v, &base, 0x20, capture, 28, NULL, NULL, 0);
	CHECK(store_record_decode(v, n, &d) == SC_E_CORRUPT);
	n = build(v, &base, 0x40, NULL, 0, s1, l1, 1);
	v[n++] = 0;
	CHECK(store_record_decode(v, n, &d) == SC_E_CORRUPT);

	/* A negative due_at; 0 is none scheduled. */
	unsigned char visit[16] = { 0, 0, 0, 1, 0, 0, 0, 60 };
	n = build(v, &base, 0x04, visit, 16, NULL, NULL, 0);
	CHECK(store_record_decode(v, n, &d) == 0 && d.has_visit &&
	      d.visits == 1 && d.interval_s == 60 && d.due_at == 0);
	visit[8] = 0x80;
	n = build(v, &base, 0x04, visit, 16, NULL, NULL, 0);
	CHECK(store_record_decode(v, n, &d) == SC_E_CORRUPT);
	memset(visit + 8, 0xff, 8); /* -1 */
	n = build(v, &base, 0x04, visit, 16, NULL, NULL, 0);
	CHECK(store_record_decode(v, n, &d) == SC_E_CORRUPT);
	/* A fixed part too short to hold: the strings shift. */
	n = build(v, &base, 0x04, visit, 8, NULL, NULL, 0);
	CHECK(store_record_decode(v, n, &d) == SC_E_CORRUPT);

	/* Every proper prefix of a record with every part is refused. */
	struct store_record r = full_record("http://example.com/");
	set_recrawl(&r);
	unsigned char enc[1024], tmp[1024];
	size_t len;
	CHECK(store_record_encode(&r, enc, sizeof(enc), &len) == 0);
	CHECK(enc[2] == 0xff);
	for (size_t k = 0; k < len; k++)
		CHECK(store_record_decode(enc, k, &d) == SC_E_CORRUPT);

	/* Garbage: every value of every byte.  What still decodes must
	 * encode back to the same bytes (one encoding per record). */
	unsigned decoded = 0, mismatched = 0;
	for (size_t at = 0; at < len; at++)
		for (unsigned b = 0; b < 256; b++) {
			memcpy(tmp, enc, len);
			tmp[at] = (unsigned char)b;
			int rc = store_record_decode(tmp, len, &d);
			if (rc != 0) {
				if (rc != SC_E_CORRUPT)
					mismatched++;
				continue;
			}
			decoded++;
			unsigned char again[1024];
			size_t alen;
			if (store_record_encode(&d, again, sizeof(again),
						&alen) != 0 ||
			    alen != len || memcmp(again, tmp, len) != 0)
				mismatched++;
		}
	CHECK(mismatched == 0);
	CHECK(decoded > len); /* the string bytes at least */
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
	CHECK_STR(store_error_name((enum store_error)14),
		  "skipped_noindex_nofollow");
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

	/* Replace again with the re-crawl parts, then without them. */
	CHECK(write_txn(env, &txn) == 0);
	set_recrawl(&r);
	CHECK(store_put(s, txn, &r) == 0);
	CHECK(mdb_txn_commit(txn) == 0);
	CHECK(read_txn(env, &txn) == 0);
	CHECK(store_get(s, txn, key1, &got) == 0 && rec_eq(&got, &r) &&
	      got.has_capture && got.visits == 3);
	mdb_txn_abort(txn);
	CHECK(write_txn(env, &txn) == 0);
	keep_recrawl(&r, 0);
	CHECK(store_put(s, txn, &r) == 0);
	CHECK(mdb_txn_commit(txn) == 0);
	CHECK(read_txn(env, &txn) == 0);
	CHECK(store_get(s, txn, key1, &got) == 0 && rec_eq(&got, &r) &&
	      !got.has_visit && !got.etag);
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
	CHECK(j && json_object_size(j) == 26);
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
	CHECK(jstr(j, "rule", r.rule, r.rule_len));
	/* Fetched, without the re-crawl parts: one visit, the rest null. */
	CHECK(jint(j, "visits", 1));
	CHECK(jnull(j, "changed_at") && jnull(j, "gone_at") &&
	      jnull(j, "next_visit") && jnull(j, "interval") &&
	      jnull(j, "etag") && jnull(j, "last_modified") &&
	      jnull(j, "robots"));
	/* SPEC §5's order, then error, truncated and the learned rule, then
	 * the re-crawls'. */
	const char *order[] = {
		"url",           "normalized",   "category",     "depth",
		"status",        "fetched",      "content_type", "bytes",
		"fetched_at",    "title",        "redirect",     "signature",
		"simhash",       "duplicate_of", "relevance",    "error",
		"truncated",     "rule",         "visits",       "changed_at",
		"gone_at",       "next_visit",   "interval",     "etag",
		"last_modified", "robots",
	};
	void *it = json_object_iter(j);
	bool in_order = true;
	for (size_t i = 0; i < 26; i++, it = json_object_iter_next(j, it))
		if (!it || strcmp(json_object_iter_key(it), order[i]) != 0)
			in_order = false;
	CHECK(in_order && !it);
	json_decref(j);

	/* The re-crawl parts; the capture is not exported. */
	struct store_record v = full_record("http://example.com/a");
	set_recrawl(&v);
	j = export_json(&v);
	CHECK(j && json_object_size(j) == 26);
	CHECK(jint(j, "visits", 3));
	CHECK(jint(j, "changed_at", 1700000500000LL));
	CHECK(jint(j, "gone_at", 1700000900000LL));
	CHECK(jint(j, "next_visit", 1700086400123LL));
	CHECK(jint(j, "interval", 86400));
	CHECK(jstr(j, "etag", "W/\"abc-123\"", 11));
	CHECK(jstr(j, "last_modified", "Tue, 14 Nov 2023 22:13:20 GMT", 29));
	CHECK(!json_object_get(j, "capture_id") &&
	      !json_object_get(j, "capture_at"));
	json_decref(j);
	/* A visit block without a next visit; 0 visits as stored; invalid
	 * UTF-8 repaired; an empty etag is null. */
	v.due_at = 0;
	v.visits = 0;
	v.interval_s = UINT32_MAX;
	v.has_changed_at = v.has_gone_at = false;
	v.etag = "";
	v.etag_len = 0;
	v.last_modified = "x\xffy";
	v.last_modified_len = 3;
	j = export_json(&v);
	CHECK(j && jint(j, "visits", 0) && jnull(j, "next_visit") &&
	      jint(j, "interval", 4294967295LL) && jnull(j, "changed_at") &&
	      jnull(j, "gone_at") && jnull(j, "etag") &&
	      jstr(j, "last_modified", "x\xef\xbf\xbdy", 5));
	json_decref(j);
	/* Without the visit block, its values are not exported even if
	 * set; a record that was not fetched has 0 visits. */
	v.has_visit = false;
	v.due_at = 5;
	v.fetched = false;
	j = export_json(&v);
	CHECK(j && jint(j, "visits", 0) && jnull(j, "next_visit") &&
	      jnull(j, "interval"));
	json_decref(j);
	v.fetched = true;
	j = export_json(&v);
	CHECK(j && jint(j, "visits", 1) && jnull(j, "next_visit"));
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
	CHECK(j && json_object_size(j) == 26);
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
	CHECK(jnull(j, "rule") && jint(j, "visits", 0) &&
	      jnull(j, "changed_at") && jnull(j, "gone_at") &&
	      jnull(j, "next_visit") && jnull(j, "interval") &&
	      jnull(j, "etag") && jnull(j, "last_modified"));
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
		       "truncated,rule,visits,changed_at,gone_at,next_visit,"
		       "interval,etag,last_modified,robots\r\n");
	free(buf);

	struct store_record r = full_record("http://example.com/a");
	buf = export_csv(&r);
	CHECK_STR(buf, "HTTP://Example.com/a?utm_source=x,"
		       "http://example.com/a,news,3,200,true,"
		       "text/html; charset=utf-8,123456,1700000000123,"
		       "\"Caf\xc3\xa9, \"\"quoted\"\"\n\x01 title\","
		       "http://example.com/b,00112233445566778899aabbccddeeff,"
		       "0123456789abcdef,http://example.com/c,0.625,too_big,"
		       "true,ignore parameter sid,1,,,,,,,\r\n");
	free(buf);

	/* The re-crawl columns: the ETag's quotes doubled and the field
	 * quoted, the date quoted for its comma. */
	set_recrawl(&r);
	r.title = "T";
	r.title_len = 1;
	buf = export_csv(&r);
	CHECK_STR(buf, "HTTP://Example.com/a?utm_source=x,"
		       "http://example.com/a,news,3,200,true,"
		       "text/html; charset=utf-8,123456,1700000000123,T,"
		       "http://example.com/b,00112233445566778899aabbccddeeff,"
		       "0123456789abcdef,http://example.com/c,0.625,too_big,"
		       "true,ignore parameter sid,3,1700000500000,"
		       "1700000900000,1700086400123,86400,"
		       "\"W/\"\"abc-123\"\"\","
		       "\"Tue, 14 Nov 2023 22:13:20 GMT\",\r\n");
	free(buf);
	/* Nulls: no next visit, no dates, an empty etag; a formula-like
	 * ETag gets its "'". */
	r.due_at = 0;
	r.has_changed_at = r.has_gone_at = false;
	r.etag = "-1";
	r.etag_len = 2;
	r.last_modified = "";
	r.last_modified_len = 0;
	r.rule = NULL;
	buf = export_csv(&r);
	CHECK(buf && strstr(buf, ",true,,3,,,,86400,'-1,,\r\n"));
	free(buf);
	r.has_visit = false;
	r.fetched = false;
	buf = export_csv(&r);
	CHECK(buf && strstr(buf, ",true,,0,,,,,'-1,,\r\n"));
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
		       "false,,0,,,,,,,\r\n");
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
			 "false,,0,,,,,,,\r\n",
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

/* The robots flags: version 2 only when one is set, version 1 unchanged
 * otherwise; a version 2 without a flag or with an unknown one is
 * corrupt; exported as one field. */
static void test_robots_flags(void)
{
	struct store_record r = full_record("http://example.com/a"), d;
	unsigned char buf[512], buf2[512];
	size_t len, len1;
	CHECK(store_record_encode(&r, buf, sizeof(buf), &len1) == 0 &&
	      buf[0] == 1);
	for (unsigned m = 1; m < 4; m++) {
		r.noindex = m & 1;
		r.nofollow = m & 2;
		roundtrip(&r);
		CHECK(store_record_encode(&r, buf, sizeof(buf), &len) == 0);
		CHECK(buf[0] == 2 && len == len1 + 1 &&
		      buf[STORE_RECORD_HEADER] == m);
		CHECK(store_record_decode(buf, len, &d) == 0 &&
		      d.noindex == r.noindex && d.nofollow == r.nofollow);
		memcpy(buf2, buf, len);
		buf2[STORE_RECORD_HEADER] = 0;
		CHECK(store_record_decode(buf2, len, &d) == SC_E_CORRUPT);
		buf2[STORE_RECORD_HEADER] = (unsigned char)(m | 4);
		CHECK(store_record_decode(buf2, len, &d) == SC_E_CORRUPT);
		json_t *j = export_json(&r);
		const char *want = m == 3   ? "noindex,nofollow"
				   : m == 1 ? "noindex"
					    : "nofollow";
		CHECK(jstr(j, "robots", want, strlen(want)));
		json_decref(j);
		char *csv = export_csv(&r);
		char tail[40];
		snprintf(tail, sizeof(tail), ",%s\r\n",
			 m == 3 ? "\"noindex,nofollow\"" : want);
		CHECK(csv && strlen(csv) > strlen(tail) &&
		      strcmp(csv + strlen(csv) - strlen(tail), tail) == 0);
		free(csv);
	}
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
	test_recrawl_records();
	test_old_format();
	test_corrupt_recrawl();
	test_error_names();
	test_db_error();
	test_database();
	test_robots_cache();
	test_map_full();
	test_export_jsonl();
	test_export_csv();
	test_robots_flags();
	rmdir(tmpdir);
	return check_done();
}
