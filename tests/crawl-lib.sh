# crawl-lib.sh — sourced by the crawl engine's integration tests.
#
# The caller sets sigcrawl and fixture (paths of the two executables)
# before sourcing.  Provides $tmp (removed at exit unless KEEP is set),
# check WHAT COMMAND..., start_fixture WEB LOG (sets $port, $fpid),
# stop_fixture, requests HOST PATH LOG, record STORE URL, and finish.

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-test-crawl.XXXXXX")
fpid=
cleanup()
{
	[ -n "$fpid" ] && kill "$fpid" 2>/dev/null
	if [ -n "${KEEP:-}" ]; then
		echo "kept $tmp"
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT

passed=0
failed=0
check()
{
	local what=$1
	shift
	if "$@"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $what" >&2
	fi
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

finish()
{
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
