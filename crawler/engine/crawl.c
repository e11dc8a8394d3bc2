/* crawl.c — the engine's entry points (crawl.h): crawl_run() sets the crawl up,
 * runs the loop and takes it down; stop, signals, the summary of
 * unreachable hosts, and the daemon's side (pause, status, seeds, reload). */
#include "crawl-int.h"

#include <sys/resource.h>

/* A zeroed job of that kind, or NULL. */
struct job *job_new(enum job_kind kind)
{
	struct job *j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->kind = (uint8_t)kind;
	if (kind == JOB_PAGE || kind == JOB_ROBOTS) {
		/* The body's real cap is the fetch's limit (write_cb()). */
		sc_dyn_init(&j->body, SIZE_MAX);
		sc_dyn_init(&j->resp_head, WARC_HEAD_MAX + 1);
	}
	if (kind == JOB_PAGE)
		sc_dyn_init(&j->link_text, SIZE_MAX);
	if (kind == JOB_ROBOTS) {
		char *b = calloc(3, ROBOTS_URL_CAP);
		if (!b) {
			free(j);
			return NULL;
		}
		j->robots_url = b;
		j->robots_next = b + ROBOTS_URL_CAP;
		j->robots_from = b + 2 * ROBOTS_URL_CAP;
	}
	return j;
}

/* The frontier's defer_class: with link prediction, the URLs of
 * priority 2 and 3 (guesses: hosts not seen yet, predictions under
 * 0.5) wait while better ones are under way (docs/focus.md). */
static unsigned defer_class(const struct crawl_opts *o)
{
	for (size_t i = 0; i < o->n_categories; i++)
		if (o->categories[i].predict && o->categories[i].n_keywords)
			return 2;
	return 0;
}

void job_free(struct job *j)
{
	if (!j)
		return;
	if (j->kind == JOB_PAGE || j->kind == JOB_ROBOTS) {
		sc_dyn_free(&j->body);
		free(j->fetch_url);
		free(j->req_head);
		sc_dyn_free(&j->resp_head);
	}
	if (j->kind == JOB_ROBOTS) {
		parse_robots_free(j->rules);
		free(j->robots_url); /* the block of the three */
	}
	if (j->kind == JOB_PAGE) {
		free(j->src);
		free(j->location);
		free(j->redirect);
		free(j->redirect_found);
		free(j->canonical);
		free(j->page_text);
		free(j->links);
		sc_dyn_free(&j->link_text);
		free(j->words);
	}
	free(j);
}

/* A line for the operator: "sigcrawl crawl: ..." in the foreground, the
 * daemon's log (with its level, for journald) under serve. */
SC_PRINTF(3, 4)
void crawl_say(const struct crawl *c, int level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_msg(level, "%s", line);
}

void crawl_die(struct crawl *c, int rc, const char *what)
{
	pthread_mutex_lock(&c->mu);
	if (!c->fatal) {
		c->fatal = rc;
		crawl_say(c, LOG_ERR, "%s: %s", what, store_strerror(rc));
	}
	pthread_mutex_unlock(&c->mu);
}

static void stop_now(struct crawl *c)
{
	if (c->stopping)
		return;
	c->stopping = true;
	if (c->o->daemon && c->o->daemon->stopping)
		c->o->daemon->stopping(c, c->o->daemon->arg);
	/* Transfers in flight and parked leases are abandoned: their URLs
	 * are still queued and are fetched after a restart. */
	while (c->xfers) {
		struct xfer *x = c->xfers;
		xfer_unlink(c, x);
		curl_easy_cleanup(x->easy);
		job_free(x->job);
		curl_slist_free_all(x->headers);
		free(x);
	}
	for (size_t h = 0; h < c->n_robots; h++) {
		struct job *j;
		while ((j = jobq_pop(&c->robots[h].parked))) {
			c->parked--;
			job_free(j);
		}
		while ((j = jobq_pop(&c->robots[h].waiting)))
			job_free(j);
		c->robots[h].parked_answered = 0;
	}
	c->parked_answered = 0;
	sched_check_done(c);
}

static void on_signal(evutil_socket_t sig, short kind, void *arg)
{
	(void)kind;
	struct crawl *c = arg;
	if (!c->o->quiet || c->o->daemon)
		crawl_say(c, LOG_NOTICE, "%s: stopping",
			  sig == SIGINT ? "SIGINT" : "SIGTERM");
	pthread_mutex_lock(&c->mu);
	c->sum.interrupted = true;
	pthread_mutex_unlock(&c->mu);
	stop_now(c);
}

/* A host in trouble as crawl.h shows it, at mono time now. */
static void host_view(const struct trouble *t, uint64_t now,
		      struct crawl_host *out)
{
	*out = t->h;
	out->retry_in_s = !t->h.given_up && t->retry_ms > now
				  ? (double)(t->retry_ms - now) / 1000.0
				  : 0;
}

