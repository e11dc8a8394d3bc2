/* test-warc.c — unit tests of the WARC writer of store/ (store.h).
 *
 * The files are read back with a reader written here on zlib: it inflates
 * one gzip member at a time and checks that each member is exactly one
 * record (version line, header fields, a block of Content-Length bytes,
 * CRLF CRLF), then recomputes both digests with OpenSSL's EVP and a base32
 * encoder of its own, and follows the WARC-Concurrent-To and
 * WARC-Warcinfo-ID links. */
#include <dirent.h>
#include <errno.h>
#include <openssl/evp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "warc.h"

static char tmpdir[] = "/tmp/test-warc.XXXXXX";

/* ---- A reader --------------------------------------------------------- */

#define MAX_RECORDS 8192
#define MAX_FIELDS 32

struct record {
	char *fields; /* the header block, NUL-terminated, CRLF lines */
	unsigned char *block;
	size_t block_len;
	size_t member_len; /* compressed bytes of its gzip member */
};

struct warc_file {
	char name[256];
	struct record *rec; /* MAX_RECORDS */
	size_t n;
	bool ok; /* every member parsed as one record */
};

/* The value of field NAME of R, copied into OUT, or NULL. */
static const char *field(const struct record *r, const char *name, char *out,
			 size_t cap)
{
	size_t nl = strlen(name);
	for (const char *l = r->fields; l && *l;) {
		const char *e = strstr(l, "\r\n");
		if (!e)
			break;
		if ((size_t)(e - l) > nl + 1 && strncasecmp(l, name, nl) == 0 &&
		    l[nl] == ':') {
			const char *v = l + nl + 1;
			while (*v == ' ')
				v++;
			size_t vl = (size_t)(e - v);
			if (vl >= cap)
				return NULL;
			memcpy(out, v, vl);
			out[vl] = '\0';
			return out;
		}
		l = e + 2;
	}
	return NULL;
}

/* Parses one inflated member OUT[0..N) as exactly one record. */
static bool parse_member(const unsigned char *m, size_t n, struct record *r)
{
	static const char version[] = "WARC/1.1\r\n";
	if (n < sizeof(version) - 1 || memcmp(m, version, 10) != 0)
		return false;
	const unsigned char *end = NULL;
	for (size_t i = 0; i + 4 <= n; i++)
		if (memcmp(m + i, "\r\n\r\n", 4) == 0) {
			end = m + i;
			break;
		}
	if (!end)
		return false;
	size_t hl = (size_t)(end - m) + 2; /* through the last field's CRLF */
	r->fields = malloc(hl - 10 + 1);
	memcpy(r->fields, m + 10, hl - 10);
	r->fields[hl - 10] = '\0';
	char v[64];
	if (!field(r, "Content-Length", v, sizeof(v)))
		return false;
	char *e;
	unsigned long long cl = strtoull(v, &e, 10);
	if (*e || v[0] < '0' || v[0] > '9')
		return false;
	size_t off = hl + 2;
	/* Exactly: header, empty line, block, CRLF CRLF, nothing more. */
	if (off + cl + 4 != n || memcmp(m + off + cl, "\r\n\r\n", 4) != 0)
		return false;
	r->block_len = (size_t)cl;
	r->block = malloc(cl ? cl : 1);
	memcpy(r->block, m + off, cl);
	return true;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	unsigned char *p = malloc(cap);
	size_t k;
	while ((k = fread(p + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap)
			p = realloc(p, cap *= 2);
	}
	fclose(f);
	*len = n;
	return p;
}

/* Reads PATH member by member. */
static void read_warc(const char *path, struct warc_file *wf)
{
	memset(wf, 0, sizeof(*wf));
	const char *slash = strrchr(path, '/');
	snprintf(wf->name, sizeof(wf->name), "%s", slash ? slash + 1 : path);
	size_t len = 0, pos = 0;
	unsigned char *data = slurp(path, &len);
	wf->rec = calloc(MAX_RECORDS, sizeof(*wf->rec));
	wf->ok = data != NULL && len > 0;
	size_t cap = 1 << 20;
	unsigned char *out = malloc(cap);
	while (wf->ok && pos < len && wf->n < MAX_RECORDS) {
		z_stream z = { 0 };
		inflateInit2(&z, 16 + 15);
		z.next_in = data + pos;
		z.avail_in = (unsigned)(len - pos);
		size_t got = 0;
		int rc;
		do {
			if (got == cap)
				out = realloc(out, cap *= 2);
			z.next_out = out + got;
			z.avail_out = (unsigned)(cap - got);
			rc = inflate(&z, Z_NO_FLUSH);
			got = cap - z.avail_out;
		} while (rc == Z_OK);
		size_t used = z.total_in;
		inflateEnd(&z);
		if (rc != Z_STREAM_END) {
			wf->ok = false;
			break;
		}
		struct record *r = &wf->rec[wf->n++];
		r->member_len = used;
		if (!parse_member(out, got, r))
			wf->ok = false;
		pos += used;
	}
	if (pos < len)
		wf->ok = false; /* more records than MAX_RECORDS */
	free(out);
	free(data);
}

static void free_warc(struct warc_file *wf)
{
	for (size_t i = 0; i < wf->n; i++) {
		free(wf->rec[i].fields);
		free(wf->rec[i].block);
	}
	free(wf->rec);
}

/* ---- Independent digests --------------------------------------------- */

static void base32(const unsigned char *in, size_t n, char *out)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
	unsigned acc = 0, bits = 0;
	for (size_t i = 0; i < n; i++) {
		acc = (acc << 8) | in[i];
		bits += 8;
		while (bits >= 5) {
			*out++ = a[(acc >> (bits - 5)) & 31];
			bits -= 5;
		}
	}
	if (bits)
		*out++ = a[(acc << (5 - bits)) & 31];
	*out = '\0';
}

