/* report-focus.c — the focus part of `sigcrawl report` (docs/report.md):
 * per category, the harvest rate (SPEC §6), the links pruned by scope, by
 * relevance and by prediction, how good the link prediction was, and the
 * URLs a second category reached. */
#include "report-focus.h"

#include <stdlib.h>
#include <string.h>

struct fcat {
	char name[STORE_CATEGORY_NAME_MAX + 1];
	bool known; /* its settings are in the store */
	char keywords[1024];
	unsigned scope, tunnel;
	double min_relevance;
	bool has_predict, predict;
	double predict_min;
	bool has_min_harvest;
	double min_harvest;
	uint64_t records, pages, scored, on_topic;
	uint64_t count[STORE_FOCUS_COUNTERS];
};

/* A URL recorded under one category and reached from another. */
struct fpair {
	size_t first, second; /* indexes into cats */
	uint64_t urls;
};

struct focus_report {
	struct store *s;
	MDB_txn *txn;
	struct fcat *cats;
	size_t n, cap;
	struct fpair *pairs;
	size_t n_pairs, cap_pairs;
};

static const char *const scope_names[] = { "host", "domain", "any" };

static struct fcat *cat_of(struct focus_report *f, const char *name, size_t len)
{
	if (len > STORE_CATEGORY_NAME_MAX)
		len = STORE_CATEGORY_NAME_MAX;
	for (size_t i = 0; i < f->n; i++)
		if (strlen(f->cats[i].name) == len &&
		    memcmp(f->cats[i].name, name, len) == 0)
			return &f->cats[i];
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 8;
		struct fcat *v = realloc(f->cats, cap * sizeof(*v));
		if (!v)
			return NULL;
		f->cats = v;
		f->cap = cap;
	}
	struct fcat *c = &f->cats[f->n++];
	memset(c, 0, sizeof(*c));
	memcpy(c->name, name, len);
	return c;
}

static int known_cat(void *arg, const char *name, size_t len)
{
	struct focus_report *f = arg;
	struct store_category sc;
	struct fcat *c = cat_of(f, name, len);
	if (!c)
		return SC_E_NOMEM;
	int rc = store_category_get(f->s, f->txn, name, len, &sc);
	if (rc)
		return rc;
	c->known = true;
	size_t kl = sc.keywords_len < sizeof(c->keywords) - 1
			    ? sc.keywords_len
			    : sizeof(c->keywords) - 1;
	memcpy(c->keywords, sc.keywords, kl);
	c->keywords[kl] = '\0';
	c->scope = sc.scope;
	c->tunnel = sc.tunnel;
	c->min_relevance = sc.min_relevance;
	c->has_predict = sc.has_predict;
	c->predict = sc.predict;
	c->predict_min = sc.predict_min;
	c->has_min_harvest = sc.has_min_harvest;
	c->min_harvest = sc.min_harvest;
	return store_focus_count_get(f->s, f->txn, name, len, c->count);
}

static int one_record(void *arg, const struct store_record *r)
{
	struct focus_report *f = arg;
	struct fcat *c = cat_of(f, r->category ? r->category : "",
				r->category_len);
	if (!c)
		return SC_E_NOMEM;
	c->records++;
	if (!r->fetched || r->status < 200 || r->status > 299)
		return 0;
	c->pages++;
	if (!r->has_relevance)
		return 0;
	c->scored++;
	if (c->known && r->relevance >= c->min_relevance)
		c->on_topic++;
	return 0;
}

