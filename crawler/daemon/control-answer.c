/* control-answer.c — the control API's answers about the crawl
 * (daemon.h): GET /status as JSON (the counters, the learned rules, the
 * re-crawls and, in detail, the store's totals, the hosts held and
 * waiting and the categories) and GET /metrics in Prometheus' text
 * exposition format 0.0.4, both from a struct crawl_status the daemon
 * took (crawl_status()), and the names of the crawl's states.  No socket,
 * no crawl, no database (of the store, only its error names): the fuzzer
 * compiles this file with control.c. */
#include "daemon.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control-int.h"
#include "store.h"

#define METRICS_TYPE "text/plain; version=0.0.4; charset=utf-8"

const char *control_state_name(enum crawl_state s)
{
	switch (s) {
	case CRAWL_RUNNING: return "running";
	case CRAWL_PAUSED: return "paused";
	case CRAWL_IDLE: return "idle";
	case CRAWL_STOPPING: return "stopping";
	case CRAWL_DISK_FULL: return "disk_full";
	}
	return "unknown";
}

/* ---------------------------------------------------------------------
 * GET /status and GET /metrics
 */

/* A fixed-size string of a crawl_host as JSON: up to its NUL or its
 * size, bytes outside printable ASCII as '?' (host names are ASCII
 * already; curl's messages need not be). */
static json_t *host_string(const char *p, size_t cap)
{
	char t[CRAWL_HOST_NAME_MAX + 1];
	size_t n = 0;
	while (n < cap && n < sizeof(t) - 1 && p[n]) {
		t[n] = p[n] >= 0x20 && p[n] < 0x7f ? p[n] : '?';
		n++;
	}
	return json_stringn(t, n);
}

/* A path or an error of at most cap bytes (NUL-terminated before cap, or
 * cut there) as a JSON string: as it is when it is UTF-8 (a path is bytes,
 * and a store may live under any name), else with every byte that is not
 * printable ASCII written '?', so /status always answers. */
static json_t *text_string(const char *p, size_t cap)
{
	size_t n = strnlen(p, cap);
	json_t *s = json_stringn(p, n);
	if (s)
		return s;
	char *t = malloc(n + 1);
	if (!t)
		return NULL;
	for (size_t i = 0; i < n; i++)
		t[i] = p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?';
	s = json_stringn(t, n);
	free(t);
	return s;
}

/* v (>= 0) to the nearest multiple of 1/scale, for figures that mean
 * nothing past a decimal or three; jansson then prints it short
 * (JSON_FLAGS).  Done without libm, and 0 for anything not a number. */
static double rounded(double v, double scale)
{
	if (!(v > 0))
		return 0;
	if (v > 1e12)
		return 1e12;
	return (double)(uint64_t)(v * scale + 0.5) / scale;
}

/* obj with key set to v (taken), or NULL when either is missing or the
 * member cannot be set (out of memory); obj is dropped then. */
static json_t *with(json_t *obj, const char *key, json_t *v)
{
	if (obj && (!v || json_object_set_new(obj, key, v))) {
		json_decref(obj);
		return NULL;
	}
	if (!obj)
		json_decref(v);
	return obj;
}

