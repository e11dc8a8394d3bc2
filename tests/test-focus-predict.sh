#!/bin/bash
# test-focus-predict.sh SIGCRAWL FIXTURE — link prediction on webs of three
# shapes and several seeds (tests/focus/webgen.py; docs/focus.md
# "Prediction"), each crawl measured by tests/focus/measure.py against the
# generator's labels: harvest = fetched pages of the topic / fetched pages,
# coverage = fetched pages of the topic / those reachable from the seeds.
#
# sites (20 sites of one topic each, 10 % foreign articles, 35 % of the
# articles linking another site), seeds 1 and 2, tunnel 1:
#   prediction on: harvest >= 0.9, coverage >= 0.88, twice the harvest of
#   prediction off, and fewer pages fetched;
#   at a budget of half the topic's reachable pages: harvest >= 0.85, 0.1
#   more than without prediction;
#   tunnel 0: nothing pruned, the same pages fetched, and at the budget
#   a harvest 0.05 better.
# portals (portals, mixed-topic sites, tag pages, drifting series; "Read
# more" links), seeds 1, 2 and 10, tunnel 1: harvest >= 0.8 and 1.5 times
# that of prediction off, coverage >= 0.9; tunnel 0: no coverage lost.
# blogs (a blog platform: listings, tag pages of every word, "Next
# post"), seed 8, tunnel 1: harvest >= 0.8 and 1.5 times that of
# prediction off, coverage >= 0.9; the mean harvest of these four crawls
# >= 0.86.
# wiki (an encyclopedia: an article's edit and history pages name it in
# their URLs), seeds 4 and 11, tunnel 1: harvest >= 0.85, coverage >=
# 0.9, at most 4 edit and history pages fetched.
# And report's prediction figures: present, consistent, accurate on sites.
# The crawls keep no harvest floor (min_harvest 1): what is measured is the
# prediction; the floor's exploring is tests/test-focus-floor.sh's.
set -u
sigcrawl=$1
fixture=$2
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/focus" && pwd)

# measure WEB NAME TUNNEL PREDICT [BUDGET] — the measure.py JSON in
# $tmp/NAME.json
measure()
{
	python3 "$here/measure.py" "$sigcrawl" "$fixture" "$tmp/$1" sports \
		--tunnel "$3" --predict "$4" --budget "${5:-0}" \
		--min-relevance 0.3 --min-harvest 1 --json --work "$tmp/run-$2" \
		>"$tmp/$2.json" 2>"$tmp/$2.err"
	check_true "crawl $2 measured (see $tmp/$2.err)" [ -s "$tmp/$2.json" ]
}

# get NAME FIELD — a field of a measurement
get() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$tmp/$1.json" "$2"; }

# ge A B [FACTOR] [PLUS] — A >= B * FACTOR + PLUS
ge() { python3 -c 'import sys; a,b,f,p=map(float,sys.argv[1:]); sys.exit(0 if a >= b*f+p else 1)' "$1" "$2" "${3:-1}" "${4:-0}"; }

for seed in 1 2; do
	w=sites-$seed
	python3 "$here/webgen.py" --shape sites --seed "$seed" --out "$tmp/$w"
	measure "$w" "$w-off" 1 off
	measure "$w" "$w-on" 1 on
	hoff=$(get "$w-off" harvest) hon=$(get "$w-on" harvest)
	con=$(get "$w-on" coverage)
	echo "# $w tunnel 1: harvest $hoff -> $hon, coverage $(get "$w-off" coverage) -> $con, fetched $(get "$w-off" fetched) -> $(get "$w-on" fetched)"
	check_true "$w: harvest with prediction $hon >= 0.9" ge "$hon" 0.9
	check_true "$w: coverage with prediction $con >= 0.88" ge "$con" 0.88
	check_true "$w: harvest $hon >= 2 x $hoff" ge "$hon" "$hoff" 2
	check_true "$w: fewer pages fetched" \
		[ "$(get "$w-on" fetched)" -lt "$(get "$w-off" fetched)" ]
	python3 - "$tmp/$w-on.json" >"$tmp/$w-pred" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))["prediction"]
