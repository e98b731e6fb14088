# shellcheck shell=bash
# lib-machines.sh - sourced after lib-netns.sh by the tests of one grid
# across two machines (partition.h, docs/scale-out.md).
#
# Two "machines" are two namespaces, $M1 and $M2, joined by a veth underlay
# (192.168.251.1 and .2, MTU 1600: room for VXLAN's 50 bytes over the grid's
# 1500).  ga and gb run gridemu on machine 1 (prefix $A) and machine 2
# (prefix $B), entered with nsenter --net (not `ip netns exec`, whose
# private mount namespace would hide the namespaces gridemu creates).  The
# cleanup takes both grids down and removes the machines.

A=$GB_PREFIX B=${GB_PREFIX}x M1=${GB_PREFIX}m1 M2=${GB_PREFIX}m2
PEER1=192.168.251.1 PEER2=192.168.251.2

# machines_require CMD...: how each of these tests begins: skip unless
# namespaces, gridemu, VXLAN (require_machines) and each CMD are there.
machines_require() {
	local c
	require_netns
	require_gridemu
	require_machines
	for c in "$@"; do require_cmd "$c"; done
}
require_machines() {
	require_cmd nsenter
	ip link add "${GB_PREFIX}vx" type vxlan id 42 dstport 4789 2>/dev/null ||
		skip_all "the kernel has no VXLAN"
	ip link del "${GB_PREFIX}vx"
}

ga() { nsenter --net="/run/netns/$M1" "$GRIDEMU" --prefix "$A" "$@"; }
gb() { nsenter --net="/run/netns/$M2" "$GRIDEMU" --prefix "$B" "$@"; }

machines_cleanup() {
	local st=$? ns
	ga down >/dev/null 2>&1; gb down >/dev/null 2>&1
	ip netns del "$M1" 2>/dev/null; ip netns del "$M2" 2>/dev/null
	for ns in $(ip netns list | awk '{print $1}' | grep -E "^($A|$B)-"); do ip netns del "$ns"; done
	rm -rf "${GRIDBED_RUNDIR:?}/$A" "${GRIDBED_RUNDIR:?}/$B"
	exit $st
}
trap machines_cleanup EXIT

# machines_up: the two machines and their underlay.
machines_up() {
	ip netns add "$M1" && ip netns add "$M2" &&
		ip -n "$M1" link add u type veth peer name u netns "$M2" &&
		ip -n "$M1" addr add "$PEER1/30" dev u && ip -n "$M2" addr add "$PEER2/30" dev u &&
		ip -n "$M1" link set u mtu 1600 up && ip -n "$M2" link set u mtu 1600 up &&
		ip -n "$M1" link set lo up && ip -n "$M2" link set lo up
}

# m1_links: the devices of machine 1's own network.
m1_links() { ip -n "$M1" -o link show | awk '{print $2}' | paste -sd' '; }

# machines_down: both grids down, then the machines; TAP lines for each.
machines_down() {
	t "down on machine 1" ga down
	t "down on machine 2" gb down
	is "$(ip netns list | grep -cE "^($A|$B)-")" 0 "no namespace of either grid is left"
	ok "$([ ! -e "$GRIDBED_RUNDIR/$A" ] && [ ! -e "$GRIDBED_RUNDIR/$B" ]; echo $?)" \
		"no run directory is left"
	ip netns del "$M1"; ip netns del "$M2"
}
