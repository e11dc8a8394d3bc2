/* focus-words.c — what a link's words say (docs/focus.md "Prediction"):
 * the words' evidence, as naive Bayes has it, learned from the pages
 * fetched (words_locked()), apart for quiet links (quiet_locked()), and
 * for a navigation page's links (list_words_locked()); which words a
 * queue entry keeps (keep_words()).  The tables of counts are
 * focus-predict.c's (tstat_of()), under focus.mu. */
#include "focus-int.h"

#include <math.h>
#include <stdlib.h>

/* What the words of a link say, in log odds: for each word, how much
 * more often the pages on topic that the crawl learned from have it than
 * those off topic (a likelihood ratio, as naive Bayes has it, with one
 * page of each kind added: (on_w + 1) / (N_on + 2) against (off_w + 1) /
 * (N_off + 2)), each word's bounded to +-WORD_MAX and the sum to
 * +-WORDS_MAX.  It counts the pages that lack the word too: a word of
 * another topic seen in one page off topic and in none of 40 on topic
 * says so.  A word no page had counts as one seen once in each kind of
 * page would.  Nothing is said before a few pages of each kind were
 * learned from (words_ready()).
 *
 * Of the words a link's URL shows and its text does not (URL_ONLY),
 * those that the same pages had, most of them on topic, count once: a
 * site's names for its pages come together ("list", "cat" and "page" in
 * every list; "w", "index", "php", "action" and "title" in every edit
 * page), and the prediction, which takes its words as independent
 * evidence, counted them three or five times over.  Words of equal
 * counts (pages, and of them on topic) are taken for words of the same
 * pages.  Names whose pages were mostly off topic still count each: the
 * crawl knows that kind of page and prunes it the sooner (a wiki's edit
 * pages; counted once, they came in later under load, 5-6 on wiki seed
 * 4 in 2 crawls of 18, and when one edit page of seed 6 that held its
 * article scored on topic, 2-3 more a crawl).  Traced on news seed 2
 * of the focus measurements:
 * the first page of a sports site's section lists, "Opinion" behind
 * /list?cat=opinion&page=1, whose three names had been seen in 12 pages
 * on topic of 14, said -6.7 (-2.23 each) and was pruned, and with it
 * every list of the topic not named by a keyword and the older
 * articles only the lists link.  A word the link's text shows too (an
 * article's title in its URL) counts as text, and a word of the URL of
 * counts of its own (a title's word behind "Talk") is evidence of its
 * own.  Words no page had still count each: counted once too, they let
 * a new kind of page through until the crawl had learned it (the wiki
 * shape, seed 1: 4 edit and 4 history pages fetched, none before;
 * harvest 0.92 -> 0.84-0.88), though on news seed 1, where no list had
 * been fetched when the sections were linked, the same rule kept them
 * pruned (three names no page had, -2.5 each): so when the link's text
 * says on topic by itself, they count once (below).  With the lock
 * held. */
#define WORDS_MAX 6.0
#define WORD_MAX 2.5
/* A word whose evidence is this much or more says something; a link none
 * of whose words does is quiet. */
#define SAYS_MIN 1.0
/* Pages learned from before a word in over half of them counts as
 * common. */
#define COMMON_MIN 20

/* Have enough pages been learned from for the words to say anything? */
bool words_ready(const struct model *m)
{
	return m->won >= LEARNED_ON_MIN && m->wn - m->won >= LEARNED_OFF_MIN;
}

/* A word in most pages tells pages apart no better than the class does.
 * In a text, that is a word in most pages of each kind (the "and"): a
 * word of the topic is in most of a focused crawl's pages too, and says
 * the most.  In URLs and links (the "item" and "id" of every URL of a
 * site, the "read" of every "Read more"), it is a word in most pages at
 * all, since what the crawl chose to fetch can make it lean either
 * way. */
static bool common(const struct model *m, const struct hstat *w)
{
	return m->wn >= COMMON_MIN && 2 * (uint64_t)w->n > m->wn &&
	       (2 * (uint64_t)w->text < w->n ||
		(2 * (uint64_t)w->on > m->won &&
		 2 * (uint64_t)(w->n - w->on) > m->wn - m->won));
}

/* Has a word of counts (n, on) that a link's URL shows and its text
 * does not been counted for the link already (seen[*ns], as n << 32 |
 * on)?  If not, it is now (when there is room). */
