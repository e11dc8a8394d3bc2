/* keys.c — which normalization a store's keys were made with (learn.h). */
#include "learn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

/* Keys in messages are cut to this many bytes: a message is one log line. */
#define KEY_SHOWN 160

static bool tracking_same(const struct norm_opts *a, const struct norm_opts *b)
{
	char ta[FRONTIER_TRACKING_MAX + 1], tb[FRONTIER_TRACKING_MAX + 1];
	/* A list too long to write is compared as "different". */
	if (norm_tracking_list(a, ta, sizeof(ta)) ||
	    norm_tracking_list(b, tb, sizeof(tb)))
		return false;
	return strcmp(ta, tb) == 0;
}

bool keys_same(const struct keys_norm *a, const struct keys_norm *b)
{
	if (a->opts->steps != b->opts->steps)
		return false;
	if ((a->profile == NORM_PROFILE_ADAPTIVE) !=
	    (b->profile == NORM_PROFILE_ADAPTIVE))
		return false;
	return !(a->opts->steps & NORM_REMOVE_TRACKING_PARAMS) ||
	       tracking_same(a->opts, b->opts);
}

/* The --steps list that turns the profile's steps into steps ("" when
 * they are the same). */
static void steps_diff(enum norm_profile profile, uint32_t steps, char *out,
		       size_t cap)
{
	uint32_t base = norm_profile_steps(profile);
	size_t n = 0;
	out[0] = '\0';
	for (int i = 0; i < 32 && n < cap; i++) {
		uint32_t bit = 1u << i;
		if ((base ^ steps) & bit) {
			const char *name = norm_step_name(bit);
			int k = snprintf(out + n, cap - n, "%s%c%s",
					 n ? "," : "", steps & bit ? '+' : '-',
					 name ? name : "?");
			n = k > 0 ? n + (size_t)k : n;
		}
	}
}

void keys_describe(enum norm_profile profile, uint32_t steps, char *out,
		   size_t cap)
{
	char d[640];
	steps_diff(profile, steps, d, sizeof(d));
	snprintf(out, cap, "%s%s%s", conf_profile_name(profile),
		 d[0] ? " with steps " : "", d);
}

/* What an operator writes to run with a recorded normalization. */
static void remedy(enum norm_profile profile, uint32_t steps, char *out,
		   size_t cap)
{
	char d[640];
	steps_diff(profile, steps, d, sizeof(d));
	const char *p = conf_profile_name(profile);
	if (d[0])
		snprintf(
			out, cap,
			"[normalize] profile = %s and steps = %s, or --profile "
			"%s --steps '%s'",
			p, d, p, d);
	else
		snprintf(out, cap,
			 "[normalize] profile = %s and no steps line, or "
			 "--profile %s --steps ''",
			 p, p);
}

/* ---------------------------------------------------------------------
 * Stores written before the normalization was recorded
 */

/* The run's normalization and the fixed profiles, each tried on every key
 * of the store: a key that normalizes to something else was not written
 * by it. */
enum { C_RUN, C_STRICT, C_EXTENDED, C_AGGRESSIVE, C_COUNT };

struct fit {
	struct norm_opts opts[C_COUNT];
	bool fits[C_COUNT];
	size_t keys;
	/* The first key the run's normalization rewrites, and how. */
	char key[NORM_URL_MAX + 1], as[NORM_URL_MAX + 1];
};

static int fit_key(void *arg, const char *url, size_t len)
{
	struct fit *t = arg;
	char out[NORM_URL_MAX + 1];
	t->keys++;
	bool any = false;
	for (int i = 0; i < C_COUNT; i++) {
		if (!t->fits[i])
			continue;
		int rc = norm_url(&t->opts[i], NULL, url, len, out, sizeof(out),
				  NULL);
		if (rc || strlen(out) != len || memcmp(out, url, len) != 0) {
			t->fits[i] = false;
			if (i == C_RUN) {
				snprintf(t->key, sizeof(t->key), "%.*s",
					 (int)len, url);
				snprintf(t->as, sizeof(t->as), "%s",
					 rc ? sc_strerror(rc) : out);
			}
		}
		any |= t->fits[i];
	}
	/* Nothing left to learn: stop the scan. */
	return any ? 0 : 1;
}

static int fit_record(void *arg, const struct store_record *r)
{
	return fit_key(arg, r->normalized, r->normalized_len);
}

/* ---------------------------------------------------------------------
 * The check
 */

static int record(MDB_txn *txn, struct frontier *f, const struct keys_norm *n)
{
	struct frontier_norm *rec = calloc(1, sizeof(*rec));
	if (!rec)
		return SC_E_NOMEM;
	rec->profile = (uint8_t)n->profile;
	rec->steps = n->opts->steps;
	int rc = norm_tracking_list(n->opts, rec->tracking,
				    sizeof(rec->tracking))
			 ? SC_E_INVAL
			 : frontier_norm_put(f, txn, rec);
	free(rec);
	return rc;
}

