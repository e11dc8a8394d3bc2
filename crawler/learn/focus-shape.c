/* focus-shape.c — samples of what the prediction prunes, per host and
 * URL shape (docs/focus.md "Samples of the pruned").
 *
 * The prediction learns only from the pages it chose to fetch: a kind of
 * link it got wrong early (a site's paginated lists of the topic, whose
 * URLs and "Next page" links have no word of it, learned off topic from
 * other sites' lists) stays pruned, and nothing the crawl fetches tells
 * it otherwise.  So of the links a page on topic has and the prediction
 * prunes, a few of each shape of URL on each host are fetched all the
 * same, one at a time: a sample of the pruned, unbiased by the
 * prediction.  When SAMPLE_ON of them in a row turn out on topic (or
 * navigation pages of the topic, focus_nav_relevance()), the prediction
 * was wrong about that shape on that host and its links are kept from
 * then on; when one turns out off topic, the pruning was right and the
 * shape stays pruned (no more samples).  A sample off topic is no first
 * page of a tunnel (its links are not followed), a host whose samples
 * come back off topic is sampled no more (HOST_CREDIT), and a shape the
 * crawl fetched pages of on its host (SEEN_MAX) is not sampled: the
 * prediction chose among them.  The samples share one budget, paid back
 * only by samples that come back on topic (sample_budget()): where the
 * pruning was right, they stop after a page or two.
 *
 * The shape of a URL: its host, its path with every segment of digits
 * read as one "N" and the last of two or more segments as "<any>" (the slug,
 * the title, the id), and the names of its query's parameters, without
 * their values: /list?cat=opinion&page=3 is "list?cat&page",
 * /2024/05/17/a-slug is "N/N/N/<any>", /tag/stadium "tag/<any>".
 *
 * A table of struct shape, open addressing, grown by doubling; under
 * focus.mu (the writer predicts and learns, the scheduler asks at the
 * lease).  Memory grows with hosts times shapes, as the host table's
 * grows with hosts. */
#include "focus-int.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* Samples on topic in a row that undo the pruning of a shape (one off
 * topic keeps it pruned for good). */
#define SAMPLE_ON 2
/* The most a kept shape's score rises while its pages are watched
 * (shape_learn_locked()): a shape kept long is pruned again after this
 * many pages off topic more than on. */
#define SAMPLE_CAP 4
/* What a watched page off topic takes from a kept shape's score: a
 * shape kept on two samples whose pages are mostly off topic (a site of
 * three topics whose items share one URL shape) is pruned again after a
 * page or two, and the links it released are pruned at their lease. */
#define WATCH_OFF 2
/* Links of a shape pruned (from pages on topic) before the first
 * sample: a shape met once or twice costs little if pruned wrongly, and
 * sampling every such shape costs much (a blog platform's every blog
 * linked once from a post). */
#define SAMPLE_AFTER 4
/* ... or pruned links to it (a few lists every page of a site links). */
#define SAMPLE_AFTER_LINKS 12
/* The most pruned links a shape holds while it is sampled. */
#define HELD_MAX 64
/* The samples' budget (sample_budget()): one free sample once 100 pages
 * were learned from and one more for each SAMPLE_EVERY after, and
 * SAMPLE_PAY more for each sample that came back on topic.  A sample
 * costs one: so samples go on at the crawl's pace only while at least
 * one in SAMPLE_PAY comes back on topic, and where they do not (the
 * links a site of several topics prunes are mostly of its other topics)
 * they are held to the free share, half a page in a hundred.  Chosen on
 * webgen.py's tuning shapes (zine, news, wiki, portals, seeds 1-3 and
 * zine 7-9; docs/focus.md). */
#define SAMPLE_EVERY 200
#define SAMPLE_PAY 2
/* Earlier samples of a shape whose pages were not learned from yet,
 * still waited for: a sample is queued at the lowest priority on its
 * host and may come after another was taken for its shape
 * (SAMPLE_STALE); what it says still counts, for its host and the
 * budget (before, such a sample was learned as any page: it cost its
 * page and told nothing). */
