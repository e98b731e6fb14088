#!/usr/bin/env bash
# tcp-sndbuf.sh - how long a sender is held by one eager-sized message across
# the wide area, on a connection that has carried only small messages
# against one that has carried a large one (issue 13).  Open MPI's TCP
# transport sends a message up to its eager limit (64 KiB) without a
# rendezvous, and the send returns once the socket has taken every byte.
# The kernel sizes a connection's send buffer from its congestion window
# (tcp_sndbuf_expand()) and never shrinks it back, so whether the socket
# takes a 52 KiB message at once, or holds the sender until the receiver's
# acknowledgements free room, a round trip later, depends on what the
# connection carried before: a broadcast whose tree keeps its wide-area
# edges finds them grown; one whose edges move finds new ones.  This
# measures the transport alone, without MPI.  A benchmark: it prints
# figures and writes CSV, and asserts nothing.  Run it on a quiet box.
#
#   emulator/bench/tcp-sndbuf.sh [--topology FILE] [--from HOST] [--to HOST]
#       [--sizes LIST] [--reps N] [--gap S] [--dilate K] [--tcp "KEYS"]
#       [--csv FILE]
#
# Defaults: topologies/teragrid.yaml, from c2-1 (SDSC, the campaigns' root)
# to c8-2 (PSC); sizes 16K,32K,40K,44K,48K,52K,60K,64K; 3 repetitions; gap
# 0.3 s; k = 10 (the quick campaign's).  Times are the topology's (the
# wire's / k).
#
# Each case opens a new connection, sends HISTORY bytes on it (100 B: a
# connection that only ever carried small messages, like one a campaign's
# warm-up opened; 1 MiB: one that carried a large broadcast), lets it idle
# for the gap (past the retransmission timeout, so the window restarts as
# after the application's gaps, RFC 2861), then times one blocking write of
# SIZE bytes: until the socket has taken the last byte.  SO_SNDBUF is read
# just before it.  --tcp "KEYS" gives the hosts' TCP stack over the
# topology's (e.g. "initcwnd: 3", docs/topology-format.md).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${GRIDBED_BUILD:-$src/build}
GRIDEMU=${GRIDEMU:-$build/emulator/gridemu}
me=tcp-sndbuf.sh
. "$here/lib-tcpbench.sh"
topofile=$src/topologies/teragrid.yaml
from=c2-1; to=c8-2; sizes=16K,32K,40K,44K,48K,52K,60K,64K; reps=3; gap=0.3; dilate=10
stack=""; csv=""
while [ $# -gt 0 ]; do
	case "$1" in
		--sizes) sizes=$2; shift ;;
		--gap) gap=$2; shift ;;
		*) tb_opt "$@"; shift ;;
	esac
	shift
done
case "$reps" in ''|*[!0-9]*) echo "tcp-sndbuf.sh: --reps takes an integer" >&2; exit 2 ;; esac
bytes=""
for s in ${sizes//,/ }; do
	case "$s" in
		*[Kk]) n=${s%[Kk]}; m=1024 ;;
		*) n=$s; m=1 ;;
	esac
	case "$n" in ''|*[!0-9]*) echo "tcp-sndbuf.sh: --sizes: '$s' is not a size (bytes, or 52K)" >&2; exit 2 ;; esac
	bytes="$bytes${bytes:+,}$((n * m))"
done
python3 -c "import sys; g = float(sys.argv[1]); assert g > 0" "$gap" 2>/dev/null ||
	{ echo "tcp-sndbuf.sh: --gap takes positive seconds, got '$gap'" >&2; exit 2; }
tb_preflight
tb_init snd
tb_up "$topofile" "$dilate" "$stack"
read -r addr tcpline < <(python3 - "$tmp/st.json" "$from" "$to" <<'PY'
import json, sys
h = {x["name"]: x for x in json.load(open(sys.argv[1]))["hosts"]}
for n in sys.argv[2:]:
    if n not in h:
        sys.exit("no host '%s'" % n)
print(h[sys.argv[3]]["data"], json.dumps(h[sys.argv[3]]["tcp"], separators=(",", ":")))
PY
) || { echo "tcp-sndbuf.sh: --from/--to: a host the topology does not have" >&2; exit 2; }

cat > "$tmp/rx.py" <<'PY'
# receiver: read every connection to its end
from tb_serve import serve
def drain(c):
    while c.recv(1 << 20):
        pass
    c.close()
serve(drain, 16)
PY
cat > "$tmp/tx.py" <<'PY'
# sender: argv: addr port sizes(comma) reps gap k; prints rep history size sndbuf seconds
import socket, sys, time
addr, port, sizes, reps, gap, k = sys.argv[1], int(sys.argv[2]), \
    [int(x) for x in sys.argv[3].split(",")], int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
def conn():
    for _ in range(100):
        try:
            c = socket.create_connection((addr, port))
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return c
        except OSError:
            time.sleep(0.1)
    sys.exit("cannot connect to %s" % addr)
for r in range(reps):
    for i, size in enumerate(sizes):
        # alternate the order, so that neither history always comes first
        for history in ((100, 1 << 20) if (r + i) % 2 == 0 else (1 << 20, 100)):
            c = conn()
            c.sendall(bytes(history))
            time.sleep(gap * k)
            before = c.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
            t0 = time.monotonic()
            c.sendall(bytes(size))
            t1 = time.monotonic()
            c.close()
            print(r + 1, history, size, before, "%.6f" % ((t1 - t0) / k), flush=True)
PY

port=47310
tb_rx "$to" rx.py $port

load1=$(cut -d' ' -f1 /proc/loadavg)
echo "tcp-sndbuf: $(basename "$topofile") k=$dilate, $from -> $to, sizes $sizes, $reps reps, gap $gap s; load average $load1 at the start"
echo "hosts' TCP: $tcpline"
"$GRIDEMU" exec "$from" -- python3 -u "$tmp/tx.py" "$addr" $port "$bytes" "$reps" "$gap" "$dilate" \
	> "$tmp/tx.out" 2> "$tmp/tx.err" ||
	{ echo "tcp-sndbuf.sh: the sender failed: $(cat "$tmp/tx.err")" >&2; exit 1; }
{
	echo "topology,dilate,from,to,rep,history_bytes,size,sndbuf_before,write_s,load1,tcp"
	while read -r rep hist size sb s; do
		echo "$(basename "$topofile" .yaml),$dilate,$from,$to,$rep,$hist,$size,$sb,$s,$load1,\"${tcpline//\"/\"\"}\""
	done < "$tmp/tx.out"
} > "$csv"
python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("%-8s %-10s %3s %11s %12s %12s" % ("size", "history", "n", "sndbuf", "write_ms", "max_ms"))
for size in sorted({int(r["size"]) for r in rows}):
    for h in sorted({int(r["history_bytes"]) for r in rows}):
        v = [r for r in rows if int(r["size"]) == size and int(r["history_bytes"]) == h]
        w = [float(r["write_s"]) * 1e3 for r in v]
        print("%-8d %-10d %3d %11s %12.2f %12.2f" % (size, h, len(v),
              "/".join(sorted({r["sndbuf_before"] for r in v})), statistics.median(w), max(w)))
PY
echo "rows: $csv"
