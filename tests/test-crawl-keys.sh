#!/bin/bash
# test-crawl-keys.sh SIGCRAWL FIXTURE — keys, not fetches, in every profile
# (SPEC §7): the URL fetched is the one found (a seed, a link, a
# Location), strict-normalized, and only the frontier key is normalized
# further, so that no profile redirects itself in a loop; a redirect to
# another form of its own key is followed as written, a real loop is still
# a redirect_loop; and the summary names a seed's host that gave no page.
set -u
sigcrawl=$1
fixture=$2
. "$(dirname "$0")/crawl-lib.sh"

# A wiki engine: its pages answer under one spelling, and the forms a
# profile makes of them (lower-cased path and a slash for aggressive, a
# sorted query for extended and aggressive) redirect to another spelling
# that keys back to them.  /wiki/Article_Three/ redirects to the page
# without its slash: under aggressive, the same key.
cat >"$tmp/web" <<'EOF'
host wiki.test
page /                    301 location=/wiki/Main_Page
page /wiki/Main_Page      200 text/html title="Main Page" links=/wiki/Article_One,/wiki/Article_Three/,/w/index.php?title=Article_Two&action=view
page /wiki/main_page/     301 location=/wiki/Main_page/
page /wiki/Main_page/     301 location=/wiki/main_page/
page /wiki/Article_One    200 text/html title="Article One"
page /wiki/article_one/   301 location=/wiki/Article_one/
page /wiki/Article_one/   301 location=/wiki/article_one/
page /wiki/Article_Three/ 301 location=/wiki/Article_Three
page /wiki/Article_Three  200 text/html title="Article Three"
page /wiki/article_three/ 301 location=/wiki/Article_three/
page /wiki/Article_three/ 301 location=/wiki/article_three/
page /w/index.php?title=Article_Two&action=view 200 text/html title="Article Two"
page /w/index.php?action=view&title=Article_Two 301 location=/w/index.php?title=Article_Two&action=view
default 404
EOF
printf 'http://wiki.test/\n' >"$tmp/seeds"

# crawl PROFILE STORE LOG WEB SEEDS: sets $rc; the summary in $tmp/out.
crawl()
{
	start_fixture "$4" "$tmp/$3"
	"$sigcrawl" crawl --store "$tmp/$2" --seeds "$5" --profile "$1" \
		--connect-to "::127.0.0.1:$port" --per-host-delay-ms 0 --quiet \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	stop_fixture
}

# The paths requested of wiki.test, robots.txt aside, one a line, sorted.
requested() { awk -F'\t' '$3 == "req" && $4 == "wiki.test" && $6 != "/robots.txt" { print $6 }' "$1" | sort; }

crawl strict s-strict log-strict "$tmp/web" "$tmp/seeds"
check_true "strict: exits 0 (got $rc)" test "$rc" -eq 0
requested "$tmp/log-strict" >"$tmp/req-strict"
check_true "strict: the main page and the three articles answer 2xx" grep -q "^status 2xx 4 " "$tmp/out"

for p in extended aggressive; do
	crawl "$p" "s-$p" "log-$p" "$tmp/web" "$tmp/seeds"
	check_true "$p: exits 0 (got $rc)" test "$rc" -eq 0
	requested "$tmp/log-$p" >"$tmp/req-$p"
	if cmp -s "$tmp/req-strict" "$tmp/req-$p"; then
		pass "$p: requests the URLs strict requests"
	else
		fail "$p: requests the URLs strict requests" \
			"strict: $(tr '\n' ' ' <"$tmp/req-strict")" "$p: $(tr '\n' ' ' <"$tmp/req-$p")"
	fi
	check_true "$p: the main page and the three articles answer 2xx" grep -q "^status 2xx 4 " "$tmp/out"
	"$sigcrawl" export --store "$tmp/s-$p" >"$tmp/export-$p"
	check_true "$p: no redirect_loop recorded" eval '! grep -q "\"error\":\"redirect_loop\"" "$tmp/export-$p"'
	check_true "$p: no lost host in the summary" eval '! grep -q "no page fetched" "$tmp/out"'
done

# The key is the profile's form, the record's url the form found, its
# content the page's.
r=$(record "$tmp/s-aggressive" http://wiki.test/wiki/main_page/)
check_true "aggressive: the main page is keyed lower-cased with a slash" test -n "$r"
check_true "aggressive: its url is the Location as written" eval 'echo "$r" | grep -qF "\"url\":\"http://wiki.test/wiki/Main_Page\""'
check_true "aggressive: its content is the main page's" eval 'echo "$r" | grep -qF "\"title\":\"Main Page\""'
r=$(record "$tmp/s-aggressive" http://wiki.test/wiki/article_three/)
check_true "aggressive: a redirect to its own key is followed as written" eval 'echo "$r" | grep -qF "\"title\":\"Article Three\""'
r=$(record "$tmp/s-extended" 'http://wiki.test/w/index.php?action=view&title=Article_Two')
check_true "extended: the query is sorted in the key" test -n "$r"
check_true "extended: its content is the article's" eval 'echo "$r" | grep -qF "\"title\":\"Article Two\""'

# ---------------------------------------------------------------------
# Hosts that give nothing: every URL of loop.test redirects in a loop
# (under aggressive between two forms of one key, /Main/ and /main/),
# closed.test's robots.txt disallows everything; old.test moved to
# ok.test, which answers.  Only the first two are named.
cat >"$tmp/web2" <<'EOF'
host loop.test
page /       301 location=/Main/
page /Main/  301 location=/main/
page /main/  301 location=/Main/
default 404
host closed.test
page /robots.txt 200 text/plain body="User-agent: *\nDisallow: /\n"
page /           200 text/html
host old.test
page /       301 location=http://ok.test/new
host ok.test
page /new    200 text/html title="New"
page /       200 text/html title="OK"
default 404
EOF
printf 'http://loop.test/\nhttp://closed.test/\nhttp://old.test/\nhttp://ok.test/\n' >"$tmp/seeds2"
for p in strict aggressive; do
	crawl "$p" "l-$p" "log2-$p" "$tmp/web2" "$tmp/seeds2"
	check_true "$p, lost hosts: exits 0 (got $rc)" test "$rc" -eq 0
	check_true "$p: a real loop is still a redirect_loop" grep -q "^errors by kind: .*redirect_loop 1" "$tmp/out"
	check_true "$p: the loop is bounded (/Main/, the form found, fetched once)" test "$(requests loop.test /Main/ "$tmp/log2-$p")" -eq 1
	check_true "$p: the summary names the looping host" grep -qxF "host loop.test: no page fetched (3 requests, redirect_loop)" "$tmp/out"
	check_true "$p: and the disallowed one" grep -qxF "host closed.test: no page fetched (0 requests, robots_disallowed)" "$tmp/out"
	check_true "$p: not a host that moved to one that answers" eval '! grep -q "host old.test" "$tmp/out"'
	check_true "$p: nor one that answers" eval '! grep -q "host ok.test" "$tmp/out"'
done
finish