#define SAMPLE_PAST 4
/* Pages of a shape on a host learned from (at any time) after which its
 * links are not sampled: the crawl fetched that kind of page there, and
 * the prediction picks among them by their words (a wiki's articles). */
#define SEEN_MAX 6
/* A host's samples off topic fewer than HOST_CREDIT and one for each of
 * its samples on topic: a host whose first sample comes back off topic
 * (a wiki's edit page) is not sampled again, on any shape. */
#define HOST_CREDIT 1u
/* A sample not learned from after this many pages learned (a URL
 * fetched already, whose link was pruned; a redirect, an error): another
 * may be taken. */
#define SAMPLE_STALE 32
/* How far a pager's number may be from its page's (shape_pager()): a
 * list links its next few pages; an item's links to other items by id
 * are further apart. */
#define PAGER_SPAN 10

struct shape {
	uint64_t key;     /* 0: empty */
	uint64_t pending; /* the URL sampled, not yet learned (0: none) */
	int16_t score;    /* samples on topic less those off */
	uint64_t taken;   /* focus.learned when pending was taken */
	uint16_t pruned;  /* pruned links from pages on topic */
	uint16_t seen;    /* pages of the shape learned from */
	uint8_t state;    /* SHAPE_* */
	uint16_t n_held;
	struct held *held; /* the reserve: pruned links while sampling */
	uint64_t past[SAMPLE_PAST]; /* earlier samples (0: none) */
};

enum { SHAPE_SAMPLING, SHAPE_KEPT, SHAPE_PRUNED };

/* Per category and host, what its samples came to. */
struct sample_host {
	uint64_t key; /* 0: empty */
	uint16_t on;  /* learned: on topic (or navigation pages of it) */
	uint16_t off; /* learned: off topic */
};

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

/* The shape's key of url (components u) in category cat. */
static uint64_t shape_key(uint16_t cat, const char *url,
			  const struct norm_url *u)
{
	uint64_t h = fnv(0xcbf29ce484222325ull ^ (cat + 1u), url + u->host_off,
			 u->host_len);
	const char *p = url + u->path_off, *end = p + u->path_len;
	size_t segs = 0;
	for (const char *q = p; q < end; q++)
		segs += *q == '/';
	size_t seg = 0;
	while (p < end) {
		const char *s = p + (*p == '/'), *e = s;
		while (e < end && *e != '/')
			e++;
		seg++;
		bool digits = e > s;
		for (const char *q = s; q < e && digits; q++)
			digits = *q >= '0' && *q <= '9';
		h = fnv(h, "/", 1);
		if (digits)
			h = fnv(h, "N", 1);
		else if (seg == segs && segs >= 2)
			h = fnv(h, "*", 1);
		else
			h = fnv(h, s, (size_t)(e - s));
		p = e;
	}
	if (u->has_query) {
		const char *q = url + u->query_off, *qe = q + u->query_len;
		h = fnv(h, "?", 1);
		while (q < qe) {
			const char *e = q;
			while (e < qe && *e != '=' && *e != '&')
				e++;
			h = fnv(h, q, (size_t)(e - q));
			h = fnv(h, "&", 1);
			while (e < qe && *e != '&')
				e++;
			q = e < qe ? e + 1 : e;
		}
	}
	return h ? h : 1;
}

/* Does category cat take samples of the pruned (struct
 * crawl_category.samples)?  Off, no shape is made: nothing is kept,
 * held or sampled, and the prediction's pruning stands as it is. */
static bool samples_on(const struct focus *f, uint16_t cat)
{
	const struct view *v = view_of(f);
	return cat < v->n && v->cats[cat].samples;
}

