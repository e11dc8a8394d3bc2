/* relevance.c — a page's score against a category's keywords.
 *
 * Keywords are compiled into a small open-addressing table of 64-bit
 * keys: the hash of a one-word keyword is its word's hash, as the SimHash
 * tokenizer computes it; a phrase's is XXH3-64 of its word hashes.  The
 * tokenizer calls rel_word() at each word's end, which looks up the word
 * alone and the phrases ending with it: at most PARSE_PHRASE_WORDS
 * lookups per word, none of them walking the text again.  The title, at
 * most PARSE_TITLE_MAX bytes, is tokenized apart at the end.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "parse-int.h"

struct kw_slot {
	uint64_t key;
	int16_t idx; /* -1: empty */
};

struct parse_keywords {
	size_t n;           /* distinct keywords */
	unsigned max_words; /* words in the longest one */
	unsigned lens;      /* bit L - 1: a keyword of L words exists */
	size_t mask;        /* slots - 1 */
	struct kw_slot *slot;
};

uint64_t text_word_hash(const unsigned char *w, size_t n)
{
	uint64_t seed = 0;

	while (n > 64) {
		seed = XXH3_64bits_withSeed(w, 64, seed) | 1;
		w += 64;
		n -= 64;
	}
	return XXH3_64bits_withSeed(w, n, seed);
}

/* The key of the phrase of n word hashes (in text order). */
static uint64_t phrase_key(const uint64_t *h, unsigned n)
{
	unsigned char b[8 * PARSE_PHRASE_WORDS];

	if (n == 1)
		return h[0];
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < 8; j++)
			b[8 * i + j] = (unsigned char)(h[i] >> (8 * j));
	return XXH3_64bits_withSeed(b, 8 * (size_t)n, n);
}

static int find(const struct parse_keywords *k, uint64_t key)
{
	for (size_t i = (size_t)key & k->mask;; i = (i + 1) & k->mask) {
		if (k->slot[i].idx < 0)
			return -1;
		if (k->slot[i].key == key)
			return k->slot[i].idx;
	}
}

static bool word_byte(unsigned char c)
{
	return c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

static unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 'a' - 'A') : c;
}

/* The next word of s at *pos (lower-cased into buf, hashed into *h);
 * false at the end.  Words longer than buf are hashed whole. */
static bool next_word(const char *s, size_t len, size_t *pos, uint64_t *h)
{
	unsigned char buf[256];
	size_t i = *pos, n = 0;

	while (i < len && !word_byte((unsigned char)s[i]))
		i++;
	if (i == len) {
		*pos = i;
		return false;
	}
	size_t start = i;
	while (i < len && word_byte((unsigned char)s[i]))
		i++;
	*pos = i;
	if (i - start <= sizeof(buf)) {
		for (size_t j = start; j < i; j++)
			buf[n++] = lower((unsigned char)s[j]);
		*h = text_word_hash(buf, n);
		return true;
	}
	unsigned char *big = malloc(i - start);
	if (!big) {
		*h = 0; /* a word that matches nothing */
		return true;
	}
	for (size_t j = start; j < i; j++)
		big[n++] = lower((unsigned char)s[j]);
	*h = text_word_hash(big, n);
	free(big);
	return true;
}

/* Insert key as keyword idx; false if it was there already. */
static bool insert(struct parse_keywords *k, uint64_t key, int16_t idx)
{
	size_t i = (size_t)key & k->mask;

	for (; k->slot[i].idx >= 0; i = (i + 1) & k->mask)
		if (k->slot[i].key == key)
			return false;
	k->slot[i] = (struct kw_slot){ key, idx };
	return true;
}

int parse_keywords_new(const char *const *kw, size_t n,
		       struct parse_keywords **ret)
{
	if ((!kw && n) || !ret || n > PARSE_KEYWORDS_MAX)
		return SC_E_INVAL;
	struct parse_keywords *k = calloc(1, sizeof(*k));
	size_t slots = 16;
	while (slots < 4 * n)
		slots *= 2;
	if (k)
		k->slot = malloc(slots * sizeof(*k->slot));
	if (!k || !k->slot) {
		parse_keywords_free(k);
		return SC_E_NOMEM;
	}
	k->mask = slots - 1;
	for (size_t i = 0; i < slots; i++)
		k->slot[i].idx = -1;
	for (size_t i = 0; i < n; i++) {
		uint64_t h[PARSE_PHRASE_WORDS];
		unsigned words = 0;
		size_t pos = 0, len;

		if (!kw[i]) {
			parse_keywords_free(k);
			return SC_E_INVAL;
		}
		len = strlen(kw[i]);
		for (uint64_t w; next_word(kw[i], len, &pos, &w);) {
			if (words == PARSE_PHRASE_WORDS) {
				parse_keywords_free(k);
				return SC_E_INVAL;
			}
			h[words++] = w;
		}
		if (!words || !insert(k, phrase_key(h, words), (int16_t)k->n))
			continue;
		k->n++;
		k->lens |= 1u << (words - 1);
		if (words > k->max_words)
			k->max_words = words;
	}
	*ret = k;
	return 0;
}

