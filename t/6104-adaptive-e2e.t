#!/usr/bin/env bash
# 6104-adaptive-e2e - the adaptive broadcast end to end, on three-clusters
# (a-1..a-4 | b-1..b-4 | c-1..c-4, one cluster per site, WAN triangle of
# 50 Mbit/s links; root a-1):
#   - gridmon measures (period 300 s x scale 0.01), gridadvisor plans 1 MiB
#     trees with clustered-sa on the MEASURED matrix (not the oracle), and
#     labels them so;
#   - phase 1: gridload (shape mode) cuts siteA-siteB by 70 %: within two
#     gridmon periods the advisor's tree reaches b through c (c relays);
#   - phase 2: the load moves to cluster c's links (siteA-siteC and
#     siteB-siteC, 70 %): the new tree no longer relays through c, i.e. no
#     node of c has a child outside c (seed 000 Fig. 10: the loaded cluster
#     is pushed to the bottom);
#   - one real adaptive broadcast (gridbcast --algo adaptive, 6 ranks on
#     2 hosts per cluster): tree_via=advisor, every byte right; the same
#     through the PMPI MPI_Bcast of an unmodified program (roots 0, last,
#     middle, split communicators), with the advisor's tree restricted to
#     the job's hosts.
# In this topology each site has one cluster, so a cluster's links to the
# grid are its site's WAN links (its switch uplink is 1 Gbit/s and is not
# the bottleneck).
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_cmd jq
require_cmd python3
B=$GRIDBED_BUILD
GRIDMON=$B/collectives/gridmon
ADVISOR=$B/collectives/gridadvisor
GRIDLOAD=$B/loadgen/gridload
for x in "$GRIDMON" "$ADVISOR" "$GRIDLOAD" "$B/collectives/gridbcast"; do
	[ -x "$x" ] || bail "not built: $x"
done

tmp=$(mktemp -d /tmp/gb6104.XXXXXX)
mon_pid= adv_pid= load_pid=
stop_bg() {
	for p in $load_pid $adv_pid $mon_pid; do kill "$p" 2>/dev/null; done
	for p in $load_pid $adv_pid $mon_pid; do wait "$p" 2>/dev/null; done
	mon_pid= adv_pid= load_pid=
}
trap 'stop_bg; "$GRIDLOAD" restore >/dev/null 2>&1; rm -rf "$tmp"; gb_cleanup' EXIT
"$GRIDEMU" up "$TOPOS/three-clusters.yaml" >/dev/null 2>"$tmp/up.err" ||
	bail "cannot bring three-clusters up: $(cat "$tmp/up.err")"

m=$tmp/m.json adv=$tmp/adv
"$GRIDMON" --period 300s --scale 0.01 --bytes-per-probe 512K --rtt-count 5 --out "$m" \
	2>"$tmp/mon.err" &
mon_pid=$!
version() { jq -r '.version // 0' "$m" 2>/dev/null || echo 0; }
# poll (readiness, not timing): until CMD succeeds, at most $1 s
until_ok() {
	local n=$(($1 * 20)); shift
	while [ "$n" -gt 0 ]; do "$@" && return 0; sleep 0.05; n=$((n - 1)); done
	return 1
}
ver_ge() { [ "$(version)" -ge "$1" ]; }
ok $(until_ok 30 ver_ge 1; echo $?) "gridmon wrote its first matrix"

"$ADVISOR" --matrix "$m" --out "$adv" --topology "$TOPOS/three-clusters.yaml" \
	--min-size 1M --max-size 1M --scale 0.01 -v 2>"$tmp/adv.err" &
adv_pid=$!
tree=$adv/tree-1048576.json
tree_ver() { jq -r '.advisor.matrix.version // 0' "$tree" 2>/dev/null || echo 0; }
tree_ge() { [ "$(tree_ver)" -ge "$1" ]; }
ok $(until_ok 20 tree_ge 1; echo $?) "gridadvisor wrote a 1 MiB tree"
is "$(jq -r '[.algo, .root, .advisor.oracle, .advisor.matrix.generator] | join(" ")' "$tree")" \
	"clustered-sa a-1 false gridmon" "planned by clustered-sa for a-1 on the measured matrix"

