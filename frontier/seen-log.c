/* seen-log.c — the seen set's recent keys, appended to a log and merged
 * into sorted sets in bulk: a middle one, then the big one (store format
 * 4; format 3 had no middle set).
 *
 * Why.  Every new URL is a new key of the seen set, and in a B-tree of
 * millions of keys a new key lands on a leaf page of its own: once the
 * set has many more leaves than a writer's commit has new keys (about a
 * million URLs), each new URL dirtied a 4 KB page, which the commit
 * copied, wrote and synced.  The frontier's CPU per page grew with its
 * size (docs/bench.md: +127 % from 10 k to 10 M URLs, the
 * commit's page writes and LMDB's dirty-page list at the top of the
 * profile).  Here a new key costs an append, and the big set takes keys
 * in sorted runs of a million or more, so that a leaf page written by a
 * merge holds many new keys: at 10 M URLs about one page for every 15.
 *
 * The data.
 *
 *   LMDB "frontier.seen"       url key (sc_url_key(), 16 bytes) ->
 *                               category (2 bytes): the big set.
 *   LMDB "frontier.seen.mid"   the same: the middle set.  A key is in
 *                               one of the two sets, or in the log.
 *   LMDB "frontier.seen.log0", "frontier.seen.log1"
 *                               generation (4 bytes) | position (4) ->
 *                               category (2) | url key (16), or empty: a
 *                               forgotten key (a tombstone).  Generation
 *                               g lives in log (g & 1); positions count
 *                               from 0 in the order of the appends.
 *   memory, the active generation: an open-addressing table of 8-byte
 *     slots, the key's first 4 bytes over position + 1 (0: empty).  The
 *     slot is found from those 4 bytes, high bits first, so the table is
 *     nearly in key order; a lookup compares the 4 bytes in memory and
 *     reads the log record (one LMDB get) only when they match, so a new
 *     key costs no read of the log.  It doubles at 70 % full.
 *   memory, the frozen generation: the same slots, sorted, found by
 *     binary search; the merge walks them in order.
 *
 * The life of a generation.  Keys are appended to the active one.  At the
 * commit that leaves it with recent_max keys or more, and no frozen one
 * left, it is frozen (its table sorted in place) and a new active one
 * begins in the other log.  Each writer transaction that appends keys
 * merges two frozen keys for every key appended, in chunks of up to 4096
 * consecutive slots, each chunk's keys read from the log, sorted and put
 * with a cursor, so a chunk touches only the leaves of its key range; the
 * frozen generation is all merged when the active one is half full, and
 * the transaction that merges its last key drops its log.  A lookup
 * tries the active table, the frozen index, then the middle set and the
 * big set.
 *
 * The middle set.  A generation merged into the big set writes about one
 * page for each of the set's leaves (at 10 M URLs 100,000 leaves for 1.3
 * M keys, the page copied, written and synced), so its cost per key grew
 * with the set: the crawl's CPU a page was +36 % from 10 k to 10 M URLs,
 * +21 % with no merges at all (docs/bench.md).  A
 * generation is merged into the middle set instead (once the big set
 * holds MIDDLE_FROM generations: below that the three more B-tree
 * operations a key costs outweigh the pages saved), whose few leaves it
 * writes, until the middle set holds middle_max() keys: then the next
 * generation goes into the big set, and the middle set's keys with it,
 * chunk by chunk in key order (a chunk takes the middle keys up to its own
 * last key), so the big set's leaves are written once for many keys.
 * middle_max() balances the two costs: sqrt(2 x big x recent_max) keys,
 * at 100 M URLs about 16 M, a third of the pages format 3 wrote a key.
 *
 * Crashes.  The log commits with the queue entries its keys came with; a
 * merge chunk commits with the writer's transaction.  After a kill -9 the
 * open finds the generations from the logs' keys (the higher one is the
 * active one), rebuilds the table and the frozen index from them without
 * the keys a sorted set holds already, and merges the rest again, so a
 * merge cut short is merely repeated.  A middle key moves to the big set
 * in one transaction (taken out, put in), and whether a generation drains
 * the middle set is decided again at the open: a drain cut short leaves
 * keys in both sets, each in one.  A forgotten key is a tombstone in its
 * log and gone from the sorted sets, so no repeated merge brings it back.
 *
 * Memory.  At most recent_max active keys (16 MB of table at the
 * default) and, while a merge is under way, the frozen index (8 bytes a
 * key), whatever the size of the set; and the sorted sets' filter, which
 * does follow them: 10-15 bits a key, 64 MiB at most (below).  The middle set
 * is in LMDB only.  A lookup of a key the filter passes searches the
 * middle set, then the big one. */
#include "frontier-int.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>

