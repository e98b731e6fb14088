#!/usr/bin/env bash
# gridemu link set changes one link at runtime without disturbing others:
# the RTT across the WAN link follows its new delay, a LAN path keeps its
# own, the rate lands in the kernel's TBF (read back by tc, the witness), and
# one direction can be changed alone.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_cmd ping

"$GRIDEMU" up "$TOPOS/two-clusters.yaml" >/dev/null 2>&1 || bail "cannot bring the grid up"
addr() { "$GRIDEMU" status | awk -v h="$1" '$1 == h {print $5}'; }
# min RTT in ms over N pings.  The delay line holds a packet for its
# link's delay less its own cost per traversal as measured at `up` (a
# median, emulator/grid/calibrate.h), so a ping that meets an awake machine can
# come back early, but never by more than that cost on each of the path's
# traversals: a-1 -> b-1 crosses a-1-a, a-siteA, the WAN, b-siteB and
# b-1-b, 10 traversals out and back.
rtt_min() { ip netns exec "$GB_PREFIX-$1" ping -c "${3:-5}" -i 0.05 -q "$(addr "$2")" |
	awk -F'= ' '/^rtt/ {split($2, a, "/"); print a[1] + 0}'; }
slack=$("$GRIDEMU" status --json | jq '10 * (.calibration.pass_ns // 0) / 1e6')
# at_least MS CONFIGURED_MS: MS is at least the configured RTT less the slack
at_least() { awk -v a="$1" -v b="$2" -v s="$slack" 'BEGIN {exit !(a >= b - s)}'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a < b)}'; }

wan=siteA-siteB
"$GRIDEMU" link show | grep -q "^$wan " || wan=siteB-siteA
r0=$(rtt_min a-1 b-1); l0=$(rtt_min a-1 a-2)
ok $(at_least "$r0" 10; echo $?) "WAN RTT before: $r0 ms >= 2 x 5 ms - $slack ms"

t "link set $wan delay 30ms" "$GRIDEMU" link set "$wan" delay 30ms
r1=$(rtt_min a-1 b-1)
ok $(at_least "$r1" 60; echo $?) "WAN RTT after: $r1 ms >= 2 x 30 ms - $slack ms"
ok $(lt "$r1" 200; echo $?) "and it is not absurd ($r1 ms < 200 ms)"
l1=$(rtt_min a-1 a-2)
ok $(lt "$l1" 5; echo $?) "LAN RTT unaffected ($l0 -> $l1 ms)"
like "$("$GRIDEMU" link show | grep "^$wan " | head -1)" " 30ms " "link show reports 30ms"

t "link set one direction" "$GRIDEMU" link set "$wan" dir b\>a delay 10ms
r2=$(rtt_min a-1 b-1)
ok $(at_least "$r2" 40; echo $?) "asymmetric RTT $r2 ms >= 30 + 10 ms - $slack ms"
ok $(lt "$r2" 59; echo $?) "and below the symmetric 60 ms ($r2 ms)"

t "link set rate" "$GRIDEMU" link set "$wan" rate 20mbit limit 50
from=$("$GRIDEMU" status --json | awk -F'"' -v w="$wan" '$4 == w {getline; print $4; exit}')
ifn=$("$GRIDEMU" link show | awk -v w="$wan" '$1 == w {print $3; exit}')
q=$(tc -n "$GB_PREFIX-$from" qdisc show dev "$ifn" | grep tbf)
like "$q" "rate 20Mbit" "tc sees the new TBF rate on $from/$ifn"
like "$("$GRIDEMU" link show | grep "^$wan " | head -1)" "20mbit +50p" "link show reads the rate and limit back"
ping_ok=$(ip netns exec "$GB_PREFIX-a-1" ping -c2 -W2 -q "$(addr b-1)" >/dev/null 2>&1; echo $?)
is "$ping_ok" 0 "the path still works after the changes"

t "link set loss 100%" "$GRIDEMU" link set "$wan" loss 100%
lost=$(ip netns exec "$GB_PREFIX-a-1" ping -c3 -i 0.1 -W1 -q "$(addr b-1)" | grep -o '[0-9]*% packet loss')
is "$lost" "100% packet loss" "loss 100% drops everything"
t "link set loss 0%" "$GRIDEMU" link set "$wan" loss 0%
is "$(ip netns exec "$GB_PREFIX-a-1" ping -c2 -W2 -q "$(addr b-1)" >/dev/null 2>&1; echo $?)" 0 "and back"
"$GRIDEMU" down >/dev/null
done_testing
