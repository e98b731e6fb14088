#!/usr/bin/env bash
# gridmon-accuracy.sh - benchmark, not a test: gridmon's cluster-level
# latency and bandwidth against the configured path values, on teragrid,
# idle and under a 70 % load, and gridmon's probe cost per period.
#
# States (one gridmon round each, --rounds N for more):
#   idle     nothing else on the grid;
#   shape    gridload flow c3-2 c2-2 --mode shape --fraction 0.7: the
#            bottleneck direction of the path NCSA -> SDSC (the paper loads
#            links to/from C3; its root is in C2) runs at 30 % of its rate;
#   traffic  the same as a CBR UDP flow at 70 % of the path's bottleneck.
# Expected values come from `gridmon --print-configured` (the labelled
# oracle: the emulator's live configuration, path delay and bottleneck):
# idle and shape read it in that state; traffic uses the shape state's
# oracle, i.e. the bandwidth a 70 % flow should leave on the pairs whose
# path crosses the loaded bottleneck (an approximation for pairs that share
# only another link of the flow's path).  Latency is compared with the
# configured one-way path delay (gridmon reports RTT/2).
#
# usage: gridmon-accuracy.sh [--out FILE.csv] [--bytes 4M] [--rounds 1]
#                            [--mon "GRIDMON OPTIONS"] [--build DIR]
#                            [--topology FILE] [--dilate K]
# --mon passes options to every gridmon round, e.g. --mon "--fixed" (the
# fixed-size transfer) or --mon "--concurrency 1" (one pair at a time).
# --dilate K brings the grid up dilated K times (gridemu up --dilate): the
# figures stay in the topology's units, round_s included.
# Needs root and jq.  Prints a table, writes the CSV atomically.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
build=${GRIDBED_BUILD:-$src/build}
me=gridmon-accuracy.sh
. "$src/util/bench/lib-bench.sh"
topo=$src/topologies/teragrid.yaml
out=gridmon-accuracy.csv
bytes=4M
rounds=1
mon=
dilate=1
bench_parse 30 "out bytes rounds mon build topology=topo dilate" "$@"
GRIDEMU=$build/emulator/gridemu
GRIDMON=$build/collectives/gridmon
GRIDLOAD=$build/loadgen/gridload
bench_built "$GRIDEMU" "$GRIDMON" "$GRIDLOAD"
bench_need 2 jq root

