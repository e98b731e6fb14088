#!/usr/bin/env bash
# 7004-phoenix-fig5 - the Fig. 5 experiment path of seed 001 s4.2 end to end
# (experiments/phoenix-fig5.sh), small: topologies/three-clusters.yaml, 12
# ranks, 2 repetitions.
#   - bad options exit 2 with a one-line error, before any grid exists;
#   - the run exits 0: phoenixd converged, the MPI job ran binomial over a
#     rank order that ignores clusters, phoenix and magpie;
#   - nodes.csv has every node for every algorithm, algorithms.csv the
#     three compared ones (binomial labelled binomial-unaware), fig5.png and
#     fig5-recv.png are PNG files;
#   - the wide-area check covers every root phoenixd reports and passes;
#   - the phoenix tree came from phoenixd (gridbcast's model column, label
#     "phoenixd <file>") and the ranks used exactly that tree;
#   - the MPI job waited asleep in start windows (gridbcast --wait sleep
#     --window-ms, recorded in its JSON); a negative window is refused;
#   - without $GRIDBED_PHOENIX_TREES the planner says it fell back to the
#     simulated protocol; with a directory that has no tree, the job fails
#     and names the missing root (no silent fallback);
#   - the script tears its grid down.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_cmd mpirun
require_cmd python3
require_cmd gnuplot
require_cmd jq
SCRIPT=$GRIDBED_SRC/experiments/phoenix-fig5.sh
GB=$GRIDBED_BUILD/collectives/gridbcast
[ -x "$GRIDBED_BUILD/collectives/phoenixd" ] || bail "phoenixd not built"
[ -x "$GB" ] || bail "gridbcast not built"
TMP=$(mktemp -d /tmp/gb7004.XXXXXX)
trap 'st=$?; rm -rf "$TMP"; (exit $st); gb_cleanup' EXIT

