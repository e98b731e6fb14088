#!/usr/bin/env bash
# 2006-tapd-packet.t - gridemu-tapd's "packet" sides (tapd.h), what a link
# between two machines uses (partition.h): two daemons, as on two machines,
# each with one TUN end and one packet socket on an existing Ethernet device;
# a veth pair between those devices stands in for the VXLAN.
#
#   NS_A l0 (TUN) -> daemon 1 (a>b: 20 ms) -> x in E1 ~~veth~~ x in E2 -> daemon 2 (0) -> NS_B l0
#   NS_A l0 <- daemon 1 (0) <- x in E1 ~~veth~~ x in E2 <- daemon 2 (b>a: 15 ms) <- NS_B l0
#
# Checked: the daemons open the sockets and leave the devices alone; pings of
# full-size packets cross with each direction delayed once, by the daemon
# that reads it from its TUN (RTT >= 35 ms, the median under 45 ms); the
# counters match on both daemons; a missing device or a bad kind is refused
# in one line.
source "$(dirname "$0")/lib-netns.sh"
source "$(dirname "$0")/lib-tapd.sh"
tapd_begin 14
E1=${GB_PREFIX}-e1 E2=${GB_PREFIX}-e2
for ns in "$E1" "$E2"; do
	ip netns add "$ns" && ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 >/dev/null || bail "cannot create netns $ns"
done
ip -n "$E1" link add x type veth peer name x netns "$E2" && ip -n "$E1" link set x up &&
	ip -n "$E2" link set x up || bail "cannot create the veth between $E1 and $E2"

# cfg FILE SIDE_A SIDE_B AB BA
cfg() {
	printf '{ "seed": 1, "links": [ { "id": 0, "name": "cross", "a": %s, "b": %s, "ab": %s, "ba": %s } ] }\n' \
		"$2" "$3" "$4" "$5" >"$1"
}
tun() { printf '{"netns": "/run/netns/%s", "ifname": "l0"}' "$1"; }
pkt() { printf '{"netns": "/run/netns/%s", "ifname": "%s", "kind": "packet"}' "$1" "$2"; }
zero=$(tapd_dir_json 0 0 0 1000)

cfg "$TAPD_TMP/1.json" "$(tun "$NS_A")" "$(pkt "$E1" x)" "$(tapd_dir_json $((20 * MS)) 0 0 1000)" "$zero"
cfg "$TAPD_TMP/2.json" "$(pkt "$E2" x)" "$(tun "$NS_B")" "$zero" "$(tapd_dir_json $((15 * MS)) 0 0 1000)"
tapd_start one "$TAPD_TMP/1.json"
ok $? "daemon 1 starts with a packet side (got '$TAPD_READY')" || diag "$(cat "$TAPD_LOG")"
CTL1=$TAPD_CTL
tapd_start two "$TAPD_TMP/2.json"
ok $? "daemon 2 starts with a packet side (got '$TAPD_READY')" || diag "$(cat "$TAPD_LOG")"
CTL2=$TAPD_CTL
is "$(ip -n "$E1" -o link show | grep -c ': x@')" 1 "the packet side's device is left as it was (no TUN made)"
tapd_up || bail "cannot configure l0"

TAPD_CTL=$CTL1; s1a=$(tapd_ctl stats)
TAPD_CTL=$CTL2; s2a=$(tapd_ctl stats)
rtts=$(ping_rtts "$NS_A" "$ADDR_B" 20 0.05)
n=$(printf '%s\n' "$rtts" | grep -c .)
is "$n" 20 "20 pings cross the packet sides and come back"
min=$(printf '%s\n' "$rtts" | nums_min); med=$(printf '%s\n' "$rtts" | nums_median)
num_ge "$min" 35; ok $? "each direction is delayed once: min RTT $min ms >= 20 + 15 ms"
num_lt "$med" 45; ok $? "and not twice: median RTT $med ms < 45 ms"
out=$(ip netns exec "$NS_A" ping -n -c 3 -i 0.1 -W 2 -M do -s 1472 "$ADDR_B" 2>&1)
like "$out" "3 received" "full-size packets (1500 bytes, DF) cross in both directions"
TAPD_CTL=$CTL1; s1b=$(tapd_ctl stats)
TAPD_CTL=$CTL2; s2b=$(tapd_ctl stats)
d() { echo $(( $(tapd_stat "$1" "$3") - $(tapd_stat "$1" "$2") )); }
is "$(d links.0.ab.tx_packets "$s1a" "$s1b")" 23 "daemon 1 sent the 23 requests out of its packet side"
is "$(d links.0.ab.rx_packets "$s2a" "$s2b")" 23 "daemon 2 read the 23 of them from its packet side"
is "$(d links.0.ba.tx_packets "$s2a" "$s2b")" 23 "daemon 2 sent the 23 replies out of its packet side"
is "$(d links.0.ba.rx_packets "$s1a" "$s1b")" 23 "daemon 1 read the 23 of them"

# ---- bad input --------------------------------------------------------------
cfg "$TAPD_TMP/3.json" "$(pkt "$E1" nope)" "$(tun "$NS_A")" "$zero" "$zero"
tapd_start three "$TAPD_TMP/3.json"
like "$TAPD_READY" "^E(gridemu-tapd: )?link 'cross': cannot open a packet socket on 'nope' in /run/netns/$E1: No such device$" \
	"a packet side on a missing device is refused in one line"
cfg "$TAPD_TMP/4.json" "$(tun "$NS_A")" "{\"netns\": \"/run/netns/$E1\", \"ifname\": \"x\", \"kind\": \"udp\"}" "$zero" "$zero"
tapd_start four "$TAPD_TMP/4.json"
like "$TAPD_READY" '^E.*b\.kind: expected "tun" or "packet"$' "an unknown kind is refused in one line"
is "$(ip -n "$NS_A" -o link show | grep -c ': l0')" 1 "the refused daemons left daemon 1's l0 alone"
done_testing
