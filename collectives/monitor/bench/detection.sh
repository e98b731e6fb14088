#!/usr/bin/env bash
# detection.sh - benchmark, not a test: how long a load on a cluster's link
# takes to reach gridmon's matrix (issue 13: "a load on a C3 link must reach
# the matrix the advisor plans on within a quarter of the shortest load
# interval"), and what gridmon's rounds cost.
#
#   collectives/monitor/bench/detection.sh [--scale 0.02] [--period 300s]
#       [--bytes-per-probe 4M] [--rtt-count 5] [--concurrency N] [--fixed]
#       [--fraction 0.7] [--trials 3] [--seed 1]
#       [--link c3-NCSA] [--dir c3>NCSA] [--mode shape|traffic]
#       [--topology FILE] [--out DIR]
#   collectives/monitor/bench/detection.sh --campaign RUNDIR [--out DIR]
#
# It brings up the topology (default teragrid), runs gridmon as a campaign
# would (--period PERIOD --scale SCALE) and copies every matrix version as
# it appears, with the time it appeared (CLOCK_MONOTONIC).  After two
# whole rounds (the baseline), TRIALS times: wait a random share of a round
# (seeded by SEED: a load must not always begin where a round begins), load
# LINK in direction DIR by FRACTION with gridload for the shortest load of
# seed 000 s3 (6 min) times SCALE, then wait until one whole round has
# ended after the load (the matrix is idle again).
#
# Detection, per trial: the first version written while the load lasted in
# which some
# cluster-level bandwidth whose pair crosses the loaded direction reads
# below 75 % of its smallest baseline reading.  LINK must be a cluster's
# uplink: every pair that leaves the cluster crosses its up direction, every
# pair that enters it the down direction.
# The 75 % rule: a 50-90 % load leaves 10-50 % of the link, so any pair whose
# bottleneck it becomes drops by more than a quarter; a pair with a narrower
# bottleneck elsewhere (a WAN trunk) may rightly not drop at all.
# Prints each trial's detection latency (real and paper time), how many
# trials met the target (a quarter of the shortest load interval), the
# rounds' duration and bytes; writes versions/, versions.csv, trials.csv,
# detection.csv and summary.txt in --out.
#
# --campaign RUNDIR judges a campaign's run instead (gridexp run, a run
# directory results/<campaign>/<time>/runs/<id>/ whose campaign ran gridmon):
# its own loads are the trials (go.json's intervals that ran, load.csv's
# link and direction of each; a load due after the application ended never
# ran), the versions of gridmon's matrix that the campaign kept (monitor/)
# are the versions, with the same rule.  Times are the
# topology's (wall / the campaign's dilation), paper time is that / its
# scale.  A version's time is when gridexp saw it (monitor/versions-s<S>.csv,
# at most 0.25 s late during a run); in results older than that file,
# gridmon's timestamp (whole seconds of the wall clock, taken as the middle
# of its second, so +-0.5 s / dilation), put on the run's clock by
# advisor/advisor.csv's wall and monotonic times (an adaptive run), else by
# this machine's clocks now (the same boot).
# Nothing is brought up; no root needed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
build=${GRIDBED_BUILD:-$src/build}
topo=$src/topologies/teragrid.yaml
scale=0.02 period=300s bytes=4M rtts=5 conc= fixed= frac=0.7 trials=3 seed=1 link=c3-NCSA dir='c3>NCSA' mode=shape out= campaign=
while [ $# -gt 0 ]; do
	case $1 in
	--scale) scale=$2; shift 2 ;;
	--period) period=$2; shift 2 ;;
	--bytes-per-probe) bytes=$2; shift 2 ;;
	--rtt-count) rtts=$2; shift 2 ;;
	--concurrency) conc=$2; shift 2 ;;
	--fixed) fixed=--fixed; shift ;;
	--trials) trials=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--fraction) frac=$2; shift 2 ;;
	--link) link=$2; shift 2 ;;
	--dir) dir=$2; shift 2 ;;
	--mode) mode=$2; shift 2 ;;
	--topology) topo=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--campaign) campaign=$2; shift 2 ;;
	-h|--help) sed -n '2,50p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "detection.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done

