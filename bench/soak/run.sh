#!/bin/bash
# bench/soak/run.sh — the resource soak, not part of any test
# suite (it runs for minutes and mounts a tmpfs, so it needs root):
#
#   bench/soak/run.sh [SECONDS] [BUILD]     (default 300 s, build/)
#
# `sigcrawl serve` with re-crawls on (every page due again after 20 to
# 40 s) over a generated web of 3 x 1,500 pages (2 ms per host), its store on a 48 MiB
# tmpfs.  Again and again until SECONDS have passed: start the daemon,
# let it run a random 0.5 to 4 s, in one round of three fill the disk
# (a file takes every free byte) until /status says disk_full, free it
# and wait until it no longer does, then kill -9 it at a random moment.
# After every kill:
#
#   - no record lost: every URL committed before is still in the export,
#     with as many visits at least;
#   - no page fetched twice: no request since the restart was for a page
#     whose committed record was not due again before the end of the run
#     (next_visit later than the kill);
#   - status truthful: the store's records /status last reported before
#     the kill are at most what the export holds; disk_full was reported
#     while the disk was full and writes were failing, and cleared within
#     10 s of the space coming back (8 MiB free at least).
#
# Prints one line per round and then: duration, kills, disk-full
# episodes, pages fetched (requests), records, violations.  Exit 0 when
# there were none.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-300}
build=${2:-$top/build}
sigcrawl=$build/crawler/cli/sigcrawl
fixture=$build/tests/fixture/sc-fixture
[ "$(id -u)" -eq 0 ] || { echo "run.sh: needs root (it mounts a tmpfs)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/sc-soak.XXXXXX)
mnt=$tmp/mnt
mkdir "$mnt"
mount -t tmpfs -o size=256m tmpfs "$mnt" || exit 2
spid= fpid=
cleanup()
{
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null
	[ -n "$fpid" ] && kill "$fpid" 2>/dev/null
	wait 2>/dev/null
	umount -l "$mnt"
	[ -n "${KEEP:-}" ] && echo "kept $tmp" >&2 || rm -rf "$tmp"
}
trap cleanup EXIT

cat >"$tmp/web" <<'EOF'
site k1.test pages=1500 links=4-8 fanout=4 cross=10 seed=11 size=3000
site k2.test pages=1500 links=4-8 fanout=4 cross=10 seed=12 size=3000
site k3.test pages=1500 links=4-8 fanout=4 cross=10 seed=13 size=3000
EOF
"$fixture" --web "$tmp/web" --port-file "$tmp/port" --log "$tmp/log" &
fpid=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
port=$(cat "$tmp/port")
sock=$tmp/ctl.sock
cat >"$tmp/serve.conf" <<EOF
[crawl]
store = $mnt/store
max_depth = 20
per_host_delay_ms = 2
concurrency = 8
connect_to = ::127.0.0.1:$port
[store]
warc = yes
search_index = no
[recrawl]
enabled = yes
min_interval = 20s
max_interval = 40s
[control]
listen = unix:$sock
[category web]
EOF
printf 'http://k1.test/\nhttp://k2.test/\nhttp://k3.test/\n' >"$tmp/seeds"

status() { "$sigcrawl" status --control "unix:$sock" 2>/dev/null; }
# The export as "url visits next_visit" lines, sorted.
committed()
{
	"$sigcrawl" export --store "$mnt/store" 2>/dev/null | grep '"fetched":true' |
		sed -n 's/.*"normalized":"\([^"]*\)".*"visits":\([0-9]*\).*"next_visit":\([0-9null]*\).*/\1 \2 \3/p' | sort
}
now_ms() { date +%s%3N; }

violations=0
kills=0
episodes=0
rounds=0
violate() { violations=$((violations + 1)); echo "VIOLATION: $*"; }
: >"$tmp/before"
t_end=$((SECONDS + seconds))
RANDOM=35
while [ "$SECONDS" -lt "$t_end" ]; do
	rounds=$((rounds + 1))
	start_line=$(($(wc -l <"$tmp/log") + 1))
	"$sigcrawl" serve -c "$tmp/serve.conf" 2>>"$tmp/serve.err" &
	spid=$!
	for _ in $(seq 200); do [ -S "$sock" ] && status >/dev/null && break; sleep 0.05; done
	[ "$rounds" -eq 1 ] && "$sigcrawl" submit --control "unix:$sock" --category web - <"$tmp/seeds" >/dev/null
	last_records=0
	sleep "$((RANDOM % 4)).$((RANDOM % 10))"
	if [ $((rounds % 3)) -eq 0 ]; then
		# Fill: every free byte, then wait for the daemon to say so.
		fallocate -l "$(df -B1 --output=avail "$mnt" | tail -1)" "$mnt/fill" 2>/dev/null ||
			dd if=/dev/zero of="$mnt/fill" bs=64k 2>/dev/null
		saw=
		for _ in $(seq 300); do
			if status | grep -q '"state":"disk_full"'; then saw=1; break; fi
			sleep 0.05
		done
		if [ -n "$saw" ]; then
			episodes=$((episodes + 1))
			status | grep -q "\"path\":\"$mnt/store/" ||
				violate "round $rounds: disk_full without the store's path"
		fi
		rm -f "$mnt/fill"
		# Space back, unless the crawl itself filled the filesystem
		# (then disk_full is the truth, and stays).
		room=$(df -B1 --output=avail "$mnt" | tail -1)
		if [ -n "$saw" ] && [ "$room" -gt $((8 << 20)) ]; then
			cleared=
			for _ in $(seq 200); do
				if ! status | grep -q '"state":"disk_full"'; then cleared=1; break; fi
				sleep 0.05
			done
			[ -n "$cleared" ] || violate "round $rounds: still disk_full 10 s after the space came back"
		fi
	fi
	r=$(status | sed -n 's/.*"store":{"records":\([0-9]*\).*/\1/p')
	[ -n "$r" ] && last_records=$r
	sleep "0.$((RANDOM % 10))"
	if kill -0 "$spid" 2>/dev/null; then
		kill -9 "$spid" && kills=$((kills + 1))
		wait "$spid" 2>/dev/null
	else
		wait "$spid"
		violate "round $rounds: the daemon died by itself (exit status $?)"
	fi
	spid=
	killed_at=$(now_ms)
	rm -f "$mnt/fill"
	committed >"$tmp/after"
	n_after=$(wc -l <"$tmp/after")
	n_all=$("$sigcrawl" export --store "$mnt/store" 2>/dev/null | wc -l)
	# No record lost, no visit count gone back.
	lost=$(join "$tmp/before" "$tmp/after" -a 1 | awk 'NF < 5 || $4 < $2' | wc -l)
	[ "$lost" -eq 0 ] || violate "round $rounds: $lost records lost or with fewer visits"
	# No page fetched again before it was due.
	tail -n +"$start_line" "$tmp/log" | awk -F'\t' '$3 == "req" && $6 != "/robots.txt" { print "http://" $4 $6 }' |
		sort -u >"$tmp/req"
	twice=$(join "$tmp/before" "$tmp/req" | awk -v k="$killed_at" '$3 != "null" && $3 > k' | wc -l)
	[ "$twice" -eq 0 ] || violate "round $rounds: $twice pages fetched again before they were due"
	# Status never ahead of the store.
	[ "$last_records" -le "$n_all" ] || violate "round $rounds: /status said $last_records records, the store has $n_all"
	echo "round $rounds: killed, $n_after pages committed ($n_all records), episodes $episodes, violations $violations"
	mv "$tmp/after" "$tmp/before"
done
requests=$(awk -F'\t' '$3 == "req" && $6 != "/robots.txt"' "$tmp/log" | wc -l)
echo "soak: ${seconds} s, $rounds rounds, kills $kills, disk-full episodes $episodes, page requests $requests, pages committed $(wc -l <"$tmp/before"), violations $violations"
[ "$violations" -eq 0 ]
