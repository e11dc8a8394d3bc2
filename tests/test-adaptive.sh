#!/bin/bash
# test-adaptive.sh SIGCRAWL FIXTURE — adaptive normalization (SPEC §7,
# crawler/learn/learn.h) as an operator sees it:
#
#   1. a planted counter-example: a parameter that one host ignores on
#      every page but one earns a rule; the audit of the URLs it holds
#      finds the page where it matters, the rule is retired, and every URL
#      it held back is fetched after all;
#      (at audit_share 0.3, and at the default 0.03: the key that
#      collects the most URLs is audited all the same);
#   1b. a rel=canonical proposes a rule but does not support it;
#   1c. a redirect target is not rewritten back onto its source;
#   1d. the audit samples documents, not URLs: eight variants of one page
#      are at most one sampled audit;
#   1e. a rule kind that holds on three hosts applies on a fourth on its
#      first supporting document, not with transfer = no, and not when
#      three more hosts refuted it; a transferred rule wrong on its new
#      host is retired by the audit, and nothing it held is lost;
#   2. kill -9 in the middle of a crawl of a generated web, three times,
#      keeps the rules learned so far, no restart requests a page that was
#      committed before it, and the resumed crawl ends with every document;
#   3. the daemon (serve) learns rules too, and says so in /status and
#      /metrics.
set -u
sigcrawl=$1
fixture=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/crawl-lib.sh"
spid=
on_exit()
{
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null
	[ -n "$fpid" ] && kill "$fpid" 2>/dev/null
}

rules_json() { "$sigcrawl" rules --store "$1" --json; }
# by_saved FILE — the short table of `rules` (FILE) lists its rules by
# fetches saved (the sixth column), most first.
by_saved() { awk '$1 == "active" || $1 == "retired" { print $6 }' "$1" | sort -n -r -c; }
# rule_field STORE HOST RULE FIELD
rule_field()
{
	rules_json "$1" | python3 -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r["host"] == sys.argv[1] and r["rule"] == sys.argv[2]:
        print(r[sys.argv[3]]); break' "$2" "$3" "$4"
}

# --- 1. A planted counter-example retires its rule ------------------------
# On r.test the parameter x changes nothing on /d1../d6 (the fixture
# answers /dN?x=K with /dN's page), which earns "ignore parameter x".  Two
# levels below, /hub links /q?x=1../q?x=24, each a page of its own: the
# rule holds them back (keyed /q), the audit fetches a share of them under
# their own form, the first audited one differs from /q, and the rule is
# retired; the URLs it held are then queued and fetched.
{
	echo "host r.test"
	links=""
	for n in 1 2 3 4 5 6; do
		links="$links/d$n?x=1,/d$n?x=2,"
		echo "page /d$n 200 title=D$n body=\"<p>document $n about rivers and stones number $n</p>\""
	done
	echo "page / 200 links=${links}/mid"
	echo "page /mid 200 links=/hub"
	qlinks=""
	for k in $(seq 24); do
		qlinks="$qlinks/q?x=$k,"
		echo "page /q?x=$k 200 body=\"<p>question $k has its own answer $k</p>\""
	done
	echo "page /hub 200 links=${qlinks%,}"
	echo "page /q 200 body=\"<p>the list of all questions</p>\""
} >"$tmp/r.web"
check_true "the planted web is valid" "$fixture" --web "$tmp/r.web" --check
start_fixture "$tmp/r.web" "$tmp/r.log"
cat >"$tmp/r.conf" <<EOF
[crawl]
per_host_delay_ms = 0
[normalize]
profile = adaptive
[adaptive]
min_support = 3
confidence = 0.9
audit_share = 0.3
EOF
echo "http://r.test/" >"$tmp/r.seeds"
"$sigcrawl" crawl -c "$tmp/r.conf" --store "$tmp/r.store" --seeds "$tmp/r.seeds" \
	--connect-to "::127.0.0.1:$port" --quiet >"$tmp/r.out" 2>&1
