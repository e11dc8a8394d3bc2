/* serve.c — `sigcrawl serve`: the daemon.
 *
 * The crawl engine in long-running mode (crawl.h, "The daemon's side")
 * with, on the same event loop: the control API (HTTP/1.1 on a Unix
 * socket or a loopback TCP port; the framing, the routing and the answers
 * are control.c's, the listener and the connections serve-conn.c's),
 * SIGHUP reloads, and systemd notification (READY, STATUS, RELOADING,
 * STOPPING, WATCHDOG).  Seeds submitted over the API go to the writer
 * thread as one job per request; the answer is sent when it committed.
 *
 * This file holds cmd_serve(), the config versions (struct version,
 * serve-int.h) and their reload, and the engine's hooks: the start (the
 * listener, SIGHUP, the watchdog), the tick (systemd's status), the stop
 * and the finish. */
#include <curl/curl.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <signal.h>
#include <sys/statvfs.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "cluster-node.h"
#include "daemon.h"
#include "learn.h"
#include "crawl.h"
#include "log.h"
#include "serve-int.h"

#define CMD "serve"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sigcrawl serve [-c FILE] [options]\n"
		"\n"
		"The daemon: crawls whatever the frontier holds, waits for seeds\n"
		"submitted on the control socket ([control] listen) when it is\n"
		"empty, reloads the config on SIGHUP and stops cleanly on SIGTERM\n"
		"or SIGINT.  Notifies systemd (Type=notify).\n"
		"\n");
	setup_usage_options(f);
	fprintf(f,
		"  --verbose             log info lines (progress, requests)\n");
}

/* Descriptors: the soft limit goes up to the hard one, as systemd advises
 * for programs that do not use select() (libevent and curl's multi socket
 * API here use epoll and poll); the unit sets both (LimitNOFILE).  A
 * limit too low for the crawl's connections and the control connections
 * together is worth a warning: accepting then pauses while it is reached
 * (serve-conn.c's on_accept_error()), but fetches fail. */
static void raise_nofile(unsigned concurrency)
{
	unsigned long long from, lim = sc_raise_nofile(&from);
	if (!lim)
		return;
	if (from)
		log_msg(LOG_INFO,
			"file descriptors: the limit raised from %llu to %llu",
			from, lim);
	unsigned long long need = (unsigned long long)concurrency +
				  CONTROL_CONNECTIONS_MAX + 64;
	if (lim < need)
		log_msg(LOG_WARNING,
			"only %llu file descriptors (RLIMIT_NOFILE): the "
			"crawl's %u connections and up to %u control "
			"connections may need %llu; raise LimitNOFILE or "
			"ulimit -n",
			lim, concurrency, CONTROL_CONNECTIONS_MAX, need);
}

/* ---------------------------------------------------------------------
 * Reload
 */

/* [normalize]: the running normalization is the one the store's keys
 * were made with (crawl_run() checked it, learn.h), and a store is never
 * re-keyed.  So a change cannot apply now, and a restart with it would
 * be refused: the warning says that, not "restart to apply", unless the
 * same reload also names another store. */
static void keep_norm(struct version *v, const struct version *old)
{
	struct crawl_opts *n = &v->o;
	const struct crawl_opts *o = &old->o;
	struct keys_norm kn = { n->profile, &n->norm };
	struct keys_norm ko = { o->profile, &o->norm };
	if (keys_same(&kn, &ko)) {
		/* Other names for the same keys: nothing to say. */
		n->profile = o->profile;
		n->norm = o->norm;
		return;
	}
	char was[700], now[700];
	keys_describe(o->profile, o->norm.steps, was, sizeof(was));
	keys_describe(n->profile, n->norm.steps, now, sizeof(now));
	if (strcmp(n->store_dir, o->store_dir) != 0)
		log_msg(LOG_WARNING,
			"reload: %s: [normalize] asks for %s: it cannot change "
			"while the daemon runs; keeping %s (restart to crawl "
			"the new [crawl] store with %s)",
			v->st.config, now, was, now);
	else
		log_msg(LOG_WARNING,
			"reload: %s: [normalize] asks for %s, but the store's "
			"keys were made with %s and a store is never re-keyed: "
			"the daemon goes on with %s, and a restart with this "
			"config will be refused (exit status 2); to crawl with "
			"%s, also set [crawl] store to a new store and restart",
			v->st.config, now, was, was, now);
	n->profile = o->profile;
	n->norm = o->norm;
}

