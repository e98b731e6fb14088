#!/usr/bin/env bash
# 8011-gridexp-resume: a campaign that is killed and resumed (issue 6).
#
#   1. SIGKILL in the middle of run 2: the grid stays (nothing can run after
#      a SIGKILL) but every process of the run dies with gridexp;
#   2. --resume takes that grid down, skips run 1 (complete), and a SIGTERM
#      in the middle of run 2 goes through the cleanup path: exit 143, no
#      namespace, process, lock or run directory left;
#   3. gridexp keep copies the results (run 1 alone is complete), and
#      --resume of that copy completes runs 2 and 3, as a campaign split
#      over sessions on different machines would; run 3 has a rank that
#      exits on purpose (the fail_rank/fail_at knob): it is recorded as
#      failed with its reason, and the campaign ends normally (exit 1: a
#      run failed).
# Row counts and index uniqueness show that no run left duplicate rows.
# Static planners only (no gridmon), two-clusters, tiny scale.
. "$(dirname "$0")/lib-netns.sh"

require_gridexp

tmp=$(mktemp -d /tmp/gridbed-8011.XXXXXX)
lock=$GRIDBED_RUNDIR/gridexp-$GB_PREFIX.lock
gx=
cleanup() {
	local st=$?
	[ -n "$gx" ] && kill -9 "$gx" 2>/dev/null
	rm -rf "$tmp" "$lock"
	(exit $st)
	gb_cleanup
}
trap cleanup EXIT

cat > "$tmp/c.yaml" <<EOF
name: t8011
topology: $TOPOS/two-clusters.yaml
scale: 0.02
algorithms: [mpich-g2, binomial, flat]
app:
  broadcasts: 6
  size: {first: 64K, last: 8K}
  gap: {first: 50s, factor: 0.9}
  fail_rank: 5
  fail_at: 2
  fail_algo: flat
EOF

# our processes: anything whose command line names this test's results
ours() { pgrep -f -- "$tmp/res" | grep -v "^$$\$" | wc -l; }
# wait until run $1's application is up in this invocation ($2: its log;
# $3: a file touched just before it started, so that a ready.json the killed
# invocation left is not taken for this one's; not the log, which gridexp
# writes to after ready.json: its first progress line)
wait_app() {
	for _ in $(seq 600); do
		grep -q "prefix $GB_PREFIX" "$2" 2>/dev/null &&
			[ -f "$dir/runs/unloaded-$1-r1.tmp/ready.json" ] &&
			[ "$dir/runs/unloaded-$1-r1.tmp/ready.json" -nt "$3" ] && return 0
		kill -0 "$gx" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

plan 18

# --- 1. SIGKILL in the middle of run 2 --------------------------------------
touch "$tmp/1.start"
"$GX" run "$tmp/c.yaml" --prefix "$GB_PREFIX" --out-root "$tmp/res" > "$tmp/1.log" 2>&1 &
gx=$!
for _ in $(seq 300); do dir=$(ls -d "$tmp"/res/t8011/2* 2>/dev/null); [ -n "$dir" ] && break; sleep 0.1; done
wait_app binomial "$tmp/1.log" "$tmp/1.start"; ok $? "run 2 (binomial) started after run 1" || sed 's/^/#   /' "$tmp/1.log"
kill -9 "$gx"; wait "$gx" 2>/dev/null; gx=
# they die by themselves (parent-death signals, then mpirun's teardown of
# its orteds and ranks): give them up to 10 s on a busy box
for _ in $(seq 100); do [ "$(ours)" = 0 ] && break; sleep 0.1; done
is "$(ours)" 0 "after SIGKILL, every process of the run died with gridexp" ||
	pgrep -af -- "$tmp/res" | grep -v "^$$ " | sed 's/^/#   left: /' | cut -c1-200
ok "$( [ -f "$dir/runs/unloaded-mpich-g2-r1/complete" ] && [ ! -e "$dir/runs/unloaded-binomial-r1" ]; echo $?)" \
	"run 1 is complete, run 2 is not"

# --- 2. --resume, then SIGTERM in the middle of run 2 ------------------------
touch "$tmp/2.start"
"$GX" run "$tmp/c.yaml" --prefix "$GB_PREFIX" --resume "$dir" > "$tmp/2.log" 2>&1 &
gx=$!
wait_app binomial "$tmp/2.log" "$tmp/2.start"; ok $? "--resume: run 2 again" || sed 's/^/#   /' "$tmp/2.log"
kill -TERM "$gx"; wait "$gx"; st=$?; gx=
is "$st" 143 "SIGTERM: gridexp stops with 128 + 15"
like "$(cat "$tmp/2.log")" "taking down the grid a killed gridexp left" "it had taken the SIGKILLed run's grid down"
like "$(cat "$tmp/2.log")" "run 1/3 mpich-g2 \[unloaded r1\]: complete already, skipped" "  and skipped run 1"
is "$(prefix_netns | wc -l) $(ours)" "0 0" "after SIGTERM: no namespace, no process left"
ok "$( [ ! -e "$lock" ] && [ ! -e "$GRIDBED_RUNDIR/$GB_PREFIX" ]; echo $?)" "  no lock, no run directory"

# --- 3. keep, and --resume of the kept copy to the end ------------------------
out=$("$GX" keep "$dir" "$tmp/kept" 2>&1)
like "$out" "^kept 1 complete run \\([01] left out: not complete\\), [0-9]+ files" \
	"keep: the one complete run" || diag "$out"
dir=$tmp/kept
"$GX" run "$tmp/c.yaml" --prefix "$GB_PREFIX" --resume "$dir" > "$tmp/3.log" 2>&1; st=$?
is "$st" 1 "--resume completes; exit 1 because a run failed on purpose" || sed 's/^/#   /' "$tmp/3.log"
is "$(ls "$dir/runs" | tr '\n' ' ')" "unloaded-binomial-r1 unloaded-flat-r1 unloaded-mpich-g2-r1 " \
	"three runs, no half-done directory"
rows=; dups=
for r in mpich-g2 binomial flat; do
	f=$dir/runs/unloaded-$r-r1/broadcasts.csv
	rows="$rows $(( $(wc -l < "$f") - 1 ))"
	dups="$dups$(tail -n +2 "$f" | cut -d, -f6 | sort | uniq -d)"
done
is "$rows" " 6 6 2" "rows: 6, 6, and 2 before the failing rank's exit at broadcast 2"
is "$dups" "" "no index twice in any run"
is "$(jq -r '.status' "$dir/runs/unloaded-flat-r1/run.json")" "failed: mpirun exit 1" \
	"the failing run is recorded as failed"
like "$(jq -r '.reason' "$dir/runs/unloaded-flat-r1/run.json")" "rank 5: exiting before broadcast 2" \
	"  with the failing rank's reason"
is "$(jq -r '[.runs_complete, .runs_failed, .algorithms.flat.failed_runs, .algorithms.binomial.completion.all.n] | @tsv' "$dir/summary.json")" \
	"3	1	1	6" "the summary counts it"
is "$(prefix_netns | wc -l) $(ours)" "0 0" "the machine is clean"
done_testing
