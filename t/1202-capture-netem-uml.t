#!/usr/bin/env bash
# Capture and gridload under the netem backend, whose links are veth pairs
# (Ethernet frames, DLT_EN10MB) rather than the tap backend's TUN devices
# (bare IP): run inside user-mode Linux, whose kernel has sch_netem (see
# t/1010-netem-uml.t).  A gridload flow of known size is counted exactly
# (IP bytes = datagrams x (payload + 28), frame bytes 14 more per datagram),
# the pcap file reads back as EN10MB, and shape mode's cut is read back
# from netem's TBF child and restored.
source "$(dirname "$0")/lib-netns.sh"
require_root
require_gridemu
GRIDLOAD=${GRIDLOAD:-$GRIDBED_BUILD/loadgen/gridload}
[ -x "$GRIDLOAD" ] || skip_all "gridload is not built"

uml_prepare "GRIDEMU=$GRIDEMU GRIDLOAD=$GRIDLOAD TOPOS=$TOPOS T=$tmp"
cat > "$tmp/inner" <<'INNER'
. "$TAPLIB"
export GRIDBED_PREFIX=gb GRIDBED_RUNDIR=/run/gridbed
$GRIDEMU up "$TOPOS/two-clusters.yaml" --backend netem >/dev/null 2>&1; ok $? "up two-clusters, netem backend"
wan=siteA-siteB
$GRIDEMU capture $wan --dir 'siteA>siteB' --filter 'udp portrange 9000-9099' --out $T/n.pcap \
	>$T/cap.out 2>$T/cap.err &
cap=$!
for _ in $(seq 100); do grep -q capturing $T/cap.err && break; sleep 0.05; done
grep -q "linktype EN10MB" $T/cap.err; ok $? "veth capture is Ethernet: $(cat $T/cap.err)"
$GRIDLOAD flow a-1 b-1 --rate 5mbit --duration 1s --size 1000 --log $T/f.csv --quiet >/dev/null 2>&1
ok $? "a 5 Mbit/s gridload flow for 1 s"
sleep 0.3
kill -INT $cap; wait $cap; ok $? "capture stops on SIGINT"
rx=$(tail -n 1 $T/f.csv | awk -F, '{print $16}')
read -r pk ib fb <<<"$(awk '$1 == "total" {print $5, $7, $9}' $T/cap.out)"
echo "# $(tail -n 1 $T/f.csv)"
[ "${rx:-0}" -gt 0 ]; ok $? "gridload's receiver got datagrams ($rx; UML is slow, the rate may fall short)"
is "$pk" "$rx" "captured datagrams = gridload's receiver count"
is "$ib" "$((rx * 1028))" "ip_bytes = datagrams x (1000 + 28)"
is "$fb" "$((rx * 1042))" "frame_bytes = ip_bytes + 14 per Ethernet frame"
rd=$($GRIDEMU capture --read $T/n.pcap)
echo "$rd" | grep -q "linktype EN10MB (1), $rx packets, $((rx * 1028)) ip_bytes"; ok $? "the pcap reads back: $rd"
$GRIDLOAD flow a-1 b-1 --mode shape --fraction 0.8 --duration 5s --quiet >/dev/null 2>&1 &
gl=$!
for _ in $(seq 100); do tc -n gb-siteA qdisc show | grep -q "rate 20Mbit" && break; sleep 0.05; done
tc -n gb-siteA qdisc show | grep -q "rate 20Mbit"; ok $? "shape mode: netem's TBF child at 20Mbit"
$GRIDEMU link show | grep "^$wan .*siteA>siteB" | grep -q " 20mbit "; ok $? "link show reads 20mbit back"
kill -9 $gl; wait $gl 2>/dev/null
$GRIDLOAD restore >/dev/null; ok $? "gridload restore after SIGKILL"
tc -n gb-siteA qdisc show | grep -q "rate 100Mbit"; ok $? "tc: back to 100Mbit"
tap_down_done
INNER
uml_boot "$tmp"
