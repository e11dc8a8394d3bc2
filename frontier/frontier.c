/* frontier.c — the durable breadth-first frontier (see frontier.h). */
#include "sc.h"
#include "frontier.h"
#include "frontier-int.h"
#include "store.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <xxhash.h>

/* ---------------------------------------------------------------------
 * Encodings
 */

#define ENTRY_VERSION 5
/* "frontier.meta"'s version byte, which also names the seen set's key
 * format (below): 1, hashed keys; 2, clustered keys; 3, hashed keys with
 * a log of the recent ones, merged in bulk (seen-log.c); 4, the same with
 * a middle sorted set between the log and the big one. */
#define META_V1_HASHED 1
#define META_V2_CLUSTERED 2
#define META_V3_LOGGED 3
#define META_V4_MIDDLE 4

/* Queue entry: version, depth, category, url length, found length (0:
 * same as url), redirects, off-topic hops (from version 2), the fetch's
 * scheme (1: https) and port (from version 3), url bytes, found bytes.
 * Integers big-endian.
 *
 * The scheme and port are kept because the key cannot say them under
 * fold_https ("http://a.com/" is the key of https://a.com/ and of
 * https://a.com:80/ alike), and the URL fetched must be the one queued
 * whatever the steps of the run that leases it.  Version 1 entries
 * (without the off-topic byte: 0 hops) and version 2 entries are still
 * read; their scheme and port are taken from the key, or from the URL as
 * found when the key says http and that one https (see lease_from()). */
#define ENTRY_HEAD_V1 10
#define ENTRY_HEAD_V2 11
#define ENTRY_HEAD_V3 14
/* Version 4 adds a flags byte (0x01: a revisit; 0x02: a sitemap; bits
 * 4..6: a sitemap's changefreq for the URL) and the lengths of the
 * validators, ETag (2 bytes) and Last-Modified (1), whose bytes
 * follow the found URL's. */
#define ENTRY_HEAD_V4 18
/* Version 5 adds the link prediction (1 byte: 0 none, else 1 + 254 p),
 * its class (1 byte, the caller's) and the number of its words (1 byte,
 * at most FRONTIER_WORDS_MAX), whose 4 bytes each follow the
 * validators. */
#define ENTRY_HEAD 21
#define ENTRY_REVISIT 0x01
#define ENTRY_SITEMAP 0x02
#define ENTRY_CHANGEFREQ_SHIFT 4
#define ENTRY_FLAGS (ENTRY_REVISIT | ENTRY_SITEMAP | 0x70)

/* "frontier.fetched": host id (4 bytes) -> the records of fetched URLs
 * committed for it (8 bytes), both big-endian: the per-host page budget's
 * count, which survives restarts and a kill -9 because it commits with
 * the records it counts. */
#define FETCHED_LEN 8

/* Seen value: the category the URL was first queued under (2 bytes,
 * big-endian); empty in stores written before categories were kept. */
#define SEEN_LEN 2

/* Seen key.  Two formats, one per store, named by the version byte of
 * "frontier.meta":
 *
 * 1 (hashed): sc_url_key(), 16 bytes.  Every new URL is a random key, so
 *   once the seen set has many more leaf pages than a writer's batch has
 *   new URLs (about a million URLs), each new URL dirties a 4 KB page of
 *   its own, which the commit copies, writes and syncs: the frontier's
 *   cost per page grew with its size (docs/bench.md).
 * 2 (clustered): 24 bytes, so that a page's new links, mostly of its own
 *   host and often of its own directory, land on the same few pages:
 *     0   4  the authority's hash (XXH3-64 of "scheme://authority", its
 *            top 4 bytes): one subtree per host
 *     4   8  the first 8 bytes after the authority ("/docs/gu"), zero
 *            padded: URLs of one directory, and numbered siblings, next
 *            to each other
 *     12 12  the URL's XXH3-128, its top 12 bytes
 *   Two URLs share a key only if they share the first two parts and 96
 *   bits of hash: among 10^8 URLs of one host and prefix, a collision is
 *   about 10^-13 likely.
 *
 * 3 (logged): format 1's keys in "frontier.seen", and the recent ones
 *   in a log, appended, found through a table in memory and merged into
 *   "frontier.seen" in sorted runs of a million or more (seen-log.c).
 *   Format 2 still wrote a page for nearly every random new key once the
 *   set passed a few million (a page's links to far parts of its host);
 *   here a merge writes a page for every dozen or so new keys at 10 M
 *   URLs, and since the keys go in sorted runs their order need not
 *   follow the host: hashed keys spread the runs evenly.
 *
 * 4 (middle): format 3 with a middle sorted set, "frontier.seen.mid",
 *   between the log and "frontier.seen": once the big set holds some 31 M
 *   keys (MIDDLE_FROM generations; before, as in format 3, generations
 *   go straight into it), a generation of the log is merged into the
 *   middle set, and when that has grown to about sqrt(2 x the big
 *   set's keys x a generation's), the next generation goes into the big
 *   set and takes the middle set's keys with it, in one walk in key order
 *   (seen-log.c).  A merge into the big set then writes a page for many
 *   more keys (at 100 M URLs about 3 times fewer pages a key than format
 *   3).  A store of format 3 is one of format 4 with the middle set empty:
 *   it is opened as such, and meta says 4 from that open on.
 *
 * New stores are written in format 4.  A store written before (meta
 * version 1 or 2, or no meta and a seen set that is not empty) keeps its
 * format for its life: its keys cannot be converted, since the set holds
 * hashes, not URLs.  A version this code does not know is refused
 * (SC_E_FORMAT) rather than misread.  Probes compare SEEN_KEY_MAX bytes,
 * 16-byte keys zero-padded, which orders them as LMDB does. */
#define SEEN_HOST_LEN 4
#define SEEN_PATH_LEN 8
#define SEEN_HASH_LEN 12
#define SEEN_KEY_V2 (SEEN_HOST_LEN + SEEN_PATH_LEN + SEEN_HASH_LEN)
#define SEEN_KEY_MAX SEEN_KEY_V2

static void make_qkey(unsigned char *k, uint32_t host, uint16_t rank,
		      uint64_t seq)
{
	put_be32(k, host);
	put_be16(k + 4, rank);
	put_be64(k + 6, seq);
}

/* The order of a URL within its host and of the hosts' heads: its
 * priority class in the top two bits, then its depth.  Keys written
 * before priorities existed have class 0, the first, as they were. */
static uint16_t qrank(const struct frontier_url *fu)
{
	unsigned cls = fu->priority > 3 ? 3 : fu->priority;
	unsigned d = fu->depth > 0x3fff ? 0x3fff : fu->depth;
	return (uint16_t)(cls << 14 | d);
}

/* The counters.  Only seq_limit is stored (in "meta"): sequence numbers
 * are handed out in blocks, and the block's end is written once per block,
 * in the transaction that opens it.  After a crash numbering resumes at
 * the stored end, leaving a gap, which keeps every new key above every
 * old one.  The counts come from mdb_stat() at open and are kept in
 * memory after that. */
struct counters {
	uint64_t next_seq, seq_limit;
	uint32_t next_host; /* ids start at 1 */
	uint64_t seen, queued;
};

#define SEQ_BLOCK 65536
#define META_LEN (1 + 8)

/* frontier_add_batch(): a URL's key and its place in the batch. */
struct probe {
	unsigned char key[SEEN_KEY_MAX];
	uint32_t idx;
	/* fu[idx]'s, copied in the batch's order: the probes are walked
	 * in key order, and a batch's entries (up to 32,768 of 128 bytes)
	 * read in that order missed the cache at each. */
	uint16_t category;
};

/* A writer-side cache of host name -> id, so that most adds skip the
 * lookup in "hosts".  Direct-mapped; a miss costs one LMDB lookup. */
#define HOST_CACHE 4096

struct host_cache_slot {
	uint32_t id; /* 0: empty */
	uint16_t len;
	char name[FRONTIER_HOST_MAX];
};

/* ---------------------------------------------------------------------
 * In-memory state
 */

enum host_state {
	H_IDLE,  /* nothing to offer: no unleased entry, or at its limit */
	H_WAIT,  /* in the wait heap, keyed by ready_ms */
	H_READY, /* in the ready heap, keyed by its head (depth, seq) */
};

/* Ordered by size, so that a host costs 56 bytes, not 80 (bench/hosts.c:
 * one a host id, for as many hosts as the store knows). */
struct host {
	uint64_t head_seq;
	uint64_t ready_ms; /* no fetch may start before */
	uint64_t fetched;  /* committed records of fetched URLs */
	/* Sequence numbers leased and not yet committed as done: the
	 * entries frontier_next() skips (LEASED_HI marks one of a class
	 * under opts.defer_class).  A handful per host. */
	uint64_t *leased;
	uint32_t n_leased, cap_leased;
	uint32_t heap_pos; /* index in the heap of its state */
	uint32_t delay_ms; /* its own delay, 0: the default */
	uint16_t head_depth;
	uint16_t inflight; /* leased, fetch not released */
	uint8_t state;
	bool has_head; /* an unleased committed entry exists: head_* */
	/* frontier_drain(): its URLs are recorded, not fetched, so a lease
	 * does not start its delay. */
	bool drain;
	/* Counted in frontier.wait_hi: in the wait heap with a head of a
	 * class under opts.defer_class. */
	bool wait_hi;
};

_Static_assert(sizeof(struct host) <= 56, "a host record is 56 bytes");

