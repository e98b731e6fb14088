#!/usr/bin/env bash
# probe-overlap.sh - benchmark reading, not a test: did gridmon's probes
# share the wide area with a broadcast's slow edges?  (issue 13: in the
# teragrid-quick runs at scale 0.3 some root wide-area edges took 2-3 times
# the median; the monitor's multi-megabyte probes cross the same links.)
#
#   collectives/monitor/bench/probe-overlap.sh RUNDIR [--slow 2]
#
# RUNDIR is a campaign run (results/<campaign>/<time>/runs/<id>/) of a
# campaign whose gridmon kept its probe log (monitor/probes-s<S>.csv,
# docs/formats.md; gridexp keeps it since session 16); S is the monitor
# session its broadcasts planned on (broadcasts.csv's pred_model).  For every edge
# between two sites of every broadcast (from ranks.csv: the parent began
# sending at parent_send_after_root, the whole message had arrived at
# recv_after_root; on the wall clock that is the root's t_begin + the
# time x k), the probes that ran while the edge did and share a wide-area
# direction with it:
#   - a probe from the edge's own source site to another site leaves
#     through the same site access link, in the same direction;
#   - a probe into the edge's destination site from another site enters
#     through the same access link.
# Sites alone decide (rankmap/matrix nodes give each host's site); a grid
# whose sites have several access links, or whose probes and edges meet
# only on a trunk between two hubs, is judged by this rule only.
# An edge is slow when it took more than SLOW (default 2) times the median
# of the wide-area edges of the broadcasts at most 3 indexes away (their
# sizes are close: an application's sizes change along the run).
# Prints, for slow and other edges, how many overlapped a probe, and the
# median of their time over that local median, with and without one;
# writes overlap.csv (one row per wide-area edge) into RUNDIR.
# Nothing is brought up; no root needed.
set -u
run= slow=2
while [ $# -gt 0 ]; do
	case $1 in
	--slow) slow=$2; shift 2 ;;
	-h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "probe-overlap.sh: unknown argument '$1'" >&2; exit 2 ;;
	*) [ -z "$run" ] || { echo "probe-overlap.sh: one RUNDIR only ('$1')" >&2; exit 2; }
	   run=$1; shift ;;
	esac
done
[ -n "$run" ] || { echo "probe-overlap.sh: no RUNDIR (--help)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "probe-overlap.sh: python3 is not installed" >&2; exit 2; }
for f in broadcasts.csv ranks.csv; do
	[ -s "$run/$f" ] || { echo "probe-overlap.sh: $run/$f: missing or empty" >&2; exit 2; }
done
[[ $slow =~ ^[0-9]+([.][0-9]+)?$ ]] && [ "$slow" != 0 ] ||
	{ echo "probe-overlap.sh: --slow '$slow' is not a number > 0" >&2; exit 2; }

exec python3 - "$run" "$slow" <<'PY'
import csv, glob, json, os, re, statistics as st, sys

run, slow = sys.argv[1], float(sys.argv[2])


def die(msg):
    """Bad input: one line, exit 2, as the shell part does."""
    print("probe-overlap.sh: " + msg, file=sys.stderr)
    sys.exit(2)


mon = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(run))), "monitor")
B = {int(b["index"]): b for b in csv.DictReader(open(run + "/broadcasts.csv"))}
# the monitor session the run planned on (pred_model "matrix .../matrix-s<S>.json vV"):
# its probe log is on the run's clock; another session's may be from another boot
sess = sorted({m.group(1) for b in B.values()
               for m in [re.search(r"/matrix-s([0-9]+)\.json ", b.get("pred_model") or "")] if m})
if not sess:
    die("%s/broadcasts.csv: no broadcast planned on a gridmon matrix (pred_model)" % run)
logs = [mon + "/probes-s%s.csv" % n for n in sess]
for p in logs:
    if not os.path.exists(p):
        die("%s: no probe log (results older than the log, or an oracle)" % p)
mats = sorted(glob.glob(mon + "/matrix-s%s-v*.json" % sess[0]))
if not mats:
    die("%s: no matrix of session %s, so no host's site" % (mon, sess[0]))
site = {n["name"]: n.get("site") for n in json.load(open(mats[0]))["nodes"]}
probes = []
for p in logs:
    for r in csv.DictReader(open(p)):
        probes.append((float(r["t_begin"]), float(r["t_end"]), r["src"], r["dst"]))

host = {}
rows = []
for r in csv.DictReader(open(run + "/ranks.csv")):
    host[(int(r["index"]), int(r["rank"]))] = r["host"]
    rows.append(r)
edges = []
for r in rows:
    i, p = int(r["index"]), int(r["parent"])
    if p < 0 or r["parent_send_after_root"] == "" or i not in B:
        continue
    src, dst = host[(i, p)], r["host"]
    a, b = site.get(src), site.get(dst)
    if a is None or b is None:
        die("host %s or %s is not in the matrix's nodes" % (src, dst))
    if a == b:
        continue
    k, t0 = float(B[i]["dilate"] or 1), float(B[i]["start_time"])
    s, e = float(r["parent_send_after_root"]), float(r["recv_after_root"])
    w0, w1 = t0 + s * k, t0 + e * k
    hit = [q for q in probes if q[0] < w1 and q[1] > w0 and site[q[2]] != site[q[3]] and
           (site[q[2]] == a or site[q[3]] == b)]
    edges.append(dict(index=i, state=B[i]["load_state"], size=int(B[i]["size"]), src=src, dst=dst,
                      seconds=e - s, root=src == B[i]["root"], probes=len(hit),
                      probe_pairs=" ".join(sorted({q[2] + ">" + q[3] for q in hit}))))
if not edges:
    die("%s: no edge between two sites with its times (native runs have none)" % run)
for e in edges:
    e["local"] = st.median(d["seconds"] for d in edges if abs(d["index"] - e["index"]) <= 3)
    e["ratio"] = e["seconds"] / e["local"] if e["local"] > 0 else float("nan")
    e["slow"] = e["ratio"] > slow
with open(run + "/overlap.csv", "w") as f:
    f.write("index,load_state,size,src,dst,root,seconds,local_median,slow,probes,probe_pairs\n")
    for e in edges:
        f.write("%d,%s,%d,%s,%s,%d,%.6f,%.6f,%d,%d,%s\n" % (
            e["index"], e["state"], e["size"], e["src"], e["dst"], e["root"], e["seconds"],
            e["local"], e["slow"], e["probes"], e["probe_pairs"]))

print("%s: %d wide-area edges in %d broadcasts, %d slow (> %g x the local median); "
      "%d probes logged" % (run, len(edges), len({e["index"] for e in edges}),
                            sum(e["slow"] for e in edges), slow, len(probes)))
print("%-28s %6s %18s %22s %22s" % ("edges", "n", "with a probe", "time/local, probe", "time/local, none"))
for label, sel in (("slow (> %g x local median)" % slow, lambda e: e["slow"]),
                   ("the others", lambda e: not e["slow"]),
                   ("the root's, all", lambda e: e["root"])):
    es = [e for e in edges if sel(e)]
    w = [e["ratio"] for e in es if e["probes"]]
    wo = [e["ratio"] for e in es if not e["probes"]]
    print("%-28s %6d %10d (%3.0f %%) %22s %22s" % (
        label, len(es), len(w), 100.0 * len(w) / len(es) if es else 0,
        "%.2f" % st.median(w) if w else "-", "%.2f" % st.median(wo) if wo else "-"))
print("per edge: %s/overlap.csv" % run)
PY
