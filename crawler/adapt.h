/* adapt.h — adaptive normalization (SPEC §7), inside crawler/: per-host
 * rewrite rules learned from the crawl's own evidence, verified before
 * they apply, audited while they apply, retired without losing a page.
 *
 * The writer thread owns the learner: every call but adapt_key() and
 * adapt_stats() is the writer's, inside its write transaction.  The
 * scheduler's thread calls adapt_key() for a leased URL; the two share the
 * hosts' active rule sets under one mutex.  crawler/README.md ("Adaptive
 * normalization") says how a rule is born, applies, and dies. */
#ifndef ADAPT_H
#define ADAPT_H

#include <lmdb.h>
#include <stdbool.h>
#include <stdint.h>

#include "crawl.h"
#include "frontier.h"
#include "normalize.h"
#include "store.h"

struct adapt;

struct adapt_opts {
	unsigned min_support; /* independent supporting pairs */
	double confidence;    /* of the Wilson lower bound */
	double audit_share;   /* of the URLs a rule holds back */
	/* A rule of a kind that holds on other hosts needs one supporting
	 * document (adapt.c, kind_prior()). */
	bool transfer;
	/* A rule is refuted or retired once the Wilson upper bound of its
	 * precision (supporting documents against counter-examples, at
	 * confidence) falls below this; 0 or less: the default 0.95. */
	double retire_below;
	/* Every active rule has one of its keys audited at least once per
	 * this many keys it holds URLs onto, its first included; 0: the
	 * default 32. */
	unsigned audit_every;
};

enum adapt_state {
	ADAPT_CANDIDATE = 0, /* gathering evidence */
	ADAPT_ACTIVE = 1,    /* applied to the host's new URLs */
	ADAPT_RETIRED = 2,   /* was active; a counter-example ended it */
	ADAPT_REFUTED = 3,   /* a counter-example before it applied */
};

/* A rule as `sigcrawl rules` and `report` show it. */
struct adapt_rule_info {
	uint32_t id;
	uint8_t state; /* enum adapt_state */
	char host[NORM_HOST_MAX + 1];
	char text[512]; /* norm_rule_describe() */
	uint64_t support, counters, audits, audit_failures, held, saved;
	bool transferred; /* active on the strength of other hosts */
	int64_t created_ms, changed_ms; /* unix ms */
	/* A counter-example: the two URLs and nothing else (empty if none). */
	char counter_a[NORM_URL_MAX + 1], counter_b[NORM_URL_MAX + 1];
};

/* Load the rules and rebuild their evidence from the store, inside the
 * write transaction txn that opened it.  Returns 0, SC_E_NOMEM,
 * SC_E_CORRUPT or a store error. */
SC_WUR int adapt_open(struct store *s, struct frontier *fr, MDB_txn *txn,
		      const struct adapt_opts *o, struct adapt **ret);
void adapt_close(struct adapt *a);

/* The key of url (a strict URL) under its host's active rules, into out
 * (NORM_URL_MAX + 1 bytes) with its components in *u.  Returns 1 if a
 * rule changed it, 0 if not (out holds url), or a norm_url() error.  Any
 * thread. */
SC_WUR int adapt_key(struct adapt *a, const char *url, size_t len, char *out,
		     struct norm_url *u);

/* adapt_key() when the caller has url's components (url_u, as norm_url()
 * wrote them): no second parse on the writer's path. */
SC_WUR int adapt_key_u(struct adapt *a, const char *url, size_t len,
		       const struct norm_url *url_u, char *out,
		       struct norm_url *u);

/* adapt_key() for a URL leased from the frontier: 1 (with its key in out)
 * when the rules now active map it elsewhere and it is not an audit
 * under way (which is fetched under its own form on purpose); 2 when it
 * is its own key but its document was fetched under another form that
 * the rules map onto it (adapt_cover_of() names that form); else 0, or a
 * norm_url() error.  Any thread. */
SC_WUR int adapt_lease_key(struct adapt *a, const char *url, size_t len,
			   char *out, struct norm_url *u);

/* Is a rule being learned or applied on host (a candidate without a
 * counter-example, or an active rule)?  Any thread. */
bool adapt_learning(struct adapt *a, const char *host, size_t len);

/* A leased URL whose key (adapt_lease_key() 1) is not yet known is
 * fetched under its own form; it claims the key first, so that a second
 * form of it leased meanwhile is held rather than fetched alongside.
 * Returns 1 if the claim is new, 0 if the key was claimed before, or
 * SC_E_NOMEM.  Any thread. */
SC_WUR int adapt_claim(struct adapt *a, const char *key, size_t len);