#define LEASED_HI (1ull << 63)
#define LEASED_LO (1ull << 62)
#define LEASED_SEQ (~(LEASED_HI | LEASED_LO))

/* The leases of a deferred class in flight while better ones are under
 * way: the crawl keeps learning from a few guesses at a time. */
#define DEFER_EXPLORE 2

/* A binary min-heap of host ids; the comparison depends on the heap. */
struct heap {
	uint32_t *v;
	uint32_t n, cap;
	bool by_time; /* wait heap: ready_ms; ready heap: head */
};

/* What the writer's open transaction did to a host, published at commit. */
struct dirty {
	uint32_t host;
	uint16_t min_depth; /* the least (depth, seq) it added */
	uint64_t min_seq;
	bool added;
	uint32_t n_done;
	uint64_t *done; /* seqs whose deletion the transaction holds */
	uint32_t cap_done;
	bool has_fetched; /* fetched: the host's count after the txn */
	uint64_t fetched;
};

struct frontier {
	MDB_env *env;
	MDB_dbi seen, queue, hosts, hostids, meta, fetched, due;
	struct frontier_opts opts;
	uint8_t meta_version;  /* META_V*: the seen set's key format */
	size_t seen_klen;      /* its key length */
	struct seen_log *slog; /* format 4: the recent keys; else NULL */
	/* Format 4: searches of the sorted sets for a key the log lacks
	 * (the writer counts, frontier_stats() reads). */
	_Atomic uint64_t searches;

	/* Writer side, writer thread only. */
	struct counters w, w_committed;
	struct dirty *dirty;
	uint32_t n_dirty, cap_dirty;
	uint32_t *dirty_of;      /* host id -> index + 1 in dirty[], or 0 */
	struct probe *probe;     /* frontier_add_batch()'s scratch */
	struct probe *probe_tmp; /* and probe_sort()'s */
	int8_t *probe_added;
	size_t cap_probe;
	uint32_t cap_dirty_of;
	struct host_cache_slot *host_cache;

	/* Shared under lock. */
	pthread_mutex_t lock;
	struct host *host; /* indexed by id; [0] unused */
	uint32_t n_host;   /* ids < n_host exist */
	struct heap ready, wait;
	struct counters published;
	uint32_t leased_total;
	/* opts.defer_class: leases of a class under it and of the others
	 * not yet done, and hosts waiting (politeness) with a head of a
	 * class under it. */
	uint32_t hi_leased, lo_leased, wait_hi;
	bool learning; /* frontier_set_learning() */
	/* The scheduler's read transaction, renewed when a publication
	 * happened since it began (gen != rtxn_gen). */
	MDB_txn *rtxn;
	uint64_t gen, rtxn_gen;
};

static const char meta_key[] = "meta";

static bool head_less(const struct host *a, const struct host *b)
{
	if (a->head_depth != b->head_depth)
		return a->head_depth < b->head_depth;
	return a->head_seq < b->head_seq;
}

static bool heap_less(const struct frontier *f, const struct heap *h,
		      uint32_t a, uint32_t b)
{
	const struct host *x = &f->host[a], *y = &f->host[b];
	return h->by_time ? x->ready_ms < y->ready_ms : head_less(x, y);
}

static void heap_swap(struct frontier *f, struct heap *h, uint32_t i,
		      uint32_t j)
{
	uint32_t t = h->v[i];
	h->v[i] = h->v[j];
	h->v[j] = t;
	f->host[h->v[i]].heap_pos = i;
	f->host[h->v[j]].heap_pos = j;
}

static void heap_up(struct frontier *f, struct heap *h, uint32_t i)
{
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!heap_less(f, h, h->v[i], h->v[p]))
			break;
		heap_swap(f, h, i, p);
		i = p;
	}
}

static void heap_down(struct frontier *f, struct heap *h, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && heap_less(f, h, h->v[l], h->v[m]))
			m = l;
		if (r < h->n && heap_less(f, h, h->v[r], h->v[m]))
			m = r;
		if (m == i)
			return;
		heap_swap(f, h, i, m);
		i = m;
	}
}

static int heap_push(struct frontier *f, struct heap *h, uint32_t id)
{
	if (h->n == h->cap) {
		uint32_t cap = h->cap ? 2 * h->cap : 64;
		uint32_t *v = realloc(h->v, cap * sizeof(*v));
		if (!v)
			return SC_E_NOMEM;
		h->v = v;
		h->cap = cap;
	}
	h->v[h->n] = id;
	f->host[id].heap_pos = h->n;
	heap_up(f, h, h->n++);
	return 0;
}

static void heap_remove(struct frontier *f, struct heap *h, uint32_t id)
{
	uint32_t i = f->host[id].heap_pos;
	h->n--;
	if (i != h->n) {
		heap_swap(f, h, i, h->n);
		heap_up(f, h, i);
		heap_down(f, h, f->host[h->v[i]].heap_pos);
	}
}

/* Is a rank (queue key) of a class the frontier defers others for? */
static bool rank_hi(const struct frontier *f, uint16_t rank)
{
	return f->opts.defer_class && (rank >> 14) < f->opts.defer_class;
}

/* Drop the leased entry k of host h (with the lock). */
static void leased_drop(struct frontier *f, struct host *h, uint32_t k)
{
	if (h->leased[k] & LEASED_HI)
		f->hi_leased--;
	if (h->leased[k] & LEASED_LO)
		f->lo_leased--;
	h->leased[k] = h->leased[--h->n_leased];
	f->leased_total--;
}

/* Keep frontier.wait_hi right after host h's state or head changed. */
static void sync_wait_hi(struct frontier *f, struct host *h)
{
	bool hi = h->state == H_WAIT && h->has_head &&
		  rank_hi(f, h->head_depth);
	if (hi != h->wait_hi) {
		f->wait_hi += hi ? 1 : (uint32_t)-1;
		h->wait_hi = hi;
	}
}

/* Put a host where its state says it belongs.  Called with the lock. */
static int host_place(struct frontier *f, uint32_t id)
{
	struct host *h = &f->host[id];
	enum host_state want = H_IDLE;
	if (h->has_head && h->inflight < f->opts.per_host_connections)
		want = H_WAIT; /* the next frontier_next() moves it if due */

	if (h->state == want) {
		if (want == H_WAIT) {
			heap_up(f, &f->wait, h->heap_pos);
			heap_down(f, &f->wait, h->heap_pos);
		}
		sync_wait_hi(f, h);
		return 0;
	}
	if (h->state == H_WAIT)
		heap_remove(f, &f->wait, id);
	else if (h->state == H_READY)
		heap_remove(f, &f->ready, id);
	h->state = (uint8_t)want;
	int rc = want == H_WAIT ? heap_push(f, &f->wait, id) : 0;
	sync_wait_hi(f, h);
	return rc;
}

static int grow_hosts(struct frontier *f, uint32_t n)
{
	if (n <= f->n_host)
		return 0;
	struct host *v = realloc(f->host, (size_t)n * sizeof(*v));
	if (!v)
		return SC_E_NOMEM;
	memset(v + f->n_host, 0, (size_t)(n - f->n_host) * sizeof(*v));
	f->host = v;
	f->n_host = n;
	return 0;
}

static bool is_leased(const struct host *h, uint64_t seq)
{
	for (uint32_t i = 0; i < h->n_leased; i++)
		if ((h->leased[i] & LEASED_SEQ) == seq)
			return true;
	return false;
}

/* Find a host's first queue entry that is not leased, as rtxn sees the
 * queue; fill its head.  With the lock held. */
static int host_find_head(struct frontier *f, MDB_cursor *c, uint32_t id)
{
	struct host *h = &f->host[id];
	unsigned char k[FRONTIER_QKEY_LEN];
	MDB_val key = { sizeof(k), k }, val;
	make_qkey(k, id, 0, 0);

	int rc = mdb_cursor_get(c, &key, &val, MDB_SET_RANGE);
	h->has_head = false;
	while (rc == 0) {
		const unsigned char *q = key.mv_data;
		if (key.mv_size != FRONTIER_QKEY_LEN || get_be32(q) != id)
			break;
		uint64_t seq = get_be64(q + 6);
		if (!is_leased(h, seq)) {
			h->has_head = true;
			h->head_depth = get_be16(q + 4);
			h->head_seq = seq;
			return 0;
		}
		rc = mdb_cursor_get(c, &key, &val, MDB_NEXT);
	}
	return rc == 0 || rc == MDB_NOTFOUND ? 0 : SC_E_DB;
}

/* ---------------------------------------------------------------------
 * Open and close
 */

/* Every host's count of fetched records, into its struct. */
static int load_fetched(struct frontier *f, MDB_txn *txn)
{
	MDB_cursor *c;
	if (mdb_cursor_open(txn, f->fetched, &c))
		return SC_E_DB;
	MDB_val key, val;
	int rc = mdb_cursor_get(c, &key, &val, MDB_FIRST);
	for (; rc == 0; rc = mdb_cursor_get(c, &key, &val, MDB_NEXT)) {
		if (key.mv_size != 4 || val.mv_size != FETCHED_LEN) {
			mdb_cursor_close(c);
			return SC_E_CORRUPT;
		}
		uint32_t id = get_be32(key.mv_data);
		if (id > 0 && id < f->n_host)
			f->host[id].fetched = get_be64(val.mv_data);
	}
	mdb_cursor_close(c);
	return rc == MDB_NOTFOUND ? 0 : SC_E_DB;
}

static int put_meta(struct frontier *f, MDB_txn *txn);

