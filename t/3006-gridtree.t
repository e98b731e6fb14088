#!/bin/bash
# 3006-gridtree - the gridtree command line: list, plan, eval, nodes, usage errors.
# Needs neither root nor namespaces: gridtree is pure computation.
source "$(dirname "$0")/lib-netns.sh"

GT=$GRIDBED_BUILD/collectives/gridtree
[ -x "$GT" ] || bail "gridtree not built at $GT"
TG=$TOPOS/teragrid.yaml
[ -r "$TG" ] || skip_all "topologies/teragrid.yaml not found"
TMP=$(mktemp -d /tmp/gb3006.XXXXXX)
trap 'rm -rf "$TMP"; gb_cleanup' EXIT

# list: every planner of the issue, in its order, then the later ones (phoenix)
out=$("$GT" list --names); st=$?
is "$st" 0 "list exits 0"
want="binomial flat chain mpich-g2 magpie mateescu sa clustered-sa ecef ecef-la ecef-lat-min"
want="$want ecef-lat-max bottomup mostcrit sa-contention pipeline phoenix"
got=$(printf "%s" "$out" | tr "\n" " " | sed "s/ *$//")
order_ok=0
rest=$want
for p in $got; do
	case " $rest " in
	*" $p "*) rest=${rest#*"$p"} ;;
	*) order_ok=1 ;;
	esac
done
ok $order_ok "list --names: planners in the issue's order ($got)"
is "$got" "$want" "list --names: exactly the registered planners"
like "$("$GT" list)" "cost models:.*" "list shows the cost models"

# plan: text shows the tree and all three predictions
out=$("$GT" plan --algo mpich-g2 --topo "$TG" --root c2-1 --size 1M); st=$?
is "$st" 0 "plan mpich-g2 on teragrid"
like "$out" "c2-1 -> c3-1\* c6-1\* c8-1\* c1-1\+ c2-5 c2-3 c2-2" "root sends over the WAN first"
for m in mateescu plogp contention; do
	like "$out" "^  $m +[0-9.]+ s" "predicted time under $m"
done
like "$out" "size 1048576 B" "1M is 1048576 bytes"

# --arrivals: one row per node under every model; the root has it at 0, and
# the last arrival is the completion time printed above it
out=$("$GT" plan --algo pipeline --topo "$TG" --root c2-1 --size 1M --arrivals); st=$?
is "$st" 0 "plan --arrivals"
arr=$(printf "%s\n" "$out" | sed -n "/^arrivals/,\$p")
is "$(printf "%s\n" "$arr" | grep -c -E "^  c[0-9]+-[0-9]+ ")" 64 "--arrivals: a row per node"
like "$arr" "^  c2-1 +0\.000000 +0\.000000 +0\.000000$" "--arrivals: the root has it at 0"
last=$(printf "%s\n" "$arr" | awk "/^  c[0-9]/ && \$4 > m { m = \$4 } END { printf \"%.6f\", m }")
like "$out" "^  contention +[0-9.]+ s +$last s" "--arrivals: the last contention arrival is the completion ($last s)"

# --stripes K (issue 14): a third column, the root's segments down K trees,
# from the contention model only; the arrivals are that schedule's
out=$("$GT" plan --algo pipeline --topo "$TG" --root c2-1 --size 1M --arrivals --stripes 2); st=$?
is "$st" 0 "plan --stripes 2"
like "$out" "^  contention +[0-9.]+ s +[0-9.]+ s +[0-9.]+ s" "--stripes: the contention model predicts the stripes"
like "$out" "^  mateescu +[0-9.]+ s +[0-9.]+ s +- *$" "--stripes: a one-port model does not"
arr=$(printf "%s\n" "$out" | sed -n "/^arrivals/,\$p")
last=$(printf "%s\n" "$arr" | awk "/^  c[0-9]/ && \$4 > m { m = \$4 } END { printf \"%.6f\", m }")
like "$out" "^  contention +[0-9.]+ s +[0-9.]+ s +$last s" "--stripes --arrivals: the last contention arrival is the striped completion ($last s)"
like "$arr" "^  c2-2 +- +- +[0-9.]+$" "--stripes --arrivals: no one-port arrivals"
err=$("$GT" plan --algo pipeline --topo "$TG" --root c2-1 --size 1M --stripes 17 2>&1 >/dev/null); st=$?
is "$st" 2 "--stripes 17: a usage error"
like "$err" "stripes '17' is not a number of trees from 1 to 16" "  and it says so"

