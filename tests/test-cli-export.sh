#!/bin/bash
# test-cli-export.sh SIGCRAWL SRCDIR MKSTORE — drive `sigcrawl export` on a
# store of known records (written by MKSTORE, see tests/mkstore.c) and check
# its output in both formats, its exit status 0 / 1 / 2 (SPEC §2) and
# --help.  Every check counts; the last line is "N passed, N failed" and any
# failure exits 1.
set -u

if [ $# -ne 3 ]; then
	echo "usage: $0 SIGCRAWL SRCDIR MKSTORE" >&2
	exit 2
fi
SIGCRAWL=$1
MKSTORE=$3

. "$(dirname "$0")/lib.sh"

# run ARGS... — run SIGCRAWL export; leaves $tmp/out, $tmp/err and $rc.
run()
{
	"$SIGCRAWL" export "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# expect_lines NAME N FILE — FILE has exactly N lines.
expect_lines()
{
	local n
	n=$(wc -l <"$3")
	if [ "$n" -eq "$2" ]; then
		pass "$1: $2 lines"
	else
		fail "$1: $n lines, want $2"
	fi
}

# expect_line NAME LINE FILE — FILE holds LINE as a whole line.
expect_line()
{
	if grep -qxF -- "$2" "$3"; then
		pass "$1"
	else
		fail "$1: line missing" "want: $2" "got:  $(head -c 600 "$3")"
	fi
}

store=$tmp/store
if ! "$MKSTORE" "$store" 10; then
	echo "FAIL: mkstore"
	exit 1
fi

# ---- JSONL ----------------------------------------------------------------
run --store "$store"
expect_rc "jsonl" 0
expect_lines "jsonl" 10 "$tmp/out"
expect_line "jsonl record 0 (fetched, every field)" \
	'{"url":"http://Example.com/page/0?utm_source=x","normalized":"http://example.com/page/0","category":"cat","depth":0,"status":200,"fetched":true,"content_type":"text/html","bytes":1000,"fetched_at":1700000000000,"title":"Hello, \"world\"","redirect":null,"signature":"00000000000000000000000000000000","simhash":"0000000000000000","duplicate_of":null,"relevance":0.0,"error":null,"truncated":false,"rule":null,"visits":1,"changed_at":null,"gone_at":null,"next_visit":null,"interval":null,"etag":null,"last_modified":null,"robots":null}' \
	"$tmp/out"
expect_line "jsonl record 1 (not fetched, nulls)" \
	'{"url":"http://Example.com/page/1?utm_source=x","normalized":"http://example.com/page/1","category":"cat","depth":1,"status":null,"fetched":false,"content_type":null,"bytes":null,"fetched_at":null,"title":null,"redirect":null,"signature":null,"simhash":null,"duplicate_of":null,"relevance":null,"error":"robots_disallowed","truncated":false,"rule":null,"visits":0,"changed_at":null,"gone_at":null,"next_visit":null,"interval":null,"etag":null,"last_modified":null,"robots":null}' \
	"$tmp/out"
expect_line "jsonl record 6" \
	'{"url":"http://Example.com/page/6?utm_source=x","normalized":"http://example.com/page/6","category":"cat","depth":2,"status":200,"fetched":true,"content_type":"text/html","bytes":1006,"fetched_at":1700000000006,"title":"Page 6","redirect":null,"signature":"06060606060606060606060606060606","simhash":"0000000000000006","duplicate_of":null,"relevance":1.5,"error":null,"truncated":false,"rule":null,"visits":1,"changed_at":null,"gone_at":null,"next_visit":null,"interval":null,"etag":null,"last_modified":null,"robots":null}' \
	"$tmp/out"
n=$(sed -n 's/.*"normalized":"\([^"]*\)".*/\1/p' "$tmp/out" | sort -u | wc -l)
if [ "$n" -eq 10 ]; then
	pass "jsonl: 10 distinct records"
else
	fail "jsonl: $n distinct records, want 10"
fi
cp "$tmp/out" "$tmp/jsonl1"
run -s "$store" -f jsonl
if cmp -s "$tmp/out" "$tmp/jsonl1"; then
	pass "jsonl: -s/-f give the same, stable output"
else
	fail "jsonl: a second export differs"
fi

# ---- CSV ------------------------------------------------------------------
run --store "$store" --format csv
expect_rc "csv" 0
expect_lines "csv" 11 "$tmp/out"
crs=$(tr -cd '\r' <"$tmp/out" | wc -c)
if [ "$crs" -eq 11 ]; then
	pass "csv: every line ends in CRLF"
else
	fail "csv: $crs CRs, want 11"
fi
tr -d '\r' <"$tmp/out" >"$tmp/csv"
if [ "$(head -n 1 "$tmp/csv")" = "url,normalized,category,depth,status,fetched,content_type,bytes,fetched_at,title,redirect,signature,simhash,duplicate_of,relevance,error,truncated,rule,visits,changed_at,gone_at,next_visit,interval,etag,last_modified,robots" ]; then
	pass "csv: header first"
else
	fail "csv: header" "got: $(head -n 1 "$tmp/csv")"
fi
expect_line "csv record 0 (quoted title)" \
	'http://Example.com/page/0?utm_source=x,http://example.com/page/0,cat,0,200,true,text/html,1000,1700000000000,"Hello, ""world""",,00000000000000000000000000000000,0000000000000000,,0,,false,,1,,,,,,,' \
	"$tmp/csv"
expect_line "csv record 1 (empty fields)" \
	'http://Example.com/page/1?utm_source=x,http://example.com/page/1,cat,1,,false,,,,,,,,,,robots_disallowed,false,,0,,,,,,,' \
	"$tmp/csv"

# ---- An empty store ---------------------------------------------------------
"$MKSTORE" "$tmp/empty" 0 || fail "mkstore empty"
run --store "$tmp/empty"
expect_rc "empty jsonl" 0
expect_lines "empty jsonl" 0 "$tmp/out"
run --store "$tmp/empty" --format csv
expect_rc "empty csv" 0
expect_lines "empty csv: header only" 1 "$tmp/out"

# ---- Runtime failures: exit 1 ---------------------------------------------------
run --store "$tmp/missing"
expect_rc "missing store" 1
expect_stderr "missing store" "no store there"
if [ ! -e "$tmp/missing" ]; then
	pass "missing store: nothing created"
else
	fail "missing store: export created $tmp/missing"
fi
mkdir "$tmp/notastore"
run --store "$tmp/notastore"
expect_rc "directory without a store" 1
echo hello >"$tmp/afile"
run --store "$tmp/afile"
expect_rc "a file, not a directory" 1
"$MKSTORE" "$tmp/bad" 3 --corrupt || fail "mkstore --corrupt"
run --store "$tmp/bad"
expect_rc "corrupt record" 1
expect_stderr "corrupt record" "stored data is corrupt"

# ---- The store from a config file (-c) -----------------------------------
# Its store is relative to the config file, wherever export runs.
mkdir -p "$tmp/etc"
printf '[crawl]\nstore = ../store\n[category cat]\nseeds = no-such-list\n' >"$tmp/etc/x.conf"
run --store "$store"
cp "$tmp/out" "$tmp/by-store"
(cd / && "$SIGCRAWL" export -c "$tmp/etc/x.conf" >"$tmp/out" 2>"$tmp/err")
rc=$?
expect_rc "-c FILE" 0
check_true "-c FILE: the records of the config's store" cmp -s "$tmp/out" "$tmp/by-store"
run --config "$tmp/etc/x.conf" --format csv
expect_rc "--config FILE --format csv" 0
expect_lines "--config FILE --format csv" 11 "$tmp/out"
run -c "$tmp/etc/x.conf" --store "$tmp/empty"
expect_rc "--store over -c" 0
expect_lines "--store over -c: the empty store" 0 "$tmp/out"
printf '[crawl]\nstore = nowhere\n' >"$tmp/etc/y.conf"
run -c "$tmp/etc/y.conf"
expect_rc "-c FILE whose store is missing" 1
expect_stderr "-c FILE whose store is missing" "$tmp/etc/nowhere: no store there"
printf '[crawl]\nstore = %s\nstore_dir = x\n' "$store" >"$tmp/etc/bad.conf"
run -c "$tmp/etc/bad.conf"
expect_rc "-c a bad config" 2
expect_stderr "-c a bad config" "$tmp/etc/bad.conf:3: [crawl] store_dir: unknown key"
run -c "$tmp/etc/none.conf"
expect_rc "-c a missing config" 2
expect_stderr "-c a missing config" "$tmp/etc/none.conf: No such file or directory"

# ---- Usage: exit 2 --------------------------------------------------------
run --store "$store" --format xml
expect_rc "unknown format" 2
expect_stderr "unknown format" "unknown format 'xml'"
run --store "$store" --bogus
expect_rc "unknown option" 2
run --store "$store" extra
expect_rc "extra argument" 2
run --store
expect_rc "--store without a value" 2
expect_stderr "--store without a value" "sigcrawl export: --store needs an argument"
run --store "$store" -c
expect_rc "-c without a value" 2
expect_stderr "-c without a value" "sigcrawl export: -c needs an argument"
run --store "$store" --format
expect_rc "--format without a value" 2
expect_stderr "--format without a value" "sigcrawl export: --format needs an argument"
run --store "$store" --bogus
expect_stderr "unknown option" "bad option '--bogus'"

# ---- --help -----------------------------------------------------------------
run --help
expect_rc "--help" 0
if grep -q '^usage: sigcrawl export' "$tmp/out"; then
	pass "--help: usage on stdout"
else
	fail "--help: no usage line on stdout"
fi
"$SIGCRAWL" --help >"$tmp/out" 2>&1
if grep -q '^  export ' "$tmp/out"; then
	pass "sigcrawl --help lists export"
else
	fail "sigcrawl --help does not list export"
fi

finish
