/* learn.h — what the crawl learns and decides as it goes: the room between
 * the engine (crawler/engine/crawl.h, which calls into it) and the modules
 * below.
 *
 *   keys      which normalization a store's keys were made with (keys.c)
 *   adapt     adaptive normalization: per-host rules learned from the
 *             crawl's own evidence (adapt*.c, docs/adaptive.md)
 *   focus     relevance, scope, tunnel, link prediction (focus-*.c,
 *             docs/focus.md)
 *
 * Nothing here calls the engine: the engine hands each of them what it
 * fetched and asks what to do with a URL.  The types a category and the
 * learned rules' counters need are declared here, since the engine's
 * options (crawler/engine/crawl.h) are made of them. */
#ifndef LEARN_H
#define LEARN_H

#include <lmdb.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frontier.h"
#include "normalize.h"
#include "parse.h"
#include "store.h"

/* Where a category's links may lead ([category] scope).  The value is
 * stored with the category (store_category.scope): never renumber. */
enum crawl_scope {
	CRAWL_SCOPE_HOST,   /* the seed's host only */
	CRAWL_SCOPE_DOMAIN, /* the seed's registrable domain (libpsl) */
	CRAWL_SCOPE_ANY,
};

/* A category: its seeds are queued under it, and every URL found from
 * them is recorded with its name. */
struct crawl_category {
	const char *name;
	const char *seeds_file; /* one URL per line, '#' comments; or NULL */
	/* Focus (the focus section below, docs/focus.md): the topic's keywords
	 * (none: no relevance, nothing pruned by it), where links may lead
	 * (0 is host), the least relevance of a page whose links are
	 * followed, and the off-topic pages in a row allowed. */
	const char *const *keywords;
	size_t n_keywords;
	enum crawl_scope scope;
	double min_relevance;
	unsigned tunnel;
	/* Link prediction: links are ordered by their predicted chance of
	 * being on topic, and those under predict_min are not queued. */
	bool predict;
	double predict_min;
	/* Samples of the pruned (focus-shape.c, docs/focus.md "Samples of
	 * the pruned"): off unless set.  On the measured webs they cost
	 * harvest on hosts of several topics (the shape mag) and the
	 * navigation pages alone do not (docs/focus.md): the key samples of a
	 * category turns them on. */
	bool samples;
	/* The harvest floor (focus-explore.c, docs/focus.md "Harvest
	 * floor"): while the category's running harvest stays at or above
	 * it, the links the prediction pruned are explored, best predicted
	 * first.  1 explores nothing. */
	double min_harvest;
	/* URL patterns (POSIX extended regular expressions): a new URL is
	 * queued only if it matches one of include (when any) and none of
	 * exclude (focus_wanted()). */
	const char *const *include, *const *exclude;
	size_t n_include, n_exclude;
};

/* The learned rules of adaptive normalization (adapt_stats()), counted
 * over every run of the store. */
struct crawl_rule_stats {
	uint64_t candidates, active, retired, refuted;
	uint64_t saved;    /* fetches held back by active rules */
	uint64_t audits;   /* held-back URLs fetched to test their rule */
	uint64_t requeued; /* URLs re-queued when their rule retired */
	uint64_t skipped;  /* URLs a skip shape did not fetch */
};

/* ---- keys -------------------------------------------------------------- */

/* Which normalization a store's keys were made with (keys.c).
 *
 * Every URL in a store is kept under its key, the URL as the run that
 * found it normalized it, and a key is never derived again (a leased key
 * is split where it stands, frontier.h).  Another normalization writes
 * other keys for the same URLs: URLs queued or fetched under the old keys
 * would be queued again under new ones, fetched twice, and equal pages
 * would no longer meet in the seen set.  So the normalization (profile,
 * effective steps, tracking list) is recorded in the store when it is
 * created (frontier_norm_put()), and a run with another one is refused
 * (SC_E_PROFILE, exit status 2) with a message that names both and says
 * what the operator can do.  README.md ("Changing the normalization")
 * explains why sigcrawl refuses rather than re-keying the store.
 *
 * Adaptive normalization (SPEC §7) will key URLs by per-host rules learned
 * during the crawl: those keys are stored the same way and never derived
 * again either, and the rules will be recorded in the store beside this
 * record, which is why adaptive and the fixed profiles never mix here. */

