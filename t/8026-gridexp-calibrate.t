#!/usr/bin/env bash
# 8026-gridexp-calibrate: `gridexp calibrate` and `run --dilate auto:K`
# (experiments/gridexp_calibrate.c) on two-clusters: the calibration runs
# real broadcasts of the campaign's largest size at k = 1, 1.5, 2, ... up to K
# and stops at the first k the fidelity monitor marks nothing; it prints one
# line per k tried and the choice, or, when every k up to K strayed, says so
# in one line and exits 1, and leaves no folder in /tmp and no namespace.
# `run --dilate auto:K` then runs the campaign at that k and keeps the table
# in calibrate.json (meta.json's dilate is its choice), or, with no faithful
# k up to K, refuses in that one line, exit 1, no results directory.  Which
# of the two happens is the box's (its load), not the code's: both are
# legitimate results, each checked for what it must say.  Refused without
# running anything: --dilate auto with --dry-run, a K not on the ladder, and
# a campaign whose algorithms all need the advisor.
#
# The time: every k runs the gaps k times longer on the wall clock, so the
# ladder is bounded (K = 2, about 10 s a k here) and the time scale small.
# The gap after the 64 KiB broadcast must stay more than twice that
# broadcast (virtual time, so at every k): on two-clusters one wide-area
# crossing is 5.14 ms one way (0.02 + 0.05 + 5 + 0.05 + 0.02 ms), an RTT of
# 10.3 ms, and 64 KiB + headers at 100 Mbit/s 5.4 ms; at worst a connect's
# RTT, the rendezvous's, and a cold window (slow start after idle, initcwnd
# 10: 10, 20, 15 segments, 2 RTTs more): 4 RTTs + 5.1 + 5.4 = 52 ms, so two
# crossings one after the other 104 ms, and twice that 0.21 s < the gap,
# 100 s x 0.003 = 0.3 s (measured: the slowest took 0.097 s at k = 1,
# strayed, 0.049 s at k = 2).  gridmon (the campaign has adaptive, so run
# starts it) keeps the 6 s period of the old scale 0.02.
source "$(dirname "$0")/lib-netns.sh"
require_gridexp

gridexp_tmp 8026

plan 19

K=2      # the ladder's k up to K: 1, 1.5, 2
cat > "$tmp/c.yaml" <<EOF2
name: cal-test
topology: $TOPOS/two-clusters.yaml
backend: auto
scale: 0.003
seed: 1
algorithms: [mpich-g2, native, adaptive]
app:
  root: a-1
  broadcasts: 4
  size: {first: 64K, last: 16K}
  gap: {first: 100s, factor: 0.9}
load: none
monitor: {period: 2000s, bytes_per_probe: 256K, rtt_count: 5}
EOF2
cals() { ls -d /tmp/gridexp-calibrate.* 2>/dev/null | wc -l; }
before=$(cals)
# the k of the ladder up to K, and a k's place on it
ladder=(1 1.5 2 3 5 10 20)
place() { local i; for i in "${!ladder[@]}"; do [ "${ladder[$i]}" = "$1" ] && echo $((i + 1)); done; }
nk=$(place $K)

out=$("$GX" calibrate "$tmp/c.yaml" --max-k $K --prefix "$GB_PREFIX" 2>"$tmp/cal.err"); st=$?
# ks_tried: the distinct k of calibrate's lines on stdin (a k marked while the
# hypervisor took 5 % of the CPUs' time is tried twice, two lines)
ks_tried() { grep -o '^calibrate: k = [0-9.]* *[0-9]* of' | awk '{print $4}' | sort -u | wc -l; }
lines=$(ks_tried <<<"$out")
k=$(sed -n 's/^calibrate: k = \([0-9.]*\), the smallest.*/\1/p' <<<"$out")
none=$(grep -c "^gridexp: calibrate: every k up to $K strayed: this machine cannot run cal-test faithfully" \
	"$tmp/cal.err")
