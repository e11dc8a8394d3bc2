/* charset.c — which charset a page is in, and its conversion to UTF-8.
 *
 * The order is HTML's (the "encoding sniffing algorithm"), without the
 * guessing step: a byte order mark; the Content-Type charset parameter; a
 * prescan of the first 1024 bytes for <meta charset> or <meta http-equiv=
 * content-type content="...charset=...">; UTF-8.  Labels are the WHATWG
 * Encoding standard's, mapped to the glibc iconv converter that decodes
 * the same way (or the closest one: glibc's windows-1252 has no mapping
 * for 0x81, 0x8d, 0x8f, 0x90 and 0x9d, which become U+FFFD).  The
 * "replacement" and "x-user-defined" encodings are not supported and count
 * as unknown labels.
 */
#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse-int.h"

enum {
	CS_UTF8,
	CS_IBM866,
	CS_8859_2,
	CS_8859_3,
	CS_8859_4,
	CS_8859_5,
	CS_8859_6,
	CS_8859_7,
	CS_8859_8,
	CS_8859_8I,
	CS_8859_10,
	CS_8859_13,
	CS_8859_14,
	CS_8859_15,
	CS_8859_16,
	CS_KOI8R,
	CS_KOI8U,
	CS_MAC,
	CS_874,
	CS_1250,
	CS_1251,
	CS_1252,
	CS_1253,
	CS_1254,
	CS_1255,
	CS_1256,
	CS_1257,
	CS_1258,
	CS_MACCYR,
	CS_GBK,
	CS_GB18030,
	CS_BIG5,
	CS_EUCJP,
	CS_2022JP,
	CS_SJIS,
	CS_EUCKR,
	CS_UTF16BE,
	CS_UTF16LE,
};

static const struct charset charsets[] = {
	[CS_UTF8] = { "UTF-8", NULL },
	[CS_IBM866] = { "IBM866", "IBM866" },
	[CS_8859_2] = { "ISO-8859-2", "ISO-8859-2" },
	[CS_8859_3] = { "ISO-8859-3", "ISO-8859-3" },
	[CS_8859_4] = { "ISO-8859-4", "ISO-8859-4" },
	[CS_8859_5] = { "ISO-8859-5", "ISO-8859-5" },
	[CS_8859_6] = { "ISO-8859-6", "ISO-8859-6" },
	[CS_8859_7] = { "ISO-8859-7", "ISO-8859-7" },
	[CS_8859_8] = { "ISO-8859-8", "ISO-8859-8" },
	[CS_8859_8I] = { "ISO-8859-8-I", "ISO-8859-8" },
	[CS_8859_10] = { "ISO-8859-10", "ISO-8859-10" },
	[CS_8859_13] = { "ISO-8859-13", "ISO-8859-13" },
	[CS_8859_14] = { "ISO-8859-14", "ISO-8859-14" },
	[CS_8859_15] = { "ISO-8859-15", "ISO-8859-15" },
	[CS_8859_16] = { "ISO-8859-16", "ISO-8859-16" },
	[CS_KOI8R] = { "KOI8-R", "KOI8-R" },
	[CS_KOI8U] = { "KOI8-U", "KOI8-U" },
	[CS_MAC] = { "macintosh", "MACINTOSH" },
	[CS_874] = { "windows-874", "CP874" },
	[CS_1250] = { "windows-1250", "CP1250" },
	[CS_1251] = { "windows-1251", "CP1251" },
	[CS_1252] = { "windows-1252", "CP1252" },
	[CS_1253] = { "windows-1253", "CP1253" },
	[CS_1254] = { "windows-1254", "CP1254" },
	[CS_1255] = { "windows-1255", "CP1255" },
	[CS_1256] = { "windows-1256", "CP1256" },
	[CS_1257] = { "windows-1257", "CP1257" },
	[CS_1258] = { "windows-1258", "CP1258" },
	[CS_MACCYR] = { "x-mac-cyrillic", "MAC-CYRILLIC" },
	/* WHATWG decodes GBK with the gb18030 decoder. */
	[CS_GBK] = { "GBK", "GB18030" },
	[CS_GB18030] = { "gb18030", "GB18030" },
	[CS_BIG5] = { "Big5", "BIG5-HKSCS" },
	[CS_EUCJP] = { "EUC-JP", "EUC-JP" },
	[CS_2022JP] = { "ISO-2022-JP", "ISO-2022-JP" },
	/* WHATWG's Shift_JIS is Microsoft's variant. */
	[CS_SJIS] = { "Shift_JIS", "CP932" },
	[CS_EUCKR] = { "EUC-KR", "CP949" },
	[CS_UTF16BE] = { "UTF-16BE", "UTF-16BE" },
	[CS_UTF16LE] = { "UTF-16LE", "UTF-16LE" },
};

