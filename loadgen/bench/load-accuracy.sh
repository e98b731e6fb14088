#!/usr/bin/env bash
# load-accuracy.sh - how much bandwidth gridload's load leaves on a
# wide-area path, against what it should leave.
#
# Two loads on teragrid, each for fractions 0.5, 0.7 and 0.9 in both modes;
# an independent iperf3 TCP flow measures the bandwidth left, compared with
# (1 - f) x capacity.  A run without load gives each one's reference (what
# one TCP flow gets from the unloaded path).
#   path: a host pair, c2-1 > c3-1 (SDSC -> LA -> CHI -> NCSA, bottleneck
#         LA-CHI, 30 Mbit/s); traffic: a CBR UDP flow c2-1>c3-1 at f x 30;
#         shape: LA>CHI at (1 - f) x 30.  Probe c2-2 > c3-2.
#   link: c3's uplink, c3>NCSA (100 Mbit/s), the paper's "links to/from C3"
#         (issue 13); traffic: a CBR flow c3>NCSA (switch to router) at
#         f x 100; shape: c3>NCSA at (1 - f) x 100.  Probe c3-2 > c4-2.
# Prints a table and writes a CSV (atomically).
#
# usage: load-accuracy.sh [--out FILE.csv] [--seconds S] [--build DIR] [--backend B]
# Needs root, iperf3 and a built tree (default: build/).
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$src/build
me=load-accuracy.sh
. "$src/util/bench/lib-bench.sh"
out=load-accuracy.csv
secs=10
backend=auto
bench_parse 18 "out seconds=secs build backend" "$@"
GRIDEMU=$build/emulator/gridemu
GRIDLOAD=$build/loadgen/gridload
bench_built "$GRIDEMU" "$GRIDLOAD"
bench_need 2 iperf3 root

export GRIDBED_PREFIX=$(bench_prefix la)
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
rate_of() { "$GRIDEMU" link show | awk -v l="$1" -v d="$2" '$1 == l && $2 == d {print $7}'; }

# tcp_left FROM TO WARMUP: iperf3 TCP FROM -> TO for $secs s after WARMUP s
# (-O, slow start on a long RTT); prints the receiver's Mbit/s.
tcp_left() {
	local dst
	dst=$(addr "$2")
	ip netns exec "$GRIDBED_PREFIX-$2" iperf3 -s -1 -B "$dst" -p 5201 >/dev/null 2>&1 &
	local srv=$! r=
	for _ in $(seq 50); do
		r=$(ip netns exec "$GRIDBED_PREFIX-$1" iperf3 -c "$dst" -p 5201 -t "$secs" -O "$3" \
			-f m 2>/dev/null | awk '/receiver/ {print $(NF-2)}')
		[ -n "$r" ] && break
		sleep 0.1
	done
	wait "$srv" 2>/dev/null
	echo "${r:-0}"
}

# load KIND MODE F LOG: start the load of KIND (path or link) in the background
load() {
	if [ "$1" = path ]; then
		"$GRIDLOAD" flow c2-1 c3-1 --mode "$2" --fraction "$3" \
			--duration "$((secs + 5))s" --log "$4" --quiet &
	else
		printf 'loads:\n  - {start: 0s, duration: %ds, fraction: %s, link: c3-NCSA, dir: c3>NCSA}\n' \
			"$((secs + 5))" "$3" >"$tmp/link.yaml"
		"$GRIDLOAD" run --schedule "$tmp/link.yaml" --mode "$2" --log "$4" --quiet &
	fi
}

rows=()
echo "load accuracy on teragrid ($backend backend), iperf3 TCP ${secs} s;" \
	"path: load c2-1>c3-1, probe c2-2>c3-2, bottleneck LA-CHI $(rate_of LA-CHI 'LA>CHI');" \
	"link: load c3-NCSA c3>NCSA $(rate_of c3-NCSA 'c3>NCSA'), probe c3-2>c4-2"
printf '%-5s %-8s %8s %10s %10s %10s %8s %12s %12s\n' load mode fraction expected iperf3 err \
	ratio load-plan load-got
for kind in path link; do
	case $kind in
	path) from=c2-2 to=c3-2 warm=2 ;;
	link) from=c3-2 to=c4-2 warm=1 ;;
	esac
	base=$(tcp_left "$from" "$to" "$warm")
	printf '%-5s %-8s %8s %10s %10.2f %10s %8s %12s %12s\n' "$kind" none 0 - "$base" - - - -
	rows+=("$kind,none,0,,$base,,,,")
	for mode in traffic shape; do
		for f in 0.5 0.7 0.9; do
			log=$tmp/$kind-$mode-$f.csv
			load "$kind" "$mode" "$f" "$log"
			gl=$!
			sleep 1
			left=$(tcp_left "$from" "$to" "$warm")
			wait "$gl"
			IFS=, read -r _ _ _ _ _ _ _ _ _ _ capb plan got _ < <(tail -n 1 "$log")
			exp=$(awk -v c="$capb" -v f="$f" 'BEGIN {printf "%.3f", (1 - f) * c / 1e6}')
			read -r err ratio < <(awk -v l="$left" -v e="$exp" -v b="$base" -v c="$capb" \
				'BEGIN {printf "%+.1f%% %.3f\n", (l - e) / e * 100, l / (e * b / (c / 1e6))}')
			pm=$(awk -v x="$plan" 'BEGIN {printf "%.3f", x / 1e6}')
			gm=$(awk -v x="$got" 'BEGIN {printf "%.3f", x / 1e6}')
			printf '%-5s %-8s %8s %10s %10.2f %10s %8s %12s %12s\n' "$kind" "$mode" "$f" \
				"$exp" "$left" "$err" "$ratio" "$pm" "$gm"
			rows+=("$kind,$mode,$f,$exp,$left,$err,$ratio,$pm,$gm")
		done
	done
done
echo "expected = (1 - f) x capacity (Mbit/s); err = iperf3 vs expected;"
echo "ratio = iperf3 / (expected x unloaded-iperf3 / capacity), i.e. against what TCP reaches unloaded;"
echo "load-plan / load-got: traffic: the flow's planned and received Mbit/s;" \
	"shape: the shaped direction's target and read-back rate."
{
	echo "load,mode,fraction,expected_mbps,iperf3_mbps,error,ratio_vs_unloaded,load_planned_mbps,load_achieved_mbps"
	printf '%s\n' "${rows[@]}"
} >"$out.tmp" && mv "$out.tmp" "$out"
echo "wrote $out"