ok = (p is not None and p["scored"] > 100 and
      p["predicted_on_and_on"] <= p["predicted_on"] <= p["scored"] and
      p["on_but_predicted_off"] <= p["scored"] - p["predicted_on"] and
      abs(p["on_topic_rate"] * p["scored"] - p["predicted_on_and_on"] -
          p["on_but_predicted_off"]) < 0.5 and
      abs(p["precision"] - p["predicted_on_and_on"] / p["predicted_on"])
      < 1e-9 and 0.7 <= p["accuracy"] <= 1 and p["precision"] >= 0.8)
print("ok" if ok else "bad %s" % p)
EOF
	check_true "$w: report's prediction figures ($(cat "$tmp/$w-pred"))" \
		grep -qx ok "$tmp/$w-pred"
	check_true "$w: links pruned by prediction" \
		[ "$(get "$w-on" pruned_predicted)" -gt 0 ]
done

# At a budget of half the topic's pages: the first pages fetched.
w=sites-1
b=$(($(get "$w-on" topic_pages) / 2))
measure "$w" budget-off 1 off "$b"
measure "$w" budget-on 1 on "$b"
hoff=$(get budget-off harvest) hon=$(get budget-on harvest)
echo "# $w tunnel 1, budget $b: harvest $hoff -> $hon"
check_true "budget: fetched $b pages" [ "$(get budget-on fetched)" -eq "$b" ]
check_true "budget: harvest with prediction $hon >= 0.85" ge "$hon" 0.85
check_true "budget: harvest $hon >= $hoff + 0.1" ge "$hon" "$hoff" 1 0.1

# Tunnel 0: no loss.  The prediction prunes nothing there (an off-topic
# page is a dead end at tunnel 0), so the crawl fetches what it fetches
# without it, best first: the same pages, and at a budget more of them
# on topic.
measure "$w" t0-off 0 off
measure "$w" t0-on 0 on
coff=$(get t0-off coverage) con=$(get t0-on coverage)
echo "# $w tunnel 0: harvest $(get t0-off harvest) -> $(get t0-on harvest), coverage $coff -> $con"
check_true "tunnel 0: coverage $con >= $coff" ge "$con" "$coff"
check_true "tunnel 0: the same pages fetched" \
	[ "$(get t0-on fetched)" -eq "$(get t0-off fetched)" ]
check_true "tunnel 0: nothing pruned by prediction" \
	[ "$(get t0-on pruned_predicted)" -eq 0 ]
measure "$w" t0-budget-off 0 off "$b"
measure "$w" t0-budget-on 0 on "$b"
hoff=$(get t0-budget-off harvest) hon=$(get t0-budget-on harvest)
echo "# $w tunnel 0, budget $b: harvest $hoff -> $hon"
# (6 runs each: 0.892-0.907 with prediction, 0.758-0.784 without; the
# margin leaves room for that spread.)
check_true "tunnel 0, budget: harvest $hon >= $hoff + 0.05" \
	ge "$hon" "$hoff" 1 0.05

