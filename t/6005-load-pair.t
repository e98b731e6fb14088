#!/usr/bin/env bash
# 6005-load-pair: the paper's load, a host pair (seed 000 s3: the loading
# program "takes as input a source and destination host ... thereby
# reducing the end-to-end bandwidth from the source to the destination
# host"; issue 44), witnessed with iperf3 (TCP):
#   - the random generator's default placement is a pair: one host of the
#     target cluster, one of another (gridload plan);
#   - a 70 % load from a-1 to b-1, sized for their path's bottleneck, leaves
#     about 30 % of it to iperf3 between the same two hosts;
#   - and to a bystander pair a-2 -> b-2, whose path crosses the same links
#     between the clusters (a's uplink, the WAN, b's uplink) but not the
#     loaded hosts' own links;
#   - and the log says the flow ran between the pair at its planned rate.
#
#   a-1 a-2 a-3 -- a ==100== siteA ==300mbit WAN== siteB ==100== b -- b-1 b-2
#
# The WAN is wider than the uplinks, as in topologies/teragrid-public.yaml,
# so the pair's bottleneck (100 Mbit/s) is its hosts' links and uplinks.
# Thresholds as in t/6003 (its header says why): unloaded > 80 % of the
# rate; loaded < 1.5 x (1 - 0.7) x 100 = 45 Mbit/s and < 60 % of the
# unloaded figure measured here.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_cmd iperf3
require_built GRIDLOAD loadgen/gridload

RATE=100  # Mbit/s, the hosts' links and the uplinks
FRAC=0.7
SECS=4    # iperf3 seconds; each load lasts SECS + 4 s

tmp=$(mktemp -d /tmp/gb-6005.XXXXXX)
trap 'rm -rf "$tmp"; gb_cleanup' EXIT
cat >"$tmp/pair.yaml" <<EOF
name: pair-load
root: a-3
defaults:
  host_link: {rate: ${RATE}mbit, delay: 0.05ms}
  uplink: {rate: ${RATE}mbit, delay: 0.25ms, limit: 510}
sites:
  - name: siteA
    clusters:
      - {name: a, hosts: 3}
  - name: siteB
    clusters:
      - {name: b, hosts: 2}
links:
  - {a: siteA, b: siteB, delay: 2ms, rate: 300mbit}
EOF

plan 9

# --- the random generator places pairs by default ---------------------------------
plan_out=$("$GRIDLOAD" plan --random --target a --seed 101 --topology "$tmp/pair.yaml" 2>&1)
first=$(awk '$1 == "1" {print $NF, $(NF-5)}' <<<"$plan_out")
like "$plan_out" "target a \\(pair loads\\)" "gridload plan --random: pair loads by default"
like "$(awk '$1 ~ /^[0-9]+$/ {print $(NF-5)}' <<<"$plan_out" | sort -u | tr '\n' ' ')" \
	'^((a-[1-3]>b-[12]|b-[12]>a-[1-3]): )+$' \
	"every random load runs between a host of a and a host of b, sized for the path"
diag "first random load: $first"

"$GRIDEMU" up "$tmp/pair.yaml" >/dev/null 2>"$tmp/up.err" ||
	bail "cannot bring the grid up: $(head -n 1 "$tmp/up.err")"
addr() { "$GRIDEMU" status | awk -v h="$1" '$1 == h {print $5; exit}'; }
B1=$(addr b-1); B2=$(addr b-2)
tx_in() { for p in $(ip netns pids "$GB_PREFIX-$1" 2>/dev/null); do
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = gridload-tx ] && return 0; done; return 1; }

port=5401
measure() { port=$((port + 1)); iperf_mbps "$1" "$2" "$3" "$port" "$SECS"; }
below() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a < b)}'; }
limit=$(awk -v r="$RATE" -v f="$FRAC" 'BEGIN {print 1.5 * (1 - f) * r}')
load_bps=$(awk -v r="$RATE" -v f="$FRAC" 'BEGIN {printf "%.0f", f * r * 1e6}')
printf 'loads:\n  - {start: 0s, duration: %ds, fraction: %s, src: a-1, dst: b-1}\n' \
	$((SECS + 4)) "$FRAC" >"$tmp/load.yaml"

# --- unloaded ----------------------------------------------------------------------
floor=$(awk -v r="$RATE" 'BEGIN {print 0.8 * r}')   # 80 % of the rate, Mbit/s
# unloaded FROM TO-ADDR TO: "MBPS STOLEN" on $port (the caller advances it:
# a port advanced inside a process substitution would not count)
unloaded() { iperf_unloaded "$1" "$2" "$3" "$port" "$SECS" "$floor"; }
port=$((port + 1)); read -r pair0 pair0_st < <(unloaded a-1 "$B1" b-1)
port=$((port + 1)); read -r by0 by0_st < <(unloaded a-2 "$B2" b-2)
diag "unloaded: a-1>b-1 $pair0, a-2>b-2 $by0 Mbit/s (rate $RATE); loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
ok_unloaded "$pair0" "$pair0_st" "$floor" "unloaded, a-1>b-1 carries more than 80 % of $RATE Mbit/s ($pair0)"

# loaded NAME FROM TO-ADDR TO UNLOADED: iperf3 during a 70 % load a-1 -> b-1
loaded() {
	"$GRIDLOAD" run --schedule "$tmp/load.yaml" --log "$tmp/$1.csv" --quiet \
		>"$tmp/$1.out" 2>&1 &
	local gl=$! got
	wait_until 5 tx_in a-1 || diag "no gridload-tx in a-1 after 5 s"
	got=$(measure "$2" "$3" "$4")
	diag "$1 under the load: $got Mbit/s; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
	wait "$gl" || diag "gridload run: $(tail -n 2 "$tmp/$1.out")"
	below "$got" "$limit" && below "$got" "$(awk -v u="$5" 'BEGIN {print 0.6 * u}')"
	ok $? "$1: iperf3 gets less than $limit Mbit/s and 60 % of the unloaded $5 ($got)"
}
loaded "the loaded pair a-1>b-1" a-1 "$B1" b-1 "$pair0"
like "$(tail -n 1 "$tmp/the loaded pair a-1>b-1.csv")" \
	"^1,traffic,[0-9.]+,[0-9.]+,$FRAC[0-9]*,,,a-1,b-1,9000,$((RATE * 1000000)),${load_bps},[0-9]+,[0-9]+,[0-9]+,[0-9]+,ok,1\$" \
	"the log: a flow a-1>b-1 sized for the path, $FRAC of $RATE Mbit/s, ok"
ok_unloaded "$by0" "$by0_st" "$floor" "unloaded, the bystander a-2>b-2 carries more than 80 % of $RATE Mbit/s ($by0)"
loaded "the bystander a-2>b-2" a-2 "$B2" b-2 "$by0"
achieved=$(tail -n 1 "$tmp/the bystander a-2>b-2.csv" | cut -d, -f13)
below "$(awk -v b="$load_bps" 'BEGIN {print 0.95 * b}')" "$achieved"
ok $? "the load reached b-1 at 95 % or more of its planned rate while the bystander ran ($achieved of $load_bps bit/s)"

"$GRIDEMU" down >/dev/null
is "$(prefix_netns | wc -l)" 0 "no namespace of this test is left"
done_testing
