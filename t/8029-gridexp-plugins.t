#!/usr/bin/env bash
# 8029-gridexp-plugins: planners from outside gridbed in a campaign
# (docs/plugins.md, issue 45).  Both examples are copied out of the tree:
# the C plugin is built there with its own Makefile, and both example
# campaign files are checked as a user would run them (--dry-run: their
# planners resolved against their own folder).  Then one short campaign
# (ci-smoke's grid, application and cut) runs MPICH-G2, the adaptive
# broadcast with the plugin as its advisor's planner, the plugin, the
# external planner and a plugin that crashes at every request: every run
# completes with every buffer right, and so does the example of your own
# MPI_Bcast (a PMPI library, built with mpicc, preloaded instead of
# libgridbcast.so); the crashing one along the labelled
# fallback tree (counted in `fallbacks`), and `gridexp check --junit`
# gives the examples' verdicts, with intervals, in JUnit XML that a JUnit
# reader (Python's xml.etree) parses.
. "$(dirname "$0")/lib-netns.sh"

require_gridexp
require_cmd cc
require_cmd make
require_cmd python3

gridexp_tmp 8029


cp -r "$GRIDBED_SRC/examples/planner-plugin" "$tmp/plugin"
cp -r "$GRIDBED_SRC/examples/external-planner" "$tmp/external"
cp -r "$GRIDBED_SRC/examples/own-bcast" "$tmp/own"
rm -f "$tmp/plugin/"*.so "$tmp/own/"*.so
make -s -C "$tmp/plugin" GRIDBED="$GRIDBED_SRC" >/dev/null 2>&1
ok $? "the example plugin builds out of the tree"
make -s -C "$tmp/own" >/dev/null 2>&1
ok $? "the example MPI_Bcast library builds out of the tree (mpicc)"
for d in plugin external own; do
	sed -i "s|^topology: .*|topology: $TOPOS/two-clusters.yaml|" "$tmp/$d/campaign.yaml"
done
out=$("$GX" run "$tmp/plugin/campaign.yaml" --dry-run 2>&1); st=$?
is "$st" 0 "examples/planner-plugin/campaign.yaml checks out of the tree"
like "$out" "run cut-earliest-first-r1: GRIDBED_BCAST=plugin:$tmp/plugin/earliest-first.so" \
	"  its planner resolved against the campaign's folder"
out=$("$GX" run "$tmp/external/campaign.yaml" --dry-run 2>&1); st=$?
is "$st" 0 "examples/external-planner/campaign.yaml checks out of the tree"
like "$out" "run cut-coordinators-r1: GRIDBED_BCAST=external:$tmp/external/coordinators.py" \
	"  its planner resolved against the campaign's folder"
out=$("$GX" run "$tmp/own/campaign.yaml" --dry-run 2>&1); st=$?
is "$st" 0 "examples/own-bcast/campaign.yaml checks out of the tree"
like "$out" "run cut-my-flat-r1: LD_PRELOAD=$tmp/own/flat-bcast.so \\(its own MPI_Bcast\\)" \
	"  its library preloaded instead of libgridbcast.so"

# a plugin that crashes at every request
cc -shared -fPIC -I"$GRIDBED_SRC/include" -o "$tmp/crash.so" "$GRIDBED_SRC/t/plugins/crash.c" ||
	bail "cannot build the crashing plugin"

cat >"$tmp/c.yaml" <<EOF
name: plugins
topology: $TOPOS/two-clusters.yaml
scale: 0.02
seed: 1
planners:
  earliest-first: plugin:plugin/earliest-first.so
  coordinators: external:external/coordinators.py
  crash: plugin:crash.so
  my-flat: library:own/flat-bcast.so
algorithms: [mpich-g2, "adaptive:earliest-first", earliest-first, coordinators, crash, my-flat]
app:
  root: a-1
  broadcasts: 6
  size: {first: 256K, last: 32K}
  gap: {first: 50s, factor: 0.9}