struct label {
	const char *label;
	uint8_t cs;
};

/* The WHATWG labels of the encodings above. */
static const struct label labels[] = {
	{ "unicode-1-1-utf-8", CS_UTF8 },
	{ "unicode11utf8", CS_UTF8 },
	{ "unicode20utf8", CS_UTF8 },
	{ "utf-8", CS_UTF8 },
	{ "utf8", CS_UTF8 },
	{ "x-unicode20utf8", CS_UTF8 },
	{ "866", CS_IBM866 },
	{ "cp866", CS_IBM866 },
	{ "csibm866", CS_IBM866 },
	{ "ibm866", CS_IBM866 },
	{ "csisolatin2", CS_8859_2 },
	{ "iso-8859-2", CS_8859_2 },
	{ "iso-ir-101", CS_8859_2 },
	{ "iso8859-2", CS_8859_2 },
	{ "iso88592", CS_8859_2 },
	{ "iso_8859-2", CS_8859_2 },
	{ "iso_8859-2:1987", CS_8859_2 },
	{ "l2", CS_8859_2 },
	{ "latin2", CS_8859_2 },
	{ "csisolatin3", CS_8859_3 },
	{ "iso-8859-3", CS_8859_3 },
	{ "iso-ir-109", CS_8859_3 },
	{ "iso8859-3", CS_8859_3 },
	{ "iso88593", CS_8859_3 },
	{ "iso_8859-3", CS_8859_3 },
	{ "iso_8859-3:1988", CS_8859_3 },
	{ "l3", CS_8859_3 },
	{ "latin3", CS_8859_3 },
	{ "csisolatin4", CS_8859_4 },
	{ "iso-8859-4", CS_8859_4 },
	{ "iso-ir-110", CS_8859_4 },
	{ "iso8859-4", CS_8859_4 },
	{ "iso88594", CS_8859_4 },
	{ "iso_8859-4", CS_8859_4 },
	{ "iso_8859-4:1988", CS_8859_4 },
	{ "l4", CS_8859_4 },
	{ "latin4", CS_8859_4 },
	{ "csisolatincyrillic", CS_8859_5 },
	{ "cyrillic", CS_8859_5 },
	{ "iso-8859-5", CS_8859_5 },
	{ "iso-ir-144", CS_8859_5 },
	{ "iso8859-5", CS_8859_5 },
	{ "iso88595", CS_8859_5 },
	{ "iso_8859-5", CS_8859_5 },
	{ "iso_8859-5:1988", CS_8859_5 },
	{ "arabic", CS_8859_6 },
	{ "asmo-708", CS_8859_6 },
	{ "csiso88596e", CS_8859_6 },
	{ "csiso88596i", CS_8859_6 },
	{ "csisolatinarabic", CS_8859_6 },
	{ "ecma-114", CS_8859_6 },
	{ "iso-8859-6", CS_8859_6 },
	{ "iso-8859-6-e", CS_8859_6 },
	{ "iso-8859-6-i", CS_8859_6 },
	{ "iso-ir-127", CS_8859_6 },
	{ "iso8859-6", CS_8859_6 },
	{ "iso88596", CS_8859_6 },
	{ "iso_8859-6", CS_8859_6 },
	{ "iso_8859-6:1987", CS_8859_6 },
	{ "csisolatingreek", CS_8859_7 },
	{ "ecma-118", CS_8859_7 },
	{ "elot_928", CS_8859_7 },
	{ "greek", CS_8859_7 },
	{ "greek8", CS_8859_7 },
	{ "iso-8859-7", CS_8859_7 },
	{ "iso-ir-126", CS_8859_7 },
	{ "iso8859-7", CS_8859_7 },
	{ "iso88597", CS_8859_7 },
	{ "iso_8859-7", CS_8859_7 },
	{ "iso_8859-7:1987", CS_8859_7 },
	{ "sun_eu_greek", CS_8859_7 },
	{ "csiso88598e", CS_8859_8 },
	{ "csisolatinhebrew", CS_8859_8 },
	{ "hebrew", CS_8859_8 },
	{ "iso-8859-8", CS_8859_8 },
	{ "iso-8859-8-e", CS_8859_8 },
	{ "iso-ir-138", CS_8859_8 },
	{ "iso8859-8", CS_8859_8 },
	{ "iso88598", CS_8859_8 },
	{ "iso_8859-8", CS_8859_8 },
	{ "iso_8859-8:1988", CS_8859_8 },
	{ "visual", CS_8859_8 },
	{ "csiso88598i", CS_8859_8I },
	{ "iso-8859-8-i", CS_8859_8I },
	{ "logical", CS_8859_8I },
	{ "csisolatin6", CS_8859_10 },
	{ "iso-8859-10", CS_8859_10 },
	{ "iso-ir-157", CS_8859_10 },
	{ "iso8859-10", CS_8859_10 },
	{ "iso885910", CS_8859_10 },
	{ "l6", CS_8859_10 },
	{ "latin6", CS_8859_10 },
	{ "iso-8859-13", CS_8859_13 },
	{ "iso8859-13", CS_8859_13 },
	{ "iso885913", CS_8859_13 },
	{ "iso-8859-14", CS_8859_14 },
	{ "iso8859-14", CS_8859_14 },
	{ "iso885914", CS_8859_14 },
	{ "csisolatin9", CS_8859_15 },
	{ "iso-8859-15", CS_8859_15 },
	{ "iso8859-15", CS_8859_15 },
	{ "iso885915", CS_8859_15 },
	{ "iso_8859-15", CS_8859_15 },
	{ "l9", CS_8859_15 },
	{ "iso-8859-16", CS_8859_16 },
	{ "cskoi8r", CS_KOI8R },
	{ "koi", CS_KOI8R },
	{ "koi8", CS_KOI8R },
	{ "koi8-r", CS_KOI8R },
	{ "koi8_r", CS_KOI8R },
	{ "koi8-ru", CS_KOI8U },
	{ "koi8-u", CS_KOI8U },
	{ "csmacintosh", CS_MAC },
	{ "mac", CS_MAC },
	{ "macintosh", CS_MAC },
	{ "x-mac-roman", CS_MAC },
	{ "dos-874", CS_874 },
	{ "iso-8859-11", CS_874 },
	{ "iso8859-11", CS_874 },
	{ "iso885911", CS_874 },
	{ "tis-620", CS_874 },
	{ "windows-874", CS_874 },
	{ "cp1250", CS_1250 },
	{ "windows-1250", CS_1250 },
	{ "x-cp1250", CS_1250 },
	{ "cp1251", CS_1251 },
	{ "windows-1251", CS_1251 },
	{ "x-cp1251", CS_1251 },
	{ "ansi_x3.4-1968", CS_1252 },
	{ "ascii", CS_1252 },
	{ "cp1252", CS_1252 },
	{ "cp819", CS_1252 },
	{ "csisolatin1", CS_1252 },
	{ "ibm819", CS_1252 },
	{ "iso-8859-1", CS_1252 },
	{ "iso-ir-100", CS_1252 },
	{ "iso8859-1", CS_1252 },
	{ "iso88591", CS_1252 },
	{ "iso_8859-1", CS_1252 },
	{ "iso_8859-1:1987", CS_1252 },
	{ "l1", CS_1252 },
	{ "latin1", CS_1252 },
	{ "us-ascii", CS_1252 },
	{ "windows-1252", CS_1252 },
	{ "x-cp1252", CS_1252 },
	{ "cp1253", CS_1253 },
	{ "windows-1253", CS_1253 },
	{ "x-cp1253", CS_1253 },
	{ "cp1254", CS_1254 },
	{ "csisolatin5", CS_1254 },
	{ "iso-8859-9", CS_1254 },
	{ "iso-ir-148", CS_1254 },
	{ "iso8859-9", CS_1254 },
	{ "iso88599", CS_1254 },
	{ "iso_8859-9", CS_1254 },
	{ "iso_8859-9:1989", CS_1254 },
	{ "l5", CS_1254 },
	{ "latin5", CS_1254 },
	{ "windows-1254", CS_1254 },
	{ "x-cp1254", CS_1254 },
	{ "cp1255", CS_1255 },
	{ "windows-1255", CS_1255 },
	{ "x-cp1255", CS_1255 },
	{ "cp1256", CS_1256 },
	{ "windows-1256", CS_1256 },
	{ "x-cp1256", CS_1256 },
	{ "cp1257", CS_1257 },
	{ "windows-1257", CS_1257 },
	{ "x-cp1257", CS_1257 },
	{ "cp1258", CS_1258 },
	{ "windows-1258", CS_1258 },
	{ "x-cp1258", CS_1258 },
	{ "x-mac-cyrillic", CS_MACCYR },
	{ "x-mac-ukrainian", CS_MACCYR },
	{ "chinese", CS_GBK },
	{ "csgb2312", CS_GBK },
	{ "csiso58gb231280", CS_GBK },
	{ "gb2312", CS_GBK },
	{ "gb_2312", CS_GBK },
	{ "gb_2312-80", CS_GBK },
	{ "gbk", CS_GBK },
	{ "iso-ir-58", CS_GBK },
	{ "x-gbk", CS_GBK },
	{ "gb18030", CS_GB18030 },
	{ "big5", CS_BIG5 },
	{ "big5-hkscs", CS_BIG5 },
	{ "cn-big5", CS_BIG5 },
	{ "csbig5", CS_BIG5 },
	{ "x-x-big5", CS_BIG5 },
	{ "cseucpkdfmtjapanese", CS_EUCJP },
	{ "euc-jp", CS_EUCJP },
	{ "x-euc-jp", CS_EUCJP },
	{ "csiso2022jp", CS_2022JP },
	{ "iso-2022-jp", CS_2022JP },
	{ "csshiftjis", CS_SJIS },
	{ "ms932", CS_SJIS },
	{ "ms_kanji", CS_SJIS },
	{ "shift-jis", CS_SJIS },
	{ "shift_jis", CS_SJIS },
	{ "sjis", CS_SJIS },
	{ "windows-31j", CS_SJIS },
	{ "x-sjis", CS_SJIS },
	{ "cseuckr", CS_EUCKR },
	{ "csksc56011987", CS_EUCKR },
	{ "euc-kr", CS_EUCKR },
	{ "iso-ir-149", CS_EUCKR },
	{ "korean", CS_EUCKR },
	{ "ks_c_5601-1987", CS_EUCKR },
	{ "ks_c_5601-1989", CS_EUCKR },
	{ "ksc5601", CS_EUCKR },
	{ "ksc_5601", CS_EUCKR },
	{ "windows-949", CS_EUCKR },
	{ "unicodefffe", CS_UTF16BE },
	{ "utf-16be", CS_UTF16BE },
	{ "csunicode", CS_UTF16LE },
	{ "iso-10646-ucs-2", CS_UTF16LE },
	{ "ucs-2", CS_UTF16LE },
	{ "unicode", CS_UTF16LE },
	{ "unicodefeff", CS_UTF16LE },
	{ "utf-16", CS_UTF16LE },
	{ "utf-16le", CS_UTF16LE },
};

