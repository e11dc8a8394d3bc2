#!/usr/bin/env python3
"""run.py — bench/crawl: sigcrawl against wget, Wget2, HTTrack, Scrapy and
gumbo.

Started by run.sh (which builds the release binary first).  Generates the
site (gensite.py), serves it with a private nginx on 127.0.0.1, crawls it
with each tool in turn, --reps times, and prints the medians.

Every tool starts from the 8 host roots with no per-host delay, and
every tool runs the way its users run it fastest.  The 8 hosts are
127.0.0.2 ... 127.0.0.9 on one port (Linux routes all of 127/8 to the
loopback), and the site's URLs name them so: each tool connects straight
to the host of each URL, with no proxy, no name to resolve and no
/etc/hosts entry, and keeps what it fetches only where it must (wget
--delete-after, Scrapy keeps nothing, HTTrack has to mirror).

Per run: pages = 200 responses for pages (not robots.txt) in nginx's
access log during the run (also checked against the tool's own count),
wall seconds, CPU = user + sys of the tool's process tree (wait4), and
peak RssAnon of the tool's main process, read from /proc/PID/status
every 50 ms.
"""
import argparse
import os
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
N_HOSTS = 8
HOST_IPS = ["127.0.0.%d" % (k + 2) for k in range(N_HOSTS)]
TOOLS = ["sigcrawl", "wget", "wget2", "httrack", "scrapy", "gumbo"]
# What each tool needs installed (Debian packages, packaging/bench-deps.txt).
NEEDS = {"wget": ("wget", "wget"), "wget2": ("wget2", "wget2"),
         "httrack": ("httrack", "httrack"),
         "scrapy": (None, "python3-scrapy")}


def missing_tools(tools):
    """What the tools named need and this machine lacks, as
    'TOOL: apt-get install PACKAGE' strings."""
    out = []
    for t in tools:
        exe, pkg = NEEDS.get(t, (None, None))
        if exe and not shutil.which(exe):
            out.append("%s: apt-get install %s" % (t, pkg))
        elif t == "scrapy" and subprocess.run(
                [SYS_PYTHON, "-c", "import scrapy"],
                stderr=subprocess.DEVNULL).returncode != 0:
            out.append("scrapy: apt-get install python3-scrapy")
    return out
# Debian's python3, which has python3-scrapy (a pyenv python may not).
SYS_PYTHON = "/usr/bin/python3"


def free_port():
    """A port free on all the hosts' addresses."""
    while True:
        s = socket.socket()
        s.bind((HOST_IPS[0], 0))
        port = s.getsockname()[1]
        s.close()
        try:
            for ip in HOST_IPS[1:]:
                t = socket.socket()
                t.bind((ip, port))
                t.close()
            return port
        except OSError:
            continue


def authorities(port):
    return ["%s:%d" % (ip, port) for ip in HOST_IPS]


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


# --------------------------------------------------------------------
# nginx


