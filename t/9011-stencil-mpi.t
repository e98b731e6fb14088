#!/bin/bash
# 9011-stencil-mpi - gridstencil on 2 + 2 ranks of an emulated two-cluster
# grid (plain mpirun on loopback when gridemu mpirun cannot run, with the
# machines from GRIDBED_TOPOLOGY): adaptations must never change the
# numbers.  The standard run and grid-aware runs with every adaptation on
# give bit-identical fields (the final dumps compare equal byte for byte,
# and the decomposition-independent checksums agree), in 2-D and 3-D:
#   - adaptive: N = 2, M = 8, warm-up 2, eps 0, so that every group's
#     compression is tried and the ghost depth is tried in these few
#     iterations (the events file must show both);
#   - forced: ghost depth 3 and compression always, so that the redundant
#     ghost-zone updates and compressed halos certainly run whatever the
#     decisions would be (the metadata must show depth 3 and fewer bytes
#     sent than raw).
# Also: the machines come from the rank map (or the topology), the slabs
# sum to the grid, and bad options exit 2 with one line.
source "$(dirname "$0")/lib-netns.sh"
BCAST_TMP=$(mktemp -d /tmp/gb9011.XXXXXX)
trap 'rm -rf "$BCAST_TMP"; gb_cleanup' EXIT
source "$(dirname "$0")/lib-bcast.sh"
source "$(dirname "$0")/lib-stencil.sh"

stencil_grid


# gs NAME ARGS...: one gridstencil job; its output in $BCAST_TMP/NAME.log
gs() {
	local name=$1; shift
	run_mpi -- "$GS" --quiet --bench-time 0.2 --out "$BCAST_TMP/$name.csv" \
		--events "$BCAST_TMP/$name-ev.csv" --dump "$BCAST_TMP/$name.bin" "$@" \
		> "$BCAST_TMP/$name.log" 2>&1
}
sum_of() { sed -n 's/^gridstencil: checksum //p' "$BCAST_TMP/$1.log"; }

ADAPT=(--mode grid --monitor 2 --reeval 8 --warmup 2 --eps 0)
FORCE=(--mode grid --ghost 3 --compress always)
for case in "2d 48x96 40" "3d 12x12x40 30"; do
	set -- $case
	dim=$1 grid=$2 iters=$3
	gs "$dim-std" --mode standard --grid "$grid" --iters "$iters"
	ok $? "$dim standard run" || tail -5 "$BCAST_TMP/$dim-std.log" | sed 's/^/#   /'
	gs "$dim-adapt" "${ADAPT[@]}" --grid "$grid" --iters "$iters"
	ok $? "$dim grid-aware run, adaptive" || tail -5 "$BCAST_TMP/$dim-adapt.log" | sed 's/^/#   /'
	gs "$dim-force" "${FORCE[@]}" --grid "$grid" --iters "$iters"
	ok $? "$dim grid-aware run, depth 3, compression always" ||
		tail -5 "$BCAST_TMP/$dim-force.log" | sed 's/^/#   /'

	std=$(sum_of "$dim-std")
	like "$std" '^[0-9a-f]{16}$' "$dim standard checksum $std"
	is "$(sum_of "$dim-adapt")" "$std" "$dim adaptive: same checksum as standard"
	is "$(sum_of "$dim-force")" "$std" "$dim forced: same checksum as standard"
	cmp -s "$BCAST_TMP/$dim-std.bin" "$BCAST_TMP/$dim-adapt.bin"
	ok $? "$dim adaptive: dump bit-identical to standard"
	cmp -s "$BCAST_TMP/$dim-std.bin" "$BCAST_TMP/$dim-force.bin"
	ok $? "$dim forced: dump bit-identical to standard"
	npts=$(( $(echo "$grid" | tr x '*') ))
	is "$(stat -c %s "$BCAST_TMP/$dim-std.bin")" $(( npts * 9 * 8 )) \
		"$dim dump holds 9 groups x $npts points"

	ev=$BCAST_TMP/$dim-adapt-ev.csv
	ncomp=$(grep -c ',comp-try,' "$ev")
	ok $(( ncomp >= 9 ? 0 : 1 )) "$dim adaptive: compression tried ($ncomp trials)"
	grep -q ',ghost-try,' "$ev"
	ok $? "$dim adaptive: a wider ghost zone tried"
	m=$BCAST_TMP/$dim-force.json
	is "$(meta "$m" "j['results']['final_depth']")" 3 "$dim forced: wide-area depth 3"
	is "$(meta "$m" "j['results']['wan_wire_bytes'] < j['results']['wan_raw_bytes']")" True \
		"$dim forced: compressed halos sent fewer bytes"
	is "$(meta "$m" "sum(j['slabs']) == int('$grid'.split('x')[j['longest_dimension']])")" \
		True "$dim slabs sum to the grid's longest dimension"
done

m=$BCAST_TMP/2d-adapt.json
is "$(meta "$m" "' '.join('%s=%d' % (x['name'], x['ranks']) for x in j['machines'])")" \
	"a=2 b=2" "machines from the job layout: a=2 b=2"
if [ "$BCAST_ON_GRID" = 1 ]; then
	like "$(meta "$m" "j['machines_from']")" '^rank map ' "machines came from the rank map"
else
	like "$(meta "$m" "j['machines_from']")" '^topology ' "machines came from GRIDBED_TOPOLOGY"
fi
is "$(meta "$m" "j['processor_topology']")" 2x2 "2-D 48x96 on 2 + 2: topology 2x2"
is "$(meta "$BCAST_TMP/2d-std.json" "j['processor_topology']")" 2x2 "standard: 2x2 too"
is "$(meta "$BCAST_TMP/2d-std.json" "j['wan_face_points']")" 96.0 \
	"standard: the machine boundary cuts the long side (96 points)"
is "$(meta "$m" "j['wan_face_points']")" 48.0 "grid-aware: the short side (48 points)"

# bad input: one line, exit 2, from every launcher alike
out=$("$GS" --grid 4xx4 2>&1); st=$?
is "$st" 2 "--grid 4xx4 exits 2"
like "$out" "^gridstencil: --grid: '4xx4' is not a grid" "and names the option"
out=$("$GS" --groups pulse,smoke 2>&1); st=$?
is "$st" 2 "--groups with an unknown kind exits 2"
"$GS" --help | grep -q '^usage: gridstencil'
ok $? "--help"
done_testing
