#!/bin/bash
# test-dashboard.sh SIGCRAWL FIXTURE OUTDIR — the dashboard (GET /) in a
# real browser: `serve` crawls a generated web (two sites, 25 hosts that
# answer 429 with Retry-After so that more hosts wait than the page lists,
# one host that refuses connections), its control socket a Unix socket
# and the dashboard on its own TCP port ([control] dashboard).  Once the
# crawl has settled, headless Chromium opens the page, lets it poll,
# and leaves its DOM: every figure on it must equal /status's taken just
# after (tests/dashboard-check.py), the page must have refreshed at least
# twice, Chromium's console must hold no message (the page logs nothing
# itself: any line is an error), and the page must fit a phone's width.
# Screenshots go to OUTDIR/dashboard.png and dashboard-phone.png.  Also:
# the dashboard's listener answers GET only, and refuses a request that
# another site's page sends (Origin, Host); /history and /rules.
#
# Skipped (exit 77) only when Chromium is not installed; .ci/install-deps
# installs it (packaging/test-deps.txt), so CI runs it.
set -u
sigcrawl=$1
fixture=$2
outdir=${3:-.}
. "$(dirname "$0")/crawl-lib.sh"
srcdir=$(cd "$(dirname "$0")" && pwd)
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
	echo "SKIP: chromium is not installed (Debian: apt-get install chromium;" \
		".ci/install-deps installs it): the dashboard is not tested in a browser"
	finished=1
	exit 77
fi
spid=
on_exit()
{
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null
	[ -n "$fpid" ] && kill "$fpid" 2>/dev/null
}

{
	echo "site s1.test pages=120 links=3-6 fanout=3 cross=0 seed=21 size=1500"
	echo "site s2.test pages=80 links=3-6 fanout=3 cross=0 seed=22 size=1500"
	echo "host e.test"
	echo "page / 404 text/html"
	for i in $(seq 25); do
		echo "host w$i.test"
		echo 'page / 429 text/html header="Retry-After: 3600"'
	done
} >"$tmp/web"
start_fixture "$tmp/web" "$tmp/flog"
{
	echo http://s1.test/
	echo http://s2.test/
	echo http://dead.test/
	echo http://e.test/
	for i in $(seq 25); do echo "http://w$i.test/"; done
} >"$tmp/seeds.txt"
dport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$tmp/serve.conf" <<EOF
[crawl]
store = store
concurrency = 8
per_host_delay_ms = 0
host_retries = 1
connect_to = dead.test:80:127.0.0.1:1
connect_to = ::127.0.0.1:$port
[control]
listen = unix:ctl.sock
dashboard = tcp:127.0.0.1:$dport
[category web]
seeds = seeds.txt
keywords = alpha, news
EOF
(cd "$tmp" && exec "$sigcrawl" serve -c serve.conf) 2>"$tmp/serve.log" &
spid=$!
url=http://127.0.0.1:$dport
get() { curl -s --max-time 5 "$@"; }
status() { get "$url/status"; }

# Settled: both sites crawled and e.test's 404 recorded, the 25 hosts
# waiting and dead.test held with their URLs queued, the rate back to 0
# (nothing on the page may move while Chromium reads it but the uptime).
settled()
{
	status >"$tmp/st" 2>/dev/null &&
		python3 - "$tmp/st" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
ok = s["pages"] >= 200 and s.get("hosts_waiting") == 25 and s["rate"] == 0 \
    and s["queue"] == 26 and s["in_flight"] == 0 and s["hosts_held"] == 1 \
    and s["errors"] == 1
sys.exit(0 if ok else 1)
EOF
}
check_true "the crawl settles: 200 pages, 1 error, 25 hosts waiting, 1 held, rate 0" \
	wait_until 60 settled
check_true "GET / on the dashboard's port is the page" \
	grep -q '<title>sigcrawl</title>' <(get "$url/")

