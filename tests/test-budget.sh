#!/bin/bash
# test-budget.sh SIGCRAWL FIXTURE — the per-host page budget (SPEC §3
# max_pages_per_host, §8's spider-trap bound): a host with more pages than
# its budget gets exactly the budget fetched, over a crawl stopped and
# resumed and over a kill -9; the rest of its URLs are recorded as
# host_budget, not fetched; another host is not limited by it.
set -u
sigcrawl=$1
fixture=$2
. "$(dirname "$0")/crawl-lib.sh"

cat >"$tmp/web" <<'EOF'
site big.test pages=60 links=3-5 fanout=3 cross=0 seed=3 size=300
site small.test pages=6 links=2-3 fanout=2 cross=0 seed=4 size=300
EOF
printf 'http://big.test/\nhttp://small.test/\n' >"$tmp/seeds"

# crawl STORE LOG [OPTION...] — crawl the web into STORE (a budget of 10
# per host unless the options say otherwise).
crawl()
{
	local store=$1 log=$2
	shift 2
	start_fixture "$tmp/web" "$log"
	timeout 60 "$sigcrawl" crawl --store "$store" --seeds "$tmp/seeds" \
		--connect-to "::127.0.0.1:$port" --per-host-delay-ms 0 \
		--max-pages-per-host 10 --quiet "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	stop_fixture
}
# fetched_pages LOG HOST — page requests (not robots.txt) of HOST in LOG.
fetched_pages() { awk -F'\t' -v h="$2" '$3 == "req" && $4 == h && $6 != "/robots.txt"' "$1" | wc -l; }
# records STORE HOST PATTERN — records of HOST's URLs matching PATTERN.
records() { "$sigcrawl" export --store "$1" | grep -F "\"normalized\":\"http://$2/" | grep -c -- "$3"; }

# One crawl, stopped after 4 fetches, then resumed.
crawl "$tmp/s1" "$tmp/log1" --max-pages 4
check_true "a first crawl, stopped by --max-pages 4, exits 0 ($rc)" [ "$rc" -eq 0 ]
first=$(fetched_pages "$tmp/log1" big.test)
crawl "$tmp/s1" "$tmp/log2"
check_true "the resumed crawl exits 0 ($rc)" [ "$rc" -eq 0 ]
second=$(fetched_pages "$tmp/log2" big.test)
check_true "big.test: exactly 10 pages requested over both runs ($first + $second)" [ $((first + second)) -eq 10 ]
check_true "the first run fetched some of them ($first)" [ "$first" -ge 1 ]
check_true "big.test: 10 records of fetched pages" [ "$(records "$tmp/s1" big.test '"fetched":true')" -eq 10 ]
over=$(records "$tmp/s1" big.test '"fetched":false.*"error":"host_budget"')
all=$(records "$tmp/s1" big.test '')
check_true "big.test: the other URLs found are recorded as host_budget ($over of $all)" [ "$over" -ge 1 ]
check_true "... and every record is either fetched or over the budget" [ $((over + 10)) -eq "$all" ]
check_true "small.test (6 pages, under the budget) is crawled completely" [ "$(records "$tmp/s1" small.test '"status":200')" -eq 6 ]
check_true "the summary counts them" grep -q "^host budget: $over URLs recorded, not fetched" "$tmp/out"
check_true "... and not as errors" grep -q '^errors 0 ' "$tmp/out"
crawl "$tmp/s1" "$tmp/log3" --max-pages-per-host 0
check_true "a third run without the budget fetches nothing: those URLs are recorded ($(fetched_pages "$tmp/log3" big.test))" [ "$(fetched_pages "$tmp/log3" big.test)" -eq 0 ]

# The budget from the config file, and a bad value.
printf '[crawl]\nmax_pages_per_host = 3\nper_host_delay_ms = 0\n' >"$tmp/b.conf"
start_fixture "$tmp/web" "$tmp/log4"
timeout 60 "$sigcrawl" crawl -c "$tmp/b.conf" --store "$tmp/s2" \
	--seeds "$tmp/seeds" --connect-to "::127.0.0.1:$port" --quiet \
	>/dev/null 2>&1
stop_fixture
check_true "max_pages_per_host = 3 in the file: 3 pages of big.test ($(fetched_pages "$tmp/log4" big.test))" [ "$(fetched_pages "$tmp/log4" big.test)" -eq 3 ]
"$sigcrawl" crawl --store "$tmp/s9" --max-pages-per-host -1 >/dev/null 2>"$tmp/e"
check_true "a bad --max-pages-per-host: exit 2" [ $? -eq 2 ]
check_true "... naming the option" grep -q -- "--max-pages-per-host" "$tmp/e"

# kill -9 in the middle, then resume: still exactly the budget recorded as
# fetched (a page in flight at the kill is fetched again, never counted
# twice).
start_fixture "$tmp/web" "$tmp/log5"
"$sigcrawl" crawl --store "$tmp/s3" --seeds "$tmp/seeds" \
	--connect-to "::127.0.0.1:$port" --per-host-delay-ms 100 \
	--max-pages-per-host 15 --quiet >/dev/null 2>&1 &
cpid=$!
for _ in $(seq 200); do
	[ "$(fetched_pages "$tmp/log5" big.test)" -ge 6 ] && break
	sleep 0.05
done
kill -9 "$cpid"
wait "$cpid" 2>/dev/null
stop_fixture
killed_at=$(fetched_pages "$tmp/log5" big.test)
check_true "the crawl was killed part way ($killed_at of 15 pages requested)" test "$killed_at" -ge 6 -a "$killed_at" -lt 15
crawl "$tmp/s3" "$tmp/log6" --max-pages-per-host 15
check_true "the crawl after kill -9 exits 0 ($rc)" [ "$rc" -eq 0 ]
check_true "after kill -9: exactly 15 fetched records of big.test" [ "$(records "$tmp/s3" big.test '"fetched":true')" -eq 15 ]
total=$(($(fetched_pages "$tmp/log5" big.test) + $(fetched_pages "$tmp/log6" big.test)))
check_true "... requests: 15, plus at most the 2 in flight at the kill ($total)" test "$total" -ge 15 -a "$total" -le 17

finish
