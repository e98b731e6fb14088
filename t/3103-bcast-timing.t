#!/bin/bash
# 3103-bcast-timing - gridbcast's timings and files, on two-clusters with 8
# ranks:
#   - one CSV row per broadcast (docs/architecture.md, decision 7), native always
#     included, every buffer verified (mismatches 0);
#   - timing sanity: no rank's receive-done before its parent's send start
#     (checked again here from the per-rank file), completion = max over
#     ranks of receive-done - root's begin, and completion >= the
#     topology's lower bound (on the emulated grid only: loopback is not
#     shaped);
#   - the piggybacked tree's bytes are counted: (n-1) * (30 + 4n);
#   - predictions per cost model; a measured matrix is used and labelled;
#     the shared-file ablation is labelled; --root by host name;
#   - usage errors exit 2.
source "$(dirname "$0")/lib-netns.sh"
BCAST_TMP=$(mktemp -d /tmp/gb3103.XXXXXX)
trap 'rm -rf "$BCAST_TMP"; gb_cleanup' EXIT
source "$(dirname "$0")/lib-bcast.sh"
command -v python3 >/dev/null || skip_all "python3 is not installed (used to read the CSV)"

bcast_setup "$TOPOS/two-clusters.yaml" 8
GB=$BCAST_BUILD/gridbcast
nalgo=$(( $("$GRIDBED_BUILD/collectives/gridtree" list --names | wc -l) + 1 ))

# py SCRIPT ARGS: run a python check, print its output
py() { python3 -c "$@"; }

out=$(GRIDBED_LOAD_STATE=unloaded run_mpi -- "$GB" --algo all --sizes 1K,1M --reps 2 \
	--out "$BCAST_TMP/r.csv" --ranks "$BCAST_TMP/ranks.csv" --campaign t3103); st=$?
is "$st" 0 "gridbcast --algo all exits 0" || printf '%s\n' "$out" | tail -20 | sed 's/^/#   /'
like "$out" "native +1048576 " "summary has native as a baseline"
like "$out" "mpich-g2 +1048576 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ " \
	"summary: median, p10, p90, ratio to native"

CHECK='
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ranks = list(csv.DictReader(open(sys.argv[2])))
n, nalgo, on_grid = 8, int(sys.argv[3]), sys.argv[4] == "1"
def f(x): return float(x) if x != "" else math.nan
out = []
out.append("rows %d" % len(rows))
out.append("algos %d" % len(set(r["algorithm"] for r in rows)))
out.append("native %d" % sum(r["algorithm"] == "native" for r in rows))
out.append("mismatches %d" % sum(int(r["mismatches"]) for r in rows))
out.append("violations %d" % sum(int(r["order_violations"]) for r in rows))
out.append("campaign %s load %s" % (rows[0]["campaign"], rows[0]["load_state"]))
# per-rank: receive-done never before the parent send start
checked = bad = 0
for r in ranks:
    if int(r["parent"]) >= 0 and r["parent_send_start"] != "":
        checked += 1
        bad += f(r["t_recv_done"]) < f(r["parent_send_start"])
out.append("rank-order bad %d of %d" % (bad, checked))
# completion = max(recv_after_root) over the ranks of the same broadcast
by = {}
for r in ranks:
    k = (r["algorithm"], r["index"])
    by[k] = max(by.get(k, -1), f(r["recv_after_root"]))
mism = sum(abs(by[(r["algorithm"], r["index"])] - f(r["completion_time"])) > 1e-6 for r in rows)
out.append("completion-vs-ranks %d" % mism)
# lower bound: present; completion >= bound on the grid
lbok = sum(f(r["completion_time"]) >= f(r["lower_bound"]) for r in rows)
out.append("lb-present %d" % sum(f(r["lower_bound"]) > 0 for r in rows))
out.append("lb-1M %.6f" % f([r for r in rows if r["size"] == "1048576"][0]["lower_bound"]))
out.append("above-lb %d" % lbok)
# header bytes and tree delivery
hb = set((r["tree_via"], r["hdr_bytes"]) for r in rows)
out.append("hdr " + " ".join(sorted("%s=%s" % x for x in hb)))
# predictions: all three, for trees sent whole and for segmented ones (the
# root chose segments: the segment column), each under its segmented schedule
pc = ["pred_mateescu", "pred_plogp", "pred_contention"]
def preds_ok(r):
    return all(r[c] != "" for c in pc)
out.append("pred-trees %d" % sum(preds_ok(r) for r in rows if r["algorithm"] != "native"))
out.append("pred-native %d" % sum(any(r[c] != "" for c in pc) for r in rows if r["algorithm"] == "native"))
print("\n".join(out))
'
res=$(py "$CHECK" "$BCAST_TMP/r.csv" "$BCAST_TMP/ranks.csv" "$nalgo" "$BCAST_ON_GRID") ||
	bail "cannot read gridbcast's CSV: $res"
get() { printf '%s\n' "$res" | grep "^$1 " | cut -d' ' -f2-; }
nrows=$(( nalgo * 2 * 2 ))
is "$(get rows)" "$nrows" "one row per broadcast: $nalgo algorithms x 2 sizes x 2 reps"
is "$(get algos)" "$nalgo" "every planner and native"
is "$(get native)" 4 "native is always included"
is "$(get mismatches)" 0 "every rank's buffer verified: no mismatching byte"
is "$(get violations)" 0 "gridbcast saw no receive before a parent's send start"
is "$(get campaign)" "t3103 load unloaded" "campaign and load state columns"
like "$(get rank-order)" "^bad 0 of [1-9][0-9]*$" \
	"per-rank file: receive-done >= parent's send start for every rank with a parent"
