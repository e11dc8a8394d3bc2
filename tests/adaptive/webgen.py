#!/usr/bin/python3
"""webgen.py — a generated web of many hosts whose servers each treat URLs
their own way, with the truth of every URL, for adaptive normalization
and for measuring the fixed profiles against it.

usage: webgen.py OUT_DIR [--seed S] [--hosts N] [--docs N]

Writes OUT_DIR/web (sc-fixture's format), OUT_DIR/seeds (every host's
root) and OUT_DIR/truth.jsonl: one line {"url", "doc"} for every URL the
server answers, doc null for pages that are no document (soft-404s, the
login wall).  The same seed gives the same bytes.

Each host draws a personality: paths case-sensitive or not; a www name
that is the same site, another site, or none; a trailing slash that
changes nothing or names another page; directory index pages; a session
parameter and a tracker nobody listed (irrelevant), a sort order
(irrelevant) beside a page number (relevant); DUST aliases
(/story?id=N and /story_N.html); soft-404s that answer 200; a login wall;
twin pages (two documents with one text).  Links use the variants at
random, so the crawl meets them; the server also answers the forms a
normalization could write (lower case, slash added, index.html dropped,
parameters dropped) exactly when this host would, and 404 otherwise.
"""
import argparse
import json
import os
import random

WORDS = ("river stone market garden winter harbor signal lantern copper "
         "meadow thunder orchard ledger compass falcon quarry velvet "
         "ember glacier canyon beacon mosaic timber saddle prairie "
         "harvest cobalt pillar ribbon summit tundra willow anchor").split()
SESSION = ["sid", "sess", "visit", "s", "token"]
TRACKER = ["src", "via", "from", "campaign", "ref2"]


class Host:
    def __init__(self, rng, k):
        self.name = "h%d.%s.test" % (k, rng.choice(["alpha", "beta", "gamma"]))
        self.case_insensitive = rng.random() < 0.5
        self.www = rng.choice(["alias", "distinct", "none"])
        self.slash_equal = rng.random() < 0.5
        self.index_pages = rng.random() < 0.6
        self.session = rng.choice(SESSION) if rng.random() < 0.5 else None
        self.tracker = rng.choice(TRACKER) if rng.random() < 0.5 else None
        self.sort = rng.random() < 0.5
        self.dust = rng.random() < 0.5
        self.soft404 = rng.random() < 0.4
        self.login = rng.random() < 0.4
        self.twins = rng.random() < 0.5


