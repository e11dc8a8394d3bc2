/* rules.c — learned rewrite rules (SPEC §7): what one rule does to a URL,
 * what a host's verified rules do together, and which rules could explain
 * why two URLs of one site gave the same page.  Pure string work on URLs
 * that norm_url() wrote; the crawler (crawler/learn/adapt.c) decides which
 * candidates earn their place. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "normalize-int.h"
#include "normalize.h"

/* The steps a rule may be: every step of SPEC §4 beyond strict except
 * remove_www (a host alias is its own rule: the www name may be another
 * site), remove_tracking_params and remove_session_ids (a parameter rule
 * names the parameter that this host ignores). */
#define RULE_STEPS                                                             \
	(NORM_REMOVE_EMPTY_QUERY | NORM_SORT_QUERY |                           \
	 NORM_REMOVE_DUPLICATE_PARAMS | NORM_REMOVE_TRAILING_HOST_DOT |        \
	 NORM_REMOVE_EMPTY_PARAMS | NORM_COLLAPSE_SLASHES |                    \
	 NORM_LOWERCASE_PATH | NORM_ADD_TRAILING_SLASH |                       \
	 NORM_REMOVE_DEFAULT_PAGE | NORM_FOLD_HTTPS | NORM_REMOVE_USERINFO |   \
	 NORM_RULE_PATH_SESSION | NORM_RULE_FILE_SLASH)

/* The most parameter names a pair may differ by and still explain a
 * parameter rule: more is a different page, not a session id. */
#define PAIR_PARAMS_MAX 4

uint32_t norm_rule_steps(void)
{
	return RULE_STEPS;
}

static const char placeholder[] = "{N}";
#define PH_LEN (sizeof(placeholder) - 1)

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
}

/* Does a percent-escape "%XX" start at s[i] of s[0..n)?  In a URL that
 * norm_url() wrote every byte outside ASCII is one, so a multi-byte
 * UTF-8 character is a run of them. */
static bool escape_at(const char *s, size_t n, size_t i)
{
	return s[i] == '%' && i + 2 < n && is_hex(s[i + 1]) && is_hex(s[i + 2]);
}

/* The next number in s[from..n) (from a byte that starts no escape and
 * splits none): a whole run of digits outside percent-escapes, the '2'
 * of "%E2" and the "80" of "%80" never being one.  Its start goes to
 * *at; returns its length, 0 for none. */
static size_t next_number(const char *s, size_t n, size_t from, size_t *at)
{
	for (size_t i = from; i < n;) {
		if (escape_at(s, n, i)) {
			i += 3;
		} else if (is_digit(s[i])) {
			size_t e = i;
			while (e < n && is_digit(s[e]))
				e++;
			*at = i;
			return e - i;
		} else {
			i++;
		}
	}
	return 0;
}

/* Where a DUST substitution may end: the end of the path and query, or a
 * delimiter. */
static bool boundary(const char *s, size_t n, size_t i)
{
	return i == n || s[i] == '/' || s[i] == '?' || s[i] == '&' ||
	       s[i] == ';' || s[i] == '.';
}

/* Does pattern pat (with at most one placeholder) match s[0..) exactly up
 * to a boundary?  Sets *mlen to the length matched and the digits of the
 * placeholder into *d, *dn. */
