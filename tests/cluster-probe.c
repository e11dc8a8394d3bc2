/* cluster-probe.c — one cluster/ operation per run against NATS servers,
 * for tests/test-cluster-nats.sh.  Prints what happened on stdout, one
 * fact a line, and exits 0, or 1 with the error on stderr.
 *
 *     cluster-probe SERVERS setup REPLICAS SECONDS
 *     cluster-probe SERVERS publish SHARD ID URL...
 *     cluster-probe SERVERS publish-raw SHARD TEXT
 *     cluster-probe SERVERS fetch SHARD MAX TIMEOUT_MS ack|noack
 *     cluster-probe SERVERS claim SIGHEX URL
 *     cluster-probe SERVERS status-put SHARD JSON
 *     cluster-probe SERVERS status-list
 *     cluster-probe SERVERS spool-publish DIR SHARD ID URL...
 *     cluster-probe SERVERS spool-flush DIR SECONDS   (tried again until
 *                                                      SECONDS are up)
 *
 * SERVERS is a comma-separated list of nats:// URLs.  ID is a batch id of
 * 32 hex digits.  The consumers' ack wait is 2 s, so that redelivery is
 * quick to see.  fetch prints "batch ID delivered=N URL..." per batch and
 * "rejected N"; setup retries until JetStream answers (a new cluster
 * elects its meta leader first). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nats/nats.h>

#include "cluster.h"

static const char *servers[CLUSTER_SERVERS_MAX];
static size_t n_servers;

static void split_servers(char *list)
{
	for (char *t = strtok(list, ","); t && n_servers < CLUSTER_SERVERS_MAX;
	     t = strtok(NULL, ","))
		servers[n_servers++] = t;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int die(struct cluster *c, const char *what, int rc)
{
	fprintf(stderr, "cluster-probe: %s: %s (%s)\n", what, sc_strerror(rc),
		c ? cluster_last_error(c) : "");
	return 1;
}

static struct cluster *open_cluster(struct cluster_spool *spool,
				    unsigned replicas)
{
	struct cluster_opts o = {
		.servers = servers,
		.n_servers = n_servers,
		.name = "cluster-probe",
		.connect_timeout_ms = 1000,
		.reconnect_wait_ms = 250,
		.request_timeout_ms = 5000,
		.replicas = replicas,
		.ack_wait_ms = 2000,
		.spool = spool,
	};
	struct cluster *c = NULL;
	char err[256];
	int rc = cluster_open(&o, &c, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "cluster-probe: open: %s: %s\n",
			sc_strerror(rc), err);
		return NULL;
	}
	return c;
}

static bool wait_connected(struct cluster *c, double seconds)
{
	double end = now() + seconds;
	while (!cluster_connected(c) && now() < end)
		usleep(20000);
	return cluster_connected(c);
}

static bool parse_id(const char *hex, unsigned char id[CLUSTER_BATCH_ID_LEN])
{
	if (strlen(hex) != 2 * CLUSTER_BATCH_ID_LEN)
		return false;
	for (size_t i = 0; i < CLUSTER_BATCH_ID_LEN; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return false;
		id[i] = (unsigned char)v;
	}
	return true;
}

static int encode(const char *idhex, char **urls, int n, struct sc_dynbuf *out)
{
	unsigned char id[CLUSTER_BATCH_ID_LEN];
	struct cluster_link links[64];
	if (!parse_id(idhex, id) || n < 1 || n > 64)
		return SC_E_INVAL;
	for (int i = 0; i < n; i++) {
		links[i].url = urls[i];
		links[i].url_len = strlen(urls[i]);
		links[i].category = "test";
		links[i].category_len = 4;
		links[i].depth = 1;
	}
	return cluster_batch_encode(id, links, (size_t)n, out);
}

static int publish(struct cluster *c, uint32_t shard, const char *id,
		   char **urls, int n)
{
	struct sc_dynbuf b;
	sc_dyn_init(&b, CLUSTER_BATCH_BYTES_MAX + 1);
	int rc = encode(id, urls, n, &b);
	if (rc) {
		sc_dyn_free(&b);
		return die(c, "encode", rc);
	}
	bool spooled = false;
	rc = cluster_publish(c, shard, b.p, b.len, &spooled);
	sc_dyn_free(&b);
	if (rc)
		return die(c, "publish", rc);
	if (!spooled && (rc = cluster_publish_wait(c, 5000)))
		return die(c, "publish wait", rc);
	printf("%s\n", spooled ? "spooled" : "published");
	return 0;
}

/* A message that is no batch, straight through libnats. */
static int publish_raw(const char *shard, const char *text)
{
	natsConnection *nc = NULL;
	natsOptions *o = NULL;
	char subject[40];
	snprintf(subject, sizeof(subject), CLUSTER_SUBJECT_PREFIX "%s", shard);
	natsStatus s = natsOptions_Create(&o);
	if (s == NATS_OK)
		s = natsOptions_SetServers(o, servers, (int)n_servers);
	if (s == NATS_OK)
		s = natsConnection_Connect(&nc, o);
	jsCtx *js = NULL;
	if (s == NATS_OK)
		s = natsConnection_JetStream(&js, nc, NULL);
	jsPubAck *pa = NULL;
	if (s == NATS_OK)
		s = js_Publish(&pa, js, subject, text, (int)strlen(text), NULL,
			       NULL);
	jsPubAck_Destroy(pa);
	jsCtx_Destroy(js);
	natsConnection_Destroy(nc);
	natsOptions_Destroy(o);
	if (s != NATS_OK) {
		fprintf(stderr, "cluster-probe: publish-raw: %s\n",
			natsStatus_GetText(s));
		return 1;
	}
	printf("published\n");
	return 0;
}

