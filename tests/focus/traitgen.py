#!/usr/bin/env python3
"""traitgen.py --seed N --out DIR — a small web of the two traits
that a focused crawl must get through (tests/test-focus-traits.sh),
in webgen.py's format (web, labels.tsv, seeds-TOPIC.txt, keywords.txt).

sport.test, a site of the topic (sports): a home page, an about page,
and 80 articles published in one paginated list, /list?cat=latest&page=N
(8 pages of 10 article titles, with "Previous page", "Next page" and
"Page N" links; its own words are one line of boilerplate, so its
relevance is nil, and it is labelled with the topic of its articles).
Each article links the home, the list's first page, the about page and
the 5 latest articles: an article past the first page of the list is
reached only through the list (trait 1: list pages of the topic).

sky.test, a site of another topic (astronomy): a home page linked from
sport.test's articles past the 5 latest ("Our partners"), 12 articles of its topic, a section
of them (/section/stars) and a section of the topic (/section/sports,
labelled sports, "Sports" on the home's link, "Locker room" on its own
page), the only way to its 8 articles of the topic (trait 2: the topic's
articles scattered on a site of another topic, linked from its
sections).  At tunnel 1 the home is the tunnel's one page off topic, so
the section's links are followed only if the crawl tells it is a page of
the topic's path.  food.test (cooking): a home and 6 articles.

The seeds are sport.test's home and two of its latest articles."""

import argparse
import os
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webgen import TOPICS, VOCAB, Web, slug  # noqa: E402

LIST_PAGES = 8
PER_PAGE = 10


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rng = random.Random("traits-%d" % a.seed)
    web = Web(rng)
    # An operator names the topic and some of its vocabulary.
    keywords = {t: [t] + rng.sample(VOCAB[t].split(), 11) for t in TOPICS}
    S, H, F = "http://sport.test", "http://sky.test", "http://food.test"

    # sport.test: its articles, newest first.
    arts = []
    for i in range(LIST_PAGES * PER_PAGE):
        t = web.title("sports")
        arts.append(web.page("%s/2024/%02d/%02d/%s" % (
            S, 6 - i // 28, 28 - i % 28, slug(t)), "sports", t))
    home = web.page(S + "/", "nav", "The Daily Whistle")
    about = web.page(S + "/about", "nav", "About us")
    web.link(about, home, "Home")
    lists = []
    for p in range(1, LIST_PAGES + 1):
        url = "%s/list?cat=latest&page=%d" % (S, p)
        lists.append(url)
        web.page(url, "sports", "Latest, page %d" % p)
        web.pages[url]["body"] = (
            "<p>Latest: all our stories, newest first. Page %d of %d.</p>"
            % (p, LIST_PAGES))
    for p, url in enumerate(lists, 1):
        for u in arts[(p - 1) * PER_PAGE:p * PER_PAGE]:
            web.link(url, u, web.pages[u]["title"])
        if p > 1:
            web.link(url, lists[p - 2], "Previous page")
        if p < LIST_PAGES:
            web.link(url, lists[p], "Next page")
        for q in range(max(1, p - 2), min(LIST_PAGES, p + 2) + 1):
            if q != p:
                web.link(url, lists[q - 1], "Page %d" % q)
        web.link(url, home, "Home")
    web.link(home, lists[0], "Latest")
    for u in arts[:5]:
        web.link(home, u, web.pages[u]["title"])
    web.link(home, about, "About")
    for u in arts:
        web.link(u, home, "Home")
        web.link(u, lists[0], "All our stories")
        web.link(u, about, "About")
        for v in arts[:5]:
            web.link(u, v, web.pages[v]["title"])

    # sky.test: a site of another topic with a section of the topic.
    shome = web.page(H + "/", "nav", "The Sky Gazette")
    stars = web.page(H + "/section/stars", "astronomy", "Stars")
    # Its section of the topic is named by its link ("Sports"), not by
    # its own words: a list of titles, as the news shape's lists.
    ssec = web.page(H + "/section/sports", "sports", "Locker room")
    for sec, anchor in ((stars, "Stars"), (ssec, "Sports")):
        web.pages[sec]["body"] = "<p>Every story of this section.</p>"
        web.link(shome, sec, anchor)
        web.link(sec, shome, "Home")
    for i in range(12):
        t = web.title("astronomy")
        u = web.page("%s/story/%d" % (H, 100 + i), "astronomy", t)
        web.link(stars, u, t)
        web.link(u, shome, "Home")
        web.link(u, stars, "Stars")
        if i < 6:
            web.link(shome, u, t)
    # Its articles of the topic are titled with words of the topic that
    # are not keywords: the section's relevance is nil.
    unnamed = [w for w in VOCAB["sports"].split()
               if w not in keywords["sports"]]
    for i in range(8):
        w = rng.sample(unnamed, 2)
        t = "%s and %s" % (w[0].capitalize(), w[1])
        u = web.page("%s/story/%d" % (H, 200 + i), "sports", t)
        web.link(ssec, u, t)
        web.link(u, shome, "Home")

    # food.test: a site of a third topic.
    fhome = web.page(F + "/", "nav", "The Open Kitchen")
    for i in range(6):
        t = web.title("cooking")
        u = web.page("%s/recipe/%d" % (F, i), "cooking", t)
        web.link(fhome, u, t)
        web.link(u, fhome, "Home")

    for u in arts[5:]:
        web.link(u, shome, "Our partners: The Sky Gazette")
    web.link(home, fhome, "Our partners: The Open Kitchen")
    seeds = {t: [] for t in TOPICS}
    seeds["sports"] = [home, arts[0], arts[1]]
    web.write(a.out, seeds, keywords)


if __name__ == "__main__":
    main()
