/* warc.c — WARC 1.1 files of the crawl's exchanges (ISO 28500:2017).
 *
 * warc.h says what a file holds.  How it is written: each record is one
 * gzip member, deflated straight from the caller's buffers into an output
 * buffer of the writer that goes to the file descriptor with write(2), so
 * a payload is never copied, only read twice (SHA-1, then deflate: the
 * digests head the record, before the block).  The writer keeps the byte
 * offset of the last whole exchange; when a write fails it cuts the file
 * back there, so a file never holds a partial record followed by more
 * records. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <zlib.h>

#include "warc.h"

#define WARC_DEFAULT_PREFIX "sigcrawl"
#define WARC_DEFAULT_MAX (1ull << 30)
#define WARC_PREFIX_MAX 64
#define WARC_FIELD_MAX 256 /* software, operator, hostname */
#define WARC_OBUF (256u * 1024)
#define WARC_ZCHUNK (1u << 30) /* deflate input per call (avail_in) */
#define WARC_NAME_TRIES 1000   /* names tried when one exists already */
#define WARC_DATE_LEN 80       /* room for any struct tm gcc can imagine */

#define CONFORMS_TO                                                            \
	"http://iipc.github.io/warc-specifications/specifications/"            \
	"warc-format/warc-1.1/"

/* The cap of the writer's buffers (record headers, the warcinfo body and
 * the rewritten HTTP heads).  A rewritten head is the largest: each line
 * of at least 15 bytes and its line end may gain "X-Sigcrawl-Original-"
 * and a CR, at most 2.4 times what it was, plus a Content-Length line, so
 * a head of WARC_HEAD_MAX bytes always fits. */
#define WARC_BUF_MAX (4 * WARC_HEAD_MAX)

struct warc_writer {
	int dirfd;
	char *prefix, *software, *operator_name, *hostname;
	uint64_t max_file_bytes;

	int fd;                        /* the open file, or -1 */
	char name[128];                /* its final name, relative to dirfd */
	char open_name[136];           /* name + ".open" */
	unsigned serial;               /* of the next file */
	uint64_t file_bytes;           /* written and buffered */
	uint64_t disk_bytes;           /* handed to write(2) */
	bool dir_dirty;                /* a file was created or renamed */
	bool broken;                   /* a failed write could not be undone */
	char warcinfo_id[WARC_ID_LEN]; /* "<urn:uuid:...>" of the open file */

	z_stream z;
	bool z_ready;
	unsigned char *obuf; /* WARC_OBUF bytes */
	size_t obuf_len;

	EVP_MD_CTX *md_block, *md_payload;
	struct sc_dynbuf head, req, hdr, info;
};

/* ---- Small helpers ------------------------------------------------------ */

/* True if S is at most MAX bytes and has no control character (so it can
 * sit in a header line).  Bytes >= 0x80 are allowed: warcinfo fields are
 * UTF-8. */
static bool field_ok(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n > max)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			return false;
	}
	return true;
}

static bool prefix_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > WARC_PREFIX_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return false;
	}
	return s[0] != '.';
}

/* A URI in a header line: printable ASCII, no space (RFC 3986 allows
 * nothing else unencoded). */
static bool uri_ok(const char *s)
{
	size_t n = strnlen(s, WARC_URI_MAX + 1);
	if (n == 0 || n > WARC_URI_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c <= 0x20 || c >= 0x7f)
			return false;
	}
	return true;
}

static bool ip_ok(const char *s)
{
	unsigned char a[16];
	return inet_pton(AF_INET, s, a) == 1 || inet_pton(AF_INET6, s, a) == 1;
}

/* A WARC-Record-ID written by another writer or crawl, as warc.h says:
 * 1..WARC_ID_LEN - 1 bytes of printable ASCII without space (a record id
 * is a URI with no whitespace), NUL-terminated. */
static bool id_ok(const char *s)
{
	size_t n = strnlen(s, WARC_ID_LEN);
	if (n == 0 || n >= WARC_ID_LEN)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c <= 0x20 || c >= 0x7f)
			return false;
	}
	return true;
}

