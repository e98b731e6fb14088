#!/usr/bin/env bash
# 1009-emu-dilate: time dilation on the wire (issue 16; emulator/grid/dilate.h).
# `gridemu up --dilate 10` puts every delay x10 and every rate /10 on the
# wire (the delay line's parameters, the kernel's TBF), while status, link
# show and link set keep the topology's units and gb_probe reports
# undilated times; a bad factor is refused with one line, exit 2, and
# nothing is created.  TCP's minimum retransmission timeout is dilated too
# (emulator/grid/hosttcp.c): the hosts' routes carry rto_min 200 ms x 10,
# and a connection's RTO, read with ss, is at least that.  The one timed check is coarse on purpose: a WAN echo
# of 10.28 ms configured must come back as ~10 ms, not ~100 ms or ~1 ms.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_cmd jq
require_cmd tc

TAPD=${GRIDEMU%/gridemu}/gridemu-tapd
ctl=$GRIDBED_RUNDIR/$GB_PREFIX/tapd.sock
tmp=$(mktemp -d /tmp/gb-1009.XXXXXX)
trap 'st=$?; rm -rf "$tmp"; (exit $st); gb_cleanup' EXIT

plan 20

for k in 0.5 abc 2000 ""; do
	out=$("$GRIDEMU" up --dilate "$k" "$TOPOS/two-clusters.yaml" 2>&1); st=$?
	is "$st $(wc -l <<<"$out")" "2 1" "--dilate '$k': exit 2, one line"
done
like "$out" "^gridemu: up: --dilate '' is not a number in \\[1, 1000\\]" "  naming the option"
is "$(prefix_netns | wc -l)" 0 "  and nothing was created"

"$GRIDEMU" up --backend tap --dilate 10 "$TOPOS/two-clusters.yaml" >"$tmp/up.out" 2>&1 ||
	skip_all "the tap backend cannot come up here: $(head -c 200 "$tmp/up.out")"
out=$(cat "$tmp/up.out")
like "$out" "time dilated x10" "up says the grid is dilated"
is "$("$GRIDEMU" status --json | jq .dilate)" 10 "status --json: dilate 10"
like "$("$GRIDEMU" status)" "^time dilation: x10 " "status says it"
stats=$("$TAPD" --control "$ctl" --send stats)
is "$(jq '[.links[] | select(.name == "a-1-a")][0].ab.delay_ns' <<<"$stats")" 200000 \
	"the delay line holds a 20 us link for 200 us"
is "$(jq '[.links[] | select(.name == "siteA-siteB")][0].ab.delay_ns' <<<"$stats")" 50000000 \
	"  and the 5 ms WAN link for 50 ms"
like "$(tc -n "$GB_PREFIX-siteA" qdisc show | grep tbf)" "rate 10Mbit " \
	"the kernel's TBF carries the 100 Mbit/s WAN at 10 Mbit/s"
like "$("$GRIDEMU" link show | grep '^siteA-siteB ' | head -1)" " 5ms .* 100mbit " \
	"link show: the topology's 5ms and 100mbit"
t "link set siteA-siteB delay 2ms" "$GRIDEMU" link set siteA-siteB delay 2ms
is "$("$TAPD" --control "$ctl" --send stats | jq '[.links[] | select(.name == "siteA-siteB")][0].ab.delay_ns')" \
	20000000 "  puts 20 ms on the wire"
t "link set siteA-siteB delay 5ms" "$GRIDEMU" link set siteA-siteB delay 5ms
p50=$("$GRIDEMU" probe a-1 b-4 --count 10 --tcp 0 | sed -n 's|.*rtt min/p50/p99/max [0-9.]*/\([0-9.]*\)/.*|\1|p')
awk -v v="${p50:-0}" 'BEGIN { exit !(v >= 9.5 && v <= 12) }'
ok $? "probe a-1 b-4 reports the undilated RTT: p50 $p50 ms for 10.28 ms configured"

# TCP's RTO floor: 200 ms of the topology's time, 2 s on the wire
like "$(ip -n "$GB_PREFIX-a-1" route show 10.250.0.0/16)" "rto_min lock (2000ms|2s)" \
	"a host's data route carries rto_min 2000ms (200 ms x 10), locked"
like "$("$GRIDEMU" status | grep '^tcp: ')" "rto_min 2000 ms" "  status says it"
dst=$("$GRIDEMU" status --json | jq -r '.hosts[] | select(.name == "a-2") | .data')
ip netns exec "$GB_PREFIX-a-2" timeout 20 python3 -c '
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 5302)); s.listen(1); c, _ = s.accept(); c.recv(16); time.sleep(2)' &
srv=$!
sleep 0.5
rto=$(ip netns exec "$GB_PREFIX-a-1" timeout 20 python3 -c '
import socket, subprocess, sys, time
c = socket.create_connection((sys.argv[1], 5302)); c.send(b"x" * 16); time.sleep(0.5)
print(subprocess.run(["ss", "-tin", "dst", sys.argv[1]], capture_output=True, text=True).stdout)' \
	"$dst" | grep -o 'rto:[0-9.]*' | head -1)
wait "$srv"
awk -v v="${rto#rto:}" 'BEGIN { exit !(v + 0 >= 2000) }'
ok $? "a connection a-1 -> a-2 has an RTO of at least 2 s on the wire (ss: ${rto:-none})"