load:
  name: cut
  mode: shape
  loads:
    - {start: 120s, duration: 300s, fraction: 80%, link: siteA-siteB}
monitor: {period: 300s, bytes_per_probe: 256K, rtt_count: 5}
EOF
"$GX" run "$tmp/c.yaml" --prefix "$GB_PREFIX" --out-root "$tmp/res" >"$tmp/run.out" \
	2>"$tmp/run.err"; st=$?
is "$st" 0 "the campaign runs (exit 0)" || sed 's/^/#   /' "$tmp/run.err" | tail -20
dir=$(ls -d "$tmp"/res/plugins/2*/ 2>/dev/null | head -1)
dir=${dir%/}
S=$dir/summary.json
is "$(jq -r '.runs_complete' "$S" 2>/dev/null)" 6 "6 runs of 6 complete"
for a in mpich-g2 adaptive:earliest-first earliest-first coordinators crash my-flat; do
	is "$(jq -r --arg a "$a" '.algorithms[$a].mismatches' "$S" 2>/dev/null)" 0 \
		"$a: every rank's buffer right"
done
is "$(jq -r '.algorithms["earliest-first"].fallbacks' "$S")" 0 "the plugin's own trees, no fallback"
is "$(jq -r '.algorithms.coordinators.fallbacks' "$S")" 0 "the external planner's own trees"
is "$(jq -r '.algorithms.crash.fallbacks' "$S")" 6 \
	"the crashing plugin: all 6 broadcasts went down the fallback tree, counted"
rows=$dir/runs/cut-crash-r1/broadcasts.csv
like "$(python3 -c 'import csv, sys
print("\n".join(sorted({r["model"] for r in csv.DictReader(open(sys.argv[1]))})))' "$rows")" \
	"^FALLBACK mpich-g2: plugin:$tmp/crash.so: crashed \\(signal 11" \
	"  each row says FALLBACK mpich-g2 and why"
vias=$(python3 -c 'import csv, sys
print(" ".join(sorted({r["tree_via"] for r in csv.DictReader(open(sys.argv[1]))})))' \
	"$dir/runs/cut-adaptive_earliest-first-r1/broadcasts.csv")
like "$vias" "advisor" "adaptive:earliest-first: broadcasts on the advisor's trees ($vias)"

is "$(jq -r '.algorithms["my-flat"].broadcasts' "$S")" 6 "the own MPI_Bcast: 6 broadcasts measured"

# the examples' verdicts, with intervals, for CI
cp "$tmp/plugin/expect.yaml" "$tmp/expect.yaml"
grep -v '^#\|^- {metric: \(failed_runs\|mismatches\)' "$tmp/external/expect.yaml" >>"$tmp/expect.yaml"
"$GX" check "$dir" --expect "$tmp/expect.yaml" --junit "$tmp/check.xml" >"$tmp/check.out" \
	2>&1; st=$?
ok "$([ "$st" = 0 ] || [ "$st" = 1 ]; echo $?)" "gridexp check gives a verdict (exit $st)"
like "$(cat "$tmp/check.out")" "^PASS mismatches earliest-first = 0" "  mismatches pass"
like "$(cat "$tmp/check.out")" \
	"mean earliest-first = .* ratio [0-9.]+, 95 % interval \\[[0-9.]+, [0-9.]+\\]: (better|worse|not distinguishable)" \
	"  the mean line has its ratio, interval and verdict"
n=$(python3 -c 'import sys, xml.etree.ElementTree as E
s = E.parse(sys.argv[1]).getroot()
s = s if s.tag == "testsuite" else s.find("testsuite")
print(len(s.findall("testcase")))' "$tmp/check.xml" 2>&1)
is "$n" "$(grep -c '^\(PASS\|FAIL\)' "$tmp/check.out")" \
	"--junit: a JUnit reader finds a testcase per line of the check"
is "$(prefix_netns | wc -l)" 0 "the grid is down afterwards"
done_testing