/* "<urn:uuid:...>" of a random (version 4) UUID, RFC 9562. */
static int record_id(char out[WARC_ID_LEN])
{
	unsigned char u[16];
	if (RAND_bytes(u, sizeof(u)) != 1)
		return SC_E_IO;
	u[6] = (unsigned char)((u[6] & 0x0f) | 0x40);
	u[8] = (unsigned char)((u[8] & 0x3f) | 0x80);
	snprintf(out, WARC_ID_LEN,
		 "<urn:uuid:%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x>",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
	return 0;
}

/* The W3C ISO 8601 form WARC 1.1 uses, to the millisecond:
 * 2024-05-01T12:00:00.123Z.  Times before 1970 or after 9999 are
 * rejected. */
static int format_date(int64_t ms, char out[WARC_DATE_LEN])
{
	if (ms < 0 || ms > 253402300799999LL)
		return SC_E_INVAL;
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	if (!gmtime_r(&t, &tm))
		return SC_E_INVAL;
	snprintf(out, WARC_DATE_LEN, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (int)(ms % 1000));
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "sha1:" and the RFC 4648 base32 form of a SHA-1 (32 digits, no
 * padding: 160 bits are exactly 32 groups of 5). */
static void digest_label(const unsigned char md[20], char out[40])
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
	memcpy(out, "sha1:", 5);
	char *o = out + 5;
	for (size_t i = 0; i < 20; i += 5) {
		uint64_t v = 0;
		for (size_t j = 0; j < 5; j++)
			v = v << 8 | md[i + j];
		for (int k = 35; k >= 0; k -= 5)
			*o++ = alphabet[(v >> k) & 31];
	}
	*o = '\0';
}

static int md_final_raw(EVP_MD_CTX *ctx, unsigned char out[20])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0;
	if (EVP_DigestFinal_ex(ctx, md, &len) != 1 || len != 20)
		return SC_E_NOMEM;
	memcpy(out, md, 20);
	return 0;
}

static int md_final(EVP_MD_CTX *ctx, char out[40])
{
	unsigned char md[20];
	int rc = md_final_raw(ctx, md);
	if (!rc)
		digest_label(md, out);
	return rc;
}

/* ---- HTTP header blocks ------------------------------------------------- */

/* Walks the lines of a header block.  A line ends at LF; a CR right before
 * it belongs to the line ending.  *line and *len give the line without its
 * ending.  Returns 1 for a line, 0 at the end, or SC_E_INVAL for a NUL or
 * a CR not followed by LF. */
static int next_line(const char *p, size_t n, size_t *pos, const char **line,
		     size_t *len)
{
	if (*pos >= n)
		return 0;
	const char *s = p + *pos;
	size_t rest = n - *pos;
	const char *lf = memchr(s, '\n', rest);
	size_t l = lf ? (size_t)(lf - s) : rest;
	*pos += lf ? l + 1 : l;
	if (l && s[l - 1] == '\r')
		l--;
	if (memchr(s, '\0', l) || memchr(s, '\r', l))
		return SC_E_INVAL;
	if (!lf && rest > l) /* a lone CR at the very end */
		return SC_E_INVAL;
	*line = s;
	*len = l;
	return 1;
}

/* Finds the last message of a header block: the lines after the last empty
 * line that is followed by a non-empty one.  Sets *start to its offset.
 * Returns the number of messages, or SC_E_INVAL. */
static int last_message(const char *p, size_t n, size_t *start)
{
	size_t pos = 0, begin = 0;
	const char *line;
	size_t len;
	int rc, messages = 0;
	bool in_message = false;
	while ((rc = next_line(p, n, &pos, &line, &len)) == 1) {
		if (len == 0) {
			in_message = false;
		} else if (!in_message) {
			in_message = true;
			messages++;
			begin = (size_t)(line - p);
		}
	}
	if (rc < 0)
		return rc;
	*start = begin;
	return messages;
}

static bool name_is(const char *line, size_t len, const char *name)
{
	const char *colon = memchr(line, ':', len);
	if (!colon)
		return false;
	size_t nl = (size_t)(colon - line);
	while (nl && (line[nl - 1] == ' ' || line[nl - 1] == '\t'))
		nl--;
	return nl == strlen(name) && strncasecmp(line, name, nl) == 0;
}

