# crawl-lib.sh — sourced by the crawl engine's integration tests.
#
# On top of lib.sh (the scratch directory, counted checks, finish): the
# caller sets sigcrawl and fixture (paths of the two executables) before
# sourcing; this adds start_fixture WEB LOG (sets $port, $fpid),
# stop_fixture, requests HOST PATH LOG and record STORE URL.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
fpid=
on_exit()
{
	[ -n "$fpid" ] && kill "$fpid" 2>/dev/null
}

start_fixture()
{
	rm -f "$tmp/port"
	"$fixture" --web "$1" --port-file "$tmp/port" --log "$2" &
	fpid=$!
	for _ in $(seq 100); do
		[ -s "$tmp/port" ] && break
		sleep 0.05
	done
	port=$(cat "$tmp/port")
}

stop_fixture()
{
	kill "$fpid" 2>/dev/null
	wait "$fpid" 2>/dev/null
	fpid=
}

# How many times HOST PATH was requested: the "req" lines of the log.
requests() { awk -F'\t' -v h="$1" -v p="$2" '$3 == "req" && $4 == h && $6 == p' "$3" | wc -l; }

# The exported record of a normalized URL.
record() { "$sigcrawl" export --store "$1" | grep -F "\"normalized\":\"$2\"" | head -1; }

# check_delay NAME LOG DELAY_MS — the page requests of LOG (robots.txt
# aside) came at least DELAY_MS apart, judged by lower bounds only, which
# a loaded machine cannot break: the fixture logs arrivals, and a request
# that arrives late shortens the gap after the one before it but not the
# run as a whole.  So: no two requests less than half the delay apart, and
# N requests span at least N-1 delays, less 150 ms for a first request
# that arrived late.
check_delay()
{
	local name=$1 log=$2 delay=$3 stats n min span
	stats=$(awk -F'\t' '$3 == "req" && $6 != "/robots.txt" {
		if (n++) { g = $1 - prev; if (min == "" || g < min) min = g }
		else first = $1
		prev = $1 }
		END { print n + 0, min + 0, prev - first }' "$log")
	read -r n min span <<<"$stats"
	check_true "$name: $n requests, none closer than half the delay (min gap $min ms)" \
		test "$n" -ge 3 -a "$min" -ge $((delay / 2))
	check_true "$name: they span at least $((n - 1)) delays, less 150 ms ($span ms)" \
		test "$span" -ge $(((n - 1) * delay - 150))
}
