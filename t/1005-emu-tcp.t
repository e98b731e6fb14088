#!/usr/bin/env bash
# 1005-emu-tcp: the hosts' TCP stack comes from the topology, never from the
# machine (docs/topology-format.md, "The hosts' TCP stack").  The test sets
# the root namespace's own defaults to something else (another congestion
# control, slow start after idle flipped), brings grids up, and checks what
# the hosts really run: status, the namespaces' sysctls and routes (ip, the
# witness), and the algorithm iperf3 reports for a real connection.  The
# root's values are restored in the exit trap, even on failure.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_cmd iperf3
require_cmd jq

sys=/proc/sys/net/ipv4
cc0=$(cat $sys/tcp_congestion_control); ssai0=$(cat $sys/tcp_slow_start_after_idle)
restore_root() {
	echo "$cc0" >$sys/tcp_congestion_control
	echo "$ssai0" >$sys/tcp_slow_start_after_idle
}
tmp=$(mktemp -d /tmp/gb-tcp.XXXXXX)
trap 'st=$?; restore_root; rm -rf "$tmp"; (exit $st); gb_cleanup' EXIT

# Something other than the grid's default (cubic, on) in the root.
other=reno
[ "$cc0" = reno ] && other=bbr
grep -qw "$other" $sys/tcp_available_congestion_control ||
	skip_all "this kernel has no congestion control other than the default to test with"
echo "$other" >$sys/tcp_congestion_control
echo 0 >$sys/tcp_slow_start_after_idle

plan 16

addr() { "$GRIDEMU" status --json | jq -r --arg h "$1" '.hosts[] | select(.name == $h) | .data'; }
# congestion control iperf3 reports for a connection SRC -> DST: "sender receiver"
iperf_cc() {
	ip netns exec "$GB_PREFIX-$2" iperf3 -s -1 -p 5301 >/dev/null 2>&1 &
	local srv=$! out
	wait_until 10 tcp_listening "$GB_PREFIX-$2" 5301
	out=$(ip netns exec "$GB_PREFIX-$1" iperf3 -c "$(addr "$2")" -p 5301 -t 1 -J 2>/dev/null)
	wait $srv 2>/dev/null
	printf '%s' "$out" | jq -r '"\(.end.sender_tcp_congestion) \(.end.receiver_tcp_congestion)"'
}

"$GRIDEMU" up "$TOPOS/two-clusters.yaml" >/dev/null 2>&1 || bail "cannot bring the grid up"
like "$("$GRIDEMU" status | grep '^tcp:')" \
	'^tcp: cubic, slow start after idle on, buffers 64 MiB, initcwnd kernel.s \(every host\)$' \
	"status: the topology's default stack on every host, not the root's $other"
is "$(ip netns exec "$GB_PREFIX-a-1" cat $sys/tcp_slow_start_after_idle)" 1 \
	"a host namespace has slow start after idle on (the root has it off)"
is "$(ip netns exec "$GB_PREFIX-a-1" cat $sys/tcp_rmem | awk '{print $3}')" 67108864 \
	"its tcp_rmem maximum is 64 MiB"
like "$(ip -n "$GB_PREFIX-a-1" route show 10.250.0.0/16)" 'congctl cubic' \
	"its data route carries congctl cubic (ip, the witness)"
is "$(iperf_cc a-1 b-1)" "cubic cubic" "a real connection across the WAN runs cubic at both ends"
"$GRIDEMU" down >/dev/null 2>&1

cat >"$tmp/stack.yaml" <<'YAML'
name: tcpstack
tcp: {congestion: reno, buffers: 8MiB}
defaults:
  host_link: {rate: 100mbit, delay: 0.05ms}
sites:
  - name: A
    clusters:
      - name: a
        hosts: [a-1, {name: a-2, tcp: {initcwnd: 3, slow_start_after_idle: false}}]
        tcp: {congestion: cubic}
  - name: B
    clusters:
      - {name: b, hosts: 2}
links:
  - {a: A, b: B, delay: 2ms, rate: 50mbit}
YAML
"$GRIDEMU" up "$tmp/stack.yaml" >/dev/null 2>&1 || bail "cannot bring the layered grid up"
j=$("$GRIDEMU" status --json)
is "$(printf '%s' "$j" | jq -c '[.hosts[] | [.name, .tcp.congestion]]')" \
	'[["a-1","cubic"],["a-2","cubic"],["b-1","reno"],["b-2","reno"]]' \
	"top level reno, cluster a overrides it with cubic"
is "$(printf '%s' "$j" | jq -c '.hosts[1].tcp | [.slow_start_after_idle, .initcwnd, .buffers]')" \
	'[false,3,8388608]' "host a-2's own keys win over its cluster's and the top level's"
like "$(ip -n "$GB_PREFIX-a-2" route show 10.250.0.0/16)" 'initcwnd 3 congctl cubic' \
	"a-2's route: initcwnd 3, congctl cubic"
is "$(ip netns exec "$GB_PREFIX-a-2" cat $sys/tcp_slow_start_after_idle)" 0 \
	"a-2's namespace has slow start after idle off"
is "$(iperf_cc b-1 a-1)" "reno cubic" "each end runs its own host's algorithm"
like "$("$GRIDEMU" status | grep -c '^tcp:')" '^3$' "text status lists the three stacks"
"$GRIDEMU" down >/dev/null 2>&1

# A congestion control the kernel lacks: one line with the place, exit 2,
# nothing created, not even the run directory.
sed 's/congestion: reno, buffers: 8MiB/congestion: nosuchcc/' "$tmp/stack.yaml" >"$tmp/bad.yaml"
out=$("$GRIDEMU" up "$tmp/bad.yaml" 2>&1); st=$?
is "$st" 2 "an unknown congestion control is bad input (exit 2)"
like "$out" "^gridemu: $tmp/bad.yaml:2:19: host 'b-1': congestion control 'nosuchcc' is not in this kernel" \
	"the message names the key's place and the first host it reaches"
is "$(printf '%s\n' "$out" | wc -l)" 1 "in one line"
is "$(prefix_netns | wc -l)" 0 "no namespace was created"
ok "$([ ! -e "$GRIDBED_RUNDIR/$GB_PREFIX" ]; echo $?)" "and no run directory is left"
