/* serve.c — `sigcrawl serve`: the daemon.
 *
 * The crawl engine in long-running mode (crawl.h, "The daemon's side")
 * with, on the same event loop: the control API (HTTP/1.1 on a Unix
 * socket or a loopback TCP port; the framing, the routing and the answers
 * are control.c's, the connections this file's), SIGHUP reloads, and
 * systemd notification (READY, STATUS, RELOADING, STOPPING, WATCHDOG).
 * Seeds submitted over the API go to the writer thread as one job per
 * request; the answer is sent when it committed.
 *
 * The connections are served here on libevent's evconnlistener and
 * bufferevents rather than with evhttp: the evhttp of libevent 2.1 answers
 * the errors it finds itself (a malformed request, a body over its limit)
 * in HTML, with no hook to make them JSON (evhttp_set_errorcb came with
 * 2.2), and it cannot tell when a connection that never completed a
 * request goes away, so the number of connections open could not be
 * bounded. */
#include <curl/curl.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "cluster-node.h"
#include "daemon.h"
#include "learn.h"
#include "crawl.h"
#include "log.h"

#define CMD "serve"

/* Connections waiting in the kernel to be accepted. */
#define CONTROL_BACKLOG 128
/* After accept() failed (no descriptor left, say), accepting pauses this
 * long, or until one of the control connections closes, as nginx does. */
#define ACCEPT_RETRY_MS 500
/* At most one "the most connections allowed" line in this many seconds. */
#define AT_MAX_LOG_S 60
/* accept() failures are one episode, logged when it begins and when it
 * ends: once none has happened for this many seconds. */
#define ACCEPT_QUIET_S 10
/* A closing connection's answer is written, then what the client still
 * sends is read and dropped this long, so that a TCP client reads the
 * answer rather than a reset (nginx's lingering close). */
#define LINGER_MS 2000
/* Input read ahead of the request being served. */
#define READ_AHEAD_MAX (64 * 1024)

/* One config version.  Every version lives until the daemon exits: the
 * crawl's threads may read an older one for a moment after a reload. */
struct version {
	struct version *prev;
	struct setup st;
	struct crawl_category *cats; /* the old ones first, at their index */
	size_t n_cats;
	struct crawl_opts o;
};

struct conn;

