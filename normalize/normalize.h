/* normalize.h — URL parsing, reference resolution and normalization.
 *
 * The bottom module of sigcrawl: every URL that reaches the frontier went
 * through norm_url().  It depends on ICU (UTS #46) and libc only.
 *
 * Made for the crawler's hot path: the caller supplies the output buffer,
 * nothing is allocated on the heap per URL (IDNA conversions are cached per
 * thread; ICU allocates only on a cache miss), and the components of the
 * result are returned as offsets so that later modules never parse again.
 *
 * All functions are thread-safe; none keeps a pointer to its arguments.
 *
 * What the parser accepts (SPEC §4): leading and trailing spaces and control
 * characters are dropped, tabs and newlines anywhere are removed, '\' counts
 * as '/' before the query, characters not allowed by RFC 3986 (space,
 * non-ASCII, '"', '<', '>', ...) are percent-encoded as UTF-8 bytes, and a
 * '%' not followed by two hex digits is written "%25".  Any number of
 * slashes may follow "http:" (as browsers do).  Hosts are percent-decoded,
 * IPv4 numbers in any browser form (0x7f.1, 2130706433) are written dotted
 * decimal, IPv6 literals are written in RFC 5952 form, and non-ASCII hosts
 * and hosts with an "xn--" label go through IDNA as browsers do it (the
 * WHATWG URL Standard's "domain to ASCII": UTS #46 nontransitional,
 * CheckBidi and CheckJoiners on, CheckHyphens, UseSTD3ASCIIRules and
 * VerifyDnsLength off).  Ports lose leading zeros.
 */
#ifndef NORMALIZE_H
#define NORMALIZE_H

#include <stddef.h>
#include <stdint.h>

#include "sc.h"

/* The longest normalized URL we keep (SPEC §8).  Output buffers must hold
 * NORM_URL_MAX + 1 bytes. */
#define NORM_URL_MAX 2048

/* The longest input accepted, after trimming.  Longer links are rejected
 * with SC_E_TOOLONG before they are parsed: a link this long cannot shrink
 * to NORM_URL_MAX in any real page, and the bound keeps the work buffers on
 * the stack. */
#define NORM_INPUT_MAX 8192

/* The steps of SPEC §4, one bit each.  They are applied in the fixed order
 * below, whatever order a --steps list names them in:
 *
 *   authority: lowercase_scheme_host, idn_punycode, remove_trailing_host_dot,
 *              remove_www, remove_userinfo, remove_default_port, fold_https
 *   path:      uppercase_percent_hex, decode_unreserved, remove_session_ids
 *              (";jsessionid=" path parameters), remove_dot_segments,
 *              collapse_slashes, lowercase_path, remove_default_page,
 *              add_trailing_slash, empty_path_slash
 *   query:     uppercase_percent_hex, decode_unreserved,
 *              remove_tracking_params, remove_session_ids,
 *              remove_empty_params, remove_duplicate_params, sort_query,
 *              remove_empty_query
 *   fragment:  remove_fragment (else uppercase_percent_hex,
 *              decode_unreserved)
 *
 * With this order every profile is idempotent: norm_url() applied to its
 * own output returns the same string. */
enum norm_step {
	NORM_LOWERCASE_SCHEME_HOST = 1u << 0,
	NORM_IDN_PUNYCODE = 1u << 1,
	NORM_UPPERCASE_PERCENT_HEX = 1u << 2,
	NORM_DECODE_UNRESERVED = 1u << 3,
	NORM_REMOVE_DOT_SEGMENTS = 1u << 4,
	NORM_REMOVE_DEFAULT_PORT = 1u << 5,
	NORM_EMPTY_PATH_SLASH = 1u << 6,
	NORM_REMOVE_FRAGMENT = 1u << 7,
	NORM_REMOVE_EMPTY_QUERY = 1u << 8,
	NORM_SORT_QUERY = 1u << 9,
	NORM_REMOVE_DUPLICATE_PARAMS = 1u << 10,
	NORM_REMOVE_TRACKING_PARAMS = 1u << 11,
	NORM_REMOVE_SESSION_IDS = 1u << 12,
	NORM_REMOVE_TRAILING_HOST_DOT = 1u << 13,
	NORM_REMOVE_EMPTY_PARAMS = 1u << 14,
	NORM_COLLAPSE_SLASHES = 1u << 15,
	NORM_LOWERCASE_PATH = 1u << 16,
	NORM_ADD_TRAILING_SLASH = 1u << 17,
	NORM_REMOVE_DEFAULT_PAGE = 1u << 18,
	NORM_REMOVE_WWW = 1u << 19,
	NORM_FOLD_HTTPS = 1u << 20,
	NORM_REMOVE_USERINFO = 1u << 21,
};
#define NORM_STEP_COUNT 22

