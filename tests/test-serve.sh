#!/bin/bash
# test-serve.sh SIGCRAWL FIXTURE [KILLS] — the daemon: `serve` against the
# fixture web, seeds through `submit`, progress through `status` and
# /metrics, pause and resume, SIGHUP reloads (a changed config, an invalid
# one), malformed requests, SIGTERM; then a soak of KILLS (default 50)
# random kill -9 and restarts during one crawl, after which every page was
# fetched and none fetched again once committed (as test-crawl-kill.sh).
set -u
sigcrawl=$1
fixture=$2
kills=${3:-50}
. "$(dirname "$0")/crawl-lib.sh"
spid=
on_exit()
{
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null
	[ -n "$fpid" ] && kill "$fpid" 2>/dev/null
}

cat >"$tmp/web" <<'EOF'
site s1.test pages=200 links=3-6 fanout=3 cross=0 seed=21 size=1500
site s2.test pages=100 links=3-6 fanout=3 cross=0 seed=22 size=1500
site r.test pages=30 links=2-4 fanout=3 cross=0 seed=23 size=1000
host rx.test
page / 200 text/html links=http://ry.test/
host ry.test
page / 200 text/html
site k1.test pages=400 links=4-8 fanout=4 cross=0 seed=11 size=2000
site k2.test pages=400 links=4-8 fanout=4 cross=0 seed=12 size=2000
site k3.test pages=400 links=4-8 fanout=4 cross=0 seed=13 size=2000
EOF
start_fixture "$tmp/web" "$tmp/log"
sock=$tmp/ctl.sock
ctl=(--control "unix:$sock")

write_conf()
{
	cat >"$tmp/serve.conf" <<EOF
[crawl]
store = store
max_depth = 20
per_host_delay_ms = ${1:-0}
concurrency = 8
connect_to = ::127.0.0.1:$port
[control]
listen = unix:ctl.sock
[category web]
EOF
}
write_conf

