#!/bin/bash
# test-robots-delay.sh SIGCRAWL FIXTURE — robots.txt and Crawl-delay under
# the adaptive profile (politeness once slipped there), with no
# configured delay: every host of the web says Crawl-delay: 1.
#
# www.a.test answers every path, its robots.txt too, with a redirect to
# a.test, the same site; a.test has case-insensitive paths, a session
# parameter and a directory that redirects to its slash, all of which the
# adaptive profile learns rules from; www.b.test is an alias of b.test
# (the same pages under both names), each with its own robots.txt.  The
# crawl follows www.a.test's robots.txt redirect (RFC 9309 §2.3.1.2) to
# a.test's robots.txt: that is a request to a.test, so it must be the
# only one of that file, and a.test's delay counts from it.  r.test's
# robots.txt redirects to www.a.test's (two hops, both to robots.txt
# files asked for already), and m.a.test's to a.test's; m.a.test is found
# late, on a.test's last page, when a.test's answer is known and kept.
#
# The checks read the fixture's request log: each host's robots.txt was
# requested exactly once, and no two requests of one host came closer
# than its Crawl-delay, less 50 ms for a request that reached the fixture
# late (the log has arrival times).  Before the fix a.test's robots.txt
# was requested twice a few ms apart: once by a.test's own robots.txt
# job, once by libcurl following www.a.test's redirect inside that host's
# job, which neither knew of a.test's request nor held a.test after it.
set -u
sigcrawl=$1
fixture=$2
. "$(dirname "$0")/crawl-lib.sh"

cat >"$tmp/web" <<'EOF'
host a.test
page /robots.txt 200 text/plain body="User-agent: *\nCrawl-delay: 1\n"
page /           200 text/html body="<title>a home</title><p>harbor lantern copper</p><a href=/News/>n</a> <a href=/news/>n</a> <a href=/NEWS/>n</a> <a href=/story?id=1>s</a> <a href=/story?id=1&amp;sid=9f2>s</a> <a href=/story?id=1&amp;sid=77e>s</a> <a href=/dir>d</a> <a href=http://www.a.test/news/>w</a> <a href=http://b.test/>b</a>"
page /news/      200 text/html body="<title>a news</title><p>river stone market garden winter</p><a href=/story?id=2&amp;sid=1a>s</a> <a href=/>h</a>"
page /News/      200 text/html body="<title>a news</title><p>river stone market garden winter</p><a href=/story?id=2&amp;sid=1a>s</a> <a href=/>h</a>"
page /NEWS/      200 text/html body="<title>a news</title><p>river stone market garden winter</p><a href=/story?id=2&amp;sid=1a>s</a> <a href=/>h</a>"
page /story?id=1 200 text/html body="<title>a story 1</title><p>meadow thunder orchard ledger</p><a href=/news/>n</a>"
page /story?id=2 200 text/html body="<title>a story 2</title><p>compass falcon quarry velvet</p><a href=/news/>n</a>"
page /story      404
page /dir        301 location=/dir/
page /dir/       200 text/html body="<title>a dir</title><p>ember glacier canyon beacon</p><a href=/>h</a> <a href=http://m.a.test/>m</a>"
default 404
host www.a.test
page /robots.txt 301 location=http://a.test/robots.txt
page /           301 location=http://a.test/
page /news/      301 location=http://a.test/news/
default 404
host m.a.test
page /robots.txt 301 location=http://a.test/robots.txt
page /           200 text/html body="<title>m home</title><p>cedar moss fern</p><a href=/m1>1</a>"
page /m1         200 text/html body="<title>m one</title><p>birch alder rowan</p>"
default 404
host r.test
page /robots.txt 302 location=http://www.a.test/robots.txt
page /           200 text/html body="<title>r home</title><p>salt tide shell</p><a href=/r1>1</a>"
page /r1         200 text/html body="<title>r one</title><p>kelp reef dune</p>"
default 404
host b.test
page /robots.txt 200 text/plain body="User-agent: *\nCrawl-delay: 1\n"
page /           200 text/html body="<title>b home</title><p>mosaic timber saddle prairie</p><a href=/p1>1</a> <a href=/p2>2</a> <a href=http://www.b.test/p1>w1</a> <a href=http://www.b.test/p2>w2</a>"
page /p1         200 text/html body="<title>b one</title><p>harvest cobalt pillar ribbon</p><a href=/>h</a>"
page /p2         200 text/html body="<title>b two</title><p>summit tundra willow anchor</p><a href=/>h</a>"
default 404
host www.b.test
page /robots.txt 200 text/plain body="User-agent: *\nCrawl-delay: 1\n"
page /           200 text/html body="<title>b home</title><p>mosaic timber saddle prairie</p><a href=/p1>1</a> <a href=/p2>2</a> <a href=http://www.b.test/p1>w1</a> <a href=http://www.b.test/p2>w2</a>"
page /p1         200 text/html body="<title>b one</title><p>harvest cobalt pillar ribbon</p><a href=/>h</a>"
page /p2         200 text/html body="<title>b two</title><p>summit tundra willow anchor</p><a href=/>h</a>"
default 404
EOF
cat >"$tmp/seeds" <<'EOF'
http://www.a.test/
http://a.test/
http://b.test/
http://www.b.test/
http://r.test/
EOF
cat >"$tmp/conf" <<'EOF'
[crawl]
per_host_delay_ms = 0
[category web]
scope = any
EOF

start_fixture "$tmp/web" "$tmp/log"
"$sigcrawl" crawl -c "$tmp/conf" --store "$tmp/store" --profile adaptive \
	--seeds "$tmp/seeds" --category web \
	--connect-to "::127.0.0.1:$port" --quiet >"$tmp/out" 2>&1
rc=$?
stop_fixture
check_true "the adaptive crawl ends with status 0 ($rc)" test "$rc" -eq 0
check_true "it fetched a.test's pages" test "$(requests a.test /dir/ "$tmp/log")" -ge 1
check_true "... and b.test's" test "$(requests b.test /p2 "$tmp/log")" -ge 1
check_true "... and m.a.test's, found late" test "$(requests m.a.test /m1 "$tmp/log")" -eq 1
check_true "... and r.test's" test "$(requests r.test /r1 "$tmp/log")" -eq 1

for h in a.test www.a.test m.a.test r.test b.test www.b.test; do
	n=$(requests "$h" /robots.txt "$tmp/log")
	check_true "$h: robots.txt requested exactly once ($n)" test "$n" -eq 1
done

# Every host here has a Crawl-delay of 1 s (www.a.test's, m.a.test's and
# r.test's are a.test's, by the redirects): the least gap between two
# requests of each, robots.txt included.
for h in a.test www.a.test m.a.test r.test b.test www.b.test; do
	read -r n min pair <<<"$(awk -F'\t' -v h="$h" '$3 == "req" && $4 == h {
		if (n++) { g = $1 - t; if (min == "" || g < min) { min = g; pair = p "->" $6 } }
		t = $1; p = $6 }
		END { print n + 0, (min == "" ? 99999 : min), pair }' "$tmp/log")"
	check_true "$h: $n requests, none closer than 950 ms (least gap $min ms $pair)" \
		test "$n" -ge 2 -a "$min" -ge 950
done
finish
