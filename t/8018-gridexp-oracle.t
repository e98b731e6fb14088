#!/usr/bin/env bash
# 8018-gridexp-oracle: `monitor: {oracle: true}` (experiments/gridexp_oracle.c,
# issue 13's perfect monitor).  No gridmon runs; the matrix the advisor
# reads is the emulator's configuration (`gridmon --print-configured`,
# labelled "oracle"), with the load's links at (1 - fraction) of their rate
# while the load is on.  On two-clusters, a shape-mode 80 % cut of the WAN
# link (both directions) from 60 s to 150 s of paper time, inside a 6-broadcast
# application at scale 0.02: the copies in monitor/ are version 1 (idle),
# 2 (a -> b and b -> a at 20 % of 100 Mbit/s), 3 (idle again), all marked
# oracle, and versions-s1.csv saw version 2 while the load was on.  Nothing
# is timed: the checks are on files.  A bad value is
# refused with the place named.
. "$(dirname "$0")/lib-netns.sh"
require_gridexp
gridexp_tmp 8018
plan 8

oracle_campaign "$tmp/bad.yaml" orc adaptive maybe
out=$("$GX" run "$tmp/bad.yaml" --prefix "$GB_PREFIX" --out-root "$tmp/res" 2>&1); st=$?
like "$st $(printf '%s' "$out" | wc -l) $out" "^2 0 $tmp/bad.yaml:15:[0-9]+: oracle must be true or false" \
	"oracle: maybe: exit 2, one line, file:line:col"
is "$(prefix_netns | wc -l)$( [ -e "$tmp/res" ] && echo ' results')" 0 "  no grid, no results"

oracle_campaign "$tmp/c.yaml" orc adaptive true
"$GX" run "$tmp/c.yaml" --prefix "$GB_PREFIX" --out-root "$tmp/res" --no-plots \
	> "$tmp/run.out" 2> "$tmp/run.err"; st=$?
is "$st" 0 "a campaign with the oracle runs (exit 0)" || sed 's/^/#   /' "$tmp/run.err" | tail -20
like "$(cat "$tmp/run.err")" "monitor: ORACLE" "it says the monitor is the oracle"
dir=$(ls -d "$tmp"/res/orc/2*/ 2>/dev/null | head -1)
dir=${dir%/}
vs=$(for f in "$dir"/monitor/matrix-s1-v*.json; do
	jq -r '[.version, .oracle, .bw[0][4], .bw[4][0]] | map(tostring) | join(":")' "$f" 2>/dev/null
done | tr '\n' ' ')
is "$vs" "1:true:12500000:12500000 2:true:2500000:2500000 3:true:12500000:12500000 " \
	"versions: idle, the WAN link at 20 % both ways while the load is on, idle again"
# monitor/versions-s1.csv: when each version was seen, on go.json's clock
iv=$(jq -r '.intervals[0] | map(tostring) | join(" ")' "$dir/runs/cut-adaptive-r1/go.json" 2>/dev/null)
is "$(awk -F, -v iv="$iv" 'BEGIN { split(iv, b, " ") }
	NR > 1 { t[$1] = $2; n++ }
	END { printf "%d versions; v2 %s; v3 %s", n, (2 in t && t[2] >= b[1] && t[2] <= b[2]) ? "inside the load" : "outside (" t[2] ", load " iv ")",
	      (3 in t && t[3] >= b[2]) ? "after it" : "before its end (" t[3] ")" }' "$dir/monitor/versions-s1.csv" 2>&1)" \
	"3 versions; v2 inside the load; v3 after it" \
	"monitor/versions-s1.csv: the load's version seen while it was on, the idle one after"
is "$(awk -F, 'NR > 1' "$dir"/runs/*/broadcasts.csv 2>/dev/null | wc -l)" 6 "6 broadcasts recorded"
is "$(prefix_netns | wc -l)" 0 "the grid is down afterwards"
