#!/bin/bash
# test-idle.sh SIGCRAWL FIXTURE — the idle connections a crawl keeps are
# those of hosts due again soon (crawler/engine/crawl-int.h,
# IDLE_WINDOW_MS): 300 hosts of one page each and one host of 40 pages
# crawled at 300 ms a page.  Once the one-page hosts are done, their
# connections are closed (before, libcurl's cache kept one for each until
# the crawl's end: some 3 KB of heap and a descriptor a host), while the
# busy host keeps its own between its pages.  Counted from the crawler's
# side: its established connections to the fixture, sampled while the
# busy host is still being crawled.
set -u
sigcrawl=$1
fixture=$2
. "$(dirname "$0")/crawl-lib.sh"
cpid=
on_exit()
{
	[ -n "$cpid" ] && kill -9 "$cpid" 2>/dev/null
	[ -n "$fpid" ] && kill "$fpid" 2>/dev/null
}

HOSTS=300
{
	echo "site busy.test pages=40 links=2-4 fanout=3 cross=0 seed=3 size=500"
	for i in $(seq -w 1 $HOSTS); do
		printf 'host s%s.test\npage / 200 text/html\n' "$i"
	done
} >"$tmp/web"
{
	echo "http://busy.test/"
	for i in $(seq -w 1 $HOSTS); do echo "http://s$i.test/"; done
} >"$tmp/seeds"

start_fixture "$tmp/web" "$tmp/fx.log"
"$sigcrawl" crawl --store "$tmp/store" --seeds "$tmp/seeds" \
	--connect-to "::127.0.0.1:$port" --per-host-delay-ms 300 \
	>"$tmp/out" 2>"$tmp/err" &
cpid=$!

# established PID — the crawler's established connections to the fixture:
# its sockets (/proc/PID/fd) that /proc/net/tcp lists as ESTABLISHED (01)
# to the fixture's port.
established()
{
	local hexport
	hexport=$(printf '%04X' "$port")
	ls -l "/proc/$1/fd" 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\].*/\1/p' |
		sort >"$tmp/inodes"
	awk -v p=":$hexport" 'NR > 1 && $4 == "01" && substr($3, length($3) - 4) == p { print $10 }' \
		/proc/net/tcp | sort >"$tmp/est"
	comm -12 "$tmp/inodes" "$tmp/est" | wc -l
}

# The one-page hosts are done when the fixture has answered all their
# pages; the busy host then has some 30 pages (9 s) to go.
singles_done()
{
	[ "$(awk -F'\t' '$3 == "done" && $4 ~ /^s[0-9]+\.test/ && $6 == "/"' \
		"$tmp/fx.log" | wc -l)" -ge $HOSTS ]
}
wait_until 60 singles_done
sleep 1
most=0 least=999999
for _ in 1 2 3 4 5; do
	n=$(established "$cpid")
	[ "$n" -gt "$most" ] && most=$n
	[ "$n" -lt "$least" ] && least=$n
	sleep 0.4
done
busy_left=$(awk -F'\t' '$3 == "req" && $4 == "busy.test"' "$tmp/fx.log" | wc -l)
timeout 120 tail --pid="$cpid" -f /dev/null
wait "$cpid"
rc=$?
cpid=
stop_fixture

check_true "the crawl exits 0 ($rc)" test "$rc" -eq 0
check_true "every page fetched" grep -q "^pages $((HOSTS + 40)) " "$tmp/out"
check_true "the busy host was still being crawled when sampled ($busy_left of its requests by then)" \
	test "$busy_left" -lt 38
check_true "the one-page hosts' connections are closed: at most 4 open ($most; before, one a host)" \
	test "$most" -le 4
check_true "the busy host keeps its connection between pages (at least 1 open at each sample: $least)" \
	test "$least" -ge 1
awk -F'\t' '$4 == "busy.test"' "$tmp/fx.log" >"$tmp/busy.log"
check_delay "busy.test" "$tmp/busy.log" 300
finish
