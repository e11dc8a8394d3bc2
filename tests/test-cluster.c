/* test-cluster.c — unit tests of cluster/ that need no NATS server: the
 * shard of a host (stability, registrable domains, IP literals, balance,
 * jump hash's minimal movement), the batch format (round trip, every kind
 * of malformed input) and the offline spool (order, bound, drop, a torn
 * tail after kill -9, a foreign file).
 *
 *     test-cluster */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "check.h"
#include "cluster.h"

static uint32_t shard_of(const char *host, uint32_t shards)
{
	return cluster_shard_of(host, strlen(host), shards);
}

static uint32_t hash_shard(const char *d, uint32_t shards)
{
	return cluster_jump_hash(XXH64(d, strlen(d), 0), shards);
}

static void test_shard_stability(void)
{
	/* The documented function, exactly: the registrable domain's
	 * XXH64 through jump hash. */
	CHECK(shard_of("www.example.co.uk", 64) ==
	      hash_shard("example.co.uk", 64));
	CHECK(shard_of("Blog.Example.COM.", 1000) ==
	      hash_shard("example.com", 1000));
	/* Golden values (also computed by a separate Python transcription
	 * of the paper's loop): a change of the function would move every
	 * crawl's hosts, so it must show. */
	CHECK(cluster_jump_hash(0, 1000) == 0);
	CHECK(cluster_jump_hash(1, 1) == 0);
	CHECK(cluster_jump_hash(0, 0) == 0);
	uint32_t g1 = cluster_jump_hash(UINT64_C(0x0123456789abcdef), 1024);
	uint32_t g2 = cluster_jump_hash(UINT64_C(0xfedcba9876543210), 1024);
	CHECK(g1 == 194);
	CHECK(g2 == 143);
	if (g1 != 194 || g2 != 143)
		fprintf(stderr, "jump golden: %u %u\n", g1, g2);

	/* The same host twice; one registrable domain, one shard. */
	for (uint32_t shards = 2; shards <= 1024; shards *= 2) {
		uint32_t s = shard_of("example.org", shards);
		CHECK(shard_of("example.org", shards) == s);
		CHECK(shard_of("www.example.org", shards) == s);
		CHECK(shard_of("a.b.c.example.org", shards) == s);
		CHECK(shard_of("EXAMPLE.ORG", shards) == s);
		CHECK(shard_of("www.example.org.", shards) == s);
		CHECK(s < shards);
	}
	CHECK(shard_of("example.org", 1) == 0);
	CHECK(shard_of("example.org", 0) == 0);

	/* a.co.uk and b.co.uk are different sites: co.uk is a public
	 * suffix.  Were co.uk taken as the domain, all would share one
	 * shard. */
	unsigned seen[64] = { 0 }, distinct = 0;
	char h[64];
	for (int i = 0; i < 200; i++) {
		snprintf(h, sizeof(h), "www.site%d.co.uk", i);
		uint32_t s = shard_of(h, 64);
		snprintf(h, sizeof(h), "site%d.co.uk", i);
		CHECK(shard_of(h, 64) == s);
		if (!seen[s]++)
			distinct++;
	}
	CHECK(distinct > 40);
	CHECK(shard_of("a.co.uk", 1024) == hash_shard("a.co.uk", 1024));
	CHECK(shard_of("b.co.uk", 1024) == hash_shard("b.co.uk", 1024));
	/* A public suffix itself, and a single label, hash whole. */
	CHECK(shard_of("co.uk", 1024) == hash_shard("co.uk", 1024));
	CHECK(shard_of("localhost", 1024) == hash_shard("localhost", 1024));

	/* IP literals hash whole: the PSL would cut 10.7.0.5 to "0.5" and
	 * put every 10.x.0.5 on one shard. */
	memset(seen, 0, sizeof(seen));
	distinct = 0;
	for (int i = 0; i < 200; i++) {
		snprintf(h, sizeof(h), "10.%d.0.5", i);
		uint32_t s = shard_of(h, 64);
		CHECK(s == hash_shard(h, 64));
		if (!seen[s]++)
			distinct++;
	}
	CHECK(distinct > 40);
	CHECK(shard_of("[2001:db8::1]", 1024) ==
	      hash_shard("2001:db8::1", 1024));
	CHECK(shard_of("2001:db8::1", 1024) == hash_shard("2001:db8::1", 1024));

	/* An over-long "host" is hashed whole, lower-cased, and a late
	 * difference still counts. */
	char long1[600], long2[600];
	memset(long1, 'a', sizeof(long1));
	long1[599] = '\0';
	memcpy(long2, long1, sizeof(long2));
	long2[590] = 'b';
	unsigned differ = 0;
	for (uint32_t shards = 2; shards <= 1024; shards++)
		differ += shard_of(long1, shards) != shard_of(long2, shards);
	CHECK(differ > 0);
	CHECK(shard_of(long1, 1024) == hash_shard(long1, 1024));
	long2[590] = 'A';
	CHECK(shard_of(long1, 1024) == shard_of(long2, 1024));
}

