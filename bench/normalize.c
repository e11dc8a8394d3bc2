/* normalize.c — how fast norm_url() is, and how often it allocates,
 * compared with libcurl's URL API on the same links.
 *
 * The corpus comes from tests/urlgen (realistic links, relative ones with
 * the page they were found on) and is generated before any timing.  Each
 * measured row walks the whole corpus once per repetition; the rows are
 * interleaved inside a repetition so that a slow moment of the machine
 * hits all of them alike, and the median over the repetitions is shown.
 *
 * Heap allocations are counted by defining malloc() and friends in this
 * executable: the dynamic linker binds every library's calls to these
 * definitions (glibc supports replacing malloc this way), so allocations
 * made inside ICU and libcurl are counted too.  Counting is switched on
 * only inside the measured loops.  ICU's IDNA entry points are replaced the
 * same way, to count the calls: ASCII hosts must make none.
 *
 * The comparison is fair on work, not on results: libcurl parses, resolves
 * the reference, removes dot segments, converts IDN hosts and writes the
 * URL back, but does none of the lenient clean-ups or normalization steps,
 * and it rejects or mangles links with white space around them.  The
 * numbers answer "what does normalizing cost next to the parsing every
 * crawler does anyway", not "which is better".
 *
 * Usage: bench-normalize [--count N] [--reps N] [--seed N] [--check-allocs]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <locale.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <unicode/uidna.h>

#include "normalize.h"
#include "urlgen.h"

#define DEFAULT_COUNT 200000
#define DEFAULT_REPS 5
#define DEFAULT_SEED 0xbe7c4u
#define MAX_REPS 101

/* ---- allocation counting ------------------------------------------- */

/* glibc's own entry points, which stay reachable under these names when
 * the public ones are replaced. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

/* Plain globals: the benchmark is single-threaded, and libcurl's URL API
 * starts no threads. */
static int alloc_counting;
static unsigned long alloc_count;

void *malloc(size_t size)
{
	alloc_count += alloc_counting;
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	alloc_count += alloc_counting;
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	alloc_count += alloc_counting;
	return __libc_realloc(p, size);
}

void free(void *p)
{
	__libc_free(p);
}

void *memalign(size_t align, size_t size)
{
	alloc_count += alloc_counting;
	return __libc_memalign(align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
	alloc_count += alloc_counting;
	return __libc_memalign(align, size);
}

int posix_memalign(void **ret, size_t align, size_t size)
{
	void *p;

	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	alloc_count += alloc_counting;
	p = __libc_memalign(align, size);
	if (!p)
		return ENOMEM;
	*ret = p;
	return 0;
}

void *valloc(size_t size)
{
	alloc_count += alloc_counting;
	return __libc_valloc(size);
}

void *pvalloc(size_t size)
{
	alloc_count += alloc_counting;
	return __libc_pvalloc(size);
}

/* ---- IDNA call counting -------------------------------------------- */

/* ICU's names carry its version (uidna_nameToASCII_UTF8_72): the header's
 * macros write them, and these turn them into the string dlsym needs. */
#define SYM_STR2(x) #x
#define SYM_STR(x) SYM_STR2(x)

typedef int32_t idna_fn(const UIDNA *, const char *, int32_t, char *, int32_t,
			UIDNAInfo *, UErrorCode *);

static unsigned long idna_calls;

/* Look up ICU's own definition of a function replaced here. */
static idna_fn *icu_next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "bench-normalize: no %s in ICU\n", name);
		exit(1);
	}
	return (idna_fn *)f;
}

int32_t uidna_nameToASCII_UTF8(const UIDNA *idna, const char *name,
			       int32_t length, char *dest, int32_t capacity,
			       UIDNAInfo *info, UErrorCode *err)
{
	static idna_fn *next;

	if (!next)
		next = icu_next(SYM_STR(uidna_nameToASCII_UTF8));
	idna_calls += alloc_counting;
	return next(idna, name, length, dest, capacity, info, err);
}

