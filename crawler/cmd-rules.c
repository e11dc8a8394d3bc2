/* cmd-rules.c — `sigcrawl rules`: the per-host rewrite rules an adaptive
 * crawl has learned (SPEC §7), each with its state and its evidence.
 *
 * The store is opened read-only and read in one read transaction, so the
 * list is a consistent snapshot even while a crawl or the daemon writes.
 * A store crawled under a fixed profile lists no rules. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapt.h"
#include "commands.h"
#include "conf.h"
#include "store.h"

#define CMD "rules"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sigcrawl rules [--store DIR | -c FILE] [--json]\n"
		"\n"
		"Lists the rewrite rules that an adaptive crawl (profile adaptive)\n"
		"learned on its hosts: candidates gathering evidence, active rules\n"
		"applied before fetching, rules retired by a counter-example found\n"
		"while they applied, and candidates refuted before they applied.\n"
		"Each with its support (documents that two of its URLs gave),\n"
		"counter-examples, audits (held-back URLs fetched all the same),\n"
		"audits that failed, URLs it holds back and the fetches it saved.\n"
		"A rule marked \"transferred\" applied on less support than\n"
		"[adaptive] min_support because its kind holds on other hosts.\n"
		"\n"
		"  -s, --store DIR     the store directory (default: the config's)\n"
		"  -c, --config FILE   take the store from this config file's\n"
		"                      [crawl] store (without either: the default\n"
		"                      config's, " CONF_DEFAULT_STORE ")\n"
		"  -j, --json          one JSON object per rule and line\n"
		"  -h, --help          this text\n"
		"\n"
		"Exit status: 0 success, 1 the store cannot be read, 2 bad usage\n"
		"or a bad config file.\n");
}

struct totals {
	uint64_t by_state[4];
	uint64_t saved;
	bool json;
};

static int print_rule(void *arg, const struct adapt_rule_info *r)
{
	struct totals *t = arg;
	if (r->state < 4)
		t->by_state[r->state]++;
	if (r->state == ADAPT_ACTIVE)
		t->saved += r->saved;
	if (!t->json) {
		printf("%-5u %-9s %-28s %s%s\n", r->id,
		       adapt_state_name(r->state), r->host, r->text,
		       r->transferred ? " (transferred)" : "");
		printf("      support %llu, counter-examples %llu, audits %llu "
		       "(%llu failed), held %llu, saved %llu\n",
		       (unsigned long long)r->support,
		       (unsigned long long)r->counters,
		       (unsigned long long)r->audits,
		       (unsigned long long)r->audit_failures,
		       (unsigned long long)r->held,
		       (unsigned long long)r->saved);
		if (r->counter_a[0])
			printf("      counter-example: %s and %s\n",
			       r->counter_a, r->counter_b);
		return ferror(stdout) ? SC_E_IO : 0;
	}
	json_t *o = json_object();
	json_t *ce = r->counter_a[0]
			     ? json_pack("[s,s]", r->counter_a, r->counter_b)
			     : json_null();
	if (!o || !ce || json_object_set_new(o, "id", json_integer(r->id)) ||
	    json_object_set_new(o, "host", json_string(r->host)) ||
	    json_object_set_new(o, "rule", json_string(r->text)) ||
	    json_object_set_new(o, "state",
				json_string(adapt_state_name(r->state))) ||
	    json_object_set_new(o, "support",
				json_integer((json_int_t)r->support)) ||
	    json_object_set_new(o, "transferred",
				json_boolean(r->transferred)) ||
	    json_object_set_new(o, "counter_examples",
				json_integer((json_int_t)r->counters)) ||
	    json_object_set_new(o, "counter_example", ce) ||
	    json_object_set_new(o, "audits",
				json_integer((json_int_t)r->audits)) ||
	    json_object_set_new(o, "audit_failures",
				json_integer((json_int_t)r->audit_failures)) ||
	    json_object_set_new(o, "held", json_integer((json_int_t)r->held)) ||
	    json_object_set_new(o, "saved",
				json_integer((json_int_t)r->saved)) ||
	    json_object_set_new(o, "created_ms",
				json_integer((json_int_t)r->created_ms)) ||
	    json_object_set_new(o, "changed_ms",
				json_integer((json_int_t)r->changed_ms))) {
		json_decref(o);
		return SC_E_NOMEM;
	}
	int rc = json_dumpf(o, stdout, JSON_COMPACT) || putchar('\n') == EOF
			 ? SC_E_IO
			 : 0;
	json_decref(o);
	return rc;
}

int cmd_rules(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "store", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *config = NULL;
	struct totals t = { 0 };
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:c:jh", longopts, NULL)) != -1) {
		switch (c) {
		case 's': dir = optarg; break;
		case 'c': config = optarg; break;
		case 'j': t.json = true; break;
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
	char *dir_owned = NULL;
	int status = cmd_store_dir(CMD, dir, config, &dir_owned);
	if (status)
		return status;
	dir = dir_owned;

	struct cmd_store cs;
	status = EXIT_RUNTIME;
	if (cmd_store_read(CMD, dir, &cs))
		goto out;
	if (!t.json)
		printf("%-5s %-9s %-28s %s\n", "id", "state", "host", "rule");
	int rc = adapt_list(cs.s, cs.txn, print_rule, &t);
	if (rc == SC_E_IO) {
		sc_errorf(CMD, "writing stdout failed");
		goto out;
	} else if (rc) {
		sc_errorf(CMD, "%s: reading the rules failed: %s", dir,
			  cmd_reason(rc));
		goto out;
	}
	if (!t.json)
		printf("%llu active, %llu candidates, %llu retired, %llu "
		       "refuted; %llu fetches saved, summed over the active rules (a URL "
		       "two rules held counts for both)\n",
		       (unsigned long long)t.by_state[ADAPT_ACTIVE],
		       (unsigned long long)t.by_state[ADAPT_CANDIDATE],
		       (unsigned long long)t.by_state[ADAPT_RETIRED],
		       (unsigned long long)t.by_state[ADAPT_REFUTED],
		       (unsigned long long)t.saved);
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