/* The hosts held because they could not be reached (crawl.h). */
static json_t *held_hosts(const struct crawl_status *st)
{
	json_t *a = json_array();
	size_t n = st->n_held_listed < CRAWL_HOSTS_LISTED ? st->n_held_listed
							  : CRAWL_HOSTS_LISTED;
	for (size_t i = 0; a && i < n; i++) {
		const struct crawl_host *h = &st->held[i];
		const char *why = store_error_name((enum store_error)h->reason);
		double in = h->retry_in_s >= 0 && h->retry_in_s < 1e9
				    ? rounded(h->retry_in_s, 10)
				    : 0;
		json_t *o = json_pack("{s:o?,s:s,s:o?,s:I,s:f}", "host",
				      host_string(h->name, sizeof(h->name)),
				      "reason", why ? why : "other", "detail",
				      host_string(h->detail, sizeof(h->detail)),
				      "tries", (json_int_t)h->tries,
				      "retry_in_s", in);
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* The hosts held back on purpose (crawl.h, struct crawl_waiting). */
static json_t *waiting_hosts(const struct crawl_status *st)
{
	json_t *a = json_array();
	size_t n = st->n_waiting_listed < CRAWL_HOSTS_LISTED
			   ? st->n_waiting_listed
			   : CRAWL_HOSTS_LISTED;
	for (size_t i = 0; a && i < n; i++) {
		const struct crawl_waiting *w = &st->waiting[i];
		bool robots = w->reason == CRAWL_WAIT_ROBOTS;
		char detail[128];
		if (robots)
			snprintf(detail, sizeof(detail),
				 "%u URLs wait for its robots.txt", w->count);
		else
			snprintf(detail, sizeof(detail),
				 "answered 429 or 503 with Retry-After, %u "
				 "times in a row; held %u s more",
				 w->count, w->seconds_left);
		json_t *o = json_pack(
			"{s:o?,s:s,s:s,s:I}", "host",
			host_string(w->name, sizeof(w->name)), "reason",
			robots ? "robots_txt" : "retry_after", "detail", detail,
			"count", (json_int_t)w->count);
		if (o && !robots &&
		    json_object_set_new(o, "seconds_left",
					json_integer(w->seconds_left))) {
			json_decref(o);
			o = NULL;
		}
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* What a running crawl with nothing in flight and no host ready waits
 * for, in words: its held (unreachable) hosts and those after a
 * Retry-After, and the next of their tries.  NULL when it waits for
 * nothing of the kind (a transfer is under way, a host is within its
 * delay, or the crawl is not running), or without detail. */
static json_t *waiting_for(const struct crawl_status *st)
{
	uint32_t held = st->sum.hosts_held, after = st->hosts_retry_after;
	if (!st->detail || st->state != CRAWL_RUNNING || st->in_flight ||
	    st->hosts_active || st->hosts_delayed || st->hosts_robots ||
	    (!held && !after))
		return NULL;
	double next = -1;
	for (size_t i = 0; i < st->n_held_listed && i < CRAWL_HOSTS_LISTED;
	     i++) {
		double in = st->held[i].retry_in_s;
		if (in >= 0 && in < 1e9 && (next < 0 || in < next))
			next = in;
	}
	for (size_t i = 0; i < st->n_waiting_listed && i < CRAWL_HOSTS_LISTED;
	     i++) {
		const struct crawl_waiting *w = &st->waiting[i];
		if (w->reason == CRAWL_WAIT_RETRY_AFTER &&
		    (next < 0 || w->seconds_left < next))
			next = w->seconds_left;
	}
	char text[192], part[96];
	text[0] = '\0';
	if (held) {
		snprintf(part, sizeof(part), "%u held host%s (unreachable)",
			 held, held == 1 ? "" : "s");
		strcat(text, part);
	}
	if (after) {
		snprintf(part, sizeof(part), "%s%u host%s after Retry-After",
			 held ? " and " : "", after, after == 1 ? "" : "s");
		strcat(text, part);
	}
	if (next >= 0) {
		snprintf(part, sizeof(part), "; the next try in %.0f s",
			 next < 1 ? 1.0 : next);
		strcat(text, part);
	}
	return json_string(text);
}

/* The categories' figures (crawl.h, struct crawl_category_status). */
static json_t *categories(const struct crawl_status *st)
{
	json_t *a = json_array();
	size_t n = st->n_cats_listed < CRAWL_CATEGORIES_LISTED
			   ? st->n_cats_listed
			   : CRAWL_CATEGORIES_LISTED;
	for (size_t i = 0; a && i < n; i++) {
		const struct crawl_category_status *c = &st->cats[i];
		json_t *o = json_pack(
			"{s:o?,s:I,s:I,s:I,s:I,s:I}", "name",
			host_string(c->name, sizeof(c->name)), "keywords",
			(json_int_t)c->keywords, "pruned_scope",
			(json_int_t)c->pruned_scope, "pruned_relevance",
			(json_int_t)c->pruned_relevance, "pruned_predicted",
			(json_int_t)c->pruned_predicted, "also",
			(json_int_t)c->also);
		o = with(o, "looks", json_integer((json_int_t)c->looks));
		o = with(o, "min_relevance",
			 json_real(rounded(c->min_relevance, 1000)));
		/* Since the start; harvest is null without keywords or a
		 * scored page, and at min_relevance 0, where every scored
		 * page is on topic. */
		o = with(o, "pages", json_integer((json_int_t)c->pages));
		o = with(o, "on_topic", json_integer((json_int_t)c->on_topic));
		o = with(o, "harvest",
			 c->keywords && c->scored && c->min_relevance > 0
				 ? json_real(rounded((double)c->on_topic /
							     (double)c->scored,
						     1000))
				 : json_null());
		/* The harvest floor: null without keywords; its running
		 * harvest over every run of the store. */
		o = with(o, "min_harvest",
			 c->has_floor ? json_real(rounded(c->min_harvest, 1000))
				      : json_null());
		o = with(o, "running_harvest",
			 c->has_floor && c->floor_scored
				 ? json_real(rounded(
					   (double)c->floor_on /
						   (double)c->floor_scored,
					   1000))
				 : json_null());
		o = with(o, "explored", json_integer((json_int_t)c->explored));
		o = with(o, "explored_on",
			 json_integer((json_int_t)c->explored_on));
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

void control_status_answer(const struct crawl_status *st, double rate,
			   struct control_answer *ans)
{
	const struct crawl_summary *s = &st->sum;
	json_t *o = json_pack(
		"{s:s,s:I,s:I,s:I,s:I,s:I,s:i,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:f,"
		"s:I,s:I,s:o?}",
		"state", control_state_name(st->state), "pages",
		(json_int_t)s->pages, "bytes", (json_int_t)s->bytes, "queue",
		(json_int_t)st->queued, "seen", (json_int_t)st->seen, "hosts",
		(json_int_t)st->hosts, "in_flight", (int)st->in_flight,
		"duplicates", (json_int_t)(s->dup_exact + s->dup_near),
		"duplicates_exact", (json_int_t)s->dup_exact, "duplicates_near",
		(json_int_t)s->dup_near, "errors", (json_int_t)s->errors,
		"robots_disallowed", (json_int_t)s->robots_disallowed,
		"queued_new", (json_int_t)s->queued, "rate", rounded(rate, 10),
		"uptime", rounded(s->seconds, 1000), "host_budget",
		(json_int_t)s->by_error[STORE_ERROR_HOST_BUDGET], "hosts_held",
		(json_int_t)s->hosts_held, "held", held_hosts(st));
	/* Adaptive normalization: the learned rules (crawler/learn/learn.h). */
	json_t *rules =
		st->adaptive
			? json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "active",
				    (json_int_t)st->rules.active, "candidates",
				    (json_int_t)st->rules.candidates, "retired",
				    (json_int_t)st->rules.retired, "refuted",
				    (json_int_t)st->rules.refuted,
				    "fetches_saved",
				    (json_int_t)st->rules.saved, "audits",
				    (json_int_t)st->rules.audits, "requeued",
				    (json_int_t)st->rules.requeued)
			: json_null();
	o = with(o, "rules", rules);
	/* Re-crawls (docs/recrawl.md): null unless this daemon revisits. */
	const struct crawl_recrawl_stats *re = &s->re;
	json_t *rec =
		st->recrawl
			? json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,"
				    "s:I,s:I}",
				    "scheduled", (json_int_t)st->scheduled,
				    "due", (json_int_t)st->due, "queued",
				    (json_int_t)st->revisits_queued,
				    "revisited", (json_int_t)re->revisited,
				    "unchanged", (json_int_t)re->unchanged,
				    "not_modified",
				    (json_int_t)re->not_modified, "changed",
				    (json_int_t)re->changed, "gone",
				    (json_int_t)re->gone, "failed",
				    (json_int_t)re->failed, "saved",
				    (json_int_t)re->saved, "audited",
				    (json_int_t)re->audited, "diverged",
				    (json_int_t)re->diverged)
			: json_null();
	o = with(o, "recrawl", rec);
	/* Records by error kind, every kind named (the counts of
	 * sigcrawl_errors_total): they add up to "errors".  The crawl's
	 * policy (robots.txt, the page budget) is apart, in
	 * "skipped_by_kind" (sigcrawl_skipped_total). */
	json_t *kinds = json_object(), *skipped = json_object();
	for (int e = 1; kinds && skipped && e < STORE_ERROR_COUNT; e++) {
		json_t *n = json_integer((json_int_t)s->by_error[e]);
		const char *name = store_error_name((enum store_error)e);
		if (store_error_is_policy((enum store_error)e))
			skipped = with(skipped, name, n);
		else
			kinds = with(kinds, name, n);
	}
	o = with(o, "errors_by_kind", kinds);
	o = with(o, "skipped_by_kind", skipped);
	/* This daemon's shard and the links it traded, with [cluster]. */
	o = with(o, "cluster",
		 st->shards ? json_pack("{s:I,s:I,s:I,s:I,s:I}", "shard",
					(json_int_t)st->shard, "shards",
					(json_int_t)st->shards, "links_sent",
					(json_int_t)s->cluster_sent,
					"links_received",
					(json_int_t)s->cluster_received,
					"links_misrouted",
					(json_int_t)s->cluster_misrouted)
			    : json_null());
	/* A full disk (crawler/engine/diskfull.c): which file, why, since when;
	 * null while there is space. */
	const struct crawl_full_status *fu = &st->full;
	o = with(o, "disk_full",
		 fu->on ? json_pack("{s:o,s:o,s:I,s:b}", "path",
				    text_string(fu->path, sizeof(fu->path)),
				    "error",
				    text_string(fu->error, sizeof(fu->error)),
				    "since", (json_int_t)(fu->since_ms / 1000),
				    "ceiling", fu->ceiling)
			: json_null());
	o = with(o, "disk_full_episodes",
		 json_integer((json_int_t)fu->episodes));
	/* concurrency: "auto" or the fixed number; the transfers it allows
	 * now, and the most there were at once. */
	o = with(o, "concurrency",
		 st->concurrency ? json_integer((json_int_t)st->concurrency)
				 : json_string("auto"));
	o = with(o, "transfers_max",
		 json_integer((json_int_t)st->transfers_max));
	o = with(o, "in_flight_peak",
		 json_integer((json_int_t)st->in_flight_peak));
	json_t *wf = waiting_for(st);
	o = with(o, "waiting_for", wf ? wf : json_null());
	/* Pages fetched that said noindex and nofollow; those a learned
	 * skip left unfetched are skipped_by_kind's
	 * skipped_noindex_nofollow. */
	o = with(o, "noindex_nofollow",
		 json_integer((json_int_t)s->noindex_nofollow));
	if (st->detail) {
		o = with(o, "hosts_active",
			 json_integer((json_int_t)st->hosts_active));
		o = with(o, "hosts_delayed",
			 json_integer((json_int_t)st->hosts_delayed));
		/* Every run of the store counted, where the counters above
		 * count since the start (docs/daemon.md). */
		o = with(o, "store",
			 json_pack("{s:I,s:I}", "records",
				   (json_int_t)st->store_records, "fetches",
				   (json_int_t)st->store_fetches));
		o = with(o, "hosts_waiting",
			 json_integer((json_int_t)st->hosts_retry_after +
				      (json_int_t)st->hosts_robots));
		o = with(o, "waiting", waiting_hosts(st));
		o = with(o, "categories", categories(st));
	}
	*ans = (struct control_answer){
		.status = o ? 200 : 500,
		.content_type = JSON_TYPE,
		.body = o ? json_dumps(o, JSON_FLAGS) : NULL,
	};
	json_decref(o);
}

static void metric_head(FILE *f, const char *name, const char *type,
			const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void control_metrics_answer(const struct crawl_status *st,
			    struct control_answer *ans)
{
	const struct crawl_summary *s = &st->sum;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	*ans = (struct control_answer){ .status = 500,
					.content_type = METRICS_TYPE };
	if (!f)
		return;
	static const char *const classes[6] = { "none", "1xx", "2xx",
						"3xx",  "4xx", "5xx" };
	metric_head(f, "sigcrawl_pages_fetched_total", "counter",
		    "Pages fetched and committed, by HTTP status class.");
	for (int i = 1; i <= 6; i++)
		fprintf(f, "sigcrawl_pages_fetched_total{class=\"%s\"} %llu\n",
			classes[i % 6], (unsigned long long)s->by_class[i % 6]);
	if (st->shards) {
		metric_head(f, "sigcrawl_shard_info", "gauge",
			    "This daemon's shard of the cluster (1).");
		fprintf(f,
			"sigcrawl_shard_info{shard=\"%u\",shards=\"%u\"} 1\n",
			st->shard, st->shards);
		metric_head(f, "sigcrawl_cluster_links_total", "counter",
			    "URLs sent to other shards, received from them and "
			    "queued, and received for another shard.");
		fprintf(f,
			"sigcrawl_cluster_links_total{shard=\"%u\","
			"direction=\"sent\"} %llu\n"
			"sigcrawl_cluster_links_total{shard=\"%u\","
			"direction=\"received\"} %llu\n"
			"sigcrawl_cluster_links_total{shard=\"%u\","
			"direction=\"misrouted\"} %llu\n",
			st->shard, (unsigned long long)s->cluster_sent,
			st->shard, (unsigned long long)s->cluster_received,
			st->shard, (unsigned long long)s->cluster_misrouted);
	}
	metric_head(f, "sigcrawl_bytes_total", "counter",
		    "Body bytes received (decoded).");
	fprintf(f, "sigcrawl_bytes_total %llu\n", (unsigned long long)s->bytes);
	metric_head(f, "sigcrawl_queue_depth", "gauge",
		    "URLs in the frontier's queue.");
	fprintf(f, "sigcrawl_queue_depth %llu\n",
		(unsigned long long)st->queued);
	metric_head(f, "sigcrawl_urls_seen", "gauge", "URLs ever queued.");
	fprintf(f, "sigcrawl_urls_seen %llu\n", (unsigned long long)st->seen);
	metric_head(f, "sigcrawl_hosts", "gauge", "Hosts known.");
	fprintf(f, "sigcrawl_hosts %u\n", st->hosts);
	metric_head(f, "sigcrawl_transfers_in_flight", "gauge",
		    "Transfers in flight, robots.txt included.");
	fprintf(f, "sigcrawl_transfers_in_flight %u\n", st->in_flight);
	if (st->detail) {
		metric_head(f, "sigcrawl_hosts_active", "gauge",
			    "Hosts with a fetch under way.");
		fprintf(f, "sigcrawl_hosts_active %u\n", st->hosts_active);
		metric_head(f, "sigcrawl_hosts_delayed", "gauge",
			    "Hosts with URLs ready, waiting for their "
			    "politeness delay.");
		fprintf(f, "sigcrawl_hosts_delayed %u\n", st->hosts_delayed);
	}
	metric_head(f, "sigcrawl_hosts_held", "gauge",
		    "Hosts held because they could not be reached.");
	fprintf(f, "sigcrawl_hosts_held %u\n", s->hosts_held);
	if (st->detail) {
		metric_head(f, "sigcrawl_hosts_waiting", "gauge",
			    "Hosts held back on purpose, by reason.");
		fprintf(f,
			"sigcrawl_hosts_waiting{reason=\"retry_after\"} %u\n"
			"sigcrawl_hosts_waiting{reason=\"robots_txt\"} %u\n",
			st->hosts_retry_after, st->hosts_robots);
		metric_head(f, "sigcrawl_store_records", "gauge",
			    "URL records in the store, every run counted.");
		fprintf(f, "sigcrawl_store_records %llu\n",
			(unsigned long long)st->store_records);
		metric_head(f, "sigcrawl_store_fetches", "gauge",
			    "Fetches committed to the store, every run "
			    "counted.");
		fprintf(f, "sigcrawl_store_fetches %llu\n",
			(unsigned long long)st->store_fetches);
	}
	if (st->detail && st->n_cats_listed) {
		/* The categories (names are A-Z a-z 0-9 . _ -: no label
		 * escaping needed); harvest is on_topic / scored. */
		static const char *const cat_metrics[3][2] = {
			{ "sigcrawl_category_pages_total",
			  "Pages fetched for a category since the start." },
			{ "sigcrawl_category_scored_total",
			  "Pages of a category with keywords scored for "
			  "relevance since the start." },
			{ "sigcrawl_category_on_topic_total",
			  "Scored pages found on topic since the start "
			  "(harvest: on_topic / scored)." },
		};
		size_t n = st->n_cats_listed < CRAWL_CATEGORIES_LISTED
				   ? st->n_cats_listed
				   : CRAWL_CATEGORIES_LISTED;
		for (int m = 0; m < 3; m++) {
			metric_head(f, cat_metrics[m][0], "counter",
				    cat_metrics[m][1]);
			for (size_t i = 0; i < n; i++) {
				const struct crawl_category_status *c =
					&st->cats[i];
				uint64_t v = m == 0   ? c->pages
					     : m == 1 ? c->scored
						      : c->on_topic;
				fprintf(f, "%s{category=\"%.*s\"} %llu\n",
					cat_metrics[m][0],
					(int)strnlen(c->name, sizeof(c->name)),
					c->name, (unsigned long long)v);
			}
		}
	}
	metric_head(f, "sigcrawl_paused", "gauge",
		    "1 while paused by POST /pause.");
	fprintf(f, "sigcrawl_paused %d\n", st->state == CRAWL_PAUSED);
	metric_head(f, "sigcrawl_disk_full", "gauge",
		    "1 while fetching waits for disk space (or for a larger "
		    "[store] max_size).");
	fprintf(f, "sigcrawl_disk_full %d\n", st->full.on);
	metric_head(f, "sigcrawl_disk_full_episodes_total", "counter",
		    "Times the writer found no space, since the start.");
	fprintf(f, "sigcrawl_disk_full_episodes_total %llu\n",
		(unsigned long long)st->full.episodes);
	metric_head(f, "sigcrawl_duplicates_total", "counter",
		    "Pages collapsed into a representative, by kind.");
	fprintf(f, "sigcrawl_duplicates_total{kind=\"signature\"} %llu\n",
		(unsigned long long)s->dup_exact);
	fprintf(f, "sigcrawl_duplicates_total{kind=\"near\"} %llu\n",
		(unsigned long long)s->dup_near);
	metric_head(f, "sigcrawl_errors_total", "counter",
		    "Records in error, by kind (they add up to /status's "
		    "errors).");
	for (int e = 1; e < STORE_ERROR_COUNT; e++)
		if (!store_error_is_policy((enum store_error)e))
			fprintf(f, "sigcrawl_errors_total{kind=\"%s\"} %llu\n",
				store_error_name((enum store_error)e),
				(unsigned long long)s->by_error[e]);
	metric_head(f, "sigcrawl_skipped_total", "counter",
		    "Records not fetched by the crawl's policy, by reason "
		    "(robots.txt, the host's page budget, a learned "
		    "noindex,nofollow shape).");
	for (int e = 1; e < STORE_ERROR_COUNT; e++)
		if (store_error_is_policy((enum store_error)e))
			fprintf(f,
				"sigcrawl_skipped_total{reason=\"%s\"} %llu\n",
				store_error_name((enum store_error)e),
				(unsigned long long)s->by_error[e]);
	metric_head(f, "sigcrawl_links_bad_total", "counter",
		    "Links that failed to normalize.");
	fprintf(f, "sigcrawl_links_bad_total %llu\n",
		(unsigned long long)s->links_bad);
	metric_head(f, "sigcrawl_fetch_duration_seconds", "histogram",
		    "Page transfer durations.");
	uint64_t cum = 0;
	for (int i = 0; i < CRAWL_LATENCY_BUCKETS; i++) {
		cum += st->latency_count[i];
		fprintf(f,
			"sigcrawl_fetch_duration_seconds_bucket{le=\"%g\"} "
			"%llu\n",
			crawl_latency_le[i], (unsigned long long)cum);
	}
	cum += st->latency_count[CRAWL_LATENCY_BUCKETS];
	fprintf(f, "sigcrawl_fetch_duration_seconds_bucket{le=\"+Inf\"} %llu\n",
		(unsigned long long)cum);
	fprintf(f, "sigcrawl_fetch_duration_seconds_sum %.6f\n",
		st->latency_sum);
	fprintf(f, "sigcrawl_fetch_duration_seconds_count %llu\n",
		(unsigned long long)cum);
	metric_head(f, "sigcrawl_rules", "gauge",
		    "Learned rewrite rules (profile adaptive), by state.");
	const uint64_t by_state[4] = { st->rules.candidates, st->rules.active,
				       st->rules.retired, st->rules.refuted };
	static const char *const states[4] = { "candidate", "active", "retired",
					       "refuted" };
	for (int i = 0; i < 4; i++)
		fprintf(f, "sigcrawl_rules{state=\"%s\"} %llu\n", states[i],
			(unsigned long long)by_state[i]);
	metric_head(f, "sigcrawl_rules_fetches_saved", "gauge",
		    "URLs held back by the active learned rules instead of "
		    "fetched (every run of the store).");
	fprintf(f, "sigcrawl_rules_fetches_saved %llu\n",
		(unsigned long long)st->rules.saved);
	metric_head(f, "sigcrawl_rules_audits", "gauge",
		    "Held-back URLs fetched all the same to test their rule.");
	fprintf(f, "sigcrawl_rules_audits %llu\n",
		(unsigned long long)st->rules.audits);
	metric_head(f, "sigcrawl_recrawl_scheduled", "gauge",
		    "Fetched pages with a next visit scheduled.");
	fprintf(f, "sigcrawl_recrawl_scheduled %llu\n",
		(unsigned long long)st->scheduled);
	metric_head(f, "sigcrawl_recrawl_due", "gauge",
		    "Pages due for a visit now, queued or not (counted up to "
		    "100000).");
	fprintf(f, "sigcrawl_recrawl_due %llu\n", (unsigned long long)st->due);
	metric_head(f, "sigcrawl_revisits_total", "counter",
		    "Revisits committed since the start, by outcome.");
	const struct crawl_recrawl_stats *re = &s->re;
	const uint64_t by_outcome[5] = { re->unchanged - re->not_modified,
					 re->not_modified, re->changed,
					 re->gone, re->failed };
	static const char *const outcomes[5] = { "unchanged", "not_modified",
						 "changed", "gone", "failed" };
	for (int i = 0; i < 5; i++)
		fprintf(f, "sigcrawl_revisits_total{outcome=\"%s\"} %llu\n",
			outcomes[i], (unsigned long long)by_outcome[i]);
	metric_head(f, "sigcrawl_recrawl_saved_total", "counter",
		    "Duplicates that came due and were not fetched.");
	fprintf(f, "sigcrawl_recrawl_saved_total %llu\n",
		(unsigned long long)re->saved);
	metric_head(f, "sigcrawl_recrawl_audits_total", "counter",
		    "Duplicates fetched all the same to audit them, and those "
		    "found diverged.");
	fprintf(f, "sigcrawl_recrawl_audits_total{result=\"fetched\"} %llu\n",
		(unsigned long long)re->audited);
	fprintf(f, "sigcrawl_recrawl_audits_total{result=\"diverged\"} %llu\n",
		(unsigned long long)re->diverged);
	metric_head(f, "sigcrawl_pages_per_second", "gauge",
		    "Pages committed per second over the last 10 s (the "
		    "rate of /status).");
	fprintf(f, "sigcrawl_pages_per_second %.1f\n", rounded(st->rate, 10));
	metric_head(f, "sigcrawl_uptime_seconds", "gauge",
		    "Seconds since the daemon started.");
	fprintf(f, "sigcrawl_uptime_seconds %.3f\n", s->seconds);
	if (fclose(f) != 0) {
		free(buf);
		return;
	}
	ans->status = 200;
	ans->body = buf;
}
