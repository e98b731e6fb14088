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
is "$st" 1 "missing topology file exits 1"
like "$err" "^gridtree: .*none.yaml" "and names the file"
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
is "$st" 1 "nodes: a missing topology file exits 1"
like "$err" "^gridtree nodes: .*none.yaml" "and names the file"
for c in list plan eval sim nodes; do
	out=$("$GT" $c --help); st=$?
	is "$st" 0 "$c --help exits 0"
	like "$out" "^usage: gridtree $c" "$c --help prints its usage"
done
done_testing
