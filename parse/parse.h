/* parse.h — what a fetched page says: its links, robots.txt rules, and
 * the URLs of a sitemap.
 *
 * Synchronous and loop-free: every function works on bytes already in
 * memory and does no I/O.  There is no global state of ours (libxml2's
 * one-time initialization aside, see parse_sitemap()); all functions are
 * thread-safe, and a struct parse_robots may be shared by any number of
 * threads for robots_allowed() once it is built.
 *
 * Uses normalize/ (every reported link went through norm_url()),
 * gumbo-parser (HTML5 tree construction, as browsers do it), libxml2's
 * SAX2 parser (sitemaps) and zlib (gzip sitemaps).
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
	/* A link to another page of the site's own navigation: next, prev,
	 * previous, search, index, contents, up, first, last, start, help,
	 * glossary (HTML's hyperlink link types and HTML 4's, which
	 * document generators such as Sphinx chain their pages with); not
	 * set when the element's type names something other than HTML (an
	 * OpenSearch description, a feed). */
	PARSE_REL_NAV = 1u << 5,
	/* rel=alternate with no hreflang and a type that is not a feed
	 * (none, text/html, text/plain, an oEmbed): another format of this
	 * very page (a printable or plain-text version, a wiki's export),
	 * where a translation names its language and a feed its type. */
	PARSE_REL_FORMAT = 1u << 6,
};

/* One extracted link, as passed to a parse_link_fn.  Every pointer is
 * borrowed and valid only during that call. */
struct parse_link {
	const char *url;          /* normalized, NUL-terminated */
	const struct norm_url *u; /* its components (offsets into url) */
	/* The same link as written in the page, made absolute against the
	 * page's base (norm_as_found; url when that form does not fit
	 * NORM_URL_MAX): the first occurrence's, as the one reported.
	 * NUL-terminated. */
	const char *found;
	size_t found_len;
	uint8_t kind; /* enum parse_link_kind */
	uint8_t rel;  /* enum parse_rel bits of the element */
	/* Not to be followed: rel=nofollow on the element, or a
	 * <meta name=robots> nofollow/none anywhere in the page. */
	uint8_t nofollow;
	/* A link a crawler follows: not nofollow, and not a <link> other
	 * than rel=canonical, rel=alternate or a navigation rel
	 * (PARSE_REL_NAV: Sphinx's search page is linked only so); style
	 * sheets, icons and metadata such as rel=author are not pages of
	 * the site's own navigation, the <a> that names the same URL is. */
	uint8_t follow;
	/* With keywords (parse_doc_opts.keywords): how many distinct
	 * keywords the link itself shows: in its text (anchor, below) and
	 * in the words of its URL's path and query, the evidence a focused
	 * crawler has before fetching it; a keyword its URL shows counts
	 * only if the page's own URL does not show it too (a page's links
	 * to itself, its edit or history page, name it in their URLs:
	 * /w/index.php?action=edit&title=Striker_goal from
	 * /wiki/Striker_goal shows nothing new).  0 without keywords. */
	uint8_t hits;
	/* With keywords: the link's text, white space as found, not
	 * terminated: the text of its <a> or the alt of its <area> (at most
	 * PARSE_ANCHOR_TEXT_MAX bytes), its title attribute (as much), then
	 * the words just before it, in its parent back to the previous link
	 * (the teaser of a "Read more"; nearest first, to
	 * PARSE_ANCHOR_MAX bytes in all).  Empty without keywords. */
	const char *anchor;
	size_t anchor_len;
};

/* The most text read for parse_link.anchor, and for its anchor and its
 * title attribute each. */
#define PARSE_ANCHOR_MAX 512
#define PARSE_ANCHOR_TEXT_MAX 192