is "$(get completion-vs-ranks)" 0 "completion = max(receive-done) - root's begin, per broadcast"
is "$(get lb-present)" "$nrows" "every row has the topology's lower bound"
# a-1 to any b host: 0.02 + 0.05 + 5 + 0.05 + 0.02 ms, then 1 MiB at 100 Mbit/s
is "$(get lb-1M)" "0.089026" "lower bound at 1 MiB: 5.14 ms + 8 Mbit / 100 Mbit/s"
if [ "$BCAST_ON_GRID" = 1 ]; then
	is "$(get above-lb)" "$nrows" "every completion is at least the lower bound"
else
	skip 1 "completion >= lower bound needs the shaped grid (loopback run)"
fi
is "$(get hdr)" "local=0 native=0 piggyback=434" \
	"header bytes: 7 edges x 62 B for piggybacked trees, 0 otherwise"
is "$(get pred-trees)" "$(( (nalgo - 1) * 4 ))" \
	"every tree row has its three predictions, for whole messages and for segments"
is "$(get pred-native)" 0 "native rows have no prediction"
ls "$BCAST_TMP"/*.csv.* >/dev/null 2>&1
ok $(( ! $? )) "no temporary file left next to the CSV (atomic writes)"
like "$(cat "$BCAST_TMP/r.json" 2>/dev/null)" '"topology": ".+[.]yaml"' \
	"run metadata names the topology"

# a measured matrix (docs/formats.md) reaches the planners at the root
python3 - "$BCAST_TMP/m.json" <<'PY'
import json, sys
h = ["a-%d" % i for i in range(1, 5)] + ["b-%d" % i for i in range(1, 5)]
n = len(h)
lat = [[0 if i == j else (1e-4 if h[i][0] == h[j][0] else 0.02) for j in range(n)] for i in range(n)]
bw = [[0 if i == j else (1.25e8 if h[i][0] == h[j][0] else 1.25e6) for j in range(n)] for i in range(n)]
json.dump({"version": 3, "nodes": [{"name": x, "cluster": x[0], "site": "s" + x[0]} for x in h],
           "o": 1e-5, "lat": lat, "bw": bw}, open(sys.argv[1], "w"))
PY
out=$(GRIDBED_MATRIX=$BCAST_TMP/m.json run_mpi -- "$GB" --algo mateescu,mpich-g2 --sizes 64K \
	--reps 1 --root b-2 --out "$BCAST_TMP/m.csv"); st=$?
is "$st" 0 "gridbcast with GRIDBED_MATRIX exits 0" || printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
res=$(py '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(r["algorithm"], r["root"], r["root_rank"], r["tree_via"], "|" + r["model"] + "|",
          "|" + r["pred_model"] + "|")' "$BCAST_TMP/m.csv")
like "$(grep '^mateescu' <<<"$res")" "^mateescu b-2 5 piggyback \|matrix .*/m.json v3\|" \
	"mateescu planned at the root from the matrix (labelled), --root b-2 is rank 5"
like "$(grep '^mpich-g2' <<<"$res")" "local \|topology .*[.]yaml\| \|matrix .*m.json v3\|" \
	"mpich-g2 planned locally from the topology; predictions from the matrix"

# the shared-file ablation is labelled as such
# (and --no-connect: the run's JSON records whether every pair connected first)
out=$(GRIDBED_TREE_DIR=$BCAST_TMP run_mpi -- "$GB" --algo sa --sizes 1K --reps 1 --shared \
	--no-connect --out "$BCAST_TMP/s.csv"); st=$?
is "$st" 0 "gridbcast --shared exits 0"
CONN='import json, sys; print(json.load(open(sys.argv[1]))["connect"])'
is "$(py "$CONN" "$BCAST_TMP/r.json") $(py "$CONN" "$BCAST_TMP/s.json")" "True False" \
	"every pair connected first by default; not with --no-connect"
like "$(grep ',sa,' "$BCAST_TMP/s.csv")" ",shared-file,.*,0,[0-9.e-]+,[0-9.e-]+,0,0," \
	"--shared: tree_via 'shared-file', no header bytes"

# usage errors: gridbcast exits 2 (gridemu mpirun reports any failed rank as 1)
out=$(run_mpi -- "$GB" --algo no-such --sizes 1K --reps 1 --out "$BCAST_TMP/x.csv"); st=$?
ok $(( st == 0 )) "unknown algorithm: the job fails (status $st)"
like "$out" "gridbcast: unknown algorithm 'no-such'" "the error names the algorithm"
out=$(run_mpi -- "$GB" --algo flat --sizes 1Q --reps 1 --out "$BCAST_TMP/x.csv"); st=$?
ok $(( st == 0 )) "bad size: the job fails (status $st)"
like "$out" "gridbcast: size '1Q' is not a size" "the error names the size"
out=$(run_mpi -- "$GB" --algo flat --sizes 1K --reps 1 --root nowhere --out "$BCAST_TMP/x.csv"); st=$?
ok $(( st == 0 )) "unknown root: the job fails (status $st)"
like "$out" "gridbcast: root 'nowhere' is neither a host" "the error names the root"
[ ! -e "$BCAST_TMP/x.csv" ]
ok $? "a failed run writes no CSV"

done_testing