/* crawl_run()'s result: the hosts held or given up at the end.  Without
 * memory for the list, only their counts. */
static void list_hosts(struct crawl *c, struct crawl_summary *ret)
{
	ret->hosts_held = c->hosts_held;
	ret->hosts_given_up = c->hosts_given_up;
	ret->hosts = NULL;
	ret->n_hosts = 0;
	size_t n = (size_t)c->hosts_held + c->hosts_given_up;
	if (!n || !(ret->hosts = calloc(n, sizeof(*ret->hosts))))
		return;
	uint64_t now = mono_ms();
	for (const struct trouble *t = c->troubles; t && ret->n_hosts < n;
	     t = t->next)
		host_view(t, now, &ret->hosts[ret->n_hosts++]);
}

/* One crawl per store: leases, sequence numbers and host ids live in the
 * crawl's memory, so a second process crawling the same store would fetch
 * leased URLs again and hand out the same numbers.  An exclusive flock()
 * on STORE/crawl.lock, which the kernel drops when the process ends, kill
 * -9 included.  Readers (export, report, search) do not take it. */
static int lock_store(struct crawl *c)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/crawl.lock", c->o->store_dir);
	c->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
	if (c->lock_fd < 0) {
		crawl_say(c, LOG_ERR, "%s: %s", path, strerror(errno));
		return SC_E_IO;
	}
	if (flock(c->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		int e = errno;
		crawl_say(c, LOG_ERR, "%s: %s", c->o->store_dir,
			  e == EWOULDBLOCK ? "in use by another crawl or daemon"
					   : strerror(e));
		return e == EWOULDBLOCK ? SC_E_AGAIN : SC_E_IO;
	}
	return 0;
}

/* The store's keys were made with this run's normalization, or it is
 * recorded now (learn.h).  Inside the transaction that opened the store. */
static int check_keys(struct crawl *c, MDB_txn *txn)
{
	const struct crawl_opts *o = c->o;
	struct keys_norm n = { o->profile, &o->norm };
	char msg[1024], fix[1024];
	bool adopted;
	int rc = keys_check(txn, c->store, c->fr, &n, &adopted, msg, fix,
			    sizeof(msg));
	if (rc == SC_E_PROFILE) {
		crawl_say(c, LOG_ERR, "%s: %s", o->store_dir, msg);
		crawl_say(c, LOG_ERR, "%s", fix);
	} else if (rc) {
		crawl_say(c, LOG_ERR, "%s: %s", o->store_dir, sc_strerror(rc));
	} else if (adopted) {
		keys_describe(o->profile, o->norm.steps, msg, sizeof(msg));
		crawl_say(
			c, LOG_NOTICE,
			"%s: written by an earlier sigcrawl, which did not record "
			"its normalization; every key it holds is in the form of "
			"%s, which is recorded now",
			o->store_dir, msg);
	}
	return rc;
}

/* ---- Opening and closing, step by step ----------------------------------
 *
 * crawl_run() opens each part in turn (the store and what lives in it,
 * focus and the seeds, the re-crawl schedule, the outputs, the fetcher,
 * the threads), runs the loop, and closes them in reverse.  A step that
 * fails says why and returns its error; the closing steps accept a part
 * never opened. */

static struct crawl *crawl_new(const struct crawl_opts *o)
{
	struct crawl *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->o = o;
	c->lock_fd = -1;
	c->t0 = mono_ms();
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->parse_cv, NULL);
	pthread_cond_init(&c->write_cv, NULL);
	if (evthread_use_pthreads() != 0 || !(c->base = event_base_new())) {
		pthread_mutex_destroy(&c->mu);
		pthread_cond_destroy(&c->parse_cv);
		pthread_cond_destroy(&c->write_cv);
		free(c);
		return NULL;
	}
	return c;
}

/* The learner of the adaptive profile (learn.h), in the transaction that
 * opened the store. */
static int open_learner(struct crawl *c, MDB_txn *txn)
{
	const struct crawl_opts *o = c->o;
	if (o->profile != NORM_PROFILE_ADAPTIVE)
		return 0;
	struct adapt_opts ao = {
		o->adaptive.min_support,          o->adaptive.confidence,
		o->adaptive.audit_share,          o->adaptive.transfer,
		o->adaptive.retire_below,         o->adaptive.audit_every,
		o->adaptive.skip_noindex_nofollow
	};
	if (!ao.min_support) /* callers that set none: the defaults */
		ao = (struct adapt_opts){ 3, 0.95, 0.03, true, 0, 0, true };
	int rc = adapt_open(c->store, c->fr, txn, &ao, &c->adapt);
	if (rc)
		crawl_say(c, LOG_ERR, "%s: the learned rules: %s", o->store_dir,
			  sc_strerror(rc));
	return rc;
}

