/* store-int.h — what the files of store/ share and nobody else sees. */
#ifndef STORE_INT_H
#define STORE_INT_H

#include "store.h"

struct store {
	MDB_dbi records;
	MDB_dbi sigs;    /* signature -> representative's normalized URL */
	MDB_dbi simhash; /* (table, block) -> hash | seq | rep key, dupsort */
	bool has_index;  /* sigs and simhash are open (else: absent, read-only)
			  */
	MDB_dbi focus;   /* categories, counters, second categories */
	bool has_focus;  /* focus is open (else: absent, read-only) */
	MDB_dbi robots;  /* robots.txt URL key -> the last answer */
	bool has_robots; /* robots is open (else: absent, read-only) */
	MDB_dbi adapt;   /* adaptive normalization's rules and evidence */
	bool has_adapt;  /* adapt is open (else: absent, read-only) */
};

/* Opens the database NAME of TXN with FLAGS, and MDB_CREATE when CREATE,
 * into *dbi.  A database that is not there in a read-only transaction (a
 * store written before it existed) is no error: *present says whether it
 * was opened.  Returns 0 or a code of store_db_error(). */
int store_dbi_open_opt(MDB_txn *txn, const char *name, unsigned flags,
		       bool create, MDB_dbi *dbi, bool *present);

/* Opens the focus database (focus-db.c), as store_index_open(). */
int store_focus_open(struct store *s, MDB_txn *txn, bool create);

/* Opens the robots.txt cache (robots-cache.c), as store_index_open(). */
int store_robots_open(struct store *s, MDB_txn *txn, bool create);

/* Opens the adapt database (adapt-db.c), as store_index_open(). */
int store_adapt_open(struct store *s, MDB_txn *txn, bool create);

/* Opens the index databases of S in TXN (sigindex.c); CREATE as for
 * mdb_dbi_open().  Absent databases in a read-only transaction leave
 * has_index false and return 0. */
int store_index_open(struct store *s, MDB_txn *txn, bool create);

#endif
