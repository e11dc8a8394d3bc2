#!/bin/bash
# dashboard-cost.sh BUILDDIR [ROUNDS] — what the dashboard costs the daemon.
#
# The same crawl (a generated web of 8 sites, 24,000 pages, served by the
# test fixture, no politeness delay) runs ROUNDS times (default 3) with
# the dashboard closed and ROUNDS times with it open in headless Chromium
# (the real page, polling /status and /history every 3 s), alternately,
# each on a fresh store.  The daemon starts without seeds; Chromium (when
# open) starts and the page polls for 5 s before the seeds are submitted,
# so that Chromium's own start does not compete with the crawl for the
# machine's cores.  For each run: the daemon's CPU time (user + system,
# /proc/PID/stat) from the submission until the crawl is idle, divided
# by the pages fetched.  Then, on the idle daemon, 3,000 polls (a GET
# /status and a GET /history each) measure the CPU of one poll, and so
# what polling every 3 s costs against a second of crawling.
#
# Prints each run, the medians, their ratio, and the per-poll estimate.
set -u
build=$(cd "${1:?usage: dashboard-cost.sh BUILDDIR [ROUNDS]}" && pwd)
rounds=${2:-3}
sigcrawl=$build/crawler/cli/sigcrawl
fixture=$build/tests/fixture/sc-fixture
chromium=$(command -v chromium || true)
[ -n "$chromium" ] || { echo "dashboard-cost: needs chromium" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-dashcost.XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT

for i in 1 2 3 4 5 6 7 8; do
	echo "site s$i.test pages=3000 links=4-8 fanout=4 cross=0 seed=$i size=3000"
	echo "http://s$i.test/" >>"$tmp/seeds.txt"
done >"$tmp/web"
"$fixture" --web "$tmp/web" --port-file "$tmp/port" --log /dev/null &
pids+=($!)
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
port=$(cat "$tmp/port")
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ticks=$(getconf CLK_TCK)
cpu_s() { awk -v t="$ticks" '{ print ($14 + $15) / t }' "/proc/$1/stat"; }

# run open|closed [x [polls]]: one crawl; prints "pages cpu_s wall_s".
run()
{
	local mode=$1 cport dir=$tmp/run spid cpid= t0 st
	rm -rf "$dir"
	mkdir -p "$dir"
	cport=$(free_port)
	cat >"$dir/serve.conf" <<EOF
[crawl]
store = store
per_host_delay_ms = 0
concurrency = 16
connect_to = ::127.0.0.1:$port
[control]
listen = tcp:127.0.0.1:$cport
[category web]
EOF
	(cd "$dir" && exec "$sigcrawl" serve -c serve.conf) 2>/dev/null &
	spid=$!
	until curl -s "http://127.0.0.1:$cport/status" >/dev/null 2>&1; do sleep 0.02; done
	if [ "$mode" = open ]; then
		"$chromium" --headless --no-sandbox --disable-gpu \
			--user-data-dir="$dir/chrome" --remote-debugging-port=0 \
			"http://127.0.0.1:$cport/" >/dev/null 2>&1 &
		cpid=$!
	fi
	sleep 5
	local c_start
	c_start=$(cpu_s "$spid")
	t0=$(date +%s.%N)
	curl -s --data-binary @"$tmp/seeds.txt" -H 'Content-Type: text/plain' \
		"http://127.0.0.1:$cport/seeds?category=web" >/dev/null
	while st=$(curl -s "http://127.0.0.1:$cport/status"); \
		! grep -q '"state":"idle","pages":[1-9]' <<<"$st"; do
		sleep 0.2
	done
	local cpu wall pages
	cpu=$(echo "$(cpu_s "$spid") - $c_start" | bc)
	wall=$(echo "$(date +%s.%N) - $t0" | bc)
	pages=$(sed -n 's/.*"pages":\([0-9]*\).*/\1/p' <<<"$st")
	if [ "$mode" = open ]; then
		# The polls the page made: the idle daemon answers them still.
		kill "$cpid"
		wait "$cpid" 2>/dev/null
	fi
	if [ "${3:-}" = polls ]; then
		local c0 c1
		c0=$(cpu_s "$spid")
		python3 - "$cport" <<'EOF'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
for _ in range(3000):
    for p in ("/status", "/history"):
        c.request("GET", p)
        c.getresponse().read()
EOF
		c1=$(cpu_s "$spid")
		echo "$(echo "($c1 - $c0) / 3000" | bc -l)" >"$tmp/per_poll"
	fi
	kill -TERM "$spid"
	wait "$spid" 2>/dev/null
	echo "$pages $cpu $wall"
}

closed=()
open=()
for r in $(seq "$rounds"); do
	read -r p c w < <(run closed)
	echo "closed: $p pages, CPU $c s, wall $w s, $(echo "$c * 1000000 / $p" | bc) µs/page"
	closed+=("$(echo "$c / $p" | bc -l)")
	extra=
	[ "$r" = "$rounds" ] && extra=polls
	read -r p c w < <(run open x "$extra")
	echo "open:   $p pages, CPU $c s, wall $w s, $(echo "$c * 1000000 / $p" | bc) µs/page"
	open+=("$(echo "$c / $p" | bc -l)")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
mc=$(median "${closed[@]}")
mo=$(median "${open[@]}")
printf 'median CPU per page: closed %.1f µs, open %.1f µs, open/closed %.4f\n' \
	"$(echo "$mc * 1000000" | bc -l)" "$(echo "$mo * 1000000" | bc -l)" \
	"$(echo "$mo / $mc" | bc -l)"
pp=$(cat "$tmp/per_poll")
printf 'one poll (GET /status + GET /history) on the idle daemon: %.1f µs of CPU;\n' \
	"$(echo "$pp * 1000000" | bc -l)"
printf 'every 3 s that is %.4f %% of one core\n' "$(echo "$pp / 3 * 100" | bc -l)"
