#!/bin/bash
# test-serve.sh SIGCRAWL FIXTURE [KILLS] — the daemon: `serve` against the
# fixture web, seeds through `submit`, progress through `status` and
# /metrics, pause and resume, malformed requests and their JSON errors,
# the bound on control connections, SIGHUP reloads (a changed config, an
# invalid one, [control] listen kept), SIGTERM; a second daemon under a
# 200-descriptor limit for held hosts, long and partly rejected or
# interrupted submissions, and 400 connections at once; then a soak of
# KILLS (default 50; SC_SERVE_KILLS overrides) random kill -9 and restarts
# during one crawl, after which every page was fetched and none fetched
# again once committed (as test-crawl-kill.sh).
set -u
sigcrawl=$1
fixture=$2
kills=${SC_SERVE_KILLS:-${3:-50}}
. "$(dirname "$0")/crawl-lib.sh"
spid=
bpid=
hpid=
on_exit()
{
	[ -n "$hpid" ] && kill "$hpid" 2>/dev/null
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null
	[ -n "$bpid" ] && kill -9 "$bpid" 2>/dev/null
	[ -n "$fpid" ] && kill "$fpid" 2>/dev/null
}

cat >"$tmp/web" <<'EOF'
site s1.test pages=200 links=3-6 fanout=3 cross=0 seed=21 size=1500
site s2.test pages=100 links=3-6 fanout=3 cross=0 seed=22 size=1500
site r.test pages=30 links=2-4 fanout=3 cross=0 seed=23 size=1000
host rx.test
page / 200 text/html links=http://ry.test/ title="alpha alpha news"
host ry.test
page / 200 text/html
site k1.test pages=400 links=4-8 fanout=4 cross=0 seed=11 size=2000
site k2.test pages=400 links=4-8 fanout=4 cross=0 seed=12 size=2000
site k3.test pages=400 links=4-8 fanout=4 cross=0 seed=13 size=2000
host ra.test
page / 429 text/html header="Retry-After: 3600"
host rc.test
page / 429 text/html header="Retry-After: 1"
host rb.test
page /robots.txt 200 text/plain body="" delay=4000
page / 200 text/html
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
http() { curl -s --max-time 5 --unix-socket "$sock" -o "$tmp/body" -D "$tmp/headers" -w '%{http_code}' "$@" "http://x$path"; }

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
check_true "submit exits 1 when lines are rejected, as normalize does ($rc)" [ $rc -eq 1 ]
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
# The rate, pages over the time since the start, once the first tick has
# taken it (299.7, not 299.70029970029969).
check_true "status: a rate once a second has passed" wait_status '"rate":[1-9]'
"$sigcrawl" status "${ctl[@]}" >"$tmp/status"
check_true "status: the rate to 0.1 ($(grep -o '"rate":[^,]*' "$tmp/status"))" grep -Eq '"rate":[0-9]+\.[0-9],' "$tmp/status"
check_true "status: the uptime to 0.001 s ($(grep -o '"uptime":[^,]*' "$tmp/status"))" grep -Eq '"uptime":[0-9]+\.[0-9]{1,3},' "$tmp/status"
check_true "status: the store's records and fetches, every run ($(grep -o '"store":{[^}]*}' "$tmp/status"))" grep -q '"store":{"records":300,"fetches":300}' "$tmp/status"
check_true "status: the category's figures" grep -q '"categories":\[{"name":"web","keywords":0,"pruned_scope":0,' "$tmp/status"
check_true "status: the category's looks" grep -q '"categories":\[{[^]]*"looks":0,' "$tmp/status"
check_true "status: no host waiting" grep -q '"hosts_waiting":0,"waiting":\[\]' "$tmp/status"
first=$(awk -F'\t' '$3 == "req" && $4 ~ /^s[12]\.test/ { print $1; exit }' "$tmp/log")
check_true "no request while paused (first at $((${first:-0} - t_resume)) ms after the resume)" \
	test "${first:-0}" -ge "$t_resume"
