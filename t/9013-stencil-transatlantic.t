#!/usr/bin/env bash
# 9013-stencil-transatlantic - the CI-sized variant of the seed 004 s8.2
# experiment (experiments/stencil-transatlantic.sh --ci): 2 + 2 ranks on the
# transatlantic grid (50 ms, 10 Mbit/s, one cluster at half the CPU),
# standard and grid-aware runs, the plot and the summary.  Checks that
# the script produces every file, that the two modes computed bit-identical
# fields, that the grid-aware run used the s3.3 topology (the machines
# along the longest dimension: the wide-area face is the short side), gave
# the machine that measured faster the thicker slabs (s4.1), that the ranks
# read back their hosts' CPU quotas, and that it reports a speed-up, the
# final ghost depth and the compressed groups.  Session 41: the script's
# default fields (spectrum) with each group's deflate ratio in the summary,
# one --variants run (grid-aware with compression off: every wide-area byte
# sent raw, its speed-up in the table), the WAN probe, the load averages and
# the paper's figures beside ours.  No timing is asserted: the speed-up is
# printed, not judged.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_cmd mpirun
require_cmd jq
require_cmd python3
GS=$GRIDBED_BUILD/experiments/gridstencil
[ -x "$GS" ] || bail "gridstencil not built at $GS"
OUT=$(mktemp -d /tmp/gb9013.XXXXXX)
trap 'rm -rf "$OUT"; gb_cleanup' EXIT

out=$("$GRIDBED_SRC/experiments/stencil-transatlantic.sh" --ci --build "$GRIDBED_BUILD" \
	--out "$OUT" --prefix "$GB_PREFIX" --rundir "$GRIDBED_RUNDIR" --variants no-compress 2>&1); st=$?
is "$st" 0 "stencil-transatlantic.sh --ci exits 0" || printf '%s\n' "$out" | tail -20 | sed 's/^/#   /'
like "$out" "running standard \(standard mode\)" "progress is reported"
for f in standard.csv grid.csv standard.json grid.json grid-events.csv summary.txt summary.json \
	grid-no-compress.csv grid-no-compress.json wan-probe.log uptime-before.txt; do
	ok "$([ -s "$OUT/$f" ] && echo 0 || echo 1)" "$f written"
done
if command -v gnuplot >/dev/null; then
	is "$(head -c 4 "$OUT/rate.png" 2>/dev/null | tail -c 3)" PNG "rate.png is a PNG"
else
	skip 1 "gnuplot is not installed"
fi
S=$OUT/summary.json
is "$(jq -r .identical "$S")" true "standard and grid-aware fields are bit-identical"
like "$(jq -r .speedup_mean "$S")" '^[0-9.]+(e[-+]?[0-9]+)?$' "a speed-up factor is reported"
diag "speed-up $(jq -r .speedup_mean "$S") (whole run), $(jq -r .speedup_second_half "$S") (second half)"
is "$(jq -r .runs.grid.topology "$S")" 1x4 "grid-aware topology on 64x256, 2 + 2: 1x4"
is "$(jq -r .runs.standard.topology "$S")" 2x2 "standard topology: 2x2"
is "$(jq -r '.wan_face_points' "$OUT/grid.json")" 64 "grid-aware: the machines meet on the short side"
is "$(jq -r '.wan_face_points' "$OUT/standard.json")" 256 "standard: on the long side"
# s4.1 follows the measured speeds (which the quotas make about 2:1 on an
# idle box; a busy box measures what it gives)
G=$OUT/grid.json
diag "measured speeds: $(jq -r '[.machines[] | "\(.name) \(.speed)"] | join(", ")' "$G")"
# Two speeds within 5 % of each other (a box busy enough to give the
# unquoted machine no more than the quota gives the other) are a tie, whose
# split may round either way: then the split is within 10 % of even.
is "$(jq -r '(.slabs[0:2] | add) as $a | (.slabs[2:4] | add) as $b |
	.machines[0].speed as $x | .machines[1].speed as $y |
	if $x > 1.05 * $y then $a > $b elif $y > 1.05 * $x then $b > $a
	else ($a - $b | fabs) <= 0.1 * ($a + $b) end' "$G")" \
	true "the machine that measured faster got more of the grid (a tie within 5 %: about even)"
like "$(jq -r .runs.grid.final_depth "$S")" '^[1-9][0-9]*$' "final ghost depth reported"
like "$(jq -r .runs.grid.groups_compressed "$S")" '^[0-9]+$' "groups compressed reported"
like "$(jq -r '.runs.grid.cpu_quotas | join(";")' "$S")" "0\\.0500 core.*0\\.1000 core" \
	"the ranks read back their hosts' CPU quotas (0.05 and 0.10 core)"
# session 41: fields, deflate ratios, the variant, the paper's figures
is "$(jq -r .runs.grid.fields "$S")" spectrum "the default fields: spectrum"
is "$(jq -r '[.runs.grid.deflate[] | select(. != null and .ratio > 0 and .ratio <= 1)] | length' "$S")" 9 \
	"a deflate ratio for each of the nine groups"
like "$(cat "$OUT/summary.txt")" "periodic0 +[0-9.]+ %" "summary.txt lists each group's deflated size"
N=$OUT/grid-no-compress.json
is "$(jq -r '.features.compress' "$N")" false "variant no-compress: compression off in its metadata"
is "$(jq -r '.results.wan_wire_bytes == .results.wan_raw_bytes' "$N")" true \
	"variant no-compress: every wide-area byte sent raw"
like "$(jq -r '.speedups["grid-no-compress"].mean' "$S")" '^[0-9.]+(e[-+]?[0-9]+)?$' \
	"the variant's speed-up is in the table"
is "$(jq -r .identical "$S")" true "and its fields are bit-identical too"
like "$(jq -r .paper.speedup_low "$S")" '^3$' "the paper's figures are printed beside ours"
like "$(cat "$OUT/wan-probe.log")" "rtt .* ms" "the WAN was probed"
out=$("$GRIDBED_SRC/experiments/stencil-transatlantic.sh" --per-cluster x 2>&1); st=$?
is "$st" 2 "bad option: exit 2"
out=$("$GRIDBED_SRC/experiments/stencil-transatlantic.sh" --variants no-lunch 2>&1); st=$?
is "$st" 2 "bad --variants: exit 2"
like "$out" "--variants: 'no-lunch' is not" "and names the option"
ok "$(ip netns list | grep -c "^$GB_PREFIX-" | grep -qx 0 && echo 0 || echo 1)" "the grid is gone"
done_testing
