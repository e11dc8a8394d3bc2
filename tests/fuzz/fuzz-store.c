/* fuzz-store.c — libFuzzer target for the record decoder and the export.
 *
 * The input is a stored value.  When it decodes, the record must encode
 * back to exactly the same bytes (one encoding per record), and both
 * exports must succeed: the JSON line must parse back with jansson into an
 * object of 18 fields (the rule among them), and the CSV line must be valid
 * UTF-8 without NUL and end in CRLF.  When it does not decode, the decoder must
 * say SC_E_CORRUPT.  Any broken promise aborts, which libFuzzer reports. */
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
	if (!j || !json_is_object(j) || json_object_size(j) != 18)
		fail("JSONL export does not parse back", NULL);
	json_t *n = json_object_get(j, "normalized");
	if (!json_is_string(n) || json_string_length(n) < r.normalized_len)
		fail("JSONL export lost the normalized URL", NULL);
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
	free(out);
	return 0;
}
