#!/usr/bin/env bash
# 8028-gridexp-check-ci - `gridexp check`'s intervals and its outputs for
# CI systems on hand-made results (issue 45, "Verdicts with confidence";
# docs/formats.md, "Expectations"): two seeds' directories of a campaign
# "fig8" in which adaptive takes 0.8 x MPICH-G2's time on each broadcast
# and mateescu 1.0 x, each with 15 % noise (python's seeded random, so
# the data and the intervals are the same on every run):
#   - the text states the level, the broadcasts and seeds, the resamples and
#     the seed, and each line on a mean its interval and verdict: adaptive
#     better than 0.95 x, mateescu's 1.0 x not distinguishable from 1.05 x,
#     where its point estimate alone passes;
#   - exit 1 when a line fails, 0 when all pass;
#   - --junit FILE is read back by a real JUnit reader (python3-junitparser):
#     as many cases and failures as the text has lines and FAILs;
#   - --tap is read back by Perl's TAP::Parser: the plan and the same verdicts;
#   - the same options give the same output; --resamples 0 gives the point
#     estimates' verdicts and no interval;
#   - bad options and an unwritable --junit are refused with one line, exit
#     2, nothing written; the options are check's only.
source "$(dirname "$0")/lib-netns.sh"
source "$(dirname "$0")/lib-results.sh"
require_cmd perl
results_setup 8028

# SEED: 30 broadcasts, every other loaded; adaptive 0.8 x, mateescu 1.0 x
spec() {
	python3 - "$1" <<'PY'
import random, sys
r = random.Random(int(sys.argv[1]))
m, a, t = [], [], []
for i in range(30):
    base = 1 + 0.3 * abs(r.gauss(0, 1))
    ld = i % 2
    m.append((round(base, 6), ld, 10000))
    a.append((round(base * 0.8 * (1 + 0.15 * r.gauss(0, 1)), 6), ld, 9000))
    t.append((round(base * (1 + 0.15 * r.gauss(0, 1)), 6), ld, 20000))
print(repr({'mpich-g2': m, 'adaptive': a, 'mateescu': t}))
PY
}
make_results "$tmp/s1" fig8 301 "$(spec 301)"
make_results "$tmp/s2" fig8 302 "$(spec 302)"
cat > "$tmp/e.yaml" <<'YAML'
- {metric: loaded_mean, algo: adaptive, le: {times: 0.95, of: mpich-g2}}
- {metric: unloaded_mean, algo: adaptive, le: {times: 0.95, of: mpich-g2}}
- {metric: mean, algo: mateescu, le: {times: 1.05, of: mpich-g2}}
- {metric: broadcasts, algo: "*", eq: 60}
YAML
grep -v mateescu "$tmp/e.yaml" > "$tmp/good.yaml"

out=$("$GX" check "$tmp/s1" "$tmp/s2" --expect "$tmp/e.yaml" 2>&1); st=$?
sed 's/^/# /' <<<"$out"
is "$st" 1 "check: exit 1 (mateescu's line fails)"
like "$out" "^intervals: 95 %, a paired bootstrap over 60 broadcasts in 2 blocks \\(a seed each\\), 2000 resamples, seed 1$" \
	"  the first line says how the intervals were made"
like "$out" "^PASS loaded_mean adaptive = [0-9.]+ <= 0\\.95 x mpich-g2's loaded_mean [0-9.]+ = [0-9.]+; ratio 0\\.[78][0-9]*, 95 % interval \\[0\\.[67][0-9]*, 0\\.[89][0-9]*\\]: better$" \
	"  adaptive loaded: a ratio near 0.8, its interval below 0.95: better"
like "$out" "^FAIL mean mateescu = [0-9.]+ <= 1\\.05 x mpich-g2's mean [0-9.]+ = [0-9.]+; ratio 1\\.0[0-4][0-9]*, 95 % interval \\[0\\.9[0-9]*, 1\\.0[5-9][0-9]*\\]: not distinguishable$" \
	"  mateescu: a ratio below 1.05 whose interval straddles it: not distinguishable"
is "$(grep -c '^PASS broadcasts .* == 60$' <<<"$out")" 3 "  a count keeps its point verdict, no interval"
like "$out" "^1 expectation failed$" "  one failed"

out2=$("$GX" check "$tmp/s1" "$tmp/s2" --expect "$tmp/e.yaml" 2>&1)
is "$out2" "$out" "the same data and options: the same output"
out3=$("$GX" check "$tmp/s1" "$tmp/s2" --expect "$tmp/e.yaml" --ci-seed 9 --resamples 500 --level 0.9 2>&1)
like "$out3" "^intervals: 90 %, .*, 500 resamples, seed 9$" "--level, --resamples, --ci-seed are stated"
out4=$("$GX" check "$tmp/s1" "$tmp/s2" --expect "$tmp/e.yaml" --resamples 0 2>&1); st=$?
is "$st:$(grep -c 'interval' <<<"$out4")" "0:0" "--resamples 0: no interval, and every line passes on its point estimate"
like "$out4" "^PASS mean mateescu = " "  and the point estimate alone passes mateescu's line"

