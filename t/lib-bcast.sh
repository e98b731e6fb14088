# shellcheck shell=bash
# lib-bcast.sh - sourced by the libgridbcast tests (t/31xx), after lib-netns.sh.
#
# Chooses how MPI jobs run and gives one way to start them:
#
#   bcast_fast_two_clusters       two-clusters with a fast WAN (below)
#                                 in $BCAST_FAST_TOPO
#   bcast_setup TOPOLOGY NRANKS   pick the launcher (below), bring a grid up
#                                 if it is gridemu mpirun; skips the test
#                                 when no launcher exists
#   run_mpi [-x NAME=VAL]... [-p LIB] -- PROG ARGS   run one job (LIB:
#                                 LD_PRELOAD'ed into the ranks only),
#                                 stdout+stderr to stdout, the job's status
#
# Launchers, in order of preference:
#   1. `gridemu mpirun` (when `gridemu mpirun --help` works, we are root and
#      namespaces can be made): the real thing, one rank per emulated host,
#      MPI over the shaped data plane.  BCAST_ON_GRID=1.
#   2. plain OpenMPI on loopback, as in docs/platform.md (TCP BTL on lo, no shared
#      memory).  Unshaped, so only correctness is meaningful; the topology is
#      still used for planning (GRIDBED_TOPOLOGY).  BCAST_ON_GRID=0.
#   3. none: the test is skipped.

BCAST_BUILD=$GRIDBED_BUILD/collectives
BCAST_MPITEST=$BCAST_BUILD/mpitest
BCAST_ON_GRID=0
BCAST_NRANKS=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Several OpenMPI jobs share these 2 cores; PMIx's shared-memory store
# misbehaves with many daemons (docs/platform.md).
export PMIX_MCA_gds=hash
# The sanitizer pass (cmake/bootstrap): ASan and UBSan check the MPI jobs,
# LeakSanitizer does not by default: Open MPI does not free everything at
# MPI_Finalize, and suppressing its leaks (t/lsan-mpi.supp) needs whole
# stacks (it has no frame pointers), which makes every job about ten times
# slower.  GRIDBED_BCAST_LEAKCHECK=1 turns that on.
if [ -n "${ASAN_OPTIONS:-}" ]; then
	if [ "${GRIDBED_BCAST_LEAKCHECK:-0}" = 1 ]; then
		export ASAN_OPTIONS=$ASAN_OPTIONS:fast_unwind_on_malloc=0
		export LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$GRIDBED_SRC/t/lsan-mpi.supp:print_suppressions=0
		export OMPI_MCA_mca_base_component_disable_dlclose=1
		export PMIX_MCA_mca_base_component_disable_dlclose=1
	else
		export ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0
	fi
fi

# bcast_fast_two_clusters: writes topologies/two-clusters.yaml with its WAN
# link at 1 Gbit/s and 0.5 ms (instead of 100 Mbit/s and 5 ms) and a
# data-plane MTU of 9000 bytes (instead of the default 1500) into
# $BCAST_TMP, its path in BCAST_FAST_TOPO.  For the tests that check bytes, order and
# trees, not timing: their hundreds of small cases wait on the WAN's latency
# and their 8 MiB ones on its rate, and their big messages on the user-space
# delay line, which copies every frame of every hop (jumbo frames: a sixth
# as many; docs/measurements.md, sessions 43 and 44).
bcast_fast_two_clusters() {
	BCAST_FAST_TOPO=$BCAST_TMP/two-clusters-fast.yaml
	sed -e 's/delay: 5ms, rate: 100mbit/delay: 0.5ms, rate: 1gbit/' \
		-e '/^root: /a mtu: 9000' "$TOPOS/two-clusters.yaml" >"$BCAST_FAST_TOPO"
	grep -q 'delay: 0.5ms, rate: 1gbit' "$BCAST_FAST_TOPO" ||
		bail "two-clusters.yaml's WAN link is not '{delay: 5ms, rate: 100mbit}' any more"
	grep -q '^mtu: 9000$' "$BCAST_FAST_TOPO" ||
		bail "two-clusters.yaml has no 'root:' line to put 'mtu: 9000' after"
}

bcast_have_gridemu_mpirun() {
	[ -x "$GRIDEMU" ] && "$GRIDEMU" mpirun --help >/dev/null 2>&1
}

bcast_setup() {
	local topo=$1 n=$2
	BCAST_NRANKS=$n
	BCAST_TOPO=$topo
	[ -x "$BCAST_BUILD/gridbcast" ] || bail "gridbcast not built at $BCAST_BUILD/gridbcast"
	[ -x "$BCAST_MPITEST/bcast_matrix" ] || bail "mpitest programs not built in $BCAST_MPITEST"
	command -v mpirun >/dev/null || skip_all "mpirun (openmpi-bin) is not installed"
	if [ "${GRIDBED_BCAST_LOOPBACK:-0}" != 1 ] && bcast_have_gridemu_mpirun &&
	   [ "$(id -u)" = 0 ] && unshare --net true 2>/dev/null; then
		"$GRIDEMU" up "$topo" >/dev/null 2>"$BCAST_TMP/up.err" ||
			bail "gridemu up $topo failed: $(cat "$BCAST_TMP/up.err")"
		BCAST_ON_GRID=1
		diag "launcher: gridemu mpirun, $n ranks on $(basename "$topo") (prefix $GRIDBED_PREFIX)"
	else
		BCAST_ON_GRID=0
		export GRIDBED_TOPOLOGY=$topo
		diag "launcher: plain mpirun on loopback, $n ranks (gridemu mpirun not available" \
		     "or GRIDBED_BCAST_LOOPBACK=1): unshaped, correctness only;" \
		     "trees planned on $(basename "$topo")"
	fi
}

run_mpi() {
	local xs=() pre=() a
	for a in ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS; do
		[ -n "${!a:-}" ] && xs+=(-x "$a=${!a}")
	done
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		case $1 in
		-x) xs+=(-x "$2"); shift 2 ;;
		-p) # a sanitized library needs the ASan runtime first in the list
			a=$(ldd "$2" 2>/dev/null | awk '/libasan/ { print $3 }')
			pre=("${a:+$a:}$2"); shift 2 ;;
		*) bail "run_mpi: unknown option $1" ;;
		esac
	done
	shift
	if [ "$BCAST_ON_GRID" = 1 ]; then
		[ ${#pre[@]} = 1 ] && xs+=(--preload "${pre[0]}")
		"$GRIDEMU" mpirun -n "$BCAST_NRANKS" "${xs[@]}" -- "$@" 2>&1
	else
		# plain mpirun exports only what -x names: every GRIDBED_* variable
		for a in $(compgen -e | grep '^GRIDBED_'); do xs+=(-x "$a"); done
		[ ${#pre[@]} = 1 ] && xs+=(-x "LD_PRELOAD=${pre[0]}")
		mpirun --oversubscribe -np "$BCAST_NRANKS" --mca btl tcp,self \
			--mca btl_tcp_if_include lo --mca oob_tcp_if_include lo \
			--mca mpi_yield_when_idle 1 "${xs[@]}" "$@" 2>&1
	fi
}