static void sha1_label(const void *p, size_t n, char out[64])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned ml = 0;
	EVP_Digest(p, n, md, &ml, EVP_sha1(), NULL);
	strcpy(out, "sha1:");
	base32(md, ml, out + 5);
}

/* ---- Helpers ----------------------------------------------------------- */

/* The names in DIR ending in SUFFIX, sorted, at most 64. */
static size_t list_dir(const char *dir, const char *suffix, char names[][256])
{
	DIR *d = opendir(dir);
	size_t n = 0, sl = strlen(suffix);
	struct dirent *e;
	while (d && (e = readdir(d)) && n < 64) {
		size_t l = strlen(e->d_name);
		if (l >= sl && strcmp(e->d_name + l - sl, suffix) == 0)
			snprintf(names[n++], 256, "%s", e->d_name);
	}
	if (d)
		closedir(d);
	qsort(names, n, 256, (int (*)(const void *, const void *))strcmp);
	return n;
}

static void rm_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[1024];
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static bool has(const struct record *r, const char *name, const char *want)
{
	char v[1024];
	return field(r, name, v, sizeof(v)) && strcmp(v, want) == 0;
}

static bool block_has(const struct record *r, const char *s)
{
	return memmem(r->block, r->block_len, s, strlen(s)) != NULL;
}

/* The length of the HTTP head at the start of a block. */
static size_t http_head_len(const struct record *r)
{
	const unsigned char *e = memmem(r->block, r->block_len, "\r\n\r\n", 4);
	return e ? (size_t)(e - r->block) + 4 : 0;
}

static const char request_get[] = "GET /a HTTP/1.1\r\nHost: example.com\r\n"
				  "User-Agent: sigcrawl-test\r\n\r\n";

static struct warc_exchange exchange(const char *uri, const char *head,
				     const void *payload, size_t len)
{
	struct warc_exchange x = {
		.target_uri = uri,
		.fetched_at = 1714564800123LL, /* 2024-05-01T12:00:00.123Z */
		.ip = "127.0.0.1",
		.request = request_get,
		.request_len = strlen(request_get),
		.response_head = head,
		.response_head_len = strlen(head),
		.payload = payload,
		.payload_len = len,
	};
	return x;
}

/* Checks every record of WF: digests, types, links, ids.  A pair may
 * begin with a revisit record instead of a response: its block is an HTTP
 * head alone, and its WARC-Payload-Digest is not that of its block.
 * Returns the number of exchanges (response or revisit + request pairs)
 * found. */
static size_t check_file(const struct warc_file *wf)
{
	char v[1024], want[64], info_id[128] = "";
	CHECK(wf->ok);
	CHECK(wf->n >= 1);
	if (!wf->ok || wf->n < 1)
		return 0;
	const struct record *info = &wf->rec[0];
	CHECK(has(info, "WARC-Type", "warcinfo"));
	CHECK(has(info, "WARC-Filename", wf->name));
	CHECK(has(info, "Content-Type", "application/warc-fields"));
	CHECK(block_has(info, "format: WARC File Format 1.1\r\n"));
	CHECK(block_has(info, "conformsTo: http://iipc.github.io/"));
	sha1_label(info->block, info->block_len, want);
	CHECK(has(info, "WARC-Block-Digest", want));
	field(info, "WARC-Record-ID", info_id, sizeof(info_id));

	size_t pairs = 0;
	for (size_t i = 1; i + 1 < wf->n; i += 2) {
		const struct record *rs = &wf->rec[i], *rq = &wf->rec[i + 1];
		char rs_id[128] = "", rq_id[128] = "";
		bool revisit = has(rs, "WARC-Type", "revisit");
		CHECK(revisit || has(rs, "WARC-Type", "response"));
		CHECK(has(rq, "WARC-Type", "request"));
		/* Only a revisit has a profile and refers to a capture. */
		CHECK(revisit ==
		      (field(rs, "WARC-Profile", v, sizeof(v)) != 0));
		CHECK(revisit ==
		      (field(rs, "WARC-Refers-To", v, sizeof(v)) != 0));
		CHECK(field(rq, "WARC-Refers-To", v, sizeof(v)) == NULL);
		CHECK(has(rs, "Content-Type",
			  "application/http;msgtype=response"));
		CHECK(has(rq, "Content-Type",
			  "application/http;msgtype=request"));
		field(rs, "WARC-Record-ID", rs_id, sizeof(rs_id));
		field(rq, "WARC-Record-ID", rq_id, sizeof(rq_id));
		CHECK(strlen(rs_id) == 47 &&
		      strncmp(rs_id, "<urn:uuid:", 10) == 0 &&
		      rs_id[24] == '4');
		CHECK(strcmp(rs_id, rq_id) != 0);
		CHECK(has(rs, "WARC-Concurrent-To", rq_id));
		CHECK(has(rq, "WARC-Concurrent-To", rs_id));
		CHECK(has(rs, "WARC-Warcinfo-ID", info_id));
		CHECK(has(rq, "WARC-Warcinfo-ID", info_id));
		char ur[1024] = "", uq[1024] = "";
		field(rs, "WARC-Target-URI", ur, sizeof(ur));
		field(rq, "WARC-Target-URI", uq, sizeof(uq));
		CHECK(ur[0] && strcmp(ur, uq) == 0);
		sha1_label(rs->block, rs->block_len, want);
		CHECK(has(rs, "WARC-Block-Digest", want));
		sha1_label(rq->block, rq->block_len, want);
		CHECK(has(rq, "WARC-Block-Digest", want));
		size_t hl = http_head_len(rs);
		CHECK(hl > 0);
		if (revisit) {
			CHECK(hl == rs->block_len);
			CHECK(field(rs, "WARC-Payload-Digest", v, sizeof(v)) &&
			      strlen(v) == 37);
		} else {
			sha1_label(rs->block + hl, rs->block_len - hl, want);
			CHECK(has(rs, "WARC-Payload-Digest", want));
		}
		CHECK(http_head_len(rq) == rq->block_len);
		CHECK(field(rs, "WARC-Date", v, sizeof(v)) && strlen(v) == 24);
		pairs++;
	}
	CHECK(wf->n % 2 == 1);
	return pairs;
}

