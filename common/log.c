/* log.c — see log.h. */
#include "log.h"

#include <event2/event.h>
#include <getopt.h>
#include <stdarg.h>
#include <string.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

/* libevent's own messages: at most this many a second reach the log; the
 * others are counted, and the count said with the next message after the
 * second is over. */
#define LIBEVENT_LINES_PER_S 10

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

static void libevent_log(int severity, const char *msg);

void log_init(const char *cmd, bool daemon, bool verbose)
{
	command = cmd;
	as_daemon = daemon;
	to_journal = daemon && stderr_is_journal();
	verbose_on = verbose;
	event_set_log_callback(libevent_log);
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

/* libevent's messages ("[warn] ..." on stderr by default) take the one
 * path, with a level and a bound: a condition it meets in a loop (its
 * accept() failing, say) must not flood the journal.  It may call this
 * from any thread, hence the lock; and never a libevent function from in
 * here (event_set_log_callback()). */
static void libevent_log(int severity, const char *msg)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static time_t second;
	static unsigned lines, dropped;
	int level = severity == EVENT_LOG_DEBUG  ? LOG_DEBUG
		    : severity == EVENT_LOG_MSG  ? LOG_INFO
		    : severity == EVENT_LOG_WARN ? LOG_WARNING
						 : LOG_ERR;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&mu);
	if (now.tv_sec != second) {
		if (dropped)
			log_msg(LOG_WARNING,
				"libevent: %u more messages not logged",
				dropped);
		second = now.tv_sec;
		lines = dropped = 0;
	}
	bool show = lines < LIBEVENT_LINES_PER_S;
	if (show)
		lines++;
	else
		dropped++;
	pthread_mutex_unlock(&mu);
	if (show)
		log_msg(level, "libevent: %s", msg);
}

void sc_errorf(const char *cmd, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_cmd_msg(cmd, LOG_ERR, "%s", line);
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
