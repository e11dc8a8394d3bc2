#!/usr/bin/python3
"""webgen.py — a generated web that changes between re-crawl passes, with
the truth of what changed, for tests/test-recrawl.sh.

usage: webgen.py OUT_DIR [--seed S] [--hosts N] [--pages N]

Writes OUT_DIR/gen1.web, gen2.web and gen3.web (sc-fixture's format: the
web at the first crawl, and after one and two rounds of changes),
OUT_DIR/seeds (every host's root) and OUT_DIR/truth.json: for every path
of every host its kind and what a re-crawl must find.  The same seed
gives the same bytes.

Kinds of page, drawn per page (the roots are "static"):
  static    the same bytes in every generation
  changed   its text changes in every generation
  markup    gen2 and gen3 move its markup (attributes, comments, empty
            elements), not its text: unchanged by the body-text signature
  etag      an ETag that stays: a revisit gets 304
  lastmod   a Last-Modified that stays: a revisit gets 304
  etagchg   an ETag and text that both change: 200, changed
  removed   gone in gen2 (404 or 410)
  twin      the text of an earlier static page of its host: a duplicate
  drift     a twin whose text becomes its own in gen2 (diverges)
  moved     becomes a 301 to a new page in gen2
A changed page links, from gen2 on, to a new page found only then.
"""
import argparse
import json
import os
import random

WORDS = ("river stone market garden winter harbor signal lantern copper "
         "meadow thunder orchard ledger compass falcon quarry velvet "
         "ember glacier canyon beacon mosaic timber saddle prairie "
         "harvest cobalt pillar ribbon summit tundra willow anchor").split()

KINDS = [("static", 26), ("changed", 18), ("markup", 10), ("etag", 10),
         ("lastmod", 8), ("etagchg", 6), ("removed", 7), ("twin", 8),
         ("drift", 4), ("moved", 3)]

LASTMOD = "Tue, 03 Mar 2015 10:00:00 GMT"


def words(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def html(title, paras, links, markup=0):
    """A page: markup 0 is plain; 1 and 2 move the markup only."""
    attr = ["", " class=v2", " class=v3 data-x=1"][markup]
    extra = ["", "<!-- moved --><span></span>", "<i></i><!-- again -->"][markup]
    body = "".join("<p%s>%s</p>" % (attr, p) for p in paras)
    a = "".join("<a%s href=%s>%s</a> " % (attr, l, l) for l in links)
    return ("<html><head><title>%s</title></head><body%s>%s%s<div>%s</div>"
            "</body></html>" % (title, attr, extra, body, a))


def quote(s):
    """A web-file word in double quotes, with its escapes."""
    for a, b in (("\\", "\\\\"), ('"', '\\"'), ("\n", "\\n")):
        s = s.replace(a, b)
    return '"' + s + '"'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hosts", type=int, default=3)
    ap.add_argument("--pages", type=int, default=60)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    kinds = [k for k, _ in KINDS]
    weights = [w for _, w in KINDS]

    truth = {}
    gens = [[], [], []]
    seeds = []
    for h in range(a.hosts):
        host = "r%d.test" % h
        seeds.append("http://%s/" % host)
        for g in gens:
            g.append("host %s" % host)
            g.append("page /robots.txt 200 text/plain body=%s" %
                     quote("User-agent: *\nAllow: /\n"))
            g.append("default 404")
        n = a.pages
        kind = ["static"] + rng.choices(kinds, weights, k=n - 1)
        text = [[words(rng, 30), words(rng, 20)] for _ in range(n)]
        statics = []
        orig = list(range(n))  # whose title and text a page has
        for i in range(n):
            if kind[i] in ("twin", "drift"):
                if not statics:
                    kind[i] = "static"
                else:
                    orig[i] = rng.choice(statics)
                    text[i] = text[orig[i]]
            if kind[i] == "static" and i > 0:
                statics.append(i)
        links_of = []
        for i in range(n):
            kids = [c for c in range(3 * i + 1, 3 * i + 4) if c < n]
            ln = ["/p%d" % c for c in kids]
            if n > 1:
                ln += ["/p%d" % rng.randrange(1, n) for _ in range(2)]
            links_of.append(ln)
        # A twin links where its original does (anchor text is text);
        # its own tree children are linked from the original too.
        for i in range(n):
            if orig[i] != i:
                kids = [c for c in range(3 * i + 1, 3 * i + 4) if c < n]
                links_of[orig[i]] += ["/p%d" % c for c in kids]
        for i in range(n):
            path = "/" if i == 0 else "/p%d" % i
            links = list(links_of[orig[i]])
            k = kind[i]
            t = {"kind": k, "changed": False, "gone": False, "c304": False,
                 "new": None, "moved_to": None}
            for g in range(3):
                title = "%s page %d" % (host, orig[i])
                paras = list(text[i])
                mk = 0
                ln = list(links)
                attrs = ""
                status = 200
                if g > 0:
                    if k in ("changed", "etagchg"):
                        paras = paras + ["generation %d %s" % (g, words(rng, 8))]
                        ln.append("/new%d" % i)
                        t["new"] = "/new%d" % i
                    elif k == "markup":
                        mk = g
                    elif k == "drift":
                        paras = paras + ["its own now %d %s" % (g, words(rng, 6))]
                if k == "etag":
                    attrs = " etag=e%d" % i
                elif k == "etagchg":
                    attrs = " etag=c%d-g%d" % (i, g)
                elif k == "lastmod":
                    attrs = " lastmod=%s" % quote(LASTMOD)
                if g > 0 and k == "removed":
                    status = 404 if i % 2 else 410
                    gens[g].append("page %s %d" % (path, status))
                    continue
                if g > 0 and k == "moved":
                    gens[g].append("page %s 301 location=/moved%d" % (path, i))
                    gens[g].append("page /moved%d 200 text/html body=%s" % (
                        i, quote(html("moved %d" % i, [words(rng, 12)], []))))
                    t["moved_to"] = "/moved%d" % i
                    continue
                gens[g].append("page %s 200 text/html%s body=%s" % (
                    path, attrs, quote(html(title, paras, ln, mk))))
                if t["new"] and g > 0:
                    gens[g].append("page %s 200 text/html body=%s" % (
                        t["new"], quote(html("new %d" % i, [words(rng, 15)], []))))
            t["changed"] = k in ("changed", "etagchg", "drift", "moved")
            t["gone"] = k == "removed"
            t["c304"] = k in ("etag", "lastmod")
            truth["%s%s" % (host, path)] = t
    for g in range(3):
        with open(os.path.join(a.out, "gen%d.web" % (g + 1)), "w") as f:
            f.write("\n".join(gens[g]) + "\n")
    with open(os.path.join(a.out, "seeds"), "w") as f:
        f.write("\n".join(seeds) + "\n")
    with open(os.path.join(a.out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=0, sort_keys=True)


if __name__ == "__main__":
    main()