"$GX" check "$tmp/s1" "$tmp/s2" --expect "$tmp/good.yaml" >/dev/null 2>&1
is "$?" 0 "every line better: exit 0"

# JUnit, read back by a real reader (Debian's python3-junitparser)
"$GX" check "$tmp/s1" "$tmp/s2" --expect "$tmp/e.yaml" --junit "$tmp/j.xml" > "$tmp/j.out" 2>&1
is "$?" 1 "--junit: the same exit status"
PY=
for p in /usr/bin/python3 python3; do
	"$p" -c 'import junitparser' 2>/dev/null && { PY=$p; break; }
done
if [ -z "$PY" ]; then
	skip 3 "no JUnit reader: python3-junitparser is not installed (cmake/bootstrap deps installs it)"
else
	jr=$("$PY" - "$tmp/j.xml" <<'PY'
import sys
from junitparser import JUnitXml, Failure
x = JUnitXml.fromfile(sys.argv[1])
for s in x:
    cases = list(s)
    fails = [c for c in cases if any(isinstance(r, Failure) for r in c.result)]
    props = {p.name: p.value for p in s.properties()}
    print(s.name.split('/')[-1], s.tests, s.failures, len(cases), len(fails), props['resamples'],
          props['seed'], props['blocks'], props['broadcasts'])
    for c in fails:
        print('FAILED', c.name.split(' ')[1], c.result[0].message)
PY
)
	sed 's/^/# /' <<<"$jr"
	like "$jr" "^e\\.yaml 6 1 6 1 2000 1 2 60$" "  junitparser: 6 cases, 1 failure, the resampling's properties"
	like "$jr" "FAILED mateescu not distinguishable" "  the failure is mateescu's, with its verdict"
	is "$(grep -c '^[A-Z]' "$tmp/j.out")" "$(grep -c '^[PF]A[SI][SL] ' "$tmp/j.out")" \
		"  and the text still goes to stdout"
fi

# TAP, read back by Perl's TAP::Parser
"$GX" check "$tmp/s1" "$tmp/s2" --expect "$tmp/e.yaml" --tap > "$tmp/t.tap" 2>&1
is "$?" 1 "--tap: the same exit status"
tr=$(perl -MTAP::Parser -e 'my $p = TAP::Parser->new({source => $ARGV[0]}); $p->run;
	printf "%d %d %d %s\n", scalar($p->passed), scalar($p->failed), $p->tests_planned, $p->version' \
	"$tmp/t.tap" 2>&1)
is "$tr" "5 1 6 13" "  TAP::Parser: 5 passed, 1 failed of 6 planned, TAP version 13"

# bad input: one line, exit 2, nothing written
for args in "--level 2" "--level x" "--resamples 5" "--resamples -1" "--ci-seed -3" \
	"--junit $tmp/nodir/j.xml" "--junit $tmp"; do
	rm -f "$tmp/j.xml"
	# shellcheck disable=SC2086
	err=$("$GX" check "$tmp/s1" "$tmp/s2" --expect "$tmp/e.yaml" $args 2>&1 >/dev/null); st=$?
	is "$st:$(wc -l <<<"$err"):$([ -e "$tmp/j.xml" ] || [ -e "$tmp/nodir" ]; echo $?)" "2:1:1" \
		"check $args: exit 2, one line ($err), nothing written"
done
err=$("$GX" run "$tmp/none.yaml" --tap 2>&1); st=$?
is "$st:$err" "2:gridexp: run: --level, --resamples, --ci-seed, --junit and --tap are options of 'gridexp check'" \
	"run --tap: refused, it is check's"
err=$("$GX" report "$tmp/s1" --tap 2>&1); st=$?
is "$st:$(wc -l <<<"$err")" "2:1" "report --tap: refused in one line ($err)"

# the report's intervals
out=$("$GX" report "$tmp/s1" "$tmp/s2" 2>&1)
like "$out" "^95 % intervals \\(a paired bootstrap over 60 broadcasts in 2 blocks" "report: the intervals' table"
like "$out" "^adaptive +[0-9.]+ \\[[0-9.]+, [0-9.]+\\] +[0-9.]+ \\[[0-9.]+, [0-9.]+\\] +[0-9.]+ \\[[0-9.]+, [0-9.]+\\]" \
	"  adaptive: its means and its gain with intervals"
"$GX" report "$tmp/s1" --no-plots >/dev/null 2>&1
is "$(jq -c '.intervals | [.level, .resamples, .seed, .blocks, .broadcasts, (.algorithms.adaptive.loaded_mean.lo < .algorithms.adaptive.loaded_mean.hi)]' "$tmp/s1/summary.json")" \
	"[0.95,2000,1,1,30,true]" "  summary.json: intervals"
done_testing
