/* test-rules.c — learned rewrite rules (normalize/rules.c): what each kind
 * does to a URL, which candidates a pair of equal pages gives, that a
 * host's rule set is idempotent, and that the derivation never proposes a
 * rule that fails to map its own pair together. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "normalize.h"
#include "urlgen.h"

static const char *apply1(const struct norm_rule *r, const char *url)
{
	static char out[NORM_URL_MAX + 1];
	if (norm_rule_apply(r, url, strlen(url), out, sizeof(out), NULL))
		return "(error)";
	return out;
}

static struct norm_rule step(uint32_t s)
{
	return (struct norm_rule){ .kind = NORM_RULE_STEP, .step = s };
}

static struct norm_rule param(const char *name)
{
	struct norm_rule r = { .kind = NORM_RULE_PARAM };
	snprintf(r.a, sizeof(r.a), "%s", name);
	return r;
}

static struct norm_rule dust(const char *ctx, const char *from, const char *to)
{
	struct norm_rule r = { .kind = NORM_RULE_DUST };
	snprintf(r.a, sizeof(r.a), "%s", ctx);
	snprintf(r.from, sizeof(r.from), "%s", from);
	snprintf(r.to, sizeof(r.to), "%s", to);
	return r;
}

static bool derives(const char *a, const char *b, const char *want);

static void test_apply_one(void)
{
	struct norm_rule r = step(NORM_LOWERCASE_PATH);
	CHECK_STR(apply1(&r, "http://a.test/A/B?Q=1"), "http://a.test/a/b?Q=1");
	r = step(NORM_ADD_TRAILING_SLASH);
	CHECK_STR(apply1(&r, "http://a.test/dir"), "http://a.test/dir/");
	CHECK_STR(apply1(&r, "http://a.test/f.html"), "http://a.test/f.html");
	r = param("sid");
	CHECK_STR(apply1(&r, "http://a.test/x?b=2&sid=9&a=1"),
		  "http://a.test/x?b=2&a=1");
	CHECK_STR(apply1(&r, "http://a.test/x?sidx=9"),
		  "http://a.test/x?sidx=9");
	CHECK_STR(apply1(&r, "http://a.test/x?sid=9"), "http://a.test/x");
	r = (struct norm_rule){ .kind = NORM_RULE_ALIAS };
	strcpy(r.host, "www.a.test");
	strcpy(r.a, "a.test");
	CHECK_STR(apply1(&r, "http://www.a.test/p?q"), "http://a.test/p?q");
	CHECK_STR(apply1(&r, "http://www.b.test/p"), "http://www.b.test/p");
	r = dust("/", "story_{N}.html", "story?id={N}");
	CHECK_STR(apply1(&r, "http://a.test/story_12.html"),
		  "http://a.test/story?id=12");
	/* A query after the rewrite joins the rewrite's own. */
	CHECK_STR(apply1(&r, "http://a.test/story_12.html?sid=4"),
		  "http://a.test/story?id=12&sid=4");
	/* Only right after the context, only up to a delimiter, only
	 * digits for the placeholder. */
	CHECK_STR(apply1(&r, "http://a.test/x/story_12.html"),
		  "http://a.test/x/story_12.html");
	CHECK_STR(apply1(&r, "http://a.test/story_12.htmlx"),
		  "http://a.test/story_12.htmlx");
	CHECK_STR(apply1(&r, "http://a.test/story_ab.html"),
		  "http://a.test/story_ab.html");
	/* A rewrite of the query's first parameter into the path: the
	 * parameters after it stay a query (not "/stories/736/&utm=1"). */
	r = dust("/", "story?id={N}", "stories/{N}/");
	CHECK_STR(apply1(&r, "http://a.test/story?id=736&utm=1"),
		  "http://a.test/stories/736/?utm=1");
	CHECK_STR(apply1(&r, "http://a.test/story?id=736"),
		  "http://a.test/stories/736/");
	/* The path parameter rule: ";jsessionid=" goes from the path, a
	 * session parameter of the query stays (a parameter rule's). */
	r = (struct norm_rule){ .kind = NORM_RULE_STEP,
				.step = NORM_RULE_PATH_SESSION };
	CHECK_STR(apply1(&r, "http://a.test/a;jsessionid=AB12/b?sid=3"),
		  "http://a.test/a/b?sid=3");
	CHECK_STR(apply1(&r, "http://a.test/;jsessionid=AB12"),
		  "http://a.test/");
	CHECK_STR(apply1(&r, "http://a.test/;jsessionid=AB12?x=1"),
		  "http://a.test/?x=1");
	CHECK(derives("http://a.test/x;jsessionid=99AF?id=2",
		      "http://a.test/x?id=2", "step remove_path_session_ids"));
	/* The file's slash: after a name with a dot, not after a
	 * directory's. */
	r = (struct norm_rule){ .kind = NORM_RULE_STEP,
				.step = NORM_RULE_FILE_SLASH };
	CHECK_STR(apply1(&r, "http://a.test/a/x.html/?p=1"),
		  "http://a.test/a/x.html?p=1");
	CHECK_STR(apply1(&r, "http://a.test/a/x/"), "http://a.test/a/x/");
	CHECK(derives("http://a.test/a/x-1.html/", "http://a.test/a/x-1.html",
		      "step remove_file_slash"));
	r = dust("/sport/", "soccer", "football");
	CHECK_STR(apply1(&r, "http://a.test/sport/soccer/x"),
		  "http://a.test/sport/football/x");
	CHECK_STR(apply1(&r, "http://a.test/sport/soccerx/x"),
		  "http://a.test/sport/soccerx/x");
}