static bool is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

const struct charset *charset_from_label(const char *label, size_t len)
{
	while (len && is_ws((unsigned char)*label)) {
		label++;
		len--;
	}
	while (len && is_ws((unsigned char)label[len - 1]))
		len--;
	/* About 250 labels, compared only when the lengths agree: cheap
	 * next to the parse, and once per page. */
	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if (strlen(labels[i].label) == len &&
		    strncasecmp(labels[i].label, label, len) == 0)
			return &charsets[labels[i].cs];
	return NULL;
}

/* ---- the Content-Type parameter -------------------------------------- */

/* The charset parameter of a Content-Type value, or false.  Parameters
 * are "; name=value" with the value quoted or not (RFC 9110 §8.3.1). */
static bool header_charset(const char *ct, const char **val, size_t *len)
{
	const char *p = strchr(ct, ';');

	while (p) {
		const char *name, *v, *end;
		size_t nlen;

		p++;
		while (is_ws((unsigned char)*p))
			p++;
		name = p;
		while (*p && *p != '=' && *p != ';')
			p++;
		if (*p != '=') {
			p = strchr(p, ';');
			continue;
		}
		nlen = (size_t)(p - name);
		while (nlen && is_ws((unsigned char)name[nlen - 1]))
			nlen--;
		v = p + 1;
		while (is_ws((unsigned char)*v))
			v++;
		if (*v == '"') {
			v++;
			end = strchr(v, '"');
			if (!end)
				end = v + strlen(v);
		} else {
			end = v + strcspn(v, ";");
		}
		if (nlen == 7 && strncasecmp(name, "charset", 7) == 0) {
			*val = v;
			*len = (size_t)(end - v);
			return true;
		}
		p = *end ? strchr(end + (*end == '"'), ';') : NULL;
	}
	return false;
}

