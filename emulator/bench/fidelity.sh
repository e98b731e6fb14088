#!/usr/bin/env bash
# fidelity.sh - how faithfully a shaped path delivers its configured delay,
# rate and loss, measured with independent witnesses (ping, iperf3).
#
#   emulator/bench/fidelity.sh [--backend tap|netem|auto] [--quick] [--csv FILE]
#                              [--delays "1 10 50 100"] [--rates "1 10 45 100 1000"]
#                              [--tcp-seconds N]   (default 10, the first N/5 omitted)
#                              [--tcp "KEYS"]      the hosts' TCP stack, e.g.
#                                  "congestion: reno, slow_start_after_idle: false"
#                                  (docs/topology-format.md; default: the topology's)
#   emulator/bench/fidelity.sh --uml [...]   run it inside user-mode Linux (netem backend)
#
# For each one-way delay D (ms) and rate R (Mbit/s) it brings up a grid of
# one cluster with two hosts whose host links each carry D/2 and R, so the
# host-to-host path has one-way delay D and bottleneck R, then measures:
#   - RTT median and p99 of 50 pings against 2D; target |median - 2D| <= max(2 %, 0.3 ms)
#   - TCP goodput (iperf3, one flow, first 2 s omitted) against R, over the run and in
#     steady state (mean of the 1-s intervals of the second half); target 93 % .. 101 % (steady)
#   - UDP goodput (iperf3 at 1.2 R) against R
# and, once per delay at R = 10 Mbit/s, the loss of 10000 UDP datagrams over a
# path with 1 % loss (0.5 % per link) against 1 % (1 - 0.995^2 = 0.9975 %).
# It prints a table and writes CSV, each row with the root namespace's own
# congestion control and the stack the hosts ran (read back by gridemu
# status): the hosts' stack comes from the topology, never from the machine.
# It is a benchmark: it asserts nothing.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${GRIDBED_BUILD:-$src/build}
GRIDEMU=${GRIDEMU:-$build/emulator/gridemu}
me=fidelity.sh
. "$src/util/bench/lib-bench.sh"
backend=auto; quick=0; csv=""; uml=0; tcp_override=""; stack=""
delays="1 10 50 100"; rates="1 10 45 100 1000"
while [ $# -gt 0 ]; do
	case "$1" in
		--backend) backend=$2; shift ;;
		--quick) quick=1 ;;
		--csv) csv=$2; shift ;;
		--delays) delays=$2; shift ;;
		--rates) rates=$2; shift ;;
		--uml) uml=1 ;;
		--tcp-seconds) tcp_override=$2; shift ;;
		--tcp) stack=$2; shift ;;
		*) bench_usage 26 "$1" ;;
	esac
	shift
done
bench_need 1 root iperf3 ping
[ -z "$csv" ] && csv=$src/results/bench/fidelity-$([ $uml = 1 ] && echo netem-uml || echo "$backend").csv
mkdir -p "$(dirname "$csv")"