/* 100,000 generated domains over 3, 10 and 64 shards: every shard within
 * 10 % of an even share. */
static void test_balance(void)
{
	static const char *const tlds[] = { "com",   "org",    "net", "de",
					    "co.uk", "com.au", "fr",  "io" };
	static const uint32_t counts[] = { 3, 10, 64 };
	const unsigned n = 100000;
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		uint32_t shards = counts[k];
		unsigned per[64] = { 0 };
		char h[80];
		for (unsigned i = 0; i < n; i++) {
			snprintf(h, sizeof(h), "www.d%u-x%u.%s", i, i * 7919,
				 tlds[i % 8]);
			per[shard_of(h, shards)]++;
		}
		double even = (double)n / shards;
		unsigned worst = 0;
		for (uint32_t s = 0; s < shards; s++) {
			unsigned off = per[s] > even
					       ? (unsigned)(per[s] - even)
					       : (unsigned)(even - per[s]);
			if (off > worst)
				worst = off;
		}
		CHECK(worst <= even * 0.10);
		if (worst > even * 0.10)
			fprintf(stderr, "shards %u: off by %u of %.0f\n",
				shards, worst, even);
	}
}

/* N -> N + 1 shards: a key moves only to the new shard, and about
 * 1/(N + 1) of them move. */
static void test_minimal_movement(void)
{
	static const uint32_t counts[] = { 1, 3, 10, 64, 999 };
	const unsigned n = 100000;
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		uint32_t N = counts[k];
		unsigned moved = 0, wrong = 0;
		for (unsigned i = 0; i < n; i++) {
			uint64_t key = XXH64(&i, sizeof(i), 42);
			uint32_t a = cluster_jump_hash(key, N);
			uint32_t b = cluster_jump_hash(key, N + 1);
			if (a != b) {
				moved++;
				wrong += b != N;
			}
		}
		double want = (double)n / (N + 1);
		CHECK(wrong == 0);
		CHECK(moved >= want * 0.8 && moved <= want * 1.2);
		if (moved < want * 0.8 || moved > want * 1.2)
			fprintf(stderr, "N %u: %u moved, want about %.0f\n", N,
				moved, want);
	}
}

/* ---- batches --------------------------------------------------------------
 */

static void link_set(struct cluster_link *l, const char *url, const char *cat,
		     uint16_t depth)
{
	l->url = url;
	l->url_len = strlen(url);
	l->category = cat;
	l->category_len = strlen(cat);
	l->depth = depth;
}

static int decode(const void *p, size_t n)
{
	struct cluster_batch *b = NULL;
	int rc = cluster_batch_decode(p, n, &b);
	cluster_batch_free(b);
	return rc;
}

