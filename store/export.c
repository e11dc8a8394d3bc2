/* export.c — a record as a JSON line or a CSV line (SPEC §5).
 *
 * Stored strings are bytes from the network and need not be UTF-8.  JSON
 * text must be Unicode and jansson rejects invalid UTF-8, so both formats
 * replace each byte that does not start or continue a valid sequence with
 * U+FFFD.  The validity rules are RFC 3629's: no overlong forms, no
 * surrogates, nothing above U+10FFFF, the same rules jansson checks. */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "sc.h"
#include "store.h"

static const char replacement[3] = { (char)0xEF, (char)0xBF, (char)0xBD };

/* Length of the valid UTF-8 sequence at S (N bytes left), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	size_t len;
	unsigned char lo = 0x80, hi = 0xBF; /* range of the second byte */
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		if (c == 0xE0)
			lo = 0xA0; /* overlong */
		else if (c == 0xED)
			hi = 0x9F; /* surrogates */
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		if (c == 0xF0)
			lo = 0x90; /* overlong */
		else if (c == 0xF4)
			hi = 0x8F; /* above U+10FFFF */
	} else {
		return 0;
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return len;
}

/* A JSON string of S with invalid UTF-8 repaired, or json_null() for an
 * absent string.  NULL only when out of memory. */
static json_t *json_text(const char *s, size_t len)
{
	if (!s)
		return json_null();
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, k;
	while (i < len && (k = utf8_len(u + i, len - i)) != 0)
		i += k;
	if (i == len)
		return json_stringn(s, len);

	/* At most three bytes out per byte in. */
	if (len > (SIZE_MAX - 1) / 3)
		return NULL;
	char *buf = malloc(3 * len + 1);
	if (!buf)
		return NULL;
	size_t o = i;
	memcpy(buf, s, i);
	while (i < len) {
		k = utf8_len(u + i, len - i);
		if (k) {
			memcpy(buf + o, s + i, k);
			o += k;
			i += k;
		} else {
			memcpy(buf + o, replacement, 3);
			o += 3;
			i++;
		}
	}
	json_t *j = json_stringn(buf, o);
	free(buf);
	return j;
}

/* The exported re-crawl values (store.h): the visits, whether the next
 * visit and the interval are known, and the optional strings, of which an
 * empty one is absent as in the encoding. */
static uint32_t visits_of(const struct store_record *r)
{
	if (r->has_visit)
		return r->visits;
	return r->fetched ? 1 : 0;
}

static bool has_next_visit(const struct store_record *r)
{
	return r->has_visit && r->due_at > 0;
}

static const char *etag_of(const struct store_record *r)
{
	return r->etag && r->etag_len > 0 ? r->etag : NULL;
}

/* What the page said of itself (store.h, robots), or NULL. */
static const char *robots_of(const struct store_record *r)
{
	return r->noindex && r->nofollow ? "noindex,nofollow"
	       : r->noindex              ? "noindex"
	       : r->nofollow             ? "nofollow"
					 : NULL;
}

static const char *last_modified_of(const struct store_record *r)
{
	return r->last_modified && r->last_modified_len > 0 ? r->last_modified
							    : NULL;
}

/* Sets KEY to VAL in OBJ, stealing VAL; a NULL VAL (out of memory) or a
 * failed set marks *ok false. */
static void set(json_t *obj, const char *key, json_t *val, bool *ok)
{
	if (!val || json_object_set_new(obj, key, val) != 0)
		*ok = false;
}

