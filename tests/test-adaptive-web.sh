#!/bin/bash
# test-adaptive-web.sh SIGCRAWL FIXTURE — the generated web
# (tests/adaptive/webgen.py) and its measurement (measure.py): the same
# seed gives the same web, every seed gives a web the fixture accepts and
# whose truth covers what a strict crawl fetches, and the fixed profiles
# show the trade-off the adaptive profile is to escape (strict wastes
# fetches; aggressive, which fetches the URLs found and keys them further,
# wastes fewer and still many), and adaptive escapes part of it: every
# document, under half of strict's requests and of aggressive's, no URL
# mapped onto another document.  On three seeds and two shapes.
set -u
sigcrawl=$1
fixture=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

for spec in "1 10 30" "2 8 20" "3 14 12"; do
	read -r seed hosts docs <<<"$spec"
	gen() { python3 "$here/adaptive/webgen.py" "$1" --seed "$seed" --hosts "$hosts" --docs "$docs"; }
	gen "$tmp/w$seed"
	gen "$tmp/w$seed-again"
	check_true "seed $seed: the same web twice" cmp -s "$tmp/w$seed/web" "$tmp/w$seed-again/web"
	check_true "seed $seed: the same truth twice" cmp -s "$tmp/w$seed/truth.jsonl" "$tmp/w$seed-again/truth.jsonl"
	check_true "seed $seed: the fixture accepts the web" "$fixture" --web "$tmp/w$seed/web" --check
	python3 "$here/adaptive/measure.py" "$sigcrawl" "$fixture" "$tmp/w$seed" \
		strict aggressive adaptive >"$tmp/m$seed"
	cat "$tmp/m$seed"
	row() { awk -v p="$1" '$1 == p' "$tmp/m$seed"; }
	check_true "seed $seed: the strict crawl ends with exit 0" test "$(row strict | awk '{print $2}')" = 0
	check_true "seed $seed: strict fetches documents" test "$(row strict | awk '{print $4}')" -gt "$hosts"
	check_true "seed $seed: strict wastes fetches (redundancy > 0.3)" \
		awk -v r="$(row strict | awk '{print $5}')" 'BEGIN { exit !(r > 0.3) }'
	check_true "seed $seed: aggressive fetches fewer than strict" \
		awk -v a="$(row aggressive | awk '{print $3}')" -v s="$(row strict | awk '{print $3}')" \
		'BEGIN { exit !(a < s) }'
	check_true "seed $seed: and still wastes fetches (redundancy > 0.3)" \
		awk -v r="$(row aggressive | awk '{print $5}')" 'BEGIN { exit !(r > 0.3) }'
	check_true "seed $seed: the adaptive crawl ends with exit 0" test "$(row adaptive | awk '{print $2}')" = 0
	check_true "seed $seed: adaptive loses no document (coverage >= 0.995)" \
		awk -v c="$(row adaptive | awk '{print $6}')" 'BEGIN { exit !(c >= 0.995) }'
	check_true "seed $seed: adaptive makes under half of strict's requests" \
		awk -v a="$(row adaptive | awk '{print $3}')" -v s="$(row strict | awk '{print $3}')" \
		'BEGIN { exit !(a < s / 2) }'
	check_true "seed $seed: adaptive makes under half of aggressive's requests" \
		awk -v a="$(row adaptive | awk '{print $3}')" -v g="$(row aggressive | awk '{print $3}')" \
		'BEGIN { exit !(a < g / 2) }'
	check_true "seed $seed: the rules mapped URLs" test "$(row adaptive | awk '{print $7}')" -gt 0
	check_true "seed $seed: no rule mapped a URL onto another document" test "$(row adaptive | awk '{print $8}')" = 0
done
finish