/* The store, locked for this crawl, with the frontier, the check of its
 * keys' normalization and the learner, in one transaction. */
static int open_store(struct crawl *c)
{
	const struct crawl_opts *o = c->o;
	int rc = store_env_open_max(o->store_dir, 0, o->store_max_bytes,
				    &c->env);
	if (rc == SC_E_NOMEM) {
		/* mmap(2) of the map: the address space is limited
		 * (RLIMIT_AS, ulimit -v) below [store] max_size. */
		crawl_say(c, LOG_ERR,
			  "%s: cannot map the store: out of address space for "
			  "[store] max_size = %llu bytes (ulimit -v?); lower "
			  "max_size or raise the limit",
			  o->store_dir,
			  (unsigned long long)(o->store_max_bytes
						       ? o->store_max_bytes
					       : sizeof(size_t) >= 8
						       ? (uint64_t)64 << 30
						       : (uint64_t)1 << 30));
		return rc;
	}
	if (rc) {
		int err = errno;
		crawl_say(c, LOG_ERR, "%s: %s", o->store_dir,
			  rc == SC_E_IO ? strerror(err) : sc_strerror(rc));
		if (full_error(rc, err))
			crawl_say(c, LOG_ERR,
				  "free space on that filesystem, then run "
				  "the same command again");
		return rc;
	}
	if ((rc = lock_store(c)))
		return rc;
	MDB_txn *txn;
	struct frontier_opts fo = {
		.per_host_connections = o->per_host_connections,
		.per_host_delay_ms = o->per_host_delay_ms,
		.defer_class = defer_class(o)
	};
	if ((rc = store_txn_begin(c->env, 0, &txn)))
		return rc;
	if ((rc = store_open(c->env, txn, &c->store)) ||
	    (rc = frontier_open(c->env, txn, &fo, &c->fr))) {
		mdb_txn_abort(txn);
		crawl_say(c, LOG_ERR, "%s: %s", o->store_dir, sc_strerror(rc));
		if (rc == SC_E_FORMAT)
			crawl_say(c, LOG_ERR,
				  "crawl it with the sigcrawl that wrote it, "
				  "or give this one a new --store");
		return rc;
	}
	if ((rc = check_keys(c, txn)) || (rc = open_learner(c, txn))) {
		mdb_txn_abort(txn);
		return rc;
	}
	return store_txn_commit(txn);
}

/* Focus (learn.h) and the seeds, which it files by category; then the
 * re-crawl schedule of a pass or of the daemon. */
static int open_focus(struct crawl *c)
{
	const struct crawl_opts *o = c->o;
	int rc = focus_open(o->categories, o->n_categories, &c->focus);
	if (rc)
		return rc;
	if ((rc = add_seeds(c))) {
		/* A full disk at the start: the seeds' commit. */
		int err = rc == SC_E_IO ? full_errno(c, PART_STORE,
						     store_last_errno())
					: 0;
		if (full_error(rc, err)) {
			char path[4096];
			full_path(c, PART_STORE, path, sizeof(path));
			crawl_say(c, LOG_ERR, "%s: %s", path,
				  err ? strerror(err) : store_strerror(rc));
			crawl_say(c, LOG_ERR,
				  "nothing was queued; free space on that "
				  "filesystem (or raise [store] max_size), "
				  "then run the same command again");
		}
		return rc;
	}
	if ((o->recrawl.pass || (o->daemon && o->recrawl.enabled)) &&
	    (rc = recrawl_start(c)))
		crawl_say(c, LOG_ERR, "%s: the re-crawl schedule: %s",
			  o->store_dir, store_strerror(rc));
	return rc;
}

/* What the writer writes beside the store: the search index, the WARC
 * files. */
static int open_outputs(struct crawl *c)
{
	const struct crawl_opts *o = c->o;
	int rc;
	if (o->search_index &&
	    (rc = search_open(o->store_dir, 0, &c->search))) {
		crawl_say(c, LOG_ERR, "%s/%s: %s", o->store_dir, SEARCH_DB_NAME,
			  rc == SC_E_IO ? strerror(errno) : sc_strerror(rc));
		return rc;
	}
	if (o->warc) {
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s/warc", o->store_dir);
		struct warc_opts wo = { .software = o->user_agent };
		if ((rc = warc_open(dir, &wo, &c->warc))) {
			crawl_say(c, LOG_ERR, "%s: %s", dir,
				  rc == SC_E_IO ? strerror(errno)
						: sc_strerror(rc));
			return rc;
		}
	}
	return 0;
}

/* libcurl's multi handle with its lists and cookie share, and the loop's
 * events: libcurl's timer, the scheduler's, the tick, the writer's
 * wake-up, the signals. */
