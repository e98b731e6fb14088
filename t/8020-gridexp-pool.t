#!/usr/bin/env bash
# 8020-gridexp-pool - `gridexp report DIR DIR` and `gridexp check DIR DIR`
# pool the results directories of one campaign, one seed each (issue 13:
# Fig. 8's criteria hold "over 3 seeds", and a campaign run in parts leaves
# one directory per seed).  Two hand-made directories of a campaign "fig8"
# with mpich-g2, adaptive and mateescu; sizes 1000 bytes:
#   seed 7: mpich-g2  2.0 loaded, 1.0 unloaded (wide area 10000 B each)
#           adaptive  1.5 loaded, 1.2 unloaded (wide area 9000 B unloaded)
#           mateescu  3.0 loaded, 2.0 unloaded
#   seed 8: mpich-g2  1.0 loaded, 1.0 unloaded (10000 B)
#           adaptive  1.0 loaded, 0.9 unloaded (11000 B unloaded)
#           mateescu  not run, so check fails mateescu's four lines: pooled,
#           they would rest on seed 7 alone
# Pooled, a broadcast pairs only with its own directory's: adaptive's gain
# under load is (25 + 0) / 2 = 12.5 %, unloaded (-20 + 10) / 2 = -5 %;
# MPICH-G2's loaded mean 1.5 = 1.5 x its unloaded 1.0; adaptive's unloaded
# crossings (9 + 11) / 2 = 10 against MPICH-G2's 10.  Paired across the
# directories instead (both are repetition 1), seed 7's adaptive would meet
# seed 8's MPICH-G2 too, and the means would differ.  The checks here are
# the point estimates' (--resamples 0): two broadcasts a directory give no
# interval worth the name; t/8027 and t/8028 test the intervals.
source "$(dirname "$0")/lib-netns.sh"
source "$(dirname "$0")/lib-results.sh"
results_setup 8020

plan 51

make_results "$tmp/s7" fig8 7 "{'mpich-g2': [(2.0, 1, 10000), (1.0, 0, 10000)],
	'adaptive': [(1.5, 1, 9000), (1.2, 0, 9000)], 'mateescu': [(3.0, 1, 20000), (2.0, 0, 20000)]}"
make_results "$tmp/s8" fig8 8 "{'mpich-g2': [(1.0, 1, 10000), (1.0, 0, 10000)],
	'adaptive': [(1.0, 1, 11000), (0.9, 0, 11000)]}"
make_results "$tmp/other" another 9 "{'mpich-g2': [(1.0, 1, 10000)]}"

out=$("$GX" report "$tmp/s7" "$tmp/s8" 2>&1)
st=$?
sed 's/^/# /' <<<"$out"
is "$st" 0 "report DIR DIR: exit 0"
like "$out" "^campaign fig8, 2 results directories pooled: 5 of 6 runs complete, 0 failed, 10 broadcasts, time dilation x10" \
	"  the title says what was pooled"
like "$out" "^adaptive +12\\.50 \\[0\\.00, 25\\.00\\] \\(2\\) +-5\\.00 \\[-20\\.00, 10\\.00\\] \\(2\\)" \
	"  adaptive's gains pair within each directory: 12.5 % loaded, -5 % unloaded"
like "$out" "$tmp/s7: results R7, seed 7, scale 0.3, x10, 3 of 3 runs complete, 6 broadcasts" \
	"  one line per directory (seed 7)"
like "$out" "$tmp/s8: results R8, seed 8, scale 0.3, x10, 2 of 3 runs complete, 4 broadcasts" \
	"  (seed 8)"
ok "$([ ! -e "$tmp/s7/summary.json" ] && [ ! -e "$tmp/s8/summary.txt" ]; echo $?)" \
	"  a pooled report writes no file"

out=$("$GX" check "$tmp/s7" "$tmp/s8" --expect "$GRIDBED_SRC/experiments/fig8-expect.yaml" --resamples 0 2>&1)
st=$?
sed 's/^/# /' <<<"$out"
is "$st" 1 "check DIR DIR with fig8-expect.yaml: exit 1 (one criterion fails)"
like "$out" "^FAIL improvement_loaded_mean adaptive = 12\\.5 >= 19\\.58$" \
	"  the gain under load, pooled: 12.5 %"
