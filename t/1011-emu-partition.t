#!/usr/bin/env bash
# One grid across two machines, small (partition.h, docs/scale-out.md):
# two-clusters split by site over two namespaced "machines" (lib-machines.sh)
# under the tap backend.  Bad --part/--peer input (a --peer that is no other
# machine's unicast address, or has no route from this one, too) is refused in one line with
# status 2 and creates nothing; each machine builds its site, the mgmt
# namespace and P-edge, and nothing in its own network; every host pair pings
# across; status and link show say what is where; link set refuses the
# direction the peer shapes; down on both sides leaves nothing, and the
# host's root namespace is untouched.  t/1103 does teragrid at full size,
# with MPI; t/1104 does this under netem in user-mode Linux.
source "$(dirname "$0")/lib-netns.sh"
source "$(dirname "$0")/lib-machines.sh"
machines_require ping

T=$TOPOS/two-clusters.yaml
before=$(root_snapshot)
machines_up || bail "cannot build the underlay"
m1_before=$(m1_links)

# ------------------------------------------------------------ bad input
for bad in "--part siteA" "--peer $PEER2" "--part siteA,MARS --peer $PEER2" \
	"--part siteA --peer 192.168.251.x" "--part siteA,siteA --peer $PEER2" \
	"--part siteA,siteB --peer $PEER2" "--part a-1 --peer $PEER2" \
	"--part siteA --peer $PEER2 --peer-prefix BAD!" "--part siteA --peer 0.0.0.0" \
	"--part siteA --peer 224.0.0.1" "--part siteA --peer 255.255.255.255" \
	"--part siteA --peer 127.0.0.1" "--part siteA --peer $PEER1" \
	"--part siteA --peer 10.255.255.1"; do
	# shellcheck disable=SC2086
	out=$(ga up "$T" $bad 2>&1); st=$?
	is "$st" 2 "up $bad: refused with status 2" || diag "$out"
	is "$(printf '%s\n' "$out" | wc -l)" 1 "  in one line: $out"
done
is "$(ip netns list | grep -cE "^($A|$B)-")" 0 "the refusals created no namespace"
ok "$([ ! -e "$GRIDBED_RUNDIR/$A/state.json" ]; echo $?)" "and no state file"

# ------------------------------------------------------------ up on both
out=$(ga up "$T" --part siteA --peer "$PEER2" --peer-prefix "$B" 2>&1)
is $? 0 "machine 1 builds siteA" || diag "$out"
out=$(gb up "$T" --part siteB --peer "$PEER1" --peer-prefix "$A" 2>&1)
is $? 0 "machine 2 builds siteB" || diag "$out"
is "$(ip netns list | grep -cE "^$A-")" $((4 + 1 + 1 + 2)) \
	"machine 1 has its 4 hosts, switch and router, mgmt and edge"
is "$(m1_links)" "$m1_before" "the machine's own network gained no device"
like "$(ga status)" "part: siteA built here; the rest on the peer $PEER2 \\(prefix $B\\), 1 links across" \
	"status says what is built here and where the rest is"
is "$(ga status | awk '$1 == "b-1" {print $4}')" "$B-b-1" "status names the peer's hosts by the peer's namespaces"
wan=$(ga link show | awk '$1 == "siteA-siteB" {print $2, $3}' | paste -sd,)
like "$wan" '^siteA>siteB d[0-9]+,siteB>siteA peer$' "link show: siteA>siteB is shaped here, siteB>siteA on the peer"
out=$(ga link set siteA-siteB delay 7ms 2>&1); st=$?
is "$st" 2 "link set of both directions is refused: one is shaped on the peer" || diag "$out"
like "$out" "shaped on the peer machine $PEER2" "  and says so: $out"
t "link set dir siteA>siteB works on machine 1" ga link set siteA-siteB dir 'siteA>siteB' delay 5ms

# ------------------------------------------------------------ every pair pings
mapfile -t rows < <(ga status | awk 'NR>2 && NF==6 {print $1, $4, $5}')
is "${#rows[@]}" 8 "status lists all 8 hosts"
addrs=$(printf '%s\n' "${rows[@]}" | awk '{print $3}' | paste -sd' ')
fails=0
for r in "${rows[@]}"; do
	set -- $r
	for a in $addrs; do
		[ "$a" = "$3" ] || ip netns exec "$2" ping -c1 -W5 -q "$a" >/dev/null 2>&1 ||
			{ fails=$((fails + 1)); diag "$1 -> $a fails"; }
	done
done
is "$fails" 0 "all 56 ordered host pairs ping, across the machines too"
mgmt_b1=$(ga status | awk '$1 == "b-1" {print $6}')
t "the management networks are joined: a-1 pings b-1's management address" \
	ip netns exec "$A-a-1" ping -c1 -W5 -q "$mgmt_b1"

machines_down
is "$(root_snapshot)" "$before" "the host's root namespace is untouched"
done_testing