static int fetch(struct cluster *c, uint32_t shard, size_t max,
		 unsigned timeout_ms, bool ack)
{
	struct cluster_consumer *cs = NULL;
	int rc = cluster_consumer_open(c, shard, &cs);
	if (rc)
		return die(c, "consumer", rc);
	struct cluster_delivery *d[100];
	size_t n = 0, rejected = 0;
	if (max > 100)
		max = 100;
	rc = cluster_fetch(cs, max, timeout_ms, d, &n, &rejected);
	if (rc) {
		cluster_consumer_close(cs);
		return die(c, "fetch", rc);
	}
	for (size_t i = 0; i < n; i++) {
		const struct cluster_batch *b = cluster_delivery_batch(d[i]);
		char id[2 * CLUSTER_BATCH_ID_LEN + 1];
		printf("batch %s delivered=%llu",
		       sc_hex(b->id, CLUSTER_BATCH_ID_LEN, id),
		       (unsigned long long)cluster_delivery_count(d[i]));
		for (size_t k = 0; k < b->n; k++)
			printf(" %s", b->links[k].url);
		printf("\n");
		if (ack && (rc = cluster_delivery_ack(d[i])))
			fprintf(stderr, "cluster-probe: ack: %s (%s)\n",
				sc_strerror(rc), cluster_last_error(c));
		cluster_delivery_free(d[i]);
	}
	printf("rejected %zu\n", rejected);
	cluster_consumer_close(cs);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: cluster-probe SERVERS COMMAND ARGS\n");
		return 2;
	}
	split_servers(argv[1]);
	const char *cmd = argv[2];
	int rc = 1;
	struct cluster *c = NULL;
	struct cluster_spool *spool = NULL;
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (strcmp(cmd, "publish-raw") == 0 && argc == 5)
		return publish_raw(argv[3], argv[4]);
	if (strncmp(cmd, "spool-", 6) == 0 && argc >= 4) {
		int src = cluster_spool_open(argv[3], 1 << 20, &spool);
		if (src)
			return die(NULL, "spool", src);
	}
	unsigned replicas = strcmp(cmd, "setup") == 0 && argc == 5
				    ? (unsigned)atoi(argv[3])
				    : 1;
	if (!(c = open_cluster(spool, replicas))) {
		cluster_spool_close(spool);
		return 1;
	}
	if (strcmp(cmd, "spool-publish") != 0 && !wait_connected(c, 10)) {
		fprintf(stderr, "cluster-probe: not connected\n");
		goto out;
	}

	if (strcmp(cmd, "setup") == 0 && argc == 5) {
		double end = now() + atof(argv[4]);
		int src;
		while ((src = cluster_setup(c)) != 0 && now() < end)
			usleep(250000);
		rc = src ? die(c, "setup", src) : (printf("ok\n"), 0);
	} else if (strcmp(cmd, "publish") == 0 && argc >= 6) {
		rc = publish(c, (uint32_t)atoi(argv[3]), argv[4], argv + 5,
			     argc - 5);
	} else if (strcmp(cmd, "fetch") == 0 && argc == 7) {
		rc = fetch(c, (uint32_t)atoi(argv[3]), (size_t)atoi(argv[4]),
			   (unsigned)atoi(argv[5]),
			   strcmp(argv[6], "ack") == 0);
	} else if (strcmp(cmd, "claim") == 0 && argc == 5) {
		unsigned char sig[CLUSTER_SIG_LEN];
		static char owner[CLUSTER_URL_MAX + 1];
		bool claimed = false;
		if (!parse_id(argv[3], sig)) {
			fprintf(stderr, "cluster-probe: bad signature\n");
			goto out;
		}
		int src = cluster_claim_signature(c, sig, argv[4],
						  strlen(argv[4]), &claimed,
						  owner, sizeof(owner));
		if (src)
			rc = die(c, "claim", src);
		else if (claimed)
			rc = (printf("claimed\n"), 0);
		else
			rc = (printf("owner %s\n", owner), 0);
	} else if (strcmp(cmd, "status-put") == 0 && argc == 5) {
		int src = cluster_status_put(c, (uint32_t)atoi(argv[3]),
					     argv[4], strlen(argv[4]));
		rc = src ? die(c, "status-put", src) : (printf("ok\n"), 0);
	} else if (strcmp(cmd, "status-list") == 0 && argc == 3) {
		struct cluster_status *list = NULL;
		size_t n = 0;
		int src = cluster_status_list(c, 0, &list, &n);
		if (src) {
			rc = die(c, "status-list", src);
		} else {
			for (size_t i = 0; i < n; i++)
				printf("%u %s\n", list[i].shard, list[i].json);
			cluster_status_list_free(list, n);
			rc = 0;
		}
	} else if (strcmp(cmd, "spool-publish") == 0 && argc >= 7) {
		rc = publish(c, (uint32_t)atoi(argv[4]), argv[5], argv + 6,
			     argc - 6);
		printf("records %zu\n", cluster_spool_records(spool));
	} else if (strcmp(cmd, "spool-flush") == 0 && argc == 5) {
		size_t n = 0;
		double end = now() + atof(argv[4]);
		if (!wait_connected(c, atof(argv[4]))) {
			fprintf(stderr, "cluster-probe: not connected\n");
			goto out;
		}
		/* A server just back may take a moment to rejoin JetStream:
		 * the records stay spooled, so flush again until the time is
		 * up (as the crawl's next flush would). */
		int src;
		while ((src = cluster_flush_spool(c, 10000, &n)) && now() < end)
			usleep(500000);
		if (src)
			rc = die(c, "flush", src);
		else
			rc = (printf("flushed %zu\n", n), 0);
		printf("records %zu\n", cluster_spool_records(spool));
	} else {
		fprintf(stderr, "cluster-probe: bad command or arguments\n");
		rc = 2;
	}
out:
	cluster_close(c);
	cluster_spool_close(spool);
	return rc;
}
