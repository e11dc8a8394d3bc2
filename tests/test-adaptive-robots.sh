#!/bin/bash
# test-adaptive-robots.sh SIGCRAWL FIXTURE — pages that give nothing: a
# URL shape whose pages all say noindex and nofollow is skipped under the
# adaptive profile ([adaptive] skip_noindex_nofollow), and nothing else
# is.  The web is a small wiki, as the real one where 82 % of the
# requests went to such pages:
#
#   - 30 articles /wiki/A1../wiki/A30, linked from the main page, each
#     linking its edit form /index.php?action=edit&title=AN (meta robots
#     "noindex,nofollow"), A1..A12 also their history
#     /index.php?action=history&title=AN (no meta; the header
#     "X-Robots-Tag: noindex, nofollow");
#   - A1..A8 a print view /index.php?action=print&title=AN that says
#     noindex only, whose links (/wiki/PN) must be followed, and A1..A6
#     an information page /index.php?action=info&title=AN that says
#     nofollow only: neither is ever skipped; A1..A10 a log-in page
#     /index.php?title=Special:UserLogin&returnto=AN that says
#     <meta name=sigcrawl content=none>, sigcrawl's own name;
#   - drafts /wiki/Draft1..4 (meta noindex only) linking /wiki/DeepN that
#     no other page links; /wiki/A5 says "X-Robots-Tag: otherbot:
#     noindex, nofollow", which is not for us.
#
# 1. Default config: every article, print view, information page, draft
#    and deep page fetched; of the edit forms, histories and log-in pages
#    at most min_support + 2 each (the pages in flight when the shape
#    turns), as against 30, 12 and 10 under strict; the rest recorded as
#    skipped; export, the summary and `rules` say so.
# 2. skip_noindex_nofollow = no: every edit form and history fetched.
# 3. An audit that finds an indexable page retires the skip: a wiki whose
#    first edit forms say noindex,nofollow and the later ones do not, with
#    audit_share 0.5: the shape retires, and the forms it skipped are
#    queued again and fetched.
set -u
sigcrawl=$1
fixture=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/crawl-lib.sh"

words=(river stone market garden winter harbor signal lantern copper meadow
	thunder orchard ledger compass falcon quarry velvet ember glacier
	canyon beacon mosaic timber saddle prairie harvest cobalt pillar
	ribbon summit tundra willow anchor)
# body N: 40 words drawn by N, the same for the same N.
body()
{
	local n=$1 out="" i
	for i in $(seq 40); do
		out="$out ${words[$(((n * 7919 + i * i * 31 + i * n) % 33))]}"
	done
	echo "$out"
}

