/* spool.c — batches waiting for NATS, on disk (cluster.h).
 *
 * One append-only file.  An append is one write() of a whole record and
 * an fsync(), so after a crash the file is a run of whole records and at
 * most one torn one at the end, which opening cuts off.  The records are
 * not indexed: the spool is for outages, it is replayed from the start
 * and emptied once JetStream has acked what it held.  Dropping a prefix
 * that is not everything copies the rest to a new file and renames it
 * over the old one, so a crash leaves either the old or the new file.
 *
 * A mutex guards the file offset and counters, since libnats's thread
 * appends the batches whose publish failed while the owner may be
 * replaying; replay reads each record under the lock but calls back
 * without it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY /* a state on the stack */
#include <xxhash.h>

#include "cluster.h"

#define SPOOL_MAGIC "SCSPOOL1"
#define SPOOL_HEADER 8
#define RECORD_HEADER 12
#define SPOOL_MIN_BYTES (64 * 1024)

struct cluster_spool {
	pthread_mutex_t lock;
	int fd;
	char *path, *tmp_path;
	uint64_t max_bytes;
	uint64_t size; /* bytes of whole records and the header */
	size_t records;
	uint64_t torn;
};

static uint32_t record_check(uint32_t shard, const void *batch, size_t len)
{
	XXH32_state_t st;
	unsigned char sb[4];
	put_be32(sb, shard);
	XXH32_reset(&st, 0);
	XXH32_update(&st, sb, 4);
	XXH32_update(&st, batch, len);
	return XXH32_digest(&st);
}

