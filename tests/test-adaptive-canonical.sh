#!/bin/bash
# test-adaptive-canonical.sh SIGCRAWL FIXTURE — the page's own word (SPEC
# §7): a rel=canonical naming another URL of the host is a claim, verified
# when the named URL's text is found the same within the near-duplicate
# distance; once a host's claims are verified, the URL a fetched page
# claims is not fetched again.
#
#   w.test, a small wiki: 40 articles; for 30 of them an alias
#     (/index.php?title=Alias_N&redirect=no) answers 200 with the
#     article's text plus a "(Redirected from Alias_N)" line and names the
#     article as canonical (the odd ones in a Link header, relative, the
#     even ones in a <link>).  The aliases are linked from the ten
#     articles without one; the aliased articles only from the aliases'
#     text.  Each alias is its own URL shape: no rule can learn them.
#     The ten others have a permanent link to their latest revision
#     (&oldid=), the text with a revision banner, naming the article.
#   h.test, the classic misconfiguration: every page names / as
#     canonical.  Its claims fail (the home page's text is another), so
#     no page is merged into the home page and every page is fetched.
#   r.test, trusted and then wrong: five aliases verify, then /s/N name
#     /t/N (another text: merged unfetched), then /u/N name /v/N (fetched
#     before, another text): the failures retire the trust, and the /t/N
#     it merged are fetched after all.
set -u
sigcrawl=$1
fixture=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/crawl-lib.sh"

words=(river stone market garden winter harbor signal lantern copper meadow
	thunder orchard ledger compass falcon quarry velvet ember glacier
	canyon beacon mosaic timber saddle prairie harvest cobalt pillar
	ribbon summit tundra willow anchor)
# text N: 120 words of article N, 40 of them its own ("n7w3").
text()
{
	local n=$1 out="" i
	for i in $(seq 80); do
		out="$out ${words[$(((n * 7919 + i * i * 31 + i * n) % 33))]}"
		[ $((i % 2)) -eq 0 ] && out="$out n${n}w$((i / 2))"
	done
	echo "$out"
}
# next N: the article article N links (within 1-30 and within 31-40).
next() { if [ "$1" -le 30 ]; then echo $(($1 % 30 + 1)); else echo $((31 + ($1 - 30) % 10)); fi; }
# page N [LINE]: article N's HTML, LINE after its heading.
page()
{
	local n=$1 line=${2:-} more=""
	if [ "$n" -gt 30 ]; then
		for a in $((3 * (n - 30) - 2)) $((3 * (n - 30) - 1)) $((3 * (n - 30))); do
			more="$more<a href='/index.php?title=Alias_$a&amp;redirect=no'>Alias $a</a> "
		done
	fi
	[ "$n" -gt 30 ] && more="$more<a href='/index.php?title=Article_$n&amp;oldid=$((9000 + n))'>permanent link</a>"
	echo "<h1>Article $n</h1>$line<p>$(text "$n")</p><a href='/wiki/Article_$(next "$n")'>next</a> $more"
}

