#!/usr/bin/env python3
"""scale.py — webs at scale: many hosts, and a frontier of
millions of URLs, with the crawler's cost sampled every second.

Two shapes, both served by the project's fixture (tests/fixture) on
127.0.0.1, the names sent there with --connect-to:

  --shape hosts     HOSTS generated sites (h0000.test ...) of PAGES pages,
                    each answer held back a latency drawn per host from
                    [MIN_MS, MAX_MS]; sigcrawl's default config (1 s per
                    host), so the ceiling is HOSTS pages/s.  With
                    --delay-ms 0 and --max-ms 0 the same web is
                    CPU-bound (the rate every other is compared with).
  --shape frontier  HOSTS sites of 10^8 / HOSTS pages each, LINKS links a
                    page (nearly all to pages never seen), no latency and
                    no delay: the queue grows by about LINKS URLs a page
                    fetched.  The crawl is stopped (SIGINT) when the queue
                    passes --queue N.

Every binary of --sigcrawl is run --reps times, interleaved (a b a b
...), each against a fresh fixture and store.  sigcrawl's stderr is a
pseudo-terminal, so its progress line (pages, queue) comes every second;
each second the script also reads the process's CPU time (user + sys,
/proc/PID/stat), its RssAnon (/proc/PID/status) and the store's data.mdb
size (allocated blocks).

hosts: pages/s and CPU µs a page over the steady part of the run (from
10 % to 90 % of its pages), the whole run's, peak RssAnon, and the
fixture's CPU.  frontier: at each checkpoint of the queue (10 k, 100 k,
1 M, 10 M), pages/s and CPU µs a page over the next WINDOW seconds,
RssAnon and the LMDB file at the checkpoint; then the same over each
range between checkpoints ("10000-100000": RssAnon the highest sample in
it) and over the whole run to the last checkpoint reached ("0-10000000").

usage: scale.py --sigcrawl BIN [--sigcrawl BIN2] --fixture SC_FIXTURE
                [--shape hosts|frontier] [--hosts N] [--pages N]
                [--min-ms N] [--max-ms N] [--delay-ms N] [--links N]
                [--queue N] [--reps N] [--max-s N] [--work DIR]
                [--arg=--concurrency=512 ...]
"""
import argparse
import os
import pty
import random
import re
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402  (rss_anon_kib(), peer_env())

TICK = os.sysconf("SC_CLK_TCK")
CHECKPOINTS = [10_000, 100_000, 1_000_000, 10_000_000]
LINE = re.compile(rb"pages (\d+) .*?queue (\d+)")


