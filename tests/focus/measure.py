#!/usr/bin/env python3
"""measure.py SIGCRAWL FIXTURE WEBDIR TOPIC [options] — crawl a web of
webgen.py focused on TOPIC and print its harvest and coverage.

  --tunnel T      the category's tunnel (default 1)
  --predict on|off  link prediction (default on)
  --budget N      max_pages (default 0: exhaustive)
  --min-relevance R  (default 0.1)
  --scope S       (default any)
  --delay-ms MS   per_host_delay_ms (default 0: as fast as the fixture
                  answers; an operator's crawl waits between a host's
                  pages, the default config a second)
  --samples       the category's samples of the pruned on (samples = yes;
                  off by default)
  --exclude RE    an exclude pattern of the category (repeatable)
  --work DIR      where stores and logs go (default a temporary directory)
  --json          one JSON object instead of a line

harvest = fetched pages labelled TOPIC / fetched pages (2xx HTML answers);
coverage = fetched pages labelled TOPIC / pages labelled TOPIC reachable
from the seeds through any links (what any crawler could find).
predicted: from `report --json`, the category's prediction figures."""

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
import time


def web_file(webdir):
    """The web of WEBDIR: "web" (webgen.py), or the one .web file
    (tests/topics)."""
    p = os.path.join(webdir, "web")
    if os.path.exists(p):
        return p
    webs = [f for f in os.listdir(webdir) if f.endswith(".web")]
    return os.path.join(webdir, "topics.web" if "topics.web" in webs
                        else webs[0])


def reachable(webdir, seeds):
    links = {}
    host = None
    href = re.compile(r"href='([^']*)'")
    for line in open(web_file(webdir)):
        if line.startswith("host "):
            host = line.split()[1]
        elif line.startswith("page "):
            path = line.split()[1]
            links["http://%s%s" % (host, path)] = href.findall(line)
    seen, todo = set(seeds), list(seeds)
    while todo:
        for v in links.get(todo.pop(), []):
            if v not in seen:
                seen.add(v)
                todo.append(v)
    return seen


def crawl(a, work):
    port_file = os.path.join(work, "port")
    if os.path.exists(port_file):
        os.unlink(port_file)
    fx = subprocess.Popen([a.fixture, "--web", web_file(a.webdir),
                           "--port-file", port_file])
    try:
        for _ in range(400):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.05)
        port = open(port_file).read().strip()
        kw = {}
        for line in open(os.path.join(a.webdir, "keywords.txt")):
            t, k = line.rstrip("\n").split("\t")
            kw[t] = k
        store = os.path.join(work, "store")
        shutil.rmtree(store, ignore_errors=True)
        conf = os.path.join(work, "conf")
        with open(conf, "w") as f:
            f.write("[crawl]\nstore = %s\nmax_depth = 60\n"
                    "per_host_delay_ms = %d\nper_host_connections = 4\n"
                    "concurrency = 32\nobey_robots = no\nmax_pages = %d\n"
                    "[category %s]\nseeds = %s\nkeywords = %s\nscope = %s\n"
                    "min_relevance = %s\ntunnel = %d\n%s"
                    % (store, a.delay_ms, a.budget, a.topic,
                       os.path.join(a.webdir, "seeds-%s.txt" % a.topic),
                       kw[a.topic], a.scope, a.min_relevance, a.tunnel,
                       ("" if a.predict == "default" else
                        "predict = %s\n" % a.predict) +
                       ("predict_min = %s\n" % a.predict_min
                        if a.predict_min else "") +
                       ("samples = yes\n" if a.samples else "") +
                       ("min_harvest = %s\n" % a.min_harvest
                        if a.min_harvest else "") +
                       "".join("exclude = %s\n" % x for x in a.exclude)))
        rc = subprocess.run([a.sigcrawl, "crawl", "-c", conf, "--connect-to",
                             "::127.0.0.1:" + port, "--quiet"],
                            stdout=subprocess.DEVNULL,
                            stderr=open(os.path.join(work, "err"), "w"))
        if rc.returncode != 0:
            raise SystemExit("measure.py: crawl exited %d, see %s"
                             % (rc.returncode, os.path.join(work, "err")))
    finally:
        fx.terminate()
        fx.wait()
    out = subprocess.run([a.sigcrawl, "export", "--store", store],
                         capture_output=True, text=True, check=True).stdout
    rep = subprocess.run([a.sigcrawl, "report", "--store", store, "--json"],
                         capture_output=True, text=True, check=True).stdout
    return [json.loads(l) for l in out.splitlines()], json.loads(rep)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sigcrawl")
    ap.add_argument("fixture")
    ap.add_argument("webdir")
    ap.add_argument("topic")
    ap.add_argument("--tunnel", type=int, default=1)
    ap.add_argument("--predict", default="on")
    ap.add_argument("--budget", type=int, default=0)
    ap.add_argument("--min-relevance", default="0.1")
    ap.add_argument("--scope", default="any")
    ap.add_argument("--delay-ms", type=int, default=0)
    ap.add_argument("--predict-min")
    ap.add_argument("--samples", action="store_true",
                    help="the category's samples of the pruned on")
    ap.add_argument("--exclude", action="append", default=[],
                    help="an exclude pattern of the category (repeatable)")
    ap.add_argument("--min-harvest")
    ap.add_argument("--work")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    a.webdir = os.path.abspath(a.webdir)
    work = a.work or tempfile.mkdtemp(prefix="sc-focus.")
    os.makedirs(work, exist_ok=True)
    labels = {}
    for line in open(os.path.join(a.webdir, "labels.tsv")):
        u, t = line.rstrip("\n").split("\t")
        labels[u] = t
    seeds = [l.strip() for l in
             open(os.path.join(a.webdir, "seeds-%s.txt" % a.topic))
             if l.strip()]
    reach = reachable(a.webdir, seeds)

    def on_topic(u):  # a label may name several topics, comma-separated
        return a.topic in labels.get(u, "").split(",")

    want = [u for u in reach if on_topic(u)]
    recs, rep = crawl(a, work)
    pages = [r for r in recs if r.get("fetched") and r.get("status") == 200]
    on = [r for r in pages if on_topic(r["normalized"])]
    cat = [c for c in rep["categories"] if c["name"] == a.topic][0]
    res = {"topic": a.topic, "tunnel": a.tunnel, "predict": a.predict,
           "budget": a.budget, "fetched": len(pages), "on_topic": len(on),
           "harvest": round(len(on) / max(1, len(pages)), 4),
           "coverage": round(len(on) / max(1, len(want)), 4),
           "topic_pages": len(want), "pruned_relevance":
           cat.get("pruned_relevance"), "pruned_predicted":
           cat.get("pruned_predicted"), "prediction": cat.get("prediction"),
           "looks": cat.get("looks"), "min_harvest": cat.get("min_harvest"),
           "report_harvest": cat.get("harvest_rate"),
           "running_harvest": cat.get("running_harvest"),
           "report_scored": cat.get("scored"),
           "report_on_topic": cat.get("on_topic"),
           "explore_queued": cat.get("explore_queued"),
           "explored": cat.get("explored"),
           "explored_on": cat.get("explored_on")}
    if a.json:
        print(json.dumps(res))
    else:
        print("%s tunnel %d predict %s budget %d: fetched %d, on topic %d "
              "of %d, harvest %.3f, coverage %.3f"
              % (a.topic, a.tunnel, a.predict, a.budget, len(pages), len(on),
                 len(want), res["harvest"], res["coverage"]))


if __name__ == "__main__":
    main()
