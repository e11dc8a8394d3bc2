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

void cmd_option_error(const char *cmd, int c, char **argv,
		      const struct option *longopts)
{
	/* getopt_long() has stepped over a long option's whole word, so it
	 * is argv[optind - 1]; a short one may sit inside a cluster ("-jx")
	 * whose word is not behind optind yet, so it is named by optopt.
	 * optopt is 0 for an unknown long option and the option's val for a
	 * known one, which tells a long option's word from the word before
	 * a failing cluster. */
	const char *word = optind > 0 ? argv[optind - 1] : "";
	size_t n = strcspn(word, "=");
	bool is_long = strncmp(word, "--", 2) == 0 && n > 2;
	if (is_long && optopt) {
		is_long = false;
		for (const struct option *o = longopts; o && o->name; o++)
			if (strncmp(o->name, word + 2, n - 2) == 0 &&
			    o->val == optopt)
				is_long = true;
	}
	char name[64];
	if (is_long)
		snprintf(name, sizeof(name), "%.*s", (int)(n < 60 ? n : 60),
			 word);
	else if (optopt > ' ' && optopt < 0x7f)
		snprintf(name, sizeof(name), "-%c", optopt);
	else
		snprintf(name, sizeof(name), "%.60s", word);
	if (c == ':')
		sc_errorf(cmd, "%s needs an argument (see --help)", name);
	else if (is_long && optopt && word[n] == '=')
		sc_errorf(cmd, "%s takes no argument (see --help)", name);
	else
		sc_errorf(cmd, "bad option '%.60s' (see --help)",
			  is_long && !optopt ? word : name);
}