/* What keys_check() needs beyond the stack: a recorded normalization and
 * the fit of every profile, some 20 KB. */
struct scratch {
	struct frontier_norm rec;
	struct fit t;
};

static int check(MDB_txn *txn, struct store *s, struct frontier *f,
		 const struct keys_norm *n, bool *adopted, char *msg, char *fix,
		 size_t cap, struct scratch *w)
{
	*adopted = false;
	msg[0] = fix[0] = '\0';
	char run[700], was[700];
	keys_describe(n->profile, n->opts->steps, run, sizeof(run));
	int rc = frontier_norm_get(f, txn, &w->rec);
	if (rc == 0) {
		const char *names[256];
		size_t k = 0;
		/* The recorded tracking list as norm_opts. */
		char buf[FRONTIER_TRACKING_MAX + 1];
		memcpy(buf, w->rec.tracking, sizeof(buf));
		for (char *p = buf; *p && k < 256;) {
			names[k++] = p;
			char *c = strchr(p, ',');
			if (!c)
				break;
			*c = '\0';
			p = c + 1;
		}
		struct norm_opts ro = { .steps = w->rec.steps,
					.tracking = names,
					.n_tracking = k };
		struct keys_norm r = { (enum norm_profile)w->rec.profile, &ro };
		if (keys_same(&r, n))
			return 0;
		keys_describe(r.profile, w->rec.steps, was, sizeof(was));
		bool tracking = w->rec.steps == n->opts->steps &&
				(r.profile == NORM_PROFILE_ADAPTIVE) ==
					(n->profile == NORM_PROFILE_ADAPTIVE);
		snprintf(msg, cap,
			 "this store's keys were made with the normalization "
			 "profile %s%s, and this run asks for %s; keys are "
			 "never made again, so URLs already queued or fetched "
			 "would be queued again under other keys",
			 was,
			 tracking ? " and another tracking-parameter list" : "",
			 run);
		char how[1600];
		remedy(r.profile, w->rec.steps, how, sizeof(how));
		snprintf(
			fix, cap,
			"to resume this store, run with its normalization (%s); "
			"to crawl with %s, use a new store (--store DIR or "
			"[crawl] store)",
			how, conf_profile_name(n->profile));
		return SC_E_PROFILE;
	}
	if (rc != SC_E_NOTFOUND)
		return rc;

	/* Nothing recorded.  A new store takes the run's normalization; one
	 * of an earlier version is checked key by key first. */
	struct fit *t = &w->t;
	t->opts[C_RUN] = *n->opts;
	t->opts[C_STRICT].steps = norm_profile_steps(NORM_PROFILE_STRICT);
	t->opts[C_EXTENDED].steps = norm_profile_steps(NORM_PROFILE_EXTENDED);
	t->opts[C_AGGRESSIVE].steps = norm_profile_steps(
		NORM_PROFILE_AGGRESSIVE);
	for (int i = 0; i < C_COUNT; i++)
		t->fits[i] = true;
	rc = frontier_foreach_queued(f, txn, fit_key, t);
	if (rc == 0)
		rc = store_foreach(s, txn, fit_record, t);
	if (rc < 0)
		return rc;
	if (t->fits[C_RUN]) {
		*adopted = t->keys > 0;
		return record(txn, f, n);
	}
	static const char *const names[C_COUNT] = { "", "strict", "extended",
						    "aggressive" };
	char fits[64] = "";
	for (int i = C_STRICT; i < C_COUNT; i++)
		if (t->fits[i])
			snprintf(fits + strlen(fits),
				 sizeof(fits) - strlen(fits), "%s%s",
				 fits[0] ? ", " : "", names[i]);
	snprintf(msg, cap,
		 "this store was written by an earlier sigcrawl, which did not "
		 "record its normalization, and its key \"%.*s\" is not in the "
		 "form of %s, which writes \"%.*s\"",
		 KEY_SHOWN, t->key, run, KEY_SHOWN, t->as);
	if (fits[0])
		snprintf(fix, cap,
			 "its keys fit %s: resume it with that profile "
			 "(--profile NAME --steps ''), or crawl with %s into a "
			 "new store (--store DIR or [crawl] store)",
			 fits, conf_profile_name(n->profile));
	else
		snprintf(
			fix, cap,
			"its keys fit none of strict, extended and aggressive "
			"as they are, so it was crawled with other --steps: "
			"resume it with those, or use a new store (--store DIR "
			"or [crawl] store)");
	return SC_E_PROFILE;
}

int keys_check(MDB_txn *txn, struct store *s, struct frontier *f,
	       const struct keys_norm *n, bool *adopted, char *msg, char *fix,
	       size_t cap)
{
	*adopted = false;
	msg[0] = fix[0] = '\0';
	struct scratch *w = calloc(1, sizeof(*w));
	if (!w)
		return SC_E_NOMEM;
	int rc = check(txn, s, f, n, adopted, msg, fix, cap, w);
	free(w);
	return rc;
}
