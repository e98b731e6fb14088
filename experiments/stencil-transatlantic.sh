#!/usr/bin/env bash
# stencil-transatlantic.sh - seed 004 s8.2 on the emulated grid: the same
# wave-equation code (gridstencil) run in "standard" and in "grid-aware"
# mode on two machines joined by a transatlantic link, one of them at half
# the CPU of the other; rate over iterations for both (the paper's Figs. 4
# and 5) with the adaptation decisions marked, and the figures the issue
# asks for: speed-up factor, chosen topology, slab sizes, groups
# compressed, final ghost depth.
#
#   experiments/stencil-transatlantic.sh                 8 + 8 ranks, the full run
#   experiments/stencil-transatlantic.sh --ci            2 + 2 ranks, small and short
#   experiments/stencil-transatlantic.sh --help
#
# Results go to results/stencil/<UTC timestamp>/ (or --out DIR):
#   standard.csv, grid.csv            one row per block of iterations (rate, ...)
#   standard.json, grid.json          run metadata (topology, slabs, CPU quotas, ...)
#   grid-events.csv                   every adaptation decision of every rank
#   rate.png                          the plot (gnuplot), rate.gp its script
#   summary.txt, summary.json         the figures
#   *.log                             what each step printed
# The grid is always torn down, also on failure or Ctrl-C (trap).
set -euo pipefail

usage() {
	cat <<'EOF'
usage: stencil-transatlantic.sh [options] [-- GRIDSTENCIL-OPTIONS...]
  Run gridstencil in standard and in grid-aware mode on the transatlantic
  grid (two clusters, 50 ms / 10 Mbit/s between them, one at half the CPU),
  plot the rate over iterations and summarise (seed 004 s8.2).
options:
  --ci                 the CI-sized variant: 2 + 2 ranks, grid 64x256, 60 iterations,
                       monitor 4, re-evaluation 30, no plot unless gnuplot exists
  --per-cluster N      ranks per cluster (default 8; the topology must have them)
  --grid DIMS          grid points (default 256x1024)
  --iters N            iterations per run (default 600)
  --topology FILE      topology (default topologies/transatlantic.yaml)
  --build DIR          build directory (default $GRIDBED_BUILD or build/)
  --out DIR            results directory (default results/stencil/<UTC timestamp>)
  --prefix P           grid prefix (default st<pid mod 10000>)
  --rundir DIR         GRIDBED_RUNDIR (default /run/gridbed-st)
  --only MODE          run only standard or only grid
  -h, --help           this text
Everything after -- goes to both gridstencil runs (e.g. -- --monitor 10).
Exit status: 0, 1 a run failed or the two modes disagree on the numbers, 2 bad usage.
EOF
}

