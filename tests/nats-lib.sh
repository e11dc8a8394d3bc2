# nats-lib.sh — a 3-node NATS JetStream cluster on 127.0.0.1 for the
# cluster tests, sourced after lib.sh (it uses $tmp, fail and finish):
#
#   nats_ports  six free ports: 0..2 for clients, 3..5 for routes
#   nats_urls   the three client URLs, comma-separated
#   nats_pids   the nodes' pids (0: not running)
#   start_node I / stop_node I   start node I (its log appends to
#                                $tmp/nI.log) / kill -9 it
#   stop_nodes                   kill -9 every node (for on_exit)
#
# A test without nats-server fails here (.ci/install-deps installs it).
if ! command -v nats-server >/dev/null; then
	fail "nats-server is not installed (.ci/install-deps)"
	finish
	exit 1
fi

nats_pids=(0 0 0)
read -r -a nats_ports < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(6)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
nats_routes="nats://127.0.0.1:${nats_ports[3]},nats://127.0.0.1:${nats_ports[4]},nats://127.0.0.1:${nats_ports[5]}"
nats_urls="nats://127.0.0.1:${nats_ports[0]},nats://127.0.0.1:${nats_ports[1]},nats://127.0.0.1:${nats_ports[2]}"

start_node()
{
	local i=$1
	mkdir -p "$tmp/n$i"
	nats-server -js -sd "$tmp/n$i" -n "n$i" -a 127.0.0.1 \
		-p "${nats_ports[$i]}" \
		--cluster "nats://127.0.0.1:${nats_ports[$((i + 3))]}" \
		--routes "$nats_routes" --cluster_name sc >>"$tmp/n$i.log" 2>&1 &
	nats_pids[i]=$!
}

# kill -9 a node (never pid 0: that would be this test's group).
stop_node()
{
	local i=$1
	if [ "${nats_pids[$i]}" -gt 0 ]; then
		kill -9 "${nats_pids[$i]}" 2>/dev/null
		wait "${nats_pids[$i]}" 2>/dev/null
	fi
	nats_pids[i]=0
}

stop_nodes()
{
	stop_node 0
	stop_node 1
	stop_node 2
}
