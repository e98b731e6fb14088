#!/usr/bin/env bash
# 8013-gridexp-tcp-axis: the hosts' TCP stack as a campaign axis (issue 18).
# Three load conditions differ only in `tcp:` (slow start after idle off;
# none; reno with an initial window of 4); every run's run.json must record
# the stack its hosts really ran (read back from the grid), the conditions
# must not leak into each other (a condition without `tcp:` runs the
# topology's own stack again), and a congestion control the kernel lacks is
# refused before anything runs, with its place.  Nothing is timed.
. "$(dirname "$0")/lib-netns.sh"

require_gridexp

gridexp_tmp 8013

plan 6

camp() { # camp CONGESTION
	cat <<EOF
name: tcp-axis
topology: $TOPOS/two-clusters.yaml
scale: 0.02
seed: 1
algorithms: [mpich-g2]
app: {root: a-1, broadcasts: 2, size: 64K, gap: 20s}
load:
  - {name: ssai-off, tcp: {slow_start_after_idle: false}}
  - {name: plain}
  - {name: reno, tcp: {congestion: $1, initcwnd: 4}}
EOF
}
camp nosuchcc >"$tmp/bad.yaml"
out=$("$GX" run "$tmp/bad.yaml" --prefix "$GB_PREFIX" --out-root "$tmp/res" 2>&1); st=$?
is "$st" 2 "a congestion control the kernel lacks: exit 2"
like "$out" "^$tmp/bad.yaml:10:[0-9]+: load condition 'reno': congestion control 'nosuchcc' is not in this kernel" \
	"  file:line:col and the condition"

camp reno >"$tmp/camp.yaml"
"$GX" run "$tmp/camp.yaml" --prefix "$GB_PREFIX" --out-root "$tmp/res" \
	>"$tmp/out" 2>"$tmp/err"; st=$?
is "$st" 0 "the campaign runs (exit 0)" || tail -20 "$tmp/err" | sed 's/^/#   /'
dir=$(ls -d "$tmp"/res/tcp-axis/2*/ 2>/dev/null | head -1)
tcp_of() { jq -r '.tcp | map("\(.congestion) \(.slow_start_after_idle) \(.initcwnd) \(.hosts | length)") | join(";")' \
	"$dir/runs/$1-mpich-g2-r1/run.json" 2>/dev/null; }
is "$(tcp_of ssai-off)" "cubic false 0 8" "ssai-off: every host had slow start after idle off"
is "$(tcp_of plain)" "cubic true 0 8" "plain: the topology's stack again"
is "$(tcp_of reno)" "reno true 4 8" "reno: reno with an initial window of 4"
