#!/usr/bin/env bash
# rto-dilation.sh - benchmark, not a test: does a lossy TCP transfer take
# as long, in the topology's time, on a dilated grid as on an undilated one?
# TCP's retransmission timeout has a floor of 200 ms of the machine's clock
# (the kernel's TCP_RTO_MIN); a grid at k stretches round trips, not that
# floor, unless the hosts' routes carry rto_min 200 ms x k (hosttcp.c).
#
# For each gridemu in --gridemu, each congestion control in --congestion
# and each k in --dilate, in turn, it brings topologies/two-clusters.yaml
# up (with `tcp: {congestion: CC}` when --congestion names one; CC
# "kernel-cubic" is cubic with `up --kernel-cubic`, the kernel's own cubic
# where a dilated grid would run gbcubic, emulator/grid/gbcubic.h), sets
# --loss on one direction of a link (--lossy "LINK DIR", default the one
# into a-2: data a-1 -> a-2 crosses it, the ACKs do not), opens one TCP
# connection a-1 -> --dst (default a-2; b-1 is across the 5 ms wide-area
# link, whose one-way delay --wan-delay sets) and times --count exchanges on it: --size bytes sent, a 1-byte
# reply.  It prints, per variant, the exchanges' time in the topology's
# time (the wall clock / k): median, mean, p90 and max, and the sender's
# retransmission timeouts and tail-loss probes over them (nstat).
#
# usage: rto-dilation.sh [--dilate "K ..."] [--loss P%] [--size BYTES]
#                        [--count N] [--gridemu "GRIDEMU ..."] [--dst HOST]
#                        [--lossy "LINK DIR"] [--congestion "CC ..."]
#                        [--wan-delay T]
# Defaults: k = "1 4", loss 5%, 262144 bytes, 40 exchanges, the build's
# gridemu, the topology's congestion control (cubic).  Needs root and
# python3.  Leaves nothing behind.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${GRIDBED_BUILD:-$src/build}
me=rto-dilation.sh
. "$src/util/bench/lib-bench.sh"
ks="1 4"; loss=5%; size=262144; count=40; gridemus=$build/emulator/gridemu
dst_host=a-2; lossy="a-2-a a>a-2"; ccs=-
wan_delay=
bench_parse "25 strip" "dilate=ks loss size count gridemu=gridemus dst=dst_host lossy congestion=ccs wan-delay=wan_delay" "$@"
# shellcheck disable=SC2086 # lists of words
bench_built $gridemus
bench_need 2 root python3 nstat

bench_grid rto
GRIDEMU=
cleanup() { [ -n "$GRIDEMU" ] && bench_grid_down; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# the receiver: reads SIZE bytes, answers one byte, COUNT times
cat >"$tmp/rx.py" <<'EOF'
import socket, sys
size, count = int(sys.argv[1]), int(sys.argv[2])
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 5301)); s.listen(1); open(sys.argv[3], "w").close()
c, _ = s.accept()
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
for _ in range(count):
    got = 0
    while got < size:
        b = c.recv(1 << 20)
        if not b:
            sys.exit(1)
        got += len(b)
    c.sendall(b"k")
EOF
# the sender: one connection, COUNT timed exchanges, one wall time a line
cat >"$tmp/tx.py" <<'EOF'
import socket, sys, time
dst, size, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
c = socket.create_connection((dst, 5301))
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
buf = b"x" * size
for _ in range(count):
    t = time.monotonic()
    c.sendall(buf)
    if c.recv(1) != b"k":
        sys.exit(1)
    print("%.6f" % (time.monotonic() - t))
EOF

echo "rto-dilation: two-clusters${wan_delay:+ (wide area $wan_delay)}, loss $loss on $lossy, $count exchanges of $size bytes a-1 -> $dst_host;" \
	"$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %4s %10s %10s %10s %10s %9s %6s %s\n' gridemu k "median ms" "mean ms" "p90 ms" \
	"max ms" timeouts probes "host's tcp"
for g in $gridemus; do
	for cc in $ccs; do
	topo=$src/topologies/two-clusters.yaml
	name=$cc
	[ "$cc" = kernel-cubic ] && name=cubic
	if [ "$name" != - ]; then
		topo=$tmp/two-clusters-$name.yaml
		sed "s/^sites:/tcp: {congestion: $name}\nsites:/" "$src/topologies/two-clusters.yaml" >"$topo"
	fi
	for k in $ks; do
		GRIDEMU=$g
		kflag=
		[ "$cc" = kernel-cubic ] && awk -v k="$k" 'BEGIN { exit !(k > 1) }' && kflag=--kernel-cubic
		# shellcheck disable=SC2086 # none or one flag
		"$GRIDEMU" up "$topo" --dilate "$k" $kflag --quiet ||
			{ echo "$me: cannot bring the grid up" >&2; exit 1; }
		# shellcheck disable=SC2086 # "LINK DIR"
		"$GRIDEMU" link set ${lossy%% *} dir "${lossy#* }" loss "$loss" >/dev/null ||
			{ echo "$me: cannot set the loss on $lossy" >&2; exit 1; }
		if [ -n "$wan_delay" ]; then
			"$GRIDEMU" link set siteA-siteB delay "$wan_delay" >/dev/null ||
				{ echo "$me: cannot set the wide-area delay to $wan_delay" >&2; exit 1; }
		fi
		dst=$("$GRIDEMU" status --json | python3 -c \
			'import json,sys; print([h["data"] for h in json.load(sys.stdin)["hosts"] if h["name"]==sys.argv[1]][0])' "$dst_host")
		rm -f "$tmp/ready"
		"$GRIDEMU" exec "$dst_host" -- python3 "$tmp/rx.py" "$size" "$count" "$tmp/ready" &
		rx=$!
		for _ in $(seq 50); do [ -e "$tmp/ready" ] && break; sleep 0.1; done
		"$GRIDEMU" exec a-1 -- nstat -n >/dev/null
		"$GRIDEMU" exec a-1 -- python3 "$tmp/tx.py" "$dst" "$size" "$count" >"$tmp/t.txt" ||
			{ echo "$me: the transfer failed" >&2; exit 1; }
		st=$("$GRIDEMU" exec a-1 -- nstat -z TcpExtTCPTimeouts TcpExtTCPLossProbes |
			awk '/TCPTimeouts/ {t = $2} /TCPLossProbes/ {p = $2} END {print t + 0, p + 0}')
		wait "$rx"
		stack=$("$GRIDEMU" status | sed -n 's/^tcp: //p')
		sort -g "$tmp/t.txt" | awk -v k="$k" -v g="$g" -v st="$st" -v stack="$stack" '
			{ v[NR] = $1 * 1000 / k; s += v[NR] }
			END {
				split(st, a, " ")
				n = NR; p90 = v[int(0.9 * (n - 1)) + 1]
				med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
				printf "%-34s %4g %10.2f %10.2f %10.2f %10.2f %9d %6d %s\n",
					substr(g, length(g) - 33), k, med, s / n, p90, v[n],
					a[1], a[2], stack
			}'
		"$GRIDEMU" down >/dev/null 2>&1
		GRIDEMU=        # down: nothing left for the exit trap
	done
	done
done
