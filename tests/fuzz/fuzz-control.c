/* fuzz-control.c — libFuzzer target for the control API's request layer
 * (crawler/daemon/control.c, crawler/daemon/control-answer.c): the HTTP
 * framing, routing, POST /seeds parsing and normalization, and every answer it
 * builds.
 *
 * The whole input is first read as the bytes a connection sends: a
 * request head (its end found in one pass and in pieces, which must
 * agree; then parsed), and a chunked body (fed in two pieces split where
 * the first byte says).  Then it is a request in four parts separated by
 * NUL bytes: method, target (path and query), content type, body.
 * Checked: an error answer is 4xx/5xx with a JSON {"error"} body; a
 * parsed head's fields are within the limits; the chunked decoder never
 * writes more than it reads nor past the body limit; a parsed
 * submission's counts add up and its answer is valid JSON with those
 * counts; the status and metrics answers built from counters taken from
 * the input are well formed. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The next NUL-terminated part of the input, copied. */
static char *part(const uint8_t **p, const uint8_t *end)
{
	const uint8_t *z = memchr(*p, 0, (size_t)(end - *p));
	size_t n = z ? (size_t)(z - *p) : (size_t)(end - *p);
	char *s = malloc(n + 1);
	if (!s)
		abort();
	memcpy(s, *p, n);
	s[n] = '\0';
	*p += n + (z != NULL);
	return s;
}

static void check_error(const struct control_answer *a)
{
	ASSERT(a->status >= 400 && a->status <= 599, NULL);
	ASSERT(a->body != NULL, NULL);
	json_t *o = json_loads(a->body, 0, NULL);
	ASSERT(json_is_string(json_object_get(o, "error")), a->body);
	json_decref(o);
}

static void check_seeds(struct control_seeds *s, const uint8_t *data,
			size_t size)
{
	ASSERT(s->category && s->category[0], NULL);
	ASSERT(s->n <= CONTROL_SEEDS_MAX, NULL);
	ASSERT(s->n_rejected_listed <= s->n_rejected, NULL);
	ASSERT(s->n_rejected_listed <= CONTROL_REJECTED_LIST_MAX, NULL);
	size_t accepted = 0;
	for (size_t i = 0; i < s->n; i++) {
		ASSERT(strlen(s->url[i]) == s->u[i].len, s->url[i]);
		ASSERT(s->u[i].len <= NORM_URL_MAX, s->url[i]);
		ASSERT(strlen(s->found[i]) == s->found_u[i].len, s->found[i]);
		/* What the writer would say, from the input's bytes. */
		s->added[i] = size ? data[i % size] & 1 : 0;
		accepted += (size_t)s->added[i];
	}
	for (size_t i = 0; i < s->n_rejected_listed; i++)
		ASSERT(s->rejected[i].line >= 1 && s->rejected[i].reason, NULL);
	struct control_answer a;
	control_seeds_answer(s, &a);
	ASSERT(a.status == 200 && a.body, NULL);
	json_t *o = json_loads(a.body, 0, NULL);
	ASSERT(o != NULL, a.body);
	ASSERT(json_integer_value(json_object_get(o, "accepted")) ==
		       (json_int_t)accepted,
	       a.body);
	ASSERT(json_integer_value(json_object_get(o, "known")) ==
		       (json_int_t)(s->n - accepted),
	       a.body);
	ASSERT(json_integer_value(json_object_get(o, "rejected")) ==
		       (json_int_t)s->n_rejected,
	       a.body);
	json_decref(o);
	free(a.body);
}