#define LOG_KEY_LEN 8
#define LOG_VAL_LEN (2 + SC_KEY_LEN)
#define TABLE_MIN 4096u
#define MERGE_CHUNK 4096u
/* A step merges at least this many keys, or an eighth of recent_max if
 * less (unless it finishes the generation): a short run would touch as
 * many pages as keys. */
#define MERGE_MIN 1024u
/* The big set's size, in generations (recent_max), from which merges go
 * through the middle set.  A key that does costs three more B-tree
 * operations (put into the middle set, taken out, put into the big one);
 * a generation merged straight into the big set writes about its leaves,
 * one for 99 keys: that costs more than the operations once the big set
 * holds some 20-30 generations (bench-frontier: the middle set from the
 * start was 1.17x CPU an offer at 10 M URLs, 0.99x at 30 M, 0.68x at 100
 * M; docs/bench.md). */
#define MIDDLE_FROM 24u

struct merge_item {
	unsigned char key[SC_KEY_LEN];
	uint16_t category;
};

struct seen_log {
	MDB_dbi seen, mid, log[2];
	/* This generation's merge goes into the big set (draining), and
	 * takes the middle set with it unless that is empty (merge_start());
	 * else into the middle set. */
	bool draining, with_mid;
	pthread_mutex_t *lock;
	uint32_t recent_max;

	/* The active generation: its table, records (next position). */
	uint32_t gen;
	uint64_t *slot;
	uint32_t cap, bits; /* cap = 2^bits */
	uint32_t n, n_committed;

	/* The frozen generation (gen - 1): sorted slots, merge position. */
	bool has_frozen;
	uint64_t *frozen;
	uint32_t n_frozen;
	uint32_t merged, merged_committed;
	bool dropped, dropped_committed;

	uint64_t debt; /* keys to merge, two per append */
	struct merge_item *scratch;

	/* The sorted sets' filter (filter_*()): FILTER_PROBES bits of a block
	 * of 512 for each key, in blocks sized for f_cap keys (f_keys
	 * taken); NULL when memory failed (every key may be there). */
	uint64_t *filter;
	uint64_t blocks;
	uint64_t f_keys, f_cap;
};

static uint32_t key_top(const unsigned char *key)
{
	return get_be32(key);
}

static uint64_t make_slot(uint32_t top, uint32_t pos)
{
	return (uint64_t)top << 32 | (uint64_t)(pos + 1);
}

static uint32_t slot_pos(uint64_t v)
{
	return (uint32_t)v - 1;
}

static int db_err(int mdb_rc)
{
	int rc = store_db_error(mdb_rc);
	return rc ? rc : SC_E_DB;
}

/* The sorted sets' filter: a blocked Bloom filter of the keys the big
 * set and the middle set hold, so that a new URL, which they do not hold,
 * costs no search of their B-trees.  At 10 M URLs that search (mdb_get() in
 * seen_put_logged(), one for nearly every link of a page) was 9.5 % of
 * the crawl's CPU and growing with the set (docs/bench.md),
 * while the filter answers from one cache line of memory.
 * A key's FILTER_PROBES bits are in one block of 512 bits (8 words)
 * chosen by the key's hash.  The filter is sized for f_cap keys, half as
 * many again as the set held when it was built, at FILTER_BITS bits
 * each: 10 to 15 bits a key of the set, so that about one new key in
 * 100 (10 bits) to one in 600 (15) still searches the B-tree, in vain.  Bits
 * are only set: a key forgotten, or merged by a transaction that was aborted,
 * leaves its bits, which cost a search at most.  The filter holds every key of
 * the sorted sets: built at open from them, it takes each key a merge puts (a
 * middle key moving to the big set has its bits already), and it is built
 * again from them when its keys pass f_cap, so a key costs a few
 * reads of the set on the whole.  Writer only.  Memory: 12.5-19 MB at 10 M
 * URLs, 64 MiB at most (FILTER_MAX_BYTES). */
#define FILTER_BITS 10u
/* The largest filter: 64 MiB, 54 M keys at FILTER_BITS; past them the
 * filter keeps its size, and at 100 M keys (5.4 bits a key) about one new
 * key in 10 searches the set. */
#define FILTER_MAX_BYTES ((uint64_t)64 << 20)
#define FILTER_PROBES 6u
/* The fewest keys a filter is sized for: a quarter of a generation of
 * the log (recent_max), or this many. */
#define FILTER_MIN_KEYS 64u

/* A key's block and probe bits: the key is a hash already (XXH3-128 of
 * the URL, sc_url_key()), its first 4 bytes for the block and the last 8
 * for the probes.  The block is the first 4 bytes' share of the filter
 * (big-endian, scaled by the number of blocks), so keys in their order
 * have their blocks in order: a merge's sorted keys, a build's walk of
 * the set and a batch's new URLs (sorted by frontier_add_batch_cat())
 * each walk the filter forward, which the processor's prefetch follows,
 * where a block by the key modulo the blocks missed the cache at each key
 * (the bit set in the merge was 2.4 % of the crawl's CPU at 10 M URLs).
 * At most 2^20 blocks (FILTER_MAX_BYTES), so the product fits. */