like "$out" "^PASS loaded_mean mpich-g2 = 1\\.5 >= 1\\.3 x mpich-g2's unloaded_mean 1 = 1\\.3$" \
	"  MPICH-G2 loaded against its own unloaded mean"
like "$out" "^PASS unloaded_crossings adaptive = 10 <= 1\\.1 x mpich-g2's unloaded_crossings 10 = 11$" \
	"  unloaded wide-area bytes, pooled (9 and 11)"
like "$out" "^PASS improvement_unloaded_mean adaptive = -5 >= -5$" "  unloaded: -5 %, the bound"
like "$out" "^FAIL loaded_mean adaptive = 1\\.25 < 1 x mateescu's loaded_mean 3 = 3  \\(pooled: mateescu has no complete run in $tmp/s8\\)$" \
	"  a line that rests on mateescu, run in one directory of two, fails and says why"
is "$(grep -c "^FAIL .*(pooled: mateescu has no complete run in $tmp/s8)$" <<<"$out")" 4 \
	"  all four of mateescu's lines"
like "$out" "^5 expectations failed$" "  3 of 8 hold"

# every directory with every algorithm: mateescu's lines are judged
make_results "$tmp/s9" fig8 9 "{'mpich-g2': [(2.0, 1, 10000), (1.0, 0, 10000)],
	'adaptive': [(1.5, 1, 9000), (1.2, 0, 9000)], 'mateescu': [(3.0, 1, 20000), (2.0, 0, 20000)]}"
out=$("$GX" check "$tmp/s7" "$tmp/s9" --expect "$GRIDBED_SRC/experiments/fig8-expect.yaml" --resamples 0 2>&1)
is "$(grep -c "^PASS .*mateescu's" <<<"$out") $(grep -c pooled: <<<"$out")" "4 0" \
	"seeds 7 and 9 both complete: mateescu's four lines pass, nothing said of pooling"
out=$("$GX" report "$tmp/s7" "$tmp/s8" 2>&1)
like "$out" "^mateescu: no complete run in 1 of 2 directories \\($tmp/s8 first\\)" \
	"a pooled report names the algorithm a directory lacks"

out=$("$GX" report "$tmp/s7" --no-plots 2>&1)
t "report DIR alone still writes summary.json" test -s "$tmp/s7/summary.json"
like "$out" "^gaps: 3 of 3 broadcasts were followed by a gap shorter than twice their completion time" \
	"  each run's first broadcast (2, 1.5, 3 s) had 1 s before the next (10 s on the wire at k = 10)"
like "$out" "^gaps: 3 of 3 .*; at 6\\.00 times the scale every gap would be twice its broadcast" \
	"  and by how much the scale would have to grow: the largest 2 x 3 s / 1 s"
is "$(jq -r '.gaps | "\(.short) \(.of) \(.scale_x)"' "$tmp/s7/summary.json")" "3 3 6" \
	"  summary.json gaps: short, of and scale_x"
is "$(python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["algorithms"]["adaptive"]["crossings_by_load"]; print(a["loaded"]["mean"], a["unloaded"]["mean"])' "$tmp/s7/summary.json")" \
	"9.0 9.0" "  with crossings apart for loaded and unloaded broadcasts"

out=$("$GX" report "$tmp/s7" "$tmp/other" 2>&1)
st=$?
is "$st:$(wc -l <<<"$out")" "2:1" "another campaign's directory: exit 2, one line"
like "$out" "'$tmp/other' holds campaign 'another' and '$tmp/s7' campaign 'fig8'" "  naming both"

out=$("$GX" check "$tmp/s7" "$GRIDBED_SRC/experiments/fig8-expect.yaml" \
	--expect "$GRIDBED_SRC/experiments/fig8-expect.yaml" --resamples 0 2>&1)
st=$?
is "$st:$out" "2:gridexp: check: '$GRIDBED_SRC/experiments/fig8-expect.yaml' is not a results directory (several arguments are results directories to pool)" \
	"check with a file among the directories: exit 2, one line"

