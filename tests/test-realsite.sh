#!/bin/bash
# test-realsite.sh SIGCRAWL FIXTURE [DIR] — a real site nobody on the
# project wrote: the Python 3.11 documentation of Debian's python3.11-doc
# (530 HTML pages written by Sphinx), served from its files by sc-fixture,
# crawled completely.  What sigcrawl fetched is compared with an
# independent oracle (realsite-oracle.py: the standard library's HTML
# parser, breadth first over <a href>): every page a reader reaches must
# be fetched; the adaptive profile must fetch the same URLs and apply no
# rule (no page here has two names).  Sphinx heads name about.html, genindex.html, search.html and
# copyright.html in <link rel=author|index|search|copyright> before the
# body's <a> does; those pages were once lost.  The package is a test
# dependency (packaging/test-deps.txt): a missing one fails the test.
set -u
sigcrawl=$1
fixture=$2
docs=${3:-/usr/share/doc/python3.11/html}
. "$(dirname "$0")/crawl-lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

if ! [ -f "$docs/index.html" ]; then
	fail "the real site is there ($docs/index.html; apt-get install python3.11-doc)"
	finish
fi

python3 "$here/realsite-oracle.py" "$docs" index.html >"$tmp/oracle"
n_oracle=$(wc -l <"$tmp/oracle")
n_files=$(find "$docs" -name '*.html' | wc -l)
echo "# $n_files HTML files, $n_oracle reached from index.html by the oracle"
# So that the comparison below cannot pass on an empty oracle.
check_true "the oracle reaches most of the site ($n_oracle of $n_files)" \
	test "$n_oracle" -ge $((n_files * 9 / 10))

# The pages also link to some 200 hosts on the web (https): with
# --connect-to they reach the fixture, whose plain HTTP fails their TLS
# handshake, so each is an unreachable host, given up after its retries
# (short ones here) and its URLs recorded: the crawl still ends.
printf 'host docs.test\nroot %s\ndefault 404\n' "$docs" >"$tmp/web"
printf 'http://docs.test/index.html\n' >"$tmp/seeds"
printf '[crawl]\nhost_backoff_ms = 100\nhost_retries = 1\n' >"$tmp/conf"
start_fixture "$tmp/web" "$tmp/log"
"$sigcrawl" crawl -c "$tmp/conf" --store "$tmp/store" --seeds "$tmp/seeds" \
	--connect-to "::127.0.0.1:$port" --per-host-delay-ms 0 \
	--per-host-connections 4 --max-depth 100 --quiet \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
stop_fixture
check_true "the crawl ends with exit 0 (got $rc)" [ "$rc" -eq 0 ]
check_true "the hosts of the web are given up as unreachable" \
	grep -q "www.python.org: tls" "$tmp/err"
# Every URL queued was recorded: a second run finds nothing to do.
start_fixture "$tmp/web" "$tmp/log2"
"$sigcrawl" crawl -c "$tmp/conf" --store "$tmp/store" \
	--connect-to "::127.0.0.1:$port" --quiet >"$tmp/out2" 2>&1
stop_fixture
check_true "nothing is left queued (a rerun fetches nothing)" \
	grep -q "^pages 0 " "$tmp/out2"

# The HTML files fetched: records of status 200 and type text/html, their
# URL's path mapped to a file as the server maps it.
"$sigcrawl" export --store "$tmp/store" >"$tmp/export"
check_true "the links to the web are recorded with their error" \
	grep -q '"normalized":"https://www.python.org/".*"error":"tls"' "$tmp/export"
python3 - "$tmp/export" >"$tmp/fetched" <<'PY'
import json, sys
from urllib.parse import unquote, urlsplit
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["status"] != 200 or not (r["content_type"] or "").startswith("text/html"):
        continue
    p = unquote(urlsplit(r["normalized"]).path)
    if p.endswith("/"):
        p += "index.html"
    print(p.lstrip("/"))
PY
sort -u -o "$tmp/fetched" "$tmp/fetched"
n_fetched=$(wc -l <"$tmp/fetched")
echo "# sigcrawl fetched $n_fetched HTML files"
missing=$(comm -23 "$tmp/oracle" "$tmp/fetched")
check_true "every page the oracle reaches is fetched (missing: $(echo $missing | head -c 600))" \
	test -z "$missing"
for f in about.html copyright.html search.html genindex.html genindex-all.html \
	genindex-A.html genindex-Symbols.html; do
	check_true "$f (named first by a <link> of the head) is fetched" \
		grep -qxF "$f" "$tmp/fetched"
done
# What sigcrawl fetched beyond the oracle is there too (no invented URL).
extra=$(comm -13 "$tmp/oracle" "$tmp/fetched" | while read -r f; do
	[ -f "$docs/$f" ] || echo "$f"
done)
check_true "every page fetched is a file of the site (not: $extra)" test -z "$extra"

# The adaptive profile on the same site: no page of it has two names, so
# no rule may apply, and the crawl fetches exactly the site's URLs strict
# fetched, with the same answers (the web's hosts, unreachable, aside).
start_fixture "$tmp/web" "$tmp/log3"
"$sigcrawl" crawl -c "$tmp/conf" --store "$tmp/store-adaptive" --seeds "$tmp/seeds" \
	--connect-to "::127.0.0.1:$port" --per-host-delay-ms 0 \
	--per-host-connections 4 --max-depth 100 --profile adaptive --quiet \
	>"$tmp/out3" 2>&1
rc=$?
stop_fixture
check_true "the adaptive crawl ends with exit 0 (got $rc)" [ "$rc" -eq 0 ]
fetched_paths() {
	"$sigcrawl" export --store "$1" | python3 -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r["fetched"] and r["normalized"].startswith("http://docs.test/"):
        print(r["normalized"], r["status"])' | sort
}
fetched_paths "$tmp/store" >"$tmp/f-strict"
fetched_paths "$tmp/store-adaptive" >"$tmp/f-adaptive"
check_true "adaptive fetched the site's URLs strict fetched ($(wc -l <"$tmp/f-adaptive") and $(wc -l <"$tmp/f-strict"))" \
	cmp -s "$tmp/f-strict" "$tmp/f-adaptive"
n_active=$("$sigcrawl" rules --store "$tmp/store-adaptive" --json | grep -c '"state":"active"')
check_true "no rule applies on a site without aliases ($n_active active)" [ "$n_active" -eq 0 ]
finish