/* The input as a connection's bytes: a request head, a chunked body. */
static void check_framing(const uint8_t *data, size_t size)
{
	char *buf = exact_copy(data, size);
	size_t skip = control_head_skip(buf, size);
	ASSERT(skip <= size, NULL);
	char *head = buf + skip;
	size_t len = size - skip, end = control_head_end(head, len, 0);
	ASSERT(end <= len, NULL);
	/* In pieces, as a slow client sends it. */
	size_t from = 0, piecewise = 0;
	for (size_t n = 1; n <= len && !piecewise; n += 1 + n / 3) {
		piecewise = control_head_end(head, n, from);
		from = n;
	}
	ASSERT(!piecewise || piecewise == end, NULL);
	struct control_answer a;
	if (end) {
		struct control_head h;
		if (control_parse_head(head, end, &h, &a)) {
			check_error(&a);
			free(a.body);
		} else {
			ASSERT(h.method && h.path, NULL);
			ASSERT(h.length <= CONTROL_BODY_MAX, NULL);
			ASSERT(!(h.chunked && h.length), NULL);
			ASSERT(h.minor <= 9, NULL);
			/* The check of a browser's request (Host, Origin):
			 * a reason or NULL, never a crash. */
			const char *why = control_refuse_web(h.host, h.origin);
			ASSERT(!why || *why, NULL);
		}
	}
	free(buf);

	buf = exact_copy(data, size);
	char *out = malloc(size ? size : 1);
	if (!out)
		abort();
	struct control_chunked c = { 0 };
	size_t split = size ? data[0] % (size + 1) : 0, at = 0, total = 0;
	for (int piece = 0; piece < 2; piece++) {
		size_t n = piece ? size - at : split, used = 0, got = 0;
		int rc = control_chunked_feed(&c, buf + at, n, &used, out, &got,
					      &a);
		ASSERT(used <= n && got <= used, NULL);
		total += got;
		ASSERT(total == c.total && total <= CONTROL_BODY_MAX, NULL);
		if (rc < 0) {
			check_error(&a);
			free(a.body);
			break;
		}
		ASSERT(rc == 1 || used == n, NULL);
		if (rc == 1)
			break;
		at += used;
	}
	free(out);
	free(buf);
}

static void check_reports(const uint8_t *data, size_t size)
{
	struct crawl_status st;
	memset(&st, 0, sizeof(st));
	unsigned char *b = (unsigned char *)&st;
	for (size_t i = 0; i < sizeof(st) && i < size; i++)
		b[i] = data[i];
	st.state = (enum crawl_state)(size ? data[0] % 4 : 0);
	/* The full-disk detail as the engine fills it: flags that are
	 * bools, strings that end. */
	*(unsigned char *)&st.full.on &= 1; /* not read as a bool first */
	*(unsigned char *)&st.full.ceiling &= 1;
	st.full.path[sizeof(st.full.path) - 1] = '\0';
	st.full.error[sizeof(st.full.error) - 1] = '\0';
	st.latency_sum = 1.5;
	st.sum.seconds = 2.0;
	struct control_answer a;
	control_status_answer(&st, 3.0, &a);
	ASSERT(a.status == 200 && a.body, NULL);
	json_t *o = json_loads(a.body, 0, NULL);
	ASSERT(json_is_string(json_object_get(o, "state")), a.body);
	json_decref(o);
	free(a.body);
	control_metrics_answer(&st, &a);
	ASSERT(a.status == 200 && a.body, NULL);
	ASSERT(strstr(a.body, "sigcrawl_fetch_duration_seconds_count "), NULL);
	ASSERT(a.body[strlen(a.body) - 1] == '\n', NULL);
	free(a.body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_framing(data, size);
	const uint8_t *p = data, *end = data + size;
	char *method = part(&p, end), *target = part(&p, end),
	     *ctype = part(&p, end);
	size_t len = (size_t)(end - p);
	char *body = exact_copy(p, len);
	char *query = strchr(target, '?');
	if (query)
		*query++ = '\0';

	struct control_answer a;
	enum control_route route;
	if (control_route(method, target, &route, &a)) {
		check_error(&a);
		free(a.body);
	} else if (route == CONTROL_SEEDS) {
		static const struct norm_opts norm = { .steps = 0xffff };
		struct control_seeds *s = NULL;
		int rc = control_parse_seeds(ctype[0] ? ctype : NULL, query,
					     body, len, &norm, &s, &a);
		if (rc) {
			ASSERT(s == NULL, NULL);
			check_error(&a);
			free(a.body);
		} else {
			check_seeds(s, data, size);
			control_seeds_free(s);
		}
	} else {
		check_reports(data, size);
	}
	free(method);
	free(target);
	free(ctype);
	free(body);
	return 0;
}
