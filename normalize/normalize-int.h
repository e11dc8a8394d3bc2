/* normalize-int.h — what normalize.c and rules.c share inside the module:
 * how a query's parameters are separated.  Not for callers outside
 * normalize/. */
#ifndef NORMALIZE_INT_H
#define NORMALIZE_INT_H

#include <stddef.h>

/* The byte that separates the parameters of query q[0..n) (without its
 * '?'): ';' when the query has no '&' and at least one ';' followed by a
 * name of one byte or more and '=' ("p=r.git;a=tree", HTML 4's
 * alternative to '&'), else '&'.  The decision is the URL's own, so it
 * needs no state and gives one key for one string: a query with an '&'
 * is read as it always was, a ';' in its values included, and so is a
 * query without a ';'.  Sorting or dropping ';' parameters writes them
 * back with ';', and what that writes is read the same way again (a
 * query left with one parameter, or with no "name=" after a ';', reads
 * as the one parameter it then is), so every profile stays idempotent. */
char norm_query_sep(const char *q, size_t n);

#endif
