/* cmd-export.c — `sigcrawl export`: every record of a store, as JSONL or
 * CSV, on stdout.
 *
 * The store is opened read-only and read in one read transaction, so the
 * output is a consistent snapshot even while a crawl writes to the store.
 * Records come in key order, which is the order of the URLs' hashes. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "conf.h"
#include "store.h"

#define CMD "export"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sigcrawl export [--store DIR | -c FILE] [--format jsonl|csv]\n"
		"\n"
		"Writes every URL record of the store to stdout: one JSON object\n"
		"per line (jsonl, the default), or CSV with a header line (RFC\n"
		"4180, CRLF line ends).  The store is only read, as one snapshot:\n"
		"a crawl may write to it meanwhile.\n"
		"\n"
		"  -s, --store DIR     the store directory (default: the config's)\n"
		"  -c, --config FILE   take the store from this config file's\n"
		"                      [crawl] store\n"
		"  -f, --format F      jsonl (default) or csv\n"
		"  -h, --help          this text\n"
		"\n"
		"Without --store and -c, the store is the default config's,\n"
		"" CONF_DEFAULT_STORE ".\n"
		"\n"
		"Exit status: 0 success, 1 the store cannot be read, 2 bad usage\n"
		"or a bad config file.\n");
}

static int print_jsonl(void *arg, const struct store_record *r)
{
	return store_export_jsonl(r, arg);
}

static int print_csv(void *arg, const struct store_record *r)
{
	return store_export_csv(r, arg);
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "store", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *config = NULL, *format = "jsonl";
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:c:f:h", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 's': dir = optarg; break;
		case 'c': config = optarg; break;
		case 'f': format = optarg; break;
		case 'h': usage(stdout); return EXIT_OK;
		default:
			cmd_option_error(CMD, c, argv, longopts);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		sc_errorf(CMD, "unexpected argument '%s' (see --help)",
			  argv[optind]);
		return EXIT_USAGE;
	}
	bool csv;
	if (strcmp(format, "jsonl") == 0) {
		csv = false;
	} else if (strcmp(format, "csv") == 0) {
		csv = true;
	} else {
		sc_errorf(CMD, "unknown format '%s' (jsonl or csv)", format);
		return EXIT_USAGE;
	}
	char *dir_owned = NULL;
	int status = cmd_store_dir(CMD, dir, config, &dir_owned);
	if (status)
		return status;
	dir = dir_owned;

	struct cmd_store cs;
	status = EXIT_RUNTIME;
	if (cmd_store_read(CMD, dir, &cs))
		goto out;

	static char outbuf[1 << 16];
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	if (csv && store_export_csv_header(stdout) != 0) {
		sc_errorf(CMD, "writing stdout failed");
		goto out;
	}
	int rc = store_foreach(cs.s, cs.txn, csv ? print_csv : print_jsonl,
			       stdout);
	if (rc == SC_E_IO) {
		sc_errorf(CMD, "writing stdout failed");
		goto out;
	} else if (rc) {
		sc_errorf(CMD, "%s: reading the records failed: %s", dir,
			  cmd_reason(rc));
		goto out;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		sc_errorf(CMD, "writing stdout failed");
		goto out;
	}
	status = EXIT_OK;
out:
	cmd_store_close(&cs);
	free(dir_owned);
	return status;
}
