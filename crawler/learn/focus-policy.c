/* focus-policy.c — the crawl's focus policy (see learn.h): the
 * categories of each config version and their compiled keywords and
 * patterns (the view), relevance, scope, the tunnel, and the writer's
 * counters per category.  The link prediction is focus-predict.c's;
 * focus-int.h holds what the two share. */
#include "focus-int.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void view_free(struct view *v)
{
	while (v) {
		struct view *prev = v->prev;
		for (size_t i = 0; v->kw && i < v->n; i++)
			parse_keywords_free(v->kw[i]);
		free(v->kw);
		for (size_t i = 0; v->re && i < v->n; i++) {
			const struct crawl_category *c = &v->cats[i];
			for (size_t k = 0;
			     v->re[i] && k < c->n_include + c->n_exclude; k++)
				regfree(&v->re[i][k]);
			free(v->re[i]);
		}
		free(v->re);
		free(v);
		v = prev;
	}
}

static int view_new(const struct crawl_category *cats, size_t n_cats,
		    struct view **ret)
{
	struct view *v = calloc(1, sizeof(*v));
	if (!v)
		return SC_E_NOMEM;
	v->cats = cats;
	v->n = n_cats;
	if (!(v->kw = calloc(v->n ? v->n : 1, sizeof(*v->kw))) ||
	    !(v->re = calloc(v->n ? v->n : 1, sizeof(*v->re)))) {
		free(v->kw);
		free(v);
		return SC_E_NOMEM;
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct crawl_category *cat = &cats[i];
		size_t n = cat->n_include + cat->n_exclude;
		if (!n)
			continue;
		if (!(v->re[i] = calloc(n, sizeof(regex_t)))) {
			view_free(v);
			return SC_E_NOMEM;
		}
		for (size_t k = 0; k < n; k++) {
			const char *p =
				k < cat->n_include
					? cat->include[k]
					: cat->exclude[k - cat->n_include];
			if (regcomp(&v->re[i][k], p,
				    REG_EXTENDED | REG_NOSUB)) {
				/* The config checked it; only memory fails. */
				for (size_t m = 0; m < k; m++)
					regfree(&v->re[i][m]);
				free(v->re[i]);
				v->re[i] = NULL;
				view_free(v);
				return SC_E_NOMEM;
			}
		}
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct crawl_category *cat = &cats[i];
		if (!cat->n_keywords)
			continue;
		int rc = parse_keywords_new(cat->keywords, cat->n_keywords,
					    &v->kw[i]);
		if (rc) {
			log_msg(LOG_ERR, "[category %s] keywords: %s",
				cat->name, sc_strerror(rc));
			view_free(v);
			return rc;
		}
	}
	*ret = v;
	return 0;
}

int focus_open(const struct crawl_category *cats, size_t n, struct focus **ret)
{
	struct focus *f = calloc(1, sizeof(*f));
	if (!f)
		return SC_E_NOMEM;
	struct view *v;
	int rc = view_new(cats, n, &v);
	if (rc) {
		free(f);
		return rc;
	}
	pthread_mutex_init(&f->mu, NULL);
	atomic_init(&f->view, v);
	/* The newer of the built-in list and the system's
	 * (publicsuffix package), as libpsl recommends. */
	f->psl_own = psl_latest(NULL);
	f->psl = f->psl_own ? f->psl_own : psl_builtin();
	*ret = f;
	return 0;
}

int focus_reload(struct focus *f, const struct crawl_category *cats, size_t n)
{
	struct view *v;
	int rc = view_new(cats, n, &v);
	if (rc)
		return rc;
	v->prev = atomic_load_explicit(&f->view, memory_order_relaxed);
	atomic_store_explicit(&f->view, v, memory_order_release);
	return 0;
}

void focus_close(struct focus *f)
{
	if (!f)
		return;
	view_free(atomic_load(&f->view));
	free(f->batch);
	free(f->model);
	free(f->hs);
	free(f->ts);
	free(f->inl);
	shape_free(f);
	pthread_mutex_destroy(&f->mu);
	psl_free(f->psl_own);
	free(f);
}

const struct parse_keywords *focus_keywords(const struct focus *f, uint16_t cat)
{
	const struct view *v = view_of(f);
	return cat < v->n ? v->kw[cat] : NULL;
}

