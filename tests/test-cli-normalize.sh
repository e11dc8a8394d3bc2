#!/bin/bash
# test-cli-normalize.sh SIGCRAWL SRCDIR — drive `sigcrawl normalize` the way
# a user's pipeline does and check the contract of SPEC §2: one output line
# per input line, errors on stderr with their line number, exit status
# 0 / 1 / 2, and constant memory on a long stream.
#
# SIGCRAWL is the executable, SRCDIR the tests/ source folder.  Every check
# counts; the last line is "N passed, N failed" and any failure exits 1.
#
# Environment: SC_CLI_STREAM_LINES (default 1000000) is the length of the
# streaming run; SC_CLI_MAX_RSS_KB (default 16384) its memory bound.
set -u

if [ $# -ne 2 ]; then
	echo "usage: $0 SIGCRAWL SRCDIR" >&2
	exit 2
fi
SIGCRAWL=$1
SRCDIR=$2

. "$(dirname "$0")/lib.sh"

# run ARGS... — run SIGCRAWL with stdin from $tmp/in; leaves stdout, stderr
# and the exit status in $tmp/out, $tmp/err and $rc.
run()
{
	"$SIGCRAWL" "$@" <"$tmp/in" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# expect_rc NAME WANT — check $rc from the last run.

# expect_one NAME WANT ARGS... — normalize the single line already in
# $tmp/in and compare the single output line with WANT.
expect_one()
{
	local name=$1 want=$2
	shift 2
	run normalize "$@"
	local got
	got=$(cat "$tmp/out")
	if [ "$rc" -eq 0 ] && [ "$got" = "$want" ] &&
		[ "$(wc -l <"$tmp/out")" -eq 1 ]; then
		pass "$name: $(head -n 1 "$tmp/in") -> $want"
	else
		fail "$name: $(head -n 1 "$tmp/in")" "got:  \"$got\" (exit $rc)" \
			"want: \"$want\"" "stderr: $(head -c 300 "$tmp/err")"
	fi
}

# A sanitizer build needs far more memory for its shadow and quarantine:
# the memory bound is then only a guard against growth per line.
sanitized=0
if grep -qa -e __asan_init -e __ubsan_handle "$SIGCRAWL" 2>/dev/null; then
	sanitized=1
fi

if [ ! -x "$SIGCRAWL" ]; then
	fail "executable $SIGCRAWL exists"
	finish
	exit 1
fi

# --- exact results ---------------------------------------------------------

printf 'HTTP://Example.COM:80/a/./b/../c\n' >"$tmp/in"
expect_one "strict" "http://example.com/a/c" --profile strict


# A password: the URL normalized is written with it; --mask-passwords
# writes it as the crawl stores it.
printf 'HTTP://User:p%%40ss@Example.COM:80/a\n' >"$tmp/in"
expect_one "password kept" "http://User:p%40ss@example.com/a"
expect_one "password masked" "http://User:***@example.com/a" --mask-passwords
expect_one "password masked (-m)" "http://User:***@example.com/a" -m
printf 'http://user@example.com/\n' >"$tmp/in"
expect_one "user without password" "http://user@example.com/"
# A password of the base: a relative reference takes the base's authority,
# password included, and keeps it unless --mask-passwords.
printf '../x?y\n' >"$tmp/in"
expect_one "password of the base kept" "http://User:p%40ss@example.com/x?y" \
	--profile strict --base 'http://User:p%40ss@Example.com/a/b'
expect_one "password of the base masked" "http://User:***@example.com/x?y" \
	--profile strict --base 'http://User:p%40ss@Example.com/a/b' -m
printf 'http://User:***@example.com/z\n' >"$tmp/in"
expect_one "a masked password of the input stays masked beside the base's" \
	"http://User:***@example.com/z" \
	--profile strict --base 'http://User:p%40ss@Example.com/a/b'
printf 'http://Other@example.com/z\n' >"$tmp/in"
expect_one "another user's URL takes no password from the base" \
	"http://Other@example.com/z" \
	--profile strict --base 'http://User:p%40ss@Example.com/a/b'
printf 'http://example.com/?utm_source=x&b=2&a=1\n' >"$tmp/in"
expect_one "extended" "http://example.com/?a=1&b=2" --profile extended
expect_one "default profile is extended" "http://example.com/?a=1&b=2"

printf 'http://www.mnc.com:80/../a/b/./c?d=1&e=3&f=4&D=2&f=4&g=0&h=\n' \
	>"$tmp/in"
expect_one "aggressive" "http://mnc.com/a/b/c/?D=2&d=1&e=3&f=4&g=0" \
	--profile aggressive

printf '../x?y#z\n' >"$tmp/in"
expect_one "strict with --base" "http://a.com/b/x?y" --profile strict \
	--base http://a.com/b/c/d
expect_one "--base=URL form" "http://a.com/b/x?y" --profile strict \
	--base=http://a.com/b/c/d

printf 'http://b\303\274cher.de/\n' >"$tmp/in"
expect_one "IDN host" "http://xn--bcher-kva.de/"

printf 'http://a.com/A/B#Frag\n' >"$tmp/in"
expect_one "--steps adjusts the profile" "http://a.com/a/b#Frag" \
	--profile strict --steps "+lowercase_path,-remove_fragment"
expect_one "extended drops the fragment" "http://a.com/A/B"
expect_one "adaptive profile" "http://a.com/A/B" --profile adaptive

printf 'http://example.com/a\r\n' >"$tmp/in"
expect_one "CRLF line end" "http://example.com/a"

printf 'http://example.com/no-newline' >"$tmp/in"
expect_one "last line without newline" "http://example.com/no-newline"

# --- one output line per input line ----------------------------------------

# Lines 2, 5 and 12 are blank or white space only: whether they count as
# errors is the program's choice, but their output line must be empty.
long=$(head -c 20000 /dev/zero | tr '\0' 'a')
{
	printf 'HTTP://Example.COM/x\n'            # 1  valid
	printf '\n'                                # 2  blank
	printf 'mailto:x@y\n'                      # 3  scheme
	printf 'javascript:void(0)\n'              # 4  scheme
	printf '   \r\n'                           # 5  blank with CRLF
	printf 'http://\n'                         # 6  no host
	printf 'http://a.com:99999/\n'             # 7  port
	printf 'b/c?d\n'                           # 8  relative, no base
	printf 'http://a.com/%s\n' "$long"         # 9  too long
	printf 'https://a.com:443/y/\r\n'          # 10 valid, CRLF
	printf 'ftp://a.com/\n'                    # 11 scheme
	printf '\r\n'                              # 12 blank
	printf 'http://a.com/z#f'                  # 13 valid, no newline
} >"$tmp/in"
run normalize
expect_rc "mixed input" 1
nin=13
nout=$(wc -l <"$tmp/out")
if [ "$nout" -eq "$nin" ]; then
	pass "mixed input: $nin lines in, $nout lines out"
else
	fail "mixed input: $nin lines in, $nout lines out"
fi
if grep -q $'\r' "$tmp/out"; then
	fail "mixed input: no carriage return in the output"
else
	pass "mixed input: no carriage return in the output"
fi

# want_line N TEXT — output line N of the mixed input is TEXT.
want_line()
{
	local got
	got=$(sed -n "$1p" "$tmp/out")
	if [ "$got" = "$2" ]; then
		pass "mixed input: output line $1 is \"$2\""
	else
		fail "mixed input: output line $1" "got:  \"${got:0:200}\"" \
			"want: \"$2\""
	fi
}
want_line 1 "http://example.com/x"
for n in 2 3 4 5 6 7 8 9 11 12; do
	want_line $n ""
done
want_line 10 "https://a.com/y/"
want_line 13 "http://a.com/z"

# The errors name their lines: exactly the invalid ones (blank lines may
# or may not be reported), each with a reason.
reported=$(grep -o 'line [0-9]*:' "$tmp/err" | tr -dc '0-9\n' | sort -n |
	uniq | grep -vx -e 2 -e 5 -e 12 | paste -sd ' ')
if [ "$reported" = "3 4 6 7 8 9 11" ]; then
	pass "mixed input: stderr names lines 3 4 6 7 8 9 11"
else
	fail "mixed input: stderr names lines \"$reported\", want" \
		"\"3 4 6 7 8 9 11\"" "stderr: $(head -c 600 "$tmp/err")"
fi
# want_reason N REGEX — the message for line N matches REGEX (any case).
want_reason()
{
	if grep -E "line $1:" "$tmp/err" | grep -qiE "$2"; then
		pass "mixed input: line $1 reported with reason /$2/"
	else
		fail "mixed input: line $1 reported with reason /$2/" \
			"stderr: $(grep -E "line $1:" "$tmp/err" | head -n 1)"
	fi
}
want_reason 3 'scheme'
want_reason 4 'scheme'
want_reason 6 'host'
want_reason 7 'port'
want_reason 8 'relative'
want_reason 9 'long'
want_reason 11 'scheme'

# With a base, the relative reference of line 8 is valid.
printf 'b/c?d\nmailto:x@y\n/e\n' >"$tmp/in"
run normalize --base http://h.com/p/q
expect_rc "relative refs with --base" 1
if [ "$(paste -sd '|' "$tmp/out")" = "http://h.com/p/b/c?d||http://h.com/e" ]; then
	pass "relative refs with --base: outputs"
else
	fail "relative refs with --base: outputs" \
		"got: $(paste -sd '|' "$tmp/out")"
fi

# --- exit status -----------------------------------------------------------

printf 'http://a.com/\nhttps://b.com/x\n' >"$tmp/in"
run normalize
expect_rc "all lines valid" 0
if [ ! -s "$tmp/err" ]; then
	pass "all lines valid: nothing on stderr"
else
	fail "all lines valid: nothing on stderr" "$(head -c 300 "$tmp/err")"
fi

: >"$tmp/in"
run normalize
expect_rc "empty input" 0
if [ ! -s "$tmp/out" ]; then
	pass "empty input: empty output"
else
	fail "empty input: empty output"
fi

# usage_error NAME ARGS... — bad usage exits 2 with a message on stderr.
usage_error()
{
	local name=$1
	shift
	printf 'http://a.com/\n' >"$tmp/in"
	run "$@"
	if [ "$rc" -eq 2 ] && [ -s "$tmp/err" ]; then
		pass "$name: exit status 2 with a message"
	else
		fail "$name: exit status $rc, want 2 with a message" \
			"stderr: $(head -c 300 "$tmp/err")"
	fi
}
usage_error "unknown flag" normalize --no-such-flag
usage_error "unknown profile" normalize --profile nosuch
usage_error "--profile without a value" normalize --profile
usage_error "unknown step" normalize --steps "+sort_query,+no_such_step"
usage_error "invalid --base (scheme)" normalize --base mailto:x@y
usage_error "invalid --base (port)" normalize --base http://a.com:99999/
usage_error "invalid --base (relative)" normalize --base /just/a/path
usage_error "unknown subcommand" no-such-command
usage_error "unknown step named" normalize --steps "-no_such_step"
if grep -q 'no_such_step' "$tmp/err"; then
	pass "unknown step: the message names it"
else
	fail "unknown step: the message names it" "$(head -c 300 "$tmp/err")"
fi

# help_ok NAME ARGS... — exits 0 and prints something to stdout.
help_ok()
{
	local name=$1
	shift
	: >"$tmp/in"
	run "$@"
	if [ "$rc" -eq 0 ] && [ -s "$tmp/out" ]; then
		pass "$name: exit status 0, output on stdout"
	else
		fail "$name: exit status $rc, stdout $(wc -c <"$tmp/out") bytes" \
			"stderr: $(head -c 300 "$tmp/err")"
	fi
}
help_ok "normalize --help" normalize --help
if grep -qi 'usage' "$tmp/out" && grep -q -- '--profile' "$tmp/out"; then
	pass "normalize --help: shows usage and --profile"
else
	fail "normalize --help: shows usage and --profile"
fi
help_ok "sigcrawl --help" --help
if grep -q 'normalize' "$tmp/out"; then
	pass "sigcrawl --help: lists normalize"
else
	fail "sigcrawl --help: lists normalize"
fi
help_ok "sigcrawl --version" --version
version=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$SRCDIR/../meson.build" |
	head -n 1)
if [ -n "$version" ] && grep -qF "$version" "$tmp/out"; then
	pass "sigcrawl --version: prints $version"
else
	fail "sigcrawl --version: prints the project version \"$version\"" \
		"got: $(head -c 200 "$tmp/out")"
fi

# --- streaming in constant memory ------------------------------------------

lines=${SC_CLI_STREAM_LINES:-1000000}
max_kb=${SC_CLI_MAX_RSS_KB:-16384}
if [ "$sanitized" -eq 1 ] && [ -z "${SC_CLI_MAX_RSS_KB:-}" ]; then
	max_kb=65536
fi
start=$(date +%s)
if [ -x /usr/bin/time ]; then
	how="/usr/bin/time"
	yes 'http://Example.com/a/../b' | head -n "$lines" |
		/usr/bin/time -f %M -o "$tmp/rss" "$SIGCRAWL" normalize |
		uniq -c >"$tmp/out"
	rc=${PIPESTATUS[2]}
	peak=$(tail -n 1 "$tmp/rss")
else
	# Without GNU time: sample VmHWM, the peak so far, while it runs.
	how="VmHWM"
	mkfifo "$tmp/fin" "$tmp/fout"
	yes 'http://Example.com/a/../b' | head -n "$lines" >"$tmp/fin" &
	uniq -c <"$tmp/fout" >"$tmp/out" &
	upid=$!
	"$SIGCRAWL" normalize <"$tmp/fin" >"$tmp/fout" &
	spid=$!
	peak=0
	while kill -0 "$spid" 2>/dev/null; do
		v=$(awk '/^VmHWM:/ { print $2 }' "/proc/$spid/status" 2>/dev/null)
		if [ -n "$v" ] && [ "$v" -gt "$peak" ]; then
			peak=$v
		fi
		sleep 0.02
	done
	wait "$spid"
	rc=$?
	wait "$upid"
fi
elapsed=$(($(date +%s) - start))
want="$lines http://example.com/b"
got=$(sed 's/^ *//' "$tmp/out")
if [ "$rc" -eq 0 ] && [ "$got" = "$want" ]; then
	pass "stream: $lines lines in, $lines equal lines out (${elapsed}s)"
else
	fail "stream: $lines lines in" "got (uniq -c): $(head -c 300 "$tmp/out")" \
		"exit status $rc"
fi
if [ -n "$peak" ] && [ "$peak" -gt 0 ] 2>/dev/null &&
	[ "$peak" -lt "$max_kb" ]; then
	pass "stream: peak RSS ${peak} kB < ${max_kb} kB ($how)"
else
	fail "stream: peak RSS \"$peak\" kB, want < ${max_kb} kB ($how)"
fi

finish
