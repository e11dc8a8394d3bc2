/* cluster-node.c — the daemon as one shard of a cluster (cluster-node.h).
 *
 * Three threads meet here.  The writer calls node_send() before each
 * commit: the batch's URLs of other shards, encoded per shard and
 * appended to the spool (fsync'd).  The node's thread publishes the spool,
 * fetches this shard's batches and puts the status document; everything it
 * takes from NATS goes to the loop through an inbox and an event, and the
 * loop queues it with crawl_add_seeds() (remote) and says when the writer
 * committed it, so that the thread acks after the commit and not before:
 * a crash redelivers, and the seen set makes a redelivery harmless. */
#include "cluster-node.h"

#include <errno.h>
#include <event2/event.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cluster.h"
#include "daemon.h"
#include "log.h"

/* The spool's bound: links that wait for NATS, on disk. */
#define SPOOL_MAX_BYTES (256ull * 1024 * 1024)
/* Batches fetched at a time, and how long a fetch waits for the first. */
#define FETCH_MAX 16
#define FETCH_WAIT_MS 500
/* The status document goes out every this many ticks. */
#define STATUS_TICKS 2
/* Threads (each with its own connection) that claim a batch's
 * signatures at once. */
#define CLAIMERS 8

/* A batch from NATS, on its way through the loop and the writer. */
struct item {
	struct item *next;
	struct cnode *n;
	struct cluster_delivery *d;
	/* Its links by category, each a crawl_add_seeds() batch. */
	struct group {
		struct crawl_seeds cs;
		char **url, **found;
		struct norm_url *u, *found_u;
		uint16_t *depth;
		int8_t *added;
	} * groups;
	size_t n_groups;
	unsigned pending; /* groups not yet done() */
	int rc;           /* the first failure of a group */
	enum { ITEM_POSTED, ITEM_TAKEN, ITEM_DONE } state;
	uint64_t dropped; /* links no category of this daemon takes */
};

struct cnode {
	uint32_t shards, shard;
	struct crawl_cluster hooks;
	struct cluster_spool *spool;
	struct cluster *nc;
	struct cluster_consumer *cs;
	/* The claimers: each a thread and a connection of its own (the
	 * wrapper's handle is one thread's at a time).  The writer hands
	 * them a batch (work, n_work) under cmu; they take claims by index
	 * (next) and count them answered (answered). */
	struct claimer {
		struct cnode *n;
		struct cluster *nc;
		pthread_t t;
		bool running;
		/* Its last wait for the connection ran out, or its last
		 * claim failed every try: the next claims do not wait or
		 * try again until one goes through (claim_one()). */
		bool lost, failing;
	} claimers[CLAIMERS];
	pthread_mutex_t cmu;
	pthread_cond_t cwork, cdone;
	struct crawl_cluster_claim *work;
	size_t n_work, next, answered;
	bool cquit;
	char name[CLUSTER_NAME_MAX + 1];

	pthread_mutex_t mu;
	pthread_cond_t cv;
	/* Under mu: */
	struct crawl *c;
	const struct crawl_opts *o; /* the loop's; read on the loop only */
	struct item *inbox, **inbox_tail;
	struct event *inbox_ev;
	bool stopping, finishing, started;
	char *status; /* the next status document for the thread, or NULL */
	/* Every shard's status as the thread last read it from NATS: a JSON
	 * array (cnode_shards()), or NULL before the first read. */
	char *shards_json;
	uint64_t spooled_batches, published, received_batches, acked, rejected,
		dropped;

	pthread_t thread;
	struct sc_dynbuf enc; /* the writer's */
};

/* ---- The writer's side ------------------------------------------------ */

