/* jetstream.c — the links stream, its consumers and the key-value buckets
 * through libnats (cluster.h).
 *
 * Every call is synchronous and bounded by the options' timeouts, except
 * cluster_publish(), which hands the batch to libnats's asynchronous
 * publisher (at most max_pending in flight) so that a daemon sending many
 * batches does not wait a round trip for each; cluster_publish_wait()
 * collects the acks.  Whatever cannot be published — the connection is
 * down, the server refused it, its ack never came — goes to the spool
 * with its batch id, and cluster_flush_spool() publishes it again later;
 * JetStream's duplicate window (Nats-Msg-Id = the batch id) stores a
 * batch that did arrive after all only once. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <nats/nats.h>

#include "cluster.h"

#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S INT64_C(1000000000)

struct cluster {
	natsConnection *nc;
	jsCtx *js;
	kvStore *sigs, *status;
	struct cluster_spool *spool;
	unsigned request_timeout_ms, replicas, ack_wait_ms, max_ack_pending;
	unsigned max_age_s, duplicate_window_s;
	uint64_t stream_max_bytes;
	atomic_uint failed; /* publishes the error handler saw fail */
	atomic_uint lost;   /* ... and could not spool */
	/* A flush's publishes are in flight: their batches are still in
	 * the spool, so a failure is counted, not spooled again. */
	atomic_bool flushing;
	/* An asynchronous publish was made: libnats 3.4.1's
	 * js_PublishAsyncGetPendingList() crashes before the first. */
	bool async_used;
	char err[512];
};

struct cluster_consumer {
	struct cluster *c;
	natsSubscription *sub;
	uint32_t shard;
	char subject[40];
};

struct cluster_delivery {
	struct cluster *c;
	natsMsg *msg;
	struct cluster_batch *batch;
	uint64_t count;
};

/* ---- errors ---------------------------------------------------------------
 */

static int nats_fail(struct cluster *c, const char *what, natsStatus s,
		     jsErrCode jerr)
{
	const char *text = nats_GetLastError(NULL);
	if (!text || !*text)
		text = natsStatus_GetText(s);
	if (jerr)
		snprintf(c->err, sizeof(c->err), "%s: %s (JetStream error %d)",
			 what, text, (int)jerr);
	else
		snprintf(c->err, sizeof(c->err), "%s: %s", what, text);
	return s == NATS_TIMEOUT ? SC_E_TIMEOUT : SC_E_NET;
}

const char *cluster_last_error(struct cluster *c)
{
	return c ? c->err : "";
}

