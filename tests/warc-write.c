/* warc-write.c — writes WARC files with warc/'s writer for
 * tests/test-warc-reader.sh, which has an independent reader check them.
 *
 * Usage: warc-write DIR MAX_FILE_BYTES < LIST
 *
 * Each line of LIST is "KIND<TAB>URI<TAB>FILE[<TAB>PRIOR]": one exchange
 * whose payload is the content of FILE.  KIND chooses the response head:
 *   plain   200 with Content-Type and a Content-Length that holds
 *   gzip    200 with Content-Encoding: gzip and Transfer-Encoding: chunked,
 *           the payload marked as decoded by libcurl (payload_decoded)
 *   empty   204 No Content (FILE should be empty)
 *   notmod  304 Not Modified with an ETag (FILE should be empty), written
 *           as not modified (warc_write_visit()'s NOT_MODIFIED)
 * PRIOR, a line number (0 for the first line), makes the line a re-visit
 * of that earlier line's URL: warc_write_visit() gets the capture it
 * returned for that line and that line's URI, and writes a revisit record
 * (server-not-modified for notmod; identical-payload-digest when FILE
 * holds the same payload as the capture) or a full response.  A line
 * without PRIOR gets warc_write_visit() without a prior, that is, what
 * warc_write_exchange() writes.  The lines are dated
 * 2024-05-01T12:00:00.000Z plus 1001 ms per line.
 *
 * For each line, stdout gets "N<TAB>TYPE<TAB>ID": its line number, the
 * record written ("response" or "revisit") and the WARC-Record-ID of the
 * capture later visits would refer to.  Exit status 0, or 1 with a
 * message when any call fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warc.h"

#define MAX_LINES 1024

/* What each line left for the lines that re-visit it. */
struct line {
	char uri[4096];
	struct warc_capture capture;
};

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0, k;
	unsigned char *p = malloc(cap);
	while (p && (k = fread(p + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap) {
			unsigned char *q = realloc(p, cap *= 2);
			if (!q)
				free(p);
			p = q;
		}
	}
	fclose(f);
	*len = n;
	return p;
}

static int write_one(struct warc_writer *w, const char *kind, const char *uri,
		     const char *file, int64_t at, const struct line *prior,
		     struct line *self, size_t n)
{
	size_t len;
	unsigned char *body = slurp(file, &len);
	if (!body) {
		fprintf(stderr, "warc-write: cannot read %s\n", file);
		return 1;
	}
	char head[512], req[1024];
	const char *path = strchr(uri + strlen("http://"), '/');
	snprintf(
		req, sizeof(req),
		"GET %s HTTP/1.1\r\nHost: example.com\r\n"
		"User-Agent: sigcrawl-test\r\nAccept-Encoding: gzip, br\r\n\r\n",
		path ? path : "/");
	struct warc_exchange x = {
		.target_uri = uri,
		.fetched_at = at,
		.ip = "127.0.0.1",
		.request = req,
		.request_len = strlen(req),
		.response_head = head,
		.payload = body,
		.payload_len = len,
	};
	if (strcmp(kind, "plain") == 0) {
		snprintf(
			head, sizeof(head),
			"HTTP/1.1 200 OK\r\nContent-Type: "
			"application/octet-stream\r\nContent-Length: %zu\r\n\r\n",
			len);
	} else if (strcmp(kind, "gzip") == 0) {
		snprintf(head, sizeof(head),
			 "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
			 "Content-Encoding: gzip\r\n"
			 "Transfer-Encoding: chunked\r\n\r\n");
		x.payload_decoded = true;
	} else if (strcmp(kind, "empty") == 0) {
		snprintf(head, sizeof(head), "HTTP/1.1 204 No Content\r\n\r\n");
	} else if (strcmp(kind, "notmod") == 0) {
		snprintf(head, sizeof(head),
			 "HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\n\r\n");
	} else {
		fprintf(stderr, "warc-write: unknown kind %s\n", kind);
		free(body);
		return 1;
	}
	x.response_head_len = strlen(head);
	bool not_modified = strcmp(kind, "notmod") == 0, revisit = false;
	int rc;
	if (prior)
		rc = warc_write_visit(w, &x, &prior->capture, prior->uri,
				      not_modified, &self->capture, &revisit);
	else
		rc = warc_write_visit(w, &x, NULL, NULL, not_modified,
				      &self->capture, &revisit);
	free(body);
	if (rc) {
		fprintf(stderr, "warc-write: %s: %s\n", uri, sc_strerror(rc));
		return 1;
	}
	snprintf(self->uri, sizeof(self->uri), "%s", uri);
	printf("%zu\t%s\t%s\n", n, revisit ? "revisit" : "response",
	       self->capture.id);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr,
			"usage: warc-write DIR MAX_FILE_BYTES < LIST\n");
		return 2;
	}
	struct warc_opts o = { .prefix = "test",
			       .max_file_bytes = strtoull(argv[2], NULL, 10) };
	struct warc_writer *w;
	int rc = warc_open(argv[1], &o, &w);
	if (rc) {
		fprintf(stderr, "warc-write: %s: %s\n", argv[1],
			sc_strerror(rc));
		return 1;
	}
	static struct line lines[MAX_LINES];
	char line[4096];
	int64_t at = 1714564800000LL;
	int status = 0;
	size_t n = 0;
	while (!status && fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		char *kind = strtok(line, "\t"), *uri = strtok(NULL, "\t");
		char *file = strtok(NULL, "\t"), *ref = strtok(NULL, "\t");
		char *end = NULL;
		unsigned long prior = ref ? strtoul(ref, &end, 10) : 0;
		if (!kind || !uri || !file || strncmp(uri, "http://", 7) != 0 ||
		    n == MAX_LINES || (ref && (!*ref || *end || prior >= n))) {
			fprintf(stderr, "warc-write: bad line %zu\n", n);
			status = 1;
			break;
		}
		status = write_one(w, kind, uri, file, at,
				   ref ? &lines[prior] : NULL, &lines[n], n);
		at += 1001;
		n++;
	}
	if (warc_close(w) != 0) {
		fprintf(stderr, "warc-write: closing failed\n");
		status = 1;
	}
	return status;
}