/* Keys that cannot change while the daemon runs: a changed value is
 * reported and the running one kept.  [control] listen is compared with
 * the address the daemon listens on, not with the previous version's
 * (which may itself have asked for another, in vain). */
static void keep_fixed(const struct daemon *d, struct version *v,
		       const struct version *old)
{
	struct crawl_opts *n = &v->o;
	const struct crawl_opts *o = &old->o;
	const char *file = v->st.config;
	keep_norm(v, old);
#define KEEP(cond, key, field)                                                 \
	do {                                                                   \
		if (cond) {                                                    \
			log_msg(LOG_WARNING,                                   \
				"reload: %s: %s cannot change while the "      \
				"daemon runs; keeping the running value "      \
				"(restart to apply)",                          \
				file, key);                                    \
			n->field = o->field;                                   \
		}                                                              \
	} while (0)
	KEEP(strcmp(n->store_dir, o->store_dir) != 0, "[crawl] store",
	     store_dir);
	KEEP(n->signature != o->signature, "[dedup] signature", signature);
	KEEP(n->near_k != o->near_k, "[dedup] near_duplicate", near_k);
	KEEP(n->follow_duplicate_links != o->follow_duplicate_links,
	     "[dedup] follow_duplicate_links", follow_duplicate_links);
	KEEP(n->warc != o->warc, "[store] warc", warc);
	/* The learner took them when it opened (crawler/learn/learn.h); under
	 * another profile they mean nothing. */
	KEEP(n->profile == NORM_PROFILE_ADAPTIVE &&
		     (n->adaptive.min_support != o->adaptive.min_support ||
		      n->adaptive.confidence != o->adaptive.confidence ||
		      n->adaptive.audit_share != o->adaptive.audit_share ||
		      n->adaptive.retire_below != o->adaptive.retire_below ||
		      n->adaptive.audit_every != o->adaptive.audit_every ||
		      n->adaptive.transfer != o->adaptive.transfer ||
		      n->adaptive.skip_noindex_nofollow !=
			      o->adaptive.skip_noindex_nofollow),
	     "[adaptive]", adaptive);
#undef KEEP
	/* [cluster] is the daemon's from its start. */
	n->cluster = o->cluster;
	const struct conf *nc = v->st.cf, *oc = old->st.cf;
	if (nc->cluster.enabled != oc->cluster.enabled ||
	    nc->cluster.shards != oc->cluster.shards ||
	    nc->cluster.shard != oc->cluster.shard)
		log_msg(LOG_WARNING,
			"reload: %s: [cluster] cannot change while the daemon "
			"runs; keeping the running shard (restart to apply)",
			file);
	if (d->listen && strcmp(v->st.cf->control.listen, d->listen) != 0)
		log_msg(LOG_WARNING,
			"reload: %s: [control] listen cannot change while the "
			"daemon runs; still listening on %s (restart to apply)",
			file, d->listen);
	const char *dash = v->st.cf->control.dashboard;
	if ((dash || d->dash_listen) &&
	    (!dash || !d->dash_listen || strcmp(dash, d->dash_listen) != 0))
		log_msg(LOG_WARNING,
			"reload: %s: [control] dashboard cannot change while "
			"the daemon runs; %s%s (restart to apply)",
			file, d->dash_listen ? "still on " : "still none",
			d->dash_listen ? d->dash_listen : "");
}

/* The categories of v: the running ones at their indexes (seeds from the
 * new file, or none if it dropped them: their queued URLs keep their
 * name), then the new ones. */
static int merge_categories(struct version *v, const struct version *old)
{
	const struct conf *cf = v->st.cf;
	size_t cap = old->n_cats + cf->n_categories;
	if (!(v->cats = calloc(cap ? cap : 1, sizeof(*v->cats))))
		return SC_E_NOMEM;
	for (size_t i = 0; i < old->n_cats; i++) {
		const struct conf_category *cc = conf_category_find(
			cf, old->cats[i].name);
		v->cats[i] = old->cats[i];
		v->cats[i].seeds_file = cc ? cc->seeds : NULL;
		if (cc)
			category_from_conf(&v->cats[i], cc);
	}
	v->n_cats = old->n_cats;
	for (size_t i = 0; i < cf->n_categories; i++) {
		size_t k = 0;
		while (k < old->n_cats &&
		       strcmp(old->cats[k].name, cf->categories[i].name) != 0)
			k++;
		if (k < old->n_cats)
			continue;
		if (v->n_cats >= UINT16_MAX)
			return SC_E_LIMIT;
		category_from_conf(&v->cats[v->n_cats++], &cf->categories[i]);
	}
	v->o.categories = v->cats;
	v->o.n_categories = v->n_cats;
	return 0;
}

