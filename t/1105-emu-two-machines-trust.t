#!/usr/bin/env bash
# Who can reach a grid across two machines (issue 47, docs/scale-out.md,
# "Trust"): two-clusters split by site over two namespaced "machines" under
# the tap backend, as t/1011, but the underlay is a switch (a bridge in a
# namespace of its own) with a third host C on it.  C builds its own VXLANs
# with the grid's VNIs (999 for management, 1000 + k for the cross link) to
# each machine, gives them the grid's addresses and neighbours, and sends
# pings.  Checked, with the grid namespaces' own counters as witnesses (the
# ICMP echoes /proc/net/snmp counts, the TUN end of the cross link's rx
# packets: both past the tunnel device, where the peer filter sits):
#   - nothing C sends reaches a grid namespace of either machine, and the
#     filter's clsact counts the drops;
#   - the peer's own frames still do, through the same devices;
#   - without the filter (removed by hand at the end) the same injection
#     does arrive: the witnesses can see it;
#   - status and status --json name each tunnel's local address, and the
#     device is bound to it;
#   - down leaves no socket on 4789, and the machine's namespace as before.
source "$(dirname "$0")/lib-netns.sh"
source "$(dirname "$0")/lib-machines.sh"
machines_require ping jq ss

T=$TOPOS/two-clusters.yaml
S=${GB_PREFIX}sw C=${GB_PREFIX}c PEERC=192.168.251.3
trap 'st=$?; ip netns del "$C" 2>/dev/null; ip netns del "$S" 2>/dev/null; (exit $st); machines_cleanup' EXIT

# The underlay: a switch with three ports, the machines and C.
machines_up() {
	local n i=1
	ip netns add "$S" && ip netns add "$M1" && ip netns add "$M2" && ip netns add "$C" &&
		ip -n "$S" link add b0 type bridge && ip -n "$S" link set b0 up || return 1
	for n in "$M1" "$M2" "$C"; do
		ip -n "$S" link add "p$i" mtu 1600 type veth peer name u mtu 1600 netns "$n" &&
			ip -n "$S" link set "p$i" master b0 up &&
			ip -n "$n" addr add "192.168.251.$i/24" dev u &&
			ip -n "$n" link set u up && ip -n "$n" link set lo up || return 1
		i=$((i + 1))
	done
}
# m1_state: machine 1's own network, all of it that up or down could change.
m1_state() {
	ip -n "$M1" -o link show | awk '{print $2}'
	ip -n "$M1" -4 -o addr show; ip -n "$M1" -4 route show table all; ip -n "$M1" rule show
	tc -n "$M1" qdisc show; tc -n "$M1" filter show dev u ingress 2>/dev/null
}
# echoes NS: ICMP echo requests NS has received.
echoes() {
	ip netns exec "$1" awk '$1 == "Icmp:" && !h {for (i = 2; i <= NF; i++) if ($i == "InEchos") f = i; h = 1; next}
		$1 == "Icmp:" {print $f; exit}' /proc/net/snmp
}
# rxp NS DEV: DEV's received packets in NS.
rxp() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/rx_packets"; }
# drops NS DEV: what DEV's clsact (the peer filter) dropped.
drops() { tc -n "$1" -s qdisc show dev "$2" | awk '/^qdisc clsact/ {f = 1} f && /dropped/ {sub(",", "", $7); print $7; exit}'; }
# c_tunnel NAME VNI MACHINE ADDR NEIGH MAC: C's own VXLAN NAME to MACHINE
# with the grid's VNI, C's address ADDR/32 on it (the grid's address of the
# peer's end), a route to NEIGH (the grid's end) through it, and NEIGH at
# MAC, static: no ARP reply is needed for C's frames to go.
c_tunnel() {
	ip -n "$C" link add "$1" type vxlan id "$2" remote "$3" dstport 4789 nolearning &&
		ip -n "$C" addr add "$4/32" dev "$1" && ip -n "$C" link set "$1" up &&
		ip -n "$C" route add "$5/32" dev "$1" &&
		ip -n "$C" neigh add "$5" lladdr "$6" dev "$1" nud permanent
}
# tun_addr NS: the address of the cross link's end in NS.
tun_addr() { ip -n "$1" -4 -o addr show dev "$wan" | awk '{sub("/.*", "", $4); print $4}'; }
cping() { ip netns exec "$C" ping -c 5 -i 0.05 -W 1 -q "$1" >/dev/null 2>&1; }

