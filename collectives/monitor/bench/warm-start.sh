#!/usr/bin/env bash
# warm-start.sh - benchmark, not a test: gridmon --warm against the cold
# probe, round by round, on one grid.  Each variant is one gridmon process
# of 4 rounds, a period apart, as a campaign's monitor runs:
#   round 1  idle     (cold either way: no reading yet)
#   round 2  idle     (--warm: the windows of round 1)
#   round 3  loaded   (--warm: the windows of an idle round, the worst case:
#                     the load began since the pair's last reading)
#   round 4  loaded   (--warm: the windows of round 3)
# The load is a CBR UDP flow at 70 % of c3-2 -> c2-2's path (gridload flow
# --mode traffic), started when round 2 ends.  Per round: its duration
# (topology time, from the probe log), and each pair's bandwidth over the
# idle configuration's (gridmon --print-configured), p50 [min, max], over
# the pairs the load touches and over the others.  The load touches the
# pairs from c3 (its representative c3-1 shares c3's uplink out with
# c3-2) and those into c2 (c2-2, the representative since c2-1 is the
# campaigns' root, receives the load itself); a CBR flow at 70 % leaves them
# 0.3 of the path, and TCP against it reads about 0.45 (session 39).
#
# usage: warm-start.sh [--topology FILE] [--dilate K] [--period S]
#                      [--mon "GRIDMON OPTIONS"] [--build DIR]
# Defaults: topologies/teragrid-public.yaml, k = 4, a period of 15 s of
# topology time, the paper campaigns' monitor: --concurrency 0
# --sites-free --avoid c2-1.  Needs root and jq.  Leaves nothing behind.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
build=${GRIDBED_BUILD:-$src/build}
me=warm-start.sh
. "$src/util/bench/lib-bench.sh"
topo=$src/topologies/teragrid-public.yaml
dilate=4
period=15
mon="--concurrency 0 --sites-free --avoid c2-1"
bench_parse "24 strip" "topology=topo dilate period mon build" "$@"
GRIDEMU=$build/emulator/gridemu
GRIDMON=$build/collectives/gridmon
GRIDLOAD=$build/loadgen/gridload
bench_built "$GRIDEMU" "$GRIDMON" "$GRIDLOAD"
bench_need 2 jq root

bench_grid ws
load_pid=
mon_pid=
cleanup() {
	bench_stop "$mon_pid"
	bench_stop "$load_pid"
	"$GRIDLOAD" restore >/dev/null 2>&1
	bench_grid_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$GRIDEMU" up "$topo" --dilate "$dilate" --quiet || { echo "$me: cannot bring the grid up" >&2; exit 1; }
"$GRIDMON" --print-configured --out "$tmp/oracle-idle.json"
# "cluster-of-host" map, and the idle oracle's bandwidth per cluster pair: "a,b bw"
"$GRIDEMU" status --json | jq -r '.hosts[] | "\(.name) \(.cluster)"' >"$tmp/hosts.txt"
jq -r '.clusters as $k | range(0; $k.clusters | length) as $a |
  range(0; $k.clusters | length) as $b | select($k.bw[$a][$b] != null) |
  "\($k.clusters[$a]),\($k.clusters[$b]) \($k.bw[$a][$b])"' "$tmp/oracle-idle.json" >"$tmp/bw-idle.txt"

# variant NAME OPTIONS...: one gridmon process of 4 rounds, the load from round 3
variant() {
	local name=$1 log=$tmp/probes-$1.csv
	shift
	# shellcheck disable=SC2086 # $mon is a list of options
	"$GRIDMON" --rounds 4 --period "${period}s" $mon "$@" --probe-log "$log" \
		--out "$tmp/m-$name.json" 2>"$tmp/mon-$name.err" &
	mon_pid=$!
	# the load starts as round 2 ends: when a row of its last stage is
	# logged (the rows come as each stage ends)
	local last
	while kill -0 "$mon_pid" 2>/dev/null; do
		last=$(awk -F, 'NR > 1 && $1 == 2 { s = $2 > s ? $2 : s } END { print s + 0 }' "$log" 2>/dev/null)
		[ "${last:-0}" -ge "$((stages - 1))" ] && break
		sleep 0.5
	done
	"$GRIDLOAD" flow c3-2 c2-2 --mode traffic --fraction 0.7 --duration 600s >/dev/null 2>&1 &
	load_pid=$!
	wait "$mon_pid"
	mon_pid=
	bench_stop "$load_pid"
	load_pid=
	"$GRIDLOAD" restore >/dev/null 2>&1
}
# the number of stages of a round, from a cold round of its own
# shellcheck disable=SC2086
"$GRIDMON" --once $mon --probe-log "$tmp/stages.csv" --out "$tmp/m0.json" 2>/dev/null ||
	{ echo "$me: gridmon failed" >&2; exit 1; }
stages=$(awk -F, 'NR > 1 { s = $2 > s ? $2 : s } END { print s + 1 }' "$tmp/stages.csv")

variant cold
variant warm --warm

echo "gridmon cold and --warm on $(basename "$topo"), k = $dilate, period ${period}s, gridmon $mon;" \
	"$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); load from round 3:" \
	"traffic 70 % c3-2 -> c2-2"
printf '%-7s %5s %-7s %8s %24s %24s %9s\n' variant round state round_s "bw/idle, loaded pairs" \
	"bw/idle, other pairs" "unsteady"
for v in cold warm; do
	for r in 1 2 3 4; do
		awk -F, -v r="$r" -v k="$dilate" -v hf="$tmp/hosts.txt" -v bf="$tmp/bw-idle.txt" \
		    -v v="$v" '
		BEGIN { while ((getline ln < hf) > 0) { split(ln, f, " "); C[f[1]] = f[2] }
			while ((getline ln < bf) > 0) { split(ln, f, " "); B[f[1]] = f[2] } }
		function st(x, n,   i, j, t) {
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
				if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
			return n ? sprintf("%.3f [%.2f,%.2f]", x[int((n + 1) / 2)], x[1], x[n]) : "-"
		}
		NR > 1 && $1 == r && $3 == 0 {
			if (!b || $6 < b) b = $6
			if ($7 > e) e = $7
			if ($10 == "unsteady") u++
			p = C[$4] "," C[$5]
			if ($9 == "" || !(p in B)) next
			hit = (r >= 3) && ((C[$4] == "c3" && C[$5] != "c3") || (C[$5] == "c2" && C[$4] != "c2"))
			if (hit) ld[++m] = $9 / B[p]; else ot[++n] = $9 / B[p]
		}
		END { printf "%-7s %5d %-7s %8.2f %24s %24s %9d\n", v, r, (r >= 3 ? "loaded" : "idle"),
			(e - b) / k, st(ld, m), st(ot, n), u }' "$tmp/probes-$v.csv"
	done
done
echo "bw/idle: the pair's reading / the idle configuration's path bottleneck (TCP payload tops"
echo "out near 0.965); round_s: the first probe's start to the last one's report, divided by k"