# children of cluster X's nodes that are in cluster Y, in the current tree
edges() { jq "[.children | to_entries[] | select(.key | startswith(\"$1-\")) | .value[] |
	select(startswith(\"$2-\"))] | length" "$tree"; }
bw() { jq ".bw[$1][$2]" "$m"; }     # a-1 = 0, b-1 = 4, c-1 = 8
below() { awk -v x="$1" -v y="$2" 'BEGIN { exit !(x < y) }'; }

# load LINK... : gridload shape mode, 70 % on every listed link, both ways
load() {
	stop_load
	{ echo "loads:"
	  for l in "$@"; do echo "  - {start: 0s, duration: 10min, fraction: 70%, link: $l}"; done
	} >"$tmp/load.yaml"
	"$GRIDLOAD" run --schedule "$tmp/load.yaml" --mode shape --quiet >"$tmp/load.out" 2>&1 &
	load_pid=$!
}
stop_load() { [ -n "$load_pid" ] && kill "$load_pid" && wait "$load_pid"; load_pid=; }
# the live rate of one direction ('link show' may find the lock busy: empty)
rate() { "$GRIDEMU" link show 2>/dev/null | awk -v l="$1" -v d="$2" '$1 == l && $2 == d { print $7 }'; }

# phase 1: a <-> b loaded
idle_ab=$(bw 0 4)
load siteA-siteB
shaped() { [ "$(rate siteA-siteB siteA\>siteB)" = 15mbit ]; }
ok $(until_ok 10 shaped; echo $?) "gridload cut siteA-siteB to 15 Mbit/s ($(rate siteA-siteB siteA\>siteB))"
v=$(version)
ok $(until_ok 40 ver_ge $((v + 2)); echo $?) "two gridmon periods later (v$v -> v$(version))"
# against what the load leaves (15 Mbit/s = 1875000 B/s), not against the
# idle reading: a 512K probe on a busy CI box can read the idle link at half
# its 50 Mbit/s, and then "under half of idle" fails though gridmon is right
ok $(below "$(bw 0 4)" 2437500; echo $?) \
	"measured a-1>b-1 $(bw 0 4) B/s, at most 1.3 x the 1875000 the load leaves (idle reading $idle_ab)"
ok $(until_ok 20 tree_ge $((v + 2)); echo $?) "the advisor replanned on v$(tree_ver)"
cp "$tree" "$tmp/tree-phase1.json"
ok $([ "$(edges c b)" -gt 0 ]; echo $?) "a <-> b loaded: c relays to b ($(edges c b) c->b edges," \
	"$(edges a b) a->b)"

# phase 2: the load moves to c's links
load siteA-siteC siteB-siteC
shaped2() { [ "$(rate siteA-siteC siteA\>siteC)" = 15mbit ] && [ "$(rate siteA-siteB siteA\>siteB)" = 50mbit ]; }
ok $(until_ok 10 shaped2; echo $?) "the load moved: siteA-siteC $(rate siteA-siteC siteA\>siteC), siteA-siteB back to $(rate siteA-siteB siteA\>siteB)"
v=$(version)
ok $(until_ok 40 ver_ge $((v + 2)); echo $?) "two gridmon periods later (v$v -> v$(version))"
ok $(until_ok 20 tree_ge $((v + 2)); echo $?) "the advisor replanned on v$(tree_ver)"
cp "$tree" "$tmp/tree-phase2.json"
out_of_c=$(( $(edges c a) + $(edges c b) ))
is "$out_of_c" 0 "c loaded: no node of c relays to another cluster (Fig. 10)"
ok $([ "$(edges a c)$(edges b c)" != 00 ]; echo $?) "c is still reached ($(edges a c) a->c, $(edges b c) b->c)"
ok $(grep -q "matrix v" "$tmp/adv.err"; echo $?) "the advisor logged the matrix versions it followed"

# one real adaptive broadcast on 6 ranks, while the advisor runs
if ! command -v mpirun >/dev/null || ! "$GRIDEMU" mpirun --help >/dev/null 2>&1; then
	skip 4 "no OpenMPI launcher (mpirun or gridemu mpirun)"
else
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_gds=hash
	hosts=a-1,a-2,b-1,b-2,c-1,c-2
	out=$(GRIDBED_ADVISOR_DIR=$adv "$GRIDEMU" mpirun --hosts $hosts --timeout 60 -- \
		"$B/collectives/gridbcast" --algo adaptive --sizes 1M --reps 1 --warmup 0 \
		--out "$tmp/r.csv" 2>&1); st=$?
	ok $st "gridbcast --algo adaptive on 6 ranks" || printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
	row=$(python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["algorithm"] == "adaptive":
        print(r["tree_via"], r["mismatches"], r["hdr_bytes"])' "$tmp/r.csv" 2>/dev/null)
	# 5 tree edges x (30 + 4 x 6) header bytes
	is "$row" "advisor 0 270" "tree_via=advisor, no byte wrong, the tree's header bytes counted"
	out=$(GRIDBED_ADVISOR_DIR=$adv GRIDBED_BCAST=adaptive "$GRIDEMU" mpirun --hosts $hosts \
		--timeout 60 --preload "$B/collectives/libgridbcast.so" -- \
		"$B/collectives/mpitest/bcast_plain" --sizes 0,1,1000,65537 2>&1); st=$?
	ok $st "PMPI MPI_Bcast with GRIDBED_BCAST=adaptive (unmodified program)" ||
		printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
	like "$out" "bcast_plain: [0-9]+ broadcasts, 0 bad" "... every buffer right (roots, splits)"
fi
stop_load
kill -TERM $mon_pid $adv_pid
gone() { ! kill -0 $mon_pid 2>/dev/null && ! kill -0 $adv_pid 2>/dev/null; }
ok $(until_ok 10 gone; echo $?) "gridmon and gridadvisor end on SIGTERM"
wait $adv_pid; st=$?
is "$st" 0 "gridadvisor's exit status on SIGTERM"
wait $mon_pid 2>/dev/null
mon_pid= adv_pid=
done_testing
