#!/bin/bash
# test-cli-crawl.sh SIGCRAWL FIXTURE — `sigcrawl crawl` as an operator
# meets it, against a two-page web served by sc-fixture: seeds from
# standard input (--seeds -), rejected seed lines shown with their text
# (escaped, cut) and a total, a crawl with nothing to crawl (no seed and
# nothing queued; every seed rejected) ending with exit status 1 and
# fetching nothing, a rerun of a complete crawl, the summary naming its
# store, a category's include and exclude patterns, and [crawl]'s proxy,
# extra headers and cookie jar.  The last line is "N passed, N failed"; any failure exits 1.
set -u
sigcrawl=$1
fixture=$2
. "$(dirname "$0")/crawl-lib.sh"

cat >"$tmp/web" <<'EOF'
host a.test
page /            200 text/html  title="Home" links=/b
page /b           200 text/html  title="B"
page /robots.txt  200 text/plain body="User-agent: *\nAllow: /\n"
default 404
EOF
start_fixture "$tmp/web" "$tmp/log"
opts=(--connect-to "::127.0.0.1:$port" --per-host-delay-ms 0 --quiet)

# crawl ARGS... — a crawl from $tmp with stdin from $tmp/in (empty unless
# a check wrote it); leaves $tmp/out, $tmp/err and $rc.
: >"$tmp/in"
crawl()
{
	(cd "$tmp" && timeout 60 "$sigcrawl" crawl "${opts[@]}" "$@" \
		<"$tmp/in" >"$tmp/out" 2>"$tmp/err")
	rc=$?
}
page_requests() { awk -F'\t' '$3 == "req" && $6 != "/robots.txt"' "$tmp/log" | wc -l; }

# ---- --seeds - reads standard input; the summary names the store --------
printf '# from a pipe\nhttp://a.test/\n' >"$tmp/in"
crawl --store s1 --seeds -
expect_rc "--seeds -" 0
check_true "--seeds -: the seed on standard input was fetched" \
	[ "$(requests a.test / "$tmp/log")" -eq 1 ]
check_true "--seeds -: and the page it links to" \
	[ "$(requests a.test /b "$tmp/log")" -eq 1 ]
check_true "the summary names the store, made absolute" \
	grep -qxF "store $tmp/s1" "$tmp/out"