class Nginx:
    def __init__(self, work, site, port):
        self.prefix = os.path.join(work, "nginx")
        self.log = os.path.join(self.prefix, "access.log")
        self.port = port
        os.makedirs(os.path.join(self.prefix, "logs"), exist_ok=True)
        servers = "".join(
            "  server {\n"
            "    listen %s:%d;\n"
            "    root %s;\n"
            "  }\n" % (ip, port, os.path.join(site, "%s:%d" % (ip, port)))
            for ip in HOST_IPS)
        conf = (
            "daemon off;\n"
            "worker_processes 2;\n"
            "pid %(p)s/nginx.pid;\n"
            "error_log %(p)s/error.log warn;\n"
            "events { worker_connections 4096; }\n"
            "http {\n"
            "  types { text/html html; }\n"
            "  default_type application/octet-stream;\n"
            "  log_format bench '$msec $request_time $server_addr "
            "$request_uri $status';\n"
            "  access_log %(p)s/access.log bench buffer=256k flush=1s;\n"
            "  sendfile on;\n"
            "  tcp_nodelay on;\n"
            "  keepalive_timeout 60s;\n"
            "  keepalive_requests 1000000;\n"
            "  open_file_cache max=20000 inactive=120s;\n"
            "  client_body_temp_path %(p)s/body;\n"
            "  proxy_temp_path %(p)s/proxy;\n"
            "  fastcgi_temp_path %(p)s/fastcgi;\n"
            "  uwsgi_temp_path %(p)s/uwsgi;\n"
            "  scgi_temp_path %(p)s/scgi;\n"
            "%(s)s"
            "}\n" % {"p": self.prefix, "s": servers})
        self.conf = os.path.join(self.prefix, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(conf)
        self.proc = None

    def start(self):
        # A log left by an earlier nginx (an interrupted run, or one
        # started by hand on the work dir) would count as the first run's.
        if os.path.exists(self.log):
            os.unlink(self.log)
        self.proc = subprocess.Popen(
            ["nginx", "-c", self.conf, "-p", self.prefix + "/"],
            stdin=subprocess.DEVNULL)
        for _ in range(100):
            try:
                for ip in HOST_IPS:
                    socket.create_connection((ip, self.port), 0.2).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    sys.exit("run.py: nginx did not start (see %s/error.log)"
                             % self.prefix)
                time.sleep(0.05)
        sys.exit("run.py: nginx does not listen on port %d" % self.port)

    def take_log(self, dest, delay_ms=0):
        """Move the access log so far to dest and count it: (page
        fetches with status 200, distinct pages, other requests, the
        least gap in ms between two requests to one host, the same-host
        gaps under delay_ms).  A request's arrival is its log time less
        its request time."""
        os.rename(self.log, dest)
        self.proc.send_signal(signal.SIGUSR1)  # reopen: flushes buffers
        for _ in range(100):
            if os.path.exists(self.log):
                break
            time.sleep(0.02)
        time.sleep(0.3)
        ok = other = 0
        seen = set()
        arrivals = {}
        with open(dest, errors="replace") as f:
            for line in f:
                p = line.split()
                if len(p) != 5:
                    other += 1
                    continue
                try:
                    at = float(p[0]) - float(p[1])
                except ValueError:
                    other += 1
                    continue
                arrivals.setdefault(p[2], []).append(at)
                if p[4] == "200" and p[3] != "/robots.txt":
                    ok += 1
                    seen.add((p[2], p[3]))
                else:
                    other += 1
        gaps = []
        for t in arrivals.values():
            t.sort()
            gaps += [1000 * (b - a) for a, b in zip(t, t[1:])]
        least = min(gaps) if gaps else None
        under = sum(1 for g in gaps if g < delay_ms)
        return ok, len(seen), other, least, under

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# --------------------------------------------------------------------
# Measuring one process tree


def rss_anon_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def measure(cmd, env=None, cwd=None, log=None, max_s=None):
    """Run cmd; return (exit status, wall s, CPU s, peak RssAnon KiB).
    With max_s: SIGINT at max_s seconds (the tools stop cleanly on it),
    SIGKILL 10 s later."""
    out = open(log, "w") if log else subprocess.DEVNULL
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                         stdout=out, stderr=subprocess.STDOUT)
    peak, signalled = 0, 0
    # Woken by the exit itself, not the next 50 ms tick: the wall time
    # is not up to 50 ms long (0.4 % of an 11 s crawl).
    pidfd = os.pidfd_open(p.pid)
    try:
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            peak = max(peak, rss_anon_kib(p.pid))
            el = time.monotonic() - t0
            if max_s is not None and el > max_s and signalled == 0:
                p.send_signal(signal.SIGINT)
                signalled = 1
            elif max_s is not None and el > max_s + 10 and signalled == 1:
                p.kill()
                signalled = 2
            select.select([pidfd], [], [], 0.05)
    except BaseException:
        p.kill()  # httrack, for one, ignores SIGTERM
        p.wait()
        raise
    finally:
        os.close(pidfd)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if log:
        out.close()
    return p.returncode, wall, ru.ru_utime + ru.ru_stime, peak


