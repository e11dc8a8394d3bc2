# lib.sh — sourced by the shell tests: a scratch directory, counted checks
# and the closing line "N passed, N failed" that CI reads.
#
# Provides $tmp (removed at exit, kept and named when KEEP is set; a script
# may define on_exit to stop its servers first), pass NAME [DETAIL...],
# fail NAME [DETAIL...], check_true NAME COMMAND..., and finish, which
# prints the closing line and fails if any check failed.  For scripts that
# run a command into $rc and $tmp/err: expect_rc NAME STATUS and
# expect_stderr NAME TEXT.

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc-test.XXXXXX") || exit 1
passed=0
failed=0

lib_exit()
{
	if declare -F on_exit >/dev/null; then
		on_exit
	fi
	if [ -n "${KEEP:-}" ]; then
		echo "kept $tmp" >&2
	else
		rm -rf "$tmp"
	fi
}
trap lib_exit EXIT

pass()
{
	passed=$((passed + 1))
	echo "ok:   $1"
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
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
