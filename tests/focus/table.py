#!/usr/bin/env python3
"""table.py SIGCRAWL FIXTURE [--shapes sites,portals,blogs,wiki,topics
(or news, mag: webgen.py's later shapes, mag held out)]
[--seeds 1,2,3,4,5,6] [--topic sports] [--tunnels 0,1,2] [--budget N]
[--min-relevance R] [--predict-min P] [--runs 3] [--work DIR] — the focus
table of docs/focus.md (the defaults are its settings): for each web of
webgen.py, each tunnel, prediction off and on, the harvest and coverage
of an exhaustive crawl and of a crawl at a budget (default: the topic's
reachable pages, so that a perfect crawl would fetch only them), and the
coverage the tunnel allows at most ("reach": bound.py --tunnel).  With
--runs N each crawl is run N times and its row is their mean: which links a
crawl learns from first depends on the order pages come in, and one run of
a web can keep or lose a section of its topic.
Prints a Markdown table, and the means over the seeds per setting."""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
from bound import links_of, topic_of, within  # noqa: E402


def reach(web, topic, tunnel):
    """The share of the topic's reachable pages a crawl of the tunnel
    can reach at most (bound.py --tunnel)."""
    _, seeds, want = topic_of(web, topic)
    got = within(links_of(web), want, seeds, tunnel)
    return len(got & want) / max(1, len(want))


# The figures a row averages over --runs.
MEAN = ("harvest", "coverage", "fetched")


def measure_one(a, web, topic, t, pr, budget, work):
    """One crawl of measure.py; its --json result."""
    out = subprocess.run(
        [sys.executable, os.path.join(HERE, "measure.py"), a.sigcrawl,
         a.fixture, web, topic, "--tunnel", t, "--predict", pr,
         "--budget", str(budget), "--min-relevance", a.min_relevance,
         "--json", "--work", os.path.join(work, "run")] +
        (["--predict-min", a.predict_min]
         if a.predict_min and pr == "on" else []),
        capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sigcrawl")
    ap.add_argument("fixture")
    ap.add_argument("--shapes", default="sites,portals,blogs,wiki,topics")
    ap.add_argument("--seeds", default="1,2,3,4,5,6")
    ap.add_argument("--topic", default="sports")
    ap.add_argument("--tunnels", default="0,1,2")
    ap.add_argument("--budget", type=int, default=-1)
    ap.add_argument("--min-relevance", default="0.3")
    ap.add_argument("--predict-min")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="sc-focus-table.")
    means = {}
    print("| web | tunnel | prediction | harvest | coverage | reach "
          "| fetched | harvest at budget | coverage at budget | budget |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for shape in a.shapes.split(","):
        # "topics": the web of tests/test-focus.sh (gen-topics.py), one
        # seed, its football topic.
        for seed in a.seeds.split(",") if shape != "topics" else ["-"]:
            topic = a.topic if shape != "topics" else "football"
            web = os.path.join(work, "%s-%s" % (shape, seed))
            if shape == "topics":
                web = os.path.join(HERE, "..", "topics")
            else:
                subprocess.run([sys.executable,
                                os.path.join(HERE, "webgen.py"), "--shape",
                                shape, "--seed", seed, "--out", web],
                               check=True)
            for t in a.tunnels.split(","):
                r = reach(web, topic, int(t))
                for pr in ("off", "on"):
                    res = []
                    for budget in (0, a.budget):
                        if budget < 0:
                            budget = res[0]["topic_pages"]
                        runs = [measure_one(a, web, topic, t, pr, budget,
                                            work)
                                for _ in range(max(1, a.runs))]
                        res.append({k: (sum(x[k] for x in runs) / len(runs)
                                        if k in MEAN else runs[0][k])
                                    for k in runs[0]})
                    full, part = res
                    print("| %s %s | %s | %s | %.3f | %.3f | %.3f | %d | %.3f "
                          "| %.3f | %d |" % (shape, seed, t, pr,
                                             full["harvest"],
                                             full["coverage"], r,
                                             round(full["fetched"]),
                                             part["harvest"],
                                             part["coverage"],
                                             part["budget"]), flush=True)
                    m = means.setdefault((shape, t, pr), [])
                    m.append((full["harvest"], full["coverage"], r,
                              part["harvest"], part["coverage"]))
    print()
    print("| web | tunnel | prediction | harvest | coverage | reach "
          "| harvest at budget | coverage at budget |")
    print("|---|---|---|---|---|---|---|---|")
    for (shape, t, pr), m in means.items():
        n = len(m)
        print("| %s (mean of %d) | %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f |"
              % ((shape, n, t, pr) + tuple(sum(x[i] for x in m) / n
                                           for i in range(5))))


if __name__ == "__main__":
    main()
