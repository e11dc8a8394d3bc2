/* mkstore.c — writes a small store of known records for the CLI tests.
 *
 * usage: mkstore DIR N [--corrupt]
 *        mkstore DIR --jsonl FILE
 *        mkstore DIR --downgrade
 *
 * Record i (0 <= i < N) has normalized URL http://example.com/page/i and
 * url http://Example.com/page/i?utm_source=x, category "cat", depth i % 4.
 * Even records were fetched: status 200, text/html, 1000 + i bytes,
 * fetched_at 1700000000000 + i, signature 16 bytes of value i % 256,
 * simhash i, relevance i / 4; record 0 is titled `Hello, "world"`, the
 * others `Page i`.  Odd records were not fetched: robots_disallowed, no
 * optional field.  --corrupt adds a value that does not decode.  All in
 * one write transaction.
 *
 * --jsonl reads records from FILE instead, one JSON object a line with
 * "url", "normalized" (strings), and optionally "status" (a number; it
 * makes the record fetched), "signature" (32 hex digits), "simhash" (16
 * hex digits) and "duplicate_of" (a string); category is "cat".
 *
 * --downgrade makes the store a crawl left in DIR look as the versions
 * before re-crawls and before the fetch's scheme and port wrote it: no
 * recorded normalization (frontier.meta "norm"), queue entries of format
 * 2 (without the fetch's scheme and port, and without format 4's flags
 * and validators), records without their re-crawl fields, and no
 * re-crawl schedule (frontier.due emptied), and a seen set of format 1
 * (frontier.meta version 1, each URL keyed by sc_url_key() alone, before
 * the clustered keys), rebuilt from the queue's URLs and the
 * records' keys with empty values (the layout before categories).
 * The layouts are written out here on purpose, not taken from
 * frontier/: they are what that version wrote, whatever this one does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "store.h"

static bool hex_bytes(const char *hex, unsigned char *out, size_t n)
{
	if (!hex || strlen(hex) != 2 * n)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return false;
		out[i] = (unsigned char)v;
	}
	return true;
}

/* One record of a --jsonl line; 0 or an error message. */
static const char *put_json(struct store *s, MDB_txn *txn, json_t *j)
{
	const char *url = json_string_value(json_object_get(j, "url"));
	const char *norm = json_string_value(json_object_get(j, "normalized"));
	json_t *status = json_object_get(j, "status");
	json_t *sig = json_object_get(j, "signature");
	json_t *sim = json_object_get(j, "simhash");
	const char *dup = json_string_value(json_object_get(j, "duplicate_of"));
	if (!url || !norm)
		return "url and normalized are required strings";
	struct store_record r = {
		.url = url,
		.url_len = strlen(url),
		.normalized = norm,
		.normalized_len = strlen(norm),
		.category = "cat",
		.category_len = 3,
	};
	if (status) {
		if (!json_is_integer(status))
			return "status is not an integer";
		r.fetched = true;
		r.status = (int)json_integer_value(status);
	}
	if (sig) {
		if (!hex_bytes(json_string_value(sig), r.signature, 16))
			return "signature is not 32 hex digits";
		r.has_signature = true;
	}
	if (sim) {
		unsigned char b[8];
		if (!hex_bytes(json_string_value(sim), b, 8))
			return "simhash is not 16 hex digits";
		for (int i = 0; i < 8; i++)
			r.simhash = r.simhash << 8 | b[i];
		r.has_simhash = true;
	}
	if (dup) {
		r.duplicate_of = dup;
		r.duplicate_of_len = strlen(dup);
	}
	return store_put(s, txn, &r) ? "store_put failed" : NULL;
}

static int from_jsonl(struct store *s, MDB_txn *txn, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return 1;
	}
	char line[8192];
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		n++;
		json_error_t err;
		json_t *j = json_loads(line, 0, &err);
		const char *msg = j ? put_json(s, txn, j) : err.text;
		json_decref(j);
		if (msg) {
			fprintf(stderr, "mkstore: %s:%d: %s\n", path, n, msg);
			fclose(f);
			return 1;
		}
	}
	fclose(f);
	return 0;
}

/* The seen set as format 1 wrote it: every URL queued (in every entry
 * version the URL's length is at bytes 5..6 and the URL follows the
 * head) and every record's key, which is sc_url_key() of its URL; meta's
 * version byte 1.  Returns 0 or an LMDB code. */
