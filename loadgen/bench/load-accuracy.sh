#!/usr/bin/env bash
# load-accuracy.sh - how much bandwidth gridload's load leaves on a
# wide-area path, against what it should leave.
#
# On teragrid, the load runs from c2-1 to c3-1 (SDSC -> LA -> CHI -> NCSA,
# bottleneck LA-CHI, 30 Mbit/s).  For fractions 0.5, 0.7 and 0.9, in both
# modes (traffic: a CBR UDP flow at f x 30 Mbit/s; shape: LA-CHI's LA>CHI
# rate set to (1 - f) x 30 Mbit/s), an independent iperf3 TCP flow from c2-2
# to c3-2 measures the bandwidth left, compared with (1 - f) x capacity.
# A run without load gives the reference (what one TCP flow gets from the
# unloaded path).  Prints a table and writes a CSV (atomically).
#
# usage: load-accuracy.sh [--out FILE.csv] [--seconds S] [--build DIR] [--backend B]
# Needs root, iperf3 and a built tree (default: build/).
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$src/build
out=load-accuracy.csv
secs=10
backend=auto
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--seconds) secs=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--backend) backend=$2; shift 2 ;;
	-h|--help) sed -n '2,16p' "$0"; exit 0 ;;
	*) echo "load-accuracy.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
GRIDEMU=$build/emulator/gridemu
GRIDLOAD=$build/loadgen/gridload
for x in "$GRIDEMU" "$GRIDLOAD"; do
	[ -x "$x" ] || { echo "load-accuracy.sh: '$x' is not built" >&2; exit 2; }
done
command -v iperf3 >/dev/null || { echo "load-accuracy.sh: iperf3 is not installed" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "load-accuracy.sh: needs root" >&2; exit 2; }

export GRIDBED_PREFIX=la$(printf '%04x' $(( ($$ ^ RANDOM) & 0xffff )))
tmp=$(mktemp -d)
cleanup() {
	"$GRIDLOAD" restore >/dev/null 2>&1
	"$GRIDEMU" down >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$GRIDEMU" up "$src/topologies/teragrid.yaml" --backend "$backend" --quiet ||
	{ echo "load-accuracy.sh: cannot bring teragrid up" >&2; exit 1; }
backend=$("$GRIDEMU" status | awk -F'backend ' 'NR == 1 {split($2, a, ")"); print a[1]}')
addr() { "$GRIDEMU" status | awk -v h="$1" '$1 == h {print $5}'; }
dst=$(addr c3-2)
cap=$("$GRIDEMU" link show | awk '$1 == "LA-CHI" && $2 == "LA>CHI" {print $7}')

# iperf3 TCP c2-2 -> c3-2 for $secs s after a 2 s warm-up (slow start on a
# 60 ms RTT path); prints the receiver's Mbit/s.
tcp_left() {
	ip netns exec "$GRIDBED_PREFIX-c3-2" iperf3 -s -1 -B "$dst" -p 5201 >/dev/null 2>&1 &
	local srv=$! r=
	for _ in $(seq 50); do
		r=$(ip netns exec "$GRIDBED_PREFIX-c2-2" iperf3 -c "$dst" -p 5201 -t "$secs" -O 2 \
			-f m 2>/dev/null | awk '/receiver/ {print $(NF-2)}')
		[ -n "$r" ] && break
		sleep 0.1
	done
	wait "$srv" 2>/dev/null
	echo "${r:-0}"
}

rows=()
echo "load accuracy on teragrid ($backend backend): load c2-1>c3-1, probe iperf3 TCP c2-2>c3-2," \
	"${secs} s; bottleneck LA-CHI $cap"
base=$(tcp_left)
printf '%-8s %8s %10s %10s %10s %8s %12s %12s\n' mode fraction expected iperf3 err ratio \
	load-plan load-got
printf '%-8s %8s %10s %10.2f %10s %8s %12s %12s\n' none 0 - "$base" - - - -
rows+=("none,0,,$base,,,,")
for mode in traffic shape; do
	for f in 0.5 0.7 0.9; do
		log=$tmp/$mode-$f.csv
		"$GRIDLOAD" flow c2-1 c3-1 --mode "$mode" --fraction "$f" \
			--duration "$((secs + 5))s" --log "$log" --quiet &
		gl=$!
		sleep 1
		left=$(tcp_left)
		wait "$gl"
		IFS=, read -r _ _ _ _ _ _ _ _ _ _ capb plan got _ < <(tail -n 1 "$log")
		exp=$(awk -v c="$capb" -v f="$f" 'BEGIN {printf "%.3f", (1 - f) * c / 1e6}')
		read -r err ratio < <(awk -v l="$left" -v e="$exp" -v b="$base" -v c="$capb" \
			'BEGIN {printf "%+.1f%% %.3f\n", (l - e) / e * 100, l / (e * b / (c / 1e6))}')
		pm=$(awk -v x="$plan" 'BEGIN {printf "%.3f", x / 1e6}')
		gm=$(awk -v x="$got" 'BEGIN {printf "%.3f", x / 1e6}')
		printf '%-8s %8s %10s %10.2f %10s %8s %12s %12s\n' "$mode" "$f" "$exp" "$left" \
			"$err" "$ratio" "$pm" "$gm"
		rows+=("$mode,$f,$exp,$left,$err,$ratio,$pm,$gm")
	done
done
echo "expected = (1 - f) x capacity (Mbit/s); err = iperf3 vs expected;"
echo "ratio = iperf3 / (expected x unloaded-iperf3 / capacity), i.e. against what TCP reaches unloaded;"
echo "load-plan / load-got: traffic: the flow's planned and received Mbit/s;" \
	"shape: LA>CHI's target and read-back rate."
{
	echo "mode,fraction,expected_mbps,iperf3_mbps,error,ratio_vs_unloaded,load_planned_mbps,load_achieved_mbps"
	printf '%s\n' "${rows[@]}"
} >"$out.tmp" && mv "$out.tmp" "$out"
echo "wrote $out"
