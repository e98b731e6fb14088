#!/bin/bash
# 9014-stencil-fields - gridstencil's field sets and the deflate probe
# (session 41, issue 48), on 2 + 2 ranks of an emulated two-cluster grid
# (plain mpirun on loopback when gridemu mpirun cannot run, as t/9011):
#   - --fields spectrum: nine groups (periodic x3, pulse x2, wave x2,
#     noisy x2); the standard run and a grid-aware adaptive run give the
#     same checksum (the periodic kind is decomposition-independent too);
#   - --probe: every group has a measured deflate ratio in the metadata,
#     and a periodic group's halos deflate smaller than a noisy group's
#     (s2.1's "periodic, wave-like functions compress ... better than
#     irregular, noisy functions", on our data);
#   - a switch: --no-compress sends every wide-area byte raw and decides
#     nothing about compression, --no-ghost keeps depth 1, and the
#     metadata's features say so;
#   - bad --fields and --probe: exit 2, one line naming the option.
# No timing is asserted.
source "$(dirname "$0")/lib-netns.sh"
BCAST_TMP=$(mktemp -d /tmp/gb9014.XXXXXX)
trap 'rm -rf "$BCAST_TMP"; gb_cleanup' EXIT
source "$(dirname "$0")/lib-bcast.sh"
source "$(dirname "$0")/lib-stencil.sh"

# bad input first: no grid needed
out=$("$GS" --fields physics 2>&1); st=$?
is "$st" 2 "--fields physics (unknown set) exits 2"
like "$out" "^gridstencil: --fields: 'physics' is not classic or spectrum" "and names the option"
is "$(printf '%s\n' "$out" | wc -l)" 1 "in one line"
out=$("$GS" --probe -1 2>&1); st=$?
is "$st" 2 "--probe -1 exits 2"
like "$out" "^gridstencil: --probe: " "and names the option"

stencil_grid

gs() {
	local name=$1; shift
	run_mpi -- "$GS" --quiet --bench-time 0.2 --grid 64x256 --iters 40 --probe 5 \
		--out "$BCAST_TMP/$name.csv" --events "$BCAST_TMP/$name-ev.csv" "$@" \
		> "$BCAST_TMP/$name.log" 2>&1
}
sum_of() { sed -n 's/^gridstencil: checksum //p' "$BCAST_TMP/$1.log"; }
run_ok() { # run_ok NAME DESCRIPTION ARGS...
	local name=$1 desc=$2; shift 2
	gs "$name" "$@"
	ok $? "$desc" || tail -5 "$BCAST_TMP/$name.log" | sed 's/^/#   /'
}

run_ok std "standard run, --fields spectrum" --mode standard --fields spectrum
run_ok grid "grid-aware adaptive run, --fields spectrum" --mode grid --fields spectrum \
	--monitor 2 --reeval 8 --warmup 2
run_ok nocomp "grid-aware run, --no-compress --no-ghost" --mode grid --fields spectrum \
	--monitor 2 --reeval 8 --warmup 2 --no-compress --no-ghost

std=$(sum_of std)
like "$std" '^[0-9a-f]{16}$' "standard checksum $std"
is "$(sum_of grid)" "$std" "grid-aware adaptive: same checksum as standard"
is "$(sum_of nocomp)" "$std" "grid-aware, switches off: same checksum as standard"

m=$BCAST_TMP/grid.json
is "$(meta "$m" "j['fields']")" spectrum "metadata: fields spectrum"
is "$(meta "$m" "' '.join(g['name'] for g in j['group_results'])")" \
	"periodic0 periodic1 periodic2 pulse0 pulse1 wave0 wave1 noisy0 noisy1" "the nine groups"
is "$(meta "$m" "all(g['deflate'] and g['deflate']['probes'] == 8 and 0 < g['deflate']['ratio'] <= 1 for g in j['group_results'])")" \
	True "every group has a deflate ratio from 8 probes"
is "$(meta "$m" "len(j['deflate_probe']['iterations']) == 8 and j['deflate_probe']['every'] == 5")" \
	True "the probes' iterations are recorded"
diag "deflated halos (whole run): $(meta "$m" "', '.join('%s %.2f' % (g['name'], g['deflate']['ratio']) for g in j['group_results'])")"
g=$(meta "$m" "{g['name']: g['deflate'] for g in j['group_results']}['periodic0']['first'] < {g['name']: g['deflate'] for g in j['group_results']}['noisy0']['first']")
is "$g" True "a periodic group's halos deflate smaller than a noisy group's"
is "$(meta "$BCAST_TMP/std.json" "all(g['deflate'] for g in j['group_results'])")" True \
	"the standard run's halos are probed too"

n=$BCAST_TMP/nocomp.json
is "$(meta "$n" "(j['features']['compress'], j['features']['ghost'])")" "(False, False)" \
	"metadata: compression and ghost adaptation off"
is "$(meta "$n" "j['results']['wan_wire_bytes'] == j['results']['wan_raw_bytes'] > 0")" True \
	"--no-compress: every wide-area byte sent raw"
is "$(meta "$n" "j['results']['final_depth']")" 1 "--no-ghost: depth 1"
is "$(grep -c ',comp-\|,ghost-' "$BCAST_TMP/nocomp-ev.csv")" 0 "no adaptation decisions"
is "$(meta "$n" "all(g['deflate'] for g in j['group_results'])")" True \
	"the probe measures the halos that are not compressed"
done_testing