if [ $uml = 1 ]; then
	tmp=$(mktemp -d /tmp/gb-fid.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
	cat > "$tmp/init" <<INIT
#!/bin/bash
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t tmpfs tmpfs /run
ln -sf /proc/self/fd /dev/fd
M=/usr/lib/uml/modules/\$(uname -r)/kernel
for m in drivers/net/veth.ko net/sched/sch_netem.ko net/sched/sch_tbf.ko; do insmod \$M/\$m; done
GRIDEMU=$GRIDEMU bash $here/$(basename "$0") --backend netem --csv $csv --delays "$delays" --rates "$rates" $([ $quick = 1 ] && echo --quick) $([ -n "$stack" ] && printf -- '--tcp %q' "$stack") > $tmp/out 2>&1
poweroff -f
INIT
	chmod +x "$tmp/init"
	linux.uml mem=2048M root=/dev/root rootfstype=hostfs rootflags=/ rw init="$tmp/init" \
		con=null con0=fd:0,fd:1 </dev/null >"$tmp/console" 2>&1
	echo "(measured inside user-mode Linux $(linux.uml --version 2>/dev/null | head -1), 1 virtual CPU)"
	cat "$tmp/out"
	exit 0
fi

GRIDBED_PREFIX=fid$$; export GRIDBED_PREFIX=${GRIDBED_PREFIX:0:8}
topo=$(mktemp /tmp/gb-fid-topo.XXXXXX.yaml)
tmpj=$(mktemp /tmp/gb-fid-iperf.XXXXXX.json)
cleanup() { "$GRIDEMU" down >/dev/null 2>&1; rm -f "$topo" "$tmpj"; }
trap cleanup EXIT

tcp_s=10; udp_s=5; omit=2; pings=50; lossn=10000
[ $quick = 1 ] && { tcp_s=4; udp_s=2; omit=1; pings=20; lossn=2000; }
[ -n "$tcp_override" ] && { tcp_s=$tcp_override; omit=$(( tcp_override / 5 )); }

mktopo() { # D_ms R_mbit LOSS_pct_per_link
	local half; half=$(awk -v d="$1" 'BEGIN {printf "%.6gms", d / 2}')
	cat > "$topo" <<Y
name: fidelity
sites:
  - name: s
    clusters:
      - name: c
        hosts: 2
        host_link: {delay: $half, rate: ${2}mbit, loss: ${3}%}
Y
	[ -n "$stack" ] && echo "tcp: {$stack}" >>"$topo"
	return 0
}
root_cc=$(cat /proc/sys/net/ipv4/tcp_congestion_control)
echo "root namespace: tcp_congestion_control $root_cc, tcp_slow_start_after_idle $(cat /proc/sys/net/ipv4/tcp_slow_start_after_idle) (the hosts do not inherit them)"
addr() { "$GRIDEMU" status | awk -v h="$1" '$1 == h {print $5}'; }
in_ns() { local h=$1; shift; ip netns exec "$GRIDBED_PREFIX-$h" "$@"; }

echo "backend,delay_ms,rate_mbit,rtt_conf_ms,rtt_p50_ms,rtt_p99_ms,rtt_err_ms,rtt_ok,tcp_mbit,tcp_ratio,tcp_steady_mbit,tcp_steady_ratio,tcp_ok,udp_mbit,udp_ratio,root_cc,hosts_tcp" > "$csv"
printf "%-7s %6s %6s | %8s %8s %8s %7s %-4s | %9s %6s %9s %6s %-4s | %9s %6s\n" backend "D(ms)" "R(Mb)" \
	"rtt-conf" "rtt-p50" "rtt-p99" "err" ok "tcp(Mb)" ratio "steady" ratio ok "udp(Mb)" ratio
printed_tcp=
for d in $delays; do
	for r in $rates; do
		mktopo "$d" "$r" 0
		out=$("$GRIDEMU" up "$topo" --backend "$backend" 2>&1) || { echo "up failed: $out" >&2; exit 1; }
		be=$(echo "$out" | sed -n 's/.*backend \([a-z]*\),.*/\1/p')
		hosts_tcp=$("$GRIDEMU" status | sed -n 's/^tcp: \(.*\) (every host)$/\1/p')
		[ -n "$printed_tcp" ] || { echo "hosts: ${hosts_tcp:-?}"; printed_tcp=1; }
		a2=$(addr c-2)
		# RTT: small pings, spaced so they do not queue behind each other.
		mapfile -t rtts < <(in_ns c-1 ping -c "$pings" -i 0.02 -s 56 "$a2" |
			sed -n 's/.*time=\([0-9.]*\) ms/\1/p' | sort -n)
		n=${#rtts[@]}
		p50=${rtts[$(( (n - 1) / 2 ))]:-nan}; p99=${rtts[$(( (n - 1) * 99 / 100 ))]:-nan}
		in_ns c-2 iperf3 -s -1 -D -p 5201 >/dev/null 2>&1
		sleep 0.2
		in_ns c-1 iperf3 -c "$a2" -p 5201 -t "$tcp_s" -O "$omit" -J > "$tmpj" 2>/dev/null
		tcp=$(awk -F':[ \t]*' '/"sum_received"/ {f=1} f && /"bits_per_second"/ {gsub(/[ \t,]/, "", $2); print $2 / 1e6; exit}' "$tmpj")
		# Steady state: the mean of the 1-second intervals of the second
		# half.  At a 200 ms RTT CUBIC needs many seconds to grow its
		# window after slow start; that is TCP, not the link.
		tcps=$(awk -F':[ \t]*' '/"intervals"/ {iv = 1} iv && /^\t"end":/ {iv = 0}
			iv && /"sum":/ {s = 1} s && /"bits_per_second"/ {gsub(/[ \t,]/, "", $2); v[++n] = $2; s = 0}
			END { m = 0; t = 0; for (i = int(n / 2) + 1; i <= n; i++) { t += v[i]; m++ }
			      print (m ? t / m / 1e6 : 0) }' "$tmpj")
		in_ns c-2 iperf3 -s -1 -D -p 5202 >/dev/null 2>&1
		sleep 0.2
		udp=$(in_ns c-1 iperf3 -u -c "$a2" -p 5202 -b "$(awk -v r="$r" 'BEGIN {print r * 1.2}')M" \
			-l 1400 -t "$udp_s" -J 2>/dev/null |
			awk -F':[ \t]*' '/"sum"/ {f=1} f && /"bits_per_second"/ {gsub(/[ \t,]/, "", $2); v=$2} f && /"lost_percent"/ {gsub(/[ \t,]/, "", $2); l=$2} END {print v * (1 - l / 100) / 1e6}')
		"$GRIDEMU" down >/dev/null 2>&1
		conf=$(awk -v d="$d" 'BEGIN {print 2 * d}')
		row=$(awk -v be="$be" -v d="$d" -v r="$r" -v c="$conf" -v p="$p50" -v q="$p99" -v t="${tcp:-0}" -v ts="${tcps:-0}" -v u="${udp:-0}" 'BEGIN {
			err = p - c; tol = (0.02 * c > 0.3) ? 0.02 * c : 0.3
			rok = (err <= tol && err >= -tol) ? "yes" : "NO"
			tr = t / r; sr = ts / r; tok = (sr >= 0.93 && sr <= 1.01) ? "yes" : "NO"
			printf "%s,%s,%s,%.3f,%.3f,%.3f,%.3f,%s,%.2f,%.3f,%.2f,%.3f,%s,%.2f,%.3f", be, d, r, c, p, q, err, rok, t, tr, ts, sr, tok, u, u / r }')
		echo "$row,$root_cc,\"$hosts_tcp\"" >> "$csv"
		echo "$row" | awk -F, '{printf "%-7s %6s %6s | %8.3f %8.3f %8.3f %+7.3f %-4s | %9.2f %5.1f%% %9.2f %5.1f%% %-4s | %9.2f %5.1f%%\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 * 100, $11, $12 * 100, $13, $14, $15 * 100}'
	done
	# Loss: 1 % on the path, 10000 datagrams (2000 with --quick) at 4 Mbit/s.
	mktopo "$d" 10 0.5
	"$GRIDEMU" up "$topo" --backend "$backend" >/dev/null 2>&1 || exit 1
	a2=$(addr c-2)
	in_ns c-2 iperf3 -s -1 -D -p 5203 >/dev/null 2>&1
	sleep 0.2
	loss=$(in_ns c-1 iperf3 -u -c "$a2" -p 5203 -b 4M -l 500 -k "$lossn" -J 2>/dev/null |
		awk -F':[ \t]*' '/"sum"/ {f=1} f && /"lost_percent"/ {gsub(/[ \t,]/, "", $2); print $2; exit}')
	"$GRIDEMU" down >/dev/null 2>&1
	echo "loss   D=${d}ms: ${loss:-?} % of $lossn datagrams lost (configured 0.9975 %)"
	echo "loss,$d,10,,,,,,,,,,,,${loss:-}" >> "$csv"
done
echo "csv: $csv"
