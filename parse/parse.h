/* parse.h — what a fetched page says: its links, and robots.txt rules.
 *
 * Synchronous and loop-free: every function works on bytes already in
 * memory and does no I/O.  There is no global state; all functions are
 * thread-safe, and a struct parse_robots may be shared by any number of
 * threads for robots_allowed() once it is built.
 *
 * Uses normalize/ (every reported link went through norm_url()) and
 * gumbo-parser (HTML5 tree construction, as browsers do it).
 */
#ifndef PARSE_H
#define PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "normalize.h"
#include "sc.h"

/* ---- HTML links ------------------------------------------------------ */

/* The longest title kept, in bytes, without its NUL; longer titles are cut
 * at a UTF-8 character boundary. */
#define PARSE_TITLE_MAX 512

/* At most this many links are reported per page; further distinct links
 * are counted in parse_page.links_dropped. */
#define PARSE_LINKS_MAX 10000

/* Where a link was found. */
enum parse_link_kind {
	PARSE_LINK_A,       /* <a href> */
	PARSE_LINK_AREA,    /* <area href> */
	PARSE_LINK_LINK,    /* <link href>, any rel (see parse_link.rel) */
	PARSE_LINK_FRAME,   /* <frame src> */
	PARSE_LINK_IFRAME,  /* <iframe src> */
	PARSE_LINK_REFRESH, /* <meta http-equiv=refresh content="N; url=..."> */
};

/* Bits of parse_link.rel: the rel tokens the crawler may act on (matched
 * case-insensitively, as HTML does). */
enum parse_rel {
	PARSE_REL_NOFOLLOW = 1u << 0,
	PARSE_REL_CANONICAL = 1u << 1,
	PARSE_REL_ALTERNATE = 1u << 2,
	PARSE_REL_STYLESHEET = 1u << 3,
	PARSE_REL_ICON = 1u << 4, /* "icon", also in "shortcut icon" */
};

/* One extracted link, as passed to a parse_link_fn.  Every pointer is
 * borrowed and valid only during that call. */
struct parse_link {
	const char *url;          /* normalized, NUL-terminated */
	const struct norm_url *u; /* its components (offsets into url) */
	uint8_t kind;             /* enum parse_link_kind */
	uint8_t rel;              /* enum parse_rel bits of the element */
	/* Not to be followed: rel=nofollow on the element, or a
	 * <meta name=robots> nofollow/none anywhere in the page. */
	uint8_t nofollow;
};

/* Called once per distinct link.  A nonzero return stops the parse, and
 * parse_html() returns that value. */
typedef int (*parse_link_fn)(void *ctx, const struct parse_link *l);

/* What parse_html() learned about the page besides its links.  Counts are
 * of link attributes found (href, src, refresh content). */
struct parse_page {
	/* Text of the first <title>, white space collapsed and trimmed, cut
	 * to PARSE_TITLE_MAX bytes at a character boundary; "" if none. */
	char title[PARSE_TITLE_MAX + 1];
	/* The first <link rel=canonical href> that normalizes, under the
	 * caller's options. */
	char canonical[NORM_URL_MAX + 1];
	bool has_canonical;
	bool noindex;       /* <meta name=robots content=noindex or none> */
	bool nofollow;      /* <meta name=robots content=nofollow or none> */
	bool has_base;      /* a <base href> set the base URL */
	unsigned links_ok;  /* reported to the callback */
	unsigned links_dup; /* same normalized URL as one reported */
	unsigned links_dropped; /* not duplicates, but PARSE_LINKS_MAX were
				 * reported already */
	unsigned links_bad;     /* failed to normalize; never fatal */
	/* links_bad by error: links_bad_by_code[-code] for an sc_err code
	 * (SC_E_SCHEME is the usual one: mailto:, javascript:). */
	unsigned links_bad_by_code[32];
};