static int spool_batch(struct cnode *n, uint32_t shard,
		       const struct cluster_link *l, size_t k)
{
	unsigned char id[CLUSTER_BATCH_ID_LEN];
	cluster_batch_id_new(n->shard, id);
	int rc = cluster_batch_encode(id, l, k, &n->enc);
	if (rc == SC_E_LIMIT && k > 1) {
		/* Too many bytes for one message: halves. */
		rc = spool_batch(n, shard, l, k / 2);
		return rc ? rc : spool_batch(n, shard, l + k / 2, k - k / 2);
	}
	if (rc)
		return rc;
	/* The bound reached: NATS has been away long enough for the spool
	 * to fill.  Wait for room, which the thread makes as it publishes;
	 * the crawl slows down to what NATS takes meanwhile. */
	unsigned waited = 0;
	while ((rc = cluster_spool_append(n->spool, shard, n->enc.p,
					  n->enc.len)) == SC_E_LIMIT) {
		if (waited++ % 300 == 0)
			log_msg(LOG_WARNING,
				"cluster: the spool is full (%llu bytes): "
				"waiting for NATS to take it",
				(unsigned long long)cluster_spool_bytes(
					n->spool));
		pthread_mutex_lock(&n->mu);
		bool finishing = n->finishing;
		pthread_cond_broadcast(&n->cv);
		pthread_mutex_unlock(&n->mu);
		if (finishing)
			return SC_E_LIMIT;
		struct timespec ts = { 0, 200 * 1000000L };
		nanosleep(&ts, NULL);
	}
	if (!rc) {
		pthread_mutex_lock(&n->mu);
		n->spooled_batches++;
		pthread_cond_broadcast(&n->cv);
		pthread_mutex_unlock(&n->mu);
	}
	return rc;
}

/* crawl_cluster.send(): the links grouped by shard (a stable order of
 * shards, the links in the writer's order within each), batches of at
 * most CLUSTER_BATCH_LINKS_MAX, each spooled. */
static int node_send(void *arg, const struct crawl_cluster_link *links,
		     size_t n_links)
{
	struct cnode *n = arg;
	const struct crawl_opts *o;
	pthread_mutex_lock(&n->mu);
	o = n->o;
	pthread_mutex_unlock(&n->mu);
	struct cluster_link *v = malloc((n_links < CLUSTER_BATCH_LINKS_MAX
						 ? n_links
						 : CLUSTER_BATCH_LINKS_MAX) *
					sizeof(*v));
	bool *done = calloc(n_links, sizeof(*done));
	int rc = v && done ? 0 : SC_E_NOMEM;
	for (size_t i = 0; i < n_links && !rc; i++) {
		if (done[i])
			continue;
		uint32_t shard = links[i].shard;
		size_t k = 0;
		for (size_t j = i; j < n_links && !rc; j++) {
			if (done[j] || links[j].shard != shard)
				continue;
			done[j] = true;
			const struct crawl_cluster_link *l = &links[j];
			const char *cat =
				l->category < o->n_categories
					? o->categories[l->category].name
					: NULL;
			if (!cat)
				continue;
			v[k++] = (struct cluster_link){
				.url = l->url,
				.url_len = l->len,
				.category = cat,
				.category_len = strlen(cat),
				.depth = l->depth,
			};
			if (k == CLUSTER_BATCH_LINKS_MAX) {
				rc = spool_batch(n, shard, v, k);
				k = 0;
			}
		}
		if (k && !rc)
			rc = spool_batch(n, shard, v, k);
	}
	free(v);
	free(done);
	if (rc)
		log_msg(LOG_ERR,
			"cluster: cannot spool links for other "
			"shards: %s",
			sc_strerror(rc));
	return rc;
}

/* How long a claim waits for its claimer's connection while the node's
 * own is up, and how often a claim refused by an error is tried.  The
 * claimers connect apart from the node, each on its own reconnect
 * cycle: when NATS comes up with the daemons, one may connect a second
 * or two after the node reported to NATS; and a claim's request can
 * fail on a cluster that has just formed.  A page whose claim was not
 * made stays its shard's representative for good, a second one in the
 * cluster (suspected in test-cluster-crawl.sh's twins check, which
 * failed once: 3 representatives; not reproduced since).  With NATS
 * away (the node's connection down too) nothing waits: the shard keeps
 * its own representatives, as documented. */
#define CLAIM_CONNECT_WAIT_MS 5000
#define CLAIM_TRIES 3