static void filter_bits(const unsigned char *key, uint64_t blocks,
			uint64_t *block, uint64_t *probes)
{
	uint64_t lo;
	memcpy(&lo, key + 8, sizeof(lo));
	*block = ((uint64_t)get_be32(key) * blocks) >> 32;
	*probes = lo;
}

static void filter_add(struct seen_log *s, const unsigned char *key)
{
	s->f_keys++;
	if (!s->filter)
		return;
	uint64_t b, p;
	filter_bits(key, s->blocks, &b, &p);
	uint64_t *w = s->filter + b * 8;
	for (unsigned i = 0; i < FILTER_PROBES; i++, p >>= 9)
		w[(p & 511) >> 6] |= 1ull << (p & 63);
}

bool seen_log_may_hold(const struct seen_log *s, const unsigned char *key)
{
	if (!s->filter)
		return true;
	uint64_t b, p;
	filter_bits(key, s->blocks, &b, &p);
	const uint64_t *w = s->filter + b * 8;
	for (unsigned i = 0; i < FILTER_PROBES; i++, p >>= 9)
		if (!(w[(p & 511) >> 6] & 1ull << (p & 63)))
			return false;
	return true;
}

/* The filter takes every key of set dbi: 0, 1 if a key is not of this
 * format (no filter then), or an sc_err of LMDB. */
static int filter_walk(struct seen_log *s, MDB_txn *txn, MDB_dbi dbi)
{
	MDB_cursor *c;
	int rc = mdb_cursor_open(txn, dbi, &c);
	if (rc)
		return db_err(rc);
	MDB_val k, v;
	for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
		if (k.mv_size != SC_KEY_LEN) {
			rc = 1;
			break;
		}
		filter_add(s, k.mv_data);
	}
	mdb_cursor_close(c);
	return rc == MDB_NOTFOUND ? 0 : rc == 1 ? 1 : db_err(rc);
}

/* The keys of the big set and of the middle set, as txn sees them: 0 or
 * an sc_err of LMDB. */
static int sets_count(const struct seen_log *s, MDB_txn *txn, uint64_t *big,
		      uint64_t *mid)
{
	MDB_stat st, sm;
	int rc = mdb_stat(txn, s->seen, &st);
	if (!rc)
		rc = mdb_stat(txn, s->mid, &sm);
	if (rc)
		return db_err(rc);
	*big = st.ms_entries;
	*mid = sm.ms_entries;
	return 0;
}

/* (Re)build the filter from the sorted sets (the big one and the middle
 * one) as txn sees them, sized for half as many keys again.  Without
 * memory, no filter (every key may be held); returns 0 or an sc_err of
 * LMDB. */
static int filter_build(struct seen_log *s, MDB_txn *txn)
{
	uint64_t big, mid;
	int rc = sets_count(s, txn, &big, &mid);
	if (rc)
		return rc;
	uint64_t cap = (big + mid) * 3 / 2;
	if (cap < s->recent_max / 4)
		cap = s->recent_max / 4;
	if (cap < FILTER_MIN_KEYS)
		cap = FILTER_MIN_KEYS;
	uint64_t blocks = (cap * FILTER_BITS + 511) / 512;
	if (blocks > FILTER_MAX_BYTES / 64) {
		/* As large as it gets: fewer bits a key from here on, and no
		 * more rebuilds. */
		blocks = FILTER_MAX_BYTES / 64;
		cap = UINT64_MAX;
	}
	free(s->filter);
	s->filter = calloc(blocks * 8, sizeof(uint64_t));
	s->blocks = blocks;
	s->f_cap = cap;
	s->f_keys = 0;
	if (!s->filter)
		return 0; /* tried again once f_cap more keys were merged */
	rc = filter_walk(s, txn, s->seen);
	if (!rc)
		rc = filter_walk(s, txn, s->mid);
	if (rc == 1) {
		/* Not a key of this format: no filter. */
		free(s->filter);
		s->filter = NULL;
		rc = 0;
	}
	return rc;
}

static void table_put(uint64_t *t, uint32_t bits, uint64_t v)
{
	uint32_t mask = (1u << bits) - 1;
	uint32_t i = (uint32_t)(v >> 32) >> (32 - bits);
	while (t[i])
		i = (i + 1) & mask;
	t[i] = v;
}

/* A table of 2^bits slots holding the slots of old (old_cap of them)
 * whose position is under limit. */