/* The steps a caller scopes to names without a dot or digit (a
 * directory's add_trailing_slash). */
static uint32_t word_steps(const void *arg, const char *url,
			   const struct norm_url *u)
{
	const char *p = url + u->path_off;
	size_t n = u->path_len;
	(void)arg;
	while (n && p[n - 1] != '/')
		if (strchr(".0123456789", p[--n]))
			return 0;
	return NORM_ADD_TRAILING_SLASH;
}

/* A DUST rewrite gets the steps of the URL it wrote when the caller says
 * which (rewrite_steps), else the host's steps again. */
static void test_rewrite_steps(void)
{
	struct norm_rule d = dust("/", "story/?id={N}", "stories/{N}");
	const struct norm_rule *dv[] = { &d };
	struct norm_hostrules hr = { .steps = NORM_ADD_TRAILING_SLASH,
				     .dust = dv,
				     .n_dust = 1 };
	const char *u = "http://a.test/story?id=7";
	char out[NORM_URL_MAX + 1];
	CHECK(norm_rules_apply(&hr, u, strlen(u), NULL, out, sizeof(out),
			       NULL) == 0);
	CHECK_STR(out, "http://a.test/stories/7/");
	hr.rewrite_steps = word_steps;
	CHECK(norm_rules_apply(&hr, u, strlen(u), NULL, out, sizeof(out),
			       NULL) == 0);
	CHECK_STR(out, "http://a.test/stories/7");
	/* What /stories/7 is keyed as by the same caller: one key. */
	u = "http://a.test/stories/7";
	struct norm_url su;
	CHECK(norm_split(u, strlen(u), &su) == 0);
	hr.steps = word_steps(NULL, u, &su);
	CHECK(hr.steps == 0);
	CHECK(norm_rules_apply(&hr, u, strlen(u), NULL, out, sizeof(out),
			       NULL) == 0);
	CHECK_STR(out, "http://a.test/stories/7");
}

/* Does the set of derived rules contain want (by description)? */
static bool derives(const char *a, const char *b, const char *want)
{
	struct norm_rule r[16];
	size_t n = norm_rules_derive(a, strlen(a), b, strlen(b), r, 16);
	for (size_t i = 0; i < n; i++) {
		char d[512];
		if (norm_rule_describe(&r[i], d, sizeof(d)) == 0 &&
		    strcmp(d, want) == 0)
			return true;
	}
	fprintf(stderr, "  %s ~ %s: %zu rules, not \"%s\"\n", a, b, n, want);
	return false;
}

static size_t n_derived(const char *a, const char *b)
{
	struct norm_rule r[16];
	return norm_rules_derive(a, strlen(a), b, strlen(b), r, 16);
}

