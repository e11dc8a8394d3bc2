#!/usr/bin/python3
"""measure.py SIGCRAWL [--apps A,B] [--profiles P,Q] [--max-pages N]
[--pages N] [--patterns] [--show-wrong N] [--no-wget] [--no-nfnx] [--keep]
— crawl real web applications
(apps.sh: DokuWiki, cgit, Fossil, WordPress from Debian's packages, each
on its own loopback port; --apps, default dokuwiki,cgit,fossil,wordpress) from their front pages with sigcrawl under each profile
(default strict, extended, adaptive) and with `wget -r -l 6`, one budget
for all (max_pages 1500, max_depth 6, scope host, no delay; wget has no
page limit, only its depth), and print a table:

  requests  pages requested (sigcrawl: records fetched, robots.txt aside;
            wget: the URLs its log names, answered or not)
  docs      distinct content documents answered 200 (truth.py's
            content(): those coverage counts)
  redund    requests that fetched a document already fetched / requests
  cover     content documents fetched / the app's content documents
            (truth.py's content())
  missing   content documents the first crawler fetched that this one
            did not
  wrong     URLs the crawler gave another document's key (export's
            duplicate_of, or a normalized key another document holds)
  ruled     those of them a learned rule mapped (export's rule): the
            learner's own mistakes; the rest are pages whose text is equal
  nfnx      requests to pages that say noindex and nofollow (meta robots
            or X-Robots-Tag, read by fetching each URL once more)
  wall, cpu seconds of the crawler (cpu: its user + system time)

--patterns prints, per app, the kinds of duplicate URLs strict fetched:
the URL shapes (values as *, hashes as H, numbers as N) of each document
fetched under more than one URL, most frequent first.  --pages sets the
number of DokuWiki pages; --no-wget leaves wget out, --no-nfnx the
second fetch of every page (nfnx is then -1); --keep leaves the scratch
directory.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.dont_write_bytecode = True
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import truth  # noqa: E402

HOSTS = {"dokuwiki": "dokuwiki.test", "cgit": "cgit.test",
         "fossil": "fossil.test", "wordpress": "wordpress.test"}


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def start(app, d, port, pages):
    r = subprocess.run([os.path.join(here, "apps.sh"), app, "start", d,
                        str(port), str(pages)], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    return r.stdout.strip()


def stop(app, d):
    subprocess.run([os.path.join(here, "apps.sh"), app, "stop", d])


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def crawl_sigcrawl(sigcrawl, app, port, front, profile, work, budget):
    host = HOSTS[app]
    seeds = os.path.join(work, "seeds")
    with open(seeds, "w") as f:
        f.write("http://%s%s\n" % (host, front))
    conf = os.path.join(work, "conf-" + profile)
    # The apps answer http only: links to https on the same host (Fossil's
    # login page offers one) would be held as unreachable hosts.
    with open(conf, "w") as f:
        f.write("[crawl]\nper_host_delay_ms = 0\nmax_depth = %d\n"
                "max_pages = %d\n[category app]\nseeds = %s\nscope = host\n"
                "exclude = ^https://\n"
                % (budget["depth"], budget["pages"], seeds))
    store = os.path.join(work, "store-" + profile)
    shutil.rmtree(store, ignore_errors=True)
    c0, t0 = cpu_children(), time.time()
    rc = subprocess.run([sigcrawl, "crawl", "-c", conf, "--store", store,
                         "--profile", profile, "--connect-to",
                         "%s:80:127.0.0.1:%d" % (host, port), "--quiet"],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode
    wall, cpu = time.time() - t0, cpu_children() - c0
    recs = [json.loads(l) for l in subprocess.run(
        [sigcrawl, "export", "--store", store], capture_output=True,
        text=True, errors="replace").stdout.splitlines()]
    return rc, recs, wall, cpu


def crawl_wget(app, port, front, work, budget):
    d = os.path.join(work, "wget")
    shutil.rmtree(d, ignore_errors=True)
    c0, t0 = cpu_children(), time.time()
    # WordPress writes its links absolute, with its own name: wget asks
    # nginx as its proxy, which serves absolute request URIs.
    if app == "wordpress":
        where = ["-e", "use_proxy=on", "-e",
                 "http_proxy=http://127.0.0.1:%d" % port,
                 "http://%s%s" % (HOSTS[app], front)]
    else:
        where = ["http://127.0.0.1:%d%s" % (port, front)]
    r = subprocess.run(["wget", "-r", "-l", str(budget["depth"]),
                        "--delete-after", "-nv", "-P", d,
                        "--reject-regex", "^https:"] + where,
                       capture_output=True, text=True, errors="replace")
    wall, cpu = time.time() - t0, cpu_children() - c0
    recs = []
    pending = None
    for line in r.stderr.splitlines():
        m = re.search(r" URL:(\S+) \[", line)
        if m:
            recs.append({"url": m.group(1), "status": 200, "fetched": True,
                         "normalized": m.group(1), "duplicate_of": None})
            continue
        m = re.match(r"(https?://\S+):$", line)
        if m:
            pending = m.group(1)
            continue
        m = re.search(r"ERROR (\d+)", line)
        if m and pending:
            recs.append({"url": pending, "status": int(m.group(1)),
                         "fetched": True, "normalized": pending,
                         "duplicate_of": None})
            pending = None
    return r.returncode, recs, wall, cpu


ROBOTS = re.compile(rb"<meta[^>]+name=[\"']?robots[\"']?[^>]*>", re.I)


def nfnx_of(port, urls, cache):
    """Whether each URL's page says noindex and nofollow, fetching the ones
    not yet known (their path and query, on the app's port)."""
    def path(u):
        rest = u.split("//", 1)[-1]
        return "/" + rest.split("/", 1)[1] if "/" in rest else "/"

    def one(p):
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, p),
                                        timeout=30) as r:
                head = r.headers.get("X-Robots-Tag", "").lower()
                body = r.read(200000)
        except (urllib.error.URLError, OSError, ValueError):
            return False
        words = head
        for m in ROBOTS.finditer(body):
            c = re.search(rb"content=[\"']([^\"']*)", m.group(0), re.I)
            if c:
                words += " " + c.group(1).decode("latin-1").lower()
        return "noindex" in words and "nofollow" in words
    todo = sorted({path(u) for u in urls} - set(cache))
    with concurrent.futures.ThreadPoolExecutor(8) as ex:
        for p, v in zip(todo, ex.map(one, todo)):
            cache[p] = v
    return [cache[path(u)] for u in urls]


