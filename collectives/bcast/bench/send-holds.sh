#!/usr/bin/env bash
# send-holds.sh - benchmark reading, not a test: how long did each eager
# send hold its sender, on connections that had carried a large message
# before and on connections that had not?  (issue 13, session 25: a new TCP
# connection's send buffer is 46080 B, 2 x an initial window of 10 segments
# of 2304 B, and grows only with the congestion window, so an eager send
# larger than that waits a round trip for acknowledgements;
# emulator/bench/tcp-sndbuf.sh measures it on the transport alone.)
#
#   collectives/bcast/bench/send-holds.sh RUNDIR... [--buffer 46080] [--eager 65536]
#                                         [--csv FILE]
#
# RUNDIR is a campaign run (results/<campaign>/<time>/runs/<id>/, or its
# kept copy under records/) with ranks.csv: every rank's parent and when
# the parent began sending to it (parent_send_after_root).  A sender's
# children are taken in the order it began sending to them; a send's hold
# is the next send's start minus its own (so a sender's last send has
# none).  Only sends of more than BUFFER and at most EAGER bytes count
# (Open MPI's TCP eager limit is 64 KiB: above it every send waits for
# its receiver).  A connection (sender host > receiver host) is "used"
# when an earlier broadcast of the same run sent more than BUFFER bytes
# over it, else "new".  Hosts' sites come from the campaign's copy of
# its topology (RUNDIR/../../topology.yaml, through `gridtree nodes`;
# GRIDBED_BUILD names the build, default ./build); "WAN" is a send
# between two sites.  Prints one table per run: count, median, min and
# max hold (ms, topology time) by WAN/site and used/new; --csv FILE writes
# every counted send (run, index, size, src, dst, where, connection,
# hold_ms).  Nothing is brought up and nothing is written into RUNDIR; no
# root needed.
set -u
runs=() buffer=46080 eager=65536 csvout=
while [ $# -gt 0 ]; do
	case $1 in
	--buffer) buffer=${2:-}; shift 2 || shift ;;
	--eager) eager=${2:-}; shift 2 || shift ;;
	--csv) csvout=${2:-}; shift 2 || shift
	       [ -n "$csvout" ] || { echo "send-holds.sh: --csv needs a FILE" >&2; exit 2; } ;;
	-h|--help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "send-holds.sh: unknown argument '$1'" >&2; exit 2 ;;
	*) runs+=("$1"); shift ;;
	esac
done
[ ${#runs[@]} -gt 0 ] || { echo "send-holds.sh: no RUNDIR (--help)" >&2; exit 2; }
for v in "$buffer" "$eager"; do
	[[ $v =~ ^[0-9]+$ ]] ||
		{ echo "send-holds.sh: '$v' is not a number of bytes (--buffer, --eager)" >&2; exit 2; }
done
[ "$buffer" -lt "$eager" ] ||
	{ echo "send-holds.sh: --buffer $buffer is not below --eager $eager" >&2; exit 2; }
command -v python3 >/dev/null || { echo "send-holds.sh: python3 is not installed" >&2; exit 2; }
gt=${GRIDBED_BUILD:-build}/collectives/gridtree
[ -x "$gt" ] || { echo "send-holds.sh: $gt: not built (GRIDBED_BUILD names the build)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/send-holds.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
args=()
for run in "${runs[@]}"; do
	[ -s "$run/ranks.csv" ] || { echo "send-holds.sh: $run/ranks.csv: missing or empty" >&2; exit 2; }
	topo=$run/../../topology.yaml
	[ -s "$topo" ] || { echo "send-holds.sh: $topo: missing (RUNDIR is results/<campaign>/<time>/runs/<id>)" >&2; exit 2; }
	"$gt" nodes --topo "$topo" > "$tmp/${#args[@]}.csv" || exit 2
	args+=("$run" "$tmp/${#args[@]}.csv")
done

python3 - "$buffer" "$eager" "$csvout" "${args[@]}" <<'PY'
import collections, csv, statistics as st, sys

buffer, eager, csvout = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
pairs = sys.argv[4:]
rows = []


def die(msg):
    """Bad input: one line, exit 2, as the shell part does."""
    print("send-holds.sh: " + msg, file=sys.stderr)
    sys.exit(2)


for run, nodes in zip(pairs[0::2], pairs[1::2]):
    site = {r["name"]: r["site"] for r in csv.DictReader(open(nodes))}
    host, kids = {}, collections.defaultdict(list)
    for r in csv.DictReader(open(run + "/ranks.csv")):
        i = int(r["index"])
        host[(i, r["rank"])] = r["host"]
        if r["parent"] != "-1" and r["parent_send_after_root"] != "":
            kids[(i, r["parent"])].append(r)
    carried = collections.defaultdict(int)    # (sender, receiver) -> largest message so far
    out = []
    for i in sorted({k[0] for k in kids}):
        mine = [(p, sorted(ks, key=lambda r: float(r["parent_send_after_root"])))
                for (j, p), ks in kids.items() if j == i]
        for p, ks in mine:
            src = host[(i, p)]
            for a, b in zip(ks, ks[1:]):
                size = int(a["size"])
                if not buffer < size <= eager:
                    continue
                dst = a["host"]
                if site.get(src) is None or site.get(dst) is None:
                    die("host %s or %s is not in %s/../../topology.yaml" % (src, dst, run))
                hold = float(b["parent_send_after_root"]) - float(a["parent_send_after_root"])
                out.append(dict(index=i, size=size, src=src, dst=dst,
                                where="WAN" if site[src] != site[dst] else "site",
                                conn="used" if carried[(src, dst)] > buffer else "new",
                                hold=hold * 1e3))
        for p, ks in mine:
            for a in ks:
                k = (host[(i, p)], a["host"])
                carried[k] = max(carried[k], int(a["size"]))
    rows += [dict(e, run=run) for e in out]
    print("%s: sends of %d-%d B that another send followed" % (run, buffer + 1, eager))
    print("  %-5s %-5s %5s %10s %10s %10s" % ("", "conn", "n", "median ms", "min", "max"))
    for where in ("WAN", "site"):
        for conn in ("used", "new"):
            v = [e["hold"] for e in out if e["where"] == where and e["conn"] == conn]
            if v:
                print("  %-5s %-5s %5d %10.1f %10.1f %10.1f" % (where, conn, len(v), st.median(v),
                                                                min(v), max(v)))
            else:
                print("  %-5s %-5s %5d %10s %10s %10s" % (where, conn, 0, "-", "-", "-"))
if csvout:
    with open(csvout, "w") as f:
        f.write("run,index,size,src,dst,where,connection,hold_ms\n")
        for e in rows:
            f.write("%s,%d,%d,%s,%s,%s,%s,%.3f\n" % (e["run"], e["index"], e["size"], e["src"],
                                                     e["dst"], e["where"], e["conn"], e["hold"]))
    print("per send: %s" % csvout)
PY