int frontier_open(MDB_env *env, MDB_txn *txn, const struct frontier_opts *opts,
		  struct frontier **ret)
{
	struct frontier *f = calloc(1, sizeof(*f));
	if (!f)
		return SC_E_NOMEM;
	f->env = env;
	f->gen = 1;
	f->opts = *opts;
	if (f->opts.per_host_connections == 0)
		f->opts.per_host_connections = 1;
	f->wait.by_time = true;
	pthread_mutex_init(&f->lock, NULL);

	int rc = SC_E_DB;
	if (mdb_dbi_open(txn, "frontier.seen", MDB_CREATE, &f->seen) ||
	    mdb_dbi_open(txn, "frontier.queue", MDB_CREATE, &f->queue) ||
	    mdb_dbi_open(txn, "frontier.hosts", MDB_CREATE, &f->hosts) ||
	    mdb_dbi_open(txn, "frontier.hostids", MDB_CREATE, &f->hostids) ||
	    mdb_dbi_open(txn, "frontier.meta", MDB_CREATE, &f->meta) ||
	    mdb_dbi_open(txn, "frontier.fetched", MDB_CREATE, &f->fetched) ||
	    mdb_dbi_open(txn, "frontier.due", MDB_CREATE, &f->due))
		goto fail;

	MDB_val key = { sizeof(meta_key) - 1, (void *)meta_key }, val;
	int mrc = mdb_get(txn, f->meta, &key, &val);
	f->w = (struct counters){ .next_seq = 1, .seq_limit = 1 };
	if (mrc == 0) {
		const unsigned char *m = val.mv_data;
		rc = SC_E_CORRUPT;
		if (val.mv_size != META_LEN)
			goto fail;
		rc = SC_E_FORMAT;
		if (m[0] != META_V1_HASHED && m[0] != META_V2_CLUSTERED &&
		    m[0] != META_V3_LOGGED && m[0] != META_V4_MIDDLE)
			goto fail;
		f->meta_version = m[0];
		f->w.next_seq = f->w.seq_limit = get_be64(m + 1);
	} else if (mrc != MDB_NOTFOUND) {
		goto fail;
	}
	MDB_stat st;
	rc = SC_E_DB;
	if (mdb_stat(txn, f->seen, &st))
		goto fail;
	f->w.seen = st.ms_entries;
	if (mdb_stat(txn, f->queue, &st))
		goto fail;
	f->w.queued = st.ms_entries;
	if (mrc == MDB_NOTFOUND) {
		/* Without meta: a new store, written in format 4 from here
		 * (meta says so at once, before any key is written), or one
		 * whose seen set was written before meta existed. */
		bool fresh = f->w.seen == 0 && f->w.queued == 0;
		f->meta_version = fresh ? META_V4_MIDDLE : META_V1_HASHED;
		if (fresh && (rc = put_meta(f, txn)))
			goto fail;
	} else if (f->meta_version == META_V3_LOGGED) {
		/* Format 3 is format 4 without a middle set: from here its
		 * merges may fill one, which a build of format 3 would not
		 * read, so meta says 4 at once. */
		f->meta_version = META_V4_MIDDLE;
		if ((rc = put_meta(f, txn)))
			goto fail;
	}
	f->seen_klen = f->meta_version == META_V2_CLUSTERED ? SEEN_KEY_V2
							    : SC_KEY_LEN;
	if (f->meta_version == META_V4_MIDDLE) {
		uint64_t live;
		if ((rc = seen_log_open(txn, f->seen, opts->seen_recent,
					&f->lock, &f->slog, &live)))
			goto fail;
		f->w.seen += live;
		rc = SC_E_DB;
	}
	if (mdb_stat(txn, f->hostids, &st))
		goto fail;
	f->w.next_host = (uint32_t)st.ms_entries + 1;
	rc = SC_E_NOMEM;
	if (!(f->host_cache = calloc(HOST_CACHE, sizeof(*f->host_cache))))
		goto fail;
	f->w_committed = f->w;
	f->published = f->w;
	if ((rc = grow_hosts(f, f->w.next_host)))
		goto fail;

	/* Every known host: find its head; those with work wait. */
	MDB_cursor *c;
	rc = SC_E_DB;
	if (mdb_cursor_open(txn, f->queue, &c))
		goto fail;
	for (uint32_t id = 1; id < f->n_host; id++) {
		if ((rc = host_find_head(f, c, id)) ||
		    (rc = host_place(f, id))) {
			mdb_cursor_close(c);
			goto fail;
		}
	}
	mdb_cursor_close(c);
	if ((rc = load_fetched(f, txn)))
		goto fail;
	*ret = f;
	return 0;
fail:
	frontier_close(f);
	return rc;
}

