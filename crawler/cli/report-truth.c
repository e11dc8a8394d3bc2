/* report-truth.c — the ground truth of `sigcrawl report` (report-truth.h). */
#include "report-truth.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

#define CMD "report"

bool report_key(const struct norm_opts *opts, const char *url, size_t len,
		unsigned char key[SC_KEY_LEN])
{
	char buf[NORM_URL_MAX + 1];
	struct norm_url u;
	if (norm_url(opts, NULL, url, len, buf, sizeof(buf), &u))
		return false;
	sc_url_key(buf, u.len, key);
	return true;
}

void truth_free(struct truth *t)
{
	for (size_t i = 0; i < t->n_strings; i++)
		free(t->docs[i]);
	free(t->docs);
	free(t->urls);
}

/* Parses one line into *u and its canonical doc *doc.  Returns 0, or an
 * error message in MSG. */
static int truth_line(const char *line, size_t len, const struct norm_opts *o,
		      struct truth_url *u, char **doc, char *msg, size_t cap)
{
	json_error_t jerr;
	json_t *j = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!j) {
		snprintf(msg, cap, "bad JSON: %s", jerr.text);
		return -1;
	}
	int rc = -1;
	json_t *url = json_object_get(j, "url"), *d = json_object_get(j, "doc");
	if (!json_is_object(j)) {
		snprintf(msg, cap, "not a JSON object");
	} else if (!json_is_string(url)) {
		snprintf(msg, cap, "\"url\" missing or not a string");
	} else if (!json_is_string(d) && !json_is_integer(d)) {
		snprintf(msg, cap,
			 "\"doc\" missing or not a string or an integer");
	} else if (!report_key(o, json_string_value(url),
			       json_string_length(url), u->key)) {
		snprintf(msg, cap, "the url does not normalize");
	} else {
		char *s;
		int n = json_is_string(d)
				? asprintf(&s, "s%s", json_string_value(d))
				: asprintf(&s, "i%lld",
					   (long long)json_integer_value(d));
		if (n < 0) {
			snprintf(msg, cap, "out of memory");
		} else {
			*doc = s;
			rc = 0;
		}
	}
	json_decref(j);
	return rc;
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr(" \t\r", s[i]))
			return false;
	return true;
}

static int cmp_truth_key(const void *a, const void *b)
{
	const struct truth_url *x = a, *y = b;
	int c = memcmp(x->key, y->key, SC_KEY_LEN);
	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

static const char *const *cmp_docs_base;

static int cmp_doc_idx(const void *a, const void *b)
{
	const size_t *x = a, *y = b;
	int c = strcmp(cmp_docs_base[*x], cmp_docs_base[*y]);
	if (c)
		return c;
	return *x < *y ? -1 : *x > *y;
}

/* Reads FILE.  Returns EXIT_OK, or EXIT_USAGE after a message naming the
 * line, or EXIT_RUNTIME when memory runs out. */
int truth_read(const char *path, const struct norm_opts *o, struct truth *t)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		sc_errorf(CMD, "%s: %s", path, strerror(errno));
		return EXIT_USAGE;
	}
	char *line = NULL;
	size_t lcap = 0;
	ssize_t got;
	int status = EXIT_OK;
	char msg[256];
	while ((got = getline(&line, &lcap, f)) >= 0) {
		size_t len = (size_t)got;
		t->lines++;
		if (len > TRUTH_LINE_MAX) {
			sc_errorf(CMD, "%s:%zu: line longer than %d bytes",
				  path, t->lines, TRUTH_LINE_MAX);
			status = EXIT_USAGE;
			break;
		}
		if (len && line[len - 1] == '\n')
			len--;
		if (blank(line, len))
			continue;
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 256;
			struct truth_url *u = realloc(t->urls,
						      cap * sizeof(*u));
			char **d = u ? realloc(t->docs, cap * sizeof(*d))
				     : NULL;
			if (u)
				t->urls = u;
			if (!u || !d) {
				sc_errorf(CMD, "out of memory");
				status = EXIT_RUNTIME;
				break;
			}
			t->docs = d;
			t->cap = cap;
		}
		struct truth_url *u = &t->urls[t->n];
		memset(u, 0, sizeof(*u));
		u->line = t->lines;
		u->doc = t->n;
		if (truth_line(line, len, o, u, &t->docs[t->n], msg,
			       sizeof(msg))) {
			sc_errorf(CMD, "%s:%zu: %s", path, t->lines, msg);
			status = EXIT_USAGE;
			break;
		}
		t->n++;
		t->n_strings = t->n;
	}
	if (status == EXIT_OK && ferror(f)) {
		sc_errorf(CMD, "%s: %s", path, strerror(errno));
		status = EXIT_USAGE;
	}
	free(line);
	fclose(f);
	return status;
}

/* Turns the docs into ids, sorts the URLs by key and drops repeats; a URL
 * given twice with different docs is an error. */
int truth_index(const char *path, struct truth *t)
{
	size_t *order = malloc((t->n + 1) * sizeof(*order));
	size_t *id = malloc((t->n + 1) * sizeof(*id));
	if (!order || !id) {
		free(order);
		free(id);
		sc_errorf(CMD, "out of memory");
		return EXIT_RUNTIME;
	}
	for (size_t i = 0; i < t->n; i++)
		order[i] = i;
	cmp_docs_base = (const char *const *)t->docs;
	qsort(order, t->n, sizeof(*order), cmp_doc_idx);
	t->n_docs = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (i > 0 &&
		    strcmp(t->docs[order[i]], t->docs[order[i - 1]]) != 0)
			t->n_docs++;
		id[order[i]] = t->n_docs;
	}
	if (t->n)
		t->n_docs++;
	for (size_t i = 0; i < t->n; i++)
		t->urls[i].doc = id[t->urls[i].doc];
	free(order);
	free(id);

	qsort(t->urls, t->n, sizeof(*t->urls), cmp_truth_key);
	size_t w = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (w > 0 &&
		    !memcmp(t->urls[i].key, t->urls[w - 1].key, SC_KEY_LEN)) {
			if (t->urls[i].doc != t->urls[w - 1].doc) {
				sc_errorf(CMD,
					  "%s:%zu: the URL of line %zu (same "
					  "strict form) with another doc",
					  path, t->urls[i].line,
					  t->urls[w - 1].line);
				return EXIT_USAGE;
			}
			continue;
		}
		t->urls[w++] = t->urls[i];
	}
	t->n = w;
	return EXIT_OK;
}

struct truth_url *truth_find(struct truth *t,
			     const unsigned char key[SC_KEY_LEN])
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = memcmp(t->urls[mid].key, key, SC_KEY_LEN);
		if (c == 0)
			return &t->urls[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
