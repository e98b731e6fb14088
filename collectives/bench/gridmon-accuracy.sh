#!/usr/bin/env bash
# gridmon-accuracy.sh - benchmark, not a test: gridmon's cluster-level latency
# and bandwidth against the configured path values (the labelled oracle,
# gridmon --print-configured), idle, and the probe cost per period.
#   usage: collectives/bench/gridmon-accuracy.sh [TOPOLOGY] [BYTES_PER_PROBE] [ROUNDS]
# Needs root and a build in $GRIDBED_BUILD (default build/).
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${GRIDBED_BUILD:-$src/build}
topo=${1:-$src/topologies/teragrid.yaml}
bytes=${2:-4M}
rounds=${3:-3}
export GRIDBED_PREFIX=${GRIDBED_PREFIX:-gmb$$} GRIDBED_RUNDIR=${GRIDBED_RUNDIR:-/run/gridbed-bench}
tmp=$(mktemp -d)
trap '"$build/emulator/gridemu" down >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
"$build/emulator/gridemu" up "$topo" >/dev/null
"$build/collectives/gridmon" --print-configured --out "$tmp/oracle.json"
printf 'round,src,dst,lat_cfg_ms,lat_meas_ms,lat_ratio,bw_cfg_MBps,bw_meas_MBps,bw_ratio,bytes_sent,round_s\n'
for r in $(seq "$rounds"); do
	"$build/collectives/gridmon" --once --bytes-per-probe "$bytes" --out "$tmp/m.json"
	jq -r --argjson r "$r" --slurpfile o "$tmp/oracle.json" '
	  .clusters as $c | $o[0].clusters as $k | range(0; $c.clusters | length) as $a |
	  range(0; $c.clusters | length) as $b | select($c.lat[$a][$b] != null and $k.lat[$a][$b] != null) |
	  [$r, $c.clusters[$a], $c.clusters[$b], $k.lat[$a][$b] * 1e3, $c.lat[$a][$b] * 1e3,
	   $c.lat[$a][$b] / $k.lat[$a][$b], $k.bw[$a][$b] / 1e6, $c.bw[$a][$b] / 1e6,
	   (if $k.bw[$a][$b] > 0 then $c.bw[$a][$b] / $k.bw[$a][$b] else null end),
	   $c.bytes_sent, $c.round_seconds] | @csv' "$tmp/m.json"
done