static void sleep_ms(struct cnode *n, unsigned ms);

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static bool node_finishing(struct cnode *n)
{
	pthread_mutex_lock(&n->mu);
	bool f = n->finishing;
	pthread_mutex_unlock(&n->mu);
	return f;
}

/* Is the claimer's connection up, or did it come up within the wait?
 * One that did not is not waited for again until it is up: a claimer
 * answers many claims of a batch in turn. */
static bool claimer_connected(struct claimer *cl)
{
	struct cnode *n = cl->n;
	uint64_t start = mono_ms(), waited = 0;
	while (!cluster_connected(cl->nc)) {
		if (cl->lost || waited >= CLAIM_CONNECT_WAIT_MS ||
		    !cluster_connected(n->nc) || node_finishing(n)) {
			/* With NATS away that is every page, and expected;
			 * with the daemon's own connection up, a second
			 * representative in the cluster. */
			if (!cl->lost)
				log_msg(cluster_connected(n->nc) ? LOG_WARNING
								 : LOG_INFO,
					"cluster: signature claims: no "
					"connection to NATS; pages are this "
					"shard's representatives until it is "
					"back");
			cl->lost = true;
			return false;
		}
		sleep_ms(n, 50);
		waited = mono_ms() - start;
	}
	if (waited)
		log_msg(LOG_INFO,
			"cluster: a claim waited %llu ms for its connection",
			(unsigned long long)waited);
	cl->lost = false;
	return true;
}

/* One claim, on the claimer's connection. */
static void claim_one(struct claimer *cl, struct crawl_cluster_claim *w)
{
	char who[CLUSTER_URL_MAX + 1];
	bool claimed = true;
	w->elsewhere = false;
	if (w->len > CLUSTER_URL_MAX || !claimer_connected(cl))
		return;
	unsigned tries = cl->failing ? 1 : CLAIM_TRIES;
	for (unsigned t = 1;; t++) {
		if (!cluster_claim_signature(cl->nc, w->sig, w->url, w->len,
					     &claimed, who, sizeof(who)))
			break;
		if (t >= tries || !cluster_connected(cl->nc) ||
		    node_finishing(cl->n)) {
			if (!cl->failing)
				log_msg(LOG_WARNING,
					"cluster: signature claim (%u tries): "
					"%s; pages are this shard's "
					"representatives until a claim goes "
					"through",
					t, cluster_last_error(cl->nc));
			cl->failing = true;
			return;
		}
		sleep_ms(cl->n, 100u << t);
	}
	cl->failing = false;
	size_t wl = strlen(who);
	if (claimed || wl >= w->cap ||
	    (wl == w->len && !memcmp(who, w->url, wl)))
		return;
	memcpy(w->owner, who, wl + 1);
	w->elsewhere = true;
}

static void *claimer_main(void *arg)
{
	struct claimer *cl = arg;
	struct cnode *n = cl->n;
	pthread_mutex_lock(&n->cmu);
	for (;;) {
		while (!n->cquit && (!n->work || n->next >= n->n_work))
			pthread_cond_wait(&n->cwork, &n->cmu);
		if (n->cquit)
			break;
		struct crawl_cluster_claim *w = &n->work[n->next++];
		pthread_mutex_unlock(&n->cmu);
		claim_one(cl, w);
		pthread_mutex_lock(&n->cmu);
		if (++n->answered == n->n_work)
			pthread_cond_signal(&n->cdone);
	}
	pthread_mutex_unlock(&n->cmu);
	return NULL;
}

/* crawl_cluster.claim() (the writer's thread): the claimers share the
 * batch; it returns when every claim is answered. */
static void node_claim(void *arg, struct crawl_cluster_claim *v, size_t k)
{
	struct cnode *n = arg;
	pthread_mutex_lock(&n->cmu);
	n->work = v;
	n->n_work = k;
	n->next = n->answered = 0;
	pthread_cond_broadcast(&n->cwork);
	while (n->answered < k)
		pthread_cond_wait(&n->cdone, &n->cmu);
	n->work = NULL;
	n->n_work = 0;
	pthread_mutex_unlock(&n->cmu);
}

/* ---- The loop's side --------------------------------------------------- */