static void read_only_file(const char *dir, struct warc_file *wf)
{
	char names[64][256], p[1024];
	size_t n = list_dir(dir, ".warc.gz", names);
	CHECK(n == 1);
	snprintf(p, sizeof(p), "%s/%s", dir, names[0]);
	read_warc(p, wf);
}

/* ---- The tests ---------------------------------------------------------- */

static void test_exchanges(void)
{
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/basic", tmpdir);
	struct warc_opts o = { .prefix = "crawl",
			       .software = "sigcrawl/test",
			       .operator_name = "Ops <ops@example.com>",
			       .hostname = "host.example" };
	struct warc_writer *w = NULL;
	CHECK(warc_open(dir, &o, &w) == 0 && w);
	char names[64][256];
	CHECK(list_dir(dir, "", names) == 2); /* "." and "..": no file yet */

	/* 1: plain, headers kept byte for byte. */
	static const char h1[] =
		"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
		"Content-Length: 5\r\n\r\n";
	struct warc_exchange x = exchange("http://example.com/a", h1, "hello",
					  5);
	CHECK(warc_write_exchange(w, &x) == 0);

	/* 2: a body libcurl decoded from gzip and de-chunked. */
	static const char h2[] = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n"
				 "Transfer-Encoding: chunked\r\n"
				 "Content-Type: text/plain\r\n\r\n";
	x = exchange("http://example.com/gz", h2, "decoded text", 12);
	x.payload_decoded = true;
	CHECK(warc_write_exchange(w, &x) == 0);

	/* 3: an empty body, no IP address. */
	static const char h3[] = "HTTP/1.1 204 No Content\r\n\r\n";
	x = exchange("https://example.com/empty", h3, NULL, 0);
	x.ip = NULL;
	CHECK(warc_write_exchange(w, &x) == 0);

	/* 4: a binary body with NULs, bare-LF lines after a 100 Continue,
	 * and an IPv6 address. */
	unsigned char bin[1000];
	for (size_t i = 0; i < sizeof(bin); i++)
		bin[i] = (unsigned char)(i % 7 == 0 ? 0 : (i * 131) & 0xff);
	static const char h4[] = "HTTP/1.1 100 Continue\n\nHTTP/1.1 200 OK\n"
				 "Content-Type: application/octet-stream\n"
				 "Content-Length: 1000\n\n";
	x = exchange("http://example.com/bin?x=%00", h4, bin, sizeof(bin));
	x.ip = "2001:db8::1";
	CHECK(warc_write_exchange(w, &x) == 0);

	/* 5: a body cut at max_body_bytes: Content-Length no longer holds;
	 * and a folded continuation of a removed header. */
	static const char h5[] = "HTTP/1.1 200 OK\r\nContent-Length: 99999\r\n"
				 "Transfer-Encoding: gzip,\r\n chunked\r\n\r\n";
	x = exchange("http://example.com/cut", h5, "0123456789", 10);
	CHECK(warc_write_exchange(w, &x) == 0);
	CHECK(warc_flush(w) == 0);

	/* After warc_flush() the open file is complete and readable. */
	char open_names[64][256], p[1024];
	CHECK(list_dir(dir, ".warc.gz.open", open_names) == 1);
	CHECK(list_dir(dir, ".warc.gz", names) == 0);
	struct warc_file wf;
	snprintf(p, sizeof(p), "%s/%s", dir, open_names[0]);
	read_warc(p, &wf);
	CHECK(wf.ok && wf.n == 11);
	free_warc(&wf);

	CHECK(warc_close(w) == 0);
	CHECK(list_dir(dir, ".open", open_names) == 0);
	read_only_file(dir, &wf);
	CHECK(check_file(&wf) == 5);
	CHECK(wf.n == 11);
	if (wf.n != 11) {
		free_warc(&wf);
		return;
	}
	/* The name: PREFIX-YYYYMMDDhhmmssmmm-00000.warc.gz */
	CHECK(strlen(wf.name) == strlen("crawl-") + 17 + 14 &&
	      strncmp(wf.name, "crawl-20", 8) == 0 &&
	      strcmp(wf.name + 23, "-00000.warc.gz") == 0);
	const struct record *r = &wf.rec[0];
	CHECK(block_has(r, "software: sigcrawl/test\r\n"));
	CHECK(block_has(r, "operator: Ops <ops@example.com>\r\n"));
	CHECK(block_has(r, "hostname: host.example\r\n"));

	r = &wf.rec[1];
	CHECK(has(r, "WARC-Target-URI", "http://example.com/a"));
	CHECK(has(r, "WARC-Date", "2024-05-01T12:00:00.123Z"));
	CHECK(has(r, "WARC-IP-Address", "127.0.0.1"));
	CHECK(r->block_len == strlen(h1) + 5 &&
	      memcmp(r->block, h1, strlen(h1)) == 0 &&
	      memcmp(r->block + strlen(h1), "hello", 5) == 0);
	CHECK(wf.rec[2].block_len == strlen(request_get) &&
	      memcmp(wf.rec[2].block, request_get, strlen(request_get)) == 0);
	CHECK(has(&wf.rec[2], "WARC-Date", "2024-05-01T12:00:00.123Z"));

	r = &wf.rec[3];
	static const char h2_want[] =
		"HTTP/1.1 200 OK\r\n"
		"X-Sigcrawl-Original-Content-Encoding: gzip\r\n"
		"X-Sigcrawl-Original-Transfer-Encoding: chunked\r\n"
		"Content-Type: text/plain\r\n"
		"Content-Length: 12\r\n\r\n"
		"decoded text";
	CHECK(r->block_len == strlen(h2_want) &&
	      memcmp(r->block, h2_want, r->block_len) == 0);

	r = &wf.rec[5];
	CHECK(has(r, "WARC-Payload-Digest",
		  "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"));
	CHECK(r->block_len == strlen(h3));
	CHECK(field(r, "WARC-IP-Address", p, sizeof(p)) == NULL);

	r = &wf.rec[7];
	static const char h4_want[] =
		"HTTP/1.1 200 OK\r\n"
		"Content-Type: application/octet-stream\r\n"
		"Content-Length: 1000\r\n\r\n";
	CHECK(r->block_len == strlen(h4_want) + sizeof(bin) &&
	      memcmp(r->block, h4_want, strlen(h4_want)) == 0 &&
	      memcmp(r->block + strlen(h4_want), bin, sizeof(bin)) == 0);
	CHECK(has(r, "WARC-IP-Address", "2001:db8::1"));

	r = &wf.rec[9];
	static const char h5_want[] =
		"HTTP/1.1 200 OK\r\n"
		"X-Sigcrawl-Original-Content-Length: 99999\r\n"
		"X-Sigcrawl-Original-Transfer-Encoding: gzip,\r\n chunked\r\n"
		"Content-Length: 10\r\n\r\n"
		"0123456789";
	CHECK(r->block_len == strlen(h5_want) &&
	      memcmp(r->block, h5_want, r->block_len) == 0);
	free_warc(&wf);
}

