/* cmd-rules.c — `sigcrawl rules`: the per-host rewrite rules an adaptive
 * crawl has learned (SPEC §7).  By default a short table: the rules by
 * state, the fetches saved, and a line for each rule that applies or
 * applied (active, retired), most fetches saved first; --all lists every
 * rule with its evidence, candidates and refuted ones too; --json every
 * rule, one object a line.
 *
 * The store is opened read-only and read in one read transaction, so the
 * list is a consistent snapshot even while a crawl or the daemon writes.
 * A store crawled under a fixed profile lists no rules. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn.h"
#include "commands.h"
#include "conf.h"
#include "store.h"

#define CMD "rules"

/* The short table's rule lines at most. */
#define RULES_SHOWN 50
#define RULES_SHOWN_STR "50"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sigcrawl rules [--store DIR | -c FILE] [--all | --json]\n"
		"\n"
		"Shows the rewrite rules that an adaptive crawl (profile adaptive)\n"
		"learned on its hosts: candidates gathering evidence, active rules\n"
		"applied before fetching, rules retired by a counter-example found\n"
		"while they applied, and candidates refuted before they applied.\n"
		"\n"
		"By default a short table: the rules counted by state and the\n"
		"fetches saved, then a line for each active or retired rule, most\n"
		"fetches saved first (at most " RULES_SHOWN_STR
		"; the rest are counted): its host,\n"
		"support (documents that two of its URLs gave), audits (held-back\n"
		"URLs fetched all the same) and those that failed, URLs it holds\n"
		"back, fetches saved, and the rule.  \"transferred\" marks a rule\n"
		"that applied on less support than [adaptive] min_support because\n"
		"its kind holds on other hosts.\n"
		"\n"
		"Then the skip shapes ([adaptive] skip_noindex_nofollow): URL shapes\n"
		"of a host whose pages all said noindex and nofollow, with their\n"
		"support (such pages), audits and URLs skipped; in --json one object\n"
		"each, its \"kind\" \"skip_noindex_nofollow\".\n"
		"\n"
		"  -s, --store DIR     the store directory (default: the config's)\n"
		"  -c, --config FILE   take the store from this config file's\n"
		"                      [crawl] store (without either: the default\n"
		"                      config's, " CONF_DEFAULT_STORE ")\n"
		"  -a, --all           every rule, candidates and refuted ones too,\n"
		"                      with its counter-examples and its first one\n"
		"  -j, --json          every rule, one JSON object per rule and line\n"
		"                      (with or without --all)\n"
		"  -h, --help          this text\n"
		"\n"
		"Exit status: 0 success, 1 the store cannot be read, 2 bad usage\n"
		"or a bad config file.\n");
}

/* An active or retired rule, for the short table. */
struct row {
	uint32_t id;
	uint8_t state;
	bool transferred;
	uint64_t support, audits, audit_failures, held, saved;
	char host[NORM_HOST_MAX + 1];
	char text[sizeof(((struct adapt_rule_info *)0)->text)];
};

struct totals {
	uint64_t by_state[4];
	uint64_t saved;
	bool json, all;
	struct row *rows;
	size_t n_rows, cap_rows;
};

/* Keep r for the short table if it is active or retired. */
static int keep_row(struct totals *t, const struct adapt_rule_info *r)
{
	if (r->state != ADAPT_ACTIVE && r->state != ADAPT_RETIRED)
		return 0;
	if (t->n_rows == t->cap_rows) {
		size_t cap = t->cap_rows ? 2 * t->cap_rows : 64;
		struct row *v = realloc(t->rows, cap * sizeof(*v));
		if (!v)
			return SC_E_NOMEM;
		t->rows = v;
		t->cap_rows = cap;
	}
	struct row *w = &t->rows[t->n_rows++];
	w->id = r->id;
	w->state = r->state;
	w->transferred = r->transferred;
	w->support = r->support;
	w->audits = r->audits;
	w->audit_failures = r->audit_failures;
	w->held = r->held;
	w->saved = r->saved;
	snprintf(w->host, sizeof(w->host), "%s", r->host);
	snprintf(w->text, sizeof(w->text), "%s", r->text);
	return 0;
}