static void test_derive(void)
{
	CHECK(derives("http://a.test/a/Foo-1", "http://a.test/a/foo-1",
		      "step lowercase_path"));
	CHECK(n_derived("http://a.test/a/Foo-1", "http://a.test/a/foo-1") == 1);
	CHECK(derives("http://a.test/a/b", "http://a.test/a/b/",
		      "step add_trailing_slash"));
	CHECK(derives("http://a.test/s/", "http://a.test/s/index.html",
		      "step remove_default_page"));
	CHECK(derives("http://a.test/x?sid=1", "http://a.test/x?sid=2",
		      "ignore parameter sid"));
	CHECK(derives("http://a.test/l?page=2&sort=asc",
		      "http://a.test/l?page=2", "ignore parameter sort"));
	CHECK(n_derived("http://a.test/l?page=2&sort=asc",
			"http://a.test/l?page=2") == 1);
	CHECK(derives("http://a.test/l?b=1&a=2", "http://a.test/l?a=2&b=1",
		      "step sort_query"));
	/* Two differences, two candidates: each is needed. */
	CHECK(derives("http://a.test/a/Foo?s=1", "http://a.test/a/foo",
		      "step lowercase_path"));
	CHECK(derives("http://a.test/a/Foo?s=1", "http://a.test/a/foo",
		      "ignore parameter s"));
	CHECK(derives("http://a.test/story?id=3", "http://a.test/story_3.html",
		      "rewrite /story_{N}.html -> /story?id={N}"));
	CHECK(derives("http://a.test/story_3.html", "http://a.test/story?id=3",
		      "rewrite /story_{N}.html -> /story?id={N}"));
	CHECK(derives("http://a.test/s/soccer/x", "http://a.test/s/football/x",
		      "rewrite /s/football -> /s/soccer"));
	/* Nothing explains a different host or scheme-and-path pair. */
	CHECK(n_derived("http://a.test/x", "http://b.test/x") == 0);
	CHECK(n_derived("http://a.test/x", "http://a.test/x") == 0);
	/* Too many differing parameters: another page, not a session. */
	CHECK(n_derived("http://a.test/x?a=1&b=1&c=1&d=1&e=1",
			"http://a.test/x") == 0 ||
	      !derives("http://a.test/x?a=1&b=1&c=1&d=1&e=1", "http://a.test/x",
		       "ignore parameter a"));
}

/* A query of ';' parameters (a gitweb's "?p=r.git;a=tree") has its
 * parameters read, sorted and ignored like an '&' query's; a ';' in a
 * value of an '&' query stays in the value. */
static void test_semicolon(void)
{
	CHECK(derives("http://git.test/?p=r.git;a=tree;h=abc;hb=HEAD",
		      "http://git.test/?p=r.git;a=tree;hb=HEAD",
		      "ignore parameter h"));
	CHECK(n_derived("http://git.test/?p=r.git;a=tree;h=abc;hb=HEAD",
			"http://git.test/?p=r.git;a=tree;hb=HEAD") == 1);
	CHECK(derives("http://git.test/?p=r.git;hb=HEAD;a=tree",
		      "http://git.test/?a=tree;p=r.git;hb=HEAD",
		      "step sort_query"));
	struct norm_rule r = param("h");
	CHECK_STR(apply1(&r, "http://git.test/?p=r.git;a=tree;h=abc;hb=HEAD"),
		  "http://git.test/?p=r.git;a=tree;hb=HEAD");
	CHECK_STR(apply1(&r, "http://git.test/?h=abc;p=r.git"),
		  "http://git.test/?p=r.git");
	r = step(NORM_SORT_QUERY);
	CHECK_STR(apply1(&r, "http://git.test/?p=r.git;hb=HEAD;a=tree"),
		  "http://git.test/?a=tree;hb=HEAD;p=r.git");
	/* An '&' query: "q=x;b=1" is one parameter. */
	CHECK_STR(apply1(&r, "http://a.test/x?q=x;b=1&a=2"),
		  "http://a.test/x?a=2&q=x;b=1");
	r = param("b");
	CHECK_STR(apply1(&r, "http://a.test/x?q=x;b=1&a=2"),
		  "http://a.test/x?q=x;b=1&a=2");
	r = param("q");
	CHECK_STR(apply1(&r, "http://a.test/x?q=x;b=1&a=2"),
		  "http://a.test/x?a=2");
	CHECK(derives("http://a.test/x?q=x;b=1&a=2", "http://a.test/x?q=x&a=2",
		      "ignore parameter q"));
	CHECK(n_derived("http://a.test/x?q=x;b=1&a=2",
			"http://a.test/x?q=x&a=2") == 1);
	/* A rewrite keeps the rest of a ';' query a query of ';'
	 * parameters. */
	r = dust("/", "story_{N}.html", "story?id={N}");
	CHECK_STR(apply1(&r, "http://a.test/story_7.html?x=1;y=2"),
		  "http://a.test/story?id=7;x=1;y=2");
	CHECK_STR(apply1(&r, "http://a.test/story_7.html?x=1&y=2"),
		  "http://a.test/story?id=7&x=1&y=2");
	r = dust("/", "story?id={N}", "story_{N}.html");
	CHECK_STR(apply1(&r, "http://a.test/story?id=7;x=1"),
		  "http://a.test/story_7.html?x=1");
	/* A replacement with '&' parameters keeps them '&' parameters. */
	r = dust("/", "s_{N}.html", "s?a=1&id={N}");
	CHECK_STR(apply1(&r, "http://a.test/s_7.html?x=1;y=2"),
		  "http://a.test/s?a=1&id=7&x=1;y=2");
}