/* The SHA-1 of P[0..N), raw. */
static void sha1_raw(const void *p, size_t n, unsigned char md[20])
{
	unsigned char m[EVP_MAX_MD_SIZE];
	unsigned ml = 0;
	EVP_Digest(p, n, m, &ml, EVP_sha1(), NULL);
	memcpy(md, m, 20);
}

/* Re-crawls: warc_write_visit() writes a revisit record of either profile
 * or a full response, and returns the capture to refer to next time. */
static void test_revisits(void)
{
	char dir[512], v[1024], want[64];
	snprintf(dir, sizeof(dir), "%s/revisit", tmpdir);
	struct warc_writer *w = NULL;
	CHECK(warc_open(dir, NULL, &w) == 0);

	static const char h200[] =
		"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
		"ETag: \"v1\"\r\nContent-Length: 11\r\n\r\n";
	static const char h200_lf[] =
		"HTTP/1.1 200 OK\nContent-Type: text/html\n"
		"ETag: \"v1\"\nContent-Length: 11\n\n";
	static const char h304[] =
		"HTTP/1.1 304 Not Modified\nETag: \"v1\"\n\n";
	static const char h304_want[] = "HTTP/1.1 304 Not Modified\r\n"
					"ETag: \"v1\"\r\n\r\n";
	const char *uri = "http://example.com/a";
	int64_t t0 = 1714564800123LL; /* 2024-05-01T12:00:00.123Z */

	/* 0: the first capture, written by warc_write_visit() without a
	 * prior: a response, and OUT describes it. */
	struct warc_capture cap, junk;
	memset(&cap, 0x55, sizeof(cap));
	bool rev = true;
	struct warc_exchange x = exchange(uri, h200, "hello world", 11);
	CHECK(warc_write_visit(w, &x, NULL, "not a uri", true, &cap, &rev) ==
	      0);
	CHECK(!rev);
	CHECK(cap.date == t0);
	unsigned char md[20];
	sha1_raw("hello world", 11, md);
	CHECK(memcmp(cap.payload_sha1, md, 20) == 0);
	size_t idl = strnlen(cap.id, WARC_ID_LEN);
	CHECK(idl == 47 && strncmp(cap.id, "<urn:uuid:", 10) == 0);
	bool zero = idl < WARC_ID_LEN;
	for (size_t i = idl; i < WARC_ID_LEN; i++)
		zero = zero && cap.id[i] == 0;
	CHECK(zero);

	/* 1: the same payload a day later: identical-payload-digest, the head
	 * with bare LFs rewritten, WARC-Truncated: length. */
	struct warc_capture out1;
	memset(&out1, 0, sizeof(out1));
	x = exchange(uri, h200_lf, "hello world", 11);
	x.fetched_at = t0 + 86400000;
	rev = false;
	CHECK(warc_write_visit(w, &x, &cap, NULL, false, &out1, &rev) == 0);
	CHECK(rev);
	CHECK(memcmp(&out1, &cap, sizeof(cap)) == 0);

	/* 2: the server says 304: server-not-modified, whatever the payload;
	 * OUT is PRIOR itself and stays as it was. */
	struct warc_capture same = cap;
	x = exchange(uri, h304, NULL, 0);
	x.fetched_at = t0 + 2 * 86400000;
	x.ip = NULL;
	rev = false;
	CHECK(warc_write_visit(w, &x, &same, uri, true, &same, &rev) == 0);
	CHECK(rev);
	CHECK(memcmp(&same, &cap, sizeof(cap)) == 0);

	/* 3: the same payload at another URI (a spatial duplicate), PRIOR's
	 * URI given, OUT NULL; REVISIT NULL is accepted too. */
	x = exchange("http://example.com/copy", h200, "hello world", 11);
	x.fetched_at = t0 + 3 * 86400000;
	CHECK(warc_write_visit(w, &x, &cap, uri, false, NULL, &rev) == 0);
	CHECK(rev);
	CHECK(warc_write_visit(w, &x, &cap, uri, false, NULL, NULL) == 0);

	/* 4: a changed payload: a full response; OUT is the new capture,
	 * written over PRIOR. */
	struct warc_capture next = cap;
	x = exchange(uri, h200, "HELLO WORLD", 11);
	x.fetched_at = t0 + 4 * 86400000;
	rev = true;
	CHECK(warc_write_visit(w, &x, &next, NULL, false, &next, &rev) == 0);
	CHECK(!rev);
	CHECK(strcmp(next.id, cap.id) != 0 && strlen(next.id) == 47);
	CHECK(next.date == t0 + 4 * 86400000);
	sha1_raw("HELLO WORLD", 11, md);
	CHECK(memcmp(next.payload_sha1, md, 20) == 0);

	/* 5: a 304 without a prior capture: a plain response. */
	x = exchange(uri, h304, NULL, 0);
	rev = true;
	CHECK(warc_write_visit(w, &x, NULL, NULL, true, &junk, &rev) == 0);
	CHECK(!rev);

	/* 6: a prior from another writer: any id of 63 printable bytes. */
	struct warc_capture other = { .date = 0 };
	memset(other.id, 'i', WARC_ID_LEN - 1);
	memcpy(other.id, "<urn:x:", 7);
	other.id[WARC_ID_LEN - 2] = '>';
	x = exchange(uri, h304, NULL, 0);
	CHECK(warc_write_visit(w, &x, &other, "https://old.example/a?b=%20",
			       true, NULL, &rev) == 0);
	CHECK(rev);
	CHECK(warc_close(w) == 0);

	struct warc_file wf;
	read_only_file(dir, &wf);
	CHECK(check_file(&wf) == 8);
	CHECK(wf.n == 17);
	if (wf.n != 17) {
		free_warc(&wf);
		return;
	}
	const struct record *r0 = &wf.rec[1], *r;
	CHECK(has(r0, "WARC-Type", "response"));
	CHECK(has(r0, "WARC-Record-ID", cap.id));
	CHECK(has(r0, "WARC-Date", "2024-05-01T12:00:00.123Z"));
	sha1_label("hello world", 11, want);
	CHECK(has(r0, "WARC-Payload-Digest", want));

	r = &wf.rec[3];
	CHECK(has(r, "WARC-Type", "revisit"));
	CHECK(has(r, "WARC-Profile",
		  "http://netpreserve.org/warc/1.1/revisit/"
		  "identical-payload-digest"));
	CHECK(has(r, "WARC-Refers-To", cap.id));
	CHECK(has(r, "WARC-Refers-To-Target-URI", uri));
	CHECK(has(r, "WARC-Refers-To-Date", "2024-05-01T12:00:00.123Z"));
	CHECK(has(r, "WARC-Date", "2024-05-02T12:00:00.123Z"));
	CHECK(has(r, "WARC-Target-URI", uri));
	CHECK(has(r, "WARC-IP-Address", "127.0.0.1"));
	CHECK(has(r, "WARC-Truncated", "length"));
	CHECK(has(r, "WARC-Payload-Digest", want));
	CHECK(has(r, "Content-Type", "application/http;msgtype=response"));
	snprintf(v, sizeof(v), "%zu", strlen(h200));
	CHECK(has(r, "Content-Length", v));
	CHECK(r->block_len == strlen(h200) &&
	      memcmp(r->block, h200, strlen(h200)) == 0);
	sha1_label(h200, strlen(h200), v);
	CHECK(has(r, "WARC-Block-Digest", v));
	CHECK(field(r, "WARC-Record-ID", v, sizeof(v)) &&
	      has(&wf.rec[4], "WARC-Concurrent-To", v));
	CHECK(has(&wf.rec[4], "WARC-Type", "request"));
	CHECK(has(&wf.rec[4], "WARC-Date", "2024-05-02T12:00:00.123Z"));

	r = &wf.rec[5];
	CHECK(has(r, "WARC-Type", "revisit"));
	CHECK(has(r, "WARC-Profile",
		  "http://netpreserve.org/warc/1.1/revisit/"
		  "server-not-modified"));
	CHECK(has(r, "WARC-Refers-To", cap.id));
	CHECK(has(r, "WARC-Refers-To-Target-URI", uri));
	CHECK(has(r, "WARC-Refers-To-Date", "2024-05-01T12:00:00.123Z"));
	CHECK(has(r, "WARC-Date", "2024-05-03T12:00:00.123Z"));
	CHECK(field(r, "WARC-Truncated", v, sizeof(v)) == NULL);
	CHECK(field(r, "WARC-IP-Address", v, sizeof(v)) == NULL);
	CHECK(has(r, "WARC-Payload-Digest", want)); /* the prior payload's */
	CHECK(r->block_len == strlen(h304_want) &&
	      memcmp(r->block, h304_want, r->block_len) == 0);
	sha1_label(h304_want, strlen(h304_want), v);
	CHECK(has(r, "WARC-Block-Digest", v));

	for (size_t i = 7; i <= 9; i += 2) {
		r = &wf.rec[i];
		CHECK(has(r, "WARC-Type", "revisit"));
		CHECK(has(r, "WARC-Profile",
			  WARC_PROFILE_IDENTICAL_PAYLOAD_DIGEST));
		CHECK(has(r, "WARC-Target-URI", "http://example.com/copy"));
		CHECK(has(&wf.rec[i + 1], "WARC-Target-URI",
			  "http://example.com/copy"));
		CHECK(has(r, "WARC-Refers-To-Target-URI", uri));
		CHECK(has(r, "WARC-Refers-To", cap.id));
	}

	r = &wf.rec[11];
	CHECK(has(r, "WARC-Type", "response"));
	CHECK(has(r, "WARC-Record-ID", next.id));
	CHECK(has(r, "WARC-Date", "2024-05-05T12:00:00.123Z"));
	sha1_label("HELLO WORLD", 11, v);
	CHECK(has(r, "WARC-Payload-Digest", v));
	CHECK(r->block_len == strlen(h200) + 11);

	r = &wf.rec[13];
	CHECK(has(r, "WARC-Type", "response"));
	CHECK(has(r, "WARC-Record-ID", junk.id));
	CHECK(r->block_len == strlen(h304_want));

	r = &wf.rec[15];
	CHECK(has(r, "WARC-Type", "revisit"));
	CHECK(has(r, "WARC-Profile", WARC_PROFILE_SERVER_NOT_MODIFIED));
	CHECK(has(r, "WARC-Refers-To", other.id));
	CHECK(has(r, "WARC-Refers-To-Target-URI",
		  "https://old.example/a?b=%20"));
	CHECK(has(r, "WARC-Target-URI", uri));
	CHECK(has(r, "WARC-Refers-To-Date", "1970-01-01T00:00:00.000Z"));
	CHECK(has(r, "WARC-Payload-Digest",
		  "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"));
	free_warc(&wf);
}

