/* control.c — see daemon.h. */
#include "daemon.h"

#include <event2/http.h>
#include <sys/queue.h>
#include <event2/keyvalq_struct.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "store.h"

#define JSON_TYPE "application/json"
#define METRICS_TYPE "text/plain; version=0.0.4; charset=utf-8"
/* A rejected line is shown with at most this many bytes. */
#define REJECTED_TEXT_MAX 200

/* Reals in answers: 15 significant digits, so that a figure rounded to
 * 0.1 prints as 16.4, not 16.399999999999999 (jansson's default is 17). */
#define JSON_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

void control_error(struct control_answer *ans, int status, const char *msg)
{
	json_t *o = json_pack("{s:s}", "error", msg);
	if (!o) /* msg is not UTF-8 */
		o = json_pack("{s:s}", "error", "bad request");
	*ans = (struct control_answer){
		.status = status,
		.content_type = JSON_TYPE,
		.body = o ? json_dumps(o, JSON_FLAGS) : NULL,
	};
	json_decref(o);
}

const char *control_reason(int status)
{
	switch (status) {
	case 100: return "Continue";
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 413: return "Content Too Large";
	case 415: return "Unsupported Media Type";
	case 417: return "Expectation Failed";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 503: return "Service Unavailable";
	case 505: return "HTTP Version Not Supported";
	default: return status >= 500 ? "Server Error" : "Client Error";
	}
}

/* ---------------------------------------------------------------------
 * HTTP/1.1 framing
 */

size_t control_head_skip(const char *buf, size_t len)
{
	size_t n = 0;
	while (n < len && (buf[n] == '\r' || buf[n] == '\n'))
		n++;
	return n;
}

