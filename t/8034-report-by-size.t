#!/usr/bin/env bash
# 8034-report-by-size: summary.txt's table of a sweep's median completion
# time by message size, with each size's ratio to the size before (the
# steps of seed 002 s5's "perturbations", read off the text), on hand-made
# results: two algorithms, sizes 1K, 8K, 16K and 1M, three passes, times
# chosen so that the medians and ratios are known:
#   - the table lists the four sizes in order, 1K without a ratio, 16K at
#     x3.00 for `a` (0.01 -> 0.03 s) and x2.00 for `b`;
#   - a campaign of decreasing sizes, each broadcast once, has no table.
source "$(dirname "$0")/lib-netns.sh"
source "$(dirname "$0")/lib-results.sh"
results_setup 8034

mk() { # mk DIR SWEEP(1|0)
	python3 - "$1" "$2" <<'PY'
import os, sys
sys.path.insert(0, os.environ["GRIDBED_SRC"] + "/t")
import results_writer
top, sweep = sys.argv[1], sys.argv[2] == "1"
algos = ["a", "b"]
# median times: a 0.01 0.01 0.03 0.30, b 0.02 0.02 0.04 0.40
times = {"a": {1024: 0.01, 8192: 0.01, 16384: 0.03, 1048576: 0.30},
         "b": {1024: 0.02, 8192: 0.02, 16384: 0.04, 1048576: 0.40}}
if sweep:
    plan = [s for _ in range(3) for s in (1024, 8192, 16384, 1048576)]
else:
    plan = [1048576 - 1000 * i for i in range(12)]
rows = {("unloaded", label): [(size, times[label].get(size, 0.3) * (1 + 0.01 * (i % 3 - 1)), "none")
                              for i, size in enumerate(plan)] for label in algos}
results_writer.write(top, "sweep", algos, ["unloaded"], rows)
PY
}

mk "$tmp/sweep" 1
out=$("$GX" report "$tmp/sweep" --no-plots 2>&1); st=$?
is "$st" 0 "report of a sweep: exit 0"
txt=$(cat "$tmp/sweep/summary.txt" 2>/dev/null)
sed 's/^/# /' <<<"$(grep -A5 'by message size' <<<"$txt")"
like "$txt" "median completion time \\(s\\) by message size, unloaded broadcasts, and x its ratio to the size before:" \
	"summary.txt has the by-size table"
is "$(grep -A5 'by message size' <<<"$txt" | sed -n '3,6p' | awk '{print $1}' | paste -sd' ')" \
	"1K 8K 16K 1M" "  its rows: the four sizes in order"
like "$(grep '^1K ' <<<"$txt")" "^1K +0\\.01 +0\\.02$" "  1K: the medians, no ratio"
like "$(grep '^16K ' <<<"$txt")" "^16K +0\\.03 x3\\.00 +0\\.04 x2\\.00$" "  16K: x3.00 for a, x2.00 for b"
like "$(grep '^1M ' <<<"$txt")" "^1M +0\\.3 x10\\.00 +0\\.4 x10\\.00$" "  1M: x10.00 for both"
is "$(grep -c 'by message size' <<<"$out")" 1 "  the printed summary has it too"

mk "$tmp/decr" 0
"$GX" report "$tmp/decr" --no-plots >/dev/null 2>&1; st=$?
is "$st" 0 "report of decreasing sizes: exit 0"
is "$(grep -c 'by message size' "$tmp/decr/summary.txt")" 0 "  no by-size table: no size was broadcast twice"
done_testing
