#!/usr/bin/env bash
# 8021-gridexp-tcpstat: every run samples its hosts' kernel TCP counters
# (emulator/grid/tcpstat.h, experiments/gridexp_tcpstat.c).  A small campaign on
# two-clusters whose wide-area link loses 2 % of its packets in each
# direction: tcp.csv has every host, with the columns of the fields table;
# tcp-broadcasts.csv has a row per broadcast, each with segments sent, and
# none with more than the whole run (the samples it rebuilds at the end); the
# loss made the hosts send segments again, and the hosts named for it are
# hosts of the grid.
. "$(dirname "$0")/lib-netns.sh"

require_gridexp

gridexp_tmp 8021

plan 8

sed 's/delay: 5ms, rate: 100mbit}/delay: 5ms, rate: 100mbit, loss: 2%}/' \
	"$TOPOS/two-clusters.yaml" > "$tmp/lossy.yaml"
grep -q 'loss: 2%' "$tmp/lossy.yaml" || bail "two-clusters.yaml's WAN link changed its form"
cat > "$tmp/c.yaml" <<EOF
name: tcps
topology: $tmp/lossy.yaml
scale: 0.005
algorithms: [mpich-g2]
app:
  root: a-1
  broadcasts: 5
  size: {first: 256K, last: 64K}
  gap: {first: 50s, factor: 0.9}
  wait: sleep
EOF
"$GX" run "$tmp/c.yaml" --prefix "$GB_PREFIX" --out-root "$tmp/out" --no-plots \
	> "$tmp/out.log" 2> "$tmp/err.log"
is "$?" 0 "the campaign over the lossy link (exit 0)" || sed 's/^/#   /' "$tmp/err.log" | tail -20
dir=$(ls -d "$tmp"/out/tcps/2*/ 2>/dev/null | head -1)
run=${dir%/}/runs/$(ls "$dir/runs" 2>/dev/null | head -1)

is "$(head -1 "$run/tcp.csv" 2>/dev/null)" \
	"t_mono,host,out_segs,retrans_segs,timeouts,loss_probes,fast_retrans,spurious_rtos,lost_retransmit,syn_retrans,ofo_drop,rcvq_drop,backlog_drop,listen_drops" \
	"tcp.csv: the fields table's columns"
is "$(tail -n +2 "$run/tcp.csv" 2>/dev/null | cut -d, -f2 | sort -u | tr '\n' ' ')" \
	"a-1 a-2 a-3 a-4 b-1 b-2 b-3 b-4 " "  every host, and only hosts"
is "$(( $(wc -l < "$run/tcp-broadcasts.csv" 2>/dev/null || echo 0) - 1 ))" 5 \
	"tcp-broadcasts.csv: a row per broadcast"
is "$(awk -F, 'NR > 1 && $4 > 0 { n++ } END { print n + 0 }' "$run/tcp-broadcasts.csv")" 5 \
	"  each broadcast sent segments"
# a broadcast's window is a part of the run: its segments sent cannot exceed the
# run's, from tcp.csv's cumulative rows (each host's last out_segs less its first)
total=$(awk -F, 'NR > 1 { if (!($2 in f)) f[$2] = $3; l[$2] = $3 } END { for (h in l) s += l[h] - f[h]; print s + 0 }' "$run/tcp.csv")
is "$(awk -F, -v t="$total" 'NR > 1 && ($4 < 0 || $4 > t) { n++ } END { print n + 0 }' "$run/tcp-broadcasts.csv")" 0 \
	"  no broadcast sent more segments than the whole run ($total)"
retrans=$(awk -F, 'NR > 1 { s += $5 } END { print s + 0 }' "$run/tcp-broadcasts.csv")
[ "$retrans" -gt 0 ]
ok $? "2 % loss: segments sent again ($retrans over the broadcasts)"
is "$(awk -F, 'NR > 1 && $NF != "" { print $NF }' "$run/tcp-broadcasts.csv" | tr ' ' '\n' |
	grep -cvE '^[ab]-[1-4]:[0-9]+:[0-9]+$')" 0 "  the hosts named for it are the grid's ($(
	awk -F, 'NR > 1 { print $NF }' "$run/tcp-broadcasts.csv" | tr '\n' ';'))"