nn='<meta name=robots content=\"noindex,nofollow\">'
{
	echo "host wiki.test"
	links=""
	for n in $(seq 30); do links="$links<a href=/wiki/A$n>A$n</a>"; done
	for n in 1 2 3 4; do links="$links<a href=/wiki/Draft$n>D$n</a>"; done
	echo "page / 200 title=Main body=\"<p>main $(body 0)</p>$links\""
	for n in $(seq 30); do
		a="<a href=\\\"/index.php?action=edit&title=A$n\\\">edit</a>"
		[ "$n" -le 12 ] && a="$a<a href=\\\"/index.php?action=history&title=A$n\\\">history</a>"
		[ "$n" -le 8 ] && a="$a<a href=\\\"/index.php?action=print&title=A$n\\\">print</a>"
		[ "$n" -le 6 ] && a="$a<a href=\\\"/index.php?action=info&title=A$n\\\">info</a>"
		[ "$n" -le 10 ] && a="$a<a href=\\\"/index.php?title=Special:UserLogin&returnto=A$n\\\">log in</a>"
		hdr=""
		[ "$n" -eq 5 ] && hdr='header="X-Robots-Tag: otherbot: noindex, nofollow"'
		echo "page /wiki/A$n 200 title=A$n $hdr body=\"<p>article $n $(body "$n")</p>$a<a href=/>main</a>\""
		echo "page \"/index.php?action=edit&title=A$n\" 200 title=EditA$n body=\"$nn<p>editing $n $(body $((n + 100)))</p><a href=/wiki/EditHelp$n>help</a>\""
		[ "$n" -le 12 ] && echo "page \"/index.php?action=history&title=A$n\" 200 title=HistA$n header=\"X-Robots-Tag: noindex, nofollow\" body=\"<p>history $n $(body $((n + 200)))</p><a href=/wiki/HistHelp$n>help</a>\""
		[ "$n" -le 8 ] && echo "page \"/index.php?action=print&title=A$n\" 200 title=PrintA$n body=\"<meta name=robots content=noindex><p>print $n $(body $((n + 300)))</p><a href=/wiki/P$n>p</a>\""
		[ "$n" -le 8 ] && echo "page /wiki/P$n 200 title=P$n body=\"<p>printed $n $(body $((n + 400)))</p>\""
		[ "$n" -le 10 ] && echo "page \"/index.php?title=Special:UserLogin&returnto=A$n\" 200 title=LoginA$n body=\"<meta name=sigcrawl content=none><p>log in $n $(body $((n + 800)))</p><a href=/wiki/LoginHelp$n>help</a>\""
		[ "$n" -le 6 ] && echo "page \"/index.php?action=info&title=A$n\" 200 title=InfoA$n body=\"<meta name=robots content=nofollow><p>info $n $(body $((n + 500)))</p>\""
	done
	for n in 1 2 3 4; do
		echo "page /wiki/Draft$n 200 title=Draft$n body=\"<meta name=ROBOTS content=NoIndex><p>draft $n $(body $((n + 600)))</p><a href=/wiki/Deep$n>deep</a>\""
		echo "page /wiki/Deep$n 200 title=Deep$n body=\"<p>deep $n $(body $((n + 700)))</p>\""
	done
	echo "default 404"
} >"$tmp/wiki.web"

# crawl NAME WEB EXTRA: crawl WEB from http://wiki.test/ under the adaptive
# profile, [adaptive] EXTRA, 20 ms between requests (without a delay the
# fixture answers pages faster than the writer commits the first of them,
# and how many edit forms are fetched before the first one's word is in
# depends on the machine's load); the log $tmp/NAME.log, the store
# $tmp/NAME.store, the summary $tmp/NAME.out, rules and export beside.
crawl()
{
	local name=$1 web=$2 extra=$3
	check_true "$name: the web is valid" "$fixture" --web "$web" --check
	start_fixture "$web" "$tmp/$name.log"
	printf '[crawl]\nper_host_delay_ms = 20\n[normalize]\nprofile = adaptive\n[adaptive]\n%b\n' \
		"$extra" >"$tmp/$name.conf"
	echo "http://wiki.test/" >"$tmp/$name.seeds"
	"$sigcrawl" crawl -c "$tmp/$name.conf" --store "$tmp/$name.store" \
		--seeds "$tmp/$name.seeds" --connect-to "::127.0.0.1:$port" \
		>"$tmp/$name.out" 2>&1
	local rc=$?
	stop_fixture
	check_true "$name: the crawl ends with exit 0 ($rc)" [ $rc -eq 0 ]
	"$sigcrawl" rules --store "$tmp/$name.store" --json >"$tmp/$name.rules" 2>&1
	"$sigcrawl" rules --store "$tmp/$name.store" >"$tmp/$name.table" 2>&1
	"$sigcrawl" export --store "$tmp/$name.store" >"$tmp/$name.export" 2>&1
}

# fetched LOG PREFIX: how many distinct targets starting with PREFIX
# were requested.
fetched()
{
	awk -F'\t' -v p="$2" '$3 == "req" && $4 == "wiki.test" && index($6, p) == 1 {print $6}' "$1" |
		sort -u | wc -l
}

# every NAME LOG PATH...: each PATH requested at least once.
every()
{
	local name=$1 log=$2 missing=0 p
	shift 2
	for p in "$@"; do
		[ "$(requests wiki.test "$p" "$log")" -ge 1 ] || missing=$((missing + 1))
	done
	check_true "$name ($missing of $# missing)" [ $missing -eq 0 ]
}