/* Called once per distinct link, and once more for a link first seen
 * where it is not to be followed (follow 0) when a later occurrence is
 * (follow 1): so a <link rel=author href=about.html> in the head never
 * hides the <a href=about.html> of the body.  A nonzero return stops the
 * parse, and parse_html() returns that value. */
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
	/* <meta name=robots content=noindex or none>, or the same under
	 * parse_doc_opts.robots_agent's name; nofollow likewise. */
	bool noindex;
	bool nofollow;
	bool has_base;          /* a <base href> set the base URL */
	unsigned links_ok;      /* reported to the callback */
	unsigned links_dup;     /* same normalized URL as one reported */
	unsigned links_dropped; /* not duplicates, but PARSE_LINKS_MAX were
				 * reported already */
	unsigned links_bad;     /* failed to normalize; never fatal */
	/* links_bad by error: links_bad_by_code[-code] for an sc_err code
	 * (SC_E_SCHEME is the usual one: mailto:, javascript:). */
	unsigned links_bad_by_code[32];

	/* Filled by parse_document() only (zero after parse_html()). */
	char charset[16];           /* WHATWG name of the charset used: "UTF-8",
				     * "windows-1252", "Shift_JIS", ... */
	uint8_t charset_from;       /* enum parse_charset_from */
	bool charset_converted;     /* iconv converted the body to UTF-8 */
	bool charset_fallback;      /* unknown label or failed conversion: the
				     * body was read as UTF-8 */
	bool text_empty;            /* the body text has no words */
	uint64_t text_bytes;        /* length of the whole body text */
	uint64_t text_words;        /* its words (as SimHash counts them) */
	unsigned char md5[16];      /* PARSE_MD5 */
	unsigned char md5_size[16]; /* PARSE_MD5_SIZE */
	uint64_t simhash;           /* PARSE_SIMHASH */
	/* The page's images: a hash of its <img src> values as written,
	 * whatever their order (0: none).  Two pages of one text whose
	 * images differ (a gallery's photos) are different pages for the
	 * learned rules, which the text signature alone cannot tell. */
	uint64_t media;
	bool has_relevance; /* popts->keywords had a keyword */
	double relevance;   /* 0.0..1.0, see parse_keywords_new() */
	size_t n_words;     /* distinct words in popts->words */
};

/* What an X-Robots-Tag header value says (Google's and Bing's
 * documented syntax): bits PARSE_ROBOTS_NOINDEX and PARSE_ROBOTS_NOFOLLOW
 * ("none" is both), from directives separated by commas or white space,
 * in any case.  A value that starts with a user agent's name and a colon
 * ("otherbot: noindex") is for that agent only: it counts only when the
 * name is agent_token (any case) and is ignored otherwise; directives
 * that take a value of their own ("unavailable_after: DATE",
 * "max-snippet: 0") are no such name.  agent_token may be NULL (no
 * agent-specific value counts).  0 for NULL. */
#define PARSE_ROBOTS_NOINDEX 1u
#define PARSE_ROBOTS_NOFOLLOW 2u
unsigned parse_robots_tag(const char *value, const char *agent_token);

/* The target of the first link of an HTTP Link header value (RFC 8288)
 * whose rel names "canonical": "<URI>; rel=canonical", among several
 * links separated by commas, with rel quoted or not, a list of relation
 * types ("canonical alternate"), in any case, and other parameters
 * before or after it.  The target is copied as written (it may be
 * relative: resolve it against the request URL) into out, NUL-terminated.
 * At most PARSE_LINK_MAX bytes of value are read: the rest is ignored.
 * Returns 1 when found, 0 when not (none, or a target of cap bytes or
 * more), 0 for NULL. */
#define PARSE_LINK_MAX 8192
int parse_link_canonical(const char *value, char *out, size_t cap);

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

/* ---- body text, charset and signatures (SPEC §5, §7) ---------------- */

/* What parse_document() computes besides the links (bits of
 * parse_doc_opts.flags). */
enum parse_doc_flags {
	PARSE_TEXT = 1u << 0,     /* keep the body text in opts->text */
	PARSE_MD5 = 1u << 1,      /* parse_page.md5 */
	PARSE_MD5_SIZE = 1u << 2, /* parse_page.md5_size */
	PARSE_SIMHASH = 1u << 3,  /* parse_page.simhash */
	/* A <link> of PARSE_REL_FORMAT is not followed (follow 0): the
	 * page is that document already.  An <a> to the same URL still
	 * is. */
	PARSE_NO_FORMATS = 1u << 4,
};

/* ---- relevance to a category's keywords (SPEC §1, §3) ---------------- */

/* The most keywords a parse_keywords holds, and the most words in one. */
#define PARSE_KEYWORDS_MAX 64
#define PARSE_PHRASE_WORDS 4

/* A category's keywords, compiled once for any number of pages and
 * threads (immutable once built). */
struct parse_keywords;

