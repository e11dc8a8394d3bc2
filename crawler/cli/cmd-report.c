/* cmd-report.c — `sigcrawl report`: the metrics of SPEC §6 for the crawl
 * in a store.  docs/report.md defines every number; this file follows it.
 *
 * The store is opened read-only and read in one read transaction.  The
 * records' strings are borrowed from the map for the whole transaction
 * (a read transaction never sees the map change), so a page costs a small
 * struct and a few 16-byte keys, not copies of its URLs.  URLs are
 * compared by their sc_url_key() (XXH3-128), which the whole project
 * trusts as collision-free. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "learn.h"
#include "commands.h"
#include "conf.h"
#include "normalize.h"
#include "report-focus.h"
#include "report-truth.h"
#include "store.h"

#define CMD "report"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sigcrawl report [--store DIR | -c FILE] [--truth FILE] [--json]\n"
		"\n"
		"Prints the metrics of the crawl in the store.  They count the\n"
		"pages: records fetched with a 2xx status.\n"
		"\n"
		"  URL reduction (Soon & Lee): (U_std - U_fin) / U_std, where\n"
		"    U_std = distinct strict-normalized forms of the pages' URLs,\n"
		"    U_fin = classes left once pages sharing a strict form, a\n"
		"    normalized URL or a representative (duplicate_of) are one.\n"
		"  Per extended step (Hong et al.): pages with a signature are\n"
		"    grouped by strict + that step; groups holding 2 or more\n"
		"    strict forms are the D_i.  redundancy = sum(n - un) / sum n,\n"
		"    coverage loss = 1 - groups / sum un (n = URLs, un = distinct\n"
		"    signatures of a group).  Steps the crawl already applied\n"
		"    show no groups: measure on a crawl with --profile strict.\n"
		"  --truth FILE: JSON lines {\"url\": U, \"doc\": D} (D a string\n"
		"    or an integer; same D = the same document), matched to the\n"
		"    pages by strict form.  A page collapsed (duplicate_of) into\n"
		"    a page of its doc is TP, of another doc FP; of the pages of\n"
		"    a doc left uncollapsed, one is TN and the others FN.\n"
		"    Pages or representatives not in the truth are not judged.\n"
		"\n"
		"  Per category: pages scored (with a relevance), on topic\n"
		"    (relevance >= min_relevance), harvest rate = on / scored,\n"
		"    links pruned by scope and by relevance, URLs reached from\n"
		"    a second category (recorded under the first).\n"
		"\n"
		"  -s, --store DIR     the store directory (default: the config's)\n"
		"  -c, --config FILE   take the store from this config file's\n"
		"                      [crawl] store (without either: the default\n"
		"                      config's, " CONF_DEFAULT_STORE ")\n"
		"  -t, --truth FILE    the true equivalence classes (JSONL)\n"
		"  -j, --json          one JSON object instead of tables\n"
		"  -h, --help          this text\n"
		"\n"
		"Exit status: 0 success, 1 the store cannot be read, 2 bad usage,\n"
		"a bad config file or a bad truth file (the message names the\n"
		"line).\n");
}

/* ---- pages ---------------------------------------------------------------
 */

struct page {
	const char *url, *dup; /* borrowed from the map; dup may be NULL */
	size_t url_len, dup_len;
	unsigned char std[SC_KEY_LEN];  /* key of the strict form of url */
	unsigned char norm[SC_KEY_LEN]; /* key of the crawl's normalized */
	unsigned char sig[16];
	bool has_sig;
};

struct keyidx {
	unsigned char key[SC_KEY_LEN];
	size_t idx;
};

struct report {
	MDB_txn *txn;
	struct page *pages;
	size_t n_pages, cap_pages;
	size_t n_records;
	size_t n_unparsable; /* urls strict normalization rejected */
	/* Re-crawls (docs/recrawl.md), over every record: the pages
	 * scheduled and the earliest next visit, those visited more than
	 * once and the visits in all, those seen to change and those gone;
	 * duplicates scheduled (kept from revisits) and those audited. */
	struct {
		uint64_t scheduled, revisited, visits, changed, gone;
		uint64_t dups, dups_audited;
		int64_t next_due;
	} re;
	struct norm_opts strict;
	int err;
};

