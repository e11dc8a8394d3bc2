/* sitemap.c — sitemaps by the sitemaps.org protocol 0.9.
 *
 * The body is read as a stream of uncompressed bytes (struct source): the
 * caller's memory itself, or what zlib inflates from it one chunk at a
 * time, so a gzip sitemap is never held whole and a decompression bomb
 * costs at most PARSE_SITEMAP_MAX_BYTES of inflating, not of memory.  The
 * first bytes that are not a byte order mark or white space decide
 * between XML and text.
 *
 * XML goes through libxml2's SAX2 push parser, fed 64 KiB at a time:
 * no tree is built, and libxml2 holds only what it has not parsed yet
 * (at most 10 MB, its lookup limit), so memory stays at that plus one
 * entry.  Why not xmlTextReader, which is SAX underneath: it hands out
 * nodes only after the 512-byte chunk they came in has parsed without
 * error, so the entries just before an error (and for a short file, the
 * root itself) were lost, where SAX reports each element as it closes.
 *
 * Safety: the options are XML_PARSE_NONET | XML_PARSE_NOERROR |
 * XML_PARSE_NOWARNING (no entity substitution, no DTD loading, no
 * default attributes, no XML_PARSE_HUGE, so libxml2's own limits stay:
 * depth 256, names of 50,000 bytes, 10 MB of lookahead).  On top, the
 * handlers keep no DTD at all: every entity lookup but the five
 * predefined ones finds nothing, so no external entity is ever opened
 * (XXE) and no replacement text is ever parsed or expanded (billion
 * laughs, quadratic blowup); a reference to a custom entity is an
 * undefined entity, which XML makes an error that ends the parse (or,
 * where XML allows it, in a document with an external subset or
 * parameter entities, a reference that is dropped).  Errors go to a
 * handler that ignores them, per parser context (thread-safe).
 */
#include <pthread.h>
#include <string.h>
#include <strings.h>

#include <libxml/globals.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <zlib.h>

#include "parse.h"

/* Longer lastmod and changefreq texts are not valid anyway; a little room
 * is left so that "too long" is seen rather than a cut value. */
#define LASTMOD_MAX 64
#define CHANGEFREQ_MAX 16

/* Bytes inflated at a time. */
#define INFLATE_CHUNK (64 * 1024)

#define XML_OPTIONS (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)

/* ---- W3C Datetime ------------------------------------------------------ */

static bool is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}

/* n decimal digits at s[*i] as a number, advancing *i; -1 when there are
 * not n digits. */
static int digits(const char *s, size_t len, size_t *i, int n)
{
	int v = 0;

	if (len - *i < (size_t)n)
		return -1;
	for (int k = 0; k < n; k++) {
		unsigned char c = (unsigned char)s[*i + k];

		if (c < '0' || c > '9')
			return -1;
		v = v * 10 + (c - '0');
	}
	*i += (size_t)n;
	return v;
}

