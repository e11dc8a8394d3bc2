/* store.c — the LMDB environment and the records database (store.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store-int.h"

/* The default ceiling of the data file (store_env_open_max()).  The map
 * is address space only: the file grows as pages are written.  On a
 * 32-bit system the address space allows far less. */
#define MAP_SIZE_64 ((size_t)64 << 30)
#define MAP_SIZE_32 ((size_t)1 << 30)
#define MAP_SIZE_MIN ((size_t)1 << 20)
/* The lock file LMDB makes for 126 readers, its default: 8 KiB. */
#define LOCK_FILE_MIN ((off_t)8192)

/* The last LMDB failure of this thread and what it was translated to,
 * for store_strerror(). */
static _Thread_local int last_mdb_rc, last_rc;

static int translate(int mdb_rc)
{
	switch (mdb_rc) {
	case 0: return 0;
	case MDB_NOTFOUND: return SC_E_NOTFOUND;
	case ENOMEM: return SC_E_NOMEM;
	case MDB_MAP_FULL: return SC_E_FULL;
	case MDB_CORRUPTED:
	case MDB_INVALID:
	case MDB_PAGE_NOTFOUND:
	case MDB_VERSION_MISMATCH: return SC_E_CORRUPT;
	default:
		if (mdb_rc > 0) {
			errno = mdb_rc;
			return SC_E_IO;
		}
		return SC_E_DB;
	}
}

int store_db_error(int mdb_rc)
{
	int rc = translate(mdb_rc);
	if (rc && mdb_rc != MDB_NOTFOUND) {
		last_mdb_rc = mdb_rc;
		last_rc = rc;
	}
	return rc;
}

const char *store_strerror(int rc)
{
	static _Thread_local char msg[256];
	if (!rc || !last_mdb_rc || rc != last_rc)
		return sc_strerror(rc);
	int saved = errno; /* mdb_strerror() of an errno value may set it */
	snprintf(msg, sizeof(msg), "%s (%s)", sc_strerror(rc),
		 mdb_strerror(last_mdb_rc));
	errno = saved;
	return msg;
}

int store_last_errno(void)
{
	return last_mdb_rc > 0 ? last_mdb_rc : 0;
}

int store_txn_begin(MDB_env *env, unsigned flags, MDB_txn **ret)
{
	last_mdb_rc = last_rc = 0;
	if (!env || !ret)
		return SC_E_INVAL;
	return store_db_error(mdb_txn_begin(env, NULL, flags, ret));
}

int store_txn_commit(MDB_txn *txn)
{
	if (!txn)
		return SC_E_INVAL;
	return store_db_error(mdb_txn_commit(txn));
}

int store_env_open(const char *dir, unsigned flags, MDB_env **ret)
{
	return store_env_open_max(dir, flags, 0, ret);
}

int store_env_open_max(const char *dir, unsigned flags, uint64_t max_bytes,
		       MDB_env **ret)
{
	if (!dir || !*dir || !ret || (flags & ~STORE_RDONLY) ||
	    (max_bytes && (max_bytes < MAP_SIZE_MIN || max_bytes > SIZE_MAX)))
		return SC_E_INVAL;
	bool rdonly = flags & STORE_RDONLY;

	struct stat st;
	if (stat(dir, &st) != 0) {
		if (errno != ENOENT)
			return SC_E_IO;
		if (rdonly)
			return SC_E_NOTFOUND;
		if (mkdir(dir, 0750) != 0 && errno != EEXIST)
			return SC_E_IO;
	} else if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return SC_E_IO;
	}
	if (rdonly) {
		/* LMDB would report a missing data file as ENOENT, which the
		 * caller could not tell from a missing directory. */
		char path[4096];
		int n = snprintf(path, sizeof(path), "%s/data.mdb", dir);
		if (n < 0 || (size_t)n >= sizeof(path)) {
			errno = ENAMETOOLONG;
			return SC_E_IO;
		}
		if (stat(path, &st) != 0)
			return errno == ENOENT ? SC_E_NOTFOUND : SC_E_IO;
	}

	/* LMDB maps lock.mdb and writes its reader table through the map: on
	 * a full disk a sparse lock file is a SIGBUS there.  Its blocks are
	 * allocated first, so a full disk is ENOSPC here instead. */
	if (!rdonly) {
		char lpath[4096];
		int n = snprintf(lpath, sizeof(lpath), "%s/lock.mdb", dir);
		if (n < 0 || (size_t)n >= sizeof(lpath)) {
			errno = ENAMETOOLONG;
			return SC_E_IO;
		}
		int lfd = open(lpath, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
		if (lfd < 0)
			return SC_E_IO;
		off_t size = lseek(lfd, 0, SEEK_END);
		int frc = posix_fallocate(
			lfd, 0, size > LOCK_FILE_MIN ? size : LOCK_FILE_MIN);
		close(lfd);
		/* Filesystems without fallocate(2) keep the old risk. */
		if (frc && frc != EOPNOTSUPP && frc != EINVAL) {
			errno = frc;
			return SC_E_IO;
		}
	}

	MDB_env *env;
	int rc = mdb_env_create(&env);
	if (rc)
		return store_db_error(rc);
	size_t map = max_bytes             ? (size_t)max_bytes
		     : sizeof(size_t) >= 8 ? MAP_SIZE_64
					   : MAP_SIZE_32;
	/* A reader takes the size the writer last committed (0: the meta
	 * page's), which covers every committed page. */
	rc = mdb_env_set_mapsize(env, rdonly ? 0 : map);
	if (!rc)
		rc = mdb_env_set_maxdbs(env, STORE_MAX_DBS);
	if (!rc)
		rc = mdb_env_open(env, dir,
				  MDB_NOTLS | (rdonly ? MDB_RDONLY : 0), 0640);
	if (rc) {
		int err = store_db_error(rc);
		int saved = errno;
		mdb_env_close(env);
		errno = saved;
		return err;
	}
	*ret = env;
	return 0;
}

