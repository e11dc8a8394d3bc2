#!/bin/bash
# test-limits.sh SIGCRAWL FIXTURE — the crawl within its limits:
# a descriptor limit (prlimit --nofile) below what concurrency asks slows
# the crawl instead of stalling it or failing pages; an address-space
# limit (prlimit --as) holds a crawl whose frontier passes a million URLs
# when [store] max_size fits under it, and a store too large for it says
# so; a server that accepts and never answers, and one whose backlog is
# full, give timeouts in the records, within the time asked, and the crawl
# ends.
set -u
sigcrawl=$1
fixture=$2
. "$(dirname "$0")/crawl-lib.sh"
hpid=
on_exit()
{
	[ -n "$hpid" ] && kill "$hpid" 2>/dev/null
	[ -n "$fpid" ] && kill "$fpid" 2>/dev/null
}

cat >"$tmp/web" <<'EOF'
site f1.test pages=1000 links=4-8 fanout=4 cross=0 seed=11 size=3000
site f2.test pages=1000 links=4-8 fanout=4 cross=0 seed=12 size=3000
site m1.test pages=2000000 links=80-120 fanout=100 cross=0 seed=5 size=2000
EOF
start_fixture "$tmp/web" "$tmp/log"

# ---------------------------------------------------------------------
# Descriptors: 40 of them, 64 transfers asked for.  Without the budget the
# sockets over the limit failed as connect errors, the host was held as
# unreachable with a growing back-off, and the crawl crawled at ~3 pages
# a second.
printf 'http://f1.test/\nhttp://f2.test/\n' >"$tmp/fseeds"
printf '[store]\nsearch_index = yes\nwarc = yes\n' >"$tmp/f.conf"
timeout 60 prlimit --nofile=40 "$sigcrawl" crawl -c "$tmp/f.conf" --store "$tmp/fstore" \
	--seeds "$tmp/fseeds" --connect-to "::127.0.0.1:$port" \
	--per-host-delay-ms 0 --per-host-connections 64 --concurrency 64 \
	--max-depth 20 >"$tmp/out" 2>"$tmp/err"
rc=$?
expect_rc "nofile 40: the crawl ends (within 60 s)" 0
check_true "nofile 40: every page fetched" grep -q '^pages 2000 ' "$tmp/out"
check_true "nofile 40: no page failed" grep -q '^errors 0 ' "$tmp/out"
expect_stderr "nofile 40: it says why it runs fewer transfers" "only 40 file descriptors (RLIMIT_NOFILE): at most"
check_true "nofile 40: no host held as unreachable" test "$(grep -c 'hosts held' "$tmp/err")" -eq 0

# ---------------------------------------------------------------------
# Memory: an address-space limit of 1.5 GiB, [store] max_size = 1 GiB
# (the map is address space; threads' stacks, malloc's arenas, ICU's data
# and libcurl take the rest), and a frontier past a million URLs (12,000
# pages of 80 to 120 links each, into a site of 2 million).
printf 'http://m1.test/\n' >"$tmp/mseeds"
printf '[store]\nsearch_index = no\nmax_size = 1G\n' >"$tmp/m.conf"
mcrawl=(prlimit --as=$((1536 << 20)) "$sigcrawl" crawl -c "$tmp/m.conf"
	--store "$tmp/mstore" --seeds "$tmp/mseeds"
	--connect-to "::127.0.0.1:$port" --per-host-delay-ms 0
	--concurrency 16 --max-depth 30)
"${mcrawl[@]}" --max-pages 12000 >"$tmp/out" 2>"$tmp/err"
rc=$?
expect_rc "ulimit -v 1.5G: a crawl of 12,000 pages" 0
queued=$(sed -n 's/.*queued \([0-9]*\).*/\1/p' "$tmp/out" | tail -1)
check_true "ulimit -v 1.5G: a frontier of over a million URLs (${queued:-none})" test "${queued:-0}" -gt 1000000
"${mcrawl[@]}" --max-pages 2000 >"$tmp/out" 2>"$tmp/err"
rc=$?
expect_rc "ulimit -v 1.5G: resumed over that frontier" 0
check_true "ulimit -v 1.5G: 2,000 more pages" grep -q '^pages 2000 ' "$tmp/out"
# The default ceiling (64 GiB of address space) does not fit: said so.
printf '[store]\nsearch_index = no\n' >"$tmp/m64.conf"
prlimit --as=$((1536 << 20)) "$sigcrawl" crawl -c "$tmp/m64.conf" --store "$tmp/m64" \
	--seeds "$tmp/mseeds" --connect-to "::127.0.0.1:$port" --max-pages 10 >"$tmp/out" 2>"$tmp/err"
rc=$?
expect_rc "ulimit -v 1.5G, default max_size" 1
expect_stderr "ulimit -v 1.5G, default max_size: what to do" "lower max_size or raise the limit"

# ---------------------------------------------------------------------
# Timeouts.  A server that accepts and never answers (read timeout), and
# the same server's backlog filled so that further SYNs go unanswered
# (connect timeout: the kernel drops them).
python3 - "$tmp/hport" <<'EOF' &
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(0)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
time.sleep(120)
EOF
hpid=$!
wait_until 10 test -s "$tmp/hport"
hport=$(cat "$tmp/hport")
# Fill the backlog: connections the server never accepts.
for _ in 1 2 3; do
	(exec 3<>"/dev/tcp/127.0.0.1/$hport"; sleep 30) 2>/dev/null &
done
printf 'http://h1.test/\nhttp://h2.test/\nhttp://h3.test/\n' >"$tmp/hseeds"
# One try each, 200 ms apart: a host that times out is given up at once.
printf '[crawl]\nhost_retries = 0\nhost_backoff_ms = 200\n' >"$tmp/h.conf"
start_s=$SECONDS
"$sigcrawl" crawl -c "$tmp/h.conf" --store "$tmp/hstore" --seeds "$tmp/hseeds" \
	--connect-to "::127.0.0.1:$hport" --timeout-s 2 --per-host-delay-ms 0 \
	--no-robots --quiet >"$tmp/out" 2>"$tmp/err"
rc=$?
took=$((SECONDS - start_s))
expect_rc "a server that never answers: the crawl ends" 0
check_true "... within a few timeouts of 2 s ($took s)" test "$took" -le 12
"$sigcrawl" export --store "$tmp/hstore" >"$tmp/hexport"
n=$(grep -c '"error":"timeout"' "$tmp/hexport")
m=$(grep -c '"error":"connect"' "$tmp/hexport")
check_true "... its 3 seeds recorded as timeout or connect errors ($n timeout, $m connect)" test $((n + m)) -eq 3
check_true "... none of them with a status" test "$(grep -c '"status":null' "$tmp/hexport")" -eq 3
finish