static void version_free(struct version *v)
{
	while (v) {
		struct version *prev = v->prev;
		free(v->cats);
		setup_free(&v->st);
		free(v);
		v = prev;
	}
}

/* A new version from the command line and the config file as it is now;
 * its categories are the file's.  NULL with a message logged. */
static struct version *version_load(struct daemon *d, const char *what)
{
	struct version *v = calloc(1, sizeof(*v));
	int code;
	char err[512];
	if (!v)
		return NULL;
	if (setup_args(&v->st, CMD, d->argc, d->argv, usage, &code)) {
		free(v);
		return NULL;
	}
	int rc = setup_load(&v->st, err, sizeof(err));
	if (rc) {
		log_msg(LOG_ERR, "%s%s", what, err);
		free(v);
		return NULL;
	}
	v->o = v->st.o;
	v->o.quiet = true;
	v->o.daemon = &d->hooks;
	v->cats = NULL;
	v->n_cats = v->st.cf->n_categories;
	return v;
}

static void reload(struct daemon *d)
{
	sd_notify(0, "RELOADING=1\nSTATUS=reloading the config");
	struct version *v = version_load(
		d, "reload refused, the running config stays: ");
	int rc = SC_E_INVAL;
	if (v) {
		keep_fixed(d, v, d->cur);
		if ((rc = merge_categories(v, d->cur)) == 0)
			rc = crawl_reload(d->c, &v->o);
		if (rc) {
			log_msg(LOG_ERR,
				"reload refused, the running config stays: "
				"%s",
				sc_strerror(rc));
			free(v->cats);
			setup_free(&v->st);
			free(v);
		} else {
			v->prev = d->cur;
			d->cur = v;
			if (d->node)
				cnode_set_opts(d->node, &v->o);
			log_msg(LOG_NOTICE,
				"reloaded %s: %zu categories, max_pages %llu, "
				"max_depth %u, concurrency %u, "
				"per_host_delay_ms %u",
				v->st.config ? v->st.config : "(no file)",
				v->n_cats, (unsigned long long)v->o.max_pages,
				v->o.max_depth, v->o.concurrency,
				(unsigned)v->o.per_host_delay_ms);
		}
	}
	sd_notify(0, "READY=1");
}

/* ---------------------------------------------------------------------
 * Hooks and events
 */

static void on_sighup(evutil_socket_t fd, short kind, void *arg)
{
	(void)fd;
	(void)kind;
	reload(arg);
}

static int hook_start(struct crawl *c, void *arg)
{
	struct daemon *d = arg;
	struct event_base *base = crawl_base(c);
	d->c = c;
	if (serve_listen_control(d, base))
		return SC_E_IO;
	d->sighup = evsignal_new(base, SIGHUP, on_sighup, d);
	if (!d->sighup || event_add(d->sighup, NULL))
		return SC_E_NOMEM;
	sigset_t hup;
	sigemptyset(&hup);
	sigaddset(&hup, SIGHUP);
	pthread_sigmask(SIG_UNBLOCK, &hup, NULL);
	/* The watchdog rides on the engine's tick (one second): half the
	 * interval systemd gives, and never less than a tick (WatchdogSec
	 * under 2 s cannot be kept this way; the unit sets 60 s). */
	uint64_t usec = 0;
	if (sd_watchdog_enabled(0, &usec) > 0 && usec) {
		d->watchdog_ticks = usec / 2 / 1000000;
		if (d->watchdog_ticks == 0)
			d->watchdog_ticks = 1;
		sd_notify(0, "WATCHDOG=1");
	}
	if (d->node && cnode_start(d->node, c, &d->cur->o))
		return SC_E_NOMEM;
	log_msg(LOG_NOTICE, "serving %s, store %s", d->listen,
		d->cur->o.store_dir);
	sd_notify(0, "READY=1\nSTATUS=started");
	return 0;
}