def score(t, recs, content, port, robots_cache):
    fetched = [r for r in recs if r["fetched"] and r.get("url")
               and not r["url"].endswith("/robots.txt")]
    docs = collections.Counter()
    for r in fetched:
        if r.get("status") == 200:
            d = t.doc(r["url"])
            if d is not None:
                docs[d] += 1
    requests = len(fetched)
    wasted = sum(n - 1 for n in docs.values())
    # Wrong merges: every URL's key is its duplicate_of or its normalized
    # form; the key's document is that of the fetched record holding it.
    holder = {}
    for r in fetched:
        if r.get("status") == 200 and not r.get("duplicate_of"):
            holder.setdefault(r["normalized"], r["url"])
    wrong = []
    ruled = 0
    for r in recs:
        key = r.get("duplicate_of") or r.get("normalized")
        h = holder.get(key)
        if not h or h == r["url"]:
            continue
        a, b = t.doc(r["url"]), t.doc(h)
        if a is not None and b is not None and a != b:
            wrong.append((r["url"], h))
            ruled += bool(r.get("rule"))
    nfnx = sum(nfnx_of(port, [r["url"] for r in fetched], robots_cache)) \
        if robots_cache is not None else -1
    return {"requests": requests, "docs": len(docs),
            "redund": wasted / requests if requests else 0.0,
            "cover": len(set(docs) & content) / len(content)
            if content else 0.0,
            "wrong": sorted(wrong), "ruled": ruled, "nfnx": nfnx, "docset": set(docs)}