static int cmp_keyidx(const void *a, const void *b)
{
	const struct keyidx *x = a, *y = b;
	int c = memcmp(x->key, y->key, SC_KEY_LEN);
	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_key(const void *a, const void *b)
{
	return memcmp(a, b, SC_KEY_LEN);
}

static int collect(void *arg, const struct store_record *r)
{
	struct report *rep = arg;
	rep->n_records++;
	if (r->has_visit) {
		rep->re.visits += r->visits;
		rep->re.revisited += r->visits > 1;
		rep->re.changed += r->has_changed_at;
		rep->re.gone += r->has_gone_at;
		if (r->due_at > 0) {
			rep->re.scheduled++;
			if (!rep->re.next_due || r->due_at < rep->re.next_due)
				rep->re.next_due = r->due_at;
			if (r->duplicate_of) {
				rep->re.dups++;
				rep->re.dups_audited += r->visits > 1;
			}
		}
	}
	if (!r->fetched || r->status < 200 || r->status > 299)
		return 0;
	if (rep->n_pages == rep->cap_pages) {
		size_t cap = rep->cap_pages ? 2 * rep->cap_pages : 1024;
		struct page *p = realloc(rep->pages, cap * sizeof(*p));
		if (!p)
			return SC_E_NOMEM;
		rep->pages = p;
		rep->cap_pages = cap;
	}
	struct page *p = &rep->pages[rep->n_pages++];
	memset(p, 0, sizeof(*p));
	p->url = r->url ? r->url : "";
	p->url_len = r->url ? r->url_len : 0;
	p->dup = r->duplicate_of;
	p->dup_len = r->duplicate_of_len;
	sc_url_key(r->normalized, r->normalized_len, p->norm);
	/* A URL the crawl recorded always normalizes; if one did not, its
	 * normalized form stands in for its strict one. */
	if (!report_key(&rep->strict, p->url, p->url_len, p->std)) {
		memcpy(p->std, p->norm, SC_KEY_LEN);
		rep->n_unparsable++;
	}
	p->has_sig = r->has_signature;
	if (r->has_signature)
		memcpy(p->sig, r->signature, 16);
	return 0;
}

/* ---- URL reduction ------------------------------------------------------ */

static size_t uf_find(size_t *parent, size_t i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

struct reduction {
	size_t u_std, u_fin;
};

/* U_std: distinct strict keys.  U_fin: connected classes of pages that
 * share a strict key, a normalized key, or a representative (the key of
 * duplicate_of equals the representative's normalized key). */
static int url_reduction(const struct report *rep, struct reduction *ret)
{
	size_t n = rep->n_pages;
	struct keyidx *ki = malloc((3 * n + 1) * sizeof(*ki));
	size_t *parent = malloc((n + 1) * sizeof(*parent));
	if (!ki || !parent) {
		free(ki);
		free(parent);
		return SC_E_NOMEM;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		const struct page *p = &rep->pages[i];
		memcpy(ki[m].key, p->std, SC_KEY_LEN);
		ki[m++].idx = i;
	}
	qsort(ki, m, sizeof(*ki), cmp_keyidx);
	ret->u_std = 0;
	for (size_t i = 0; i < m; i++)
		if (i == 0 || memcmp(ki[i].key, ki[i - 1].key, SC_KEY_LEN))
			ret->u_std++;
	for (size_t i = 0; i < n; i++) {
		const struct page *p = &rep->pages[i];
		parent[i] = i;
		memcpy(ki[m].key, p->norm, SC_KEY_LEN);
		ki[m++].idx = i;
		if (p->dup) {
			sc_url_key(p->dup, p->dup_len, ki[m].key);
			ki[m++].idx = i;
		}
	}
	qsort(ki, m, sizeof(*ki), cmp_keyidx);
	for (size_t i = 1; i < m; i++)
		if (memcmp(ki[i].key, ki[i - 1].key, SC_KEY_LEN) == 0)
			parent[uf_find(parent, ki[i].idx)] = uf_find(
				parent, ki[i - 1].idx);
	ret->u_fin = 0;
	for (size_t i = 0; i < n; i++)
		if (uf_find(parent, i) == i)
			ret->u_fin++;
	free(ki);
	free(parent);
	return 0;
}

/* ---- extended steps (Hong et al.) ---------------------------------------
 */

struct step_row {
	uint32_t step;
	size_t groups, urls, unique;
};

/* Distinct 16-byte values among N, sorting them in place. */
static size_t distinct16(unsigned char (*v)[16], size_t n)
{
	qsort(v, n, 16, cmp_key);
	size_t d = 0;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || memcmp(v[i], v[i - 1], 16))
			d++;
	return d;
}

/* Groups the pages with a signature by their form under strict + STEP. */
static int step_metrics(const struct report *rep, uint32_t step,
			struct step_row *row)
{
	struct norm_opts opts = rep->strict;
	opts.steps |= step;
	size_t n = rep->n_pages, m = 0;
	struct keyidx *ki = malloc((n + 1) * sizeof(*ki));
	unsigned char(*tmp)[16] = malloc((n + 1) * 16);
	if (!ki || !tmp) {
		free(ki);
		free(tmp);
		return SC_E_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct page *p = &rep->pages[i];
		if (!p->has_sig)
			continue;
		if (!report_key(&opts, p->url, p->url_len, ki[m].key))
			memcpy(ki[m].key, p->std, SC_KEY_LEN);
		ki[m++].idx = i;
	}
	qsort(ki, m, sizeof(*ki), cmp_keyidx);
	memset(row, 0, sizeof(*row));
	row->step = step;
	for (size_t a = 0, b; a < m; a = b) {
		for (b = a + 1;
		     b < m && !memcmp(ki[a].key, ki[b].key, SC_KEY_LEN); b++)
			;
		if (b - a < 2)
			continue;
		for (size_t i = a; i < b; i++)
			memcpy(tmp[i - a], rep->pages[ki[i].idx].std, 16);
		if (distinct16(tmp, b - a) < 2)
			continue; /* strict alone merges these already */
		for (size_t i = a; i < b; i++)
			memcpy(tmp[i - a], rep->pages[ki[i].idx].sig, 16);
		row->groups++;
		row->urls += b - a;
		row->unique += distinct16(tmp, b - a);
	}
	free(ki);
	free(tmp);
	return 0;
}

struct contingency {
	size_t tp, fn, fp, tn;
	size_t unjudged;  /* pages not in the truth, or collapsed into one */
	size_t unmatched; /* truth URLs that are no page */
};

static int contingency(const struct report *rep, struct truth *t,
		       struct contingency *c)
{
	size_t n = rep->n_pages;
	struct keyidx *byn = malloc((n + 1) * sizeof(*byn));
	size_t *kept = calloc(t->n_docs + 1, sizeof(*kept));
	if (!byn || !kept) {
		free(byn);
		free(kept);
		return SC_E_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		memcpy(byn[i].key, rep->pages[i].norm, SC_KEY_LEN);
		byn[i].idx = i;
	}
	qsort(byn, n, sizeof(*byn), cmp_keyidx);
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < n; i++) {
		const struct page *p = &rep->pages[i];
		struct truth_url *u = truth_find(t, p->std);
		if (!u) {
			c->unjudged++;
			continue;
		}
		u->matched = true;
		if (!p->dup) {
			kept[u->doc]++;
			continue;
		}
		struct keyidx want = { .idx = 0 };
		sc_url_key(p->dup, p->dup_len, want.key);
		struct keyidx *r = bsearch(&want, byn, n, sizeof(*byn),
					   cmp_key);
		struct truth_url *ru = r ? truth_find(t, rep->pages[r->idx].std)
					 : NULL;
		if (!ru)
			c->unjudged++;
		else if (ru->doc == u->doc)
			c->tp++;
		else
			c->fp++;
	}
	for (size_t d = 0; d < t->n_docs; d++) {
		if (kept[d]) {
			c->tn++;
			c->fn += kept[d] - 1;
		}
	}
	for (size_t i = 0; i < t->n; i++)
		if (!t->urls[i].matched)
			c->unmatched++;
	free(byn);
	free(kept);
	return 0;
}

