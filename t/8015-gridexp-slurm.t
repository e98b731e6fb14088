#!/usr/bin/env bash
# 8015-gridexp-slurm: a campaign through a real Slurm cluster (issue 17).
# experiments/slurm-local.sh starts a single-node cluster of Debian's munge,
# slurmctld and slurmd under this test's directory (own key, socket, ports);
# `gridexp slurm` submits a small campaign of 4 runs (two static planners,
# two load conditions, one of them a shape-mode cut) as a job array.
#
#   1. the refusals: the options in the wrong command, --task without --resume;
#   2. a local run of the same campaign, the reference;
#   3. gridexp slurm; task 0 is scancelled once its application is up: its
#      gridexp takes its grid down (nothing is left), the other tasks go on,
#      and the summary says which run is incomplete and why (exit 1);
#   4. --resume submits that run alone and completes the campaign: the
#      summary has the local run's schema and counts, every task's session
#      names its node and task, and the job's tasks their fates;
#   5. --resume once more submits nothing.
# Nothing is timed.  Skips (with the reason) where Slurm is not installed or
# cannot start.
. "$(dirname "$0")/lib-netns.sh"

require_gridexp
for c in sbatch squeue scontrol scancel sinfo slurmctld slurmd munged; do
	command -v "$c" >/dev/null ||
		skip_all "Slurm is not installed ($c; cmake/bootstrap deps installs munge, slurmctld, slurmd, slurm-client)"
done

tmp=$(mktemp -d /tmp/gridbed-8015.XXXXXX)
lock=$GRIDBED_RUNDIR/gridexp-$GB_PREFIX.lock
SL=$GRIDBED_SRC/experiments/slurm-local.sh
gxpid=
cleanup() {
	local st=$?
	[ -n "$gxpid" ] && kill "$gxpid" 2>/dev/null
	"$SL" stop "$tmp/slurm" >/dev/null 2>&1
	rm -rf "$tmp" "$lock"
	(exit $st)
	gb_cleanup
}
trap cleanup EXIT

if ! out=$("$SL" start "$tmp/slurm" 2>&1); then
	skip_all "a single-node Slurm cluster cannot start here: $(tr '\n' ' ' <<<"$out" | cut -c1-200)"
fi
export SLURM_CONF=$tmp/slurm/slurm.conf
CS=$tmp/t8015.yaml
cat > "$CS" <<EOF
name: t8015
topology: $TOPOS/two-clusters.yaml
scale: 0.02
seed: 1
algorithms: [mpich-g2, binomial]
app: {root: a-1, broadcasts: 4, size: {first: 64K, last: 8K}, gap: {first: 50s, factor: 0.9}}
load:
  - {name: idle}
  - {name: cut, mode: shape, loads: [{start: 60s, duration: 300s, fraction: 80%, link: siteA-siteB}]}
EOF

plan 22

# --- 1. refusals: one line, exit 2, nothing submitted --------------------------
out=$("$GX" run "$CS" --partition x 2>&1); st=$?
is "$st:$out" "2:gridexp: run: --partition, --time and --no-wait are options of 'gridexp slurm'" \
	"run --partition: exit 2, one line"
out=$("$GX" run "$CS" --task 1 2>&1); st=$?
is "$st:$out" "2:gridexp: run: --task needs --resume DIR (the results directory gridexp slurm made)" \
	"run --task without --resume: exit 2, one line"
out=$("$GX" slurm "$CS" --task 1 2>&1); st=$?
is "$st:$out" "2:gridexp: slurm: --task is an option of 'gridexp run' (what one Slurm task runs)" \
	"slurm --task: exit 2, one line"
out=$("$GX" slurm "$CS" --time soon --out-root "$tmp/res" 2>&1); st=$?
ok "$( [ "$st" = 2 ] && [ ! -e "$tmp/res" ] && [ -z "$(squeue -h)" ]; echo $?)" \
	"slurm --time soon: exit 2, no results, no job ($out)"

out=$("$GX" slurm "$CS" --partition nosuch --out-root "$tmp/res0" 2>&1); st=$?
ok "$( [ "$st" = 1 ] && [ -z "$(ls "$tmp/res0/t8015" 2>/dev/null)" ] && [ -z "$(squeue -h)" ]; echo $?)" \
	"slurm --partition nosuch: sbatch's refusal in one line, exit 1, no results left ($out)"

# --- 2. the reference: the same campaign, locally -----------------------------
"$GX" run "$CS" --prefix "$GB_PREFIX" --out-root "$tmp/local" --no-plots \
	> "$tmp/local.out" 2> "$tmp/local.err"; st=$?
is "$st" 0 "the campaign locally (exit 0)" || sed 's/^/#   /' "$tmp/local.err" | tail -5
ldir=$(ls -d "$tmp"/local/t8015/2*/ | head -1)

