/* conf.c — reading and checking the config file (SPEC §3).
 *
 * inih does the INI syntax; everything else is here.  We feed inih through
 * our own line reader (ini_parse_stream) rather than letting it read the
 * file, because that reader is the only place that sees whole lines:
 *
 *  - it counts lines, since Debian's inih is built without line numbers in
 *    the handler;
 *  - it rejects a line longer than inih's buffer, which inih would cut and
 *    parse the rest of as a new line;
 *  - it drops leading white space, so that inih never treats an indented
 *    line as the continuation of the previous value;
 *  - it parses the section headers itself, because inih calls the handler
 *    only for key = value lines: an empty or repeated section would go
 *    unnoticed otherwise, and inih cuts section names at 49 bytes.
 *
 * Each key has one setter that checks a value and stores it.  The file and
 * conf_override() share the setters, so a value is accepted or rejected
 * with the same words wherever it comes from.  A setter leaves the conf
 * unchanged when it fails. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"

/* Longest path we store; the kernel's PATH_MAX includes the NUL. */
#define PATH_BYTES_MAX (PATH_MAX - 1)
/* sizeof(struct sockaddr_un.sun_path) on Linux, less the NUL. */
#define UNIX_PATH_BYTES_MAX 107
/* Bound for a user agent given on the command line (the file's lines are
 * shorter anyway). */
#define USER_AGENT_MAX 512

enum section {
	SECT_NONE,
	SECT_CRAWL,
	SECT_NORMALIZE,
	SECT_DEDUP,
	SECT_STORE,
	SECT_CONTROL,
	SECT_ADAPTIVE,
	SECT_RECRAWL,
	SECT_CLUSTER,
	SECT_CATEGORY,
	SECT_COUNT,
};

/* What a setter works on.  base is the directory relative paths resolve
 * against; cat the category of a [category] key. */
struct setctx {
	struct conf *c;
	struct conf_category *cat;
	const char *base;
	char *msg;
	size_t msglen;
};

typedef int (*setter_fn)(struct setctx *x, const char *value);

struct key {
	const char *name;
	setter_fn set;
	bool repeatable;
};

/* ---- small helpers ---------------------------------------------------- */

static SC_PRINTF(2, 3) int fail(struct setctx *x, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (x->msglen)
		vsnprintf(x->msg, x->msglen, fmt, ap);
	va_end(ap);
	return SC_E_INVAL;
}

/* A value as it may appear in a message: at most 48 bytes, control and
 * non-ASCII bytes shown as '?', so that a message stays one clean line. */
struct shown {
	char s[64];
};

static struct shown show(const char *v)
{
	struct shown r;
	size_t i, n = 0;
	for (i = 0; v[i] && n < 48; i++) {
		unsigned char ch = (unsigned char)v[i];
		r.s[n++] = (ch < 0x20 || ch >= 0x7f) ? '?' : (char)ch;
	}
	if (v[i])
		n += (size_t)snprintf(r.s + n, sizeof(r.s) - n, "...");
	r.s[n] = '\0';
	return r;
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' ||
	       ch == '\f';
}

static char ascii_lower(char ch)
{
	return (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* Parse a decimal whole number in min..max.  Digits only: no sign, no
 * white space (inih trimmed the ends already), any number of leading
 * zeros.  Overflow counts as out of range. */
static bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (v < min || v > max)
		return false;
	*out = v;
	return true;
}

static int set_uint(struct setctx *x, const char *v, uint64_t min, uint64_t max,
		    uint64_t *out)
{
	if (!parse_u64(v, min, max, out))
		return fail(x,
			    "expected a whole number from %llu to %llu, got "
			    "\"%s\"",
			    (unsigned long long)min, (unsigned long long)max,
			    show(v).s);
	return 0;
}

static int parse_bool(struct setctx *x, const char *v, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return fail(x,
		    "expected yes or no (true/false, on/off, 1/0), got "
		    "\"%s\"",
		    show(v).s);
}

/* A fraction like "0", "1", "0.25", ".5", "1.0".  Not strtod(): that
 * follows the locale's decimal point and accepts hex, inf and nan. */
static bool parse_fraction(const char *s, double *out)
{
	uint64_t mantissa = 0;
	double scale = 1;
	size_t digits = 0;
	bool point = false;
	for (;; s++) {
		if (*s == '.' && !point) {
			point = true;
			continue;
		}
		if (*s < '0' || *s > '9')
			break;
		if (++digits > 18)
			return false;
		mantissa = mantissa * 10 + (uint64_t)(*s - '0');
		if (point)
			scale *= 10;
	}
	if (*s || digits == 0)
		return false;
	/* One division of two exact numbers: "0.1" is the double nearest
	 * to 0.1, as a reader of the file would expect. */
	*out = (double)mantissa / scale;
	return true;
}

/* path resolved against base (an absolute directory), newly allocated.
 * The path is not made canonical and need not exist yet. */
static int resolve_path(struct setctx *x, const char *path, size_t maxlen,
			char **out)
{
	if (!*path)
		return fail(x, "empty path");
	if (has_control(path))
		return fail(x, "control character in path");
	char *r;
	if (path[0] == '/') {
		r = strdup(path);
	} else {
		while (path[0] == '.' && path[1] == '/')
			path += 2;
		size_t bl = strlen(x->base);
		bool slash = bl > 0 && x->base[bl - 1] == '/';
		r = malloc(bl + 1 + strlen(path) + 1);
		if (r)
			sprintf(r, "%s%s%s", x->base, slash ? "" : "/", path);
	}
	if (!r)
		return SC_E_NOMEM;
	if (strlen(r) > maxlen) {
		free(r);
		return fail(x, "path longer than %zu bytes once made absolute",
			    maxlen);
	}
	*out = r;
	return 0;
}

static int set_string(char **field, const char *v)
{
	char *s = strdup(v);
	if (!s)
		return SC_E_NOMEM;
	free(*field);
	*field = s;
	return 0;
}

/* ---- [crawl] ------------------------------------------------------------ */

static int set_store(struct setctx *x, const char *v)
{
	char *p;
	int rc = resolve_path(x, v, PATH_BYTES_MAX, &p);
	if (rc)
		return rc;
	free(x->c->crawl.store);
	x->c->crawl.store = p;
	return 0;
}

static int set_cookie_jar(struct setctx *x, const char *v)
{
	char *p;
	int rc = resolve_path(x, v, PATH_BYTES_MAX, &p);
	if (rc)
		return rc;
	free(x->c->crawl.cookie_jar);
	x->c->crawl.cookie_jar = p;
	return 0;
}

/* A path key of [crawl], made absolute. */
#define PATH_SETTER(fn, field)                                                 \
	static int fn(struct setctx *x, const char *v)                         \
	{                                                                      \
		char *p;                                                       \
		int rc = resolve_path(x, v, PATH_BYTES_MAX, &p);               \
		if (rc)                                                        \
			return rc;                                             \
		free(x->c->crawl.field);                                       \
		x->c->crawl.field = p;                                         \
		return 0;                                                      \
	}
PATH_SETTER(set_ca_file, ca_file)
PATH_SETTER(set_ca_path, ca_path)
PATH_SETTER(set_client_cert, client_cert)
PATH_SETTER(set_client_key, client_key)

#define UINT_SETTER(fn, field, type, min, max)                                 \
	static int fn(struct setctx *x, const char *v)                         \
	{                                                                      \
		uint64_t n = 0;                                                \
		int rc = set_uint(x, v, (min), (max), &n);                     \
		if (rc)                                                        \
			return rc;                                             \
		x->c->field = (type)n;                                         \
		return 0;                                                      \
	}

UINT_SETTER(set_max_depth, crawl.max_depth, unsigned, 0, 1000)
UINT_SETTER(set_max_pages, crawl.max_pages, uint64_t, 0,
	    UINT64_C(1000000000000))
/* concurrency = auto (0): transfers follow the hosts that are ready, within
 * the descriptor budget (crawler/engine/fdbudget.c); or a fixed number. */
static int set_concurrency(struct setctx *x, const char *v)
{
	if (strcasecmp(v, "auto") == 0) {
		x->c->crawl.concurrency = 0;
		return 0;
	}
	uint64_t n = 0;
	if (!parse_u64(v, 1, 65535, &n))
		return fail(x,
			    "expected auto or a whole number from 1 to 65535, "
			    "got \"%s\"",
			    show(v).s);
	x->c->crawl.concurrency = (unsigned)n;
	return 0;
}
UINT_SETTER(set_per_host_connections, crawl.per_host_connections, unsigned, 1,
	    1024)
UINT_SETTER(set_per_host_delay_ms, crawl.per_host_delay_ms, unsigned, 0,
	    3600000)
UINT_SETTER(set_timeout_s, crawl.timeout_s, unsigned, 1, 3600)
UINT_SETTER(set_max_body_bytes, crawl.max_body_bytes, uint64_t, 1,
	    UINT64_C(1073741824))
UINT_SETTER(set_max_pages_per_host, crawl.max_pages_per_host, uint64_t, 0,
	    UINT64_C(1000000000000))
UINT_SETTER(set_host_retries, crawl.host_retries, unsigned, 0, 100)
UINT_SETTER(set_host_backoff_ms, crawl.host_backoff_ms, unsigned, 100, 3600000)

static int set_user_agent(struct setctx *x, const char *v)
{
	if (!*v)
		return fail(x, "empty value");
	if (has_control(v))
		return fail(x, "control character in the user agent");
	if (strlen(v) > USER_AGENT_MAX)
		return fail(x, "longer than %d bytes", USER_AGENT_MAX);
	return set_string(&x->c->crawl.user_agent, v);
}

static int set_obey_robots(struct setctx *x, const char *v)
{
	return parse_bool(x, v, &x->c->crawl.obey_robots);
}

static int set_url_credentials(struct setctx *x, const char *v)
{
	if (strcmp(v, "mask") && strcmp(v, "use"))
		return fail(x, "expected mask or use, got \"%s\"", show(v).s);
	x->c->crawl.url_credentials_use = strcmp(v, "use") == 0;
	return 0;
}

/* One host field of a connect_to rule at *p: empty, a name or IPv4
 * address without ':', or an [IPv6] literal.  Advances *p past it. */
static bool connect_host(const char **p)
{
	const char *s = *p;
	if (*s == '[') {
		size_t n = strspn(s + 1, "0123456789abcdefABCDEF:.");
		if (n == 0 || s[1 + n] != ']')
			return false;
		*p = s + n + 2;
		return true;
	}
	for (; *s && *s != ':'; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch <= 0x20 || ch >= 0x7f || strchr("[]/@?#\\", ch))
			return false;
	}
	*p = s;
	return true;
}

