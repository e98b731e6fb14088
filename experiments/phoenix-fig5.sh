#!/usr/bin/env bash
# phoenix-fig5.sh - the experiment of Saito, Taura & Chikayama (seed 001 s4.2,
# Fig. 5) on the emulated grid: 1 KB broadcasts over 168 nodes in clusters of
# 100, 65 and 3 (topologies/phoenix.yaml), three algorithms compared by the
# time at which every node returns from the broadcast.
#
# The shipped form of the experiment is the campaign
# experiments/phoenix-fig5.yaml (`gridexp run`, with results, plots and
# `gridexp check --expect experiments/phoenix-fig5-expect.yaml` like every
# campaign).  This script is its diagnostic twin over `gridbcast`: the same
# protocol, rank order and trees, plus per-hop fidelity, per-cluster medians
# and the MPI job's memory, which the campaign does not measure.
#
#   experiments/phoenix-fig5.sh [--reps N] [--seed N] [--order shuffle|interleave]
#       [--topology FILE] [--scale F] [--wait sleep|spin] [--window-ms W]
#       [--phoenixd-args "ARGS" | --phoenix-trees DIR]
#       [--phoenixd-timeout S] [--job-timeout S] [--backend B] [--prefix P]
#       [--dilate K] [--out DIR] [--keep-grid]
#
# --dilate K brings the grid up time-dilated (`gridemu up --dilate K`,
# docs/architecture.md, decision 9: delays x K, rates / K on the wire): gridbcast
# then stretches its windows by K and every time below is the topology's
# (measured / K).  phoenixd runs at K too, on the topology's clock, with its
# round kept at 2 s of wall clock (step 2), so that it converges in about the
# wall clock it takes at K = 1.
#
# --scale F (0 < F < 1) runs the same topology with fewer hosts per cluster
# in the same proportions: every `hosts: N` of the file becomes
# max(min(N, 3), round(N x F)), so 100/65/3 at 0.25 is 25/16/3 (the paper's
# 3-node cluster stays a small far cluster); the scaled copy is saved as
# topology.yaml in --out and named in the summary.
#
# Steps (each prints a progress line):
#  1. `gridemu up` the topology (prefix --prefix, default px<random>; run
#     directory $GRIDBED_RUNDIR, default /run/gridbed-px).
#  2. phoenixd: the real Phoenix protocol, one process per host, UDP on the
#     data plane, until the trees are stable; its rounds and messages to
#     convergence are recorded and every tree it reports (one per root) is
#     checked independently here: wide-area optimal = exactly one edge from
#     another cluster into each non-root cluster, none into the root's.
#     --phoenix-trees DIR reuses an earlier run's phoenixd output (its
#     phoenixd/ directory, for the same topology) instead: copied, labelled
#     as reused, checked the same way.
#  3. One MPI job (`gridemu mpirun --hosts ORDER`, one rank per host) runs
#     gridbcast --algo binomial,magpie,phoenix --sizes 1K --reps N:
#       binomial-unaware  MPICH's binomial over a rank order that ignores the
#                         clusters, as the paper's imitation of MPICH did:
#                         rank 0 is the topology's root, ranks 1..n-1 the
#                         other hosts shuffled by Python's
#                         random.Random(--seed) (--order shuffle, default) or
#                         dealt round robin over the clusters (--order
#                         interleave).  The paper does not give its order.
#       phoenix           the tree phoenixd converged to for the root, read by
#                         the root ($GRIDBED_PHOENIX_TREES) and sent to the
#                         other ranks in the tree header like every measured
#                         tree (docs/gridbcast.md); children most-descendants
#                         first (s5)
#       magpie            the static a-priori tree: root to one coordinator
#                         per cluster in turn, binomial inside clusters
#     gridbcast also runs OpenMPI's own MPI_Bcast (native) over the same rank
#     order; it is kept in the CSV as native-unaware and left out of the plot.
#     --wait sleep (default): ranks wait for messages asleep in poll(2), so
#     that 168 ranks on 2 cores do not take the CPU from the ones forwarding
#     (gridbcast --wait); --window-ms W (default max(400, 10 x hosts): 1680
#     for 168 hosts, where 400 left 10-30 % of the rank starts late; 0:
#     barriers): every
#     timed broadcast starts at a common time T sent by the root and nothing
#     else runs until T + W (gridbcast --window-ms), so that the traffic and
#     wake-ups of the barriers around it stay out of it; late starts and
#     overruns are counted.  docs/measurements.md has the modes measured.
#     While the job runs, memory is sampled: the sum of the RSS of the ranks
#     and orteds, and the drop of MemAvailable (which includes whatever else
#     the box does).
#  4. Per node and algorithm: return time = t_send_done - root's t_begin,
#     receive time = t_recv_done - root's t_begin, median over the
#     repetitions; per algorithm: median over repetitions of the completion
#     (max receive) and of the last return, ratios to magpie.
#
# Files in --out (default results/phoenix-fig5/<UTC timestamp>/):
#   summary.txt      everything printed, the tables and the verdict
#   nodes.csv        algorithm,node,host,cluster,return_med_s,recv_med_s,reps
#   algorithms.csv   algorithm,reps,completion_med_s,completion_max_s,
#                    last_return_med_s,node_return_med_s,ratio_completion_magpie,
#                    ratio_last_return_magpie
#   wan-check.csv    root,cluster,valid,wan_edges,wan_optimal,entered_from
#   fig5.png         per-node return time (ms), nodes grouped by cluster,
#                    one series per algorithm; fig5-recv.png the same for
#                    receive times
#   rank-order.txt   the hosts in rank order
#   bcast.csv/.json, ranks.csv   gridbcast's raw files (docs/gridbcast.md)
#   phoenixd/        phoenixd's summary.json, initial/<root>.json, log
#   fit.txt          the resource figures of the MPI job
# Exit status: 0 when everything ran and every check held (all phoenixd trees
# wide-area optimal, the phoenix tree came from phoenixd, no corrupted byte);
# 1 otherwise; 2 bad usage.  Whether the paper's result is reproduced is a
# result, printed, not a check.  The grid is torn down on exit and Ctrl-C.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
build=${GRIDBED_BUILD:-$src/build}
GRIDEMU=${GRIDEMU:-$build/emulator/gridemu}
GB=$build/collectives/gridbcast
PHOENIXD=$build/collectives/phoenixd
me=phoenix-fig5

