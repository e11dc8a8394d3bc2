#!/bin/bash
# test-lib.sh — the test library checks itself: each helper of lib.sh and
# crawl-lib.sh is run in a child script, and what the child prints and
# how it exits is asserted here, so a check that cannot fail, a script
# that checks nothing and a wait that never ends are caught before the
# tests that rely on them.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

# child NAME BODY — run BODY as a script that sources lib.sh; its output
# in $tmp/NAME.out, its status in $rc.
child()
{
	printf '%s\n' ". '$here/lib.sh'" "$2" >"$tmp/$1.sh"
	bash "$tmp/$1.sh" >"$tmp/$1.out" 2>&1
	rc=$?
}

child pass 'check_true "true" true; finish'
check_true "a passing check: exit 0" test "$rc" -eq 0
check_true "... and '1 passed, 0 failed'" grep -qx '1 passed, 0 failed' "$tmp/pass.out"

child failing 'check_true "false" false; finish'
check_true "a failing check fails the script" test "$rc" -eq 1
check_true "... and is named" grep -qx 'FAIL: false' "$tmp/failing.out"

child verdict 'check_true "a" false && echo AFTER-A; check_true "b" true && echo AFTER-B; pass x; echo "pass=$?"; fail y; echo "fail=$?"; finish'
check_true "check_true returns its verdict" eval '! grep -q AFTER-A "$tmp/verdict.out" && grep -q AFTER-B "$tmp/verdict.out"'
check_true "pass returns 0, fail returns 1" eval 'grep -qx "pass=0" "$tmp/verdict.out" && grep -qx "fail=1" "$tmp/verdict.out"'

child none 'finish'
check_true "a script with no check fails" test "$rc" -eq 1
check_true "... saying so" grep -qx 'FAIL: no check ran' "$tmp/none.out"

child early 'check_true "t" true; exit 0'
check_true "a script that ends before finish fails" test "$rc" -eq 1
check_true "... saying so" grep -q 'ended before finish' "$tmp/early.out"

child wait_ok 'touch "$tmp/f"; ( sleep 0.3; rm "$tmp/f" ) & check_true "gone" wait_until 10 test ! -e "$tmp/f"; finish'
check_true "wait_until sees a change come" test "$rc" -eq 0

child wait_timeout 'SECONDS=0; check_true "never" wait_until 1 false; echo "waited=$SECONDS"; finish'
check_true "wait_until gives up after its deadline, failing" test "$rc" -eq 1
check_true "... after about its deadline" grep -qE 'waited=[1-3]$' "$tmp/wait_timeout.out"

# check_delay (crawl-lib.sh) on made-up request logs: MS ID req HOST ...
log_of() { local t; for t in "$@"; do printf '%s\t1\treq\th.test\tGET\t/p%s\t-\t-\n' "$t" "$t"; done; }
cat >"$tmp/delay.sh" <<EOF2
sigcrawl=/bin/false fixture=/bin/false
. '$here/crawl-lib.sh'
check_delay d "\$1" 300
finish
EOF2
log_of 1000 1300 1600 1900 >"$tmp/log-ok"
bash "$tmp/delay.sh" "$tmp/log-ok" >/dev/null 2>&1
check_true "check_delay passes requests 300 ms apart" test $? -eq 0
log_of 1000 1340 1560 1900 >"$tmp/log-jitter"
bash "$tmp/delay.sh" "$tmp/log-jitter" >/dev/null 2>&1
check_true "... and one that arrived 80 ms late" test $? -eq 0
log_of 1000 1010 1020 1030 >"$tmp/log-burst"
bash "$tmp/delay.sh" "$tmp/log-burst" >/dev/null 2>&1
check_true "check_delay fails requests without the delay" test $? -eq 1
log_of 1000 1200 1400 1600 >"$tmp/log-short"
bash "$tmp/delay.sh" "$tmp/log-short" >/dev/null 2>&1
check_true "... and requests 200 ms apart" test $? -eq 1

# The lint of the style suite finds checks that assert less than they say.
printf '%s\n' 'check_true "x" [ 1 ] && [ 2 ]' >"$tmp/lint-bad.sh"
python3 "$here/check-tests.py" "$tmp/lint-bad.sh" >/dev/null
check_true "check-tests.py refuses 'check_true N [ A ] && [ B ]'" test $? -eq 1
printf '%s\n' 'check_true "x" eval "[ 1 ] && [ 2 ]"' 'check_true "y" \' '  test 1 -a 2' >"$tmp/lint-good.sh"
python3 "$here/check-tests.py" "$tmp/lint-good.sh" >/dev/null
check_true "... and accepts eval and continued lines" test $? -eq 0
printf 'echo hi\n' >"$tmp/lint-none.sh"
python3 "$here/check-tests.py" "$tmp/lint-none.sh" >/dev/null
check_true "... and a script without a check" test $? -eq 1
finish
