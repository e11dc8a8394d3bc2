#!/bin/bash
# test-prometheus.sh SIGCRAWL FIXTURE SRCROOT — Prometheus for real: Debian's
# `prometheus` scrapes a daemon whose control socket is a TCP port, once a
# second; once it has scraped twice, a counter
# (sigcrawl_pages_fetched_total) and gauges (sigcrawl_queue_depth,
# sigcrawl_hosts) read through its HTTP API equal /status.  `promtool check
# metrics` finds nothing to say about the exposition.  And the Grafana
# board packaging/grafana/sigcrawl.json asks only for series the daemon
# exports (tests/grafana-check.py: every metric name in every PromQL
# expression is in /metrics, and Prometheus answers each expression).
#
# Skipped (exit 77) only when prometheus is not installed; .ci/install-deps
# installs it (packaging/test-deps.txt), so CI runs it.
set -u
sigcrawl=$1
fixture=$2
srcroot=$3
. "$(dirname "$0")/crawl-lib.sh"
if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
	echo "SKIP: prometheus is not installed (Debian: apt-get install" \
		"prometheus; .ci/install-deps installs it)"
	finished=1
	exit 77
fi
spid=
ppid_=
on_exit()
{
	[ -n "$ppid_" ] && kill "$ppid_" 2>/dev/null
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null
	[ -n "$fpid" ] && kill "$fpid" 2>/dev/null
}

cat >"$tmp/web" <<'EOF'
site s1.test pages=60 links=3-6 fanout=3 cross=0 seed=21 size=1500
site s2.test pages=40 links=3-6 fanout=3 cross=0 seed=22 size=1500
host e.test
page / 404 text/html
EOF
start_fixture "$tmp/web" "$tmp/flog"
printf 'http://s1.test/\nhttp://s2.test/\nhttp://e.test/\n' >"$tmp/seeds.txt"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
cport=$(free_port)
cat >"$tmp/serve.conf" <<EOF
[crawl]
store = store
per_host_delay_ms = 0
connect_to = ::127.0.0.1:$port
[control]
listen = tcp:127.0.0.1:$cport
[category web]
seeds = seeds.txt
keywords = alpha, news
EOF
(cd "$tmp" && exec "$sigcrawl" serve -c serve.conf) 2>"$tmp/serve.log" &
spid=$!
ctl=http://127.0.0.1:$cport
done_crawl() { curl -s --max-time 5 "$ctl/status" | grep -q '"state":"idle".*"rate":0[,.]'; }
check_true "the daemon crawls the web and is idle" wait_until 60 done_crawl
curl -s --max-time 5 "$ctl/metrics" >"$tmp/metrics"
promtool check metrics <"$tmp/metrics" >"$tmp/promtool" 2>&1
rc=$?
check_true "promtool check metrics: no problem (status $rc) $(head -c 200 "$tmp/promtool")" \
	test "$rc" -eq 0 -a ! -s "$tmp/promtool"

pport=$(free_port)
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: sigcrawl
    static_configs:
      - targets: ['127.0.0.1:$cport']
EOF
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >"$tmp/prom.log" 2>&1 &
ppid_=$!
api=http://127.0.0.1:$pport/api/v1
# The value of an instant query, or nothing.
query()
{
	curl -s --max-time 5 --data-urlencode "query=$1" "$api/query" |
		python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)["data"]["result"]
    print(r[0]["value"][1] if r else "")
except Exception:
    pass'
}
scraped() { local n; n=$(query 'count_over_time(up{job="sigcrawl"}[5m])'); [ "${n:-0}" -ge 2 ] 2>/dev/null; }
check_true "Prometheus scraped the daemon twice" wait_until 30 scraped
check_true "and the target is up" test "$(query 'up{job="sigcrawl"}')" = 1
st=$(curl -s --max-time 5 "$ctl/status")
num() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" <<<"$st"; }
pages=$(num pages)
got=$(query 'sigcrawl_pages_fetched_total{class="2xx"}')
check_true "counter: sigcrawl_pages_fetched_total{class=\"2xx\"} = $got, /status pages $pages" \
	test -n "$got" -a "$got" = "$pages"
got=$(query 'sigcrawl_pages_fetched_total{class="4xx"}')
check_true "counter: sigcrawl_pages_fetched_total{class=\"4xx\"} = 1 ($got)" test "$got" = 1
got=$(query 'sigcrawl_queue_depth')
check_true "gauge: sigcrawl_queue_depth = $got, /status queue $(num queue)" \
	test -n "$got" -a "$got" = "$(num queue)"
got=$(query 'sigcrawl_hosts')
check_true "gauge: sigcrawl_hosts = $got, /status hosts $(num hosts)" \
	test -n "$got" -a "$got" = "$(num hosts)"
got=$(query 'sigcrawl_errors_total{kind="http_error"}')
check_true "counter: sigcrawl_errors_total{kind=\"http_error\"} = 1 ($got)" test "$got" = 1

# The Grafana board: its expressions name exported series, and Prometheus
# evaluates every one of them without an error.
python3 "$(dirname "$0")/grafana-check.py" "$srcroot/packaging/grafana/sigcrawl.json" \
	"$srcroot/crawler/daemon/control-answer.c" "$tmp/metrics" "$api" >"$tmp/grafana" 2>&1
rc=$?
if [ $rc -eq 0 ]; then
	pass "Grafana board: $(tail -1 "$tmp/grafana")"
else
	fail "Grafana board" "$(grep -v '^ok' "$tmp/grafana" | head -10)"
fi

kill "$ppid_"
wait "$ppid_" 2>/dev/null
ppid_=
kill -TERM "$spid"
wait "$spid"
rc=$?
spid=
check_true "serve stops on SIGTERM (status $rc)" test "$rc" -eq 0
finish
