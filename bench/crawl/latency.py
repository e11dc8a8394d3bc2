#!/usr/bin/env python3
"""latency.py — bench/crawl's web that looks like the internet: many
hosts, each with a latency of its own, crawled politely.

HOSTS generated sites (h000.test ...), PAGES pages each, served by the
project's fixture (tests/fixture, sc-fixture) on 127.0.0.1; every answer
of host i, its robots.txt 404 included, is held back a latency drawn per
host from [MIN_MS, MAX_MS] (seeded).  Sites link to each other (cross=
percent of their random links).  A polite crawler waits DELAY seconds
between requests to a host, so no crawler can fetch more than
HOSTS / DELAY pages a second: the ceiling.

The tools, each started from every host's root:
  - sigcrawl, default config (per-host delay 1000 ms, concurrency auto,
    2 per host), the names sent to the fixture with --connect-to, and
    --sigcrawl-args' flags;
  - Scrapy (bench/crawl/spider.py) with DOWNLOAD_DELAY = DELAY per host
    (not randomized), CONCURRENT_REQUESTS 256, one per host, the fixture
    as its HTTP proxy (Scrapy keeps a download slot per host name all the
    same);
  - GNU wget at its fastest, which is also polite here: one connection,
    no wait, the fixture as its proxy; it fetches one URL at a time, so
    its rate is bound by the latencies, not by the delay;
  - GNU Wget2 at its fastest (--max-threads=16, no wait, HTTP/2 where the
    server has it), every root as a start URL (one recursion: it keeps one
    record of what it fetched), the fixture as its proxy: it has no
    per-host delay, which the politeness columns show.
Runs that do not end are stopped at --max-s seconds.

Per run, from the fixture's log: pages (200 answers but robots.txt),
pages/s over the run's wall time, politeness (the least gap between two
requests to one host, and how many of those gaps were under 0.9 x the
delay, past what a loaded server's arrival jitter explains),
CPU (user + sys of the process tree) and its share of one core, and peak
RssAnon.  A rate is never shown without its politeness.

usage: latency.py --sigcrawl BUILD/crawler/cli/sigcrawl
                  --fixture BUILD/tests/fixture/sc-fixture [--hosts 200]
                  [--pages 50] [--min-ms 20] [--max-ms 200] [--delay 1]
                  [--only sigcrawl,scrapy,wget,wget2] [--max-s 120] [--seed 1]
                  [--work DIR] [--sigcrawl-args='--search-index no']
"""
import argparse
import collections
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402  (measure(), peer_env(), SYS_PYTHON)

TOOLS = ["sigcrawl", "scrapy", "wget", "wget2"]


def make_web(path, a):
    rng = random.Random(a.seed)
    with open(path, "w") as f:
        f.write("default 404\n")
        for i in range(a.hosts):
            f.write("site h%03d.test pages=%d links=4-8 fanout=3 cross=5 "
                    "seed=%d size=4000 delay=%d\n" %
                    (i, a.pages, a.seed * 1000 + i,
                     rng.randint(a.min_ms, a.max_ms)))


