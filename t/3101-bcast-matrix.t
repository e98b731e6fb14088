#!/bin/bash
# 3101-bcast-matrix - libgridbcast's correctness matrix through the library
# API (gb_bcast_run()), on two-clusters with a fast WAN (lib-bcast.sh) with 8 ranks: every registered
# planner (and native) x roots 0, last, middle x sizes 0, 1, 1000, 1 MiB,
# 8 MiB + 3 x MPI_BYTE, MPI_INT, a vector type; every rank's buffer checked
# (collectives/bcast/mpitest/bcast_matrix.c says how).  Then Isend mode, a split
# communicator with reversed rank order and trees relabelled for other roots
# (one planner of each kind), and the shared-file ablation; then segmented,
# pipelined broadcasts (GRIDBED_SEGMENT, issue 14) through all of these
# paths.  Each job batches many cases.
source "$(dirname "$0")/lib-netns.sh"
BCAST_TMP=$(mktemp -d /tmp/gb3101.XXXXXX)
trap 'rm -rf "$BCAST_TMP"; gb_cleanup' EXIT
source "$(dirname "$0")/lib-bcast.sh"

# the fast two-clusters of lib-bcast.sh: this matrix checks bytes, order
# and trees, not timing (t/3103 does); at 100 Mbit/s and 5 ms it took 149 s
# in CI, at 1 Gbit/s and 5 ms still 145 s.
bcast_fast_two_clusters
bcast_setup "$BCAST_FAST_TOPO" 8
GT=$GRIDBED_BUILD/collectives/gridtree
planners=$("$GT" list --names) || bail "gridtree list failed"
nplanners=$(printf '%s\n' "$planners" | wc -l)

# check_results FILE MODE-LABEL COMMS [PLANNERS]: one ok per planner (default:
# every registered one) and communicator
check_results() {
	local out=$1 label=$2 comms=$3 only=${4:-$planners} c p line
	for c in $comms; do
		for p in native $only; do
			line=$(grep -E "^RESULT comm=$c planner=$p mode=$label " "$out" | head -1)
			if [ -z "$line" ]; then
				ok 1 "$label $c $p: no result line"
				continue
			fi
			like "$line" "cases=[1-9][0-9]* bad=0 " "$label $c $p: ${line#RESULT }" ||
				diag "$(grep "planner=$p " "$out" | head -3)"
		done
	done
}

# 1. the full matrix on MPI_COMM_WORLD, blocking sends.  On the emulated
# grid an 8 MiB broadcast took 1 to 4 s over a 100 Mbit/s WAN, so there
# 8 MiB + 3 runs with MPI_BYTE from root 0 only unless GRIDBED_BCAST_FULL=1
# (about 5 minutes); every type and root run up to 1 MiB (neither changes
# how the executor treats a big message, only what MPI packs).
extra=() ncases=$(( (nplanners + 1) * 3 * 5 * 3 ))
if [ "$BCAST_ON_GRID" = 1 ] && [ "${GRIDBED_BCAST_FULL:-0}" != 1 ]; then
	extra=(--big-from 1M) ncases=$(( (nplanners + 1) * (3 * 4 * 3 + 1) ))
	diag "on the grid: 8 MiB + 3 with MPI_BYTE from root 0 only (GRIDBED_BCAST_FULL=1: all)"
fi
out=$BCAST_TMP/world.out
t0=$SECONDS
run_mpi -- "$BCAST_MPITEST/bcast_matrix" "${extra[@]}" >"$out"; st=$?
diag "full matrix job: $(( SECONDS - t0 )) s"
is "$st" 0 "full matrix job exits 0" || sed 's/^/#   /' "$out" | tail -20
like "$(grep '^TOTAL' "$out")" "TOTAL cases=$ncases bad=0" \
	"$(( nplanners + 1 )) algorithms x 3 roots x 5 sizes x 3 types ($ncases cases), none bad"
check_results "$out" blocking world
# the static planners plan locally; the others travel with the data
for p in binomial flat chain mpich-g2 magpie; do
	like "$(grep "comm=world planner=$p " "$out")" "via=local" "$p: tree planned on every rank"
done
like "$(grep "comm=world planner=mateescu " "$out")" \
	"via=piggyback model=topology .*\(fallback: no GRIDBED_MATRIX\)" \
	"mateescu: piggybacked, planned on the labelled topology fallback"

# 2. Isend mode, a split communicator (reverse order), relabelled trees:
# native and one planner of each kind (the static ones, whose trees are
# relabelled; measured and piggybacked; anytime; cluster-level; phoenix),
# as these paths depend on how a tree reaches the ranks, not on its shape
# (GRIDBED_BCAST_FULL=1: every planner)
kinds=binomial,flat,chain,mpich-g2,magpie,mateescu,pipeline,clustered-sa,mostcrit,phoenix
[ "${GRIDBED_BCAST_FULL:-0}" = 1 ] && kinds=all
out=$BCAST_TMP/isend.out
t0=$SECONDS
run_mpi -- "$BCAST_MPITEST/bcast_matrix" --isend --split --relabel \
	--planners "native,$kinds" --sizes 0,1,1000,65537 >"$out"; st=$?
