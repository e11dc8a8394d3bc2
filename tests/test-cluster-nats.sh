#!/bin/bash
# test-cluster-nats.sh PROBE — cluster/ against a real 3-node NATS
# JetStream cluster on 127.0.0.1 (nats-server from .ci/install-deps):
# the R3 links stream, a shard's batches reach that shard's durable
# consumer only, an unacked batch comes again after the ack wait, a
# republished batch id is stored once, a malformed message is rejected
# and not redelivered, exactly one of two claims of a signature wins,
# status put/list, kill -9 of one node changes nothing, and a client whose
# servers are all down spools to disk and flushes once one is back.
set -u
probe=$1
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nats-lib.sh"

on_exit()
{
	stop_nodes
	wait 2>/dev/null
}
all=$nats_urls
n1="nats://127.0.0.1:${nats_ports[0]}"
n3="nats://127.0.0.1:${nats_ports[2]}"

start_node 0
start_node 1
start_node 2

# JetStream answers once the cluster has a meta leader.
"$probe" "$all" setup 3 30 >"$tmp/setup" 2>"$tmp/setup.err"
check_true "the R3 stream and buckets are set up" grep -qx ok "$tmp/setup"

id1=11111111111111111111111111111111
id2=22222222222222222222222222222222
id3=33333333333333333333333333333333

# A batch for shard 1 reaches shard 1's consumer, not shard 0's.
"$probe" "$all" publish 1 $id1 http://a.example/ http://a.example/x >"$tmp/p1" 2>&1
check_true "publish to shard 1" grep -qx published "$tmp/p1"
"$probe" "$all" fetch 0 10 1000 ack >"$tmp/f0" 2>&1
check_true "shard 0's consumer sees no batch" test "$(grep -c '^batch' "$tmp/f0")" -eq 0
"$probe" "$all" fetch 1 10 5000 ack >"$tmp/f1" 2>&1
check_true "shard 1's consumer gets the batch with its links" \
	grep -qx "batch $id1 delivered=1 http://a.example/ http://a.example/x" "$tmp/f1"
"$probe" "$all" fetch 1 10 1000 ack >"$tmp/f1b" 2>&1
check_true "an acked batch is gone" test "$(grep -c '^batch' "$tmp/f1b")" -eq 0

# Fetched and not acked (a receiver killed before its commit): delivered
# again to a new session after the 2 s ack wait.
"$probe" "$all" publish 1 $id2 http://b.example/ >"$tmp/p2" 2>&1
"$probe" "$all" fetch 1 10 5000 noack >"$tmp/f2" 2>&1
check_true "fetched once without an ack" grep -q "^batch $id2 delivered=1" "$tmp/f2"
"$probe" "$all" fetch 1 10 8000 ack >"$tmp/f2b" 2>&1
check_true "redelivered to a new session after the ack wait" \
	grep -q "^batch $id2 delivered=2 http://b.example/" "$tmp/f2b"

# The same batch id published twice is stored once.
"$probe" "$all" publish 2 $id3 http://c.example/ >"$tmp/p3a" 2>&1
"$probe" "$all" publish 2 $id3 http://c.example/ >"$tmp/p3b" 2>&1
check_true "republishing is accepted" grep -qx published "$tmp/p3b"
"$probe" "$all" fetch 2 10 3000 ack >"$tmp/f3" 2>&1
check_true "a republished batch is stored once" test "$(grep -c "^batch $id3" "$tmp/f3")" -eq 1

# A message that is no batch: rejected (terminated), never redelivered.
"$probe" "$all" publish-raw 3 "not a batch" >"$tmp/r" 2>&1
"$probe" "$all" fetch 3 10 3000 ack >"$tmp/f4" 2>&1
check_true "a malformed message is rejected" grep -qx "rejected 1" "$tmp/f4"
sleep 2.5 # past the ack wait, when an unterminated message would return
"$probe" "$all" fetch 3 10 1500 ack >"$tmp/f4b" 2>&1
check_true "and not delivered again" grep -qx "rejected 0" "$tmp/f4b"

