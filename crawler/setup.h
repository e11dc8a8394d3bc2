/* setup.h — the options shared by `crawl` and `serve`: the config file,
 * the command-line overrides on top of it, and the crawl_opts built from
 * the result.  `serve` builds a new setup from the same arguments on
 * SIGHUP, so a reload means "the file as it is now, with the same
 * overrides". */
#ifndef SETUP_H
#define SETUP_H

#include <stdbool.h>

#include "conf.h"
#include "crawl.h"

struct setup {
	const char *cmd; /* "crawl" or "serve", for messages */
	int argc;        /* the subcommand's arguments, kept for reloads */
	char **argv;
	const char *config; /* -c FILE, or NULL */
	const char *seeds, *category;
	bool quiet, verbose;
	bool check_config; /* --check-config: setup_load(), then exit */
	bool recrawl;      /* crawl --recrawl */
	/* After setup_load(): */
	struct conf *cf;
	struct crawl_category *cats;
	struct crawl_opts o;
	char ua[64];
};

/* The first pass over the arguments: -c, --help (usage() is called with
 * stdout, and *exit_code set to 0) and the options that are not config
 * overrides.  Options of the other command are refused, and so is `serve
 * --seeds -` (standard input).  Returns 0 to go on, or 1 with *exit_code
 * set (0 or EXIT_USAGE, message printed). */
int setup_args(struct setup *s, const char *cmd, int argc, char **argv,
	       void (*usage)(FILE *), int *exit_code);

/* Read the config (or the defaults), apply the overrides, check that the
 * seed lists can be read (conf_check_seeds(): what --check-config checks
 * is what the run needs) and build s->o.  Returns 0, or SC_E_INVAL (bad
 * config, option or seed list: err holds the message, FILE:LINE for the
 * file), SC_E_IO or SC_E_NOMEM. */
SC_WUR int setup_load(struct setup *s, char *err, size_t errlen);

/* Free what setup_load() made.  Accepts a setup that was never loaded. */
void setup_free(struct setup *s);

/* The usage lines of the shared options, for the commands' --help. */
void setup_usage_options(FILE *f);

/* A crawl category from a [category] section (its strings stay the
 * config's). */
void category_from_conf(struct crawl_category *c,
			const struct conf_category *cc);

#endif
