#!/usr/bin/env bash
# 8032-gridexp-phoenix-dilate: phoenixd in a campaign on a time-dilated grid
# (issue 48; docs/formats.md, `phoenixd`).  phoenixd runs on the topology's
# clock, so a round of R ms is k x R ms of wall clock; what the box carries
# (the delay line's datagrams a second) is a wall-clock limit, so gridexp
# sets the round on the wall clock and gives phoenixd wall / k
# (gx_phoenixd_settings()).
#   - `round_ms` and `wall_round_ms` together are refused (exit 2, one line
#     naming the place, nothing made), and so is a wall round out of range;
#   - experiments/phoenix-fig5.yaml (168 hosts) dry: k = 10 by default,
#     rounds of 200 ms of topology time, 2000 ms of wall clock; --dilate 1
#     (its labelled k = 1 variant): rounds of 2000 ms on both clocks;
#   - a small campaign (three-clusters, 12 hosts, phoenix only, k = 4,
#     `wall_round_ms: 1000`): phoenixd ran with rounds of 250 ms of the
#     topology's time on the grid of the runs (its summary, its tree files
#     and meta.json say k = 4 and both rounds), converged, every tree
#     wide-area optimal by gridexp's own check, and the phoenix runs used
#     its tree for the root (broadcasts.csv's model, no fallback, dilate 4);
#     summary.txt gives the round on both clocks; the grid is down.
# Nothing is timed: how long the shipped campaign takes is a measurement
# (docs/measurements.md, session 41).
. "$(dirname "$0")/lib-netns.sh"

require_gridexp
[ -x "$GRIDBED_BUILD/collectives/phoenixd" ] || bail "phoenixd not built"

gridexp_tmp 8032

plan 17

# camp FILE PHOENIXD-LINE: the small campaign, its `phoenixd:` on line 13
camp() {
	cat > "$1" <<EOF
name: t8032
topology: $TOPOS/three-clusters.yaml
dilate: 4
scale: 1
seed: 1
algorithms: [phoenix]
app:
  root: a-1
  broadcasts: 3
  size: 1K
  gap: 1s
ranks: {order: shuffle}
$2
EOF
}

# --- bad input -------------------------------------------------------------------
camp "$tmp/both.yaml" "phoenixd: {round_ms: 250, wall_round_ms: 1000}"
out=$("$GX" run "$tmp/both.yaml" --prefix "$GB_PREFIX" --out-root "$tmp/res" 2>&1); st=$?
is "$st" 2 "round_ms and wall_round_ms together: exit 2"
like "$out" "^$tmp/both.yaml:13:[0-9]+: phoenixd: round_ms \(the topology's time\) and wall_round_ms \(the wall clock's\) are one round: give one$" \
	"  file:line:col: message, one line"
camp "$tmp/low.yaml" "phoenixd: {wall_round_ms: 5}"
out=$("$GX" run "$tmp/low.yaml" --prefix "$GB_PREFIX" --out-root "$tmp/res" 2>&1); st=$?
like "$st $out" "^2 $tmp/low.yaml:13:[0-9]+: wall_round_ms '5' is out of range \(10 \.\. 600000\)$" \
	"wall_round_ms: 5: exit 2, file:line:col"
is "$(prefix_netns | wc -l)$( [ -e "$tmp/res" ] && echo ' results')" 0 "  no grid, no results"

# --- the shipped campaign, 168 hosts, dry ----------------------------------------------
out=$("$GX" run "$GRIDBED_SRC/experiments/phoenix-fig5.yaml" --dry-run 2>&1); st=$?
is "$st" 0 "experiments/phoenix-fig5.yaml passes --dry-run"
like "$out" "168 hosts, root c1-1, scale 1, time dilation x10$" "  its faithful k = 10 by default"
like "$out" "^  rounds of 200 ms of the topology's time \(2000 ms of wall clock at k = 10\), a serial every 2 rounds, serials batched 1 ms, at most 1800 s of wall clock$" \
	"  phoenixd: 2 s rounds on the wall clock, 200 ms of the topology's"
