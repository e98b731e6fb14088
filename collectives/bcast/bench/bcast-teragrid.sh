#!/usr/bin/env bash
# bcast-teragrid.sh - libgridbcast's measurements (issue 4).  A benchmark:
# it prints figures and writes CSV, and asserts nothing.
#
#   collectives/bcast/bench/bcast-teragrid.sh [--reps N] [--sizes LIST] [--algo LIST]
#       [--segment LIST] [--wait spin|sleep] [--out DIR] [--only teragrid|overhead]
#       [--overhead-reps N] [--backend B] [--tcp "KEYS"] [--dilate K]
#       [--topology FILE] [--load LINK:FRACTION] [--stripes K]
#
# --topology FILE: part 1 runs on FILE instead of topologies/teragrid.yaml,
# with one rank per host (e.g. topologies/two-clusters.yaml, 8 ranks); its
# files are then named after the topology's file (two-clusters.csv, ...).
#
# --load LINK:FRACTION (repeatable): part 1 runs loaded.  Each LINK (both
# directions) keeps (1 - FRACTION) of its rate for the whole job, through
# gridload's shape mode (a schedule of one interval per link, written to
# --out as load.yaml), e.g. --load c3-NCSA:70% for the paper's load on C3
# (Gupta & Vadhiyar s3: 50-90 %, its middle), --load siteA-siteB:70% on
# two-clusters.  gridload restores the rates before the grid goes down.
#
# --stripes K: segmented messages go down K trees (GRIDBED_STRIPES,
# gridbcast.h; issue 14): segment j down the tree with each cluster's
# hosts rotated by j mod K; or a table by size, e.g. --stripes 2M:4,1
# (docs/gridbcast.md, "Stripes by size").  Only the contention model predicts that
# schedule; the one-port models' errors are then empty.
#
# --dilate K: the teragrid grid comes up time-dilated (gridemu up --dilate,
# docs/architecture.md, decision 9): delays x K and rates / K on the wire, and
# every time gridbcast reports is the topology's (measured / K).
#
# --wait: how libgridbcast's ranks wait (gridbcast --wait; default spin).
# With 64 ranks on a small box, spinning ranks take the CPU from the delay
# line; OpenMPI's own broadcast (native) always spins.
#
# --segment LIST: the segment sizes to run every algorithm with (gridbcast
# --segment: 0 whole messages, auto the root's choice, or bytes; default
# "0,auto"); each algorithm is then labelled ALGO@SEGMENT (native once).
#
# --tcp "KEYS" gives the hosts' TCP stack over teragrid.yaml's, e.g.
# "slow_start_after_idle: false" (docs/topology-format.md); summary.txt and
# tcp.json say the stack the hosts ran, read back by gridemu status.
#
# 1. teragrid (or --topology), 64 ranks, unloaded (or --load): every
#    algorithm (gridtree list) and native
#    at 1K, 64K, 1M and 8M, --reps (default 5) timed broadcasts each.  Prints
#    each algorithm's median, its ratio to native's median and to the
#    topology's lower bound (max over hosts of path latency + size / path
#    bottleneck), and the model error: median measured / predicted - 1 under
#    each cost model (mateescu, plogp, contention), per algorithm, then the
#    mean absolute error per model and size (segmented rows: every model's
#    segmented schedule, gb_cost_all()); then, from the hosts' TCP counters
#    sampled every second (gridemu tcpstat, teragrid-tcp.csv), the segments
#    sent again and the retransmission timeouts per broadcast, and the hosts
#    that sent most again.
#    Warm-up: one untimed broadcast before each timed one below 1 MiB; none
#    from 1 MiB up, where a broadcast takes seconds to tens of seconds (flat
#    at 8M: 63 x 8 MiB through one 100 Mbit/s host link, 42 s).  Either
#    way gridbcast opens every pair's TCP connection before its first
#    broadcast, so that no timed broadcast pays for one.
# 2. executor overhead: our binomial tree against native MPI_Bcast on an
#    unshaped two-cluster grid (a temporary YAML, no delay or rate) at 1 MiB,
#    --overhead-reps (default 21) each: the ratio of medians (target <= 1.10),
#    whole messages against OpenMPI's unsegmented binomial, 64 KiB
#    segments against OpenMPI's binomial with 64 KiB segments, and our
#    chain (gridtree's `chain` planner) with 64 KiB segments against
#    OpenMPI's pipeline (coll/tuned algorithm 3, the same chain) with
#    64 KiB segments: each time the same tree and segment size on both
#    sides, so that the ratio is the executor's alone.
#
# Launch time of 64 ranks is emulator/bench/mpirun-launch.sh's figure.
# Files (in --out, default /tmp/gridbed-bcast-bench-<time>): teragrid.csv,
# teragrid-ranks.csv, teragrid.json (named after --topology), overhead.csv,
# summary.txt.
# It brings its grids up and down itself (prefix bb<random>).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
build=${GRIDBED_BUILD:-$src/build}
GRIDEMU=${GRIDEMU:-$build/emulator/gridemu}
me=bcast-teragrid.sh
. "$src/util/bench/lib-bench.sh"
GB=$build/collectives/gridbcast
GT=$build/collectives/gridtree
reps=5; oreps=21; sizes=1K,64K,1M,8M; algo=all; out=; only=; backend=auto; stack=
segs=0,auto; wait=spin; dilate=1
topofile=$src/topologies/teragrid.yaml; loads=()
while [ $# -gt 0 ]; do
	case "$1" in
		--reps) reps=$2; shift ;;
		--overhead-reps) oreps=$2; shift ;;
		--sizes) sizes=$2; shift ;;
		--algo) algo=$2; shift ;;
		--segment) segs=$2; shift ;;
		--stripes) export GRIDBED_STRIPES=$2; shift ;;
		--wait) wait=$2; shift ;;
		--out) out=$2; shift ;;
		--only) only=$2; shift ;;
		--backend) backend=$2; shift ;;
		--tcp) stack=$2; shift ;;
		--dilate) dilate=$2; shift ;;
		--topology) topofile=$2; shift ;;
		--load) loads+=("$2"); shift ;;
		*) bench_usage 65 "$1" ;;
	esac
	shift
