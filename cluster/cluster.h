/* cluster.h — daemons sharing one crawl over NATS JetStream (SPEC §9,
 * docs/cluster.md): the shard of a host, the link batches that travel
 * between shards, an offline spool for batches NATS could not take, and
 * a small synchronous wrapper of the NATS C client (libnats) for the
 * links stream, its consumers and two key-value buckets.
 *
 * Nothing here owns an event loop: every call blocks at most for the time
 * it is given (or the request timeout of the options) and then returns.
 * libnats runs its own threads for the socket; the only code of ours they
 * run is the publish-failure handler, which appends to the spool (the
 * spool has a lock for that).
 *
 * Everything that arrives from NATS is treated as hostile: batches are
 * decoded with bounds and rejected whole when anything is wrong, values
 * of the key-value buckets are checked before they are returned.
 *
 * Errors are the project's codes (sc.h): SC_E_INVAL (a bad argument),
 * SC_E_NOMEM, SC_E_NET (NATS unreachable or a request refused;
 * cluster_last_error() has the words), SC_E_TIMEOUT, SC_E_CORRUPT (a
 * malformed batch or value), SC_E_LIMIT (a bound reached), SC_E_IO (the
 * spool's file; errno kept). */
#ifndef CLUSTER_H
#define CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sc.h"

/* ---- The shard of a host ------------------------------------------------
 *
 * A host belongs to shard
 *
 *     jump(XXH64(D, seed 0), shards)
 *
 * where D is the host lower-cased (ASCII) without a trailing dot, cut to
 * its registrable domain by the Public Suffix List built into libpsl
 * (psl_registrable_domain() on psl_builtin()), or the whole host when it
 * has none (an IP literal, a public suffix itself, a single label), and
 * jump() is Lamping and Veach's jump consistent hash ("A Fast, Minimal
 * Memory, Consistent Hash Algorithm", 2014).  Every host of one
 * registrable domain lands on one shard, so politeness, robots.txt and the
 * learned rules of a site stay on one daemon.  The result depends only on
 * the bytes of the host, the number of shards and the PSL compiled into
 * libpsl (a PSL update may move a domain whose suffix changed); adding a
 * shard moves only about 1/(shards) of the domains, all to the new one. */

#define CLUSTER_SHARDS_MAX 1024

/* The shard (0..shards-1) of the LEN bytes of HOST (no NUL needed; an
 * IPv6 literal with or without its brackets).  shards 0 counts as 1. */
uint32_t cluster_shard_of(const char *host, size_t len, uint32_t shards);

/* Jump consistent hash: the bucket (0..buckets-1) of KEY; buckets 0
 * counts as 1.  Exposed for the tests. */
uint32_t cluster_jump_hash(uint64_t key, uint32_t buckets);

/* ---- Link batches ----------------------------------------------------------
 *
 * One JetStream message carries one batch of links for one shard, in a
 * compact binary form (version 1, all integers big-endian):
 *
 *     "SCLB"  version:u8 = 1  flags:u8 = 0  count:u16 (1..LINKS_MAX)
 *     id: 16 bytes
 *     count times: depth:u16  cat_len:u8 (1..40) category
 *                  url_len:u16 (1..URL_MAX) url
 *
 * and nothing after the last link.  A category is 1..40 of A-Z a-z 0-9
 * . _ - (conf's rule); a URL is 1..CLUSTER_URL_MAX printable ASCII bytes
 * (0x21..0x7e: normalized URLs are percent-encoded).  The id names the
 * batch wherever it goes: it is the Nats-Msg-Id of the message, so that
 * JetStream stores a republished batch once within its duplicate window. */

#define CLUSTER_BATCH_ID_LEN 16
#define CLUSTER_BATCH_LINKS_MAX 1000
#define CLUSTER_BATCH_BYTES_MAX (256 * 1024)
#define CLUSTER_URL_MAX 2048
#define CLUSTER_CATEGORY_MAX 40

struct cluster_link {
	const char *url; /* NUL-terminated in a decoded batch */
	size_t url_len;
	const char *category; /* NUL-terminated in a decoded batch */
	size_t category_len;
	uint16_t depth; /* hops from the seed */
};

/* A decoded batch.  Its links and their strings belong to it. */
struct cluster_batch {
	unsigned char id[CLUSTER_BATCH_ID_LEN];
	size_t n;
	struct cluster_link *links;
};

/* A new batch id: the origin shard (4 bytes) and 12 random bytes. */
void cluster_batch_id_new(uint32_t origin_shard,
			  unsigned char id[CLUSTER_BATCH_ID_LEN]);

