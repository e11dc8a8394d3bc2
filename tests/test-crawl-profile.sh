#!/bin/bash
# test-crawl-profile.sh SIGCRAWL FIXTURE MKSTORE — a store under another
# normalization: a resumed crawl fetches and records exactly the URLs that
# were queued (never a key normalized again), a store keeps the
# normalization it was created with and refuses a run with another one
# (exit 2, naming both), stores of the previous version (no recorded
# normalization, queue entries of format 2, a seen set of format 1) still
# open, and `serve` says
# on a reload what a restart would do.
set -u
sigcrawl=$1
fixture=$2
mkstore=$3
. "$(dirname "$0")/crawl-lib.sh"
spid=
on_exit()
{
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null
	[ -n "$fpid" ] && kill "$fpid" 2>/dev/null
}

# Every page's title is "T " and its path: a record that carries another
# URL's content shows it in its title.  /Ot and / are what the issue saw
# requested for /Other/index.html?utm_source=q and /xyz.
cat >"$tmp/web" <<'EOF'
host www.a.test
page /                               200 text/html title="T /" links=/Other/index.html?utm_source=q,/xyz,/Zed,/d/
page /Other/index.html?utm_source=q  200 text/html title="T /Other/index.html?utm_source=q"
page /Other/index.html               200 text/html title="T /Other/index.html"
page /Ot                             200 text/html title="T /Ot"
page /xyz                            200 text/html title="T /xyz"
page /Zed                            200 text/html title="T /Zed" links=/Zed/Deep
page /Zed/Deep                       200 text/html title="T /Zed/Deep"
page /d/                             200 text/html title="T /d/"
page /robots.txt                     200 text/plain body="User-agent: *\nAllow: /\n"
default 404
# What remove_www makes of it: a crawl that fetched aggressive's keys
# would get these pages' titles.
host a.test
page /                               200 text/html title="T a /" links=/Zed/Deep
page /zed/deep/                      200 text/html title="T a /zed/deep/"
default 404
EOF
printf 'http://www.a.test/\n' >"$tmp/seeds"
start_fixture "$tmp/web" "$tmp/log"
opts=(--connect-to "::127.0.0.1:$port" --per-host-delay-ms 0 --quiet)