int store_export_jsonl(const struct store_record *r, FILE *f)
{
	if (!r || !f)
		return SC_E_INVAL;
	json_t *o = json_object();
	if (!o)
		return SC_E_NOMEM;
	bool ok = true;
	char sig[33], sim[17];
	unsigned char simb[8];

	set(o, "url", json_text(r->url ? r->url : "", r->url_len), &ok);
	set(o, "normalized",
	    json_text(r->normalized ? r->normalized : "", r->normalized_len),
	    &ok);
	set(o, "category",
	    json_text(r->category ? r->category : "", r->category_len), &ok);
	set(o, "depth", json_integer(r->depth), &ok);
	set(o, "status",
	    r->fetched && r->status ? json_integer(r->status) : json_null(),
	    &ok);
	set(o, "fetched", json_boolean(r->fetched), &ok);
	set(o, "content_type", json_text(r->content_type, r->content_type_len),
	    &ok);
	set(o, "bytes",
	    r->fetched ? json_integer((json_int_t)r->bytes) : json_null(), &ok);
	set(o, "fetched_at",
	    r->fetched ? json_integer((json_int_t)r->fetched_at) : json_null(),
	    &ok);
	set(o, "title", json_text(r->title, r->title_len), &ok);
	set(o, "redirect", json_text(r->redirect, r->redirect_len), &ok);
	if (r->has_signature)
		sc_hex(r->signature, 16, sig);
	set(o, "signature", r->has_signature ? json_string(sig) : json_null(),
	    &ok);
	if (r->has_simhash) {
		put_be64(simb, r->simhash);
		sc_hex(simb, 8, sim);
	}
	set(o, "simhash", r->has_simhash ? json_string(sim) : json_null(), &ok);
	set(o, "duplicate_of", json_text(r->duplicate_of, r->duplicate_of_len),
	    &ok);
	/* jansson refuses NaN and infinities; the encoding never holds them,
	 * but a caller's record might. */
	set(o, "relevance",
	    r->has_relevance ? json_real(r->relevance) : json_null(), &ok);
	const char *ename = store_error_name(r->error);
	set(o, "error",
	    r->error == STORE_ERROR_NONE ? json_null()
					 : json_string(ename ? ename : "other"),
	    &ok);
	set(o, "truncated", json_boolean(r->truncated), &ok);
	set(o, "rule", json_text(r->rule, r->rule_len), &ok);
	set(o, "visits", json_integer((json_int_t)visits_of(r)), &ok);
	set(o, "changed_at",
	    r->has_changed_at ? json_integer((json_int_t)r->changed_at)
			      : json_null(),
	    &ok);
	set(o, "gone_at",
	    r->has_gone_at ? json_integer((json_int_t)r->gone_at) : json_null(),
	    &ok);
	set(o, "next_visit",
	    has_next_visit(r) ? json_integer((json_int_t)r->due_at)
			      : json_null(),
	    &ok);
	set(o, "interval",
	    r->has_visit ? json_integer((json_int_t)r->interval_s)
			 : json_null(),
	    &ok);
	set(o, "etag", json_text(etag_of(r), r->etag_len), &ok);
	set(o, "last_modified",
	    json_text(last_modified_of(r), r->last_modified_len), &ok);
	const char *rb = robots_of(r);
	set(o, "robots", rb ? json_string(rb) : json_null(), &ok);

	int rc = 0;
	if (!ok)
		rc = SC_E_NOMEM;
	else if (json_dumpf(o, f, JSON_COMPACT) != 0 || fputc('\n', f) == EOF)
		rc = SC_E_IO;
	json_decref(o);
	return rc;
}

/* ---- CSV ---------------------------------------------------------------- */

static const char *const csv_columns =
	"url,normalized,category,depth,status,fetched,content_type,bytes,"
	"fetched_at,title,redirect,signature,simhash,duplicate_of,relevance,"
	"error,truncated,rule,visits,changed_at,gone_at,next_visit,interval,"
	"etag,last_modified,robots\r\n";

int store_export_csv_header(FILE *f)
{
	if (!f)
		return SC_E_INVAL;
	return fputs(csv_columns, f) == EOF ? SC_E_IO : 0;
}

/* Writes one text field (RFC 4180), repaired as store.h says.  A NULL S
 * is an empty field.  Returns false when F failed. */
