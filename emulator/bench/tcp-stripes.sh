#!/usr/bin/env bash
# tcp-stripes.sh - one message across the wide area after an idle gap, over
# one TCP connection against two (issue 14).  Would a broadcast that sends
# alternate segments down two trees, so that a site takes the message over
# two wide-area connections, get past TCP's restart after idle on the first
# wide-area hop (docs/measurements.md, session 12)?  This measures the
# transport alone, without MPI.  A benchmark: it prints figures and writes
# CSV, and asserts nothing.  Run it on a quiet box.
#
#   emulator/bench/tcp-stripes.sh [--topology FILE] [--from HOST] [--to HOST,HOST]
#       [--size BYTES] [--reps N] [--gaps "S ..."] [--dilate K] [--tcp "KEYS"]
#       [--csv FILE]
#
# Defaults: topologies/teragrid.yaml, from c2-1 (SDSC) to c3-1,c3-2 (NCSA):
# the pipeline tree's first wide-area hop; 1 MiB (1048576); 8 repetitions;
# gaps "0.3 3" s; k = 10.  Gaps and times are the topology's (the wire's / k).
#
# The sender keeps one connection to each receiver for the whole run, and
# warms both up first (4 x SIZE each).  Each repetition, for each gap, runs
# both modes, in an order that alternates:
#   one   idle for the gap; SIZE bytes to the first receiver; timed until
#         its 1-byte reply
#   two   idle for the gap; SIZE/2 bytes to each receiver at once; timed
#         until both replies
# Both times include the reply's one-way delay.  The reference is the
# topology's lower bound for the first receiver (one-way delay + SIZE /
# path bottleneck, as gridbcast's; shortest-delay routes, as gridemu's),
# plus the reply's one-way delay; x_bound is a median over it.
# --tcp "KEYS" gives the hosts' TCP stack over the topology's (e.g.
# "slow_start_after_idle: false", docs/topology-format.md).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${GRIDBED_BUILD:-$src/build}
GRIDEMU=${GRIDEMU:-$build/emulator/gridemu}
me=tcp-stripes.sh
. "$here/lib-tcpbench.sh"
topofile=$src/topologies/teragrid.yaml
from=c2-1; to=c3-1,c3-2; size=1048576; reps=8; gaps="0.3 3"; dilate=10; stack=""; csv=""
while [ $# -gt 0 ]; do
	case "$1" in
		--size) size=$2; shift ;;
		--gaps) gaps=$2; shift ;;
		*) tb_opt "$@"; shift ;;
	esac
	shift
done
case "$size$reps" in *[!0-9]*) echo "tcp-stripes.sh: --size and --reps take integers" >&2; exit 2 ;; esac
IFS=, read -r to1 to2 <<<"$to"
[ -n "${to2:-}" ] || { echo "tcp-stripes.sh: --to takes two hosts, 'A,B'" >&2; exit 2; }
tb_preflight
tb_init str
tb_up "$topofile" "$dilate" "$stack"
read -r a1 a2 bound tcpline < <(python3 - "$tmp/st.json" "$from" "$to1" "$to2" "$size" <<'PY'
import heapq, json, sys
st = json.load(open(sys.argv[1]))
src, to1, to2, size = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
h = {x["name"]: x for x in st["hosts"]}
for n in (src, to1, to2):
    if n not in h:
        sys.exit("no host '%s'" % n)
# directed links u -> v: (delay s, rate bit/s); routes are shortest by
# (delay, hops), as topologies/topo_model.c routes them
adj = {}
for l in st["links"]:
    for u, v, d in ((l["a"], l["b"], l["ab"]), (l["b"], l["a"], l["ba"])):
        adj.setdefault(u, []).append((v, d["delay_ms"] / 1e3, d["rate_bps"] or float("inf")))
def path(a, b):
    best, heap = {a: (0.0, 0)}, [(0.0, 0, a, float("inf"))]
    while heap:
        dl, hops, u, rate = heapq.heappop(heap)
        if u == b:
            return dl, rate
        if (dl, hops) > best[u]:
            continue
        for v, d, r in adj.get(u, []):
            c = (dl + d, hops + 1)
            if v not in best or c < best[v]:
                best[v] = c
                heapq.heappush(heap, (c[0], c[1], v, min(rate, r)))
    sys.exit("no path from %s to %s" % (a, b))
there, rate = path(src, to1)
back, _ = path(to1, src)
# the reference: gridbcast's lower bound (one-way + size / bottleneck), and the reply's way back
print(h[to1]["data"], h[to2]["data"], "%.6f" % (there + size * 8 / rate + back),
      json.dumps(h[to1]["tcp"], separators=(",", ":")))
PY
) || { echo "tcp-stripes.sh: --from/--to: a host the topology does not have" >&2; exit 2; }

