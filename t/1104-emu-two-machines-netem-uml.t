#!/usr/bin/env bash
# One grid across two machines under the netem backend (partition.h), inside
# user-mode Linux, whose kernel has sch_netem and VXLAN as modules (this
# host's kernel has no netem).  Two "machines" are two namespaces joined by a
# veth underlay, each with its own gridemu and prefix; two-clusters is split
# by site, so its WAN link is a VXLAN whose ends are the sites' d<k>, each
# shaped by netem on the machine that sends.  t/1103 does the same, at full
# size, under the tap backend.
source "$(dirname "$0")/lib-netns.sh"
require_root
require_gridemu
require_cmd nsenter

uml_prepare "GRIDEMU=$GRIDEMU TOPOS=$TOPOS"
mods=$(ls -d /usr/lib/uml/modules/*/ | head -1)
[ -f "$mods/kernel/drivers/net/vxlan/vxlan.ko" ] || skip_all "linux.uml ships no vxlan.ko"
cat > "$tmp/inner" <<'INNER'
. "$TAPLIB"
M=/usr/lib/uml/modules/$(uname -r)/kernel
for m in net/ipv4/udp_tunnel.ko net/ipv6/ip6_udp_tunnel.ko drivers/net/vxlan/vxlan.ko \
	net/sched/sch_ingress.ko net/sched/cls_bpf.ko; do
	insmod $M/$m || echo "# insmod $m failed"
done
ip netns add m1; ip netns add m2
ip -n m1 link add u type veth peer name u netns m2
ip -n m1 addr add 192.168.251.1/30 dev u; ip -n m2 addr add 192.168.251.2/30 dev u
for m in m1 m2; do ip -n $m link set u mtu 1600 up; ip -n $m link set lo up; done
ga() { nsenter --net=/run/netns/m1 $GRIDEMU --prefix pa "$@"; }
gb() { nsenter --net=/run/netns/m2 $GRIDEMU --prefix pb "$@"; }
rtt() { ip netns exec pa-a-1 ping -c 10 -i 0.05 -q "$1" | awk -F'= ' '/^rtt/ {split($2, a, "/"); print a[2] + 0}'; }
out=$(ga up "$TOPOS/two-clusters.yaml" --backend netem --part siteA --peer 192.168.251.2 --peer-prefix pb 2>&1)
ok $? "machine 1 builds siteA with netem ($out)"
out=$(gb up "$TOPOS/two-clusters.yaml" --backend netem --part siteB --peer 192.168.251.1 --peer-prefix pa 2>&1)
ok $? "machine 2 builds siteB with netem ($out)"
wan=$(ga link show | awk '$2 == "siteA>siteB" {print $3}')
k=${wan#d}
d=$(ip -n pa-siteA -d link show "$wan" 2>&1 | tr '\n' ' ')
echo "$d" | grep -q "vxlan id $((1000 + k)) remote 192.168.251.2 local 192.168.251.1 "; ok $? "siteA's end of the WAN link is VXLAN $((1000 + k)) from machine 1's address to machine 2 ($d)"
f=$(tc -n pa-siteA filter show dev "$wan" ingress | tr '\n' ' ')
echo "$f" | grep -q "gridbed_peer direct-action"; ok $? "and lets in only machine 2's frames (a cls_bpf filter on its ingress: $f)"
q=$(tc -n pa-siteA qdisc show dev "$wan" | tr '\n' ' ')
echo "$q" | grep -q "netem" && echo "$q" | grep -q "tbf"; ok $? "netem with a TBF child on it ($q)"
fails=0
for a in $(ga status | awk 'NR>2 && NF==6 {print $4}'); do
	for ip in $(ga status | awk 'NR>2 && NF==6 {print $5}'); do
		ip netns exec "$a" ping -c1 -W3 -q "$ip" >/dev/null 2>&1 || fails=$((fails + 1))
	done
done
ok $fails "every host pair pings, across the machines too ($fails failed)"
b1=$(ga status | awk '$1 == "b-1" {print $5}')
r=$(rtt "$b1")
ge "$r" 10; ok $? "a-1 -> b-1 RTT $r ms >= 2 x 5 ms"
[ -n "$r" ] && lt "$r" 20.6; ok $? "and below twice the configured 10.28 ms"
ga link set siteA-siteB dir siteA\>siteB delay 20ms >/dev/null; ok $? "link set on the direction machine 1 sends"
r=$(rtt "$b1")
ge "$r" 25; ok $? "RTT after it: $r ms >= 20 + 5 ms"
ga link set siteA-siteB dir siteB\>siteA delay 20ms >/dev/null 2>&1; st=$?
[ $st = 2 ]; ok $? "the direction machine 2 sends is refused on machine 1 (exit $st)"
ga down >/dev/null; ok $? "down on machine 1"
gb down >/dev/null; ok $? "down on machine 2"
ip netns del m1; ip netns del m2
[ -z "$(ip netns list)" ]; ok $? "no namespace left inside UML"
tap_done
INNER
uml_boot "$tmp"
