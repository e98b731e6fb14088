#!/usr/bin/env bash
# 8030-gridexp-procs: a processor count per load condition (`procs: N`,
# docs/formats.md "load"; seed 003 plots broadcast time against the number
# of processors).  A condition's runs use the application's root and the
# first N - 1 other hosts of the campaign's rank order:
#   - --dry-run shows each condition's ranks, in rank order (interleave:
#     a-1 b-1 a-2; topology order with the root last in the list: the root
#     kept, its place kept);
#   - a shuffled rank order follows --seed, unless ranks: seed is given;
#   - procs out of range (1, one more than the hosts, not a number) and
#     procs with phoenix or below a fail_rank are refused, exit 2, one line
#     naming file:line:col;
#   - one tiny campaign on two-clusters (interleave, a condition of 3, one
#     of every host and one of 2): rankmap.json, broadcasts.csv's `ranks`,
#     ranks.csv, run.json `procs` and meta.json's condition echo say 3 (and
#     8), the summary still says where the broadcasts ended, and procs.png
#     plots time against the processor count; meta.json's session has the
#     delay line's calibration.
. "$(dirname "$0")/lib-netns.sh"

require_gridexp

gridexp_tmp 8030

plan 23

camp() { # camp ORDER PROCS [ROOT] [ALGOS]
	cat <<EOF
name: procs-axis
topology: $TOPOS/two-clusters.yaml
scale: 0.02
seed: 1
algorithms: [${4:-mpich-g2}]
app: {root: ${3:-a-1}, broadcasts: 3, size: 32K, gap: 20s}
ranks: {order: $1}
load:
  - {name: p3, procs: $2}
  - {name: all}
  - {name: p2, procs: 2}
EOF
}

# --dry-run: parsed and shown
camp interleave 3 >"$tmp/c.yaml"
out=$("$GX" run "$tmp/c.yaml" --dry-run 2>&1); st=$?
sed 's/^/# /' <<<"$out" | head -20
is "$st" 0 "procs: 3 parses (--dry-run exit 0)"
like "$out" "^  procs 3: a-1 b-1 a-2$" "  --dry-run: the condition's 3 ranks, the first of the interleave"
is "$(grep -c '^  procs ' <<<"$out")" 2 "  the condition without procs: every host, no line"
camp topology 3 b-2 >"$tmp/t.yaml"
out=$("$GX" run "$tmp/t.yaml" --dry-run 2>&1)
like "$out" "^  procs 3: a-1 a-2 b-2$" "  topology order, root b-2: the root and the first 2 others, in topology order"

# a shuffled order is drawn from the seed the run is made with: --seed
# draws another (it kept the file's until session 40), unless the file
# gives ranks: seed of its own
camp shuffle 3 >"$tmp/s.yaml"
order() { "$GX" run "$1" --dry-run --seed "$2" 2>&1 | sed -n 's/^  rank order: //p'; }
o5=$(order "$tmp/s.yaml" 5); o6=$(order "$tmp/s.yaml" 6)
ok "$([ -n "$o5" ] && [ "$o5" != "$o6" ]; echo $?)" "--seed 5 and --seed 6 draw different orders ($o5 / $o6)"
sed 's/^ranks: {order: shuffle}$/ranks: {order: shuffle, seed: 9}/' "$tmp/s.yaml" >"$tmp/s9.yaml"
is "$(order "$tmp/s9.yaml" 6)" "$(order "$tmp/s9.yaml" 5)" "  and ranks: seed 9 holds whatever --seed says"