static void hook_tick(struct crawl *c, void *arg)
{
	struct daemon *d = arg;
	struct crawl_status st;
	crawl_status(c, false, &st);
	uint64_t ticks = crawl_ticks(c);
	if (d->node)
		cnode_tick(d->node, c);
	if (d->watchdog_ticks && ticks % d->watchdog_ticks == 0)
		sd_notify(0, "WATCHDOG=1");
	if (d->accept_failures &&
	    ticks - d->accept_failed_tick >= ACCEPT_QUIET_S) {
		log_msg(LOG_NOTICE,
			"control socket: accepting connections again (%u "
			"failed tries)",
			d->accept_failures);
		d->accept_failures = 0;
	}
	char line[4600];
	if (st.full.on) {
		/* What an operator must do, first (systemctl status). */
		snprintf(line, sizeof(line),
			 "disk_full: %s: %s; waiting for space, pages %llu",
			 st.full.path, st.full.error,
			 (unsigned long long)st.sum.pages);
		sd_notifyf(0, "STATUS=%s", line);
		if (ticks % 10 == 0)
			log_msg(LOG_INFO, "%s", line);
		return;
	}
	snprintf(line, sizeof(line),
		 "%s: pages %llu  %.1f/s  queue %llu  hosts %u  duplicates "
		 "%llu  errors %llu",
		 control_state_name(st.state), (unsigned long long)st.sum.pages,
		 st.rate, (unsigned long long)st.queued, st.hosts,
		 (unsigned long long)(st.sum.dup_exact + st.sum.dup_near),
		 (unsigned long long)st.sum.errors);
	sd_notifyf(0, "STATUS=%s", line);
	if (ticks % 10 == 0)
		log_msg(LOG_INFO, "%s", line);
}

static void hook_stopping(struct crawl *c, void *arg)
{
	struct daemon *d = arg;
	(void)c;
	sd_notify(0, "STOPPING=1\nSTATUS=stopping");
	if (d->node)
		cnode_stopping(d->node);
	log_msg(LOG_NOTICE, "stopping: transfers in flight go back to the "
			    "queue");
	/* No new connections; requests under way are answered. */
	if (d->lev)
		evconnlistener_free(d->lev);
	d->lev = NULL;
	if (d->dash_lev)
		evconnlistener_free(d->dash_lev);
	d->dash_lev = NULL;
	if (d->accept_retry)
		event_del(d->accept_retry);
}

static void hook_finish(struct crawl *c, void *arg)
{
	struct daemon *d = arg;
	(void)c;
	if (d->node)
		cnode_finish(d->node);
	/* The loop is over: what answers are left (seeds committed as the
	 * daemon stopped) get one try to go out, without waiting. */
	while (d->conns) {
		struct conn *k = d->conns;
		struct evbuffer *out = bufferevent_get_output(k->bev);
		if (evbuffer_get_length(out))
			evbuffer_write(out, bufferevent_getfd(k->bev));
		serve_conn_free(k);
	}
	if (d->lev)
		evconnlistener_free(d->lev);
	d->lev = NULL;
	if (d->dash_lev)
		evconnlistener_free(d->dash_lev);
	d->dash_lev = NULL;
	if (d->accept_retry)
		event_free(d->accept_retry);
	d->accept_retry = NULL;
	free(d->listen);
	d->listen = NULL;
	free(d->dash_listen);
	d->dash_listen = NULL;
	if (d->unix_path)
		unlink(d->unix_path);
	free(d->unix_path);
	d->unix_path = NULL;
	if (d->sighup)
		event_free(d->sighup);
	d->sighup = NULL;
}

/* The crawl could not start (its store not opened, its seeds not
 * committed: the loop never ran, so no control API answers yet) and the
 * store's filesystem is all but full: a full disk at start.  Say so to
 * the log and to systemd, and wait (SIGTERM and SIGINT, held until the
 * loop runs, end the wait) until WAIT_GAIN more bytes are free or
 * WAIT_EVERY_S seconds went by (a quota does not show in statvfs), then
 * 1: try again.  0 when the disk is not full; -1 on a signal (a stop
 * asked for while waiting: not a failure). */
#define WAIT_FULL_FREE ((uint64_t)1 << 20)
#define WAIT_GAIN ((uint64_t)256 << 10)
#define WAIT_EVERY_S 60
static uint64_t free_of(const char *dir)
{
	struct statvfs v;
	if (statvfs(dir, &v))
		return UINT64_MAX;
	return (uint64_t)(geteuid() == 0 ? v.f_bfree : v.f_bavail) *
	       (uint64_t)v.f_frsize;
}

