/* parsers.c — the parser threads: each job's body parsed (links, text,
 * signatures, relevance) or its robots.txt read, off the loop. */
#include "crawl-int.h"

#include <sys/resource.h>
#include <unistd.h>

/* How much nicer than the process the parser threads run.  They are
 * the crawl's CPU; the loop is its clock: a parser that keeps a core
 * while the loop's timer or socket is due makes a host's next request
 * late (5,000 hosts on two cores: the gap after a robots.txt 80 ms past
 * the delay on average), and every late request stretches the crawl.
 * Nicer parsers still take every cycle the loop and the writer leave;
 * they give way when either wakes. */
#define PARSER_NICE 5

/* Append l to the job's links. */
static int push_link(struct job *j, const struct link *l)
{
	if (j->n_links == j->cap_links) {
		size_t cap = j->cap_links ? j->cap_links * 2 : 32;
		struct link *v = realloc(j->links, cap * sizeof(*v));
		if (!v)
			return SC_E_NOMEM;
		j->links = v;
		j->cap_links = cap;
	}
	j->links[j->n_links++] = *l;
	return 0;
}

static int keep_link(void *ctx, const struct parse_link *l)
{
	struct job *j = ctx;
	/* The parser decided, over every occurrence of the URL (parse.h);
	 * an X-Robots-Tag nofollow holds for every link of the page. */
	if (!l->follow || (j->robots_header & PARSE_ROBOTS_NOFOLLOW))
		return 0;
	size_t n = (size_t)l->u->len + 1, nf = l->found_len + 1;
	size_t at = j->link_text.len;
	int rc = sc_dyn_add(&j->link_text, l->url, n);
	if (rc == 0)
		rc = sc_dyn_add(&j->link_text, l->found, nf);
	if (rc == 0 && l->anchor_len)
		rc = sc_dyn_add(&j->link_text, l->anchor, l->anchor_len);
	if (rc)
		return rc;
	return push_link(j, &(struct link){
				    .off = (uint32_t)at,
				    .found_off = (uint32_t)(at + n),
				    .found_len = (uint16_t)l->found_len,
				    .hits = l->hits,
				    .anchor_off = (uint32_t)(at + n + nf),
				    .anchor_len = (uint16_t)l->anchor_len,
				    .u = *l->u,
			    });
}

/* One entry of a sitemap (or of a sitemap index): a link of the job,
 * with its lastmod (as an HTTP date, what a Last-Modified would say) and
 * changefreq for the first re-crawl interval. */
struct sitemap_ctx {
	struct crawl *c;
	struct job *j;
	bool index;
};

static int keep_sitemap_entry(void *arg, const struct parse_sitemap_entry *e)
{
	struct sitemap_ctx *x = arg;
	struct job *j = x->j;
	char url[NORM_URL_MAX + 1], found[NORM_URL_MAX + 1], date[40];
	struct norm_url u, fu;
	/* Sitemaps give absolute URLs (sitemaps.org): nothing resolves. */
	if (crawl_seed_url(&x->c->o->norm, e->loc, e->loc_len, url, &u, found,
			   &fu)) {
		j->links_bad++;
		return 0;
	}
	size_t dl = 0;
	if (e->lastmod_ms > 0) {
		time_t t = (time_t)(e->lastmod_ms / 1000);
		struct tm tm;
		if (gmtime_r(&t, &tm))
			dl = strftime(date, sizeof(date),
				      "%a, %d %b %Y %H:%M:%S GMT", &tm);
	}
	size_t n = (size_t)u.len + 1, nf = (size_t)fu.len + 1;
	size_t at = j->link_text.len;
	int rc = sc_dyn_add(&j->link_text, url, n);
	if (!rc)
		rc = sc_dyn_add(&j->link_text, found, nf);
	if (!rc && dl)
		rc = sc_dyn_add(&j->link_text, date, dl + 1);
	if (rc)
		return rc;
	return push_link(j, &(struct link){
				    .off = (uint32_t)at,
				    .found_off = (uint32_t)(at + n),
				    .found_len = fu.len,
				    .lastmod_off = (uint32_t)(at + n + nf),
				    .lastmod_len = (uint8_t)dl,
				    .lastmod_ms = dl ? e->lastmod_ms : 0,
				    .changefreq = (uint8_t)e->changefreq,
				    .sitemap = x->index,
				    .u = u,
			    });
}

/* A sitemap's body: its entries become the job's links (a sitemap
 * index's, sitemaps). */
static void parse_sitemap_job(struct crawl *c, struct job *j)
{
	struct sitemap_ctx x = { c, j, false };
	int rc = parse_sitemap(j->body.p, j->body.len, &x.index,
			       keep_sitemap_entry, &x);
	if (rc == SC_E_LIMIT)
		crawl_say(c, LOG_WARNING,
			  "%s: a sitemap over the protocol's limits (50,000 "
			  "URLs, 50 MB); the URLs before the limit are kept",
			  j->lease.url);
	else if (rc == SC_E_INVAL)
		j->links_bad++;
	pthread_mutex_lock(&c->mu);
	c->sum.sitemap_urls += j->n_links;
	pthread_mutex_unlock(&c->mu);
}

