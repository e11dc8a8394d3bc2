/* serve-conn.c — the control listener of `sigcrawl serve` and its
 * connections.
 *
 * The listener accepts on the control socket (a Unix socket or a
 * loopback TCP port), pausing at CONTROL_CONNECTIONS_MAX connections and
 * after accept() failed; each connection (struct conn, serve-int.h) reads
 * one request at a time, hands its bytes to control.c's framing and
 * routing, dispatches it (GET /status and /metrics, POST /pause and
 * /resume at once; POST /seeds to the writer, answered once committed,
 * struct pending) and writes the answer, then reads the next request or
 * closes with a lingering close.  The daemon's struct, its config
 * versions, reloads and the engine's hooks are serve.c's.
 *
 * The connections are served here on libevent's evconnlistener and
 * bufferevents rather than with evhttp: the evhttp of libevent 2.1 answers
 * the errors it finds itself (a malformed request, a body over its limit)
 * in HTML, with no hook to make them JSON (evhttp_set_errorcb came with
 * 2.2), and it cannot tell when a connection that never completed a
 * request goes away, so the number of connections open could not be
 * bounded. */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon.h"
#include "crawl.h"
#include "log.h"
#include "cluster-node.h"
#include "serve-int.h"

/* Connections waiting in the kernel to be accepted. */
#define CONTROL_BACKLOG 128
/* After accept() failed (no descriptor left, say), accepting pauses this
 * long, or until one of the control connections closes, as nginx does. */
#define ACCEPT_RETRY_MS 500
/* At most one "the most connections allowed" line in this many seconds. */
#define AT_MAX_LOG_S 60
/* A closing connection's answer is written, then what the client still
 * sends is read and dropped this long, so that a TCP client reads the
 * answer rather than a reset (nginx's lingering close). */
#define LINGER_MS 2000
/* Input read ahead of the request being served. */
#define READ_AHEAD_MAX (64 * 1024)

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
	if (d->at_max || d->accept_failed)
		return;
	if (d->lev)
		evconnlistener_enable(d->lev);
	if (d->dash_lev)
		evconnlistener_enable(d->dash_lev);
}

/* Both listeners pause together: they share the bound on connections. */
static void accept_pause(struct daemon *d)
{
	if (d->lev)
		evconnlistener_disable(d->lev);
	if (d->dash_lev)
		evconnlistener_disable(d->dash_lev);
}

void serve_conn_free(struct conn *k)
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
	case CONTROL_DASHBOARD: control_dashboard_answer(&ans); break;
	case CONTROL_HISTORY: {
		double rates[CRAWL_HISTORY_STEPS];
		size_t n = crawl_rate_history(d->c, rates, CRAWL_HISTORY_STEPS);
		control_history_answer(rates, n, CRAWL_HISTORY_STEP_S, &ans);
		break;
	}
	case CONTROL_SHARDS: {
		char *a = d->node ? cnode_shards(d->node) : strdup("[]");
		size_t n = a ? strlen(a) : 0;
		char *body = a ? malloc(n + 16) : NULL;
		if (body)
			snprintf(body, n + 16, "{\"shards\":%s}", a);
		free(a);
		ans = (struct control_answer){
			.status = body ? 200 : 500,
			.content_type = "application/json",
			.body = body,
		};
		break;
	}
	case CONTROL_RULES: {
		struct control_rules *r = calloc(1, sizeof(*r));
		int rc = r ? crawl_rules(d->c, control_rules_add, r)
			   : SC_E_NOMEM;
		if (rc)
			control_error(&ans, 500, sc_strerror(rc));
		else
			control_rules_answer(r, &ans);
		free(r);
		break;
	}
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

/* A routed request this connection may not make (403, ans filled):
 * over TCP, one a web page sent (control_refuse_web()); on the
 * dashboard's listener, a POST.  Returns 0 or SC_E_INVAL. */
static int refused(struct conn *k, struct control_answer *ans)
{
	const char *why = k->tcp ? control_refuse_web(k->head.host,
						      k->head.origin)
				 : NULL;
	bool post = k->route == CONTROL_SEEDS || k->route == CONTROL_PAUSE ||
		    k->route == CONTROL_RESUME;
	if (!why && k->read_only && post)
		why = "the dashboard's listener is read-only: POST on "
		      "[control] listen";
	if (!why)
		return 0;
	control_error(ans, 403, why);
	return SC_E_INVAL;
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
	int rc = control_route(k->head.method, k->head.path, &k->route, &ans);
	if (!rc)
		rc = refused(k, &ans);
	if (rc) {
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
	serve_conn_free(arg);
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
		serve_conn_free(k);
		return;
	}
	struct control_answer ans;
	control_error(&ans, 408, "request timeout");
	reply_error(k, &ans);
}

static struct conn *conn_new(struct daemon *d, evutil_socket_t fd, bool tcp,
			     bool read_only)
{
	struct event_base *base = crawl_base(d->c);
	struct conn *k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->d = d;
	k->tcp = tcp;
	k->read_only = read_only;
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
	bool dash = lev == d->dash_lev;
	if (!conn_new(d, fd, dash || strncmp(d->listen, "tcp:", 4) == 0, dash))
		return; /* out of memory: fd is closed */
	if (d->n_conns < CONTROL_CONNECTIONS_MAX)
		return;
	/* The rest wait in the backlog until a connection closes. */
	d->at_max = true;
	accept_pause(d);
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
 * when it ends (serve.c's hook_tick()). */
static void on_accept_error(struct evconnlistener *lev, void *arg)
{
	struct daemon *d = arg;
	int err = EVUTIL_SOCKET_ERROR();
	struct timeval tv = { ACCEPT_RETRY_MS / 1000,
			      (ACCEPT_RETRY_MS % 1000) * 1000 };
	(void)lev;
	accept_pause(d);
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

/* A loopback TCP port (the config allows loopback hosts only): host,
 * port, and the address as written (for messages). */
static int listen_tcp(const char *host, unsigned tcp_port, const char *addr)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	char port[8];
	snprintf(port, sizeof(port), "%u", tcp_port);
	int rc = getaddrinfo(host, port, &hints, &ai);
	if (rc) {
		log_msg(LOG_ERR, "%s: %s", addr, gai_strerror(rc));
		return -1;
	}
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int on = 1;
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) != 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 ||
	    listen(fd, CONTROL_BACKLOG) != 0 ||
	    evutil_make_socket_nonblocking(fd) != 0) {
		log_msg(LOG_ERR, "%s: cannot listen: %s", addr,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

int serve_listen_control(struct daemon *d, struct event_base *base)
{
	const struct conf *cf = d->cur->st.cf;
	int fd = cf->control.kind == CONF_LISTEN_UNIX
			 ? listen_unix(d, cf->control.unix_path)
			 : listen_tcp(cf->control.tcp_host,
				      cf->control.tcp_port, cf->control.listen);
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
	if (!cf->control.dashboard)
		return 0;
	fd = listen_tcp(cf->control.dash_host, cf->control.dash_port,
			cf->control.dashboard);
	if (fd < 0)
		return -1;
	d->dash_lev = evconnlistener_new(
		base, on_accept, d,
		LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, -1, fd);
	if (!d->dash_lev || !(d->dash_listen = strdup(cf->control.dashboard))) {
		log_msg(LOG_ERR, "%s: out of memory", cf->control.dashboard);
		if (!d->dash_lev)
			close(fd);
		return -1;
	}
	evconnlistener_set_error_cb(d->dash_lev, on_accept_error);
	log_msg(LOG_NOTICE, "dashboard on http://%s/ (read-only)",
		cf->control.dashboard + 4);
	return 0;
}