static SC_PRINTF(3, 4) int open_fail(char *err, size_t errlen, const char *fmt,
				     ...)
{
	if (errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return SC_E_INVAL;
}

/* ---- open, close ------------------------------------------------------------
 */

static bool server_ok(const char *s)
{
	size_t n = strlen(s);
	if (n <= 7 || n > CLUSTER_SERVER_URL_MAX ||
	    strncasecmp(s, "nats://", 7))
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

static bool name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n > CLUSTER_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/* The shard of a links subject, or -1. */
static int64_t subject_shard(const char *subj)
{
	size_t pl = strlen(CLUSTER_SUBJECT_PREFIX);
	if (!subj || strncmp(subj, CLUSTER_SUBJECT_PREFIX, pl) != 0)
		return -1;
	const char *p = subj + pl;
	int64_t v = 0;
	if (!*p || strlen(p) > 4)
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
	}
	return v < CLUSTER_SHARDS_MAX ? v : -1;
}

/* libnats's thread: a publish the server refused or could not take.  The
 * batch goes to the spool, to be published again by a flush. */
static void on_publish_error(jsCtx *js, jsPubAckErr *pae, void *closure)
{
	struct cluster *c = closure;
	(void)js;
	atomic_fetch_add(&c->failed, 1);
	if (atomic_load(&c->flushing))
		return;
	int64_t shard = subject_shard(natsMsg_GetSubject(pae->Msg));
	const char *data = natsMsg_GetData(pae->Msg);
	int len = natsMsg_GetDataLength(pae->Msg);
	if (!c->spool || shard < 0 || len <= 0 ||
	    cluster_spool_append(c->spool, (uint32_t)shard, data,
				 (size_t)len) != 0)
		atomic_fetch_add(&c->lost, 1);
}

static void on_connected(natsConnection *nc, void *closure)
{
	(void)nc;
	(void)closure;
}

int cluster_open(const struct cluster_opts *o, struct cluster **ret, char *err,
		 size_t errlen)
{
	if (errlen)
		err[0] = '\0';
	if (!o || !o->servers || o->n_servers == 0 ||
	    o->n_servers > CLUSTER_SERVERS_MAX)
		return open_fail(err, errlen, "from 1 to %d servers, got %zu",
				 CLUSTER_SERVERS_MAX,
				 o && o->servers ? o->n_servers : 0);
	for (size_t i = 0; i < o->n_servers; i++)
		if (!o->servers[i] || !server_ok(o->servers[i]))
			return open_fail(
				err, errlen,
				"server %zu: expected nats://HOST:PORT "
				"of at most %d bytes",
				i + 1, CLUSTER_SERVER_URL_MAX);
	if (!name_ok(o->name))
		return open_fail(err, errlen,
				 "the connection name needs 1 to %d printable "
				 "ASCII bytes",
				 CLUSTER_NAME_MAX);
	if (o->replicas > 5)
		return open_fail(err, errlen, "replicas: 1 to 5, got %u",
				 o->replicas);
	if (o->max_pending > 65536 || o->max_ack_pending > 100000)
		return open_fail(err, errlen,
				 "max_pending at most 65536, max_ack_pending "
				 "at most 100000");

	struct cluster *c = calloc(1, sizeof(*c));
	if (!c)
		return SC_E_NOMEM;
	c->spool = o->spool;
	c->request_timeout_ms = o->request_timeout_ms ? o->request_timeout_ms
						      : 5000;
	c->replicas = o->replicas ? o->replicas : 1;
	c->ack_wait_ms = o->ack_wait_ms ? o->ack_wait_ms : 30000;
	c->max_ack_pending = o->max_ack_pending ? o->max_ack_pending : 1000;
	c->max_age_s = o->max_age_s ? o->max_age_s : 7 * 86400;
	c->duplicate_window_s = o->duplicate_window_s ? o->duplicate_window_s
						      : 600;
	if (c->duplicate_window_s > c->max_age_s)
		c->duplicate_window_s = c->max_age_s;
	c->stream_max_bytes = o->stream_max_bytes;

	natsOptions *no = NULL;
	natsStatus s = natsOptions_Create(&no);
	if (s == NATS_OK)
		s = natsOptions_SetServers(no, (const char **)o->servers,
					   (int)o->n_servers);
	if (s == NATS_OK)
		s = natsOptions_SetName(no, o->name);
	if (s == NATS_OK)
		s = natsOptions_SetTimeout(no, o->connect_timeout_ms
						       ? o->connect_timeout_ms
						       : 2000);
	if (s == NATS_OK)
		s = natsOptions_SetAllowReconnect(no, true);
	if (s == NATS_OK)
		s = natsOptions_SetMaxReconnect(no, -1); /* forever */
	if (s == NATS_OK)
		s = natsOptions_SetReconnectWait(
			no, o->reconnect_wait_ms ? o->reconnect_wait_ms : 1000);
	if (s == NATS_OK)
		/* With a callback the first connect is asynchronous too:
		 * without one, libnats retries inside the call, forever. */
		s = natsOptions_SetRetryOnFailedConnect(no, true, on_connected,
							NULL);
	if (s == NATS_OK) {
		s = natsConnection_Connect(&c->nc, no);
		if (s == NATS_NOT_YET_CONNECTED)
			s = NATS_OK; /* libnats keeps trying */
	}
	natsOptions_Destroy(no);
	if (s == NATS_OK) {
		jsOptions jo;
		jsOptions_Init(&jo);
		jo.Wait = c->request_timeout_ms;
		jo.PublishAsync.MaxPending = o->max_pending ? o->max_pending
							    : 256;
		jo.PublishAsync.ErrHandler = on_publish_error;
		jo.PublishAsync.ErrHandlerClosure = c;
		jo.PublishAsync.StallWait = c->request_timeout_ms;
		s = natsConnection_JetStream(&c->js, c->nc, &jo);
	}
	if (s != NATS_OK) {
		int rc = s == NATS_NO_MEMORY ? SC_E_NOMEM : SC_E_NET;
		nats_fail(c, "connect", s, 0);
		if (errlen)
			snprintf(err, errlen, "%s", c->err);
		cluster_close(c);
		return rc;
	}
	*ret = c;
	return 0;
}

/* Publishes still unacked: taken back from libnats and spooled. */
static unsigned spool_pending(struct cluster *c)
{
	natsMsgList pending = { 0 };
	unsigned n = 0;
	if (!c->async_used)
		return 0;
	if (js_PublishAsyncGetPendingList(&pending, c->js) != NATS_OK)
		return 0;
	bool again = atomic_load(&c->flushing);
	for (int i = 0; i < pending.Count; i++) {
		natsMsg *m = pending.Msgs[i];
		int64_t shard = subject_shard(natsMsg_GetSubject(m));
		int len = natsMsg_GetDataLength(m);
		n++;
		if (again)
			continue;
		if (!c->spool || shard < 0 || len <= 0 ||
		    cluster_spool_append(c->spool, (uint32_t)shard,
					 natsMsg_GetData(m), (size_t)len) != 0)
			atomic_fetch_add(&c->lost, 1);
	}
	natsMsgList_Destroy(&pending);
	return n;
}

void cluster_close(struct cluster *c)
{
	if (!c)
		return;
	if (c->js) {
		jsPubOptions po;
		jsPubOptions_Init(&po);
		po.MaxWait = c->request_timeout_ms;
		if (cluster_connected(c))
			(void)js_PublishAsyncComplete(c->js, &po);
		spool_pending(c);
	}
	kvStore_Destroy(c->sigs);
	kvStore_Destroy(c->status);
	jsCtx_Destroy(c->js);
	if (c->nc) {
		natsConnection_Close(c->nc);
		natsConnection_Destroy(c->nc);
	}
	free(c);
}

bool cluster_connected(struct cluster *c)
{
	return c && c->nc &&
	       natsConnection_Status(c->nc) == NATS_CONN_STATUS_CONNECTED;
}

/* ---- the stream and the buckets
 * ----------------------------------------------- */

static int ensure_bucket(struct cluster *c, kvStore **kv, const char *name,
			 int32_t max_value)
{
	if (*kv)
		return 0;
	natsStatus s = js_KeyValue(kv, c->js, name);
	if (s == NATS_OK)
		return 0;
	*kv = NULL;
	kvConfig kc;
	kvConfig_Init(&kc);
	kc.Bucket = name;
	kc.History = 1;
	kc.MaxValueSize = max_value;
	kc.StorageType = js_FileStorage;
	kc.Replicas = (int)c->replicas;
	s = js_CreateKeyValue(kv, c->js, &kc);
	if (s != NATS_OK) {
		/* Another daemon may have created it meanwhile. */
		*kv = NULL;
		s = js_KeyValue(kv, c->js, name);
	}
	if (s != NATS_OK) {
		*kv = NULL;
		char what[64];
		snprintf(what, sizeof(what), "bucket %s", name);
		return nats_fail(c, what, s, 0);
	}
	return 0;
}

int cluster_stream_msgs(struct cluster *c, uint64_t *msgs)
{
	jsStreamInfo *si = NULL;
	jsErrCode jerr = 0;
	natsStatus s = js_GetStreamInfo(&si, c->js, CLUSTER_STREAM, NULL,
					&jerr);
	if (s != NATS_OK)
		return nats_fail(c, "stream " CLUSTER_STREAM, s, jerr);
	*msgs = si->State.Msgs;
	jsStreamInfo_Destroy(si);
	return 0;
}

int cluster_setup(struct cluster *c)
{
	static const char *subjects[] = { CLUSTER_SUBJECT_PREFIX "*" };
	jsStreamConfig sc;
	jsStreamConfig_Init(&sc);
	sc.Name = CLUSTER_STREAM;
	sc.Subjects = subjects;
	sc.SubjectsLen = 1;
	/* A batch is deleted once its shard acked it: the stream holds
	 * only what is not yet committed anywhere. */
	sc.Retention = js_WorkQueuePolicy;
	sc.Storage = js_FileStorage;
	sc.Replicas = (int64_t)c->replicas;
	sc.MaxMsgSize = CLUSTER_BATCH_BYTES_MAX + 4096; /* and headers */
	sc.MaxAge = (int64_t)c->max_age_s * NS_PER_S;
	sc.MaxBytes = c->stream_max_bytes ? (int64_t)c->stream_max_bytes : -1;
	/* When full, refuse new batches (their publishers spool them)
	 * rather than drop old ones nobody committed. */
	sc.Discard = js_DiscardNew;
	sc.Duplicates = (int64_t)c->duplicate_window_s * NS_PER_S;
	jsStreamInfo *si = NULL;
	jsErrCode jerr = 0;
	natsStatus s = js_AddStream(&si, c->js, &sc, NULL, &jerr);
	if (s != NATS_OK && jerr == JSStreamNameExistErr) {
		jerr = 0;
		s = js_UpdateStream(&si, c->js, &sc, NULL, &jerr);
	}
	jsStreamInfo_Destroy(si);
	if (s != NATS_OK)
		return nats_fail(c, "stream " CLUSTER_STREAM, s, jerr);
	int rc = ensure_bucket(c, &c->sigs, CLUSTER_SIGS_BUCKET,
			       CLUSTER_URL_MAX);
	if (!rc)
		rc = ensure_bucket(c, &c->status, CLUSTER_STATUS_BUCKET,
				   CLUSTER_STATUS_MAX);
	return rc;
}

/* ---- publishing
 * ------------------------------------------------------------------ */

static int spool_or_fail(struct cluster *c, uint32_t shard, const void *batch,
			 size_t len, bool *spooled)
{
	if (!c->spool)
		return SC_E_NET;
	int rc = cluster_spool_append(c->spool, shard, batch, len);
	if (rc == SC_E_LIMIT)
		return rc;
	if (rc)
		return SC_E_NET;
	if (spooled)
		*spooled = true;
	return 0;
}

/* Publish without the checks, for cluster_publish() and the flush. */
static int publish_raw(struct cluster *c, uint32_t shard, const void *batch,
		       size_t len)
{
	char subject[40], id[2 * CLUSTER_BATCH_ID_LEN + 1];
	snprintf(subject, sizeof(subject), CLUSTER_SUBJECT_PREFIX "%u", shard);
	/* The id sits at offset 8 of every batch (cluster.h). */
	sc_hex((const unsigned char *)batch + 8, CLUSTER_BATCH_ID_LEN, id);
	natsMsg *m = NULL;
	natsStatus s = natsMsg_Create(&m, subject, NULL, batch, (int)len);
	if (s == NATS_OK)
		s = natsMsgHeader_Set(m, "Nats-Msg-Id", id);
	if (s == NATS_OK) {
		c->async_used = true;
		s = js_PublishMsgAsync(c->js, &m, NULL);
	}
	natsMsg_Destroy(m); /* NULL once libnats took it */
	if (s != NATS_OK)
		return nats_fail(c, "publish", s, 0);
	return 0;
}

int cluster_publish(struct cluster *c, uint32_t shard, const void *batch,
		    size_t len, bool *spooled)
{
	struct cluster_batch *b;
	if (spooled)
		*spooled = false;
	if (!c || shard >= CLUSTER_SHARDS_MAX)
		return SC_E_INVAL;
	int rc = cluster_batch_decode(batch, len, &b);
	if (rc)
		return rc;
	cluster_batch_free(b);
	if (!cluster_connected(c)) {
		snprintf(c->err, sizeof(c->err), "publish: not connected");
		return spool_or_fail(c, shard, batch, len, spooled);
	}
	rc = publish_raw(c, shard, batch, len);
	if (rc)
		return spool_or_fail(c, shard, batch, len, spooled);
	return 0;
}

int cluster_publish_wait(struct cluster *c, unsigned timeout_ms)
{
	jsPubOptions po;
	jsPubOptions_Init(&po);
	po.MaxWait = timeout_ms ? timeout_ms : 1;
	natsStatus s = js_PublishAsyncComplete(c->js, &po);
	int rc = 0;
	if (s != NATS_OK) {
		rc = nats_fail(c, "waiting for publish acks", s, 0);
		spool_pending(c);
		if (rc != SC_E_TIMEOUT)
			rc = SC_E_NET;
	}
	unsigned failed = atomic_exchange(&c->failed, 0);
	if (failed && !rc) {
		snprintf(c->err, sizeof(c->err),
			 "%u publishes failed (spooled when a spool is set)",
			 failed);
		rc = SC_E_NET;
	}
	return rc;
}

static int flush_one(void *arg, uint32_t shard, const void *batch, size_t len)
{
	struct cluster *c = arg;
	if (!cluster_connected(c)) {
		snprintf(c->err, sizeof(c->err), "flush: not connected");
		return SC_E_NET;
	}
	return publish_raw(c, shard, batch, len);
}

int cluster_flush_spool(struct cluster *c, unsigned timeout_ms, size_t *n)
{
	size_t done = 0;
	if (n)
		*n = 0;
	if (!c || !c->spool)
		return SC_E_INVAL;
	if (cluster_spool_records(c->spool) == 0)
		return 0;
	/* Acks of earlier publishes first, so that a failure counted below
	 * belongs to this flush. */
	int rc = cluster_publish_wait(c, timeout_ms);
	if (rc)
		return rc;
	/* The records stay in the spool until their acks came: a failed
	 * publish of this flush is not spooled again (it was: each failed
	 * flush added a copy of what it could not publish). */
	atomic_store(&c->flushing, true);
	rc = cluster_spool_replay(c->spool, flush_one, c, &done);
	int wrc = cluster_publish_wait(c, timeout_ms);
	atomic_store(&c->flushing, false);
	if (rc)
		return rc;
	if (wrc)
		return wrc;
	rc = cluster_spool_drop(c->spool, done);
	if (!rc && n)
		*n = done;
	return rc;
}

/* ---- consuming
 * -------------------------------------------------------------------- */

int cluster_consumer_open(struct cluster *c, uint32_t shard,
			  struct cluster_consumer **ret)
{
	if (!c || shard >= CLUSTER_SHARDS_MAX)
		return SC_E_INVAL;
	struct cluster_consumer *cs = calloc(1, sizeof(*cs));
	if (!cs)
		return SC_E_NOMEM;
	cs->c = c;
	cs->shard = shard;
	snprintf(cs->subject, sizeof(cs->subject), CLUSTER_SUBJECT_PREFIX "%u",
		 shard);
	char durable[24];
	snprintf(durable, sizeof(durable), "shard-%u", shard);
	jsSubOptions so;
	jsSubOptions_Init(&so);
	so.Stream = CLUSTER_STREAM;
	so.Config.Durable = durable;
	so.Config.AckPolicy = js_AckExplicit;
	so.Config.AckWait = (int64_t)c->ack_wait_ms * NS_PER_MS;
	so.Config.MaxAckPending = c->max_ack_pending;
	/* Unlimited: a batch must survive any number of crashes of its
	 * receiver; malformed ones are terminated, not retried. */
	so.Config.MaxDeliver = -1;
	so.Config.DeliverPolicy = js_DeliverAll;
	jsErrCode jerr = 0;
	natsStatus s = js_PullSubscribe(&cs->sub, c->js, cs->subject, durable,
					NULL, &so, &jerr);
	if (s != NATS_OK) {
		free(cs);
		return nats_fail(c, "consumer", s, jerr);
	}
	*ret = cs;
	return 0;
}

void cluster_consumer_close(struct cluster_consumer *cs)
{
	if (!cs)
		return;
	/* Destroy, not Unsubscribe: unsubscribing would delete the durable
	 * consumer that libnats created. */
	natsSubscription_Destroy(cs->sub);
	free(cs);
}

int cluster_fetch(struct cluster_consumer *cs, size_t max, unsigned timeout_ms,
		  struct cluster_delivery **out, size_t *n, size_t *rejected)
{
	*n = 0;
	if (rejected)
		*rejected = 0;
	if (!cs || !out || max == 0 || max > 1000)
		return SC_E_INVAL;
	natsMsgList list = { 0 };
	jsErrCode jerr = 0;
	natsStatus s = natsSubscription_Fetch(
		&list, cs->sub, (int)max, timeout_ms ? timeout_ms : 1, &jerr);
	if (s == NATS_TIMEOUT)
		return 0;
	if (s != NATS_OK)
		return nats_fail(cs->c, "fetch", s, jerr);
	int rc = 0;
	for (int i = 0; i < list.Count && *n < max; i++) {
		natsMsg *m = list.Msgs[i];
		struct cluster_batch *b = NULL;
		const char *subj = natsMsg_GetSubject(m);
		int len = natsMsg_GetDataLength(m);
		int drc = SC_E_CORRUPT;
		if (subj && strcmp(subj, cs->subject) == 0 && len > 0)
			drc = cluster_batch_decode(natsMsg_GetData(m),
						   (size_t)len, &b);
		if (drc == SC_E_NOMEM) {
			rc = drc; /* left unacked: it comes again */
			continue;
		}
		if (drc) {
			(void)natsMsg_Term(m, NULL);
			if (rejected)
				(*rejected)++;
			continue;
		}
		struct cluster_delivery *d = calloc(1, sizeof(*d));
		if (!d) {
			cluster_batch_free(b);
			rc = SC_E_NOMEM;
			continue;
		}
		jsMsgMetaData *meta = NULL;
		d->count = 1;
		if (natsMsg_GetMetaData(&meta, m) == NATS_OK)
			d->count = meta->NumDelivered;
		jsMsgMetaData_Destroy(meta);
		d->c = cs->c;
		d->msg = m;
		d->batch = b;
		list.Msgs[i] = NULL; /* ours now */
		out[(*n)++] = d;
	}
	natsMsgList_Destroy(&list);
	/* The AckTerms are asynchronous: send them now, so that a caller
	 * that exits or crashes next does not see the batch again. */
	if (rejected && *rejected)
		(void)natsConnection_FlushTimeout(cs->c->nc,
						  cs->c->request_timeout_ms);
	return rc;
}

const struct cluster_batch *
cluster_delivery_batch(const struct cluster_delivery *d)
{
	return d->batch;
}

uint64_t cluster_delivery_count(const struct cluster_delivery *d)
{
	return d->count;
}

int cluster_delivery_ack(struct cluster_delivery *d)
{
	jsOptions jo;
	jsOptions_Init(&jo);
	jo.Wait = d->c->request_timeout_ms;
	jsErrCode jerr = 0;
	natsStatus s = natsMsg_AckSync(d->msg, &jo, &jerr);
	if (s != NATS_OK)
		return nats_fail(d->c, "ack", s, jerr);
	return 0;
}

int cluster_delivery_nak(struct cluster_delivery *d)
{
	natsStatus s = natsMsg_Nak(d->msg, NULL);
	if (s != NATS_OK)
		return nats_fail(d->c, "nak", s, 0);
	return 0;
}

void cluster_delivery_free(struct cluster_delivery *d)
{
	if (!d)
		return;
	natsMsg_Destroy(d->msg);
	cluster_batch_free(d->batch);
	free(d);
}

/* ---- key-value: signatures and status
 * ---------------------------------------------- */

static bool printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
			return false;
	return true;
}