static int open_fetcher(struct crawl *c)
{
	const struct crawl_opts *o = c->o;
	for (size_t i = 0; i < o->n_connect_to; i++) {
		struct curl_slist *l = curl_slist_append(c->connect_to,
							 o->connect_to[i]);
		if (!l)
			return SC_E_NOMEM;
		c->connect_to = l;
	}
	for (size_t i = 0; i < o->n_headers; i++) {
		struct curl_slist *l = curl_slist_append(c->headers,
							 o->headers[i]);
		if (!l)
			return SC_E_NOMEM;
		c->headers = l;
	}
	/* The cookie jar: one share handle for every transfer (all on the
	 * loop's thread, so it needs no locks). */
	if (o->cookie_jar &&
	    (!(c->share = curl_share_init()) ||
	     curl_share_setopt(c->share, CURLSHOPT_SHARE,
			       CURL_LOCK_DATA_COOKIE) != CURLSHE_OK))
		return SC_E_NOMEM;

	c->multi = curl_multi_init();
	c->curl_timer = evtimer_new(c->base, on_curl_timer, c);
	c->sched_timer = evtimer_new(c->base, on_sched_timer, c);
	c->tick = event_new(c->base, -1, EV_PERSIST, on_tick, c);
	c->wakeup = event_new(c->base, -1, 0, on_wakeup, c);
	c->sigint = evsignal_new(c->base, SIGINT, on_signal, c);
	c->sigterm = evsignal_new(c->base, SIGTERM, on_signal, c);
	if (!c->multi || !c->curl_timer || !c->sched_timer || !c->tick ||
	    !c->wakeup || !c->sigint || !c->sigterm)
		return SC_E_NOMEM;
	curl_multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION, curl_socket_cb);
	curl_multi_setopt(c->multi, CURLMOPT_SOCKETDATA, c);
	curl_multi_setopt(c->multi, CURLMOPT_TIMERFUNCTION, curl_timer_cb);
	curl_multi_setopt(c->multi, CURLMOPT_TIMERDATA, c);
	/* The scheduler limits transfers, in all (concurrency) and per host
	 * (the frontier's leases), so libcurl gets no connection limits of
	 * its own: they count per connect-to destination, not per host, and
	 * with --connect-to sending every host to one address they made
	 * libcurl close one host's idle connection to open another's (on
	 * bench/crawl, 11,816 connections for 15,008 requests).  Its cache
	 * is sized by fd_budget(): up to IDLE_PER_SLOT idle connections per
	 * transfer slot. */
	fd_budget(c);
	if (conn_caches_open(c))
		return SC_E_NOMEM;
	curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS, conn_cache_size(c));
	struct timeval one = { 1, 0 };
	event_add(c->tick, &one);
	event_add(c->sigint, NULL);
	event_add(c->sigterm, NULL);
	return 0;
}

/* The parsers (parser_threads, by default one per core) and the
 * writer. */
static int start_threads(struct crawl *c)
{
	c->n_parsers = c->o->parser_threads;
	if (!c->n_parsers) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		c->n_parsers = n > 0 ? (unsigned)n : 1;
	}
	c->parsers = calloc(c->n_parsers, sizeof(*c->parsers));
	if (!c->parsers)
		return SC_E_NOMEM;
	for (unsigned i = 0; i < c->n_parsers; i++)
		if (pthread_create(&c->parsers[i], NULL, parser_main, c)) {
			c->n_parsers = i;
			return SC_E_NOMEM;
		}
	if (pthread_create(&c->writer, NULL, writer_main, c))
		return SC_E_NOMEM;
	c->writer_started = true;
	return 0;
}

/* The daemon's start hook, then the loop until the crawl is done or
 * stopped. */
static int run_loop(struct crawl *c)
{
	const struct crawl_opts *o = c->o;
	int rc;
	if (o->daemon && o->daemon->start &&
	    (rc = o->daemon->start(c, o->daemon->arg)))
		return rc;
	recrawl_post(c);
	sched_fill(c);
	sched_check_done(c);
	if (!c->done) {
		/* A caller may hold SIGINT and SIGTERM until now (serve
		 * does): the handlers are in, so one that came early is
		 * taken by the loop as a clean stop. */
		sigset_t stop;
		sigemptyset(&stop);
		sigaddset(&stop, SIGINT);
		sigaddset(&stop, SIGTERM);
		pthread_sigmask(SIG_UNBLOCK, &stop, NULL);
		event_base_dispatch(c->base);
	}
	if (!o->quiet)
		progress_show(c, true);
	return 0;
}

/* Stop the threads: parsers first, then the writer, which commits what
 * they handed over.  Returns rc, or the crawl's fatal error, or the end
 * of the re-crawl pass's. */
