/* sc.h — definitions shared by every sigcrawl module.
 *
 * This header is the one thing below normalize/: it holds the project-wide
 * error enum and its messages, the way LMDB keeps every MDB_* code in one
 * place, the URL key, the byte helpers and the bounded growable buffer.
 * It keeps no state; its one dependency is libxxhash (the URL key). */
#ifndef SC_H
#define SC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define SC_WUR __attribute__((warn_unused_result))
#define SC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SC_WUR
#define SC_PRINTF(f, a)
#endif

/* Every function of the project that can fail returns 0 or one of these
 * negative codes.  The numbers are part of no file format; compare names. */
enum sc_err {
	SC_OK = 0,
	/* URL parsing and normalization (normalize/) */
	SC_E_EMPTY = -1,  /* nothing left after trimming */
	SC_E_SCHEME = -2, /* a scheme other than http or https */
	SC_E_NOHOST = -3, /* http(s) URL with an empty host */
	SC_E_PORT = -4,   /* port not a number in 0..65535 */
	SC_E_HOST_PERCENT =
		-5,          /* '%' in the host not followed by 2 hex digits */
	SC_E_IPV6 = -6,      /* malformed [IPv6] literal */
	SC_E_IDN = -7,       /* host rejected by IDNA (UTS #46) */
	SC_E_TOOLONG = -8,   /* longer than NORM_URL_MAX after normalization */
	SC_E_HOST = -9,      /* forbidden character in host, bad IPv4 */
	SC_E_RELATIVE = -10, /* relative reference and no base URL */
	SC_E_STEP = -11,     /* unknown normalization step or profile name */
	/* general */
	SC_E_NOMEM = -20,    /* out of memory */
	SC_E_INVAL = -21,    /* invalid argument */
	SC_E_NOSPC = -22,    /* caller's buffer too small */
	SC_E_IO = -23,       /* read or write failed; see errno */
	SC_E_DB = -24,       /* LMDB failed (store_strerror() says how) */
	SC_E_NOTFOUND = -25, /* no such record */
	SC_E_CORRUPT = -26,  /* a stored value failed to decode */
	SC_E_AGAIN = -27,    /* nothing to do now; try again later */
	SC_E_LIMIT = -28,    /* input needs more work than a parser allows */
	SC_E_PROFILE = -29,  /* the store's keys were made with another
				normalization (crawler/learn/learn.h) */
	SC_E_FULL = -30,     /* the store's database is full (LMDB's
				MDB_MAP_FULL) */
	/* cluster/ */
	SC_E_NET = -31,     /* the NATS servers are unreachable or refused
			       a request (cluster_last_error() says how) */
	SC_E_TIMEOUT = -32, /* no answer within the time allowed */
	SC_E_FORMAT = -33,  /* the store was written in a format this version
			       does not read (a newer sigcrawl's) */
};

/* A static, human-readable message for an sc_err code (never NULL). */
const char *sc_strerror(int err);

/* The key of a URL in the LMDB databases of the project (records, the
 * re-crawl schedule, the learner's tables; the frontier's seen set builds
 * its own from it, frontier/frontier.c): XXH3-128 of the normalized URL,
 * big-endian, so that LMDB's byte order is the hash's order.  128 bits make a
 * collision among 10^10 URLs about 10^-19 likely, so keys are trusted without
 * comparing URLs; and LMDB keys cannot hold a 2048-byte URL anyway (511 bytes
 * at most). */
#define SC_KEY_LEN 16
void sc_url_key(const char *url, size_t len, unsigned char key[SC_KEY_LEN]);

/* The most bytes of a robots.txt that are fetched, kept and parsed (RFC
 * 9309 §2.5 asks for at least 500 KiB): one bound for the crawler's
 * transfer, the store's cache and the parser, which ignores the rest and
 * the line the bound cuts. */
#define SC_ROBOTS_MAX_BYTES (500 * 1024)

/* ---- Allocation -------------------------------------------------------- */

/* malloc(), calloc() and realloc() of the modules that test every
 * allocation failure (parse/ so far): the same, except that a test may
 * make one of them fail.  Free with free(). */
void *sc_malloc(size_t n);
void *sc_calloc(size_t n, size_t size);
void *sc_realloc(void *p, size_t n);

/* Tests: the n-th sc_*alloc() call from now on this thread returns NULL
 * (0: none), as curl's torture tests do; sc_alloc_fail_pending() says
 * whether that call has not come yet, i.e. the code under test finished
 * without reaching it. */