src=$(cd "$(dirname "$0")/.." && pwd)
ci=0 per=8 grid=256x1024 iters=600 topo=$src/topologies/transatlantic.yaml
build=${GRIDBED_BUILD:-$src/build} out= prefix=st$(( $$ % 10000 )) only=
rundir=${GRIDBED_RUNDIR:-/run/gridbed-st}
extra=() grid_set=0 iters_set=0
die() { echo "stencil-transatlantic: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--ci) ci=1 ;;
	--per-cluster) [ $# -ge 2 ] || die "--per-cluster needs a value"; per=$2; shift ;;
	--grid) [ $# -ge 2 ] || die "--grid needs a value"; grid=$2; grid_set=1; shift ;;
	--iters) [ $# -ge 2 ] || die "--iters needs a value"; iters=$2; iters_set=1; shift ;;
	--topology) [ $# -ge 2 ] || die "--topology needs a value"; topo=$2; shift ;;
	--build) [ $# -ge 2 ] || die "--build needs a value"; build=$2; shift ;;
	--out) [ $# -ge 2 ] || die "--out needs a value"; out=$2; shift ;;
	--prefix) [ $# -ge 2 ] || die "--prefix needs a value"; prefix=$2; shift ;;
	--rundir) [ $# -ge 2 ] || die "--rundir needs a value"; rundir=$2; shift ;;
	--only) [ $# -ge 2 ] || die "--only needs a value"; only=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; extra=("$@"); break ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done
[[ $per =~ ^[1-9][0-9]*$ ]] || die "--per-cluster: '$per' is not a count >= 1"
[[ $iters =~ ^[1-9][0-9]*$ ]] || die "--iters: '$iters' is not a count >= 1"
[ -z "$only" ] || [ "$only" = standard ] || [ "$only" = grid ] ||
	die "--only: '$only' is not standard or grid"
[ -r "$topo" ] || die "--topology: cannot read '$topo'"
if [ $ci = 1 ]; then
	per=2
	[ $grid_set = 1 ] || grid=64x256
	[ $iters_set = 1 ] || iters=60
	extra=(--monitor 4 --reeval 30 --warmup 4 --bench-time 0.3 --block 5 "${extra[@]}")
fi
GRIDEMU=$build/emulator/gridemu
GS=$build/experiments/gridstencil
[ -x "$GRIDEMU" ] || die "--build: no gridemu at $GRIDEMU"
[ -x "$GS" ] || die "--build: no gridstencil at $GS"
command -v jq >/dev/null || die "jq is not installed (cmake/bootstrap deps)"
[ -n "$out" ] || out=$src/results/stencil/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
out=$(cd "$out" && pwd)
export GRIDBED_RUNDIR=$rundir GRIDBED_PREFIX=$prefix
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_gds=hash

say() { printf '[stencil-transatlantic %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
teardown() {
	local st=$?
	"$GRIDEMU" down >/dev/null 2>&1 || true
	rm -f "$GRIDBED_RUNDIR/$prefix"/mpirun-*.json
	rmdir "$GRIDBED_RUNDIR/$prefix" "$GRIDBED_RUNDIR" 2>/dev/null || true
	exit $st
}
trap teardown EXIT
trap 'exit 130' INT TERM

say "results in $out"
say "bringing up $(basename "$topo") (prefix $prefix)"
"$GRIDEMU" up "$topo" > "$out/up.log" 2>&1 || { cat "$out/up.log" >&2; exit 1; }
cat "$out/up.log"
"$GRIDEMU" status --json > "$out/grid-status.json"
# $per ranks of each of the first two clusters, in topology order
mapfile -t clusters < <(jq -r '.hosts[].cluster' "$out/grid-status.json" | awk '!seen[$0]++')
hosts=
for c in "${clusters[@]:0:2}"; do
	h=$(jq -r --arg c "$c" '[.hosts[] | select(.cluster == $c) | .name] | .[]' \
		"$out/grid-status.json" | head -n "$per" | paste -sd,)
	[ "$(echo "$h" | tr ',' '\n' | wc -l)" = "$per" ] ||
		die "cluster '$c' has fewer than $per hosts"
	hosts=${hosts:+$hosts,}$h
done
say "ranks on $hosts"

run() { # run MODE
	local mode=$1
	say "running $mode mode: grid $grid, $iters iterations (follow: tail -f $out/$mode.log)"
	if ! "$GRIDEMU" mpirun --hosts "$hosts" -- "$GS" --mode "$mode" --grid "$grid" \
		--iters "$iters" --campaign stencil-transatlantic --run-id "$mode" \
		--out "$out/$mode.csv" --events "$out/$mode-events.csv" "${extra[@]}" \
		> "$out/$mode.log" 2>&1; then
		tail -20 "$out/$mode.log" >&2
		say "$mode run failed (log: $out/$mode.log)"
		exit 1
	fi
	grep '^gridstencil:' "$out/$mode.log" | sed 's/^/    /'
}
[ "$only" = grid ] || run standard
[ "$only" = standard ] || run grid

# ---- figures --------------------------------------------------------
summary() {
	python3 - "$out" "$only" <<'PY'
import csv, json, os, statistics, sys
out, only = sys.argv[1], sys.argv[2]
modes = [m for m in ("standard", "grid") if not only or m == only]
meta = {m: json.load(open(os.path.join(out, m + ".json"))) for m in modes}
rows = {m: list(csv.DictReader(open(os.path.join(out, m + ".csv")))) for m in modes}
s = {"runs": {}}
lines = []
for m in modes:
    j, r = meta[m], meta[m]["results"]
    mach = ", ".join("%s %d ranks, %.3g points/s per rank" % (x["name"], x["ranks"], x["speed"])
                     if x["speed"] else "%s %d ranks" % (x["name"], x["ranks"]) for x in j["machines"])
    # the quotas the ranks read back, by host name pattern: "stl-*: 0.1000 core"
    byq = {}
    for x in j["rank_info"]:
        v = x["cpu_quota"].split(" = ")[-1] if " = " in x["cpu_quota"] else x["cpu_quota"]
        byq.setdefault(v, []).append(x["host"])
    q = ["%s: %s" % (",".join(sorted(set(h.rsplit("-", 1)[0] + "-*" for h in hs))), v)
         for v, hs in sorted(byq.items())]
    comp = [g["name"] for g in j["group_results"] if g["compressed_by"] * 2 >= j["boundary_ranks"] and g["compressed_by"] > 0]
    rates = [float(x["rate"]) for x in rows[m]]
    med = statistics.median(rates) if rates else 0
    s["runs"][m] = {"mean_rate": r["mean_rate"], "second_half_rate": r["second_half_rate"],
                    "median_block_rate": med,
                    "wall_s": r["wall_s"], "topology": j["processor_topology"],
                    "slabs": j["slabs"], "final_depth": r["final_depth"],
                    "groups_compressed": r["groups_compressed"], "groups": len(j["group_results"]),
                    "compressed": comp, "checksum": r["checksum"], "machines": j["machines"],
                    "wan_raw_bytes": r["wan_raw_bytes"], "wan_wire_bytes": r["wan_wire_bytes"],
                    "cpu_quotas": q}
    lines.append("%s mode: %d ranks, grid %s, processor topology %s (longest dimension %d)" %
                 (m, j["ranks"], j["grid"], j["processor_topology"], j["longest_dimension"]))
    lines.append("  machines: %s" % mach)
    lines.append("  slabs along the longest dimension: %s" % " ".join(map(str, j["slabs"])))
    lines.append("  mean rate %.4g points/s over %d iterations in %.1f s; second half %.4g; "
                 "median block %.4g" % (r["mean_rate"], j["iterations"], r["wall_s"],
                                        r["second_half_rate"], med))
    lines.append("  final wide-area ghost depth %d; groups compressed %d of %d %s" %
                 (r["final_depth"], r["groups_compressed"], len(j["group_results"]),
                  "(" + ", ".join(comp) + ")" if comp else ""))
    lines.append("  wide-area halo bytes %d raw, %d sent" % (r["wan_raw_bytes"], r["wan_wire_bytes"]))
    lines.append("  CPU quotas read back by the ranks: %s" % "; ".join(q))
    lines.append("  checksum %s" % r["checksum"])
if len(modes) == 2:
    a, b = s["runs"]["standard"], s["runs"]["grid"]
    s["speedup_mean"] = b["mean_rate"] / a["mean_rate"]
    s["speedup_second_half"] = b["second_half_rate"] / a["second_half_rate"]
    # the median of the block rates shrugs off stalls of a shared box
    s["speedup_median_block"] = b["median_block_rate"] / a["median_block_rate"]
    s["identical"] = a["checksum"] == b["checksum"]
    lines.append("speed-up (grid / standard): %.2fx over the whole run, %.2fx over the second half, "
                 "%.2fx in median block rate" % (s["speedup_mean"], s["speedup_second_half"],
                                                 s["speedup_median_block"]))
    lines.append("fields bit-identical in both modes: %s" % ("yes" if s["identical"] else "NO"))
open(os.path.join(out, "summary.txt"), "w").write("\n".join(lines) + "\n")
json.dump(s, open(os.path.join(out, "summary.json"), "w"), indent=1)
print("\n".join(lines))
sys.exit(0 if s.get("identical", True) else 1)
PY
}

plot() {
	command -v gnuplot >/dev/null || { say "gnuplot not installed: no plot"; return 0; }
	# decision markers: the block rate at the iteration of each decision
	python3 - "$out" <<'PY'
import csv, os, sys
out = sys.argv[1]
p = os.path.join(out, "grid.csv")
ev = os.path.join(out, "grid-events.csv")
if not os.path.exists(p) or not os.path.exists(ev):
    sys.exit(0)
blocks = [(int(r["iteration"]), float(r["rate"])) for r in csv.DictReader(open(p))]
def rate_at(it):
    for b, r in blocks:
        if b >= it:
            return r
    return blocks[-1][1]
seen = set()
with open(os.path.join(out, "marks-comp.dat"), "w") as c, open(os.path.join(out, "marks-ghost.dat"), "w") as g:
    for r in csv.DictReader(open(ev)):
        k, it = r["event"], int(r["iteration"])
        key = (k, it, r["group"], r["value"])
        if key in seen:
            continue
        seen.add(key)
        if k in ("comp-keep", "comp-revert"):
            c.write("%d,%g,%s\n" % (it, rate_at(it), "%s:%s" % (r["group"], "on" if r["value"] == "1" else "off")))
        elif k.startswith("ghost-") and k != "ghost-try":
            g.write("%d,%g,%s\n" % (it, rate_at(it), "d=%s" % r["value"]))
PY
	cat > "$out/rate.gp" <<EOF
set terminal pngcairo size 1100,600 noenhanced
set output '$out/rate.png'
set datafile separator ','
set title 'gridstencil $grid on $(basename "$topo" .yaml), ${clusters[0]} x$per + ${clusters[1]} x$per ranks: rate over iterations (seed 004 Figs. 4, 5)'
set xlabel 'iteration'
set ylabel 'grid-point updates per second'
set key top left
set grid
plot \\
EOF
	local parts=()
	[ -s "$out/standard.csv" ] && parts+=("'$out/standard.csv' using 4:6 skip 1 with lines lw 2 title 'standard'")
	[ -s "$out/grid.csv" ] && parts+=("'$out/grid.csv' using 4:6 skip 1 with lines lw 2 title 'grid-aware'")
	[ -s "$out/marks-comp.dat" ] && parts+=("'$out/marks-comp.dat' using 1:2 with points pt 7 ps 1.2 title 'compression decided'")
	[ -s "$out/marks-ghost.dat" ] && parts+=("'$out/marks-ghost.dat' using 1:2:3 with labels point pt 5 ps 1.5 offset 0,1 title 'ghost depth decided'")
	local i
	for i in "${!parts[@]}"; do
		if [ "$i" -lt $(( ${#parts[@]} - 1 )) ]; then
			printf '  %s, \\\n' "${parts[$i]}"
		else
			printf '  %s\n' "${parts[$i]}"
		fi
	done >> "$out/rate.gp"
	if gnuplot "$out/rate.gp" 2> "$out/gnuplot.log"; then
		say "plot: $out/rate.png"
	else
		# pngcairo may be missing in gnuplot-nox: fall back to the png terminal
		sed -i 's/^set terminal pngcairo/set terminal png/' "$out/rate.gp"
		gnuplot "$out/rate.gp" 2>> "$out/gnuplot.log" && say "plot: $out/rate.png" ||
			say "gnuplot failed (see $out/gnuplot.log)"
	fi
}

plot
say "summary ($out/summary.txt):"
summary