done
bench_need 1 root mpirun python3
[ -r "$topofile" ] || { echo "bcast-teragrid.sh: --topology: cannot read '$topofile'" >&2; exit 2; }
for l in "${loads[@]}"; do
	case $l in
		?*:?*) ;;
		*) echo "bcast-teragrid.sh: --load: '$l' is not LINK:FRACTION (e.g. c3-NCSA:70%)" >&2; exit 2 ;;
	esac
done
GL=$build/loadgen/gridload
for f in "$GB" "$GT" "$GRIDEMU" "$GL"; do
	[ -x "$f" ] || { echo "bcast-teragrid.sh: $f is not built" >&2; exit 1; }
done
"$GRIDEMU" mpirun --help >/dev/null 2>&1 ||
	{ echo "bcast-teragrid.sh: this gridemu has no 'mpirun'" >&2; exit 1; }

out=${out:-/tmp/gridbed-bcast-bench-$(date +%Y%m%dT%H%M%S)}
mkdir -p "$out" || exit 1
GRIDBED_PREFIX=$(bench_prefix bb)
export GRIDBED_PREFIX
export GRIDBED_RUNDIR=${GRIDBED_RUNDIR:-/run/gridbed-bench}
export GRIDBED_CAMPAIGN=bcast-bench GRIDBED_LOAD_STATE=none
glpid=
trap '[ -n "$glpid" ] && kill "$glpid" 2>/dev/null && wait "$glpid"; "$GRIDEMU" down >/dev/null 2>&1; rm -rf "${GRIDBED_RUNDIR:?}/$GRIDBED_PREFIX"' EXIT
trap 'exit 130' INT TERM
exec > >(tee "$out/summary.txt") 2>&1
echo "bcast-teragrid.sh: $(nproc) cores, kernel $(uname -r), git $(git -C "$src" describe --always --dirty 2>/dev/null), files in $out"
[ -n "${GRIDBED_STRIPES:-}" ] && echo "segmented messages go down $GRIDBED_STRIPES trees (GRIDBED_STRIPES; only the contention model predicts them)"

# run_job CSV RANKS WARMUP SIZES SEGMENT: one gridbcast job, the hosts' TCP
# counters sampled every second meanwhile (gridemu tcpstat, into CSV-tcp.csv)
run_job() {
	local csv=$1 ranks=$2 warm=$3 sz=$4 seg=$5 t0=$SECONDS tsp rc=0
	"$GRIDEMU" tcpstat --every 1 >"${csv%.csv}-tcp.csv" &
	tsp=$!
	"$GRIDEMU" mpirun -- "$GB" --algo "$algo" --sizes "$sz" --reps "$reps" --warmup "$warm" \
		--segment "$seg" --wait "$wait" --out "$csv" --ranks "$ranks" --quiet || rc=1
	kill -INT "$tsp" 2>/dev/null
	wait "$tsp"
	[ $rc = 0 ] || return 1
	echo "  gridbcast --sizes $sz --warmup $warm --segment $seg --wait $wait: $(( SECONDS - t0 )) s"
}