/* ---- output ------------------------------------------------------------- */

/* NUM / DEN, or a negative number when DEN is 0 (printed as null or -). */
static double ratio(double num, double den)
{
	return den > 0 ? num / den : -1.0;
}

static json_t *jrate(double r)
{
	return r < 0 ? json_null() : json_real(r);
}

static void print_rate(const char *label, double r)
{
	if (r < 0)
		printf("  %-14s -\n", label);
	else
		printf("  %-14s %.2f %%\n", label, 100 * r);
}

static void print_fraction(double r)
{
	if (r < 0)
		printf(" %13s", "-");
	else
		printf(" %13.4f", r);
}

struct results {
	const char *store, *truth_path;
	const struct report *rep;
	struct reduction red;
	struct step_row steps[NORM_STEP_COUNT];
	size_t n_steps;
	const struct truth *truth;
	struct contingency con;
	const struct focus_report *focus;
	const struct rules_report *rules;
};

/* The learned rules of an adaptive crawl (crawler/learn/learn.h): how many in
 * each state, the fetches the active ones saved, and a line each. */
struct rules_report {
	uint64_t by_state[4], saved, audits, transferred;
	char *text; /* one line a rule (open_memstream), or NULL */
	size_t len;
	FILE *f;
};

static int collect_rule(void *arg, const struct adapt_rule_info *r)
{
	struct rules_report *rr = arg;
	if (r->state < 4)
		rr->by_state[r->state]++;
	if (r->state == ADAPT_ACTIVE)
		rr->saved += r->saved;
	rr->audits += r->audits;
	rr->transferred += r->transferred;
	if (rr->f && r->state != ADAPT_CANDIDATE)
		fprintf(rr->f, "  %-9s %-28s %s (support %llu%s, saved %llu)\n",
			adapt_state_name(r->state), r->host, r->text,
			(unsigned long long)r->support,
			r->transferred ? ", transferred" : "",
			(unsigned long long)r->saved);
	return 0;
}

