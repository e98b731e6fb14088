#!/usr/bin/env bash
# advisor.sh - benchmark, not a test: the broadcast advisor on seed 000 s3's
# synthetic application (60 calls, 1 MiB linearly down, gaps 90 s x 0.93^k).
#
#   1. prediction error, one step ahead, of the next size and of the gap
#      before the next call, for several regression windows
#      (bench_advisor predict);
#   2. the share of broadcasts served by a tree planned for the right size:
#      a gridadvisor runs on teragrid's configured model (a matrix file from
#      the topology, labelled oracle: no grid, no load) with --applog, and
#      the application's calls are replayed in real time with gaps x SCALE
#      (bench_advisor replay): at each call its log line is appended, as
#      MPI_Bcast does, and the tree the adaptive broadcast would take is
#      looked up with the library's own code.  No MPI job runs: this
#      measures the advisor's prediction and timing, not broadcasts.
#
# usage: advisor.sh [--out DIR] [--scales "0.01 0.05"] [--planners "clustered-sa mateescu"]
#                   [--build DIR]
# Prints tables; writes DIR/advisor-predict.csv and DIR/advisor-replay.csv.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
build=${GRIDBED_BUILD:-$src/build}
me=advisor.sh
. "$src/util/bench/lib-bench.sh"
out=.
scales="0.01 0.05"
planners="clustered-sa mateescu"
bench_parse 20 "out scales planners build" "$@"
BENCH=$build/collectives/bench_advisor
ADVISOR=$build/collectives/gridadvisor
bench_built "$BENCH" "$ADVISOR"
mkdir -p "$out"
tmp=$(mktemp -d)
adv_pid=
trap '[ -n "$adv_pid" ] && kill "$adv_pid" 2>/dev/null; rm -rf "$tmp"' EXIT

"$BENCH" predict --out "$out/advisor-predict.csv" || exit 1
echo

topo=$src/topologies/teragrid.yaml
"$BENCH" matrix --topo "$topo" --out "$tmp/m.json" || exit 1
echo "replay on teragrid's configured model (64 nodes), root c2-1; the advisor polls every 20 ms"
printf '%-13s %6s %8s %9s %10s %9s %9s %12s %12s\n' planner scale span_s exact within10 mode2 \
	fallback budget_p50_s plan_p50_s
rows=()
for p in $planners; do
	for s in $scales; do
		d=$tmp/$p-$s log=$tmp/$p-$s.log
		: >"$log"
		"$ADVISOR" --matrix "$tmp/m.json" --out "$d" --applog "$log" --planner "$p" \
			--scale "$s" --topology "$topo" 2>"$tmp/adv.err" &
		adv_pid=$!
		# mode 1 first: every size of 1 KiB .. 2 MiB planned once
		for _ in $(seq 600); do [ -e "$d/tree-2097152.json" ] && break; sleep 0.1; done
		"$BENCH" replay --dir "$d" --applog "$log" --scale "$s" \
			--out "$tmp/replay-$p-$s.csv" >/dev/null || exit 1
		kill "$adv_pid"; wait "$adv_pid" 2>/dev/null; adv_pid=
		med() { sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.4f", v[int((NR + 1) / 2)]; else printf "-" }'; }
		bud=$(awk -F, 'NR > 1 && $3 == 2 { print $11 }' "$d/advisor.csv" | med)
		pl=$(awk -F, 'NR > 1 && $3 == 2 { print $12 }' "$d/advisor.csv" | med)
		line=$(awk -F, -v p="$p" -v s="$s" 'NR > 1 { n++; ex += $9; nr += $10; fb += $11;
			m2 += ($6 == 2); if (NR == 2) t0 = $2; t1 = $2 }
			END { printf "%s,%s,%.1f,%.1f,%.1f,%d,%d,%d", p, s, t1 - t0, 100 * ex / n,
			      100 * nr / n, m2, fb, n }' "$tmp/replay-$p-$s.csv")
		IFS=, read -r _ _ span ex nr m2 fb n <<<"$line"
		printf '%-13s %6s %8s %8s%% %9s%% %9s %9s %12s %12s\n' "$p" "$s" "$span" "$ex" "$nr" \
			"$m2/$n" "$fb" "$bud" "$pl"
		rows+=("$line,$bud,$pl")
		awk -F, -v p="$p" -v s="$s" 'NR > 1 { print p "," s "," $0 }' \
			"$tmp/replay-$p-$s.csv" >>"$tmp/replay-all.csv"
	done
done
echo "exact: the call was served by a tree planned for its size (to the byte: sizes are rounded);"
echo "within10: within 10 %;"
echo "mode2: by a tree planned from the prediction; fallback: no fresh tree (max age 600 s);"
echo "budget/plan: the advisor's mode-2 budgets and planning times (median)"
{
	echo "planner,scale,call,t,size,gap_before,tree_size,tree_mode,tree_age,tree_budget,exact,within10,fallback,why"
	cat "$tmp/replay-all.csv"
} >"$out/advisor-replay.csv.tmp" && mv "$out/advisor-replay.csv.tmp" "$out/advisor-replay.csv"
echo "wrote $out/advisor-predict.csv $out/advisor-replay.csv"