{
	echo "host w.test"
	main=""
	for n in $(seq 31 40); do main="$main/wiki/Article_$n,"; done
	echo "page / 200 title=Main links=${main%,}"
	for n in $(seq 40); do
		echo "page /wiki/Article_$n 200 title=Article_$n body=\"$(page "$n")\""
	done
	for n in $(seq 30); do
		red="<div id=contentSub>(Redirected from Alias_$n)</div>"
		if [ $((n % 2)) -eq 1 ]; then
			echo "page \"/index.php?title=Alias_$n&redirect=no\" 200 title=Article_$n" \
				"header=\"Link: </wiki/Article_$n>; rel=\\\"canonical\\\"\"" \
				"body=\"$(page "$n" "$red")\""
		else
			echo "page \"/index.php?title=Alias_$n&redirect=no\" 200 title=Article_$n" \
				"body=\"<link rel=canonical href='http://w.test/wiki/Article_$n'>$(page "$n" "$red")\""
		fi
	done
	extra=""
	for n in $(seq 30); do extra="$extra/wiki/Article_$n,"; done
	echo "page /extra 200 title=Extra links=${extra%,}"
	# The permanent links to the ten unaliased articles' latest revision:
	# the text, a revision banner, the article named as canonical.
	for n in $(seq 31 40); do
		ban="<div id=mw-revision-info>This is the current revision of this page, as edited at 12:0$((n % 10)).</div>"
		echo "page \"/index.php?title=Article_$n&oldid=$((9000 + n))\" 200 title=Article_$n" \
			"body=\"<link rel=canonical href=/wiki/Article_$n>$(page "$n" "$ban")\""
	done
	echo "host h.test"
	echo "page / 200 title=Home body=\"<h1>Home</h1><p>$(text 90)</p><a href=/p1>p1</a>\""
	start=""
	for n in $(seq 20); do
		start="$start<a href=/p$n>p$n</a>"
		if [ $((n % 2)) -eq 1 ]; then
			echo "page /p$n 200 title=P$n header=\"Link: <http://h.test/>; rel=canonical\"" \
				"body=\"<h1>P$n</h1><p>$(text $((n + 100)))</p><a href=/>home</a>\""
		else
			echo "page /p$n 200 title=P$n" \
				"body=\"<link rel='canonical' href='/'><h1>P$n</h1><p>$(text $((n + 100)))</p><a href=/>home</a>\""
		fi
	done
	echo "page /start 200 title=Start body=\"$start\""
	echo "host r.test"
	top=""
	for n in 1 2 3 4 5; do top="$top<a href=/a/$n>a$n</a>"; done
	for n in $(seq 20); do top="$top<a href=/v/$n>v$n</a>"; done
	echo "page / 200 title=R body=\"<h1>R</h1><p>$(text 400)</p>$top\""
	for n in 1 2 3 4 5; do
		more=""
		[ "$n" -eq 5 ] && for k in $(seq 10); do more="$more<a href=/s/$k>s$k</a>"; done
		echo "page /a/$n 200 title=A$n body=\"<h1>A$n</h1><p>$(text $((n + 410)))</p><a href=/l/$n>l$n</a>$more\""
		echo "page /l/$n 200 title=A$n body=\"<link rel=canonical href=/a/$n><h1>A$n</h1><div>(Redirected from L$n)</div><p>$(text $((n + 410)))</p>$more\""
	done
	for n in $(seq 20); do
		echo "page /v/$n 200 title=V$n body=\"<h1>V$n</h1><p>$(text $((n + 420)))</p>\""
		echo "page /u/$n 200 title=U$n body=\"<link rel=canonical href=/v/$n><h1>U$n</h1><p>$(text $((n + 450)))</p>\""
	done
	for n in $(seq 10); do
		echo "page /s/$n 200 title=S$n body=\"<link rel=canonical href=/t/$n><h1>S$n</h1><p>$(text $((n + 480)))</p><a href=/t/$n>t</a><a href=/u/$n>u</a><a href=/u/$((n + 10))>u</a>\""
		echo "page /t/$n 200 title=T$n body=\"<h1>T$n</h1><p>$(text $((n + 500)))</p>\""
	done
} >"$tmp/c.web"

check_true "the web is valid" "$fixture" --web "$tmp/c.web" --check
start_fixture "$tmp/c.web" "$tmp/c.log"
printf '[crawl]\nper_host_delay_ms = 0\nmax_depth = 8\n[normalize]\nprofile = adaptive\n' >"$tmp/c.conf"
printf 'http://w.test/\nhttp://h.test/start\nhttp://r.test/\n' >"$tmp/c.seeds"
"$sigcrawl" crawl -c "$tmp/c.conf" --store "$tmp/c.store" --seeds "$tmp/c.seeds" \
	--connect-to "::127.0.0.1:$port" --quiet >"$tmp/c.out" 2>&1
rc=$?
stop_fixture
check_true "the crawl ends with exit 0 ($rc)" [ $rc -eq 0 ]
"$sigcrawl" rules --store "$tmp/c.store" >"$tmp/c.rules" 2>&1
"$sigcrawl" export --store "$tmp/c.store" >"$tmp/c.export"
cat "$tmp/c.rules"

# Each record: normalized URL, whether fetched, what it duplicates.
python3 - "$tmp/c.export" >"$tmp/c.recs" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print(r.get("normalized", ""), int(bool(r.get("fetched"))),
          r.get("duplicate_of") or "-")
PY