/* The value of a header line, trimmed. */
static void header_value(const char *line, size_t len, const char **v,
			 size_t *vlen)
{
	const char *colon = memchr(line, ':', len);
	const char *s = colon + 1, *e = line + len;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*v = s;
	*vlen = (size_t)(e - s);
}

/* What happens to a header line of the response head. */
enum head_action { KEEP, DEMOTE };

static enum head_action classify(const char *line, size_t len, bool decoded,
				 bool rewrite_cl)
{
	if (name_is(line, len, "Transfer-Encoding"))
		return DEMOTE;
	if (decoded && name_is(line, len, "Content-Encoding"))
		return DEMOTE;
	if (rewrite_cl && name_is(line, len, "Content-Length"))
		return DEMOTE;
	return KEEP;
}

/* Rewrites the response head P[0..N) into OUT as warc.h describes: the
 * last message, CRLF line endings, Transfer-Encoding (and Content-Encoding
 * when DECODED) demoted to X-Sigcrawl-Original-*, Content-Length fixed,
 * and the empty line that ends the head. */
static int rewrite_response_head(struct sc_dynbuf *out, const char *p, size_t n,
				 bool decoded, size_t payload_len)
{
	size_t start;
	int rc = last_message(p, n, &start);
	if (rc < 0)
		return rc;
	if (rc == 0)
		return SC_E_INVAL;
	p += start;
	n -= start;
	if (n < 5 || memcmp(p, "HTTP/", 5) != 0)
		return SC_E_INVAL;

	/* First pass: is anything demoted, and does Content-Length hold? */
	char want[24];
	int wl = snprintf(want, sizeof(want), "%zu", payload_len);
	bool demoted = false, cl_bad = false;
	size_t pos = 0, len;
	const char *line;
	next_line(p, n, &pos, &line, &len); /* the status line */
	while (next_line(p, n, &pos, &line, &len) == 1 && len) {
		if (classify(line, len, decoded, false) == DEMOTE)
			demoted = true;
		if (name_is(line, len, "Content-Length")) {
			const char *v;
			size_t vl;
			header_value(line, len, &v, &vl);
			if (vl != (size_t)wl || memcmp(v, want, vl) != 0)
				cl_bad = true;
		}
	}
	bool rewrite_cl = demoted || cl_bad;

	/* Second pass: write.  A folded continuation line (starting with SP or
	 * HT) follows its header wherever that went. */
	sc_dyn_reset(out);
	pos = 0;
	next_line(p, n, &pos, &line, &len);
	if ((rc = sc_dyn_add(out, line, len)) ||
	    (rc = sc_dyn_add_str(out, "\r\n")))
		return rc;
	while (next_line(p, n, &pos, &line, &len) == 1 && len) {
		rc = 0;
		bool fold = line[0] == ' ' || line[0] == '\t';
		if (!fold && classify(line, len, decoded, rewrite_cl) == DEMOTE)
			rc = sc_dyn_add_str(out, "X-Sigcrawl-Original-");
		if (rc || (rc = sc_dyn_add(out, line, len)) ||
		    (rc = sc_dyn_add_str(out, "\r\n")))
			return rc;
	}
	if (rewrite_cl &&
	    (rc = sc_dyn_printf(out, "Content-Length: %s\r\n", want)))
		return rc;
	return sc_dyn_add_str(out, "\r\n");
}

/* Copies the request head P[0..N) into OUT with CRLF line endings and the
 * closing empty line.  It must be exactly one message. */
static int rewrite_request_head(struct sc_dynbuf *out, const char *p, size_t n)
{
	size_t start;
	int rc = last_message(p, n, &start);
	if (rc < 0)
		return rc;
	if (rc != 1)
		return SC_E_INVAL;
	sc_dyn_reset(out);
	size_t pos = start, len;
	const char *line;
	while (next_line(p, n, &pos, &line, &len) == 1 && len)
		if ((rc = sc_dyn_add(out, line, len)) ||
		    (rc = sc_dyn_add_str(out, "\r\n")))
			return rc;
	return sc_dyn_add_str(out, "\r\n");
}

/* ---- Output: the buffer, gzip members, files ------------------------------
 */

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return SC_E_IO;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Writes the buffer to the file.  If that fails, whatever part of it
 * reached the file is cut off again, so the file ends at disk_bytes and
 * the buffer still holds everything after it. */