static uint64_t *table_make(uint32_t bits, const uint64_t *old,
			    uint32_t old_cap, uint32_t limit)
{
	uint64_t *t = calloc((size_t)1 << bits, sizeof(*t));
	if (!t)
		return NULL;
	for (uint32_t i = 0; i < old_cap; i++)
		if (old[i] && slot_pos(old[i]) < limit)
			table_put(t, bits, old[i]);
	return t;
}

/* Read the record of generation gen at pos: 1 (*val), 0 if txn does not
 * see it, or an sc_err. */
static int log_read(struct seen_log *s, MDB_txn *txn, uint32_t gen,
		    uint32_t pos, MDB_val *val)
{
	unsigned char k[LOG_KEY_LEN];
	put_be32(k, gen);
	put_be32(k + 4, pos);
	MDB_val key = { sizeof(k), k };
	int rc = mdb_get(txn, s->log[gen & 1], &key, val);
	if (rc == MDB_NOTFOUND)
		return 0;
	return rc ? db_err(rc) : 1;
}

/* Is the record of (gen, pos) the live record of key?  1, 0, or sc_err. */
static int log_match(struct seen_log *s, MDB_txn *txn, uint32_t gen,
		     uint32_t pos, const unsigned char *key, uint16_t *category)
{
	MDB_val v;
	int rc = log_read(s, txn, gen, pos, &v);
	if (rc <= 0)
		return rc;
	if (v.mv_size == 0)
		return 0; /* forgotten */
	if (v.mv_size != LOG_VAL_LEN)
		return SC_E_CORRUPT;
	const unsigned char *p = v.mv_data;
	if (memcmp(p + 2, key, SC_KEY_LEN) != 0)
		return 0;
	if (category)
		*category = get_be16(p);
	return 1;
}

int seen_log_find(struct seen_log *s, MDB_txn *txn, const unsigned char *key,
		  uint16_t *category, struct seen_log_at *at)
{
	uint32_t top = key_top(key);
	uint32_t mask = s->cap - 1;
	for (uint32_t i = top >> (32 - s->bits); s->slot[i];
	     i = (i + 1) & mask) {
		if ((uint32_t)(s->slot[i] >> 32) != top)
			continue;
		uint32_t pos = slot_pos(s->slot[i]);
		int rc = log_match(s, txn, s->gen, pos, key, category);
		if (rc < 0)
			return rc;
		if (rc) {
			if (at)
				*at = (struct seen_log_at){ s->gen, pos };
			return 1;
		}
	}
	if (!s->has_frozen)
		return 0;
	/* The first frozen slot of this top, by binary search. */
	uint64_t lo_v = (uint64_t)top << 32;
	uint32_t lo = 0, hi = s->n_frozen;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->frozen[mid] < lo_v)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t i = lo;
	     i < s->n_frozen && (uint32_t)(s->frozen[i] >> 32) == top; i++) {
		uint32_t pos = slot_pos(s->frozen[i]);
		int rc = log_match(s, txn, s->gen - 1, pos, key, category);
		if (rc < 0)
			return rc;
		if (rc) {
			if (at)
				*at = (struct seen_log_at){ s->gen - 1, pos };
			return 1;
		}
	}
	return 0;
}

int seen_log_append(struct seen_log *s, MDB_txn *txn, const unsigned char *key,
		    uint16_t category)
{
	if (s->n == UINT32_MAX - 1)
		return SC_E_FULL;
	/* Room first: a failed append leaves the table as it was. */
	if ((uint64_t)(s->n + 1) * 10 > (uint64_t)s->cap * 7) {
		uint64_t *t = table_make(s->bits + 1, s->slot, s->cap, s->n);
		if (!t)
			return SC_E_NOMEM;
		pthread_mutex_lock(s->lock);
		free(s->slot);
		s->slot = t;
		s->bits++;
		s->cap <<= 1;
		pthread_mutex_unlock(s->lock);
	}
	unsigned char k[LOG_KEY_LEN], v[LOG_VAL_LEN];
	put_be32(k, s->gen);
	put_be32(k + 4, s->n);
	put_be16(v, category);
	memcpy(v + 2, key, SC_KEY_LEN);
	MDB_val mk = { sizeof(k), k }, mv = { sizeof(v), v };
	int rc = mdb_put(txn, s->log[s->gen & 1], &mk, &mv, MDB_APPEND);
	if (rc)
		return db_err(rc);
	pthread_mutex_lock(s->lock);
	table_put(s->slot, s->bits, make_slot(key_top(key), s->n));
	pthread_mutex_unlock(s->lock);
	s->n++;
	s->debt += 2;
	return 0;
}