static void item_free(struct item *it)
{
	for (size_t g = 0; g < it->n_groups; g++) {
		struct group *gr = &it->groups[g];
		for (size_t i = 0; i < gr->cs.n; i++) {
			free(gr->url[i]);
			free(gr->found[i]);
		}
		free(gr->url);
		free(gr->found);
		free(gr->u);
		free(gr->found_u);
		free(gr->depth);
		free(gr->added);
	}
	free(it->groups);
	cluster_delivery_free(it->d);
	free(it);
}

/* One of the item's groups is answered (rc: its commit's): the last one
 * wakes the thread. */
static void item_settle(struct item *it, int rc)
{
	struct cnode *n = it->n;
	pthread_mutex_lock(&n->mu);
	if (rc && !it->rc)
		it->rc = rc;
	if (--it->pending == 0) {
		it->state = ITEM_DONE;
		pthread_cond_broadcast(&n->cv);
	}
	pthread_mutex_unlock(&n->mu);
}

static void group_done(struct crawl_seeds *cs, int rc, void *arg)
{
	(void)cs;
	item_settle(arg, rc);
}

static char *dup_n(const char *s, size_t len)
{
	char *p = malloc(len + 1);
	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

/* The links of one batch into groups by category (this daemon's index),
 * normalized again as any URL from outside is.  Links of a category this
 * daemon does not have are dropped and counted. */
static int item_groups(struct item *it, const struct crawl_opts *o)
{
	const struct cluster_batch *b = cluster_delivery_batch(it->d);
	size_t nc = o->n_categories;
	size_t *count = calloc(nc ? nc : 1, sizeof(*count));
	int *cat = malloc((b->n ? b->n : 1) * sizeof(*cat));
	int rc = count && cat ? 0 : SC_E_NOMEM;
	for (size_t i = 0; i < b->n && !rc; i++) {
		cat[i] = -1;
		for (size_t k = 0; k < nc; k++)
			if (strcmp(o->categories[k].name,
				   b->links[i].category) == 0) {
				cat[i] = (int)k;
				count[k]++;
				break;
			}
		it->dropped += cat[i] < 0;
	}
	size_t ng = 0;
	for (size_t k = 0; k < nc && !rc; k++)
		ng += count[k] > 0;
	if (!rc && ng && !(it->groups = calloc(ng, sizeof(*it->groups))))
		rc = SC_E_NOMEM;
	char url[NORM_URL_MAX + 1], found[NORM_URL_MAX + 1];
	for (size_t k = 0; k < nc && !rc; k++) {
		if (!count[k])
			continue;
		struct group *g = &it->groups[it->n_groups++];
		size_t m = count[k];
		g->url = calloc(m, sizeof(*g->url));
		g->found = calloc(m, sizeof(*g->found));
		g->u = calloc(m, sizeof(*g->u));
		g->found_u = calloc(m, sizeof(*g->found_u));
		g->depth = calloc(m, sizeof(*g->depth));
		g->added = calloc(m, sizeof(*g->added));
		if (!g->url || !g->found || !g->u || !g->found_u || !g->depth ||
		    !g->added) {
			rc = SC_E_NOMEM;
			break;
		}
		size_t j = 0;
		for (size_t i = 0; i < b->n && !rc; i++) {
			if (cat[i] != (int)k)
				continue;
			const struct cluster_link *l = &b->links[i];
			if (crawl_seed_url(&o->norm, l->url, l->url_len, url,
					   &g->u[j], found,
					   &g->found_u[j]) != 0) {
				it->dropped++;
				continue;
			}
			g->url[j] = dup_n(url, g->u[j].len);
			g->found[j] = dup_n(found, g->found_u[j].len);
			if (!g->url[j] || !g->found[j]) {
				free(g->url[j]);
				free(g->found[j]);
				rc = SC_E_NOMEM;
				break;
			}
			g->depth[j] = l->depth;
			j++;
		}
		g->cs = (struct crawl_seeds){
			.category = (uint16_t)k,
			.n = j,
			.url = (const char **)g->url,
			.found = (const char **)g->found,
			.u = g->u,
			.found_u = g->found_u,
			.depth = g->depth,
			.remote = true,
			.added = g->added,
			.done = group_done,
			.arg = it,
		};
	}
	free(count);
	free(cat);
	return rc;
}

/* The inbox's event (the loop's thread): queue what the thread fetched. */
static void on_inbox(evutil_socket_t fd, short kind, void *arg)
{
	struct cnode *n = arg;
	(void)fd;
	(void)kind;
	for (;;) {
		pthread_mutex_lock(&n->mu);
		struct item *it = n->inbox;
		if (it) {
			n->inbox = it->next;
			if (!n->inbox)
				n->inbox_tail = &n->inbox;
			it->state = ITEM_TAKEN;
		}
		pthread_mutex_unlock(&n->mu);
		if (!it)
			return;
		int rc = item_groups(it, n->o);
		/* Every group goes to the writer before any done() can
		 * come (they come on this thread, later). */
		it->pending = 1;
		for (size_t g = 0; g < it->n_groups && !rc; g++) {
			if (!it->groups[g].cs.n)
				continue;
			int r = crawl_add_seeds(n->c, &it->groups[g].cs);
			if (r)
				rc = r;
			else
				it->pending++;
		}
		item_settle(it, rc);
	}
}

/* ---- The node's thread ------------------------------------------------- */

/* Every shard's status from NATS, as the dashboard shows them: an
 * array of {"shard", "connected", "state", "pages", "queue", "rate",
 * "links_sent", "links_received"}, kept for cnode_shards().  On the
 * node's thread, after it put its own (every STATUS_TICKS seconds). */
static void read_shards(struct cnode *n)
{
	struct cluster_status *list = NULL;
	size_t k = 0;
	if (cluster_status_list(n->nc, n->shards, &list, &k))
		return;
	json_t *a = json_array();
	for (size_t i = 0; a && i < k; i++) {
		json_t *doc = json_loadb(list[i].json, list[i].len, 0, NULL);
		json_t *st = json_object_get(doc, "status");
		json_t *links = json_object_get(doc, "links");
		json_t *o = json_pack(
			"{s:I,s:O?,s:O?,s:O?,s:O?,s:O?,s:O?,s:O?}", "shard",
			(json_int_t)list[i].shard, "connected",
			json_object_get(doc, "connected"), "state",
			json_object_get(st, "state"), "pages",
			json_object_get(st, "pages"), "queue",
			json_object_get(st, "queue"), "rate",
			json_object_get(st, "rate"), "links_sent",
			json_object_get(links, "sent"), "links_received",
			json_object_get(links, "received"));
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			a = NULL;
		}
		json_decref(doc);
	}
	cluster_status_list_free(list, k);
	char *text = a ? json_dumps(a, JSON_COMPACT) : NULL;
	json_decref(a);
	if (!text)
		return;
	pthread_mutex_lock(&n->mu);
	free(n->shards_json);
	n->shards_json = text;
	pthread_mutex_unlock(&n->mu);
}

