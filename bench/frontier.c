/* bench/frontier.c — insert N distinct normalized URLs (plus 30 % repeats)
 * into the LMDB frontier and pop them all, reporting rates, bytes on disk
 * per URL, and peak RSS and RssAnon at checkpoints.
 *
 *   bench-frontier [--count N] [--dir DIR] [--batch N] [--hosts N]
 *                  [--every N] [--inserts-only] [--sync]
 *
 * --every N prints the inserts' rate and CPU a URL over each N distinct
 * URLs (the curve: does an insert cost more as the seen set
 * grows?); --inserts-only stops after the inserts; --sync commits
 * durably, as the crawler does (else MDB_NOSYNC).
 *
 * Then the re-crawl schedule: every URL is scheduled in the due
 * index at a random time within 30 days, and the index is walked in due
 * order as the mover does it, each entry taken out and scheduled again
 * later.
 *
 * The targets: RssAnon does not grow with N, and at least
 * 300,000 inserts/s; RssAnon flat in the number of pages
 * scheduled.  LMDB's mapped pages are page cache (RssFile), not
 * anonymous memory, which is why RssAnon is the number to watch. */
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "frontier.h"
#include "normalize.h"

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Current RssAnon and peak VmHWM in KiB. */
static void mem_kib(long *anon, long *hwm)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	*anon = *hwm = -1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "RssAnon:", 8))
			*anon = atol(line + 8);
		else if (!strncmp(line, "VmHWM:", 6))
			*hwm = atol(line + 6);
	}
	fclose(f);
}

/* A store the bench made itself (no --dir) goes when it ends: at the
 * default 10 M URLs it is 2.5 GB. */
