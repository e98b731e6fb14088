#!/usr/bin/env bash
# tapd-lateness.sh - how faithful and how fast gridemu-tapd is (a benchmark,
# not a test: it prints figures and asserts nothing).
#
#   emulator/bench/tapd-lateness.sh [path/to/gridemu-tapd]
#
# 1. Lateness: 1000 pings (every 2 ms) across one tap link with 1 ms of delay
#    each way, so 2000 deadlines; the daemon's own `stats` give how late each
#    packet was written (p50, p99, max, count over 100 us), and ping's RTT
#    is the end-to-end witness.  Three conditions: idle, one busy loop (the
#    other core busy), one busy loop per core; then idle and one core busy
#    again with --spin-us 0 --no-rt, i.e. plain timer sleeps, to show what
#    the spin and SCHED_FIFO buy.
# 2. Goodput: TCP with iperf3 (SECS seconds, default 10) through one tap
#    link with no delay and no rate limit, against a bare veth pair, in the
#    same run, plus the tap link with offloads turned off (--no-offload) to
#    show what the vnet header and TSO buy.  ROUNDS (default 1) alternates
#    the three that many times and reports the median of each.
#
# Needs root, iproute2, ping, iperf3 and perl.  Leaves nothing behind.
set -u
here=$(cd "$(dirname "$0")" && pwd)
TAPD=${1:-${TAPD:-$here/../../build/emulator/gridemu-tapd}}
SECS=${SECS:-10}
ROUNDS=${ROUNDS:-1}
P=tb$(printf '%04x' $(( ($$ ^ RANDOM) & 0xffff )))
TMP=$(mktemp -d /tmp/tapd-bench.XXXXXX)
daemon=
busy=()