static json_t *rules_json(const struct rules_report *rr)
{
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "active",
			 (json_int_t)rr->by_state[ADAPT_ACTIVE], "candidates",
			 (json_int_t)rr->by_state[ADAPT_CANDIDATE], "retired",
			 (json_int_t)rr->by_state[ADAPT_RETIRED], "refuted",
			 (json_int_t)rr->by_state[ADAPT_REFUTED],
			 "fetches_saved", (json_int_t)rr->saved, "audits",
			 (json_int_t)rr->audits, "transferred",
			 (json_int_t)rr->transferred);
}

static void rules_print(const struct rules_report *rr)
{
	uint64_t n = rr->by_state[0] + rr->by_state[1] + rr->by_state[2] +
		     rr->by_state[3];
	if (!n)
		return;
	printf("\nlearned rules (sigcrawl rules --all lists each with its "
	       "evidence)\n  %llu active, %llu candidates, %llu retired, "
	       "%llu refuted (%llu transferred from other hosts); %llu fetches "
	       "saved (summed over the active rules), %llu audits\n",
	       (unsigned long long)rr->by_state[ADAPT_ACTIVE],
	       (unsigned long long)rr->by_state[ADAPT_CANDIDATE],
	       (unsigned long long)rr->by_state[ADAPT_RETIRED],
	       (unsigned long long)rr->by_state[ADAPT_REFUTED],
	       (unsigned long long)rr->transferred,
	       (unsigned long long)rr->saved, (unsigned long long)rr->audits);
	if (rr->text)
		fwrite(rr->text, 1, rr->len, stdout);
}

static json_t *recrawl_json(const struct report *rep)
{
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o}", "scheduled",
			 (json_int_t)rep->re.scheduled, "revisited",
			 (json_int_t)rep->re.revisited, "visits",
			 (json_int_t)rep->re.visits, "changed",
			 (json_int_t)rep->re.changed, "gone",
			 (json_int_t)rep->re.gone, "duplicates_scheduled",
			 (json_int_t)rep->re.dups, "duplicates_audited",
			 (json_int_t)rep->re.dups_audited, "next_visit",
			 rep->re.next_due ? json_integer(rep->re.next_due)
					  : json_null());
}