static int stop_threads(struct crawl *c, int rc)
{
	pthread_mutex_lock(&c->mu);
	c->quit_parsers = true;
	pthread_cond_broadcast(&c->parse_cv);
	pthread_mutex_unlock(&c->mu);
	for (unsigned i = 0; i < c->n_parsers; i++)
		pthread_join(c->parsers[i], NULL);
	if (c->writer_started) {
		pthread_mutex_lock(&c->mu);
		c->quit_writer = true;
		pthread_cond_broadcast(&c->write_cv);
		pthread_mutex_unlock(&c->mu);
		pthread_join(c->writer, NULL);
	}
	if (!rc && c->fatal)
		rc = c->fatal;
	if (!rc && c->fr && (rc = recrawl_end(c)))
		crawl_say(c, LOG_ERR, "%s: ending the re-crawl pass: %s",
			  c->o->store_dir, store_strerror(rc));
	return rc;
}

/* The cookies of the share back into the jar's file (a new file renamed
 * over it, so a jar is whole or the old one), every write checked: a full
 * disk is said with the file's name, and returned (SC_E_IO) unless rc
 * already says something.  libcurl's own writing of the jar ignores its
 * errors. */
static int save_jar(struct crawl *c, int rc)
{
	const char *jar = c->o->cookie_jar;
	/* No transfer read the jar into the share: it is left as it is. */
	if (!c->jar_loaded)
		return rc;
	CURL *e = curl_easy_init();
	struct curl_slist *list = NULL;
	if (!e)
		return rc ? rc : SC_E_NOMEM;
	curl_easy_setopt(e, CURLOPT_SHARE, c->share);
	CURLcode cc = curl_easy_getinfo(e, CURLINFO_COOKIELIST, &list);
	curl_easy_cleanup(e);
	if (cc != CURLE_OK)
		return rc ? rc : SC_E_NOMEM;
	if (!list) /* no cookie: the jar's file is left as it is, as libcurl
		    * leaves it */
		return rc;
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.new", jar);
	FILE *f = fopen(tmp, "w");
	int err = f ? 0 : errno;
	if (f) {
		fputs("# Netscape HTTP Cookie File\n"
		      "# written by sigcrawl at the end of a crawl\n\n",
		      f);
		for (struct curl_slist *l = list; l; l = l->next)
			fprintf(f, "%s\n", l->data);
		if (fflush(f) || fsync(fileno(f)))
			err = errno;
		if (fclose(f) && !err)
			err = errno;
		if (!err && rename(tmp, jar))
			err = errno;
		if (err)
			unlink(tmp);
	}
	curl_slist_free_all(list);
	if (!err)
		return rc;
	crawl_say(c, LOG_ERR, "%s: %s (the cookies of this run are not saved)",
		  jar, strerror(err));
	return rc ? rc : SC_E_IO;
}

/* The fetcher's transfers stopped, the jobs still on their way to the
 * loop answered or freed, the daemon's finish hook, and every host's and
 * libcurl's state freed (the cookies written back to their jar). */
static int close_fetcher(struct crawl *c, int rc)
{
	const struct crawl_opts *o = c->o;
	if (c->multi) {
		stop_now(c);
		curl_multi_cleanup(c->multi);
	}
	for (struct job *j; (j = jobq_pop(&c->to_loop));) {
		if (j->kind == JOB_SEEDS || j->kind == JOB_RELOAD)
			seeds_back(c, j); /* committed, or failed */
		else
			job_free(j);
	}
	if (o->daemon && o->daemon->finish)
		o->daemon->finish(c, o->daemon->arg);
	for (size_t i = 0; i < c->n_old_connect_to; i++)
		curl_slist_free_all(c->old_connect_to[i]);
	free(c->old_connect_to);
	for (size_t h = 0; h < c->n_robots; h++) {
		struct job *w;
		while ((w = jobq_pop(&c->robots[h].waiting)))
			job_free(w);
		parse_robots_free(c->robots[h].rules);
		free(c->robots[h].retried);
	}
	free(c->robots);
	robots_reqs_free(c);
	while (c->troubles) {
		struct trouble *t = c->troubles;
		c->troubles = t->next;
		free(t);
	}
	curl_slist_free_all(c->connect_to);
	curl_slist_free_all(c->headers);
	if (c->share) {
		rc = save_jar(c, rc);
		curl_share_cleanup(c->share);
	}
	conn_caches_close(c);
	struct event **evs[] = { &c->curl_timer, &c->sched_timer, &c->tick,
				 &c->wakeup,     &c->sigint,      &c->sigterm };
	for (size_t i = 0; i < sizeof(evs) / sizeof(*evs); i++)
		if (*evs[i])
			event_free(*evs[i]);
	event_base_free(c->base);
	return rc;
}