/* One port field: empty, or 1..65535. */
static bool connect_port(const char **p)
{
	const char *s = *p;
	size_t n = strspn(s, "0123456789");
	if (n > 0) {
		char buf[8];
		uint64_t port;
		if (n >= sizeof(buf))
			return false;
		memcpy(buf, s, n);
		buf[n] = '\0';
		if (!parse_u64(buf, 1, 65535, &port))
			return false;
	}
	*p = s + n;
	return true;
}

static int set_proxy(struct setctx *x, const char *v)
{
	static const char *const schemes[] = { "http://",   "https://",
					       "socks4://", "socks4a://",
					       "socks5://", "socks5h://" };
	if (!*v)
		return fail(x, "empty value");
	if (has_control(v) || strchr(v, ' '))
		return fail(x, "a space or control character in \"%s\"",
			    show(v).s);
	if (strlen(v) > 1024)
		return fail(x, "longer than 1024 bytes");
	const char *sep = strstr(v, "://");
	bool ok = !sep;
	for (size_t i = 0; !ok && i < sizeof(schemes) / sizeof(*schemes); i++)
		ok = strncasecmp(v, schemes[i], strlen(schemes[i])) == 0;
	if (!ok || !v[sep ? (size_t)(sep - v) + 3 : 0])
		return fail(x,
			    "expected [SCHEME://]HOST[:PORT] with scheme http, "
			    "https, socks4, socks4a, socks5 or socks5h, got "
			    "\"%s\"",
			    show(v).s);
	return set_string(&x->c->crawl.proxy, v);
}

/* An extra request header: a token, ':', a value without control
 * characters. */
static int set_header(struct setctx *x, const char *v)
{
	struct conf *c = x->c;
	const char *colon = strchr(v, ':');
	bool ok = colon && colon > v;
	for (const char *p = v; ok && p < colon; p++)
		ok = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		     (*p >= '0' && *p <= '9') || strchr("!#$%&'*+-.^_`|~", *p);
	if (!ok || has_control(v))
		return fail(x,
			    "expected \"Name: value\" (a header name, a colon, "
			    "a value without control characters), got \"%s\"",
			    show(v).s);
	if (strlen(v) > 1024)
		return fail(x, "longer than 1024 bytes");
	if (c->crawl.n_headers >= 32)
		return fail(x, "more than 32 headers");
	char **a = realloc(c->crawl.headers,
			   (c->crawl.n_headers + 1) * sizeof(*a));
	if (!a)
		return SC_E_NOMEM;
	c->crawl.headers = a;
	if (!(a[c->crawl.n_headers] = strdup(v)))
		return SC_E_NOMEM;
	c->crawl.n_headers++;
	return 0;
}

static int set_connect_to(struct setctx *x, const char *v)
{
	struct conf *c = x->c;
	const char *p = v;
	bool ok = *v && connect_host(&p) && *p++ == ':' && connect_port(&p) &&
		  *p++ == ':' && connect_host(&p) && *p++ == ':' &&
		  connect_port(&p) && *p == '\0';
	if (!ok)
		return fail(
			x,
			"expected HOST1:PORT1:HOST2:PORT2 (any field may be "
			"empty, ports 1..65535, IPv6 in brackets), got "
			"\"%s\"",
			show(v).s);
	if (c->crawl.n_connect_to >= CONF_CONNECT_TO_MAX)
		return fail(x, "more than %d rules", CONF_CONNECT_TO_MAX);
	char **a = realloc(c->crawl.connect_to,
			   (c->crawl.n_connect_to + 1) * sizeof(*a));
	if (!a)
		return SC_E_NOMEM;
	c->crawl.connect_to = a;
	if (!(a[c->crawl.n_connect_to] = strdup(v)))
		return SC_E_NOMEM;
	c->crawl.n_connect_to++;
	return 0;
}

/* ---- [normalize] -------------------------------------------------------- */

static const char *const profile_names[] = {
	[NORM_PROFILE_STRICT] = "strict",
	[NORM_PROFILE_EXTENDED] = "extended",
	[NORM_PROFILE_AGGRESSIVE] = "aggressive",
	[NORM_PROFILE_ADAPTIVE] = "adaptive",
};

const char *conf_profile_name(enum norm_profile p)
{
	if ((size_t)p < sizeof(profile_names) / sizeof(profile_names[0]))
		return profile_names[p];
	return "?";
}

/* The steps mask follows from the profile and the steps list, whichever
 * came last; the list was checked when it was set. */
static void resolve_steps(struct conf *c)
{
	uint32_t steps = norm_profile_steps(c->normalize.profile);
	if (c->normalize.steps_list &&
	    norm_steps_parse(c->normalize.steps_list, &steps, NULL, NULL) != 0)
		steps = norm_profile_steps(c->normalize.profile);
	c->normalize.steps = steps;
}

static int set_profile(struct setctx *x, const char *v)
{
	enum norm_profile p;
	if (norm_profile_parse(v, &p) != 0)
		return fail(x,
			    "unknown profile \"%s\" (strict, extended, "
			    "aggressive or adaptive)",
			    show(v).s);
	x->c->normalize.profile = p;
	resolve_steps(x->c);
	return 0;
}

static int set_steps(struct setctx *x, const char *v)
{
	uint32_t scratch = 0;
	const char *bad = NULL;
	size_t bad_len = 0;
	if (norm_steps_parse(v, &scratch, &bad, &bad_len) != 0) {
		char name[64];
		size_t n = bad && bad_len < sizeof(name) ? bad_len : 0;
		if (n)
			memcpy(name, bad, n);
		name[n] = '\0';
		return fail(x, "unknown step \"%s\"", show(name).s);
	}
	int rc = set_string(&x->c->normalize.steps_list, v);
	if (rc)
		return rc;
	resolve_steps(x->c);
	return 0;
}

/* ---- [dedup], [store] --------------------------------------------------- */

const char *conf_signature_name(enum conf_signature s)
{
	switch (s) {
	case CONF_SIGNATURE_MD5_TEXT: return "md5_text";
	case CONF_SIGNATURE_MD5_TEXT_SIZE: return "md5_text_size";
	case CONF_SIGNATURE_OFF: return "off";
	}
	return "?";
}

static int set_signature(struct setctx *x, const char *v)
{
	for (int s = CONF_SIGNATURE_MD5_TEXT; s <= CONF_SIGNATURE_OFF; s++) {
		if (strcmp(v, conf_signature_name(s)) == 0) {
			x->c->dedup.signature = s;
			return 0;
		}
	}
	return fail(x, "expected md5_text, md5_text_size or off, got \"%s\"",
		    show(v).s);
}

