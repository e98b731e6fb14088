#!/usr/bin/env bash
# A 70 % load on a cluster uplink takes 70 % of *that link* (issue 13; seed
# 000 §3: loads on "links to/from C3", "50%-90% bandwidth reductions"), in
# traffic mode and in shape mode, with iperf3 (TCP) as the independent
# witness across the loaded direction.
#
# One teragrid site in small (NCSA with c3 and c4: host links and uplinks
# 100 Mbit/s, 0.05 and 0.25 ms), plus a 20 Mbit/s WAN trunk like PSC's:
#
#   a-1, a-2 -- a ==100mbit== siteA -- a2 -- a2-1
#                               |
#                               +--20mbit WAN-- siteB -- b -- b-1
#
# Nothing on a-1 <-> a2-1 is narrower than a's uplink, so iperf3 between
# them measures what the uplink leaves.  The WAN trunk is narrower than the
# uplink on purpose: a load sized for a host pair's path bottleneck (the
# old placement) would take 70 % of 20, not of 100 Mbit/s.
#
# a's uplink queue holds 510 packets, as teragrid's uplinks do by the
# default rule: more than the ~90 datagrams a default 208 KiB send buffer
# keeps in flight, so a load sender on the switch or the router is tested
# where its own socket, not the queue, could hold it back (loadgen/flow.c).
#
# Thresholds, and why:
#   - unloaded > 80 % of the rate: one TCP flow through a TBF measured
#     95.6 % of the rate (docs/platform.md); 80 % leaves room for a busy 2-core box;
#     below it while the hypervisor took 5 % or more of the CPUs' time, the
#     test is a skip that says so (t/lib-netns.sh, ok_unloaded: the machine,
#     not the emulator, held the rate down);
#   - loaded < 1.5 x (1 - 0.7) x 100 = 45 Mbit/s: the share a drop-tail FIFO
#     leaves next to a 70 Mbit/s CBR flow is 30 Mbit/s; 1.5x covers the CBR
#     flow losing some datagrams at the full queue and TCP's variation,
#     and stays below what a load sized for the WAN trunk would leave
#     (100 - 14 = 86 Mbit/s) and what the issue measured (76 of 100);
#   - loaded < 60 % of the unloaded figure measured here: "well below" it,
#     whatever this box delivers unloaded (a 70 % load should leave ~30 %).
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_cmd iperf3
require_cmd tc
require_built GRIDLOAD loadgen/gridload

RATE=100  # Mbit/s, a's uplink (teragrid's)
FRAC=0.7
SECS=4    # iperf3 seconds; each load lasts SECS + 4 s

tmp=$(mktemp -d)
trap '"$GRIDLOAD" restore >/dev/null 2>&1; rm -rf "$tmp"; gb_cleanup' EXIT
cat >"$tmp/uplink.yaml" <<EOF
name: uplink-load
root: a-1
defaults:
  host_link: {rate: ${RATE}mbit, delay: 0.05ms}
  uplink: {rate: ${RATE}mbit, delay: 0.25ms}
sites:
  - name: siteA
    clusters:
      - {name: a, hosts: 2, uplink: {limit: 510}}
      - {name: a2, hosts: 1}
  - name: siteB
    clusters:
      - {name: b, hosts: 1}
links:
  - {a: siteA, b: siteB, delay: 1ms, rate: 20mbit}
EOF
"$GRIDEMU" up "$tmp/uplink.yaml" >/dev/null 2>"$tmp/up.err" ||
	bail "cannot bring the grid up: $(head -n 1 "$tmp/up.err")"
addr() { "$GRIDEMU" status | awk -v h="$1" '$1 == h {print $5; exit}'; }
A1=$(addr a-1); A21=$(addr a2-1)
ifn=$("$GRIDEMU" link show | awk '$1 == "a-siteA" {print $3; exit}')
tbf_rate() { tc -n "$GB_PREFIX-$1" qdisc show dev "$ifn" | grep -o 'tbf.* rate [0-9.]*[KMG]bit' | awk '{print $NF}'; }
tx_in() { for p in $(ip netns pids "$GB_PREFIX-$1" 2>/dev/null); do
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = gridload-tx ] && return 0; done; return 1; }
rate_is() { [ "$(tbf_rate "$1")" = "$2" ]; }

# measure FROM-HOST TO-ADDR TO-HOST: iperf3 TCP goodput in Mbit/s (receiver side)
port=5301
measure() { port=$((port + 1)); iperf_mbps "$1" "$2" "$3" "$port" "$SECS"; }
below() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a < b)}'; }
limit=$(awk -v r="$RATE" -v f="$FRAC" 'BEGIN {print 1.5 * (1 - f) * r}')
load=$(awk -v r="$RATE" -v f="$FRAC" 'BEGIN {print f * r}')      # Mbit/s, 70
left=$(awk -v r="$RATE" -v f="$FRAC" 'BEGIN {print (1 - f) * r}') # Mbit/s, 30
cap_bps=$((RATE * 1000000))
load_bps=$(awk -v l="$load" 'BEGIN {printf "%.0f", l * 1e6}')
schedule() { # schedule DIR: a FRAC load on a-siteA in direction DIR
	printf 'loads:\n  - {start: 0s, duration: %ds, fraction: %s, link: a-siteA, dir: %s}\n' \
		$((SECS + 4)) "$FRAC" "$1" >"$tmp/load-$2.yaml"
}

