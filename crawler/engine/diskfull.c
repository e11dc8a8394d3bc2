/* diskfull.c — a full disk, or a store at its ceiling, as a state of the
 * crawl rather than a crash.
 *
 * Only the writer thread writes the disk (the store, the WARC files, the
 * search index, a cluster's spool; libcurl's cookie jar is written at the
 * end of a run, crawl.c).  When one of its writes fails for want of space
 * (ENOSPC, EDQUOT; SQLite's SQLITE_FULL; LMDB's MDB_MAP_FULL at [store]
 * max_size), the batch's LMDB transaction is aborted, the WARC file is
 * cut back to where the batch began and the search index's transaction
 * rolled back, so nothing of the batch is on disk as if it were whole,
 * and nothing committed before is touched.  Then:
 *
 *   - `crawl` says which file, why, and how to resume, and ends with
 *     exit status 1 (crawl_die(); the batch's URLs are still queued and
 *     are fetched by the next run);
 *   - `serve` keeps the batch in memory and sets c->full: the loop starts
 *     no fetch while it is set (sched.c), /status says "disk_full" with
 *     the path, and each one-second tick (full_tick()) looks at the free
 *     space of the path's filesystem; once it has grown by FULL_RETRY_GAIN
 *     (or every FULL_RETRY_EVERY_S seconds whatever statvfs says: a quota
 *     does not show there), the writer tries the same batch again, and
 *     on success the state clears and fetching resumes.
 *
 * The state is under c->mu; the writer waits on write_cv. */
#include "crawl-int.h"

#include <sys/statvfs.h>

/* Free space that must appear before a retry, and the retry every so
 * often regardless. */
#define FULL_RETRY_GAIN ((uint64_t)256 << 10)
#define FULL_RETRY_EVERY_S 60

bool full_error(int rc, int err)
{
	if (rc == SC_E_FULL)
		return true;
	return rc == SC_E_IO && (err == ENOSPC || err == EDQUOT);
}

static uint64_t free_bytes(const char *path);

/* Less than this free, an EIO is taken for a full disk: LMDB reports a
 * write(2) cut short (which is how a filesystem fills in the middle of
 * a commit's pages) as EIO, not ENOSPC. */
#define FULL_SHORT_WRITE_FREE ((uint64_t)1 << 20)

int full_errno(const struct crawl *c, enum full_part part, int err)
{
	if (err != EIO)
		return err;
	char path[4096];
	full_path(c, part, path, sizeof(path));
	return free_bytes(path) < FULL_SHORT_WRITE_FREE ? ENOSPC : err;
}

/* Free bytes for this process on the filesystem of PATH (root may use
 * the blocks reserved for it). */
static uint64_t free_bytes(const char *path)
{
	char dir[sizeof(((struct crawl_full *)0)->path)];
	snprintf(dir, sizeof(dir), "%s", path);
	struct statvfs sv;
	for (;;) {
		if (statvfs(dir, &sv) == 0)
			return (uint64_t)(geteuid() == 0 ? sv.f_bfree
							 : sv.f_bavail) *
			       sv.f_frsize;
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			return 0;
		*slash = '\0';
	}
}

void full_path(const struct crawl *c, enum full_part part, char *buf,
	       size_t len)
{
	const char *dir = c->o->store_dir;
	switch (part) {
	case PART_WARC: snprintf(buf, len, "%s/warc", dir); break;
	case PART_SEARCH:
		snprintf(buf, len, "%s/%s", dir, SEARCH_DB_NAME);
		break;
	case PART_SPOOL:
		snprintf(buf, len, "%s/cluster/links.spool", dir);
		break;
	case PART_STORE:
	default: snprintf(buf, len, "%s/data.mdb", dir); break;
	}
}

/* The words for the failure: the system's, or the ceiling's. */
static void full_words(const struct crawl *c, char *buf, size_t len)
{
	if (c->full.err)
		snprintf(buf, len, "%s", strerror(c->full.err));
	else
		snprintf(buf, len,
			 "the store reached its ceiling, [store] max_size = "
			 "%llu bytes (MDB_MAP_FULL)",
			 (unsigned long long)c->o->store_max_bytes);
}

