#!/bin/bash
# 3104-send-holds - collectives/bcast/bench/send-holds.sh on a run written
# by hand, so that every hold is known: two-clusters (sites siteA, siteB),
#   broadcast 0, 100000 B: a-1 sends to b-1 at 0, then a-2 at 0.5 ms
#     (too large to count: above the eager limit), and b-1 > b-2 grows;
#   broadcast 1, 50000 B: a-1 sends to b-1 at 0 (a connection that carried
#     100000 B: "used"), b-2 at 2 ms (new), a-3 at 72 ms (in-site, new),
#     a-4 at 72.5 ms (its last send: no hold);
#   broadcast 2, 30000 B: below the buffer, not counted.
# So WAN used: 1 send held 2.0 ms; WAN new: 1 send, 70.0 ms; site new: 1
# send, 0.5 ms.  Then the refusals.  Needs neither root nor namespaces.
source "$(dirname "$0")/lib-netns.sh"
command -v python3 >/dev/null || skip_all "python3 is not installed (send-holds.sh reads with it)"
SH=$GRIDBED_SRC/collectives/bcast/bench/send-holds.sh
TMP=$(mktemp -d /tmp/gb3104.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
plan 9

run=$TMP/res/runs/r1
mkdir -p "$run"
cp "$TOPOS/two-clusters.yaml" "$TMP/res/topology.yaml"
{
	echo "index,size,rank,host,parent,parent_send_after_root"
	echo "0,100000,0,a-1,-1,"
	echo "0,100000,4,b-1,0,0.0"
	echo "0,100000,1,a-2,0,0.0005"
	echo "0,100000,5,b-2,4,0.07"
	echo "1,50000,0,a-1,-1,"
	echo "1,50000,4,b-1,0,0.0"
	echo "1,50000,5,b-2,0,0.002"
	echo "1,50000,2,a-3,0,0.072"
	echo "1,50000,3,a-4,0,0.0725"
	echo "2,30000,0,a-1,-1,"
	echo "2,30000,4,b-1,0,0.0"
	echo "2,30000,5,b-2,0,0.03"
} > "$run/ranks.csv"

out=$(GRIDBED_BUILD=$GRIDBED_BUILD "$SH" "$run" --csv "$TMP/holds.csv" 2>&1); st=$?
is "$st" 0 "send-holds.sh exits 0" || printf '%s\n' "$out" | sed 's/^/#   /'
row() { printf '%s\n' "$out" | awk -v w="$1" -v c="$2" '$1 == w && $2 == c { print $3, $4 }'; }
is "$(row WAN used)" "1 2.0" "WAN, used connection: 1 send held 2.0 ms"
is "$(row WAN new)" "1 70.0" "WAN, new connection: 1 send held 70.0 ms"
is "$(row site new)" "1 0.5" "in-site, new connection: 1 send held 0.5 ms"
is "$(sed 1d "$TMP/holds.csv" | cut -d, -f2- | tr '\n' ' ')" \
	"1,50000,a-1,b-1,WAN,used,2.000 1,50000,a-1,b-2,WAN,new,70.000 1,50000,a-1,a-3,site,new,0.500 " \
	"--csv: every counted send, and only those"
is "$(ls "$run")" "ranks.csv" "nothing is written into RUNDIR"

"$SH" "$TMP/none" >/dev/null 2>&1; is $? 2 "a RUNDIR without ranks.csv exits 2"
err=$("$SH" "$run" --eager 100 2>&1); st=$?
is "$st $err" "2 send-holds.sh: --buffer 46080 is not below --eager 100" \
	"a buffer above the eager limit: one line, exit 2"
mv "$TMP/res/topology.yaml" "$TMP/res/t.yaml"
like "$("$SH" "$run" 2>&1)" "^send-holds.sh: .*topology.yaml: missing" \
	"no topology beside the run: said"
