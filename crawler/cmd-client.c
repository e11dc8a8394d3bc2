/* cmd-client.c — `sigcrawl submit` and `sigcrawl status`: clients of the
 * daemon's control API (control.h), over its Unix socket or loopback TCP
 * port, with libcurl. */
#include <curl/curl.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "conf.h"
#include "control.h"

/* The largest answer read. */
#define ANSWER_MAX (16 * 1024 * 1024)
/* A submission is sent in requests of at most this many lines and bytes,
 * well inside the daemon's limits. */
#define CHUNK_LINES 5000
#define CHUNK_BYTES (512 * 1024)

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
		"\n"
		"Prints the running daemon's state as one line of JSON: state\n"
		"(running, paused, idle, stopping), pages, queue, hosts,\n"
		"duplicates, errors, rate (pages/s), uptime and more.\n"
		"\n"
		"  --control ADDR   unix:PATH or tcp:HOST:PORT\n"
		"  -c, --config FILE  take the address from [control] listen\n"
		"                   (default unix:/run/sigcrawl/control.sock)\n");
}

static int client_args(const char *cmd, int argc, char **argv,
		       void (*usage)(FILE *), const char **addr,
		       const char **config, const char **category)
{
	static const struct option longopts[] = {
		{ "control", required_argument, NULL, 'C' },
		{ "config", required_argument, NULL, 'c' },
		{ "category", required_argument, NULL, 'k' },
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
		"line on stdin ('-', or no URL argument).  Prints how many were\n"
		"accepted (queued), how many were already known, and each rejected\n"
		"line with its reason.  Exit status: 0 done, 1 the daemon cannot\n"
		"be reached, 2 bad usage (an unknown category, say).\n"
		"\n"
		"  --category NAME  a [category NAME] of the daemon's config\n"
		"  --control ADDR   unix:PATH or tcp:HOST:PORT\n"
		"  -c, --config FILE  take the address from [control] listen\n");
}

struct totals {
	long long accepted, known, rejected;
};

/* Send one chunk whose first line is line first_line of the input. */
static int send_chunk(const struct conf *cf, const char *path,
		      const struct sc_dynbuf *chunk, unsigned first_line,
		      struct totals *t)
{
	struct sc_dynbuf ans;
	sc_dyn_init(&ans, ANSWER_MAX + 1);
	long status;
	request("submit", cf, path, chunk->p ? chunk->p : "", chunk->len, &ans,
		&status);
	int rc = EXIT_OK;
	if (!status) {
		rc = EXIT_RUNTIME;
	} else if (status != 200) {
		rc = answer_error("submit", status, &ans);
	} else {
		json_t *o = json_loads(ans.p ? ans.p : "", 0, NULL);
		json_t *list = json_object_get(o, "rejected_lines");
		t->accepted += json_integer_value(
			json_object_get(o, "accepted"));
		t->known += json_integer_value(json_object_get(o, "known"));
		t->rejected += json_integer_value(
			json_object_get(o, "rejected"));
		size_t i;
		json_t *r;
		json_array_foreach(list, i, r)
		{
			printf("rejected line %lld: %s: %s\n",
			       (long long)json_integer_value(
				       json_object_get(r, "line")) +
				       first_line - 1,
			       json_string_value(json_object_get(r, "url")),
			       json_string_value(json_object_get(r, "reason")));
		}
		if (!o) {
			sc_errorf("submit", "the daemon's answer is not JSON");
			rc = EXIT_RUNTIME;
		}
		json_decref(o);
	}
	sc_dyn_free(&ans);
	return rc;
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

	struct totals t = { 0 };
	/* Not bounded here: a body over CONTROL_BODY_MAX (one huge line) is
	 * the daemon's to refuse, and its answer says why. */
	struct sc_dynbuf chunk;
	sc_dyn_init(&chunk, SIZE_MAX);
	unsigned lines = 0, first = 1, lineno = 0;
	int rc = EXIT_OK;
	char *line = NULL;
	size_t cap = 0;
	for (int i = optind;; i++) {
		const char *l;
		size_t n;
		if (from_stdin) {
			ssize_t got = getline(&line, &cap, stdin);
			if (got < 0)
				break;
			l = line;
			n = (size_t)got;
			if (n && l[n - 1] == '\n')
				n--;
		} else {
			if (i >= argc)
				break;
			l = argv[i];
			n = strlen(l);
		}
		lineno++;
		/* A line break inside a URL argument would shift the
		 * numbers: send it as it is, on one line. */
		if (sc_dyn_add(&chunk, l,
			       strcspn(l, "\n") < n ? strcspn(l, "\n") : n) ||
		    sc_dyn_add(&chunk, "\n", 1)) {
			rc = EXIT_RUNTIME;
			break;
		}
		if (++lines >= CHUNK_LINES || chunk.len >= CHUNK_BYTES) {
			if ((rc = send_chunk(cf, path, &chunk, first, &t)))
				break;
			sc_dyn_reset(&chunk);
			lines = 0;
			first = lineno + 1;
		}
	}
	if (!rc && (lines || t.accepted + t.known + t.rejected == 0))
		rc = send_chunk(cf, path, &chunk, first, &t);
	free(line);
	sc_dyn_free(&chunk);
	conf_free(cf);
	if (rc)
		return rc;
	printf("accepted %lld\nalready known %lld\nrejected %lld\n", t.accepted,
	       t.known, t.rejected);
	return EXIT_OK;
}
