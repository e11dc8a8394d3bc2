/* warc.h — WARC 1.1 files of the crawl's exchanges (ISO 28500:2017).
 *
 * The writer of `[store] warc = yes`.  It is independent of LMDB and of
 * the rest of the store: it only writes files into a directory the caller
 * names (the crawler gives it STORE/warc).
 *
 * Errors: every function that can fail returns 0 or a negative sc_err
 * code. */
#ifndef WARC_H
#define WARC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sc.h"

/* ---- The writer -------------------------------------------------------
 *
 * A WARC writer appends each fetch as two records, a `response` (or, for
 * a re-crawl that found nothing new, a `revisit`: see warc_write_visit())
 * and a `request` (application/http;msgtype=response and msgtype=request,
 * linked both ways by WARC-Concurrent-To), to the file
 * PREFIX-TIME-NNNNN.warc.gz
 * in its directory: TIME is the UTC time the file was started, as
 * YYYYMMDDhhmmssmmm, and NNNNN counts the files of this writer from 00000.
 * Each file begins with a `warcinfo` record.  Every record is its own gzip
 * member, so an index of (file, offset, length) can seek to one record and
 * inflate it alone.
 *
 * A file is written under its name plus ".open" and renamed to its final
 * name when it is finished, so a reader that takes only *.warc.gz never
 * sees a partial file.  A file is finished when it has passed
 * max_file_bytes (checked after each exchange, so an exchange is never split
 * between files and a file may exceed the limit by one exchange) and by
 * warc_close().  A file is started lazily by the first exchange written to
 * it: a writer that writes nothing leaves no file.  One directory and prefix
 * belong to one writer at a time.  After a crash, a *.warc.gz.open file
 * holds every record up to the last warc_flush(), possibly followed by a
 * partial gzip member; nothing renames or repairs it.
 *
 * What the response record holds.  libcurl removes the chunked framing of
 * a body and, when the crawler asks it to, decodes gzip, deflate or br;
 * the payload handed to warc_write_exchange() is then no longer the bytes
 * the headers describe.  So that the record stays a valid HTTP message
 * whose headers describe its payload, the received header block is
 * rewritten:
 *   - Transfer-Encoding is always removed (the payload is never chunked);
 *   - Content-Encoding is removed when payload_decoded is set;
 *   - Content-Length is replaced by the payload's length when a header
 *     above was removed, or when it does not equal that length (a body cut
 *     at max_body_bytes);
 * and every header removed or replaced is kept as
 * X-Sigcrawl-Original-<Name>: <value>.  Other headers are kept byte for
 * byte.  Lines ending in a bare LF are written with CRLF.  If the head holds
 * several responses (an interim 100 Continue before the final one), only
 * the last is kept.  WARC-Payload-Digest is the SHA-1 of the payload as
 * stored, WARC-Block-Digest that of the whole block (rewritten head and
 * payload), both as "sha1:" and 32 RFC 4648 base32 digits.
 *
 * Nothing the network controls can break the record framing: every record
 * has an exact Content-Length; the target URI must be printable ASCII
 * without spaces; the IP address must parse as one; header blocks are
 * bounded (WARC_HEAD_MAX) and may not contain NUL or a CR outside a CRLF.
 *
 * The writer is not thread-safe: one thread (the crawler's writer thread)
 * uses it. */

struct warc_writer;

/* The largest request or response header block accepted, as received. */
#define WARC_HEAD_MAX (64u * 1024)

/* The longest target URI accepted. */
#define WARC_URI_MAX 8192

/* The length of a WARC-Record-ID as this writer makes them
 * ("<urn:uuid:...>"), with its NUL. */
#define WARC_ID_LEN 64

/* The WARC-Profile of the two kinds of `revisit` record written
 * (ISO 28500:2017, 6.7.2 and 6.7.3). */
#define WARC_PROFILE_IDENTICAL_PAYLOAD_DIGEST                                  \
	"http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
#define WARC_PROFILE_SERVER_NOT_MODIFIED                                       \
	"http://netpreserve.org/warc/1.1/revisit/server-not-modified"

/* Options of warc_open().  Strings are copied; NULL or 0 selects the
 * default. */
struct warc_opts {
	const char *prefix;        /* file name prefix: 1..64 of [A-Za-z0-9._-];
				      default "sigcrawl" */
	uint64_t max_file_bytes;   /* finish a file once it has passed this
				      many (compressed) bytes; default 1 GiB */
	const char *software;      /* warcinfo "software"; default
				      "sigcrawl/" SC_VERSION */
	const char *operator_name; /* warcinfo "operator"; optional */
	const char *hostname; /* warcinfo "hostname"; default gethostname() */
};

/* One fetch: what was sent and what came back.  Every pointer is borrowed
 * for the call only. */
struct warc_exchange {
	const char *target_uri; /* the URL fetched, NUL-terminated */
	int64_t fetched_at;     /* unix time in milliseconds (WARC-Date) */
	const char *ip;         /* the server's address as text, or NULL */
	const void *request;    /* request line and headers as sent */
	size_t request_len;
	const void *response_head; /* status line and headers as received */
	size_t response_head_len;
	const void *payload; /* the body as handed over by libcurl */
	size_t payload_len;
	bool payload_decoded; /* libcurl removed a Content-Encoding */
};

/* A full capture (a response record) that later visits of the same URL
 * may refer to.  The caller keeps it (the crawler in its store) between
 * crawls; the writer only fills it (warc_write_visit()'s OUT) and reads
 * it (PRIOR). */