diag "calibrate --max-k $K: exit $st, $lines k tried, chosen '${k}'"
like "$st" '^[01]$' "calibrate --max-k $K: exit 0 (a k found) or 1 (none up to K)"
like "$out" "^calibrate: k = 1 +[0-9]+ of 6 broadcasts and [0-9]+ of 2 runs strayed.*; the hypervisor took at most [0-9.]+ % of the CPUs' time in a run" \
	"a line for k = 1: 3 broadcasts of 64 KiB with each of the two algorithms that need no advisor, and the CPU time the hypervisor took"
if [ "$st" = 0 ]; then
	like "$k" '^(1|1\.5|2)$' "and the choice, a k of the ladder up to $K ($k)"
	is "$lines:$none" "$(place "$k"):0" "one line per k tried, up to the choice, and no 'every k strayed'"
else
	is "$k:$none" ":1" "none faithful up to $K: said in one line, and no choice"
	is "$lines" "$nk" "one line per k tried: every k up to $K"
fi
# a k marked only in some broadcasts (no run strayed as a whole) names
# them and why: "<run> broadcast <i>: <why>" (a box that marks none passes;
# GRIDBED_TAPD_THREADS=1 GRIDBED_TAPD_SPIN_BUDGET=0 makes marks likely)
unnamed=$(grep -E '^calibrate: k = [0-9.]+ +[1-9][0-9]* of [0-9]+ broadcasts and 0 of' <<<"$out" |
	grep -vE '; [a-z0-9-]+-r[0-9]+ broadcast [0-9]+: [^;]+')
is "$unnamed" "" "a k marked in some broadcasts only names each run's marked broadcasts and why"
is "$(cals)" "$before" "no calibration folder is left in /tmp"
is "$(prefix_netns | wc -l)" 0 "no namespace is left"
[ "$st" = 0 ] || [ "$none" = 1 ] || sed 's/^/#   /' "$tmp/cal.err" | tail -20

# a K not on the ladder: one line, exit 2, nothing run
out=$("$GX" calibrate "$tmp/c.yaml" --max-k 4 --prefix "$GB_PREFIX" 2>&1); st=$?
is "$st:$(wc -l <<<"$out"):$(cals):$(prefix_netns | wc -l)" "2:1:$before:0" \
	"calibrate --max-k 4: refused in one line, nothing run ($out)"
like "$out" "^gridexp: --max-k: '4' is not one of the calibration's k \(1, 1.5, 2, 3, 5, 10, 20\)$" \
	"  naming the option and the ladder"
out=$("$GX" run "$tmp/c.yaml" --dilate auto:7 --prefix "$GB_PREFIX" --out-root "$tmp/bad" 2>&1); st=$?
is "$st:$(wc -l <<<"$out"):$([ -e "$tmp/bad" ]; echo $?):$(cals)" "2:1:1:$before" \
	"run --dilate auto:7: refused in one line, no results directory ($out)"

out=$("$GX" run "$tmp/c.yaml" --dilate auto:$K --dry-run --prefix "$GB_PREFIX" 2>&1); st=$?
is "$st:$(wc -l <<<"$out")" "2:1" "run --dilate auto:$K --dry-run: refused in one line ($out)"

sed 's/^algorithms: .*/algorithms: [adaptive]/' "$tmp/c.yaml" > "$tmp/adv.yaml"
out=$("$GX" calibrate "$tmp/adv.yaml" --max-k $K --prefix "$GB_PREFIX" 2>&1); st=$?
ok $([ "$st" = 2 ] && grep -q 'no algorithm that runs without the advisor' <<<"$out"; echo $?) \
	"a campaign of advisor algorithms only: exit 2, and why"