/* Compile n keywords.  Each is split into words by the rule of
 * PARSE_SIMHASH (runs of ASCII letters and digits and bytes >= 0x80,
 * ASCII lower-cased), so matching ignores ASCII case and punctuation.
 * Decision: a keyword of several words is a phrase, matched where its
 * words follow each other in the text ("black hole" matches "Black
 * Hole!" but not "black ... hole"); it counts as one keyword.  Keywords
 * with no word, and repeats (the same words), are skipped.
 *
 * Relevance of a page (parse_page.relevance), with K keywords, N the
 * words of the body text (the title is part of it), tf_k the occurrences
 * of keyword k in the body text, t_k 1 when k is in the <title>:
 *
 *     c   = 1 + ln(1 + N / 50)                 length allowance
 *     b_k = tf_k / (tf_k + c)                  saturating frequency
 *     e_k = 1 - (1 - b_k) (1 - t_k / 2)        title adds half a proof
 *     S   = sum of e_k                         keywords in evidence
 *     h   = min(K, 3) / 2
 *     relevance = S / (S + h) * (K + h) / K    in [0, 1]
 *
 * Why: like BM25, one keyword repeated saturates (tf / (tf + c)), so a
 * page cannot score by stuffing one word; the allowance c grows with the
 * log of the length, so a long page needs a few more occurrences than a
 * short one but is not favoured or ruined by its size; the sum over
 * distinct keywords rewards coverage of the topic's vocabulary, and
 * S / (S + h) saturates again so that a page showing about three
 * keywords well is clearly on topic whatever K is; the last factor makes
 * a page with every keyword at full strength score 1.  A title is a
 * short, deliberate summary: a keyword there is strong evidence alone.
 * Examples (K = 10): 300 words with 7 keywords twice each: 0.75; the
 * same page with one stray keyword: 0.16.  docs/focus.md has more.
 *
 * Returns 0 and sets *ret (free with parse_keywords_free()), SC_E_INVAL
 * (NULL arguments, n > PARSE_KEYWORDS_MAX, a keyword of more than
 * PARSE_PHRASE_WORDS words) or SC_E_NOMEM.  A set of no keywords is
 * valid: pages then get no relevance (has_relevance false). */
SC_WUR int parse_keywords_new(const char *const *kw, size_t n,
			      struct parse_keywords **ret);

/* The keywords that s (len bytes) shows, tokenized as page text is: bit
 * i set for the i-th keyword compiled (PARSE_KEYWORDS_MAX is 64).  0 for
 * k NULL. */
uint64_t parse_keywords_shown(const struct parse_keywords *k, const char *s,
			      size_t len);

/* The distinct words of s (len bytes), tokenized and hashed as the body
 * text is for parse_doc_opts.words (never 0), into out[], at most max;
 * returns how many.  Like the word set, numbers (words of digits only)
 * are left out. */
size_t parse_words(const char *s, size_t len, uint64_t *out, size_t max);

/* The number of distinct keywords compiled. */
size_t parse_keywords_count(const struct parse_keywords *k);

/* Free; NULL is allowed. */
void parse_keywords_free(struct parse_keywords *k);

/* The most body text kept in a parse_text, in bytes without the NUL; the
 * text is cut there at a UTF-8 character boundary.  The signatures always
 * cover the whole text, and parse_page.text_bytes counts all of it. */
#define PARSE_TEXT_MAX (1024u * 1024)

/* A caller-owned growable buffer for the body text, meant to be reused
 * from page to page (it only grows, up to PARSE_TEXT_MAX + 1 bytes).
 * Zero-initialize it; free it with parse_text_free().  After a successful
 * parse_document() with PARSE_TEXT, buf holds len bytes of text and a NUL
 * (buf is then never NULL). */
struct parse_text {
	char *buf;
	size_t len, cap;
};

/* Free a parse_text's buffer and zero it; NULL is allowed. */
void parse_text_free(struct parse_text *t);

/* Options of parse_document(); zero-initialized means "UTF-8 unless the
 * page says otherwise, no text, no signatures". */