/* Extract the links of an HTML page.
 *
 * html, len:     the body, assumed UTF-8 (charset conversion is the
 *                caller's business); need not be NUL-terminated.  The
 *                work is linear in len for real pages, and memory is a
 *                small multiple of len: bounding len (max_body_bytes) is
 *                the caller's business.  Hostile nesting cannot overflow
 *                the C stack: no step recurses.
 * page_url, page_url_len: the absolute URL the page was fetched from
 *                (after redirects); relative links and <base href>
 *                resolve against it.
 * opts:          the normalization applied to every link (norm_url()).
 * fn, ctx:       called once per distinct normalized link, in document
 *                order, at most PARSE_LINKS_MAX times; fn may be NULL.
 * ret:           filled on return 0 and on a stop by fn.
 *
 * Links are deduplicated per call by a 64-bit hash of the normalized URL
 * (a false merge needs a hash collision within one page).  A URL first
 * seen with nofollow and later without it is reported a second time, with
 * nofollow 0, so that a followable occurrence is never lost.
 *
 * Not links: the contents of <template>, <script>, <style> and
 * <noscript> (gumbo parses the latter with scripting on, as browsers do),
 * and elements outside the HTML namespace (SVG, MathML).
 *
 * Returns 0; the nonzero value fn returned; the error of norm_base_set()
 * when page_url is not a valid absolute URL; SC_E_INVAL on NULL
 * arguments; SC_E_NOMEM when memory ran out or the parse needed more than
 * 64 MiB plus 32 times len; SC_E_LIMIT when building the tree took more
 * than 5 s of the thread's CPU time (hostile nesting: gumbo 0.10 has no
 * depth limit, and some tags cost time proportional to the depth).  On
 * SC_E_NOMEM and SC_E_LIMIT no link was reported. */
SC_WUR int parse_html(const char *html, size_t len, const char *page_url,
		      size_t page_url_len, const struct norm_opts *opts,
		      parse_link_fn fn, void *ctx, struct parse_page *ret);

/* ---- robots.txt (RFC 9309) ------------------------------------------- */

/* Only this much of a robots.txt is parsed (RFC 9309 §2.5: at least 500
 * KiB); the rest, and a line cut by the limit, are ignored. */
#define PARSE_ROBOTS_MAX_BYTES (500 * 1024)

/* Crawl-delay values above this are clamped to it. */
#define PARSE_ROBOTS_DELAY_MAX_MS 60000u

/* The rules of one robots.txt for one user agent.  Opaque and immutable
 * once built. */
struct parse_robots;

/* Parse a robots.txt for the crawler whose product token is agent_token
 * ("sigcrawl" for "sigcrawl/0.1.0").
 *
 * The groups whose user-agent lines name agent_token (case-insensitively,
 * comparing the leading product token of the line: "SigCrawl/2.0" names
 * "sigcrawl") are merged into one, and only when there is none the groups
 * of "*" are merged instead (RFC 9309 §2.2.1).  Only the rules of that
 * group are kept.  No matching group at all allows everything.
 *
 * txt, len:    the body as fetched; need not be NUL-terminated.
 * agent_token: NUL-terminated product token, not empty; anything after
 *              its leading letters, digits, '_' and '-' is ignored, so
 *              the whole user agent "sigcrawl/0.1.0" may be passed.  A
 *              token of none of those characters matches only "*".
 * ret:         receives the rules, owned by the caller
 *              (parse_robots_free()); set only on success.
 *
 * Returns 0, SC_E_INVAL (NULL or empty arguments) or SC_E_NOMEM. */
SC_WUR int parse_robots(const char *txt, size_t len, const char *agent_token,
			struct parse_robots **ret);

/* Rules that allow every path: for a robots.txt answered 4xx (RFC 9309
 * §2.3.1.3).  Returns 0 or SC_E_NOMEM; *ret as for parse_robots(). */
SC_WUR int parse_robots_allow_all(struct parse_robots **ret);

/* Rules that disallow every path: for a robots.txt answered 5xx or not
 * reachable (RFC 9309 §2.3.1.4).  Returns 0 or SC_E_NOMEM. */
SC_WUR int parse_robots_disallow_all(struct parse_robots **ret);

/* May the path be fetched?
 *
 * path_query, len: the path and query of the URL ("/a/b?c=d"), as
 * norm_url() wrote them; "" counts as "/".  The longest matching rule
 * decides, counted in octets of the rule after percent-encoding is made
 * canonical; on equal length Allow wins; no match allows.  "/robots.txt"
 * is always allowed.  Work is at most the sum of the rule lengths times
 * len. */
bool parse_robots_allowed(const struct parse_robots *r, const char *path_query,
			  size_t len);

/* The group's Crawl-delay in milliseconds (decimal seconds allowed,
 * clamped to PARSE_ROBOTS_DELAY_MAX_MS), or 0 when it gave none. */
uint32_t parse_robots_crawl_delay_ms(const struct parse_robots *r);

/* The i-th Sitemap line's URL (of any group; at most 64 are kept), or NULL
 * past the last.  Borrowed: valid until parse_robots_free(r). */
const char *parse_robots_sitemap(const struct parse_robots *r, size_t i);

/* Free rules; NULL is allowed. */
void parse_robots_free(struct parse_robots *r);

#endif