/* A bad PRIOR gives SC_E_INVAL, writes nothing and leaves OUT and
 * REVISIT alone. */
static void test_bad_prior(void)
{
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/badprior", tmpdir);
	struct warc_writer *w = NULL;
	CHECK(warc_open(dir, NULL, &w) == 0);
	static const char ok[] = "HTTP/1.1 304 Not Modified\r\n\r\n";
	struct warc_capture good = { .id = "<urn:uuid:x>",
				     .date = 1714564800123LL };
	const char *bad_ids[] = { "",           "<urn:uuid:a b>",
				  "<urn:\tx>",  "<urn:x>\r\nWARC-Type: evil",
				  "<urn:\x7f>", "<urn:\xc3\xa9>" };
	struct warc_exchange x = exchange("http://e.com/", ok, "", 0);
	for (size_t i = 0; i < sizeof(bad_ids) / sizeof(bad_ids[0]); i++) {
		for (int nm = 0; nm < 2; nm++) {
			struct warc_capture p = good, out;
			memset(&out, 0x5a, sizeof(out));
			snprintf(p.id, sizeof(p.id), "%s", bad_ids[i]);
			bool rev = true;
			CHECK(warc_write_visit(w, &x, &p, NULL, nm, &out,
					       &rev) == SC_E_INVAL);
			CHECK(rev && out.id[0] == 0x5a && out.date != 0);
		}
	}
	struct warc_capture p = good;
	memset(p.id, 'a', WARC_ID_LEN); /* no NUL */
	CHECK(warc_write_visit(w, &x, &p, NULL, true, NULL, NULL) ==
	      SC_E_INVAL);
	p = good;
	p.date = -1;
	CHECK(warc_write_visit(w, &x, &p, NULL, true, NULL, NULL) ==
	      SC_E_INVAL);
	p.date = 253402300800000LL; /* year 10000 */
	CHECK(warc_write_visit(w, &x, &p, NULL, false, NULL, NULL) ==
	      SC_E_INVAL);
	const char *bad_uris[] = { "", "http://e.com/a b",
				   "http://e.com/\r\nWARC-Type: evil",
				   "http://e.com/\xc3\xa9" };
	for (size_t i = 0; i < 4; i++)
		CHECK(warc_write_visit(w, &x, &good, bad_uris[i], true, NULL,
				       NULL) == SC_E_INVAL);
	/* X is checked as by warc_write_exchange(), prior or not. */
	x.target_uri = "http://e.com/ x";
	CHECK(warc_write_visit(w, &x, &good, NULL, true, NULL, NULL) ==
	      SC_E_INVAL);
	CHECK(warc_write_visit(NULL, &x, &good, NULL, true, NULL, NULL) ==
	      SC_E_INVAL);
	char names[64][256];
	CHECK(list_dir(dir, ".open", names) == 0);
	CHECK(warc_close(w) == 0);
	CHECK(list_dir(dir, ".gz", names) == 0); /* nothing was written */
}

