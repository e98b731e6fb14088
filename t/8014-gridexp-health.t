#!/usr/bin/env bash
# 8014-gridexp-health: a run whose data plane broke (the tap backend's delay
# line killed while the run was going on) is recorded as failed, with the
# reason, and the campaign's exit status says so (issue 16, "Health").
# Nothing is timed; the campaign's own timeout (20 s) bounds the run.
. "$(dirname "$0")/lib-netns.sh"

require_gridexp

gridexp_tmp 8014

cat >"$tmp/camp.yaml" <<EOF
name: health
topology: $TOPOS/two-clusters.yaml
backend: tap
scale: 0.02
algorithms: [mpich-g2]
app: {root: a-1, broadcasts: 40, size: 64K, gap: 50s}
timeout: 20s
EOF

plan 4

"$GX" run "$tmp/camp.yaml" --prefix "$GB_PREFIX" --out-root "$tmp/res" >"$tmp/out" 2>"$tmp/err" &
gx=$!
# the delay line, once the run has begun (its go.json is written)
for _ in $(seq 300); do
	ls "$tmp"/res/health/*/runs/*/go.json >/dev/null 2>&1 && break
	sleep 0.1
done
pid=$(cat "$GRIDBED_RUNDIR/$GB_PREFIX/tapd.pid" 2>/dev/null)
ok "$([ -n "$pid" ]; echo $?)" "the run started on a tap grid (delay line pid ${pid:-?})"
kill -KILL "$pid" 2>/dev/null
wait $gx; st=$?
is "$st" 1 "gridexp exits 1: a run failed"
dir=$(ls -d "$tmp"/res/health/2*/ 2>/dev/null | head -1)
is "$(jq -r .status "$dir/runs/unloaded-mpich-g2-r1/run.json" 2>/dev/null)" "failed: data plane broken" \
	"run.json: failed, data plane broken"
like "$(jq -r .reason "$dir/runs/unloaded-mpich-g2-r1/run.json" 2>/dev/null)" "gridemu-tapd.*not running" \
	"  with the reason"