int focus_put_categories(struct focus *f, struct store *s, MDB_txn *txn)
{
	const struct view *v = view_of(f);
	for (size_t i = 0; i < v->n; i++) {
		const struct crawl_category *cat = &v->cats[i];
		char kw[4096];
		size_t len = 0;
		for (size_t k = 0; k < cat->n_keywords && len < sizeof(kw);
		     k++) {
			int w = snprintf(kw + len, sizeof(kw) - len, "%s%s",
					 k ? ", " : "", cat->keywords[k]);
			if (w < 0 || (size_t)w >= sizeof(kw) - len)
				return SC_E_TOOLONG;
			len += (size_t)w;
		}
		struct store_category sc = {
			.name = cat->name,
			.name_len = strlen(cat->name),
			.keywords = kw,
			.keywords_len = len,
			.scope = (unsigned)cat->scope,
			.tunnel = cat->tunnel,
			.min_relevance = cat->min_relevance,
			.has_predict = true,
			.predict = cat->predict,
			.predict_min = cat->predict_min,
			.has_min_harvest = true,
			.min_harvest = cat->min_harvest,
		};
		int rc = store_category_put(s, txn, &sc);
		if (rc)
			return rc;
	}
	return 0;
}

/* The registrable domain of a host (NUL-terminated, lower case), or the
 * host itself when it has none: an IP address, a public suffix, a name
 * of one label. */
static const char *domain_of(const psl_ctx_t *psl, const char *host)
{
	const char *d = psl ? psl_registrable_domain(psl, host) : NULL;
	return d ? d : host;
}

bool focus_wanted(const struct focus *f, uint16_t cat, const char *url,
		  size_t len)
{
	const struct view *v = view_of(f);
	if (cat >= v->n || !v->re[cat])
		return true;
	const struct crawl_category *c = &v->cats[cat];
	/* Keys are NUL-terminated where the crawl keeps them, but the
	 * length is the caller's word: copy when it is not. */
	char buf[NORM_URL_MAX + 1];
	if (url[len] != '\0') {
		if (len > NORM_URL_MAX)
			return false;
		memcpy(buf, url, len);
		buf[len] = '\0';
		url = buf;
	}
	bool in = c->n_include == 0;
	for (size_t k = 0; !in && k < c->n_include; k++)
		in = regexec(&v->re[cat][k], url, 0, NULL, 0) == 0;
	for (size_t k = 0; in && k < c->n_exclude; k++)
		in = regexec(&v->re[cat][c->n_include + k], url, 0, NULL, 0) !=
		     0;
	return in;
}

bool focus_in_scope(const struct focus *f, uint16_t cat, const char *page,
		    const struct norm_url *pu, const char *link,
		    const struct norm_url *lu)
{
	const struct view *v = view_of(f);
	if (cat >= v->n)
		return true;
	enum crawl_scope scope = v->cats[cat].scope;
	if (scope == CRAWL_SCOPE_ANY)
		return true;
	const char *ph = page + pu->host_off, *lh = link + lu->host_off;
	if (pu->host_len == lu->host_len &&
	    strncasecmp(ph, lh, pu->host_len) == 0)
		return true;
	if (scope != CRAWL_SCOPE_DOMAIN || pu->host_type != NORM_HOST_NAME ||
	    lu->host_type != NORM_HOST_NAME)
		return false;
	char a[FRONTIER_HOST_MAX + 1], b[FRONTIER_HOST_MAX + 1];
	if (pu->host_len > FRONTIER_HOST_MAX ||
	    lu->host_len > FRONTIER_HOST_MAX)
		return false;
	for (size_t i = 0; i < pu->host_len; i++)
		a[i] = (char)((ph[i] >= 'A' && ph[i] <= 'Z') ? ph[i] + 32
							     : ph[i]);
	for (size_t i = 0; i < lu->host_len; i++)
		b[i] = (char)((lh[i] >= 'A' && lh[i] <= 'Z') ? lh[i] + 32
							     : lh[i]);
	a[pu->host_len] = b[lu->host_len] = '\0';
	return strcmp(domain_of(f->psl, a), domain_of(f->psl, b)) == 0;
}

bool focus_follow(const struct focus *f, uint16_t cat, bool has_relevance,
		  double relevance, uint8_t offtopic, uint8_t *child)
{
	*child = 0;
	const struct view *v = view_of(f);
	if (cat >= v->n || !has_relevance)
		return true;
	const struct crawl_category *c = &v->cats[cat];
	if (relevance >= c->min_relevance)
		return true;
	unsigned run = offtopic + 1u; /* this page included */
	*child = (uint8_t)(run > UINT8_MAX ? UINT8_MAX : run);
	return run <= c->tunnel;
}

