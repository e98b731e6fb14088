#!/usr/bin/env bash
# 8012-gridexp-phoenix: the Fig. 5 experiment of seed 001 s4.2 as a campaign
# (experiments/phoenix-fig5.yaml), small: topologies/three-clusters.yaml,
# 12 ranks, binomial over a shuffled rank order, phoenix, magpie, three 1 KB
# broadcasts each.
#   - a `phoenixd:` key without the phoenix algorithm is refused (exit 2,
#     one line naming the place, nothing made);
#   - the shipped campaign file passes --dry-run on phoenix.yaml (168 hosts);
#   - gridexp runs phoenixd once before the runs, checks every one of its 12
#     trees itself (phoenixd/s1/wan-check.csv: all wide-area optimal) and
#     records it in meta.json and the summary;
#   - the phoenix runs used phoenixd's tree for the root (broadcasts.csv:
#     model "phoenixd .../initial/a-1.json", sent in the header, no
#     fallback), and every rank's parent in ranks.csv is that tree's;
#   - the ranks ran in the campaign's shuffled order (each run's
#     rankmap.json = the --dry-run order, the root at rank 0, not the
#     clusters' order), every rank started without a barrier (start:
#     clock, recorded), and the arrivals plot (Fig. 5) is a PNG;
#   - `gridexp check` passes the structural expectations; the grid is down.
# Nothing is timed: the paper's timing claims are a result
# (experiments/phoenix-fig5-expect.yaml, docs/measurements.md), not a test.
. "$(dirname "$0")/lib-netns.sh"

require_gridexp
[ -x "$GRIDBED_BUILD/collectives/phoenixd" ] || bail "phoenixd not built"
require_cmd gnuplot

gridexp_tmp 8012

plan 21

# --- bad input ---------------------------------------------------------------
cat > "$tmp/bad.yaml" <<EOF
name: bad
topology: $TOPOS/three-clusters.yaml
algorithms: [binomial, magpie]
phoenixd: {round_ms: 500}
EOF
out=$("$GX" run "$tmp/bad.yaml" --prefix "$GB_PREFIX" --out-root "$tmp/res" 2>&1); st=$?
is "$st" 2 "phoenixd without the phoenix algorithm: exit 2"
like "$out" "^$tmp/bad.yaml:4:11: phoenixd: no algorithm of the campaign is 'phoenix'" \
	"  file:line:col: message"
is "$(prefix_netns | wc -l)$( [ -e "$tmp/res" ] && echo ' results')" 0 "  no grid, no results"

# --- the shipped file, 168 hosts, dry --------------------------------------------
out=$("$GX" run "$GRIDBED_SRC/experiments/phoenix-fig5.yaml" --dry-run 2>&1); st=$?
is "$st" 0 "experiments/phoenix-fig5.yaml passes --dry-run"
is "$(printf '%s\n' "$out" | grep -cE '168 hosts, root c1-1|^ranks: shuffle order \(seeded\); start: clock \(no barrier\); wait: sleep$|^phoenixd: runs once')" 3 \
	"  168 hosts, shuffled ranks, clock start, phoenixd"

# --- the small campaign ----------------------------------------------------------
# at k = 1 (the shipped file's `dilate: 10` is t/8032's case)
sed -e "s#^topology: .*#topology: $TOPOS/three-clusters.yaml#" -e 's/^name: .*/name: t8012/' \
	-e 's/^dilate: .*/dilate: 1/' \
	-e 's/root: c1-1/root: a-1/' -e 's/broadcasts: 11/broadcasts: 3/' -e 's/gap: 3s/gap: 1s/' \
	-e 's/^algorithms: .*/algorithms: [binomial, phoenix, magpie]/' \
	"$GRIDBED_SRC/experiments/phoenix-fig5.yaml" > "$tmp/c.yaml"