/* The outputs and the store, in reverse of their opening.  Returns rc, or
 * the WARC file's error on closing. */
static int close_store(struct crawl *c, int rc)
{
	if (c->warc && warc_close(c->warc) && !rc) {
		crawl_say(c, LOG_ERR, "closing the WARC file: %s",
			  strerror(errno));
		rc = SC_E_IO;
	}
	search_close(c->search);
	adapt_close(c->adapt);
	frontier_close(c->fr);
	focus_close(c->focus);
	store_close(c->store);
	store_env_close(c->env);
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	return rc;
}

static void crawl_free(struct crawl *c)
{
	free(c->parsers);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->parse_cv);
	pthread_cond_destroy(&c->write_cv);
	free(c);
}

/* The summary's categories that scored pages this run and none on
 * topic (struct crawl_summary.offtopic). */
static void list_offtopic(struct crawl *c, struct crawl_summary *ret)
{
	const struct crawl_opts *o = c->o;
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < o->n_categories && i < CRAWL_CATEGORIES_LISTED;
	     i++) {
		if (!o->categories[i].n_keywords || !c->cat_since[i].scored)
			continue;
		if (ret->n_harvest < CRAWL_OFFTOPIC_LISTED)
			ret->harvest[ret->n_harvest++] = (struct crawl_harvest){
				.category = (uint16_t)i,
				.scored = c->cat_since[i].scored,
				.on_topic = c->cat_since[i].on_topic,
			};
		struct focus_floor fl;
		if (ret->n_harvest && c->focus &&
		    ret->harvest[ret->n_harvest - 1].category == i &&
		    focus_floor(c->focus, (uint16_t)i, &fl) && fl.explores) {
			struct crawl_harvest *h =
				&ret->harvest[ret->n_harvest - 1];
			h->has_floor = true;
			h->floor_scored = fl.scored;
			h->floor_on = fl.on;
			h->explored = fl.explored;
			h->explored_on = fl.explored_on;
		}
		if (c->cat_since[i].on_topic)
			continue;
		if (ret->n_offtopic < CRAWL_OFFTOPIC_LISTED)
			ret->offtopic[ret->n_offtopic] =
				(struct crawl_offtopic){
					.category = (uint16_t)i,
					.scored = c->cat_since[i].scored,
				};
		ret->n_offtopic++;
	}
	pthread_mutex_unlock(&c->mu);
}

int crawl_run(const struct crawl_opts *o, struct crawl_summary *ret)
{
	if (ret)
		memset(ret, 0, sizeof(*ret));
	struct crawl *c = crawl_new(o);
	if (!c)
		return SC_E_NOMEM;
	int rc = open_store(c);
	if (!rc)
		rc = open_focus(c);
	if (!rc)
		rc = open_outputs(c);
	if (!rc)
		rc = open_fetcher(c);
	if (!rc)
		rc = start_threads(c);
	if (!rc)
		rc = run_loop(c);
	rc = stop_threads(c, rc);
	if (ret) {
		*ret = c->sum;
		ret->seconds = (double)(mono_ms() - c->t0) / 1000.0;
		list_hosts(c, ret);
		list_offtopic(c, ret);
		ret->transfers_max = c->max_running;
		ret->in_flight_peak = c->peak_running;
		/* A crawl cut short has not said its last word on a host. */
		if (!rc && !c->sum.interrupted && !c->fatal &&
		    !(o->max_pages && c->started >= o->max_pages))
			lost_hosts_list(c, ret);
	}
	lost_hosts_free(c);
	rc = close_fetcher(c, rc);
	rc = close_store(c, rc);
	crawl_free(c);
	return rc;
}

struct event_base *crawl_base(struct crawl *c)
{
	return c->base;
}

void crawl_stop(struct crawl *c)
{
	stop_now(c);
}

void crawl_pause(struct crawl *c, bool paused)
{
	if (c->paused == paused)
		return;
	c->paused = paused;
	if (!paused) {
		sched_fill(c);
		sched_check_done(c);
	}
}

/* crawl_status()'s detail: hosts held back on purpose.  A host with a
 * trouble is held for a failure instead (held[]), and listed there. */