# shape NAME SHAPE FIELD: a field of a skip shape of the crawl NAME.
shape()
{
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    try:
        r = json.loads(l)
    except ValueError:
        continue
    if r.get("kind") == "skip_noindex_nofollow" and r["shape"] == sys.argv[2]:
        print(r[sys.argv[3]]); break' "$tmp/$1.rules" "$2" "$3"
}

articles=()
for n in $(seq 30); do articles+=("/wiki/A$n"); done
others=()
for n in $(seq 8); do others+=("/index.php?action=print&title=A$n" "/wiki/P$n"); done
for n in $(seq 6); do others+=("/index.php?action=info&title=A$n"); done
for n in 1 2 3 4; do others+=("/wiki/Draft$n" "/wiki/Deep$n"); done
edit_shape='/{}.php?action=edit&title={}'
hist_shape='/{}.php?action=history&title={}'

# --- 1. The default config --------------------------------------------------
crawl on "$tmp/wiki.web" ""
cat "$tmp/on.out" "$tmp/on.table"
every "default: every article was fetched" "$tmp/on.log" "${articles[@]}"
every "default: the noindex-only and nofollow-only pages, the drafts and their links were fetched" \
	"$tmp/on.log" "${others[@]}"
edits=$(fetched "$tmp/on.log" "/index.php?action=edit")
hists=$(fetched "$tmp/on.log" "/index.php?action=history")
check_true "default: at most min_support + 2 of the 30 edit forms were fetched ($edits)" \
	[ "$edits" -le 5 ]
check_true "default: at most min_support + 2 of the 12 histories (X-Robots-Tag) were fetched ($hists)" \
	[ "$hists" -le 5 ]
logins=$(fetched "$tmp/on.log" "/index.php?title=Special:UserLogin")
check_true "default: at most min_support + 2 of the 10 log-in pages (meta name=sigcrawl) were fetched ($logins)" \
	[ "$logins" -le 5 ]
check_true "default: no link of an edit form was followed" \
	[ "$(fetched "$tmp/on.log" /wiki/EditHelp)" -eq 0 ]
check_true "default: no link of a history (X-Robots-Tag nofollow) was followed" \
	[ "$(fetched "$tmp/on.log" /wiki/HistHelp)" -eq 0 ]
skipped=$(grep -c '"error":"skipped_noindex_nofollow"' "$tmp/on.export")
check_true "default: the edit forms and histories not fetched are recorded as skipped ($skipped)" \
	[ "$skipped" -eq $((30 - edits + 12 - hists + 10 - logins)) ]
check_true "default: export shows an edit form's robots flag" \
	grep -q '"normalized":"http://wiki.test/index.php?action=edit&title=A1".*"robots":"noindex,nofollow"' "$tmp/on.export"
check_true "default: export shows a history's robots flag (X-Robots-Tag)" \
	grep -q '"normalized":"http://wiki.test/index.php?action=history&title=A1".*"robots":"noindex,nofollow"' "$tmp/on.export"
check_true "default: export shows a log-in page's robots flag (meta name=sigcrawl)" \
	grep -q '"normalized":"http://wiki.test/index.php?title=Special:UserLogin&returnto=A1".*"robots":"noindex,nofollow"' "$tmp/on.export"
check_true "default: export shows a draft's noindex" \
	grep -q '"normalized":"http://wiki.test/wiki/Draft1".*"robots":"noindex"}' "$tmp/on.export"
check_true "default: another agent's X-Robots-Tag is not ours (A5 robots null)" \
	grep -q '"normalized":"http://wiki.test/wiki/A5".*"robots":null}' "$tmp/on.export"
check_true "default: the summary counts the pages noindex,nofollow" \
	grep -q "^pages noindex,nofollow $((edits + hists + logins)) fetched, $skipped skipped" "$tmp/on.out"
check_true "default: the edit forms' shape is active (rules)" \
	[ "$(shape on "$edit_shape" state)" = active ]
check_true "default: the histories' shape is active (rules)" \
	[ "$(shape on "$hist_shape" state)" = active ]