static void test_batch(void)
{
	struct sc_dynbuf out;
	sc_dyn_init(&out, CLUSTER_BATCH_BYTES_MAX + 1);
	unsigned char id[CLUSTER_BATCH_ID_LEN], id2[CLUSTER_BATCH_ID_LEN];
	cluster_batch_id_new(7, id);
	cluster_batch_id_new(7, id2);
	CHECK(get_be32(id) == 7);
	CHECK(memcmp(id, id2, sizeof(id)) != 0);

	struct cluster_link l[3];
	link_set(&l[0], "http://a.example/", "news", 0);
	link_set(&l[1], "https://b.example/x?y=%20", "news.tech_2-x", 65535);
	link_set(&l[2], "http://c.example/p", "d", 9);
	CHECK(cluster_batch_encode(id, l, 3, &out) == 0);
	struct cluster_batch *b = NULL;
	CHECK(cluster_batch_decode(out.p, out.len, &b) == 0);
	if (b) {
		CHECK(memcmp(b->id, id, sizeof(id)) == 0);
		CHECK(b->n == 3);
		for (size_t i = 0; i < 3 && b->n == 3; i++) {
			CHECK_STR(b->links[i].url, l[i].url);
			CHECK(b->links[i].url_len == l[i].url_len);
			CHECK_STR(b->links[i].category, l[i].category);
			CHECK(b->links[i].depth == l[i].depth);
		}
	}
	cluster_batch_free(b);
	cluster_batch_free(NULL);

	/* Every truncation, a byte more, and broken header fields. */
	unsigned char copy[1024];
	size_t len = out.len;
	CHECK(len < sizeof(copy));
	memcpy(copy, out.p, len);
	unsigned bad = 0;
	for (size_t k = 0; k < len; k++)
		bad += decode(copy, k) == SC_E_CORRUPT;
	CHECK(bad == len);
	copy[len] = 'x';
	CHECK(decode(copy, len + 1) == SC_E_CORRUPT);
	CHECK(decode(copy, len) == 0);
	static const size_t fields[] = { 0, 4, 5, 6, 7 };
	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
		unsigned char save = copy[fields[f]];
		copy[fields[f]] ^= 0x40;
		CHECK(decode(copy, len) == SC_E_CORRUPT);
		copy[fields[f]] = save;
	}
	CHECK(decode(NULL, 0) == SC_E_CORRUPT);
	/* A control byte inside a URL, a bad category byte. */
	size_t url0 = 24 + 3 + 4 + 2; /* header, depth+len, "news", len */
	copy[url0] = ' ';
	CHECK(decode(copy, len) == SC_E_CORRUPT);
	copy[url0] = 'h';
	copy[24 + 3] = '/';
	CHECK(decode(copy, len) == SC_E_CORRUPT);
	copy[24 + 3] = 'n';
	CHECK(decode(copy, len) == 0);

	/* Encoding refuses what decoding would. */
	struct cluster_link badl;
	link_set(&badl, "http://a b/", "news", 0);
	CHECK(cluster_batch_encode(id, &badl, 1, &out) == SC_E_INVAL);
	link_set(&badl, "http://a/", "", 0);
	CHECK(cluster_batch_encode(id, &badl, 1, &out) == SC_E_INVAL);
	link_set(&badl, "http://a/", "a category", 0);
	CHECK(cluster_batch_encode(id, &badl, 1, &out) == SC_E_INVAL);
	CHECK(cluster_batch_encode(id, l, 0, &out) == SC_E_INVAL);

	/* Bounds: 1000 links pass, 1001 do not; 1000 links of 2048 bytes
	 * are more than CLUSTER_BATCH_BYTES_MAX. */
	static struct cluster_link many[CLUSTER_BATCH_LINKS_MAX + 1];
	static char big[CLUSTER_URL_MAX + 2];
	for (size_t i = 0; i <= CLUSTER_BATCH_LINKS_MAX; i++)
		link_set(&many[i], "http://x.example/", "c", 1);
	CHECK(cluster_batch_encode(id, many, CLUSTER_BATCH_LINKS_MAX, &out) ==
	      0);
	CHECK(decode(out.p, out.len) == 0);
	CHECK(cluster_batch_encode(id, many, CLUSTER_BATCH_LINKS_MAX + 1,
				   &out) == SC_E_INVAL);
	memset(big, 'a', sizeof(big));
	memcpy(big, "http://", 7);
	big[CLUSTER_URL_MAX] = '\0';
	for (size_t i = 0; i < CLUSTER_BATCH_LINKS_MAX; i++)
		link_set(&many[i], big, "c", 1);
	CHECK(cluster_batch_encode(id, many, 2, &out) == 0);
	CHECK(cluster_batch_encode(id, many, CLUSTER_BATCH_LINKS_MAX, &out) ==
	      SC_E_LIMIT);
	big[CLUSTER_URL_MAX] = 'a';
	big[CLUSTER_URL_MAX + 1] = '\0';
	link_set(&many[0], big, "c", 1);
	CHECK(cluster_batch_encode(id, many, 1, &out) == SC_E_INVAL);
	/* An oversized message is refused before it is read. */
	static unsigned char huge[CLUSTER_BATCH_BYTES_MAX + 1];
	memcpy(huge, copy, len);
	CHECK(decode(huge, sizeof(huge)) == SC_E_CORRUPT);

	/* Garbage: random bytes, and random bytes behind a valid header. */
	srand(18);
	unsigned ok = 0, corrupt = 0;
	for (int t = 0; t < 20000; t++) {
		unsigned char g[256];
		size_t gl = (size_t)(rand() % (int)sizeof(g));
		for (size_t i = 0; i < gl; i++)
			g[i] = (unsigned char)rand();
		if (t % 2 && gl >= 24)
			memcpy(g, copy, 24);
		int rc = decode(g, gl);
		ok += rc == 0;
		corrupt += rc == SC_E_CORRUPT;
	}
	CHECK(ok + corrupt == 20000);
	CHECK(corrupt > 19000);
	sc_dyn_free(&out);
}

