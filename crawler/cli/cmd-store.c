/* cmd-store.c — what the commands that read a store share (export,
 * report, rules, search, index): finding the store, opening it for
 * reading, and the words for a refused option.  See commands.h. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "conf.h"

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

int cmd_store_dir(const char *cmd, const char *dir, const char *config,
		  char **ret)
{
	if (dir && !*dir) {
		sc_errorf(cmd, "--store: an empty directory name");
		return EXIT_USAGE;
	}
	if (dir) {
		*ret = strdup(dir);
		return *ret ? EXIT_OK : EXIT_RUNTIME;
	}
	struct conf *cf = NULL;
	char err[512];
	int rc = config ? conf_load(config, &cf, err, sizeof(err))
			: conf_default(&cf);
	if (rc) {
		sc_errorf(cmd, "%s",
			  config && rc != SC_E_NOMEM ? err : sc_strerror(rc));
		return rc == SC_E_NOMEM ? EXIT_RUNTIME : EXIT_USAGE;
	}
	*ret = strdup(cf->crawl.store);
	conf_free(cf);
	return *ret ? EXIT_OK : EXIT_RUNTIME;
}