check_true "default: the edit shape's support is min_support or more ($(shape on "$edit_shape" support))" \
	[ "$(shape on "$edit_shape" support)" -ge 3 ]
check_true "default: the edit shape counts what it skipped" \
	[ "$(shape on "$edit_shape" skipped)" -eq $((30 - edits)) ]
check_true "default: no print or info shape skips" \
	[ -z "$(shape on '/{}.php?action=print&title={}' state)$(shape on '/{}.php?action=info&title={}' state)" ]
check_true "default: rules lists the skipped shapes" \
	grep -q "^active .*wiki.test .*$edit_shape" "$tmp/on.table"

# The shapes survive a restart: the store opens again with them, and
# `rules` lists them as before.
start_fixture "$tmp/wiki.web" "$tmp/again.log"
"$sigcrawl" crawl -c "$tmp/on.conf" --store "$tmp/on.store" --seeds "$tmp/on.seeds" \
	--connect-to "::127.0.0.1:$port" >"$tmp/again.out" 2>&1
rc=$?
stop_fixture
check_true "restart: the crawl opens the store with its skip shapes ($rc)" [ $rc -eq 0 ]
"$sigcrawl" rules --store "$tmp/on.store" >"$tmp/again.table" 2>&1
check_true "restart: rules lists the same shapes" \
	cmp -s <(grep "wiki.test" "$tmp/on.table") <(grep "wiki.test" "$tmp/again.table")

# --- 2. skip_noindex_nofollow = no -------------------------------------------
crawl off "$tmp/wiki.web" "skip_noindex_nofollow = no"
check_true "off: every edit form was fetched ($(fetched "$tmp/off.log" "/index.php?action=edit"))" \
	[ "$(fetched "$tmp/off.log" "/index.php?action=edit")" -eq 30 ]
check_true "off: every history was fetched" \
	[ "$(fetched "$tmp/off.log" "/index.php?action=history")" -eq 12 ]
check_true "off: nothing recorded as skipped" \
	[ "$(grep -c skipped_noindex_nofollow "$tmp/off.export")" -eq 0 ]
check_true "off: export still shows the flag" \
	grep -q '"normalized":"http://wiki.test/index.php?action=edit&title=A9".*"robots":"noindex,nofollow"' "$tmp/off.export"

# --- 3. An audit finds an indexable page ---------------------------------------
# Edit forms of A1..A4 say noindex,nofollow, those of A5..A30 nothing (an
# engine whose edit forms became indexable).  With audit_share 0.5 every
# second URL the shape would skip is fetched: the first audit meets an
# indexable form, the shape retires, and every form is fetched in the end.
sed -e "/action=edit&title=A\([5-9]\|[1-3][0-9]\)\"/s/<meta name=robots content=\\\\\"noindex,nofollow\\\\\">//" \
	"$tmp/wiki.web" >"$tmp/audit.web"
check_true "audit: the web has 26 indexable edit forms" \
	[ "$(grep -c '^page "/index.php?action=edit&title=A[0-9]*" 200 title=EditA[0-9]* body="<p>' "$tmp/audit.web")" -eq 26 ]
crawl audit "$tmp/audit.web" "audit_share = 0.5"
cat "$tmp/audit.table"
state=$(shape audit "$edit_shape" state)
check_true "audit: the edit shape retired after a failed audit ($state)" [ "$state" = retired ]
check_true "audit: its audit failure is counted" [ "$(shape audit "$edit_shape" audit_failures)" -ge 1 ]
askipped=$(shape audit "$edit_shape" skipped)
check_true "audit: it had skipped some forms before it retired (${askipped:-?})" [ "${askipped:-0}" -ge 1 ]
check_true "audit: every edit form was fetched, those it skipped after it retired" \
	[ "$(fetched "$tmp/audit.log" "/index.php?action=edit")" -eq 30 ]
check_true "audit: no edit form is left recorded as skipped" \
	[ "$(grep -c 'action=edit.*"error":"skipped_noindex_nofollow"' "$tmp/audit.export")" -eq 0 ]
check_true "audit: the histories are still skipped" \
	[ "$(shape audit "$hist_shape" state)" = active ]

finish