/* Does no "{N}" of r stand inside a percent-escape? */
static bool splits_no_escape(const struct norm_rule *r)
{
	const char *pats[2] = { r->from, r->to };
	for (int k = 0; k < 2; k++)
		for (const char *p = strstr(pats[k], "{N}"); p;
		     p = strstr(p + 1, "{N}"))
			if ((p - pats[k] >= 1 && p[-1] == '%') ||
			    (p - pats[k] >= 2 && p[-2] == '%'))
				return false;
	return true;
}

/* A variable is a whole number: never digits of a percent-escape, so a
 * template never splits an escape or a UTF-8 character. */
static void test_escapes(void)
{
	static const char *pairs[][2] = {
		{ "http://w.test/wiki?title=Codeop_%E2%80%94_Compile",
		  "http://w.test/wiki/Codeop_%E2%80%94_Compile" },
		{ "http://w.test/wiki?title=Caf%C3%A9_2019",
		  "http://w.test/wiki/Caf%C3%A9_2019" },
		{ "http://w.test/index.php?title=%E6%97%A5%E6%9C%AC",
		  "http://w.test/index.php/%E6%97%A5%E6%9C%AC" },
		{ "http://w.test/n?t=%2012", "http://w.test/n/%2012" },
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct norm_rule r[16];
		const char *a = pairs[i][0], *b = pairs[i][1];
		size_t n = norm_rules_derive(a, strlen(a), b, strlen(b), r, 16);
		CHECK(n == 1 && r[0].kind == NORM_RULE_DUST);
		for (size_t k = 0; k < n; k++) {
			char d[512];
			bool ok = splits_no_escape(&r[k]);
			CHECK(ok);
			if (!ok && norm_rule_describe(&r[k], d, sizeof(d)) == 0)
				fprintf(stderr, "  pair %zu: %s\n", i, d);
		}
	}
	CHECK(derives(
		"http://w.test/wiki?title=Caf%C3%A9_2019",
		"http://w.test/wiki/Caf%C3%A9_2019",
		"rewrite /wiki?title=Caf%C3%A9_{N} -> /wiki/Caf%C3%A9_{N}"));
	/* A number right after an escape is still a whole number. */
	CHECK(derives("http://w.test/n?t=%E2%80%9412",
		      "http://w.test/n/%E2%80%9412",
		      "rewrite /n?t=%E2%80%94{N} -> /n/%E2%80%94{N}"));
	struct norm_rule r = dust("/", "n?t=%E2%80%94{N}", "n/%E2%80%94{N}");
	CHECK_STR(apply1(&r, "http://w.test/n?t=%E2%80%9477"),
		  "http://w.test/n/%E2%80%9477");
	/* A rule with a variable inside an escape (as an older derivation
	 * could write) applies nowhere. */
	r = dust("/", "wiki?title=Codeop_%E{N}%80%94_X",
		 "wiki/Codeop_%E{N}%80%94_X");
	CHECK_STR(apply1(&r, "http://w.test/wiki?title=Codeop_%E2%80%94_X"),
		  "http://w.test/wiki?title=Codeop_%E2%80%94_X");
	r = dust("/", "n?t=%{N}", "n/%{N}");
	CHECK_STR(apply1(&r, "http://w.test/n?t=%20"), "http://w.test/n?t=%20");
}

/* Every rule derived from a pair maps... the pair together once the
 * pair's other candidates apply too; and a host's rules are idempotent. */