int cluster_claim_signature(struct cluster *c,
			    const unsigned char sig[CLUSTER_SIG_LEN],
			    const char *url, size_t url_len, bool *claimed,
			    char *owner, size_t owner_len)
{
	if (!c || !sig || !url || url_len == 0 || url_len > CLUSTER_URL_MAX ||
	    !printable(url, url_len) || !owner ||
	    owner_len < CLUSTER_URL_MAX + 1)
		return SC_E_INVAL;
	int rc = ensure_bucket(c, &c->sigs, CLUSTER_SIGS_BUCKET,
			       CLUSTER_URL_MAX);
	if (rc)
		return rc;
	char key[2 * CLUSTER_SIG_LEN + 1];
	sc_hex(sig, CLUSTER_SIG_LEN, key);
	natsStatus s = kvStore_Create(NULL, c->sigs, key, url, (int)url_len);
	if (s == NATS_OK) {
		*claimed = true;
		owner[0] = '\0';
		return 0;
	}
	/* Refused: someone holds it (or the request failed, and then the
	 * get below fails too).  The holder's URL is the answer. */
	nats_fail(c, "claim", s, 0);
	kvEntry *e = NULL;
	s = kvStore_Get(&e, c->sigs, key);
	if (s != NATS_OK)
		return nats_fail(c, "claim: reading the owner", s, 0);
	const char *v = kvEntry_Value(e);
	int vl = kvEntry_ValueLen(e);
	if (!v || vl <= 0 || vl > CLUSTER_URL_MAX ||
	    !printable(v, (size_t)vl)) {
		kvEntry_Destroy(e);
		snprintf(c->err, sizeof(c->err),
			 "claim: the owner of %s is not a URL", key);
		return SC_E_CORRUPT;
	}
	memcpy(owner, v, (size_t)vl);
	owner[vl] = '\0';
	kvEntry_Destroy(e);
	*claimed = false;
	return 0;
}

