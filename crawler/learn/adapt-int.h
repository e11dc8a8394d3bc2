/* adapt-int.h — adaptive normalization's private header: the state its
 * three files share (struct adapt, its rules and hosts, the small table
 * they are kept in), the layout constants of the "adapt" database they
 * all read, and the functions each lends the others.  adapt.c holds the
 * core (the design story, tables, hosts, rules in memory and in the
 * store, opening, keys, stats, the listing), adapt-evidence.c the
 * evidence and the gate, adapt-hold.c holding, covering and auditing.
 * Only the files of crawler/learn/ include it (tests/check-layout.sh); learn.h
 * is the public side. */
#ifndef ADAPT_INT_H
#define ADAPT_INT_H

#include <pthread.h>

#include "bounds.h"
#include "learn.h"
#include "sc.h"

/* Candidates per host at most: pairs of twin pages or soft-404s each
 * propose a rewrite that never earns support; past this many a host gets
 * no new ones. */
#define HOST_RULES_MAX 64
/* Rules one held URL names at most. */
#define HELD_RULES_MAX 8
/* Held value: flags(1, ADAPT_HOLD_*), depth(2), category(2), offtopic(1),
 * redirects(1), n ids(1), ids(4 each), found length(2), found, strict. */
#define HELD_HEAD 8
/* A held URL's flag beside learn.h's: a key whose document was fetched
 * under another form (cover_one()); its found URL is that form. */
#define HOLD_COVER 0x80
/* A cover whose key some page linked (queued before its page was
 * fetched under another form, or linked since: adapt_linked()).  A cover
 * without it stands for a key nobody linked: a retirement forgets it
 * rather than fetch it. */
#define HOLD_LINKED 0x40
/* A page's key byte and its value before its URL: signature, depth,
 * category, SimHash, images (parse_page.media).  (Stores of the version before
 * kept pages under 'p', without the SimHash: they are not read, and their rules
 * learn anew.) */
#define PAGE_BYTE 'q'
#define PAGE_HEAD 36
/* The shapes of a URL's last path segment (shape_of()).  A scoped step
 * (one that adds a trailing slash) applies to the URLs of a shape and a
 * route (the path's directory, digits aside: route_of()) it was seen to
 * hold on, and to every route of a shape once it held on ROUTES_ANY of
 * them: learned from /sections that redirect to /sections/, it leaves
 * /gallery/album2 and /story_205 alone. */
enum { SHAPE_ROOT, SHAPE_WORD, SHAPE_FILE, SHAPES };
#define SHAPES_ALL ((1u << SHAPES) - 1)
/* A rule's shapes: the shapes seen (bits 0-2) and those that hold on any
 * route (bits 3-5). */
#define SHAPE_ANY(k) (1u << (SHAPES + (k)))
#define ROUTES_KEPT 1
#define ROUTES_ANY (ROUTES_KEPT + 1)
#define SCOPED_STEPS NORM_ADD_TRAILING_SLASH
/* Two texts whose SimHashes differ in at most this many bits are one
 * page for the rules' evidence, though their signatures differ: a
 * rotating advert line with a timestamp moves a page of 30 words 3 to 17
 * bits, two pages of different words 18 to 46 (docs/adaptive.md).  Such a
 * pair is no counter-example; it is no support either, which takes the
 * same text. */
#define NOISE_BITS 12
/* The rule id that the held entries ('h') of the URLs a host's trusted
 * claims merged name (adapt-claim.c): no rule has it. */
#define CLAIM_RULE_ID UINT32_MAX
/* ---- A small open-addressing table of 64-bit keys ------------------- */

struct tval {
	uint64_t a, b, c, d;
};

struct tab {
	uint64_t *k; /* 0: empty */
	struct tval *v;
	size_t cap, n;
};

/* ---- State ------------------------------------------------------------ */

/* A URL shape of a host and what its pages said (adapt-skip.c). */
struct sshape {
	uint64_t h;    /* hash of host and shape */
	uint8_t state; /* enum adapt_state */
	char host[NORM_HOST_MAX + 1];
	char *shape; /* malloc'd; freed only at adapt_close() */
	uint64_t support, audits, audit_fail, skipped;
	/* Its URLs leased while it was active (skipped or audited), for
	 * the audits' share.  The scheduler's, under a->mu. */
	uint64_t leased;
	int64_t created, changed;
};

/* A host's claims (adapt-claim.c): its pages' rel=canonical naming
 * another URL of it.  state is an enum adapt_state: candidate, active
 * (trusted), retired, refuted. */