static int seen_v1(MDB_txn *txn, MDB_dbi meta, MDB_dbi queue, MDB_dbi records)
{
	MDB_dbi seen;
	int rc = mdb_dbi_open(txn, "frontier.seen", 0, &seen);
	if (rc || (rc = mdb_drop(txn, seen, 0)))
		return rc;
	MDB_dbi from[2] = { queue, records };
	for (int d = 0; d < 2; d++) {
		MDB_cursor *c;
		MDB_val k, v, none = { 0, "" };
		if ((rc = mdb_cursor_open(txn, from[d], &c)))
			return rc;
		for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0;
		     rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
			unsigned char key[SC_KEY_LEN];
			const unsigned char *p = v.mv_data;
			if (d == 1) {
				if (k.mv_size != SC_KEY_LEN)
					continue;
				memcpy(key, k.mv_data, SC_KEY_LEN);
			} else {
				/* The head of each entry version, 1 to 5. */
				static const size_t head[] = { 0,  10, 11,
							       14, 18, 21 };
				size_t h = v.mv_size >= 7 && p[0] >= 1 &&
							   p[0] <= 5
						   ? head[p[0]]
						   : 0;
				size_t len = h ? (size_t)p[5] << 8 | p[6] : 0;
				if (!len || h + len > v.mv_size)
					continue;
				sc_url_key((const char *)p + h, len, key);
			}
			MDB_val sk = { SC_KEY_LEN, key };
			int prc = mdb_put(txn, seen, &sk, &none, 0);
			if (prc) {
				mdb_cursor_close(c);
				return prc;
			}
		}
		mdb_cursor_close(c);
		if (rc != MDB_NOTFOUND)
			return rc;
	}
	MDB_val mk = { 4, "meta" }, mv;
	if ((rc = mdb_get(txn, meta, &mk, &mv)))
		return rc;
	unsigned char m[64];
	if (mv.mv_size == 0 || mv.mv_size > sizeof(m))
		return MDB_CORRUPTED;
	memcpy(m, mv.mv_data, mv.mv_size);
	m[0] = 1;
	MDB_val nv = { mv.mv_size, m };
	return mdb_put(txn, meta, &mk, &nv, 0);
}

