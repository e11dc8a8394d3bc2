/* urlgen.h — a deterministic generator of realistic links, for tests and
 * benchmarks of normalize/.
 *
 * The generator imitates what a crawler extracts from real pages: it picks
 * a "page" (an absolute base URL on one of a few hundred hosts) and then
 * emits 20 to 40 links found on it, so that bases repeat in runs exactly as
 * they do when a page is parsed.  Links are a mix of absolute URLs and
 * relative references of every RFC 3986 form, written with the sloppiness
 * found in the wild: mixed case, explicit default ports, dot segments,
 * escapes in both hex cases, stray '%', spaces, non-ASCII UTF-8, IDN hosts,
 * IP literals, tracking and session parameters, white space around and
 * inside.  About 1.5 % of the links are invalid or not http(s), so that
 * error paths are exercised too.
 *
 * The same seed always gives the same sequence, on every platform: the
 * generator uses its own PRNG (splitmix64), never rand().  It never
 * allocates.
 */
#ifndef URLGEN_H
#define URLGEN_H

#include <stddef.h>
#include <stdint.h>

/* A buffer of this size holds any link or base the generator writes
 * (the few deliberately over-long links are below 4000 bytes). */
#define URLGEN_MAX 4096

/* The state of one generator.  Plain data: it may be copied to replay a
 * sequence from a given point. */
struct urlgen {
	uint64_t seed;       /* fixes the host table */
	uint64_t state;      /* splitmix64 state */
	unsigned links_left; /* links still to come from the current page */
	unsigned page_host;  /* host index of the current page */
	unsigned page_https; /* the current page's scheme */
	size_t base_len;
	char base[URLGEN_MAX]; /* the current page's absolute URL */
};

/* Start a sequence.  Any seed is fine; equal seeds give equal sequences. */
void urlgen_init(struct urlgen *g, uint64_t seed);

/* Write the next link into buf (at most cap - 1 bytes and a NUL; a link
 * longer than that is cut, so pass URLGEN_MAX).
 *
 * base_out receives NULL when the link is an absolute URL (or an invalid
 * or non-http link, which needs no base either), or the absolute URL of
 * the page the link was found on when it is a relative reference.  That
 * string is owned by the generator and stays valid and unchanged until a
 * later call starts a new page; compare it by content, not by pointer.
 *
 * Returns the length written to buf (the link may contain any byte except
 * NUL). */
size_t urlgen_next(struct urlgen *g, char *buf, size_t cap,
		   const char **base_out);

/* A corpus generated up front, so that measured or checked loops do not
 * include the generator's time.  Bases are stored once per page, so
 * "the page changed" is an offset comparison. */
struct urlgen_link {
	size_t off, len;           /* the link, in text */
	size_t base_off, base_len; /* its page's URL; base_len 0: no base */
};

struct urlgen_corpus {
	char *text; /* NUL-terminated strings, one after the other */
	size_t used, cap;
	struct urlgen_link *links;
	size_t n, n_relative, n_pages;
};

/* Generate count links from seed into c (absolute links only if
 * absolute_only).  Exits the process with status 99 if out of memory:
 * this is test and benchmark code. */
void urlgen_corpus_build(struct urlgen_corpus *c, uint64_t seed, size_t count,
			 int absolute_only);

void urlgen_corpus_free(struct urlgen_corpus *c);

/* A uniformly distributed number below n (n > 0) from the generator's
 * PRNG; handy for callers that want reproducible choices of their own. */
uint32_t urlgen_below(struct urlgen *g, uint32_t n);

#endif
