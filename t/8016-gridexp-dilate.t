#!/usr/bin/env bash
# 8016-gridexp-dilate: a campaign on a time-dilated grid (issue 16;
# docs/architecture.md, decision 9).  `dilate: 4` brings the grid up with
# --dilate 4; synthapp stretches its schedule by 4 on the wall clock and
# divides what it reports by 4; meta.json, every broadcasts.csv row and
# summary.txt say k.  The checks are arithmetic on the run's own clock
# readings, not timing: completion_time x 4 is the root-to-last-rank span
# of ranks.csv's raw t_begin/t_end, and planned starts are 4 x the scaled
# gaps apart.  Bad factors are refused with the place named.
. "$(dirname "$0")/lib-netns.sh"

require_gridexp

gridexp_tmp 8016

plan 12

# --- bad input --------------------------------------------------------------
camp() { # camp FILE DILATE-LINE
	cat > "$1" <<EOF
name: dil
topology: $TOPOS/two-clusters.yaml
$2
scale: 0.01
algorithms: [mpich-g2]
app:
  root: a-1
  broadcasts: 4
  size: {first: 64K, last: 16K}
  gap: {first: 50s, factor: 0.9}
EOF
}
camp "$tmp/bad.yaml" "dilate: 0.5"
out=$("$GX" run "$tmp/bad.yaml" --prefix "$GB_PREFIX" --out-root "$tmp/res" 2>&1); st=$?
is "$st $out" "2 $tmp/bad.yaml:3:9: dilate 0.5 is not in [1, 1000]" \
	"dilate: 0.5 in the campaign: exit 2, file:line:col"
camp "$tmp/c.yaml" "dilate: 4"
out=$("$GX" run "$tmp/c.yaml" --dilate 0 --prefix "$GB_PREFIX" --out-root "$tmp/res" 2>&1); st=$?
is "$st $out" "2 gridexp: --dilate: '0' is not a number in [1, 1000] or auto" "--dilate 0: exit 2, one line"
is "$(prefix_netns | wc -l)$( [ -e "$tmp/res" ] && echo ' results')" 0 "  no grid, no results"

# --- the campaign -----------------------------------------------------------
"$GX" run "$tmp/c.yaml" --prefix "$GB_PREFIX" --out-root "$tmp/res" --no-plots \
	> "$tmp/run.out" 2> "$tmp/run.err"; st=$?
is "$st" 0 "a campaign at dilate 4 runs (exit 0)" || sed 's/^/#   /' "$tmp/run.err" | tail -20
dir=$(ls -d "$tmp"/res/dil/2*/ 2>/dev/null | head -1)
dir=${dir%/}
run=$dir/runs/$(ls "$dir/runs" 2>/dev/null | head -1)
is "$(jq .dilate "$dir/meta.json" 2>/dev/null)" 4 "meta.json: dilate 4"
is "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "dilate") c = i; next }
	{ print $c }' "$run/broadcasts.csv" 2>/dev/null | sort -u)" 4 "every broadcasts.csv row: dilate 4"
like "$(cat "$dir/summary.txt" 2>/dev/null)" "time dilation x4 \\(times are the topology's" \
	"summary.txt says it"
is "$(jq .dilate "$dir/summary.json" 2>/dev/null)" 4 "summary.json too"
# completion_time = (max over ranks of t_end - the root's t_begin) / 4
bad=$(awk -F, '
	NR == FNR { if (FNR == 1) { for (i = 1; i <= NF; i++) { if ($i == "index") ix = i; if ($i == "completion_time") cc = i } }
		    else comp[$ix] = $cc; next }
	FNR == 1 { for (i = 1; i <= NF; i++) { h[$i] = i }; next }
	{ i = $h["index"]; if ($h["parent"] == -1) t0[i] = $h["t_begin"]
	  if (!(i in te) || $h["t_end"] > te[i]) te[i] = $h["t_end"] }
	END { n = 0; for (i in comp) { d = (te[i] - t0[i]) / 4 - comp[i]; if (d < -1e-6 || d > 1e-6) n++; m++ }
	      print n + 0, m + 0 }' "$run/broadcasts.csv" "$run/ranks.csv" 2>/dev/null)
is "$bad" "0 4" "completion_time is the ranks' raw span / 4, for all 4 broadcasts"
# planned starts: 4 x 0.01 x (50 s, 45 s, 40.5 s) apart
gaps=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "planned_start") c = i; next }
	{ if (p != "") printf "%.3f ", $c - p; p = $c }' "$run/broadcasts.csv" 2>/dev/null)
is "$gaps" "2.000 1.800 1.620 " "planned starts are the scaled gaps x 4 apart on the wall clock"
# wan.csv's window is the broadcast's on the wall clock: completion_time x 4
cr=$(jq '.algorithms["mpich-g2"].crossings.mean' "$dir/summary.json" 2>/dev/null)
ok "$(awk -v c="$cr" 'BEGIN { exit !(c >= 0.95 && c <= 1.5) }'; echo $?)" \
	"MPICH-G2's payload crossed the WAN link once, counted over the dilated span (crossings $cr)"
is "$(prefix_netns | wc -l)" 0 "the grid is down afterwards"