enum norm_profile {
	NORM_PROFILE_STRICT,
	NORM_PROFILE_EXTENDED,
	NORM_PROFILE_AGGRESSIVE,
	/* strict everywhere, plus per-host rules the crawl has verified; until
	 * rules exist (a later issue) it is exactly strict. */
	NORM_PROFILE_ADAPTIVE,
};

struct norm_url;

/* How to normalize.  Zero-initialized means "no steps, default lists". */
struct norm_opts {
	uint32_t steps; /* enum norm_step bits */
	/* Names removed by remove_tracking_params.  NULL means the default
	 * list of SPEC §4.  An entry ending in '*' matches as a prefix
	 * ("utm_*").  Names compare byte for byte, after decode_unreserved.
	 * Borrowed: must stay valid while the opts are used. */
	const char *const *tracking;
	size_t n_tracking;
	/* A password in the userinfo is never written: "user:pass@" comes out
	 * "user:***@" under every set of steps (SPEC §4: no store, export or
	 * log holds it in clear).  A caller that is to fetch with it gets it
	 * here: on_password, if set, is called once a norm_url() that masked a
	 * password has succeeded, with the URL it wrote (masked), its
	 * components and the password as the URL would have carried it
	 * (percent-encoded as the steps encode a userinfo; at most
	 * NORM_PASSWORD_MAX bytes, a longer one is not reported).  Not called
	 * for a password taken from the base, which is masked already.  May
	 * run on any thread that calls norm_url(). */
	void (*on_password)(void *arg, const char *url,
			    const struct norm_url *u, const char *password,
			    size_t len);
	void *on_password_arg;
};

/* What a masked password is written as. */
#define NORM_PASSWORD_MASK "***"
/* The longest password reported to on_password, percent-encoded. */
#define NORM_PASSWORD_MAX 256

/* The components of a normalized URL, as offsets into the output buffer
 * that norm_url() wrote.  Delimiters are not included: the host of
 * "http://a.com:8080/x?q#f" is "a.com", the port "8080", the path "/x",
 * the query "q", the fragment "f". */
struct norm_url {
	uint16_t len; /* strlen of the output */
	uint16_t scheme_len;
	uint16_t user_off, user_len; /* userinfo without '@' */
	uint16_t host_off, host_len; /* IPv6 with its brackets */
	uint16_t port_off, port_len; /* port_len 0: none, or an empty ':' */
	uint16_t path_off, path_len;
	uint16_t query_off, query_len;
	uint16_t frag_off, frag_len;
	uint16_t port; /* the port a fetch connects to */
	uint8_t https; /* a fetch uses https (also when fold_https wrote http)
			*/
	uint8_t has_user;  /* userinfo and '@' written (never empty) */
	uint8_t has_port;  /* ':' written (remove_default_port off: maybe empty)
			    */
	uint8_t has_query; /* "?" written, query may be empty */
	uint8_t has_fragment; /* "#" written */
	uint8_t host_type;    /* enum norm_host_type */
};

enum norm_host_type {
	NORM_HOST_NAME,
	NORM_HOST_IPV4,
	NORM_HOST_IPV6,
};

/* A parsed base URL for resolving the links of one page.  Fill it with
 * norm_base_set(); it owns its bytes, so it may outlive the strings it was
 * made from.  About 2 KiB: keep one per page, not one per link. */
struct norm_base {
	char buf[NORM_URL_MAX + 1];
	struct norm_url u;
};

/* No steps: norm_url() with these gives a URL as it was written, only
 * made absolute (resolved against the base, RFC 3986 §5.2) and serialized
 * (white space trimmed, bytes outside URLs percent-encoded): what SPEC §5's
 * export field `url`, "the URL as first discovered", holds beside the
 * normalized key. */
extern const struct norm_opts norm_as_found;

/* Steps of a profile (enum norm_step bits). */
uint32_t norm_profile_steps(enum norm_profile profile);

/* Look up a profile by name ("strict", "extended", "aggressive",
 * "adaptive").  Returns 0, or SC_E_STEP for an unknown name. */
SC_WUR int norm_profile_parse(const char *name, enum norm_profile *ret);

/* Adjust *steps by a list like "+sort_query, -remove_fragment, lowercase_path"
 * (a bare name adds; separators are commas and white space).  On an unknown
 * name returns SC_E_STEP, leaves *steps unchanged and, if bad is not NULL,
 * points *bad at the offending name inside list (without its sign) and
 * *bad_len at its length. */
SC_WUR int norm_steps_parse(const char *list, uint32_t *steps, const char **bad,
			    size_t *bad_len);

/* The name of a single step bit ("sort_query"), or NULL. */
const char *norm_step_name(uint32_t step);

/* The bit of a step by name, or 0 for an unknown name. */
uint32_t norm_step_by_name(const char *name, size_t len);

