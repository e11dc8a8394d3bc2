/* bench/hosts.c — what a known host costs the frontier and the scheduler,
 * without a network: for each count of hosts, a fresh frontier is given
 * two URLs a host, every host is leased once and its request "sent", so
 * that each waits its delay with a URL queued (the state of a broad crawl
 * at the politeness ceiling), and the memory that grew is reported by
 * structure, in bytes a host.
 *
 *   bench-hosts [--hosts N,N,...] [--dir DIR]
 *
 * Default counts 1000,10000,100000,1000000.  Columns (bytes a host):
 *   record   the frontier's host record (frontier_mem(): one a host id)
 *   leases   its list of leased entries (the queue state kept between
 *            leases)
 *   heaps    the ready and wait heaps (the wait heap is the per-host
 *            delay: one timer for all hosts, keyed by ready time)
 *   writer   the writer's per-host tables (the hosts a transaction
 *            touched)
 *   slot     the scheduler's slot (crawl_host_mem(): robots.txt state,
 *            back-off, budget), the array as it grows
 *   rreq     the record of the host's robots.txt request and its share of
 *            that hash table's buckets
 *   rules    a host's parsed robots.txt (a 404: allow all), measured
 *   sum      the columns before, added up
 *   heap     what the C heap grew by while the frontier was filled and
 *            leased and the rules parsed (mallinfo2(): also LMDB's and the
 *            seen set's own memory, not the slot and rreq, which are the
 *            engine's sizes, nothing being allocated for them here)
 *   lmdb     the store's host tables on disk (frontier.hosts and
 *            frontier.hostids: page cache, not heap), a host
 *   lease_us CPU a lease (frontier_next()) at that count
 * The fixed cache of host names (1 MB whatever the count) is printed once. */
#include <lmdb.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crawl.h"
#include "frontier.h"
#include "normalize.h"
#include "parse.h"

static double cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static size_t heap_bytes(void)
{
	struct mallinfo2 m = mallinfo2();
	return m.uordblks + m.hblkhd;
}

static void remove_store(const char *dir)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/data.mdb", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/lock.mdb", dir);
	unlink(path);
	rmdir(dir);
}

static size_t db_bytes(MDB_txn *txn, const char *name)
{
	MDB_dbi dbi;
	MDB_stat st;
	if (mdb_dbi_open(txn, name, 0, &dbi) || mdb_stat(txn, dbi, &st))
		return 0;
	return (size_t)st.ms_psize *
	       (st.ms_branch_pages + st.ms_leaf_pages + st.ms_overflow_pages);
}

/* The host names: h0000000.test and so on. */
#define URL_MAX 64
#define BATCH 20000
#define ROBOTS_URL_LEN (sizeof("http://h0000000.test/robots.txt") - 1)

/* Queue two URLs for each of n hosts, in transactions of BATCH. */
static int fill(MDB_env *env, struct frontier *f, uint32_t n)
{
	static const struct norm_opts strict = { .steps = 0xff };
	struct frontier_url *fus = calloc(BATCH, sizeof(*fus));
	struct norm_url *us = calloc(BATCH, sizeof(*us));
	char *texts = malloc((size_t)BATCH * URL_MAX);
	int rc = fus && us && texts ? 0 : 1;
	uint64_t total = 2ull * n, i = 0;
	while (!rc && i < total) {
		MDB_txn *txn;
		if (mdb_txn_begin(env, NULL, 0, &txn)) {
			rc = 1;
			break;
		}
		size_t k = 0;
		for (; k < BATCH && i < total; k++, i++) {
			char raw[URL_MAX], *t = texts + k * URL_MAX;
			int len = snprintf(raw, sizeof(raw),
					   "http://h%07u.test/%s",
					   (unsigned)(i / 2), i % 2 ? "a" : "");
			if (norm_url(&strict, NULL, raw, (size_t)len, t,
				     URL_MAX, &us[k])) {
				rc = 1;
				break;
			}
			fus[k] = (struct frontier_url){
				.url = t,
				.url_len = us[k].len,
				.u = &us[k],
				.found = t,
				.found_len = us[k].len,
				.depth = (uint16_t)(i % 2),
			};
		}
		if (rc || frontier_add_batch(f, txn, fus, k, NULL) < 0 ||
		    mdb_txn_commit(txn)) {
			rc = 1;
			break;
		}
		frontier_published(f);
	}
	free(fus);
	free(us);
	free(texts);
	return rc;
}

