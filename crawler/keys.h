/* keys.h — which normalization a store's keys were made with, inside
 * crawler/ (not a module of its own).
 *
 * Every URL in a store is kept under its key, the URL as the run that
 * found it normalized it, and a key is never derived again (a leased key
 * is split where it stands, frontier.h).  Another normalization writes
 * other keys for the same URLs: URLs queued or fetched under the old keys
 * would be queued again under new ones, fetched twice, and equal pages
 * would no longer meet in the seen set.  So the normalization (profile,
 * effective steps, tracking list) is recorded in the store when it is
 * created (frontier_norm_put()), and a run with another one is refused
 * (SC_E_PROFILE, exit status 2) with a message that names both and says
 * what the operator can do.  README.md ("Changing the normalization")
 * explains why sigcrawl refuses rather than re-keying the store.
 *
 * Adaptive normalization (SPEC §7) will key URLs by per-host rules learned
 * during the crawl: those keys are stored the same way and never derived
 * again either, and the rules will be recorded in the store beside this
 * record, which is why adaptive and the fixed profiles never mix here. */
#ifndef KEYS_H
#define KEYS_H

#include <lmdb.h>
#include <stdbool.h>
#include <stddef.h>

#include "frontier.h"
#include "normalize.h"
#include "store.h"

/* A normalization as a run asks for it. */
struct keys_norm {
	enum norm_profile profile; /* as named, for messages and adaptive */
	const struct norm_opts *opts;
};

/* Do a and b write the same key for every URL?  The same steps, the same
 * tracking list when remove_tracking_params is among them, and adaptive
 * in both or in neither (adaptive keys also depend on the store's rules).
 * The profile names may differ: extended plus "+lowercase_path" is
 * aggressive minus the steps that tell them apart. */
bool keys_same(const struct keys_norm *a, const struct keys_norm *b);

/* Write "aggressive" or "strict with steps +lowercase_path,-remove_fragment"
 * (the steps that differ from the profile's) into out (cap bytes). */
void keys_describe(enum norm_profile profile, uint32_t steps, char *out,
		   size_t cap);

/* Check the run's normalization n against the store, in txn (the write
 * transaction that opened the store and the frontier; the caller commits
 * it):
 *
 *   - a store that recorded one: 0 if keys_same(), else SC_E_PROFILE;
 *   - a new store (nothing queued or recorded): n is recorded, 0;
 *   - a store written before the normalization was recorded: every key it
 *     queued or recorded is normalized with n; if each comes back
 *     unchanged (a fixed point, as keys n wrote itself always are), n is
 *     recorded and *adopted set, else SC_E_PROFILE.
 *
 * On SC_E_PROFILE, msg (cap bytes) says what differs and fix what the
 * operator can do, each one line without a trailing newline.  Returns 0,
 * SC_E_PROFILE, or SC_E_DB, SC_E_CORRUPT, SC_E_NOMEM. */
SC_WUR int keys_check(MDB_txn *txn, struct store *s, struct frontier *f,
		      const struct keys_norm *n, bool *adopted, char *msg,
		      char *fix, size_t cap);

#endif