static bool dust_match(const char *pat, const char *s, size_t n, size_t *mlen,
		       const char **d, size_t *dn)
{
	/* The text before the placeholder, compared as it is found: most
	 * URLs differ at once. */
	size_t i = 0;
	while (pat[i] &&
	       !(pat[i] == '{' && strncmp(pat + i, placeholder, PH_LEN) == 0)) {
		if (i == n || pat[i] != s[i])
			return false;
		i++;
	}
	const char *ph = pat[i] ? pat + i : NULL;
	*d = NULL;
	*dn = 0;
	if (ph) {
		/* The placeholder stands for a whole number: never for digits
		 * inside an escape ("%E{N}") nor for the end of a longer run
		 * (s starts after the context's '/'). */
		if ((i >= 1 && s[i - 1] == '%') ||
		    (i >= 2 && s[i - 2] == '%') ||
		    (i >= 1 && is_digit(s[i - 1]) &&
		     !(i >= 3 && s[i - 3] == '%')))
			return false;
		size_t k = i;
		while (k < n && is_digit(s[k]))
			k++;
		if (k == i)
			return false;
		*d = s + i;
		*dn = k - i;
		i = k;
		const char *post = ph + PH_LEN;
		size_t pl = strlen(post);
		if (pl > n - i || memcmp(post, s + i, pl) != 0)
			return false;
		i += pl;
	}
	if (!boundary(s, n, i))
		return false;
	*mlen = i;
	return true;
}

/* Apply a DUST rule to the path and query of url: at the start of the
 * path after the rule's context, from is written to.  Writes into out
 * (cap; not url) and returns its length, or 0 if the rule does not
 * apply. */
static size_t dust_apply(const struct norm_rule *r, const char *url,
			 const struct norm_url *u, char *out, size_t cap)
{
	size_t pq = u->path_off;
	size_t end = u->has_query ? (size_t)u->query_off + u->query_len
				  : (size_t)u->path_off + u->path_len;
	/* The context, compared as it is scanned: it is short. */
	size_t cl = 0;
	for (; r->a[cl]; cl++)
		if (pq + cl == end || url[pq + cl] != r->a[cl])
			return 0;
	size_t at = pq + cl, mlen;
	const char *d;
	size_t dn;
	if (!dust_match(r->from, url + at, end - at, &mlen, &d, &dn))
		return 0;
	const char *ph = strstr(r->to, placeholder);
	size_t pre = ph ? (size_t)(ph - r->to) : strlen(r->to);
	size_t need = pre + (ph ? dn + strlen(ph + PH_LEN) : 0);
	size_t total = at + need + (end - at - mlen) + (u->len - end);
	if (total >= cap || total > NORM_URL_MAX)
		return 0;
	size_t bn = at;
	memcpy(out, url, at);
	memcpy(out + bn, r->to, pre);
	bn += pre;
	if (ph) {
		memcpy(out + bn, d, dn);
		bn += dn;
		size_t pl = strlen(ph + PH_LEN);
		memcpy(out + bn, ph + PH_LEN, pl);
		bn += pl;
	}
	/* The rest of the path and query: a query after a replacement that
	 * has one of its own joins it with '&', or with ';' when both are
	 * queries of ';' parameters or might be (a query of one parameter),
	 * so that the result reads as the parameters of both. */
	const char *rest = url + at + mlen;
	size_t rn = end - at - mlen;
	const char *to_q = memchr(out + at, '?', bn - at);
	bool in_query = u->has_query && at + mlen >= u->query_off;
	if (rn && rest[0] == '?' && to_q) {
		bool semi = norm_query_sep(rest + 1, rn - 1) == ';' &&
			    !memchr(to_q, '&', (size_t)(out + bn - to_q));
		out[bn++] = semi ? ';' : '&';
		rest++;
		rn--;
	} else if (rn && (rest[0] == '&' || (rest[0] == ';' && in_query)) &&
		   !to_q) {
		/* The match took the query's first parameter and the
		 * replacement has no query: the others start one. */
		out[bn++] = '?';
		rest++;
		rn--;
	}
	memcpy(out + bn, rest, rn);
	bn += rn;
	out[bn] = '\0';
	return bn;
}

/* Normalize url (a URL norm_url() wrote) again with steps and a
 * parameter list. */