static void recrawl_print(const struct report *rep)
{
	if (!rep->re.scheduled && !rep->re.revisited)
		return;
	char when[64] = "-";
	time_t t = (time_t)(rep->re.next_due / 1000);
	struct tm tm;
	if (rep->re.next_due && gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	printf("\nre-crawls\n  %llu pages scheduled, the "
	       "next visit %s; %llu revisited, %llu visits in all; %llu seen "
	       "to change, %llu gone\n  %llu duplicates kept from revisits "
	       "(%llu of them audited)\n",
	       (unsigned long long)rep->re.scheduled, when,
	       (unsigned long long)rep->re.revisited,
	       (unsigned long long)rep->re.visits,
	       (unsigned long long)rep->re.changed,
	       (unsigned long long)rep->re.gone,
	       (unsigned long long)rep->re.dups,
	       (unsigned long long)rep->re.dups_audited);
}

static double redundancy(const struct step_row *s)
{
	return ratio((double)(s->urls - s->unique), (double)s->urls);
}

static double coverage_loss(const struct step_row *s)
{
	double r = ratio((double)s->groups, (double)s->unique);
	return r < 0 ? r : 1.0 - r;
}

static void print_table(const struct results *x)
{
	const struct report *rep = x->rep;
	printf("store %s: %zu records, %zu pages (fetched, status 2xx)\n\n",
	       x->store, rep->n_records, rep->n_pages);
	printf("URL reduction (Soon & Lee)\n");
	printf("  U_std          %zu  distinct strict-normalized URLs\n",
	       x->red.u_std);
	printf("  U_fin          %zu  left after normalization and "
	       "signatures\n",
	       x->red.u_fin);
	print_rate("reduction", ratio((double)(x->red.u_std - x->red.u_fin),
				      (double)x->red.u_std));
	printf("\nExtended steps (Hong et al.), pages with a signature\n");
	printf("  %-24s %6s %6s %6s %13s %13s\n", "step", "groups", "URLs",
	       "unique", "redundancy", "coverage loss");
	for (size_t i = 0; i < x->n_steps; i++) {
		const struct step_row *s = &x->steps[i];
		printf("  %-24s %6zu %6zu %6zu", norm_step_name(s->step),
		       s->groups, s->urls, s->unique);
		print_fraction(redundancy(s));
		print_fraction(coverage_loss(s));
		printf("\n");
	}
	if (!x->truth)
		return;
	const struct contingency *c = &x->con;
	size_t all = c->tp + c->fn + c->fp + c->tn;
	printf("\nAgainst the truth in %s\n", x->truth_path);
	printf("  %zu URLs of %zu docs; %zu pages judged, %zu not judged, "
	       "%zu truth URLs not among the pages\n",
	       x->truth->n, x->truth->n_docs, all, c->unjudged, c->unmatched);
	printf("  %-14s %-14s %s\n", "", "collapsed", "kept");
	printf("  %-14s TP %-11zu FN %zu\n", "redundant", c->tp, c->fn);
	printf("  %-14s FP %-11zu TN %zu\n", "not redundant", c->fp, c->tn);
	print_rate("sensitivity",
		   ratio((double)c->tp, (double)(c->tp + c->fn)));
	print_rate("specificity",
		   ratio((double)c->tn, (double)(c->tn + c->fp)));
	print_rate("precision", ratio((double)c->tp, (double)(c->tp + c->fp)));
	print_rate("accuracy", ratio((double)(c->tp + c->tn), (double)all));
}

static int set(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v);
}

static int set_size(json_t *o, const char *key, size_t v)
{
	return set(o, key, json_integer((json_int_t)v));
}

