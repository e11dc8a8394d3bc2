/* cmd-serve.c — `sigcrawl serve`: the daemon.
 *
 * The crawl engine in long-running mode (crawl.h, "The daemon's side")
 * with, on the same event loop: the control API (evhttp on a Unix socket
 * or a loopback TCP port; requests parsed and answered by control.c),
 * SIGHUP reloads, and systemd notification (READY, STATUS, RELOADING,
 * STOPPING, WATCHDOG).  Seeds submitted over the API go to the writer
 * thread as one job per request; the answer is sent when it committed. */
#include <curl/curl.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "commands.h"
#include "control.h"
#include "keys.h"
#include "crawl.h"
#include "log.h"
#include "setup.h"

#define CMD "serve"

/* One config version.  Every version lives until the daemon exits: the
 * crawl's threads may read an older one for a moment after a reload. */
struct version {
	struct version *prev;
	struct setup st;
	struct crawl_category *cats; /* the old ones first, at their index */
	size_t n_cats;
	struct crawl_opts o;
};

struct daemon {
	int argc;
	char **argv;
	struct version *cur;
	struct crawl_daemon hooks;
	struct crawl *c;
	struct evhttp *http;
	struct evhttp_bound_socket *listener;
	char *unix_path; /* removed at exit */
	struct event *sighup;
	/* systemd's watchdog: WATCHDOG=1 every this many ticks of the
	 * engine's one-second timer (0: no watchdog). */
	uint64_t watchdog_ticks;
	unsigned pending; /* seed submissions not yet committed */
};

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
		"  --check-config        check the config and the options, then exit\n"
		"  --verbose             log info lines (progress, requests)\n");
}

/* ---------------------------------------------------------------------
 * Answers
 */

static const char *reason_of(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 413: return "Payload Too Large";
	case 415: return "Unsupported Media Type";
	case 503: return "Service Unavailable";
	default: return status >= 500 ? "Internal Server Error" : "Error";
	}
}

/* Send ans and free its body. */
static void send_answer(struct evhttp_request *req, struct control_answer *ans)
{
	struct evbuffer *b = evbuffer_new();
	int status = ans->status;
	if (b && ans->body) {
		evbuffer_add(b, ans->body, strlen(ans->body));
		if (ans->content_type[0] == 'a') /* JSON: end with a newline */
			evbuffer_add(b, "\n", 1);
		evhttp_add_header(evhttp_request_get_output_headers(req),
				  "Content-Type", ans->content_type);
	} else if (status < 500) {
		status = 500; /* no body: out of memory */
	}
	evhttp_add_header(evhttp_request_get_output_headers(req),
			  "Cache-Control", "no-store");
	evhttp_send_reply(req, status, reason_of(status), b);
	if (b)
		evbuffer_free(b);
	free(ans->body);
	ans->body = NULL;
}

static void send_error(struct evhttp_request *req, int status, const char *msg)
{
	struct control_answer ans;
	control_error(&ans, status, msg);
	send_answer(req, &ans);
}

/* ---------------------------------------------------------------------
 * POST /seeds
 */

struct pending {
	struct daemon *d;
	struct evhttp_request *req;
	struct control_seeds *s;
	struct crawl_seeds cs;
};

static void seeds_done(struct crawl_seeds *cs, int rc, void *arg)
{
	struct pending *p = arg;
	(void)cs;
	p->d->pending--;
	if (rc) {
		send_error(p->req, 503, sc_strerror(rc));
	} else {
		struct control_answer ans;
		control_seeds_answer(p->s, &ans);
		log_msg(LOG_INFO, "seeds for %s: %zu normalized, %zu rejected",
			p->s->category, p->s->n, p->s->n_rejected);
		send_answer(p->req, &ans);
	}
	control_seeds_free(p->s);
	free(p);
}

