/* commands.h — the subcommands of the sigcrawl executable.
 *
 * Each takes the arguments after its name (argv[0] is the subcommand's
 * name) and returns the process exit status: 0 success, 1 runtime failure,
 * 2 bad usage or bad config (SPEC §2). */
#ifndef COMMANDS_H
#define COMMANDS_H

#include "log.h"
#include "sc.h"
#include "store.h"

int cmd_normalize(int argc, char **argv);
int cmd_crawl(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_search(int argc, char **argv);
int cmd_index(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_status(int argc, char **argv);

/* A store opened read-only, in one read transaction: a consistent
 * snapshot even while a crawl or the daemon writes to it. */
struct cmd_store {
	MDB_env *env;
	MDB_txn *txn;
	struct store *s;
};

/* Open the store in dir for cmd; on failure say why on stderr ("no store
 * there", "cannot read the store: ...") and return -1 with *ret empty.
 * cmd_store_close() accepts an empty one. */
int cmd_store_read(const char *cmd, const char *dir, struct cmd_store *ret);
void cmd_store_close(struct cmd_store *cs);

/* A message for an sc_err code; for SC_E_IO the system's reason. */
const char *cmd_reason(int rc);

/* The store directory of a command that reads one (export, report,
 * rules, search, index; SPEC §2): dir (--store) when given, else the
 * `[crawl] store` of the config file (-c FILE), else the default config's.
 * Sets *ret to a malloc'ed path and returns EXIT_OK, or says why on
 * stderr and returns EXIT_USAGE (a bad config file, with FILE:LINE) or
 * EXIT_RUNTIME (out of memory). */
int cmd_store_dir(const char *cmd, const char *dir, const char *config,
		  char **ret);

#endif