static json_t *results_json(const struct results *x)
{
	const struct report *rep = x->rep;
	json_t *o = json_object(), *red = json_object(), *steps = json_array();
	int bad = !o || !red || !steps;
	bad |= set(o, "store", json_string(x->store));
	bad |= set_size(o, "records", rep->n_records);
	bad |= set_size(o, "pages", rep->n_pages);
	bad |= set_size(red, "u_std", x->red.u_std);
	bad |= set_size(red, "u_fin", x->red.u_fin);
	bad |= set(red, "rate",
		   jrate(ratio((double)(x->red.u_std - x->red.u_fin),
			       (double)x->red.u_std)));
	bad |= set(o, "url_reduction", red);
	for (size_t i = 0; i < x->n_steps; i++) {
		const struct step_row *s = &x->steps[i];
		json_t *r = json_object();
		bad |= !r;
		bad |= set(r, "step", json_string(norm_step_name(s->step)));
		bad |= set_size(r, "groups", s->groups);
		bad |= set_size(r, "urls", s->urls);
		bad |= set_size(r, "unique", s->unique);
		bad |= set(r, "redundancy", jrate(redundancy(s)));
		bad |= set(r, "coverage_loss", jrate(coverage_loss(s)));
		bad |= json_array_append_new(steps, r);
	}
	bad |= set(o, "steps", steps);
	bad |= set(o, "categories", focus_report_json(x->focus));
	bad |= set(o, "rules", rules_json(x->rules));
	bad |= set(o, "recrawl", recrawl_json(rep));
	if (x->truth) {
		const struct contingency *c = &x->con;
		size_t all = c->tp + c->fn + c->fp + c->tn;
		json_t *t = json_object();
		bad |= !t;
		bad |= set(t, "file", json_string(x->truth_path));
		bad |= set_size(t, "urls", x->truth->n);
		bad |= set_size(t, "docs", x->truth->n_docs);
		bad |= set_size(t, "judged", all);
		bad |= set_size(t, "unjudged", c->unjudged);
		bad |= set_size(t, "unmatched", c->unmatched);
		bad |= set_size(t, "tp", c->tp);
		bad |= set_size(t, "fn", c->fn);
		bad |= set_size(t, "fp", c->fp);
		bad |= set_size(t, "tn", c->tn);
		bad |= set(
			t, "sensitivity",
			jrate(ratio((double)c->tp, (double)(c->tp + c->fn))));
		bad |= set(
			t, "specificity",
			jrate(ratio((double)c->tn, (double)(c->tn + c->fp))));
		bad |= set(
			t, "precision",
			jrate(ratio((double)c->tp, (double)(c->tp + c->fp))));
		bad |= set(t, "accuracy",
			   jrate(ratio((double)(c->tp + c->tn), (double)all)));
		bad |= set(o, "truth", t);
	}
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* ---- the command -------------------------------------------------------- */

static int compute(struct results *x, struct truth *truth)
{
	const struct report *rep = x->rep;
	int rc = url_reduction(rep, &x->red);
	uint32_t strict = norm_profile_steps(NORM_PROFILE_STRICT);
	for (unsigned b = 0; !rc && b < NORM_STEP_COUNT; b++) {
		uint32_t step = 1u << b;
		if (strict & step)
			continue;
		rc = step_metrics(rep, step, &x->steps[x->n_steps++]);
	}
	if (!rc && truth) {
		x->truth = truth;
		rc = contingency(rep, truth, &x->con);
	}
	return rc;
}

static int print_results(const struct results *x, bool json)
{
	static char outbuf[1 << 16];
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	if (json) {
		json_t *o = results_json(x);
		if (!o) {
			sc_errorf(CMD, "out of memory");
			return EXIT_RUNTIME;
		}
		int rc = json_dumpf(o, stdout, JSON_REAL_PRECISION(17));
		json_decref(o);
		if (rc || putchar('\n') == EOF)
			goto fail;
	} else {
		print_table(x);
		focus_report_print(x->focus);
		rules_print(x->rules);
		recrawl_print(x->rep);
	}
	if (fflush(stdout) == 0 && !ferror(stdout))
		return EXIT_OK;
fail:
	sc_errorf(CMD, "writing stdout failed");
	return EXIT_RUNTIME;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "store", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "truth", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *config = NULL, *truth_path = NULL;
	bool json = false;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:c:t:jh", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 's': dir = optarg; break;
		case 'c': config = optarg; break;
		case 't': truth_path = optarg; break;
		case 'j': json = true; break;
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

	struct report rep = { 0 };
	rep.strict.steps = norm_profile_steps(NORM_PROFILE_STRICT);
	struct truth truth = { 0 };
	/* The truth first: a bad file is a usage error, whatever the store. */
	if (truth_path) {
		status = truth_read(truth_path, &rep.strict, &truth);
		if (status == EXIT_OK)
			status = truth_index(truth_path, &truth);
		if (status != EXIT_OK) {
			truth_free(&truth);
			free(dir_owned);
			return status;
		}
	}

	struct cmd_store cs = { 0 };
	struct focus_report *fr = NULL;
	status = EXIT_RUNTIME;
	if (cmd_store_read(CMD, dir, &cs))
		goto out;
	int rc = store_foreach(cs.s, cs.txn, collect, &rep);
	if (rc) {
		sc_errorf(CMD, "%s: reading the records failed: %s", dir,
			  cmd_reason(rc));
		goto out;
	}
	if ((rc = focus_report_collect(cs.s, cs.txn, &fr))) {
		sc_errorf(CMD, "%s: reading the categories failed: %s", dir,
			  cmd_reason(rc));
		goto out;
	}
	struct rules_report rr = { 0 };
	rr.f = open_memstream(&rr.text, &rr.len);
	rc = adapt_list(cs.s, cs.txn, collect_rule, &rr);
	if (rr.f && fclose(rr.f) != 0) {
		free(rr.text);
		rr.text = NULL;
	}
	rr.f = NULL;
	if (rc) {
		free(rr.text);
		sc_errorf(CMD, "%s: reading the learned rules failed: %s", dir,
			  cmd_reason(rc));
		goto out;
	}
	struct results x = { .store = dir,
			     .truth_path = truth_path,
			     .rep = &rep,
			     .focus = fr,
			     .rules = &rr };
	rc = compute(&x, truth_path ? &truth : NULL);
	if (rc) {
		sc_errorf(CMD, "%s", cmd_reason(rc));
		goto out;
	}
	status = print_results(&x, json);
	free(rr.text);
out:
	focus_report_free(fr);
	cmd_store_close(&cs);
	free(rep.pages);
	truth_free(&truth);
	free(dir_owned);
	return status;
}
