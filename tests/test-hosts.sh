#!/bin/bash
# test-hosts.sh SIGCRAWL FIXTURE — hosts that cannot be reached (crawl.h,
# SPEC §8, RFC 9309 §2.3.1): refused connections, a name that does not
# resolve, a TLS handshake that fails, a robots.txt that answers 503 or
# 429 or redirects to itself, pages that answer 429, 503 and 500; beside
# healthy hosts.  A crawl retries an unreachable host with growing gaps,
# then gives it up: every URL of it is recorded with the reason and the
# crawl ends, while the healthy hosts are crawled at their own pace.  The
# daemon keeps an unreachable host held (never given up), crawls what is
# submitted later, and `status` names the host, the reason and the tries.
set -u
sigcrawl=$1
fixture=$2
. "$(dirname "$0")/crawl-lib.sh"
spid=
on_exit()
{
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null
	[ -n "$fpid" ] && kill "$fpid" 2>/dev/null
}

# late.test answers after the dead hosts are given up, with a link to one
# of them: a URL queued for a host after it was given up.
cat >"$tmp/web" <<'EOF'
site ok.test pages=12 links=2-4 fanout=3 cross=0 seed=5 size=500
host late.test
page /            200 text/html delay=4000 links=http://refused.test/after
host r5xx.test
page /robots.txt  503
page /            200 text/html
host r429.test
page /robots.txt  429
page /            200 text/html
host rloop.test
page /robots.txt  301 location=/robots.txt
page /            200 text/html links=/a
page /a           200 text/html
default 404
host busy.test
page /            200 text/html links=/429,/503,/500
page /429         429 header="Retry-After: 1"
page /503         503 header="Retry-After: 1"
page /500         500
host busy2.test
page /            200 text/html links=/429,/p1,/p2,/p3,/p4,/p5,/p6,/p7,/p8
page /429         429 header="Retry-After: 1"
page /p1          200 text/html
page /p2          200 text/html
page /p3          200 text/html
page /p4          200 text/html
page /p5          200 text/html
page /p6          200 text/html
page /p7          200 text/html
page /p8          200 text/html
EOF
cat >"$tmp/seeds" <<'EOF'
http://ok.test/
http://late.test/
http://refused.test/
http://refused.test/2
http://unresolvable.invalid/
https://tls.test/
http://r5xx.test/
http://r429.test/
http://rloop.test/
http://busy.test/
http://busy2.test/
EOF

# The name that does not resolve: a label of 70 bytes, which the resolver
# refuses (RFC 1035 allows 63) before it asks any server, so the failure
# is immediate and the same on every machine.  tls.test speaks TLS to the
# fixture's plain HTTP port; refused.test goes to port 1, where nothing
# listens.
long=$(printf 'a%.0s' $(seq 70)).invalid
write_conf()
{
	cat >"$tmp/$1.conf" <<EOF
[crawl]
store = $1
per_host_delay_ms = 0
timeout_s = 5
host_retries = 3
host_backoff_ms = 300
connect_to = refused.test::127.0.0.1:1
connect_to = unresolvable.invalid::$long:
connect_to = tls.test::127.0.0.1:$port
connect_to = ::127.0.0.1:$port
[control]
listen = unix:$1.sock
[category web]
scope = any
EOF
}

start_fixture "$tmp/web" "$tmp/log"
write_conf crawl
timeout 60 "$sigcrawl" crawl -c "$tmp/crawl.conf" --seeds "$tmp/seeds" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
stop_fixture
check_true "the crawl ends by itself with exit 0 (got $rc; 124: still running after 60 s)" [ "$rc" -eq 0 ]
"$sigcrawl" export --store "$tmp/crawl" >"$tmp/export"