static bool leap_year(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int month_days(int y, int m)
{
	static const unsigned char days[12] = { 31, 28, 31, 30, 31, 30,
						31, 31, 30, 31, 30, 31 };

	return m == 2 && leap_year(y) ? 29 : days[m - 1];
}

/* The leap years among 1..y (y >= 0). */
static int64_t leaps_through(int64_t y)
{
	return y / 4 - y / 100 + y / 400;
}

/* Days from 1970-01-01 to y-m-d (y >= 1969, fields valid). */
static int64_t days_since_epoch(int y, int m, int d)
{
	int64_t days = 365 * (int64_t)(y - 1970) + leaps_through(y - 1) -
		       leaps_through(1969);

	for (int k = 1; k < m; k++)
		days += month_days(y, k);
	return days + d - 1;
}

int64_t parse_w3c_datetime(const char *s, size_t n)
{
	int y, mo = 1, d = 1, h = 0, mi = 0, sec = 0, ms = 0, off = 0;
	size_t i = 0;
	int64_t t;

	if (!s)
		return -1;
	while (n > 0 && is_space((unsigned char)s[n - 1]))
		n--;
	while (i < n && is_space((unsigned char)s[i]))
		i++;

	if ((y = digits(s, n, &i, 4)) < 0)
		return -1;
	if (i == n)
		goto date_only;
	if (s[i++] != '-' || (mo = digits(s, n, &i, 2)) < 1 || mo > 12)
		return -1;
	if (i == n)
		goto date_only;
	if (s[i++] != '-' || (d = digits(s, n, &i, 2)) < 1 ||
	    d > month_days(y, mo))
		return -1;
	if (i == n)
		goto date_only;

	/* The time: hh:mm, then optional :ss and .s, then the zone. */
	if ((s[i] != 'T' && s[i] != 't') ||
	    (++i, h = digits(s, n, &i, 2)) < 0 || h > 23)
		return -1;
	if (i == n || s[i++] != ':' || (mi = digits(s, n, &i, 2)) < 0 ||
	    mi > 59)
		return -1;
	if (i < n && s[i] == ':') {
		i++;
		if ((sec = digits(s, n, &i, 2)) < 0 || sec > 59)
			return -1;
		if (i < n && s[i] == '.') {
			int scale = 100, nd = 0;

			for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
				ms += (s[i] - '0') * scale;
				scale /= 10;
				nd++;
			}
			if (nd == 0)
				return -1;
		}
	}
	if (i == n)
		return -1; /* W3C Datetime: a time needs its zone */
	if (s[i] == 'Z' || s[i] == 'z') {
		i++;
	} else if (s[i] == '+' || s[i] == '-') {
		int sign = s[i++] == '-' ? -1 : 1, oh, om;

		if ((oh = digits(s, n, &i, 2)) < 0 || oh > 23 || i == n ||
		    s[i++] != ':' || (om = digits(s, n, &i, 2)) < 0 || om > 59)
			return -1;
		off = sign * (oh * 60 + om);
	} else {
		return -1;
	}
	if (i != n)
		return -1;

date_only:
	/* Before 1969 nothing can come out at 1970 or later, whatever the
	 * zone; and the arithmetic below wants y >= 1969. */
	if (y < 1969)
		return -1;
	t = days_since_epoch(y, mo, d);
	t = ((t * 24 + h) * 60 + mi - off) * 60 + sec;
	t = t * 1000 + ms;
	return t < 0 ? -1 : t;
}

/* ---- Trimmed field text ------------------------------------------------ */

/* The text of one field (or one line), gathered from any number of
 * pieces: leading white space skipped, at most cap bytes kept, and
 * toolong set when something other than white space comes after cap
 * bytes (the trimmed text would not fit). */
struct field {
	char *buf; /* cap + 1 bytes: the text and a NUL */
	size_t cap, len;
	bool toolong;
};

static void field_reset(struct field *f)
{
	f->len = 0;
	f->toolong = false;
}

static void field_add(struct field *f, const char *s, size_t n)
{
	size_t i = 0;

	if (f->toolong)
		return;
	if (f->len == 0)
		while (i < n && is_space((unsigned char)s[i]))
			i++;
	if (i < n && f->len < f->cap) {
		size_t k = n - i < f->cap - f->len ? n - i : f->cap - f->len;

		memcpy(f->buf + f->len, s + i, k);
		f->len += k;
		i += k;
	}
	for (; i < n; i++)
		if (!is_space((unsigned char)s[i])) {
			f->toolong = true;
			return;
		}
}

/* Trim the end and terminate; returns whether the text is usable. */
static bool field_end(struct field *f)
{
	while (f->len > 0 && is_space((unsigned char)f->buf[f->len - 1]))
		f->len--;
	f->buf[f->len] = '\0';
	return f->len > 0 && !f->toolong;
}

/* ---- The uncompressed body as a stream --------------------------------- */

