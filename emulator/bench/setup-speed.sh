#!/usr/bin/env bash
# setup-speed.sh - how fast gridemu builds and removes a grid, next to the
# equivalent iproute2 script that `gridemu script` prints, in the same run.
#
#   emulator/bench/setup-speed.sh [--reps N] [--big N] [--settle S] [--csv FILE]
#
# For teragrid: the median of N (default 3) `gridemu up` and `gridemu down`
# against the same grid built and removed by the script (one ip/tc process
# per object), each rep in turn: up, down, the script's up and down, then
# `up --recalibrate` and its down.  A first `up` before the reps keeps a
# calibration that the reps' plain ups reuse (emulator/grid/calib_cache.h);
# the last line says how many did.  On a kernel without sch_netem the
# script gets --no-netem (rate only), so it does *less* work than gridemu
# and the ratio is a lower bound.  Then `gridemu up/down` of a generated
# N-host topology (default 1024, topologies/gen-big.sh).  Prints a table
# (with the 1-minute load average at the start and the end) and writes CSV.
# --settle S (default 1) waits S seconds before each timed up, gridemu's and
# the script's alike: `down` returns before the kernel has finished tearing
# the namespaces down (its cleanup worker runs on after), and an up that
# starts within a few hundred ms of a down shares the CPU and the locks
# with that teardown (session 45: teragrid's namespaces took 84-94 ms to
# create right after a down, 36-54 ms half a second or more after it).
# --settle 0 times them back to back, as the script did before session 45.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
GRIDEMU=${GRIDEMU:-${GRIDBED_BUILD:-$src/build}/emulator/gridemu}
me=setup-speed.sh
. "$src/util/bench/lib-bench.sh"
reps=3; big=1024; settle=1; csv=$src/results/bench/setup-speed.csv
while [ $# -gt 0 ]; do
	case "$1" in
		--reps) reps=$2; shift ;;
		--big) big=$2; shift ;;
		--settle) settle=$2; shift ;;
		--csv) csv=$2; shift ;;
		*) bench_usage 23 "$1" ;;
	esac
	shift
done
bench_need 1 root
mkdir -p "$(dirname "$csv")"
P=ss$$; export GRIDBED_PREFIX=${P:0:8}
tmp=$(mktemp -d)
cleanup() { "$GRIDEMU" down >/dev/null 2>&1; sh "$tmp/down.sh" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT

ms() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
topo=$src/topologies/teragrid.yaml

noneteem=""
unshare --net sh -c 'ip link set lo up && tc qdisc add dev lo root netem delay 1ms' 2>/dev/null || noneteem=--no-netem
"$GRIDEMU" script "$topo" $noneteem > "$tmp/up.sh"
"$GRIDEMU" script "$topo" --down > "$tmp/down.sh"
# The script's namespaces use the prefix P too; run it under another one.
sed -i "s/ $GRIDBED_PREFIX-/ ${GRIDBED_PREFIX}s-/g" "$tmp/up.sh" "$tmp/down.sh"

load0=$(cut -d' ' -f1 /proc/loadavg)
# a calibration for the reps' ups to reuse
"$GRIDEMU" up "$topo" >/dev/null || exit 1; "$GRIDEMU" down >/dev/null || exit 1
reused=0
for i in $(seq "$reps"); do
	sleep "$settle"
	t0=$(ms); "$GRIDEMU" up "$topo" > "$tmp/up.out" || exit 1; t1=$(ms)
	grep -q ', reused)$' "$tmp/up.out" && reused=$((reused + 1))
	"$GRIDEMU" down >/dev/null || exit 1; t2=$(ms)
	echo $(( (t1 - t0) / 1000 )) >> "$tmp/gu"; echo $(( (t2 - t1) / 1000 )) >> "$tmp/gd"
	sleep "$settle"
	t0=$(ms); sh "$tmp/up.sh" >/dev/null 2>&1 || { echo "the script failed" >&2; exit 1; }; t1=$(ms)
	sh "$tmp/down.sh" >/dev/null 2>&1; t2=$(ms)
	echo $(( (t1 - t0) / 1000 )) >> "$tmp/su"; echo $(( (t2 - t1) / 1000 )) >> "$tmp/sd"
	sleep "$settle"
	t0=$(ms); "$GRIDEMU" up "$topo" --recalibrate >/dev/null || exit 1; t1=$(ms)
	"$GRIDEMU" down >/dev/null || exit 1
	echo $(( (t1 - t0) / 1000 )) >> "$tmp/gf"
done
gu=$(median < "$tmp/gu"); gd=$(median < "$tmp/gd"); su=$(median < "$tmp/su"); sd=$(median < "$tmp/sd")
gf=$(median < "$tmp/gf")
cmds=$(grep -c -E '^(ip|tc) ' "$tmp/up.sh")
backend=$("$GRIDEMU" up "$topo" | sed -n 's/.*backend \([a-z]*\),.*/\1/p'); "$GRIDEMU" down >/dev/null

echo "what,grid,hosts,gridemu_ms,script_ms,ratio" > "$csv"
printf "%-14s %-10s %6s %12s %12s %8s\n" what grid hosts "gridemu(ms)" "script(ms)" ratio
for w in up up-recalibrate down; do
	case $w in up) g=$gu; s=$su ;; up-recalibrate) g=$gf; s=$su ;; down) g=$gd; s=$sd ;; esac
	r=$(awk -v s="$s" -v g="$g" 'BEGIN {printf "%.1f", s / g}')
	printf "%-14s %-10s %6s %12.1f %12.1f %7sx\n" $w teragrid 64 "$(awk -v x="$g" 'BEGIN {print x / 1000}')" \
		"$(awk -v x="$s" 'BEGIN {print x / 1000}')" "$r"
	echo "$w,teragrid,64,$(awk -v x="$g" 'BEGIN {print x / 1000}'),$(awk -v x="$s" 'BEGIN {print x / 1000}'),$r" >> "$csv"
done
echo "(gridemu backend $backend; the script: $cmds ip/tc processes${noneteem:+, rate only because this kernel has no sch_netem}; median of $reps, each up $settle s after the down before it; $reused of $reps ups reused the calibration; load average $load0 at the start, $(cut -d' ' -f1 /proc/loadavg) at the end)"

if [ "$big" -gt 0 ] && [ -x "$src/topologies/gen-big.sh" ]; then
	"$src/topologies/gen-big.sh" "$big" > "$tmp/big.yaml"
	t0=$(ms); out=$("$GRIDEMU" up "$tmp/big.yaml" 2>&1) || { echo "big up failed: $out" >&2; exit 1; }; t1=$(ms)
	"$GRIDEMU" down >/dev/null; t2=$(ms)
	bu=$(awk -v x=$(( (t1 - t0) / 1000 )) 'BEGIN {printf "%.1f", x / 1000}')
	bd=$(awk -v x=$(( (t2 - t1) / 1000 )) 'BEGIN {printf "%.1f", x / 1000}')
	printf "%-14s %-10s %6s %12s\n%-14s %-10s %6s %12s\n" up gen-big "$big" "$bu" down gen-big "$big" "$bd"
	echo "up,gen-big,$big,$bu,," >> "$csv"
	echo "down,gen-big,$big,$bd,," >> "$csv"
	echo "($out)"
fi
echo "csv: $csv"