static int renorm_u(uint32_t steps, const char *const *params, size_t n_params,
		    const char *url, size_t len, const struct norm_url *in,
		    char *out, size_t cap, struct norm_url *ret)
{
	struct norm_opts o = {
		.steps = norm_profile_steps(NORM_PROFILE_STRICT) | steps,
		.tracking = params,
		.n_tracking = n_params,
	};
	/* A query whose parameters all went goes with them. */
	if (n_params)
		o.steps |= NORM_REMOVE_TRACKING_PARAMS |
			   NORM_REMOVE_EMPTY_QUERY;
	/* url is a URL norm_url() wrote: its components need no parser. */
	struct norm_url u;
	int rc = in ? 0 : norm_split(url, len, &u);
	return rc ? rc : norm_restep(&o, url, in ? in : &u, out, cap, ret);
}

static int renorm(uint32_t steps, const char *const *params, size_t n_params,
		  const char *url, size_t len, char *out, size_t cap,
		  struct norm_url *ret)
{
	return renorm_u(steps, params, n_params, url, len, NULL, out, cap, ret);
}

/* Write url with its host replaced by host. */
static int splice_host(const char *url, size_t len, const struct norm_url *u,
		       const char *host, size_t hl, char *out, size_t cap)
{
	size_t n = u->host_off + hl + (len - u->host_off - u->host_len);
	if (n >= cap || n > NORM_URL_MAX)
		return SC_E_TOOLONG;
	memcpy(out, url, u->host_off);
	memcpy(out + u->host_off, host, hl);
	memcpy(out + u->host_off + hl, url + u->host_off + u->host_len,
	       len - u->host_off - u->host_len);
	out[n] = '\0';
	return 0;
}

int norm_rule_apply(const struct norm_rule *r, const char *url, size_t len,
		    char *out, size_t cap, struct norm_url *ret)
{
	struct norm_url u;
	int rc;
	switch (r->kind) {
	case NORM_RULE_STEP:
		return renorm(r->step, NULL, 0, url, len, out, cap, ret);
	case NORM_RULE_PARAM: {
		const char *p = r->a;
		return renorm(0, &p, 1, url, len, out, cap, ret);
	}
	case NORM_RULE_ALIAS: {
		char tmp[NORM_URL_MAX + 1];
		if ((rc = norm_split(url, len, &u)))
			return rc;
		if (u.host_len != strlen(r->host) ||
		    memcmp(url + u.host_off, r->host, u.host_len) != 0)
			return renorm(0, NULL, 0, url, len, out, cap, ret);
		if ((rc = splice_host(url, len, &u, r->a, strlen(r->a), tmp,
				      sizeof(tmp))))
			return rc;
		return renorm(0, NULL, 0, tmp, strlen(tmp), out, cap, ret);
	}
	case NORM_RULE_DUST: {
		char tmp[NORM_URL_MAX + 1];
		if ((rc = norm_split(url, len, &u)))
			return rc;
		size_t n = dust_apply(r, url, &u, tmp, sizeof(tmp));
		if (!n)
			return renorm(0, NULL, 0, url, len, out, cap, ret);
		return renorm(0, NULL, 0, tmp, n, out, cap, ret);
	}
	default: return SC_E_INVAL;
	}
}