if [ -z "$only" ] || [ "$only" = teragrid ]; then
	tn=$(basename "$topofile" .yaml)
	echo
	echo "== 1. $tn, one rank per host, ${loads[*]:-unloaded}: $algo at $sizes, $reps reps"
	topo=$out/$tn.yaml
	cp "$topofile" "$topo"
	[ -n "$stack" ] && echo "tcp: {$stack}" >>"$topo"
	"$GRIDEMU" up --backend "$backend" --dilate "$dilate" "$topo" | head -3 || exit 1
	if [ ${#loads[@]} -gt 0 ]; then
		{ echo "# bcast-teragrid.sh --load: each link keeps (1 - fraction) of its rate, all job long"
		  echo "loads:"
		  for l in "${loads[@]}"; do
			echo "  - {start: 0s, duration: 1000h, fraction: ${l##*:}, link: ${l%:*}}"
		  done; } >"$out/load.yaml"
		"$GL" run --schedule "$out/load.yaml" --mode shape --log "$out/load.csv" --quiet &
		glpid=$!
		sleep 2
		kill -0 "$glpid" 2>/dev/null || { echo "bcast-teragrid.sh: gridload did not start (see above)" >&2; exit 1; }
		echo "load: $(tr '\n' ' ' <"$out/load.yaml" | sed 's/.*loads: *//'), shape mode (gridload pid $glpid)"
	fi
	"$GRIDEMU" status | grep '^tcp:\|^time dilation\|^delay line'
	"$GRIDEMU" status --json | python3 -c 'import json, sys
print(json.dumps([h["tcp"] for h in json.load(sys.stdin)["hosts"]][0], indent=1))' >"$out/tcp.json"
	# bytes of a size with a K/M/G suffix (1K = 1024)
	bytes() { local v=${1%[KkMmGg]}; case $1 in
		*[Kk]) echo $(( v << 10 )) ;; *[Mm]) echo $(( v << 20 )) ;;
		*[Gg]) echo $(( v << 30 )) ;; *) echo "$v" ;; esac; }
	small= big=
	for s in ${sizes//,/ }; do
		if [ "$(bytes "$s")" -lt 1048576 ]; then small=${small:+$small,}$s
		else big=${big:+$big,}$s; fi
	done
	parts=()
	for seg in ${segs//,/ }; do
		if [ -n "$small" ]; then
			run_job "$out/$tn-small-$seg.csv" "$out/$tn-small-$seg-ranks.csv" 1 \
				"$small" "$seg" || exit 1
			parts+=("small-$seg")
		fi
		if [ -n "$big" ]; then
			run_job "$out/$tn-big-$seg.csv" "$out/$tn-big-$seg-ranks.csv" 0 \
				"$big" "$seg" || exit 1
			parts+=("big-$seg")
		fi
	done
	if [ -n "$glpid" ]; then kill "$glpid"; wait "$glpid"; glpid=; fi
	"$GRIDEMU" down >/dev/null
	# one CSV (header once) of all rows, and of all per-rank rows; the
	# algorithm column becomes ALGO@SEGMENT (the setting, not the bytes)
	for kind in "" "-ranks"; do
		first=1
		for p in "${parts[@]}"; do
			if [ $first = 1 ]; then head -1 "$out/$tn-$p$kind.csv"; first=0; fi
			tail -n +2 "$out/$tn-$p$kind.csv" |
				awk -F, -v OFS=, -v s="${p#*-}" '$3 != "native" { $3 = $3 "@" s } { print }'
		done >"$out/$tn$kind.csv"
	done
	cp "$out/$tn-${parts[0]}.json" "$out/$tn.json" 2>/dev/null
	# the jobs' TCP samples, one file: the counters are the same namespaces'
	first=1
	for p in "${parts[@]}"; do
		if [ $first = 1 ]; then head -1 "$out/$tn-$p-tcp.csv"; first=0; fi
		tail -n +2 "$out/$tn-$p-tcp.csv"
	done >"$out/$tn-tcp.csv"
	python3 - "$out/$tn.csv" "$out/$tn-tcp.csv" <<'PY'
import bisect, csv, math, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1])))
algos, sizes = [], []
for r in rows:
    if r["algorithm"] not in algos: algos.append(r["algorithm"])
    s = int(float(r["size"]))
    if s not in sizes: sizes.append(s)
