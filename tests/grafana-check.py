#!/usr/bin/env python3
"""grafana-check.py BOARD EXPORTS [EXPOSITION API] -- the Grafana board's
PromQL against what the daemon exports.

BOARD is packaging/grafana/sigcrawl.json.  EXPORTS is the daemon's source
of /metrics (crawler/daemon/control-answer.c: every "sigcrawl_..." string it
prints, the cluster's and the categories' included) or a scraped
exposition (its # TYPE lines).  Every expression of the board (panel
targets and template queries) must name at least one sigcrawl_ series,
and every sigcrawl_ name in it must be exported (a histogram's _bucket,
_sum and _count count as its own).

With EXPOSITION (what the daemon answered to GET /metrics) and API (a
Prometheus server's http://HOST:PORT/api/v1 that scrapes it), each
expression is also evaluated there ($instance as .*,
$__rate_interval as 1m): it must succeed, and one whose series are all in
the exposition must return a result.

Prints "ok ..." or "BAD ..." per expression and a last line
"N expressions, M names, K bad"; exits 1 when any is bad or none found."""
import json
import re
import sys
import urllib.parse
import urllib.request

NAME = re.compile(r"\bsigcrawl_[a-zA-Z0-9_]+\b")


def expressions(node, out):
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("expr", "definition") and isinstance(v, str):
                out.append(v)
            elif k == "query" and isinstance(v, str) and "sigcrawl_" in v:
                out.append(v)
            else:
                expressions(v, out)
    elif isinstance(node, list):
        for v in node:
            expressions(v, out)
    return out


def exported(path):
    text = open(path, encoding="utf-8").read()
    names, hist = set(), set()
    if path.endswith(".c"):
        names = set(re.findall(r'"(sigcrawl_[a-z0-9_]+)', text))
        hist = set(re.findall(r'"(sigcrawl_[a-z0-9_]+)",\s*"histogram"', text))
    else:
        for m in re.finditer(r"^# TYPE (\S+) (\S+)$", text, re.M):
            names.add(m.group(1))
            if m.group(2) == "histogram":
                hist.add(m.group(1))
    for h in hist:
        names |= {h + "_bucket", h + "_sum", h + "_count"}
    return names


def evaluate(api, expr):
    q = expr.replace("$instance", ".*").replace("$__rate_interval", "1m")
    url = api + "/query?" + urllib.parse.urlencode({"query": q})
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            ans = json.load(r)
    except Exception as e:  # an HTTP 400 is a bad expression
        return False, str(e)
    return ans.get("status") == "success", ans.get("data", {}).get("result")


def main():
    board = json.load(open(sys.argv[1], encoding="utf-8"))
    names = exported(sys.argv[2])
    live = exported(sys.argv[3]) if len(sys.argv) > 4 else set()
    api = sys.argv[4] if len(sys.argv) > 4 else None
    exprs = expressions(board, [])
    seen, bad = set(), 0
    for e in exprs:
        used = set(NAME.findall(e))
        seen |= used
        missing = sorted(n for n in used if n not in names)
        if not used or missing:
            bad += 1
            print("BAD %s: %s" % (e, "names no sigcrawl_ series" if not used
                                  else "not exported: " + ", ".join(missing)))
            continue
        if api and not e.startswith("label_values("):
            ok, result = evaluate(api, e)
            if not ok:
                bad += 1
                print("BAD %s: Prometheus refused it: %s" % (e, result))
                continue
            if not result and used <= live:
                bad += 1
                print("BAD %s: no result, though the daemon exports it" % e)
                continue
        print("ok %s" % e)
    print("%d expressions, %d names, %d bad" % (len(exprs), len(seen), bad))
    return 1 if bad or not exprs else 0


if __name__ == "__main__":
    sys.exit(main())