int norm_rules_apply(const struct norm_hostrules *hr, const char *url,
		     size_t len, const struct norm_url *url_u, char *out,
		     size_t cap, struct norm_url *ret)
{
	char a[NORM_URL_MAX + 1];
	struct norm_url u;
	int rc;
	if (!url_u) {
		if ((rc = norm_split(url, len, &u)))
			return rc;
		url_u = &u;
	}
	if (!hr->alias && !hr->steps && !hr->n_params && !hr->n_dust) {
		/* A strict URL is its own strict form. */
		if (len >= cap)
			return SC_E_NOSPC;
		memcpy(out, url, len);
		out[len] = '\0';
		if (ret)
			*ret = *url_u;
		return 0;
	}
	const char *cur = url;
	size_t n = len;
	if (hr->alias) {
		if ((rc = splice_host(url, len, url_u, hr->alias, hr->alias_len,
				      a, sizeof(a))))
			return rc;
		cur = a;
		n = strlen(a);
		url_u = NULL; /* renorm_u() splits the new one */
	}
	if ((rc = renorm_u(hr->steps, hr->params, hr->n_params, cur, n, url_u,
			   out, cap, &u)))
		return rc;
	/* DUST rules after the steps, each at most once, then the steps
	 * again over what they wrote: the result is a fixed point of the
	 * whole set (norm_rules_apply() of it changes nothing) unless two
	 * rules feed each other, which the crawler refuses to activate. */
	for (size_t i = 0; i < hr->n_dust; i++) {
		size_t m = dust_apply(hr->dust[i], out, &u, a, sizeof(a));
		if (!m)
			continue;
		uint32_t steps = hr->steps;
		if (hr->rewrite_steps) {
			struct norm_url au;
			if ((rc = norm_split(a, m, &au)))
				return rc;
			steps = hr->rewrite_steps(hr->rewrite_arg, a, &au);
		}
		if ((rc = renorm(steps, hr->params, hr->n_params, a, m, out,
				 cap, &u)))
			return rc;
	}
	if (ret)
		*ret = u;
	return 0;
}

/* --- Which rules explain a pair -------------------------------------- */

struct qparam {
	const char *p;
	size_t len, nlen;
};

/* The parameters of url's query, separated as the steps separate them
 * (norm_query_sep()). */
static size_t split_query(const char *url, const struct norm_url *u,
			  struct qparam *v, size_t cap)
{
	if (!u->has_query || !u->query_len)
		return 0;
	const char *q = url + u->query_off;
	size_t n = u->query_len, k = 0;
	char sep = norm_query_sep(q, n);
	for (size_t s = 0; s <= n && k < cap;) {
		const char *amp = memchr(q + s, sep, n - s);
		size_t e = amp ? (size_t)(amp - q) : n;
		const char *eq = memchr(q + s, '=', e - s);
		v[k].p = q + s;
		v[k].len = e - s;
		v[k].nlen = eq ? (size_t)(eq - (q + s)) : e - s;
		k++;
		s = e + 1;
	}
	return k;
}

/* How often name=value p occurs in v. */
static size_t count_param(const struct qparam *v, size_t n,
			  const struct qparam *p)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += v[i].len == p->len && memcmp(v[i].p, p->p, p->len) == 0;
	return k;
}

/* The names of the parameters that a and b do not share (a name=value
 * occurring a different number of times), each once, into names[].
 * Returns how many, or PAIR_PARAMS_MAX + 1 for more. */
#define QMAX 64
static size_t differing_params(const char *a, const struct norm_url *ua,
			       const char *b, const struct norm_url *ub,
			       char names[][NORM_RULE_TEXT_MAX + 1])
{
	struct qparam va[QMAX], vb[QMAX];
	size_t na = split_query(a, ua, va, QMAX);
	size_t nb = split_query(b, ub, vb, QMAX);
	size_t k = 0;
	for (int side = 0; side < 2; side++) {
		const struct qparam *v = side ? vb : va;
		size_t n = side ? nb : na;
		for (size_t i = 0; i < n; i++) {
			if (count_param(va, na, &v[i]) ==
			    count_param(vb, nb, &v[i]))
				continue;
			if (!v[i].nlen || v[i].nlen > NORM_RULE_TEXT_MAX)
				return PAIR_PARAMS_MAX + 1;
			bool have = false;
			for (size_t j = 0; j < k && !have; j++)
				have = strlen(names[j]) == v[i].nlen &&
				       memcmp(names[j], v[i].p, v[i].nlen) == 0;
			if (have)
				continue;
			if (k == PAIR_PARAMS_MAX)
				return PAIR_PARAMS_MAX + 1;
			memcpy(names[k], v[i].p, v[i].nlen);
			names[k][v[i].nlen] = '\0';
			k++;
		}
	}
	return k;
}