/* Encode N links (1..CLUSTER_BATCH_LINKS_MAX) under ID into OUT, which is
 * reset first; its cap must allow CLUSTER_BATCH_BYTES_MAX.  Returns 0,
 * SC_E_INVAL (a link breaks a rule above), SC_E_LIMIT (more than
 * CLUSTER_BATCH_BYTES_MAX bytes) or SC_E_NOMEM. */
SC_WUR int cluster_batch_encode(const unsigned char id[CLUSTER_BATCH_ID_LEN],
				const struct cluster_link *links, size_t n,
				struct sc_dynbuf *out);

/* Decode LEN bytes at DATA.  *ret is a new batch (cluster_batch_free()).
 * Returns 0, SC_E_CORRUPT (anything malformed: a short or long message, a
 * bad magic, version or count, a field out of its rules, trailing bytes)
 * or SC_E_NOMEM. */
SC_WUR int cluster_batch_decode(const void *data, size_t len,
				struct cluster_batch **ret);

/* Free a batch.  NULL is fine. */
void cluster_batch_free(struct cluster_batch *b);

/* ---- The offline spool
 * -------------------------------------------------------
 *
 * Batches that could not be published (NATS unreachable) wait in one
 * append-only file, DIR/links.spool: an 8-byte header "SCSPOOL1", then
 * records of
 *
 *     length:u32  check:u32  shard:u32  batch (length bytes)
 *
 * where check is XXH32 (seed 0) of the shard's 4 bytes and the batch.
 * Every append is written with one write() and fsync'd before it returns.
 * Opening the spool reads it through: a last record cut short or failing
 * its check (a write torn by kill -9 or a crash) is cut off and counted,
 * not an error; a record that fails in the middle cuts off everything
 * after it too, since the length fields after it cannot be trusted.  The
 * file never grows past max_bytes.  Appends may come from any thread
 * (libnats's error handler appends); replay and drop belong to one thread,
 * the spool's owner, since a drop moves the records a replay walks. */

struct cluster_spool;

/* Open (creating DIR/links.spool if needed; DIR must exist) a spool of at
 * most MAX_BYTES bytes (at least 64 KiB).  Returns 0, SC_E_INVAL,
 * SC_E_IO, SC_E_CORRUPT (the file is not a spool: its header is another)
 * or SC_E_NOMEM. */
SC_WUR int cluster_spool_open(const char *dir, uint64_t max_bytes,
			      struct cluster_spool **ret);

/* Append one batch for SHARD and fsync.  Returns 0, SC_E_INVAL (LEN 0 or
 * over CLUSTER_BATCH_BYTES_MAX), SC_E_LIMIT (the spool would pass its
 * bound: nothing written) or SC_E_IO.  Thread-safe. */
SC_WUR int cluster_spool_append(struct cluster_spool *s, uint32_t shard,
				const void *batch, size_t len);

/* Called by cluster_spool_replay() for each record in order; a non-zero
 * return stops the replay and is returned by it. */
typedef int (*cluster_spool_fn)(void *arg, uint32_t shard, const void *batch,
				size_t len);

/* Call FN for each record in the order they were appended; *n_done (may
 * be NULL) counts the records for which FN returned 0.  The records stay:
 * cluster_spool_drop() removes them once they are safe elsewhere.
 * Records appended meanwhile (by another thread) may or may not be seen.
 * Returns 0, FN's code, SC_E_IO or SC_E_NOMEM. */
SC_WUR int cluster_spool_replay(struct cluster_spool *s, cluster_spool_fn fn,
				void *arg, size_t *n_done);

/* Remove the first N records (all of them when N is at least their
 * number): the file is truncated to its header, or the rest is copied to
 * a new file that replaces it (fsync'd, renamed).  Returns 0 or SC_E_IO.
 * Thread-safe. */
SC_WUR int cluster_spool_drop(struct cluster_spool *s, size_t n);

/* Records held, bytes of the file, and bytes cut off as torn when it was
 * opened. */
size_t cluster_spool_records(struct cluster_spool *s);
uint64_t cluster_spool_bytes(struct cluster_spool *s);
uint64_t cluster_spool_torn_bytes(const struct cluster_spool *s);

/* Close.  NULL is fine. */
void cluster_spool_close(struct cluster_spool *s);

/* ---- NATS JetStream ---------------------------------------------------------
 *
 * Names (docs/cluster.md):
 *   stream  SIGCRAWL_LINKS, subjects sigcrawl.links.*, file storage,
 *           work-queue retention (a batch is deleted once acked), limits
 *           max message size, max age, optional max bytes, a duplicate
 *           window for Nats-Msg-Id
 *   subject sigcrawl.links.<shard>, the batches for one shard
 *   consumer shard-<shard>, durable pull, filter sigcrawl.links.<shard>,
 *           explicit ack, ack wait, max ack pending, unlimited deliveries
 *   KV      sigcrawl-sigs: key = 32 hex digits of an exact signature,
 *           value = the URL that claimed it (history 1)
 *   KV      sigcrawl-status: key = shard-<shard>, value = a JSON object
 *           (history 1) */

