#!/usr/bin/env bash
# gridemu mpirun when things go wrong: a rank that exits early, is killed,
# calls MPI_Abort or skips MPI_Finalize makes the job fail with that rank and
# its host named; SIGINT (Ctrl-C), SIGTERM and --timeout stop the job.  Every
# time, no process of the job is left (no rank, orted, mpirun, agent or
# wrapper), while processes in the same namespaces that are not the job's
# survive.  `timeout` bounds every run so that a hang fails instead of
# blocking; nothing is timed.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_cmd mpirun
MPITEST=$GRIDBED_BUILD/emulator/mpitest
FAIL=$MPITEST/mpi_fail
[ -x "$FAIL" ] || skip_all "MPI test programs not built (no MPI found by cmake)"

bystanders=()
finish() {
	[ ${#bystanders[@]} -gt 0 ] && kill "${bystanders[@]}" 2>/dev/null
	rm -f "$GRIDBED_RUNDIR/$GB_PREFIX"/mpirun-*.json
	gb_cleanup
}
trap finish EXIT

out=$("$GRIDEMU" up "$TOPOS/two-clusters.yaml" 2>&1) ||
	{ diag "$out"; bail "cannot bring up two-clusters"; }

# Two processes that must survive every cleanup: a user's process in a host
# namespace, and one that claims to belong to another job.
ip netns exec "$GB_PREFIX-a-4" sleep 600 &
bystanders+=($!)
ip netns exec "$GB_PREFIX-b-2" env GRIDBED_JOB=another-job sleep 600 &
bystanders+=($!)

# Processes of ours in the grid's namespaces, other than the bystanders.
grid_procs() {
	local ns p n=0
	for ns in $(prefix_netns); do
		for p in $(ip netns pids "$ns"); do
			[ "$(cat /proc/"$p"/comm 2>/dev/null)" = sleep ] && continue
			n=$((n + 1))
			diag "left in $ns: $p $(tr '\0' ' ' </proc/"$p"/cmdline 2>/dev/null)"
		done
	done
	echo $n
}
# nothing_left JOBDIR DESC
nothing_left() {
	local left
	left=$(grid_procs)
	left=$((left + $(pgrep -f "$FAIL" | wc -l) + $(pgrep -f "$1" | wc -l)))
	is "$left" 0 "$2: no rank, wrapper, orted, agent or mpirun is left"
}
bystanders_alive() {
	local p dead=0
	for p in "${bystanders[@]}"; do kill -0 "$p" 2>/dev/null || dead=$((dead + 1)); done
	is "$dead" 0 "$1: the user's processes in the namespaces survive"
}
show_tail() { printf '%s\n' "$1" | tail -5 | sed 's/^/#   /'; }
# run_fail DESC STATUS REGEX ARGS...: a bounded run that must fail as told.
run_fail() {
	local desc=$1 want=$2 re=$3; shift 3
	local out st job
	out=$(timeout 120 "$GRIDEMU" mpirun --verbose -- "$FAIL" "$@" 2>&1); st=$?
	job=$(printf '%s\n' "$out" | sed -n 's/^gridemu mpirun: rank map \(.*\)\.json$/\1/p')
	is "$st" "$want" "$desc: gridemu mpirun exits $want" || show_tail "$out"
	local said
	said=$(printf '%s\n' "$out" | grep '^gridemu mpirun: ' |
		grep -v -e 'rank map' -e 'in .*-mgmt:' -e '^gridemu mpirun: job ')
	like "$said" "$re" "$desc: the failing rank and its host are named"
	nothing_left "${job:-no-job-dir}" "$desc"
	LAST_MAP=$job.json
}

run_fail "rank 3 exits 7" 1 "^gridemu mpirun: rank 3 \(host a-4\) exited with status 7$" \
	3 exit 7
like "$(cat "$LAST_MAP")" '"failed_rank": 3' "the rank map records the failed rank"
like "$(tr -d ' \n' <"$LAST_MAP")" '"result":"failed","exit_status":1' "and the job's result"
run_fail "rank 5 is killed" 1 "rank 5 \(host b-2\) was killed by signal 9" 5 kill 9
run_fail "rank 6 calls MPI_Abort" 1 "rank 6 \(host b-3\) called MPI_Abort with error code 5" \
	6 abort 5
run_fail "rank 2 skips MPI_Finalize" 1 \
	"rank 2 \(host a-3\) exited without calling MPI_Finalize" 2 exit 0
bystanders_alive "after four failed jobs"

# stop_job SIGNAL STATUS DESC [OPTIONS]: a long job, stopped once every rank runs.
stop_job() {
	local sig=$1 want=$2 desc=$3; shift 3
	local err=$GRIDBED_RUNDIR/err.$$ pid st n=0
	timeout 120 "$GRIDEMU" mpirun --verbose "$@" -- "$FAIL" -1 sleep 600 2>"$err" &
	pid=$!
	for _ in $(seq 600); do # ranks up: 8 mpi_fail processes in our namespaces
		n=0
		for ns in $(prefix_netns); do
			for p in $(ip netns pids "$ns"); do
				[ "$(cat /proc/"$p"/comm 2>/dev/null)" = mpi_fail ] && n=$((n + 1))
			done
		done
		[ "$n" = 8 ] && break
		# a job that ended will never have its ranks up: say so now,
		# not after 600 rounds (each round lists every namespace's pids)
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	is "$n" 8 "$desc: all 8 ranks are running"
	# timeout(1) is the parent: signal gridemu itself.
	[ "$sig" != none ] && pkill "-$sig" -P "$pid" -f "gridemu mpirun"
	wait "$pid"; st=$?
	local out job
	out=$(cat "$err"); rm -f "$err"
	job=$(printf '%s\n' "$out" | sed -n 's/^gridemu mpirun: rank map \(.*\)\.json$/\1/p')
	is "$st" "$want" "$desc: gridemu mpirun exits $want" || show_tail "$out"
	LAST_OUT=$out
	nothing_left "${job:-no-job-dir}" "$desc"
}

stop_job INT 130 "SIGINT"
like "$LAST_OUT" "interrupted by SIGINT: job .* stopped" "SIGINT: says the job was interrupted"
stop_job TERM 143 "SIGTERM"
like "$LAST_OUT" "interrupted by SIGTERM" "SIGTERM: says so"
stop_job none 124 "--timeout 5" --timeout 5
like "$LAST_OUT" "timed out after 5 s" "--timeout: says so"
bystanders_alive "after three stopped jobs"
done_testing
