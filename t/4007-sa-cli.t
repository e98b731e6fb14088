#!/usr/bin/env bash
# 4007-sa-cli - the SA family's gridtree subcommands:
#   gridtree pools: seed 000's Table 1 examples (20 % and 70 %) from a matrix
#   file, errors quoted and usage errors exiting 2;
#   gridtree sim gupta-fig3: a short run writes its CSV, runs.csv and
#   meta.json (no gnuplot needed: --no-plot).
source "$(dirname "$0")/lib-netns.sh"

GRIDTREE=${GRIDTREE:-$GRIDBED_BUILD/collectives/gridtree}
[ -x "$GRIDTREE" ] || bail "gridtree not built at $GRIDTREE"

gb_tmpdir 4007

# Table 1 (Mbit/s) in B/s; the diagonal (100) is given, as in the paper.
mbit=(
	"100 80 80 60 60 20 10 10"
	"80 100 80 60 60 20 10 10"
	"80 80 100 60 60 20 10 10"
	"60 60 60 100 80 40 50 50"
	"60 60 60 80 100 40 50 50"
	"20 20 20 40 40 100 30 30"
	"10 10 10 50 50 30 100 80"
	"10 10 10 50 50 30 80 100"
)
{
	printf '{"nodes": ['
	for i in 1 2 3 4 5 6 7 8; do
		printf '%s{"name": "h%d"}' "$([ $i -gt 1 ] && echo ,)" "$i"
	done
	printf '],\n"lat": ['
	for i in 0 1 2 3 4 5 6 7; do
		printf '%s[' "$([ $i -gt 0 ] && echo ,)"
		for j in 0 1 2 3 4 5 6 7; do
			lat=0.001
			[ $i = $j ] && lat=0
			printf '%s%s' "$([ $j -gt 0 ] && echo ,)" "$lat"
		done
		printf ']'
	done
	printf '],\n"bw": ['
	for i in 0 1 2 3 4 5 6 7; do
		printf '%s[' "$([ $i -gt 0 ] && echo ,)"
		sep=
		for v in ${mbit[$i]}; do printf '%s%d' "$sep" $((v * 125000)); sep=,; done
		printf ']'
	done
	printf ']}\n'
} >"$tmp/table1.json"

out=$("$GRIDTREE" pools --matrix "$tmp/table1.json" --percent 20 2>&1)
is "$out" "h1 h2 h3 h4 h5 h6
h7 h8" "pools at 20 %: {h1..h6} {h7 h8} (seed 000 s2.4)"

out=$("$GRIDTREE" pools --matrix "$tmp/table1.json" --percent 70 2>&1)
is "$out" "h1 h2 h3
h4 h5
h6
h7 h8" "pools at 70 %: {h1 h2 h3} {h4 h5} {h6} {h7 h8} (seed 000 s2.4)"

out=$("$GRIDTREE" pools --matrix "$tmp/table1.json" --percent 10 --cap 3 2>&1)
is "$(echo "$out" | wc -l)" 3 "pools at 10 % capped at 3: 3 pools"

"$GRIDTREE" pools --matrix "$tmp/table1.json" >/dev/null 2>&1
is $? 2 "pools without --percent is a usage error (exit 2)"
"$GRIDTREE" pools --matrix "$tmp/table1.json" --percent 120 >/dev/null 2>&1
is $? 2 "pools --percent 120 is a usage error (exit 2)"
err=$("$GRIDTREE" pools --matrix "$tmp/nonesuch.json" --percent 10 2>&1)
st=$?
[ $st = 2 ]
ok $? "a missing matrix file is bad input (exit 2)"
like "$err" "nonesuch\.json" "  and the message names the file"

out=$("$GRIDTREE" sim gupta-fig3 --out "$tmp/fig3" --budget-ms 30 --no-plot 2>&1)
ok $? "sim gupta-fig3 --budget-ms 30 runs" || diag "$out"
head1=$(head -1 "$tmp/fig3/gupta-fig3.csv" 2>/dev/null)
is "$head1" "run,invocation,phase,t_s,cost_s,best_s" "gupta-fig3.csv has its header"
rows=$(grep -c ',random,' "$tmp/fig3/gupta-fig3.csv" 2>/dev/null)
[ "${rows:-0}" -ge 1 ]
ok $? "  and randomization-phase rows ($rows)"
[ -s "$tmp/fig3/runs.csv" ] && [ -s "$tmp/fig3/meta.json" ] && [ -s "$tmp/fig3/gupta-fig3.gp" ]
ok $? "runs.csv, meta.json and gupta-fig3.gp written"
left=$(find "$tmp/fig3" -name '.*' -type f | wc -l)
is "$left" 0 "no temporary file left behind"

done_testing