rc=$?
stop_fixture
check_true "the planted crawl ends with exit 0 ($rc)" [ $rc -eq 0 ]
rules_json "$tmp/r.store" >"$tmp/r.rules"
cat "$tmp/r.rules"
state=$(rule_field "$tmp/r.store" r.test "ignore parameter x" state)
support=$(rule_field "$tmp/r.store" r.test "ignore parameter x" support)
counters=$(rule_field "$tmp/r.store" r.test "ignore parameter x" counter_examples)
check_true "r.test learned 'ignore parameter x' and retired it (state '$state')" [ "$state" = retired ]
check_true "it had earned at least 3 documents of support ($support)" [ "${support:-0}" -ge 3 ]
check_true "a counter-example is recorded ($counters)" [ "${counters:-0}" -ge 1 ]
missing=0
for k in $(seq 24); do
	[ "$(requests r.test "/q?x=$k" "$tmp/r.log")" -ge 1 ] || missing=$((missing + 1))
done
check_true "every /q?x=K was fetched after the retirement ($missing missing)" [ $missing -eq 0 ]
dups=0
for n in 1 2 3 4 5 6; do
	dups=$((dups + $(requests r.test "/d$n?x=1" "$tmp/r.log") + $(requests r.test "/d$n?x=2" "$tmp/r.log")))
done
check_true "each /dN variant was fetched at most once ($dups requests for 12 URLs)" [ $dups -le 12 ]
"$sigcrawl" export --store "$tmp/r.store" >"$tmp/r.export"
check_true "export has the rule field" grep -q '"rule":' "$tmp/r.export"
"$sigcrawl" rules --store "$tmp/r.store" --all >"$tmp/r.text"
check_true "rules --all lists the retired rule" grep -Eq 'retired +r.test +ignore parameter x' "$tmp/r.text"
"$sigcrawl" rules --store "$tmp/r.store" >"$tmp/r.table"
check_true "rules (the short table) counts it" grep -q '^0 active, 0 candidates, 1 retired, 0 refuted; ' "$tmp/r.table"
check_true "... and lists it, with support, audits/failed, held and saved" \
	grep -Eq '^retired +r\.test +[0-9]+ +[0-9]+/[1-9][0-9]* +[0-9]+ +[1-9][0-9]*  ignore parameter x$' "$tmp/r.table"
"$sigcrawl" report --store "$tmp/r.store" >"$tmp/r.report"
check_true "report lists the retired rule" grep -Eq 'retired +r.test +ignore parameter x' "$tmp/r.report"
"$sigcrawl" report --store "$tmp/r.store" --json >"$tmp/r.rjson"
check_true "report --json counts it" python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["rules"]["retired"] != 1)' "$tmp/r.rjson"

# At the default audit_share the key /q is unlikely to be sampled, but the
# rule holds 24 URLs onto it, more than it held onto any page it was
# learned from: its fourth one is audited, and the rule retired all the same.
grep -v '^audit_share' "$tmp/r.conf" >"$tmp/r0.conf"
start_fixture "$tmp/r.web" "$tmp/r0.log"
"$sigcrawl" crawl -c "$tmp/r0.conf" --store "$tmp/r0.store" --seeds "$tmp/r.seeds" \
	--connect-to "::127.0.0.1:$port" --quiet >/dev/null 2>&1
rc=$?
stop_fixture
check_true "at the default audit share the planted crawl ends with exit 0 ($rc)" [ $rc -eq 0 ]
state=$(rule_field "$tmp/r0.store" r.test "ignore parameter x" state)
check_true "... and retires 'ignore parameter x' too ('$state')" [ "$state" = retired ]
missing=0
for k in $(seq 24); do
	[ "$(requests r.test "/q?x=$k" "$tmp/r0.log")" -ge 1 ] || missing=$((missing + 1))
done
check_true "... and every /q?x=K is fetched ($missing missing)" [ $missing -eq 0 ]

# --- 1b. rel=canonical is a hint a rule must still earn -------------------
# c.test's pages /pN?ref=X name /pN as canonical.  Crawled to depth 1, the
# canonical URLs are never fetched: the hint proposes "ignore parameter
# ref" and nothing supports it.  To depth 2 they are, the pairs support
# it, and it applies.
{
	echo "host c.test"
	links=""
	for n in 1 2 3 4 5; do
		links="$links/p$n?ref=x$n,"
		echo "page /p$n 200 body=\"<link rel=canonical href=/p$n><p>page $n of the canonical test, unlike the others $n</p>\""
	done
	echo "page / 200 links=${links%,}"
} >"$tmp/c.web"
start_fixture "$tmp/c.web" "$tmp/c.log"
echo "http://c.test/" >"$tmp/c.seeds"
for depth in 1 2; do
	"$sigcrawl" crawl -c "$tmp/r.conf" --store "$tmp/c$depth.store" \
		--seeds "$tmp/c.seeds" --max-depth $depth \
		--connect-to "::127.0.0.1:$port" --quiet >/dev/null 2>&1
	rc=$?
	check_true "the canonical crawl to depth $depth ends with exit 0 ($rc)" [ $rc -eq 0 ]