static int set_near_duplicate(struct setctx *x, const char *v)
{
	uint64_t k;
	if (strcmp(v, "off") == 0) {
		x->c->dedup.near_duplicate = -1;
		return 0;
	}
	if (strncmp(v, "simhash:", 8) == 0 && parse_u64(v + 8, 0, 3, &k)) {
		x->c->dedup.near_duplicate = (int)k;
		return 0;
	}
	return fail(x,
		    "expected off or simhash:K with K from 0 to 3, got "
		    "\"%s\"",
		    show(v).s);
}

static int set_follow_duplicate_links(struct setctx *x, const char *v)
{
	return parse_bool(x, v, &x->c->dedup.follow_duplicate_links);
}

static int set_warc(struct setctx *x, const char *v)
{
	return parse_bool(x, v, &x->c->store.warc);
}

static int set_search_index(struct setctx *x, const char *v)
{
	return parse_bool(x, v, &x->c->store.search_index);
}

/* A size in bytes: digits and an optional K, M, G or T (powers of 1024). */
static int set_max_size(struct setctx *x, const char *v)
{
	char digits[32];
	size_t n = strlen(v);
	unsigned shift = 0;
	if (n && n < sizeof(digits)) {
		switch (v[n - 1]) {
		case 'K':
		case 'k': shift = 10; break;
		case 'M':
		case 'm': shift = 20; break;
		case 'G':
		case 'g': shift = 30; break;
		case 'T':
		case 't': shift = 40; break;
		default: break;
		}
	}
	uint64_t k;
	if (n && n < sizeof(digits)) {
		memcpy(digits, v, n - (shift ? 1 : 0));
		digits[n - (shift ? 1 : 0)] = '\0';
		if (parse_u64(digits, 0, UINT64_MAX >> shift, &k) &&
		    (k << shift) >= ((uint64_t)1 << 20) &&
		    (k << shift) <= ((uint64_t)1 << 50)) {
			x->c->store.max_size = k << shift;
			return 0;
		}
	}
	return fail(x,
		    "expected a size from 1M to 1024T (bytes, or a number "
		    "with K, M, G or T), got \"%s\"",
		    show(v).s);
}

/* ---- [control] ---------------------------------------------------------- */

static bool is_loopback(const char *host)
{
	unsigned char a[16];
	if (strcasecmp(host, "localhost") == 0)
		return true;
	if (inet_pton(AF_INET, host, a) == 1)
		return a[0] == 127;
	if (inet_pton(AF_INET6, host, a) == 1)
		return IN6_IS_ADDR_LOOPBACK((struct in6_addr *)a);
	return false;
}

/* v is tcp:HOST:PORT or tcp:[IPv6]:PORT with a loopback host: the host
 * (without brackets; 64 bytes) and the port.  Returns 0 or fail()'s. */
static int parse_tcp(struct setctx *x, const char *v, char *host,
		     uint64_t *port_ret)
{
	const char *h = v + 4, *colon;
	size_t hl;
	if (*h == '[') {
		const char *close = strchr(h, ']');
		if (!close || close[1] != ':')
			return fail(x, "expected tcp:[IPv6]:PORT, got \"%s\"",
				    show(v).s);
		h++;
		hl = (size_t)(close - h);
		colon = close + 1;
	} else {
		colon = strrchr(h, ':');
		if (!colon)
			return fail(x, "expected tcp:HOST:PORT, got \"%s\"",
				    show(v).s);
		hl = (size_t)(colon - h);
		if (memchr(h, ':', hl))
			return fail(x, "an IPv6 address needs brackets: "
				       "tcp:[::1]:PORT");
	}
	if (hl == 0 || hl >= 64)
		return fail(x, "expected tcp:HOST:PORT, got \"%s\"", show(v).s);
	memcpy(host, h, hl);
	host[hl] = '\0';
	uint64_t port;
	if (!parse_u64(colon + 1, 1, 65535, &port))
		return fail(x,
			    "port must be a number from 1 to 65535, got "
			    "\"%s\"",
			    show(colon + 1).s);
	if (!is_loopback(host))
		return fail(x,
			    "host \"%s\" is not a loopback address: the "
			    "control socket has no authentication, so TCP "
			    "listens only on 127.0.0.0/8, [::1] or localhost",
			    show(host).s);
	*port_ret = port;
	return 0;
}

/* A tcp:HOST:PORT setting (the control listener, the dashboard's): v
 * parsed, then *spec, *host and *port replaced.  Returns 0, fail()'s, or
 * SC_E_NOMEM (nothing replaced). */
static int take_tcp(struct setctx *x, const char *v, char **spec, char **host,
		    uint16_t *port)
{
	char h[64];
	uint64_t p = 0;
	int rc = parse_tcp(x, v, h, &p);
	if (rc)
		return rc;
	char *sd = strdup(v), *hd = strdup(h);
	if (!sd || !hd) {
		free(sd);
		free(hd);
		return SC_E_NOMEM;
	}
	free(*spec);
	free(*host);
	*spec = sd;
	*host = hd;
	*port = (uint16_t)p;
	return 0;
}

static int set_listen(struct setctx *x, const char *v)
{
	struct conf *c = x->c;
	if (strncmp(v, "unix:", 5) == 0) {
		char *path, *listen;
		int rc = resolve_path(x, v + 5, UNIX_PATH_BYTES_MAX, &path);
		if (rc)
			return rc;
		if (!(listen = malloc(strlen(path) + 6))) {
			free(path);
			return SC_E_NOMEM;
		}
		sprintf(listen, "unix:%s", path);
		free(c->control.listen);
		free(c->control.unix_path);
		free(c->control.tcp_host);
		c->control.listen = listen;
		c->control.unix_path = path;
		c->control.tcp_host = NULL;
		c->control.tcp_port = 0;
		c->control.kind = CONF_LISTEN_UNIX;
		return 0;
	}
	if (strncmp(v, "tcp:", 4) != 0)
		return fail(x,
			    "expected unix:PATH or tcp:HOST:PORT, got \"%s\"",
			    show(v).s);

	int rc = take_tcp(x, v, &c->control.listen, &c->control.tcp_host,
			  &c->control.tcp_port);
	if (rc)
		return rc;
	free(c->control.unix_path);
	c->control.unix_path = NULL;
	c->control.kind = CONF_LISTEN_TCP;
	return 0;
}

/* The dashboard's own listener: TCP on loopback, for a daemon whose
 * control socket is a Unix socket a browser cannot open. */
static int set_dashboard(struct setctx *x, const char *v)
{
	struct conf *c = x->c;
	if (strncmp(v, "tcp:", 4) != 0)
		return fail(x,
			    "expected tcp:HOST:PORT (a browser opens the "
			    "dashboard over TCP), got \"%s\"",
			    show(v).s);
	return take_tcp(x, v, &c->control.dashboard, &c->control.dash_host,
			&c->control.dash_port);
}

/* ---- [cluster] ---------------------------------------------------------- */

/* One server of `nats`: nats://HOST:PORT, the scheme in any case, HOST a
 * name or IPv4 address of letters, digits, '.', '-' and '_', or an [IPv6]
 * literal; the port is required (1..65535); no user:password@, no path.
 * Credentials would belong in a file of their own, not in a world-readable
 * config. */
static bool nats_url_ok(const char *s, size_t n)
{
	if (n < 8 || strncasecmp(s, "nats://", 7) != 0)
		return false;
	const char *p = s + 7, *end = s + n;
	if (*p == '[') {
		size_t hl = 0;
		while (p + 1 + hl < end &&
		       strchr("0123456789abcdefABCDEF:.", p[1 + hl]))
			hl++;
		if (hl == 0 || p + 1 + hl >= end || p[1 + hl] != ']')
			return false;
		p += hl + 2;
	} else {
		const char *h = p;
		while (p < end &&
		       ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			(*p >= '0' && *p <= '9') || *p == '.' || *p == '-' ||
			*p == '_'))
			p++;
		if (p == h)
			return false;
	}
	if (p >= end || *p != ':')
		return false;
	p++;
	char port[8];
	size_t pl = (size_t)(end - p);
	uint64_t v;
	if (pl == 0 || pl >= sizeof(port))
		return false;
	memcpy(port, p, pl);
	port[pl] = '\0';
	return parse_u64(port, 1, 65535, &v);
}

static void free_words(char **w, size_t n);

/* The next item of a comma-separated list at *p, trimmed of white space,
 * as [*s, *e) (empty for an empty item); *p moves past its comma, or to
 * NULL after the last item.  False once the list is done. */
static bool list_item(const char **p, const char **s, const char **e)
{
	if (!*p)
		return false;
	const char *comma = strchr(*p, ',');
	*s = *p;
	*e = comma ? comma : *p + strlen(*p);
	while (*s < *e && is_space(**s))
		(*s)++;
	while (*e > *s && is_space((*e)[-1]))
		(*e)--;
	*p = comma ? comma + 1 : NULL;
	return true;
}

