#!/usr/bin/env bash
# gridload's bounds, on a live two-clusters grid:
#   - a traffic flow stops by itself at its end time, even when gridload
#     itself is frozen (SIGSTOP) and cannot stop it;
#   - a flow whose sender is held back logs "short: sent X of Y", not "ok";
#   - destinations outside the grid are refused (exit 2, named), by the CLI
#     and in a schedule file, and nothing starts;
#   - a SIGKILLed `gridload run` leaves no flow process running (checked by
#     name and by the namespaces the processes live in);
#   - shape mode lowers a link's rate by the fraction and restores it (tc is
#     the witness); after a SIGKILL, `gridload restore` puts it back, and so
#     does the next `gridload run`.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_cmd tc
require_built GRIDLOAD loadgen/gridload

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; gb_cleanup' EXIT
root_before=$(root_snapshot)
"$GRIDEMU" up "$TOPOS/two-clusters.yaml" >/dev/null 2>&1 || bail "cannot bring the grid up"
state="$GRIDBED_RUNDIR/$GB_PREFIX/gridload-shape.json"

# Live (non-zombie) gridload flow processes inside this grid's namespaces:
# by name (pgrep), then by the namespace each one lives in.
ns_inodes=$(for ns in $(prefix_netns); do stat -L -c %i "/run/netns/$ns"; done)
flow_pids() {
	local p ino
	for p in $(pgrep -x 'gridload-[rt]x'); do
		[ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" = Z ] && continue
		ino=$(readlink "/proc/$p/ns/net" 2>/dev/null | tr -dc 0-9)
		[ -n "$ino" ] && grep -qx "$ino" <<<"$ns_inodes" && echo "$p"
	done
}
# The same from the namespaces' side (iproute2 as the witness): slower.
ns_flow_pids() {
	local ns p
	for ns in $(prefix_netns); do
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			case $(cat "/proc/$p/comm" 2>/dev/null) in
			gridload-tx|gridload-rx) echo "$p" ;;
			esac
		done
	done
}
nflows() { flow_pids | wc -l; }
have_flows() { [ "$(nflows)" -ge "${1:-2}" ]; }
no_flows() { [ "$(nflows)" = 0 ]; }

wan=siteA-siteB
from=siteA
ifn=$("$GRIDEMU" link show | awk -v w="$wan" '$1 == w {print $3; exit}')
tbf_rate() { tc -n "$GB_PREFIX-$1" qdisc show dev "$ifn" | grep -o 'tbf.* rate [0-9.]*[KMG]bit' | awk '{print $NF}'; }
rate_is() { [ "$(tbf_rate "$1")" = "$2" ]; }

# --- 1. a flow stops by itself ------------------------------------------------
t_start=$(date +%s%N)
"$GRIDLOAD" flow a-1 b-1 --fraction 0.3 --duration 2s --log "$tmp/flow.csv" \
	>"$tmp/flow.out" 2>&1 &
gl=$!
wait_until 5 have_flows 2
ok $? "a flow's sender and receiver run inside the grid ($(nflows) processes)"
kill -STOP "$gl"
diag "gridload frozen $(( ($(date +%s%N) - t_start) / 1000000 )) ms after it started"
# The flow ends at 2 s (+ grace for packets in flight, + a 1 s backstop
# timer); 15 s only bounds a failure.
wait_until 15 no_flows
ok $? "they stop by themselves while gridload is frozen (SIGSTOP) and cannot stop them"
gone_ms=$(( ($(date +%s%N) - t_start) / 1000000 ))
diag "flow processes gone ${gone_ms} ms after gridload started (flow: 2 s)"
kill -CONT "$gl"
wait "$gl"
is $? 0 "gridload flow exits 0 afterwards"
row=$(tail -n 1 "$tmp/flow.csv")
like "$row" '^1,traffic,.*,a-1,b-1,9000,100000000,30000000,[0-9]+,[0-9]+,[0-9]+,[0-9]+,ok,1$' \
	"the log has the flow: planned 30% of the 100 Mbit/s bottleneck"
rx=$(echo "$row" | awk -F, '{print $16}')
ok $([ "${rx:-0}" -gt 1000 ]; echo $?) "the receiver counted the flow's packets ($rx)"

# --- 1b. a sender held back is reported "short", not "ok" ----------------------
# Its sender stopped for 1.5 s of a 3 s flow: the pacing forgives what it owes
# beyond 1 s and catches up at 1.25 x the rate, so it sends ~56 % of the plan.
"$GRIDLOAD" flow a-1 b-1 --rate 20mbit --duration 3s --log "$tmp/short.csv" \
	>"$tmp/short.out" 2>&1 &
gl=$!
wait_until 5 have_flows 2
tx=$(for p in $(flow_pids); do [ "$(cat "/proc/$p/comm")" = gridload-tx ] && echo "$p"; done)
sleep 0.75; kill -STOP $tx; sleep 1.5; kill -CONT $tx
wait "$gl"
is $? 0 "gridload flow exits 0 when its load ran short (not an error)"
like "$(tail -n 1 "$tmp/short.csv")" ',short: sent [0-9.]+ of 20\.0 Mbit/s,1$' \
	"the log says the flow was short of its rate: $(tail -n 1 "$tmp/short.csv" | awk -F, '{print $(NF - 1)}')"

