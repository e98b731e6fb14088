#!/usr/bin/env bash
# 8019-gridexp-only-monitor: a campaign run in parts keeps its monitor.
# docs/architecture.md: gridmon runs for the whole campaign when an
# algorithm plans from measurements, so every algorithm's broadcasts share
# its probe traffic.  `--only mpich-g2` of a campaign that also has
# `adaptive` must start the monitor too, or MPICH-G2's run (session 14's
# split of teragrid-quick) would have a quieter network than adaptive's.
# The monitor here is the oracle (t/8018: no probing, so the test is quick);
# it is started by the same call as gridmon.  On two-clusters, a shape-mode
# 80 % cut of the WAN link during the mpich-g2 run: the monitor's session 1
# exists, its three versions were copied while mpich-g2 ran, version 2 (the
# cut) inside the load's interval.  Nothing is timed.
. "$(dirname "$0")/lib-netns.sh"
require_gridexp
gridexp_tmp 8019
plan 5

oracle_campaign "$tmp/c.yaml" only "mpich-g2, adaptive" true
like "$("$GX" run "$tmp/c.yaml" --only mpich-g2 --dry-run 2>&1)" \
	"^monitor: the oracle, .* through every run, also those of an algorithm that does not read it" \
	"--only mpich-g2 --dry-run: says the monitor runs through every run"
"$GX" run "$tmp/c.yaml" --only mpich-g2 --prefix "$GB_PREFIX" --out-root "$tmp/res" --no-plots \
	> "$tmp/run.out" 2> "$tmp/run.err"; st=$?
is "$st" 0 "--only mpich-g2 runs (exit 0)" || sed 's/^/#   /' "$tmp/run.err" | tail -20
dir=$(ls -d "$tmp"/res/only/2*/ 2>/dev/null | head -1)
dir=${dir%/}
is "$(ls "$dir/runs" 2>&1 | tr '\n' ' ')$( [ -e "$dir/monitor/gridmon-s1.log" ] && echo 'monitor session 1')" \
	"cut-mpich-g2-r1 monitor session 1" "one run, mpich-g2's, and the monitor's session 1"
iv=$(jq -r '.intervals[0] | map(tostring) | join(" ")' "$dir/runs/cut-mpich-g2-r1/go.json" 2>/dev/null)
is "$(awk -F, -v iv="$iv" 'BEGIN { split(iv, b, " ") }
	NR > 1 { t[$1] = $2; n++ }
	END { printf "%d versions; v2 %s", n, (2 in t && t[2] >= b[1] && t[2] <= b[2]) ? "inside the load" : "outside (" t[2] ", load " iv ")" }' \
	"$dir/monitor/versions-s1.csv" 2>&1)" \
	"3 versions; v2 inside the load" "the monitor followed the load during mpich-g2's run"
is "$(prefix_netns | wc -l)" 0 "the grid is down afterwards"