static int wait_for_space(const char *store)
{
	uint64_t had = free_of(store);
	if (had >= WAIT_FULL_FREE)
		return 0;
	log_msg(LOG_ERR,
		"%s: No space left on device at start; waiting for space "
		"(the control API answers once the crawl runs)",
		store);
	sd_notifyf(0,
		   "STATUS=disk_full: %s: No space left on device at "
		   "start; waiting for space",
		   store);
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	for (unsigned s = 0; s < WAIT_EVERY_S; s++) {
		struct timespec one = { 1, 0 };
		if (sigtimedwait(&stop, NULL, &one) > 0) {
			log_msg(LOG_NOTICE, "stopped while waiting for space");
			return -1;
		}
		uint64_t now = free_of(store);
		if (now != UINT64_MAX && now >= had + WAIT_GAIN)
			break;
	}
	log_msg(LOG_NOTICE, "%s: trying to start again", store);
	return 1;
}

int cmd_serve(int argc, char **argv)
{
	struct daemon d = { .argc = argc, .argv = argv };
	struct setup probe;
	int code;
	/* A stop or a reload asked for while the daemon starts (systemd
	 * sends SIGTERM whenever it likes) waits, blocked, until the loop's
	 * handlers are in: the engine unblocks SIGINT and SIGTERM, and
	 * hook_start() SIGHUP.  Unblocked, they would kill the daemon with
	 * the default action (exit 143) or not be seen at all.  Threads
	 * started before then inherit the mask, so the loop's thread alone
	 * takes them. */
	sigset_t held;
	sigemptyset(&held);
	sigaddset(&held, SIGINT);
	sigaddset(&held, SIGTERM);
	sigaddset(&held, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &held, NULL);
	if (setup_args(&probe, CMD, argc, argv, usage, &code))
		return code;
	log_init("serve", true, probe.verbose);
	if (probe.check_config) {
		char err[512];
		int rc = setup_load(&probe, err, sizeof(err));
		if (rc) {
			sc_errorf(CMD, "%s", err);
			return rc == SC_E_NOMEM ? EXIT_RUNTIME : EXIT_USAGE;
		}
		printf("%s: ok\n", probe.config ? probe.config : "(defaults)");
		setup_free(&probe);
		return EXIT_OK;
	}
	d.hooks = (struct crawl_daemon){
		.start = hook_start,
		.tick = hook_tick,
		.stopping = hook_stopping,
		.finish = hook_finish,
		.arg = &d,
	};
	struct version *v = version_load(&d, "");
	if (!v)
		return EXIT_USAGE;
	v->cats = calloc(v->n_cats ? v->n_cats : 1, sizeof(*v->cats));
	if (!v->cats) {
		version_free(v);
		return EXIT_RUNTIME;
	}
	memcpy(v->cats, v->st.cats, v->n_cats * sizeof(*v->cats));
	v->o.categories = v->cats;
	d.cur = v;
	raise_nofile(v->o.concurrency);

	/* A client that goes away must not kill the daemon. */
	signal(SIGPIPE, SIG_IGN);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		log_msg(LOG_ERR, "curl_global_init failed");
		version_free(v);
		return EXIT_RUNTIME;
	}
	if (d.cur->st.cf->cluster.enabled) {
		char err[512];
		if (cnode_open(d.cur->st.cf, d.cur->o.store_dir, &d.node, err,
			       sizeof(err))) {
			log_msg(LOG_ERR, "cluster: %s", err);
			curl_global_cleanup();
			version_free(v);
			return EXIT_RUNTIME;
		}
		d.cur->o.cluster = cnode_hooks(d.node);
	}
	struct crawl_summary s;
	int rc, w = 0;
	while ((rc = crawl_run(&d.cur->o, &s)) != 0 && !d.c &&
	       (w = wait_for_space(d.cur->o.store_dir)) == 1) {
		free(s.hosts);
		free(s.lost);
	}
	if (w < 0)
		rc = 0; /* stopped while waiting for space */
	cnode_close(d.node);
	curl_global_cleanup();
	if (rc)
		log_msg(LOG_ERR, "the crawl ended: %s", sc_strerror(rc));
	else
		log_msg(LOG_NOTICE, "stopped: %llu pages committed in this run",
			(unsigned long long)s.pages);
	free(s.hosts);
	free(s.lost);
	version_free(d.cur);
	return rc == SC_E_PROFILE ? EXIT_USAGE : rc ? EXIT_RUNTIME : EXIT_OK;
}