/* The form under which the document of key (a URL adapt_lease_key()
 * called covered) was fetched, into out (cap bytes).  Returns 0,
 * SC_E_NOTFOUND, or a store error.  The writer's. */
SC_WUR int adapt_cover_of(struct adapt *a, MDB_txn *txn, const char *key,
			  size_t len, char *out, size_t cap);

/* A link to url (strict), queued under its own form: if the seen set
 * holds it only because its document was fetched under another form (a
 * cover), the cover is marked linked, so that a retirement fetches it.
 * Returns 0 or a store error.  The writer's. */
SC_WUR int adapt_linked(struct adapt *a, MDB_txn *txn, const char *url,
			size_t len);

/* The rules that map url (strict) to another key, described, "; "
 * between them, into out (cap).  Empty when none. */
void adapt_why(struct adapt *a, const char *url, size_t len, char *out,
	       size_t cap);

/* A fetched page as adapt_page() takes it. */
struct adapt_fetch {
	const char *url; /* the strict URL fetched: a form some page linked */
	size_t len;
	const char *key; /* the key it was queued under (may be url) */
	size_t key_len;
	uint16_t depth, category;
	const unsigned char *sig; /* body-text signature (16 bytes) */
	uint64_t simhash;         /* of the body text, when has_simhash */
	bool has_simhash;
	uint64_t media; /* parse_page.media: its images */
	/* When the page duplicates another: the representative's fetched
	 * form (strict), else NULL; the pair is evidence. */
	const char *rep;
	size_t rep_len;
	bool near; /* rep is a near-duplicate, not the same text */
};

/* A fetched page with body text.  Returns 0 or a store error. */
SC_WUR int adapt_page(struct adapt *a, MDB_txn *txn,
		      const struct adapt_fetch *f);

/* A fetched page that is not one (a 404, a 410, another status, or no
 * body text): url (strict) as fetched, queued under key.  A key whose
 * page is gone has the URLs held onto it fetched after all, and an
 * audited form that is gone where its key's page is not is a
 * counter-example.  Returns 0 or a store error. */
SC_WUR int adapt_failed(struct adapt *a, MDB_txn *txn, const char *url,
			size_t len, const char *key, size_t key_len,
			int status);

/* A redirect from (strict, as fetched) to to (strict) on one site:
 * evidence that the two are one page.  key is what from was queued
 * under: when the redirect leads elsewhere than the key, the URLs held
 * onto the key are fetched after all.  Returns 0 or a store error. */
SC_WUR int adapt_redirect(struct adapt *a, MDB_txn *txn, const char *from,
			  size_t from_len, const char *to, size_t to_len,
			  const char *key, size_t key_len);

/* adapt_hold()'s flags. */
enum {
	/* It was queued under a key of its own before the rule applied: a
	 * retirement must queue it again whatever the seen set says. */
	ADAPT_HOLD_LEASED = 1,
	/* Not held: it was queued under the rules' key, which nothing held
	 * before.  Kept all the same, so that a retirement fetches it under
	 * its own form; no fetch saved, no audit. */
	ADAPT_HOLD_QUEUED = 2,
};

/* A fetched page (url, strict) names canonical (strict, another URL) in
 * its rel=canonical: the rules that would map one onto the other become
 * candidates, but the hint supports none of them: a candidate earns its
 * support from fetched pages as any other.  Returns 0 or a store error. */
SC_WUR int adapt_hint(struct adapt *a, MDB_txn *txn, const char *url,
		      size_t len, const char *canonical, size_t canonical_len);

/* A URL whose key an active rule made, and which the frontier already
 * knew: held back (or, with ADAPT_HOLD_QUEUED, only kept).  fu is the URL
 * as it would have been queued (its url the rule's key); strict its
 * strict form.  Sets *audit when this one is to be fetched after all,
 * under its strict form, to test the rule.  Returns 1, 0 if it was held
 * (or audited) already or no active rule maps it, or a store error. */
SC_WUR int adapt_hold(struct adapt *a, MDB_txn *txn, const char *strict,
		      size_t strict_len, const struct frontier_url *fu,
		      unsigned flags, bool *audit);

/* Counts for status, metrics and the summary.  Any thread. */
void adapt_stats(struct adapt *a, struct crawl_rule_stats *ret);

/* Every rule the store holds, in id order, as txn sees it: fn(arg, info)
 * until it returns non-zero.  For `sigcrawl rules` and `report`; needs no
 * struct adapt.  Returns 0, fn's value, SC_E_CORRUPT or a store error. */
SC_WUR int adapt_list(struct store *s, MDB_txn *txn,
		      int (*fn)(void *arg, const struct adapt_rule_info *r),
		      void *arg);

/* "candidate", "active", "retired", "refuted". */
const char *adapt_state_name(int state);

#endif
