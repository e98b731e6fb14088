#!/usr/bin/env bash
# 6004-load-dilate: gridload on a time-dilated grid (issue 16; docs/architecture.md
# decision 9).  On two-clusters up with `--dilate 10` the WAN link
# siteA-siteB (100 Mbit/s, 5 ms) runs at 10 Mbit/s on the wire, and gridload
# must run the same *virtual* load as at k = 1:
#   - the plan and the log state k (plan --json "dilate": 10, the log's last
#     column) and keep virtual times and topology rates;
#   - traffic mode: a 40 % load on siteA>siteB plans 40 Mbit/s and sends
#     40 / 10 = 4 Mbit/s on the wire, which the delay line's counters
#     (gridemu-tapd stats, rx_bytes of the direction) witness; its log
#     reports ~40 Mbit/s received (the wire's rate x k);
#   - a load of 0.6 s (virtual) lasts ~6 s on the wall clock;
#   - shape mode: a 60 % cut sets the link to 40 Mbit/s in the topology's
#     units (link show), 4 Mbit/s on the wire (the kernel's TBF), and its
#     0.3 s last ~3 s.
# Bounds are broad on purpose (a busy 2-core box): rates within +-30 %,
# durations within [0.7, 1.6] x the dilated ones (at k = 1 they would be
# 10 x shorter, and rates 10 x higher).
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_cmd jq
require_cmd tc
require_built GRIDLOAD loadgen/gridload

K=10
FRAC=0.4
DUR=0.6     # virtual seconds of the traffic load
SDUR=0.3    # virtual seconds of the shape load
TAPD=${GRIDEMU%/gridemu}/gridemu-tapd
ctl=$GRIDBED_RUNDIR/$GB_PREFIX/tapd.sock
tmp=$(mktemp -d /tmp/gb-6004.XXXXXX)
trap 'st=$?; "$GRIDLOAD" restore >/dev/null 2>&1; rm -rf "$tmp"; (exit $st); gb_cleanup' EXIT

"$GRIDEMU" up --backend tap --dilate "$K" "$TOPOS/two-clusters.yaml" >"$tmp/up.out" 2>&1 ||
	skip_all "the tap backend cannot come up here: $(head -c 200 "$tmp/up.out")"

plan 16

within() { # within GOT WANT LOW HIGH: LOW x WANT <= GOT <= HIGH x WANT
	awk -v g="$1" -v w="$2" -v lo="$3" -v hi="$4" 'BEGIN {exit !(g >= lo * w && g <= hi * w)}'
}
now() { date +%s.%N; }
wan_rx() { # bytes the delay line received on siteA>siteB
	"$TAPD" --control "$ctl" --send stats |
		jq '[.links[] | select(.name == "siteA-siteB")][0].ab.rx_bytes'
}
printf 'loads:\n  - {start: 0s, duration: %sms, fraction: %s, link: siteA-siteB, dir: siteA>siteB}\n' \
	"$(awk -v d="$DUR" 'BEGIN {print d * 1000}')" "$FRAC" >"$tmp/traffic.yaml"
printf 'loads:\n  - {start: 0s, duration: %sms, fraction: 0.6, link: siteA-siteB, dir: siteA>siteB}\n' \
	"$(awk -v d="$SDUR" 'BEGIN {print d * 1000}')" >"$tmp/shape.yaml"

# --- the plan: virtual times and rates, the wall's beside them, and k -------------
json=$("$GRIDLOAD" plan --schedule "$tmp/traffic.yaml" --json)
is "$(jq .dilate <<<"$json")" "$K" "plan --json on the live grid: \"dilate\": $K"
like "$(tr -d ' \n' <<<"$json")" "\"dilate\":$K[,}]" "  written as the integer $K"
is "$(jq '.intervals[0] | [.end_s, .wall_end_s] | map(. * 1000 | round) | join(" ")' -r <<<"$json")" \
	"600 6000" "  the load ends at 0.6 s virtual, 6 s on the wall clock"