struct held *held_new(const struct frontier_url *fu)
{
	struct held *h = malloc(sizeof(*h) + fu->url_len + fu->found_len + 2);
	if (!h)
		return NULL;
	h->fu = *fu;
	h->u = *fu->u;
	memcpy(h->buf, fu->url, fu->url_len);
	h->buf[fu->url_len] = '\0';
	memcpy(h->buf + fu->url_len + 1, fu->found, fu->found_len);
	h->buf[fu->url_len + 1 + fu->found_len] = '\0';
	h->fu.url = h->buf;
	h->fu.found = h->buf + fu->url_len + 1;
	h->fu.u = &h->u;
	h->fu.etag = h->fu.last_modified = NULL;
	h->fu.etag_len = h->fu.last_modified_len = 0;
	h->fu.revisit = false;
	h->fu.priority = 2;
	h->next = NULL;
	return h;
}

void held_free(struct held *h)
{
	while (h) {
		struct held *next = h->next;
		free(h);
		h = next;
	}
}

/* The samples of the host of url (components u) in category cat. */
static struct sample_host *host_of(struct focus *f, uint16_t cat,
				   const char *url, const struct norm_url *u)
{
	uint64_t key = fnv(0x84222325cbf29ce4ull ^ (cat + 1u),
			   url + u->host_off, u->host_len);
	key = key ? key : 1;
	if (2 * (f->sh_used + 1) > f->sh_mask + 1) {
		size_t cap = f->sh ? 2 * (f->sh_mask + 1) : 64;
		struct sample_host *v = calloc(cap, sizeof(*v));
		if (!v)
			return NULL;
		for (size_t i = 0; f->sh && i <= f->sh_mask; i++) {
			if (!f->sh[i].key)
				continue;
			size_t k = f->sh[i].key & (cap - 1);
			while (v[k].key)
				k = (k + 1) & (cap - 1);
			v[k] = f->sh[i];
		}
		free(f->sh);
		f->sh = v;
		f->sh_mask = cap - 1;
	}
	for (size_t i = key & f->sh_mask;; i = (i + 1) & f->sh_mask) {
		if (f->sh[i].key == key)
			return &f->sh[i];
		if (!f->sh[i].key) {
			f->sh[i].key = key;
			f->sh_used++;
			return &f->sh[i];
		}
	}
}

/* May the host h take one more sample (HOST_CREDIT)?  Only samples
 * learned from count: one out may be a URL fetched already (its link
 * pruned where it was found), never learned. */
static bool host_may(const struct sample_host *h)
{
	return h && h->off < HOST_CREDIT + h->on;
}

/* Shape s takes the URL of key k as its sample (0: none).  A sample
 * it waited for before is still waited for (past). */
static void set_pending(struct focus *f, struct shape *s, uint64_t k)
{
	if (s->pending && k) {
		memmove(s->past + 1, s->past,
			(SAMPLE_PAST - 1) * sizeof(*s->past));
		s->past[0] = s->pending;
	}
	s->pending = k;
	s->taken = f->learned;
}

/* Was the URL of key k a sample of s, taken earlier than its pending
 * one?  It is waited for no more. */
static bool past_sample(struct shape *s, uint64_t k)
{
	for (size_t i = 0; i < SAMPLE_PAST; i++)
		if (s->past[i] == k) {
			s->past[i] = 0;
			return true;
		}
	return false;
}

/* The samples the budget allows so far. */
static uint64_t sample_allowed(const struct focus *f)
{
	return (f->learned + SAMPLE_EVERY / 2) / SAMPLE_EVERY +
	       SAMPLE_PAY * f->samples_on;
}

/* May one more sample be taken?  Each costs a page, off topic where the
 * pruning was right, and a harvest held within a hundredth of what it
 * was allows about one page off topic in a hundred: so the free samples
 * are half that (none in a crawl's first 100 pages: a wiki of 90 pages
 * takes none), and the rest are paid by the samples that came back on
 * topic (SAMPLE_PAY).  Counts the sample if so. */
