#!/usr/bin/env bash
# tapd-oneload.sh - the delay line's CPU and lateness under one Fig. 8-shaped
# load, variants of the daemon (builds, environments) alternated on fresh grids
# (docs/measurements.md, sessions 42 and 43).  A benchmark: it prints figures and
# asserts nothing.
#
#   emulator/bench/tapd-oneload.sh [--rounds N] [--dilate K] [--seconds S]
#          [--rate R] [--tapd "DAEMON ..."] [--env "VAR=VALUE[,VAR=VALUE]|- ..."]
#          [--topology NAME] [--src HOST] [--dst HOST]
#
# The variants compared are the daemons in --tapd (default: the build's) and
# the environments in --env ("-": none), paired in order (the last of the
# shorter list repeats): e.g. --tapd "old/gridemu-tapd new/gridemu-tapd".
# For each round and each variant in turn (A/B/A/B...), it brings --topology
# (default teragrid-public) up at --dilate K (default 4) with that daemon
# (GRIDBED_TAPD) and environment, starts one CBR
# UDP flow of 1472-byte datagrams --src -> --dst (default c3-2 -> c2-2) at
# R of the topology's time (default 70mbit; R / K on the wire) with gridload,
# lets it run 2 s, then measures S wall seconds (default 10):
#   ticks     the daemon's CPU, utime + stime of /proc/PID/stat (1/100 s)
#   trav      link traversals (the daemon's total tx_packets)
#   us/trav   CPU per traversal; excl. spin: less the workers' spin_ns
#   sys/trav  the data path's system calls (the workers' "syscalls", where
#             the daemon counts them; else 0)
#   p50 p99 max late  lateness of the packets released in the window (the
#             `fidelity` histograms at both ends, subtracted), us; late: share
#             (%) over 100 us; over_line: share over the fidelity monitor's
#             line, 100 us x K (emulator/grid/fidelity.h: an interval with
#             more than 1 % over it is marked)
#   load1     the 1-minute load average at the window's start
# then one line per variant with the medians.  The grid is brought down after
# each run.  Needs root, python3 and a built tree (GRIDBED_BUILD, default build/).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${GRIDBED_BUILD:-$src/build}
me=tapd-oneload.sh
. "$src/util/bench/lib-bench.sh"
rounds=2; dilate=4; seconds=10; rate=70mbit; tapds=""; envs="-"
topology=teragrid-public; from=c3-2; to=c2-2
bench_parse 32 "rounds dilate seconds rate tapd=tapds env=envs topology src=from dst=to" "$@"
GRIDEMU=$build/emulator/gridemu
GRIDLOAD=$build/loadgen/gridload
[ -n "$tapds" ] || tapds=$build/emulator/gridemu-tapd
read -r -a tapdv <<<"$tapds"
read -r -a envv <<<"$envs"
bench_built "$GRIDEMU" "$GRIDLOAD" "${tapdv[@]}"
bench_need 1 root python3
nvar=$(( ${#tapdv[@]} > ${#envv[@]} ? ${#tapdv[@]} : ${#envv[@]} ))
# variant I: its daemon and its environment
vtapd() { local i=$1; (( i < ${#tapdv[@]} )) || i=$(( ${#tapdv[@]} - 1 )); echo "${tapdv[$i]}"; }
venv() { local i=$1; (( i < ${#envv[@]} )) || i=$(( ${#envv[@]} - 1 )); echo "${envv[$i]}"; }

export GRIDBED_PREFIX=${GRIDBED_PREFIX:-$(bench_prefix ol)}
tmp=$(mktemp -d /tmp/gb-oneload.XXXXXX)
export GRIDBED_RUNDIR=${GRIDBED_RUNDIR:-$tmp/run}
run=$GRIDBED_RUNDIR/$GRIDBED_PREFIX
load_pid=
cleanup() {
	[ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null && wait "$load_pid" 2>/dev/null
	"$GRIDEMU" down >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# snap NAME: the daemon's ticks, stats and fidelity histogram into $tmp/NAME.*
snap() {
	ticks "$pid" >"$tmp/$1.ticks"
	"$TAPD" --control "$run/tapd.sock" --send stats >"$tmp/$1.stats"
	"$TAPD" --control "$run/tapd.sock" --send fidelity >"$tmp/$1.fid"
	[ -s "$tmp/$1.stats" ] && [ -s "$tmp/$1.fid" ] ||
		{ echo "$me: the daemon did not answer" >&2; exit 1; }
}

# The window's figures from $tmp/a.* and $tmp/b.*, one line of "key=value".
figures() {
	python3 - "$tmp" "$dilate" <<'PY'
import json, sys
d, k = sys.argv[1], float(sys.argv[2])
def load(n):
    return (int(open(f"{d}/{n}.ticks").read()), json.load(open(f"{d}/{n}.stats")),
            json.load(open(f"{d}/{n}.fid")))
ta, sa, fa = load("a")
tb, sb, fb = load("b")
def wsum(s, k):
    return sum(w.get(k, 0) for w in s["workers"])
trav = sb["total"]["tx_packets"] - sa["total"]["tx_packets"]
ticks = tb - ta
sysc = wsum(sb, "syscalls") - wsum(sa, "syscalls")
spin = (wsum(sb, "spin_ns") - wsum(sa, "spin_ns")) / 1e9
h = {}
for b, c in fb["hist"]:
    h[b] = h.get(b, 0) + c
for b, c in fa["hist"]:
    h[b] = h.get(b, 0) - c
def low(i):   # tapd_queue.h: 16 buckets per power of two
    if i < 16:
        return i, 1
    m, s = i // 16 + 3, i % 16 + 16
    return s << (m - 4), 1 << (m - 4)
n = sum(h.values())
def q(p):
    want, acc = p * n, 0
    for b in sorted(h):
        acc += h[b]
        if acc >= want and h[b] > 0:
            lo, w = low(b)
            return (lo + w / 2) / 1e3
    return 0.0
top = max((b for b in h if h[b] > 0), default=0)
late = sum(c for b, c in h.items() if low(b)[0] > 100000)
over = sum(c for b, c in h.items() if low(b)[0] > 100000 * k)
io = ",".join(sorted({w.get("io", "-") for w in sb["workers"]}))
cpu_us = ticks * 1e4
print(f"io={io} ticks={ticks} trav={trav} "
      f"us_trav={cpu_us / trav if trav else 0:.1f} "
      f"us_trav_nospin={(cpu_us - spin * 1e6) / trav if trav else 0:.1f} "
      f"sys_trav={sysc / trav if trav else 0:.2f} spin_s={spin:.2f} "
      f"p50={q(0.5):.0f} p99={q(0.99):.0f} max={(low(top)[0] + low(top)[1]) / 1e3:.0f} "
      f"late={100.0 * late / n if n else 0:.2f} "
      f"over_line={100.0 * over / n if n else 0:.2f}")
PY
}

# one VARIANT ROUND: a fresh grid, the load, the window; prints a table row.
one() {
	local v=$1 r=$2 load1 f env ea
	TAPD=$(vtapd "$v")
	env=$(venv "$v")
	[ "$env" = - ] && env=GRIDBED_TAPD_ENV_NONE=1
	IFS=, read -r -a ea <<<"$env"
	"$GRIDEMU" down >/dev/null 2>&1
	if ! env "${ea[@]}" GRIDBED_TAPD="$TAPD" "$GRIDEMU" up "$src/topologies/$topology.yaml" \
		--dilate "$dilate" --quiet 2>"$tmp/up.err"; then
		echo "$me: up $topology failed: $(cat "$tmp/up.err")" >&2
		exit 1
	fi
	pid=$(cat "$run/tapd.pid")
	# the flow lasts the warm-up, the window and 2 s more (topology time: / K)
	"$GRIDLOAD" flow "$from" "$to" --rate "$rate" --size 1472 \
		--duration "$(awk -v s="$seconds" -v k="$dilate" 'BEGIN { printf "%d", (s + 4) * 1000 / k }')ms" --quiet >"$tmp/load.out" 2>&1 &
	load_pid=$!
	sleep 2
	load1=$(cut -d' ' -f1 /proc/loadavg)
	snap a
	sleep "$seconds"
	snap b
	wait "$load_pid" 2>/dev/null
	load_pid=
	"$GRIDEMU" down >/dev/null 2>&1
	f=$(figures)
	echo "round=$r variant=v$((v + 1)) load1=$load1 $f" >>"$tmp/rows"
	printf '%-5s %-7s %5s  %s\n' "$r" "v$((v + 1))" "$load1" "$f"
}

echo "$me: $topology at k = $dilate, one CBR UDP flow $from -> $to at $rate (topology)," \
	"$seconds s windows, $(date -u +%FT%TZ), git $(git -C "$src" rev-parse --short HEAD 2>/dev/null)"
for ((v = 0; v < nvar; v++)); do
	echo "  v$((v + 1)): $(vtapd "$v") (built $(date -u -r "$(vtapd "$v")" +%FT%TZ)), environment $(venv "$v")"
done
printf '%-5s %-7s %5s  %s\n' ROUND VARIANT LOAD1 FIGURES
for ((r = 1; r <= rounds; r++)); do
	for ((v = 0; v < nvar; v++)); do
		one "$v" "$r"
	done
done
echo "medians:"
python3 - "$tmp/rows" <<'PY'
import statistics, sys
rows = [dict(kv.split("=", 1) for kv in l.split()) for l in open(sys.argv[1])]
keys = ["ticks", "trav", "us_trav", "us_trav_nospin", "sys_trav", "spin_s", "p50", "p99", "late",
        "over_line"]
for p in dict.fromkeys(r["variant"] for r in rows):
    rs = [r for r in rows if r["variant"] == p]
    med = {k: statistics.median(float(r[k]) for r in rs) for k in keys}
    print(f"  {p:6s} n={len(rs)} io={rs[0]['io']} " +
          " ".join(f"{k}={med[k]:g}" for k in keys) +
          "  load1 " + ",".join(r["load1"] for r in rs))
PY