static bool status_ok(const char *json, size_t len)
{
	if (len < 2 || len > CLUSTER_STATUS_MAX || json[0] != '{' ||
	    json[len - 1] != '}')
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)json[i];
		if ((ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') ||
		    ch == 0x7f)
			return false;
	}
	return true;
}

int cluster_status_put(struct cluster *c, uint32_t shard, const char *json,
		       size_t len)
{
	if (!c || shard >= CLUSTER_SHARDS_MAX || !json || !status_ok(json, len))
		return SC_E_INVAL;
	int rc = ensure_bucket(c, &c->status, CLUSTER_STATUS_BUCKET,
			       CLUSTER_STATUS_MAX);
	if (rc)
		return rc;
	char key[24];
	snprintf(key, sizeof(key), "shard-%u", shard);
	natsStatus s = kvStore_Put(NULL, c->status, key, json, (int)len);
	if (s != NATS_OK)
		return nats_fail(c, "status put", s, 0);
	return 0;
}

/* The N of "shard-N" (no sign, no leading zero), or -1. */
static int64_t status_key_shard(const char *k)
{
	if (!k || strncmp(k, "shard-", 6) != 0)
		return -1;
	const char *p = k + 6;
	size_t n = strlen(p);
	if (n == 0 || n > 4 || (p[0] == '0' && n > 1))
		return -1;
	int64_t v = 0;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
	}
	return v < CLUSTER_SHARDS_MAX ? v : -1;
}