struct source {
	const unsigned char *in; /* the body */
	size_t in_len;
	bool gz;
	bool z_ready;   /* inflateInit2() succeeded: inflateEnd() is due */
	bool eof;       /* nothing more will come */
	bool over;      /* there was more than PARSE_SITEMAP_MAX_BYTES */
	int err;        /* SC_E_NOMEM from zlib, or 0 */
	uint64_t total; /* bytes handed out */
	z_stream z;
	unsigned char *chunk; /* INFLATE_CHUNK bytes (gzip only) */
	/* Bytes handed out by source_next() but given back: from the byte
	 * that decided between XML and text on. */
	const unsigned char *pend;
	size_t pend_len;
};

static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
	return sc_calloc(items, size);
}

static void z_free(voidpf opaque, voidpf p)
{
	free(p);
}

static bool gzip_magic(const unsigned char *p, size_t n)
{
	return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

static int source_open(struct source *s, const void *body, size_t len)
{
	memset(s, 0, sizeof(*s));
	s->in = body;
	s->in_len = len;
	if (!gzip_magic(s->in, len))
		return 0;
	s->gz = true;
	s->chunk = sc_malloc(INFLATE_CHUNK);
	if (!s->chunk)
		return SC_E_NOMEM;
	s->z.zalloc = z_alloc;
	s->z.zfree = z_free;
	s->z.next_in = (Bytef *)s->in;
	/* zlib counts input in uInt; a body of 4 GiB or more is fed in
	 * pieces (see inflate_some()). */
	s->z.avail_in = 0;
	switch (inflateInit2(&s->z, 16 + MAX_WBITS)) {
	case Z_OK: break;
	case Z_MEM_ERROR: return SC_E_NOMEM;
	default: return SC_E_INVAL;
	}
	s->z_ready = true;
	return 0;
}

static void source_close(struct source *s)
{
	if (s->z_ready)
		inflateEnd(&s->z);
	free(s->chunk);
}

/* Inflate into out (at most n bytes); returns the bytes made, 0 at the
 * end of the data.  A corrupt or cut stream ends the data there;
 * concatenated gzip members go on as one body. */
static size_t inflate_some(struct source *s, unsigned char *out, size_t n)
{
	size_t used = (size_t)(s->z.next_in - s->in);

	s->z.next_out = out;
	s->z.avail_out = (uInt)n;
	while (s->z.avail_out > 0) {
		int zr;

		if (s->z.avail_in == 0) {
			size_t left = s->in_len - used;

			if (left == 0)
				break;
			s->z.avail_in = left > UINT32_MAX ? UINT32_MAX
							  : (uInt)left;
		}
		zr = inflate(&s->z, Z_NO_FLUSH);
		used = (size_t)(s->z.next_in - s->in);
		if (zr == Z_STREAM_END) {
			if (!gzip_magic(s->z.next_in, s->in_len - used) ||
			    inflateReset(&s->z) != Z_OK)
				break;
			continue;
		}
		if (zr == Z_MEM_ERROR)
			s->err = SC_E_NOMEM;
		if (zr != Z_OK)
			break; /* Z_DATA_ERROR, Z_BUF_ERROR (cut), ... */
	}
	return n - s->z.avail_out;
}

/* The next piece of the uncompressed body: sets *p and returns its
 * length, or 0 at the end.  The end comes early at
 * PARSE_SITEMAP_MAX_BYTES, with s->over set when there was more. */
static size_t source_next(struct source *s, const unsigned char **p)
{
	size_t n, room;

	if (s->pend_len > 0) {
		n = s->pend_len;
		*p = s->pend;
		s->pend_len = 0;
		return n;
	}
	if (s->eof)
		return 0;
	room = PARSE_SITEMAP_MAX_BYTES - s->total;
	if (!s->gz) {
		/* All of it at once, without a copy. */
		n = s->in_len < room ? s->in_len : room;
		s->over = s->in_len > room;
		s->eof = true;
		*p = s->in;
		s->total = n;
		return n;
	}
	n = inflate_some(s, s->chunk,
			 room < INFLATE_CHUNK ? room : INFLATE_CHUNK);
	s->total += n;
	if (n == 0 || s->err) {
		s->eof = true;
		return s->err ? 0 : n;
	}
	if (s->total == PARSE_SITEMAP_MAX_BYTES) {
		unsigned char probe;

		/* One byte more says whether the body went on. */
		s->over = inflate_some(s, &probe, 1) > 0;
		s->eof = true;
	}
	*p = s->chunk;
	return n;
}

/* Give back the last n bytes source_next() returned (they were not
 * consumed). */
static void source_unread(struct source *s, const unsigned char *p, size_t n)
{
	s->pend = p;
	s->pend_len = n;
}

/* Read on to the end or the limit, only to learn whether the body was
 * over it (a parse that stopped early on bad XML). */
static void source_drain(struct source *s)
{
	const unsigned char *p;

	s->pend_len = 0;
	while (source_next(s, &p) > 0)
		;
}

/* ---- Entries ----------------------------------------------------------- */

struct sitemap {
	int (*fn)(void *arg, const struct parse_sitemap_entry *e);
	void *arg;
	unsigned long count; /* entries passed to fn */
	int rc;              /* what stopped the parse: fn's value, LIMIT */
	bool saw_url;        /* text: a line that is a URL, passed or not */

	struct source src;

	/* The entry being read. */
	struct field loc, lastmod, changefreq;
	char loc_buf[NORM_INPUT_MAX + 1];
	char lastmod_buf[LASTMOD_MAX + 1];
	char changefreq_buf[CHANGEFREQ_MAX + 1];
};

static void entry_reset(struct sitemap *sm)
{
	field_reset(&sm->loc);
	field_reset(&sm->lastmod);
	field_reset(&sm->changefreq);
}

static enum parse_changefreq changefreq_of(const char *s)
{
	static const char *const words[] = { "always", "hourly",  "daily",
					     "weekly", "monthly", "yearly",
					     "never" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcasecmp(s, words[i]) == 0)
			return (enum parse_changefreq)(PARSE_CHANGEFREQ_ALWAYS +
						       i);
	return PARSE_CHANGEFREQ_NONE;
}

/* Pass the entry read to fn, if its loc is usable.  Returns nonzero when
 * the parse is to stop (sm->rc says why). */
static int entry_emit(struct sitemap *sm, bool xml)
{
	struct parse_sitemap_entry e;

	if (!field_end(&sm->loc))
		return 0;
	e.loc = sm->loc.buf;
	e.loc_len = sm->loc.len;
	e.lastmod_ms = -1;
	e.changefreq = PARSE_CHANGEFREQ_NONE;
	if (xml) {
		if (field_end(&sm->lastmod))
			e.lastmod_ms = parse_w3c_datetime(sm->lastmod.buf,
							  sm->lastmod.len);
		if (field_end(&sm->changefreq))
			e.changefreq = changefreq_of(sm->changefreq.buf);
	}
	if (sm->count == PARSE_SITEMAP_MAX_URLS) {
		sm->rc = SC_E_LIMIT;
		return 1;
	}
	sm->count++;
	if (sm->fn)
		sm->rc = sm->fn(sm->arg, &e);
	return sm->rc;
}

/* ---- Text sitemaps ----------------------------------------------------- */

/* Whether the n bytes at s are UTF-8 without control characters (C0 other
 * than tab, DEL, C1). */
static bool clean_utf8(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = s[i];
		uint32_t cp;
		size_t k;

		if (c < 0x80) {
			if ((c < 0x20 && c != '\t') || c == 0x7f)
				return false;
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			k = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			k = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			k = 3;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (n - i <= k)
			return false;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		/* Overlong forms, surrogates, past U+10FFFF, C1 controls. */
		if ((k == 2 && cp < 0x800) || (k == 3 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff ||
		    (cp >= 0x80 && cp <= 0x9f))
			return false;
		i += k + 1;
	}
	return true;
}

static int text_line(struct sitemap *sm)
{
	const char *s = sm->loc.buf;

	if (sm->loc.len == 0 && !sm->loc.toolong)
		return 0; /* blank */
	field_end(&sm->loc);
	/* A line that is cut (too long) counts as a URL when its start
	 * looks like one, so that such a file is not taken for prose. */
	if (strncasecmp(s, "http://", 7) != 0 &&
	    strncasecmp(s, "https://", 8) != 0)
		return 0;
	if (!clean_utf8((const unsigned char *)s, sm->loc.len))
		return 0;
	sm->saw_url = true;
	return entry_emit(sm, false);
}

static int parse_text(struct sitemap *sm)
{
	const unsigned char *p;
	size_t n;

	field_reset(&sm->loc);
	while ((n = source_next(&sm->src, &p)) > 0) {
		const unsigned char *end = p + n, *q;

		/* LF, CR (old Macs) and CRLF end a line; the empty line
		 * between CR and LF is blank, and blank lines are skipped. */
		for (q = p; q < end; q++) {
			if (*q != '\n' && *q != '\r')
				continue;
			field_add(&sm->loc, (const char *)p, (size_t)(q - p));
			if (text_line(sm))
				return sm->rc;
			field_reset(&sm->loc);
			p = q + 1;
		}
		field_add(&sm->loc, (const char *)p, (size_t)(end - p));
	}
	if (sm->src.err)
		return sm->src.err;
	/* The last line, unless the limit cut it. */
	if (!sm->src.over && text_line(sm))
		return sm->rc;
	if (!sm->saw_url)
		return SC_E_INVAL;
	return sm->src.over ? SC_E_LIMIT : 0;
}

/* ---- XML sitemaps ------------------------------------------------------ */

static pthread_once_t xml_once = PTHREAD_ONCE_INIT;

static void xml_init(void)
{
	xmlInitParser();
}

/* Bytes handed to libxml2 at a time: its input buffer holds what it has
 * not parsed yet, so the body is never copied whole. */
#define XML_PUSH (64 * 1024)

enum { ROOT_NONE, ROOT_URLSET, ROOT_INDEX, ROOT_OTHER };

/* The SAX state, beside struct sitemap. */
struct xml_walk {
	struct sitemap *sm;
	xmlParserCtxtPtr ctxt;
	bool *is_index;
	int root;               /* ROOT_* */
	const char *entry_name; /* "url" or "sitemap", by the root */
	unsigned depth;         /* elements open */
	bool in_entry;          /* an entry (at depth 1) is open */
	struct field *cur;      /* the field (at depth 2) being read */
	bool stopped;           /* fn or a limit stopped the parse */
};

/* A local name without any prefix (libxml2 splits a QName at its first
 * colon; a name with more colons keeps the rest). */
static const char *local_part(const xmlChar *name)
{
	const char *s = (const char *)name, *colon;

	if (!s)
		return "";
	colon = strrchr(s, ':');
	return colon ? colon + 1 : s;
}

static void xml_stop(struct xml_walk *w)
{
	w->stopped = true;
	xmlStopParser(w->ctxt);
}

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix,
		     const xmlChar *uri, int nb_ns, const xmlChar **ns,
		     int nb_attrs, int nb_defaulted, const xmlChar **attrs)
{
	struct xml_walk *w = ctx;
	struct sitemap *sm = w->sm;
	const char *name = local_part(localname);
	unsigned level = w->depth++;
	struct field *f;

	if (w->root == ROOT_NONE) {
		if (strcmp(name, "urlset") == 0) {
			w->root = ROOT_URLSET;
			w->entry_name = "url";
		} else if (strcmp(name, "sitemapindex") == 0) {
			w->root = ROOT_INDEX;
			w->entry_name = "sitemap";
			if (w->is_index)
				*w->is_index = true;
		} else {
			w->root = ROOT_OTHER;
			xml_stop(w);
		}
		return;
	}
	if (level == 1) {
		if (strcmp(name, w->entry_name) == 0) {
			w->in_entry = true;
			w->cur = NULL;
			entry_reset(sm);
		}
		return;
	}
	if (level != 2 || !w->in_entry)
		return;
	if (strcmp(name, "loc") == 0)
		f = &sm->loc;
	else if (strcmp(name, "lastmod") == 0)
		f = &sm->lastmod;
	else if (strcmp(name, "changefreq") == 0)
		f = &sm->changefreq;
	else
		return;
	/* The first occurrence with text counts. */
	if (f->len == 0 && !f->toolong)
		w->cur = f;
}

static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix,
		   const xmlChar *uri)
{
	struct xml_walk *w = ctx;
	unsigned level = --w->depth;

	if (level == 2) {
		w->cur = NULL;
	} else if (level == 1 && w->in_entry) {
		w->in_entry = false;
		if (entry_emit(w->sm, true))
			xml_stop(w);
	}
}