reps=11; seed=1; order=shuffle; topo=$src/topologies/phoenix.yaml; wait_mode="sleep"
scale=; window=auto; ptrees=
pargs=; ptimeout=; jtimeout=1200; backend=auto; prefix=; out=; keep=0; dilate=1
usage() { awk 'NR > 1 && !/^#/ {exit} NR > 1' "$0" | sed 's/^# \{0,1\}//'; }
need() { [ $# -ge 2 ] && [ -n "$2" ] || { echo "$me: $1: needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
	case "$1" in
		--reps) need "$@"; reps=$2; shift ;;
		--seed) need "$@"; seed=$2; shift ;;
		--order) need "$@"; order=$2; shift ;;
		--topology) need "$@"; topo=$2; shift ;;
		--wait) need "$@"; wait_mode=$2; shift ;;
		--window-ms) need "$@"; window=$2; shift ;;
		--scale) need "$@"; scale=$2; shift ;;
		--phoenixd-args) need "$@"; pargs=$2; shift ;;
		--phoenix-trees) need "$@"; ptrees=$2; shift ;;
		--phoenixd-timeout) need "$@"; ptimeout=$2; shift ;;
		--job-timeout) need "$@"; jtimeout=$2; shift ;;
		--backend) need "$@"; backend=$2; shift ;;
		--dilate) need "$@"; dilate=$2; shift ;;
		--prefix) need "$@"; prefix=$2; shift ;;
		--out) need "$@"; out=$2; shift ;;
		--keep-grid) keep=1 ;;
		-h|--help) usage; exit 0 ;;
		*) echo "$me: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
case $reps in ''|*[!0-9]*|0) echo "$me: --reps: '$reps' is not a positive integer" >&2; exit 2 ;; esac
case $seed in ''|*[!0-9]*) echo "$me: --seed: '$seed' is not a non-negative integer" >&2; exit 2 ;; esac
case $order in shuffle|interleave) ;; *) echo "$me: --order: '$order' is neither shuffle nor interleave" >&2; exit 2 ;; esac
case $wait_mode in sleep|spin) ;; *) echo "$me: --wait: '$wait_mode' is neither sleep nor spin" >&2; exit 2 ;; esac
case $window in auto) ;; ''|*[!0-9]*) echo "$me: --window-ms: '$window' is not a whole number of ms" >&2; exit 2 ;; esac
if [ -n "$scale" ] && ! awk -v f="$scale" 'BEGIN {exit !(f + 0 == f && f > 0 && f < 1)}'; then
	echo "$me: --scale: '$scale' is not a number between 0 and 1" >&2; exit 2
