#!/bin/bash
# test-cli-conf.sh SIGCRAWL SRCDIR CONF_DUMP — the shipped config and the
# config errors as a user meets them, through tests/conf-dump: the shipped
# packaging/sigcrawl.conf loads from any working directory with the same
# result, a bad file and a bad override exit 2 with the FILE:LINE or
# --option message, and overrides show in the dump.  Then through SIGCRAWL:
# `crawl --check-config` and `serve --check-config` check what the run
# needs (the seed lists, with FILE:LINE), --category names a section, a
# missing option value says so in every command, and the help texts (no
# network: nothing here crawls).  The last line is "N passed, N failed";
# any failure exits 1.
set -u

if [ $# -ne 3 ]; then
	echo "usage: $0 SIGCRAWL SRCDIR CONF_DUMP" >&2
	exit 2
fi
SIGCRAWL=$1
SRCDIR=$(cd "$2/.." && pwd)
DUMP=$3

. "$(dirname "$0")/lib.sh"


check()
{
	local what=$1
	shift
	if "$@"; then
		pass "$what"
	else
		fail "$what"
		sed 's/^/      /' "$tmp/err" 2>/dev/null | head -n 5
	fi
}

# dump ARGS... — run conf-dump; leaves $tmp/out, $tmp/err and $rc.
dump()
{
	"$DUMP" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

shipped=$SRCDIR/packaging/sigcrawl.conf
dump "$shipped"
check "shipped config loads" test "$rc" -eq 0
check "demo seeds resolve next to the config" \
	grep -qx "category demo.seeds = $SRCDIR/packaging/seeds/demo.txt" \
	"$tmp/out"
check "demo seed list exists" test -f "$SRCDIR/packaging/seeds/demo.txt"
cp "$tmp/out" "$tmp/first"
(cd "$tmp" && "$DUMP" "$shipped" >"$tmp/second" 2>"$tmp/err")
check "same result from another working directory" \
	cmp -s "$tmp/first" "$tmp/second"
(cd "$SRCDIR/packaging" && "$DUMP" sigcrawl.conf >"$tmp/third" 2>"$tmp/err")
check "same result given a relative file name" \
	cmp -s "$tmp/first" "$tmp/third"

dump "$shipped" max-pages=10 no-robots connect-to=::127.0.0.1:8080
check "overrides apply" test "$rc" -eq 0
check "max-pages override" grep -qx "crawl.max_pages = 10" "$tmp/out"
check "no-robots override" grep -qx "crawl.obey_robots = no" "$tmp/out"
check "connect-to override" \
	grep -qx "crawl.connect_to = ::127.0.0.1:8080" "$tmp/out"

dump "$shipped" max-pages=ten
check "bad override exits 2" test "$rc" -eq 2
check "bad override message" grep -qx -e \
	'--max-pages: expected a whole number from 0 to 1000000000000, got "ten"' \
	"$tmp/err"

printf '[crawl]\n# a comment\ntimeout_s = 0\n' >"$tmp/bad.conf"
dump "$tmp/bad.conf"
check "bad file exits 2" test "$rc" -eq 2
check "bad file message names file, line and key" grep -qx \
	"$tmp/bad.conf:3: \[crawl\] timeout_s: expected a whole number from 1 to 3600, got \"0\"" \
	"$tmp/err"

dump "$tmp/missing.conf"
check "missing file exits 2" test "$rc" -eq 2
check "missing file message" \
	grep -qx "$tmp/missing.conf: No such file or directory" "$tmp/err"

# ---- sigcrawl: --check-config, seed lists, --category ---------------------

# sc ARGS... — run SIGCRAWL with no input, at most 20 s (nothing here
# may wait for anything); leaves $tmp/out, $tmp/err and $rc.
sc()
{
	timeout 20 "$SIGCRAWL" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# ends_with TEXT — a line of $tmp/err ends with ": TEXT" (crawl writes
# "sigcrawl crawl: TEXT", serve, as the daemon, "sigcrawl: error: TEXT").
ends_with()
{
	awk -v t=": $1" 'length($0) >= length(t) &&
		substr($0, length($0) - length(t) + 1) == t { f = 1 }
		END { exit !f }' "$tmp/err"
}

for cmd in crawl serve; do
	sc $cmd -c "$shipped" --check-config
	expect_rc "$cmd --check-config, the shipped config" 0
	check "$cmd --check-config says ok" grep -qxF "$shipped: ok" "$tmp/out"
done
sc crawl --check-config
expect_rc "crawl --check-config without a file" 0
check "crawl --check-config without a file: the defaults" \
	grep -qxF "(defaults): ok" "$tmp/out"

# A seed list that is not there: the line of its key, for both commands'
# --check-config and for the run itself, which creates nothing.
mkdir -p "$tmp/etc"
cat >"$tmp/etc/seeds.conf" <<EOF
[crawl]
store = store
[category news]
keywords = news
seeds = lists/news.txt
EOF
want="$tmp/etc/seeds.conf:5: [category news] seeds: cannot read $tmp/etc/lists/news.txt: No such file or directory"
for cmd in "crawl --check-config" "serve --check-config" crawl; do
	sc $cmd -c "$tmp/etc/seeds.conf"
	expect_rc "$cmd, a seed list that is not there" 2
	check "$cmd names FILE:LINE, the category and the list" ends_with "$want"
done
check "the refused run created no store" test ! -e "$tmp/etc/store"
mkdir -p "$tmp/etc/lists/news.txt"
sc crawl --check-config -c "$tmp/etc/seeds.conf"
expect_rc "a seed list that is a directory" 2
expect_stderr "a seed list that is a directory" "seeds: cannot read $tmp/etc/lists/news.txt: Is a directory"
rmdir "$tmp/etc/lists/news.txt"
echo 'http://a.test/' >"$tmp/etc/lists/news.txt"
sc crawl --check-config -c "$tmp/etc/seeds.conf"
expect_rc "the seed list is there now" 0

# --seeds FILE that cannot be read.
for cmd in crawl serve; do
	sc $cmd --check-config --seeds "$tmp/no-seeds"
	expect_rc "$cmd --seeds FILE that is not there" 2
	check "$cmd names --seeds and the path" ends_with \
		"--seeds: cannot read $tmp/no-seeds: No such file or directory"
done
sc crawl --store "$tmp/never" --seeds "$tmp/no-seeds"
expect_rc "crawl --seeds FILE that is not there" 2
check "crawl --seeds FILE that is not there creates no store" test ! -e "$tmp/never"
# --check-config does not read standard input (a terminal would wait
# there, and the timeout would show it).
sc crawl --check-config --seeds -
expect_rc "crawl --check-config --seeds -" 0
sc serve --check-config --seeds -
expect_rc "serve --seeds -" 2
expect_stderr "serve --seeds -" "serve does not read seeds from standard input"

# --category names a [category] section, as submit's must; --seeds alone
# still goes to the config's only category.
seeds=$tmp/etc/lists/news.txt
for cmd in crawl serve; do
	sc $cmd --check-config -c "$shipped" --seeds "$seeds" --category dmeo
	expect_rc "$cmd --category that names no section" 2
	check "$cmd says the category is unknown and which there are" ends_with \
		"--category: unknown category 'dmeo' (the config has demo; add a [category dmeo] section for a new one)"
	sc $cmd --check-config -c "$shipped" --seeds "$seeds" --category demo
	expect_rc "$cmd --category of a section" 0
	sc $cmd --check-config -c "$shipped" --seeds "$seeds"
	expect_rc "$cmd --seeds alone" 0
	sc $cmd --check-config -c "$shipped" --category demo
	expect_rc "$cmd --category without --seeds" 2
	expect_stderr "$cmd --category without --seeds" "--category needs --seeds"
done
# A config without categories has nothing to mistype: --category names
# the run's one category.
sc crawl --check-config --seeds "$seeds" --category mine
expect_rc "--category without any config category" 0

# ---- sigcrawl: an option without its value ---------------------------------
for args in "crawl --store" "crawl -c" "crawl --seeds" "serve --category" \
	"serve --max-pages" "export --store" "export --format" "report --truth" \
	"report --config" "search --limit" "search -k" "index --store" \
	"index -c" "rules --store" "rules --config"; do
	sc $args
	expect_rc "$args (no value)" 2
	check "$args: \"${args#* } needs an argument\"" grep -qxF \
		"sigcrawl ${args%% *}: ${args#* } needs an argument (see --help)" "$tmp/err"
done
sc crawl --frobnicate
expect_rc "crawl --frobnicate" 2
expect_stderr "crawl --frobnicate" "bad option '--frobnicate'"

# ---- sigcrawl: the help texts ----------------------------------------------
sc crawl --help
expect_rc "crawl --help" 0
check "crawl --help lists the adaptive profile" grep -q "adaptive" "$tmp/out"
check "crawl --help: --near-duplicate off|simhash:K" \
	grep -qF -- "--near-duplicate off|simhash:K" "$tmp/out"
check "crawl --help lists --check-config" grep -qF -- "--check-config" "$tmp/out"
check "crawl --help: --seeds - reads standard input" \
	grep -qF -- "- reads them from standard input" "$tmp/out"
sc rules --help
expect_rc "rules --help" 0
check "rules --help: a short table by default, --all lists every rule" \
	grep -qF -- "[--all | --json]" "$tmp/out"
# No help text points to a file that an installed sigcrawl's user does
# not have (the source tree's docs/, SPEC.md, README.md).
for cmd in crawl serve submit status normalize export report search index rules; do
	sc $cmd --help
	check "$cmd --help exits 0" test "$rc" -eq 0
	check "$cmd --help names no file of the source tree" \
		bash -c '! grep -nE "docs/|SPEC|README|\.md\b" "$1"' _ "$tmp/out"
done

finish