static bool sample_budget(struct focus *f)
{
	if (f->samples >= sample_allowed(f))
		return false;
	f->samples++;
	return true;
}

static uint64_t url_key(const char *url, const struct norm_url *u)
{
	uint64_t k = XXH3_64bits(url, u->len);
	return k ? k : 1;
}

static struct shape *shape_of(struct focus *f, uint64_t key, bool add)
{
	if (add && 2 * (f->ss_used + 1) > f->ss_mask + 1) {
		size_t cap = f->ss ? 2 * (f->ss_mask + 1) : 256;
		struct shape *v = calloc(cap, sizeof(*v));
		if (!v)
			return NULL;
		for (size_t i = 0; f->ss && i <= f->ss_mask; i++) {
			if (!f->ss[i].key)
				continue;
			size_t k = f->ss[i].key & (cap - 1);
			while (v[k].key)
				k = (k + 1) & (cap - 1);
			v[k] = f->ss[i];
		}
		free(f->ss);
		f->ss = v;
		f->ss_mask = cap - 1;
	}
	if (!f->ss)
		return NULL;
	for (size_t i = key & f->ss_mask;; i = (i + 1) & f->ss_mask) {
		if (f->ss[i].key == key)
			return &f->ss[i];
		if (!f->ss[i].key) {
			if (!add)
				return NULL;
			f->ss[i].key = key;
			f->ss_used++;
			return &f->ss[i];
		}
	}
}

/* May s take its next sample from what it holds, as its host's samples
 * allow? */
static bool held_may(struct focus *f, const struct shape *s)
{
	return s->held && host_may(host_of(f, s->held->fu.category,
					   s->held->fu.url, s->held->fu.u));
}

/* The next sample of s: a link it holds, queued (focus_release()). */
static void take_held(struct focus *f, struct shape *s)
{
	struct held *h = s->held;
	s->held = h->next;
	s->n_held--;
	h->next = f->released;
	f->released = h;
	set_pending(f, s, url_key(h->fu.url, h->fu.u));
}

/* Has s met the links to be sampled (SAMPLE_AFTER), and may it? */
static bool shape_ready(const struct shape *s)
{
	return s->seen < SEEN_MAX &&
	       (s->n_held >= SAMPLE_AFTER || s->pruned >= SAMPLE_AFTER_LINKS);
}

/* s waits for the budget, unless it does already. */
static void wait_for_budget(struct focus *f, const struct shape *s)
{
	for (size_t i = 0; i < f->n_waiting; i++)
		if (f->waiting[i] == s->key)
			return;
	if (f->n_waiting < WAITING_MAX)
		f->waiting[f->n_waiting++] = s->key;
}

/* Shapes that waited for the budget, oldest first, while it allows:
 * each gets a sample from what it holds. */
static void take_waiting(struct focus *f)
{
	while (f->n_waiting && f->samples < sample_allowed(f)) {
		struct shape *s = shape_of(f, f->waiting[0], false);
		memmove(f->waiting, f->waiting + 1,
			--f->n_waiting * sizeof(*f->waiting));
		if (s && s->state == SHAPE_SAMPLING && !s->pending &&
		    held_may(f, s) && sample_budget(f))
			take_held(f, s);
	}
}

bool shape_keep_locked(struct focus *f, uint16_t cat, const char *url,
		       const struct norm_url *u, bool sample)
{
	if (!samples_on(f, cat))
		return false;
	struct shape *s = shape_of(f, shape_key(cat, url, u), sample);
	if (!s)
		return false;
	if (s->state != SHAPE_SAMPLING)
		return s->state == SHAPE_KEPT;
	uint64_t k = url_key(url, u);
	if (s->pending == k)
		return true;
	if (!sample)
		return false;
	if (s->pruned < UINT16_MAX)
		s->pruned++;
	if (!shape_ready(s))
		return false;
	if (s->pending && f->learned - s->taken < SAMPLE_STALE)
		return false;
	if (!host_may(host_of(f, cat, url, u)))
		return false;
	if (!sample_budget(f)) {
		/* Its turn comes when the budget allows (take_waiting()). */
		wait_for_budget(f, s);
		return false;
	}
	set_pending(f, s, k);
	return true;
}