die() { echo "tapd-lateness: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
[ -x "$TAPD" ] || die "no gridemu-tapd at '$TAPD' (build it, or pass its path)"
for c in ip ping iperf3 perl; do
	command -v $c >/dev/null || die "$c is not installed"
done

cleanup() {
	local pid
	[ -n "$daemon" ] && kill "$daemon" 2>/dev/null
	for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null; done
	wait 2>/dev/null
	for ns in $(ip netns list | awk '{print $1}' | grep "^$P-"); do ip netns del "$ns"; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for ns in a b c d; do
	ip netns add "$P-$ns" || die "cannot create netns $P-$ns"
	ip netns exec "$P-$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	ip -n "$P-$ns" link set lo up
done
ip link add v0 netns "$P-c" type veth peer name v1 netns "$P-d"
ip -n "$P-c" addr add 10.232.0.1/30 dev v0
ip -n "$P-d" addr add 10.232.0.2/30 dev v1
ip -n "$P-c" link set v0 up
ip -n "$P-d" link set v1 up

# start_tapd DELAY_NS [ARGS...]: one link a<->b, configured like gridemu would.
start_tapd() {
	local delay=$1 fifo=$TMP/ready rfd ch
	shift
	cat >"$TMP/cfg.json" <<EOF
{ "seed": 1, "links": [ { "id": 0, "name": "bench",
    "a": {"netns": "/run/netns/$P-a", "ifname": "t0"},
    "b": {"netns": "/run/netns/$P-b", "ifname": "t0"},
    "ab": {"delay_ns": $delay, "limit": 10000},
    "ba": {"delay_ns": $delay, "limit": 10000} } ] }
EOF
	rm -f "$fifo"; mkfifo "$fifo"
	exec {rfd}<>"$fifo"
	setsid "$TAPD" --config "$TMP/cfg.json" --ready-fd 3 --control "$TMP/ctl" \
		--log "$TMP/log" "$@" 3>"$fifo" </dev/null &
	daemon=$!
	read -r -t 10 -N 1 ch <&"$rfd" || ch=
	exec {rfd}<&-
	[ "$ch" = R ] || die "daemon did not start: $(cat "$TMP/log")"
	ip -n "$P-a" addr add 10.231.0.1/30 dev t0
	ip -n "$P-b" addr add 10.231.0.2/30 dev t0
	ip -n "$P-a" link set t0 up
	ip -n "$P-b" link set t0 up
}
stop_tapd() { kill "$daemon"; wait "$daemon" 2>/dev/null; daemon=; }

# json PATH: a value from the JSON on stdin, by dotted path.
json() {
	perl -MJSON::PP -e 'my $v = decode_json(join "", <STDIN>);
		for my $k (split /\./, $ARGV[0]) { $v = ref $v eq "ARRAY" ? $v->[$k] : $v->{$k} }
		print defined $v ? $v : "?"' "$1"
}
us() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1000 }'; }

lateness() { # lateness LABEL NBUSY [DAEMON ARGS...]
	local label=$1 nbusy=$2 i s rtt
	shift 2
	for ((i = 0; i < nbusy; i++)); do
		sh -c 'while :; do :; done' &
		busy+=($!)
	done
	start_tapd 1000000 "$@"
	rtt=$(ip netns exec "$P-a" ping -n -q -c 1000 -i 0.002 10.231.0.2 | sed -n 's/^rtt [^=]*= //p')
	s=$("$TAPD" --control "$TMP/ctl" --send stats)
	stop_tapd
	for i in "${busy[@]}"; do kill "$i"; wait "$i" 2>/dev/null; done
	busy=()
	printf '  %-24s p50 %7s  p99 %7s  max %8s us   late(>100us) %s/%s   sched %s  margin %s us   ping rtt min/avg/max/mdev %s\n' \
		"$label" \
		"$(us "$(json total.lateness_ns.p50 <<<"$s")")" \
		"$(us "$(json total.lateness_ns.p99 <<<"$s")")" \
		"$(us "$(json total.lateness_ns.max <<<"$s")")" \
		"$(json total.late <<<"$s")" "$(json total.tx_packets <<<"$s")" \
		"$(json workers.0.sched <<<"$s")" "$(us "$(json workers.0.spin_margin_ns <<<"$s")")" \
		"$rtt"
}

iperf() { # iperf SERVER_NS CLIENT_NS ADDR -> Gbit/s
	local srv
	ip netns exec "$1" iperf3 -s -1 >/dev/null 2>&1 &
	srv=$!
	sleep 0.3
	ip netns exec "$2" iperf3 -c "$3" -t "$SECS" -J 2>/dev/null |
		json end.sum_received.bits_per_second |
		awk '{ printf "%.2f", $1 / 1e9 }'
	wait "$srv" 2>/dev/null
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "gridemu-tapd benchmark on $(uname -r), $(nproc) cores, $(date -u +%FT%TZ)"
echo "Lateness of 2000 deadlines (1000 pings, 1 ms each way) from the daemon's stats:"
lateness idle 0
lateness "1 core busy" 1
lateness "2 cores busy" "$(nproc)"
echo "The same without the spin and SCHED_FIFO (plain timer sleeps, for comparison):"
lateness "idle, timer only" 0 --spin-us 0 --no-rt
lateness "1 core busy, timer only" 1 --spin-us 0 --no-rt

echo "TCP goodput, iperf3 ${SECS} s, no delay, no rate limit ($ROUNDS round(s)):"
veth=() tap=() tapnoo=()
for ((r = 0; r < ROUNDS; r++)); do
	veth+=("$(iperf "$P-d" "$P-c" 10.232.0.2)")
	start_tapd 0
	tap+=("$(iperf "$P-b" "$P-a" 10.231.0.2)")
	stop_tapd
	start_tapd 0 --no-offload
	tapnoo+=("$(iperf "$P-b" "$P-a" 10.231.0.2)")
	stop_tapd
done
v=$(median <<<"${veth[*]}") t=$(median <<<"${tap[*]}") n=$(median <<<"${tapnoo[*]}")
printf '  %-22s %6s Gbit/s   (runs: %s)\n' "veth pair" "$v" "${veth[*]}"
printf '  %-22s %6s Gbit/s   (runs: %s)  ratio to veth %s\n' "tap link" "$t" "${tap[*]}" \
	"$(awk -v a="$t" -v b="$v" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
printf '  %-22s %6s Gbit/s   (runs: %s)  ratio to veth %s\n' "tap link, no offload" "$n" \
	"${tapnoo[*]}" "$(awk -v a="$n" -v b="$v" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