static int status_cmp(const void *a, const void *b)
{
	const struct cluster_status *x = a, *y = b;
	return x->shard < y->shard ? -1 : x->shard > y->shard;
}

void cluster_status_list_free(struct cluster_status *list, size_t n)
{
	for (size_t i = 0; list && i < n; i++)
		free(list[i].json);
	free(list);
}

/* One shard's document into list[*got] (skipped when absent or not a
 * status).  Returns 0, SC_E_NOMEM or SC_E_NET. */
static int status_get(struct cluster *c, const char *key, uint32_t shard,
		      struct cluster_status *list, size_t *got)
{
	kvEntry *e = NULL;
	natsStatus s = kvStore_Get(&e, c->status, key);
	if (s == NATS_NOT_FOUND)
		return 0; /* never put, or deleted meanwhile */
	if (s != NATS_OK)
		return nats_fail(c, "status get", s, 0);
	const char *v = kvEntry_Value(e);
	int vl = kvEntry_ValueLen(e);
	int rc = 0;
	if (v && vl > 0 && status_ok(v, (size_t)vl)) {
		char *j = malloc((size_t)vl + 1);
		if (!j) {
			rc = SC_E_NOMEM;
		} else {
			memcpy(j, v, (size_t)vl);
			j[vl] = '\0';
			list[*got].shard = shard;
			list[*got].json = j;
			list[*got].len = (size_t)vl;
			(*got)++;
		}
	}
	kvEntry_Destroy(e);
	return rc;
}