"$GX" run "$tmp/c.yaml" --dry-run > "$tmp/dry.out" 2>&1
order=$(sed -n 's/^  rank order: //p' "$tmp/dry.out")
"$GX" run "$tmp/c.yaml" --prefix "$GB_PREFIX" --out-root "$tmp/res" > "$tmp/run.out" 2> "$tmp/run.err"
st=$?
is "$st" 0 "the campaign runs (exit 0)" || sed 's/^/#   /' "$tmp/run.err" | tail -20
dir=$(ls -d "$tmp"/res/t8012/2*/ 2>/dev/null | head -1)
dir=${dir%/}
like "$(cat "$tmp/run.err")" "phoenixd converged after [0-9.]+ s \([0-9]+ rounds, [0-9]+ messages.*wide-area optimal trees: 12 of 12 \(gridexp's check\), 12 \(phoenixd's own\)" \
	"phoenixd converged before the runs; rounds and messages are reported"
is "$(tail -n +2 "$dir/phoenixd/s1/wan-check.csv" | awk -F, '$5 == 1' | wc -l)" 12 \
	"wan-check.csv: all 12 trees wide-area optimal (gridexp's own check)"
is "$(jq -r '.sessions[0].phoenixd | "\(.wan_optimal_gridexp) \(.initial.converged) \(.trees)"' "$dir/meta.json")" \
	"12 true 12" "meta.json records phoenixd's convergence and the check"
like "$(cat "$dir/summary.txt")" "phoenixd \(session 1\): converged after .* wide-area optimal trees: 12 of 12" \
	"the summary says where the phoenix trees came from"

pr=$dir/runs/unloaded-phoenix-r1
is "$(awk -F, 'NR > 1' "$pr/broadcasts.csv" | wc -l)" 3 "three phoenix broadcasts"
via=$(python3 -c 'import csv,sys; print(" ".join(sorted({r["tree_via"] + "|" + r["model"] + "|" + r["fallback"] for r in csv.DictReader(open(sys.argv[1]))})))' "$pr/broadcasts.csv")
is "$via" "piggyback|phoenixd $dir/phoenixd/s1/initial/a-1.json|0" \
	"every phoenix broadcast used phoenixd's a-1 tree, sent in the header, no fallback"
same=$(python3 - "$pr/ranks.csv" "$dir/phoenixd/s1/initial/a-1.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t = json.load(open(sys.argv[2]))
want = dict(zip(t["nodes"], t["parent"]))
host = {(r["index"], r["rank"]): r["host"] for r in rows}
bad = [r["host"] for r in rows
       if (host[(r["index"], r["parent"])] if int(r["parent"]) >= 0 else None) != want[r["host"]]]
print("%d rows, %d differ" % (len(rows), len(bad)))
PY
)
is "$same" "36 rows, 0 differ" "every rank's parent is phoenixd's (3 broadcasts x 12 ranks)"

br=$dir/runs/unloaded-binomial-r1
is "$(jq -r '[.ranks[].host] | join(" ")' "$br/rankmap.json" 2>/dev/null)" "$order" \
	"the ranks ran in the campaign's shuffled order ($order)"
like "$order" "^a-1 " "  the root is rank 0"
ok "$( [ "$order" != "a-1 a-2 a-3 a-4 b-1 b-2 b-3 b-4 c-1 c-2 c-3 c-4" ]; echo $?)" \
	"  and the order is not the clusters'"
is "$(jq -r '"\(.campaign.app.start) \(.campaign.app.wait) \(.campaign.ranks.order)"' "$dir/meta.json")" \
	"clock sleep shuffle" "meta.json: start clock, wait sleep, ranks shuffle"
is "$(head -c 8 "$dir/arrivals-unloaded-r1.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" \
	89504e470d0a1a0a "arrivals-unloaded-r1.png (Fig. 5) is a PNG"

cat > "$tmp/expect.yaml" <<'EOF'
- {metric: failed_runs, algo: "*", eq: 0}
- {metric: mismatches, algo: "*", eq: 0}
- {metric: fallbacks, algo: phoenix, eq: 0}
- {metric: broadcasts, algo: "*", eq: 3}
EOF
"$GX" check "$dir" --expect "$tmp/expect.yaml" > "$tmp/check.out" 2>&1; st=$?
is "$st" 0 "gridexp check: no failed run, no wrong byte, no fallback" || sed 's/^/#   /' "$tmp/check.out"
is "$(grep -c '^PASS' "$tmp/check.out")" 10 "  ten PASS lines"
is "$(prefix_netns | wc -l)" 0 "the grid is down afterwards"
done_testing