/* Text, CDATA and white space alike. */
static void on_text(void *ctx, const xmlChar *ch, int len)
{
	struct xml_walk *w = ctx;

	if (w->cur && len > 0)
		field_add(w->cur, (const char *)ch, (size_t)len);
}

/* No entity but the five predefined ones (which the parser resolves
 * before asking) is ever found, so no external entity is opened and no
 * replacement text is parsed or expanded, however the DTD nests them.
 * (libxml2 asks nothing else: its own fallback lookup is only for a
 * context that is its own user data, which ours is not.) */
static xmlEntityPtr no_entity(void *ctx, const xmlChar *name)
{
	return NULL;
}

static xmlParserInputPtr no_resolve(void *ctx, const xmlChar *public_id,
				    const xmlChar *system_id)
{
	return NULL;
}

static void quiet_structured(void *arg, xmlErrorPtr err)
{
}

static void quiet_generic(void *ctx, const char *msg, ...)
{
}

/* The handlers.  What is not set is not called: no tree is built, no
 * DTD is kept (internalSubset, entityDecl, attributeDecl, ...), and the
 * external subset is never loaded (externalSubset). */
static const xmlSAXHandler sax = {
	.getEntity = no_entity,
	.getParameterEntity = no_entity,
	.resolveEntity = no_resolve,
	.characters = on_text,
	.ignorableWhitespace = on_text,
	.cdataBlock = on_text,
	.initialized = XML_SAX2_MAGIC,
	.startElementNs = on_start,
	.endElementNs = on_end,
	.serror = quiet_structured,
};