static bool names_seen(uint64_t *seen, size_t *ns, size_t cap, uint32_t n,
		       uint32_t on)
{
	uint64_t c = (uint64_t)n << 32 | on;
	for (size_t j = 0; j < *ns; j++)
		if (seen[j] == c)
			return true;
	if (*ns < cap)
		seen[(*ns)++] = c;
	return false;
}

double words_locked(struct focus *f, const struct model *m, uint16_t cat,
		    const uint32_t *t, size_t n, bool own, double *share,
		    bool *says)
{
	double non = (double)m->won, noff = (double)(m->wn - m->won), z = 0.0;
	uint64_t seen[TOKENS_PER_TEXT];
	size_t ns = 0;
	*says = false;
	bool ready = words_ready(m);
	/* Words no page had (text, and the URL's own names), and what the
	 * learned words of the link's text say. */
	unsigned new_text = 0, new_names = 0;
	double z_text = 0.0;
	for (size_t i = 0; i < n; i++) {
		bool url_only = (t[i] & URL_ONLY) != 0;
		const struct hstat *w = ready ? tstat_of(f, word_key(cat, t[i]),
							 false)
					      : NULL;
		if (share)
			share[i] = -1.0;
		if (ready && (!w || !w->n) && f->ts_used < TOKENS_MAX) {
			new_names += url_only;
			new_text += !url_only;
			continue;
		}
		if (!w || !w->n || common(m, w))
			continue;
		if (own && url_only && 2 * (uint64_t)w->on > w->n &&
		    names_seen(seen, &ns, TOKENS_PER_TEXT, w->n, w->on)) {
			if (share)
				share[i] = 0.0;
			continue;
		}
		double d = log(((double)w->on + 1.0) / (non + 2.0)) -
			   log(((double)(w->n - w->on) + 1.0) / (noff + 2.0));
		d = d < -WORD_MAX ? -WORD_MAX : d > WORD_MAX ? WORD_MAX : d;
		if (share)
			share[i] = fabs(d);
		*says |= fabs(d) >= SAYS_MIN;
		z += d;
		if (!url_only)
			z_text += d;
	}
	/* A word no page learned from had: as likely in a page of either
	 * kind as a word seen once would be (one page added to each), so
	 * the kind with more pages, whose words are better known, is the
	 * less likely to have it.  The URL's new names count once between
	 * them when the link is a site's own way (own) and its text says on
	 * topic by itself (its learned words' evidence SAYS_MIN or more): a
	 * site's names for a kind of page it has not shown yet come
	 * together, as its known names do.  Traced on news 1: a sports
	 * site's section lists ("More in Captain", +2.5 by its text) stood
	 * at -7.5 by "list", "cat" and "page", which no page learned had,
	 * were pruned at their lease, and with them 18 lists and the older
	 * articles only they link.  A link whose text says nothing keeps
	 * every new name's weight: a wiki's "Edit" and "History", the same
	 * kind of link to its own host, whose URL names no page had either
	 * (26 -> 46 such pages fetched in 30 crawls when every link's new
	 * names counted once). */
	if (own && new_names > 1 && z_text >= SAYS_MIN)
		new_names = 1;
	double d = log((noff + 2.0) / (non + 2.0));
	d = d < -WORD_MAX ? -WORD_MAX : d > WORD_MAX ? WORD_MAX : d;
	z += d * (new_text + new_names);
	return z < -WORDS_MAX ? -WORDS_MAX : z > WORDS_MAX ? WORDS_MAX : z;
}

/* A word key of the words of quiet links (quiet_locked()), apart from
 * the same word's in pages. */
uint64_t quiet_key(uint16_t cat, uint32_t w)
{
	return word_key(cat, w) ^ 0x9b05688c2b3e6c1full;
}

/* What the words t[n] of a quiet link say, as learned from the pages
 * that quiet links led to: "#friend" or "Sign in" and "Next post" say
 * nothing about sports in a page, and a link's "tag", "next" or "post"
 * says little among all links (most are titles, which say the rest), but
 * among quiet links they tell a common word's tag page from the next
 * post.  Nothing before 3 pages of each kind.  With the lock held. */
