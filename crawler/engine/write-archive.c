/* write-archive.c — the writer's copies of pages outside the store: a
 * fetched page's exchange into the WARC files, written with its record
 * (write_warc()), and a batch's pages into the search index, committed
 * before the batch's LMDB transaction (index_batch()).  Both run on the
 * writer thread (writer.c), which owns c->warc and c->search. */
#include "crawl-int.h"

/* Did the response carry a Content-Encoding (other than identity), which
 * libcurl then decoded? */
static bool head_has_encoding(const char *h, size_t len)
{
	static const char name[] = "content-encoding:";
	const size_t nl = sizeof(name) - 1;
	for (size_t i = 0; i < len;) {
		const char *eol = memchr(h + i, '\n', len - i);
		size_t end = eol ? (size_t)(eol - h) : len;
		if (end - i > nl && strncasecmp(h + i, name, nl) == 0) {
			const char *v = h + i + nl;
			while (v < h + end && (*v == ' ' || *v == '\t'))
				v++;
			if (v < h + end && strncasecmp(v, "identity", 8) != 0)
				return true;
		}
		i = end + 1;
	}
	return false;
}

/* A fetched page's request and response, into the WARC files, before its
 * record (which keeps the capture a later visit refers to: r's capture
 * fields, pointing into cap).  A revisit whose page is unchanged is a
 * `revisit` record referring to r's capture.  Pages whose exchange the
 * writer refuses (no response head, an oversized or malformed one) are
 * counted and left out; a write failure fails the batch (writer.c). */
int write_warc(struct crawl *c, const struct job *j, struct store_record *r,
	       struct warc_capture *cap)
{
	if (!c->warc || j->kind != JOB_PAGE || !j->fetched)
		return 0;
	int rc = SC_E_INVAL;
	bool revisit = false;
	if (j->status > 0 && j->req_head && j->resp_head.p &&
	    !j->head_overflow) {
		struct warc_exchange x = {
			.target_uri = j->fetch_url,
			.fetched_at = (int64_t)j->fetched_at,
			.ip = j->ip[0] ? j->ip : NULL,
			.request = j->req_head,
			.request_len = j->req_len,
			.response_head = j->resp_head.p,
			.response_head_len = j->resp_head.len,
			.payload = j->body.p,
			.payload_len = j->body.len,
			.payload_decoded = head_has_encoding(j->resp_head.p,
							     j->resp_head.len),
		};
		struct warc_capture prior;
		bool has_prior = r->has_capture && r->capture_id_len > 0 &&
				 r->capture_id_len < WARC_ID_LEN;
		if (has_prior) {
			memcpy(prior.id, r->capture_id, r->capture_id_len);
			prior.id[r->capture_id_len] = '\0';
			prior.date = r->capture_at;
			memcpy(prior.payload_sha1, r->capture_sha1, 20);
		}
		rc = warc_write_visit(c->warc, &x, has_prior ? &prior : NULL,
				      NULL, j->status == 304, cap, &revisit);
		if (rc == 0 && !revisit && j->status != 304) {
			r->has_capture = true;
			r->capture_at = cap->date;
			memcpy(r->capture_sha1, cap->payload_sha1, 20);
			r->capture_id = cap->id;
			r->capture_id_len = strlen(cap->id);
		}
	}
	if (rc && rc != SC_E_INVAL) {
		c->w_part = PART_WARC;
		c->w_errno = errno;
	}
	pthread_mutex_lock(&c->mu);
	if (rc == 0)
		c->sum.warc_exchanges++;
	else if (rc == SC_E_INVAL)
		c->sum.warc_skipped++;
	pthread_mutex_unlock(&c->mu);
	return rc == SC_E_INVAL ? 0 : rc;
}

/* One page of the batch into the search index.  A page that says
 * noindex is removed (it may have been indexed before it said so); a
 * duplicate is an alias of its representative, never a page of its own;
 * a page that was not parsed (an error, a redirect, not HTML) has no
 * text and is left alone. */
static int index_job(struct crawl *c, const struct job *j)
{
	if (j->kind != JOB_PAGE)
		return 0;
	const char *url = j->lease.url;
	size_t len = j->lease.url_len;
	/* A revisit: a gone page leaves the index, a changed one is
	 * written again, an unchanged one stays as it is. */
	if (j->visit == VISIT_GONE)
		return search_forget(c->search, url, len);
	if (!j->page_text ||
	    (j->visit != VISIT_NONE && j->visit != VISIT_CHANGED))
		return 0;
	if (j->noindex)
		return search_forget(c->search, url, len);
	if (j->dup)
		return search_put_alias(
			c->search, j->dup_of, strlen(j->dup_of), url, len,
			j->dup == DUP_NEAR ? SEARCH_NEAR_DUPLICATE
					   : SEARCH_SAME_SIGNATURE);
	const char *cat = j->lease.category < c->o->n_categories
				  ? c->o->categories[j->lease.category].name
				  : "";
	struct search_page p = {
		.url = url,
		.url_len = len,
		.category = cat,
		.category_len = strlen(cat),
		.title = j->title,
		.title_len = strlen(j->title),
		.text = j->page_text,
		.text_len = j->page_text_len,
	};
	return search_put_page(c->search, &p);
}

/* The batch's pages into the search index, in one SQLite transaction
 * committed BEFORE the LMDB transaction of the same batch.  So a kill -9
 * or a power cut never leaves a committed record without its text: at
 * worst the index holds pages whose records were not committed; those
 * are still queued, are fetched again, and are written again over
 * themselves (every write of search_put_*() is an upsert of one URL's
 * whole truth, so a page that turns out a duplicate the second time
 * leaves the pages for the aliases).  If the LMDB commit fails after
 * this one succeeded, the crawl stops (or, under serve on a full disk,
 * the batch is written again once there is space), with the same
 * outcome. */
int index_batch(struct crawl *c, struct job **batch, size_t n)
{
	int rc = search_begin(c->search);
	for (size_t i = 0; i < n && !rc; i++)
		rc = index_job(c, batch[i]);
	if (!rc)
		rc = search_commit(c->search);
	else
		search_rollback(c->search);
	if (rc) {
		c->w_part = PART_SEARCH;
		c->w_errno = errno;
	}
	/* A want of space is the writer's to say (diskfull.c). */
	if (rc && !full_error(rc, c->w_errno)) {
		char what[320];
		snprintf(what, sizeof(what), "writing the search index (%s)",
			 search_errmsg(c->search));
		crawl_die(c, rc, what);
	}
	return rc;
}