/* "nats://a:4222, nats://b:4222": the list replaces any earlier one.
 * Items are trimmed; an empty one is an error, as in keywords. */
static int set_nats(struct setctx *x, const char *v)
{
	char **list = NULL;
	size_t n = 0;
	int rc = 0;
	for (const char *p = v, *s, *e; list_item(&p, &s, &e);) {
		size_t len = (size_t)(e - s);
		char item[CONF_NATS_URL_MAX + 1];
		if (len == 0) {
			rc = fail(x, "empty server in \"%s\"", show(v).s);
			goto out;
		}
		if (len > CONF_NATS_URL_MAX) {
			rc = fail(x, "a server URL longer than %d bytes",
				  CONF_NATS_URL_MAX);
			goto out;
		}
		memcpy(item, s, len);
		item[len] = '\0';
		if (!nats_url_ok(s, len)) {
			rc = fail(x,
				  "expected nats://HOST:PORT (port 1..65535, "
				  "IPv6 in brackets), got \"%s\"",
				  show(item).s);
			goto out;
		}
		if (n >= CONF_NATS_SERVERS_MAX) {
			rc = fail(x, "more than %d servers",
				  CONF_NATS_SERVERS_MAX);
			goto out;
		}
		char **a = realloc(list, (n + 1) * sizeof(*a));
		if (!a) {
			rc = SC_E_NOMEM;
			goto out;
		}
		list = a;
		if (!(list[n] = strdup(item))) {
			rc = SC_E_NOMEM;
			goto out;
		}
		n++;
	}
	free_words(x->c->cluster.nats, x->c->cluster.n_nats);
	x->c->cluster.nats = list;
	x->c->cluster.n_nats = n;
	return 0;
out:
	free_words(list, n);
	return rc;
}

UINT_SETTER(set_shards, cluster.shards, unsigned, 1, CONF_SHARDS_MAX)
/* Checked against shards once the whole file is read (conf_load_buffer),
 * since the two keys may come in either order. */
UINT_SETTER(set_shard, cluster.shard, unsigned, 0, CONF_SHARDS_MAX - 1)

/* ---- [category NAME] ---------------------------------------------------- */

const char *conf_scope_name(enum conf_scope s)
{
	switch (s) {
	case CONF_SCOPE_HOST: return "host";
	case CONF_SCOPE_DOMAIN: return "domain";
	case CONF_SCOPE_ANY: return "any";
	}
	return "?";
}

static int set_seeds(struct setctx *x, const char *v)
{
	char *p;
	int rc = resolve_path(x, v, PATH_BYTES_MAX, &p);
	if (rc)
		return rc;
	free(x->cat->seeds);
	x->cat->seeds = p;
	return 0;
}

static void free_words(char **w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(w[i]);
	free(w);
}

/* "word, Two words ,x" -> "word", "two words", "x".  A word is trimmed
 * and lower-cased (ASCII); a repeated word is kept once; an empty one is
 * an error, as a doubled comma is more likely a slip than a wish. */
static int set_keywords(struct setctx *x, const char *v)
{
	char **w = NULL;
	size_t n = 0;
	int rc = 0;
	for (const char *p = v, *s, *e; list_item(&p, &s, &e);) {
		if (s == e) {
			rc = fail(x, "empty keyword in \"%s\"", show(v).s);
			goto out;
		}
		size_t len = (size_t)(e - s);
		char *word = malloc(len + 1);
		if (!word) {
			rc = SC_E_NOMEM;
			goto out;
		}
		for (size_t i = 0; i < len; i++)
			word[i] = ascii_lower(s[i]);
		word[len] = '\0';
		bool again = false;
		for (size_t i = 0; i < n && !again; i++)
			again = strcmp(w[i], word) == 0;
		if (again) {
			free(word);
		} else if (has_control(word)) {
			free(word);
			rc = fail(x, "control character in a keyword");
			goto out;
		} else if (n >= CONF_KEYWORDS_MAX) {
			free(word);
			rc = fail(x, "more than %d keywords",
				  CONF_KEYWORDS_MAX);
			goto out;
		} else {
			char **nw = realloc(w, (n + 1) * sizeof(*nw));
			if (!nw) {
				free(word);
				rc = SC_E_NOMEM;
				goto out;
			}
			w = nw;
			w[n++] = word;
		}
	}
	free_words(x->cat->keywords, x->cat->n_keywords);
	x->cat->keywords = w;
	x->cat->n_keywords = n;
	return 0;
out:
	free_words(w, n);
	return rc;
}

static int set_scope(struct setctx *x, const char *v)
{
	for (int s = CONF_SCOPE_HOST; s <= CONF_SCOPE_ANY; s++) {
		if (strcmp(v, conf_scope_name(s)) == 0) {
			x->cat->scope = s;
			x->cat->scope_set = true;
			return 0;
		}
	}
	return fail(x, "expected host, domain or any, got \"%s\"", show(v).s);
}

/* A number from 0.0 to 1.0 into *out. */
static int set_unit(struct setctx *x, const char *v, double *out)
{
	double d;
	if (!parse_fraction(v, &d) || d > 1.0)
		return fail(x, "expected a number from 0.0 to 1.0, got \"%s\"",
			    show(v).s);
	*out = d;
	return 0;
}

static int set_min_relevance(struct setctx *x, const char *v)
{
	return set_unit(x, v, &x->cat->min_relevance);
}

static int set_min_support(struct setctx *x, const char *v)
{
	uint64_t n;
	if (!parse_u64(v, 1, 1000, &n))
		return fail(x, "expected a number from 1 to 1000, got \"%s\"",
			    show(v).s);
	x->c->adaptive.min_support = (unsigned)n;
	return 0;
}

static int set_confidence(struct setctx *x, const char *v)
{
	double d;
	if (!parse_fraction(v, &d) || d < 0.5 || d >= 1.0)
		return fail(x,
			    "expected a number from 0.5 up to (not including) "
			    "1.0, got \"%s\"",
			    show(v).s);
	x->c->adaptive.confidence = d;
	return 0;
}

static int set_audit_share(struct setctx *x, const char *v)
{
	double d;
	if (!parse_fraction(v, &d) || d > 1.0)
		return fail(x, "expected a number from 0.0 to 1.0, got \"%s\"",
			    show(v).s);
	x->c->adaptive.audit_share = d;
	return 0;
}

static int set_retire_below(struct setctx *x, const char *v)
{
	double d;
	if (!parse_fraction(v, &d) || d < 0.5 || d > 1.0)
		return fail(x, "expected a number from 0.5 to 1.0, got \"%s\"",
			    show(v).s);
	x->c->adaptive.retire_below = d;
	return 0;
}

static int set_audit_every(struct setctx *x, const char *v)
{
	uint64_t n;
	if (!parse_u64(v, 1, 100000, &n))
		return fail(x, "expected a number from 1 to 100000, got \"%s\"",
			    show(v).s);
	x->c->adaptive.audit_every = (unsigned)n;
	return 0;
}

static int set_transfer(struct setctx *x, const char *v)
{
	return parse_bool(x, v, &x->c->adaptive.transfer);
}

static int set_skip_noindex_nofollow(struct setctx *x, const char *v)
{
	return parse_bool(x, v, &x->c->adaptive.skip_noindex_nofollow);
}

/* A duration: a whole number and a unit, s, m, h, d or w ("90s", "1h",
 * "30d"); a number alone is seconds.  1 s to 10 years. */
static bool parse_duration(const char *s, uint64_t *out)
{
	static const struct {
		char unit;
		uint64_t s;
	} units[] = { { 's', 1 },
		      { 'm', 60 },
		      { 'h', 3600 },
		      { 'd', 86400 },
		      { 'w', 604800 } };
	char num[24];
	size_t n = strlen(s);
	uint64_t mul = 1;
	if (n && (s[n - 1] < '0' || s[n - 1] > '9')) {
		size_t i = 0;
		while (i < sizeof(units) / sizeof(units[0]) &&
		       units[i].unit != s[n - 1])
			i++;
		if (i == sizeof(units) / sizeof(units[0]))
			return false;
		mul = units[i].s;
		n--;
	}
	if (n == 0 || n >= sizeof(num))
		return false;
	memcpy(num, s, n);
	num[n] = '\0';
	uint64_t v;
	const uint64_t max = 3650ull * 86400;
	if (!parse_u64(num, 1, max, &v) || v > max / mul)
		return false;
	*out = v * mul;
	return true;
}

static int set_interval(struct setctx *x, const char *v, uint64_t *out)
{
	if (!parse_duration(v, out))
		return fail(x,
			    "expected a duration like 90s, 30m, 1h, 7d or 2w "
			    "(1 s to 3650 d), got \"%s\"",
			    show(v).s);
	return 0;
}

