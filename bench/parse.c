/* bench/parse.c — gumbo parsing alone, on the pages of a bench/crawl site:
 * the floor of the crawl's CPU per page (the budget: sigcrawl may spend at
 * most 1.25 times this per page, everything included).
 *
 *   bench-parse [--links | --focus KEYWORDS] DIR
 *
 * Reads every *.html file under DIR into memory first (reading is not
 * timed), then parses each once on this one thread and prints the pages,
 * the bytes, and the thread's CPU seconds spent parsing (user + sys):
 *
 *   pages 15000  bytes 153012345  cpu_s 6.512  cpu_us_per_page 434.1
 *
 * By default each page goes through gumbo_parse_with_options() (parse
 * errors not kept, gumbo's fastest) and gumbo_destroy_output(), nothing
 * else.  With --links it goes through the
 * crawler's parse_html() instead (arena allocator, link walk, every link
 * normalized), with the page URL taken from the file's place in DIR
 * (DIR/HOST/PATH, index.html meaning "/"): the difference between the two
 * is what link extraction costs.  With --focus KEYWORDS (comma-separated)
 * it goes through parse_document() as the crawler calls it for a category
 * with those keywords: MD5 of the text, the text kept for the search
 * index, the relevance, and the link prediction's inputs (each link's
 * keywords and text, the body's word set). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <gumbo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"

struct page {
	char *url; /* http://HOST/PATH, for --links */
	char *body;
	size_t len;
};

static struct page *pages;
static size_t n_pages, cap_pages;
static size_t root_len; /* strlen(DIR) + 1 */

static int read_all(const char *path, char **ret, size_t *len)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	struct stat st;
	char *b = NULL;
	if (fstat(fd, &st) || !(b = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return -1;
	}
	size_t n = 0;
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, b + n, (size_t)st.st_size - n);
		if (r <= 0) {
			free(b);
			close(fd);
			return -1;
		}
		n += (size_t)r;
	}
	close(fd);
	b[n] = '\0';
	*ret = b;
	*len = n;
	return 0;
}

/* DIR/h0.bench.test/p/00012.html -> http://h0.bench.test/p/00012.html;
 * DIR/h0.bench.test/index.html -> http://h0.bench.test/ */
static char *page_url(const char *path)
{
	const char *rel = path + root_len;
	size_t n = strlen(rel);
	char *u = malloc(n + 8);
	if (!u)
		return NULL;
	snprintf(u, n + 8, "http://%s", rel);
	size_t ul = strlen(u);
	if (ul >= 11 && !strcmp(u + ul - 11, "/index.html"))
		u[ul - 10] = '\0';
	return u;
}

static int visit(const char *path, const struct stat *st, int type,
		 struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	size_t n = strlen(path);
	if (type != FTW_F || n < 5 || strcmp(path + n - 5, ".html"))
		return 0;
	if (n_pages == cap_pages) {
		size_t cap = cap_pages ? cap_pages * 2 : 1024;
		struct page *v = realloc(pages, cap * sizeof(*v));
		if (!v)
			return -1;
		pages = v;
		cap_pages = cap;
	}
	struct page *p = &pages[n_pages];
	if (read_all(path, &p->body, &p->len)) {
		fprintf(stderr, "bench-parse: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!(p->url = page_url(path)))
		return -1;
	n_pages++;
	return 0;
}

static double thread_cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int count_link(void *ctx, const struct parse_link *l)
{
	(void)l;
	(*(unsigned long *)ctx)++;
	return 0;
}

int main(int argc, char **argv)
{
	int links = argc == 3 && !strcmp(argv[1], "--links");
	int focus = argc == 4 && !strcmp(argv[1], "--focus");
	if (argc != 2 + links + 2 * focus || argv[argc - 1][0] == '-') {
		fprintf(stderr,
			"usage: bench-parse [--links | --focus KEYWORDS] DIR\n");
		return 2;
	}
	struct parse_keywords *kw = NULL;
	if (focus) {
		const char *kv[PARSE_KEYWORDS_MAX];
		size_t n = 0;
		for (char *t = strtok(argv[2], ",");
		     t && n < PARSE_KEYWORDS_MAX; t = strtok(NULL, ","))
			kv[n++] = t;
		if (parse_keywords_new(kv, n, &kw)) {
			fprintf(stderr, "bench-parse: bad keywords\n");
			return 2;
		}
	}
#ifdef PARSE_ANCHOR_MAX
	static uint64_t words[1024];
#endif
	struct parse_text text = { 0 };
	const char *dir = argv[argc - 1];
	root_len = strlen(dir) + 1;
	while (root_len > 1 && dir[root_len - 2] == '/')
		root_len--;
	if (nftw(dir, visit, 32, FTW_PHYS)) {
		fprintf(stderr, "bench-parse: %s: cannot read the pages\n",
			dir);
		return 1;
	}
	if (!n_pages) {
		fprintf(stderr, "bench-parse: %s: no .html files\n", dir);
		return 1;
	}

	/* The crawl's default profile. */
	struct norm_opts nopts = {
		.steps = norm_profile_steps(NORM_PROFILE_EXTENDED),
	};
	/* gumbo at its fastest, as its users run it for speed and as the
	 * crawler does: parse errors not kept (max_errors 0, gumbo's own
	 * option; the default keeps every one). */
	GumboOptions gopts = kGumboDefaultOptions;
	gopts.max_errors = 0;
	struct parse_page *pg = malloc(sizeof(*pg));
	size_t bytes = 0;
	unsigned long n_links = 0;
	double t0 = thread_cpu_s();
	for (size_t i = 0; i < n_pages; i++) {
		struct page *p = &pages[i];
		bytes += p->len;
		if (!links && !focus) {
			GumboOutput *out = gumbo_parse_with_options(
				&gopts, p->body, p->len);
			gumbo_destroy_output(&gopts, out);
			continue;
		}
		struct parse_doc_opts d = { .flags = PARSE_MD5 | PARSE_TEXT,
					    .text = &text,
					    .keywords = kw };
#ifdef PARSE_ANCHOR_MAX
		/* (Built against parse.h from before the link prediction,
		 * for a comparison, this is what it did without.) */
		d.words = words;
		d.words_cap = 1024;
#endif
		int rc = !pg     ? SC_E_NOMEM
			 : focus ? parse_document(p->body, p->len, p->url,
						  strlen(p->url), &nopts, &d,
						  count_link, &n_links, pg)
				 : parse_html(p->body, p->len, p->url,
					      strlen(p->url), &nopts,
					      count_link, &n_links, pg);
		if (rc) {
			fprintf(stderr, "bench-parse: %s: %s\n", p->url,
				sc_strerror(rc));
			return 1;
		}
	}
	double cpu = thread_cpu_s() - t0;
	printf("pages %zu  bytes %zu  cpu_s %.3f  cpu_us_per_page %.1f",
	       n_pages, bytes, cpu, cpu * 1e6 / (double)n_pages);
	if (links || focus)
		printf("  links %lu", n_links);
	printf("\n");
	for (size_t i = 0; i < n_pages; i++) {
		free(pages[i].body);
		free(pages[i].url);
	}
	free(pages);
	free(pg);
	parse_text_free(&text);
	parse_keywords_free(kw);
	return 0;
}