static void status_waiting(struct crawl *c, MDB_txn *txn,
			   struct crawl_status *ret)
{
	uint64_t now = mono_ms();
	for (size_t h = 1; h < c->n_robots; h++) {
		const struct robots_slot *s = &c->robots[h];
		int why;
		unsigned count, left = 0;
		if (s->trouble)
			continue;
		/* Listed while the hold lasts: the answers in a row are
		 * counted on until the host answers otherwise, but a host
		 * whose last hold has ended is not held. */
		if (s->backoffs && s->backoff_until_ms > now) {
			why = CRAWL_WAIT_RETRY_AFTER;
			count = s->backoffs;
			left = (unsigned)((s->backoff_until_ms - now + 999) /
					  1000);
			ret->hosts_retry_after++;
		} else if (s->state == R_FETCHING && s->parked.n) {
			why = CRAWL_WAIT_ROBOTS;
			count = (unsigned)s->parked.n;
			ret->hosts_robots++;
		} else {
			continue;
		}
		if (ret->n_waiting_listed == CRAWL_HOSTS_LISTED || !txn)
			continue;
		struct crawl_waiting *w = &ret->waiting[ret->n_waiting_listed];
		if (frontier_host_name(c->fr, txn, (uint32_t)h, w->name,
				       sizeof(w->name)) != 0)
			continue;
		w->reason = why;
		w->count = count;
		w->seconds_left = left;
		ret->n_waiting_listed++;
	}
}

/* crawl_status()'s detail: the categories of the running config, with
 * their focus counters from the store. */
static void status_categories(struct crawl *c, MDB_txn *txn,
			      struct crawl_status *ret)
{
	const struct crawl_opts *o = c->o;
	ret->n_categories = o->n_categories;
	for (size_t i = 0; i < o->n_categories &&
			   ret->n_cats_listed < CRAWL_CATEGORIES_LISTED;
	     i++) {
		const struct crawl_category *cat = &o->categories[i];
		struct crawl_category_status *cs =
			&ret->cats[ret->n_cats_listed++];
		size_t len = strlen(cat->name);
		if (len > STORE_CATEGORY_NAME_MAX)
			len = STORE_CATEGORY_NAME_MAX;
		memcpy(cs->name, cat->name, len);
		cs->name[len] = '\0';
		cs->keywords = (unsigned)cat->n_keywords;
		cs->min_relevance = cat->min_relevance;
		uint64_t k[STORE_FOCUS_COUNTERS] = { 0 };
		if (txn && store_focus_count_get(c->store, txn, cat->name,
						 strlen(cat->name), k) != 0)
			memset(k, 0, sizeof(k));
		cs->pruned_scope = k[STORE_FOCUS_PRUNED_SCOPE];
		cs->pruned_relevance = k[STORE_FOCUS_PRUNED_RELEVANCE];
		cs->pruned_predicted = k[STORE_FOCUS_PRUNED_PREDICTED];
		cs->also = k[STORE_FOCUS_ALSO];
		cs->looks = k[STORE_FOCUS_LOOKS];
		struct focus_floor fl;
		if (c->focus && focus_floor(c->focus, (uint16_t)i, &fl)) {
			cs->has_floor = true;
			cs->min_harvest = fl.min_harvest;
			cs->floor_scored = fl.scored;
			cs->floor_on = fl.on;
			cs->explored = fl.explored;
			cs->explored_on = fl.explored_on;
		}
		pthread_mutex_lock(&c->mu);
		cs->pages = c->cat_since[i].pages;
		cs->scored = c->cat_since[i].scored;
		cs->on_topic = c->cat_since[i].on_topic;
		pthread_mutex_unlock(&c->mu);
	}
}

/* crawl_status()'s detail: everything that reads the store (one read
 * transaction; LMDB readers never wait for the writer) or walks every
 * host.  Without a transaction, the figures that need one stay 0. */
static void status_detail(struct crawl *c, uint32_t hosts,
			  struct crawl_status *ret)
{
	MDB_txn *txn = NULL;
	size_t records = 0;
	if (store_txn_begin(c->env, MDB_RDONLY, &txn) != 0)
		txn = NULL;
	if (txn && store_count(c->store, txn, &records) == 0)
		ret->store_records = records;
	for (uint32_t h = 1; h <= hosts; h++)
		ret->store_fetches += frontier_host_fetched(c->fr, h);
	status_waiting(c, txn, ret);
	status_categories(c, txn, ret);
	if (txn)
		mdb_txn_abort(txn);
}