done
stop_fixture
state=$(rule_field "$tmp/c1.store" c.test "ignore parameter ref" state)
support=$(rule_field "$tmp/c1.store" c.test "ignore parameter ref" support)
check_true "depth 1: the hint proposed the rule, a candidate ('$state')" [ "$state" = candidate ]
check_true "depth 1: the hint alone supports nothing ($support)" [ "$support" = 0 ]
# `rules` shows a short table by default, without candidates; --all
# lists them.
"$sigcrawl" rules --store "$tmp/c1.store" >"$tmp/c1.table"
check_true "rules: the short table counts the candidate" grep -q '^0 active, 1 candidates, 0 retired, 0 refuted; 0 fetches saved' "$tmp/c1.table"
check_true "... and shows no line of it" test "$(grep -c 'ignore parameter ref' "$tmp/c1.table")" -eq 0
"$sigcrawl" rules --store "$tmp/c1.store" --all >"$tmp/c1.all"
check_true "rules --all lists the candidate" grep -Eq '^[0-9]+ +candidate +c\.test +ignore parameter ref$' "$tmp/c1.all"
check_true "... with its evidence" grep -q '^      support 0, counter-examples 0, audits 0 (0 failed), held 0, saved 0$' "$tmp/c1.all"
state=$(rule_field "$tmp/c2.store" c.test "ignore parameter ref" state)
check_true "depth 2: fetched pairs earned it ('$state')" [ "$state" = active ]

# --- 1c. a redirect target is never rewritten back onto its source -------
# On s.test /aN and /aN/ are one page, which earns "step
# add_trailing_slash".  Below, /r/ redirects to /r: the rule would key /r
# as /r/, the URL that redirected; /r must be fetched all the same.
{
	echo "host s.test"
	links=""
	for n in 1 2 3 4 5; do
		links="$links/a$n,/a$n/,"
		echo "page /a$n 200 body=\"<p>slash page $n, its own words $n</p>\""
		echo "page /a$n/ 200 body=\"<p>slash page $n, its own words $n</p>\""
	done
	echo "page / 200 links=${links}/mid"
	echo "page /mid 200 links=/r/"
	echo "page /r/ 301 location=http://s.test/r"
	echo "page /r 200 body=\"<p>the end of the redirect</p>\""
} >"$tmp/s.web"
start_fixture "$tmp/s.web" "$tmp/s.log"
echo "http://s.test/" >"$tmp/s.seeds"
"$sigcrawl" crawl -c "$tmp/r.conf" --store "$tmp/s.store" --seeds "$tmp/s.seeds" \
	--connect-to "::127.0.0.1:$port" --quiet >/dev/null 2>&1
rc=$?
stop_fixture
check_true "the redirect crawl ends with exit 0 ($rc)" [ $rc -eq 0 ]
state=$(rule_field "$tmp/s.store" s.test "step add_trailing_slash" state)
check_true "s.test learned 'step add_trailing_slash' ('$state')" [ "$state" = active ]
check_true "/r/ was fetched (it redirects)" [ "$(requests s.test /r/ "$tmp/s.log")" -ge 1 ]
check_true "/r, the target, was fetched" [ "$(requests s.test /r "$tmp/s.log")" -eq 1 ]

# --- 1d. the audit samples documents ---------------------------------------
# On v.test sid changes nothing: /dN?sid=K is /dN.  The rule is learned at
# depth 1; at depth 3 /hub links /p1../p8 and eight sid variants of each,
# 64 URLs held onto 8 documents.  Sampling URLs at 0.3 would audit about
# 19 of them; sampling documents audits at most one variant of each, and
# one more where a key collects many: at most 9.
{
	echo "host v.test"
	links=""
	for n in 1 2 3 4 5 6; do
		links="$links/d$n?sid=1,/d$n?sid=2,"
		echo "page /d$n 200 body=\"<p>variant page $n, words of its own $n</p>\""
	done
	echo "page / 200 links=${links}/mid"
	echo "page /mid 200 links=/hub"
	hub=""
	for n in 1 2 3 4 5 6 7 8; do
		hub="$hub/p$n,"
		echo "page /p$n 200 body=\"<p>held page $n, words of its own $n</p>\""
	done
	for k in 1 2 3 4 5 6 7 8; do
		for n in 1 2 3 4 5 6 7 8; do
			hub="$hub/p$n?sid=s$k,"
		done
	done
	echo "page /hub 200 links=${hub%,}"
} >"$tmp/v.web"
start_fixture "$tmp/v.web" "$tmp/v.log"
echo "http://v.test/" >"$tmp/v.seeds"
"$sigcrawl" crawl -c "$tmp/r.conf" --store "$tmp/v.store" --seeds "$tmp/v.seeds" \
	--connect-to "::127.0.0.1:$port" --quiet >/dev/null 2>&1