static void test_properties(void)
{
	static const char *pairs[][2] = {
		{ "http://a.test/a/Foo-1?sid=9", "http://a.test/a/foo-1/" },
		{ "http://a.test/sec/index.html?x=1", "http://a.test/sec/" },
		{ "http://a.test/story_7.html", "http://a.test/story?id=7" },
		{ "http://a.test/l?page=1&sort=d&t=2",
		  "http://a.test/l?t=1&page=1" },
		{ "http://a.test//x//y", "http://a.test/x/y" },
		{ "http://git.test/?p=r.git;a=tree;h=abc;hb=HEAD",
		  "http://git.test/?p=r.git;a=tree;hb=HEAD" },
		{ "http://git.test/?p=r.git;hb=HEAD;a=tree",
		  "http://git.test/?a=tree;p=r.git;hb=HEAD" },
		{ "http://w.test/wiki?title=Codeop_%E2%80%94_Compile",
		  "http://w.test/wiki/Codeop_%E2%80%94_Compile" },
		{ "http://w.test/wiki?title=Caf%C3%A9_2019",
		  "http://w.test/wiki/Caf%C3%A9_2019" },
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct norm_rule r[16];
		const char *a = pairs[i][0], *b = pairs[i][1];
		size_t n = norm_rules_derive(a, strlen(a), b, strlen(b), r, 16);
		CHECK(n > 0);
		struct norm_hostrules hr = { 0 };
		const char *params[16];
		const struct norm_rule *d[16];
		for (size_t k = 0; k < n; k++) {
			if (r[k].kind == NORM_RULE_STEP)
				hr.steps |= r[k].step;
			else if (r[k].kind == NORM_RULE_PARAM)
				params[hr.n_params++] = r[k].a;
			else if (r[k].kind == NORM_RULE_DUST)
				d[hr.n_dust++] = &r[k];
		}
		hr.params = params;
		hr.dust = d;
		char x[NORM_URL_MAX + 1], y[NORM_URL_MAX + 1],
			z[NORM_URL_MAX + 1];
		CHECK(norm_rules_apply(&hr, a, strlen(a), NULL, x, sizeof(x),
				       NULL) == 0);
		CHECK(norm_rules_apply(&hr, b, strlen(b), NULL, y, sizeof(y),
				       NULL) == 0);
		if (strcmp(x, y) != 0)
			fprintf(stderr, "  pair %zu: %s != %s\n", i, x, y);
		CHECK(strcmp(x, y) == 0);
		CHECK(norm_rules_apply(&hr, x, strlen(x), NULL, z, sizeof(z),
				       NULL) == 0);
		CHECK_STR(z, x);
	}
}

/* norm_restep() on a strict URL equals norm_url() on it, for every step
 * a rule may add alone and all of them together, and with ignored
 * parameters: on 20,000 generated links (absolute and relative), ret
 * given as the input's own components as well. */
static void test_restep(void)
{
	struct urlgen_corpus c;
	urlgen_corpus_build(&c, 0x5e57e9, 20000, 0);
	const uint32_t strict = norm_profile_steps(NORM_PROFILE_STRICT);
	static const char *const params[] = { "sid", "a", "utm_*" };
	uint32_t sets[34];
	size_t n_sets = 0;
	for (uint32_t s = 1; s; s <<= 1)
		if (norm_rule_steps() & s)
			sets[n_sets++] = s;
	sets[n_sets++] = norm_rule_steps();
	unsigned long compared = 0, differ = 0;
	struct norm_base base;
	for (size_t i = 0; i < c.n; i++) {
		const struct urlgen_link *l = &c.links[i];
		if (l->base_len &&
		    norm_base_set(&base, NULL, c.text + l->base_off,
				  l->base_len))
			continue;
		struct norm_opts so = { .steps = strict };
		char s[NORM_URL_MAX + 1], x[NORM_URL_MAX + 1],
			y[NORM_URL_MAX + 1];
		struct norm_url su, xu, yu;
		if (norm_url(&so, l->base_len ? &base : NULL, c.text + l->off,
			     l->len, s, sizeof(s), &su))
			continue;
		for (size_t k = 0; k <= n_sets; k++) {
			struct norm_opts o = {
				.steps =
					strict |
					(k < n_sets
						 ? sets[k]
						 : NORM_REMOVE_TRACKING_PARAMS |
							   NORM_REMOVE_EMPTY_QUERY),
				.tracking = params,
				.n_tracking = 3,
			};
			int rx = norm_url(&o, NULL, s, su.len, x, sizeof(x),
					  &xu);
			yu = su;
			int ry = norm_restep(&o, s, &yu, y, sizeof(y), &yu);
			compared++;
			if (rx != ry ||
			    (!rx && (strcmp(x, y) != 0 || xu.len != yu.len ||
				     xu.path_off != yu.path_off ||
				     xu.query_len != yu.query_len ||
				     xu.host_len != yu.host_len))) {
				if (differ++ < 5)
					fprintf(stderr,
						"restep differs: %s with %#x: "
						"%s (%d) vs %s (%d)\n",
						s, o.steps, x, rx, y, ry);
			}
		}
	}
	CHECK(compared > 100000);
	CHECK(differ == 0);
	urlgen_corpus_free(&c);
}

int main(void)
{
	test_apply_one();
	test_derive();
	test_semicolon();
	test_escapes();
	test_properties();
	test_restep();
	test_rewrite_steps();
	return check_done();
}
