#!/bin/bash
# test-cli-report.sh SIGCRAWL SRCDIR MKSTORE — drive `sigcrawl report` on a
# crafted store (written by MKSTORE --jsonl, see tests/mkstore.c) and a
# truth file, and check every number of docs/report.md against the values
# worked out by hand below; also its exit status 0 / 1 / 2 (SPEC §2), the
# truth file's errors with line numbers, and --help.  The last line is
# "N passed, N failed"; any failure exits 1.
set -u

if [ $# -ne 3 ]; then
	echo "usage: $0 SIGCRAWL SRCDIR MKSTORE" >&2
	exit 2
fi
SIGCRAWL=$1
MKSTORE=$3

. "$(dirname "$0")/lib.sh"

run()
{
	"$SIGCRAWL" report "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

expect_line()
{
	if grep -qxF -- "$2" "$tmp/out"; then
		pass "$1"
	else
		fail "$1: line missing" "want: $2" "got:  $(head -c 1500 "$tmp/out")"
	fi
}

# jget NAME EXPR WANT — the JSON in $tmp/out, evaluated by python3 as EXPR
# over the object j, prints WANT (floats rounded to 6 places).
jget()
{
	local got
	got=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
steps = {s["step"]: s for s in j["steps"]}
v = eval(sys.argv[2])
print(round(v, 6) if isinstance(v, float) else json.dumps(v))
' "$tmp/out" "$2" 2>&1)
	if [ "$got" = "$3" ]; then
		pass "$1: $3"
	else
		fail "$1: got $got, want $3"
	fi
}

# sig XY — 32 hex digits, XY sixteen times.
sig()
{
	local s= i
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
		s=$s$1
	done
	echo "$s"
}

# rec URL NORMALIZED STATUS SIG [DUP] — one record line for mkstore.
rec()
{
	local extra=
	[ -n "${5:-}" ] && extra=",\"duplicate_of\":\"$5\""
	echo "{\"url\":\"$1\",\"normalized\":\"$2\",\"status\":$3,\"signature\":\"$(sig "$4")\"$extra}"
}

# ---- the crafted crawl (a strict-profile crawl: normalized = strict) -----
# Site a.com, judged by the truth file:
#   1 /            S1 rep          home      2 /index.html S1 dup of 1  home
#   3 /Docs/       S2 rep          docs      4 /docs/      S2 dup of 3  docs
#  19 /DOCS/       S2 dup of 3     docs
#   5 /news        S3 rep          news      6 /news/      S4 (a date)  news
#  18 /news?ts=1   S10 near-dup of 5  news
#   7 www.a.com/   S5              doc 7 (another site)
#   8 /about       S6 rep          about     9 /contact    S6 dup of 8  contact
#  10 /list?page=1&id=  S7 rep     list     11 /list?id=&page=1 dup of 10
#  13 /x           S8 rep          x        12 /x?utm_source=feed dup of 13
#  16 /extra       S9 (not in the truth)
#  and two records that are no pages: a 404 and one never fetched.
# Site b.com, one pair per extended step, not in the truth.
{
	rec http://a.com/ http://a.com/ 200 11
	rec http://a.com/index.html http://a.com/index.html 200 11 http://a.com/
	rec http://a.com/Docs/ http://a.com/Docs/ 200 22
	rec http://a.com/docs/ http://a.com/docs/ 200 22 http://a.com/Docs/
	rec http://a.com/DOCS/ http://a.com/DOCS/ 200 22 http://a.com/Docs/
	rec http://a.com/news http://a.com/news 200 33
	rec http://a.com/news/ http://a.com/news/ 200 44
	rec 'http://a.com/news?ts=1' 'http://a.com/news?ts=1' 200 a0 http://a.com/news
	rec http://www.a.com/ http://www.a.com/ 200 55
	rec http://a.com/about http://a.com/about 200 66
	rec http://a.com/contact http://a.com/contact 200 66 http://a.com/about
	rec 'http://a.com/list?page=1&id=' 'http://a.com/list?page=1&id=' 200 77
	rec 'http://a.com/list?id=&page=1' 'http://a.com/list?id=&page=1' 200 77 'http://a.com/list?page=1&id='
	rec http://a.com/x http://a.com/x 200 88
	rec 'http://a.com/x?utm_source=feed' 'http://a.com/x?utm_source=feed' 200 88 http://a.com/x
	rec http://a.com/extra http://a.com/extra 200 99
	echo '{"url":"http://a.com/gone","normalized":"http://a.com/gone","status":404}'
	echo '{"url":"http://a.com/later","normalized":"http://a.com/later"}'
	rec 'http://b.com/q?' 'http://b.com/q?' 200 b1 http://b.com/q
	rec http://b.com/q http://b.com/q 200 b1
	rec 'http://b.com/d?a=1&a=1' 'http://b.com/d?a=1&a=1' 200 b2
	rec 'http://b.com/d?a=1' 'http://b.com/d?a=1' 200 b3
	rec 'http://b.com/s;jsessionid=ABC' 'http://b.com/s;jsessionid=ABC' 200 b4 http://b.com/s
	rec http://b.com/s http://b.com/s 200 b4
	rec http://b.com./t http://b.com./t 200 b5 http://b.com/t
	rec http://b.com/t http://b.com/t 200 b5
	rec http://b.com//c http://b.com//c 200 b6
	rec http://b.com/c http://b.com/c 200 b7
	rec https://b.com/h https://b.com/h 200 b8 http://b.com/h
	rec http://b.com/h http://b.com/h 200 b8
	rec http://u@b.com/u http://u@b.com/u 200 b9 http://b.com/u
	rec http://b.com/u http://b.com/u 200 b9
	rec 'http://b.com/k?utm_source=feed&p=1' 'http://b.com/k?utm_source=feed&p=1' 200 d1 'http://b.com/k?p=1'
	rec 'http://b.com/k?p=1' 'http://b.com/k?p=1' 200 d1
	rec http://b.com/Upper http://b.com/Upper 200 c1
	rec http://b.com/upper http://b.com/upper 200 c2
} >"$tmp/records.jsonl"

store=$tmp/store
if ! "$MKSTORE" "$store" --jsonl "$tmp/records.jsonl"; then
	echo "FAIL: mkstore"
	exit 1
fi

# The truth: the URLs as a person would write them (strict forms match),
# one doc given as an integer, a repeated line, a blank line, and a URL the
# crawl never reached.
cat >"$tmp/truth.jsonl" <<'TRUTH'
{"url": "http://a.com/", "doc": "home"}
{"url": "HTTP://A.COM:80/index.html", "doc": "home"}
{"url": "http://a.com/Docs/", "doc": "docs"}
{"url": "http://a.com/docs/", "doc": "docs"}
{"url": "http://a.com/DOCS/", "doc": "docs"}

{"url": "http://a.com/news", "doc": "news"}
{"url": "http://a.com/news/", "doc": "news"}
{"url": "http://a.com/news?ts=1", "doc": "news"}
{"url": "http://www.a.com/", "doc": 7}
{"url": "HTTP://A.COM/about#top", "doc": "about"}
{"url": "http://a.com/contact", "doc": "contact"}
{"url": "http://a.com/list?page=1&id=", "doc": "list"}
{"url": "http://a.com/list?id=&page=1", "doc": "list"}
{"url": "http://a.com/x", "doc": "x"}
{"url": "http://a.com/x?utm_source=feed", "doc": "x"}
{"url": "http://a.com/x", "doc": "x"}
{"url": "http://a.com/never", "doc": "never"}
TRUTH

# ---- by hand ---------------------------------------------------------------
# Pages (fetched, 2xx): 16 on a.com, 18 on b.com = 34; records 36.
# U_std = 34 (all strict forms differ).  13 pages carry duplicate_of, each
# into a representative of its own class: U_fin = 34 - 13 = 21, reduction
# 13/34 = 0.382353.
# Steps (groups with >= 2 strict forms; n URLs, un signatures):
#   remove_empty_query        b/q? b/q            1 group n 2 un 1
#   sort_query                list x2             1       2    1
#   remove_duplicate_params   d?a=1&a=1 d?a=1     1       2    2
#   remove_tracking_params    k?utm..&p=1 k?p=1   1       2    1
#     (not x?utm_source=feed and x: alone, the step leaves "x?", and
#     only remove_empty_query then merges it with x)
#   remove_session_ids        s;jsessionid s      1       2    1
#   remove_trailing_host_dot  b.com./t b.com/t    1       2    1
#   remove_empty_params       list x2             1       2    1
#   collapse_slashes          //c /c              1       2    2
#   lowercase_path            Docs docs DOCS; Upper upper  2  5  3
#   add_trailing_slash        news news/          1       2    2
#   remove_default_page       / index.html        1       2    1
#   remove_www                a.com/ www.a.com/   1       2    2
#   fold_https                https h, http h     1       2    1
#   remove_userinfo           u@b.com/u b.com/u   1       2    1
# redundancy = (n - un)/n: 0.5 for un 1, 0 for un 2, lowercase_path 2/5;
# coverage loss = 1 - groups/un: 0 for un 1, 0.5 for un 2, lowercase_path
# 1 - 2/3.
# Truth: 16 URLs (the repeat dropped), 9 docs.  Collapsed pages: index.html,
# docs, DOCS, list?id=, x?utm, news?ts=1 into their own doc: TP 6; contact
# into about: FP 1.  Kept per doc: home 1, docs 1, news 2 (news, news/),
# 7 1, about 1, contact 0, list 1, x 1: TN 7, FN 1.  Judged 15; not judged
# 19 (a.com/extra and the 18 of b.com); unmatched 1 (never).
# sensitivity 6/7, specificity 7/8, precision 6/7, accuracy 13/15.

run --store "$store" --truth "$tmp/truth.jsonl" --json
expect_rc "json" 0
jget "records" 'j["records"]' 36
jget "pages" 'j["pages"]' 34
jget "U_std" 'j["url_reduction"]["u_std"]' 34
jget "U_fin" 'j["url_reduction"]["u_fin"]' 21
jget "URL reduction" 'j["url_reduction"]["rate"]' 0.382353
jget "14 extended steps, in order" '",".join(s["step"] for s in j["steps"])' \
	'"remove_empty_query,sort_query,remove_duplicate_params,remove_tracking_params,remove_session_ids,remove_trailing_host_dot,remove_empty_params,collapse_slashes,lowercase_path,add_trailing_slash,remove_default_page,remove_www,fold_https,remove_userinfo"'
for s in remove_empty_query sort_query remove_tracking_params \
	remove_session_ids remove_trailing_host_dot remove_empty_params \
	remove_default_page fold_https remove_userinfo; do
	jget "$s" "[steps['$s'][k] for k in ('groups','urls','unique','redundancy','coverage_loss')]" \
		'[1, 2, 1, 0.5, 0.0]'
done
for s in remove_duplicate_params collapse_slashes add_trailing_slash remove_www; do
	jget "$s" "[steps['$s'][k] for k in ('groups','urls','unique','redundancy','coverage_loss')]" \
		'[1, 2, 2, 0.0, 0.5]'
done
jget "lowercase_path counts" "[steps['lowercase_path'][k] for k in ('groups','urls','unique')]" '[2, 5, 3]'
jget "lowercase_path redundancy" "steps['lowercase_path']['redundancy']" 0.4
jget "lowercase_path coverage loss" "steps['lowercase_path']['coverage_loss']" 0.333333
jget "truth counts" '[j["truth"][k] for k in ("urls","docs","judged","unjudged","unmatched")]' '[16, 9, 15, 19, 1]'
jget "contingency" '[j["truth"][k] for k in ("tp","fn","fp","tn")]' '[6, 1, 1, 7]'
jget "sensitivity" 'j["truth"]["sensitivity"]' 0.857143
jget "specificity" 'j["truth"]["specificity"]' 0.875
jget "precision" 'j["truth"]["precision"]' 0.857143
jget "accuracy" 'j["truth"]["accuracy"]' 0.866667

# Without the truth: no "truth" member, the same other numbers.
run -s "$store" -j
expect_rc "json without truth" 0
jget "no truth member" '"truth" in j' false
jget "U_fin without truth" 'j["url_reduction"]["u_fin"]' 21

# The human table.
run --store "$store" --truth "$tmp/truth.jsonl"
expect_rc "table" 0
expect_line "table: reduction" "  reduction      38.24 %"
expect_line "table: lowercase_path row" \
	"  lowercase_path                2      5      3        0.4000        0.3333"
expect_line "table: remove_www row" \
	"  remove_www                    1      2      2        0.0000        0.5000"
expect_line "table: TP FN" "  redundant      TP 6           FN 1"
expect_line "table: FP TN" "  not redundant  FP 1           TN 7"
expect_line "table: sensitivity" "  sensitivity    85.71 %"
expect_line "table: accuracy" "  accuracy       86.67 %"

# An empty store: every rate is undefined (null, "-").
"$MKSTORE" "$tmp/empty" 0 || fail "mkstore empty"
run --store "$tmp/empty" --json
expect_rc "empty store" 0
jget "empty: rate null" 'j["url_reduction"]["rate"]' null
jget "empty: step rates null" '[steps["sort_query"]["redundancy"], steps["sort_query"]["coverage_loss"]]' '[null, null]'
run --store "$tmp/empty"
expect_line "empty: reduction -" "  reduction      -"

# ---- bad truth files: exit 2, the file and line named ---------------------
bad_truth()
{
	local name=$1 where=$2
	printf '%s\n' "${@:3}" >"$tmp/bad.jsonl"
	run --store "$store" --truth "$tmp/bad.jsonl"
	expect_rc "$name" 2
	expect_stderr "$name" "$tmp/bad.jsonl:$where"
}
ok='{"url": "http://a.com/", "doc": "home"}'
bad_truth "bad JSON" "2: bad JSON" "$ok" '{"url": "http://a.com/x", "doc": ' "$ok"
bad_truth "not an object" "1: not a JSON object" '["http://a.com/", "home"]'
bad_truth "no url" "2: \"url\" missing" "$ok" '{"doc": "home"}'
bad_truth "doc a list" "1: \"doc\" missing or not a string or an integer" \
	'{"url": "http://a.com/", "doc": ["home"]}'
bad_truth "mailto url" "3: the url does not normalize" "$ok" "$ok" \
	'{"url": "mailto:a@b.c", "doc": "m"}'
bad_truth "duplicate key" "1: bad JSON" \
	'{"url": "http://a.com/", "url": "http://a.com/x", "doc": 1}'
bad_truth "conflicting docs" "2: the URL of line 1" "$ok" \
	'{"url": "HTTP://a.com", "doc": "other"}'
long=$(head -c 70000 /dev/zero | tr '\0' a)
bad_truth "overlong line" "2: line longer than 65536 bytes" "$ok" \
	"{\"url\": \"http://a.com/$long\", \"doc\": 1}"
run --store "$store" --truth "$tmp/no-such-file"
expect_rc "missing truth file" 2
expect_stderr "missing truth file" "$tmp/no-such-file: No such file"

# ---- the store from a config file (-c) ------------------------------------
run --store "$store" --json
cp "$tmp/out" "$tmp/by-store"
printf '[crawl]\nstore = store\n' >"$tmp/r.conf"
(cd / && "$SIGCRAWL" report -c "$tmp/r.conf" --json >"$tmp/out" 2>"$tmp/err")
rc=$?
expect_rc "-c FILE" 0
check_true "-c FILE: the report of the config's store" cmp -s "$tmp/out" "$tmp/by-store"
printf '[crawl]\nstore = elsewhere\n' >"$tmp/r2.conf"
run --config "$tmp/r2.conf"
expect_rc "--config FILE whose store is missing" 1
expect_stderr "--config FILE whose store is missing" "$tmp/elsewhere: no store there"
printf '[crawl]\nmax_depth = deep\n' >"$tmp/r3.conf"
run -c "$tmp/r3.conf"
expect_rc "-c a bad config" 2
expect_stderr "-c a bad config" "$tmp/r3.conf:2: [crawl] max_depth:"

# ---- usage and runtime failures -------------------------------------------
run --store
expect_rc "--store without a value" 2
expect_stderr "--store without a value" "sigcrawl report: --store needs an argument"
run --store "$store" --truth
expect_rc "--truth without a value" 2
expect_stderr "--truth without a value" "sigcrawl report: --truth needs an argument"
run --store "$store" -c
expect_rc "-c without a value" 2
expect_stderr "-c without a value" "sigcrawl report: -c needs an argument"
run --store "$store" --frobnicate
expect_rc "bad option" 2
expect_stderr "bad option" "bad option '--frobnicate'"
run --store "$store" --json=yes
expect_rc "a value for --json" 2
expect_stderr "a value for --json" "--json takes no argument"
run --store "$store" extra
expect_rc "extra argument" 2
run --store "$tmp/nothing-here"
expect_rc "missing store" 1
expect_stderr "missing store" "no store there"
"$MKSTORE" "$tmp/corrupt" 2 --corrupt || fail "mkstore corrupt"
run --store "$tmp/corrupt"
expect_rc "undecodable record" 1
expect_stderr "undecodable record" "reading the records failed"
run --help
expect_rc "--help" 0
if grep -q "coverage loss" "$tmp/out" && grep -q -- "--truth FILE" "$tmp/out" &&
	grep -q -- "-c, --config FILE" "$tmp/out"; then
	pass "--help explains the metrics"
else
	fail "--help text" "$(head -c 300 "$tmp/out")"
fi

finish