int seen_log_set(struct seen_log *s, MDB_txn *txn, const struct seen_log_at *at,
		 uint16_t category, bool forget)
{
	MDB_val v;
	int rc = log_read(s, txn, at->gen, at->pos, &v);
	if (rc <= 0)
		return rc ? rc : SC_E_NOTFOUND;
	if (v.mv_size != LOG_VAL_LEN)
		return SC_E_CORRUPT;
	unsigned char nv[LOG_VAL_LEN];
	memcpy(nv, v.mv_data, sizeof(nv));
	put_be16(nv, category);
	unsigned char k[LOG_KEY_LEN];
	put_be32(k, at->gen);
	put_be32(k + 4, at->pos);
	MDB_val mk = { sizeof(k), k };
	MDB_val mv = { forget ? 0 : sizeof(nv), nv };
	rc = mdb_put(txn, s->log[at->gen & 1], &mk, &mv, 0);
	return rc ? db_err(rc) : 0;
}

static int item_cmp(const void *a, const void *b)
{
	const struct merge_item *x = a, *y = b;
	return memcmp(x->key, y->key, SC_KEY_LEN);
}

/* The middle set's first key moved into the big set (cursors big and
 * mid) if it comes before limit (SC_KEY_LEN bytes; NULL: any): 1, 0 if
 * not (or the middle set is empty), or an sc_err.  The middle set's first
 * key is always the next to move: the ones before it have moved. */
static int drain_one(MDB_cursor *big, MDB_cursor *mid,
		     const unsigned char *limit)
{
	MDB_val k, v;
	int rc = mdb_cursor_get(mid, &k, &v, MDB_FIRST);
	if (rc == MDB_NOTFOUND)
		return 0;
	if (rc)
		return db_err(rc);
	if (k.mv_size != SC_KEY_LEN || v.mv_size > SC_KEY_LEN)
		return SC_E_CORRUPT;
	if (limit && memcmp(k.mv_data, limit, SC_KEY_LEN) >= 0)
		return 0;
	unsigned char kb[SC_KEY_LEN], vb[SC_KEY_LEN];
	memcpy(kb, k.mv_data, SC_KEY_LEN);
	memcpy(vb, v.mv_data, v.mv_size);
	k.mv_data = kb;
	v.mv_data = vb;
	if ((rc = mdb_cursor_del(mid, 0)))
		return db_err(rc);
	rc = mdb_cursor_put(big, &k, &v, MDB_NOOVERWRITE);
	if (rc && rc != MDB_KEYEXIST)
		return db_err(rc);
	return 1;
}

/* Every middle key before limit (NULL: every one) into the big set. */
static int drain_before(MDB_cursor *big, MDB_cursor *mid,
			const unsigned char *limit)
{
	int rc;
	while ((rc = drain_one(big, mid, limit)) == 1)
		;
	return rc;
}

/* Merge frozen slots [from, to) into the set of cursor c: the middle set,
 * or (draining) the big set, with the middle set's keys (cursor mid) up
 * to the chunk's end, the last chunk all of them. */
static int merge_chunk(struct seen_log *s, MDB_txn *txn, MDB_cursor *c,
		       MDB_cursor *mid, uint32_t from, uint32_t to)
{
	size_t n = 0;
	for (uint32_t i = from; i < to; i++) {
		MDB_val v;
		int rc = log_read(s, txn, s->gen - 1, slot_pos(s->frozen[i]),
				  &v);
		if (rc < 0)
			return rc;
		if (rc == 0)
			return SC_E_CORRUPT; /* a frozen key without a record */
		if (v.mv_size == 0)
			continue; /* forgotten */
		if (v.mv_size != LOG_VAL_LEN)
			return SC_E_CORRUPT;
		const unsigned char *p = v.mv_data;
		memcpy(s->scratch[n].key, p + 2, SC_KEY_LEN);
		s->scratch[n].category = get_be16(p);
		n++;
	}
	/* The frozen slots are in the order of the keys' first 4 bytes, so
	 * the items are sorted but within runs of equal first bytes: an
	 * insertion sort puts them in order in about n comparisons, where
	 * qsort() made n log n. */
	for (size_t i = 1; i < n; i++) {
		if (item_cmp(&s->scratch[i - 1], &s->scratch[i]) <= 0)
			continue;
		struct merge_item it = s->scratch[i];
		size_t j = i;
		for (; j > 0 && item_cmp(&s->scratch[j - 1], &it) > 0; j--)
			s->scratch[j] = s->scratch[j - 1];
		s->scratch[j] = it;
	}
	for (size_t i = 0; i < n; i++) {
		int rc;
		if (mid && (rc = drain_before(c, mid, s->scratch[i].key)))
			return rc;
		unsigned char cat[2];
		put_be16(cat, s->scratch[i].category);
		MDB_val k = { SC_KEY_LEN, s->scratch[i].key };
		MDB_val v = { sizeof(cat), cat };
		rc = mdb_cursor_put(c, &k, &v, MDB_NOOVERWRITE);
		if (rc && rc != MDB_KEYEXIST)
			return db_err(rc);
		if (!rc)
			filter_add(s, s->scratch[i].key);
	}
	if (!mid)
		return 0;
	/* The chunk's end: the middle keys whose first 4 bytes are at most
	 * the last slot's (the next chunk's are at least that). */
	uint32_t top = (uint32_t)(s->frozen[to - 1] >> 32);
	if (to == s->n_frozen || top == UINT32_MAX)
		return drain_before(c, mid, NULL);
	unsigned char limit[SC_KEY_LEN] = { 0 };
	put_be32(limit, top + 1);
	return drain_before(c, mid, limit);
}

