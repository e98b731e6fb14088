#!/usr/bin/env bash
# 6106-gridmon-dilate: gridmon on a grid dilated x10 (issue 16; docs/architecture.md
# decision 9).  two-clusters (a-1..a-4 | 5ms 100mbit | b-1..b-4) comes up
# with `--dilate 10`: the wire holds the WAN for 50 ms at 10 Mbit/s, and
# gridmon must still report the topology's units:
#   - the WAN latency a-1 <-> b-1 within +-40 % of the configured 5.14 ms
#     one way (not 51 ms), its bandwidth 30-110 % of 100 Mbit/s (not 10);
#   - every matrix says "dilate": 10, the oracle's too;
#   - its period is virtual: --period 1s is 10 s on the wall clock, so two
#     rounds take 10 s plus the second round, whose duration the matrix
#     reports virtual (round_seconds = wall / 10).
# Coarse on purpose: the timing checks tell x1 from x10, nothing finer.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_cmd jq
require_built GRIDMON collectives/gridmon

tmp=$(mktemp -d /tmp/gb-6106.XXXXXX)
trap 'st=$?; rm -rf "$tmp"; (exit $st); gb_cleanup' EXIT

"$GRIDEMU" up --dilate 10 "$TOPOS/two-clusters.yaml" >"$tmp/up.out" 2>&1 ||
	skip_all "a dilated grid cannot come up here: $(head -c 200 "$tmp/up.out")"

plan 11

# a-1 -> b-1: host link 0.02 + uplink 0.05 + WAN 5 + 0.05 + 0.02 ms; 100 Mbit/s.
lat_cfg=0.00514
bw_cfg=12500000
between() { awk -v lo="$1" -v hi="$2" -v v="$3" 'BEGIN { exit !(v >= lo && v < hi) }'; }

m=$tmp/m.json
t0=$(date +%s.%N)
"$GRIDMON" --rounds 2 --period 1s --out "$m" 2>"$tmp/err"
st=$?
elapsed=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
sed 's/^/# /' "$tmp/err"
is "$st" 0 "gridmon --rounds 2 --period 1s on a grid dilated x10"
like "$(cat "$tmp/err")" "time dilated x10" "  says the grid is dilated"
is "$(jq -r '.dilate, .round, .period_s' "$m" | tr '\n' ' ')" "10 2 1 " \
	"the matrix says dilate 10, round 2, a period of 1 virtual second"
for pair in "0 4 a-1>b-1" "4 0 b-1>a-1"; do
	set -- $pair
	lat=$(jq ".lat[$1][$2]" "$m"); bw=$(jq ".bw[$1][$2]" "$m")
	ok $(between "$(awk -v l=$lat_cfg 'BEGIN{print 0.6*l}')" "$(awk -v l=$lat_cfg 'BEGIN{print 1.4*l}')" "$lat"; echo $?) \
		"$3 latency $lat s within +-40 % of the topology's $lat_cfg (the wire's is 10x)"
	ok $(between "$(awk -v b=$bw_cfg 'BEGIN{print 0.3*b}')" "$(awk -v b=$bw_cfg 'BEGIN{print 1.1*b}')" "$bw"; echo $?) \
		"$3 bandwidth $bw B/s within 30-110 % of the topology's $bw_cfg (the wire's is /10)"
done
intra=$(jq '.bw[0][1]' "$m")
ok $(between "$bw_cfg" 1e12 "$intra"; echo $?) \
	"intra-cluster bandwidth $intra B/s above the WAN rate (1 Gbit/s links in topology units)"
# Two rounds: round 1, the rest of the 10 s wall period, round 2.  The
# matrix's round_seconds is round 2's wall duration / 10.
rs=$(jq .clusters.round_seconds "$m")
diag "elapsed $elapsed s wall, round_seconds $rs (virtual)"
ok $(awk -v e="$elapsed" -v r="$rs" 'BEGIN { exit !(e - 10 * r >= 9.5 && e - 10 * r < 12) }'; echo $?) \
	"the period is 10 s on the wall clock: elapsed $elapsed s - 10 x round_seconds $rs"
ok $(awk -v e="$elapsed" -v r="$rs" 'BEGIN { exit !(r > 0 && 10 * r < e - 9) }'; echo $?) \
	"round_seconds $rs is virtual (its 10x fits in what the second round took)"

"$GRIDMON" --print-configured --out "$tmp/oracle.json" 2>/dev/null
is "$(jq -r '.dilate, .lat[0][4], .bw[0][4]' "$tmp/oracle.json" | tr '\n' ' ')" \
	"10 0.00514 12500000 " "--print-configured: dilate 10, the topology's values"

"$GRIDEMU" down >/dev/null
done_testing
