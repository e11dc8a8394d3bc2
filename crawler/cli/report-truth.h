/* report-truth.h — the ground truth of `sigcrawl report --truth FILE`
 * (docs/report.md): JSON lines {"url": U, "doc": D} read, checked and
 * indexed by the strict key of each URL, for cmd-report.c's contingency
 * table. */
#ifndef REPORT_TRUTH_H
#define REPORT_TRUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "normalize.h"

/* The key of url normalized under opts (sc_url_key()), in key; false
 * when it does not normalize.  Pages and truth URLs meet by these keys. */
bool report_key(const struct norm_opts *opts, const char *url, size_t len,
		unsigned char key[SC_KEY_LEN]);

/* Longest truth line: a URL of NORM_INPUT_MAX bytes, escaped, and a doc. */
#define TRUTH_LINE_MAX (64 * 1024)

struct truth_url {
	unsigned char key[SC_KEY_LEN]; /* strict form */
	size_t doc;                    /* index into docs, then doc id */
	size_t line;
	bool matched;
};

struct truth {
	struct truth_url *urls;
	size_t n, cap;
	char **docs;      /* canonical: 's' + string or 'i' + integer */
	size_t n_strings; /* docs allocated (n before repeats are dropped) */
	size_t n_docs;
	size_t lines;
};

/* Reads FILE.  Returns EXIT_OK, or EXIT_USAGE after a message naming the
 * line, or EXIT_RUNTIME when memory runs out. */
int truth_read(const char *path, const struct norm_opts *o, struct truth *t);

/* Turns the docs into ids, sorts the URLs by key and drops repeats; a URL
 * given twice with different docs is an error (EXIT_USAGE). */
int truth_index(const char *path, struct truth *t);

/* The truth's URL of a strict key, or NULL (after truth_index()). */
struct truth_url *truth_find(struct truth *t,
			     const unsigned char key[SC_KEY_LEN]);

void truth_free(struct truth *t);

#endif