rc=$?
stop_fixture
check_true "the variants crawl ends with exit 0 ($rc)" [ $rc -eq 0 ]
state=$(rule_field "$tmp/v.store" v.test "ignore parameter sid" state)
held=$(rule_field "$tmp/v.store" v.test "ignore parameter sid" held)
audits=$(rule_field "$tmp/v.store" v.test "ignore parameter sid" audits)
check_true "v.test learned 'ignore parameter sid' ('$state')" [ "$state" = active ]
check_true "it held the variants ($held held)" [ "${held:-0}" -ge 50 ]
check_true "at most one audit per document and one more ($audits audits)" [ "${audits:-99}" -le 9 ]
variants=$(awk -F'\t' '$3 == "req" && $4 == "v.test" && $6 ~ /^\/p[1-8]\?sid=/' "$tmp/v.log" | wc -l)
check_true "the requests of variants are the audits ($variants requests)" [ "$variants" -eq "${audits:-0}" ]
pages=0
for n in 1 2 3 4 5 6 7 8; do
	[ "$(requests v.test "/p$n" "$tmp/v.log")" -eq 1 ] && pages=$((pages + 1))
done
check_true "every /pN was fetched once ($pages of 8)" [ $pages -eq 8 ]

# --- 1e. a rule kind that holds on other hosts transfers -----------------
# On t1, t2 and t3 sid changes nothing: each earns "ignore parameter sid"
# on three documents.  t4, reached from t1 four links down, is the same:
# with transfer (the default) its first pair of equal pages is enough,
# since the kind holds on three other hosts; with transfer = no it earns
# three documents like the others.  And where the kind was refuted on
# three more hosts (u1..u3: sid picks another page there), it no longer
# holds across hosts, and t4 earns three documents again.  audit_share 0
# keeps the request counts exact.
{
	for h in t1 t2 t3; do
		echo "host $h.test"
		links=""
		for n in 1 2 3 4 5 6; do
			links="$links/d$n?sid=1,/d$n?sid=2,"
			echo "page /d$n 200 body=\"<p>$h page $n, words of its own $n</p>\""
		done
		if [ $h = t1 ]; then
			echo "page / 200 links=${links}/m1"
			echo "page /m1 200 links=/m2"
			echo "page /m2 200 links=/m3"
			echo "page /m3 200 links=http://t4.test/"
		else
			echo "page / 200 links=${links%,}"
		fi
	done
	echo "host t4.test"
	links=""
	for n in 1 2 3 4 5 6; do
		links="$links/e$n?sid=1,/e$n?sid=2,/e$n?sid=3,"
		echo "page /e$n 200 body=\"<p>t4 page $n, words of its own $n</p>\""
	done
	echo "page / 200 links=${links%,}"
	for h in u1 u2 u3; do
		echo "host $h.test"
		echo "page / 200 links=/d1?sid=1,/d1?sid=2,/d2?sid=1,/d2?sid=2"
		echo "page /d1 200 body=\"<p>$h the page that sid leaves alone</p>\""
		echo "page /d2 200 body=\"<p>$h the list</p>\""
		echo "page /d2?sid=1 200 body=\"<p>$h the first of its kind</p>\""
		echo "page /d2?sid=2 200 body=\"<p>$h the second of its kind</p>\""
	done
} >"$tmp/x.web"
check_true "the transfer web is valid" "$fixture" --web "$tmp/x.web" --check
printf 'http://t1.test/\nhttp://t2.test/\nhttp://t3.test/\n' >"$tmp/x.seeds"
{ cat "$tmp/x.seeds"; printf 'http://u1.test/\nhttp://u2.test/\nhttp://u3.test/\n'; } >"$tmp/xu.seeds"
# x_crawl NAME SEEDS [TRANSFER]: a crawl of the transfer web.
x_crawl()
{
	cat >"$tmp/$1.conf" <<EOF
[crawl]
per_host_delay_ms = 100
max_depth = 8
[normalize]
profile = adaptive
[adaptive]
audit_share = ${x_audit:-0}
${3:+transfer = $3}
EOF
	start_fixture "${x_web:-$tmp/x.web}" "$tmp/$1.log"
	"$sigcrawl" crawl -c "$tmp/$1.conf" --store "$tmp/$1.store" --seeds "$2" \
		--connect-to "::127.0.0.1:$port" --quiet >/dev/null 2>&1
	local rc=$?
	stop_fixture
	check_true "$1: the crawl ends with exit 0 ($rc)" [ $rc -eq 0 ]
}
# t4_requests LOG: requests of t4's /eN?sid=K; t4_docs LOG: its documents
# fetched under some form.
t4_requests() { awk -F'\t' '$3 == "req" && $4 == "t4.test" && $6 ~ /^\/e[1-6]/' "$1" | wc -l; }
t4_docs() { awk -F'\t' '$3 == "req" && $4 == "t4.test" && $6 ~ /^\/e[1-6]/ { sub(/\?.*/, "", $6); print $6 }' "$1" | sort -u | wc -l; }
sid="ignore parameter sid"
# t4_rule NAME: state, transferred and support of t4's rule in NAME's store.
t4_rule()
{
	state=$(rule_field "$tmp/$1.store" t4.test "$sid" state)
	tr=$(rule_field "$tmp/$1.store" t4.test "$sid" transferred)
	support=$(rule_field "$tmp/$1.store" t4.test "$sid" support)
}
# t4_earned NAME WHY: t4 earned the rule on its own documents, and every
# document of t4 was fetched.
t4_earned()
{
	t4_rule "$1"
	check_true "$1 ($2): t4 earns '$sid' itself ('$state', transferred '$tr')" \
		[ "$state/$tr" = active/False ]
	check_true "$1: on min_support documents ($support)" [ "${support:-0}" -ge 3 ]
	check_true "$1: every document of t4 is fetched" [ "$(t4_docs "$tmp/$1.log")" -eq 6 ]
}
x_crawl xa "$tmp/x.seeds"
for h in t1 t2 t3; do
	state=$(rule_field "$tmp/xa.store" $h.test "$sid" state)
	tr=$(rule_field "$tmp/xa.store" $h.test "$sid" transferred)
	check_true "xa: $h learned '$sid' on its own ('$state', transferred '$tr')" \
		[ "$state/$tr" = active/False ]
