#!/usr/bin/env bash
# 9010-stencil-topo-cli - gridstencil-topo, the command that prints seed 004
# s3's topology for a grid and a list of machine sizes: the paper's
# examples (s3.4 in 3-D, Fig. 1 in 2-D, Fig. 2 / s4.2 with speeds), the
# wide-area faces of both layouts, and bad input (one line, exit 2).
source "$(dirname "$0")/lib-netns.sh"
GT=$GRIDBED_BUILD/stencil/gridstencil-topo
[ -x "$GT" ] || bail "gridstencil-topo not built at $GT"
line() { printf '%s\n' "$1" | sed -n "s/^$2: //p"; }

out=$("$GT" --grid 128x256x64 --machines 64,128,128,256); st=$?
is "$st" 0 "s3.4 example runs"
is "$(line "$out" topology)" 8x18x4 "s3.4: 8x18x4"
is "$(line "$out" "standard topology")" 9x8x8 "s3.4: the previous algorithm's 9x8x8"
is "$(line "$out" "positions per machine along the longest dimension")" "2 4 4 8" \
	"s3.4: 2, 4, 4, 8 positions along dimension 1"
like "$(line "$out" "smallest machine")" "subgrid 128x28x64 -> 8x2x4" "s3.4 step 5"
is "$(line "$out" "wide-area face")" "24576 points" "s3.4: 3 x 128 x 64 points on the WAN"

out=$("$GT" --grid 128x256 --machines 8,16)
is "$(line "$out" topology)" 4x6 "Fig. 1: 4x6"
is "$(line "$out" "wide-area face")" "128 points" "Fig. 1: 128 points across the machines"
is "$(line "$out" "standard wide-area face")" "256 points" "Fig. 1, classical layout: 256"

out=$("$GT" --grid 320x320x160 --machines 128,128 --speeds 1/4.40,1/2.41)
is "$(line "$out" topology)" 8x8x4 "Fig. 2: 8x8x4"
is "$(line "$out" slabs)" "28 28 28 28 52 52 52 52" "s4.2: slabs by speed"
out=$("$GT" --grid 320x320x160 --machines 128,128 --speeds 1/4.40,1/2.41 --reduce 0.2)
slabs=$(line "$out" slabs)
is "$(echo "$slabs" | tr ' ' '\n' | awk '{ s += $1 } END { print s }')" 320 "s4.3: the slabs still sum to 320 ($slabs)"
set -- $slabs
ok $(( $4 < $3 && $5 < $6 ? 0 : 1 )) "s4.3: the boundary slabs are the thinner ones"

bad() { # bad DESCRIPTION REGEX ARGS...
	local d=$1 re=$2; shift 2
	local o st
	o=$("$GT" "$@" 2>&1); st=$?
	is "$st" 2 "$d: exit 2"
	like "$o" "$re" "$d: says why"
	is "$(printf '%s\n' "$o" | wc -l)" 1 "$d: one line"
}
bad "bad grid" "^gridstencil-topo: --grid: '12xx3' is not a grid" --grid 12xx3 --machines 4
bad "zero processors" "^gridstencil-topo: --machines: '0,4'" --grid 8x8 --machines 0,4
bad "speeds per machine" "^gridstencil-topo: --speeds: '1' needs one" --grid 8x8 --machines 2,2 --speeds 1
bad "reduce" "^gridstencil-topo: --reduce: '1.5'" --grid 8x8 --machines 2 --reduce 1.5
o=$("$GT" --grid 8x8 2>&1); st=$?
is "$st" 2 "missing --machines: exit 2"
"$GT" --help | grep -q '^usage: gridstencil-topo'
ok $? "--help"
done_testing
