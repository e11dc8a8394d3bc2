/* cmd-client.c — `sigcrawl submit` and `sigcrawl status`: clients of the
 * daemon's control API (daemon.h), over its Unix socket or loopback TCP
 * port, with libcurl. */
#include <curl/curl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster.h"
#include "commands.h"
#include "conf.h"
#include "daemon.h"

/* The largest answer read. */
#define ANSWER_MAX (16 * 1024 * 1024)
/* A submission is sent in requests of at most this many lines and bytes,
 * well inside the daemon's limits (CONTROL_SEEDS_MAX, CONTROL_BODY_MAX):
 * a line longer than a URL may be (NORM_INPUT_MAX) is rejected here and
 * not sent, so no request grows past CHUNK_BYTES + NORM_INPUT_MAX. */
#define CHUNK_LINES 5000
#define CHUNK_BYTES (512 * 1024)
/* Bytes of a line rejected here that its message shows. */
#define REJECTED_SHOWN 60

static size_t on_data(char *data, size_t size, size_t nmemb, void *arg)
{
	struct sc_dynbuf *b = arg;
	size_t n = size * nmemb;
	/* A failure (past ANSWER_MAX, out of memory) ends the transfer. */
	return sc_dyn_add(b, data, n) ? 0 : n;
}

/* The daemon's address: --control ADDR, else [control] listen of -c FILE,
 * else the default.  Checked the way the config file's key is. */
static struct conf *control_conf(const char *cmd, const char *addr,
				 const char *config)
{
	struct conf *cf = NULL;
	char err[512];
	int rc;
	if (addr) {
		char text[4200];
		int n = snprintf(text, sizeof(text), "[control]\nlisten = %s\n",
				 addr);
		if (n < 0 || (size_t)n >= sizeof(text) || strchr(addr, '\n')) {
			sc_errorf(cmd, "--control: address too long");
			return NULL;
		}
		rc = conf_load_buffer(text, (size_t)n, NULL, &cf, err,
				      sizeof(err));
		if (rc) {
			/* "<string>:2: [control] listen: why" */
			const char *why = strstr(err, "listen: ");
			sc_errorf(cmd, "--control %s: %s", addr,
				  why ? why + 8 : err);
		}
	} else if (config) {
		if ((rc = conf_load(config, &cf, err, sizeof(err))))
			sc_errorf(cmd, "%s", err);
	} else if ((rc = conf_default(&cf))) {
		sc_errorf(cmd, "%s", sc_strerror(rc));
	}
	return rc ? NULL : cf;
}

/* One request; *status is the HTTP status, 0 if the daemon could not be
 * reached (message printed).  body NULL: GET. */
static void request(const char *cmd, const struct conf *cf, const char *path,
		    const char *body, size_t len, struct sc_dynbuf *ans,
		    long *status)
{
	*status = 0;
	CURL *e = curl_easy_init();
	if (!e) {
		sc_errorf(cmd, "out of memory");
		return;
	}
	char url[600];
	if (cf->control.kind == CONF_LISTEN_UNIX) {
		curl_easy_setopt(e, CURLOPT_UNIX_SOCKET_PATH,
				 cf->control.unix_path);
		snprintf(url, sizeof(url), "http://localhost%s", path);
	} else {
		bool v6 = strchr(cf->control.tcp_host, ':') != NULL;
		snprintf(url, sizeof(url), "http://%s%s%s:%u%s", v6 ? "[" : "",
			 cf->control.tcp_host, v6 ? "]" : "",
			 cf->control.tcp_port, path);
	}
	struct curl_slist *h = NULL;
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT, 120L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, ans);
	if (body) {
		h = curl_slist_append(h, "Content-Type: text/plain");
		curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)len);
	}
	CURLcode cc = curl_easy_perform(e);
	if (cc != CURLE_OK)
		sc_errorf(cmd, "cannot reach the daemon at %s: %s",
			  cf->control.listen, curl_easy_strerror(cc));
	else
		curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, status);
	curl_slist_free_all(h);
	curl_easy_cleanup(e);
}

