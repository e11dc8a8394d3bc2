/* frontier-int.h — the frontier's parts shared inside frontier/ only.
 *
 * The seen set's recent keys (format 4, seen-log.c): new URL keys are
 * appended to a log in LMDB and found through a bounded table in memory,
 * then merged in large sorted runs into a middle sorted set, which goes
 * into the big one when it has grown.  See
 * seen-log.c for the layout and the reasons. */
#ifndef FRONTIER_INT_H
#define FRONTIER_INT_H

#include <lmdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "sc.h"

struct seen_log;

/* The recent keys held before a generation is frozen and merged, unless
 * frontier_opts.seen_recent says otherwise: a table of 2^21 slots of 8
 * bytes (16 MB) at its fullest. */
#define SEEN_RECENT_DEFAULT (1u << 20 | 1u << 18)

/* Open the log of a format-4 store inside txn (a write transaction): the
 * databases "frontier.seen.mid", "frontier.seen.log0" and
 * "frontier.seen.log1", the table of
 * the active generation, and the frozen one's sorted index if a merge was
 * under way.  seen is the big seen set; lock the frontier's mutex, which
 * guards the table against frontier_seen_now() (held by seen_log while it
 * changes the table, and by the caller around seen_log_published()).
 * *live gets the number of keys the log and the middle set hold that
 * seen does not.
 * Returns 0 and the log in *ret, SC_E_DB, SC_E_CORRUPT or SC_E_NOMEM. */
SC_WUR int seen_log_open(MDB_txn *txn, MDB_dbi seen, uint32_t recent_max,
			 pthread_mutex_t *lock, struct seen_log **ret,
			 uint64_t *live);

/* Free the memory (not the databases).  Accepts NULL. */
void seen_log_close(struct seen_log *s);

/* Where a key was found in the log: its generation and position. */
struct seen_log_at {
	uint32_t gen, pos;
};

/* Look a key (SC_KEY_LEN bytes) up in the sorted sets, the middle one
 * ("frontier.seen.mid") first, then the big one, as txn sees them: 0, its
 * value in *val and (where not NULL) the set that holds it in *where; or
 * MDB_NOTFOUND, or another LMDB code.  Any thread with its own txn. */
SC_WUR int seen_log_sets_get(const struct seen_log *s, MDB_txn *txn,
			     const unsigned char *key, MDB_val *val,
			     MDB_dbi *where);

/* Take a key out of the sorted sets (writer, in its transaction): 0,
 * MDB_NOTFOUND if neither held it, or another LMDB code. */
SC_WUR int seen_log_sets_del(struct seen_log *s, MDB_txn *txn,
			     const unsigned char *key);

/* Look a key (SC_KEY_LEN bytes) up in the log's active and frozen
 * generations, as txn sees them.  Returns 1 (its category in *category,
 * its place in *at if at is not NULL), 0 if the log does not hold it, or
 * SC_E_DB.  Writer thread, or any thread holding the lock. */
SC_WUR int seen_log_find(struct seen_log *s, MDB_txn *txn,
			 const unsigned char *key, uint16_t *category,
			 struct seen_log_at *at);

/* May the big set hold key (SC_KEY_LEN bytes)?  false: it does not, as
 * the writer's transaction sees it (its filter, seen-log.c).  Writer. */
bool seen_log_may_hold(const struct seen_log *s, const unsigned char *key);

/* Append a key that neither the log nor the seen set holds (writer, in
 * its transaction).  Returns 0, SC_E_NOMEM or an LMDB failure as an
 * sc_err (SC_E_FULL). */
SC_WUR int seen_log_append(struct seen_log *s, MDB_txn *txn,
			   const unsigned char *key, uint16_t category);

/* Rewrite the record at at: its category, or (forget) a tombstone that
 * no lookup and no merge sees.  Returns 0 or an sc_err. */
SC_WUR int seen_log_set(struct seen_log *s, MDB_txn *txn,
			const struct seen_log_at *at, uint16_t category,
			bool forget);

/* Merge the frozen generation's keys into the middle set (or, when that
 * is full, into the big set with the middle set's keys: seen-log.c), as
 * many as the appends since the last step earned (two a key), in key
 * order and in chunks, and drop the frozen log once all are in.  Writer, in its
 * transaction.  Returns 0 or an sc_err. */
SC_WUR int seen_log_merge(struct seen_log *s, MDB_txn *txn);

/* After the writer's commit, with the lock held: what the transaction did
 * is kept; a frozen generation wholly merged is freed; a full active
 * generation is frozen and a new one begun. */
void seen_log_published(struct seen_log *s);

/* After the writer's transaction was aborted: forget what it did to the
 * memory (takes the lock). */
void seen_log_discarded(struct seen_log *s);

/* For tests: the active generation, its records, and the frozen
 * generation's keys still to merge (0 without one). */
void seen_log_state(const struct seen_log *s, uint32_t *gen, uint32_t *n,
		    uint32_t *frozen_left);

#endif
