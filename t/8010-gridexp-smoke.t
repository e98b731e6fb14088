#!/usr/bin/env bash
# 8010-gridexp-smoke: experiments/ci-smoke.yaml end to end (issue 6): grid up,
# gridmon, a shape-mode cut of the WAN link, four algorithms (gridadvisor for
# the adaptive one) through
# libgridbcast's MPI_Bcast in the synthetic application, capture, teardown;
# then the files, the summary, the PNGs, `gridexp report` giving the same
# summary byte for byte, `gridexp check`, and the refusals (a bad campaign,
# a busy prefix).  Nothing is timed: the assertions are about files, counts
# and bytes.
. "$(dirname "$0")/lib-netns.sh"

require_gridexp
require_cmd gnuplot

gridexp_tmp 8010

plan 39

# --- bad input: one line naming the place, exit 2, nothing made ------------
cat > "$tmp/bad.yaml" <<EOF
name: bad
topology: $TOPOS/two-clusters.yaml
algorithms: [mpich-g2, mpichg2]
EOF
out=$("$GX" run "$tmp/bad.yaml" --prefix "$GB_PREFIX" --out-root "$tmp/res" 2>&1); st=$?
is "$st" 2 "a bad campaign: exit 2"
like "$out" "^$tmp/bad.yaml:3:24: algorithm 'mpichg2' is not a planner" "  file:line:col: message"
is "$(prefix_netns | wc -l)$( [ -e "$tmp/res" ] && echo ' results')" 0 "  no grid, no results"

# --- the campaign ----------------------------------------------------------
"$GX" run "$GRIDBED_SRC/experiments/ci-smoke.yaml" --prefix "$GB_PREFIX" \
	--out-root "$tmp/res" > "$tmp/run.out" 2> "$tmp/run.err"; st=$?
is "$st" 0 "ci-smoke runs (exit 0)" || sed 's/^/#   /' "$tmp/run.err" | tail -20
dir=$(ls -d "$tmp"/res/ci-smoke/2*/ 2>/dev/null | head -1)
dir=${dir%/}
ok "$( [ -n "$dir" ] && [ -f "$dir/meta.json" ]; echo $?)" "results in results/<campaign>/<UTC time>/"
like "$(cat "$tmp/run.err")" "run 4/4 native \[cut r1\]: broadcast 6/6, ok" "a progress line per run"
like "$(cat "$tmp/run.err")" "run 1/4 [^:]*: broadcast [1-6]/6; elapsed [0-9:]*, remaining ~" \
	"off a terminal, a progress line once a broadcast completes"
is "$(prefix_netns | wc -l)" 0 "the grid is down afterwards"
ok "$( [ ! -e "$lock" ] && [ ! -e "$GRIDBED_RUNDIR/$GB_PREFIX" ]; echo $?)" \
	"the lock and the run directory are gone"

rows=; ranks=; recs=
for r in cut-mpich-g2-r1 cut-mateescu-r1 cut-adaptive-r1 cut-native-r1; do
	rows="$rows $(( $(wc -l < "$dir/runs/$r/broadcasts.csv") - 1 ))"
	ranks="$ranks $(( $(wc -l < "$dir/runs/$r/ranks.csv") - 1 ))"
	recs="$recs $(wc -l < "$dir/runs/$r/record.jsonl")"
done
is "$rows" " 6 6 6 6" "one CSV row per broadcast, per run"
# the hosts' TCP stack, read back from the grid, in every result file (issue 18)
is "$(jq -r '[.tcp[0].congestion, (.tcp[0].hosts | length), .sessions[0].tcp[0].buffers] | @tsv' "$dir/meta.json") $(jq -r '.tcp[0].congestion' "$dir"/runs/*/run.json | sort -u | tr '\n' ' ')" \
	"cubic	8	67108864 cubic " "meta.json and every run.json record the stack the hosts ran"
like "$(cat "$dir/summary.txt")" 'tcp \(session 1\): cubic, slow start after idle on, buffers 64 MiB' \
	"summary.txt says it in one line"
is "$ranks" " 48 48 48 48" "one per-rank row per rank and broadcast"
is "$recs" " 6 6 6 6" "libgridbcast's record: one line per MPI_Bcast"
# per-edge times (libgridbcast's gridbcast_last_timing): every non-root rank's
# message arrived after its parent began sending it and before it returned
edge_bad() { awk -F, 'NR > 1 { if ($8 == -1) bad += ($13 != ""); else bad += ($12 == "" || $13 == "" || $13 < 0 || $12 < $13 || $11 < $12 - 1e-6) } END { print bad + 0 }' "$1"; }
is "$(edge_bad "$dir/runs/cut-mpich-g2-r1/ranks.csv") $(edge_bad "$dir/runs/cut-adaptive-r1/ranks.csv")" "0 0" \
	"ranks.csv: parent's send start <= arrival <= return, for every edge (mpich-g2, adaptive)"
