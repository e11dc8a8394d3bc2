/* text.c — the body text of a page, streamed once through MD5, SimHash
 * and the caller's buffer.
 *
 * html.c feeds text nodes and word breaks in document order; the sink
 * collapses white space into a small staging buffer, and each full
 * buffer goes to every consumer in turn, so the text is never walked
 * twice and never needs to be held whole.
 *
 * SimHash votes are counted eight bits at a time: a multiplication
 * spreads the 8 bits of one byte of the shingle hash into the 8 bytes of
 * a 64-bit word (the "bit spread" trick), and adding that word adds 1 to
 * eight byte-wide counters at once.  Eight additions count all 64 bits of
 * a shingle; the byte counters are emptied into 32-bit counts every 255
 * shingles, before they can overflow.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <xxhash.h>

#include "sc.h"
#include "parse-int.h"

int text_begin(struct text_sink *t, unsigned flags, struct parse_text *out,
	       const struct parse_keywords *kw)
{
	memset(t, 0, offsetof(struct text_sink, word));
	t->stage_len = 0;
	t->kw = kw && parse_keywords_count(kw) ? kw : NULL;
	/* Relevance needs the words, which the SimHash tokenizer makes. */
	t->flags = flags | (t->kw ? PARSE_RELEVANCE_INT : 0);
	t->out = (flags & PARSE_TEXT) ? out : NULL;
	if (t->out)
		t->out->len = 0;
	if (flags & (PARSE_MD5 | PARSE_MD5_SIZE)) {
		t->md = EVP_MD_CTX_new();
		if (!t->md || !EVP_DigestInit_ex(t->md, EVP_md5(), NULL)) {
			text_release(t);
			return SC_E_NOMEM;
		}
	}
	return 0;
}

void text_release(struct text_sink *t)
{
	EVP_MD_CTX_free(t->md);
	t->md = NULL;
}

void parse_text_free(struct parse_text *t)
{
	if (!t)
		return;
	free(t->buf);
	t->buf = NULL;
	t->len = t->cap = 0;
}

/* ---- the caller's copy ------------------------------------------------ */

/* Keep up to PARSE_TEXT_MAX + 1 bytes: one past the limit, so that the
 * cut in text_end() can see whether a character straddles it. */
static void keep(struct text_sink *t, const char *s, size_t n)
{
	struct parse_text *o = t->out;
	size_t want, room;

	if (o->len > PARSE_TEXT_MAX)
		return;
	room = PARSE_TEXT_MAX + 1 - o->len;
	if (n > room)
		n = room;
	want = o->len + n + 1;
	if (want > o->cap) {
		size_t cap = o->cap ? o->cap : 4096;
		char *b;

		while (cap < want)
			cap *= 2;
		if (cap > PARSE_TEXT_MAX + 2)
			cap = PARSE_TEXT_MAX + 2;
		b = realloc(o->buf, cap);
		if (!b) {
			t->err = SC_E_NOMEM;
			t->out = NULL;
			return;
		}
		o->buf = b;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

/* ---- SimHash ------------------------------------------------------------ */

static void votes_flush(struct text_sink *t)
{
	/* Byte k of acc[j] counts bit 8j + 7 - k of the shingle hashes:
	 * the spread reverses the bits of each byte. */
	for (unsigned j = 0; j < 8; j++) {
		uint64_t a = t->acc[j];

		for (unsigned k = 0; k < 8; k++)
			t->cnt[8 * j + 7 - k] += (uint32_t)((a >> (8 * k)) &
							    0xff);
		t->acc[j] = 0;
	}
	t->acc_n = 0;
}

static void vote(struct text_sink *t, uint64_t h)
{
	/* x * 0x8040201008040201 puts bit 7-k of the byte x at bit 8k+7,
	 * with no carries between the shifted copies. */
	for (unsigned j = 0; j < 8; j++) {
		uint64_t x = (h >> (8 * j)) & 0xff;

		t->acc[j] += ((x * 0x8040201008040201ull) >> 7) &
			     0x0101010101010101ull;
	}
	t->shingles++;
	if (++t->acc_n == 255)
		votes_flush(t);
}

static void put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Words per shingle (at most 3, the size of last[]).  Two, measured on
 * generated pages (tests/test-text.c): changing one word of a 400-word
 * text moves the SimHash by at most 3 bits in 91 % of pages with 2-word
 * shingles, in 79 % with 3-word ones (mean 1.9 and 2.6 bits; 98 % and 93 %
 * at 1000 words), while unrelated texts stay ~32 bits apart either way.
 * Word order still counts. */
#define SHINGLE_WORDS 2

/* The shingle of the last n (1..3) words. */
static void shingle(struct text_sink *t, unsigned n)
{
	unsigned char b[24];

	for (unsigned i = 0; i < n; i++)
		put_le64(b + 8 * i, t->last[3 - n + i]);
	vote(t, XXH3_64bits(b, 8 * n));
}

/* A word of digits only (a number says nothing of a topic, and they are
 * many): not put in the word set.  A long word's earlier blocks are
 * letters or digits too; only the last one is looked at. */
static bool digits_only(const unsigned char *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (w[i] < '0' || w[i] > '9')
			return false;
	return true;
}

static void word_end(struct text_sink *t)
{
	uint64_t h = XXH3_64bits_withSeed(t->word, t->word_len, t->word_seed);
	bool number = t->wset && !t->word_seed &&
		      digits_only(t->word, t->word_len);

	t->word_len = 0;
	t->word_seed = 0;
	t->last[0] = t->last[1];
	t->last[1] = t->last[2];
	t->last[2] = h;
	t->words++;
	if (t->kw)
		rel_word(t, h);
	if (t->wset && !number && !t->word_link &&
	    2 * (t->wn + 1) <= t->wmask + 1) {
		uint64_t k = h ? h : 1;
		size_t i = (size_t)(k ^ (k >> 31)) & t->wmask;
		while (t->wset[i] && t->wset[i] != k)
			i = (i + 1) & t->wmask;
		if (!t->wset[i]) {
			t->wset[i] = k;
			t->wn++;
		}
	}
	if ((t->flags & PARSE_SIMHASH) && t->words >= SHINGLE_WORDS)
		shingle(t, SHINGLE_WORDS);
}

static bool in_word(const struct text_sink *t)
{
	return t->word_len || t->word_seed;
}

static void tokenize(struct text_sink *t, const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c >= 'A' && c <= 'Z') {
			c += 'a' - 'A';
		} else if (!(c >= 0x80 || (c >= 'a' && c <= 'z') ||
			     (c >= '0' && c <= '9'))) {
			if (in_word(t))
				word_end(t);
			continue;
		}
		if (!in_word(t))
			t->word_link = t->in_link != 0;
		if (t->word_len == sizeof(t->word)) {
			/* A long word: hash it in blocks, chained through
			 * the seed (never 0 afterwards, or nearly). */
			t->word_seed = XXH3_64bits_withSeed(t->word,
							    sizeof(t->word),
							    t->word_seed) |
				       1;
			t->word_len = 0;
		}
		t->word[t->word_len++] = c;
	}
}