# a campaign with loads: the calibration holds the heaviest interval (the
# link in both directions at 60 %: two flows of 60 Mbit/s, against one of
# 30) through its runs, and says so in its first line; k = 1 alone, either
# outcome
sed -e 's/^algorithms: .*/algorithms: [mpich-g2]/' -e '/^load: none$/d' "$tmp/c.yaml" > "$tmp/load.yaml"
cat >> "$tmp/load.yaml" <<'EOF3'
load:
  name: two
  loads:
    - {start: 0s, duration: 50s, fraction: 30%, src: a-2, dst: b-2}
    - {start: 60s, duration: 50s, fraction: 60%, link: siteA-siteB}
EOF3
out=$("$GX" calibrate "$tmp/load.yaml" --max-k 1 --prefix "$GB_PREFIX" 2>&1); st=$?
like "$(head -n 1 <<<"$out")" "^gridexp: calibrate: the largest broadcast of cal-test, 3 times [0-9.]+ s apart \(its scaled gap\) with 1 algorithm, under a load of 60 % of siteA-siteB, at k = 1 until" \
	"calibrate of a campaign with loads: its heaviest interval held, named in the first line"
is "$st:$(cals):$(prefix_netns | wc -l)" "$(grep -q '^calibrate: k = 1, the smallest' <<<"$out" && echo 0 || echo 1):$before:0" \
	"  exit 0 with k = 1 chosen, else 1; nothing left"
[ "$st" -le 1 ] || sed 's/^/#   /' <<<"$out" | tail -20

# run --dilate auto:K calibrates again (the box may have changed): either
# outcome, each checked
"$GX" run "$tmp/c.yaml" --dilate auto:$K --only mpich-g2 --prefix "$GB_PREFIX" --out-root "$tmp/res" \
	--no-plots >"$tmp/run.out" 2>"$tmp/run.err"; st=$?
diag "run --dilate auto:$K: exit $st"
if [ "$st" = 0 ]; then
	dir=$(ls -d "$tmp"/res/cal-test/*/ 2>/dev/null | head -1)
	chosen=$(jq -r '.chosen' "$dir/calibrate.json" 2>/dev/null)
	ok 0 "run --dilate auto:$K: exit 0, a k found"
	like "$chosen:$(jq -r '.max_k' "$dir/calibrate.json" 2>/dev/null)" "^(1|1\.5|2)(\.0)?:$K(\.0)?$" \
		"calibrate.json beside meta.json says the k chosen ($chosen) and K"
	like "$(jq -r '.tried[0] | "\(.max_cpu_steal_share) \(.again) \(.why | type)"' "$dir/calibrate.json" 2>/dev/null)" \
		'^(0|0?\.[0-9]+|[0-9.]+e-[0-9]+) (true|false) string$' \
		"and, for each k tried, the largest share of the CPUs' time the hypervisor took in a run, whether it was a second try, and why runs strayed"
	is "$(jq -r '.dilate' "$dir/meta.json" 2>/dev/null | sed 's/\.0$//')" "${chosen%.0}" \
		"and the run was made at that k (meta.json dilate)"
else
	msg=$(grep -c "^gridexp: calibrate: every k up to $K strayed: .*; not run$" "$tmp/run.err")
	is "$st:$msg" "1:1" "run --dilate auto:$K: none faithful up to $K, exit 1, said in one line"
	is "$(ks_tried <"$tmp/run.out")" "$nk" \
		"one line per k tried: every k up to $K"
	is "$([ -e "$tmp/res" ]; echo $?):$(cals)" "1:$before" "and nothing left: no results directory"
	is "$(grep '^calibrate: k = [0-9.]* *[0-9]* of' "$tmp/run.out" | grep -vc "; the hypervisor took at most [0-9.]* % of the CPUs' time in a run")" 0 \
		"and each k's line names the CPU time the hypervisor took"
fi
is "$(prefix_netns | wc -l)" 0 "no namespace is left after the run"
[ "$st" = 0 ] || [ "${msg:-0}" = 1 ] || sed 's/^/#   /' "$tmp/run.err" | tail -20
done_testing