is "$(awk -F, 'NR > 1 && $12 != "" { n++ } END { print n + 0 }' "$dir/runs/cut-native-r1/ranks.csv")" 0 \
	"ranks.csv: no per-edge times under native (MPI's own broadcast)"
is "$(jq -r '.ended_in["mpich-g2"] | [.loaded.broadcasts + .unloaded.broadcasts, ([.loaded.clusters[].ended_here] | add) + ([.unloaded.clusters[].ended_here] | add)] | @tsv' "$dir/summary.json")" \
	"6	6" "summary.json: every broadcast ended in one cluster (ended_in)"
like "$(cat "$dir/summary.txt")" "where the broadcasts ended" "summary.txt: the table of where they ended"
is "$(head -1 "$dir/runs/cut-mpich-g2-r1/broadcasts.csv" | cut -d, -f1-12)" \
	"campaign,run_id,algorithm,root,size,index,start_time,completion_time,pred_mateescu,pred_plogp,pred_contention,load_state" \
	"the columns of docs/architecture.md, decision 7 come first"
is "$(awk -F, 'NR == 2 || NR == 7 { printf "%s ", $12 }' "$dir/runs/cut-mpich-g2-r1/broadcasts.csv")" \
	"unloaded loaded " "the cut meets the last broadcast, not the first"
m=$(sed -n 2p "$dir/runs/cut-mateescu-r1/record.jsonl")
is "$(jq -r '[.tree_via, .hdr_bytes, (.model | test("^matrix .*/monitor/matrix-s1.json v[0-9]+$"))] | @tsv' <<<"$m")" \
	"piggyback	434	true" "mateescu: planned from gridmon's matrix, the tree travels (7 x 62 header bytes)"
a=$(jq -r '.tree_via' "$dir/runs/cut-adaptive-r1/record.jsonl" | sort | uniq -c | awk '{ printf "%s ", $2 }')
ok "$( [ -s "$dir/runs/cut-adaptive-r1/advisor/advisor.csv" ] && [[ "$a" =~ ^(advisor|fallback:mpich-g2) ]]; echo $?)" \
	"adaptive: gridadvisor's trees and decisions are kept; trees via: $a"
# gridexp polls gridmon's file: a version replaced between two polls (say the
# first round's mid-round version, then its end-of-round one) is never seen,
# so which numbers are kept depends on timing; what must hold is one copy per
# version seen, named by its number, each listed in versions-s1.csv
kept=$(for f in "$dir"/monitor/matrix-s1-v*.json; do
	[ -f "$f" ] || continue
	v=${f##*-v}; v=${v%.json}
	[ "$(jq -r .version "$f")" = "$((10#$v))" ] && echo "$((10#$v))"
done | sort -n | tr '\n' ' ')
listed=$(awk -F, 'NR > 1 { print $1 }' "$dir/monitor/versions-s1.csv" 2>/dev/null | sort -n | tr '\n' ' ')
ok "$( [ -n "$kept" ] && [ "$kept" = "$listed" ]; echo $?)" \
	"the monitor's matrices are kept, one copy per version seen (kept: ${kept:-none}; listed: ${listed:-none})"
pl=$dir/monitor/probes-s1.csv
is "$(head -1 "$pl" 2>/dev/null)" "round,stage,again,src,dst,t_begin,t_end,bytes,bw,result" \
	"gridmon's probe log is kept (monitor/probes-s1.csv)"
g0=$(jq -r .t_go "$dir/runs/cut-mpich-g2-r1/go.json" 2>/dev/null)
is "$(awk -F, -v g0="$g0" 'NR > 1 { n++; if ($6 > $7 || $10 !~ /^(ok|unsteady|failed)$/) bad++; if ($7 < g0) before++ }
	END { print (n > 0) " " bad + 0 " " (before > 0) }' "$pl")" "1 0 1" \
	"the probe log: rows, each ending after it began, and probes before the first run began (go.json's clock)"
out=$("$GRIDBED_SRC/collectives/monitor/bench/probe-overlap.sh" "$dir/runs/cut-mpich-g2-r1" 2>&1)
like "$out" ": 6 wide-area edges in 6 broadcasts, [0-6] slow" \
	"probe-overlap.sh reads the run and its probe log: MPICH-G2 crossed to site B once per broadcast"
