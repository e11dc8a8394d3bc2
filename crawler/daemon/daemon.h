/* daemon.h — the daemon: `sigcrawl serve` (serve.c: reloads, systemd,
 * the engine's hooks; serve-conn.c: the control listener and its
 * connections), its control API's requests and answers (control.c,
 * control-answer.c) and, with [cluster], its node (cluster-node.c,
 * private to this room).
 *
 * The control API's requests and answers come without sockets: the
 * daemon (serve-conn.c) reads requests from its control connections
 * and hands their bytes to these functions: the HTTP/1.1 framing (the
 * request head, a chunked body), then the routing, the parsing and
 * normalization of submitted seeds, and the JSON and Prometheus answers.
 * Nothing here touches the network, the crawl or the store, so the fuzzer
 * drives it directly (tests/fuzz/fuzz-control.c).
 *
 * The API (docs/daemon.md):
 *   POST /seeds    JSON {"category": NAME, "urls": [URL, ...]}, or
 *                  text/plain one URL per line with ?category=NAME
 *   GET  /status   JSON: the crawl's state and counters
 *   GET  /metrics  Prometheus text exposition format 0.0.4
 *   GET  /         the dashboard: one HTML page that polls /status
 *   GET  /history  JSON: pages/s over the last hour
 *   GET  /rules    JSON: the learned rules that apply or applied
 *   GET  /shards   JSON: with [cluster], every shard's last status
 *   POST /pause, POST /resume
 * Errors are JSON {"error": MESSAGE} with a 4xx or 5xx status, those of
 * the HTTP framing included. */
#ifndef DAEMON_H
#define DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crawl.h"
#include "normalize.h"
#include "sc.h"

/* The largest request body (413 above it). */
#define CONTROL_BODY_MAX (1024 * 1024)
/* The largest request head: request line and header fields (431). */
#define CONTROL_HEAD_MAX (16 * 1024)
/* The most control connections open at once; more wait in the socket's
 * backlog until one closes. */
#define CONTROL_CONNECTIONS_MAX 256
/* Seconds a connection may take to send a request (from its opening or
 * the previous answer), and to read an answer. */
#define CONTROL_TIMEOUT_S 30
/* The most URLs one request may submit. */
#define CONTROL_SEEDS_MAX 10000
/* Rejected lines listed in an answer: all of them, since a request holds
 * at most CONTROL_SEEDS_MAX lines (the count covers them all anyway). */
#define CONTROL_REJECTED_LIST_MAX CONTROL_SEEDS_MAX

enum control_route {
	CONTROL_SEEDS,
	CONTROL_STATUS,
	CONTROL_METRICS,
	CONTROL_PAUSE,
	CONTROL_RESUME,
	CONTROL_DASHBOARD,
	CONTROL_HISTORY,
	CONTROL_RULES,
	CONTROL_SHARDS,
};

/* An answer: HTTP status, content type (static) and a body (malloc'ed,
 * the caller frees it; NULL only when memory ran out); with 405, the
 * methods the resource allows, for the Allow header (static; else NULL). */
struct control_answer {
	int status;
	const char *content_type;
	char *body;
	const char *allow;
};

/* ---------------------------------------------------------------------
 * HTTP/1.1 framing (RFC 9112), as much as the control API needs: one
 * request at a time per connection, kept alive unless either side says
 * close, bodies by Content-Length or chunked, Expect: 100-continue.
 */

/* A parsed request head.  The strings point into the buffer given to
 * control_parse_head() and live as long as it does. */
struct control_head {
	const char *method;       /* a token, as sent */
	const char *path;         /* the target's path, not decoded */
	const char *query;        /* after '?', or NULL */
	const char *content_type; /* NULL: none */
	const char *host;         /* the Host field, or NULL */
	const char *origin;       /* the Origin field (a browser's), or NULL */
	unsigned minor;           /* HTTP/1.minor */
	bool close;               /* no other request on this connection */
	bool chunked;             /* Transfer-Encoding: chunked */
	bool expect_continue;     /* Expect: 100-continue (HTTP/1.1) */
	uint64_t length;          /* Content-Length; 0 without one */
};

/* The length of the request head at the start of buf (len bytes): the
 * request line and header fields through the empty line that ends them
 * (CRLF or a bare LF), or 0 while that line has not arrived.  Bytes before
 * from were searched by an earlier call on the same head (pass 0 the
 * first time, then the len of that call), so that a head that arrives a
 * byte at a time is still read in linear time.  Empty lines before the
 * request line are the caller's to skip (control_head_skip()). */
size_t control_head_end(const char *buf, size_t len, size_t from);

/* How many CR and LF bytes begin buf: empty lines a client may send
 * before a request (RFC 9112 §2.2), to be skipped. */
size_t control_head_skip(const char *buf, size_t len);

/* Parse the head in buf (len bytes, as control_head_end() measured it;
 * written to: its line ends become NULs).  Returns 0 with *ret, or
 * SC_E_INVAL / SC_E_LIMIT with ans filled and the connection to be closed
 * after it: 400 (malformed), 413 (a Content-Length over CONTROL_BODY_MAX),
 * 417 (an expectation other than 100-continue), 431 (a head over
 * CONTROL_HEAD_MAX), 501 (a transfer coding other than chunked) or 505
 * (not HTTP/1.x). */
SC_WUR int control_parse_head(char *buf, size_t len, struct control_head *ret,
			      struct control_answer *ans);

/* The state of a chunked body being decoded; zero it to start. */
struct control_chunked {
	int state;
	uint64_t left;  /* bytes of the current chunk still to come */
	size_t total;   /* body bytes decoded so far */
	size_t line;    /* bytes of the current chunk-size or trailer line */
	size_t trailer; /* bytes of the trailer section */
};