void frontier_close(struct frontier *f)
{
	if (!f)
		return;
	if (f->rtxn)
		mdb_txn_abort(f->rtxn);
	for (uint32_t i = 0; i < f->n_host; i++)
		free(f->host[i].leased);
	for (uint32_t i = 0; i < f->cap_dirty; i++)
		free(f->dirty[i].done);
	free(f->host);
	free(f->dirty);
	free(f->dirty_of);
	free(f->probe);
	free(f->probe_tmp);
	free(f->probe_added);
	free(f->host_cache);
	seen_log_close(f->slog);
	free(f->ready.v);
	free(f->wait.v);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

/* ---------------------------------------------------------------------
 * Writer side
 */

static struct dirty *dirty_for(struct frontier *f, uint32_t host)
{
	if (host >= f->cap_dirty_of) {
		uint32_t cap = f->cap_dirty_of ? f->cap_dirty_of : 64;
		while (cap <= host)
			cap *= 2;
		uint32_t *v = realloc(f->dirty_of, cap * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + f->cap_dirty_of, 0,
		       (cap - f->cap_dirty_of) * sizeof(*v));
		f->dirty_of = v;
		f->cap_dirty_of = cap;
	}
	if (f->dirty_of[host])
		return &f->dirty[f->dirty_of[host] - 1];
	if (f->n_dirty == f->cap_dirty) {
		uint32_t cap = f->cap_dirty ? 2 * f->cap_dirty : 16;
		struct dirty *d = realloc(f->dirty, cap * sizeof(*d));
		if (!d)
			return NULL;
		memset(d + f->cap_dirty, 0, (cap - f->cap_dirty) * sizeof(*d));
		f->dirty = d;
		f->cap_dirty = cap;
	}
	struct dirty *d = &f->dirty[f->n_dirty++];
	f->dirty_of[host] = f->n_dirty;
	d->host = host;
	d->added = false;
	d->n_done = 0;
	d->has_fetched = false;
	return d;
}

/* Forget the transaction's dirty list (after publishing or discarding). */
static void dirty_clear(struct frontier *f)
{
	for (uint32_t i = 0; i < f->n_dirty; i++)
		f->dirty_of[f->dirty[i].host] = 0;
	f->n_dirty = 0;
}

/* An LMDB failure (db_fail) or result (db_rc) as an sc_err, the LMDB code
 * remembered for store_strerror(): a full map says MDB_MAP_FULL, not
 * "database error". */
static int db_fail(int mdb_rc)
{
	int rc = store_db_error(mdb_rc);
	return rc ? rc : SC_E_DB;
}

static int db_rc(int mdb_rc)
{
	return mdb_rc ? db_fail(mdb_rc) : 0;
}

static int put_meta(struct frontier *f, MDB_txn *txn)
{
	unsigned char m[META_LEN];
	m[0] = f->meta_version;
	put_be64(m + 1, f->w.seq_limit);
	MDB_val key = { sizeof(meta_key) - 1, (void *)meta_key };
	MDB_val val = { sizeof(m), m };
	return db_rc(mdb_put(txn, f->meta, &key, &val, 0));
}

/* The id of a host name, made if new (inside txn). */
static int host_id(struct frontier *f, MDB_txn *txn, const char *name,
		   size_t len, uint32_t *ret)
{
	/* The cache is in memory only: its hash may change freely. */
	uint64_t h = XXH3_64bits(name, len);
	struct host_cache_slot *slot = &f->host_cache[h % HOST_CACHE];
	if (slot->id && slot->len == len &&
	    memcmp(slot->name, name, len) == 0) {
		*ret = slot->id;
		return 0;
	}

	MDB_val key = { len, (void *)name }, val;
	int rc = mdb_get(txn, f->hosts, &key, &val);
	if (rc == 0) {
		if (val.mv_size != 4)
			return SC_E_CORRUPT;
		*ret = get_be32(val.mv_data);
		/* Only committed ids are cached: see frontier_discarded(). */
		if (*ret < f->w_committed.next_host) {
			slot->id = *ret;
			slot->len = (uint16_t)len;
			memcpy(slot->name, name, len);
		}
		return 0;
	}
	if (rc != MDB_NOTFOUND)
		return db_fail(rc);
	uint32_t id = f->w.next_host++;
	unsigned char idb[4];
	put_be32(idb, id);
	val = (MDB_val){ 4, idb };
	if ((rc = mdb_put(txn, f->hosts, &key, &val, MDB_NOOVERWRITE)))
		return db_fail(rc);
	MDB_val ik = { 4, idb }, iv = { len, (void *)name };
	if ((rc = mdb_put(txn, f->hostids, &ik, &iv, MDB_NOOVERWRITE)))
		return db_fail(rc);
	*ret = id;
	return 0;
}

/* The seen key of a URL in the store's format, into k (SEEN_KEY_MAX
 * bytes, zero-padded); returns its length.  See SEEN_KEY_V2. */
static size_t seen_key(const struct frontier *f, const char *url, size_t len,
		       unsigned char k[SEEN_KEY_MAX])
{
	memset(k, 0, SEEN_KEY_MAX);
	if (f->meta_version != META_V2_CLUSTERED) {
		sc_url_key(url, len, k);
		return SC_KEY_LEN;
	}
	/* The authority ends at the first '/', '?' or '#' after "//". */
	size_t a = 0;
	const char *sep = memchr(url, ':', len);
	if (sep && (size_t)(sep - url) + 2 < len && sep[1] == '/' &&
	    sep[2] == '/')
		a = (size_t)(sep - url) + 3;
	while (a < len && url[a] != '/' && url[a] != '?' && url[a] != '#')
		a++;
	uint64_t host = XXH3_64bits(url, a);
	put_be32(k, (uint32_t)(host >> 32));
	size_t p = len - a < SEEN_PATH_LEN ? len - a : SEEN_PATH_LEN;
	memcpy(k + SEEN_HOST_LEN, url + a, p);
	unsigned char h[SC_KEY_LEN];
	sc_url_key(url, len, h);
	memcpy(k + SEEN_HOST_LEN + SEEN_PATH_LEN, h, SEEN_HASH_LEN);
	return SEEN_KEY_V2;
}

int frontier_seen(struct frontier *f, MDB_txn *txn, const char *url, size_t len)
{
	unsigned char k[SEEN_KEY_MAX];
	MDB_val key = { seen_key(f, url, len, k), k }, val;
	if (f->slog) {
		uint16_t cat;
		int lr = seen_log_find(f->slog, txn, k, &cat, NULL);
		if (lr)
			return lr;
	}
	int rc = f->slog ? seen_log_sets_get(f->slog, txn, k, &val, NULL)
			 : mdb_get(txn, f->seen, &key, &val);
	return rc == 0 ? 1 : rc == MDB_NOTFOUND ? 0 : SC_E_DB;
}

/* The category a seen value holds, or FRONTIER_NO_CATEGORY. */
static uint16_t seen_category(const MDB_val *v);

/* Format 4: put key into the seen set under category, as seen_put().
 * The log is asked first (its table is in memory), then the sorted sets
 * (the middle one, then the big one); a key in none is appended to the
 * log.  With overwrite, every copy of the key is given the category (a
 * frozen key may be in the log and a sorted set until its log is
 * dropped). */
static int seen_put_logged(struct frontier *f, MDB_txn *txn,
			   const unsigned char *k, uint16_t category,
			   bool overwrite, uint16_t *was)
{
	struct seen_log_at at;
	uint16_t cat;
	int lr = seen_log_find(f->slog, txn, k, &cat, &at);
	if (lr < 0)
		return lr;
	if (lr && !overwrite) {
		if (was)
			*was = cat;
		return 0;
	}
	if (lr) {
		int sr = seen_log_set(f->slog, txn, &at, category, false);
		if (sr)
			return sr;
	}
	MDB_val key = { SC_KEY_LEN, (void *)k }, val;
	MDB_dbi where = f->seen;
	int rc = MDB_NOTFOUND;
	if (seen_log_may_hold(f->slog, k)) {
		atomic_fetch_add_explicit(&f->searches, 1,
					  memory_order_relaxed);
		rc = seen_log_sets_get(f->slog, txn, k, &val, &where);
	}
	if (rc == 0) {
		if (was)
			*was = seen_category(&val);
		if (!overwrite)
			return 0;
		unsigned char cb[SEEN_LEN];
		put_be16(cb, category);
		val = (MDB_val){ SEEN_LEN, cb };
		rc = mdb_put(txn, where, &key, &val, 0);
		return rc ? db_fail(rc) : 0;
	}
	if (rc != MDB_NOTFOUND)
		return db_fail(rc);
	if (lr == 1)
		return 0; /* only in the log: its record was rewritten */
	if ((rc = seen_log_append(f->slog, txn, k, category)))
		return rc;
	return 1;
}

/* Queue one URL the seen set did not hold (in the order of discovery). */
static int enqueue(struct frontier *f, MDB_txn *txn,
		   const struct frontier_url *fu)
{
	uint32_t id;
	int rc = host_id(f, txn, fu->url + fu->u->host_off, fu->u->host_len,
			 &id);
	if (rc)
		return rc;

	bool same = fu->found_len == fu->url_len &&
		    memcmp(fu->found, fu->url, fu->url_len) == 0;
	size_t flen = same ? 0 : fu->found_len;
	size_t el = fu->etag && fu->etag_len <= FRONTIER_ETAG_MAX ? fu->etag_len
								  : 0;
	size_t ll = fu->last_modified && fu->last_modified_len <=
						 FRONTIER_LAST_MODIFIED_MAX
			    ? fu->last_modified_len
			    : 0;
	unsigned char v[ENTRY_HEAD + 2 * NORM_URL_MAX + FRONTIER_ETAG_MAX +
			FRONTIER_LAST_MODIFIED_MAX + 4 * FRONTIER_WORDS_MAX];
	v[0] = ENTRY_VERSION;
	put_be16(v + 1, fu->depth);
	put_be16(v + 3, fu->category);
	put_be16(v + 5, (uint16_t)fu->url_len);
	put_be16(v + 7, (uint16_t)flen);
	v[9] = fu->redirects;
	v[10] = fu->offtopic;
	v[11] = fu->u->https ? 1 : 0;
	put_be16(v + 12, fu->u->port);
	v[14] = (unsigned char)((fu->revisit ? ENTRY_REVISIT : 0) |
				(fu->sitemap ? ENTRY_SITEMAP : 0) |
				((fu->changefreq & 7u)
				 << ENTRY_CHANGEFREQ_SHIFT));
	put_be16(v + 15, (uint16_t)el);
	v[17] = (unsigned char)ll;
	v[18] = fu->predicted;
	v[19] = fu->pred_class;
	uint8_t nw = fu->n_words > FRONTIER_WORDS_MAX ? FRONTIER_WORDS_MAX
						      : fu->n_words;
	v[20] = nw;
	unsigned char *t = v + ENTRY_HEAD;
	memcpy(t, fu->url, fu->url_len);
	t += fu->url_len;
	memcpy(t, fu->found, flen);
	t += flen;
	if (el)
		memcpy(t, fu->etag, el);
	t += el;
	if (ll)
		memcpy(t, fu->last_modified, ll);
	t += ll;
	for (unsigned i = 0; i < nw; i++, t += 4)
		put_be32(t, fu->words[i]);

	if (f->w.next_seq == f->w.seq_limit) {
		f->w.seq_limit += SEQ_BLOCK;
		if ((rc = put_meta(f, txn)))
			return rc;
	}
	uint64_t seq = f->w.next_seq++;
	uint16_t rank = qrank(fu);
	unsigned char q[FRONTIER_QKEY_LEN];
	make_qkey(q, id, rank, seq);
	MDB_val qkey = { sizeof(q), q };
	MDB_val qval = { (size_t)(t - v), v };
	int prc = mdb_put(txn, f->queue, &qkey, &qval, 0);
	if (prc)
		return db_fail(prc);
	f->w.seen += !fu->revisit;
	f->w.queued++;

	struct dirty *d = dirty_for(f, id);
	if (!d)
		return SC_E_NOMEM;
	if (!d->added || rank < d->min_depth ||
	    (rank == d->min_depth && seq < d->min_seq)) {
		d->min_depth = rank;
		d->min_seq = seq;
	}
	d->added = true;
	return 0;
}

static bool url_ok(const struct frontier_url *fu)
{
	return fu->url_len <= NORM_URL_MAX && fu->found_len <= NORM_URL_MAX &&
	       fu->u->host_len > 0 && fu->u->host_len <= FRONTIER_HOST_MAX;
}

/* Put url into the seen set under category: 1 if it was not there, 0 if
 * it was (then nothing is written, unless overwrite), or SC_E_DB. */
static int seen_put(struct frontier *f, MDB_txn *txn, const char *url,
		    size_t len, uint16_t category, bool overwrite)
{
	unsigned char k[SEEN_KEY_MAX], cat[SEEN_LEN];
	put_be16(cat, category);
	MDB_val skey = { seen_key(f, url, len, k), k };
	if (f->slog) {
		int lr = seen_put_logged(f, txn, k, category, overwrite, NULL);
		if (lr == 1) {
			int mr = seen_log_merge(f->slog, txn);
			if (mr)
				return mr;
		}
		return lr;
	}
	MDB_val sval = { SEEN_LEN, cat };
	int rc = mdb_put(txn, f->seen, &skey, &sval,
			 overwrite ? 0 : MDB_NOOVERWRITE);
	if (rc == MDB_KEYEXIST)
		return 0;
	return rc ? db_fail(rc) : 1;
}

int frontier_add(struct frontier *f, MDB_txn *txn,
		 const struct frontier_url *fu)
{
	if (!url_ok(fu))
		return SC_E_INVAL;
	int rc = seen_put(f, txn, fu->url, fu->url_len, fu->category, false);
	if (rc <= 0)
		return rc;
	return (rc = enqueue(f, txn, fu)) ? rc : 1;
}

int frontier_requeue(struct frontier *f, MDB_txn *txn,
		     const struct frontier_url *fu)
{
	if (!url_ok(fu))
		return SC_E_INVAL;
	int rc = seen_put(f, txn, fu->url, fu->url_len, fu->category, true);
	return rc < 0 ? rc : enqueue(f, txn, fu);
}

int frontier_revisit(struct frontier *f, MDB_txn *txn,
		     const struct frontier_url *fu)
{
	if (!url_ok(fu) || !fu->revisit)
		return SC_E_INVAL;
	return enqueue(f, txn, fu);
}

int frontier_mark_seen(struct frontier *f, MDB_txn *txn, const char *url,
		       size_t len, uint16_t category)
{
	return seen_put(f, txn, url, len, category, false);
}

int frontier_forget(struct frontier *f, MDB_txn *txn, const char *url,
		    size_t len)
{
	unsigned char k[SEEN_KEY_MAX];
	MDB_val key = { seen_key(f, url, len, k), k };
	bool was = false;
	if (f->slog) {
		/* A tombstone in the log, so that no merge brings it back;
		 * and out of the sorted sets, where a merge may have put it. */
		struct seen_log_at at;
		uint16_t cat;
		int lr = seen_log_find(f->slog, txn, k, &cat, &at);
		if (lr < 0)
			return lr;
		if (lr) {
			int sr = seen_log_set(f->slog, txn, &at, 0, true);
			if (sr)
				return sr;
			was = true;
		}
	}
	int rc = f->slog ? seen_log_sets_del(f->slog, txn, k)
			 : mdb_del(txn, f->seen, &key, NULL);
	if (rc == MDB_NOTFOUND && !was)
		return 0;
	if (rc && rc != MDB_NOTFOUND)
		return db_fail(rc);
	if (f->w.seen)
		f->w.seen--;
	return 1;
}

static int fresh_rtxn(struct frontier *f);

int frontier_seen_now(struct frontier *f, const char *url, size_t len)
{
	pthread_mutex_lock(&f->lock);
	int rc = fresh_rtxn(f);
	if (!rc)
		rc = frontier_seen(f, f->rtxn, url, len);
	pthread_mutex_unlock(&f->lock);
	return rc;
}

static int probe_cmp(const void *a, const void *b)
{
	const struct probe *x = a, *y = b;
	int c = memcmp(x->key, y->key, SEEN_KEY_MAX);
	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sorts p[n] as probe_cmp() orders them (tmp: room for n more): by the
 * keys' first 4 bytes in three passes of a radix sort (stable, so equal
 * keys keep their batch order), then each run of equal first bytes by
 * probe_cmp().  A store's keys are hashes (format 4) and such runs are
 * one probe long; in format 2 they are a host's (its first 4 bytes).
 * qsort() over a batch's probes (up to 32,768, 24-byte keys compared
 * with memcmp()) and over the merge's chunks was 1 % of the crawl's CPU
 * on the frontier web at 10 M URLs, and some of memcmp()'s 4.6 %. */
