#!/usr/bin/env bash
# 1007-emu-health: a grid whose delay line is dead or stalled says so
# (issue 16, "Health"): with gridemu-tapd stopped (SIGSTOP) `gridemu status`
# reports the data plane stalled and exits 1; killed, it reports it not
# running and exits 1; `status --json` has healthy: false and the reason;
# down still removes everything.  A healthy grid exits 0 with healthy: true.
# Tap backend only: the netem backend has no helper process.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_cmd jq

"$GRIDEMU" up --backend tap "$TOPOS/two-clusters.yaml" >/dev/null 2>&1 ||
	skip_all "the tap backend cannot come up here"
pid=$(cat "$GRIDBED_RUNDIR/$GB_PREFIX/tapd.pid" 2>/dev/null)
trap 'st=$?; [ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null; (exit $st); gb_cleanup' EXIT

plan 8

out=$("$GRIDEMU" status --json); st=$?
is "$st $(printf '%s' "$out" | jq -c '[.healthy, .health]')" '0 [true,"ok"]' \
	"a healthy grid: exit 0, healthy"

kill -STOP "$pid"
out=$("$GRIDEMU" status 2>&1); st=$?
is "$st" 1 "delay line stopped: status exits 1"
like "$out" "DATA PLANE BROKEN: the delay line gridemu-tapd \\(pid $pid\\) is stalled" \
	"  and says it is stalled"

kill -KILL "$pid"
kill -CONT "$pid" 2>/dev/null
for _ in $(seq 50); do [ -d "/proc/$pid" ] && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ] || break; sleep 0.1; done
out=$("$GRIDEMU" status --json); st=$?
is "$st" 1 "delay line killed: status --json exits 1"
is "$(printf '%s' "$out" | jq -r .healthy)" false "  healthy: false"
like "$(printf '%s' "$out" | jq -r .health)" "gridemu-tapd \\(pid $pid\\) is not running" \
	"  health says why"

t "down still works" "$GRIDEMU" down
is "$(prefix_netns | wc -l)" 0 "nothing is left"