struct chost {
	char name[NORM_HOST_MAX + 1];
	uint8_t state;
	/* Claims verified and failed, the distinct named URLs verified,
	 * the audits among them and their failures, named URLs merged. */
	uint64_t verified, failed, docs, audits, audit_fail, merged;
	int64_t created, changed;
};

struct arule {
	uint32_t id;
	uint8_t state;
	char scope[NORM_HOST_MAX + 1]; /* the host it applies to */
	struct norm_rule r;
	uint64_t support, counters, audits, audit_fail, held, saved;
	/* It held HEAVY_KEY URLs onto one key and one of them was audited
	 * (audit_due()).  In memory: after a restart it may be again. */
	bool heavy_audited;
	bool transferred; /* made active by kind_prior(), on less support */
	/* Where it was seen to hold (a SCOPED_STEPS step applies only
	 * there): the shapes byte (SHAPE_ANY()), and per shape the routes
	 * (route_of(), 0: none) until it holds on any. */
	uint16_t shapes;
	uint32_t routes[SHAPES][ROUTES_KEPT];
	uint64_t keys; /* keys it held URLs onto (audit_due()) */
	/* Active, and its scope grew since its host's pages were last
	 * covered (gate()).  In memory. */
	bool rescoped;
	int64_t created, changed;
	char *ca, *cb;  /* the first counter-example (malloc'd), or NULL */
	struct tab img; /* image hash -> signature, URL hash */
	struct tab sup; /* supporting signatures */
	bool dirty;
};

struct ahost {
	char name[NORM_HOST_MAX + 1];
	uint32_t *rules; /* indices into a->rules: its own and alias rules */
	size_t n_rules, cap_rules;
	unsigned own; /* rules scoped to it */
	/* The active set, compiled (under a->mu), pointing into a->rules
	 * (compile_all() after they move). */
	const char *alias; /* the site's name, or NULL */
	uint32_t steps;
	uint32_t shape_steps[SHAPES]; /* SCOPED_STEPS on any route */
	/* Active scoped rules that hold on some routes only. */
	const struct arule *routed[4];
	size_t n_routed;
	const char *params[HOST_RULES_MAX];
	size_t n_params;
	const struct norm_rule *dust[HOST_RULES_MAX];
	size_t n_dust;
	/* A rule of this host is active, or a candidate without a
	 * counter-example: the host is learning (adapt_learning()). */
	bool learning;
	/* Its skip shapes that are candidates (adapt-skip.c): learning
	 * too.  Not reset by host_compile(). */
	unsigned skip_candidates;
};

struct adapt {
	struct store *s;
	struct frontier *fr;
	struct adapt_opts o;
	double z;             /* one-sided normal quantile of o.confidence */
	double retire_below;  /* o.retire_below, or its default */
	unsigned audit_every; /* o.audit_every, or its default */
	pthread_mutex_t mu;
	struct arule *rules;
	size_t n_rules, cap_rules;
	uint32_t next_id;
	struct ahost *hosts;
	size_t n_hosts, cap_hosts;
	struct tab host_ix; /* host name hash -> index + 1 */
	struct tab groups;  /* signature -> folded path hashes, generic */
	/* Signatures of pages whose text changed between two fetches of
	 * one URL ('n' entries): no counter-example for any rule. */
	struct tab noisy;
	struct tab audit_ix; /* strict URL hash of each audit under way */
	/* Rules' keys (the first 8 bytes of their sc_url_key()) onto which
	 * new links were held: a, how many; b, whether the key's sampled
	 * audit was made.  The writer's. */
	struct tab audited;
	/* Keys whose document was fetched under another form (cover_one()),
	 * by the first 8 bytes of their sc_url_key(): a key queued before
	 * its page was is not fetched again when leased. */
	struct tab cover_ix;
	/* Keys (XXH3) that a lease of a form they rewrite has claimed
	 * (adapt_claim()).  In memory only: a restart forgets them, and
	 * the seen set says the rest. */
	struct tab claims;
	/* Rule kinds (kind_hash()): a, hosts where the kind is active; b,
	 * hosts where it was refuted or retired. */
	struct tab kinds;
	struct crawl_rule_stats st;
	/* The rules whose evidence or counts changed since the last
	 * save_dirty(), by index: the gate and the save visit only these,
	 * not every rule, on each page.  dirty_all: the list could not
	 * grow, visit all. */
	uint32_t *dirty_ix;
	size_t n_dirty, cap_dirty;
	bool dirty_all;
	bool replay; /* adapt_open(): evidence without counting it again */
	/* Pages that give nothing (adapt-skip.c): the shapes, by hash
	 * (index + 1), and the shapes that had a page without both
	 * noindex and nofollow. */
	struct sshape *skips;
	size_t n_skips, cap_skips;
	struct tab skip_ix, skip_open;
	/* The hosts' claims (adapt-claim.c), by host hash (index + 1). */
	struct chost *claims_h;
	size_t n_claims_h, cap_claims_h;
	struct tab claim_ix;
};