static int one_note(void *arg, const unsigned char key[SC_KEY_LEN],
		    const char *name, size_t len)
{
	struct focus_report *f = arg;
	struct store_record r;
	int rc = store_get(f->s, f->txn, key, &r);
	if (rc == SC_E_NOTFOUND)
		return 0; /* queued, not recorded yet */
	if (rc)
		return rc;
	struct fcat *a = cat_of(f, r.category ? r.category : "",
				r.category_len);
	struct fcat *b = a ? cat_of(f, name, len) : NULL;
	if (!b)
		return SC_E_NOMEM;
	a = cat_of(f, r.category ? r.category : "", r.category_len);
	size_t ia = (size_t)(a - f->cats), ib = (size_t)(b - f->cats);
	for (size_t i = 0; i < f->n_pairs; i++)
		if (f->pairs[i].first == ia && f->pairs[i].second == ib) {
			f->pairs[i].urls++;
			return 0;
		}
	if (f->n_pairs == f->cap_pairs) {
		size_t cap = f->cap_pairs ? 2 * f->cap_pairs : 8;
		struct fpair *v = realloc(f->pairs, cap * sizeof(*v));
		if (!v)
			return SC_E_NOMEM;
		f->pairs = v;
		f->cap_pairs = cap;
	}
	f->pairs[f->n_pairs++] = (struct fpair){ ia, ib, 1 };
	return 0;
}

int focus_report_collect(struct store *s, MDB_txn *txn,
			 struct focus_report **ret)
{
	struct focus_report *f = calloc(1, sizeof(*f));
	if (!f)
		return SC_E_NOMEM;
	f->s = s;
	f->txn = txn;
	int rc = store_category_foreach(s, txn, known_cat, f);
	if (!rc)
		rc = store_foreach(s, txn, one_record, f);
	if (!rc)
		rc = store_also_foreach(s, txn, one_note, f);
	if (rc) {
		focus_report_free(f);
		return rc;
	}
	*ret = f;
	return 0;
}

void focus_report_free(struct focus_report *f)
{
	if (!f)
		return;
	free(f->cats);
	free(f->pairs);
	free(f);
}

/* The harvest rate, or a negative number when there is none: a category
 * without keywords or settings, or no page scored. */
static double harvest(const struct fcat *c)
{
	if (!c->known || !c->keywords[0] || !c->scored)
		return -1;
	return (double)c->on_topic / (double)c->scored;
}

/* How good the link prediction was: of the pages fetched through a
 * predicted link and scored, those predicted on topic (p >= 0.5) and
 * those on topic. */
struct pred_figures {
	uint64_t scored, on_on, on_off, off_on, off_off;
	double precision, recall, accuracy; /* < 0: none */
	double mean_predicted, on_rate;
};

static bool pred_figures(const struct fcat *c, struct pred_figures *p)
{
	const uint64_t *k = c->count;
	*p = (struct pred_figures){ .scored = k[STORE_FOCUS_PRED_SCORED],
				    .on_on = k[STORE_FOCUS_PRED_ON_ON],
				    .on_off = k[STORE_FOCUS_PRED_ON_OFF],
				    .off_on = k[STORE_FOCUS_PRED_OFF_ON],
				    .precision = -1,
				    .recall = -1 };
	uint64_t known = p->on_on + p->on_off + p->off_on;
	if (!p->scored || known > p->scored)
		return false;
	p->off_off = p->scored - known;
	double s = (double)p->scored;
	if (p->on_on + p->on_off)
		p->precision = (double)p->on_on /
			       (double)(p->on_on + p->on_off);
	if (p->on_on + p->off_on)
		p->recall = (double)p->on_on / (double)(p->on_on + p->off_on);
	p->accuracy = (double)(p->on_on + p->off_off) / s;
	p->mean_predicted = (double)k[STORE_FOCUS_PRED_SUM_P] / 1000.0 / s;
	p->on_rate = (double)(p->on_on + p->off_on) / s;
	return true;
}

