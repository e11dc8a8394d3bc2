#!/bin/bash
# test-adaptive-formats.sh SIGCRAWL FIXTURE — a page's other formats are
# the page (parse.h, PARSE_REL_FORMAT): under adaptive, a
# <link rel=alternate> with no hreflang whose type is not a feed (a
# wiki's plain-HTML and raw-markup exports, an oEmbed) is not fetched; a
# translation (hreflang) and a feed are, and so is an <a> to a format
# URL.  Under strict every one of them is fetched.
#
#   f.test: / links /p1../p6; each /pN names /pN.txt (text/plain),
#     /export/N (text/html), /de/pN (hreflang de), /feed/N
#     (application/rss+xml) and /embed/N (application/json+oembed) in
#     <link rel=alternate> elements; /p6 also links /export/6 with an
#     <a>.
set -u
sigcrawl=$1
fixture=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/crawl-lib.sh"

{
	echo "host f.test"
	top=""
	for n in 1 2 3 4 5 6; do
		top="$top<a href=/p$n>p$n</a> "
		head="<link rel=alternate type=text/plain href=/p$n.txt>"
		head="$head<link rel='alternate' type='text/html' title='Plain HTML' href='/export/$n'>"
		head="$head<link rel=alternate hreflang=de href=/de/p$n>"
		head="$head<link rel=alternate type=application/rss+xml href=/feed/$n>"
		head="$head<link rel=alternate type=application/json+oembed href=/embed/$n>"
		a=""
		[ "$n" -eq 6 ] && a="<a href=/export/6>export</a>"
		echo "page /p$n 200 title=P$n body=\"$head<h1>Page $n</h1><p>page $n of the formats web, words $n $n $n</p>$a\""
		for u in "/p$n.txt" "/export/$n" "/de/p$n" "/feed/$n" "/embed/$n"; do
			echo "page $u 200 title=F$n body=\"<p>the other form $u of page $n</p>\""
		done
	done
	echo "page / 200 title=Formats body=\"<h1>Formats</h1>$top\""
} >"$tmp/f.web"
check_true "the formats web is valid" "$fixture" --web "$tmp/f.web" --check

# crawl PROFILE: the web crawled under PROFILE, its log $tmp/PROFILE.log.
crawl()
{
	start_fixture "$tmp/f.web" "$tmp/$1.log"
	printf '[crawl]\nper_host_delay_ms = 0\nmax_depth = 3\n[normalize]\nprofile = %s\n' \
		"$1" >"$tmp/$1.conf"
	echo "http://f.test/" >"$tmp/seeds"
	"$sigcrawl" crawl -c "$tmp/$1.conf" --store "$tmp/$1.store" \
		--seeds "$tmp/seeds" --connect-to "::127.0.0.1:$port" \
		--quiet >"$tmp/$1.out" 2>&1
	local rc=$?
	stop_fixture
	check_true "$1: the crawl ends with exit 0 ($rc)" [ $rc -eq 0 ]
}

# fetched LOG P1 P2 ...: how many of the paths (each with N = 1..6) LOG
# requested at least once.
fetched()
{
	local log=$1 k=0
	shift
	for n in 1 2 3 4 5 6; do
		for p in "$@"; do
			p=${p//N/$n}
			[ "$(requests f.test "$p" "$log")" -ge 1 ] && k=$((k + 1))
		done
	done
	echo $k
}

crawl strict
crawl adaptive
s=$tmp/strict.log a=$tmp/adaptive.log
check_true "strict fetches every format link ($(fetched "$s" /pN.txt /export/N /embed/N) of 18)" \
	[ "$(fetched "$s" /pN.txt /export/N /embed/N)" -eq 18 ]
check_true "adaptive fetches every page ($(fetched "$a" /pN) of 6)" \
	[ "$(fetched "$a" /pN)" -eq 6 ]
check_true "adaptive fetches no <link> format of a page but /export/6, an <a> too ($(fetched "$a" /pN.txt /export/N /embed/N) of 18)" \
	[ "$(fetched "$a" /pN.txt /export/N /embed/N)" -eq 1 \
	-a "$(requests f.test /export/6 "$a")" -eq 1 ]
check_true "adaptive fetches the translations and the feeds ($(fetched "$a" /de/pN /feed/N) of 12)" \
	[ "$(fetched "$a" /de/pN /feed/N)" -eq 12 ]
finish
