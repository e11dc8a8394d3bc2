#!/bin/bash
# test-adaptive-subst.sh SIGCRAWL FIXTURE — substitution rules with string
# variables: a wiki whose articles are linked as /index.php?title=X,
# /index.php/X and /wiki/X (one page under the three forms) is learned as
# rules over the title, "{S}", not one rule per article.
#
# Forty articles, their titles words (one an escaped UTF-8 dash).  The
# home page links the first six in the three forms, which gives the
# rules their documents; three levels down /hub links the other
# thirty-four in the three forms, and each article links the next one in
# the three forms.  Under the strict profile every article is fetched
# three times; under adaptive each form other than the one fetched first
# is fetched about min_support times, plus its audits.
set -u
sigcrawl=$1
fixture=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/crawl-lib.sh"

words=(river stone market garden winter harbor signal lantern copper meadow
	thunder orchard ledger compass falcon quarry velvet ember glacier
	canyon beacon mosaic timber saddle prairie harvest cobalt pillar
	ribbon summit tundra willow anchor)
# body N: 80 words drawn by N, the same for the same N.
body()
{
	local n=$1 out="" i
	for i in $(seq 80); do
		out="$out ${words[$(((n * 7919 + i * i * 31 + i * n) % 33))]}"
	done
	echo "$out"
}

# The titles: two words each, capitalised as a wiki writes them.
titles=()
for n in $(seq 0 38); do
	a=${words[$((n % 33))]} b=${words[$(((n * 7 + 5 + n / 33) % 33))]}
	titles+=("${a^}_${b}")
done
titles+=("Codeop_%E2%80%94_Compile")
forms() { echo "/index.php?title=$1,/index.php/$1,/wiki/$1"; }

{
	echo "host wiki.test"
	for n in $(seq 0 39); do
		t=${titles[$n]}
		next=${titles[$(((n + 1) % 40))]}
		b="<p>article $n $(body $((n + 11)))</p>"
		for p in "/index.php?title=$t" "/index.php/$t" "/wiki/$t"; do
			echo "page $p 200 title=$t links=$(forms "$next") body=\"$b\""
		done
	done
	home=""
	for n in $(seq 0 5); do home="$home$(forms "${titles[$n]}"),"; done
	echo "page / 200 links=${home}/a"
	echo "page /a 200 links=/b"
	echo "page /b 200 links=/hub"
	hub=""
	for n in $(seq 6 39); do hub="$hub$(forms "${titles[$n]}"),"; done
	echo "page /hub 200 links=${hub%,}"
} >"$tmp/wiki.web"
check_true "the web is valid" "$fixture" --web "$tmp/wiki.web" --check

# crawl PROFILE: the log in $tmp/PROFILE.log, the store $tmp/PROFILE.store.
crawl()
{
	local profile=$1
	start_fixture "$tmp/wiki.web" "$tmp/$profile.log"
	printf '[crawl]\nper_host_delay_ms = 0\nmax_depth = 8\n[normalize]\nprofile = %s\n' \
		"$profile" >"$tmp/$profile.conf"
	echo "http://wiki.test/" >"$tmp/$profile.seeds"
	"$sigcrawl" crawl -c "$tmp/$profile.conf" --store "$tmp/$profile.store" \
		--seeds "$tmp/$profile.seeds" --connect-to "::127.0.0.1:$port" \
		--quiet >"$tmp/$profile.out" 2>&1
	local rc=$?
	stop_fixture
	check_true "$profile: the crawl ends with exit 0 ($rc)" [ $rc -eq 0 ]
}

# fetched LOG FORM: how many articles were requested under FORM (a
# prefix: "/index.php?title=", "/index.php/", "/wiki/"); missing LOG: how
# many under none.
fetched()
{
	local log=$1 form=$2 k=0 t
	for t in "${titles[@]}"; do
		[ "$(requests wiki.test "$form$t" "$log")" -ge 1 ] && k=$((k + 1))
	done
	echo $k
}
missing()
{
	local log=$1 k=0 t
	for t in "${titles[@]}"; do
		[ $(($(requests wiki.test "/index.php?title=$t" "$log") +
			$(requests wiki.test "/index.php/$t" "$log") +
			$(requests wiki.test "/wiki/$t" "$log"))) -eq 0 ] && k=$((k + 1))
	done
	echo $k
}

crawl strict
for f in "/index.php?title=" "/index.php/" "/wiki/"; do
	check_true "strict: all 40 articles fetched as $f ($(fetched "$tmp/strict.log" "$f"))" \
		[ "$(fetched "$tmp/strict.log" "$f")" -eq 40 ]
done

crawl adaptive
"$sigcrawl" rules --store "$tmp/adaptive.store" --json >"$tmp/adaptive.rules"
cat "$tmp/adaptive.rules"
check_true "adaptive: every article fetched ($(missing "$tmp/adaptive.log") missing)" \
	[ "$(missing "$tmp/adaptive.log")" -eq 0 ]
# min_support (3) and the audits of each rule: the first key of a rule,
# one in audit_every (32) held URLs, a 0.03 share of the keys.
most=0
total=0
for f in "/index.php?title=" "/index.php/" "/wiki/"; do
	k=$(fetched "$tmp/adaptive.log" "$f")
	total=$((total + k))
	[ "$k" -gt "$most" ] && most=$k
done
check_true "adaptive: the forms other than the key's fetched at most 2 x (3 + 6) times ($((total - most)) of 80 under strict)" \
	[ $((total - most)) -le 18 ]
python3 - "$tmp/adaptive.rules" >"$tmp/subst" <<'EOF'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["host"] == "wiki.test" and "{S}" in r["rule"] and r["state"] == "active" and r["support"] >= 3:
        print(r["rule"], r["support"])
EOF
check_true "sigcrawl rules lists an active {S} rule with support >= 3 ($(tr '\n' ';' <"$tmp/subst"))" \
	[ -s "$tmp/subst" ]
perart=$(grep -c '"rule":"rewrite [^"]*Codeop\|"rule":"rewrite [^"{]*_[a-z]* ->' "$tmp/adaptive.rules")
check_true "no rule names one article ($perart)" [ "$perart" -eq 0 ]

finish
