#!/usr/bin/env bash
# 8023-gridexp-stripes: a campaign's stripes by message size reach the ranks.
# `app: {stripes: '256K:3,1'}` (docs/formats.md) is every algorithm's table
# unless its label says `@SEGMENT:K`; gridexp passes it on as GRIDBED_STRIPES
# and the record of every broadcast says how many trees its segments went
# down (broadcasts.csv `stripes`).  On two-clusters, 8 ranks, MPICH-G2's
# static tree cut into 32 KiB segments, a sweep of 128 KiB and 512 KiB:
#   mpich-g2@32K     the table: 3 trees at 128 KiB, 1 at 512 KiB
#   mpich-g2@32K:2   its label: 2 trees at both sizes
# meta.json keeps each algorithm's setting.  Nothing is timed.
. "$(dirname "$0")/lib-netns.sh"
require_gridexp
gridexp_tmp 8023
plan 5

cat > "$tmp/c.yaml" <<CAMPAIGN
name: stripes
topology: $TOPOS/two-clusters.yaml
scale: 0.02
algorithms: [mpich-g2@32K, 'mpich-g2@32K:2']
app:
  root: a-1
  sizes: [128K, 512K]
  reps: 1
  gap: 5s
  stripes: '256K:3,1'
CAMPAIGN
"$GX" run "$tmp/c.yaml" --prefix "$GB_PREFIX" --out-root "$tmp/res" --no-plots \
	> "$tmp/run.out" 2> "$tmp/run.err"; st=$?
is "$st" 0 "the campaign runs (exit 0)" || sed 's/^/#   /' "$tmp/run.err" | tail -20
dir=$(ls -d "$tmp"/res/stripes/2*/ 2>/dev/null | head -1)
dir=${dir%/}
# size:stripes of every broadcast of run $1, in order
per_run() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ printf "%s%s:%s", (NR > 2 ? " " : ""), $c["size"], $c["stripes"] }' \
		"$dir/runs/$1/broadcasts.csv" 2>&1
}
is "$(per_run unloaded-mpich-g2_32K-r1)" "131072:3 524288:1" \
	"the application's table: 3 trees at 128 KiB, 1 at 512 KiB"
is "$(per_run unloaded-mpich-g2_32K_2-r1)" "131072:2 524288:2" \
	"a label's K: 2 trees at every size"
is "$(jq -c '[.campaign.algorithms[].stripes]' "$dir/meta.json" 2>&1)" '["262144:3,1",2]' \
	"meta.json keeps each algorithm's stripes"
is "$(prefix_netns | wc -l)" 0 "the grid is down afterwards"