static double quiet_locked(struct focus *f, const struct model *m, uint16_t cat,
			   const uint32_t *t, size_t n)
{
	double non = (double)m->qwon, noff = (double)(m->qwn - m->qwon), z = 0;
	if (m->qwon < QUIET_MIN || m->qwn - m->qwon < QUIET_MIN)
		return 0.0;
	for (size_t i = 0; i < n; i++) {
		const struct hstat *w = tstat_of(f, quiet_key(cat, t[i]),
						 false);
		if (!w || !w->n)
			continue;
		double d = log(((double)w->on + 1.0) / (non + 2.0)) -
			   log(((double)(w->n - w->on) + 1.0) / (noff + 2.0));
		z += d < -WORD_MAX ? -WORD_MAX : d > WORD_MAX ? WORD_MAX : d;
	}
	return z < -WORDS_MAX ? -WORDS_MAX : z > WORDS_MAX ? WORDS_MAX : z;
}

/* What the words t[n] of a link say (words_locked(), then
 * quiet_locked() if they said nothing), and whether any said something
 * (*says).  With the lock held. */
double link_z_locked(struct focus *f, const struct model *m, uint16_t cat,
		     const uint32_t *t, size_t n, bool own, double *share,
		     bool *says)
{
	double z = words_locked(f, m, cat, t, n, own, share, says);
	return *says ? z : z + quiet_locked(f, m, cat, t, n);
}

/* The words a queue entry keeps of t[n] (shares as words_locked() gave
 * them): those not learned yet first, since what the crawl learns of
 * them before the URL is leased may change its prediction, then those
 * that say most. */
uint8_t keep_words(const uint32_t *t, const double *share, size_t n,
		   uint32_t *out)
{
	uint8_t m = 0;
	bool taken[TOKENS_PER_TEXT] = { false };
	while (m < FRONTIER_WORDS_MAX) {
		size_t best = n;
		for (size_t i = 0; i < n; i++) {
			if (taken[i])
				continue;
			/* Unknown (share < 0) first, then the largest. */
			if (best == n || ((share[i] < 0) != (share[best] < 0)
						  ? share[i] < 0
						  : share[i] > share[best]))
				best = i;
		}
		if (best == n)
			break;
		taken[best] = true;
		out[m++] = t[best];
	}
	return m;
}

/* What the words t[n] of a link on a list say of the page it leads to,
 * in log odds, for the count of a navigation page (focus_link_says()).  Not
 * words_locked()'s ratio: a list is judged while the crawl has learned from
 * many pages on topic and few off (three or four, a focused crawl's), and there
 * a word's rate off topic is not known but guessed, at one page in N_off + 2
 * for a word no page off topic had: any word in fewer pages on topic than that,
 * a word of the topic seen in 7 of 80 pages, says off topic, and a list of the
 * topic's titles is taken for none (traced on the traits web, seed 3:
 * once its list of 80 articles was fetched, 6 of the 8 titles of the
 * scattered section said off topic).  So each rate is smoothed towards
 * the word's rate in all the pages learned from (LIST_PRIOR pages'
 * weight): a word seen only on topic leans on topic as far as its count
 * bears, and a word no page had says nothing.  The link says what its
 * words say together (a title of three words of the topic seen in half
 * the pages says on topic, though no one word of it does).  Nor does it
 * wait for
 * LEARNED_OFF_MIN pages off topic: the smoothing is for a few, and the
 * traits web's scattered section, judged after two, was taken for a
 * navigation page in one run of two when it did.  With the lock held. */
#define LIST_PRIOR 2.0
double list_words_locked(struct focus *f, const struct model *m, uint16_t cat,
			 const uint32_t *t, size_t n)
{
	double non = (double)m->won, noff = (double)(m->wn - m->won), z = 0.0;
	for (size_t i = 0; i < n; i++) {
		const struct hstat *w = tstat_of(f, word_key(cat, t[i]), false);
		if (!w || !w->n || common(m, w))
			continue;
		double all = ((double)w->n + 1.0) / ((double)m->wn + 2.0);
		double d = log(((double)w->on + LIST_PRIOR * all) /
			       (non + LIST_PRIOR)) -
			   log(((double)(w->n - w->on) + LIST_PRIOR * all) /
			       (noff + LIST_PRIOR));
		z += d < -WORD_MAX ? -WORD_MAX : d > WORD_MAX ? WORD_MAX : d;
	}
	return z;
}
