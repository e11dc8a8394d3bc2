/* record.c — the binary encoding of a record (format in store.h).
 *
 * Kept apart from LMDB so that the fuzz target can drive the decoder
 * alone.  The decoder trusts nothing: each length is compared with what is
 * left before it is used, and every rule the encoder follows is checked,
 * so that one record has exactly one encoding. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "store.h"

enum {
	F_FETCHED = 0x01,
	F_TRUNCATED = 0x02,
	F_CONTENT_TYPE = 0x04,
	F_TITLE = 0x08,
	F_REDIRECT = 0x10,
	F_DUPLICATE_OF = 0x20,
	F_SIGNATURE = 0x40,
	F_SIMHASH = 0x80,
	F2_RELEVANCE = 0x01,
	F2_RULE = 0x02,
	F2_VISIT = 0x04,
	F2_CHANGED_AT = 0x08,
	F2_GONE_AT = 0x10,
	F2_CAPTURE = 0x20,
	F2_ETAG = 0x40,
	F2_LAST_MODIFIED = 0x80,
	F3_NOINDEX = 0x01,
	F3_NOFOLLOW = 0x02,
	F3_ALL = F3_NOINDEX | F3_NOFOLLOW,
};

/* Sizes of the optional fixed parts of the re-crawls. */
enum {
	VISIT_SIZE = 4 + 4 + 8,
	CAPTURE_SIZE = 8 + 20,
};

static const char *const error_names[STORE_ERROR_COUNT] = {
	[STORE_ERROR_NONE] = "none",
	[STORE_ERROR_DNS] = "dns",
	[STORE_ERROR_CONNECT] = "connect",
	[STORE_ERROR_TIMEOUT] = "timeout",
	[STORE_ERROR_TLS] = "tls",
	[STORE_ERROR_TOO_BIG] = "too_big",
	[STORE_ERROR_TOO_MANY_REDIRECTS] = "too_many_redirects",
	[STORE_ERROR_REDIRECT_LOOP] = "redirect_loop",
	[STORE_ERROR_ROBOTS_DISALLOWED] = "robots_disallowed",
	[STORE_ERROR_HTTP_ERROR] = "http_error",
	[STORE_ERROR_DECOMPRESSION] = "decompression",
	[STORE_ERROR_OTHER] = "other",
	[STORE_ERROR_ROBOTS_UNREACHABLE] = "robots_unreachable",
	[STORE_ERROR_HOST_BUDGET] = "host_budget",
	[STORE_ERROR_SKIPPED_NOINDEX_NOFOLLOW] = "skipped_noindex_nofollow",
};

const char *store_error_name(enum store_error e)
{
	if ((unsigned)e >= STORE_ERROR_COUNT)
		return NULL;
	return error_names[e];
}

bool store_error_is_policy(enum store_error e)
{
	return e == STORE_ERROR_ROBOTS_DISALLOWED ||
	       e == STORE_ERROR_HOST_BUDGET ||
	       e == STORE_ERROR_SKIPPED_NOINDEX_NOFOLLOW;
}

int store_error_parse(const char *name, enum store_error *ret)
{
	if (!name || !ret)
		return SC_E_INVAL;
	for (unsigned i = 0; i < STORE_ERROR_COUNT; i++)
		if (strcmp(name, error_names[i]) == 0) {
			*ret = (enum store_error)i;
			return 0;
		}
	return SC_E_INVAL;
}

static uint64_t double_bits(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof(u));
	return u;
}

static double bits_double(uint64_t u)
{
	double d;
	memcpy(&d, &u, sizeof(d));
	return d;
}

/* An empty etag or last_modified is stored as absent: the encoding has
 * one form for "none", so that decode(encode(r)) is canonical. */
static bool has_etag(const struct store_record *r)
{
	return r->etag && r->etag_len > 0;
}

static bool has_last_modified(const struct store_record *r)
{
	return r->last_modified && r->last_modified_len > 0;
}

/* The robots flags byte of version 2; 0: the record is version 1. */
static unsigned robots_flags(const struct store_record *r)
{
	return (r->noindex ? F3_NOINDEX : 0u) |
	       (r->nofollow ? F3_NOFOLLOW : 0u);
}

