#!/usr/bin/env bash
# mpirun-launch.sh - how long `gridemu mpirun` takes to start and end an MPI
# job with one rank per host: wall time from the start of `gridemu mpirun` to
# its exit, for a program that only calls MPI_Init and MPI_Finalize
# (emulator/mpitest/mpi_bcast 0).  It brings its own grid up and down.
#
#   emulator/bench/mpirun-launch.sh [--topology FILE] [--runs N] [--backend B]
#
# Default: topologies/teragrid.yaml (64 hosts), 3 runs, backend auto.  Prints
# every run and the median.  It is a benchmark: it asserts nothing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${GRIDBED_BUILD:-$src/build}
GRIDEMU=${GRIDEMU:-$build/emulator/gridemu}
me=mpirun-launch.sh
. "$src/util/bench/lib-bench.sh"
PROG=$build/emulator/mpitest/mpi_bcast
topo=$src/topologies/teragrid.yaml; runs=3; backend=auto
while [ $# -gt 0 ]; do
	case "$1" in
		--topology) topo=$2; shift ;;
		--runs) runs=$2; shift ;;
		--backend) backend=$2; shift ;;
		*) bench_usage 11 "$1" ;;
	esac
	shift
done
bench_need 1 root mpirun
[ -x "$PROG" ] || { echo "mpirun-launch.sh: $PROG is not built" >&2; exit 1; }

GRIDBED_PREFIX=$(bench_prefix ml)
export GRIDBED_PREFIX
export GRIDBED_RUNDIR=${GRIDBED_RUNDIR:-/run/gridbed-bench}
trap '"$GRIDEMU" down >/dev/null 2>&1; rm -rf "${GRIDBED_RUNDIR:?}/$GRIDBED_PREFIX"' EXIT
trap 'exit 130' INT TERM
out=$("$GRIDEMU" up --backend "$backend" "$topo" 2>&1) || { echo "up failed: $out" >&2; exit 1; }
echo "$out"
hosts=$("$GRIDEMU" status --json | grep -c '"netns"')

ms() { echo $(( $(date +%s%N) / 1000000 )); }
times=()
for i in $(seq "$runs"); do
	t0=$(ms)
	"$GRIDEMU" mpirun -- "$PROG" 0 || { echo "run $i failed" >&2; exit 1; }
	t1=$(ms)
	times+=($((t1 - t0)))
	printf "run %d: %d ranks launched and finalized in %.3f s\n" "$i" "$hosts" \
		"$(awk -v x=$((t1 - t0)) 'BEGIN {print x / 1000}')"
done
med=$(printf '%s\n' "${times[@]}" | sort -n |
	awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}')
printf "launch time of %d ranks (MPI_Init + MPI_Finalize, gridemu mpirun start to exit): " "$hosts"
printf "median %.3f s over %d runs (%s, %d cores)\n" "$(awk -v x="$med" 'BEGIN {print x / 1000}')" \
	"$runs" "$(basename "$topo")" "$(nproc)"