def start_fixture(a, web, log):
    port_file = log + ".port"
    p = subprocess.Popen([a.fixture, "--web", web, "--port", "0",
                          "--port-file", port_file, "--log", log],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        if os.path.exists(port_file) and open(port_file).read().strip():
            return p, int(open(port_file).read())
        time.sleep(0.05)
    p.kill()
    raise SystemExit("the fixture did not start")


def read_log(log, delay_ms):
    """pages (200 answers, not robots.txt), distinct pages, requests, the
    least gap in ms between two requests to one host, the same-host gaps
    under delay_ms and all same-host gaps."""
    arrivals = collections.defaultdict(list)
    pages, distinct, requests = 0, set(), 0
    with open(log) as f:
        for line in f:
            v = line.rstrip("\n").split("\t")
            if len(v) < 8:
                continue
            host = v[3].split(":")[0]
            if v[2] == "req":
                requests += 1
                arrivals[host].append(int(v[0]))
            elif v[2] == "done" and v[6] == "200" and v[5] != "/robots.txt":
                pages += 1
                distinct.add((host, v[5]))
    gaps = [b - a for t in arrivals.values()
            for a, b in zip(sorted(t), sorted(t)[1:])]
    # Arrivals jitter: a request that reaches a loaded server late shortens
    # the gap after the one before it.  A gap under 0.9 x the delay is the
    # crawler's, not the server's queue.
    return (pages, len(distinct), requests, min(gaps, default=None),
            sum(1 for g in gaps if g < 0.9 * delay_ms), len(gaps))


def tool_cmd(t, a, d, seeds, port):
    env = run.peer_env()
    proxy = "http://127.0.0.1:%d" % port
    if t == "sigcrawl":
        return [a.sigcrawl, "crawl", "--store", os.path.join(d, "store"),
                "--seeds", seeds, "--connect-to", "::127.0.0.1:%d" % port,
                "--quiet"] + a.sigcrawl_args.split(), env
    if t == "scrapy":
        env["http_proxy"] = proxy
        return [run.SYS_PYTHON, os.path.join(HERE, "spider.py"), seeds,
                os.path.join(d, "scrapy-stats.txt"), "256", "1",
                str(a.delay)], env
    if t == "wget2":
        env["http_proxy"] = proxy
        return ["wget2", "-r", "-l", "inf", "--delete-after", "-H",
                "--domains=test", "--robots=on", "--proxy",
                "--max-threads=16", "--wait=0", "-nv", "-P",
                os.path.join(d, "wget2"), "-i", seeds], env
    # wget: every host of the web (-H -D test), one start URL (the sites
    # link to each other).
    return ["wget", "-r", "-l", "inf", "--delete-after", "-H", "-D", "test",
            "-e", "robots=on", "-e", "use_proxy=yes", "-e",
            "http_proxy=" + proxy, "--wait=0", "-nv", "-P",
            os.path.join(d, "wget"), "http://h000.test/"], env


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sigcrawl", required=True)
    ap.add_argument("--fixture", required=True)
    ap.add_argument("--hosts", type=int, default=200)
    ap.add_argument("--pages", type=int, default=50)
    ap.add_argument("--min-ms", type=int, default=20)
    ap.add_argument("--max-ms", type=int, default=200)
    ap.add_argument("--delay", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-s", type=int, default=120)
    ap.add_argument("--only", default=",".join(TOOLS))
    ap.add_argument("--work")
    ap.add_argument("--sigcrawl-args", default="",
                    help="more of sigcrawl's flags, split at spaces "
                    "(--sigcrawl-args='--search-index no')")
    a = ap.parse_args()
    if a.delay != 1.0:
        ap.error("sigcrawl's default per-host delay is 1 s: --delay 1")
    tools = [t for t in a.only.split(",") if t]
    for t in tools:
        if t not in TOOLS:
            ap.error("unknown tool %r (%s)" % (t, ",".join(TOOLS)))
    missing = run.missing_tools(tools)
    if missing:
        raise SystemExit("latency.py: missing: %s" % "; ".join(missing))
    work = a.work or tempfile.mkdtemp(prefix="sigcrawl-latency-")
    os.makedirs(work, exist_ok=True)
    web = os.path.join(work, "latency.web")
    make_web(web, a)
    seeds = os.path.join(work, "seeds.txt")
    with open(seeds, "w") as f:
        for i in range(a.hosts):
            f.write("http://h%03d.test/\n" % i)
    ceiling = a.hosts / a.delay
    print("%d hosts x %d pages, latency %d-%d ms, delay %.1f s: ceiling "
          "%.0f pages/s" % (a.hosts, a.pages, a.min_ms, a.max_ms, a.delay,
                            ceiling), flush=True)
    rows = []
    try:
        for t in tools:
            d = os.path.join(work, "run-" + t)
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            log = os.path.join(d, "fixture.log")
            fx, port = start_fixture(a, web, log)
            try:
                cmd, env = tool_cmd(t, a, d, seeds, port)
                rc, wall, cpu, peak = run.measure(
                    cmd, env=env, log=os.path.join(d, t + ".log"),
                    max_s=a.max_s)
            finally:
                fx.terminate()
                fx.wait()
            pages, distinct, requests, gap, under, ngaps = read_log(
                log, a.delay * 1000)
            rows.append((t, rc, pages, distinct, requests, wall, cpu, peak,
                         gap, under, ngaps))
            print("%-8s exit %d pages %d (distinct %d, requests %d) wall "
                  "%.1fs cpu %.2fs RssAnon %.1f MB least gap %s ms, %d of "
                  "%d gaps under 0.9 x the delay" %
                  (t, rc, pages, distinct, requests, wall, cpu, peak / 1024,
                   gap, under, ngaps), flush=True)
            for x in ("store", "wget", "wget2"):
                shutil.rmtree(os.path.join(d, x), ignore_errors=True)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    print()
    print("%-8s %7s %8s %9s %10s %7s %12s %10s %12s %14s" %
          ("tool", "pages", "wall_s", "pages/s", "of_ceiling", "cpu_s",
           "cpu_%_core", "RssAnon_MB", "least_gap_ms", "gaps<0.9delay"))
    rate, impolite = {}, {}
    for (t, rc, pages, distinct, requests, wall, cpu, peak, gap, under,
         ngaps) in rows:
        rate[t] = pages / wall
        impolite[t] = under
        print("%-8s %7d %8.1f %9.1f %9.1f%% %7.2f %11.1f%% %10.1f %12s "
              "%14s" %
              (t, pages, wall, rate[t], 100 * rate[t] / ceiling, cpu,
               100 * cpu / wall, peak / 1024, gap,
               "%d (%.0f%%)" % (under, 100 * under / ngaps) if ngaps
               else "-"))
    if "sigcrawl" in rate:
        for t in rate:
            if t != "sigcrawl" and rate[t]:
                print("sigcrawl / %s pages/s: %.2fx%s" %
                      (t, rate["sigcrawl"] / rate[t],
                       "  (%s broke the delay %d times)" % (t, impolite[t])
                       if impolite[t] else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