void sc_alloc_fail_nth(unsigned long n);
bool sc_alloc_fail_pending(void);

/* ---- Bytes: big-endian integers in stored values, hex digits ---- */

/* Big-endian, so that LMDB's byte order of keys is their numeric order and
 * a store reads the same on every machine. */
static inline void put_be16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

static inline void put_be32(unsigned char *p, uint32_t v)
{
	for (int i = 3; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

static inline void put_be64(unsigned char *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

static inline uint16_t get_be16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t get_be64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* ---- A bounded growable buffer ------------------------------------------
 *
 * Bytes appended at the end, always followed by a NUL (so the text is a C
 * string when it holds none), with a cap fixed at init: the length always
 * stays below toobig, so no input, however large or hostile, grows one
 * further.  The model is curl's dynbuf.  A failed append (SC_E_LIMIT past
 * the cap, SC_E_NOMEM) frees what the buffer held and is remembered: every
 * later append returns the same code and does nothing until sc_dyn_reset()
 * or sc_dyn_free(), so a caller that builds a string in many steps may
 * check once at the end (sc_dyn_error()); that is why the appends, unlike
 * sc_dyn_reserve(), may be called without looking at what they return.
 * Zero-filling a struct sc_dynbuf
 * is not an init: toobig would be 0.  Memory comes from sc_realloc(), so
 * the allocation-failure tests of its users reach it. */
struct sc_dynbuf {
	char *p;       /* the bytes and a NUL; NULL until the first append */
	size_t len;    /* bytes held, the NUL not counted */
	size_t cap;    /* bytes allocated */
	size_t toobig; /* len always stays below it */
	int err;       /* the first failure since the last reset, or 0 */
};

/* An empty buffer whose length must stay below TOOBIG (at least 1);
 * nothing is allocated. */
void sc_dyn_init(struct sc_dynbuf *b, size_t toobig);

/* Appends N bytes at DATA (which may be NULL when N is 0).  Returns 0,
 * SC_E_LIMIT (the length would reach toobig), SC_E_NOMEM, or the code of
 * an earlier failure. */
int sc_dyn_add(struct sc_dynbuf *b, const void *data, size_t n);

/* Appends the NUL-terminated S; as sc_dyn_add(). */
int sc_dyn_add_str(struct sc_dynbuf *b, const char *s);

/* Appends the text printf() would make; as sc_dyn_add(), and SC_E_INVAL
 * when vsnprintf() fails. */
int sc_dyn_printf(struct sc_dynbuf *b, const char *fmt, ...) SC_PRINTF(2, 3);

/* Makes room for N more bytes and the NUL without changing the length,
 * for a caller that writes at p + len and then calls sc_dyn_setlen().
 * Returns as sc_dyn_add(). */
int sc_dyn_reserve(struct sc_dynbuf *b, size_t n) SC_WUR;

/* Sets the length to LEN, which must lie within the room made by the
 * last sc_dyn_reserve() or append, and writes the NUL after it. */
void sc_dyn_setlen(struct sc_dynbuf *b, size_t len);

/* The first failure since the last reset (0 for none). */
static inline int sc_dyn_error(const struct sc_dynbuf *b)
{
	return b->err;
}

/* Empties the buffer and forgets a failure; the memory is kept for
 * reuse. */
void sc_dyn_reset(struct sc_dynbuf *b);

/* Frees the memory and empties the buffer (toobig is kept, so it may be
 * used again).  The bytes can be taken instead: copy p and set it to NULL
 * before the call. */
void sc_dyn_free(struct sc_dynbuf *b);

/* Write n bytes as 2n lower-case hex digits and a NUL into out (2n + 1
 * bytes).  Returns out. */
char *sc_hex(const unsigned char *bytes, size_t n, char *out);

/* A category's name, the one rule of the config, the control API and
 * the cluster's link batches: 1..max bytes of A-Z a-z 0-9 . _ -. */
bool sc_category_name_ok(const char *s, size_t n, size_t max);

/* The soft descriptor limit (RLIMIT_NOFILE) raised to the hard one, as
 * systemd advises for programs that do not use select(), at most 2^20
 * (what the kernel takes by default, fs.nr_open).  Returns the soft limit
 * now, ULLONG_MAX when unlimited, 0 when it cannot be read; *raised_from
 * (may be NULL) is the limit before when it was raised, else 0. */
unsigned long long sc_raise_nofile(unsigned long long *raised_from);

#endif
