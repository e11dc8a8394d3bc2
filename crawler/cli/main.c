/* main.c — the sigcrawl executable: dispatch to a subcommand. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "crawl.h"
#include "daemon.h"
#include "log.h"

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "crawl", cmd_crawl,
	  "crawl breadth-first from seeds into a store; rerun to resume" },
	{ "serve", cmd_serve,
	  "the daemon: crawl continuously, take seeds on the control socket" },
	{ "submit", cmd_submit, "submit seed URLs to the running daemon" },
	{ "status", cmd_status, "print the running daemon's state as JSON" },
	{ "normalize", cmd_normalize,
	  "normalize URLs, one per line, from stdin to stdout" },
	{ "export", cmd_export,
	  "print every record of a store as JSONL or CSV" },
	{ "report", cmd_report,
	  "URL reduction, redundancy, coverage loss and truth metrics" },
	{ "search", cmd_search,
	  "keyword search over the crawled pages, duplicates collapsed" },
	{ "rules", cmd_rules,
	  "the rewrite rules an adaptive crawl learned, with their evidence" },
	{ "index", cmd_index,
	  "reconcile the search index with the store's records" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: sigcrawl COMMAND [options]\n"
		   "       sigcrawl --version\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++)
		fprintf(f, "  %-12s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(f, "\nEvery command has --help.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
	    strcmp(cmd, "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("sigcrawl %s\n", SC_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++)
		if (strcmp(cmd, commands[i].name) == 0) {
			log_init(commands[i].name, false, false);
			int rc = commands[i].run(argc - 1, argv + 1);
			crawl_creds_wipe();
			return rc;
		}
	log_msg(LOG_ERR, "unknown command '%s'\n", cmd);
	usage(stderr);
	return EXIT_USAGE;
}
