#!/usr/bin/env bash
# 6108-probe-overlap - collectives/monitor/bench/probe-overlap.sh sets a
# campaign run's wide-area edges against gridmon's probe log (issue 13: were
# the slow root edges the ones that shared a link with a probe?).  A
# hand-made campaign directory: sites A (a-1, a-2), B (b-1, b-2), C (c-1),
# dilation 10; 7 broadcasts of 100 kB from a-1, broadcast i starting at
# mono 1000 + 100 i, each with edges a-1>a-2 (inside A), a-1>b-1 (0.1 s)
# and b-1>c-1 (0.1 s), except broadcast 3's a-1>b-1: 0.3 s, slow (3 x the
# local median).  Probes (wall clock):
#   a-2>c-1 1301-1302: leaves A while broadcast 3's a-1>b-1 runs (1300.1-
#     1303.1): counts for it, not for its b-1>c-1 (1303.1-1304.1);
#   c-1>b-1 1500.5-1500.8: enters B during broadcast 5's a-1>b-1: counts;
#   b-1>b-2 1100.2-1100.9: inside a site: never counts;
#   a-1>b-1 2000-2001: after every broadcast.
# Then what it must refuse, with exit 2 and one line: no probe log, no
# ranks.csv, a bad --slow.
source "$(dirname "$0")/lib-netns.sh"
require_cmd python3

PO=$GRIDBED_SRC/collectives/monitor/bench/probe-overlap.sh
gb_tmpdir 6108

plan 9

make_campaign() { # make_campaign DIR: the campaign above
	python3 - "$1" <<'PY'
import json, os, sys
top = sys.argv[1]
run = top + "/runs/paper-mpich-g2-r1"
os.makedirs(run)
os.makedirs(top + "/monitor")
nodes = [{"name": n, "cluster": n[0], "site": n[0].upper()} for n in ("a-1", "a-2", "b-1", "b-2", "c-1")]
json.dump({"format": "gridbed-matrix", "version": 1, "nodes": nodes},
          open(top + "/monitor/matrix-s1-v0001.json", "w"))
with open(top + "/monitor/probes-s1.csv", "w") as f:
    f.write("round,stage,again,src,dst,t_begin,t_end,bytes,bw,result\n"
            "1,0,0,a-2,c-1,1301.0,1302.0,4194304,1250000,ok\n"
            "1,1,0,c-1,b-1,1500.5,1500.8,4194304,1250000,ok\n"
            "1,2,0,b-1,b-2,1100.2,1100.9,4194304,12500000,ok\n"
            "2,0,0,a-1,b-1,2000.0,2001.0,4194304,1250000,ok\n")
with open(run + "/broadcasts.csv", "w") as f:
    f.write("campaign,run_id,algorithm,root,size,index,start_time,completion_time,load_state,"
            "pred_model,dilate\n")
    for i in range(7):
        f.write("x,paper-mpich-g2-r1,mpich-g2,a-1,100000,%d,%.1f,0.4,unloaded,matrix %s/monitor/"
                "matrix-s1.json v1,10\n" % (i, 1000 + 100 * i, top))
with open(run + "/ranks.csv", "w") as f:
    f.write("campaign,run_id,algorithm,index,size,rank,host,parent,t_begin,t_end,end_after_root,"
            "recv_after_root,parent_send_after_root,send_start_after_root,send_done_after_root\n")
    for i in range(7):
        t0 = 1000 + 100 * i
        ab = 0.31 if i == 3 else 0.11
        for rank, host, parent, recv, send in ((0, "a-1", -1, 0.0, ""), (1, "a-2", 0, 0.02, 0.0),
                                               (2, "b-1", 0, ab, 0.01), (3, "c-1", 2, ab + 0.1, ab)):
            f.write("x,r,mpich-g2,%d,100000,%d,%s,%d,%.1f,%.1f,0.4,%s,%s,,\n" % (
                i, rank, host, parent, t0, t0 + 4, recv, send))
PY
}

c=$tmp/camp
make_campaign "$c"
run=$c/runs/paper-mpich-g2-r1
out=$("$PO" "$run" 2>&1)
st=$?
sed 's/^/# /' <<<"$out"
is "$st" 0 "probe-overlap.sh on a finished run"
like "$out" ": 14 wide-area edges in 7 broadcasts, 1 slow \\(> 2 x the local median\\); 4 probes logged" \
	"  counts the edges between sites (not a-1>a-2), the slow one and the probes"
like "$out" "slow \\(> 2 x local median\\) +1 +1 \\(100 %\\) +3.00 +-" \
	"  the slow edge shared a wide-area direction with a probe, at 3 x its local median"
like "$out" "the others +13 +1 \\( +8 %\\) +1.00 +1.00" "  one other edge did (a probe into B)"
is "$(grep -c . "$run/overlap.csv"):$(grep '^3,.*,a-1,b-1,' "$run/overlap.csv")" \
	"15:3,unloaded,100000,a-1,b-1,1,0.300000,0.100000,1,1,a-2>c-1" \
	"  overlap.csv: a row per edge; broadcast 3's root edge and the probe that left A with it"
is "$(awk -F, '$1 == 3 && $4 == "b-1" { print $10 }' "$run/overlap.csv")" 0 \
	"  the same probe had ended before broadcast 3's b-1>c-1 began"

rm "$c/monitor/probes-s1.csv"
out=$("$PO" "$run" 2>&1)
is "$?:$(wc -l <<<"$out"):$(grep -c 'no probe log' <<<"$out")" "2:1:1" "no probe log: exit 2, one line, says so"
make_campaign "$tmp/c2"
rm "$tmp/c2/runs/paper-mpich-g2-r1/ranks.csv"
out=$("$PO" "$tmp/c2/runs/paper-mpich-g2-r1" 2>&1)
is "$?:$(wc -l <<<"$out"):$(grep -c 'ranks.csv: missing' <<<"$out")" "2:1:1" "no ranks.csv: exit 2, one line, names it"
out=$("$PO" "$tmp/c2/runs/paper-mpich-g2-r1" --slow x 2>&1)
is "$?:$(wc -l <<<"$out")" "2:1" "--slow x: exit 2, one line"