/* Do steps and params map a and b to one URL? */
static bool same_under(uint32_t steps, char names[][NORM_RULE_TEXT_MAX + 1],
		       size_t n_names, size_t skip, const char *a, size_t al,
		       const char *b, size_t bl)
{
	const char *p[PAIR_PARAMS_MAX];
	size_t np = 0;
	for (size_t i = 0; i < n_names; i++)
		if (i != skip)
			p[np++] = names[i];
	char x[NORM_URL_MAX + 1], y[NORM_URL_MAX + 1];
	if (renorm(steps, p, np, a, al, x, sizeof(x), NULL) ||
	    renorm(steps, p, np, b, bl, y, sizeof(y), NULL))
		return false;
	return strcmp(x, y) == 0;
}

/* The DUST rule that rewrites the path and query of a into b's, if the
 * two differ in one place: a context (the directory both share), and the
 * differing parts extended to delimiters, with a number both carry in
 * that place written as the placeholder.  The rule maps the longer part
 * (then the greater) onto the other, so the set of rules has a direction
 * and no two rules undo each other. */
static bool derive_dust(const char *a, const struct norm_url *ua, const char *b,
			const struct norm_url *ub, struct norm_rule *r)
{
	const char *pa = a + ua->path_off, *pb = b + ub->path_off;
	size_t la = ua->len - ua->path_off -
		    (ua->has_fragment ? ua->frag_len + 1u : 0u);
	size_t lb = ub->len - ub->path_off -
		    (ub->has_fragment ? ub->frag_len + 1u : 0u);
	size_t cp = 0;
	while (cp < la && cp < lb && pa[cp] == pb[cp])
		cp++;
	if (cp == la && cp == lb)
		return false;
	/* The context: up to the last '/' of the common prefix. */
	size_t k = cp;
	while (k > 0 && pa[k - 1] != '/')
		k--;
	if (k == 0)
		return false;
	/* The common suffix, starting at a delimiter (or empty). */
	size_t cs = 0;
	while (cs < la - k && cs < lb - k && pa[la - 1 - cs] == pb[lb - 1 - cs])
		cs++;
	while (cs > 0 && pa[la - cs] != '/' && pa[la - cs] != '?' &&
	       pa[la - cs] != '&')
		cs--;
	const char *xa = pa + k, *xb = pb + k;
	size_t na = la - k - cs, nb = lb - k - cs;
	if (!na || !nb || k > NORM_RULE_TEXT_MAX)
		return false;
	/* A number both parts carry: the first whole number of a's part
	 * (next_number(): never digits of an escape, so the placeholder
	 * splits no escape and no UTF-8 character) that is a whole number
	 * of b's part too.  Both parts start after a '/'. */
	char fa[NORM_RULE_TEXT_MAX + 1], fb[NORM_RULE_TEXT_MAX + 1];
	size_t oa = 0, ob = 0;
	bool templated = false;
	size_t i, dl;
	for (size_t from = 0;
	     !templated && (dl = next_number(xa, na, from, &i));
	     from = i + dl) {
		size_t e = i + dl, j, jl;
		for (size_t jfrom = 0; (jl = next_number(xb, nb, jfrom, &j));
		     jfrom = j + jl) {
			if (jl != dl || memcmp(xb + j, xa + i, dl) != 0)
				continue;
			if (i + PH_LEN + (na - e) > NORM_RULE_TEXT_MAX ||
			    j + PH_LEN + (nb - j - (e - i)) >
				    NORM_RULE_TEXT_MAX)
				return false;
			oa = (size_t)snprintf(fa, sizeof(fa), "%.*s%s%.*s",
					      (int)i, xa, placeholder,
					      (int)(na - e), xa + e);
			ob = (size_t)snprintf(fb, sizeof(fb), "%.*s%s%.*s",
					      (int)j, xb, placeholder,
					      (int)(nb - j - (e - i)),
					      xb + j + (e - i));
			templated = true;
			break;
		}
	}
	if (!templated) {
		if (na > NORM_RULE_TEXT_MAX || nb > NORM_RULE_TEXT_MAX)
			return false;
		memcpy(fa, xa, na);
		fa[na] = '\0';
		memcpy(fb, xb, nb);
		fb[nb] = '\0';
		oa = na;
		ob = nb;
	}
	bool a_first = oa > ob || (oa == ob && strcmp(fa, fb) > 0);
	memset(r, 0, sizeof(*r));
	r->kind = NORM_RULE_DUST;
	memcpy(r->a, pa, k);
	r->a[k] = '\0';
	strcpy(r->from, a_first ? fa : fb);
	strcpy(r->to, a_first ? fb : fa);
	return true;
}