void focus_count(struct focus *f, uint16_t cat, unsigned k, uint64_t n)
{
	if (k >= STORE_FOCUS_COUNTERS || !n || cat >= view_of(f)->n)
		return;
	if (cat >= f->n_batch) {
		size_t n_new = (size_t)cat + 1;
		uint64_t(*b)[STORE_FOCUS_COUNTERS] = realloc(
			f->batch, n_new * sizeof(*b));
		if (!b)
			return; /* a count lost, nothing worse */
		memset(b + f->n_batch, 0, (n_new - f->n_batch) * sizeof(*b));
		f->batch = b;
		f->n_batch = n_new;
	}
	f->batch[cat][k] += n;
	f->dirty = true;
}

int focus_note_also(struct focus *f, struct store *s, MDB_txn *txn,
		    const struct frontier_url *fu, size_t n,
		    const uint16_t *other)
{
	for (size_t i = 0; i < n; i++) {
		uint16_t cat = fu[i].category;
		const struct view *v = view_of(f);
		if (other[i] == FRONTIER_NO_CATEGORY || cat >= v->n)
			continue;
		unsigned char key[SC_KEY_LEN];
		const char *name = v->cats[cat].name;
		sc_url_key(fu[i].url, fu[i].url_len, key);
		int rc = store_also_add(s, txn, key, name, strlen(name));
		if (rc < 0)
			return rc;
		focus_count(f, cat, STORE_FOCUS_ALSO, (uint64_t)rc);
	}
	return 0;
}

int focus_flush(struct focus *f, struct store *s, MDB_txn *txn)
{
	if (!f->dirty)
		return 0;
	const struct view *v = view_of(f);
	for (size_t i = 0; i < f->n_batch && i < v->n; i++) {
		uint64_t *b = f->batch[i], any = 0;
		for (size_t k = 0; k < STORE_FOCUS_COUNTERS; k++)
			any |= b[k];
		if (!any)
			continue;
		const char *name = v->cats[i].name;
		int rc = store_focus_count_add(s, txn, name, strlen(name), b);
		if (rc)
			return rc;
	}
	return 0;
}

void focus_batch_end(struct focus *f, bool ok, struct focus_tally *t)
{
	pthread_mutex_lock(&f->mu);
	explore_batch_end_locked(f, ok);
	pthread_mutex_unlock(&f->mu);
	if (!f->dirty)
		return;
	for (size_t i = 0; i < f->n_batch; i++) {
		if (ok) {
			t->pruned_scope +=
				f->batch[i][STORE_FOCUS_PRUNED_SCOPE];
			t->pruned_relevance +=
				f->batch[i][STORE_FOCUS_PRUNED_RELEVANCE];
			t->pruned_predicted +=
				f->batch[i][STORE_FOCUS_PRUNED_PREDICTED];
			t->also += f->batch[i][STORE_FOCUS_ALSO];
		}
		memset(f->batch[i], 0, sizeof(f->batch[i]));
	}
	f->dirty = false;
}

/* A navigation page of the topic (focus_nav_relevance()): a page off
 * topic with at most NAV_WORDS words of its own, at least NAV_MIN of
 * whose links say on topic (focus_link_says()), and of those that say
 * either, NAV_NUM / NAV_DEN or more on topic. */
#define NAV_WORDS 40u
/* 6, not 4: a digest of six articles of a site of several topics, four
 * of whose teasers had a word of the topic, passed at 4 and opened its
 * other topics' articles (webgen.py's zine, a tuning shape). */
#define NAV_MIN 6u
#define NAV_NUM 1u
#define NAV_DEN 2u

bool focus_nav_candidate(const struct focus *f, uint16_t cat,
			 bool has_relevance, double relevance,
			 const uint64_t *words)
{
	const struct view *v = view_of(f);
	if (!has_relevance || cat >= v->n || !v->kw[cat] ||
	    !v->cats[cat].predict || relevance >= v->cats[cat].min_relevance)
		return false;
	size_t own = 0;
	for (size_t i = 0; words && i < FOCUS_WORDS_CAP && own <= NAV_WORDS;
	     i++)
		own += words[i] != 0;
	return own <= NAV_WORDS;
}

double focus_nav_relevance(const struct focus *f, uint16_t cat,
			   double relevance, unsigned n_on, unsigned n_off)
{
	const struct view *v = view_of(f);
	if (cat >= v->n || relevance >= v->cats[cat].min_relevance)
		return relevance;
	bool nav = n_on >= NAV_MIN &&
		   n_on * NAV_DEN >= (n_on + n_off) * NAV_NUM;
	return nav ? v->cats[cat].min_relevance : relevance;
}