/* ---- the stream --------------------------------------------------------- */

static void flush(struct text_sink *t)
{
	if (!t->stage_len)
		return;
	if (t->md)
		EVP_DigestUpdate(t->md, t->stage, t->stage_len);
	if (t->out)
		keep(t, t->stage, t->stage_len);
	if (t->flags & (PARSE_SIMHASH | PARSE_RELEVANCE_INT))
		tokenize(t, (const unsigned char *)t->stage, t->stage_len);
	t->bytes += t->stage_len;
	t->stage_len = 0;
}

static bool is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

void text_link(struct text_sink *t, bool enter)
{
	if (!t->wset)
		return;
	/* The text staged so far was written on the other side. */
	flush(t);
	if (enter)
		t->in_link++;
	else if (t->in_link)
		t->in_link--;
}

void text_feed(struct text_sink *t, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	if (!t->flags)
		return;
	while (*s) {
		if (is_space(*s)) {
			t->pending = true;
			s++;
			continue;
		}
		/* U+00A0 NO-BREAK SPACE; s[1] is at worst the NUL. */
		if (s[0] == 0xc2 && s[1] == 0xa0) {
			t->pending = true;
			s += 2;
			continue;
		}
		if (t->stage_len + 2 > sizeof(t->stage))
			flush(t);
		if (t->pending && t->started)
			t->stage[t->stage_len++] = ' ';
		t->pending = false;
		t->started = true;
		t->stage[t->stage_len++] = (char)*s++;
	}
}

static void finish_text(struct text_sink *t, struct parse_page *page)
{
	struct parse_text *o = t->out;
	size_t n = o->len;

	if (!o->buf) {
		o->buf = malloc(1);
		if (!o->buf) {
			t->err = SC_E_NOMEM;
			return;
		}
		o->cap = 1;
	}
	if (n > PARSE_TEXT_MAX) {
		/* Cut before the character that starts at the limit or
		 * straddles it, and before a space the cut leaves last. */
		n = PARSE_TEXT_MAX;
		while (n > 0 && ((unsigned char)o->buf[n] & 0xc0) == 0x80)
			n--;
		while (n > 0 && o->buf[n - 1] == ' ')
			n--;
	}
	o->len = n;
	o->buf[n] = '\0';
	(void)page;
}

int text_end(struct text_sink *t, uint64_t size, struct parse_page *page)
{
	if (!t->flags)
		return 0;
	flush(t);
	if (t->out)
		finish_text(t, page);
	if (in_word(t))
		word_end(t);
	if (t->kw)
		rel_end(t, page);
	page->n_words = t->wn;
	if (t->flags & PARSE_SIMHASH) {
		uint64_t sh = 0;

		if (t->words && t->words < SHINGLE_WORDS)
			shingle(t, (unsigned)t->words);
		votes_flush(t);
		for (unsigned b = 0; b < 64; b++)
			if (2 * (uint64_t)t->cnt[b] > t->shingles)
				sh |= 1ull << b;
		page->simhash = sh;
	}
	page->text_bytes = t->bytes;
	page->text_words = t->words;
	page->text_empty = t->words == 0;
	if (t->md) {
		unsigned char be[8];
		int ok = 1;

		put_be64(be, size);
		if ((t->flags & PARSE_MD5) && (t->flags & PARSE_MD5_SIZE)) {
			EVP_MD_CTX *copy = EVP_MD_CTX_new();

			ok = copy && EVP_MD_CTX_copy_ex(copy, t->md) &&
			     EVP_DigestFinal_ex(copy, page->md5, NULL);
			EVP_MD_CTX_free(copy);
		} else if (t->flags & PARSE_MD5) {
			ok = EVP_DigestFinal_ex(t->md, page->md5, NULL);
		}
		if (ok && (t->flags & PARSE_MD5_SIZE))
			ok = EVP_DigestUpdate(t->md, be, sizeof(be)) &&
			     EVP_DigestFinal_ex(t->md, page->md5_size, NULL);
		if (!ok && !t->err)
			t->err = SC_E_NOMEM;
	}
	text_release(t);
	return t->err;
}

char *parse_simhash_hex(uint64_t simhash, char *out)
{
	unsigned char b[8];

	put_be64(b, simhash);
	return sc_hex(b, sizeof(b), out);
}