/* An error answer: print its message; 4xx is the user's (2), else 1. */
static int answer_error(const char *cmd, long status,
			const struct sc_dynbuf *ans)
{
	json_t *o = ans->p ? json_loads(ans->p, 0, NULL) : NULL;
	const char *msg = json_string_value(json_object_get(o, "error"));
	sc_errorf(cmd, "the daemon answered %ld: %s", status,
		  msg ? msg : "(no message)");
	json_decref(o);
	return status >= 400 && status < 500 ? EXIT_USAGE : EXIT_RUNTIME;
}

/* ---------------------------------------------------------------------
 * sigcrawl status
 */

static void status_usage(FILE *f)
{
	fprintf(f,
		"usage: sigcrawl status [--control ADDR] [-c FILE]\n"
		"       sigcrawl status --cluster -c FILE\n"
		"\n"
		"Prints the running daemon's state as one line of JSON: state\n"
		"(running, paused, idle, stopping), pages, queue, hosts,\n"
		"duplicates, errors, rate (pages/s), uptime and more.\n"
		"\n"
		"  --control ADDR   unix:PATH or tcp:HOST:PORT\n"
		"  -c, --config FILE  take the address from [control] listen\n"
		"                   (default unix:/run/sigcrawl/control.sock)\n"
		"  --cluster        every shard's status as its daemon last put\n"
		"                   it in NATS ([cluster] nats of -c FILE), and\n"
		"                   the totals, as one line of JSON\n");
}

static bool cluster_flag;

static int client_args(const char *cmd, int argc, char **argv,
		       void (*usage)(FILE *), const char **addr,
		       const char **config, const char **category)
{
	static const struct option longopts[] = {
		{ "control", required_argument, NULL, 'C' },
		{ "config", required_argument, NULL, 'c' },
		{ "category", required_argument, NULL, 'k' },
		{ "cluster", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'C': *addr = optarg; break;
		case 'c': *config = optarg; break;
		case 'K': cluster_flag = true; break;
		case 'k':
			if (!category)
				goto bad;
			*category = optarg;
			break;
		case 'h': usage(stdout); return EXIT_OK;
		default: goto bad;
		}
	}
	return -1;
bad:
	sc_errorf(cmd, "bad option '%s' (see --help)", argv[optind - 1]);
	return EXIT_USAGE;
}

/* status --cluster: the shards' documents from the status bucket, and
 * their totals. */