bool shape_learn_locked(struct focus *f, uint16_t cat, const char *url,
			const struct norm_url *u, bool on, bool pruned)
{
	if (!samples_on(f, cat))
		return false;
	take_waiting(f);
	struct shape *s = shape_of(f, shape_key(cat, url, u), true);
	if (s && s->seen < UINT16_MAX)
		s->seen++;
	if (!s)
		return false;
	uint64_t k = url_key(url, u);
	bool now = s->pending && s->pending == k;
	bool sample = now || past_sample(s, k);
	if (now)
		set_pending(f, s, 0);
	if (sample) {
		/* What a sample says of its host and of the budget, whenever
		 * it comes; of its shape, while the shape is sampled. */
		struct sample_host *h = host_of(f, cat, url, u);
		if (h && on && h->on < UINT16_MAX)
			h->on++;
		else if (h && !on && h->off < UINT16_MAX)
			h->off++;
		f->samples_on += on;
	}
	if (s->state == SHAPE_KEPT && pruned) {
		/* Kept, and watched: a shape whose pages turn out off
		 * topic more often than not is pruned again. */
		s->score += on ? 1 : -WATCH_OFF;
		if (s->score > SAMPLE_CAP)
			s->score = SAMPLE_CAP;
		if (s->score < 0)
			s->state = SHAPE_PRUNED;
	}
	if (!sample || s->state != SHAPE_SAMPLING)
		return sample;
	s->score += on ? 1 : -1;
	s->state = !on                     ? SHAPE_PRUNED
		   : s->score >= SAMPLE_ON ? SHAPE_KEPT
					   : SHAPE_SAMPLING;
	if (s->state == SHAPE_KEPT) {
		/* What it held is queued (focus_release()). */
		struct held **t = &s->held;
		while (*t)
			t = &(*t)->next;
		*t = f->released;
		f->released = s->held;
	} else if (s->state == SHAPE_PRUNED) {
		held_free(s->held);
	}
	if (s->state != SHAPE_SAMPLING) {
		s->held = NULL;
		s->n_held = 0;
	} else if (s->held) {
		/* The next sample, from what it holds (no other link of it
		 * may come), as the budget allows. */
		wait_for_budget(f, s);
		take_waiting(f);
	}
	return true;
}

bool shape_same(const char *a, const struct norm_url *au, const char *b,
		const struct norm_url *bu)
{
	return shape_key(0, a, au) == shape_key(0, b, bu);
}

/* The query parameter at *p (before end): its name and value, *p moved
 * past it; false at the end. */
static bool next_param(const char **p, const char *end, const char **name,
		       size_t *name_len, const char **val, size_t *val_len)
{
	if (*p >= end)
		return false;
	const char *b = *p + (**p == '&'), *e = b;
	while (e < end && *e != '&')
		e++;
	const char *eq = memchr(b, '=', (size_t)(e - b));
	*name = b;
	*name_len = (size_t)((eq ? eq : e) - b);
	*val = eq ? eq + 1 : e;
	*val_len = (size_t)(e - *val);
	*p = e;
	return true;
}

