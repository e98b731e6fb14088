#!/usr/bin/env bash
# round-stages.sh - benchmark, not a test: where one gridmon round's time
# goes (issue 44 asks a round of at most 5 s of topology time on teragrid).
# Brings a grid up, runs one round with a probe log, and prints each stage:
# its longest pair (the stage lasts as long as it), that pair's round trip
# from the echoes, the pair's time in those round trips, and every pair of
# the stage; then the round, the sum of the stages' longest pairs, and how
# many stages hold a pair above half the longest.  Times are the
# topology's (the wall clock / k).
#
# usage: round-stages.sh [--topology FILE] [--dilate K]
#                        [--mon "GRIDMON OPTIONS"] [--build DIR]
# Defaults: topologies/teragrid-public.yaml, k = 4, and the paper
# campaigns' monitor: --concurrency 0 --sites-free --avoid c2-1.
# Needs root.  Leaves nothing behind (the grid goes down on exit).
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
build=${GRIDBED_BUILD:-$src/build}
me=round-stages.sh
. "$src/util/bench/lib-bench.sh"
topo=$src/topologies/teragrid-public.yaml
dilate=4
mon="--concurrency 0 --sites-free --avoid c2-1"
bench_parse "16 strip" "topology=topo dilate mon build" "$@"
GRIDEMU=$build/emulator/gridemu
GRIDMON=$build/collectives/gridmon
bench_built "$GRIDEMU" "$GRIDMON"
bench_need 2 root

bench_grid rs
cleanup() { bench_grid_down; }
trap cleanup EXIT
trap 'exit 130' INT TERM

"$GRIDEMU" up "$topo" --dilate "$dilate" --quiet ||
	{ echo "$me: cannot bring the grid up" >&2; exit 1; }
# shellcheck disable=SC2086 # $mon is a list of options
"$GRIDMON" --once $mon --probe-log "$tmp/probes.csv" -v --out "$tmp/m.json" 2>"$tmp/mon.err" ||
	{ echo "$me: gridmon failed:" >&2; cat "$tmp/mon.err" >&2; exit 1; }

echo "one gridmon round on $(basename "$topo"), k = $dilate, gridmon $mon;" \
	"$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
# the echoes' median RTT of each pair, "src dst rtt_ms", from gridmon -v
sed -n 's/^gridmon: \([^ ]*\) -> \([^:]*\): rtt p50 \([0-9.]*\) ms.*/\1 \2 \3/p' \
	"$tmp/mon.err" >"$tmp/rtt.txt"
# probes.csv: round,stage,again,src,dst,t_begin,t_end,... (docs/formats.md)
awk -F, -v k="$dilate" -v rttf="$tmp/rtt.txt" '
	BEGIN { while ((getline l < rttf) > 0) { split(l, a, " "); rtt[a[1] ">" a[2]] = a[3] / 1000 } }
	NR == 1 || $3 != 0 { next }
	{
		s = $2; d = ($7 - $6) / k; p = $4 ">" $5
		if (!(s in max) || d > max[s]) { max[s] = d; who[s] = p }
		pairs[s] = pairs[s] sprintf(" %s:%.2f", p, d)
		if (first == "" || $6 < first) first = $6
		if (last == "" || $7 > last) last = $7
		if (s > ns) ns = s
	}
	END {
		printf "%5s %8s %-14s %8s %7s  %s\n", "stage", "longest", "pair", "rtt ms", "rtts", "all pairs (s)"
		for (s = 0; s <= ns; s++) {
			r = rtt[who[s]]
			printf "%5d %8.3f %-14s %8.1f %7.1f %s\n", s, max[s], who[s], r * 1000,
				(r > 0 ? max[s] / r : 0), pairs[s]
			sum += max[s]; if (max[s] > top) top = max[s]
		}
		for (s = 0; s <= ns; s++) if (max[s] > top / 2) nlong++
		printf "round %.3f s; the longest pair of each stage, summed: %.3f s; %d of %d stages hold a pair above half the longest (%.3f s)\n",
			(last - first) / k, sum, nlong, ns + 1, top
	}' "$tmp/probes.csv"