for bad in "--reps 0" "--order sorted" "--wait busy" "--topology /nonexistent.yaml" "--bogus"; do
	# shellcheck disable=SC2086
	err=$("$SCRIPT" $bad --out "$TMP/bad" 2>&1); st=$?
	is "$st" 2 "phoenix-fig5.sh $bad: exit 2"
	ok $([ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && printf '%s' "$err" |
		grep -qE "^phoenix-fig5: (--[a-z]|unknown option)"; echo $?) "... one line naming the option: $err"
done
is "$(prefix_netns | wc -l)" 0 "bad options create no namespace"

O=$TMP/out
timeout 300 "$SCRIPT" --topology "$TOPOS/three-clusters.yaml" --reps 2 --prefix "$GB_PREFIX" \
	--out "$O" >"$TMP/log" 2>&1
st=$?
sed 's/^/# /' "$TMP/log"
is "$st" 0 "phoenix-fig5.sh on three-clusters, 12 ranks, 2 reps: exit 0"
is "$(grep -c '^phoenix-fig5: \[[1-5]/5\]' "$TMP/log")" 5 "five progress lines"

for f in summary.txt nodes.csv algorithms.csv wan-check.csv bcast.csv ranks.csv \
	rank-order.txt fit.txt phoenixd/summary.json; do
	[ -s "$O/$f" ]; ok $? "$f written"
done
for f in fig5.png fig5-recv.png; do
	is "$(head -c 8 "$O/$f" 2>/dev/null | od -An -tx1 | tr -d ' \n')" 89504e470d0a1a0a "$f is a PNG"
done

is "$(tail -n +2 "$O/nodes.csv" | cut -d, -f1 | sort | uniq -c | awk '{print $2 ":" $1}' | paste -sd' ')" \
	"binomial-unaware:12 magpie:12 native-unaware:12 phoenix:12" \
	"nodes.csv: every node for every algorithm"
is "$(tail -n +2 "$O/algorithms.csv" | cut -d, -f1 | sort | paste -sd' ')" \
	"binomial-unaware magpie native-unaware phoenix" "algorithms.csv: one row per algorithm"
is "$(awk -F, 'NR > 1 && $1 == "magpie" {print $7}' "$O/algorithms.csv")" 1.0000 \
	"ratios are to magpie"

# the rank order ignores clusters: rank 0 the root, then no two consecutive
# ranks in topology order all the way
is "$(head -1 "$O/rank-order.txt")" a-1 "rank 0 is the topology's root"
is "$(wc -l <"$O/rank-order.txt")" 12 "12 ranks in the order"
ok $([ "$(paste -sd, "$O/rank-order.txt")" != "a-1,a-2,a-3,a-4,b-1,b-2,b-3,b-4,c-1,c-2,c-3,c-4" ]; echo $?) \
	"the binomial's rank order is not the clusters' order ($(paste -sd' ' "$O/rank-order.txt"))"

# wide-area optimality of every tree phoenixd reports
is "$(tail -n +2 "$O/wan-check.csv" | wc -l)" 12 "wan-check.csv: one row per root (12)"
is "$(awk -F, 'NR > 1 && $5 == 1' "$O/wan-check.csv" | wc -l)" 12 "every phoenixd tree is wide-area optimal"
is "$(jq -r .initial.wan_optimal "$O/phoenixd/summary.json")" 12 "phoenixd agrees: 12 of 12"
like "$(cat "$O/summary.txt")" "phoenixd converged: True after [0-9.]+ s, [0-9]+ rounds of [0-9]+ ms, [0-9]+ messages" \
	"rounds and messages to convergence are in the summary"

# the phoenix tree is phoenixd's, over the network
model=$(python3 -c 'import csv,sys; print({r["algorithm"]: r["model"] + " / " + r["tree_via"] for r in csv.DictReader(open(sys.argv[1]))}["phoenix"])' "$O/bcast.csv")
like "$model" "^phoenixd $O/phoenixd/initial/a-1\.json / piggyback$" \
	"the phoenix tree is phoenixd's a-1 tree, sent in the header ($model)"
like "$(cat "$O/summary.txt")" "the broadcasts used exactly that tree \(parents seen by the ranks\): yes" \
	"the ranks' parents are phoenixd's"
like "$(cat "$O/summary.txt")" "binomial-unaware / phoenix: [0-9.]+ \(completion\)" "the verdict's ratios are printed"
is "$(jq -r '"\(.wait) \(.window_s)"' "$O/bcast.json")" "sleep 0.4" \
	"the job waited asleep, in start windows of 400 ms (bcast.json)"
is "$(prefix_netns | wc -l)" 0 "the script tore its grid down"

# the planner's two other cases, on a grid of our own
"$GRIDEMU" up "$TOPOS/three-clusters.yaml" >/dev/null 2>&1 || bail "cannot bring the grid up"
"$GRIDEMU" mpirun -- "$GB" --algo phoenix --sizes 1K --reps 1 --out "$TMP/fb.csv" --quiet \
	>"$TMP/fb.log" 2>&1
st=$?
is "$st" 0 "without GRIDBED_PHOENIX_TREES the phoenix planner still runs"
like "$(grep ',phoenix,' "$TMP/fb.csv" | head -1)" "phoenix_sim on topology .*\(fallback: no GRIDBED_PHOENIX_TREES\)" \
	"... labelled as the simulated fallback"
mkdir -p "$TMP/empty"
GRIDBED_PHOENIX_TREES=$TMP/empty "$GRIDEMU" mpirun -- "$GB" --algo phoenix --sizes 1K --reps 1 \
	--out "$TMP/none.csv" --quiet >"$TMP/none.log" 2>&1
st=$?
ok $([ "$st" != 0 ]; echo $?) "with a directory without trees the job fails (exit $st)"
like "$(cat "$TMP/none.log")" "no tree for root 'a-1' in '$TMP/empty'" "... naming the root and the directory"
"$GRIDEMU" mpirun -- "$GB" --algo binomial --sizes 1K --reps 1 --out "$TMP/w.csv" \
	--window-ms -5 >"$TMP/w.log" 2>&1
like "$(cat "$TMP/w.log")" "gridbcast: --window-ms: '-5' is not a time in ms" \
	"gridbcast --window-ms -5 is refused, naming the option"
"$GRIDEMU" down >/dev/null
done_testing
