#!/bin/bash
# test-adaptive-audit.sh SIGCRAWL FIXTURE — a wiki engine's URLs under
# adaptive normalization: evidence counted where the risk is, parameters
# ignorable for one value, and the audit contract.  One small web,
# w.test, of 40 articles /index.php?title=An.  Each article links
#
#   - /login?returnto=An, one login page under 40 URLs: a rule of that one
#     route ("ignore parameter returnto on /login") is supported by its
#     agreeing pairs, so the login page is fetched min_support + audits
#     times, not 40 (support counted in documents stays at one);
#   - ?title=An&action=view (the article) and ?title=An&action=edit (an
#     edit form, another text): "ignore parameter action" is refuted, but
#     "ignore parameter action=view" holds, and every edit form is fetched.
#
# The home page links every article under ?uselang=en too, all queued
# before a page is fetched: the rules that ignore it hold queued URLs
# (at the lease), which are audited as the new links are.  Every active
# rule that held URLs shows its support and audits, at least one audit,
# and no more than audit_every held URLs per audit.  Two more small webs:
# a rule made active by transfer has its held URLs audited (x4.test), and
# an active rule whose texts turn generic keeps its support (m.test).
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

min_support=3
audit_every=8
{
	echo "host w.test"
	home=""
	login="<p>log in to the wiki $(body 500)</p>"
	for n in $(seq 40); do
		t="/index.php?title=A$n"
		home="$home$t,$t&uselang=en,"
		a="<p>article $n $(body "$n")</p>"
		a="$a<a href=\\\"$t&amp;action=view\\\">view</a>"
		a="$a<a href=\\\"$t&amp;action=edit\\\">edit</a>"
		a="$a<a href=\\\"/login?returnto=A$n\\\">log in</a>"
		for u in "$t" "$t&action=view" "$t&uselang=en"; do
			echo "page $u 200 title=A$n body=\"$a\""
		done
		echo "page $t&action=edit 200 title=E$n body=\"<p>editing $n $(body $((n + 200)))</p>\""
		echo "page /login?returnto=A$n 200 title=Login body=\"$login\""
	done
	echo "page / 200 links=${home%,}"
} >"$tmp/w.web"

check_true "the web is valid" "$fixture" --web "$tmp/w.web" --check
start_fixture "$tmp/w.web" "$tmp/w.log"
printf '[crawl]\nper_host_delay_ms = 0\nmax_depth = 4\n[normalize]\nprofile = adaptive\n[adaptive]\nmin_support = %s\naudit_every = %s\n' \
	$min_support $audit_every >"$tmp/w.conf"
echo "http://w.test/" >"$tmp/w.seeds"
"$sigcrawl" crawl -c "$tmp/w.conf" --store "$tmp/w.store" \
	--seeds "$tmp/w.seeds" --connect-to "::127.0.0.1:$port" \
	--quiet >"$tmp/w.out" 2>&1
rc=$?
stop_fixture
check_true "the crawl ends with exit 0 ($rc)" [ $rc -eq 0 ]
"$sigcrawl" rules --store "$tmp/w.store" --json --all | grep '^{' >"$tmp/w.rules"
cat "$tmp/w.rules"

# rule RULE FIELD: a field of a rule of w.test ("" if none).
rule()
{
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("host") == "w.test" and r.get("rule") == sys.argv[2]:
        print(r.get(sys.argv[3], "")); break' "$tmp/w.rules" "$1" "$2"
}
# fetched PATTERN: requests of w.test whose path matches PATTERN (ERE).
fetched()
{
	awk -F'\t' -v p="$1" '$3 == "req" && $4 == "w.test" && $6 ~ p' "$tmp/w.log" | wc -l
}

# --- 1. Evidence counted where the risk is ---------------------------------
logins=$(fetched '^/login[?]returnto=')
r="ignore parameter returnto on /login"
state=$(rule "$r" state)
audits=$(rule "$r" audits)
support=$(rule "$r" support)
check_true "'$r' is active (state '$state', support $support)" [ "$state" = active ]
check_true "the login page was fetched min_support + audits times at most ($logins <= $min_support + ${audits:-0})" \
	[ "$logins" -le $((min_support + ${audits:-0})) ]

# --- 2. A parameter ignorable for one value ---------------------------------
views=$(fetched '^/index[.]php[?]title=A[0-9]+&action=view$')
edits=$(fetched '^/index[.]php[?]title=A[0-9]+&action=edit$')
r="ignore parameter action=view"
state=$(rule "$r" state)
audits=$(rule "$r" audits)
check_true "'$r' is active (state '$state')" [ "$state" = active ]
check_true "?action=view was fetched min_support + audits times at most ($views <= $min_support + ${audits:-0})" \
	[ "$views" -le $((min_support + ${audits:-0})) ]
check_true "every edit form was fetched ($edits of 40)" [ "$edits" -ge 40 ]
state=$(rule "ignore parameter action" state)
check_true "'ignore parameter action' is not active ('$state')" [ "$state" != active ]

# --- 3. The audit contract ----------------------------------------------------
python3 - "$tmp/w.rules" $audit_every >"$tmp/w.contract" <<'EOF'
import json, sys
every = int(sys.argv[2])
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "rule" not in r or r.get("state") != "active":
        continue
    held, audits, support = r.get("held", 0), r.get("audits"), r.get("support")
    if audits is None or support is None:
        print("%s: no support or audits shown" % r["rule"])
    elif support < 1:
        print("%s: active on support %d" % (r["rule"], support))
    elif held and audits < 1:
        print("%s: held %d URLs, no audit" % (r["rule"], held))
    elif held // every > audits + 1:
        print("%s: held %d URLs on %d audits (audit_every %d)" % (r["rule"], held, audits, every))
