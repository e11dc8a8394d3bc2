/* seeds.c — seeds: seed files and submitted URLs, normalized and queued in
 * the writer's transaction. */
#include "crawl-int.h"

/* Rejected lines listed per seed list; the rest are only counted. */
#define REJECTED_LISTED 100
/* Bytes of a rejected line shown in its message. */
#define REJECTED_SHOWN 80

/* What reading one seed list found. */
struct seed_counts {
	unsigned lines;    /* seed lines: neither blank nor comments */
	unsigned taken;    /* queued, or known already */
	unsigned rejected; /* the others */
	int added;         /* queued */
};

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

/* The text of a rejected line as a message shows it: in quotes, at most
 * REJECTED_SHOWN bytes of it, with '"', '\', control and non-ASCII bytes
 * escaped, so that whatever the file holds the message is one line of
 * plain text; a longer line is followed by its length. */
static void show_line(const char *p, size_t n, char *out, size_t cap)
{
	size_t o = 0, shown = n < REJECTED_SHOWN ? n : REJECTED_SHOWN;
	out[o++] = '"';
	for (size_t i = 0; i < shown && o + 8 < cap; i++) {
		unsigned char ch = (unsigned char)p[i];
		if (ch == '"' || ch == '\\')
			o += (size_t)snprintf(out + o, cap - o, "\\%c", ch);
		else if (ch == '\t')
			o += (size_t)snprintf(out + o, cap - o, "\\t");
		else if (ch < 0x20 || ch >= 0x7f)
			o += (size_t)snprintf(out + o, cap - o, "\\x%02x", ch);
		else
			out[o++] = (char)ch;
	}
	out[o++] = '"';
	out[o] = '\0';
	if (shown < n)
		snprintf(out + o, cap - o, "... (%zu bytes)", n);
}

static void reject(struct crawl *c, const char *path, unsigned lineno,
		   const char *p, size_t n, const char *why,
		   struct seed_counts *k)
{
	k->rejected++;
	if (k->rejected > REJECTED_LISTED)
		return;
	char shown[REJECTED_SHOWN * 4 + 40];
	show_line(p, n, shown, sizeof(shown));
	crawl_say(c, LOG_WARNING, "%s:%u: %s: %s", path, lineno, shown, why);
}

/* Read the seed list at path ("-": standard input) into txn under
 * category cat.  A line that is no seed is reported and counted; a list
 * that cannot be read is reported and SC_E_IO returned. */
static int read_seeds(struct crawl *c, MDB_txn *txn, uint16_t cat,
		      const char *path, struct seed_counts *k)
{
	const struct crawl_opts *o = c->o;
	bool in = strcmp(path, "-") == 0;
	const char *name = in ? "(standard input)" : path;
	/* The daemon skips a list it cannot read (after a reload); a
	 * crawl ends. */
	int level = o->daemon ? LOG_WARNING : LOG_ERR;
	FILE *f = in ? stdin : fopen(path, "r");
	if (!f) {
		crawl_say(c, level, "cannot read %s: %s", path,
			  strerror(errno));
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
		bool cut = n && line[n - 1] != '\n' && !feof(f);
		if (cut) {
			size_t more = 0;
			int ch;
			while ((ch = fgetc(f)) != EOF && ch != '\n')
				more++;
			k->lines++;
			reject(c, name, lineno, line, n + more, "line too long",
			       k);
			continue;
		}
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || *p == '\r' || !*p)
			continue;
		k->lines++;
		n = strlen(p);
		int r = crawl_seed_url(&o->norm, p, n, out, &u, found, &fu_u);
		if (r) {
			while (n && (p[n - 1] == '\n' || p[n - 1] == '\r' ||
				     p[n - 1] == ' ' || p[n - 1] == '\t'))
				n--;
			reject(c, name, lineno, p, n, sc_strerror(r), k);
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
		k->taken++;
		k->added += r;
	}
	if (!rc && ferror(f)) {
		crawl_say(c, level, "cannot read %s: %s", name,
			  strerror(errno));
		rc = SC_E_IO;
	}
	if (!in)
		fclose(f);
	if (k->rejected > REJECTED_LISTED)
		crawl_say(c, LOG_WARNING,
			  "%s: %u of %u seed lines rejected (the first %d "
			  "listed)",
			  name, k->rejected, k->lines, REJECTED_LISTED);
	else if (k->rejected)
		crawl_say(c, LOG_WARNING, "%s: %u of %u seed lines rejected",
			  name, k->rejected, k->lines);
	return rc;
}

int add_seeds_of(struct crawl *c, MDB_txn *txn, uint16_t cat, const char *path,
		 int *added)
{
	struct seed_counts k = { 0 };
	int rc = read_seeds(c, txn, cat, path, &k);
	*added += k.added;
	return rc;
}

/* A crawl (not the daemon, which waits for seeds) with nothing to do ends
 * here: every seed line rejected, or no seed and nothing queued.  A store
 * whose crawl is complete is not an error: a rerun finds nothing left,
 * says so and ends as a resumed crawl does.  Returns 0 or SC_E_INVAL
 * (said why). */
static int check_work(struct crawl *c, MDB_txn *txn,
		      const struct seed_counts *all)
{
	const struct crawl_opts *o = c->o;
	if (o->daemon)
		return 0;
	if (all->rejected && !all->taken) {
		crawl_say(c, LOG_ERR,
			  "nothing to crawl: every seed line was rejected (%u)",
			  all->rejected);
		return SC_E_INVAL;
	}
	if (all->taken || o->recrawl.pass)
		return 0;
	struct frontier_stats fs;
	frontier_stats(c->fr, &fs);
	if (fs.queued)
		return 0;
	size_t records = 0;
	int rc = store_count(c->store, txn, &records);
	if (rc)
		return rc;
	if (records) {
		crawl_say(c, LOG_NOTICE,
			  "nothing queued in %s: its crawl is complete "
			  "(--seeds adds seeds, --recrawl revisits its pages)",
			  o->store_dir);
		return 0;
	}
	crawl_say(c, LOG_ERR,
		  "nothing to crawl: no seed (--seeds FILE, or seeds = in a "
		  "[category] section) and nothing queued in %s",
		  o->store_dir);
	return SC_E_INVAL;
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
	struct seed_counts all = { 0 };
	rc = focus_put_categories(c->focus, c->store, txn);
	if (!rc)
		rc = focus_load(c->focus, c->store, txn);
	for (size_t i = 0; i < o->n_categories && !rc; i++) {
		struct seed_counts k = { 0 };
		if (o->categories[i].seeds_file)
			rc = read_seeds(c, txn, (uint16_t)i,
					o->categories[i].seeds_file, &k);
		all.lines += k.lines;
		all.taken += k.taken;
		all.rejected += k.rejected;
		all.added += k.added;
	}
	if (!rc)
		rc = check_work(c, txn, &all);
	if (!rc)
		rc = focus_flush(c->focus, c->store, txn);
	if (rc)
		mdb_txn_abort(txn);
	else
		rc = store_txn_commit(txn);
	if (rc) {
		frontier_discarded(c->fr);
		pthread_mutex_lock(&c->mu);
		crawl_focus_end(c, false);
		pthread_mutex_unlock(&c->mu);
		return rc;
	}
	frontier_published(c->fr);
	pthread_mutex_lock(&c->mu);
	crawl_focus_end(c, true);
	pthread_mutex_unlock(&c->mu);
	if (!o->quiet)
		crawl_say(c, LOG_NOTICE, "%d new seeds queued", all.added);
	return 0;
}
