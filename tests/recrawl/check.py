#!/usr/bin/python3
"""check.py — what one re-crawl pass of tests/recrawl/webgen.py's web must
show, for tests/test-recrawl.sh.

usage: check.py TRUTH BEFORE AFTER LOG SUMMARY AUDIT [WARCIDX]

TRUTH is webgen's truth.json; BEFORE and AFTER the store's export (JSONL)
before and after `crawl --recrawl`; LOG the fixture's request log of the
pass only; SUMMARY the pass's output; AUDIT the [recrawl] audit_share
(0 or 1: none or every duplicate audited); WARCIDX, if given, the output
of `warcio index -f warc-type,warc-profile` (JSON lines) over the
store's WARC files.  Prints one line per check, "ok NAME" or
"fail NAME: DETAIL", for the shell script to count.
"""
import json
import re
import sys
from urllib.parse import urlsplit

checks = []


def check(name, cond, detail=""):
    checks.append((name, bool(cond), detail))


def load(path):
    out = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                out[r["normalized"]] = r
    return out


def key(url):
    u = urlsplit(url)
    return u.netloc + (u.path or "/") + ("?" + u.query if u.query else "")


def main():
    truth_p, before_p, after_p, log_p, summary_p, audit = sys.argv[1:7]
    warcidx = sys.argv[7] if len(sys.argv) > 7 else None
    audit = float(audit)
    truth = json.load(open(truth_p))
    before, after = load(before_p), load(after_p)

    reps = {key(u) for u, r in before.items()
            if r["fetched"] and r["status"] == 200 and not r["duplicate_of"]}
    dups = {key(u) for u, r in before.items()
            if r["fetched"] and r["status"] == 200 and r["duplicate_of"]}
    by_key = {key(u): r for u, r in after.items()}
    check("the first pass found representatives and duplicates "
          "(%d, %d)" % (len(reps), len(dups)), len(reps) > 20 and len(dups) > 0)

    # The requests of the pass, robots.txt aside, and their answers.
    req, status = {}, {}
    ans = {}
    for line in open(log_p):
        f = line.rstrip("\n").split("\t")
        if len(f) < 8 or f[5] == "/robots.txt":
            continue
        host = f[3].split(":")[0]
        k = host + f[5]
        if f[2] == "req":
            req[k] = req.get(k, 0) + 1
            ans[f[1]] = k
        elif f[2] == "done" and f[1] in ans:
            status[ans[f[1]]] = f[6]
    new = {h + t["new"] for p, t in truth.items()
           for h in [p.split("/")[0]] if t["new"] and p in reps}
    moved = {h + t["moved_to"] for p, t in truth.items()
             for h in [p.split("/")[0]] if t["moved_to"] and p in reps}
    audited = dups if audit >= 1 else set()
    want = reps | new | moved | audited
    got = set(req)
    check("the pass fetched every representative, the new pages and "
          "redirect targets they led to%s, and nothing else" %
          (", and every duplicate (audit 1)" if audit >= 1 else ""),
          got == want,
          "missing %s; unexpected %s" % (sorted(want - got)[:5],
                                         sorted(got - want)[:5]))
    if audit <= 0:
        check("no duplicate was fetched (%d duplicates)" % len(dups),
              not (got & dups), sorted(got & dups)[:5])
    twice = [k for k, n in req.items() if n > 1]
    check("no page was fetched twice", not twice, twice[:5])

    # Changes, exactly: changed_at set for the pages whose text changed,
    # and only them, among the pages revisited.
    wrong = []
    for k in reps | audited:
        t = truth.get(k)
        r = by_key.get(k)
        if t is None or r is None:
            wrong.append((k, "no truth or record"))
            continue
        if t["gone"]:
            continue
        if bool(r["changed_at"]) != t["changed"]:
            wrong.append((k, t["kind"], r["changed_at"]))
    check("every change detected, and only changes (%d revisited)" %
          len(reps | audited), not wrong, wrong[:5])
    markup = [k for k in reps if truth[k]["kind"] == "markup"]
    check("pages whose markup moved and text did not are unchanged (%d)" %
          len(markup), markup and all(not by_key[k]["changed_at"]
                                      for k in markup))

    # 304s: exactly the pages whose server offers them.
    c304 = {k for k in reps if truth[k]["c304"]}
    got304 = {k for k, s in status.items() if s == "304"}
    check("a 304 answered exactly the pages with a stable ETag or "
          "Last-Modified (%d)" % len(c304), c304 and got304 == c304,
          "missing %s; unexpected %s" % (sorted(c304 - got304)[:5],
                                         sorted(got304 - c304)[:5]))

    # Gone pages.
    gone = {k for k in reps if truth[k]["gone"]}
    bad = [k for k in gone if not by_key[k]["gone_at"]
           or by_key[k]["status"] not in (404, 410)]
    check("every removed page is marked gone with its status (%d)" %
          len(gone), gone and not bad, bad[:5])
    bad = [k for k in reps - gone if by_key[k]["gone_at"]]
    check("no other page is marked gone", not bad, bad[:5])

    # Visits and the next schedule.
    bad = [k for k in reps | audited if by_key[k]["visits"] != 2]
    check("every page revisited has visits 2", not bad, bad[:5])
    bad = [k for k in dups - audited if by_key[k]["visits"] != 1]
    check("duplicates not fetched keep visits 1", not bad, bad[:5])
    day = 86400
    bad = []
    for k in reps - gone:
        t, r = truth[k], by_key[k]
        b = before[[u for u in before if key(u) == k][0]]["interval"]
        want_iv = b // 2 if t["changed"] else min(b * 3 // 2, 30 * day)
        if t["kind"] == "lastmod":
            want_iv = 30 * day  # ten years old: the longest interval
        if r["interval"] != want_iv or r["next_visit"] is None:
            bad.append((k, t["kind"], b, r["interval"]))
    check("intervals halve on changed pages and grow by half on "
          "unchanged ones", not bad, bad[:5])
    bad = [k for k in gone if by_key[k]["interval"] != 30 * day]
    check("gone pages are tried again at the longest interval", not bad,
          bad[:5])
    bad = [k for k in new | moved if not by_key.get(k, {}).get("fetched")]
    check("new pages found on revisits are fetched (%d)" % len(new | moved),
          (new | moved) and not bad, bad[:5])
    bad = []
    for p, t in truth.items():
        if t["moved_to"] and p in reps:
            r = by_key[p]
            if not r["redirect"] or not r["redirect"].endswith(t["moved_to"]):
                bad.append(p)
    check("a redirect that appeared is recorded", not bad, bad[:5])

    # The summary line.
    s = open(summary_p).read()
    m = re.search(r"re-crawl: (\d+) revisited \((\d+) unchanged, (\d+) of "
                  r"them by 304; (\d+) changed; (\d+) gone\), (\d+) failed; "
                  r"(\d+) duplicates not fetched, (\d+) audited, (\d+) "
                  r"diverged", s)
    check("the summary has the re-crawl line", m, s[-300:])
    if m:
        n = [int(x) for x in m.groups()]
        changed = sum(1 for k in reps | audited
                      if truth[k]["changed"] and not truth[k]["gone"])
        diverged = sum(1 for k in audited if truth[k]["kind"] == "drift")
        check("the summary counts them (%s)" % m.group(0),
              n[0] == len(reps | audited) and n[2] == len(c304) and
              n[3] == changed and n[4] == len(gone) and n[5] == 0 and
              n[6] == len(dups - audited) and n[7] == len(audited) and
              n[8] == diverged,
              "want %d revisited, %d 304, %d changed, %d gone, %d saved, "
              "%d audited, %d diverged" % (len(reps | audited), len(c304),
                                           changed, len(gone),
                                           len(dups - audited),
                                           len(audited), diverged))
    if audit >= 1:
        drift = [k for k in dups if truth[k]["kind"] == "drift"]
        bad = [k for k in drift if by_key[k]["duplicate_of"]]
        check("duplicates that diverged are representatives now (%d)" %
              len(drift), drift and not bad, bad[:5])
        same = [k for k in dups if truth[k]["kind"] != "drift"]
        bad = [k for k in same if not by_key[k]["duplicate_of"]]
        check("duplicates that did not diverge stay duplicates (%d)" %
              len(same),
              same and not bad, bad[:5])

    if warcidx:
        prof = {}
        for line in open(warcidx):
            r = json.loads(line) if line.startswith("{") else {}
            if r.get("warc-type") == "revisit":
                p = r.get("warc-profile", "").rsplit("/", 1)[-1]
                prof[p] = prof.get(p, 0) + 1
        ident = sum(1 for k in reps | audited
                    if truth[k]["kind"] in ("static", "twin"))
        check("warcio reads a server-not-modified revisit record per 304 "
              "(%s)" % prof, prof.get("server-not-modified") == len(c304))
        check("warcio reads an identical-payload-digest revisit record per "
              "unchanged page of the same bytes (%d)" % ident,
              ident and prof.get("identical-payload-digest") == ident)

    for name, ok, detail in checks:
        print(("ok %s" % name) if ok else ("fail %s: %s" % (name, detail)))


if __name__ == "__main__":
    main()