static int cluster_status(const char *config)
{
	if (!config) {
		sc_errorf("status", "--cluster needs -c FILE with a [cluster] "
				    "section");
		return EXIT_USAGE;
	}
	struct conf *cf = NULL;
	char err[512];
	if (conf_load(config, &cf, err, sizeof(err))) {
		sc_errorf("status", "%s", err);
		return EXIT_USAGE;
	}
	if (!cf->cluster.enabled) {
		sc_errorf("status", "%s has no [cluster] section", config);
		conf_free(cf);
		return EXIT_USAGE;
	}
	struct cluster_opts co = {
		.servers = (const char *const *)cf->cluster.nats,
		.n_servers = cf->cluster.n_nats,
		.name = "sigcrawl status",
		.connect_timeout_ms = 2000,
	};
	struct cluster *nc = NULL;
	int rc = cluster_open(&co, &nc, err, sizeof(err));
	for (int i = 0; !rc && i < 50 && !cluster_connected(nc); i++) {
		struct timespec ts = { 0, 100 * 1000000L };
		nanosleep(&ts, NULL);
	}
	struct cluster_status *list = NULL;
	size_t n = 0;
	if (!rc && !cluster_connected(nc)) {
		snprintf(err, sizeof(err), "no NATS server of %s answers",
			 config);
		rc = SC_E_NET;
	} else if (!rc && (rc = cluster_status_list(nc, cf->cluster.shards,
						    &list, &n))) {
		snprintf(err, sizeof(err), "%s", cluster_last_error(nc));
	}
	/* Batches not yet acked: links on their way between shards. */
	uint64_t in_stream = 0;
	bool have_stream = !rc && cluster_stream_msgs(nc, &in_stream) == 0;
	unsigned shards = cf->cluster.shards;
	cluster_close(nc);
	conf_free(cf);
	if (rc) {
		sc_errorf("status", "cluster: %s", err);
		return EXIT_RUNTIME;
	}
	json_t *out = json_object(), *arr = json_array();
	json_int_t pages = 0, queue = 0, dups = 0, errors = 0, sent = 0,
		   received = 0;
	double rate = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *doc = json_loads(list[i].json, 0, NULL);
		if (!doc)
			continue;
		json_t *st = json_object_get(doc, "status");
		json_t *links = json_object_get(doc, "links");
		pages += json_integer_value(json_object_get(st, "pages"));
		queue += json_integer_value(json_object_get(st, "queue"));
		dups += json_integer_value(json_object_get(st, "duplicates"));
		errors += json_integer_value(json_object_get(st, "errors"));
		rate += json_number_value(json_object_get(st, "rate"));
		sent += json_integer_value(json_object_get(links, "sent"));
		received += json_integer_value(
			json_object_get(links, "received"));
		json_array_append_new(arr, doc);
	}
	cluster_status_list_free(list, n);
	json_object_set_new(out, "shards", json_integer(shards));
	json_object_set_new(out, "reporting", json_integer((json_int_t)n));
	json_object_set_new(out, "batches_in_stream",
			    have_stream ? json_integer((json_int_t)in_stream)
					: json_null());
	json_object_set_new(
		out, "totals",
		json_pack("{s:I,s:I,s:I,s:I,s:f,s:I,s:I}", "pages", pages,
			  "queue", queue, "duplicates", dups, "errors", errors,
			  "rate", (double)(long long)(rate * 10 + 0.5) / 10,
			  "links_sent", sent, "links_received", received));
	json_object_set_new(out, "status", arr);
	char *text = json_dumps(out, JSON_COMPACT);
	json_decref(out);
	if (!text) {
		sc_errorf("status", "out of memory");
		return EXIT_RUNTIME;
	}
	puts(text);
	free(text);
	return EXIT_OK;
}