void store_env_close(MDB_env *env)
{
	if (env)
		mdb_env_close(env);
}

int store_open(MDB_env *env, MDB_txn *txn, struct store **ret)
{
	if (!env || !txn || !ret || mdb_txn_env(txn) != env)
		return SC_E_INVAL;
	unsigned env_flags = 0;
	int rc = mdb_env_get_flags(env, &env_flags);
	if (rc)
		return store_db_error(rc);
	struct store *s = calloc(1, sizeof(*s));
	if (!s)
		return SC_E_NOMEM;
	/* MDB_CREATE is harmless in a read-only transaction when the database
	 * exists; when it does not, LMDB returns EACCES there, which is
	 * reported as SC_E_NOTFOUND below. */
	unsigned open_flags = (env_flags & MDB_RDONLY) ? 0 : MDB_CREATE;
	rc = mdb_dbi_open(txn, "records", open_flags, &s->records);
	if (rc) {
		free(s);
		return rc == EACCES ? SC_E_NOTFOUND : store_db_error(rc);
	}
	rc = store_index_open(s, txn, open_flags & MDB_CREATE);
	if (!rc)
		rc = store_focus_open(s, txn, open_flags & MDB_CREATE);
	if (!rc)
		rc = store_robots_open(s, txn, open_flags & MDB_CREATE);
	if (!rc)
		rc = store_adapt_open(s, txn, open_flags & MDB_CREATE);
	if (rc) {
		free(s);
		return rc;
	}
	*ret = s;
	return 0;
}

int store_dbi_open_opt(MDB_txn *txn, const char *name, unsigned flags,
		       bool create, MDB_dbi *dbi, bool *present)
{
	int rc = mdb_dbi_open(txn, name, flags | (create ? MDB_CREATE : 0),
			      dbi);
	/* Not there, in a read-only transaction (EACCES when MDB_CREATE was
	 * asked of one). */
	*present = rc == 0;
	if (rc == MDB_NOTFOUND || rc == EACCES)
		return 0;
	return store_db_error(rc);
}

void store_close(struct store *s)
{
	free(s);
}

int store_put(struct store *s, MDB_txn *txn, const struct store_record *r)
{
	if (!s || !txn || !r)
		return SC_E_INVAL;
	size_t size;
	int rc = store_record_size(r, &size);
	if (rc)
		return rc;
	unsigned char key[SC_KEY_LEN];
	sc_url_key(r->normalized, r->normalized_len, key);
	MDB_val k = { SC_KEY_LEN, key }, v = { size, NULL };
	rc = mdb_put(txn, s->records, &k, &v, MDB_RESERVE);
	if (rc)
		return store_db_error(rc);
	size_t written;
	rc = store_record_encode(r, v.mv_data, size, &written);
	/* store_record_size() already accepted r, so this cannot fail; if it
	 * ever did, the reserved value would hold garbage, so say so. */
	if (rc || written != size)
		return SC_E_DB;
	return 0;
}

/* Decodes V and checks that it belongs under KEY. */
static int decode_checked(const MDB_val *k, const MDB_val *v,
			  struct store_record *ret)
{
	if (k->mv_size != SC_KEY_LEN)
		return SC_E_CORRUPT;
	int rc = store_record_decode(v->mv_data, v->mv_size, ret);
	if (rc)
		return rc;
	unsigned char want[SC_KEY_LEN];
	sc_url_key(ret->normalized, ret->normalized_len, want);
	if (memcmp(want, k->mv_data, SC_KEY_LEN) != 0)
		return SC_E_CORRUPT;
	return 0;
}

int store_get(struct store *s, MDB_txn *txn,
	      const unsigned char key[SC_KEY_LEN], struct store_record *ret)
{
	if (!s || !txn || !key || !ret)
		return SC_E_INVAL;
	MDB_val k = { SC_KEY_LEN, (void *)key }, v;
	int rc = mdb_get(txn, s->records, &k, &v);
	if (rc)
		return store_db_error(rc);
	return decode_checked(&k, &v, ret);
}

int store_del(struct store *s, MDB_txn *txn,
	      const unsigned char key[SC_KEY_LEN])
{
	if (!s || !txn || !key)
		return SC_E_INVAL;
	MDB_val k = { SC_KEY_LEN, (void *)key };
	return store_db_error(mdb_del(txn, s->records, &k, NULL));
}

int store_count(struct store *s, MDB_txn *txn, size_t *ret)
{
	if (!s || !txn || !ret)
		return SC_E_INVAL;
	MDB_stat st;
	int rc = mdb_stat(txn, s->records, &st);
	if (rc)
		return store_db_error(rc);
	*ret = st.ms_entries;
	return 0;
}

int store_foreach(struct store *s, MDB_txn *txn,
		  int (*fn)(void *arg, const struct store_record *r), void *arg)
{
	if (!s || !txn || !fn)
		return SC_E_INVAL;
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, s->records, &cur);
	if (rc)
		return store_db_error(rc);
	MDB_val k, v;
	int ret = 0;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		struct store_record r;
		ret = decode_checked(&k, &v, &r);
		if (ret)
			break;
		ret = fn(arg, &r);
		if (ret)
			break;
	}
	if (!ret && rc != MDB_NOTFOUND)
		ret = store_db_error(rc);
	mdb_cursor_close(cur);
	return ret;
}