# crawl STORE LOGNAME [OPTION...]: a crawl whose requests are logged in
# $tmp/LOGNAME (the fixture's log from here on); sets $rc, $tmp/err.
crawl()
{
	local store=$1 log=$2
	shift 2
	: >"$tmp/$log"
	stop_fixture
	start_fixture "$tmp/web" "$tmp/$log"
	opts=(--connect-to "::127.0.0.1:$port" --per-host-delay-ms 0 --quiet)
	"$sigcrawl" crawl --store "$tmp/$store" "${opts[@]}" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# Requested paths (with query) of www.a.test, robots.txt aside.
requested() { cat "$@" | awk -F'\t' '$3 == "req" && $4 == "www.a.test" && $6 != "/robots.txt" { print $6 }' | sort; }

# Every fetched record's title is its own URL's, and the URLs fetched are
# the ones recorded as fetched: no record carries another URL's content.
# content_ok STORE LOG... ; prints what is wrong, returns 1 if anything.
content_ok()
{
	local store=$1
	shift
	"$sigcrawl" export --store "$tmp/$store" >"$tmp/export" || return 1
	sed -n 's#.*"normalized":"http://www\.a\.test\([^"]*\)".*"fetched":\([a-z]*\).*"title":\(null\|"[^"]*"\).*#\1\t\2\t\3#p' \
		"$tmp/export" >"$tmp/recs"
	local bad
	bad=$(awk -F'\t' '$2 == "true" && $3 != "\"T " $1 "\"" { print $1 " has title " $3 }' "$tmp/recs")
	[ "$(wc -l <"$tmp/recs")" -eq "$(wc -l <"$tmp/export")" ] || bad="$bad; a record of another host or form"
	awk -F'\t' '$2 == "true" { print $1 }' "$tmp/recs" | sort >"$tmp/fetched"
	requested "$@" >"$tmp/req"
	cmp -s "$tmp/fetched" "$tmp/req" || bad="$bad; fetched $(tr '\n' ' ' <"$tmp/req") but recorded $(tr '\n' ' ' <"$tmp/fetched")"
	[ -z "$bad" ] && return 0
	echo "$bad"
	return 1
}

check_content()
{
	local why
	if why=$(content_ok "$@"); then
		pass "$1: every record's content is its own URL's"
	else
		fail "$1: every record's content is its own URL's" "$why"
	fi
}

# ---------------------------------------------------------------------
# The issue's case: strict, one page; then aggressive.
crawl s1 log1 --seeds "$tmp/seeds" --profile strict --max-pages 1
expect_rc "strict, one page" 0
crawl s1 log2 --profile aggressive
expect_rc "resumed with aggressive" 2
expect_stderr "the refusal names the store's profile" "made with the normalization profile strict"
expect_stderr "the refusal names the run's profile" "this run asks for aggressive"
expect_stderr "the refusal says how to resume" "--profile strict --steps ''"
expect_stderr "the refusal says how to crawl with aggressive" "to crawl with aggressive, use a new store"
check_true "nothing requested by the refused run" test ! -s "$tmp/log2"
# extended with the steps that make it strict is strict: the same keys.
crawl s1 log3 --profile extended --steps -remove_empty_query,-sort_query,-remove_duplicate_params,-remove_tracking_params,-remove_session_ids,-remove_trailing_host_dot
expect_rc "resumed with other names for strict's steps" 0
check_true "/Other/index.html?utm_source=q requested as queued" grep -qP '\treq\twww.a.test\tGET\t/Other/index.html\?utm_source=q\t' "$tmp/log3"
check_true "/Ot never requested" test "$(requests www.a.test /Ot "$tmp/log3")" -eq 0
check_content s1 "$tmp/log1" "$tmp/log3"
r=$(record "$tmp/s1" http://www.a.test/xyz)
check_true "/xyz recorded with its own title" eval 'echo "$r" | grep -q "\"title\":\"T /xyz\""'

# A new store records the run's normalization: aggressive, then strict is
# refused; aggressive itself resumes.
crawl s2 log4 --seeds "$tmp/seeds" --profile aggressive --max-pages 1
expect_rc "aggressive, one page" 0
crawl s2 log5 --profile strict
expect_rc "resumed with strict" 2
expect_stderr "the refusal names both" "made with the normalization profile aggressive, and this run asks for strict"
expect_stderr "the refusal says how to resume" "--profile aggressive --steps ''"
crawl s2 log5 --profile extended --steps +lowercase_path
expect_rc "resumed with extended +lowercase_path" 2
expect_stderr "steps beyond a profile are named" "asks for extended with steps +lowercase_path"
crawl s2 log6 --profile aggressive
expect_rc "resumed with aggressive" 0
# Aggressive keys its URLs with www. and the case gone, and fetches them
# as they were found (SPEC §7, keys, not fetches): www.a.test/Zed/Deep,
# never its key a.test/zed/deep/, which names another page here.
check_true "aggressive requests the form found (www.a.test/Zed/Deep)" test "$(requests www.a.test /Zed/Deep "$tmp/log6")" -eq 1
check_true "and not its key (a.test/zed/deep/)" test "$(requests a.test /zed/deep/ "$tmp/log6")" -eq 0
r=$(record "$tmp/s2" http://a.test/zed/deep/)
check_true "recorded under its key with the content of the form found" eval 'echo "$r" | grep -q "\"title\":\"T /Zed/Deep\""'
check_true "and that form as its url" eval 'echo "$r" | grep -q "\"url\":\"http://www.a.test/Zed/Deep\""'

# Steps beyond the profile are recorded and must be given again.
crawl s3 log7 --seeds "$tmp/seeds" --profile strict --steps +lowercase_path,-remove_fragment --max-pages 1
expect_rc "strict with steps" 0
crawl s3 log8 --profile strict
expect_rc "resumed with plain strict" 2
expect_stderr "the remedy gives the steps" "--profile strict --steps '-remove_fragment,+lowercase_path'"
crawl s3 log8 --profile strict --steps '-remove_fragment,+lowercase_path'
expect_rc "resumed with the remedy's options" 0

# ---------------------------------------------------------------------
# A store of the previous version: no recorded normalization, queue
# entries of format 2.  Its keys are tried against the run's profile.
crawl s4 log9 --seeds "$tmp/seeds" --profile strict --max-pages 1
expect_rc "strict, one page (to downgrade)" 0
"$mkstore" "$tmp/s4" --downgrade
check_true "mkstore --downgrade" test $? -eq 0
crawl s4 log10 --profile aggressive
expect_rc "an old strict store resumed with aggressive" 2
expect_stderr "the refusal says the store is old" "written by an earlier sigcrawl"
expect_stderr "the refusal names a key aggressive would rewrite" 'is not in the form of aggressive'
expect_stderr "the refusal names the profile its keys fit" "its keys fit strict:"
check_true "nothing requested by the refused run" test ! -s "$tmp/log10"
crawl s4 log11 --profile strict
expect_rc "the old store resumed with strict" 0
expect_stderr "its normalization is recorded now" "every key it holds is in the form of strict, which is recorded now"
check_content s4 "$tmp/log9" "$tmp/log11"
# mkstore rebuilt its seen set in format 1 (hashed keys): read
# as such, it knows the seed, so a run given the seed again fetches
# nothing; read as format 2, it would fetch the seed and its links again.
crawl s4 log11b --profile strict --seeds "$tmp/seeds"
expect_rc "the old store given its seed again" 0
check_true "its format-1 seen set is read: nothing fetched again" test "$(requested "$tmp/log11b" | wc -l)" -eq 0
crawl s4 log12 --profile aggressive
expect_rc "then aggressive" 2
expect_stderr "now the store says strict" "made with the normalization profile strict"

# A store of records only (mkstore): http://example.com/page/N fits strict
# and extended, not aggressive (which adds a trailing slash).
"$mkstore" "$tmp/s5" 6
crawl s5 log13 --profile aggressive
expect_rc "records-only old store with aggressive" 2
expect_stderr "its keys fit strict and extended" "its keys fit strict, extended:"
crawl s5 log13 --profile extended
expect_rc "records-only old store with extended" 0
crawl s5 log13 --profile strict
expect_rc "then strict" 2
expect_stderr "it is extended now" "made with the normalization profile extended"

# ---------------------------------------------------------------------
# serve: a reload that changes [normalize] says what a restart will do,
# and the restart is refused with exit status 2.
write_conf()
{
	cat >"$tmp/serve.conf" <<EOF
[crawl]
store = s6
per_host_delay_ms = 0
connect_to = ::127.0.0.1:$port
[normalize]
profile = $1
[control]
listen = unix:ctl.sock
[category web]
seeds = seeds
EOF
}
wait_grep() { for _ in $(seq 200); do grep -qF -- "$1" "$2" && return 0; sleep 0.05; done; return 1; }
write_conf strict
"$sigcrawl" serve -c "$tmp/serve.conf" 2>"$tmp/serve.err" &
spid=$!
check_true "serve starts" wait_grep "serving " "$tmp/serve.err"
write_conf aggressive
kill -HUP "$spid"
check_true "the reload says the restart will be refused" wait_grep "a restart with this config will be refused (exit status 2)" "$tmp/serve.err"
check_true "the reload names both" grep -qF "[normalize] asks for aggressive, but the store's keys were made with strict" "$tmp/serve.err"
check_true "the reload does not say 'restart to apply' for [normalize]" eval '! grep "normalize" "$tmp/serve.err" | grep -q "restart to apply"'
kill -TERM "$spid"
wait "$spid"
check_true "serve stops with 0" test $? -eq 0
spid=
"$sigcrawl" serve -c "$tmp/serve.conf" 2>"$tmp/err"
rc=$?
expect_rc "serve restarted with aggressive" 2
expect_stderr "serve's refusal names both" "made with the normalization profile strict, and this run asks for aggressive"
stop_fixture
finish
