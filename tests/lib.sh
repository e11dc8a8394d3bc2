# lib.sh — sourced by the shell tests: a scratch directory, counted checks
# and the closing line "N passed, N failed" that CI reads.
#
# Provides $tmp (removed at exit, kept and named when KEEP is set; a script
# may define on_exit to stop its servers first), pass NAME [DETAIL...],
# fail NAME [DETAIL...], check_true NAME COMMAND..., wait_until SECONDS
# COMMAND..., and finish, which prints the closing line and fails if any
# check failed or none ran.  For scripts that run a command into $rc and
# $tmp/err: expect_rc NAME STATUS and expect_stderr NAME TEXT.
#
# Every check returns its verdict (0 passed, 1 failed), so a script may act
# on it.  check_true runs exactly one command: `check_true N [ A ] && [ B ]`
# checks A only (tests/check-tests.py, run by the style suite, refuses such
# lines).  A script that exits without calling finish fails too.

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-test.XXXXXX") || exit 1
passed=0
failed=0
finished=

lib_exit()
{
	local rc=$?
	if [ -z "$finished" ]; then
		echo "FAIL: the script ended before finish ($passed passed, $failed failed so far)"
		rc=1
	fi
	if declare -F on_exit >/dev/null; then
		on_exit
	fi
	if [ -n "${KEEP:-}" ]; then
		echo "kept $tmp" >&2
	else
		rm -rf "$tmp"
	fi
	exit "$rc"
}
trap lib_exit EXIT

pass()
{
	passed=$((passed + 1))
	echo "ok:   $1"
	return 0
}

fail()
{
	failed=$((failed + 1))
	echo "FAIL: $1"
	shift
	local l
	for l in "$@"; do
		printf '      %s\n' "$l"
	done
	return 1
}

check_true()
{
	local name=$1
	shift
	if "$@"; then
		pass "$name"
	else
		fail "$name"
	fi
}

# wait_until SECONDS COMMAND... — run COMMAND every 50 ms until it succeeds
# (0) or SECONDS have passed (1, after one last try).  Tests wait for what
# they assert this way, never by sleeping a guessed time.
wait_until()
{
	local deadline=$((SECONDS + $1))
	shift
	while ! "$@"; do
		if [ "$SECONDS" -gt "$deadline" ]; then
			"$@"
			return
		fi
		sleep 0.05
	done
}

# expect_rc NAME STATUS — the last command run exited STATUS ($rc).
expect_rc()
{
	if [ "$rc" -eq "$2" ]; then
		pass "$1: exit status $2"
	else
		fail "$1: exit status $rc, want $2" "stderr: $(head -c 300 "$tmp/err")"
	fi
}

# expect_stderr NAME TEXT — its stderr ($tmp/err) holds TEXT.
expect_stderr()
{
	if grep -qF -- "$2" "$tmp/err"; then
		pass "$1: stderr says '$2'"
	else
		fail "$1: stderr lacks '$2'" "stderr: $(head -c 300 "$tmp/err")"
	fi
}

finish()
{
	finished=1
	if [ $((passed + failed)) -eq 0 ]; then
		echo "FAIL: no check ran"
		failed=1
	fi
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
