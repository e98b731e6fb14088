#!/usr/bin/env bash
# 8026-gridexp-calibrate: `gridexp calibrate` and `run --dilate auto`
# (experiments/gridexp_calibrate.c) on two-clusters: the calibration runs
# real broadcasts of the campaign's largest size at k = 1, 2, ... and stops
# at the first k the fidelity monitor marks nothing; it prints one line per
# k tried and the choice, and leaves no folder in /tmp and no namespace.
# `run --dilate auto` then runs the campaign at that k and keeps the table
# in calibrate.json.  Refused without running anything: --dilate auto with
# --dry-run, and a campaign whose algorithms all need the advisor.
source "$(dirname "$0")/lib-netns.sh"
require_gridexp

gridexp_tmp 8026

plan 11

cat > "$tmp/c.yaml" <<EOF
name: cal-test
topology: $TOPOS/two-clusters.yaml
backend: auto
scale: 0.02
seed: 1
algorithms: [mpich-g2, native, adaptive]
app:
  root: a-1
  broadcasts: 4
  size: {first: 64K, last: 16K}
  gap: {first: 100s, factor: 0.9}
load: none
monitor: {period: 300s, bytes_per_probe: 256K, rtt_count: 5}
EOF
cals() { ls -d /tmp/gridexp-calibrate.* 2>/dev/null | wc -l; }
before=$(cals)

out=$("$GX" calibrate "$tmp/c.yaml" --prefix "$GB_PREFIX" 2>"$tmp/cal.err"); st=$?
is "$st" 0 "calibrate: exit 0"
like "$out" "^calibrate: k = 1 +[0-9]+ of 6 broadcasts and [0-9]+ of 2 runs strayed" \
	"a line for k = 1: 3 broadcasts of 64 KiB with each of the two algorithms that need no advisor"
k=$(sed -n 's/^calibrate: k = \([0-9.]*\), the smallest.*/\1/p' <<<"$out")
like "$k" '^(1|2|3|5|10|20)$' "and the choice, a k of the ladder ($k)"
like "$(grep -c '^calibrate: k = [0-9.]* *[0-9]* of' <<<"$out")" '^[1-6]$' "one line per k tried"
is "$(cals)" "$before" "no calibration folder is left in /tmp"
is "$(prefix_netns | wc -l)" 0 "no namespace is left"
[ "$st" = 0 ] || sed 's/^/#   /' "$tmp/cal.err" | tail -20

out=$("$GX" run "$tmp/c.yaml" --dilate auto --dry-run --prefix "$GB_PREFIX" 2>&1); st=$?
is "$st:$(wc -l <<<"$out")" "2:1" "run --dilate auto --dry-run: refused in one line ($out)"

sed 's/^algorithms: .*/algorithms: [adaptive]/' "$tmp/c.yaml" > "$tmp/adv.yaml"
out=$("$GX" calibrate "$tmp/adv.yaml" --prefix "$GB_PREFIX" 2>&1); st=$?
ok $([ "$st" = 2 ] && grep -q 'no algorithm that runs without the advisor' <<<"$out"; echo $?) \
	"a campaign of advisor algorithms only: exit 2, and why"

"$GX" run "$tmp/c.yaml" --dilate auto --only mpich-g2 --prefix "$GB_PREFIX" --out-root "$tmp/res" \
	--no-plots >"$tmp/run.out" 2>"$tmp/run.err"; st=$?
is "$st" 0 "run --dilate auto: exit 0"
dir=$(ls -d "$tmp"/res/cal-test/*/ 2>/dev/null | head -1)
chosen=$(jq -r '.chosen' "$dir/calibrate.json" 2>/dev/null)
like "$chosen" '^(1|2|3|5|10|20)(\.0)?$' "calibrate.json beside meta.json says the k chosen ($chosen)"
is "$(jq -r '.dilate' "$dir/meta.json" 2>/dev/null | sed 's/\.0$//')" "${chosen%.0}" \
	"and the run was made at that k (meta.json dilate)"
done_testing