def shape(url):
    rest = url.split("//", 1)[-1]
    rest = "/" + rest.split("/", 1)[1] if "/" in rest else "/"
    path, _, query = rest.partition("?")
    path = re.sub(r"[0-9a-f]{10,}", "H", path)
    path = re.sub(r"(/cgit/[^/]+/[a-z]+)/.+", r"\1/P", path)
    path = re.sub(r"^/(doc/[^/]+|raw|info|artifact)/.+", r"/\1/P", path)
    params = []
    for kv in query.split("&") if query else []:
        k, eq, v = kv.partition("=")
        if k in ("do", "type", "y", "dt") and v:
            params.append("%s=%s" % (k, v))
        elif re.fullmatch(r"[0-9a-f]{10,}", v):
            params.append(k + "=H")
        elif re.fullmatch(r"\d+", v):
            params.append(k + "=N")
        else:
            params.append(k + eq + ("*" if v else ""))
    return path + ("?" + "&".join(params) if params else "")


def patterns(t, recs, n=8):
    by_doc = collections.defaultdict(list)
    for r in recs:
        if r["fetched"] and r.get("status") == 200:
            d = t.doc(r["url"])
            if d is not None:
                by_doc[d].append(r["url"])
    c = collections.Counter()
    for urls in by_doc.values():
        if len(urls) > 1:
            c[" = ".join(sorted({shape(u) for u in urls}))] += len(urls) - 1
    return c.most_common(n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sigcrawl")
    ap.add_argument("--apps", default="dokuwiki,cgit,fossil,wordpress")
    ap.add_argument("--profiles", default="strict,extended,adaptive")
    ap.add_argument("--max-pages", type=int, default=1500)
    ap.add_argument("--max-depth", type=int, default=6)
    ap.add_argument("--pages", type=int, default=300)
    ap.add_argument("--no-wget", action="store_true")
    ap.add_argument("--no-nfnx", action="store_true")
    ap.add_argument("--patterns", action="store_true")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--show-wrong", type=int, default=3)
    a = ap.parse_args()
    budget = {"pages": a.max_pages, "depth": a.max_depth}
    work = tempfile.mkdtemp(prefix="sc-realapps-")
    print("%-9s %-9s %4s %8s %5s %6s %6s %7s %5s %5s %5s %6s %6s" % (
        "app", "crawler", "exit", "requests", "docs", "redund", "cover",
        "missing", "wrong", "ruled", "nfnx", "wall", "cpu"))
    sys.stdout.flush()
    for app in a.apps.split(","):
        d = os.path.join(work, app)
        port = free_port()
        try:
            front = start(app, d, port, a.pages)
        except RuntimeError as e:
            print("%-9s did not start: %s" % (app, e))
            continue
        try:
            t = truth.load(app, d)
            content = t.content()
            cache = None if a.no_nfnx else {}
            runs = [(p, crawl_sigcrawl(a.sigcrawl, app, port, front, p, d,
                                       budget))
                    for p in a.profiles.split(",")]
            if not a.no_wget:
                runs.append(("wget", crawl_wget(app, port, front, d, budget)))
            pats = None
            first = None
            for name, (rc, recs, wall, cpu) in runs:
                s = score(t, recs, content, port, cache)
                mine = s["docset"] & content
                if first is None:
                    first = mine
                print("%-9s %-9s %4d %8d %5d %6.3f %6.3f %7d %5d %5d %5d "
                      "%6.1f %6.1f" % (app, name, rc, s["requests"],
                                       len(mine), s["redund"], s["cover"],
                                       len(first - mine), len(s["wrong"]),
                                       s["ruled"], s["nfnx"], wall, cpu))
                shown = collections.Counter(
                    "%s -> %s" % (shape(u), shape(h)) for u, h in s["wrong"])
                for w, n in shown.most_common(a.show_wrong):
                    print("    wrong %4d: %s" % (n, w))
                sys.stdout.flush()
                if pats is None and name == "strict":
                    pats = patterns(t, recs)
            if a.patterns and pats:
                print("  %s: duplicate URL shapes under strict "
                      "(extra fetches, shapes of one document):" % app)
                for p, n in pats:
                    print("    %5d  %s" % (n, p))
            print("  %s: %d content documents" % (app, len(content)))
        finally:
            stop(app, d)
    if a.keep:
        print("kept " + work)
    else:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