static int set_min_interval(struct setctx *x, const char *v)
{
	return set_interval(x, v, &x->c->recrawl.min_interval_s);
}

static int set_max_interval(struct setctx *x, const char *v)
{
	return set_interval(x, v, &x->c->recrawl.max_interval_s);
}

static int set_recrawl_enabled(struct setctx *x, const char *v)
{
	return parse_bool(x, v, &x->c->recrawl.enabled);
}

static int set_recrawl_audit_share(struct setctx *x, const char *v)
{
	double d;
	if (!parse_fraction(v, &d) || d > 1.0)
		return fail(x, "expected a number from 0.0 to 1.0, got \"%s\"",
			    show(v).s);
	x->c->recrawl.audit_share = d;
	return 0;
}

/* The repetitions of a pattern (*, +, ?, {m,n}) outside bracket
 * expressions, or -1 when a bound of {m,n} is over CONF_PATTERN_BOUND:
 * glibc's regcomp() copies a repeated subexpression for each repetition,
 * so nested or stacked ones ("a+++++", "((a+)+)+") grow its automaton
 * exponentially, and a hostile config could exhaust memory. */
#define CONF_PATTERN_REPEATS 8
#define CONF_PATTERN_BOUND 100
static int pattern_repeats(const char *v)
{
	int n = 0;
	for (const char *p = v; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '[') {
			/* A bracket expression: its first ']' (or the one
			 * after "[]" / "[^]") ends it. */
			p++;
			if (*p == '^')
				p++;
			if (*p == ']')
				p++;
			while (*p && *p != ']')
				p++;
			if (!*p)
				return n;
		} else if (*p == '*' || *p == '+' || *p == '?') {
			n++;
		} else if (*p == '{') {
			n++;
			for (p++; *p && *p != '}'; p++)
				if (*p >= '0' && *p <= '9' &&
				    strtoul(p, NULL, 10) > CONF_PATTERN_BOUND)
					return -1;
			if (!*p)
				return n;
		}
	}
	return n;
}

/* A URL pattern: a POSIX extended regular expression that compiles. */
static int add_pattern(struct setctx *x, const char *v, char ***list, size_t *n)
{
	if (!*v)
		return fail(x, "empty pattern");
	int reps = pattern_repeats(v);
	if (reps < 0 || reps > CONF_PATTERN_REPEATS)
		return fail(x,
			    "more than %d repetitions (*, +, ?, {m,n}) or a "
			    "bound over %d: \"%s\"",
			    CONF_PATTERN_REPEATS, CONF_PATTERN_BOUND,
			    show(v).s);
	if (strlen(v) > CONF_PATTERN_MAX)
		return fail(x, "longer than %d bytes", CONF_PATTERN_MAX);
	if (*n >= CONF_PATTERNS_MAX)
		return fail(x, "more than %d patterns", CONF_PATTERNS_MAX);
	regex_t re;
	int rc = regcomp(&re, v, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char why[128];
		regerror(rc, &re, why, sizeof(why));
		return fail(x,
			    "not a POSIX extended regular expression (%s): "
			    "\"%s\"",
			    why, show(v).s);
	}
	regfree(&re);
	char **a = realloc(*list, (*n + 1) * sizeof(*a));
	if (!a)
		return SC_E_NOMEM;
	*list = a;
	if (!(a[*n] = strdup(v)))
		return SC_E_NOMEM;
	(*n)++;
	return 0;
}

static int set_include(struct setctx *x, const char *v)
{
	return add_pattern(x, v, &x->cat->include, &x->cat->n_include);
}

static int set_exclude(struct setctx *x, const char *v)
{
	return add_pattern(x, v, &x->cat->exclude, &x->cat->n_exclude);
}

static int set_predict(struct setctx *x, const char *v)
{
	return parse_bool(x, v, &x->cat->predict);
}

static int set_predict_min(struct setctx *x, const char *v)
{
	return set_unit(x, v, &x->cat->predict_min);
}

static int set_min_harvest(struct setctx *x, const char *v)
{
	return set_unit(x, v, &x->cat->min_harvest);
}

static int set_samples(struct setctx *x, const char *v)
{
	return parse_bool(x, v, &x->cat->samples);
}

static int set_tunnel(struct setctx *x, const char *v)
{
	uint64_t n = 0;
	int rc = set_uint(x, v, 0, CONF_TUNNEL_MAX, &n);
	if (rc)
		return rc;
	x->cat->tunnel = (unsigned)n;
	x->cat->tunnel_set = true;
	return 0;
}

/* ---- the key tables ----------------------------------------------------- */

static const struct key crawl_keys[] = {
	{ "store", set_store, false },
	{ "max_depth", set_max_depth, false },
	{ "max_pages", set_max_pages, false },
	{ "concurrency", set_concurrency, false },
	{ "per_host_connections", set_per_host_connections, false },
	{ "per_host_delay_ms", set_per_host_delay_ms, false },
	{ "timeout_s", set_timeout_s, false },
	{ "max_body_bytes", set_max_body_bytes, false },
	{ "user_agent", set_user_agent, false },
	{ "obey_robots", set_obey_robots, false },
	{ "connect_to", set_connect_to, true },
	{ "proxy", set_proxy, false },
	{ "header", set_header, true },
	{ "cookie_jar", set_cookie_jar, false },
	{ "ca_file", set_ca_file, false },
	{ "ca_path", set_ca_path, false },
	{ "client_cert", set_client_cert, false },
	{ "client_key", set_client_key, false },
	{ "url_credentials", set_url_credentials, false },
	{ "max_pages_per_host", set_max_pages_per_host, false },
	{ "host_retries", set_host_retries, false },
	{ "host_backoff_ms", set_host_backoff_ms, false },
	{ NULL, NULL, false },
};
static const struct key normalize_keys[] = {
	{ "profile", set_profile, false },
	{ "steps", set_steps, false },
	{ NULL, NULL, false },
};
static const struct key dedup_keys[] = {
	{ "signature", set_signature, false },
	{ "near_duplicate", set_near_duplicate, false },
	{ "follow_duplicate_links", set_follow_duplicate_links, false },
	{ NULL, NULL, false },
};
static const struct key store_keys[] = {
	{ "warc", set_warc, false },
	{ "search_index", set_search_index, false },
	{ "max_size", set_max_size, false },
	{ NULL, NULL, false },
};
static const struct key control_keys[] = {
	{ "listen", set_listen, false },
	{ "dashboard", set_dashboard, false },
	{ NULL, NULL, false },
};
static const struct key adaptive_keys[] = {
	{ "min_support", set_min_support, false },
	{ "confidence", set_confidence, false },
	{ "audit_share", set_audit_share, false },
	{ "transfer", set_transfer, false },
	{ "retire_below", set_retire_below, false },
	{ "audit_every", set_audit_every, false },
	{ "skip_noindex_nofollow", set_skip_noindex_nofollow, false },
	{ NULL, NULL, false },
};
static const struct key recrawl_keys[] = {
	{ "enabled", set_recrawl_enabled, false },
	{ "min_interval", set_min_interval, false },
	{ "max_interval", set_max_interval, false },
	{ "audit_share", set_recrawl_audit_share, false },
	{ NULL, NULL, false },
};
static const struct key cluster_keys[] = {
	{ "nats", set_nats, false },
	{ "shards", set_shards, false },
	{ "shard", set_shard, false },
	{ NULL, NULL, false },
};
static const struct key category_keys[] = {
	{ "seeds", set_seeds, false },
	{ "keywords", set_keywords, false },
	{ "include", set_include, true },
	{ "exclude", set_exclude, true },
	{ "scope", set_scope, false },
	{ "min_relevance", set_min_relevance, false },
	{ "tunnel", set_tunnel, false },
	{ "predict", set_predict, false },
	{ "predict_min", set_predict_min, false },
	{ "samples", set_samples, false },
	{ "min_harvest", set_min_harvest, false },
	{ NULL, NULL, false },
};
/* The most keys of one section, for the "given twice" bookkeeping. */
#define SECTION_KEYS_MAX 24
#define KEYS_OF(t) (sizeof(t) / sizeof((t)[0]) - 1)
_Static_assert(KEYS_OF(crawl_keys) <= SECTION_KEYS_MAX &&
		       KEYS_OF(normalize_keys) <= SECTION_KEYS_MAX &&
		       KEYS_OF(dedup_keys) <= SECTION_KEYS_MAX &&
		       KEYS_OF(store_keys) <= SECTION_KEYS_MAX &&
		       KEYS_OF(control_keys) <= SECTION_KEYS_MAX &&
		       KEYS_OF(adaptive_keys) <= SECTION_KEYS_MAX &&
		       KEYS_OF(recrawl_keys) <= SECTION_KEYS_MAX &&
		       KEYS_OF(cluster_keys) <= SECTION_KEYS_MAX &&
		       KEYS_OF(category_keys) <= SECTION_KEYS_MAX,
	       "a section has more keys than SECTION_KEYS_MAX");