/* Decode the next len bytes of a chunked body: the chunk data among them
 * goes to out (room for len bytes; *out_len set to what was written) and
 * *used counts the bytes consumed.  Returns 0 when more is needed (all
 * len bytes were used), 1 when the body ended (bytes after *used belong
 * to the next request), or SC_E_INVAL / SC_E_LIMIT with ans filled: 400
 * (malformed), 413 (over CONTROL_BODY_MAX), 431 (trailers over
 * CONTROL_HEAD_MAX). */
SC_WUR int control_chunked_feed(struct control_chunked *c, const char *in,
				size_t len, size_t *used, char *out,
				size_t *out_len, struct control_answer *ans);

/* The reason phrase of an HTTP status ("Not Found"). */
const char *control_reason(int status);

/* ---------------------------------------------------------------------
 * Routes and answers
 */

/* Route a request by method ("GET", "POST", ...; HEAD counts as GET) and
 * path (without the query).  Returns 0 with *ret set, or SC_E_NOTFOUND
 * with ans filled (404 unknown path, 405 wrong method, with ans->allow). */
SC_WUR int control_route(const char *method, const char *path,
			 enum control_route *ret, struct control_answer *ans);

/* May a request with these Host and Origin fields (either NULL when
 * absent) be served on a TCP listener?  A browser is the client there
 * (the dashboard), and a page of another site it shows may send requests
 * too: a Host that is not a loopback address or localhost (a DNS
 * rebinding) and an Origin that is not http://LOOPBACK[:PORT] (a
 * cross-site request) are refused; curl, Prometheus and `sigcrawl status`
 * send a loopback Host and no Origin.  Returns NULL, or why not (static). */
const char *control_refuse_web(const char *host, const char *origin);

/* A rejected line of a submission. */
struct control_rejected {
	unsigned line; /* 1-based: the body's line, or the array index + 1 */
	char *text;    /* the line, shortened and made printable */
	const char *reason;
};

/* A parsed POST /seeds: the category named and the seeds normalized,
 * ready for crawl_add_seeds() (see struct crawl_seeds). */
struct control_seeds {
	char *category;
	size_t n;
	char **url, **found; /* normalized with the crawl's steps; strict */
	struct norm_url *u, *found_u;
	int8_t *added; /* set by the writer */
	size_t n_rejected;
	struct control_rejected *rejected; /* the first ones, at most
					      CONTROL_REJECTED_LIST_MAX */
	size_t n_rejected_listed;
};

/* Parse a POST /seeds request.  content_type may be NULL (text), query
 * is the raw query string or NULL, body need not end in NUL.  norm is the
 * crawl's normalization.  Returns 0 with *ret (free it with
 * control_seeds_free()), or SC_E_INVAL / SC_E_LIMIT / SC_E_NOMEM with
 * ans filled (400, 413, 415 or 500 and a JSON error). */
SC_WUR int control_parse_seeds(const char *content_type, const char *query,
			       const char *body, size_t len,
			       const struct norm_opts *norm,
			       struct control_seeds **ret,
			       struct control_answer *ans);

void control_seeds_free(struct control_seeds *s);

/* The answer to a committed submission: 200 and
 * {"category", "accepted", "known", "rejected": N, "rejected_lines":
 * [{"line", "url", "reason"}]}. */
void control_seeds_answer(const struct control_seeds *s,
			  struct control_answer *ans);

/* GET /status: 200 and the JSON of st; rate is pages/s lately, given
 * to 0.1, the uptime to 0.001 s. */
void control_status_answer(const struct crawl_status *st, double rate,
			   struct control_answer *ans);

/* GET /metrics: 200 and the exposition text of st. */
void control_metrics_answer(const struct crawl_status *st,
			    struct control_answer *ans);

/* GET /: the dashboard page (crawler/daemon/dashboard.html, built into the
 * executable), 200 and text/html. */
void control_dashboard_answer(struct control_answer *ans);

/* GET /history: 200 and {"step_s": S, "pages_per_s": [...]}, the n
 * figures of crawl_rate_history(), oldest first, to 0.01. */
void control_history_answer(const double *rates, size_t n, double step_s,
			    struct control_answer *ans);

/* The learned rules GET /rules lists, every state (the dashboard's card
 * counts them all): the active first, by fetches saved, then the
 * candidates by support, then the retired and the refuted; the first
 * CONTROL_RULES_LISTED of that order. */
#define CONTROL_RULES_LISTED 200
struct control_rules {
	size_t n;       /* listed, up to CONTROL_RULES_LISTED */
	uint64_t total; /* rules of every state */
	struct control_rule {
		uint32_t id;
		uint8_t state; /* enum adapt_state */
		char host[NORM_HOST_MAX + 1];
		char text[512];
		uint64_t support, held, saved, audits, audit_failures;
	} rule[CONTROL_RULES_LISTED];
};

/* adapt_list()'s callback filling a struct control_rules (arg; zero it
 * first): keeps the first CONTROL_RULES_LISTED rules in the order above. */
int control_rules_add(void *arg, const struct adapt_rule_info *r);

/* GET /rules: 200 and {"total": N, "rules": [{"id", "state", "host",
 * "rule", "support", "held", "fetches_saved", "audits",
 * "audit_failures"}]}, in the order above; total counts every rule. */
void control_rules_answer(struct control_rules *r, struct control_answer *ans);

/* An error answer: status and {"error": msg}. */
void control_error(struct control_answer *ans, int status, const char *msg);

/* The name of a state: "running", "paused", "idle", "stopping". */
const char *control_state_name(enum crawl_state s);

/* The serve command (SPEC §2): runs the daemon until SIGTERM; returns
 * the process exit status (log.h's EXIT_*). */
int cmd_serve(int argc, char **argv);

#endif