out=$("$GX" run "$GRIDBED_SRC/experiments/phoenix-fig5.yaml" --dry-run --dilate 1 2>&1)
is "$(printf '%s\n' "$out" | grep -cE "time dilation x1$|^  rounds of 2000 ms of the topology's time \(2000 ms of wall clock at k = 1\), a serial every 2 rounds, serials batched 10 ms, at most 1800 s of wall clock$")" 2 \
	"  --dilate 1 (the k = 1 variant): session 3's 2000 ms rounds"

# --- the small campaign at k = 4 ----------------------------------------------------
# under the sanitizer build its ranks cannot preload libgridbcast (cmake/bootstrap,
# ASAN_SKIP), as in t/8030
if [ "${GRIDBED_SANITIZED:-}" = 1 ]; then
	skip 9 "the campaign's ranks cannot preload the sanitized libgridbcast (cmake/bootstrap, ASAN_SKIP)"
	done_testing
	exit 0
fi
camp "$tmp/c.yaml" "phoenixd: {wall_round_ms: 1000}"
"$GX" run "$tmp/c.yaml" --prefix "$GB_PREFIX" --out-root "$tmp/res" --no-plots \
	> "$tmp/run.out" 2> "$tmp/run.err"; st=$?
is "$st" 0 "the campaign runs at k = 4 (exit 0)" || sed 's/^/#   /' "$tmp/run.err" | tail -20
dir=$(ls -d "$tmp"/res/t8032/2*/ 2>/dev/null | head -1)
dir=${dir%/}
px=$dir/phoenixd/s1
is "$(grep -cE "phoenixd: 12 processes, rounds of 250 ms \(1000 ms of wall clock at k = 4\), |phoenixd converged after [0-9.]+ s of the topology's time \([0-9]+ rounds, .*wide-area optimal trees: 12 of 12 \(gridexp's check\)" "$tmp/run.err")" 2 \
	"phoenixd: rounds of 250 ms (1000 ms of wall clock), converged, 12 of 12 trees optimal"
like "$(grep -m1 '^phoenixd: 12 processes' "$px/log" 2>/dev/null)" "time dilated x4: every time virtual\), UDP port [0-9]+; round 250 ms, " \
	"  phoenixd itself ran on the grid's clock, k = 4, rounds of 250 ms"
is "$(jq -r '"\(.round_ms) \(.dilate) \(.initial.converged) \(.initial.valid)"' "$px/summary.json" 2>/dev/null)" \
	"250 4 true 12" "  its summary.json: round 250 ms, k = 4, converged, 12 valid trees"
is "$(jq -r '.dilate' "$px/initial/a-1.json" 2>/dev/null)" 4 \
	"  its tree for a-1 says the k its latencies were measured at"
is "$(jq -c '.sessions[0].phoenixd | [.round_ms, .wall_round_ms, .dilate, .coalesce_ms, .timeout_s, .wan_optimal_gridexp]' "$dir/meta.json" 2>/dev/null)" \
	"[250,1000,4,2.5,600,12]" \
	"meta.json: both rounds, k, coalescing (1/100 of a round), timeout (600 wall rounds), 12 optimal"
via=$(python3 -c 'import csv,sys; print(" ".join(sorted({r["model"] + "|" + r["fallback"] + "|" + r["dilate"] for r in csv.DictReader(open(sys.argv[1]))})))' \
	"$dir/runs/unloaded-phoenix-r1/broadcasts.csv" 2>/dev/null)
is "$via" "phoenixd $px/initial/a-1.json|0|4" \
	"every phoenix broadcast: phoenixd's a-1 tree, no fallback, dilate 4"
like "$(cat "$dir/summary.txt" 2>/dev/null)" "phoenixd \(session 1\): converged after [0-9.]+ s, [0-9]+ rounds of 250 ms of the topology's time \(1000 ms of wall clock at k = 4\)" \
	"summary.txt gives the round on both clocks"
is "$(prefix_netns | wc -l)" 0 "the grid is down afterwards"
done_testing