/* A normalization as a run asks for it. */
struct keys_norm {
	enum norm_profile profile; /* as named, for messages and adaptive */
	const struct norm_opts *opts;
};

/* Do a and b write the same key for every URL?  The same steps, the same
 * tracking list when remove_tracking_params is among them, and adaptive
 * in both or in neither (adaptive keys also depend on the store's rules).
 * The profile names may differ: extended plus "+lowercase_path" is
 * aggressive minus the steps that tell them apart. */
bool keys_same(const struct keys_norm *a, const struct keys_norm *b);

/* Write "aggressive" or "strict with steps +lowercase_path,-remove_fragment"
 * (the steps that differ from the profile's) into out (cap bytes). */
void keys_describe(enum norm_profile profile, uint32_t steps, char *out,
		   size_t cap);

/* Check the run's normalization n against the store, in txn (the write
 * transaction that opened the store and the frontier; the caller commits
 * it):
 *
 *   - a store that recorded one: 0 if keys_same(), else SC_E_PROFILE;
 *   - a new store (nothing queued or recorded): n is recorded, 0;
 *   - a store written before the normalization was recorded: every key it
 *     queued or recorded is normalized with n; if each comes back
 *     unchanged (a fixed point, as keys n wrote itself always are), n is
 *     recorded and *adopted set, else SC_E_PROFILE.
 *
 * On SC_E_PROFILE, msg (cap bytes) says what differs and fix what the
 * operator can do, each one line without a trailing newline.  Returns 0,
 * SC_E_PROFILE, or SC_E_DB, SC_E_CORRUPT, SC_E_NOMEM. */
SC_WUR int keys_check(MDB_txn *txn, struct store *s, struct frontier *f,
		      const struct keys_norm *n, bool *adopted, char *msg,
		      char *fix, size_t cap);

/* ---- adapt ------------------------------------------------------------- */

/* Adaptive normalization (SPEC §7, adapt*.c): per-host
 * rewrite rules learned from the crawl's own evidence, verified before
 * they apply, audited while they apply, retired without losing a page.
 *
 * The writer thread owns the learner: every call but adapt_key() and
 * adapt_stats() is the writer's, inside its write transaction.  The
 * scheduler's thread calls adapt_key() for a leased URL; the two share the
 * hosts' active rule sets under one mutex.  docs/adaptive.md says how a
 * rule is born, applies, and dies. */

struct adapt;