/* Parse, resolve and normalize one URL.
 *
 * in, len:  the URL or relative reference as found (need not be
 *           NUL-terminated; may contain anything).
 * base:     the page's base (norm_base_set()), or NULL for absolute URLs.
 * out, cap: receives the normalized URL, NUL-terminated; cap should be at
 *           least NORM_URL_MAX + 1.
 * ret:      receives the components; may be NULL.
 *
 * Returns 0, or SC_E_EMPTY, SC_E_SCHEME, SC_E_NOHOST, SC_E_PORT,
 * SC_E_HOST_PERCENT, SC_E_IPV6, SC_E_IDN, SC_E_HOST, SC_E_RELATIVE (no
 * base), SC_E_TOOLONG, SC_E_NOSPC (cap too small), SC_E_NOMEM (ICU's
 * IDNA could not be set up, for a host that needs it).  On error out[0] is
 * '\0' (if cap > 0) and the contents of *ret are unspecified. */
SC_WUR int norm_url(const struct norm_opts *opts, const struct norm_base *base,
		    const char *in, size_t len, char *out, size_t cap,
		    struct norm_url *ret);

/* Set the base for the links of a page.
 *
 * To start from the URL the page was fetched from, pass relative_to NULL.
 * For a <base href>, pass the page's base as relative_to: the href resolves
 * against it first (HTML's rule).  base and relative_to may be the same
 * object.  The base is kept in strict form, never in a profile's form:
 * resolving "c" against "/a/b" must give "/a/c" even when a profile would
 * rewrite the page's URL to "/a/b/".  On error *base is unchanged.
 * Returns 0 or the errors of norm_url(). */
SC_WUR int norm_base_set(struct norm_base *base,
			 const struct norm_base *relative_to, const char *href,
			 size_t len);

/* Split a URL that norm_url() wrote, under any steps, into its
 * components without normalizing it again: the string is taken exactly as
 * it is, only its delimiters are found.  This is how a URL read back from
 * the frontier gets its components: normalizing a stored key again with
 * the steps of another run would rewrite it (and give offsets into the
 * rewritten string, not the stored one).
 *
 * url, len: the URL (need not be NUL-terminated).
 * ret:      receives the offsets, flags and host type, exactly as
 *           norm_url() set them when it wrote url; except that a string
 *           does not say whether fold_https wrote "http" for an https URL:
 *           https and port are what the string says (scheme "https" or
 *           not; the port written, else 443 or 80).  A caller that knows
 *           the fetch's scheme and port sets both (norm_fetch_url() then
 *           writes the https URL back).
 *
 * Returns 0, or SC_E_TOOLONG (longer than NORM_URL_MAX), SC_E_SCHEME (no
 * "http://" or "https://", any case), SC_E_NOHOST, SC_E_PORT, SC_E_IPV6,
 * or SC_E_INVAL (a byte norm_url() never writes: a control character,
 * space or non-ASCII).  On error the contents of *ret are unspecified. */
SC_WUR int norm_split(const char *url, size_t len, struct norm_url *ret);

/* Write the names remove_tracking_params removes under opts (its own list,
 * or the default one of SPEC §4), in their order, separated by ',', into
 * out (cap bytes, NUL-terminated).  Together with the steps this decides
 * what norm_url() writes, so a store records it beside them.
 * Returns 0 or SC_E_NOSPC. */
SC_WUR int norm_tracking_list(const struct norm_opts *opts, char *out,
			      size_t cap);

/* Write the URL to request for a normalized URL: the same string unless
 * fold_https wrote "http" for an https URL.  No fragment is written.
 * Returns 0 or SC_E_NOSPC. */
SC_WUR int norm_fetch_url(const char *url, const struct norm_url *u, char *out,
			  size_t cap);

/* url, a URL norm_url() wrote with at least the strict steps (u its
 * components: norm_url()'s or norm_split()'s; ret may be u), normalized
 * again with opts: the same as norm_url(opts, NULL, url, ...) but
 * without parsing url again or redoing the strict steps (learned rules
 * add a host's steps to strict URLs; tests/test-rules.c holds the two
 * equal on a generated corpus).
 * Returns 0, SC_E_TOOLONG, SC_E_NOSPC or query_steps' errors. */
SC_WUR int norm_restep(const struct norm_opts *opts, const char *url,
		       const struct norm_url *u, char *out, size_t cap,
		       struct norm_url *ret);

/* ---- Learned rules (SPEC §7) -------------------------------------------
 *
 * A rule is a rewrite that one host is seen to ignore; the crawler
 * (crawler/learn/adapt.c) learns them and says where each applies.  Every
 * function here works on URLs that norm_url() wrote under the strict
 * profile, and writes strict URLs back, so rules compose with the strict
 * steps and with each other. */

