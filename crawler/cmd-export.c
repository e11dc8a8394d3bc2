/* cmd-export.c — `sigcrawl export`: every record of a store, as JSONL or
 * CSV, on stdout.
 *
 * The store is opened read-only and read in one read transaction, so the
 * output is a consistent snapshot even while a crawl writes to the store.
 * Records come in key order, which is the order of the URLs' hashes. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "store.h"

#define CMD "export"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sigcrawl export --store DIR [--format jsonl|csv]\n"
		"\n"
		"Writes every URL record of the store in DIR to stdout: one JSON\n"
		"object per line (jsonl, the default), or CSV with a header line\n"
		"(RFC 4180, CRLF line ends).  The store is only read.\n"
		"\n"
		"  -s, --store DIR     the store directory (required for now)\n"
		"  -f, --format F      jsonl (default) or csv\n"
		"  -h, --help          this text\n"
		"\n"
		"Exit status: 0 success, 1 the store cannot be read, 2 bad usage.\n");
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
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *format = "jsonl";
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "s:f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's': dir = optarg; break;
		case 'f': format = optarg; break;
		case 'h': usage(stdout); return EXIT_OK;
		default:
			sc_errorf(CMD, "bad option '%s' (see --help)",
				  argv[optind - 1]);
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
	if (!dir || !*dir) {
		/* Config files (-c FILE) come later; until then the store
		 * must be named. */
		sc_errorf(CMD, "no store given: use --store DIR");
		return EXIT_USAGE;
	}

	struct cmd_store cs;
	int status = EXIT_RUNTIME;
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
	return status;
}
