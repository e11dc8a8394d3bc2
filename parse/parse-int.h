/* parse-int.h — what the files of parse/ share; not a public header. */
#ifndef PARSE_INT_H
#define PARSE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "parse.h"

/* ---- charset.c --------------------------------------------------------- */

/* One encoding of the WHATWG Encoding standard that we can decode. */
struct charset {
	const char *name;  /* WHATWG name, as reported in parse_page.charset */
	const char *iconv; /* glibc iconv's name; NULL for UTF-8 itself */
};

/* The encoding a label names (ASCII white space around it ignored, case
 * ignored), or NULL for a label we do not know. */
const struct charset *charset_from_label(const char *label, size_t len);

/* The body as UTF-8, and what was decided on the way. */
struct decoded {
	const char *html; /* the bytes gumbo is to parse: either the input
			   * after any BOM, or buf */
	size_t len;
	char *buf; /* heap, owned; NULL when no conversion was made */
	const struct charset *cs;
	uint8_t from;   /* enum parse_charset_from */
	bool converted; /* iconv made buf */
	bool fallback;  /* a label was unknown, or iconv failed */
};

/* Decide the charset of html (BOM, then content_type's charset
 * parameter, then the <meta> prescan) and convert to UTF-8.  Never
 * fails: anything that goes wrong leaves the input to be read as UTF-8,
 * with fallback set; d->buf is to be freed by the caller. */
void charset_decode(const char *html, size_t len, const char *content_type,
		    struct decoded *d);

/* ---- text.c ------------------------------------------------------------ */

/* A sink flag of its own, beside enum parse_doc_flags: words are
 * tokenized for relevance. */
#define PARSE_RELEVANCE_INT (1u << 30)

/* Bytes of collapsed text buffered before they go to MD5, SimHash and
 * the caller's parse_text. */
#define TEXT_STAGE 4096

/* The streaming state of body text and its signatures. */
struct text_sink {
	unsigned flags; /* enum parse_doc_flags */
	bool pending;   /* white space seen since the last text byte */
	bool started;   /* a text byte was written */
	int err;        /* first sc_err met (the text buffer's growth) */
	uint64_t bytes; /* text bytes so far */
	struct parse_text *out;
	EVP_MD_CTX *md;

	/* SimHash: the current word (lower-cased, in 64-byte blocks chained
	 * through the XXH3 seed), the last three word hashes, and the bit
	 * counts of the shingle hashes. */
	uint64_t word_seed, last[3], words, shingles;
	size_t word_len;
	unsigned acc_n;   /* shingles in acc since the last flush */
	uint64_t acc[8];  /* 64 byte-wide counters, see text.c */
	uint32_t cnt[64]; /* bit counts of all shingles */
	/* Relevance (NULL kw: none): the hashes of the last words, for
	 * phrases, and each keyword's occurrences.  Kept before word[] so
	 * that text_begin() zeroes them. */
	const struct parse_keywords *kw;
	/* parse_doc_opts.words: the set, its mask, the words in it.  Words
	 * of a link's text describe the page it leads to, not this one:
	 * in_link counts the <a> elements the text is in (text_link()),
	 * word_link says the current word began inside one, and such words
	 * stay out of the set. */
	uint64_t *wset;
	size_t wmask, wn;
	unsigned in_link;
	bool word_link;
	uint64_t rel_last[PARSE_PHRASE_WORDS];
	uint32_t tf[PARSE_KEYWORDS_MAX];

	unsigned char word[64];

	size_t stage_len;
	char stage[TEXT_STAGE];
};

/* Set up a sink; with no flags and no keywords (kw NULL or empty) it
 * does nothing and costs nothing.  Returns 0 or SC_E_NOMEM (the MD5
 * context). */
int text_begin(struct text_sink *t, unsigned flags, struct parse_text *out,
	       const struct parse_keywords *kw);

/* Add a text node's NUL-terminated content. */
void text_feed(struct text_sink *t, const char *s);

/* An element boundary that separates words. */
static inline void text_break(struct text_sink *t)
{
	t->pending = true;
}

/* The text enters (enter) or leaves a link's <a>: see in_link. */
void text_link(struct text_sink *t, bool enter);

/* Finish: fill the signature and text fields of page (size is the body
 * size for md5_size).  Returns 0 or the sink's error. */
int text_end(struct text_sink *t, uint64_t size, struct parse_page *page);

/* Free what text_begin() allocated; safe after text_end() and twice. */
void text_release(struct text_sink *t);

/* ---- relevance.c ------------------------------------------------------- */

/* The hash of one word (lower-cased bytes) as the SimHash tokenizer
 * computes it: XXH3-64 in 64-byte blocks chained through the seed. */
uint64_t text_word_hash(const unsigned char *w, size_t n);

/* A word of the body text ended; t->words counts it already. */
void rel_word(struct text_sink *t, uint64_t h);

/* Fill page->relevance from the counts and page->title. */
void rel_end(const struct text_sink *t, struct parse_page *page);

#endif