diag "isend/split/relabel job ($kinds): $(( SECONDS - t0 )) s"
is "$st" 0 "isend/split/relabel job exits 0" || sed 's/^/#   /' "$out" | tail -20
like "$(grep '^TOTAL' "$out")" "bad=0" "isend/split/relabel: none bad"
[ "$kinds" = all ] && kinds=$planners
check_results "$out" isend "world split-even split-odd" "${kinds//,/ }"
for p in binomial flat chain mpich-g2 magpie; do
	like "$(grep "comm=world planner=$p mode=isend-relabel" "$out")" "cases=24 bad=0" \
		"$p's tree for root 0 run from roots 7 and 4, local and piggybacked"
done

# 3. the shared-file ablation (measured planners only differ)
out=$BCAST_TMP/shared.out
t0=$SECONDS
GRIDBED_TREE_DIR=$BCAST_TMP run_mpi -- "$BCAST_MPITEST/bcast_matrix" --shared \
	--planners mateescu,sa,clustered-sa,ecef,mostcrit --sizes 1,1000,1M >"$out"; st=$?
diag "shared-file job: $(( SECONDS - t0 )) s"
is "$st" 0 "shared-file ablation job exits 0" || sed 's/^/#   /' "$out" | tail -20
for p in mateescu sa clustered-sa ecef mostcrit; do
	like "$(grep "comm=world planner=$p " "$out")" "bad=0 segmented=[0-9]* via=shared-file " \
		"$p: tree read from the shared file (labelled), buffers right"
done
ls "$BCAST_TMP"/gridbed-tree-*-mateescu-r0-*.json >/dev/null 2>&1
ok $? "the ablation wrote its tree files where GRIDBED_TREE_DIR says"

# 4. segmented and pipelined (issue 14): segments of 1000 bytes (1000 bytes,
# 250 ints, 41 vector elements of 24 data bytes) for static trees (planned
# on every rank) and measured ones (piggybacked), on the world and on the
# split communicators, and static trees relabelled for other roots; every
# byte, parent and header checked as above.  Size 0 stays whole.
out=$BCAST_TMP/seg.out
segp=binomial,mpich-g2,mateescu,mostcrit
t0=$SECONDS
GRIDBED_SEGMENT=1000 run_mpi -- "$BCAST_MPITEST/bcast_matrix" --split --relabel \
	--planners $segp --sizes 0,1000,65537,300000 >"$out"; st=$?
diag "segmented job: $(( SECONDS - t0 )) s"
is "$st" 0 "segmented job exits 0" || sed 's/^/#   /' "$out" | tail -20
like "$(grep '^TOTAL' "$out")" "bad=0" "segmented: none bad"
for c in world split-even split-odd; do
	for p in ${segp//,/ }; do
		# 3 roots x 4 sizes x 3 types; 1000 B is one segment for MPI_BYTE
		# and MPI_INT, two for the vector (1008 B); 65537 B and 300000 B
		# are cut for every type: 3 x (1 + 3 + 3) = 21 segmented cases
		like "$(grep "comm=$c planner=$p mode=blocking " "$out")" \
			"cases=36 bad=0 segmented=21 " "segmented $c $p: every buffer right"
	done
done
for p in binomial mpich-g2; do
	like "$(grep "comm=world planner=$p mode=blocking-relabel" "$out")" \
		"cases=24 bad=0 segmented=12 " \
		"$p's tree for root 0 run segmented from roots 0, 7 and 4, local and piggybacked"
done
out=$(GRIDBED_SEGMENT=12x run_mpi -- "$BCAST_MPITEST/bcast_matrix" --planners binomial \
	--sizes 1 2>&1); st=$?
ok $(( st == 0 )) "GRIDBED_SEGMENT=12x: the job fails (status $st)"
like "$out" "GRIDBED_SEGMENT='12x': not 'auto', 0 or a size" "... with a one-line reason"

# 5. waits asleep (GRIDBED_BCAST_WAIT=sleep, collectives/bcast/bcast_wait.c):
# receives, blocking sends, Isend mode and pipelined segments all wait in
# epoll_wait instead of MPI's spinning progress; 1 MiB is above the eager
# limit, so its sends wait for the rendezvous reply asleep
for mode in "" --isend; do
	out=$BCAST_TMP/sleep$mode.out
	t0=$SECONDS
	GRIDBED_BCAST_WAIT=sleep run_mpi -- "$BCAST_MPITEST/bcast_matrix" $mode \
		--planners native,binomial,mpich-g2,mateescu,clustered-sa --sizes 0,1,1000,1M \
		>"$out"; st=$?
	diag "sleeping waits${mode:+ ($mode)}: $(( SECONDS - t0 )) s"
	is "$st" 0 "sleeping waits${mode:+ ($mode)}: the job exits 0" ||
		sed 's/^/#   /' "$out" | tail -20
	like "$(grep '^TOTAL' "$out")" "cases=[1-9][0-9]* bad=0" \
		"sleeping waits${mode:+ ($mode)}: every buffer right"
done
out=$BCAST_TMP/sleep-seg.out
GRIDBED_BCAST_WAIT=sleep GRIDBED_SEGMENT=1000 run_mpi -- "$BCAST_MPITEST/bcast_matrix" \
	--planners binomial,mpich-g2 --sizes 65537,300000 >"$out"; st=$?
is "$st" 0 "sleeping waits, segmented: the job exits 0" || sed 's/^/#   /' "$out" | tail -20
like "$(grep '^TOTAL' "$out")" "cases=[1-9][0-9]* bad=0" "sleeping waits, segmented: every buffer right"

done_testing
