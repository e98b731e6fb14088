#!/usr/bin/env bash
# fig8-model.sh - what the cost models say about seed 000's Fig. 8 on our
# reading of Fig. 6 (topologies/teragrid.yaml), with no emulation at all:
# C3's uplink loses a fraction F of its capacity (the paper's 50-90 %) in
# one direction, and gridtree predicts, from the configured topology,
#   - MPICH-G2's tree (fixed: it ignores the network),
#   - clusteredSA's tree planned on that loaded topology (the adaptive
#     broadcast with a perfect monitor), under its own model and under the
#     contention model,
# for a few of the application's sizes.  So it separates what the topology
# reading implies from what the emulator, the monitor or the load add.
#
#   experiments/fig8-model.sh [--sizes LIST] [--fractions LIST] [--budget-ms N]
#                             [--seeds LIST] [--csv FILE]
#
# Defaults: sizes 1M,512K,128K; fractions 0,50,70,84,90; no time budget
# (clusteredSA runs its whole schedule: deterministic, whatever the CPU);
# seeds 1,2,3 (clusteredSA's median prediction is reported).
# The loaded direction is C3 -> its site router ("up": what a load from a C3
# host to a host elsewhere takes) and the reverse ("down").  Needs a build in
# build/ (GRIDBED_BUILD to override).  With --budget-ms the annealer stops at
# its time budget, and its trees depend on the CPU it got.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${GRIDBED_BUILD:-$src/build}
gt=$build/collectives/gridtree
sizes=1M,512K,128K
fracs=0,50,70,84,90
budget=
seeds=1,2,3
csv=
while [ $# -gt 0 ]; do
	case $1 in
		--sizes) sizes=$2; shift 2 ;;
		--fractions) fracs=$2; shift 2 ;;
		--budget-ms) budget=$2; shift 2 ;;
		--seeds) seeds=$2; shift 2 ;;
		--csv) csv=$2; shift 2 ;;
		-h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
		*) echo "fig8-model: unknown option '$1' (--help)" >&2; exit 2 ;;
	esac
done
[ -x "$gt" ] || { echo "fig8-model: gridtree is not built at $gt" >&2; exit 2; }
for f in ${fracs//,/ }; do
	[[ $f =~ ^[0-9]+$ ]] && [ "$f" -lt 100 ] ||
		{ echo "fig8-model: --fractions: '$f' is not a percentage below 100" >&2; exit 2; }
done
tmp=$(mktemp -d /tmp/gridbed-fig8-model.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# teragrid with C3's uplink at (100 - F) % of its 100 Mbit/s, one direction
# (a = the cluster's switch, b = the site's router: a>b is "up")
topo() { # DIR F
	local d=a\>b
	[ "$1" = down ] && d=b\>a
	sed "s|      - {name: c3, hosts: 12}|      - {name: c3, hosts: 12, uplink: {$d: {rate: $((100 - $2))mbit}}}|" \
		"$src/topologies/teragrid.yaml" > "$tmp/$1-$2.yaml"
	grep -q "name: c3, hosts: 12, uplink" "$tmp/$1-$2.yaml" ||
		{ echo "fig8-model: teragrid.yaml no longer has the line for c3" >&2; exit 1; }
	echo "$tmp/$1-$2.yaml"
}
pred() { # TOPO ALGO SIZE SEED MODEL -> "own contention c3_fwd"
	"$gt" plan --algo "$2" --topo "$1" --root c2-1 --size "$3" --seed "$4" \
		${budget:+--budget-ms "$budget"} ${5:+--model "$5"} --format json |
		jq -r '. as $t | [$t.predicted.mateescu, $t.predicted.contention,
			([range(0; $t.nodes | length) | select(($t.parent[.] // "") | startswith("c3-"))
			  | select($t.nodes[.] | startswith("c3-") | not)] | length)] | @tsv'
}
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

[ -n "$csv" ] && echo "direction,fraction,size,g2_model,g2_contention,csa_model,csa_contention,csa_c3_forwards" > "$csv"
printf '%-5s %4s %6s | %8s %8s | %8s %8s %8s | %s\n' dir F size g2 g2_cont csa csa_cont "gain%" "C3 forwards (csa)"
for dir in up down; do
	for f in ${fracs//,/ }; do
		t=$(topo "$dir" "$f")
		for s in ${sizes//,/ }; do
			read -r g2 g2c _ < <(pred "$t" mpich-g2 "$s" 1 "")
			: > "$tmp/csa"
			for sd in ${seeds//,/ }; do pred "$t" clustered-sa "$s" "$sd" "" >> "$tmp/csa"; done
			cs=$(cut -f1 "$tmp/csa" | median)
			cc=$(cut -f2 "$tmp/csa" | median)
			fw=$(cut -f3 "$tmp/csa" | tr '\n' ' ')
			gain=$(awk -v a="$g2" -v b="$cs" 'BEGIN { printf "%.1f", (a - b) / a * 100 }')
			printf '%-5s %4s %6s | %8.3f %8.3f | %8.3f %8.3f %8s | %s\n' "$dir" "$f" "$s" "$g2" "$g2c" "$cs" "$cc" "$gain" "$fw"
			[ -n "$csv" ] && echo "$dir,$f,$s,$g2,$g2c,$cs,$cc,${fw// /;}" >> "$csv"
		done
	done
done
echo "g2: MPICH-G2's tree, predicted by Mateescu's model (its own) and the contention model;"
echo "csa: clusteredSA planned on the loaded topology, median over seeds $seeds, ${budget:-no} time budget;"
echo "gain: (g2 - csa) / g2 under Mateescu's model; C3 forwards: clusteredSA's tree edges from a C3"
echo "host to a host of another cluster, per seed (MPICH-G2's tree has 2: C3 feeds C4 and C5)."