void focus_report_print(const struct focus_report *f)
{
	if (!f->n)
		return;
	printf("\nCategories (focused crawling)\n");
	printf("  %-16s %6s %6s %6s %8s %8s %8s %8s %8s\n", "category", "pages",
	       "scored", "on", "harvest", "scope-", "relev-", "pred-",
	       "second");
	for (size_t i = 0; i < f->n; i++) {
		const struct fcat *c = &f->cats[i];
		double h = harvest(c);
		printf("  %-16s %6llu %6llu %6llu",
		       c->name[0] ? c->name : "\"\"",
		       (unsigned long long)c->pages,
		       (unsigned long long)c->scored,
		       (unsigned long long)c->on_topic);
		if (h < 0)
			printf(" %8s", "-");
		else
			printf(" %8.4f", h);
		printf(" %8llu %8llu %8llu %8llu\n",
		       (unsigned long long)c->count[STORE_FOCUS_PRUNED_SCOPE],
		       (unsigned long long)
			       c->count[STORE_FOCUS_PRUNED_RELEVANCE],
		       (unsigned long long)
			       c->count[STORE_FOCUS_PRUNED_PREDICTED],
		       (unsigned long long)c->count[STORE_FOCUS_ALSO]);
	}
	for (size_t i = 0; i < f->n; i++) {
		struct pred_figures p;
		if (!pred_figures(&f->cats[i], &p))
			continue;
		printf("  %s: prediction: %llu pages fetched through a "
		       "predicted link; predicted on topic %llu, of which on "
		       "topic %llu; on topic but predicted off %llu; accuracy "
		       "%.3f; mean prediction %.3f against an on-topic rate of "
		       "%.3f\n",
		       f->cats[i].name, (unsigned long long)p.scored,
		       (unsigned long long)(p.on_on + p.on_off),
		       (unsigned long long)p.on_on,
		       (unsigned long long)p.off_on, p.accuracy,
		       p.mean_predicted, p.on_rate);
	}
	for (size_t i = 0; i < f->n; i++) {
		const struct fcat *c = &f->cats[i];
		if (!c->has_min_harvest || !c->keywords[0])
			continue;
		const uint64_t *k = c->count;
		printf("  %s: harvest floor %.2f: running harvest ", c->name,
		       c->min_harvest);
		if (k[STORE_FOCUS_SCORED])
			printf("%.4f", (double)k[STORE_FOCUS_ON] /
					       (double)k[STORE_FOCUS_SCORED]);
		else
			printf("-");
		printf(", exploration queued %llu pruned links, fetched %llu "
		       "pages, %llu on topic\n",
		       (unsigned long long)k[STORE_FOCUS_EXPLORE_QUEUED],
		       (unsigned long long)k[STORE_FOCUS_EXPLORED],
		       (unsigned long long)k[STORE_FOCUS_EXPLORED_ON]);
	}
	for (size_t i = 0; i < f->n; i++)
		if (f->cats[i].count[STORE_FOCUS_LOOKS])
			printf("  %s: looks at hosts not met: %llu roots "
			       "queued\n",
			       f->cats[i].name,
			       (unsigned long long)f->cats[i]
				       .count[STORE_FOCUS_LOOKS]);
	for (size_t i = 0; i < f->n; i++) {
		const struct fcat *c = &f->cats[i];
		char pred[48] = "";
		if (c->has_predict)
			snprintf(pred, sizeof(pred), ", predict %s",
				 c->predict ? "on" : "off");
		if (c->has_predict && c->predict)
			snprintf(pred + strlen(pred),
				 sizeof(pred) - strlen(pred),
				 " (predict_min %.2f)", c->predict_min);
		if (c->known)
			printf("  %s: scope %s, min_relevance %.2f, tunnel "
			       "%u%s, keywords: %s\n",
			       c->name,
			       c->scope < 3 ? scope_names[c->scope] : "?",
			       c->min_relevance, c->tunnel, pred,
			       c->keywords[0] ? c->keywords : "(none)");
	}
	for (size_t i = 0; i < f->n_pairs; i++)
		printf("  recorded under %s, reached from %s too: %llu URLs\n",
		       f->cats[f->pairs[i].first].name,
		       f->cats[f->pairs[i].second].name,
		       (unsigned long long)f->pairs[i].urls);
}

static int set(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v);
}

static json_t *ju(uint64_t v)
{
	return json_integer((json_int_t)v);
}