static int parse_xml(struct sitemap *sm, bool *is_index)
{
	struct xml_walk w = { .sm = sm, .is_index = is_index };
	xmlSAXHandler handlers = sax;
	xmlGenericErrorFunc old_fn;
	void *old_ctx;
	const unsigned char *p;
	size_t n;
	int rc;

	pthread_once(&xml_once, xml_init);
	/* Errors raised outside a parser context (memory, I/O) go to the
	 * thread's generic handler, which is libxml2 per-thread state:
	 * silence it for this call only. */
	old_fn = xmlGenericError;
	old_ctx = xmlGenericErrorContext;
	xmlSetGenericErrorFunc(NULL, quiet_generic);

	/* The handlers get w, not the context: so libxml2 never falls back
	 * to looking entities up in a document of its own either. */
	w.ctxt = xmlCreatePushParserCtxt(&handlers, &w, NULL, 0, NULL);
	if (!w.ctxt) {
		rc = SC_E_NOMEM;
		goto out;
	}
	xmlCtxtUseOptions(w.ctxt, XML_OPTIONS);

	while (!w.stopped && (n = source_next(&sm->src, &p)) > 0) {
		while (n > 0 && !w.stopped) {
			size_t k = n < XML_PUSH ? n : XML_PUSH;

			/* A fatal error halts the parser; later pushes
			 * return at once. */
			xmlParseChunk(w.ctxt, (const char *)p, (int)k, 0);
			p += k;
			n -= k;
		}
		if (w.ctxt->disableSAX)
			break; /* the XML went wrong: read no further */
	}
	if (!w.stopped && !w.ctxt->disableSAX)
		xmlParseChunk(w.ctxt, NULL, 0, 1);
	/* libxml2 keeps entity declarations in a document of its own even
	 * in SAX mode ("for expat compatibility"), never consulted here
	 * (the lookups go to no_entity()), and frees it only at a clean
	 * end. */
	if (w.ctxt->myDoc) {
		xmlFreeDoc(w.ctxt->myDoc);
		w.ctxt->myDoc = NULL;
	}
	xmlFreeParserCtxt(w.ctxt);

	if (w.stopped && w.root != ROOT_OTHER) {
		rc = sm->rc;
	} else if (sm->src.err) {
		rc = sm->src.err;
	} else if (w.root == ROOT_NONE || w.root == ROOT_OTHER) {
		rc = SC_E_INVAL;
	} else {
		/* An early end (bad XML) leaves the size unknown. */
		source_drain(&sm->src);
		rc = sm->src.err ? sm->src.err : sm->src.over ? SC_E_LIMIT : 0;
	}
out:
	xmlSetGenericErrorFunc(old_ctx, old_fn);
	return rc;
}