/* The size at which the middle set goes into the big set: where the pages
 * a generation's merge writes into the middle set (about its leaves, a
 * half of them on average) balance those a drain writes into the big set
 * (its leaves, once every middle/recent_max generations), that is
 * sqrt(2 * big * recent_max) keys, and two generations at least. */
static uint64_t middle_max(const struct seen_log *s, uint64_t big)
{
	uint64_t g = s->recent_max;
	uint64_t want = 2 * big * g, m = 2 * g;
	/* The integer square root of want, from below. */
	uint64_t hi = 1;
	while (hi <= want / hi)
		hi <<= 1;
	uint64_t lo = hi / 2;
	while (lo + 1 < hi) {
		uint64_t x = lo + (hi - lo) / 2;
		if (x <= want / x)
			lo = x;
		else
			hi = x;
	}
	return lo > m ? lo : m;
}

/* At a generation's first merge step: into the middle set; or (the middle
 * set at middle_max()) into the big set, draining the middle set; or,
 * while the big set holds fewer than MIDDLE_FROM generations and the
 * middle set is empty, straight into the big set, as format 3 did. */
static int merge_start(struct seen_log *s, MDB_txn *txn)
{
	uint64_t big, mid;
	int rc = sets_count(s, txn, &big, &mid);
	if (rc)
		return rc;
	s->with_mid = mid > 0;
	s->draining = s->with_mid ? mid >= middle_max(s, big)
				  : big < (uint64_t)MIDDLE_FROM * s->recent_max;
	return 0;
}

int seen_log_merge(struct seen_log *s, MDB_txn *txn)
{
	if (!s->has_frozen || s->dropped)
		return 0;
	uint32_t left = s->n_frozen - s->merged;
	uint64_t budget = s->debt;
	/* The active generation is full and the frozen one not yet merged
	 * (appends without steps): all of it now. */
	if (s->n >= s->recent_max)
		budget = left;
	uint32_t min = s->recent_max / 8 < MERGE_MIN ? s->recent_max / 8
						     : MERGE_MIN;
	if (budget < min && budget < left)
		return 0;
	s->debt = 0;
	if (s->f_keys > s->f_cap) {
		int rc = filter_build(s, txn);
		if (rc)
			return rc;
	}
	if (left) {
		int rc;
		if (s->merged == 0 && (rc = merge_start(s, txn)))
			return rc;
		if (!s->scratch &&
		    !(s->scratch = malloc(MERGE_CHUNK * sizeof(*s->scratch))))
			return SC_E_NOMEM;
		MDB_cursor *c, *m = NULL;
		if ((rc = mdb_cursor_open(txn, s->draining ? s->seen : s->mid,
					  &c)))
			return db_err(rc);
		if (s->draining && s->with_mid &&
		    (rc = mdb_cursor_open(txn, s->mid, &m))) {
			mdb_cursor_close(c);
			return db_err(rc);
		}
		while (budget && s->merged < s->n_frozen) {
			uint32_t k = s->n_frozen - s->merged;
			if (k > MERGE_CHUNK)
				k = MERGE_CHUNK;
			if (k > budget)
				k = (uint32_t)budget;
			if ((rc = merge_chunk(s, txn, c, m, s->merged,
					      s->merged + k)))
				break;
			s->merged += k;
			budget -= k;
		}
		if (m)
			mdb_cursor_close(m);
		mdb_cursor_close(c);
		if (rc)
			return rc;
	}
	if (s->merged == s->n_frozen) {
		int rc = mdb_drop(txn, s->log[(s->gen - 1) & 1], 0);
		if (rc)
			return db_err(rc);
		s->dropped = true;
	}
	return 0;
}

int seen_log_sets_get(const struct seen_log *s, MDB_txn *txn,
		      const unsigned char *key, MDB_val *val, MDB_dbi *where)
{
	MDB_val k = { SC_KEY_LEN, (void *)key };
	int rc = mdb_get(txn, s->mid, &k, val);
	if (rc == 0) {
		if (where)
			*where = s->mid;
		return 0;
	}
	if (rc != MDB_NOTFOUND)
		return rc;
	if (where)
		*where = s->seen;
	return mdb_get(txn, s->seen, &k, val);
}

