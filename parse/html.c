/* html.c — link extraction from HTML with gumbo-parser.
 *
 * Three steps per page (four with parse_document()):
 *   0. parse_document() only: charset.c finds the charset and converts
 *      the body to UTF-8;
 *   1. gumbo builds the tree, allocating from a per-call arena (below);
 *   2. a first walk finds what applies to the whole page: the first
 *      <base href>, <meta name=robots>, the first <title>, and the
 *      number of link attributes (to size the dedup set); with
 *      parse_document() it also streams the body text to text.c, which
 *      computes the signatures on the way;
 *   3. a second walk normalizes and reports the links, and takes the
 *      first rel=canonical that normalizes against the final base.
 *
 * Walks follow parent pointers and index_within_parent instead of a stack,
 * so depth costs nothing.  The tree is never freed node by node either:
 * gumbo 0.10's gumbo_destroy_output() recurses once per level, and a page
 * of 100,000 nested tags would overflow a thread's stack.  The arena is
 * freed in one go instead.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <gumbo.h>
#include <xxhash.h>

#include "parse-int.h"

/* ---- the arena ------------------------------------------------------- */

/* The CPU-time budget of one parse.  gumbo 0.10 has no tree depth limit,
 * and some start tags (<div>, <ul>, <h1>, ...) scan the whole stack of open
 * elements: 100,000 nested <div> take about 12 s, and work grows with the
 * square of the nesting.  The arena checks the thread's CPU time every
 * ARENA_CLOCK_EVERY allocations (each element allocates) and gives up past
 * the budget.  Real pages of 10 MiB parse in well under a second. */
#define PARSE_CPU_MAX_NS (5ull * 1000 * 1000 * 1000)
#define ARENA_CLOCK_EVERY 256

/* gumbo's allocations come from large chunks that are freed together.
 * gumbo grows vectors and strings by allocating anew and freeing the old
 * block; the arena ignores frees, which at most doubles its size.  When
 * memory runs out or passes the limit, the arena jumps back to
 * parse_html(): gumbo 0.10 does not check for NULL, and all its state
 * lives in the arena, so abandoning the parse half-way leaks nothing. */
#define ARENA_CHUNK (256u * 1024)

struct chunk {
	struct chunk *next;
	size_t used, size;
	max_align_t data[];
};

