/* cluster-node.h — the daemon as one shard of a cluster (SPEC §9,
 * docs/cluster.md): the other side of crawl.h's struct crawl_cluster.
 *
 * The writer hands it the new URLs of other shards before each commit;
 * they go to the spool (STORE/cluster/links.spool, fsync'd) and a thread
 * of the node's own publishes the spool to JetStream, fetches the batches
 * of this shard's subject, has the loop queue them (crawl_add_seeds(),
 * remote) and acks each batch once the writer committed it.  The same
 * thread puts the daemon's status into the status bucket.  The loop never
 * waits for NATS: it only trades batches and status documents with the
 * thread under a lock.  While NATS cannot be reached the daemon crawls its
 * own shard and the spool grows, up to its bound; then the writer waits
 * for room (the crawl slows to what NATS takes). */
#ifndef CLUSTER_NODE_H
#define CLUSTER_NODE_H

#include "conf.h"
#include "crawl.h"

struct cnode;

/* Open the spool in STORE_DIR/cluster and a connection to cf's servers
 * (which succeeds while none answers: it keeps trying).  Returns 0, or an
 * sc_err with err (errlen) saying why. */
SC_WUR int cnode_open(const struct conf *cf, const char *store_dir,
		      struct cnode **ret, char *err, size_t errlen);

/* What crawl_opts.cluster is to point to (valid until cnode_close()). */
const struct crawl_cluster *cnode_hooks(struct cnode *n);

/* The loop is about to run (the daemon's start hook): the options whose
 * categories and normalization the batches received take, and the
 * thread starts.  Returns 0 or SC_E_NOMEM. */
SC_WUR int cnode_start(struct cnode *n, struct crawl *c,
		       const struct crawl_opts *o);

/* A reload made o the running options (the loop's thread). */
void cnode_set_opts(struct cnode *n, const struct crawl_opts *o);

/* The one-second tick (the loop's thread): the status document, every
 * few seconds. */
void cnode_tick(struct cnode *n, struct crawl *c);

/* Every shard's status as the node last read it from NATS (every
 * STATUS_TICKS seconds, after putting its own): a malloc'ed JSON array,
 * "[]" before the first read; NULL when memory ran out. */
char *cnode_shards(struct cnode *n);

/* The shutdown began (the loop's thread): no more batches are taken; the
 * thread ends once what it handed over is answered. */
void cnode_stopping(struct cnode *n);

/* The loop is over (the daemon's finish hook): the thread is joined and
 * the event freed.  cnode_close() does it too when it was not done. */
void cnode_finish(struct cnode *n);

/* After crawl_run(): the thread is joined, what the spool holds is
 * published if NATS answers within a few seconds (else it stays for the
 * next start), and everything is freed.  NULL is fine. */
void cnode_close(struct cnode *n);

#endif