"$sigcrawl" submit "${ctl[@]}" --category web http://s1.test/ http://S1.test:80/ >"$tmp/out"
rc=$?
check_true "submit again: already known 2" grep -qx 'already known 2' "$tmp/out"
check_true "submit exits 0 when every line is taken ($rc)" [ $rc -eq 0 ]
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
json_error() { python3 -c 'import json, sys; sys.exit(not isinstance(json.load(open(sys.argv[1])).get("error"), str))' "$tmp/body"; }
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
check_true "... with a JSON error ($(head -c 100 "$tmp/body"))" json_error
code=$(path=/seeds http -X POST --data-binary 'http://s1.test/')
check_true "no category: 400 ($code)" [ "$code" = 400 ]
head -c 2000000 /dev/zero | tr '\0' 'a' >"$tmp/big"
code=$(path='/seeds?category=web' http -X POST -H 'Content-Type: text/plain' --data-binary @"$tmp/big")
check_true "a 2 MB body: 413 ($code)" [ "$code" = 413 ]
check_true "... with a JSON error, not evhttp's HTML ($(head -c 100 "$tmp/body"))" json_error
seq 10001 | sed 's|^|http://s1.test/|' >"$tmp/many"
code=$(path='/seeds?category=web' http -X POST -H 'Content-Type: text/plain' --data-binary @"$tmp/many")
check_true "10001 lines: 413 ($code)" [ "$code" = 413 ]
code=$(path=/status http -X POST)
check_true "POST /status: 405 ($code)" [ "$code" = 405 ]
check_true "... with Allow: GET, HEAD" grep -qix $'Allow: GET, HEAD\r' "$tmp/headers"
check_true "... and a JSON error" json_error
code=$(path=/seeds http)
check_true "GET /seeds: 405 ($code)" [ "$code" = 405 ]
check_true "... with Allow: POST" grep -qix $'Allow: POST\r' "$tmp/headers"
code=$(path=/nothing http)
check_true "unknown path: 404 ($code)" [ "$code" = 404 ]
check_true "... with a JSON error" json_error
code=$(path='/seeds?category=%zz%' http -X POST --data-binary 'x')
check_true "bad query: 4xx ($code)" [ "${code:0:1}" = 4 ]
code=$(path='/seeds?category=web' http -X POST -H 'Transfer-Encoding: chunked' -H 'Content-Type: text/plain' --data-binary $'http://s1.test/\nhttp://s2.test/\n')
check_true "a chunked body: 200 ($code)" [ "$code" = 200 ]
check_true "... read whole (2 known)" grep -q '"known":2,' "$tmp/body"
# Raw bytes on the socket: a truncated body, garbage, a huge header, a bad
# chunk, a client gone before the answer; then what HTTP/1.1 refuses, each
# answered with its status and a JSON error: NAME STATUS json|not-json.
python3 - "$sock" >"$tmp/raw" <<'EOF'
import json, re, socket, sys
def send(data, read=True):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    s.connect(sys.argv[1])
    try:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    out = b""
    try:
        while read:
            d = s.recv(65536)
            if not d:
                break
            out += d
    except OSError:
        pass
    s.close()
    return out
def answer(name, data):
    out = send(data)
    head, _, body = out.partition(b"\r\n\r\n")
    status = head.split(b" ")[1].decode() if head.startswith(b"HTTP/1.1 ") else "none"
    try:
        ok = isinstance(json.loads(body).get("error"), str)
    except ValueError:
        ok = False
    print(name, status, "json" if ok else "not-json")
