#!/bin/bash
# test-crawl.sh SIGCRAWL FIXTURE — the crawl engine against a declared web
# served by sc-fixture: what was fetched (the fixture's request log) and
# what was recorded (sigcrawl export).
set -u
sigcrawl=$1
fixture=$2
. "$(dirname "$0")/crawl-lib.sh"

# ---------------------------------------------------------------------
# A small web of three hosts: redirects, errors, robots.txt, non-HTML,
# an oversized body, nofollow.
cat >"$tmp/web" <<'EOF'
host a.test
page /            200 text/html  title="Home of a" links=/a,/b,http://b.test/,/private/x,/moved,/e,/missing,/big,/loop1,/deep1,/self
page /a           200 text/html  links=/,/moved,/bin,/A?utm_source=x
page /A           200 text/html  title="Upper A"
page /b           200 text/plain body="plain b\n"
page /moved       301 location=/a2
page /a2          200 text/html  links=/
page /loop1       302 location=/loop2
page /loop2       302 location=/loop1
page /self        302 location=/self
page /later       200 text/html title="Found later"
page /bin         200 application/octet-stream size=1000
page /big         200 text/html size=300000
page /private/x   200 text/html
page /robots.txt  200 text/plain body="User-agent: *\nDisallow: /private\n\nUser-agent: sigcrawl\nDisallow: /private\nDisallow: /e2\n"
page /e           500
page /deep1       200 text/html links=/deep2
page /deep2       200 text/html links=/deep3
page /deep3       200 text/html links=/deep4
page /deep4       200 text/html
default 404

host b.test
page /            200 text/html links=http://a.test/,/x,http://c.test/,http://a.test/e2
default 410

site c.test pages=40 links=3-6 fanout=3 cross=0 seed=7 size=2000
EOF
printf '# seeds\nhttp://a.test/\n\nnot a url\n' >"$tmp/seeds"

# One connection per host: the fixture logs a request when it arrives, and
# two requests started together on two connections may arrive swapped,
# which the breadth-first order check below would misread.
start_fixture "$tmp/web" "$tmp/log"
"$sigcrawl" crawl --store "$tmp/store" --seeds "$tmp/seeds" \
	--connect-to "::127.0.0.1:$port" --per-host-delay-ms 0 \
	--per-host-connections 1 \
	--max-depth 3 --max-body-bytes 100000 --quiet >"$tmp/out" 2>"$tmp/err"
rc=$?
stop_fixture
check_true "crawl exits 0 (got $rc)" [ "$rc" -eq 0 ]
check_true "a bad seed line is reported with its line number" grep -q "seeds:4:" "$tmp/err"
check_true "the summary is printed" grep -q "^pages " "$tmp/out"

# Exactly once: no path requested twice.
dups=$(awk -F'\t' '$3 == "req" { print $4 $6 }' "$tmp/log" | sort | uniq -d)
check_true "no URL requested twice (dups: $dups)" [ -z "$dups" ]
check_true "robots.txt fetched once per host" [ "$(awk -F'\t' '$3 == "req" && $6 == "/robots.txt"' "$tmp/log" | wc -l)" -eq 3 ]
check_true "robots.txt before the host's first page" \
	[ "$(awk -F'\t' '$3 == "req" && $4 == "a.test" { print $6; exit }' "$tmp/log")" = /robots.txt ]
check_true "disallowed path not fetched" [ "$(requests a.test /private/x "$tmp/log")" -eq 0 ]
check_true "the agent's own group applies (/e2)" [ "$(requests a.test /e2 "$tmp/log")" -eq 0 ]
# c.test/ is at depth 2 (a -> b -> c): it and its tree children p1..p3
# (depth 3) must be fetched, nothing deeper exists within max-depth 3.
check_true "c.test/ fetched once" [ "$(requests c.test / "$tmp/log")" -eq 1 ]
check_true "and its child /p3 once" [ "$(requests c.test /p3 "$tmp/log")" -eq 1 ]