char *cnode_shards(struct cnode *n)
{
	pthread_mutex_lock(&n->mu);
	char *s = strdup(n->shards_json ? n->shards_json : "[]");
	pthread_mutex_unlock(&n->mu);
	return s;
}

static void sleep_ms(struct cnode *n, unsigned ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&n->mu);
	if (!n->finishing)
		pthread_cond_timedwait(&n->cv, &n->mu, &ts);
	pthread_mutex_unlock(&n->mu);
}

/* Hand the deliveries to the loop, wait for their commits, ack them.
 * Returns with every delivery freed. */
static void take(struct cnode *n, struct cluster_delivery **d, size_t k)
{
	struct item *items[FETCH_MAX] = { 0 };
	pthread_mutex_lock(&n->mu);
	for (size_t i = 0; i < k; i++) {
		struct item *it = calloc(1, sizeof(*it));
		if (!it) {
			cluster_delivery_free(d[i]); /* comes again */
			continue;
		}
		it->n = n;
		it->d = d[i];
		*n->inbox_tail = it;
		n->inbox_tail = &it->next;
		items[i] = it;
		n->received_batches++;
	}
	event_active(n->inbox_ev, EV_READ, 0);
	for (size_t i = 0; i < k; i++) {
		struct item *it = items[i];
		if (!it)
			continue;
		while (it->state != ITEM_DONE &&
		       !(n->finishing && it->state == ITEM_POSTED))
			pthread_cond_wait(&n->cv, &n->mu);
		if (it->state == ITEM_POSTED) {
			/* The loop is over before it took it: it comes
			 * again after the ack wait. */
			struct item **p = &n->inbox;
			while (*p != it)
				p = &(*p)->next;
			*p = it->next;
			if (!n->inbox)
				n->inbox_tail = &n->inbox;
			items[i] = NULL;
			item_free(it);
			continue;
		}
		n->dropped += it->dropped;
	}
	pthread_mutex_unlock(&n->mu);
	for (size_t i = 0; i < k; i++) {
		struct item *it = items[i];
		if (!it)
			continue;
		if (it->rc) {
			/* Not committed: it comes again. */
			log_msg(LOG_WARNING,
				"cluster: a batch was not queued (%s): it "
				"will be delivered again",
				sc_strerror(it->rc));
		} else if (cluster_delivery_ack(it->d) == 0) {
			pthread_mutex_lock(&n->mu);
			n->acked++;
			pthread_mutex_unlock(&n->mu);
		}
		item_free(it);
	}
}