# Wait (at most 10 s) for a status matching the regular expression.
wait_status()
{
	for _ in $(seq 200); do
		"$sigcrawl" status "${ctl[@]}" 2>/dev/null | grep -Eq "$1" && return 0
		sleep 0.05
	done
	return 1
}
wait_socket() { for _ in $(seq 200); do [ -S "$sock" ] && return 0; sleep 0.05; done; return 1; }
field() { "$sigcrawl" status "${ctl[@]}" | sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p"; }
http() { curl -s --max-time 5 --unix-socket "$sock" -o "$tmp/body" -w '%{http_code}' "$@" "http://x$path"; }

# ---------------------------------------------------------------------
# Start, submit, watch, pause, resume.
"$sigcrawl" serve -c "$tmp/serve.conf" 2>"$tmp/serve.err" &
spid=$!
check_true "the control socket appears" wait_socket
check_true "the socket's mode is 0660 ($(stat -c %a "$sock"))" [ "$(stat -c %a "$sock")" = 660 ]
check_true "status says idle before any seed" wait_status '"state":"idle".*"pages":0,'
"$sigcrawl" status >/dev/null 2>&1 --control "unix:$tmp/nothing.sock"
check_true "status exits 1 when the daemon cannot be reached" [ $? -eq 1 ]

path=/pause http -X POST >/dev/null
check_true "paused" wait_status '"state":"paused"'
printf 'http://s1.test/\n# a comment\n\nftp://s1.test/x\nhttp://s2.test/\nhttp://[::1\n' >"$tmp/seeds"
"$sigcrawl" submit "${ctl[@]}" --category web - <"$tmp/seeds" >"$tmp/out"
rc=$?
check_true "submit exits 0 ($rc)" [ $rc -eq 0 ]
check_true "submit: 2 accepted" grep -qx 'accepted 2' "$tmp/out"
check_true "submit: rejected line 4 with its reason" grep -q '^rejected line 4: ftp://s1.test/x: unsupported scheme' "$tmp/out"
check_true "submit: rejected line 6" grep -q '^rejected line 6: http://\[::1: ' "$tmp/out"
check_true "the seeds are queued while paused" wait_until 10 eval '[ "$(field queue)" = 2 ]'
check_true "nothing fetched while paused" [ "$(field pages)" = 0 ]
# The fixture logs arrivals on CLOCK_MONOTONIC: no request may come
# before the resume (checked below, once the crawl has run).
t_resume=$(python3 -c 'import time; print(int(time.monotonic() * 1000))')
path=/resume http -X POST >/dev/null
check_true "running after resume, pages grow" wait_status '"state":"running".*"pages":[1-9]|"pages":[1-9][0-9]*,'
check_true "the crawl of s1 and s2 completes (300 pages)" wait_status '"state":"idle","pages":300,'
first=$(awk -F'\t' '$3 == "req" && $4 ~ /^s[12]\.test/ { print $1; exit }' "$tmp/log")
check_true "no request while paused (first at $((${first:-0} - t_resume)) ms after the resume)" \
	test "${first:-0}" -ge "$t_resume"
"$sigcrawl" submit "${ctl[@]}" --category web http://s1.test/ http://S1.test:80/ >"$tmp/out"
check_true "submit again: already known 2" grep -qx 'already known 2' "$tmp/out"
"$sigcrawl" submit "${ctl[@]}" --category nosuch http://s1.test/ >/dev/null 2>"$tmp/out"
rc=$?
check_true "an unknown category exits 2 ($rc)" [ $rc -eq 2 ]
check_true "... and says why" grep -q "unknown category 'nosuch'" "$tmp/out"
"$sigcrawl" submit "${ctl[@]}" >/dev/null 2>&1 http://s1.test/
check_true "submit without --category exits 2" [ $? -eq 2 ]

path=/metrics http >/dev/null
check_true "metrics: 300 pages in 2xx" grep -qx 'sigcrawl_pages_fetched_total{class="2xx"} 300' "$tmp/body"
check_true "metrics: the histogram counts 300 transfers" grep -qx 'sigcrawl_fetch_duration_seconds_count 300' "$tmp/body"
check_true "metrics: +Inf bucket equals the count" grep -qx 'sigcrawl_fetch_duration_seconds_bucket{le="+Inf"} 300' "$tmp/body"
check_true "metrics: queue depth 0" grep -qx 'sigcrawl_queue_depth 0' "$tmp/body"
check_true "metrics: bytes" grep -qx 'sigcrawl_bytes_total 450000' "$tmp/body"
check_true "metrics: errors by kind" grep -q '^sigcrawl_errors_total{kind="http_error"} 0$' "$tmp/body"
check_true "metrics: TYPE lines" [ "$(grep -c '^# TYPE ' "$tmp/body")" -ge 10 ]
requested=$(awk -F'\t' '$3 == "req" && $6 != "/robots.txt" && ($4 == "s1.test" || $4 == "s2.test")' "$tmp/log" | wc -l)
check_true "each of the 300 pages requested once ($requested)" [ "$requested" -eq 300 ]

# ---------------------------------------------------------------------
# Malformed requests: 4xx and a JSON error, the daemon stays.
code=$(path=/seeds http -X POST -H 'Content-Type: application/json' --data-binary '{"category": "web", "urls": [')
check_true "truncated JSON: 400 ($code)" [ "$code" = 400 ]
check_true "... with a JSON error" grep -q '^{"error": *"bad JSON' "$tmp/body"
code=$(path=/seeds http -X POST -H 'Content-Type: application/json' --data-binary '[1,2]')
check_true "JSON not an object: 400 ($code)" [ "$code" = 400 ]
code=$(path=/seeds http -X POST -H 'Content-Type: application/json' --data-binary '{"category": 5, "urls": []}')
check_true "category not a string: 400 ($code)" [ "$code" = 400 ]
code=$(path=/seeds http -X POST -H 'Content-Type: application/json' --data-binary '{"category": "web", "urls": ["http://s1.test/", 7, "http://r.test/x"]}')
check_true "JSON seeds: 200 ($code)" [ "$code" = 200 ]
check_true "... a non-string URL is a rejected line" grep -q '"line":2,"url":"","reason":"not a string"' "$tmp/body"
code=$(path=/seeds http -X POST -H 'Content-Type: image/png' --data-binary 'x')
check_true "wrong content type: 415 ($code)" [ "$code" = 415 ]
code=$(path=/seeds http -X POST --data-binary 'http://s1.test/')
check_true "no category: 400 ($code)" [ "$code" = 400 ]
head -c 2000000 /dev/zero | tr '\0' 'a' >"$tmp/big"
code=$(path='/seeds?category=web' http -X POST -H 'Content-Type: text/plain' --data-binary @"$tmp/big")
check_true "a 2 MB body: 413 ($code)" [ "$code" = 413 ]
seq 10001 | sed 's|^|http://s1.test/|' >"$tmp/many"
code=$(path='/seeds?category=web' http -X POST -H 'Content-Type: text/plain' --data-binary @"$tmp/many")
check_true "10001 lines: 413 ($code)" [ "$code" = 413 ]
code=$(path=/status http -X POST)
check_true "POST /status: 405 ($code)" [ "$code" = 405 ]
code=$(path=/seeds http)
check_true "GET /seeds: 405 ($code)" [ "$code" = 405 ]
code=$(path=/nothing http)
check_true "unknown path: 404 ($code)" [ "$code" = 404 ]
code=$(path='/seeds?category=%zz%' http -X POST --data-binary 'x')
check_true "bad query: 4xx ($code)" [ "${code:0:1}" = 4 ]
# Raw bytes on the socket: a truncated body, garbage, a huge header.
python3 - "$sock" <<'EOF'
import socket, sys
def send(data, read=True):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    s.connect(sys.argv[1])
    s.sendall(data)
    s.shutdown(socket.SHUT_WR)
    try:
        while read and s.recv(4096):
            pass
    except OSError:
        pass
    s.close()
send(b"POST /seeds?category=web HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nhttp://s1")
send(b"\x00\xff garbage \r\n\r\n")
send(b"GET /status HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 100000 + b"\r\n\r\n")
send(b"POST /seeds HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
send(b"GET /status HTTP/1.1\r\nHost: x\r\n\r\n", read=False)
EOF
check_true "the daemon is still alive after malformed requests" kill -0 "$spid"
check_true "and still answers" wait_status '"state":"idle"'

# ---------------------------------------------------------------------
# SIGHUP: a changed config (a new category with a seed file, a delay),
# then an invalid one, which is refused.
echo 'http://r.test/' >"$tmp/r-seeds"
echo 'http://rx.test/' >"$tmp/rx-seeds"
write_conf 5
printf '[category rcat]\nseeds = r-seeds\nscope = any\n' >>"$tmp/serve.conf"
printf '[category rxcat]\nseeds = rx-seeds\nscope = host\n' >>"$tmp/serve.conf"
sed -i 's|^store = store|store = elsewhere|' "$tmp/serve.conf"
kill -HUP "$spid"
check_true "after the reload, r.test's 30 pages and rx.test/ are crawled (frontier kept)" wait_status '"state":"idle","pages":332,'
check_true "the reload is logged" grep -q 'reloaded .*serve.conf: 3 categories' "$tmp/serve.err"
check_true "a category added by a reload keeps to its scope (ry.test not fetched)" [ "$(requests ry.test / "$tmp/log")" -eq 0 ]
check_true "a changed store is refused with a log line" grep -q 'warning: reload: .*\[crawl\] store cannot change' "$tmp/serve.err"
"$sigcrawl" submit "${ctl[@]}" --category rcat http://r.test/p1 >"$tmp/out"
check_true "the new category takes seeds" grep -qx 'already known 1' "$tmp/out"
echo 'max_depth = lots' >>"$tmp/serve.conf"
kill -HUP "$spid"
check_true "an invalid config is refused, naming file and line" wait_until 10 grep -q "error: reload refused, the running config stays: .*serve.conf:[0-9]*: .*max_depth" "$tmp/serve.err"
check_true "the daemon still runs with the old one" wait_status '"state":"idle"'
"$sigcrawl" submit "${ctl[@]}" --category rcat http://r.test/ >"$tmp/out"
check_true "the category of the old config still takes seeds" grep -qx 'already known 1' "$tmp/out"
check_true "serve --check-config refuses it (exit 2)" bash -c '"$0" serve -c "$1" --check-config 2>/dev/null; [ $? -eq 2 ]' "$sigcrawl" "$tmp/serve.conf"

# SIGTERM while crawling: paused with a seed, resumed, then stopped.
write_conf 0
kill -HUP "$spid"
t0=$(date +%s%N)
kill -TERM "$spid"
wait "$spid"
rc=$?
t1=$(date +%s%N)
spid=
check_true "SIGTERM: exit 0 ($rc)" [ $rc -eq 0 ]
check_true "SIGTERM: stopped within 3 s ($(( (t1 - t0) / 1000000 )) ms)" [ $(( (t1 - t0) / 1000000 )) -lt 3000 ]
check_true "the socket is removed" [ ! -e "$sock" ]
n=$("$sigcrawl" export --store "$tmp/store" | grep -c '"fetched":true')
check_true "the store holds the 332 pages ($n)" [ "$n" -eq 332 ]

# ---------------------------------------------------------------------
# Soak: kill -9 at random moments of one crawl, restart, repeat.
rm -rf "$tmp/store"
printf 'http://k1.test/\nhttp://k2.test/\nhttp://k3.test/\n' >"$tmp/k-seeds"
# 25 ms between requests to a host: the crawl lasts longer than the kills.
write_conf 25
sed -i 's|^\[category web\]|[category web]\nseeds = k-seeds|' "$tmp/serve.conf"
total=1200
committed()
{
	if [ -f "$tmp/store/data.mdb" ]; then
		"$sigcrawl" export --store "$tmp/store" | grep '"fetched":true' |
			sed -n 's/.*"normalized":"http:\/\/\([^/]*\)\([^"]*\)".*/\1 \2/p' | sort
	fi
}
requested_since() { tail -n +"$1" "$tmp/log" | awk -F'\t' '$3 == "req" && $6 != "/robots.txt" && $4 ~ /^k/ { print $4, $6 }' | sort; }
first=$(($(wc -l <"$tmp/log") + 1))
refetched=0
killed=0
busy=0
RANDOM=777
for i in $(seq "$kills"); do
	committed >"$tmp/before"
	start=$(($(wc -l <"$tmp/log") + 1))
	"$sigcrawl" serve -c "$tmp/serve.conf" 2>/dev/null &
	pid=$!
	sleep "0.$(printf '%03d' $((50 + RANDOM % 250)))"
	if [ "$i" -eq $((kills / 2)) ]; then
		# One SIGTERM mid-crawl: a clean stop, quickly, exit 0.
		t0=$(date +%s%N)
		kill -TERM "$pid"
		wait "$pid"
		rc=$?
		ms=$((($(date +%s%N) - t0) / 1000000))
		check_true "SIGTERM mid-crawl: exit 0 ($rc) within 3 s ($ms ms)" [ "$rc" -eq 0 -a "$ms" -lt 3000 ]
	fi
	kill -9 "$pid" 2>/dev/null && killed=$((killed + 1))
	[ "$(requested_since "$start" | wc -l)" -gt 0 ] && busy=$((busy + 1))
	wait "$pid" 2>/dev/null
	n=$(comm -12 "$tmp/before" <(requested_since "$start" | uniq) | wc -l)
	refetched=$((refetched + n))
done
check_true "no committed page fetched again over $kills runs ($killed kill -9)" [ "$refetched" -eq 0 ]
check_true "every other run was killed ($killed of $kills)" [ "$killed" -eq $((kills - 1)) ]
check_true "most runs were killed while fetching ($busy of $kills)" [ "$busy" -ge $((kills / 2)) ]
committed >"$tmp/before"
n=$(wc -l <"$tmp/before")
check_true "the killed runs committed part of the crawl ($n of $total)" [ "$n" -gt 50 -a "$n" -lt "$total" ]
start=$(($(wc -l <"$tmp/log") + 1))
"$sigcrawl" serve -c "$tmp/serve.conf" 2>/dev/null &
spid=$!
check_true "the last run finishes the crawl ($total pages)" wait_status "\"state\":\"idle\".*\"queue\":0,"
kill -TERM "$spid"
wait "$spid"
rc=$?
spid=
check_true "the last run exits 0 on SIGTERM ($rc)" [ $rc -eq 0 ]
n=$(comm -12 "$tmp/before" <(requested_since "$start" | uniq) | wc -l)
check_true "the last run fetched no committed page again ($n)" [ "$n" -eq 0 ]
committed >"$tmp/final"
check_true "every page recorded as fetched ($(wc -l <"$tmp/final") of $total)" [ "$(wc -l <"$tmp/final")" -eq "$total" ]
dups=$("$sigcrawl" export --store "$tmp/store" | sed -n 's/.*"normalized":"\([^"]*\)".*/\1/p' | sort | uniq -d | wc -l)
check_true "one record per URL" [ "$dups" -eq 0 ]
every=$(requested_since "$first" | uniq | wc -l)
check_true "every page requested ($every of $total)" [ "$every" -eq "$total" ]

finish