err=$("$GT" plan --algo flat --topo "$TG" --root c2-1 --size 1 --arrivals --format json 2>&1 >/dev/null); st=$?
is "$st" 2 "--arrivals with --format json: a usage error"
like "$err" "--arrivals goes with the text format only" "  and it says so"

# json out, eval back in: same predictions
# jq-like extraction without jq: print KEY.PATH of the JSON on stdin
jget() { python3 -c "import json,sys; d=json.load(sys.stdin)
for k in sys.argv[1].split('.'): d=d[k]
print('%.9f' % d)" "$1" 2>/dev/null; }
"$GT" plan --algo mateescu --topo "$TG" --root c2-1 --size 64K --format json >"$TMP/t.json"
is $? 0 "plan --format json"
pred=$(jget predicted.contention <"$TMP/t.json")
ev=$("$GT" eval --tree "$TMP/t.json" --topo "$TG" --size 65536 --format json | jget contention)
is "$ev" "$pred" "eval of the saved tree reproduces its prediction"
like "$("$GT" eval --tree "$TMP/t.json" --topo "$TG" --size 64K)" "contention" "eval text output"
# eval --algo (issue 45): plans with the planner and scores its tree, the
# same predictions as plan's
ev=$("$GT" eval --algo mateescu --root c2-1 --topo "$TG" --size 64K --format json | jget contention)
is "$ev" "$pred" "eval --algo scores the tree plan gives"
like "$("$GT" eval --algo sa --root c2-1 --seed 3 --topo "$TG" --size 64K)" \
	"tree       planned by sa, root c2-1, seed 3" "eval --algo text names the planner"
err=$("$GT" eval --algo sa --tree "$TMP/t.json" --topo "$TG" --size 1K 2>&1 >/dev/null); st=$?
is "$st:$err" "2:gridtree: eval: give exactly one of --tree FILE and --algo NAME" "eval --tree with --algo: usage error"
err=$("$GT" eval --algo sa --topo "$TG" --size 1K 2>&1 >/dev/null); st=$?
is "$st:$err" "2:gridtree: eval: --root is required with --algo" "eval --algo without --root: usage error"
err=$("$GT" eval --algo sa --root nosuch --topo "$TG" --size 1K 2>&1 >/dev/null); st=$?
is "$st:$err" "2:gridtree: unknown root node 'nosuch'" "eval --algo with an unknown root: exit 2, one line"
err=$("$GT" eval --tree "$TMP/t.json" --root c2-1 --topo "$TG" --size 1K 2>&1 >/dev/null); st=$?
is "$st" 2 "eval --tree with --root: usage error"

# dot
out=$("$GT" plan --algo magpie --topo "$TG" --root c2-1 --size 1K --format dot)
like "$out" "^digraph" "dot output"
like "$out" "color=red" "dot marks wide-area edges"

# a matrix file works like a topology
python3 - "$TMP/m.json" <<'PY'
import json, sys
n = 4
json.dump({"nodes": [{"name": "h%d" % i, "cluster": "c%d" % (i // 2)} for i in range(n)],
           "o": 1e-5,
           "lat": [[0 if i == j else 1e-3 for j in range(n)] for i in range(n)],
           "bw": [[0 if i == j else 1.25e6 for j in range(n)] for i in range(n)]},
          open(sys.argv[1], "w"))
PY
out=$("$GT" plan --algo binomial --matrix "$TMP/m.json" --root h1 --size 1000); st=$?
is "$st" 0 "plan from a matrix file"
like "$out" "h1 -> h3\* h2\*" "binomial p=4 from h1: h1 -> h3, h2"

# usage errors: one line, exit 2
err=$("$GT" plan --algo nope --topo "$TG" --root c2-1 --size 1 2>&1 >/dev/null); st=$?
is "$st" 2 "unknown planner exits 2"
is "$err" "gridtree: unknown planner 'nope' (see 'gridtree list')" \
	"and says so in one line"
"$GT" plan --algo flat --topo "$TG" --root c2-1 --size 1Q >/dev/null 2>&1
is $? 2 "bad size exits 2"
"$GT" plan --algo flat --topo "$TG" --root zz --size 1 >/dev/null 2>&1
is $? 2 "unknown root exits 2"
"$GT" plan --algo flat --root c2-1 --size 1 >/dev/null 2>&1; is $? 2 "missing model exits 2"
"$GT" plan --algo flat --topo "$TG" --matrix "$TMP/m.json" --root c2-1 --size 1 >/dev/null 2>&1
is $? 2 "both --topo and --matrix exit 2"
"$GT" frobnicate >/dev/null 2>&1; is $? 2 "unknown command exits 2"
"$GT" >/dev/null 2>&1; is $? 2 "no command exits 2"
err=$("$GT" plan --algo flat --topo "$TMP/none.yaml" --root c2-1 --size 1 2>&1); st=$?
is "$st" 2 "missing topology file exits 2 (bad input)"
like "$err" "^gridtree: .*none.yaml" "and names the file"
# issue 49: every malformed or unreadable file is bad input: exit 2, one line
# naming the file
badmat() { # badmat NAME PYTHON-EDIT: the 4-node matrix m.json, edited
	python3 - "$TMP/m.json" "$TMP/$1.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(d).replace('"NaN"', 'NaN').replace('"BIG"', '1e400'))
PY
}
badmat nan 'd["lat"][0][1] = "NaN"'
badmat neg 'd["bw"][1][2] = -5'
badmat rows 'd["lat"].pop()'
badmat big 'd["lat"][2][3] = "BIG"'
badmat dup 'd["nodes"][1]["name"] = "h0"'
badmat long 'd["nodes"][1]["name"] = "x" * 40'
printf 'name: t\nsites:\n  - nme: A\n' > "$TMP/bad.yaml"
for f in nan neg rows big dup long; do
	for cmd in "plan --algo flat --root h0 --size 1K" "pools --percent 50" "nodes"; do
		# shellcheck disable=SC2086
		err=$("$GT" $cmd --matrix "$TMP/$f.json" 2>&1 >/dev/null); st=$?
		is "$st:$(printf '%s\n' "$err" | wc -l)" "2:1" "${cmd%% *} on a matrix with $f: exit 2, one line"
		like "$err" "$TMP/$f.json" "  and the line names the file ($err)"
	done
done
for cmd in "plan --algo flat --root a-1 --size 1K" "pools --percent 50" "nodes"; do
	# shellcheck disable=SC2086
	err=$("$GT" $cmd --topo "$TMP/bad.yaml" 2>&1 >/dev/null); st=$?
	is "$st:$(printf '%s\n' "$err" | wc -l)" "2:1" "${cmd%% *} on a malformed topology: exit 2, one line"
	like "$err" "$TMP/bad.yaml:3:[0-9]+: " "  and the line is file:line:col ($err)"
done
# trees: a cycle, a node of its own, a second root, not spanning; exit 2 and the node named
"$GT" plan --algo flat --matrix "$TMP/m.json" --root h0 --size 1K --format json > "$TMP/tree.json"
badtree() { python3 - "$TMP/tree.json" "$TMP/$1.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.pop("children", None)
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
badtree cycle 'p = d["parent"]; i = d["nodes"].index("h2"); j = d["nodes"].index("h3"); p[i] = "h3"; p[j] = "h2"'
badtree self 'd["parent"][d["nodes"].index("h1")] = "h1"'
badtree roots 'd["parent"][d["nodes"].index("h1")] = None'
badtree short 'd["nodes"].pop(); d["parent"].pop()'
for f in "cycle:'h[23]' does not reach the root 'h0'" "self:'h1' is its own parent" \
	 "roots:'h1' has no parent" "short:tree has 3 nodes, the model 4"; do
	err=$("$GT" eval --tree "$TMP/${f%%:*}.json" --matrix "$TMP/m.json" --size 1K 2>&1 >/dev/null); st=$?
	is "$st:$(printf '%s\n' "$err" | wc -l)" "2:1" "eval of a tree with ${f%%:*}: exit 2, one line"
	like "$err" "$TMP/${f%%:*}.json: ${f#*:}" "  and names the file and the node ($err)"
done
err=$("$GT" eval --tree "$TMP/none.json" --matrix "$TMP/m.json" --size 1K 2>&1 >/dev/null); st=$?
is "$st" 2 "eval of a missing tree file: exit 2"
# issue 49, defect 4: one pair at 1e15 B/s (or up to 1.7e308) among 1e7 once
# stopped the contention model's clock; plan and eval now end, with a result
python3 - "$TMP" <<'PY'
import json, sys
n = 6
names = ["a-%d" % i for i in range(1, 4)] + ["b-%d" % i for i in range(1, 4)]
for tag, v in (("1e15", 1e15), ("max", 1.7e308)):
    bw = [[0 if i == j else 1e7 for j in range(n)] for i in range(n)]
    bw[0][1] = v
    lat = [[0 if i == j else (1e-4 if i // 3 == j // 3 else 0.03) for j in range(n)] for i in range(n)]
    json.dump({"nodes": [{"name": x, "cluster": x[0]} for x in names], "o": 1e-5, "lat": lat, "bw": bw},
              open("%s/fast-%s.json" % (sys.argv[1], tag), "w"))
PY
for tag in 1e15 max; do
	for a in mpich-g2 binomial; do
		out=$(timeout 60 "$GT" plan --algo $a --matrix "$TMP/fast-$tag.json" --root a-1 --size 1M --format json 2>&1); st=$?
		is "$st" 0 "plan $a with a $tag B/s pair ends (status $st)"
		printf '%s\n' "$out" > "$TMP/fast-$a.json"
		out=$(timeout 60 "$GT" eval --tree "$TMP/fast-$a.json" --matrix "$TMP/fast-$tag.json" --size 1M 2>&1); st=$?
		is "$st" 0 "  and eval of its tree (status $st)"
		like "$out" "^  contention +[0-9.]+ s" "  with a contention time"
	done
done
err=$("$GT" plan --algo flat --topo "$TG" --root c2-1 --size 18446744073709551616 2>&1 >/dev/null); st=$?
is "$st" 2 "--size 2^64: exit 2 (gridbcast refuses it too)"
like "$err" "above 2147483647 bytes" "  and says the limit"
err=$("$GT" plan --algo flat --topo "$TG" --root c2-1 --size 1K --frob 2>&1 >/dev/null); st=$?
is "$st:$(printf '%s\n' "$err" | wc -l)" "2:1" "an unknown option: exit 2, one line, not the usage"
like "$err" "unknown option '--frob'" "  and names the option"
# nodes: every host with its cluster and site, as CSV (for joining ranks.csv)
out=$("$GT" nodes --topo "$TG"); st=$?
is "$st" 0 "nodes --topo exits 0"
is "$(printf "%s\n" "$out" | head -1)" "name,cluster,site" "nodes: a CSV header"
is "$(printf "%s\n" "$out" | sed 1d | wc -l | tr -d ' ')" 64 "nodes: teragrid's 64 hosts"
is "$(printf "%s\n" "$out" | grep -E '^(c2-1|c5-4|c8-8),' | tr '\n' ' ')" \
	"c2-1,c2,SDSC c5-4,c5,NCSA c8-8,c8,PSC " "nodes: hosts' clusters and sites (seed 000 Fig. 6)"
"$GT" nodes --topo "$TG" --matrix "$TMP/m.json" >/dev/null 2>&1
is $? 2 "nodes: both --topo and --matrix exit 2"
err=$("$GT" nodes --topo "$TMP/none.yaml" 2>&1 >/dev/null); st=$?
is "$st" 2 "nodes: a missing topology file exits 2"
like "$err" "^gridtree nodes: .*none.yaml" "and names the file"
for c in list plan eval sim nodes; do
	out=$("$GT" $c --help); st=$?
	is "$st" 0 "$c --help exits 0"
	like "$out" "^usage: gridtree $c" "$c --help prints its usage"
done
done_testing