/* Most fetches saved first, then by id. */
static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->saved != y->saved)
		return x->saved > y->saved ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void print_counts(const struct totals *t)
{
	printf("%llu active, %llu candidates, %llu retired, %llu "
	       "refuted; %llu fetches saved, summed over the active rules (a URL "
	       "two rules held counts for both)\n",
	       (unsigned long long)t->by_state[ADAPT_ACTIVE],
	       (unsigned long long)t->by_state[ADAPT_CANDIDATE],
	       (unsigned long long)t->by_state[ADAPT_RETIRED],
	       (unsigned long long)t->by_state[ADAPT_REFUTED],
	       (unsigned long long)t->saved);
}

/* The short table: the counts, then the active and retired rules. */
static void print_table(struct totals *t)
{
	print_counts(t);
	if (!t->n_rows)
		return;
	qsort(t->rows, t->n_rows, sizeof(*t->rows), row_cmp);
	printf("\n%-8s %-28s %8s %13s %8s %8s  %s\n", "state", "host",
	       "support", "audits/failed", "held", "saved", "rule");
	size_t shown = t->n_rows < RULES_SHOWN ? t->n_rows : RULES_SHOWN;
	for (size_t i = 0; i < shown; i++) {
		const struct row *w = &t->rows[i];
		char audits[48];
		snprintf(audits, sizeof(audits), "%llu/%llu",
			 (unsigned long long)w->audits,
			 (unsigned long long)w->audit_failures);
		printf("%-8s %-28s %8llu %13s %8llu %8llu  %s%s\n",
		       adapt_state_name(w->state), w->host,
		       (unsigned long long)w->support, audits,
		       (unsigned long long)w->held,
		       (unsigned long long)w->saved, w->text,
		       w->transferred ? " (transferred)" : "");
	}
	if (t->n_rows > shown)
		printf("... %zu more (--all)\n", t->n_rows - shown);
}