sizes.sort()
models = [c[5:] for c in rows[0] if c.startswith("pred_") and c != "pred_model"]
def med(a, s):
    v = [float(r["completion_time"]) for r in rows if r["algorithm"] == a and int(float(r["size"])) == s]
    return st.median(v) if v else math.nan
def first(a, s, k):
    for r in rows:
        if r["algorithm"] == a and int(float(r["size"])) == s and r[k] != "":
            return float(r[k])
    return math.nan
bad = sum(int(r["mismatches"]) for r in rows) + sum(int(r["order_violations"]) for r in rows)
print("rows %d, mismatching bytes + order violations: %d" % (len(rows), bad))
print()
print("%-20s %8s %10s %9s %7s %7s %8s   %s" % ("algorithm", "size", "median_s", "n", "x_nat",
      "x_lb", "seg_B", "  ".join("err_%-10s" % m for m in models)))
errs = {}
for s in sizes:
    nat = med("native", s)
    for a in algos:
        m = med(a, s)
        n = sum(1 for r in rows if r["algorithm"] == a and int(float(r["size"])) == s)
        lb = first(a, s, "lower_bound")
        e = []
        for mo in models:
            p = first(a, s, "pred_" + mo)
            x = m / p - 1 if p > 0 else math.nan
            e.append(x)
            if not math.isnan(x):
                errs.setdefault((mo, s), []).append(abs(x))
        sg = first(a, s, "segment")
        print("%-20s %8d %10.4f %9d %7.2f %7.2f %8s   %s" % (a, s, m, n, m / nat, m / lb,
              "-" if math.isnan(sg) else "%.0f" % sg,
              "  ".join("%+13.0f%%" % (100 * x) if not math.isnan(x) else "%14s" % "-" for x in e)))
    best = min((med(a, s), a) for a in algos if a != "native")
    print("best grid-aware at %d B: %s, %.2f x the lower bound, %.2f x faster than native"
          % (s, best[1], best[0] / first(best[1], s, "lower_bound"), nat / best[0]))
    print()
print("model error: mean |measured median / predicted - 1| over the tree algorithms")
print("%8s  %s" % ("size", "  ".join("%12s" % m for m in models)))
for s in sizes:
    print("%8d  %s" % (s, "  ".join("%11.0f%%" % (100 * st.mean(errs[(m, s)])) if (m, s) in errs
                                     else "%12s" % "-" for m in models)))
# TCP per broadcast: each host's counters from the last sample at or before
# the start to the first after the end (1 s samples, so a window takes in up
# to a second of its neighbours' traffic; the samples only list changes)
hist = {}
for r in csv.DictReader(open(sys.argv[2])):
    hist.setdefault(r["host"], []).append((float(r["t_mono"]), int(r["retrans_segs"]),
                                           int(r["timeouts"])))
def at(h, t):
    v = hist[h]
    k = bisect.bisect_right(v, (t, math.inf, math.inf)) - 1
    return v[max(k, 0)]
def after(h, t):
    v = hist[h]
    return v[min(bisect.bisect_left(v, (t, -1, -1)), len(v) - 1)]
print()
print("TCP during the broadcasts (gridemu tcpstat, every second): segments sent again per")
print("broadcast (median, max), retransmission timeouts (all broadcasts), hosts that sent most again")
per_bcast, per_host = {}, {}
for r in rows:
    key = (r["algorithm"], int(float(r["size"])))
    s0 = float(r["start_time"])
    u = s0 + float(r["completion_time"]) * max(float(r.get("dilate") or 1), 1)
    re = to = 0
    for h in hist:
        a, z = at(h, s0), after(h, u)
        re += z[1] - a[1]
        to += z[2] - a[2]
        per_host.setdefault(key, {}).setdefault(h, 0)
        per_host[key][h] += z[1] - a[1]
    per_bcast.setdefault(key, []).append((re, to))
for s in sizes:
    for a in algos:
        v = per_bcast.get((a, s))
        if not v:
            continue
        top = sorted(((n, h) for h, n in per_host[(a, s)].items() if n > 0), reverse=True)[:4]
        print("%-20s %8d  again %6.0f (max %d)  timeouts %d  %s" % (a, s, st.median(x[0] for x in v),
              max(x[0] for x in v), sum(x[1] for x in v), " ".join("%s:%d" % (h, n) for n, h in top)))
