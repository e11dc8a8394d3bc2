/* cmd-store.c — a store opened for reading by the commands that only read
 * it (export, report, rules): see commands.h. */
#include <errno.h>
#include <string.h>

#include "commands.h"

const char *cmd_reason(int rc)
{
	return rc == SC_E_IO ? strerror(errno) : sc_strerror(rc);
}

int cmd_store_read(const char *cmd, const char *dir, struct cmd_store *ret)
{
	memset(ret, 0, sizeof(*ret));
	int rc = store_env_open(dir, STORE_RDONLY, &ret->env);
	if (rc == SC_E_NOTFOUND) {
		sc_errorf(cmd, "%s: no store there", dir);
		return -1;
	} else if (rc) {
		sc_errorf(cmd, "%s: cannot open the store: %s", dir,
			  cmd_reason(rc));
		return -1;
	}
	int mrc = mdb_txn_begin(ret->env, NULL, MDB_RDONLY, &ret->txn);
	if (mrc) {
		sc_errorf(cmd, "%s: cannot read the store: %s", dir,
			  mdb_strerror(mrc));
		cmd_store_close(ret);
		return -1;
	}
	rc = store_open(ret->env, ret->txn, &ret->s);
	if (rc == SC_E_NOTFOUND) {
		sc_errorf(cmd, "%s: the store holds no records database", dir);
		cmd_store_close(ret);
		return -1;
	} else if (rc) {
		sc_errorf(cmd, "%s: cannot open the records: %s", dir,
			  cmd_reason(rc));
		cmd_store_close(ret);
		return -1;
	}
	return 0;
}

void cmd_store_close(struct cmd_store *cs)
{
	if (cs->txn)
		mdb_txn_abort(cs->txn);
	store_close(cs->s);
	store_env_close(cs->env);
	memset(cs, 0, sizeof(*cs));
}
