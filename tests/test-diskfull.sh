#!/bin/bash
# test-diskfull.sh SIGCRAWL FIXTURE — running out of a resource is a state,
# not a crash: the store on a small tmpfs (mounted here, so the
# test runs as root; it fails, not skips, when it cannot mount), filled by
# a crawl with the search index off (the LMDB data file fills first), on
# (search.sqlite) and with WARC files; the store at its [store] max_size;
# then `serve` on a full disk: it stays up, says disk_full with the path
# in /status, /metrics and its log, and finishes the crawl by itself once
# the filesystem is made larger.  After every stop: the exit status is 1,
# no signal, the message names the file and "No space left on device",
# the store reads back whole, and the run that resumes fetches every
# page, none of them again once committed.
set -u
sigcrawl=$1
fixture=$2
. "$(dirname "$0")/crawl-lib.sh"
spid=
on_exit()
{
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null
	[ -n "$fpid" ] && kill "$fpid" 2>/dev/null
	mountpoint -q "$tmp/mnt" && umount -l "$tmp/mnt"
}

cat >"$tmp/web" <<'EOF'
site d1.test pages=1000 links=4-8 fanout=4 cross=10 seed=11 size=6000
site d2.test pages=1000 links=4-8 fanout=4 cross=10 seed=12 size=6000
EOF
printf 'http://d1.test/\nhttp://d2.test/\n' >"$tmp/seeds"
total=2000
start_fixture "$tmp/web" "$tmp/log"
mkdir "$tmp/mnt"

# A fresh tmpfs of $1 at $tmp/mnt.
fresh_mount()
{
	mountpoint -q "$tmp/mnt" && umount -l "$tmp/mnt"
	mount -t tmpfs -o "size=$1" tmpfs "$tmp/mnt"
}
grow_mount() { mount -o "remount,size=$1" "$tmp/mnt"; }

# Committed, fetched URLs of a store, as "host path" lines.
committed()
{
	"$sigcrawl" export --store "$1" | grep '"fetched":true' |
		sed -n 's/.*"normalized":"http:\/\/\([^/]*\)\([^"]*\)".*/\1 \2/p' | sort
}
requested_since() { tail -n +"$1" "$tmp/log" | awk -F'\t' '$3 == "req" && $6 != "/robots.txt" { print $4, $6 }' | sort; }

crawl_args=(--seeds "$tmp/seeds" --connect-to "::127.0.0.1:$port"
	--per-host-delay-ms 0 --concurrency 8 --max-depth 20 --quiet)

# full_case NAME CONF SIZE FILE — a crawl on a SIZE tmpfs with CONF stops
# at FILE (an extended regular expression); more space, and the same command finishes the crawl.
full_case()
{
	local name=$1 conf=$2 size=$3 file=$4 store=$tmp/mnt/store
	fresh_mount "$size" || { fail "$name: cannot mount a tmpfs (run as root)"; return; }
	"$sigcrawl" crawl -c "$conf" --store "$store" "${crawl_args[@]}" 2>"$tmp/err"
	rc=$?
	expect_rc "$name: a crawl on a full disk" 1
	check_true "$name: the message names the file ($file) and says No space left on device" grep -Eq "$store/($file): No space left on device" "$tmp/err"
	expect_stderr "$name: how to resume" "run the same command again to resume"
	check_true "$name: no 'buffer too small'" test "$(grep -c 'buffer too small' "$tmp/err")" -eq 0
	"$sigcrawl" export --store "$store" >"$tmp/export" 2>"$tmp/export.err"
	check_true "$name: the store reads back whole after the stop (export exits 0)" test $? -eq 0
	committed "$store" >"$tmp/before"
	local n
	n=$(wc -l <"$tmp/before")
	check_true "$name: some pages were committed before the disk filled ($n), not all" test "$n" -gt 0 -a "$n" -lt "$total"
	grow_mount 256m
	local start=$(($(wc -l <"$tmp/log") + 1))
	"$sigcrawl" crawl -c "$conf" --store "$store" "${crawl_args[@]}" 2>"$tmp/err"
	rc=$?
	expect_rc "$name: the same command, with space" 0
	committed "$store" >"$tmp/after"
	check_true "$name: every page recorded after the resume ($(wc -l <"$tmp/after") of $total)" test "$(wc -l <"$tmp/after")" -eq "$total"
	requested_since "$start" >"$tmp/req"
	local again
	again=$(comm -12 "$tmp/before" "$tmp/req" | wc -l)
	check_true "$name: no committed page fetched again ($again)" test "$again" -eq 0
}