int store_record_size(const struct store_record *r, size_t *ret)
{
	if (!r || !ret)
		return SC_E_INVAL;
	if (!r->normalized || r->normalized_len == 0)
		return SC_E_INVAL;
	if (r->status != 0 && (r->status < 100 || r->status > 999))
		return SC_E_INVAL;
	if (r->bytes > (uint64_t)INT64_MAX)
		return SC_E_INVAL;
	if ((unsigned)r->error >= STORE_ERROR_COUNT)
		return SC_E_INVAL;
	if (r->has_relevance && !isfinite(r->relevance))
		return SC_E_INVAL;
	if (r->has_visit && r->due_at < 0)
		return SC_E_INVAL;
	if (r->has_capture && (!r->capture_id || r->capture_id_len == 0 ||
			       r->capture_id_len > STORE_CAPTURE_ID_MAX))
		return SC_E_INVAL;
	if (r->etag && r->etag_len > STORE_ETAG_MAX)
		return SC_E_INVAL;
	if (r->last_modified && r->last_modified_len > STORE_LAST_MODIFIED_MAX)
		return SC_E_INVAL;
	const size_t lens[] = {
		r->url ? r->url_len : 0,
		r->normalized_len,
		r->category ? r->category_len : 0,
		r->content_type ? r->content_type_len : 0,
		r->title ? r->title_len : 0,
		r->redirect ? r->redirect_len : 0,
		r->duplicate_of ? r->duplicate_of_len : 0,
		r->rule ? r->rule_len : 0,
		r->has_capture ? r->capture_id_len : 0,
		has_etag(r) ? r->etag_len : 0,
		has_last_modified(r) ? r->last_modified_len : 0,
	};
	size_t n = STORE_RECORD_HEADER + (robots_flags(r) ? 1 : 0) +
		   (r->has_signature ? 16 : 0) + (r->has_simhash ? 8 : 0) +
		   (r->has_relevance ? 8 : 0) +
		   (r->has_visit ? VISIT_SIZE : 0) +
		   (r->has_changed_at ? 8 : 0) + (r->has_gone_at ? 8 : 0) +
		   (r->has_capture ? CAPTURE_SIZE : 0) + 3 * 4 +
		   (r->content_type ? 4 : 0) + (r->title ? 4 : 0) +
		   (r->redirect ? 4 : 0) + (r->duplicate_of ? 4 : 0) +
		   (r->rule ? 4 : 0) + (r->has_capture ? 4 : 0) +
		   (has_etag(r) ? 4 : 0) + (has_last_modified(r) ? 4 : 0);
	for (size_t i = 0; i < sizeof(lens) / sizeof(*lens); i++) {
		/* Each test keeps n below the bound, so the sum cannot wrap. */
		if (lens[i] > STORE_RECORD_MAX ||
		    n + lens[i] > STORE_RECORD_MAX)
			return SC_E_INVAL;
		n += lens[i];
	}
	*ret = n;
	return 0;
}

static unsigned char *put_str(unsigned char *p, const char *s, size_t len)
{
	if (!s)
		len = 0;
	put_be32(p, (uint32_t)len);
	if (len)
		memcpy(p + 4, s, len);
	return p + 4 + len;
}

