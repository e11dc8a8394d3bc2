#!/bin/bash
# test-fixture.sh SC_FIXTURE SRCDIR — check the integration tests' web
# server (tests/fixture/README.md) with curl against tests/fixture/sample.web:
# host routing, statuses, redirects, headers, gzip, file and query pages,
# delays that do not block other requests, slow drips, the generated site,
# conditional requests (ETag, Last-Modified, 304), the request log, SIGTERM,
# reloading the web on SIGHUP, and web file errors.
#
# SC_FIXTURE is the executable, SRCDIR the tests/ source folder.  Every
# check counts; the last line is "N passed, N failed" and any failure
# exits 1.
set -u

if [ $# -ne 2 ]; then
	echo "usage: $0 SC_FIXTURE SRCDIR" >&2
	exit 2
fi
FIXTURE=$1
SRCDIR=$2
WEB=$SRCDIR/fixture/sample.web

pids=()
. "$(dirname "$0")/lib.sh"
on_exit()
{
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
}

# check NAME GOT WANT
check()
{
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1: got '$2', want '$3'"
	fi
}

now_ms()
{
	date +%s%3N
}

# start NAME ARGS... — run the fixture in the background on an ephemeral
# port; sets PORT and PID.  Waits for the port file (at most 5 s).
start()
{
	local name=$1
	shift
	rm -f "$tmp/$name.port"
	"$FIXTURE" --port 0 --port-file "$tmp/$name.port" "$@" \
		2>"$tmp/$name.err" &
	PID=$!
	pids+=("$PID")
	local i
	for i in $(seq 100); do
		[ -s "$tmp/$name.port" ] && break
		sleep 0.05
	done
	PORT=$(cat "$tmp/$name.port" 2>/dev/null)
	if [ -z "$PORT" ]; then
		fail "$name: no port file"
		cat "$tmp/$name.err"
		finish
		exit 1
	fi
}

# get URL [curl options...] — the body; status in $tmp/code, headers in
# $tmp/hdr.
get()
{
	local url=$1
	shift
	# curl writes no file for an empty body (a 304).
	: >"$tmp/body"
	curl -s --max-time 10 --connect-to "::127.0.0.1:$PORT" \
		-D "$tmp/hdr" -o "$tmp/body" -w '%{http_code}' "$@" "$url" \
		>"$tmp/code"
	cat "$tmp/body"
}

code()
{
	cat "$tmp/code"
}

# header NAME — the value of a response header of the last get.
header()
{
	tr -d '\r' <"$tmp/hdr" | grep -i "^$1:" | head -n 1 |
		sed 's/^[^:]*: *//'
}

# ---- the sample web ------------------------------------------------------

check_true "--check accepts sample.web" "$FIXTURE" --web "$WEB" --check

start main --web "$WEB" --log "$tmp/log"
check "port file holds a port number" \
	"$(grep -Ec '^[0-9]+$' "$tmp/main.port")" 1

body=$(get http://a.test/)
check "a.test/ status" "$(code)" 200
check "a.test/ content type" "$(header Content-Type)" "text/html"
check_true "a.test/ title" grep -q '<title>Home of a</title>' "$tmp/body"
check_true "a.test/ links /a" grep -q 'href="/a"' "$tmp/body"
check_true "a.test/ links http://b.test/" \
	grep -q 'href="http://b.test/"' "$tmp/body"

get http://b.test/ >/dev/null
check "b.test/ status" "$(code)" 200
check_true "b.test/ is b's page" grep -q 'href="http://a.test/"' "$tmp/body"
get http://b.test/nothing >/dev/null
check "b.test default status" "$(code)" 410
get http://a.test/nothing >/dev/null
check "a.test default status" "$(code)" 404
get http://unknown.test/ >/dev/null
check "undeclared host" "$(code)" 404
get "http://127.0.0.1:$PORT/a" -H "Host: A.Test:8080" >/dev/null
check "Host header: case and port ignored" "$(code)" 200
check_true "Host header: a.test/a served" \
	grep -q 'href="/moved"' "$tmp/body"
# Absolute-form targets, as a proxy receives them.
body=$(curl -s --max-time 10 -x "http://127.0.0.1:$PORT" http://b.test/)
check_true "absolute-form target routed by its host" \
	grep -q 'href="/x"' <<<"$body"

get http://a.test/b >/dev/null
check "text/plain body" "$(cat "$tmp/body")" "plain b"
check "text/plain type" "$(header Content-Type)" "text/plain"

get http://a.test/moved >/dev/null
check "301 status" "$(code)" 301
check "301 Location" "$(header Location)" "/a"
get http://a.test/loop1 >/dev/null
check "302 status" "$(code)" 302
check "302 Location" "$(header Location)" "/loop2"
curl -s --max-time 10 --connect-to "::127.0.0.1:$PORT" -L --max-redirs 5 \
	-o /dev/null http://a.test/loop1
check "redirect loop is a loop (curl gives up)" "$?" 47

get http://a.test/e >/dev/null
check "500 status" "$(code)" 500

get http://a.test/hdr >/dev/null
check "extra header Retry-After" "$(header Retry-After)" "2"
check "extra header X-Fixture" "$(header X-Fixture)" "yes"

get http://a.test/gz --compressed >/dev/null
check "gzip Content-Encoding" "$(header Content-Encoding)" "gzip"
check "gzip body decompressed to its size" \
	"$(wc -c <"$tmp/body" | tr -d ' ')" 100000
check_true "gzip body holds its links" grep -q 'href="/a"' "$tmp/body"
get http://a.test/gz >/dev/null
gzlen=$(wc -c <"$tmp/body" | tr -d ' ')
check_true "gzip body compressed ($gzlen bytes)" test "$gzlen" -lt 10000
check "gzip body is a gzip stream" "$(gzip -dc <"$tmp/body" | wc -c)" 100000

get http://a.test/big >/dev/null
check "size= pads to exactly that size" \
	"$(wc -c <"$tmp/body" | tr -d ' ')" 2000000
check_true "padded html ends the document" \
	grep -q '</body></html>' "$tmp/body"
get http://a.test/bin >/dev/null
check "binary type" "$(header Content-Type)" "application/octet-stream"
check "binary size" "$(wc -c <"$tmp/body" | tr -d ' ')" 1000

get http://a.test/raw >/dev/null
check_true "file= body" cmp -s "$tmp/body" "$SRCDIR/fixture/data/raw.html"
get http://a.test/robots.txt >/dev/null
check "robots.txt body" "$(cat "$tmp/body")" \
	"$(printf 'User-agent: *\nDisallow: /private\nCrawl-delay: 1')"
check "exact query match" "$(get 'http://a.test/q?x=1')" "query one"
check "other query: path match" "$(get 'http://a.test/q?y=2')" "query any"

curl -s --max-time 10 --connect-to "::127.0.0.1:$PORT" -I \
	http://a.test/b >"$tmp/head"
check_true "HEAD answered" grep -q '^HTTP/1.1 200' "$tmp/head"

# ---- conditional requests ------------------------------------------------

# cond NAME PATH WANT_STATUS [curl options...] — one request; its status.
cond()
{
	get "http://a.test$2" "${@:4}" >/dev/null
	check "$1: status" "$(code)" "$3"
}
body_bytes() { wc -c <"$tmp/body" | tr -d ' '; }
lm='Wed, 21 Oct 2015 07:28:00 GMT'

cond "etag page" /etag 200
check "etag page: ETag header quoted" "$(header ETag)" '"v1"'
check "etag page: body" "$(cat "$tmp/body")" tagged
cond "If-None-Match lists the tag" /etag 304 -H 'If-None-Match: "v1"'
check "304: empty body" "$(body_bytes)" 0
check "304: ETag header" "$(header ETag)" '"v1"'
check "304: extra header kept" "$(header Cache-Control)" no-cache
check "304: no Content-Type" "$(header Content-Type)" ""
cond "If-None-Match: another tag" /etag 200 -H 'If-None-Match: "v2"'
check "another tag: full body" "$(cat "$tmp/body")" tagged
cond "If-None-Match: the tag unquoted is not the tag" /etag 200 \
	-H 'If-None-Match: v1'
cond "If-None-Match: weak W/\"v1\" matches \"v1\"" /etag 304 \
	-H 'If-None-Match: W/"v1"'
cond "If-None-Match: a list with the tag" /etag 304 \
	-H 'If-None-Match: "a,b", W/"x" ,"v1"'
cond "If-None-Match: the tag on a second header line" /etag 304 \
	-H 'If-None-Match: "a"' -H 'If-None-Match: "v1"'
cond "If-None-Match: a quoted comma is not a separator" /etag 200 \
	-H 'If-None-Match: "a,v1"'
cond "If-None-Match: *" /etag 304 -H 'If-None-Match: *'
cond "If-None-Match: prefix of the tag" /etag 200 -H 'If-None-Match: "v"'
cond "If-None-Match: unterminated" /etag 200 -H 'If-None-Match: "v1'
cond "weak etag page" /weak 200
check "weak etag page: ETag as written" "$(header ETag)" 'W/"w1"'
cond "weak etag page: strong tag in If-None-Match" /weak 304 \
	-H 'If-None-Match: "w1"'
cond "HEAD with a matching tag" /etag 304 -I -H 'If-None-Match: "v1"'
cond "POST with a matching tag" /etag 200 -d x -H 'If-None-Match: "v1"'
cond "non-200 page with a matching tag" /tag404 404 \
	-H 'If-None-Match: "gone"'
cond "page without validators ignores If-None-Match: *" /b 200 \
	-H 'If-None-Match: *'

cond "lastmod page" /dated 200
check "lastmod page: Last-Modified" "$(header Last-Modified)" "$lm"
cond "If-Modified-Since equal" /dated 304 -H "If-Modified-Since: $lm"
check "If-Modified-Since 304: empty body" "$(body_bytes)" 0
check "If-Modified-Since 304: Last-Modified" "$(header Last-Modified)" "$lm"
cond "If-Modified-Since later" /dated 304 \
	-H 'If-Modified-Since: Thu, 01 Jan 2026 00:00:00 GMT'
cond "If-Modified-Since a second earlier" /dated 200 \
	-H 'If-Modified-Since: Wed, 21 Oct 2015 07:27:59 GMT'
check "earlier: full body" "$(cat "$tmp/body")" dated
cond "If-Modified-Since not a date" /dated 200 -H 'If-Modified-Since: soon'
cond "If-Modified-Since in RFC 850 form" /dated 200 \
	-H 'If-Modified-Since: Thursday, 01-Jan-26 00:00:00 GMT'
cond "If-Modified-Since with a wrong weekday" /dated 200 \
	-H 'If-Modified-Since: Mon, 01 Jan 2026 00:00:00 GMT'
cond "If-Modified-Since on 31 Feb" /dated 200 \
	-H 'If-Modified-Since: Tue, 31 Feb 2026 00:00:00 GMT'
cond "If-Modified-Since with trailing text" /dated 200 \
	-H 'If-Modified-Since: Thu, 01 Jan 2026 00:00:00 GMTx'
cond "If-None-Match on a page without an etag wins" /dated 200 \
	-H 'If-None-Match: "x"' -H "If-Modified-Since: $lm"

cond "both validators: ETag and Last-Modified" /both 200
check "both: ETag" "$(header ETag)" '"b1"'
check "both: Last-Modified" "$(header Last-Modified)" "$lm"
cond "both: If-None-Match not matching wins over If-Modified-Since" /both 200 \
	-H 'If-None-Match: "other"' -H "If-Modified-Since: $lm"
cond "both: matching If-None-Match wins over an earlier date" /both 304 \
	-H 'If-None-Match: "b1"' \
	-H 'If-Modified-Since: Wed, 21 Oct 2015 07:27:59 GMT'
check "both 304: ETag and Last-Modified" \
	"$(header ETag) $(header Last-Modified)" "\"b1\" $lm"
cond "both: If-Modified-Since alone" /both 304 -H "If-Modified-Since: $lm"

# A delayed page must not hold up others: a request that arrives while
# /slow waits is answered first (order, not timing, is asserted).
t0=$(now_ms)
curl -s --max-time 10 --connect-to "::127.0.0.1:$PORT" \
	-o "$tmp/slow" http://a.test/slow &
slow=$!
slow_req() { awk -F'\t' '$3 == "req" && $6 == "/slow"' "$tmp/log" | grep -q .; }
check_true "the delayed request has arrived" wait_until 10 slow_req
get http://a.test/b >/dev/null
slow_done() { awk -F'\t' '$3 == "done" && $6 == "/slow"' "$tmp/log" | grep -q .; }
check_true "request served during a delay (/slow not yet answered)" eval '! slow_done'
wait "$slow"
t_slow=$(($(now_ms) - t0))
check_true "delay honoured (${t_slow} ms >= 1500)" test "$t_slow" -ge 1500
check "delayed body" "$(cat "$tmp/slow")" "slow"

t0=$(now_ms)
get http://a.test/drip >/dev/null
t_drip=$(($(now_ms) - t0))
check "drip is chunked" "$(header Transfer-Encoding)" "chunked"
check "drip body size" "$(wc -c <"$tmp/body" | tr -d ' ')" 3000
check_true "drip takes its time (${t_drip} ms >= 200)" \
	test "$t_drip" -ge 200

# A client that gives up mid-drip: the response is logged as aborted and
# the server goes on serving.
curl -s --max-time 0.4 --connect-to "::127.0.0.1:$PORT" \
	-o /dev/null http://a.test/trickle
# The server notices at its next chunk; give a loaded machine 3 s.
for i in $(seq 60); do
	grep -q "	abort	.*	/trickle	" "$tmp/log" && break
	sleep 0.05
done
check "dropped client: server still serves" "$(get http://a.test/b)" "plain b"

# ---- the generated site --------------------------------------------------

get http://c.test/ >/dev/null
check_true "site / links its children" \
	grep -q 'href="/p1".*' "$tmp/body"
check_true "site page has its size" \
	test "$(wc -c <"$tmp/body")" -eq 2000
get http://c.test/p199 >/dev/null
check "last site page" "$(code)" 200
get http://c.test/p200 >/dev/null
check "past the last site page" "$(code)" 404
get http://c.test/p07 >/dev/null
check "no leading zeros" "$(code)" 404
get http://c.test/robots.txt >/dev/null
check "declared page on a site host" "$(cat "$tmp/body")" \
	"$(printf 'User-agent: *\nAllow: /')"
get http://c.test/p17 >"$tmp/p17.first"

# Breadth-first over the site, one curl per level: all 200 pages must be
# reachable from /, and some links must leave for the other hosts.
declare -A seen=([/]=1)
level=(/)
depth=0
: >"$tmp/allbodies"
while [ ${#level[@]} -gt 0 ] && [ $depth -lt 20 ]; do
	urls=()
	for p in "${level[@]}"; do
		urls+=("http://c.test$p")
	done
	curl -s --max-time 10 --connect-to "::127.0.0.1:$PORT" "${urls[@]}" \
		>"$tmp/level"
	cat "$tmp/level" >>"$tmp/allbodies"
	next=()
	while read -r p; do
		if [ -z "${seen[$p]:-}" ]; then
			seen[$p]=1
			next+=("$p")
		fi
	done < <(grep -o 'href="/p[0-9]*"' "$tmp/level" | sed 's/href="//; s/"//')
	level=("${next[@]}")
	depth=$((depth + 1))
done
check "site: every page reachable from /" "${#seen[@]}" 200
check_true "site: links to other hosts" \
	grep -q 'href="http://[ab].test/"' "$tmp/allbodies"

# A site's delay holds its pages and its 404s alike.
t0=$(now_ms)
get http://d.test/p1 >/dev/null
t_d=$(($(now_ms) - t0))
check "delayed site page" "$(code)" 200
check_true "site delay honoured for a page (${t_d} ms >= 300)" test "$t_d" -ge 300
t0=$(now_ms)
get http://d.test/robots.txt >/dev/null
t_d=$(($(now_ms) - t0))
check "delayed site 404" "$(code)" 404
check_true "site delay honoured for a 404 (${t_d} ms >= 300)" test "$t_d" -ge 300
t0=$(now_ms)
get http://c.test/p1 >/dev/null
t_d=$(($(now_ms) - t0))
check_true "a site without delay answers at once (${t_d} ms < 300)" test "$t_d" -lt 300

# ---- the request log -----------------------------------------------------

log=$tmp/log
check "log: 8 tab-separated fields on every line" \
	"$(awk -F'\t' 'NF != 8' "$log" | wc -l)" 0
check "log: robots.txt of a.test arrived once" \
	"$(awk -F'\t' '$3 == "req" && $4 == "a.test" && $6 == "/robots.txt"' \
		"$log" | wc -l)" 1
check "log: and was answered once, 200" \
	"$(awk -F'\t' '$3 == "done" && $4 == "a.test" && $6 == "/robots.txt" {print $7}' \
		"$log")" 200
check "log: method and query logged" \
	"$(awk -F'\t' '$3 == "req" && $6 == "/q?x=1" {print $5}' "$log")" GET
check "log: every request answered or aborted" \
	"$(awk -F'\t' '$3 == "req"' "$log" | wc -l)" \
	"$(awk -F'\t' '$3 == "done" || $3 == "abort"' "$log" | wc -l)"
check "log: the dropped drip logged as abort" \
	"$(awk -F'\t' '$3 == "abort" {print $6}' "$log")" /trickle
check "log: timestamps never go back" \
	"$(awk -F'\t' 'NR > 1 && $1 < last {bad++} {last = $1} END {print bad + 0}' \
		"$log")" 0
slow_ms=$(awk -F'\t' '$6 == "/slow" && $3 == "req" {id = $2; t = $1}
	$2 == id && $3 == "done" {print $1 - t}' "$log")
# The log's stamps are whole milliseconds, and libevent schedules the delay
# from its cached time, which may be a little older than the arrival stamp:
# 2 ms of slack.
check_true "log: /slow answered >= 1500 ms after arrival (${slow_ms:-?})" \
	test "${slow_ms:-0}" -ge 1498
check "log: body bytes of /bin" \
	"$(awk -F'\t' '$3 == "done" && $6 == "/bin" {print $8}' "$log")" 1000
check "log: a 304 is logged with status 304 and 0 bytes" \
	"$(awk -F'\t' '$3 == "done" && $6 == "/dated" && $7 == 304 {print $8}' \
		"$log" | sort -u)" 0
check "log: and the 200s of that page with their bytes" \
	"$(awk -F'\t' '$3 == "done" && $6 == "/dated" && $7 == 200 {print $8}' \
		"$log" | sort -u)" 6

kill -TERM "$PID"
wait "$PID"
check "SIGTERM: exit status 0" "$?" 0

# ---- a second run: the same bytes; --max-requests ------------------------

start second --web "$WEB" --max-requests 2
get http://c.test/p17 >"$tmp/p17.second"
check_true "generated pages are the same in every run" \
	cmp -s "$tmp/p17.first" "$tmp/p17.second"
get http://a.test/ >/dev/null
wait "$PID"
check "--max-requests: exits 0 after N requests" "$?" 0

# ---- reloading the web on SIGHUP -----------------------------------------

rweb=$tmp/reload.web
rlog=$tmp/reload.log
printf '%s\n' 'host h.test' 'page / 200 text/plain body=one' \
	'page /slow 200 text/plain delay=2000 body="old slow"' \
	'page /gz 200 text/plain gzip delay=2000 size=50000 body=old' >"$rweb"
start reload --web "$rweb" --log "$rlog"
check "reload: the first web" "$(get http://h.test/)" one
reloads() { awk -F'\t' '$3 == "reload"' "$rlog" | wc -l; }
reloaded() { [ "$(reloads)" -eq "$1" ]; }
# Two requests in flight across the reload (one holding a compressed body
# of the old web) are answered from the old web.
curl -s --max-time 10 --connect-to "::127.0.0.1:$PORT" \
	-o "$tmp/slow.old" http://h.test/slow &
slow=$!
curl -s --max-time 10 --connect-to "::127.0.0.1:$PORT" \
	-o "$tmp/gz.old" http://h.test/gz &
gz=$!
in_flight() { [ "$(awk -F'\t' '$3 == "req"' "$rlog" | wc -l)" -eq 3 ]; }
check_true "reload: two delayed requests have arrived" wait_until 10 in_flight
printf '%s\n' 'host h.test' 'page / 200 text/plain body=two' \
	'page /gz 200 text/plain gzip size=50000 body=new' >"$rweb"
kill -HUP "$PID"
check_true "SIGHUP: the reload is logged" wait_until 10 reloaded 1
check "reload log line: 8 fields, ID 0, no host" \
	"$(awk -F'\t' '$3 == "reload" {print NF, $2, $4, $5, $6, $7, $8}' \
		"$rlog")" "8 0 - - - - -"
check "reload: the new web is served" "$(get http://h.test/)" two
get http://h.test/gz --compressed >/dev/null
check "reload: the new web's gzip page" "$(head -c 3 "$tmp/body")" new
wait "$slow"
check "reload: a request in flight is answered from the old web" \
	"$(cat "$tmp/slow.old")" "old slow"
wait "$gz"
check "reload: and its compressed body outlives the old web" \
	"$(gzip -dc <"$tmp/gz.old" | head -c 3)" old
check "reload: all of it" "$(gzip -dc <"$tmp/gz.old" | wc -c)" 50000
check "reload: the in-flight answers were sent after the reload" \
	"$(awk -F'\t' '$3 == "reload" {r = NR}
		$3 == "req" && !r {old[$2] = 1}
		$3 == "done" && ($2 in old) && $6 != "/" && r {n++}
		END {print n + 0}' "$rlog")" 2
get http://h.test/slow >/dev/null
check "reload: a page the new web lacks is gone" "$(code)" 404

# A broken file on SIGHUP: reported, the old web kept, the server alive.
printf '%s\n' 'host h.test' 'page / 200 text/plain body=three' 'frob' \
	>"$rweb"
kill -HUP "$PID"
bad_reload() { grep -q "^sc-fixture: $rweb:3: " "$tmp/reload.err"; }
check_true "broken web on SIGHUP: reported with its line" \
	wait_until 10 bad_reload
check_true "broken web on SIGHUP: the server keeps running" kill -0 "$PID"
check "broken web on SIGHUP: the old web is still served" \
	"$(get http://h.test/)" two
check "broken web on SIGHUP: no reload logged" "$(reloads)" 1
printf '%s\n' 'host h.test' 'page / 200 text/plain body=three' >"$rweb"
kill -HUP "$PID"
check_true "a later good file is reloaded" wait_until 10 reloaded 2
check "and served" "$(get http://h.test/)" three
kill -TERM "$PID"
wait "$PID"
check "after reloads, SIGTERM: exit status 0" "$?" 0

# ---- web file errors -----------------------------------------------------

# bad_web NAME TEXT WANT — a web file that must be rejected with exit 2 and
# a message starting with its file:line.
bad_web()
{
	printf '%b' "$2" >"$tmp/bad.web"
	"$FIXTURE" --web "$tmp/bad.web" --port 0 2>"$tmp/bad.err" >/dev/null
	local rc=$?
	if [ $rc -eq 2 ] && grep -q "^sc-fixture: $tmp/bad.web:$3: " \
		"$tmp/bad.err"; then
		pass "bad web: $1"
	else
		fail "bad web: $1: exit $rc, $(cat "$tmp/bad.err")"
	fi
}
bad_web "unknown directive" 'host a.test\npage / 200\nfrob x\n' 3
bad_web "page before host" '# c\npage / 200\n' 2
bad_web "bad status" 'host a.test\n\npage / 20x\n' 3
bad_web "status out of range" 'host a.test\npage / 700\n' 2
bad_web "unterminated quote" 'host a.test\npage / 200 body="abc\n' 2
bad_web "unknown attribute" 'host a.test\npage / 200 colour=red\n' 2
bad_web "missing file=" 'host a.test\npage / 200 file=nope.html\n' 2
bad_web "duplicate page" 'host a.test\npage / 200\npage / 404\n' 3
bad_web "site without pages" 'site c.test links=1-2\n' 1
bad_web "bad header" 'host a.test\npage / 200 header=nocolon\n' 2
bad_web "root outside a host" 'root .\n' 1
bad_web "root not a directory" 'host a.test\nroot nope-dir\n' 2
bad_web "lastmod not a date" 'host a.test\npage / 200 lastmod=yesterday\n' 2
bad_web "lastmod without quotes" \
	'host a.test\npage / 200 lastmod=Wed, 21 Oct 2015 07:28:00 GMT\n' 2
bad_web "lastmod with a wrong weekday" \
	'host a.test\npage / 200 lastmod="Mon, 21 Oct 2015 07:28:00 GMT"\n' 2
bad_web "weak etag without escaped quotes" \
	'host a.test\npage / 200 etag=W/"x"\n' 2
bad_web "etag with a blank" 'host a.test\npage / 200 etag="a b"\n' 2
bad_web "etag with a stray quote" 'host a.test\npage / 200 etag="\\"a\\"b"\n' 2

# root DIR: a static site served from its files.
mkdir -p "$tmp/site/sub" "$tmp/secret"
printf '<p>home</p>' >"$tmp/site/index.html"
printf 'sub index' >"$tmp/site/sub/index.html"
printf 'body{}' >"$tmp/site/sub/a b.css"
printf 'hidden' >"$tmp/secret/x.html"
printf 'host r.test\nroot site\npage /declared 200 body=decl\ndefault 410\n' >"$tmp/root.web"
start root --web "$tmp/root.web"
check "root: / is its index.html" "$(get http://r.test/)" '<p>home</p>'
get http://r.test/ >/dev/null
check "root: type by file name" "$(header Content-Type)" 'text/html; charset=utf-8'
check "root: a directory without / serves its index" "$(get http://r.test/sub)" 'sub index'
check "root: percent-decoded path" "$(get 'http://r.test/sub/a%20b.css')" 'body{}'
check "root: a declared page wins" "$(get http://r.test/declared)" 'decl'
get http://r.test/missing >/dev/null
check "root: a missing file is the host's default" "$(cat "$tmp/code")" 410
get http://r.test/../secret/x.html --path-as-is >/dev/null
check "root: .. cannot leave the root" "$(cat "$tmp/code")" 410
get http://r.test/sub/%2e%2e/%2e%2e/secret/x.html >/dev/null
check "root: nor an encoded .." "$(cat "$tmp/code")" 410
"$FIXTURE" --web "$tmp/nonexistent.web" 2>/dev/null
check "missing web file: exit 2" "$?" 2
"$FIXTURE" --bogus 2>/dev/null
check "bad option: exit 2" "$?" 2

finish