static void *node_main(void *arg)
{
	struct cnode *n = arg;
	bool ready = false, said_down = false;
	for (;;) {
		pthread_mutex_lock(&n->mu);
		bool stopping = n->stopping, finishing = n->finishing;
		char *status = n->status;
		n->status = NULL;
		pthread_mutex_unlock(&n->mu);
		if (finishing) {
			free(status);
			break;
		}
		if (!cluster_connected(n->nc)) {
			if (!said_down) {
				log_msg(LOG_WARNING,
					"cluster: NATS cannot be reached: "
					"links for other shards wait in the "
					"spool");
				said_down = true;
			}
			free(status);
			sleep_ms(n, 500);
			continue;
		}
		if (said_down) {
			log_msg(LOG_NOTICE, "cluster: NATS is back");
			said_down = false;
		}
		if (!ready) {
			if (cluster_setup(n->nc) ||
			    (!n->cs &&
			     cluster_consumer_open(n->nc, n->shard, &n->cs))) {
				log_msg(LOG_INFO, "cluster: not ready: %s",
					cluster_last_error(n->nc));
				free(status);
				sleep_ms(n, 1000);
				continue;
			}
			ready = true;
			log_msg(LOG_NOTICE,
				"cluster: shard %u of %u, consuming %s%u",
				n->shard, n->shards, CLUSTER_SUBJECT_PREFIX,
				n->shard);
		}
		if (status) {
			if (cluster_status_put(n->nc, n->shard, status,
					       strlen(status)))
				log_msg(LOG_INFO, "cluster: status not put: %s",
					cluster_last_error(n->nc));
			free(status);
			read_shards(n);
		}
		size_t sent = 0;
		if (cluster_spool_records(n->spool) &&
		    cluster_flush_spool(n->nc, 5000, &sent) == 0) {
			pthread_mutex_lock(&n->mu);
			n->published += sent;
			pthread_mutex_unlock(&n->mu);
		}
		if (stopping) {
			sleep_ms(n, 200);
			continue;
		}
		struct cluster_delivery *d[FETCH_MAX];
		size_t k = 0, rejected = 0;
		if (cluster_fetch(n->cs, FETCH_MAX, FETCH_WAIT_MS, d, &k,
				  &rejected)) {
			sleep_ms(n, 200);
			continue;
		}
		if (rejected) {
			pthread_mutex_lock(&n->mu);
			n->rejected += rejected;
			pthread_mutex_unlock(&n->mu);
			log_msg(LOG_WARNING,
				"cluster: %zu malformed batches terminated",
				rejected);
		}
		if (k)
			take(n, d, k);
	}
	return NULL;
}

/* ---- Life ---------------------------------------------------------------- */