/* ---- the <meta> prescan (HTML "prescan a byte stream") ------------------ */

#define PRESCAN_BYTES 1024
#define ATTR_NAME_MAX 32
#define ATTR_VALUE_MAX 256

struct scan {
	const unsigned char *p, *end;
};

struct attr {
	char name[ATTR_NAME_MAX + 1], value[ATTR_VALUE_MAX + 1];
	size_t nlen, vlen;
};

static void put(char *buf, size_t *n, size_t max, unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		c += 'a' - 'A';
	if (*n < max)
		buf[(*n)++] = (char)c;
}

/* HTML's "get an attribute"; false when there is none (at '>' or the
 * end).  Names and values are lower-cased and cut at their maximum. */
static bool get_attr(struct scan *s, struct attr *a)
{
	unsigned char q;

	a->nlen = a->vlen = 0;
	while (s->p < s->end && (is_ws(*s->p) || *s->p == '/'))
		s->p++;
	if (s->p >= s->end || *s->p == '>')
		return false;
	for (;; s->p++) {
		if (s->p >= s->end)
			return false;
		if (*s->p == '=' && a->nlen)
			break;
		if (is_ws(*s->p)) {
			while (s->p < s->end && is_ws(*s->p))
				s->p++;
			if (s->p >= s->end || *s->p != '=')
				goto done;
			break;
		}
		if (*s->p == '/' || *s->p == '>')
			goto done;
		put(a->name, &a->nlen, ATTR_NAME_MAX, *s->p);
	}
	s->p++; /* the '=' */
	while (s->p < s->end && is_ws(*s->p))
		s->p++;
	if (s->p >= s->end)
		return false;
	if (*s->p == '"' || *s->p == '\'') {
		q = *s->p++;
		while (s->p < s->end && *s->p != q)
			put(a->value, &a->vlen, ATTR_VALUE_MAX, *s->p++);
		if (s->p >= s->end)
			return false;
		s->p++;
		goto done;
	}
	while (s->p < s->end && !is_ws(*s->p) && *s->p != '>')
		put(a->value, &a->vlen, ATTR_VALUE_MAX, *s->p++);
done:
	a->name[a->nlen] = '\0';
	a->value[a->vlen] = '\0';
	return true;
}