static void remove_store(const char *dir)
{
	char path[512];
	static const char *const files[] = { "data.mdb", "lock.mdb" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

/* The process's CPU seconds (user + system). */
static double cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	/* splitmix64 */
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The i-th distinct URL: realistic length (about 70 bytes), many hosts. */
static int url_of(uint64_t i, unsigned hosts, char *buf, size_t cap)
{
	uint64_t h = (i * 0x9e3779b97f4a7c15ull) >> 40;
	return snprintf(
		buf, cap,
		"http://www.site%u.example.com/section/%llu/article-%llu.html?id=%llu",
		(unsigned)(h % hosts), (unsigned long long)(i % 97),
		(unsigned long long)i, (unsigned long long)(i * 7 % 1000));
}

static void report(const char *what, uint64_t n)
{
	long anon, hwm;
	mem_kib(&anon, &hwm);
	printf("  %-28s %11llu   RssAnon %7ld KiB   peak RSS %8ld KiB\n", what,
	       (unsigned long long)n, anon, hwm);
}

int main(int argc, char **argv)
{
	uint64_t count = 1000000, batch = 20000, every = 0;
	unsigned hosts = 1000;
	int single = 0, inserts_only = 0, sync = 0;
	const char *dir = NULL;
	for (int i = 1; i < argc; i += 2) {
		if (!strcmp(argv[i], "--inserts-only")) {
			inserts_only = 1;
			i--;
			continue;
		}
		if (!strcmp(argv[i], "--sync")) {
			sync = 1;
			i--;
			continue;
		}
		if (i + 1 >= argc)
			goto usage;
		if (!strcmp(argv[i], "--every"))
			every = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--count"))
			count = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--batch"))
			batch = strtoull(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--hosts"))
			hosts = (unsigned)strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--dir"))
			dir = argv[i + 1];
		else if (!strcmp(argv[i], "--mode"))
			single = !strcmp(argv[i + 1], "single");
		else {
usage:
			fprintf(stderr,
				"usage: bench-frontier [--count N] [--batch N] [--hosts N] [--dir DIR] [--every N] [--inserts-only] [--sync]\n");
			return 2;
		}
	}
	char tmpl[] = "/tmp/sc-bench-frontier-XXXXXX";
	const char *made = NULL;
	if (!dir && !(dir = made = mkdtemp(tmpl))) {
		perror("mkdtemp");
		return 1;
	}

	MDB_env *env;
	if (mdb_env_create(&env) || mdb_env_set_maxdbs(env, 16) ||
	    mdb_env_set_mapsize(env, (size_t)64 << 30) ||
	    mdb_env_open(env, dir,
			 MDB_NOTLS | (sync ? 0 : MDB_NOSYNC) |
				 (getenv("SC_WRITEMAP") ? MDB_WRITEMAP : 0),
			 0640)) {
		fprintf(stderr, "bench-frontier: cannot open %s\n", dir);
		return 1;
	}
	struct frontier_opts o = { .per_host_connections = 1u << 16,
				   .per_host_delay_ms = 0 };
	struct frontier *f;
	MDB_txn *txn;
	if (mdb_txn_begin(env, NULL, 0, &txn) ||
	    frontier_open(env, txn, &o, &f) || mdb_txn_commit(txn)) {
		fprintf(stderr, "bench-frontier: frontier_open failed\n");
		return 1;
	}

	printf("bench-frontier: %llu distinct URLs + 30 %% repeats, %u hosts, "
	       "%llu per transaction, in %s\n",
	       (unsigned long long)count, hosts, (unsigned long long)batch,
	       dir);
	report("start", 0);

	static const struct norm_opts strict = { .steps = 0xff };
	char raw[256], out[NORM_URL_MAX + 1];
	struct norm_url u;
	/* Batch mode: the URLs of one transaction go to frontier_add_batch()
	 * together, as the crawler's writer hands over the links of the
	 * pages it commits. */
	struct frontier_url *fus = calloc(batch, sizeof(*fus));
	struct norm_url *us = calloc(batch, sizeof(*us));
	char *texts = malloc(batch * 128);
	if (!fus || !us || !texts)
		return 1;
	uint64_t distinct = 0, offered = 0, added = 0, in_txn = 0;
	uint64_t next_report = 10000, next_every = every;
	double t_norm = 0, t0 = now_s();
	double t_every = t0, cpu_every = cpu_s();
	uint64_t off_every = 0;
	if (mdb_txn_begin(env, NULL, 0, &txn))
		return 1;
	while (distinct < count) {
		/* 30 % of the offers repeat an earlier URL. */
		uint64_t i = distinct;
		if (distinct > 0 && next_rand() % 10 < 3)
			i = next_rand() % distinct;
		else
			distinct++;
		int n = url_of(i, hosts, raw, sizeof(raw));
		double tn = now_s();
		if (norm_url(&strict, NULL, raw, (size_t)n, out, sizeof(out),
			     &u))
			return 1;
		t_norm += now_s() - tn;
		int rc;
		if (single) {
			struct frontier_url fu = {
				.url = out,
				.url_len = u.len,
				.u = &u,
				.found = out,
				.found_len = u.len,
				.depth = 1,
			};
			rc = frontier_add(f, txn, &fu);
		} else {
			char *t = texts + in_txn * 128;
			if (u.len >= 128)
				return 1;
			memcpy(t, out, (size_t)u.len + 1);
			us[in_txn] = u;
			fus[in_txn] = (struct frontier_url){
				.url = t,
				.url_len = u.len,
				.u = &us[in_txn],
				.found = t,
				.found_len = u.len,
				.depth = 1,
			};
			rc = 0;
			if (in_txn + 1 == batch || distinct == count)
				rc = frontier_add_batch(f, txn, fus, in_txn + 1,
							NULL);
		}
		if (rc < 0) {
			fprintf(stderr, "frontier_add: %s\n", sc_strerror(rc));
			return 1;
		}
		added += (uint64_t)rc;
		offered++;
		if (++in_txn == batch) {
			if (mdb_txn_commit(txn))
				return 1;
			frontier_published(f);
			if (mdb_txn_begin(env, NULL, 0, &txn))
				return 1;
			in_txn = 0;
		}
		if (distinct == next_report && i == distinct - 1) {
			report("inserted", distinct);
			next_report *= 100;
		}
		if (every && distinct == next_every && i == distinct - 1) {
			double t = now_s(), c = cpu_s();
			long anon, hwm;
			mem_kib(&anon, &hwm);
			printf("  every %11llu  %9.0f offers/s  %6.2f us CPU an "
			       "offer  RssAnon %7ld KiB\n",
			       (unsigned long long)distinct,
			       (double)(offered - off_every) / (t - t_every),
			       (c - cpu_every) * 1e6 /
				       (double)(offered - off_every),
			       anon);
			fflush(stdout);
			t_every = t;
			cpu_every = c;
			off_every = offered;
			next_every += every;
		}
	}
	if (mdb_txn_commit(txn))
		return 1;
	frontier_published(f);
	double t_ins = now_s() - t0;
	report("inserted (all)", distinct);
	if (inserts_only) {
		printf("  inserts: %.0f offers/s (%.2f s)\n",
		       (double)offered / t_ins, t_ins);
		frontier_close(f);
		mdb_env_close(env);
		if (made)
			remove_store(made);
		return 0;
	}

	struct stat st;
	char path[512];
	snprintf(path, sizeof(path), "%s/data.mdb", dir);
	long long disk = stat(path, &st) == 0 ? (long long)st.st_blocks * 512
					      : -1;

	/* Pop everything: lease, then done in batched transactions. */
	static struct frontier_lease l;
	uint64_t popped = 0, wait;
	t0 = now_s();
	if (mdb_txn_begin(env, NULL, 0, &txn))
		return 1;
	in_txn = 0;
	next_report = 10000;
	for (;;) {
		int rc = frontier_next(f, 0, &l, &wait);
		if (rc == SC_E_AGAIN) {
			if (in_txn == 0)
				break;
		} else if (rc) {
			fprintf(stderr, "frontier_next: %s\n", sc_strerror(rc));
			return 1;
		} else {
			if (frontier_done(f, txn, &l))
				return 1;
			frontier_release(f, l.host_id);
			popped++;
			in_txn++;
			if (popped == next_report) {
				report("popped", popped);
				next_report *= 100;
			}
			if (in_txn < batch)
				continue;
		}
		if (mdb_txn_commit(txn))
			return 1;
		frontier_published(f);
		if (mdb_txn_begin(env, NULL, 0, &txn))
			return 1;
		in_txn = 0;
	}
	mdb_txn_abort(txn);
	double t_pop = now_s() - t0;
	report("popped (all)", popped);

	printf("\n  offers %llu (distinct %llu, queued %llu)\n",
	       (unsigned long long)offered, (unsigned long long)distinct,
	       (unsigned long long)added);
	printf("  inserts: %.0f offers/s (%.2f s; normalization %.2f s of it)\n",
	       (double)offered / t_ins, t_ins, t_norm);
	printf("  pops:    %.0f URLs/s (%.2f s, lease + done + commit)\n",
	       (double)popped / t_pop, t_pop);
	printf("  disk:    %lld bytes, %.1f bytes per distinct URL (seen set, "
	       "queue pages kept for reuse)\n",
	       disk, (double)disk / (double)distinct);

	/* The schedule: put every URL's entry, then walk the index in due
	 * order a batch at a time, rescheduling each entry 30 days on.  After
	 * each commit the scheduler's read transaction moves on, as the
	 * crawler's loop does with frontier_next() after each commit: a
	 * reader left on an old snapshot keeps LMDB from reusing the pages
	 * freed since, and the file grows with every transaction. */
	t0 = now_s();
	if (mdb_txn_begin(env, NULL, 0, &txn))
		return 1;
	next_report = 10000;
	for (uint64_t i = 0; i < distinct; i++) {
		int n = url_of(i, hosts, raw, sizeof(raw));
		if (norm_url(&strict, NULL, raw, (size_t)n, out, sizeof(out),
			     &u))
			return 1;
		struct frontier_due d = {
			.due = (int64_t)(next_rand() % (30ull * 86400000)),
		};
		sc_url_key(out, u.len, d.key);
		if (frontier_due_put(f, txn, &d))
			return 1;
		if ((i + 1) % batch == 0) {
			if (mdb_txn_commit(txn))
				return 1;
			frontier_published(f);
			if (frontier_next(f, 0, &l, &wait) != SC_E_AGAIN ||
			    mdb_txn_begin(env, NULL, 0, &txn))
				return 1;
		}
		if (i + 1 == next_report) {
			report("scheduled", i + 1);
			next_report *= 100;
		}
	}
	if (mdb_txn_commit(txn))
		return 1;
	double t_sched = now_s() - t0;
	report("scheduled (all)", distinct);
	static struct frontier_due dues[256];
	uint64_t walked = 0;
	const int64_t later = 31ll * 86400000;
	t0 = now_s();
	next_report = 10000;
	for (;;) {
		size_t n = 0;
		if (mdb_txn_begin(env, NULL, 0, &txn))
			return 1;
		int more = frontier_due_next(f, txn, NULL, later - 1, dues, 256,
					     &n);
		for (size_t i = 0; i < n; i++) {
			struct frontier_due d = dues[i];
			if (frontier_due_del(f, txn, &d))
				return 1;
			d.due += later;
			if (frontier_due_put(f, txn, &d))
				return 1;
		}
		if (more < 0 || mdb_txn_commit(txn))
			return 1;
		frontier_published(f);
		if (frontier_next(f, 0, &l, &wait) != SC_E_AGAIN)
			return 1;
		walked += n;
		if (walked >= next_report) {
			report("walked and rescheduled", walked);
			next_report *= 100;
		}
		if (!more)
			break;
	}
	double t_walk = now_s() - t0;
	report("walked (all)", walked);
	uint64_t scheduled = 0;
	if (mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) ||
	    frontier_due_count(f, txn, &scheduled))
		return 1;
	mdb_txn_abort(txn);
	printf("  schedule: %.0f puts/s, walk %.0f entries/s (take out and "
	       "put back), %llu entries at the end\n",
	       (double)distinct / t_sched, (double)walked / t_walk,
	       (unsigned long long)scheduled);

	int ok = popped == added && added == distinct && walked == distinct &&
		 scheduled == distinct;
	printf("  %s\n", ok ? "every queued URL popped exactly once, every "
			      "scheduled one walked once"
			    : "MISMATCH between queued and popped, or "
			      "scheduled and walked");
	free(fus);
	free(us);
	free(texts);
	frontier_close(f);
	mdb_env_close(env);
	if (made)
		remove_store(made);
	return ok ? 0 : 1;
}