bool full_wait(struct crawl *c, int rc, int err, enum full_part part)
{
	if (!full_error(rc, err))
		return false;
	char path[sizeof(c->full.path)], words[256];
	full_path(c, part, path, sizeof(path));
	pthread_mutex_lock(&c->mu);
	bool was = c->full.on;
	c->full.on = true;
	c->full.err = rc == SC_E_FULL ? 0 : err;
	c->full.retry = false;
	snprintf(c->full.path, sizeof(c->full.path), "%s", path);
	c->full.free_at = c->full.err ? free_bytes(path) : 0;
	c->full.tick_at = c->ticks;
	if (!was) {
		c->full.since_ms = wall_ms();
		c->full.episodes++;
	}
	full_words(c, words, sizeof(words));
	if (!c->o->daemon) {
		/* A crawl ends: the same message every time, once. */
		if (!c->fatal) {
			c->fatal = rc;
			crawl_say(c, LOG_ERR, "%s: %s", path, words);
			crawl_say(c, LOG_ERR,
				  "the crawl stops; what was committed is "
				  "kept, and the pages of the last batch "
				  "are still queued.  %s, then run the same "
				  "command again to resume",
				  c->full.err ? "Free space on that filesystem"
					      : "Raise [store] max_size");
		}
		pthread_mutex_unlock(&c->mu);
		return false;
	}
	if (!was)
		crawl_say(c, LOG_ERR,
			  "%s: %s; fetching paused, waiting for space "
			  "(checked every second)",
			  path, words);
	event_active(c->wakeup, EV_READ, 0);
	while (!c->full.retry && !c->quit_writer)
		pthread_cond_wait(&c->write_cv, &c->mu);
	bool again = c->full.retry;
	c->full.retry = false;
	pthread_mutex_unlock(&c->mu);
	return again;
}

void full_clear(struct crawl *c)
{
	pthread_mutex_lock(&c->mu);
	bool was = c->full.on;
	c->full.on = false;
	c->full.retry = false;
	pthread_mutex_unlock(&c->mu);
	if (was && c->o->daemon) {
		crawl_say(c, LOG_NOTICE, "%s: space again; fetching resumes",
			  c->full.path);
		event_active(c->wakeup, EV_READ, 0);
	}
}

void full_tick(struct crawl *c)
{
	pthread_mutex_lock(&c->mu);
	if (!c->full.on || c->full.retry) {
		pthread_mutex_unlock(&c->mu);
		return;
	}
	char path[sizeof(c->full.path)];
	snprintf(path, sizeof(path), "%s", c->full.path);
	int err = c->full.err;
	uint64_t at = c->full.free_at, since = c->full.tick_at;
	pthread_mutex_unlock(&c->mu);
	/* The ceiling is the config's: only a restart with a larger one
	 * changes it. */
	if (!err)
		return;
	uint64_t now = free_bytes(path);
	bool retry = now >= at + FULL_RETRY_GAIN ||
		     c->ticks - since >= FULL_RETRY_EVERY_S;
	if (!retry)
		return;
	pthread_mutex_lock(&c->mu);
	c->full.retry = true;
	pthread_cond_broadcast(&c->write_cv);
	pthread_mutex_unlock(&c->mu);
}

bool full_now(struct crawl *c, struct crawl_full_status *ret)
{
	pthread_mutex_lock(&c->mu);
	bool on = c->full.on;
	if (ret) {
		memset(ret, 0, sizeof(*ret));
		ret->on = on;
		ret->episodes = c->full.episodes;
		if (on) {
			snprintf(ret->path, sizeof(ret->path), "%s",
				 c->full.path);
			full_words(c, ret->error, sizeof(ret->error));
			ret->since_ms = c->full.since_ms;
			ret->ceiling = c->full.err == 0;
		}
	}
	pthread_mutex_unlock(&c->mu);
	return on;
}