static void post_seeds(struct daemon *d, struct evhttp_request *req,
		       const char *query)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(req);
	size_t len = evbuffer_get_length(in);
	const char *body = len ? (const char *)evbuffer_pullup(in, -1) : "";
	const char *ctype = evhttp_find_header(
		evhttp_request_get_input_headers(req), "Content-Type");
	struct control_answer ans;
	struct control_seeds *s;
	const struct crawl_opts *o = &d->cur->o;
	if (control_parse_seeds(ctype, query, body, len, &o->norm, &s, &ans)) {
		send_answer(req, &ans);
		return;
	}
	size_t cat = 0;
	while (cat < d->cur->n_cats &&
	       strcmp(d->cur->cats[cat].name, s->category) != 0)
		cat++;
	if (cat == d->cur->n_cats) {
		char msg[128];
		snprintf(msg, sizeof(msg),
			 "unknown category '%.40s' (add a [category] section "
			 "and reload)",
			 s->category);
		control_seeds_free(s);
		send_error(req, 400, msg);
		return;
	}
	struct pending *p = calloc(1, sizeof(*p));
	if (!p) {
		control_seeds_free(s);
		send_error(req, 500, "out of memory");
		return;
	}
	*p = (struct pending){
		.d = d,
		.req = req,
		.s = s,
		.cs = {
			.category = (uint16_t)cat,
			.n = s->n,
			.url = (const char **)s->url,
			.found = (const char **)s->found,
			.u = s->u,
			.found_u = s->found_u,
			.added = s->added,
			.done = seeds_done,
			.arg = p,
		},
	};
	int rc = crawl_add_seeds(d->c, &p->cs);
	if (rc) {
		control_seeds_free(s);
		free(p);
		send_error(req, rc == SC_E_AGAIN ? 503 : 500,
			   rc == SC_E_AGAIN ? "stopping" : sc_strerror(rc));
		return;
	}
	d->pending++;
}

/* ---------------------------------------------------------------------
 * The request handler
 */

static const char *method_name(enum evhttp_cmd_type m)
{
	switch (m) {
	case EVHTTP_REQ_GET: return "GET";
	case EVHTTP_REQ_POST: return "POST";
	case EVHTTP_REQ_HEAD: return "HEAD";
	case EVHTTP_REQ_PUT: return "PUT";
	case EVHTTP_REQ_DELETE: return "DELETE";
	case EVHTTP_REQ_OPTIONS: return "OPTIONS";
	case EVHTTP_REQ_TRACE: return "TRACE";
	case EVHTTP_REQ_CONNECT: return "CONNECT";
	case EVHTTP_REQ_PATCH: return "PATCH";
	}
	return "?";
}

static void on_request(struct evhttp_request *req, void *arg)
{
	struct daemon *d = arg;
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	const char *query = uri ? evhttp_uri_get_query(uri) : NULL;
	const char *method = method_name(evhttp_request_get_command(req));
	struct control_answer ans;
	enum control_route route;
	log_msg(LOG_DEBUG, "%s %s", method, path ? path : "(none)");
	if (!path) {
		send_error(req, 400, "bad request target");
		return;
	}
	if (control_route(method, path, &route, &ans)) {
		send_answer(req, &ans);
		return;
	}
	struct crawl_status st;
	switch (route) {
	case CONTROL_SEEDS: post_seeds(d, req, query); return;
	case CONTROL_STATUS:
		crawl_status(d->c, &st);
		control_status_answer(&st, st.rate, &ans);
		break;
	case CONTROL_METRICS:
		crawl_status(d->c, &st);
		control_metrics_answer(&st, &ans);
		break;
	case CONTROL_PAUSE:
	case CONTROL_RESUME:
		crawl_pause(d->c, route == CONTROL_PAUSE);
		log_msg(LOG_NOTICE, "%s by the control API",
			route == CONTROL_PAUSE ? "paused" : "resumed");
		crawl_status(d->c, &st);
		control_status_answer(&st, st.rate, &ans);
		break;
	}
	send_answer(req, &ans);
}

/* ---------------------------------------------------------------------
 * The control socket
 */

/* A Unix socket at path, mode 0660.  A socket file left by a daemon that
 * died is replaced; one that still answers is not. */
static int listen_unix(struct daemon *d, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sa.sun_path)) {
		log_msg(LOG_ERR, "%s: socket path too long", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	struct stat sb;
	if (lstat(path, &sb) == 0 && S_ISSOCK(sb.st_mode)) {
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
			log_msg(LOG_ERR, "%s: another daemon listens there",
				path);
			close(fd);
			return -1;
		}
		unlink(path);
	}
	mode_t old = umask(0117);
	int rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc != 0 || chmod(path, 0660) != 0 || listen(fd, 64) != 0 ||
	    evutil_make_socket_nonblocking(fd) != 0)
		goto fail;
	d->listener = evhttp_accept_socket_with_handle(d->http, fd);
	if (!d->listener)
		goto fail;
	d->unix_path = strdup(path);
	return 0;