check_true "the summary's other lines follow" grep -q "^pages 2 " "$tmp/out"
r=$(record "$tmp/s1" http://a.test/)
check_true "the seed from standard input is recorded at depth 0" \
	eval 'echo "$r" | grep -q "\"depth\":0"'
: >"$tmp/in"

# ---- rejected seed lines: their text, escaped and cut, and a total ------
long=$(head -c 300 /dev/zero | tr '\0' a)
printf 'http://a.test/\nnot a url\n# a comment\nftp://x/"\033[31m\\\n  http://[%s\n\n' \
	"$long" >"$tmp/seeds"
crawl --store s2 --seeds "$tmp/seeds"
expect_rc "some seeds rejected" 0
expect_stderr "a rejected line: its text and the reason" \
	"$tmp/seeds:2: \"not a url\": relative reference without a base URL"
expect_stderr "quotes, backslashes and control bytes are escaped" \
	"$tmp/seeds:4: \"ftp://x/\\\"\\x1b[31m\\\\\": unsupported scheme"
check_true "no control byte reaches the terminal" \
	bash -c '! grep -q "$(printf "\033")" "$1"' _ "$tmp/err"
expect_stderr "a long line is cut, with its length" \
	"$tmp/seeds:5: \"http://[$(head -c 72 /dev/zero | tr '\0' a)\"... (308 bytes): bad IPv6 literal"
expect_stderr "the total of the list" "$tmp/seeds: 3 of 4 seed lines rejected"
check_true "the good seed was crawled" grep -q "^pages 2 " "$tmp/out"

# Many rejected lines: the first 100 listed, all counted.
{
	echo http://a.test/
	for i in $(seq 150); do echo "bad line $i"; done
} >"$tmp/many"
crawl --store s3 --seeds "$tmp/many"
expect_rc "150 rejected lines" 0
check_true "the first 100 rejected lines are listed" \
	[ "$(grep -c '"bad line [0-9]*": ' "$tmp/err")" -eq 100 ]
check_true "the 100th is listed, the 101st not" \
	bash -c 'grep -qF "many:101: \"bad line 100\"" "$1" && ! grep -qF "\"bad line 101\"" "$1"' _ "$tmp/err"
expect_stderr "the total says how many were listed" \
	"$tmp/many: 150 of 151 seed lines rejected (the first 100 listed)"

# ---- nothing to crawl: exit 1, nothing fetched ----------------------------
before=$(page_requests)
printf 'not a url\nmailto:a@b.test\n' >"$tmp/bad-seeds"
crawl --store s4 --seeds "$tmp/bad-seeds"
expect_rc "every seed rejected" 1
expect_stderr "every seed rejected: says so" "nothing to crawl: every seed line was rejected (2)"
expect_stderr "every seed rejected: the lines are shown" "bad-seeds:2: \"mailto:a@b.test\""
check_true "every seed rejected: no summary" test ! -s "$tmp/out"
crawl --store s5
expect_rc "no seed and no store" 1
expect_stderr "no seed and no store: says so" \
	"nothing to crawl: no seeds (--seeds FILE, or seeds = in a [category] section) and no store at $tmp/s5 to resume"
check_true "no seed and no store: no store created" test ! -e "$tmp/s5"
# s4 exists (the run above opened it) but holds nothing.
crawl --store s4
expect_rc "no seed and an empty store" 1
expect_stderr "no seed and an empty store: says so" "nothing queued in $tmp/s4"
printf '# only comments\n\n' >"$tmp/empty-seeds"
crawl --store s4 --seeds "$tmp/empty-seeds"
expect_rc "a seed list without a URL" 1
check_true "none of these runs fetched a page" [ "$(page_requests)" -eq "$before" ]

# ---- resumes without seeds -----------------------------------------------
echo http://a.test/ >"$tmp/one"
crawl --store s6 --seeds "$tmp/one" --max-pages 1
expect_rc "one page of two" 0
crawl --store s6
expect_rc "resumed without seeds" 0
check_true "the resumed crawl fetched the queued page" grep -q "^pages 1 " "$tmp/out"
crawl --store s6
expect_rc "a complete crawl run again" 0
expect_stderr "a complete crawl run again: says so" "nothing queued in $tmp/s6: its crawl is complete"
check_true "a complete crawl run again: the summary names the store" \
	grep -qxF "store $tmp/s6" "$tmp/out"
check_true "a complete crawl run again fetches nothing" grep -q "^pages 0 " "$tmp/out"

stop_fixture

# ---- include and exclude patterns (per category) -------------------------
cat >"$tmp/web2" <<'EOF'
host p.test
page /            200 text/html  title="Home" links=/blog/1,/blog/2,/shop/1,/private/x,/blog/2?print=1,/old
page /blog/1      200 text/html  title="B1" links=/blog/3
page /blog/2      200 text/html  title="B2"
page /blog/3      200 text/html  title="B3"
page /blog/2?print=1 200 text/html  title="B2 print"
page /shop/1      200 text/html  title="S1"
page /private/x   200 text/html  title="P"
page /old         301 location=/blog/3?ref=old
page /robots.txt  200 text/plain body="User-agent: *\nAllow: /\n"
default 404
EOF
start_fixture "$tmp/web2" "$tmp/log2"
cat >"$tmp/pat.conf" <<EOF
[crawl]
store = $tmp/pat-store
per_host_delay_ms = 0
connect_to = ::127.0.0.1:$port
[category blog]
include = ^http://p\.test/(blog/|old\$|\$)
exclude = [?&](print|ref)=
EOF
echo http://p.test/ >"$tmp/pat-seeds"
(cd "$tmp" && timeout 60 "$sigcrawl" crawl -c pat.conf --seeds pat-seeds --category blog --quiet >"$tmp/out" 2>"$tmp/err")
rc=$?
expect_rc "patterns: the crawl" 0
for p in / /blog/1 /blog/2 /blog/3 /old; do
	check_true "patterns: $p, included, is fetched" [ "$(requests p.test "$p" "$tmp/log2")" -eq 1 ]
done
for p in /shop/1 /private/x "/blog/2?print=1" "/blog/3?ref=old"; do
	check_true "patterns: $p is not fetched" [ "$(requests p.test "$p" "$tmp/log2")" -eq 0 ]
done
check_true "patterns: the summary counts the links refused" \
	grep -q "^focus: links pruned by scope 0, by relevance 0, by pattern 4, by prediction 0;" "$tmp/out"
check_true "patterns: a refused link is not recorded" \
	bash -c '! "$1" export --store "$2" | grep -q "shop/1"' _ "$sigcrawl" "$tmp/pat-store"
printf '[category blog]\ninclude = (unclosed\n' >"$tmp/bad.conf"
(cd "$tmp" && "$sigcrawl" crawl -c bad.conf --check-config >"$tmp/out" 2>"$tmp/err")
rc=$?
expect_rc "patterns: a pattern that does not compile" 2
expect_stderr "patterns: the message names the line and the pattern" \
	"bad.conf:2: [category blog] include: not a POSIX extended regular expression"
stop_fixture

# ---- a proxy, extra headers and a cookie jar ([crawl]) -------------------
cat >"$tmp/web3" <<'EOF'
host h.test
page /            200 text/html  title="Home" links=/token,/members header="Set-Cookie: sess=abc123; Path=/"
page /token       200 text/html  title="T" require="X-Token: s3cret"
page /members     200 text/html  title="M" require="Cookie: sess=abc123"
page /robots.txt  200 text/plain body="User-agent: *\nAllow: /\n"
default 404
EOF
start_fixture "$tmp/web3" "$tmp/log3"
echo http://h.test/ >"$tmp/h-seeds"
# hcrawl NAME [LINES...] — a crawl of h.test through the fixture as a
# proxy (no connect_to: h.test resolves nowhere), with LINES in [crawl].
hcrawl()
{
	local name=$1
	shift
	{
		printf '[crawl]\nstore = %s\nper_host_delay_ms = 0\nproxy = http://127.0.0.1:%s\n' \
			"$tmp/$name-store" "$port"
		printf '%s\n' "$@"
	} >"$tmp/$name.conf"
	(cd "$tmp" && timeout 60 "$sigcrawl" crawl -c "$name.conf" --seeds h-seeds --quiet >"$tmp/out" 2>"$tmp/err")
	rc=$?
}
status_of() { "$sigcrawl" export --store "$tmp/$1-store" | grep -F "\"normalized\":\"http://h.test$2\"" | sed 's/.*"status":\([0-9]*\).*/\1/'; }
hcrawl plain
expect_rc "proxy: the crawl through it" 0
check_true "proxy: the home page came through the proxy" [ "$(status_of plain /)" = 200 ]
check_true "without the header, /token is refused" [ "$(status_of plain /token)" = 403 ]
check_true "without cookies, /members is refused" [ "$(status_of plain /members)" = 403 ]
hcrawl extra "header = X-Token: s3cret" "cookie_jar = jar.txt"
expect_rc "header and cookie jar: the crawl" 0
check_true "header: /token is served" [ "$(status_of extra /token)" = 200 ]
check_true "cookie jar: the cookie set by / is sent to /members" [ "$(status_of extra /members)" = 200 ]
check_true "cookie jar: written back at the end" grep -q "sess" "$tmp/jar.txt"
stop_fixture

# ---- passwords in URLs ([crawl] url_credentials) -------------------------
# A seed and a link carry a password; the pages behind them want Basic
# authentication with it (ann:s3cret, bob:pw2), and /private's relative
# link takes its userinfo.
cat >"$tmp/web4" <<'EOF'
host h.test
page /          200 text/html  body="<title>Home</title><a href='http://ann:s3cret@h.test/private'>members</a>"
page /private   200 text/html  title="P" links=more require="Authorization: Basic YW5uOnMzY3JldA=="
page /more      200 text/html  title="M" require="Authorization: Basic YW5uOnMzY3JldA=="
page /bob       200 text/html  title="B" require="Authorization: Basic Ym9iOnB3Mg=="
page /robots.txt 200 text/plain body="User-agent: *\nAllow: /\n"
default 404
EOF
start_fixture "$tmp/web4" "$tmp/log4"
printf 'http://h.test/\nhttp://bob:pw2@h.test/bob\n' >"$tmp/h-seeds"
# Nothing the crawl keeps or says holds a password, or its Basic form;
# only the home page's body, which the WARC files keep as it came, has
# the link as written.
secret='s3cret|pw2|YW5uOnMzY3JldA|Ym9iOnB3Mg'
no_secret()
{
	local name=$1 f
	for f in "$tmp/$name-store"/*; do
		[ -f "$f" ] || continue
		# The data file is sparse (64 GiB apparent): its data only.
		if python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
end, off = os.fstat(fd).st_size, 0
while off < end:
    try:
        off = os.lseek(fd, off, os.SEEK_DATA)
    except OSError:
        break
    hole = os.lseek(fd, off, os.SEEK_HOLE)
    os.lseek(fd, off, os.SEEK_SET)
    while off < hole:
        b = os.read(fd, min(1 << 20, hole - off))
        sys.stdout.buffer.write(b)
        off += len(b)
' "$f" | grep -aqE "$secret"; then
			fail "$name: a password in $f"
			return
		fi
	done
	if [ -d "$tmp/$name-store/warc" ] &&
		zcat "$tmp/$name-store"/warc/*.warc.gz |
		grep -av "<a href='http://ann:s3cret@h.test/private'>" |
			grep -aqE "$secret"; then
		fail "$name: a password in the WARC files"
		return
	fi
	if "$sigcrawl" export --store "$tmp/$name-store" |
		cat - "$tmp/out" "$tmp/err" | grep -aqE "$secret"; then
		fail "$name: a password in the export or the crawl's output"
		return
	fi
	pass "$name: no password in the store, its WARC files, export or output"
}
auth_status() { "$sigcrawl" export --store "$tmp/$1-store" | grep -F "\"normalized\":\"http://$2@h.test$3\"" | sed 's/.*"status":\([0-9]*\).*/\1/'; }
hcrawl mask "[store]" "warc = yes"
expect_rc "url_credentials mask (default): the crawl" 0
check_true "mask: the link is recorded with its password masked" [ "$(auth_status mask 'ann:***' /private)" = 403 ]
check_true "mask: the seed too, and fetched without it" [ "$(auth_status mask 'bob:***' /bob)" = 403 ]
check_true "mask: the URL as found is masked as well" grep -qF '"url":"http://ann:***@h.test/private"' <("$sigcrawl" export --store "$tmp/mask-store")
check_true "mask: the fixture answered /private 403, then /bob 403" \
	[ "$(awk -F'\t' '$3 == "done" && ($6 == "/private" || $6 == "/bob") { print $6, $7 }' "$tmp/log4" | sort | tr '\n' ' ')" = "/bob 403 /private 403 " ]
no_secret mask
hcrawl use "url_credentials = use" "[store]" "warc = yes"
expect_rc "url_credentials use: the crawl" 0
check_true "use: the link's password is sent" [ "$(auth_status use 'ann:***' /private)" = 200 ]
check_true "use: and with the relative link that takes its userinfo" [ "$(auth_status use 'ann:***' /more)" = 200 ]
check_true "use: the seed's password is sent" [ "$(auth_status use 'bob:***' /bob)" = 200 ]
check_true "use: the fixture answered /private and /bob 200" \
	[ "$(awk -F'\t' '$3 == "done" && ($6 == "/private" || $6 == "/bob") && $7 == 200' "$tmp/log4" | wc -l)" -eq 2 ]
check_true "use: the WARC request record keeps the scheme, not the credentials" grep -aqF 'Authorization: Basic ***' <(zcat "$tmp/use-store"/warc/*.warc.gz)
no_secret use
printf '[crawl]\nurl_credentials = keep\n' >"$tmp/bad-u.conf"
(cd "$tmp" && "$sigcrawl" crawl -c bad-u.conf --check-config >"$tmp/out" 2>"$tmp/err")
rc=$?
expect_rc "url_credentials: an unknown value" 2
expect_stderr "url_credentials: its line" "bad-u.conf:2: [crawl] url_credentials: expected mask or use"
printf '[crawl]\nheader = X Bad: 1\n' >"$tmp/bad-h.conf"
(cd "$tmp" && "$sigcrawl" crawl -c bad-h.conf --check-config >"$tmp/out" 2>"$tmp/err")
rc=$?
expect_rc "a bad header line" 2
expect_stderr "a bad header line: its line" "bad-h.conf:2: [crawl] header: expected \"Name: value\""
printf '[crawl]\nproxy = ftp://x\n' >"$tmp/bad-p.conf"
(cd "$tmp" && "$sigcrawl" crawl -c bad-p.conf --check-config >"$tmp/out" 2>"$tmp/err")
rc=$?
expect_rc "a proxy of another scheme" 2
expect_stderr "a proxy of another scheme: its line" "bad-p.conf:2: [crawl] proxy: expected [SCHEME://]HOST[:PORT]"
stop_fixture
finish