printf '[store]\nsearch_index = no\n' >"$tmp/nosearch.conf"
printf '[store]\nsearch_index = yes\n' >"$tmp/search.conf"
printf '[store]\nsearch_index = no\nwarc = yes\n' >"$tmp/warc.conf"
full_case "lmdb" "$tmp/nosearch.conf" 1m data.mdb
full_case "search" "$tmp/search.conf" 2m 'search\.sqlite|data\.mdb'
# The WARC files or the data file, whichever a batch finds full first.
full_case "warc" "$tmp/warc.conf" 3m 'warc|data\.mdb'
# Every WARC file left reads back whole: gzip -t checks each member.
bad=0
for w in "$tmp"/mnt/store/warc/*.warc.gz*; do
	gzip -t "$w" 2>/dev/null || bad=$((bad + 1))
done
check_true "warc: every WARC file is whole gzip ($bad bad)" test "$bad" -eq 0

# ---------------------------------------------------------------------
# A crawl started on a disk with no byte free: a store to make (LMDB's
# lock file is written through a map: it used to be a SIGBUS), and a
# store that exists, with new seeds to queue.
fresh_mount 1m
"$sigcrawl" crawl --store "$tmp/mnt/old" "${crawl_args[@]}" --max-pages 5 2>/dev/null
dd if=/dev/zero of="$tmp/mnt/fill" bs=4k 2>/dev/null
"$sigcrawl" crawl --store "$tmp/mnt/new" "${crawl_args[@]}" 2>"$tmp/err"
rc=$?
expect_rc "full from the start, a new store" 1
expect_stderr "full from the start, a new store: the message" "$tmp/mnt/new: No space left on device"
printf 'http://d1.test/p1\nhttp://d2.test/p1\n' >"$tmp/seeds2"
"$sigcrawl" crawl --store "$tmp/mnt/old" --seeds "$tmp/seeds2" --connect-to "::127.0.0.1:$port" --quiet 2>"$tmp/err"
rc=$?
expect_rc "full from the start, new seeds for a store" 1
check_true "full from the start, new seeds: the message names a file of the store" grep -Eq "$tmp/mnt/old/(data\.mdb|search\.sqlite): No space left on device" "$tmp/err"

# ---------------------------------------------------------------------
# The map's ceiling: [store] max_size on a roomy disk.
umount -l "$tmp/mnt"
printf '[store]\nsearch_index = no\nmax_size = 1M\n' >"$tmp/ceiling.conf"
"$sigcrawl" crawl -c "$tmp/ceiling.conf" --store "$tmp/cstore" "${crawl_args[@]}" 2>"$tmp/err"
rc=$?
expect_rc "max_size: a crawl at the ceiling" 1
expect_stderr "max_size: the file and the key" "$tmp/cstore/data.mdb: the store reached its ceiling, [store] max_size = 1048576 bytes"
expect_stderr "max_size: what to do" "Raise [store] max_size"
printf '[store]\nsearch_index = no\nmax_size = 64M\n' >"$tmp/ceiling.conf"
"$sigcrawl" crawl -c "$tmp/ceiling.conf" --store "$tmp/cstore" "${crawl_args[@]}" 2>"$tmp/err"
rc=$?
expect_rc "max_size: raised, the same command" 0
check_true "max_size: every page recorded" test "$(committed "$tmp/cstore" | wc -l)" -eq "$total"

# ---------------------------------------------------------------------
# serve on a full disk: stays up, says so, resumes by itself.
fresh_mount 1m
dash_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sock=$tmp/ctl.sock
ctl=(--control "unix:$sock")
cat >"$tmp/serve.conf" <<EOF
[crawl]
store = $tmp/mnt/store
max_depth = 20
per_host_delay_ms = 0
concurrency = 8
connect_to = ::127.0.0.1:$port
[store]
search_index = no
[control]
listen = unix:$sock
dashboard = tcp:127.0.0.1:$dash_port
[category web]
EOF
sstart=$(($(wc -l <"$tmp/log") + 1))
"$sigcrawl" serve -c "$tmp/serve.conf" 2>"$tmp/serve.err" &
spid=$!
wait_until 10 test -S "$sock"
"$sigcrawl" submit "${ctl[@]}" --category web - <"$tmp/seeds" >/dev/null
status_has() { "$sigcrawl" status "${ctl[@]}" 2>/dev/null | grep -q "$1"; }
wait_until 30 status_has '"state":"disk_full"'
check_true "serve: /status says disk_full" status_has '"state":"disk_full"'
check_true "serve: /status names the file" status_has "\"path\":\"$tmp/mnt/store/data.mdb\""
check_true "serve: /status says why" status_has '"error":"No space left on device"'
curl -s --max-time 5 --unix-socket "$sock" http://x/metrics >"$tmp/metrics"
check_true "serve: /metrics sigcrawl_disk_full 1" grep -qx 'sigcrawl_disk_full 1' "$tmp/metrics"
check_true "serve: still running" kill -0 "$spid"
# The dashboard says so too, in a browser.
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$chromium" ]; then
	timeout 60 "$chromium" --headless --no-sandbox --disable-gpu \
		--no-first-run --user-data-dir="$tmp/chrome" \
		--virtual-time-budget=5000 --dump-dom \
		"http://127.0.0.1:$dash_port/" >"$tmp/full.dom" 2>/dev/null
	check_true "serve: the dashboard shows disk_full and the file" python3 -c '
import re, sys
dom = open(sys.argv[1]).read()
m = re.search(r"<p id=\"full\">([^<]*)</p>", dom)
sys.exit(not ("class=\"disk_full\"" in dom and m and sys.argv[2] in m.group(1)
              and "No space left on device" in m.group(1)))' \
		"$tmp/full.dom" "$tmp/mnt/store/data.mdb"
else
	fail "serve: chromium is installed (.ci/install-deps) for the dashboard's check"
fi
check_true "serve: its log names the file and waits" grep -q "$tmp/mnt/store/data.mdb: No space left on device; fetching paused" "$tmp/serve.err"
# Nothing is fetched while the disk is full (what was in flight aside).
n1=$(wc -l <"$tmp/log")
sleep 2
n2=$(wc -l <"$tmp/log")
check_true "serve: no fetch while the disk is full ($n1 -> $n2 log lines)" test "$n2" -le $((n1 + 16))
grow_mount 256m
wait_until 60 status_has '"state":"idle"'
check_true "serve: idle once space returned" status_has '"state":"idle"'
check_true "serve: disk_full is null again" status_has '"disk_full":null'
check_true "serve: its log says it resumed" grep -q "space again; fetching resumes" "$tmp/serve.err"
# After the episode, the dashboard still says it happened.
if [ -n "$chromium" ]; then
	timeout 60 "$chromium" --headless --no-sandbox --disable-gpu \
		--no-first-run --user-data-dir="$tmp/chrome" \
		--virtual-time-budget=5000 --dump-dom \
		"http://127.0.0.1:$dash_port/" >"$tmp/past.dom" 2>/dev/null
	check_true "serve: after it, the dashboard says the disk was full" python3 -c '
import re, sys
dom = open(sys.argv[1]).read()
m = re.search(r"<p id=\"full-past\"[^>]*>([^<]*)</p>", dom)
sys.exit(not (m and "hidden" not in m.group(0)
              and m.group(1).startswith("the disk was full ")))' "$tmp/past.dom"
fi
kill -TERM "$spid"
wait "$spid"
rc=$?
spid=
check_true "serve: SIGTERM ends it with 0 ($rc)" test "$rc" -eq 0
committed "$tmp/mnt/store" >"$tmp/after"
check_true "serve: every page recorded ($(wc -l <"$tmp/after") of $total)" test "$(wc -l <"$tmp/after")" -eq "$total"
dups=$(requested_since "$sstart" | uniq -d | wc -l)
check_true "serve: no page fetched twice ($dups): the daemon kept the batch that found no space" test "$dups" -eq 0

# serve started on a disk already full: it waits (under systemd, no
# restart loop), says so in its log, and starts once there is space.
fresh_mount 1m
dd if=/dev/zero of="$tmp/mnt/fill" bs=4k 2>/dev/null
"$sigcrawl" serve -c "$tmp/serve.conf" 2>"$tmp/serve0.err" &
spid=$!
sleep 3
check_true "serve on a full disk at start: still running" kill -0 "$spid"
check_true "serve on a full disk at start: its log says it waits for space" \
	grep -q "$tmp/mnt/store: No space left on device at start; waiting for space" "$tmp/serve0.err"
rm -f "$tmp/mnt/fill"
grow_mount 256m
wait_until 30 test -S "$sock"
"$sigcrawl" submit "${ctl[@]}" --category web - <"$tmp/seeds" >/dev/null
wait_until 60 status_has '"state":"idle"'
check_true "serve on a full disk at start: it started once there was space, and crawled" status_has '"state":"idle"'
kill -TERM "$spid"
wait "$spid"
rc=$?
spid=
check_true "serve on a full disk at start: SIGTERM ends it with 0 ($rc)" test "$rc" -eq 0
committed "$tmp/mnt/store" >"$tmp/after0"
check_true "serve on a full disk at start: every page recorded ($(wc -l <"$tmp/after0") of $total)" test "$(wc -l <"$tmp/after0")" -eq "$total"
stop_fixture

# The cookie jar on a full disk: the crawl's records are whole, the jar's
# file is named with "No space left on device" and the exit status is 1;
# the old jar is left as it was (a new file renamed over it).
cat >"$tmp/web-jar" <<'WEB'
host j.test
page /            200 text/html  title="Home" links=/a header="Set-Cookie: sess=abc123; Path=/"
page /a           200 text/html  title="A"
page /robots.txt  200 text/plain body="User-agent: *\nAllow: /\n"
default 404
WEB
start_fixture "$tmp/web-jar" "$tmp/log-jar"
fresh_mount 64k
echo "# the old jar" >"$tmp/mnt/jar.txt"
dd if=/dev/zero of="$tmp/mnt/fill" bs=4k 2>/dev/null
printf '[crawl]\nstore = %s\nper_host_delay_ms = 0\ncookie_jar = %s\n' \
	"$tmp/jar-store" "$tmp/mnt/jar.txt" >"$tmp/jar.conf"
echo http://j.test/ >"$tmp/jar-seeds"
"$sigcrawl" crawl -c "$tmp/jar.conf" --seeds "$tmp/jar-seeds" \
	--connect-to "::127.0.0.1:$port" --quiet 2>"$tmp/err"
rc=$?
expect_rc "cookie jar on a full disk: the crawl" 1
check_true "cookie jar: the message names the jar and says No space left on device" \
	grep -q "$tmp/mnt/jar.txt: No space left on device" "$tmp/err"
check_true "cookie jar: the old jar is left whole" grep -qx "# the old jar" "$tmp/mnt/jar.txt"
check_true "cookie jar: no half-written jar beside it" test ! -e "$tmp/mnt/jar.txt.new"
check_true "cookie jar: the crawl's records are whole (2 pages)" \
	test "$("$sigcrawl" export --store "$tmp/jar-store" | grep -c '"fetched":true')" -eq 2
rm -f "$tmp/mnt/fill"
rm -rf "$tmp/jar-store"
"$sigcrawl" crawl -c "$tmp/jar.conf" --seeds "$tmp/jar-seeds" \
	--connect-to "::127.0.0.1:$port" --quiet 2>"$tmp/err"
rc=$?
expect_rc "cookie jar with space: the crawl" 0
check_true "cookie jar with space: written" grep -q "sess" "$tmp/mnt/jar.txt"
stop_fixture
finish