int cnode_open(const struct conf *cf, const char *store_dir, struct cnode **ret,
	       char *err, size_t errlen)
{
	*ret = NULL;
	struct cnode *n = calloc(1, sizeof(*n));
	if (!n) {
		snprintf(err, errlen, "out of memory");
		return SC_E_NOMEM;
	}
	n->shards = cf->cluster.shards;
	n->shard = cf->cluster.shard;
	n->inbox_tail = &n->inbox;
	pthread_mutex_init(&n->mu, NULL);
	pthread_cond_init(&n->cv, NULL);
	pthread_mutex_init(&n->cmu, NULL);
	pthread_cond_init(&n->cwork, NULL);
	pthread_cond_init(&n->cdone, NULL);
	sc_dyn_init(&n->enc, CLUSTER_BATCH_BYTES_MAX + 1);
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/cluster", store_dir);
	if (mkdir(store_dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", store_dir,
			 strerror(errno));
		cnode_close(n);
		return SC_E_IO;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir,
			 strerror(errno));
		cnode_close(n);
		return SC_E_IO;
	}
	int rc = cluster_spool_open(dir, SPOOL_MAX_BYTES, &n->spool);
	if (rc) {
		snprintf(err, errlen, "the spool in %s: %s", dir,
			 sc_strerror(rc));
		cnode_close(n);
		return rc;
	}
	if (cluster_spool_torn_bytes(n->spool))
		log_msg(LOG_WARNING,
			"cluster: the spool's last record was torn (%llu "
			"bytes cut): its links are found again from their "
			"pages",
			(unsigned long long)cluster_spool_torn_bytes(n->spool));
	snprintf(n->name, sizeof(n->name), "sigcrawl shard %u of %u", n->shard,
		 n->shards);
	struct cluster_opts co = {
		.servers = (const char *const *)cf->cluster.nats,
		.n_servers = cf->cluster.n_nats,
		.name = n->name,
		/* R3 where there are three servers to hold it. */
		.replicas = cf->cluster.n_nats >= 3 ? 3 : 1,
		/* A batch is committed within a second or two: one not
		 * acked in 10 s went with a daemon that died. */
		.ack_wait_ms = 10000,
		.spool = n->spool,
	};
	if ((rc = cluster_open(&co, &n->nc, err, errlen))) {
		cnode_close(n);
		return rc;
	}
	char cname[CLUSTER_NAME_MAX + 1];
	snprintf(cname, sizeof(cname), "sigcrawl shard %u claims", n->shard);
	co.name = cname;
	co.spool = NULL;
	for (size_t i = 0; i < CLAIMERS; i++) {
		struct claimer *cl = &n->claimers[i];
		cl->n = n;
		if ((rc = cluster_open(&co, &cl->nc, err, errlen))) {
			cnode_close(n);
			return rc;
		}
		if (pthread_create(&cl->t, NULL, claimer_main, cl)) {
			snprintf(err, errlen, "cannot start a thread");
			cnode_close(n);
			return SC_E_NOMEM;
		}
		cl->running = true;
	}
	n->hooks = (struct crawl_cluster){
		.shards = n->shards,
		.shard = n->shard,
		.send = node_send,
		.claim = node_claim,
		.arg = n,
	};
	*ret = n;
	return 0;
}

const struct crawl_cluster *cnode_hooks(struct cnode *n)
{
	return &n->hooks;
}

int cnode_start(struct cnode *n, struct crawl *c, const struct crawl_opts *o)
{
	n->c = c;
	n->o = o;
	n->inbox_ev = event_new(crawl_base(c), -1, 0, on_inbox, n);
	if (!n->inbox_ev)
		return SC_E_NOMEM;
	if (pthread_create(&n->thread, NULL, node_main, n)) {
		event_free(n->inbox_ev);
		n->inbox_ev = NULL;
		return SC_E_NOMEM;
	}
	n->started = true;
	return 0;
}

void cnode_set_opts(struct cnode *n, const struct crawl_opts *o)
{
	pthread_mutex_lock(&n->mu);
	n->o = o;
	pthread_mutex_unlock(&n->mu);
}