struct adapt_opts {
	unsigned min_support; /* independent supporting pairs */
	double confidence;    /* of the Wilson lower bound */
	double audit_share;   /* of the URLs a rule holds back */
	/* A rule of a kind that holds on other hosts needs one supporting
	 * document (adapt-evidence.c, kind_prior()). */
	bool transfer;
	/* A rule is refuted or retired once the Wilson upper bound of its
	 * precision (supporting documents against counter-examples, at
	 * confidence) falls below this; 0 or less: the default 0.95. */
	double retire_below;
	/* Every active rule has one of its keys audited at least once per
	 * this many keys it holds URLs onto, its first included; 0: the
	 * default 32. */
	unsigned audit_every;
	/* A URL shape of a host whose sampled pages all say noindex and
	 * nofollow is skipped (adapt-skip.c). */
	bool skip_noindex_nofollow;
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

/* The page's own word (SPEC §7, adapt-claim.c).  f, a fetched page with
 * body text (after adapt_page()), judges the claims that name its URL;
 * and when canonical (strict; NULL: none) names another URL of its host,
 * the page claims it: judged at once when that URL's page is known, else
 * kept until it is fetched, or, on a host whose claims are trusted,
 * merged (its key marked seen and held as a cover of the page: not
 * fetched) or audited.  Returns 0 or a store error. */
SC_WUR int adapt_canonical(struct adapt *a, MDB_txn *txn,
			   const struct adapt_fetch *f, const char *canonical,
			   size_t canonical_len);

/* url (strict, as fetched) answered status: gone (404, 410), the claims
 * naming it fail.  Returns 0 or a store error. */
SC_WUR int adapt_canonical_gone(struct adapt *a, MDB_txn *txn, const char *url,
				size_t len, int status);

/* url (strict), a new link, is a URL a trusted claim merged and no page
 * linked before: 1 with the claiming page's URL (the record that holds
 * its document) in out (cap bytes), for its record; else 0, or
 * SC_E_CORRUPT or a store error.  adapt_linked() then marks it linked.
 * The writer's. */
SC_WUR int adapt_claim_linked(struct adapt *a, MDB_txn *txn, const char *url,
			      size_t len, char *out, size_t cap);

/* A host's claims as `sigcrawl rules` shows them: state is an enum
 * adapt_state (ADAPT_ACTIVE: trusted). */
struct adapt_claim_info {
	uint8_t state;
	char host[NORM_HOST_MAX + 1];
	uint64_t verified, failed; /* claims judged */
	uint64_t documents;        /* distinct named URLs verified */
	uint64_t audits, audit_failures, merged;
	int64_t created_ms, changed_ms;
};

/* Every host's claims the store holds, as txn sees them: fn(arg, info)
 * until it returns non-zero.  Needs no struct adapt.  Returns 0, fn's
 * value, SC_E_CORRUPT or a store error. */
SC_WUR int adapt_claim_list(struct store *s, MDB_txn *txn,
			    int (*fn)(void *arg,
				      const struct adapt_claim_info *c),
			    void *arg);

/* "candidate", "trusted", "retired", "refuted". */
const char *adapt_claim_state_name(int state);

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

/* Pages that give nothing (SPEC §7, adapt-skip.c): a URL shape of a host
 * whose pages all say noindex and nofollow is skipped once min_support of
 * them did, audited at audit_share; a page of it without both refutes it
 * (a candidate) or retires it (active, its skipped URLs queued again),
 * for good.  All do nothing without
 * adapt_opts.skip_noindex_nofollow. */

/* A skip shape as `sigcrawl rules` shows it.  state is an enum
 * adapt_state: candidate (gathering), active (skipping), retired (an
 * audit or a later page could be indexed or followed), refuted (a page
 * could be before it applied). */
struct adapt_skip_info {
	uint8_t state;
	char host[NORM_HOST_MAX + 1];
	char shape[NORM_URL_MAX + 1]; /* "/w/{}.php?action=edit&title={}" */
	uint64_t support;             /* its pages that said both */
	uint64_t audits, audit_failures, skipped;
	int64_t created_ms, changed_ms;
};

/* A fetched page's word on itself: url (strict, as fetched; components
 * u) answered 2xx and said noindex, nofollow, both or neither.  Returns
 * 0 or a store error.  The writer's. */
SC_WUR int adapt_robots(struct adapt *a, MDB_txn *txn, const char *url,
			size_t len, const struct norm_url *u, bool noindex,
			bool nofollow);

/* A leased URL (strict, as it would be fetched): 1 when its shape is
 * skipped and it is not one of the audits, else 0.  Any thread. */
int adapt_skip_lease(struct adapt *a, const char *url, size_t len,
		     const struct norm_url *u);

/* A URL adapt_skip_lease() skipped, recorded: counted with its shape, and
 * kept (fu: its frontier entry, its key and found form) to be queued
 * again if the shape retires.  Returns 0 or a store error.  The
 * writer's. */
SC_WUR int adapt_skipped(struct adapt *a, MDB_txn *txn, const char *url,
			 size_t len, const struct norm_url *u,
			 const struct frontier_url *fu);

/* Every skip shape the store holds, in hash order, as txn sees it:
 * fn(arg, info) until it returns non-zero.  Needs no struct adapt.
 * Returns 0, fn's value, SC_E_CORRUPT, SC_E_NOMEM or a store error. */
SC_WUR int adapt_skip_list(struct store *s, MDB_txn *txn,
			   int (*fn)(void *arg,
				     const struct adapt_skip_info *r),
			   void *arg);

/* ---- focus ------------------------------------------------------------- */

/* Focused crawling for the engine (focus-policy.c, focus-predict.c):
 * relevance, scope, tunnel and the first-category-wins rule (SPEC §1, §3,
 * §6); docs/focus.md explains the choices.
 *
 * Threads: focus_keywords() and focus_in_scope() / focus_follow() are
 * read-only and safe from any thread once focus_open() returned, also
 * while focus_reload() runs; the counting and note-taking functions are
 * the writer's alone. */

struct focus;

/* Compile the keywords of every category of cats[0..n).  Returns 0 and
 * sets *ret, or SC_E_NOMEM, SC_E_INVAL (with a message on stderr).  The
 * categories are borrowed until the next focus_reload() or
 * focus_close(). */
int focus_open(const struct crawl_category *cats, size_t n, struct focus **ret);

/* A reload: the categories cats[0..n) (those of the running config at the same
 * indexes, new ones after them) apply from now on.  Called on the loop
 * thread; the other threads see the new settings at their next call.
 * Returns 0, or as focus_open(), and nothing changes then. */
int focus_reload(struct focus *f, const struct crawl_category *cats, size_t n);

/* NULL is fine. */
void focus_close(struct focus *f);

/* The keywords of category cat, or NULL (none, or no such category). */
const struct parse_keywords *focus_keywords(const struct focus *f,
					    uint16_t cat);

/* Keep every category's settings in the store, for `report`. */
int focus_put_categories(struct focus *f, struct store *s, MDB_txn *txn);

/* May a page of category cat at page (its components pu) lead to link
 * (lu)?  host: the same host; domain: the same registrable domain,
 * through the Public Suffix List (libpsl's built-in copy); any: yes.
 * Pages are in scope by induction from their seed, so the page's host
 * stands for the seed's. */
bool focus_in_scope(const struct focus *f, uint16_t cat, const char *page,
		    const struct norm_url *pu, const char *link,
		    const struct norm_url *lu);

/* May a new URL (normalized, len bytes) of category cat be queued, by
 * its include and exclude patterns?  Safe from any thread. */
bool focus_wanted(const struct focus *f, uint16_t cat, const char *url,
		  size_t len);

/* Are the links of a page followed?  A page is off topic when it has a
 * relevance under its category's min_relevance; its links are followed
 * while the off-topic pages in a row, itself included, are at most the
 * tunnel.  offtopic is the page's lease.offtopic; *child gets the count
 * its links carry (0 after an on-topic page). */
bool focus_follow(const struct focus *f, uint16_t cat, bool has_relevance,
		  double relevance, uint8_t offtopic, uint8_t *child);

/* The pred_class of a host's root that focus queued to look at the host
 * (docs/focus.md "Hosts not met"). */
#define FOCUS_PRED_LOOK 0x7f

/* The pred_class of a link the prediction pruned that focus queued to
 * explore, paid by the harvest above the floor (docs/focus.md "Harvest
 * floor"): not pruned again at its lease. */
#define FOCUS_PRED_EXPLORE 0x7e

/* Is a link of a page leased as l, whose links carry child (focus_follow())
 * and which shows hits keywords, one to follow?  Of a root queued to look
 * at its host (FOCUS_PRED_LOOK) and off topic, only the links that show a
 * keyword are: the look is for the topic's section, not a tunnel. */
static inline bool focus_look_follows(const struct frontier_lease *l,
				      uint8_t child, unsigned hits)
{
	return l->pred_class != FOCUS_PRED_LOOK || !child || hits > 0;
}

/* ---- Link prediction (docs/focus.md "Prediction"); the writer's alone.
 *
 * Every link of a page gets a predicted probability that its page is on
 * topic, from what is known before fetching it: whether the page that
 * links is on topic, how many keywords the link itself shows (its anchor,
 * title and URL: parse_link.hits) and whether it stays on its host (the
 * link's class, one of STORE_FOCUS_CLASSES), how many of the links of
 * the page show a keyword (its kind: a list of the topic, or a page that
 * names it once or never), and the words of every link to the URL.  The
 * rates are learned during the crawl from the pages fetched
 * (focus_learn()), the classes' in the store. */
struct focus_link {
	bool keep;          /* false: predicted under the category's
			     * predict_min, not to be queued (never at
			     * tunnel 0) */
	uint8_t priority;   /* frontier_url.priority */
	uint8_t predicted;  /* frontier_url.predicted (0: none) */
	uint8_t pred_class; /* frontier_url.pred_class (0: none) */
	uint8_t n_words;    /* frontier_url.words */
	bool fresh;         /* no link to the URL was predicted before */
	uint32_t words[FRONTIER_WORDS_MAX];
};

/* The prediction for a link (url, its components lu, the text it shows:
 * parse_link.anchor) of a page of category cat that has a relevance
 * (has_relevance) or not, on the page's host or not (same_host), showing
 * hits keywords, on a page page_hits of whose links show one; offtopic
 * is the count the link carries (focus_follow()'s *child).  Without a
 * prediction (predict off, no keywords, a page without relevance) the link is
 * kept, with priority 0 from an on-topic page and 1 from an off-topic one (a
 * tunnel link). */
void focus_predict(struct focus *f, uint16_t cat, bool has_relevance,
		   double relevance, unsigned hits, unsigned page_hits,
		   bool same_host, const char *url, const struct norm_url *lu,
		   const char *anchor, size_t anchor_len, uint8_t offtopic,
		   struct focus_link *ret);

/* A link the prediction pruned (pl) from a page on topic of category cat
 * (relevance) to another page of the same paginated list (the same URL
 * but for one number near the page's own: the next page of a section's
 * list): kept, at priority 1, and not pruned again at its lease.  The
 * pages of one list are of one kind; the next page tells of the one
 * after it. */
void focus_pager(struct focus *f, uint16_t cat, double relevance,
		 const char *page, const struct norm_url *pu,
		 uint8_t page_class, const char *url, const struct norm_url *lu,
		 struct focus_link *pl);

/* What the words of a link (its text anchor, its URL url with
 * components lu) say of its page, as the crawl learned them: 1 on
 * topic, -1 off topic, 0 nothing (too little learned, or words that say
 * nothing).  The writer's. */
int focus_link_says(struct focus *f, uint16_t cat, const char *page,
		    const struct norm_url *pu, const char *anchor,
		    size_t anchor_len, const char *url,
		    const struct norm_url *lu);

/* Is a page of category cat (its relevance if has_relevance, its word
 * set words as focus_learn() takes it) one that may be a navigation page
 * of the topic: off topic, with few words of its own (a list's: its text
 * is the titles it links, link text, which relevance counts and the word
 * set does not)?  Only then are its links' words looked at
 * (focus_link_says(), focus_nav_relevance()).  Any thread. */
bool focus_nav_candidate(const struct focus *f, uint16_t cat,
			 bool has_relevance, double relevance,
			 const uint64_t *words);

/* The relevance the focus takes a candidate page (focus_nav_candidate())
 * of category cat at: its own, unless it is a navigation page of the
 * topic (of its links whose words say something, n_on say on topic and
 * n_off off topic, with n_on large enough and most of them), which is on
 * the topic's path: then the category's min_relevance, so that its links
 * are followed as an on-topic page's and it is learned as one.  Any
 * thread. */
double focus_nav_relevance(const struct focus *f, uint16_t cat,
			   double relevance, unsigned n_on, unsigned n_off);

/* A page of category cat fetched from lease l, whose links were
 * followed, queued gain links that no link predicted before showed and
 * that show a keyword: when it is off topic, learn how much a page that
 * links to it like that opens (a bridge, in the tunnel). */
void focus_bridge(struct focus *f, uint16_t cat, const struct frontier_lease *l,
		  bool has_relevance, double relevance, unsigned gain);

/* Has some category that prunes at the lease (tunnel > 0) begun to learn
 * from its pages, and learned too little yet for its words to judge a
 * guess (frontier_set_learning())?  The writer's. */
bool focus_learning(struct focus *f);

/* How many pages the crawl may have fetched or be fetching and not yet
 * learned from (0: no bound): while a category that prunes at the lease
 * has learned from few pages, each page teaches much, and URLs leased
 * before what the pages ahead of them teach is learned are judged
 * without it.  The writer's. */
uint32_t focus_lead(struct focus *f);

/* Does category cat predict links (keywords, predict on)?  Any thread. */
bool focus_predicts(const struct focus *f, uint16_t cat);

/* The slots of a page's word set (parse_doc_opts.words) that the
 * prediction learns from: up to half as many words. */
#define FOCUS_WORDS_CAP 1024

/* Is the URL leased (l) still worth fetching?  Its prediction made again
 * with what the crawl knows now (the pages of its host fetched since it
 * was queued): false when it fell under its category's predict_min
 * (never at tunnel 0).  Safe from the scheduler's thread. */
bool focus_lease_keep(struct focus *f, const struct frontier_lease *l);

/* A page of category cat was fetched for the first time, with a 2xx
 * answer, from lease l, with its words (a set of FOCUS_WORDS_CAP slots,
 * or NULL): learn from its relevance, and count how good its prediction
 * was.  Returns whether the page was a sample of the pruned (focus-shape.c):
 * one off topic is no tunnel's first page (its links are not followed). */
bool focus_learn(struct focus *f, uint16_t cat, const struct frontier_lease *l,
		 const uint64_t *words, bool has_relevance, double relevance);

/* A link of fu's category that the prediction pruned (when its page's
 * links were predicted, or at its lease): held aside while samples of its
 * shape of URL on its host are taken, and queued if they undo the pruning
 * (focus_release(); docs/focus.md "Samples of the pruned").  The
 * writer's; fu is copied. */
void focus_reserve(struct focus *f, const struct frontier_url *fu);

/* Hands each link held aside whose shape's pruning was undone since the
 * last call to queue (frontier_add(), say), with priority 2 and no
 * prediction, and forgets it.  Returns 0, or the first negative code
 * queue returned (the links after it are dropped).  The writer's. */
int focus_release(struct focus *f,
		  int (*queue)(void *arg, const struct frontier_url *fu),
		  void *arg);

/* Has focus links it holds to sample, or to queue, now that the crawl
 * ran dry (focus_reconsider())?  Safe from the loop's thread. */
bool focus_reserve_pending(struct focus *f);

/* The crawl ran dry (nothing queued, nothing in flight): of each shape
 * of URL whose pruning is being sampled and that holds links, one is
 * taken as its next sample (as the samples' budget allows), for
 * focus_release() to queue.  The writer's. */
void focus_reconsider(struct focus *f);

/* A held link focus released to explore (explored: FOCUS_PRED_EXPLORE)
 * or a root to look at (FOCUS_PRED_LOOK) was queued, or not (it was
 * queued before, or refused): the floor counts it on its way until it is
 * written back (focus_page()).  The writer's. */
void focus_explore_queued(struct focus *f, uint16_t cat, bool explored,
			  bool queued);

/* Of the pruned links kept to explore, the best the floor allows now to
 * focus_release() (after a round whose explored links were all queued
 * before: they were fetched through other links since).  Returns
 * whether any was.  The writer's. */
bool focus_explore_more(struct focus *f);

/* A page of lease l was written (first fetched, or not fetched): scored
 * when it was fetched with a 2xx answer, with its own relevance (as its
 * record keeps it).  Counts the running harvest of the floor and the
 * pages fetched by exploring.  The writer's. */
void focus_page(struct focus *f, const struct frontier_lease *l, bool scored,
		bool has_relevance, double relevance);

/* A category's harvest floor, as the writer committed it. */
struct focus_floor {
	double min_harvest;
	bool explores; /* keywords, a tunnel, the prediction, a floor < 1 */
	uint64_t scored, on;            /* the running harvest */
	uint64_t queued;                /* pruned links queued to explore */
	uint64_t explored, explored_on; /* pages fetched by exploring */
	uint64_t in_flight;             /* queued and not yet written */
	uint32_t held;                  /* pruned links kept to explore */
};

/* Category cat's floor into *ret; false when it has no keywords.  Safe
 * from any thread. */
bool focus_floor(struct focus *f, uint16_t cat, struct focus_floor *ret);

/* Take the learned class rates from the store's counters (at start). */
int focus_load(struct focus *f, struct store *s, MDB_txn *txn);

/* Count n events of counter k (enum store_focus_counter) for cat, in
 * the writer's current batch. */
void focus_count(struct focus *f, uint16_t cat, unsigned k, uint64_t n);

/* After frontier_add_batch_cat(): note in the store every URL of fu that
 * was queued before under another category (other[i]), under fu[i]'s
 * category, and count it. */
int focus_note_also(struct focus *f, struct store *s, MDB_txn *txn,
		    const struct frontier_url *fu, size_t n,
		    const uint16_t *other);

/* Before the batch commits: add its counts to the store. */
int focus_flush(struct focus *f, struct store *s, MDB_txn *txn);

/* What focus pruned and noted, as the crawl's summary counts it. */
struct focus_tally {
	uint64_t pruned_scope, pruned_relevance, pruned_predicted;
	uint64_t also; /* found again under another category */
};

/* After the commit (ok) or the abort: add the batch's counts to t
 * (under the caller's lock), and start a new batch. */
void focus_batch_end(struct focus *f, bool ok, struct focus_tally *t);

#endif
