#!/usr/bin/env bash
# 1013-emu-tcpstat-cli: `gridemu tcpstat` (emulator/cli/cmd_tcpstat.c) prints
# every host's kernel TCP counters as CSV, in gridexp's tcp.csv columns.
# On two-clusters: a first sample has every host and only hosts; after a
# real TCP transfer a-1 -> b-1 (gridemu probe), a-1's segments sent have
# grown; --every/--count samples again and writes only hosts that changed;
# bad options get one line and exit 2, a missing grid one line and exit 1.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu

plan 9

tmp=$(mktemp -d /tmp/gb-tcpstat.XXXXXX)
trap 'st=$?; rm -rf "$tmp"; (exit $st); gb_cleanup' EXIT

"$GRIDEMU" tcpstat > "$tmp/none.out" 2> "$tmp/none.err"
is "$?:$(wc -l < "$tmp/none.err")" "2:1" "no grid of this prefix: exit 2 (as status), one line ($(cat "$tmp/none.err"))"

"$GRIDEMU" up "$TOPOS/two-clusters.yaml" >/dev/null 2>&1 || bail "cannot bring the grid up"
"$GRIDEMU" tcpstat > "$tmp/a.csv"
is "$(head -1 "$tmp/a.csv")" \
	"t_mono,host,out_segs,retrans_segs,timeouts,loss_probes,fast_retrans,spurious_rtos,lost_retransmit,syn_retrans,ofo_drop,rcvq_drop,backlog_drop,listen_drops" \
	"the header: tcp.csv's columns"
is "$(tail -n +2 "$tmp/a.csv" | cut -d, -f2 | sort | tr '\n' ' ')" "a-1 a-2 a-3 a-4 b-1 b-2 b-3 b-4 " \
	"one row per host, and only hosts"

out0=$(awk -F, '$2 == "a-1" { print $3 }' "$tmp/a.csv")
"$GRIDEMU" probe a-1 b-1 --count 2 --tcp 0.5 >/dev/null 2>&1 || diag "gridemu probe failed"
"$GRIDEMU" tcpstat > "$tmp/b.csv"
out1=$(awk -F, '$2 == "a-1" { print $3 }' "$tmp/b.csv")
[ -n "$out0" ] && [ -n "$out1" ] && [ "$out1" -gt $(( out0 + 100 )) ]
ok $? "a TCP transfer from a-1: its segments sent grew by more than 100 ($out0 -> $out1)"

"$GRIDEMU" tcpstat --every 0.05 --count 3 > "$tmp/c.csv"
rows=$(tail -n +2 "$tmp/c.csv" | wc -l)
# the first sample writes all 8 hosts; two more write only hosts that changed (an idle grid: few)
[ "$rows" -ge 8 ] && [ "$rows" -lt 24 ]
ok $? "--every 0.05 --count 3: every host once, then only changes ($rows rows)"
is "$(tail -n +2 "$tmp/c.csv" | awk -F, 'NR > 1 && $1 < p { n++ } { p = $1 } END { print n + 0 }')" 0 \
	"  times never go back"

"$GRIDEMU" tcpstat --every 0 > /dev/null 2> "$tmp/e1"
is "$?:$(wc -l < "$tmp/e1")" "2:1" "--every 0: exit 2, one line ($(cat "$tmp/e1"))"
"$GRIDEMU" tcpstat --count 3 > /dev/null 2> "$tmp/e2"
is "$?:$(wc -l < "$tmp/e2")" "2:1" "--count without --every: exit 2, one line ($(cat "$tmp/e2"))"
"$GRIDEMU" tcpstat --bogus > /dev/null 2> "$tmp/e3"
is "$?:$(wc -l < "$tmp/e3")" "2:1" "an unknown argument: exit 2, one line ($(cat "$tmp/e3"))"