struct arena {
	struct chunk *head;
	size_t total, limit;
	uint64_t cpu_deadline; /* ns of thread CPU time; 0: no clock */
	unsigned allocs;
	int err; /* why it jumped: an sc_err code */
	jmp_buf fail;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static _Noreturn void arena_fail(struct arena *a, int err)
{
	a->err = err;
	longjmp(a->fail, 1);
}

static void *arena_alloc(void *ud, size_t size)
{
	struct arena *a = ud;
	struct chunk *c = a->head;
	size_t need = (size + 15) & ~(size_t)15;

	if (++a->allocs % ARENA_CLOCK_EVERY == 0 && a->cpu_deadline &&
	    thread_cpu_ns() > a->cpu_deadline)
		arena_fail(a, SC_E_LIMIT);
	if (need < size)
		arena_fail(a, SC_E_NOMEM);
	if (!c || c->size - c->used < need) {
		size_t sz = need > ARENA_CHUNK ? need : ARENA_CHUNK;

		if (a->total + sz > a->limit)
			arena_fail(a, SC_E_NOMEM);
		c = sc_malloc(sizeof(*c) + sz);
		if (!c)
			arena_fail(a, SC_E_NOMEM);
		c->used = 0;
		c->size = sz;
		a->total += sz;
		/* A big block gets a chunk of its own behind the current
		 * one, so that the current one's free space is not lost. */
		if (sz > ARENA_CHUNK && a->head) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	c->used += need;
	return (char *)c->data + c->used - need;
}

static void arena_free(void *ud, void *ptr)
{
	(void)ud;
	(void)ptr;
}

static void arena_release(struct arena *a)
{
	struct chunk *c = a->head, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
}

/* ---- tree walking ---------------------------------------------------- */

static const GumboVector *children_of(const GumboNode *n)
{
	if (n->type == GUMBO_NODE_DOCUMENT)
		return &n->v.document.children;
	if (n->type == GUMBO_NODE_ELEMENT)
		return &n->v.element.children;
	/* A <template>'s children are its inert contents: not walked. */
	return NULL;
}

/* The node after n in document order, or NULL at the end. */
static const GumboNode *next_node(const GumboNode *n)
{
	const GumboVector *ch = children_of(n);

	if (ch && ch->length)
		return ch->data[0];
	while (n->parent) {
		const GumboVector *sib = children_of(n->parent);
		size_t i = n->index_within_parent + 1;

		if (sib && i < sib->length)
			return sib->data[i];
		n = n->parent;
	}
	return NULL;
}

static bool is_html(const GumboNode *n, GumboTag tag)
{
	return n->type == GUMBO_NODE_ELEMENT && n->v.element.tag == tag &&
	       n->v.element.tag_namespace == GUMBO_NAMESPACE_HTML;
}

static const char *attr(const GumboNode *n, const char *name)
{
	const GumboAttribute *a = gumbo_get_attribute(&n->v.element.attributes,
						      name);

	return a ? a->value : NULL;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* Calls fn for each white-space separated token of s (HTML's "set of
 * space-separated tokens"; robots content also allows commas). */
static unsigned token_bits(const char *s, bool commas,
			   unsigned (*bit)(const char *tok, size_t len))
{
	unsigned bits = 0;

	while (s && *s) {
		size_t n = 0;

		while (*s && (is_space(*s) || (commas && *s == ',')))
			s++;
		while (s[n] && !is_space(s[n]) && !(commas && s[n] == ','))
			n++;
		if (n)
			bits |= bit(s, n);
		s += n;
	}
	return bits;
}

static bool token_is(const char *tok, size_t len, const char *word)
{
	return strlen(word) == len && strncasecmp(tok, word, len) == 0;
}

static unsigned rel_bit(const char *tok, size_t len)
{
	if (token_is(tok, len, "nofollow"))
		return PARSE_REL_NOFOLLOW;
	if (token_is(tok, len, "canonical"))
		return PARSE_REL_CANONICAL;
	if (token_is(tok, len, "alternate"))
		return PARSE_REL_ALTERNATE;
	if (token_is(tok, len, "stylesheet"))
		return PARSE_REL_STYLESHEET;
	if (token_is(tok, len, "icon"))
		return PARSE_REL_ICON;
	static const char *const nav[] = { "next",   "prev",  "previous",
					   "search", "index", "contents",
					   "up",     "first", "last",
					   "start",  "help",  "glossary" };
	for (size_t i = 0; i < sizeof(nav) / sizeof(*nav); i++)
		if (token_is(tok, len, nav[i]))
			return PARSE_REL_NAV;
	return 0;
}

#define ROBOTS_NOINDEX PARSE_ROBOTS_NOINDEX
#define ROBOTS_NOFOLLOW PARSE_ROBOTS_NOFOLLOW

static unsigned robots_bit(const char *tok, size_t len)
{
	if (token_is(tok, len, "noindex"))
		return ROBOTS_NOINDEX;
	if (token_is(tok, len, "nofollow"))
		return ROBOTS_NOFOLLOW;
	if (token_is(tok, len, "none"))
		return ROBOTS_NOINDEX | ROBOTS_NOFOLLOW;
	return 0;
}

/* Directives of X-Robots-Tag that take a value after a colon: the word
 * before their colon names no user agent. */
static bool robots_valued(const char *tok, size_t len)
{
	static const char *const valued[] = { "unavailable_after",
					      "max-snippet",
					      "max-image-preview",
					      "max-video-preview" };
	for (size_t i = 0; i < sizeof(valued) / sizeof(*valued); i++)
		if (token_is(tok, len, valued[i]))
			return true;
	return false;
}

unsigned parse_robots_tag(const char *value, const char *agent_token)
{
	if (!value)
		return 0;
	const char *s = value;
	while (is_space(*s))
		s++;
	/* A leading "name:" is a user agent's, unless the name is a
	 * directive that takes a value. */
	size_t n = 0;
	while (s[n] && s[n] != ':' && s[n] != ',' && !is_space(s[n]))
		n++;
	size_t m = n;
	while (is_space(s[m]))
		m++;
	if (n && s[m] == ':' && !robots_valued(s, n)) {
		if (!agent_token || !token_is(s, n, agent_token))
			return 0;
		s += m + 1;
	}
	return token_bits(s, true, robots_bit);
}

static bool ascii_ieq(const char *s, const char *word)
{
	return s && strcasecmp(s, word) == 0;
}

/* The URL of a <meta http-equiv=refresh> content, by HTML's "shared
 * declarative refresh steps": a time ("5", "0.5", "."), then an optional
 * ';' or ',', then optionally "url" '=', then the URL, quoted or not.
 * Returns false when there is no URL (a refresh of the page itself). */
static bool refresh_url(const char *s, const char **url, size_t *len)
{
	const char *p = s, *q, *end;

	while (is_space(*p))
		p++;
	if (!(*p >= '0' && *p <= '9') && *p != '.')
		return false;
	while ((*p >= '0' && *p <= '9') || *p == '.')
		p++;
	while (is_space(*p))
		p++;
	if (*p == ';' || *p == ',')
		p++;
	while (is_space(*p))
		p++;
	q = p;
	if (strncasecmp(q, "url", 3) == 0) {
		q += 3;
		while (is_space(*q))
			q++;
		if (*q == '=') {
			q++;
			while (is_space(*q))
				q++;
			p = q;
		}
	}
	if (*p == '\'' || *p == '"') {
		char quote = *p++;

		end = strchr(p, quote);
		if (!end)
			end = p + strlen(p);
	} else {
		end = p + strlen(p);
		while (end > p && is_space(end[-1]))
			end--;
	}
	*url = p;
	*len = (size_t)(end - p);
	return *len > 0;
}

/* Append the text of a <title>, collapsing white space runs into one
 * space; trimming and the UTF-8-safe cut come after. */
static void title_append(char *buf, size_t *n, bool *space, const char *s)
{
	for (; *s; s++) {
		if (is_space(*s)) {
			*space = true;
			continue;
		}
		if (*space && *n > 0 && *n < PARSE_TITLE_MAX)
			buf[(*n)++] = ' ';
		*space = false;
		if (*n < PARSE_TITLE_MAX + 1)
			buf[(*n)++] = *s;
	}
}

static void title_finish(char *buf, size_t n)
{
	if (n > PARSE_TITLE_MAX) {
		/* Cut before the character that starts at PARSE_TITLE_MAX
		 * or overlaps it. */
		n = PARSE_TITLE_MAX;
		while (n > 0 && ((unsigned char)buf[n] & 0xc0) == 0x80)
			n--;
	}
	while (n > 0 && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
}

static void take_title(const GumboNode *t, struct parse_page *page)
{
	const GumboVector *ch = &t->v.element.children;
	size_t n = 0;
	bool space = false;

	for (size_t i = 0; i < ch->length; i++) {
		const GumboNode *c = ch->data[i];

		if (c->type == GUMBO_NODE_TEXT ||
		    c->type == GUMBO_NODE_WHITESPACE ||
		    c->type == GUMBO_NODE_CDATA)
			title_append(page->title, &n, &space, c->v.text.text);
	}
	title_finish(page->title, n);
}

/* The link attribute of an element, with its kind; NULL if it has none. */
static const char *link_attr(const GumboNode *n, uint8_t *kind)
{
	if (n->type != GUMBO_NODE_ELEMENT ||
	    n->v.element.tag_namespace != GUMBO_NAMESPACE_HTML)
		return NULL;
	switch (n->v.element.tag) {
	case GUMBO_TAG_A: *kind = PARSE_LINK_A; return attr(n, "href");
	case GUMBO_TAG_AREA: *kind = PARSE_LINK_AREA; return attr(n, "href");
	case GUMBO_TAG_LINK: *kind = PARSE_LINK_LINK; return attr(n, "href");
	case GUMBO_TAG_FRAME: *kind = PARSE_LINK_FRAME; return attr(n, "src");
	case GUMBO_TAG_IFRAME: *kind = PARSE_LINK_IFRAME; return attr(n, "src");
	case GUMBO_TAG_META:
		*kind = PARSE_LINK_REFRESH;
		if (!ascii_ieq(attr(n, "http-equiv"), "refresh"))
			return NULL;
		return attr(n, "content");
	default: return NULL;
	}
}

/* ---- the per-page state ---------------------------------------------- */

struct walk {
	const struct norm_opts *opts;
	struct norm_base page_base, base;
	struct parse_page *page;
	parse_link_fn fn;
	void *ctx;
	struct text_sink *text;          /* NULL: no body text wanted */
	const struct parse_keywords *kw; /* for parse_link.hits, or NULL */
	const char *robots_agent;        /* parse_doc_opts.robots_agent */
	uint64_t page_shown;             /* the keywords the page's URL shows */
	const GumboNode *skip;           /* the excluded element whose text is
					  * being skipped, or NULL */
	uint64_t body_size;              /* what md5_size hashes */
	bool no_formats;                 /* PARSE_NO_FORMATS */
	uint64_t *set;                   /* open addressing, 0 = empty */
	size_t set_mask, set_used, set_cap;
	char url[NORM_URL_MAX + 1];
	char found[NORM_URL_MAX + 1];  /* the reported link as written */
	char anchor[PARSE_ANCHOR_MAX]; /* the reported link's text */
};

static void count_bad(struct parse_page *page, int err)
{
	unsigned idx = err < 0 && -err < 32 ? (unsigned)-err : 0;

	page->links_bad++;
	page->links_bad_by_code[idx]++;
}

/* Insert key; returns true if it was already there. */
static bool set_insert(struct walk *w, uint64_t key)
{
	size_t i = (size_t)(key ^ (key >> 29)) & w->set_mask;

	while (w->set[i]) {
		if (w->set[i] == key)
			return true;
		i = (i + 1) & w->set_mask;
	}
	w->set[i] = key;
	w->set_used++;
	return false;
}

static bool set_has(const struct walk *w, uint64_t key)
{
	size_t i = (size_t)(key ^ (key >> 29)) & w->set_mask;

	while (w->set[i]) {
		if (w->set[i] == key)
			return true;
		i = (i + 1) & w->set_mask;
	}
	return false;
}

/* The text of element n's descendants, white space as it is, into buf
 * (at most cap bytes, cap >= 2; no more than 64 nodes are visited, so an
 * <a> around a whole page costs no more than a short one).  With no_link,
 * SIZE_MAX when a descendant visited is an <a>. */
static size_t anchor_text(const GumboNode *n, char *buf, size_t cap,
			  bool no_link)
{
	const GumboNode *end = n, *c = n;
	size_t len = 0;

	/* The node after n's subtree. */
	while (end && end->parent) {
		const GumboVector *sib = children_of(end->parent);
		if (sib && end->index_within_parent + 1 < sib->length) {
			end = sib->data[end->index_within_parent + 1];
			break;
		}
		end = end->parent;
	}
	if (end == n || !end->parent)
		end = NULL;
	for (int visits = 0; (c = next_node(c)) && c != end && visits < 64;
	     visits++) {
		if (no_link && is_html(c, GUMBO_TAG_A))
			return SIZE_MAX;
		if (c->type != GUMBO_NODE_TEXT && c->type != GUMBO_NODE_CDATA)
			continue;
		size_t t = strnlen(c->v.text.text, cap - len - 1);
		memcpy(buf + len, c->v.text.text, t);
		len += t;
		buf[len++] = ' ';
		if (len >= cap - 1)
			break;
	}
	return len;
}

/* The text just before element n (at most cap bytes, cap > 1): the
 * text nodes and elements before it within its parent, nearest first,
 * back to the previous link.  When there is none, the same one level up
 * (a "Read more" alone in its <li> after the teaser's).  Only the words
 * matter, so the pieces go nearest first; each piece is cut to its
 * end. */
static size_t context_text(const GumboNode *n, char *buf, size_t cap)
{
	size_t len = 0;

	for (int up = 0; up < 2 && !len && n->parent; up++, n = n->parent) {
		const GumboVector *sib = children_of(n->parent);
		if (!sib || n->parent->type != GUMBO_NODE_ELEMENT ||
		    is_html(n->parent, GUMBO_TAG_HTML))
			break;
		for (size_t i = n->index_within_parent;
		     i-- > 0 && len + 1 < cap;) {
			const GumboNode *c = sib->data[i];
			char tmp[PARSE_ANCHOR_MAX];
			size_t t = 0;
			if (c->type == GUMBO_NODE_TEXT) {
				const char *s = c->v.text.text;
				t = strlen(s);
				if (t > sizeof(tmp))
					s += t - sizeof(tmp), t = sizeof(tmp);
				memcpy(tmp, s, t);
			} else if (c->type == GUMBO_NODE_ELEMENT) {
				uint8_t kind;
				if (link_attr(c, &kind) ||
				    is_html(c, GUMBO_TAG_A) ||
				    (t = anchor_text(c, tmp, sizeof(tmp),
						     true)) == SIZE_MAX)
					break;
			} else {
				continue;
			}
			if (!t)
				continue;
			if (t > cap - len - 1)
				memmove(tmp, tmp + t - (cap - len - 1),
					cap - len - 1),
					t = cap - len - 1;
			memcpy(buf + len, tmp, t);
			len += t;
			buf[len++] = ' ';
		}
	}
	return len;
}

/* The keywords the path and query of url (components u) show. */
static uint64_t url_shown(const struct parse_keywords *kw, const char *url,
			  const struct norm_url *u)
{
	size_t end = u->has_fragment ? (size_t)u->frag_off - 1 : u->len;
	return parse_keywords_shown(kw, url + u->path_off, end - u->path_off);
}

/* The text a link shows (parse_link.anchor) into w->anchor, and its
 * parse_link.hits: its anchor (the text of an <a>, the alt of an
 * <area>), its title attribute and its URL's path and query, less what
 * the page's own URL shows. */
static uint8_t link_text(struct walk *w, const GumboNode *n, uint8_t kind,
			 const struct norm_url *u, size_t *anchor_len)
{
	size_t len = 0, t;
	const char *a;

	if (kind == PARSE_LINK_A)
		len = anchor_text(n, w->anchor, PARSE_ANCHOR_TEXT_MAX, false);
	else if (kind == PARSE_LINK_AREA && (a = attr(n, "alt"))) {
		len = strnlen(a, PARSE_ANCHOR_TEXT_MAX - 1);
		memcpy(w->anchor, a, len);
		w->anchor[len++] = ' ';
	}
	if ((kind == PARSE_LINK_A || kind == PARSE_LINK_AREA) &&
	    (a = attr(n, "title"))) {
		t = strnlen(a, PARSE_ANCHOR_TEXT_MAX - 1);
		memcpy(w->anchor + len, a, t);
		len += t;
		w->anchor[len++] = ' ';
	}
	if (kind == PARSE_LINK_A || kind == PARSE_LINK_AREA)
		len += context_text(n, w->anchor + len, PARSE_ANCHOR_MAX - len);
	*anchor_len = len;
	uint64_t shown = parse_keywords_shown(w->kw, w->anchor, len) |
			 (url_shown(w->kw, w->url, u) & ~w->page_shown);
	return (uint8_t)__builtin_popcountll(shown);
}

/* Normalize, deduplicate and report one link (of element n).  Returns
 * fn's nonzero value to stop, else 0. */
static int report(struct walk *w, const GumboNode *n, const char *href,
		  size_t len, uint8_t kind, uint8_t rel)
{
	struct parse_page *page = w->page;
	struct parse_link l;
	struct norm_url u;
	uint64_t h, key_follow, key_other;
	bool nofollow = (rel & PARSE_REL_NOFOLLOW) || page->nofollow;
	uint8_t follows = PARSE_REL_CANONICAL | PARSE_REL_NAV;
	if (!(w->no_formats && (rel & PARSE_REL_FORMAT)))
		follows |= PARSE_REL_ALTERNATE;
	bool follow = !nofollow && (kind != PARSE_LINK_LINK || (rel & follows));
	int r;

	r = norm_url(w->opts, &w->base, href, len, w->url, sizeof(w->url), &u);
	if (r != 0) {
		count_bad(page, r);
		return 0;
	}
	/* Two keys per URL, differing in the low bit: "reported to be
	 * followed" and "reported not to be".  Followability is decided here,
	 * before deduplication: a URL is reported again when an occurrence
	 * to follow comes after one not to. */
	h = XXH3_64bits(w->url, u.len) & ~(uint64_t)1;
	if (h == 0)
		h = 2;
	key_follow = h;
	key_other = h | 1;
	if (set_has(w, key_follow) || (!follow && set_has(w, key_other))) {
		page->links_dup++;
		return 0;
	}
	if (page->links_ok >= PARSE_LINKS_MAX || w->set_used >= w->set_cap) {
		page->links_dropped++;
		return 0;
	}
	set_insert(w, follow ? key_follow : key_other);
	page->links_ok++;
	if (!w->fn)
		return 0;
	/* Only for links reported: the second resolution costs nothing for
	 * the duplicates. */
	struct norm_url fu;
	if (norm_url(&norm_as_found, &w->base, href, len, w->found,
		     sizeof(w->found), &fu) == 0) {
		l.found = w->found;
		l.found_len = fu.len;
	} else {
		l.found = w->url;
		l.found_len = u.len;
	}
	l.url = w->url;
	l.u = &u;
	l.kind = kind;
	l.rel = rel;
	l.nofollow = nofollow;
	l.follow = follow;
	l.hits = 0;
	l.anchor = w->anchor;
	l.anchor_len = 0;
	if (w->kw && follow)
		l.hits = link_text(w, n, kind, &u, &l.anchor_len);
	return w->fn(w->ctx, &l);
}

/* ---- body text --------------------------------------------------------- */

/* Elements whose text is not body text (SPEC §5), in any namespace. */
static bool text_excluded(const GumboNode *n)
{
	if (n->type == GUMBO_NODE_TEMPLATE)
		return true;
	if (n->type != GUMBO_NODE_ELEMENT)
		return false;
	switch (n->v.element.tag) {
	case GUMBO_TAG_SCRIPT:
	case GUMBO_TAG_STYLE:
	case GUMBO_TAG_NOSCRIPT:
	case GUMBO_TAG_TEMPLATE: return true;
	default: return false;
	}
}

/* Inline HTML elements, whose edges do not separate words (parse.h).
 * Unknown tags (custom elements) are inline too, as CSS makes them. */
static bool is_inline(const GumboNode *n)
{
	if (n->v.element.tag_namespace != GUMBO_NAMESPACE_HTML)
		return false;
	switch (n->v.element.tag) {
	case GUMBO_TAG_A:
	case GUMBO_TAG_ABBR:
	case GUMBO_TAG_B:
	case GUMBO_TAG_BDI:
	case GUMBO_TAG_BDO:
	case GUMBO_TAG_CITE:
	case GUMBO_TAG_CODE:
	case GUMBO_TAG_DATA:
	case GUMBO_TAG_DFN:
	case GUMBO_TAG_EM:
	case GUMBO_TAG_FONT:
	case GUMBO_TAG_I:
	case GUMBO_TAG_KBD:
	case GUMBO_TAG_MARK:
	case GUMBO_TAG_Q:
	case GUMBO_TAG_S:
	case GUMBO_TAG_SAMP:
	case GUMBO_TAG_SMALL:
	case GUMBO_TAG_SPAN:
	case GUMBO_TAG_STRONG:
	case GUMBO_TAG_SUB:
	case GUMBO_TAG_SUP:
	case GUMBO_TAG_TIME:
	case GUMBO_TAG_U:
	case GUMBO_TAG_VAR:
	case GUMBO_TAG_BIG:
	case GUMBO_TAG_TT:
	case GUMBO_TAG_STRIKE:
	case GUMBO_TAG_LABEL:
	case GUMBO_TAG_NOBR:
	case GUMBO_TAG_WBR:
	case GUMBO_TAG_UNKNOWN: return true;
	default: return false;
	}
}

static void text_enter(struct walk *w, const GumboNode *n)
{
	if (!w->text || w->skip)
		return;
	switch (n->type) {
	case GUMBO_NODE_TEXT:
	case GUMBO_NODE_CDATA:
	case GUMBO_NODE_WHITESPACE: text_feed(w->text, n->v.text.text); break;
	case GUMBO_NODE_ELEMENT:
	case GUMBO_NODE_TEMPLATE:
		if (text_excluded(n))
			w->skip = n;
		else if (!is_inline(n))
			text_break(w->text);
		else if (is_html(n, GUMBO_TAG_A))
			text_link(w->text, true);
		break;
	default: break;
	}
}

static void text_leave(struct walk *w, const GumboNode *n)
{
	if (!w->text ||
	    (n->type != GUMBO_NODE_ELEMENT && n->type != GUMBO_NODE_TEMPLATE))
		return;
	if (w->skip == n)
		w->skip = NULL;
	else if (!w->skip && !is_inline(n))
		text_break(w->text);
	else if (!w->skip && is_html(n, GUMBO_TAG_A))
		text_link(w->text, false);
}

/* next_node(), telling the text sink which elements it leaves. */
static const GumboNode *next_node_text(struct walk *w, const GumboNode *n)
{
	const GumboVector *ch = children_of(n);

	if (ch && ch->length)
		return ch->data[0];
	for (;;) {
		const GumboVector *sib;
		size_t i;

		text_leave(w, n);
		if (!n->parent)
			return NULL;
		sib = children_of(n->parent);
		i = n->index_within_parent + 1;
		if (sib && i < sib->length)
			return sib->data[i];
		n = n->parent;
	}
}

/* First walk: base, robots, title, canonical, and the body text; returns
 * the number of link attributes. */
static size_t scan_page(struct walk *w, const GumboNode *root)
{
	struct parse_page *page = w->page;
	bool have_title = false, have_base = false;
	size_t links = 0;

	for (const GumboNode *n = root; n; n = next_node_text(w, n)) {
		const char *v;
		uint8_t kind;

		text_enter(w, n);
		if (n->type != GUMBO_NODE_ELEMENT)
			continue;
		if (link_attr(n, &kind))
			links++;
		if (is_html(n, GUMBO_TAG_IMG) && (v = attr(n, "src"))) {
			/* FNV-1a of each, summed: order does not matter. */
			uint64_t h = 0xcbf29ce484222325ull;
			for (const char *s = v; *s; s++)
				h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
			page->media += h | 1;
		}
		if (!have_base && is_html(n, GUMBO_TAG_BASE) &&
		    (v = attr(n, "href"))) {
			/* HTML: the first <base> with an href decides; one
			 * that does not parse leaves the page's URL. */
			have_base = true;
			if (norm_base_set(&w->base, &w->page_base, v,
					  strlen(v)) == 0)
				page->has_base = true;
		} else if (is_html(n, GUMBO_TAG_META) &&
			   (ascii_ieq(attr(n, "name"), "robots") ||
			    (w->robots_agent &&
			     ascii_ieq(attr(n, "name"), w->robots_agent)))) {
			unsigned b = token_bits(attr(n, "content"), true,
						robots_bit);

			page->noindex |= (b & ROBOTS_NOINDEX) != 0;
			page->nofollow |= (b & ROBOTS_NOFOLLOW) != 0;
		} else if (!have_title && is_html(n, GUMBO_TAG_TITLE)) {
			have_title = true;
			take_title(n, page);
		}
	}
	return links;
}

/* The canonical is normalized against the final base, so it is found
 * in the second walk, with the other links. */
static void take_canonical(struct walk *w, const char *href)
{
	struct parse_page *page = w->page;

	if (page->has_canonical)
		return;
	if (norm_url(w->opts, &w->base, href, strlen(href), page->canonical,
		     sizeof(page->canonical), NULL) == 0)
		page->has_canonical = true;
}

/* A <link type> that names an HTML page, or none (the page's own kind). */
/* Is a type attribute's media type (spaces before it and parameters
 * after it aside) one of the n in list, ASCII case ignored? */
static bool type_in(const char *type, const char *const *list, size_t n)
{
	while (is_space(*type))
		type++;
	size_t len = strcspn(type, "; \t\r\n\f");
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len &&
		    strncasecmp(type, list[i], len) == 0)
			return true;
	return false;
}

/* Does a <link>'s type name HTML (no type does)? */
static bool html_type(const char *type)
{
	static const char *const html[] = { "text/html",
					    "application/xhtml+xml" };
	return !type || type_in(type, html, 2);
}

/* Does a <link>'s type name a feed (RSS, Atom, JSON Feed)? */
static bool feed_type(const char *type)
{
	static const char *const feeds[] = { "application/rss+xml",
					     "application/atom+xml",
					     "application/feed+json" };
	return type && type_in(type, feeds, 3);
}

static int walk_links(struct walk *w, const GumboNode *root)
{
	for (const GumboNode *n = root; n; n = next_node(n)) {
		const char *v, *href;
		size_t len;
		uint8_t kind, rel = 0;
		int r;

		v = link_attr(n, &kind);
		if (!v)
			continue;
		href = v;
		len = strlen(v);
		if (kind == PARSE_LINK_REFRESH) {
			if (!refresh_url(v, &href, &len))
				continue;
		} else if (kind != PARSE_LINK_FRAME &&
			   kind != PARSE_LINK_IFRAME) {
			rel = (uint8_t)token_bits(attr(n, "rel"), false,
						  rel_bit);
			if ((rel & PARSE_REL_NAV) &&
			    !html_type(attr(n, "type")))
				rel &= (uint8_t)~PARSE_REL_NAV;
			if (kind == PARSE_LINK_LINK &&
			    (rel & PARSE_REL_ALTERNATE) &&
			    !attr(n, "hreflang") && !feed_type(attr(n, "type")))
				rel |= PARSE_REL_FORMAT;
		}
		if (kind == PARSE_LINK_LINK && (rel & PARSE_REL_CANONICAL))
			take_canonical(w, v);
		r = report(w, n, href, len, kind, rel);
		if (r)
			return r;
	}
	return 0;
}

static int parse_tree(struct walk *w, GumboOutput *out)
{
	size_t links, cap = 16;

	links = scan_page(w, out->document);
	/* The signatures are final before any link is reported, so that a
	 * stop by fn still leaves them in the page. */
	if (w->text) {
		int r = text_end(w->text, w->body_size, w->page);

		if (r)
			return r;
	}
	/* Room for every link twice (both keys) at most half full, but no
	 * more than the report limit needs. */
	if (links > PARSE_LINKS_MAX + 16)
		links = PARSE_LINKS_MAX + 16;
	while (cap < 4 * links)
		cap <<= 1;
	w->set = sc_calloc(cap, sizeof(*w->set));
	if (!w->set)
		return SC_E_NOMEM;
	w->set_mask = cap - 1;
	w->set_cap = cap / 2;
	return walk_links(w, out->document);
}

/* Parse and walk; the only place that returns through the arena's
 * longjmp, so that no variable of the caller lives across it. */
static int parse_with_arena(struct walk *w, const char *html, size_t len)
{
	GumboOptions gopts = kGumboDefaultOptions;
	struct arena arena = { 0 };
	uint64_t now = thread_cpu_ns();
	int r;

	arena.cpu_deadline = now ? now + PARSE_CPU_MAX_NS : 0;
	arena.limit = 64u * 1024 * 1024;
	arena.limit += len > (SIZE_MAX - arena.limit) / 32 ? SIZE_MAX / 2
							   : 32 * len;
	gopts.allocator = arena_alloc;
	gopts.deallocator = arena_free;
	gopts.userdata = &arena;
	gopts.max_errors = 0; /* parse errors are not kept */
	if (setjmp(arena.fail) == 0)
		r = parse_tree(w, gumbo_parse_with_options(&gopts, html, len));
	else
		r = arena.err;
	/* No gumbo_destroy_output(): it recurses; the arena holds it all. */
	arena_release(&arena);
	return r;
}

/* parse_html() and parse_document(): decode says whether the charset is
 * to be found and converted, popts is never NULL. */
static int parse_common(const char *html, size_t len, const char *page_url,
			size_t page_url_len, const struct norm_opts *opts,
			const struct parse_doc_opts *popts, bool decode,
			parse_link_fn fn, void *ctx, struct parse_page *ret)
{
	struct decoded dec = { 0 };
	struct walk *w;
	unsigned text_flags = PARSE_TEXT | PARSE_MD5 | PARSE_MD5_SIZE |
			      PARSE_SIMHASH;
	bool want_text;
	int r;

	if ((!html && len) || !page_url || !opts || !ret)
		return SC_E_INVAL;
	if ((popts->flags & PARSE_TEXT) && !popts->text)
		return SC_E_INVAL;
	/* About 11 KiB: on the heap, since parser threads may have small
	 * stacks. */
	if (popts->words && (popts->words_cap < 16 ||
			     (popts->words_cap & (popts->words_cap - 1))))
		return SC_E_INVAL;
	want_text = (popts->flags & text_flags) || popts->words ||
		    (popts->keywords && parse_keywords_count(popts->keywords));
	w = sc_calloc(1,
		      sizeof(*w) + (want_text ? sizeof(struct text_sink) : 0));
	if (!w)
		return SC_E_NOMEM;
	r = norm_base_set(&w->page_base, NULL, page_url, page_url_len);
	if (r != 0) {
		free(w);
		return r;
	}
	w->base = w->page_base;
	w->opts = opts;
	w->fn = fn;
	w->ctx = ctx;
	w->page = ret;
	if (popts->keywords && parse_keywords_count(popts->keywords)) {
		w->kw = popts->keywords;
		w->page_shown = url_shown(w->kw, w->page_base.buf,
					  &w->page_base.u);
	}
	w->body_size = popts->body_size ? popts->body_size : len;
	w->robots_agent = popts->robots_agent;
	w->no_formats = popts->flags & PARSE_NO_FORMATS;
	memset(ret, 0, sizeof(*ret));
	if (!html)
		html = "";
	if (decode) {
		charset_decode(html, len, popts->content_type, &dec);
		snprintf(ret->charset, sizeof(ret->charset), "%s",
			 dec.cs->name);
		ret->charset_from = dec.from;
		ret->charset_converted = dec.converted;
		ret->charset_fallback = dec.fallback;
		html = dec.html;
		len = dec.len;
	}
	if (want_text) {
		w->text = (struct text_sink *)(w + 1);
		r = text_begin(w->text, popts->flags & text_flags, popts->text,
			       popts->keywords);
		if (r)
			w->text = NULL;
		else if (popts->words) {
			memset(popts->words, 0,
			       popts->words_cap * sizeof(*popts->words));
			w->text->wset = popts->words;
			w->text->wmask = popts->words_cap - 1;
			/* The words come from the tokenizer. */
			w->text->flags |= PARSE_RELEVANCE_INT;
		}
	}
	if (r == 0)
		r = parse_with_arena(w, html, len);
	if (w->text)
		text_release(w->text);
	free(dec.buf);
	free(w->set);
	free(w);
	return r;
}

int parse_html(const char *html, size_t len, const char *page_url,
	       size_t page_url_len, const struct norm_opts *opts,
	       parse_link_fn fn, void *ctx, struct parse_page *ret)
{
	static const struct parse_doc_opts none;

	return parse_common(html, len, page_url, page_url_len, opts, &none,
			    false, fn, ctx, ret);
}

int parse_document(const char *html, size_t len, const char *page_url,
		   size_t page_url_len, const struct norm_opts *opts,
		   const struct parse_doc_opts *popts, parse_link_fn fn,
		   void *ctx, struct parse_page *ret)
{
	static const struct parse_doc_opts none;

	return parse_common(html, len, page_url, page_url_len, opts,
			    popts ? popts : &none, true, fn, ctx, ret);
}