int cmd_status(int argc, char **argv)
{
	const char *addr = NULL, *config = NULL;
	int code = client_args("status", argc, argv, status_usage, &addr,
			       &config, NULL);
	if (code >= 0)
		return code;
	if (optind < argc) {
		sc_errorf("status", "unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	if (cluster_flag)
		return cluster_status(config);
	struct conf *cf = control_conf("status", addr, config);
	if (!cf)
		return EXIT_USAGE;
	struct sc_dynbuf ans;
	sc_dyn_init(&ans, ANSWER_MAX + 1);
	long status;
	request("status", cf, "/status", NULL, 0, &ans, &status);
	conf_free(cf);
	int rc = EXIT_OK;
	if (!status)
		rc = EXIT_RUNTIME;
	else if (status != 200)
		rc = answer_error("status", status, &ans);
	else
		fputs(ans.p ? ans.p : "{}\n", stdout);
	sc_dyn_free(&ans);
	return rc;
}

/* ---------------------------------------------------------------------
 * sigcrawl submit
 */

static void submit_usage(FILE *f)
{
	fprintf(f,
		"usage: sigcrawl submit [--control ADDR] [-c FILE] --category NAME\n"
		"                       [URL... | -]\n"
		"\n"
		"Submits seed URLs to the running daemon, as arguments or one per\n"
		"line on stdin ('-', or no URL argument; '#' comments and blank\n"
		"lines skipped), in requests of at most 5000 lines.  Prints each\n"
		"rejected line with its number and reason, then how many were\n"
		"accepted (queued), already known and rejected.\n"
		"\n"
		"Exit status: 0 every line taken, 1 some lines rejected (the others\n"
		"were submitted) or the daemon cannot be reached, 2 bad usage (an\n"
		"unknown category, say).  Interrupted (Ctrl-C), it says how far it\n"
		"got, then dies of the signal; a second Ctrl-C stops it at once.\n"
		"\n"
		"  --category NAME  a [category NAME] of the daemon's config\n"
		"  --control ADDR   unix:PATH or tcp:HOST:PORT\n"
		"  -c, --config FILE  take the address from [control] listen\n"
		"  --cluster        with -c FILE: no daemon is asked; each URL is\n"
		"                   published to its shard's subject in NATS\n"
		"                   ([cluster] nats), where that shard's daemon\n"
		"                   takes it; prints how many were published\n");
}

struct totals {
	long long accepted, known, rejected;
	unsigned sent; /* input lines submitted */
};

/* A line rejected here rather than by the daemon: too long to be a URL.
 * Kept until its request's answer, to be listed in line order. */
struct local_reject {
	unsigned line;
	char text[REJECTED_SHOWN + 1];
	size_t len;
};

/* A chunk of the input: at most CHUNK_LINES lines and CHUNK_BYTES bytes,
 * its first line being line first of the input. */
struct chunk {
	struct sc_dynbuf text;
	unsigned lines, first;
	struct local_reject local[CHUNK_LINES];
	size_t n_local;
};

/* The signal that interrupted the submission, or 0. */
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	interrupted = sig;
}

/* Bytes outside printable ASCII as '?', as the daemon shows lines. */
static void printable(char *t, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		t[i] = p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?';
	t[n] = '\0';
}

static void print_local(const struct local_reject *r)
{
	printf("rejected line %u: %s...: line too long (%zu bytes, at most "
	       "%d)\n",
	       r->line, r->text, r->len, NORM_INPUT_MAX);
}

/* Send a chunk and print its rejected lines, the daemon's and those
 * rejected here, in line order. */
static int send_chunk(const struct conf *cf, const char *path,
		      const struct chunk *ch, struct totals *t)
{
	struct sc_dynbuf ans;
	sc_dyn_init(&ans, ANSWER_MAX + 1);
	long status;
	request("submit", cf, path, ch->text.p ? ch->text.p : "", ch->text.len,
		&ans, &status);
	int rc = EXIT_OK;
	json_t *o = NULL;
	if (!status) {
		rc = EXIT_RUNTIME;
	} else if (status != 200) {
		rc = answer_error("submit", status, &ans);
	} else if (!(o = json_loads(ans.p ? ans.p : "", 0, NULL))) {
		sc_errorf("submit", "the daemon's answer is not JSON");
		rc = EXIT_RUNTIME;
	}
	if (rc) {
		sc_dyn_free(&ans);
		return rc;
	}
	json_t *list = json_object_get(o, "rejected_lines");
	long long rejected = json_integer_value(json_object_get(o, "rejected"));
	t->accepted += json_integer_value(json_object_get(o, "accepted"));
	t->known += json_integer_value(json_object_get(o, "known"));
	t->rejected += rejected + (long long)ch->n_local;
	t->sent = ch->first + ch->lines - 1;
	size_t i = 0, k = 0, n = json_array_size(list);
	while (i < n || k < ch->n_local) {
		json_t *r = json_array_get(list, i);
		long long line = i < n ? json_integer_value(
						 json_object_get(r, "line")) +
						 ch->first - 1
				       : LLONG_MAX;
		if (k < ch->n_local && ch->local[k].line < line) {
			print_local(&ch->local[k++]);
			continue;
		}
		const char *url = json_string_value(json_object_get(r, "url"));
		const char *why = json_string_value(
			json_object_get(r, "reason"));
		printf("rejected line %lld: %s: %s\n", line, url ? url : "",
		       why ? why : "rejected");
		i++;
	}
	/* A daemon lists every rejected line of a request; one with a
	 * lower bound on the list says how many it left out. */
	if (rejected > (long long)n)
		printf("(%lld more rejected lines among lines %u-%u not "
		       "listed)\n",
		       rejected - (long long)n, ch->first,
		       ch->first + ch->lines - 1);
	json_decref(o);
	sc_dyn_free(&ans);
	return EXIT_OK;
}

/* The next line of f into buf (room for cap bytes), without its newline.
 * Returns its whole length, which may be more than cap (the rest was
 * read and dropped), or -1 at the end of the input, or when a signal
 * interrupted the reading. */
static ssize_t read_line(FILE *f, char *buf, size_t cap)
{
	size_t n = 0;
	int ch;
	while ((ch = getc(f)) != EOF && ch != '\n') {
		if (n < cap)
			buf[n] = (char)ch;
		n++;
	}
	if (ch == EOF && (n == 0 || interrupted))
		return -1;
	return (ssize_t)n;
}

/* Add one input line (p, n bytes) to the chunk.  A line that cannot be a
 * URL (longer than NORM_INPUT_MAX) is rejected here; an empty line takes
 * its place, so that the daemon's line numbers still count the input's. */
static int chunk_add(struct chunk *ch, unsigned lineno, const char *p, size_t n)
{
	if (n > NORM_INPUT_MAX) {
		struct local_reject *r = &ch->local[ch->n_local++];
		r->line = lineno;
		r->len = n;
		printable(r->text, p, REJECTED_SHOWN);
		n = 0;
	}
	/* A line break inside a URL argument would shift the numbers:
	 * what follows it is not sent. */
	const char *nl = memchr(p, '\n', n);
	if (nl)
		n = (size_t)(nl - p);
	ch->lines++;
	if (sc_dyn_add(&ch->text, p, n) || sc_dyn_add(&ch->text, "\n", 1))
		return EXIT_RUNTIME;
	return EXIT_OK;
}

/* Send the chunk, then start the next one after it. */
static int chunk_send(const struct conf *cf, const char *path, struct chunk *ch,
		      struct totals *t)
{
	int rc = send_chunk(cf, path, ch, t);
	sc_dyn_reset(&ch->text);
	ch->first += ch->lines;
	ch->lines = 0;
	ch->n_local = 0;
	return rc;
}

/* The next input line of submit: from stdin (into line) or the next
 * argument (argv[*i], *i advanced).  Returns 0, or -1 at the end. */
static int next_input(bool from_stdin, int argc, char **argv, int *i,
		      char *line, const char **l, size_t *n)
{
	if (from_stdin) {
		ssize_t got = read_line(stdin, line, NORM_INPUT_MAX);
		if (got < 0)
			return -1;
		*l = line;
		*n = (size_t)got;
		return 0;
	}
	if (*i >= argc)
		return -1;
	*l = argv[(*i)++];
	*n = strlen(*l);
	return 0;
}

/* submit --cluster: one shard's batch being filled.  Its URLs are copied
 * into text, allocated at its first URL; it goes out when it holds
 * CLUSTER_BATCH_LINKS_MAX links or PEND_TEXT bytes of URLs (which keeps
 * the message under CLUSTER_BATCH_BYTES_MAX). */
#define PEND_TEXT (192 * 1024)
struct pend {
	struct cluster_link *l;
	char *text;
	size_t n, used;
};

/* Publish p's batch to shard s; *published counts its links.  Returns 0
 * or cluster_batch_encode()'s or cluster_publish()'s error. */
static int pend_flush(struct cluster *nc, uint32_t s, struct pend *p,
		      struct sc_dynbuf *enc, long long *published)
{
	if (!p->n)
		return 0;
	unsigned char id[CLUSTER_BATCH_ID_LEN];
	cluster_batch_id_new(s, id);
	int rc = cluster_batch_encode(id, p->l, p->n, enc);
	if (!rc)
		rc = cluster_publish(nc, s, enc->p, enc->len, NULL);
	if (!rc)
		*published += (long long)p->n;
	p->n = p->used = 0;
	return rc;
}

/* submit --cluster: the URLs, checked and normalized (strict: the shard
 * that takes them normalizes them under its own profile), published to
 * their shards' subjects in batches, and the acks waited for. */
static int cluster_submit(const char *config, const char *category, int argc,
			  char **argv, bool from_stdin)
{
	if (!config) {
		sc_errorf("submit", "--cluster needs -c FILE with a [cluster] "
				    "section");
		return EXIT_USAGE;
	}
	struct conf *cf = NULL;
	char err[512] = "";
	if (conf_load(config, &cf, err, sizeof(err))) {
		sc_errorf("submit", "%s", err);
		return EXIT_USAGE;
	}
	if (!cf->cluster.enabled || !conf_category_find(cf, category)) {
		sc_errorf("submit",
			  cf->cluster.enabled
				  ? "unknown category '%.40s' (no [category] "
				    "section of that name in the config)"
				  : "%s has no [cluster] section",
			  cf->cluster.enabled ? category : config);
		conf_free(cf);
		return EXIT_USAGE;
	}
	uint32_t shards = cf->cluster.shards;
	struct cluster_opts co = {
		.servers = (const char *const *)cf->cluster.nats,
		.n_servers = cf->cluster.n_nats,
		.name = "sigcrawl submit",
	};
	struct cluster *nc = NULL;
	int rc = cluster_open(&co, &nc, err, sizeof(err));
	for (int i = 0; !rc && i < 50 && !cluster_connected(nc); i++) {
		struct timespec ts = { 0, 100 * 1000000L };
		nanosleep(&ts, NULL);
	}
	if (!rc && !cluster_connected(nc)) {
		snprintf(err, sizeof(err), "no NATS server of %s answers",
			 config);
		rc = SC_E_NET;
	}
	struct pend *pend = rc ? NULL : calloc(shards, sizeof(*pend));
	struct norm_opts no = { .steps = norm_profile_steps(
					NORM_PROFILE_STRICT) };
	char line[NORM_INPUT_MAX + 1], url[NORM_URL_MAX + 1],
		found[NORM_URL_MAX + 1];
	struct sc_dynbuf enc;
	sc_dyn_init(&enc, CLUSTER_BATCH_BYTES_MAX + 1);
	long long published = 0, rejected = 0;
	unsigned lineno = 0;
	if (!rc && !pend)
		rc = SC_E_NOMEM;
	const char *l;
	size_t n;
	int arg = optind;
	while (!rc &&
	       next_input(from_stdin, argc, argv, &arg, line, &l, &n) == 0) {
		lineno++;
		while (n && (*l == ' ' || *l == '\t')) {
			l++;
			n--;
		}
		if (!n || *l == '#')
			continue;
		struct norm_url u, fu;
		int r = n > NORM_INPUT_MAX ? SC_E_LIMIT
					   : crawl_seed_url(&no, l, n, url, &u,
							    found, &fu);
		if (r) {
			printf("line %u: %s\n", lineno, sc_strerror(r));
			rejected++;
			continue;
		}
		uint32_t s = cluster_shard_of(url + u.host_off, u.host_len,
					      shards);
		struct pend *p = &pend[s];
		if (!p->text && (!(p->text = malloc(PEND_TEXT)) ||
				 !(p->l = malloc(CLUSTER_BATCH_LINKS_MAX *
						 sizeof(*p->l))))) {
			rc = SC_E_NOMEM;
			break;
		}
		if (p->used + (size_t)u.len + 1 > PEND_TEXT &&
		    (rc = pend_flush(nc, s, p, &enc, &published)))
			break;
		char *t = p->text + p->used;
		memcpy(t, url, (size_t)u.len + 1);
		p->used += (size_t)u.len + 1;
		p->l[p->n++] = (struct cluster_link){
			.url = t,
			.url_len = u.len,
			.category = category,
			.category_len = strlen(category),
		};
		if (p->n == CLUSTER_BATCH_LINKS_MAX &&
		    (rc = pend_flush(nc, s, p, &enc, &published)))
			break;
	}
	for (uint32_t s = 0; pend && s < shards && !rc; s++)
		rc = pend_flush(nc, s, &pend[s], &enc, &published);
	if (!rc && nc && cluster_publish_wait(nc, 10000)) {
		snprintf(err, sizeof(err), "not every batch was acked: %s",
			 cluster_last_error(nc));
		rc = SC_E_NET;
	} else if (rc == SC_E_NET && nc && !err[0]) {
		snprintf(err, sizeof(err), "%s", cluster_last_error(nc));
	}
	for (uint32_t s = 0; pend && s < shards; s++) {
		free(pend[s].text);
		free(pend[s].l);
	}
	free(pend);
	sc_dyn_free(&enc);
	cluster_close(nc);
	conf_free(cf);
	if (rc) {
		sc_errorf("submit", "cluster: %s",
			  err[0] ? err : sc_strerror(rc));
		return EXIT_RUNTIME;
	}
	printf("published %lld\nrejected %lld\n", published, rejected);
	return rejected ? EXIT_RUNTIME : EXIT_OK;
}

int cmd_submit(int argc, char **argv)
{
	const char *addr = NULL, *config = NULL, *category = NULL;
	int code = client_args("submit", argc, argv, submit_usage, &addr,
			       &config, &category);
	if (code >= 0)
		return code;
	if (!category) {
		sc_errorf("submit", "--category NAME is needed");
		return EXIT_USAGE;
	}
	bool from_stdin = optind == argc || (optind + 1 == argc &&
					     strcmp(argv[optind], "-") == 0);
	if (cluster_flag)
		return cluster_submit(config, category, argc, argv, from_stdin);
	struct conf *cf = control_conf("submit", addr, config);
	if (!cf)
		return EXIT_USAGE;
	char path[256];
	char *esc = curl_easy_escape(NULL, category, 0);
	if (!esc || snprintf(path, sizeof(path), "/seeds?category=%s", esc) >=
			    (int)sizeof(path)) {
		curl_free(esc);
		conf_free(cf);
		sc_errorf("submit", "--category: name too long");
		return EXIT_USAGE;
	}
	curl_free(esc);

	/* Ctrl-C: the request under way finishes (its answer says what
	 * the daemon took), nothing more is sent, and the totals so far are
	 * printed.  One-shot, so that a second one stops at once. */
	struct sigaction sa = { .sa_handler = on_interrupt,
				.sa_flags = (int)SA_RESETHAND },
			 old;
	sigemptyset(&sa.sa_mask);
	for (int sig = SIGINT; sig; sig = sig == SIGINT ? SIGTERM : 0) {
		/* One ignored (a background job of a script, nohup) stays
		 * ignored. */
		if (sigaction(sig, NULL, &old) == 0 &&
		    old.sa_handler != SIG_IGN)
			sigaction(sig, &sa, NULL);
	}

	struct totals t = { 0 };
	struct chunk *ch = calloc(1, sizeof(*ch));
	char *line = malloc(NORM_INPUT_MAX + 1);
	int rc = ch && line ? EXIT_OK : EXIT_RUNTIME;
	if (ch) {
		sc_dyn_init(&ch->text, CHUNK_BYTES + NORM_INPUT_MAX + 2);
		ch->first = 1;
	}
	unsigned lineno = 0;
	const char *l;
	size_t n;
	int arg = optind;
	while (!rc && !interrupted &&
	       next_input(from_stdin, argc, argv, &arg, line, &l, &n) == 0) {
		/* No room for the line: send what the chunk holds first. */
		if (ch->text.len + (n > NORM_INPUT_MAX ? 0 : n) + 1 >
			    CHUNK_BYTES &&
		    (rc = chunk_send(cf, path, ch, &t)))
			break;
		if ((rc = chunk_add(ch, ++lineno, l, n)))
			break;
		/* Full: sent at once, not when the next line comes. */
		if (ch->lines == CHUNK_LINES &&
		    (rc = chunk_send(cf, path, ch, &t)))
			break;
	}
	/* The last chunk; and one request even for an empty input, so that
	 * a wrong category or address is said. */
	if (!rc && !interrupted && (ch->lines || !t.sent))
		rc = chunk_send(cf, path, ch, &t);
	if (ch)
		sc_dyn_free(&ch->text);
	free(ch);
	free(line);
	conf_free(cf);
	bool some = t.sent > 0;
	if (some || (!rc && !interrupted))
		printf("accepted %lld\nalready known %lld\nrejected %lld\n",
		       t.accepted, t.known, t.rejected);
	if (interrupted || (rc && some)) {
		fflush(stdout);
		if (some)
			sc_errorf("submit",
				  "%s after line %u of the input: lines 1-%u "
				  "were submitted, the rest was not sent",
				  interrupted ? "interrupted" : "stopped",
				  t.sent, t.sent);
		else
			sc_errorf("submit", "interrupted: nothing was "
					    "submitted");
	}
	if (interrupted) {
		fflush(stdout);
		signal(interrupted, SIG_DFL);
		raise(interrupted);
	}
	if (rc)
		return rc;
	return t.rejected ? EXIT_RUNTIME : EXIT_OK;
}
