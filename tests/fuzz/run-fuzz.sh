#!/bin/sh
# run-fuzz.sh FUZZER SEED_DIR [DICT] — run a libFuzzer target for a while.
#
# The seeds are copied into a fresh temporary directory, which libFuzzer
# grows as it finds new inputs, so the source tree is never written.  The
# time is SC_FUZZ_SECONDS (default 60).  Prints the number of executions
# from libFuzzer's final line; fails when libFuzzer reports a crash, a
# leak or a timeout, and then prints the reproducer in hex and keeps the
# temporary directory for it.
set -u

if [ $# -lt 2 ] || [ $# -gt 3 ] || [ ! -x "$1" ] || [ ! -d "$2" ]; then
	echo "usage: $0 FUZZER SEED_DIR [DICT]" >&2
	exit 2
fi
fuzzer=$1
seeds=$2
dict=${3:-}
secs=${SC_FUZZ_SECONDS:-60}
case $secs in
'' | *[!0-9]*)
	echo "run-fuzz: SC_FUZZ_SECONDS must be a number of seconds" >&2
	exit 2
	;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-fuzz.XXXXXX") || exit 1
keep=0
cleanup()
{
	if [ "$keep" -eq 0 ]; then
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

mkdir "$tmp/corpus" "$tmp/artifacts" || exit 1
cp -R "$seeds"/. "$tmp/corpus/" || exit 1

set -- -max_total_time="$secs" -max_len=4096 -timeout=10 \
	-rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$tmp/artifacts/"
if [ -n "$dict" ] && [ -f "$dict" ]; then
	set -- "$@" -dict="$dict"
fi

name=$(basename "$fuzzer")
echo "run-fuzz: $name for ${secs}s, seeds from $seeds"
# libFuzzer may overrun -max_total_time by a slow input; the outer
# timeout only guards against a hang of the whole run.
timeout -k 10 $((secs + 120)) "$fuzzer" "$@" "$tmp/corpus" \
	>"$tmp/log" 2>&1
rc=$?

# "Done 123456 runs in 60 second(s)" ends a clean run;
# "stat::number_of_executed_units: N" is printed either way.
runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' \
	"$tmp/log" | tail -n 1)
[ -n "$runs" ] || runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' \
	"$tmp/log" | tail -n 1)
units=$(find "$tmp/corpus" -type f | wc -l)
echo "run-fuzz: $name: ${runs:-unknown} executions, corpus $units files," \
	"exit status $rc"

found=$(find "$tmp/artifacts" -type f | head -n 5)
if [ "$rc" -eq 0 ] && [ -z "$found" ]; then
	exit 0
fi

keep=1
echo "run-fuzz: $name FAILED; the last lines of its log:"
grep -v '^    #[0-9]' "$tmp/log" | tail -n 40
for f in $found; do
	echo "run-fuzz: reproducer $f ($(wc -c <"$f") bytes), in hex:"
	od -An -tx1 -v "$f" | head -n 64
done
echo "run-fuzz: replay with: $fuzzer $found"
echo "run-fuzz: kept $tmp"
exit 1