static int obuf_drain(struct warc_writer *w)
{
	if (!w->obuf_len)
		return 0;
	int rc = write_all(w->fd, w->obuf, w->obuf_len);
	if (rc) {
		int saved = errno;
		off_t at = (off_t)w->disk_bytes;
		if (ftruncate(w->fd, at) != 0 ||
		    lseek(w->fd, at, SEEK_SET) != at)
			w->broken = true;
		errno = saved;
		return rc;
	}
	w->disk_bytes += w->obuf_len;
	w->obuf_len = 0;
	return 0;
}

/* Deflates N bytes at P into the open member; FINISH ends the member. */
static int z_put(struct warc_writer *w, const void *p, size_t n, bool finish)
{
	const unsigned char *in = p;
	do {
		size_t chunk = n > WARC_ZCHUNK ? WARC_ZCHUNK : n;
		int flush = finish && chunk == n ? Z_FINISH : Z_NO_FLUSH;
		w->z.next_in = (unsigned char *)in;
		w->z.avail_in = (unsigned)chunk;
		for (;;) {
			if (w->obuf_len == WARC_OBUF) {
				int rc = obuf_drain(w);
				if (rc)
					return rc;
			}
			size_t room = WARC_OBUF - w->obuf_len;
			w->z.next_out = w->obuf + w->obuf_len;
			w->z.avail_out = (unsigned)room;
			int zrc = deflate(&w->z, flush);
			if (zrc == Z_STREAM_ERROR)
				return SC_E_IO;
			size_t made = room - w->z.avail_out;
			w->obuf_len += made;
			w->file_bytes += made;
			if (w->z.avail_out != 0)
				break; /* all input taken (and, if FINISH, done)
					*/
		}
		in += chunk;
		n -= chunk;
	} while (n);
	return 0;
}

/* Writes one record as one gzip member: the header block HDR, the
 * content block (up to two parts), and the two CRLFs that end a record. */
static int put_record(struct warc_writer *w, const struct sc_dynbuf *hdr,
		      const void *a, size_t alen, const void *b, size_t blen)
{
	if (deflateReset(&w->z) != Z_OK)
		return SC_E_IO;
	int rc = z_put(w, hdr->p, hdr->len, false);
	if (!rc && alen)
		rc = z_put(w, a, alen, false);
	if (!rc && blen)
		rc = z_put(w, b, blen, false);
	if (!rc)
		rc = z_put(w, "\r\n\r\n", 4, true);
	return rc;
}

/* Starts the header block of a record: version, type, id, date. */
static int record_start(struct sc_dynbuf *h, const char *type, const char *id,
			const char *date)
{
	sc_dyn_reset(h);
	return sc_dyn_printf(h,
			     "WARC/1.1\r\n"
			     "WARC-Type: %s\r\n"
			     "WARC-Record-ID: %s\r\n"
			     "WARC-Date: %s\r\n",
			     type, id, date);
}

static int put_warcinfo(struct warc_writer *w, const char *date)
{
	struct sc_dynbuf *body = &w->info, *h = &w->hdr;
	sc_dyn_reset(body);
	int rc = sc_dyn_printf(body,
			       "software: %s\r\n"
			       "format: WARC File Format 1.1\r\n"
			       "conformsTo: %s\r\n",
			       w->software, CONFORMS_TO);
	if (!rc && w->hostname)
		rc = sc_dyn_printf(body, "hostname: %s\r\n", w->hostname);
	if (!rc && w->operator_name)
		rc = sc_dyn_printf(body, "operator: %s\r\n", w->operator_name);
	if (rc)
		return rc;

	char digest[40];
	if (EVP_DigestInit_ex(w->md_block, EVP_sha1(), NULL) != 1 ||
	    EVP_DigestUpdate(w->md_block, body->p, body->len) != 1)
		return SC_E_NOMEM;
	if ((rc = md_final(w->md_block, digest)) ||
	    (rc = record_id(w->warcinfo_id)) ||
	    (rc = record_start(h, "warcinfo", w->warcinfo_id, date)))
		return rc;
	rc = sc_dyn_printf(h,
			   "WARC-Filename: %s\r\n"
			   "Content-Type: application/warc-fields\r\n"
			   "WARC-Block-Digest: %s\r\n"
			   "Content-Length: %zu\r\n\r\n",
			   w->name, digest, body->len);
	return rc ? rc : put_record(w, h, body->p, body->len, NULL, 0);
}