"$sigcrawl" export --store "$tmp/store" >"$tmp/export"
fetched=$(awk -F'\t' '$3 == "req" && $6 != "/robots.txt"' "$tmp/log" | wc -l)
disallowed=$(grep -c '"error":"robots_disallowed"' "$tmp/export")
check_true "one record per fetched URL plus the disallowed ones" [ "$(wc -l <"$tmp/export")" -eq $((fetched + disallowed)) ]
check_true "two URLs disallowed (/private/x, /e2)" [ "$disallowed" -eq 2 ]
r=$(record "$tmp/store" http://a.test/private/x)
check_true "disallowed URL recorded, not fetched" eval 'echo "$r" | grep -q "\"fetched\":false.*\"error\":\"robots_disallowed\""'
r=$(record "$tmp/store" http://a.test/moved)
check_true "301 recorded with its normalized target" eval 'echo "$r" | grep -q "\"status\":301.*\"redirect\":\"http://a.test/a2\""'
r=$(record "$tmp/store" http://a.test/a2)
check_true "redirect target fetched at the same depth" eval 'echo "$r" | grep -q "\"depth\":1"'
r1=$(record "$tmp/store" http://a.test/loop1)
r2=$(record "$tmp/store" http://a.test/loop2)
check_true "the hop that closes a loop is recorded as redirect_loop" eval 'echo "$r2" | grep -q "\"error\":\"redirect_loop\""'
check_true "the loop's first hop is a plain redirect" eval 'echo "$r1" | grep -q "\"redirect\":\"http://a.test/loop2\".*\"error\":null"'
r=$(record "$tmp/store" http://a.test/self)
check_true "a self-redirect is a redirect_loop" eval 'echo "$r" | grep -q "\"error\":\"redirect_loop\""'
check_true "the summary counts errors by kind" grep -q "^errors by kind: .*redirect_loop 2" "$tmp/out"
check_true "redirect loop terminates (/loop1 fetched once)" [ "$(requests a.test /loop1 "$tmp/log")" -eq 1 ]
check_true "redirect loop terminates (/loop2 fetched once)" [ "$(requests a.test /loop2 "$tmp/log")" -eq 1 ]
r=$(record "$tmp/store" http://a.test/e)
check_true "500 recorded as http_error" eval 'echo "$r" | grep -q "\"status\":500.*\"error\":\"http_error\""'
r=$(record "$tmp/store" http://a.test/missing)
check_true "404 recorded" eval 'echo "$r" | grep -q "\"status\":404"'
r=$(record "$tmp/store" http://a.test/big)
check_true "oversized body cut and recorded as truncated" eval 'echo "$r" | grep -q "\"bytes\":100000.*\"error\":\"too_big\",\"truncated\":true"'
r=$(record "$tmp/store" http://a.test/bin)
check_true "non-HTML recorded with its type" eval 'echo "$r" | grep -q "\"content_type\":\"application/octet-stream\""'
r=$(record "$tmp/store" http://a.test/)
check_true "title recorded" eval 'echo "$r" | grep -q "\"title\":\"Home of a\""'
r=$(record "$tmp/store" http://a.test/A)
check_true "links normalized before the frontier (utm_source dropped), url as found" eval 'echo "$r" | grep -q "\"url\":\"http://a.test/A?utm_source=x\""'
check_true "max-depth 3: /deep3 fetched" [ "$(requests a.test /deep3 "$tmp/log")" -eq 1 ]
check_true "max-depth 3: /deep4 not fetched" [ "$(requests a.test /deep4 "$tmp/log")" -eq 0 ]

# Depth never decreases in fetch order within a host (breadth-first),
# except for redirect targets: they keep their source's depth but are
# found only when the source is fetched, possibly after the host moved on
# (a strict per-depth barrier would let one slow host stall the crawl).
"$sigcrawl" export --store "$tmp/store" >"$tmp/export2"
sed -n 's/.*"redirect":"http:\/\/\([^"]*\)".*/\1/p' "$tmp/export2" >"$tmp/targets"
sed -n 's/.*"normalized":"http:\/\/\([^/]*\)\([^"]*\)".*"depth":\([0-9]*\).*/\1\t\2\t\3/p' "$tmp/export2" |
	awk -F'\t' 'NR == FNR { t[$0] = 1; next } !(($1 $2) in t)' "$tmp/targets" - >"$tmp/depths"
order_ok=$(awk -F'\t' 'NR == FNR { d[$1 $2] = $3; next }
	$3 == "req" && $6 != "/robots.txt" && (($4 $6) in d) {
		k = $4; v = d[$4 $6]
		if ((k in last) && v < last[k]) bad++
		last[k] = v
	} END { print bad + 0 }' "$tmp/depths" "$tmp/log")
check_true "fetch order is breadth-first within each host ($order_ok inversions)" [ "$order_ok" -eq 0 ]

# A rerun resumes: nothing left, nothing fetched again.
start_fixture "$tmp/web" "$tmp/log2"
"$sigcrawl" crawl --store "$tmp/store" --seeds "$tmp/seeds" \
	--connect-to "::127.0.0.1:$port" --per-host-delay-ms 0 --quiet \
	>/dev/null 2>&1
stop_fixture
check_true "a finished crawl rerun fetches nothing" [ "$(awk -F'\t' '$3 == "req"' "$tmp/log2" | wc -l)" -eq 0 ]

# New seeds for a known host: its robots.txt answer was kept in the store
# and still holds, so it is not asked again, and it still applies.
printf 'http://a.test/later\nhttp://a.test/private/later\n' >"$tmp/seeds-later"
start_fixture "$tmp/web" "$tmp/log2b"
"$sigcrawl" crawl --store "$tmp/store" --seeds "$tmp/seeds-later" \
	--connect-to "::127.0.0.1:$port" --per-host-delay-ms 0 --quiet \
	>/dev/null 2>&1
stop_fixture
check_true "a rerun with a new seed fetches it" [ "$(requests a.test /later "$tmp/log2b")" -eq 1 ]
check_true "a rerun does not ask for a kept robots.txt again" [ "$(requests a.test /robots.txt "$tmp/log2b")" -eq 0 ]
r=$(record "$tmp/store" http://a.test/private/later)
check_true "the kept robots.txt still disallows" eval 'echo "$r" | grep -q "\"fetched\":false.*\"error\":\"robots_disallowed\""'

# ---------------------------------------------------------------------
# Politeness: the gap between request starts to one host.
cat >"$tmp/web2" <<'EOF'
site p.test pages=8 links=3-3 fanout=3 cross=0 seed=1 size=500
EOF
printf 'http://p.test/\n' >"$tmp/seeds2"
start_fixture "$tmp/web2" "$tmp/log3"
"$sigcrawl" crawl --store "$tmp/store2" --seeds "$tmp/seeds2" \
	--connect-to "::127.0.0.1:$port" --per-host-delay-ms 300 --quiet \
	>/dev/null 2>&1
stop_fixture
check_delay "per-host delay 300 ms" "$tmp/log3" 300
check_true "politeness crawl fetched all 8 pages" [ "$(awk -F'\t' '$3 == "req" && $6 != "/robots.txt"' "$tmp/log3" | wc -l)" -eq 8 ]

# One crawl per store: a second one on a store in use is refused, and
# leaves the first alone.
start_fixture "$tmp/web2" "$tmp/log3b"
"$sigcrawl" crawl --store "$tmp/store2b" --seeds "$tmp/seeds2" \
	--connect-to "::127.0.0.1:$port" --per-host-delay-ms 300 --quiet \
	>/dev/null 2>&1 &
first=$!
for _ in $(seq 100); do
	grep -q "p.test" "$tmp/log3b" 2>/dev/null && break
	sleep 0.05
done
"$sigcrawl" crawl --store "$tmp/store2b" --seeds "$tmp/seeds2" \
	--connect-to "::127.0.0.1:$port" --quiet >/dev/null 2>"$tmp/e-lock"
rc=$?
wait "$first"
rc1=$?
stop_fixture
check_true "a second crawl of a store in use exits 1 ($rc)" [ "$rc" -eq 1 ]
check_true "... saying the store is in use" grep -q "in use by another crawl" "$tmp/e-lock"
check_true "... and the first crawl completes (exit $rc1)" [ "$rc1" -eq 0 ]
check_true "... fetching all 8 pages" [ "$(awk -F'\t' '$3 == "req" && $6 != "/robots.txt"' "$tmp/log3b" | sort -u -k6,6 | wc -l)" -eq 8 ]
check_true "... each once" [ "$(awk -F'\t' '$3 == "req" && $6 != "/robots.txt"' "$tmp/log3b" | wc -l)" -eq 8 ]

# robots.txt Crawl-delay beats a shorter configured delay, and a page
# slower than the timeout is recorded as a timeout.
cat >"$tmp/web3" <<'EOF3'
host d.test
page /            200 text/html links=/1,/2,/3,/slow
page /1           200 text/html
page /2           200 text/html
page /3           200 text/html
page /slow        200 text/html delay=4000
page /robots.txt  200 text/plain body="User-agent: *\nCrawl-delay: 0.4\n"
EOF3
printf 'http://d.test/\n' >"$tmp/seeds3"
start_fixture "$tmp/web3" "$tmp/log5"
"$sigcrawl" crawl --store "$tmp/store3" --seeds "$tmp/seeds3" \
	--connect-to "::127.0.0.1:$port" --per-host-delay-ms 0 --timeout-s 1 \
	--quiet >/dev/null 2>&1
stop_fixture
check_delay "Crawl-delay 0.4 s" "$tmp/log5" 400
r=$(record "$tmp/store3" http://d.test/slow)
check_true "a page slower than --timeout-s is recorded as a timeout" eval 'echo "$r" | grep -q "\"fetched\":true.*\"error\":\"timeout\""'

# robots.txt of a URL with an empty path (empty_path_slash off): asked at
# /robots.txt, not at the page itself.
cat >"$tmp/web6" <<'EOF6'
host e.test
page /?x=1        200 text/html
page /robots.txt  200 text/plain body="User-agent: *\nAllow: /\n"
EOF6
printf 'http://e.test?x=1\n' >"$tmp/seeds6"
start_fixture "$tmp/web6" "$tmp/log6"
"$sigcrawl" crawl --store "$tmp/store6" --seeds "$tmp/seeds6" \
	--connect-to "::127.0.0.1:$port" --per-host-delay-ms 0 \
	--steps=-empty_path_slash --quiet >/dev/null 2>&1
stop_fixture
check_true "robots.txt of an empty-path URL is /robots.txt" [ "$(requests e.test /robots.txt "$tmp/log6")" -eq 1 ]
check_true "the empty-path page fetched once" [ "$(requests e.test '/?x=1' "$tmp/log6")" -eq 1 ]

# Usage errors, and the config file.
"$sigcrawl" crawl --store "$tmp/s3" --max-pages -1 >/dev/null 2>"$tmp/e3"
check_true "bad --max-pages: exit 2" [ $? -eq 2 ]
check_true "the message names the option" grep -q -- "--max-pages" "$tmp/e3"
printf '[crawl]\nmax_depth = lots\n' >"$tmp/bad.conf"
"$sigcrawl" crawl -c "$tmp/bad.conf" >/dev/null 2>"$tmp/e4"
check_true "bad config: exit 2" [ $? -eq 2 ]
check_true "the message names file and line" grep -q "bad.conf:2" "$tmp/e4"
# The same crawl driven by a config file: options and -c agree.
cat >"$tmp/c.conf" <<EOF2
[crawl]
store = store-c
per_host_delay_ms = 0
max_depth = 1
connect_to = ::127.0.0.1:PORT
[category first]
seeds = seeds-first
[category web]
seeds = seeds
EOF2
printf 'http://z.test/\n' >"$tmp/seeds-first"
"$sigcrawl" crawl --store "$tmp/s3" --profile bogus >/dev/null 2>&1
check_true "bad profile: exit 2" [ $? -eq 2 ]
"$sigcrawl" crawl --help | grep -q "usage: sigcrawl crawl"
check_true "--help" [ $? -eq 0 ]
start_fixture "$tmp/web" "$tmp/log4"
sed -i "s/PORT/$port/" "$tmp/c.conf"
"$sigcrawl" crawl -c "$tmp/c.conf" --quiet >/dev/null 2>&1
check_true "a crawl from a config file exits 0" [ $? -eq 0 ]
stop_fixture
check_true "its store is relative to the config file" [ -f "$tmp/store-c/data.mdb" ]
r=$(record "$tmp/store-c" http://a.test/)
check_true "records carry the config's category" eval 'echo "$r" | grep -q "\"category\":\"web\""'
r=$(record "$tmp/store-c" http://a.test/a)
check_true "pages found from a seed carry its category" eval 'echo "$r" | grep -q "\"category\":\"web\""'
check_true "max_depth 1 from the file: no depth-2 fetch" [ "$(requests a.test /bin "$tmp/log4")" -eq 0 ]

# The export's url is the URL as first discovered (SPEC §5), made absolute
# but not normalized; normalized is the key.  A seed as written, links as
# the page wrote them (the first occurrence of each key), a redirect's
# target as its Location said.
cat >"$tmp/web7" <<'EOF2'
host f.test
page /              200 text/html links=x?b=2&a=1&utm_source=z,./d/../Up,/x?a=1&b=2,/r
page /x             200 text/html
page /Up            200 text/html
page /r             301 location=/T?b=1&a=2&utm_medium=m
page /T             200 text/html
default 404
EOF2
printf 'HTTP://F.test:80/\n' >"$tmp/seeds7"
start_fixture "$tmp/web7" "$tmp/log7"
"$sigcrawl" crawl --store "$tmp/s7" --seeds "$tmp/seeds7" --profile extended \
	--connect-to "::127.0.0.1:$port" --per-host-delay-ms 0 --quiet >/dev/null 2>&1
check_true "the url-as-found crawl exits 0" [ $? -eq 0 ]
stop_fixture
# found NORMALIZED: the record of NORMALIZED has url FOUND.
found()
{
	local r
	r=$(record "$tmp/s7" "$2")
	echo "$r" | grep -qF "\"url\":\"$1\""
}
check_true "a seed's url is the line as written" found 'HTTP://F.test:80/' 'http://f.test/'
check_true "a link's url is as written, made absolute" found 'http://f.test/x?b=2&a=1&utm_source=z' 'http://f.test/x?a=1&b=2'
check_true "dot segments are resolved, case kept" found 'http://f.test/Up' 'http://f.test/Up'
check_true "a redirect target's url is its Location" found 'http://f.test/T?b=1&a=2&utm_medium=m' 'http://f.test/T?a=2&b=1'

finish