void crawl_status(struct crawl *c, bool detail, struct crawl_status *ret)
{
	memset(ret, 0, sizeof(*ret));
	struct frontier_stats st;
	frontier_stats(c->fr, &st);
	pthread_mutex_lock(&c->mu);
	ret->sum = c->sum;
	uint64_t pending = c->in_pipeline;
	pthread_mutex_unlock(&c->mu);
	ret->sum.seconds = (double)(mono_ms() - c->t0) / 1000.0;
	if (c->o->cluster) {
		ret->shard = c->o->cluster->shard;
		ret->shards = c->o->cluster->shards;
	}
	ret->queued = st.queued;
	ret->seen = st.seen;
	ret->hosts = st.hosts;
	ret->in_flight = c->running;
	ret->concurrency = c->o->concurrency;
	ret->transfers_max = c->max_running;
	ret->in_flight_peak = c->peak_running;
	ret->rate = c->rate;
	ret->started = c->started;
	memcpy(ret->latency_count, c->latency_count,
	       sizeof(ret->latency_count));
	ret->latency_sum = c->latency_sum;
	ret->sum.hosts_held = c->hosts_held;
	ret->adaptive = c->adapt != NULL;
	memset(&ret->rules, 0, sizeof(ret->rules));
	if (c->adapt)
		adapt_stats(c->adapt, &ret->rules);
	ret->recrawl = c->o->recrawl.pass ||
		       (c->o->daemon && c->o->recrawl.enabled);
	ret->scheduled = c->due_scheduled;
	pthread_mutex_lock(&c->mu);
	ret->revisits_queued = c->revisits_queued;
	pthread_mutex_unlock(&c->mu);
	ret->due = c->due_overdue + ret->revisits_queued;
	ret->sum.hosts_given_up = c->hosts_given_up;
	ret->n_held_listed = 0;
	uint64_t now = mono_ms();
	for (const struct trouble *t = c->troubles;
	     t && ret->n_held_listed < CRAWL_HOSTS_LISTED; t = t->next)
		if (!t->h.given_up)
			host_view(t, now, &ret->held[ret->n_held_listed++]);
	const struct crawl_opts *o = c->o;
	bool limit = o->max_pages && c->started >= o->max_pages;
	bool full = full_now(c, &ret->full);
	if (c->stopping)
		ret->state = CRAWL_STOPPING;
	else if (full)
		ret->state = CRAWL_DISK_FULL;
	else if (c->paused)
		ret->state = CRAWL_PAUSED;
	else if ((limit && !c->running && !c->parked && !pending) ||
		 sched_idle(c))
		ret->state = CRAWL_IDLE;
	else
		ret->state = CRAWL_RUNNING;
	ret->detail = detail;
	if (detail) {
		status_detail(c, st.hosts, ret);
		ret->hosts_active = frontier_hosts_active(c->fr);
		/* The frontier's waiting hosts include those held for a
		 * failure or by a Retry-After (frontier_hold()): they are
		 * counted apart, as held and as waiting. */
		uint32_t apart = c->hosts_held + ret->hosts_retry_after;
		ret->hosts_delayed = st.waiting > apart ? st.waiting - apart
							: 0;
	}
}

int crawl_rules(struct crawl *c,
		int (*fn)(void *arg, const struct adapt_rule_info *r),
		void *arg)
{
	MDB_txn *txn;
	if (!c->adapt)
		return 0;
	if (store_txn_begin(c->env, MDB_RDONLY, &txn) != 0)
		return SC_E_DB;
	int rc = adapt_list(c->store, txn, fn, arg);
	mdb_txn_abort(txn);
	return rc;
}

int crawl_add_seeds(struct crawl *c, struct crawl_seeds *s)
{
	if (c->stopping)
		return SC_E_AGAIN;
	struct job *j = job_new(JOB_SEEDS);
	if (!j)
		return SC_E_NOMEM;
	j->seeds = s;
	c->seed_jobs++;
	parse_submit(c, j, false);
	return 0;
}

int crawl_reload(struct crawl *c, const struct crawl_opts *o)
{
	int rc = focus_reload(c->focus, o->categories, o->n_categories);
	if (rc)
		return rc;
	struct curl_slist *l = NULL;
	for (size_t i = 0; i < o->n_connect_to; i++) {
		struct curl_slist *n = curl_slist_append(l, o->connect_to[i]);
		if (!n) {
			curl_slist_free_all(l);
			return SC_E_NOMEM;
		}
		l = n;
	}
	struct job *j = job_new(JOB_RELOAD);
	struct curl_slist **v = realloc(c->old_connect_to,
					(c->n_old_connect_to + 1) * sizeof(*v));
	if (v)
		c->old_connect_to = v;
	if (!j || !v) {
		free(j);
		curl_slist_free_all(l);
		return SC_E_NOMEM;
	}
	/* Transfers in flight still use the old list: it is freed at the
	 * end. */
	c->old_connect_to[c->n_old_connect_to++] = c->connect_to;
	c->connect_to = l;
	c->o = o;
	struct frontier_opts fo = {
		.per_host_connections = o->per_host_connections,
		.per_host_delay_ms = o->per_host_delay_ms,
		.defer_class = defer_class(o)
	};
	frontier_set_opts(c->fr, &fo);
	/* No connection limits for libcurl (see crawl_run()), only the
	 * size of its cache. */
	fd_budget(c);
	curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS, conn_cache_size(c));

	c->seed_jobs++;
	parse_submit(c, j, false);
	sched_fill(c);
	sched_check_done(c);
	return 0;
}