int cluster_status_list(struct cluster *c, uint32_t shards,
			struct cluster_status **ret, size_t *n)
{
	*n = 0;
	*ret = NULL;
	if (!c || shards > CLUSTER_SHARDS_MAX)
		return SC_E_INVAL;
	/* Bound, never made here: a reader that created the bucket would
	 * create it with its own replicas (one, for `status --cluster`),
	 * on whichever node, before any daemon set it up. */
	if (!c->status) {
		natsStatus bs = js_KeyValue(&c->status, c->js,
					    CLUSTER_STATUS_BUCKET);
		if (bs == NATS_NOT_FOUND) {
			c->status = NULL;
			return 0; /* no daemon has put a status yet */
		}
		if (bs != NATS_OK) {
			c->status = NULL;
			return nats_fail(c, "bucket " CLUSTER_STATUS_BUCKET, bs,
					 0);
		}
	}
	int rc = 0;
	size_t got = 0;
	struct cluster_status *list = NULL;
	if (shards) {
		/* The keys are known: read them one by one.  (Listing the
		 * keys takes a consumer of the bucket's stream, which times
		 * out while one node of three is down, libnats 3.4.1 against
		 * nats-server 2.9.) */
		list = calloc(shards, sizeof(*list));
		if (!list)
			return SC_E_NOMEM;
		for (uint32_t i = 0; i < shards && !rc; i++) {
			char key[32];
			snprintf(key, sizeof(key), "shard-%u", i);
			rc = status_get(c, key, i, list, &got);
		}
	} else {
		kvKeysList keys = { 0 };
		kvWatchOptions wo;
		kvWatchOptions_Init(&wo);
		wo.Timeout = c->request_timeout_ms;
		natsStatus s = kvStore_Keys(&keys, c->status, &wo);
		if (s == NATS_NOT_FOUND) { /* no keys at all */
			*ret = NULL;
			return 0;
		}
		if (s != NATS_OK)
			return nats_fail(c, "status keys", s, 0);
		size_t cap = keys.Count > CLUSTER_SHARDS_MAX
				     ? CLUSTER_SHARDS_MAX
				     : (size_t)keys.Count;
		list = calloc(cap ? cap : 1, sizeof(*list));
		if (!list) {
			kvKeysList_Destroy(&keys);
			return SC_E_NOMEM;
		}
		for (int i = 0; i < keys.Count && got < cap && !rc; i++) {
			int64_t shard = status_key_shard(keys.Keys[i]);
			if (shard >= 0)
				rc = status_get(c, keys.Keys[i],
						(uint32_t)shard, list, &got);
		}
		kvKeysList_Destroy(&keys);
	}
	if (rc) {
		cluster_status_list_free(list, got);
		return rc;
	}
	qsort(list, got, sizeof(*list), status_cmp);
	*ret = list;
	*n = got;
	return 0;
}