static int one(const char *parent, uint32_t n)
{
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/bench-hosts.XXXXXX", parent);
	if (!mkdtemp(dir))
		return 1;
	MDB_env *env;
	if (mdb_env_create(&env) || mdb_env_set_maxdbs(env, 16) ||
	    mdb_env_set_mapsize(env, (size_t)16 << 30) ||
	    mdb_env_open(env, dir, MDB_NOTLS | MDB_NOSYNC, 0640)) {
		fprintf(stderr, "bench-hosts: cannot open %s\n", dir);
		return 1;
	}
	struct frontier_opts o = { .per_host_connections = 2,
				   .per_host_delay_ms = 1000 };
	struct frontier *f;
	MDB_txn *txn;
	if (mdb_txn_begin(env, NULL, 0, &txn) ||
	    frontier_open(env, txn, &o, &f) || mdb_txn_commit(txn)) {
		fprintf(stderr, "bench-hosts: frontier_open failed\n");
		return 1;
	}
	size_t heap0 = heap_bytes();
	if (fill(env, f, n)) {
		fprintf(stderr, "bench-hosts: queueing failed\n");
		return 1;
	}

	/* Lease every host's first URL at time 0 and send it: each then
	 * waits its delay with its second URL queued. */
	static struct frontier_lease l;
	uint64_t wait, leases = 0;
	double c0 = cpu_s();
	while (frontier_next(f, 0, &l, &wait) == 0) {
		frontier_sent(f, l.host_id, 0);
		frontier_release(f, l.host_id);
		leases++;
	}
	double lease_us = leases ? (cpu_s() - c0) * 1e6 / (double)leases : 0;
	struct frontier_stats fs;
	frontier_stats(f, &fs);
	if (leases != n || fs.waiting != n) {
		fprintf(stderr,
			"bench-hosts: %llu leases, %u hosts waiting, for %u "
			"hosts\n",
			(unsigned long long)leases, fs.waiting, n);
		return 1;
	}

	/* A parsed robots.txt a host (a 404 allows all). */
	struct parse_robots **rules = calloc(n, sizeof(*rules));
	if (!rules)
		return 1;
	size_t r0 = heap_bytes();
	for (uint32_t i = 0; i < n; i++)
		if (parse_robots_allow_all(&rules[i]))
			return 1;
	size_t rules_b = heap_bytes() - r0;
	size_t heap = heap_bytes() - heap0;

	struct frontier_mem m;
	frontier_mem(f, &m);
	struct crawl_host_mem cm;
	crawl_host_mem(n + 1, ROBOTS_URL_LEN, &cm);
	size_t lmdb = 0;
	if (mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0) {
		lmdb = db_bytes(txn, "frontier.hosts") +
		       db_bytes(txn, "frontier.hostids");
		mdb_txn_abort(txn);
	}
	double d = n;
	double sum = ((double)m.records + (double)m.leased + (double)m.heaps +
		      (double)m.writer + (double)cm.slots + (double)rules_b) /
			     d +
		     (double)cm.robots_req;
	printf("%9u %7.1f %7.1f %6.1f %7.1f %6.1f %6.1f %6.1f %7.1f %7.1f "
	       "%6.1f %8.3f\n",
	       n, (double)m.records / d, (double)m.leased / d,
	       (double)m.heaps / d, (double)m.writer / d, (double)cm.slots / d,
	       (double)cm.robots_req, (double)rules_b / d, sum,
	       (double)heap / d, (double)lmdb / d, lease_us);
	fflush(stdout);
	static bool said;
	if (!said) {
		said = true;
		printf("# a host record is %zu bytes, a scheduler slot %zu; "
		       "the host name cache %zu bytes whatever the count; "
		       "every host leased once (%u leases listed)\n",
		       m.host_record, cm.slot, m.name_cache, m.leased_lists);
	}
	for (uint32_t i = 0; i < n; i++)
		parse_robots_free(rules[i]);
	free(rules);
	frontier_close(f);
	mdb_env_close(env);
	remove_store(dir);
	return 0;
}

int main(int argc, char **argv)
{
	const char *list = "1000,10000,100000,1000000";
	const char *parent = "/tmp";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--hosts") && i + 1 < argc) {
			list = argv[++i];
		} else if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			parent = argv[++i];
		} else {
			fprintf(stderr, "usage: bench-hosts [--hosts N,N,...] "
					"[--dir DIR]\n");
			return 2;
		}
	}
	printf("bench-hosts: two URLs a host, each host leased once and "
	       "waiting its 1 s delay; bytes a host\n");
	printf("%9s %7s %7s %6s %7s %6s %6s %6s %7s %7s %6s %8s\n", "hosts",
	       "record", "leases", "heaps", "writer", "slot", "rreq", "rules",
	       "sum", "heap", "lmdb", "lease_us");
	for (const char *p = list; *p;) {
		char *end;
		unsigned long n = strtoul(p, &end, 10);
		if (end == p || n == 0 || n > 50000000) {
			fprintf(stderr, "bench-hosts: bad count in %s\n", list);
			return 2;
		}
		if (one(parent, (uint32_t)n))
			return 1;
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}