fi
if ! awk -v k="$dilate" 'BEGIN {exit !(k + 0 == k && k >= 1 && k <= 1000)}'; then
	echo "$me: --dilate: '$dilate' is not a number in [1, 1000]" >&2; exit 2
fi
case $jtimeout in ''|*[!0-9]*|0) echo "$me: --job-timeout: '$jtimeout' is not a positive integer" >&2; exit 2 ;; esac
case ${ptimeout:-1} in *[!0-9]*|0) echo "$me: --phoenixd-timeout: '$ptimeout' is not a positive integer" >&2; exit 2 ;; esac
[ -r "$topo" ] || { echo "$me: --topology: cannot read '$topo'" >&2; exit 2; }
if [ -n "$ptrees" ] && { [ ! -r "$ptrees/summary.json" ] || [ ! -d "$ptrees/initial" ]; }; then
	echo "$me: --phoenix-trees: '$ptrees' has no summary.json and initial/ (phoenixd --out)" >&2; exit 2
fi
case ${prefix:-ok} in *[!a-z0-9]*) echo "$me: --prefix: '$prefix' must be lowercase letters and digits" >&2; exit 2 ;; esac
[ ${#prefix} -le 6 ] || { echo "$me: --prefix: '$prefix' is longer than 6 characters" >&2; exit 2; }

[ "$(id -u)" = 0 ] || { echo "$me: needs root (network namespaces)" >&2; exit 1; }
for c in mpirun python3 gnuplot; do
	command -v $c >/dev/null || { echo "$me: $c is not installed" >&2; exit 1; }
done
for f in "$GRIDEMU" "$GB" "$PHOENIXD"; do
	[ -x "$f" ] || { echo "$me: $f is not built (GRIDBED_BUILD=$build)" >&2; exit 1; }
done

out=${out:-$src/results/phoenix-fig5/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out/phoenixd" || { echo "$me: cannot create '$out'" >&2; exit 1; }
out=$(cd "$out" && pwd)
GRIDBED_PREFIX=${prefix:-px$(printf '%04x' $(( ($$ ^ RANDOM) & 0xffff )))}
export GRIDBED_PREFIX
export GRIDBED_RUNDIR=${GRIDBED_RUNDIR:-/run/gridbed-px}
export GRIDBED_CAMPAIGN=phoenix-fig5 GRIDBED_LOAD_STATE=none
mon_pid=
teardown() {
	[ -n "$mon_pid" ] && kill "$mon_pid" 2>/dev/null
	if [ "$keep" = 0 ]; then
		"$GRIDEMU" down >/dev/null 2>&1
		rm -rf "${GRIDBED_RUNDIR:?}/$GRIDBED_PREFIX"
	fi
}
trap teardown EXIT
trap 'echo "$me: interrupted" >&2; exit 130' INT TERM
exec > >(tee "$out/summary.txt") 2>&1
step() { echo "$me: [$1/5] $(date -u +%H:%M:%S) $2"; }
mono() { awk '{print $1}' /proc/uptime; }

echo "$me: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)," \
	"kernel $(uname -r), git $(git -C "$src" describe --always --dirty 2>/dev/null)," \
	"load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "$scale" ]; then
	python3 - "$topo" "$scale" >"$out/topology.yaml" <<'PY' || exit 1
import re, sys
f = float(sys.argv[2])
text = open(sys.argv[1]).read()
print("# %s scaled by %s: hosts N -> max(min(N, 3), round(N x %s)) (phoenix-fig5.sh --scale)"
      % (sys.argv[1], sys.argv[2], sys.argv[2]))
print(re.sub(r"\bhosts:\s*(\d+)", lambda m: "hosts: %d" % max(min(int(m.group(1)), 3),
             round(int(m.group(1)) * f)), text), end="")
PY
	echo "$me: SCALED: $topo at $scale -> $out/topology.yaml ($(grep -o 'hosts: *[0-9]*' "$out/topology.yaml" | awk '{print $2}' | paste -sd/) hosts per cluster)"
	topo=$out/topology.yaml
fi
echo "$me: topology $topo, reps $reps, rank order $order (seed $seed), wait $wait_mode," \
	"window-ms $window, time dilation x$dilate, prefix $GRIDBED_PREFIX, files in $out"

# ---- 1. the grid ----------------------------------------------------------
step 1 "gridemu up $(basename "$topo")"
"$GRIDEMU" up --backend "$backend" --dilate "$dilate" "$topo" | head -1 || { echo "$me: gridemu up failed" >&2; exit 1; }
"$GRIDEMU" status --json >"$out/grid.json" || exit 1
nhosts=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["hosts"]))' "$out/grid.json")
[ "$window" = auto ] && window=$(( nhosts * 10 > 400 ? nhosts * 10 : 400 ))

# ---- 2. phoenixd ------------------------------------------------------------
# Many hosts on a small box: longer rounds and fewer serials keep the
# protocol's traffic below what the userspace delay line carries (phoenixd.c).
# That limit is the wall clock's and phoenixd's clock the topology's, so, as
# in gridexp's campaigns (docs/formats.md, `phoenixd`), the round is 2 s of
# wall clock: 2000 / K ms of the topology's time, at least 200; coalescing
# 1/200 of it, the timeout 900 rounds.
if [ -z "$pargs" ] && [ "$nhosts" -gt 16 ]; then
	pround=$(awk -v k="$dilate" 'BEGIN {r = int(2000 / k + 0.5); print (r < 200 ? 200 : r)}')
	pargs="--round-ms $pround --serial-every 2 --coalesce-ms $(awk -v r="$pround" 'BEGIN {print r / 200}')"
	ptimeout=${ptimeout:-$(( pround * 900 / 1000 ))}
fi
ptimeout=${ptimeout:-120}
if [ -n "$ptrees" ]; then
	step 2 "phoenixd: REUSED from $ptrees (not run now)"
	cp -r "$ptrees/summary.json" "$ptrees/initial" "$out/phoenixd/" || exit 1
	[ -r "$ptrees/log" ] && cp "$ptrees/log" "$out/phoenixd/log"
	echo "reused from $ptrees" >"$out/phoenixd/REUSED"
else
step 2 "phoenixd run --grid $pargs --timeout $ptimeout ($nhosts processes)"
t0=$(mono)
# shellcheck disable=SC2086
"$PHOENIXD" run --grid $pargs --timeout "$ptimeout" --out "$out/phoenixd" --verbose \
	>"$out/phoenixd/log" 2>&1
pst=$?
sed -n '/^phoenixd:\|^initial\|^  tree/p' "$out/phoenixd/log" | grep -v '^phoenixd: initial +' | sed 's/^/  /'
echo "  phoenixd: exit $pst after $(awk -v a="$t0" -v b="$(mono)" 'BEGIN {printf "%.0f", b - a}') s"
if [ $pst != 0 ] || [ ! -r "$out/phoenixd/summary.json" ]; then
	echo "$me: phoenixd did not converge (exit $pst); see $out/phoenixd/log" >&2
	exit 1
fi
fi

# The independent wide-area check of every tree phoenixd wrote.
python3 - "$out/grid.json" "$out/phoenixd" "$out/wan-check.csv" <<'PY' || exit 1
import csv, json, os, sys
grid = json.load(open(sys.argv[1]))
cl = {h["name"]: h["cluster"] for h in grid["hosts"]}
d = os.path.join(sys.argv[2], "initial")
s = json.load(open(os.path.join(sys.argv[2], "summary.json")))
rows, nopt = [], 0
for h in grid["hosts"]:
    r = h["name"]
    f = os.path.join(d, r + ".json")
    if not os.path.exists(f):
        rows.append([r, cl[r], 0, "", 0, "no tree file"]); continue
    t = json.load(open(f))
    par = dict(zip(t["nodes"], t["parent"]))
    # a spanning tree rooted at r: every chain of parents ends at r
    valid = set(par) == set(cl) and t["root"] == r and par[r] is None
    for v in par if valid else ():
        seen, u = set(), v
        while u is not None and u not in seen:
            seen.add(u); u = par[u]
        valid &= u is None and r in seen
    into = {}
    for v, p in par.items():
        if p is not None and cl[p] != cl[v]:
            into.setdefault(cl[v], []).append(cl[p])
    others = set(cl.values()) - {cl[r]}
    opt = valid and cl[r] not in into and all(len(into.get(c, [])) == 1 for c in others)
    nopt += opt
    rows.append([r, cl[r], int(valid), sum(len(x) for x in into.values()), int(opt),
                 " ".join("%s<-%s" % (c, "+".join(into[c])) for c in sorted(into))])
with open(sys.argv[3], "w") as f:
    w = csv.writer(f)
    w.writerow(["root", "cluster", "valid", "wan_edges", "wan_optimal", "entered_from"])
    w.writerows(rows)
i = s["initial"]
reused = os.path.join(sys.argv[2], "REUSED")
if os.path.exists(reused):
    print("  phoenixd: %s" % open(reused).read().strip())
print("  phoenixd converged: %s after %.1f s, %d rounds of %d ms, %d messages "
      "(%d datagrams, %d bytes), %d parent changes (%d by shortcut)"
      % (i["converged"], i["time_s"], i["rounds"], s["round_ms"], i["messages"],
         i["datagrams"], i["bytes"], i["changes"], i["shortcuts"]))
print("  wide-area check (independent of phoenixd's own): %d of %d trees wide-area optimal "
      "(phoenixd says %d of %d)" % (nopt, len(rows), i["wan_optimal"], s["hosts"]))
for r in rows:
    if not r[4]:
        print("    NOT optimal: root %s: %s" % (r[0], r[5] or "not a tree"))
sys.exit(0 if nopt == len(rows) == len(grid["hosts"]) else 3)
PY
wan_st=$?
[ $wan_st = 0 ] || echo "$me: CHECK FAILED: not every phoenixd tree is wide-area optimal"

# ---- 3. the MPI job ---------------------------------------------------------
# the root: the topology's `root:` (else its first host) is rank 0
root=$(sed -n 's/^root: *\([^ #]*\).*/\1/p' "$topo" | head -1)
python3 - "$out/grid.json" "$order" "$seed" "$root" >"$out/rank-order.txt" <<'PY' || exit 1
import json, random, sys
g = json.load(open(sys.argv[1]))
hosts = [h["name"] for h in g["hosts"]]
root = sys.argv[4] if sys.argv[4] in hosts else hosts[0]
rest = [h for h in hosts if h != root]
if sys.argv[2] == "shuffle":
    random.Random(int(sys.argv[3])).shuffle(rest)
else:
    # round robin over the clusters: consecutive ranks in different clusters
    cl = {h["name"]: h["cluster"] for h in g["hosts"]}
    groups = {}
    for h in rest:
        groups.setdefault(cl[h], []).append(h)
    lists, rest = list(groups.values()), []
    while any(lists):
        for l in lists:
            if l:
                rest.append(l.pop(0))
print("\n".join([root] + rest))
PY
root=$(head -1 "$out/rank-order.txt")
step 3 "gridemu mpirun: $nhosts ranks (root $root, order $order), gridbcast binomial,magpie,phoenix 1K x $reps, wait $wait_mode, window $window ms"
memavail() { awk '/MemAvailable/ {print $2}' /proc/meminfo; }
mem0=$(memavail)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
(
	minavail=$mem0; maxrss=0; maxranks=0
	while sleep 0.5; do
		a=$(memavail); [ "$a" -lt "$minavail" ] && minavail=$a
		rss=$(ps -C gridbcast,orted -o rss= 2>/dev/null | awk '{s += $1} END {print s + 0}')
		nr=$(ps -C gridbcast -o pid= 2>/dev/null | wc -l)
		[ "$rss" -gt "$maxrss" ] && maxrss=$rss
		[ "$nr" -gt "$maxranks" ] && maxranks=$nr
		echo "$minavail $maxrss $maxranks" >"$out/.mem"
	done
) &
mon_pid=$!
t0=$(mono)
GRIDBED_PHOENIX_TREES=$out/phoenixd "$GRIDEMU" mpirun --timeout "$jtimeout" \
	--hosts "$(paste -sd, "$out/rank-order.txt")" -- \
	"$GB" --algo binomial,magpie,phoenix --sizes 1K --reps "$reps" --wait "$wait_mode" \
	--window-ms "$window" \
	--root "$root" --out "$out/bcast.csv" --ranks "$out/ranks.csv" >"$out/gridbcast.log" 2>&1
jst=$?
t1=$(mono)
kill "$mon_pid" 2>/dev/null; wait "$mon_pid" 2>/dev/null; mon_pid=
sed 's/^/  /' "$out/gridbcast.log"
read -r minavail maxrss maxranks <"$out/.mem" 2>/dev/null || { minavail=$mem0; maxrss=0; maxranks=0; }
rm -f "$out/.mem"
first=$(awk -F, 'NR == 2 {print $7}' "$out/bcast.csv" 2>/dev/null)
{
	echo "MPI job: $nhosts ranks requested, $maxranks seen at once; exit status $jst"
	echo "load average (1, 5, 15 min) before the job: $load0; after: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
	echo "job wall time (gridemu mpirun start to exit): $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}') s"
	[ -n "$first" ] && echo "launch to the first timed broadcast: $(awk -v a="$t0" -v b="$first" 'BEGIN {printf "%.1f", b - a}') s (includes planning and the warm-up)"
	echo "peak RSS, ranks + orteds summed (shared pages counted per process): $((maxrss / 1024)) MiB"
	echo "peak drop of MemAvailable during the job (includes the rest of the box): $(( (mem0 - minavail) / 1024 )) MiB of $(( mem0 / 1024 )) MiB available"
	echo "1 KB broadcasts completed: $(awk -F, 'NR > 1' "$out/bcast.csv" 2>/dev/null | wc -l) timed rows"
	[ -r "$out/bcast.json" ] && python3 -c 'import json, sys; j = json.load(open(sys.argv[1]))
if j.get("window_s"):
    print("start windows of %.0f ms: %d late starts, %d overruns (rank x broadcast; 0 and 0: every rank waited for T and was done by T + W)"
          % (1e3 * j["window_s"], j["window_late_starts"], j["window_overruns"]))' "$out/bcast.json"
} | tee "$out/fit.txt" | sed 's/^/  /'
if [ $jst != 0 ]; then
	echo "$me: the MPI job failed (exit $jst); see $out/gridbcast.log" >&2
	exit 1
fi

# ---- 4. per node, per algorithm, checks, verdict ----------------------------
step 4 "per-node medians, summary, checks"
python3 - "$out" <<'PY'
import csv, json, os, statistics as st, sys
out = sys.argv[1]
grid = json.load(open(os.path.join(out, "grid.json")))
# time dilation (docs/architecture.md, decision 9): ranks.csv's clock readings
# are raw; every duration below is the topology's, measured / k
K = float(grid.get("dilate", 1))
hosts = [h["name"] for h in grid["hosts"]]
cl = {h["name"]: h["cluster"] for h in grid["hosts"]}
label = {"binomial": "binomial-unaware", "native": "native-unaware", "phoenix": "phoenix",
         "magpie": "magpie"}
rows = list(csv.DictReader(open(os.path.join(out, "ranks.csv"))))
bc = list(csv.DictReader(open(os.path.join(out, "bcast.csv"))))
status = 0

# every broadcast: its rows, the root's t_begin
by = {}
for r in rows:
    by.setdefault((r["algorithm"], r["index"]), []).append(r)
root_rank = int(bc[0]["root_rank"])
per = {}     # (label, host) -> [return], [recv]
bcasts = {}  # label -> [(completion, last return)]
for (a, idx), rr in by.items():
    rr.sort(key=lambda r: int(r["rank"]))
    t0 = float(rr[root_rank]["t_begin"])
    L = label[a]
    rets, recvs = [], []
    for r in rr:
        ret = (float(r["t_send_done"]) - t0) / K
        rcv = (float(r["t_recv_done"]) - t0) / K
        d = per.setdefault((L, r["host"]), ([], []))
        d[0].append(ret); d[1].append(rcv)
        rets.append(ret); recvs.append(rcv)
    bcasts.setdefault(L, []).append((max(recvs), max(rets)))

algos = [l for l in ("binomial-unaware", "phoenix", "magpie", "native-unaware") if l in bcasts]
with open(os.path.join(out, "nodes.csv"), "w") as f:
    w = csv.writer(f)
    w.writerow(["algorithm", "node", "host", "cluster", "return_med_s", "recv_med_s", "reps"])
    for L in algos:
        for i, h in enumerate(hosts):
            ret, rcv = per[(L, h)]
            w.writerow([L, i + 1, h, cl[h], "%.9f" % st.median(ret), "%.9f" % st.median(rcv),
                        len(ret)])
# fidelity: intra-cluster hops (receive done - parent's send start) and
# the measured completion against the tree's predicted one (the same
# topology model for every algorithm, pred_mateescu)
hop = {}
for (a, idx), rr in by.items():
    for r in rr:
        if r["parent_send_start"] in ("", "nan") or int(r["parent"]) < 0:
            continue
        p = rr[int(r["parent"])]
        if cl[p["host"]] == cl[r["host"]]:
            hop.setdefault(label[a], []).append((float(r["t_recv_done"]) -
                                                float(r["parent_send_start"])) / K)
pred = {}
for r in bc:
    if r.get("pred_mateescu", "") not in ("", "nan"):
        pred[label[r["algorithm"]]] = float(r["pred_mateescu"])
summ = {}
for L in algos:
    c = [x[0] for x in bcasts[L]]
    lr = [x[1] for x in bcasts[L]]
    nm = st.median([st.median(per[(L, h)][0]) for h in hosts])
    summ[L] = (len(c), st.median(c), max(c), st.median(lr), nm)
mg = summ.get("magpie")
with open(os.path.join(out, "algorithms.csv"), "w") as f:
    w = csv.writer(f)
    w.writerow(["algorithm", "reps", "completion_med_s", "completion_max_s", "last_return_med_s",
                "node_return_med_s", "ratio_completion_magpie", "ratio_last_return_magpie"])
    for L in algos:
        n, cm, cx, lr, nm = summ[L]
        w.writerow([L, n, "%.9f" % cm, "%.9f" % cx, "%.9f" % lr, "%.9f" % nm,
                    "%.4f" % (cm / mg[1]), "%.4f" % (lr / mg[3])])

print()
print("time dilation x%g%s" % (K, ": times are the topology's (measured / k)" if K > 1 else " (none)"))
print("%-18s %5s %14s %14s %16s %16s %9s %9s" % ("algorithm", "reps", "completion_med",
      "completion_max", "last_return_med", "node_return_med", "x_magpie", "x_magpie"))
print("%-18s %5s %14s %14s %16s %16s %9s %9s" % ("", "", "(ms)", "(ms)", "(ms)", "(ms)",
      "(compl.)", "(return)"))
for L in algos:
    n, cm, cx, lr, nm = summ[L]
    print("%-18s %5d %14.2f %14.2f %16.2f %16.2f %9.2f %9.2f" % (L, n, 1e3 * cm, 1e3 * cx,
          1e3 * lr, 1e3 * nm, cm / mg[1], lr / mg[3]))
print("completion = max over nodes of (receive done - root's begin); last_return = max over "
      "nodes of (return - root's begin); node_return_med = median over nodes of each node's "
      "median return; medians over the repetitions")
print("native-unaware is OpenMPI's own MPI_Bcast over the same rank order (its receive time "
      "is its return time)")
print()
print("fidelity: the CPU, not the network, dominates when these grow")
for L in algos:
    h = sorted(hop.get(L, []))
    line = "  %-18s" % L
    if not h and L not in pred:
        continue
    if h:
        line += " intra-cluster hop median %.2f ms, p90 %.2f ms (%d hops)" % (
            1e3 * st.median(h), 1e3 * h[max(0, -(-9 * len(h) // 10) - 1)], len(h))
    if L in pred:
        line += "; completion / model prediction %.2f (predicted %.2f ms)" % (
            summ[L][1] / pred[L], 1e3 * pred[L])
    print(line)
by_cl = {}
for L in algos:
    for h in hosts:
        by_cl.setdefault((L, cl[h]), []).append(st.median(per[(L, h)][0]))
cls = []
for h in hosts:
    if cl[h] not in cls:
        cls.append(cl[h])
print()
print("median return time per cluster (ms): " + "  ".join(
    "%s (%d nodes)" % (c, sum(1 for h in hosts if cl[h] == c)) for c in cls))
for L in algos:
    print("  %-18s %s" % (L, "  ".join("%s %.2f (max %.2f)" % (c, 1e3 * st.median(by_cl[(L, c)]),
                                                            1e3 * max(by_cl[(L, c)])) for c in cls)))

# checks: the phoenix tree is phoenixd's, delivered in the header
print()
ph = [r for r in bc if r["algorithm"] == "phoenix"]
model = ph[0]["model"] if ph else ""
via = ph[0]["tree_via"] if ph else ""
from_d = model.startswith("phoenixd ")
print("phoenix tree from: %s (tree_via %s): %s" % (model, via,
      "phoenixd's converged tree" if from_d else "NOT phoenixd's"))
rootname = hosts and bc[0]["root"]
tf = model[len("phoenixd "):] if from_d else ""
same = False
if tf and os.path.exists(tf):
    t = json.load(open(tf))
    want = dict(zip(t["nodes"], t["parent"]))
    same = True
    for (a, idx), rr in by.items():
        if a != "phoenix":
            continue
        name = {int(r["rank"]): r["host"] for r in rr}
        for r in rr:
            p = int(r["parent"])
            got = name[p] if p >= 0 else None
            same &= got == want[r["host"]]
print("the broadcasts used exactly that tree (parents seen by the ranks): %s" %
      ("yes" if same else "NO"))
if not (from_d and via == "piggyback" and same):
    status = 1
    print("CHECK FAILED: the phoenix tree must be phoenixd's, sent in the header")
bad = sum(int(r["mismatches"]) + int(r["order_violations"]) for r in bc)
print("mismatching bytes + order violations over all broadcasts: %d" % bad)
status |= bad != 0

# the verdict: the paper's two claims, on medians of the completion time
if all(k in summ for k in ("binomial-unaware", "phoenix", "magpie")):
    u, p, m = summ["binomial-unaware"][1], summ["phoenix"][1], summ["magpie"][1]
    ur, pr, mr = summ["binomial-unaware"][3], summ["phoenix"][3], summ["magpie"][3]
    print()
    print("the paper (s4.2, Fig. 5): dynamic trees decisively beat the topology-unaware "
          "binomial and are slightly worse than the static (MagPIe) trees")
    print("  binomial-unaware / phoenix: %.2f (completion), %.2f (last return)" % (u / p, ur / pr))
    print("  phoenix / magpie:           %.2f (completion), %.2f (last return)" % (p / m, pr / mr))
    a = u / p >= 1.5 and ur / pr >= 1.5
    b = 1.0 <= p / m < u / m
    print("  (1) dynamic >> unaware (both ratios >= 1.5): %s" % ("reproduced" if a else "NOT reproduced"))
    print("  (2) dynamic slightly worse than static (1 <= phoenix/magpie, and below "
          "unaware/magpie = %.2f): %s" % (u / m, "reproduced" if b else
          ("NOT reproduced: phoenix is not worse than magpie here" if p / m < 1 else "NOT reproduced")))
sys.exit(status)
PY
pst=$?

# ---- 5. the figure ----------------------------------------------------------
step 5 "gnuplot: fig5.png, fig5-recv.png"
python3 - "$out" <<'PY' >"$out/.plot.gp"
import csv, json, os, sys
out = sys.argv[1]
grid = json.load(open(os.path.join(out, "grid.json")))
hosts = [h["name"] for h in grid["hosts"]]
cls, starts = [], []
for i, h in enumerate(grid["hosts"]):
    if h["cluster"] not in cls:
        cls.append(h["cluster"]); starts.append(i + 1)
starts.append(len(hosts) + 1)
for col, name, what in ((5, "fig5.png", "returned from the broadcast"),
                        (6, "fig5-recv.png", "had received the message")):
    print('set terminal pngcairo size 1200,600 noenhanced')
    print('set output "%s"' % os.path.join(out, name))
    print('set title "1 KB broadcast over %d nodes in %d clusters (%s):\\ntime at which each '
          'node %s (median of the repetitions)"' % (len(hosts), len(cls), ", ".join(
              "%s %d" % (c, starts[k + 1] - starts[k]) for k, c in enumerate(cls)), what))
    print('set xlabel "node (grouped by cluster, topology order)"')
    print('set ylabel "time after the root began (ms)"')
    print('set key below horizontal')
    print('set grid ytics')
    print('set datafile separator ","')
    print('set xrange [0:%d]' % (len(hosts) + 1))
    print('unset arrow; unset label')
    for k, c in enumerate(cls):
        if k:
            print('set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 lc "gray"'
                  % (starts[k] - 0.5, starts[k] - 0.5))
        print('set label "%s" at %g, graph 0.97 center' % (c, (starts[k] + starts[k + 1] - 1) / 2.0))
    series = [("binomial-unaware", 7, "#d62728"), ("phoenix", 9, "#1f77b4"), ("magpie", 5, "#2ca02c")]
    print("plot " + ", ".join(
        '"%s" using (strcol(1) eq "%s" ? $2 : NaN):($%d*1000) with points pt %d ps 0.8 lc rgb "%s" title "%s"'
        % (os.path.join(out, "nodes.csv"), a, col, pt, c, a) for a, pt, c in series))
PY
gnuplot "$out/.plot.gp" 2>"$out/.plot.err" || { cat "$out/.plot.err"; pst=1; }
rm -f "$out/.plot.gp" "$out/.plot.err"
ls -1 "$out" | sed 's/^/  /'
[ $wan_st = 0 ] || pst=1
echo "$me: $([ $pst = 0 ] && echo "done" || echo "done, with FAILED checks"); files in $out"
exit $pst
