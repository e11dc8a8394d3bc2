/* report-focus.h — the focus part of `sigcrawl report`, inside crawler/cli/.
 *
 * Per category (docs/report.md): pages (fetched, 2xx), scored (with a
 * relevance), on topic (relevance >= the category's min_relevance), the
 * harvest rate on / scored (SPEC §6; null without keywords), the links
 * pruned by scope and by relevance and the URLs reached second, from
 * the counters the crawl kept, and which category reached which
 * category's URLs second. */
#ifndef REPORT_FOCUS_H
#define REPORT_FOCUS_H

#include <jansson.h>
#include <stdio.h>

#include "store.h"

struct focus_report;

/* Read it all in txn.  Returns 0 and sets *ret, or an sc_err code. */
int focus_report_collect(struct store *s, MDB_txn *txn,
			 struct focus_report **ret);

/* A table on stdout (nothing when the store has no category). */
void focus_report_print(const struct focus_report *f);

/* An array of one object per category, or NULL (out of memory). */
json_t *focus_report_json(const struct focus_report *f);

/* NULL is fine. */
void focus_report_free(struct focus_report *f);

#endif