json_t *focus_report_json(const struct focus_report *f)
{
	json_t *a = json_array();
	int bad = !a;
	for (size_t i = 0; i < f->n && !bad; i++) {
		const struct fcat *c = &f->cats[i];
		json_t *o = json_object(), *also = json_object();
		double h = harvest(c);
		bad |= !o || !also;
		bad |= set(o, "name", json_string(c->name));
		bad |= set(o, "keywords",
			   c->known ? json_string(c->keywords) : json_null());
		bad |= set(o, "scope",
			   c->known && c->scope < 3
				   ? json_string(scope_names[c->scope])
				   : json_null());
		bad |= set(o, "min_relevance",
			   c->known ? json_real(c->min_relevance)
				    : json_null());
		bad |= set(o, "tunnel", c->known ? ju(c->tunnel) : json_null());
		bad |= set(o, "predict",
			   c->known && c->has_predict ? json_boolean(c->predict)
						      : json_null());
		bad |= set(o, "predict_min",
			   c->known && c->has_predict
				   ? json_real(c->predict_min)
				   : json_null());
		bad |= set(o, "records", ju(c->records));
		bad |= set(o, "pages", ju(c->pages));
		bad |= set(o, "scored", ju(c->scored));
		bad |= set(o, "on_topic", ju(c->on_topic));
		bad |= set(o, "harvest_rate",
			   h < 0 ? json_null() : json_real(h));
		bad |= set(o, "pruned_scope",
			   ju(c->count[STORE_FOCUS_PRUNED_SCOPE]));
		bad |= set(o, "pruned_relevance",
			   ju(c->count[STORE_FOCUS_PRUNED_RELEVANCE]));
		bad |= set(o, "pruned_predicted",
			   ju(c->count[STORE_FOCUS_PRUNED_PREDICTED]));
		bad |= set(o, "reached_second", ju(c->count[STORE_FOCUS_ALSO]));
		bad |= set(o, "looks", ju(c->count[STORE_FOCUS_LOOKS]));
		bad |= set(o, "min_harvest",
			   c->known && c->has_min_harvest
				   ? json_real(c->min_harvest)
				   : json_null());
		const uint64_t *k = c->count;
		bad |= set(o, "running_harvest",
			   c->known && c->has_min_harvest &&
					   k[STORE_FOCUS_SCORED]
				   ? json_real((double)k[STORE_FOCUS_ON] /
					       (double)k[STORE_FOCUS_SCORED])
				   : json_null());
		bad |= set(o, "explore_queued",
			   ju(c->count[STORE_FOCUS_EXPLORE_QUEUED]));
		bad |= set(o, "explored", ju(c->count[STORE_FOCUS_EXPLORED]));
		bad |= set(o, "explored_on",
			   ju(c->count[STORE_FOCUS_EXPLORED_ON]));
		struct pred_figures pf;
		json_t *pj = json_null();
		if (pred_figures(c, &pf)) {
			pj = json_object();
			bad |= !pj;
			bad |= set(pj, "scored", ju(pf.scored));
			bad |= set(pj, "predicted_on",
				   ju(pf.on_on + pf.on_off));
			bad |= set(pj, "predicted_on_and_on", ju(pf.on_on));
			bad |= set(pj, "on_but_predicted_off", ju(pf.off_on));
			bad |= set(pj, "precision",
				   pf.precision < 0 ? json_null()
						    : json_real(pf.precision));
			bad |= set(pj, "recall",
				   pf.recall < 0 ? json_null()
						 : json_real(pf.recall));
			bad |= set(pj, "accuracy", json_real(pf.accuracy));
			bad |= set(pj, "mean_predicted",
				   json_real(pf.mean_predicted));
			bad |= set(pj, "on_topic_rate", json_real(pf.on_rate));
		}
		bad |= set(o, "prediction", pj);
		for (size_t p = 0; p < f->n_pairs; p++)
			if (f->pairs[p].first == i)
				bad |= set(also,
					   f->cats[f->pairs[p].second].name,
					   ju(f->pairs[p].urls));
		bad |= set(o, "also_reached_from", also);
		bad |= json_array_append_new(a, o);
	}
	if (bad) {
		json_decref(a);
		return NULL;
	}
	return a;
}