# Portals seed 10 was never used while choosing the prediction's parts:
# its crawl learns some 30 pages on topic before a third off topic, and
# its seed site's tag pages queue guesses meanwhile.  Those go two at a
# time until the words can judge the rest (frontier_set_learning()):
# 0.807 - 0.862 before (10 runs), 0.872 - 0.907 since.
#
# The blog platform: most of its links are on one host and show no
# keyword, and a tag page of a common word ("#friend") looks from its
# link like a tag of the topic.  Blogs seed 8 stood at 0.769-0.792
# harvest (4 runs) before the topic's words counted in pages where most
# pages have them and quiet links were judged by what quiet links led
# to; 0.890-0.922 since.
hsum=0
for w in portals-1 portals-2 portals-10 blogs-8; do
	python3 "$here/webgen.py" --shape "${w%-*}" --seed "${w##*-}" \
		--out "$tmp/$w"
	measure "$w" "$w-off" 1 off
	measure "$w" "$w-on" 1 on
	hoff=$(get "$w-off" harvest) hon=$(get "$w-on" harvest)
	con=$(get "$w-on" coverage)
	echo "# $w tunnel 1: harvest $hoff -> $hon, coverage $(get "$w-off" coverage) -> $con"
	check_true "$w: harvest $hon >= 1.5 x $hoff" ge "$hon" "$hoff" 1.5
	# The kind of the linking page and the roots as bridges: 0.73 at
	# best before them (seeds 1 and 2, 8 runs).  Portals seed 10 and
	# blogs seed 8: see above.  Each crawl's harvest varies with what
	# it has learned when its links are leased: in 24-30 runs two at a
	# time, portals 1 gave 0.828-0.918 (0.835 in a quarter of them, the
	# code before the wiki's rules alike), portals 2 0.867-0.941,
	# portals 10 0.867-0.907, blogs 8 0.871-0.929.  So each run must
	# reach 0.8 and their mean 0.86.
	check_true "$w: harvest with prediction $hon >= 0.8" ge "$hon" 0.8
	hsum=$(python3 -c 'import sys; print(float(sys.argv[1]) + float(sys.argv[2]))' "$hsum" "$hon")
	check_true "$w: coverage with prediction $con >= 0.9" ge "$con" 0.9
	# Tunnel 0 from off-topic seeds reaches the topic through a few
	# pages that score just on topic; none of them may be lost (seed 2
	# lost 0.65 of its coverage when the prediction pruned there).
	# Portals seed 10 has no such page: its tunnel 0 reaches nothing
	# either way.
	case $w in portals-10 | blogs-*) continue ;; esac
	measure "$w" "$w-t0-off" 0 off
	measure "$w" "$w-t0-on" 0 on
	coff=$(get "$w-t0-off" coverage) con=$(get "$w-t0-on" coverage)
	echo "# $w tunnel 0: coverage $coff -> $con"
	check_true "$w tunnel 0: coverage $con >= $coff" ge "$con" "$coff"
done
check_true "portals 1, 2, 10 and blogs 8: harvests summing to $hsum, a mean >= 0.86" \
	ge "$hsum" 3.44

# The wiki (one host: articles, their talk, edit and history pages,
# categories, disambiguation pages), written after every other part of
# the prediction and first measured as it was: 0.55-0.69 harvest over
# seeds 1-15 (60 runs), the edit and history pages of every article on
# topic fetched, since their URLs name the article and so showed its
# keywords.  A keyword the page's own URL shows no longer counts in its
# links' URLs, and a link from a page on topic whose words the crawl
# learned against is pruned though it shows one: 0.90-0.93 on seeds 4
# and 11 (4 runs each), two such pages at most.
for w in wiki-4 wiki-11; do
	python3 "$here/webgen.py" --shape wiki --seed "${w##*-}" --out "$tmp/$w"
	measure "$w" "$w-on" 1 on
	hon=$(get "$w-on" harvest) con=$(get "$w-on" coverage)
	actions=$("$sigcrawl" export --store "$tmp/run-$w-on/store" |
		grep -c '"normalized":"[^"]*action=')
	echo "# $w tunnel 1: harvest $hon, coverage $con, $actions edit and history pages"
	check_true "$w: harvest with prediction $hon >= 0.85" ge "$hon" 0.85
	check_true "$w: coverage with prediction $con >= 0.9" ge "$con" 0.9
	check_true "$w: $actions edit and history pages fetched <= 4" \
		[ "$actions" -le 4 ]
done
finish