static int print_rule(void *arg, const struct adapt_rule_info *r)
{
	struct totals *t = arg;
	if (r->state < 4)
		t->by_state[r->state]++;
	if (r->state == ADAPT_ACTIVE)
		t->saved += r->saved;
	if (!t->json && !t->all)
		return keep_row(t, r);
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

/* The skip shapes (pages that give nothing, learn.h): their counts, and
 * a line for each shape shown (the short table: active and retired). */
struct skips {
	bool json, all;
	uint64_t by_state[4], skipped;
	size_t n_shown;
};

static int print_skip(void *arg, const struct adapt_skip_info *r)
{
	struct skips *k = arg;
	if (r->state < 4)
		k->by_state[r->state]++;
	k->skipped += r->skipped;
	if (k->json) {
		json_t *o = json_pack(
			"{s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I}", "kind",
			"skip_noindex_nofollow", "host", r->host, "shape",
			r->shape, "state", adapt_state_name(r->state),
			"support", (json_int_t)r->support, "audits",
			(json_int_t)r->audits, "audit_failures",
			(json_int_t)r->audit_failures, "skipped",
			(json_int_t)r->skipped, "created_ms",
			(json_int_t)r->created_ms, "changed_ms",
			(json_int_t)r->changed_ms);
		if (!o)
			return SC_E_NOMEM;
		int rc = json_dumpf(o, stdout, JSON_COMPACT) ||
					 putchar('\n') == EOF
				 ? SC_E_IO
				 : 0;
		json_decref(o);
		return rc;
	}
	if (!k->all && r->state != ADAPT_ACTIVE && r->state != ADAPT_RETIRED)
		return 0;
	if (k->n_shown++ == 0)
		printf("\n%-8s %-28s %8s %13s %8s  %s\n", "state", "host",
		       "support", "audits/failed", "skipped",
		       "skipped shape (pages noindex,nofollow)");
	char audits[48];
	snprintf(audits, sizeof(audits), "%llu/%llu",
		 (unsigned long long)r->audits,
		 (unsigned long long)r->audit_failures);
	printf("%-8s %-28s %8llu %13s %8llu  %s\n", adapt_state_name(r->state),
	       r->host, (unsigned long long)r->support, audits,
	       (unsigned long long)r->skipped, r->shape);
	return ferror(stdout) ? SC_E_IO : 0;
}

/* A host's rel=canonical claims (crawler/learn/adapt-claim.c): one line
 * each, whatever their state. */
static int print_claims(void *arg, const struct adapt_claim_info *r)
{
	bool json = *(bool *)arg;
	const char *state = adapt_claim_state_name(r->state);
	if (json) {
		json_t *o = json_pack(
			"{s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "kind",
			"canonical_claims", "host", r->host, "state", state,
			"verified", (json_int_t)r->verified, "failed",
			(json_int_t)r->failed, "documents",
			(json_int_t)r->documents, "audits",
			(json_int_t)r->audits, "audit_failures",
			(json_int_t)r->audit_failures, "merged",
			(json_int_t)r->merged, "created_ms",
			(json_int_t)r->created_ms, "changed_ms",
			(json_int_t)r->changed_ms);
		if (!o)
			return SC_E_NOMEM;
		int rc = json_dumpf(o, stdout, JSON_COMPACT) ||
					 putchar('\n') == EOF
				 ? SC_E_IO
				 : 0;
		json_decref(o);
		return rc;
	}
	printf("claims %-9s %-28s verified %llu (%llu URLs), failed %llu, "
	       "audits %llu/%llu failed, merged %llu\n",
	       state, r->host, (unsigned long long)r->verified,
	       (unsigned long long)r->documents, (unsigned long long)r->failed,
	       (unsigned long long)r->audits,
	       (unsigned long long)r->audit_failures,
	       (unsigned long long)r->merged);
	return ferror(stdout) ? SC_E_IO : 0;
}

int cmd_rules(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "store", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *config = NULL;
	struct totals t = { 0 };
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:c:ajh", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 's': dir = optarg; break;
		case 'c': config = optarg; break;
		case 'a': t.all = true; break;
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
	if (t.all)
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
	if (t.all)
		print_counts(&t);
	else if (!t.json)
		print_table(&t);
	struct skips k = { .json = t.json, .all = t.all };
	rc = adapt_skip_list(cs.s, cs.txn, print_skip, &k);
	if (rc == SC_E_IO) {
		sc_errorf(CMD, "writing stdout failed");
		goto out;
	} else if (rc) {
		sc_errorf(CMD, "%s: reading the skip shapes failed: %s", dir,
			  cmd_reason(rc));
		goto out;
	}
	uint64_t shapes = k.by_state[0] + k.by_state[1] + k.by_state[2] +
			  k.by_state[3];
	if (!t.json && shapes)
		printf("skip shapes: %llu active, %llu candidates, %llu "
		       "retired, %llu refuted; %llu URLs skipped (pages "
		       "noindex,nofollow)\n",
		       (unsigned long long)k.by_state[ADAPT_ACTIVE],
		       (unsigned long long)k.by_state[ADAPT_CANDIDATE],
		       (unsigned long long)k.by_state[ADAPT_RETIRED],
		       (unsigned long long)k.by_state[ADAPT_REFUTED],
		       (unsigned long long)k.skipped);
	bool json = t.json;
	rc = adapt_claim_list(cs.s, cs.txn, print_claims, &json);
	if (rc == SC_E_IO) {
		sc_errorf(CMD, "writing stdout failed");
		goto out;
	} else if (rc) {
		sc_errorf(CMD, "%s: reading the canonical claims failed: %s",
			  dir, cmd_reason(rc));
		goto out;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		sc_errorf(CMD, "writing stdout failed");
		goto out;
	}
	status = EXIT_OK;
out:
	cmd_store_close(&cs);
	free(t.rows);
	free(dir_owned);
	return status;
}