def count_files(d, suffix=".html"):
    n = 0
    for _, _, files in os.walk(d):
        n += sum(1 for f in files if f.endswith(suffix))
    return n


# --------------------------------------------------------------------
# The tools


def peer_env():
    """The environment without any proxy setting: connections go
    straight to the hosts."""
    env = dict(os.environ)
    for k in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY",
              "all_proxy", "ALL_PROXY"):
        env.pop(k, None)
    return env


def run_sigcrawl(a, run_dir, seeds, port):
    store = os.path.join(run_dir, "store")
    cmd = [a.sigcrawl, "crawl", "--store", store, "--seeds", seeds,
           "--per-host-delay-ms", str(a.delay_ms),
           "--concurrency", str(a.concurrency),
           "--per-host-connections", str(a.per_host),
           "--quiet"] + a.sigcrawl_args.split()
    log = os.path.join(run_dir, "sigcrawl.log")
    r = measure(cmd, env=peer_env(), log=log)
    own = None
    with open(log) as f:
        for line in f:
            if line.startswith("pages "):
                own = int(line.split()[1])
    return r, own


def run_wget(a, run_dir, seeds, port):
    # Recursive, unlimited depth, spanning the 8 hosts and no other,
    # nothing kept (--delete-after), no proxy: wget at its fastest.
    # One start URL: wget runs each URL of -i as a recursion of its own,
    # with its own record of what it fetched, so the 8 roots would fetch
    # the site 8 times over.  Every page is reachable from the first
    # root (the site links across hosts), as run.py checks by the count.
    out = os.path.join(run_dir, "wget")
    with open(seeds) as f:
        first = f.readline().strip()
    cmd = ["wget", "-r", "-l", "inf", "--delete-after", "--no-proxy",
           "-H", "-D", ",".join(HOST_IPS), "-e", "robots=off",
           "--wait=%g" % (a.delay_ms / 1000.0),
           "-nv", "-P", out, first]
    r = measure(cmd, env=peer_env(), log=os.path.join(run_dir, "wget.log"))
    own = 0
    with open(os.path.join(run_dir, "wget.log"), errors="replace") as f:
        for line in f:
            if " URL:" in line and "robots.txt" not in line:
                own += 1
    return r, own


def run_wget2(a, run_dir, seeds, port):
    # Wget2 as its users run it fastest: recursive, the 8 hosts, nothing
    # kept, 16 threads, no wait; one start URL, as wget.
    out = os.path.join(run_dir, "wget2")
    with open(seeds) as f:
        first = f.readline().strip()
    cmd = ["wget2", "-r", "-l", "inf", "--delete-after", "--no-proxy",
           "-H", "--domains=" + ",".join(HOST_IPS), "--robots=off",
           "--max-threads=%d" % a.wget2_threads,
           "--wait=%g" % (a.delay_ms / 1000.0), "-nv", "-P", out, first]
    r = measure(cmd, env=peer_env(), log=os.path.join(run_dir, "wget2.log"))
    return r, None


def run_httrack(a, run_dir, seeds, port):
    out = os.path.join(run_dir, "httrack")
    # Its limits lifted (--disable-security-limits, which also lifts the
    # bandwidth cap; -%c connections a second; -c sockets; -A rate), no
    # proxy, no robots.txt, no cache, no index.
    cmd = ["httrack", "-q", "-O", out, "-%L", seeds,
           "-c%d" % a.httrack_conns, "-%!", "-%c1000", "-A1000000000",
           "-%N0", "-s0", "-r99", "-C0", "-I0", "-E%d" % a.httrack_max_s,
           "-*"] + ["+%s/*" % h for h in authorities(port)]
    r = measure(cmd, env=peer_env(), log=os.path.join(run_dir,
                                                     "httrack.log"))
    n = sum(count_files(os.path.join(out, d)) for d in os.listdir(out)
            if d.startswith("127.0.0.")) if os.path.isdir(out) else 0
    return r, n


