#!/usr/bin/env python3
"""compare.py run OUT NAME=SIGCRAWL FIXTURE SPEC... — and compare.py
table OUT... [--base NAME] — two builds' focus measured side by side, as
the focus measurements compare them.

run: each SPEC is SHAPE:SEEDS:TUNNELS:RUNS (seeds and tunnels
comma-separated; SHAPE a webgen.py shape, or "traits" for traitgen.py):
for each seed and tunnel, RUNS exhaustive crawls of measure.py at
min_relevance 0.3 with the prediction on (the category's defaults
otherwise), two at a time, each appended to OUT as one JSON line with
the build's NAME and the reach bound at that tunnel (bound.py).  Run it
once per build, into the same OUT, in the same session: the machine's
load moves the figures.

table: per shape, seed and tunnel, each build's mean harvest and
coverage over its runs, the reach, and whether harvest holds against
--base (default "main"): at least min(0.9, the base's - 0.01); then the
means per shape and tunnel, coverage / reach per shape (the mean over
its seeds and the least), the seeds that do not hold and those under
0.9 of their reach.

Unlike table.py it runs neither the prediction off nor a budget: the
question here is what one build gives or gives back against another."""

import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
from bound import links_of, topic_of, within  # noqa: E402


def web_of(work, shape, seed):
    d = os.path.join(work, "webs", "%s-%s" % (shape, seed))
    if not os.path.exists(os.path.join(d, "labels.tsv")):
        gen = ["traitgen.py"] if shape == "traits" else \
            ["webgen.py", "--shape", shape]
        subprocess.run([sys.executable, os.path.join(HERE, gen[0])] +
                       gen[1:] + ["--seed", seed, "--out", d], check=True)
    return d


def run(a):
    name, sigcrawl = a.build.split("=", 1)
    work = a.work or os.path.join(os.path.dirname(os.path.abspath(a.out)),
                                  "compare-work")
    jobs = []
    for spec in a.specs:
        shape, seeds, tunnels, runs = spec.split(":")
        for seed in seeds.split(","):
            web_of(work, shape, seed)
            for t in tunnels.split(","):
                jobs += [(shape, seed, t, k) for k in range(int(runs))]
    reach = {}
    for shape, seed, t, _ in jobs:
        if (shape, seed, t) not in reach:
            d = web_of(work, shape, seed)
            _, seeds, want = topic_of(d, "sports")
            got = within(links_of(d), want, seeds, int(t))
            reach[(shape, seed, t)] = len(got & want) / max(1, len(want))

    def one(job):
        shape, seed, t, k = job
        r = subprocess.run(
            [sys.executable, os.path.join(HERE, "measure.py"), sigcrawl,
             a.fixture, web_of(work, shape, seed), "sports", "--tunnel", t,
             "--min-relevance", "0.3", "--json", "--work",
             os.path.join(work, "run-%s-%s-%s-%s-%d"
                          % (name, shape, seed, t, k))],
            capture_output=True, text=True)
        if r.returncode:
            print("compare.py: %s failed: %s" % (job, r.stderr[-400:]),
                  file=sys.stderr)
            return None
        res = json.loads(r.stdout)
        res.update(build=name, shape=shape, seed=int(seed), tunnel=int(t),
                   run=k, reach=round(reach[(shape, seed, t)], 4))
        return res

    with ThreadPoolExecutor(2) as ex, open(a.out, "a") as f:
        for res in ex.map(one, jobs):
            if res:
                f.write(json.dumps(res) + "\n")
                f.flush()