static bool csv_text(FILE *f, const char *s, size_t len, bool comma)
{
	if (comma && fputc(',', f) == EOF)
		return false;
	if (!s || len == 0)
		return true;
	bool quote = memchr(s, ',', len) || memchr(s, '"', len) ||
		     memchr(s, '\r', len) || memchr(s, '\n', len);
	bool formula = strchr("=+-@\t\r", s[0]) != NULL && s[0] != '\0';
	if (quote && fputc('"', f) == EOF)
		return false;
	if (formula && fputc('\'', f) == EOF)
		return false;
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		size_t k = u[i] ? utf8_len(u + i, len - i) : 0;
		if (k == 0) {
			if (fwrite(replacement, 1, 3, f) != 3)
				return false;
			i++;
			continue;
		}
		if (u[i] == '"' && fputc('"', f) == EOF)
			return false;
		if (fwrite(s + i, 1, k, f) != k)
			return false;
		i += k;
	}
	return !quote || fputc('"', f) != EOF;
}

/* Writes a comma and, when PRESENT, the integer V (else nothing: null).
 * Returns false when F failed. */
static bool csv_int(FILE *f, bool present, int64_t v)
{
	if (!present)
		return fputc(',', f) != EOF;
	return fprintf(f, ",%" PRId64, v) > 0;
}

int store_export_csv(const struct store_record *r, FILE *f)
{
	if (!r || !f)
		return SC_E_INVAL;
	char sig[33] = "", sim[17] = "", rel[32] = "";
	unsigned char simb[8];
	if (r->has_signature)
		sc_hex(r->signature, 16, sig);
	if (r->has_simhash) {
		put_be64(simb, r->simhash);
		sc_hex(simb, 8, sim);
	}
	if (r->has_relevance)
		snprintf(rel, sizeof(rel), "%.17g", r->relevance);
	const char *ename = r->error == STORE_ERROR_NONE
				    ? ""
				    : store_error_name(r->error);
	if (!ename)
		ename = "other";

	bool ok = csv_text(f, r->url, r->url_len, false) &&
		  csv_text(f, r->normalized, r->normalized_len, true) &&
		  csv_text(f, r->category, r->category_len, true);
	ok = ok && fprintf(f, ",%" PRIu32, r->depth) > 0;
	if (ok && r->fetched && r->status)
		ok = fprintf(f, ",%d", r->status) > 0;
	else if (ok)
		ok = fputc(',', f) != EOF;
	ok = ok && fputs(r->fetched ? ",true" : ",false", f) != EOF;
	ok = ok && csv_text(f, r->content_type, r->content_type_len, true);
	if (ok && r->fetched)
		ok = fprintf(f, ",%" PRIu64 ",%" PRId64, r->bytes,
			     r->fetched_at) > 0;
	else if (ok)
		ok = fputs(",,", f) != EOF;
	ok = ok && csv_text(f, r->title, r->title_len, true) &&
	     csv_text(f, r->redirect, r->redirect_len, true) &&
	     fprintf(f, ",%s,%s", sig, sim) > 0 &&
	     csv_text(f, r->duplicate_of, r->duplicate_of_len, true) &&
	     fprintf(f, ",%s,%s,%s", rel, ename,
		     r->truncated ? "true" : "false") > 0 &&
	     csv_text(f, r->rule, r->rule_len, true);
	ok = ok && fprintf(f, ",%" PRIu32, visits_of(r)) > 0;
	ok = ok && csv_int(f, r->has_changed_at, r->changed_at) &&
	     csv_int(f, r->has_gone_at, r->gone_at) &&
	     csv_int(f, has_next_visit(r), r->due_at) &&
	     csv_int(f, r->has_visit, r->interval_s) &&
	     csv_text(f, etag_of(r), r->etag_len, true) &&
	     csv_text(f, last_modified_of(r), r->last_modified_len, true) &&
	     csv_text(f, robots_of(r), robots_of(r) ? strlen(robots_of(r)) : 0,
		      true) &&
	     fputs("\r\n", f) != EOF;
	return ok ? 0 : SC_E_IO;
}