# The page as Chromium leaves it after 10 s of (virtual) time: three or
# four polls.  --enable-logging=stderr puts the console's messages on
# stderr as INFO:CONSOLE lines.
browse()
{
	local size=$1 out=$2
	shift 2
	timeout 60 "$chromium" --headless --no-sandbox --disable-gpu \
		--hide-scrollbars --no-first-run --user-data-dir="$tmp/chrome" \
		--enable-logging=stderr --v=0 --window-size="$size" \
		--virtual-time-budget=10000 "$@" "$url/" >"$out" 2>>"$tmp/chrome.log"
}
browse 1280,1500 "$tmp/dom" --dump-dom
status >"$tmp/status.json"
refreshes=$(sed -n 's/.*<body[^>]*data-refreshes="\([0-9]*\)".*/\1/p' "$tmp/dom")
check_true "the page polled /status at least twice (${refreshes:-0} times)" \
	test "${refreshes:-0}" -ge 2
python3 "$srcdir/dashboard-check.py" "$tmp/dom" "$tmp/status.json" >"$tmp/cmp"
rc=$?
if [ $rc -eq 0 ]; then
	pass "the page's figures equal /status: $(tail -1 "$tmp/cmp")"
else
	fail "the page's figures differ from /status" "$(grep -v '^same' "$tmp/cmp")"
fi
for k in pages queue hosts_waiting hosts_held hosts_delayed errors \
	errors_by_kind.http_error skipped_by_kind.robots_disallowed \
	'categories\[web\].pages' 'categories\[web\].harvest' state; do
	check_true "among them: $k" grep -q "^same $k " "$tmp/cmp"
done
# One definition of an error: the bars add up to the figure above them,
# whose noun agrees with it, and /metrics adds up to the same.
check_true "the error bars add up to /status's errors" python3 -c '
import json, re, sys
d = open(sys.argv[1]).read()
st = json.load(open(sys.argv[2]))
bars = re.search(r"<svg id=\"errors\"[^>]*>(.*?)</svg>", d, re.S).group(1)
n = sum(int(x.replace(",", "")) for x in
        re.findall(r"data-k=\"errors_by_kind\.[a-z_]+\"[^>]*>([0-9,]+)<", bars))
noun = re.search(r"id=\"errors-noun\"[^>]*>([^<]*)<", d).group(1)
want = "record in error" if st["errors"] == 1 else "records in error"
sys.exit(not (n == st["errors"] == sum(st["errors_by_kind"].values())
              and noun == want))' "$tmp/dom" "$tmp/status.json"
curl -s --max-time 5 --unix-socket "$tmp/ctl.sock" http://x/metrics >"$tmp/metrics"
merr=$(awk '/^sigcrawl_errors_total\{/ { n += $2 } END { print n + 0 }' "$tmp/metrics")
serr=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["errors"])' "$tmp/status.json")
check_true "sigcrawl_errors_total adds up to /status's errors ($merr, $serr)" \
	test "$merr" = "$serr"
check_true "robots.txt refusals are counted as skipped, not errors" \
	grep -q '^sigcrawl_skipped_total{reason="robots_disallowed"} ' "$tmp/metrics"
# Held hosts are not also counted as waiting for their delay: with the 25
# hosts that answer 429 and the one that refuses connections, the page
# lists more hosts held or waiting than it counts as delayed by politeness.
check_true "held and Retry-After hosts are not counted as delayed" python3 -c '
import json, sys
st = json.load(open(sys.argv[1]))
sys.exit(not (st["hosts_delayed"] + st["hosts_held"] + st["hosts_waiting"]
              <= st["hosts"]))' "$tmp/status.json"
# Running with only held and Retry-After hosts left: it says what for.
check_true "/status says what the running crawl waits for" python3 -c '
import json, sys
st = json.load(open(sys.argv[1]))
w = st.get("waiting_for") or ""
sys.exit(not (st["state"] == "running" and
              w.startswith("1 held host (unreachable) and 25 hosts after Retry-After; the next try in ")))' "$tmp/status.json"