PY
fi

if [ -z "$only" ] || [ "$only" = overhead ]; then
	echo
	echo "== 2. executor overhead: binomial and chain vs native MPI_Bcast on the same trees, unshaped two-cluster grid, 1 MiB, $oreps reps"
	yaml=$out/unshaped-two.yaml
	cat >"$yaml" <<'EOF'
# unshaped-two.yaml - bcast-teragrid.sh's overhead grid: two sites of one
# 4-host cluster, every link unshaped (no delay, no rate).
name: unshaped-two
sites:
  - name: sA
    clusters: [{name: a, hosts: 4}]
  - name: sB
    clusters: [{name: b, hosts: 4}]
links:
  - {a: sA, b: sB}
EOF
	"$GRIDEMU" up --backend "$backend" "$yaml" | head -3 || exit 1
	GRIDBED_CAMPAIGN=bcast-overhead "$GRIDEMU" mpirun -- "$GB" --algo binomial --sizes 1M \
		--reps "$oreps" --warmup 1 --out "$out/overhead.csv" --quiet || exit 1
	# The same job with OpenMPI's MPI_Bcast locked to its own unsegmented
	# binomial tree (coll/tuned algorithm 6): the same tree on both sides,
	# so the ratio is the executor's overhead alone.  Against OpenMPI's
	# default choice (above) the ratio also holds the algorithm: for 1 MiB
	# on 8 ranks it picks a segmented, pipelined tree that a one-port
	# store-and-forward executor does not try to be.
	GRIDBED_CAMPAIGN=bcast-overhead "$GRIDEMU" mpirun --mca coll_tuned_use_dynamic_rules 1 \
		--mca coll_tuned_bcast_algorithm 6 --mca coll_tuned_bcast_algorithm_segmentsize 0 \
		-- "$GB" --algo binomial --sizes 1M --reps "$oreps" --warmup 1 \
		--segment 0 --out "$out/overhead-samebinomial.csv" --quiet || exit 1
	# segmented: both sides cut 1 MiB into 64 KiB segments down the binomial
	GRIDBED_CAMPAIGN=bcast-overhead "$GRIDEMU" mpirun --mca coll_tuned_use_dynamic_rules 1 \
		--mca coll_tuned_bcast_algorithm 6 --mca coll_tuned_bcast_algorithm_segmentsize 65536 \
		-- "$GB" --algo binomial --sizes 1M --reps "$oreps" --warmup 1 \
		--segment 64K --out "$out/overhead-samebinomial-seg.csv" --quiet || exit 1
	# a chain in rank order from the root, 64 KiB segments, on both sides:
	# Open MPI's pipeline broadcast (algorithm 3 is a chain of fanout 1)
	GRIDBED_CAMPAIGN=bcast-overhead "$GRIDEMU" mpirun --mca coll_tuned_use_dynamic_rules 1 \
		--mca coll_tuned_bcast_algorithm 3 --mca coll_tuned_bcast_algorithm_segmentsize 65536 \
		-- "$GB" --algo chain --sizes 1M --reps "$oreps" --warmup 1 \
		--segment 64K --out "$out/overhead-samechain-seg.csv" --quiet || exit 1
	"$GRIDEMU" down >/dev/null
	python3 - "$out/overhead.csv" "$out/overhead-samebinomial.csv" \
		"$out/overhead-samebinomial-seg.csv" "$out/overhead-samechain-seg.csv" <<'PY'
import csv, statistics as st, sys
for f, ours, native in ((sys.argv[1], "binomial", "native (OpenMPI's default choice)"),
                        (sys.argv[2], "binomial", "native locked to OpenMPI's binomial, unsegmented"),
                        (sys.argv[3], "binomial", "native locked to OpenMPI's binomial, 64 KiB segments"),
                        (sys.argv[4], "chain", "native locked to OpenMPI's pipeline (chain), 64 KiB segments")):
    rows = list(csv.DictReader(open(f)))
    def m(a, k="completion_time"):
        return st.median(float(r[k]) for r in rows if r["algorithm"] == a)
    print("against %s:" % native)
    for k, what in (("completion_time", "completion (max receive-done)"),
                    ("all_returned", "all ranks returned")):
        b, n = m(ours, k), m("native", k)
        print("  %-30s %-8s %.6f s  native %.6f s  ratio %.3f (target <= 1.10)" % (what, ours, b, n, b / n))
PY
fi