/* Every malformed input gives SC_E_INVAL and writes nothing. */
static void test_invalid(void)
{
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/invalid", tmpdir);
	struct warc_writer *w = NULL;
	static const char ok[] = "HTTP/1.1 200 OK\r\n\r\n";

	struct warc_opts bad_prefix = { .prefix = "a/b" };
	CHECK(warc_open(dir, &bad_prefix, &w) == SC_E_INVAL && !w);
	struct warc_opts dot = { .prefix = ".hidden" };
	CHECK(warc_open(dir, &dot, &w) == SC_E_INVAL && !w);
	struct warc_opts empty = { .prefix = "" };
	CHECK(warc_open(dir, &empty, &w) == SC_E_INVAL && !w);
	struct warc_opts crlf = { .operator_name = "x\r\nWARC-Type: evil" };
	CHECK(warc_open(dir, &crlf, &w) == SC_E_INVAL && !w);
	CHECK(warc_open(NULL, NULL, &w) == SC_E_INVAL);
	CHECK(warc_open("/proc/no/such/dir", NULL, &w) == SC_E_IO && !w);

	CHECK(warc_open(dir, NULL, &w) == 0);
	const char *bad_uris[] = {
		"",
		"http://example.com/a b",
		"http://example.com/a\r\nWARC-Type: evil",
		"http://example.com/\t",
		"http://example.com/\x7f",
		"http://example.com/\xc3\xa9",
	};
	for (size_t i = 0; i < sizeof(bad_uris) / sizeof(bad_uris[0]); i++) {
		struct warc_exchange x = exchange(bad_uris[i], ok, "", 0);
		CHECK(warc_write_exchange(w, &x) == SC_E_INVAL);
	}
	char *long_uri = malloc(WARC_URI_MAX + 2);
	memset(long_uri, 'a', WARC_URI_MAX + 1);
	long_uri[WARC_URI_MAX + 1] = '\0';
	struct warc_exchange x = exchange(long_uri, ok, "", 0);
	CHECK(warc_write_exchange(w, &x) == SC_E_INVAL);
	free(long_uri);

	const char *bad_ips[] = { "1.2.3", "::g", "127.0.0.1\r\n", "" };
	for (size_t i = 0; i < 4; i++) {
		x = exchange("http://e.com/", ok, "", 0);
		x.ip = bad_ips[i];
		CHECK(warc_write_exchange(w, &x) == SC_E_INVAL);
	}

	const char *bad_heads[] = {
		"HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", /* bare CR */
		"HTTP/1.1 200 OK\r\nX: a\r",          /* CR at the end */
		"\r\n\r\n",                           /* no message */
		"SIP/2.0 200 OK\r\n\r\n",             /* not HTTP */
	};
	for (size_t i = 0; i < 4; i++) {
		x = exchange("http://e.com/", bad_heads[i], "", 0);
		CHECK(warc_write_exchange(w, &x) == SC_E_INVAL);
	}
	static const char nul_head[] = "HTTP/1.1 200 OK\r\nX: a\0b\r\n\r\n";
	x = exchange("http://e.com/", ok, "", 0);
	x.response_head = nul_head;
	x.response_head_len = sizeof(nul_head) - 1;
	CHECK(warc_write_exchange(w, &x) == SC_E_INVAL);

	static char big[WARC_HEAD_MAX + 64];
	memcpy(big, "HTTP/1.1 200 OK\r\nX: ", 20);
	memset(big + 20, 'a', WARC_HEAD_MAX);
	memcpy(big + 20 + WARC_HEAD_MAX, "\r\n\r\n", 5);
	x = exchange("http://e.com/", big, "", 0);
	CHECK(warc_write_exchange(w, &x) == SC_E_INVAL);

	static const char two[] =
		"GET / HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n";
	x = exchange("http://e.com/", ok, "", 0);
	x.request = two;
	x.request_len = strlen(two);
	CHECK(warc_write_exchange(w, &x) == SC_E_INVAL);
	x = exchange("http://e.com/", ok, "", 0);
	x.request_len = 0;
	CHECK(warc_write_exchange(w, &x) == SC_E_INVAL);
	x = exchange("http://e.com/", ok, "", 0);
	x.fetched_at = -1;
	CHECK(warc_write_exchange(w, &x) == SC_E_INVAL);
	x = exchange("http://e.com/", ok, NULL, 3);
	CHECK(warc_write_exchange(w, &x) == SC_E_INVAL);
	CHECK(warc_write_exchange(w, NULL) == SC_E_INVAL);
	CHECK(warc_write_exchange(NULL, &x) == SC_E_INVAL);

	char names[64][256];
	CHECK(list_dir(dir, ".open", names) == 0);
	CHECK(warc_flush(w) == 0);
	CHECK(warc_close(w) == 0);
	CHECK(list_dir(dir, ".gz", names) == 0); /* nothing was written */
	CHECK(warc_close(NULL) == 0);
}