# --- 3. through Slurm; task 0 cancelled while it runs -------------------------
"$GX" slurm "$CS" --prefix "$GB_PREFIX" --out-root "$tmp/res" --no-plots \
	> "$tmp/s1.out" 2> "$tmp/s1.err" &
gxpid=$!
dir=
have_job() {
	dir=$(ls -d "$tmp"/res/t8015/2*/ 2>/dev/null | head -1)
	dir=${dir%/}
	[ -n "$dir" ] && job=$(jq -er '.slurm[0].job' "$dir/meta.json" 2>/dev/null)
}
app_up() { [ -f "$dir/runs/idle-mpich-g2-r1.tmp/ready.json" ]; }
if wait_until 120 have_job && wait_until 120 app_up; then
	scancel "${job}_0"
	cancelled=1
else
	cancelled=0
fi
wait "$gxpid"; st=$?
gxpid=
ok "$( [ "$cancelled" = 1 ] && [ "$st" = 1 ]; echo $?)" \
	"gridexp slurm: job $job, task 0 scancelled in its run, exit 1 (not 0, not killed)" ||
	sed 's/^/#   /' "$tmp/s1.err" | tail -8
like "$(cat "$tmp/s1.err")" "slurm job $job, 4 tasks \(runs 0-3\), results in $dir" \
	"  one array of 4 tasks, runs 0-3"
like "$(cat "$tmp/s1.err")" "slurm job $job: 3 of 4 runs complete, 0 running, 0 pending" \
	"  the progress lines end with 3 of 4 complete"
is "$(prefix_netns | wc -l)$( [ -e "$lock" ] && echo ' lock')$(pgrep -f -- "$tmp/res" | grep -v "^$$\$" | wc -l)" "00" \
	"  the cancelled task took its grid down: no namespace, lock or process left"
is "$(jq -r '[.runs_complete, .incomplete[0].run] | @tsv' "$dir/summary.json")" "3	idle-mpich-g2-r1" \
	"  summary.json: 3 complete, the cancelled run incomplete"
like "$(jq -r '.incomplete[0].reason' "$dir/summary.json")" "^slurm job $job task 0 ended CANCELLED" \
	"  with the reason (the task's state from scontrol)"
like "$(grep -A1 '^runs not complete:$' "$dir/summary.txt" | tr '\n' ' ')" \
	"^runs not complete: idle-mpich-g2-r1: slurm job $job task 0 ended CANCELLED" \
	"  summary.txt says it too, under 'runs not complete:'"

# --- 4. --resume: the cancelled run alone, and the campaign is whole ---------
"$GX" slurm "$CS" --prefix "$GB_PREFIX" --resume "$dir" --no-plots \
	> "$tmp/s2.out" 2> "$tmp/s2.err"; st=$?
is "$st" 0 "--resume through Slurm: exit 0" || sed 's/^/#   /' "$tmp/s2.err" | tail -8
like "$(cat "$tmp/s2.err")" "slurm job [0-9]+, 1 task \(runs 0\)" "  submits the incomplete run alone"
schema() { jq -c '[paths | select(length <= 3) | map(if type == "number" then 0 else . end)] | unique' "$1"; }
counts() { jq -c '[.runs, .runs_complete, .runs_failed, (.algorithms | map_values(.broadcasts)), .incomplete]' "$1"; }
is "$(schema "$dir/summary.json")" "$(schema "$ldir/summary.json")" \
	"  summary.json has the local run's schema"
is "$(counts "$dir/summary.json")" "$(counts "$ldir/summary.json")" \
	"  and its counts: $(counts "$ldir/summary.json")"
is "$(jq -r '[.sessions[] | select(.task != null and .node != "" and .slurm_job != "") | .task] | sort | unique | map(tostring) | join(" ")' "$dir/meta.json")" \
	"0 1 2 3" "  meta.json: a session per task, each with its node and job"
is "$(jq -r '[.slurm[] | .tasks[] | "\(.task)=\(.state)"] | join(" ")' "$dir/meta.json")" \
	"0=CANCELLED 1=COMPLETED 2=COMPLETED 3=COMPLETED 0=COMPLETED" \
	"  meta.json: both jobs' tasks and their fates"
ok "$( n=$(ls "$dir"/slurm/*.out | wc -l); [ "$n" = 5 ] && [ "$(ls "$dir"/slurm/job-*.sh | wc -l)" = 2 ]; echo $?)" \
	"  each task's output and each job's script are kept"

# --- 5. nothing left to run ----------------------------------------------------
out=$("$GX" slurm "$CS" --prefix "$GB_PREFIX" --resume "$dir" --no-plots 2>&1 >/dev/null); st=$?
ok "$( [ "$st" = 0 ] && [ "$(jq '.slurm | length' "$dir/meta.json")" = 2 ]; echo $?)" \
	"--resume of a whole campaign submits nothing (exit 0)" || diag "$out"
is "$(prefix_netns | wc -l)" 0 "no namespace of this test's prefix is left"
done_testing