# out of range and the like: refused with the place
bad() { # bad FILE PATTERN NAME
	local err st
	err=$("$GX" run "$1" --dry-run 2>&1 >/dev/null); st=$?
	is "$st:$(wc -l <<<"$err")" "2:1" "$3: exit 2, one line"
	like "$err" "$2" "  $err"
}
camp interleave 1 >"$tmp/b1.yaml"
bad "$tmp/b1.yaml" "^$tmp/b1.yaml:9:[0-9]+: load condition 'p3': procs '1' is out of range \\(2 \\.\\. 8\\)$" "procs: 1"
camp interleave 9 >"$tmp/b9.yaml"
bad "$tmp/b9.yaml" "^$tmp/b9.yaml:9:[0-9]+: load condition 'p3': procs '9' is out of range \\(2 \\.\\. 8\\)$" "procs: 9 on 8 hosts"
camp interleave many >"$tmp/bx.yaml"
bad "$tmp/bx.yaml" "^$tmp/bx.yaml:9:[0-9]+: load condition 'p3': procs must be an integer" "procs: many"
camp interleave 3 a-1 phoenix >"$tmp/bp.yaml"
bad "$tmp/bp.yaml" "^$tmp/bp.yaml:9:[0-9]+: load condition 'p3': procs: not with algorithm 'phoenix'" "procs with phoenix"

# one tiny campaign with procs: 3 (not under the sanitizer build: its
# libgridbcast.so, preloaded into the ranks, comes before the ASan runtime,
# which ASan refuses; cmake/bootstrap's ASAN_SKIP says the same of the other
# campaign runs)
if [ "${GRIDBED_SANITIZED:-}" = 1 ]; then
	skip 9 "the campaign's ranks cannot preload the sanitized libgridbcast (cmake/bootstrap, ASAN_SKIP)"
	done_testing
	exit 0
fi
camp interleave 3 >"$tmp/c.yaml"
"$GX" run "$tmp/c.yaml" --prefix "$GB_PREFIX" --out-root "$tmp/res" >"$tmp/out" 2>"$tmp/err"; st=$?
is "$st" 0 "the campaign runs (exit 0)" || tail -20 "$tmp/err" | sed 's/^/#   /'
dir=$(ls -d "$tmp"/res/procs-axis/2*/ 2>/dev/null | head -1)
r3=$dir/runs/p3-mpich-g2-r1
is "$(jq -r '[.nranks, (.ranks | map(.host) | join(" "))] | join(":")' "$r3/rankmap.json" 2>/dev/null)" \
	"3:a-1 b-1 a-2" "p3: rankmap.json has 3 ranks, the interleave's first"
is "$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "ranks") c = i; next} {print $c}' \
	"$r3/broadcasts.csv" 2>/dev/null | sort -u | tr '\n' ' ')" "3 " "  broadcasts.csv: ranks 3 in every row"
is "$(awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "host") c = i; next} {print $c}' \
	"$r3/ranks.csv" 2>/dev/null | sort -u | tr '\n' ' ')" "a-1 a-2 b-1 " "  ranks.csv: the 3 hosts"
is "$(jq -r .procs "$r3/run.json" 2>/dev/null):$(jq -r .procs "$dir/runs/all-mpich-g2-r1/run.json" 2>/dev/null)" \
	"3:8" "  run.json: procs 3, and 8 in the condition without"
is "$(jq -c '[.campaign.conditions[] | .procs]' "$dir/meta.json" 2>/dev/null)" "[3,null,2]" \
	"  meta.json's campaign: the condition's procs"
like "$(cat "$dir/summary.txt" 2>/dev/null)" "^mpich-g2 +(loaded|unloaded) +9 +[0-9.]+ \\[ *[0-9]+\\] +[0-9.]+ \\[ *[0-9]+\\]$" \
	"  summary.txt: where the 9 broadcasts ended"
be=$(jq -r .backend "$dir/meta.json" 2>/dev/null)
if [ "$be" = tap ]; then
	like "$(jq -r '.sessions[0].delay_line | "\(.pass_ns) \(.below)"' "$dir/meta.json" 2>/dev/null)" \
		'^[0-9]+ [0-9]+$' "meta.json's session: the delay line's calibration (pass_ns, below)"
else
	skip 1 "backend $be has no delay line to calibrate"
fi
if command -v gnuplot >/dev/null; then
	ok "$([ -s "$dir/procs.png" ]; echo $?)" "procs.png: time against the processor count (conditions p3 and p2)"
else
	skip 1 "gnuplot is not installed: no plots"
fi
done_testing