# --- 2. destinations outside the grid are refused -----------------------------
out=$("$GRIDLOAD" flow a-1 8.8.8.8 --duration 1s 2>&1); st=$?
is "$st" 2 "a destination outside the grid: exit 2"
like "$out" "destination '8.8.8.8' is not a host of grid 'two-clusters'" "and it is named"
out=$("$GRIDLOAD" flow a-1 siteB --duration 1s 2>&1); st=$?
is "$st" 2 "a router is not a destination either: exit 2"
like "$out" "destination 'siteB' is not a host" "and it is named"
out=$("$GRIDLOAD" flow a-1 10.250.0.200 --duration 1s 2>&1); st=$?
is "$st" 2 "an unused address of the data block: exit 2"
printf 'loads:\n  - {start: 0s, duration: 5s, fraction: 0.5, src: a-1, dst: 192.168.1.1}\n' \
	>"$tmp/bad.yaml"
out=$("$GRIDLOAD" run --schedule "$tmp/bad.yaml" 2>&1); st=$?
is "$st" 2 "a schedule with such a destination: exit 2"
like "$out" "bad.yaml:2:61: destination '192.168.1.1' is not a host" \
	"with file:line:col"
is "$(nflows)" 0 "and no flow process was started"

# --- 3. SIGKILL leaves no flow running ------------------------------------------
printf 'loads:\n  - {start: 0s, duration: 60s, fraction: 0.2, src: a-2, dst: b-2}\n' \
	>"$tmp/long.yaml"
"$GRIDLOAD" run --schedule "$tmp/long.yaml" --quiet >/dev/null 2>&1 &
gl=$!
wait_until 5 have_flows 2
ok $? "a 60 s flow is running ($(nflows) processes)"
kill -9 "$gl"
wait "$gl" 2>/dev/null
wait_until 5 no_flows
ok $? "after SIGKILL of gridload run no flow process is left in the grid"
is "$(ns_flow_pids | wc -l)" 0 "ip netns pids agrees: no gridload process in any of its namespaces"
alive=$(ps -eo stat=,comm= | awk '$1 !~ /^Z/ && ($2 == "gridload-tx" || $2 == "gridload-rx")' |
	wc -l)
diag "gridload-tx/rx processes alive anywhere on the box: $alive (other grids may have some)"

# --- 4. shape mode lowers and restores ------------------------------------------
before=$(tbf_rate "$from")
is "$before" "100Mbit" "tc: $wan leaves siteA at 100Mbit"
"$GRIDLOAD" flow a-1 b-1 --mode shape --fraction 0.6 --duration 3s --log "$tmp/shape.csv" \
	>/dev/null 2>&1 &
gl=$!
wait_until 5 rate_is "$from" 40Mbit
ok $? "during the load tc sees (1 - 0.6) x 100 = 40Mbit (got $(tbf_rate "$from"))"
is "$(tbf_rate siteB)" "100Mbit" "the other direction is untouched"
like "$("$GRIDEMU" link show | awk -v w="$wan" '$1 == w && $2 == "siteA>siteB"')" " 40mbit " \
	"gridemu link show agrees"
wait "$gl"
is $? 0 "gridload flow --mode shape exits 0"
is "$(tbf_rate "$from")" "100Mbit" "after the load the rate is back to 100Mbit"
like "$(tail -n 1 "$tmp/shape.csv")" '^1,shape,.*,siteA-siteB,siteA>siteB,,,0,100000000,40000000,40000000,0,0,0,ok,1$' \
	"the log has planned and read-back rate 40 Mbit/s"
ok $([ ! -e "$state" ]; echo $?) "no state file is left"

# --- 5. SIGKILL in shape mode; gridload restore ---------------------------------
printf 'loads:\n  - {start: 0s, duration: 60s, fraction: 0.75, link: %s, dir: siteA>siteB}\n' \
	"$wan" >"$tmp/shape.yaml"
"$GRIDLOAD" run --mode shape --schedule "$tmp/shape.yaml" --quiet >/dev/null 2>&1 &
gl=$!
wait_until 5 rate_is "$from" 25Mbit
ok $? "a 60 s cut to 25Mbit is in place"
kill -9 "$gl"
wait "$gl" 2>/dev/null
is "$(tbf_rate "$from")" "25Mbit" "SIGKILL leaves the link cut"
ok $([ -e "$state" ]; echo $?) "and the change recorded in $(basename "$state")"
out=$("$GRIDLOAD" restore 2>&1); st=$?
is "$st" 0 "gridload restore exits 0"
like "$out" "restored 1 link direction" "and says what it did"
is "$(tbf_rate "$from")" "100Mbit" "tc: the rate is back to 100Mbit"
ok $([ ! -e "$state" ]; echo $?) "the state file is gone"
is "$("$GRIDLOAD" restore 2>&1)" "gridload: restored 0 link directions" "restore again: nothing to do"

"$GRIDLOAD" run --mode shape --schedule "$tmp/shape.yaml" --quiet >/dev/null 2>&1 &
gl=$!
wait_until 5 rate_is "$from" 25Mbit
kill -9 "$gl"
wait "$gl" 2>/dev/null
printf 'loads:\n  - {start: 0s, duration: 200ms, fraction: 0.5, link: %s, dir: siteB>siteA}\n' \
	"$wan" >"$tmp/short.yaml"
out=$("$GRIDLOAD" run --mode shape --schedule "$tmp/short.yaml" 2>&1); st=$?
is "$st" 0 "a new shape run after a SIGKILL exits 0"
like "$out" "restored 1 link direction a previous run had changed" "it repaired the old cut first"
is "$(tbf_rate "$from"),$(tbf_rate siteB)" "100Mbit,100Mbit" "both directions are at 100Mbit"

is "$(nflows)" 0 "no flow process left in the grid"
"$GRIDEMU" down >/dev/null
is "$(root_snapshot)" "$root_before" "the root namespace is identical after all of it"
done_testing
