/* log.c — see log.h. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static bool to_journal;
static bool verbose_on;

/* $JOURNAL_STREAM is "DEVICE:INODE" of the stream systemd connected to
 * the journal; it is inherited, so it counts only if stderr is still
 * that stream (sd-daemon(3)). */
static bool stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2 ||
	    fstat(2, &st) != 0)
		return false;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void log_init(bool verbose)
{
	to_journal = stderr_is_journal();
	verbose_on = verbose;
}

void log_msg(int level, const char *fmt, ...)
{
	if (level >= LOG_INFO && !verbose_on)
		return;
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (to_journal) {
		fprintf(stderr, "<%d>%s\n", level, line);
		return;
	}
	const char *tag = level <= LOG_ERR       ? "error: "
			  : level == LOG_WARNING ? "warning: "
			  : level == LOG_DEBUG   ? "debug: "
						 : "";
	fprintf(stderr, "sigcrawl: %s%s\n", tag, line);
}
