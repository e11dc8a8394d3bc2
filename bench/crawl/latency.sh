#!/bin/sh
# bench/crawl/latency.sh — the web that looks like the internet: 200
# hosts with latencies of their own, crawled politely (1 s per host) by
# sigcrawl, Scrapy and wget (bench/crawl/latency.py; docs/bench.md).
#
#   bench/crawl/latency.sh [--hosts N] [--pages N] [--min-ms N]
#                          [--max-ms N] [--only sigcrawl,scrapy,wget]
#                          [--max-s N] [--seed N] [--work DIR]
#
# Builds sigcrawl and the fixture in build-rel/ (meson
# --buildtype=release) unless BUILD names another build directory.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build-rel}
command -v wget >/dev/null || {
	echo "latency.sh: wget missing" >&2
	exit 1
}
/usr/bin/python3 -c 'import scrapy' 2>/dev/null || {
	echo "latency.sh: python3-scrapy missing" >&2
	exit 1
}
[ -d "$build" ] || meson setup "$build" "$top" --buildtype=release >/dev/null
meson compile -C "$build" -j2 crawler/cli/sigcrawl tests/fixture/sc-fixture >/dev/null
exec /usr/bin/python3 "$top/bench/crawl/latency.py" \
	--sigcrawl "$build/crawler/cli/sigcrawl" \
	--fixture "$build/tests/fixture/sc-fixture" "$@"