#define CLUSTER_STREAM "SIGCRAWL_LINKS"
#define CLUSTER_SUBJECT_PREFIX "sigcrawl.links."
#define CLUSTER_SIGS_BUCKET "sigcrawl-sigs"
#define CLUSTER_STATUS_BUCKET "sigcrawl-status"
#define CLUSTER_SERVERS_MAX 16
#define CLUSTER_SERVER_URL_MAX 128
#define CLUSTER_NAME_MAX 64
#define CLUSTER_STATUS_MAX (64 * 1024)
#define CLUSTER_SIG_LEN 16

struct cluster_opts {
	/* 1..CLUSTER_SERVERS_MAX nats://HOST:PORT URLs of at most
	 * CLUSTER_SERVER_URL_MAX bytes.  Borrowed for the call. */
	const char *const *servers;
	size_t n_servers;
	/* The connection's name as servers show it (1..CLUSTER_NAME_MAX
	 * printable ASCII bytes), e.g. "sigcrawl shard 2". */
	const char *name;
	/* 0 takes the default in brackets. */
	unsigned connect_timeout_ms; /* [2000] one TCP connect */
	unsigned reconnect_wait_ms;  /* [1000] between tries to a server */
	unsigned request_timeout_ms; /* [5000] JetStream API, KV, acks */
	unsigned replicas;           /* [1] 1..5: 3 on a 3-node cluster */
	unsigned max_pending;        /* [256] async publishes in flight */
	unsigned ack_wait_ms;        /* [30000] before a redelivery */
	unsigned max_ack_pending;    /* [1000] per consumer */
	unsigned max_age_s;          /* [7 days] links older are dropped */
	uint64_t stream_max_bytes;   /* [0 = no bound] */
	unsigned duplicate_window_s; /* [600] Nats-Msg-Id deduplication */
	/* Where batches go that cannot be published, or NULL (then such a
	 * publish is an error).  Borrowed: it must outlive the handle. */
	struct cluster_spool *spool;
};

struct cluster;
struct cluster_consumer;
struct cluster_delivery;

/* Connect.  The connection reconnects forever (reconnect_wait_ms between
 * tries) and an open succeeds even when no server answers yet: the
 * library keeps trying, and cluster_connected() says when it is up.
 * Returns 0, SC_E_INVAL (a bad option; err says which), SC_E_NOMEM or
 * SC_E_NET.  err (errlen > 0) gets one line on failure. */
SC_WUR int cluster_open(const struct cluster_opts *o, struct cluster **ret,
			char *err, size_t errlen);

/* Close the connection and free the handle.  Publishes not yet acked are
 * spooled when there is a spool.  NULL is fine. */
void cluster_close(struct cluster *c);

/* Whether the connection is up now. */
bool cluster_connected(struct cluster *c);

/* The words of the last SC_E_NET or SC_E_TIMEOUT of this handle's calls
 * (from libnats and JetStream), or "".  Valid until the next call. */
const char *cluster_last_error(struct cluster *c);

/* Create the links stream and the two buckets, or check they exist (an
 * existing stream's limits are updated to the options).  Needs a
 * JetStream meta leader: right after a cluster starts this may fail with
 * SC_E_NET for a few seconds; call it again.  Returns 0 or SC_E_NET. */
SC_WUR int cluster_setup(struct cluster *c);

/* Publish one encoded batch (checked with cluster_batch_decode()) to
 * SHARD's subject without waiting for the ack; at most max_pending are in
 * flight, past that the call waits for acks.  When the connection is down,
 * or the publish cannot be sent, the batch goes to the spool and *spooled
 * (may be NULL) is set.  Returns 0, SC_E_INVAL, SC_E_CORRUPT (not a
 * batch), SC_E_NET (no spool, or the spool failed) or SC_E_LIMIT (the
 * spool is full). */
SC_WUR int cluster_publish(struct cluster *c, uint32_t shard, const void *batch,
			   size_t len, bool *spooled);

/* Wait up to TIMEOUT_MS for the acks of every publish in flight.  Batches
 * that failed (the error handler) or are still unacked at the deadline go
 * to the spool when there is one.  Returns 0 when all were acked,
 * SC_E_NET when some failed, SC_E_TIMEOUT when some were not acked. */
SC_WUR int cluster_publish_wait(struct cluster *c, unsigned timeout_ms);