static const struct {
	const char *name;
	const struct key *keys;
} sections[SECT_COUNT] = {
	[SECT_CRAWL] = { "crawl", crawl_keys },
	[SECT_NORMALIZE] = { "normalize", normalize_keys },
	[SECT_DEDUP] = { "dedup", dedup_keys },
	[SECT_STORE] = { "store", store_keys },
	[SECT_CONTROL] = { "control", control_keys },
	[SECT_ADAPTIVE] = { "adaptive", adaptive_keys },
	[SECT_RECRAWL] = { "recrawl", recrawl_keys },
	[SECT_CLUSTER] = { "cluster", cluster_keys },
	[SECT_CATEGORY] = { "category", category_keys },
};

static int find_key(const struct key *keys, const char *name)
{
	for (int i = 0; keys[i].name; i++)
		if (strcmp(keys[i].name, name) == 0)
			return i;
	return -1;
}

/* ---- defaults, free ----------------------------------------------------- */

static void category_clear(struct conf_category *cat)
{
	free(cat->name);
	free(cat->seeds);
	free_words(cat->keywords, cat->n_keywords);
	free_words(cat->include, cat->n_include);
	free_words(cat->exclude, cat->n_exclude);
}

void conf_free(struct conf *c)
{
	if (!c)
		return;
	free(c->path);
	free(c->crawl.store);
	free(c->crawl.user_agent);
	free_words(c->crawl.connect_to, c->crawl.n_connect_to);
	free(c->crawl.proxy);
	free_words(c->crawl.headers, c->crawl.n_headers);
	free(c->crawl.cookie_jar);
	free(c->crawl.ca_file);
	free(c->crawl.ca_path);
	free(c->crawl.client_cert);
	free(c->crawl.client_key);
	free(c->normalize.steps_list);
	free(c->control.listen);
	free(c->control.unix_path);
	free(c->control.tcp_host);
	free(c->control.dashboard);
	free(c->control.dash_host);
	free_words(c->cluster.nats, c->cluster.n_nats);
	for (size_t i = 0; i < c->n_categories; i++)
		category_clear(&c->categories[i]);
	free(c->categories);
	free(c);
}

int conf_default(struct conf **ret)
{
	struct conf *c = calloc(1, sizeof(*c));
	if (!c)
		return SC_E_NOMEM;
	c->crawl.store = strdup(CONF_DEFAULT_STORE);
	c->crawl.max_depth = 9;
	c->crawl.max_pages = 0;
	c->crawl.concurrency = 0; /* auto */
	c->crawl.per_host_connections = 2;
	c->crawl.per_host_delay_ms = 1000;
	c->crawl.timeout_s = 30;
	c->crawl.max_body_bytes = 10485760;
	c->crawl.user_agent = strdup("sigcrawl/" SC_VERSION);
	c->crawl.obey_robots = true;
	c->crawl.max_pages_per_host = 0;
	c->crawl.host_retries = 3;
	c->crawl.host_backoff_ms = 10000;
	c->normalize.profile = NORM_PROFILE_EXTENDED;
	c->dedup.signature = CONF_SIGNATURE_MD5_TEXT;
	c->dedup.near_duplicate = -1;
	c->dedup.follow_duplicate_links = true;
	c->adaptive.min_support = 3;
	c->adaptive.confidence = 0.95;
	c->adaptive.audit_share = 0.03;
	c->adaptive.transfer = true;
	c->adaptive.retire_below = 0.95;
	c->adaptive.audit_every = 32;
	c->adaptive.skip_noindex_nofollow = true;
	c->recrawl.enabled = false;
	c->recrawl.min_interval_s = 3600;
	c->recrawl.max_interval_s = 30 * 86400;
	c->recrawl.audit_share = 0.02;
	c->store.warc = false;
	c->store.search_index = true;
	c->store.max_size = sizeof(size_t) >= 8 ? (uint64_t)64 << 30
						: (uint64_t)1 << 30;
	c->cluster.enabled = false;
	c->cluster.shards = 1;
	c->cluster.shard = 0;
	c->control.kind = CONF_LISTEN_UNIX;
	c->control.listen = strdup(CONF_DEFAULT_LISTEN);
	c->control.unix_path = strdup(&CONF_DEFAULT_LISTEN[5]);
	if (!c->crawl.store || !c->crawl.user_agent || !c->control.listen ||
	    !c->control.unix_path) {
		conf_free(c);
		return SC_E_NOMEM;
	}
	resolve_steps(c);
	*ret = c;
	return 0;
}

bool conf_category_name_ok(const char *s, size_t n)
{
	return sc_category_name_ok(s, n, CONF_CATEGORY_NAME_MAX);
}

const struct conf_category *conf_category_find(const struct conf *c,
					       const char *name)
{
	for (size_t i = 0; i < c->n_categories; i++)
		if (strcmp(c->categories[i].name, name) == 0)
			return &c->categories[i];
	return NULL;
}

/* Appends a category with default settings; returns its index or a
 * negative code (SC_E_INVAL when the bound is reached). */
static int category_add(struct conf *c, const char *name, size_t len)
{
	if (c->n_categories >= CONF_CATEGORIES_MAX)
		return SC_E_INVAL;
	struct conf_category *a = realloc(c->categories,
					  (c->n_categories + 1) * sizeof(*a));
	if (!a)
		return SC_E_NOMEM;
	c->categories = a;
	struct conf_category *cat = &a[c->n_categories];
	memset(cat, 0, sizeof(*cat));
	if (!(cat->name = strndup(name, len)))
		return SC_E_NOMEM;
	cat->scope = CONF_SCOPE_HOST;
	cat->predict = true;
	cat->predict_min = CONF_PREDICT_MIN;
	cat->min_harvest = CONF_MIN_HARVEST;
	return (int)c->n_categories++;
}

/* ---- the file ----------------------------------------------------------- */

struct loader {
	struct conf *c;
	const char *name; /* for messages */
	char *dir;        /* absolute directory of the file */
	const char *p, *end;
	unsigned lineno;

	enum section sect;
	size_t cat; /* index of the current category */
	char header[CONF_CATEGORY_NAME_MAX + 16]; /* "[category x]" */
	unsigned sect_line[SECT_COUNT];           /* where each section began */
	unsigned key_line[SECTION_KEYS_MAX];      /* per key of this section */
	unsigned shard_line; /* the line of [cluster] shard, or 0 */

	int rc; /* first error, 0 if none */
	unsigned err_line;
	char *err;
	size_t errlen;
};