/* ---- Shared between the files ----------------------------------------- */

/* adapt.c: tables, state, helpers, hosts, rules. */
uint64_t tkey(uint64_t k);
struct tval *tab_get(const struct tab *t, uint64_t k);
struct tval *tab_put(struct tab *t, uint64_t k, bool *added);
void tab_free(struct tab *t);
void mark_dirty(struct adapt *a, struct arule *r);
struct arule *find_rule(struct adapt *a, uint32_t id);
uint64_t sig64(const unsigned char sig[16]);
uint64_t hash_str(const char *s, size_t n);
int64_t now_ms(void);
bool scoped(const struct arule *r);
bool rule_covers(const struct arule *r, const char *url,
		 const struct norm_url *u);
bool scope_note(struct adapt *a, struct arule *r, const char *url,
		const struct norm_url *u);
struct ahost *host_find(struct adapt *a, const char *name, size_t n);
struct ahost *host_get(struct adapt *a, const char *name, size_t n);
void host_compile(struct adapt *a, struct ahost *h);
/* The 'q' key of the page fetched as url (strict, len bytes, u its
 * components): PAGE_BYTE, its host's hash, its URL key. */
#define PAGE_KEY_LEN 25
void page_key(const char *url, size_t len, const struct norm_url *u,
	      unsigned char key[PAGE_KEY_LEN]);

/* url's held entry ('h' key(16), its key in hkey) when url is a cover
 * (cover_ix) no page linked yet: 1 and *v, *vl borrowed until txn ends;
 * 0 when it is not; a store error. */
int cover_get(struct adapt *a, MDB_txn *txn, const char *url, size_t len,
	      unsigned char hkey[17], const void **v, size_t *vl);

void support_up(struct adapt *a, struct arule *r);
int save_dirty(struct adapt *a, MDB_txn *txn);
int save_next_id(struct adapt *a, MDB_txn *txn);
bool same_rule(const struct arule *x, const char *scope,
	       const struct norm_rule *r);
int add_rule_mem(struct adapt *a, const struct arule *src, uint32_t *idx);

/* adapt-evidence.c: kinds and evidence (the gate's bounds: bounds.h). */
int kind_add(struct adapt *a, const struct arule *r);
uint64_t fold_hash(const char *url, const struct norm_url *u);
int group_note(struct adapt *a, uint64_t sig, uint64_t f);
void note_counter(struct arule *r, const char *x, size_t xl, const char *y);
int page_rules(struct adapt *a, const char *url, size_t len,
	       const struct norm_url *u, uint64_t sig, uint64_t sh,
	       uint64_t media);

/* adapt-hold.c: retiring, covering, bad keys and their audits. */
int retire(struct adapt *a, MDB_txn *txn, struct arule *r);
int cover_host(struct adapt *a, MDB_txn *txn, const char *host);
int cover_one_as(struct adapt *a, MDB_txn *txn, const char *url, size_t len,
		 const char *own, size_t own_len, uint16_t depth, uint16_t cat);
int release_key(struct adapt *a, MDB_txn *txn, const char *key, size_t klen,
		int status, bool all);
void audit_counter(struct adapt *a, const void *ids, size_t vl, const char *url,
		   const char *key);
int audit_bad(struct adapt *a, MDB_txn *txn, const unsigned char akey[17],
	      unsigned *status);
int audit_end(struct adapt *a, MDB_txn *txn, const unsigned char *akey);
int held_put_raw(struct adapt *a, MDB_txn *txn, const unsigned char *key,
		 const struct frontier_url *fu, unsigned flags,
		 const char *strict, size_t sl, const uint32_t *rule_ids,
		 size_t n);
int retire_id(struct adapt *a, MDB_txn *txn, uint32_t id, const char *host);
size_t key_of(struct adapt *a, const char *url, size_t len, char *key);
size_t key_target(struct adapt *a, MDB_txn *txn, const char *key, size_t kl,
		  char *out);

/* adapt-skip.c: the skip shapes, loaded and freed with the rest. */
int skip_load(struct adapt *a, MDB_txn *txn);
void skip_free(struct adapt *a);

/* adapt-claim.c: the hosts' claims, loaded and freed with the rest. */
int claim_load(struct adapt *a, MDB_txn *txn);
void claim_free(struct adapt *a);
bool claim_learning(struct adapt *a, const char *host, size_t len);

#endif
