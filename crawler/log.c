/* log.c — see log.h. */
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static const char *command;
static bool as_daemon, to_journal, verbose_on;
/* A progress line stands unfinished on the terminal. */
static bool line_open;

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

void log_init(const char *cmd, bool daemon, bool verbose)
{
	command = cmd;
	as_daemon = daemon;
	to_journal = daemon && stderr_is_journal();
	verbose_on = verbose;
}

static SC_PRINTF(3, 0) void emit(const char *cmd, int level, const char *fmt,
				 va_list ap)
{
	if (level >= LOG_INFO && !verbose_on)
		return;
	char line[1024];
	vsnprintf(line, sizeof(line), fmt, ap);
	if (line_open) {
		fputc('\n', stderr);
		line_open = false;
	}
	if (to_journal) {
		fprintf(stderr, "<%d>%s\n", level, line);
	} else if (as_daemon) {
		const char *tag = level <= LOG_ERR       ? "error: "
				  : level == LOG_WARNING ? "warning: "
				  : level == LOG_DEBUG   ? "debug: "
							 : "";
		fprintf(stderr, "sigcrawl: %s%s\n", tag, line);
	} else if (cmd) {
		fprintf(stderr, "sigcrawl %s: %s\n", cmd, line);
	} else {
		fprintf(stderr, "sigcrawl: %s\n", line);
	}
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(command, level, fmt, ap);
	va_end(ap);
}

void log_cmd_msg(const char *cmd, int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(cmd, level, fmt, ap);
	va_end(ap);
}

void log_progress(const char *line, bool tty, bool final)
{
	if (tty) {
		fprintf(stderr, "\r\033[K%s%s", line, final ? "\n" : "");
		line_open = !final;
	} else {
		fprintf(stderr, "%s\n", line);
	}
}
