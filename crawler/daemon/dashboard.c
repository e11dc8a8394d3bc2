/* dashboard.c — the control API's answers for the operator's browser
 * (daemon.h): GET / (the dashboard page), GET /history (the last hour's
 * rate, which the page draws) and GET /rules (the learned rules the page
 * links to).
 *
 * The page is crawler/daemon/dashboard.html, one self-contained file (HTML, CSS
 * and a small script, nothing fetched from elsewhere), built into the
 * executable by crawler/daemon/embed.py as the array dashboard_html: the daemon
 * needs no file at run time, and the page always matches the daemon's
 * JSON.  The page polls GET /status and GET /history every few seconds
 * and draws its charts in SVG; it sends no POST.
 *
 * No socket, no crawl, no database: the callers (serve-conn.c) hand the
 * figures over. */
#include "daemon.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control-int.h"

extern const char dashboard_html[];
extern const size_t dashboard_html_len;

void control_dashboard_answer(struct control_answer *ans)
{
	char *body = malloc(dashboard_html_len + 1);
	if (body)
		memcpy(body, dashboard_html, dashboard_html_len + 1);
	*ans = (struct control_answer){
		.status = 200,
		.content_type = "text/html; charset=utf-8",
		.body = body,
	};
}

void control_history_answer(const double *rates, size_t n, double step_s,
			    struct control_answer *ans)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++) {
		/* To 0.01, as the chart shows it. */
		double v = rates[i] > 0 && rates[i] < 1e9
				   ? (double)(uint64_t)(rates[i] * 100 + 0.5) /
					     100
				   : 0;
		if (json_array_append_new(a, json_real(v))) {
			json_decref(a);
			a = NULL;
		}
	}
	json_t *o = a ? json_pack("{s:f,s:o}", "step_s", step_s, "pages_per_s",
				  a)
		      : NULL;
	*ans = (struct control_answer){
		.status = o ? 200 : 500,
		.content_type = JSON_TYPE,
		.body = o ? json_dumps(o, JSON_FLAGS) : NULL,
	};
	json_decref(o);
}

/* The listing's order of states: what applies, what may apply, what
 * did. */
static int state_rank(uint8_t state)
{
	switch (state) {
	case ADAPT_ACTIVE: return 0;
	case ADAPT_CANDIDATE: return 1;
	case ADAPT_RETIRED: return 2;
	default: return 3;
	}
}

/* Whether a comes before b: by state, then fetches saved, support, id. */
static bool rule_before(uint8_t sa, uint64_t saved_a, uint64_t support_a,
			uint32_t id_a, const struct control_rule *b)
{
	if (state_rank(sa) != state_rank(b->state))
		return state_rank(sa) < state_rank(b->state);
	if (saved_a != b->saved)
		return saved_a > b->saved;
	if (support_a != b->support)
		return support_a > b->support;
	return id_a < b->id;
}

int control_rules_add(void *arg, const struct adapt_rule_info *r)
{
	struct control_rules *l = arg;
	l->total++;
	size_t at = l->n;
	if (l->n == CONTROL_RULES_LISTED) {
		/* Full: the rule replaces the last in the order, if it
		 * comes before it (O(listed) a rule; the list is short). */
		at = 0;
		for (size_t i = 1; i < l->n; i++)
			if (rule_before(l->rule[at].state, l->rule[at].saved,
					l->rule[at].support, l->rule[at].id,
					&l->rule[i]))
				at = i;
		if (!rule_before(r->state, r->saved, r->support, r->id,
				 &l->rule[at]))
			return 0;
	} else {
		l->n++;
	}
	struct control_rule *c = &l->rule[at];
	c->id = r->id;
	c->state = r->state;
	snprintf(c->host, sizeof(c->host), "%s", r->host);
	snprintf(c->text, sizeof(c->text), "%s", r->text);
	c->support = r->support;
	c->held = r->held;
	c->saved = r->saved;
	c->audits = r->audits;
	c->audit_failures = r->audit_failures;
	return 0;
}

static int by_order(const void *a, const void *b)
{
	const struct control_rule *x = a, *y = b;
	if (x->id == y->id)
		return 0;
	return rule_before(x->state, x->saved, x->support, x->id, y) ? -1 : 1;
}

void control_rules_answer(struct control_rules *r, struct control_answer *ans)
{
	qsort(r->rule, r->n, sizeof(r->rule[0]), by_order);
	json_t *a = json_array();
	for (size_t i = 0; a && i < r->n; i++) {
		const struct control_rule *c = &r->rule[i];
		/* Host names and rule texts are ASCII (normalize.h); a
		 * string jansson refuses leaves the rule out. */
		json_t *o = json_pack(
			"{s:I,s:s,s:s?,s:s?,s:I,s:I,s:I,s:I,s:I}", "id",
			(json_int_t)c->id, "state",
			adapt_state_name((enum adapt_state)c->state), "host",
			c->host, "rule", c->text, "support",
			(json_int_t)c->support, "held", (json_int_t)c->held,
			"fetches_saved", (json_int_t)c->saved, "audits",
			(json_int_t)c->audits, "audit_failures",
			(json_int_t)c->audit_failures);
		if (o && json_array_append_new(a, o)) {
			json_decref(a);
			a = NULL;
		}
	}
	json_t *o = a ? json_pack("{s:I,s:o}", "total", (json_int_t)r->total,
				  "rules", a)
		      : NULL;
	*ans = (struct control_answer){
		.status = o ? 200 : 500,
		.content_type = JSON_TYPE,
		.body = o ? json_dumps(o, JSON_FLAGS) : NULL,
	};
	json_decref(o);
}