before=$(root_snapshot)
machines_up || bail "cannot build the underlay"
m1_before=$(m1_state)

# ------------------------------------------------------------ up on both
out=$(ga up "$T" --part siteA --peer "$PEER2" --peer-prefix "$B" 2>&1)
is $? 0 "machine 1 builds siteA" || diag "$out"
out=$(gb up "$T" --part siteB --peer "$PEER1" --peer-prefix "$A" 2>&1)
is $? 0 "machine 2 builds siteB" || diag "$out"
wan=$(ga link show | awk '$2 == "siteA>siteB" {print $3}')
k=${wan#d}
[ -n "$k" ] || bail "no WAN link in link show"

# ------------------------------------------------------------ status, binding
for m in 1 2; do
	if [ $m = 1 ]; then g=ga P=$A me=$PEER1 peer=$PEER2; else g=gb P=$B me=$PEER2 peer=$PEER1; fi
	st=$($g status)
	like "$st" "^tunnel w0 in $P-mgmt: VNI 999 \\(management\\), local $me, remote $peer, UDP 4789" \
		"machine $m: status names the management tunnel's local address $me"
	like "$st" "tunnel v$k in $P-edge: VNI $((1000 + k)) \\(link siteA-siteB\\), local $me, remote $peer" \
		"machine $m: and the cross link's"
	is "$($g status --json | jq -r '[.part.local] + [.part.tunnels[] | .local] | unique | join(",")')" "$me" \
		"machine $m: status --json has the same local address for the part and both tunnels"
	d=$(ip -n "$P-edge" -d link show "v$k" | tr '\n' ' ')
	like "$d" "vxlan id $((1000 + k)) remote $peer local $me " "machine $m: v$k is bound to $me"
done
like "$(ip netns exec "$M1" ss -Huln 'sport = :4789')" "0\\.0\\.0\\.0:4789" \
	"machine 1's network holds the tunnels' socket, on the wildcard address (the kernel's choice, whatever 'local' says)"

# ------------------------------------------------------------ C injects, to both
# The grid's ends: each machine's w0 (address, MAC) and the TUN end of the
# cross link, in its site router's namespace, whose address C targets.
tun_ns() { local ns; for ns in $(ip netns list | awk -v p="^$1-" '$1 ~ p {print $1}'); do
	ip -n "$ns" link show "$wan" >/dev/null 2>&1 && echo "$ns"; done; }
w0_addr() { ip -n "$1-mgmt" -4 -o addr show dev w0 | awk '{sub("/.*", "", $4); print $4}'; }
w0_mac() { ip -n "$1-mgmt" -o link show w0 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p'; }
# tapd's frames on the cross link carry this destination (tapd_priv.h), and
# tapd takes any frame of its protocol the device delivers
TAPD_MAC=02:67:62:ff:ff:fe
for m in 1 2; do
	if [ $m = 1 ]; then P=$A Q=$B addr=$PEER1; else P=$B Q=$A addr=$PEER2; fi
	rns=$(tun_ns "$P")
	raddr=$(tun_addr "$rns")
	wa=$(w0_addr "$P")
	c_tunnel "m$m" 999 "$addr" "$(w0_addr "$Q")" "$wa" "$(w0_mac "$P")" &&
		c_tunnel "l$m" $((1000 + k)) "$addr" "$(tun_addr "$(tun_ns "$Q")")" "$raddr" "$TAPD_MAC" ||
		bail "C cannot build its tunnels to machine $m"
	e0=$(echoes "$P-mgmt"); r0=$(rxp "$rns" "$wan"); w0d=$(drops "$P-mgmt" w0); vd=$(drops "$P-edge" "v$k")
	cping "$wa"; cping "$raddr"
	e1=$(echoes "$P-mgmt"); r1=$(rxp "$rns" "$wan"); w1d=$(drops "$P-mgmt" w0); v1d=$(drops "$P-edge" "v$k")
	is "$((e1 - e0))" 0 "machine $m: none of C's 5 pings to w0 ($wa, VNI 999) reaches $P-mgmt"
	is "$((r1 - r0))" 0 "machine $m: none of C's 5 pings on the cross link (VNI $((1000 + k))) reaches $rns's $wan"
	ok "$([ $((w1d - w0d)) -ge 5 ] && [ $((v1d - vd)) -ge 5 ]; echo $?)" \
		"machine $m: the peer filters dropped them (w0 $((w1d - w0d)), v$k $((v1d - vd)))"
	# the peer's own frames, through the same devices
	ip netns exec "$Q-mgmt" ping -c 5 -i 0.05 -W 2 -q "$wa" >/dev/null 2>&1
	is "$(($(echoes "$P-mgmt") - e1))" 5 "machine $m: the peer's 5 pings to w0 arrive"
	ip netns exec "$(tun_ns "$Q")" ping -c 5 -i 0.05 -W 2 -q "$raddr" >/dev/null 2>&1
	ok "$([ $(($(rxp "$rns" "$wan") - r1)) -ge 5 ]; echo $?)" \
		"machine $m: the peer's 5 pings on the cross link arrive ($(($(rxp "$rns" "$wan") - r1)) packets)"
	# one VXLAN per VNI and port in C's namespace: these go before the next
	[ $m = 2 ] || { ip -n "$C" link del m1; ip -n "$C" link del l1; }
done
mgmt_b1=$(ga status | awk '$1 == "b-1" {print $6}')
t "the grid still works across: a-1 pings b-1's management address" \
	ip netns exec "$A-a-1" ping -c1 -W5 -q "$mgmt_b1"

# ------------------------------------------------------------ the witnesses see
# Without machine 1's filters, C's injection arrives: the checks above could fail.
ip -n "$C" link del m2; ip -n "$C" link del l2
rns=$(tun_ns "$A")
raddr=$(tun_addr "$rns")
c_tunnel m1 999 "$PEER1" "$(w0_addr "$B")" "$(w0_addr "$A")" "$(w0_mac "$A")" &&
	c_tunnel l1 $((1000 + k)) "$PEER1" "$(tun_addr "$(tun_ns "$B")")" "$raddr" "$TAPD_MAC" ||
	bail "C cannot rebuild its tunnels to machine 1"
tc -n "$A-mgmt" qdisc del dev w0 clsact && tc -n "$A-edge" qdisc del dev "v$k" clsact
e0=$(echoes "$A-mgmt"); r0=$(rxp "$rns" "$wan")
cping "$(w0_addr "$A")"; cping "$raddr"
ok "$([ $(($(echoes "$A-mgmt") - e0)) -ge 5 ]; echo $?)" \
	"without its filter, C's pings to machine 1's w0 arrive ($(($(echoes "$A-mgmt") - e0)) echoes)"
ok "$([ $(($(rxp "$rns" "$wan") - r0)) -ge 5 ]; echo $?)" \
	"and on the cross link ($(($(rxp "$rns" "$wan") - r0)) packets)"

# ------------------------------------------------------------ down
t "down on machine 1" ga down
t "down on machine 2" gb down
# a removed namespace's devices go in the kernel's cleanup work, after
# `ip netns del` has returned: the tunnel socket goes with the last device
no_socket() { [ "$(ip netns exec "$1" ss -Hulna 'sport = :4789' | wc -l)" = 0 ]; }
wait_until 10 no_socket "$M1"; ok $? "machine 1 has no socket on 4789 left (within 10 s)"
wait_until 10 no_socket "$M2"; ok $? "nor machine 2"
is "$(m1_state)" "$m1_before" "machine 1's own network is as before: devices, addresses, routes, rules, qdiscs"
is "$(ip netns list | grep -cE "^($A|$B)-")" 0 "no namespace of either grid is left"
ip netns del "$C"; ip netns del "$S"; ip netns del "$M1"; ip netns del "$M2"
is "$(root_snapshot)" "$before" "the host's root namespace is untouched"
done_testing