size_t norm_rules_derive(const char *a, size_t al, const char *b, size_t bl,
			 struct norm_rule *out, size_t cap)
{
	struct norm_url ua, ub;
	if (norm_split(a, al, &ua) || norm_split(b, bl, &ub) || cap == 0 ||
	    (al == bl && memcmp(a, b, al) == 0))
		return 0;
	size_t n = 0;
	char names[PAIR_PARAMS_MAX][NORM_RULE_TEXT_MAX + 1];
	size_t np = differing_params(a, &ua, b, &ub, names);
	if (np <= PAIR_PARAMS_MAX &&
	    same_under(RULE_STEPS, names, np, SIZE_MAX, a, al, b, bl)) {
		/* Explained by steps and parameters together: each that
		 * the explanation needs is a candidate. */
		for (uint32_t s = 1; s && n < cap; s <<= 1)
			if ((RULE_STEPS & s) &&
			    !same_under(RULE_STEPS & ~s, names, np, SIZE_MAX, a,
					al, b, bl))
				out[n++] = (struct norm_rule){
					.kind = NORM_RULE_STEP, .step = s
				};
		for (size_t i = 0; i < np && n < cap; i++)
			if (!same_under(RULE_STEPS, names, np, i, a, al, b,
					bl)) {
				out[n] = (struct norm_rule){
					.kind = NORM_RULE_PARAM
				};
				strcpy(out[n].a, names[i]);
				n++;
			}
		/* Two ways to explain it, neither needed alone: each step
		 * that explains it alone. */
		if (n == 0)
			for (uint32_t s = 1; s && n < cap; s <<= 1)
				if ((RULE_STEPS & s) &&
				    same_under(s, NULL, 0, SIZE_MAX, a, al, b,
					       bl))
					out[n++] = (struct norm_rule){
						.kind = NORM_RULE_STEP,
						.step = s
					};
		return n;
	}
	if (np > PAIR_PARAMS_MAX || ua.host_len != ub.host_len ||
	    memcmp(a + ua.host_off, b + ub.host_off, ua.host_len) != 0)
		return 0;
	if (derive_dust(a, &ua, b, &ub, &out[0]))
		return 1;
	return 0;
}

int norm_rule_describe(const struct norm_rule *r, char *out, size_t cap)
{
	int n;
	switch (r->kind) {
	case NORM_RULE_STEP:
		n = snprintf(out, cap, "step %s",
			     r->step == NORM_RULE_PATH_SESSION
				     ? "remove_path_session_ids"
			     : r->step == NORM_RULE_FILE_SLASH
				     ? "remove_file_slash"
				     : norm_step_name(r->step));
		break;
	case NORM_RULE_PARAM:
		n = snprintf(out, cap, "ignore parameter %s", r->a);
		break;
	case NORM_RULE_ALIAS:
		n = snprintf(out, cap, "alias %s = %s", r->host, r->a);
		break;
	case NORM_RULE_DUST:
		n = snprintf(out, cap, "rewrite %s%s -> %s%s", r->a, r->from,
			     r->a, r->to);
		break;
	default: return SC_E_INVAL;
	}
	return n < 0 || (size_t)n >= cap ? SC_E_NOSPC : 0;
}