def run_scrapy(a, run_dir, seeds, port):
    stats = os.path.join(run_dir, "scrapy-stats.txt")
    cmd = [SYS_PYTHON, os.path.join(HERE, "spider.py"), seeds, stats,
           str(a.scrapy_concurrency), str(a.per_host)]
    r = measure(cmd, env=peer_env(), log=os.path.join(run_dir,
                                                     "scrapy.log"))
    own = None
    if os.path.exists(stats):
        with open(stats) as f:
            own = int(f.read().split()[0])
    return r, own


def run_gumbo(a, site):
    out = subprocess.run([a.bench_parse, site], check=True,
                         capture_output=True, text=True).stdout.split()
    v = dict(zip(out[0::2], out[1::2]))
    return int(v["pages"]), float(v["cpu_s"])


# --------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--pages", type=int, default=15000)
    ap.add_argument("--only", default=",".join(TOOLS),
                    help="comma-separated subset of " + ",".join(TOOLS))
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--per-host", type=int, default=8)
    ap.add_argument("--sigcrawl-args", default="",
                    help="more options for sigcrawl crawl, e.g. "
                    "'--search-index no' to see what a feature costs")
    ap.add_argument("--httrack-conns", type=int, default=16)
    ap.add_argument("--wget2-threads", type=int, default=16)
    ap.add_argument("--delay-ms", type=int, default=0,
                    help="a per-host delay for the tools that have one "
                    "(sigcrawl, wget, wget2); the politeness column counts "
                    "the same-host gaps under it")
    ap.add_argument("--scrapy-concurrency", type=int, default=64,
                    help="CONCURRENT_REQUESTS of the Scrapy peer")
    # HTTrack 3.49-4 fetches about 10 pages/s here (it sleeps between
    # pages whatever the options say), so its run is capped: its rate is
    # that of the partial crawl, flagged in the table.
    ap.add_argument("--httrack-max-s", type=int, default=60)
    ap.add_argument("--sigcrawl", required=True)
    ap.add_argument("--bench-parse", required=True)
    ap.add_argument("--port", type=int, default=0,
                    help="the hosts' port (default: a free one)")
    ap.add_argument("--work", help="work directory (default: a temp dir, "
                    "removed at the end)")
    a = ap.parse_args()
    tools = [t for t in a.only.split(",") if t]
    for t in tools:
        if t not in TOOLS:
            ap.error("unknown tool %r" % t)
    missing = missing_tools(tools)
    if missing:
        print("run.py: missing: %s" % "; ".join(missing), file=sys.stderr)
        return 1

    work = a.work or tempfile.mkdtemp(prefix="sigcrawl-bench-")
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o755)  # nginx workers may run as nobody
    site = os.path.join(work, "site")
    nginx = None

    def on_term(sig, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    try:
        # The URLs name the port: a site made for another port, or
        # another size, is made again.
        port = a.port or free_port()
        stamp = os.path.join(site, "made-for")
        want = "%d pages port %d\n" % (a.pages, port)
        if not os.path.exists(stamp) or open(stamp).read() != want:
            shutil.rmtree(site, ignore_errors=True)
            print("generating %d pages in %s" % (a.pages, site), flush=True)
            subprocess.run([sys.executable, os.path.join(HERE, "gensite.py"),
                            site, "--pages", str(a.pages), "--authorities",
                            ",".join(authorities(port))], check=True)
            with open(stamp, "w") as f:
                f.write(want)
        seeds = os.path.join(site, "seeds.txt")
        nginx = Nginx(work, site, port)
        nginx.start()
        results = {t: [] for t in tools}
        loads = []
        for rep in range(a.reps):
            for t in tools:
                run_dir = os.path.join(work, "run-%s-%d" % (t, rep))
                shutil.rmtree(run_dir, ignore_errors=True)
                os.makedirs(run_dir)
                la = loadavg()
                loads.append(la)
                if t == "gumbo":
                    n, cpu = run_gumbo(a, site)
                    results[t].append(dict(pages=n, cpu=cpu, load=la))
                    print("rep %d %-8s pages %5d cpu %.2fs load %.2f" %
                          (rep, t, n, cpu, la), flush=True)
                    continue
                fn = globals()["run_" + t]
                (rc, wall, cpu, peak), own = fn(a, run_dir, seeds, port)
                ok, distinct, other, least, under = nginx.take_log(
                    os.path.join(run_dir, "access.log"), a.delay_ms)
                results[t].append(dict(pages=ok, distinct=distinct,
                                       other=other, own=own, wall=wall,
                                       cpu=cpu, peak=peak, rc=rc, load=la,
                                       least=least, under=under))
                print("rep %d %-8s exit %d pages %5d (distinct %d, other "
                      "requests %d, own count %s) wall %.2fs cpu %.2fs "
                      "RssAnon %.1f MB load %.2f" %
                      (rep, t, rc, ok, distinct, other, own, wall, cpu,
                       peak / 1024, la), flush=True)
                # The tools' output is not kept between runs (the disk
                # holds one copy at a time).
                for d in ("store", "wget", "wget2", "httrack"):
                    shutil.rmtree(os.path.join(run_dir, d),
                                  ignore_errors=True)
        report(results, a, loads)
    except KeyboardInterrupt:
        print("run.py: interrupted", file=sys.stderr)
        return 130
    finally:
        if nginx:
            nginx.stop()
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def med(rows, key):
    return statistics.median(r[key] for r in rows)


def report(results, a, loads):
    print()
    print("medians of %d runs; %d pages expected; load average (1 min) "
          "while measuring: min %.2f median %.2f max %.2f" %
          (a.reps, a.pages, min(loads), statistics.median(loads),
           max(loads)))
    print("per-host delay %d ms (--delay-ms): politeness is the least "
          "same-host gap and the gaps under the delay" % a.delay_ms)
    print("%-9s %7s %8s %9s %8s %11s %13s %13s %11s" %
          ("tool", "pages", "wall_s", "pages/s", "cpu_s", "cpu_us/page",
           "RssAnon_MB", "least_gap_ms", "gaps<delay"))
    rate = {}
    cpp = {}
    for t, rows in results.items():
        if not rows:
            continue
        pages = med(rows, "pages")
        cpu = med(rows, "cpu")
        # The per-page figures are medians of the per-run figures.
        cpp[t] = statistics.median(r["cpu"] * 1e6 / max(r["pages"], 1)
                                   for r in rows)
        if t == "gumbo":
            print("%-9s %7d %8s %9s %8.2f %11.1f %13s %13s %11s" %
                  (t, pages, "-", "-", cpu, cpp[t], "-", "-", "-"))
            continue
        rate[t] = statistics.median(r["pages"] / r["wall"] for r in rows)
        flag = "" if all(r["pages"] >= a.pages * 0.99 and r["rc"] == 0
                         for r in rows) else "  (partial or failed run)"
        least = min((r["least"] for r in rows if r["least"] is not None),
                    default=None)
        under = max(r["under"] for r in rows)
        print("%-9s %7d %8.2f %9.1f %8.2f %11.1f %13.1f %13s %11d%s" %
              (t, pages, med(rows, "wall"), rate[t], cpu, cpp[t],
               med(rows, "peak") / 1024,
               "-" if least is None else "%.1f" % least, under, flag))
    if "sigcrawl" not in rate:
        return
    print()
    # Ratios, each beside the other tool's politeness: a faster peer that
    # broke the delay is not the same crawl.
    for t in rate:
        if t == "sigcrawl" or not rate[t]:
            continue
        under = max(r["under"] for r in results[t])
        print("sigcrawl/%-8s pages/s %6.2fx%s" %
              (t, rate["sigcrawl"] / rate[t],
               "  (%s: %d same-host gaps under the delay)" % (t, under)
               if under else ""))
    if "gumbo" in cpp:
        print("sigcrawl/gumbo    cpu/page %5.2fx" %
              (cpp["sigcrawl"] / cpp["gumbo"]))
    print("sigcrawl RssAnon  %.1f MB" %
          (med(results["sigcrawl"], "peak") / 1024))


if __name__ == "__main__":
    sys.exit(main())