void cnode_tick(struct cnode *n, struct crawl *c)
{
	if (crawl_ticks(c) % STATUS_TICKS)
		return;
	struct crawl_status st;
	crawl_status(c, false, &st);
	struct control_answer ans = { 0 };
	control_status_answer(&st, st.rate, &ans);
	json_t *s = ans.body ? json_loads(ans.body, 0, NULL) : NULL;
	free(ans.body);
	pthread_mutex_lock(&n->mu);
	json_t *o = json_pack(
		"{s:I,s:I,s:b,s:{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I},s:o?}",
		"shard", (json_int_t)n->shard, "shards", (json_int_t)n->shards,
		"connected", cluster_connected(n->nc), "links", "sent",
		(json_int_t)st.sum.cluster_sent, "received",
		(json_int_t)st.sum.cluster_received, "misrouted",
		(json_int_t)st.sum.cluster_misrouted, "batches_spooled",
		(json_int_t)n->spooled_batches, "batches_published",
		(json_int_t)n->published, "batches_received",
		(json_int_t)n->received_batches, "batches_acked",
		(json_int_t)n->acked, "batches_rejected",
		(json_int_t)n->rejected, "spool_records",
		(json_int_t)cluster_spool_records(n->spool), "status", s);
	char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	free(n->status);
	n->status = text;
	pthread_cond_broadcast(&n->cv);
	pthread_mutex_unlock(&n->mu);
}

void cnode_stopping(struct cnode *n)
{
	pthread_mutex_lock(&n->mu);
	n->stopping = true;
	pthread_cond_broadcast(&n->cv);
	pthread_mutex_unlock(&n->mu);
}

/* The loop is over (the daemon's finish hook): the thread ends. */
void cnode_finish(struct cnode *n)
{
	if (!n->started)
		return;
	pthread_mutex_lock(&n->mu);
	n->stopping = n->finishing = true;
	pthread_cond_broadcast(&n->cv);
	pthread_mutex_unlock(&n->mu);
	pthread_join(n->thread, NULL);
	n->started = false;
	while (n->inbox) {
		struct item *it = n->inbox;
		n->inbox = it->next;
		item_free(it);
	}
	n->inbox_tail = &n->inbox;
	if (n->inbox_ev)
		event_free(n->inbox_ev);
	n->inbox_ev = NULL;
	n->c = NULL;
}

void cnode_close(struct cnode *n)
{
	if (!n)
		return;
	cnode_finish(n);
	if (n->nc && n->spool && cluster_spool_records(n->spool) &&
	    cluster_connected(n->nc)) {
		size_t sent = 0;
		if (cluster_flush_spool(n->nc, 5000, &sent) == 0)
			log_msg(LOG_INFO,
				"cluster: %zu batches published at "
				"the end",
				sent);
	}
	if (n->nc && cluster_publish_wait(n->nc, 5000))
		log_msg(LOG_INFO, "cluster: publishes not acked at the end go "
				  "to the spool");
	cluster_consumer_close(n->cs);
	cluster_close(n->nc);
	pthread_mutex_lock(&n->cmu);
	n->cquit = true;
	pthread_cond_broadcast(&n->cwork);
	pthread_mutex_unlock(&n->cmu);
	for (size_t i = 0; i < CLAIMERS; i++) {
		if (n->claimers[i].running)
			pthread_join(n->claimers[i].t, NULL);
		cluster_close(n->claimers[i].nc);
	}
	if (n->spool && cluster_spool_records(n->spool))
		log_msg(LOG_NOTICE,
			"cluster: %zu batches of links wait in the spool for "
			"the next start",
			cluster_spool_records(n->spool));
	cluster_spool_close(n->spool);
	sc_dyn_free(&n->enc);
	free(n->status);
	free(n->shards_json);
	pthread_mutex_destroy(&n->mu);
	pthread_cond_destroy(&n->cv);
	pthread_mutex_destroy(&n->cmu);
	pthread_cond_destroy(&n->cwork);
	pthread_cond_destroy(&n->cdone);
	free(n);
}