done
t4_rule xa
check_true "xa: t4's '$sid' applies by transfer ('$state', transferred '$tr')" \
	[ "$state/$tr" = active/True ]
check_true "xa: on less support than min_support ($support)" [ "${support:-9}" -lt 3 ]
xa_req=$(t4_requests "$tmp/xa.log")
check_true "xa: t4's six documents cost at most one fetch more ($xa_req requests)" [ "$xa_req" -le 7 ]
check_true "xa: every document of t4 is fetched ($(t4_docs "$tmp/xa.log") of 6)" [ "$(t4_docs "$tmp/xa.log")" -eq 6 ]
"$sigcrawl" rules --store "$tmp/xa.store" --all >"$tmp/xa.rules"
check_true "xa: rules --all marks it transferred" grep -Eq "active +t4.test +$sid \(transferred\)" "$tmp/xa.rules"
check_true "xa: rules --all does not mark t1's" grep -Eq "active +t1.test +$sid\$" "$tmp/xa.rules"
"$sigcrawl" rules --store "$tmp/xa.store" >"$tmp/xa.table"
check_true "xa: the short table marks it transferred" grep -Eq "^active +t4.test .*  $sid \(transferred\)\$" "$tmp/xa.table"
check_true "xa: the short table has a line per active rule" \
	test "$(grep -c '^active ' "$tmp/xa.table")" -eq "$(rules_json "$tmp/xa.store" | grep -c '"state":"active"')"
check_true "xa: ... most fetches saved first" by_saved "$tmp/xa.table"
"$sigcrawl" report --store "$tmp/xa.store" >"$tmp/xa.report"
check_true "xa: report says so" grep -Eq "t4.test +$sid \(support [12], transferred" "$tmp/xa.report"