int seen_log_sets_del(struct seen_log *s, MDB_txn *txn,
		      const unsigned char *key)
{
	MDB_val k = { SC_KEY_LEN, (void *)key };
	int rc = mdb_del(txn, s->mid, &k, NULL);
	if (rc != MDB_NOTFOUND)
		return rc;
	return mdb_del(txn, s->seen, &k, NULL);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The active generation becomes the frozen one; a new, empty one begins
 * in the other log (empty: the generation before was dropped). */
static void freeze(struct seen_log *s)
{
	uint64_t *t = calloc(TABLE_MIN, sizeof(*t));
	if (!t)
		return; /* the next commit tries again */
	uint32_t j = 0;
	for (uint32_t i = 0; i < s->cap; i++)
		if (s->slot[i])
			s->slot[j++] = s->slot[i];
	qsort(s->slot, j, sizeof(*s->slot), u64_cmp);
	uint64_t *fz = realloc(s->slot, (j ? j : 1) * sizeof(*fz));
	s->frozen = fz ? fz : s->slot;
	s->n_frozen = j;
	s->has_frozen = true;
	s->merged = s->merged_committed = 0;
	s->dropped = s->dropped_committed = false;
	s->slot = t;
	s->cap = TABLE_MIN;
	for (s->bits = 0; (1u << s->bits) < TABLE_MIN; s->bits++)
		;
	s->gen++;
	s->n = s->n_committed = 0;
	s->debt = 0;
}

void seen_log_published(struct seen_log *s)
{
	s->n_committed = s->n;
	s->merged_committed = s->merged;
	s->dropped_committed = s->dropped;
	if (s->has_frozen && s->dropped) {
		free(s->frozen);
		s->frozen = NULL;
		s->n_frozen = 0;
		s->has_frozen = false;
		s->merged = s->merged_committed = 0;
		s->dropped = s->dropped_committed = false;
	}
	if (!s->has_frozen && s->n >= s->recent_max)
		freeze(s);
}

void seen_log_discarded(struct seen_log *s)
{
	s->merged = s->merged_committed;
	s->dropped = s->dropped_committed;
	if (s->n == s->n_committed)
		return;
	/* Rebuild without the aborted appends; if memory fails, keep
	 * them: a slot whose record is not there matches nothing. */
	uint64_t *t = table_make(s->bits, s->slot, s->cap, s->n_committed);
	pthread_mutex_lock(s->lock);
	if (t) {
		free(s->slot);
		s->slot = t;
	}
	pthread_mutex_unlock(s->lock);
	/* Appends resume at the first aborted position: with the slots
	 * kept (no memory), such a slot may point at a later record,
	 * which the lookup compares whole. */
	s->n = s->n_committed;
}

void seen_log_state(const struct seen_log *s, uint32_t *gen, uint32_t *n,
		    uint32_t *frozen_left)
{
	*gen = s->gen;
	*n = s->n;
	*frozen_left = s->has_frozen && !s->dropped ? s->n_frozen - s->merged
						    : 0;
}

/* The generation of log d's records and its last position: 1 and the
 * two, 0 if it is empty, or an sc_err. */
static int log_span(MDB_txn *txn, MDB_dbi dbi, uint32_t *gen, uint32_t *last)
{
	MDB_cursor *c;
	int rc = mdb_cursor_open(txn, dbi, &c);
	if (rc)
		return db_err(rc);
	MDB_val k, v;
	rc = mdb_cursor_get(c, &k, &v, MDB_LAST);
	if (rc == 0) {
		if (k.mv_size != LOG_KEY_LEN) {
			rc = SC_E_CORRUPT;
		} else {
			*gen = get_be32(k.mv_data);
			*last = get_be32((const unsigned char *)k.mv_data + 4);
			rc = mdb_cursor_get(c, &k, &v, MDB_FIRST);
			rc = rc                            ? db_err(rc)
			     : get_be32(k.mv_data) != *gen ? SC_E_CORRUPT
							   : 1;
		}
	} else {
		rc = rc == MDB_NOTFOUND ? 0 : db_err(rc);
	}
	mdb_cursor_close(c);
	return rc;
}

/* Every record of log dbi through fn(s, txn, pos, val). */
static int log_walk(struct seen_log *s, MDB_txn *txn, MDB_dbi dbi,
		    int (*fn)(struct seen_log *, MDB_txn *, uint32_t,
			      const MDB_val *, uint64_t *),
		    uint64_t *live)
{
	MDB_cursor *c;
	int rc = mdb_cursor_open(txn, dbi, &c);
	if (rc)
		return db_err(rc);
	MDB_val k, v;
	int err = 0;
	for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
		if (k.mv_size != LOG_KEY_LEN ||
		    (v.mv_size != 0 && v.mv_size != LOG_VAL_LEN)) {
			err = SC_E_CORRUPT;
			break;
		}
		uint32_t pos = get_be32((const unsigned char *)k.mv_data + 4);
		if ((err = fn(s, txn, pos, &v, live)))
			break;
	}
	mdb_cursor_close(c);
	if (err)
		return err;
	return rc == MDB_NOTFOUND ? 0 : db_err(rc);
}