struct parse_doc_opts {
	/* The Content-Type header's value ("text/html; charset=koi8-r"),
	 * NUL-terminated, or NULL; only its charset parameter is used. */
	const char *content_type;
	/* The page size that PARSE_MD5_SIZE hashes: the body's length as
	 * fetched (after any Content-Encoding was undone).  0 means len. */
	uint64_t body_size;
	unsigned flags;          /* enum parse_doc_flags */
	struct parse_text *text; /* with PARSE_TEXT: where the text goes */
	/* Score the page against these keywords (parse_page.relevance),
	 * in the same pass over the text as the signatures; NULL or none:
	 * no relevance. */
	const struct parse_keywords *keywords;
	/* If not NULL: the distinct words of the body text but numbers, as
	 * hashes (parse_words()), go into this open-addressing set of words_cap
	 * slots (a power of two, at least 16; 0 marks an empty slot), which
	 * is cleared first and filled to at most half; parse_page.n_words
	 * says how many.  The first words win when there are more. */
	uint64_t *words;
	size_t words_cap;
	/* A user agent's name (the robots.txt product token, "sigcrawl"):
	 * a <meta name=NAME> of it counts as <meta name=robots> does
	 * (parse_page.noindex, nofollow); NULL: only "robots". */
	const char *robots_agent;
};

/* Where the charset came from (parse_page.charset_from). */
enum parse_charset_from {
	PARSE_CHARSET_DEFAULT = 0, /* nothing said: UTF-8 */
	PARSE_CHARSET_BOM,         /* a byte order mark */
	PARSE_CHARSET_HEADER,      /* the Content-Type charset parameter */
	PARSE_CHARSET_META,        /* <meta charset> or http-equiv in the
				    * first 1024 bytes */
};

/* Extract links, like parse_html(), and also decode the page and compute
 * its body text and signatures.
 *
 * The charset is, in order: a byte order mark (UTF-8, UTF-16LE/BE); the
 * charset parameter of popts->content_type; a <meta charset=...> or
 * <meta http-equiv=content-type content="...; charset=..."> in the first
 * 1024 bytes (HTML's prescan, simplified: comments and other tags are
 * skipped, attributes are read with HTML's quoting rules); UTF-8.  Labels
 * are those of the WHATWG Encoding standard, so "iso-8859-1", "latin1"
 * and "us-ascii" mean windows-1252 as in browsers; a <meta> naming UTF-16
 * means UTF-8.  Anything but UTF-8 is converted to UTF-8 with iconv, an
 * invalid byte becoming U+FFFD.  An unknown label, or a conversion that
 * fails, leaves the bytes to be read as UTF-8 and sets charset_fallback.
 *
 * The body text (SPEC §5) is the content of every text and CDATA node
 * outside <script>, <style>, <noscript> and <template> (of any
 * namespace), in document order, including the <title>; comments are not
 * text.  Runs of white space (ASCII space, tab, LF, FF, CR, and U+00A0
 * NO-BREAK SPACE) become one space and the ends are trimmed.  Decision:
 * the boundary of an element that is not inline (anything but a, abbr,
 * b, bdi, bdo, cite, code, data, dfn, em, font, i, kbd, mark, q, s, samp,
 * small, span, strong, sub, sup, time, u, var, big, tt, strike, label,
 * nobr) also separates words, as a rendered page separates them:
 * "<p>a</p><p>b</p>" and "a<br>b" give "a b" (textContent would give
 * "ab"), while "a<b>b</b>" gives "ab".
 *
 * Signatures (flags), all over the whole text even past PARSE_TEXT_MAX:
 *   PARSE_MD5       md5 = MD5(text), the SPEC's signature;
 *   PARSE_MD5_SIZE  md5_size = MD5(text || size), size the body size as 8
 *                   bytes big-endian (Soon & Lee's option 2; the size
 *                   comes last so that one MD5 state serves both);
 *   PARSE_SIMHASH   a 64-bit SimHash: words are the runs of ASCII letters
 *                   and digits and bytes >= 0x80 (so any non-ASCII
 *                   character is a word character), ASCII lower-cased;
 *                   each word is hashed with XXH3-64 (a word longer
 *                   than 64 bytes in 64-byte blocks, each block's hash
 *                   ORed with 1 being the next block's seed); each
 *                   shingle of 2 consecutive words is hashed with XXH3-64
 *                   of the 2 word hashes (16 bytes, little-endian); bit
 *                   i of the SimHash is set when more than half of the
 *                   shingles have it.  Decision: 2-word shingles keep
 *                   word order but let one changed word move fewer bits
 *                   than 3-word ones (text.c has the numbers).  A text of
 *                   1 word makes one shingle of it; a text of no words
 *                   gives 0 and sets text_empty.
 *
 * html, len, page_url, page_url_len, opts, fn, ctx: as for parse_html().
 * popts: NULL acts as zero-initialized options.
 * ret:   filled as by parse_html(), plus the fields of this section.
 *
 * Returns what parse_html() returns; SC_E_INVAL also for PARSE_TEXT
 * without popts->text; SC_E_NOMEM also when the MD5 context could not be
 * set up.  The work added to parse_html() is linear in len. */
