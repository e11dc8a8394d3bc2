/* commands.h — the subcommands of the sigcrawl executable.
 *
 * Each takes the arguments after its name (argv[0] is the subcommand's
 * name) and returns the process exit status: 0 success, 1 runtime failure,
 * 2 bad usage or bad config (SPEC §2). */
#ifndef COMMANDS_H
#define COMMANDS_H

#include "sc.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

int cmd_normalize(int argc, char **argv);
int cmd_crawl(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_search(int argc, char **argv);
int cmd_index(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_status(int argc, char **argv);

/* Print "sigcrawl CMD: message" to stderr. */
void sc_errorf(const char *cmd, const char *fmt, ...) SC_PRINTF(2, 3);

#endif
