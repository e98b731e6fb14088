#!/usr/bin/env bash
# 1009-emu-dilate: time dilation on the wire (issue 16; emulator/grid/dilate.h).
# `gridemu up --dilate 10` puts every delay x10 and every rate /10 on the
# wire (the delay line's parameters, the kernel's TBF), while status, link
# show and link set keep the topology's units and gb_probe reports
# undilated times; a bad factor is refused with one line, exit 2, and
# nothing is created.  The one timed check is coarse on purpose: a WAN echo
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

plan 17

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