/* Small files rotate: every file starts with warcinfo, holds whole
 * exchanges, and only the last is open until warc_close(). */
static void test_rotation(void)
{
	char dir[512], p[1024];
	snprintf(dir, sizeof(dir), "%s/rotate", tmpdir);
	struct warc_opts o = { .prefix = "rot", .max_file_bytes = 3000 };
	struct warc_writer *w = NULL;
	CHECK(warc_open(dir, &o, &w) == 0);
	unsigned char body[700];
	uint32_t s = 12345;
	const size_t total = 12;
	for (size_t i = 0; i < total; i++) {
		for (size_t j = 0; j < sizeof(body); j++) {
			s = s * 1103515245u + 12345u;
			body[j] = (unsigned char)(s >> 16);
		}
		char uri[64];
		snprintf(uri, sizeof(uri), "http://example.com/r/%zu", i);
		struct warc_exchange x = exchange(
			uri, "HTTP/1.1 200 OK\r\nContent-Length: 700\r\n\r\n",
			body, sizeof(body));
		CHECK(warc_write_exchange(w, &x) == 0);
	}
	char names[64][256];
	CHECK(list_dir(dir, ".warc.gz.open", names) == 1);
	size_t done_before = list_dir(dir, ".warc.gz", names);
	CHECK(done_before >= 2);
	CHECK(warc_close(w) == 0);
	size_t n = list_dir(dir, ".warc.gz", names);
	CHECK(n >= 3 && n == done_before + 1);
	char open_names[64][256];
	CHECK(list_dir(dir, ".open", open_names) == 0);
	size_t pairs = 0, next = 0;
	for (size_t i = 0; i < n; i++) {
		char want[32];
		snprintf(want, sizeof(want), "-%05zu.warc.gz", i);
		CHECK(strncmp(names[i], "rot-", 4) == 0 &&
		      strcmp(names[i] + strlen(names[i]) - strlen(want),
			     want) == 0);
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		struct warc_file wf;
		read_warc(p, &wf);
		pairs += check_file(&wf);
		/* The URIs continue across files, in order. */
		for (size_t k = 1; k < wf.n; k += 2) {
			char uri[64];
			snprintf(uri, sizeof(uri), "http://example.com/r/%zu",
				 next++);
			CHECK(has(&wf.rec[k], "WARC-Target-URI", uri));
		}
		/* A file passes the limit by at most its last exchange. */
		struct stat st;
		CHECK(stat(p, &st) == 0);
		if (i + 1 < n && wf.n >= 3)
			CHECK((uint64_t)st.st_size -
				      wf.rec[wf.n - 1].member_len -
				      wf.rec[wf.n - 2].member_len <
			      o.max_file_bytes);
		free_warc(&wf);
	}
	CHECK(pairs == total);
}