static int read_full(int fd, void *buf, size_t n, uint64_t off, size_t *got)
{
	size_t done = 0;
	while (done < n) {
		ssize_t r = pread(fd, (char *)buf + done, n - done,
				  (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return SC_E_IO;
		if (r == 0)
			break;
		done += (size_t)r;
	}
	*got = done;
	return 0;
}

static int write_full(int fd, const void *buf, size_t n, uint64_t off)
{
	size_t done = 0;
	while (done < n) {
		ssize_t r = pwrite(fd, (const char *)buf + done, n - done,
				   (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return SC_E_IO;
		done += (size_t)r;
	}
	return 0;
}

/* The record at OFF: 0 with its shard, length (and the bytes in *buf when
 * buf is not NULL, malloc'd), SC_E_AGAIN for a torn or failing record,
 * SC_E_IO or SC_E_NOMEM. */
static int read_record(int fd, uint64_t off, uint64_t end, uint32_t *shard,
		       size_t *len, unsigned char **buf)
{
	unsigned char h[RECORD_HEADER];
	size_t got;
	if (end - off < RECORD_HEADER)
		return SC_E_AGAIN;
	int rc = read_full(fd, h, sizeof(h), off, &got);
	if (rc)
		return rc;
	if (got < sizeof(h))
		return SC_E_AGAIN;
	uint32_t l = get_be32(h), check = get_be32(h + 4);
	if (l == 0 || l > CLUSTER_BATCH_BYTES_MAX ||
	    end - off - RECORD_HEADER < l)
		return SC_E_AGAIN;
	unsigned char *b = malloc(l);
	if (!b)
		return SC_E_NOMEM;
	rc = read_full(fd, b, l, off + RECORD_HEADER, &got);
	if (!rc && got < l)
		rc = SC_E_AGAIN;
	if (!rc && record_check(get_be32(h + 8), b, l) != check)
		rc = SC_E_AGAIN;
	if (rc) {
		free(b);
		return rc;
	}
	*shard = get_be32(h + 8);
	*len = l;
	if (buf)
		*buf = b;
	else
		free(b);
	return 0;
}

static char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + 1 + strlen(name) + 1;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

void cluster_spool_close(struct cluster_spool *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	pthread_mutex_destroy(&s->lock);
	free(s->path);
	free(s->tmp_path);
	free(s);
}

int cluster_spool_open(const char *dir, uint64_t max_bytes,
		       struct cluster_spool **ret)
{
	if (!dir || !*dir || max_bytes < SPOOL_MIN_BYTES ||
	    strlen(dir) > PATH_MAX - 32)
		return SC_E_INVAL;
	struct cluster_spool *s = calloc(1, sizeof(*s));
	if (!s)
		return SC_E_NOMEM;
	s->fd = -1;
	pthread_mutex_init(&s->lock, NULL);
	s->max_bytes = max_bytes;
	s->path = path_join(dir, "links.spool");
	s->tmp_path = path_join(dir, "links.spool.tmp");
	int rc = SC_E_NOMEM;
	if (!s->path || !s->tmp_path)
		goto fail;
	rc = SC_E_IO;
	/* A leftover of a drop interrupted before its rename. */
	if (unlink(s->tmp_path) != 0 && errno != ENOENT)
		goto fail;
	s->fd = open(s->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (s->fd < 0)
		goto fail;
	struct stat st;
	if (fstat(s->fd, &st) != 0)
		goto fail;
	uint64_t end = (uint64_t)st.st_size;
	unsigned char h[SPOOL_HEADER];
	size_t got;
	if ((rc = read_full(s->fd, h, sizeof(h), 0, &got)))
		goto fail;
	if (got < SPOOL_HEADER) {
		/* New, or torn while its header was written: the header's
		 * start must agree, else it is some other file. */
		rc = SC_E_CORRUPT;
		if (memcmp(h, SPOOL_MAGIC, got) != 0)
			goto fail;
		rc = SC_E_IO;
		if (write_full(s->fd, SPOOL_MAGIC, SPOOL_HEADER, 0) ||
		    ftruncate(s->fd, SPOOL_HEADER) != 0 || fsync(s->fd) != 0)
			goto fail;
		s->size = SPOOL_HEADER;
		*ret = s;
		return 0;
	}
	rc = SC_E_CORRUPT;
	if (memcmp(h, SPOOL_MAGIC, SPOOL_HEADER) != 0)
		goto fail;
	uint64_t off = SPOOL_HEADER;
	for (;;) {
		uint32_t shard;
		size_t len;
		rc = read_record(s->fd, off, end, &shard, &len, NULL);
		if (rc == SC_E_AGAIN)
			break;
		if (rc)
			goto fail;
		off += RECORD_HEADER + len;
		s->records++;
	}
	s->size = off;
	s->torn = end - off;
	rc = SC_E_IO;
	if (s->torn && (ftruncate(s->fd, (off_t)off) != 0 || fsync(s->fd)))
		goto fail;
	*ret = s;
	return 0;
fail:
	cluster_spool_close(s);
	return rc;
}

int cluster_spool_append(struct cluster_spool *s, uint32_t shard,
			 const void *batch, size_t len)
{
	if (!s || !batch || len == 0 || len > CLUSTER_BATCH_BYTES_MAX)
		return SC_E_INVAL;
	unsigned char *rec = malloc(RECORD_HEADER + len);
	if (!rec)
		return SC_E_NOMEM;
	put_be32(rec, (uint32_t)len);
	put_be32(rec + 4, record_check(shard, batch, len));
	put_be32(rec + 8, shard);
	memcpy(rec + RECORD_HEADER, batch, len);
	int rc = 0;
	pthread_mutex_lock(&s->lock);
	if (s->size + RECORD_HEADER + len > s->max_bytes) {
		rc = SC_E_LIMIT;
	} else if (write_full(s->fd, rec, RECORD_HEADER + len, s->size) ||
		   fdatasync(s->fd) != 0) {
		/* Whatever part was written is past size: cut it, so the
		 * next append starts on a record boundary. */
		rc = SC_E_IO;
		if (ftruncate(s->fd, (off_t)s->size) != 0) {
			/* Opening again cuts it as a torn record. */
		}
	} else {
		s->size += RECORD_HEADER + len;
		s->records++;
	}
	pthread_mutex_unlock(&s->lock);
	free(rec);
	return rc;
}

int cluster_spool_replay(struct cluster_spool *s, cluster_spool_fn fn,
			 void *arg, size_t *n_done)
{
	size_t done = 0;
	int rc = 0;
	if (n_done)
		*n_done = 0;
	if (!s || !fn)
		return SC_E_INVAL;
	pthread_mutex_lock(&s->lock);
	uint64_t end = s->size;
	pthread_mutex_unlock(&s->lock);
	for (uint64_t off = SPOOL_HEADER; off < end;) {
		uint32_t shard;
		size_t len;
		unsigned char *buf = NULL;
		pthread_mutex_lock(&s->lock);
		/* A drop may have shortened the file meanwhile. */
		if (end > s->size)
			end = s->size;
		rc = off < end
			     ? read_record(s->fd, off, end, &shard, &len, &buf)
			     : SC_E_AGAIN;
		pthread_mutex_unlock(&s->lock);
		if (rc == SC_E_AGAIN) {
			rc = 0;
			break;
		}
		if (rc)
			break;
		rc = fn(arg, shard, buf, len);
		free(buf);
		if (rc)
			break;
		done++;
		off += RECORD_HEADER + len;
	}
	if (n_done)
		*n_done = done;
	return rc;
}

int cluster_spool_drop(struct cluster_spool *s, size_t n)
{
	if (!s)
		return SC_E_INVAL;
	int rc = 0;
	pthread_mutex_lock(&s->lock);
	if (n == 0)
		goto out;
	if (n >= s->records) {
		rc = ftruncate(s->fd, SPOOL_HEADER) == 0 && fsync(s->fd) == 0
			     ? 0
			     : SC_E_IO;
		if (!rc) {
			s->size = SPOOL_HEADER;
			s->records = 0;
		}
		goto out;
	}
	/* Find where record n starts, then copy the rest. */
	uint64_t off = SPOOL_HEADER;
	for (size_t i = 0; i < n; i++) {
		uint32_t shard;
		size_t len;
		if ((rc = read_record(s->fd, off, s->size, &shard, &len,
				      NULL))) {
			rc = rc == SC_E_AGAIN ? SC_E_IO : rc;
			goto out;
		}
		off += RECORD_HEADER + len;
	}
	int fd = open(s->tmp_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
		      0600);
	if (fd < 0) {
		rc = SC_E_IO;
		goto out;
	}
	rc = write_full(fd, SPOOL_MAGIC, SPOOL_HEADER, 0);
	uint64_t w = SPOOL_HEADER;
	char buf[65536];
	for (uint64_t r = off; !rc && r < s->size;) {
		size_t k = s->size - r < sizeof(buf) ? (size_t)(s->size - r)
						     : sizeof(buf);
		size_t got;
		rc = read_full(s->fd, buf, k, r, &got);
		if (!rc && got != k)
			rc = SC_E_IO;
		if (!rc)
			rc = write_full(fd, buf, k, w);
		r += k;
		w += k;
	}
	if (!rc && (fsync(fd) != 0 || rename(s->tmp_path, s->path) != 0))
		rc = SC_E_IO;
	if (rc) {
		close(fd);
		unlink(s->tmp_path);
		goto out;
	}
	/* The directory entry too, so the rename survives a crash. */
	char *slash = strrchr(s->path, '/');
	if (slash) {
		*slash = '\0';
		int dfd = open(s->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		*slash = '/';
		if (dfd >= 0) {
			(void)fsync(dfd);
			close(dfd);
		}
	}
	close(s->fd);
	s->fd = fd;
	s->size = w;
	s->records -= n;
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

size_t cluster_spool_records(struct cluster_spool *s)
{
	pthread_mutex_lock(&s->lock);
	size_t n = s->records;
	pthread_mutex_unlock(&s->lock);
	return n;
}

uint64_t cluster_spool_bytes(struct cluster_spool *s)
{
	pthread_mutex_lock(&s->lock);
	uint64_t n = s->size;
	pthread_mutex_unlock(&s->lock);
	return n;
}

uint64_t cluster_spool_torn_bytes(const struct cluster_spool *s)
{
	return s->torn;
}
