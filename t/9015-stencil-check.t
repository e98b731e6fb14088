#!/usr/bin/env bash
# 9015-stencil-check - experiments/stencil-transatlantic-check.sh, seed
# 004's verdict judge, on hand-made summary.json files (no grid, no run):
#   - a repetition with the paper's figures passes its five lines;
#   - one slower than the paper, with 2 groups compressed, depth 2, a
#     spectrum that tops out at 95 % and a periodic group above a noisy one
#     fails each of them, with the figure in the line;
#   - with three repetitions (two good, one bad) the median's lines pass:
#     speed-up 3.5, 5 groups, depth 3, each group's median ratio;
#   - a missing figure fails its line and says which; a directory without
#     summary.json, a summary.json that is not JSON, an expectation that is
#     not a number, an unknown option and no directory exit 2 with one line.
source "$(dirname "$0")/lib-netns.sh"
require_cmd python3
gb_tmpdir 9015
CHECK=$GRIDBED_SRC/experiments/stencil-transatlantic-check.sh

mk() { # mk DIR SPEEDUP COMPRESSED DEPTH P0 P1 P2 N0 N1
	mkdir -p "$1"
	python3 - "$@" <<'PY'
import json, sys
d, sp, c, dp = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
p, n = [float(x) for x in sys.argv[5:8]], [float(x) for x in sys.argv[8:10]]
defl = {"periodic%d" % i: {"ratio": v} for i, v in enumerate(p)}
defl.update({"noisy%d" % i: {"ratio": v} for i, v in enumerate(n)})
defl.update({"pulse0": {"ratio": 0.5}, "pulse1": {"ratio": 0.5}, "wave0": {"ratio": 0.6},
             "wave1": {"ratio": 0.6}})
json.dump({"speedup_mean": sp, "runs": {"grid": {"groups_compressed": c, "groups": 9,
           "final_depth": dp, "deflate": defl}}}, open(d + "/summary.json", "w"))
PY
}
mk "$tmp/good" 3.5 5 3 0.05 0.08 0.12 0.70 0.72
mk "$tmp/good2" 3.6 5 4 0.06 0.09 0.11 0.71 0.75
mk "$tmp/bad" 1.8 2 2 0.20 0.30 0.96 0.90 0.95

out=$("$CHECK" "$tmp/good" 2>&1); st=$?
is "$st" 0 "the paper's figures: exit 0"
is "$(grep -c '^PASS' <<<"$out")" 5 "  five lines pass"
like "$out" "PASS good +speed-up +3\.50x \(paper 3-4x\)" "  the speed-up line shows the figure and the bound"

out=$("$CHECK" "$tmp/bad" 2>&1); st=$?
is "$st" 1 "a repetition unlike the paper: exit 1"
like "$out" "FAIL bad +speed-up +1\.80x \(paper 3-4x: less than the paper's\)" "  speed-up below the paper's"
like "$out" "FAIL bad +groups compressed +2 of 9 \(paper 5 of 9\)" "  2 groups compressed"
like "$out" "FAIL bad +ghost depth +2 \(paper 3-4\)" "  depth 2"
like "$out" "FAIL bad +deflate spectrum +20\.0-96\.0 %" "  a spectrum from 20 to 96 %"
like "$out" "FAIL bad +periodic < noisy +periodic at most 96\.0 %, noisy at least 90\.0 %" \
	"  a periodic group above a noisy one"
like "$out" "0 of 5 lines passed" "  the count"

out=$("$CHECK" "$tmp/good" "$tmp/bad" "$tmp/good2" 2>&1); st=$?
is "$st" 1 "three repetitions, one unlike the paper: exit 1 (its lines fail)"
like "$out" "PASS median of 3 +speed-up +3\.50x" "  the median speed-up, 3.5"
like "$out" "PASS median of 3 +groups compressed +5 of 9" "  the median count of groups, 5"
like "$out" "PASS median of 3 +ghost depth +3 " "  the median depth, 3"
like "$out" "PASS median of 3 +deflate spectrum +6\.0-75\.0 %" "  each group's median ratio"
like "$out" "15 of 20 lines passed" "  fifteen of twenty (the bad repetition's five fail)"

mkdir -p "$tmp/none"
echo '{"runs": {"grid": {"groups": 9}}}' >"$tmp/none/summary.json"
out=$("$CHECK" "$tmp/none" 2>&1); st=$?
is "$st" 1 "figures missing: exit 1"
like "$out" "FAIL none +speed-up +no speedup_mean in summary.json" "  the missing figure is named"
like "$out" "FAIL none +deflate spectrum +no runs\.grid\.deflate" "  no deflate ratios"

mkdir -p "$tmp/empty"
out=$("$CHECK" "$tmp/empty" 2>&1); st=$?
is "$st $out" "2 stencil-transatlantic-check.sh: $tmp/empty: no summary.json" \
	"a directory without summary.json: one line, exit 2"
echo '{"speedup_mean": ' >"$tmp/empty/summary.json"
out=$("$CHECK" "$tmp/empty" 2>&1); st=$?
like "$st $(wc -l <<<"$out") $out" "^2 1 stencil-transatlantic-check.sh: $tmp/empty/summary.json: Expecting value" \
	"a summary.json that is not JSON: one line, exit 2"
rm "$tmp/empty/summary.json"
sed 's/^speedup_low: 3/speedup_low: three/' "$GRIDBED_SRC/experiments/stencil-transatlantic-expect.yaml" \
	>"$tmp/bad-expect.yaml"
out=$("$CHECK" "$tmp/good" --expect "$tmp/bad-expect.yaml" 2>&1); st=$?
like "$st $out" "^2 stencil-transatlantic-check.sh: $tmp/bad-expect.yaml:[0-9]+: speedup_low: 'three' is not a number$" \
	"an expectation that is not a number: one line naming the place, exit 2"
out=$("$CHECK" --bogus 2>&1); st=$?
is "$st $out" "2 stencil-transatlantic-check.sh: unknown option '--bogus'" "an unknown option"
out=$("$CHECK" 2>&1); st=$?
is "$st $out" "2 stencil-transatlantic-check.sh: no results directory (see --help)" "no directory"
done_testing