SC_WUR int parse_document(const char *html, size_t len, const char *page_url,
			  size_t page_url_len, const struct norm_opts *opts,
			  const struct parse_doc_opts *popts, parse_link_fn fn,
			  void *ctx, struct parse_page *ret);

/* The number of bits in which two SimHashes differ (0..64). */
static inline unsigned parse_simhash_distance(uint64_t a, uint64_t b)
{
	return (unsigned)__builtin_popcountll(a ^ b);
}

/* Write a SimHash as 16 lower-case hex digits and a NUL (SPEC §5's
 * "simhash" field); out must have room for 17 bytes.  Returns out. */
char *parse_simhash_hex(uint64_t simhash, char *out);

/* ---- robots.txt (RFC 9309) ------------------------------------------- */

/* A longer line is cut to this many bytes, as Google's parser cuts it
 * (2083 × 8, eight of the longest URL browsers took): the cut part of a
 * Disallow still disallows (a shorter prefix matches more), while a cut
 * Allow and a cut Sitemap are dropped (they would allow, or name, what the
 * site did not write).  So no line costs more than this to match. */
#define PARSE_ROBOTS_LINE_MAX (2083 * 8)

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
 * txt, len:    the body as fetched; need not be NUL-terminated.  Only
 *              its first SC_ROBOTS_MAX_BYTES (sc.h) are parsed; the rest,
 *              and the line that bound cuts, are ignored.
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
 * §2.3.1.3).  Returns 0 or SC_E_NOMEM; *ret as for parse_robots().  Such
 * rules (and a parse_robots() that found none) are one shared object,
 * which parse_robots_free() does not free: no memory a host. */
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

/* ---- Sitemaps (sitemaps.org 0.9) ------------------------------------- */

/* The protocol's limits on one sitemap file: entries, and bytes after any
 * gzip is undone. */
#define PARSE_SITEMAP_MAX_URLS 50000
#define PARSE_SITEMAP_MAX_BYTES 52428800u /* uncompressed */

/* A <changefreq> (matched ignoring ASCII case and surrounding white
 * space). */
enum parse_changefreq {
	PARSE_CHANGEFREQ_NONE, /* absent or not one of the words */
	PARSE_CHANGEFREQ_ALWAYS,
	PARSE_CHANGEFREQ_HOURLY,
	PARSE_CHANGEFREQ_DAILY,
	PARSE_CHANGEFREQ_WEEKLY,
	PARSE_CHANGEFREQ_MONTHLY,
	PARSE_CHANGEFREQ_YEARLY,
	PARSE_CHANGEFREQ_NEVER,
};

/* One <url> of a urlset, <sitemap> of an index, or line of a text
 * sitemap, as passed to parse_sitemap()'s fn. */
struct parse_sitemap_entry {
	/* The URL as written (entities decoded, white space trimmed),
	 * borrowed for the call; also NUL-terminated, and never holds a NUL
	 * itself.  Not normalized: that is the caller's business. */
	const char *loc;
	size_t loc_len;     /* 1..NORM_INPUT_MAX */
	int64_t lastmod_ms; /* unix ms, or -1: absent or not a W3C Datetime */
	enum parse_changefreq changefreq;
};

