#!/bin/bash
# test-cli-conf.sh SIGCRAWL SRCDIR CONF_DUMP — the shipped config and the
# config errors as a user meets them, through tests/conf-dump: the shipped
# packaging/sigcrawl.conf loads from any working directory with the same
# result, a bad file and a bad override exit 2 with the FILE:LINE or
# --option message, and overrides show in the dump.  (SIGCRAWL is unused
# until a subcommand reads the config.)  The last line is "N passed, N
# failed"; any failure exits 1.
set -u

if [ $# -ne 3 ]; then
	echo "usage: $0 SIGCRAWL SRCDIR CONF_DUMP" >&2
	exit 2
fi
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

finish