# The judge (both modes): $out/versions.csv (version,t_mono), versions/vV.json,
# trials.csv (trial,t_load,t_end,offset,link,dir), all times in one clock.
judge() {
python3 - "$out" "$scale" "$load_s" <<'PY'
import csv, json, sys
out, scale, load_s = sys.argv[1:]
scale, load_s = float(scale), float(load_s)
trials = [(int(r["trial"]), float(r["t_load"]), float(r["t_end"]), float(r["offset"]),
           r["link"], r["dir"]) for r in csv.DictReader(open(out + "/trials.csv"))]
vers = {int(r["version"]): float(r["t_mono"]) for r in csv.DictReader(open(out + "/versions.csv"))}
mats = {v: json.load(open("%s/versions/v%d.json" % (out, v))) for v in vers}
cl = mats[min(vers)]["clusters"]
names, nc = cl["clusters"], len(cl["clusters"])


def crossing(link, d):
    """The pairs that cross the loaded direction of a cluster's uplink: those
    that leave the cluster (c3>NCSA) or enter it (NCSA>c3)."""
    cname = [e for e in link.split("-") if e in names]
    if not cname:
        sys.exit("detection.sh: link %s is not a cluster's uplink; only uplinks are judged" % link)
    c = names.index(cname[0])
    if d.split(">")[0] == cname[0]:
        return [(c, b) for b in range(nc) if b != c]
    return [(a, c) for a in range(nc) if a != c]


t_first = min(t[1] for t in trials) if trials else float("inf")
before = [v for v in vers if vers[v] <= t_first]
if not before:
    sys.exit("detection.sh: no version of the matrix before the first load: no baseline")
allpairs = {p for t in trials for p in crossing(t[4], t[5])}
base = {p: min(b for b in (mats[v]["clusters"]["bw"][p[0]][p[1]] for v in before)
               if b is not None) for p in allpairs}
whole = [v for v in sorted(vers) if mats[v].get("round_complete", True)]
rs = [mats[v]["clusters"]["round_seconds"] for v in whole]
by = [mats[v]["clusters"]["bytes_sent"] for v in whole]
print()
print("rounds: %d, %.1f-%.1f s each (median %.1f), %.1f-%.1f MB each; %d stages; %d versions" % (
    len(rs), min(rs), max(rs), sorted(rs)[len(rs) // 2], min(by) / 1e6, max(by) / 1e6,
    mats[whole[0]]["clusters"].get("stages", 0), len(vers)))
target = load_s / 4
lat = []
with open(out + "/detection.csv", "w") as f:
    f.write("trial,offset_s,detected,latency_s,latency_paper_s,version,pairs\n")
    for k, t_load, t_end, off, link, d in trials:
        pairs = crossing(link, d)
        det = None
        for v in sorted(vers):
            if vers[v] <= t_load or vers[v] > t_end + 1e-9:
                continue
            bw = mats[v]["clusters"]["bw"]
            dropped = [p for p in pairs if bw[p[0]][p[1]] is not None and base[p] and
                       bw[p[0]][p[1]] < 0.75 * base[p]]
            if dropped:
                det = (v, vers[v] - t_load, dropped)
                break
        if det:
            v, dt, dropped = det
            lat.append(dt)
            names_d = " ".join("%s>%s" % (names[a], names[b]) for a, b in dropped)
            print("trial %d (%.1f s into a round): detected by version %d, %.2f s after the load began "
                  "(%.1f paper s): %s" % (k, off, v, dt, dt / scale, names_d))
            f.write("%d,%.3f,1,%.3f,%.1f,%d,%s\n" % (k, off, dt, dt / scale, v, names_d))
        else:
            lat.append(float("inf"))
            print("trial %d (%.1f s into a round): not detected while the load lasted" % (k, off))
            f.write("%d,%.3f,0,,,,\n" % (k, off))
met = sum(1 for x in lat if x <= target)
print("detection: %d of %d trials within the target %.2f s (%.1f paper s, a quarter of the "
      "shortest load); latency median %s, max %s" % (
      met, len(lat), target, target / scale,
      "%.2f s" % sorted(lat)[len(lat) // 2] if lat and sorted(lat)[len(lat) // 2] != float("inf")
      else "not detected", "%.2f s" % max(lat) if lat and max(lat) != float("inf") else "not detected"))
PY
}

if [ -n "$campaign" ]; then
	command -v python3 >/dev/null || { echo "detection.sh: python3 is not installed" >&2; exit 2; }
	[ -f "$campaign/go.json" ] && [ -f "$campaign/load.csv" ] ||
		{ echo "detection.sh: '$campaign' is not a finished loaded campaign run (no go.json or load.csv)" >&2; exit 2; }
	out=${out:-/tmp/gridbed-detection-$(date +%Y%m%dT%H%M%S)}
	mkdir -p "$out/versions" || exit 1
	exec > >(tee "$out/summary.txt") 2>&1
	# prints "SCALE SHORTEST_LOAD" (topology seconds) for the judge
	read -r scale load_s < <(python3 - "$campaign" "$out" <<'PY'
import calendar, csv, glob, json, os, re, sys, time
run, out = sys.argv[1:]
top = os.path.dirname(os.path.dirname(os.path.abspath(run)))
def fail(msg):
    sys.exit("detection.sh: %s" % msg)
meta = json.load(open(top + "/meta.json"))
k, scale = float(meta.get("dilate") or 1), float(meta["scale"])
go = json.load(open(run + "/go.json"))
ivs = go.get("intervals") or fail("%s: the run had no load" % run)
rows = list(csv.DictReader(open(run + "/load.csv")))
ran = {int(r["interval"]) for r in rows}
how = {}
for r in rows:
    if r["link"]:
        how.setdefault(int(r["interval"]), (r["link"], r["dir"]))
# load.csv has the intervals that ran: those that would have begun after the
# application ended were never started
ivs = [(i, a, b) for i, (a, b) in enumerate(ivs, 1) if i in ran]
if not ivs:
    fail("%s/load.csv: no load ran" % run)
adv = run + "/advisor/advisor.csv"
if os.path.exists(adv):
    a = next(csv.DictReader(open(adv)))
    off, clock = float(a["wall_time"]) - float(a["mono_time"]), "advisor.csv"
else:
    off, clock = time.time() - time.monotonic(), "this machine's clocks now"
# when gridexp saw each version (monitor/versions-s<S>.csv, the run's clock)
seen = {}
for f in glob.glob(top + "/monitor/versions-s*.csv"):
    s = int(re.search(r"versions-s(\d+)\.csv$", f).group(1))
    seen[s] = {int(r["version"]): float(r["t_mono"]) for r in csv.DictReader(open(f))}
# the session whose matrices span the run: the one with most versions inside it
sess = {}
for f in glob.glob(top + "/monitor/matrix-s*-v*.json"):
    m = re.search(r"matrix-s(\d+)-v(\d+)\.json$", f)
    s, v = int(m.group(1)), int(m.group(2))
    j = json.load(open(f))
    if j.get("oracle"):
        fail("%s: an oracle's matrix, not a measurement" % f)
    if s in seen:
        t = seen[s].get(v) or fail("%s: version %d has no row in versions-s%d.csv" % (f, v, s))
    else:
        t = calendar.timegm(time.strptime(j["timestamp"], "%Y-%m-%dT%H:%M:%SZ")) + 0.5 - off
    sess.setdefault(s, {})[v] = (t, f, bool(j.get("round_complete")))
t0, t1 = go["t_go"], ivs[-1][2]
inside = lambda vs: sum(1 for t, _, _ in vs.values() if t0 <= t <= t1)
s = max(sess, key=lambda s: inside(sess[s]), default=None)
if s is None or not inside(sess[s]):
    fail("%s: no matrix of gridmon written during the run (a campaign without a monitor, or an oracle)" % top)
with open(out + "/versions.csv", "w") as f:
    f.write("version,t_mono\n")
    for v, (t, path, _) in sorted(sess[s].items()):
        os.symlink(os.path.abspath(path), "%s/versions/v%d.json" % (out, v))
        f.write("%d,%.3f\n" % (v, t / k))
# each load's offset into gridmon's round: since the last whole round ended
ends = sorted(t for t, _, whole in sess[s].values() if whole)
with open(out + "/trials.csv", "w") as f:
    f.write("trial,t_load,t_end,offset,link,dir\n")
    for i, a, b in ivs:
        if i not in how:
            fail("%s/load.csv: interval %d names no link (only a link's loads are judged)" % (run, i))
        last = max((t for t in ends if t <= a), default=a)
        f.write("%d,%.3f,%.3f,%.3f,%s,%s\n" % (i, a / k, b / k, (a - last) / k, *how[i]))
print("%.17g %.17g" % (scale, min(b - a for i, a, b in ivs) / k))
how_t = "monitor/versions-s%d.csv (when gridexp saw them)" % s if s in seen else \
    "gridmon's timestamps put on the run's clock by %s" % clock
sys.stderr.write("detection.sh: %s, gridmon session %d, %d versions, %d of %d loads ran; dilation %g, "
                 "scale %g; matrix times from %s\n" % (
                     run, s, len(sess[s]), len(ivs), len(go["intervals"]), k, scale, how_t))
PY
	) || exit 2
	echo "load: the run's own; times in the topology's seconds; target: detected within $(awk -v l="$load_s" 'BEGIN {print l / 4}') s (a quarter of the shortest load)"
	judge
	exit
fi
GRIDEMU=$build/emulator/gridemu
GRIDMON=$build/collectives/gridmon
GRIDLOAD=$build/loadgen/gridload
for x in "$GRIDEMU" "$GRIDMON" "$GRIDLOAD"; do
	[ -x "$x" ] || { echo "detection.sh: '$x' is not built" >&2; exit 2; }
done
for c in jq python3; do
	command -v $c >/dev/null || { echo "detection.sh: $c is not installed" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "detection.sh: needs root" >&2; exit 2; }

out=${out:-/tmp/gridbed-detection-$(date +%Y%m%dT%H%M%S)}
mkdir -p "$out/versions" || exit 1
export GRIDBED_PREFIX=dt$(printf '%04x' $(( ($$ ^ RANDOM) & 0xffff )))
export GRIDBED_RUNDIR=${GRIDBED_RUNDIR:-/run/gridbed-bench}
mon_pid= load_pid=
cleanup() {
	for p in $load_pid $mon_pid; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	"$GRIDLOAD" restore >/dev/null 2>&1
	"$GRIDEMU" down >/dev/null 2>&1
	rm -rf "${GRIDBED_RUNDIR:?}/$GRIDBED_PREFIX"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
exec > >(tee "$out/summary.txt") 2>&1

mono() { python3 -c 'import time; print("%.3f" % time.monotonic())'; }
load_s=$(awk -v s="$scale" 'BEGIN {print 360 * s}')     # the shortest load, 6 min
echo "detection.sh: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), git $(git -C "$src" describe --always --dirty 2>/dev/null)"
monopts="--period $period --scale $scale --bytes-per-probe $bytes --rtt-count $rtts ${conc:+--concurrency $conc} $fixed"
echo "topology $(basename "$topo"), gridmon $monopts"
echo "load: $link $dir at $frac, $mode mode, for $load_s s (6 min x $scale); target: detected within $(awk -v l="$load_s" 'BEGIN {print l / 4}') s"
"$GRIDEMU" up "$topo" | head -1 || exit 1
"$GRIDEMU" status | grep '^tcp:'

# shellcheck disable=SC2086 # $monopts is a list of words
"$GRIDMON" --out "$out/matrix.json" $monopts 2>"$out/gridmon.log" &
mon_pid=$!
cat >"$out/load.yaml" <<Y
loads:
  - {start: 0s, duration: ${load_s}s, fraction: $frac, link: $link, dir: "$dir"}
Y
echo "version,t_mono" >"$out/versions.csv"
echo "trial,t_load,t_end,offset,link,dir" >"$out/trials.csv"
# Trials: after two whole rounds (the baseline), and again one whole round
# after each load ended (the matrix is back to idle), wait a random share of
# a round, so that the load does not always begin where a round begins,
# then load for the shortest load interval.
seen=0 whole=0 trial=0 t_load= t_end= t_at= ready_at=2
while :; do
	v=$(jq -r '.version // empty' "$out/matrix.json" 2>/dev/null)
	if [ -n "$v" ] && [ "$v" != "$seen" ]; then
		now=$(mono)
		cp "$out/matrix.json" "$out/versions/v$v.json"
		echo "$v,$now" >>"$out/versions.csv"
		seen=$v
		end=$(jq -r '.round_complete' "$out/versions/v$v.json")
		[ "$end" = true ] && whole=$((whole + 1))
		echo "  version $v at $now ($([ "$end" = true ] && echo "end of a round of $(jq -r '.clusters.round_seconds' "$out/versions/v$v.json") s" || echo "a change in round $(jq -r .round "$out/versions/v$v.json")"))"
		if [ -z "$t_load" ] && [ -z "$t_at" ] && [ "$whole" -ge "$ready_at" ]; then
			[ "$trial" -ge "$trials" ] && break
			rs=$(jq -r '.clusters.round_seconds' "$out/versions/v$v.json")
			off=$(python3 -c "import random; random.seed($seed * 1000 + $trial); print('%.3f' % (random.random() * $rs))")
			t_at=$(awk -v n="$now" -v o="$off" 'BEGIN {printf "%.3f", n + o}')
		fi
	fi
	if [ -n "$t_at" ] && awk -v n="$(mono)" -v a="$t_at" 'BEGIN {exit !(n >= a)}'; then
		trial=$((trial + 1))
		t_load=$(mono) t_at=
		"$GRIDLOAD" run --schedule "$out/load.yaml" --mode "$mode" --quiet >"$out/load-$trial.log" 2>&1 &
		load_pid=$!
		t_end=$(awk -v a="$t_load" -v d="$load_s" 'BEGIN {printf "%.3f", a + d}')
		echo "$trial,$t_load,$t_end,$off,$link,$dir" >>"$out/trials.csv"
		echo "  trial $trial: load on at $t_load ($off s into the round), off at $t_end"
	fi
	if [ -n "$load_pid" ] && ! kill -0 "$load_pid" 2>/dev/null; then
		wait "$load_pid"
		lrc=$? load_pid= t_load=
		[ "$lrc" = 0 ] || { echo "detection.sh: the load failed (gridload exit $lrc):"; cat "$out/load-$trial.log"; exit 1; }
		ready_at=$((whole + 1))
	fi
	kill -0 "$mon_pid" 2>/dev/null || { echo "detection.sh: gridmon died:"; tail -5 "$out/gridmon.log"; exit 1; }
	sleep 0.1
done

judge