int store_record_encode(const struct store_record *r, unsigned char *buf,
			size_t cap, size_t *len)
{
	size_t need;
	int rc = store_record_size(r, &need);
	if (rc)
		return rc;
	if (!buf || !len)
		return SC_E_INVAL;
	if (cap < need)
		return SC_E_NOSPC;

	unsigned flags = (r->fetched ? F_FETCHED : 0) |
			 (r->truncated ? F_TRUNCATED : 0) |
			 (r->content_type ? F_CONTENT_TYPE : 0) |
			 (r->title ? F_TITLE : 0) |
			 (r->redirect ? F_REDIRECT : 0) |
			 (r->duplicate_of ? F_DUPLICATE_OF : 0) |
			 (r->has_signature ? F_SIGNATURE : 0) |
			 (r->has_simhash ? F_SIMHASH : 0);
	unsigned char *p = buf;
	unsigned f3 = robots_flags(r);
	p[0] = f3 ? STORE_RECORD_VERSION_ROBOTS : STORE_RECORD_VERSION;
	p[1] = (unsigned char)flags;
	p[2] = (unsigned char)((r->has_relevance ? F2_RELEVANCE : 0) |
			       (r->rule ? F2_RULE : 0) |
			       (r->has_visit ? F2_VISIT : 0) |
			       (r->has_changed_at ? F2_CHANGED_AT : 0) |
			       (r->has_gone_at ? F2_GONE_AT : 0) |
			       (r->has_capture ? F2_CAPTURE : 0) |
			       (has_etag(r) ? F2_ETAG : 0) |
			       (has_last_modified(r) ? F2_LAST_MODIFIED : 0));
	p[3] = (unsigned char)r->error;
	put_be16(p + 4, (uint16_t)r->status);
	put_be32(p + 6, r->depth);
	put_be64(p + 10, r->bytes);
	put_be64(p + 18, (uint64_t)r->fetched_at);
	p += STORE_RECORD_HEADER;
	if (f3)
		*p++ = (unsigned char)f3;
	if (r->has_signature) {
		memcpy(p, r->signature, 16);
		p += 16;
	}
	if (r->has_simhash) {
		put_be64(p, r->simhash);
		p += 8;
	}
	if (r->has_relevance) {
		put_be64(p, double_bits(r->relevance));
		p += 8;
	}
	if (r->has_visit) {
		put_be32(p, r->visits);
		put_be32(p + 4, r->interval_s);
		put_be64(p + 8, (uint64_t)r->due_at);
		p += VISIT_SIZE;
	}
	if (r->has_changed_at) {
		put_be64(p, (uint64_t)r->changed_at);
		p += 8;
	}
	if (r->has_gone_at) {
		put_be64(p, (uint64_t)r->gone_at);
		p += 8;
	}
	if (r->has_capture) {
		put_be64(p, (uint64_t)r->capture_at);
		memcpy(p + 8, r->capture_sha1, 20);
		p += CAPTURE_SIZE;
	}
	p = put_str(p, r->url, r->url_len);
	p = put_str(p, r->normalized, r->normalized_len);
	p = put_str(p, r->category, r->category_len);
	if (r->content_type)
		p = put_str(p, r->content_type, r->content_type_len);
	if (r->title)
		p = put_str(p, r->title, r->title_len);
	if (r->redirect)
		p = put_str(p, r->redirect, r->redirect_len);
	if (r->duplicate_of)
		p = put_str(p, r->duplicate_of, r->duplicate_of_len);
	if (r->rule)
		p = put_str(p, r->rule, r->rule_len);
	if (r->has_capture)
		p = put_str(p, r->capture_id, r->capture_id_len);
	if (has_etag(r))
		p = put_str(p, r->etag, r->etag_len);
	if (has_last_modified(r))
		p = put_str(p, r->last_modified, r->last_modified_len);
	*len = (size_t)(p - buf);
	return 0;
}

/* A bounded reader: every take checks what is left first. */
struct reader {
	const unsigned char *p;
	size_t left;
};

static const unsigned char *take(struct reader *rd, size_t n)
{
	if (n > rd->left)
		return NULL;
	const unsigned char *p = rd->p;
	rd->p += n;
	rd->left -= n;
	return p;
}

static int take_str(struct reader *rd, const char **s, size_t *len)
{
	const unsigned char *p = take(rd, 4);
	if (!p)
		return SC_E_CORRUPT;
	uint64_t n = get_be32(p);
	const unsigned char *body = take(rd, (size_t)n);
	if (!body)
		return SC_E_CORRUPT;
	*s = (const char *)body;
	*len = (size_t)n;
	return 0;
}