static int load_active(struct seen_log *s, MDB_txn *txn, uint32_t pos,
		       const MDB_val *v, uint64_t *live)
{
	(void)txn;
	if (v->mv_size == 0)
		return 0;
	while ((uint64_t)(pos + 1) * 10 > (uint64_t)s->cap * 7) {
		uint64_t *t = table_make(s->bits + 1, s->slot, s->cap,
					 UINT32_MAX);
		if (!t)
			return SC_E_NOMEM;
		free(s->slot);
		s->slot = t;
		s->bits++;
		s->cap <<= 1;
	}
	const unsigned char *p = v->mv_data;
	table_put(s->slot, s->bits, make_slot(key_top(p + 2), pos));
	(*live)++;
	return 0;
}

static int load_frozen(struct seen_log *s, MDB_txn *txn, uint32_t pos,
		       const MDB_val *v, uint64_t *live)
{
	if (v->mv_size == 0)
		return 0;
	const unsigned char *p = v->mv_data;
	/* Already merged before the crash: a sorted set answers for it. */
	MDB_val d;
	int rc = seen_log_sets_get(s, txn, p + 2, &d, NULL);
	if (rc == 0)
		return 0;
	if (rc != MDB_NOTFOUND)
		return db_err(rc);
	if ((s->n_frozen & (s->n_frozen - 1)) == 0) {
		uint32_t cap = s->n_frozen ? 2 * s->n_frozen : 1;
		uint64_t *fz = realloc(s->frozen, cap * sizeof(*fz));
		if (!fz)
			return SC_E_NOMEM;
		s->frozen = fz;
	}
	s->frozen[s->n_frozen++] = make_slot(key_top(p + 2), pos);
	(*live)++;
	return 0;
}

int seen_log_open(MDB_txn *txn, MDB_dbi seen, uint32_t recent_max,
		  pthread_mutex_t *lock, struct seen_log **ret, uint64_t *live)
{
	struct seen_log *s = calloc(1, sizeof(*s));
	if (!s)
		return SC_E_NOMEM;
	s->seen = seen;
	s->lock = lock;
	s->recent_max = recent_max ? recent_max : SEEN_RECENT_DEFAULT;
	s->cap = TABLE_MIN;
	for (s->bits = 0; (1u << s->bits) < TABLE_MIN; s->bits++)
		;
	*live = 0;
	int rc = SC_E_NOMEM;
	if (!(s->slot = calloc(s->cap, sizeof(*s->slot))))
		goto fail;
	rc = SC_E_DB;
	MDB_stat sm;
	if (mdb_dbi_open(txn, "frontier.seen.mid", MDB_CREATE, &s->mid) ||
	    mdb_dbi_open(txn, "frontier.seen.log0", MDB_CREATE, &s->log[0]) ||
	    mdb_dbi_open(txn, "frontier.seen.log1", MDB_CREATE, &s->log[1]) ||
	    mdb_stat(txn, s->mid, &sm))
		goto fail;
	*live = sm.ms_entries;

	uint32_t gen[2] = { 0, 0 }, last[2] = { 0, 0 };
	int has[2];
	for (int d = 0; d < 2; d++) {
		if ((rc = has[d] = log_span(txn, s->log[d], &gen[d],
					    &last[d])) < 0)
			goto fail;
		if (has[d] && (gen[d] & 1) != (uint32_t)d) {
			rc = SC_E_CORRUPT;
			goto fail;
		}
	}
	/* The active generation is the higher; the other, if any, is the
	 * frozen one, just under it. */
	int a = has[0] && (!has[1] || gen[0] > gen[1]) ? 0 : 1;
	s->gen = has[a] ? gen[a] : 1;
	s->n = s->n_committed = has[a] ? last[a] + 1 : 0;
	if (has[a] && (rc = log_walk(s, txn, s->log[a], load_active, live)))
		goto fail;
	if (has[!a]) {
		rc = SC_E_CORRUPT;
		if (!has[a] || gen[!a] + 1 != gen[a])
			goto fail;
		s->has_frozen = true;
		if ((rc = log_walk(s, txn, s->log[!a], load_frozen, live)))
			goto fail;
		qsort(s->frozen, s->n_frozen, sizeof(*s->frozen), u64_cmp);
	}
	if ((rc = filter_build(s, txn)))
		goto fail;
	*ret = s;
	return 0;
fail:
	seen_log_close(s);
	return rc;
}

void seen_log_close(struct seen_log *s)
{
	if (!s)
		return;
	free(s->slot);
	free(s->frozen);
	free(s->scratch);
	free(s->filter);
	free(s);
}