x_crawl xb "$tmp/x.seeds" no
t4_earned xb "transfer = no"
xb_req=$(t4_requests "$tmp/xb.log")
check_true "xb: t4 costs more requests ($xb_req) than with transfer ($xa_req)" [ "$xb_req" -ge $((xa_req + 2)) ]

x_crawl xc "$tmp/xu.seeds"
for h in u1 u2 u3; do
	state=$(rule_field "$tmp/xc.store" $h.test "$sid" state)
	check_true "xc: $h refuted '$sid' ('$state')" [ "$state" = refuted ]
done
t4_earned xc "refuted on three hosts"
"$sigcrawl" rules --store "$tmp/xc.store" >"$tmp/xc.table"
n_ref=$(rules_json "$tmp/xc.store" | grep -c '"state":"refuted"')
check_true "xc: the short table counts the refuted rules ($n_ref)" grep -Eq "^[0-9]+ active, [0-9]+ candidates, [0-9]+ retired, $n_ref refuted; " "$tmp/xc.table"
check_true "... and shows none of them" test "$(grep -Ec '^(refuted|candidate) ' "$tmp/xc.table")" -eq 0
check_true "rules --all lists them" test "$("$sigcrawl" rules --store "$tmp/xc.store" --all | grep -Ec '^[0-9]+ +refuted ')" -eq "$n_ref" -a "$n_ref" -ge 3

# A transferred rule can be wrong on its new host: on t5, sid changes
# nothing on /f1, the pair that transfers the rule, but picks the answer
# on /g?sid=1../g?sid=8.  The rule holds them onto /g; the audit (the
# default share: the heavy key /g is audited at its fourth URL) finds
# the difference, the rule is retired, and every answer is fetched.
sed 's|^page /m3 200 links=http://t4.test/$|page /m3 200 links=http://t5.test/|' "$tmp/x.web" >"$tmp/x5.web"
{
	echo "host t5.test"
	echo "page / 200 links=/f1?sid=1,/f1?sid=2,/hub"
	echo "page /f1 200 body=\"<p>t5 the page that sid leaves alone</p>\""
	links=""
	for k in 1 2 3 4 5 6 7 8; do
		links="$links/g?sid=$k,"
		echo "page /g?sid=$k 200 body=\"<p>t5 answer $k, its own words $k</p>\""
	done
	echo "page /hub 200 links=${links%,}"
	echo "page /g 200 body=\"<p>t5 the list of answers</p>\""
} >>"$tmp/x5.web"
check_true "the t5 web is valid" "$fixture" --web "$tmp/x5.web" --check
x_web=$tmp/x5.web x_audit=0.03 x_crawl xd "$tmp/x.seeds"
state=$(rule_field "$tmp/xd.store" t5.test "$sid" state)
tr=$(rule_field "$tmp/xd.store" t5.test "$sid" transferred)
check_true "xd: t5's transferred '$sid' is retired ('$state', transferred '$tr')" \
	[ "$state/$tr" = retired/True ]
missing=0
for k in 1 2 3 4 5 6 7 8; do
	[ "$(requests t5.test "/g?sid=$k" "$tmp/xd.log")" -ge 1 ] || missing=$((missing + 1))
done
check_true "xd: every /g?sid=K is fetched after all ($missing missing)" [ $missing -eq 0 ]

# --- 2. kill -9 keeps the rules --------------------------------------------
python3 "$here/adaptive/webgen.py" "$tmp/g" --seed 4 --hosts 6 --docs 60
start_fixture "$tmp/g/web" "$tmp/g.log"
cat >"$tmp/g.conf" <<EOF
[crawl]
per_host_delay_ms = 20
max_depth = 6
[normalize]
profile = adaptive
[category web]
seeds = $tmp/g/seeds
scope = any
EOF
"$sigcrawl" crawl -c "$tmp/g.conf" --store "$tmp/g.store" \
	--connect-to "::127.0.0.1:$port" --quiet >/dev/null 2>&1 &