def make_web(path, a):
    rng = random.Random(a.seed)
    with open(path, "w") as f:
        f.write("default 404\n")
        for i in range(a.hosts):
            if a.shape == "frontier":
                f.write("site h%04d.test pages=%d links=%d-%d fanout=%d "
                        "cross=5 seed=%d size=4000\n" %
                        (i, 100_000_000 // a.hosts, a.links, a.links,
                         a.links // 2, a.seed * 100000 + i))
            else:
                f.write("site h%04d.test pages=%d links=4-8 fanout=3 "
                        "cross=5 seed=%d size=4000 delay=%d\n" %
                        (i, a.pages, a.seed * 100000 + i,
                         rng.randint(a.min_ms, a.max_ms)))


def start_fixture(fixture, web, log):
    port_file = log + ".port"
    p = subprocess.Popen([fixture, "--web", web, "--port", "0",
                          "--port-file", port_file, "--log", log],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(400):
        if os.path.exists(port_file) and open(port_file).read().strip():
            return p, int(open(port_file).read())
        time.sleep(0.05)
    p.kill()
    raise SystemExit("the fixture did not start")


def cpu_s(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            v = f.read().rsplit(")", 1)[1].split()
        return (int(v[11]) + int(v[12])) / TICK
    except OSError:
        return None


def blocks(path):
    try:
        return os.stat(path).st_blocks * 512
    except OSError:
        return 0


def crawl_once(a, binary, work, web, seeds):
    """One run; a list of samples (t, pages, queue, cpu_s, rss_kib,
    mdb_bytes), the fixture's CPU seconds and the final ones."""
    d = tempfile.mkdtemp(prefix="run-", dir=work)
    log = os.path.join(d, "fixture.log")
    fx, port = start_fixture(a.fixture, web, log)
    store = os.path.join(d, "store")
    cmd = [binary, "crawl", "--store", store, "--seeds", seeds,
           "--connect-to", "::127.0.0.1:%d" % port] + a.arg
    if a.delay_ms is not None:
        cmd += ["--per-host-delay-ms", str(a.delay_ms)]
    master, slave = pty.openpty()
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=run.peer_env(), stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    samples, buf, pages, queue = [], b"", 0, 0
    peak, nxt, stopped, reached = 0, t0 + 1, False, None
    mdb = os.path.join(store, "data.mdb")
    try:
        while True:
            r, _, _ = select.select([master], [], [], 0.05)
            if r:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    chunk = b""
                buf = (buf + chunk)[-4096:]
                m = None
                for m in LINE.finditer(buf):
                    pass
                if m:
                    pages, queue = int(m.group(1)), int(m.group(2))
            if p.poll() is not None:
                break
            peak = max(peak, run.rss_anon_kib(p.pid))
            now = time.monotonic()
            if now >= nxt:
                nxt += 1
                c = cpu_s(p.pid)
                if c is not None:
                    samples.append((now - t0, pages, queue, c,
                                    run.rss_anon_kib(p.pid), blocks(mdb)))
                if a.shape == "frontier" and queue >= a.queue and \
                        not reached:
                    reached = now
                # The last checkpoint's window runs on past it.
                if not stopped and (
                        (reached and now - reached >= a.window) or
                        now - t0 > a.max_s):
                    p.send_signal(signal.SIGINT)
                    stopped = True
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()
        os.close(master)
        fx_cpu = cpu_s(fx.pid) or 0.0
        fx.terminate()
        fx.wait()
    wall = time.monotonic() - t0
    final_cpu = samples[-1][3] if samples else 0.0
    shutil.rmtree(d, ignore_errors=True)
    return samples, fx_cpu, wall, final_cpu, peak


def at(samples, k, v):
    """The first sample whose column k reaches v."""
    for s in samples:
        if s[k] >= v:
            return s
    return None


def hosts_row(samples, peak):
    total = samples[-1][1]
    lo, hi = at(samples, 1, 0.1 * total), at(samples, 1, 0.9 * total)
    if not lo or not hi or hi[0] <= lo[0] or hi[1] == lo[1]:
        return None
    rate = (hi[1] - lo[1]) / (hi[0] - lo[0])
    cpu = 1e6 * (hi[3] - lo[3]) / (hi[1] - lo[1])
    return {"pages": total, "rate": rate, "cpu_us": cpu,
            "all_cpu_us": 1e6 * samples[-1][3] / max(total, 1),
            "rss_mb": peak / 1024, "mdb_mb": samples[-1][5] / 2**20}


def frontier_rows(samples, window):
    rows = {}
    for q in CHECKPOINTS:
        s = at(samples, 2, q)
        if not s:
            continue
        e = at(samples, 0, s[0] + window) or samples[-1]
        if e[1] == s[1] or e[0] <= s[0]:
            continue
        rows[q] = {"t": s[0], "pages": s[1], "rate": (e[1] - s[1]) /
                   (e[0] - s[0]),
                   "cpu_us": 1e6 * (e[3] - s[3]) / (e[1] - s[1]),
                   "rss_mb": s[4] / 1024, "mdb_mb": s[5] / 2**20}
    # Over each range of the queue between checkpoints, and from the
    # start to the last one reached: steadier than a window of seconds.
    marks = [(0, samples[0])] + [(q, at(samples, 2, q)) for q in
                                 CHECKPOINTS if at(samples, 2, q)]
    spans = list(zip(marks, marks[1:]))
    if len(marks) > 2:
        spans.append((marks[0], marks[-1]))
    for (q0, s), (q1, e) in spans:
        if e[1] > s[1] and e[0] > s[0]:
            rows["%d-%d" % (q0, q1)] = {
                "rate": (e[1] - s[1]) / (e[0] - s[0]),
                "cpu_us": 1e6 * (e[3] - s[3]) / (e[1] - s[1]),
                "rss_mb": max(x[4] for x in samples
                              if s[0] <= x[0] <= e[0]) / 1024,
                "mdb_mb": e[5] / 2**20}
    return rows


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sigcrawl", action="append", required=True)
    ap.add_argument("--fixture", required=True)
    ap.add_argument("--shape", choices=["hosts", "frontier"], default="hosts")
    ap.add_argument("--hosts", type=int, default=200)
    ap.add_argument("--pages", type=int, default=20)
    ap.add_argument("--min-ms", type=int, default=20)
    ap.add_argument("--max-ms", type=int, default=200)
    ap.add_argument("--delay-ms", type=int)
    ap.add_argument("--links", type=int, default=100)
    ap.add_argument("--queue", type=int, default=10_000_000)
    ap.add_argument("--window", type=float, default=5.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--max-s", type=float, default=600)
    ap.add_argument("--arg", action="append", default=[],
                    help="an argument for sigcrawl crawl, as --arg=--x=y")
    ap.add_argument("--work")
    ap.add_argument("--samples", help="write every sample to this file")
    a = ap.parse_args()
    if a.shape == "frontier" and a.delay_ms is None:
        a.delay_ms = 0
    work = a.work or tempfile.mkdtemp(prefix="sigcrawl-scale-")
    os.makedirs(work, exist_ok=True)
    web = os.path.join(work, "scale.web")
    make_web(web, a)
    seeds = os.path.join(work, "seeds.txt")
    with open(seeds, "w") as f:
        for i in range(a.hosts):
            f.write("http://h%04d.test/\n" % i)
    if a.shape == "hosts":
        print("%d hosts x %d pages, latency %d-%d ms, delay %s ms, args %s"
              % (a.hosts, a.pages, a.min_ms, a.max_ms,
                 "default" if a.delay_ms is None else a.delay_ms,
                 " ".join(a.arg) or "-"), flush=True)
    else:
        print("frontier: %d hosts, %d links a page, until queue %d, args %s"
              % (a.hosts, a.links, a.queue, " ".join(a.arg) or "-"),
              flush=True)
    results = {b: [] for b in a.sigcrawl}
    samples_out = open(a.samples, "w") if a.samples else None
    try:
        for rep in range(a.reps):
            for b in a.sigcrawl:
                samples, fx_cpu, wall, cpu, peak = crawl_once(
                    a, b, work, web, seeds)
                if samples_out:
                    for s in samples:
                        samples_out.write("%s\t%d\t%.1f\t%d\t%d\t%.2f\t%d\t%d\n"
                                          % ((b, rep) + s))
                    samples_out.flush()
                if a.shape == "hosts":
                    row = hosts_row(samples, peak)
                    if row:
                        row["fx_cpu_us"] = 1e6 * fx_cpu / max(row["pages"], 1)
                        row["wall"] = wall
                else:
                    row = frontier_rows(samples, a.window)
                results[b].append(row)
                print("rep %d %s: %s" % (rep, b, row), flush=True)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    print()
    for b in a.sigcrawl:
        rows = [r for r in results[b] if r]
        print("%s, medians of %d runs" % (b, len(rows)))
        if a.shape == "hosts":
            print("%7s %9s %10s %11s %12s %10s %9s %11s" %
                  ("pages", "pages/s", "of_ceiling", "cpu_us/page",
                   "all_cpu_us", "RssAnon_MB", "LMDB_MB", "fixture_us"))
            ceiling = a.hosts * 1000 / (a.delay_ms or 1000) \
                if a.delay_ms != 0 else float("inf")
            r = {k: med([x[k] for x in rows]) for k in rows[0]} if rows \
                else {}
            if r:
                print("%7d %9.1f %9.1f%% %11.1f %12.1f %10.1f %9.1f %11.1f" %
                      (r["pages"], r["rate"], 100 * r["rate"] / ceiling,
                       r["cpu_us"], r["all_cpu_us"], r["rss_mb"],
                       r["mdb_mb"], r["fx_cpu_us"]))
        else:
            print("%10s %9s %11s %10s %9s" %
                  ("queue", "pages/s", "cpu_us/page", "RssAnon_MB",
                   "LMDB_MB"))
            # The ranges in the order frontier_rows() made them.
            keys = CHECKPOINTS + list(dict.fromkeys(
                k for r in rows for k in r if isinstance(k, str)))
            for q in keys:
                xs = [r[q] for r in rows if q in r]
                if xs:
                    print("%10s %9.1f %11.1f %10.1f %9.1f" %
                          (q, med([x["rate"] for x in xs]),
                           med([x["cpu_us"] for x in xs]),
                           med([x["rss_mb"] for x in xs]),
                           med([x["mdb_mb"] for x in xs])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
