#!/bin/bash
# check-layout.sh SRCROOT — the rooms of the tree and which way they depend.
#
# Each folder below is one room with one public header (or none, for the
# executable's).  A file may include its own room's headers and the public
# header of a room below its own, nothing else: so dependencies point
# down, a room's private headers (crawler/engine/crawl-int.h, crawler/daemon/
# cluster-node.h, ...) stay inside it, and the engine's circle of files
# stays in crawler/engine/.  Every #include "..." of every .c and .h of the rooms
# is checked; the check fails if it found none, or a room is missing.
set -u
root=${1:?usage: check-layout.sh SRCROOT}
cd "$root" || exit 1

# Bottom-up, with each room's public headers.
rooms=(
	"common sc.h log.h"
	"normalize normalize.h"
	"conf conf.h"
	"store store.h"
	"warc warc.h"
	"search search.h"
	"frontier frontier.h"
	"parse parse.h"
	"cluster cluster.h"
	"crawler/learn learn.h"
	"crawler/engine crawl.h"
	"crawler/daemon daemon.h"
	"crawler/cli"
)

declare -A level public
i=0
for r in "${rooms[@]}"; do
	set -- $r
	name=$1
	shift
	[ -d "$name" ] || { echo "check-layout: room $name/ is missing"; exit 1; }
	level[$name]=$i
	for h in "$@"; do
		[ -f "$name/$h" ] || { echo "check-layout: $name/$h is missing"; exit 1; }
		public[$h]=$name
	done
	i=$((i + 1))
done

# The top level is the crawler and the libraries below it, beside the
# folders that are not code of the product (tests, bench, packaging, docs,
# man): an application folder beside the libraries fails here.  Build
# directories (meson's, with their meson-private/) are not the tree's.
top_ok=" crawler common normalize conf store warc search frontier parse cluster tests bench packaging docs man "
for d in */; do
	d=${d%/}
	[ -d "$d/meson-private" ] && continue
	case $top_ok in
	*" $d "*) ;;
	*)
		echo "check-layout: top-level folder $d/ is not one of:$top_ok"
		exit 1
		;;
	esac
done

# Where each header of the rooms lives.
declare -A home
for r in "${!level[@]}"; do
	for h in "$r"/*.h; do
		[ -e "$h" ] && home[$(basename "$h")]=$r
	done
done

checked=0
bad=0
for r in "${!level[@]}"; do
	for f in "$r"/*.c "$r"/*.h; do
		[ -e "$f" ] || continue
		while IFS= read -r inc; do
			checked=$((checked + 1))
			h=${inc#\#include \"}
			h=${h%\"*}
			at=${home[$h]:-}
			if [ -z "$at" ]; then
				echo "check-layout: $f includes \"$h\", which no room has"
				bad=$((bad + 1))
			elif [ "$at" = "$r" ]; then
				:
			elif [ "${public[$h]:-}" != "$at" ]; then
				echo "check-layout: $f includes $at/$h, private to $at/"
				bad=$((bad + 1))
			elif [ "${level[$at]}" -gt "${level[$r]}" ]; then
				echo "check-layout: $f ($r/) includes $at/$h, a room above it"
				bad=$((bad + 1))
			fi
		done < <(grep -h '^#include "' "$f")
	done
done

# No room file over MAX_LINES lines but the ones named here, each one
# thing whose split would scatter it.
MAX_LINES=1100
declare -A long_ok=(
	[conf/conf.c]="one table of keys with their checks and setters"
	[normalize/normalize.c]="the URL parser and the steps in their order"
	[frontier/frontier.c]="one LMDB schema: queue, seen set, hosts, leases"
)
for r in "${!level[@]}"; do
	for f in "$r"/*.c "$r"/*.h; do
		[ -e "$f" ] || continue
		n=$(wc -l <"$f")
		if [ "$n" -gt $MAX_LINES ] && [ -z "${long_ok[$f]:-}" ]; then
			echo "check-layout: $f has $n lines (over $MAX_LINES)"
			bad=$((bad + 1))
		fi
	done
done

echo "check-layout: $checked includes in ${#level[@]} rooms, $bad problems"
[ "$checked" -gt 0 ] && [ "$bad" -eq 0 ]
