#!/bin/bash
# test-readme.sh SIGCRAWL FIXTURE SRCDIR — the walk-through of
# docs/tutorial.md ("Your own crawl, step by step"), steps 1 to 4, run as
# written: the block is read from docs/tutorial.md, split at its "# N."
# comments, and each step runs in
# a shell of its own in a scratch directory where build/crawler/cli/sigcrawl
# is the binary under test.  Between steps 1 and 2 the test points the
# config at its own www.example.org (a connect_to line) and writes http
# for https in the seed; nothing else is changed.  Step 5 (installing the
# service as root) is not run here: tests/test-install.sh installs into a
# DESTDIR and verifies the unit.  README.md's "A first crawl of your own
# site" is steps 1 and 2 in short: each of its lines must be a line of
# those steps, so that the README runs as the tested walk-through does.
set -u
sigcrawl=$1
fixture=$2
srcdir=$3
. "$(dirname "$0")/crawl-lib.sh"
spid=
on_exit()
{
	[ -n "$fpid" ] && kill "$fpid" 2>/dev/null
	pkill -f "serve -c mysite.conf" 2>/dev/null
}

# The block: from the marker's fence to the closing fence.
awk '/<!-- walk-through:/ { on = 1; next }
     on && /^```sh$/ { inblock = 1; next }
     inblock && /^```$/ { exit }
     inblock { print }' "$srcdir/docs/tutorial.md" >"$tmp/block"
check_true "docs/tutorial.md has the walk-through block" grep -q "^# 4\\." "$tmp/block"
for n in 1 2 3 4 5; do
	awk -v n="$n" '/^# [0-9]\./ { cur = substr($2, 1, length($2) - 1) }
		cur == n { print }' "$tmp/block" >"$tmp/step$n"
	check_true "step $n is in the block" test -s "$tmp/step$n"
done

# README's first crawl: the sh block under its heading, every line found
# in steps 1 and 2.
awk '/^## A first crawl of your own site/ { on = 1; next }
     on && /^```sh$/ { inblock = 1; next }
     inblock && /^```$/ { exit }
     inblock { print }' "$srcdir/README.md" >"$tmp/readme-first"
check_true "README has its first crawl" test -s "$tmp/readme-first"
cat "$tmp/step1" "$tmp/step2" >"$tmp/steps12"
missing=$(grep -vxFf "$tmp/steps12" "$tmp/readme-first")
check_true "every line of README's first crawl is in steps 1 and 2" test -z "$missing"
[ -z "$missing" ] || printf '      not in steps 1 and 2: %s\n' "$missing"

cat >"$tmp/web" <<'WEB'
host www.example.org
page /            200 text/html  title="Example Domain" links=/about,/docs/,http://other.example.net/
page /about       200 text/html  title="About" links=/,/docs/
page /docs/       200 text/html  title="Docs" links=/docs/a
page /docs/a      200 text/html  title="Doc A"
page /robots.txt  200 text/plain body="User-agent: *\nAllow: /\n"
default 404
WEB
start_fixture "$tmp/web" "$tmp/log"
w=$tmp/w
mkdir -p "$w/build/crawler/cli"
ln -s "$sigcrawl" "$w/build/crawler/cli/sigcrawl"

step()
{
	(cd "$w" && timeout 120 bash -e "$tmp/step$1" >"$tmp/out$1" 2>"$tmp/err$1")
}

step 1
check_true "step 1 runs" [ $? -eq 0 ]
check_true "step 1 wrote the config and the seeds" test -s "$w/mysite.conf" -a -s "$w/mysite-seeds.txt"
sed -i "s|^\[crawl\]\$|[crawl]\nconnect_to = ::127.0.0.1:$port|" "$w/mysite.conf"
sed -i 's|^https://|http://|' "$w/mysite-seeds.txt"

step 2
check_true "step 2 runs" [ $? -eq 0 ]
check_true "step 2: the crawl fetched the site's 4 pages" grep -q "^pages 4 " "$tmp/out2"
check_true "step 2: the store is where the config says" grep -qxF "store $w/mysite-store" "$tmp/out2"
check_true "step 2: scope host kept it off other.example.net" \
	[ "$(awk -F'\t' '$3 == "req" && $4 ~ /other/' "$tmp/log" | wc -l)" -eq 0 ]
check_true "step 2: export printed records" [ "$(grep -c '"url":' "$tmp/out2")" -eq 3 ]
check_true "step 2: report named the store" grep -q "mysite-store" "$tmp/out2"
check_true "step 2: search found the home page" grep -q "http://www.example.org/" "$tmp/out2"

step 3
check_true "step 3 runs" [ $? -eq 0 ]
check_true "step 3: submit answered" grep -Eq "^(accepted|already known) " "$tmp/out3"
check_true "step 3: status answered" grep -q '"state":' "$tmp/out3"
gone() { ! pgrep -f "serve -c mysite.conf" >/dev/null; }
check_true "step 3: the daemon stopped" wait_until 100 gone

step 4
check_true "step 4 runs" [ $? -eq 0 ]
check_true "step 4: every page revisited" grep -q "^re-crawl: 4 revisited" "$tmp/out4"
if ! grep -q "^re-crawl: 4 revisited" "$tmp/out4"; then
	# What the pass said and what the fixture saw, to tell why.
	sed 's/^/  out4: /' "$tmp/out4"
	sed 's/^/  err4: /' "$tmp/err4"
	tail -20 "$tmp/log" | sed 's/^/  fixture: /'
fi
stop_fixture
finish