/* A payload larger than the output buffer streams through; a failed
 * write (the file size limit) is cut back so the file stays whole. */
static void test_large_and_failure(void)
{
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/large", tmpdir);
	struct warc_writer *w = NULL;
	CHECK(warc_open(dir, NULL, &w) == 0);
	size_t big_len = 3u << 20;
	unsigned char *big = malloc(big_len);
	uint32_t s = 7;
	for (size_t i = 0; i < big_len; i++) {
		s = s * 1103515245u + 12345u;
		big[i] = (unsigned char)(s >> 16);
	}
	static const char head[] = "HTTP/1.1 200 OK\r\n\r\n";
	struct warc_exchange x = exchange("http://e.com/big", head, big,
					  big_len);
	CHECK(warc_write_exchange(w, &x) == 0);
	CHECK(warc_flush(w) == 0);

	/* Writes past 4 MiB now fail with EFBIG (SIGXFSZ ignored). */
	struct rlimit old, lim;
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 4u << 20;
	signal(SIGXFSZ, SIG_IGN);
	CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	x = exchange("http://e.com/fails", head, big, big_len);
	CHECK(warc_write_exchange(w, &x) == SC_E_IO);
	CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
	x = exchange("http://e.com/after", head, "ok", 2);
	CHECK(warc_write_exchange(w, &x) == 0);
	CHECK(warc_close(w) == 0);

	struct warc_file wf;
	read_only_file(dir, &wf);
	CHECK(check_file(&wf) == 2);
	CHECK(wf.n == 5);
	if (wf.n == 5) {
		CHECK(has(&wf.rec[1], "WARC-Target-URI", "http://e.com/big"));
		CHECK(wf.rec[1].block_len == strlen(head) + big_len);
		CHECK(has(&wf.rec[3], "WARC-Target-URI", "http://e.com/after"));
	}
	free_warc(&wf);
	free(big);
}

/* Random header blocks built from the bytes that matter to framing: each
 * call either writes a whole exchange or returns SC_E_INVAL, and the file
 * reads back as exactly the accepted exchanges, with valid digests. */
static void test_random_heads(void)
{
	static const char *const pieces[] = { "HTTP/1.1 200 OK",
					      "\r\n",
					      "\n",
					      "\r",
					      "Content-Length: 3",
					      "Transfer-Encoding: chunked",
					      "Content-Encoding: gzip",
					      " ",
					      "\t",
					      ":",
					      "WARC/1.1",
					      "x",
					      "\r\n\r\n",
					      "HTTP/1.0 100 Continue",
					      "Content-Length:",
					      "\x80\xff" };
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/random", tmpdir);
	struct warc_writer *w = NULL;
	CHECK(warc_open(dir, NULL, &w) == 0);
	uint32_t s = 99;
	size_t accepted = 0, rejected = 0, other = 0;
	for (int i = 0; i < 3000; i++) {
		char head[512] = "";
		size_t len = 0;
		s = s * 1103515245u + 12345u;
		int parts = (int)((s >> 16) % 12);
		if ((s >> 8) & 1)
			len = (size_t)sprintf(head, "HTTP/1.1 200 OK\r\n");
		for (int k = 0; k < parts; k++) {
			s = s * 1103515245u + 12345u;
			const char *p = pieces[(s >> 16) % 16];
			size_t pl = strlen(p);
			memcpy(head + len, p, pl);
			len += pl;
		}
		struct warc_exchange x = exchange("http://e.com/r", head,
						  "abc\r\n\r\nWARC/1.1", 15);
		x.response_head_len = len;
		x.payload_decoded = (s >> 4) & 1;
		int rc = warc_write_exchange(w, &x);
		if (rc == 0)
			accepted++;
		else if (rc == SC_E_INVAL)
			rejected++;
		else
			other++;
	}
	CHECK(other == 0);
	CHECK(accepted > 300 && rejected > 300);
	CHECK(warc_close(w) == 0);
	struct warc_file *wf = malloc(sizeof(*wf));
	char names[64][256], p[1024];
	size_t n = list_dir(dir, ".warc.gz", names), pairs = 0;
	CHECK(n == 1);
	for (size_t i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		read_warc(p, wf);
		pairs += check_file(wf);
		free_warc(wf);
	}
	CHECK(pairs == accepted);
	free(wf);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_exchanges();
	test_invalid();
	test_rotation();
	test_large_and_failure();
	test_random_heads();
	test_revisits();
	test_bad_prior();
	const char *subs[] = { "basic",  "invalid", "rotate",  "large",
			       "random", "revisit", "badprior" };
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		char d[600];
		snprintf(d, sizeof(d), "%s/%s", tmpdir, subs[i]);
		rm_dir(d);
	}
	rmdir(tmpdir);
	return check_done();
}