fail:
	log_msg(LOG_ERR, "%s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

static int listen_control(struct daemon *d, struct event_base *base)
{
	const struct conf *cf = d->cur->st.cf;
	if (!(d->http = evhttp_new(base)))
		return -1;
	evhttp_set_max_body_size(d->http, CONTROL_BODY_MAX);
	evhttp_set_max_headers_size(d->http, 16384);
	evhttp_set_timeout(d->http, 30);
	evhttp_set_allowed_methods(
		d->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD |
				 EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE |
				 EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE |
				 EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH);
	evhttp_set_gencb(d->http, on_request, d);
	if (cf->control.kind == CONF_LISTEN_UNIX)
		return listen_unix(d, cf->control.unix_path);
	d->listener = evhttp_bind_socket_with_handle(
		d->http, cf->control.tcp_host, cf->control.tcp_port);
	if (!d->listener) {
		log_msg(LOG_ERR, "%s: cannot listen: %s", cf->control.listen,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * Reload
 */

/* [normalize]: the running normalization is the one the store's keys
 * were made with (crawl_run() checked it, keys.h), and a store is never
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
 * reported and the running one kept. */
static void keep_fixed(struct version *v, const struct version *old)
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
#undef KEEP
	if (strcmp(v->st.cf->control.listen, old->st.cf->control.listen) != 0)
		log_msg(LOG_WARNING,
			"reload: %s: [control] listen cannot change while the "
			"daemon runs; still listening on %s (restart to apply)",
			file, old->st.cf->control.listen);
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
		keep_fixed(v, d->cur);
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
	if (listen_control(d, base))
		return SC_E_IO;
	d->sighup = evsignal_new(base, SIGHUP, on_sighup, d);
	if (!d->sighup || event_add(d->sighup, NULL))
		return SC_E_NOMEM;
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
	log_msg(LOG_NOTICE, "serving %s, store %s",
		d->cur->st.cf->control.listen, d->cur->o.store_dir);
	sd_notify(0, "READY=1\nSTATUS=started");
	return 0;
}

static void hook_tick(struct crawl *c, void *arg)
{
	struct daemon *d = arg;
	struct crawl_status st;
	crawl_status(c, &st);
	uint64_t ticks = crawl_ticks(c);
	if (d->watchdog_ticks && ticks % d->watchdog_ticks == 0)
		sd_notify(0, "WATCHDOG=1");
	char line[256];
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
	log_msg(LOG_NOTICE, "stopping: transfers in flight go back to the "
			    "queue");
	/* No new connections; requests under way are answered. */
	if (d->http && d->listener) {
		evhttp_del_accept_socket(d->http, d->listener);
		d->listener = NULL;
	}
}

static void hook_finish(struct crawl *c, void *arg)
{
	struct daemon *d = arg;
	(void)c;
	if (d->http)
		evhttp_free(d->http);
	d->http = NULL;
	if (d->unix_path)
		unlink(d->unix_path);
	free(d->unix_path);
	d->unix_path = NULL;
	if (d->sighup)
		event_free(d->sighup);
	d->sighup = NULL;
}

int cmd_serve(int argc, char **argv)
{
	struct daemon d = { .argc = argc, .argv = argv };
	struct setup probe;
	int code;
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

	/* A client that goes away must not kill the daemon. */
	signal(SIGPIPE, SIG_IGN);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		log_msg(LOG_ERR, "curl_global_init failed");
		version_free(v);
		return EXIT_RUNTIME;
	}
	struct crawl_summary s;
	int rc = crawl_run(&d.cur->o, &s);
	curl_global_cleanup();
	if (rc)
		log_msg(LOG_ERR, "the crawl ended: %s", sc_strerror(rc));
	else
		log_msg(LOG_NOTICE, "stopped: %llu pages committed in this run",
			(unsigned long long)s.pages);
	free(s.hosts);
	version_free(d.cur);
	return rc == SC_E_PROFILE ? EXIT_USAGE : rc ? EXIT_RUNTIME : EXIT_OK;
}