cpid=$!
active_now() { rules_json "$tmp/g.store" 2>/dev/null | grep -c '"state":"active"'; }
have_rules() { [ "$(active_now)" -ge 2 ]; }
check_true "the crawl learns two active rules" wait_until 600 have_rules
kill -9 $cpid
wait $cpid 2>/dev/null
rules_json "$tmp/g.store" | grep '"state":"active"' | python3 -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l); print(r["id"], r["host"], r["rule"])' | sort >"$tmp/g.before"
check_true "the rules are readable after kill -9 ($(wc -l <"$tmp/g.before") active)" [ -s "$tmp/g.before" ]
# Committed fetches ("host path"), and the requests the fixture saw after
# line N of its log.
committed() {
	"$sigcrawl" export --store "$tmp/g.store" | python3 -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r["fetched"]:
        u = r["normalized"][len("http://"):]
        h, _, p = u.partition("/")
        print(h, "/" + p)' | sort -u
}
requests_after() {
	tail -n +$(($1 + 1)) "$tmp/g.log" |
		awk -F'\t' '$3 == "req" && $6 != "/robots.txt" { split($4, h, ":"); print h[1], $6 }' |
		sort -u
}
# Two more kills, each once 40 more pages are committed; then the run to
# the end.  No run may request a page that an earlier run committed.
for round in 1 2 3; do
	committed >"$tmp/g.c$round"
	mark[$round]=$(wc -l <"$tmp/g.log")
	[ $round -eq 3 ] && break
	want=$(($(wc -l <"$tmp/g.c$round") + 40))
	"$sigcrawl" crawl -c "$tmp/g.conf" --store "$tmp/g.store" \
		--connect-to "::127.0.0.1:$port" --quiet >/dev/null 2>&1 &
	cpid=$!
	grown() { [ "$(committed | wc -l)" -ge "$want" ]; }
	check_true "kill round $round: 40 more pages committed" wait_until 600 grown
	kill -9 $cpid
	wait $cpid 2>/dev/null
done
"$sigcrawl" crawl -c "$tmp/g.conf" --store "$tmp/g.store" \
	--connect-to "::127.0.0.1:$port" --quiet >/dev/null 2>&1
rc=$?
for round in 1 2 3; do
	again=$(comm -12 "$tmp/g.c$round" <(requests_after "${mark[$round]}") | head -5)
	check_true "no page committed before restart $round was requested after it ($again)" \
		test -z "$again" -a -s "$tmp/g.c$round"
done
stop_fixture
check_true "the resumed crawl ends with exit 0 ($rc)" [ $rc -eq 0 ]
rules_json "$tmp/g.store" | python3 -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l); print(r["id"], r["host"], r["rule"], r["state"])' >"$tmp/g.after"
lost=0
while read -r id host rule; do
	grep -qF "$id $host $rule " "$tmp/g.after" || lost=$((lost + 1))
done <"$tmp/g.before"
check_true "every rule active at the kill is still there, same id ($lost lost)" [ $lost -eq 0 ]
# Every document that a strict crawl of the same web reaches was fetched:
# the truth's documents of the 200 answers, both runs against a strict
# crawl's.
start_fixture "$tmp/g/web" "$tmp/g-strict.log"
"$sigcrawl" crawl -c "$tmp/g.conf" --store "$tmp/g-strict.store" --profile strict \
	--per-host-delay-ms 0 --connect-to "::127.0.0.1:$port" --quiet >/dev/null 2>&1
