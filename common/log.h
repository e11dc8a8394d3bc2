/* log.h — the one path every message of sigcrawl takes to stderr.
 *
 * A command in the foreground writes "sigcrawl CMD: line" (the command
 * named by log_init(), or the one given to log_cmd_msg()).  The daemon
 * (log_init(..., daemon true)) writes one line per event: when stderr is
 * the journal ($JOURNAL_STREAM names it), each line starts with
 * sd-daemon's "<N>" level prefix, which journald turns into the entry's
 * priority; otherwise with "sigcrawl: error: " and the like.  Info and
 * debug lines are written only when verbose.  The progress line of a
 * foreground crawl goes through log_progress(), so that a message written
 * while it stands on a terminal starts on a line of its own. */
#ifndef LOG_H
#define LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <getopt.h>
#include <syslog.h>

#include "sc.h"

/* Decide the command, the prefixes and the verbosity; main() calls it
 * once for the command, serve again for the daemon.  cmd is borrowed and
 * must outlive the logging.  libevent's own messages are routed here too
 * (event_set_log_callback()): "libevent: ..." at their level, at most 10
 * a second, the others counted in a line that says so. */
void log_init(const char *cmd, bool daemon, bool verbose);

/* level: LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO or LOG_DEBUG. */
void log_msg(int level, const char *fmt, ...) SC_PRINTF(2, 3);

/* The same, naming another command than log_init()'s (usage errors of a
 * command reached through another). */
void log_cmd_msg(const char *cmd, int level, const char *fmt, ...)
	SC_PRINTF(3, 4);

/* The progress line: on a terminal (tty) written in place and left open
 * until the next one, unless final; else a line of its own. */
void log_progress(const char *line, bool tty, bool final);

/* A command's exit status (SPEC §2): 0 success, 1 runtime failure, 2 bad
 * usage or bad config. */
enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* Print "sigcrawl CMD: message" to stderr. */
void sc_errorf(const char *cmd, const char *fmt, ...) SC_PRINTF(2, 3);

/* Say on stderr what is wrong with the option getopt_long() just refused
 * (it returned c, '?' or ':'; the caller's optstring begins with ':', after
 * a '+' if any, so that a missing value returns ':'): "--store needs an
 * argument", or "bad option '--frob' (see --help)".  longopts are the
 * ones given to getopt_long(). */
void cmd_option_error(const char *cmd, int c, char **argv,
		      const struct option *longopts);

#endif