size_t control_head_end(const char *buf, size_t len, size_t from)
{
	/* The end is "\n\n" or "\n\r\n": a search that stopped at len
	 * looks again at the last two bytes it saw. */
	size_t i = from > 2 ? from - 2 : 0;
	for (; i < len; i++) {
		const char *nl = memchr(buf + i, '\n', len - i);
		if (!nl)
			break;
		i = (size_t)(nl - buf);
		if (i + 1 < len && buf[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

/* RFC 9110 §5.6.2: a token's characters. */
static bool tchar(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') ||
	       (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

static bool token(const char *p)
{
	if (!*p)
		return false;
	for (; *p; p++)
		if (!tchar((unsigned char)*p))
			return false;
	return true;
}

/* Does the comma-separated list value hold the token t (any case)? */
static bool list_has(const char *value, const char *t)
{
	size_t n = strlen(t);
	for (const char *p = value; *p;) {
		p += strspn(p, " \t,");
		size_t len = strcspn(p, ",");
		size_t end = len;
		while (end && (p[end - 1] == ' ' || p[end - 1] == '\t'))
			end--;
		if (end == n && strncasecmp(p, t, n) == 0)
			return true;
		p += len;
	}
	return false;
}

/* The request target (RFC 9112 §3.2): origin-form "/path?query", or
 * absolute-form "http://host/path?query", whose authority is skipped (a
 * proxy would need it; the control API has one host).  The asterisk-form
 * of OPTIONS is kept as the path "*", which no route has. */
static int split_target(char *t, struct control_head *h)
{
	if (strncasecmp(t, "http://", 7) == 0 ||
	    strncasecmp(t, "https://", 8) == 0) {
		char *p = strstr(t, "//") + 2;
		p += strcspn(p, "/?");
		if (!*p) { /* no path: "/" (RFC 9112 §3.2.2) */
			h->path = "/";
			h->query = NULL;
			return 0;
		}
		if (*p == '?') /* the authority's last byte becomes the "/" */
			*--p = '/';
		t = p;
	} else if (*t != '/' && strcmp(t, "*") != 0) {
		return SC_E_INVAL;
	}
	char *hash = strchr(t, '#'); /* not sent by clients; dropped */
	if (hash)
		*hash = '\0';
	char *q = strchr(t, '?');
	if (q)
		*q++ = '\0';
	h->path = t;
	h->query = q;
	return 0;
}

static int head_error(struct control_answer *ans, int status, const char *msg)
{
	control_error(ans, status, msg);
	return status == 413 || status == 431 ? SC_E_LIMIT : SC_E_INVAL;
}

/* One header field of the head: what the control API reads of it. */
static int header_field(char *line, struct control_head *h, bool *has_length,
			bool *keep_alive, struct control_answer *ans)
{
	char *colon = strchr(line, ':');
	if (line[0] == ' ' || line[0] == '\t')
		return head_error(ans, 400,
				  "obsolete line folding in a header "
				  "field");
	if (!colon)
		return head_error(ans, 400, "a header line without a colon");
	*colon = '\0';
	if (!token(line))
		return head_error(ans, 400, "bad header field name");
	char *v = colon + 1;
	v += strspn(v, " \t");
	size_t n = strlen(v);
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	v[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 && v[i] != '\t')
			return head_error(ans, 400,
					  "a control character in a header "
					  "field");
	if (strcasecmp(line, "Content-Length") == 0) {
		uint64_t len = 0;
		if (!n || strspn(v, "0123456789") != n)
			return head_error(ans, 400, "bad Content-Length");
		for (size_t i = 0; i < n && len <= CONTROL_BODY_MAX; i++)
			len = len * 10 + (uint64_t)(v[i] - '0');
		if (*has_length && len != h->length)
			return head_error(ans, 400,
					  "two Content-Length values");
		if (len > CONTROL_BODY_MAX)
			return head_error(ans, 413,
					  "request body too large (at most "
					  "1048576 bytes)");
		h->length = len;
		*has_length = true;
	} else if (strcasecmp(line, "Transfer-Encoding") == 0) {
		if (h->chunked || strcasecmp(v, "chunked") != 0)
			return head_error(ans, 501,
					  "unsupported transfer coding (only "
					  "chunked)");
		h->chunked = true;
	} else if (strcasecmp(line, "Content-Type") == 0) {
		if (!h->content_type)
			h->content_type = v;
	} else if (strcasecmp(line, "Connection") == 0) {
		if (list_has(v, "close"))
			h->close = true;
		if (list_has(v, "keep-alive"))
			*keep_alive = true;
	} else if (strcasecmp(line, "Expect") == 0) {
		if (strcasecmp(v, "100-continue") != 0)
			return head_error(ans, 417, "unsupported expectation");
		h->expect_continue = true;
	}
	return 0;
}

/* The next line of the head at *p (its end made a NUL; a CR before the
 * LF is dropped), or NULL after the last.  A CR elsewhere is malformed
 * (RFC 9112 §2.2): *bad is set. */
static char *next_line(char **p, char *end, bool *bad)
{
	char *l = *p;
	char *nl = l < end ? memchr(l, '\n', (size_t)(end - l)) : NULL;
	if (!nl)
		return NULL;
	*p = nl + 1;
	if (nl > l && nl[-1] == '\r')
		nl--;
	*nl = '\0';
	if (strchr(l, '\r'))
		*bad = true;
	return l;
}

int control_parse_head(char *buf, size_t len, struct control_head *ret,
		       struct control_answer *ans)
{
	struct control_head h = { 0 };
	bool has_length = false, keep_alive = false, bad = false;
	if (len > CONTROL_HEAD_MAX)
		return head_error(ans, 431,
				  "request head too large (at most 16384 "
				  "bytes)");
	if (memchr(buf, '\0', len))
		return head_error(ans, 400, "a NUL byte in the request head");
	char *p = buf, *end = buf + len;
	char *line = next_line(&p, end, &bad);
	if (!line || bad)
		return head_error(ans, 400, "bad request line");
	/* method SP request-target SP HTTP-version, words split on runs of
	 * spaces as RFC 9112 §3 allows. */
	char *words[3];
	int n = 0;
	for (char *w = line; *w && n < 4;) {
		w += strspn(w, " ");
		if (!*w)
			break;
		if (n == 3)
			return head_error(ans, 400, "bad request line");
		words[n++] = w;
		w += strcspn(w, " ");
		if (*w)
			*w++ = '\0';
	}
	if (n != 3 || !token(words[0]) || strlen(words[0]) > 32)
		return head_error(ans, 400, "bad request line");
	const char *v = words[2];
	if (strncmp(v, "HTTP/", 5) != 0 || !(v[5] >= '0' && v[5] <= '9') ||
	    v[6] != '.' || !(v[7] >= '0' && v[7] <= '9') || v[8])
		return head_error(ans, 400, "bad HTTP version");
	if (v[5] != '1')
		return head_error(ans, 505, "HTTP/1.1 only");
	h.minor = (unsigned)(v[7] - '0');
	for (const char *t = words[1]; *t; t++)
		if ((unsigned char)*t <= 0x20 || *t == 0x7f)
			return head_error(ans, 400, "bad request target");
	if (split_target(words[1], &h))
		return head_error(ans, 400, "bad request target");
	h.method = words[0];
	while ((line = next_line(&p, end, &bad)) && *line) {
		if (bad)
			return head_error(ans, 400, "a bare CR in the head");
		int rc = header_field(line, &h, &has_length, &keep_alive, ans);
		if (rc)
			return rc;
	}
	if (bad)
		return head_error(ans, 400, "a bare CR in the head");
	if (h.chunked && has_length)
		return head_error(ans, 400,
				  "both Content-Length and Transfer-Encoding");
	if (h.minor == 0) {
		/* HTTP/1.0 knows no chunked coding nor 100-continue, and
		 * closes unless asked to keep alive. */
		if (h.chunked)
			return head_error(ans, 400,
					  "Transfer-Encoding in HTTP/1.0");
		h.expect_continue = false;
		h.close = h.close || !keep_alive;
	}
	*ret = h;
	return 0;
}

/* The states of a chunked body (RFC 9112 §7.1). */
enum {
	CH_SIZE,     /* chunk-size: hex digits */
	CH_EXT,      /* chunk extensions, up to the line's end */
	CH_SIZE_LF,  /* after the CR of the size line */
	CH_DATA,     /* chunk data */
	CH_DATA_END, /* CRLF after the data */
	CH_DATA_LF,  /* LF after its CR */
	CH_TRAILER,  /* at the start of a trailer line, or the final CRLF */
	CH_FIELD,    /* in a trailer line */
	CH_FIELD_LF, /* LF after a trailer line's CR */
	CH_END_LF,   /* LF after the final CR */
	CH_DONE,
};

/* Longest chunk-size line (extensions included), as the server allows. */
#define CHUNK_LINE_MAX 4096

int control_chunked_feed(struct control_chunked *c, const char *in, size_t len,
			 size_t *used, char *out, size_t *out_len,
			 struct control_answer *ans)
{
	size_t i = 0, o = 0;
	int rc = 0;
	while (i < len && c->state != CH_DONE && !rc) {
		unsigned char ch = (unsigned char)in[i];
		switch (c->state) {
		case CH_SIZE: {
			int d = ch >= '0' && ch <= '9'   ? ch - '0'
				: ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
				: ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
							 : -1;
			if (d < 0 &&
			    (c->line == 0 || !strchr(" \t;\r\n", ch) || !ch)) {
				rc = head_error(ans, 400, "bad chunk size");
				break;
			}
			if (d < 0) {
				c->state = CH_EXT;
				continue; /* this byte again */
			}
			if (c->line == CHUNK_LINE_MAX) {
				rc = head_error(ans, 400, "bad chunk size");
				break;
			}
			c->left = c->left * 16 + (uint64_t)d;
			if (c->left > CONTROL_BODY_MAX - c->total) {
				rc = head_error(ans, 413,
						"request body too large (at "
						"most 1048576 bytes)");
				break;
			}
			c->line++;
			i++;
			break;
		}
		case CH_EXT:
			if (ch == '\r' || ch == '\n') {
				c->state = ch == '\r' ? CH_SIZE_LF : CH_DATA;
				if (ch == '\n' && !c->left)
					c->state = CH_TRAILER;
				c->line = 0;
			} else if (++c->line > CHUNK_LINE_MAX ||
				   (ch < 0x20 && ch != '\t')) {
				rc = head_error(ans, 400,
						"bad chunk extension");
				break;
			}
			i++;
			break;
		case CH_SIZE_LF:
			if (ch != '\n') {
				rc = head_error(ans, 400,
						"bad chunk size line");
				break;
			}
			c->state = c->left ? CH_DATA : CH_TRAILER;
			i++;
			break;
		case CH_DATA: {
			size_t n = len - i;
			if (n > c->left)
				n = (size_t)c->left;
			memcpy(out + o, in + i, n);
			o += n;
			i += n;
			c->left -= n;
			c->total += n;
			if (!c->left)
				c->state = CH_DATA_END;
			break;
		}
		case CH_DATA_END:
		case CH_DATA_LF:
			if (ch == '\r' && c->state == CH_DATA_END) {
				c->state = CH_DATA_LF;
			} else if (ch == '\n') {
				c->state = CH_SIZE;
			} else {
				rc = head_error(ans, 400,
						"chunk data longer than its "
						"size");
				break;
			}
			i++;
			break;
		case CH_TRAILER:
			c->state = ch == '\r'   ? CH_END_LF
				   : ch == '\n' ? CH_DONE
						: CH_FIELD;
			if (c->state != CH_FIELD)
				i++;
			break;
		case CH_FIELD:
		case CH_FIELD_LF:
			if (++c->trailer > CONTROL_HEAD_MAX) {
				rc = head_error(ans, 431,
						"trailer fields too large");
				break;
			}
			if (ch == '\n')
				c->state = CH_TRAILER;
			else if (c->state == CH_FIELD_LF)
				rc = head_error(ans, 400,
						"a bare CR in a "
						"trailer field");
			else if (ch == '\r')
				c->state = CH_FIELD_LF;
			else if (ch < 0x20 && ch != '\t')
				rc = head_error(ans, 400,
						"a control character in a "
						"trailer field");
			i++;
			break;
		case CH_END_LF:
			if (ch != '\n') {
				rc = head_error(ans, 400,
						"bad end of a chunked "
						"body");
				break;
			}
			c->state = CH_DONE;
			i++;
			break;
		}
	}
	*used = i;
	*out_len = o;
	if (rc)
		return rc;
	return c->state == CH_DONE;
}

const char *control_state_name(enum crawl_state s)
{
	switch (s) {
	case CRAWL_RUNNING: return "running";
	case CRAWL_PAUSED: return "paused";
	case CRAWL_IDLE: return "idle";
	case CRAWL_STOPPING: return "stopping";
	}
	return "unknown";
}

int control_route(const char *method, const char *path, enum control_route *ret,
		  struct control_answer *ans)
{
	static const struct {
		const char *path;
		enum control_route route;
		bool post;
	} routes[] = {
		{ "/seeds", CONTROL_SEEDS, true },
		{ "/status", CONTROL_STATUS, false },
		{ "/metrics", CONTROL_METRICS, false },
		{ "/pause", CONTROL_PAUSE, true },
		{ "/resume", CONTROL_RESUME, true },
	};
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		if (strcmp(path, routes[i].path) != 0)
			continue;
		bool ok = routes[i].post ? strcmp(method, "POST") == 0
					 : strcmp(method, "GET") == 0 ||
						   strcmp(method, "HEAD") == 0;
		if (!ok) {
			control_error(ans, 405,
				      routes[i].post ? "use POST" : "use GET");
			ans->allow = routes[i].post ? "POST" : "GET, HEAD";
			return SC_E_NOTFOUND;
		}
		*ret = routes[i].route;
		return 0;
	}
	control_error(ans, 404, "no such resource");
	return SC_E_NOTFOUND;
}

/* ---------------------------------------------------------------------
 * POST /seeds
 */

void control_seeds_free(struct control_seeds *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->url[i]);
		free(s->found[i]);
	}
	for (size_t i = 0; i < s->n_rejected_listed; i++)
		free(s->rejected[i].text);
	free(s->category);
	free(s->url);
	free(s->found);
	free(s->u);
	free(s->found_u);
	free(s->added);
	free(s->rejected);
	free(s);
}

/* Room for n URLs (n <= CONTROL_SEEDS_MAX, known before parsing). */
static int seeds_alloc(struct control_seeds *s, size_t n)
{
	size_t k = n ? n : 1;
	s->url = calloc(k, sizeof(*s->url));
	s->found = calloc(k, sizeof(*s->found));
	s->u = calloc(k, sizeof(*s->u));
	s->found_u = calloc(k, sizeof(*s->found_u));
	s->added = calloc(k, sizeof(*s->added));
	size_t r = n < CONTROL_REJECTED_LIST_MAX ? k
						 : CONTROL_REJECTED_LIST_MAX;
	s->rejected = calloc(r, sizeof(*s->rejected));
	return s->url && s->found && s->u && s->found_u && s->added &&
			       s->rejected
		       ? 0
		       : SC_E_NOMEM;
}

/* The line as shown in an answer: at most REJECTED_TEXT_MAX bytes, bytes
 * outside printable ASCII as '?', so that the JSON is always valid. */
static char *printable(const char *p, size_t len)
{
	if (len > REJECTED_TEXT_MAX)
		len = REJECTED_TEXT_MAX;
	char *t = malloc(len + 1);
	if (!t)
		return NULL;
	for (size_t i = 0; i < len; i++)
		t[i] = p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?';
	t[len] = '\0';
	return t;
}

static int reject(struct control_seeds *s, unsigned line, const char *p,
		  size_t len, const char *reason)
{
	s->n_rejected++;
	if (s->n_rejected_listed == CONTROL_REJECTED_LIST_MAX)
		return 0;
	char *t = printable(p, len);
	if (!t)
		return SC_E_NOMEM;
	s->rejected[s->n_rejected_listed++] = (struct control_rejected){
		line, t, reason
	};
	return 0;
}

/* One submitted URL: taken as a seed file's line is (crawl_seed_url()),
 * or rejected with the reason. */
static int add_url(struct control_seeds *s, const struct norm_opts *norm,
		   unsigned line, const char *p, size_t len)
{
	char out[NORM_URL_MAX + 1], found[NORM_URL_MAX + 1];
	struct norm_url u, fu;
	int r = crawl_seed_url(norm, p, len, out, &u, found, &fu);
	if (r == SC_E_NOMEM)
		return r;
	if (r == SC_E_LIMIT)
		return reject(s, line, p, len, "line too long");
	if (r == SC_E_INVAL)
		return reject(s, line, p, len, "contains a NUL byte");
	if (r)
		return reject(s, line, p, len, sc_strerror(r));
	size_t i = s->n;
	if (!(s->url[i] = strndup(out, u.len)) ||
	    !(s->found[i] = strndup(found, fu.len))) {
		free(s->url[i]);
		s->url[i] = NULL;
		return SC_E_NOMEM;
	}
	s->u[i] = u;
	s->found_u[i] = fu;
	s->n++;
	return 0;
}

static bool blank(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
			return false;
	return true;
}

static int parse_text(struct control_seeds *s, const char *body, size_t len,
		      const struct norm_opts *norm, struct control_answer *ans)
{
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += body[i] == '\n';
	lines += len && body[len - 1] != '\n';
	if (lines > CONTROL_SEEDS_MAX) {
		control_error(ans, 413, "too many lines (at most 10000)");
		return SC_E_LIMIT;
	}
	if (seeds_alloc(s, lines))
		return SC_E_NOMEM;
	unsigned line = 0;
	for (size_t i = 0; i < len;) {
		const char *eol = memchr(body + i, '\n', len - i);
		size_t end = eol ? (size_t)(eol - body) : len;
		const char *p = body + i;
		size_t n = end - i;
		line++;
		i = end + 1;
		while (n && (*p == ' ' || *p == '\t')) {
			p++;
			n--;
		}
		if (blank(p, n) || *p == '#')
			continue;
		int rc = add_url(s, norm, line, p, n);
		if (rc)
			return rc;
	}
	return 0;
}

static int parse_json(struct control_seeds *s, const char *body, size_t len,
		      const struct norm_opts *norm, struct control_answer *ans)
{
	json_error_t err;
	json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &err);
	json_t *cat, *urls;
	if (!root) {
		char msg[256];
		snprintf(msg, sizeof(msg), "bad JSON: line %d: %s", err.line,
			 err.text);
		control_error(ans, 400, msg);
		return SC_E_INVAL;
	}
	int rc = SC_E_INVAL;
	if (!json_is_object(root) || !(urls = json_object_get(root, "urls")) ||
	    !json_is_array(urls)) {
		control_error(ans, 400,
			      "expected {\"category\": NAME, "
			      "\"urls\": [URL, ...]}");
		goto out;
	}
	if ((cat = json_object_get(root, "category"))) {
		if (!json_is_string(cat)) {
			control_error(ans, 400, "category: not a string");
			goto out;
		}
		free(s->category);
		if (!(s->category = strdup(json_string_value(cat)))) {
			rc = SC_E_NOMEM;
			goto out;
		}
	}
	size_t n = json_array_size(urls);
	if (n > CONTROL_SEEDS_MAX) {
		control_error(ans, 413, "too many URLs (at most 10000)");
		rc = SC_E_LIMIT;
		goto out;
	}
	if ((rc = seeds_alloc(s, n)))
		goto out;
	for (size_t i = 0; i < n && !rc; i++) {
		json_t *v = json_array_get(urls, i);
		if (!json_is_string(v))
			rc = reject(s, (unsigned)i + 1, "", 0, "not a string");
		else
			rc = add_url(s, norm, (unsigned)i + 1,
				     json_string_value(v),
				     json_string_length(v));
	}
out:
	json_decref(root);
	return rc;
}

/* The category of ?category=NAME, percent-decoded by libevent. */
static int query_category(struct control_seeds *s, const char *query,
			  struct control_answer *ans)
{
	if (!query || !*query)
		return 0;
	struct evkeyvalq q;
	TAILQ_INIT(&q);
	if (evhttp_parse_query_str(query, &q) != 0) {
		evhttp_clear_headers(&q);
		control_error(ans, 400, "bad query string");
		return SC_E_INVAL;
	}
	const char *v = evhttp_find_header(&q, "category");
	int rc = 0;
	if (v && !(s->category = strdup(v)))
		rc = SC_E_NOMEM;
	evhttp_clear_headers(&q);
	return rc;
}

int control_parse_seeds(const char *content_type, const char *query,
			const char *body, size_t len,
			const struct norm_opts *norm,
			struct control_seeds **ret, struct control_answer *ans)
{
	if (len > CONTROL_BODY_MAX) {
		control_error(ans, 413, "request body too large");
		return SC_E_LIMIT;
	}
	bool json = false;
	if (content_type) {
		size_t n = strcspn(content_type, "; \t");
		if (n == 16 &&
		    strncasecmp(content_type, "application/json", 16) == 0)
			json = true;
		else if (!(n == 10 &&
			   strncasecmp(content_type, "text/plain", 10) == 0) &&
			 !(n == 33 &&
			   strncasecmp(content_type,
				       "application/x-www-form-urlencoded",
				       33) == 0)) {
			control_error(ans, 415,
				      "send application/json or text/plain");
			return SC_E_INVAL;
		}
	}
	struct control_seeds *s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	int rc = query_category(s, query, ans);
	if (!rc)
		rc = json ? parse_json(s, body, len, norm, ans)
			  : parse_text(s, body, len, norm, ans);
	if (!rc && (!s->category || !s->category[0])) {
		control_error(ans, 400,
			      "no category: use ?category=NAME or "
			      "the \"category\" member");
		rc = SC_E_INVAL;
	}
	if (!rc && !conf_category_name_ok(s->category, strlen(s->category))) {
		control_error(
			ans, 400,
			"bad category name: up to 40 of A-Z a-z 0-9 . _ -");
		rc = SC_E_INVAL;
	}
	if (rc == SC_E_NOMEM)
		goto nomem;
	if (rc) {
		control_seeds_free(s);
		return rc;
	}
	*ret = s;
	return 0;
nomem:
	control_seeds_free(s);
	control_error(ans, 500, "out of memory");
	return SC_E_NOMEM;
}

void control_seeds_answer(const struct control_seeds *s,
			  struct control_answer *ans)
{
	size_t accepted = 0;
	for (size_t i = 0; i < s->n; i++)
		accepted += s->added[i] == 1;
	json_t *list = json_array();
	for (size_t i = 0; list && i < s->n_rejected_listed; i++) {
		const struct control_rejected *r = &s->rejected[i];
		json_array_append_new(list,
				      json_pack("{s:I,s:s,s:s}", "line",
						(json_int_t)r->line, "url",
						r->text, "reason", r->reason));
	}
	json_t *o = json_pack(
		"{s:s,s:I,s:I,s:I,s:o*}", "category", s->category, "accepted",
		(json_int_t)accepted, "known", (json_int_t)(s->n - accepted),
		"rejected", (json_int_t)s->n_rejected, "rejected_lines", list);
	*ans = (struct control_answer){
		.status = o ? 200 : 500,
		.content_type = JSON_TYPE,
		.body = o ? json_dumps(o, JSON_FLAGS) : NULL,
	};
	json_decref(o);
}

/* ---------------------------------------------------------------------
 * GET /status and GET /metrics
 */

/* A fixed-size string of a crawl_host as JSON: up to its NUL or its
 * size, bytes outside printable ASCII as '?' (host names are ASCII
 * already; curl's messages need not be). */
static json_t *host_string(const char *p, size_t cap)
{
	char t[CRAWL_HOST_NAME_MAX + 1];
	size_t n = 0;
	while (n < cap && n < sizeof(t) - 1 && p[n]) {
		t[n] = p[n] >= 0x20 && p[n] < 0x7f ? p[n] : '?';
		n++;
	}
	return json_stringn(t, n);
}

/* v (>= 0) to the nearest multiple of 1/scale, for figures that mean
 * nothing past a decimal or three; jansson then prints it short
 * (JSON_FLAGS).  Done without libm, and 0 for anything not a number. */
static double rounded(double v, double scale)
{
	if (!(v > 0))
		return 0;
	if (v > 1e12)
		return 1e12;
	return (double)(uint64_t)(v * scale + 0.5) / scale;
}

/* obj with key set to v (taken), or NULL when either is missing or the
 * member cannot be set (out of memory); obj is dropped then. */
static json_t *with(json_t *obj, const char *key, json_t *v)
{
	if (obj && (!v || json_object_set_new(obj, key, v))) {
		json_decref(obj);
		return NULL;
	}
	if (!obj)
		json_decref(v);
	return obj;
}

/* The hosts held because they could not be reached (crawl.h). */
static json_t *held_hosts(const struct crawl_status *st)
{
	json_t *a = json_array();
	size_t n = st->n_held_listed < CRAWL_HOSTS_LISTED ? st->n_held_listed
							  : CRAWL_HOSTS_LISTED;
	for (size_t i = 0; a && i < n; i++) {
		const struct crawl_host *h = &st->held[i];
		const char *why = store_error_name((enum store_error)h->reason);
		double in = h->retry_in_s >= 0 && h->retry_in_s < 1e9
				    ? rounded(h->retry_in_s, 10)
				    : 0;
		json_t *o = json_pack("{s:o?,s:s,s:o?,s:I,s:f}", "host",
				      host_string(h->name, sizeof(h->name)),
				      "reason", why ? why : "other", "detail",
				      host_string(h->detail, sizeof(h->detail)),
				      "tries", (json_int_t)h->tries,
				      "retry_in_s", in);
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* The hosts held back on purpose (crawl.h, struct crawl_waiting). */
static json_t *waiting_hosts(const struct crawl_status *st)
{
	json_t *a = json_array();
	size_t n = st->n_waiting_listed < CRAWL_HOSTS_LISTED
			   ? st->n_waiting_listed
			   : CRAWL_HOSTS_LISTED;
	for (size_t i = 0; a && i < n; i++) {
		const struct crawl_waiting *w = &st->waiting[i];
		bool robots = w->reason == CRAWL_WAIT_ROBOTS;
		char detail[128];
		if (robots)
			snprintf(detail, sizeof(detail),
				 "%u URLs wait for its robots.txt", w->count);
		else
			snprintf(detail, sizeof(detail),
				 "answered 429 or 503 with Retry-After, %u "
				 "times in a row; held %u s more",
				 w->count, w->seconds_left);
		json_t *o = json_pack(
			"{s:o?,s:s,s:s,s:I}", "host",
			host_string(w->name, sizeof(w->name)), "reason",
			robots ? "robots_txt" : "retry_after", "detail", detail,
			"count", (json_int_t)w->count);
		if (o && !robots &&
		    json_object_set_new(o, "seconds_left",
					json_integer(w->seconds_left))) {
			json_decref(o);
			o = NULL;
		}
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* The categories' figures (crawl.h, struct crawl_category_status). */
static json_t *categories(const struct crawl_status *st)
{
	json_t *a = json_array();
	size_t n = st->n_cats_listed < CRAWL_CATEGORIES_LISTED
			   ? st->n_cats_listed
			   : CRAWL_CATEGORIES_LISTED;
	for (size_t i = 0; a && i < n; i++) {
		const struct crawl_category_status *c = &st->cats[i];
		json_t *o = json_pack(
			"{s:o?,s:I,s:I,s:I,s:I,s:I}", "name",
			host_string(c->name, sizeof(c->name)), "keywords",
			(json_int_t)c->keywords, "pruned_scope",
			(json_int_t)c->pruned_scope, "pruned_relevance",
			(json_int_t)c->pruned_relevance, "pruned_predicted",
			(json_int_t)c->pruned_predicted, "also",
			(json_int_t)c->also);
		/* Since the start; harvest is null without keywords or a
		 * scored page. */
		o = with(o, "pages", json_integer((json_int_t)c->pages));
		o = with(o, "on_topic", json_integer((json_int_t)c->on_topic));
		o = with(o, "harvest",
			 c->keywords && c->scored
				 ? json_real(rounded((double)c->on_topic /
							     (double)c->scored,
						     1000))
				 : json_null());
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

void control_status_answer(const struct crawl_status *st, double rate,
			   struct control_answer *ans)
{
	const struct crawl_summary *s = &st->sum;
	json_t *o = json_pack(
		"{s:s,s:I,s:I,s:I,s:I,s:I,s:i,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:f,"
		"s:I,s:I,s:o?}",
		"state", control_state_name(st->state), "pages",
		(json_int_t)s->pages, "bytes", (json_int_t)s->bytes, "queue",
		(json_int_t)st->queued, "seen", (json_int_t)st->seen, "hosts",
		(json_int_t)st->hosts, "in_flight", (int)st->in_flight,
		"duplicates", (json_int_t)(s->dup_exact + s->dup_near),
		"duplicates_exact", (json_int_t)s->dup_exact, "duplicates_near",
		(json_int_t)s->dup_near, "errors", (json_int_t)s->errors,
		"robots_disallowed", (json_int_t)s->robots_disallowed,
		"queued_new", (json_int_t)s->queued, "rate", rounded(rate, 10),
		"uptime", rounded(s->seconds, 1000), "host_budget",
		(json_int_t)s->by_error[STORE_ERROR_HOST_BUDGET], "hosts_held",
		(json_int_t)s->hosts_held, "held", held_hosts(st));
	/* Adaptive normalization: the learned rules (learn/learn.h). */
	json_t *rules =
		st->adaptive
			? json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "active",
				    (json_int_t)st->rules.active, "candidates",
				    (json_int_t)st->rules.candidates, "retired",
				    (json_int_t)st->rules.retired, "refuted",
				    (json_int_t)st->rules.refuted,
				    "fetches_saved",
				    (json_int_t)st->rules.saved, "audits",
				    (json_int_t)st->rules.audits, "requeued",
				    (json_int_t)st->rules.requeued)
			: json_null();
	o = with(o, "rules", rules);
	/* Re-crawls (docs/recrawl.md): null unless this daemon revisits. */
	const struct crawl_recrawl_stats *re = &s->re;
	json_t *rec =
		st->recrawl
			? json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,"
				    "s:I,s:I}",
				    "scheduled", (json_int_t)st->scheduled,
				    "due", (json_int_t)st->due, "queued",
				    (json_int_t)st->revisits_queued,
				    "revisited", (json_int_t)re->revisited,
				    "unchanged", (json_int_t)re->unchanged,
				    "not_modified",
				    (json_int_t)re->not_modified, "changed",
				    (json_int_t)re->changed, "gone",
				    (json_int_t)re->gone, "failed",
				    (json_int_t)re->failed, "saved",
				    (json_int_t)re->saved, "audited",
				    (json_int_t)re->audited, "diverged",
				    (json_int_t)re->diverged)
			: json_null();
	o = with(o, "recrawl", rec);
	if (st->detail) {
		/* Every run of the store counted, where the counters above
		 * count since the start (docs/daemon.md). */
		o = with(o, "store",
			 json_pack("{s:I,s:I}", "records",
				   (json_int_t)st->store_records, "fetches",
				   (json_int_t)st->store_fetches));
		o = with(o, "hosts_waiting",
			 json_integer((json_int_t)st->hosts_retry_after +
				      (json_int_t)st->hosts_robots));
		o = with(o, "waiting", waiting_hosts(st));
		o = with(o, "categories", categories(st));
	}
	*ans = (struct control_answer){
		.status = o ? 200 : 500,
		.content_type = JSON_TYPE,
		.body = o ? json_dumps(o, JSON_FLAGS) : NULL,
	};
	json_decref(o);
}

static void metric_head(FILE *f, const char *name, const char *type,
			const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void control_metrics_answer(const struct crawl_status *st,
			    struct control_answer *ans)
{
	const struct crawl_summary *s = &st->sum;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	*ans = (struct control_answer){ .status = 500,
					.content_type = METRICS_TYPE };
	if (!f)
		return;
	static const char *const classes[6] = { "none", "1xx", "2xx",
						"3xx",  "4xx", "5xx" };
	metric_head(f, "sigcrawl_pages_fetched_total", "counter",
		    "Pages fetched and committed, by HTTP status class.");
	for (int i = 1; i <= 6; i++)
		fprintf(f, "sigcrawl_pages_fetched_total{class=\"%s\"} %llu\n",
			classes[i % 6], (unsigned long long)s->by_class[i % 6]);
	if (st->shards) {
		metric_head(f, "sigcrawl_shard_info", "gauge",
			    "This daemon's shard of the cluster (1).");
		fprintf(f,
			"sigcrawl_shard_info{shard=\"%u\",shards=\"%u\"} 1\n",
			st->shard, st->shards);
		metric_head(f, "sigcrawl_cluster_links_total", "counter",
			    "URLs sent to other shards, received from them and "
			    "queued, and received for another shard.");
		fprintf(f,
			"sigcrawl_cluster_links_total{shard=\"%u\","
			"direction=\"sent\"} %llu\n"
			"sigcrawl_cluster_links_total{shard=\"%u\","
			"direction=\"received\"} %llu\n"
			"sigcrawl_cluster_links_total{shard=\"%u\","
			"direction=\"misrouted\"} %llu\n",
			st->shard, (unsigned long long)s->cluster_sent,
			st->shard, (unsigned long long)s->cluster_received,
			st->shard, (unsigned long long)s->cluster_misrouted);
	}
	metric_head(f, "sigcrawl_bytes_total", "counter",
		    "Body bytes received (decoded).");
	fprintf(f, "sigcrawl_bytes_total %llu\n", (unsigned long long)s->bytes);
	metric_head(f, "sigcrawl_queue_depth", "gauge",
		    "URLs in the frontier's queue.");
	fprintf(f, "sigcrawl_queue_depth %llu\n",
		(unsigned long long)st->queued);
	metric_head(f, "sigcrawl_urls_seen", "gauge", "URLs ever queued.");
	fprintf(f, "sigcrawl_urls_seen %llu\n", (unsigned long long)st->seen);
	metric_head(f, "sigcrawl_hosts", "gauge", "Hosts known.");
	fprintf(f, "sigcrawl_hosts %u\n", st->hosts);
	metric_head(f, "sigcrawl_transfers_in_flight", "gauge",
		    "Transfers in flight, robots.txt included.");
	fprintf(f, "sigcrawl_transfers_in_flight %u\n", st->in_flight);
	metric_head(f, "sigcrawl_hosts_held", "gauge",
		    "Hosts held because they could not be reached.");
	fprintf(f, "sigcrawl_hosts_held %u\n", s->hosts_held);
	if (st->detail) {
		metric_head(f, "sigcrawl_hosts_waiting", "gauge",
			    "Hosts held back on purpose, by reason.");
		fprintf(f,
			"sigcrawl_hosts_waiting{reason=\"retry_after\"} %u\n"
			"sigcrawl_hosts_waiting{reason=\"robots_txt\"} %u\n",
			st->hosts_retry_after, st->hosts_robots);
		metric_head(f, "sigcrawl_store_records", "gauge",
			    "URL records in the store, every run counted.");
		fprintf(f, "sigcrawl_store_records %llu\n",
			(unsigned long long)st->store_records);
		metric_head(f, "sigcrawl_store_fetches", "gauge",
			    "Fetches committed to the store, every run "
			    "counted.");
		fprintf(f, "sigcrawl_store_fetches %llu\n",
			(unsigned long long)st->store_fetches);
	}
	metric_head(f, "sigcrawl_paused", "gauge",
		    "1 while paused by POST /pause.");
	fprintf(f, "sigcrawl_paused %d\n", st->state == CRAWL_PAUSED);
	metric_head(f, "sigcrawl_duplicates_total", "counter",
		    "Pages collapsed into a representative, by kind.");
	fprintf(f, "sigcrawl_duplicates_total{kind=\"signature\"} %llu\n",
		(unsigned long long)s->dup_exact);
	fprintf(f, "sigcrawl_duplicates_total{kind=\"near\"} %llu\n",
		(unsigned long long)s->dup_near);
	metric_head(f, "sigcrawl_errors_total", "counter",
		    "Records by error kind (robots_disallowed and "
		    "host_budget included).");
	for (int e = 1; e < STORE_ERROR_COUNT; e++)
		fprintf(f, "sigcrawl_errors_total{kind=\"%s\"} %llu\n",
			store_error_name((enum store_error)e),
			(unsigned long long)s->by_error[e]);
	metric_head(f, "sigcrawl_links_bad_total", "counter",
		    "Links that failed to normalize.");
	fprintf(f, "sigcrawl_links_bad_total %llu\n",
		(unsigned long long)s->links_bad);
	metric_head(f, "sigcrawl_fetch_duration_seconds", "histogram",
		    "Page transfer durations.");
	uint64_t cum = 0;
	for (int i = 0; i < CRAWL_LATENCY_BUCKETS; i++) {
		cum += st->latency_count[i];
		fprintf(f,
			"sigcrawl_fetch_duration_seconds_bucket{le=\"%g\"} "
			"%llu\n",
			crawl_latency_le[i], (unsigned long long)cum);
	}
	cum += st->latency_count[CRAWL_LATENCY_BUCKETS];
	fprintf(f, "sigcrawl_fetch_duration_seconds_bucket{le=\"+Inf\"} %llu\n",
		(unsigned long long)cum);
	fprintf(f, "sigcrawl_fetch_duration_seconds_sum %.6f\n",
		st->latency_sum);
	fprintf(f, "sigcrawl_fetch_duration_seconds_count %llu\n",
		(unsigned long long)cum);
	metric_head(f, "sigcrawl_rules", "gauge",
		    "Learned rewrite rules (profile adaptive), by state.");
	const uint64_t by_state[4] = { st->rules.candidates, st->rules.active,
				       st->rules.retired, st->rules.refuted };
	static const char *const states[4] = { "candidate", "active", "retired",
					       "refuted" };
	for (int i = 0; i < 4; i++)
		fprintf(f, "sigcrawl_rules{state=\"%s\"} %llu\n", states[i],
			(unsigned long long)by_state[i]);
	metric_head(f, "sigcrawl_rules_fetches_saved", "gauge",
		    "URLs held back by the active learned rules instead of "
		    "fetched (every run of the store).");
	fprintf(f, "sigcrawl_rules_fetches_saved %llu\n",
		(unsigned long long)st->rules.saved);
	metric_head(f, "sigcrawl_rules_audits", "gauge",
		    "Held-back URLs fetched all the same to test their rule.");
	fprintf(f, "sigcrawl_rules_audits %llu\n",
		(unsigned long long)st->rules.audits);
	metric_head(f, "sigcrawl_recrawl_scheduled", "gauge",
		    "Fetched pages with a next visit scheduled.");
	fprintf(f, "sigcrawl_recrawl_scheduled %llu\n",
		(unsigned long long)st->scheduled);
	metric_head(f, "sigcrawl_recrawl_due", "gauge",
		    "Pages due for a visit now, queued or not (counted up to "
		    "100000).");
	fprintf(f, "sigcrawl_recrawl_due %llu\n", (unsigned long long)st->due);
	metric_head(f, "sigcrawl_revisits_total", "counter",
		    "Revisits committed since the start, by outcome.");
	const struct crawl_recrawl_stats *re = &s->re;
	const uint64_t by_outcome[5] = { re->unchanged - re->not_modified,
					 re->not_modified, re->changed,
					 re->gone, re->failed };
	static const char *const outcomes[5] = { "unchanged", "not_modified",
						 "changed", "gone", "failed" };
	for (int i = 0; i < 5; i++)
		fprintf(f, "sigcrawl_revisits_total{outcome=\"%s\"} %llu\n",
			outcomes[i], (unsigned long long)by_outcome[i]);
	metric_head(f, "sigcrawl_recrawl_saved_total", "counter",
		    "Duplicates that came due and were not fetched.");
	fprintf(f, "sigcrawl_recrawl_saved_total %llu\n",
		(unsigned long long)re->saved);
	metric_head(f, "sigcrawl_recrawl_audits_total", "counter",
		    "Duplicates fetched all the same to audit them, and those "
		    "found diverged.");
	fprintf(f, "sigcrawl_recrawl_audits_total{result=\"fetched\"} %llu\n",
		(unsigned long long)re->audited);
	fprintf(f, "sigcrawl_recrawl_audits_total{result=\"diverged\"} %llu\n",
		(unsigned long long)re->diverged);
	metric_head(f, "sigcrawl_uptime_seconds", "gauge",
		    "Seconds since the daemon started.");
	fprintf(f, "sigcrawl_uptime_seconds %.3f\n", s->seconds);
	if (fclose(f) != 0) {
		free(buf);
		return;
	}
	ans->status = 200;
	ans->body = buf;
}
