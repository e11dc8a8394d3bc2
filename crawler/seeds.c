/* seeds.c — seeds: seed files and submitted URLs, normalized and queued in
 * the writer's transaction. */
#include "crawl-int.h"

/* Queue a seed, noting it when another category queued it first.  The
 * note is counted in the focus batch of txn, which its owner flushes
 * before the commit and ends after it: the writer for a reload (its
 * batch holds pages too, so a seed must not end it), add_seeds() at the
 * start.  Returns 1 if queued, 0 if not, or an sc_err code. */
static int add_seed(struct crawl *c, MDB_txn *txn,
		    const struct frontier_url *fu)
{
	uint16_t other;
	int8_t added;
	int rc = frontier_add_batch_cat(c->fr, txn, fu, 1, &added, &other);
	if (rc >= 0)
		rc = focus_note_also(c->focus, c->store, txn, fu, 1, &other);
	return rc < 0 ? rc : added;
}

int add_seeds_of(struct crawl *c, MDB_txn *txn, uint16_t cat, const char *path,
		 int *added)
{
	const struct crawl_opts *o = c->o;
	FILE *f = fopen(path, "r");
	if (!f) {
		crawl_say(c, LOG_WARNING, "%s: %s", path, strerror(errno));
		return SC_E_IO;
	}
	char line[NORM_INPUT_MAX + 2], out[NORM_URL_MAX + 1],
		found[NORM_URL_MAX + 1];
	struct norm_url u, fu_u;
	unsigned lineno = 0;
	int rc = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		size_t n = strlen(line);
		if (n && line[n - 1] != '\n' && !feof(f)) {
			int ch;
			while ((ch = fgetc(f)) != EOF && ch != '\n')
				;
			crawl_say(c, LOG_WARNING, "%s:%u: line too long", path,
				  lineno);
			continue;
		}
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || *p == '\r' || !*p)
			continue;
		n = strlen(p);
		int r = crawl_seed_url(&o->norm, p, n, out, &u, found, &fu_u);
		if (r) {
			crawl_say(c, LOG_WARNING, "%s:%u: %s", path, lineno,
				  sc_strerror(r));
			continue;
		}
		struct frontier_url fu = {
			.url = out,
			.url_len = u.len,
			.u = &u,
			.found = found,
			.found_len = fu_u.len,
			.depth = 0,
			.category = cat,
		};
		if ((r = add_seed(c, txn, &fu)) < 0) {
			rc = r;
			break;
		}
		*added += r;
	}
	fclose(f);
	return rc;
}

/* Queue the seeds of every category; seeds seen before (a resumed crawl)
 * are not queued again. */
int add_seeds(struct crawl *c)
{
	const struct crawl_opts *o = c->o;
	MDB_txn *txn;
	int rc = store_txn_begin(c->env, 0, &txn);
	if (rc)
		return rc;
	int added = 0;
	rc = focus_put_categories(c->focus, c->store, txn);
	for (size_t i = 0; i < o->n_categories && !rc; i++)
		if (o->categories[i].seeds_file)
			rc = add_seeds_of(c, txn, (uint16_t)i,
					  o->categories[i].seeds_file, &added);
	if (!rc)
		rc = focus_flush(c->focus, c->store, txn);
	if (rc)
		mdb_txn_abort(txn);
	else
		rc = store_txn_commit(txn);
	if (rc) {
		frontier_discarded(c->fr);
		pthread_mutex_lock(&c->mu);
		focus_batch_end(c->focus, false, &c->sum);
		pthread_mutex_unlock(&c->mu);
		return rc;
	}
	frontier_published(c->fr);
	pthread_mutex_lock(&c->mu);
	focus_batch_end(c->focus, true, &c->sum);
	pthread_mutex_unlock(&c->mu);
	if (!o->quiet)
		crawl_say(c, LOG_NOTICE, "%d new seeds queued", added);
	return 0;
}
