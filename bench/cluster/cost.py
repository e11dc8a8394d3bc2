#!/usr/bin/env python3
"""cost.py — what cluster mode costs one daemon (docs/cluster.md).

The same web, crawled by one `sigcrawl serve` daemon in two modes, runs
interleaved:
  - single:  no [cluster] section (one machine);
  - cluster: [cluster] with shards = 1 against one local nats-server -js:
             every new page's signature claimed in the KV bucket, the
             status document put every 2 s, the consumer polled; the
             same share of the web (all of it).
Links to other shards cost a spool append per batch on top of that; with
one shard there are none, so this measures the fixed cost per page.

Each cluster run is a new crawl: nats-server starts afresh for it (the
claims of a bucket belong to one crawl).

The web: SITES fixture sites of PAGES pages (tests/fixture), served on
127.0.0.1, per-host delay DELAY_MS (0 measures the CPU-bound case, where a
per-page cost shows most).  A run submits every site's root and ends when
the daemon is idle with every page committed.  Reported per mode: medians
of pages/s over the run's wall time and CPU ms per page (user + sys of the
daemon), and the ratio cluster / single.

usage: cost.py --sigcrawl BUILD/crawler/cli/sigcrawl
               --fixture BUILD/tests/fixture/sc-fixture
               [--sites 8] [--pages 1000] [--delay-ms 0] [--reps 3]
               [--work DIR]
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick


def status(sigcrawl, sock):
    out = subprocess.run([sigcrawl, "status", "--control", "unix:" + sock],
                         capture_output=True, text=True).stdout
    try:
        return json.loads(out)
    except ValueError:
        return None


def run_once(a, mode, work, port, nats_url, expected):
    d = tempfile.mkdtemp(prefix=mode + "-", dir=work)
    sock = os.path.join(d, "ctl.sock")
    conf = os.path.join(d, "conf")
    with open(conf, "w") as f:
        f.write("[crawl]\nstore = %s\nper_host_delay_ms = %d\n"
                "max_depth = 100\nconnect_to = ::127.0.0.1:%d\n"
                "[control]\nlisten = unix:%s\n[category web]\nscope = any\n"
                % (os.path.join(d, "store"), a.delay_ms, port, sock))
        if mode == "cluster":
            f.write("[cluster]\nnats = %s\nshards = 1\nshard = 0\n"
                    % nats_url)
    p = subprocess.Popen([a.sigcrawl, "serve", "-c", conf],
                         stdout=subprocess.DEVNULL,
                         stderr=open(os.path.join(d, "log"), "w"))
    try:
        for _ in range(400):
            st = status(a.sigcrawl, sock)
            if st and st.get("state") == "idle":
                break
            time.sleep(0.05)
        if mode == "cluster":
            time.sleep(2)  # the node's thread sets up stream and buckets
        seeds = "".join("http://c%d.test/\n" % i for i in range(a.sites))
        c0 = cpu_s(p.pid)
        t0 = time.monotonic()
        subprocess.run([a.sigcrawl, "submit", "--control", "unix:" + sock,
                        "--category", "web"], input=seeds, text=True,
                       capture_output=True, check=True)
        while True:
            st = status(a.sigcrawl, sock)
            if st and st["state"] == "idle" and st["pages"] >= expected:
                break
            if time.monotonic() - t0 > a.max_s:
                raise SystemExit("%s: not done in %d s (%s pages)" %
                                 (mode, a.max_s, st and st.get("pages")))
            time.sleep(0.02)
        wall = time.monotonic() - t0
        cpu = cpu_s(p.pid) - c0
        return st["pages"], st["pages"] / wall, cpu * 1000 / st["pages"]
    finally:
        p.terminate()
        p.wait()
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sigcrawl", required=True)
    ap.add_argument("--fixture", required=True)
    ap.add_argument("--sites", type=int, default=8)
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--delay-ms", type=int, default=0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--max-s", type=int, default=600)
    ap.add_argument("--work")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="sc-cost-")
    os.makedirs(work, exist_ok=True)
    web = os.path.join(work, "web")
    with open(web, "w") as f:
        for i in range(a.sites):
            f.write("site c%d.test pages=%d links=4-8 fanout=4 cross=0 "
                    "seed=%d size=3000\n" % (i, a.pages, 100 + i))
    port_file = os.path.join(work, "port")
    fx = subprocess.Popen([a.fixture, "--web", web, "--port-file", port_file],
                          stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
    nport = free_port()
    nats = None

    def fresh_nats():
        nonlocal nats
        if nats:
            nats.terminate()
            nats.wait()
        shutil.rmtree(os.path.join(work, "nats"), ignore_errors=True)
        nats = subprocess.Popen(["nats-server", "-js", "-a", "127.0.0.1",
                                 "-p", str(nport), "-sd",
                                 os.path.join(work, "nats")],
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(0.5)
    try:
        for _ in range(200):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.05)
        port = int(open(port_file).read())
        rows = {"single": [], "cluster": []}
        for r in range(a.reps):
            for mode in ("single", "cluster"):
                if mode == "cluster":
                    fresh_nats()
                rows[mode].append(run_once(
                    a, mode, work, port, "nats://127.0.0.1:%d" % nport,
                    a.sites * a.pages))
                print("rep %d %-8s pages %d  %.1f pages/s  %.3f ms CPU/page"
                      % ((r + 1, mode) + rows[mode][-1]), flush=True)
        med = {m: (statistics.median(x[1] for x in v),
                   statistics.median(x[2] for x in v))
               for m, v in rows.items()}
        print("\nmedians of %d runs, %d sites x %d pages, delay %d ms" %
              (a.reps, a.sites, a.pages, a.delay_ms))
        for m, (ps, cpu) in med.items():
            print("%-8s %8.1f pages/s %8.3f ms CPU/page" % (m, ps, cpu))
        print("cluster / single: pages/s %.3fx, CPU per page %.3fx" %
              (med["cluster"][0] / med["single"][0],
               med["cluster"][1] / med["single"][1]))
    finally:
        fx.terminate()
        fx.wait()
        if nats:
            nats.terminate()
            nats.wait()
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
