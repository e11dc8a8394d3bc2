#!/bin/sh
# bench/crawl/run.sh — sigcrawl against wget -r, Wget2, HTTrack, Scrapy and gumbo
# parsing alone, on a generated 15,000-page web of 8 hosts served by a
# private nginx on 127.0.0.1.  See docs/bench.md.
#
#   bench/crawl/run.sh [--reps N] [--only sigcrawl,wget,wget2,httrack,scrapy,gumbo]
#                      [--concurrency N] [--per-host N] [--httrack-conns N]
#                      [--wget2-threads N] [--delay-ms N] [--pages N]
#                      [--work DIR]
#
# Builds the release binaries in build-rel/ (meson --buildtype=release)
# unless BUILD names another build directory.  Needs the packages of
# packaging/bench-deps.txt.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build-rel}

# nginx serves the web; each peer is checked by run.py, only those that
# --only names.
command -v nginx >/dev/null || {
	echo "run.sh: nginx missing (apt-get install nginx; the peers: packaging/bench-deps.txt)" >&2
	exit 1
}
[ -d "$build" ] || meson setup "$build" "$top" --buildtype=release >/dev/null
meson compile -C "$build" -j2 crawler/cli/sigcrawl bench/bench-parse >/dev/null

# run.py stops nginx itself; the trap covers a run.py killed outright
# and removes the work directory unless --work named one.
work=
prev=
for arg in "$@"; do
	[ "$prev" = --work ] && work=$arg
	prev=$arg
done
tmp=
if [ -z "$work" ]; then
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/sigcrawl-bench-XXXXXX")
	work=$tmp
fi
cleanup() {
	f=$work/nginx/nginx.pid
	if [ -s "$f" ]; then kill "$(cat "$f")" 2>/dev/null || true; fi
	if [ -n "$tmp" ]; then rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

python3 "$top/bench/crawl/run.py" --sigcrawl "$build/crawler/cli/sigcrawl" \
	--bench-parse "$build/bench/bench-parse" --work "$work" "$@"
