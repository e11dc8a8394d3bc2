#!/bin/sh
# bench/crawl/latency.sh — the web that looks like the internet: 200
# hosts with latencies of their own, crawled politely (1 s per host) by
# sigcrawl, Scrapy, wget and Wget2 (bench/crawl/latency.py; docs/bench.md).
#
#   bench/crawl/latency.sh [--hosts N] [--pages N] [--min-ms N]
#                          [--max-ms N] [--only sigcrawl,scrapy,wget,wget2]
#                          [--max-s N] [--seed N] [--work DIR]
#                          [--sigcrawl-args="--search-index no"]
#
# Builds sigcrawl and the fixture in build-rel/ (meson
# --buildtype=release) unless BUILD names another build directory.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build-rel}
# The peers are checked by latency.py, only those that --only names.
[ -d "$build" ] || meson setup "$build" "$top" --buildtype=release >/dev/null
meson compile -C "$build" -j2 crawler/cli/sigcrawl tests/fixture/sc-fixture >/dev/null
exec /usr/bin/python3 "$top/bench/crawl/latency.py" \
	--sigcrawl "$build/crawler/cli/sigcrawl" \
	--fixture "$build/tests/fixture/sc-fixture" "$@"