def table(a):
    rows = {}
    for fn in a.files:
        for line in open(fn):
            r = json.loads(line)
            rows.setdefault((r["build"], r["shape"], r["seed"],
                             r["tunnel"]), []).append(r)

    def mean(k, f):
        v = rows[k]
        return sum(x[f] for x in v) / len(v)

    builds = sorted({k[0] for k in rows}, key=lambda b: b != a.base)
    keys = sorted({k[1:] for k in rows})
    print("| web | seed | tunnel | " + " | ".join(
        "%s harvest / coverage (runs)" % b for b in builds) +
        " | reach | holds |")
    print("|---" * (len(builds) + 5) + "|")
    fails = []
    for sh, se, t in keys:
        cells, reach = [], None
        for b in builds:
            k = (b, sh, se, t)
            if k in rows:
                reach = rows[k][0]["reach"]
                cells.append("%.3f / %.3f (%d)" % (
                    mean(k, "harvest"), mean(k, "coverage"), len(rows[k])))
            else:
                cells.append("-")
        holds = []
        base = (a.base, sh, se, t)
        for b in builds:
            k = (b, sh, se, t)
            if b == a.base or k not in rows or base not in rows:
                continue
            ok = mean(k, "harvest") >= \
                min(0.9, mean(base, "harvest") - 0.01) - 1e-9
            holds.append("yes" if ok else "**no**")
            if not ok and t == 1:
                fails.append("%s %d (%s)" % (sh, se, b))
        print("| %s | %d | %d | %s | %.3f | %s |"
              % (sh, se, t, " | ".join(cells), reach, " ".join(holds)))
    print()
    print("| web | tunnel | " + " | ".join(
        "%s harvest / coverage" % b for b in builds) + " | reach |")
    print("|---" * (len(builds) + 3) + "|")
    for sh in sorted({k[0] for k in keys}):
        for t in sorted({k[2] for k in keys if k[0] == sh}):
            cells = []
            for b in builds:
                ks = [(b, sh, se, t) for (s2, se, t2) in keys
                      if s2 == sh and t2 == t and (b, sh, se, t) in rows]
                cells.append("%.3f / %.3f" % (
                    sum(mean(k, "harvest") for k in ks) / len(ks),
                    sum(mean(k, "coverage") for k in ks) / len(ks))
                    if ks else "-")
            rs = [rows[k][0]["reach"] for k in rows
                  if k[1] == sh and k[3] == t]
            print("| %s | %d | %s | %.3f |"
                  % (sh, t, " | ".join(cells), sum(rs) / len(rs)))
    print()
    # Coverage against the reach bound of each seed (bound.py at the
    # crawl's tunnel): the mean of coverage / reach over the seeds, the
    # least seed's, and the seeds under 0.9 of their reach.
    print("| web | tunnel | " + " | ".join(
        "%s coverage / reach (least)" % b for b in builds) + " |")
    print("|---" * (len(builds) + 2) + "|")
    short = []
    for sh in sorted({k[0] for k in keys}):
        for t in sorted({k[2] for k in keys if k[0] == sh}):
            cells = []
            for b in builds:
                ks = [(b, sh, se, t) for (s2, se, t2) in keys
                      if s2 == sh and t2 == t and (b, sh, se, t) in rows]
                rs = [mean(k, "coverage") / max(1e-9, rows[k][0]["reach"])
                      for k in ks]
                short += ["%s %d (%s) %.3f" % (sh, k[2], b, r)
                          for k, r in zip(ks, rs) if r < 0.9 and t == 1]
                cells.append("%.3f (%.3f)" % (sum(rs) / len(rs), min(rs))
                             if rs else "-")
            print("| %s | %d | %s |" % (sh, t, " | ".join(cells)))
    print()
    print("tunnel 1, harvest not held: %s" % (", ".join(fails) or "none"))
    print("tunnel 1, seeds under 0.9 of their reach: %s"
          % (", ".join(short) or "none"))


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("build", help="NAME=path to sigcrawl")
    r.add_argument("fixture")
    r.add_argument("specs", nargs="+")
    r.add_argument("--work")
    t = sub.add_parser("table")
    t.add_argument("files", nargs="+")
    t.add_argument("--base", default="main")
    a = ap.parse_args()
    (run if a.cmd == "run" else table)(a)


if __name__ == "__main__":
    main()