/* The number that s[n] is, when it is 1 to 9 digits; else -1. */
static long digits_of(const char *s, size_t n)
{
	long v = 0;
	if (!n || n > 9)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* The segments of path p[n] that are not empty. */
static unsigned segments(const char *p, size_t n)
{
	unsigned k = 0;
	for (size_t i = 0; i < n; i++)
		k += p[i] != '/' && (i == 0 || p[i - 1] == '/');
	return k;
}

/* Where the path segment that ends at p[end] starts. */
static size_t segment_start(const char *p, size_t end)
{
	while (end > 0 && p[end - 1] != '/')
		end--;
	return end;
}

/* Is the segment before the one that starts at p[s] a number?  A number
 * after a number is a date's or an item's part (/2024/06/ to /2024/07/,
 * a blog's months; /story/7/2), not a list's page. */
static bool after_number(const char *p, size_t s)
{
	if (s < 2)
		return false;
	size_t b = segment_start(p, s - 1);
	return digits_of(p + b, s - 1 - b) >= 0;
}

/* shape_pager() for a number in the path, the queries alike: b's path
 * is a's but for its last segment, a number on both sides at most
 * PAGER_SPAN apart, after two segments or more that name the list
 * (/topics/sports/2 to /3; /item/48 to /49 is an item's neighbour,
 * unless chain), or a's with one more segment, a number up to
 * PAGER_SPAN, after two or more (/topics/sports to /2); in both, the
 * segment before the number is no number (after_number()).  A final
 * slash counts when both have it (/x/page/2/ to /x/page/3/). */
static bool path_pager(const char *a, const struct norm_url *au, const char *b,
		       const struct norm_url *bu, bool chain)
{
	if (au->has_query != bu->has_query || au->query_len != bu->query_len ||
	    memcmp(a + au->query_off, b + bu->query_off, au->query_len) != 0)
		return false;
	const char *pa = a + au->path_off, *pb = b + bu->path_off;
	size_t la = au->path_len, lb = bu->path_len;
	if (la > 1 && lb > 1 && pa[la - 1] == '/' && pb[lb - 1] == '/') {
		la--;
		lb--;
	}
	size_t sa = segment_start(pa, la), sb = segment_start(pb, lb);
	long y = digits_of(pb + sb, lb - sb);
	if (y < 0)
		return false;
	size_t at = la > 1 && pa[la - 1] == '/' ? la - 1 : la;
	if (sb == at + 1 && memcmp(pa, pb, at) == 0 && pb[at] == '/')
		return y <= PAGER_SPAN && segments(pa, at) >= 2 &&
		       !after_number(pa, at + 1);
	long x = digits_of(pa + sa, la - sa);
	if (x < 0 || x == y || labs(x - y) > PAGER_SPAN || sa != sb ||
	    memcmp(pa, pb, sa) != 0)
		return false;
	return (segments(pa, sa) >= 2 || chain) && !after_number(pa, sa);
}

bool shape_pager(const char *a, const struct norm_url *au, const char *b,
		 const struct norm_url *bu, bool chain)
{
	if (au->host_len != bu->host_len ||
	    memcmp(a + au->host_off, b + bu->host_off, au->host_len) != 0)
		return false;
	if (au->path_len != bu->path_len ||
	    memcmp(a + au->path_off, b + bu->path_off, au->path_len) != 0)
		return path_pager(a, au, b, bu, chain);
	if (!bu->has_query)
		return false;
	const char *pa = a + au->query_off, *ea = pa + au->query_len;
	const char *pb = b + bu->query_off, *eb = pb + bu->query_len;
	const char *na = NULL, *va = NULL, *nb = NULL, *vb = NULL;
	size_t nal = 0, val = 0, nbl = 0, vbl = 0;
	unsigned params = 0, differ = 0;
	bool added = false;
	for (;;) {
		bool ha = au->has_query &&
			  next_param(&pa, ea, &na, &nal, &va, &val);
		bool hb = next_param(&pb, eb, &nb, &nbl, &vb, &vbl);
		if (!hb) {
			if (ha)
				return false;
			break;
		}
		params++;
		if (!ha) {
			/* The page without it: its first page, the link its
			 * next (/story/1 and /story/1?page=2).  Last only. */
			long v = digits_of(vb, vbl);
			if (added || v < 0 || v > PAGER_SPAN ||
			    next_param(&pb, eb, &nb, &nbl, &vb, &vbl))
				return false;
			added = true;
			break;
		}
		if (nal != nbl || memcmp(na, nb, nal) != 0)
			return false;
		if (val == vbl && memcmp(va, vb, val) == 0)
			continue;
		long x = digits_of(va, val), y = digits_of(vb, vbl);
		if (x < 0 || y < 0 || ++differ > 1 || labs(x - y) > PAGER_SPAN)
			return false;
	}
	/* Another page of one list is the same URL but for its page's
	 * number, which is one parameter of several (the others name the
	 * list: ?cat=opinion&page=3); a URL whose only parameter is a
	 * number is an item's (?id=48), and its neighbours are other
	 * items, unless the page was itself reached as the next page of
	 * one (chain: /story/7?page=2 to ?page=3). */
	return added ? differ == 0 : differ == 1 && (params >= 2 || chain);
}

void focus_reserve(struct focus *f, const struct frontier_url *fu)
{
	bool probe = probe_candidate(f, fu),
	     samples = samples_on(f, fu->category);
	if (!fu->u || !fu->u->len)
		return;
	pthread_mutex_lock(&f->mu);
	explore_hold_locked(f, fu);
	if (probe)
		probe_hold_locked(f, fu);
	if (!samples) {
		pthread_mutex_unlock(&f->mu);
		return;
	}
	struct shape *s = shape_of(f, shape_key(fu->category, fu->url, fu->u),
				   false);
	bool dup = false;
	for (const struct held *h = s ? s->held : NULL; h && !dup; h = h->next)
		dup = h->fu.url_len == fu->url_len &&
		      memcmp(h->fu.url, fu->url, fu->url_len) == 0;
	if (s && !dup && s->state == SHAPE_SAMPLING && s->n_held < HELD_MAX &&
	    shape_candidate_locked(f, fu)) {
		struct held *h = held_new(fu);
		if (h) {
			h->next = s->held;
			s->held = h;
			s->n_held++;
		}
	}
	pthread_mutex_unlock(&f->mu);
}

int focus_release(struct focus *f,
		  int (*queue)(void *arg, const struct frontier_url *fu),
		  void *arg)
{
	pthread_mutex_lock(&f->mu);
	struct held *h = f->released;
	f->released = NULL;
	pthread_mutex_unlock(&f->mu);
	int rc = 0;
	for (struct held *k = h; k && rc >= 0; k = k->next)
		rc = queue(arg, &k->fu);
	held_free(h);
	return rc < 0 ? rc : 0;
}

void shape_free(struct focus *f)
{
	for (size_t i = 0; f->ss && i <= f->ss_mask; i++)
		held_free(f->ss[i].held);
	held_free(f->released);
	probe_free(f);
	explore_free(f);
	free(f->ss);
	free(f->sh);
}

bool focus_reserve_pending(struct focus *f)
{
	pthread_mutex_lock(&f->mu);
	bool any = f->released != NULL || probe_pending_locked(f) ||
		   explore_pending_locked(f);
	for (size_t i = 0; f->ss && i <= f->ss_mask && !any; i++)
		any = f->ss[i].key && f->ss[i].state == SHAPE_SAMPLING &&
		      shape_ready(&f->ss[i]) && held_may(f, &f->ss[i]);
	pthread_mutex_unlock(&f->mu);
	return any;
}

void focus_reconsider(struct focus *f)
{
	pthread_mutex_lock(&f->mu);
	/* Nothing is in flight: a sample not learned from never will be. */
	for (size_t i = 0; f->ss && i <= f->ss_mask; i++) {
		struct shape *s = &f->ss[i];
		if (s->key && s->state == SHAPE_SAMPLING && shape_ready(s) &&
		    held_may(f, s) && sample_budget(f))
			take_held(f, s);
	}
	(void)probe_release_locked(f);
	/* Exploring goes last: the roots looked at count off topic until
	 * they are back. */
	explore_looks_locked(f);
	(void)explore_take_locked(f);
	pthread_mutex_unlock(&f->mu);
}
