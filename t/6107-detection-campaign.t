#!/usr/bin/env bash
# 6107-detection-campaign - collectives/monitor/bench/detection.sh --campaign
# judges a campaign run's own loads against the matrices it kept (issue 13:
# "load start to the first matrix version that shows it").  A hand-made
# campaign directory, three clusters, dilation 10, scale 0.5, clocks tied by
# advisor.csv (wall = mono + 1795699000):
#   v1, v2 (mono 1000.5, 1100.5): every pair at 12.5 MB/s, whole rounds;
#   load 1, c3-S3 c3>S3, mono 1150-1350 (topology 115-135 s, 20 s long);
#   v3 (1180.5): c3>c2 at 3 MB/s, below 75 % of its baseline: detected
#       3.05 topology s after the load began (6.1 paper s), 4.95 s after the
#       last whole round (v2) ended;
#   v4 (1400.5): idle again, a whole round;
#   load 2, c3-S3 S3>c3, mono 1500-1700: v5 (1550.5) drops c3>c1, the other
#       direction, and v6 (1750.5) drops c1>c3 only after the load ended:
#       not detected;
#   load 3, mono 1800-1900, is in go.json but not in load.csv: it never ran
#       (the application ended first), and is not judged;
# so 1 of 2 loads within the target, a quarter of the shortest load (5 s).
# The same campaign with monitor/versions-s1.csv (when gridexp saw each
# version) takes its times from it: v3 seen at 1181.5, 3.15 s after load 1.
# Then what it must refuse, with exit 2 and one line: a run without
# load.csv, a load that names no link, an oracle's matrix.
source "$(dirname "$0")/lib-netns.sh"
require_cmd python3

DET=$GRIDBED_SRC/collectives/monitor/bench/detection.sh
gb_tmpdir 6107

plan 15

make_campaign() { # make_campaign DIR: the campaign above
	python3 - "$1" <<'PY'
import csv, json, os, sys, time
top = sys.argv[1]
run = top + "/runs/paper-adaptive-r1"
os.makedirs(run + "/advisor")
os.makedirs(top + "/monitor")
off = 1795699000
json.dump({"dilate": 10, "scale": 0.5}, open(top + "/meta.json", "w"))
json.dump({"load": True, "t_go": 1010.0,
           "intervals": [[1150.0, 1350.0], [1500.0, 1700.0], [1800.0, 1900.0]]},
          open(run + "/go.json", "w"))
with open(run + "/advisor/advisor.csv", "w") as f:
    f.write("wall_time,mono_time,matrix_version\n%.6f,%.6f,1\n" % (off + 1020.0, 1020.0))
with open(run + "/load.csv", "w") as f:
    f.write("interval,mode,start_s,end_s,fraction,link,dir,src,dst,port,capacity_bps,"
            "planned_bps,achieved_bps,sent_bps,tx_packets,rx_packets,status,dilate\n")
    f.write("1,traffic,115,135,0.8,c3-S3,c3>S3,c3,S3,9000,100000000,80000000,80000000,"
            "80000000,1,1,ok,10\n")
    f.write("2,traffic,150,170,0.8,c3-S3,S3>c3,S3,c3,9000,100000000,80000000,80000000,"
            "80000000,1,1,ok,10\n")
names = ["c1", "c2", "c3"]
def matrix(v, mono, whole, drops):
    bw = [[None if a == b else 12.5e6 for b in range(3)] for a in range(3)]
    for a, b in drops:
        bw[a][b] = 3e6
    ts = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(off + int(mono)))
    json.dump({"format": "gridbed-matrix", "version": v, "timestamp": ts,
               "round_complete": whole,
               "clusters": {"clusters": names, "bw": bw, "round_seconds": 9.5,
                            "bytes_sent": 20e6, "stages": 6}},
              open("%s/monitor/matrix-s1-v%04d.json" % (top, v), "w"))
matrix(1, 1000, True, [])
matrix(2, 1100, True, [])
matrix(3, 1180, False, [(2, 1)])
matrix(4, 1400, True, [])
matrix(5, 1550, False, [(2, 0)])
matrix(6, 1750, True, [(0, 2)])
PY
}

c=$tmp/camp
make_campaign "$c"
run=$c/runs/paper-adaptive-r1
out=$("$DET" --campaign "$run" --out "$tmp/o1" 2>&1)
st=$?
sed 's/^/# /' <<<"$out"
is "$st" 0 "detection.sh --campaign on a finished loaded run"
like "$out" "dilation 10, scale 0.5; matrix times from gridmon's timestamps put on the run's clock by advisor.csv" \
	"  says the clock it used and the campaign's dilation and scale"
like "$out" "target: detected within 5 s" "  target: a quarter of the shortest load, topology time"
like "$out" "2 of 3 loads ran" "  judges the loads that ran (load.csv), not the one due after the end"
is "$(sed -n 2p "$tmp/o1/trials.csv")" "1,115.000,135.000,4.950,c3-S3,c3>S3" \
	"  trial 1 on the topology's clock, 4.95 s after the last whole round"
is "$(sed -n 2p "$tmp/o1/detection.csv")" "1,4.950,1,3.050,6.1,3,c3>c2" \
	"  load 1 (c3>S3): seen by version 3, 3.05 s (6.1 paper s) after it began, by c3>c2"
is "$(sed -n 3p "$tmp/o1/detection.csv")" "2,9.950,0,,,," \
	"  load 2 (S3>c3): the other direction's drop and a drop after the load do not count"
like "$out" "detection: 1 of 2 trials within the target" "  1 of 2 loads within the target"

make_campaign "$tmp/c4"
printf 'version,t_mono\n1,1000.7\n2,1100.6\n3,1181.5\n4,1400.9\n5,1550.6\n6,1750.6\n' \
	> "$tmp/c4/monitor/versions-s1.csv"
out=$("$DET" --campaign "$tmp/c4/runs/paper-adaptive-r1" --out "$tmp/o5" 2>&1)
is "$?" 0 "with monitor/versions-s1.csv"
like "$out" "matrix times from monitor/versions-s1.csv \\(when gridexp saw them\\)" "  says so"
is "$(sed -n 2p "$tmp/o5/detection.csv")" "1,4.940,1,3.150,6.3,3,c3>c2" \
	"  load 1 seen by version 3 at its time there, 3.15 s (6.3 paper s) after it began"

rm "$run/load.csv"
out=$("$DET" --campaign "$run" --out "$tmp/o2" 2>&1)
st=$?
is "$st:$(wc -l <<<"$out")" "2:1" "a run without load.csv: exit 2, one line"
like "$out" "not a finished loaded campaign run" "  which says so"

make_campaign "$tmp/c2"
sed -i '2s/c3-S3,c3>S3,c3,S3/,,c3-1,c1-1/' "$tmp/c2/runs/paper-adaptive-r1/load.csv"
out=$("$DET" --campaign "$tmp/c2/runs/paper-adaptive-r1" --out "$tmp/o3" 2>&1)
is "$?:$(grep -c 'interval 1 names no link' <<<"$out")" "2:1" \
	"a load between hosts (no link): exit 2, named"

make_campaign "$tmp/c3"
python3 - "$tmp/c3/monitor/matrix-s1-v0002.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); j["oracle"] = True; json.dump(j, open(sys.argv[1], "w"))
PY
out=$("$DET" --campaign "$tmp/c3/runs/paper-adaptive-r1" --out "$tmp/o4" 2>&1)
is "$?:$(grep -c "an oracle's matrix" <<<"$out")" "2:1" "an oracle's matrix: exit 2, named"
