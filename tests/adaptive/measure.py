#!/usr/bin/python3
"""measure.py SIGCRAWL FIXTURE WEBDIR [--audit-share S] [--set KEY=VALUE]...
[PROFILE...] — crawl a generated web
(webgen.py) with each normalization profile, exhaustively (scope any,
depth 6), and print requests, distinct documents, redundancy and coverage
side by side.

requests: page requests the server saw (robots.txt aside); documents:
distinct truth documents among the 200 answers; redundancy: the share of
requests that fetched a document already fetched (Hong et al.'s wasted
fetches); coverage: documents fetched over the documents the strict
profile fetches (strict loses nothing: its only steps are RFC 3986's);
for adaptive, mapped: URLs a learned rule mapped onto another (export's
`rule`), and wrong: those the truth says are another document.
A request is mapped to its document as the fixture answers it: the exact
path and query, else the path alone.
"""
import json
import os
import subprocess
import sys
import tempfile
import time


def start_fixture(fixture, web, port_file, log):
    """sc-fixture serving web, logging to log: (process, port)."""
    if os.path.exists(port_file):
        os.unlink(port_file)
    fx = subprocess.Popen([fixture, "--web", web, "--port-file", port_file,
                           "--log", log])
    for _ in range(200):
        if os.path.exists(port_file) and open(port_file).read().strip():
            break
        time.sleep(0.05)
    return fx, open(port_file).read().strip()


def crawl(sigcrawl, fixture, web, seeds, profile, work, extra):
    log = os.path.join(work, "log-" + profile)
    fx, port = start_fixture(fixture, web,
                             os.path.join(work, "port-" + profile), log)
    conf = os.path.join(work, "conf-" + profile)
    with open(conf, "w") as f:
        f.write("[crawl]\nper_host_delay_ms = 0\nmax_depth = 6\n"
                "[category web]\nseeds = %s\nscope = any\n%s" % (seeds, extra))
    rc = subprocess.run([sigcrawl, "crawl", "-c", conf, "--store",
                         os.path.join(work, "store-" + profile), "--profile",
                         profile, "--connect-to", "::127.0.0.1:" + port,
                         "--quiet"], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode
    fx.terminate()
    fx.wait()
    return rc, log


def doc_of(truth, url):
    u = url[len("http://"):] if url.startswith("http://") else url
    return truth.get(u, truth.get(u.split("?")[0]))


def rule_check(sigcrawl, store, truth):
    """The URLs the learned rules mapped onto another (held back, or
    queued under the rules' key), and how many of those the truth says
    are another document: (mapped, wrong)."""
    out = subprocess.run([sigcrawl, "export", "--store", store],
                         capture_output=True, text=True).stdout
    mapped = wrong = 0
    for line in out.splitlines():
        r = json.loads(line)
        if not r.get("rule"):
            continue
        target = r["normalized"] if r["fetched"] else r["duplicate_of"]
        if not target:
            continue
        a, b = doc_of(truth, r["url"]), doc_of(truth, target)
        if a is None or b is None:
            continue
        mapped += 1
        wrong += a != b
    return mapped, wrong


def main():
    sigcrawl, fixture, webdir = sys.argv[1:4]
    args = sys.argv[4:]
    adaptive = []
    while args[:1] in (["--audit-share"], ["--set"]):
        if len(args) < 2:
            sys.exit("measure.py: %s needs an argument" % args[0])
        if args[0] == "--audit-share":
            adaptive.append("audit_share = %s" % args[1])
        else:
            adaptive.append(args[1].replace("=", " = ", 1))
        args = args[2:]
    extra = "[adaptive]\n%s\n" % "\n".join(adaptive) if adaptive else ""
    profiles = args or ["strict", "extended", "aggressive"]
    truth = {}
    for line in open(os.path.join(webdir, "truth.jsonl")):
        r = json.loads(line)
        truth[r["url"][len("http://"):]] = r["doc"]
    work = tempfile.mkdtemp(prefix="sc-adaptive-")
    rows = {}
    for prof in profiles:
        rc, log = crawl(sigcrawl, fixture, os.path.join(webdir, "web"),
                        os.path.join(webdir, "seeds"), prof, work, extra)
        requests = wasted = 0
        docs = set()
        status = {}
        for line in open(log):
            f = line.rstrip("\n").split("\t")
            if len(f) >= 7 and f[2] == "done":
                status[f[1]] = f[6]
        for line in open(log):
            f = line.rstrip("\n").split("\t")
            if len(f) < 6 or f[2] != "req" or f[5] == "/robots.txt":
                continue
            requests += 1
            host = f[3].split(":")[0]
            key = host + f[5]
            doc = truth.get(key, truth.get(host + f[5].split("?")[0]))
            if doc is None or status.get(f[1]) != "200":
                continue
            if doc in docs:
                wasted += 1
            docs.add(doc)
        rows[prof] = (rc, requests, docs, wasted,
                      rule_check(sigcrawl, os.path.join(work, "store-" + prof),
                                 truth) if prof == "adaptive" else None)
    ref = rows.get("strict", next(iter(rows.values())))[2]
    print("%-11s %5s %9s %10s %11s %9s %7s %6s" % (
        "profile", "exit", "requests", "documents", "redundancy",
        "coverage", "mapped", "wrong"))
    for prof, (rc, requests, docs, wasted, rules) in rows.items():
        print("%-11s %5d %9d %10d %11.3f %9.3f %7s %6s" % (
            prof, rc, requests, len(docs),
            wasted / requests if requests else 0,
            len(docs & ref) / len(ref) if ref else 0,
            rules[0] if rules else "-", rules[1] if rules else "-"))


if __name__ == "__main__":
    main()