/* ---- the spool --------------------------------------------------------------
 */

struct seen {
	unsigned n;
	uint32_t shard[64];
	char text[64][32];
	int fail_at; /* return an error at this record, or -1 */
};

static int collect(void *arg, uint32_t shard, const void *batch, size_t len)
{
	struct seen *s = arg;
	if ((int)s->n == s->fail_at)
		return SC_E_NET;
	if (s->n < 64) {
		s->shard[s->n] = shard;
		snprintf(s->text[s->n], sizeof(s->text[0]), "%.*s", (int)len,
			 (const char *)batch);
	}
	s->n++;
	return 0;
}

static char spooldir[] = "/tmp/test-cluster.XXXXXX";

static off_t file_size(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 ? st.st_size : -1;
}

static void test_spool(void)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/links.spool", spooldir);
	struct cluster_spool *s = NULL;
	CHECK(cluster_spool_open(spooldir, 1000, &s) == SC_E_INVAL);
	CHECK(cluster_spool_open(spooldir, 64 * 1024, &s) == 0);
	if (!s)
		return;
	CHECK(cluster_spool_records(s) == 0);
	CHECK(cluster_spool_bytes(s) == 8);
	char rec[32];
	for (int i = 0; i < 5; i++) {
		snprintf(rec, sizeof(rec), "batch %d", i);
		CHECK(cluster_spool_append(s, (uint32_t)(i * 3), rec,
					   strlen(rec)) == 0);
	}
	CHECK(cluster_spool_append(s, 0, rec, 0) == SC_E_INVAL);
	CHECK(cluster_spool_records(s) == 5);
	struct seen got = { .fail_at = -1 };
	size_t done = 0;
	CHECK(cluster_spool_replay(s, collect, &got, &done) == 0);
	CHECK(done == 5 && got.n == 5);
	for (unsigned i = 0; i < 5 && got.n == 5; i++) {
		snprintf(rec, sizeof(rec), "batch %u", i);
		CHECK_STR(got.text[i], rec);
		CHECK(got.shard[i] == i * 3);
	}
	/* A failing callback stops the replay and says how far it got. */
	struct seen part = { .fail_at = 2 };
	CHECK(cluster_spool_replay(s, collect, &part, &done) == SC_E_NET);
	CHECK(done == 2);

	/* Drop a prefix: the rest stays, in order, and survives a reopen. */
	CHECK(cluster_spool_drop(s, 2) == 0);
	CHECK(cluster_spool_records(s) == 3);
	cluster_spool_close(s);
	s = NULL;
	CHECK(cluster_spool_open(spooldir, 64 * 1024, &s) == 0);
	if (!s)
		return;
	CHECK(cluster_spool_records(s) == 3);
	CHECK(cluster_spool_torn_bytes(s) == 0);
	struct seen rest = { .fail_at = -1 };
	CHECK(cluster_spool_replay(s, collect, &rest, &done) == 0);
	CHECK(rest.n == 3);
	CHECK_STR(rest.text[0], "batch 2");
	CHECK_STR(rest.text[2], "batch 4");

	/* The bound: appends fail with SC_E_LIMIT before the file passes
	 * it, and nothing of the refused record is written. */
	static char chunk[10000];
	memset(chunk, 'z', sizeof(chunk));
	int rc = 0, n = 0;
	while ((rc = cluster_spool_append(s, 1, chunk, sizeof(chunk))) == 0)
		n++;
	CHECK(rc == SC_E_LIMIT);
	CHECK(n == 6);
	CHECK(cluster_spool_bytes(s) <= 64 * 1024);
	CHECK(file_size(path) == (off_t)cluster_spool_bytes(s));
	CHECK(cluster_spool_append(s, 1, "small", 5) == 0);

	/* Drop everything: back to the header. */
	CHECK(cluster_spool_drop(s, 1000) == 0);
	CHECK(cluster_spool_records(s) == 0);
	CHECK(file_size(path) == 8);
	for (int i = 0; i < 3; i++) {
		snprintf(rec, sizeof(rec), "after %d", i);
		CHECK(cluster_spool_append(s, 5, rec, strlen(rec)) == 0);
	}
	cluster_spool_close(s);
	s = NULL;

	/* kill -9 in the middle of an append: a record header promising
	 * 100 bytes and only 10 of them.  Opening cuts it off. */
	off_t whole = file_size(path);
	int fd = open(path, O_WRONLY | O_APPEND);
	unsigned char torn[22] = { 0, 0, 0, 100, 1, 2, 3, 4, 0, 0, 0, 5 };
	CHECK(fd >= 0 && write(fd, torn, sizeof(torn)) == sizeof(torn));
	if (fd >= 0)
		close(fd);
	CHECK(cluster_spool_open(spooldir, 64 * 1024, &s) == 0);
	if (!s)
		return;
	CHECK(cluster_spool_records(s) == 3);
	CHECK(cluster_spool_torn_bytes(s) == sizeof(torn));
	CHECK(file_size(path) == whole);
	CHECK(cluster_spool_append(s, 6, "next", 4) == 0);
	struct seen after = { .fail_at = -1 };
	CHECK(cluster_spool_replay(s, collect, &after, &done) == 0);
	CHECK(after.n == 4);
	CHECK_STR(after.text[0], "after 0");
	CHECK_STR(after.text[3], "next");
	CHECK(after.shard[3] == 6);
	cluster_spool_close(s);
	s = NULL;

	/* A whole-length last record whose bytes fail their check (a torn
	 * page) is cut off too. */
	whole = file_size(path);
	fd = open(path, O_WRONLY);
	CHECK(fd >= 0 && pwrite(fd, "X", 1, whole - 1) == 1);
	if (fd >= 0)
		close(fd);
	CHECK(cluster_spool_open(spooldir, 64 * 1024, &s) == 0);
	if (!s)
		return;
	CHECK(cluster_spool_records(s) == 3);
	CHECK(cluster_spool_torn_bytes(s) == 12 + 4);
	cluster_spool_close(s);
	s = NULL;
	cluster_spool_close(NULL);

	/* Not a spool: refused, and left alone. */
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0 && write(fd, "hello world", 11) == 11);
	if (fd >= 0)
		close(fd);
	CHECK(cluster_spool_open(spooldir, 64 * 1024, &s) == SC_E_CORRUPT);
	CHECK(file_size(path) == 11);
	unlink(path);
	/* A header torn at creation is rewritten. */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, "SCSP", 4) == 4);
	if (fd >= 0)
		close(fd);
	CHECK(cluster_spool_open(spooldir, 64 * 1024, &s) == 0);
	CHECK(file_size(path) == 8);
	cluster_spool_close(s);
	unlink(path);
	CHECK(cluster_spool_open("/nonexistent/dir", 64 * 1024, &s) == SC_E_IO);
}

int main(void)
{
	if (!mkdtemp(spooldir)) {
		perror(spooldir);
		return 1;
	}
	test_shard_stability();
	test_balance();
	test_minimal_movement();
	test_batch();
	test_spool();
	rmdir(spooldir);
	return check_done();
}