enum norm_rule_kind {
	NORM_RULE_STEP = 1,  /* one step of SPEC §4 (norm_rule_steps()) */
	NORM_RULE_PARAM = 2, /* a query parameter the host ignores */
	NORM_RULE_ALIAS = 3, /* host is another name of the site a */
	NORM_RULE_DUST = 4,  /* a substring rewrite (Bar-Yossef et al.) */
};

#define NORM_RULE_TEXT_MAX 96
/* The longest host name a rule names (a DNS name is at most 253 bytes). */
#define NORM_HOST_MAX 256

struct norm_rule {
	uint8_t kind;  /* enum norm_rule_kind */
	uint32_t step; /* NORM_RULE_STEP: one enum norm_step bit */
	/* NORM_RULE_ALIAS: the name it maps from. */
	char host[NORM_HOST_MAX + 1];
	/* NORM_RULE_PARAM: the parameter's name; NORM_RULE_ALIAS: the host
	 * it maps to; NORM_RULE_DUST: the context, a path prefix ending in
	 * '/' right after which from may stand. */
	char a[NORM_RULE_TEXT_MAX + 1];
	/* NORM_RULE_DUST: from is rewritten to, where "{N}" in both stands
	 * for one whole run of digits outside percent-escapes, never the
	 * digits of a "%XX" (a string norm_url() never writes: '{' is
	 * always percent-encoded); from must end at the end of the path and
	 * query or before one of / ? & ; . */
	char from[NORM_RULE_TEXT_MAX + 1], to[NORM_RULE_TEXT_MAX + 1];
};

/* The steps a NORM_RULE_STEP may name. */
uint32_t norm_rule_steps(void);

/* A learned rule's step beyond SPEC §4's list: drop ";jsessionid=..."
 * path parameters, and nothing else (remove_session_ids also drops the
 * query's session parameters, which a host may use for something else:
 * those are parameter rules, one name each).  Only rules name it
 * ("remove_path_session_ids"); no profile or steps list has it. */
#define NORM_RULE_PATH_SESSION (1u << 31)

/* Another rule's step: drop the trailing slash after a last segment with
 * a dot ("/a/x.html/" is "/a/x.html" on a server that ignores it), which
 * no step of SPEC §4 does (add_trailing_slash leaves such names alone).
 * Only rules name it ("remove_file_slash"). */
#define NORM_RULE_FILE_SLASH (1u << 30)

/* A host's verified rules together, as norm_rules_apply() uses them.
 * Borrowed pointers. */
struct norm_hostrules {
	const char *alias; /* the site's name when the host is an alias */
	size_t alias_len;
	uint32_t steps; /* NORM_RULE_STEP bits */
	const char *const *params;
	size_t n_params;
	const struct norm_rule *const *dust; /* NORM_RULE_DUST, in order */
	size_t n_dust;
	/* The steps over what a DUST rule wrote: steps, or, when this is
	 * not NULL, what it returns for the URL written (rewrite_arg is
	 * the caller's): a step the caller scopes to some URLs applies to
	 * a rewritten URL by what that URL is, not by what the URL it
	 * rewrote was. */
	uint32_t (*rewrite_steps)(const void *arg, const char *url,
				  const struct norm_url *u);
	const void *rewrite_arg;
};

/* Apply one rule alone to url (a strict URL) into out (cap bytes), with
 * the components into *ret (may be NULL).  A rule that does not apply
 * writes url unchanged.  Returns 0 or the errors of norm_url(). */
SC_WUR int norm_rule_apply(const struct norm_rule *r, const char *url,
			   size_t len, char *out, size_t cap,
			   struct norm_url *ret);

/* Apply a host's rules to url (a strict URL of that host; url_u its
 * components if the caller has them, else NULL): the alias, then the
 * steps and parameters, then each DUST rule in order (the steps again
 * after one rewrote).  Returns 0 or the errors of norm_url(). */
SC_WUR int norm_rules_apply(const struct norm_hostrules *hr, const char *url,
			    size_t len, const struct norm_url *url_u, char *out,
			    size_t cap, struct norm_url *ret);

/* The candidate rules that would map a and b (strict URLs of one host,
 * different) to one URL, into out[0..cap): the steps and parameters that
 * explanation needs, each one rule, or else one DUST rule.  Returns how
 * many (0: none explains the pair). */
size_t norm_rules_derive(const char *a, size_t al, const char *b, size_t bl,
			 struct norm_rule *out, size_t cap);

/* "step lowercase_path", "ignore parameter sid", "alias www.x = x",
 * "rewrite /story_{N}.html -> /story?id={N}".  Returns 0 or SC_E_NOSPC. */
SC_WUR int norm_rule_describe(const struct norm_rule *r, char *out, size_t cap);

#endif