cat > "$tmp/rx.py" <<'PY'
# receiver: for each connection, read a 4-byte length and that many bytes, reply 1 byte
import socket, struct
from tb_serve import serve
def serve_one(c):
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buf = bytearray(1 << 20)
    while True:
        h = c.recv(4, socket.MSG_WAITALL)
        if len(h) < 4:
            return
        n = struct.unpack("!I", h)[0]
        while n > 0:
            k = c.recv_into(buf, min(n, len(buf)))
            if k <= 0:
                return
            n -= k
        c.sendall(b"k")
serve(serve_one, 4)
PY
cat > "$tmp/tx.py" <<'PY'
# sender: argv: addr1 addr2 port size reps gaps(comma) k
import socket, struct, sys, time, selectors
a1, a2, port, size, reps, gaps, k = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
    int(sys.argv[4]), int(sys.argv[5]), [float(g) for g in sys.argv[6].split(",")], float(sys.argv[7])
def conn(a):
    for _ in range(100):
        try:
            c = socket.create_connection((a, port))
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return c
        except OSError:
            time.sleep(0.1)
    sys.exit("cannot connect to %s" % a)
c1, c2 = conn(a1), conn(a2)
def send(parts):
    # parts: [(sock, nbytes)]; all at once, then every reply; wall seconds
    sel = selectors.DefaultSelector()
    t0 = time.monotonic()
    left = {}
    for c, n in parts:
        c.setblocking(False)
        left[c] = memoryview(struct.pack("!I", n) + bytes(n))
        sel.register(c, selectors.EVENT_WRITE)
    replies = 0
    while replies < len(parts):
        for key, ev in sel.select():
            c = key.fileobj
            if ev & selectors.EVENT_WRITE:
                try:
                    w = c.send(left[c])
                except BlockingIOError:
                    continue
                left[c] = left[c][w:]
                if not len(left[c]):
                    sel.modify(c, selectors.EVENT_READ)
            elif ev & selectors.EVENT_READ:
                if c.recv(1) != b"k":
                    sys.exit("a receiver went away")
                replies += 1
                sel.unregister(c)
    t1 = time.monotonic()
    for c, _ in parts:
        c.setblocking(True)
    return t1 - t0
for _ in range(4):
    send([(c1, size)]); send([(c2, size)])
for r in range(reps):
    for g in gaps:
        modes = ["one", "two"] if r % 2 == 0 else ["two", "one"]
        for m in modes:
            time.sleep(g * k)
            parts = [(c1, size)] if m == "one" else [(c1, size // 2), (c2, size - size // 2)]
            print(r + 1, g, m, "%.6f" % (send(parts) / k), flush=True)
PY

port=47300
tb_rx "$to1" rx.py $port
tb_rx "$to2" rx.py $port

load1=$(cut -d' ' -f1 /proc/loadavg)
echo "tcp-stripes: $(basename "$topofile") k=$dilate, $from -> $to1 (one) or $to1 + $to2 (two), $size B, $reps reps, gaps $gaps s; load average $load1 at the start"
echo "hosts' TCP: $tcpline"
echo "reference to $to1: one-way + size / bottleneck + the reply's one-way = $bound s"
gapc=$(echo $gaps | tr ' ' ',')
"$GRIDEMU" exec "$from" -- python3 -u "$tmp/tx.py" "$a1" "$a2" $port "$size" "$reps" "$gapc" "$dilate" \
	> "$tmp/tx.out" 2> "$tmp/tx.err" ||
	{ echo "tcp-stripes.sh: the sender failed: $(cat "$tmp/tx.err")" >&2; exit 1; }
{
	echo "topology,dilate,from,to1,to2,size,rep,gap_s,mode,seconds,reference_s,load1,tcp"
	while read -r rep gap mode s; do
		echo "$(basename "$topofile" .yaml),$dilate,$from,$to1,$to2,$size,$rep,$gap,$mode,$s,$bound,$load1,\"${tcpline//\"/\"\"}\""
	done < "$tmp/tx.out"
} > "$csv"
python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("%-8s %-5s %5s %10s %10s %10s %8s" % ("gap_s", "mode", "n", "median_s", "min_s", "max_s", "x_bound"))
for g in sorted({r["gap_s"] for r in rows}, key=float):
    for m in ("one", "two"):
        v = [float(r["seconds"]) for r in rows if r["gap_s"] == g and r["mode"] == m]
        x = statistics.median(v) / float(rows[0]["reference_s"])
        print("%-8s %-5s %5d %10.4f %10.4f %10.4f %8.2f" % (g, m, len(v), statistics.median(v), min(v), max(v), x))
PY
echo "rows: $csv"