int32_t uidna_nameToUnicodeUTF8(const UIDNA *idna, const char *name,
				int32_t length, char *dest, int32_t capacity,
				UIDNAInfo *info, UErrorCode *err)
{
	static idna_fn *next;

	if (!next)
		next = icu_next(SYM_STR(uidna_nameToUnicodeUTF8));
	idna_calls += alloc_counting;
	return next(idna, name, length, dest, capacity, info, err);
}

/* ---- the corpus ---------------------------------------------------- */

/* ---- the measured loops -------------------------------------------- */

struct row {
	const char *name;
	int curl;      /* libcurl instead of norm_url() */
	int base_once; /* norm_base_set() only when the page changes */
	/* Adaptive: after strict normalization, a host's learned rules
	 * (norm_rules_apply()) as if every host had these. */
	const struct norm_hostrules *rules;
	struct norm_opts opts;
	double ns[MAX_REPS];
	unsigned long allocs, failures;
};

/* Keeps the compiler from treating results as unused. */
static volatile unsigned long sink;

static unsigned long run_norm(const struct urlgen_corpus *c, struct row *r)
{
	static struct norm_base base;
	static char out[NORM_URL_MAX + 1], out2[NORM_URL_MAX + 1];
	struct norm_url u;
	size_t last_base = (size_t)-1, i;
	unsigned long failures = 0, acc = 0;
	int base_ok = 0;

	for (i = 0; i < c->n; i++) {
		const struct urlgen_link *l = &c->links[i];
		const struct norm_base *b = NULL;

		if (l->base_len) {
			if (!r->base_once || l->base_off != last_base) {
				last_base = l->base_off;
				base_ok = norm_base_set(&base, NULL,
							c->text + l->base_off,
							l->base_len) == 0;
			}
			if (!base_ok) {
				failures++;
				continue;
			}
			b = &base;
		}
		if (norm_url(&r->opts, b, c->text + l->off, l->len, out,
			     sizeof(out), &u) != 0)
			failures++;
		else if (r->rules &&
			 norm_rules_apply(r->rules, out, u.len, &u, out2,
					  sizeof(out2), &u) != 0)
			failures++;
		else
			acc += u.len;
	}
	sink += acc;
	return failures;
}

/* libcurl flags, chosen to accept what a crawler meets and to do the work
 * closest to strict normalization:
 *   set: CURLU_URLENCODE   percent-encode what needs it (space, non-ASCII)
 *        CURLU_ALLOW_SPACE accept spaces inside the link (browsers do)
 *   get: CURLU_PUNYCODE        IDN hosts as A-labels (idn_punycode)
 *        CURLU_NO_DEFAULT_PORT drop :80/:443 (remove_default_port)
 * The default scheme set (no CURLU_NON_SUPPORT_SCHEME) makes curl reject
 * unknown schemes, as norm_url() does. */
#define CURL_SET_FLAGS (CURLU_URLENCODE | CURLU_ALLOW_SPACE)
#define CURL_GET_FLAGS (CURLU_PUNYCODE | CURLU_NO_DEFAULT_PORT)

/* One handle for the whole run.  For a relative link the page's URL is
 * set first and the link second: curl resolves a URL set on a handle that
 * already holds one against it, which is the work a crawler using curl
 * would do per link. */
