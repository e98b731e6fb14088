#!/bin/bash
# 3102-bcast-pmpi - libgridbcast.so's MPI_Bcast on an unmodified program
# (collectives/bcast/mpitest/bcast_plain.c: plain MPI, no gridbed header), on
# two-clusters with a fast WAN (lib-bcast.sh) with 8 ranks:
#   - LD_PRELOAD, GRIDBED_BCAST = native and one planner of each kind (see
#     below; GRIDBED_BCAST_FULL=1: every registered planner):
#     roots 0, last, middle x sizes x MPI_BYTE, MPI_INT, a vector type on
#     MPI_COMM_WORLD and on two MPI_Comm_split communicators; every rank
#     checks every byte (sizes: below);
#   - the application log: one line per broadcast, written by its root,
#     "timestamp size root commsize algorithm";
#   - the same program linked against libgridbcast.so, without preload;
#   - segmented, pipelined broadcasts (GRIDBED_SEGMENT, issue 14) for a
#     measured planner, every byte checked;
#   - striped ones (GRIDBED_STRIPES=2 for a measured planner, 3 for a
#     static one), every byte checked, and stripes by size
#     (GRIDBED_STRIPES=128K:3,1);
#   - an unknown planner or segment size fails the job with a one-line message.
source "$(dirname "$0")/lib-netns.sh"
BCAST_TMP=$(mktemp -d /tmp/gb3102.XXXXXX)
trap 'rm -rf "$BCAST_TMP"; gb_cleanup' EXIT
source "$(dirname "$0")/lib-bcast.sh"

# the fast two-clusters of lib-bcast.sh: every byte is checked, no time
bcast_fast_two_clusters
bcast_setup "$BCAST_FAST_TOPO" 8
SO=$BCAST_BUILD/libgridbcast.so
[ -r "$SO" ] || bail "libgridbcast.so not built at $SO"
planners=$("$GRIDBED_BUILD/collectives/gridtree" list --names) || bail "gridtree list failed"
# The PMPI layer hands the call to the same executor whatever the planner;
# what differs between planners is how the tree reaches the ranks.  t/3101
# runs every registered planner through that executor; here one planner of
# each kind goes through MPI_Bcast: static trees planned on every rank
# (binomial, mpich-g2), measured ones piggybacked from the root (mateescu,
# pipeline), anytime (clustered-sa), cluster-level (mostcrit), phoenix.
if [ "${GRIDBED_BCAST_FULL:-0}" != 1 ]; then
	kinds="binomial mpich-g2 mateescu pipeline clustered-sa mostcrit phoenix"
	for p in $kinds; do
		printf '%s\n' "$planners" | grep -qx "$p" || bail "planner '$p' is not registered"
	done
	diag "one planner of each kind: $kinds (GRIDBED_BCAST_FULL=1: all $(printf '%s\n' "$planners" | wc -l))"
	planners=$kinds
fi

# bcast_plain's broadcasts with its default sizes (5): world 3 roots x 5
# sizes x 3 types = 45; each split makes two 4-rank communicators with
# 3 roots x 4 sizes x 3 types; a rank takes part in 45 + 36 + 36.  The
# library API test (3101) runs the whole size list for every planner; here
# the big sizes run for one planner of each kind (native, static, measured;
# on the emulated grid, where 8 MiB takes seconds, for the measured one)
# and the others cover the eager and rendezvous paths up to 64 KiB + 1.
FULL="native mpich-g2 mostcrit"
[ "$BCAST_ON_GRID" = 1 ] && FULL=mostcrit

for p in native $planners; do
	log=$BCAST_TMP/app-$p.log
	case " $FULL " in
	*" $p "*) args=(); per_rank=117; world=45; split=144 ;;
	*) args=(--sizes 0,1,1000,65537); per_rank=108; world=36; split=144 ;;
	esac
	out=$(GRIDBED_BCAST=$p GRIDBED_APPLOG=$log run_mpi -p "$SO" -- \
		"$BCAST_MPITEST/bcast_plain" "${args[@]}"); st=$?
	if ! ok $st "preloaded, GRIDBED_BCAST=$p: job exits 0"; then
		printf '%s\n' "$out" | tail -15 | sed 's/^/#   /'
		skip 2 "job failed"
		continue
	fi
	like "$out" "bcast_plain: $per_rank broadcasts, 0 bad" \
		"GRIDBED_BCAST=$p: every buffer right (${args[*]:-all sizes})"
	# the log proves which MPI_Bcast ran: ours, with the planner named
	got=$(awk -v p="$p" 'NF >= 5 && $5 == p { c[$4]++ } END { printf "%d %d", c[8], c[4] }' \
		"$log" 2>/dev/null)
	is "$got" "$world $split" \
		"GRIDBED_BCAST=$p: app log has one '$p' line per broadcast (world, split)"