# kind URL — the error of URL's record ("null" if none, "" if no record).
kind()
{
	grep -F "\"normalized\":\"$1\"" "$tmp/export" | head -1 |
		sed -n 's/.*"error":\([^,]*\),.*/\1/p' | tr -d '"'
}
# unfetched URL KIND — URL recorded, not fetched, with error KIND.
unfetched()
{
	grep -F "\"normalized\":\"$1\"" "$tmp/export" |
		grep -q "\"fetched\":false.*\"error\":\"$2\""
}
check_true "refused: the seed is recorded as connect, not fetched" unfetched http://refused.test/ connect
check_true "refused: a second URL of the host (a parked lease) too" unfetched http://refused.test/2 connect
check_true "refused: a URL found after the host was given up too" unfetched http://refused.test/after connect
check_true "unresolvable: recorded as dns" unfetched http://unresolvable.invalid/ dns
check_true "TLS failure: recorded as tls" unfetched https://tls.test/ tls
check_true "robots.txt 503: recorded as robots_unreachable" unfetched http://r5xx.test/ robots_unreachable
check_true "robots.txt 429: recorded as robots_unreachable" unfetched http://r429.test/ robots_unreachable
check_true "no page of a robots-unreachable host fetched" test "$(requests r5xx.test / "$tmp/log")" -eq 0 -a "$(requests r429.test / "$tmp/log")" -eq 0
k=$(kind http://rloop.test/)
check_true "robots.txt redirecting to itself counts as unavailable (RFC 9309 2.3.1.2): the page is fetched (error '$k')" [ "$k" = null ]
check_true "... and the page it links to" grep -q '"normalized":"http://rloop.test/a".*"status":200' "$tmp/export"
check_true "... after one try of six requests (1 + 5 redirects)" [ "$(requests rloop.test /robots.txt "$tmp/log")" -eq 6 ]
ok_pages=$(grep -c '"normalized":"http://ok.test/[^"]*".*"status":200,"fetched":true' "$tmp/export")
check_true "the healthy host is crawled completely (12 pages: $ok_pages)" [ "$ok_pages" -eq 12 ]
check_true "... each page requested once" [ "$(awk -F'\t' '$3 == "req" && $4 == "ok.test" && $6 != "/robots.txt"' "$tmp/log" | wc -l)" -eq 12 ]
check_true "every seed is recorded" [ "$(grep -c '"depth":0,' "$tmp/export")" -eq 11 ]

# The retries: four tries of each robots-unreachable host, the gaps at
# least 300, 600 and 1200 ms and growing.
gaps() { awk -F'\t' -v h="$1" '$3 == "req" && $4 == h && $6 == "/robots.txt" { if (p != "") printf "%d ", $1 - p; p = $1 }' "$tmp/log"; }
growing()
{
	local g=($1) min=300 prev=0
	[ "${#g[@]}" -eq 3 ] || return 1
	for x in "${g[@]}"; do
		[ "$x" -ge "$min" ] && [ "$x" -gt "$prev" ] || return 1
		prev=$x
		min=$((min * 2))
	done
}
g5=$(gaps r5xx.test)
check_true "robots.txt 503: 4 tries, gaps growing from 300 ms ($g5)" growing "$g5"
g4=$(gaps r429.test)
check_true "robots.txt 429: 4 tries, gaps growing from 300 ms ($g4)" growing "$g4"
check_true "the summary: 5 hosts given up" grep -q '^hosts given up 5 ' "$tmp/out"
check_true "... refused.test with its reason and tries" grep -q '^  refused.test: connect after 4 tries' "$tmp/out"
check_true "... unresolvable.invalid" grep -q '^  unresolvable.invalid: dns after 4 tries' "$tmp/out"
check_true "... tls.test" grep -q '^  tls.test: tls after 4 tries' "$tmp/out"
check_true "... r5xx.test, with the status" grep -q '^  r5xx.test: robots_unreachable after 4 tries (robots.txt answered 503)' "$tmp/out"
check_true "the errors by kind name the new kind" grep -q '^errors by kind: .*robots_unreachable 2' "$tmp/out"
# Nothing waited for the dead hosts: the healthy host was done before the
# last try of the first dead one (at least 2.1 s after its first).
ok_last=$(awk -F'\t' '$3 == "req" && $4 == "ok.test" { t = $1 } END { print t + 0 }' "$tmp/log")
r5_last=$(awk -F'\t' '$3 == "req" && $4 == "r5xx.test" { t = $1 } END { print t + 0 }' "$tmp/log")
check_true "the healthy host was not held up ($ok_last < $r5_last)" [ "$ok_last" -lt "$r5_last" ]
# Pages answering 429 and 503 with Retry-After are tried again a bounded
# number of times, then recorded; a 500 is recorded at once.
check_true "a 429 page: at most 4 requests ($(requests busy.test /429 "$tmp/log"))" [ "$(requests busy.test /429 "$tmp/log")" -le 4 ]
check_true "... recorded as http_error 429" grep -q '"normalized":"http://busy.test/429".*"status":429.*"error":"http_error"' "$tmp/export"
check_true "a 503 page recorded as http_error 503" grep -q '"normalized":"http://busy.test/503".*"status":503.*"error":"http_error"' "$tmp/export"
check_true "a 500 page: one request" [ "$(requests busy.test /500 "$tmp/log")" -eq 1 ]
# The bound is the page's: the host's other pages, answering in between,
# do not start its count again.
check_true "a 429 page among pages that answer: at most 4 requests ($(requests busy2.test /429 "$tmp/log"))" [ "$(requests busy2.test /429 "$tmp/log")" -le 4 ]
busy2_pages=$(for i in 1 2 3 4 5 6 7 8; do requests busy2.test "/p$i" "$tmp/log"; done | awk '{ n += $1 } END { print n + 0 }')
check_true "... and its host's 8 other pages fetched ($busy2_pages requests)" [ "$busy2_pages" -ge 8 ]

# A rerun has nothing left: the given-up URLs are recorded.
start_fixture "$tmp/web" "$tmp/log2"
write_conf crawl
timeout 30 "$sigcrawl" crawl -c "$tmp/crawl.conf" --quiet >/dev/null 2>&1
rc=$?
stop_fixture
check_true "a rerun ends with exit 0 ($rc)" [ "$rc" -eq 0 ]
check_true "... and requests nothing" [ ! -s "$tmp/log2" ]

# ---------------------------------------------------------------------
# Pages of unreachable hosts without robots.txt: the same retries, then
# the URLs are recorded with the request's error.
cat >"$tmp/seeds-nr" <<'EOF'
http://refused.test/
http://refused.test/2
http://unresolvable.invalid/
https://tls.test/
http://ok.test/
EOF
start_fixture "$tmp/web" "$tmp/log3"
write_conf norobots
timeout 60 "$sigcrawl" crawl -c "$tmp/norobots.conf" --seeds "$tmp/seeds-nr" \
	--no-robots >"$tmp/out3" 2>"$tmp/err3"
rc=$?
stop_fixture
check_true "--no-robots: the crawl ends with exit 0 (got $rc)" [ "$rc" -eq 0 ]
"$sigcrawl" export --store "$tmp/norobots" >"$tmp/export"
check_true "--no-robots: refused.test/ recorded as connect" grep -q '"normalized":"http://refused.test/".*"error":"connect"' "$tmp/export"
check_true "--no-robots: refused.test/2 recorded as connect" grep -q '"normalized":"http://refused.test/2".*"error":"connect"' "$tmp/export"
check_true "--no-robots: unresolvable.invalid recorded as dns" grep -q '"normalized":"http://unresolvable.invalid/".*"error":"dns"' "$tmp/export"
check_true "--no-robots: tls.test recorded as tls" grep -q '"normalized":"https://tls.test/".*"error":"tls"' "$tmp/export"
check_true "--no-robots: the connections were tried 4 times" grep -q '^  refused.test: connect after 4 tries' "$tmp/out3"
check_true "--no-robots: the healthy host crawled (12 pages)" [ "$(grep -c '"normalized":"http://ok.test/[^"]*".*"status":200' "$tmp/export")" -eq 12 ]

# ---------------------------------------------------------------------
# The daemon: an unreachable host is held, retried with growing gaps and
# never given up; a healthy host submitted later is crawled meanwhile;
# `status` names the held host, its reason and its tries.
start_fixture "$tmp/web" "$tmp/log4"
write_conf serve
sock=$tmp/serve.sock
ctl=(--control "unix:$sock")
"$sigcrawl" serve -c "$tmp/serve.conf" --verbose 2>"$tmp/serve.err" &
spid=$!
for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done
"$sigcrawl" submit "${ctl[@]}" --category web http://refused.test/ >/dev/null

# held_field KEY — KEY of the first held host in `status`, or nothing.
held_field()
{
	"$sigcrawl" status "${ctl[@]}" 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)
h = s.get("held") or [{}]
print(h[0].get(sys.argv[1], ""))' "$1" 2>/dev/null
}
# wait_tries N — wait (at most 20 s) until the held host has N tries.
wait_tries()
{
	for _ in $(seq 400); do
		t=$(held_field tries)
		[ -n "$t" ] && [ "$t" -ge "$1" ] && return 0
		sleep 0.05
	done
	return 1
}
check_true "serve: status lists the host held after its first failure" wait_tries 1
check_true "serve: ... named refused.test" [ "$(held_field host)" = refused.test ]
check_true "serve: ... for connect" [ "$(held_field reason)" = connect ]
check_true "serve: ... with the failure in words ($(held_field detail))" eval '[[ "$(held_field detail)" == *"Failed to connect"* ]]'
check_true "serve: status counts the hosts held" eval '"$sigcrawl" status "${ctl[@]}" | grep -q "\"hosts_held\":1"'

"$sigcrawl" submit "${ctl[@]}" --category web http://ok.test/ >/dev/null
ok_done()
{
	for _ in $(seq 400); do
		[ "$(awk -F'\t' '$3 == "done" && $4 == "ok.test" && $6 != "/robots.txt"' "$tmp/log4" | wc -l)" -ge 12 ] && return 0
		sleep 0.05
	done
	return 1
}
check_true "serve: a healthy host submitted later is crawled while the other is held" ok_done
# Past host_retries (3) the daemon still holds it: four failures and more.
check_true "serve: the held host is tried again and again, never given up" wait_tries 5
check_true "serve: ... still held" [ "$(held_field host)" = refused.test ]
check_true "serve: the next try is at most 1 h away ($(held_field retry_in_s) s)" python3 -c 'import sys; v = float(sys.argv[1]); sys.exit(not 0 <= v <= 3600)' "$(held_field retry_in_s)"
curl -s --max-time 5 --unix-socket "$sock" http://x/metrics >"$tmp/metrics"
check_true "serve: /metrics has the held hosts" grep -qx 'sigcrawl_hosts_held 1' "$tmp/metrics"
kill -TERM "$spid"
wait "$spid"
rc=$?
spid=
stop_fixture
check_true "serve: SIGTERM ends it with exit 0 ($rc)" [ "$rc" -eq 0 ]
gaps=$(grep -o 'try [0-9]*: held [0-9.]* s' "$tmp/serve.err" | awk '{ print $4 }' | tr '\n' ' ')
check_true "serve: the holds double (0.3 0.6 1.2 2.4 ...: $gaps)" eval '[[ "$gaps" == "0.3 0.6 1.2 2.4 "* ]]'
"$sigcrawl" export --store "$tmp/serve" >"$tmp/export"
check_true "serve: the held host's URL is still queued, not recorded" eval '! grep -q "\"normalized\":\"http://refused.test/\"" "$tmp/export"'

finish