static unsigned long run_curl(const struct urlgen_corpus *c, CURLU *h)
{
	unsigned long failures = 0, acc = 0;
	size_t i;

	for (i = 0; i < c->n; i++) {
		const struct urlgen_link *l = &c->links[i];
		char *s;

		if (l->base_len &&
		    curl_url_set(h, CURLUPART_URL, c->text + l->base_off,
				 CURL_SET_FLAGS) != CURLUE_OK) {
			failures++;
			continue;
		}
		if (curl_url_set(h, CURLUPART_URL, c->text + l->off,
				 CURL_SET_FLAGS) != CURLUE_OK ||
		    curl_url_get(h, CURLUPART_URL, &s, CURL_GET_FLAGS) !=
			    CURLUE_OK) {
			failures++;
			continue;
		}
		acc += (unsigned char)s[0];
		curl_free(s);
	}
	sink += acc;
	return failures;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void run_row(const struct urlgen_corpus *c, struct row *r, CURLU *h,
		    double *ns, int count_allocs)
{
	double t0;

	alloc_count = 0;
	alloc_counting = count_allocs;
	t0 = now_ns();
	r->failures = r->curl ? run_curl(c, h) : run_norm(c, r);
	if (ns)
		*ns = now_ns() - t0;
	alloc_counting = 0;
	if (count_allocs)
		r->allocs = alloc_count;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	double tmp[MAX_REPS];

	memcpy(tmp, v, sizeof(double) * (size_t)n);
	qsort(tmp, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* ---- allocations by kind of host ----------------------------------- */

/* An "IDN host" is one ICU had to look at: its normalized form has an
 * A-label.  IP literals and plain names are "ASCII". */
static int host_is_idn(const char *url, const struct norm_url *u)
{
	size_t i;

	for (i = u->host_off; i + 4 <= (size_t)u->host_off + u->host_len; i++)
		if ((url[i] == 'x' || url[i] == 'X') &&
		    (url[i + 1] == 'n' || url[i + 1] == 'N') &&
		    url[i + 2] == '-' && url[i + 3] == '-' &&
		    (i == u->host_off || url[i - 1] == '.'))
			return 1;
	return 0;
}

struct split {
	unsigned long links[3], allocs[3], allocating[3];
	unsigned long base_ascii_allocs;
	unsigned shown;
};

enum { K_ASCII, K_IDN, K_REJECTED };

/* Walk the corpus once with one profile, bases parsed once per page, and
 * attribute each link's allocations to the kind of its host.  Run before
 * anything else, caches are cold: in --check-allocs mode, an ASCII host
 * that allocates even once is a failure. */
static void split_allocs(const struct urlgen_corpus *c,
			 const struct norm_opts *opts, struct split *s,
			 int verbose)
{
	static struct norm_base base;
	static char out[NORM_URL_MAX + 1];
	struct norm_url u;
	size_t last_base = (size_t)-1, i;
	int base_ok = 0;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < c->n; i++) {
		const struct urlgen_link *l = &c->links[i];
		int kind, rc;

		if (l->base_len && l->base_off != last_base) {
			last_base = l->base_off;
			alloc_count = 0;
			alloc_counting = 1;
			base_ok = norm_base_set(&base, NULL,
						c->text + l->base_off,
						l->base_len) == 0;
			alloc_counting = 0;
			if (base_ok && alloc_count &&
			    !host_is_idn(base.buf, &base.u)) {
				s->base_ascii_allocs += alloc_count;
				if (verbose && s->shown++ < 10)
					fprintf(stderr,
						"allocates (%lu) in norm_base_set,"
						" ASCII host: %s\n",
						alloc_count,
						c->text + l->base_off);
			}
		}
		if (l->base_len && !base_ok)
			continue;
		alloc_count = 0;
		alloc_counting = 1;
		rc = norm_url(opts, l->base_len ? &base : NULL,
			      c->text + l->off, l->len, out, sizeof(out), &u);
		alloc_counting = 0;
		kind = rc ? K_REJECTED : host_is_idn(out, &u) ? K_IDN : K_ASCII;
		s->links[kind]++;
		s->allocs[kind] += alloc_count;
		if (alloc_count) {
			s->allocating[kind]++;
			if (verbose && kind == K_ASCII && s->shown++ < 10)
				fprintf(stderr,
					"allocates (%lu), ASCII host: %s -> %s\n",
					alloc_count, c->text + l->off, out);
		}
	}
}

static double per_link(unsigned long allocs, unsigned long links)
{
	return links ? (double)allocs / (double)links : 0.0;
}

static void print_split(const char *when, const struct split *s)
{
	printf("strict, %s: allocations per link by host: ASCII %.4f (%lu of "
	       "%lu links allocate), IDN %.4f (%lu of %lu), rejected %.4f (%lu "
	       "of %lu)\n",
	       when, per_link(s->allocs[K_ASCII], s->links[K_ASCII]),
	       s->allocating[K_ASCII], s->links[K_ASCII],
	       per_link(s->allocs[K_IDN], s->links[K_IDN]),
	       s->allocating[K_IDN], s->links[K_IDN],
	       per_link(s->allocs[K_REJECTED], s->links[K_REJECTED]),
	       s->allocating[K_REJECTED], s->links[K_REJECTED]);
	if (s->base_ascii_allocs)
		printf("norm_base_set allocated %lu times for ASCII hosts\n",
		       s->base_ascii_allocs);
}

/* ---- hosts by kind ------------------------------------------------- */

/* What a host costs by kind, on absolute URLs "http://HOST/x" under the
 * strict profile: an ASCII name (no IDNA at all), a Unicode name the
 * per-thread cache holds (warm), and Unicode names and A-labels that all
 * miss it (cold: more distinct hosts than the cache holds, walked in a
 * cycle, so that every conversion is done again).  The labels are valid
 * under IDNA2008 as well as UTS #46, so that libraries of either kind do
 * the same work. */
#define HOST_URLS 8192
#define HOST_WARM                                                              \
	32 /* distinct hosts in the warm row: few enough to stay cached */
#define HOST_LOOPS 8 /* walks of the list per timed repetition */

enum { H_ASCII, H_IDN_WARM, H_IDN_COLD, H_ALABEL_COLD, H_KINDS };

static const char *const host_kind_name[H_KINDS] = {
	"ASCII host",
	"IDN host, cached",
	"IDN host, cache miss",
	"xn-- host, cache miss",
};

struct host_rows {
	char *url[H_KINDS][HOST_URLS];
	size_t len[H_KINDS][HOST_URLS];
	int loops[H_KINDS];
	double ns[H_KINDS][MAX_REPS];
	unsigned long allocs[H_KINDS], calls[H_KINDS], failures[H_KINDS];
};

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (!d) {
		fprintf(stderr, "bench-normalize: out of memory\n");
		exit(1);
	}
	return memcpy(d, s, n);
}

static void host_rows_build(struct host_rows *h, const struct norm_opts *opts)
{
	static const char *const labels[] = {
		"b\xc3\xbc"
		"cher",
		"m\xc3\xbc"
		"nchen",
		"stra\xc3\x9f"
		"e",
		"caf\xc3\xa9",
		"\xd0\xbf\xd1\x80\xd0\xb8\xd0\xbc\xd0\xb5\xd1\x80",
		"\xce\xb5\xce\xbb\xce\xbb\xce\xb7\xce\xbd\xce\xb9\xce\xba\xce"
		"\xac",
		"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
		"z\xc3\xbcrich",
	};
	static const char *const tlds[] = { "de", "com", "org", "net" };
	char buf[256], out[NORM_URL_MAX + 1];
	struct norm_url u;
	int i;

	for (i = 0; i < HOST_URLS; i++) {
		const char *l = labels[i % 8], *t = tlds[i / 8 % 4];

		snprintf(buf, sizeof(buf), "http://shop%d.example.%s/x", i, t);
		h->url[H_ASCII][i] = xstrdup(buf);
		snprintf(buf, sizeof(buf), "http://%s%d.%s/x", l, i % HOST_WARM,
			 t);
		h->url[H_IDN_WARM][i] = xstrdup(buf);
		/* Numbered apart from the warm row's hosts. */
		snprintf(buf, sizeof(buf), "http://%s%d.%s/x", l, HOST_WARM + i,
			 t);
		h->url[H_IDN_COLD][i] = xstrdup(buf);
		/* The same hosts as A-labels, as a library writes them. */
		if (norm_url(opts, NULL, buf, strlen(buf), out, sizeof(out),
			     &u) != 0)
			snprintf(out, sizeof(out), "http://xn--invalid%d.de/x",
				 i);
		h->url[H_ALABEL_COLD][i] = xstrdup(out);
	}
	for (int k = 0; k < H_KINDS; k++) {
		for (i = 0; i < HOST_URLS; i++)
			h->len[k][i] = strlen(h->url[k][i]);
		/* Misses cost microseconds: one walk is enough. */
		h->loops[k] = k >= H_IDN_COLD ? 1 : HOST_LOOPS;
	}
}

static void host_rows_free(struct host_rows *h)
{
	for (int k = 0; k < H_KINDS; k++)
		for (int i = 0; i < HOST_URLS; i++)
			free(h->url[k][i]);
}

static void host_row_run(struct host_rows *h, int k,
			 const struct norm_opts *opts, double *ns, int count)
{
	static char out[NORM_URL_MAX + 1];
	struct norm_url u;
	unsigned long failures = 0, acc = 0;
	double t0;

	/* The cold rows, run in between, evicted the warm row's hosts. */
	if (k == H_IDN_WARM)
		for (int i = 0; i < HOST_URLS; i++)
			(void)!norm_url(opts, NULL, h->url[k][i], h->len[k][i],
					out, sizeof(out), &u);
	alloc_count = 0;
	idna_calls = 0;
	alloc_counting = count;
	t0 = now_ns();
	for (int loop = 0; loop < h->loops[k]; loop++)
		for (int i = 0; i < HOST_URLS; i++) {
			if (norm_url(opts, NULL, h->url[k][i], h->len[k][i],
				     out, sizeof(out), &u) != 0)
				failures++;
			else
				acc += u.len;
		}
	if (ns)
		*ns = (now_ns() - t0) / ((double)HOST_URLS * h->loops[k]);
	alloc_counting = 0;
	sink += acc;
	if (count) {
		h->allocs[k] = alloc_count;
		h->calls[k] = idna_calls;
		h->failures[k] = failures;
	}
}

/* Time each kind of host; returns the ASCII row's allocations plus its
 * IDNA calls: both must be 0. */
static unsigned long host_rows_report(const struct norm_opts *opts, int reps)
{
	static struct host_rows h;
	unsigned long ascii_work;

	host_rows_build(&h, opts);
	for (int k = 0; k < H_KINDS; k++)
		host_row_run(&h, k, opts, NULL, 0);
	for (int rep = 0; rep < reps; rep++)
		for (int k = 0; k < H_KINDS; k++)
			host_row_run(&h, k, opts, &h.ns[k][rep],
				     rep + 1 == reps);
	printf("\n%-28s %9s %9s %11s %11s %9s\n", "strict, by host", "URLs",
	       "ns/URL", "allocs/URL", "IDNA/URL", "rejected");
	for (int k = 0; k < H_KINDS; k++)
		printf("%-28s %9d %9.1f %11.4f %11.4f %9lu\n",
		       host_kind_name[k], HOST_URLS * h.loops[k],
		       median(h.ns[k], reps),
		       (double)h.allocs[k] / (HOST_URLS * h.loops[k]),
		       (double)h.calls[k] / (HOST_URLS * h.loops[k]),
		       h.failures[k]);
	ascii_work = h.allocs[H_ASCII] + h.calls[H_ASCII];
	host_rows_free(&h);
	return ascii_work;
}

/* ---- main ---------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: bench-normalize [--count N] [--reps N] [--seed N] "
		"[--check-allocs]\n"
		"  --count N       links in the corpus (default %d)\n"
		"  --reps N        timed repetitions, median shown (default %d)\n"
		"  --seed N        corpus seed (default %#x)\n"
		"  --absolute      absolute links only (no reference resolution)\n"
		"  --check-allocs  exit 1 if the strict profile allocates, or "
		"calls ICU, for a link with an ASCII host\n",
		DEFAULT_COUNT, DEFAULT_REPS, DEFAULT_SEED);
}

static int parse_number(const char *s, unsigned long long *ret)
{
	char *end;

	errno = 0;
	*ret = strtoull(s, &end, 0);
	return errno || end == s || *end || s[0] == '-' ? -1 : 0;
}

int main(int argc, char **argv)
{
	static struct urlgen_corpus c;
	static struct row rows[10];
	unsigned long long count = DEFAULT_COUNT, reps = DEFAULT_REPS;
	unsigned long long seed = DEFAULT_SEED;
	int check_allocs = 0, absolute_only = 0, n_rows = 0, i, rep, status = 0;
	double curl_rate = 0;
	struct split split;
	struct norm_opts strict = { 0 };
	CURLU *h;

	for (i = 1; i < argc; i++) {
		unsigned long long *target = NULL;

		if (!strcmp(argv[i], "--count"))
			target = &count;
		else if (!strcmp(argv[i], "--reps"))
			target = &reps;
		else if (!strcmp(argv[i], "--seed"))
			target = &seed;
		else if (!strcmp(argv[i], "--check-allocs"))
			check_allocs = 1;
		else if (!strcmp(argv[i], "--absolute"))
			absolute_only = 1;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
		if (target &&
		    (i + 1 >= argc || parse_number(argv[++i], target))) {
			usage(stderr);
			return 2;
		}
	}
	if (!count || count > 100000000 || !reps || reps > MAX_REPS) {
		fprintf(stderr,
			"bench-normalize: --count 1..1e8, --reps 1..%d\n",
			MAX_REPS);
		return 2;
	}

	/* libcurl converts IDN hosts from the locale's charset: without a
	 * UTF-8 locale it fails on every non-ASCII host. */
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		setlocale(LC_CTYPE, "");
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, "bench-normalize: curl_global_init failed\n");
		return 1;
	}
	h = curl_url();
	if (!h) {
		fprintf(stderr, "bench-normalize: curl_url failed\n");
		return 1;
	}

	urlgen_corpus_build(&c, seed, (size_t)count, absolute_only);
	printf("corpus: %zu links (seed %#llx), %zu relative (%.1f %%) on %zu "
	       "pages, %.1f bytes on average\n",
	       c.n, seed, c.n_relative,
	       100.0 * (double)c.n_relative / (double)c.n, c.n_pages,
	       (double)(c.used - (c.n + c.n_pages)) /
		       (double)(c.n + c.n_pages));

	/* Cold caches first: the allocation split and its check. */
	strict.steps = norm_profile_steps(NORM_PROFILE_STRICT);
	split_allocs(&c, &strict, &split, 1);
	print_split("cold caches", &split);
	if (check_allocs &&
	    (split.allocating[K_ASCII] || split.base_ascii_allocs)) {
		fprintf(stderr, "FAIL: strict normalization allocated for "
				"links with an ASCII host\n");
		status = 1;
	}

	{
		static const struct {
			const char *name;
			enum norm_profile profile;
			int base_once;
		} profile_rows[] = {
			{ "strict", NORM_PROFILE_STRICT, 0 },
			{ "strict, base once/page", NORM_PROFILE_STRICT, 1 },
			{ "extended", NORM_PROFILE_EXTENDED, 0 },
			{ "extended, base once/page", NORM_PROFILE_EXTENDED,
			  1 },
			{ "aggressive", NORM_PROFILE_AGGRESSIVE, 0 },
			{ "aggressive, base once/page", NORM_PROFILE_AGGRESSIVE,
			  1 },
		};

		for (i = 0;
		     i < (int)(sizeof(profile_rows) / sizeof(profile_rows[0]));
		     i++) {
			rows[n_rows].name = profile_rows[i].name;
			rows[n_rows].base_once = profile_rows[i].base_once;
			rows[n_rows].opts.steps = norm_profile_steps(
				profile_rows[i].profile);
			n_rows++;
		}
		/* Adaptive as a host with four learned rules sees it: the
		 * strict form, then its steps, two ignored parameters and
		 * a DUST rewrite (the crawler's per-host lookup, a hash
		 * probe under a mutex, is not in this row). */
		static struct norm_rule dust = { .kind = NORM_RULE_DUST,
						 .a = "/",
						 .from = "story_{N}.html",
						 .to = "story?id={N}" };
		static const char *const params[] = { "sid", "sort" };
		static const struct norm_rule *const dusts[] = { &dust };
		static const struct norm_hostrules hr = {
			.steps = NORM_LOWERCASE_PATH | NORM_ADD_TRAILING_SLASH,
			.params = params,
			.n_params = 2,
			.dust = dusts,
			.n_dust = 1,
		};
		for (int k = 0; k < 2; k++) {
			rows[n_rows].name = k ? "adaptive, 4 rules, base once"
					      : "adaptive, 4 rules/host";
			rows[n_rows].base_once = k;
			rows[n_rows].opts.steps = norm_profile_steps(
				NORM_PROFILE_STRICT);
			rows[n_rows].rules = &hr;
			n_rows++;
		}
		rows[n_rows].name = "libcurl URL API";
		rows[n_rows].curl = 1;
		n_rows++;
	}

	/* One untimed pass per row warms caches and branch predictors; the
	 * allocation counts come from the last timed repetition, when the
	 * IDN cache holds what a long crawl would hold. */
	for (i = 0; i < n_rows; i++)
		run_row(&c, &rows[i], h, NULL, 0);
	for (rep = 0; rep < (int)reps; rep++)
		for (i = 0; i < n_rows; i++)
			run_row(&c, &rows[i], h, &rows[i].ns[rep],
				rep + 1 == (int)reps);

	for (i = 0; i < n_rows; i++)
		if (rows[i].curl)
			curl_rate = 1e9 * (double)c.n /
				    median(rows[i].ns, (int)reps);
	printf("\n%-28s %9s %9s %11s %11s %9s %9s\n", "profile", "URLs",
	       "ns/URL", "URLs/s", "allocs/URL", "vs curl", "rejected");
	for (i = 0; i < n_rows; i++) {
		double ns = median(rows[i].ns, (int)reps) / (double)c.n;
		double rate = 1e9 / ns;

		printf("%-28s %9zu %9.1f %11.0f %11.4f %8.2fx %9lu\n",
		       rows[i].name, c.n, ns, rate,
		       (double)rows[i].allocs / (double)c.n,
		       curl_rate > 0 ? rate / curl_rate : 0.0,
		       rows[i].failures);
	}
	/* The same split once the caches hold what they can: what a long
	 * crawl sees. */
	split_allocs(&c, &strict, &split, 0);
	print_split("warm caches", &split);

	if (host_rows_report(&strict, (int)reps) && check_allocs) {
		fprintf(stderr, "FAIL: strict normalization allocated or "
				"called ICU for ASCII hosts\n");
		status = 1;
	}

	printf("\nmedian of %llu runs; \"base once/page\" parses the page's URL"
	       " only when it changes,\nthe other rows once per relative link "
	       "(as libcurl must); libcurl: set URLENCODE|ALLOW_SPACE,\n"
	       "get PUNYCODE|NO_DEFAULT_PORT, one handle reused.\n",
	       reps);

	curl_url_cleanup(h);
	curl_global_cleanup();
	urlgen_corpus_free(&c);
	return status;
}
