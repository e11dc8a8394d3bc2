/* fuzz-store.c — libFuzzer target for the record decoder and the export.
 *
 * The input is a stored value.  When it decodes, the record must encode
 * back to exactly the same bytes (one encoding per record), and both
 * exports must succeed: the JSON line must parse back with jansson into an
 * object of 26 fields (the rule, the re-crawl fields and robots among them,
 * each null exactly when the record says so), and the CSV line must be valid
 * UTF-8 without NUL, have 26 columns outside quotes, and end in CRLF.  When it
 * does not decode, the decoder must say SC_E_CORRUPT.  Any broken promise
 * aborts, which libFuzzer reports. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An independent UTF-8 check: decode each code point, then judge it. */
static int valid_utf8_no_nul(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		unsigned c = s[i], need, cp;
		if (c == 0)
			return 0;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xE0) == 0xC0) {
			need = 1, cp = c & 0x1F;
		} else if ((c & 0xF0) == 0xE0) {
			need = 2, cp = c & 0x0F;
		} else if ((c & 0xF8) == 0xF0) {
			need = 3, cp = c & 0x07;
		} else {
			return 0;
		}
		if (need >= n - i) /* the sequence runs past the end */
			return 0;
		for (unsigned k = 1; k <= need; k++) {
			if ((s[i + k] & 0xC0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3F);
		}
		static const unsigned min[] = { 0, 0x80, 0x800, 0x10000 };
		if (cp < min[need] || cp > 0x10FFFF ||
		    (cp >= 0xD800 && cp <= 0xDFFF))
			return 0;
		i += need + 1;
	}
	return 1;
}

/* KEY of J is the integer V when PRESENT, else null. */
static int int_or_null(json_t *j, const char *key, bool present, json_int_t v)
{
	json_t *x = json_object_get(j, key);
	if (!present)
		return json_is_null(x);
	return json_is_integer(x) && json_integer_value(x) == v;
}

/* KEY of J is a string at least LEN long when S is set, else null. */
static int str_or_null(json_t *j, const char *key, const char *s, size_t len)
{
	json_t *x = json_object_get(j, key);
	if (!s)
		return json_is_null(x);
	return len > 0 && json_is_string(x) && json_string_length(x) >= len;
}

/* The columns of one CSV line: its commas outside quotes, plus one. */
static size_t csv_columns(const char *s, size_t n)
{
	size_t cols = 1;
	bool quoted = false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			quoted = !quoted; /* a doubled quote toggles twice */
		else if (s[i] == ',' && !quoted)
			cols++;
	}
	return cols;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct store_record r;
	int rc = store_record_decode(data, size, &r);
	if (rc) {
		if (rc != SC_E_CORRUPT)
			fail("decode failed with a code other than SC_E_CORRUPT",
			     NULL);
		return 0;
	}

	size_t need, len;
	if (store_record_size(&r, &need) != 0 || need != size)
		fail("a decoded record has another encoded size", NULL);
	unsigned char *buf = malloc(size);
	if (!buf)
		return 0;
	if (store_record_encode(&r, buf, size, &len) != 0 || len != size ||
	    memcmp(buf, data, size) != 0)
		fail("re-encoding gives other bytes", NULL);
	free(buf);

	char *out = NULL;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);
	if (!f)
		return 0;
	if (store_export_jsonl(&r, f) != 0)
		fail("JSONL export failed", NULL);
	fclose(f);
	if (outlen == 0 || out[outlen - 1] != '\n' ||
	    memchr(out, '\n', outlen) != out + outlen - 1)
		fail("JSONL export is not one line", NULL);
	json_error_t err;
	json_t *j = json_loadb(out, outlen, JSON_ALLOW_NUL, &err);
	if (!j || !json_is_object(j) || json_object_size(j) != 26)
		fail("JSONL export does not parse back", NULL);
	json_t *n = json_object_get(j, "normalized");
	if (!json_is_string(n) || json_string_length(n) < r.normalized_len)
		fail("JSONL export lost the normalized URL", NULL);
	json_int_t visits = r.has_visit ? r.visits : r.fetched ? 1 : 0;
	if (!int_or_null(j, "visits", true, visits) ||
	    !int_or_null(j, "changed_at", r.has_changed_at, r.changed_at) ||
	    !int_or_null(j, "gone_at", r.has_gone_at, r.gone_at) ||
	    !int_or_null(j, "next_visit", r.has_visit && r.due_at > 0,
			 r.due_at) ||
	    !int_or_null(j, "interval", r.has_visit, r.interval_s))
		fail("JSONL export has a wrong re-crawl number", NULL);
	/* A decoded string is never empty, and its repair only grows it. */
	if (!str_or_null(j, "etag", r.etag, r.etag_len) ||
	    !str_or_null(j, "last_modified", r.last_modified,
			 r.last_modified_len))
		fail("JSONL export has a wrong etag or last_modified", NULL);
	json_decref(j);
	free(out);

	out = NULL;
	outlen = 0;
	f = open_memstream(&out, &outlen);
	if (!f)
		return 0;
	if (store_export_csv(&r, f) != 0)
		fail("CSV export failed", NULL);
	fclose(f);
	if (outlen < 2 || out[outlen - 2] != '\r' || out[outlen - 1] != '\n')
		fail("CSV line does not end in CRLF", NULL);
	if (!valid_utf8_no_nul((const unsigned char *)out, outlen))
		fail("CSV line is not valid UTF-8 without NUL", NULL);
	if (csv_columns(out, outlen) != 26)
		fail("CSV line does not have 26 columns", NULL);
	free(out);
	return 0;
}