static int downgrade(const char *dir)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi meta, queue, due, records;
	int rc = store_env_open(dir, 0, &env);
	if (rc) {
		fprintf(stderr, "mkstore: %s: %s\n", dir, sc_strerror(rc));
		return 1;
	}
	if (mdb_txn_begin(env, NULL, 0, &txn) ||
	    mdb_dbi_open(txn, "frontier.meta", 0, &meta) ||
	    mdb_dbi_open(txn, "frontier.queue", 0, &queue) ||
	    mdb_dbi_open(txn, "frontier.due", 0, &due) ||
	    mdb_dbi_open(txn, "records", 0, &records) ||
	    mdb_drop(txn, due, 0)) {
		fprintf(stderr, "mkstore: %s: no frontier\n", dir);
		return 1;
	}
	MDB_val k = { 4, "norm" }, v;
	rc = mdb_del(txn, meta, &k, NULL);
	if (rc && rc != MDB_NOTFOUND) {
		fprintf(stderr, "mkstore: %s\n", mdb_strerror(rc));
		return 1;
	}
	/* Format 3: a 14-byte head whose bytes 11..13 are the scheme and
	 * port; format 4 adds flags and the validators' lengths (bytes
	 * 14..17) and the validators after the URLs; format 2 is format 3
	 * without the scheme and port. */
	MDB_cursor *c;
	if (mdb_cursor_open(txn, queue, &c))
		return 1;
	int n = 0;
	while ((rc = mdb_cursor_get(c, &k, &v, n ? MDB_NEXT : MDB_FIRST)) ==
	       0) {
		n++;
		const unsigned char *p = v.mv_data;
		size_t head = v.mv_size >= 18 && p[0] == 4   ? 18
			      : v.mv_size >= 14 && p[0] == 3 ? 14
							     : 0;
		if (!head)
			continue;
		size_t tail = head == 18 ? ((size_t)p[15] << 8 | p[16]) + p[17]
					 : 0;
		size_t urls = v.mv_size - head - tail;
		unsigned char *w = malloc(11 + urls);
		if (!w)
			return 1;
		memcpy(w, p, 11);
		w[0] = 2;
		memcpy(w + 11, p + head, urls);
		MDB_val nv = { 11 + urls, w };
		rc = mdb_cursor_put(c, &k, &nv, MDB_CURRENT);
		free(w);
		if (rc) {
			fprintf(stderr, "mkstore: %s\n", mdb_strerror(rc));
			return 1;
		}
	}
	mdb_cursor_close(c);
	if (rc != MDB_NOTFOUND)
		return 1;
	/* Records: the same without their re-crawl fields.  Re-encoded
	 * first, put after the walk: a put of another size moves the
	 * cursor. */
	if (mdb_cursor_open(txn, records, &c))
		return 1;
	struct redo {
		unsigned char key[SC_KEY_LEN];
		unsigned char *val;
		size_t len;
	} *redo = NULL;
	size_t n_redo = 0;
	n = 0;
	while ((rc = mdb_cursor_get(c, &k, &v, n ? MDB_NEXT : MDB_FIRST)) ==
	       0) {
		n++;
		struct store_record r;
		if (k.mv_size != SC_KEY_LEN ||
		    store_record_decode(v.mv_data, v.mv_size, &r))
			continue;
		r.has_visit = r.has_changed_at = r.has_gone_at = false;
		r.has_capture = false;
		r.etag = r.last_modified = NULL;
		size_t size;
		struct redo *g = realloc(redo, (n_redo + 1) * sizeof(*g));
		if (!g || store_record_size(&r, &size))
			return 1;
		redo = g;
		g = &redo[n_redo++];
		memcpy(g->key, k.mv_data, SC_KEY_LEN);
		if (!(g->val = malloc(size)) ||
		    store_record_encode(&r, g->val, size, &g->len))
			return 1;
	}
	mdb_cursor_close(c);
	if (rc != MDB_NOTFOUND)
		return 1;
	for (size_t i = 0; i < n_redo; i++) {
		MDB_val rk = { SC_KEY_LEN, redo[i].key };
		MDB_val rv = { redo[i].len, redo[i].val };
		if ((rc = mdb_put(txn, records, &rk, &rv, 0))) {
			fprintf(stderr, "mkstore: %s\n", mdb_strerror(rc));
			return 1;
		}
		free(redo[i].val);
	}
	free(redo);
	if ((rc = seen_v1(txn, meta, queue, records)) ||
	    (rc = mdb_txn_commit(txn))) {
		fprintf(stderr, "mkstore: %s\n", mdb_strerror(rc));
		return 1;
	}
	store_env_close(env);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[2], "--downgrade") == 0)
		return downgrade(argv[1]);
	bool jsonl = argc == 4 && strcmp(argv[2], "--jsonl") == 0;
	if (argc < 3 || argc > 4 ||
	    (argc == 4 && !jsonl && strcmp(argv[3], "--corrupt") != 0)) {
		fprintf(stderr, "usage: mkstore DIR N [--corrupt]\n"
				"       mkstore DIR --jsonl FILE\n"
				"       mkstore DIR --downgrade\n");
		return 2;
	}
	long n = strtol(argv[2], NULL, 10);
	MDB_env *env;
	MDB_txn *txn;
	struct store *s;
	int rc = store_env_open(argv[1], 0, &env);
	if (rc) {
		fprintf(stderr, "mkstore: %s: %s\n", argv[1], sc_strerror(rc));
		return 1;
	}
	if (mdb_txn_begin(env, NULL, 0, &txn) || store_open(env, txn, &s)) {
		fprintf(stderr, "mkstore: cannot open the records\n");
		return 1;
	}
	if (jsonl && from_jsonl(s, txn, argv[3]))
		return 1;
	for (long i = 0; !jsonl && i < n; i++) {
		char url[64], norm[64], title[32];
		snprintf(url, sizeof(url),
			 "http://Example.com/page/%ld?utm_source=x", i);
		snprintf(norm, sizeof(norm), "http://example.com/page/%ld", i);
		snprintf(title, sizeof(title), "Page %ld", i);
		struct store_record r = {
			.url = url,
			.url_len = strlen(url),
			.normalized = norm,
			.normalized_len = strlen(norm),
			.category = "cat",
			.category_len = 3,
			.depth = (uint32_t)(i % 4),
		};
		if (i % 2 == 0) {
			const char *t = i == 0 ? "Hello, \"world\"" : title;
			r.fetched = true;
			r.status = 200;
			r.content_type = "text/html";
			r.content_type_len = 9;
			r.bytes = 1000 + (uint64_t)i;
			r.fetched_at = 1700000000000 + i;
			r.title = t;
			r.title_len = strlen(t);
			r.has_signature = true;
			memset(r.signature, (int)(i % 256), 16);
			r.has_simhash = true;
			r.simhash = (uint64_t)i;
			r.has_relevance = true;
			r.relevance = (double)i / 4;
		} else {
			r.error = STORE_ERROR_ROBOTS_DISALLOWED;
		}
		rc = store_put(s, txn, &r);
		if (rc) {
			fprintf(stderr, "mkstore: record %ld: %s\n", i,
				sc_strerror(rc));
			return 1;
		}
	}
	if (argc == 4 && !jsonl) {
		MDB_dbi dbi;
		unsigned char key[SC_KEY_LEN];
		sc_url_key("http://corrupt/", 15, key);
		MDB_val k = { SC_KEY_LEN, key }, v = { 5, "\x01junk" };
		if (mdb_dbi_open(txn, "records", 0, &dbi) ||
		    mdb_put(txn, dbi, &k, &v, 0)) {
			fprintf(stderr,
				"mkstore: cannot write the bad value\n");
			return 1;
		}
	}
	rc = mdb_txn_commit(txn);
	if (rc) {
		fprintf(stderr, "mkstore: commit: %s\n", mdb_strerror(rc));
		return 1;
	}
	store_close(s);
	store_env_close(env);
	return 0;
}
