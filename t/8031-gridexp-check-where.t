#!/usr/bin/env bash
# 8031-gridexp-check-where: expectation lines restricted to some broadcasts,
# `where: {condition: NAME, size: {ge: B, le: B}}` (docs/formats.md,
# "Expectations"), on a hand-made results directory of a campaign with two
# conditions (c1, p4) and four sizes (1K, 16K, 64K, 1M), algorithms
# mpich-g2 and mateescu: mateescu takes 0.7 x MPICH-G2's time on p4's
# broadcasts of 1K .. 64K and 1.2 x on every other (5 % noise, python's
# seeded random):
#   - with `where: {condition: p4, size: {ge: 1K, le: 64K}}` the line
#     passes, its interval below 0.9 ("better"), and names its restriction;
#     without, the same line fails ("worse"): the point estimate and the
#     resampled interval both come from the kept broadcasts;
#   - an absolute mean, 0.2 s, holds on the sizes up to 64K only; a count
#     (n) counts the kept broadcasts;
#   - --tap and --junit name the restriction too;
#   - a line without `where` prints the same bytes beside lines with one;
#   - an unknown condition is bad input (exit 2, one line naming the
#     place), as are a bad size and `where` on a figure of whole runs.
source "$(dirname "$0")/lib-netns.sh"
require_cmd python3
GX=$GRIDBED_BUILD/experiments/gridexp
[ -x "$GX" ] || bail "gridexp not built at $GX"

tmp=$(mktemp -d /tmp/gb8031.XXXXXX) || bail "mktemp"
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp/r" <<'PY'
import os, random, sys
sys.path.insert(0, os.environ["GRIDBED_SRC"] + "/t")
import results_writer
top = sys.argv[1]
rnd = random.Random(8031)
algos, conds, sizes = ["mpich-g2", "mateescu"], ["c1", "p4"], [1024, 16384, 65536, 1048576]
rows = {}
for cn in conds:
    base = []
    for i in range(24):
        size = sizes[i % 4]
        base.append((size, (0.05 + size / 1048576.0) * (1 + 0.05 * rnd.gauss(0, 1))))
    for label in algos:
        rows[(cn, label)] = []
        for size, t in base:
            if label == "mateescu":
                k = 0.7 if cn == "p4" and size <= 65536 else 1.2
                t = t * k * (1 + 0.05 * rnd.gauss(0, 1))
            rows[(cn, label)].append((size, t, "none"))
results_writer.write(top, "sweep", algos, conds, rows)
PY

cat > "$tmp/where.yaml" <<'YAML'
- {metric: mean, algo: mateescu, le: {times: 0.9, of: mpich-g2}, where: {condition: p4, size: {ge: 1K, le: 64K}}}
- {metric: mean, algo: mateescu, le: 0.2, where: {size: {le: 64K}}}
- {metric: n, algo: mpich-g2, eq: 18, where: {condition: c1, size: {ge: 16K}}}
- {metric: mean, algo: mateescu, le: {times: 0.9, of: mpich-g2}}
YAML
cat > "$tmp/plain.yaml" <<'YAML'
- {metric: mean, algo: mateescu, le: {times: 0.9, of: mpich-g2}}
- {metric: mean, algo: mateescu, le: 0.2}
YAML

out=$("$GX" check "$tmp/r" --expect "$tmp/where.yaml" 2>&1); st=$?
sed 's/^/# /' <<<"$out"
is "$st" 1 "check: exit 1 (the unrestricted line fails)"
like "$out" "^PASS mean mateescu \\[p4, size 1K-64K\\] = [0-9.]+ <= 0\\.9 x mpich-g2's mean [0-9.]+ = [0-9.]+; ratio 0\\.[67][0-9]*, 95 % interval \\[0\\.[67][0-9]*, 0\\.[78][0-9]*\\]: better$" \
	"where p4 and 1K-64K: ratio near 0.7, its interval below 0.9: better"
like "$out" "^PASS mean mateescu \\[size <= 64K\\] = 0\\.0[0-9]+ <= 0\\.2; 0\\.0[0-9]+, 95 % interval \\[0\\.0[0-9]+, 0\\.[01][0-9]*\\]: better$" \
	"where size <= 64K: the absolute mean holds"
like "$out" "^PASS n mpich-g2 \\[c1, size >= 16K\\] = 18 == 18$" "where c1 and >= 16K: 18 of mpich-g2's 48 broadcasts"
like "$out" "^FAIL mean mateescu = [0-9.]+ <= 0\\.9 x mpich-g2's mean [0-9.]+ = [0-9.]+; ratio 1\\.[0-9]+, 95 % interval \\[1\\.[0-9]+, 1\\.[0-9]+\\]: worse$" \
	"without where: the same line, ratio above 1: worse"
like "$out" "^intervals: 95 %, a paired bootstrap over 48 broadcasts in 1 block " \
	"  the first line says the whole set's broadcasts"

out=$("$GX" check "$tmp/r" --expect "$tmp/plain.yaml" 2>&1); st=$?
is "$st" 1 "without where: exit 1"
like "$out" "^FAIL mean mateescu = 0\\.[3-9][0-9]* <= 0\\.2; " "  the mean over every size fails"
is "$(grep '^FAIL mean mateescu = .* 0.9 x' <<<"$out")" \
	"$("$GX" check "$tmp/r" --expect "$tmp/where.yaml" 2>&1 | grep '^FAIL mean mateescu = .* 0.9 x')" \
	"  a line without where prints the same bytes beside lines with one"

tap=$("$GX" check "$tmp/r" --expect "$tmp/where.yaml" --tap --junit "$tmp/j.xml" 2>&1)
like "$tap" "^ok 1 - mean mateescu \\[p4, size 1K-64K\\] = " "--tap names the restriction"
like "$(cat "$tmp/j.xml" 2>/dev/null)" "mean mateescu \\[p4, size 1K-64K\\] = " "--junit names it"

bad() { # bad YAML PATTERN NAME
	local err st
	printf '%s\n' "$1" > "$tmp/bad.yaml"
	err=$("$GX" check "$tmp/r" --expect "$tmp/bad.yaml" 2>&1 >/dev/null); st=$?
	is "$st:$(wc -l <<<"$err")" "2:1" "$3: exit 2, one line"
	like "$err" "$2" "  $err"
}
bad "- {metric: mean, algo: mateescu, le: 1, where: {condition: p9}}" \
	"^gridexp: check: $tmp/bad.yaml:1:[0-9]+: expectation 1: where: condition 'p9' is not a load condition of the campaign \\(c1, p4\\)$" \
	"an unknown condition"
bad "- {metric: mean, algo: mateescu, le: 1, where: {size: {ge: lots}}}" \
	"^$tmp/bad.yaml:1:[0-9]+: where: size: ge 'lots' is not a size in bytes" "a bad size"
bad "- {metric: runs, algo: mateescu, eq: 2, where: {condition: p4}}" \
	"^$tmp/bad.yaml:1:[0-9]+: expectation 1: metric 'runs' is a figure of whole runs" \
	"where on a figure of whole runs"
done_testing
