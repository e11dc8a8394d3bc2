/* log.h — the daemon's log: one line per event on stderr.
 *
 * When stderr is the journal ($JOURNAL_STREAM names it), each line starts
 * with sd-daemon's "<N>" level prefix, which journald turns into the
 * entry's priority; otherwise with "sigcrawl: error: " and the like.
 * Info and debug lines are written only when verbose. */
#ifndef LOG_H
#define LOG_H

#include <stdbool.h>
#include <syslog.h>

#include "sc.h"

/* Decide the prefixes and the verbosity; call once before logging. */
void log_init(bool verbose);

/* level: LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO or LOG_DEBUG. */
void log_msg(int level, const char *fmt, ...) SC_PRINTF(2, 3);

#endif
