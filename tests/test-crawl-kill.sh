#!/bin/bash
# test-crawl-kill.sh SIGCRAWL FIXTURE [KILLS] — kill -9 at random moments,
# restart, and check that no committed page is ever fetched again and that
# the crawl completes with every reachable page recorded (SPEC §8).
#
# After each kill the store's committed records are exported: the next
# run must not request any of them.  Pages in flight at the kill may be
# fetched again (they were not committed), and robots.txt is asked again
# by every run.
set -u
sigcrawl=$1
fixture=$2
kills=${3:-20}
. "$(dirname "$0")/crawl-lib.sh"

# Three generated sites that link to each other: 3 x 500 pages.
cat >"$tmp/web" <<'EOF'
site k1.test pages=500 links=4-8 fanout=4 cross=10 seed=11 size=3000
site k2.test pages=500 links=4-8 fanout=4 cross=10 seed=12 size=3000
site k3.test pages=500 links=4-8 fanout=4 cross=10 seed=13 size=3000
EOF
printf 'http://k1.test/\nhttp://k2.test/\nhttp://k3.test/\n' >"$tmp/seeds"
total=1500

start_fixture "$tmp/web" "$tmp/log"

# A simple command, not a function: "cmd &" makes $! the crawler itself,
# which kill -9 must hit (a function would run in a subshell).
crawl=("$sigcrawl" crawl --store "$tmp/store" --seeds "$tmp/seeds"
	--connect-to "::127.0.0.1:$port" --per-host-delay-ms 5
	--concurrency 8 --max-depth 20 --quiet)

# Committed, fetched URLs, as "host path" lines.
committed()
{
	if [ -d "$tmp/store" ] && [ -f "$tmp/store/data.mdb" ]; then
		"$sigcrawl" export --store "$tmp/store" |
			grep '"fetched":true' |
			sed -n 's/.*"normalized":"http:\/\/\([^/]*\)\([^"]*\)".*/\1 \2/p' |
			sort
	fi
}

# Requests logged from line $1 on, as "host path" lines.
requested_since() { tail -n +"$1" "$tmp/log" | awk -F'\t' '$3 == "req" && $6 != "/robots.txt" { print $4, $6 }' | sort; }

refetched=0
killed=0
RANDOM=4242
for i in $(seq "$kills"); do
	committed >"$tmp/before"
	start=$(($(wc -l <"$tmp/log") + 1))
	"${crawl[@]}" >/dev/null 2>&1 &
	pid=$!
	# A random moment: 20 to 300 ms into the run.
	sleep "0.$(printf '%03d' $((20 + RANDOM % 280)))"
	if kill -9 "$pid" 2>/dev/null; then
		killed=$((killed + 1))
	fi
	wait "$pid" 2>/dev/null
	n=$(comm -12 "$tmp/before" <(requested_since "$start" | uniq) | wc -l)
	refetched=$((refetched + n))
	[ "$n" -eq 0 ] || {
		echo "run $i fetched $n committed pages again:" >&2
		comm -12 "$tmp/before" <(requested_since "$start" | uniq) | head -5 >&2
	}
done
echo "killed $killed of $kills runs mid-crawl"
check_true "no committed page fetched again over $kills runs ($killed killed)" [ "$refetched" -eq 0 ]
check_true "at least half of the runs were killed mid-crawl" [ "$killed" -ge $((kills / 2)) ]

# The last run completes the crawl.
committed >"$tmp/before"
start=$(($(wc -l <"$tmp/log") + 1))
"${crawl[@]}" >/dev/null 2>&1
rc=$?
check_true "the final run exits 0 (got $rc)" [ "$rc" -eq 0 ]
n=$(comm -12 "$tmp/before" <(requested_since "$start" | uniq) | wc -l)
check_true "the final run fetched no committed page again ($n)" [ "$n" -eq 0 ]
committed >"$tmp/final"
check_true "every page recorded as fetched ($(wc -l <"$tmp/final") of $total)" [ "$(wc -l <"$tmp/final")" -eq "$total" ]
dups=$("$sigcrawl" export --store "$tmp/store" | sed -n 's/.*"normalized":"\([^"]*\)".*/\1/p' | sort | uniq -d | wc -l)
check_true "one record per URL" [ "$dups" -eq 0 ]
every=$(requested_since 1 | uniq | wc -l)
check_true "every page requested at least once ($every)" [ "$every" -eq "$total" ]

# The search index is committed before LMDB (docs/search.md): after all
# the kills, every parsed page has its text in it, and no page lacks a
# committed record.
"$sigcrawl" index --store "$tmp/store" >"$tmp/index" 2>&1
check_true "search index: no page without its text after the kills ($(grep '^missing' "$tmp/index"))" \
	grep -q "^missing 0 of [1-9]" "$tmp/index"
check_true "search index: no page without a record ($(grep '^removed' "$tmp/index"))" \
	grep -q "^removed 0 " "$tmp/index"

finish