struct daemon {
	int argc;
	char **argv;
	struct version *cur;
	struct crawl_daemon hooks;
	struct crawl *c;
	/* The control socket: the address it listens on ([control] listen
	 * as the daemon started with it: a reload cannot change it), its
	 * listener (NULL once stopping), the Unix socket's file (removed at
	 * exit) and the open connections. */
	char *listen;
	struct evconnlistener *lev;
	char *unix_path;
	struct conn *conns;
	unsigned n_conns;
	/* Accepting pauses at CONTROL_CONNECTIONS_MAX connections (at_max),
	 * and after accept() failed (accept_failed) until accept_retry
	 * fires.  accept_failures counts the failures of the episode under
	 * way (0: none), the last at tick accept_failed_tick. */
	bool at_max, accept_failed;
	struct event *accept_retry;
	unsigned accept_failures;
	uint64_t accept_failed_tick;
	uint64_t at_max_logged; /* crawl_ticks() then, +1; 0: never */
	struct event *sighup;
	/* systemd's watchdog: WATCHDOG=1 every this many ticks of the
	 * engine's one-second timer (0: no watchdog). */
	uint64_t watchdog_ticks;
	unsigned pending;   /* seed submissions not yet committed */
	struct cnode *node; /* [cluster]: this daemon's shard, or NULL */
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
 * A control connection
 *
 * One request at a time: its head is read and parsed, its body read
 * (Content-Length or chunked), then reading stops until the answer is
 * written; a request pipelined behind it waits in the input.  A deadline
 * of CONTROL_TIMEOUT_S bounds the wait for a request (from the opening or
 * the previous answer to the end of its body), bufferevent's write
 * timeout the reading of an answer.
 */

enum conn_state {
	CONN_HEAD,    /* waiting for a request head, or reading it */
	CONN_BODY,    /* reading a body of Content-Length bytes */
	CONN_CHUNKED, /* reading a chunked body */
	CONN_BUSY,    /* the request is with the crawl (seeds to commit) */
	CONN_WRITING, /* the answer is being written */
	CONN_LINGER,  /* answered, closing: the rest of the input is dropped */
};

struct pending;

struct conn {
	struct conn *prev, *next;
	struct daemon *d;
	struct bufferevent *bev;
	struct event *timer; /* the deadline */
	enum conn_state state;
	size_t scanned; /* bytes of the head searched for its end */
	/* The request: its head (parsed in head_buf), route and body. */
	char *head_buf;
	struct control_head head;
	enum control_route route;
	uint64_t left; /* CONN_BODY: bytes still to come */
	struct control_chunked chunked;
	struct evbuffer *body;
	bool close_after;  /* close once the answer is written */
	struct pending *p; /* seeds with the writer */
};

/* A seed submission with the writer. */
struct pending {
	struct daemon *d;
	struct conn *conn; /* NULL once the connection is gone */
	struct control_seeds *s;
	struct crawl_seeds cs;
};

static void conn_process(struct conn *k);

static void arm(struct conn *k, unsigned ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	event_add(k->timer, &tv);
}

static void accept_resume(struct daemon *d)
{
	if (d->lev && !d->at_max && !d->accept_failed)
		evconnlistener_enable(d->lev);
}

static void conn_free(struct conn *k)
{
	struct daemon *d = k->d;
	if (k->prev)
		k->prev->next = k->next;
	else
		d->conns = k->next;
	if (k->next)
		k->next->prev = k->prev;
	d->n_conns--;
	if (k->p)
		k->p->conn = NULL;
	bufferevent_free(k->bev); /* closes the socket */
	event_free(k->timer);
	if (k->body)
		evbuffer_free(k->body);
	free(k->head_buf);
	free(k);
	/* A descriptor and a place are free: accept again at once. */
	if (d->at_max && d->n_conns < CONTROL_CONNECTIONS_MAX)
		d->at_max = false;
	if (d->accept_failed) {
		event_del(d->accept_retry);
		d->accept_failed = false;
	}
	accept_resume(d);
}

/* Ready for the next request on the connection. */
static void conn_next(struct conn *k)
{
	free(k->head_buf);
	k->head_buf = NULL;
	if (k->body)
		evbuffer_free(k->body);
	k->body = NULL;
	memset(&k->head, 0, sizeof(k->head));
	memset(&k->chunked, 0, sizeof(k->chunked));
	k->left = 0;
	k->scanned = 0;
	k->state = CONN_HEAD;
	arm(k, CONTROL_TIMEOUT_S * 1000);
	bufferevent_enable(k->bev, EV_READ);
}

/* Send ans (its body freed) and read no more until it is written. */
static void reply(struct conn *k, struct control_answer *ans)
{
	struct evbuffer *out = bufferevent_get_output(k->bev);
	int status = ans->status;
	const char *type = ans->content_type;
	const char *body = ans->body;
	if (!body) {
		status = 500;
		type = "application/json";
		body = "{\"error\":\"out of memory\"}";
	}
	bool json = strncmp(type, "application/json", 16) == 0;
	size_t len = strlen(body);
	bool head = k->head.method && strcmp(k->head.method, "HEAD") == 0;
	/* A JSON answer ends with a newline, for a terminal's sake. */
	evbuffer_add_printf(out,
			    "HTTP/1.1 %d %s\r\n"
			    "Content-Type: %s\r\n"
			    "Content-Length: %zu\r\n"
			    "Cache-Control: no-store\r\n",
			    status, control_reason(status), type, len + json);
	if (ans->allow)
		evbuffer_add_printf(out, "Allow: %s\r\n", ans->allow);
	if (k->close_after)
		evbuffer_add_printf(out, "Connection: close\r\n");
	else if (k->head.method && k->head.minor == 0)
		evbuffer_add_printf(out, "Connection: keep-alive\r\n");
	evbuffer_add(out, "\r\n", 2);
	if (!head) {
		evbuffer_add(out, body, len);
		if (json)
			evbuffer_add(out, "\n", 1);
	}
	free(ans->body);
	ans->body = NULL;
	k->state = CONN_WRITING;
	event_del(k->timer);
	bufferevent_disable(k->bev, EV_READ);
	bufferevent_enable(k->bev, EV_WRITE);
}

/* An error found while reading a request: answered, then the connection
 * closes (the rest of its input cannot be trusted to be framed). */
static void reply_error(struct conn *k, struct control_answer *ans)
{
	k->close_after = true;
	reply(k, ans);
}

static void reply_message(struct conn *k, int status, const char *msg)
{
	struct control_answer ans;
	control_error(&ans, status, msg);
	reply(k, &ans);
}

/* ---------------------------------------------------------------------
 * POST /seeds
 */

static void seeds_done(struct crawl_seeds *cs, int rc, void *arg)
{
	struct pending *p = arg;
	(void)cs;
	p->d->pending--;
	log_msg(LOG_INFO, "seeds for %s: %zu normalized, %zu rejected%s",
		p->s->category, p->s->n, p->s->n_rejected,
		rc ? ": not committed" : "");
	if (p->conn) {
		struct conn *k = p->conn;
		k->p = NULL;
		if (rc) {
			reply_message(k, 503, sc_strerror(rc));
		} else {
			struct control_answer ans;
			control_seeds_answer(p->s, &ans);
			reply(k, &ans);
		}
	}
	control_seeds_free(p->s);
	free(p);
}

static void post_seeds(struct conn *k)
{
	struct daemon *d = k->d;
	size_t len = k->body ? evbuffer_get_length(k->body) : 0;
	const char *body = len ? (const char *)evbuffer_pullup(k->body, -1)
			       : "";
	struct control_answer ans;
	struct control_seeds *s;
	const struct crawl_opts *o = &d->cur->o;
	if (!body) {
		reply_message(k, 500, "out of memory");
		return;
	}
	if (control_parse_seeds(k->head.content_type, k->head.query, body, len,
				&o->norm, &s, &ans)) {
		reply(k, &ans);
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
		reply_message(k, 400, msg);
		return;
	}
	struct pending *p = calloc(1, sizeof(*p));
	if (!p) {
		control_seeds_free(s);
		reply_message(k, 500, "out of memory");
		return;
	}
	*p = (struct pending){
		.d = d,
		.conn = k,
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
		reply_message(k, rc == SC_E_AGAIN ? 503 : 500,
			      rc == SC_E_AGAIN ? "stopping" : sc_strerror(rc));
		return;
	}
	k->p = p;
	d->pending++;
}

/* ---------------------------------------------------------------------
 * Reading requests
 */

/* The whole request has arrived: answer it (seeds: once committed). */
static void dispatch(struct conn *k)
{
	struct daemon *d = k->d;
	struct control_answer ans;
	struct crawl_status st;
	k->state = CONN_BUSY;
	event_del(k->timer);
	bufferevent_disable(k->bev, EV_READ);
	switch (k->route) {
	case CONTROL_SEEDS: post_seeds(k); return;
	case CONTROL_STATUS:
		crawl_status(d->c, true, &st);
		control_status_answer(&st, st.rate, &ans);
		break;
	case CONTROL_METRICS:
		crawl_status(d->c, true, &st);
		control_metrics_answer(&st, &ans);
		break;
	case CONTROL_PAUSE:
	case CONTROL_RESUME:
		crawl_pause(d->c, k->route == CONTROL_PAUSE);
		log_msg(LOG_NOTICE, "%s by the control API",
			k->route == CONTROL_PAUSE ? "paused" : "resumed");
		crawl_status(d->c, true, &st);
		control_status_answer(&st, st.rate, &ans);
		break;
	}
	reply(k, &ans);
}

/* CONN_HEAD: look for the end of the head in the input, parse it and
 * route the request.  Returns true when the state moved on. */
static bool read_head(struct conn *k, struct evbuffer *in)
{
	struct control_answer ans;
	size_t len = evbuffer_get_length(in);
	/* Enough to see the end of the longest head allowed. */
	size_t n = len < CONTROL_HEAD_MAX + 3 ? len : CONTROL_HEAD_MAX + 3;
	if (!n)
		return false;
	char *p = (char *)evbuffer_pullup(in, (ev_ssize_t)n);
	if (!p) {
		control_error(&ans, 500, "out of memory");
		reply_error(k, &ans);
		return true;
	}
	if (!k->scanned) {
		size_t skip = control_head_skip(p, n);
		if (skip) {
			evbuffer_drain(in, skip);
			return skip < n;
		}
	}
	size_t end = control_head_end(p, n, k->scanned);
	if (!end && n <= CONTROL_HEAD_MAX) {
		k->scanned = n;
		return false;
	}
	if (!end || end > CONTROL_HEAD_MAX) {
		control_error(&ans, 431,
			      "request head too large (at most 16384 bytes)");
		reply_error(k, &ans);
		return true;
	}
	if (!(k->head_buf = malloc(end + 1))) {
		control_error(&ans, 500, "out of memory");
		reply_error(k, &ans);
		return true;
	}
	evbuffer_remove(in, k->head_buf, end);
	k->head_buf[end] = '\0';
	k->scanned = 0;
	if (control_parse_head(k->head_buf, end, &k->head, &ans)) {
		reply_error(k, &ans);
		return true;
	}
	log_msg(LOG_DEBUG, "%s %s", k->head.method, k->head.path);
	k->close_after = k->head.close;
	bool body = k->head.chunked || k->head.length;
	/* Refused before its body is read: then the connection closes,
	 * and a client that waits for 100 Continue sends no body. */
	if (control_route(k->head.method, k->head.path, &k->route, &ans)) {
		if (body)
			reply_error(k, &ans);
		else
			reply(k, &ans);
		return true;
	}
	if (!body) {
		dispatch(k);
		return true;
	}
	if (!(k->body = evbuffer_new())) {
		control_error(&ans, 500, "out of memory");
		reply_error(k, &ans);
		return true;
	}
	if (k->head.expect_continue)
		evbuffer_add_printf(bufferevent_get_output(k->bev),
				    "HTTP/1.1 100 Continue\r\n\r\n");
	k->left = k->head.length;
	k->state = k->head.chunked ? CONN_CHUNKED : CONN_BODY;
	return true;
}

/* CONN_CHUNKED: decode what arrived.  Returns true when the state moved
 * on. */
static bool read_chunked(struct conn *k, struct evbuffer *in)
{
	struct control_answer ans;
	size_t len = evbuffer_get_length(in), used = 0, n = 0;
	if (!len)
		return false;
	const char *p = (const char *)evbuffer_pullup(in, (ev_ssize_t)len);
	char *out = malloc(len);
	int rc = p && out ? control_chunked_feed(&k->chunked, p, len, &used,
						 out, &n, &ans)
			  : SC_E_NOMEM;
	if (rc == SC_E_NOMEM)
		control_error(&ans, 500, "out of memory");
	if (rc >= 0 && n && evbuffer_add(k->body, out, n) != 0) {
		control_error(&ans, 500, "out of memory");
		rc = SC_E_NOMEM;
	}
	free(out);
	if (rc < 0) {
		reply_error(k, &ans);
		return true;
	}
	evbuffer_drain(in, used);
	if (rc == 0)
		return false;
	dispatch(k);
	return true;
}

/* Read what the input holds, as far as the state allows. */
static void conn_process(struct conn *k)
{
	struct evbuffer *in = bufferevent_get_input(k->bev);
	for (;;) {
		size_t len = evbuffer_get_length(in);
		switch (k->state) {
		case CONN_HEAD:
			if (!read_head(k, in))
				return;
			break;
		case CONN_BODY: {
			size_t n = len < k->left ? len : (size_t)k->left;
			if (n &&
			    evbuffer_remove_buffer(in, k->body, n) != (int)n) {
				reply_message(k, 500, "out of memory");
				k->close_after = true;
				return;
			}
			k->left -= n;
			if (k->left)
				return;
			dispatch(k);
			break;
		}
		case CONN_CHUNKED:
			if (!read_chunked(k, in))
				return;
			break;
		case CONN_LINGER: evbuffer_drain(in, len); return;
		case CONN_BUSY:
		case CONN_WRITING: return;
		}
	}
}

static void on_conn_read(struct bufferevent *bev, void *arg)
{
	(void)bev;
	conn_process(arg);
}

/* The answer is written: the next request, or the close. */
static void on_conn_write(struct bufferevent *bev, void *arg)
{
	struct conn *k = arg;
	if (k->state != CONN_WRITING ||
	    evbuffer_get_length(bufferevent_get_output(bev)))
		return; /* a 100 Continue, or not all written yet */
	if (!k->close_after) {
		conn_next(k);
		conn_process(k);
		return;
	}
	/* Half-close and drop what still comes, for a while. */
	k->state = CONN_LINGER;
	shutdown(bufferevent_getfd(bev), SHUT_WR);
	evbuffer_drain(bufferevent_get_input(bev),
		       evbuffer_get_length(bufferevent_get_input(bev)));
	bufferevent_enable(bev, EV_READ);
	arm(k, LINGER_MS);
}

static void on_conn_event(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	(void)what; /* EOF, an error, or the write timeout: gone */
	conn_free(arg);
}

/* The deadline: a request that did not arrive in time is answered 408
 * if it had begun, else the idle connection closes. */
static void on_conn_timer(evutil_socket_t fd, short kind, void *arg)
{
	struct conn *k = arg;
	(void)fd;
	(void)kind;
	bool begun = k->state != CONN_HEAD || k->scanned ||
		     evbuffer_get_length(bufferevent_get_input(k->bev));
	if (k->state == CONN_LINGER || !begun) {
		conn_free(k);
		return;
	}
	struct control_answer ans;
	control_error(&ans, 408, "request timeout");
	reply_error(k, &ans);
}

static struct conn *conn_new(struct daemon *d, evutil_socket_t fd)
{
	struct event_base *base = crawl_base(d->c);
	struct conn *k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->d = d;
	k->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	k->timer = evtimer_new(base, on_conn_timer, k);
	if (!k->bev || !k->timer) {
		if (k->bev)
			bufferevent_free(k->bev); /* closes fd */
		else
			evutil_closesocket(fd);
		if (k->timer)
			event_free(k->timer);
		free(k);
		return NULL;
	}
	struct timeval wt = { CONTROL_TIMEOUT_S, 0 };
	bufferevent_setcb(k->bev, on_conn_read, on_conn_write, on_conn_event,
			  k);
	bufferevent_setwatermark(k->bev, EV_READ, 0, READ_AHEAD_MAX);
	bufferevent_set_timeouts(k->bev, NULL, &wt);
	k->next = d->conns;
	if (d->conns)
		d->conns->prev = k;
	d->conns = k;
	d->n_conns++;
	k->state = CONN_HEAD;
	arm(k, CONTROL_TIMEOUT_S * 1000);
	bufferevent_enable(k->bev, EV_READ);
	return k;
}

/* ---------------------------------------------------------------------
 * The control socket
 */

static void on_accept(struct evconnlistener *lev, evutil_socket_t fd,
		      struct sockaddr *sa, int len, void *arg)
{
	struct daemon *d = arg;
	(void)sa;
	(void)len;
	if (!conn_new(d, fd))
		return; /* out of memory: fd is closed */
	if (d->n_conns < CONTROL_CONNECTIONS_MAX)
		return;
	/* The rest wait in the backlog until a connection closes. */
	d->at_max = true;
	evconnlistener_disable(lev);
	uint64_t now = crawl_ticks(d->c) + 1;
	if (!d->at_max_logged || now - d->at_max_logged >= AT_MAX_LOG_S) {
		d->at_max_logged = now;
		log_msg(LOG_WARNING,
			"control socket: %u connections open, the most "
			"allowed: new ones wait until one closes",
			d->n_conns);
	}
}

/* accept() failed: out of descriptors (EMFILE, ENFILE) or of memory.
 * Trying again at once would fail again and spin, so accepting pauses
 * ACCEPT_RETRY_MS, or until a control connection closes; the clients
 * wait in the backlog meanwhile.  Logged when the episode begins, and
 * when it ends (hook_tick()). */
static void on_accept_error(struct evconnlistener *lev, void *arg)
{
	struct daemon *d = arg;
	int err = EVUTIL_SOCKET_ERROR();
	struct timeval tv = { ACCEPT_RETRY_MS / 1000,
			      (ACCEPT_RETRY_MS % 1000) * 1000 };
	evconnlistener_disable(lev);
	d->accept_failed = true;
	event_add(d->accept_retry, &tv);
	d->accept_failed_tick = crawl_ticks(d->c);
	if (d->accept_failures++ == 0)
		log_msg(LOG_WARNING,
			"control socket: cannot accept a connection: %s (%u "
			"control connections open); trying again every %.1f s "
			"or when one closes, new ones wait meanwhile",
			evutil_socket_error_to_string(err), d->n_conns,
			ACCEPT_RETRY_MS / 1000.0);
}

static void on_accept_retry(evutil_socket_t fd, short kind, void *arg)
{
	struct daemon *d = arg;
	(void)fd;
	(void)kind;
	d->accept_failed = false;
	accept_resume(d);
}

/* A Unix socket at path, mode 0660.  A socket file left by a daemon that
 * died is replaced; one that still answers is not.  Returns the listening
 * descriptor, or -1 with a message logged. */
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
	if (rc != 0 || chmod(path, 0660) != 0 ||
	    listen(fd, CONTROL_BACKLOG) != 0 ||
	    evutil_make_socket_nonblocking(fd) != 0)
		goto fail;
	d->unix_path = strdup(path);
	return fd;
fail:
	log_msg(LOG_ERR, "%s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* A loopback TCP port (the config allows loopback hosts only). */
static int listen_tcp(const struct conf *cf)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	char port[8];
	snprintf(port, sizeof(port), "%u", (unsigned)cf->control.tcp_port);
	int rc = getaddrinfo(cf->control.tcp_host, port, &hints, &ai);
	if (rc) {
		log_msg(LOG_ERR, "%s: %s", cf->control.listen,
			gai_strerror(rc));
		return -1;
	}
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int on = 1;
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) != 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 ||
	    listen(fd, CONTROL_BACKLOG) != 0 ||
	    evutil_make_socket_nonblocking(fd) != 0) {
		log_msg(LOG_ERR, "%s: cannot listen: %s", cf->control.listen,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

static int listen_control(struct daemon *d, struct event_base *base)
{
	const struct conf *cf = d->cur->st.cf;
	int fd = cf->control.kind == CONF_LISTEN_UNIX
			 ? listen_unix(d, cf->control.unix_path)
			 : listen_tcp(cf);
	if (fd < 0)
		return -1;
	d->accept_retry = evtimer_new(base, on_accept_retry, d);
	d->lev = evconnlistener_new(
		base, on_accept, d,
		LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, -1, fd);
	if (!d->accept_retry || !d->lev ||
	    !(d->listen = strdup(cf->control.listen))) {
		log_msg(LOG_ERR, "%s: out of memory", cf->control.listen);
		if (!d->lev)
			close(fd);
		return -1;
	}
	evconnlistener_set_error_cb(d->lev, on_accept_error);
	return 0;
}

/* Descriptors: the soft limit goes up to the hard one, as systemd advises
 * for programs that do not use select() (libevent and curl's multi socket
 * API here use epoll and poll); the unit sets both (LimitNOFILE).  A
 * limit too low for the crawl's connections and the control connections
 * together is worth a warning: accepting then pauses while it is reached
 * (on_accept_error()), but fetches fail. */
static void raise_nofile(unsigned concurrency)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		/* The kernel refuses more than fs.nr_open (2^20 by
		 * default): an unlimited hard limit is not a number. */
		rlim_t want = rl.rlim_max == RLIM_INFINITY ||
					      rl.rlim_max > (1u << 20)
				      ? (1u << 20)
				      : rl.rlim_max;
		struct rlimit n = { want, rl.rlim_max };
		if (want > rl.rlim_cur && setrlimit(RLIMIT_NOFILE, &n) == 0) {
			log_msg(LOG_INFO,
				"file descriptors: the limit raised from %llu "
				"to %llu",
				(unsigned long long)rl.rlim_cur,
				(unsigned long long)want);
			rl.rlim_cur = want;
		}
	}
	rlim_t need = (rlim_t)concurrency + CONTROL_CONNECTIONS_MAX + 64;
	if (rl.rlim_cur < need)
		log_msg(LOG_WARNING,
			"only %llu file descriptors (RLIMIT_NOFILE): the "
			"crawl's %u connections and up to %u control "
			"connections may need %llu; raise LimitNOFILE or "
			"ulimit -n",
			(unsigned long long)rl.rlim_cur, concurrency,
			CONTROL_CONNECTIONS_MAX, (unsigned long long)need);
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
	/* The learner took them when it opened (learn/learn.h); under
	 * another profile they mean nothing. */
	KEEP(n->profile == NORM_PROFILE_ADAPTIVE &&
		     (n->adaptive.min_support != o->adaptive.min_support ||
		      n->adaptive.confidence != o->adaptive.confidence ||
		      n->adaptive.audit_share != o->adaptive.audit_share ||
		      n->adaptive.retire_below != o->adaptive.retire_below ||
		      n->adaptive.audit_every != o->adaptive.audit_every ||
		      n->adaptive.transfer != o->adaptive.transfer),
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
	if (listen_control(d, base))
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
	if (d->node)
		cnode_stopping(d->node);
	log_msg(LOG_NOTICE, "stopping: transfers in flight go back to the "
			    "queue");
	/* No new connections; requests under way are answered. */
	if (d->lev)
		evconnlistener_free(d->lev);
	d->lev = NULL;
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
		conn_free(k);
	}
	if (d->lev)
		evconnlistener_free(d->lev);
	d->lev = NULL;
	if (d->accept_retry)
		event_free(d->accept_retry);
	d->accept_retry = NULL;
	free(d->listen);
	d->listen = NULL;
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
	int rc = crawl_run(&d.cur->o, &s);
	cnode_close(d.node);
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