size_t parse_keywords_count(const struct parse_keywords *k)
{
	return k ? k->n : 0;
}

void parse_keywords_free(struct parse_keywords *k)
{
	if (!k)
		return;
	free(k->slot);
	free(k);
}

/* Look up the phrases of 1..max_words words that end at the newest of
 * last[] (have of them are valid), and call hit() for each match. */
static void match(const struct parse_keywords *k, const uint64_t *last,
		  uint64_t have, void (*hit)(void *, int), void *arg)
{
	for (unsigned l = 1; l <= k->max_words && l <= have; l++) {
		if (!(k->lens & (1u << (l - 1))))
			continue;
		int idx = find(k, phrase_key(last + PARSE_PHRASE_WORDS - l, l));
		if (idx >= 0)
			hit(arg, idx);
	}
}

static void shift(uint64_t *last, uint64_t h)
{
	memmove(last, last + 1, (PARSE_PHRASE_WORDS - 1) * sizeof(*last));
	last[PARSE_PHRASE_WORDS - 1] = h;
}

static void count_hit(void *arg, int idx)
{
	uint32_t *tf = arg;

	if (tf[idx] < UINT32_MAX)
		tf[idx]++;
}

void rel_word(struct text_sink *t, uint64_t h)
{
	shift(t->rel_last, h);
	match(t->kw, t->rel_last, t->words, count_hit, t->tf);
}

static void mark_hit(void *arg, int idx)
{
	((bool *)arg)[idx] = true;
}

size_t parse_words(const char *s, size_t len, uint64_t *out, size_t max)
{
	size_t pos = 0, n = 0;
	uint64_t h;

	while (n < max && next_word(s, len, &pos, &h)) {
		/* A number, as the word set leaves it out. */
		size_t end = pos, start = pos;
		while (start > 0 && word_byte((unsigned char)s[start - 1]))
			start--;
		bool number = end - start <= 64;
		for (size_t j = start; number && j < end; j++)
			number = s[j] >= '0' && s[j] <= '9';
		if (number)
			continue;
		size_t i = 0;
		h = h ? h : 1;
		while (i < n && out[i] != h)
			i++;
		if (i == n)
			out[n++] = h;
	}
	return n;
}

static void mark_bit(void *arg, int idx)
{
	*(uint64_t *)arg |= (uint64_t)1 << idx;
}

uint64_t parse_keywords_shown(const struct parse_keywords *k, const char *s,
			      size_t len)
{
	uint64_t last[PARSE_PHRASE_WORDS] = { 0 }, have = 0, h, shown = 0;
	size_t pos = 0;

	if (!k || !k->n)
		return 0;
	while (next_word(s, len, &pos, &h)) {
		shift(last, h);
		match(k, last, ++have, mark_bit, &shown);
	}
	return shown;
}

/* The weight of a title hit against a body proof of 1 (see parse.h). */
#define TITLE_WEIGHT 0.5
/* Words per unit of the length allowance's logarithm. */
#define LENGTH_UNIT 50.0
/* Keywords a page must show well to be clearly on topic (at most). */
#define ENOUGH_KEYWORDS 3.0

void rel_end(const struct text_sink *t, struct parse_page *page)
{
	const struct parse_keywords *k = t->kw;
	bool in_title[PARSE_KEYWORDS_MAX] = { false };
	uint64_t last[PARSE_PHRASE_WORDS] = { 0 }, have = 0, h;
	size_t pos = 0, len = strlen(page->title);

	while (next_word(page->title, len, &pos, &h)) {
		shift(last, h);
		match(k, last, ++have, mark_hit, in_title);
	}

	double c = 1.0 + log1p((double)t->words / LENGTH_UNIT);
	double sum = 0.0;
	for (size_t i = 0; i < k->n; i++) {
		double tf = (double)t->tf[i];
		double b = tf / (tf + c);
		double e = 1.0 - (1.0 - b) * (1.0 - (in_title[i] ? TITLE_WEIGHT
								 : 0.0));
		sum += e;
	}
	double kn = (double)k->n;
	double half = (kn < ENOUGH_KEYWORDS ? kn : ENOUGH_KEYWORDS) / 2.0;
	double r = sum / (sum + half) * (kn + half) / kn;
	page->has_relevance = true;
	page->relevance = r < 0.0 ? 0.0 : r > 1.0 ? 1.0 : r;
}