# --- the plan: placed for the link, sized for the link ----------------------------
schedule 'a>siteA' up
plan=$("$GRIDLOAD" plan --schedule "$tmp/load-up.yaml" --topology "$tmp/uplink.yaml" 2>&1)
like "$plan" "a>siteA: $load of $RATE Mbit/s, a-siteA" \
	"plan: the flow runs a>siteA at $load of a-siteA's $RATE Mbit/s"
json=$("$GRIDLOAD" plan --schedule "$tmp/load-up.yaml" --topology "$tmp/uplink.yaml" --json)
like "$(tr -d ' \n' <<<"$json")" "\"flows\":\\[\\{\"src\":\"a\",\"dst\":\"siteA\",\"sized_for\":\"link\",\"hops\":1,\"capacity_bps\":${cap_bps},\"rate_bps\":${load_bps}\\.0*,\"link\":\"a-siteA\",\"dir\":\"a>siteA\"\\}\\]" \
	"plan --json: src, dst, sized_for, hops, capacity and rate"

# --- unloaded ----------------------------------------------------------------------
floor=$(awk -v r="$RATE" 'BEGIN {print 0.8 * r}')   # 80 % of the rate, Mbit/s
# unloaded FROM TO-ADDR TO: "MBPS STOLEN" on $port (the caller advances it:
# a port advanced inside a process substitution would not count)
unloaded() { iperf_unloaded "$1" "$2" "$3" "$port" "$SECS" "$floor"; }
port=$((port + 1)); read -r up0 up0_st < <(unloaded a-1 "$A21" a2-1)
port=$((port + 1)); read -r down0 down0_st < <(unloaded a2-1 "$A1" a-1)
diag "unloaded: a-1>a2-1 $up0, a2-1>a-1 $down0 Mbit/s (rate $RATE); loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
ok_unloaded "$up0" "$up0_st" "$floor" "unloaded, a>siteA carries more than 80 % of $RATE Mbit/s ($up0)"
ok_unloaded "$down0" "$down0_st" "$floor" "unloaded, siteA>a carries more than 80 % of $RATE Mbit/s ($down0)"

# check_loaded NAME GOT UNLOADED
check_loaded() {
	below "$2" "$limit"
	ok $? "$1: iperf3 gets less than 1.5 x (1 - $FRAC) x $RATE = $limit Mbit/s ($2)"
	below "$2" "$(awk -v u="$3" 'BEGIN {print 0.6 * u}')"
	ok $? "$1: and less than 60 % of the unloaded $3 Mbit/s"
}

# --- traffic mode, both directions --------------------------------------------------
# run_traffic DIR TAG SENDER FROM TO-ADDR TO
run_traffic() {
	"$GRIDLOAD" run --schedule "$tmp/load-$2.yaml" --log "$tmp/$2.csv" --quiet \
		>"$tmp/$2.out" 2>&1 &
	local gl=$!
	wait_until 5 tx_in "$3" || diag "no gridload-tx in '$3' after 5 s"
	got=$(measure "$4" "$5" "$6")
	diag "traffic $1: $got Mbit/s; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
	wait "$gl"
	is $? 0 "traffic $1: gridload run exits 0"
}
run_traffic 'a>siteA' up a a-1 "$A21" a2-1
check_loaded "traffic a>siteA" "$got" "$up0"
like "$(tail -n 1 "$tmp/up.csv")" "^1,traffic,.*,a-siteA,a>siteA,a,siteA,9000,${cap_bps},${load_bps},[0-9]+,[0-9]+,[0-9]+,[0-9]+,ok,1\$" \
	"the log: flow a>siteA, sized for a-siteA, $load of $RATE Mbit/s"
diag "load row: $(tail -n 1 "$tmp/up.csv")"

schedule 'siteA>a' down
run_traffic 'siteA>a' down siteA a2-1 "$A1" a-1
check_loaded "traffic siteA>a" "$got" "$down0"
like "$(tail -n 1 "$tmp/down.csv")" "^1,traffic,.*,a-siteA,siteA>a,siteA,a,9000,${cap_bps},${load_bps},.*,ok,1\$" \
	"the log: flow siteA>a (the router sends), $load of $RATE Mbit/s"

# --- shape mode ------------------------------------------------------------------------
"$GRIDLOAD" run --mode shape --schedule "$tmp/load-up.yaml" --quiet >"$tmp/shape.out" 2>&1 &
gl=$!
wait_until 5 rate_is a "${left}Mbit"
ok $? "shape: tc sees a>siteA at (1 - $FRAC) x $RATE = ${left}Mbit ($(tbf_rate a))"
got=$(measure a-1 "$A21" a2-1)
diag "shape a>siteA: $got Mbit/s; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
wait "$gl"
is $? 0 "shape: gridload run exits 0"
check_loaded "shape a>siteA" "$got" "$up0"
is "$(tbf_rate a)" "${RATE}Mbit" "shape: the rate is back afterwards"

"$GRIDEMU" down >/dev/null
is "$(prefix_netns | wc -l)" 0 "no namespace of this test is left"
done_testing