/* HTML's "extract a character encoding from a meta element". */
static const struct charset *content_charset(const char *s)
{
	const char *p = s;

	while ((p = strstr(p, "charset"))) {
		const char *v = p + 7, *end;

		while (is_ws((unsigned char)*v))
			v++;
		if (*v != '=') {
			p = v;
			continue;
		}
		v++;
		while (is_ws((unsigned char)*v))
			v++;
		if (*v == '"' || *v == '\'') {
			end = strchr(v + 1, *v);
			if (!end)
				return NULL;
			v++;
		} else {
			end = v;
			while (*end && !is_ws((unsigned char)*end) &&
			       *end != ';')
				end++;
		}
		return charset_from_label(v, (size_t)(end - v));
	}
	return NULL;
}

/* After "<meta": its attributes; the encoding it declares, or NULL.
 * *unknown is set when it names a label we do not know. */
static const struct charset *meta_charset(struct scan *s, bool *unknown)
{
	const struct charset *cs = NULL;
	bool got_pragma = false, seen_equiv = false, seen_content = false;
	bool seen_charset = false;
	int need_pragma = -1; /* -1 null, 0 false, 1 true */
	struct attr a;

	while (get_attr(s, &a)) {
		if (!seen_equiv && strcmp(a.name, "http-equiv") == 0) {
			seen_equiv = true;
			got_pragma = strcmp(a.value, "content-type") == 0;
		} else if (!seen_content && strcmp(a.name, "content") == 0) {
			seen_content = true;
			if (need_pragma == -1 && strstr(a.value, "charset")) {
				cs = content_charset(a.value);
				need_pragma = 1;
				*unknown |= !cs;
			}
		} else if (!seen_charset && strcmp(a.name, "charset") == 0) {
			seen_charset = true;
			cs = charset_from_label(a.value, a.vlen);
			need_pragma = 0;
			*unknown |= !cs;
		}
	}
	if (need_pragma == -1 || (need_pragma == 1 && !got_pragma) || !cs)
		return NULL;
	/* A document that can say "<meta" in ASCII is not UTF-16. */
	if (cs == &charsets[CS_UTF16BE] || cs == &charsets[CS_UTF16LE])
		cs = &charsets[CS_UTF8];
	return cs;
}