# Two clients claim one signature at once: exactly one wins, the other
# learns the winner's URL.
sig=0123456789abcdef0123456789abcdef
"$probe" "$all" claim $sig http://one.example/ >"$tmp/c1" 2>&1 &
c1=$!
"$probe" "$all" claim $sig http://two.example/ >"$tmp/c2" 2>&1 &
c2=$!
wait $c1 $c2
won=$(cat "$tmp/c1" "$tmp/c2" | grep -cx claimed)
check_true "exactly one claim wins" test "$won" -eq 1
if grep -qx claimed "$tmp/c1"; then winner=http://one.example/ loser=$tmp/c2; else winner=http://two.example/ loser=$tmp/c1; fi
check_true "the other gets the owner's URL" grep -qx "owner $winner" "$loser"
"$probe" "$all" claim $sig http://three.example/ >"$tmp/c3" 2>&1
check_true "a later claim gets the owner too" grep -qx "owner $winner" "$tmp/c3"

# Status: one JSON document per shard, listed in shard order.
"$probe" "$all" status-put 2 '{"shard":2,"fetched":5}' >"$tmp/s1" 2>&1
"$probe" "$all" status-put 0 '{"shard":0,"fetched":7}' >"$tmp/s2" 2>&1
"$probe" "$all" status-put 2 '{"shard":2,"fetched":9}' >"$tmp/s3" 2>&1
"$probe" "$all" status-list >"$tmp/sl" 2>&1
check_true "status list: every shard, the last put, in order" \
	test "$(cat "$tmp/sl")" = $'0 {"shard":0,"fetched":7}\n2 {"shard":2,"fetched":9}'
"$probe" "$all" status-put 1 'not json' >"$tmp/s4" 2>&1
check_true "a status that is not a JSON object is refused" grep -q "invalid argument" "$tmp/s4"

# kill -9 one node: R3 goes on with two.
stop_node 2
id4=44444444444444444444444444444444
wait_until 20 eval "\"$probe\" \"$all\" publish 4 $id4 http://d.example/ >\"$tmp/p4\" 2>&1"
check_true "publishing goes on with a node killed" grep -qx published "$tmp/p4"
wait_until 20 eval "\"$probe\" \"$all\" fetch 4 10 3000 ack >\"$tmp/f5\" 2>&1 && grep -q '^batch $id4' \"$tmp/f5\""
check_true "consuming goes on with a node killed" grep -q "^batch $id4 delivered=" "$tmp/f5"

# A client whose only server is down spools to disk; once that server
# is back, a flush publishes the spool and shard 5 consumes it.
mkdir -p "$tmp/spool"
id5=55555555555555555555555555555555
"$probe" "$n3" spool-publish "$tmp/spool" 5 $id5 http://e.example/ >"$tmp/sp" 2>&1
check_true "with its servers down the batch is spooled" grep -qx spooled "$tmp/sp"
check_true "the spool holds one record" grep -qx "records 1" "$tmp/sp"
"$probe" "$n1" fetch 5 10 1000 ack >"$tmp/f6a" 2>&1
check_true "nothing reached the stream" test "$(grep -c '^batch' "$tmp/f6a")" -eq 0
start_node 2
"$probe" "$n3" spool-flush "$tmp/spool" 30 >"$tmp/fl" 2>&1
check_true "the flush publishes the spooled batch" grep -qx "flushed 1" "$tmp/fl"
check_true "and empties the spool" grep -qx "records 0" "$tmp/fl"
# The node that came back may take a moment to rejoin: try for a while.
wait_until 30 eval "\"$probe\" \"$n1\" fetch 5 10 3000 ack >\"$tmp/f6\" 2>&1 && grep -q '^batch $id5' \"$tmp/f6\""
check_true "the spooled batch is consumed" grep -Eqx "batch $id5 delivered=[0-9]+ http://e.example/" "$tmp/f6"

if [ "$failed" -gt 0 ]; then
	for f in setup.err p1 f0 f1 f2 f2b f3 f4 f4b c1 c2 sl p4 f5 sp fl f6; do
		[ -f "$tmp/$f" ] && sed "s/^/  $f: /" "$tmp/$f"
	done
fi
finish
