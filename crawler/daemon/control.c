/* control.c — the control API's requests without sockets (daemon.h):
 * the HTTP/1.1 framing of a request (its head, a chunked body), the
 * routing, and POST /seeds (its JSON or text body parsed, each URL
 * normalized with the crawl's steps, the rejected lines kept for the
 * answer, and the answer once committed).  The error answers are here
 * too; the answers to GET /status and GET /metrics are control-answer.c's. */
#include "daemon.h"

#include <arpa/inet.h>
#include <event2/http.h>
#include <netinet/in.h>
#include <sys/queue.h>
#include <event2/keyvalq_struct.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "control-int.h"

/* A rejected line is shown with at most this many bytes. */
#define REJECTED_TEXT_MAX 200

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
	} else if (strcasecmp(line, "Host") == 0) {
		if (h->host)
			return head_error(ans, 400, "two Host fields");
		h->host = v;
	} else if (strcasecmp(line, "Origin") == 0) {
		if (!h->origin)
			h->origin = v;
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
		{ "/", CONTROL_DASHBOARD, false },
		{ "/history", CONTROL_HISTORY, false },
		{ "/rules", CONTROL_RULES, false },
		{ "/shards", CONTROL_SHARDS, false },
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

/* Is the authority a (hostname, or [IPv6], with an optional :port) of
 * n bytes a loopback one: localhost, 127.0.0.0/8 or [::1]? */
static bool loopback_authority(const char *a, size_t n)
{
	char host[64];
	const char *h = a, *end; /* the host: h up to end */
	if (n && a[0] == '[') {
		const char *close = memchr(a, ']', n);
		if (!close)
			return false;
		h = a + 1;
		end = close;
		close++; /* the port, if any, after it */
		n -= (size_t)(close - a);
		a = close;
	} else {
		const char *colon = memchr(a, ':', n);
		end = colon ? colon : a + n;
		n -= (size_t)(end - a);
		a = end;
	}
	/* After the host: nothing, or ':' and up to 5 digits. */
	if (n && (a[0] != ':' || n > 6 || strspn(a + 1, "0123456789") < n - 1))
		return false;
	size_t hl = (size_t)(end - h);
	if (!hl || hl >= sizeof(host))
		return false;
	memcpy(host, h, hl);
	host[hl] = '\0';
	unsigned char b[16];
	if (strcasecmp(host, "localhost") == 0)
		return true;
	if (inet_pton(AF_INET, host, b) == 1)
		return b[0] == 127;
	if (inet_pton(AF_INET6, host, b) == 1)
		return IN6_IS_ADDR_LOOPBACK((struct in6_addr *)b);
	return false;
}

const char *control_refuse_web(const char *host, const char *origin)
{
	if (host && !loopback_authority(host, strlen(host)))
		return "Host is not a loopback address (the control API "
		       "answers 127.0.0.1, [::1] and localhost only)";
	if (origin && (strncasecmp(origin, "http://", 7) != 0 ||
		       !loopback_authority(origin + 7, strlen(origin + 7))))
		return "a request from another site's page (Origin is not "
		       "a loopback http:// origin)";
	return NULL;
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