int store_record_decode(const void *data, size_t len, struct store_record *ret)
{
	if (!data || !ret)
		return SC_E_CORRUPT;
	struct reader rd = { data, len };
	const unsigned char *h = take(&rd, STORE_RECORD_HEADER);
	/* Every bit of flag byte 2 has a meaning, so none is reserved. */
	if (!h ||
	    (h[0] != STORE_RECORD_VERSION &&
	     h[0] != STORE_RECORD_VERSION_ROBOTS) ||
	    h[3] >= STORE_ERROR_COUNT)
		return SC_E_CORRUPT;
	/* Version 2's robots byte: some flag set, none unknown. */
	unsigned f3 = 0;
	if (h[0] == STORE_RECORD_VERSION_ROBOTS) {
		const unsigned char *b = take(&rd, 1);
		if (!b || !b[0] || (b[0] & ~F3_ALL))
			return SC_E_CORRUPT;
		f3 = b[0];
	}

	struct store_record r;
	memset(&r, 0, sizeof(r));
	unsigned flags = h[1];
	r.fetched = flags & F_FETCHED;
	r.truncated = flags & F_TRUNCATED;
	r.noindex = f3 & F3_NOINDEX;
	r.nofollow = f3 & F3_NOFOLLOW;
	r.error = (enum store_error)h[3];
	r.status = (int)get_be16(h + 4);
	if (r.status != 0 && (r.status < 100 || r.status > 999))
		return SC_E_CORRUPT;
	r.depth = get_be32(h + 6);
	r.bytes = get_be64(h + 10);
	if (r.bytes > (uint64_t)INT64_MAX)
		return SC_E_CORRUPT;
	r.fetched_at = (int64_t)get_be64(h + 18);

	const unsigned char *p;
	if (flags & F_SIGNATURE) {
		if (!(p = take(&rd, 16)))
			return SC_E_CORRUPT;
		r.has_signature = true;
		memcpy(r.signature, p, 16);
	}
	if (flags & F_SIMHASH) {
		if (!(p = take(&rd, 8)))
			return SC_E_CORRUPT;
		r.has_simhash = true;
		r.simhash = get_be64(p);
	}
	if (h[2] & F2_RELEVANCE) {
		if (!(p = take(&rd, 8)))
			return SC_E_CORRUPT;
		r.has_relevance = true;
		r.relevance = bits_double(get_be64(p));
		if (!isfinite(r.relevance))
			return SC_E_CORRUPT;
	}
	if (h[2] & F2_VISIT) {
		if (!(p = take(&rd, VISIT_SIZE)))
			return SC_E_CORRUPT;
		r.has_visit = true;
		r.visits = get_be32(p);
		r.interval_s = get_be32(p + 4);
		r.due_at = (int64_t)get_be64(p + 8);
		if (r.due_at < 0)
			return SC_E_CORRUPT;
	}
	if (h[2] & F2_CHANGED_AT) {
		if (!(p = take(&rd, 8)))
			return SC_E_CORRUPT;
		r.has_changed_at = true;
		r.changed_at = (int64_t)get_be64(p);
	}
	if (h[2] & F2_GONE_AT) {
		if (!(p = take(&rd, 8)))
			return SC_E_CORRUPT;
		r.has_gone_at = true;
		r.gone_at = (int64_t)get_be64(p);
	}
	if (h[2] & F2_CAPTURE) {
		if (!(p = take(&rd, CAPTURE_SIZE)))
			return SC_E_CORRUPT;
		r.has_capture = true;
		r.capture_at = (int64_t)get_be64(p);
		memcpy(r.capture_sha1, p + 8, 20);
	}
	if (take_str(&rd, &r.url, &r.url_len) ||
	    take_str(&rd, &r.normalized, &r.normalized_len) ||
	    take_str(&rd, &r.category, &r.category_len))
		return SC_E_CORRUPT;
	if (r.normalized_len == 0)
		return SC_E_CORRUPT;
	if ((flags & F_CONTENT_TYPE) &&
	    take_str(&rd, &r.content_type, &r.content_type_len))
		return SC_E_CORRUPT;
	if ((flags & F_TITLE) && take_str(&rd, &r.title, &r.title_len))
		return SC_E_CORRUPT;
	if ((flags & F_REDIRECT) && take_str(&rd, &r.redirect, &r.redirect_len))
		return SC_E_CORRUPT;
	if ((flags & F_DUPLICATE_OF) &&
	    take_str(&rd, &r.duplicate_of, &r.duplicate_of_len))
		return SC_E_CORRUPT;
	if ((h[2] & F2_RULE) && take_str(&rd, &r.rule, &r.rule_len))
		return SC_E_CORRUPT;
	if ((h[2] & F2_CAPTURE) &&
	    (take_str(&rd, &r.capture_id, &r.capture_id_len) ||
	     r.capture_id_len == 0 || r.capture_id_len > STORE_CAPTURE_ID_MAX))
		return SC_E_CORRUPT;
	if ((h[2] & F2_ETAG) &&
	    (take_str(&rd, &r.etag, &r.etag_len) || r.etag_len == 0 ||
	     r.etag_len > STORE_ETAG_MAX))
		return SC_E_CORRUPT;
	if ((h[2] & F2_LAST_MODIFIED) &&
	    (take_str(&rd, &r.last_modified, &r.last_modified_len) ||
	     r.last_modified_len == 0 ||
	     r.last_modified_len > STORE_LAST_MODIFIED_MAX))
		return SC_E_CORRUPT;
	if (rd.left != 0 || len > STORE_RECORD_MAX)
		return SC_E_CORRUPT;
	*ret = r;
	return 0;
}