# issue 49: the same directory twice (DIR DIR, DIR DIR/) would pool its
# broadcasts twice; refused, one line
for second in "$tmp/s7" "$tmp/s7/" "$tmp/../${tmp##*/}/s7"; do
	out=$("$GX" check "$tmp/s7" "$second" --expect "$GRIDBED_SRC/experiments/fig8-expect.yaml" --resamples 0 2>&1)
	st=$?
	is "$st:$(wc -l <<<"$out")" "2:1" "check DIR $second: exit 2, one line ($out)"
	like "$out" "are the same results directory" "  and says why"
done
out=$("$GX" report "$tmp/s8" "$tmp/s8/" 2>&1)
is "$?:$out" "2:gridexp: '$tmp/s8' and '$tmp/s8/' are the same results directory (each is pooled once)" \
	"report DIR DIR/: exit 2, one line"

# expectations naming what the campaign has not: refused before the
# summary is rewritten (s7's summary.json is there, from report above)
sum7=$(cd "$tmp/s7" && find . -type f | sort | xargs md5sum)
for bad in "algo: nosuch" "algo: mpich-g2, le: {times: 1, of: nosuch}" \
	   "algo: mpich-g2, le: {times: 1, of: '*'}" "metric: model_error_nosuch, algo: '*'"; do
	case $bad in metric*) line="- {$bad, le: 1}" ;;
	*le:*) line="- {metric: loaded_mean, $bad}" ;;
	*) line="- {metric: loaded_mean, $bad, le: 1}" ;; esac
	printf '# a comment\n%s\n' "$line" > "$tmp/bad-expect.yaml"
	for dirs in "$tmp/s7" "$tmp/s7 $tmp/s9"; do
		# shellcheck disable=SC2086
		out=$("$GX" check $dirs --expect "$tmp/bad-expect.yaml" 2>&1)
		st=$?
		is "$st:$(wc -l <<<"$out")" "2:1" "check ${dirs//$tmp\//} with '$bad': exit 2, one line"
		like "$out" "^gridexp: check: $tmp/bad-expect.yaml:2:3: expectation 1: " "  at its place ($out)"
	done
done
is "$(cd "$tmp/s7" && find . -type f | sort | xargs md5sum)" "$sum7" \
	"  and no file of the results directory was written"

# loads that ran more than 5 % short (load.csv "short"): counted per
# algorithm over its complete runs, pooled; an algorithm without a complete
# run has no figure (issue 44: the algorithms meet the same load dynamics)
ld() { printf 'interval,mode,start_s,end_s,fraction,link,dir,src,dst,port,capacity_bps,planned_bps,achieved_bps,sent_bps,tx_packets,rx_packets,status,dilate\n'
       for st in "$@"; do printf '1,traffic,0,1,0.7,,,a-1,b-1,9000,100000000,70000000,60000000,60000000,1,1,%s,1\n' "$st"; done; }
ld ok "short: sent 50.0 of 70.0 Mbit/s" > "$tmp/s7/runs/paper-adaptive-r1/load.csv"
ld "short: sent 60.0 of 70.0 Mbit/s" > "$tmp/s8/runs/paper-adaptive-r1/load.csv"
ld ok ok > "$tmp/s7/runs/paper-mpich-g2-r1/load.csv"
printf -- '- {metric: short_loads, algo: adaptive, eq: 2}\n- {metric: short_loads, algo: mpich-g2, eq: 0}\n- {metric: short_loads, algo: mateescu, eq: 0}\n' > "$tmp/short.yaml"
out=$("$GX" check "$tmp/s7" "$tmp/s8" --expect "$tmp/short.yaml" 2>&1)
like "$out" "PASS short_loads adaptive = 2 == 2" "short_loads: adaptive's two short loads, one in each directory, pooled"
like "$out" "PASS short_loads mpich-g2 = 0 == 0" "  mpich-g2's two loads were ok"
like "$("$GX" report "$tmp/s7" "$tmp/s8" --no-plots 2>&1)" \
	"loads: 2 of 5 sent more than 5 % short of their rate, in 2 runs" "  and report says it in a line"
done_testing