bench_grid gm
load_pid=
cleanup() {
	bench_stop "$load_pid"
	"$GRIDLOAD" restore >/dev/null 2>&1
	bench_grid_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$GRIDEMU" up "$topo" --dilate "$dilate" --quiet || { echo "gridmon-accuracy.sh: cannot bring the grid up" >&2; exit 1; }

# measure STATE ORACLE: gridmon rounds, one CSV row per measured cluster pair
measure() {
	local state=$1 oracle=$2 r
	for r in $(seq "$rounds"); do
		# shellcheck disable=SC2086 # $mon is a list of options
		"$GRIDMON" --once --bytes-per-probe "$bytes" --rtt-count 10 $mon --out "$tmp/m.json" \
			2>>"$tmp/mon.err" || { echo "gridmon failed ($state)" >&2; continue; }
		jq -r --arg s "$state" --argjson r "$r" --slurpfile o "$oracle" '
		  .clusters as $c | $o[0].clusters as $k | range(0; $c.clusters | length) as $a |
		  range(0; $c.clusters | length) as $b |
		  select($c.lat[$a][$b] != null and $k.lat[$a][$b] != null and $k.bw[$a][$b] > 0) |
		  [$s, $r, $c.clusters[$a], $c.clusters[$b], $k.lat[$a][$b] * 1e3,
		   $c.lat[$a][$b] * 1e3, $c.lat[$a][$b] / $k.lat[$a][$b], $k.bw[$a][$b] * 8 / 1e6,
		   $c.bw[$a][$b] * 8 / 1e6, $c.bw[$a][$b] / $k.bw[$a][$b], $c.bytes_sent,
		   $c.round_seconds] | @csv' "$tmp/m.json" >>"$tmp/rows.csv"
	done
}

# load MODE: a 70 % load on c3-2 -> c2-2, long enough for the rounds
load() {
	"$GRIDLOAD" flow c3-2 c2-2 --mode "$1" --fraction 0.7 --duration "$((rounds * 240))s" \
		--log "$tmp/load-$1.csv" >"$tmp/load.out" 2>&1 &
	load_pid=$!
	sleep 2
}
stop_load() { kill "$load_pid" 2>/dev/null; wait "$load_pid" 2>/dev/null; load_pid=; "$GRIDLOAD" restore >/dev/null 2>&1; }

: >"$tmp/rows.csv"
"$GRIDMON" --print-configured --out "$tmp/oracle-idle.json"
measure idle "$tmp/oracle-idle.json"
load shape
"$GRIDMON" --print-configured --out "$tmp/oracle-shape.json"
measure shape "$tmp/oracle-shape.json"
stop_load
load traffic
measure traffic "$tmp/oracle-shape.json"
stop_load

# the pairs the load should affect: expected bandwidth below 90 % of idle
jq -r --slurpfile i "$tmp/oracle-idle.json" '.clusters as $k | $i[0].clusters as $c |
  range(0; $k.clusters | length) as $a | range(0; $k.clusters | length) as $b |
  select($k.bw[$a][$b] != null and $c.bw[$a][$b] != null and
	 $k.bw[$a][$b] < 0.9 * $c.bw[$a][$b]) | "\($k.clusters[$a]),\($k.clusters[$b])"' \
	"$tmp/oracle-shape.json" >"$tmp/loaded.txt"

# stats: "p50 [min,max]" of the numbers on stdin
stats() { sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.3f [%.2f,%.2f]", v[int((NR + 1) / 2)], v[1], v[NR]; else printf "-" }'; }
# col STATE N [loaded|other]: column N of the state's rows (optionally only loaded pairs)
col() {
	tr -d '"' <"$tmp/rows.csv" | awk -F, -v s="$1" -v c="$2" -v w="${3:-all}" -v lf="$tmp/loaded.txt" '
	BEGIN { while ((getline l < lf) > 0) L[l] = 1 }
	$1 == s && (w == "all" || (w == "loaded") == (($3 "," $4) in L)) { print $c }'
}
backend=$("$GRIDEMU" status | awk -F'backend ' 'NR == 1 {split($2, a, ")"); print a[1]}')
echo "gridmon accuracy on $(basename "$topo") ($backend backend, dilated x$dilate), $bytes per pair${mon:+, gridmon $mon}, $rounds round(s)" \
	"per state, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)," \
	"per state; load: 70 % on c3-2 -> c2-2; loaded pairs: $(tr '\n' ' ' <"$tmp/loaded.txt")"
printf '%-8s %5s %22s %22s %22s %22s %12s %8s\n' state pairs "lat ratio p50 [min,max]" \
	"bw ratio, all pairs" "bw ratio, loaded" "bw ratio, others" "bytes/round" "round_s"
for s in idle shape traffic; do
	n=$(col $s 1 | wc -l)
	by=$(col $s 11 | sort -g | tail -n 1)
	rs=$(col $s 12 | awk '{ t += $1; n++ } END { if (n) printf "%.1f", t / n }')
	printf '%-8s %5d %22s %22s %22s %22s %12s %8s\n' $s "$n" "$(col $s 7 | stats)" \
		"$(col $s 10 | stats)" "$(col $s 10 loaded | stats)" "$(col $s 10 other | stats)" \
		"${by:--}" "${rs:--}"
done
echo "ratios: measured / configured (lat: the one-way path delay; bw: the path bottleneck at the"
echo "IP layer, so TCP payload tops out near 0.965); loaded = pairs whose expected bandwidth is"
echo "below 90 % of idle; bytes/round = gridmon's probe traffic per period (every pair's TCP"
echo "transfer and UDP echoes)"
{
	echo "state,round,src,dst,lat_cfg_ms,lat_meas_ms,lat_ratio,bw_exp_mbps,bw_meas_mbps,bw_ratio,bytes_sent,round_s"
	tr -d '"' <"$tmp/rows.csv"
} >"$out.tmp" && mv "$out.tmp" "$out"
echo "wrote $out"