#define RADIX_BITS 11
static void probe_sort(struct probe *p, struct probe *tmp, size_t n)
{
	if (n < 64) {
		qsort(p, n, sizeof(*p), probe_cmp);
		return;
	}
	struct probe *src = p, *dst = tmp;
	for (unsigned sh = 0; sh < 32; sh += RADIX_BITS) {
		size_t count[1u << RADIX_BITS] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[(get_be32(src[i].key) >> sh) &
			      ((1u << RADIX_BITS) - 1)]++;
		size_t sum = 0;
		for (size_t d = 0; d < (1u << RADIX_BITS); d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[count[(get_be32(src[i].key) >> sh) &
				  ((1u << RADIX_BITS) - 1)]++] = src[i];
		struct probe *t = src;
		src = dst;
		dst = t;
	}
	/* Three passes: the sorted probes are in tmp. */
	memcpy(p, src, n * sizeof(*p));
	for (size_t i = 0, j; i < n; i = j) {
		uint32_t top = get_be32(p[i].key);
		for (j = i + 1; j < n && get_be32(p[j].key) == top; j++)
			;
		if (j - i > 1)
			qsort(p + i, j - i, sizeof(*p), probe_cmp);
	}
}

int frontier_add_batch(struct frontier *f, MDB_txn *txn,
		       const struct frontier_url *fu, size_t n, int8_t *added)
{
	return frontier_add_batch_cat(f, txn, fu, n, added, NULL);
}

/* The category a seen value holds, or FRONTIER_NO_CATEGORY. */
static uint16_t seen_category(const MDB_val *v)
{
	return v->mv_size == SEEN_LEN ? get_be16(v->mv_data)
				      : FRONTIER_NO_CATEGORY;
}

int frontier_add_batch_cat(struct frontier *f, MDB_txn *txn,
			   const struct frontier_url *fu, size_t n,
			   int8_t *added, uint16_t *other)
{
	if (n == 0)
		return 0;
	if (n > UINT32_MAX)
		return SC_E_INVAL;
	if (n > f->cap_probe) {
		struct probe *p = realloc(f->probe, n * sizeof(*p));
		struct probe *t = realloc(f->probe_tmp, n * sizeof(*t));
		int8_t *a = realloc(f->probe_added, n);
		if (p)
			f->probe = p;
		if (t)
			f->probe_tmp = t;
		if (a)
			f->probe_added = a;
		if (!p || !t || !a)
			return SC_E_NOMEM;
		f->cap_probe = n;
	}
	for (size_t i = 0; i < n; i++) {
		if (!url_ok(&fu[i]))
			return SC_E_INVAL;
		seen_key(f, fu[i].url, fu[i].url_len, f->probe[i].key);
		f->probe[i].idx = (uint32_t)i;
		f->probe[i].category = fu[i].category;
	}
	probe_sort(f->probe, f->probe_tmp, n);

	/* Seen set in key order: neighbouring probes share pages. */
	int8_t *is_new = f->probe_added;
	const unsigned char *prev = NULL;
	uint16_t prev_cat = FRONTIER_NO_CATEGORY;
	for (size_t i = 0; i < n; i++) {
		struct probe *p = &f->probe[i];
		uint16_t cat = p->category;
		is_new[p->idx] = 0;
		if (other)
			other[p->idx] = FRONTIER_NO_CATEGORY;
		if (prev && memcmp(prev, p->key, SEEN_KEY_MAX) == 0) {
			/* A repeat inside the batch: first wins. */
			if (other && prev_cat != cat)
				other[p->idx] = prev_cat;
			continue;
		}
		prev = p->key;
		prev_cat = cat;
		if (f->slog) {
			uint16_t was = cat;
			int rc = seen_put_logged(f, txn, p->key, cat, false,
						 &was);
			if (rc < 0)
				return rc;
			is_new[p->idx] = (int8_t)rc;
			if (rc == 0) {
				prev_cat = was;
				if (other && prev_cat != cat)
					other[p->idx] = prev_cat;
			}
			continue;
		}
		unsigned char cb[SEEN_LEN];
		put_be16(cb, cat);
		MDB_val skey = { f->seen_klen, p->key };
		MDB_val sval = { SEEN_LEN, cb };
		int rc = mdb_put(txn, f->seen, &skey, &sval, MDB_NOOVERWRITE);
		if (rc == 0) {
			is_new[p->idx] = 1;
		} else if (rc == MDB_KEYEXIST) {
			/* LMDB points sval at the value already there. */
			prev_cat = seen_category(&sval);
			if (other && prev_cat != cat)
				other[p->idx] = prev_cat;
		} else {
			return db_fail(rc); /* MDB_MAP_FULL: SC_E_FULL */
		}
	}
	/* Format 4: the frozen keys this batch's new ones earned. */
	if (f->slog) {
		int rc = seen_log_merge(f->slog, txn);
		if (rc)
			return rc;
	}
	/* The queue in discovery order, which its sequence numbers keep. */
	int count = 0;
	for (size_t i = 0; i < n; i++) {
		if (!is_new[i])
			continue;
		int rc = enqueue(f, txn, &fu[i]);
		if (rc)
			return rc;
		count++;
	}
	if (added)
		memcpy(added, is_new, n);
	return count;
}

int frontier_done(struct frontier *f, MDB_txn *txn,
		  const struct frontier_lease *l)
{
	MDB_val key = { FRONTIER_QKEY_LEN, (void *)l->qkey };
	int rc = mdb_del(txn, f->queue, &key, NULL);
	if (rc == MDB_NOTFOUND)
		return SC_E_NOTFOUND;
	if (rc)
		return db_fail(rc);
	f->w.queued--;

	struct dirty *d = dirty_for(f, l->host_id);
	if (!d)
		return SC_E_NOMEM;
	if (d->n_done == d->cap_done) {
		uint32_t cap = d->cap_done ? 2 * d->cap_done : 8;
		uint64_t *v = realloc(d->done, cap * sizeof(*v));
		if (!v)
			return SC_E_NOMEM;
		d->done = v;
		d->cap_done = cap;
	}
	d->done[d->n_done++] = get_be64(l->qkey + 6);
	return 0;
}

void frontier_published(struct frontier *f)
{
	pthread_mutex_lock(&f->lock);
	f->w_committed = f->w;
	f->published = f->w;
	if (grow_hosts(f, f->w.next_host) == 0) {
		for (uint32_t i = 0; i < f->n_dirty; i++) {
			struct dirty *d = &f->dirty[i];
			struct host *h = &f->host[d->host];
			/* Deleted entries are no longer leased: the queue
			 * itself no longer has them. */
			for (uint32_t j = 0; j < d->n_done; j++) {
				for (uint32_t k = 0; k < h->n_leased; k++) {
					if ((h->leased[k] & LEASED_SEQ) ==
					    d->done[j]) {
						leased_drop(f, h, k);
						break;
					}
				}
			}
			if (d->added &&
			    (!h->has_head || d->min_depth < h->head_depth ||
			     (d->min_depth == h->head_depth &&
			      d->min_seq < h->head_seq))) {
				h->has_head = true;
				h->head_depth = d->min_depth;
				h->head_seq = d->min_seq;
			}
			if (d->has_fetched)
				h->fetched = d->fetched;
			(void)host_place(f, d->host);
		}
	}
	dirty_clear(f);
	if (f->slog)
		seen_log_published(f->slog);
	f->gen++;
	pthread_mutex_unlock(&f->lock);
}

void frontier_discarded(struct frontier *f)
{
	f->w = f->w_committed;
	dirty_clear(f);
	if (f->slog)
		seen_log_discarded(f->slog);
}

/* ---------------------------------------------------------------------
 * Scheduler side
 */

/* The length of a queue entry's head, with its url and found lengths in
 * *ul and *fl and its validators' in *el and *ll (0 before version 4);
 * 0 for a value that is no entry of a known version. */
static size_t entry_head(const MDB_val *val, size_t *ul, size_t *fl, size_t *el,
			 size_t *ll)
{
	const unsigned char *v = val->mv_data;
	size_t head = 0;
	if (val->mv_size)
		head = v[0] == 1               ? ENTRY_HEAD_V1
		       : v[0] == 2             ? ENTRY_HEAD_V2
		       : v[0] == 3             ? ENTRY_HEAD_V3
		       : v[0] == 4             ? ENTRY_HEAD_V4
		       : v[0] == ENTRY_VERSION ? ENTRY_HEAD
					       : 0;
	if (!head || val->mv_size < head)
		return 0;
	*el = head >= ENTRY_HEAD_V4 ? get_be16(v + 15) : 0;
	*ll = head >= ENTRY_HEAD_V4 ? v[17] : 0;
	size_t wl = head == ENTRY_HEAD ? 4u * v[20] : 0;
	if ((*ul = get_be16(v + 5)) > NORM_URL_MAX ||
	    (*fl = get_be16(v + 7)) > NORM_URL_MAX || *el > FRONTIER_ETAG_MAX ||
	    *ll > FRONTIER_LAST_MODIFIED_MAX || wl > 4 * FRONTIER_WORDS_MAX ||
	    (head >= ENTRY_HEAD_V4 && (v[14] & ~ENTRY_FLAGS)) ||
	    val->mv_size != head + *ul + *fl + *el + *ll + wl)
		return 0;
	return head;
}

/* The components of a leased key, split where it stands: never
 * normalized again, so that whatever the steps of the run that leases it,
 * the URL fetched and recorded is the one that was queued.  fetch: the
 * entry's scheme and port (version 3), or NULL for an older entry. */
static void lease_split(struct frontier_lease *l, const unsigned char *fetch)
{
	if (norm_split(l->url, l->url_len, &l->u)) {
		/* Not a URL norm_url() could have written: a damaged
		 * entry.  The crawler records it and fetches nothing. */
		memset(&l->u, 0, sizeof(l->u));
		return;
	}
	if (fetch) {
		l->u.https = fetch[0] & 1;
		l->u.port = get_be16(fetch + 1);
		return;
	}
	/* An entry of an older version: under fold_https its key says
	 * http while the URL as found (kept when it differs) says https,
	 * and then so does the fetch, on the port the key or the found URL
	 * writes, else 443.  Links of those versions were kept with found
	 * equal to the key, so theirs stay http, as they were fetched then. */
	struct norm_url fu;
	if (l->u.scheme_len == 4 && l->found_len > 6 &&
	    strncasecmp(l->found, "https:", 6) == 0 &&
	    norm_split(l->found, l->found_len, &fu) == 0) {
		l->u.https = 1;
		/* fu.port is 443 unless the found URL writes one. */
		l->u.port = l->u.has_port && l->u.port_len ? l->u.port
							   : fu.port;
	}
}

static int lease_from(struct frontier *f, MDB_txn *rtxn, uint32_t id,
		      uint64_t now_ms, struct frontier_lease *ret)
{
	struct host *h = &f->host[id];
	unsigned char k[FRONTIER_QKEY_LEN];
	make_qkey(k, id, h->head_depth, h->head_seq);
	MDB_val key = { sizeof(k), k }, val;
	MDB_cursor *c;
	if (mdb_cursor_open(rtxn, f->queue, &c))
		return SC_E_DB;
	int rc = mdb_cursor_get(c, &key, &val, MDB_SET_KEY);
	if (rc == MDB_NOTFOUND) {
		/* Only an entry done and committed can be missing, and a
		 * done entry was leased, never a head: the queue is
		 * damaged.  Look again rather than loop on it. */
		rc = host_find_head(f, c, id);
		mdb_cursor_close(c);
		return rc ? rc : SC_E_AGAIN;
	}
	if (rc) {
		mdb_cursor_close(c);
		return SC_E_DB;
	}

	const unsigned char *v = val.mv_data;
	size_t ul, fl, el, ll, head = entry_head(&val, &ul, &fl, &el, &ll);
	if (!head) {
		mdb_cursor_close(c);
		return SC_E_CORRUPT;
	}
	memcpy(ret->qkey, k, sizeof(k));
	ret->host_id = id;
	ret->depth = get_be16(v + 1);
	ret->category = get_be16(v + 3);
	ret->redirects = v[9];
	ret->offtopic = head >= ENTRY_HEAD_V2 ? v[10] : 0;
	ret->url_len = (uint16_t)ul;
	memcpy(ret->url, v + head, ul);
	ret->url[ul] = '\0';
	ret->found_len = (uint16_t)(fl ? fl : ul);
	memcpy(ret->found, fl ? v + head + ul : v + head, ret->found_len);
	ret->found[ret->found_len] = '\0';
	uint8_t flags = head >= ENTRY_HEAD_V4 ? v[14] : 0;
	ret->predicted = head == ENTRY_HEAD ? v[18] : 0;
	ret->pred_class = head == ENTRY_HEAD ? v[19] : 0;
	ret->n_words = head == ENTRY_HEAD ? v[20] : 0;
	ret->revisit = flags & ENTRY_REVISIT;
	ret->sitemap = flags & ENTRY_SITEMAP;
	ret->changefreq = (flags >> ENTRY_CHANGEFREQ_SHIFT) & 7u;
	const unsigned char *t = v + head + ul + fl;
	memcpy(ret->etag, t, el);
	ret->etag[el] = '\0';
	memcpy(ret->last_modified, t + el, ll);
	ret->last_modified[ll] = '\0';
	for (unsigned i = 0; i < ret->n_words; i++)
		ret->words[i] = get_be32(t + el + ll + 4 * i);
	lease_split(ret, head >= ENTRY_HEAD_V3 ? v + 11 : NULL);

	if (h->n_leased == h->cap_leased) {
		uint32_t cap = h->cap_leased ? 2 * h->cap_leased : 4;
		uint64_t *l = realloc(h->leased, cap * sizeof(*l));
		if (!l) {
			mdb_cursor_close(c);
			return SC_E_NOMEM;
		}
		h->leased = l;
		h->cap_leased = cap;
	}
	bool hi = rank_hi(f, h->head_depth);
	bool lo = f->opts.defer_class && !hi;
	h->leased[h->n_leased++] = h->head_seq | (hi ? LEASED_HI : 0) |
				   (lo ? LEASED_LO : 0);
	f->hi_leased += hi;
	f->lo_leased += lo;
	f->leased_total++;
	h->inflight++;
	uint32_t delay = h->delay_ms ? h->delay_ms : f->opts.per_host_delay_ms;
	if (!h->drain && h->ready_ms < now_ms + delay)
		h->ready_ms = now_ms + delay;
	rc = host_find_head(f, c, id);
	mdb_cursor_close(c);
	if (rc)
		return rc;
	return host_place(f, id);
}

/* A read transaction that sees every publication so far.  With the lock. */
static int fresh_rtxn(struct frontier *f)
{
	if (f->rtxn && f->rtxn_gen == f->gen)
		return 0;
	if (f->rtxn) {
		mdb_txn_reset(f->rtxn);
		if (mdb_txn_renew(f->rtxn)) {
			mdb_txn_abort(f->rtxn);
			f->rtxn = NULL;
		}
	}
	if (!f->rtxn && mdb_txn_begin(f->env, NULL, MDB_RDONLY, &f->rtxn)) {
		f->rtxn = NULL;
		return SC_E_DB;
	}
	f->rtxn_gen = f->gen;
	return 0;
}

int frontier_next(struct frontier *f, uint64_t now_ms,
		  struct frontier_lease *ret, uint64_t *wait_ms)
{
	int rc;
	pthread_mutex_lock(&f->lock);
	if ((rc = fresh_rtxn(f)))
		goto out;
	MDB_txn *rtxn = f->rtxn;
	for (;;) {
		/* Hosts whose delay has passed become ready. */
		while (f->wait.n && f->host[f->wait.v[0]].ready_ms <= now_ms) {
			uint32_t id = f->wait.v[0];
			heap_remove(f, &f->wait, id);
			f->host[id].state = H_READY;
			sync_wait_hi(f, &f->host[id]);
			if ((rc = heap_push(f, &f->ready, id)))
				goto out;
		}
		/* The best ready head is of a deferred class while URLs of
		 * a better one are being fetched or wait for their host's
		 * delay: at most DEFER_EXPLORE of them go at a time, the
		 * others wait (opts.defer_class). */
		bool defer = f->ready.n && f->opts.defer_class &&
			     !rank_hi(f, f->host[f->ready.v[0]].head_depth) &&
			     (f->hi_leased || f->wait_hi || f->learning) &&
			     f->lo_leased >= DEFER_EXPLORE;
		if (f->ready.n == 0 || defer) {
			*wait_ms = f->wait.n ? f->host[f->wait.v[0]].ready_ms -
						       now_ms
					     : UINT64_MAX;
			rc = SC_E_AGAIN;
			goto out;
		}
		uint32_t id = f->ready.v[0];
		heap_remove(f, &f->ready, id);
		f->host[id].state = H_IDLE;
		rc = lease_from(f, rtxn, id, now_ms, ret);
		if (rc != SC_E_AGAIN)
			goto out;
		if ((rc = host_place(f, id)))
			goto out;
	}
out:
	pthread_mutex_unlock(&f->lock);
	return rc;
}

void frontier_release(struct frontier *f, uint32_t host_id)
{
	pthread_mutex_lock(&f->lock);
	if (host_id < f->n_host && f->host[host_id].inflight > 0) {
		f->host[host_id].inflight--;
		(void)host_place(f, host_id);
	}
	pthread_mutex_unlock(&f->lock);
}

void frontier_return(struct frontier *f, const struct frontier_lease *l)
{
	pthread_mutex_lock(&f->lock);
	if (l->host_id < f->n_host) {
		struct host *h = &f->host[l->host_id];
		uint64_t seq = get_be64(l->qkey + 6);
		uint16_t depth = get_be16(l->qkey + 4);
		for (uint32_t k = 0; k < h->n_leased; k++) {
			if ((h->leased[k] & LEASED_SEQ) != seq)
				continue;
			leased_drop(f, h, k);
			if (!h->has_head || depth < h->head_depth ||
			    (depth == h->head_depth && seq < h->head_seq)) {
				h->has_head = true;
				h->head_depth = depth;
				h->head_seq = seq;
			}
			break;
		}
		if (h->inflight > 0)
			h->inflight--;
		if (h->state == H_READY) {
			heap_remove(f, &f->ready, l->host_id);
			h->state = H_IDLE;
		}
		(void)host_place(f, l->host_id);
	}
	pthread_mutex_unlock(&f->lock);
}

void frontier_set_opts(struct frontier *f, const struct frontier_opts *opts)
{
	pthread_mutex_lock(&f->lock);
	f->opts = *opts;
	if (f->opts.per_host_connections == 0)
		f->opts.per_host_connections = 1;
	/* A host held back by the old connection limit may be ready now,
	 * and one over the new limit must wait: place every host again. */
	for (uint32_t id = 0; id < f->n_host; id++)
		(void)host_place(f, id);
	pthread_mutex_unlock(&f->lock);
}

void frontier_set_learning(struct frontier *f, bool learning)
{
	pthread_mutex_lock(&f->lock);
	f->learning = learning;
	pthread_mutex_unlock(&f->lock);
}

/* Hold host id back until until_ms, if it was ready sooner (under the
 * lock): a ready host goes back to waiting. */
static void hold_locked(struct frontier *f, uint32_t id, uint64_t until_ms)
{
	struct host *h = &f->host[id];
	if (h->ready_ms >= until_ms)
		return;
	h->ready_ms = until_ms;
	if (h->state == H_READY) {
		heap_remove(f, &f->ready, id);
		h->state = H_IDLE;
	}
	(void)host_place(f, id);
}

void frontier_hold(struct frontier *f, uint32_t host_id, uint64_t until_ms)
{
	pthread_mutex_lock(&f->lock);
	if (host_id < f->n_host)
		hold_locked(f, host_id, until_ms);
	pthread_mutex_unlock(&f->lock);
}

void frontier_sent(struct frontier *f, uint32_t host_id, uint64_t sent_ms)
{
	pthread_mutex_lock(&f->lock);
	if (host_id < f->n_host && !f->host[host_id].drain) {
		const struct host *h = &f->host[host_id];
		hold_locked(f, host_id,
			    sent_ms + (h->delay_ms
					       ? h->delay_ms
					       : f->opts.per_host_delay_ms));
	}
	pthread_mutex_unlock(&f->lock);
}

int frontier_host_pace(struct frontier *f, const char *name, size_t len,
		       uint64_t now_ms, uint64_t *ready_ms)
{
	pthread_mutex_lock(&f->lock);
	int rc = fresh_rtxn(f);
	MDB_val key = { len, (void *)name }, val;
	if (!rc) {
		rc = mdb_get(f->rtxn, f->hosts, &key, &val);
		rc = rc == MDB_NOTFOUND ? 1 : rc ? db_fail(rc) : 0;
	}
	if (rc) {
		pthread_mutex_unlock(&f->lock);
		return rc < 0 ? rc : 0;
	}
	uint32_t id = val.mv_size == 4 ? get_be32(val.mv_data) : UINT32_MAX;
	if (id >= f->n_host || f->host[id].drain) {
		pthread_mutex_unlock(&f->lock);
		return 0;
	}
	const struct host *h = &f->host[id];
	if (h->ready_ms > now_ms) {
		*ready_ms = h->ready_ms;
		pthread_mutex_unlock(&f->lock);
		return 1;
	}
	hold_locked(f, id,
		    now_ms + (h->delay_ms ? h->delay_ms
					  : f->opts.per_host_delay_ms));
	pthread_mutex_unlock(&f->lock);
	return 0;
}

bool frontier_host_due(struct frontier *f, uint32_t host_id, uint64_t now_ms,
		       uint64_t window_ms)
{
	bool due = false;
	pthread_mutex_lock(&f->lock);
	if (host_id < f->n_host) {
		const struct host *h = &f->host[host_id];
		due = !h->drain &&
		      (h->inflight > 1 ||
		       (h->has_head && h->ready_ms <= now_ms + window_ms));
	}
	pthread_mutex_unlock(&f->lock);
	return due;
}

void frontier_drain(struct frontier *f, uint32_t host_id, bool on,
		    uint64_t now_ms)
{
	pthread_mutex_lock(&f->lock);
	if (host_id > 0 && host_id < f->n_host &&
	    f->host[host_id].drain != on) {
		struct host *h = &f->host[host_id];
		h->drain = on;
		if (on) {
			h->ready_ms = 0;
		} else {
			uint32_t delay = h->delay_ms
						 ? h->delay_ms
						 : f->opts.per_host_delay_ms;
			if (h->ready_ms < now_ms + delay)
				h->ready_ms = now_ms + delay;
			if (h->state == H_READY) {
				heap_remove(f, &f->ready, host_id);
				h->state = H_IDLE;
			}
		}
		(void)host_place(f, host_id);
	}
	pthread_mutex_unlock(&f->lock);
}

int frontier_count_fetch(struct frontier *f, MDB_txn *txn, uint32_t host_id)
{
	struct dirty *d = dirty_for(f, host_id);
	if (!d)
		return SC_E_NOMEM;
	unsigned char k[4], v[FETCHED_LEN];
	put_be32(k, host_id);
	MDB_val key = { sizeof(k), k }, val;
	if (!d->has_fetched) {
		int rc = mdb_get(txn, f->fetched, &key, &val);
		if (rc == 0 && val.mv_size != FETCHED_LEN)
			return SC_E_CORRUPT;
		if (rc && rc != MDB_NOTFOUND)
			return db_fail(rc);
		d->fetched = rc == 0 ? get_be64(val.mv_data) : 0;
		d->has_fetched = true;
	}
	d->fetched++;
	put_be64(v, d->fetched);
	val = (MDB_val){ sizeof(v), v };
	return db_rc(mdb_put(txn, f->fetched, &key, &val, 0));
}

uint64_t frontier_host_fetched(struct frontier *f, uint32_t host_id)
{
	pthread_mutex_lock(&f->lock);
	uint64_t n = host_id < f->n_host ? f->host[host_id].fetched : 0;
	pthread_mutex_unlock(&f->lock);
	return n;
}

void frontier_host_delay(struct frontier *f, uint32_t host_id,
			 uint32_t delay_ms)
{
	pthread_mutex_lock(&f->lock);
	if (host_id < f->n_host)
		f->host[host_id].delay_ms = delay_ms;
	pthread_mutex_unlock(&f->lock);
}

int frontier_host_name(struct frontier *f, MDB_txn *txn, uint32_t host_id,
		       char *buf, size_t cap)
{
	unsigned char idb[4];
	put_be32(idb, host_id);
	MDB_val key = { 4, idb }, val;
	int rc = mdb_get(txn, f->hostids, &key, &val);
	if (rc == MDB_NOTFOUND)
		return SC_E_NOTFOUND;
	if (rc)
		return db_fail(rc);
	if (val.mv_size >= cap)
		return SC_E_NOSPC;
	memcpy(buf, val.mv_data, val.mv_size);
	buf[val.mv_size] = '\0';
	return 0;
}

void frontier_stats(struct frontier *f, struct frontier_stats *ret)
{
	pthread_mutex_lock(&f->lock);
	ret->queued = f->published.queued;
	ret->seen = f->published.seen;
	ret->hosts = f->n_host ? f->n_host - 1 : 0;
	ret->leased = f->leased_total;
	ret->waiting = f->wait.n;
	pthread_mutex_unlock(&f->lock);
	ret->searches = atomic_load_explicit(&f->searches,
					     memory_order_relaxed);
}

void frontier_mem(struct frontier *f, struct frontier_mem *ret)
{
	*ret = (struct frontier_mem){ .host_record = sizeof(struct host) };
	pthread_mutex_lock(&f->lock);
	ret->hosts = f->n_host ? f->n_host - 1 : 0;
	ret->records = (size_t)f->n_host * sizeof(struct host);
	for (uint32_t h = 1; h < f->n_host; h++) {
		ret->leased += (size_t)f->host[h].cap_leased * sizeof(uint64_t);
		ret->leased_lists += f->host[h].cap_leased > 0;
	}
	ret->heaps = ((size_t)f->ready.cap + f->wait.cap) * sizeof(uint32_t);
	pthread_mutex_unlock(&f->lock);
	/* The writer's side, read while it is still: the caller's thread
	 * is the writer, or no transaction is open. */
	ret->writer = (size_t)f->cap_dirty_of * sizeof(*f->dirty_of) +
		      (size_t)f->cap_dirty * sizeof(*f->dirty);
	for (uint32_t i = 0; i < f->cap_dirty; i++)
		ret->writer += (size_t)f->dirty[i].cap_done * sizeof(uint64_t);
	ret->name_cache = HOST_CACHE * sizeof(*f->host_cache);
}

uint32_t frontier_hosts_active(struct frontier *f)
{
	uint32_t n = 0;
	pthread_mutex_lock(&f->lock);
	for (uint32_t h = 1; h < f->n_host; h++)
		n += f->host[h].inflight > 0;
	pthread_mutex_unlock(&f->lock);
	return n;
}

/* ---- The normalization of the keys ----------------------------------- */

/* Value: version (1), profile (1), steps (4), tracking list length (2),
 * the list. */
static const char norm_key[] = "norm";
#define NORM_REC_VERSION 1
#define NORM_REC_HEAD 8

int frontier_norm_get(struct frontier *f, MDB_txn *txn,
		      struct frontier_norm *ret)
{
	MDB_val key = { sizeof(norm_key) - 1, (void *)norm_key }, val;
	int rc = mdb_get(txn, f->meta, &key, &val);
	if (rc == MDB_NOTFOUND)
		return SC_E_NOTFOUND;
	if (rc)
		return db_fail(rc);
	const unsigned char *p = val.mv_data;
	size_t tl;
	if (val.mv_size < NORM_REC_HEAD || p[0] != NORM_REC_VERSION ||
	    p[1] > NORM_PROFILE_ADAPTIVE ||
	    (tl = get_be16(p + 6)) > FRONTIER_TRACKING_MAX ||
	    val.mv_size != NORM_REC_HEAD + tl ||
	    memchr(p + NORM_REC_HEAD, '\0', tl))
		return SC_E_CORRUPT;
	ret->profile = p[1];
	ret->steps = get_be32(p + 2);
	memcpy(ret->tracking, p + NORM_REC_HEAD, tl);
	ret->tracking[tl] = '\0';
	return 0;
}

int frontier_norm_put(struct frontier *f, MDB_txn *txn,
		      const struct frontier_norm *n)
{
	size_t tl = strnlen(n->tracking, FRONTIER_TRACKING_MAX + 1);
	if (tl > FRONTIER_TRACKING_MAX || n->profile > NORM_PROFILE_ADAPTIVE)
		return SC_E_INVAL;
	unsigned char v[NORM_REC_HEAD + FRONTIER_TRACKING_MAX];
	v[0] = NORM_REC_VERSION;
	v[1] = n->profile;
	put_be32(v + 2, n->steps);
	put_be16(v + 6, (uint16_t)tl);
	memcpy(v + NORM_REC_HEAD, n->tracking, tl);
	MDB_val key = { sizeof(norm_key) - 1, (void *)norm_key };
	MDB_val val = { NORM_REC_HEAD + tl, v };
	return db_rc(mdb_put(txn, f->meta, &key, &val, 0));
}

int frontier_foreach_queued(struct frontier *f, MDB_txn *txn,
			    int (*fn)(void *arg, const char *url, size_t len),
			    void *arg)
{
	MDB_cursor *c;
	if (mdb_cursor_open(txn, f->queue, &c))
		return SC_E_DB;
	MDB_val key, val;
	int rc, mrc;
	for (mrc = mdb_cursor_get(c, &key, &val, MDB_FIRST); mrc == 0;
	     mrc = mdb_cursor_get(c, &key, &val, MDB_NEXT)) {
		size_t ul, fl, el, ll;
		size_t head = entry_head(&val, &ul, &fl, &el, &ll);
		if (!head) {
			mdb_cursor_close(c);
			return SC_E_CORRUPT;
		}
		if ((rc = fn(arg, (const char *)val.mv_data + head, ul))) {
			mdb_cursor_close(c);
			return rc;
		}
	}
	mdb_cursor_close(c);
	return mrc == MDB_NOTFOUND ? 0 : SC_E_DB;
}

/* ---------------------------------------------------------------------
 * The re-crawl schedule
 */

#define DUE_KEY_LEN (8 + SC_KEY_LEN)
#define DUE_VAL_LEN 5

static void due_key(unsigned char *k, const struct frontier_due *d)
{
	put_be64(k, (uint64_t)d->due);
	memcpy(k + 8, d->key, SC_KEY_LEN);
}

int frontier_due_put(struct frontier *f, MDB_txn *txn,
		     const struct frontier_due *d)
{
	if (d->due < 0)
		return SC_E_INVAL;
	unsigned char k[DUE_KEY_LEN], v[DUE_VAL_LEN];
	due_key(k, d);
	put_be32(v, d->pass);
	v[4] = d->flags;
	MDB_val key = { sizeof(k), k }, val = { sizeof(v), v };
	return db_rc(mdb_put(txn, f->due, &key, &val, 0));
}

int frontier_due_del(struct frontier *f, MDB_txn *txn,
		     const struct frontier_due *d)
{
	if (d->due < 0)
		return SC_E_INVAL;
	unsigned char k[DUE_KEY_LEN];
	due_key(k, d);
	MDB_val key = { sizeof(k), k };
	int rc = mdb_del(txn, f->due, &key, NULL);
	return rc == MDB_NOTFOUND ? SC_E_NOTFOUND : db_rc(rc);
}

int frontier_due_next(struct frontier *f, MDB_txn *txn,
		      const struct frontier_due *after, int64_t horizon,
		      struct frontier_due *out, size_t max, size_t *n)
{
	MDB_cursor *c;
	*n = 0;
	if (mdb_cursor_open(txn, f->due, &c))
		return SC_E_DB;
	unsigned char k[DUE_KEY_LEN];
	MDB_val key, val;
	int mrc;
	if (after) {
		due_key(k, after);
		key = (MDB_val){ sizeof(k), k };
		mrc = mdb_cursor_get(c, &key, &val, MDB_SET_RANGE);
		/* Past the entry itself, if it is still there. */
		if (mrc == 0 && key.mv_size == sizeof(k) &&
		    memcmp(key.mv_data, k, sizeof(k)) == 0)
			mrc = mdb_cursor_get(c, &key, &val, MDB_NEXT);
	} else {
		mrc = mdb_cursor_get(c, &key, &val, MDB_FIRST);
	}
	int rc = 0;
	for (; mrc == 0; mrc = mdb_cursor_get(c, &key, &val, MDB_NEXT)) {
		if (key.mv_size != DUE_KEY_LEN || val.mv_size != DUE_VAL_LEN) {
			rc = SC_E_CORRUPT;
			break;
		}
		const unsigned char *p = key.mv_data;
		uint64_t due = get_be64(p);
		if (due > (uint64_t)INT64_MAX || (int64_t)due > horizon)
			break;
		if (*n == max) {
			rc = 1;
			break;
		}
		out[*n].due = (int64_t)due;
		memcpy(out[*n].key, p + 8, SC_KEY_LEN);
		out[*n].pass = get_be32(val.mv_data);
		out[*n].flags = ((const unsigned char *)val.mv_data)[4];
		(*n)++;
	}
	mdb_cursor_close(c);
	if (mrc && mrc != MDB_NOTFOUND)
		return SC_E_DB;
	return rc;
}

int frontier_due_count(struct frontier *f, MDB_txn *txn, uint64_t *ret)
{
	MDB_stat st;
	if (mdb_stat(txn, f->due, &st))
		return SC_E_DB;
	*ret = st.ms_entries;
	return 0;
}

/* Value: version (1), pass (4), running (1). */
static const char pass_key[] = "recrawl";
#define PASS_REC_VERSION 1
#define PASS_REC_LEN 6

int frontier_pass_get(struct frontier *f, MDB_txn *txn, uint32_t *pass,
		      bool *running)
{
	MDB_val key = { sizeof(pass_key) - 1, (void *)pass_key }, val;
	int rc = mdb_get(txn, f->meta, &key, &val);
	*pass = 0;
	*running = false;
	if (rc == MDB_NOTFOUND)
		return 0;
	if (rc)
		return db_fail(rc);
	const unsigned char *p = val.mv_data;
	if (val.mv_size != PASS_REC_LEN || p[0] != PASS_REC_VERSION || p[5] > 1)
		return SC_E_CORRUPT;
	*pass = get_be32(p + 1);
	*running = p[5];
	return 0;
}

int frontier_pass_put(struct frontier *f, MDB_txn *txn, uint32_t pass,
		      bool running)
{
	unsigned char v[PASS_REC_LEN];
	v[0] = PASS_REC_VERSION;
	put_be32(v + 1, pass);
	v[5] = running;
	MDB_val key = { sizeof(pass_key) - 1, (void *)pass_key };
	MDB_val val = { sizeof(v), v };
	return db_rc(mdb_put(txn, f->meta, &key, &val, 0));
}