static bool is_html(const struct job *j)
{
	const char *t = j->content_type;
	if (!t[0]) /* no type: sniff the way browsers start to */
		return j->body.len &&
		       (j->body.p[0] == '<' ||
			(j->body.len > 3 && j->body.p[0] == '\xef'));
	return strncasecmp(t, "text/html", 9) == 0 ||
	       strncasecmp(t, "application/xhtml+xml", 21) == 0;
}

/* The body text goes to the writer for the search index: the parser's
 * buffer itself, trimmed to its length. */
static void keep_text(struct job *j, struct parse_text *t, bool noindex)
{
	if (!t->buf)
		return;
	char *s = realloc(t->buf, t->len + 1);
	j->page_text = s ? s : t->buf;
	j->page_text_len = t->len;
	j->noindex = noindex;
	*t = (struct parse_text){ 0 };
}

static void parse_job(struct crawl *c, struct job *j)
{
	const struct crawl_opts *o = c->o;
	/* A body that is not parsed says what its header says. */
	j->robots_noindex = j->robots_header & PARSE_ROBOTS_NOINDEX;
	j->robots_nofollow = j->robots_header & PARSE_ROBOTS_NOFOLLOW;
	if (j->status >= 300 && j->status < 400 && j->location) {
		/* Out of memory: the redirect is not followed, as a page
		 * whose parse could not be had is not (below). */
		j->redirect = malloc(NORM_URL_MAX + 1);
		int rc = j->redirect
				 ? norm_url(&o->norm, NULL, j->location,
					    strlen(j->location), j->redirect,
					    NORM_URL_MAX + 1, &j->redirect_u)
				 : SC_E_NOMEM;
		char found[NORM_URL_MAX + 1];
		struct norm_url fu;
		if (rc == 0 && norm_url(&norm_as_found, NULL, j->location,
					strlen(j->location), found,
					sizeof(found), &fu) == 0)
			j->redirect_found = strndup(found, fu.len);
		if (rc == 0) {
			j->has_redirect = true;
			if (j->lease.redirects >= 10)
				j->error = STORE_ERROR_TOO_MANY_REDIRECTS;
		} else if (rc != SC_E_NOMEM) {
			j->links_bad++;
		}
	} else if (j->status >= 200 && j->status < 300 && j->lease.sitemap) {
		parse_sitemap_job(c, j);
	} else if (j->status >= 200 && j->status < 300 && is_html(j)) {
		struct parse_page *pg = malloc(sizeof(*pg));
		if (pg) {
			unsigned sig =
				o->signature == CRAWL_SIGNATURE_MD5_TEXT
					? PARSE_MD5
				: o->signature == CRAWL_SIGNATURE_MD5_TEXT_SIZE
					? PARSE_MD5_SIZE
					: 0;
			struct parse_text text = { 0 };
			if (focus_predicts(c->focus, j->lease.category) &&
			    !j->words)
				j->words = malloc(FOCUS_WORDS_CAP *
						  sizeof(*j->words));
			struct parse_doc_opts po = {
				.content_type = j->content_type,
				.body_size = j->body.len,
				/* SimHash only when near-duplicates are
				 * looked for, or rules learned: it is a
				 * tenth of the page's CPU (docs/bench.md). */
				.flags = sig |
					 (o->near_k >= 0 || c->adapt
						  ? PARSE_SIMHASH
						  : 0) |
					 (o->search_index ? PARSE_TEXT : 0) |
					 /* Adaptive: a page's other formats
					  * are the page. */
					 (c->adapt ? PARSE_NO_FORMATS : 0),
				.text = &text,
				.keywords = focus_keywords(c->focus,
							   j->lease.category),
				.words = j->words,
				.words_cap = j->words ? FOCUS_WORDS_CAP : 0,
				.robots_agent = o->robots_token,
			};
			int rc = parse_document(j->body.p, j->body.len,
						job_url(j), job_url_len(j),
						&o->norm, &po, keep_link, j,
						pg);
			if (rc == 0) {
				memcpy(j->title, pg->title, sizeof(j->title));
				j->links_bad += pg->links_bad;
				j->has_sig = sig != 0;
				memcpy(j->sig,
				       sig == PARSE_MD5 ? pg->md5
							: pg->md5_size,
				       sizeof(j->sig));
				j->has_simhash = o->near_k >= 0;
				/* The learned rules tell a page with a
				 * changing line from another page by it
				 * (adapt.c, NOISE_BITS). */
				j->rules_simhash = c->adapt != NULL;
				j->simhash = pg->simhash;
				j->media = pg->media;
				/* text_empty counts words, and only
				 * the SimHash tokenizer counts them. */
				j->text_empty = pg->text_bytes == 0;
				j->robots_noindex = pg->noindex ||
						    (j->robots_header &
						     PARSE_ROBOTS_NOINDEX);
				j->robots_nofollow = pg->nofollow ||
						     (j->robots_header &
						      PARSE_ROBOTS_NOFOLLOW);
				keep_text(j, &text, j->robots_noindex);
				j->has_relevance = pg->has_relevance;
				j->relevance = pg->relevance;
				if (c->adapt && !j->canonical &&
				    pg->has_canonical &&
				    strcmp(pg->canonical, job_url(j)) != 0)
					j->canonical = strdup(pg->canonical);
			}
			parse_text_free(&text);
			free(pg);
		}
	}
	/* The body goes no further, unless to the WARC files. */
	if (!o->warc) {
		sc_dyn_free(&j->body);
	}
}

