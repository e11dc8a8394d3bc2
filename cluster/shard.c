/* shard.c — which daemon of a cluster owns a host (cluster.h).
 *
 * The shard is a function of the registrable domain so that everything
 * per site (the politeness queue, robots.txt, learned rules) is decided
 * by one daemon.  Jump consistent hash maps the domain's 64-bit hash to a
 * shard with no table, evenly, and moves the fewest keys when the number
 * of shards grows. */
#include <arpa/inet.h>
#include <libpsl.h>
#include <string.h>
/* For an XXH64 state on the stack (no allocation that could fail). */
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "cluster.h"

/* Lamping and Veach, "A Fast, Minimal Memory, Consistent Hash Algorithm"
 * (2014).  The key drives a 64-bit linear congruential generator (the
 * paper's multiplier 2862933555777941757); from bucket b the next bucket
 * at which this key would move is j = floor((b + 1) / r) for a uniform r
 * in (0, 1], taken from the generator's top 31 bits.  The last j below
 * the number of buckets is the answer.  A key moves from n to n + 1
 * buckets only when the jump lands on bucket n, which happens with
 * probability 1 / (n + 1): hence the minimal movement. */
uint32_t cluster_jump_hash(uint64_t key, uint32_t buckets)
{
	int64_t b = -1, j = 0;
	if (buckets == 0)
		buckets = 1;
	while (j < (int64_t)buckets) {
		b = j;
		key = key * 2862933555777941757ULL + 1;
		j = (int64_t)((double)(b + 1) * ((double)(1LL << 31) /
						 (double)((key >> 33) + 1)));
	}
	return (uint32_t)b;
}

static bool is_ip_literal(const char *h, size_t n)
{
	unsigned char a[16];
	if (memchr(h, ':', n))
		return true; /* IPv6 (its brackets are gone) */
	return inet_pton(AF_INET, h, a) == 1;
}

uint32_t cluster_shard_of(const char *host, size_t len, uint32_t shards)
{
	/* A DNS name has at most 253 bytes; a longer "host" is not one and
	 * is hashed as it is (lower-cased), without the PSL. */
	char buf[256];
	if (shards <= 1)
		return 0;
	if (len > 0 && host[len - 1] == '.')
		len--;
	/* [::1] and ::1 are one host. */
	if (len >= 2 && host[0] == '[' && host[len - 1] == ']') {
		host++;
		len -= 2;
	}
	size_t n = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;
	for (size_t i = 0; i < n; i++) {
		char ch = host[i];
		buf[i] = (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
	}
	buf[n] = '\0';
	const char *d = buf;
	size_t dl = n;
	if (len < sizeof(buf) - 1 && !memchr(buf, '\0', n) &&
	    !is_ip_literal(buf, n)) {
		const char *r = psl_registrable_domain(psl_builtin(), buf);
		if (r && *r) {
			d = r;
			dl = strlen(r);
		}
	}
	if (len >= sizeof(buf) - 1) {
		/* Hash every byte of an over-long host, lower-cased in
		 * pieces, so two long hosts differing late still differ. */
		XXH64_state_t st;
		XXH64_reset(&st, 0);
		for (size_t off = 0; off < len; off += sizeof(buf)) {
			size_t k = len - off < sizeof(buf) ? len - off
							   : sizeof(buf);
			for (size_t i = 0; i < k; i++) {
				char ch = host[off + i];
				buf[i] = (ch >= 'A' && ch <= 'Z')
						 ? (char)(ch - 'A' + 'a')
						 : ch;
			}
			XXH64_update(&st, buf, k);
		}
		uint64_t h = XXH64_digest(&st);
		return cluster_jump_hash(h, shards);
	}
	return cluster_jump_hash(XXH64(d, dl, 0), shards);
}
