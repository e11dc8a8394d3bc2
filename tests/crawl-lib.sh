# crawl-lib.sh — sourced by the crawl engine's integration tests.
#
# On top of lib.sh (the scratch directory, counted checks, finish): the
# caller sets sigcrawl and fixture (paths of the two executables) before
# sourcing; this adds start_fixture WEB LOG (sets $port, $fpid),
# stop_fixture, requests HOST PATH LOG and record STORE URL.

. "$(dirname "$0")/lib.sh"
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