/* Parses the sitemap or sitemap index in body (len bytes, gzip or not),
 * calling fn(arg, &entry) for each <url> (or each <sitemap> of an index,
 * *is_index then set; a text sitemap is a urlset) with a non-empty loc, in
 * document order, at most PARSE_SITEMAP_MAX_URLS times.  Returns 0,
 * SC_E_INVAL (not a sitemap: no <urlset> or <sitemapindex> root element, or
 * not XML and not text), SC_E_LIMIT (more than PARSE_SITEMAP_MAX_URLS
 * entries or PARSE_SITEMAP_MAX_BYTES uncompressed: the entries before the
 * limit were passed), SC_E_NOMEM, or the first nonzero value fn returned
 * (which stops it).  XML that goes wrong after some entries ends the parse
 * with 0 (what came before counts: sitemaps in the wild are often cut).
 * No network access, no DTD loading, no external or custom entities
 * (XXE and billion-laughs safe), and memory bounded by the limits above
 * plus the size of one entry.  A loc longer than NORM_INPUT_MAX is skipped.
 *
 * Details (parse/README.md has the reasons):
 * - gzip is recognized by its magic bytes 1f 8b, not by a name, and is
 *   inflated as the parse goes; concatenated gzip members are read as one
 *   body, and a corrupt or cut stream ends the body where it goes wrong.
 * - After an optional UTF-8 byte order mark and white space, a body that
 *   starts with '<' (or a UTF-16 byte order mark) is XML; anything else is
 *   a text sitemap.  Leading white space before the XML declaration, a
 *   common server bug, is forgiven.
 * - XML: the root element decides (urlset or sitemapindex); entries are
 *   its children url (of a urlset) or sitemap (of an index), and their
 *   fields the children loc, lastmod and changefreq, all matched by local
 *   name whatever the namespace or prefix (extensions such as
 *   <image:image><image:loc> are one level deeper and so not confused
 *   with them).  A field's text is all the text and CDATA inside it; the
 *   first non-empty occurrence of a field counts.  Elements are reported
 *   as they close, so everything before an XML error counts, however
 *   close to it.
 * - Entities: the five predefined ones and character references are
 *   decoded; no other entity is ever looked up, so a reference to one is
 *   an undefined entity, an XML error that ends the parse (dropped
 *   instead where XML allows undefined entities: in a document with an
 *   external DTD subset, which is never loaded).  A DTD that refers to a
 *   parameter entity is an error likewise.
 * - Text: one URL a line (LF, CRLF or CR); a line counts when, trimmed, it
 *   starts with "http://" or "https://" (ASCII case ignored) and is UTF-8
 *   without control characters; other lines are skipped.  A text body
 *   without any such line is SC_E_INVAL.  Text entries have no lastmod
 *   (-1) and no changefreq.
 * - The limits: on a body over PARSE_SITEMAP_MAX_BYTES only the first
 *   PARSE_SITEMAP_MAX_BYTES are parsed (an entry they cut is dropped) and
 *   the result is SC_E_LIMIT; the (PARSE_SITEMAP_MAX_URLS + 1)-th entry
 *   stops the parse with SC_E_LIMIT.  SC_E_INVAL takes precedence over
 *   SC_E_LIMIT (a body not shown to be a sitemap within the limit is
 *   not one).
 *
 * body:     need not be NUL-terminated; len 0 is SC_E_INVAL.
 * is_index: set to false first, true at a <sitemapindex> root; may be NULL.
 * fn, arg:  fn may be NULL (the body is only checked and counted).
 *
 * Thread-safe: any number of threads may parse at once.  libxml2 is
 * initialized on the first call (xmlInitParser(), once per process), and
 * reports nothing on stderr: its errors go to a handler of the parser
 * context that ignores them and, for the duration of the call, the
 * calling thread's libxml2 generic error callback is silenced (and
 * restored on return).  Memory: one entry (about 8 KiB), a 64 KiB
 * inflate buffer, and what libxml2's SAX parser holds unparsed (at most
 * its 10 MB lookahead limit); no tree is built. */
SC_WUR int parse_sitemap(const void *body, size_t len, bool *is_index,
			 int (*fn)(void *arg,
				   const struct parse_sitemap_entry *e),
			 void *arg);

/* A W3C Datetime (the n bytes at s, trimmed) as unix ms, or -1.
 *
 * The forms are YYYY, YYYY-MM, YYYY-MM-DD, YYYY-MM-DDThh:mmTZD,
 * YYYY-MM-DDThh:mm:ssTZD and YYYY-MM-DDThh:mm:ss.sTZD, with TZD "Z" or
 * +hh:mm or -hh:mm, and one or more digits of fraction (milliseconds kept,
 * the rest dropped).  Fields are checked (month 01..12, day within its
 * month of the proleptic Gregorian calendar, hour 00..23, minute and
 * second 00..59, offset hours 00..23); a date without a time is 00:00
 * UTC.  "T" and "Z" may also be lower case (as RFC 3339 allows); a time
 * without a zone is not a W3C Datetime.  A moment before 1970 gives -1:
 * no page was modified then, and a negative time would read as the
 * "absent" of parse_sitemap_entry.lastmod_ms.  s may be NULL when n is 0. */
int64_t parse_w3c_datetime(const char *s, size_t n);

#endif
