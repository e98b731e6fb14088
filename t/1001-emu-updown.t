#!/usr/bin/env bash
# up/down of two-clusters: every pair of hosts reaches each other over the
# data plane, every host reaches the management gateway, a second up is
# refused, down removes everything, and the root namespace is unchanged.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu

before=$(root_snapshot)
out=$("$GRIDEMU" up "$TOPOS/two-clusters.yaml" 2>&1); st=$?
ok $st "up two-clusters" || { diag "$out"; bail "cannot continue without a grid"; }
like "$out" "^grid 'two-clusters' up: 8 hosts" "up reports the grid"

ns=$(prefix_netns | wc -l)
nodes=$("$GRIDEMU" status --json | grep -c '"netns"')
is "$nodes" 8 "status --json lists 8 hosts"
ok $([ "$ns" -ge 13 ]; echo $?) "one namespace per node plus mgmt ($ns)"

# Addresses come from status, the witness is iproute2's ping.
mapfile -t hosts < <("$GRIDEMU" status | awk 'NR>2 && NF==6 {print $1}')
mapfile -t addrs < <("$GRIDEMU" status | awk 'NR>2 && NF==6 {print $5}')
is "${#hosts[@]}" 8 "status text lists 8 hosts"
fail=0; pairs=0
for i in "${!hosts[@]}"; do
	for j in "${!hosts[@]}"; do
		[ "$i" = "$j" ] && continue
		pairs=$((pairs + 1))
		ip netns exec "$GB_PREFIX-${hosts[$i]}" ping -c1 -W3 -q "${addrs[$j]}" >/dev/null 2>&1 ||
			{ fail=$((fail + 1)); diag "no reply ${hosts[$i]} -> ${hosts[$j]}"; }
	done
done
is "$fail" 0 "all $pairs ordered host pairs reach each other"

gw=$("$GRIDEMU" status --json | sed -n 's/.*"mgmt_gateway": "\([0-9.]*\)".*/\1/p')
mfail=0
for h in "${hosts[@]}"; do
	ip netns exec "$GB_PREFIX-$h" ping -c1 -W2 -q "$gw" >/dev/null 2>&1 || mfail=$((mfail + 1))
done
is "$mfail" 0 "every host reaches the management gateway $gw"

# The management network must not carry data: a data address is not
# reachable through m0 (routes for the data block go out of data links only).
dev=$(ip netns exec "$GB_PREFIX-${hosts[0]}" ip route get "${addrs[7]}" | grep -o 'dev [a-z0-9]*')
like "$dev" "^dev d[0-9]+$" "data traffic of ${hosts[0]} leaves by its data link"

out=$("$GRIDEMU" up "$TOPOS/two-clusters.yaml" 2>&1); st=$?
is "$st" 2 "a second up is refused with status 2"
like "$out" "already up" "and says why"

out=$("$GRIDEMU" down 2>&1); st=$?
ok $st "down" || diag "$out"
is "$(prefix_netns | wc -l)" 0 "no namespace of the prefix is left"
ok $([ ! -e "$GRIDBED_RUNDIR/$GB_PREFIX/state.json" ]; echo $?) "the state file is gone"
ok $(! pgrep -f "gridemu-tapd.*$GRIDBED_RUNDIR/$GB_PREFIX/" >/dev/null; echo $?) "no tap daemon is left"
after=$(root_snapshot)
is "$after" "$before" "the root network namespace is identical before and after"

out=$("$GRIDEMU" down 2>&1); st=$?
ok $st "down again is harmless"
done_testing