static SC_PRINTF(2, 3) void loader_fail(struct loader *L, const char *fmt, ...)
{
	if (L->rc)
		return;
	L->rc = SC_E_INVAL;
	L->err_line = L->lineno;
	if (!L->errlen)
		return;
	int n = snprintf(L->err, L->errlen, "%s:%u: ", L->name, L->lineno);
	if (n < 0 || (size_t)n >= L->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(L->err + n, L->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

/* A section header line "[...]" (after leading blanks).  Sets the current
 * section, or records an error. */
static void begin_section(struct loader *L, const char *s, size_t len)
{
	const char *close = memchr(s, ']', len);
	if (!close) {
		loader_fail(L, "missing ']' in section header");
		return;
	}
	for (const char *t = close + 1; t < s + len; t++) {
		if (*t == ';' || *t == '#')
			break;
		if (!is_space(*t)) {
			loader_fail(L, "text after the section header's ']'");
			return;
		}
	}
	const char *n = s + 1, *e = close;
	while (n < e && is_space(*n))
		n++;
	while (e > n && is_space(e[-1]))
		e--;
	size_t nl = (size_t)(e - n);

	if (nl >= 8 && memcmp(n, "category", 8) == 0 &&
	    (nl == 8 || is_space(n[8]))) {
		const char *cn = n + 8;
		while (cn < e && is_space(*cn))
			cn++;
		size_t cl = (size_t)(e - cn);
		if (cl == 0) {
			loader_fail(L, "[category]: a category needs a name: "
				       "[category NAME]");
			return;
		}
		if (!conf_category_name_ok(cn, cl)) {
			loader_fail(L,
				    "[category %.*s]: a category name has 1 "
				    "to %d letters, digits, '.', '_' or '-'",
				    (int)(cl > 48 ? 48 : cl), cn,
				    CONF_CATEGORY_NAME_MAX);
			return;
		}
		snprintf(L->header, sizeof(L->header), "[category %.*s]",
			 (int)cl, cn);
		for (size_t i = 0; i < L->c->n_categories; i++) {
			const char *have = L->c->categories[i].name;
			if (strlen(have) == cl && memcmp(have, cn, cl) == 0) {
				loader_fail(L, "%s: category given twice",
					    L->header);
				return;
			}
		}
		int idx = category_add(L->c, cn, cl);
		if (idx == SC_E_INVAL) {
			loader_fail(L, "%s: more than %d categories", L->header,
				    CONF_CATEGORIES_MAX);
			return;
		}
		if (idx < 0) {
			L->rc = idx;
			return;
		}
		L->cat = (size_t)idx;
		L->sect = SECT_CATEGORY;
		memset(L->key_line, 0, sizeof(L->key_line));
		return;
	}

	for (int i = SECT_CRAWL; i < SECT_CATEGORY; i++) {
		if (strlen(sections[i].name) == nl &&
		    memcmp(sections[i].name, n, nl) == 0) {
			snprintf(L->header, sizeof(L->header), "[%s]",
				 sections[i].name);
			if (L->sect_line[i]) {
				loader_fail(L,
					    "%s: section given twice (first "
					    "on line %u)",
					    L->header, L->sect_line[i]);
				return;
			}
			L->sect_line[i] = L->lineno;
			L->sect = (enum section)i;
			if (i == SECT_CLUSTER)
				L->c->cluster.enabled = true;
			memset(L->key_line, 0, sizeof(L->key_line));
			return;
		}
	}
	char copy[64];
	size_t cl = nl < sizeof(copy) ? nl : sizeof(copy) - 1;
	memcpy(copy, n, cl);
	copy[cl] = '\0';
	loader_fail(L,
		    "[%s]: unknown section (crawl, normalize, dedup, store, "
		    "adaptive, recrawl, category NAME, control, cluster)",
		    show(copy).s);
}

/* inih's line reader (fgets-like): the next line, checked, without its
 * leading blanks.  Returning NULL ends inih's loop, which is how an error
 * found here stops the parse. */
static char *read_line(char *str, int num, void *stream)
{
	struct loader *L = stream;
	if (L->rc || L->p >= L->end)
		return NULL;
	const char *s = L->p;
	const char *nl = memchr(s, '\n', (size_t)(L->end - s));
	const char *e = nl ? nl : L->end;
	L->p = nl ? nl + 1 : L->end;
	L->lineno++;

	if (memchr(s, '\0', (size_t)(e - s))) {
		loader_fail(L, "NUL byte in the line");
		return NULL;
	}
	/* A UTF-8 byte order mark is allowed at the very start. */
	if (L->lineno == 1 && e - s >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
		s += 3;
	while (s < e && is_space(*s))
		s++;
	while (e > s && is_space(e[-1]))
		e--;
	size_t len = (size_t)(e - s);
	if (len > CONF_LINE_MAX || (int)len + 3 > num) {
		loader_fail(L, "line longer than %d bytes", CONF_LINE_MAX);
		return NULL;
	}
	if (len > 0 && *s == '[') {
		begin_section(L, s, len);
		if (L->rc)
			return NULL;
	}
	memcpy(str, s, len);
	str[len] = '\n';
	str[len + 1] = '\0';
	return str;
}

static int handle_key(void *user, const char *section, const char *name,
		      const char *value)
{
	struct loader *L = user;
	if (L->rc)
		return 0;
	if (L->sect == SECT_NONE) {
		loader_fail(L, "%s: key before the first [section]",
			    show(name).s);
		return 0;
	}
	const struct key *keys = sections[L->sect].keys;
	int k = find_key(keys, name);
	if (k < 0) {
		loader_fail(L, "%s %s: unknown key", L->header, show(name).s);
		return 0;
	}
	if (!keys[k].repeatable && L->key_line[k]) {
		loader_fail(L, "%s %s: given twice (first on line %u)",
			    L->header, name, L->key_line[k]);
		return 0;
	}
	L->key_line[k] = L->lineno;

	char msg[256];
	struct setctx x = {
		.c = L->c,
		.cat = L->sect == SECT_CATEGORY ? &L->c->categories[L->cat]
						: NULL,
		.base = L->dir,
		.msg = msg,
		.msglen = sizeof(msg),
	};
	int rc = keys[k].set(&x, value);
	if (rc == SC_E_INVAL) {
		loader_fail(L, "%s %s: %s", L->header, name, msg);
		return 0;
	}
	if (rc) {
		L->rc = rc;
		return 0;
	}
	/* conf_check_seeds() names the line of a list it cannot read. */
	if (keys[k].set == set_seeds)
		x.cat->seeds_line = L->lineno;
	if (keys[k].set == set_shard)
		L->shard_line = L->lineno;
	return 1;
}

static char *absolute_dir_of(const char *name)
{
	char cwd[PATH_MAX];
	const char *slash = name ? strrchr(name, '/') : NULL;
	if (name && name[0] == '/')
		return strndup(name,
			       slash == name ? 1 : (size_t)(slash - name));
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	if (!slash)
		return strdup(cwd);
	char *r = malloc(strlen(cwd) + 1 + (size_t)(slash - name) + 1);
	if (r)
		sprintf(r, "%s/%.*s", cwd, (int)(slash - name), name);
	return r;
}

int conf_load_buffer(const char *text, size_t len, const char *name,
		     struct conf **ret, char *err, size_t errlen)
{
	struct loader L = {
		.name = name ? name : "<string>",
		.p = text,
		.end = text + len,
		.err = err,
		.errlen = errlen,
	};
	if (errlen)
		err[0] = '\0';
	if (len > CONF_FILE_MAX) {
		if (errlen)
			snprintf(err, errlen, "%s: larger than %d bytes",
				 L.name, CONF_FILE_MAX);
		return SC_E_INVAL;
	}
	int rc = conf_default(&L.c);
	if (rc)
		return rc;
	if (!(L.dir = absolute_dir_of(name))) {
		rc = errno == ENOMEM ? SC_E_NOMEM : SC_E_IO;
		if (errlen)
			snprintf(err, errlen,
				 "%s: cannot find its directory: %s", L.name,
				 strerror(errno));
		goto out;
	}
	if (name) {
		char *base = strrchr(name, '/');
		size_t dl = strlen(L.dir);
		base = base ? base + 1 : (char *)name;
		if (!(L.c->path = malloc(dl + 1 + strlen(base) + 1))) {
			rc = SC_E_NOMEM;
			goto out;
		}
		sprintf(L.c->path, "%s%s%s", L.dir,
			L.dir[dl - 1] == '/' ? "" : "/", base);
	}

	int line = ini_parse_stream(read_line, &L, handle_key, &L);
	if (line > 0 && (!L.rc || (unsigned)line < L.err_line)) {
		/* inih's own complaint: a line that is neither a section,
		 * a key = value pair nor a comment. */
		L.rc = SC_E_INVAL;
		if (errlen)
			snprintf(err, errlen,
				 "%s:%d: syntax error: expected [section], "
				 "key = value or a comment",
				 L.name, line);
	} else if (line < 0 && !L.rc) {
		L.rc = SC_E_NOMEM;
	}
	rc = L.rc;
	/* A topic crosses hosts: a section with keywords and no scope
	 * follows links anywhere, bounded by relevance (docs/focus.md). */
	for (size_t i = 0; !rc && i < L.c->n_categories; i++) {
		struct conf_category *cat = &L.c->categories[i];
		if (!cat->scope_set && cat->n_keywords)
			cat->scope = CONF_SCOPE_ANY;
		/* The prediction prunes only where a tunnel lets the crawl
		 * through off-topic pages (docs/focus.md, "Tunnel"). */
		if (!cat->tunnel_set && cat->n_keywords && cat->predict)
			cat->tunnel = 1;
	}
	if (!rc && L.c->recrawl.min_interval_s > L.c->recrawl.max_interval_s) {
		rc = SC_E_INVAL;
		if (errlen)
			snprintf(
				err, errlen,
				"%s:%u: [recrawl]: min_interval (%llu s) is "
				"longer than max_interval (%llu s)",
				L.name, L.sect_line[SECT_RECRAWL],
				(unsigned long long)L.c->recrawl.min_interval_s,
				(unsigned long long)
					L.c->recrawl.max_interval_s);
	}
	/* [cluster]: a section means cluster mode, so it must name its
	 * servers; this daemon's shard must be one of the shards. */
	if (!rc && L.c->cluster.enabled && L.c->cluster.n_nats == 0) {
		rc = SC_E_INVAL;
		if (errlen)
			snprintf(err, errlen,
				 "%s:%u: [cluster]: nats is required "
				 "(nats = nats://HOST:PORT[, ...])",
				 L.name, L.sect_line[SECT_CLUSTER]);
	}
	if (!rc && L.c->cluster.shard >= L.c->cluster.shards) {
		rc = SC_E_INVAL;
		if (errlen)
			snprintf(err, errlen,
				 "%s:%u: [cluster] shard: %u is not below "
				 "shards (%u); shards are numbered from 0",
				 L.name, L.shard_line, L.c->cluster.shard,
				 L.c->cluster.shards);
	}
	if (rc == SC_E_NOMEM && errlen && !err[0])
		snprintf(err, errlen, "%s: out of memory", L.name);
out:
	free(L.dir);
	if (rc) {
		conf_free(L.c);
		return rc;
	}
	*ret = L.c;
	return 0;
}

int conf_load(const char *path, struct conf **ret, char *err, size_t errlen)
{
	if (errlen)
		err[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(e));
		errno = e;
		return SC_E_IO;
	}
	/* Read one byte more than allowed, to tell "exactly the limit" from
	 * "more".  A pipe or /dev/stdin works too. */
	size_t cap = CONF_FILE_MAX + 1, len = 0;
	char *buf = malloc(cap);
	if (!buf) {
		close(fd);
		return SC_E_NOMEM;
	}
	for (;;) {
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			if (errlen)
				snprintf(err, errlen, "%s: %s", path,
					 strerror(e));
			free(buf);
			close(fd);
			errno = e;
			return SC_E_IO;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == cap)
			break;
	}
	close(fd);
	int rc = conf_load_buffer(buf, len, path, ret, err, errlen);
	free(buf);
	return rc;
}

/* ---- command-line overrides --------------------------------------------- */

static const struct {
	const char *option;
	enum section sect;
	const char *key;
} overrides[] = {
	{ "store", SECT_CRAWL, "store" },
	{ "max-pages", SECT_CRAWL, "max_pages" },
	{ "max-depth", SECT_CRAWL, "max_depth" },
	{ "concurrency", SECT_CRAWL, "concurrency" },
	{ "connect-to", SECT_CRAWL, "connect_to" },
	{ "user-agent", SECT_CRAWL, "user_agent" },
	{ "per-host-connections", SECT_CRAWL, "per_host_connections" },
	{ "per-host-delay-ms", SECT_CRAWL, "per_host_delay_ms" },
	{ "timeout-s", SECT_CRAWL, "timeout_s" },
	{ "max-body-bytes", SECT_CRAWL, "max_body_bytes" },
	{ "max-pages-per-host", SECT_CRAWL, "max_pages_per_host" },
	{ "profile", SECT_NORMALIZE, "profile" },
	{ "steps", SECT_NORMALIZE, "steps" },
	{ "signature", SECT_DEDUP, "signature" },
	{ "near-duplicate", SECT_DEDUP, "near_duplicate" },
	{ "follow-duplicate-links", SECT_DEDUP, "follow_duplicate_links" },
	{ "warc", SECT_STORE, "warc" },
	{ "search-index", SECT_STORE, "search_index" },
};

static SC_PRINTF(4, 5) int override_fail(char *err, size_t errlen,
					 const char *option, const char *fmt,
					 ...)
{
	if (!errlen)
		return SC_E_INVAL;
	int n = snprintf(err, errlen, "--%s: ", option);
	if (n >= 0 && (size_t)n < errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return SC_E_INVAL;
}

int conf_override(struct conf *c, const char *option, const char *value,
		  char *err, size_t errlen)
{
	if (errlen)
		err[0] = '\0';
	if (strncmp(option, "--", 2) == 0)
		option += 2;
	if (strcmp(option, "no-robots") == 0) {
		c->crawl.obey_robots = false;
		return 0;
	}
	for (size_t i = 0; i < sizeof(overrides) / sizeof(overrides[0]); i++) {
		if (strcmp(overrides[i].option, option) != 0)
			continue;
		if (!value)
			return override_fail(err, errlen, option,
					     "needs a value");
		char cwd[PATH_MAX], msg[256];
		if (!getcwd(cwd, sizeof(cwd)))
			return override_fail(err, errlen, option,
					     "cannot read the working "
					     "directory: %s",
					     strerror(errno));
		const struct key *keys = sections[overrides[i].sect].keys;
		int k = find_key(keys, overrides[i].key);
		struct setctx x = {
			.c = c, .base = cwd, .msg = msg, .msglen = sizeof(msg)
		};
		int rc = keys[k].set(&x, value);
		if (rc == SC_E_INVAL)
			return override_fail(err, errlen, option, "%s", msg);
		return rc;
	}
	return override_fail(err, errlen, option,
			     "not an option that overrides the config");
}

/* "--category: unknown category 'X' (...)": the message of `sigcrawl
 * submit` for the same mistake, with the names the config has (the first
 * few: there may be a thousand). */
static int unknown_category(const struct conf *c, const char *category,
			    char *err, size_t errlen)
{
	char names[160];
	size_t n = 0;
	names[0] = '\0';
	for (size_t i = 0; i < c->n_categories; i++) {
		int w = snprintf(names + n, sizeof(names) - n, "%s%s",
				 i ? ", " : "", c->categories[i].name);
		if (w < 0 || (size_t)w >= sizeof(names) - n ||
		    (i == 5 && c->n_categories > 6)) {
			snprintf(names + n, sizeof(names) - n, ", ...");
			break;
		}
		n += (size_t)w;
	}
	return override_fail(err, errlen, "category",
			     "unknown category '%s' (the config has %s; add "
			     "a [category %s] section for a new one)",
			     category, names, category);
}

int conf_override_seeds(struct conf *c, const char *category, const char *seeds,
			char *err, size_t errlen)
{
	if (errlen)
		err[0] = '\0';
	char cwd[PATH_MAX], msg[256];
	if (!getcwd(cwd, sizeof(cwd)))
		return override_fail(err, errlen, "seeds",
				     "cannot read the working directory: %s",
				     strerror(errno));
	if (!category) {
		if (c->n_categories > 1)
			return override_fail(err, errlen, "seeds",
					     "the config has %zu categories; "
					     "say which with --category NAME",
					     c->n_categories);
		category = c->n_categories ? c->categories[0].name : "default";
	}
	if (!conf_category_name_ok(category, strlen(category)))
		return override_fail(err, errlen, "category",
				     "a category name has 1 to %d letters, "
				     "digits, '.', '_' or '-'",
				     CONF_CATEGORY_NAME_MAX);
	struct conf_category *cat = (struct conf_category *)conf_category_find(
		c, category);
	if (!cat && c->n_categories)
		return unknown_category(c, category, err, errlen);
	/* Check the path before adding anything, so that a failure leaves
	 * c unchanged.  "-" is standard input, no path. */
	struct conf_category probe = { 0 };
	struct setctx x = {
		.c = c, .cat = &probe, .base = cwd, .msg = msg, .msglen = 256
	};
	int rc = strcmp(seeds, "-") == 0
			 ? ((probe.seeds = strdup("-")) ? 0 : SC_E_NOMEM)
			 : set_seeds(&x, seeds);
	if (rc == SC_E_INVAL)
		return override_fail(err, errlen, "seeds", "%s", msg);
	if (rc)
		return rc;
	if (!cat) {
		int idx = category_add(c, category, strlen(category));
		if (idx < 0) {
			free(probe.seeds);
			return idx;
		}
		cat = &c->categories[idx];
		/* A category no section configured has no focus: no
		 * keywords, and links lead anywhere (docs/focus.md). */
		cat->scope = CONF_SCOPE_ANY;
	}
	free(cat->seeds);
	cat->seeds = probe.seeds;
	cat->seeds_line = 0;
	return 0;
}

int conf_check_seeds(const struct conf *c, char *err, size_t errlen)
{
	if (errlen)
		err[0] = '\0';
	for (size_t i = 0; i < c->n_categories; i++) {
		const struct conf_category *cat = &c->categories[i];
		if (!cat->seeds || strcmp(cat->seeds, "-") == 0)
			continue;
		/* Opened as the run opens it; O_NONBLOCK so that a FIFO does
		 * not wait here for its writer.  A directory opens but cannot
		 * be read. */
		int fd = open(cat->seeds, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		struct stat st;
		int e = 0;
		if (fd < 0)
			e = errno;
		else if (fstat(fd, &st) != 0)
			e = errno;
		else if (S_ISDIR(st.st_mode))
			e = EISDIR;
		if (fd >= 0)
			close(fd);
		if (!e)
			continue;
		if (!errlen)
			return SC_E_INVAL;
		if (cat->seeds_line)
			snprintf(err, errlen,
				 "%s:%u: [category %s] seeds: cannot read %s: "
				 "%s",
				 c->path ? c->path : "<string>",
				 cat->seeds_line, cat->name, cat->seeds,
				 strerror(e));
		else
			snprintf(err, errlen, "--seeds: cannot read %s: %s",
				 cat->seeds, strerror(e));
		return SC_E_INVAL;
	}
	return 0;
}