/* ---- The entry point --------------------------------------------------- */

enum kind { KIND_EMPTY, KIND_XML, KIND_TEXT };

/* Look at the first bytes: after a UTF-8 byte order mark and white space,
 * '<' is XML (and so is a UTF-16 byte order mark), anything else text.
 * Leaves the source at the first byte that decided (or, for UTF-16, at
 * the start). */
static enum kind detect(struct source *s)
{
	const unsigned char *p;
	size_t n, i;
	bool first = true;

	while ((n = source_next(s, &p)) > 0) {
		i = 0;
		if (first) {
			first = false;
			if (n >= 2 && ((p[0] == 0xff && p[1] == 0xfe) ||
				       (p[0] == 0xfe && p[1] == 0xff))) {
				source_unread(s, p, n);
				return KIND_XML;
			}
			if (n >= 3 && p[0] == 0xef && p[1] == 0xbb &&
			    p[2] == 0xbf)
				i = 3;
		}
		while (i < n && is_space(p[i]))
			i++;
		if (i < n) {
			source_unread(s, p + i, n - i);
			return p[i] == '<' ? KIND_XML : KIND_TEXT;
		}
	}
	return KIND_EMPTY;
}

int parse_sitemap(const void *body, size_t len, bool *is_index,
		  int (*fn)(void *arg, const struct parse_sitemap_entry *e),
		  void *arg)
{
	struct sitemap *sm;
	int rc;

	if (is_index)
		*is_index = false;
	if (!body || len == 0)
		return SC_E_INVAL;
	sm = sc_calloc(1, sizeof(*sm));
	if (!sm)
		return SC_E_NOMEM;
	sm->fn = fn;
	sm->arg = arg;
	sm->loc = (struct field){ .buf = sm->loc_buf, .cap = NORM_INPUT_MAX };
	sm->lastmod = (struct field){ .buf = sm->lastmod_buf,
				      .cap = LASTMOD_MAX };
	sm->changefreq = (struct field){ .buf = sm->changefreq_buf,
					 .cap = CHANGEFREQ_MAX };

	rc = source_open(&sm->src, body, len);
	if (rc == 0) {
		switch (detect(&sm->src)) {
		case KIND_XML: rc = parse_xml(sm, is_index); break;
		case KIND_TEXT: rc = parse_text(sm); break;
		default: rc = sm->src.err ? sm->src.err : SC_E_INVAL; break;
		}
	}
	source_close(&sm->src);
	free(sm);
	return rc;
}