check_true "and so does the page" grep -q '<span id="waiting-for" class="dim">waiting for 1 held host (unreachable) and 25 hosts after Retry-After; the next try in [0-9]* s</span>' "$tmp/dom"
# Harvest with three decimals, as /status has it; here (keywords at
# min_relevance 0) not measured, and the cell says why.
check_true "harvest: three decimals, or not measured and why" python3 -c '
import re, sys
d = open(sys.argv[1]).read()
m = re.search(r"<td([^>]*data-c=\"harvest\"[^>]*)>([^<]*)<", d)
sys.exit(not (m and (re.fullmatch(r"[0-9]\.[0-9]{3}", m.group(2)) or
    (m.group(2) == "–" and "not measured: at min_relevance 0" in m.group(1)))))' "$tmp/dom"

# Top-N: 26 hosts wait or are held, the page lists 10 and says so.
rows=$(python3 -c '
import re, sys
d = open(sys.argv[1]).read()
t = re.search(r"<table id=\"why\">.*?<tbody>(.*?)</tbody>", d, re.S).group(1)
print(t.count("<tr"))' "$tmp/dom")
check_true "hosts waiting or held: 10 rows listed (${rows:-?})" test "${rows:-0}" -eq 10
check_true "and the page says how many more: 16" \
	grep -q '16 more hosts waiting or held not shown' "$tmp/dom"

browse 1280,1500 /dev/null --screenshot="$outdir/dashboard.png"
check_true "a screenshot: $outdir/dashboard.png" test -s "$outdir/dashboard.png"
browse 390,844 "$tmp/dom-phone" --dump-dom
check_true "on a phone (390 px), the page fits the width" \
	grep -q 'data-overflow="false"' "$tmp/dom-phone"
browse 390,1800 /dev/null --screenshot="$outdir/dashboard-phone.png"
check_true "a phone-sized screenshot: $outdir/dashboard-phone.png" \
	test -s "$outdir/dashboard-phone.png"
if grep -q 'CONSOLE' "$tmp/chrome.log"; then
	fail "Chromium's console has messages" "$(grep CONSOLE "$tmp/chrome.log" | head -5)"
else
	pass "Chromium's console has no message (4 page loads)"
fi

# What the page polls and links to.
get "$url/history" >"$tmp/hist"
check_true "/history: the last hour's rate, one figure per 10 s" \
	grep -Eq '^\{"step_s":10(\.0)?,"pages_per_s":\[[0-9.,]+\]\}$' "$tmp/hist"
check_true "/rules: JSON, none under a fixed profile" \
	grep -q '^{"total":0,"rules":\[\]}$' <(get "$url/rules")

# Read-only, and not for other sites' pages.
code() { curl -s -o /dev/null --max-time 5 -w '%{http_code}' "$@"; }
check_true "POST /pause on the dashboard's port: 403" \
	test "$(code -X POST "$url/pause")" = 403
check_true "and the crawl was not paused" grep -q '"state":"idle"\|"state":"running"' <(status)
check_true "a request from another site's page (Origin): 403" \
	test "$(code -H 'Origin: http://evil.example' "$url/status")" = 403
check_true "a rebound DNS name (Host: evil.example): 403" \
	test "$(code -H 'Host: evil.example' "$url/")" = 403
check_true "Host: localhost and a loopback Origin are fine" \
	test "$(code -H "Host: localhost:$dport" -H "Origin: http://127.0.0.1:$dport" "$url/status")" = 200
check_true "POST /pause on the control socket still works" \
	grep -q '"state":"paused"' <(curl -s --max-time 5 --unix-socket "$tmp/ctl.sock" -X POST http://x/pause)

kill -TERM "$spid"
wait "$spid"
rc=$?
spid=
check_true "serve stops on SIGTERM (status $rc)" test "$rc" -eq 0
finish
