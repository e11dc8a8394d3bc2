/* control.h — the control API's requests and answers, without sockets.
 *
 * The daemon (cmd-serve.c) receives HTTP requests with libevent's evhttp
 * and hands their method, path, query, content type and body to these
 * functions, which route them, parse and normalize submitted seeds, and
 * build the JSON and Prometheus answers.  Nothing here touches the
 * network, the crawl or the store, so the fuzzer drives it directly
 * (tests/fuzz/fuzz-control.c).
 *
 * The API (docs/daemon.md):
 *   POST /seeds    JSON {"category": NAME, "urls": [URL, ...]}, or
 *                  text/plain one URL per line with ?category=NAME
 *   GET  /status   JSON: the crawl's state and counters
 *   GET  /metrics  Prometheus text exposition format 0.0.4
 *   POST /pause, POST /resume
 * Errors are JSON {"error": MESSAGE} with a 4xx status. */
#ifndef CONTROL_H
#define CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include "crawl.h"
#include "normalize.h"
#include "sc.h"

/* The largest request body (evhttp answers 413 above it). */
#define CONTROL_BODY_MAX (1024 * 1024)
/* The most URLs one request may submit. */
#define CONTROL_SEEDS_MAX 10000
/* Rejected lines listed in an answer (the count covers them all). */
#define CONTROL_REJECTED_LIST_MAX 1000

enum control_route {
	CONTROL_SEEDS,
	CONTROL_STATUS,
	CONTROL_METRICS,
	CONTROL_PAUSE,
	CONTROL_RESUME,
};

/* An answer: HTTP status, content type (static) and a body (malloc'ed,
 * the caller frees it). */
struct control_answer {
	int status;
	const char *content_type;
	char *body;
};

/* Route a request by method ("GET", "POST", ...; HEAD counts as GET) and
 * path (without the query).  Returns 0 with *ret set, or SC_E_NOTFOUND
 * with ans filled (404 unknown path, 405 wrong method). */
SC_WUR int control_route(const char *method, const char *path,
			 enum control_route *ret, struct control_answer *ans);

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

/* GET /status: 200 and the JSON of st; rate is pages/s lately. */
void control_status_answer(const struct crawl_status *st, double rate,
			   struct control_answer *ans);

/* GET /metrics: 200 and the exposition text of st. */
void control_metrics_answer(const struct crawl_status *st,
			    struct control_answer *ans);

/* An error answer: status and {"error": msg}. */
void control_error(struct control_answer *ans, int status, const char *msg);

/* The name of a state: "running", "paused", "idle", "stopping". */
const char *control_state_name(enum crawl_state s);

#endif