EOF
held=$(python3 -c '
import json, sys
print(sum(json.loads(l).get("held", 0) for l in open(sys.argv[1]) if "rule" in json.loads(l)))' "$tmp/w.rules")
check_true "the active rules held URLs ($held)" [ "$held" -ge $audit_every ]
check_true "every active rule is audited as the contract says ($(head -3 "$tmp/w.contract" | tr '\n' ' '))" \
	[ ! -s "$tmp/w.contract" ]

# --- 4. A rule made active by transfer is audited too ------------------------
# x1..x3.test ignore their session parameter sid and teach its kind; x4,
# crawled after them into the same store, has the rule on one document of
# its own (transferred), and its home page links every page under two ids
# at once: what the rule holds it holds at the lease.  Its first held URL
# is an audit.
for h in 1 2 3 4; do
	links=""
	echo "host x$h.test"
	for n in $(seq 12); do
		links="$links/p$n?sid=a$n,/p$n?sid=b$n,"
		echo "page /p$n 200 title=P$n body=\"<p>page $h $n $(body $((h * 100 + n)))</p>\""
	done
	echo "page / 200 links=${links%,}"
done >"$tmp/x.web"
check_true "the transfer web is valid" "$fixture" --web "$tmp/x.web" --check
start_fixture "$tmp/x.web" "$tmp/x.log"
# A delay, so that x4's rule applies while most of its URLs are queued.
printf '[crawl]\nper_host_delay_ms = 100\nper_host_connections = 1\nmax_depth = 4\n[normalize]\nprofile = adaptive\n[adaptive]\nmin_support = %s\naudit_every = %s\n' \
	$min_support $audit_every >"$tmp/x.conf"
printf 'http://x1.test/\nhttp://x2.test/\nhttp://x3.test/\n' >"$tmp/x.seeds1"
echo "http://x4.test/" >"$tmp/x.seeds2"
for run in 1 2; do
	"$sigcrawl" crawl -c "$tmp/x.conf" --store "$tmp/x.store" \
		--seeds "$tmp/x.seeds$run" --connect-to "::127.0.0.1:$port" \
		--quiet >"$tmp/x.out$run" 2>&1
	rc=$?
	check_true "transfer crawl $run ends with exit 0 ($rc)" [ $rc -eq 0 ]
done
stop_fixture
"$sigcrawl" rules --store "$tmp/x.store" --json --all | grep '^{' >"$tmp/x.rules"
grep '"host":"x4.test"' "$tmp/x.rules"
python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("host") == "x4.test" and r.get("rule") == "ignore parameter sid":
        print("transferred" if r["transferred"] else "earned", r["state"], r["held"], r["audits"])
' "$tmp/x.rules" >"$tmp/x.check"
read -r how state held audits <"$tmp/x.check"
check_true "x4.test has 'ignore parameter sid' by transfer ('${how:-} ${state:-}')" \
	test "${how:-}" = transferred -a "${state:-}" = active
check_true "it held URLs (${held:-0})" [ "${held:-0}" -ge 1 ]
check_true "and its held URLs were audited (${audits:-0} audits)" [ "${audits:-0}" -ge 1 ]

# --- 5. An active rule keeps its true support ---------------------------------
# m.test serves each article as /wiki/An, /index.php/An and
# /index.php?title=An: three paths no fixed step folds together, so each
# article's text turns generic once its third form is fetched, after the
# rules that fold them ("rewrite /index.php -> /wiki") applied.  The
# landed build withdrew that support from the active rule (support 0,
# holding URLs); it keeps it.
{
	echo "host m.test"
	links=""
	for n in $(seq 12); do
		links="$links/index.php/A$n,/wiki/A$n,"
		b="<p>article $n $(body $((n + 300)))</p><a href=/index.php?title=A$n>x</a>"
		for u in "/wiki/A$n" "/index.php/A$n" "/index.php?title=A$n"; do
			echo "page $u 200 title=A$n body=\"$b\""
		done
	done
	echo "page / 200 links=${links%,}"
} >"$tmp/m.web"
check_true "the three-forms web is valid" "$fixture" --web "$tmp/m.web" --check
start_fixture "$tmp/m.web" "$tmp/m.log"
echo "http://m.test/" >"$tmp/m.seeds"
"$sigcrawl" crawl -c "$tmp/w.conf" --store "$tmp/m.store" --seeds "$tmp/m.seeds" \
	--connect-to "::127.0.0.1:$port" --quiet >"$tmp/m.out" 2>&1
rc=$?
stop_fixture
check_true "the three-forms crawl ends with exit 0 ($rc)" [ $rc -eq 0 ]
"$sigcrawl" rules --store "$tmp/m.store" --json --all | grep '^{' >"$tmp/m.rules"
grep '"state":"active"' "$tmp/m.rules"
python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("state") == "active" and not r["transferred"] and r["support"] < int(sys.argv[2]):
        print("%s: support %d" % (r["rule"], r["support"]))
    elif r.get("state") == "active" and r["held"] and r["audits"] < 1:
        print("%s: held %d, no audit" % (r["rule"], r["held"]))
' "$tmp/m.rules" $min_support >"$tmp/m.check"
check_true "every active rule shows min_support or more and its audits ($(head -2 "$tmp/m.check" | tr '\n' ' '))" \
	[ ! -s "$tmp/m.check" ]

finish
