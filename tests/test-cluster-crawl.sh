#!/bin/bash
# test-cluster-crawl.sh SIGCRAWL FIXTURE — three `sigcrawl serve` daemons
# sharing one crawl over a 3-node NATS JetStream cluster on 127.0.0.1
# (SPEC §9): seeds submitted to one daemon reach the whole web, every
# host is crawled by one shard only, no URL is fetched twice, the union of
# the shards' records is what one daemon alone fetches, `status --cluster`
# shows every shard and the totals, and one page that six sites serve
# has one representative in the whole cluster whichever shard fetched
# it; then again with a daemon killed -9 and restarted and a NATS node
# killed -9 mid-crawl; then with every NATS node down from the start:
# the daemons crawl their own shards, spool the rest on disk, and
# publish it when NATS is back; then with the seeds published to NATS by
# submit --cluster, no daemon asked.
set -u
sigcrawl=$1
fixture=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/crawl-lib.sh"
. "$here/nats-lib.sh"

dpids=(0 0 0)
on_exit()
{
	local p
	for p in "${dpids[@]}"; do
		[ "$p" -gt 0 ] && kill -9 "$p" 2>/dev/null
	done
	stop_nodes
	[ -n "$fpid" ] && kill "$fpid" 2>/dev/null
	wait 2>/dev/null
}
servers=${nats_urls//,/, }
start_node 0
start_node 1
start_node 2

# Twelve sites, each its own registrable domain, a fifth of their links
# to the others; two seeds reach them all.  max_depth does not bind: a
# shard counts the hops of the path by which a URL first reached it,
# which across shards may be longer than the shortest (docs/cluster.md).
# Six more sites serve one page with one text: one of them is the
# representative of the whole cluster, the others its duplicates,
# whichever shard fetched them.
{
	for i in $(seq 12); do
		echo "site site$i.test pages=40 links=3-6 fanout=3 cross=20 seed=$((40 + i)) size=1200"
	done
	for i in $(seq 6); do
		echo "host dup$i.test"
		echo "page / 200 text/html body=\"<p>one text that six sites serve word for word</p>\""
	done
	# Six near twins: one story whose time stamp differs by a second
	# (simhash:3 collapses them; SimHash is not shared across shards).
	for i in $(seq 6); do
		sed "s/10:00:01\./10:00:0$i./" "$here/equiv/s-story1.html" >"$tmp/near$i.html"
		echo "host near$i.test"
		echo "page / 200 text/html file=near$i.html"
	done
} >"$tmp/web"
{
	printf 'http://site1.test/\nhttp://site7.test/\n'
	for i in $(seq 6); do
		echo "http://dup$i.test/"
		echo "http://near$i.test/"
	done
} >"$tmp/seeds"

# --- One daemon's crawl, the reference --------------------------------------
start_fixture "$tmp/web" "$tmp/ref.log"
cat >"$tmp/ref.conf" <<EOF
[crawl]
store = $tmp/ref
max_depth = 100
per_host_delay_ms = 0
connect_to = ::127.0.0.1:$port
[dedup]
near_duplicate = simhash:3
[category web]
scope = any
EOF
"$sigcrawl" crawl -c "$tmp/ref.conf" --seeds "$tmp/seeds" --category web --quiet >/dev/null 2>&1
check_true "the reference crawl ends with exit 0" [ $? -eq 0 ]
stop_fixture
fetched_of() { "$sigcrawl" export --store "$1" | python3 -c '
import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r["fetched"]:
        print(r["normalized"])'; }
fetched_of "$tmp/ref" | sort >"$tmp/ref.urls"
hosts=$(sed -E 's|^https?://([^/]*)/.*|\1|' "$tmp/ref.urls" | sort -u | wc -l)
check_true "the reference reaches all 24 sites ($hosts)" [ "$hosts" -eq 24 ]
near_reps() { "$sigcrawl" export --store "$1" | python3 -c '
import json, sys
print(sum(1 for l in sys.stdin for r in [json.loads(l)]
          if r["fetched"] and r["normalized"].startswith("http://near")
          and not r["duplicate_of"]))'; }
check_true "the reference collapses the six near twins into one ($(near_reps "$tmp/ref"))" \
	test "$(near_reps "$tmp/ref")" -eq 1

# --- Three daemons ---------------------------------------------------------
# Daemon 0's dashboard listens on a free loopback port (the page of every
# shard is checked in a browser below).
dash_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
conf()
{
	local i=$1 store=$2 delay=$3
	cat >"$tmp/c$i.conf" <<EOF
[crawl]
store = $store
max_depth = 100
per_host_delay_ms = $delay
concurrency = 8
connect_to = ::127.0.0.1:$port
[control]
listen = unix:$tmp/c$i.sock
$([ "$i" -eq 0 ] && echo "dashboard = tcp:127.0.0.1:$dash_port")
[dedup]
near_duplicate = simhash:3
[category web]
scope = any
[cluster]
nats = $servers
shards = 3
shard = $i
EOF
}
start_daemon()
{
	local i=$1
	"$sigcrawl" serve -c "$tmp/c$i.conf" >>"$tmp/d$i.log" 2>&1 &
	dpids[i]=$!
}
dstatus() { "$sigcrawl" status --control "unix:$tmp/c$1.sock" 2>/dev/null; }
ready() { dstatus "$1" | grep -q '"state":"idle"'; }
# Quiet: every daemon idle with an empty queue, five times in a row a
# second apart (links still in NATS arrive within a fetch's half second).
quiet_once()
{
	local i
	for i in 0 1 2; do
		dstatus "$i" >"$tmp/quiet.d$i"
		grep -q '"state":"idle".*"queue":0,' "$tmp/quiet.d$i" || return 1
	done
	"$sigcrawl" status --cluster -c "$tmp/c0.conf" >"$tmp/quiet.cluster" 2>&1
	python3 -c '
import json, sys
d = json.load(sys.stdin)
sys.exit(not (d["reporting"] == 3 and d["batches_in_stream"] == 0 and
              all(s["links"]["spool_records"] == 0 for s in d["status"])))' <"$tmp/quiet.cluster"
}
quiet()
{
	local n=0
	while [ $n -lt 5 ]; do
		if quiet_once; then n=$((n + 1)); else n=0; fi
		sleep 1
		if [ "$SECONDS" -gt "$1" ]; then
			head -c 600 "$tmp"/quiet.d* "$tmp/quiet.cluster"
			return 1
		fi
	done
	return 0
}

reporting()
{
	"$sigcrawl" status --cluster -c "$tmp/c0.conf" 2>/dev/null |
		grep -q "\"reporting\":$1,"
}
pages_of() { dstatus "$1" | sed -n 's/.*"pages":\([0-9]*\),.*/\1/p'; }
has_pages() { [ "$(pages_of "$1")" -ge "$2" ] 2>/dev/null; }

run_cluster()
{
	local tag=$1 delay=$2
	for i in 0 1 2; do
		conf "$i" "$tmp/$tag$i" "$delay"
		start_daemon "$i"
	done
	for i in 0 1 2; do
		check_true "$tag: daemon $i starts" wait_until 20 ready "$i"
	done
	check_true "$tag: the three shards report to NATS" wait_until 60 reporting 3
	[ "${3:-}" = nosubmit ] && return
	"$sigcrawl" submit --control "unix:$tmp/c0.sock" --category web \
		<"$tmp/seeds" >"$tmp/$tag.submit" 2>&1
	check_true "$tag: the 14 seeds are taken by daemon 0 (some for other shards)" grep -qx 'accepted 14' "$tmp/$tag.submit"
}

stop_cluster()
{
	local i
	for i in 0 1 2; do
		kill -TERM "${dpids[$i]}" 2>/dev/null
	done
	for i in 0 1 2; do
		wait "${dpids[$i]}" 2>/dev/null
		dpids[i]=0
	done
}

# The twins fetched while NATS was away: each shard kept one of its own
# as representative (it could not ask the others), none two.
compare_offline_twins()
{
	local tag=$1 i reps bad=0
	for i in 0 1 2; do
		reps=$("$sigcrawl" export --store "$tmp/$tag$i" | python3 -c '
import json, sys
print(sum(1 for l in sys.stdin
          for r in [json.loads(l)]
          if r["fetched"] and r["normalized"].startswith("http://dup")
          and not r["duplicate_of"]))')
		[ "$reps" -le 1 ] || bad=$((bad + 1))
	done
	check_true "$tag: NATS away, each shard has one twin representative at most ($bad shards with more)" [ $bad -eq 0 ]
}

compare()
{
	local tag=$1
	: >"$tmp/$tag.all"
	for i in 0 1 2; do
		fetched_of "$tmp/$tag$i" | sort >"$tmp/$tag$i.urls"
		cat "$tmp/$tag$i.urls" >>"$tmp/$tag.all"
		sed -E 's|^https?://([^/]*)/.*|\1|' "$tmp/$tag$i.urls" | sort -u >"$tmp/$tag$i.hosts"
	done
	sort "$tmp/$tag.all" >"$tmp/$tag.sorted"
	sort -u "$tmp/$tag.all" >"$tmp/$tag.union"
	check_true "$tag: the union of the shards' pages is the reference's ($(wc -l <"$tmp/$tag.union") of $(wc -l <"$tmp/ref.urls"))" \
		cmp -s "$tmp/$tag.union" "$tmp/ref.urls"
	check_true "$tag: no page is recorded as fetched by two shards" \
		cmp -s "$tmp/$tag.sorted" "$tmp/$tag.union"
	local shared
	shared=$(cat "$tmp/${tag}0.hosts" "$tmp/${tag}1.hosts" "$tmp/${tag}2.hosts" | sort | uniq -d | wc -l)
	check_true "$tag: every host is crawled by one shard ($shared shared)" [ "$shared" -eq 0 ]
	local busy=0
	for i in 0 1 2; do
		[ -s "$tmp/$tag$i.urls" ] && busy=$((busy + 1))
	done
	check_true "$tag: every shard crawled some of the web ($busy of 3)" [ $busy -eq 3 ]
	# Near-duplicates stay per shard (docs/cluster.md): one representative
	# for each shard that holds near twins, where one daemon keeps one.
	local nshards nreps=0
	nshards=$(grep -l '^http://near' "$tmp/${tag}0.urls" "$tmp/${tag}1.urls" "$tmp/${tag}2.urls" | wc -l)
	for i in 0 1 2; do
		nreps=$((nreps + $(near_reps "$tmp/$tag$i")))
	done
	echo "$tag: near twins: $nreps representatives on $nshards shards (one daemon: 1)" | tee -a "$tmp/near.measured"
	check_true "$tag: near twins: one representative per shard that has them ($nreps for $nshards)" \
		test "$nreps" -eq "$nshards"
	local dshards
	dshards=$(grep -l '^http://dup' "$tmp/${tag}0.urls" "$tmp/${tag}1.urls" "$tmp/${tag}2.urls" | wc -l)
	check_true "$tag: the six twin sites are on more than one shard ($dshards)" [ "$dshards" -ge 2 ]
	[ "${2:-}" = offline ] && {
		compare_offline_twins "$tag"
		return
	}
	for i in 0 1 2; do
		"$sigcrawl" export --store "$tmp/$tag$i"
	done | python3 -c '
import json, sys
reps, dups = [], []
for l in sys.stdin:
    r = json.loads(l)
    if r["fetched"] and r["normalized"].startswith("http://dup"):
        (dups if r["duplicate_of"] else reps).append(r)
ok = (len(reps) == 1 and len(dups) == 5 and
      all(d["duplicate_of"] == reps[0]["normalized"] for d in dups))
print("twins: %d representatives, %d duplicates of %s" %
      (len(reps), len(dups), sorted({d["duplicate_of"] for d in dups})))
sys.exit(not ok)' >"$tmp/$tag.twins"
	local twins_rc=$?
	check_true "$tag: one twin is the cluster's representative, five its duplicates ($(cat "$tmp/$tag.twins"))" \
		[ "$twins_rc" -eq 0 ]
	# What the daemons said of their claims, for a failure to be traced.
	[ "$twins_rc" -eq 0 ] || grep -h 'claim' "$tmp"/d?.log | sort | uniq -c | head -20
}

# --- The cluster, undisturbed -----------------------------------------------
start_fixture "$tmp/web" "$tmp/a.log"
run_cluster a 0
check_true "a: the cluster crawls the web and comes to rest" quiet $((SECONDS + 90))
"$sigcrawl" status --cluster -c "$tmp/c0.conf" >"$tmp/a.cluster" 2>&1
cat "$tmp/a.cluster"
curl -s --unix-socket "$tmp/c1.sock" -o "$tmp/a.metrics" http://x/metrics
check_true "a: /metrics names the shard" grep -qx 'sigcrawl_shard_info{shard="1",shards="3"} 1' "$tmp/a.metrics"
check_true "a: /metrics counts the links it sent" \
	grep -Eqx 'sigcrawl_cluster_links_total\{shard="1",direction="sent"\} [1-9][0-9]*' "$tmp/a.metrics"
# Every shard's status on one daemon: GET /shards, and the dashboard's
# cluster card in a browser, as status --cluster has them.
curl -s --unix-socket "$tmp/c0.sock" -o "$tmp/a.shards" http://x/shards
check_true "a: GET /shards on one daemon lists every shard as status --cluster does" python3 -c '
import json, sys
sh = json.load(open(sys.argv[1]))["shards"]
cl = {s["shard"]: s["status"] for s in json.load(open(sys.argv[2]))["status"]}
sys.exit(not (sorted(s["shard"] for s in sh) == [0, 1, 2] and
              all(s["state"] == cl[s["shard"]]["state"] and
                  s["pages"] == cl[s["shard"]]["pages"] and s["pages"] > 0
                  for s in sh)))' "$tmp/a.shards" "$tmp/a.cluster"
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$chromium" ]; then
	timeout 60 "$chromium" --headless --no-sandbox --disable-gpu \
		--no-first-run --user-data-dir="$tmp/chrome" \
		--virtual-time-budget=8000 --dump-dom \
		"http://127.0.0.1:$dash_port/" >"$tmp/a.dom" 2>/dev/null
	check_true "a: the dashboard shows every shard, with its pages" python3 -c '
import json, re, sys
dom = open(sys.argv[1]).read()
sh = json.load(open(sys.argv[2]))["shards"]
rows = dict(re.findall(r"<tr data-shard=\"(\d+)\"><td[^>]*>[^<]*</td><td[^>]*>[^<]*</td><td[^>]*>([^<]*)</td>", dom))
sys.exit(not (len(sh) == 3 and all(
    rows.get(str(s["shard"]), "").replace(",", "") == str(s["pages"]) for s in sh)))' \
		"$tmp/a.dom" "$tmp/a.shards"
else
	fail "a: chromium is installed (.ci/install-deps): the dashboard's shards are checked in a browser"
fi
stop_cluster
stop_fixture
compare a
twice=$(awk -F'\t' '$3 == "req" && $6 != "/robots.txt" { print $4 $6 }' "$tmp/a.log" | sort | uniq -d | wc -l)
check_true "a: no URL is requested twice across the shards ($twice)" [ "$twice" -eq 0 ]
check_true "a: status --cluster lists 3 shards" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not (d["shards"] == 3 and d["reporting"] == 3 and
              sorted(s["shard"] for s in d["status"]) == [0, 1, 2]))' "$tmp/a.cluster"
pages=$(cat "$tmp"/a?.urls | wc -l)
check_true "a: its totals add the shards' pages ($pages)" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(d["totals"]["pages"] != int(sys.argv[2]))' "$tmp/a.cluster" "$pages"
check_true "a: links went between shards" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
t = d["totals"]
sys.exit(not (t["links_sent"] > 0 and t["links_received"] > 0))' "$tmp/a.cluster"

# --- kill -9 of a daemon and of a NATS node mid-crawl -------------------------
# A new crawl: new stores, and NATS started afresh (the signature claims
# of a cluster belong to its crawl, docs/cluster.md).  A per-host delay
# makes the crawl last long enough to be hit.
for i in 0 1 2; do
	stop_node "$i"
	rm -rf "$tmp/n$i"
	start_node "$i"
done
start_fixture "$tmp/web" "$tmp/b.log"
run_cluster b 60
check_true "b: daemon 1 is crawling" wait_until 60 has_pages 1 20
before=$(pages_of 1)
kill -9 "${dpids[1]}"
wait "${dpids[1]}" 2>/dev/null
sleep 1
start_daemon 1
check_true "b: daemon 1 restarts after kill -9" wait_until 20 ready 1
check_true "b: the cluster is crawling again" wait_until 60 has_pages 0 40
stop_node 2
check_true "b: the cluster still comes to rest (a NATS node down)" quiet $((SECONDS + 150))
stop_cluster
after=$(grep -o 'stopped: [0-9]* pages' "$tmp/d1.log" | tail -1 | awk '{print $2}')
check_true "b: the kill came mid-crawl: daemon 1 committed pages before it ($before) and after its restart (${after:-0})" \
	test "${before:-0}" -gt 0 -a "${after:-0}" -gt 0
stop_fixture
compare b

# --- NATS away: the daemons crawl their own shards, spool the rest, and
# publish it when NATS is back --------------------------------------------
fresh_nats()
{
	local i
	for i in 0 1 2; do
		stop_node "$i"
		rm -rf "$tmp/n$i"
	done
	for i in 0 1 2; do
		start_node "$i"
	done
}
fresh_nats
start_fixture "$tmp/web" "$tmp/c.log"
run_cluster c 0 nosubmit
for i in 0 1 2; do
	stop_node "$i"
done
# Every daemon takes the seeds: each queues its own shard's and spools
# the others'.
for i in 0 1 2; do
	"$sigcrawl" submit --control "unix:$tmp/c$i.sock" --category web \
		<"$tmp/seeds" >"$tmp/c.submit$i" 2>&1
done
total_pages() { echo $(($(pages_of 0) + $(pages_of 1) + $(pages_of 2))); }
crawling() { [ "$(total_pages)" -ge 20 ]; }
spool_bytes() { cat "$tmp"/c?/cluster/links.spool 2>/dev/null | wc -c; }
spooled() { [ "$(spool_bytes)" -gt 24 ]; }
check_true "c: with NATS away the daemons crawl their own shards" wait_until 60 crawling
check_true "c: ... and spool the links of the others on disk ($(spool_bytes) bytes)" wait_until 30 spooled
for i in 0 1 2; do
	start_node "$i"
done
check_true "c: NATS back, the spools are published and the web crawled" quiet $((SECONDS + 150))
check_true "c: the spools are empty again ($(spool_bytes) bytes)" test "$(spool_bytes)" -le 24
stop_cluster
stop_fixture
compare c offline

# --- Seeds published straight to NATS (submit --cluster), no daemon asked
fresh_nats
start_fixture "$tmp/web" "$tmp/d.log"
run_cluster d 0 nosubmit
"$sigcrawl" submit --cluster -c "$tmp/c0.conf" --category web <"$tmp/seeds" >"$tmp/d.submit" 2>&1
cat "$tmp/d.submit"
check_true "d: submit --cluster publishes the 14 seeds" grep -qx 'published 14' "$tmp/d.submit"
check_true "d: the cluster crawls the web and comes to rest" quiet $((SECONDS + 90))
stop_cluster
stop_fixture
compare d
printf 'http://ok.test/\nnot a url at all\n' >"$tmp/d.bad"
"$sigcrawl" submit --cluster -c "$tmp/c0.conf" --category web <"$tmp/d.bad" >"$tmp/d.bad.out" 2>&1
check_true "d: a bad line is rejected with its number, exit 1" \
	test $? -eq 1 -a "$(grep -c '^line 2: ' "$tmp/d.bad.out")" -eq 1
"$sigcrawl" submit --cluster -c "$tmp/c0.conf" --category nosuch http://ok.test/ >/dev/null 2>&1
check_true "d: an unknown category is refused (exit 2)" test $? -eq 2
# 1,500 URLs of 400 bytes for one host: more than one message holds
# (256 KiB), so they go in several batches.
long=$(head -c 380 /dev/zero | tr '\0' a)
for k in $(seq 1500); do echo "http://long.test/$long/$k"; done >"$tmp/d.long"
"$sigcrawl" submit --cluster -c "$tmp/c0.conf" --category web <"$tmp/d.long" >"$tmp/d.long.out" 2>&1
check_true "d: 1,500 long URLs are published in batches that fit ($(tr '\n' ' ' <"$tmp/d.long.out"))" \
	grep -qx 'published 1500' "$tmp/d.long.out"
finish