for f in load.csv capture.csv capture-links.csv wan.csv rankmap.json run.json complete; do
	[ -s "$dir/runs/cut-mpich-g2-r1/$f" ] || missing="$missing $f"
done
is "${missing:-}" "" "every run keeps the load log, capture counters, rank map, record, marker"
cr=$(jq '.algorithms["mpich-g2"].crossings.mean' "$dir/summary.json")
ok "$(awk -v c="$cr" 'BEGIN { exit !(c >= 0.95 && c <= 1.5) }'; echo $?)" \
	"MPICH-G2's payload crossed the WAN link once (crossings $cr)"
is "$(jq -r '.algorithms.mateescu.completion as $c | [.runs_complete, .runs_failed, $c.loaded.n + $c.unloaded.n, ($c.loaded.n > 0 and $c.unloaded.n > 0), .algorithms.native.ratio_to_native] | @tsv' "$dir/summary.json")" \
	"4	0	6	true	1" "summary.json: runs, loaded/unloaded split, ratio to native"
like "$(cat "$tmp/run.out")" "^campaign ci-smoke .*: 4 of 4 runs complete, 0 failed, 24 broadcasts" \
	"the summary table is printed"
pngs=0
for p in completion-cut-r1.png arrivals-cut-r1.png sizes.png; do
	[ "$(head -c 4 "$dir/$p" 2>/dev/null | od -An -c | tr -d ' ')" = "211PNG" ] &&
		[ "$(stat -c %s "$dir/$p")" -gt 4000 ] && pngs=$((pngs + 1))
done
is "$pngs" 3 "three PNGs, non-trivial (Fig. 8, Fig. 5 and size styles)"

# --- report: the same summary from the files alone --------------------------
cp "$dir/summary.json" "$tmp/s.json"; cp "$dir/summary.txt" "$tmp/s.txt"
rm "$dir"/summary.* "$dir"/*.png
"$GX" report "$dir" > "$tmp/report.out" 2>&1; st=$?
is "$st" 0 "gridexp report"
ok "$(cmp -s "$tmp/s.json" "$dir/summary.json" && cmp -s "$tmp/s.txt" "$dir/summary.txt"; echo $?)" \
	"  reproduces summary.json and summary.txt byte for byte"
ok "$( [ -s "$dir/completion-cut-r1.png" ] && [ -s "$dir/arrivals-cut-r1.png" ]; echo $?)" \
	"  and draws the plots again"

# --- check ------------------------------------------------------------------
out=$("$GX" check "$dir" --expect "$GRIDBED_SRC/experiments/ci-smoke-expect.yaml" 2>&1); st=$?
is "$st" 0 "check: the example expectations hold" || diag "$out"
cat > "$tmp/fail.yaml" <<'EOF'
- {metric: mean, algo: mateescu, lt: {times: 0.000001, of: mpich-g2}}
EOF
out=$("$GX" check "$dir" --expect "$tmp/fail.yaml" 2>&1); st=$?
ok "$( [ "$st" = 1 ] && grep -q '^FAIL mean mateescu' <<<"$out"; echo $?)" \
	"check: a failing expectation prints FAIL and exits 1"
printf -- '- {metric: mean, algo: mateescu, below: 3}\n' > "$tmp/bad-expect.yaml"
out=$("$GX" check "$dir" --expect "$tmp/bad-expect.yaml" 2>&1); st=$?
ok "$( [ "$st" = 2 ] && grep -q "bad-expect.yaml:1:34: expectation 1: unknown key 'below'" <<<"$out"; echo $?)" \
	"check: a bad expectation file exits 2 at its place"

# --- a busy prefix is refused cleanly -----------------------------------------
mkdir -p "$GRIDBED_RUNDIR"
echo "gridexp pid 1 runs campaign 'other'" > "$lock"
exec 9<"$lock"
flock 9
out=$("$GX" run "$GRIDBED_SRC/experiments/ci-smoke.yaml" --prefix "$GB_PREFIX" \
	--out-root "$tmp/res2" 2>&1 9<&-); st=$?
exec 9<&-
ok "$( [ "$st" = 2 ] && grep -q "prefix '$GB_PREFIX' is busy: gridexp pid 1 runs campaign 'other'" <<<"$out"; echo $?)" \
	"a busy prefix: exit 2, naming who holds it" || diag "$out"
ok "$( [ "$(prefix_netns | wc -l)" = 0 ] && [ ! -e "$tmp/res2" ]; echo $?)" \
	"  and nothing was made, not even the results directory"
done_testing
