#!/usr/bin/env bash
# 7003-phoenixd - the Phoenix dynamic-tree protocol (seed 001 s3) for real:
# one phoenixd process per host of topologies/three-clusters.yaml, UDP on the
# emulated data plane, latencies measured by the processes themselves.
#   - the trees converge, every root's tree is a valid spanning tree
#     (gridtree eval reads the written tree files) and wide-area optimal;
#   - roots in cluster a reach cluster c through b (4 + 4 ms hops, Fig. 1
#     prefers the 4 ms neighbour over the 6 ms direct link);
#   - siteB-siteC is then slowed to 30 ms at runtime (gb_grid_link_set), the
#     trees converge again, stay wide-area optimal, and roots in a now reach
#     c directly;
#   - no process is left behind.
# Whether it converges is judged by phoenixd on rounds of messages, not on
# wall-clock thresholds; the timeouts only stop a hung run.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_cmd jq

PHOENIXD=$GRIDBED_BUILD/collectives/phoenixd
GT=$GRIDBED_BUILD/collectives/gridtree
[ -x "$PHOENIXD" ] || bail "phoenixd not built at $PHOENIXD"
TMP=$(mktemp -d /tmp/gb7003.XXXXXX)
trap 'st=$?; rm -rf "$TMP"; (exit $st); gb_cleanup' EXIT

"$GRIDEMU" up "$TOPOS/three-clusters.yaml" >/dev/null 2>&1 || bail "cannot bring the grid up"
"$GRIDEMU" link show | grep -q "^siteB-siteC " || bail "no link siteB-siteC in three-clusters.yaml"

timeout 300 "$PHOENIXD" run --grid --timeout 120 --change siteB-siteC:30ms:1 --out "$TMP/out" \
	>"$TMP/log" 2>&1
st=$?
sed 's/^/# /' "$TMP/log"
is "$st" 0 "phoenixd run --grid --change: converged, and converged again"
S=$TMP/out/summary.json
[ -r "$S" ] || bail "no $S"
q() { jq -r "$1" "$S"; }

is "$(q .hosts)" 12 "12 processes, one per host"
is "$(q .port)" 7400 "UDP port 7400"
is "$(q .initial.converged)" true "initial convergence"
is "$(q .initial.valid)" 12 "12 of 12 trees are spanning trees"
is "$(q .initial.wan_optimal)" 12 "12 of 12 trees are wide-area optimal"
diag "initial: $(q .initial.rounds) rounds, $(q .initial.time_s) s, $(q .initial.messages) messages"
ok $([ "$(q .initial.messages)" -gt 0 ] && [ "$(q .initial.rounds)" -gt 0 ]; echo $?) \
	"rounds and messages are counted"
via=$(jq -r '[.initial.trees | to_entries[] | select(.key | startswith("a-")) |
	.value.entered_from.c] | join(" ")' "$S")
is "$via" "b b b b" "roots in a reach cluster c through cluster b"

evals=0
for f in "$TMP"/out/initial/*.json "$TMP"/out/changed/*.json; do
	"$GT" eval --tree "$f" --topo "$TOPOS/three-clusters.yaml" --size 1K >/dev/null 2>&1 ||
		{ evals=1; diag "gridtree eval rejects $f"; }
done
is "$(ls "$TMP"/out/initial/*.json "$TMP"/out/changed/*.json | wc -l)" 24 "24 tree files written"
ok $evals "gridtree eval accepts every tree file"

like "$("$GRIDEMU" link show | grep "^siteB-siteC " | head -1)" " 30ms " \
	"the link was slowed to 30 ms"
A=.after_change.result
is "$(q $A.converged)" true "converged again after the change"
is "$(q $A.valid)" 12 "12 of 12 trees are spanning trees"
is "$(q $A.wan_optimal)" 12 "12 of 12 trees are wide-area optimal"
ok $([ "$(q $A.changes)" -gt 0 ]; echo $?) \
	"parents changed ($(q $A.changes), $(q $A.shortcuts) by shortcut)"
diag "after the change: $(q $A.rounds) rounds, $(q $A.time_s) s, $(q $A.messages) messages"
via=$(jq -r '[.after_change.result.trees | to_entries[] | select(.key | startswith("a-")) |
	.value.entered_from.c] | join(" ")' "$S")
is "$via" "a a a a" "roots in a now reach cluster c directly"

left=0
for ns in $(prefix_netns); do
	[ -z "$(ip netns pids "$ns" 2>/dev/null | while read -r p; do
		[ "$(cat /proc/"$p"/comm 2>/dev/null)" = phoenixd ] && echo "$p"; done)" ] || left=1
done
ok $left "no phoenixd process is left in the grid's namespaces"

"$GRIDEMU" down >/dev/null
done_testing
