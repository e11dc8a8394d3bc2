#!/usr/bin/python3
"""realsites.py SIGCRAWL FIXTURE [PROFILE...] — crawl real documentation
sites that Debian packages, served from their files on loopback by
sc-fixture (`root DIR`), once per profile (default: strict adaptive), and
print side by side: requests (page requests, robots.txt aside), pages
(distinct files answered 200), the pages strict fetched that this profile
did not, rules active, and rules wrong.

A rule is wrong when it held a URL (a record not fetched, with a rule)
whose file differs from the file of the record it was held onto, or when
a URL fetched under a rule's key answered another file than its key's
own: files are compared by path after percent-decoding, a directory
standing for its index.html.  Each site is a host of its own
(python.test, postgresql.test, ...), crawled exhaustively (scope host,
depth 50, no delay).

Sites whose package is missing are skipped with a note; with none there,
the script exits 2.
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402 (start_fixture)

# (host, the directory served, the package, the page crawled from)
SITES = [
    ("python.test", "/usr/share/doc/python3.11/html", "python3.11-doc",
     "/index.html"),
    ("postgresql.test", "/usr/share/doc/postgresql-doc-15/html",
     "postgresql-doc-15", "/index.html"),
    ("git.test", "/usr/share/doc/git-doc", "git-doc", "/index.html"),
    ("django.test", "/usr/share/doc/python-django-doc/html",
     "python-django-doc", "/index.html"),
    # GTK's reference with GDK's, GLib's, GObject's and GIO's beside it
    # (gtk-doc: mixed-case file names, links across the manuals).
    ("gtk.test", "/usr/share/gtk-doc/html", "libgtk-3-doc",
     "/gtk3/index.html"),
]


def file_of(root, url):
    """The file a URL's path names under root, as the fixture serves it."""
    p = urllib.parse.unquote(urllib.parse.urlsplit(url).path)
    f = os.path.normpath(os.path.join(root, p.lstrip("/")))
    if os.path.isdir(f):
        f = os.path.join(f, "index.html")
    return f


def crawl(sigcrawl, fixture, host, root, start, profile, work):
    web = os.path.join(work, host + ".web")
    with open(web, "w") as f:
        f.write("host %s\nroot %s\ndefault 404\n" % (host, root))
    log = os.path.join(work, "%s-%s.log" % (host, profile))
    fx, port = measure.start_fixture(fixture, web,
                                     os.path.join(work, "port"), log)
    seeds = os.path.join(work, host + ".seeds")
    with open(seeds, "w") as f:
        f.write("http://%s%s\n" % (host, start))
    conf = os.path.join(work, "%s-%s.conf" % (host, profile))
    with open(conf, "w") as f:
        f.write("[crawl]\nper_host_delay_ms = 0\nmax_depth = 50\n"
                "[category docs]\nseeds = %s\nscope = host\n" % seeds)
    store = os.path.join(work, "%s-%s.store" % (host, profile))
    t0 = time.time()
    rc = subprocess.run([sigcrawl, "crawl", "-c", conf, "--store", store,
                         "--profile", profile, "--connect-to",
                         "::127.0.0.1:" + port, "--quiet"],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode
    secs = time.time() - t0
    fx.terminate()
    fx.wait()
    requests = 0
    ids = {}
    for line in open(log):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 6 and f[2] == "req" and f[5] != "/robots.txt":
            requests += 1
            ids[f[1]] = f[5]
    pages = set()
    for line in open(log):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 7 and f[2] == "done" and f[6] == "200" and f[1] in ids:
            pages.add(file_of(root, "http://%s%s" % (host, ids[f[1]])))
    recs = [json.loads(l) for l in subprocess.run(
        [sigcrawl, "export", "--store", store], capture_output=True,
        text=True, errors="replace").stdout.splitlines()]
    fetched = {r["normalized"]: r for r in recs if r["fetched"]}
    wrong = []
    for r in recs:
        if not r.get("rule"):
            continue
        if r["fetched"]:
            target = r["normalized"]
        else:
            target = r["duplicate_of"]
            if target in fetched:
                target = fetched[target]["url"]
        if target and file_of(root, r["url"]) != file_of(root, target):
            wrong.append((r["url"], target, r["rule"]))
    out = subprocess.run([sigcrawl, "rules", "--store", store, "--json"],
                         capture_output=True, text=True).stdout
    active = sum(1 for l in out.splitlines()
                 if json.loads(l)["state"] == "active")
    return {"rc": rc, "requests": requests, "pages": pages, "wrong": wrong,
            "active": active, "secs": secs}


def main():
    sigcrawl, fixture = sys.argv[1:3]
    profiles = sys.argv[3:] or ["strict", "adaptive"]
    work = tempfile.mkdtemp(prefix="sc-realsites-")
    ran = 0
    print("%-16s %-10s %5s %9s %6s %7s %7s %6s %7s" % (
        "site", "profile", "exit", "requests", "pages", "missing",
        "active", "wrong", "secs"))
    for host, root, pkg, start in SITES:
        if not os.path.isdir(root):
            print("%-16s (not installed: apt-get install %s)" % (host, pkg))
            continue
        ran += 1
        rows = {p: crawl(sigcrawl, fixture, host, root, start, p, work)
                for p in profiles}
        ref = rows[profiles[0]]["pages"]
        for p, r in rows.items():
            print("%-16s %-10s %5d %9d %6d %7d %7d %6d %7.1f" % (
                host, p, r["rc"], r["requests"], len(r["pages"]),
                len(ref - r["pages"]), r["active"], len(r["wrong"]),
                r["secs"]))
            for w in r["wrong"][:3]:
                print("    wrong: %s -> %s (%s)" % w)
    if not ran:
        sys.exit(2)


if __name__ == "__main__":
    main()