/* Publish the spool's records in order and wait for their acks (up to
 * TIMEOUT_MS); only then are they dropped from the spool.  A partial
 * failure drops nothing: the records are published again by the next
 * flush, and JetStream deduplicates those it already has (by batch id,
 * within the duplicate window).  *n (may be NULL) is the records
 * published.  Returns 0, SC_E_NET (not connected, or a publish failed),
 * SC_E_TIMEOUT or SC_E_IO. */
SC_WUR int cluster_flush_spool(struct cluster *c, unsigned timeout_ms,
			       size_t *n);

/* How many batches the links stream holds: those not yet acked by their
 * shard (delivered or not).  Returns 0 or SC_E_NET. */
SC_WUR int cluster_stream_msgs(struct cluster *c, uint64_t *msgs);

/* The durable pull consumer shard-SHARD (created if needed).  Returns 0,
 * SC_E_INVAL or SC_E_NET. */
SC_WUR int cluster_consumer_open(struct cluster *c, uint32_t shard,
				 struct cluster_consumer **ret);

/* Close the subscription; the durable consumer stays on the servers, and
 * what it delivered unacked is delivered again after the ack wait.  NULL
 * is fine. */
void cluster_consumer_close(struct cluster_consumer *cs);

/* Fetch up to MAX (1..1000) batches, waiting up to TIMEOUT_MS for the
 * first.  out[0..*n-1] are the deliveries, each to be acked (after the
 * caller's commit), nak'ed, or freed unacked (then delivered again after
 * the ack wait).  A message that is not a valid batch is terminated
 * (AckTerm: never delivered again, since a malformed message stays
 * malformed) and counted in *rejected (may be NULL).  Returns 0 (also
 * with *n 0 when nothing came), SC_E_INVAL, SC_E_NOMEM or SC_E_NET. */
SC_WUR int cluster_fetch(struct cluster_consumer *cs, size_t max,
			 unsigned timeout_ms, struct cluster_delivery **out,
			 size_t *n, size_t *rejected);

/* The batch of a delivery, owned by it. */
const struct cluster_batch *
cluster_delivery_batch(const struct cluster_delivery *d);

/* How often JetStream has delivered it (1 the first time). */
uint64_t cluster_delivery_count(const struct cluster_delivery *d);

/* Ack, waiting for the server's confirmation: after a 0 the batch is
 * gone from the stream.  Returns 0, SC_E_NET or SC_E_TIMEOUT (the ack
 * may have been lost: the batch may come again). */
SC_WUR int cluster_delivery_ack(struct cluster_delivery *d);

/* Ask for a redelivery now.  Returns 0 or SC_E_NET. */
SC_WUR int cluster_delivery_nak(struct cluster_delivery *d);

/* Free a delivery (acked or not).  NULL is fine. */
void cluster_delivery_free(struct cluster_delivery *d);

/* Claim the exact signature SIG for URL (1..CLUSTER_URL_MAX printable
 * bytes) in sigcrawl-sigs: created only if absent, so of any number of
 * claims exactly one wins.  *claimed says whether this one did; if not,
 * OWNER (OWNER_LEN bytes, at least CLUSTER_URL_MAX + 1) gets the winner's
 * URL.  Returns 0, SC_E_INVAL, SC_E_CORRUPT (the stored value is not a
 * URL) or SC_E_NET. */
SC_WUR int cluster_claim_signature(struct cluster *c,
				   const unsigned char sig[CLUSTER_SIG_LEN],
				   const char *url, size_t url_len,
				   bool *claimed, char *owner,
				   size_t owner_len);

/* Put SHARD's status document: a JSON object (it must start with '{' and
 * end with '}', 2..CLUSTER_STATUS_MAX bytes, no NUL or control bytes
 * other than white space).  Returns 0, SC_E_INVAL or SC_E_NET. */
SC_WUR int cluster_status_put(struct cluster *c, uint32_t shard,
			      const char *json, size_t len);

struct cluster_status {
	uint32_t shard;
	char *json; /* NUL-terminated, owned by the list */
	size_t len;
};

/* Every shard's status, in shard order: *ret is a new array of *n
 * (cluster_status_list_free()).  With SHARDS (1..CLUSTER_SHARDS_MAX) the
 * keys shard-0..shard-SHARDS-1 are read one by one, which works while a
 * node of the cluster is down; with 0 the bucket's keys are listed, which
 * may time out then.  The bucket is never created here (cluster_setup()
 * does): without it the list is empty.  Keys that are not shard-N and
 * values that fail the put's rules are skipped.  Returns 0, SC_E_INVAL,
 * SC_E_NOMEM or SC_E_NET. */
SC_WUR int cluster_status_list(struct cluster *c, uint32_t shards,
			       struct cluster_status **ret, size_t *n);

void cluster_status_list_free(struct cluster_status *list, size_t n);

#endif