/* Creates the next file under its ".open" name and writes its warcinfo
 * record (buffered). */
static int file_start(struct warc_writer *w)
{
	int64_t ms = now_ms();
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char stamp[WARC_DATE_LEN], date[WARC_DATE_LEN];
	gmtime_r(&t, &tm);
	snprintf(stamp, sizeof(stamp), "%04d%02d%02d%02d%02d%02d%03d",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (int)(ms % 1000));
	int rc = format_date(ms, date);
	if (rc)
		return rc;

	int fd = -1;
	for (int tries = 0; fd < 0 && tries < WARC_NAME_TRIES; tries++) {
		snprintf(w->name, sizeof(w->name), "%s-%s-%05u.warc.gz",
			 w->prefix, stamp, w->serial++);
		snprintf(w->open_name, sizeof(w->open_name), "%s.open",
			 w->name);
		if (faccessat(w->dirfd, w->name, F_OK, 0) == 0)
			continue; /* a finished file has that name */
		fd = openat(w->dirfd, w->open_name,
			    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
		if (fd < 0 && errno != EEXIST)
			return SC_E_IO;
	}
	if (fd < 0) {
		errno = EEXIST;
		return SC_E_IO;
	}
	w->fd = fd;
	w->file_bytes = w->disk_bytes = 0;
	w->obuf_len = 0;
	w->dir_dirty = true;
	rc = put_warcinfo(w, date);
	if (rc) {
		close(fd);
		unlinkat(w->dirfd, w->open_name, 0);
		w->fd = -1;
	}
	return rc;
}

static int sync_dir(struct warc_writer *w)
{
	if (!w->dir_dirty)
		return 0;
	if (fsync(w->dirfd) != 0)
		return SC_E_IO;
	w->dir_dirty = false;
	return 0;
}

/* Flushes, closes and renames the open file.  The file is closed even when
 * this fails; it then keeps its ".open" name. */
static int file_finish(struct warc_writer *w)
{
	if (w->fd < 0)
		return 0;
	int rc = obuf_drain(w);
	if (!rc && fsync(w->fd) != 0)
		rc = SC_E_IO;
	if (close(w->fd) != 0 && !rc)
		rc = SC_E_IO;
	w->fd = -1;
	if (!rc && renameat(w->dirfd, w->open_name, w->dirfd, w->name) != 0)
		rc = SC_E_IO;
	if (!rc) {
		w->dir_dirty = true;
		rc = sync_dir(w);
	}
	return rc;
}

/* Drops what was written of the file past OFFSET, after a failed write. */
static void cut_back(struct warc_writer *w, uint64_t offset)
{
	int saved = errno;
	if (w->broken) {
		/* obuf_drain() could not restore the file's end. */
	} else if (offset >= w->disk_bytes) {
		w->obuf_len = (size_t)(offset - w->disk_bytes);
	} else if (ftruncate(w->fd, (off_t)offset) == 0 &&
		   lseek(w->fd, (off_t)offset, SEEK_SET) == (off_t)offset) {
		w->obuf_len = 0;
		w->disk_bytes = offset;
	} else {
		w->broken = true;
	}
	w->file_bytes = offset;
	errno = saved;
}

/* ---- The public functions ------------------------------------------------ */

static int dup_opt(const char *s, const char *def, size_t max, char **ret)
{
	*ret = NULL;
	if (!s)
		s = def;
	if (!s)
		return 0;
	if (!field_ok(s, max))
		return SC_E_INVAL;
	*ret = strdup(s);
	return *ret ? 0 : SC_E_NOMEM;
}

int warc_open(const char *dir, const struct warc_opts *o,
	      struct warc_writer **ret)
{
	static const struct warc_opts defaults = { 0 };
	if (!dir || !ret)
		return SC_E_INVAL;
	if (!o)
		o = &defaults;
	const char *prefix = o->prefix ? o->prefix : WARC_DEFAULT_PREFIX;
	if (!prefix_ok(prefix))
		return SC_E_INVAL;

	char host[256] = "";
	const char *hostname = o->hostname;
	if (!hostname && gethostname(host, sizeof(host) - 1) == 0 &&
	    field_ok(host, WARC_FIELD_MAX) && host[0])
		hostname = host;

	struct warc_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return SC_E_NOMEM;
	w->fd = -1;
	w->dirfd = -1;
	sc_dyn_init(&w->head, WARC_BUF_MAX);
	sc_dyn_init(&w->req, WARC_BUF_MAX);
	sc_dyn_init(&w->hdr, WARC_BUF_MAX);
	sc_dyn_init(&w->info, WARC_BUF_MAX);
	w->max_file_bytes = o->max_file_bytes ? o->max_file_bytes
					      : WARC_DEFAULT_MAX;
	int rc = dup_opt(prefix, NULL, WARC_PREFIX_MAX, &w->prefix);
	if (!rc)
		rc = dup_opt(o->software, "sigcrawl/" SC_VERSION,
			     WARC_FIELD_MAX, &w->software);
	if (!rc)
		rc = dup_opt(o->operator_name, NULL, WARC_FIELD_MAX,
			     &w->operator_name);
	if (!rc)
		rc = dup_opt(hostname, NULL, WARC_FIELD_MAX, &w->hostname);
	if (rc)
		goto fail;

	rc = SC_E_NOMEM;
	w->obuf = malloc(WARC_OBUF);
	w->md_block = EVP_MD_CTX_new();
	w->md_payload = EVP_MD_CTX_new();
	if (!w->obuf || !w->md_block || !w->md_payload)
		goto fail;
	/* windowBits 15 + 16: a gzip wrapper around each member. */
	if (deflateInit2(&w->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		goto fail;
	w->z_ready = true;

	rc = SC_E_IO;
	if (mkdir(dir, 0750) != 0 && errno != EEXIST)
		goto fail;
	w->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->dirfd < 0 ||
	    faccessat(w->dirfd, ".", W_OK | X_OK, AT_EACCESS) != 0)
		goto fail;
	*ret = w;
	return 0;
fail:;
	int saved = errno;
	warc_close(w);
	errno = saved;
	return rc;
}

/* What warc_write_visit() writes in place of a response. */
enum visit_kind { VISIT_FULL, VISIT_NOT_MODIFIED, VISIT_IDENTICAL };

/* The SHA-1 of X's payload, in PAYLOAD_MD. */
static int payload_digest(struct warc_writer *w, const struct warc_exchange *x,
			  unsigned char payload_md[20])
{
	EVP_MD_CTX *p = w->md_payload;
	if (EVP_DigestInit_ex(p, EVP_sha1(), NULL) != 1 ||
	    EVP_DigestUpdate(p, x->payload, x->payload_len) != 1)
		return SC_E_NOMEM;
	return md_final_raw(p, payload_md);
}

/* The block digest of the response or revisit record (the rewritten head,
 * and the payload when WITH_PAYLOAD), and that of the request record. */
static int block_digests(struct warc_writer *w, const struct warc_exchange *x,
			 bool with_payload, char block[40], char req_block[40])
{
	EVP_MD_CTX *b = w->md_block;
	if (EVP_DigestInit_ex(b, EVP_sha1(), NULL) != 1 ||
	    EVP_DigestUpdate(b, w->head.p, w->head.len) != 1 ||
	    (with_payload &&
	     EVP_DigestUpdate(b, x->payload, x->payload_len) != 1))
		return SC_E_NOMEM;
	int rc = md_final(b, block);
	if (rc)
		return rc;
	if (EVP_DigestInit_ex(b, EVP_sha1(), NULL) != 1 ||
	    EVP_DigestUpdate(b, w->req.p, w->req.len) != 1)
		return SC_E_NOMEM;
	return md_final(b, req_block);
}

/* The common tail of a request, response or revisit record's header
 * block. */
static int http_fields(struct sc_dynbuf *h, const struct warc_exchange *x,
		       const char *concurrent, const char *warcinfo)
{
	int rc = sc_dyn_printf(h,
			       "WARC-Warcinfo-ID: %s\r\n"
			       "WARC-Concurrent-To: %s\r\n"
			       "WARC-Target-URI: %s\r\n",
			       warcinfo, concurrent, x->target_uri);
	if (!rc && x->ip)
		rc = sc_dyn_printf(h, "WARC-IP-Address: %s\r\n", x->ip);
	return rc;
}

/* The fields only a revisit record has: its profile and what it refers
 * to.  WARC-Truncated: length marks the payload left out of an
 * identical-payload-digest revisit (ISO 28500:2017, 6.7.2); a
 * server-not-modified one leaves out nothing the server sent. */
static int revisit_fields(struct sc_dynbuf *h, enum visit_kind kind,
			  const struct warc_capture *prior,
			  const char *prior_uri, const char *prior_date)
{
	int rc = sc_dyn_printf(h,
			       "WARC-Profile: %s\r\n"
			       "WARC-Refers-To: %s\r\n"
			       "WARC-Refers-To-Target-URI: %s\r\n"
			       "WARC-Refers-To-Date: %s\r\n",
			       kind == VISIT_IDENTICAL
				       ? WARC_PROFILE_IDENTICAL_PAYLOAD_DIGEST
				       : WARC_PROFILE_SERVER_NOT_MODIFIED,
			       prior->id, prior_uri, prior_date);
	if (!rc && kind == VISIT_IDENTICAL)
		rc = sc_dyn_add_str(h, "WARC-Truncated: length\r\n");
	return rc;
}

int warc_write_exchange(struct warc_writer *w, const struct warc_exchange *x)
{
	bool revisit;
	return warc_write_visit(w, x, NULL, NULL, false, NULL, &revisit);
}

int warc_write_visit(struct warc_writer *w, const struct warc_exchange *x,
		     const struct warc_capture *prior, const char *prior_uri,
		     bool not_modified, struct warc_capture *out, bool *revisit)
{
	if (!w || !x || !x->target_uri || !x->request || !x->response_head ||
	    (!x->payload && x->payload_len))
		return SC_E_INVAL;
	if (w->broken) {
		errno = EIO;
		return SC_E_IO;
	}
	char date[WARC_DATE_LEN], prior_date[WARC_DATE_LEN];
	int rc = format_date(x->fetched_at, date);
	if (rc)
		return rc;
	if (!uri_ok(x->target_uri) || (x->ip && !ip_ok(x->ip)) ||
	    x->request_len == 0 || x->request_len > WARC_HEAD_MAX ||
	    x->response_head_len == 0 || x->response_head_len > WARC_HEAD_MAX)
		return SC_E_INVAL;
	/* A copy: OUT may be PRIOR, and is written last. */
	struct warc_capture before = { .date = 0 };
	if (prior) {
		if (!prior_uri)
			prior_uri = x->target_uri;
		if (!id_ok(prior->id) || !uri_ok(prior_uri))
			return SC_E_INVAL;
		if ((rc = format_date(prior->date, prior_date)))
			return rc;
		before = *prior;
	}
	if ((rc = rewrite_response_head(&w->head, x->response_head,
					x->response_head_len,
					x->payload_decoded, x->payload_len)) ||
	    (rc = rewrite_request_head(&w->req, x->request, x->request_len)))
		return rc;
	if (x->payload_len > UINT64_MAX / 2 - w->head.len)
		return SC_E_INVAL;

	unsigned char payload_md[20];
	if ((rc = payload_digest(w, x, payload_md)))
		return rc;
	enum visit_kind kind = VISIT_FULL;
	if (prior && not_modified)
		kind = VISIT_NOT_MODIFIED;
	else if (prior && memcmp(payload_md, before.payload_sha1, 20) == 0)
		kind = VISIT_IDENTICAL;

	/* A server-not-modified revisit's payload is the earlier capture's
	 * (ISO 28500:2017, 6.7.3), so is its payload digest. */
	char block[40], payload[40], req_block[40];
	char main_id[WARC_ID_LEN], req_id[WARC_ID_LEN];
	digest_label(kind == VISIT_NOT_MODIFIED ? before.payload_sha1
						: payload_md,
		     payload);
	if ((rc = block_digests(w, x, kind == VISIT_FULL, block, req_block)) ||
	    (rc = record_id(main_id)) || (rc = record_id(req_id)))
		return rc;

	/* A full file is finished before, not after, an exchange: a failure
	 * to finish it is then reported before anything of X is written. */
	if (w->fd >= 0 && w->file_bytes >= w->max_file_bytes &&
	    (rc = file_finish(w)))
		return rc;
	if (w->fd < 0 && (rc = file_start(w)))
		return rc;
	uint64_t start = w->file_bytes;

	/* The response or revisit record; a revisit's block is the head. */
	struct sc_dynbuf *h = &w->hdr;
	const void *body = kind == VISIT_FULL ? x->payload : NULL;
	size_t body_len = kind == VISIT_FULL ? x->payload_len : 0;
	if (!(rc = record_start(h, kind == VISIT_FULL ? "response" : "revisit",
				main_id, date)) &&
	    !(rc = http_fields(h, x, req_id, w->warcinfo_id)) &&
	    kind != VISIT_FULL)
		rc = revisit_fields(h, kind, &before, prior_uri, prior_date);
	if (!rc)
		rc = sc_dyn_printf(
			h,
			"Content-Type: application/http;msgtype="
			"response\r\n"
			"WARC-Block-Digest: %s\r\n"
			"WARC-Payload-Digest: %s\r\n"
			"Content-Length: %llu\r\n\r\n",
			block, payload,
			(unsigned long long)(w->head.len + (uint64_t)body_len));
	if (!rc)
		rc = put_record(w, h, w->head.p, w->head.len, body, body_len);
	if (!rc && !(rc = record_start(h, "request", req_id, date)) &&
	    !(rc = http_fields(h, x, main_id, w->warcinfo_id)))
		rc = sc_dyn_printf(h,
				   "Content-Type: application/http;msgtype="
				   "request\r\n"
				   "WARC-Block-Digest: %s\r\n"
				   "Content-Length: %zu\r\n\r\n",
				   req_block, w->req.len);
	if (!rc)
		rc = put_record(w, h, w->req.p, w->req.len, NULL, 0);
	if (rc) {
		cut_back(w, start);
		return rc;
	}

	if (out && kind == VISIT_FULL) {
		/* Zero-filled past the NUL: the caller may store it as is. */
		memset(out->id, 0, sizeof(out->id));
		strcpy(out->id, main_id);
		out->date = x->fetched_at;
		memcpy(out->payload_sha1, payload_md, 20);
	} else if (out) {
		*out = before;
	}
	if (revisit)
		*revisit = kind != VISIT_FULL;
	return 0;
}

int warc_flush(struct warc_writer *w)
{
	if (!w)
		return SC_E_INVAL;
	if (w->broken) {
		errno = EIO;
		return SC_E_IO;
	}
	if (w->fd < 0)
		return 0;
	int rc = obuf_drain(w);
	if (rc)
		return rc;
	if (fsync(w->fd) != 0)
		return SC_E_IO;
	return sync_dir(w);
}

void warc_mark(const struct warc_writer *w, struct warc_mark *ret)
{
	*ret = (struct warc_mark){ 0 };
	if (w && w->fd >= 0) {
		ret->serial = w->serial;
		ret->offset = w->file_bytes;
		ret->open = true;
	}
}

int warc_cut(struct warc_writer *w, const struct warc_mark *m)
{
	if (!w || !m)
		return SC_E_INVAL;
	if (w->fd >= 0 && m->open && m->serial == w->serial &&
	    m->offset <= w->file_bytes)
		cut_back(w, m->offset);
	if (w->broken) {
		errno = EIO;
		return SC_E_IO;
	}
	return 0;
}

int warc_close(struct warc_writer *w)
{
	if (!w)
		return 0;
	int rc = w->broken ? SC_E_IO : 0;
	if (w->fd >= 0) {
		if (w->broken)
			close(w->fd);
		else
			rc = file_finish(w);
	}
	int saved = errno;
	if (w->dirfd >= 0)
		close(w->dirfd);
	if (w->z_ready)
		deflateEnd(&w->z);
	EVP_MD_CTX_free(w->md_block);
	EVP_MD_CTX_free(w->md_payload);
	free(w->obuf);
	sc_dyn_free(&w->head);
	sc_dyn_free(&w->req);
	sc_dyn_free(&w->hdr);
	sc_dyn_free(&w->info);
	free(w->prefix);
	free(w->software);
	free(w->operator_name);
	free(w->hostname);
	free(w);
	errno = saved;
	return rc;
}
