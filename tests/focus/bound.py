#!/usr/bin/env python3
"""bound.py WEBDIR TOPIC [--target 0.9 | --tunnel T] — what a crawl that knew
every label could do on a web of webgen.py: starting from the seeds, pages of
the topic are fetched and followed freely, and an off-topic page is fetched
only when it opens the way to the most pages of the topic not reached yet
(greedy), until the share --target of the topic's reachable pages is
fetched.  Prints the pages fetched, the harvest and the coverage: an upper
bound, near enough, for a crawl that learns as it goes (docs/focus.md).

With --tunnel T, the coverage a crawl with that tunnel can reach at most:
every page is fetched, but the links of a page off topic are followed only
while it ends a run of at most T pages off topic (as focus_follow() has
it), so a page of the topic behind more is out of its reach.  Pages are
on topic here as their labels say; a crawl goes by their relevance, and
a page labelled off topic that scores over min_relevance takes it a little
further (prediction off, sites seed 1: coverage 0.937, reach 0.929)."""

import argparse
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import reachable, web_file  # noqa: E402


def links_of(webdir):
    href = re.compile(r"href='([^']*)'")
    links, host = {}, None
    for line in open(web_file(webdir)):
        if line.startswith("host "):
            host = line.split()[1]
        elif line.startswith("page "):
            links["http://%s%s" % (host, line.split()[1])] = \
                href.findall(line)
    return links


def topic_of(webdir, topic):
    """The labels of WEBDIR, its seeds for topic, and the topic's pages
    reachable from them."""
    labels = dict(l.rstrip("\n").split("\t")
                  for l in open(os.path.join(webdir, "labels.tsv")))
    seeds = [l.strip() for l in
             open(os.path.join(webdir, "seeds-%s.txt" % topic))
             if l.strip()]
    want = {u for u in reachable(webdir, seeds)
            if topic in labels.get(u, "").split(",")}
    return labels, seeds, want


def within(links, want, seeds, tunnel):
    """The pages a crawl of tunnel `tunnel` reaches, knowing every label
    (want: the topic's): each with the shortest run of pages off topic
    that ends at it; a page's links are followed while that run is at most
    the tunnel."""
    run = {u: 0 if u in want else 1 for u in seeds}
    todo = list(seeds)
    while todo:
        nxt = []
        for u in todo:
            if run[u] > tunnel:
                continue
            for v in links.get(u, []):
                r = 0 if v in want else run[u] + 1
                if r < run.get(v, r + 1):
                    run[v] = r
                    nxt.append(v)
        todo = nxt
    return set(run)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("webdir")
    ap.add_argument("topic")
    ap.add_argument("--target", type=float, default=0.9)
    ap.add_argument("--tunnel", type=int)
    a = ap.parse_args()
    labels, seeds, want = topic_of(a.webdir, a.topic)
    links = links_of(a.webdir)

    if a.tunnel is not None:
        print("%s %s tunnel %d: coverage at most %.3f" %
              (os.path.basename(a.webdir.rstrip("/")), a.topic, a.tunnel,
               len(within(links, want, seeds, a.tunnel) & want) /
               max(1, len(want))))
        return

    def grow(fetched, expanded):
        """Follow the topic's pages from what is fetched; returns the
        off-topic pages linked."""
        todo, offer = list(fetched - expanded), set()
        while todo:
            u = todo.pop()
            if u in expanded:
                continue
            expanded.add(u)
            for v in links.get(u, []):
                if v not in labels or v in fetched:
                    continue
                if v in want:
                    fetched.add(v)
                    todo.append(v)
                else:
                    offer.add(v)
        return offer

    fetched, expanded = set(seeds), set()
    offer = grow(fetched, expanded)
    while len(fetched & want) < a.target * len(want):
        best, gain = None, -1
        for c in sorted(offer - fetched):
            f2, e2 = set(fetched) | {c}, set(expanded)
            grow(f2, e2)
            g = len(f2 & want)
            if g > gain:
                best, gain = c, g
        if best is None:
            break
        fetched.add(best)
        offer |= grow(fetched, expanded)
    on = len(fetched & want)
    print("%s %s target %.2f: fetched %d, on topic %d of %d, harvest %.3f, "
          "coverage %.3f" % (os.path.basename(a.webdir.rstrip("/")),
                             a.topic, a.target, len(fetched), on, len(want),
                             on / len(fetched), on / max(1, len(want))))


if __name__ == "__main__":
    main()
