#!/usr/bin/env python3
"""realdocs.py FIXTURE NAME=SIGCRAWL[,KEY=VALUE...]... [--runs N]
[--keywords K] [--work D] — the focused crawl of real pages: the five
Debian documentation sites of tests/adaptive/realsites.py (python.test,
postgresql.test, git.test, django.test, gtk.test) on one sc-fixture, a
category of databases seeded with PostgreSQL's and Django's index pages
(scope any, tunnel 1, min_relevance 0.3, the other keys at their
defaults), run N times per build (default 2), the builds alternating;
a row per run and each build's means.  A build's KEY=VALUE pairs go into
its category (nofloor=build/sigcrawl,min_harvest=1: no floor).

pages: the category's 2xx pages; scored: of those, the ones with a
relevance; on: those at min_relevance or more (report's on_topic);
harvest = on / scored (report's harvest_rate); url-on: the scored pages
on topic by their URL alone, which the crawler's judgement does not
enter: every page of postgresql.test (the manual of a database), the
Django pages of its models, queries, migrations and databases and the
source of its ORM (DJANGO_DB below), and Python's sqlite3 and dbm
modules; pg, dj, other: the scored pages of postgresql.test, django.test
and the other hosts; explored: the pages fetched from links the harvest
floor explored (on topic after the slash), "-" for a build that does not
count them; secs: the crawl's wall time; rc: its exit status.  Each
run's store, conf and fixture log stay under --work (default a
temporary directory)."""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(HERE, "..", "adaptive"))
from measure import start_fixture  # noqa: E402
from realsites import SITES  # noqa: E402

KEYWORDS = ("database, sql, query, table, column, index, transaction, "
            "schema, join")
SEEDS = ["http://postgresql.test/index.html", "http://django.test/index.html"]
DJANGO_DB = re.compile(
    r"^/(topics/db/|ref/models/|ref/databases|ref/schema-editor|"
    r"topics/migrations|ref/migration-operations|howto/writing-migrations|"
    r"howto/legacy-databases|howto/custom-model-fields|howto/custom-lookups|"
    r"ref/contrib/postgres/|_modules/django/db/|"
    r"_modules/django/contrib/(postgres|gis/db)/)")
PYTHON_DB = re.compile(r"^/library/(sqlite3|dbm)\.html")


def url_on(url):
    """On topic by the URL alone (the rule in the docstring)."""
    u = urllib.parse.urlsplit(url)
    return (u.hostname == "postgresql.test" or
            (u.hostname == "django.test" and bool(DJANGO_DB.match(u.path)))
            or (u.hostname == "python.test" and
                bool(PYTHON_DB.match(u.path))))