/* The rules of a robots.txt answer: RFC 9309 §2.3.1.3 (4xx: allow all). */
static struct parse_robots *robots_rules(struct crawl *c, int status,
					 const char *body, size_t len)
{
	struct parse_robots *r = NULL;
	int rc = status >= 200 && status < 300
			 ? parse_robots(body ? body : "", len,
					c->o->robots_token, &r)
			 : parse_robots_allow_all(&r);
	return rc ? NULL : r;
}

/* A robots.txt job on a parser: before the fetch, look for an answer
 * kept by an earlier run; after it, parse what came. */
static void robots_job(struct crawl *c, struct job *j)
{
	if (j->fetched) {
		j->rules = robots_rules(c, (int)j->status, j->body.p,
					j->body.len);
		return;
	}
	MDB_txn *txn;
	if (mdb_txn_begin(c->env, NULL, MDB_RDONLY, &txn))
		return; /* not found, as it were: it is fetched */
	/* Another host's answer, when this host's robots.txt redirects
	 * to a URL that host's job asked for (robots-gate.c). */
	const char *url = j->robots_from[0] ? j->robots_from : j->robots_url;
	struct store_robots r;
	if (store_robots_get(c->store, txn, url, strlen(url), &r) == 0 &&
	    r.expires_at > (int64_t)wall_ms()) {
		j->rules = robots_rules(c, r.status, r.body, r.body_len);
		j->robots_expires = r.expires_at;
		j->robots_cached = j->rules != NULL;
		/* That answer is this host's too, as if it had come by
		 * the redirect: the writer keeps it under this host's URL
		 * (a fetched job goes on to the writer, parser_main()). */
		if (j->rules && j->robots_from[0] &&
		    sc_dyn_add(&j->body, r.body, r.body_len) == 0) {
			j->fetched = true;
			j->fetched_at = (uint64_t)r.fetched_at;
			j->status = r.status;
			j->robots_cached = false;
		}
	}
	mdb_txn_abort(txn);
}

void *parser_main(void *arg)
{
	struct crawl *c = arg;
	/* Per thread on Linux: the nice value of this thread alone. */
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, (id_t)gettid());
	if (errno == 0)
		(void)setpriority(PRIO_PROCESS, (id_t)gettid(),
				  nice + PARSER_NICE);
	for (;;) {
		pthread_mutex_lock(&c->mu);
		while (!c->to_parse.head && !c->quit_parsers)
			pthread_cond_wait(&c->parse_cv, &c->mu);
		struct job *j = jobq_pop(&c->to_parse);
		pthread_mutex_unlock(&c->mu);
		if (!j)
			break;
		if (j->kind == JOB_ROBOTS) {
			robots_job(c, j);
			if (!j->fetched) { /* a lookup: back to the loop */
				pthread_mutex_lock(&c->mu);
				jobq_push(&c->to_loop, j);
				pthread_mutex_unlock(&c->mu);
				event_active(c->wakeup, EV_READ, 0);
				continue;
			}
		} else {
			parse_job(c, j);
		}
		pthread_mutex_lock(&c->mu);
		jobq_push(&c->to_write, j);
		writer_wake(c);
		pthread_mutex_unlock(&c->mu);
	}
	return NULL;
}

void writer_wake(struct crawl *c)
{
	if (!c->writer_lingers || c->to_write.n >= WRITE_BATCH / 4)
		pthread_cond_signal(&c->write_cv);
}

/* Hand a finished job on: to a parser, or straight to the writer when
 * there is nothing to parse. */
void parse_submit(struct crawl *c, struct job *j, bool parse)
{
	pthread_mutex_lock(&c->mu);
	if (j->kind == JOB_PAGE) /* robots.txt jobs keep leases parked */
		c->in_pipeline++;
	if (parse) {
		jobq_push(&c->to_parse, j);
		pthread_cond_signal(&c->parse_cv);
	} else {
		jobq_push(&c->to_write, j);
		writer_wake(c);
	}
	pthread_mutex_unlock(&c->mu);
}