# --- w.test ------------------------------------------------------------------
alias_req=0 both=0 missing=0 wrong=0
for n in $(seq 40); do
	art=$(requests w.test "/wiki/Article_$n" "$tmp/c.log")
	al=0
	[ "$n" -le 30 ] && al=$(requests w.test "/index.php?title=Alias_$n&redirect=no" "$tmp/c.log")
	alias_req=$((alias_req + al))
	[ "$art" -ge 1 ] && [ "$al" -ge 1 ] && both=$((both + 1))
	if [ "$art" -eq 0 ]; then
		# Its text came under its alias, and its record says so.
		dup=$(awk -v u="http://w.test/wiki/Article_$n" '$1 == u { print $3 }' "$tmp/c.recs")
		if [ "$al" -eq 0 ] || ! grep -q "title=Alias_$n&redirect=no\$" <<<"$dup"; then
			missing=$((missing + 1))
			echo "article $n: not fetched, its record duplicates '${dup:-nothing}'"
		fi
	fi
done
# An article recorded as a duplicate of another article, or of another
# article's alias.
wrong=$(awk '$1 ~ /\/wiki\/Article_/ && $3 != "-" {
	split($1, a, "Article_"); n = a[2]
	if ($3 !~ ("title=Alias_" n "&") && $3 !~ ("Article_" n "$")) print }' "$tmp/c.recs" | tee /dev/stderr | wc -l)
echo "w.test: alias URLs requested $alias_req, articles fetched twice (under the alias and its own URL) $both"
check_true "every article's text was fetched, under its URL or its alias ($missing missing)" [ "$missing" -eq 0 ]
check_true "at most min_support + audits + 2 articles were fetched twice ($both of 30)" [ "$both" -le 7 ]
check_true "no article is recorded as a duplicate of another ($wrong)" [ "$wrong" -eq 0 ]
check_true "w.test's claims are trusted" grep -Eq '^claims +trusted +w\.test ' "$tmp/c.rules"

# A second run on the store, from a page that links every aliased
# article: the trust and its merges are kept, and a merged article is not
# fetched now either.
merged_before=$(awk '$1 ~ /\/wiki\/Article_/ && $2 == 0' "$tmp/c.recs" | wc -l)
start_fixture "$tmp/c.web" "$tmp/c2.log"
echo "http://w.test/extra" >"$tmp/c2.seeds"
"$sigcrawl" crawl -c "$tmp/c.conf" --store "$tmp/c.store" --seeds "$tmp/c2.seeds" \
	--connect-to "::127.0.0.1:$port" --quiet >"$tmp/c2.out" 2>&1
rc=$?
stop_fixture
check_true "a second run ends with exit 0 ($rc)" [ $rc -eq 0 ]
again=$(awk -F'\t' '$3 == "req" && $4 == "w.test" && $6 ~ /^\/wiki\/Article_/' "$tmp/c2.log" | wc -l)
check_true "it fetches none of the $merged_before merged articles ($again requests)" [ "$again" -eq 0 ]
check_true "w.test's claims are still trusted" sh -c "'$sigcrawl' rules --store '$tmp/c.store' | grep -Eq '^claims +trusted +w\.test '"

# --- h.test ------------------------------------------------------------------
hfetched=0
for n in $(seq 20); do
	[ "$(requests h.test "/p$n" "$tmp/c.log")" -ge 1 ] && hfetched=$((hfetched + 1))
done
merged=$(awk '$1 ~ /^http:\/\/h\.test\// && $3 ~ /^http:\/\/h\.test\// && $3 != "-"' "$tmp/c.recs" | wc -l)
homedup=$(awk '$3 == "http://h.test/"' "$tmp/c.recs" | wc -l)
check_true "every page of h.test was fetched ($hfetched of 20)" [ "$hfetched" -eq 20 ]
check_true "its home page was fetched" [ "$(requests h.test / "$tmp/c.log")" -ge 1 ]
check_true "no page of h.test is recorded as a duplicate of another ($merged)" [ "$merged" -eq 0 ]
check_true "none merged into its home page ($homedup)" [ "$homedup" -eq 0 ]
check_true "h.test's claims failed and are not trusted" grep -Eq '^claims +refuted +h\.test ' "$tmp/c.rules"
# --- r.test ------------------------------------------------------------------
tfetched=0
for n in $(seq 10); do
	[ "$(requests r.test "/t/$n" "$tmp/c.log")" -ge 1 ] && tfetched=$((tfetched + 1))
done
check_true "r.test's claims were trusted, then retired by their failures" \
	grep -Eq '^claims +retired +r\.test .* merged [1-9]' "$tmp/c.rules"
check_true "every URL the retired trust merged was fetched after all ($tfetched of 10)" [ "$tfetched" -eq 10 ]
finish