def crawl(sigcrawl, fixture, keywords, work, extra=()):
    os.makedirs(work, exist_ok=True)
    web = os.path.join(work, "docs.web")
    with open(web, "w") as f:
        for host, root, _, _ in SITES:
            f.write("host %s\nroot %s\ndefault 404\n" % (host, root))
    seeds = os.path.join(work, "seeds")
    with open(seeds, "w") as f:
        f.write("\n".join(SEEDS) + "\n")
    store = os.path.join(work, "store")
    conf = os.path.join(work, "conf")
    with open(conf, "w") as f:
        f.write("[crawl]\nstore = %s\nmax_depth = 60\n"
                "per_host_delay_ms = 0\nper_host_connections = 4\n"
                "concurrency = 32\nobey_robots = no\n"
                "[category databases]\nseeds = %s\nkeywords = %s\n"
                "scope = any\nmin_relevance = 0.3\ntunnel = 1\n%s"
                % (store, seeds, keywords,
                   "".join("%s = %s\n" % tuple(x.split("=", 1))
                           for x in extra)))
    fx, port = start_fixture(fixture, web, os.path.join(work, "port"),
                             os.path.join(work, "fixture.log"))
    t0 = time.time()
    try:
        rc = subprocess.run([sigcrawl, "crawl", "-c", conf, "--connect-to",
                             "::127.0.0.1:" + port, "--quiet"],
                            stdout=subprocess.DEVNULL,
                            stderr=open(os.path.join(work, "err"), "w"))
    finally:
        secs = time.time() - t0
        fx.terminate()
        fx.wait()
    rep = json.loads(subprocess.run(
        [sigcrawl, "report", "--store", store, "--json"],
        capture_output=True, text=True, check=True).stdout)
    cat = [c for c in rep["categories"] if c["name"] == "databases"][0]
    recs = [json.loads(l) for l in subprocess.run(
        [sigcrawl, "export", "--store", store], capture_output=True,
        text=True, errors="replace", check=True).stdout.splitlines()]
    scored = [r["normalized"] for r in recs if r.get("fetched") and
              r.get("category") == "databases" and
              200 <= (r.get("status") or 0) < 300 and
              r.get("relevance") is not None]
    hosts = [urllib.parse.urlsplit(u).hostname for u in scored]
    return {"pages": cat["pages"], "scored": cat["scored"],
            "on": cat["on_topic"], "harvest": cat["harvest_rate"] or 0.0,
            "url_on": sum(map(url_on, scored)),
            "pg": hosts.count("postgresql.test"),
            "dj": hosts.count("django.test"),
            "other": sum(h not in ("postgresql.test", "django.test")
                         for h in hosts),
            "explored": cat.get("explored"),
            "explored_on": cat.get("explored_on"),
            "secs": secs, "rc": rc.returncode}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fixture")
    ap.add_argument("builds", nargs="+", help="NAME=path to sigcrawl")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--keywords", default=KEYWORDS)
    ap.add_argument("--work")
    a = ap.parse_args()
    missing = [s[0] for s in SITES if not os.path.isdir(s[1])]
    if missing:
        sys.exit("realdocs.py: not installed: %s" % ", ".join(missing))
    work = a.work or tempfile.mkdtemp(prefix="sc-realdocs.")
    builds = [b.split("=", 1) for b in a.builds]
    builds = [(n, s.split(",")) for n, s in builds]
    print("keywords: %s" % a.keywords)
    head = ("build", "run", "pages", "scored", "on", "harvest", "url-on",
            "pg", "dj", "other", "explored", "secs", "rc")
    fmt = "%-10s %3s %6s %6s %5s %7s %6s %5s %4s %5s %9s %6s %3s"
    print(fmt % head)
    rows = {name: [] for name, _ in builds}
    for k in range(a.runs):
        for name, (sigcrawl, *extra) in builds:
            r = crawl(sigcrawl, a.fixture, a.keywords,
                      os.path.join(work, "%s-%d" % (name, k)), extra)
            rows[name].append(r)
            ex = "-" if r["explored"] is None else \
                "%d/%d" % (r["explored"], r["explored_on"])
            print(fmt % (name, k, r["pages"], r["scored"], r["on"],
                         "%.3f" % r["harvest"], r["url_on"], r["pg"],
                         r["dj"], r["other"], ex, "%.1f" % r["secs"],
                         r["rc"]), flush=True)
    print("means:")
    for name, rs in rows.items():
        def m(f):
            return sum(r[f] for r in rs) / len(rs)
        ex = [r for r in rs if r["explored"] is not None]
        print(fmt % (name, "", "%.1f" % m("pages"), "%.1f" % m("scored"),
                     "%.1f" % m("on"), "%.3f" % m("harvest"),
                     "%.1f" % m("url_on"), "%.1f" % m("pg"),
                     "%.1f" % m("dj"), "%.1f" % m("other"),
                     "%.1f/%.1f" % (sum(r["explored"] for r in ex) / len(ex),
                                    sum(r["explored_on"] for r in ex) /
                                    len(ex)) if ex else "-",
                     "%.1f" % m("secs"), ""))


if __name__ == "__main__":
    main()
