#!/usr/bin/env python3
"""gensite.py — the static web that bench/crawl serves and crawls.

Writes DIR/AUTHORITY/... for each host authority (by default
hK.bench.test for K in 0..HOSTS-1; run.py gives 127.0.0.K+2:PORT, so
that every tool connects straight to the host of each URL, with no proxy
and no name to resolve) and DIR/seeds.txt (the host roots).  Deterministic for a given seed.  Page n (0 <= n < PAGES)
lives on host n % HOSTS; pages 0..HOSTS-1 are the hosts' roots ("/",
stored as index.html), the others are /p/NNNNN.html.  Every page links
to its tree children (n*4+HOSTS .. n*4+HOSTS+3), so all pages are
reachable from the roots within a few hops, plus random pages until it
has 20-40 links: same-host relative, same-host absolute-path and
cross-host absolute URLs.  Every link points at a page that exists.

usage: gensite.py DIR [--pages N] [--hosts N | --authorities A,B,...]
                  [--seed S]
"""
import argparse
import os
import random

WORDS = (
    "crawler frontier breadth first queue host politeness delay robots "
    "agent fetch parse anchor link page site index archive signature "
    "normalize scheme authority path query fragment redirect status body "
    "header cache store record commit batch thread event socket timeout "
    "resolve connect transfer encoding gzip content type length title "
    "paragraph section article navigation footer summary research paper "
    "duplicate equivalent category keyword search relevance topic tunnel "
    "the of and to in is that for it as with was on be by this are from "
    "at or an have not which but all were when we there can more one"
).split()

TARGET_BYTES = 10 * 1024
BRANCH = 4


AUTHORITIES = []


def host_name(k):
    return AUTHORITIES[k] if AUTHORITIES else "h%d.bench.test" % k


def page_path(n, hosts):
    return "/" if n < hosts else "/p/%05d.html" % n


def link_href(src, dst, hosts, rng):
    """How page src refers to page dst: relative, absolute-path or
    absolute URL (always absolute across hosts)."""
    path = page_path(dst, hosts)
    if src % hosts != dst % hosts:
        return "http://%s%s" % (host_name(dst % hosts), path)
    r = rng.random()
    if r < 0.4 and dst >= hosts:
        # Relative to the source's directory: "/" or "/p/".
        return ("%05d.html" % dst) if src >= hosts else "p/%05d.html" % dst
    if r < 0.8:
        return path
    return "http://%s%s" % (host_name(dst % hosts), path)


def sentence(rng, n):
    w = [rng.choice(WORDS) for _ in range(n)]
    w[0] = w[0].capitalize()
    return " ".join(w) + "."


def page(n, pages, hosts, rng):
    kids = [c for c in range(n * BRANCH + hosts, n * BRANCH + hosts + BRANCH)
            if c < pages]
    want = rng.randint(20, 40)
    targets = list(kids)
    while len(targets) < want:
        # Two in three links stay on the host.
        if rng.random() < 0.67:
            t = rng.randrange(n % hosts, pages, hosts)
        else:
            t = rng.randrange(pages)
        targets.append(t)
    rng.shuffle(targets)
    nav = targets[:8]
    body = targets[8:]

    title = "%s %d" % (sentence(rng, 4)[:-1], n)
    out = [
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
        "<meta charset=\"utf-8\">\n<title>%s</title>\n"
        "</head>\n<body>\n"
        % title,
        "<nav><ul>\n",
    ]
    for t in nav:
        out.append("<li><a href=\"%s\">%s</a></li>\n" %
                   (link_href(n, t, hosts, rng), rng.choice(WORDS)))
    out.append("</ul></nav>\n<main>\n<h1>%s</h1>\n" % title)
    size = sum(len(s) for s in out)
    # Paragraphs, with the remaining links spread among them, until the
    # page is about 10 KB.
    per_para = max(1, len(body) // 8 + 1)
    i = 0
    while size < TARGET_BYTES - 200 or i < len(body):
        parts = ["<p>"]
        for _ in range(rng.randint(3, 6)):
            parts.append(sentence(rng, rng.randint(8, 18)))
            parts.append(" ")
        for t in body[i:i + per_para]:
            parts.append("See <a href=\"%s\">%s %s</a>. " %
                         (link_href(n, t, hosts, rng), rng.choice(WORDS),
                          rng.choice(WORDS)))
        i += per_para
        parts.append("</p>\n")
        s = "".join(parts)
        out.append(s)
        size += len(s)
    out.append("</main>\n<footer><p>Page %d of the bench web.</p></footer>\n"
               "</body>\n</html>\n" % n)
    return "".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--pages", type=int, default=15000)
    ap.add_argument("--hosts", type=int, default=8)
    ap.add_argument("--authorities", default="",
                    help="comma-separated host[:port] of each host "
                    "(sets --hosts)")
    ap.add_argument("--seed", type=int, default=3)
    a = ap.parse_args()
    if a.authorities:
        AUTHORITIES[:] = a.authorities.split(",")
        a.hosts = len(AUTHORITIES)
    if a.pages < a.hosts or a.hosts < 1:
        ap.error("need at least one page per host")
    for k in range(a.hosts):
        os.makedirs(os.path.join(a.dir, host_name(k), "p"), exist_ok=True)
    for n in range(a.pages):
        rng = random.Random(a.seed * 1000003 + n)
        k = n % a.hosts
        rel = "index.html" if n < a.hosts else "p/%05d.html" % n
        with open(os.path.join(a.dir, host_name(k), rel), "w") as f:
            f.write(page(n, a.pages, a.hosts, rng))
    with open(os.path.join(a.dir, "seeds.txt"), "w") as f:
        for k in range(a.hosts):
            f.write("http://%s/\n" % host_name(k))


if __name__ == "__main__":
    main()
