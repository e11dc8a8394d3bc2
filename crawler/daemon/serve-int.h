/* serve-int.h — what serve.c and serve-conn.c share, private to the
 * daemon's room.
 *
 * struct daemon is `sigcrawl serve` as it runs: the config versions
 * (serve.c loads them and swaps them on SIGHUP), the engine's hooks, the
 * control listener and its connections (serve-conn.c), systemd's
 * watchdog and the cluster node.  serve.c starts the listener from
 * hook_start() (serve_listen_control()) and, once the loop is over,
 * frees what connections are left (serve_conn_free()); the rest of a
 * connection's life is serve-conn.c's. */
#ifndef SERVE_INT_H
#define SERVE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon.h"
#include "crawl.h"

struct bufferevent;
struct cnode;
struct event;
struct event_base;
struct evbuffer;
struct evconnlistener;

/* accept() failures are one episode, logged when it begins and when it
 * ends: once none has happened for this many seconds. */
#define ACCEPT_QUIET_S 10

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
	/* [control] dashboard: a second, read-only TCP listener for a
	 * browser (its address as started with; NULL: none). */
	char *dash_listen;
	struct evconnlistener *dash_lev;
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

/* A control connection: serve-conn.c ("A control connection") says how
 * one is served. */
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
	bool close_after; /* close once the answer is written */
	/* Accepted over TCP (a browser may be the client: Host and Origin
	 * are checked, control_refuse_web()); on the dashboard's listener
	 * (GET only). */
	bool tcp, read_only;
	struct pending *p; /* seeds with the writer */
};

/* Start listening on [control] listen with the daemon's event base: 0,
 * or -1 with a message logged. */
int serve_listen_control(struct daemon *d, struct event_base *base);

/* Close the connection k and free it; a submission of its seeds still
 * with the writer is answered to no one.  Accepting resumes if it was
 * paused. */
void serve_conn_free(struct conn *k);

#endif