stop_fixture
cov=$(python3 - "$tmp/g/truth.jsonl" "$tmp/g.log" "$tmp/g-strict.log" <<'EOF'
import json, sys
truth = {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    truth[r["url"][len("http://"):]] = r["doc"]
def docs(log):
    status = {}
    rows = [l.rstrip("\n").split("\t") for l in open(log)]
    for f in rows:
        if len(f) >= 7 and f[2] == "done":
            status[f[1]] = f[6]
    out = set()
    for f in rows:
        if len(f) >= 6 and f[2] == "req" and status.get(f[1]) == "200":
            h = f[3].split(":")[0]
            d = truth.get(h + f[5], truth.get(h + f[5].split("?")[0]))
            if d is not None:
                out.add(d)
    return out
ref = docs(sys.argv[3])
print(len(docs(sys.argv[2]) & ref), len(ref))
EOF
)
read -r got all <<<"$cov"
echo "documents fetched: $got of $all"
check_true "the killed and resumed crawl fetched at least 99.5% of the documents ($got of $all)" \
	awk -v g="$got" -v a="$all" 'BEGIN { exit !(a > 0 && g >= 0.995 * a) }'

# --- 3. The daemon learns them too -----------------------------------------
python3 "$here/adaptive/webgen.py" "$tmp/d" --seed 9 --hosts 4 --docs 40
start_fixture "$tmp/d/web" "$tmp/d.log"
sock=$tmp/ctl.sock
cat >"$tmp/d.conf" <<EOF
[crawl]
store = $tmp/d.store
per_host_delay_ms = 0
max_depth = 6
connect_to = ::127.0.0.1:$port
[normalize]
profile = adaptive
[control]
listen = unix:$sock
[category web]
scope = any
EOF
"$sigcrawl" serve -c "$tmp/d.conf" 2>"$tmp/d.err" &
spid=$!
wait_socket() { [ -S "$sock" ]; }
check_true "the daemon's socket appears" wait_until 200 wait_socket
"$sigcrawl" submit --control "unix:$sock" --category web - <"$tmp/d/seeds" >/dev/null
# Status is asked as fast as the daemon answers while it crawls, until
# it has said idle for 2 s: "idle" must mean done.  (Before ccefa7e it
# said idle between a commit that queued links and the loop's wakeup:
# 1-4 such answers a run here.)
read -r _ polls _ early _ first _ later _ settled <<<"$(python3 "$here/status-watch.py" "$sock" 600 2)"
check_true "status watched through the crawl ($polls answers)" [ "${polls:-0}" -ge 100 ]
check_true "the daemon crawls the web, goes idle and stays so" [ "$settled" = yes ]
check_true "no status says idle while pages remain ($early said so; first at $first pages, then $later)" [ "${early:-1}" -eq 0 ]
"$sigcrawl" status --control "unix:$sock" >"$tmp/d.status"
cat "$tmp/d.status"
active=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rules"]["active"])' "$tmp/d.status")
saved=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rules"]["fetches_saved"])' "$tmp/d.status")
check_true "status counts active rules ($active)" [ "${active:-0}" -ge 1 ]
check_true "status counts fetches saved ($saved)" [ "${saved:-0}" -ge 1 ]
# GET /rules (the dashboard's list) lists what the card counts: every
# state, the active first, so the candidates /status counts are there.
curl -s --max-time 5 --unix-socket "$sock" http://x/rules >"$tmp/d.list"
check_true "/rules lists every rule /status counts, candidates included" python3 -c '
import json, sys
st = json.load(open(sys.argv[1]))["rules"]
ls = json.load(open(sys.argv[2]))
n = {}
for r in ls["rules"]:
    n[r["state"]] = n.get(r["state"], 0) + 1
want = {k: st[k] for k in ("active", "candidates", "retired", "refuted")}
got = {"active": n.get("active", 0), "candidates": n.get("candidate", 0),
       "retired": n.get("retired", 0), "refuted": n.get("refuted", 0)}
order = [r["state"] for r in ls["rules"]]
rank = {"active": 0, "candidate": 1, "retired": 2, "refuted": 3}
sys.exit(not (ls["total"] == sum(want.values()) and
              (got == want or len(ls["rules"]) == 200) and
              want["candidates"] > 0 and
              order == sorted(order, key=rank.get)))' "$tmp/d.status" "$tmp/d.list"
curl -s --max-time 5 --unix-socket "$sock" http://x/metrics >"$tmp/d.metrics"
check_true "/metrics counts the active rules" grep -Eq '^sigcrawl_rules\{state="active"\} [1-9]' "$tmp/d.metrics"
check_true "/metrics counts the fetches saved" grep -Eq '^sigcrawl_rules_fetches_saved [1-9]' "$tmp/d.metrics"
# The learner took [adaptive] when it opened: a reload that changes it is
# told so, and the rest of the reload applies.
printf '[adaptive]\ntransfer = no\n' >>"$tmp/d.conf"
kill -HUP $spid
reloaded() { grep -q 'reloaded .*d.conf' "$tmp/d.err"; }
check_true "the daemon reloads" wait_until 100 reloaded
check_true "a changed [adaptive] is kept as it runs, with a warning" \
	grep -q 'warning: reload: .*\[adaptive\] cannot change while the daemon runs' "$tmp/d.err"
kill -TERM $spid
wait $spid
rc=$?
spid=
check_true "the daemon stops cleanly ($rc)" [ $rc -eq 0 ]
n=$("$sigcrawl" rules --store "$tmp/d.store" --json | grep -c '"state":"active"')
check_true "the daemon's rules are in its store ($n active)" [ "$n" -ge 1 ]
stop_fixture
finish