is "$(jq -r '.intervals[0].flows[0] | [.rate_bps, .wire_rate_bps] | map(round) | join(" ")' <<<"$json")" \
	"40000000 4000000" "  the flow: 40 Mbit/s planned, 4 Mbit/s on the wire"
like "$("$GRIDLOAD" plan --schedule "$tmp/traffic.yaml")" "time dilated x$K" "the table says so"

# --- traffic mode ------------------------------------------------------------------
rx0=$(wan_rx)
t0=$(now)
"$GRIDLOAD" run --schedule "$tmp/traffic.yaml" --log "$tmp/traffic.csv" >"$tmp/traffic.out" 2>&1
st=$?
t1=$(now)
rx1=$(wan_rx)
is "$st" 0 "traffic: gridload run exits 0"
like "$(head -n 1 "$tmp/traffic.out")" "time dilated x$K: 6\\.000 s on the wall clock" \
	"  it says the run is dilated and how long it lasts on the wall clock"
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
want_wall=$(awk -v d="$DUR" -v k="$K" 'BEGIN {print d * k}')
diag "traffic: ${wall} s on the wall clock for $DUR s virtual (k $K); loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
within "$wall" "$want_wall" 0.7 1.6
ok $? "  a $DUR s load lasted ~$want_wall s on the wall clock ($wall s)"
row=$(tail -n 1 "$tmp/traffic.csv")
diag "log row: $row"
like "$row" "^1,traffic,0\\.000000,$DUR[0-9]*,$FRAC[0-9]*,siteA-siteB,siteA>siteB,siteA,siteB,9000,100000000,40000000,[0-9]+,[0-9]+,[0-9]+,[0-9]+,ok,$K\$" \
	"  the log: virtual times, 40 % of 100 Mbit/s planned, k $K"
# Wire rate: the delay line's bytes over the sender's wall time (~DUR x K).
wire=$(awk -v a="$rx0" -v b="$rx1" -v t="$want_wall" 'BEGIN {printf "%.0f", (b - a) * 8 / t}')
diag "the delay line counted $((rx1 - rx0)) bytes on siteA>siteB: $wire bit/s over $want_wall s"
within "$wire" 4000000 0.7 1.3
ok $? "  the wire carried ~40 / $K = 4 Mbit/s ($wire bit/s, the delay line's counters)"
achieved=$(awk -F, '{print $13}' <<<"$row")
within "$achieved" 40000000 0.7 1.3
ok $? "  the log reports ~40 Mbit/s received, in the topology's units ($achieved)"

# --- shape mode -----------------------------------------------------------------------
link_rate() { "$GRIDEMU" link show | awk '$1 == "siteA-siteB" && $2 == "siteA>siteB"'; }
ifn=$("$GRIDEMU" link show | awk '$1 == "siteA-siteB" && $2 == "siteA>siteB" {print $3; exit}')
tbf() { tc -n "$GB_PREFIX-siteA" qdisc show dev "$ifn" | grep -o 'tbf.* rate [0-9.]*[KMG]bit' | awk '{print $NF}'; }
tbf_is() { [ "$(tbf)" = "$1" ]; }
t0=$(now)
"$GRIDLOAD" run --mode shape --schedule "$tmp/shape.yaml" --quiet >"$tmp/shape.out" 2>&1 &
gl=$!
wait_until 3 tbf_is 4Mbit
ok $? "shape: the kernel's TBF carries the 40 Mbit/s target at 4Mbit on the wire ($(tbf))"
like "$(link_rate)" " 40mbit " "  link show says 40mbit, the topology's units"
wait "$gl"
st=$?
t1=$(now)
is "$st" 0 "  gridload run --mode shape exits 0"
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
want_wall=$(awk -v d="$SDUR" -v k="$K" 'BEGIN {print d * k}')
diag "shape: ${wall} s on the wall clock for $SDUR s virtual"
within "$wall" "$want_wall" 0.7 1.6
ok $? "  a $SDUR s cut lasted ~$want_wall s on the wall clock ($wall s)"
is "$(tbf)" 10Mbit "  and the wire is back at 100 / $K = 10Mbit"

"$GRIDEMU" down >/dev/null
done_testing