done

# the log's fields, on a log with every size
log=$BCAST_TMP/app-mostcrit.log
bad=$(awk 'NF < 5 || $1 !~ /^[0-9]+\.[0-9]+$/ || $2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+$/ ||
	   $3 >= $4 { n++ } END { print n + 0 }' "$log")
is "$bad" 0 "app log lines are 'timestamp size root commsize algorithm'"
sizes=$(awk '$4 == 8 { print $2 }' "$log" | sort -un | tr '\n' ' ')
is "$sizes" "0 1 4 24 1000 1008 1048576 1048584 8388611 8388612 8388624 " \
	"app log sizes are bytes (count x type size)"
now=$(awk '{ print $1 }' /proc/uptime)
first=$(head -1 "$log" | cut -d' ' -f1)
ok "$(awk -v a="$first" -v b="$now" 'BEGIN { print (a > 0 && a <= b + 1) ? 0 : 1 }')" \
	"timestamps are CLOCK_MONOTONIC seconds ($first <= uptime $now)"

# linked, not preloaded
log=$BCAST_TMP/app-linked.log
out=$(GRIDBED_BCAST=mpich-g2 GRIDBED_APPLOG=$log run_mpi -- \
	"$BCAST_MPITEST/bcast_plain_linked" --sizes 0,1,1000,1048576); st=$?
is "$st" 0 "linked against libgridbcast.so: job exits 0" ||
	printf '%s\n' "$out" | tail -15 | sed 's/^/#   /'
like "$out" "108 broadcasts, 0 bad" "linked: every buffer right"
is "$(grep -c ' mpich-g2$' "$log" 2>/dev/null)" 180 "linked: MPI_Bcast is ours (180 log lines)"

# segmented: 1000-byte segments (whole elements of every type) on the
# world and both splits, sizes 0 to 1 MiB, for a piggybacked tree (3101
# runs the static ones segmented too); the record says segments ran
for p in mostcrit; do
	rec=$BCAST_TMP/rec-seg-$p.jsonl
	out=$(GRIDBED_BCAST=$p GRIDBED_SEGMENT=1000 GRIDBED_BCAST_RECORD=$rec run_mpi -p "$SO" -- \
		"$BCAST_MPITEST/bcast_plain" --sizes 0,1000,65537,1048576); st=$?
	is "$st" 0 "GRIDBED_SEGMENT=1000, GRIDBED_BCAST=$p: job exits 0" ||
		printf '%s\n' "$out" | tail -15 | sed 's/^/#   /'
	like "$out" "bcast_plain: 108 broadcasts, 0 bad" \
		"GRIDBED_SEGMENT=1000, GRIDBED_BCAST=$p: every buffer right"
	like "$(grep -c '"seg_bytes": *[1-9]' "$rec" 2>/dev/null)" "^[1-9][0-9]*$" \
		"GRIDBED_SEGMENT=1000, GRIDBED_BCAST=$p: the record has segmented calls"
done
# striped (issue 14): the 1000-byte segments down 2 trees for a piggybacked
# tree (the stripes and the clusters travel in the header) and down 3 for a
# static one (every rank derives them), each cluster's hosts rotated, on the
# world and both splits: every byte checked, and the record says how many
# stripes ran
# striped_job STRIPES PLANNER RECORD: 1000-byte segments down STRIPES,
# the job exits 0 and every buffer is right
striped_job() {
	local k=$1 p=$2 rec=$3 out st
	out=$(GRIDBED_BCAST=$p GRIDBED_SEGMENT=1000 GRIDBED_STRIPES=$k \
		GRIDBED_BCAST_RECORD=$rec run_mpi -p "$SO" -- \
		"$BCAST_MPITEST/bcast_plain" --sizes 0,1000,65537,1048576); st=$?
	is "$st" 0 "GRIDBED_STRIPES=$k, GRIDBED_BCAST=$p: job exits 0" ||
		printf '%s\n' "$out" | tail -15 | sed 's/^/#   /'
	like "$out" "bcast_plain: 108 broadcasts, 0 bad" \
		"GRIDBED_STRIPES=$k, GRIDBED_BCAST=$p: every buffer right"
}
for kp in 2:mostcrit 3:mpich-g2; do
	k=${kp%%:*} p=${kp#*:}
	rec=$BCAST_TMP/rec-stripes-$k-$p.jsonl
	striped_job "$k" "$p" "$rec"
	like "$(grep -c "\"seg_bytes\": *[1-9][0-9]*, \"stripes\": $k" "$rec" 2>/dev/null)" \
		"^[1-9][0-9]*$" "GRIDBED_STRIPES=$k, GRIDBED_BCAST=$p: the record has striped calls"
done
# stripes by size: 3 trees up to 128 KiB, 1 above, on every rank from its
# own message size (static tree) or from the root's header (measured); the
# record says the trees of each segmented call (payload bytes: the types'
# whole elements, 65537-65540 and about 1 MiB)
for p in mpich-g2 mostcrit; do
	rec=$BCAST_TMP/rec-stripes-table-$p.jsonl
	striped_job 128K:3,1 "$p" "$rec"
	read -r small s3 big b1 < <(awk '{
		z = $0; sub(/.*"size": */, "", z); g = $0; sub(/.*"seg_bytes": */, "", g)
		k = $0; sub(/.*"stripes": */, "", k)
		if (g + 0 > 0 && z + 0 <= 131072) { small++; s3 += (k + 0 == 3) }
		if (g + 0 > 0 && z + 0 > 131072) { big++; b1 += (k + 0 == 1) }
	} END { print small + 0, s3 + 0, big + 0, b1 + 0 }' "$rec" 2>/dev/null)
	ok $(( !(small > 0 && s3 == small && big > 0 && b1 == big) )) \
		"GRIDBED_STRIPES=128K:3,1, GRIDBED_BCAST=$p: segmented calls up to 128 KiB down 3 trees ($s3 of $small), above down 1 ($b1 of $big)"
done
out=$(GRIDBED_BCAST=mpich-g2 GRIDBED_STRIPES=2M:4,1M:2 run_mpi -p "$SO" -- \
	"$BCAST_MPITEST/bcast_plain" --quick); st=$?
ok $(( st == 0 )) "GRIDBED_STRIPES=2M:4,1M:2: the job fails (status $st)"
like "$out" "GRIDBED_STRIPES='2M:4,1M:2': not a number of trees from 1 to 16, nor a table 'SIZE:K,\\.\\.\\.\\[,K\\]': sizes must increase: '1M' after 2097152 bytes" \
	"the failure names the variable, its value and what is wrong"
out=$(GRIDBED_BCAST=mostcrit GRIDBED_STRIPES=17 run_mpi -p "$SO" -- \
	"$BCAST_MPITEST/bcast_plain" --quick); st=$?
ok $(( st == 0 )) "GRIDBED_STRIPES=17: the job fails (status $st)"
like "$out" "GRIDBED_STRIPES='17': not a number of trees from 1 to 16" \
	"the failure names the variable and its value"

out=$(GRIDBED_BCAST=mpich-g2 GRIDBED_SEGMENT=lots run_mpi -p "$SO" -- \
	"$BCAST_MPITEST/bcast_plain" --quick); st=$?
ok $(( st == 0 )) "GRIDBED_SEGMENT=lots: the job fails (status $st)"
like "$out" "gridbcast: MPI_Bcast with 'mpich-g2': GRIDBED_SEGMENT='lots': not 'auto'" \
	"the failure names the variable and its value"

# without GRIDBED_BCAST the preloaded library passes through to MPI
log=$BCAST_TMP/app-default.log
out=$(GRIDBED_APPLOG=$log run_mpi -p "$SO" -- "$BCAST_MPITEST/bcast_plain" --quick)
like "$out" "0 bad" "no GRIDBED_BCAST: native, buffers right"
like "$(head -1 "$log")" " native$" "no GRIDBED_BCAST: logged as native"

# an unknown planner fails loudly
out=$(GRIDBED_BCAST=no-such-planner run_mpi -p "$SO" -- \
	"$BCAST_MPITEST/bcast_plain" --quick); st=$?
ok $(( st == 0 )) "GRIDBED_BCAST=no-such-planner: the job fails (status $st)"
like "$out" "gridbcast: MPI_Bcast with 'no-such-planner': unknown planner" \
	"the failure names the planner"

done_testing
