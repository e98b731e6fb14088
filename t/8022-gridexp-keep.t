#!/usr/bin/env bash
# 8022-gridexp-keep - `gridexp keep DIR DEST` copies what report, check and
# run --resume read of a results directory, and nothing else: a campaign
# split over sessions (issue 13) must outlive the machine it began on, and
# its raw samples are too large to commit.  A hand-made directory (two
# complete runs, one interrupted, the bulky files a real run leaves) is
# kept; the kept copy must report the same summary as the original, leave
# the bulky files out, and bad input must change nothing.
source "$(dirname "$0")/lib-netns.sh"
source "$(dirname "$0")/lib-results.sh"
results_setup 8022

plan 26

R=$tmp/results
make_results "$R" fig8 9 "{'mpich-g2': [(2.0, 1, 10000), (1.0, 0, 10000)],
	'adaptive': [(1.5, 1, 9000), (1.2, 0, 9000)]}"
echo "name: fig8" > "$R/campaign.yaml"
echo "name: grid" > "$R/topology.yaml"
echo '{"chosen": 2}' > "$R/calibrate.json"
mkdir -p "$R/monitor" "$R/runs/paper-mateescu-r1.tmp" "$R/runs/paper-adaptive-r1/advisor"
echo "gridmon session 1" > "$R/monitor/gridmon-s1.log"
printf 'version,t_mono\n1,100.0\n' > "$R/monitor/versions-s1.csv"
echo '{"matrix": []}' > "$R/monitor/matrix-s1-v1.json"
printf 'index,seconds\n0,1\n' > "$R/runs/paper-adaptive-r1/tcp-broadcasts.csv"
printf 'size,planner\n1000,clustered-sa\n' > "$R/runs/paper-adaptive-r1/advisor/advisor.csv"
echo '{"tree": 1}' > "$R/runs/paper-adaptive-r1/advisor/tree-1000.json"
head -c 100000 /dev/zero > "$R/runs/paper-adaptive-r1/capture.csv"
head -c 100000 /dev/zero > "$R/runs/paper-adaptive-r1/tcp.csv"
echo '{}' > "$R/runs/paper-adaptive-r1/record.jsonl"
echo partial > "$R/runs/paper-mateescu-r1.tmp/broadcasts.csv"
"$GX" report "$R" --no-plots > "$tmp/before.txt" 2>&1
before=$(cd "$R" && find . | sort)

out=$("$GX" keep "$R" "$tmp/kept/seed9" 2>&1)
st=$?
sed 's/^/# /' <<<"$out"
is "$st:$(wc -l <<<"$out")" "0:1" "keep DIR DEST: exit 0, one line"
like "$out" "^kept 2 complete runs \\(1 left out: not complete\\), 18 files, [0-9.]+ kB, in $tmp/kept/seed9$" \
	"  it says what it kept"
K=$tmp/kept/seed9
t "  the inputs, meta.json and the summary" \
	test -s "$K/campaign.yaml" -a -s "$K/topology.yaml" -a -s "$K/meta.json" -a -s "$K/summary.txt"
is "$(jq -r .chosen "$K/calibrate.json" 2>/dev/null)" 2 "  and run --dilate auto's calibrate.json, when there is one"
t "  a run's marker, run.json, broadcasts.csv, wan.csv" \
	test -e "$K/runs/paper-mpich-g2-r1/complete" -a -s "$K/runs/paper-mpich-g2-r1/run.json" \
	-a -s "$K/runs/paper-mpich-g2-r1/broadcasts.csv" -a -s "$K/runs/paper-mpich-g2-r1/wan.csv"
t "  the TCP per broadcast and the advisor's log" \
	test -s "$K/runs/paper-adaptive-r1/tcp-broadcasts.csv" -a -s "$K/runs/paper-adaptive-r1/advisor/advisor.csv"
t "  gridmon's session log and versions (what --resume counts on)" \
	test -s "$K/monitor/gridmon-s1.log" -a -s "$K/monitor/versions-s1.csv"
ok "$(cd "$K" && [ ! -e monitor/matrix-s1-v1.json ] && [ ! -e runs/paper-adaptive-r1/capture.csv ] &&
	[ ! -e runs/paper-adaptive-r1/tcp.csv ] && [ ! -e runs/paper-adaptive-r1/record.jsonl ] &&
	[ ! -e runs/paper-adaptive-r1/advisor/tree-1000.json ]; echo $?)" \
	"  not the matrices, the samples, the record, the trees"
ok "$([ ! -e "$K/runs/paper-mateescu-r1.tmp" ] && [ ! -e "$K/runs/paper-mateescu-r1" ]; echo $?)" \
	"  not the interrupted run"
is "$(cd "$R" && find . | sort)" "$before" "  the original is untouched"
ok "$(ls "$tmp/kept" | grep -c tmp)" "  no temporary directory left"

"$GX" report "$K" --no-plots > "$tmp/after.txt" 2>&1
is "$(sed "s|$K|DIR|g" "$tmp/after.txt" | grep -v '^paper-mateescu-r1: ')" \
	"$(sed "s|$R|DIR|g" "$tmp/before.txt" | grep -v '^paper-mateescu-r1: ')" \
	"report on the kept copy prints the original's summary"
like "$(cat "$tmp/after.txt")" "^paper-mateescu-r1: not run yet$" \
	"  where the interrupted run is one not run yet (--resume runs it)"

out=$("$GX" keep "$R" "$K" 2>&1)
st=$?
is "$st:$out" "2:gridexp: keep: $K: exists (give a new directory)" \
	"an existing DEST: exit 2, one line"
out=$("$GX" keep "$tmp/nothing" "$tmp/kept/x" 2>&1)
st=$?
is "$st:$out" "2:gridexp: keep: $tmp/nothing: not a results directory (no meta.json)" \
	"a DIR that is not results: exit 2, one line"
ok "$([ ! -e "$tmp/kept/x" ]; echo $?)" "  nothing made"

# issue 49: an empty DEST, or one under a file, is bad input, and nothing is made
cd "$tmp" || bail "cd $tmp"
for d in "" "$R/meta.json/x" "$R/meta.json/x/y/"; do
	out=$("$GX" keep "$R" "$d" 2>&1)
	st=$?
	like "$st:$out" "^2:gridexp: keep: DEST '$d'" "DEST '$d': exit 2, one line that names it ($out)"
	ok "$(ls -a "$tmp" | grep -c '\.tmp-')" "  no temporary directory made"
done
cd - >/dev/null || bail "cd -"
# DEST with a trailing slash is the same directory (session 51: it used to
# put the temporary copy inside it and leave it empty)
out=$("$GX" keep "$R" "$tmp/kept/slash/" 2>&1)
ok "$([ -f "$tmp/kept/slash/meta.json" ]; echo $?)" "DEST 'DIR/': the copy is DIR ($out)"
ok "$(ls -a "$tmp/kept/slash" | grep -c '\.tmp-')" "  with no temporary directory inside"
rm -rf "$tmp/kept/slash"
rm "$R/campaign.yaml"
out=$("$GX" keep "$R" "$tmp/kept/y" 2>&1)
st=$?
is "$st:$out" "1:gridexp: keep: $R/campaign.yaml: No such file or directory" \
	"a results directory without its campaign file: exit 1, one line"
ok "$(ls "$tmp/kept" | grep -v '^seed9$' | wc -l | grep -qx 0; echo $?)" \
	"  neither DEST nor its temporary directory is left"