def text(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hosts", type=int, default=10)
    ap.add_argument("--docs", type=int, default=30)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    hosts = [Host(rng, k) for k in range(a.hosts)]
    # pages[(host, path)] = (doc or None, title, body words, [links])
    pages = {}
    docs_of = {}  # host name -> [(doc, canonical path)]

    def add(host, path, doc, title, body):
        pages[(host, path)] = [doc, title, body, []]

    for h in hosts:
        names = [h.name] + (["www." + h.name] if h.www != "none" else [])
        for site in names:
            own = site if (h.www == "distinct" or site == h.name) else h.name
            if site != h.name and h.www == "alias":
                continue  # served below as aliases of h.name
            lst = []
            for i in range(a.docs):
                doc = "%s/%d" % (own, i)
                slug = rng.choice(WORDS).capitalize()
                path = "/a/%s-%d" % (slug, i)
                lst.append((doc, path))
                title = "%s %s %d" % (own, slug, i)
                add(site, path, doc, title, text(rng, 30))
            # Sections with index pages, list pages, stories.
            for j in range(3):
                doc = "%s/sec%d" % (own, j)
                lst.append((doc, "/sec%d/" % j))
                add(site, "/sec%d/" % j, doc, "%s section %d" % (own, j),
                    text(rng, 20))
            for p in range(1, 4):
                doc = "%s/list%d" % (own, p)
                lst.append((doc, "/list?page=%d" % p))
                add(site, "/list?page=%d" % p, doc, "%s list %d" % (own, p),
                    text(rng, 15))
            for s in range(4):
                doc = "%s/story%d" % (own, s)
                lst.append((doc, "/story?id=%d" % s))
                add(site, "/story?id=%d" % s, doc, "%s story %d" % (own, s),
                    text(rng, 25))
            if h.twins:
                body = text(rng, 12)
                for t in range(2):
                    doc = "%s/tag%d" % (own, t)
                    lst.append((doc, "/tag/t%d" % t))
                    add(site, "/tag/t%d" % t, doc, "tags", body)
            add(site, "/", "%s/home" % own, "%s home" % own, text(rng, 10))
            docs_of[site] = lst

    # Aliases: every form this host answers for a document's path.
    def aliases(h, site, path):
        out = {path}
        base, q = (path.split("?", 1) + [""])[:2]
        q = "?" + q if q else ""
        if base.endswith("/") and h.index_pages:
            out.add(base + "index.html" + q)
        if not base.endswith("/") and h.slash_equal and base != "/":
            out.add(base + "/" + q)
        if h.case_insensitive:
            out |= {p.split("?")[0].lower() + ("?" + p.split("?", 1)[1]
                                                if "?" in p else "")
                    for p in list(out)}
        if h.dust and base == "/story":
            out.add("/story_%s.html" % q.split("=")[1])
        return out

    truth = {}
    answers = {}  # (host, path) -> key of pages
    for h in hosts:
        for site, lst in docs_of.items():
            if site not in (h.name, "www." + h.name):
                continue
            for doc, path in lst + [("%s/home" % site, "/")]:
                for al in aliases(h, site, path):
                    answers[(site, al)] = (site, path)
                    if h.www == "alias":
                        answers[("www." + site, al)] = (site, path)
        # The slash that names another page: a comments page.
        if not h.slash_equal:
            for doc, path in docs_of[h.name][:5]:
                if "?" not in path and not path.endswith("/"):
                    cdoc = doc + "/comments"
                    add(h.name, path + "/", cdoc, "comments on " + path,
                        text(rng, 8))
                    answers[(h.name, path + "/")] = (h.name, path + "/")

    # Links: each page links to random documents of its site under random
    # forms, with the host's parameters, and to other hosts.
    def form(h, site, path):
        forms = sorted(al for (s, al), key in answers.items()
                       if key == (site if h.www != "alias" else h.name, path)
                       and s == site)
        f = rng.choice(forms) if forms else path
        extra = []
        if h.session and rng.random() < 0.5:
            extra.append("%s=%x" % (h.session, rng.getrandbits(32)))
        if h.tracker and rng.random() < 0.4:
            extra.append("%s=%s" % (h.tracker, rng.choice(WORDS)))
        if h.sort and path.startswith("/list") and rng.random() < 0.5:
            extra.append("sort=%s" % rng.choice(["asc", "desc"]))
        if extra:
            f += ("&" if "?" in f else "?") + "&".join(extra)
        return f

    web_lines = []
    extra_pages = {}
    by_name = {h.name: h for h in hosts}
    for (site, path), pg in sorted(pages.items()):
        h = by_name[site[4:] if site.startswith("www.") else site]
        lst = docs_of.get(site, docs_of[h.name])
        links = [form(h, site, p) for _, p in rng.sample(lst, min(8, len(lst)))]
        if h.www == "alias" and rng.random() < 0.3:
            links.append("http://www.%s%s" % (h.name, form(h, site, rng.choice(lst)[1])))
        other = rng.choice(hosts)
        links.append("http://%s/" % other.name)
        if h.soft404 and rng.random() < 0.3:
            links.append("/gone/%s" % rng.choice(WORDS))
        if h.login and rng.random() < 0.3:
            links.append("/account/%s" % rng.choice(WORDS))
        pg[3] = links
    # Every requestable URL: parameters of the host are irrelevant; the
    # server answers any of their values (declared per link form used).
    for (site, path), pg in pages.items():
        for l in pg[3]:
            if l.startswith("http://"):
                rest = l[7:]
                s2, p2 = rest.split("/", 1)
                s2, p2 = s2, "/" + p2
            else:
                s2, p2 = site, l
            extra_pages[(s2, p2)] = True

    def resolve(site, path):
        """(title, body, links, doc) the server answers, or None."""
        h = by_name[site[4:] if site.startswith("www.") else site]
        base, q = (path.split("?", 1) + [""])[:2]
        params = [x for x in q.split("&") if x]
        keep = [x for x in params
                if x.split("=")[0] not in (h.session, h.tracker)
                and not (h.sort and x.startswith("sort="))]
        p = base + ("?" + "&".join(keep) if keep else "")
        key = answers.get((site, p))
        if key:
            d = pages[key]
            return d
        if base.startswith("/gone/") and h.soft404:
            return [None, "Not found", "sorry the page you asked for is not here", []]
        if base.startswith("/account/") and h.login:
            return [None, "Sign in", "please sign in to continue", []]
        return None

    # A www name that is an alias answers every form its site answers,
    # and the site every form linked on its alias: relative links of a
    # page served under either name resolve to that name.
    for (s2, p2) in list(extra_pages):
        h = by_name[s2[4:] if s2.startswith("www.") else s2]
        if h.www == "alias":
            extra_pages[(h.name, p2)] = True
            extra_pages[("www." + h.name, p2)] = True
    seen = set()
    out_pages = []
    todo = [(s, p) for (s, p) in extra_pages] + [(s, p) for (s, p) in answers]
    # A server reads a query's parameters in any order: the sorted form of
    # each URL with a query is answered too (what sort_query writes).
    for s, p in list(todo):
        if "?" in p:
            base, q = p.split("?", 1)
            todo.append((s, base + "?" + "&".join(sorted(q.split("&")))))
    for s, p in sorted(set(todo)):
        if (s, p) in seen:
            continue
        seen.add((s, p))
        r = resolve(s, p)
        if r is None:
            continue
        doc, title, body, links = r
        out_pages.append((s, p, title, body, links))
        truth[(s, p)] = doc
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "web"), "w") as f:
        f.write("# generated by tests/adaptive/webgen.py --seed %d\n" % a.seed)
        cur = None
        for s, p, title, body, links in sorted(out_pages):
            if s != cur:
                f.write("host %s\n" % s)
                cur = s
            html = "<p>%s</p>" % body + "".join(
                '<a href="%s">%s</a> ' % (l.replace("&", "&amp;"), w)
                for l, w in zip(links, WORDS))
            f.write('page %s 200 text/html body="<title>%s</title>%s"\n'
                    % (p, title, html.replace('"', '\\"')))
    with open(os.path.join(a.out, "truth.jsonl"), "w") as f:
        for (s, p), doc in sorted(truth.items()):
            f.write(json.dumps({"url": "http://%s%s" % (s, p), "doc": doc})
                    + "\n")
    with open(os.path.join(a.out, "seeds"), "w") as f:
        for h in hosts:
            f.write("http://%s/\n" % h.name)


if __name__ == "__main__":
    main()