send(b"POST /seeds?category=web HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nhttp://s1")
answer("garbage", b"\x00\xff garbage \r\n\r\n")
answer("header", b"GET /status HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 100000 + b"\r\n\r\n")
answer("chunk", b"POST /seeds HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
send(b"GET /status HTTP/1.1\r\nHost: x\r\n\r\n", read=False)
answer("body", b"POST /seeds?category=web HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 2000000\r\n\r\n" + b"a" * 2000000)
answer("version", b"GET /status HTTP/2.0\r\nHost: x\r\n\r\n")
answer("coding", b"POST /seeds HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n")
answer("expect", b"POST /seeds HTTP/1.1\r\nHost: x\r\nExpect: magic\r\nContent-Length: 3\r\n\r\nabc")
out = send(b"GET /status HTTP/1.1\r\nHost: x\r\n\r\nGET /no HTTP/1.1\r\nHost: x\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
print("pipelined", " ".join(m.decode() for m in re.findall(rb"HTTP/1\.1 ([0-9]+)", out)))
out = send(b"HEAD /status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
print("head", out.split(b" ")[1].decode(), len(out.partition(b"\r\n\r\n")[2]))
EOF
check_true "raw garbage: 400, JSON ($(grep '^garbage' "$tmp/raw"))" grep -qx 'garbage 400 json' "$tmp/raw"
check_true "raw 100 kB header: 431, JSON ($(grep '^header' "$tmp/raw"))" grep -qx 'header 431 json' "$tmp/raw"
check_true "raw bad chunk: 400, JSON ($(grep '^chunk' "$tmp/raw"))" grep -qx 'chunk 400 json' "$tmp/raw"
check_true "raw 2 MB body without Expect: 413, JSON ($(grep '^body' "$tmp/raw"))" grep -qx 'body 413 json' "$tmp/raw"
check_true "raw HTTP/2.0: 505, JSON ($(grep '^version' "$tmp/raw"))" grep -qx 'version 505 json' "$tmp/raw"
check_true "raw Transfer-Encoding: gzip: 501, JSON ($(grep '^coding' "$tmp/raw"))" grep -qx 'coding 501 json' "$tmp/raw"
check_true "raw Expect: magic: 417, JSON ($(grep '^expect' "$tmp/raw"))" grep -qx 'expect 417 json' "$tmp/raw"
check_true "three pipelined requests, three answers in order ($(grep '^pipelined' "$tmp/raw"))" grep -qx 'pipelined 200 404 200' "$tmp/raw"
check_true "HEAD /status: 200 without a body ($(grep '^head ' "$tmp/raw"))" grep -qx 'head 200 0' "$tmp/raw"
check_true "the daemon is still alive after malformed requests" kill -0 "$spid"
check_true "and still answers" wait_status '"state":"idle"'

# ---------------------------------------------------------------------
# At most 256 control connections: of 300 opened at once, the daemon
# holds 256 and the others wait in the backlog; once they close, it
# answers again.  hold.py SOCK N DIR opens N connections (a client that
# finds the backlog full tries again for a while), writes how many it got
# to DIR/ready, and closes them all when DIR/release appears.
cat >"$tmp/hold.py" <<'EOF'
import os, socket, sys, time
path, n, d = sys.argv[1], int(sys.argv[2]), sys.argv[3]
socks, failed = [], 0
for _ in range(n):
    s = socket.socket(socket.AF_UNIX)
    s.setblocking(False)
    for _ in range(5):
        try:
            s.connect(path)
            socks.append(s)
            break
        except BlockingIOError:
            time.sleep(0.01)
        except OSError:
            break
    else:
        failed += 1
        s.close()
with open(os.path.join(d, "ready.tmp"), "w") as f:
    f.write("%d %d\n" % (len(socks), failed))
os.rename(os.path.join(d, "ready.tmp"), os.path.join(d, "ready"))
for _ in range(1200):
    if os.path.exists(os.path.join(d, "release")):
        break
    time.sleep(0.05)
for s in socks:
    s.close()
EOF
fds() { ls "/proc/$1/fd" | wc -l; }
mkdir -p "$tmp/h1"
fd0=$(fds "$spid")
python3 "$tmp/hold.py" "$sock" 300 "$tmp/h1" &
hpid=$!
check_true "300 connections opened" wait_until 20 test -s "$tmp/h1/ready"
check_true "the daemon says it holds the most it may" wait_until 10 grep -q 'warning: control socket: 256 connections open, the most allowed' "$tmp/serve.err"
fd1=$(fds "$spid")
check_true "... and holds no more ($((fd1 - fd0)) descriptors more, of $(cat "$tmp/h1/ready"))" test $((fd1 - fd0)) -le 260
touch "$tmp/h1/release"
wait "$hpid"
hpid=
check_true "once they close, status answers" wait_status '"state":"idle"'
check_true "the limit was logged once" [ "$(grep -c 'connections open, the most allowed' "$tmp/serve.err")" -eq 1 ]

# ---------------------------------------------------------------------
# SIGHUP: a changed config (a new category with a seed file, a delay),
# then an invalid one, which is refused.
echo 'http://r.test/' >"$tmp/r-seeds"
echo 'http://rx.test/' >"$tmp/rx-seeds"
write_conf 5
printf '[category rcat]\nseeds = r-seeds\nscope = any\n' >>"$tmp/serve.conf"
printf '[category rxcat]\nseeds = rx-seeds\nscope = host\nkeywords = alpha\n' >>"$tmp/serve.conf"
sed -i 's|^store = store|store = elsewhere|' "$tmp/serve.conf"
kill -HUP "$spid"
check_true "after the reload, r.test's 30 pages and rx.test/ are crawled (frontier kept)" wait_status '"state":"idle","pages":332,'
check_true "the reload is logged" grep -q 'reloaded .*serve.conf: 3 categories' "$tmp/serve.err"
check_true "a category added by a reload keeps to its scope (ry.test not fetched)" [ "$(requests ry.test / "$tmp/log")" -eq 0 ]
"$sigcrawl" status "${ctl[@]}" >"$tmp/status"
cat_of() { grep -o "{\"name\":\"$1\"[^}]*}" "$tmp/status"; }
check_true "status: web's pages since the start, no harvest without keywords ($(cat_of web))" \
	sh -c "echo '$(cat_of web)' | grep -q '\"pages\":300,\"on_topic\":0,\"harvest\":null'"
check_true "status: rcat's pages ($(cat_of rcat))" \
	sh -c "echo '$(cat_of rcat)' | grep -q '\"keywords\":0,.*\"pages\":30,\"on_topic\":0,\"harvest\":null'"
check_true "status: rxcat's page on topic, no harvest at min_relevance 0 ($(cat_of rxcat))" \
	sh -c "echo '$(cat_of rxcat)' | grep -q '\"keywords\":1,.*\"min_relevance\":0.0,\"pages\":1,\"on_topic\":1,\"harvest\":null'"
check_true "a changed store is refused with a log line" grep -q 'warning: reload: .*\[crawl\] store cannot change' "$tmp/serve.err"
# [control] listen cannot change while the daemon runs: a reload asking
# for another socket is refused naming the one in use, and one that
# restores it says nothing (the running address is the daemon's, not the
# last config's).
reloads() { grep -c 'reloaded .*serve.conf' "$tmp/serve.err"; }
hup() { local n; n=$(reloads); kill -HUP "$spid"; wait_until 10 test "$(reloads)" -gt "$n"; }
sed -i 's|^listen = unix:ctl.sock|listen = unix:other.sock|' "$tmp/serve.conf"
hup
check_true "a changed listen is refused, naming the socket in use" grep -q "warning: reload: .*\[control\] listen cannot change while the daemon runs; still listening on unix:$tmp/ctl.sock " "$tmp/serve.err"
sed -i 's|^listen = unix:other.sock|listen = unix:ctl.sock|' "$tmp/serve.conf"
hup
check_true "restoring it says nothing more" [ "$(grep -c 'listen cannot change' "$tmp/serve.err")" -eq 1 ]
sed -i 's|^listen = unix:ctl.sock|listen = unix:other.sock|' "$tmp/serve.conf"
hup
check_true "asked again, the socket in use is named again" [ "$(grep -c "still listening on unix:$tmp/ctl.sock " "$tmp/serve.err")" -eq 2 ]
check_true "the refused socket is never named as the one in use" bash -c '! grep -q "still listening on unix:.*other.sock" "$1"' _ "$tmp/serve.err"
sed -i 's|^listen = unix:other.sock|listen = unix:ctl.sock|' "$tmp/serve.conf"
check_true "the daemon answers on its socket all along" wait_status '"state":"idle"'
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
# A second daemon, with 200 file descriptors (hard limit too): hosts held
# on purpose, submissions long, partly rejected or interrupted, and 400
# connections at once.
bsock=$tmp/b.sock
bctl=(--control "unix:$bsock")
cat >"$tmp/b.conf" <<EOF
[crawl]
store = b-store
per_host_delay_ms = 0
concurrency = 8
connect_to = ::127.0.0.1:$port
[control]
listen = unix:b.sock
[category web]
EOF
bstatus() { "$sigcrawl" status "${bctl[@]}" 2>/dev/null; }
bmatch() { bstatus | grep -Eq -- "$1"; }
bwait() { wait_until 15 bmatch "$1"; }
prlimit --nofile=200:200 "$sigcrawl" serve -c "$tmp/b.conf" 2>"$tmp/b.err" &
bpid=$!
check_true "with 200 descriptors the daemon starts" bwait '"state":"idle"'
check_true "... and warns that is few" grep -q 'warning: only 200 file descriptors (RLIMIT_NOFILE)' "$tmp/b.err"

# Held on purpose: rb.test while its robots.txt comes (4 s), ra.test after
# a 429 with Retry-After (an hour).
"$sigcrawl" submit "${bctl[@]}" --category web http://rb.test/ http://ra.test/ >/dev/null
check_true "status lists a host waiting for its robots.txt" bwait '"waiting":\[.*\{"host":"rb.test","reason":"robots_txt","detail":"1 URLs wait for its robots.txt","count":1\}'
check_true "status lists a host backing off after Retry-After" bwait '"waiting":\[.*\{"host":"ra.test","reason":"retry_after","detail":"[^"]*held [0-9]+ s more","count":1,"seconds_left":[0-9]+\}'
check_true "... counted in hosts_waiting" bwait '"hosts_waiting":1,'
check_true "... and not as unreachable" bwait '"hosts_held":0,'
curl -s --unix-socket "$bsock" -o "$tmp/metrics" http://x/metrics
check_true "metrics: hosts waiting by reason" grep -qx 'sigcrawl_hosts_waiting{reason="retry_after"} 1' "$tmp/metrics"
# rc.test asks for a second each time: held three times, its fourth 429
# is the page's answer, and then nothing holds it.
"$sigcrawl" submit "${bctl[@]}" --category web http://rc.test/ >/dev/null
check_true "a host asking for 1 s is listed while it is held" bwait '"waiting":\[.*\{"host":"rc.test","reason":"retry_after","detail":"[^"]*","count":[1-3],"seconds_left":1\}'
rc_gone() { [ "$(requests rc.test / "$tmp/log")" -ge 4 ] && ! bmatch '"host":"rc.test"'; }
check_true "... and no longer once its holds are over" wait_until 15 rc_gone
check_true "... while the host asking for an hour still is" bmatch '"hosts_waiting":1,.*"host":"ra.test","reason":"retry_after"'
curl -s --unix-socket "$bsock" -X POST -o /dev/null http://x/pause
check_true "paused, for the submissions below" bwait '"state":"paused"'

# One URL, a 1 MB line, 6000 URLs: the long line is rejected with its
# number, the rest taken, in requests the daemon accepts.
{
	echo http://long.test/0
	head -c 1048576 /dev/zero | tr '\0' a
	echo
	seq 6000 | sed 's|^|http://long.test/|'
} >"$tmp/long"
"$sigcrawl" submit "${bctl[@]}" --category web - <"$tmp/long" >"$tmp/out" 2>"$tmp/err"
rc=$?
check_true "submit with a 1 MB line: exit 1 ($rc; $(head -c 200 "$tmp/err"))" [ $rc -eq 1 ]
check_true "... the line rejected with its number" grep -Eq '^rejected line 2: a{60}\.\.\.: line too long \(1048576 bytes' "$tmp/out"
check_true "... the only one" [ "$(grep -c '^rejected line' "$tmp/out")" -eq 1 ]
check_true "... and the 6001 others accepted" grep -qx 'accepted 6001' "$tmp/out"

# 12000 lines, 7000 of them rejected: every one listed, with its number.
python3 -c '
for i in range(1, 12001):
    print("ftp://bad.test/%d" % i if i % 12 < 7 else "http://many.test/%d" % i)' >"$tmp/many"
"$sigcrawl" submit "${bctl[@]}" --category web - <"$tmp/many" >"$tmp/out"
rc=$?
check_true "submit with 7000 rejected lines: exit 1 ($rc)" [ $rc -eq 1 ]
check_true "... all 7000 listed ($(grep -c '^rejected line' "$tmp/out"))" [ "$(grep -c '^rejected line' "$tmp/out")" -eq 7000 ]
check_true "... numbered as in the input" grep -q '^rejected line 11993: ftp://bad.test/11993: ' "$tmp/out"
check_true "... counted" grep -qx 'rejected 7000' "$tmp/out"
check_true "... and the others accepted" grep -qx 'accepted 5000' "$tmp/out"

# Ctrl-C during a long submission: it says how far it got, then dies of
# the signal.  5000 lines make one request; the input then stalls.
python3 - "$sigcrawl" "$bsock" >"$tmp/intr" <<'EOF'
import json, signal, subprocess, sys, time
sigcrawl, sock = sys.argv[1], sys.argv[2]
def seen():
    out = subprocess.run([sigcrawl, "status", "--control", "unix:" + sock],
                         capture_output=True).stdout
    return json.loads(out)["seen"]
base = seen()
p = subprocess.Popen([sigcrawl, "submit", "--control", "unix:" + sock,
                      "--category", "web", "-"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
p.stdin.write(b"".join(b"http://intr.test/%d\n" % i for i in range(5001)))
p.stdin.flush()
for _ in range(200):
    if seen() >= base + 5000:
        break
    time.sleep(0.05)
p.send_signal(signal.SIGINT)
out, err = p.communicate(timeout=20)
print("rc", p.returncode)
sys.stdout.write(out.decode() + err.decode())
EOF
check_true "submit interrupted: dies of SIGINT ($(head -1 "$tmp/intr"))" grep -qx 'rc -2' "$tmp/intr"
check_true "... after printing what was taken" grep -qx 'accepted 5000' "$tmp/intr"
check_true "... and where it stopped" grep -q 'interrupted after line 5000 of the input: lines 1-5000 were submitted, the rest was not sent' "$tmp/intr"

# 400 connections at once with 200 descriptors: accept() fails for want
# of descriptors; the daemon pauses accepting instead of spinning (under
# 5 % of a core), logs it once, and answers again once they close.
# The CPU is measured from before the first connection to 3 s after the
# last, in clock ticks of utime + stime.
lines0=$(wc -l <"$tmp/b.err")
mkdir -p "$tmp/h2"
ticks() { awk '{ print $14 + $15 }' "/proc/$bpid/stat"; }
ms() { echo $(($(date +%s%N) / 1000000)); }
hz=$(getconf CLK_TCK)
t0=$(ticks)
ms0=$(ms)
python3 "$tmp/hold.py" "$bsock" 400 "$tmp/h2" &
hpid=$!
check_true "400 connections tried" wait_until 60 test -s "$tmp/h2/ready"
check_true "accept() runs out of descriptors" wait_until 10 grep -q 'warning: control socket: cannot accept a connection: Too many open files' "$tmp/b.err"
sleep 3
t1=$(ticks)
ms1=$(ms)
check_true "meanwhile the daemon rests ($((t1 - t0)) ticks in $((ms1 - ms0)) ms, at $hz a second: under 5 %)" \
	test $(((t1 - t0) * 1000 * 100 / hz)) -lt $((5 * (ms1 - ms0)))
check_true "... and the log is not flooded ($(($(wc -l <"$tmp/b.err") - lines0)) lines)" test $(($(wc -l <"$tmp/b.err") - lines0)) -le 2
touch "$tmp/h2/release"
wait "$hpid"
hpid=
check_true "once they close, status answers" bwait '"state":"paused"'
check_true "the end of the episode is logged" wait_until 20 grep -q 'control socket: accepting connections again' "$tmp/b.err"
check_true "two lines in all for it ($(($(wc -l <"$tmp/b.err") - lines0)))" test $(($(wc -l <"$tmp/b.err") - lines0)) -le 3
kill -TERM "$bpid"
wait "$bpid"
rc=$?
bpid=
check_true "the second daemon exits 0 on SIGTERM ($rc)" [ $rc -eq 0 ]
# libevent's own messages take the daemon's log path (EVENT_SHOW_METHOD
# makes it say which backend it uses, at its "msg" level: info).
EVENT_SHOW_METHOD=1 "$sigcrawl" serve -c "$tmp/b.conf" --verbose 2>"$tmp/c.err" &
bpid=$!
check_true "a daemon with libevent's method shown starts" bwait '"state":"(idle|running)"'
kill -TERM "$bpid"
wait "$bpid"
bpid=
check_true "libevent's message is in the daemon's log ($(grep -m1 'libevent using' "$tmp/c.err"))" grep -q '^sigcrawl: libevent: libevent using: ' "$tmp/c.err"

# A stop or a reload sent while the daemon starts, before its loop is up
# (systemd may send either at any moment): the signal waits for the loop.
# sig_early PID SIG sends SIG once the daemon's main thread blocks SIGHUP,
# SIGINT and SIGTERM (bits 1, 2 and 15: 0x4003 in /proc's SigBlk), which
# serve does first thing, or, on code that never does, once the process
# catches SIG (its handler is in); so the signal never lands in the
# dynamic loader's part of the start, before any code of ours runs.  It
# prints "early" when the daemon had no handler for SIG yet (SigCgt) at
# the last look before the kill.  The check wants a clean stop every time
# and at least one stop sent early: code without the blocking dies of
# SIGTERM (143) when early, and is never early otherwise.
sig_early()
{
	local end=$((${EPOCHREALTIME/./} + 5000000)) k v name blk cgt bit=$((1 << ($2 - 1)))
	# Builtins only, no fork in the loop: every look is a fresh one.  Until
	# the process is sigcrawl it is this shell's forked child, which
	# catches SIGTERM for lib.sh's EXIT trap: signalled then, it would
	# run the trap (and remove $tmp).
	while [ "${EPOCHREALTIME/./}" -lt "$end" ] && [ -e "/proc/$1" ]; do
		name= blk= cgt=
		while read -r k v; do
			case $k in
			Name:) name=$v ;;
			SigBlk:) blk=$v ;;
			SigCgt:) cgt=$v ;;
			esac
		done <"/proc/$1/status" 2>/dev/null
		[ "$name" = sigcrawl ] && [ -n "$blk" ] && [ -n "$cgt" ] || continue
		[ $((0x$blk & 0x4003)) -eq $((0x4003)) ] || [ $((0x$cgt & bit)) -ne 0 ] && break
	done
	[ -n "$cgt" ] && [ $((0x$cgt & bit)) -eq 0 ] && echo early
	kill -"$2" "$1"
}
clean=0
early=0
for i in 1 2 3 4 5; do
	"$sigcrawl" serve -c "$tmp/b.conf" 2>>"$tmp/e.err" &
	bpid=$!
	[ "$(sig_early "$bpid" 15)" = early ] && early=$((early + 1))
	wait "$bpid"
	rc=$?
	bpid=
	[ "$rc" -eq 0 ] && clean=$((clean + 1))
done
check_true "SIGTERM as the daemon starts: exit 0 each time ($clean of 5)" [ "$clean" -eq 5 ]
check_true "... sent before its handler was in at least once ($early of 5)" [ "$early" -ge 1 ]
# SIGHUP the same way.  Whether the signal lands before the handler is in
# is up to the scheduler (the daemon's start can be quicker than one look
# at /proc), so up to 5 daemons are tried until one is signalled early;
# every one of them must reload, run on and stop cleanly.
tries=0 ran=0 reloaded=0 clean=0 early=0
while [ "$tries" -lt 5 ] && [ "$early" -eq 0 ]; do
	tries=$((tries + 1))
	"$sigcrawl" serve -c "$tmp/b.conf" 2>"$tmp/h.err" &
	bpid=$!
	[ "$(sig_early "$bpid" 1)" = early ] && early=$((early + 1))
	bwait '"state":"(idle|running)"' && ran=$((ran + 1))
	wait_until 10 grep -q 'reloaded ' "$tmp/h.err" && reloaded=$((reloaded + 1))
	kill -TERM "$bpid"
	wait "$bpid"
	[ $? -eq 0 ] && clean=$((clean + 1))
	bpid=
done
check_true "SIGHUP as the daemon starts: it runs on ($ran of $tries)" [ "$ran" -eq "$tries" ]
check_true "... having reloaded its config ($reloaded of $tries)" [ "$reloaded" -eq "$tries" ]
check_true "... sent before its handler was in at least once ($early of $tries)" [ "$early" -ge 1 ]
check_true "... and exits 0 on SIGTERM ($clean of $tries)" [ "$clean" -eq "$tries" ]

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