static bool starts_ci(const struct scan *s, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(s->end - s->p) >= n &&
	       strncasecmp((const char *)s->p, word, n) == 0;
}

static bool is_alpha(unsigned char c)
{
	return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

static void skip_past(struct scan *s, const char *what)
{
	const unsigned char *f = memmem(s->p, (size_t)(s->end - s->p), what,
					strlen(what));

	s->p = f ? f + strlen(what) : s->end;
}

static const struct charset *prescan(const char *html, size_t len,
				     bool *unknown)
{
	struct scan s = { (const unsigned char *)html,
			  (const unsigned char *)html +
				  (len < PRESCAN_BYTES ? len : PRESCAN_BYTES) };
	struct attr a;

	while (s.p < s.end) {
		/* Every case below starts at a '<': the bytes before the
		 * next one are passed over at once, not one call each. */
		if (*s.p != '<') {
			const unsigned char *lt = memchr(s.p, '<',
							 (size_t)(s.end - s.p));
			if (!lt)
				break;
			s.p = lt;
		}
		if (starts_ci(&s, "<!--")) {
			s.p += 2; /* "<!-->" closes itself */
			skip_past(&s, "-->");
		} else if (starts_ci(&s, "<meta") && s.end - s.p > 5 &&
			   (is_ws(s.p[5]) || s.p[5] == '/')) {
			const struct charset *cs;

			s.p += 6;
			cs = meta_charset(&s, unknown);
			if (cs)
				return cs;
		} else if (s.end - s.p > 1 &&
			   (is_alpha(s.p[1]) ||
			    (s.p[1] == '/' && s.end - s.p > 2 &&
			     is_alpha(s.p[2]))) &&
			   s.p[0] == '<') {
			/* Another tag: its name, then its attributes, so
			 * that a '>' inside a quoted value is skipped. */
			while (s.p < s.end && !is_ws(*s.p) && *s.p != '>')
				s.p++;
			while (get_attr(&s, &a))
				;
		} else if (starts_ci(&s, "<!") || starts_ci(&s, "</") ||
			   starts_ci(&s, "<?")) {
			skip_past(&s, ">");
		} else {
			s.p++;
		}
	}
	return NULL;
}

/* ---- conversion ------------------------------------------------------ */

/* Convert with iconv into a buffer of 4 × len + 64 bytes: every decoder
 * writes at most 3 bytes of UTF-8 per input byte (U+FFFD for an invalid
 * byte is 3 bytes too).  An invalid or truncated sequence becomes U+FFFD
 * and the input moves on by one byte, so every round makes progress.
 * Returns false on any failure (unknown converter, no memory, full
 * buffer), having freed what it allocated. */
static bool convert(const char *from, const char *in, size_t len,
		    struct decoded *d)
{
	iconv_t cd;
	char *buf, *out, *src = (char *)in;
	size_t cap, left, inleft = len;

	if (len > (SIZE_MAX - 64) / 4)
		return false;
	cap = 4 * len + 64;
	cd = iconv_open("UTF-8", from);
	if (cd == (iconv_t)-1)
		return false;
	buf = malloc(cap);
	if (!buf)
		goto fail;
	out = buf;
	left = cap - 1;
	while (inleft) {
		if (iconv(cd, &src, &inleft, &out, &left) != (size_t)-1)
			break;
		if ((errno != EILSEQ && errno != EINVAL) || left < 3)
			goto fail;
		memcpy(out, "\xef\xbf\xbd", 3);
		out += 3;
		left -= 3;
		src++;
		inleft--;
	}
	/* The end of a stateful encoding (ISO-2022-JP) may write bytes. */
	if (iconv(cd, NULL, NULL, &out, &left) == (size_t)-1)
		goto fail;
	iconv_close(cd);
	*out = '\0';
	d->buf = buf;
	d->html = buf;
	d->len = (size_t)(out - buf);
	return true;
fail:
	free(buf);
	iconv_close(cd);
	return false;
}

void charset_decode(const char *html, size_t len, const char *content_type,
		    struct decoded *d)
{
	const unsigned char *u = (const unsigned char *)html;
	const struct charset *cs = NULL;
	const char *label;
	size_t llen;
	bool unknown = false;

	memset(d, 0, sizeof(*d));
	d->html = html;
	d->len = len;
	if (len >= 3 && u[0] == 0xef && u[1] == 0xbb && u[2] == 0xbf) {
		cs = &charsets[CS_UTF8];
		d->html += 3;
		d->len -= 3;
	} else if (len >= 2 && u[0] == 0xfe && u[1] == 0xff) {
		cs = &charsets[CS_UTF16BE];
	} else if (len >= 2 && u[0] == 0xff && u[1] == 0xfe) {
		cs = &charsets[CS_UTF16LE];
	}
	if (cs) {
		d->from = PARSE_CHARSET_BOM;
		if (cs != &charsets[CS_UTF8]) {
			d->html += 2;
			d->len -= 2;
		}
	} else if (content_type &&
		   header_charset(content_type, &label, &llen)) {
		cs = charset_from_label(label, llen);
		d->from = PARSE_CHARSET_HEADER;
		unknown = !cs;
	}
	if (!cs) {
		cs = prescan(html, len, &unknown);
		d->from = PARSE_CHARSET_META;
	}
	if (!cs) {
		cs = &charsets[CS_UTF8];
		d->from = PARSE_CHARSET_DEFAULT;
		d->fallback = unknown;
	}
	d->cs = cs;
	if (!cs->iconv)
		return;
	if (convert(cs->iconv, d->html, d->len, d)) {
		d->converted = true;
		return;
	}
	/* Read the bytes as UTF-8 after all; gumbo turns what is not
	 * UTF-8 into U+FFFD. */
	d->html = html;
	d->len = len;
	d->cs = &charsets[CS_UTF8];
	d->fallback = true;
}
