#!/usr/bin/python3
"""wildmeasure.py — crawl the wild web (wildweb.py) with each
normalization profile, exhaustively, and print the profiles side by side.

usage: wildmeasure.py SIGCRAWL WILDWEB_PY --seed S [--hosts N] [--docs N]
                      [--set KEY=VALUE]... [--verbose] [--work DIR [--reuse]]
                      [PROFILE...]        (default: strict aggressive adaptive)

For each profile: start WILDWEB_PY on a free port with its request log,
crawl it with `sigcrawl crawl -c CONF --store DIR --profile P
--connect-to ::127.0.0.1:PORT --quiet`, CONF being
  [crawl] per_host_delay_ms = 0, max_depth = 6
  [category web] seeds = (every host's root), scope = any
  [adaptive] (the --set lines, KEY = VALUE)
then stop the server and read its log.  The truth is wildweb.py's own
doc_of() (the module is imported with the same seed, hosts and docs), so
every URL the crawler asks for, linked or not, has its answer.

Columns:
  requests    page requests the server saw (robots.txt aside)
  documents   distinct truth documents among the 200 answers
  redundancy  share of the requests that fetched a document already
              fetched, over all requests (Hong et al.'s wasted fetches)
  cov/strict  documents fetched / documents the strict crawl fetched
  cov/all     documents fetched / documents reachable within depth 6
              from the seeds (wildweb's BFS, robots.txt obeyed)
  mapped      records of `sigcrawl export` with a non-empty "rule" whose
              URL and target ("normalized" if fetched, else
              "duplicate_of") are both documents or the URL is one
  wrong       of those, the ones whose URL is a document and whose target
              is another document or none (404, soft-404).  A target
              stands for the page its record holds: the URL requested for
              it, which is the target itself when the server saw a
              request for it, else the record's URL as found (a crawl
              that fetches the form linked and keys it by the rules)
  synth       requests whose host and target no page served in the run
              linked, that are no seed and no redirect's Location:
              URLs the crawler wrote itself
  rules       `sigcrawl rules --json`: active/retired (- if the command
              failed)
  robots      the smallest gap in ms between two robots.txt requests of
              one host, and the number of hosts whose robots.txt was
              requested more than once (- when none was)

--verbose adds, per profile, where the waste went (wasted requests by
how their URL differs from the first URL that fetched the same document,
with an example), up to 10 synthesized requests with their answers, and
up to 10 wrongly mapped URLs.  --work DIR keeps the stores, configs and
logs there (default: a new temporary directory, kept); with --reuse, a
profile already crawled in DIR (its rc-PROFILE file) is not crawled
again, only measured.

Exit status: 1 if a crawl exited non-zero, else 0.
"""
import collections
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def load_wildweb(path):
    spec = importlib.util.spec_from_file_location("wildweb", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def crawl(a, prof, work, seeds):
    log = os.path.join(work, "log-" + prof)
    store = os.path.join(work, "store-" + prof)
    done = os.path.join(work, "rc-" + prof)
    if a.reuse and os.path.exists(done):
        rc, secs = open(done).read().split()
        return int(rc), log, store, float(secs)
    port_file = os.path.join(work, "port-" + prof)
    for f in (log, port_file):
        if os.path.exists(f):
            os.unlink(f)
    srv = subprocess.Popen([sys.executable, a.wildweb, "--seed", str(a.seed),
                            "--hosts", str(a.hosts), "--docs", str(a.docs),
                            "--port-file", port_file, "--log", log])
    for _ in range(1200):
        if os.path.exists(port_file):
            break
        if srv.poll() is not None:
            sys.exit("wildmeasure.py: wildweb.py exited with %d"
                     % srv.returncode)
        time.sleep(0.05)
    else:
        srv.kill()
        sys.exit("wildmeasure.py: wildweb.py wrote no port file")
    port = open(port_file).read().strip()
    conf = os.path.join(work, "conf-" + prof)
    with open(conf, "w") as f:
        f.write("[crawl]\nper_host_delay_ms = 0\nmax_depth = 6\n"
                "[category web]\nseeds = %s\nscope = any\n" % seeds)
        if a.set:
            f.write("[adaptive]\n" + "".join(
                "%s = %s\n" % tuple(x.strip() for x in kv.split("=", 1))
                for kv in a.set))
    shutil.rmtree(store, ignore_errors=True)   # a new crawl, not a resume
    t0 = time.time()
    rc = subprocess.run([a.sigcrawl, "crawl", "-c", conf, "--store", store,
                         "--profile", prof, "--connect-to",
                         "::127.0.0.1:" + port, "--quiet"],
                        stdout=open(os.path.join(work, "stdout-" + prof), "w"),
                        stderr=open(os.path.join(work, "stderr-" + prof),
                                    "w")).returncode
    secs = time.time() - t0
    srv.terminate()
    srv.wait()
    with open(done, "w") as f:
        f.write("%d %.1f\n" % (rc, secs))
    return rc, log, store, secs


def read_log(path):
    reqs = []                 # (id, ms, host, target) in arrival order
    status = {}
    linked = set()
    locations = set()
    for line in open(path, encoding="utf-8", errors="replace"):
        f = line.rstrip("\n").split("\t")
        if len(f) < 7:
            continue
        ev = f[2]
        if ev == "req":
            reqs.append((f[1], int(f[0]), f[3].split(":")[0].lower(), f[5]))
        elif ev == "done":
            status[f[1]] = f[6]
        elif ev == "links":
            linked.update(f[7:])
        elif ev == "location":
            locations.add(f[7])
    return reqs, status, linked, locations


def split_target(target):
    path, _, q = target.partition("?")
    seg = path.split(";", 1)
    return seg[0], len(seg) > 1, [x for x in q.split("&") if x]


def differs(h1, t1, h2, t2):
    """How the URL h2 t2 differs from h1 t1, as a short label."""
    out = []
    if h1 != h2:
        out.append("www" if h1.startswith("www.") or h2.startswith("www.")
                   else "host")
    p1, j1, q1 = split_target(t1)
    p2, j2, q2 = split_target(t2)
    if j1 or j2:
        out.append("jsessionid")
    n1 = [x.split("=")[0] for x in q1]
    n2 = [x.split("=")[0] for x in q2]
    for n in sorted(set(n1) ^ set(n2)):
        out.append("param:" + n)
    if set(n1) == set(n2) and n1 != n2:
        out.append("param-order")
    elif set(q1) != set(q2) and set(n1) == set(n2):
        out.append("param-value")
    if p1 != p2:
        def core(p):
            # The path without a default page or a trailing slash.
            if p.lower().endswith("/index.html"):
                p = p[:-len("index.html")]
            return p.rstrip("/") or "/"
        c1, c2 = core(p1), core(p2)
        if (c1 != p1.rstrip("/") or c2 != p2.rstrip("/")) and \
                p1.lower().endswith("index.html") != \
                p2.lower().endswith("index.html"):
            out.append("index.html")
        d1, d2 = (p[:-len("index.html")] if p.lower().endswith(
            "/index.html") else p for p in (p1, p2))
        if d1.endswith("/") != d2.endswith("/") and c1.lower() == c2.lower():
            out.append("slash")
        if c1 != c2 and c1.lower() == c2.lower():
            out.append("case")
        elif c1.lower() != c2.lower():
            out.append("path")
    return "+".join(out) or "same"


def rule_check(a, web, store, requested):
    """(mapped, wrong, wrong by rule, examples, {fetched URL: (URL as
    found, rule)}) from the store's export; requested: the URLs the
    server saw."""
    out = subprocess.run([a.sigcrawl, "export", "--store", store],
                         capture_output=True, text=True,
                         errors="replace").stdout
    mapped = wrong = 0
    by_rule = collections.Counter()
    examples = []
    rewritten = {}
    recs = [json.loads(line) for line in out.splitlines()]
    # The URL whose page a fetched record holds.
    page_of = {}
    for r in recs:
        if r["fetched"]:
            page_of[r["normalized"]] = (r["normalized"]
                                        if r["normalized"] in requested
                                        else r["url"])
    for r in recs:
        if not r.get("rule"):
            continue
        target = r["normalized"] if r["fetched"] else r["duplicate_of"]
        if target:
            target = page_of.get(target, target)
        if r["fetched"] and r["normalized"] != r["url"]:
            rewritten.setdefault(r["normalized"], (r["url"], r["rule"]))
        if not target:
            continue
        da, db = web.doc_of_url(r["url"]), web.doc_of_url(target)
        if da is None:
            continue
        mapped += 1
        if da != db:
            wrong += 1
            by_rule[r["rule"]] += 1
            if len(examples) < 10:
                examples.append("%s -> %s (%s; %s vs %s)" % (
                    r["url"], target, r["rule"], da, db))
    return mapped, wrong, by_rule, examples, rewritten


SUMMARY = re.compile(r"^(\d+) active, (\d+) candidates, (\d+) retired, "
                     r"(\d+) refuted")


def rules_count(a, store):
    """The rules by state: from --json, else from the text listing's
    last line (--json fails on some stores); None if both fail."""
    def run(*extra):
        try:
            return subprocess.run([a.sigcrawl, "rules", "--store", store]
                                  + list(extra), capture_output=True,
                                  timeout=300)
        except (OSError, subprocess.TimeoutExpired):
            return None
    p = run("--json")
    if p is not None and p.returncode == 0:
        states = collections.Counter()
        try:
            for line in p.stdout.splitlines():
                r = json.loads(line)
                if "kind" not in r:  # skip shapes and claims are no rules
                    states[r.get("state")] += 1
            return states
        except ValueError:
            pass
    p = run()
    if p is None or p.returncode != 0:
        return None
    lines = p.stdout.decode("utf-8", "replace").splitlines()
    m = next((m for m in map(SUMMARY.match, lines) if m), None)
    if not m:
        return None
    return collections.Counter(dict(zip(
        ("active", "candidate", "retired", "refuted"),
        (int(x) for x in m.groups()))))


def analyse(a, web, prof, rc, log, store, secs, seeds, noisy):
    reqs, status, linked, locations = read_log(log)
    requests = wasted = 0
    docs = set()
    first = {}
    waste = collections.Counter()
    waste_ex = {}
    waste_noisy = 0
    synth = []
    robots = collections.defaultdict(list)
    for rid, ms, host, target in reqs:
        if target == "/robots.txt":
            robots[host].append(ms)
            continue
        requests += 1
        url = "http://%s%s" % (host, target)
        if url not in linked and url not in locations and url not in seeds:
            synth.append((url, status.get(rid, "?"),
                          web.doc_of(host, target)))
        if status.get(rid) != "200":
            continue
        doc = web.doc_of(host, target)
        if doc is None:
            continue
        if doc in docs:
            wasted += 1
            h1, t1 = first[doc]
            label = differs(h1, t1, host, target)
            waste[label] += 1
            waste_ex.setdefault(label, "http://%s%s  then  http://%s%s" % (
                h1, t1, host, target))
            waste_noisy += doc in noisy
        else:
            docs.add(doc)
            first[doc] = (host, target)
    gaps = [b - a_ for ms in robots.values() for a_, b in zip(ms, ms[1:])]
    row = {
        "rc": rc, "requests": requests, "docs": docs, "wasted": wasted,
        "synth": synth, "secs": secs,
        "robots_gap": min(gaps) if gaps else None,
        "robots_multi": sum(1 for ms in robots.values() if len(ms) > 1),
        "waste": waste, "waste_ex": waste_ex, "waste_noisy": waste_noisy,
        "rules": rules_count(a, store),
        "check": rule_check(a, web, store,
                            {"http://%s%s" % (h, t) for _, _, h, t in reqs}),
    }
    return row


def main():
    import argparse
    ap = argparse.ArgumentParser(
        usage="wildmeasure.py SIGCRAWL WILDWEB_PY --seed S [--hosts N] "
              "[--docs N] [--set KEY=VALUE]... [--verbose] [--work DIR "
              "[--reuse]] [PROFILE...]")
    ap.add_argument("sigcrawl")
    ap.add_argument("wildweb")
    ap.add_argument("profiles", nargs="*")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--hosts", type=int, default=20)
    ap.add_argument("--docs", type=int, default=300)
    ap.add_argument("--set", action="append", default=[],
                    metavar="KEY=VALUE", help="an [adaptive] setting")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--work")
    ap.add_argument("--reuse", action="store_true")
    a = ap.parse_intermixed_args()
    for kv in a.set:
        if "=" not in kv:
            sys.exit("wildmeasure.py: --set wants KEY=VALUE, not %r" % kv)
    profiles = a.profiles or ["strict", "aggressive", "adaptive"]
    ww = load_wildweb(a.wildweb)
    web = ww.Web(a.seed, a.hosts, a.docs)
    reach, _ = web.reachable(6)
    noisy = {pg.doc for _, pg in web.served_pages() if pg.noisy}
    work = a.work or tempfile.mkdtemp(prefix="sc-wild-")
    os.makedirs(work, exist_ok=True)
    seeds_file = os.path.join(work, "seeds")
    seeds = web.seeds()
    with open(seeds_file, "w") as f:
        f.write("\n".join(seeds) + "\n")
    seeds = set(seeds)
    print("# wild web: seed %d, %d hosts x %d docs: %d sites, %d documents, "
          "%d reachable; work dir %s" % (a.seed, a.hosts, a.docs,
                                         len(web.site_list),
                                         len(web.all_docs()), len(reach),
                                         work), flush=True)
    rows = {}
    for prof in profiles:
        rc, log, store, secs = crawl(a, prof, work, seeds_file)
        rows[prof] = analyse(a, web, prof, rc, log, store, secs, seeds, noisy)
        print("# %s: exit %d after %.0f s" % (prof, rc, secs), flush=True)
    ref = rows["strict"]["docs"] if "strict" in rows else None
    print("%-11s %4s %8s %9s %10s %10s %7s %6s %5s %5s %7s %9s" % (
        "profile", "exit", "requests", "documents", "redundancy",
        "cov/strict", "cov/all", "mapped", "wrong", "synth", "rules",
        "robots"))
    for prof, r in rows.items():
        st = r["rules"]
        rules = ("%d/%d" % (st.get("active", 0), st.get("retired", 0))
                 if st is not None else "-")
        robots = ("%d/%d" % (r["robots_gap"], r["robots_multi"])
                  if r["robots_gap"] is not None else "-/0")
        mapped, wrong = r["check"][:2]
        print("%-11s %4d %8d %9d %10.3f %10s %7.3f %6d %5d %5d %7s %9s" % (
            prof, r["rc"], r["requests"], len(r["docs"]),
            r["wasted"] / r["requests"] if r["requests"] else 0,
            "%.3f" % (len(r["docs"] & ref) / len(ref)) if ref else "-",
            len(r["docs"] & reach) / len(reach) if reach else 0,
            mapped, wrong, len(r["synth"]), rules, robots))
    if a.verbose:
        linked = web.linked_urls()
        for prof, r in rows.items():
            print("\n## %s: %d wasted requests (%d on pages with "
                  "per-request noise), by how the URL differs from the "
                  "first fetch of its document" % (prof, r["wasted"],
                                                   r["waste_noisy"]))
            for label, n in r["waste"].most_common(15):
                print("%6d  %-28s %s" % (n, label, r["waste_ex"][label]))
            st = collections.Counter(
                s + (" (a document)" if s == "200" and doc else
                     " (no document: soft-404, login)" if s == "200" else "")
                for _, s, doc in r["synth"])
            anywhere = sum(1 for url, _, _ in r["synth"] if url in linked)
            print("## %s: %d synthesized requests (answers: %s; %d of them "
                  "are linked by a page of the web this crawl did not "
                  "fetch), by the rules that wrote them (export)" % (
                      prof, len(r["synth"]),
                      ", ".join("%s %d" % kv for kv in sorted(st.items())),
                      anywhere))
            rewritten = r["check"][4]
            by = collections.Counter()
            by_ex = {}
            for url, s, doc in r["synth"]:
                found, rule = rewritten.get(url, ("?", "(no rule)"))
                by[rule] += 1
                by_ex.setdefault(rule, "%s  (linked as %s) -> %s" % (
                    url, found, s))
            for rule, n in by.most_common(10):
                print("%6d  %s\n        e.g. %s" % (n, rule, by_ex[rule]))
            print("## %s: first 10 synthesized requests" % prof)
            for url, s, doc in r["synth"][:10]:
                print("   %s  -> %s %s" % (url, s, doc or ""))
            mapped, wrong, by_rule, ex = r["check"][:4]
            if ex:
                print("## %s: %d URLs mapped wrongly, by rule" % (
                    prof, wrong))
                for rule, n in by_rule.most_common(10):
                    print("%6d  %s" % (n, rule))
                print("## %s: the first %d" % (prof, len(ex)))
                for e in ex:
                    print("   " + e)
            if r["rules"] is not None:
                print("## %s: rules by state: %s" % (prof, dict(r["rules"])))
    sys.exit(1 if any(r["rc"] for r in rows.values()) else 0)


if __name__ == "__main__":
    main()
