#!/usr/bin/env bash
# The netem backend, for real, inside user-mode Linux: this host's kernel has
# no sch_netem (docs/platform.md), Debian's linux.uml ships it as a module.  The
# UML kernel boots with the host's / as its root (hostfs), so it runs the
# gridemu we just built; its /run is a tmpfs, so nothing it does reaches the
# host.  The checks run inside and write TAP lines to a file we print here.
source "$(dirname "$0")/lib-netns.sh"
require_root
require_gridemu

uml_prepare "GRIDEMU=$GRIDEMU TOPOS=$TOPOS"
cat > "$tmp/inner" <<'INNER'
. "$TAPLIB"
rtt() { ip netns exec gb-a-1 ping -c "${2:-5}" -i 0.05 -q "$1" | awk -F'= ' '/^rtt/ {split($2, a, "/"); print a[2] + 0}'; }
out=$($GRIDEMU up "$TOPOS/two-clusters.yaml" --backend auto 2>&1); st=$?
ok $st "up two-clusters with backend auto inside UML"
echo "$out" | grep -q "backend netem" ; ok $? "auto picked netem where the kernel has it ($out)"
b1=$($GRIDEMU status | awk '$1 == "b-1" {print $5}')
q=$(tc -n gb-siteA qdisc show | tr '\n' ' ')
echo "$q" | grep -q "netem" && echo "$q" | grep -q "tbf"; ok $? "netem with a TBF child on the WAN link ($q)"
r=$(rtt "$b1" 10)
ge "$r" 10; ok $? "WAN RTT $r ms >= 2 x 5 ms (mean of 10)"
[ -n "$r" ] && lt "$r" 20.6; ok $? "WAN RTT $r ms below twice the configured 10.3 ms (fidelity figures are in the benchmark)"
wan=siteA-siteB
$GRIDEMU link set $wan delay 20ms >/dev/null; ok $? "link set delay 20ms"
r=$(rtt "$b1" 10)
ge "$r" 40; ok $? "WAN RTT after link set: $r ms >= 40 ms"
[ -n "$r" ] && lt "$r" 80; ok $? "and below twice that ($r ms)"
$GRIDEMU link set $wan loss 100% >/dev/null
ip netns exec gb-a-1 ping -c 3 -i 0.1 -W 1 -q "$b1" | grep -q "100% packet loss"; ok $? "netem loss 100% drops everything"
$GRIDEMU link set $wan loss 0% rate 10mbit >/dev/null; ok $? "link set loss 0% rate 10mbit"
tc -n gb-siteA qdisc show | grep -q "rate 10Mbit"; ok $? "tc sees rate 10Mbit"
tap_down_done
INNER
uml_boot "$tmp"