struct warc_capture {
	char id[WARC_ID_LEN];           /* its WARC-Record-ID, NUL-terminated */
	int64_t date;                   /* its WARC-Date, unix ms */
	unsigned char payload_sha1[20]; /* SHA-1 of its payload as stored */
};

/* Prepares a writer for the directory DIR, created with mode 0750 if it
 * does not exist; files are created with mode 0640.  O may be NULL for every
 * default.  No file is created until the first exchange.  Returns 0 and
 * sets *ret (free it with warc_close()), or SC_E_INVAL (NULL DIR, a bad
 * prefix, a string option with a control character), SC_E_IO (DIR cannot
 * be created or is not a writable directory; errno says why) or
 * SC_E_NOMEM. */
int warc_open(const char *dir, const struct warc_opts *o,
	      struct warc_writer **ret) SC_WUR;

/* Appends X as a response and a request record, starting a new file
 * first if none is open (warc_write_visit() without a PRIOR).  The payload is
 * read three times (its digest, the block's, then deflate) and never
 * copied.  Returns 0, SC_E_INVAL
 * (NULL argument; a target URI empty, longer than WARC_URI_MAX or with a byte
 * outside 0x21..0x7e; an IP address that does not parse; a header block empty,
 * longer than WARC_HEAD_MAX, with a NUL, a bare CR, or (for the request)
 * more than one message, or a response head whose last message does not
 * begin with "HTTP/"), SC_E_NOMEM, or SC_E_IO (writing failed; errno says
 * why).  Nothing is written on SC_E_INVAL.  After SC_E_IO the writer cuts
 * the file back to its last whole record; if even that fails, every later
 * call returns SC_E_IO. */
int warc_write_exchange(struct warc_writer *w, const struct warc_exchange *x)
	SC_WUR;

/* Like warc_write_exchange(), for a visit of a URL captured before.
 * PRIOR (may be NULL: then exactly warc_write_exchange()) is the earlier
 * capture and PRIOR_URI its WARC-Target-URI (NULL: X's target_uri).
 *  - NOT_MODIFIED (the server answered 304 to a conditional request) and
 *    PRIOR set: a `revisit` record with WARC-Profile
 *    http://netpreserve.org/warc/1.1/revisit/server-not-modified, whose
 *    block is the response's (rewritten) head only;
 *  - else, PRIOR set and the SHA-1 of X's payload equals
 *    PRIOR->payload_sha1: a `revisit` record with WARC-Profile
 *    http://netpreserve.org/warc/1.1/revisit/identical-payload-digest,
 *    WARC-Payload-Digest of the payload, block = the response head only
 *    (and WARC-Truncated: length, as Heritrix writes it);
 *  - else a full `response` record as warc_write_exchange() writes.
 * A revisit record carries WARC-Refers-To (PRIOR->id),
 * WARC-Refers-To-Target-URI and WARC-Refers-To-Date (PRIOR->date), and
 * is followed by its `request` record, linked both ways by
 * WARC-Concurrent-To as for responses.  *REVISIT says which was written;
 * OUT (may be NULL) receives the capture later visits should refer to:
 * the new response's identity after a full response, a copy of *PRIOR
 * after a revisit.  Returns as warc_write_exchange().
 *
 * Details.  The head in a revisit's block is rewritten as for a response
 * (so its Content-Length is that of X's payload, which the block leaves
 * out).  WARC-Block-Digest is the SHA-1 of that block, the head.  A
 * server-not-modified revisit has no WARC-Truncated (nothing the server
 * sent is left out; X's payload, normally empty after a 304, is not
 * stored) and its WARC-Payload-Digest is PRIOR->payload_sha1: WARC 1.1
 * defines its payload as the earlier capture's.  A revisit refers to
 * PRIOR even if PRIOR was written to another file or another crawl; the
 * writer does not check that it exists.  *REVISIT and *OUT are set only
 * on success; OUT may be PRIOR itself.  REVISIT may be NULL.  Besides
 * warc_write_exchange()'s errors, SC_E_INVAL (nothing written) when PRIOR
 * is set and its id is empty, not NUL-terminated within WARC_ID_LEN or
 * has a byte outside 0x21..0x7e, its date is before 1970 or after 9999,
 * or PRIOR_URI is not a valid target URI. */
int warc_write_visit(struct warc_writer *w, const struct warc_exchange *x,
		     const struct warc_capture *prior, const char *prior_uri,
		     bool not_modified, struct warc_capture *out, bool *revisit)
	SC_WUR;

/* Makes every record written so far durable: fflush() and fsync() of the
 * open file (and of the directory, once per new file).  The crawler calls
 * it before each LMDB commit, so a committed page has its records on disk.
 * Returns 0 or SC_E_IO. */
int warc_flush(struct warc_writer *w) SC_WUR;

/* A place in the open file, to cut back to (warc_cut()). */
struct warc_mark {
	unsigned serial; /* of the file */
	uint64_t offset;
	bool open;
};

/* Where the next record would go. */
void warc_mark(const struct warc_writer *w, struct warc_mark *ret);

/* Drops every record written since MARK, when the file it was taken in is
 * still the open one (a batch that failed: its records are not left in
 * the file as if they were kept).  Records already in an earlier, closed
 * file stay there: whole records nothing refers to.  Returns 0, or
 * SC_E_IO when the file could not be cut (the writer then refuses every
 * further write). */
int warc_cut(struct warc_writer *w, const struct warc_mark *m) SC_WUR;

/* Finishes the open file (flush, fsync, rename to its final name, fsync of
 * the directory) and frees W.  NULL is accepted.  Returns 0, or SC_E_IO if
 * finishing failed: W is freed either way, and the file keeps its ".open"
 * name. */
int warc_close(struct warc_writer *w);

#endif
